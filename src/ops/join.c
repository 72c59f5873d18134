/* Joining, splitting and index-based ops: the shape, dtype and error rules of
 * PyTorch 1.13 (checked in its order, so the first error is PyTorch's), with
 * data moved by the backend's copy and index kernels. Views made only to
 * describe operands to a kernel live on the stack (ct__ix_subview): no
 * allocation, no refcount. Indices are checked before anything is written. */

/* ---------------------------------------------------------------- helpers */

static const ct_backend *ct__be(const ct_tensor *t) { return ct__backend_for(t->storage->device.type); }

/* PyTorch's ensure_nonempty_size: a 0-d tensor counts as one element along dim 0. */
static int64_t ct__ne_size(const ct_tensor *t, int d) { return t->ndim ? t->sizes[d] : 1; }

/* t seen with at least one dim (a 0-d tensor as size 1), as the kernels want it. */
static void ct__view_1d(ct_tensor *v, const ct_tensor *t)
{
    static const int64_t one = 1;
    if (t->ndim) ct__ix_subview(v, t, t->offset, t->sizes, t->strides, t->ndim);
    else ct__ix_subview(v, t, t->offset, &one, &one, 1);
}

/* t seen with the shape it broadcasts to (zero strides where it has size 1 or no dim). */
static void ct__broadcast_view(ct_tensor *v, const ct_tensor *t, const int64_t *sizes, int ndim)
{
    int64_t strides[CT_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        int td = d - (ndim - t->ndim);
        strides[d] = td < 0 || (t->sizes[td] == 1 && sizes[d] != 1) ? 0 : t->strides[td];
    }
    ct__ix_subview(v, t, t->offset, sizes, strides, ndim);
}

/* A 1-D or 0-d index seen as a tensor of `sizes` that varies only along d. */
static void ct__index_along(ct_tensor *v, const ct_tensor *index, const int64_t *sizes, int ndim, int d)
{
    int64_t strides[CT_MAX_DIMS] = {0};
    strides[d] = index->ndim ? index->strides[0] : 0;
    ct__ix_subview(v, index, index->offset, sizes, strides, ndim);
}

/* A kernel job of kind along dim, the rest zero. */
static ct__index_job ct__job(ct__index_kind kind, int dim)
{
    ct__index_job job;
    memset(&job, 0, sizeof job);
    job.kind = kind;
    job.dim = dim;
    return job;
}

/* Scan an index (or mask) through the backend: min, max, sum, nonzero count
 * and the first value (row-major) outside [lo, hi). */
static ct__index_job ct__index_stats(const ct_tensor *index, int64_t lo, int64_t hi)
{
    ct__index_job job = ct__job(CT__INDEX_STATS, 0);
    job.index = index;
    job.lo = lo;
    job.hi = hi;
    ct__be(index)->index(&job);
    return job;
}

/* Run a gather or scatter job (kind, dim and options set) on dst, src (NULL:
 * the element at value, broadcast) and index, 0-d ones seen as size 1.
 * False when an index was out of range: the kernel stopped, dst is partly
 * written. */
static bool ct__run_index(ct__index_job *job, ct_tensor *dst, const ct_tensor *src, const void *value,
                          const ct_tensor *index)
{
    ct_tensor dv, sv, iv;
    ct__stack_scalar ss;
    ct__view_1d(&dv, dst);
    ct__view_1d(&iv, index);
    if (src) {
        ct__view_1d(&sv, src);
    } else {
        static const int64_t zeros[CT_MAX_DIMS] = {0};
        ct__stack_scalar_init(&ss, ct_int(0));
        ss.t.dtype = dst->dtype;
        memcpy(&ss.value, value, ct__esize(dst));
        ct__ix_subview(&sv, &ss.t, 0, iv.sizes, zeros, iv.ndim);
    }
    job->dst = &dv;
    job->src = &sv;
    job->index = &iv;
    job->serial = ct__has_internal_overlap(dst);
    ct__be(dst)->index(job);
    return !job->out_of_range;
}

/* An int64 copy of an int32 index (the kernels read int64); the index itself otherwise. */
static const ct_tensor *ct__index_i64(const ct_tensor *index)
{
    return index->dtype == CT_I64 ? index : ct_to(index, CT_I64);
}

/* PyTorch's assert_no_internal_overlap(out) and assert_no_overlap(out, input) for each input. */
static ct_result ct__check_no_overlap(const ct_tensor *out, const ct_tensor *a, const ct_tensor *b)
{
    const ct_tensor *in[2] = {a, b};
    if (ct__has_internal_overlap(out)) return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_internal_overlap);
    for (int i = 0; i < 2; i++) {
        ct__overlap lap = in[i] ? ct__overlap_of(out, in[i]) : CT__OVERLAP_NO;
        if (lap == CT__OVERLAP_PARTIAL || lap == CT__OVERLAP_FULL)
            return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_partial_overlap);
    }
    return CT_OK;
}

/* A new contiguous tensor with t's values: what PyTorch's out-of-place
 * scatter, index_add and index_copy start from. */
static ct_tensor *ct__fresh_copy(const ct_tensor *t)
{
    ct_tensor *r = ct__alloc(t->sizes, t->ndim, t->dtype, t->storage->device);
    if (r) ct__copy_unchecked(r, t);
    return r;
}

/* An uninitialised tensor laid out like t, as PyTorch's empty_like with
 * preserve_format: t's strides when dense, else dense strides in t's order. */
static ct_tensor *ct__empty_preserve(const ct_tensor *t)
{
    int64_t strides[CT_MAX_DIMS];
    if (ct__is_dense(t)) return ct__empty_like(t, t->dtype);
    ct__dense_strides_for(&t, 1, t->sizes, t->ndim, strides);
    return ct__alloc_strided(t->sizes, strides, t->ndim, t->dtype, t->storage->device);
}

/* clone(memory_format=preserve) */
static ct_tensor *ct__clone_preserve(const ct_tensor *t)
{
    ct_tensor *r = ct__empty_preserve(t);
    if (r) ct__copy_unchecked(r, t);
    return r;
}

/* A 0-d tensor's value as the Python number .item() gives. */
static ct_scalar ct__item_scalar(const ct_tensor *t)
{
    if (ct_dtype_is_floating(t->dtype)) return ct_float(ct_item(t));
    return t->dtype == CT_BOOL ? ct_bool(ct_item_int(t) != 0) : ct_int(ct_item_int(t));
}

/* The first tensor of a list that is NULL, reported as Python reports None
 * in a list (a failure earlier in the chain keeps its own error); the list
 * is fn's argument `arg` (0 the first), named 'tensors'. */
static ct_result ct__check_list_arg(ct_tensor *const *ts, int n, const char *fn, int arg)
{
    if (n > 0 && !ts)
        return ct__fail(CT_ERR_TYPE, "%s(): argument 'tensors' (position %d) must be tuple of Tensors, not NULL", fn,
                        arg + 1);
    for (int i = 0; i < n; i++)
        if (!ts[i])
            return ct_last_error_code() != CT_OK
                       ? ct_last_error_code()
                       : ct__fail(CT_ERR_TYPE, "expected Tensor as element %d in argument %d, but got NULL", i, arg);
    return CT_OK;
}

static ct_result ct__check_list(ct_tensor *const *ts, int n, const char *fn)
{
    return ct__check_list_arg(ts, n, fn, 0);
}

/* ---------------------------------------------------------------- cat */

static bool ct__cat_skipped(const ct_tensor *t) { return t->ndim == 1 && t->sizes[0] == 0; }

/* The dims of a 4-D (5-D) tensor from fastest to slowest in channels-last
 * (channels-last-3d) order; NULL for other ranks. */
static const int *ct__channels_last_order(int ndim)
{
    static const int order4[4] = {1, 3, 2, 0}, order5[5] = {1, 4, 3, 2, 0};
    return ndim == 4 ? order4 : ndim == 5 ? order5 : NULL;
}

/* PyTorch's suggest_memory_format: whether t's strides say channels-last
 * (ambiguous cases, such as size-1 or zero-stride channels, say contiguous). */
static bool ct__is_channels_last(const ct_tensor *t)
{
    const int *order = ct__channels_last_order(t->ndim);
    int64_t min = 0;
    if (!order || t->strides[1] == 0) return false;
    for (int k = 0; k < t->ndim; k++) {
        int d = order[k];
        if (t->sizes[d] == 0 || t->strides[d] < min || (d == 0 && min == t->strides[1])) return false;
        min = t->strides[d] * (t->sizes[d] > 1 ? t->sizes[d] : 1);
    }
    return true;
}

/* cat's output strides: channels-last when every input is channels-last of
 * one rank; contiguous (false) otherwise. */
static bool ct__cat_strides(ct_tensor *const *ts, int n, const int64_t *sizes, int ndim, int64_t *strides)
{
    const int *order = ct__channels_last_order(ndim);
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim != ndim || !ct__is_channels_last(ts[i])) return false;
    int64_t s = 1;
    for (int k = 0; order && k < ndim; k++) {
        strides[order[k]] = s;
        s *= sizes[order[k]];
    }
    return order != NULL;
}

/* The shape of cat's result, checked as cat_meta checks it; *dim wrapped. */
static ct_result ct__cat_shape(ct_tensor *const *ts, int n, int *dim, int64_t *sizes, int *ndim)
{
    int valid = -1;
    char buf[256];
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim == 0)
            return ct__fail(CT_ERR_RUNTIME, "zero-dimensional tensor (at position %d) cannot be concatenated", i);
    for (int i = 0; i < n && valid < 0; i++)
        if (!ct__cat_skipped(ts[i])) valid = i;
    if (valid >= 0 && (*dim = ct__wrap_dim(*dim, ts[valid]->ndim)) < 0) return ct_last_error_code();
    if (n == 0) return ct__fail(CT_ERR_RUNTIME, "torch.cat(): expected a non-empty list of Tensors");
    *ndim = 1;
    sizes[0] = 0;
    if (valid < 0) return CT_OK; /* every input skipped: a 1-D empty result */
    const ct_tensor *ref = ts[valid];
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        if (ct__cat_skipped(t)) continue;
        if (t->ndim != ref->ndim)
            return ct__fail(CT_ERR_RUNTIME, "Tensors must have same number of dimensions: got %d and %d", ref->ndim,
                            t->ndim);
        for (int d = 0; d < ref->ndim; d++)
            if (d != *dim && t->sizes[d] != ref->sizes[d])
                return ct__fail(CT_ERR_RUNTIME,
                                "Sizes of tensors must match except in dimension %d. Expected size %lld but got size "
                                "%lld for tensor number %d in the list.",
                                *dim, (long long)ref->sizes[d], (long long)t->sizes[d], i);
        if (!ct__add_ok(total, t->sizes[*dim], &total))
            return ct__fail(CT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s",
                            ct__shape_str(t->sizes, t->ndim, buf, sizeof buf));
    }
    memcpy(sizes, ref->sizes, sizeof(int64_t) * (size_t)ref->ndim);
    sizes[*dim] = total;
    *ndim = ref->ndim;
    return CT_OK;
}

/* cat along *dim (wrapped on return). */
static ct_tensor *ct__cat(ct_tensor *const *ts, int n, int *dim_io)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int ndim = 0;
    ct_device dev;
    if (ct__cat_shape(ts, n, dim_io, sizes, &ndim) != CT_OK ||
        ct__common_device((const ct_tensor *const *)ts, n, false, &dev) != CT_OK)
        return NULL;
    int dim = *dim_io;
    ct_dtype dtype = ct__result_type((const ct_tensor *const *)ts, n);
    bool cl = ct__cat_strides(ts, n, sizes, ndim, strides);
    ct_tensor *out = ct__alloc_strided(sizes, cl ? strides : NULL, ndim, dtype, dev);
    int64_t at = 0;
    for (int i = 0; out && i < n; i++) {
        const ct_tensor *t = ts[i];
        if (ct__cat_skipped(t) || ct_numel(t) == 0) continue;
        ct_tensor part;
        int64_t psizes[CT_MAX_DIMS];
        memcpy(psizes, out->sizes, sizeof psizes);
        psizes[dim] = t->sizes[dim];
        ct__ix_subview(&part, out, at * out->strides[dim], psizes, out->strides, ndim);
        ct__be(out)->copy(&part, t, false);
        at += t->sizes[dim];
    }
    return out;
}

/* Record out-of-place join op r = kind(a0, a1) (a1 NULL: one input); returns r. */
static ct_tensor *ct__join_recorded(ct_tensor *r, ct__join_grad kind, const ct_tensor *a0, const ct_tensor *a1,
                                    const ct__join_args *a)
{
    const ct_tensor *in[2] = {a0, a1};
    if (!ct__record_join(kind, in, a1 ? 2 : 1, &r, 1, a)) return ct__unrecordable(r);
    return r;
}

/* After in-place join op kind wrote self (r: how it went): the write is
 * counted and recorded as self = kind(self, other). */
static ct_result ct__join_inplace_done(ct_result r, ct__join_grad kind, ct_tensor *self, const ct_tensor *other,
                                       const ct__join_args *a)
{
    if (r != CT_OK) return r;
    self->storage->version++;
    const ct_tensor *in[2] = {self, other};
    ct__record_join(kind, in, other ? 2 : 1, &self, 1, a);
    return CT_OK;
}

/* An index op's record: the dim and the index (or mask) it saves. */
static ct__join_args ct__index_args(int dim, const ct_tensor *index)
{
    ct__join_args a = ct__join_args_init(dim);
    a.index = index;
    return a;
}

/* Record r = cat of the n tensors along d, as joined (parts: the tensors or
 * the views of them that were joined): CatBackward0 over the tensors. */
static ct_tensor *ct__record_cat(ct_tensor *r, ct_tensor *const *ts, ct_tensor *const *parts, int n, int d)
{
    if (!r || !ct__records((const ct_tensor *const *)ts, n)) return r;
    int64_t *lengths = (int64_t *)CT_MALLOC((size_t)n * sizeof(int64_t) + 1);
    if (!lengths) {
        ct__discard(r);
        CT__OOM();
        return NULL;
    }
    for (int i = 0; i < n; i++) lengths[i] = ct__cat_skipped(parts[i]) ? -1 : parts[i]->sizes[d];
    ct__join_args a = ct__join_args_init(d);
    a.lengths = lengths;
    a.n_lengths = n;
    bool recorded = ct__record_join(CT__JG_CAT, (const ct_tensor *const *)ts, n, &r, 1, &a);
    CT_FREE(lengths);
    return recorded ? r : ct__unrecordable(r);
}

ct_tensor *ct_cat(ct_tensor *const *tensors, int n, int dim)
{
    if (ct__check_list(tensors, n, "cat") != CT_OK) return NULL;
    if (CT__UNLIKELY(ct__autocasting)) return ct__autocast_list(ct_cat, tensors, n, dim);
    n = CT__MAX(n, 0);
    ct_tensor *r = ct__cat(tensors, n, &dim); /* dim comes back wrapped */
    return ct__record_cat(r, tensors, tensors, n, dim);
}

/* Stack views of the n tensors with leading size-1 dims up to min_rank (as
 * atleast_1d and atleast_2d add them) and, if trailing, one size-1 dim at the
 * end (unsqueeze(-1)); then cat along dim. */
static ct_tensor *ct__cat_reshaped(ct_tensor *const *ts, int n, int min_rank, bool trailing, int dim)
{
    ct_tensor *views = (ct_tensor *)CT_MALLOC((size_t)n * (sizeof(ct_tensor) + sizeof(ct_tensor *)));
    if (!views) {
        CT__OOM();
        return NULL;
    }
    ct_tensor **ptrs = (ct_tensor **)(views + n);
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
        int lead = CT__MAX(min_rank - t->ndim, 0), nd = t->ndim + lead;
        memcpy(sizes + lead, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
        memcpy(strides + lead, t->strides, sizeof(int64_t) * (size_t)t->ndim);
        for (int d = lead - 1; d >= 0; d--) { /* unsqueeze(0)'s stride */
            sizes[d] = 1;
            strides[d] = d + 1 < nd ? sizes[d + 1] * strides[d + 1] : 1;
        }
        if (trailing) {
            sizes[nd] = 1;
            strides[nd++] = 1;
        }
        ct__ix_subview(&views[i], t, t->offset, sizes, strides, nd);
        ptrs[i] = &views[i];
    }
    ct_tensor *r = ct__cat(ptrs, n, &dim); /* dim comes back wrapped */
    r = ct__record_cat(r, ts, ptrs, n, dim);
    CT_FREE(views);
    return r;
}

ct_tensor *ct_stack(ct_tensor *const *tensors, int n, int dim)
{
    char b1[256], b2[256];
    if (ct__check_list(tensors, n, "stack") != CT_OK) return NULL;
    if (CT__UNLIKELY(ct__autocasting)) return ct__autocast_list(ct_stack, tensors, n, dim);
    if (n <= 0) {
        ct__fail(CT_ERR_RUNTIME, "stack expects a non-empty TensorList");
        return NULL;
    }
    const ct_tensor *first = tensors[0];
    int d = ct__wrap_dim(dim, first->ndim + 1);
    if (d < 0) return NULL;
    for (int i = 1; i < n; i++)
        if (tensors[i]->ndim != first->ndim ||
            memcmp(tensors[i]->sizes, first->sizes, sizeof(int64_t) * (size_t)first->ndim)) {
            ct__fail(CT_ERR_RUNTIME,
                     "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d",
                     ct__shape_str(first->sizes, first->ndim, b1, sizeof b1),
                     ct__shape_str(tensors[i]->sizes, tensors[i]->ndim, b2, sizeof b2), i);
            return NULL;
        }
    if (first->ndim == CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "stack: ctorch supports at most %d dimensions", CT_MAX_DIMS);
        return NULL;
    }
    ct_tensor *r;
    if (d == first->ndim) {
        CT__UNRECORDED(r, ct__cat_reshaped(tensors, n, 0, true, d));
    } else { /* PyTorch joins along d and splits d with a view, which keeps cat's layout */
        int64_t sizes[CT_MAX_DIMS];
        for (int i = 0, j = 0; i <= first->ndim; i++) sizes[i] = i == d ? n : first->sizes[j++];
        ct_scope s = ct_scope_begin();
        r = ct_keep(ct_view(ct__cat(tensors, n, &d), ct_shape_make(first->ndim + 1, sizes)));
        ct_scope_end(s);
    }
    ct__join_args a = ct__join_args_init(d);
    if (!ct__record_join(CT__JG_STACK, (const ct_tensor *const *)tensors, n, &r, 1, &a)) return ct__unrecordable(r);
    return r;
}

ct_tensor *ct_hstack(ct_tensor *const *tensors, int n)
{
    if (ct__check_list(tensors, n, "hstack") != CT_OK) return NULL;
    if (n <= 0) {
        ct__fail(CT_ERR_RUNTIME, "hstack expects a non-empty TensorList");
        return NULL;
    }
    return ct__cat_reshaped(tensors, n, 1, false, tensors[0]->ndim <= 1 ? 0 : 1);
}

ct_tensor *ct_vstack(ct_tensor *const *tensors, int n)
{
    if (ct__check_list(tensors, n, "vstack") != CT_OK) return NULL;
    if (n <= 0) {
        ct__fail(CT_ERR_RUNTIME, "vstack expects a non-empty TensorList");
        return NULL;
    }
    return ct__cat_reshaped(tensors, n, 2, false, 0);
}

/* ---------------------------------------------------------------- splitting */

/* Room for count pieces, as Python's unpacking checks it. */
static ct_result ct__check_room(int64_t count, ct_tensor **out, int64_t capacity)
{
    if (out && capacity < count)
        return ct__fail(CT_ERR_VALUE, "too many values to unpack (expected %lld)", (long long)capacity);
    return CT_OK;
}

/* Record the count pieces of t along d (out NULL: only counted) as one
 * node; returns count, or an error (no pieces) when autograd refuses t. */
static int64_t ct__record_pieces(ct__join_grad kind, const ct_tensor *t, int d, ct_tensor **out, int64_t count)
{
    ct__join_args a = ct__join_args_init(d);
    if (out && ct__recordable(&t, 1) != CT_OK) {
        for (int64_t i = count - 1; i >= 0; i--) out[i] = ct__unrecordable(out[i]); /* newest first */
        return ct_last_error_code();
    }
    for (int64_t i = 0; out && i < count; i++) ct__mark_view(out[i], t, true);
    if (out && count <= INT_MAX) ct__record_join(kind, &t, 1, out, (int)count, &a);
    return count;
}

/* The pieces of t along d, views of lengths[i] (or, when lengths is NULL,
 * of `step` each, the last one shorter), written to out; returns count. */
static int64_t ct__pieces(const ct_tensor *t, int d, int64_t count, const int64_t *lengths, int64_t step,
                          ct_tensor **out, int64_t capacity, ct__join_grad kind)
{
    if (ct__check_room(count, out, capacity) != CT_OK) return ct_last_error_code();
    int64_t sizes[CT_MAX_DIMS], start = 0;
    memcpy(sizes, t->sizes, sizeof sizes);
    for (int64_t i = 0; out && i < count; i++) {
        sizes[d] = lengths ? lengths[i] : CT__MIN(step, t->sizes[d] - start);
        out[i] = ct__view_of(t, sizes, t->strides, t->ndim, t->offset + start * t->strides[d]);
        if (!out[i]) {
            while (i > 0) ct__discard(out[--i]);
            return ct_last_error_code();
        }
        start += sizes[d];
    }
    return ct__record_pieces(kind, t, d, out, count);
}

static int64_t ct__split(const ct_tensor *t, int64_t split_size, int dim, ct_tensor **out, int64_t capacity)
{
    if (t->ndim == 0) return ct__fail(CT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
    if (split_size < 0)
        return ct__fail(CT_ERR_RUNTIME, "split expects split_size be non-negative, but got split_size=%lld",
                        (long long)split_size);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return ct_last_error_code();
    int64_t size = t->sizes[d];
    if (split_size == 0 && size != 0)
        return ct__fail(CT_ERR_RUNTIME,
                        "split_size can only be 0 if dimension size is 0, but got dimension size of %lld",
                        (long long)size);
    /* at least one piece, even when split_size exceeds the size */
    int64_t count = split_size ? CT__MAX(size / split_size + (size % split_size != 0), 1) : 1;
    return ct__pieces(t, d, count, NULL, split_size, out, capacity, CT__JG_SPLIT);
}

int64_t ct_split(const ct_tensor *t, int64_t split_size, int dim, ct_tensor **out, int64_t capacity)
{
    CT__ARG_R(t, "tensor", 1);
    return ct__split(t, split_size, dim, out, capacity);
}

int64_t ct_split_with_sizes(const ct_tensor *t, ct_shape sizes, int dim, ct_tensor **out, int64_t capacity)
{
    char buf[512];
    CT__ARG_R(t, "input", 1);
    if (t->ndim == 0) return ct__fail(CT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
    if (sizes.ndim < 0 || sizes.ndim > CT_MAX_DIMS)
        return ct__fail(CT_ERR_VALUE, "split_with_sizes: ctorch takes at most %d sizes", CT_MAX_DIMS);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return ct_last_error_code();
    int64_t total = 0;
    bool overflow = false;
    ct__shape_str(sizes.size, sizes.ndim, buf, sizeof buf);
    for (int i = 0; i < sizes.ndim; i++) {
        if (sizes.size[i] < 0)
            return ct__fail(CT_ERR_RUNTIME,
                            "split_with_sizes expects split_sizes have only non-negative entries, but got "
                            "split_sizes=%s",
                            buf);
        overflow = overflow || !ct__add_ok(total, sizes.size[i], &total);
    }
    if (overflow || total != t->sizes[d])
        return ct__fail(CT_ERR_RUNTIME,
                        "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension "
                        "%d), but got split_sizes=%s",
                        (long long)t->sizes[d], dim, buf);
    return ct__pieces(t, d, sizes.ndim, sizes.size, 0, out, capacity, CT__JG_SPLIT_WITH_SIZES);
}

int64_t ct_chunk(const ct_tensor *t, int64_t chunks, int dim, ct_tensor **out, int64_t capacity)
{
    CT__ARG_R(t, "input", 1);
    if (t->ndim == 0) return ct__fail(CT_ERR_RUNTIME, "chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0)
        return ct__fail(CT_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return ct_last_error_code();
    int64_t size = t->sizes[d], split_size = size ? (size - 1) / chunks + 1 : 0;
    /* an empty dim still gives `chunks` (empty) pieces, as split_with_sizes would */
    if (size == 0) return ct__pieces(t, d, chunks, NULL, 0, out, capacity, CT__JG_SPLIT);
    return ct__split(t, split_size, d, out, capacity);
}

int64_t ct_unbind(const ct_tensor *t, int dim, ct_tensor **out, int64_t capacity)
{
    CT__ARG_R(t, "input", 1);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0 || (d = ct__wrap_dim_strict(d, t->ndim)) < 0) return ct_last_error_code();
    int64_t count = t->sizes[d];
    if (ct__check_room(count, out, capacity) != CT_OK) return ct_last_error_code();
    for (int64_t i = 0; out && i < count; i++) {
        CT__UNRECORDED(out[i], ct_select(t, d, i));
        if (!out[i]) {
            while (i > 0) ct__discard(out[--i]);
            return ct_last_error_code();
        }
    }
    return ct__record_pieces(CT__JG_UNBIND, t, d, out, count);
}

ct_result ct_broadcast_tensors(ct_tensor *const *tensors, int n, ct_tensor **out)
{
    int64_t shape[CT_MAX_DIMS] = {0};
    int ndim = 0;
    ct_result r = ct__check_list(tensors, n, "broadcast_tensors");
    if (r != CT_OK) return r;
    if (n > 0 && !out) return ct__fail(CT_ERR_VALUE, "broadcast_tensors(): out is NULL");
    for (int i = 0; i < n; i++)
        if (ct__broadcast_shapes(shape, ndim, tensors[i]->sizes, tensors[i]->ndim, shape, &ndim) != CT_OK)
            return ct_last_error_code();
    for (int i = 0; i < n; i++) {
        ct_tensor v;
        ct__broadcast_view(&v, tensors[i], shape, ndim);
        out[i] = ct__view_of(tensors[i], v.sizes, v.strides, ndim, v.offset);
        if (!out[i]) {
            while (i > 0) ct__discard(out[--i]);
            return ct_last_error_code();
        }
    }
    return CT_OK;
}

/* ---------------------------------------------------------------- repeat and tile */

/* out (contiguous) and x seen as (reps[0], x0, reps[1], x1, ...), x
 * broadcast over the reps dims, size-1 dims left out; false when that still
 * needs more than CT_MAX_DIMS dims. */
static bool ct__repeat_views(const ct_tensor *out, const ct_tensor *x, const int64_t *reps, int nd, ct_tensor *ov,
                             ct_tensor *xv)
{
    int64_t os[CT_MAX_DIMS], ost[CT_MAX_DIMS], xst[CT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < nd; i++) {
        int64_t size[2] = {reps[i], x->sizes[i]}, ostep[2] = {x->sizes[i] * out->strides[i], out->strides[i]};
        int64_t xstep[2] = {0, x->strides[i]};
        for (int k = 0; k < 2; k++) {
            if (size[k] == 1) continue;
            if (n == CT_MAX_DIMS) return false;
            os[n] = size[k];
            ost[n] = ostep[k];
            xst[n++] = xstep[k];
        }
    }
    ct__ix_subview(ov, out, out->offset, os, ost, n);
    ct__ix_subview(xv, x, x->offset, os, xst, n);
    return true;
}

/* out = x tiled reps[i] times along each of its nd dims: one copy, or, for
 * ranks the views cannot hold, one per repeat of the first repeated dim. */
static void ct__repeat_into(const ct_tensor *out, const ct_tensor *x, const int64_t *reps, int nd)
{
    ct_tensor ov, xv;
    if (ct__repeat_views(out, x, reps, nd, &ov, &xv)) {
        ct__be(out)->copy(&ov, &xv, false);
        return;
    }
    int64_t reps1[CT_MAX_DIMS], sizes[CT_MAX_DIMS];
    int d = 0;
    while (reps[d] == 1) d++; /* there is one, or the views would fit */
    memcpy(reps1, reps, sizeof(int64_t) * (size_t)nd);
    memcpy(sizes, out->sizes, sizeof(int64_t) * (size_t)nd);
    reps1[d] = 1;
    sizes[d] = x->sizes[d];
    for (int64_t j = 0; j < reps[d]; j++) {
        ct_tensor block;
        ct__ix_subview(&block, out, out->offset + j * x->sizes[d] * out->strides[d], sizes, out->strides, nd);
        ct__repeat_into(&block, x, reps1, nd);
    }
}

static ct_tensor *ct__repeat(const ct_tensor *t, ct_shape repeats)
{
    int64_t xs[CT_MAX_DIMS], xst[CT_MAX_DIMS], target[CT_MAX_DIMS];
    char buf[256];
    if (repeats.ndim < t->ndim) {
        ct__fail(CT_ERR_RUNTIME,
                 "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
        return NULL;
    }
    if (repeats.ndim > CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "repeat: ctorch supports at most %d dimensions", CT_MAX_DIMS);
        return NULL;
    }
    int nd = repeats.ndim, lead = nd - t->ndim;
    for (int i = 0; i < nd; i++) {
        xs[i] = i < lead ? 1 : t->sizes[i - lead];
        xst[i] = i < lead ? 0 : t->strides[i - lead];
        if (!ct__mul_ok(xs[i], repeats.size[i], &target[i])) {
            ct__fail(CT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s",
                     ct__shape_str(repeats.size, nd, buf, sizeof buf));
            return NULL;
        }
    }
    ct_device_guard on = ct_device_guard_begin(t->storage->device); /* made on t's device, not the default */
    ct_tensor *out = ct_empty(ct_shape_make(nd, target), t->dtype);
    ct_device_guard_end(on);
    if (!out || ct_numel(out) == 0) return out;
    ct_tensor x;
    ct__ix_subview(&x, t, t->offset, xs, xst, nd);
    ct__repeat_into(out, &x, repeats.size, nd);
    return out;
}

ct_tensor *ct_repeat(const ct_tensor *t, ct_shape repeats)
{
    CT__ARG(t, "self", 1);
    ct__join_args a = ct__join_args_init(0);
    a.shape = repeats;
    return ct__join_recorded(ct__repeat(t, repeats), CT__JG_REPEAT, t, NULL, &a);
}

ct_tensor *ct_tile(const ct_tensor *t, ct_shape dims)
{
    CT__ARG(t, "input", 1);
    if (dims.ndim >= 0 && dims.ndim < t->ndim) { /* leading 1s up to t's rank */
        int lead = t->ndim - dims.ndim;
        memmove(dims.size + lead, dims.size, sizeof(int64_t) * (size_t)dims.ndim);
        for (int i = 0; i < lead; i++) dims.size[i] = 1;
        dims.ndim = t->ndim;
    }
    return ct_repeat(t, dims);
}

/* ---------------------------------------------------------------- repeat_interleave */

/* torch.repeat_interleave(repeats) for a 1-D (or expanded) repeats tensor. */
static ct_tensor *ct__repeats_index(const ct_tensor *repeats)
{
    if (repeats->dtype != CT_I64 && repeats->dtype != CT_I32) {
        ct__fail(CT_ERR_RUNTIME, "\"repeat_interleave_cpu\" not implemented for '%s'", ct__dtype_title(repeats->dtype));
        return NULL;
    }
    if (repeats->ndim != 1) {
        ct__fail(CT_ERR_RUNTIME, "repeat_interleave only accept 1D vector as repeat");
        return NULL;
    }
    if (repeats->sizes[0] == 0) return ct__alloc(repeats->sizes, 1, repeats->dtype, repeats->storage->device);
    ct__index_job st = ct__index_stats(repeats, 0, INT64_MAX);
    if (st.min < 0) {
        ct__fail(CT_ERR_RUNTIME, "repeats can not be negative");
        return NULL;
    }
    if (ct__check_shape(ct_shape_make(1, &st.sum), "repeat_interleave") != CT_OK) return NULL; /* the sum wrapped */
    ct_tensor *out = ct__alloc(&st.sum, 1, repeats->dtype, repeats->storage->device);
    if (out && st.sum) {
        ct__index_job job;
        memset(&job, 0, sizeof job);
        job.kind = CT__INDEX_REPEATS;
        job.dst = out;
        job.src = repeats;
        ct__be(out)->index(&job);
    }
    return out;
}

ct_tensor *ct_repeat_interleave_index(const ct_tensor *repeats)
{
    CT__ARG(repeats, "repeats", 1);
    return ct__repeats_index(repeats);
}

/* repeat_interleave of t (flattened when dim is NULL) by a tensor of repeats.
 * A tensor of repeats must be on t's device (index_select's check); an int
 * (ours, made on the CPU) counts as made on t's, as PyTorch makes it there. */
static ct_tensor *ct__repeat_interleave(const ct_tensor *t, const ct_tensor *repeats, const int *dim, bool int_repeats)
{
    ct_scope s = ct_scope_begin();
    const ct_tensor *input = dim ? t : ct_reshape(t, CT_SHAPE(-1));
    int d = dim ? *dim : 0;
    ct_tensor *r = NULL;
    if (input && (d = ct__wrap_dim_strict(d, input->ndim)) >= 0) { /* input.size(dim) */
        int64_t size = input->sizes[d], zero = 0;
        ct_tensor rep; /* one count for every slice: expanded without a copy */
        if (repeats->ndim == 0 || (repeats->ndim == 1 && repeats->sizes[0] == 1))
            ct__ix_subview(&rep, repeats, repeats->offset, &size, &zero, 1);
        else
            rep = *repeats;
        if (repeats->ndim > 1) ct__fail(CT_ERR_RUNTIME, "repeats must be 0-dim or 1-dim tensor");
        else if (rep.sizes[0] != size) ct__fail(CT_ERR_RUNTIME, "repeats must have the same size as input along dim");
        else {
            ct_tensor *ix = ct__repeats_index(&rep);
            if (ix && int_repeats) ix = ct_to_device(ix, input->storage->device, false);
            r = ct_keep(ct_index_select(input, d, ix));
        }
    }
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_repeat_interleave_tensor(const ct_tensor *t, const ct_tensor *repeats)
{
    CT__ARG(t, "input", 1);
    CT__ARG(repeats, "repeats", 2);
    return ct__repeat_interleave(t, repeats, NULL, false);
}

ct_tensor *ct_repeat_interleave_tensor_dim(const ct_tensor *t, const ct_tensor *repeats, int dim)
{
    CT__ARG(t, "input", 1);
    CT__ARG(repeats, "repeats", 2);
    return ct__repeat_interleave(t, repeats, &dim, false);
}

/* A 0-d int64 tensor on the stack holding repeats, as PyTorch makes one for an int. */
static ct_tensor *ct__repeats_scalar(ct__stack_scalar *ss, int64_t repeats)
{
    ct_tensor *t = ct__stack_scalar_init(ss, ct_int(repeats));
    t->wrapped_number = false;
    return t;
}

ct_tensor *ct_repeat_interleave(const ct_tensor *t, int64_t repeats)
{
    ct__stack_scalar ss;
    CT__ARG(t, "input", 1);
    return ct__repeat_interleave(t, ct__repeats_scalar(&ss, repeats), NULL, true);
}

ct_tensor *ct_repeat_interleave_dim(const ct_tensor *t, int64_t repeats, int dim)
{
    ct__stack_scalar ss;
    CT__ARG(t, "input", 1);
    return ct__repeat_interleave(t, ct__repeats_scalar(&ss, repeats), &dim, true);
}

/* ---------------------------------------------------------------- flip and roll */

static ct_tensor *ct__flip(const ct_tensor *t, ct_shape dims)
{
    bool flip[CT_MAX_DIMS] = {false};
    if (dims.ndim < 0 || dims.ndim > CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "flip: ctorch takes at most %d dims", CT_MAX_DIMS);
        return NULL;
    }
    for (int i = 0; i < dims.ndim; i++) {
        int d = ct__wrap_dim(dims.size[i], t->ndim);
        if (d < 0) return NULL;
        if (flip[d]) {
            ct__fail(CT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims", d);
            return NULL;
        }
        flip[d] = true;
    }
    ct_tensor *out = ct__empty_preserve(t);
    if (!out || ct_numel(out) == 0) return out;
    /* read t backwards along the flipped dims: a view with negative strides */
    ct_tensor src;
    int64_t strides[CT_MAX_DIMS], offset = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        strides[d] = flip[d] ? -t->strides[d] : t->strides[d];
        if (flip[d]) offset += (t->sizes[d] - 1) * t->strides[d];
    }
    ct__ix_subview(&src, t, offset, t->sizes, strides, t->ndim);
    ct__be(out)->copy(out, &src, false);
    return out;
}

ct_tensor *ct_flip(const ct_tensor *t, ct_shape dims)
{
    CT__ARG(t, "input", 1);
    ct__join_args a = ct__join_args_init(0);
    a.dims = dims;
    return ct__join_recorded(ct__flip(t, dims), CT__JG_FLIP, t, NULL, &a);
}

/* roll along one dim, as PyTorch's roll_cpu: the two parts swapped by cat. */
static ct_tensor *ct__roll1(const ct_tensor *t, int64_t shift, int dim)
{
    if (ct_numel(t) == 0) return ct__clone_preserve(t);
    int d = ct__wrap_dim_strict(dim, t->ndim); /* self.size(dim) */
    if (d < 0) return NULL;
    /* (size - shift) % size as PyTorch computes it, wrapping on overflow */
    int64_t size = t->sizes[d], start = (int64_t)((uint64_t)size - (uint64_t)shift) % size;
    start += start < 0 ? size : 0;
    ct_tensor parts[2];
    ct_tensor *ptrs[2] = {&parts[0], &parts[1]};
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    sizes[d] = size - start;
    ct__ix_subview(&parts[0], t, t->offset + start * t->strides[d], sizes, t->strides, t->ndim);
    sizes[d] = start;
    ct__ix_subview(&parts[1], t, t->offset, sizes, t->strides, t->ndim);
    return ct__cat(ptrs, 2, &d);
}

static ct_tensor *ct__roll(const ct_tensor *t, ct_shape shifts, ct_shape dims)
{
    if (shifts.ndim > CT_MAX_DIMS || dims.ndim < 0 || dims.ndim > CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "roll: ctorch takes at most %d dims", CT_MAX_DIMS);
        return NULL;
    }
    if (dims.ndim == 1 && shifts.ndim == 1) return ct__roll1(t, shifts.size[0], (int)dims.size[0]);
    if (shifts.ndim <= 0) {
        ct__fail(CT_ERR_RUNTIME, "`shifts` required");
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r = NULL;
    if (dims.ndim == 0 && shifts.ndim == 1) { /* the flattened tensor, viewed back */
        ct_tensor *flat = ct_reshape(ct_contiguous(t), CT_SHAPE(-1));
        r = flat ? ct_view(ct__roll1(flat, shifts.size[0], 0), ct_shape_of(t)) : NULL;
    } else if (shifts.ndim != dims.ndim) {
        ct__fail(CT_ERR_RUNTIME, "shifts and dimensions must align. shifts: %d, dims:%d", shifts.ndim, dims.ndim);
    } else { /* one dim after the other */
        r = ct__same(t);
        for (int i = 0; r && i < dims.ndim; i++) r = ct__roll1(r, shifts.size[i], (int)dims.size[i]);
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_roll(const ct_tensor *t, ct_shape shifts, ct_shape dims)
{
    CT__ARG(t, "input", 1);
    ct_tensor *r;
    ct__join_args a = ct__join_args_init(0);
    a.shape = shifts;
    a.dims = dims;
    CT__UNRECORDED(r, ct__roll(t, shifts, dims));
    return ct__join_recorded(r, CT__JG_ROLL, t, NULL, &a);
}

/* ---------------------------------------------------------------- gather and scatter */

/* The index's values must lie in [lo, hi); fmt words the error for the first that does not. */
static ct_result ct__check_range(const ct_tensor *index, int64_t lo, int64_t hi, ct_result code, const char *fmt,
                                 int d)
{
    if (ct_numel(index) == 0) return CT_OK;
    ct__index_job st = ct__index_stats(index, lo, hi);
    if (!st.out_of_range) return CT_OK;
    return ct__fail(code, fmt, (long long)st.first_bad, d, (long long)hi);
}

static const char ct__msg_bounds[] = "index %lld is out of bounds for dimension %d with size %lld";

/* gather's checks on a nonempty index (gather_shape_check). */
static ct_result ct__gather_checks(const ct_tensor *t, int d, const ct_tensor *index)
{
    char b1[256], b2[256];
    if (index->dtype != CT_I64) return ct__fail(CT_ERR_RUNTIME, "gather(): Expected dtype int64 for index");
    if (CT__MAX(t->ndim, 1) != CT__MAX(index->ndim, 1))
        return ct__fail(CT_ERR_RUNTIME, "Index tensor must have the same number of dimensions as input tensor");
    for (int k = 0; k < CT__MAX(t->ndim, 1); k++)
        if (k != d && ct__ne_size(index, k) > ct__ne_size(t, k))
            return ct__fail(CT_ERR_RUNTIME,
                            "Size does not match at dimension %d expected index %s to be smaller than self %s apart "
                            "from dimension %d",
                            k, ct__shape_str(index->sizes, index->ndim, b1, sizeof b1),
                            ct__shape_str(t->sizes, t->ndim, b2, sizeof b2), d);
    return CT_OK;
}

static ct_tensor *ct__gather(const ct_tensor *t, int dim, const ct_tensor *index)
{
    if (ct__same_device(t, index, NULL) != CT_OK) return NULL;
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0 || (ct_numel(index) && ct__gather_checks(t, d, index) != CT_OK)) return NULL;
    ct_tensor *out = ct__alloc(index->sizes, index->ndim, t->dtype, t->storage->device);
    ct__index_job job = ct__job(CT__INDEX_GATHER, d);
    /* the kernel checks the indices; the first bad one is looked for only when there is one */
    if (out && ct_numel(out) && !ct__run_index(&job, out, t, NULL, index)) {
        ct__check_range(index, 0, ct__ne_size(t, d), CT_ERR_RUNTIME, ct__msg_bounds, d);
        ct__discard(out);
        return NULL;
    }
    return out;
}

ct_tensor *ct_gather(const ct_tensor *t, int dim, const ct_tensor *index)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    ct__join_args a = ct__index_args(dim, index);
    return ct__join_recorded(ct__gather(t, dim, index), CT__JG_GATHER, t, NULL, &a);
}

/* scatter_shape_check, including its quirk: a src of lower (nonzero) rank
 * fails on the first dim it lacks, as src.size(d) does. */
static ct_result ct__scatter_shape_check(const ct_tensor *self, int d, const ct_tensor *index, const ct_tensor *src)
{
    char b1[256], b2[256], b3[256];
    int nd = CT__MAX(self->ndim, 1);
    bool wrong = false;
    if (ct_numel(index) == 0) return CT_OK;
    if (nd != CT__MAX(index->ndim, 1))
        return ct__fail(CT_ERR_RUNTIME, "Index tensor must have the same number of dimensions as self tensor");
    for (int k = 0; k < nd && !wrong; k++) wrong = k != d && ct__ne_size(index, k) > ct__ne_size(self, k);
    for (int k = 0; src && k < nd && !wrong; k++) {
        if (src->ndim && k >= src->ndim) return ct__wrap_dim(k, src->ndim) < 0 ? ct_last_error_code() : CT_OK;
        wrong = ct__ne_size(index, k) > ct__ne_size(src, k);
    }
    if (src && CT__MAX(src->ndim, 1) != nd)
        return ct__fail(CT_ERR_RUNTIME, "Index tensor must have the same number of dimensions as src tensor");
    if (!wrong) return CT_OK;
    ct__shape_str(index->sizes, index->ndim, b1, sizeof b1);
    ct__shape_str(self->sizes, self->ndim, b2, sizeof b2);
    if (!src)
        return ct__fail(CT_ERR_RUNTIME, "Expected index %s to be smaller than self %s apart from dimension %d", b1, b2,
                        d);
    return ct__fail(CT_ERR_RUNTIME,
                    "Expected index %s to be smaller than self %s apart from dimension %d and to be smaller size than "
                    "src %s",
                    b1, b2, d, ct__shape_str(src->sizes, src->ndim, b3, sizeof b3));
}

/* The kernel for scatter's reduce argument: NULL replaces; "add" and "multiply" combine. */
static ct_result ct__scatter_kind(const char *reduce, bool reducing, bool inplace, ct__index_kind *kind)
{
    *kind = CT__INDEX_SCATTER;
    if (!reducing) return CT_OK;
    if (!reduce) return ct__fail(CT_ERR_TYPE, "scatter%s(): argument 'reduce' must be str, not NULL", inplace ? "_" : "");
    if (!strcmp(reduce, "add")) *kind = CT__INDEX_SCATTER_ADD;
    else if (!strcmp(reduce, "multiply")) *kind = CT__INDEX_SCATTER_MUL;
    else return ct__fail(CT_ERR_RUNTIME, "reduce argument must be either add or multiply.");
    return CT_OK;
}

/* Every scatter form: src (or value, when src is NULL) into *self (in place)
 * or into a new copy of self returned in *result. add: scatter_add. */
static ct_result ct__scatter(ct_tensor *self, bool inplace, int dim, const ct_tensor *index, const ct_tensor *src,
                             ct_scalar value, const char *reduce, bool reducing, bool add, ct_tensor **result)
{
    ct__index_kind kind;
    uint64_t elem = 0, one = 0;
    ct_result r; /* a leaf that requires grad is refused by the in-place callers */
    if ((r = ct__same_device(self, index, src)) != CT_OK) return r;
    int d = ct__wrap_dim(dim, self->ndim);
    if (d < 0) return ct_last_error_code();
    if (ct_numel(index) && index->dtype != CT_I64)
        return ct__fail(CT_ERR_RUNTIME, "scatter(): Expected dtype int64 for index");
    if (src && src->dtype != self->dtype)
        return ct__fail(CT_ERR_RUNTIME, "scatter(): Expected self.dtype to be equal to src.dtype");
    r = ct__scatter_shape_check(self, d, index, src);
    if (r == CT_OK && inplace) r = ct__check_no_overlap(self, index, src);
    if (r == CT_OK) r = ct__scatter_kind(reduce, reducing, inplace, &kind);
    if (r != CT_OK) return r;
    if (add) kind = CT__INDEX_SCATTER_ADD;
    int64_t size = ct__ne_size(self, d);
    if (ct_numel(index)) {
        /* in place, nothing may be written before every index is known good */
        if (inplace && (r = ct__check_range(index, 0, size, CT_ERR_RUNTIME, ct__msg_bounds, d)) != CT_OK) return r;
        if (!src && (r = ct__scalar_to_elem(value, self->dtype, &elem)) != CT_OK) return r;
        ct__scalar_to_elem(ct_int(1), self->dtype, &one);
    }
    ct_tensor *out = inplace ? self : ct__fresh_copy(self);
    if (!out) return ct_last_error_code();
    ct__index_job job = ct__job(kind, d);
    job.alpha = &one;
    if (ct_numel(index) && !ct__run_index(&job, out, src, &elem, index)) {
        ct__discard(out);
        return ct__check_range(index, 0, size, CT_ERR_RUNTIME, ct__msg_bounds, d);
    }
    if (result) *result = out;
    return CT_OK;
}

/* Which scatter node a form records (PyTorch has no derivative for the reducing forms). */
static ct__join_grad ct__scatter_grad(const ct_tensor *src, bool reducing, bool add)
{
    if (reducing) return CT__JG_NOT_IMPLEMENTED;
    if (add) return CT__JG_SCATTER_ADD;
    return src ? CT__JG_SCATTER : CT__JG_SCATTER_VALUE;
}

static ct_tensor *ct__scatter_new(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src,
                                  ct_scalar value, const char *reduce, bool reducing, bool add)
{
    ct_tensor *r = NULL;
    ct__join_args a = ct__index_args(dim, index);
    if (ct__scatter((ct_tensor *)t, false, dim, index, src, value, reduce, reducing, add, &r) != CT_OK) return NULL;
    return ct__join_recorded(r, ct__scatter_grad(src, reducing, add), t, src, &a);
}

static ct_result ct__scatter_inplace(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src,
                                     ct_scalar value, const char *reduce, bool reducing, bool add)
{
    ct_result r = ct__check_inplace_grad(t, &src, src ? 1 : 0);
    ct__join_args a = ct__index_args(dim, index);
    if (r == CT_OK) r = ct__scatter(t, true, dim, index, src, value, reduce, reducing, add, NULL);
    return ct__join_inplace_done(r, ct__scatter_grad(src, reducing, add), t, src, &a);
}

ct_tensor *ct_scatter(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(src, "src", 4);
    return ct__scatter_new(t, dim, index, src, ct_int(0), NULL, false, false);
}

ct_result ct_scatter_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(src, "src", 4);
    return ct__scatter_inplace(t, dim, index, src, ct_int(0), NULL, false, false);
}

ct_tensor *ct_scatter_scalar(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    return ct__scatter_new(t, dim, index, NULL, value, NULL, false, false);
}

ct_result ct_scatter_scalar_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    return ct__scatter_inplace(t, dim, index, NULL, value, NULL, false, false);
}

ct_tensor *ct_scatter_with_reduce(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src,
                                  const char *reduce)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(src, "src", 4);
    return ct__scatter_new(t, dim, index, src, ct_int(0), reduce, true, false);
}

ct_result ct_scatter_with_reduce_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src,
                                  const char *reduce)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(src, "src", 4);
    return ct__scatter_inplace(t, dim, index, src, ct_int(0), reduce, true, false);
}

ct_tensor *ct_scatter_scalar_with_reduce(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value,
                                         const char *reduce)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    return ct__scatter_new(t, dim, index, NULL, value, reduce, true, false);
}

ct_result ct_scatter_scalar_with_reduce_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value,
                                         const char *reduce)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    return ct__scatter_inplace(t, dim, index, NULL, value, reduce, true, false);
}

ct_tensor *ct_scatter_add(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(src, "src", 4);
    return ct__scatter_new(t, dim, index, src, ct_int(0), NULL, false, true);
}

ct_result ct_scatter_add_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(src, "src", 4);
    return ct__scatter_inplace(t, dim, index, src, ct_int(0), NULL, false, true);
}

/* ---------------------------------------------------------------- index_select */

static ct_tensor *ct__index_select(const ct_tensor *t, int dim, const ct_tensor *index)
{
    if (ct__same_device(t, index, NULL) != CT_OK) return NULL;
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return NULL;
    if (index->ndim > 1) {
        ct__fail(CT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
        return NULL;
    }
    if (index->dtype != CT_I64 && index->dtype != CT_I32) {
        ct__fail(CT_ERR_RUNTIME, "index_select(): Expected dtype int32 or int64 for index");
        return NULL;
    }
    int64_t n = ct_numel(index), sizes[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    if (t->ndim) sizes[d] = n;
    /* PyTorch's paths word range errors differently: an empty self and its
     * dim-1 fast path check every index first, with caffe2's message */
    if (t->ndim > 1 && n && (ct_numel(t) == 0 || d == 1)) {
        if (t->sizes[d] <= 0) {
            ct__fail(CT_ERR_RUNTIME, "index_select(): self indexing axis dim should be positive");
            return NULL;
        }
        ct__index_job st = ct__index_stats(index, 0, t->sizes[d]);
        if (st.out_of_range) {
            ct__fail(CT_ERR_RUNTIME, "INDICES element is out of DATA bounds, id=%lld axis_dim=%lld",
                     (long long)st.first_bad, (long long)t->sizes[d]);
            return NULL;
        }
    } else if (n) {
        ct__index_job st = ct__index_stats(index, 0, t->ndim > 1 ? t->sizes[d] : ct_numel(t));
        if (st.out_of_range) {
            ct__fail(CT_ERR_INDEX, "index out of range in self");
            return NULL;
        }
    }
    ct_tensor *out = ct__alloc(sizes, t->ndim, t->dtype, t->storage->device);
    if (!out || ct_numel(out) == 0) return out;
    if (t->ndim == 0) { /* every index is 0: the value itself (none: zero, not garbage) */
        if (n) ct__copy_unchecked(out, t);
        else ct_zero_(out);
        return out;
    }
    ct_scope s = ct_scope_begin();
    const ct_tensor *ix = ct__index_i64(index);
    if (ix) {
        ct_tensor iv;
        ct__index_job job = ct__job(CT__INDEX_GATHER, d);
        ct__index_along(&iv, ix, out->sizes, out->ndim, d);
        ct__run_index(&job, out, t, NULL, &iv);
    }
    ct_scope_end(s);
    if (!ix) ct__discard(out);
    return ix ? out : NULL;
}

ct_tensor *ct_index_select(const ct_tensor *t, int dim, const ct_tensor *index)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    ct__join_args a = ct__index_args(dim, index);
    return ct__join_recorded(ct__index_select(t, dim, index), CT__JG_INDEX_SELECT, t, NULL, &a);
}

/* ---------------------------------------------------------------- index_add */

/* index_add_'s checks before any data is read (index_func_meta_impl). */
static ct_result ct__index_add_checks(const ct_tensor *self, int d, const ct_tensor *index, const ct_tensor *source)
{
    char buf[256];
    if (index->ndim > 1)
        return ct__fail(CT_ERR_INDEX,
                        "index_add_(): Index is supposed to be a vector, but got dim: %d with type: %s and size: %s",
                        index->ndim, ct__dtype_title(index->dtype),
                        ct__shape_str(index->sizes, index->ndim, buf, sizeof buf));
    if (index->dtype != CT_I64 && index->dtype != CT_I32)
        return ct__fail(CT_ERR_RUNTIME, "index_add_(): Expected dtype int32/int64 for index but got: %s",
                        ct__dtype_title(index->dtype));
    if (self->dtype != source->dtype)
        return ct__fail(CT_ERR_RUNTIME, "index_add_(): self (%s) and source (%s) must have the same scalar type",
                        ct__dtype_title(self->dtype), ct__dtype_title(source->dtype));
    if (d != 0 && d >= source->ndim)
        return ct__fail(CT_ERR_RUNTIME,
                        "index_add_(): Indexing dim %d is out of bounds of the source tensor with dim %d", d,
                        source->ndim);
    int64_t n = ct_numel(index);
    if (source->ndim == 0 && n != 1) return ct__wrap_dim_strict(d, 0) < 0 ? ct_last_error_code() : CT_OK;
    if (source->ndim && n != source->sizes[d])
        return ct__fail(CT_ERR_RUNTIME,
                        "index_add_(): Number of indices (%lld) should be equal to source.size(dim): (%lld), for "
                        "dim: %d",
                        (long long)n, (long long)source->sizes[d], d);
    return CT_OK;
}

/* For self with more than one dim, source's slices (source without dim d)
 * broadcast to self's slices as add_ broadcasts them: src gets the strides
 * that see source with self's sizes (n along d). */
static ct_result ct__index_add_source(const ct_tensor *self, int d, const ct_tensor *source, int64_t n, ct_tensor *src)
{
    int64_t ss[CT_MAX_DIMS], fs[CT_MAX_DIMS], shape[CT_MAX_DIMS], sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    char b1[256], b2[256];
    int ns = 0, nf = 0, nb = 0;
    if (source->ndim == 0) return ct__fail(CT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    for (int k = 0; k < source->ndim; k++)
        if (k != d) ss[ns++] = source->sizes[k];
    for (int k = 0; k < self->ndim; k++)
        if (k != d) fs[nf++] = self->sizes[k];
    if (ct__broadcast_shapes(fs, nf, ss, ns, shape, &nb) != CT_OK) return ct_last_error_code();
    if (nb != nf || memcmp(shape, fs, sizeof(int64_t) * (size_t)nf))
        return ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        ct__shape_str(fs, nf, b1, sizeof b1), ct__shape_str(shape, nb, b2, sizeof b2));
    for (int k = 0, p = 0; k < self->ndim; k++) {
        sizes[k] = k == d ? n : self->sizes[k];
        if (k == d) {
            strides[k] = source->strides[d];
            continue;
        }
        int q = p++ - (nf - ns), sk = q < d ? q : q + 1; /* the source dim that aligns with self's dim k */
        strides[k] = q < 0 || source->sizes[sk] == 1 ? 0 : source->strides[sk];
    }
    ct__ix_subview(src, source, source->offset, sizes, strides, self->ndim);
    return CT_OK;
}

static ct_result ct__index_add(ct_tensor *self, bool inplace, int dim, const ct_tensor *index, const ct_tensor *source,
                               ct_scalar alpha, ct_tensor **result)
{
    uint64_t al = 0;
    ct_result r; /* a leaf that requires grad is refused by the in-place callers */
    if ((r = ct__same_device(self, index, source)) != CT_OK) return r;
    int d = ct__wrap_dim(dim, self->ndim);
    if (d < 0) return ct_last_error_code();
    r = ct__index_add_checks(self, d, index, source);
    if (r == CT_OK && inplace) r = ct__check_no_overlap(self, index, source);
    if (r != CT_OK) return r;
    int64_t n = ct_numel(index);
    ct_tensor src, iv;
    bool multi = self->ndim > 1;
    if (multi && n && (r = ct__index_add_source(self, d, source, n, &src)) != CT_OK) return r;
    if (!multi && source->ndim > 1)
        return ct__fail(CT_ERR_RUNTIME, "source.dim() (%d) must one or zero for given self.dim() (%d)", source->ndim,
                        self->ndim);
    if ((n || !multi) && (r = ct__scalar_to_elem(alpha, self->dtype, &al)) != CT_OK) return r;
    if (n && ct__index_stats(index, 0, multi ? self->sizes[d] : ct_numel(self)).out_of_range)
        return ct__fail(CT_ERR_INDEX, "index out of range in self");
    ct_scope s = ct_scope_begin();
    ct_tensor *out = inplace ? self : ct__fresh_copy(self);
    const ct_tensor *ix = out && n ? ct__index_i64(index) : NULL;
    if (ix) {
        int64_t sizes[CT_MAX_DIMS];
        int nd = multi ? self->ndim : 1, dd = multi ? d : 0;
        if (multi) memcpy(sizes, self->sizes, sizeof sizes);
        sizes[dd] = n;
        ct__index_along(&iv, ix, sizes, nd, dd);
        ct__index_job job = ct__job(CT__INDEX_SCATTER_ADD, dd);
        job.alpha = &al;
        job.fused = multi; /* PyTorch adds slices with add_ (fused in float32/64), single elements by hand */
        ct__run_index(&job, out, multi ? &src : source, NULL, &iv);
    }
    r = out && (ix || !n) ? CT_OK : ct_last_error_code();
    if (r == CT_OK && !inplace) *result = ct_keep(out);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_index_add(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(source, "source", 4);
    return ct_index_add_alpha(t, dim, index, source, ct_int(1));
}

ct_tensor *ct_index_add_alpha(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source,
                              ct_scalar alpha)
{
    ct_tensor *r = NULL;
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(source, "source", 4);
    ct__join_args a = ct__index_args(dim, index);
    a.has_alpha = true;
    a.alpha = alpha;
    if (ct__index_add((ct_tensor *)t, false, dim, index, source, alpha, &r) != CT_OK) return NULL;
    return ct__join_recorded(r, CT__JG_INDEX_ADD, t, source, &a);
}

ct_result ct_index_add_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(source, "source", 4);
    return ct_index_add_alpha_(t, dim, index, source, ct_int(1));
}

ct_result ct_index_add_alpha_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source, ct_scalar alpha)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(source, "source", 4);
    ct__join_args a = ct__index_args(dim, index);
    a.has_alpha = true;
    a.alpha = alpha;
    ct_result r = ct__check_inplace_grad(t, &source, 1);
    if (r == CT_OK) r = ct__index_add(t, true, dim, index, source, alpha, NULL);
    return ct__join_inplace_done(r, CT__JG_INDEX_ADD, t, source, &a);
}

/* ---------------------------------------------------------------- index_copy */

/* "2 4": how c10 prints the sizes of a slice (sizes without dim d; none for 0-d). */
static const char *ct__slice_str(const ct_tensor *t, int d, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int k = 0; k < t->ndim && len < n; k++)
        if (k != d) len += (size_t)snprintf(buf + len, n - len, len ? " %lld" : "%lld", (long long)t->sizes[k]);
    return buf;
}

static bool ct__same_slices(const ct_tensor *a, const ct_tensor *b, int d)
{
    int na = CT__MAX(a->ndim - 1, 0), nb = CT__MAX(b->ndim - 1, 0);
    if (na != nb) return false;
    for (int k = 0, i = 0, j = 0; k < na; k++, i++, j++) {
        i += i == d;
        j += j == d;
        if (a->sizes[i] != b->sizes[j]) return false;
    }
    return true;
}

static ct_result ct__index_copy(ct_tensor *self, bool inplace, int dim, const ct_tensor *index, const ct_tensor *source,
                                ct_tensor **result)
{
    char b1[256], b2[256];
    ct_result r; /* a leaf that requires grad is refused by the in-place callers */
    if ((r = ct__same_device(self, index, source)) != CT_OK) return r;
    int d = ct__wrap_dim(dim, self->ndim);
    if (d < 0) return ct_last_error_code();
    if (inplace && (r = ct__check_no_overlap(self, index, source)) != CT_OK) return r;
    int64_t n = ct_numel(index);
    if (index->ndim >= 2)
        return ct__fail(CT_ERR_INDEX, "index_copy_(): Index should have dimension 1 or 0 (got %d)", index->ndim);
    if (source->ndim == 0 && n != 1)
        return ct__fail(CT_ERR_INDEX, "index_copy_(): When source is scalar, index should have one element (got %lld)",
                        (long long)n);
    if (source->ndim != self->ndim && source->ndim != 0 && self->ndim != 0)
        return ct__fail(CT_ERR_INDEX,
                        "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
                        "Source dimensionality (%d), destination dimensionality (%d)",
                        source->ndim, self->ndim);
    if (index->dtype != CT_I64)
        return ct__fail(CT_ERR_RUNTIME, "index_copy_(): Expected a long tensor for index, but got %s",
                        ct__dtype_title(index->dtype));
    if (self->dtype != source->dtype)
        return ct__fail(CT_ERR_RUNTIME,
                        "index_copy_(): self and source expected to have the same dtype, but got (self) %s and "
                        "(source) %s",
                        ct__dtype_title(self->dtype), ct__dtype_title(source->dtype));
    if (!ct__same_slices(self, source, d))
        return ct__fail(CT_ERR_RUNTIME,
                        "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                        "shape: %s at dimension %d and source slice shape: %s at dimension 0.",
                        ct__slice_str(self, d, b1, sizeof b1), d, ct__slice_str(source, d, b2, sizeof b2));
    if (source->ndim && n != source->sizes[d])
        return ct__fail(CT_ERR_INDEX,
                        "index_copy_(): Number of indices (%lld) should be equal to source.size(dim) (%lld)",
                        (long long)n, (long long)source->sizes[d]);
    if (ct_numel(source) && (r = ct__check_range(index, 0, ct__ne_size(self, d), CT_ERR_INDEX,
                             "index_copy_(): index %lld is out of bounds for dimension %d with size %lld", d)) != CT_OK)
        return r;
    ct_tensor *out = inplace ? self : ct__fresh_copy(self);
    if (!out) return ct_last_error_code();
    if (n) {
        ct_tensor sv, iv;
        ct__view_1d(&sv, source);
        ct__index_job job = ct__job(CT__INDEX_SCATTER, d);
        ct__index_along(&iv, index, sv.sizes, sv.ndim, d);
        ct__run_index(&job, out, &sv, NULL, &iv);
    }
    if (result) *result = out;
    return CT_OK;
}

ct_tensor *ct_index_copy(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source)
{
    CT__AUTOCAST(CT__CAST_PROMOTE, ct_index_copy(t, dim, index, source), &t, &source);
    ct_tensor *r = NULL;
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(source, "source", 4);
    ct__join_args a = ct__index_args(dim, index);
    if (ct__index_copy((ct_tensor *)t, false, dim, index, source, &r) != CT_OK) return NULL;
    return ct__join_recorded(r, CT__JG_INDEX_COPY, t, source, &a);
}

ct_result ct_index_copy_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(source, "source", 4);
    ct__join_args a = ct__index_args(dim, index);
    ct_result r = ct__check_inplace_grad(t, &source, 1);
    if (r == CT_OK) r = ct__index_copy(t, true, dim, index, source, NULL);
    return ct__join_inplace_done(r, CT__JG_INDEX_COPY, t, source, &a);
}

/* ---------------------------------------------------------------- index_fill */

/* index_fill_ on self (which may share memory within itself: PyTorch only warns). */
static ct_result ct__index_fill_(ct_tensor *self, int dim, const ct_tensor *index, ct_scalar value)
{
    uint64_t elem = 0;
    if (ct__same_device(self, index, NULL) != CT_OK) return ct_last_error_code();
    if (index->dtype != CT_I64) return ct__fail(CT_ERR_INDEX, "index_fill_(): Expected dtype int64 for index.");
    ct__overlap lap = ct__overlap_of(self, index);
    if (lap == CT__OVERLAP_PARTIAL || lap == CT__OVERLAP_FULL)
        return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_partial_overlap);
    int d = ct__wrap_dim(dim, CT__MAX(self->ndim, 1));
    if (d < 0) return ct_last_error_code();
    if (index->ndim > 1) return ct__fail(CT_ERR_RUNTIME, "Index has to be a vector/scalar");
    ct_result r = ct__scalar_to_elem(value, self->dtype, &elem);
    int64_t size = ct__ne_size(self, d);
    if (r != CT_OK || ct_numel(index) == 0 || ct_numel(self) == 0) return r; /* nothing to visit, nothing checked */
    if ((r = ct__check_range(index, -size, size, CT_ERR_INDEX, ct__msg_bounds, d)) != CT_OK) return r;
    ct_tensor sv, iv;
    ct__view_1d(&sv, self);
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, sv.sizes, sizeof sizes);
    sizes[d] = ct_numel(index);
    ct__index_along(&iv, index, sizes, sv.ndim, d);
    ct__index_job job = ct__job(CT__INDEX_SCATTER, d);
    job.negatives = true;
    ct__run_index(&job, self, NULL, &elem, &iv);
    return CT_OK;
}

/* index_fill: a copy laid out like t (clone(preserve)), then filled. */
static ct_tensor *ct__index_fill(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value)
{
    if (ct__same_device(t, index, NULL) != CT_OK) return NULL; /* before the copy */
    ct_tensor *r = ct__clone_preserve(t);
    if (r && ct__index_fill_(r, dim, index, value) != CT_OK) {
        ct__discard(r);
        r = NULL;
    }
    return r;
}

static ct_result ct__check_value_0d(const ct_tensor *value, const char *fn)
{
    if (value->ndim == 0) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME,
                    "%s only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).", fn,
                    value->ndim);
}

ct_tensor *ct_index_fill(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *value)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(value, "value", 4);
    if (ct__check_value_0d(value, "index_fill_") != CT_OK) return NULL;
    ct__join_args a = ct__index_args(dim, index);
    return ct__join_recorded(ct__index_fill(t, dim, index, ct__item_scalar(value)), CT__JG_INDEX_FILL_TENSOR, t, value,
                             &a);
}

ct_result ct_index_fill_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *value)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(value, "value", 4);
    ct__join_args a = ct__index_args(dim, index);
    ct_result r = ct__check_inplace_grad(t, &value, 1);
    if (r == CT_OK) r = ct__check_value_0d(value, "index_fill_");
    if (r == CT_OK) r = ct__index_fill_(t, dim, index, ct__item_scalar(value));
    return ct__join_inplace_done(r, CT__JG_INDEX_FILL_TENSOR, t, value, &a);
}

ct_tensor *ct_index_fill_scalar(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    ct__join_args a = ct__index_args(dim, index);
    return ct__join_recorded(ct__index_fill(t, dim, index, value), CT__JG_INDEX_FILL, t, NULL, &a);
}

ct_result ct_index_fill_scalar_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    ct__join_args a = ct__index_args(dim, index);
    ct_result r = ct__check_inplace_grad(t, NULL, 0);
    if (r == CT_OK) r = ct__index_fill_(t, dim, index, value);
    return ct__join_inplace_done(r, CT__JG_INDEX_FILL, t, NULL, &a);
}

/* ---------------------------------------------------------------- masked_fill and masked_select */

/* The mask as the kernels read it: bool and uint8 as they are; PyTorch 1.13
 * reads any other dtype's elements by their first byte, and so does this view. */
static void ct__mask_bytes(ct_tensor *v, const ct_tensor *mask)
{
    int64_t es = (int64_t)ct__esize(mask), strides[CT_MAX_DIMS];
    for (int d = 0; d < mask->ndim; d++) strides[d] = mask->strides[d] * es;
    ct__ix_subview(v, mask, mask->offset * es, mask->sizes, strides, mask->ndim);
    v->dtype = CT_U8;
}

/* The number of set elements of a mask, or -1 (with PyTorch's error) when
 * some byte is neither 0 nor 1. */
static int64_t ct__mask_count(const ct_tensor *mask)
{
    if (ct_numel(mask) == 0) return 0;
    ct__index_job st = ct__index_stats(mask, 0, 2);
    if (!st.out_of_range) return st.nonzero;
    ct__fail(CT_ERR_RUNTIME, "Mask tensor can take 0 and 1 values only");
    return -1;
}

/* masked_fill_'s own device check (its value, a number, may live anywhere). */
static ct_result ct__masked_device(const ct_tensor *self, const ct_tensor *mask)
{
    char sm[64], ss[64];
    if (ct_device_equal(self->storage->device, mask->storage->device)) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME, "expected self and mask to be on the same device, but got mask on %s and self on %s",
                    ct_device_str(mask->storage->device, sm, sizeof sm),
                    ct_device_str(self->storage->device, ss, sizeof ss));
}

static ct_result ct__masked_fill_(ct_tensor *self, const ct_tensor *mask, ct_scalar value)
{
    char b1[256], b2[256];
    int64_t shape[CT_MAX_DIMS];
    int nd = 0;
    uint64_t elem = 0;
    if (ct__masked_device(self, mask) != CT_OK) return ct_last_error_code();
    if (ct__overlap_of(self, mask) == CT__OVERLAP_PARTIAL)
        return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_partial_overlap);
    if (ct__broadcast_shapes(self->sizes, self->ndim, mask->sizes, mask->ndim, shape, &nd) != CT_OK)
        return ct_last_error_code();
    if (nd != self->ndim || memcmp(shape, self->sizes, sizeof(int64_t) * (size_t)nd))
        return ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        ct__shape_str(self->sizes, self->ndim, b1, sizeof b1), ct__shape_str(shape, nd, b2, sizeof b2));
    ct_result r = ct__scalar_to_elem(value, self->dtype, &elem);
    if (r != CT_OK || ct_numel(self) == 0) return r;
    ct_tensor bytes, mv;
    ct__mask_bytes(&bytes, mask);
    ct__broadcast_view(&mv, &bytes, self->sizes, self->ndim);
    if (mask->dtype != CT_BOOL && ct__mask_count(&mv) < 0) return ct_last_error_code(); /* bools are 0 or 1 */
    ct__stack_scalar ss;
    ct__stack_scalar_init(&ss, ct_int(0));
    ss.t.dtype = self->dtype;
    ss.value = elem;
    ct__index_job job;
    memset(&job, 0, sizeof job);
    job.kind = CT__INDEX_MASKED_FILL;
    job.dst = self;
    job.src = &ss.t;
    job.index = &mv;
    job.serial = ct__has_internal_overlap(self);
    ct__be(self)->index(&job);
    return CT_OK;
}

/* masked_fill: self and mask broadcast together into a contiguous copy, then filled. */
static ct_tensor *ct__masked_fill(const ct_tensor *t, const ct_tensor *mask, const ct_tensor *value_t, ct_scalar value)
{
    int64_t shape[CT_MAX_DIMS];
    int nd = 0;
    if (ct__masked_device(t, mask) != CT_OK) return NULL; /* before the copy */
    if (ct__broadcast_shapes(mask->sizes, mask->ndim, t->sizes, t->ndim, shape, &nd) != CT_OK) return NULL;
    if (value_t && ct__check_value_0d(value_t, "masked_fill_") != CT_OK) return NULL;
    ct_tensor tv;
    ct__broadcast_view(&tv, t, shape, nd);
    ct_tensor *r = ct__alloc(shape, nd, t->dtype, t->storage->device);
    if (!r) return NULL;
    ct__copy_unchecked(r, &tv);
    if (ct__masked_fill_(r, mask, value_t ? ct__item_scalar(value_t) : value) != CT_OK) {
        ct__discard(r);
        return NULL;
    }
    return r;
}

ct_tensor *ct_masked_fill(const ct_tensor *t, const ct_tensor *mask, const ct_tensor *value)
{
    CT__ARG(t, "input", 1);
    CT__ARG(mask, "mask", 2);
    CT__ARG(value, "value", 3);
    ct__join_args a = ct__index_args(0, mask);
    return ct__join_recorded(ct__masked_fill(t, mask, value, ct_int(0)), CT__JG_MASKED_FILL_TENSOR, t, value, &a);
}

ct_result ct_masked_fill_(ct_tensor *t, const ct_tensor *mask, const ct_tensor *value)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(mask, "mask", 2);
    CT__ARG_R(value, "value", 3);
    ct__join_args a = ct__index_args(0, mask);
    ct_result r = ct__check_inplace_grad(t, &value, 1);
    if (r == CT_OK) r = ct__check_value_0d(value, "masked_fill_");
    if (r == CT_OK) r = ct__masked_fill_(t, mask, ct__item_scalar(value));
    return ct__join_inplace_done(r, CT__JG_MASKED_FILL_TENSOR, t, value, &a);
}

ct_tensor *ct_masked_fill_scalar(const ct_tensor *t, const ct_tensor *mask, ct_scalar value)
{
    CT__ARG(t, "input", 1);
    CT__ARG(mask, "mask", 2);
    ct__join_args a = ct__index_args(0, mask);
    return ct__join_recorded(ct__masked_fill(t, mask, NULL, value), CT__JG_MASKED_FILL, t, NULL, &a);
}

ct_result ct_masked_fill_scalar_(ct_tensor *t, const ct_tensor *mask, ct_scalar value)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(mask, "mask", 2);
    ct__join_args a = ct__index_args(0, mask);
    ct_result r = ct__check_inplace_grad(t, NULL, 0);
    if (r == CT_OK) r = ct__masked_fill_(t, mask, value);
    return ct__join_inplace_done(r, CT__JG_MASKED_FILL, t, NULL, &a);
}

static ct_tensor *ct__masked_select(const ct_tensor *t, const ct_tensor *mask)
{
    int64_t shape[CT_MAX_DIMS];
    int nd = 0;
    if (ct__same_device(t, mask, NULL) != CT_OK) return NULL;
    if (mask->dtype != CT_BOOL && mask->dtype != CT_U8) {
        ct__fail(CT_ERR_RUNTIME, "masked_select: expected BoolTensor or ByteTensor for mask");
        return NULL;
    }
    if (ct__broadcast_shapes(mask->sizes, mask->ndim, t->sizes, t->ndim, shape, &nd) != CT_OK) return NULL;
    ct_tensor tv, mv;
    ct__broadcast_view(&tv, t, shape, nd);
    ct__broadcast_view(&mv, mask, shape, nd);
    int64_t count = ct__mask_count(&mv);
    if (count < 0) return NULL;
    ct_tensor *out = ct__alloc(&count, 1, t->dtype, t->storage->device);
    if (out && count) {
        ct__index_job job;
        memset(&job, 0, sizeof job);
        job.kind = CT__INDEX_MASKED_SELECT;
        job.dst = out;
        job.src = &tv;
        job.index = &mv;
        ct__be(out)->index(&job);
    }
    return out;
}

ct_tensor *ct_masked_select(const ct_tensor *t, const ct_tensor *mask)
{
    CT__ARG(t, "input", 1);
    CT__ARG(mask, "mask", 2);
    ct_tensor *r = ct__masked_select(t, mask);
    if (!r || !ct__requires_grad(t)) return r;
    ct__join_args a = ct__index_args(0, mask);
    ct__broadcast_shapes(mask->sizes, mask->ndim, t->sizes, t->ndim, a.shape.size, &a.shape.ndim);
    return ct__join_recorded(r, CT__JG_MASKED_SELECT, t, NULL, &a);
}

/* ---------------------------------------------------------------- take and one_hot */

static ct_tensor *ct__take(const ct_tensor *t, const ct_tensor *index)
{
    static const int64_t one = 1;
    if (ct__same_device(t, index, NULL) != CT_OK) return NULL;
    if (index->dtype != CT_I64) {
        ct__fail(CT_ERR_RUNTIME, "take(): Expected a long tensor for index, but got %s", ct__dtype_title(index->dtype));
        return NULL;
    }
    int64_t numel = ct_numel(t), n = ct_numel(index);
    if (numel == 0 && n != 0) {
        ct__fail(CT_ERR_INDEX, "take(): tried to take from an empty tensor");
        return NULL;
    }
    ct_tensor *out = ct__alloc(index->sizes, index->ndim, t->dtype, t->storage->device);
    if (!out || n == 0) return out;
    /* a gather along the only dim of t and index seen flat; the kernel checks the indices */
    ct_scope s = ct_scope_begin();
    ct_tensor *flat = ct_reshape(t, CT_SHAPE(-1)), *ix = ct_reshape(index, CT_SHAPE(-1)), ov;
    ct__index_job job = ct__job(CT__INDEX_GATHER, 0);
    job.negatives = true;
    ct__ix_subview(&ov, out, 0, &n, &one, 1);
    bool ok = flat && ix && ct__run_index(&job, &ov, flat, NULL, ix);
    if (flat && ix && !ok) {
        ct__index_job st = ct__index_stats(index, -numel, numel);
        ct__fail(CT_ERR_INDEX, "out of range: tried to access index %lld on a tensor of %lld elements.",
                 (long long)st.first_bad, (long long)numel);
    }
    ct_scope_end(s);
    if (!ok) ct__discard(out);
    return ok ? out : NULL;
}

ct_tensor *ct_take(const ct_tensor *t, const ct_tensor *index)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 2);
    ct_tensor *r;
    ct__join_args a = ct__index_args(0, index);
    CT__UNRECORDED(r, ct__take(t, index));
    return ct__join_recorded(r, CT__JG_TAKE, t, NULL, &a);
}

ct_tensor *ct_one_hot(const ct_tensor *t, int64_t num_classes)
{
    CT__ARG(t, "input", 1);
    if (t->dtype != CT_I64) {
        ct__fail(CT_ERR_RUNTIME, "one_hot is only applicable to index tensor.");
        return NULL;
    }
    if (t->ndim == CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "one_hot: ctorch supports at most %d dimensions", CT_MAX_DIMS);
        return NULL;
    }
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    if (ct_numel(t) == 0) {
        if (num_classes <= 0) {
            ct__fail(CT_ERR_RUNTIME, "Can not infer total number of classes from empty tensor.");
            return NULL;
        }
        sizes[t->ndim] = num_classes;
        return ct__alloc(sizes, t->ndim + 1, CT_I64, t->storage->device);
    }
    ct__index_job st = ct__index_stats(t, 0, INT64_MAX);
    if (st.min < 0) {
        ct__fail(CT_ERR_RUNTIME, "Class values must be non-negative.");
        return NULL;
    }
    if (num_classes == -1 && st.max == INT64_MAX) { /* max + 1 wraps in PyTorch too, which then says */
        ct__fail(CT_ERR_RUNTIME, "IntArrayRef contains an int that cannot be represented as a SymInt: %lld",
                 (long long)INT64_MIN);
        return NULL;
    }
    if (num_classes == -1) num_classes = st.max + 1;
    else if (num_classes <= st.max) {
        ct__fail(CT_ERR_RUNTIME, "Class values must be smaller than num_classes.");
        return NULL;
    }
    sizes[t->ndim] = num_classes;
    ct_device_guard on = ct_device_guard_begin(t->storage->device); /* made on t's device, not the default */
    ct_tensor *out = ct_zeros(ct_shape_make(t->ndim + 1, sizes), CT_I64);
    ct_device_guard_end(on);
    if (!out) return NULL;
    /* scatter 1 along the new last dim at the class index */
    int64_t isizes[CT_MAX_DIMS], istrides[CT_MAX_DIMS];
    memcpy(isizes, t->sizes, sizeof isizes);
    memcpy(istrides, t->strides, sizeof istrides);
    isizes[t->ndim] = 1;
    istrides[t->ndim] = 1;
    ct_tensor iv;
    ct__ix_subview(&iv, t, t->offset, isizes, istrides, t->ndim + 1);
    int64_t one = 1;
    ct__index_job job = ct__job(CT__INDEX_SCATTER, t->ndim);
    ct__run_index(&job, out, NULL, &one, &iv);
    return out;
}
