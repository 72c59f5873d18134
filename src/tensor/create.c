/* Creation: empty, zeros, ones, full, from C arrays and caller memory, ranges,
 * eye, diag, tril, triu. */

static ct_tensor *ct__filled(ct_shape shape, ct_dtype dtype, ct_scalar value)
{
    if (ct__check_shape(shape, "full") != CT_OK) return NULL;
    if (dtype != CT_DEFAULT && !ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "invalid dtype %d", (int)dtype);
        return NULL;
    }
    uint64_t elem = 0;
    if (ct__scalar_to_elem(value, dtype, &elem) != CT_OK) return NULL; /* before allocating */
    ct_tensor *t = ct__alloc(shape.size, shape.ndim, dtype, ct__cpu);
    if (t && ct_numel(t)) ct__backend_for(CT_DEVICE_CPU)->fill(t, &elem);
    return t;
}

ct_tensor *ct_empty(ct_shape shape, ct_dtype dtype)
{
    if (ct__check_shape(shape, "empty") != CT_OK) return NULL;
    if (dtype != CT_DEFAULT && !ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "invalid dtype %d", (int)dtype);
        return NULL;
    }
    return ct__alloc(shape.size, shape.ndim, dtype, ct__cpu);
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
    return ct__empty_like(t, dtype);
}

ct_tensor *ct_full_like(const ct_tensor *t, ct_scalar value, ct_dtype dtype)
{
    uint64_t elem = 0;
    CT__ARG(t, "self", 1);
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
    if (t && t->storage->nbytes) memcpy(t->storage->data, data, t->storage->nbytes);
    return t;
}

ct_tensor *ct_from_blob(void *data, ct_shape shape, const int64_t *strides, ct_dtype dtype,
                        void (*deleter)(void *data, void *ctx), void *ctx)
{
    int64_t st[CT_MAX_DIMS], numel, last = 0;
    if (ct__check_shape(shape, "from_blob") != CT_OK) return NULL;
    if (!ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "from_blob(): the dtype of the memory must be given");
        return NULL;
    }
    if (!ct__numel_of(shape.size, shape.ndim, &numel)) {
        char buf[256];
        ct__fail(CT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s",
                 ct__shape_str(shape.size, shape.ndim, buf, sizeof buf));
        return NULL;
    }
    if (strides) memcpy(st, strides, (size_t)shape.ndim * sizeof(int64_t));
    else ct__contiguous_strides(shape.size, shape.ndim, st);
    for (int d = 0; d < shape.ndim; d++) {
        if (st[d] < 0) {
            ct__fail(CT_ERR_RUNTIME, "from_blob(): negative strides are not supported, got stride %lld at dim %d",
                     (long long)st[d], d);
            return NULL;
        }
        if (shape.size[d] > 1) last += (shape.size[d] - 1) * st[d];
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
    ct_tensor *t = ct__tensor_new(s, dtype, shape.size, st, shape.ndim, 0);
    ct__storage_release(s);
    return t;
}

ct_tensor *ct_scalar_tensor(ct_scalar value, ct_dtype dtype)
{
    return ct__filled(CT_SHAPE0, dtype == CT_DEFAULT ? ct__scalar_dtype(value) : dtype, value);
}

/* ---------------------------------------------------------------- ranges */

ct_tensor *ct_arange(ct_scalar start, ct_scalar end, ct_scalar step, ct_dtype dtype)
{
    bool all_int = start.kind != CT_F64 && end.kind != CT_F64 && step.kind != CT_F64;
    dtype = dtype != CT_DEFAULT ? dtype : all_int ? CT_I64 : ct__default_dtype;
    if (!ct__dtype_valid(dtype) || dtype == CT_BOOL) {
        ct__fail(CT_ERR_RUNTIME, "\"arange_cpu\" not implemented for '%s'", dtype == CT_BOOL ? "Bool" : "?");
        return NULL;
    }
    double xs = ct_scalar_to_double(start), xe = ct_scalar_to_double(end), xd = ct_scalar_to_double(step);
    double size_d;
    if (dtype == CT_I64 && all_int) { /* int64 is more precise than double */
        int64_t is = start.kind == CT_BOOL ? start.v.b : start.v.i, ie = end.kind == CT_BOOL ? end.v.b : end.v.i;
        int64_t id = step.kind == CT_BOOL ? step.v.b : step.v.i;
        size_d = id ? ceil((double)(ie - is) / (double)id) : 0;
    } else {
        size_d = ceil((xe - xs) / xd);
    }
    if (!(xd > 0 || xd < 0)) {
        ct__fail(CT_ERR_RUNTIME, "step must be nonzero");
        return NULL;
    }
    if (!isfinite(xs) || !isfinite(xe)) {
        char a[64], b[64];
        snprintf(a, sizeof a, start.kind == CT_F64 ? "%g" : "%.0f", xs);
        snprintf(b, sizeof b, end.kind == CT_F64 ? "%g" : "%.0f", xe);
        ct__fail(CT_ERR_RUNTIME, "unsupported range: %s -> %s", a, b);
        return NULL;
    }
    if (!((xd > 0 && xe >= xs) || (xd < 0 && xe <= xs))) {
        ct__fail(CT_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign");
        return NULL;
    }
    if (!(size_d >= 0 && size_d <= 9.2233720368547758e18)) {
        ct__fail(CT_ERR_RUNTIME, "invalid size, possible overflow?");
        return NULL;
    }
    int64_t n = (int64_t)size_d;
    ct_tensor *t = ct__alloc(&n, 1, dtype, ct__cpu);
    if (t) ct__cpu_arange(t, start, step);
    return t;
}

ct_tensor *ct_linspace(double start, double end, int64_t steps, ct_dtype dtype)
{
    if (steps < 0) {
        ct__fail(CT_ERR_RUNTIME, "number of steps must be non-negative");
        return NULL;
    }
    ct_tensor *t = ct_empty(CT_SHAPE(steps), dtype);
    if (t) ct__cpu_linspace(t, start, end);
    return t;
}

ct_tensor *ct_logspace(double start, double end, int64_t steps, double base, ct_dtype dtype)
{
    if (steps < 0) {
        ct__fail(CT_ERR_RUNTIME, "number of steps must be non-negative");
        return NULL;
    }
    ct_tensor *t = ct_empty(CT_SHAPE(steps), dtype);
    if (t) ct__cpu_logspace(t, start, end, base);
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
    ct_fill_(ct_diagonal(t, 0, 0, 1), ct_int(1));
    ct_scope_end(s);
    return t;
}

ct_tensor *ct_diag(const ct_tensor *t, int64_t diagonal)
{
    CT__ARG(t, "self", 1);
    if (t->ndim != 1 && t->ndim != 2) {
        ct__fail(CT_ERR_RUNTIME, "matrix or a vector expected");
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r;
    if (t->ndim == 2) {
        r = ct_clone(ct_diagonal(t, diagonal, 0, 1));
    } else {
        int64_t n = t->sizes[0] + (diagonal < 0 ? -diagonal : diagonal);
        r = ct_zeros(CT_SHAPE(n, n), t->dtype);
        if (r && ct_copy_(ct_diagonal(r, diagonal, 0, 1), t) != CT_OK) r = NULL;
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* A copy of t with the elements on the discarded side of diagonal k zeroed:
 * below it (keep_upper, triu) or above it (tril), over the last two dims. */
static ct_tensor *ct__triangle(const ct_tensor *t, int64_t k, bool keep_upper)
{
    if (t->ndim < 2) {
        ct__fail(CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-%d, %d], but got -2)",
                 t->ndim ? t->ndim : 1, t->ndim ? t->ndim - 1 : 0);
        return NULL;
    }
    ct_tensor *r = ct__alloc(t->sizes, t->ndim, t->dtype, t->storage->device);
    if (!r) return NULL;
    ct__copy_unchecked(r, t);
    int64_t rows = r->sizes[r->ndim - 2], cols = r->sizes[r->ndim - 1];
    int64_t batch = rows > 0 && cols > 0 ? ct_numel(r) / (rows * cols) : 0;
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
    return ct__triangle(t, diagonal, false);
}

ct_tensor *ct_triu(const ct_tensor *t, int64_t diagonal)
{
    CT__ARG(t, "self", 1);
    return ct__triangle(t, diagonal, true);
}
