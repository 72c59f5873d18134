"""Golden data for the convolution, pooling and attention layers of torch.nn,
scaled dot-product attention and nn.init.orthogonal_: parameters after
manual_seed, outputs and the gradients of inputs and parameters.

Writes layers.ctg. A case stores what ct_test_golden_case (tests/harness.c)
replays (see Writer.case in ctg.py); init_<name>_<param> records a fresh
module's parameters after torch.manual_seed.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from ctg import Writer

torch.set_num_threads(1)
W = Writer('layers.ctg')
GEN = torch.Generator().manual_seed(4321)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=GEN, dtype=dtype)


def case(name, fn, inputs, module=None, seed=None):
    W.case(name, fn, inputs, GEN, module, seed)


def init(name, seed, make):
    """A fresh module made right after manual_seed(seed): its parameters."""
    torch.manual_seed(seed)
    m = make()
    for pname, p in m.named_parameters():
        W.add('init_%s_%s' % (name, pname), p)
    return m


def randomise(m):
    """Parameters redrawn from GEN (zero-initialised biases would hide mistakes)."""
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(rnd(*p.shape) * 0.5)
    return m


# ---------------------------------------------------------------- initialisation
init('conv2d_1_16_5', 0, lambda: nn.Conv2d(1, 16, 5))
init('conv1d_groups', 1, lambda: nn.Conv1d(4, 6, 3, groups=2))
init('conv3d', 2, lambda: nn.Conv3d(2, 4, (2, 3, 3), bias=False))
init('conv_transpose1d', 3, lambda: nn.ConvTranspose1d(4, 6, 3, groups=2))
init('conv_transpose2d', 4, lambda: nn.ConvTranspose2d(3, 5, (2, 3)))
init('mha', 5, lambda: nn.MultiheadAttention(8, 2))
init('mha_kdim', 6, lambda: nn.MultiheadAttention(8, 4, kdim=5, vdim=3, add_bias_kv=True))
init('mha_nobias', 7, lambda: nn.MultiheadAttention(6, 3, bias=False))
init('encoder', 8, lambda: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16))

torch.manual_seed(9)
W.add('orthogonal_tall', nn.init.orthogonal_(torch.empty(6, 3)))
W.add('orthogonal_wide', nn.init.orthogonal_(torch.empty(2, 5), gain=2.0))
W.add('orthogonal_conv', nn.init.orthogonal_(torch.empty(4, 2, 3)))
W.add('orthogonal_f64', nn.init.orthogonal_(torch.empty(5, 5, dtype=torch.float64)))

# ---------------------------------------------------------------- convolutions
def conv_case(name, m, x):
    case(name, randomise(m), [x], module=m)


conv_case('conv1d', nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), rnd(2, 4, 9))
conv_case('conv1d_same_even', nn.Conv1d(2, 3, 4, padding='same', dilation=2), rnd(2, 2, 10))
conv_case('conv1d_reflect', nn.Conv1d(2, 3, 3, padding=2, padding_mode='reflect'), rnd(2, 2, 7))
conv_case('conv1d_unbatched', nn.Conv1d(3, 2, 2), rnd(3, 6))
conv_case('conv2d', nn.Conv2d(3, 4, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2)), rnd(2, 3, 7, 6))
conv_case('conv2d_groups_nobias', nn.Conv2d(4, 6, 3, groups=2, bias=False), rnd(1, 4, 5, 5))
conv_case('conv2d_same', nn.Conv2d(2, 3, (3, 4), padding='same'), rnd(2, 2, 5, 6))
conv_case('conv2d_valid', nn.Conv2d(2, 3, 3, padding='valid'), rnd(1, 2, 5, 5))
conv_case('conv2d_reflect', nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode='reflect'), rnd(2, 2, 5, 6))
conv_case('conv2d_replicate', nn.Conv2d(2, 2, 3, padding=1, padding_mode='replicate'), rnd(1, 2, 4, 5))
conv_case('conv2d_circular', nn.Conv2d(2, 2, 3, stride=2, padding=(2, 1), padding_mode='circular'), rnd(2, 2, 5, 5))
conv_case('conv2d_same_circular', nn.Conv2d(1, 2, (2, 3), padding='same', padding_mode='circular'), rnd(1, 1, 4, 5))
conv_case('conv2d_unbatched', nn.Conv2d(2, 3, 2), rnd(2, 4, 4))
conv_case('conv3d', nn.Conv3d(2, 4, (2, 3, 2), stride=(1, 2, 1), padding=1, groups=2), rnd(2, 2, 3, 5, 4))
conv_case('conv3d_replicate', nn.Conv3d(1, 2, 2, padding=1, padding_mode='replicate'), rnd(1, 1, 3, 3, 4))
conv_case('conv_transpose1d', nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
          rnd(2, 4, 5))
conv_case('conv_transpose2d', nn.ConvTranspose2d(3, 2, (3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2),
                                                 dilation=(1, 2)), rnd(2, 3, 4, 3))
conv_case('conv_transpose2d_unbatched', nn.ConvTranspose2d(2, 3, 2, bias=False), rnd(2, 3, 3))
ct2 = randomise(nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1))
case('conv_transpose2d_output_size', lambda x: ct2(x, output_size=[8, 7]), [rnd(1, 2, 4, 4)], module=ct2)

# ---------------------------------------------------------------- pooling
x_pool = rnd(2, 3, 7, 8)
case('max_pool1d', nn.MaxPool1d(3, stride=2, padding=1, dilation=2, ceil_mode=True), [rnd(2, 3, 11)])
case('max_pool2d', nn.MaxPool2d((3, 2), stride=(2, 1), padding=1), [x_pool])
case('max_pool2d_ceil', nn.MaxPool2d(2, ceil_mode=True), [x_pool])
case('avg_pool1d', nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False), [rnd(2, 3, 9)])
case('avg_pool2d', nn.AvgPool2d((2, 3), stride=2, padding=(1, 1), ceil_mode=True), [x_pool])
case('avg_pool2d_divisor', nn.AvgPool2d(3, divisor_override=4), [x_pool])
case('adaptive_avg_pool2d', nn.AdaptiveAvgPool2d((3, 5)), [x_pool])
case('adaptive_avg_pool2d_1', nn.AdaptiveAvgPool2d(1), [x_pool])
case('adaptive_max_pool2d', nn.AdaptiveMaxPool2d((4, 3)), [x_pool])

# ---------------------------------------------------------------- scaled dot-product attention
sdpa = F._scaled_dot_product_attention  # 1.13's math kernel (bool masks: True takes part)
q4, k4, v4 = rnd(2, 3, 4, 8), rnd(2, 3, 6, 8), rnd(2, 3, 6, 5)
case('sdpa', lambda q, k, v: sdpa(q, k, v, None, 0.0, False, False)[0], [q4, k4, v4])
case('sdpa_weights', lambda q, k, v: sdpa(q, k, v, None, 0.0, True, False)[1], [q4, k4, v4])
case('sdpa_bool', lambda q, k, v, m: sdpa(q, k, v, m, 0.0, False, False)[0],
     [q4, k4, v4, torch.rand(4, 6, generator=GEN) > 0.3])
case('sdpa_float', lambda q, k, v, m: sdpa(q, k, v, m, 0.0, False, False)[0], [q4, k4, v4, rnd(2, 1, 4, 6)])
case('sdpa_causal', lambda q, k, v: sdpa(q, k, v, None, 0.0, False, True)[0], [rnd(3, 5, 4), rnd(3, 5, 4), rnd(3, 5, 2)])
case('sdpa_dropout', lambda q, k, v: sdpa(q, k, v, None, 0.4, False, False)[0], [q4, k4, v4], seed=11)
# scale=0.3: 1.13's kernel scales by 1/sqrt(E), so the query comes in pre-scaled
case('sdpa_scale', lambda q, k, v: sdpa(q * (0.3 * math.sqrt(8)), k, v, None, 0.0, False, False)[0], [q4, k4, v4])

# ---------------------------------------------------------------- MultiheadAttention
L, S, N, E = 4, 5, 2, 8
mha = randomise(nn.MultiheadAttention(E, 2))
xq, xk, xv = rnd(L, N, E), rnd(S, N, E), rnd(S, N, E)
kpm = torch.tensor([[False, False, True, False, True], [False, False, False, False, True]])
amask = torch.rand(L, S, generator=GEN) > 0.7
amask[:, 0] = False  # every query keeps a key
fmask3 = rnd(N * 2, L, S)
case('mha', lambda q, k, v: mha(q, k, v)[0], [xq, xk, xv], module=mha)
case('mha_self', lambda x: mha(x, x, x)[0], [xq], module=mha)
case('mha_kv_same', lambda q, k: mha(q, k, k)[0], [xq, xk], module=mha)
case('mha_weights', lambda q, k, v: mha(q, k, v)[1], [xq, xk, xv], module=mha)
case('mha_weights_per_head', lambda q, k, v: mha(q, k, v, average_attn_weights=False)[1], [xq, xk, xv], module=mha)
case('mha_kpm', lambda q, k, v, m: mha(q, k, v, key_padding_mask=m)[0], [xq, xk, xv, kpm], module=mha)
case('mha_bool_mask', lambda q, k, v, m: mha(q, k, v, attn_mask=m)[0], [xq, xk, xv, amask], module=mha)
case('mha_float_mask', lambda q, k, v, m: mha(q, k, v, attn_mask=m)[0], [xq, xk, xv, fmask3], module=mha)
case('mha_both_masks', lambda q, k, v, m, p: mha(q, k, v, attn_mask=m, key_padding_mask=p)[0],
     [xq, xk, xv, amask, kpm], module=mha)
case('mha_float_mask_kpm', lambda q, k, v, m, p: mha(q, k, v, attn_mask=m, key_padding_mask=p)[1],
     [xq, xk, xv, rnd(L, S), kpm], module=mha)
case('mha_float_kpm', lambda q, k, v, p: mha(q, k, v, key_padding_mask=p)[0], [xq, xk, xv, rnd(N, S)], module=mha)
case('mha_unbatched', lambda q, k, v, p: mha(q, k, v, key_padding_mask=p)[0], [xq[:, 0], xk[:, 0], xv[:, 0], kpm[0]],
     module=mha)
case('mha_unbatched_weights', lambda q, k, v: mha(q, k, v, average_attn_weights=False)[1], [xq[:, 0], xk[:, 0], xv[:, 0]],
     module=mha)
mha_bf = randomise(nn.MultiheadAttention(E, 4, batch_first=True, dropout=0.3))
case('mha_batch_first_dropout', lambda x: mha_bf(x, x, x)[0], [rnd(N, L, E)], module=mha_bf, seed=12)
mha_bf.eval()
case('mha_batch_first_eval', lambda q, k: mha_bf(q, k, k)[0], [rnd(N, L, E), rnd(N, S, E)], module=mha_bf)
mha_kd = randomise(nn.MultiheadAttention(E, 2, kdim=3, vdim=6, add_bias_kv=True))
case('mha_kdim_bias_kv', lambda q, k, v, m, p: mha_kd(q, k, v, attn_mask=m, key_padding_mask=p)[0],
     [xq, rnd(S, N, 3), rnd(S, N, 6), amask, kpm], module=mha_kd)
mha_z = randomise(nn.MultiheadAttention(6, 3, bias=False, add_zero_attn=True))
case('mha_zero_attn', lambda q, k, v, m: mha_z(q, k, v, attn_mask=m)[1], [rnd(L, N, 6), rnd(S, N, 6), rnd(S, N, 6), amask],
     module=mha_z)

# ---------------------------------------------------------------- TransformerEncoderLayer
enc = randomise(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.2))
src = rnd(5, 2, 8)
case('encoder_train', enc, [src], module=enc, seed=13)
case('encoder_masks', lambda x, m, p: enc(x, src_mask=m, src_key_padding_mask=p), [src, rnd(5, 5), kpm], module=enc, seed=14)
enc.eval()
case('encoder_eval', enc, [src], module=enc)
enc_nf = randomise(nn.TransformerEncoderLayer(8, 4, dim_feedforward=12, dropout=0.1, activation='gelu', layer_norm_eps=1e-4,
                                              batch_first=True, norm_first=True))
case('encoder_norm_first', lambda x, p: enc_nf(x, src_key_padding_mask=p), [rnd(2, 5, 8), kpm], module=enc_nf, seed=15)
case('encoder_unbatched', enc_nf, [rnd(5, 8)], module=enc_nf, seed=16)

# ---------------------------------------------------------------- ConvTranspose3d
init('conv_transpose3d', 10, lambda: nn.ConvTranspose3d(4, 2, (2, 3, 2), groups=2))
conv_case('conv_transpose3d', nn.ConvTranspose3d(4, 2, (2, 3, 2), stride=(1, 2, 2), padding=(0, 1, 1),
                                                 output_padding=(0, 1, 0), dilation=(2, 1, 1), groups=2),
          rnd(2, 4, 3, 4, 3))
conv_case('conv_transpose3d_unbatched', nn.ConvTranspose3d(2, 3, 2, bias=False), rnd(2, 2, 3, 2))
ct3 = randomise(nn.ConvTranspose3d(2, 2, 3, stride=2, padding=1))
case('conv_transpose3d_output_size', lambda x: ct3(x, output_size=[1, 2, 5, 6, 4]), [rnd(1, 2, 3, 3, 2)], module=ct3)

W.save()
