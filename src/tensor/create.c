/* Creation: empty, zeros, ones, full, from C arrays and caller memory, ranges,
 * eye, diag, tril, triu. */

/* A new tensor of that shape and dtype with every element the bytes at elem. */
static ct_tensor *ct__full_of(ct_shape shape, ct_dtype dtype, const void *elem)
{
    ct_tensor *t = ct__alloc(shape.size, shape.ndim, dtype, ct__default_device());
    if (t && ct_numel(t)) ct__backend_for(t->storage->device.type)->fill(t, elem);
    return t;
}

static ct_tensor *ct__filled(ct_shape shape, ct_dtype dtype, ct_scalar value)
{
    uint64_t elem = 0;
    if (ct__check_shape(shape, "full") != CT_OK || ct__check_dtype(dtype) != CT_OK) return NULL;
    if (ct__scalar_to_elem(value, dtype, &elem) != CT_OK) return NULL; /* before allocating */
    return ct__full_of(shape, dtype, &elem);
}

ct_tensor *ct_empty(ct_shape shape, ct_dtype dtype)
{
    if (ct__check_shape(shape, "empty") != CT_OK || ct__check_dtype(dtype) != CT_OK) return NULL;
    return ct__alloc(shape.size, shape.ndim, dtype, ct__default_device());
}

ct_tensor *ct_zeros(ct_shape shape, ct_dtype dtype) { return ct__filled(shape, dtype, ct_int(0)); }
ct_tensor *ct_ones(ct_shape shape, ct_dtype dtype) { return ct__filled(shape, dtype, ct_int(1)); }

/* The dtype torch.full and torch.tensor give a Python number. */
static ct_dtype ct__scalar_dtype(ct_scalar v)
{
    return v.kind == CT_F64 ? ct__default_dtype : v.kind == CT_BOOL ? CT_BOOL : CT_I64;
}

ct_tensor *ct_full(ct_shape shape, ct_scalar value, ct_dtype dtype)
{
    return ct__filled(shape, dtype == CT_DEFAULT ? ct__scalar_dtype(value) : dtype, value);
}

ct_tensor *ct_empty_like(const ct_tensor *t, ct_dtype dtype)
{
    CT__ARG(t, "self", 1);
    if (ct__check_dtype(dtype) != CT_OK) return NULL;
    return ct__empty_like(t, dtype);
}

ct_tensor *ct_full_like(const ct_tensor *t, ct_scalar value, ct_dtype dtype)
{
    uint64_t elem = 0;
    CT__ARG(t, "self", 1);
    if (ct__check_dtype(dtype) != CT_OK) return NULL;
    if (ct__scalar_to_elem(value, dtype == CT_DEFAULT ? t->dtype : dtype, &elem) != CT_OK) return NULL;
    ct_tensor *r = ct__empty_like(t, dtype);
    if (r && ct_numel(r)) ct__backend_for(r->storage->device.type)->fill(r, &elem);
    return r;
}

ct_tensor *ct_zeros_like(const ct_tensor *t, ct_dtype dtype) { return ct_full_like(t, ct_int(0), dtype); }
ct_tensor *ct_ones_like(const ct_tensor *t, ct_dtype dtype) { return ct_full_like(t, ct_int(1), dtype); }

ct_tensor *ct_from_array(const void *data, ct_shape shape, ct_dtype dtype)
{
    if (!ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "from_array(): the dtype of the C array must be given");
        return NULL;
    }
    int64_t numel;
    if (!data && ct__check_shape(shape, "from_array") == CT_OK && ct__numel_of(shape.size, shape.ndim, &numel) &&
        numel > 0) {
        ct__fail(CT_ERR_VALUE, "from_array(): data is NULL");
        return NULL;
    }
    ct_tensor *t = ct_empty(shape, dtype);
    if (!t || !t->storage->nbytes) return t;
    if (t->storage->device.type == CT_DEVICE_CPU) {
        memcpy(t->storage->data, data, t->storage->nbytes);
        return t;
    }
    ct_scope s = ct_scope_begin(); /* a device tensor: copied from the array in place */
    ct_tensor *host = ct_from_blob((void *)data, shape, NULL, dtype, NULL, NULL);
    if (host) ct__copy_backend(t, host)->copy(t, host, false);
    ct_scope_end(s);
    return host ? t : NULL;
}

ct_tensor *ct_from_blob(void *data, ct_shape shape, const int64_t *strides, ct_dtype dtype,
                        void (*deleter)(void *data, void *ctx), void *ctx)
{
    int64_t st[CT_MAX_DIMS], numel = 0, last = 0; /* last: the offset of the last element */
    if (ct__check_shape(shape, "from_blob") != CT_OK) return NULL;
    if (!ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "from_blob(): the dtype of the memory must be given");
        return NULL;
    }
    if (strides) memcpy(st, strides, (size_t)shape.ndim * sizeof(int64_t));
    else ct__contiguous_strides(shape.size, shape.ndim, st);
    bool fits = ct__numel_of(shape.size, shape.ndim, &numel);
    for (int d = 0; d < shape.ndim; d++) {
        int64_t span;
        if (st[d] < 0) { /* torch.from_numpy's refusal, in its words */
            ct__fail(CT_ERR_RUNTIME, "from_blob(): at least one stride is negative, and tensors with negative "
                                     "strides are not currently supported");
            return NULL;
        }
        if (shape.size[d] > 1) fits = fits && ct__mul_ok(shape.size[d] - 1, st[d], &span) && ct__add_ok(last, span, &last);
    }
    if (!fits || (uint64_t)last >= SIZE_MAX / ct_dtype_size(dtype)) {
        char buf[256];
        ct__fail(CT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s",
                 ct__shape_str(shape.size, shape.ndim, buf, sizeof buf));
        return NULL;
    }
    if (numel && !data) {
        ct__fail(CT_ERR_VALUE, "from_blob(): data is NULL");
        return NULL;
    }
    ct__storage *s = (ct__storage *)CT_MALLOC(sizeof *s);
    if (!s) {
        CT__OOM();
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->refcount = 1;
    s->data = data;
    s->nbytes = numel ? (size_t)(last + 1) * ct_dtype_size(dtype) : 0;
    s->device = ct__cpu;
    s->deleter = deleter;
    s->deleter_ctx = ctx;
    s->inference = ct_is_inference_mode_enabled();
    ct_tensor *t = ct__tensor_new(s, dtype, shape.size, st, shape.ndim, 0);
    if (!t) s->deleter = NULL; /* a failed call leaves the memory the caller's */
    ct__storage_release(s);
    return t;
}

/* value as torch.tensor(value, dtype=dt) stores it: integer dtypes refuse
 * values out of their range (naming the dtype as Python does), floating
 * dtypes round (to infinity past their range), bool tests for nonzero. */
static ct_result ct__tensor_elem(ct_scalar value, ct_dtype dt, void *out)
{
    if (!ct__is_integral(dt)) {
        ct__write_f64(out, dt, ct_scalar_to_double(value));
        return CT_OK;
    }
    if (ct__scalar_overflows(value, dt))
        return ct__fail(CT_ERR_RUNTIME, "value cannot be converted to type %s without overflow", ct_dtype_name(dt));
    return ct__scalar_to_elem(value, dt, out);
}

ct_tensor *ct_scalar_tensor(ct_scalar value, ct_dtype dtype)
{
    uint64_t elem = 0;
    dtype = dtype == CT_DEFAULT ? ct__scalar_dtype(value) : dtype;
    if (ct__check_dtype(dtype) != CT_OK || ct__tensor_elem(value, dtype, &elem) != CT_OK) return NULL;
    return ct__full_of(CT_SHAPE0, dtype, &elem);
}

/* ---------------------------------------------------------------- ranges */

/* Scalar::to<T>() for dtype dt (checked as c10's checked_convert), as a
 * double holding the dtype's value. */
static bool ct__scalar_as(ct_scalar s, ct_dtype dt, double *out)
{
    uint64_t elem = 0;
    if (ct__scalar_to_elem(s, dt, &elem) != CT_OK) return false;
    *out = ct__read_f64(&elem, dt);
    return true;
}

/* t filled with value (checked as fill_ checks it), or NULL and t discarded. */
static ct_tensor *ct__filled_or_discard(ct_tensor *t, ct_scalar value)
{
    if (ct_fill_(t, value) == CT_OK) return t;
    ct__discard(t);
    return NULL;
}

/* arange's start, end and step converted in place to the kernel's
 * accumulate type (int64 for integer dtypes, float for half and bfloat16,
 * double otherwise), and checked there as PyTorch checks them. */
static bool ct__arange_bounds(ct_scalar *start, ct_scalar *end, ct_scalar *step, ct_dtype dtype)
{
    ct_dtype acc = !ct_dtype_is_floating(dtype) ? CT_I64 : dtype == CT_F16 || dtype == CT_BF16 ? CT_F32 : CT_F64;
    uint64_t es = 0, ee = 0, ed = 0;
    if (ct__scalar_to_elem(*start, acc, &es) != CT_OK || ct__scalar_to_elem(*end, acc, &ee) != CT_OK ||
        ct__scalar_to_elem(*step, acc, &ed) != CT_OK)
        return false;
    int step_sign, order; /* the signs of step and of end - start */
    double s = 0, e = 0;    /* floating bounds, which may be infinite */
    if (acc == CT_I64) {
        int64_t is = ct__read_i64(&es, acc), ie = ct__read_i64(&ee, acc), id = ct__read_i64(&ed, acc);
        step_sign = (id > 0) - (id < 0);
        order = (ie > is) - (ie < is);
        *start = ct_int(is);
        *end = ct_int(ie);
        *step = ct_int(id);
    } else {
        double d = ct__read_f64(&ed, acc);
        s = ct__read_f64(&es, acc);
        e = ct__read_f64(&ee, acc);
        step_sign = (d > 0) - (d < 0); /* NaN: 0 */
        order = (e > s) - (e < s);
        *start = ct_float(s);
        *end = ct_float(e);
        *step = ct_float(d);
    }
    if (!step_sign) {
        ct__fail(CT_ERR_RUNTIME, "step must be nonzero");
        return false;
    }
    if (!isfinite(s) || !isfinite(e)) {
        ct__fail(CT_ERR_RUNTIME, "unsupported range: %g -> %g", s, e);
        return false;
    }
    if (!((step_sign > 0 && order >= 0) || (step_sign < 0 && order <= 0))) {
        ct__fail(CT_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign");
        return false;
    }
    return true;
}

ct_tensor *ct_arange(ct_scalar start, ct_scalar end, ct_scalar step, ct_dtype dtype)
{
    bool all_int = start.kind != CT_F64 && end.kind != CT_F64 && step.kind != CT_F64;
    dtype = dtype != CT_DEFAULT ? dtype : all_int ? CT_I64 : ct__default_dtype;
    if (ct__check_dtype(dtype) != CT_OK) return NULL;
    if (dtype == CT_BOOL) {
        ct__not_implemented("arange_cpu", dtype);
        return NULL;
    }
    ct_scalar xs = start, xe = end, xd = step;
    if (!ct__arange_bounds(&xs, &xe, &xd, dtype)) return NULL;
    /* The length: from the int64 values for int64 (their difference wraps as
     * in C++), from the scalars as doubles for every other dtype. */
    double size_d;
    if (dtype == CT_I64)
        size_d = ceil((double)(int64_t)((uint64_t)xe.v.i - (uint64_t)xs.v.i) / (double)xd.v.i);
    else
        size_d = ceil((ct_scalar_to_double(end) - ct_scalar_to_double(start)) / ct_scalar_to_double(step));
    if (!(size_d >= 0 && size_d <= 9223372036854775807.0)) {
        ct__fail(CT_ERR_RUNTIME, "invalid size, possible overflow?");
        return NULL;
    }
    int64_t n = ct__trunc_i64(size_d); /* 2^63 passes the check above and wraps, as in PyTorch */
    if (n < 0) {
        ct__fail(CT_ERR_RUNTIME, "IntArrayRef contains an int that cannot be represented as a SymInt: %lld", (long long)n);
        return NULL;
    }
    ct_tensor *t = ct_empty(CT_SHAPE(n), dtype);
    if (t && n) {
        ct__range_job job = {CT__RANGE_ARANGE, t, xs, xd, 0, 0, 0};
        ct__backend_for(t->storage->device.type)->range(&job);
    }
    return t;
}

/* What linspace and logspace share: the result for 0 steps, or for 1
 * (filled with first through fill_'s checks), with *done set; else a tensor
 * for the kernel, with start and end converted to its dtype as Scalar::to
 * converts them into se[0] and se[1]. */
static ct_tensor *ct__spaced(const char *kernel, bool has_half, double start, double end, int64_t steps,
                             ct_dtype dtype, double first, double se[2], bool *done)
{
    *done = true;
    if (steps < 0) {
        ct__fail(CT_ERR_RUNTIME, "number of steps must be non-negative");
        return NULL;
    }
    ct_tensor *t = ct_empty(CT_SHAPE(steps), dtype);
    if (!t || steps == 0) return t;
    if (steps == 1) return ct__filled_or_discard(t, ct_float(first));
    ct_dtype dt = t->dtype;
    if (dt == CT_BOOL || (dt == CT_F16 && !has_half)) {
        ct__discard(t);
        ct__not_implemented(kernel, dt);
        return NULL;
    }
    if (!ct__scalar_as(ct_float(start), dt, &se[0]) || !ct__scalar_as(ct_float(end), dt, &se[1])) {
        ct__discard(t);
        return NULL;
    }
    *done = false;
    return t;
}

/* linspace's or logspace's kernel on t's device, from se[0] to se[1]. */
static void ct__run_range(ct__range_kind kind, ct_tensor *t, const double se[2], double base)
{
    ct__range_job job = {kind, t, ct_int(0), ct_int(0), se[0], se[1], base};
    ct__backend_for(t->storage->device.type)->range(&job);
}

ct_tensor *ct_linspace(double start, double end, int64_t steps, ct_dtype dtype)
{
    double se[2];
    bool done;
    ct_tensor *t = ct__spaced("linspace_cpu", true, start, end, steps, dtype, start, se, &done);
    if (!done) ct__run_range(CT__RANGE_LINSPACE, t, se, 0);
    return t;
}

ct_tensor *ct_logspace(double start, double end, int64_t steps, double base, ct_dtype dtype)
{
    double se[2];
    bool done;
    ct_tensor *t = ct__spaced("logspace_cpu", false, start, end, steps, dtype, pow(base, start), se, &done);
    if (!done) ct__run_range(CT__RANGE_LOGSPACE, t, se, base);
    return t;
}

/* ---------------------------------------------------------------- matrices */

ct_tensor *ct_eye(int64_t n, int64_t m, ct_dtype dtype)
{
    int64_t numel;
    if (n < 0 || m < 0) {
        ct__fail(CT_ERR_RUNTIME, "%s must be greater or equal to 0, got %lld", n < 0 ? "n" : "m",
                 (long long)(n < 0 ? n : m));
        return NULL;
    }
    if (!ct__mul_ok(n, m, &numel)) {
        ct__fail(CT_ERR_RUNTIME, "numel: integer multiplication overflow");
        return NULL;
    }
    ct_tensor *t = ct_zeros(CT_SHAPE(n, m), dtype);
    if (!t) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *diagonal = ct_diagonal(t, 0, 0, 1);
    ct_result r = diagonal ? ct_fill_(diagonal, ct_int(1)) : ct_last_error_code();
    ct_scope_end(s);
    if (r != CT_OK) {
        ct__discard(t);
        return NULL;
    }
    return t;
}

ct_tensor *ct_diag(const ct_tensor *t, int64_t diagonal)
{
    CT__ARG(t, "self", 1);
    if (ct__recordable(&t, 1) != CT_OK) return NULL; /* before its checks, as PyTorch */
    if (t->ndim != 1 && t->ndim != 2) {
        ct__fail(CT_ERR_RUNTIME, "matrix or a vector expected");
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r = NULL;
    ct_grad_mode mode = ct_set_grad_enabled(false); /* one DiagBackward0 node, not the copies inside */
    if (t->ndim == 1) { /* a square matrix with t on the diagonal */
        int64_t n = t->sizes[0] + (diagonal < 0 ? -diagonal : diagonal);
        r = ct_zeros(CT_SHAPE(n, n), t->dtype);
        if (r) ct__copy_unchecked(ct_diagonal(r, diagonal, 0, 1), t);
    } else { /* the diagonal's length; PyTorch resizes to it unclamped, refusing a negative one */
        int64_t len = diagonal >= 0 ? CT__MIN(t->sizes[0], t->sizes[1] - diagonal)
                                    : CT__MIN(t->sizes[0] + diagonal, t->sizes[1]);
        if (len < 0) ct__fail(CT_ERR_RUNTIME, "numel: integer multiplication overflow");
        else r = ct_empty(CT_SHAPE(len), t->dtype);
        if (r) ct__copy_unchecked(r, ct_diagonal(t, diagonal, 0, 1));
    }
    ct_grad_mode_restore(mode);
    ct__record_copy(CT__CG_DIAG, r, t, NULL, diagonal);
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* A copy of t with the elements on the discarded side of diagonal k zeroed:
 * below it (keep_upper, triu) or above it (tril), over the last two dims. */
/* The same on a device: r's discarded side zeroed where column - row
 * falls on it, through the backend's kernels. */
static ct_tensor *ct__triangle_masked(ct_tensor *r, int64_t k, bool keep_upper)
{
    int64_t rows = r->sizes[r->ndim - 2], cols = r->sizes[r->ndim - 1];
    ct_device_guard on = ct_device_guard_begin(r->storage->device);
    ct_scope s = ct_scope_begin();
    ct_tensor *offset = ct_sub(ct_arange(ct_int(0), ct_int(cols), ct_int(1), CT_I64),
                               ct_unsqueeze(ct_arange(ct_int(0), ct_int(rows), ct_int(1), CT_I64), 1));
    ct_tensor *drop = keep_upper ? ct_lt_scalar(offset, ct_int(k)) : ct_gt_scalar(offset, ct_int(k));
    ct_result res = drop ? ct_masked_fill_scalar_(r, drop, ct_int(0)) : ct_last_error_code();
    ct_scope_end(s);
    ct_device_guard_end(on);
    if (res == CT_OK) return r;
    ct__discard(r);
    return NULL;
}

static ct_tensor *ct__triangle(const ct_tensor *t, int64_t k, bool keep_upper)
{
    if (ct__wrap_dim_strict(-2, t->ndim) < 0) return NULL; /* PyTorch's error for fewer than 2 dims */
    ct_tensor *r = ct__alloc(t->sizes, t->ndim, t->dtype, t->storage->device);
    if (!r) return NULL;
    ct__copy_unchecked(r, t);
    int64_t rows = r->sizes[r->ndim - 2], cols = r->sizes[r->ndim - 1];
    if (ct_numel(r) == 0) return r;
    if (r->storage->device.type != CT_DEVICE_CPU) return ct__triangle_masked(r, k, keep_upper);
    int64_t batch = ct_numel(r) / (rows * cols);
    k = CT__MAX(CT__MIN(k, cols), -rows); /* beyond these every diagonal gives the same, and i + k cannot overflow */
    size_t es = ct__esize(r);
    char *p = (char *)ct__data(r);
    for (int64_t b = 0; b < batch; b++, p += (size_t)(rows * cols) * es)
        for (int64_t i = 0; i < rows; i++) {
            /* zero columns [lo, hi) of row i */
            int64_t lo = keep_upper ? 0 : CT__MAX(i + k + 1, 0), hi = keep_upper ? CT__MIN(i + k, cols) : cols;
            if (lo < hi) memset(p + (size_t)(i * cols + lo) * es, 0, (size_t)(hi - lo) * es);
        }
    return r;
}

ct_tensor *ct_tril(const ct_tensor *t, int64_t diagonal)
{
    CT__ARG(t, "self", 1);
    ct_tensor *r = ct__triangle(t, diagonal, false);
    if (!ct__record_copy(CT__CG_TRIL, r, t, NULL, diagonal)) return ct__unrecordable(r);
    return r;
}

ct_tensor *ct_triu(const ct_tensor *t, int64_t diagonal)
{
    CT__ARG(t, "self", 1);
    ct_tensor *r = ct__triangle(t, diagonal, true);
    if (!ct__record_copy(CT__CG_TRIU, r, t, NULL, diagonal)) return ct__unrecordable(r);
    return r;
}
