"""Golden data for pointwise ops: every op of ctorch's op table, every dtype,
broadcasting, non-contiguous operands and Python-number operands.

Writes pointwise.ctg and pointwise.txt, one case a line:
    <op>|<kind>|<inputs...>|<result name>
    <op>|<kind>|<inputs...>|ERR <Type>|<message>
kind: t (a tensor), tT (a tensor, transposed), tt (two tensors), tTt (the first transposed),
      ts (a tensor and a number). A number is written i:<int>, f:<float> or b:<0|1>.

PyTorch 1.13 lacks many float16 CPU kernels ("exp_vml_cpu" not implemented for
'Half'); ctorch has them, computing in float32 and rounding once as later
PyTorch releases do, so those cases record the float32 result rounded to float16.
"""
import torch

from ctg import Writer

w = Writer('pointwise.ctg')
lines = []
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
SHORT = {torch.bool: 'b8', torch.uint8: 'u8', torch.int8: 'i8', torch.int16: 'i16', torch.int32: 'i32',
         torch.int64: 'i64', torch.float16: 'f16', torch.bfloat16: 'bf16', torch.float32: 'f32', torch.float64: 'f64'}
g = torch.Generator().manual_seed(0)


def values(dt, shape):
    n = 1
    for s in shape:
        n *= s
    if dt == torch.bool:
        return (torch.rand(n, generator=g) > 0.5).view(shape)
    if dt == torch.uint8:
        return torch.randint(0, 12, (n,), generator=g).to(dt).view(shape)
    if not dt.is_floating_point:
        return torch.randint(-6, 7, (n,), generator=g).to(dt).view(shape)
    x = torch.rand(n, generator=g, dtype=torch.float64) * 8 - 4
    special = torch.tensor([float('nan'), float('inf'), -float('inf'), -0.0, 0.0, 1.0, -1.0, 0.5], dtype=torch.float64)
    k = min(n, len(special))
    x[:k] = special[:k]
    return x.to(dt).view(shape)


ninputs = 0


def tensor_input(dt, shape):
    global ninputs
    ninputs += 1
    name = 'x_%s_%s_%d' % (SHORT[dt], 'x'.join(map(str, shape)) or 's', ninputs)
    t = values(dt, shape)
    w.add(name, t)
    return name, t


def err(e):
    return 'ERR %s|%s' % (type(e).__name__, str(e).replace('\n', '\\n'))


ncase = 0


def record(op, kind, args, f, *operands):
    """Record f(*operands), or the error PyTorch raises, as one case."""
    global ncase
    try:
        try:
            r = f(*operands)
        except RuntimeError as e:
            if "not implemented for 'Half'" not in str(e):
                raise
            up = [o.float() if isinstance(o, torch.Tensor) and o.dtype == torch.float16 else o for o in operands]
            r = f(*up)
            r = r.half() if r.dtype == torch.float32 else r
        ncase += 1
        rname = 'r%d' % ncase
        w.add(rname, r)
        lines.append('|'.join([op, kind] + args + [rname]))
    except Exception as e:
        lines.append('|'.join([op, kind] + args + [err(e)]))


UNARY = ['neg', 'abs', 'floor', 'exp', 'log', 'sqrt', 'tanh', 'sigmoid', 'relu', 'isnan', 'logical_not']
BINARY = ['add', 'sub', 'mul', 'div', 'maximum', 'pow', 'eq', 'lt', 'logical_and']
NUMBERS = [('i:2', 2), ('i:-3', -3), ('f:2.5', 2.5), ('f:-0.5', -0.5), ('b:1', True), ('i:0', 0)]

for op in UNARY:
    f = getattr(torch, op)
    for dt in DTYPES:
        for shape in [(7,), (3, 5), ()]:
            name, t = tensor_input(dt, shape)
            record(op, 't', [name], f, t)
        name, t = tensor_input(dt, (5, 3))
        record(op, 'tT', [name], f, t.t())

for op in BINARY:
    f = getattr(torch, op)
    for da in DTYPES:
        for db in DTYPES:
            na, a = tensor_input(da, (2, 3))
            nb, b = tensor_input(db, (3,))
            record(op, 'tt', [na, nb], f, a, b)
        for code, v in NUMBERS:
            na, a = tensor_input(da, (4,))
            record(op, 'ts', [na, code], f, a, v)
        na, a = tensor_input(da, (4, 3))
        nb, b = tensor_input(da, ())
        record(op, 'tTt', [na, nb], f, a.t(), b)
    # a dimensioned tensor outranks a 0-d one in promotion
    for da, db in [(torch.int32, torch.float64), (torch.float32, torch.float64)]:
        na, a = tensor_input(da, (3,))
        nb, b = tensor_input(db, ())
        record(op, 'tt', [na, nb], f, a, b)
    na, a = tensor_input(torch.float32, (2, 3))
    nb, b = tensor_input(torch.float32, (4,))
    record(op, 'tt', [na, nb], f, a, b)

w.save()
with open('pointwise.txt', 'w') as fh:
    fh.write('\n'.join(lines) + '\n')
print(ncase, 'cases,', len(lines), 'lines')
