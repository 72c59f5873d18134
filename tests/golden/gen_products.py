"""Golden values of the matrix products: for each case, the inputs (small
integers, so every sum is exact in any order and results compare bit for
bit), the output, and for floating cases a gradient of the output, PyTorch's
gradients of the inputs and the output's grad_fn name.

Writes products.ctg (tensors c<case>_x<i>, c<case>_out, c<case>_g,
c<case>_gx<i>) and products.txt, one case a line:
    <case>|<op>|<views>|<beta>|<alpha>|<graph or ->
graph: the output's grad_fn name, then its next functions' graphs in
parentheses, comma-separated (None for an input without a gradient), so the
whole recorded decomposition of matmul is checked.
views: one letter per input applied to the stored tensor before the call:
'-' as stored, T its transpose (last two dims), S every other element of
its last dim (a strided view), B unsqueezed and expanded to a batch of 2.
Inputs that require grad are the viewed tensors made leaves.
"""
import torch

from ctg import Writer, graph, stored_shape, view_of

torch.manual_seed(0)
W = Writer('products.ctg')
lines = []
F = [torch.float32, torch.float64]
INTS = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bfloat16]


def run(op, xs, beta, alpha):
    f = getattr(torch, op)
    if op in ('addmm', 'addmv', 'baddbmm'):
        return f(*xs, beta=beta, alpha=alpha)
    return f(*xs)


def case(op, shapes, dt=torch.float32, views=None, beta=1.0, alpha=1.0):
    k = len(lines)
    views = views or '-' * len(shapes)
    lo = 0 if dt == torch.uint8 else -3
    xs = []
    for i, (s, v) in enumerate(zip(shapes, views)):
        base = torch.randint(lo, 4, stored_shape(tuple(s), v)).to(dt)
        W.add('c%d_x%d' % (k, i), base)
        x = view_of(base, v)
        if dt.is_floating_point:
            x = x.detach().requires_grad_()
        xs.append(x)
    out = run(op, xs, beta, alpha)
    W.add('c%d_out' % k, out)
    node = '-'
    if dt in F:
        node = graph(out.grad_fn)
        g = torch.randint(-3, 4, out.shape).to(dt)
        W.add('c%d_g' % k, g)
        gs = torch.autograd.grad(out, xs, g)
        for i, gx in enumerate(gs):
            W.add('c%d_gx%d' % (k, i), gx)
    lines.append('%d|%s|%s|%r|%r|%s' % (k, op, views, beta, alpha, node))


for dt in F:
    case('mm', [(3, 4), (4, 5)], dt)
    case('mm', [(3, 4), (4, 5)], dt, 'TT')
    case('mm', [(3, 4), (4, 5)], dt, 'S-')
    case('mm', [(3, 0), (0, 2)], dt)
    case('mm', [(0, 3), (3, 2)], dt)
    case('mm', [(1, 7), (7, 1)], dt)
    case('bmm', [(2, 3, 4), (2, 4, 5)], dt)
    case('bmm', [(2, 3, 4), (2, 4, 5)], dt, 'TS')
    case('bmm', [(3, 4), (4, 5)], dt, 'BB')
    case('bmm', [(0, 3, 4), (0, 4, 5)], dt)
    case('mv', [(3, 4), (4,)], dt)
    case('mv', [(3, 4), (4,)], dt, 'TS')
    case('mv', [(3, 0), (0,)], dt)
    case('dot', [(5,), (5,)], dt)
    case('dot', [(5,), (5,)], dt, 'SS')
    case('dot', [(0,), (0,)], dt)
    case('vdot', [(5,), (5,)], dt)
    case('outer', [(3,), (4,)], dt)
    case('addmm', [(3, 5), (3, 4), (4, 5)], dt)
    case('addmm', [(5,), (3, 4), (4, 5)], dt, beta=0.5, alpha=2.0)
    case('addmm', [(3, 1), (3, 4), (4, 5)], dt, '-T-', beta=0.0, alpha=-1.0)
    case('addmm', [(3, 5), (3, 0), (0, 5)], dt, beta=2.0)
    case('addmv', [(3,), (3, 4), (4,)], dt)
    case('addmv', [(1,), (3, 4), (4,)], dt, '-T-', beta=-2.0, alpha=0.5)
    case('addmv', [(), (3, 4), (4,)], dt, beta=0.0)
    case('baddbmm', [(2, 3, 5), (2, 3, 4), (2, 4, 5)], dt)
    case('baddbmm', [(5,), (2, 3, 4), (2, 4, 5)], dt, '-TT', beta=3.0, alpha=0.25)
    # matmul: every path (dot, mv, 1-D @ 2-D, mm, folded, folded transposed, batched, broadcast)
    case('matmul', [(4,), (4,)], dt)
    case('matmul', [(3, 4), (4,)], dt)
    case('matmul', [(4,), (4, 3)], dt)
    case('matmul', [(3, 4), (4, 5)], dt)
    case('matmul', [(2, 3, 4), (4, 5)], dt)
    case('matmul', [(2, 3, 4), (4,)], dt)
    case('matmul', [(4,), (2, 4, 3)], dt)
    case('matmul', [(3, 4), (2, 4, 5)], dt)
    case('matmul', [(2, 3, 4), (2, 4, 5)], dt)
    case('matmul', [(2, 1, 3, 4), (3, 4, 5)], dt)
    case('matmul', [(2, 3, 4), (4, 5)], dt, 'T-')
    case('matmul', [(2, 3, 4), (4, 5)], dt, 'S-')
    case('matmul', [(3, 4), (4, 5)], dt, 'B-')
    case('matmul', [(3, 5, 0), (0, 0)], dt)
for dt in INTS:
    case('mm', [(3, 4), (4, 5)], dt, 'T-')
    case('bmm', [(2, 3, 4), (2, 4, 5)], dt)
    case('mv', [(3, 4), (4,)], dt)
    case('dot', [(5,), (5,)], dt)
    case('addmm', [(3, 5), (3, 4), (4, 5)], dt, beta=2.5 if dt != torch.bfloat16 else 0.5, alpha=1.7 if dt != torch.bfloat16 else 2.0)
    case('addmv', [(3,), (3, 4), (4,)], dt, beta=0.5)
    case('baddbmm', [(2, 3, 5), (2, 3, 4), (2, 4, 5)], dt, alpha=2.0)
    case('matmul', [(2, 3, 4), (4, 5)], dt)
    case('outer', [(3,), (4,)], dt)

W.save()
with open('products.txt', 'w') as f:
    f.write('\n'.join(lines) + '\n')
