/* Linear algebra against PyTorch: every case of tests/golden/decomp.ctg
 * (written by gen_decomp.py) for the results that PyTorch fixes uniquely;
 * singular and eigen vectors by their invariants (reconstruction,
 * orthonormality, A v = lambda v), eig's also against PyTorch's up to a
 * phase; node names; gradcheck and gradgradcheck of every derivative. */
#include "harness.h"

/* ---------------------------------------------------------------- golden cases */

static const ct_tensor *part(const char *op, int k, const char *what)
{
    char name[96];
    snprintf(name, sizeof name, "%s.%d.%s", op, k, what);
    return golden("decomp", name);
}

static int count(const char *op)
{
    char name[64];
    snprintf(name, sizeof name, "%s.count", op);
    const ct_tensor *c = golden("decomp", name);
    return c ? (int)ct_item_int(c) : 0;
}

/* Input i of case k (its mT view when stored transposed). */
static ct_tensor *input(const char *op, int k, int i)
{
    char what[8];
    snprintf(what, sizeof what, "in%d", i);
    ct_tensor *t = (ct_tensor *)part(op, k, what);
    const ct_tensor *tr = part(op, k, "tr");
    return t && tr && (ct_item_int(tr) >> i & 1) ? ct_transpose(t, -2, -1) : t;
}

static const ct_tensor *output(const char *op, int k, int i)
{
    char what[8];
    snprintf(what, sizeof what, "out%d", i);
    return part(op, k, what);
}

static double arg(const char *op, int k)
{
    const ct_tensor *a = part(op, k, "arg");
    return a ? ct_item(a) : 0;
}

/* The tolerance for results computed by other algorithms than LAPACK's,
 * relative to the largest magnitude involved: a few units of float32's or
 * float64's last place, times the sizes' growth. */
static double tol_of(ct_dtype dt) { return dt == CT_F32 ? 2e-5 : 1e-11; }

/* t has expected's shape and dtype and its values within tol_of(dtype)
 * times (1 + max|expected|). */
#define CHECK_CLOSE(t, expected) check_close(__FILE__, __LINE__, #t, t, expected, 1)
#define CHECK_CLOSE_K(t, expected, k) check_close(__FILE__, __LINE__, #t, t, expected, k)
static void check_close(const char *file, int line, const char *expr, const ct_tensor *t, const ct_tensor *expected,
                        double factor)
{
    if (!t || !expected) {
        ct_test_fail(file, line, "%s is NULL: %s", expr, ct_last_error());
        return;
    }
    ct_shape a = ct_shape_of(t), b = ct_shape_of(expected);
    if (a.ndim != b.ndim || memcmp(a.size, b.size, sizeof(int64_t) * (size_t)a.ndim) ||
        ct_dtype_of(t) != ct_dtype_of(expected)) {
        ct_test_fail(file, line, "%s: shape or dtype differs from the expected %s", expr, ct_dtype_name(ct_dtype_of(expected)));
        return;
    }
    int64_t n = ct_numel(t);
    double *x = (double *)malloc(sizeof(double) * (size_t)(n + 1)), *y = (double *)malloc(sizeof(double) * (size_t)(n + 1));
    ct_copy_to_array(t, x, n, CT_F64);
    ct_copy_to_array(expected, y, n, CT_F64);
    double scale = 0;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(y[i])) scale = fmax(scale, fabs(y[i]));
    double tol = tol_of(ct_dtype_of(t)) * factor * (1 + scale);
    for (int64_t i = 0; i < n; i++) {
        bool same = (isnan(x[i]) && isnan(y[i])) || (isinf(y[i]) && x[i] == y[i]) || fabs(x[i] - y[i]) <= tol;
        if (!same) {
            ct_test_fail(file, line, "%s[%lld] == %.17g, expected %.17g (tol %g)", expr, (long long)i, x[i], y[i], tol);
            break;
        }
    }
    free(x);
    free(y);
}

static void test_inv_det_slogdet(void)
{
    for (int k = 0; k < count("inv"); k++) CHECK_CLOSE(ct_linalg_inv(input("inv", k, 0)), output("inv", k, 0));
    for (int k = 0; k < count("det"); k++) CHECK_CLOSE(ct_linalg_det(input("det", k, 0)), output("det", k, 0));
    for (int k = 0; k < count("slogdet"); k++) {
        ct_tensor *sign, *logabs;
        CHECK_OK(ct_linalg_slogdet(input("slogdet", k, 0), &sign, &logabs));
        CHECK_CLOSE(sign, output("slogdet", k, 0));
        CHECK_CLOSE(logabs, output("slogdet", k, 1));
    }
    CHECK_CLOSE(ct_inverse(input("inv", 0, 0)), output("inv", 0, 0));
}

static void test_solve(void)
{
    for (int k = 0; k < count("solve"); k++)
        CHECK_CLOSE(ct_linalg_solve(input("solve", k, 0), input("solve", k, 1)), output("solve", k, 0));
}

static void test_cholesky(void)
{
    for (int k = 0; k < count("cholesky"); k++)
        CHECK_CLOSE(ct_linalg_cholesky(input("cholesky", k, 0), arg("cholesky", k) != 0), output("cholesky", k, 0));
}

/* Householder QR makes LAPACK's choices: Q and R themselves match. */
static void test_qr(void)
{
    for (int k = 0; k < count("qr"); k++) {
        ct_tensor *Q, *R;
        CHECK_OK(ct_linalg_qr(input("qr", k, 0), (ct_qr_mode)arg("qr", k), &Q, &R));
        CHECK_CLOSE(Q, output("qr", k, 0));
        CHECK_CLOSE(R, output("qr", k, 1));
    }
    ct_tensor *Q, *R; /* torch.qr(A, some=False) is the complete mode */
    CHECK_OK(ct_qr(input("qr", 1, 0), false, &Q, &R));
    CHECK_CLOSE(Q, output("qr", 1, 0));
    CHECK_CLOSE(R, output("qr", 1, 1));
}

static void test_svdvals_rank_pinv(void)
{
    for (int k = 0; k < count("svdvals"); k++) CHECK_CLOSE(ct_linalg_svdvals(input("svdvals", k, 0)), output("svdvals", k, 0));
    for (int k = 0; k < count("matrix_rank"); k++) {
        ct_tensor *r = ct_linalg_matrix_rank(input("matrix_rank", k, 0), arg("matrix_rank", k) != 0);
        CHECK_T(r);
        if (r) CHECK(ct_equal(r, output("matrix_rank", k, 0)));
    }
    for (int k = 0; k < count("pinv"); k++) /* the all-ones case is rank-deficient: error grows with 1/s */
        CHECK_CLOSE_K(ct_linalg_pinv(input("pinv", k, 0), arg("pinv", k) != 0), output("pinv", k, 0), 4);
}

static void test_lstsq(void)
{
    for (int k = 0; k < count("lstsq"); k++)
        CHECK_CLOSE(ct_linalg_lstsq(input("lstsq", k, 0), input("lstsq", k, 1)), output("lstsq", k, 0));
}

/* torch.linalg.lstsq's named tuple for each driver and rcond: solution,
 * residuals and singular values within the tolerance, rank exactly, and
 * which of them are empty as PyTorch has them. The case's arg is the
 * driver's index (plus 10: written in capitals; 4: none given), in2 rcond
 * (empty: None). */
static void test_lstsq_all(void)
{
    static const char *const drivers[5] = {"gels", "gelsy", "gelsd", "gelss", NULL};
    for (int k = 0; k < count("lstsq_all"); k++) {
        int failed_before = ct_test_failed_checks;
        ct_scope s = ct_scope_begin();
        int code = (int)arg("lstsq_all", k);
        char name[8] = {0};
        for (int i = 0; drivers[code % 10] && drivers[code % 10][i]; i++)
            name[i] = (char)(code >= 10 ? drivers[code % 10][i] - 'a' + 'A' : drivers[code % 10][i]);
        const ct_tensor *rc = input("lstsq_all", k, 2);
        ct_lstsq_opts o = {code == 4 ? NULL : name, ct_numel(rc) ? ct_item(rc) : 0, ct_numel(rc) > 0};
        ct_tensor *X, *res, *rank, *sv;
        CHECK_OK(ct_linalg_lstsq_all(input("lstsq_all", k, 0), input("lstsq_all", k, 1), o, &X, &res, &rank, &sv));
        CHECK_CLOSE(X, output("lstsq_all", k, 0));
        CHECK_CLOSE(res, output("lstsq_all", k, 1));
        CHECK_T(rank);
        if (rank) CHECK(ct_equal(rank, output("lstsq_all", k, 2)));
        CHECK_CLOSE(sv, output("lstsq_all", k, 3));
        if (ct_test_failed_checks != failed_before) printf("    (in lstsq_all case %d, driver %s)\n", k, o.driver ? o.driver : "None");
        ct_scope_end(s);
    }
    /* only the solution is differentiable, as in PyTorch */
    ct_scope s = ct_scope_begin();
    ct_tensor *A = ct_clone(input("lstsq_all", 0, 0)), *X, *res, *rank, *sv;
    ct_requires_grad_(A, true);
    CHECK_OK(ct_linalg_lstsq_all(A, input("lstsq_all", 0, 1), (ct_lstsq_opts){"gelsd", 0, false}, &X, &res, &rank, &sv));
    CHECK(ct_requires_grad(X) && !ct_requires_grad(res) && !ct_requires_grad(rank) && !ct_requires_grad(sv));
    CHECK_OK(ct_linalg_lstsq_all(A, input("lstsq_all", 0, 1), (ct_lstsq_opts){0}, NULL, &res, NULL, NULL));
    CHECK_T(res);
    ct_scope_end(s);
}

static void test_eigvalsh(void)
{
    for (int k = 0; k < count("eigvalsh"); k++)
        CHECK_CLOSE(ct_linalg_eigvalsh(input("eigvalsh", k, 0), arg("eigvalsh", k) ? 'U' : 'L'), output("eigvalsh", k, 0));
}

/* The eigenvalues in PyTorch's order: the built-in kernel follows LAPACK's
 * dgeev, so the order is the same as well as the values. */
static void test_eigvals(void)
{
    for (int k = 0; k < count("eigvals"); k++) {
        ct_tensor *got = ct_linalg_eigvals(input("eigvals", k, 0));
        const ct_tensor *want = output("eigvals", k, 0);
        CHECK_T(got);
        if (!got || !want) continue;
        ct_shape s = ct_shape_of(got), ws = ct_shape_of(want);
        CHECK(s.ndim == ws.ndim && !memcmp(s.size, ws.size, sizeof(int64_t) * (size_t)s.ndim));
        int64_t m = ct_numel(got) / 2;
        double g[64], w[64];
        CHECK(m <= 32);
        ct_copy_to_array(got, g, 64, CT_F64);
        ct_copy_to_array(want, w, 64, CT_F64);
        double tol = tol_of(ct_dtype_of(got)) * 10;
        for (int64_t i = 0; i < m && m <= 32; i++)
            CHECK(hypot(g[2 * i] - w[2 * i], g[2 * i + 1] - w[2 * i + 1]) <= tol * (1 + hypot(w[2 * i], w[2 * i + 1])));
    }
}

static void test_norms_trace(void)
{
    static const char *ords[8] = {"fro", "nuc", "1", "-1", "2", "-2", "inf", "-inf"};
    for (int k = 0; k < count("matrix_norm"); k++) {
        int code = (int)arg("matrix_norm", k);
        ct_tensor *A = input("matrix_norm", k, 0);
        ct_tensor *r = code < 8 ? ct_linalg_matrix_norm(A, ords[code], CT_SHAPE0, false)
                                : ct_linalg_matrix_norm(A, ords[code - 8], CT_DIMS(2, 0), true);
        CHECK_CLOSE(r, output("matrix_norm", k, 0));
    }
    CHECK_CLOSE(ct_linalg_matrix_norm(input("matrix_norm", 0, 0), NULL, CT_SHAPE0, false), output("matrix_norm", 0, 0));
    for (int k = 0; k < count("vector_norm"); k++) { /* even cases: every element; odd: dim 1 */
        ct_tensor *x = input("vector_norm", k, 0);
        ct_shape dims = k % 2 ? CT_DIMS(1) : CT_SHAPE0;
        CHECK_CLOSE(ct_linalg_vector_norm(x, arg("vector_norm", k), dims, false), output("vector_norm", k, 0));
    }
    for (int k = 0; k < count("trace"); k++) CHECK_CLOSE(ct_trace(input("trace", k, 0)), output("trace", k, 0));
}

static void test_matrix_power_exp(void)
{
    for (int k = 0; k < count("matrix_power"); k++)
        CHECK_CLOSE(ct_linalg_matrix_power(input("matrix_power", k, 0), (int64_t)arg("matrix_power", k)),
                    output("matrix_power", k, 0));
    for (int k = 0; k < count("matrix_exp"); k++)
        CHECK_CLOSE(ct_linalg_matrix_exp(input("matrix_exp", k, 0)), output("matrix_exp", k, 0));
}

/* ---------------------------------------------------------------- invariants */

/* t (..., m, k)^T t is the identity (k, k). */
static void check_orthonormal_columns(const ct_tensor *t)
{
    CHECK_T(t);
    if (!t) return;
    int64_t k = ct_size(t, -1);
    ct_tensor *g = ct_matmul(ct_transpose(t, -2, -1), t);
    CHECK_CLOSE_K(g, ct_expand_as(ct_eye(k, k, ct_dtype_of(t)), g), 10);
}

static void test_svd_invariants(void)
{
    for (int k = 0; k < count("svdvals"); k++) {
        ct_tensor *A = input("svdvals", k, 0);
        for (int full = 0; full < 2; full++) {
            ct_tensor *U, *S, *Vh;
            CHECK_OK(ct_linalg_svd(A, full, &U, &S, &Vh));
            if (!U) continue;
            CHECK_CLOSE(S, output("svdvals", k, 0));
            check_orthonormal_columns(U);
            check_orthonormal_columns(ct_transpose(Vh, -2, -1));
            int64_t m = ct_size(A, -2), n = ct_size(A, -1), r = m < n ? m : n;
            ct_tensor *US = ct_mul(ct_narrow(U, -1, 0, r), ct_unsqueeze(S, -2));
            CHECK_CLOSE_K(ct_matmul(US, ct_narrow(Vh, -2, 0, r)), ct_contiguous(A), 10);
            if (full) {
                CHECK_INT(ct_size(U, -1), m);
                CHECK_INT(ct_size(Vh, -2), n);
            }
        }
        ct_tensor *U, *S, *V; /* torch.svd gives V */
        CHECK_OK(ct_svd(A, true, &U, &S, &V));
        if (U) CHECK_CLOSE_K(ct_matmul(ct_mul(U, ct_unsqueeze(S, -2)), ct_transpose(V, -2, -1)), ct_contiguous(A), 10);
    }
    /* no elements: identities, as PyTorch's */
    ct_tensor *U, *S, *Vh;
    CHECK_OK(ct_linalg_svd(ct_zeros(CT_SHAPE(2, 0, 3), CT_F32), false, &U, &S, &Vh));
    CHECK_VALUES(ct_select(Vh, 0, 1), CT_SHAPE(3, 3), 1, 0, 0, 0, 1, 0, 0, 0, 1);
    CHECK_INT(ct_size(U, -1), 0);
    CHECK_INT(ct_size(S, -1), 0);
}

static void test_eigh_invariants(void)
{
    for (int k = 0; k < count("eigvalsh"); k++) {
        ct_tensor *A = input("eigvalsh", k, 0), *L, *V;
        char uplo = arg("eigvalsh", k) ? 'U' : 'L';
        CHECK_OK(ct_linalg_eigh(A, uplo, &L, &V));
        if (!V) continue;
        CHECK_CLOSE(L, output("eigvalsh", k, 0));
        check_orthonormal_columns(V);
        ct_tensor *sym = uplo == 'U' ? ct_triu(A, 0) : ct_tril(A, 0); /* the triangle read, mirrored */
        sym = ct_sub(ct_add(sym, ct_transpose(sym, -2, -1)), ct_mul(A, ct_eye(ct_size(A, -1), ct_size(A, -1), ct_dtype_of(A))));
        CHECK_CLOSE_K(ct_matmul(sym, V), ct_mul(V, ct_unsqueeze(L, -2)), 10);
    }
}

/* A v = lambda v for every eigenpair, v of unit norm (complex arithmetic on
 * the (re, im) pairs). */
static void test_eig_invariants(void)
{
    for (int k = 0; k < count("eigvals"); k++) {
        ct_tensor *A = input("eigvals", k, 0), *L, *V;
        CHECK_OK(ct_linalg_eig(A, &L, &V));
        if (!V) continue;
        int64_t n = ct_size(A, -1), batch = ct_numel(A) / (n * n);
        double a[64], l[32], v[128];
        ct_copy_to_array(A, a, 64, CT_F64);
        ct_copy_to_array(L, l, 32, CT_F64);
        ct_copy_to_array(V, v, 128, CT_F64);
        double tol = tol_of(ct_dtype_of(A)) * 20;
        for (int64_t b = 0; b < batch; b++)
            for (int64_t j = 0; j < n; j++) {
                double lr = l[2 * (b * n + j)], li = l[2 * (b * n + j) + 1], norm = 0, err = 0;
                for (int64_t i = 0; i < n; i++) {
                    double sr = 0, si = 0;
                    const double *vi = &v[2 * ((b * n + i) * n + j)];
                    for (int64_t p = 0; p < n; p++) {
                        const double *vp = &v[2 * ((b * n + p) * n + j)];
                        sr += a[(b * n + i) * n + p] * vp[0];
                        si += a[(b * n + i) * n + p] * vp[1];
                    }
                    err = fmax(err, hypot(sr - (lr * vi[0] - li * vi[1]), si - (lr * vi[1] + li * vi[0])));
                    norm += vi[0] * vi[0] + vi[1] * vi[1];
                }
                CHECK_NEAR(norm, 1, tol);
                CHECK(err <= tol * (1 + hypot(lr, li)) * 10);
            }
    }
}

/* The index of the eigenvalue of l (n (re, im) pairs) nearest to (re, im)
 * among those not used yet, or -1. */
static int64_t nearest_unused(const double *l, int64_t n, const bool *used, double re, double im)
{
    int64_t best = -1;
    double bd = INFINITY;
    for (int64_t j = 0; j < n; j++) {
        double d = hypot(l[2 * j] - re, l[2 * j + 1] - im);
        if (!used[j] && d < bd) {
            bd = d;
            best = j;
        }
    }
    return best;
}

/* eig's vectors against PyTorch's: the same order (each checked against
 * the eigenvalue PyTorch has at its index) and the same phases (LAPACK's
 * normalization: unit norm, a complex vector's largest component real, a
 * complex pair's vectors v and conj(v)), with the built-in kernel, which
 * follows LAPACK's dgeev, and with OpenBLAS, whose geev it is. For float32
 * input PyTorch runs sgeev, in float, and the built-in kernel dgeev's steps
 * in double: a vector's sign (a Schur vector's, set by how many sweeps the
 * QR iteration takes before a deflation test passes) can differ, so there
 * the vectors are compared up to a phase, and exactly with OpenBLAS. */
static void test_eig_vectors(void)
{
    for (int k = 0; k < count("eig"); k++) {
        ct_tensor *A = input("eig", k, 0), *L, *V;
        const ct_tensor *want_l = output("eig", k, 0), *want_v = output("eig", k, 1);
        CHECK_OK(ct_linalg_eig(A, &L, &V));
        if (!L || !V || !want_l || !want_v) continue;
        int64_t n = ct_size(A, -1), batch = ct_numel(A) / (n * n);
        double l[32], v[128], wl[32], wv[128];
        CHECK(batch * n * n * 2 <= 128);
        ct_copy_to_array(L, l, 32, CT_F64);
        ct_copy_to_array(V, v, 128, CT_F64);
        ct_copy_to_array(want_l, wl, 32, CT_F64);
        ct_copy_to_array(want_v, wv, 128, CT_F64);
        double tol = tol_of(ct_dtype_of(A)) * 10;
#ifdef CTORCH_OPENBLAS
        bool exact_phase = true;
#else
        bool exact_phase = ct_dtype_of(A) == CT_F64;
#endif
        for (int64_t b = 0; b < batch; b++) {
            bool used[16] = {false};
            for (int64_t i = 0; i < n; i++) {
                int64_t j = nearest_unused(l + 2 * b * n, n, used, wl[2 * (b * n + i)], wl[2 * (b * n + i) + 1]);
                CHECK(j == i);
                if (j < 0) continue;
                used[j] = true;
                double pr = 0, pi = 0; /* the phase: sum over rows of conj(want) got */
                for (int64_t r = 0; r < n; r++) {
                    const double *g = &v[2 * ((b * n + r) * n + j)], *w = &wv[2 * ((b * n + r) * n + i)];
                    pr += w[0] * g[0] + w[1] * g[1];
                    pi += w[0] * g[1] - w[1] * g[0];
                }
                double mag = hypot(pr, pi), err = 0;
                CHECK_NEAR(mag, 1, tol);
                pr /= mag, pi /= mag;
                if (exact_phase) CHECK_NEAR(pr, 1, tol);
                for (int64_t r = 0; r < n; r++) {
                    const double *g = &v[2 * ((b * n + r) * n + j)], *w = &wv[2 * ((b * n + r) * n + i)];
                    err = fmax(err, hypot(g[0] - (pr * w[0] - pi * w[1]), g[1] - (pr * w[1] + pi * w[0])));
                }
                CHECK(err <= tol);
            }
        }
    }
}

/* The eigenvalue order is LAPACK's, which depends on the matrix, not on the
 * last bits of the arithmetic: the second 4x4 of seed 81's (2, 4, 4) leaf
 * on the CPU (test_grad_eig_lstsq's; written out, as a CUDA generator draws
 * others), whose two real eigenvalues EISPACK's hqr ordered by the sign of
 * a difference at rounding level, comes in PyTorch's order and keeps it
 * with any one entry moved by e 1e-7, |e| <= 60 (each eigenvalue moves by
 * less than 1e-4; they are 0.4 or more apart). */
static void test_eig_order_stable(void)
{
    static const double want[8] = {1.8436, 0, -0.0745, 0.8097, -0.0745, -0.8097, 0.4240, 0};
    static const double a[16] = {0.3317416307237433,   -0.92534602682397316, -0.32467415832295798, 0.34152535553752961,
                                 0.71319933947177394,  -0.44885345600851162, 0.54226245265127426,  -0.14477823164537504,
                                 -0.23094639867644376, -0.43451685054409395, 0.46567114976682999,  -0.98845466999024634,
                                 -0.20044837064421964, 1.346753417128667,    -0.39710011180456928, 1.7701328029077845};
    double base[8];
    ct_copy_to_array(ct_linalg_eigvals(ct_from_array(a, CT_SHAPE(4, 4), CT_F64)), base, 8, CT_F64);
    for (int i = 0; i < 8; i++) CHECK_NEAR(base[i], want[i], 1e-4);
    int moved = 0;
    for (int k = 0; k < 16; k++)
        for (int e = -60; e <= 60; e++) {
            ct_scope s = ct_scope_begin();
            double p[16], l[8] = {0};
            memcpy(p, a, sizeof p);
            p[k] += e * 1e-7;
            ct_copy_to_array(ct_linalg_eigvals(ct_from_array(p, CT_SHAPE(4, 4), CT_F64)), l, 8, CT_F64);
            for (int i = 0; i < 4; i++)
                if (hypot(l[2 * i] - base[2 * i], l[2 * i + 1] - base[2 * i + 1]) > 1e-4) {
                    moved++;
                    break;
                }
            ct_scope_end(s);
        }
    CHECK(moved == 0);
}

/* Singular or eigen vectors against PyTorch's: the first k along dim
 * (-1: columns, -2: rows) of got and want. Built with OpenBLAS, the
 * decompositions are the LAPACK routines PyTorch calls (sgesdd, ssyevd for
 * float32), so every vector must be PyTorch's, its sign included, and the
 * basis that completes a full U or Vh too; the built-in Jacobi kernels fix
 * no signs, so there each of the k vectors is compared up to its sign. */
static void check_vectors(const ct_tensor *got, const ct_tensor *want, int dim, int64_t k)
{
    CHECK_T(got);
    if (!got || !want) return;
#ifdef CTORCH_OPENBLAS
    (void)dim, (void)k;
    CHECK_CLOSE(got, want);
#else
    int along = dim == -1 ? -2 : -1; /* the dim that a vector's entries run along */
    ct_tensor *g = ct_narrow(got, dim, 0, k), *w = ct_narrow(want, dim, 0, k);
    ct_tensor *sign = ct_sign(ct_sum_dim(ct_mul(g, w), CT_DIMS(along), true, CT_DEFAULT));
    CHECK_CLOSE(ct_mul(g, sign), ct_contiguous(w));
#endif
}

/* linalg.svd's U, S and Vh (and svdvals) against PyTorch's, thin and full;
 * the float32 cases include matrices whose vectors the double routine
 * (dgesdd) would give with other signs than PyTorch's sgesdd. */
static void test_svd_vectors(void)
{
    for (int k = 0; k < count("svd"); k++) {
        ct_tensor *A = input("svd", k, 0), *U, *S, *Vh;
        int64_t r = ct_size(A, -1) < ct_size(A, -2) ? ct_size(A, -1) : ct_size(A, -2);
        CHECK_OK(ct_linalg_svd(A, arg("svd", k) != 0, &U, &S, &Vh));
        CHECK_CLOSE(S, output("svd", k, 1));
        check_vectors(U, output("svd", k, 0), -1, r);
        check_vectors(Vh, output("svd", k, 2), -2, r);
        CHECK_CLOSE(ct_linalg_svdvals(A), output("svd", k, 1));
    }
}

/* linalg.eigh's L and Q (and eigvalsh) against PyTorch's for either
 * triangle; the float32 cases include matrices whose vectors the double
 * routine (dsyevd) would give with other signs than PyTorch's ssyevd. */
static void test_eigh_vectors(void)
{
    for (int k = 0; k < count("eigh"); k++) {
        ct_tensor *A = input("eigh", k, 0), *L, *Q;
        char uplo = arg("eigh", k) ? 'U' : 'L';
        CHECK_OK(ct_linalg_eigh(A, uplo, &L, &Q));
        CHECK_CLOSE(L, output("eigh", k, 0));
        check_vectors(Q, output("eigh", k, 1), -1, ct_size(A, -1));
        CHECK_CLOSE(ct_linalg_eigvalsh(A, uplo), output("eigh", k, 0));
    }
}

/* ---------------------------------------------------------------- autograd */

static ct_tensor *leaf(ct_shape s, uint64_t seed)
{
    ct_generator *g = ct_generator_new_device(ct_get_default_device()); /* where randn makes t */
    ct_generator_manual_seed(g, seed);
    ct_tensor *t = ct_randn(s, CT_F64, g);
    ct_generator_free(g);
    ct_requires_grad_(t, true);
    return t;
}

/* A well-conditioned square leaf: random plus n on the diagonal. */
static ct_tensor *square_leaf(int64_t batch, int64_t n, uint64_t seed)
{
    ct_tensor *t = batch ? ct_randn(CT_SHAPE(batch, n, n), CT_F64, NULL) : ct_randn(CT_SHAPE(n, n), CT_F64, NULL);
    (void)seed;
    t = ct_add(t, ct_mul_scalar(ct_eye(n, n, CT_F64), ct_int(n)));
    ct_requires_grad_(t, true);
    return t;
}

static ct_tensor *sym_of(const ct_tensor *x) { return ct_add(x, ct_transpose(x, -2, -1)); }

typedef enum fn_id {
    F_INV, F_DET, F_SLOGDET, F_SOLVE, F_CHOL, F_CHOL_UPPER, F_QR, F_QR_COMPLETE, F_SVD, F_SVD_FULL, F_SVDVALS,
    F_EIGH, F_EIGVALSH, F_TRACE, F_VNORM, F_MNORM_FRO, F_MNORM_NUC, F_MNORM_2, F_MNORM_1, F_MNORM_INF, F_POW3,
    F_POW_NEG, F_POW0, F_EXP, F_PINV, F_TSVD, F_EIG, F_EIGVALS, F_LSTSQ
} fn_id;

static int fn(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    fn_id id = (fn_id)(intptr_t)user;
    ct_tensor *a = in[0], *b = n > 1 ? in[1] : NULL, *x = NULL, *y = NULL, *z = NULL;
    int k = 1;
    switch (id) {
    case F_INV: x = ct_linalg_inv(a); break;
    case F_DET: x = ct_linalg_det(a); break;
    case F_SLOGDET: ct_linalg_slogdet(a, &y, &x); break;
    case F_SOLVE: x = ct_linalg_solve(a, b); break;
    case F_CHOL: x = ct_linalg_cholesky(ct_add(ct_matmul(a, ct_transpose(a, -2, -1)), ct_eye(ct_size(a, -1), ct_size(a, -1), CT_F64)), false); break;
    case F_CHOL_UPPER: x = ct_linalg_cholesky(ct_add(ct_matmul(a, ct_transpose(a, -2, -1)), ct_eye(ct_size(a, -1), ct_size(a, -1), CT_F64)), true); break;
    case F_QR: ct_linalg_qr(a, CT_QR_REDUCED, &x, &y), k = 2; break;
    case F_QR_COMPLETE: ct_linalg_qr(a, CT_QR_COMPLETE, &x, &y), k = 2; break;
    case F_SVD:
    case F_SVD_FULL: /* gauge-invariant: S, U Vh (thin), U * U */
        ct_linalg_svd(a, id == F_SVD_FULL, &x, &y, &z);
        if (x && z) {
            int64_t r = ct_size(y, -1);
            ct_tensor *u = ct_narrow(x, -1, 0, r), *vh = ct_narrow(z, -2, 0, r);
            x = ct_matmul(u, vh);
            z = ct_mul(u, u);
        }
        k = 3;
        break;
    case F_TSVD: {
        ct_tensor *v;
        ct_svd(a, true, &y, &x, &v);
        y = v ? ct_matmul(y, ct_transpose(v, -2, -1)) : NULL;
        k = 2;
        break;
    }
    case F_SVDVALS: x = ct_linalg_svdvals(a); break;
    case F_EIGH: /* L, and V diag(L^2) V^T (gauge-invariant) */
        ct_linalg_eigh(sym_of(a), 'L', &x, &y);
        y = y ? ct_matmul(ct_mul(y, ct_unsqueeze(ct_mul(x, x), -2)), ct_transpose(y, -2, -1)) : NULL;
        k = 2;
        break;
    case F_EIGVALSH: x = ct_linalg_eigvalsh(sym_of(a), 'U'); break;
    case F_TRACE: x = ct_trace(a); break;
    case F_VNORM: x = ct_linalg_vector_norm(a, 3, CT_DIMS(-1), false); break;
    case F_MNORM_FRO: x = ct_linalg_matrix_norm(a, "fro", CT_SHAPE0, false); break;
    case F_MNORM_NUC: x = ct_linalg_matrix_norm(a, "nuc", CT_SHAPE0, false); break;
    case F_MNORM_2: x = ct_linalg_matrix_norm(a, "2", CT_SHAPE0, true); break;
    case F_MNORM_1: x = ct_linalg_matrix_norm(a, "1", CT_SHAPE0, false); break;
    case F_MNORM_INF: x = ct_linalg_matrix_norm(a, "-inf", CT_SHAPE0, false); break;
    case F_POW3: x = ct_linalg_matrix_power(a, 3); break;
    case F_POW_NEG: x = ct_linalg_matrix_power(a, -2); break;
    case F_POW0: x = ct_linalg_matrix_power(a, 0); break;
    case F_EXP: x = ct_linalg_matrix_exp(a); break;
    case F_PINV: x = ct_linalg_pinv(a, false); break;
    case F_EIG: /* L, and |V|^2 (phase-invariant) */
        ct_linalg_eig(a, &x, &y);
        y = y ? ct_sum_dim(ct_mul(y, y), CT_DIMS(-1), false, CT_DEFAULT) : NULL;
        k = 2;
        break;
    case F_EIGVALS: x = ct_linalg_eigvals(a); break;
    case F_LSTSQ: x = ct_linalg_lstsq(a, b); break;
    }
    out[0] = x;
    out[1] = y;
    out[2] = z;
    for (int i = 0; i < k; i++)
        if (!out[i]) return ct_last_error_code();
    return k;
}

#define GRADCHECKS(id, ...)                                                                                   \
    do {                                                                                                      \
        ct_tensor *ins_[] = {__VA_ARGS__};                                                                    \
        int n_ = (int)(sizeof ins_ / sizeof ins_[0]);                                                         \
        ct_gradcheck_opts o_ = ct_gradcheck_opts_init();                                                      \
        CHECK_OK(ct_gradcheck(fn, ins_, n_, (void *)(intptr_t)(id), o_));                                     \
        CHECK_OK(ct_gradgradcheck(fn, ins_, n_, (void *)(intptr_t)(id), o_));                                 \
    } while (0)

static void test_grad_lu_family(void)
{
    GRADCHECKS(F_INV, square_leaf(0, 3, 1));
    GRADCHECKS(F_INV, square_leaf(2, 2, 2));
    GRADCHECKS(F_DET, square_leaf(0, 3, 3));
    GRADCHECKS(F_DET, square_leaf(2, 3, 4));
    GRADCHECKS(F_SLOGDET, square_leaf(0, 3, 5));
    GRADCHECKS(F_SOLVE, square_leaf(0, 3, 6), leaf(CT_SHAPE(3, 2), 7));
    GRADCHECKS(F_SOLVE, square_leaf(0, 3, 8), leaf(CT_SHAPE(3), 9));
    GRADCHECKS(F_SOLVE, square_leaf(2, 3, 10), leaf(CT_SHAPE(3, 1), 11)); /* B broadcast over A's batch */
    GRADCHECKS(F_PINV, leaf(CT_SHAPE(4, 3), 12));
    GRADCHECKS(F_PINV, leaf(CT_SHAPE(2, 3), 13));
}

static void test_grad_factorizations(void)
{
    GRADCHECKS(F_CHOL, leaf(CT_SHAPE(3, 3), 20));
    GRADCHECKS(F_CHOL_UPPER, leaf(CT_SHAPE(2, 3, 3), 21));
    GRADCHECKS(F_QR, leaf(CT_SHAPE(4, 3), 22));
    GRADCHECKS(F_QR, leaf(CT_SHAPE(3, 3), 23));
    GRADCHECKS(F_QR, leaf(CT_SHAPE(2, 4), 24));
    GRADCHECKS(F_QR_COMPLETE, leaf(CT_SHAPE(2, 4), 25));
    GRADCHECKS(F_SVD, leaf(CT_SHAPE(4, 3), 26));
    GRADCHECKS(F_SVD, leaf(CT_SHAPE(3, 4), 27));
    GRADCHECKS(F_SVD, leaf(CT_SHAPE(2, 3, 3), 28));
    GRADCHECKS(F_SVD_FULL, leaf(CT_SHAPE(4, 3), 29));
    GRADCHECKS(F_TSVD, leaf(CT_SHAPE(3, 2), 30));
    GRADCHECKS(F_SVDVALS, leaf(CT_SHAPE(3, 4), 31));
    GRADCHECKS(F_EIGH, leaf(CT_SHAPE(3, 3), 32));
    GRADCHECKS(F_EIGH, leaf(CT_SHAPE(2, 3, 3), 33));
    GRADCHECKS(F_EIGVALSH, leaf(CT_SHAPE(4, 4), 34));
}

static void test_grad_matrix_functions(void)
{
    GRADCHECKS(F_TRACE, leaf(CT_SHAPE(3, 4), 40));
    GRADCHECKS(F_VNORM, leaf(CT_SHAPE(2, 3), 41));
    GRADCHECKS(F_MNORM_FRO, leaf(CT_SHAPE(2, 3, 3), 42));
    GRADCHECKS(F_MNORM_NUC, leaf(CT_SHAPE(3, 4), 43));
    GRADCHECKS(F_MNORM_2, leaf(CT_SHAPE(3, 3), 44));
    GRADCHECKS(F_MNORM_1, leaf(CT_SHAPE(3, 3), 45));
    GRADCHECKS(F_MNORM_INF, leaf(CT_SHAPE(3, 3), 46));
    GRADCHECKS(F_POW3, leaf(CT_SHAPE(3, 3), 47));
    GRADCHECKS(F_POW_NEG, square_leaf(0, 3, 48));
    GRADCHECKS(F_POW0, leaf(CT_SHAPE(2, 2), 49));
    GRADCHECKS(F_EXP, leaf(CT_SHAPE(3, 3), 50));
    GRADCHECKS(F_EXP, leaf(CT_SHAPE(2, 2, 2), 51));
}

static ct_tensor *fixed_leaf(const double *values, ct_shape s)
{
    ct_tensor *t = ct_from_array(values, s, CT_F64);
    ct_requires_grad_(t, true);
    return t;
}

static void test_grad_eig_lstsq(void)
{
    GRADCHECKS(F_EIG, leaf(CT_SHAPE(3, 3), 80));
    GRADCHECKS(F_EIG, leaf(CT_SHAPE(2, 4, 4), 81));
    static const double real_spectrum[] = {2, 1, 0, 0.5, 3, 1, 0, 0.2, -1};
    GRADCHECKS(F_EIG, fixed_leaf(real_spectrum, CT_SHAPE(3, 3)));
    GRADCHECKS(F_EIGVALS, leaf(CT_SHAPE(2, 3, 3), 82));
    GRADCHECKS(F_LSTSQ, leaf(CT_SHAPE(5, 3), 83), leaf(CT_SHAPE(5, 2), 84));
    GRADCHECKS(F_LSTSQ, leaf(CT_SHAPE(2, 4), 85), leaf(CT_SHAPE(2, 3), 86)); /* fewer equations than unknowns */
    GRADCHECKS(F_LSTSQ, leaf(CT_SHAPE(2, 4, 2), 87), leaf(CT_SHAPE(1, 4, 3), 88)); /* B broadcast */
    GRADCHECKS(F_LSTSQ, leaf(CT_SHAPE(5, 3), 89), leaf(CT_SHAPE(5), 90));           /* vector B */
    GRADCHECKS(F_LSTSQ, leaf(CT_SHAPE(2, 4, 2), 91), leaf(CT_SHAPE(2, 4), 92));     /* a batch of vectors */
}

/* The determinant's second derivative at singular matrices (its first
 * one, where det is exactly 0, is PyTorch's zero: see test_grad_golden). */
static void test_grad_det_singular(void)
{
    static const double rank1[] = {1, 2, 2, 4}, rank2[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    ct_gradcheck_opts o = ct_gradcheck_opts_init();
    ct_tensor *ins[2][1] = {{fixed_leaf(rank1, CT_SHAPE(2, 2))}, {fixed_leaf(rank2, CT_SHAPE(3, 3))}};
    for (int i = 0; i < 2; i++) {
        CHECK_OK(ct_gradgradcheck(fn, ins[i], 1, (void *)(intptr_t)F_DET, o));
        CHECK_FAILS(ct_gradcheck(fn, ins[i], 1, (void *)(intptr_t)F_DET, o), CT_ERR_RUNTIME,
                    "Jacobian mismatch for output 0 with respect to input 0");
    }
}

/* d loss / d inputs (n of them) into g, with or without create_graph. */
static bool grads_of(const ct_tensor *loss, ct_tensor **inputs, int n, bool create_graph, ct_tensor **g)
{
    ct_grad_opts o = {.create_graph = create_graph};
    const ct_tensor *outs[1] = {loss};
    return ct_autograd_grad(outs, 1, (const ct_tensor *const *)inputs, n, NULL, g, o) == CT_OK;
}

/* A fresh leaf holding input i of golden case k. */
static ct_tensor *golden_leaf(const char *op, int k, int i)
{
    ct_tensor *t = ct_clone(input(op, k, i));
    ct_requires_grad_(t, true);
    return t;
}

/* sum(Re^3 + Re Im^2) over eigenvalues L (..., n, 2): gen_decomp.py's spectral_loss. */
static ct_tensor *spectral_loss(const ct_tensor *L)
{
    ct_tensor *re = ct_select(L, -1, 0), *im = ct_select(L, -1, 1);
    return ct_sum(ct_mul(re, ct_add(ct_mul(re, re), ct_mul(im, im))));
}

/* spectral_loss + sum(|V|^2 W[i] (Re + Im)[j]): gen_decomp.py's eig_loss. */
static ct_tensor *eig_loss(const ct_tensor *A, const ct_tensor *W)
{
    ct_tensor *L, *V;
    if (ct_linalg_eig(A, &L, &V) != CT_OK) return NULL;
    ct_tensor *abs2 = ct_sum_dim(ct_mul(V, V), CT_DIMS(-1), false, CT_DEFAULT);
    ct_tensor *lam = ct_sum_dim(L, CT_DIMS(-1), false, CT_DEFAULT);
    return ct_add(spectral_loss(L), ct_sum(ct_mul(ct_mul(abs2, ct_unsqueeze(W, -1)), ct_unsqueeze(lam, -2))));
}

/* Gradients against PyTorch's: eig and eigvals, lstsq, det at singular
 * matrices (first order and under create_graph). */
static void test_grad_golden(void)
{
    for (int k = 0; k < count("eig_grad"); k++) {
        ct_tensor *A = golden_leaf("eig_grad", k, 0), *g[1] = {NULL};
        CHECK(grads_of(eig_loss(A, input("eig_grad", k, 1)), &A, 1, false, g));
        CHECK_CLOSE(g[0], output("eig_grad", k, 0));
        CHECK(grads_of(spectral_loss(ct_linalg_eigvals(A)), &A, 1, false, g));
        CHECK_CLOSE(g[0], output("eig_grad", k, 1));
    }
    for (int k = 0; k < count("lstsq_grad"); k++) {
        ct_tensor *in[2] = {golden_leaf("lstsq_grad", k, 0), golden_leaf("lstsq_grad", k, 1)}, *g[2] = {NULL, NULL};
        ct_tensor *loss = ct_sum(ct_mul(ct_linalg_lstsq(in[0], in[1]), input("lstsq_grad", k, 2)));
        CHECK(grads_of(loss, in, 2, false, g));
        CHECK_CLOSE(g[0], output("lstsq_grad", k, 0));
        CHECK_CLOSE(g[1], output("lstsq_grad", k, 1));
    }
    for (int k = 0; k < count("det_grad"); k++) {
        ct_tensor *A = golden_leaf("det_grad", k, 0), *g[1] = {NULL};
        for (int create_graph = 0; create_graph < 2; create_graph++) {
            ct_tensor *loss = ct_sum(ct_mul(ct_linalg_det(A), input("det_grad", k, 1)));
            CHECK(grads_of(loss, &A, 1, create_graph, g));
            CHECK_CLOSE(g[0], output("det_grad", k, create_graph));
        }
    }
}

/* Derivatives of empty matrices: empty gradients, or zeros for a
 * non-empty B (PyTorch's). lstsq's reaches matmul with sum's expanded
 * (zero-stride) empty gradient. */
static void test_grad_empty(void)
{
    ct_backward_opts plain = {0};
    ct_tensor *A = ct_zeros(CT_SHAPE(3, 0), CT_F64), *B = ct_ones(CT_SHAPE(3, 2), CT_F64);
    ct_requires_grad_(A, true);
    ct_requires_grad_(B, true);
    CHECK_OK(ct_backward(ct_sum(ct_linalg_lstsq(A, B)), NULL, plain));
    CHECK_CLOSE(ct_grad(A), ct_zeros(CT_SHAPE(3, 0), CT_F64));
    CHECK_CLOSE(ct_grad(B), ct_zeros(CT_SHAPE(3, 2), CT_F64));
    ct_tensor *E = ct_zeros(CT_SHAPE(2, 0, 0), CT_F64), *L, *V;
    ct_requires_grad_(E, true);
    CHECK_OK(ct_linalg_eig(E, &L, &V));
    CHECK_OK(ct_backward(ct_add(ct_sum(L), ct_sum(V)), NULL, plain));
    CHECK_CLOSE(ct_grad(E), ct_zeros(CT_SHAPE(2, 0, 0), CT_F64));
    ct_tensor *D = ct_zeros(CT_SHAPE(0, 3, 3), CT_F64), *g[1] = {NULL};
    ct_requires_grad_(D, true);
    CHECK(grads_of(ct_sum(ct_linalg_det(D)), &D, 1, true, g));
    CHECK_CLOSE(g[0], ct_zeros(CT_SHAPE(0, 3, 3), CT_F64));
}

/* The node names PyTorch gives (y.grad_fn.name()). */
static void test_node_names(void)
{
    static const struct { fn_id id; const char *name; } cases[] = {
        {F_INV, "LinalgInvExBackward0"},       {F_DET, "LinalgDetBackward0"},
        {F_SLOGDET, "LinalgSlogdetBackward0"}, {F_SOLVE, "LinalgSolveExBackward0"},
        {F_QR, "LinalgQrBackward0"},           {F_SVDVALS, "LinalgSvdBackward0"},
        {F_EIGVALSH, "LinalgEighBackward0"},   {F_TRACE, "TraceBackward0"},
        {F_VNORM, "LinalgVectorNormBackward0"}, {F_MNORM_FRO, "LinalgVectorNormBackward0"},
        {F_MNORM_NUC, "SumBackward1"},         {F_MNORM_2, "UnsqueezeBackward0"},
        {F_MNORM_1, "AmaxBackward0"},          {F_EXP, "LinalgMatrixExpBackward0"},
        {F_PINV, "LinalgPinvBackward0"},       {F_CHOL, "LinalgCholeskyExBackward0"},
        {F_POW0, "torch::autograd::CopyBackwards"}, {F_POW3, "MmBackward0"},
        {F_POW_NEG, "MmBackward0"},           {F_EIG, "LinalgEigBackward0"},
        {F_EIGVALS, "LinalgEigBackward0"},     {F_LSTSQ, "LinalgLstsqBackward0"},
    };
    ct_tensor *a = square_leaf(0, 3, 60), *b = leaf(CT_SHAPE(3, 2), 61);
    ct_tensor *L, *vectors;
    CHECK_OK(ct_linalg_eig(a, &L, &vectors));
    CHECK_STR(ct_node_name(ct_grad_fn(vectors)), "LinalgEigBackward0");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ct_tensor *ins[2] = {a, b}, *out[3];
        int n = fn(ins, 2, out, (void *)(intptr_t)cases[i].id);
        CHECK(n > 0);
        if (n > 0) CHECK_STR(ct_node_name(ct_grad_fn(out[0])), cases[i].name);
    }
    ct_tensor *U, *S, *V;
    CHECK_OK(ct_svd(a, true, &U, &S, &V));
    CHECK_STR(ct_node_name(ct_grad_fn(V)), "TransposeBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(S)), "LinalgSvdBackward0");
}

/* PyTorch's conditions on the QR derivative. */
static void test_grad_errors(void)
{
    ct_tensor *a = leaf(CT_SHAPE(3, 2), 70), *Q, *R;
    ct_backward_opts no_opts;
    memset(&no_opts, 0, sizeof no_opts);
    CHECK_OK(ct_linalg_qr(a, CT_QR_R, &Q, &R));
    CHECK_FAILS(ct_backward(ct_sum(R), NULL, no_opts), CT_ERR_RUNTIME,
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'.");
    CHECK_OK(ct_linalg_qr(a, CT_QR_COMPLETE, &Q, &R));
    CHECK_FAILS(ct_backward(ct_sum(Q), NULL, no_opts), CT_ERR_RUNTIME,
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
    /* a loss that depends on the eigenvectors' phases */
    static const double rotation[] = {1, 2, -5, 4};
    ct_tensor *L, *V;
    CHECK_OK(ct_linalg_eig(fixed_leaf(rotation, CT_SHAPE(2, 2)), &L, &V));
    CHECK_FAILS(ct_backward(ct_sum(V), NULL, no_opts), CT_ERR_RUNTIME,
                "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by "
                "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.");
}

int main(void)
{
    RUN(test_inv_det_slogdet);
    RUN(test_solve);
    RUN(test_cholesky);
    RUN(test_qr);
    RUN(test_svdvals_rank_pinv);
    RUN(test_lstsq);
    RUN(test_lstsq_all);
    RUN(test_eigvalsh);
    RUN(test_eigvals);
    RUN(test_norms_trace);
    RUN(test_matrix_power_exp);
    RUN(test_svd_invariants);
    RUN(test_eigh_invariants);
    RUN(test_eig_invariants);
    RUN(test_eig_vectors);
    RUN(test_eig_order_stable);
    RUN(test_svd_vectors);
    RUN(test_eigh_vectors);
    RUN(test_grad_lu_family);
    RUN(test_grad_factorizations);
    RUN(test_grad_matrix_functions);
    RUN(test_grad_eig_lstsq);
    RUN(test_grad_det_singular);
    RUN(test_grad_golden);
    RUN(test_grad_empty);
    RUN(test_node_names);
    RUN(test_grad_errors);
    return ct_test_report();
}
