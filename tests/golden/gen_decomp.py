"""Golden data for the linear algebra ops (src/linalg): inputs and
PyTorch's results, float32 and float64, single matrices, batches, empty
ones and transposed (non-contiguous) inputs.

Writes decomp.ctg. Case k of op <op> is stored as
    <op>.<k>.in<i>   the inputs
    <op>.<k>.tr      a bit mask of the inputs stored transposed (the C test
                     passes the mT view of what is stored: the same values,
                     non-contiguous)
    <op>.<k>.out<i>  the results, in the order ctorch returns them
    <op>.<k>.arg     one float64 number (an order, a power, a flag; 0: none)
and <op>.count holds how many cases there are. Results whose signs are not
unique (singular and eigen vectors) are not stored, but for eig's vectors,
which the C test compares up to a phase: it checks the others by their
invariants.
"""
import ctypes
import warnings

import torch

from ctg import Writer

warnings.filterwarnings('ignore')
torch.manual_seed(0)
w = Writer('decomp.ctg')
L = torch.linalg
counts = {}


def case(op, inputs, outputs, arg=None, transposed=()):
    k = counts.get(op, 0)
    counts[op] = k + 1
    for i, t in enumerate(inputs):
        w.add('%s.%d.in%d' % (op, k, i), t.mT.contiguous() if i in transposed else t)
    for i, t in enumerate(outputs):
        w.add('%s.%d.out%d' % (op, k, i), t)
    w.add('%s.%d.arg' % (op, k), torch.tensor(float(arg or 0), dtype=torch.float64))
    w.add('%s.%d.tr' % (op, k), torch.tensor(sum(1 << i for i in transposed)))


def rnd(*shape, dt=torch.float64):
    return torch.randn(*shape, dtype=torch.float64).to(dt)


def spd(*shape, dt=torch.float64):
    a = torch.randn(*shape, dtype=torch.float64)
    return (a @ a.mT + shape[-1] * torch.eye(shape[-1], dtype=torch.float64)).to(dt)


for dt in (torch.float32, torch.float64):
    square = [rnd(3, 3, dt=dt), rnd(2, 4, 4, dt=dt), rnd(1, 1, dt=dt), rnd(0, 0, dt=dt), rnd(2, 0, 0, dt=dt)]
    for a in square:
        case('inv', [a], [L.inv(a)])
        case('det', [a], [L.det(a)])
        case('slogdet', [a], list(L.slogdet(a)))
    a = rnd(3, 3, dt=dt)
    case('inv', [a], [L.inv(a)], transposed=(0,))
    sing = torch.tensor([[1., 2], [2, 4]], dtype=dt)
    case('det', [sing], [L.det(sing)])
    case('slogdet', [sing], list(L.slogdet(sing)))
    neg = torch.tensor([[0., 1], [1, 0]], dtype=dt)
    case('slogdet', [neg], list(L.slogdet(neg)))

    for A, B in [(rnd(3, 3, dt=dt), rnd(3, dt=dt)), (rnd(2, 3, 3, dt=dt), rnd(2, 3, 2, dt=dt)),
                 (rnd(2, 1, 3, 3, dt=dt), rnd(4, 3, 2, dt=dt)), (rnd(2, 3, 3, dt=dt), rnd(2, 3, dt=dt)),
                 (rnd(2, 3, 3, dt=dt), rnd(3, dt=dt))]:
        case('solve', [A, B], [L.solve(A, B)])
    A = rnd(3, 3, dt=dt)
    B = rnd(3, 2, dt=dt)
    case('solve', [A, B], [L.solve(A, B)], transposed=(0,))

    for a in [spd(3, 3, dt=dt), spd(2, 4, 4, dt=dt)]:
        case('cholesky', [a], [L.cholesky(a)], arg=0)
        case('cholesky', [a], [L.cholesky(a, upper=True)], arg=1)
    lower_only = spd(3, 3, dt=dt).tril() + torch.triu(torch.full((3, 3), 100., dtype=dt), 1)
    case('cholesky', [lower_only], [L.cholesky(lower_only)], arg=0)

    modes = {'reduced': 0, 'complete': 1, 'r': 2}
    for a in [rnd(4, 3, dt=dt), rnd(3, 4, dt=dt), rnd(2, 3, 3, dt=dt), torch.tensor([[1., 2], [3, 4]], dtype=dt)]:
        for mode, code in modes.items():
            q, r = L.qr(a, mode=mode)
            case('qr', [a], [q, r], arg=code)

    for a in [rnd(4, 3, dt=dt), rnd(3, 5, dt=dt), rnd(2, 3, 3, dt=dt), torch.tensor([[1., 2], [3, 4], [5, 6]], dtype=dt),
              torch.ones(3, 3, dtype=dt)]:
        case('svdvals', [a], [L.svdvals(a)])
        case('matrix_rank', [a], [L.matrix_rank(a)], arg=0)
        case('pinv', [a], [L.pinv(a)], arg=0)
    for a in [spd(3, 3, dt=dt), spd(2, 4, 4, dt=dt), torch.tensor([[2., 1], [1, 2]], dtype=dt)]:
        m = a + torch.triu(rnd(*a.shape, dt=dt), 1)  # the upper triangle differs from the lower
        case('eigvalsh', [m], [L.eigvalsh(m)], arg=0)
        case('eigvalsh', [m], [L.eigvalsh(m, UPLO='U')], arg=1)
        case('matrix_rank', [a], [L.matrix_rank(a, hermitian=True)], arg=1)
        case('pinv', [a], [L.pinv(a, hermitian=True)], arg=1)
    for a in [rnd(4, 4, dt=dt), rnd(2, 3, 3, dt=dt), torch.tensor([[1., 2], [-5, 4]], dtype=dt),
              torch.tensor([[2., 0, 0], [0, 3, 4], [0, -4, 3]], dtype=dt)]:
        case('eigvals', [a], [torch.view_as_real(L.eigvals(a))])

    for A, B in [(rnd(5, 3, dt=dt), rnd(5, 2, dt=dt)), (rnd(5, 3, dt=dt), rnd(5, dt=dt)),
                 (rnd(2, 4, 2, dt=dt), rnd(2, 4, 3, dt=dt)), (rnd(3, 3, dt=dt), rnd(3, 1, dt=dt))]:
        case('lstsq', [A, B], [L.lstsq(A, B).solution])

    ords = {'fro': 0, 'nuc': 1, '1': 2, '-1': 3, '2': 4, '-2': 5, 'inf': 6, '-inf': 7}
    values = {'fro': 'fro', 'nuc': 'nuc', '1': 1, '-1': -1, '2': 2, '-2': -2, 'inf': float('inf'), '-inf': float('-inf')}
    a = rnd(2, 3, 4, dt=dt)
    for name, code in ords.items():
        case('matrix_norm', [a], [L.matrix_norm(a, values[name])], arg=code)
        case('matrix_norm', [a], [L.matrix_norm(a, values[name], dim=(2, 0), keepdim=True)], arg=code + 8)
    x = rnd(3, 4, dt=dt)
    for ord in [2, 1, float('inf'), float('-inf'), 0, 3.5]:
        case('vector_norm', [x], [L.vector_norm(x, ord)], arg=ord)
        case('vector_norm', [x], [L.vector_norm(x, ord, dim=1)], arg=ord)

    for a in [rnd(3, 3, dt=dt), rnd(2, 5, dt=dt), rnd(4, 2, dt=dt)]:
        case('trace', [a], [torch.trace(a)])
    a = rnd(3, 3, dt=dt)
    for n in [0, 1, 2, 3, 5, 6, -1, -3]:
        case('matrix_power', [a], [L.matrix_power(a, n)], arg=n)
    b = rnd(2, 2, 2, dt=dt)
    case('matrix_power', [b], [L.matrix_power(b, 4)], arg=4)
    for a in [rnd(3, 3, dt=dt) * 0.1, rnd(3, 3, dt=dt) * 3, rnd(2, 4, 4, dt=dt), torch.tensor([[0., 1], [-1, 0]], dtype=dt)]:
        case('matrix_exp', [a], [L.matrix_exp(a)])

a = torch.arange(9, dtype=torch.int32).view(3, 3)
case('trace', [a], [torch.trace(a)])
case('matrix_power', [a], [L.matrix_power(a, 3)], arg=3)



# ---------------------------------------------------------------- gradients
# Losses that do not depend on the eigenvectors' phases, which for float32
# input can differ from sgeev's (ctorch decomposes in double): |V|^2 column
# j weighted by W and by eigenvalue j.
def spectral_loss(lam):
    lr, li = lam.real, lam.imag
    return (lr ** 3).sum() + (lr * li * li).sum()


def eig_loss(a, W):
    lam, V = L.eig(a)
    return spectral_loss(lam) + (V.abs() ** 2 * W.unsqueeze(-1) * (lam.real + lam.imag).unsqueeze(-2)).sum()


def grad_of(loss, inputs, create_graph=False):
    gs = torch.autograd.grad(loss, inputs, create_graph=create_graph)
    return [g.detach() for g in gs]


for dt in (torch.float32, torch.float64):
    for a in [rnd(3, 3, dt=dt), rnd(2, 4, 4, dt=dt), torch.tensor([[2., 1, 0], [0.5, 3, 1], [0, 0.2, -1]], dtype=dt),
              torch.tensor([[1., 2], [-5, 4]], dtype=dt)]:
        W = rnd(a.shape[-1], dt=dt)
        a.requires_grad_(True)
        case('eig_grad', [a.detach(), W], grad_of(eig_loss(a, W), a) + grad_of(spectral_loss(L.eigvals(a)), a))

    # (PyTorch 1.13 cannot differentiate lstsq with a vector B: its formula
    # takes B for a matrix. ctorch can; the C test gradchecks that case.)
    for A, B in [(rnd(5, 3, dt=dt), rnd(5, 2, dt=dt)), (rnd(2, 4, 2, dt=dt), rnd(1, 4, 3, dt=dt)),
                 (rnd(3, 3, dt=dt), rnd(3, 1, dt=dt)), (rnd(2, 5, dt=dt), rnd(2, 2, dt=dt))]:
        A.requires_grad_(True)
        B.requires_grad_(True)
        X = L.lstsq(A, B).solution
        Wx = rnd(*X.shape, dt=dt)
        case('lstsq_grad', [A.detach(), B.detach(), Wx], grad_of((X * Wx).sum(), [A, B]))

    # det at singular matrices: PyTorch's first-order gradient (zero where
    # det is exactly 0) and its create_graph one (the cofactors, by SVD)
    tiny = torch.tensor([[1., 1], [1, 1 + 2 ** -52]], dtype=torch.float64).to(dt)
    r3 = torch.tensor([[1., 2, 3], [4, 5, 6], [7, 8, 9]], dtype=dt)
    for a in [torch.tensor([[1., 2], [2, 4]], dtype=dt), r3, torch.zeros(3, 3, dtype=dt), tiny,
              torch.stack([r3, rnd(3, 3, dt=dt)])]:
        Wd = torch.randn(a.shape[:-2], dtype=torch.float64).to(dt)
        a.requires_grad_(True)
        first = grad_of((L.det(a) * Wd).sum(), a)
        higher = grad_of((L.det(a) * Wd).sum(), a, create_graph=True)
        case('det_grad', [a.detach(), Wd], first + higher)

# torch.linalg.lstsq's four results by driver (arg: its index in DRIVERS,
# plus 10 when written in capitals; 4 for none given) and rcond (in2: empty for None, else one float64).
DRIVERS = ['gels', 'gelsy', 'gelsd', 'gelss']
for dt in (torch.float32, torch.float64):
    def lstsq_case(A, B, driver=None, rcond=None, transposed=()):
        r = L.lstsq(A, B, rcond=rcond, driver=driver)
        rc = torch.tensor([] if rcond is None else [rcond], dtype=torch.float64)
        case('lstsq_all', [A, B, rc], list(r), arg=4 if driver is None else DRIVERS.index(driver.lower()) + 10 * driver.isupper(),
             transposed=transposed)

    deficient = (rnd(5, 2) @ rnd(2, 3)).to(dt)
    batch_deficient = torch.stack([rnd(5, 3, dt=dt), deficient])
    for driver in DRIVERS + [None]:
        lstsq_case(rnd(5, 3, dt=dt), rnd(5, 2, dt=dt), driver)
        lstsq_case(rnd(3, 5, dt=dt), rnd(3, 2, dt=dt), driver)
        lstsq_case(rnd(4, 4, dt=dt), rnd(4, 2, dt=dt), driver)
        lstsq_case(rnd(2, 5, 3, dt=dt), rnd(2, 5, 2, dt=dt), driver)
        lstsq_case(rnd(2, 5, 3, dt=dt), rnd(1, 5, 2, dt=dt), driver)
        lstsq_case(rnd(2, 5, 3, dt=dt), rnd(2, 5, dt=dt), driver)
        lstsq_case(rnd(6, 4, dt=dt), rnd(6, 3, dt=dt), driver, transposed=(0,))
        lstsq_case(rnd(0, 3, dt=dt), rnd(0, 2, dt=dt), driver)
        lstsq_case(rnd(5, 0, dt=dt), rnd(5, 2, dt=dt), driver)
        lstsq_case(rnd(0, 5, 3, dt=dt), rnd(0, 5, 2, dt=dt), driver)
        if driver != 'gels':  # gels assumes full rank: LAPACK's answer is not meaningful
            lstsq_case(deficient, rnd(5, 2, dt=dt), driver)
            lstsq_case(batch_deficient, rnd(2, 5, 2, dt=dt), driver)
    for driver in ['gelsd', 'gelss']:
        lstsq_case(rnd(5, 3, dt=dt), rnd(5, 2, dt=dt), driver, rcond=0.5)
        lstsq_case(rnd(5, 3, dt=dt), rnd(5, 2, dt=dt), driver, rcond=-1.0)
        lstsq_case(rnd(5, 3, dt=dt), rnd(5, 2, dt=dt), driver, rcond=1.0)
        lstsq_case(rnd(5, 3, dt=dt), rnd(5, 2, dt=dt), driver, rcond=0.0)
    lstsq_case(rnd(5, 3, dt=dt), rnd(5, 2, dt=dt), 'gels', rcond=0.5)
    lstsq_case(rnd(5, 3, dt=dt), rnd(5, 2, dt=dt), 'GELSD')


# gels and gelsy where LAPACK's algorithms part from an SVD: the rank that
# gelsy's pivoted QR and incremental condition estimate find near rcond,
# the solution of its complete orthogonal factorization (not the truncated
# SVD's), m < n and m > n, batches; gels on zero matrices and its full-rank
# error (tests/test_errors_decomp.c). PyTorch 1.13 hands gelsy an
# uninitialised JPVT array (at::empty) and reuses it across a batch, so
# nonzero garbage pins columns in front and later matrices of a batch are
# not pivoted at all (pytorch/pytorch#71222, #92537, #187411): its rank and
# solution there change from run to run. The expected values of these
# cases are what PyTorch's own LAPACK call computes with every column free
# (JPVT zeroed), the result PyTorch gives when that memory holds zeros: the
# same liblapack (OpenBLAS's), called here through ctypes.
_lapack = ctypes.CDLL('liblapack.so.3')


def lapack_gelsy(A, B, rcond):
    """LAPACK xgelsy on each matrix of A (..., m, n), B (..., m, k): solution, rank (PyTorch's tuple)."""
    real = ctypes.c_float if A.dtype == torch.float32 else ctypes.c_double
    fn = _lapack.sgelsy_ if A.dtype == torch.float32 else _lapack.dgelsy_
    m, n, k = A.shape[-2], A.shape[-1], B.shape[-1]
    rows = max(m, n, 1)
    As, Bs = A.reshape(-1, m, n), B.reshape(-1, m, k)
    X, rank = torch.zeros(As.shape[0], n, k, dtype=A.dtype), torch.zeros(As.shape[0], dtype=torch.int64)
    ref = lambda v: ctypes.byref(ctypes.c_int(v))
    for i in range(As.shape[0]):
        a = As[i].mT.contiguous()  # column-major
        b = torch.zeros(k, rows, dtype=A.dtype)
        b[:, :m] = Bs[i].mT
        jpvt, r, info, lwork = (ctypes.c_int * max(n, 1))(), ctypes.c_int(0), ctypes.c_int(0), 4 * (rows + k) ** 2 + 64
        fn(ref(m), ref(n), ref(k), ctypes.c_void_p(a.data_ptr()), ref(max(m, 1)), ctypes.c_void_p(b.data_ptr()), ref(rows),
           jpvt, ctypes.byref(real(rcond)), ctypes.byref(r), (real * lwork)(), ref(lwork), ctypes.byref(info))
        assert info.value == 0
        X[i], rank[i] = b[:, :n].mT, r.value
    e = torch.empty(0, dtype=A.dtype)
    return [X.reshape(A.shape[:-2] + (n, k)), e, rank.reshape(A.shape[:-2]), e]


def with_singular_values(*s, m, n, batch=()):
    """A (batch..., m, n) with the singular values s (descending) and random singular vectors."""
    U = L.qr(torch.randn(*batch, m, m, dtype=torch.float64)).Q
    V = L.qr(torch.randn(*batch, n, n, dtype=torch.float64)).Q
    S = torch.zeros(*batch, m, n, dtype=torch.float64)
    S[..., range(len(s)), range(len(s))] = torch.tensor(s, dtype=torch.float64)
    return U @ S @ V.mT


for dt in (torch.float32, torch.float64):
    def gelsy_case(A, B, rcond):
        A, B = A.to(dt), B.to(dt)
        rc = torch.tensor([rcond], dtype=torch.float64)
        case('lstsq_all', [A, B, rc], lapack_gelsy(A, B, rcond), arg=DRIVERS.index('gelsy'))

    def torch_case(A, B, driver):
        A, B = A.to(dt), B.to(dt)
        case('lstsq_all', [A, B, torch.tensor([], dtype=torch.float64)], list(L.lstsq(A, B, driver=driver)),
             arg=DRIVERS.index(driver))

    for rcond in [1.0, 2.0, 0.9, 0.5, 0.3, float('nan'), -1.0]:  # rank 1 at rcond >= 1 and for NaN, full for < 0
        gelsy_case(rnd(6, 4), rnd(6, 2), rcond)
        gelsy_case(rnd(4, 6), rnd(4, 2), rcond)
    gelsy_case(rnd(3, 5, 5), rnd(3, 5, 2), 0.5)
    gelsy_case(torch.eye(4), rnd(4, 2), 1.0)  # estimates stay equal: full rank at rcond 1
    gelsy_case(rnd(2, 3, 7), rnd(2, 3, 1), 0.6)
    gap = (1.0, 0.6, 0.3, 1e-4, 1e-5)  # the truncated SVD's solution is 1e-4 away from gelsy's
    gelsy_case(with_singular_values(*gap, m=7, n=5), rnd(7, 2), 1e-3)
    gelsy_case(with_singular_values(*gap, m=5, n=7), rnd(5, 2), 1e-3)
    gelsy_case(with_singular_values(*gap, m=6, n=5, batch=(2,)), rnd(2, 6, 3), 1e-3)
    first_zero = torch.eye(5)
    first_zero[0] = 0  # pytorch/pytorch#92537: pivoting finds rank 4
    gelsy_case(first_zero, rnd(5, 1), 1e-6)
    gelsy_case(torch.tensor([[0., 1], [0, 2], [0, 3]]), torch.tensor([[2.], [4], [6]]), 1e-6)
    gelsy_case(torch.zeros(4, 3), rnd(4, 2), 1e-6)  # rank 0, X = 0
    torch_case(rnd(5, 3), rnd(5, 0), 'gelsy')  # no right-hand side: LAPACK's quick return, rank 0
    torch_case(torch.zeros(5, 3), rnd(5, 2), 'gels')  # X = 0 and zero residuals (LAPACK's quick return)
    torch_case(torch.zeros(3, 5), rnd(3, 2), 'gels')

# linalg.eig's eigenvectors as PyTorch returns them (LAPACK geev's: unit
# norm, largest component real, a complex pair's vectors v and conj(v)),
# (re, im) pairs. The eigenvalues are distinct, so each vector is unique up
# to a phase: the C test compares the phases exactly (ctorch's kernel
# follows dgeev), but for float32 input without OpenBLAS (PyTorch's sgeev
# works in float, ctorch in double), which it compares up to a phase.
for dt in (torch.float32, torch.float64):
    for a, transposed in [(rnd(5, 5, dt=dt), ()), (rnd(2, 4, 4, dt=dt), ()), (rnd(4, 4, dt=dt), (0,)),
                          (torch.tensor([[1., 2], [-5, 4]], dtype=dt), ()),
                          (torch.tensor([[2., 0, 0], [0, 3, 4], [0, -4, 3]], dtype=dt), ())]:
        lam, V = L.eig(a)
        case('eig', [a], [torch.view_as_real(lam), torch.view_as_real(V)], transposed=transposed)

# linalg.svd's U, S, Vh (arg: full_matrices) and linalg.eigh's L, Q (arg:
# 1 for UPLO='U') as PyTorch returns them: LAPACK gesdd's and syevd's
# signs. The values are distinct, so each vector is unique up to its sign:
# the C test compares them up to one, and exactly in a build whose
# decompositions are LAPACK's (CTORCH_OPENBLAS). PyTorch calls LAPACK's
# single routines (sgesdd, ssyevd) for float32 input; the float32 cases end
# with matrices whose vectors come out of them with other signs than the
# double routines give for the same (widened) matrix, the first such of a
# seeded random stream, so a build that ran float32 through the double
# routines fails them.
def separated(values, gap=0.1):
    """Whether sorted values are apart by more than gap times the largest, and nonzero."""
    v = values.abs().sort().values
    return bool(v[0] > gap * v[-1] and ((v[1:] - v[:-1]) > gap * v[-1]).all())


def signs_differ(vectors, make, count, seed):
    """The first count float32 matrices of make(generator) whose vectors (a -> (values, columns of vectors)) from
    PyTorch's float32 call point the other way than those of its float64 call on the same matrix, for some column."""
    g, found = torch.Generator().manual_seed(seed), []
    while len(found) < count:
        a = make(g)
        values, single = vectors(a)
        _, double = vectors(a.double())
        if separated(values) and ((single.double() * double).sum(-2) < 0).any():
            found.append(a)
    return found


def general(m, n):
    return lambda g: torch.randn(m, n, generator=g, dtype=torch.float64).float()


def symmetric(n):
    def make(g):
        a = torch.randn(n, n, generator=g, dtype=torch.float64).float()
        return a + a.mT
    return make


svd_u = lambda a: L.svd(a, full_matrices=False)[:2][::-1]
eigh_q = lambda a: L.eigh(a)
for dt in (torch.float32, torch.float64):
    for a, full, transposed in [(rnd(4, 3, dt=dt), 0, ()), (rnd(3, 5, dt=dt), 0, ()), (rnd(2, 3, 3, dt=dt), 0, ()),
                                (rnd(4, 3, dt=dt), 1, ()), (rnd(3, 5, dt=dt), 1, ()), (rnd(4, 4, dt=dt), 0, (0,))]:
        a = a.mT if transposed else a  # stored transposed: the C test passes this same non-contiguous view
        case('svd', [a], list(L.svd(a, full_matrices=bool(full))), arg=full, transposed=transposed)
    for a, upper in [(spd(4, 4, dt=dt), 0), (spd(2, 3, 3, dt=dt), 1)]:
        m = a + torch.triu(rnd(*a.shape, dt=dt), 1)  # the upper triangle differs from the lower
        case('eigh', [m], list(L.eigh(m, UPLO='U' if upper else 'L')), arg=upper)
        case('eigh', [m], list(L.eigh(m, UPLO='L' if upper else 'U')), arg=1 - upper)
for (m, n), full in [((3, 3), 0), ((4, 3), 1), ((3, 5), 0)]:
    for a in signs_differ(svd_u, general(m, n), 2, seed=m * 10 + n):
        case('svd', [a], list(L.svd(a, full_matrices=bool(full))), arg=full)
for n in (3, 4):
    for a in signs_differ(eigh_q, symmetric(n), 2, seed=n):
        for upper in (0, 1):
            case('eigh', [a], list(L.eigh(a, UPLO='U' if upper else 'L')), arg=upper)

# linalg.cholesky(upper=True) reads the upper triangle (PyTorch's potrf
# with uplo 'U'); det and slogdet of a non-contiguous matrix factor it
# as it is, not its transpose.
for dt in (torch.float32, torch.float64):
    upper_only = spd(3, 3, dt=dt).triu() + torch.tril(torch.full((3, 3), 100., dtype=dt), -1)
    case('cholesky', [upper_only], [L.cholesky(upper_only, upper=True)], arg=1)
    for a in [rnd(4, 4, dt=dt).mT, rnd(2, 3, 3, dt=dt).mT]:
        case('det', [a], [L.det(a)], transposed=(0,))
        case('slogdet', [a], list(L.slogdet(a)), transposed=(0,))

# linalg.eig and eigvals where LAPACK's dgeev takes its other paths (ctorch's
# own kernel follows it step by step, so the C test compares the order and
# the phases): a 1x1; triangular, diagonal and partly triangular matrices,
# whose eigenvalues dgebal's permutations isolate; a nearly defective one
# (a 3x3 Jordan block with delta in its corner: three close eigenvalues);
# a batch. Repeated eigenvalues for eigvals alone (their vectors are not
# unique).
for dt, delta in ((torch.float32, 1e-3), (torch.float64, 1e-6)):
    jordan = torch.tensor([[2., 1, 0], [0, 2, 1], [delta, 0, 2]], dtype=dt)
    for a in [torch.tensor([[-1.5]], dtype=dt), torch.tensor([[3., 1, 2], [0, -1, 4], [0, 0, 2]], dtype=dt),
              torch.tensor([[1., 0, 0], [2, 5, 0], [-1, 3, 4]], dtype=dt),
              torch.diag(torch.tensor([2., -1, 3, 0.5], dtype=dt)),
              torch.tensor([[1., 2, 3, 0], [0, 4, 0, 0], [5, 6, 7, 0], [8, 9, 1, 2]], dtype=dt), jordan,
              rnd(3, 3, 3, dt=dt)]:
        lam, V = L.eig(a)
        case('eig', [a], [torch.view_as_real(lam), torch.view_as_real(V)])
        case('eigvals', [a], [torch.view_as_real(L.eigvals(a))])
    S = torch.tensor([[1., 1, 0], [0, 1, 1], [1, 0, 1]], dtype=torch.float64)
    for a in [torch.tensor([[2., 1, 1], [0, 2, 0], [0, 0, 2]], dtype=dt),
              (S @ torch.diag(torch.tensor([1., 1, 3], dtype=torch.float64)) @ torch.linalg.inv(S)).to(dt)]:
        case('eigvals', [a], [torch.view_as_real(L.eigvals(a))])

for op, k in counts.items():
    w.add(op + '.count', torch.tensor(k))
w.save()
