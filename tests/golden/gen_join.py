"""Golden data for the join family: cat, stack, split, gather, scatter,
index_*, masked_*, take, one_hot and the rest, over every dtype, negative
dims, empty and 0-d tensors, non-contiguous inputs and PyTorch's errors.

Writes join.ctg and join.txt, one case a line:
    <op>|<form>|<arg>|<arg>...|=<result>[;<result>...]
    <op>|<form>|<arg>|<arg>...|ERR <Type>|<message>
form: f (returns a new tensor), i (in place on the first argument, whose
values are the result), plus letters the C test reads per op (s: a number
instead of a tensor, r: with reduce, d: with dim, a: with alpha, ...).
An argument is
    t:<name>[~<views>]  a stored tensor, seen through views applied in order:
                        T transpose(-2, -1), S [::2] along dim 0,
                        P the last dim moved to dim 1 (channels-last for 4-D/5-D),
                        E<a,b,..> expand to that shape
    l:<arg>;<arg>;...   a list of tensors (l: is the empty list)
    i:<int>  s:<ints, comma-separated>  r:<string>
    ni:<int> nf:<float> nb:<0|1>   a Python number
A result is <name>@<strides>@<storage offset>, checked value for value
(bit-exact) and for layout; in-place results name the modified first argument.
"""
import random
import warnings

import torch

from ctg import Writer

warnings.filterwarnings('ignore')  # deprecation notes on uint8 masks and expanded outputs

w = Writer('join.ctg')
lines = []
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
SHORT = {torch.bool: 'b8', torch.uint8: 'u8', torch.int8: 'i8', torch.int16: 'i16', torch.int32: 'i32',
         torch.int64: 'i64', torch.float16: 'f16', torch.bfloat16: 'bf16', torch.float32: 'f32', torch.float64: 'f64'}
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
g = torch.Generator().manual_seed(0)
T = torch.tensor
L = torch.long


def values(dt, shape, lo=-6, hi=7):
    """Small random values of dtype dt (floats with a fractional part)."""
    n = 1
    for s in shape:
        n *= s
    if dt == torch.bool:
        return (torch.rand(n, generator=g) > 0.5).view(shape)
    if dt == torch.uint8:
        lo = max(lo, 0)
    if not dt.is_floating_point:
        return torch.randint(lo, hi, (n,), generator=g).to(dt).view(shape)
    return (torch.rand(n, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dt).view(shape)


def apply_views(t, views):
    for v in views:
        if v == 'T':
            t = t.transpose(-2, -1)
        elif v == 'S':
            t = t[::2]
        elif v == 'P':
            t = t.movedim(-1, 1)
        elif v.startswith('E'):
            t = t.expand(*[int(x) for x in v[1:].split(',')])
    return t


ninputs = 0


class Arg:
    def __init__(self, enc, val):
        self.enc, self.val = enc, val


def tn(t, views=(), fresh=False):
    """A stored tensor argument seen through views; fresh: a copy to write in place."""
    global ninputs
    ninputs += 1
    name = 'x%d_%s' % (ninputs, SHORT[t.dtype])
    w.add(name, t)
    val = apply_views(t.clone() if fresh else t, views)
    return Arg('t:' + name + ('~' + '~'.join(views) if views else ''), val)


def tl(*args):
    return Arg('l:' + ';'.join(a.enc[2:] for a in args), [a.val for a in args])


def ia(v):
    return Arg('i:%d' % v, v)


def sa(v):
    return Arg('s:' + ','.join(str(x) for x in v), tuple(v))


def ra(v):
    return Arg('r:' + v, v)


def num(v):
    if isinstance(v, bool):
        return Arg('nb:%d' % v, v)
    if isinstance(v, int):
        return Arg('ni:%d' % v, v)
    return Arg('nf:%r' % v, v)


def err(e):
    return 'ERR %s|%s' % (type(e).__name__, str(e).replace('\n', '\\n'))


nres = 0


def result(t):
    global nres
    nres += 1
    name = 'r%d' % nres
    w.add(name, t)
    return '%s@%s@%d' % (name, ','.join(str(s) for s in t.stride()), t.storage_offset())


def rec(op, form, args, f):
    """Record f(*values), or PyTorch's error; an in-place form's result is its first argument."""
    vals = [a.val for a in args]
    try:
        r = f(*vals)
        if form.startswith('i'):
            r = vals[0]
        out = '=' + ';'.join(result(x) for x in r) if isinstance(r, (list, tuple)) else '=' + result(r)
    except Exception as e:  # pylint: disable=broad-except
        out = err(e)
    lines.append('|'.join([op, form] + [a.enc for a in args] + [out]))


def both(op, form, self_t, views, rest, f, f_):
    """The functional form on self and the in-place form on a fresh copy."""
    rec(op, 'f' + form, [tn(self_t, views)] + rest, f)
    rec(op, 'i' + form, [tn(self_t, views, fresh=True)] + rest, f_)


# ---------------------------------------------------------------- cat, stack, hstack, vstack

a = T([[1., 2.], [3., 4.]])
b = T([[5., 6.], [7., 8.]])
c = T([[9., 10.], [11., 12.]])
for d in [0, 1, -1, -2, 2, -3]:
    rec('cat', 'f', [tl(tn(a), tn(b), tn(c)), ia(d)], torch.cat)
    rec('stack', 'f', [tl(tn(a), tn(b), tn(c)), ia(d)], torch.stack)
for da in DTYPES:
    for db in DTYPES:
        rec('cat', 'f', [tl(tn(values(da, (2, 3))), tn(values(db, (1, 3)))), ia(0)], torch.cat)
    rec('cat', 'f', [tl(tn(values(da, (3, 2)), ['T']), tn(values(da, (4, 3)), ['S']), tn(values(da, (2, 2)))), ia(-1)],
        torch.cat)
    rec('stack', 'f', [tl(tn(values(da, (3,))), tn(values(da, (3,)))), ia(1)], torch.stack)
    rec('stack', 'f', [tl(tn(values(da, (2, 3)), ['T']), tn(values(da, (3, 2)))), ia(1)], torch.stack)
    rec('hstack', 'f', [tl(tn(values(da, (2, 1))), tn(values(da, (2, 3))))], torch.hstack)
    rec('vstack', 'f', [tl(tn(values(da, (3,))), tn(values(da, (2, 3))))], torch.vstack)
x23 = values(torch.float32, (2, 3))
for lst, d in [([torch.empty(0), x23], 0), ([x23, torch.empty(0, dtype=L)], 1), ([torch.empty(0), torch.empty(0, dtype=L)], 3),
               ([torch.empty(0, 2), torch.empty(0)], 0), ([torch.empty(2, 0), x23], 1), ([torch.empty(2, 0), values(torch.float32, (3, 3))], 1),
               ([torch.empty(0, 3), x23], 0), ([torch.empty(0, 3), x23], 1), ([x23, torch.empty(0)], 5),
               ([T(1.), T(2.)], 0), ([T([1.]), T(2.)], 0), ([T([1, 2]), T([[1, 2]])], 0), ([T([[1, 2]]), T([1, 2])], 0),
               ([T([[1, 2]]), T([[1, 2, 3]])], 0), ([T([[1, 2]]), torch.empty(0), T([[1, 2, 3]])], 0), ([x23], 0), ([x23], -3),
               ([T([True]), T([2])], 0), ([T([1], dtype=torch.uint8), T([-2], dtype=torch.int8)], 0),
               ([T([1.5], dtype=torch.float16), T([2.5], dtype=torch.bfloat16)], 0)]:
    rec('cat', 'f', [tl(*[tn(t) for t in lst]), ia(d)], torch.cat)
rec('cat', 'f', [tl(), ia(0)], torch.cat)
# channels-last inputs give a channels-last result, mixed ones a contiguous one
for views in [(['P'], ['P']), (['P'], []), ([], [])]:
    rec('cat', 'f', [tl(tn(values(torch.float32, (2, 3, 4, 5)), views[0]), tn(values(torch.float32, (2, 3, 4, 2)), views[1])),
                     ia(1)], torch.cat)
rec('cat', 'f', [tl(tn(values(torch.float32, (1, 2, 3, 2, 3)), ['P']), tn(values(torch.float32, (1, 2, 3, 2, 3)), ['P'])), ia(0)],
    torch.cat)
rec('cat', 'f', [tl(tn(values(torch.float32, (2, 2, 2, 3)), ['P']), tn(torch.empty(0)), tn(values(torch.float32, (2, 2, 2, 3)), ['P'])),
                 ia(0)], torch.cat)
rec('stack', 'f', [tl(tn(values(torch.float32, (2, 2, 2, 3)), ['P']), tn(values(torch.float32, (2, 2, 2, 3)), ['P'])), ia(0)],
    torch.stack)
for lst, d in [([T(1), T(2.)], 0), ([T(1), T(2.)], -1), ([T(1), T(2.)], 1), ([T([1, 2]), T([1, 2, 3])], 0),
               ([T([[1, 2]]), T([1, 2])], 0), ([torch.empty(0), torch.empty(0)], 0), ([torch.empty(0), torch.empty(0)], 1),
               ([torch.empty(0), torch.empty(0, 2)], 0), ([x23, x23], 3), ([x23, x23], -4), ([x23], 2)]:
    rec('stack', 'f', [tl(*[tn(t) for t in lst]), ia(d)], torch.stack)
rec('stack', 'f', [tl(), ia(0)], torch.stack)
for op, f in [('hstack', torch.hstack), ('vstack', torch.vstack)]:
    for lst in [[], [T(1), T(2)], [T([1, 2]), T([[3]])], [T([[1, 2]]), T([[3]])], [T([1, 2]), T([[3, 4]])], [T([1, 2]), T([[3]])],
                [torch.empty(0), T([[3.]])], [torch.ones(2, 2, 2), torch.ones(1, 2, 2)], [torch.ones(2, 2, 2), torch.ones(2, 1, 2)],
                [T(1), T([2., 3.])]]:
        rec(op, 'f', [tl(*[tn(t) for t in lst])], f)

# ---------------------------------------------------------------- split, chunk, unbind, broadcast_tensors

abc = torch.cat([a, b, c])
for size, d in [(2, 0), (4, 0), (7, 0), (1, 1), (1, -1), (0, 0), (-1, 0), (1, 2), (-1, 5), (3, -2)]:
    rec('split', 'f', [tn(abc), ia(size), ia(d)], torch.split)
for t, size, d in [(torch.empty(0, 2), 0, 0), (torch.empty(0, 2), 3, 0), (T(1.), 1, 0), (T(1.), -1, 5)]:
    rec('split', 'f', [tn(t), ia(size), ia(d)], torch.split)
for dt in DTYPES:
    rec('split', 'f', [tn(values(dt, (5, 4)), ['T']), ia(2), ia(0)], torch.split)
    rec('split', 'f', [tn(values(dt, (6, 3)), ['S']), ia(2), ia(1)], torch.split)
    rec('split_with_sizes', 'f', [tn(values(dt, (3, 6)), ['T']), sa([1, 3, 2]), ia(0)], torch.split)
    rec('chunk', 'f', [tn(values(dt, (3, 5))), ia(2), ia(1)], torch.chunk)
    rec('unbind', 'f', [tn(values(dt, (3, 2)), ['T']), ia(1)], torch.unbind)
for sizes, d in [([4, 1, 1], 0), ([4, 1], 0), ([4, 3, -1], 0), ([-1, 7], 0), ([6, 0], 0), ([0, 6, 0], 0), ([], 0),
                 ([4, 1], -2), ([4, 1], 5), ([1, 1], 1), ([2], -1)]:
    rec('split_with_sizes', 'f', [tn(abc), sa(sizes), ia(d)], torch.split)
rec('split_with_sizes', 'f', [tn(torch.empty(0)), sa([]), ia(0)], torch.split)
rec('split_with_sizes', 'f', [tn(T(1.)), sa([1]), ia(0)], torch.split)
for t, k, d in [(abc, 3, 0), (abc, 4, 0), (abc, 5, 0), (abc, 7, 0), (abc, 1, 1), (abc, 2, -1), (abc, 0, 0), (abc, -2, 0),
                (abc, 2, 3), (torch.empty(0, 2), 3, 0), (torch.empty(2, 0), 3, 1), (torch.empty(2, 0), 3, 0), (T(1.), 1, 0),
                (T(1.), 0, 5)]:
    rec('chunk', 'f', [tn(t), ia(k), ia(d)], torch.chunk)
for t, d in [(abc, 0), (abc, 1), (abc, -1), (abc, -2), (abc, 2), (T(1.), 0), (T(1.), -1), (T(1.), 1), (torch.empty(0, 2), 0),
             (torch.empty(0, 2), 1), (values(torch.int32, (2, 3, 2)), 1)]:
    rec('unbind', 'f', [tn(t), ia(d)], torch.unbind)
for lst in [[T([1, 2, 3]), T([[0, 0, 0], [1, 1, 1], [2, 2, 2]])], [T([1, 2, 3]), T([[0, 0], [1, 1]])],
            [T([1, 2, 3]), T([1, 2, 3]), T([[0, 0], [1, 1]])], [T([[1], [2]]), T([1, 2, 3]), T([[0, 0], [1, 1]])],
            [], [T(1)], [T(1), torch.empty(0, 3)], [T([1.]), T([2])], [T([[1], [2]]), T([1, 2, 3]), T(5.)]]:
    rec('broadcast_tensors', 'f', [tl(*[tn(t) for t in lst])], lambda l: torch.broadcast_tensors(*l))
rec('broadcast_tensors', 'f', [tl(tn(values(torch.int16, (3, 2)), ['T']), tn(values(torch.float16, (4, 1, 1))))],
    lambda l: torch.broadcast_tensors(*l))

# ---------------------------------------------------------------- repeat, tile, repeat_interleave

x = torch.arange(6.).view(2, 3)
for reps in [(2,), (2, 2), (1, 2, 2), (0, 2), (-1, 2), (2, -1), (-1, 2, 0), (1, 1), (3, 1), (2, 1, 3, 1)]:
    rec('repeat', 'f', [tn(x), sa(reps)], lambda t, r: t.repeat(*r))
    rec('tile', 'f', [tn(x), sa(reps)], torch.tile)
for t, reps in [(T(1), (3,)), (T(1), (2, 3)), (torch.empty(0, 2), (2, 2)), (torch.empty(0, 2), (-1, 1)),
                (values(torch.float32, (1, 2, 1, 2, 1, 2, 1, 2, 1)), (2, 1, 2, 1, 2, 1, 2, 1, 2))]:
    rec('repeat', 'f', [tn(t), sa(reps)], lambda t, r: t.repeat(*r))
    rec('tile', 'f', [tn(t), sa(reps)], torch.tile)
rec('repeat', 'f', [tn(values(torch.int8, (2, 2, 2, 2, 2, 2, 2, 2, 2))), sa((2, 2, 2, 2, 2, 2, 2, 2, 2))],
    lambda t, r: t.repeat(*r))
rec('tile', 'f', [tn(x), sa(())], torch.tile)
for dt in DTYPES:
    rec('repeat', 'f', [tn(values(dt, (3, 2)), ['T']), sa((2, 1, 2))], lambda t, r: t.repeat(*r))
    rec('tile', 'f', [tn(values(dt, (4, 3)), ['S']), sa((2,))], torch.tile)
    rec('repeat_interleave', 'f', [tn(values(dt, (2, 3))), ia(2)], torch.repeat_interleave)
    rec('repeat_interleave', 'fd', [tn(values(dt, (3, 2)), ['T']), ia(2), ia(1)], torch.repeat_interleave)
    rec('repeat_interleave', 'ftd', [tn(values(dt, (2, 3))), tn(T([1, 0, 2])), ia(-1)], torch.repeat_interleave)
RI = torch.repeat_interleave
for args in [(x, 2, 0), (x, 2, -1), (x, 0, 1), (x, -1, 1), (x, 2, 2), (x, 2, -3), (T(5.), 2, 0), (T(5.), 2, -1),
             (torch.empty(0, 3), 2, 0)]:
    rec('repeat_interleave', 'fd', [tn(args[0]), ia(args[1]), ia(args[2])], RI)
for args in [(x, 3), (T(5.), 2), (torch.empty(0, 3), 2), (x, 0), (x, -2)]:
    rec('repeat_interleave', 'f', [tn(args[0]), ia(args[1])], lambda t, r: RI(t, r))
for rep, d in [(T([1, 2]), 0), (T([1, 2], dtype=torch.int32), 0), (T([1, 2, 3]), 0), (T([1, 2, 3]), 1), (T([2]), 1), (T(2), 0),
               (T([[2]]), 0), (T([1., 2.]), 0), (T([1, -2]), 0), (T([1, 2], dtype=torch.int16), 0), (T([1, 2]), 2),
               (T([], dtype=L), 0), (T([0, 0]), 0), (T([0, 3], dtype=torch.int32), 0)]:
    rec('repeat_interleave', 'ftd', [tn(x), tn(rep), ia(d)], RI)
for rep in [T([1, 2, 3]), T([1, 2, 3, 1, 1, 1]), T([2]), T(2), T([[2]]), T([1.]), T([0, 0, 0, 0, 0, 1])]:
    rec('repeat_interleave', 'ft', [tn(x), tn(rep)], RI)
rec('repeat_interleave', 'ftd', [tn(torch.empty(0, 3)), tn(T([], dtype=L)), ia(0)], RI)
for rep in [T([1, 2, 3]), T([1, 2, 3], dtype=torch.int32), T(3), T([[3]]), T([-1]), T([1.]), T([], dtype=L),
            T([], dtype=torch.int32), T([0, 4, 0, 1]), T([1], dtype=torch.uint8)]:
    rec('repeat_interleave', 'fi', [tn(rep)], RI)
rec('repeat_interleave', 'fi', [tn(T([2, 1, 0, 3, 1, 2]), ['S'])], RI)

# ---------------------------------------------------------------- flip, roll

for dims in [(0,), (0, 1), (-1,), (), (0, 0), (0, -2), (2,), (1, 0)]:
    rec('flip', 'f', [tn(x), sa(dims)], torch.flip)
for t, views, dims in [(T(1), [], (0,)), (T(1), [], ()), (T(1), [], (-1,)), (x, ['T'], (0,)), (values(torch.float32, (4, 3)), ['S', 'T'], (0,)),
                       (torch.ones(3, 1), ['E3,4'], (1,)), (torch.empty(0, 3), [], (1,)), (values(torch.int64, (2, 3, 4)), [], (0, 2)),
                       (values(torch.float32, (2, 3, 2, 2)), ['P'], (1, 3))]:
    rec('flip', 'f', [tn(t, views), sa(dims)], torch.flip)
for dt in DTYPES:
    rec('flip', 'f', [tn(values(dt, (3, 4)), ['T']), sa((0, 1))], torch.flip)
    rec('roll', 'f', [tn(values(dt, (4, 3)), ['T']), sa((1, -2)), sa((0, 1))], torch.roll)
    rec('roll', 'f', [tn(values(dt, (2, 5))), sa((3,)), sa(())], torch.roll)
for shifts, dims in [((1,), ()), ((-1,), ()), ((1,), (0,)), ((1,), (1,)), ((1, 1), (0, 1)), ((1, 1), (1, 1)), ((1, 1), (0,)),
                     ((), ()), ((), (0,)), ((1, 2), ()), ((1,), (2,)), ((1,), (0, 3)), ((1, 1), (0, 3)), ((100,), (1,)),
                     ((-100,), (-1,)), ((7,), ()), ((0,), (1,)), ((-9223372036854775807,), (1,))]:
    rec('roll', 'f', [tn(x), sa(shifts), sa(dims)], torch.roll)
for t, views, shifts, dims in [(x, ['T'], (1,), (1,)), (x, ['T'], (0,), (1,)), (x, ['T'], (1,), ()), (torch.empty(0, 3), ['T'], (1,), (0,)),
                               (torch.empty(0, 3), ['T'], (1,), ()), (torch.empty(0, 3), ['T'], (1, 1), (0, 1)), (T(1), [], (1,), ()),
                               (T(1), [], (1,), (0,)), (T([1]), [], (1,), (0,)), (torch.empty(3, 0), [], (1,), (0,)),
                               (torch.empty(3, 0), [], (1,), (5,)), (values(torch.float32, (4, 3)), ['S'], (1, 1), (0, 1))]:
    rec('roll', 'f', [tn(t, views), sa(shifts), sa(dims)], torch.roll)

# ---------------------------------------------------------------- gather, scatter, scatter_add

for dt in DTYPES:
    src = values(dt, (3, 4))
    rec('gather', 'f', [tn(src), ia(0), tn(T([[0, 1, 2, 0], [2, 2, 1, 1]]))], torch.gather)
    rec('gather', 'f', [tn(values(dt, (4, 3)), ['T']), ia(-1), tn(T([[3, 0], [1, 1], [2, 0]]))], torch.gather)
    idx = T([[0, 1, 2, 0], [0, 0, 0, 0]])
    both('scatter', '', torch.zeros(3, 4, dtype=dt), [], [ia(0), tn(idx), tn(values(dt, (2, 4)))],
         torch.scatter, lambda t, d, i, s: t.scatter_(d, i, s))
    both('scatter', 's', values(dt, (3, 4)), [], [ia(1), tn(T([[3, 3], [0, 1], [2, 2]])), num(5)],
         torch.scatter, lambda t, d, i, v: t.scatter_(d, i, v))
    for red in ['add', 'multiply']:
        both('scatter', 'r', values(dt, (3, 4)), [], [ia(0), tn(idx), tn(values(dt, (2, 4))), ra(red)],
             lambda t, d, i, s, r: torch.scatter(t, d, i, s, reduce=r), lambda t, d, i, s, r: t.scatter_(d, i, s, reduce=r))
        both('scatter', 'sr', values(dt, (3, 4)), [], [ia(0), tn(idx), num(3), ra(red)],
             lambda t, d, i, v, r: torch.scatter(t, d, i, v, reduce=r), lambda t, d, i, v, r: t.scatter_(d, i, v, reduce=r))
    both('scatter_add', '', values(dt, (4, 3)), ['T'], [ia(1), tn(T([[3, 0, 3, 3, 1], [0, 0, 0, 2, 2], [1, 1, 1, 1, 1]])),
                                                         tn(values(dt, (5, 3)), ['T'])],
         torch.scatter_add, lambda t, d, i, s: t.scatter_add_(d, i, s))
# float sums accumulate in index order
for dt in FLOATS:
    k = 64
    both('scatter_add', '', values(dt, (2, 3)), [], [ia(0), tn(torch.randint(0, 2, (k, 3), generator=g)),
                                                     tn((torch.rand(k, 3, generator=g) * 100).to(dt))],
         torch.scatter_add, lambda t, d, i, s: t.scatter_add_(d, i, s))
    both('scatter_add', '', values(dt, (3, 2)), [], [ia(1), tn(torch.randint(0, 2, (3, k), generator=g)),
                                                     tn((torch.rand(3, k, generator=g) / 3).to(dt))],
         torch.scatter_add, lambda t, d, i, s: t.scatter_add_(d, i, s))
xf = values(torch.float32, (2, 3))
for args in [(xf, 0, T([[0, 1, 1]])), (xf, 1, T([[0, 1, 1, 2]])), (xf, 1, T([[0], [2]])), (xf, 0, T([[0, 1, 1]], dtype=torch.int32)),
             (xf, 0, T([0, 1, 1])), (xf, 0, T([[0, 1, 1, 1]])), (xf, 0, T([[0, 1, 1], [0, 0, 0], [1, 1, 1]])),
             (xf, 1, T([[0, 1, 1], [0, 0, 0], [1, 1, 1]])), (xf, 0, T([[0, 2, 1]])), (xf, 0, T([[0, -1, 1]])), (xf, 2, T([[0, 1, 1]])),
             (xf, -3, T([[0]])), (T(5.), 0, T(0)), (T(5.), 0, T([0])), (T(5.), 0, T([0, 0])), (T([5., 6.]), 0, T(1)), (T(5.), 0, T(1)),
             (T(5.), -1, T([[0]])), (xf, 0, torch.empty(0, 3, dtype=L)), (xf, 0, torch.empty(0, 5, dtype=L)), (xf, 0, torch.empty(0, dtype=L)),
             (xf, 0, torch.empty(0, 2, 2, dtype=torch.int32)), (xf, 5, torch.empty(0, dtype=L)), (torch.empty(0, 3), 0, torch.empty(0, 3, dtype=L)),
             (xf, 0, T([[0.]])), (xf, 0, T(0)), (xf, -1, T([[2, 2, 0, 1], [1, 1, 1, 1]])), (xf, 0, T([[1, 1, 1]])[:, :0])]:
    rec('gather', 'f', [tn(args[0]), ia(args[1]), tn(args[2])], torch.gather)
rec('gather', 'f', [tn(xf, ['T']), ia(0), tn(T([[0, 1], [2, 2]]), ['T'])], torch.gather)
rec('gather', 'f', [tn(values(torch.float32, (4, 3)), ['S']), ia(1), tn(T([[0, 2, 1, 2], [1, 1, 1, 0]]), ['S'])], torch.gather)
rec('gather', 'f', [tn(values(torch.int64, (2, 3, 4))), ia(1), tn(T([[[2], [0]], [[1], [1]]]))], torch.gather)
xz = torch.zeros(3, 4)
i24 = T([[0, 1, 2, 0], [0, 0, 0, 0]])
s24 = torch.arange(1., 9.).view(2, 4)
SC = torch.scatter
for args in [(0, i24, s24), (0, T([[0, 1, 2, 0], [2, 2, 0, 1]]), s24), (0, i24, torch.ones(2, 4, dtype=torch.float64)),
             (0, i24.int(), s24), (0, i24, torch.ones(2, 3)), (0, i24, torch.ones(1, 4)), (1, T([[0, 1, 2, 0, 1], [0, 0, 0, 0, 1]]), torch.ones(2, 5)),
             (1, i24, torch.ones(2, 5)), (0, i24, torch.ones(5, 5)), (0, T([[0, 1, 3, 0], [0, 0, 0, 0]]), torch.ones(5, 5)),
             (0, T([[0, 1, -1, 0], [0, 0, 0, 0]]), torch.ones(5, 5)), (0, T([0, 1]), torch.ones(5, 5)), (0, T([[[0, 1]]]), torch.ones(5, 5)),
             (0, T([[0, 1]]), torch.ones(5)), (2, T([[0, 1]]), torch.ones(5, 5)), (-3, T([[0, 1]]), torch.ones(5, 5)),
             (0, torch.empty(0, 2, dtype=L), torch.ones(5)), (0, torch.empty(0, dtype=torch.int32), torch.ones(5)),
             (0, T([[0, 0, 3, 4]]), T([[1.0]])), (0, T([[0, 0, 0, 0]]), T([[1.0]])), (-1, T([[3, 3], [2, 2]]), s24)]:
    rec('scatter', 'f', [tn(xz), ia(args[0]), tn(args[1]), tn(args[2])], SC)
    rec('scatter_add', 'f', [tn(xz), ia(args[0]), tn(args[1]), tn(args[2])], torch.scatter_add)
for args in [(T(1.), 0, T(0), T(5.)), (T(1.), 0, T([0]), T([5.])), (T(1.), 0, T(1), T(5.)), (T(1.), 0, T([[0]]), T(5.)),
             (T([1.]), 0, T(0), T(5.)), (T([1., 2.]), 0, T([1, 1, 1]), T([5., 6., 7.])), (T([1., 2.]), -1, T([0, 1, 0]), T([5., 6., 7.]))]:
    rec('scatter', 'f', [tn(args[0]), ia(args[1]), tn(args[2]), tn(args[3])], SC)
    rec('scatter_add', 'f', [tn(args[0]), ia(args[1]), tn(args[2]), tn(args[3])], torch.scatter_add)
for red in ['add', 'multiply', 'sum', 'mean', 'foo']:
    rec('scatter', 'fr', [tn(torch.ones(3, 4)), ia(0), tn(i24), tn(s24), ra(red)], lambda t, d, i, s, r: SC(t, d, i, s, reduce=r))
    rec('scatter', 'fsr', [tn(torch.ones(3, 4)), ia(0), tn(i24), num(2.5), ra(red)], lambda t, d, i, v, r: SC(t, d, i, v, reduce=r))
for args in [(0, T([[0, 0, 0, 0]]), 'foo'), (0, T([[0, 0, 0, 3]]), 'foo'), (0, T([[0, 0, 3]]), 'foo'), (0, torch.empty(0, dtype=L), 'foo'),
             (0, T([[0, 0, 0, 0, 0]]), 'add')]:
    rec('scatter', 'fr', [tn(xf), ia(args[0]), tn(args[1]), tn(xf), ra(args[2])], lambda t, d, i, s, r: SC(t, d, i, s, reduce=r))
for dt, v in [(torch.float32, 2.5), (torch.int32, 2.5), (torch.int32, 1e20), (torch.uint8, -1), (torch.uint8, 300), (torch.bool, 2.5),
              (torch.float16, 1e6), (torch.float16, 65504), (torch.int64, -7), (torch.bool, True), (torch.bfloat16, 1e30), (torch.int8, -129),
              (torch.float32, float('inf')), (torch.float64, float('nan'))]:
    rec('scatter', 'fs', [tn(torch.ones(3, 4, dtype=dt)), ia(0), tn(i24), num(v)], SC)
rec('scatter', 'fs', [tn(torch.ones(3, 4, dtype=torch.int32)), ia(0), tn(torch.empty(0, dtype=L)), num(1e20)], SC)
rec('scatter', 'fs', [tn(xf), ia(0), tn(T([[0, 0, 3, 4]])), num(1.0)], SC)
rec('scatter', 'fs', [tn(T(1.)), ia(0), tn(T([0])), num(2)], SC)
# in place on views: non-contiguous self, an expanded self, self as its own source
both('scatter', '', torch.zeros(4, 3), ['T'], [ia(0), tn(T([[0, 1, 2], [0, 0, 0]])), tn(torch.ones(2, 3))],
     SC, lambda t, d, i, s: t.scatter_(d, i, s))
both('scatter', '', torch.zeros(6, 4), ['S'], [ia(1), tn(T([[3, 1], [2, 0], [1, 1]])), tn(values(torch.float32, (3, 2)))],
     SC, lambda t, d, i, s: t.scatter_(d, i, s))
both('scatter', 's', torch.zeros(3, 1), ['E3,4'], [ia(0), tn(T([[0, 1, 2, 0]])), num(1)], SC, lambda t, d, i, v: t.scatter_(d, i, v))
both('scatter_add', '', torch.zeros(3, 1), ['E3,4'], [ia(0), tn(T([[0, 1, 2, 0]])), tn(torch.ones(1, 4))],
     torch.scatter_add, lambda t, d, i, s: t.scatter_add_(d, i, s))

# ---------------------------------------------------------------- index_select, index_add, index_copy, index_fill

for dt in DTYPES:
    t = values(dt, (3, 4))
    rec('index_select', 'f', [tn(t), ia(0), tn(T([2, 0, 2, 1]))], torch.index_select)
    rec('index_select', 'f', [tn(t), ia(1), tn(T([3, 0], dtype=torch.int32))], torch.index_select)
    rec('index_select', 'f', [tn(values(dt, (4, 3)), ['T']), ia(-1), tn(T([0, 3, 3]))], torch.index_select)
    rec('index_select', 'f', [tn(values(dt, (5,))), ia(0), tn(T([4, 4, 0]))], torch.index_select)
    idx = T([0, 2, 0])
    both('index_add', '', values(dt, (3, 2)), [], [ia(0), tn(idx), tn(values(dt, (3, 2)))],
         torch.index_add, lambda t, d, i, s: t.index_add_(d, i, s))
    both('index_add', 'a', values(dt, (2, 3)), ['T'], [ia(1), tn(idx.int()), tn(values(dt, (3, 3))), num(2)],
         lambda t, d, i, s, al: torch.index_add(t, d, i, s, alpha=al), lambda t, d, i, s, al: t.index_add_(d, i, s, alpha=al))
    both('index_add', 'a', values(dt, (4,)), [], [ia(0), tn(T([3, 1, 3, 3])), tn(values(dt, (4,))), num(-1 if dt != torch.bool else True)],
         lambda t, d, i, s, al: torch.index_add(t, d, i, s, alpha=al), lambda t, d, i, s, al: t.index_add_(d, i, s, alpha=al))
    both('index_copy', '', values(dt, (3, 2)), [], [ia(0), tn(T([0, 2, 0])), tn(values(dt, (3, 2)))],
         torch.index_copy, lambda t, d, i, s: t.index_copy_(d, i, s))
    both('index_copy', '', values(dt, (2, 4)), ['T'], [ia(-1), tn(T([1, 0])), tn(values(dt, (4, 2)))],
         torch.index_copy, lambda t, d, i, s: t.index_copy_(d, i, s))
    both('index_fill', 's', values(dt, (3, 4)), [], [ia(1), tn(T([0, -1, 2])), num(3)],
         torch.index_fill, lambda t, d, i, v: t.index_fill_(d, i, v))
    both('index_fill', '', values(dt, (4, 3)), ['T'], [ia(0), tn(T([1])), tn(values(dt, ()))],
         torch.index_fill, lambda t, d, i, v: t.index_fill_(d, i, v))
# non-exact alphas: float32/64 slices add with one rounding (fma), single elements with two
for dt in FLOATS:
    for shape in [(64, 8), (64,)]:
        both('index_add', 'a', (torch.rand(*shape, generator=g) * 4).to(dt), [], [ia(0), tn(torch.randint(0, 64, (64,), generator=g)),
                                                                                 tn((torch.rand(*shape, generator=g) * 4).to(dt)), num(0.3)],
             lambda t, d, i, s, al: torch.index_add(t, d, i, s, alpha=al), lambda t, d, i, s, al: t.index_add_(d, i, s, alpha=al))
IS = torch.index_select
for t, d, idx in [(xf, 1, T(2)), (xf, 1, T([[2]])), (xf, 1, T([2.])), (xf, 1, T([2], dtype=torch.int16)), (xf, 1, T([3])), (xf, 1, T([-1])),
                  (xf, 0, T([2])), (xf, 0, T([-1])), (xf, 2, T([0])), (T(5.), 0, T([0])), (T(5.), 0, T(0)), (T(5.), 0, T([0, 0])),
                  (T(5.), 0, T([1])), (T(5.), -1, T([0])), (T([5., 6.]), 0, T(1)), (T([5., 6.]), 0, T([])), (T([5., 6.]), 0, T([2])),
                  (xf, 0, T([], dtype=L)), (torch.empty(0, 3), 0, T([0])), (torch.empty(2, 0), 0, T([0, 1])), (torch.empty(2, 0), 0, T([0, 2])),
                  (torch.empty(2, 0), 1, T([0])), (torch.empty(2, 0, 2), 1, T([0])), (torch.empty(2, 0, 2), 0, T([1, 0])),
                  (torch.empty(2, 0), 0, T([], dtype=L)), (values(torch.float32, (2, 3, 4)), 1, T([2, 0])), (values(torch.float32, (2, 3, 4)), 1, T([3])),
                  (values(torch.float32, (2, 3, 4)), 2, T([3, 4])), (values(torch.float32, (2, 3, 4)), -1, T([3, 3, 0, 1]))]:
    rec('index_select', 'f', [tn(t), ia(d), tn(idx)], IS)
rec('index_select', 'f', [tn(xf, ['T']), ia(0), tn(T([1, 0, 1]))], IS)
rec('index_select', 'f', [tn(xf), ia(0), tn(T([0, 1, 2, 3]), ['S'])], IS)
rec('index_select', 'f', [tn(values(torch.float32, (6, 3)), ['S', 'T']), ia(1), tn(T([2, 0, 1, 0]), ['S'])], IS)
IA = torch.index_add
z32 = torch.zeros(3, 2)
o32 = torch.ones(3, 2)
for args in [(z32, 0, T([0, 2, 0]), torch.ones(3, 1)), (z32, 0, T([0, 2, 0]), torch.ones(3)), (z32, 0, T([0, 2, 0]), torch.ones(3, 3)),
             (z32, 0, T([0, 2, 0]), torch.ones(2, 2)), (z32, 0, T([0, 2, 0]), torch.ones(3, 2, dtype=torch.float64)),
             (z32, 0, T([0, 2, 0], dtype=torch.int16), o32), (z32, 0, T([[0, 2, 0]]), o32), (z32, 0, T([0, 3, 0]), o32), (z32, 0, T([0, -1, 0]), o32),
             (torch.zeros(3), 0, T([0, 3, 0]), torch.ones(3)), (torch.zeros(3), 0, T([0, -1, 0]), torch.ones(3)), (z32, 0, T([0, 2]), o32),
             (z32, 1, T([0, 1]), torch.ones(3)), (z32, 2, T([0, 1]), torch.ones(3)), (torch.zeros(3), 0, T([0, 1]), torch.ones(2, 2)),
             (torch.zeros(3), 0, T([1]), T(5.)), (torch.zeros(3), 0, T(1), T(5.)), (T(1.), 0, T(0), T(5.)), (T(1.), 0, T([0]), T([5.])),
             (T(1.), 0, T([1]), T([5.])), (z32, 0, T([], dtype=L), torch.ones(0, 2)), (z32, 0, T([], dtype=L), torch.ones(0, 5)),
             (z32, 0, T([0]), torch.ones(1, 2, 2)), (torch.zeros(3, 2, 2), 0, T([0]), torch.ones(1, 2)), (z32, 5, T([0.]), torch.ones(1, 2)),
             (z32, 0, T([[0.]]), torch.ones(1, 2, dtype=L)), (z32, 0, T([0.]), torch.ones(1, 2, dtype=L)), (z32, 1, T([0]), T(1.)),
             (z32, 0, T([0]), T(1.)), (z32, 0, T([0, 1]), T(1.)), (z32, -1, T([0, 1]), o32), (z32, -1, T([0, 1]), torch.ones(3, 2, 3)),
             (z32, 0, T([0, 1]), torch.ones(2, 2, 3)), (torch.zeros(2, 3, 2), 1, T([2, 2]), torch.ones(1, 2, 1))]:
    rec('index_add', 'f', [tn(args[0]), ia(args[1]), tn(args[2]), tn(args[3])], IA)
for dt, al in [(torch.int8, 300), (torch.int8, 2.7), (torch.uint8, -1), (torch.float16, 1e6), (torch.bool, 0), (torch.bool, 0.5),
               (torch.int32, True), (torch.int64, 2.5), (torch.float32, -0.5), (torch.bfloat16, 0.3)]:
    for shape in [(3, 2), (3,)]:
        rec('index_add', 'fa', [tn(torch.ones(*shape, dtype=dt)), ia(0), tn(T([0, 2, 0])), tn(torch.ones(*shape, dtype=dt)), num(al)],
            lambda t, d, i, s, a: IA(t, d, i, s, alpha=a))
rec('index_add', 'fa', [tn(torch.ones(3, 2, dtype=torch.int8)), ia(0), tn(T([], dtype=L)), tn(torch.ones(0, 2, dtype=torch.int8)), num(300)],
    lambda t, d, i, s, a: IA(t, d, i, s, alpha=a))
both('index_add', '', torch.zeros(3, 1), ['E3,2'], [ia(1), tn(T([0, 1])), tn(torch.ones(3, 2))], IA, lambda t, d, i, s: t.index_add_(d, i, s))
both('index_add', '', torch.zeros(2, 6), ['T', 'S'], [ia(1), tn(T([1, 0, 1])), tn(values(torch.float32, (3, 3)))],
     IA, lambda t, d, i, s: t.index_add_(d, i, s))
IC = torch.index_copy
for args in [(z32, 0, T([0, 2, 0], dtype=torch.int32), o32), (z32, 0, T([0, 3, 0]), o32), (z32, 0, T([0, -1, 0]), o32), (z32, 0, T([0, 2]), o32),
             (z32, 0, T([0, 2, 1]), torch.ones(3, 1)), (z32, 0, T([0, 2, 1]), torch.ones(3)), (z32, 0, T([0]), T(1.)), (z32, 0, T([0, 1]), T(1.)),
             (z32, 0, T([[0, 1]]), T(1.)), (z32, 0, T([0, 1]), torch.ones(2, 2, dtype=L)), (torch.zeros(3), 0, T([0, 1]), torch.ones(2)),
             (torch.zeros(3), 0, T(1), T(5.)), (T(0.), 0, T(0), T(5.)), (T(0.), 0, T([0]), T([5.])), (T(0.), 0, T([1]), T([5.])),
             (z32, 2, T([0, 1, 0]), torch.ones(3, 3)), (z32, 0, T([0, 1, 0]), torch.ones(3, 3, 3)), (torch.zeros(3, 2, 4), 0, T([0, 1, 0]), torch.ones(3, 3, 3)),
             (torch.zeros(3, 2, 4), 1, T([0, 1, 0]), torch.ones(3, 3, 3)), (z32, 0, T([0.]), torch.ones(1, 2, dtype=L)),
             (z32, 0, T([[0]]), torch.ones(1, 2, dtype=L)), (z32, 0, T([0, 1]), torch.ones(1, 3)), (z32, 0, T([0, 1]), torch.ones(1, 2)),
             (z32, 0, T(1), torch.ones(1, 2)), (T(0.), 0, T([0]), torch.ones(1)), (torch.zeros(3), 0, T([0]), T(1.)),
             (torch.zeros(3), 0, T([0, 0, 2]), torch.arange(3.)), (z32, 0, T([0, 0, 2]), torch.arange(6.).view(3, 2)),
             (z32, 0, T([], dtype=L), torch.ones(0, 2)), (z32, 0, T([], dtype=torch.int32), torch.ones(0, 2))]:
    rec('index_copy', 'f', [tn(args[0]), ia(args[1]), tn(args[2]), tn(args[3])], IC)
rec('index_copy', 'f', [tn(z32, ['T']), ia(1), tn(T([0, 0, 2])), tn(torch.arange(6.).view(2, 3))], IC)
IF = torch.index_fill
for t, d, idx, v in [(xf, 1, T([0, 2]), -1), (xf, 1, T([0, -4]), -1), (xf, 1, T([0, 3]), -1), (xf, 1, T([0, 3], dtype=torch.int32), -1),
                     (xf, 1, T([[0, 1]]), -1), (xf, 1, T(1), -1), (xf.long(), 1, T([0]), 2.5), (xf.int(), 1, T([0]), 1e10),
                     (xf.bool(), 1, T([0]), 2), (T(1.), 0, T([0]), 2), (T(1.), 0, T([0, 0]), 2), (T(1.), -1, T([0]), 2), (T(1.), 1, T([0]), 2),
                     (T(1.), 0, T([1]), 2), (xf, 2, T([1]), 2), (xf, 0, T([], dtype=L), 2), (xf, 0, T([], dtype=torch.int32), 2),
                     (xf, 5, T([0.]), 1), (xf, 5, T([[0]]), 1), (xf, 0, T([[0.]]), 1), (torch.empty(0, 3), 1, T([2]), 1),
                     (torch.empty(0, 3), 1, T([3]), 1), (xf.half(), 0, T([1]), 70000), (xf.byte(), 0, T([1]), -1)]:
    rec('index_fill', 'fs', [tn(t), ia(d), tn(idx), num(v)], IF)
for v in [T(2.5), T(2), T([2.]), T(True), T(3, dtype=torch.int8), T(2.5, dtype=torch.float64)]:
    rec('index_fill', 'f', [tn(xf), ia(1), tn(T([0])), tn(v)], IF)
    rec('index_fill', 'f', [tn(xf.long()), ia(1), tn(T([0])), tn(v)], IF)
rec('index_fill', 'f', [tn(xf), ia(0), tn(T([[0]])), tn(T([1.]))], IF)
rec('index_fill', 'fs', [tn(xf, ['T']), ia(1), tn(T([1])), num(2)], IF)
rec('index_fill', 'fs', [tn(values(torch.float32, (4, 3)), ['S', 'T']), ia(1), tn(T([1])), num(2)], IF)
both('index_fill', 's', torch.zeros(3, 1), ['E3,2'], [ia(0), tn(T([0])), num(2)], IF, lambda t, d, i, v: t.index_fill_(d, i, v))

# ---------------------------------------------------------------- masked_fill, masked_select, take, one_hot

m23 = T([[True, False, True], [False, False, True]])
MF = torch.masked_fill
for dt in DTYPES:
    t = values(dt, (2, 3))
    both('masked_fill', 's', t, [], [tn(m23), num(3)], MF, lambda t, m, v: t.masked_fill_(m, v))
    both('masked_fill', '', values(dt, (3, 2)), ['T'], [tn(T([True, False, True])), tn(values(dt, ()))], MF, lambda t, m, v: t.masked_fill_(m, v))
    rec('masked_select', 'f', [tn(values(dt, (2, 3))), tn(m23)], torch.masked_select)
    rec('masked_select', 'f', [tn(values(dt, (3, 2)), ['T']), tn(T([[True], [False]]))], torch.masked_select)
    rec('take', 'f', [tn(values(dt, (2, 3))), tn(T([[0, 5], [-1, -6]]))], torch.take)
    rec('take', 'f', [tn(values(dt, (3, 2)), ['T']), tn(T([[0, 5, 1], [-1, -6, 4]]), ['T'])], torch.take)
for t, m, v in [(xf, m23, T(-1)), (xf, m23, T(-1.5)), (xf.long(), m23, T(-1.5)), (xf.long(), m23, -1.5), (xf.long(), m23, 1e30),
                (xf, m23, T([-1])), (xf, m23.byte(), -1), (xf, m23.int(), -1), (xf, m23.int() * 2, -1), (xf, m23.long() * 256, -1),
                (xf, m23.float(), -1), (xf, m23.byte() * 2, -1), (xf, T([True, False, True]), -1), (xf, T([[True], [False]]), -1),
                (xf[0], m23, -1), (xf[0], T([[True], [False]]), -1), (xf, T([True, False]), -1), (T(1.), T(True), -1), (T(1.), m23, -1),
                (xf.bool(), m23, 5), (xf.half(), m23, 70000), (xf.half(), m23, float('inf')), (xf.half(), m23, float('nan')),
                (xf.byte(), m23, -1), (xf.byte(), m23, 256), (xf.byte(), m23, -256), (xf.byte(), m23, T(-256)), (xf.byte(), m23, T(True)),
                (xf, m23, T(True)), (xf, m23, T(3.0, dtype=torch.float64)), (xf.int(), m23, T(3.7, dtype=torch.float64)),
                (xf.bool(), m23, T(3.7, dtype=torch.float64)), (torch.empty(0, 3), T([True, False, True]), 1),
                (xf, torch.empty(0, 3, dtype=torch.bool), 1), (xf, T([True, False, True]), T([[1.]]))]:
    rec('masked_fill', 'f' if isinstance(v, torch.Tensor) else 'fs', [tn(t), tn(m), tn(v) if isinstance(v, torch.Tensor) else num(v)], MF)
for t, m in [(xf, T([True, False, True])), (xf[0].clone(), m23), (T(1.), T(True))]:
    rec('masked_fill', 'is', [tn(t, fresh=True), tn(m), num(-1)], lambda t, m, v: t.masked_fill_(m, v))
rec('masked_fill', 'i', [tn(xf, fresh=True), tn(m23), tn(T([1.]))], lambda t, m, v: t.masked_fill_(m, v))
both('masked_fill', 's', torch.zeros(3, 1), ['E3,2'], [tn(T([True, False])), num(2)], MF, lambda t, m, v: t.masked_fill_(m, v))
both('masked_fill', 's', values(torch.float32, (6, 4)), ['S', 'T'], [tn(T([[True], [False], [True], [True]])), num(2)],
     MF, lambda t, m, v: t.masked_fill_(m, v))
MS = torch.masked_select
for t, m in [(xf, m23.byte()), (xf, m23.byte() * 2), (xf, m23.int()), (xf, T([True, False, True])), (xf[0], m23), (xf, T([True, False])),
             (T(1.), T(True)), (T(1.), T(False)), (torch.empty(0, 3), T([True, False, True])), (xf, T(True)), (T(2.), m23)]:
    rec('masked_select', 'f', [tn(t), tn(m)], MS)
rec('masked_select', 'f', [tn(values(torch.int16, (4, 3)), ['S', 'T']), tn(T([[True, False], [False, True], [True, True]]), ['T', 'T'])], MS)
TK = torch.take
for t, idx in [(xf, T([0, 5, -1, -6])), (xf, T([6])), (xf, T([-7])), (xf, T([1], dtype=torch.int32)), (xf, T(1)), (T(4.), T([0, 0])),
               (T(4.), T([1])), (torch.empty(0), T([0])), (torch.empty(0), T([], dtype=L)), (xf, T([], dtype=L)), (xf, T([], dtype=torch.int32)),
               (values(torch.float32, (4, 3)), T([[1, 2, 3]]))]:
    rec('take', 'f', [tn(t), tn(idx)], TK)
rec('take', 'f', [tn(values(torch.float32, (6, 3)), ['S']), tn(T([8, 0, 4]))], TK)
OH = torch.nn.functional.one_hot
for t, k in [(T([0, 2, 1]), -1), (T([0, 2, 1]), 5), (T([0, 2, 1]), 2), (T([0, 2, 1]), 0), (T([0, 2, 1]), -2), (T([0, -2, 1]), 3),
             (T([0, -2, 1]), -1), (T([0, 2, 1], dtype=torch.int32), -1), (T([], dtype=L), -1), (T([], dtype=L), 3), (T([], dtype=L), 0),
             (T(2), -1), (torch.empty(2, 0, dtype=L), 3), (torch.empty(2, 0, dtype=L), -1), (T([3, 3, 3]), -1)]:
    rec('one_hot', 'f', [tn(t), ia(k)], OH)
rec('one_hot', 'f', [tn(T([[0, 2], [1, 1], [3, 0]]), ['T']), ia(-1)], OH)

# ---------------------------------------------------------------- random geometry

# Shapes, dims, views and indices drawn at random (a fixed seed), for the
# kernels' loop orders and strides that the cases above do not reach.
R = random.Random(1)


def stored_for(shape, views, dt):
    """A stored tensor that the views turn into `shape`."""
    s = list(shape)
    for v in reversed(views):
        if v == 'S':
            s[0] *= 2
        elif v == 'T':
            s[-1], s[-2] = s[-2], s[-1]
    return values(dt, tuple(s))


def random_views(nd):
    return [v for v, ok in [('T', nd >= 2 and R.random() < 0.3), ('S', R.random() < 0.2)] if ok]


def random_index(shape, hi):
    """Indices in [0, hi), one in ten cases with one out of range."""
    bad = R.random() < 0.1
    return torch.randint(0, max(hi + bad, 1), shape, generator=g) if hi + bad > 0 else torch.zeros(shape, dtype=L)


for case in range(400):
    dt = R.choice(DTYPES)
    nd = R.randint(1, 4)
    shape = tuple(R.randint(1, 4) for _ in range(nd))
    d = R.randrange(-nd, nd)
    views = random_views(nd)
    self_t = stored_for(shape, views, dt)
    op = R.choice(['gather', 'scatter', 'scatter_add', 'index_select', 'index_add', 'index_copy', 'take', 'masked_fill'])
    if op in ('gather', 'scatter', 'scatter_add'):
        ishape = [R.randint(0, shape[k]) if k != d % nd else R.randint(0, 5) for k in range(nd)]
        iviews = random_views(nd)
        idx = tn(random_index(tuple(stored_for(tuple(ishape), iviews, torch.long).shape), shape[d]), iviews)
        if op == 'gather':
            rec(op, 'f', [tn(self_t, views), ia(d), idx], torch.gather)
        else:
            f = getattr(torch, op)
            both(op, '', self_t, views, [ia(d), idx, tn(values(dt, tuple(ishape)))], f,
                 lambda t, dd, i, s, name=op: getattr(t, name + '_')(dd, i, s))
    elif op in ('index_select', 'index_add', 'index_copy'):
        k = R.randint(0, 5)
        idx = tn(random_index((k,), shape[d]))
        sshape = tuple(k if j == d % nd else shape[j] for j in range(nd))
        if op == 'index_select':
            rec(op, 'f', [tn(self_t, views), ia(d), idx], torch.index_select)
        else:
            f = getattr(torch, op)
            both(op, '', self_t, views, [ia(d), idx, tn(values(dt, sshape))], f,
                 lambda t, dd, i, s, name=op: getattr(t, name + '_')(dd, i, s))
    elif op == 'take':
        n = torch.Size(shape).numel()
        rec(op, 'f', [tn(self_t, views), tn(torch.randint(-n, n, (R.randint(0, 5),), generator=g))], torch.take)
    else:
        mshape = tuple(s if R.random() < 0.7 else 1 for s in shape[R.randint(0, nd):])
        both(op, 's', self_t, views, [tn(torch.rand(mshape, generator=g) > 0.5), num(1)], MF,
             lambda t, m, v: t.masked_fill_(m, v))

w.save()
with open('join.txt', 'w') as fh:
    fh.write('\n'.join(lines) + '\n')
print(nres, 'results,', len(lines), 'cases')
