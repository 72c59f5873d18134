/* Matrix products: mm, bmm, mv, dot, vdot, outer, matmul, addmm, addmv,
 * baddbmm. Each front end checks its arguments in PyTorch's order with
 * PyTorch's words, then one batched driver runs the GEMM (gemm.c) over every
 * matrix of the batch, and the op records its node (formulas_products.c). */

ct_addmm_opts ct_addmm_opts_init(void)
{
    ct_addmm_opts o;
    o.beta = o.alpha = 1.0;
    return o;
}

/* ---------------------------------------------------------------- the driver
 */

/* The dtype the GEMM computes in: float and double themselves, bfloat16
 * through float (PyTorch accumulates it in float too), integers in int64. */
static ct_dtype ct__gemm_dtype(ct_dtype dt)
{
    return dt == CT_F64 ? CT_F64 : dt == CT_F32 || dt == CT_BF16 ? CT_F32 : CT_I64;
}

/* One operand of the GEMM as BLAS takes it: matrix b of the batch starts at
 * data + b * bs (elements), row-major with leading dimension ld, or its
 * transpose stored that way. */
typedef struct ct__operand {
    const char *data;
    int64_t bs, ld;
    bool trans;
} ct__operand;

/* Whether t's matrices (t: [batch, rows, cols]) have a layout BLAS reads:
 * unit stride along one dim and a leading dimension no smaller than the other.
 */
static bool ct__blas_layout(const ct_tensor *t, ct__operand *op)
{
    int64_t rows = t->sizes[1], cols = t->sizes[2], rs = t->strides[1], cs = t->strides[2];
    op->bs = t->strides[0];
    op->data = ct__data(t);
    if (rows == 0 || cols == 0) { /* nothing is read: any strides do (an expanded empty gradient has zeros) */
        op->trans = false;
        op->ld = CT__MAX(cols, 1);
        return true;
    }
    if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= CT__MAX(cols, 1))) {
        op->trans = false;
        op->ld = rows <= 1 ? CT__MAX(cols, 1) : rs;
        return true;
    }
    if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= CT__MAX(rows, 1))) {
        op->trans = true;
        op->ld = cols <= 1 ? CT__MAX(rows, 1) : cs;
        return true;
    }
    return false;
}

/* t as an operand of dtype w, copied (contiguous, cast) when it must be;
 * false when the copy fails. */
static bool ct__operand_of(const ct_tensor *t, ct_dtype w, ct__operand *op)
{
    if (t->dtype == w && ct__blas_layout(t, op)) return true;
    const ct_tensor *c = ct_contiguous(ct_to(t, w));
    return c && ct__blas_layout(c, op);
}

/* beta * added + alpha * (a @ b) in dtype dt, with recording off: a [B, M, K]
 * and b [B, K, N] views of any strides, added broadcastable to the result or
 * NULL. The result is contiguous with sizes out (B * M * N elements). An
 * integer product truncates beta and alpha first, as PyTorch converts them. */
static ct_tensor *ct__product(const ct_tensor *added, const ct_tensor *a, const ct_tensor *b, const int64_t *out,
                              int out_ndim, ct_dtype dt, ct_addmm_opts opts)
{
    const ct_tensor *all[3] = {a, b, added};
    ct_device dev;
    if (ct__common_device(all, 3, false, &dev) != CT_OK) return NULL;
    ct_dtype w = ct__gemm_dtype(dt);
    if (w == CT_I64) {
        opts.beta = (double)ct__trunc_i64(opts.beta);
        opts.alpha = (double)ct__trunc_i64(opts.alpha);
    }
    ct_grad_mode mode = ct_set_grad_enabled(false);
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct__alloc(out, out_ndim, w, dev), *e = NULL;
    bool ok = r != NULL;
    if (ok && added && opts.beta != 0) {
        ok = (e = ct_expand(added, ct_shape_make(out_ndim, out))) != NULL;
        if (ok) ct__copy_unchecked(r, e);
    }
    ct__operand A, B;
    ok = ok && ct__operand_of(a, w, &A) && ct__operand_of(b, w, &B);
    if (ok && ct_numel(r) > 0) {
        ct__gemm_job job = {w,       a->sizes[0], a->sizes[1], b->sizes[2], a->sizes[2], A.data,     B.data,
                            ct__data(r), A.bs,    A.ld,        B.bs,        B.ld,        A.trans,    B.trans,
                            opts.alpha,  added ? opts.beta : 0, r->storage->device.index};
        ct__backend_for(r->storage->device.type)->gemm(&job);
    }
    if (ok && w != dt) ok = (r = ct_to(r, dt)) != NULL;
    if (ok) ct_keep(r);
    ct_scope_end(s);
    ct_grad_mode_restore(mode);
    return ok ? r : NULL;
}

/* t as a batch of matrices, a view: 3-D itself, 2-D one matrix, 1-D a row
 * (1 x n) or a column (n x 1). */
static ct_tensor *ct__as_batch(const ct_tensor *t, bool column)
{
    int64_t sizes[3] = {1, 1, 1}, strides[3] = {0, 0, 0};
    int k = 3 - t->ndim;
    for (int d = 0; d < t->ndim; d++) {
        sizes[k + d] = t->sizes[d];
        strides[k + d] = t->strides[d];
    }
    if (t->ndim == 1 && column) {
        sizes[1] = t->sizes[0];
        strides[1] = t->strides[0];
        sizes[2] = 1;
        strides[2] = 1;
    }
    return ct__view_of(t, sizes, strides, 3, t->offset);
}

/* The product of a and b (any of 1-D row, 2-D, 3-D for a; 1-D column, 2-D,
 * 3-D for b) plus beta * added, shaped out. */
static ct_tensor *ct__product_of(const ct_tensor *added, const ct_tensor *a, const ct_tensor *b, const int64_t *out,
                                 int out_ndim, ct_dtype dt, ct_addmm_opts opts)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *a3 = ct__as_batch(a, false), *b3 = ct__as_batch(b, true);
    ct_tensor *r = a3 && b3 ? ct__product(added, a3, b3, out, out_ndim, dt, opts) : NULL;
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- checks */

/* Whether t expands to sizes (the added input of addmm and baddbmm; expand's
 * error). */
static ct_result ct__check_expand(const ct_tensor *t, const int64_t *sizes, int ndim)
{
    ct_grad_mode mode = ct_set_grad_enabled(false);
    ct_scope s = ct_scope_begin();
    ct_tensor *e = ct_expand(t, ct_shape_make(ndim, sizes));
    ct_scope_end(s);
    ct_grad_mode_restore(mode);
    return e ? CT_OK : ct_last_error_code();
}

/* PyTorch's CPU products refuse float16 and bool: "\"bmm\" not implemented for
 * 'Half'". */
static ct_result ct__check_product_dtype(const char *kernel, ct_dtype dt)
{
    return dt == CT_F16 || dt == CT_BOOL ? ct__not_implemented(kernel, dt) : CT_OK;
}

/* A kernel reads its operands as its own dtype: "expected scalar type Float but
 * found Double". */
static ct_result ct__check_scalar_type(ct_dtype expected, ct_dtype found)
{
    if (expected == found) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME, "expected scalar type %s but found %s", ct__dtype_title(expected),
                    ct__dtype_title(found));
}

/* Then the kernel's dtype checks: dt supported, and the other operand of dt
 * too. */
static ct_result ct__check_kernel(const char *kernel, ct_dtype dt, const ct_tensor *other)
{
    ct_result r = ct__check_product_dtype(kernel, dt);
    return r != CT_OK ? r : ct__check_scalar_type(dt, other->dtype);
}

static ct_result ct__check_mm_shapes(const ct_tensor *a, const ct_tensor *b)
{
    if (a->sizes[1] == b->sizes[0]) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                    (long long)a->sizes[0], (long long)a->sizes[1], (long long)b->sizes[0], (long long)b->sizes[1]);
}

static ct_result ct__check_bmm_shapes(const ct_tensor *a, const ct_tensor *b)
{
    if (a->ndim != 3) return ct__fail(CT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    if (b->ndim != 3) return ct__fail(CT_ERR_RUNTIME, "batch2 must be a 3D tensor");
    if (b->sizes[0] == a->sizes[0] && b->sizes[1] == a->sizes[2]) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME,
                    "Expected size for first two dimensions of batch2 tensor to "
                    "be: [%lld, %lld] but got: [%lld, %lld].",
                    (long long)a->sizes[0], (long long)a->sizes[2], (long long)b->sizes[0], (long long)b->sizes[1]);
}

/* addmv's check of self (ndim, sizes), mat and vec; mv checks its result, a
 * vector of mat's rows, the same way. */
static ct_result ct__check_mv_shapes(int ndim, const int64_t *sizes, const ct_tensor *mat, const ct_tensor *vec)
{
    if (mat->ndim != 2 || vec->ndim != 1 || ndim > 1)
        return ct__fail(CT_ERR_RUNTIME, "vector + matrix @ vector expected, got %d, %d, %d", ndim, mat->ndim,
                        vec->ndim);
    int64_t n = ndim ? sizes[0] : 1;
    if (mat->sizes[1] == vec->sizes[0] && (mat->sizes[0] == n || n == 1)) return CT_OK;
    if (ndim == 0) return ct__fail(CT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    return ct__fail(CT_ERR_RUNTIME, "size mismatch, got %lld, %lldx%lld,%lld", (long long)sizes[0],
                    (long long)mat->sizes[0], (long long)mat->sizes[1], (long long)vec->sizes[0]);
}

/* ---------------------------------------------------------------- mm, bmm, mv,
 * dot */

ct_tensor *ct_mm(const ct_tensor *input, const ct_tensor *mat2)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_mm(input, mat2), &input, &mat2);
    CT__ARG(input, "input", 1);
    CT__ARG(mat2, "mat2", 2);
    if (input->ndim != 2) {
        ct__fail(CT_ERR_RUNTIME, "self must be a matrix");
        return NULL;
    }
    if (mat2->ndim != 2) {
        ct__fail(CT_ERR_RUNTIME, "mat2 must be a matrix");
        return NULL;
    }
    if (ct__check_mm_shapes(input, mat2) || ct__check_kernel("addmm_impl_cpu_", input->dtype, mat2)) return NULL;
    const int64_t out[2] = {input->sizes[0], mat2->sizes[1]};
    ct_tensor *r = ct__product_of(NULL, input, mat2, out, 2, input->dtype, ct_addmm_opts_init());
    if (!ct__record_product(CT__PG_MM, r, NULL, input, mat2, ct_addmm_opts_init())) return ct__unrecordable(r);
    return r;
}

ct_tensor *ct_bmm(const ct_tensor *input, const ct_tensor *mat2)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_bmm(input, mat2), &input, &mat2);
    CT__ARG(input, "input", 1);
    CT__ARG(mat2, "mat2", 2);
    if (ct__check_bmm_shapes(input, mat2) || ct__check_kernel("bmm", input->dtype, mat2)) return NULL;
    const int64_t out[3] = {input->sizes[0], input->sizes[1], mat2->sizes[2]};
    ct_tensor *r = ct__product_of(NULL, input, mat2, out, 3, input->dtype, ct_addmm_opts_init());
    if (!ct__record_product(CT__PG_BMM, r, NULL, input, mat2, ct_addmm_opts_init())) return ct__unrecordable(r);
    return r;
}

ct_tensor *ct_mv(const ct_tensor *input, const ct_tensor *vec)
{
    CT__ARG(input, "input", 1);
    CT__ARG(vec, "vec", 2);
    const int64_t out[1] = {input->ndim == 2 ? input->sizes[0] : 1};
    if (ct__check_mv_shapes(1, out, input, vec) || ct__check_kernel("addmv_impl_cpu", input->dtype, vec)) return NULL;
    ct_tensor *r = ct__product_of(NULL, input, vec, out, 1, input->dtype, ct_addmm_opts_init());
    if (!ct__record_product(CT__PG_MV, r, NULL, input, vec, ct_addmm_opts_init())) return ct__unrecordable(r);
    return r;
}

static ct_tensor *ct__dot(const ct_tensor *a, const ct_tensor *b, ct__product_grad kind)
{
    if (a->ndim != 1 || b->ndim != 1) {
        ct__fail(CT_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors", a->ndim, b->ndim);
        return NULL;
    }
    if (a->dtype != b->dtype) {
        ct__fail(CT_ERR_RUNTIME, "dot : expected both vectors to have same dtype, but found %s and %s",
                 ct__dtype_title(a->dtype), ct__dtype_title(b->dtype));
        return NULL;
    }
    if (a->sizes[0] != b->sizes[0]) {
        ct__fail(CT_ERR_RUNTIME,
                 "inconsistent tensor size, expected tensor [%lld] and src [%lld] "
                 "to have the same number of "
                 "elements, but got %lld and %lld elements respectively",
                 (long long)a->sizes[0], (long long)b->sizes[0], (long long)a->sizes[0], (long long)b->sizes[0]);
        return NULL;
    }
    if (ct__check_product_dtype("dot", a->dtype)) return NULL;
    ct_tensor *r = ct__product_of(NULL, a, b, NULL, 0, a->dtype, ct_addmm_opts_init());
    if (!ct__record_product(kind, r, NULL, a, b, ct_addmm_opts_init())) return ct__unrecordable(r);
    return r;
}

ct_tensor *ct_dot(const ct_tensor *input, const ct_tensor *tensor)
{
    CT__ARG(input, "input", 1);
    CT__ARG(tensor, "tensor", 2);
    return ct__dot(input, tensor, CT__PG_DOT);
}

ct_tensor *ct_vdot(const ct_tensor *input, const ct_tensor *other)
{
    CT__ARG(input, "input", 1);
    CT__ARG(other, "other", 2);
    return ct__dot(input, other, CT__PG_VDOT);
}

/* PyTorch's outer is input.reshape({-1, 1}) * vec2, recorded as those ops. */
ct_tensor *ct_outer(const ct_tensor *input, const ct_tensor *vec2)
{
    CT__ARG(input, "input", 1);
    CT__ARG(vec2, "vec2", 2);
    if (input->ndim != 1) {
        ct__fail(CT_ERR_RUNTIME, "outer: Expected 1-D argument self, but got %d-D", input->ndim);
        return NULL;
    }
    if (vec2->ndim != 1) {
        ct__fail(CT_ERR_RUNTIME, "outer: Expected 1-D argument vec2, but got %d-D", vec2->ndim);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct_keep(ct_mul(ct_reshape(input, CT_SHAPE(-1, 1)), vec2));
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- addmm,
 * addmv, baddbmm */

ct_tensor *ct_addmm(const ct_tensor *input, const ct_tensor *mat1, const ct_tensor *mat2, ct_addmm_opts opts)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_addmm(input, mat1, mat2, opts), &input, &mat1, &mat2);
    CT__ARG(input, "input", 1);
    CT__ARG(mat1, "mat1", 2);
    CT__ARG(mat2, "mat2", 3);
    if (input->dtype != mat2->dtype) {
        ct__fail(CT_ERR_RUNTIME, "self and mat2 must have the same dtype");
        return NULL;
    }
    if (mat1->dtype != mat2->dtype) {
        ct__fail(CT_ERR_RUNTIME, "mat1 and mat2 must have the same dtype");
        return NULL;
    }
    if (mat1->ndim != 2) {
        ct__fail(CT_ERR_RUNTIME, "mat1 must be a matrix, got %d-D tensor", mat1->ndim);
        return NULL;
    }
    if (mat2->ndim != 2) {
        ct__fail(CT_ERR_RUNTIME, "mat2 must be a matrix, got %d-D tensor", mat2->ndim);
        return NULL;
    }
    const int64_t out[2] = {mat1->sizes[0], mat2->sizes[1]};
    if (ct__check_mm_shapes(mat1, mat2) || ct__check_expand(input, out, 2) ||
        ct__check_product_dtype("addmm_impl_cpu_", mat1->dtype))
        return NULL;
    ct_tensor *r = ct__product_of(input, mat1, mat2, out, 2, mat1->dtype, opts);
    if (!ct__record_product(CT__PG_ADDMM, r, input, mat1, mat2, opts)) return ct__unrecordable(r);
    return r;
}

ct_tensor *ct_addmv(const ct_tensor *input, const ct_tensor *mat, const ct_tensor *vec, ct_addmm_opts opts)
{
    CT__ARG(input, "input", 1);
    CT__ARG(mat, "mat", 2);
    CT__ARG(vec, "vec", 3);
    if (ct__check_mv_shapes(input->ndim, input->sizes, mat, vec) || ct__check_kernel("addmv_impl_cpu", mat->dtype, vec))
        return NULL;
    const int64_t out[1] = {mat->sizes[0]};
    ct_tensor *r = ct__product_of(input, mat, vec, out, 1, mat->dtype, opts);
    if (!ct__record_product(CT__PG_ADDMV, r, input, mat, vec, opts)) return ct__unrecordable(r);
    return r;
}

ct_tensor *ct_baddbmm(const ct_tensor *input, const ct_tensor *batch1, const ct_tensor *batch2, ct_addmm_opts opts)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_baddbmm(input, batch1, batch2, opts), &input, &batch1, &batch2);
    CT__ARG(input, "input", 1);
    CT__ARG(batch1, "batch1", 2);
    CT__ARG(batch2, "batch2", 3);
    /* PyTorch expands input to [batch1.size(0), batch1.size(1), batch2.size(2)]
     * before the other checks */
    int64_t out[3];
    int d0 = ct__wrap_dim_strict(0, batch1->ndim), d1 = d0 < 0 ? -1 : ct__wrap_dim_strict(1, batch1->ndim);
    int d2 = d1 < 0 ? -1 : ct__wrap_dim_strict(2, batch2->ndim);
    if (d2 < 0) return NULL;
    out[0] = batch1->sizes[0];
    out[1] = batch1->sizes[1];
    out[2] = batch2->sizes[2];
    if (ct__check_expand(input, out, 3) || ct__check_bmm_shapes(batch1, batch2) ||
        ct__check_kernel("baddbmm", batch1->dtype, batch2))
        return NULL;
    ct_tensor *r = ct__product_of(input, batch1, batch2, out, 3, batch1->dtype, opts);
    if (!ct__record_product(CT__PG_BADDBMM, r, input, batch1, batch2, opts)) return ct__unrecordable(r);
    return r;
}

/* ---------------------------------------------------------------- matmul */

/* A product's fresh (contiguous) result seen with other sizes, recorded as
 * `node`: at::_unsafe_view (UnsafeViewBackward0) or squeeze_
 * (SqueezeBackward3); like those, not a view. */
static ct_tensor *ct__product_reshaped(const ct_tensor *r, const int64_t *sizes, int ndim, const char *node)
{
    ct_tensor *v = r ? ct__view_named(r, ct_shape_make(ndim, sizes), node) : NULL;
    if (v) ct__unmark_view(v);
    return v;
}

/* Whether matmul folds t1's batch dims into its rows and calls mm or mv
 * (PyTorch 1.13's should_fold): t1 at least 3-D times a matrix or vector,
 * unless t1 is 3-D with its matrices transposed in one block, which bmm
 * reads without a copy. */
static bool ct__should_fold(const ct_tensor *t1, int dim2)
{
    if (t1->ndim < 3 || (dim2 != 1 && dim2 != 2)) return false;
    return !(t1->ndim == 3 && dim2 == 2 && t1->strides[2] != 1 && t1->strides[0] == t1->sizes[1] * t1->sizes[2]);
}

/* The folded product: the larger tensor (transposed when it is the second)
 * reshaped to a matrix, times the other with mm or mv. */
static ct_tensor *ct__matmul_folded(const ct_tensor *x, const ct_tensor *y)
{
    bool transpose = y->ndim > x->ndim;
    const ct_tensor *t1 = transpose ? ct_transpose(y, -2, -1) : x;
    const ct_tensor *t2 = !transpose ? y : x->ndim == 2 ? ct_t(x) : x;
    if (!t1 || !t2) return NULL;
    int64_t out[CT_MAX_DIMS], rows = 1;
    int n = t1->ndim - 1;
    for (int d = 0; d < n; d++) rows *= out[d] = t1->sizes[d];
    ct_tensor *folded = ct_reshape(t1, CT_SHAPE(rows, t1->sizes[n]));
    if (t2->ndim == 1) return ct__product_reshaped(ct_mv(folded, t2), out, n, "UnsafeViewBackward0");
    out[n] = t2->sizes[1];
    ct_tensor *r = ct__product_reshaped(ct_mm(folded, t2), out, n + 1, "UnsafeViewBackward0");
    return transpose ? ct_contiguous(ct_transpose(r, -2, -1)) : r;
}

/* The batched product: batch dims broadcast, both sides expanded and
 * reshaped to [batch, rows, cols], then bmm. */
static ct_tensor *ct__matmul_batched(const ct_tensor *x, const ct_tensor *y)
{
    int64_t batch[CT_MAX_DIMS], xs[CT_MAX_DIMS], ys[CT_MAX_DIMS], out[CT_MAX_DIMS], b = 1;
    int nb;
    int64_t n = x->sizes[x->ndim - 2], m1 = x->sizes[x->ndim - 1], m2 = y->sizes[y->ndim - 2],
            p = y->sizes[y->ndim - 1];
    if (ct__broadcast_shapes(x->sizes, x->ndim - 2, y->sizes, y->ndim - 2, batch, &nb) != CT_OK) return NULL;
    if (nb + 2 > CT_MAX_DIMS) {
        ct__fail(CT_ERR_RUNTIME, "matmul: too many dimensions");
        return NULL;
    }
    for (int d = 0; d < nb; d++) b *= xs[d] = ys[d] = out[d] = batch[d];
    xs[nb] = n, xs[nb + 1] = m1, ys[nb] = m2, ys[nb + 1] = p, out[nb] = n, out[nb + 1] = p;
    ct_tensor *x3 = ct_reshape(ct_expand(x, ct_shape_make(nb + 2, xs)), CT_SHAPE(b, n, m1));
    ct_tensor *y3 = ct_reshape(ct_expand(y, ct_shape_make(nb + 2, ys)), CT_SHAPE(b, m2, p));
    return ct__product_reshaped(ct_bmm(x3, y3), out, nb + 2, "UnsafeViewBackward0");
}

static ct_tensor *ct__matmul(const ct_tensor *x, const ct_tensor *y)
{
    int d1 = x->ndim, d2 = y->ndim;
    if (d1 == 0 || d2 == 0) {
        ct__fail(CT_ERR_RUNTIME,
                 "both arguments to matmul need to be at least 1D, but they are "
                 "%dD and %dD",
                 d1, d2);
        return NULL;
    }
    if (d1 == 1 && d2 == 1) return ct_dot(x, y);
    if (d1 == 2 && d2 == 1) return ct_mv(x, y);
    if (d1 == 2 && d2 == 2) return ct_mm(x, y);
    if (d1 == 1 && d2 == 2) {
        ct_tensor *r = ct_mm(ct_unsqueeze(x, 0), y);
        return r ? ct__product_reshaped(r, r->sizes + 1, 1, "SqueezeBackward3") : NULL;
    }
    if (ct__should_fold(x, d2) || ct__should_fold(y, d1)) return ct__matmul_folded(x, y);
    return ct__matmul_batched(x, y);
}

ct_tensor *ct_matmul(const ct_tensor *input, const ct_tensor *other)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_matmul(input, other), &input, &other);
    CT__ARG(input, "input", 1);
    CT__ARG(other, "other", 2);
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct_keep(ct__matmul(input, other));
    ct_scope_end(s);
    return r;
}
