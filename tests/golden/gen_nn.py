"""Golden data for torch.nn: initial weights after manual_seed, layer and
loss outputs, and the gradients of their inputs and parameters.

Writes nn.ctg. A case <c> stores its inputs c_in0, c_in1, ..., a random
gradient of the output c_g, the output c_out, the inputs' gradients c_gin<i>
(floating inputs only) and the parameters' gradients c_gp_<name>; a module
case also stores the state after the call as c_st_<name>.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from ctg import Writer

torch.set_num_threads(1)
W = Writer('nn.ctg')


def case(name, fn, inputs, module=None, seed=None):
    """Run fn(*inputs) (module or function); store everything for replay."""
    W.case(name, fn, inputs, GEN, module, seed)


GEN = torch.Generator().manual_seed(1234)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=GEN, dtype=dtype)


# ---------------------------------------------------------------- initialisation
torch.manual_seed(0)  # Linear's reset_parameters: kaiming_uniform_(a=sqrt(5)), then the bias's uniform_
lin = nn.Linear(784, 256)
W.add('linear_784_256_weight', lin.weight)
W.add('linear_784_256_bias', lin.bias)
torch.manual_seed(1)
W.add('init_xavier_uniform', nn.init.xavier_uniform_(torch.empty(5, 7), gain=nn.init.calculate_gain('relu')))
W.add('init_xavier_normal', nn.init.xavier_normal_(torch.empty(5, 7, 3)))
W.add('init_kaiming_uniform', nn.init.kaiming_uniform_(torch.empty(6, 4, 3), mode='fan_out', nonlinearity='relu'))
W.add('init_kaiming_normal', nn.init.kaiming_normal_(torch.empty(6, 4), a=0.2))
W.add('init_trunc_normal', nn.init.trunc_normal_(torch.empty(50), mean=0.5, std=2.0, a=-1.0, b=3.0))
W.add('init_uniform', nn.init.uniform_(torch.empty(3, 4), -2, 5))
W.add('init_normal', nn.init.normal_(torch.empty(3, 4), 1, 3))
W.add('init_eye', nn.init.eye_(torch.empty(3, 5)))
W.add('init_gains', torch.tensor([nn.init.calculate_gain(n, p) for n, p in
                                  [('linear', None), ('conv2d', None), ('sigmoid', None), ('tanh', None),
                                   ('relu', None), ('leaky_relu', None), ('leaky_relu', 0.2), ('selu', None)]],
                                 dtype=torch.float64))
torch.manual_seed(2)
W.add('embedding_10_4_weight', nn.Embedding(10, 4).weight)
torch.manual_seed(2)
W.add('embedding_10_4_pad_weight', nn.Embedding(10, 4, padding_idx=-3).weight)

# ---------------------------------------------------------------- layers
x34 = rnd(3, 4)
case('relu', nn.ReLU(), [x34])
case('leaky_relu', nn.LeakyReLU(0.2), [x34])
case('elu', nn.ELU(0.7), [x34])
case('gelu_tanh', nn.GELU('tanh'), [x34])
case('softplus', nn.Softplus(2.0, 1.0), [x34])
case('hardtanh', nn.Hardtanh(-0.5, 0.25), [x34])
case('softmax', nn.Softmax(dim=0), [x34])
case('log_softmax', nn.LogSoftmax(dim=1), [x34])
case('flatten', nn.Flatten(), [rnd(2, 3, 4)])
case('unflatten', nn.Unflatten(1, (2, 2)), [x34])
case('dropout', nn.Dropout(0.3), [rnd(4, 5)], seed=7)
case('dropout2d', nn.Dropout2d(0.5), [rnd(3, 4, 2, 2)], seed=8)
case('dropout_seed', nn.Sequential(nn.Dropout(0.3)), [torch.tensor([1., 2., 3., 4., 5.])], seed=0)
case('normalize', lambda x: F.normalize(x), [torch.tensor([[6., 8.]])])

ln = nn.LayerNorm((3, 4))
with torch.no_grad():
    ln.weight.copy_(rnd(3, 4))
    ln.bias.copy_(rnd(3, 4))
case('layer_norm', ln, [rnd(2, 3, 4)], module=ln)
case('layer_norm_noaffine', nn.LayerNorm(5, elementwise_affine=False), [rnd(4, 5) * 3 + 1])

bn = nn.BatchNorm1d(3)
with torch.no_grad():
    bn.weight.copy_(rnd(3))
    bn.bias.copy_(rnd(3))
case('bn1d_a', bn, [rnd(5, 3)], module=bn)
case('bn1d_b', bn, [rnd(4, 3, 2) + 2], module=bn)
bn.eval()
case('bn1d_eval', bn, [rnd(4, 3)], module=bn)
bnc = nn.BatchNorm2d(2, momentum=None)
case('bn2d_cum_a', bnc, [rnd(2, 2, 3, 3)], module=bnc)
case('bn2d_cum_b', bnc, [rnd(3, 2, 2, 2) * 2], module=bnc)
bnn = nn.BatchNorm2d(2, affine=False, track_running_stats=False)
case('bn2d_notrack', bnn, [rnd(2, 2, 2, 3)], module=bnn)

gn = nn.GroupNorm(2, 4)
with torch.no_grad():
    gn.weight.copy_(rnd(4))
    gn.bias.copy_(rnd(4))
case('group_norm', gn, [rnd(3, 4, 5)], module=gn)
inn = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
with torch.no_grad():
    inn.weight.copy_(rnd(3))
case('instance_norm', inn, [rnd(2, 3, 2, 3)], module=inn)
case('instance_norm_nobatch', nn.InstanceNorm2d(3), [rnd(3, 3, 2)])

emb = nn.Embedding(6, 3, padding_idx=1)
case('embedding', emb, [torch.tensor([[0, 1, 5], [1, 2, 0]])], module=emb)
bag = nn.EmbeddingBag(6, 3, mode='sum')
case('embedding_bag_sum', lambda i: bag(i, torch.tensor([0, 2, 2])), [torch.tensor([4, 1, 5, 0, 4])], module=bag)
bagm = nn.EmbeddingBag(6, 3)
case('embedding_bag_mean', bagm, [torch.tensor([[1, 2], [5, 5], [0, 3]])], module=bagm)

lin = nn.Linear(4, 3)
for shape, tag in [((4,), '1d'), ((2, 4), '2d'), ((2, 5, 4), '3d'), ((2, 2, 3, 4), '4d')]:
    case('linear_' + tag, lin, [rnd(*shape)], module=lin)
lin_nb = nn.Linear(4, 3, bias=False)
case('linear_nobias', lin_nb, [rnd(3, 4)], module=lin_nb)
torch.manual_seed(3)
bil = nn.Bilinear(3, 4, 2)
W.add('bilinear_init_weight', bil.weight)
W.add('bilinear_init_bias', bil.bias)
case('bilinear', bil, [rnd(5, 3), rnd(5, 4)], module=bil)


class ToyModel(nn.Module):  # seed 004
    def __init__(self):
        super(ToyModel, self).__init__()
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(10, 5)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


torch.manual_seed(0)
toy = ToyModel()
for k, v in toy.state_dict().items():
    W.add('toy_init_' + k, v)
case('toy', lambda x, y: nn.MSELoss()(toy(x), y), [rnd(20, 10), rnd(20, 5)], module=toy)

# ---------------------------------------------------------------- losses
x = rnd(4, 5)
t = rnd(4, 5)
p = torch.rand(4, 5, generator=GEN)
c = torch.tensor([0, 2, 1, 4])
w5 = torch.rand(5, generator=GEN) + 0.5
W.add('loss_w5', w5)
for r in ['none', 'mean', 'sum']:
    case('mse_' + r, lambda a, b: F.mse_loss(a, b, reduction=r), [x, t])
    case('l1_' + r, lambda a, b: F.l1_loss(a, b, reduction=r), [x, t])
    case('smooth_l1_' + r, lambda a, b: F.smooth_l1_loss(a, b, reduction=r, beta=0.5), [x, t])
    case('huber_' + r, lambda a, b: F.huber_loss(a, b, reduction=r, delta=0.7), [x, t])
    case('nll_' + r, lambda a, b: F.nll_loss(a, b, reduction=r, weight=w5), [x, torch.tensor([0, 2, -100, 4])])
    case('ce_' + r, lambda a, b: F.cross_entropy(a, b, reduction=r), [x, c])
    case('ce_ls_' + r, lambda a, b: F.cross_entropy(a, b, reduction=r, label_smoothing=0.2, weight=w5, ignore_index=2),
         [x, c])
    case('ce_prob_' + r, lambda a, b: F.cross_entropy(a, b, reduction=r, label_smoothing=0.1), [x, p.softmax(1)])
    case('bce_' + r, lambda a, b: F.binary_cross_entropy(a, b, reduction=r, weight=w5), [torch.sigmoid(x), p])
    case('bce_logits_' + r, lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=r, pos_weight=w5),
         [x, p])
    case('kl_div_' + r, lambda a, b: F.kl_div(a, b, reduction=r), [x.log_softmax(1), p])
    case('cosine_' + r, lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin=0.1, reduction=r),
         [x, t, torch.tensor([1, -1, 1, -1])])
    case('margin_ranking_' + r, lambda a, b, y: F.margin_ranking_loss(a, b, y, margin=0.3, reduction=r),
         [x[:, 0], t[:, 0], torch.tensor([1., -1., 1., -1.])])
    case('triplet_' + r, lambda a, b, n: F.triplet_margin_loss(a, b, n, reduction=r, swap=True, p=1.5), [x, t, p])
case('kl_div_batchmean_log', lambda a, b: F.kl_div(a, b, reduction='batchmean', log_target=True),
     [x.log_softmax(1), p.log()])
case('ce_nd', lambda a, b: F.cross_entropy(a, b, weight=torch.tensor([1., 2., 0.5])),
     [rnd(2, 3, 4), torch.tensor([[0, 2, 1, 1], [2, 2, 0, 1]])])
case('ce_1d', lambda a, b: F.cross_entropy(a, b), [rnd(5), torch.tensor(3)])
case('bce_logits_plain', lambda a, b: F.binary_cross_entropy_with_logits(a, b), [x * 20, p])

# ---------------------------------------------------------------- batch norm, bit for bit
# Batch norm's forward is PyTorch's kernel operation for operation: outputs and
# running statistics are compared with 0 ulps (gradients with the float
# tolerances). A case <c> also stores the running statistics it starts from,
# c_rm0 and c_rv0; 'T' (transposed, not contiguous) and 'CL' (channels-last)
# cases are functional, their input stored in the layout it is viewed from.
def bn_exact(name, mod, x, train=False):
    with torch.no_grad():
        if mod.affine:
            mod.weight.copy_(rnd(mod.num_features, dtype=x.dtype))
            mod.bias.copy_(rnd(mod.num_features, dtype=x.dtype))
        mod.running_mean.copy_(rnd(mod.num_features, dtype=x.dtype))
        mod.running_var.copy_(torch.rand(mod.num_features, generator=GEN, dtype=x.dtype) * 2 + 0.1)
    W.add(name + '_rm0', mod.running_mean)
    W.add(name + '_rv0', mod.running_var)
    mod.train(train)
    case(name, mod, [x], module=mod)


for dt, tag in [(torch.float32, ''), (torch.float64, '_f64')]:
    bn_exact('bnx_1d2_eval' + tag, nn.BatchNorm1d(8).to(dt), rnd(16, 8, dtype=dt) * 3 + 1)
    bn_exact('bnx_1d3_eval' + tag, nn.BatchNorm1d(8).to(dt), rnd(16, 8, 7, dtype=dt) * 3 + 1)
    bn_exact('bnx_2d_eval' + tag, nn.BatchNorm2d(8).to(dt), rnd(16, 8, 5, 5, dtype=dt) * 3 + 1)
    bn_exact('bnx_1d2_eval_noaffine' + tag, nn.BatchNorm1d(8, affine=False).to(dt), rnd(16, 8, dtype=dt) * 3 + 1)
    bn_exact('bnx_2d_eval_noaffine' + tag, nn.BatchNorm2d(8, affine=False).to(dt), rnd(16, 8, 5, 5, dtype=dt) * 3 + 1)
    bn_exact('bnx_1d3_train' + tag, nn.BatchNorm1d(8).to(dt), rnd(16, 8, 7, dtype=dt) * 3 + 1, train=True)
    bn_exact('bnx_2d_train' + tag, nn.BatchNorm2d(8).to(dt), rnd(16, 8, 5, 5, dtype=dt) * 3 + 1, train=True)
    bn_exact('bnx_2d_train_noaffine' + tag, nn.BatchNorm2d(8, affine=False).to(dt), rnd(16, 8, 5, 5, dtype=dt) * 3 + 1,
             train=True)
    rm, rv = rnd(8, dtype=dt), torch.rand(8, generator=GEN, dtype=dt) * 2 + 0.1
    W.add('bnx_f' + tag + '_rm', rm)
    W.add('bnx_f' + tag + '_rv', rv)
    w, b = rnd(8, dtype=dt), rnd(8, dtype=dt)
    case('bnx_f_eval' + tag, lambda x, w, b: F.batch_norm(x, rm, rv, w, b), [rnd(16, 8, 5, 5, dtype=dt) * 3 + 1, w, b])
    case('bnx_f_eval_T' + tag, lambda x, w, b: F.batch_norm(x.transpose(1, 2), rm, rv, w, b),
         [rnd(16, 5, 8, 5, dtype=dt) * 3 + 1, w, b])
    case('bnx_f_eval_CL' + tag, lambda x, w, b: F.batch_norm(x.permute(0, 3, 1, 2), rm, rv, w, b),
         [rnd(16, 5, 5, 8, dtype=dt) * 3 + 1, w, b])

# training on rows (2-D input, channels-last): PyTorch's per-channel sums in
# the input's dtype (run with one thread, as here)
for dt, tag in [(torch.float32, ''), (torch.float64, '_f64')]:
    bn_exact('bnx_1d2_train' + tag, nn.BatchNorm1d(8).to(dt), rnd(16, 8, dtype=dt) * 3 + 1, train=True)
    rm, rv = rnd(8, dtype=dt), torch.rand(8, generator=GEN, dtype=dt) * 2 + 0.1
    W.add('bnx_ft' + tag + '_rm', rm)
    W.add('bnx_ft' + tag + '_rv', rv)
    w, b = rnd(8, dtype=dt), rnd(8, dtype=dt)
    case('bnx_f_train_CL' + tag, lambda x, w, b: F.batch_norm(x.permute(0, 3, 1, 2), rm.clone(), rv.clone(), w, b, True),
         [rnd(16, 5, 5, 8, dtype=dt) * 3 + 1, w, b])

# ---------------------------------------------------------------- binary_cross_entropy_with_logits, bit for bit
# Its backward is a composite in PyTorch that divides by numel for the mean
# (Loss.cpp), so the first derivative's node is DivBackward1, and its
# numbers are the division's, not a multiplication by 1 / numel: 21
# elements, where the two differ. A case bcel_<reduction><_wp> (with weight
# and pos_weight) stores in0 (x), in1 (target), w, pw, the output out, the
# output's gradient g, the first derivatives gx and gt, and the derivatives
# of sum(gx * u + gt * v) with respect to x and target, ggx and ggt.
BG = torch.Generator().manual_seed(77)
bx = torch.randn(3, 7, generator=BG) * 2
bt = torch.rand(3, 7, generator=BG)
bw = torch.rand(7, generator=BG) + 0.5
bpw = torch.rand(7, generator=BG) + 0.5
u, v = torch.randn(3, 7, generator=BG), torch.randn(3, 7, generator=BG)
W.add('bcel_w', bw)
W.add('bcel_pw', bpw)
W.add('bcel_u', u)
W.add('bcel_v', v)
W.add('bcel_in0', bx)
W.add('bcel_in1', bt)
for r in ['mean', 'sum', 'none']:
    for tag, w, pw in [('', None, None), ('_wp', bw, bpw)]:
        name = 'bcel_' + r + tag
        x, t = bx.clone().requires_grad_(), bt.clone().requires_grad_()
        out = F.binary_cross_entropy_with_logits(x, t, w, pos_weight=pw, reduction=r)
        g = torch.randn(out.shape, generator=BG)
        gx, gt = torch.autograd.grad(out, (x, t), g, create_graph=True)
        assert gx.grad_fn.name() == gt.grad_fn.name() == ('DivBackward1' if r == 'mean' else 'MulBackward0')
        ggx, ggt = torch.autograd.grad((gx * u + gt * v).sum(), (x, t))
        if r == 'mean':  # the case has teeth: the sum's gradient times 1 / numel has other bits
            pre = torch.autograd.grad(F.binary_cross_entropy_with_logits(x, t, w, pos_weight=pw, reduction='sum'),
                                      (x, t), g)
            for p, d in zip(pre, (gx, gt)):
                assert torch.equal(p / x.numel(), d) and not torch.equal(p * (1 / x.numel()), d)
        for k, val in [('out', out), ('g', g), ('gx', gx), ('gt', gt), ('ggx', ggx), ('ggt', ggt)]:
            W.add(name + '_' + k, val)

# ---------------------------------------------------------------- layer_norm's second derivatives (float64)
# PyTorch's first derivative is native_layer_norm_backward, one node of three
# outputs (NativeLayerNormBackwardBackward0). A case lnd_<tag> stores x, g
# (the output's gradient), weight w and bias b when it has them, the first
# derivatives g<x|w|b>, weights u<x|w|b> for them, and the derivatives of
# sum(gx ux + gw uw + gb ub) with respect to x, g and w: gg<x|g|w>; with a
# weight, also those of sum(gw uw) for gw asked for alone (the node then
# has one output of three): ggw<x|g|w>. (With a
# bias and no weight PyTorch 1.13's layer_norm_double_backward fails:
# "Expected a proper Tensor but got None".)
LG = torch.Generator().manual_seed(5)
for tag, shape, affine in [('1', (4,), 'wb'), ('1_plain', (4,), ''), ('1_w', (4,), 'w'),
                           ('2', (3, 4), 'wb'), ('2_plain', (3, 4), '')]:
    name = 'lnd_' + tag
    x = (torch.randn(2, 3, 4, generator=LG, dtype=torch.float64) * 2 + 0.5).requires_grad_()
    g = torch.randn(2, 3, 4, generator=LG, dtype=torch.float64).requires_grad_()
    w = torch.randn(*shape, generator=LG, dtype=torch.float64).requires_grad_() if 'w' in affine else None
    b = torch.randn(*shape, generator=LG, dtype=torch.float64).requires_grad_() if 'b' in affine else None
    ins = [('x', x)] + [(k, t) for k, t in [('w', w), ('b', b)] if t is not None]
    firsts = torch.autograd.grad(F.layer_norm(x, shape, w, b, 1e-5), [t for _, t in ins], g, create_graph=True)
    assert all(d.grad_fn.name() == 'NativeLayerNormBackwardBackward0' for d in firsts)
    total, us = 0, {}
    for (k, t), d in zip(ins, firsts):
        us[k] = torch.randn(d.shape, generator=LG, dtype=torch.float64)
        W.add(name + '_' + k, t)
        W.add(name + '_g' + k, d)
        W.add(name + '_u' + k, us[k])
        total = total + (d * us[k]).sum()
    W.add(name + '_g', g)
    wrt = [('x', x), ('g', g)] + ([('w', w)] if w is not None else [])
    seconds = torch.autograd.grad(total, [t for _, t in wrt], allow_unused=True)
    for (k, t), d in zip(wrt, seconds):
        W.add(name + '_gg' + k, d if d is not None else torch.zeros_like(t))
    if w is not None:
        gw, = torch.autograd.grad(F.layer_norm(x, shape, w, b, 1e-5), [w], g, create_graph=True)
        assert gw.grad_fn.name() == 'NativeLayerNormBackwardBackward0'
        seconds = torch.autograd.grad((gw * us['w']).sum(), [t for _, t in wrt], allow_unused=True)
        for (k, t), d in zip(wrt, seconds):
            W.add(name + '_ggw' + k, d if d is not None else torch.zeros_like(t))

W.save()
