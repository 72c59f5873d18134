/* Copies: copy_, fill_, contiguous, clone, to(dtype), and reading values out. */

/* Whether t's elements tile a block of memory exactly once, in some order
 * (PyTorch's is_non_overlapping_and_dense). */
static bool ct__is_dense(const ct_tensor *t)
{
    int order[CT_MAX_DIMS], n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] >= 2) order[n++] = d;
    for (int i = 1; i < n; i++) /* by stride, ascending */
        for (int j = i; j > 0 && t->strides[order[j]] < t->strides[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    int64_t expected = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[order[i]] != expected) return false;
        expected *= t->sizes[order[i]];
    }
    return true;
}

/* Whether two elements of t share memory, where that is easy to tell (PyTorch's
 * has_internal_overlap: a size>1 dim with stride 0). */
static bool ct__has_internal_overlap(const ct_tensor *t)
{
    if (ct__is_contiguous(t)) return false;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] > 1 && t->strides[d] == 0) return true;
    return false;
}

typedef enum ct__overlap { CT__OVERLAP_NO, CT__OVERLAP_FULL, CT__OVERLAP_PARTIAL, CT__OVERLAP_UNKNOWN } ct__overlap;

/* How the memory of two tensors overlaps (PyTorch's get_overlap_status). */
static ct__overlap ct__overlap_of(const ct_tensor *a, const ct_tensor *b)
{
    if (a == b) return CT__OVERLAP_FULL;
    if (a->storage != b->storage || ct_numel(a) == 0 || ct_numel(b) == 0) return CT__OVERLAP_NO;
    if (!ct__is_dense(a) || !ct__is_dense(b)) return CT__OVERLAP_UNKNOWN;
    /* dense tensors span [first element, first + numel): offsets in bytes */
    int64_t sa = a->offset * (int64_t)ct__esize(a), sb = b->offset * (int64_t)ct__esize(b);
    int64_t ea = sa + ct_numel(a) * (int64_t)ct__esize(a), eb = sb + ct_numel(b) * (int64_t)ct__esize(b);
    if (sa == sb && ea == eb && a->ndim == b->ndim &&
        !memcmp(a->strides, b->strides, (size_t)a->ndim * sizeof(int64_t)))
        return CT__OVERLAP_FULL;
    return sa < eb && sb < ea ? CT__OVERLAP_PARTIAL : CT__OVERLAP_NO;
}

static const char ct__msg_internal_overlap[] =
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
    "Please clone() the tensor before performing the operation.";
static const char ct__msg_partial_overlap[] =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation.";

/* The checks PyTorch makes before writing `out` from `in` (may be NULL). */
static ct_result ct__check_write(const ct_tensor *out, const ct_tensor *in)
{
    if (ct__has_internal_overlap(out)) return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_internal_overlap);
    if (in && ct__overlap_of(out, in) == CT__OVERLAP_PARTIAL)
        return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_partial_overlap);
    return CT_OK;
}

/* Check that src broadcasts to dst's shape exactly (copy_'s rule). */
static ct_result ct__check_broadcast_to(const ct_tensor *dst, const ct_tensor *src)
{
    int64_t shape[CT_MAX_DIMS];
    int n = 0;
    char b1[256], b2[256];
    if (ct__broadcast_shapes(dst->sizes, dst->ndim, src->sizes, src->ndim, shape, &n) != CT_OK)
        return ct_last_error_code();
    if (n != dst->ndim || memcmp(shape, dst->sizes, (size_t)n * sizeof(int64_t)))
        return ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        ct__shape_str(dst->sizes, dst->ndim, b1, sizeof b1), ct__shape_str(shape, n, b2, sizeof b2));
    return CT_OK;
}

/* Every element of a fresh internal tensor t set to v, converted as a
 * kernel's result is (no checks, nothing recorded). */
static void ct__fill_double(ct_tensor *t, double v)
{
    uint64_t elem = 0;
    ct__write_f64(&elem, t->dtype, v);
    if (ct_numel(t)) ct__backend_for(t->storage->device.type)->fill(t, &elem);
}

/* dst = src after the checks; src in dst's storage is read from a copy first. */
static void ct__copy_unchecked(ct_tensor *dst, const ct_tensor *src)
{
    if (ct_numel(dst) == 0) return;
    if (dst->storage == src->storage && ct__overlap_of(dst, src) != CT__OVERLAP_NO) {
        if (ct__overlap_of(dst, src) == CT__OVERLAP_FULL) return;
        ct_scope s = ct_scope_begin();
        ct_tensor *tmp = ct_clone(src);
        if (tmp) ct__copy_backend(dst, tmp)->copy(dst, tmp, false);
        ct_scope_end(s);
        return;
    }
    ct__copy_backend(dst, src)->copy(dst, src, false);
}

ct_result ct_copy_(ct_tensor *t, const ct_tensor *src)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(src, "src", 2);
    ct_result r = ct__check_inplace_grad(t, &src, 1);
    if (r != CT_OK || t == src) return r;
    if ((r = ct__check_broadcast_to(t, src)) == CT_OK) r = ct__check_write(t, src);
    if (r != CT_OK) return r;
    ct__copy_unchecked(t, src);
    t->storage->version++;
    ct__record_copy(CT__CG_COPY, t, t, src, 0);
    return CT_OK;
}

/* fill_ and zero_ (kind says which node records it). */
static ct_result ct__fill_(ct_tensor *t, ct_scalar value, ct__copy_grad kind)
{
    uint64_t elem = 0;
    ct_result r = ct__check_inplace_grad(t, NULL, 0);
    if (r == CT_OK) r = ct__scalar_to_elem(value, t->dtype, &elem);
    if (r != CT_OK) return r;
    if (ct_numel(t)) ct__backend_for(t->storage->device.type)->fill(t, &elem);
    t->storage->version++;
    ct__record_copy(kind, t, t, NULL, 0);
    return CT_OK;
}

ct_result ct_fill_(ct_tensor *t, ct_scalar value)
{
    CT__ARG_R(t, "self", 1);
    return ct__fill_(t, value, CT__CG_FILL);
}

ct_result ct_zero_(ct_tensor *t)
{
    CT__ARG_R(t, "self", 1);
    return ct__fill_(t, ct_int(0), CT__CG_ZERO);
}

/* How dims a and b of t order by stride (infer_dense_strides' rule, which
 * is TensorIterator's): -1 when a goes inside b, 1 when outside, 0 when
 * undecided (a stride 0, or equal strides and a is not the larger). */
static int ct__stride_order(const ct_tensor *t, int a, int b)
{
    int64_t sa = t->strides[a], sb = t->strides[b];
    if (sa == 0 || sb == 0) return 0;
    if (sa != sb) return sa < sb ? -1 : 1;
    return t->sizes[a] > t->sizes[b] ? 1 : 0;
}

/* Dense strides for t's sizes that keep the order of t's dims by stride
 * (PyTorch's infer_dense_strides, for tensors that are not dense). */
static void ct__dense_strides_like(const ct_tensor *t, int64_t *strides)
{
    int perm[CT_MAX_DIMS], n = t->ndim; /* perm[0] is the innermost dim */
    for (int i = 0; i < n; i++) perm[i] = n - 1 - i;
    for (int i = 1; i < n; i++) { /* insertion sort that steps over undecided dims without moving them */
        int moving = i;
        for (int j = i - 1; j >= 0; j--) {
            int order = ct__stride_order(t, perm[j], perm[moving]);
            if (order < 0) break;
            if (order > 0) {
                int x = perm[j];
                perm[j] = perm[moving];
                perm[moving] = x;
                moving = j;
            }
        }
    }
    int64_t stride = 1;
    for (int i = 0; i < n; i++) {
        strides[perm[i]] = stride;
        if (t->sizes[perm[i]] > 1) stride *= t->sizes[perm[i]];
    }
}

/* An uninitialised tensor shaped like t, laid out as PyTorch's
 * preserve_format does: t's own strides when t is dense, else dense strides
 * in t's order. */
static ct_tensor *ct__empty_like(const ct_tensor *t, ct_dtype dtype)
{
    int64_t strides[CT_MAX_DIMS];
    dtype = dtype == CT_DEFAULT ? t->dtype : dtype;
    if (ct__is_dense(t)) memcpy(strides, t->strides, (size_t)t->ndim * sizeof(int64_t));
    else ct__dense_strides_like(t, strides);
    return ct__alloc_strided(t->sizes, strides, t->ndim, dtype, t->storage->device);
}

/* A new tensor with t's values in `dtype`, laid out as ct__empty_like does. */
static ct_tensor *ct__copy_as(const ct_tensor *t, ct_dtype dtype)
{
    ct_tensor *r = ct__empty_like(t, dtype);
    if (r) ct__copy_unchecked(r, t);
    return r;
}

ct_tensor *ct_contiguous(const ct_tensor *t)
{
    CT__ARG(t, "self", 1);
    if (ct__is_contiguous(t)) return ct__same(t);
    ct_tensor *r = ct__alloc(t->sizes, t->ndim, t->dtype, t->storage->device);
    if (r) ct__copy_unchecked(r, t);
    if (!ct__record_copy(CT__CG_CLONE, r, t, NULL, 0)) return ct__unrecordable(r);
    return r;
}

ct_tensor *ct_clone(const ct_tensor *t)
{
    CT__ARG(t, "self", 1);
    ct_tensor *r = ct__copy_as(t, t->dtype);
    if (!ct__record_copy(CT__CG_CLONE, r, t, NULL, 0)) return ct__unrecordable(r);
    return r;
}

ct_tensor *ct_to(const ct_tensor *t, ct_dtype dtype)
{
    CT__ARG(t, "self", 1);
    if (dtype == CT_DEFAULT || dtype == t->dtype) return ct__same(t);
    if (!ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "to(): invalid dtype %d", (int)dtype);
        return NULL;
    }
    ct_tensor *r = ct__copy_as(t, dtype);
    if (!ct__record_copy(CT__CG_TO_COPY, r, t, NULL, 0)) return ct__unrecordable(r);
    return r;
}

ct_result ct_copy_to_array(const ct_tensor *t, void *out, int64_t capacity, ct_dtype dtype)
{
    CT__ARG_R(t, "self", 1);
    dtype = dtype == CT_DEFAULT ? t->dtype : dtype;
    if (!out && capacity) return ct__fail(CT_ERR_VALUE, "copy_to_array(): out is NULL");
    if (!ct__dtype_valid(dtype)) return ct__fail(CT_ERR_TYPE, "copy_to_array(): invalid dtype %d", (int)dtype);
    if (capacity < ct_numel(t))
        return ct__fail(CT_ERR_VALUE, "copy_to_array(): the tensor has %lld elements but out has room for %lld",
                        (long long)ct_numel(t), (long long)capacity);
    ct_scope s = ct_scope_begin();
    ct_tensor *dst = ct_from_blob(out, ct_shape_of(t), NULL, dtype, NULL, NULL);
    if (dst) ct__copy_unchecked(dst, t);
    ct_scope_end(s);
    return dst ? CT_OK : ct_last_error_code();
}

/* The single element of t as a double, or an error (NaN). */
static bool ct__single(const ct_tensor *t, const char *fn)
{
    if (!t) {
        ct__null_arg(fn, "self", 1);
        return false;
    }
    if (ct_numel(t) != 1) {
        ct__fail(CT_ERR_VALUE, "only one element tensors can be converted to Python scalars");
        return false;
    }
    return true;
}

/* The single element's bytes, read on the host (room for any dtype); a
 * CPU tensor's in place, without the scope a device's copy needs. */
static uint64_t ct__item_bytes(const ct_tensor *t)
{
    uint64_t elem = 0;
    if (t->storage->device.type == CT_DEVICE_CPU) {
        memcpy(&elem, ct__data(t), ct__esize(t));
        return elem;
    }
    ct_scope s = ct_scope_begin();
    const ct_tensor *h = ct__host(t);
    if (h) memcpy(&elem, ct__data(h), ct__esize(h));
    ct_scope_end(s);
    return elem;
}

double ct_item(const ct_tensor *t)
{
    if (!ct__single(t, __func__)) return NAN;
    uint64_t elem = ct__item_bytes(t);
    return ct__read_f64(&elem, t->dtype);
}

int64_t ct_item_int(const ct_tensor *t)
{
    if (!ct__single(t, __func__)) return 0;
    uint64_t elem = ct__item_bytes(t);
    return ct__read_i64(&elem, t->dtype);
}
