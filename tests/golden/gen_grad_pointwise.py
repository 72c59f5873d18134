"""Golden gradients for the pointwise ops: for every differentiable op and
form (out of place, in place, Python-number operands), PyTorch's gradients of
each input for a random grad_output, and the name of the node it records;
float32 and float64, broadcasting, transposed inputs, 0-d and empty tensors;
the backward errors PyTorch raises; and forward values of torch.polygamma.

Writes grad_pointwise.ctg and grad_pointwise.txt, one case a line:
    <op>|<form>|<id>|<node name>|<inputs>|<params>|<expect>
form: u (out of place), i (in place, on x * 1 so that a leaf is not
    written), s and si (the last operand a Python number), r (Python's
    number ** tensor), fwd (forward values only: polygamma).
inputs: one spec per tensor operand, comma separated: g (requires grad) or n,
    then T when the stored tensor is transposed (2-d) to make the operand.
    Tensors c<id>_x<i>, grad_output c<id>_go, gradients c<id>_g<i> (of
    each input that requires grad), forward result c<id>_out.
params: key=value;... numbers are i:<int> or f:<float> (Python int or float).
expect: ok, gc (also run gradcheck and gradgradcheck: float64 inputs away
    from the points where the op is not differentiable), or
    ERR <exception type> <message> when backward fails.

PyTorch runs single-threaded here. PyTorch 1.13 has no float16 CPU kernel
for polygamma (nor digamma, trigamma): ctorch computes float16 in float32
and rounds once, so float16 forward cases record the float32 result rounded.
"""
import math

import torch
import torch.nn.functional as F

from ctg import Writer

torch.set_num_threads(1)
g = torch.Generator().manual_seed(0)
w = Writer('grad_pointwise.ctg')
lines = []
next_id = [0]

# input domains: (low, high) of a uniform draw
DOM = {'r': (-2.5, 2.5), 'pos': (0.2, 3.0), 'unit': (-0.9, 0.9), 'prob': (0.05, 0.95), 'big': (1.1, 4.0),
       'log1p': (-0.8, 3.0), 'nz': (0.5, 2.5), 'act': (-4.5, 4.5), 'wideprob': (-0.2, 1.2),
       'special': (-2.5, 2.5), 'tied': (-2.5, 2.5), 'zpos': (0.2, 3.0)}
SPECIAL = torch.tensor([math.nan, math.inf, -math.inf], dtype=torch.float64)


def num(v):
    return ('i:%d' % v) if isinstance(v, int) else ('f:%r' % float(v))


def draw(shape, dt, dom):
    lo, hi = DOM[dom]
    x = torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo
    if dom == 'nz':  # magnitudes away from 0, either sign
        x = x * (torch.randint(0, 2, shape, generator=g) * 2 - 1)
    if dom == 'tied':  # halves, so that two draws tie, and some NaNs
        x = torch.round(x * 2) / 2
        x[x.abs() > 2.1] = math.nan
    if x.numel() and dom in ('special', 'zpos'):  # every third element NaN or infinite, or zero
        flat = x.view(-1)
        pick = torch.arange(0, flat.numel(), 3)
        flat[pick] = 0.0 if dom == 'zpos' else SPECIAL[torch.arange(len(pick)) % 3]
    return x.to(dt)


def case(op, form, fn, shapes, doms, dt=torch.float64, grads=None, trans=(), params=None, expect='ok'):
    """fn(list of operands) -> result; the operands are built here."""
    cid = next_id[0]
    next_id[0] += 1
    grads = grads if grads is not None else [True] * len(shapes)
    leaves, ops, specs = [], [], []
    for i, (shape, dom) in enumerate(zip(shapes, doms)):
        t = i in trans
        base = draw(tuple(reversed(shape)) if t else shape, dt, dom)
        w.add('c%d_x%d' % (cid, i), base)
        leaf = base.clone().requires_grad_(grads[i])
        leaves.append(leaf)
        ops.append(leaf.t() if t else leaf)
        specs.append(('g' if grads[i] else 'n') + ('T' if t else ''))
    out = fn(ops)
    go = torch.randn(out.shape, generator=g, dtype=torch.float64).to(out.dtype)
    w.add('c%d_out' % cid, out)
    w.add('c%d_go' % cid, go)
    name = out.grad_fn.name() if out.grad_fn is not None else ''
    if not any(grads):
        pass
    elif expect.startswith('ERR'):
        try:
            torch.autograd.grad(out, [l for l in leaves if l.requires_grad], go)
            raise AssertionError('no error for ' + op)
        except (RuntimeError, NotImplementedError) as e:
            expect = 'ERR %s %s' % (type(e).__name__, e)
    else:
        need = [l for l in leaves if l.requires_grad]
        gs = torch.autograd.grad(out, need, go, allow_unused=True)
        k = 0
        for i, l in enumerate(leaves):
            if l.requires_grad:
                gi = gs[k] if gs[k] is not None else torch.zeros_like(l)
                w.add('c%d_g%d' % (cid, i), gi)
                k += 1
    ptxt = ';'.join('%s=%s' % kv for kv in (params or {}).items())
    lines.append('|'.join([op, form, str(cid), name, ','.join(specs), ptxt, expect]))


def inplace(method):
    def fn(ops):
        t = ops[0] * 1
        method(t, *ops[1:])
        return t
    return fn


def variants(op, form, fn, arity, doms, params=None, gc=True, shapes=None):
    """The standard set of cases of one form."""
    doms = doms if isinstance(doms, list) else [doms] * arity
    base = shapes or [(3, 4)] * arity
    case(op, form, fn, base, doms, params=params, expect='gc' if gc else 'ok')
    case(op, form, fn, base, doms, dt=torch.float32, params=params)
    if arity > 1:  # broadcasting: (3, 4) with (4,) and (3, 1)
        bshapes = [(3, 4)] + [(4,), (3, 1)][:arity - 1]
        case(op, form, fn, bshapes, doms, params=params, expect='gc' if gc else 'ok')
        case(op, form, fn, bshapes, doms, dt=torch.float32, params=params)
        if form == 'u':  # only the second operand requiring grad
            case(op, form, fn, base, doms, grads=[False] + [True] * (arity - 1), params=params)
    case(op, form, fn, [(4, 3)] * arity, doms, dt=torch.float32, trans=(0,), params=params)
    case(op, form, fn, [()] * arity, doms, params=params)
    case(op, form, fn, [(0, 3)] * arity, doms, dt=torch.float32, params=params)


UNARY = {  # op: (torch function, in-place method or None, domain)
    'reciprocal': (torch.reciprocal, torch.Tensor.reciprocal_, 'nz'),
    'exp2': (torch.exp2, torch.Tensor.exp2_, 'r'),
    'expm1': (torch.expm1, torch.Tensor.expm1_, 'r'),
    'log2': (torch.log2, torch.Tensor.log2_, 'pos'),
    'log10': (torch.log10, torch.Tensor.log10_, 'pos'),
    'log1p': (torch.log1p, torch.Tensor.log1p_, 'log1p'),
    'rsqrt': (torch.rsqrt, torch.Tensor.rsqrt_, 'pos'),
    'sin': (torch.sin, torch.Tensor.sin_, 'r'),
    'cos': (torch.cos, torch.Tensor.cos_, 'r'),
    'tan': (torch.tan, torch.Tensor.tan_, 'unit'),
    'asin': (torch.asin, torch.Tensor.asin_, 'unit'),
    'acos': (torch.acos, torch.Tensor.acos_, 'unit'),
    'atan': (torch.atan, torch.Tensor.atan_, 'r'),
    'sinh': (torch.sinh, torch.Tensor.sinh_, 'r'),
    'cosh': (torch.cosh, torch.Tensor.cosh_, 'r'),
    'asinh': (torch.asinh, torch.Tensor.asinh_, 'r'),
    'acosh': (torch.acosh, torch.Tensor.acosh_, 'big'),
    'atanh': (torch.atanh, torch.Tensor.atanh_, 'unit'),
    'erf': (torch.erf, torch.Tensor.erf_, 'r'),
    'erfc': (torch.erfc, torch.Tensor.erfc_, 'r'),
    'erfinv': (torch.erfinv, torch.Tensor.erfinv_, 'unit'),
    'lgamma': (torch.lgamma, torch.Tensor.lgamma_, 'pos'),
    'digamma': (torch.digamma, torch.Tensor.digamma_, 'pos'),
    'silu': (F.silu, lambda t: F.silu(t, inplace=True), 'r'),
    'mish': (F.mish, lambda t: F.mish(t, inplace=True), 'r'),
    'hardsigmoid': (F.hardsigmoid, lambda t: F.hardsigmoid(t, inplace=True), 'act'),
    'hardswish': (F.hardswish, lambda t: F.hardswish(t, inplace=True), 'act'),
    'relu6': (F.relu6, lambda t: F.relu6(t, inplace=True), 'act'),
    'selu': (torch.selu, torch.selu_, 'act'),
    # the ones done before, for their node names and values
    'neg': (torch.neg, torch.Tensor.neg_, 'r'),
    'abs': (torch.abs, torch.Tensor.abs_, 'nz'),
    'exp': (torch.exp, torch.Tensor.exp_, 'r'),
    'log': (torch.log, torch.Tensor.log_, 'pos'),
    'sqrt': (torch.sqrt, torch.Tensor.sqrt_, 'pos'),
    'tanh': (torch.tanh, torch.Tensor.tanh_, 'r'),
    'sigmoid': (torch.sigmoid, torch.Tensor.sigmoid_, 'r'),
    'relu': (torch.relu, torch.Tensor.relu_, 'nz'),
    'frac': (torch.frac, torch.Tensor.frac_, 'nz'),
}
# The kinks and jumps of the ops (hardsigmoid's at +-3, remainder's...) are
# never within gradcheck's eps of a uniform draw. Not gradgradchecked: ops
# whose gradient is grad_output itself (frac, add, sub, the number forms of
# remainder and fmod), which ct_gradgradcheck cannot yet perturb (its
# flattened output aliases grad_output). Nor hardsigmoid: PyTorch 1.13 has no
# derivative for hardsigmoid_backward (gradgradcheck raises).
IDENTITY = {'frac'}
NO_DOUBLE = {'hardsigmoid'}
for op, (fn, ip, dom) in UNARY.items():
    variants(op, 'u', lambda o, fn=fn: fn(o[0]), 1, dom, gc=op not in IDENTITY | NO_DOUBLE)
    # PyTorch 1.13 records nodes for asinh_, acosh_ and atanh_ that fail in backward
    bad = 'ERR' if op in ('asinh', 'acosh', 'atanh') else 'ok'
    case(op, 'i', inplace(ip), [(3, 4)], [dom], dt=torch.float32, expect=bad)
    case(op, 'i', inplace(ip), [(3, 4)], [dom], expect=bad)
for op, fn in [('sign', torch.sign), ('round', torch.round), ('floor', torch.floor), ('ceil', torch.ceil),
               ('trunc', torch.trunc)]:
    case(op, 'u', lambda o, fn=fn: fn(o[0]), [(3, 4)], ['r'])
case('round', 'u', lambda o: torch.round(o[0], decimals=2), [(3, 4)], ['r'], params={'decimals': 2})
case('round', 'i', inplace(lambda t: t.round_(decimals=-1)), [(3, 4)], ['r'], params={'decimals': -1})

# kinks away from the draws: a grid offset from the breakpoints
for n in [0, 1, 2, 3]:
    variants('polygamma', 'u', lambda o, n=n: torch.polygamma(n, o[0]), 1, 'pos', params={'n': n})
    case('polygamma', 'i', inplace(lambda t, n=n: t.polygamma_(n)), [(3, 4)], ['pos'], params={'n': n})
for eps in [None, 0.1]:
    p = {} if eps is None else {'eps': eps}
    variants('logit', 'u', lambda o, eps=eps: torch.logit(o[0], eps), 1, 'prob', params=p)
    case('logit', 'i', inplace(lambda t, eps=eps: t.logit_(eps)), [(3, 4)], ['prob'], params=p)
case('logit', 'u', lambda o: torch.logit(o[0]), [(3, 4)], ['wideprob'])  # outside [0, 1]: NaN
case('logit', 'u', lambda o: torch.logit(o[0], 0.2), [(3, 4)], ['wideprob'], params={'eps': 0.2})
for s in [0.01, 0.2, -0.5]:
    variants('leaky_relu', 'u', lambda o, s=s: F.leaky_relu(o[0], s), 1, 'nz', params={'slope': s})
case('leaky_relu', 'i', inplace(lambda t: F.leaky_relu_(t, 0.2)), [(3, 4)], ['nz'], params={'slope': 0.2})
case('leaky_relu', 'i', inplace(lambda t: F.leaky_relu_(t, -0.1)), [(3, 4)], ['nz'], params={'slope': -0.1},
     expect='ERR')
for a, sc, isc in [(1.0, 1.0, 1.0), (0.7, 1.3, 0.6)]:
    p = {'alpha': a, 'scale': sc, 'input_scale': isc}
    variants('elu', 'u', lambda o, a=a, sc=sc, isc=isc: torch.ops.aten.elu(o[0], a, sc, isc), 1, 'nz', params=p)
    case('elu', 'i', inplace(lambda t, a=a, sc=sc, isc=isc: torch.ops.aten.elu_(t, a, sc, isc)), [(3, 4)], ['nz'],
         params=p)
case('elu', 'i', inplace(lambda t: F.elu_(t, -0.5)), [(3, 4)], ['nz'],
     params={'alpha': -0.5, 'scale': 1.0, 'input_scale': 1.0}, expect='ERR')
for a in [1.0, 0.3, 2.5]:
    variants('celu', 'u', lambda o, a=a: F.celu(o[0], a), 1, 'nz', params={'alpha': a})
    case('celu', 'i', inplace(lambda t, a=a: F.celu_(t, a)), [(3, 4)], ['nz'], params={'alpha': a})
case('celu', 'i', inplace(lambda t: F.celu_(t, -0.5)), [(3, 4)], ['nz'], params={'alpha': -0.5}, expect='ERR')
for ap in ['none', 'tanh']:
    variants('gelu', 'u', lambda o, ap=ap: F.gelu(o[0], approximate=ap), 1, 'r', params={'approximate': ap})
for b, th in [(1.0, 20.0), (2.0, 3.0), (0.5, 1.0)]:
    variants('softplus', 'u', lambda o, b=b, th=th: F.softplus(o[0], b, th), 1, 'act',
             params={'beta': b, 'threshold': th})
for lo, hi in [(-1.0, 1.0), (-0.5, 2.0)]:
    p = {'min': lo, 'max': hi}
    variants('hardtanh', 'u', lambda o, lo=lo, hi=hi: F.hardtanh(o[0], lo, hi), 1, 'act', params=p)
    case('hardtanh', 'i', inplace(lambda t, lo=lo, hi=hi: F.hardtanh_(t, lo, hi)), [(3, 4)], ['act'], params=p)
for nan_v, pinf, ninf in [(0.0, None, None), (1.5, 100.0, -7.0)]:
    p = {'nan': nan_v}
    if pinf is not None:
        p.update({'posinf': pinf, 'neginf': ninf})
    for dt in [torch.float64, torch.float32]:
        case('nan_to_num', 'u', lambda o, nan_v=nan_v, pinf=pinf, ninf=ninf: torch.nan_to_num(o[0], nan_v, pinf, ninf),
             [(3, 4)], ['special'], dt=dt, params=p)
    case('nan_to_num', 'u', lambda o, nan_v=nan_v, pinf=pinf, ninf=ninf: torch.nan_to_num(o[0], nan_v, pinf, ninf),
         [(3, 4)], ['r'], params=p, expect='gc')
    case('nan_to_num', 'i', inplace(lambda t, nan_v=nan_v, pinf=pinf, ninf=ninf: t.nan_to_num_(nan_v, pinf, ninf)),
         [(3, 4)], ['r'], params=p)

BINARY = {  # op: (function, in-place method or None, domains, number operand or None, has gradcheck)
    'xlogy': (torch.xlogy, torch.Tensor.xlogy_, ['r', 'pos'], 2.5, True),
    'remainder': (torch.remainder, torch.Tensor.remainder_, ['r', 'nz'], 1.5, True),
    'fmod': (torch.fmod, torch.Tensor.fmod_, ['r', 'nz'], -1.5, True),
    'pow': (torch.pow, torch.Tensor.pow_, ['pos', 'r'], 2.5, True),
    'maximum': (torch.maximum, None, ['r', 'r'], None, True),
    'minimum': (torch.minimum, None, ['r', 'r'], None, True),
    'fmax': (torch.fmax, None, ['r', 'r'], None, True),
    'fmin': (torch.fmin, None, ['r', 'r'], None, True),
    'copysign': (torch.copysign, torch.Tensor.copysign_, ['nz', 'nz'], -1.0, True),
    'hypot': (torch.hypot, torch.Tensor.hypot_, ['nz', 'nz'], None, True),
    'atan2': (torch.atan2, torch.Tensor.atan2_, ['nz', 'nz'], None, True),
    'clamp_min': (torch.clamp_min, torch.Tensor.clamp_min_, ['r', 'r'], 0.3, True),
    'clamp_max': (torch.clamp_max, torch.Tensor.clamp_max_, ['r', 'r'], -0.2, True),
    'add': (torch.add, torch.Tensor.add_, ['r', 'r'], 2.5, True),
    'sub': (torch.sub, torch.Tensor.sub_, ['r', 'r'], 2, True),
    'rsub': (torch.rsub, None, ['r', 'r'], 2, True),
    'mul': (torch.mul, torch.Tensor.mul_, ['r', 'r'], 3, True),
    'div': (torch.div, torch.Tensor.div_, ['r', 'nz'], 2.5, True),
}
for op, (fn, ip, doms, number, gc) in BINARY.items():
    variants(op, 'u', lambda o, fn=fn: fn(o[0], o[1]), 2, doms, gc=gc)
    if ip is not None:
        case(op, 'i', inplace(ip), [(3, 4), (4,)], doms, dt=torch.float32)
        case(op, 'i', inplace(ip), [(3, 4), (3, 4)], doms)
    if number is not None:
        p = {'other': num(number)}
        variants(op, 's', lambda o, fn=fn, number=number: fn(o[0], number), 1, doms[0], params=p,
                 gc=gc and op not in ('remainder', 'fmod'))
        if ip is not None:
            case(op, 'si', inplace(lambda t, ip=ip, number=number: ip(t, number)), [(3, 4)], [doms[0]], params=p)
# ties and NaNs in the extrema: where the gradient is split or passed
for op, fn in [('maximum', torch.maximum), ('minimum', torch.minimum), ('fmax', torch.fmax), ('fmin', torch.fmin),
               ('clamp_min', torch.clamp_min), ('clamp_max', torch.clamp_max)]:
    case(op, 'u', lambda o, fn=fn: fn(o[0], o[1]), [(4, 5), (4, 5)], ['tied', 'tied'])
    case(op, 'u', lambda o, fn=fn: fn(o[0], o[1]), [(4, 5), (5,)], ['tied', 'tied'], dt=torch.float32)
case('clamp_min', 's', lambda o: torch.clamp_min(o[0], 1), [(3, 4)], ['r'], params={'other': 'i:1'})
# pow: integer-valued number exponents, zero bases, and the number ** tensor form
for e in [2, 3, 0, -1, 0.5, -0.5, 1]:
    case('pow', 's', lambda o, e=e: torch.pow(o[0], e), [(3, 4)], ['pos'], params={'other': num(e)}, expect='gc')
    case('pow', 's', lambda o, e=e: torch.pow(o[0], e), [(3, 4)], ['pos'], dt=torch.float32, params={'other': num(e)})
case('pow', 'u', lambda o: torch.pow(o[0], o[1]), [(3, 4), (3, 4)], ['zpos', 'r'])
case('pow', 'u', lambda o: torch.pow(o[0], o[1]), [(3, 4), (3, 4)], ['zpos', 'r'], dt=torch.float32)
for base in [2.5, 2, 0.0, 0]:
    p = {'other': num(base)}
    variants('pow', 'r', lambda o, base=base: torch.pow(base, o[0]), 1, 'r', params=p, gc=base != 0)
# div rounding modes: zero gradients; floor_divide: NotImplemented, failing in backward
for mode in ['trunc', 'floor']:
    p = {'mode': mode}
    variants('div', 'u', lambda o, mode=mode: torch.div(o[0], o[1], rounding_mode=mode), 2, ['r', 'nz'], params=p)
    case('div', 's', lambda o, mode=mode: torch.div(o[0], 1.5, rounding_mode=mode), [(3, 4)], ['r'],
         params=dict(p, other='f:1.5'))
    case('div', 'i', inplace(lambda t, o, mode=mode: t.div_(o, rounding_mode=mode)), [(3, 4), (4,)], ['r', 'nz'],
         params=p)
case('floor_divide', 'u', lambda o: torch.floor_divide(o[0], o[1]), [(3, 4), (3, 4)], ['r', 'nz'], expect='ERR')
case('floor_divide', 's', lambda o: torch.floor_divide(o[0], 1.5), [(3, 4)], ['r'], params={'other': 'f:1.5'},
     expect='ERR')
# the in-place comparisons record nodes with zero gradients
for op in ['eq', 'ne', 'lt', 'le', 'gt', 'ge']:
    ip = getattr(torch.Tensor, op + '_')
    case(op, 'i', inplace(ip), [(3, 4), (4,)], ['r', 'r'])
    case(op, 'si', inplace(lambda t, ip=ip: ip(t, 0.5)), [(3, 4)], ['r'], params={'other': 'f:0.5'})

# ternary ops
for v in [1, 0.5, -2]:
    p = {'value': num(v)}
    for op, fn, ip, doms in [('addcmul', torch.addcmul, torch.Tensor.addcmul_, ['r', 'r', 'r']),
                             ('addcdiv', torch.addcdiv, torch.Tensor.addcdiv_, ['r', 'r', 'nz'])]:
        variants(op, 'u', lambda o, fn=fn, v=v: fn(o[0], o[1], o[2], value=v), 3, doms, params=p)
        case(op, 'i', inplace(lambda t, a, b, ip=ip, v=v: ip(t, a, b, value=v)), [(3, 4), (4,), (3, 1)], doms,
             params=p)
variants('lerp', 'u', lambda o: torch.lerp(o[0], o[1], o[2]), 3, ['r', 'r', 'prob'])
case('lerp', 'i', inplace(torch.Tensor.lerp_), [(3, 4), (4,), (3, 1)], ['r', 'r', 'prob'])
for wt in [0.3, 2, -0.7]:
    p = {'weight': num(wt)}
    variants('lerp', 's', lambda o, wt=wt: torch.lerp(o[0], o[1], wt), 2, ['r', 'r'], params=p)
    case('lerp', 'si', inplace(lambda t, e, wt=wt: t.lerp_(e, wt)), [(3, 4), (4,)], ['r', 'r'], params=p)
# clamp with tensor bounds (min > max somewhere) and with numbers
variants('clamp', 'u', lambda o: torch.clamp(o[0], o[1], o[2]), 3, ['r', 'r', 'r'])
case('clamp', 'i', inplace(torch.Tensor.clamp_), [(3, 4), (4,), (3, 1)], ['r', 'r', 'r'])
for lo, hi in [(-0.5, 1.0), (1, 2), (0.5, -0.5)]:
    p = {'min': num(lo), 'max': num(hi)}
    variants('clamp', 's', lambda o, lo=lo, hi=hi: torch.clamp(o[0], lo, hi), 1, 'r', params=p)
    case('clamp', 'si', inplace(lambda t, lo=lo, hi=hi: t.clamp_(lo, hi)), [(3, 4)], ['r'], params=p)
# where: the condition is a bool operand
case('where', 'u', lambda o: torch.where(o[0] > 0, o[1], o[2]), [(3, 4), (3, 4), (4,)], ['r', 'r', 'r'],
     grads=[False, True, True], expect='gc')

# polygamma's forward values (its op-table entry) over every dtype it takes
for n in [0, 1, 2, 3, 5]:
    # (bfloat16 only for n 0 and 1: for larger n PyTorch's kernel rounds its
    # zeta factor to bfloat16 before the product, which ctorch does not)
    for dt in [torch.float64, torch.float32] + ([torch.bfloat16] if n < 2 else []):
        case('polygamma', 'fwd', lambda o, n=n: torch.polygamma(n, o[0]).detach(), [(40,)], ['r'], dt=dt,
             grads=[False], params={'n': n})
    x = torch.tensor([-2.0, -1.5, -0.5, 0.0, 0.5, 1.0, 1e-4, 3.0, 9.5, 10.0, 30.0, 1e10, math.inf, -math.inf,
                      math.nan], dtype=torch.float64)
    for dt in [torch.float64, torch.float32]:
        cid = next_id[0]
        next_id[0] += 1
        w.add('c%d_x0' % cid, x.to(dt))
        w.add('c%d_out' % cid, torch.polygamma(n, x.to(dt)))
        lines.append('polygamma|fwd|%d||n|n=%d|ok' % (cid, n))
    for dt in [torch.int64, torch.bool]:
        cid = next_id[0]
        next_id[0] += 1
        xi = torch.tensor([0, 1, 2, 3, 7]).to(dt)
        w.add('c%d_x0' % cid, xi)
        w.add('c%d_out' % cid, torch.polygamma(n, xi))
        lines.append('polygamma|fwd|%d||n|n=%d|ok' % (cid, n))
    cid = next_id[0]
    next_id[0] += 1
    xh = x[torch.isfinite(x) | torch.isnan(x)].to(torch.float16)
    w.add('c%d_x0' % cid, xh)
    w.add('c%d_out' % cid, torch.polygamma(n, xh.float()).half())
    lines.append('polygamma|fwd|%d||n|n=%d|ok' % (cid, n))

# relu's, tanh's and sigmoid's first derivatives, as threshold_backward,
# tanh_backward and sigmoid_backward compute them (ctorch's fused pass: their
# bits, compared exactly), on inputs with NaN, infinities, -0, 0, subnormals
# and results near 1 (where tanh_backward's FMA shows), and grad_outputs with
# the same; 104 elements, dy also stored transposed (a strided operand);
# bfloat16 too, whose kernels compute in float and round once.
# fused_<dt>_x, _dy, _dyT; fused_<dt>_<op>_out (forward) and _grad.
fx = torch.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-310, -1e-310, 1e-30, 0.5, -0.5,
                   1.0, -1.0, 3.0, -3.0, 8.0, 9.01, 20.0, -20.0, 100.0, -100.0], dtype=torch.float64)
fx = torch.cat([fx, torch.randn(104 - len(fx), generator=g, dtype=torch.float64) * 4]).view(8, 13)
fdy = torch.randn(8, 13, generator=g, dtype=torch.float64)
fdy.view(-1)[22:31] = torch.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-45, 1e-310, 1e30, -1e-30])
fdy.view(-1)[0] = 2.0  # relu passes it where its result is NaN
for dt in [torch.float32, torch.float64, torch.bfloat16]:
    name = 'fused_%s_' % str(dt)[6:]
    x, dy = fx.to(dt), fdy.to(dt)
    w.add(name + 'x', x)
    w.add(name + 'dy', dy)
    w.add(name + 'dyT', dy.t().contiguous())
    for op, f in [('relu', torch.relu), ('tanh', torch.tanh), ('sigmoid', torch.sigmoid)]:
        xg = x.clone().requires_grad_()
        y = f(xg)
        y.backward(dy)  # threshold_backward(dy, y, 0), tanh_backward(dy, y), sigmoid_backward(dy, y)
        w.add(name + op + '_out', y.detach())
        w.add(name + op + '_grad', xg.grad)

w.save()
with open('grad_pointwise.txt', 'w') as f:
    f.write('\n'.join(lines) + '\n')
