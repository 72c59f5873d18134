/* The linear algebra front ends (decomp.h): argument checks in PyTorch's
 * words, batching, float32 <-> float64, and the autograd nodes. Each
 * function reads its input as float64 matrices, runs a kernel of lapack.c
 * per matrix and casts the results back to the input's dtype. A view whose
 * history autograd may not read (ct__recordable) is refused first, as
 * PyTorch refuses it before its argument checks (matrix_rank and the old
 * svd check their arguments first: PyTorch's composites). */

/* ---------------------------------------------------------------- checks */

/* How a function checks its input A (..., m, n), in PyTorch's order: at
 * least 2 dims, a floating dtype, not float16 (by the low-precision message,
 * or by `kernel`'s name after the shape checks), square. */
typedef struct ct__la_spec {
    const char *name;   /* the messages' prefix: "linalg.inv" */
    bool square;
    const char *kernel; /* NULL: "Low precision dtypes not supported" */
    bool any_dtype;     /* no floating check first: the kernel refuses integers too (eigh) */
} ct__la_spec;

static bool ct__la_float(ct_dtype dt) { return dt == CT_F32 || dt == CT_F64; }

/* A has at least 2 dims, in the words of function `name`. */
static ct_result ct__la_check_ndim(const ct_tensor *A, const char *name)
{
    if (A->ndim < 2) return ct__fail(CT_ERR_RUNTIME, "%s: The input tensor A must have at least 2 dimensions.", name);
    return CT_OK;
}

/* A's matrices are square, in the words of function `name`. */
static ct_result ct__la_check_square(const ct_tensor *A, const char *name)
{
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1];
    if (m != n)
        return ct__fail(CT_ERR_RUNTIME, "%s: A must be batches of square matrices, but they are %lld by %lld matrices",
                        name, (long long)m, (long long)n);
    return CT_OK;
}

static ct_result ct__la_check(const ct_tensor *A, const ct__la_spec *s)
{
    if (ct__la_check_ndim(A, s->name) != CT_OK) return ct_last_error_code();
    if (!s->any_dtype && !ct_dtype_is_floating(A->dtype))
        return ct__fail(CT_ERR_RUNTIME, "%s: Expected a floating point or complex tensor as input. Got %s", s->name,
                        ct__dtype_title(A->dtype));
    if (!s->kernel && !ct__la_float(A->dtype))
        return ct__fail(CT_ERR_RUNTIME, "%s: Low precision dtypes not supported. Got %s", s->name,
                        ct__dtype_title(A->dtype));
    if (s->square && ct__la_check_square(A, s->name) != CT_OK) return ct_last_error_code();
    if (s->kernel && !ct__la_float(A->dtype)) return ct__not_implemented(s->kernel, A->dtype);
    return CT_OK;
}

/* "(Batch element 3): " for matrix b of a batch, "" for a lone matrix. */
static const char *ct__la_batch_note(const ct_tensor *A, int64_t b, char *buf, size_t n)
{
    if (A->ndim > 2) snprintf(buf, n, "(Batch element %lld): ", (long long)b);
    else buf[0] = 0;
    return buf;
}

/* ---------------------------------------------------------------- data in and out */

/* The decompositions run on the host: a device's matrices come through an
 * explicit copy, and the results go back to it (ct__la_result). */

/* The matrices of t (..., rows, cols) as float64 one after another on the
 * host (a tensor of the open scope; do not write it), and how many there are. */
static const double *ct__la_in(const ct_tensor *t, int64_t *batch)
{
    const ct_tensor *d;
    *batch = 1; /* set first: callers test the pointer, compilers the count */
    CT__UNRECORDED(d, ct__host(ct_contiguous(ct_to(t, CT_F64))));
    if (!d) return NULL;
    for (int i = 0; i < t->ndim - 2; i++) *batch *= t->sizes[i];
    static const double none = 0; /* no elements: a pointer that is never read */
    return ct__data(d) ? (const double *)ct__data(d) : &none;
}

/* A new float64 tensor with t's first nbatch dims and then the sizes in
 * tail (ntail of them); its data through *data. */
static ct_tensor *ct__la_out(const ct_tensor *t, int nbatch, const int64_t *tail, int ntail, double **data)
{
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)nbatch);
    if (ntail) memcpy(sizes + nbatch, tail, sizeof(int64_t) * (size_t)ntail); /* tail may be NULL */
    ct_tensor *o = ct__alloc(sizes, nbatch + ntail, CT_F64, ct__cpu);
    static double none; /* no elements: a pointer that is never read or written */
    if (o) *data = ct__data(o) ? (double *)ct__data(o) : &none;
    return o;
}

/* A host result in dtype on like's device, handed on out of the open scope. */
static ct_tensor *ct__la_back(ct_tensor *t, const ct_tensor *like, ct_dtype dtype)
{
    ct_tensor *r;
    CT__UNRECORDED(r, ct__to_device(t, like->storage->device, dtype, false));
    return r ? ct_keep(r) : NULL;
}

/* The same in like's dtype. */
static ct_tensor *ct__la_result(ct_tensor *t, const ct_tensor *like) { return ct__la_back(t, like, like->dtype); }

/* n doubles of scratch (freed by the caller), or NULL with the error set. */
static double *ct__la_scratch(int64_t n)
{
    double *p = (double *)CT_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!p) CT__OOM();
    return p;
}

/* Set each non-NULL pointer of outs (n of them) to NULL. */
static void ct__la_clear(ct_tensor **a, ct_tensor **b, ct_tensor **c)
{
    if (a) *a = NULL;
    if (b) *b = NULL;
    if (c) *c = NULL;
}

/* *slot = t, or t dropped when the caller did not ask for it. */
static void ct__la_hand(ct_tensor **slot, ct_tensor *t)
{
    if (slot) *slot = t;
    else ct__discard(t);
}

/* ---------------------------------------------------------------- LU family */

static const ct__la_spec ct__spec_inv = {"linalg.inv", true, NULL, false};

/* The inverse of A as float64 (a tensor of the open scope), or NULL with
 * PyTorch's singular-matrix message: A^-1 I as PyTorch's linalg.inv
 * solves it (with LAPACK: getrf of A^T and getrs with trans 'T' for a
 * contiguous A, getrf of A and getrs 'N' otherwise). */
static ct_tensor *ct__inv_f64(const ct_tensor *A)
{
    bool a_t = ct_is_contiguous(A), single = A->dtype == CT_F32;
    int64_t n = A->sizes[A->ndim - 1], batch, piv_n = n > 0 ? n : 1;
    const double *a = ct__la_in(A, &batch);
    double *o, *lu = a ? ct__la_scratch(n * n) : NULL;
    int64_t *piv = lu ? (int64_t *)CT_MALLOC((size_t)piv_n * sizeof(int64_t)) : NULL;
    ct_tensor *out = piv ? ct__la_out(A, A->ndim, NULL, 0, &o) : NULL;
    if (lu && !piv) CT__OOM();
    for (int64_t b = 0; out && b < batch; b++) {
        memcpy(lu, a + b * n * n, (size_t)(n * n) * sizeof *lu);
        ct__la_eye(o + b * n * n, n);
        int64_t info = ct__lu_factor_solve(lu, n, a_t, single, o + b * n * n, n, piv);
        if (info) {
            char note[48];
            ct__fail(CT_ERR_RUNTIME,
                     "linalg.inv: %sThe diagonal element %lld is zero, the inversion could not be completed because "
                     "the input matrix is singular.",
                     ct__la_batch_note(A, b, note, sizeof note), (long long)info);
            out = NULL;
            break;
        }
    }
    CT_FREE(lu);
    CT_FREE(piv);
    return out;
}

ct_tensor *ct_linalg_inv(const ct_tensor *A)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_linalg_inv(A), &A);
    CT__ARG(A, "A", 1);
    if (ct__recordable(&A, 1) != CT_OK) return NULL;
    if (ct__la_check(A, &ct__spec_inv) != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct__inv_f64(A);
    r = r ? ct__la_result(r, A) : NULL;
    ct_scope_end(s);
    return ct__la_record_inv(r, A) ? r : NULL;
}

ct_tensor *ct_inverse(const ct_tensor *A)
{
    CT__ARG(A, "input", 1);
    return ct_linalg_inv(A);
}

/* sign and log|det| (each (batch...) float64, NULL: not wanted) of A's
 * matrices, and det itself when det is given. Like PyTorch, which hands
 * LAPACK the row-major data of a contiguous A as it is, this factors A^T
 * then (the same determinant), and A itself for a non-contiguous A: the
 * rounding then matches, so that a singular matrix with small integers
 * gets det exactly 0, as its gradient (linalg_det's) needs. */
static ct_result ct__lu_dets(const ct_tensor *A, ct_tensor **sign, ct_tensor **logabs, ct_tensor **det)
{
    bool a_t = ct_is_contiguous(A);
    int64_t n = A->sizes[A->ndim - 1], batch;
    const double *a = ct__la_in(A, &batch);
    double *so = NULL, *lo = NULL, *dout = NULL, *lu = a ? ct__la_scratch(n * n) : NULL;
    int64_t *piv = lu ? (int64_t *)CT_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(int64_t)) : NULL;
    bool ok = piv != NULL;
    if (lu && !piv) CT__OOM();
    if (ok && sign) ok = (*sign = ct__la_out(A, A->ndim - 2, NULL, 0, &so)) != NULL;
    if (ok && logabs) ok = (*logabs = ct__la_out(A, A->ndim - 2, NULL, 0, &lo)) != NULL;
    if (ok && det) ok = (*det = ct__la_out(A, A->ndim - 2, NULL, 0, &dout)) != NULL;
    for (int64_t b = 0; ok && b < batch; b++) {
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) lu[a_t ? j * n + i : i * n + j] = a[(b * n + i) * n + j];
        ct__lu(lu, n, A->dtype == CT_F32, piv);
        double sg, la;
        ct__lu_slogdet(lu, piv, n, &sg, &la);
        if (so) so[b] = sg;
        if (lo) lo[b] = la;
        if (dout) {
            double d = 1;
            for (int64_t i = 0; i < n; i++) d *= piv[i] != i ? -lu[i * n + i] : lu[i * n + i];
            dout[b] = d;
        }
    }
    CT_FREE(lu);
    CT_FREE(piv);
    return ok ? CT_OK : ct_last_error_code();
}

ct_tensor *ct_linalg_det(const ct_tensor *A)
{
    static const ct__la_spec spec = {"linalg.det", true, "lu_cpu", false};
    CT__ARG(A, "A", 1);
    if (ct__recordable(&A, 1) != CT_OK) return NULL;
    if (ct__la_check(A, &spec) != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *d = NULL;
    ct_tensor *r = ct__lu_dets(A, NULL, NULL, &d) == CT_OK ? ct__la_result(d, A) : NULL;
    ct_scope_end(s);
    return ct__la_record_det(r, A) ? r : NULL;
}

ct_result ct_linalg_slogdet(const ct_tensor *A, ct_tensor **sign, ct_tensor **logabsdet)
{
    static const ct__la_spec spec = {"linalg.slogdet", true, NULL, false};
    ct__la_clear(sign, logabsdet, NULL);
    CT__ARG_R(A, "A", 1);
    if (ct__recordable(&A, 1) != CT_OK) return ct_last_error_code();
    if (ct__la_check(A, &spec) != CT_OK) return ct_last_error_code();
    ct_scope s = ct_scope_begin();
    ct_tensor *sg = NULL, *la = NULL;
    ct_result r = ct__lu_dets(A, &sg, &la, NULL);
    if (r == CT_OK) {
        sg = ct__la_result(sg, A);
        la = ct__la_result(la, A);
    }
    ct_scope_end(s);
    if (r != CT_OK || !sg || !la) {
        if (sg) ct__discard(sg);
        if (la) ct__discard(la);
        return r != CT_OK ? r : ct_last_error_code();
    }
    if (!ct__la_record_slogdet(sg, la, A)) return ct_last_error_code();
    ct__la_hand(sign, sg);
    ct__la_hand(logabsdet, la);
    return CT_OK;
}

/* B (..., n, k), or a vector (..., n) as PyTorch tells one from a matrix
 * (linalg_solve_is_vector_rhs): one dim, or A's shape without its last dim. */
static bool ct__la_vector_rhs(const ct_tensor *A, const ct_tensor *B)
{
    if (B->ndim == 1) return true;
    return B->ndim == A->ndim - 1 && !memcmp(B->sizes, A->sizes, sizeof(int64_t) * (size_t)B->ndim);
}

/* A (..., m, n) and the matrix B (..., m, k) expanded to their broadcast
 * batch shape (tensors of the open scope). */
static ct_result ct__la_broadcast_pair(const ct_tensor *A, const ct_tensor *B, ct_tensor **Ae, ct_tensor **Be)
{
    ct_shape sa, sb;
    int nb;
    if (ct__broadcast_shapes(B->sizes, B->ndim - 2, A->sizes, A->ndim - 2, sa.size, &nb) != CT_OK)
        return ct_last_error_code();
    memcpy(sb.size, sa.size, sizeof(int64_t) * (size_t)nb);
    sa.ndim = sb.ndim = nb + 2;
    sa.size[nb] = A->sizes[A->ndim - 2];
    sa.size[nb + 1] = A->sizes[A->ndim - 1];
    sb.size[nb] = B->sizes[B->ndim - 2];
    sb.size[nb + 1] = B->sizes[B->ndim - 1];
    CT__UNRECORDED(*Ae, ct_expand(A, sa));
    CT__UNRECORDED(*Be, ct_expand(B, sb));
    return *Ae && *Be ? CT_OK : ct_last_error_code();
}

/* X = A^-1 B for A (..., n, n), B (..., n, k) of one batch shape (float64,
 * of the open scope), or NULL with the singular-matrix message. a_t: the
 * caller's A was contiguous (ct__lu_factor_solve); single: it was float32. */
static ct_tensor *ct__solve_f64(const ct_tensor *A, const ct_tensor *B, bool a_t, bool single)
{
    int64_t n = A->sizes[A->ndim - 1], k = B->sizes[B->ndim - 1], batch, bb;
    const double *a = ct__la_in(A, &batch), *bd = a ? ct__la_in(B, &bb) : NULL;
    double *o, *lu = bd ? ct__la_scratch(n * n) : NULL;
    int64_t *piv = lu ? (int64_t *)CT_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(int64_t)) : NULL;
    if (lu && !piv) CT__OOM();
    ct_tensor *out = piv ? ct__la_out(B, B->ndim, NULL, 0, &o) : NULL;
    for (int64_t b = 0; out && b < batch; b++) {
        memcpy(lu, a + b * n * n, (size_t)(n * n) * sizeof *lu);
        memcpy(o + b * n * k, bd + b * n * k, (size_t)(n * k) * sizeof *o);
        if (ct__lu_factor_solve(lu, n, a_t, single, o + b * n * k, k, piv)) {
            char note[48];
            ct__fail(CT_ERR_RUNTIME, "torch.linalg.solve: %sThe solver failed because the input matrix is singular.",
                     ct__la_batch_note(A, b, note, sizeof note));
            out = NULL;
            break;
        }
    }
    CT_FREE(lu);
    CT_FREE(piv);
    return out;
}

/* B as a matrix (..., n, k) for a solver, and whether it was a vector;
 * errors in the words of `name` ("linalg.solve"). */
static ct_tensor *ct__la_rhs(const ct_tensor *A, const ct_tensor *B, bool *vector)
{
    ct_tensor *Bm;
    *vector = ct__la_vector_rhs(A, B);
    CT__UNRECORDED(Bm, *vector ? ct_unsqueeze(B, -1) : ct__same(B));
    return Bm;
}

ct_tensor *ct_linalg_solve(const ct_tensor *A, const ct_tensor *B)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_linalg_solve(A, B), &A, &B);
    static const ct__la_spec spec = {"linalg.solve", true, "lu_cpu", false};
    CT__ARG(A, "A", 1);
    CT__ARG(B, "B", 2);
    const ct_tensor *AB[2] = {A, B};
    if (ct__same_device(A, B, NULL) != CT_OK || ct__recordable(AB, 2) != CT_OK) return NULL;
    if (ct__la_check(A, &spec) != CT_OK) return NULL;
    if (A->dtype != B->dtype) {
        ct__fail(CT_ERR_RUNTIME,
                 "linalg.solve: Expected A and B to have the same dtype, but found A of type %s and B of type %s instead",
                 ct__dtype_title(A->dtype), ct__dtype_title(B->dtype));
        return NULL;
    }
    if (B->ndim < 1) {
        ct__fail(CT_ERR_RUNTIME, "linalg.solve: The input tensor B must have at least 1 dimensions.");
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    bool vector;
    ct_tensor *Bm = ct__la_rhs(A, B, &vector), *Ae = NULL, *Be = NULL, *r = NULL;
    int64_t n = A->sizes[A->ndim - 1];
    if (Bm && Bm->sizes[Bm->ndim - 2] != n)
        ct__fail(CT_ERR_RUNTIME, "linalg.solve: Incompatible shapes of A and B for the equation AX = B (%lldx%lld and %lldx%lld)",
                 (long long)n, (long long)n, (long long)Bm->sizes[Bm->ndim - 2], (long long)Bm->sizes[Bm->ndim - 1]);
    else if (Bm && ct__la_broadcast_pair(A, Bm, &Ae, &Be) == CT_OK)
        r = ct__solve_f64(Ae, Be, ct_is_contiguous(A), A->dtype == CT_F32);
    if (r && vector) r = ct_squeeze_dim(r, -1);
    r = r ? ct__la_result(r, A) : NULL;
    ct_scope_end(s);
    return ct__la_record_solve(r, A, B, vector) ? r : NULL;
}

/* ---------------------------------------------------------------- Cholesky */

ct_tensor *ct_linalg_cholesky(const ct_tensor *A, bool upper)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_linalg_cholesky(A, upper), &A);
    static const ct__la_spec spec = {"linalg.cholesky", true, "cholesky_cpu", false};
    CT__ARG(A, "A", 1);
    if (ct__recordable(&A, 1) != CT_OK) return NULL;
    if (ct__la_check(A, &spec) != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    int64_t n = A->sizes[A->ndim - 1], batch;
    const double *a = ct__la_in(A, &batch);
    double *o;
    ct_tensor *out = a ? ct__la_out(A, A->ndim, NULL, 0, &o) : NULL;
    for (int64_t b = 0; out && b < batch; b++) {
        double *l = o + b * n * n;
        memcpy(l, a + b * n * n, (size_t)(n * n) * sizeof *l);
        int64_t info = ct__cholesky(l, n, upper, A->dtype == CT_F32);
        if (info) {
            char note[48];
            ct__fail(CT_ERR_RUNTIME,
                     "linalg.cholesky: %sThe factorization could not be completed because the input is not "
                     "positive-definite (the leading minor of order %lld is not positive-definite).",
                     ct__la_batch_note(A, b, note, sizeof note), (long long)info);
            out = NULL;
        }
    }
    ct_tensor *r = out ? ct__la_result(out, A) : NULL;
    ct_scope_end(s);
    return ct__la_record_cholesky(r, A, upper) ? r : NULL;
}

/* ---------------------------------------------------------------- QR */

ct_result ct_linalg_qr(const ct_tensor *A, ct_qr_mode mode, ct_tensor **Q, ct_tensor **R)
{
    CT__AUTOCAST_OUTS(CT__CAST_FP32, ct_linalg_qr(A, mode, Q, R), (Q, R), &A);
    static const ct__la_spec spec = {"linalg.qr", false, "geqrf_cpu", false};
    ct__la_clear(Q, R, NULL);
    CT__ARG_R(A, "A", 1);
    if (ct__recordable(&A, 1) != CT_OK) return ct_last_error_code();
    if ((unsigned)mode > CT_QR_R)
        return ct__fail(CT_ERR_RUNTIME,
                        "qr received unrecognized mode '%d' but expected one of 'reduced' (default), 'r', or 'complete'",
                        (int)mode);
    if (ct__la_check(A, &spec) != CT_OK) return ct_last_error_code();
    ct_scope s = ct_scope_begin();
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1], k = CT__MIN(m, n), batch;
    int64_t qc = mode == CT_QR_COMPLETE ? m : k, rr = mode == CT_QR_COMPLETE ? m : k;
    int64_t qshape[2] = {m, qc}, rshape[2] = {rr, n}, empty = 0;
    const double *a = ct__la_in(A, &batch);
    double *qd = NULL, *rd, *w = a ? ct__la_scratch(m * n + k) : NULL;
    ct_tensor *q = NULL, *r = w ? ct__la_out(A, A->ndim - 2, rshape, 2, &rd) : NULL;
    if (r) q = mode == CT_QR_R ? ct__la_out(A, 0, &empty, 1, &qd) : ct__la_out(A, A->ndim - 2, qshape, 2, &qd);
    for (int64_t b = 0; q && b < batch; b++) {
        memcpy(w, a + b * m * n, (size_t)(m * n) * sizeof *w);
        ct__qr(w, m, n, A->dtype == CT_F32, w + m * n);
        double *rb = rd + b * rr * n;
        for (int64_t i = 0; i < rr; i++)
            for (int64_t j = 0; j < n; j++) rb[i * n + j] = i <= j && i < m ? w[i * n + j] : 0;
        if (mode != CT_QR_R) ct__qr_q(w, w + m * n, m, n, A->dtype == CT_F32, qd + b * m * qc, qc);
    }
    CT_FREE(w);
    if (q) {
        q = ct__la_result(q, A);
        r = ct__la_result(r, A);
    }
    ct_scope_end(s);
    if (!q || !r) {
        if (q) ct__discard(q);
        return ct_last_error_code();
    }
    if (!ct__la_record_qr(q, r, A, mode)) return ct_last_error_code();
    ct__la_hand(Q, q);
    ct__la_hand(R, r);
    return CT_OK;
}

ct_result ct_qr(const ct_tensor *A, bool some, ct_tensor **Q, ct_tensor **R)
{
    ct__la_clear(Q, R, NULL);
    CT__ARG_R(A, "input", 1);
    return ct_linalg_qr(A, some ? CT_QR_REDUCED : CT_QR_COMPLETE, Q, R);
}

/* ---------------------------------------------------------------- SVD */

static const ct__la_spec ct__spec_svd = {"linalg.svd", false, "linalg_svd_cpu", false};

/* Whether every element of the n doubles is finite. */
static bool ct__la_finite(const double *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(a[i])) return false;
    return true;
}

/* U, S, Vh of A as float64 tensors of the open scope (U, Vh only when
 * want_uv); an input without elements gives identities, as PyTorch's. */
static ct_result ct__svd_f64(const ct_tensor *A, bool full, bool want_uv, ct_tensor **U, ct_tensor **S, ct_tensor **Vh)
{
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1], k = CT__MIN(m, n), batch;
    if (ct_numel(A) == 0) full = true;
    int64_t uc = full ? m : k, vr = full ? n : k;
    int64_t ushape[2] = {m, uc}, vshape[2] = {vr, n};
    const double *a = ct__la_in(A, &batch);
    double *ud = NULL, *sd, *vd = NULL;
    double *w = a ? ct__la_scratch(m * n + m * m + n * n + m * m + n * n) : NULL; /* scratch, then U and Vh */
    *S = w ? ct__la_out(A, A->ndim - 2, &k, 1, &sd) : NULL;
    if (*S && want_uv) *U = ct__la_out(A, A->ndim - 2, ushape, 2, &ud);
    if (*S && want_uv && *U) *Vh = ct__la_out(A, A->ndim - 2, vshape, 2, &vd);
    bool ok = *S && (!want_uv || (*U && *Vh));
    for (int64_t b = 0; ok && b < batch; b++) {
        const double *ab = a + b * m * n;
        if (!ct__la_finite(ab, m * n)) {
            char note[48];
            ct__fail(CT_ERR_RUNTIME,
                     "linalg.svd: %sThe algorithm failed to converge because the input matrix contained non-finite "
                     "values.",
                     ct__la_batch_note(A, b, note, sizeof note));
            ok = false;
            break;
        }
        double *ub = want_uv ? ud + b * m * uc : w + m * n + m * m + n * n;
        double *vb = want_uv ? vd + b * vr * n : ub + m * m;
        ct__svd(ab, m, n, want_uv, A->dtype == CT_F32, sd + b * k, ub, uc, vb, vr, w);
    }
    if (ok && k == 0 && want_uv) {
        for (int64_t b = 0; b < batch; b++) {
            ct__la_eye(ud + b * m * m, m);
            ct__la_eye(vd + b * n * n, n);
        }
    }
    CT_FREE(w);
    return ok ? CT_OK : ct_last_error_code();
}

/* linalg.svd and svdvals: U, S, Vh in A's dtype, recorded. */
static ct_result ct__svd_op(const ct_tensor *A, bool full, bool want_uv, ct_tensor **U, ct_tensor **S, ct_tensor **Vh)
{
    ct__la_clear(U, S, Vh);
    if (ct__recordable(&A, 1) != CT_OK) return ct_last_error_code();
    if (ct__la_check(A, &ct__spec_svd) != CT_OK) return ct_last_error_code();
    bool uv = want_uv || (ct__grad_mode() && ct__requires_grad(A)); /* backward needs U and Vh */
    ct_scope s = ct_scope_begin();
    ct_tensor *u = NULL, *sv = NULL, *vh = NULL;
    ct_result r = ct__svd_f64(A, full, uv, &u, &sv, &vh);
    if (r == CT_OK) {
        sv = ct__la_result(sv, A);
        if (uv) {
            u = ct__la_result(u, A);
            vh = ct__la_result(vh, A);
        }
    }
    ct_scope_end(s);
    if (r != CT_OK) return r;
    if (!ct__la_record_svd(u, sv, vh, A, full)) return ct_last_error_code();
    if (uv) {
        ct__la_hand(want_uv ? U : NULL, u);
        ct__la_hand(want_uv ? Vh : NULL, vh);
    }
    ct__la_hand(S, sv);
    return CT_OK;
}

ct_result ct_linalg_svd(const ct_tensor *A, bool full_matrices, ct_tensor **U, ct_tensor **S, ct_tensor **Vh)
{
    CT__AUTOCAST_OUTS(CT__CAST_FP32, ct_linalg_svd(A, full_matrices, U, S, Vh), (U, S, Vh), &A);
    ct__la_clear(U, S, Vh);
    CT__ARG_R(A, "A", 1);
    return ct__svd_op(A, full_matrices, true, U, S, Vh);
}

ct_result ct_svd(const ct_tensor *A, bool some, ct_tensor **U, ct_tensor **S, ct_tensor **V)
{
    CT__AUTOCAST_OUTS(CT__CAST_FP32, ct_svd(A, some, U, S, V), (U, S, V), &A);
    ct__la_clear(U, S, V);
    CT__ARG_R(A, "input", 1);
    if (A->ndim < 2)
        return ct__fail(CT_ERR_RUNTIME, "linalg.svd: input should have at least 2 dimensions, but has %d dimensions instead",
                        A->ndim);
    ct_tensor *vh = NULL;
    ct_result r = ct__svd_op(A, !some, true, U, S, &vh);
    if (r != CT_OK) return r;
    ct_tensor *v = ct_transpose(vh, -2, -1);
    ct__discard(vh);
    ct__la_hand(V, v);
    return CT_OK;
}

ct_tensor *ct_linalg_svdvals(const ct_tensor *A)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_linalg_svdvals(A), &A);
    ct_tensor *S;
    CT__ARG(A, "A", 1);
    return ct__svd_op(A, false, false, NULL, &S, NULL) == CT_OK ? S : NULL;
}

/* ---------------------------------------------------------------- eigen */

/* lower ('L') or upper ('U') triangle of a (n, n) mirrored into w (n, n). */
static void ct__la_symmetrize(const double *a, int64_t n, bool upper, double *w)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            int64_t lo = CT__MAX(i, j), hi = CT__MIN(i, j);
            w[i * n + j] = upper ? a[hi * n + lo] : a[lo * n + hi];
        }
}

/* eigenvalues (..., n) and eigenvectors (..., n, n) of A as float64
 * tensors of the open scope (vectors only when want_vectors). */
static ct_result ct__eigh_f64(const ct_tensor *A, bool upper, bool want_vectors, ct_tensor **L, ct_tensor **Q)
{
    int64_t n = A->sizes[A->ndim - 1], batch;
    const double *a = ct__la_in(A, &batch);
    double *ld, *qd = NULL, *w = a ? ct__la_scratch(2 * n * n) : NULL;
    *L = w ? ct__la_out(A, A->ndim - 1, NULL, 0, &ld) : NULL;
    if (*L && want_vectors) *Q = ct__la_out(A, A->ndim, NULL, 0, &qd);
    bool ok = *L && (!want_vectors || *Q);
    for (int64_t b = 0; ok && b < batch; b++) {
        ct__la_symmetrize(a + b * n * n, n, upper, w);
        ct__eigh(w, n, upper, want_vectors, A->dtype == CT_F32, ld + b * n, want_vectors ? qd + b * n * n : w + n * n);
    }
    CT_FREE(w);
    return ok ? CT_OK : ct_last_error_code();
}

static ct_result ct__eigh_op(const ct_tensor *A, char uplo, bool want_vectors, ct_tensor **eigenvalues,
                          ct_tensor **eigenvectors)
{
    static const ct__la_spec spec = {"linalg.eigh", true, "linalg_eigh_cpu", true};
    if (ct__recordable(&A, 1) != CT_OK) return ct_last_error_code();
    if (uplo && uplo != 'L' && uplo != 'U' && uplo != 'l' && uplo != 'u')
        return ct__fail(CT_ERR_RUNTIME, "Expected UPLO argument to be 'L' or 'U', but got %c", uplo);
    if (ct__la_check(A, &spec) != CT_OK) return ct_last_error_code();
    bool vectors = want_vectors || (ct__grad_mode() && ct__requires_grad(A)); /* backward needs them */
    ct_scope s = ct_scope_begin();
    ct_tensor *l = NULL, *q = NULL;
    ct_result r = ct__eigh_f64(A, uplo == 'U' || uplo == 'u', vectors, &l, &q);
    if (r == CT_OK) {
        l = ct__la_result(l, A);
        if (vectors) q = ct__la_result(q, A);
    }
    ct_scope_end(s);
    if (r != CT_OK) return r;
    if (!ct__la_record_eigh(l, q, A)) return ct_last_error_code();
    ct__la_hand(eigenvalues, l);
    if (vectors) ct__la_hand(want_vectors ? eigenvectors : NULL, q);
    return CT_OK;
}

ct_result ct_linalg_eigh(const ct_tensor *A, char uplo, ct_tensor **eigenvalues, ct_tensor **eigenvectors)
{
    CT__AUTOCAST_OUTS(CT__CAST_FP32, ct_linalg_eigh(A, uplo, eigenvalues, eigenvectors), (eigenvalues, eigenvectors),
                      &A);
    ct__la_clear(eigenvalues, eigenvectors, NULL);
    CT__ARG_R(A, "A", 1);
    return ct__eigh_op(A, uplo, true, eigenvalues, eigenvectors);
}

ct_tensor *ct_linalg_eigvalsh(const ct_tensor *A, char uplo)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_linalg_eigvalsh(A, uplo), &A);
    ct_tensor *L;
    CT__ARG(A, "A", 1);
    return ct__eigh_op(A, uplo, false, &L, NULL) == CT_OK ? L : NULL;
}

/* General eigen decomposition of A (float64 tensors of the open scope):
 * eigenvalues (..., n, 2) and, when want_vectors, eigenvectors (..., n, n, 2). */
static ct_result ct__eig_f64(const ct_tensor *A, bool want_vectors, ct_tensor **L, ct_tensor **V)
{
    int64_t n = A->sizes[A->ndim - 1], batch, two = 2, vshape[3] = {n, n, 2};
    const double *a = ct__la_in(A, &batch);
    double *ld, *vd = NULL, *w = a ? ct__la_scratch(2 * n * n + 7 * n) : NULL;
    int64_t *piv = w ? (int64_t *)CT_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(int64_t)) : NULL;
    if (w && !piv) CT__OOM();
    int64_t lshape[2] = {n, two};
    *L = piv ? ct__la_out(A, A->ndim - 2, lshape, 2, &ld) : NULL;
    if (*L && want_vectors) *V = ct__la_out(A, A->ndim - 2, vshape, 3, &vd);
    bool ok = *L && (!want_vectors || *V);
    if (ok && !ct__la_finite(a, batch * n * n)) {
        ct__fail(CT_ERR_RUNTIME, "torch.linalg.eig: input tensor should not contain infs or NaNs.");
        ok = false;
    }
    double *wr = w, *wi = wr + n, *scratch = wi + n;
    for (int64_t b = 0; ok && b < batch; b++) {
        double *vb = want_vectors ? vd + b * n * n * 2 : NULL;
        if (!ct__geev(a + b * n * n, n, A->dtype == CT_F32, wr, wi, vb, scratch, piv)) {
            char note[48];
            ct__fail(CT_ERR_RUNTIME,
                     "linalg.eig: %sThe algorithm failed to converge because the input matrix is ill-conditioned or "
                     "has too many repeated eigenvalues (error code: %lld).",
                     ct__la_batch_note(A, b, note, sizeof note), (long long)n);
            ok = false;
            break;
        }
        for (int64_t i = 0; i < n; i++) {
            ld[(b * n + i) * 2] = wr[i];
            ld[(b * n + i) * 2 + 1] = wi[i];
        }
    }
    CT_FREE(w);
    CT_FREE(piv);
    return ok ? CT_OK : ct_last_error_code();
}

static ct_result ct__eig(const ct_tensor *A, const char *name, bool want_vectors, ct_tensor **L, ct_tensor **V)
{
    ct__la_spec spec = {name, true, "linalg_eig_out_cpu", true};
    if (ct__recordable(&A, 1) != CT_OK) return ct_last_error_code();
    if (!ct_dtype_is_floating(A->dtype))
        return ct__fail(CT_ERR_RUNTIME, "Unknown Complex ScalarType for %s", ct__dtype_title(A->dtype));
    if (ct__la_check(A, &spec) != CT_OK) return ct_last_error_code();
    bool vectors = want_vectors || (ct__grad_mode() && ct__requires_grad(A)); /* backward needs them */
    ct_scope s = ct_scope_begin();
    ct_tensor *l = NULL, *v = NULL;
    ct_result r = ct__eig_f64(A, vectors, &l, &v);
    if (r == CT_OK) {
        l = ct__la_result(l, A);
        if (vectors) v = ct__la_result(v, A);
    }
    ct_scope_end(s);
    if (r != CT_OK) return r;
    if (!ct__la_record_eig(l, v, A)) return ct_last_error_code();
    ct__la_hand(L, l);
    if (vectors) ct__la_hand(V, v);
    return CT_OK;
}

ct_result ct_linalg_eig(const ct_tensor *A, ct_tensor **eigenvalues, ct_tensor **eigenvectors)
{
    CT__AUTOCAST_OUTS(CT__CAST_FP32, ct_linalg_eig(A, eigenvalues, eigenvectors), (eigenvalues, eigenvectors), &A);
    ct__la_clear(eigenvalues, eigenvectors, NULL);
    CT__ARG_R(A, "A", 1);
    return ct__eig(A, "linalg.eig", true, eigenvalues, eigenvectors);
}

ct_tensor *ct_linalg_eigvals(const ct_tensor *A)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_linalg_eigvals(A), &A);
    ct_tensor *L = NULL;
    CT__ARG(A, "A", 1);
    return ct__eig(A, "linalg.eigvals", false, &L, NULL) == CT_OK ? L : NULL;
}

/* ---------------------------------------------------------------- pseudo-inverse, rank, least squares */

/* PyTorch's default relative tolerance for a matrix (m, n) of dtype dt:
 * eps(dt) * max(m, n). */
static double ct__la_rtol(ct_dtype dt, int64_t m, int64_t n)
{
    return (dt == CT_F32 ? (double)FLT_EPSILON : DBL_EPSILON) * (double)CT__MAX(m, n);
}

/* p (n, m) = the pseudo-inverse of a (m, n), values at most rtol times the
 * largest dropped (none for a NaN rtol, as LAPACK's gelsd compares); by SVD,
 * or by eigen decomposition (of the lower triangle) when herm; the singular
 * values (descending, min(m, n) of them) to sv when not NULL. Returns the
 * rank, or -1 for a non-finite input. p NULL: the rank alone, from the
 * values alone (PyTorch's matrix_rank: svdvals or eigvalsh). single: a was
 * float32 (LAPACK's single routines). scratch: 4 (m + n)^2 doubles. */
static int64_t ct__pinv(const double *a, int64_t m, int64_t n, bool herm, double rtol, bool single, double *p,
                        double *sv, double *scratch)
{
    int64_t k = CT__MIN(m, n), rank = 0;
    double *s = scratch, *u = s + k, *vt = u + m * k, *w = vt + k * n; /* herm: u = Q (n, n), vt unused */
    if (!ct__la_finite(a, m * n)) return -1;
    if (herm) {
        ct__la_symmetrize(a, n, false, w);
        ct__eigh(w, n, false, p != NULL, single, s, u);
    } else {
        ct__svd(a, m, n, p != NULL, single, s, u, k, vt, k, w);
        if (sv) memcpy(sv, s, (size_t)k * sizeof(double));
    }
    double big = 0;
    for (int64_t i = 0; i < k; i++) big = CT__MAX(big, fabs(s[i]));
    for (int64_t i = 0; p && i < n * m; i++) p[i] = 0;
    for (int64_t c = 0; c < k; c++) {
        if (fabs(s[c]) <= rtol * big) continue;
        rank++;
        if (!p) continue;
        double inv = 1 / s[c];
        for (int64_t i = 0; i < n; i++) { /* p += v_c u_c^T / s_c */
            double vi = (herm ? u[i * k + c] : vt[c * n + i]) * inv;
            for (int64_t j = 0; j < m; j++) p[i * m + j] += vi * u[j * k + c];
        }
    }
    return rank;
}

/* pinv (..., n, m) of A as float64 (a tensor of the open scope), singular
 * values at most rtol times the largest dropped; in rank and sv (when
 * given) each matrix's rank and min(m, n) singular values (not for herm).
 * rank_only: the ranks alone (the result's values unspecified); single: as
 * ct__pinv's. */
static ct_tensor *ct__pinv_f64(const ct_tensor *A, bool herm, double rtol, bool single, bool rank_only,
                               int64_t *rank_out, double *sv)
{
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1], batch, pshape[2] = {n, m}, k = CT__MIN(m, n);
    const double *a = ct__la_in(A, &batch);
    double *pd, *w = a ? ct__la_scratch(4 * (m + n) * (m + n) + 1) : NULL;
    ct_tensor *out = w ? ct__la_out(A, A->ndim - 2, pshape, 2, &pd) : NULL;
    for (int64_t b = 0; out && b < batch; b++) {
        int64_t r = ct__pinv(a + b * m * n, m, n, herm, rtol, single, rank_only ? NULL : pd + b * m * n,
                             sv ? sv + b * k : NULL, w);
        if (r < 0) {
            char note[48];
            ct__fail(CT_ERR_RUNTIME,
                     "linalg.%s: %sThe algorithm failed to converge because the input matrix contained non-finite "
                     "values.",
                     herm ? "eigh" : "svd", ct__la_batch_note(A, b, note, sizeof note));
            out = NULL;
        } else if (rank_out) {
            rank_out[b] = r;
        }
    }
    CT_FREE(w);
    return out;
}

ct_tensor *ct_linalg_pinv(const ct_tensor *A, bool hermitian)
{
    CT__ARG(A, "A", 1);
    if (ct__recordable(&A, 1) != CT_OK) return NULL;
    if (A->ndim < 2 || !ct__la_float(A->dtype)) {
        char shape[160];
        ct__fail(CT_ERR_RUNTIME,
                 "linalg.pinv(%s{%s}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble "
                 "types",
                 ct__dtype_title(A->dtype), ct__shape_str(A->sizes, A->ndim, shape, sizeof shape));
        return NULL;
    }
    if (hermitian && A->sizes[A->ndim - 1] != A->sizes[A->ndim - 2]) {
        ct__fail(CT_ERR_RUNTIME, "linalg.eigh: A must be batches of square matrices, but they are %lld by %lld matrices",
                 (long long)A->sizes[A->ndim - 2], (long long)A->sizes[A->ndim - 1]);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    double rtol = ct__la_rtol(A->dtype, A->sizes[A->ndim - 2], A->sizes[A->ndim - 1]);
    ct_tensor *p = ct__pinv_f64(A, hermitian, rtol, A->dtype == CT_F32, false, NULL, NULL);
    ct_tensor *r = p ? ct__la_result(p, A) : NULL;
    ct_scope_end(s);
    return ct__la_record_pinv(r, A) ? r : NULL;
}

ct_tensor *ct_linalg_matrix_rank(const ct_tensor *A, bool hermitian)
{
    CT__ARG(A, "A", 1);
    if (A->ndim < 2) {
        ct__fail(CT_ERR_RUNTIME, "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.");
        return NULL;
    }
    if (!ct__la_float(A->dtype)) {
        ct__fail(CT_ERR_RUNTIME, "This function doesn't handle types other than float and double");
        return NULL;
    }
    if (ct__recordable(&A, 1) != CT_OK) return NULL; /* no gradient, but PyTorch's svdvals reads A's history */
    ct_scope s = ct_scope_begin();
    ct_tensor *rank = ct__alloc(A->sizes, A->ndim - 2, CT_I64, ct__cpu), *r = NULL;
    double rtol = ct__la_rtol(A->dtype, A->sizes[A->ndim - 2], A->sizes[A->ndim - 1]);
    bool values_only = !(ct__grad_mode() && ct__requires_grad(A)); /* as PyTorch's svdvals and eigvalsh decide */
    if (rank && ct__pinv_f64(A, hermitian, rtol, A->dtype == CT_F32, values_only, (int64_t *)ct__data(rank), NULL))
        r = ct__la_back(rank, A, CT_I64);
    ct_scope_end(s);
    return r;
}

/* torch.linalg.lstsq's drivers, in PyTorch's order, and their index in it. */
enum { CT__GELS, CT__GELSY, CT__GELSD, CT__GELSS, CT__N_DRIVERS };
static const char *const ct__lstsq_drivers[CT__N_DRIVERS] = {"gels", "gelsy", "gelsd", "gelss"};

/* The driver named (in any case, as PyTorch lowercases it; NULL: gelsy,
 * the CPU default), or -1 with PyTorch's error. */
static int ct__lstsq_driver(const char *name)
{
    if (!name) return CT__GELSY;
    for (int d = 0; d < CT__N_DRIVERS; d++) {
        const char *a = name, *b = ct__lstsq_drivers[d];
        while (*a && (*a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a) == *b) a++, b++;
        if (!*a && !*b) return d;
    }
    ct__fail(CT_ERR_RUNTIME, "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
    return -1;
}

/* LAPACK's unit roundoff in dtype dt (its lamch('Epsilon')): half of eps(dt). */
static double ct__lapack_eps(ct_dtype dt) { return (dt == CT_F32 ? (double)FLT_EPSILON : DBL_EPSILON) / 2; }

/* rcond as the driver's LAPACK routine takes it (None is PyTorch's
 * eps(dtype) * max(m, n)): gelsd replaces one outside (0, 1) by its unit
 * roundoff, gelss a negative one; gelsy uses it as it is (negative: full
 * rank; NaN: rank 1). gels does not look at it (it assumes full rank). */
static double ct__lstsq_rtol(const ct_lstsq_opts *o, int driver, ct_dtype dt, int64_t m, int64_t n)
{
    double rcond = o->has_rcond && driver != CT__GELS ? o->rcond : ct__la_rtol(dt, m, n);
    if (driver == CT__GELSD && (rcond <= 0 || rcond >= 1)) return ct__lapack_eps(dt);
    if (driver == CT__GELSS && rcond < 0) return ct__lapack_eps(dt);
    return rcond;
}

/* PyTorch's checks, in its order; *vector: B is a vector (A.dim() - 1 dims). */
static ct_result ct__lstsq_check(const ct_tensor *A, const ct_tensor *B, const ct_lstsq_opts *o, int *driver,
                                 bool *vector)
{
    if (A->ndim < 2) return ct__fail(CT_ERR_RUNTIME, "torch.linalg.lstsq: input must have at least 2 dimensions.");
    if (B->ndim < 1) return ct__fail(CT_ERR_RUNTIME, "torch.linalg.lstsq: other must have at least 1 dimension.");
    if (A->dtype != B->dtype)
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype %s "
                        "and other's dtype %s",
                        ct__dtype_title(A->dtype), ct__dtype_title(B->dtype));
    if (B->ndim > A->ndim || A->ndim - B->ndim > 1)
        return ct__fail(CT_ERR_RUNTIME, "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                                        "(input.dim() - other.dim()) <= 1");
    *vector = B->ndim == A->ndim - 1;
    if (A->sizes[A->ndim - 2] != B->sizes[B->ndim - (*vector ? 1 : 2)])
        return ct__fail(CT_ERR_RUNTIME, "torch.linalg.lstsq: input.size(-2) should match other.size(%d)", *vector ? -1 : -2);
    if ((*driver = ct__lstsq_driver(o->driver)) < 0) return ct_last_error_code();
    if (!ct__la_float(A->dtype))
        return ct__fail(CT_ERR_RUNTIME, "This function doesn't handle types other than float and double");
    return CT_OK;
}

/* The squared residuals (batch..., k) of X (batch..., n, k) for A, B (float64,
 * of the open scope): the sums over rows of (A X - B)^2, as gelsd and gelss
 * leave them in B's rows n to m. */
static ct_tensor *ct__lstsq_residuals(const ct_tensor *A, const ct_tensor *B, const ct_tensor *X)
{
    ct_tensor *r;
    ct_tensor *d;
    CT__UNRECORDED(d, ct_sub(ct_matmul(A, X), B));
    CT__UNRECORDED(r, ct_sum_dim(ct_mul(d, d), CT_DIMS(-2), false, CT_DEFAULT));
    return r;
}

/* Whether PyTorch computes residuals: for m > n, not with gelsy, and with
 * gelsd and gelss only when every matrix of the batch has rank n. */
static bool ct__lstsq_has_residuals(int driver, int64_t m, int64_t n, const int64_t *rank, int64_t batch)
{
    if (m <= n || driver == CT__GELSY) return false;
    for (int64_t b = 0; driver != CT__GELS && b < batch; b++)
        if (rank[b] != n) return false;
    return true;
}

/* An empty (0,) tensor of dtype dt: a result PyTorch's driver does not give. */
static ct_tensor *ct__lstsq_none(ct_dtype dt)
{
    int64_t none = 0;
    return ct__alloc(&none, 1, dt, ct__cpu); /* on the host with the other results, until ct__la_result */
}

/* gelsd and gelss: X (batch..., n, k) = pinv(A) B by ctorch's SVD for Ae
 * (batch..., m, n), Be (batch..., m, k) of one batch shape (nb dims), as
 * float64 tensors of the open scope; the ranks to rank, the singular values
 * (batch..., min(m, n)) to *sv. */
static ct_tensor *ct__lstsq_svd(const ct_tensor *Ae, const ct_tensor *Be, int nb, double rtol, int64_t *rank,
                                ct_tensor **sv)
{
    int64_t m = Ae->sizes[nb], n = Ae->sizes[nb + 1], k = Be->sizes[nb + 1], mn = CT__MIN(m, n);
    int64_t batch, xshape[2] = {n, k};
    double *svd, *xd;
    *sv = ct__la_out(Ae, nb, &mn, 1, &svd);
    ct_tensor *p = *sv ? ct__pinv_f64(Ae, false, rtol, false, false, rank, svd) : NULL; /* ctorch's SVD in double */
    const double *bd = p ? ct__la_in(Be, &batch) : NULL;
    ct_tensor *x = bd ? ct__la_out(Be, nb, xshape, 2, &xd) : NULL;
    if (!x) return NULL;
    static const double none = 0; /* an empty pinv has no data: a pointer that is never read */
    const double *pd = ct__data(p) ? (const double *)ct__data(p) : &none;
    for (int64_t b = 0; b < batch; b++) ct__la_mm(pd + b * n * m, bd + b * m * k, xd + b * n * k, n, m, k);
    return x;
}

/* gels and gelsy by LAPACK's algorithms (lapack.c's ct__gels, ct__gelsy)
 * on each matrix of Ae, Be (as ct__lstsq_svd's): X as float64 (a tensor of
 * the open scope); gelsy's ranks to rank; for gels with m > n the squared
 * residuals (batch..., k) to *res, summed from Q^T B's rows n.. as PyTorch
 * does. NULL with PyTorch's message where gels meets a zero on R's
 * diagonal. eps: the unit roundoff of the input's dtype. */
static ct_tensor *ct__lstsq_qr(const ct_tensor *Ae, const ct_tensor *Be, int nb, int driver, double rcond, double eps,
                               int64_t *rank, ct_tensor **res)
{
    int64_t m = Ae->sizes[nb], n = Ae->sizes[nb + 1], k = Be->sizes[nb + 1], mn = CT__MIN(m, n);
    int64_t rows = CT__MAX(m, n), batch, xshape[2] = {n, k};
    const double *ad = ct__la_in(Ae, &batch), *bd = ad ? ct__la_in(Be, &batch) : NULL;
    double *xd, *rd = NULL;
    ct_tensor *x = bd ? ct__la_out(Be, nb, xshape, 2, &xd) : NULL;
    if (x && driver == CT__GELS && m > n && !(*res = ct__la_out(Be, nb, &k, 1, &rd))) x = NULL;
    double *w = x ? ct__la_scratch(2 * m * n + rows * k + 4 * mn + 3 * n) : NULL;
    int64_t *jpvt = w ? (int64_t *)CT_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(int64_t)) : NULL;
    if (w && !jpvt) CT__OOM();
    for (int64_t b = 0; jpvt && b < batch; b++) {
        double *a = w, *bb = a + m * n, *scratch = bb + rows * k; /* a (m, n), bb (rows, k) */
        memcpy(a, ad + b * m * n, (size_t)(m * n) * sizeof *a);
        memcpy(bb, bd + b * m * k, (size_t)(m * k) * sizeof *bb);
        for (int64_t i = m * k; i < rows * k; i++) bb[i] = 0;
        int64_t info = 0;
        if (driver == CT__GELSY) rank[b] = ct__gelsy(a, m, n, bb, k, rcond, eps, scratch, jpvt);
        else info = ct__gels(a, m, n, bb, k, Ae->dtype == CT_F32, scratch);
        if (info) {
            char note[48] = ""; /* PyTorch names the matrix when the batch holds more than one */
            if (batch > 1) snprintf(note, sizeof note, "(Batch element %lld): ", (long long)b);
            ct__fail(CT_ERR_RUNTIME,
                     "torch.linalg.lstsq: %sThe least squares solution could not be computed because the input matrix "
                     "does not have full rank (error code: %lld).",
                     note, (long long)info);
            x = NULL;
            break;
        }
        memcpy(xd + b * n * k, bb, (size_t)(n * k) * sizeof *bb);
        for (int64_t c = 0; rd && c < k; c++) {
            double s = 0;
            for (int64_t i = n; i < m; i++) s += bb[i * k + c] * bb[i * k + c];
            rd[b * k + c] = s;
        }
    }
    CT_FREE(w);
    CT_FREE(jpvt);
    return jpvt ? x : NULL;
}

/* solution, residuals, rank, singular values (float64, int64, float64),
 * tensors of the open scope, or a failure. rcond as the driver takes it. */
static ct_result ct__lstsq(const ct_tensor *A, const ct_tensor *Bm, int driver, double rcond, ct_tensor **out)
{
    ct_tensor *Ae, *Be;
    int64_t batch_shape[CT_MAX_DIMS];
    int nb;
    /* PyTorch names A's batch "tensor a" (ct__la_broadcast_pair, solve's, B's) */
    if (ct__broadcast_shapes(A->sizes, A->ndim - 2, Bm->sizes, Bm->ndim - 2, batch_shape, &nb) != CT_OK ||
        ct__la_broadcast_pair(A, Bm, &Ae, &Be) != CT_OK)
        return ct_last_error_code();
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1], batch = 1;
    for (int i = 0; i < nb; i++) batch *= batch_shape[i];
    ct_tensor *rank = ct__alloc(Ae->sizes, nb, CT_I64, ct__cpu), *res = NULL, *sv = NULL, *x = NULL;
    int64_t *ranks = rank ? (int64_t *)ct__data(rank) : NULL;
    if (rank && (driver == CT__GELS || driver == CT__GELSY))
        x = ct__lstsq_qr(Ae, Be, nb, driver, rcond, ct__lapack_eps(A->dtype), ranks, &res);
    else if (rank)
        x = ct__lstsq_svd(Ae, Be, nb, rcond, ranks, &sv);
    if (!x) return ct_last_error_code();
    if (!ct__lstsq_has_residuals(driver, m, n, ranks, batch)) {
        res = ct__lstsq_none(CT_F64);
    } else if (driver != CT__GELS) {
        const ct_tensor *Ad, *Bd; /* on the host, with x */
        CT__UNRECORDED(Ad, ct__host(ct_to(Ae, CT_F64)));
        CT__UNRECORDED(Bd, ct__host(ct_to(Be, CT_F64)));
        res = ct__lstsq_residuals(Ad, Bd, x);
    }
    out[0] = x;
    out[1] = res;
    out[2] = driver == CT__GELS ? ct__lstsq_none(CT_I64) : rank;
    out[3] = sv ? sv : ct__lstsq_none(CT_F64);
    return out[1] && out[2] && out[3] ? CT_OK : ct_last_error_code();
}

ct_result ct_linalg_lstsq_all(const ct_tensor *A, const ct_tensor *B, ct_lstsq_opts opts, ct_tensor **solution,
                              ct_tensor **residuals, ct_tensor **rank, ct_tensor **singular_values)
{
    CT__AUTOCAST_OUTS(CT__CAST_FP32, ct_linalg_lstsq_all(A, B, opts, solution, residuals, rank, singular_values),
                      (solution, residuals, rank, singular_values), &A, &B);
    ct_tensor **slots[4] = {solution, residuals, rank, singular_values};
    for (int i = 0; i < 4; i++)
        if (slots[i]) *slots[i] = NULL;
    if (!A || !B) return ct__null_arg("linalg_lstsq", A ? "B" : "A", A ? 2 : 1); /* ct_linalg_lstsq's names */
    const ct_tensor *AB[2] = {A, B};
    if (ct__same_device(A, B, NULL) != CT_OK || ct__recordable(AB, 2) != CT_OK) return ct_last_error_code();
    int driver = CT__GELSY;
    bool vector = false;
    if (ct__lstsq_check(A, B, &opts, &driver, &vector) != CT_OK) return ct_last_error_code();
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1];
    ct_scope s = ct_scope_begin();
    ct_tensor *Bm, *out[4] = {NULL, NULL, NULL, NULL};
    CT__UNRECORDED(Bm, vector ? ct_unsqueeze(B, -1) : ct__same(B));
    ct_result r = Bm ? ct__lstsq(A, Bm, driver, ct__lstsq_rtol(&opts, driver, A->dtype, m, n), out) : ct_last_error_code();
    if (r == CT_OK && vector) CT__UNRECORDED(out[0], ct_squeeze_dim(out[0], -1));
    ct_tensor *res[4] = {NULL, NULL, NULL, NULL}; /* handed out of the scope */
    for (int i = 0; r == CT_OK && i < 4; i++)
        if (!(res[i] = i == 2 ? ct__la_back(out[i], A, CT_I64) : ct__la_result(out[i], A))) r = ct_last_error_code();
    ct_scope_end(s);
    if (r == CT_OK && !ct__la_record_lstsq(res[0], A, B, vector)) {
        res[0] = NULL; /* (discarded by the failed record) */
        r = ct_last_error_code();
    }
    for (int i = 0; i < 4; i++) {
        if (r == CT_OK) ct__la_hand(slots[i], res[i]);
        else if (res[i]) ct__discard(res[i]);
    }
    return r;
}

ct_tensor *ct_linalg_lstsq(const ct_tensor *A, const ct_tensor *B)
{
    ct_tensor *X = NULL;
    ct_lstsq_opts defaults;
    memset(&defaults, 0, sizeof defaults); /* C++ has no compound literals */
    return ct_linalg_lstsq_all(A, B, defaults, &X, NULL, NULL, NULL) == CT_OK ? X : NULL;
}

/* ---------------------------------------------------------------- norms and trace */

ct_tensor *ct_linalg_vector_norm(const ct_tensor *x, double ord, ct_shape dims, bool keepdim)
{
    CT__ARG(x, "x", 1);
    if (!ct_dtype_is_floating(x->dtype)) {
        ct__fail(CT_ERR_RUNTIME, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s",
                 ct__dtype_title(x->dtype));
        return NULL;
    }
    ct_tensor *r = ct_norm_dim(x, ord, dims, keepdim, CT_DEFAULT);
    if (r && ct__meta(r) && ct__meta(r)->grad_fn) ct__meta(r)->grad_fn->name = "LinalgVectorNormBackward0";
    return r;
}

/* ord of matrix_norm: "fro", "nuc", or a number; false when none of PyTorch's. */
static bool ct__matrix_ord(const char *ord, double *p, bool *nuc)
{
    static const struct { const char *s; double p; } table[] = {
        {"fro", 0}, {"nuc", 0}, {"1", 1}, {"-1", -1}, {"2", 2}, {"-2", -2}, {"inf", INFINITY}, {"-inf", -INFINITY}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(ord, table[i].s)) {
            *p = table[i].p;
            *nuc = i == 1;
            return true;
        }
    return false;
}

/* r with the dims d0 < d1 that a reduction removed put back as size 1. */
static ct_tensor *ct__unsqueeze2(ct_tensor *r, int d0, int d1)
{
    return ct_unsqueeze(ct_unsqueeze(r, CT__MIN(d0, d1)), CT__MAX(d0, d1));
}

ct_tensor *ct_linalg_matrix_norm(const ct_tensor *A, const char *ord, ct_shape dims, bool keepdim)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_linalg_matrix_norm(A, ord, dims, keepdim), &A);
    CT__ARG(A, "A", 1);
    double p = 0;
    bool nuc = false;
    if (!ord) ord = "fro";
    if (ct__la_check_ndim(A, "linalg.matrix_norm") != CT_OK) return NULL;
    if (!ct_dtype_is_floating(A->dtype)) {
        ct__fail(CT_ERR_RUNTIME, "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got %s",
                 ct__dtype_title(A->dtype));
        return NULL;
    }
    if (dims.ndim == 0) dims = CT_DIMS(-2, -1);
    if (dims.ndim != 2) {
        ct__fail(CT_ERR_RUNTIME, "linalg.matrix_norm: dim must be a 2-tuple. Got %d dims", dims.ndim);
        return NULL;
    }
    int d0 = ct__wrap_dim(dims.size[0], A->ndim), d1 = d0 < 0 ? -1 : ct__wrap_dim(dims.size[1], A->ndim);
    if (d1 < 0) return NULL;
    if (d0 == d1) {
        ct__fail(CT_ERR_RUNTIME, "linalg.matrix_norm: dims must be different. Got (%lld, %lld)",
                 (long long)dims.size[0], (long long)dims.size[1]);
        return NULL;
    }
    if (!ct__matrix_ord(ord, &p, &nuc)) {
        ct__fail(CT_ERR_RUNTIME, "linalg.matrix_norm: Order %s not supported.", ord);
        return NULL;
    }
    if (p == 0 && !nuc) return ct_linalg_vector_norm(A, 2, CT_DIMS(d0, d1), keepdim);
    ct_scope s = ct_scope_begin();
    ct_tensor *r;
    if (nuc || fabs(p) == 2) { /* from the singular values */
        ct_tensor *sv = ct_linalg_svdvals(ct_movedim(A, CT_DIMS(d0, d1), CT_DIMS(-2, -1)));
        r = nuc ? ct_sum_dim(sv, CT_DIMS(-1), false, CT_DEFAULT)
                : p > 0 ? ct_amax(sv, CT_DIMS(-1), false) : ct_amin(sv, CT_DIMS(-1), false);
        if (keepdim) r = ct__unsqueeze2(r, d0, d1);
    } else { /* max/min absolute column sum (1) or row sum (inf), in PyTorch's steps */
        int sum_dim = isinf(p) ? d1 : d0, max_dim = isinf(p) ? d0 : d1;
        if (!keepdim && sum_dim < max_dim) max_dim--;
        ct_tensor *sums = ct_linalg_vector_norm(A, 1, CT_DIMS(sum_dim), keepdim);
        r = p > 0 ? ct_amax(sums, CT_DIMS(max_dim), keepdim) : ct_amin(sums, CT_DIMS(max_dim), keepdim);
    }
    r = r ? ct_keep(r) : NULL;
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_trace(const ct_tensor *A)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_trace(A), &A);
    CT__ARG(A, "input", 1);
    if (ct__recordable(&A, 1) != CT_OK) return NULL;
    if (A->ndim != 2) {
        ct__fail(CT_ERR_RUNTIME, "trace: expected a matrix, but got tensor with dim %d", A->ndim);
        return NULL;
    }
    if (A->dtype == CT_BOOL || A->dtype == CT_F16 || A->dtype == CT_BF16) {
        ct__not_implemented("trace", A->dtype);
        return NULL;
    }
    ct_tensor *r;
    CT__UNRECORDED(r, ct_sum(ct_diagonal(A, 0, 0, 1)));
    return ct__la_record_trace(r, A) ? r : NULL;
}

/* ---------------------------------------------------------------- matrix functions */

ct_tensor *ct_linalg_matrix_power(const ct_tensor *A, int64_t n)
{
    CT__ARG(A, "A", 1);
    if (ct__la_check_ndim(A, "linalg.matrix_power") != CT_OK || ct__la_check_square(A, "linalg.matrix_power") != CT_OK)
        return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *r;
    if (n == 0) { /* the identity, in a copy of A (CopyBackwards, as PyTorch's) */
        int64_t k = A->sizes[A->ndim - 1];
        r = ct_clone(A);
        if (r && ct_copy_(r, ct_eye(k, k, A->dtype)) != CT_OK) r = NULL;
    } else if (n == 1) {
        r = ct_clone(A);
    } else {
        const ct_tensor *a = n < 0 ? ct_linalg_inv(A) : A;
        uint64_t e = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
        ct_tensor *z = NULL;
        r = NULL;
        if (e == 2) r = ct_matmul(a, a);
        else if (e == 3) r = ct_matmul(ct_matmul(a, a), a);
        else
            for (; e > 0 && a; e >>= 1) { /* repeated squaring, in PyTorch's order */
                z = z ? ct_matmul(z, z) : (ct_tensor *)a;
                if (e & 1) r = r ? ct_matmul(r, z) : z;
            }
    }
    r = r ? ct_keep(r) : NULL;
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_linalg_matrix_exp(const ct_tensor *A)
{
    CT__ARG(A, "A", 1);
    if (ct__recordable(&A, 1) != CT_OK) return NULL;
    if (ct__la_check_ndim(A, "linalg.matrix_exp") != CT_OK || ct__la_check_square(A, "linalg.matrix_exp") != CT_OK)
        return NULL;
    int64_t n = A->sizes[A->ndim - 1], batch;
    if (!ct_dtype_is_floating(A->dtype)) {
        ct__fail(CT_ERR_RUNTIME, "matrix_exp: Expected a floating point or complex tensor as input. Got %s",
                 ct__dtype_title(A->dtype));
        return NULL;
    }
    if (!ct__la_float(A->dtype)) {
        ct__not_implemented("log2_vml_cpu", A->dtype);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    const double *a = ct__la_in(A, &batch);
    double *o, *w = a ? ct__la_scratch(8 * n * n) : NULL;
    int64_t *piv = w ? (int64_t *)CT_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(int64_t)) : NULL;
    if (w && !piv) CT__OOM();
    ct_tensor *out = piv ? ct__la_out(A, A->ndim, NULL, 0, &o) : NULL;
    for (int64_t b = 0; out && b < batch; b++) ct__expm(a + b * n * n, n, o + b * n * n, w, piv);
    CT_FREE(w);
    CT_FREE(piv);
    ct_tensor *r = out ? ct__la_result(out, A) : NULL;
    ct_scope_end(s);
    return ct__la_record_matrix_exp(r, A) ? r : NULL;
}
