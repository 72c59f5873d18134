"""Golden data for reductions, scans and softmax: every op of the reduce
family, every dtype, dims (negative, several, none), keepdim, 0-d and empty
tensors, transposed, permuted and strided inputs, PyTorch's errors, and large
inputs that reach the multi-block and multi-thread paths.

Writes reduce.ctg, which holds one flat bank of elements per dtype
(bank_f32, ...), and reduce.txt, one case a line:
    <op>|<form>|<input>|<args>|<result>[,<indices>]
    <op>|<form>|<input>|<args>|ERR <Type>|<message>
A tensor is dtype.offset.shape: the elements of bank_<dtype> from offset,
in a row-major tensor of that shape (3x5; empty for 0-d). A result of more
than 256 elements is kept as every step-th element: tensor~step~full shape.
form: which C function (all, dim, fro, ip for the in-place scans).
input: a tensor, optionally viewed: tensor@T (transposed), tensor@P2,0,1
    (permuted), tensor@E3,4,5 (expanded), tensor@I<python index> (basic
    indexing); or a large
    generated input G<dtype>:<kind>:<size>x<size>, whose element i (row-major)
    is (((i * 7919) % 2003) - 1001) * 2^-(i % 11) ('v') or
    1 + (((i * 7919) % 2003) - 1001) * 2^-20 ('p'), exact in float32, then
    converted to the dtype; tests/test_reduce.c builds the same.
args: d=<dims, comma separated> k=<keepdim 0/1> t=<dtype> p=<norm p> c=<correction>,
    separated by ';'.

PyTorch runs on one thread, so its numbers are its serial order's. PyTorch
1.13 lacks float16 CPU kernels for prod, median, cumsum, cumprod, cummax,
cummin, logcumsumexp, softmax, log_softmax and (through exp) logsumexp;
ctorch has them, computing in float32 and rounding once, so those cases
record the float32 result rounded to float16.
"""
import torch

from ctg import Writer

torch.set_num_threads(1)
lines = []
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
SHORT = {torch.bool: 'b8', torch.uint8: 'u8', torch.int8: 'i8', torch.int16: 'i16', torch.int32: 'i32',
         torch.int64: 'i64', torch.float16: 'f16', torch.bfloat16: 'bf16', torch.float32: 'f32', torch.float64: 'f64'}
g = torch.Generator().manual_seed(0)
nan, inf = float('nan'), float('inf')


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def values(dt, shape, kind):
    """kind: 'r' random, 'k' small integers (many ties), 's' random with NaN, inf, -0,
    'p' near one (products), 'w' wide integers."""
    n = numel(shape)
    if dt == torch.bool:
        return (torch.rand(n, generator=g) > 0.4).view(shape)
    if not dt.is_floating_point:
        lo, hi = (0, 6) if dt == torch.uint8 else (-3, 4)
        if kind == 'w':
            lo, hi = (0, 256) if dt == torch.uint8 else (-100, 101)
        return torch.randint(lo, hi, (n,), generator=g).to(dt).view(shape)
    if kind == 'k':
        x = torch.randint(-3, 4, (n,), generator=g).double()
    elif kind == 'p':
        x = torch.rand(n, generator=g, dtype=torch.float64) + 0.5
    else:
        x = torch.randn(n, generator=g, dtype=torch.float64) * 3
    if kind == 's':
        special = torch.tensor([nan, inf, -inf, -0.0, 0.0, 1.0, nan], dtype=torch.float64)
        idx = torch.randperm(n, generator=g)[:min(n, 3)]
        x[idx] = special[torch.randint(0, len(special), (len(idx),), generator=g)]
    return x.to(dt).view(shape)




class Banks:
    """Every tensor of a dtype goes into one flat bank (the test looks each
    bank up once); a tensor is then dtype.offset.shape."""

    def __init__(self):
        self.parts = {dt: [] for dt in DTYPES}
        self.size = {dt: 0 for dt in DTYPES}

    def add(self, t):
        t = t.detach().contiguous()
        ref = '%s.%d.%s' % (SHORT[t.dtype], self.size[t.dtype], 'x'.join(map(str, t.shape)))
        self.parts[t.dtype].append(t.flatten())
        self.size[t.dtype] += t.numel()
        return ref

    def save(self, path):
        w = Writer(path)
        for dt in DTYPES:
            w.add('bank_' + SHORT[dt], torch.cat(self.parts[dt]) if self.parts[dt] else torch.zeros(0, dtype=dt))
        w.save()


banks = Banks()


def add_input(t):
    """t stored as an input; its reference."""
    return banks.add(t)


def tensor_input(dt, shape, kind='r'):
    t = values(dt, shape, kind)
    return add_input(t), t


def generated(dt, shape, kind='v'):
    """A large input both sides compute: see the module docstring."""
    i = torch.arange(numel(shape), dtype=torch.int64)
    base = ((i * 7919) % 2003 - 1001).to(torch.float32)
    x = base * torch.pow(2.0, -(i % 11).to(torch.float32)) if kind == 'v' else 1 + base * 2.0 ** -20
    return 'G%s:%s:%s' % (SHORT[dt], kind, 'x'.join(map(str, shape))), x.to(dt).view(shape)


def view(name, t, how):
    """name@how and the view it stands for."""
    if how == 'T':
        return name + '@T', t.t()
    if how.startswith('P'):
        return name + '@' + how, t.permute(*map(int, how[1:].split(',')))
    if how.startswith('E'):
        return name + '@' + how, t.expand(*map(int, how[1:].split(',')))
    return name + '@' + how, eval('t[' + how[1:] + ']')


def err(e):
    return 'ERR %s|%s' % (type(e).__name__, str(e).split('\n')[0])


ncase = 0


def result(t):
    """A result's reference; one of more than 256 elements is kept as about
    128 of them (every step-th of its flattening), written ref~step~shape."""
    global ncase
    ncase += 1
    if t.numel() > 256:
        step = t.numel() // 128 + 1
        return '%s~%d~%s' % (banks.add(t.flatten()[::step]), step, 'x'.join(map(str, t.shape)))
    return banks.add(t)


def record(op, form, inp, args, f, half=None):
    """Record f(), or PyTorch's error. half(): what ctorch computes where PyTorch
    has no float16 kernel (float32, rounded once)."""
    try:
        try:
            r = f()
        except RuntimeError as e:
            if "not implemented for 'Half'" not in str(e) or half is None:
                raise
            r = half()
        if isinstance(r, tuple):
            out = ','.join(result(x) for x in r)
        else:
            out = result(r)
        lines.append('|'.join([op, form, inp, args, out]))
    except Exception as e:
        lines.append('|'.join([op, form, inp, args, err(e)]))


def argstr(**kw):
    parts = []
    for k, v in kw.items():
        if v is None:
            continue
        if k == 'd':
            v = ','.join(map(str, v)) if isinstance(v, (tuple, list)) else str(v)
        elif k == 'k':
            v = '1' if v else '0'
        elif k == 't':
            v = SHORT[v]
        parts.append('%s=%s' % (k, v))
    return ';'.join(parts)


def log_softmax(x, d):
    """torch.log_softmax, except for PyTorch 1.13's bfloat16 kernel over a dim
    that is not the last: lanes 8-15 of each group of 16 columns take the
    maximum of lanes 0-7 and come out wrong (often inf). ctorch computes those
    right: in float32, rounded once, as the kernel does for the other lanes."""
    if x.dtype == torch.bfloat16 and x.dim() and d % x.dim() != x.dim() - 1:
        return torch.log_softmax(x.float(), d).bfloat16()
    return torch.log_softmax(x, d)


def halfed(r):
    """float32 results of a float16 input back to float16 (indices stay)."""
    if isinstance(r, tuple):
        return tuple(x.half() if x.dtype == torch.float32 else x for x in r)
    return r.half() if r.dtype == torch.float32 else r


def via_float(fn, x, **kw):
    return lambda: halfed(fn(x.float(), **kw))


SHAPES = [(), (7,), (3, 5), (2, 3, 4), (0, 3), (3, 0), (4, 1, 3)]


def dim_lists(ndim):
    """(dims, keepdim) to try on a tensor of ndim dims; None is no dim."""
    out = [(None, False)]
    if ndim >= 1:
        out += [((0,), False), ((-1,), True)]
    if ndim >= 2:
        out += [((1, 0), False), ((-1, 0), True)]
    if ndim >= 3:
        out += [((0, 2), False), ((1,), True)]
    return out


SMALL = [(), (3, 5), (2, 3, 4)]
cache = {}


def inputs_for(dt, kind='r', shapes=None):
    """Inputs of every shape, then a transposed, a permuted and a strided view;
    made once for each dtype and kind, shared by every op. Integer and bool
    inputs (exact in any order) take fewer shapes."""
    key = (dt, kind, shapes)
    if key not in cache:
        shapes = shapes or (SHAPES if dt.is_floating_point else SMALL)
        got = [tensor_input(dt, shape, kind) for shape in shapes]
        name, t = tensor_input(dt, (3, 5), kind)
        got.append(view(name, t, 'T'))
        if dt.is_floating_point:
            name, t = tensor_input(dt, (2, 3, 4), kind)
            got.append(view(name, t, 'P2,0,1'))
            name, t = tensor_input(dt, (6, 8), kind)
            got.append(view(name, t, 'I::2, 1::3'))
        cache[key] = got
    return cache[key]


def float_kinds(dt, kinds):
    """Special values (NaN, inf, -0) in float32 and float64 only: the other
    dtypes share their code."""
    return [k for k in kinds if k != 's' or dt in (torch.float32, torch.float64)] if dt.is_floating_point else ['r']


# ---------------------------------------------------------------- reductions over several dims

def multi_dim(op, fn, kinds=('r', 's'), dtypes=DTYPES):
    """fn(x, dims, keepdim) for dims None (every dim) and lists."""
    for dt in dtypes:
        for kind in float_kinds(dt, kinds):
            for inp, x in inputs_for(dt, kind):
                for dims, kd in dim_lists(x.dim()):
                    if dims is None:
                        record(op, 'all', inp, '', lambda: fn(x, None, False))
                    else:
                        record(op, 'dim', inp, argstr(d=dims, k=kd), lambda: fn(x, dims, kd))


def with_dims(f):
    return lambda x, dims, kd: f(x) if dims is None else f(x, dims, keepdim=kd)


def logsumexp(x, d, k):
    """torch.logsumexp, in float32 where PyTorch 1.13 has no float16 exp."""
    try:
        return torch.logsumexp(x, d, k)
    except RuntimeError as e:
        if "not implemented for 'Half'" not in str(e):
            raise
        return torch.logsumexp(x.float(), d, k).half()


multi_dim('sum', with_dims(torch.sum))
multi_dim('nansum', with_dims(torch.nansum))
multi_dim('mean', with_dims(torch.mean))
multi_dim('amax', lambda x, d, k: torch.amax(x) if d is None else torch.amax(x, d, k))
multi_dim('amin', lambda x, d, k: torch.amin(x) if d is None else torch.amin(x, d, k), kinds=('s',))
multi_dim('count_nonzero', lambda x, d, k: torch.count_nonzero(x) if d is None else torch.count_nonzero(x, d),
          kinds=('s',))
multi_dim('std', with_dims(torch.std))
multi_dim('var', with_dims(torch.var))
multi_dim('std_mean', with_dims(torch.std_mean), kinds=('r',))
multi_dim('var_mean', with_dims(torch.var_mean), kinds=('s',))
multi_dim('logsumexp', lambda x, d, k: logsumexp(x, tuple(range(x.dim())) if d is None else d, k))
for dt in FLOATS:
    for inp, x in inputs_for(dt, 'r')[:4]:
        for c in (0, 2, 5, -1):
            for op, f in [('std', torch.std), ('var', torch.var)]:
                record(op, 'dim', inp, argstr(d=(), k=False, c=c), lambda: f(x, (), correction=c))
            if x.dim() > 1:
                record('var_mean', 'dim', inp, argstr(d=(1,), k=True, c=c), lambda: torch.var_mean(x, (1,), correction=c, keepdim=True))
                record('std', 'dim', inp, argstr(d=(0,), k=False, c=c), lambda: torch.std(x, 0, correction=c))

# norms: p, dims, dtype; 'fro' over one or two dims
for dt in DTYPES:
    for i, (inp, x) in enumerate(inputs_for(dt, 's' if dt in (torch.float32, torch.float64) else 'r')):
        many = dt.is_floating_point and x.dim() >= 2
        for p in [2, 1, 0, 3, 0.5, -1, 2.5, inf, -inf, 0.1] if many else [2, 3]:
            record('norm', 'all', inp, argstr(p=p), lambda: torch.norm(x, p))
        if not dt.is_floating_point:
            continue
        for dims, kd in dim_lists(x.dim())[1:4]:
            for p in [2, 3, inf] if many else [2]:
                record('norm', 'dim', inp, argstr(p=p, d=dims, k=kd), lambda: torch.norm(x, p, dims, kd))
            record('norm', 'fro', inp, argstr(d=dims, k=kd), lambda: torch.norm(x, 'fro', dims, kd),
                   half=lambda: torch.sqrt(torch.sum(x * x, dims, kd).float()).half())  # sqrt of float16 via float32
        record('norm', 'fro', inp, '', lambda: torch.norm(x, 'fro'))
for inp, x in inputs_for(torch.float32, 'r')[1:4]:
    for dt in [torch.float64, torch.float16, torch.int64]:
        record('norm', 'dim', inp, argstr(p=2, d=(0,), k=False, t=dt), lambda: torch.norm(x, 2, (0,), False, dtype=dt))
    record('norm', 'dim', inp, argstr(p=3, d=(), k=False, t=torch.float64),
           lambda: torch.norm(x, 3, (), False, dtype=torch.float64))
for inp, x in inputs_for(torch.float64, 'r')[1:3]:
    record('norm', 'dim', inp, argstr(p=2, d=(-1,), k=False, t=torch.float32),
           lambda: torch.norm(x, 2, (-1,), False, dtype=torch.float32))
name, x = tensor_input(torch.int32, (2, 3))
record('norm', 'dim', name, argstr(p=2, d=(0,), k=False, t=torch.int64),
       lambda: torch.norm(x, 2, (0,), False, dtype=torch.int64))
name, x = tensor_input(torch.float32, (2, 3, 4))
record('norm', 'fro', name, argstr(d=(0, 1, 2), k=False), lambda: torch.norm(x, 'fro', (0, 1, 2)))
record('norm', 'fro', name, argstr(d=(1, -2), k=False), lambda: torch.norm(x, 'fro', (1, -2)))
record('norm', 'fro', name, argstr(d=(0, -1), k=True), lambda: torch.norm(x, 'fro', (0, -1), True))

# ---------------------------------------------------------------- dtype arguments, errors

IN_DTYPES = [torch.bool, torch.uint8, torch.int32, torch.float16, torch.bfloat16, torch.float32, torch.float64]
for dt in IN_DTYPES:
    name, x = tensor_input(dt, (3, 4), 'r')
    for out in DTYPES:
        for op, f in [('sum', torch.sum), ('nansum', torch.nansum), ('mean', torch.mean)]:
            record(op, 'dim', name, argstr(d=(1,), k=False, t=out), lambda: f(x, (1,), False, dtype=out))
        record('prod', 'dim', name, argstr(d=0, k=False, t=out), lambda: torch.prod(x, 0, False, dtype=out),
               half=lambda: torch.prod(x.to(torch.float16).float(), 0).half())
        record('cumsum', 'dim', name, argstr(d=1, t=out), lambda: torch.cumsum(x, 1, dtype=out),
               half=lambda: torch.cumsum(x.to(torch.float16).float(), 1).half())
        record('cumprod', 'dim', name, argstr(d=0, t=out), lambda: torch.cumprod(x, 0, dtype=out),
               half=lambda: torch.cumprod(x.to(torch.float16).float(), 0).half())
        for op, f in [('softmax', torch.softmax), ('log_softmax', torch.log_softmax)]:
            for d in (0, 1):
                record(op, 'dim', name, argstr(d=d, t=out), lambda: f(x, d, dtype=out),
                       half=lambda: f(x.to(torch.float16).float(), d).half())
        for op, f in [('cumsum', torch.Tensor.cumsum_), ('cumprod', torch.Tensor.cumprod_)]:
            record(op, 'ip', name, argstr(d=1, t=out), lambda: f(x.clone(), 1, dtype=out),
                   half=lambda: f(x.float(), 1).half())
    for op, f in [('cumsum', torch.Tensor.cumsum_), ('cumprod', torch.Tensor.cumprod_)]:
        record(op, 'ip', name, argstr(d=0), lambda: f(x.clone(), 0), half=lambda: f(x.float(), 0).half())
for op, f in [('cumsum', torch.Tensor.cumsum_), ('cumprod', torch.Tensor.cumprod_)]:
    name, x = tensor_input(torch.float32, (3, 4))
    record(op, 'ip', name + '@T', argstr(d=1), lambda: f(x.t().clone(), 1))  # self keeps its transposed layout

name, x = tensor_input(torch.float32, (2, 3), 'r')
sname, s = tensor_input(torch.float32, (), 'r')
for op, f in [('sum', torch.sum), ('mean', torch.mean), ('amax', torch.amax), ('count_nonzero', torch.count_nonzero),
              ('std', torch.std), ('logsumexp', torch.logsumexp), ('nansum', torch.nansum)]:
    for dims in [(2,), (-3,), (0, 0), (0, -2), (1, 0, 1)]:
        record(op, 'dim', name, argstr(d=dims, k=False), lambda: f(x, dims))
    for dims in [(1,), (0, 0), (-1, 0)]:
        record(op, 'dim', sname, argstr(d=dims, k=False), lambda: f(s, dims))
for op, f in [('prod', torch.prod), ('argmax', torch.argmax), ('argmin', torch.argmin), ('all', torch.all),
              ('any', torch.any), ('cumsum', torch.cumsum), ('cumprod', torch.cumprod), ('logcumsumexp', torch.logcumsumexp),
              ('softmax', torch.softmax), ('log_softmax', torch.log_softmax), ('median', torch.median),
              ('mode', torch.mode), ('max', torch.max), ('min', torch.min), ('cummax', torch.cummax), ('cummin', torch.cummin)]:
    for d in (2, -3):
        record(op, 'dim', name, argstr(d=d, k=False), lambda: f(x, d))
    record(op, 'dim', sname, argstr(d=1, k=False), lambda: f(s, 1))
iname, xi = tensor_input(torch.int64, (2, 3), 'r')
record('mean', 'dim', iname, argstr(d=(5,), k=False), lambda: torch.mean(xi, (5,)))
record('mean', 'dim', name, argstr(d=(5,), k=False, t=torch.int32), lambda: torch.mean(x, (5,), dtype=torch.int32))
record('std', 'dim', iname, argstr(d=(5,), k=False), lambda: torch.std(xi, (5,)))
record('norm', 'dim', iname, argstr(p=2, d=(0,), k=False, t=torch.float32),
       lambda: torch.norm(xi, 2, (0,), dtype=torch.float32))
record('logsumexp', 'dim', name, argstr(d=(), k=False), lambda: torch.logsumexp(x, ()))
record('logsumexp', 'dim', name, argstr(d=(), k=True), lambda: torch.logsumexp(x, (), True))
record('logsumexp', 'dim', sname, argstr(d=(), k=False), lambda: torch.logsumexp(s, ()))
ename, e = tensor_input(torch.float32, (0, 3), 'r')
for op, f in [('max', torch.max), ('min', torch.min), ('amax', torch.amax), ('argmax', torch.argmax), ('median', torch.median),
              ('mode', torch.mode), ('prod', torch.prod)]:
    for d in (0, 1):
        record(op, 'dim', ename, argstr(d=d, k=False), lambda: f(e, d))
for op, f in [('max', torch.max), ('amin', torch.amin), ('argmin', torch.argmin), ('median', torch.median)]:
    record(op, 'all', ename, '', lambda: f(e))
record('amax', 'dim', ename, argstr(d=(1, 0), k=False), lambda: torch.amax(e, (1, 0)))
for dt in [torch.int32, torch.uint8, torch.bfloat16, torch.float16]:
    name, x = tensor_input(dt, (0,), 'r')
    record('median', 'all', name, '', lambda: torch.median(x), half=lambda: torch.median(x.float()).half())

# ---------------------------------------------------------------- products, extremes and logic

for dt in DTYPES:
    for kind in float_kinds(dt, ('p', 's')):
        for inp, x in inputs_for(dt, kind):
            record('prod', 'all', inp, '', lambda: torch.prod(x), half=via_float(torch.prod, x))
            for d, kd in [(-1, False), (0, True)] if x.dim() else [(0, False)]:
                record('prod', 'dim', inp, argstr(d=d, k=kd), lambda: torch.prod(x, d, kd),
                       half=lambda: torch.prod(x.float(), d, kd).half())

for dt in DTYPES:
    for kind in float_kinds(dt, ('k', 's')):
        for inp, x in inputs_for(dt, kind):
            forms = [(-1, False), (0, True)] if x.dim() else [(0, False)]
            for op, f in [('max', torch.max), ('min', torch.min), ('argmax', torch.argmax), ('argmin', torch.argmin),
                          ('median', torch.median), ('all', torch.all), ('any', torch.any)]:
                record(op, 'all', inp, '', lambda: f(x), half=via_float(f, x))
                for d, kd in forms:
                    record(op, 'dim', inp, argstr(d=d, k=kd), lambda: f(x, d, kd),
                           half=lambda: halfed(f(x.float(), d, kd)))
            for d, kd in forms:
                record('mode', 'dim', inp, argstr(d=d, k=kd), lambda: torch.mode(x, d, kd))

# long rows: median's selection, mode's introsort and its heapsort fallback
for dt in [torch.int64, torch.float32, torch.float16, torch.bfloat16, torch.uint8]:
    for shape, kind in [((3, 40), 'k'), ((2, 100), 'k'), ((4, 37), 'r'), ((2, 300), 's'), ((3, 64), 'w')]:
        if kind == 'w' and dt.is_floating_point:
            continue
        name, x = tensor_input(dt, shape, kind)
        record('mode', 'dim', name, argstr(d=1, k=False), lambda: torch.mode(x, 1))
        record('mode', 'dim', name + '@T', argstr(d=0, k=False), lambda: torch.mode(x.t(), 0))
        record('median', 'dim', name, argstr(d=1, k=False), lambda: torch.median(x, 1),
               half=lambda: halfed(torch.median(x.float(), 1)))
        record('median', 'all', name, '', lambda: torch.median(x), half=lambda: torch.median(x.float()).half())
for n in [200, 1000, 3000]:
    # a pattern that drives introsort to its depth limit
    pattern = torch.tensor([(i * i) % 7 if i % 3 else i % 5 for i in range(n)], dtype=torch.float32)
    for k in range(n // 2):
        pattern[k] = float(k % 2)
    name = add_input(pattern.view(1, n))
    record('mode', 'dim', name, argstr(d=1, k=False), lambda: torch.mode(pattern.view(1, n), 1))

# ---------------------------------------------------------------- scans and softmax

for dt in DTYPES:
    for kind in float_kinds(dt, ('r', 's')):
        for inp, x in inputs_for(dt, kind):
            for d in [-1, 0] if x.dim() > 1 else [0]:
                a = argstr(d=d)
                record('cumsum', 'dim', inp, a, lambda: torch.cumsum(x, d), half=lambda: torch.cumsum(x.float(), d).half())
                record('cumprod', 'dim', inp, a, lambda: torch.cumprod(x, d),
                       half=lambda: torch.cumprod(x.float(), d).half())
                for op, f in [('cummax', torch.cummax), ('cummin', torch.cummin)]:
                    record(op, 'dim', inp, a, lambda: f(x, d), half=lambda: halfed(f(x.float(), d)))
                record('logcumsumexp', 'dim', inp, a, lambda: torch.logcumsumexp(x, d),
                       half=lambda: torch.logcumsumexp(x.float(), d).half())
                for op, f in [('softmax', torch.softmax), ('log_softmax', log_softmax)]:
                    record(op, 'dim', inp, a, lambda: f(x, d), half=lambda: f(x.float(), d).half())
for dt in [torch.float32, torch.bfloat16]:
    for inp, x in inputs_for(dt, 'k')[:4]:
        for d in [-1, 0]:
            for op, f in [('cummax', torch.cummax), ('cummin', torch.cummin)]:
                record(op, 'dim', inp, argstr(d=d), lambda: f(x, d))

# ---------------------------------------------------------------- expanded inputs: stride 0 in TensorIterator's order

for dt in [torch.float32, torch.float16, torch.float64, torch.int32]:
    name, x = tensor_input(dt, (3, 1, 5), 's' if dt == torch.float32 else 'r')
    for how in ['E3,4,5', 'E2,3,9,5']:
        inp, v = view(name, x, how)
        for dims, kd in dim_lists(v.dim()):
            form, a = ('all', '') if dims is None else ('dim', argstr(d=dims, k=kd))
            for op, f in [('sum', torch.sum), ('mean', torch.mean), ('amax', torch.amax), ('var', torch.var),
                          ('nansum', torch.nansum)]:
                record(op, form, inp, a, (lambda: f(v)) if dims is None else (lambda: f(v, dims, keepdim=kd)))
        for d in [-1, 1]:
            record('prod', 'dim', inp, argstr(d=d, k=False), lambda: torch.prod(v, d),
                   half=lambda: torch.prod(v.float(), d).half())
            record('cumsum', 'dim', inp, argstr(d=d), lambda: torch.cumsum(v, d),
                   half=lambda: torch.cumsum(v.float(), d).half())
            record('max', 'dim', inp, argstr(d=d, k=True), lambda: torch.max(v, d, True))
            if dt.is_floating_point:
                record('softmax', 'dim', inp, argstr(d=d), lambda: torch.softmax(v, d),
                       half=lambda: torch.softmax(v.float(), d).half())
                record('norm', 'dim', inp, argstr(p=2, d=(d,), k=False), lambda: torch.norm(v, 2, (d,)))

# ---------------------------------------------------------------- large inputs: blocks, threads, vector tails

BIG = [
    # contiguous rows long enough for parallel top-level cascade blocks
    (torch.float32, (300000,)), (torch.float64, (150000,)), (torch.float16, (270000,)), (torch.bfloat16, (270000,)),
    # many outputs: parallel over rows, over column groups, over outer dims
    (torch.float32, (700, 600)), (torch.float32, (3, 90000)), (torch.float32, (90000, 3)), (torch.float32, (40, 50, 60)),
    (torch.float64, (301, 257)), (torch.float16, (333, 222)), (torch.bfloat16, (222, 333)),
]
for dt, shape in BIG:
    inp, x = generated(dt, shape)
    views = [(inp, x)]
    if len(shape) == 2:
        views.append((inp + '@T', x.t()))
    if len(shape) == 1:
        views.append((inp + '@I::3', x[::3]))
    if len(shape) == 3:
        views.append((inp + '@P1,2,0', x.permute(1, 2, 0)))
    for vin, v in views:
        for dims, kd in dim_lists(v.dim())[:5]:
            a = argstr(d=dims, k=kd) if dims else ''
            form = 'dim' if dims else 'all'
            red = lambda f: (lambda: f(v) if dims is None else f(v, dims, keepdim=kd))
            record('sum', form, vin, a, red(torch.sum))
            record('mean', form, vin, a, red(torch.mean))
            record('var', form, vin, a, red(torch.var))
            record('amax', form, vin, a, red(torch.amax))
            record('norm', form, vin, argstr(p=2, d=dims, k=kd), (lambda: torch.norm(v, 2)) if dims is None
                   else (lambda: torch.norm(v, 2, dims, kd)))
        record('nansum', 'all', vin, '', lambda: torch.nansum(v))
        record('count_nonzero', 'dim', vin, argstr(d=(0,)), lambda: torch.count_nonzero(v, (0,)))
        record('norm', 'dim', vin, argstr(p=3, d=(-1,), k=False), lambda: torch.norm(v, 3, (-1,)))
        record('var_mean', 'dim', vin, argstr(d=(0,), k=False), lambda: torch.var_mean(v, (0,)))
        record('max', 'dim', vin, argstr(d=-1, k=False), lambda: torch.max(v, -1))
        record('argmin', 'all', vin, '', lambda: torch.argmin(v))
        record('all', 'all', vin, '', lambda: torch.all(v))
        record('cumsum', 'dim', vin, argstr(d=0), lambda: torch.cumsum(v, 0), half=lambda: torch.cumsum(v.float(), 0).half())
        record('logcumsumexp', 'dim', vin, argstr(d=-1), lambda: torch.logcumsumexp(v, -1),
               half=lambda: torch.logcumsumexp(v.float(), -1).half())
        record('softmax', 'dim', vin, argstr(d=-1), lambda: torch.softmax(v, -1), half=lambda: torch.softmax(v.float(), -1).half())
        record('log_softmax', 'dim', vin, argstr(d=0), lambda: log_softmax(v, 0),
               half=lambda: torch.log_softmax(v.float(), 0).half())
        record('logsumexp', 'dim', vin, argstr(d=(0,), k=False), lambda: logsumexp(v, (0,), False))
for dt, shape in [(torch.float32, (100000,)), (torch.float64, (70, 900)), (torch.float32, (65, 1000))]:
    inp, x = generated(dt, shape, 'p')
    for vin, v in [(inp, x), (inp + '@I::2', x[::2])]:
        record('prod', 'all', vin, '', lambda: torch.prod(v))
        for d in range(v.dim()):
            record('prod', 'dim', vin, argstr(d=d, k=False), lambda: torch.prod(v, d))
        record('cumprod', 'dim', vin, argstr(d=-1), lambda: torch.cumprod(v, -1))
for dt in [torch.int64, torch.int8, torch.bool]:
    inp, x = generated(dt, (500, 301))
    record('sum', 'all', inp, '', lambda: torch.sum(x))
    record('sum', 'dim', inp, argstr(d=(0,), k=False), lambda: torch.sum(x, (0,)))
    record('prod', 'dim', inp, argstr(d=1, k=False), lambda: torch.prod(x, 1))
    record('amin', 'all', inp, '', lambda: torch.amin(x))
    record('any', 'dim', inp, argstr(d=0, k=False), lambda: torch.any(x, 0))
    record('count_nonzero', 'all', inp, '', lambda: torch.count_nonzero(x))

banks.save('reduce.ctg')
with open('reduce.txt', 'w') as fh:
    fh.write('\n'.join(lines) + '\n')
print(ncase, 'results,', len(lines), 'lines')
