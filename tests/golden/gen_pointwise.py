"""Golden data for pointwise ops: every op of ctorch's op table, every dtype,
broadcasting, non-contiguous and empty operands, 0-d tensors, Python-number
operands, options, and the errors PyTorch raises.

Writes pointwise.ctg and pointwise.txt, one case a line:
    <op>|<kind>|<operands...>|<options>|<result name>
    <op>|<kind>|<operands...>|<options>|ERR <Type>|<message>
kind has one letter per operand: t a tensor (T after it: the C test transposes
it first, as the generator did), s a Python number, written i:<int>, f:<float>
or b:<0|1>. options are name=value pairs joined by commas (empty for none).
The C test also runs each op's in-place form on a copy of the first operand.

PyTorch 1.13 lacks many float16 CPU kernels ("exp_vml_cpu" not implemented
for 'Half') and a few bfloat16 ones (mish); ctorch has them, computing in
float32 and rounding once as later PyTorch releases do, so those cases record
the float32 result rounded to the narrow type.
"""
import math
import warnings

import torch
import torch.nn.functional as F

from ctg import Writer

warnings.filterwarnings("ignore", "where received a uint8 condition")

w = Writer('pointwise.ctg')
lines = []
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
SHORT = {torch.bool: 'b8', torch.uint8: 'u8', torch.int8: 'i8', torch.int16: 'i16', torch.int32: 'i32',
         torch.int64: 'i64', torch.float16: 'f16', torch.bfloat16: 'bf16', torch.float32: 'f32', torch.float64: 'f64'}
SPECIAL = [float('nan'), float('inf'), -float('inf'), -0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -2.5]
g = torch.Generator().manual_seed(0)

# Value ranges for floating inputs: (low, high) of the random part; integers
# use -6..6 (uint8 0..11), 'nonzero' leaves out 0, 'shift' is 0..7.
RANGES = {'wide': (-4.0, 4.0), 'unit': (-1.2, 1.2), 'prob': (-0.2, 1.2), 'pos': (0.5, 6.0), 'big': (-40.0, 40.0)}


def values(dt, shape, rng, specials):
    n = math.prod(shape)
    if dt == torch.bool:
        return (torch.rand(n, generator=g) > 0.5).view(shape)
    if not dt.is_floating_point:
        lo, hi = (0, 12) if dt == torch.uint8 else (-6, 7)
        if rng == 'shift':
            lo, hi = 0, 8
        x = torch.randint(lo, hi, (n,), generator=g)
        if rng == 'nonzero':
            x[x == 0] = 3
        return x.to(dt).view(shape)
    lo, hi = RANGES.get(rng, RANGES['wide'])
    x = torch.rand(n, generator=g, dtype=torch.float64) * (hi - lo) + lo
    if specials:
        # specials at a rotating offset so that broadcast pairs differ
        k = min(n, len(SPECIAL))
        off = int(torch.randint(0, len(SPECIAL), (1,), generator=g))
        x[:k] = torch.tensor([SPECIAL[(off + i) % len(SPECIAL)] for i in range(k)], dtype=torch.float64)
    return x.to(dt).view(shape)


bank = {}


def tensor(dt, shape, rng='wide', specials=True, variant=0):
    """A named input from the bank: the same request gives the same tensor."""
    key = (dt, tuple(shape), rng, specials, variant)
    if key not in bank:
        name = 'x%d_%s_%s' % (len(bank), SHORT[dt], 'x'.join(map(str, shape)) or 's')
        t = values(dt, shape, rng, specials)
        w.add(name, t)
        bank[key] = (name, t)
    return bank[key]


def number_code(v):
    if isinstance(v, bool):
        return 'b:%d' % v
    if isinstance(v, int):
        return 'i:%d' % v
    return 'f:%r' % v


def err(e):
    return 'ERR %s|%s' % (type(e).__name__, str(e).replace('\n', '\\n'))


NARROW_MISSING = ("not implemented for 'Half'", "not implemented for 'BFloat16'")
ncase = 0


class NoAnswer(Exception):
    """PyTorch has no float16 kernel and the float32 evaluation fails too:
    nothing from PyTorch to compare with, so the case is left out."""


def upcast(o):
    if isinstance(o, torch.Tensor) and o.dtype in (torch.float16, torch.bfloat16):
        return o.float()
    return o


def evaluate(f, operands):
    """f(*operands); float16/bfloat16 through float32 where 1.13 has no kernel."""
    try:
        return f(*operands)
    except RuntimeError as e:
        if not any(m in str(e) for m in NARROW_MISSING):
            raise
        narrow = [o.dtype for o in operands if isinstance(o, torch.Tensor) and o.dtype in (torch.float16, torch.bfloat16)]
        try:
            r = f(*[upcast(o) for o in operands])
        except RuntimeError as e2:
            if 'not implemented for' in str(e2):
                raise e from None  # not a float16 gap: the op refuses floats
            raise NoAnswer() from None
        if isinstance(r, torch.Tensor) and r.dtype == torch.float32:
            r = r.to(narrow[0])
        return r


def record(op, kind, operands, f, options=''):
    """Record f(*values) for operands [(code, value)], or the error PyTorch raises."""
    global ncase
    fields = [op, kind] + [c for c, _ in operands] + [options]
    try:
        r = evaluate(f, [v for _, v in operands])
        if not isinstance(r, torch.Tensor):
            r = torch.tensor(r)
        ncase += 1
        rname = 'r%d' % ncase
        w.add(rname, r)
        lines.append('|'.join(fields + [rname]))
    except NoAnswer:
        pass
    except Exception as e:  # the error is the expected result
        lines.append('|'.join(fields + [err(e)]))


def t_operand(dt, shape, rng='wide', transpose=False, specials=True, variant=0):
    """A tensor operand: (code, value, kind letters)."""
    if transpose:
        name, t = tensor(dt, tuple(reversed(shape)), rng, specials, variant)
        return name, t.t(), 'tT'
    name, t = tensor(dt, shape, rng, specials, variant)
    return name, t, 't'


def call(op, f, specs, options=''):
    """specs: tensor operands (code, value, kind) or numbers (plain values)."""
    kind, operands = '', []
    for s in specs:
        if isinstance(s, tuple):
            kind += s[2]
            operands.append((s[0], s[1]))
        else:
            kind += 's'
            operands.append((number_code(s), s))
    record(op, kind, operands, f, options)


# ---------------------------------------------------------------- unary ops

def unary_cases(op, f, rng='wide', options=''):
    for dt in DTYPES:
        for shape in [(7,), (3, 5), ()]:
            call(op, f, [t_operand(dt, shape, rng)], options)
        call(op, f, [t_operand(dt, (3, 5), rng, transpose=True)], options)
    for dt in (torch.float32, torch.float64):  # long enough for PyTorch's vectorised loops
        call(op, f, [t_operand(dt, (37,), rng)], options)
    call(op, f, [t_operand(torch.float32, (0,), rng)], options)
    call(op, f, [t_operand(torch.int64, (2, 0), rng)], options)


UNARY = {
    'neg': (torch.neg, 'wide'), 'abs': (torch.abs, 'wide'), 'reciprocal': (torch.reciprocal, 'wide'),
    'sign': (torch.sign, 'wide'), 'round': (torch.round, 'big'), 'floor': (torch.floor, 'wide'),
    'ceil': (torch.ceil, 'wide'), 'trunc': (torch.trunc, 'wide'), 'frac': (torch.frac, 'wide'),
    'exp': (torch.exp, 'wide'), 'exp2': (torch.exp2, 'wide'), 'expm1': (torch.expm1, 'wide'),
    'log': (torch.log, 'wide'), 'log2': (torch.log2, 'wide'), 'log10': (torch.log10, 'wide'),
    'log1p': (torch.log1p, 'wide'), 'sqrt': (torch.sqrt, 'wide'), 'rsqrt': (torch.rsqrt, 'wide'),
    'sin': (torch.sin, 'wide'), 'cos': (torch.cos, 'wide'), 'tan': (torch.tan, 'wide'),
    'asin': (torch.asin, 'unit'), 'acos': (torch.acos, 'unit'), 'atan': (torch.atan, 'wide'),
    'sinh': (torch.sinh, 'wide'), 'cosh': (torch.cosh, 'wide'), 'tanh': (torch.tanh, 'wide'),
    'asinh': (torch.asinh, 'wide'), 'acosh': (torch.acosh, 'pos'), 'atanh': (torch.atanh, 'unit'),
    'erf': (torch.erf, 'wide'), 'erfc': (torch.erfc, 'wide'), 'erfinv': (torch.erfinv, 'unit'),
    'lgamma': (torch.lgamma, 'wide'), 'digamma': (torch.digamma, 'wide'), 'sigmoid': (torch.sigmoid, 'wide'),
    'logit': (torch.logit, 'prob'), 'relu': (torch.relu, 'wide'), 'relu6': (F.relu6, 'big'),
    'selu': (torch.selu, 'wide'), 'silu': (F.silu, 'wide'), 'mish': (F.mish, 'wide'),
    'hardsigmoid': (F.hardsigmoid, 'wide'), 'hardswish': (F.hardswish, 'wide'),
    'isnan': (torch.isnan, 'wide'), 'isinf': (torch.isinf, 'wide'), 'isfinite': (torch.isfinite, 'wide'),
    'logical_not': (torch.logical_not, 'wide'), 'bitwise_not': (torch.bitwise_not, 'wide'),
    'nan_to_num': (torch.nan_to_num, 'wide'),
}
for op, (f, rng) in UNARY.items():
    unary_cases(op, f, rng)

# unary ops with options: a full sweep with the first setting, the others on a few dtypes
PARAM_UNARY = [
    ('round', lambda d: (lambda t: torch.round(t, decimals=d)), 'decimals', [2, -1, 0], 'big'),
    ('logit', lambda e: (lambda t: torch.logit(t, eps=e)), 'eps', [0.25, 0.0, -0.5], 'prob'),
    ('leaky_relu', lambda s: (lambda t: F.leaky_relu(t, s)), 'slope', [0.01, 0.2, -1.5], 'wide'),
    ('celu', lambda a: (lambda t: torch.celu(t, a)), 'alpha', [1.0, 0.3, -2.0, 0.0], 'wide'),
    ('gelu', lambda m: (lambda t: F.gelu(t, approximate=m)), 'approximate', ['none', 'tanh'], 'wide'),
    ('hardtanh', lambda mm: (lambda t: F.hardtanh(t, mm[0], mm[1])), 'bounds', [(-1.0, 1.0), (-2.5, 0.5), (0.0, 3.7), (-0.5, 7.5), (2.0, 1.0), (float('nan'), 1.0)], 'wide'),
]
for op, make, key, settings, rng in PARAM_UNARY:
    for i, v in enumerate(settings):
        code = '%s=%s' % (key, ':'.join(map(repr, v)) if isinstance(v, tuple) else v)
        if i == 0:
            unary_cases(op, make(v), rng, code)
        else:
            for dt in (torch.float32, torch.bfloat16, torch.int32):
                call(op, make(v), [t_operand(dt, (7,), rng)], code)
            call(op, make(v), [t_operand(torch.float64, (37,), rng)], code)

ELU = [(1.0, 1.0, 1.0), (0.5, 2.0, 1.5), (-1.0, 1.0, 1.0), (0.0, 1.0, 1.0)]
for i, (alpha, scale, iscale) in enumerate(ELU):
    f = (lambda a, s, i: lambda t: torch._C._nn.elu(t, a, s, i))(alpha, scale, iscale)
    code = 'alpha=%r,scale=%r,input_scale=%r' % (alpha, scale, iscale)
    if i == 0:
        unary_cases('elu', f, 'wide', code)
    else:
        for dt in (torch.float32, torch.bfloat16, torch.float64):
            call('elu', f, [t_operand(dt, (7,))], code)
            call('elu', f, [t_operand(dt, (37,))], code)

SOFTPLUS = [(1.0, 20.0), (2.0, 1.0), (0.5, 0.0), (-1.0, 20.0)]
for i, (beta, threshold) in enumerate(SOFTPLUS):
    f = (lambda b, th: lambda t: F.softplus(t, b, th))(beta, threshold)
    code = 'beta=%r,threshold=%r' % (beta, threshold)
    if i == 0:
        unary_cases('softplus', f, 'wide', code)
    else:
        for dt in (torch.float32, torch.bfloat16, torch.float64):
            call('softplus', f, [t_operand(dt, (7,))], code)

NAN_TO_NUM = [(1.5, None, None), (0.0, 100.0, -7.0), (-3.0, 1e30, None), (1e6, None, -1e300)]
for nan, posinf, neginf in NAN_TO_NUM:
    f = (lambda a, b, c: lambda t: torch.nan_to_num(t, a, b, c))(nan, posinf, neginf)
    code = 'nan=%r' % nan + (',posinf=%r' % posinf if posinf is not None else '') + (
        ',neginf=%r' % neginf if neginf is not None else '')
    for dt in FLOATS + [torch.int32]:
        call('nan_to_num', f, [t_operand(dt, (7,))], code)

# ---------------------------------------------------------------- binary ops

NUMBERS = [2, -3, 2.5, -0.5, True, 0, 0.1, 300]


def binary_cases(op, f, options='', rng_b='wide', numbers=True):
    for da in DTYPES:
        for db in DTYPES:
            call(op, f, [t_operand(da, (2, 3)), t_operand(db, (3,), rng_b, variant=1)], options)
        if numbers:
            for v in NUMBERS:
                call(op, f, [t_operand(da, (4,)), v], options)
        call(op, f, [t_operand(da, (3, 4), transpose=True), t_operand(da, (), rng_b, variant=1)], options)
    # 0-d against dims, empty, broadcasting both ways, vectorised lengths, strided
    for da, db in [(torch.int32, torch.float64), (torch.float32, torch.float64), (torch.float16, torch.float32),
                   (torch.bfloat16, torch.float64), (torch.int64, torch.float16)]:
        call(op, f, [t_operand(da, (3,)), t_operand(db, (), rng_b, variant=1)], options)
        call(op, f, [t_operand(db, ()), t_operand(da, (3,), rng_b, variant=1)], options)
    call(op, f, [t_operand(torch.float32, (2, 1, 3)), t_operand(torch.float32, (4, 1), rng_b, variant=1)], options)
    call(op, f, [t_operand(torch.float32, (2, 3)), t_operand(torch.float32, (4,), rng_b, variant=1)], options)
    call(op, f, [t_operand(torch.float32, (0, 3)), t_operand(torch.float32, (3,), rng_b, variant=1)], options)
    for dt in (torch.float32, torch.float64, torch.int64):
        call(op, f, [t_operand(dt, (37,)), t_operand(dt, (37,), rng_b, variant=1)], options)
        call(op, f, [t_operand(dt, (37, 2), transpose=True), t_operand(dt, (2, 37), rng_b, variant=1)], options)
        if numbers:
            call(op, f, [t_operand(dt, (37,)), 0.1 if dt.is_floating_point else 3], options)


BINARY = {
    'add': torch.add, 'sub': torch.sub, 'mul': torch.mul, 'div': torch.div, 'remainder': torch.remainder,
    'fmod': torch.fmod, 'pow': torch.pow, 'maximum': torch.maximum, 'minimum': torch.minimum, 'fmax': torch.fmax,
    'fmin': torch.fmin, 'copysign': torch.copysign, 'hypot': torch.hypot, 'atan2': torch.atan2,
    'xlogy': torch.xlogy, 'eq': torch.eq, 'ne': torch.ne, 'lt': torch.lt, 'le': torch.le, 'gt': torch.gt,
    'ge': torch.ge, 'logical_and': torch.logical_and, 'logical_or': torch.logical_or,
    'logical_xor': torch.logical_xor, 'bitwise_and': torch.bitwise_and, 'bitwise_or': torch.bitwise_or,
    'bitwise_xor': torch.bitwise_xor, 'bitwise_left_shift': torch.bitwise_left_shift,
    'bitwise_right_shift': torch.bitwise_right_shift, 'floor_divide': torch.floor_divide,
    'clamp_min': torch.clamp_min, 'clamp_max': torch.clamp_max, 'rsub': torch.rsub,
}
NO_NUMBER = {'maximum', 'minimum', 'fmax', 'fmin', 'hypot', 'atan2', 'logical_and', 'logical_or', 'logical_xor'}
# pow with the exponents PyTorch computes specially (sqrt, rsqrt, reciprocal, products)
for dt in FLOATS + [torch.int32]:
    for v in (0.5, -1.0, 3, -2.0, 3.0, -1, 1, 0.0):
        call('pow', torch.pow, [t_operand(dt, (7,)), v])
DIVIDES = {'remainder', 'fmod', 'floor_divide'}
for op, f in BINARY.items():
    rng = 'nonzero' if op in DIVIDES else 'shift' if 'shift' in op else 'wide'
    binary_cases(op, f, rng_b=rng, numbers=op not in NO_NUMBER)
for mode in ('trunc', 'floor'):
    binary_cases('div', (lambda m: lambda a, b: torch.div(a, b, rounding_mode=m))(mode), 'mode=' + mode, 'nonzero')

# Python-number first operands: 2 - t, 2 / t, 2 ** t
for op, f in [('rsub', lambda t, s: s - t), ('rdiv', lambda t, s: s / t), ('rpow', lambda t, s: torch.pow(s, t))]:
    for dt in DTYPES:
        for v in NUMBERS:
            call(op, f, [t_operand(dt, (4,), 'wide', variant=2), v])
    call(op, f, [t_operand(torch.float32, (37,)), 3])

# alpha
for op in ('add', 'sub'):
    for da, db in [(torch.float32, torch.float32), (torch.float64, torch.float64), (torch.int64, torch.int32),
                   (torch.bfloat16, torch.bfloat16), (torch.float16, torch.float16), (torch.bool, torch.bool),
                   (torch.uint8, torch.int8)]:
        for alpha in (2, -3, 0.3, True, 1000):
            f = (lambda o, al: lambda a, b: getattr(torch, o)(a, b, alpha=al))(op, alpha)
            call(op, f, [t_operand(da, (2, 3)), t_operand(db, (3,), variant=1)], 'alpha=' + number_code(alpha))
        if da not in (torch.float16, torch.bfloat16):  # (PyTorch's vectorised bfloat16 loop rounds once)
            f = (lambda o: lambda a, b: getattr(torch, o)(a, b, alpha=0.3))(op)
            call(op, f, [t_operand(da, (37,)), t_operand(db, (37,), variant=1)], 'alpha=f:0.3')

# integer division by zero, and shifts by out-of-range counts
for dt in (torch.int8, torch.uint8, torch.int64):
    zero = ('zero_' + SHORT[dt], torch.tensor([1, 0, 2], dtype=dt), 't')
    w.add(zero[0], zero[1])
    for op, f in [('div', lambda a, b: torch.div(a, b, rounding_mode='trunc')), ('floor_divide', torch.floor_divide),
                  ('remainder', torch.remainder), ('fmod', torch.fmod)]:
        call(op, f, [t_operand(dt, (2, 3)), zero], 'mode=trunc' if op == 'div' else '')
        call(op, f, [t_operand(dt, (4,)), 0], 'mode=trunc' if op == 'div' else '')
for dt in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
    counts = torch.tensor([7, 8, 100, 255 if dt == torch.uint8 else -1, 31, 33], dtype=dt)
    w.add('shift_' + SHORT[dt], counts)
    for op in ('bitwise_left_shift', 'bitwise_right_shift'):
        call(op, getattr(torch, op), [t_operand(dt, (6,)), ('shift_' + SHORT[dt], counts, 't')])

# ---------------------------------------------------------------- ternary ops


def ternary_cases(op, f, options='', rngs=('wide', 'wide'), same_dtype=False):
    for dt in DTYPES:
        call(op, f, [t_operand(dt, (2, 3)), t_operand(dt, (3,), rngs[0], variant=1),
                     t_operand(dt, (2, 1), rngs[1], variant=2)], options)
        call(op, f, [t_operand(dt, (4, 3), transpose=True), t_operand(dt, (), rngs[0], variant=1),
                     t_operand(dt, (4, 1), rngs[1], variant=2)], options)
    for dt in (torch.float32, torch.float64):
        call(op, f, [t_operand(dt, (37,)), t_operand(dt, (37,), rngs[0], variant=1),
                     t_operand(dt, (37,), rngs[1], variant=2)], options)
    call(op, f, [t_operand(torch.float32, (0, 2)), t_operand(torch.float32, (2,), rngs[0], variant=1),
                 t_operand(torch.float32, (1, 2), rngs[1], variant=2)], options)
    mixes = [(torch.float32, torch.float64, torch.float32), (torch.int32, torch.float32, torch.int64),
             (torch.bfloat16, torch.float16, torch.bfloat16), (torch.int8, torch.uint8, torch.int16),
             (torch.float16, torch.float32, torch.float16)]
    for da, db, dc in mixes:
        call(op, f, [t_operand(da, (3,)), t_operand(db, (3,), rngs[0], variant=1),
                     t_operand(dc, (3,), rngs[1], variant=2)], options)
        call(op, f, [t_operand(da, (3,)), t_operand(db, (), rngs[0], variant=1),
                     t_operand(dc, (3,), rngs[1], variant=2)], options)


for v in (1, 2, -0.5, 0.3, True, 1e300, 1000):
    ternary_cases('addcmul', (lambda v: lambda a, b, c: torch.addcmul(a, b, c, value=v))(v), 'value=' + number_code(v))
    ternary_cases('addcdiv', (lambda v: lambda a, b, c: torch.addcdiv(a, b, c, value=v))(v), 'value=' + number_code(v),
                  ('wide', 'pos'))
ternary_cases('lerp', torch.lerp, '', ('wide', 'prob'))
ternary_cases('clamp', torch.clamp)
cond = ('c_b8', torch.arange(6).view(2, 3) % 3 != 1, 't')
w.add(cond[0], cond[1])
for dt in DTYPES:
    call('where', torch.where, [cond, t_operand(dt, (2, 3)), t_operand(dt, (3,), variant=1)])
    call('where', torch.where, [cond, t_operand(dt, (3,)), t_operand(torch.float32, (2, 1), variant=1)])
    call('where', torch.where, [t_operand(dt, (2, 3)), t_operand(dt, (3,)), t_operand(dt, (3,), variant=1)])
for dt in DTYPES:
    for v in (2, 2.5, True, 300):
        call('where', torch.where, [cond, t_operand(dt, (3,)), v])
        call('where', torch.where, [cond, v, t_operand(dt, (2, 3))])
for x, y in [(2, 1), (2.5, 1), (True, False), (True, 2), (-1, 0.5)]:
    call('where', torch.where, [cond, x, y])
cond_u8 = ('c_u8', cond[1].to(torch.uint8), 't')
w.add(cond_u8[0], cond_u8[1])
call('where', torch.where, [cond_u8, t_operand(torch.float32, (3,)), t_operand(torch.float32, (2, 3), variant=1)])
cond37 = ('c_b8_37', torch.rand(37, generator=g) > 0.5, 't')
w.add(cond37[0], cond37[1])
call('where', torch.where, [cond37, t_operand(torch.float32, (37,)), t_operand(torch.float32, (37,), variant=1)])

# lerp with a number weight
for dt in DTYPES:
    for v in (0.25, 0.75, -1.5, 2, 1e300):
        call('lerp', (lambda v: lambda a, b: torch.lerp(a, b, v))(v), [t_operand(dt, (2, 3)), t_operand(dt, (3,), variant=1)],
             'weight=' + number_code(v))
call('lerp', lambda a, b: torch.lerp(a, b, 0.3), [t_operand(torch.float32, (2, 3)), t_operand(torch.float64, (3,))], 'weight=f:0.3')

# clamp with number bounds, one or both
for dt in DTYPES:
    for lo, hi in [(-1, 1), (0.5, 2.5), (-2.5, None), (None, 1.5), (3, -3), (float('nan'), 1.0), (None, float('nan')),
                   (True, None), (-300, 300), (-1e300, None), (2, None), (None, 0)]:
        if hi is None:
            call('clamp_min', torch.clamp_min, [t_operand(dt, (2, 3)), lo])
        elif lo is None:
            call('clamp_max', torch.clamp_max, [t_operand(dt, (2, 3)), hi])
        else:
            call('clamp', torch.clamp, [t_operand(dt, (2, 3)), lo, hi])

# ---------------------------------------------------------------- closeness and equality

ISCLOSE = [(1e-05, 1e-08, False), (0.1, 0.0, False), (0.0, 0.5, True), (0.0, 0.0, False), (-1.0, 0.0, False)]
for rtol, atol, equal_nan in ISCLOSE:
    code = 'rtol=%r,atol=%r,equal_nan=%d' % (rtol, atol, equal_nan)
    for op, fn in (('isclose', torch.isclose), ('allclose', torch.allclose)):
        f = (lambda fn, r, a, e: lambda x, y: fn(x, y, rtol=r, atol=a, equal_nan=e))(fn, rtol, atol, equal_nan)
        for dt in DTYPES:
            x = t_operand(dt, (2, 3))
            call(op, f, [x, x], code)
            call(op, f, [x, t_operand(dt, (3,), variant=1)], code)
            near = (x[0] + '_near', x[1].clone() if dt == torch.bool else x[1] + (1e-3 if dt.is_floating_point else 1), 't')
            if near[0] not in w.names:
                w.add(near[0], near[1])
            call(op, f, [x, near], code)
        call(op, f, [t_operand(torch.int32, (3,)), t_operand(torch.float32, (3,))], code)
        call(op, f, [t_operand(torch.float32, (2, 3)), t_operand(torch.float32, (2,))], code)
for dt in DTYPES:
    x = t_operand(dt, (2, 3))
    call('equal', torch.equal, [x, x])
    call('equal', torch.equal, [x, t_operand(dt, (2, 3), variant=1)])
    call('equal', torch.equal, [x, t_operand(dt, (3, 2), transpose=True)])
    call('equal', torch.equal, [x, t_operand(torch.float64, (2, 3))])
ones = ('ones_f32', torch.ones(2, 3), 't')
w.add(ones[0], ones[1])
for name, t in [('ones_i64', torch.ones(2, 3, dtype=torch.int64)), ('ones_f32_3', torch.ones(3))]:
    w.add(name, t)
    call('equal', torch.equal, [ones, (name, t, 't')])
call('equal', torch.equal, [t_operand(torch.float32, (0,)), t_operand(torch.float32, (0,), variant=1)])


# ---------------------------------------------------------------- SLEEF's bits

# float32 erf (SLEEF's for every element), and gelu and its backward as
# GeluKernelImpl computes them (PyTorch takes oneDNN for contiguous float
# gelu: disabled here), on inputs that stress SLEEF's erf and exp: 0,
# subnormals, both sides of erf's switch points (|x| = 1.1, 2.4, 4; for
# gelu, those over sqrt(1/2)), exp's underflow (x^2 / 2 near 87 and 104),
# large |x| (erf's |x| near 60.19, whose discarded exp lanes get exponents
# near 2^31), infinities, NaN and -0. 96 elements: whole vector blocks, which
# run SLEEF (the rest of a loop runs the C library's erf and exp). Compared
# bit for bit by test_sleef_bits.
def around(v):
    x = torch.tensor([v, -v], dtype=torch.float32)
    return [torch.nextafter(x, torch.full_like(x, -math.inf)), x, torch.nextafter(x, torch.full_like(x, math.inf))]


edges = [torch.tensor([0.0, -0.0, 1e-45, -1e-45, 1.1754942e-38, -3e-39, 1e-20, -1e-7, 1e-4, 0.3, -0.7,
                       1e3, -1e4, 3e38, -3.4e38, math.inf, -math.inf, math.nan])]
for v in ([1.1, 2.4, 4.0] + [c / math.sqrt(0.5) for c in (1.1, 2.4, 4.0)] + [math.sqrt(2 * 87.3), math.sqrt(2 * 104.0)]
          + [float.fromhex('0x1.e18bb0p+5')]):
    edges += around(v)
sleef_x = torch.cat(edges + [torch.randn(96, generator=g) * 3])[:96]
sleef_dy = torch.randn(96, generator=g)
sleef_dy[:4] = torch.tensor([1.0, -0.0, math.inf, 1e-40])
mkldnn = torch._C._get_mkldnn_enabled()
torch._C._set_mkldnn_enabled(False)
for name, t in [('sleef_x', sleef_x), ('sleef_dy', sleef_dy), ('sleef_erf', torch.erf(sleef_x)),
                ('sleef_gelu', F.gelu(sleef_x)),
                ('sleef_gelu_backward', torch.ops.aten.gelu_backward(sleef_dy, sleef_x))]:
    w.add(name, t)
torch._C._set_mkldnn_enabled(mkldnn)

# ---------------------------------------------------------------- activations' first derivatives

# threshold_backward(grad_output, self, threshold), tanh_backward(grad_output,
# output), sigmoid_backward(grad_output, output), gelu_backward(grad_output,
# self, approximate): every dtype with the forward's outputs as the second
# operand where it takes them, broadcasting, promotion, transposed and
# vectorised lengths. gelu_backward as GeluBackwardKernelImpl computes it
# (PyTorch takes oneDNN for contiguous float tensors: disabled here, as for
# SLEEF's bits below); bfloat16 gelu_backward as its scalar loop computes
# it (its vectorised one, on contiguous runs of 32 or more, rounds
# otherwise: no such bfloat16 case).
def second(op, t):
    """The forward's output for tanh and sigmoid (float16's through float32), else t."""
    fn = {'tanh_backward': torch.tanh, 'sigmoid_backward': torch.sigmoid}.get(op)
    return fn(upcast(t)).to(t.dtype) if fn else t


BACKWARD = [('threshold_backward', lambda v: (lambda g, y: torch.ops.aten.threshold_backward(g, y, v)), 'threshold',
             [0, 0.5, -1.5, 2, 300]),
            ('tanh_backward', lambda v: torch.ops.aten.tanh_backward, None, [None]),
            ('sigmoid_backward', lambda v: torch.ops.aten.sigmoid_backward, None, [None]),
            ('gelu_backward', lambda m: (lambda g, x: torch.ops.aten.gelu_backward(g, x, approximate=m)), 'approximate',
             ['none', 'tanh'])]
mkldnn = torch._C._get_mkldnn_enabled()
torch._C._set_mkldnn_enabled(False)
for op, make, key, settings in BACKWARD:
    for v in settings:
        f, code = make(v), '' if key is None else '%s=%s' % (key, number_code(v) if key == 'threshold' else v)
        for dt in DTYPES:
            for shape, transpose in [((7,), False), ((3, 5), False), ((), False), ((3, 5), True), ((37,), False)]:
                if op == 'gelu_backward' and dt == torch.bfloat16 and shape == (37,):
                    continue
                g_op = t_operand(dt, shape, 'wide', transpose, variant=3)
                x = t_operand(dt, shape, 'wide', transpose)
                y = (x[0] + '_' + op, second(op, x[1]) if dt.is_floating_point else x[1], x[2])
                if y[0] not in w.names:
                    w.add(y[0], y[1].t() if transpose else y[1])
                call(op, f, [g_op, y], code)
        for da, db in [(torch.float32, torch.float64), (torch.float64, torch.float32), (torch.int64, torch.float32)]:
            call(op, f, [t_operand(da, (2, 3), variant=3), t_operand(db, (3,))], code)
            call(op, f, [t_operand(da, (3,), variant=3), t_operand(db, (2, 3))], code)
        call(op, f, [t_operand(torch.float32, (0, 3), variant=3), t_operand(torch.float32, (3,))], code)
        call(op, f, [t_operand(torch.float32, (), variant=3), t_operand(torch.float32, (37,))], code)
torch._C._set_mkldnn_enabled(mkldnn)

w.save()
with open('pointwise.txt', 'w') as fh:
    fh.write('\n'.join(lines) + '\n')
print(ncase, 'cases,', len(lines), 'lines')
