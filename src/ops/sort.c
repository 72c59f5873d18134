/* Sorting and selection: PyTorch's argument checks, output shapes and
 * layouts, then the backend's kernels (ct_backend.sorting). */

/* The job on its tensors' device (a searched number is a 0-d CPU tensor
 * beside the boundaries; ct__searchsorted refused other mixes). */
static ct_result ct__sorting(ct__op op, ct__sort_job *job)
{
    const ct_tensor *in[3] = {job->input, job->boundaries, job->sorter};
    ct_device dev;
    ct_result r = ct__common_device(in, 3, true, &dev);
    return r == CT_OK ? ct__backend_for(dev.type)->sorting(op, job) : r;
}

/* Set the caller's result pointers to NULL (those given). */
static void ct__sort_clear_results(ct_tensor **a, ct_tensor **b, ct_tensor **c)
{
    if (a) *a = NULL;
    if (b) *b = NULL;
    if (c) *c = NULL;
}

/* Hand a result on to the caller's pointer, when there is one. */
static void ct__sort_hand_on(ct_tensor **dst, ct_tensor *t)
{
    if (dst) *dst = ct_keep(t);
}

static ct_result ct__sort_not_implemented(const char *kernel, ct_dtype dt)
{
    return ct__fail(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel, ct__dtype_title(dt));
}

/* ---------------------------------------------------------------- values and indices */

/* The values' node of sort, topk or kthvalue: the gradient goes back to
 * where the indices say (along dim, which `reduced` outputs lack); false
 * when refused (ct__record_reduce). */
static bool ct__sort_record(ct__op op, const ct__sort_job *job, ct_tensor *v, const ct_tensor *i, bool reduced)
{
    ct__reduce_rec rec = ct__reduce_rec_of(0, !reduced);
    rec.dim = job->dim;
    rec.alt = op == CT__OP_sort && job->stable;
    rec.indices = i;
    return ct__record_reduce(op == CT__OP_sort ? CT__RG_SORT : op == CT__OP_topk ? CT__RG_TOPK : CT__RG_KTHVALUE,
                             &v, 1, job->input, &rec);
}

/* Run sort, topk or kthvalue into new outputs of the given sizes and strides
 * (NULL: contiguous); values only when wanted. With `reduced` the outputs
 * lack job->dim, which the kernel sees as a dim of size 1. A 0-d input gives
 * itself and index 0. */
static ct_result ct__values_indices(ct__op op, ct__sort_job *job, const int64_t *sizes, const int64_t *strides,
                                    int ndim, bool reduced, ct_tensor **values, ct_tensor **indices)
{
    const ct_tensor *t = job->input;
    ct_scope s = ct_scope_begin();
    ct_tensor *v = values ? ct__alloc_strided(sizes, strides, ndim, t->dtype, t->storage->device) : NULL;
    ct_tensor *i = ct__alloc_strided(sizes, strides, ndim, CT_I64, t->storage->device);
    ct_result r = i && (v || !values) ? CT_OK : ct_last_error_code();
    if (r == CT_OK && t->ndim == 0) {
        if (v) ct__copy_unchecked(v, t);
        ct__fill_double(i, 0);
    } else if (r == CT_OK && ct_numel(i) > 0) {
        job->values = v && reduced ? ct_unsqueeze(v, job->dim) : v;
        job->indices = reduced ? ct_unsqueeze(i, job->dim) : i;
        r = job->indices && (job->values || !v) ? ct__sorting(op, job) : ct_last_error_code();
    }
    if (r == CT_OK && v && !ct__sort_record(op, job, v, i, reduced)) r = ct_last_error_code();
    if (r == CT_OK) {
        ct__sort_hand_on(values, v);
        ct__sort_hand_on(indices, i);
    }
    ct_scope_end(s);
    return r;
}

static ct__sort_job ct__sort_job_for(const ct_tensor *t, int dim)
{
    ct__sort_job job;
    memset(&job, 0, sizeof job);
    job.input = t;
    job.dim = dim;
    return job;
}

ct_result ct_sort(const ct_tensor *input, int dim, bool descending, bool stable, ct_tensor **values,
                  ct_tensor **indices)
{
    ct__sort_clear_results(values, indices, NULL);
    CT__ARG_R(input, "input", 1);
    int d = ct__wrap_dim(dim, input->ndim);
    if (d < 0) return ct_last_error_code();
    /* like the input when it is dense, else dense in the input's dim order */
    int64_t strides[CT_MAX_DIMS];
    if (ct__is_dense(input)) memcpy(strides, input->strides, sizeof strides);
    else ct__dense_strides_for(&input, 1, input->sizes, input->ndim, strides);
    ct__sort_job job = ct__sort_job_for(input, d);
    job.descending = descending;
    job.stable = stable;
    return ct__values_indices(CT__OP_sort, &job, input->sizes, strides, input->ndim, false, values, indices);
}

ct_tensor *ct_argsort(const ct_tensor *input, int dim, bool descending, bool stable)
{
    ct_tensor *indices = NULL;
    CT__ARG(input, "input", 1);
    return ct_sort(input, dim, descending, stable, NULL, &indices) == CT_OK ? indices : NULL;
}

ct_result ct_topk(const ct_tensor *input, int64_t k, int dim, bool largest, bool sorted, ct_tensor **values,
                  ct_tensor **indices)
{
    ct__sort_clear_results(values, indices, NULL);
    CT__ARG_R(input, "input", 1);
    int d = ct__wrap_dim(dim, input->ndim);
    if (d < 0) return ct_last_error_code();
    if (k < 0 || k > (input->ndim ? input->sizes[d] : 1))
        return ct__fail(CT_ERR_RUNTIME, "selected index k out of range");
    /* PyTorch looks for a kernel unless it just copies a 0-d input */
    if (input->dtype == CT_BOOL && input->ndim) return ct__sort_not_implemented("topk_cpu", input->dtype);
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, input->sizes, sizeof sizes);
    if (input->ndim) sizes[d] = k;
    ct__sort_job job = ct__sort_job_for(input, d);
    job.k = k;
    job.descending = largest;
    job.sorted = sorted;
    return ct__values_indices(CT__OP_topk, &job, sizes, NULL, input->ndim, false, values, indices);
}

ct_result ct_kthvalue(const ct_tensor *input, int64_t k, int dim, bool keepdim, ct_tensor **values,
                      ct_tensor **indices)
{
    ct__sort_clear_results(values, indices, NULL);
    CT__ARG_R(input, "input", 1);
    int d = ct__wrap_dim(dim, input->ndim);
    if (d < 0) return ct_last_error_code();
    int64_t n = input->ndim ? input->sizes[d] : 1;
    if (n == 0)
        return ct__fail(CT_ERR_INDEX, "kthvalue(): Expected reduction dim %d to have non-zero size.", d);
    if (k < 1 || k > n)
        return ct__fail(CT_ERR_RUNTIME, "kthvalue(): selected number k out of range for dimension %d", d);
    if (input->dtype == CT_BOOL && input->ndim) return ct__sort_not_implemented("kthvalue_cpu", input->dtype);
    int64_t sizes[CT_MAX_DIMS];
    int ndim = input->ndim;
    memcpy(sizes, input->sizes, sizeof sizes);
    if (ndim && keepdim) sizes[d] = 1;
    else if (ndim) memmove(sizes + d, sizes + d + 1, (size_t)(--ndim - d) * sizeof(int64_t));
    ct__sort_job job = ct__sort_job_for(input, d);
    job.k = k;
    return ct__values_indices(CT__OP_kthvalue, &job, sizes, NULL, ndim, input->ndim && !keepdim, values, indices);
}

/* ---------------------------------------------------------------- unique */

/* unique and unique_consecutive of the flattened input. */
static ct_result ct__unique_flat(ct__op op, const ct_tensor *input, bool sorted, ct_tensor **output,
                                 ct_tensor **inverse, ct_tensor **counts)
{
    ct_scope s = ct_scope_begin();
    ct__sort_job job = ct__sort_job_for(ct_contiguous(input), -1);
    job.sorted = sorted;
    job.want_inverse = inverse != NULL;
    job.want_counts = counts != NULL;
    ct_result r = job.input ? ct__sorting(op, &job) : ct_last_error_code();
    if (r == CT_OK) {
        ct__sort_hand_on(output, job.values);
        ct__sort_hand_on(inverse, job.indices);
        ct__sort_hand_on(counts, job.counts);
    }
    ct_scope_end(s);
    return r;
}

ct_result ct_unique(const ct_tensor *input, bool sorted, ct_tensor **output, ct_tensor **inverse, ct_tensor **counts)
{
    ct__sort_clear_results(output, inverse, counts);
    CT__ARG_R(input, "input", 1);
    return ct__unique_flat(CT__OP_unique, input, sorted, output, inverse, counts);
}

ct_result ct_unique_consecutive(const ct_tensor *input, ct_tensor **output, ct_tensor **inverse, ct_tensor **counts)
{
    ct__sort_clear_results(output, inverse, counts);
    CT__ARG_R(input, "input", 1);
    return ct__unique_flat(CT__OP_unique_consecutive, input, false, output, inverse, counts);
}

/* unique_dim's refusals of zero-size dims, and its answer when the dim itself is empty. */
static ct_result ct__unique_dim_empty(const ct_tensor *input, int d, ct_tensor **output, ct_tensor **inverse,
                                      ct_tensor **counts)
{
    int zero_dims = 0;
    for (int i = 0; i < input->ndim; i++) zero_dims += input->sizes[i] == 0;
    if (input->sizes[d] != 0)
        return ct__fail(CT_ERR_RUNTIME,
                        "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
    if (zero_dims > 1)
        return ct__fail(CT_ERR_RUNTIME,
                        "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    int64_t none = 0;
    ct_scope s = ct_scope_begin();
    ct__sort_hand_on(output, ct__alloc(input->sizes, input->ndim, input->dtype, input->storage->device));
    ct__sort_hand_on(inverse, ct__alloc(&none, 1, CT_I64, input->storage->device));
    ct__sort_hand_on(counts, ct__alloc(&none, 1, CT_I64, input->storage->device));
    ct_scope_end(s);
    return (output && !*output) || (inverse && !*inverse) || (counts && !*counts) ? ct_last_error_code() : CT_OK;
}

/* unique and unique_consecutive of the slices along dim: the dim swapped
 * with the first (as PyTorch 1.13 does: that order of the other dims is the
 * order in which slices compare), the rest flattened into rows, and the
 * unique rows swapped back. */
static ct_result ct__unique_dim(ct__op op, const ct_tensor *input, int dim, ct_tensor **output, ct_tensor **inverse,
                                ct_tensor **counts)
{
    int d = ct__wrap_dim_strict(dim, input->ndim);
    if (d < 0) return ct_last_error_code();
    if (ct_numel(input) == 0) return ct__unique_dim_empty(input, d, output, inverse, counts);
    const int64_t rows_cols[2] = {input->sizes[d], -1};
    ct_scope s = ct_scope_begin();
    ct_tensor *moved = ct_transpose(input, 0, d);
    ct__sort_job job = ct__sort_job_for(ct_reshape(ct_contiguous(moved), ct_shape_make(2, rows_cols)), 0);
    job.want_inverse = true;
    job.want_counts = counts != NULL;
    ct_result r = job.input ? ct__sorting(op, &job) : ct_last_error_code();
    if (r == CT_OK) {
        ct_shape rows = ct_shape_of(moved);
        rows.size[0] = -1;
        ct__sort_hand_on(output, ct_transpose(ct_view(job.values, rows), 0, d));
        ct__sort_hand_on(inverse, job.indices);
        ct__sort_hand_on(counts, job.counts);
        r = output && !*output ? ct_last_error_code() : CT_OK;
    }
    ct_scope_end(s);
    return r;
}

ct_result ct_unique_dim(const ct_tensor *input, int dim, bool sorted, ct_tensor **output, ct_tensor **inverse,
                        ct_tensor **counts)
{
    (void)sorted; /* PyTorch sorts the slices either way */
    ct__sort_clear_results(output, inverse, counts);
    CT__ARG_R(input, "input", 1);
    return ct__unique_dim(CT__OP_unique, input, dim, output, inverse, counts);
}

ct_result ct_unique_consecutive_dim(const ct_tensor *input, int dim, ct_tensor **output, ct_tensor **inverse,
                                    ct_tensor **counts)
{
    ct__sort_clear_results(output, inverse, counts);
    CT__ARG_R(input, "input", 1);
    return ct__unique_dim(CT__OP_unique_consecutive, input, dim, output, inverse, counts);
}

/* ---------------------------------------------------------------- nonzero */

ct_tensor *ct_nonzero(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    ct_scope s = ct_scope_begin();
    ct__sort_job job = ct__sort_job_for(ct_contiguous(input), -1);
    ct_tensor *r = job.input && ct__sorting(CT__OP_nonzero, &job) == CT_OK ? ct_keep(job.indices) : NULL;
    ct_scope_end(s);
    return r;
}

ct_result ct_nonzero_as_tuple(const ct_tensor *input, ct_tensor **out, int *count)
{
    if (count) *count = 0;
    CT__ARG_R(input, "input", 1);
    if (!out || !count) return ct__fail(CT_ERR_VALUE, "nonzero_as_tuple(): out and count must not be NULL");
    /* a 0-d input counts as one element of a 1-D one, as in PyTorch */
    ct_scope s = ct_scope_begin();
    ct_tensor *nz = ct_nonzero(input->ndim ? input : ct_unsqueeze(input, 0));
    int n = CT__MAX(1, input->ndim);
    for (int j = 0; nz && j < n; j++) out[j] = ct_select(nz, 1, j);
    ct_result r = nz ? CT_OK : ct_last_error_code();
    for (int j = 0; r == CT_OK && j < n; j++) ct_keep(out[j]);
    ct_scope_end(s);
    if (r == CT_OK) *count = n;
    return r;
}

/* ---------------------------------------------------------------- searchsorted */

/* searchsorted_pre_check: everything PyTorch checks before looking at values. */
static ct_result ct__searchsorted_check(const ct_tensor *bd, const ct_tensor *in, ct_searchsorted_opts o)
{
    char b1[256], b2[256];
    if (o.side && strcmp(o.side, "left") && strcmp(o.side, "right"))
        return ct__fail(CT_ERR_RUNTIME, "torch.searchsorted(): side can only be 'left' or 'right' but got %s", o.side);
    if (o.side && o.right && strcmp(o.side, "right"))
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): side and right can't be set to opposites, got side of %s while right "
                        "was True", o.side);
    if (o.sorter && (o.sorter->ndim != bd->ndim || memcmp(o.sorter->sizes, bd->sizes, (size_t)bd->ndim * 8)))
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor "
                        "%sand got sorter tensor %s", ct__shape_str(bd->sizes, bd->ndim, b1, sizeof b1),
                        ct__shape_str(o.sorter->sizes, o.sorter->ndim, b2, sizeof b2));
    if (o.sorter && o.sorter->dtype != CT_I64)
        return ct__fail(CT_ERR_RUNTIME, "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype %s",
                        ct__dtype_title(o.sorter->dtype));
    if (in->ndim == 0 && bd->ndim != 1)
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is "
                        "1, but we got boundaries tensor dim(%d) and input value's dim(%d) numel(%lld)",
                        bd->ndim, in->ndim, (long long)ct_numel(in));
    if (bd->ndim == 0)
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
    if (bd->ndim != 1 && (bd->ndim != in->ndim || memcmp(bd->sizes, in->sizes, (size_t)(bd->ndim - 1) * 8)))
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                        "boundaries tensor and input value tensor must match, but we got boundaries tensor %s and "
                        "input value tensor %s", ct__shape_str(bd->sizes, bd->ndim, b1, sizeof b1),
                        ct__shape_str(in->sizes, in->ndim, b2, sizeof b2));
    if (o.out_int32 && bd->sizes[bd->ndim - 1] >= INT_MAX)
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): the size of boundaries' last dimension should be less than %d, but we "
                        "got %lld", INT_MAX, (long long)bd->sizes[bd->ndim - 1]);
    return CT_OK;
}

/* PyTorch 1.13 reads out of bounds for a sorter index outside the last dim;
 * later releases refuse it, and so does ctorch. */
static ct_result ct__check_sorter_range(const ct_tensor *sorter)
{
    ct_scope s = ct_scope_begin();
    const ct_tensor *c = ct__host(ct_contiguous(sorter));
    const int64_t *p = c ? (const int64_t *)ct__data(c) : NULL;
    int64_t n = ct_numel(sorter), inner = sorter->sizes[sorter->ndim - 1];
    bool bad = false;
    for (int64_t i = 0; p && i < n; i++) bad |= p[i] < 0 || p[i] >= inner;
    ct_result r = !c ? ct_last_error_code() : CT_OK;
    ct_scope_end(s);
    return bad ? ct__fail(CT_ERR_RUNTIME, "torch.searchsorted(): sorter index out of range") : r;
}

/* The kernel's dtype: the promoted one, float16 and bfloat16 compared as the
 * float32 values they are exactly. */
static const ct_tensor *ct__search_operand(const ct_tensor *t, ct_dtype common, ct__stack_scalar *ss)
{
    const ct_tensor *c = ct__operand_as(t, common, false, ss);
    if (c && (common == CT_F16 || common == CT_BF16)) c = ct_to(c, CT_F32);
    return c && !c->wrapped_number ? ct_contiguous(c) : c;
}

static ct_tensor *ct__searchsorted(const ct_tensor *bd, const ct_tensor *in, ct_searchsorted_opts o)
{
    const ct_tensor *all[3] = {bd, in, o.sorter};
    ct_device dev;
    if (ct__searchsorted_check(bd, in, o) != CT_OK || ct__common_device(all, 3, true, &dev) != CT_OK ||
        (o.sorter && ct__check_sorter_range(o.sorter) != CT_OK))
        return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *out = ct__alloc(in->sizes, in->ndim, o.out_int32 ? CT_I32 : CT_I64, dev);
    const ct_tensor *pair[2] = {bd, in};
    ct_dtype common = ct__result_type(pair, 2);
    ct_result r = out ? CT_OK : ct_last_error_code();
    if (r == CT_OK && ct_numel(in) > 0 && common == CT_BOOL)
        r = ct__sort_not_implemented("searchsorted_out_cpu", common);
    if (r == CT_OK && ct_numel(in) > 0) {
        ct__stack_scalar ss[2];
        ct__sort_job job = ct__sort_job_for(ct__search_operand(in, common, &ss[0]), -1);
        job.boundaries = ct__search_operand(bd, common, &ss[1]);
        job.sorter = o.sorter ? ct_contiguous(o.sorter) : NULL;
        job.indices = out;
        job.right = o.side ? !strcmp(o.side, "right") : o.right;
        r = job.input && job.boundaries && (job.sorter || !o.sorter) ? ct__sorting(CT__OP_searchsorted, &job)
                                                                     : ct_last_error_code();
    }
    if (r == CT_OK) ct_keep(out);
    ct_scope_end(s);
    return r == CT_OK ? out : NULL;
}

ct_tensor *ct_searchsorted(const ct_tensor *sorted_sequence, const ct_tensor *input, ct_searchsorted_opts opts)
{
    CT__ARG(sorted_sequence, "sorted_sequence", 1);
    CT__ARG(input, "input", 2);
    return ct__searchsorted(sorted_sequence, input, opts);
}

ct_tensor *ct_searchsorted_scalar(const ct_tensor *sorted_sequence, ct_scalar value, ct_searchsorted_opts opts)
{
    ct__stack_scalar ss;
    CT__ARG(sorted_sequence, "sorted_sequence", 1);
    return ct__searchsorted(sorted_sequence, ct__stack_scalar_init(&ss, value), opts);
}
