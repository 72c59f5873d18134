/* Bad input to the linear algebra functions (src/linalg/decomp.h): NULL
 * tensors, too few dims, non-square matrices, integer and float16 dtypes,
 * singular and indefinite matrices (alone and in a batch), bad orders and
 * dims; each fails with PyTorch 1.13's words and its result pointers set to
 * NULL. */
#include "errors.h"

static ct_tensor *mat(ct_shape s, ct_dtype dt) { return ct_ones(s, dt); }

/* [[1, 2], [2, 4]]: singular, its LU's second pivot exactly zero. */
static ct_tensor *singular(void)
{
    static const double v[4] = {1, 2, 2, 4};
    return ct_from_array(v, CT_SHAPE(2, 2), CT_F64);
}

#define SQUARE_2x3(fn) fn ": A must be batches of square matrices, but they are 2 by 3 matrices"
#define TWO_DIMS(fn) fn ": The input tensor A must have at least 2 dimensions."
#define NOT_FLOAT(fn, type) fn ": Expected a floating point or complex tensor as input. Got " type
#define LOW_PRECISION(fn) fn ": Low precision dtypes not supported. Got Half"
#define NOT_FOR(kernel, type) "\"" kernel "\" not implemented for '" type "'"

static void test_null_tensors(void)
{
    ct_tensor *a = mat(CT_SHAPE(2, 2), CT_F32), *x = a, *y = a, *z = a;
    FAILS_NULL(ct_linalg_inv(NULL_T), "linalg_inv(): argument 'A' (position 1)");
    FAILS_NULL(ct_inverse(NULL_T), "inverse(): argument 'input' (position 1)");
    FAILS_NULL(ct_linalg_det(NULL_T), "linalg_det(): argument 'A' (position 1)");
    FAILS_NULL_R(ct_linalg_slogdet(NULL_T, &x, &y), "linalg_slogdet(): argument 'A' (position 1)");
    CHECK(!x && !y);
    FAILS_NULL(ct_linalg_solve(NULL_T, a), "linalg_solve(): argument 'A' (position 1)");
    FAILS_NULL(ct_linalg_solve(a, NULL_T), "linalg_solve(): argument 'B' (position 2)");
    FAILS_NULL(ct_linalg_cholesky(NULL_T, false), "linalg_cholesky(): argument 'A' (position 1)");
    x = y = a;
    FAILS_NULL_R(ct_linalg_qr(NULL_T, CT_QR_REDUCED, &x, &y), "linalg_qr(): argument 'A' (position 1)");
    CHECK(!x && !y);
    FAILS_NULL_R(ct_qr(NULL_T, true, &x, &y), "qr(): argument 'input' (position 1)");
    x = y = z = a;
    FAILS_NULL_R(ct_linalg_svd(NULL_T, false, &x, &y, &z), "linalg_svd(): argument 'A' (position 1)");
    CHECK(!x && !y && !z);
    FAILS_NULL_R(ct_svd(NULL_T, true, &x, &y, &z), "svd(): argument 'input' (position 1)");
    FAILS_NULL(ct_linalg_svdvals(NULL_T), "linalg_svdvals(): argument 'A' (position 1)");
    FAILS_NULL_R(ct_linalg_eigh(NULL_T, 'L', &x, &y), "linalg_eigh(): argument 'A' (position 1)");
    FAILS_NULL(ct_linalg_eigvalsh(NULL_T, 'L'), "linalg_eigvalsh(): argument 'A' (position 1)");
    FAILS_NULL_R(ct_linalg_eig(NULL_T, &x, &y), "linalg_eig(): argument 'A' (position 1)");
    FAILS_NULL(ct_linalg_eigvals(NULL_T), "linalg_eigvals(): argument 'A' (position 1)");
    FAILS_NULL(ct_linalg_lstsq(NULL_T, a), "linalg_lstsq(): argument 'A' (position 1)");
    FAILS_NULL(ct_linalg_lstsq(a, NULL_T), "linalg_lstsq(): argument 'B' (position 2)");
    FAILS_NULL(ct_linalg_pinv(NULL_T, false), "linalg_pinv(): argument 'A' (position 1)");
    FAILS_NULL(ct_linalg_matrix_rank(NULL_T, false), "linalg_matrix_rank(): argument 'A' (position 1)");
    FAILS_NULL(ct_linalg_vector_norm(NULL_T, 2, CT_SHAPE0, false), "linalg_vector_norm(): argument 'x' (position 1)");
    FAILS_NULL(ct_linalg_matrix_norm(NULL_T, NULL, CT_SHAPE0, false), "linalg_matrix_norm(): argument 'A' (position 1)");
    FAILS_NULL(ct_trace(NULL_T), "trace(): argument 'input' (position 1)");
    FAILS_NULL(ct_linalg_matrix_power(NULL_T, 2), "linalg_matrix_power(): argument 'A' (position 1)");
    FAILS_NULL(ct_linalg_matrix_exp(NULL_T), "linalg_matrix_exp(): argument 'A' (position 1)");
}

static void test_shapes(void)
{
    ct_tensor *v = mat(CT_SHAPE(3), CT_F32), *r = mat(CT_SHAPE(2, 3), CT_F32), *x, *y, *z;
    FAILS_T(ct_linalg_inv(v), CT_ERR_RUNTIME, TWO_DIMS("linalg.inv"));
    FAILS_T(ct_linalg_inv(r), CT_ERR_RUNTIME, SQUARE_2x3("linalg.inv"));
    FAILS_T(ct_inverse(r), CT_ERR_RUNTIME, SQUARE_2x3("linalg.inv"));
    FAILS_T(ct_linalg_det(v), CT_ERR_RUNTIME, TWO_DIMS("linalg.det"));
    FAILS_T(ct_linalg_det(r), CT_ERR_RUNTIME, SQUARE_2x3("linalg.det"));
    FAILS_R(ct_linalg_slogdet(r, &x, &y), CT_ERR_RUNTIME, SQUARE_2x3("linalg.slogdet"));
    FAILS_T(ct_linalg_solve(v, v), CT_ERR_RUNTIME, TWO_DIMS("linalg.solve"));
    FAILS_T(ct_linalg_solve(r, v), CT_ERR_RUNTIME, SQUARE_2x3("linalg.solve"));
    FAILS_T(ct_linalg_solve(mat(CT_SHAPE(2, 2), CT_F32), v), CT_ERR_RUNTIME,
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)");
    FAILS_T(ct_linalg_solve(mat(CT_SHAPE(4, 3, 2, 2), CT_F32), mat(CT_SHAPE(3, 2), CT_F32)), CT_ERR_RUNTIME,
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x2)");
    FAILS_T(ct_linalg_solve(mat(CT_SHAPE(4, 2, 2), CT_F32), mat(CT_SHAPE(3, 2, 5), CT_F32)), CT_ERR_RUNTIME,
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0");
    FAILS_T(ct_linalg_cholesky(r, false), CT_ERR_RUNTIME, SQUARE_2x3("linalg.cholesky"));
    FAILS_R(ct_linalg_qr(v, CT_QR_REDUCED, &x, &y), CT_ERR_RUNTIME, TWO_DIMS("linalg.qr"));
    FAILS_R(ct_qr(v, true, &x, &y), CT_ERR_RUNTIME, TWO_DIMS("linalg.qr"));
    FAILS_R(ct_linalg_svd(v, false, &x, &y, &z), CT_ERR_RUNTIME, TWO_DIMS("linalg.svd"));
    FAILS_R(ct_svd(v, true, &x, &y, &z), CT_ERR_RUNTIME,
            "linalg.svd: input should have at least 2 dimensions, but has 1 dimensions instead");
    FAILS_T(ct_linalg_svdvals(v), CT_ERR_RUNTIME, TWO_DIMS("linalg.svd"));
    FAILS_R(ct_linalg_eigh(r, 'L', &x, &y), CT_ERR_RUNTIME, SQUARE_2x3("linalg.eigh"));
    FAILS_T(ct_linalg_eigvalsh(v, 'L'), CT_ERR_RUNTIME, TWO_DIMS("linalg.eigh"));
    FAILS_R(ct_linalg_eig(r, &x, &y), CT_ERR_RUNTIME, SQUARE_2x3("linalg.eig"));
    FAILS_T(ct_linalg_eigvals(r), CT_ERR_RUNTIME, SQUARE_2x3("linalg.eigvals"));
    FAILS_T(ct_linalg_lstsq(v, v), CT_ERR_RUNTIME, "torch.linalg.lstsq: input must have at least 2 dimensions.");
    FAILS_T(ct_linalg_lstsq(mat(CT_SHAPE(3, 2), CT_F32), mat(CT_SHAPE(2, 2), CT_F32)), CT_ERR_RUNTIME,
            "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
    FAILS_T(ct_linalg_pinv(v, false), CT_ERR_RUNTIME,
            "linalg.pinv(Float{[3]}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble "
            "types");
    FAILS_T(ct_linalg_matrix_rank(v, false), CT_ERR_RUNTIME,
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.");
    FAILS_T(ct_linalg_matrix_norm(v, NULL, CT_SHAPE0, false), CT_ERR_RUNTIME, TWO_DIMS("linalg.matrix_norm"));
    FAILS_T(ct_linalg_matrix_norm(mat(CT_SHAPE(3, 3), CT_F32), NULL, CT_DIMS(0, 0), false), CT_ERR_RUNTIME,
            "linalg.matrix_norm: dims must be different. Got (0, 0)");
    FAILS_T(ct_linalg_matrix_norm(mat(CT_SHAPE(3, 3), CT_F32), "3", CT_SHAPE0, false), CT_ERR_RUNTIME,
            "linalg.matrix_norm: Order 3 not supported.");
    FAILS_T(ct_linalg_matrix_norm(mat(CT_SHAPE(3, 3), CT_F32), "abc", CT_SHAPE0, false), CT_ERR_RUNTIME,
            "linalg.matrix_norm: Order abc not supported.");
    FAILS_T(ct_linalg_vector_norm(v, 2, CT_DIMS(2), false), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-1, 0], but got 2)");
    FAILS_T(ct_trace(v), CT_ERR_RUNTIME, "trace: expected a matrix, but got tensor with dim 1");
    FAILS_T(ct_trace(mat(CT_SHAPE(2, 2, 2), CT_F32)), CT_ERR_RUNTIME, "trace: expected a matrix, but got tensor with dim 3");
    FAILS_T(ct_linalg_matrix_power(v, 2), CT_ERR_RUNTIME, TWO_DIMS("linalg.matrix_power"));
    FAILS_T(ct_linalg_matrix_power(r, 2), CT_ERR_RUNTIME, SQUARE_2x3("linalg.matrix_power"));
    FAILS_T(ct_linalg_matrix_exp(v), CT_ERR_RUNTIME, TWO_DIMS("linalg.matrix_exp"));
    FAILS_T(ct_linalg_matrix_exp(r), CT_ERR_RUNTIME, SQUARE_2x3("linalg.matrix_exp"));
}

static void test_dtypes(void)
{
    ct_tensor *l = mat(CT_SHAPE(2, 2), CT_I64), *h = mat(CT_SHAPE(2, 2), CT_F16), *d = mat(CT_SHAPE(2, 2), CT_F64);
    ct_tensor *f = mat(CT_SHAPE(2, 2), CT_F32), *x, *y, *z;
    FAILS_T(ct_linalg_inv(l), CT_ERR_RUNTIME, NOT_FLOAT("linalg.inv", "Long"));
    FAILS_T(ct_linalg_inv(h), CT_ERR_RUNTIME, LOW_PRECISION("linalg.inv"));
    FAILS_T(ct_linalg_det(l), CT_ERR_RUNTIME, NOT_FLOAT("linalg.det", "Long"));
    FAILS_T(ct_linalg_det(h), CT_ERR_RUNTIME, NOT_FOR("lu_cpu", "Half"));
    FAILS_R(ct_linalg_slogdet(h, &x, &y), CT_ERR_RUNTIME, LOW_PRECISION("linalg.slogdet"));
    FAILS_T(ct_linalg_solve(l, l), CT_ERR_RUNTIME, NOT_FLOAT("linalg.solve", "Long"));
    FAILS_T(ct_linalg_solve(h, h), CT_ERR_RUNTIME, NOT_FOR("lu_cpu", "Half"));
    FAILS_T(ct_linalg_solve(f, d), CT_ERR_RUNTIME,
            "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type Double "
            "instead");
    FAILS_T(ct_linalg_cholesky(l, false), CT_ERR_RUNTIME, NOT_FLOAT("linalg.cholesky", "Long"));
    FAILS_T(ct_linalg_cholesky(h, true), CT_ERR_RUNTIME, NOT_FOR("cholesky_cpu", "Half"));
    FAILS_R(ct_linalg_qr(l, CT_QR_R, &x, &y), CT_ERR_RUNTIME, NOT_FLOAT("linalg.qr", "Long"));
    FAILS_R(ct_linalg_qr(h, CT_QR_COMPLETE, &x, &y), CT_ERR_RUNTIME, NOT_FOR("geqrf_cpu", "Half"));
    FAILS_R(ct_linalg_svd(l, true, &x, &y, &z), CT_ERR_RUNTIME, NOT_FLOAT("linalg.svd", "Long"));
    FAILS_R(ct_svd(h, true, &x, &y, &z), CT_ERR_RUNTIME, NOT_FOR("linalg_svd_cpu", "Half"));
    FAILS_T(ct_linalg_svdvals(h), CT_ERR_RUNTIME, NOT_FOR("linalg_svd_cpu", "Half"));
    FAILS_R(ct_linalg_eigh(l, 'L', &x, &y), CT_ERR_RUNTIME, NOT_FOR("linalg_eigh_cpu", "Long"));
    FAILS_T(ct_linalg_eigvalsh(h, 'U'), CT_ERR_RUNTIME, NOT_FOR("linalg_eigh_cpu", "Half"));
    FAILS_R(ct_linalg_eigh(f, 'X', &x, &y), CT_ERR_RUNTIME, "Expected UPLO argument to be 'L' or 'U', but got X");
    FAILS_R(ct_linalg_eig(l, &x, &y), CT_ERR_RUNTIME, "Unknown Complex ScalarType for Long");
    FAILS_T(ct_linalg_eigvals(h), CT_ERR_RUNTIME, NOT_FOR("linalg_eig_out_cpu", "Half"));
    FAILS_T(ct_linalg_lstsq(l, l), CT_ERR_RUNTIME, "This function doesn't handle types other than float and double");
    FAILS_T(ct_linalg_lstsq(f, d), CT_ERR_RUNTIME,
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype Float and "
            "other's dtype Double");
    FAILS_T(ct_linalg_pinv(l, false), CT_ERR_RUNTIME,
            "linalg.pinv(Long{[2, 2]}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble "
            "types");
    FAILS_T(ct_linalg_matrix_rank(h, false), CT_ERR_RUNTIME, "This function doesn't handle types other than float and double");
    FAILS_T(ct_linalg_vector_norm(l, 2, CT_SHAPE0, false), CT_ERR_RUNTIME, NOT_FLOAT("linalg.vector_norm", "Long"));
    FAILS_T(ct_linalg_matrix_norm(l, "nuc", CT_SHAPE0, false), CT_ERR_RUNTIME, NOT_FLOAT("linalg.matrix_norm", "Long"));
    FAILS_T(ct_trace(h), CT_ERR_RUNTIME, NOT_FOR("trace", "Half"));
    FAILS_T(ct_trace(mat(CT_SHAPE(2, 2), CT_BOOL)), CT_ERR_RUNTIME, NOT_FOR("trace", "Bool"));
    FAILS_T(ct_linalg_matrix_power(l, -1), CT_ERR_RUNTIME, NOT_FLOAT("linalg.inv", "Long"));
    FAILS_T(ct_linalg_matrix_exp(l), CT_ERR_RUNTIME, NOT_FLOAT("matrix_exp", "Long"));
    FAILS_T(ct_linalg_matrix_exp(h), CT_ERR_RUNTIME, NOT_FOR("log2_vml_cpu", "Half"));
}

/* Singular, indefinite and non-finite matrices, alone and as element 1 of a batch. */
static void test_singular_and_non_finite(void)
{
    ct_tensor *s = singular(), *eye = ct_eye(2, 2, CT_F64), *batch = ct_stack((ct_tensor *[]){eye, s}, 2, 0);
    ct_tensor *nan = ct_full(CT_SHAPE(2, 2), ct_float(NAN), CT_F64), *x, *y, *z;
    FAILS_T(ct_linalg_inv(s), CT_ERR_RUNTIME,
            "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input "
            "matrix is singular.");
    FAILS_T(ct_inverse(batch), CT_ERR_RUNTIME,
            "linalg.inv: (Batch element 1): The diagonal element 2 is zero, the inversion could not be completed "
            "because the input matrix is singular.");
    FAILS_T(ct_linalg_matrix_power(s, -2), CT_ERR_RUNTIME,
            "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input "
            "matrix is singular.");
    FAILS_T(ct_linalg_solve(s, ct_ones(CT_SHAPE(2), CT_F64)), CT_ERR_RUNTIME,
            "torch.linalg.solve: The solver failed because the input matrix is singular.");
    FAILS_T(ct_linalg_solve(batch, ct_ones(CT_SHAPE(2, 1), CT_F64)), CT_ERR_RUNTIME,
            "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix is singular.");
    FAILS_T(ct_linalg_cholesky(s, false), CT_ERR_RUNTIME,
            "linalg.cholesky: The factorization could not be completed because the input is not positive-definite "
            "(the leading minor of order 2 is not positive-definite).");
    FAILS_T(ct_linalg_cholesky(ct_neg(batch), false), CT_ERR_RUNTIME,
            "linalg.cholesky: (Batch element 0): The factorization could not be completed because the input is not "
            "positive-definite (the leading minor of order 1 is not positive-definite).");
    x = y = z = s;
    FAILS_R(ct_linalg_svd(nan, false, &x, &y, &z), CT_ERR_RUNTIME,
            "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
    CHECK(!x && !y && !z);
    FAILS_T(ct_linalg_svdvals(ct_stack((ct_tensor *[]){nan, eye}, 2, 0)), CT_ERR_RUNTIME,
            "linalg.svd: (Batch element 0): The algorithm failed to converge because the input matrix contained "
            "non-finite values.");
    FAILS_T(ct_linalg_pinv(nan, false), CT_ERR_RUNTIME,
            "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
    FAILS_R(ct_linalg_eig(nan, &x, &y), CT_ERR_RUNTIME, "torch.linalg.eig: input tensor should not contain infs or NaNs.");
    CHECK(!x && !y);
    /* what is not an error: det 0, slogdet (0, -inf) */
    CHECK_VALUES(ct_linalg_det(s), CT_SHAPE0, 0);
    CHECK_OK(ct_linalg_slogdet(s, &x, &y));
    CHECK_VALUES(x, CT_SHAPE0, 0);
    CHECK_VALUES(y, CT_SHAPE0, -INFINITY);
}

#define INV_SINGULAR(batch, k)                                                                      \
    "linalg.inv: " batch "The diagonal element " #k " is zero, the inversion could not be completed because " \
    "the input matrix is singular."

/* The zero pivot linalg.inv names is that of PyTorch's LU: of A^T for a
 * contiguous A (LAPACK reads its row-major data as A^T), of A otherwise, with
 * LAPACK's rounding (1..9 is found singular only so). */
static void test_singular_pivot_named(void)
{
    static const struct {
        int n;
        double v[16];
        int row_major, col_major; /* the element named when A's data is row-major (LU of A^T), column-major (of A) */
    } cases[] = {
        {3, {1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3},
        {3, {0, 0, 0, 1, 2, 3, 4, 5, 6}, 1, 3},
        {3, {0, 1, 0, 0, 0, 1, 0, 0, 0}, 3, 1},
        {4, {2, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0, 0, 0}, 3, 2},
        {4, {1, 2, 3, 4, 2, 4, 6, 8, 1, 0, 1, 0, 0, 1, 0, 1}, 2, 4},
    };
    char want[160];
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        int n = cases[i].n;
        ct_tensor *a = ct_from_array(cases[i].v, CT_SHAPE(n, n), CT_F64);
        /* A, in float32, A column-major; A^T row-major, A^T column-major */
        ct_tensor *forms[] = {a, ct_to(a, CT_F32), ct_t(ct_contiguous(ct_t(a))), ct_contiguous(ct_t(a)), ct_t(a)};
        int row = cases[i].row_major, col = cases[i].col_major, named[] = {row, row, col, col, row};
        for (int f = 0; f < 5; f++) {
            snprintf(want, sizeof want, INV_SINGULAR("", %d), named[f]);
            FAILS_T(ct_linalg_inv(forms[f]), CT_ERR_RUNTIME, want);
        }
    }
    ct_tensor *m = ct_from_array(cases[0].v, CT_SHAPE(3, 3), CT_F64), *d = ct_from_array(cases[2].v, CT_SHAPE(3, 3), CT_F64);
    ct_tensor *batch = ct_stack((ct_tensor *[]){ct_eye(3, 3, CT_F64), m, d}, 3, 0);
    FAILS_T(ct_linalg_inv(batch), CT_ERR_RUNTIME, INV_SINGULAR("(Batch element 1): ", 3));
    FAILS_T(ct_linalg_inv(ct_transpose(batch, 1, 2)), CT_ERR_RUNTIME, INV_SINGULAR("(Batch element 1): ", 3));
    FAILS_T(ct_linalg_inv(ct_expand(ct_view(batch, CT_SHAPE(3, 1, 3, 3)), CT_SHAPE(3, 2, 3, 3))), CT_ERR_RUNTIME,
            INV_SINGULAR("(Batch element 2): ", 3));
    FAILS_T(ct_linalg_solve(m, ct_ones(CT_SHAPE(3), CT_F64)), CT_ERR_RUNTIME,
            "torch.linalg.solve: The solver failed because the input matrix is singular.");
    CHECK_VALUES(ct_linalg_det(m), CT_SHAPE0, 0);
}

/* torch.linalg.lstsq's checks in PyTorch's order (dims, dtypes, shapes,
 * driver, then float types), each leaving every result pointer NULL. */
static void test_lstsq_all_errors(void)
{
    ct_tensor *f = mat(CT_SHAPE(3, 2), CT_F32), *x = f, *y = f, *z = f, *w = f;
    ct_lstsq_opts bad = {"foo", 0, false}, empty = {"", 0, false}, gelsd = {"gelsd", 0, false};
    const char *driver_msg = "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)";
    FAILS_R(ct_linalg_lstsq_all(f, f, bad, &x, &y, &z, &w), CT_ERR_RUNTIME, driver_msg);
    CHECK(!x && !y && !z && !w);
    FAILS_R(ct_linalg_lstsq_all(f, f, empty, &x, NULL, NULL, &w), CT_ERR_RUNTIME, driver_msg);
    ct_tensor *l = mat(CT_SHAPE(3, 2), CT_I64);
    FAILS_R(ct_linalg_lstsq_all(l, l, bad, &x, &y, &z, &w), CT_ERR_RUNTIME, driver_msg);
    FAILS_R(ct_linalg_lstsq_all(l, l, gelsd, &x, &y, &z, &w), CT_ERR_RUNTIME,
            "This function doesn't handle types other than float and double");
    FAILS_R(ct_linalg_lstsq_all(mat(CT_SHAPE(3), CT_F32), f, bad, &x, &y, &z, &w), CT_ERR_RUNTIME,
            "torch.linalg.lstsq: input must have at least 2 dimensions.");
    FAILS_R(ct_linalg_lstsq_all(f, mat(CT_SHAPE(2, 2), CT_F32), bad, &x, &y, &z, &w), CT_ERR_RUNTIME,
            "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
    FAILS_R(ct_linalg_lstsq_all(mat(CT_SHAPE(2, 3, 2), CT_F32), mat(CT_SHAPE(2, 2), CT_F32), gelsd, &x, &y, &z, &w),
            CT_ERR_RUNTIME, "torch.linalg.lstsq: input.size(-2) should match other.size(-1)");
    FAILS_R(ct_linalg_lstsq_all(f, mat(CT_SHAPE(2, 3, 2), CT_F32), bad, &x, &y, &z, &w), CT_ERR_RUNTIME,
            "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) "
            "<= 1");
    FAILS_R(ct_linalg_lstsq_all(mat(CT_SHAPE(2, 3, 2), CT_F32), mat(CT_SHAPE(3, 3, 2), CT_F32), gelsd, &x, &y, &z, &w),
            CT_ERR_RUNTIME, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
    FAILS_R(ct_linalg_lstsq_all(f, mat(CT_SHAPE(3, 2), CT_F64), bad, &x, &y, &z, &w), CT_ERR_RUNTIME,
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype Float and "
            "other's dtype Double");
    FAILS_NULL_R(ct_linalg_lstsq_all(NULL_T, f, gelsd, &x, &y, &z, &w), "linalg_lstsq(): argument 'A' (position 1)");
    FAILS_NULL_R(ct_linalg_lstsq_all(f, NULL_T, gelsd, &x, &y, &z, &w), "linalg_lstsq(): argument 'B' (position 2)");
    CHECK(!x && !y && !z && !w);
    FAILS_T(ct_linalg_lstsq(mat(CT_SHAPE(2, 3, 2), CT_F32), mat(CT_SHAPE(2, 2), CT_F32)), CT_ERR_RUNTIME,
            "torch.linalg.lstsq: input.size(-2) should match other.size(-1)");
}

/* gels assumes full rank: an exactly zero diagonal entry of R (m >= n) or
 * L (m < n) is PyTorch's LinAlgError with LAPACK's 1-based index, the
 * matrix named only when the batch holds several; nothing is handed out. */
static void test_lstsq_gels_rank_errors(void)
{
    static const double zero_col[6] = {1, 0, 2, 0, 3, 0}, random[6] = {0.5, -1, 2, 0.25, -0.75, 1.5};
    ct_tensor *A = ct_from_array(zero_col, CT_SHAPE(3, 2), CT_F64), *B = ct_ones(CT_SHAPE(3, 1), CT_F64);
    ct_tensor *x = A, *y = A, *z = A, *w = A;
    ct_lstsq_opts gels = {"gels", 0, false};
    const char *msg = "torch.linalg.lstsq: The least squares solution could not be computed because the input matrix "
                      "does not have full rank (error code: 2).";
    FAILS_R(ct_linalg_lstsq_all(A, B, gels, &x, &y, &z, &w), CT_ERR_RUNTIME, msg);
    CHECK(!x && !y && !z && !w);
    FAILS_R(ct_linalg_lstsq_all(ct_transpose(A, 0, 1), ct_ones(CT_SHAPE(2, 1), CT_F64), gels, &x, &y, &z, &w),
            CT_ERR_RUNTIME, msg); /* m < n: L's second diagonal entry */
    FAILS_R(ct_linalg_lstsq_all(ct_unsqueeze(ct_to(A, CT_F32), 0), ct_ones(CT_SHAPE(1, 3, 1), CT_F32), gels, &x, &y,
                                &z, &w),
            CT_ERR_RUNTIME, msg); /* a batch of one: no name */
    ct_tensor *pair[2] = {ct_from_array(random, CT_SHAPE(3, 2), CT_F64), A}, *batch = ct_stack(pair, 2, 0);
    FAILS_R(ct_linalg_lstsq_all(batch, ct_ones(CT_SHAPE(2, 3, 1), CT_F64), gels, &x, &y, &z, &w), CT_ERR_RUNTIME,
            "torch.linalg.lstsq: (Batch element 1): The least squares solution could not be computed because the "
            "input matrix does not have full rank (error code: 2).");
    CHECK(!x && !y && !z && !w);
}

int main(void)
{
    RUN(test_null_tensors);
    RUN(test_shapes);
    RUN(test_dtypes);
    RUN(test_singular_and_non_finite);
    RUN(test_singular_pivot_named);
    RUN(test_lstsq_all_errors);
    RUN(test_lstsq_gels_rank_errors);
    return ct_test_report();
}
