"""Golden gradients of the reductions, scans, softmax and sorting/selection
ops: for each op and form, an input (float32 or float64; contiguous, a
transposed or a strided view made a leaf; 0-d and empty ones), random
gradients of the outputs, PyTorch's gradient of the input and the name of
the output's grad_fn.

Writes grad_reduce.ctg (tensors c<case>_x, c<case>_g0 [, c<case>_g1],
c<case>_gx) and grad_reduce.txt, one case a line:
    <op>|<form>|<case>|<view>|<args>|<node name>
view: '' (the stored tensor), T (its transpose) or I<python index> (basic
indexing), made a leaf that requires grad. form: which C function (all,
dim, ip: the in-place scan of x * 1). args: d=<dims> k=<keepdim 0/1>
c=<correction> p=<norm p> t=<dtype> K=<k of topk, kthvalue> desc=0/1
stable=0/1 sorted=0/1, separated by ';'. The gradient of norm with p = 0 is
None in PyTorch: stored as zeros.
"""
import torch

from ctg import Writer

torch.set_num_threads(1)
torch.manual_seed(0)
SHORT = {torch.float16: 'f16', torch.bfloat16: 'bf16', torch.float32: 'f32', torch.float64: 'f64'}
W = Writer('grad_reduce.ctg')
lines = []


def values(shape, dt, kind):
    """r: random; t: small integers (ties); z: random with zeros; n: random with a NaN."""
    if kind == 't':
        x = torch.randint(-2, 3, shape).double()
    else:
        x = torch.randn(shape, dtype=torch.float64)
    if kind == 'z' and x.numel():
        flat = x.view(-1)
        flat[torch.randperm(flat.numel())[:max(1, flat.numel() // 4)]] = 0
    if kind == 'n' and x.numel():
        x.view(-1)[x.numel() // 2] = float('nan')
    return x.to(dt)


def view_of(base, view):
    if view == 'T':
        return base.t()
    if view.startswith('I'):
        return eval('base[' + view[1:] + ']')
    return base


def case(op, form, args, fn, shape, dt=torch.float32, kind='r', view=''):
    base = values(shape, dt, kind)
    x = view_of(base, view).detach().requires_grad_()
    out = fn(x)
    outs = list(out) if isinstance(out, tuple) else [out]
    outs = [o for o in outs if o.requires_grad]
    gs = [torch.randn(o.shape, dtype=torch.float64).to(o.dtype) for o in outs]
    name = outs[0].grad_fn.name()
    gx, = torch.autograd.grad(outs, [x], gs, allow_unused=True)
    if gx is None:
        gx = torch.zeros_like(x)
    cid = 'c%d' % len(lines)
    W.add(cid + '_x', base)
    for i, g in enumerate(gs):
        W.add('%s_g%d' % (cid, i), g)
    W.add(cid + '_gx', gx)
    argstr = ';'.join('%s=%s' % (k, ','.join(map(str, v)) if isinstance(v, (tuple, list)) else
                                 (SHORT[v] if isinstance(v, torch.dtype) else int(v) if isinstance(v, bool) else v))
                      for k, v in args.items())
    lines.append('|'.join([op, form, cid, view, argstr, name]))


F32, F64 = torch.float32, torch.float64
SHAPES = [((3, 5), ''), ((5, 4), 'T'), ((4, 6), 'I:, ::2'), ((2, 3, 4), '')]


def dims_cases(op, fn_all, fn_dims, kinds=('r',), dims=((1,), (0, -1)), extra=None):
    """The all form and dims forms over several shapes, views and dtypes."""
    for kind in kinds:
        for shape, view in SHAPES:
            dt = F64 if shape == (5, 4) else F32
            if fn_all:
                case(op, 'all', {}, fn_all, shape, dt, kind, view)
            for d in dims:
                for k in (False, True):
                    a = {'d': d, 'k': k}
                    a.update(extra or {})
                    case(op, 'dim', a, lambda x, d=d, k=k: fn_dims(x, d, k), shape, dt, kind, view)
    if fn_all:
        case(op, 'all', {}, fn_all, (), F64, kinds[0])


# sums (recorded before; kept here so that every form sits in one table)
dims_cases('sum', lambda x: x.sum(), lambda x, d, k: x.sum(d, k))
dims_cases('mean', lambda x: x.mean(), lambda x, d, k: x.mean(d, k))
dims_cases('nansum', lambda x: x.nansum(), lambda x, d, k: x.nansum(d, k))
case('sum', 'dim', {'d': (0,), 'k': False}, lambda x: x.sum(0), (0, 3))
case('sum', 'dim', {'d': (1,), 'k': True, 't': F64}, lambda x: x.sum(1, True, dtype=F64), (3, 4))

# prod: without zeros, with one zero per slice, several zeros
for kind in ('r', 'z'):
    for shape, view in SHAPES:
        case('prod', 'all', {}, lambda x: x.prod(), shape, F64, kind, view)
        for d in (0, -1):
            for k in (False, True):
                case('prod', 'dim', {'d': d, 'k': k}, lambda x, d=d, k=k: x.prod(d, k), shape, F32, kind, view)
case('prod', 'all', {}, lambda x: x.prod(), (), F64)
case('prod', 'dim', {'d': 0, 'k': False}, lambda x: x.prod(0), (), F64)
case('prod', 'dim', {'d': 1, 'k': False}, lambda x: x.prod(1), (0, 3))
case('prod', 'all', {}, lambda x: x.prod(), (1, 4), F64, 'r')
case('prod', 'dim', {'d': 1, 'k': False, 't': F64}, lambda x: x.prod(1, dtype=F64), (3, 4))
case('prod', 'all', {}, lambda x: x.prod(), (6,), F64, 't')  # ties of -2..2: several zeros

# extremes: ties share the gradient
for kind in ('r', 't'):
    dims_cases('amax', None, lambda x, d, k: x.amax(d, k), kinds=(kind,))
    dims_cases('amin', None, lambda x, d, k: x.amin(d, k), kinds=(kind,))
    for shape, view in SHAPES:
        case('max', 'all', {}, lambda x: x.max(), shape, F32, kind, view)
        case('min', 'all', {}, lambda x: x.min(), shape, F64, kind, view)
        case('median', 'all', {}, lambda x: x.median(), shape, F32, kind, view)
        for d in (0, -1):
            for k in (False, True):
                a = {'d': d, 'k': k}
                case('max', 'dim', a, lambda x, d=d, k=k: x.max(d, k), shape, F32, kind, view)
                case('min', 'dim', a, lambda x, d=d, k=k: x.min(d, k), shape, F64, kind, view)
                case('median', 'dim', a, lambda x, d=d, k=k: x.median(d, k), shape, F32, kind, view)
                case('mode', 'dim', a, lambda x, d=d, k=k: x.mode(d, k), shape, F32, kind, view)
                case('kthvalue', 'dim', {'K': 2, 'd': d, 'k': k}, lambda x, d=d, k=k: x.kthvalue(2, d, k), shape, F64,
                     kind, view)
nan = float('nan')
case('max', 'all', {}, lambda x: x.max(), (), F32)
case('amax', 'dim', {'d': (0,), 'k': False}, lambda x: x.amax(0), (), F32)
case('max', 'dim', {'d': 0, 'k': False}, lambda x: x.max(0), (), F32)
case('median', 'all', {}, lambda x: x.median(), (), F64)
case('mode', 'dim', {'d': 0, 'k': True}, lambda x: x.mode(0, True), (), F64)
case('kthvalue', 'dim', {'K': 1, 'd': 0, 'k': False}, lambda x: x.kthvalue(1, 0), (), F64)
case('amax', 'dim', {'d': (1,), 'k': False}, lambda x: x.amax(1), (0, 3))
for shape, view in SHAPES[:2]:  # NaN wins: the NaNs share the gradient
    case('max', 'all', {}, lambda x: x.max(), shape, F32, 'n', view)
    case('median', 'all', {}, lambda x: x.median(), shape, F64, 'n', view)
    case('max', 'dim', {'d': 1, 'k': False}, lambda x: x.max(1), shape, F32, 'n', view)
    case('amax', 'dim', {'d': (1,), 'k': True}, lambda x: x.amax(1, True), shape, F32, 'n', view)
    case('sort', 'dim', {'d': 1, 'desc': False, 'stable': False}, lambda x: torch.sort(x, 1), shape, F64, 'n', view)
case('max', 'dim', {'d': 1, 'k': False}, lambda x: x.max(1), (0, 3))

# sort and topk
for kind in ('r', 't'):
    for shape, view in SHAPES:
        for d in (0, -1):
            for desc in (False, True):
                case('sort', 'dim', {'d': d, 'desc': desc, 'stable': False},
                     lambda x, d=d, desc=desc: torch.sort(x, d, desc), shape, F32, kind, view)
                case('sort', 'dim', {'d': d, 'desc': desc, 'stable': True},
                     lambda x, d=d, desc=desc: torch.sort(x, dim=d, descending=desc, stable=True), shape, F64, kind,
                     view)
                case('topk', 'dim', {'K': 2, 'd': d, 'desc': desc, 'sorted': True},
                     lambda x, d=d, desc=desc: x.topk(2, d, desc, True), shape, F32, kind, view)
case('sort', 'dim', {'d': 0, 'desc': False, 'stable': False}, lambda x: torch.sort(x, 0), (), F64)
case('sort', 'dim', {'d': 1, 'desc': False, 'stable': False}, lambda x: torch.sort(x, 1), (0, 3))
case('topk', 'dim', {'K': 0, 'd': 1, 'desc': True, 'sorted': True}, lambda x: x.topk(0, 1), (3, 4))
case('topk', 'dim', {'K': 3, 'd': 0, 'desc': False, 'sorted': False}, lambda x: x.topk(3, 0, False, False), (6, 2))

# statistics
for c in (0, 1, 2):
    dims_cases('std', (lambda x: x.std()) if c == 1 else None,
               lambda x, d, k, c=c: torch.std(x, d, correction=c, keepdim=k), extra={'c': c})
    dims_cases('var', (lambda x: x.var()) if c == 1 else None,
               lambda x, d, k, c=c: torch.var(x, d, correction=c, keepdim=k), extra={'c': c})
for c in (0, 1):
    for shape, view in SHAPES:
        for d in ((), (1,), (0, -1)):
            a = {'d': d, 'c': c, 'k': True}
            dd = d if d else None
            case('std_mean', 'dim', a, lambda x, dd=dd, c=c: torch.std_mean(x, dd, correction=c, keepdim=True),
                 shape, F64, 'r', view)
            case('var_mean', 'dim', a, lambda x, dd=dd, c=c: torch.var_mean(x, dd, correction=c, keepdim=True),
                 shape, F32, 'r', view)
case('std_mean', 'dim', {'d': (1,), 'c': 1, 'k': False}, lambda x: torch.std_mean(x, 1), (3, 4))
case('var_mean', 'dim', {'d': (0,), 'c': 1, 'k': False}, lambda x: torch.var_mean(x, 0), (3, 4), F64)
case('std', 'all', {}, lambda x: x.std(), (), F64)
case('var', 'dim', {'d': (0,), 'c': 1, 'k': False}, lambda x: x.var(0), (1, 3), F64)  # N == correction: nan
case('std', 'dim', {'d': (1,), 'c': 1, 'k': True}, lambda x: torch.std(x, 1, keepdim=True), (3, 4), F32, 't')

# norms: p = 0, 1, 2, inf, -inf, between 0 and 1, between 1 and 2, above 2
for p in (0, 1, 2, float('inf'), float('-inf'), 0.5, 1.5, 3):
    for kind in ('r', 'z'):
        for shape, view in SHAPES[:3]:
            case('norm', 'all', {'p': p}, lambda x, p=p: x.norm(p), shape, F64, kind, view)
            for d in ((1,), (0, 1)):
                case('norm', 'dim', {'p': p, 'd': d, 'k': False},
                     lambda x, p=p, d=d: torch.norm(x, p, d), shape, F32, kind, view)
case('norm', 'dim', {'p': 2, 'd': (1,), 'k': True, 't': F64}, lambda x: torch.norm(x, 2, 1, True, dtype=F64), (3, 4))
case('norm', 'all', {'p': 2}, lambda x: x.norm(), (), F64)
for d in ((1,), (0, 1), (1, 0)):  # over two dims: sqrt(sum(x * x)), recorded op by op
    for k in (False, True):
        case('norm', 'fro', {'d': d, 'k': k}, lambda x, d=d, k=k: torch.norm(x, 'fro', d, k), (3, 4), F64, 'r', '')
case('norm', 'all', {'p': 2}, lambda x: x.norm(), (3, 4), F32, 't')
case('norm', 'dim', {'p': float('inf'), 'd': (1,), 'k': True}, lambda x: torch.norm(x, float('inf'), 1, True),
     (3, 4), F32, 't')

dims_cases('logsumexp', None, lambda x, d, k: x.logsumexp(d, k))
case('logsumexp', 'dim', {'d': (0,), 'k': False}, lambda x: x.logsumexp(0), (), F64)

# scans
for shape, view in SHAPES:
    for d in (0, -1):
        for kind in ('r', 'z'):
            case('cumsum', 'dim', {'d': d}, lambda x, d=d: x.cumsum(d), shape, F32, kind, view)
            case('cumprod', 'dim', {'d': d}, lambda x, d=d: x.cumprod(d), shape, F64, kind, view)
            case('cumsum', 'ip', {'d': d}, lambda x, d=d: (x * 1).cumsum_(d), shape, F32, kind, view)
            case('cumprod', 'ip', {'d': d}, lambda x, d=d: (x * 1).cumprod_(d), shape, F32, kind, view)
        for kind in ('r', 't'):
            case('cummax', 'dim', {'d': d}, lambda x, d=d: x.cummax(d), shape, F32, kind, view)
            case('cummin', 'dim', {'d': d}, lambda x, d=d: x.cummin(d), shape, F64, kind, view)
        case('logcumsumexp', 'dim', {'d': d}, lambda x, d=d: x.logcumsumexp(d), shape, F64, 'r', view)
        case('logcumsumexp', 'dim', {'d': d}, lambda x, d=d: x.logcumsumexp(d), shape, F32, 'r', view)
case('cumprod', 'dim', {'d': 0}, lambda x: x.cumprod(0), (7,), F64, 't')  # several zeros in a slice
case('cumprod', 'dim', {'d': 1, 't': F64}, lambda x: x.cumprod(1, dtype=F64), (3, 4))
case('cumsum', 'dim', {'d': 1, 't': F64}, lambda x: x.cumsum(1, dtype=F64), (3, 4))
case('cumsum', 'dim', {'d': 0}, lambda x: x.cumsum(0), ())
case('cumprod', 'dim', {'d': 0}, lambda x: x.cumprod(0), (), F64)
case('cumprod', 'dim', {'d': 1}, lambda x: x.cumprod(1), (0, 3))
case('cummax', 'dim', {'d': 0}, lambda x: x.cummax(0), ())
case('cummax', 'dim', {'d': 1}, lambda x: x.cummax(1), (0, 3))
case('logcumsumexp', 'dim', {'d': 0}, lambda x: x.logcumsumexp(0), (), F64)

# softmax
for shape, view in SHAPES:
    for d in (0, -1):
        for dt in (F32, F64):
            case('softmax', 'dim', {'d': d}, lambda x, d=d: x.softmax(d), shape, dt, 'r', view)
            case('log_softmax', 'dim', {'d': d}, lambda x, d=d: x.log_softmax(d), shape, dt, 'r', view)
case('softmax', 'dim', {'d': 1, 't': F64}, lambda x: x.softmax(1, dtype=F64), (3, 4))
case('log_softmax', 'dim', {'d': 0, 't': F64}, lambda x: x.log_softmax(0, dtype=F64), (3, 4))
case('softmax', 'dim', {'d': 0}, lambda x: x.softmax(0), (), F64)
case('log_softmax', 'dim', {'d': 1}, lambda x: x.log_softmax(1), (0, 3))

W.save()
with open('grad_reduce.txt', 'w') as f:
    f.write('\n'.join(lines) + '\n')
