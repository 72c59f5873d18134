/* Backward formulas of the views (view.c records them). */

/* A view's backward. Reshapes, transposes, permutes and unsqueezes undo
 * themselves on the gradient; expand sums it back. A strided view (a select,
 * slice, diagonal, unfold or as_strided) reads storage positions of its
 * input: its gradient is added up per storage position and read back at the
 * input's positions, with index_add and index_select, so the backward is
 * itself differentiable (and correct when the view overlaps itself, as unfold
 * and as_strided can). */
typedef struct ct__view_extra {
    ct__geom in, out; /* the input's and the view's places in the storage */
    int64_t perm[CT_MAX_DIMS];
} ct__view_extra;

static void ct__geom_of(const ct_tensor *t, ct__geom *g)
{
    g->ndim = t->ndim;
    memcpy(g->sizes, t->sizes, sizeof g->sizes);
    memcpy(g->strides, t->strides, sizeof g->strides);
    g->offset = t->offset;
}

/* The lowest and one past the highest storage position a geometry touches. */
static void ct__geom_span(const ct__geom *g, int64_t *lo, int64_t *hi)
{
    int64_t last = g->offset, numel = 1;
    for (int d = 0; d < g->ndim; d++) {
        numel *= g->sizes[d];
        if (g->sizes[d] > 0) last += (g->sizes[d] - 1) * g->strides[d];
    }
    if (numel == 0) last = g->offset - 1;
    *lo = CT__MIN(*lo, g->offset);
    *hi = CT__MAX(*hi, last + 1);
}

/* The storage positions (relative to base) of every element of geometry g, as an int64 tensor of its shape. */
static ct_tensor *ct__positions(const ct_tensor *storage_index, const ct__geom *g, int64_t base)
{
    return ct_contiguous(ct_as_strided(storage_index, ct_shape_make(g->ndim, g->sizes), ct_shape_make(g->ndim, g->strides),
                                       g->offset - base));
}

static ct_tensor *ct__strided_view_backward(const ct_tensor *grad, const ct__view_extra *x)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    ct__geom_span(&x->in, &lo, &hi);
    ct__geom_span(&x->out, &lo, &hi);
    int64_t span = hi > lo ? hi - lo : 0;
    ct_tensor *where = ct_arange(ct_int(0), ct_int(span), ct_int(1), CT_I64);
    ct_tensor *out_pos = ct__positions(where, &x->out, lo), *in_pos = ct__positions(where, &x->in, lo);
    ct_tensor *per_position = ct_index_add(ct_zeros(CT_SHAPE(span), grad->dtype), 0, ct_reshape(out_pos, CT_SHAPE(-1)),
                                           ct_reshape(grad, CT_SHAPE(-1)));
    ct_tensor *g = ct_index_select(per_position, 0, ct_reshape(in_pos, CT_SHAPE(-1)));
    return ct_reshape(g, ct_shape_make(x->in.ndim, x->in.sizes));
}

CT__BACKWARD(view)
{
    const ct__view_extra *x = (const ct__view_extra *)n->extra;
    const ct__out_meta *in = &n->next[0].fn->out[n->next[0].input_nr];
    ct_tensor *g = go[0];
    int64_t inverse[CT_MAX_DIMS];
    switch ((ct__view_kind)n->iargs[0]) {
    case CT__VIEW_RESHAPE: g = ct_reshape(g, ct_shape_make(in->ndim, in->sizes)); break;
    case CT__VIEW_TRANSPOSE: g = ct_transpose(g, (int)n->iargs[1], (int)n->iargs[2]); break;
    case CT__VIEW_PERMUTE:
        for (int d = 0; d < x->out.ndim; d++) inverse[x->perm[d]] = d;
        g = ct_permute(g, ct_shape_make(x->out.ndim, inverse));
        break;
    case CT__VIEW_UNSQUEEZE: g = ct_squeeze_dim(g, (int)n->iargs[1]); break;
    case CT__VIEW_EXPAND: g = ct__sum_to_shape(g, in->sizes, in->ndim); break;
    case CT__VIEW_STRIDED: g = ct__strided_view_backward(g, x); break;
    }
    CT__GRAD(0, g);
    return CT_OK;
}

/* False, the error set, when memory ran out recording (v then has no history). */
static bool ct__record_view(const char *name, ct__view_kind kind, ct_tensor *v, const ct_tensor *t, const int64_t *p)
{
    static const ct__node_type view_type = {"ViewBackward0", ct__bw_view};
    if (!v || !ct__requires_grad(t) || !ct__grad_mode()) return true;
    ct__view_extra *x = (ct__view_extra *)CT_MALLOC(sizeof *x);
    if (!x) {
        CT__OOM();
        return false;
    }
    ct__geom_of(t, &x->in);
    ct__geom_of(v, &x->out);
    if (kind == CT__VIEW_PERMUTE) memcpy(x->perm, p, (size_t)v->ndim * sizeof *p);
    ct__node *n = ct__record(&view_type, &t, 1, &v, 1);
    if (!n) {
        CT_FREE(x);
        return false; /* (t requires grad: NULL is a failure, never "nothing to record") */
    }
    n->name = name;
    n->extra = x;
    n->iargs[0] = kind;
    if (kind == CT__VIEW_TRANSPOSE || kind == CT__VIEW_UNSQUEEZE) n->iargs[1] = p[0];
    if (kind == CT__VIEW_TRANSPOSE) n->iargs[2] = p[1];
    return true;
}

/* ---------------------------------------------------------------- in-place writes through views */

/* The flat position in base of each element of its view v, as an int64
 * tensor of v's shape (base may itself be strided). */
static ct_tensor *ct__view_positions(const ct_tensor *base, const ct_tensor *v)
{
    ct__geom gb, gv;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    ct__geom_of(base, &gb);
    ct__geom_of(v, &gv);
    ct__geom_span(&gb, &lo, &hi);
    ct__geom_span(&gv, &lo, &hi);
    int64_t span = hi > lo ? hi - lo : 0;
    ct_tensor *r;
    ct_scope s = ct_scope_begin();
    ct_tensor *where = ct_arange(ct_int(0), ct_int(span), ct_int(1), CT_I64);
    ct_tensor *base_at = ct_reshape(ct__positions(where, &gb, lo), CT_SHAPE(-1));
    ct_tensor *numbering = ct_arange(ct_int(0), ct_int(ct_numel(base)), ct_int(1), CT_I64);
    ct_tensor *inverse = ct_index_copy(ct_zeros(CT_SHAPE(span), CT_I64), 0, base_at, numbering);
    ct_tensor *view_at = ct_reshape(ct__positions(where, &gv, lo), CT_SHAPE(-1));
    CT__UNRECORDED(r, ct_keep(ct_reshape(ct_index_select(inverse, 0, view_at), ct_shape_of(v))));
    ct_scope_end(s);
    return r;
}

/* CopySlices: the gradient of a base written in place through its view. The
 * written op's node (extra) takes the gradient at the view's positions; what
 * it gives for the view's old values goes back in those positions, the rest
 * of the base's gradient passes through, and its other inputs get theirs.
 * iargs[0]: which of the op's inputs was the view. Saved: the positions. */
CT__BACKWARD(copy_slices)
{
    ct__node *fn = (ct__node *)n->extra;
    int self = (int)n->iargs[0];
    ct_tensor *at = CT__S(0);
    if (!at) return ct_last_error_code();
    ct_tensor *flat_at = ct_reshape(at, CT_SHAPE(-1)), *flat = ct_reshape(go[0], CT_SHAPE(-1));
    ct_tensor **fn_go = (ct_tensor **)CT_MALLOC((size_t)(fn->n_out + fn->n_next) * sizeof(ct_tensor *));
    if (!fn_go) return CT__OOM();
    ct_tensor **fn_gi = fn_go + fn->n_out;
    memset(fn_gi, 0, (size_t)fn->n_next * sizeof *fn_gi);
    for (int k = 0; k < fn->n_out; k++) /* only the view's slot was written; others get zeros */
        fn_go[k] = k == 0 ? ct_reshape(ct_index_select(flat, 0, flat_at), ct_shape_of(at))
                          : ct_zeros(ct_shape_make(fn->out[k].ndim, fn->out[k].sizes), fn->out[k].dtype);
    ct_result r = fn->type->backward(fn, fn_go, fn_gi);
    if (r == CT_OK && ct__needs_grad(n, 0)) {
        ct_tensor *written = fn_gi[self] ? ct_reshape(fn_gi[self], CT_SHAPE(-1)) : ct_zeros_like(flat_at, go[0]->dtype);
        gi[0] = ct_reshape(ct_index_copy(flat, 0, flat_at, written), ct_shape_of(go[0]));
        if (!gi[0]) r = ct_last_error_code();
    }
    for (int i = 0, k = 1; i < fn->n_next; i++)
        if (i != self) gi[k++] = fn_gi[i];
    CT_FREE(fn_go);
    return r;
}

static void ct__release_wrapped_node(ct__node *n)
{
    ct__node_release((ct__node *)n->extra);
    n->extra = NULL; /* a node, not a block to free */
}

/* The history of v's base after an in-place write through v: CopySlices over
 * fn. False, the error set, when memory runs out. */
static bool ct__rebase_history(ct_tensor *v, ct__node *fn, int self)
{
    static const ct__node_type copy_slices = {"torch::autograd::CopySlices", ct__bw_copy_slices};
    ct_tensor *base = v->base, *at = ct__view_positions(base, v);
    ct__node *cs = at ? ct__node_new(&copy_slices, fn->n_next, 1) : NULL;
    if (!cs) {
        if (at) CT__OOM();
        return false;
    }
    bool ok = ct__edge_of(base, &cs->next[0]);
    for (int i = 0, k = 1; i < fn->n_next; i++) {
        if (i == self) continue;
        cs->next[k] = fn->next[i];
        if (cs->next[k++].fn) CT__ATOMIC_INC(&fn->next[i].fn->refcount);
    }
    CT__ATOMIC_INC(&fn->refcount);
    cs->extra = fn;
    cs->release_extra = ct__release_wrapped_node;
    cs->iargs[0] = self;
    if (ct__anomaly) cs->anomaly_op = fn->anomaly_op;
    ct__save(cs, at, false);
    ok = ok && !cs->save_failed && ct__set_grad_fn(base, cs, 0);
    ct__node_release(cs); /* base holds it now */
    return ok && ct__record_view("AsStridedBackward0", CT__VIEW_STRIDED, v, base, NULL);
}
