"""Golden data for tests/test_print.c: tensors and PyTorch's repr of them.

Run with /usr/bin/python3 (Debian's PyTorch 1.13) from any directory. Writes
  print.ctg  one tensor per case, named as the case (format: ctg.py)
  print.txt  the cases, in order, each a header line and the expected text:

    <name> <precision> <threshold> <edgeitems> <linewidth> <sci_mode> <default> <grad> <view> <nbytes>\\n
    <nbytes bytes: repr(x)>\\n

  precision, threshold, edgeitems, linewidth: torch.set_printoptions' values
      (threshold=inf is written as 9223372036854775807, which prints alike);
  sci_mode: 0 for None, 1 for True, -1 for False;
  default: the default dtype while printing, float32 or float64;
  grad: 1 when x requires grad;
  view: how x is made from the stored tensor t, to print strided data:
      none     x = t
      t        x = t.transpose(0, 1)
      step2    x = t[..., ::2]
      expand   x = t.expand(3, *t.shape[1:])     (t.shape[0] == 1)
      offset   x = t[1:]
      huge     x = t.expand(100000, 100000, *t.shape[2:])   (t.shape[:2] == (1, 1))
A case with grad is printed as x.detach().requires_grad_() (a leaf).
"""
import math
import os

import torch

from ctg import Writer

HERE = os.path.dirname(os.path.abspath(__file__))
INT64_MAX = 9223372036854775807
DEFAULT_OPTS = dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)
VIEWS = {
    'none': lambda t: t,
    't': lambda t: t.transpose(0, 1),
    'step2': lambda t: t[..., ::2],
    'expand': lambda t: t.expand(3, *t.shape[1:]),
    'offset': lambda t: t[1:],
    'huge': lambda t: t.expand(100000, 100000, *t.shape[2:]),
}

writer = Writer(os.path.join(HERE, 'print.ctg'))
cases = []


group = ''


def case(name, t, view='none', grad=False, default=torch.float32, **opts):
    name = group + '/' + name
    o = dict(DEFAULT_OPTS, **opts)
    torch.set_printoptions(**o)
    torch.set_default_dtype(default)
    try:
        x = VIEWS[view](t)
        if grad:
            x = x.detach().requires_grad_()
        text = repr(x)
    finally:
        torch.set_printoptions(profile='default', sci_mode=None)
        torch.set_default_dtype(torch.float32)
    writer.add(name, t)
    sci = {None: 0, True: 1, False: -1}[o['sci_mode']]
    threshold = INT64_MAX if o['threshold'] == math.inf else int(o['threshold'])
    body = text.encode()
    header = '%s %d %d %d %d %d %s %d %s %d' % (
        name, o['precision'], threshold, o['edgeitems'], o['linewidth'], sci,
        str(default).replace('torch.', ''), int(grad), view, len(body))
    cases.append(header.encode() + b'\n' + body + b'\n')


def f32(*v):
    return torch.tensor(v, dtype=torch.float32)


def f64(*v):
    return torch.tensor(v, dtype=torch.float64)


nan, inf = math.nan, math.inf

# ---------------------------------------------------------------- the seed notes' outputs
group = 'seed'
case('float', torch.tensor([1, 2, 3], dtype=torch.float))
case('arange', torch.arange(1, 10, step=2))
case('linspace', torch.linspace(0.0, 2 * 3.14, 10))
case('zeros', torch.zeros((3, 3)))
case('ones_int', torch.ones((3, 3), dtype=torch.int))
torch.manual_seed(0)
case('rand', 0 + 10 * torch.rand([5]))
torch.manual_seed(0)
seed_t = torch.floor(0 + 10 * torch.rand([5, 5])).int()
case('int_block', seed_t)
case('int_row', seed_t[0])
case('int_scalar', seed_t[1, 3])
case('int_rows', seed_t[1:4, :4:2].contiguous())
seed_scores = torch.floor(0 + 100 * torch.rand([4, 10, 7])).int()
case('scores', seed_scores)
case('scores_select', torch.index_select(seed_scores, 1, torch.tensor([0, 5, 9])))
case('grad_block', torch.tensor([[1., 2.], [0., 0.]]), grad=True)
case('arange27', torch.arange(27).view(3, 3, 3)[..., 1].contiguous())
torch.manual_seed(0)
seed_a = (0 + 255 * torch.rand([1, 3, 3, 2])).int()
case('4d', seed_a)
case('4d_view', seed_a.view([3, 6]))
case('row', torch.tensor([[1.0, 2.0]]))
case('cat', torch.cat([torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[5.0, 6.0], [7.0, 8.0]]),
                            torch.tensor([[9.0, 10.0], [11.0, 12.0]])]))
case('stack', torch.stack([torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[5.0, 6.0], [7.0, 8.0]]),
                                torch.tensor([[9.0, 10.0], [11.0, 12.0]])]))
case('round', torch.round(torch.tensor([2.6, -2.7])))
case('fmod', torch.fmod(torch.tensor([2.6, -2.7]), 2))
case('remainder', torch.remainder(torch.tensor([2.6, -2.7]), 2))
case('clamp', torch.clamp(torch.tensor([0.9, -0.8, 100.0, -20.0, 0.7]), max=1))
case('sum', torch.arange(1, 10).float().sum())
case('prod', torch.arange(1, 10).float().prod())
case('std', torch.arange(1, 10).float().std())
case('var', torch.arange(1, 10).float().var())
case('cumsum', torch.arange(1, 10).cumsum(0))
case('cumprod', torch.arange(1, 10).cumprod(0))
case('matrix_t', torch.tensor([[1, 2, 3], [4, 5, 6]]), view='t')
case('inverse', torch.inverse(torch.tensor([[1.0, 2], [3, 4]])))

# ---------------------------------------------------------------- floating formats
group = 'float'
case('int_mode', f32(1, -2, 300))
case('int_mode_0d', torch.tensor(362880.))
case('int_mode_1e8', f32(1e8, 1e6))
case('int_mode_big_sci', f32(1e9, 1))
case('int_mode_ratio_1000', f32(1, 1000))
case('int_mode_ratio_1001', f32(1, 1001))
case('fixed', f32(0.1, -0.25, 12.5))
case('fixed_ratio_sci', f32(0.002, 2.5))
case('fixed_min_sci', f32(1e-5, 1.5))
case('fixed_1e-4_f32', f32(1e-4, 0.5))  # float32's 1e-4 lies below 1e-4
case('fixed_1e-4_f64', f64(1e-4, 0.5))
case('fixed_neg', f32(-0.5, -123.25, 7))
case('nan_only', f32(nan))
case('nan_int', f32(nan, 1, 2))
case('nan_fixed', f32(nan, -nan, 1.5))
case('inf_mix', f32(inf, -inf, nan, 0))
case('inf_fixed', f32(inf, 1.5, -inf))
case('inf_sci', f32(inf, 1e-7, 1))
case('neg_zero', f32(-0.0, 1))
case('neg_zero_only', f32(-0.0, 0.0))
case('neg_zero_fixed', f32(-0.0, 0.5))
case('neg_zero_0d', torch.tensor(-0.0))
case('nan_0d', torch.tensor(nan))
case('neginf_0d', torch.tensor(-inf))
case('zeros_0d', torch.tensor(0.))
case('tiny_f32', f32(1e-30, 3e-38, 1.4e-45))
case('tiny_f64', f64(5e-324, 1e-310, 1))
case('huge_f32', f32(3.4e38, -1e38, 1))
case('huge_f64', f64(1.7e308, 1e300))
case('ratio_overflow_f64', f64(1e-300, 1e300))
case('huge_int_mode_fixed', f64(1e20, 2e20), sci_mode=False)
case('half_ties', f64(0.125, 0.375, 2.5, 0.0625), precision=2)
case('rounding', f64(0.00005, 0.00015, 0.99995, 9.99995))
case('round_up_width', f32(9.99996, 0.5))
torch.manual_seed(1)
randn34 = torch.randn(3, 4)
case('randn_2d', randn34)
case('randn_3d', torch.randn(2, 3, 4))
case('randn_4d', torch.randn(2, 2, 2, 3))
case('randn_5d', torch.randn(2, 1, 2, 1, 3))
case('randn_6d', torch.randn(1, 2, 1, 2, 1, 2))
case('rand_scaled', torch.rand(6) * 1000)
case('randn_f64', torch.randn(5, dtype=torch.float64))
case('randn_f64_prec10', torch.randn(5, dtype=torch.float64), precision=10)
case('randn_f32_prec8', torch.randn(3, 3), precision=8)
case('prec1', f32(0.25, 0.35, 1.05), precision=1)
case('prec2_sci', f32(1e-6, 1), precision=2)
case('prec12', f64(1 / 3, 2 / 3, 1e-3), precision=12)
case('prec20_f32', f32(0.1), precision=20)
case('big_prec_huge', f64(1e300, -1e299), precision=40, sci_mode=False)

# sci_mode set by the user
group = 'sci'
case('on_fixed', f32(0.5, 1.25), sci_mode=True)
case('on_int', f32(1, 2, 3), sci_mode=True)
case('on_zeros', f32(0, 0), sci_mode=True)
case('on_nan_zero', f32(0, nan), sci_mode=True)
case('off_int_big', f32(1, 1e10), sci_mode=False)
case('off_tiny', f32(1e-5, 1), sci_mode=False)
case('off_ratio', f32(0.001, 25.5), sci_mode=False)
case('auto', f32(1e-8, 1e8))
case('2d', torch.tensor([[1e-5, 1.0], [123.0, -4e4]]))
case('0d', torch.tensor(1e-10))
case('on_0d_int', torch.tensor(5.), sci_mode=True)

# float16 and bfloat16 (printed through float32)
group = 'half'
case('f16', torch.tensor([1.5, -2.25, 65504], dtype=torch.float16))
case('f16_int', torch.tensor([1, 2, 3], dtype=torch.float16))
case('f16_sub', torch.tensor([6e-8, 1e-5, 1], dtype=torch.float16))
case('f16_inf', torch.tensor([inf, nan, 0.1], dtype=torch.float16))
case('f16_0d', torch.tensor(0.1, dtype=torch.float16))
case('f16_randn', torch.randn(2, 3).half())
case('bf16', torch.tensor([1.5, -2.25, 3e38], dtype=torch.bfloat16))
case('bf16_fixed', torch.tensor([0.1, 0.2, 0.3], dtype=torch.bfloat16))
case('bf16_0d', torch.tensor(-7, dtype=torch.bfloat16))
case('bf16_randn', torch.randn(4, 2).bfloat16())

# ---------------------------------------------------------------- integral and bool
group = 'int'
case('u8', torch.tensor([0, 7, 255], dtype=torch.uint8))
case('i8', torch.tensor([-128, 5, 127], dtype=torch.int8))
case('i16', torch.tensor([[-32768, 1], [2, 32767]], dtype=torch.int16))
case('i32', torch.tensor([-2147483648, 0, 2147483647], dtype=torch.int32))
case('i64', torch.tensor([-9223372036854775808, 0, 9223372036854775807]))
case('i64_neg', torch.tensor([[-1, 10], [100, -1000]]))
case('u8_0d', torch.tensor(200, dtype=torch.uint8))
case('i32_0d', torch.tensor(4, dtype=torch.int32))
case('i64_0d', torch.tensor(-12))
case('bool', torch.tensor([True, False, True]))
case('bool_2d', torch.tensor([[True, False], [False, False]]))
case('bool_0d', torch.tensor(False))
case('bool_summary', torch.arange(1200) % 3 == 0)
case('randint', torch.randint(-50, 50, (4, 6), dtype=torch.int32))

# ---------------------------------------------------------------- empty tensors
group = 'empty'
case('1d', torch.zeros(0))
case('2d', torch.zeros(0, 3))
case('3d_i32', torch.zeros(2, 0, 3, dtype=torch.int32))
case('i64', torch.zeros(0, dtype=torch.int64))
case('bool', torch.zeros(0, dtype=torch.bool))
case('f16', torch.zeros(4, 0, dtype=torch.float16))
case('f64', torch.zeros(0, dtype=torch.float64))
case('f64_default', torch.zeros(0, dtype=torch.float64), default=torch.float64)
case('f32_default64', torch.zeros(0, 2), default=torch.float64)
case('grad', torch.zeros(0, 3), grad=True)

# ---------------------------------------------------------------- line width
group = 'wrap'
case('f32', torch.randn(30))
case('i64', torch.arange(100))
case('float_ints', torch.arange(40).float())
case('2d', torch.randn(3, 25))
case('3d', torch.arange(2 * 2 * 40).view(2, 2, 40))
case('lw40', torch.randn(12), linewidth=40)
case('lw120', torch.randn(2, 30), linewidth=120)
case('lw200', torch.arange(120), linewidth=200)
case('lw10', torch.randn(4), linewidth=10)
case('lw1', torch.arange(5).view(1, 5), linewidth=1)
case('lw_neg', f32(1, 2, 3), linewidth=-5)
case('exact', torch.arange(10, 28), linewidth=80)  # 18 items of width 2 + 2
case('sci', torch.randn(20) * 1e-6)

# ---------------------------------------------------------------- summarization
group = 'summary'
case('1d_i64', torch.arange(1001))
case('1d_f32', torch.randn(1001))
case('2d', torch.randn(40, 30))
case('2d_int', torch.arange(1600, dtype=torch.int32).view(40, 40))
case('rows_kept', torch.arange(1200, dtype=torch.int16).view(4, 300))
case('3d', torch.arange(2 * 300 * 2).view(2, 300, 2).float())
case('3d_all', torch.arange(10 * 10 * 11, dtype=torch.int16).view(10, 10, 11))
case('4d', torch.randn(6, 6, 6, 6))
case('threshold10', torch.arange(11), threshold=10)
case('threshold10_2d', torch.arange(12).view(3, 4), threshold=10)
case('threshold_neg', torch.arange(12).view(2, 6), threshold=-1)
case('edge1', torch.arange(1100, dtype=torch.int16).view(11, 100), edgeitems=1)
case('edge2_3d', torch.arange(1200, dtype=torch.int16).view(6, 10, 20), edgeitems=2)
case('edge5', torch.randn(1001), edgeitems=5)
case('edge_big', torch.arange(1500, dtype=torch.int16).view(3, 500), edgeitems=250, linewidth=200)
case('width_from_edges', torch.cat([torch.tensor([1.5]), torch.full((1000,), 1e6), torch.tensor([2.5])]))
case('middle_ignored', torch.cat([torch.ones(3), torch.full((1000,), 1e-9), torch.ones(3)]))
case('full_profile', torch.arange(1100).view(11, 100), threshold=inf)
case('0d', torch.tensor(3.5), threshold=-1)

# ---------------------------------------------------------------- dtype and grad suffixes
group = 'suffix'
case('default32_f32', f32(1, 2.5))
case('default64_f32', f32(1, 2.5), default=torch.float64)
case('default64_f64', f64(1, 2.5), default=torch.float64)
case('default32_f64', f64(1, 2.5))
case('default64_f32_0d', torch.tensor(2.), default=torch.float64)
case('default64_i64', torch.tensor([1, 2]), default=torch.float64)
case('grad_1d', f32(1, 2), grad=True)
case('grad_0d', torch.tensor(3.), grad=True)
case('grad_f64', f64(1, 2), grad=True)
case('grad_f16', torch.tensor([1, 2], dtype=torch.float16), grad=True)
case('grad_long_line', torch.randn(7), grad=True)
case('grad_wrap', torch.randn(2, 7), grad=True)
case('grad_dtype_wrap', torch.randn(8, dtype=torch.float64), grad=True)
case('wrap_lw30', torch.tensor([1, 2, 3], dtype=torch.int32), linewidth=30)
case('wrap_lw20', torch.tensor([1, 2, 3], dtype=torch.int32), linewidth=20)
case('both_wrap', torch.randn(3, dtype=torch.float64), grad=True, linewidth=40)
case('empty_wrap', torch.zeros(0, 3, dtype=torch.int32), linewidth=25)
case('exact_fit', torch.tensor([10, 20, 30, 40, 50, 60, 70, 80, 90, 100], dtype=torch.int32))
for lw in range(55, 65):
    case('fit_lw%d' % lw, torch.arange(10, 19, dtype=torch.int16), linewidth=lw)

# ---------------------------------------------------------------- strided inputs
group = 'view'
case('t', torch.arange(12).view(3, 4).float() / 4, view='t')
case('t_3d', torch.randn(2, 3, 2), view='t')
case('step2', torch.arange(20, dtype=torch.int16).view(2, 10), view='step2')
case('expand', torch.tensor([[1.5, -2.0, 3.0]]), view='expand')
case('offset', torch.arange(9).view(3, 3) - 4, view='offset')
case('t_summary', torch.arange(1100, dtype=torch.int32).view(22, 50), view='t')
case('step2_summary', torch.randn(2010), view='step2')
case('t_grad', torch.randn(2, 3), view='t', grad=True)
case('huge', torch.tensor([[[1.5, -2, 3, 4, 5, 6, 7.25]]]), view='huge')
case('huge_i32', torch.arange(7, dtype=torch.int32).view(1, 1, 7), view='huge', linewidth=40)

writer.save()
with open(os.path.join(HERE, 'print.txt'), 'wb') as f:
    f.write(b''.join(cases))
