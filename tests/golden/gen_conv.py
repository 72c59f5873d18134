"""Golden values of the convolution and pooling ops: for each case, its
inputs (float32 or float64; batched and unbatched), PyTorch's output, a
random gradient of the output, PyTorch's gradient of each input and the
output's grad_fn name.

Writes conv.ctg (tensors c<case>_i<k> inputs, c<case>_y, c<case>_gy,
c<case>_g<k> gradients, c<case>_idx max pooling's indices) and conv.txt,
one case a line:
    <case>|<op>|<args>|<node name>|<number of inputs>
args: key=v1,v2 separated by ';': s stride, p padding, d dilation, g groups,
op output_padding, ps padding string, k kernel_size, c ceil_mode,
cip count_include_pad, div divisor_override, o output_size, pad the pad
list, m mode (pad: 0 constant 1 reflect 2 replicate 3 circular;
interpolate: 0 nearest 1 bilinear), v pad value, sz size, sf scale
factors, ac align_corners, r the pixel shuffle factor.
"""
import torch
import torch.nn.functional as F

from ctg import Writer

torch.set_num_threads(1)
torch.manual_seed(0)
W = Writer('conv.ctg')
lines = []
F32, F64 = torch.float32, torch.float64
PAD_MODES = ['constant', 'reflect', 'replicate', 'circular']
INTERP_MODES = ['nearest', 'bilinear']


def argstr(args):
    out = []
    for k, v in args.items():
        if isinstance(v, (tuple, list)):
            out.append('%s=%s' % (k, ','.join(str(x) for x in v)))
        else:
            out.append('%s=%s' % (k, int(v) if isinstance(v, bool) else v))
    return ';'.join(out)


def case(op, args, fn, shapes, dt=F32, kind='r'):
    ins = []
    for s in shapes:
        t = torch.randint(-2, 3, s).to(dt) if kind == 't' else torch.randn(s, dtype=F64).to(dt)
        ins.append(t.requires_grad_())
    out = fn(*ins)
    idx = None
    if isinstance(out, tuple):
        out, idx = out
    gy = torch.randn(out.shape, dtype=F64).to(dt)
    grads = torch.autograd.grad([out], ins, [gy], allow_unused=True)
    cid = 'c%d' % len(lines)
    for k, t in enumerate(ins):
        W.add('%s_i%d' % (cid, k), t)
        W.add('%s_g%d' % (cid, k), grads[k] if grads[k] is not None else torch.zeros_like(t))
    W.add(cid + '_y', out)
    W.add(cid + '_gy', gy)
    if idx is not None:
        W.add(cid + '_idx', idx)
    lines.append('|'.join([cid, op, argstr(args), out.grad_fn.name(), str(len(ins))]))


def conv_case(op, fn, x, w, b=True, dt=F32, **kw):
    args = {}
    names = {'stride': 's', 'padding': 'p', 'dilation': 'd', 'groups': 'g', 'output_padding': 'op'}
    for k, v in kw.items():
        if k == 'padding' and isinstance(v, str):
            args['ps'] = v
        else:
            args[names[k]] = v if isinstance(v, (tuple, list)) else (v,)
    shapes = [x, w] + ([(w[1] * kw.get('groups', 1) if 'transpose' in op else w[0],)] if b else [])
    case(op, args, lambda *t: fn(*t, **kw), shapes, dt)


# convolutions
conv_case('conv1d', F.conv1d, (2, 3, 9), (4, 3, 3))
conv_case('conv1d', F.conv1d, (3, 9), (4, 3, 3), stride=2, padding=1, dt=F64)
conv_case('conv1d', F.conv1d, (2, 4, 10), (6, 2, 3), b=False, groups=2, dilation=2, padding='same')
conv_case('conv2d', F.conv2d, (2, 3, 7, 6), (4, 3, 3, 2))
conv_case('conv2d', F.conv2d, (2, 4, 7, 8), (6, 2, 3, 3), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)
conv_case('conv2d', F.conv2d, (3, 6, 6), (2, 3, 2, 2), padding='same', dt=F64)
conv_case('conv2d', F.conv2d, (2, 3, 5, 5), (4, 3, 3, 3), b=False, padding='valid')
conv_case('conv2d', F.conv2d, (2, 3, 5, 5), (5, 3, 1, 1))
conv_case('conv2d', F.conv2d, (1, 4, 6, 6), (4, 1, 3, 3), groups=4, padding=1, dt=F64)
conv_case('conv3d', F.conv3d, (2, 2, 4, 5, 4), (3, 2, 2, 3, 2), stride=(1, 2, 1), padding=1)
conv_case('conv3d', F.conv3d, (2, 4, 4, 4), (2, 2, 3, 3, 3), b=False, padding=1, dt=F64)
conv_case('conv_transpose1d', F.conv_transpose1d, (2, 3, 5), (3, 2, 3), stride=2, output_padding=1)
conv_case('conv_transpose1d', F.conv_transpose1d, (4, 5), (4, 3, 2), b=False, groups=2, dilation=2, padding=1, dt=F64)
conv_case('conv_transpose2d', F.conv_transpose2d, (2, 4, 4, 3), (4, 3, 3, 3))
conv_case('conv_transpose2d', F.conv_transpose2d, (2, 4, 3, 4), (4, 2, 3, 2), stride=(2, 3), padding=(1, 0),
          output_padding=(1, 2), groups=2, dilation=(1, 2))
conv_case('conv_transpose2d', F.conv_transpose2d, (3, 4, 4), (3, 2, 2, 2), stride=2, dt=F64)

# pooling
def pool_args(k, **kw):
    a = {'k': k if isinstance(k, tuple) else (k,)}
    keys = {'stride': 's', 'padding': 'p', 'dilation': 'd', 'ceil_mode': 'c', 'count_include_pad': 'cip',
            'divisor_override': 'div'}
    for n, v in kw.items():
        a[keys[n]] = v if isinstance(v, (tuple, bool)) else (v,) if n in ('stride', 'padding', 'dilation') else v
    return a


for dt, shape, k, kw in [(F32, (2, 3, 7, 6), 2, {}),
                         (F64, (2, 3, 7, 6), (3, 2), dict(stride=(2, 1), padding=1, dilation=(1, 2), ceil_mode=True)),
                         (F32, (3, 8, 8), 3, dict(stride=2, ceil_mode=True)),
                         (F32, (2, 2, 5, 5), 2, dict(stride=1))]:
    case('max_pool2d', pool_args(k, **kw), lambda x: F.max_pool2d(x, k, return_indices=True, **kw), [shape], dt,
         kind='t' if shape == (2, 2, 5, 5) else 'r')
for dt, shape, k, kw in [(F32, (2, 3, 9), 2, {}), (F64, (3, 10), 3, dict(stride=2, padding=1, dilation=2, ceil_mode=True))]:
    case('max_pool1d', pool_args(k, **kw), lambda x: F.max_pool1d(x, k, return_indices=True, **kw), [shape], dt)
for dt, shape, k, kw in [(F32, (2, 3, 7, 6), 2, {}),
                         (F64, (2, 3, 7, 6), (3, 2), dict(stride=(2, 1), padding=1, ceil_mode=True)),
                         (F32, (2, 3, 7, 6), 3, dict(stride=2, padding=1, count_include_pad=False, ceil_mode=True)),
                         (F64, (3, 5, 5), 2, dict(divisor_override=3, padding=1))]:
    case('avg_pool2d', pool_args(k, **kw), lambda x: F.avg_pool2d(x, k, **kw), [shape], dt)
for dt, shape, k, kw in [(F32, (2, 3, 9), 2, {}), (F64, (3, 10), 3, dict(stride=2, padding=1, count_include_pad=False, ceil_mode=True))]:
    case('avg_pool1d', pool_args(k, **kw), lambda x: F.avg_pool1d(x, k, **kw), [shape], dt)
for dt, shape, o in [(F32, (2, 3, 7, 6), (3, 4)), (F64, (3, 5, 7), (5, 3)), (F32, (2, 3, 4, 4), (1, 1)), (F32, (2, 2, 3, 5), (6, 7))]:
    case('adaptive_avg_pool2d', {'o': o}, lambda x: F.adaptive_avg_pool2d(x, o), [shape], dt)
    case('adaptive_max_pool2d', {'o': o}, lambda x: F.adaptive_max_pool2d(x, o, return_indices=True), [shape], dt)

# im2col / col2im
for dt, shape, k, kw in [(F32, (2, 3, 5, 6), (2, 3), {}), (F64, (3, 6, 5), 2, dict(dilation=(2, 1), padding=1, stride=(1, 2)))]:
    a = pool_args(k, **{n: v for n, v in kw.items()})
    case('unfold', a, lambda x: F.unfold(x, k, **kw), [shape], dt)
for dt, shape, o, k, kw in [(F32, (2, 12, 12), (4, 5), 2, {}), (F64, (8, 9), (4, 4), 2, dict(stride=2, padding=1))]:
    a = pool_args(k, **kw)
    a['o'] = o
    case('fold', a, lambda x: F.fold(x, o, k, **kw), [shape], dt)

# padding
for dt, shape, pad, mode, v in [(F32, (2, 3, 4, 5), (1, 2, 0, 1), 0, 0.0), (F32, (2, 3, 4), (2, -1), 0, 1.5),
                                (F64, (2, 4, 5), (-1, -1, 1, 0, 0, 1), 0, -2.0),
                                (F32, (2, 3, 4, 5), (1, 2, 3, 1), 1, 0.0), (F64, (3, 5), (4, 2), 1, 0.0),
                                (F32, (2, 3, 4, 5), (1, 2, 3, 1), 2, 0.0), (F64, (2, 3, 5), (3, 0), 2, 0.0),
                                (F32, (2, 3, 4, 5), (1, 2, 3, 1), 3, 0.0), (F64, (2, 3, 5), (2, 5), 3, 0.0),
                                (F32, (1, 2, 3, 4, 3), (1, 1, 2, 0, 1, 1), 1, 0.0)]:
    case('pad', {'pad': pad, 'm': mode, 'v': v}, lambda x: F.pad(x, pad, mode=PAD_MODES[mode], value=v) if mode == 0 else
         F.pad(x, pad, mode=PAD_MODES[mode]), [shape], dt)

# interpolation
for dt, shape, kw in [(F32, (2, 3, 4, 5), dict(scale_factor=2)), (F32, (2, 3, 4, 5), dict(size=(7, 3))),
                      (F64, (2, 3, 5), dict(scale_factor=1.7)), (F32, (2, 2, 3, 6), dict(size=(5, 4))),
                      (F32, (2, 3, 4, 5), dict(scale_factor=2, mode='bilinear')),
                      (F64, (2, 3, 4, 5), dict(size=(7, 3), mode='bilinear', align_corners=True)),
                      (F32, (1, 2, 5, 4), dict(scale_factor=(0.6, 2.5), mode='bilinear')),
                      (F32, (1, 2, 5, 4), dict(size=(3, 9), mode='bilinear', align_corners=False)),
                      (F64, (1, 2, 1, 4), dict(size=(3, 1), mode='bilinear', align_corners=True))]:
    a = {'m': INTERP_MODES.index(kw.get('mode', 'nearest'))}
    if 'size' in kw:
        a['sz'] = kw['size']
    if 'scale_factor' in kw:
        sf = kw['scale_factor']
        a['sf'] = sf if isinstance(sf, tuple) else (sf,)
    if 'align_corners' in kw:
        a['ac'] = kw['align_corners']
    case('interpolate', a, lambda x: F.interpolate(x, **kw), [shape], dt)

# pixel shuffle
case('pixel_shuffle', {'r': 2}, lambda x: F.pixel_shuffle(x, 2), [(2, 8, 3, 2)])
case('pixel_shuffle', {'r': 3}, lambda x: F.pixel_shuffle(x, 3), [(9, 2, 2)], F64)
case('pixel_unshuffle', {'r': 2}, lambda x: F.pixel_unshuffle(x, 2), [(2, 3, 4, 6)])
case('pixel_unshuffle', {'r': 3}, lambda x: F.pixel_unshuffle(x, 3), [(2, 1, 2, 3, 6)], F64)

# 3-D transposed convolutions
conv_case('conv_transpose3d', F.conv_transpose3d, (2, 2, 3, 2, 3), (2, 3, 2, 3, 2), stride=(2, 1, 2), padding=(0, 1, 1),
          output_padding=(1, 0, 1))
conv_case('conv_transpose3d', F.conv_transpose3d, (4, 2, 3, 2), (4, 1, 2, 2, 2), b=False, groups=2, dilation=(2, 1, 1),
          dt=F64)

W.save()
with open('conv.txt', 'w') as f:
    f.write('\n'.join(lines) + '\n')
