/* Backward formulas of joining, splitting, indexing (join.c records them)
 * and copying (copy.c and create.c).
 * Gradients of a selection are put back with index_add or scatter_add into
 * zeros, and those are differentiable in turn, so every formula here has a
 * double backward. */

/* What a join node keeps beyond its saved index (or mask). */
typedef struct ct__join_extra {
    ct_shape shape, dims; /* repeat: repeats; flip: dims; roll: shifts and dims; masked_select: broadcast shape */
    int n_lengths;
    int64_t *lengths; /* cat: each input's length along dim, -1 for a skipped legacy empty input */
} ct__join_extra;

#define CT__DIM ((int)n->iargs[0])
#define CT__EXTRA ((const ct__join_extra *)n->extra)
#define CT__IN_SHAPE(i) ct_shape_make(ct__input_meta(n, i)->ndim, ct__input_meta(n, i)->sizes)

/* Zeros shaped and typed as input i. */
static ct_tensor *ct__zeros_as_input(const ct__node *n, int i)
{
    const ct__out_meta *m = ct__input_meta(n, i);
    return ct_zeros(ct_shape_make(m->ndim, m->sizes), m->dtype);
}

CT__BACKWARD(cat)
{
    const ct__join_extra *x = CT__EXTRA;
    int64_t at = 0;
    for (int i = 0; i < x->n_lengths; i++) {
        int64_t len = x->lengths[i];
        CT__GRAD(i, len < 0 ? ct__zeros_as_input(n, i) : ct_narrow(go[0], CT__DIM, at, len));
        at += len < 0 ? 0 : len;
    }
    return CT_OK;
}

CT__BACKWARD(stack)
{
    for (int i = 0; i < n->n_next; i++) CT__GRAD(i, ct_select(go[0], CT__DIM, i));
    return CT_OK;
}

CT__BACKWARD(split) /* the pieces' gradients joined back (zeros for pieces that got none) */
{
    CT__GRAD(0, ct_cat(go, n->n_out, CT__DIM));
    return CT_OK;
}

CT__BACKWARD(unbind)
{
    CT__GRAD(0, ct_stack(go, n->n_out, CT__DIM));
    return CT_OK;
}

/* repeat: each dim d of the result is repeats[d] blocks of the input's size;
 * the blocks' gradients add up. Dims are folded one at a time so the rank
 * never grows by more than one. */
static ct_tensor *ct__repeat_backward(const ct_tensor *g, const ct_shape *reps, const ct__out_meta *in)
{
    int lead = reps->ndim - in->ndim;
    ct_tensor *r = (ct_tensor *)g;
    if (lead > 0) {
        ct_shape dims = CT_SHAPE0;
        for (int d = 0; d < lead; d++) dims.size[dims.ndim++] = d;
        r = ct_sum_dim(r, dims, false, CT_DEFAULT);
    }
    for (int d = 0; d < in->ndim && r; d++) {
        if (reps->size[lead + d] == 1) continue;
        int64_t split[CT_MAX_DIMS + 1];
        memcpy(split, r->sizes, sizeof(int64_t) * (size_t)d);
        split[d] = reps->size[lead + d];
        split[d + 1] = in->sizes[d];
        memcpy(split + d + 2, r->sizes + d + 1, sizeof(int64_t) * (size_t)(r->ndim - d - 1));
        r = ct_sum_dim(ct_reshape(r, ct_shape_make(r->ndim + 1, split)), CT_SHAPE(d), false, CT_DEFAULT);
    }
    return r;
}

CT__BACKWARD(repeat)
{
    CT__GRAD(0, ct__repeat_backward(go[0], &CT__EXTRA->shape, ct__input_meta(n, 0)));
    return CT_OK;
}

CT__BACKWARD(flip)
{
    CT__GRAD(0, ct_flip(go[0], CT__EXTRA->dims));
    return CT_OK;
}

CT__BACKWARD(roll)
{
    ct_shape back = CT__EXTRA->shape;
    for (int i = 0; i < back.ndim; i++) back.size[i] = -back.size[i];
    CT__GRAD(0, ct_roll(go[0], back, CT__EXTRA->dims));
    return CT_OK;
}

CT__BACKWARD(gather)
{
    CT__GRAD(0, ct_scatter_add(ct__zeros_as_input(n, 0), CT__DIM, CT__S(0), go[0]));
    return CT_OK;
}

CT__BACKWARD(scatter) /* the written places got src's gradient */
{
    CT__GRAD(0, ct_scatter_scalar(go[0], CT__DIM, CT__S(0), ct_int(0)));
    if (n->n_next > 1) CT__GRAD(1, ct_gather(go[0], CT__DIM, CT__S(0)));
    return CT_OK;
}

CT__BACKWARD(scatter_add)
{
    CT__GRAD(0, go[0]);
    CT__GRAD(1, ct_gather(go[0], CT__DIM, CT__S(0)));
    return CT_OK;
}

CT__BACKWARD(index_select)
{
    CT__GRAD(0, ct_index_add(ct__zeros_as_input(n, 0), CT__DIM, CT__S(0), go[0]));
    return CT_OK;
}

/* The rows of g that index picked, shaped as input i (a 0-d source of a 1-d self). */
static ct_tensor *ct__picked(ct__node *n, const ct_tensor *g, int i)
{
    return ct_reshape(ct_index_select(g, CT__DIM, CT__S(0)), CT__IN_SHAPE(i));
}

CT__BACKWARD(index_add)
{
    CT__GRAD(0, go[0]);
    CT__GRAD(1, ct__times_alpha(ct__picked(n, go[0], 1), n));
    return CT_OK;
}

CT__BACKWARD(index_overwrite) /* index_fill and index_copy: the overwritten rows get nothing */
{
    CT__GRAD(0, ct_index_fill_scalar(go[0], CT__DIM, CT__S(0), ct_int(0)));
    if (n->n_next < 2) return CT_OK;
    if (n->iargs[1]) CT__GRAD(1, ct_sum(ct_index_select(go[0], CT__DIM, CT__S(0)))); /* a 0-d fill value */
    else CT__GRAD(1, ct__picked(n, go[0], 1));
    return CT_OK;
}

CT__BACKWARD(masked_fill)
{
    ct_tensor *mask = CT__S(0);
    CT__GRAD(0, ct_masked_fill_scalar(go[0], mask, ct_int(0)));
    if (n->n_next > 1) CT__GRAD(1, ct_sum(ct_where_scalar_other(mask, go[0], ct_int(0))));
    return CT_OK;
}

/* Element k of a flat selection came from flat position positions[k] of a
 * tensor of `shape`: its gradient goes back there (and adds up on repeats). */
static ct_tensor *ct__flat_put_back(const ct_tensor *g, const ct_tensor *positions, ct_shape shape, ct_dtype dtype)
{
    int64_t numel = 1;
    for (int d = 0; d < shape.ndim; d++) numel *= shape.size[d];
    ct_tensor *flat = ct_index_add(ct_zeros(CT_SHAPE(numel), dtype), 0, positions, ct_reshape(g, CT_SHAPE(-1)));
    return ct_reshape(flat, shape);
}

CT__BACKWARD(masked_select) /* positions of the mask's true elements in the broadcast shape */
{
    ct_shape b = CT__EXTRA->shape;
    const ct__out_meta *in = ct__input_meta(n, 0);
    ct_tensor *where = ct_reshape(ct_nonzero(ct_reshape(ct_broadcast_to(CT__S(0), b), CT_SHAPE(-1))), CT_SHAPE(-1));
    ct_tensor *g = where ? ct__flat_put_back(go[0], where, b, in->dtype) : NULL;
    CT__GRAD(0, g ? ct__sum_to_shape(g, in->sizes, in->ndim) : NULL);
    return CT_OK;
}

CT__BACKWARD(take) /* negative indices count from the end; also tensor[index] with positions saved */
{
    ct_shape shape = CT__IN_SHAPE(0);
    int64_t numel = 1;
    for (int d = 0; d < shape.ndim; d++) numel *= shape.size[d];
    ct_tensor *at = ct_reshape(CT__S(0), CT_SHAPE(-1));
    if (numel > 0) at = ct_remainder_scalar(at, ct_int(numel));
    CT__GRAD(0, at ? ct__flat_put_back(go[0], at, shape, ct__input_meta(n, 0)->dtype) : NULL);
    return CT_OK;
}

/* t[index] = value: the written places of t get nothing; value gets what
 * they got, summed over the places it was broadcast to. */
/* index_put's value gradient: the output's gradient (flat) at the positions
 * written (at, flat), summed to value's shape. */
static ct_result ct__index_put_value_grad(ct__node *n, ct_tensor *const *go, ct_tensor **gi, ct_tensor *flat,
                                          ct_tensor *at)
{
    if (!ct__needs_grad(n, 1)) return CT_OK;
    const ct__out_meta *v = ct__input_meta(n, 1);
    int lead = 0; /* setitem drops value's leading 1s before it broadcasts */
    while (lead < v->ndim && v->sizes[lead] == 1) lead++;
    ct_tensor *picked = ct_reshape(ct_index_select(flat, 0, at), ct_shape_of(CT__S(0)));
    ct_tensor *summed = picked ? ct__sum_to_shape(picked, v->sizes + lead, v->ndim - lead) : NULL;
    (void)go;
    CT__GRAD(1, summed ? ct_reshape(summed, CT__IN_SHAPE(1)) : NULL);
    return CT_OK;
}

/* self's gradient is the output's but where the write replaced it */
CT__BACKWARD(index_put)
{
    ct_tensor *at = ct_reshape(CT__S(0), CT_SHAPE(-1)), *flat = ct_reshape(go[0], CT_SHAPE(-1));
    CT__GRAD(0, ct_reshape(ct_index_fill_scalar(flat, 0, at, ct_int(0)), CT__IN_SHAPE(0)));
    return ct__index_put_value_grad(n, go, gi, flat, at);
}

/* accumulate=True: self's gradient is the output's whole */
CT__BACKWARD(index_put_accumulate)
{
    CT__GRAD(0, go[0]);
    return ct__index_put_value_grad(n, go, gi, ct_reshape(go[0], CT_SHAPE(-1)), ct_reshape(CT__S(0), CT_SHAPE(-1)));
}

CT__BACKWARD(not_implemented)
{
    (void)n, (void)go, (void)gi;
    return ct__fail(CT_ERR_RUNTIME, "derivative for aten::scatter is not implemented");
}

#undef CT__DIM
#undef CT__EXTRA
#undef CT__IN_SHAPE

/* indexed by ct__join_grad */
static const ct__node_type ct__join_types[] = {
    {"CatBackward0", ct__bw_cat},
    {"StackBackward0", ct__bw_stack},
    {"SplitBackward0", ct__bw_split},
    {"SplitWithSizesBackward0", ct__bw_split},
    {"UnbindBackward0", ct__bw_unbind},
    {"RepeatBackward0", ct__bw_repeat},
    {"FlipBackward0", ct__bw_flip},
    {"RollBackward0", ct__bw_roll},
    {"GatherBackward0", ct__bw_gather},
    {"ScatterBackward0", ct__bw_scatter},
    {"ScatterBackward1", ct__bw_scatter},
    {"ScatterAddBackward0", ct__bw_scatter_add},
    {"IndexSelectBackward0", ct__bw_index_select},
    {"IndexAddBackward0", ct__bw_index_add},
    {"IndexFillBackward0", ct__bw_index_overwrite},
    {"IndexFillBackward1", ct__bw_index_overwrite},
    {"IndexCopyBackward0", ct__bw_index_overwrite},
    {"MaskedFillBackward0", ct__bw_masked_fill},
    {"MaskedFillBackward1", ct__bw_masked_fill},
    {"MaskedSelectBackward0", ct__bw_masked_select},
    {"TakeBackward0", ct__bw_take},
    {"IndexBackward0", ct__bw_take}, /* saved: the flat positions taken */
    {"IndexPutBackward0", ct__bw_index_put},
    {"torch::autograd::CopySlices", ct__bw_index_put},
    {"torch::autograd::CopyBackwards", ct__bw_index_put},
    {"IndexPutBackward0", ct__bw_index_put_accumulate},
    {"torch::autograd::NotImplemented", ct__bw_not_implemented},
};

static ct__join_extra *ct__join_extra_new(const ct__join_args *a)
{
    size_t bytes = sizeof(ct__join_extra) + (size_t)CT__MAX(a->n_lengths, 0) * sizeof(int64_t);
    ct__join_extra *x = (ct__join_extra *)CT_MALLOC(bytes);
    if (!x) {
        CT__OOM();
        return NULL;
    }
    x->shape = a->shape;
    x->dims = a->dims;
    x->n_lengths = a->n_lengths;
    x->lengths = (int64_t *)(x + 1);
    if (a->n_lengths > 0) memcpy(x->lengths, a->lengths, (size_t)a->n_lengths * sizeof(int64_t));
    return x;
}

static bool ct__record_join(ct__join_grad kind, const ct_tensor *const *in, int n_in, ct_tensor *const *out, int n_out,
                            const ct__join_args *a)
{
    for (int k = 0; k < n_out; k++)
        if (!out[k]) return true;
    if (!ct__grad_mode()) return true;
    if (ct__recordable(in, n_in) != CT_OK) return false;
    if (!ct__records(in, n_in)) return true;
    ct__join_extra *x = ct__join_extra_new(a);
    if (!x) return false;
    ct__node *n = ct__record(&ct__join_types[kind], in, n_in, out, n_out);
    if (!n) {
        CT_FREE(x);
        return ct__recorded_ok(n, in, n_in);
    }
    n->extra = x;
    n->iargs[0] = a->dim;
    n->iargs[1] = kind == CT__JG_INDEX_FILL_TENSOR;
    n->pw.has_value = a->has_alpha;
    n->pw.value = a->alpha;
    if (a->index) ct__save(n, a->index, false);
    return !n->save_failed;
}

/* ---------------------------------------------------------------- copies */

#define CT__K (n->iargs[0])

CT__BACKWARD(to_copy)
{
    const ct__out_meta *in = ct__input_meta(n, 0); /* back to the input's dtype and device */
    CT__GRAD(0, ct__to_device(go[0], in->device, in->dtype, false));
    return CT_OK;
}

CT__BACKWARD(copy) /* self was overwritten; src was broadcast and cast into it */
{
    CT__GRAD(0, ct_zeros_like(go[0], CT_DEFAULT));
    if (!ct__needs_grad(n, 1)) return CT_OK;
    const ct__out_meta *src = ct__input_meta(n, 1);
    CT__GRAD(1, ct_to(ct__sum_to_shape(go[0], src->sizes, src->ndim), src->dtype));
    return CT_OK;
}

/* diag of a vector made a matrix: its diagonal k is the gradient. diag of
 * a matrix read its diagonal k: the gradient goes back to those places. */
CT__BACKWARD(diag)
{
    const ct__out_meta *in = ct__input_meta(n, 0);
    if (in->ndim == 1) {
        CT__GRAD(0, ct_diagonal(go[0], CT__K, 0, 1));
        return CT_OK;
    }
    int64_t cols = in->sizes[1], first = CT__K >= 0 ? CT__K : -CT__K * cols; /* flat place of the first element */
    ct_tensor *at = ct_add_scalar(ct_mul_scalar(ct_arange(ct_int(0), ct_int(go[0]->sizes[0]), ct_int(1), CT_I64),
                                                ct_int(cols + 1)),
                                  ct_int(first));
    CT__GRAD(0, at ? ct__flat_put_back(go[0], at, ct_shape_make(in->ndim, in->sizes), in->dtype) : NULL);
    return CT_OK;
}

CT__BACKWARD(tril)
{
    CT__GRAD(0, ct_tril(go[0], CT__K));
    return CT_OK;
}

CT__BACKWARD(triu)
{
    CT__GRAD(0, ct_triu(go[0], CT__K));
    return CT_OK;
}

#undef CT__K

/* indexed by ct__copy_grad */
static const ct__node_type ct__copy_types[] = {
    {"CloneBackward0", ct__bw_identity},
    {"ToCopyBackward0", ct__bw_to_copy},
    {"FillBackward2", ct__bw_zero},
    {"ZeroBackward0", ct__bw_zero},
    {"torch::autograd::CopyBackwards", ct__bw_copy},
    {"DiagBackward0", ct__bw_diag},
    {"TrilBackward0", ct__bw_tril},
    {"TriuBackward0", ct__bw_triu},
    {"PinMemoryBackward0", ct__bw_identity},
};

static bool ct__record_copy(ct__copy_grad kind, ct_tensor *out, const ct_tensor *input, const ct_tensor *src, int64_t k)
{
    const ct_tensor *in[2] = {input, src};
    if (!out) return true;
    if (ct__recordable(in, src ? 2 : 1) != CT_OK) return false;
    ct__node *n = ct__record(&ct__copy_types[kind], in, src ? 2 : 1, &out, 1);
    if (n) n->iargs[0] = k;
    return ct__recorded_ok(n, in, src ? 2 : 1);
}
