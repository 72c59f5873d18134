"""Golden values of einsum, tensordot, kron and cross: for each case, the
inputs, the output, and for floating cases a gradient of the output,
PyTorch's gradients of the inputs and the output's graph.

Inputs are small integers (every sum is exact in any order, so results
compare bit for bit), except in cases marked 'r': normal draws, used where
no sum is involved (kron, and cross, whose float kernel PyTorch compiles with
a fused multiply-add that ctorch must match).

Writes einsum.ctg (tensors c<case>_x<i>, c<case>_out, c<case>_g,
c<case>_gx<i>) and einsum.txt, one case a line:
    <case>|<op>|<arg>|<views>|<values>|<graph or ->
op: einsum (arg: the equation), tensordot (arg: dims), tensordot_dims (arg:
dims_a;dims_b, comma-separated), kron, cross (arg: -), cross_dim and
linalg_cross (arg: dim).
views: one letter per input applied to the stored tensor before the call:
'-' as stored, T its transpose (last two dims), S every other element of
its last dim, B unsqueezed and expanded to a batch of 2 in front. Inputs that
require grad are the viewed tensors made leaves.
graph: the output's grad_fn name, then its next functions' graphs in
parentheses (None for an input without a gradient).
"""
import torch

from ctg import Writer, graph, stored_shape, view_of

torch.manual_seed(0)
W = Writer('einsum.ctg')
lines = []
F = [torch.float32, torch.float64]
INTS = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bfloat16]


def run(op, arg, xs):
    if op == 'einsum':
        return torch.einsum(arg, *xs)
    if op == 'tensordot':
        return torch.tensordot(xs[0], xs[1], int(arg))
    if op == 'tensordot_dims':
        da, db = [[int(d) for d in part.split(',') if d] for part in arg.split(';')]
        return torch.tensordot(xs[0], xs[1], (da, db))
    if op == 'kron':
        return torch.kron(xs[0], xs[1])
    if op == 'cross':
        return torch.cross(xs[0], xs[1])
    if op == 'cross_dim':
        return torch.cross(xs[0], xs[1], int(arg))
    if op == 'linalg_cross':
        return torch.linalg.cross(xs[0], xs[1], dim=int(arg))
    raise ValueError(op)


def make(shape, dt, values):
    if values == 'r':
        return torch.randn(shape, dtype=torch.float64).to(dt)
    lo = 0 if dt in (torch.uint8, torch.bool) else -3
    hi = 2 if dt == torch.bool else 4
    return torch.randint(lo, hi, shape).to(dt)


def case(op, arg, shapes, dt=torch.float32, views=None, values='i'):
    k = len(lines)
    views = views or '-' * len(shapes)
    dts = dt if isinstance(dt, list) else [dt] * len(shapes)
    floating = all(d in F for d in dts)
    xs = []
    for i, (s, v, d) in enumerate(zip(shapes, views, dts)):
        base = make(stored_shape(tuple(s), v), d, values)
        W.add('c%d_x%d' % (k, i), base)
        x = view_of(base, v)
        if floating:
            x = x.detach().requires_grad_()
        xs.append(x)
    out = run(op, arg, xs)
    W.add('c%d_out' % k, out)
    node = '-'
    if floating:
        node = graph(out.grad_fn)
        g = torch.randint(-3, 4, out.shape).to(out.dtype)
        W.add('c%d_g' % k, g)
        for i, gx in enumerate(torch.autograd.grad(out, xs, g)):
            W.add('c%d_gx%d' % (k, i), gx)
    line = '%d|%s|%s|%s|%s|%s' % (k, op, arg, views, values, node)
    assert len(line) < 4000, line
    lines.append(line)


EINSUM = [
    # products: matmul, batched, outer, dot, hadamard
    ('ij,jk->ik', [(3, 4), (4, 5)]),
    ('ij,jk', [(3, 4), (4, 5)]),
    ('ij,jk->ki', [(3, 4), (4, 5)]),
    ('bij,bjk->bik', [(2, 3, 4), (2, 4, 5)]),
    ('bij,bjk', [(2, 3, 4), (2, 4, 5)]),
    ('i,j->ij', [(3,), (4,)]),
    ('i,j', [(3,), (4,)]),
    ('i,i->', [(5,), (5,)]),
    ('i,i', [(5,), (5,)]),
    ('ij,ij->ij', [(2, 3), (2, 3)]),
    ('ij,ij->', [(2, 3), (2, 3)]),
    ('ij,j->i', [(3, 4), (4,)]),
    ('ijk,ikl->jl', [(2, 3, 4), (2, 4, 5)]),
    ('ij,jk->i', [(3, 4), (4, 5)]),
    ('i,j->', [(3,), (4,)]),
    ('ab,cd->dacb', [(2, 3), (4, 1)]),
    # one operand: trace, diagonal, transpose, sums
    ('ii', [(4, 4)]),
    ('ii->i', [(4, 4)]),
    ('ii->', [(4, 4)]),
    ('iij->j', [(3, 3, 2)]),
    ('iji->j', [(3, 2, 3)]),
    ('iii->i', [(3, 3, 3)]),
    ('ij->ji', [(2, 3)]),
    ('ji', [(2, 3)]),
    ('ij', [(2, 3)]),
    ('ij->', [(2, 3)]),
    ('ijk->', [(2, 3, 4)]),
    ('ijk->j', [(2, 3, 4)]),
    ('ijk->kij', [(2, 3, 4)]),
    # labels of size 1 broadcast
    ('ij,kj->ik', [(1, 3), (4, 3)]),
    ('ij,jk', [(2, 1), (3, 4)]),
    ('ij,j', [(2, 3), (1,)]),
    ('bij,bjk->bik', [(1, 3, 4), (2, 4, 5)]),
    # ellipsis
    ('...ij->...ji', [(2, 3, 4, 5)]),
    ('...->...', [(2, 3)]),
    ('...ij,...jk->...ik', [(2, 1, 3, 4), (5, 4, 2)]),
    ('...ij,jk->...ik', [(2, 3, 4), (4, 5)]),
    ('...i,...i->...', [(2, 3, 4), (4,)]),
    ('i...,i...->...', [(3, 2), (3, 2)]),
    ('...,...', [(2, 3), (3,)]),
    ('a...b,b...c->...ac', [(2, 3, 4), (4, 3, 5)]),
    ('ii...->i...', [(3, 3, 2)]),
    ('...ii->...i', [(2, 3, 3)]),
    ('ij->...ij', [(2, 3)]),
    ('...ij->', [(2, 3, 4)]),
    ('...ij->j', [(2, 3, 4)]),
    # three and four operands
    ('ij,jk,kl->il', [(2, 3), (3, 4), (4, 5)]),
    ('ij,jk,kl', [(2, 3), (3, 4), (4, 5)]),
    ('bn,anm,bm->ba', [(2, 3), (4, 3, 5), (2, 5)]),
    ('a,b,c->abc', [(2,), (3,), (4,)]),
    ('i,i,i->', [(4,), (4,), (4,)]),
    ('ab,bc,cd,de->ae', [(2, 3), (3, 4), (4, 2), (2, 3)]),
    ('...a,a...,ab->...b', [(2, 3), (3, 2), (3, 4)]),
    ('iij,jk,k->i', [(3, 3, 4), (4, 5), (5,)]),
    # zero-size dims and 0-d operands
    ('ij,jk', [(0, 3), (3, 4)]),
    ('ij,jk', [(2, 0), (0, 4)]),
    ('i,i', [(0,), (0,)]),
    ('ii', [(0, 0)]),
    ('ij->', [(0, 3)]),
    ('', [()]),
    ('->', [()]),
    (',->', [(), ()]),
    ('i,->i', [(3,), ()]),
    # upper case and spaces
    ('Ab,bC->AC', [(2, 3), (3, 4)]),
    ('bA', [(2, 3)]),
    (' i j , j k -> i k ', [(2, 3), (3, 4)]),
]
for dt in F:
    for eq, shapes in EINSUM:
        case('einsum', eq, shapes, dt)
    # non-contiguous operands
    case('einsum', 'ij,jk->ik', [(3, 4), (4, 5)], dt, 'TS')
    case('einsum', 'bij,bjk->bik', [(2, 3, 4), (2, 4, 5)], dt, 'ST')
    case('einsum', 'bij,bjk->bik', [(3, 4), (4, 5)], dt, 'BB')
    case('einsum', 'ii->i', [(3, 3)], dt, 'T')
    case('einsum', 'ij,jk,kl->il', [(2, 3), (3, 4), (4, 5)], dt, 'TS-')
    case('einsum', '...ij,...jk', [(2, 4), (2, 4, 3)], dt, 'BT')
for dt in INTS:
    case('einsum', 'ij,jk->ik', [(3, 4), (4, 5)], dt)
    case('einsum', 'bij,bjk->bik', [(2, 3, 4), (2, 4, 5)], dt, 'T-')
    case('einsum', 'i,j->ij', [(3,), (4,)], dt)
    case('einsum', 'ii', [(4, 4)], dt)
    case('einsum', 'ij->', [(2, 3)], dt)
    case('einsum', 'ij,jk,kl->il', [(2, 3), (3, 4), (4, 5)], dt)
case('einsum', 'i,j->ij', [(3,), (4,)], torch.bool)
case('einsum', 'ij->', [(2, 3)], torch.bool)
case('einsum', 'i,j->ij', [(3,), (4,)], [torch.int32, torch.float32])
case('einsum', 'i,j', [(3,), (4,)], [torch.uint8, torch.int8])

for dt in F:
    case('tensordot', '2', [(2, 3, 4), (3, 4, 5)], dt)
    case('tensordot', '0', [(2, 3), (4,)], dt)
    case('tensordot', '1', [(2, 3), (3, 4)], dt)
    case('tensordot', '3', [(2, 3, 4), (2, 3, 4)], dt)
    case('tensordot', '0', [(), ()], dt)
    case('tensordot', '1', [(0, 3), (3, 2)], dt)
    case('tensordot', '1', [(2, 3), (3, 4)], dt, 'TT')
    case('tensordot_dims', '1,0;0,1', [(3, 4, 5), (4, 3, 2)], dt)
    case('tensordot_dims', '2,1,3;1,2,0', [(3, 5, 4, 6), (6, 4, 5, 3)], dt)
    case('tensordot_dims', '-1;0', [(2, 3), (3, 4)], dt)
    case('tensordot_dims', '1;1', [(2, 1, 4), (4, 2, 5)], dt)
    case('tensordot_dims', '1;1', [(2, 3, 4), (4, 1, 5)], dt)
    case('tensordot_dims', ';', [(2, 3), (4,)], dt)
    case('tensordot_dims', '0;1', [(3, 4), (2, 3)], dt, 'ST')
for dt in [torch.int64, torch.int32, torch.uint8, torch.bfloat16]:
    case('tensordot', '1', [(2, 3), (3, 4)], dt)
    case('tensordot_dims', '1,0;0,1', [(3, 4, 5), (4, 3, 2)], dt)

for dt in F:
    case('kron', '-', [(2, 3), (4, 5)], dt, values='r')
    case('kron', '-', [(2, 3), (5,)], dt, values='r')
    case('kron', '-', [(3,), (2, 4, 5)], dt, values='r')
    case('kron', '-', [(), ()], dt, values='r')
    case('kron', '-', [(), (3,)], dt, values='r')
    case('kron', '-', [(0, 3), (4, 5)], dt)
    case('kron', '-', [(2, 3), (4, 5)], dt, 'S-', values='r')
    case('kron', '-', [(4, 5), (2, 3)], dt, '-S', values='r')
    case('kron', '-', [(2, 3), (4, 5)], dt, 'B-', values='r')
for dt in [torch.int64, torch.int32, torch.int8, torch.uint8, torch.bfloat16, torch.float16, torch.bool]:
    case('kron', '-', [(2, 3), (3, 2)], dt)
case('kron', '-', [(2, 3), (3, 2)], [torch.int32, torch.float32])

for dt in F:
    case('cross', '-', [(4, 3), (4, 3)], dt, values='r')
    case('cross', '-', [(3, 3), (3, 3)], dt, values='r')
    case('cross', '-', [(2, 3, 4), (2, 3, 4)], dt, values='r')
    case('cross', '-', [(1, 3), (4, 3)], dt)
    case('cross', '-', [(4, 3), (1, 3)], dt)
    case('cross', '-', [(3, 0), (3, 0)], dt)
    case('cross_dim', '0', [(3, 4), (3, 4)], dt, values='r')
    case('cross_dim', '-1', [(4, 3), (4, 3)], dt, values='r')
    case('linalg_cross', '-1', [(2, 4, 3), (2, 4, 3)], dt, values='r')
    case('linalg_cross', '1', [(2, 3, 4), (1, 3, 4)], dt)
    case('linalg_cross', '0', [(3,), (3,)], dt, values='r')
    case('linalg_cross', '-1', [(0, 3), (0, 3)], dt)
    case('linalg_cross', '-1', [(4, 3), (4, 3)], dt, 'T-', values='r')
    case('linalg_cross', '0', [(3, 2), (3, 2)], dt, 'S-', values='r')
    case('linalg_cross', '-1', [(4, 3), (4, 3)], dt, 'BB', values='r')
for dt in [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]:
    case('cross', '-', [(4, 3), (4, 3)], dt)
    case('linalg_cross', '0', [(3, 4), (3, 1)], dt)
case('cross', '-', [(4, 3), (4, 3)], torch.bfloat16, values='r')
case('linalg_cross', '-1', [(2, 3), (2, 3)], torch.bfloat16, 'T-', values='r')

# float16: einsum without a product (bmm refuses it, as the error tests show)
for eq, shapes in [('ij->ji', [(2, 3)]), ('ij->', [(2, 3)]), ('ii->i', [(3, 3)]), ('i,j->ij', [(3,), (4,)])]:
    case('einsum', eq, shapes, torch.float16)

W.save()
with open('einsum.txt', 'w') as f:
    f.write('\n'.join(lines) + '\n')
