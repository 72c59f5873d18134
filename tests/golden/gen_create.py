"""Golden data for tests/test_create.c: range factories, dtype conversions,
fills and factories, from PyTorch 1.13 on the CPU.

Run with Debian's python3 (python3-torch): writes create.ctg next to this file.
"""
import math
import os
import random
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctg import Writer  # noqa: E402

# One thread: the kernels split work above 32768 elements and restart their
# vector loops at each split, so every case here stays below that or is
# independent of it (see the arange/linspace cases of 40000).
torch.set_num_threads(1)

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
NAME = {torch.bool: 'b8', torch.uint8: 'u8', torch.int8: 'i8', torch.int16: 'i16', torch.int32: 'i32',
        torch.int64: 'i64', torch.float16: 'f16', torch.bfloat16: 'bf16', torch.float32: 'f32',
        torch.float64: 'f64'}

w = Writer(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'create.ctg'))


def bits(t):
    """t's raw bits, to compare NaN payloads and signed zeros."""
    size = t.element_size()
    return t.contiguous().view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size])


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(bits(a), bits(b))


# ---------------------------------------------------------------- conversions

# Values that probe every rule: signed zeros, rounding ties of half and
# bfloat16, subnormals, the edges of every integer range, overflow, NaN.
FLOATS = [0., -0., 1., -1., 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 0.1, 1 / 3, -1.7, 127., 127.9, 128., 255.,
          255.5, 256., -128., -128.9, -129., 300.7, -300.7, 32767., 32768., -32768., -32769., 65504., 65519.99,
          65520., 1e5, 2.**31 - 1, 2.**31, -2.**31, -2.**31 - 1, 2.**32 + 5, -2.**32 - 5, 2.**53 + 2, 2.**63,
          -2.**63, 1e19, -1e19, 1e30, 3.4e38, 3.5e38, 1e39, -1e300, math.inf, -math.inf, math.nan, -math.nan,
          1e-40, -1e-40, 1e-310, 6e-8, 2.**-25, 2.**-24 * 1.5, 2.**-24 * 2.5, 1 + 2.**-11, 1 + 3 * 2.**-11,
          2049., 2051., 1 + 2.**-8, 1 + 3 * 2.**-8, 257., 259., 1e-8, 2.**-149, 1.00000001]
INTS = [0, 1, -1, 2, 127, 128, 255, 256, -128, -129, 32767, 32768, 65535, 65536, 2**31 - 1, 2**31, -2**31,
        -2**31 - 1, 2**32 + 5, 2**53 + 1, 2**63 - 1, -2**63, 16777217, 16777219, 2049, 2051, 257, 259, 65520,
        65504, 65519, 100000, -100000, 2**62 + 2**39 + 1, -(2**62 + 1), 1000]


def conv_source(dt):
    if dt.is_floating_point:
        return torch.tensor(FLOATS, dtype=torch.float64).to(dt)
    if dt == torch.bool:
        return torch.tensor([True, False, True, True, False])
    return torch.tensor(INTS, dtype=torch.int64).to(dt)


for s in DTYPES:
    x = conv_source(s)
    w.add('conv_src_' + NAME[s], x)
    for d in DTYPES:
        r = x.to(d)
        w.add('conv_%s_%s' % (NAME[s], NAME[d]), r)
        # Strided sources take PyTorch's scalar loop: the same except NaN to
        # bfloat16 from float and double, which the vector loops write as 0xffff.
        strided = torch.stack([x, x], 1)[:, 1].to(d)
        long_strided = torch.stack([x.repeat(20), x.repeat(20)], 1)[:, 0].to(d)
        assert same(long_strided, strided.repeat(20))
        w.add('conv_%s_%s_strided' % (NAME[s], NAME[d]), strided)
        assert same(x.repeat(20).to(d), r.repeat(20))  # longer inputs run the same loops

# ---------------------------------------------------------------- range factories
#
# A family is several calls of one factory in one dtype: NAME_meta holds
# [dtype, kinds] (kinds: bit i set when argument i is a Python float, else an
# int), NAME_args one row of arguments per call, NAME the results end to end.
# Lengths from 1 to 70 put the boundary between PyTorch's vector loop (two
# 32-byte vectors at a time) and its scalar loop everywhere.

DTYPE_CODE = {torch.bool: 1, torch.uint8: 2, torch.int8: 3, torch.int16: 4, torch.int32: 5, torch.int64: 6,
              torch.float16: 7, torch.bfloat16: 8, torch.float32: 9, torch.float64: 10}
FLOATING = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTEGRAL = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
families = {'arange': 0, 'linspace': 0, 'logspace': 0}


def family(kind, dt, kinds, calls):
    """calls: argument tuples; kinds: which arguments are Python floats."""
    fn = getattr(torch, kind)
    name = '%s_%d' % (kind, families[kind])
    families[kind] += 1
    outs = []
    for args in calls:
        args = [float(a) if kinds >> i & 1 else int(a) for i, a in enumerate(args)]
        outs.append(fn(*args, dtype=dt))
    w.add(name + '_meta', torch.tensor([DTYPE_CODE[dt], kinds]))
    w.add(name + '_args', torch.tensor(calls, dtype=torch.float64))
    w.add(name, torch.cat(outs))


rng = random.Random(1)

# arange(start, end, step): end puts the last element half a step inside
for dt in FLOATING:
    family('arange', dt, 7, [(1.3, 1.3 + 0.37 * (n - 0.5), 0.37) for n in range(1, 71)])
    family('arange', dt, 7, [(100.1, 100.1 - 0.77 * (n - 0.5), -0.77) for n in range(1, 41)])
    family('arange', dt, 7, [(0.1, 0.1 + 0.1 * (n - 0.5), 0.1) for n in (100, 1000)])
    family('arange', dt, 0, [(-5, 100, 3), (7, -60, -2), (0, 70, 1), (3, 4, 7)])
    calls = []
    for _ in range(30):
        start, step, n = rng.uniform(-100, 100), rng.choice([-1, 1]) * 10 ** rng.uniform(-3, 1), rng.randint(1, 80)
        calls.append((start, start + step * (n - 0.5), step))
    family('arange', dt, 7, calls)
# Arguments where fusing a product with the addition after it (an FMA) rounds
# differently from not fusing it, in the scalar loop, a vector's base or its
# lanes, found by a search: they pin down what PyTorch's kernels fuse.
FMA_CASES = {
    torch.float32: [(128.58198750487907, -195.68282611993061, -1.7767934993140255),
                    (279.56632276727527, -317.72534966801851, -5.5049923726755186),
                    (-186.80956582085605, 2759.5973990198318, 15.226909379021642),
                    (-275.49894525443159, 473.99115875947228, 7.3120985757454031),
                    (8.8237234269688383, -4.8020074831806507, -0.10361772555246759),
                    (-4734.4813945206279, 3204.2455090692793, 39.594647898204023),
                    (-87.861342581570227, 1.2061644452401055, 0.54810773554960202),
                    (142.97181562195343, -33.834654330792517, -1.1154982331403529),
                    (78.090326209863022, -284.90581520522636, -1.8195295309027035),
                    (-132.51507573127748, 44.453331543505158, 0.88705968558788295),
                    (-5.1999821662902832, 125.08323429524899, 0.65304870406786597),
                    (-0.8862270819289344, 7.1227045409115295, 0.04014502066586699)],
    torch.float16: [(525.77443864465431, -1025.1104160983784, -5.6498537513407383),
                    (-694.6246529438647, -5442.0328378748209, -23.677846308882575),
                    (0.59034062716660129, -3.0438070011414298, -0.083543623639265083),
                    (-0.31754519665499459, -1312.5995527343996, -10.800674959158393),
                    (-0.44136560309741912, 0.31374525211793913, 0.0038040849129237194),
                    (-0.64760247974079221, 632.63286846909591, 2.1874973089769836),
                    (0.16645297928082436, -0.41569468943472998, -0.010881264835804753),
                    (-529.44361024044622, 341.6109978582291, 6.244119054470791),
                    (-0.12638369906990965, -18779.594137953645, -63.767292883716728)],
    torch.bfloat16: [(0.26269964560060749, -0.21234325816502048, -0.0021543895862386757),
                     (872.00903420895747, -49.053989077000438, -63.521587812824684),
                     (698.68464288240511, -698.50625312657826, -8.0068246189626553),
                     (220.42084728387226, -11475.576484420641, -91.733312405525595),
                     (0.096865950663046083, 1.8739332038949659, 0.006138401565567944),
                     (0.073657899663624446, -0.25098036137473267, -0.0014023251016775685),
                     (0.72708587149488091, -15828.923190112839, -73.116167556509623),
                     (-18.377057750884887, 7.8649233543782451, 0.088208339849623979),
                     (279.51274313009935, 117.84239811201607, -1.2294322815063368)],
}
for dt, calls in FMA_CASES.items():
    family('arange', dt, 7, calls)
for dt in INTEGRAL:
    family('arange', dt, 0, [(-5, -5 + 3 * n - 1, 3) for n in range(1, 41)] + [(7, -60, -2), (0, 300, 100)])
    # float arguments: int64 truncates all three first, the other dtypes only
    # start and step (the length comes from the doubles)
    family('arange', dt, 7, [(0.5, 10.7, 1.5), (-3.9, 20.2, 2.99), (10.5, -4.5, -1.25), (0, 5, 1)])
    family('arange', dt, 3, [(0.5, 10.7, 2), (-3.9, 20.2, 3)])

# int64 arguments past 2^53, which the families' double arguments cannot hold;
# the length of the second wraps around to 0 (its end - start overflows)
w.add('arange_i64_top', torch.arange(2**63 - 11, 2**63 - 1, 3))
w.add('arange_i64_wrap', torch.arange(-2**63, 2**63 - 1, 2**62))
w.add('arange_i64_down', torch.arange(-2**63 + 10, -2**63, -4))

# linspace(start, end, steps)
for dt in FLOATING + INTEGRAL:
    lo, hi = (0, 255) if dt == torch.uint8 else (-120, 120)
    family('linspace', dt, 3, [(1.1, 57.3, n) if dt.is_floating_point else (3.0, 117.9, n) for n in range(0, 71)])
    family('linspace', dt, 3, [(10.0, -10.0, n) for n in (2, 3, 7, 8, 31, 32, 33, 64, 65, 100, 257)]
           if dt != torch.uint8 else [(200.0, 10.0, n) for n in (2, 3, 7, 8, 31, 32, 33, 64, 65, 100, 257)])
    calls = []
    for _ in range(20):
        calls.append((rng.uniform(lo, hi), rng.uniform(lo, hi), rng.randint(2, 80)))
    family('linspace', dt, 3, calls)
# steps past what half and bfloat16 count exactly: the index rounds too
for dt in (torch.float16, torch.bfloat16):
    family('linspace', dt, 3, [(0.0, 1.0, 300), (5.0, -5.0, 2100)])
family('linspace', torch.int64, 3, [(-2.0**62, 2.0**62, 101), (0.0, 1e18, 33)])
for dt in (torch.float32, torch.float64, torch.bfloat16):  # non-finite ends and signed zeros
    family('linspace', dt, 3, [(0.0, math.nan, 3), (0.0, math.inf, 4), (-math.inf, 1.0, 5), (-0.0, -1.0, 3),
                               (-0.0, 1.0, 1), (2.0, 2.0, 5), (1.0, -0.0, 2)])

# logspace(start, end, steps, base)
for dt in [torch.bfloat16, torch.float32, torch.float64] + INTEGRAL:
    calls = []
    for base in (10.0, 2.0, math.e, 0.5):
        calls += [(0.0, 3.0, 7, base), (-2.0, 2.0, 9, base), (2.0, -1.0, 16, base), (0.5, 4.5, 1, base),
                  (1.0, 2.0, 0, base)]
    if dt == torch.uint8:
        calls = [c for c in calls if min(c[0], c[1]) >= 0 or c[2] == 0]  # start.to<uint8_t>() refuses negatives
    for _ in range(30):
        a, b = rng.uniform(0 if dt == torch.uint8 else -12, 12), rng.uniform(0 if dt == torch.uint8 else -12, 12)
        calls.append((a, b, rng.randint(2, 60), rng.uniform(0.1, 12)))
    family('logspace', dt, 11, calls)

for dt in (torch.float32, torch.float64, torch.bfloat16):  # non-finite exponents, bases 0 and below
    family('logspace', dt, 11, [(math.nan, 1.0, 3, 10.0), (0.0, math.inf, 4, 10.0), (-math.inf, 0.0, 3, 0.5),
                                (0.0, 4.0, 5, -2.0), (-1.0, 2.0, 4, 0.0), (1.0, 3.0, 3, 1.0)])

w.add('range_families', torch.tensor([families['arange'], families['linspace'], families['logspace']]))

# Long ranges run past the 32768-element grain, where PyTorch (and ctorch
# with OpenMP) split the work; 40000 splits at 20000, a multiple of every
# vector pair, so the values do not depend on the number of threads. Every
# 29th element is kept: that meets every lane of every vector.
for dt in FLOATING:
    w.add('arange_long_' + NAME[dt], torch.arange(-3.3, -3.3 + 0.013 * 39999.5, 0.013, dtype=dt)[::29])
    w.add('linspace_long_' + NAME[dt], torch.linspace(-7.7, 1234.5, 40000, dtype=dt)[::29])
w.add('arange_long_i16', torch.arange(-20000, 20000, dtype=torch.int16)[::29])
w.add('linspace_long_i32', torch.linspace(-77.0, 12345.0, 40000, dtype=torch.int32)[::29])

# ---------------------------------------------------------------- fill_, full, torch.tensor

# Python numbers as Scalars: fill_ and full check them with c10's
# checked_convert (errors name the C++ type); torch.tensor checks only
# integer dtypes (errors name the dtype) and lets floats overflow to inf.
SCALARS = [True, False, 0, 1, -1, 2, 255, 256, -255, -256, 127, 128, -128, -129, 32767, 32768, -32768, -32769, 65504,
           65505, -65505, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**63 - 1, -2**63, 2**60 + 2**36 + 1,
           0., -0., 1.5, -1.5, 2.5, 255., 255.5, 256., -0.5, -1., 127.5, 128., -128.5, -129., 65504., 65504.5,
           65519.99, 65520., 1e5, 2.**31, 2.**31 - 0.5, -2.**31 - 0.5, 2.**63, -2.**63, 1e19, 3.3895e38, 3.3896e38,
           3.4028234e38, 3.4028235e38, 1e300, 1e-8, 1e-40, 1 + 2.**-11, 1 + 3 * 2.**-11, 1 + 2.**-8,
           math.inf, -math.inf, math.nan]
CNAME = {torch.bool: 'bool', torch.uint8: 'uint8_t', torch.int8: 'int8_t', torch.int16: 'int16_t',
         torch.int32: 'int', torch.int64: 'int64_t', torch.float16: 'at::Half', torch.bfloat16: 'at::BFloat16',
         torch.float32: 'float', torch.float64: 'double'}
w.add('scalar_kind', torch.tensor([0 if isinstance(v, bool) else 1 if isinstance(v, int) else 2 for v in SCALARS]))
w.add('scalar_int', torch.tensor([v if isinstance(v, int) else 0 for v in SCALARS], dtype=torch.int64))
w.add('scalar_float', torch.tensor([v if isinstance(v, float) else 0. for v in SCALARS], dtype=torch.float64))


def stored(make, message):
    """Whether each scalar is accepted, and the element stored (0 if not)."""
    ok, vals = [], []
    for v in SCALARS:
        try:
            vals.append(make(v))
            ok.append(True)
        except RuntimeError as e:
            assert str(e) == message, (v, str(e))
            ok.append(False)
            vals.append(torch.zeros((), dtype=vals[0].dtype if vals else torch.float64))
    return torch.tensor(ok), torch.stack([x.to(vals[0].dtype) for x in vals])


def full_elem(v, dt):
    a = torch.full((3,), v, dtype=dt)
    one = torch.empty(1, dtype=dt).fill_(v)  # PyTorch fills one element on its own path
    assert same(a[:1], one) and same(a[:1], a[2:])
    return a[0]


for dt in DTYPES:
    ok, vals = stored(lambda v: full_elem(v, dt), 'value cannot be converted to type %s without overflow' % CNAME[dt])
    w.add('fill_ok_' + NAME[dt], ok)
    w.add('fill_' + NAME[dt], vals.to(dt))
    ok, vals = stored(lambda v: torch.tensor(v, dtype=dt),
                      'value cannot be converted to type %s without overflow' % str(dt)[6:])
    w.add('tensor_ok_' + NAME[dt], ok)
    w.add('tensor_' + NAME[dt], vals.to(dt))

# ---------------------------------------------------------------- layouts
#
# empty_like, clone and to() keep a dense input's strides and give any other
# input dense strides in its order of dims; contiguous() is itself or a
# contiguous copy. LAYOUTS builds the inputs; test_create.c builds the same.
# NAME_strides rows: the input's strides, then empty_like's, zeros_like's
# (int8), clone's, to(float64)'s and contiguous()'s.
BASE = torch.arange(120.).reshape(2, 3, 4, 5)
R100 = torch.arange(100.)
LAYOUTS = {
    'transposed': torch.arange(12.).reshape(3, 4).t(),
    'permuted': BASE.permute(2, 0, 3, 1),
    'sliced': torch.arange(24.).reshape(4, 6)[:, ::2],
    'sliced_t': torch.arange(24.).reshape(4, 6)[:, ::2].t(),
    'sliced_permuted': BASE[:, :, ::2].permute(3, 1, 0, 2),
    'expanded': torch.arange(3.).reshape(3, 1).expand(3, 4),
    'expanded_t': torch.arange(4.).reshape(1, 4).expand(3, 4).t(),
    'expanded_permuted': torch.arange(4.).reshape(4, 1, 1).expand(4, 2, 3).permute(2, 0, 1),
    'size1': torch.arange(12.).reshape(3, 1, 4).permute(1, 2, 0),
    'size1_unsqueezed': torch.arange(12.).reshape(3, 4).unsqueeze(1).permute(2, 1, 0),
    'empty_t': torch.zeros(0, 3).t(),
    'empty_permuted': torch.zeros(2, 0, 3).permute(2, 0, 1),
    'strided_a': torch.as_strided(R100, (3, 4), (1, 5)),
    'strided_b': torch.as_strided(R100, (2, 3, 4), (7, 1, 2)),
    'equal_strides': torch.as_strided(R100, (3, 2, 2), (2, 2, 1)),
    'size1_strides': torch.as_strided(R100, (1, 4, 1), (50, 1, 30)),
    'corner': torch.arange(12.).reshape(3, 4)[1:, 1:],
    'offset_dense': torch.arange(24.).reshape(2, 3, 4)[1],
    'scalar': torch.tensor(3.),
    'vector_step': torch.arange(10.)[::3],
}
for name, x in LAYOUTS.items():
    layouts = [x.stride(), torch.empty_like(x).stride(), torch.zeros_like(x, dtype=torch.int8).stride(), x.clone().stride(),
               x.to(torch.float64).stride(), x.contiguous().stride()]
    w.add('layout_%s_strides' % name, torch.tensor(layouts, dtype=torch.int64).reshape(6, x.dim()))
    w.add('layout_%s_values' % name, x.clone())

# ---------------------------------------------------------------- eye, diag, tril, triu

for n, m in [(0, 0), (1, 1), (3, 3), (2, 5), (5, 2), (4, 0), (0, 3)]:
    for dt in (torch.float32, torch.bool, torch.int8, torch.float16):
        w.add('eye_%d_%d_%s' % (n, m, NAME[dt]), torch.eye(n, m, dtype=dt))
VEC = torch.tensor([1.5, -2., 3.25, 4.])
MAT = torch.arange(12.).reshape(3, 4) - 5
for d in range(-4, 5):
    w.add('diag_vec_%d' % d, torch.diag(VEC, d))
for d in range(-3, 5):  # one step further either way is an error
    w.add('diag_mat_%d' % d, torch.diag(MAT, d))
    w.add('diag_mat_t_%d' % (d - 1), torch.diag(MAT.t(), d - 1))
w.add('diag_empty_2', torch.diag(torch.zeros(0), 2))
TRI = {'batched': torch.arange(24.).reshape(2, 3, 4) + 1, 'tall': torch.arange(12.).reshape(4, 3) + 1,
       'wide_t': (torch.arange(15.).reshape(5, 3) + 1).t(), 'empty': torch.zeros(2, 0, 3)}
for name, x in TRI.items():
    for k in range(-5, 6):
        w.add('tril_%s_%d' % (name, k), torch.tril(x, k))
        w.add('triu_%s_%d' % (name, k), torch.triu(x, k))
for dt in (torch.bool, torch.float16, torch.int64):
    x = (torch.arange(12).reshape(3, 4) % 3).to(dt)
    w.add('tril_dtype_%s' % NAME[dt], torch.tril(x, -1))
    w.add('triu_dtype_%s' % NAME[dt], torch.triu(x, 1))

# ---------------------------------------------------------------- copy_ across dtypes, broadcast

COPIES = [
    ('row', torch.zeros(2, 3, dtype=torch.int32), torch.tensor([1.7, -2.5, 300.2], dtype=torch.float64)),
    ('column_into_t', torch.zeros(3, 2, dtype=torch.bfloat16).t(), torch.tensor([[1.00390625], [-3.3]])),
    ('scalar_into_step', torch.zeros(5, dtype=torch.uint8)[::2], torch.tensor(-1)),
    ('bool_into_permuted', torch.zeros(2, 2, 2, dtype=torch.float16).permute(2, 0, 1), torch.tensor([True, False])),
    ('wrap', torch.zeros(5, dtype=torch.int8), torch.tensor([200, -200, 127, 128, 1000])),
    ('half_into_f64', torch.zeros(2, 2, dtype=torch.float64), torch.tensor([[65504., -0.], [6e-8, math.inf]],
                                                                            dtype=torch.float16)),
]
for name, dst, src in COPIES:
    dst.copy_(src)
    w.add('copy_%s_src' % name, src)
    w.add('copy_%s' % name, dst)

# ---------------------------------------------------------------- errors
#
# test_create.c checks that ctorch fails with these messages; this asserts
# them against PyTorch when the golden data is regenerated.
ERRORS = [
    ('torch.arange(0, 5, 0)', 'step must be nonzero'),
    ('torch.arange(0, 5, 0.5, dtype=torch.int64)', 'step must be nonzero'),
    ('torch.arange(0., 5., math.nan)', 'step must be nonzero'),
    ('torch.arange(0., 1e-40, 1e-50, dtype=torch.float16)', 'step must be nonzero'),
    ('torch.arange(0, math.inf)', 'unsupported range: 0 -> inf'),
    ('torch.arange(math.nan, 0.)', 'unsupported range: nan -> 0'),
    ('torch.arange(1.5, -math.inf, -1., dtype=torch.float16)', 'unsupported range: 1.5 -> -inf'),
    ('torch.arange(1e7, math.inf)', 'unsupported range: 1e+07 -> inf'),
    ('torch.arange(5, 0)', 'upper bound and larger bound inconsistent with step sign'),
    ('torch.arange(0., 5., -1.)', 'upper bound and larger bound inconsistent with step sign'),
    ('torch.arange(0., 1e300, 1e-300)', 'invalid size, possible overflow?'),
    ('torch.arange(0, 2.**63, 1.)', 'IntArrayRef contains an int that cannot be represented as a SymInt: '
                                    '-9223372036854775808'),
    ('torch.arange(0, 2**62, dtype=torch.int64)', 'Storage size calculation overflowed with sizes=[4611686018427387904]'),
    ('torch.arange(5, dtype=torch.bool)', '"arange_cpu" not implemented for \'Bool\''),
    ('torch.arange(0, 1e30, 1e25, dtype=torch.int64)', 'value cannot be converted to type int64_t without overflow'),
    ('torch.arange(0, math.inf, dtype=torch.int32)', 'value cannot be converted to type int64_t without overflow'),
    ('torch.arange(0, 1e40, 1e35, dtype=torch.float16)', 'value cannot be converted to type float without overflow'),
    ('torch.linspace(0., 1., -1)', 'number of steps must be non-negative'),
    ('torch.logspace(0., 1., -1)', 'number of steps must be non-negative'),
    ('torch.linspace(0., 1., 3, dtype=torch.bool)', '"linspace_cpu" not implemented for \'Bool\''),
    ('torch.logspace(0., 1., 3, dtype=torch.bool)', '"logspace_cpu" not implemented for \'Bool\''),
    ('torch.logspace(0., 1., 3, dtype=torch.float16)', '"logspace_cpu" not implemented for \'Half\''),
    ('torch.linspace(300., 5., 3, dtype=torch.uint8)', 'value cannot be converted to type uint8_t without overflow'),
    ('torch.linspace(5., 300., 3, dtype=torch.int8)', 'value cannot be converted to type int8_t without overflow'),
    ('torch.linspace(0., 1e5, 3, dtype=torch.float16)', 'value cannot be converted to type at::Half without overflow'),
    ('torch.linspace(-1., 5., 1, dtype=torch.uint8)', 'value cannot be converted to type uint8_t without overflow'),
    ('torch.linspace(0., math.nan, 3, dtype=torch.int32)', 'value cannot be converted to type int without overflow'),
    ('torch.logspace(3., 0., 1, 10., dtype=torch.uint8)', 'value cannot be converted to type uint8_t without overflow'),
    ('torch.logspace(0., 1e39, 3, dtype=torch.bfloat16)',
     'value cannot be converted to type at::BFloat16 without overflow'),
    ('torch.logspace(40., 1., 1, dtype=torch.float32)', 'value cannot be converted to type float without overflow'),
    ('torch.eye(-1)', 'n must be greater or equal to 0, got -1'),
    ('torch.eye(2, -1)', 'm must be greater or equal to 0, got -1'),
    ('torch.eye(-2, -1)', 'n must be greater or equal to 0, got -2'),
    ('torch.diag(torch.zeros(2, 2, 2))', 'matrix or a vector expected'),
    ('torch.diag(torch.tensor(3.))', 'matrix or a vector expected'),
    ('torch.diag(MAT, 5)', 'numel: integer multiplication overflow'),
    ('torch.diag(MAT, -4)', 'numel: integer multiplication overflow'),
    ('torch.tril(torch.zeros(3))', 'Dimension out of range (expected to be in range of [-1, 0], but got -2)'),
    ('torch.triu(torch.tensor(3.))', 'Dimension specified as -2 but tensor has no dimensions'),
    ('torch.full((2, -1), 1.)', 'Trying to create tensor with negative dimension -1: [2, -1]'),
    ('torch.zeros((-3,))', 'Trying to create tensor with negative dimension -3: [-3]'),
    ('torch.full((2,), 256, dtype=torch.uint8)', 'value cannot be converted to type uint8_t without overflow'),
    ('torch.full_like(torch.zeros(2, dtype=torch.int32), 1e10)', 'value cannot be converted to type int without overflow'),
    ('torch.tensor(300, dtype=torch.uint8)', 'value cannot be converted to type uint8 without overflow'),
    ('torch.tensor(-2.5, dtype=torch.uint8)', 'value cannot be converted to type uint8 without overflow'),
    ('torch.zeros(2, 3).copy_(torch.zeros(4))',
     'The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1'),
    ('torch.zeros(3).copy_(torch.zeros(2, 3))', "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    ('torch.zeros(3, 1).expand(3, 4).copy_(torch.zeros(4))',
     'unsupported operation: more than one element of the written-to tensor refers to a single memory location. '
     'Please clone() the tensor before performing the operation.'),
]
for code, message in ERRORS:
    try:
        eval(code)
    except (RuntimeError, IndexError) as e:
        assert str(e) == message, (code, str(e))
    else:
        raise AssertionError(code + ' did not fail')

w.save()
