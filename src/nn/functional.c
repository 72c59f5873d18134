/* torch.nn.functional: dropout, embedding, the normalisations. Fused ops
 * (embedding, layer/batch/group norm) compute with recording off and record
 * one node under PyTorch's name, whose backward is written with
 * differentiable ops, so that double backward works. */

/* ---------------------------------------------------------------- dropout */

static ct_tensor *ct__dropout(const ct_tensor *input, double p, bool training, bool feature)
{
    if (!(p >= 0 && p <= 1)) {
        ct__fail(CT_ERR_VALUE, "dropout probability has to be between 0 and 1, but got %g", p);
        return NULL;
    }
    if (feature && input->ndim < 2) {
        ct__fail(CT_ERR_RUNTIME, "Feature dropout requires at least 2 dimensions in the input");
        return NULL;
    }
    if (p == 0 || !training || ct_numel(input) == 0) return ct__same(input);
    ct_scope s = ct_scope_begin();
    ct_tensor *noise;
    if (p == 1) {
        noise = ct_zeros(CT_SHAPE0, input->dtype);
    } else {
        ct_shape shape = ct_shape_of(input);
        for (int d = 2; feature && d < shape.ndim; d++) shape.size[d] = 1;
        noise = ct_empty(shape, input->dtype);
        if (noise && (ct_bernoulli_(noise, 1 - p, NULL) != CT_OK || ct_div_scalar_(noise, ct_float(1 - p)) != CT_OK))
            noise = NULL;
    }
    ct_tensor *r = ct_keep(noise ? ct_mul(input, noise) : NULL);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_dropout(const ct_tensor *input, double p, bool training)
{
    CT__ARG(input, "input", 1);
    return ct__dropout(input, p, training, false);
}

ct_tensor *ct_dropout2d(const ct_tensor *input, double p, bool training)
{
    CT__ARG(input, "input", 1);
    return ct__dropout(input, p, training, true);
}

/* ---------------------------------------------------------------- linear */

ct_tensor *ct_linear(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_linear(input, weight, bias), &input, &weight, &bias);
    CT__ARG(input, "input", 1);
    CT__ARG(weight, "weight", 2);
    ct_scope s = ct_scope_begin();
    ct_tensor *wt = ct_t(weight), *r;
    if (bias && input->ndim == 2) {
        r = ct_addmm(bias, input, wt, ct_addmm_opts_init());
    } else if (bias && input->ndim == 3 && ct_is_contiguous(input)) { /* _flatten_3d_linear */
        int64_t a = input->sizes[0], b = input->sizes[1];
        r = ct_addmm(bias, ct_view(input, CT_SHAPE(a * b, input->sizes[2])), wt, ct_addmm_opts_init());
        r = r ? ct_view(r, CT_SHAPE(a, b, ct_size(r, 1))) : NULL;
    } else {
        r = ct_matmul(input, wt);
        if (r && bias && ct_add_(r, bias) != CT_OK) r = NULL;
    }
    r = ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* at::bilinear's checks: weight (O, I, J), input1 (..., I), input2 (..., J). */
static ct_result ct__bilinear_check(const ct_tensor *x1, const ct_tensor *x2, const ct_tensor *w, const ct_tensor *b)
{
    if (x1->ndim != x2->ndim)
        return ct__fail(CT_ERR_RUNTIME, "bilinear(): input dimensions do not match: got %d and %d", x1->ndim, x2->ndim);
    if (w->ndim != 3) return ct__fail(CT_ERR_RUNTIME, "bilinear(): weight must be three-dimensional");
    if (x1->ndim < 1) return ct__fail(CT_ERR_RUNTIME, "bilinear(): input must have at least one dimension");
    for (int d = 0; d < x1->ndim - 1; d++)
        if (x1->sizes[d] != x2->sizes[d])
            return ct__fail(CT_ERR_RUNTIME, "bilinear(): input batch dimensions do not match at dim %d: got %lld and %lld", d,
                            (long long)x1->sizes[d], (long long)x2->sizes[d]);
    if (x1->sizes[x1->ndim - 1] != w->sizes[1])
        return ct__fail(CT_ERR_RUNTIME, "bilinear(): input1 size does not match weight size: got %lld but expected %lld",
                        (long long)x1->sizes[x1->ndim - 1], (long long)w->sizes[1]);
    if (x2->sizes[x2->ndim - 1] != w->sizes[2])
        return ct__fail(CT_ERR_RUNTIME, "bilinear(): input2 size does not match weight size: got %lld but expected %lld",
                        (long long)x2->sizes[x2->ndim - 1], (long long)w->sizes[2]);
    if (b && (b->ndim != 1 || b->sizes[0] != w->sizes[0]))
        return ct__fail(CT_ERR_RUNTIME, "bilinear(): bias size does not match weight size: got %lld but expected %lld",
                        (long long)(b->ndim ? b->sizes[b->ndim - 1] : 1), (long long)w->sizes[0]);
    return CT_OK;
}

ct_tensor *ct_bilinear(const ct_tensor *input1, const ct_tensor *input2, const ct_tensor *weight, const ct_tensor *bias)
{
    CT__ARG(input1, "input1", 1);
    CT__ARG(input2, "input2", 2);
    CT__ARG(weight, "weight", 3);
    if (ct__bilinear_check(input1, input2, weight, bias) != CT_OK) return NULL;
    int64_t o = weight->sizes[0], i = weight->sizes[1], j = weight->sizes[2];
    ct_scope s = ct_scope_begin();
    ct_tensor *x1 = ct_reshape(input1, CT_SHAPE(-1, i)), *x2 = ct_reshape(input2, CT_SHAPE(-1, j));
    /* (B, I) @ (I, O * J), times input2 along J */
    ct_tensor *t = ct_mm(x1, ct_reshape(ct_permute(weight, CT_DIMS(1, 0, 2)), CT_SHAPE(i, o * j)));
    ct_tensor *y = ct_sum_dim(ct_mul(ct_view(t, CT_SHAPE(-1, o, j)), ct_unsqueeze(x2, 1)), CT_DIMS(-1), false, CT_DEFAULT);
    ct_shape out = ct_shape_of(input1);
    out.size[out.ndim - 1] = o;
    y = ct_reshape(y, out);
    ct_tensor *r = ct_keep(bias ? ct_add(y, bias) : y);
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- embedding */

/* Indices must be int64 or int32, in [0, num). */
static ct_result ct__check_indices(const ct_tensor *idx, int64_t num, const char *fn)
{
    if (idx->dtype != CT_I64 && idx->dtype != CT_I32)
        return ct__fail(CT_ERR_RUNTIME,
                        "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
                        "but got %s instead (while checking arguments for %s)",
                        ct__legacy_type_name(idx->dtype), fn);
    if (ct_numel(idx) == 0) return CT_OK;
    ct_scope s = ct_scope_begin();
    ct_tensor *lo = ct_min(idx), *hi = ct_max(idx);
    bool ok = lo && hi && ct_item_int(lo) >= 0 && ct_item_int(hi) < num;
    ct_scope_end(s);
    return ok ? CT_OK : ct__fail(CT_ERR_INDEX, "index out of range in self");
}

/* A (num, D) gradient for a weight whose rows idx (flat) gave rows (n, D). */
static ct_tensor *ct__rows_grad(const ct_tensor *rows, const ct_tensor *idx, int64_t num)
{
    if (!rows) return NULL; /* (the call that made it failed, and said why) */
    return ct_index_add(ct_zeros(CT_SHAPE(num, ct_size(rows, 1)), rows->dtype), 0, idx, rows);
}

/* iargs: 0 padding_idx (wrapped; -1 none), 1 rows of weight. Saved: the flat indices. */
CT__BACKWARD(embedding)
{
    ct_tensor *idx = CT__S(0);
    if (!idx) return ct_last_error_code();
    ct_tensor *rows = ct_reshape(go[0], CT_SHAPE(-1, ct__input_meta(n, 0)->sizes[1]));
    if (n->iargs[0] >= 0)
        rows = ct_masked_fill_scalar(rows, ct_unsqueeze(ct_eq_scalar(idx, ct_int(n->iargs[0])), 1), ct_int(0));
    CT__GRAD(0, ct__rows_grad(rows, idx, n->iargs[1]));
    return CT_OK;
}

static const ct__node_type ct__embedding_type = {"EmbeddingBackward0", ct__bw_embedding};

ct_tensor *ct_embedding(const ct_tensor *input, const ct_tensor *weight, int64_t padding_idx)
{
    CT__ARG(input, "input", 1);
    CT__ARG(weight, "weight", 2);
    if (weight->ndim != 2) {
        ct__fail(CT_ERR_RUNTIME, "'weight' must be 2-D");
        return NULL;
    }
    int64_t num = weight->sizes[0];
    if (padding_idx != CT_NO_PADDING) {
        if (padding_idx >= num || padding_idx < -num) {
            ct__fail(CT_ERR_RUNTIME, "Padding_idx must be within num_embeddings"); /* an AssertionError in PyTorch */
            return NULL;
        }
        if (padding_idx < 0) padding_idx += num;
    }
    if (ct__check_indices(input, num, "embedding") != CT_OK || ct__recordable(&weight, 1) != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *flat = ct_reshape(input, CT_SHAPE(-1)), *r;
    ct_shape shape = ct_shape_of(input);
    shape.size[shape.ndim++] = weight->sizes[1];
    CT__UNRECORDED(r, ct_view(ct_index_select(weight, 0, flat), shape));
    ct__node *node = r ? ct__record(&ct__embedding_type, &weight, 1, &r, 1) : NULL;
    if (node) {
        node->iargs[0] = padding_idx == CT_NO_PADDING ? -1 : padding_idx;
        node->iargs[1] = num;
        ct__save(node, ct_to(flat, CT_I64), false);
    }
    r = ct_keep(r ? ct__recorded_or_discard(r, node, &weight, 1) : NULL);
    ct_scope_end(s);
    return r;
}

/* Saved: the flat indices, each index's bag and each index's scale (1 or 1/bag size). */
CT__BACKWARD(embedding_bag)
{
    ct_tensor *idx = CT__S(0), *bag = CT__S(1), *scale = CT__S(2);
    if (!idx || !bag || !scale) return ct_last_error_code();
    ct_tensor *rows = ct_mul(ct_index_select(go[0], 0, bag), ct_unsqueeze(scale, 1));
    CT__GRAD(0, ct__rows_grad(rows, idx, n->iargs[0]));
    return CT_OK;
}

static const ct__node_type ct__embedding_bag_type = {"EmbeddingBagBackward0", ct__bw_embedding_bag};

/* Each index's bag (int64) from a 2-D input, or a 1-D one and its offsets. */
static ct_tensor *ct__bag_ids(const ct_tensor *input, const ct_tensor *offsets, int64_t *n_bags)
{
    int64_t n = ct_numel(input);
    if (input->ndim == 2) {
        if (offsets) {
            ct__fail(CT_ERR_VALUE, "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type <class 'torch.Tensor'>");
            return NULL;
        }
        *n_bags = input->sizes[0];
        return ct_repeat_interleave(ct_arange(ct_int(0), ct_int(input->sizes[0]), ct_int(1), CT_I64), input->sizes[1]);
    }
    if (input->ndim != 1) {
        ct__fail(CT_ERR_VALUE, "input has to be 1D or 2D Tensor, but got Tensor of dimension %d", input->ndim);
        return NULL;
    }
    if (!offsets) {
        ct__fail(CT_ERR_VALUE, "offsets has to be a 1D Tensor but got None");
        return NULL;
    }
    if (offsets->ndim != 1) {
        ct__fail(CT_ERR_VALUE, "offsets has to be a 1D Tensor");
        return NULL;
    }
    int64_t nb = offsets->sizes[0];
    int64_t *off = (int64_t *)CT_MALLOC((size_t)(nb + 1) * sizeof *off);
    int64_t *ids = (int64_t *)CT_MALLOC((size_t)(n + 1) * sizeof *ids);
    ct_tensor *r = NULL;
    if (!off || !ids) {
        CT__OOM();
    } else if (ct_copy_to_array(offsets, off, nb, CT_I64) == CT_OK) {
        bool ok = nb == 0 || off[0] == 0;
        for (int64_t b = 1; ok && b < nb; b++) ok = off[b] >= off[b - 1] && off[b] <= n;
        if (!ok) {
            if (nb && off[0] != 0)
                ct__fail(CT_ERR_RUNTIME, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got %lld\n[ torch.LongTensor{} ]",
                         (long long)off[0]);
            else
                ct__fail(CT_ERR_RUNTIME, "offsets must be non-decreasing and at most the number of indices (%lld)", (long long)n);
        } else {
            for (int64_t b = 0; b < nb; b++)
                for (int64_t i = off[b]; i < (b + 1 < nb ? off[b + 1] : n); i++) ids[i] = b;
            *n_bags = nb;
            r = ct_from_array(ids, CT_SHAPE(n), CT_I64);
        }
    }
    CT_FREE(off);
    CT_FREE(ids);
    return r;
}

ct_tensor *ct_embedding_bag(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *offsets,
                            const char *mode)
{
    CT__ARG(input, "input", 1);
    CT__ARG(weight, "weight", 2);
    if (ct__recordable(&weight, 1) != CT_OK) return NULL;
    bool mean = !mode || !strcmp(mode, "mean");
    if (!mean && strcmp(mode, "sum")) {
        ct__fail(CT_ERR_VALUE, "mode has to be one of sum, mean or max");
        return NULL;
    }
    if (weight->ndim != 2) {
        ct__fail(CT_ERR_RUNTIME, "'weight' must be 2-D");
        return NULL;
    }
    if (ct__same_device(input, weight, offsets) != CT_OK) return NULL;
    if (ct__check_indices(input, weight->sizes[0], "embedding_bag") != CT_OK) return NULL;
    ct_device_guard on = ct_device_guard_begin(weight->storage->device); /* the bags' helpers are made there */
    ct_scope s = ct_scope_begin();
    int64_t n_bags = 0;
    ct_tensor *idx = ct_to(ct_reshape(input, CT_SHAPE(-1)), CT_I64), *bag = ct__bag_ids(input, offsets, &n_bags);
    ct_tensor *r = NULL, *scale = NULL;
    if (idx && bag) {
        ct_tensor *counts = ct_index_add(ct_zeros(CT_SHAPE(n_bags), weight->dtype), 0, bag,
                                         ct_ones(CT_SHAPE(ct_numel(idx)), weight->dtype));
        scale = mean ? ct_index_select(ct_reciprocal(ct_clamp_min_scalar(counts, ct_int(1))), 0, bag)
                     : ct_ones(CT_SHAPE(ct_numel(idx)), weight->dtype);
        CT__UNRECORDED(r, ct_index_add(ct_zeros(CT_SHAPE(n_bags, weight->sizes[1]), weight->dtype), 0, bag,
                                       ct_index_select(weight, 0, idx)));
        if (r && mean) CT__UNRECORDED(r, ct_div(r, ct_unsqueeze(ct_clamp_min_scalar(counts, ct_int(1)), 1)));
    }
    ct__node *node = r && scale ? ct__record(&ct__embedding_bag_type, &weight, 1, &r, 1) : NULL;
    if (node) {
        node->iargs[0] = weight->sizes[0];
        ct__save(node, idx, false);
        ct__save(node, bag, false);
        ct__save(node, scale, false);
    }
    r = ct_keep(r && scale ? ct__recorded_or_discard(r, node, &weight, 1) : NULL);
    ct_scope_end(s);
    ct_device_guard_end(on);
    return r;
}

/* ---------------------------------------------------------------- normalisation */

/* One normalisation: x seen as `stat` is normalised over `dims` of it, then
 * scaled and shifted by weight and bias seen as `affine` (broadcast over
 * x). With `running`, the statistics are the given running ones (seen as
 * `affine`) instead of the batch's. `rows`: layer norm's, over whole
 * trailing rows that weight and bias span. Kept in the node's extra. */
typedef struct ct__normspec {
    ct_shape stat, dims, affine;
    double eps;
    bool running, rows;
} ct__normspec;

/* The node's inputs: x, weight, bias. Saved: x, weight (x when there is
 * none: iargs[0] says), and with running statistics, those. */
enum { CT__NORM_X, CT__NORM_W, CT__NORM_B };

/* x normalised as PyTorch's layer and group norm kernels compute it
 * (x * rstd - mean * rstd), with the variance used (the batch's biased one,
 * stat-shaped, or the running one) to *var_out when asked. Made of
 * differentiable ops. */
static ct_tensor *ct__norm_xhat(const ct__normspec *s, const ct_tensor *x, const ct_tensor *rm, const ct_tensor *rv,
                                ct_tensor **var_out)
{
    ct_tensor *xs = ct_reshape(x, s->stat), *mean, *var;
    if (s->running) {
        mean = ct_reshape(rm, s->affine);
        var = ct_reshape(rv, s->affine);
    } else if (!xs || ct_var_mean(xs, s->dims, 0, true, &var, &mean) != CT_OK) {
        return NULL;
    }
    ct_tensor *rstd = ct_rsqrt(ct_add_scalar(var, ct_float(s->eps)));
    if (var_out) *var_out = var;
    return ct_reshape(ct_sub(ct_mul(xs, rstd), ct_mul(mean, rstd)), ct_shape_of(x));
}

/* Whether layer norm's rows of x, with w and b (and g, the gradient of its
 * result, in the backward) run as the device's layer norm job (the same
 * arithmetic, each direction one pass): contiguous float32 tensors on one
 * device, x not empty, and no graph to record (under create_graph the
 * backward is made of differentiable ops). */
static bool ct__layer_norm_fused(const ct__normspec *s, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                                 const ct_tensor *g)
{
    const ct_tensor *t[4] = {x, w, b, g};
    if (!s->rows || ct_is_grad_enabled() || ct_numel(x) == 0) return false;
    if (g && (g->ndim != x->ndim || memcmp(g->sizes, x->sizes, (size_t)x->ndim * sizeof x->sizes[0]))) return false;
    for (int i = 0; i < 4; i++)
        if (t[i] && (t[i]->dtype != CT_F32 || !ct__is_contiguous(t[i]) ||
                     !ct_device_equal(t[i]->storage->device, x->storage->device)))
            return false;
    return true;
}

/* The layer norm job over x's rows (g NULL: the forward into y; else the
 * backward, x's gradient into y and g * xhat into gxhat), on x's device. */
static ct_result ct__layer_norm_run(const ct__normspec *s, const ct_tensor *x, const ct_tensor *g, const ct_tensor *w,
                                    const ct_tensor *b, ct_tensor *y, ct_tensor *gxhat)
{
    ct__layer_norm_job job;
    job.x = (const float *)ct__data(x);
    job.g = g ? (const float *)ct__data(g) : NULL;
    job.w = w ? (const float *)ct__data(w) : NULL;
    job.b = b ? (const float *)ct__data(b) : NULL;
    job.y = y ? (float *)ct__data(y) : NULL;
    job.gxhat = gxhat ? (float *)ct__data(gxhat) : NULL;
    job.n = 1;
    for (int d = 0; d < s->affine.ndim; d++) job.n *= s->affine.size[d];
    job.rows = ct_numel(x) / job.n;
    job.eps = s->eps;
    job.device_index = x->storage->device.index;
    return ct__backend_for(x->storage->device.type)->layer_norm(&job);
}

/* Layer norm's forward as one pass (ct__layer_norm_fused allows it) */
static ct_tensor *ct__layer_norm_rows(const ct__normspec *s, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b)
{
    ct_tensor *y = ct__alloc(x->sizes, x->ndim, CT_F32, x->storage->device);
    return y && ct__layer_norm_run(s, x, NULL, w, b, y, NULL) == CT_OK ? y : NULL;
}

static ct_tensor *ct__affine(const ct__normspec *s, ct_tensor *y, const ct_tensor *w, const ct_tensor *b)
{
    if (w) y = ct_mul(y, ct_reshape(w, s->affine));
    if (b) y = ct_add(y, ct_reshape(b, s->affine));
    return y;
}

/* Layer norm's gradients as ct__norm_grads computes them, x's and g * xhat
 * (for weight's) in one pass (ct__layer_norm_fused allows it). */
static ct_result ct__layer_norm_grads(const ct__normspec *s, const ct_tensor *g, const ct_tensor *x,
                                      const ct_tensor *w, const bool *want, ct_tensor **out)
{
    ct_tensor *gx = want[CT__NORM_X] ? ct__alloc(x->sizes, x->ndim, CT_F32, x->storage->device) : NULL;
    ct_tensor *gxhat = want[CT__NORM_W] ? ct__alloc(x->sizes, x->ndim, CT_F32, x->storage->device) : NULL;
    if ((want[CT__NORM_X] && !gx) || (want[CT__NORM_W] && !gxhat)) return ct_last_error_code();
    if ((gx || gxhat) && ct__layer_norm_run(s, x, g, w, NULL, gx, gxhat) != CT_OK) return ct_last_error_code();
    if (gx) out[CT__NORM_X] = gx;
    if (gxhat && !(out[CT__NORM_W] = ct__sum_to_shape(gxhat, s->affine.size, s->affine.ndim)))
        return ct_last_error_code();
    if (want[CT__NORM_B] && !(out[CT__NORM_B] = ct__sum_to_shape(g, s->affine.size, s->affine.ndim)))
        return ct_last_error_code();
    return CT_OK;
}

/* The gradients of x, weight and bias (those asked for in want, into out;
 * weight's and bias's in the affine shape) from g: gx = rstd * (gh -
 * mean(gh) - xhat * mean(gh * xhat)) over the reduced dims (batch
 * statistics), or gh * rstd (running ones); gh = g * weight. */
static ct_result ct__norm_grads(const ct__normspec *s, const ct_tensor *g, const ct_tensor *x, const ct_tensor *w,
                                const ct_tensor *rm, const ct_tensor *rv, const bool *want, ct_tensor **out)
{
    if (ct__layer_norm_fused(s, x, w, NULL, g)) return ct__layer_norm_grads(s, g, x, w, want, out);
    ct_tensor *var = NULL, *xhat = ct__norm_xhat(s, x, rm, rv, &var);
    if (!xhat) return ct_last_error_code();
    if (want[CT__NORM_X]) {
        ct_tensor *gh = w ? ct_mul(g, ct_reshape(w, s->affine)) : (ct_tensor *)g;
        ct_tensor *rstd = ct_rsqrt(ct_add_scalar(var, ct_float(s->eps)));
        if (s->running) {
            out[CT__NORM_X] = ct_mul(gh, rstd);
        } else {
            ct_tensor *ghs = ct_reshape(gh, s->stat), *xs = ct_reshape(xhat, s->stat);
            ct_tensor *inner = ct_sub(ct_sub(ghs, ct_mean_dim(ghs, s->dims, true, CT_DEFAULT)),
                                      ct_mul(xs, ct_mean_dim(ct_mul(ghs, xs), s->dims, true, CT_DEFAULT)));
            out[CT__NORM_X] = ct_reshape(ct_mul(rstd, inner), ct_shape_of(x));
        }
    }
    if (want[CT__NORM_W]) out[CT__NORM_W] = ct__sum_to_shape(ct_mul(g, xhat), s->affine.size, s->affine.ndim);
    if (want[CT__NORM_B]) out[CT__NORM_B] = ct__sum_to_shape(g, s->affine.size, s->affine.ndim);
    for (int k = 0; k < 3; k++)
        if (want[k] && !out[k]) return ct_last_error_code();
    return CT_OK;
}

/* Which of x, weight and bias node n gives a gradient to. */
static void ct__norm_wanted(const ct__node *n, bool *want)
{
    for (int k = CT__NORM_X; k <= CT__NORM_B; k++) want[k] = ct__needs_grad(n, k);
}

/* Batch and group norm: the weight's and bias's gradients reshaped from the
 * affine shape to theirs. Saved: x, weight (x when there is none), and with
 * running statistics, those. */
CT__BACKWARD(normalization)
{
    const ct__normspec *s = (const ct__normspec *)n->extra;
    ct_tensor *x = CT__S(0), *w = n->iargs[0] ? CT__S(1) : NULL;
    ct_tensor *rm = s->running ? CT__S(2) : NULL, *rv = s->running ? CT__S(3) : NULL;
    if (!x || (n->iargs[0] && !w) || (s->running && (!rm || !rv))) return ct_last_error_code();
    bool want[3];
    ct__norm_wanted(n, want);
    ct_result r = ct__norm_grads(s, go[0], x, w, rm, rv, want, gi);
    for (int k = CT__NORM_W; r == CT_OK && k <= CT__NORM_B; k++) {
        const ct__out_meta *m = want[k] ? ct__input_meta(n, k) : NULL;
        if (m && !(gi[k] = ct_reshape(gi[k], ct_shape_make(m->ndim, m->sizes)))) r = ct_last_error_code();
    }
    return r;
}

/* native_layer_norm_backward(g, x, weight) -> (grad_input, grad_weight,
 * grad_bias), NativeLayerNormBackwardBackward0 under create_graph: in = {g,
 * x, weight (with one)}; weight and bias have layer norm's affine shape. */
static ct_result ct__layer_norm_grad(const ct__node *n, const ct_tensor *const *in, const bool *want, ct_tensor **out)
{
    const ct__normspec *s = (const ct__normspec *)n->extra;
    return ct__norm_grads(s, in[0], in[1], n->iargs[0] ? in[2] : NULL, NULL, NULL, want, out);
}
CT__GRAD_OPS(ct__layer_norm_backward, "NativeLayerNormBackwardBackward0", ct__layer_norm_grad, 3, 3, 3,
             sizeof(ct__normspec));
CT__GRAD_OPS(ct__layer_norm_backward_no_weight, "NativeLayerNormBackwardBackward0", ct__layer_norm_grad, 2, 2, 3,
             sizeof(ct__normspec));

/* Saved: x, weight (x when there is none). */
CT__BACKWARD(layer_norm)
{
    bool has_weight = n->iargs[0] != 0;
    const ct_tensor *in[3] = {go[0], CT__S(0), has_weight ? CT__S(1) : NULL};
    bool want[3];
    ct__norm_wanted(n, want);
    return ct__grad_op_run(has_weight ? &ct__layer_norm_backward : &ct__layer_norm_backward_no_weight, n, in, want, gi);
}

static const ct__node_type ct__layer_norm_type = {"NativeLayerNormBackward0", ct__bw_layer_norm};
static const ct__node_type ct__batch_norm_type = {"NativeBatchNormBackward0", ct__bw_normalization};
static const ct__node_type ct__group_norm_type = {"NativeGroupNormBackward0", ct__bw_normalization};

/* Record node `type` for y, the result of normalising x by spec s (y was
 * computed with recording off, after ct__norm_recordable). */
static ct_tensor *ct__norm_record(const ct__node_type *type, const ct__normspec *s, ct_tensor *y, const ct_tensor *x,
                                  const ct_tensor *w, const ct_tensor *b, const ct_tensor *rm, const ct_tensor *rv)
{
    const ct_tensor *in[3] = {x, w, b};
    if (!y) return NULL;
    ct__node *node = ct__record(type, in, 3, &y, 1);
    if (node) {
        ct__normspec *copy = (ct__normspec *)CT_MALLOC(sizeof *copy);
        if (!copy) {
            CT__OOM();
            ct__discard(y);
            return NULL;
        }
        *copy = *s;
        node->extra = copy;
        node->iargs[0] = w != NULL;
        ct__save(node, x, false);
        ct__save(node, w ? w : x, false);
        if (s->running) {
            ct__save(node, rm, false);
            ct__save(node, rv, false);
        }
    }
    return ct__recorded_or_discard(y, node, in, 3);
}

/* Whether a normalisation of x may record (ct__recordable), asked before it
 * computes anything or updates running statistics. */
static ct_result ct__norm_recordable(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b)
{
    const ct_tensor *in[3] = {x, w, b};
    return ct__recordable(in, 3);
}

/* Normalise x by spec s with the batch's statistics (layer and group norm)
 * and record node `type`. */
static ct_tensor *ct__norm_apply(const ct__node_type *type, const ct__normspec *s, const ct_tensor *x, const ct_tensor *w,
                                 const ct_tensor *b)
{
    if (ct__norm_recordable(x, w, b) != CT_OK) return NULL;
    ct_grad_mode mode = ct_set_grad_enabled(false);
    ct_tensor *y = ct__layer_norm_fused(s, x, w, b, NULL) ? ct__layer_norm_rows(s, x, w, b)
                                                          : ct__affine(s, ct__norm_xhat(s, x, NULL, NULL, NULL), w, b);
    ct_grad_mode_restore(mode);
    return ct__norm_record(type, s, y, x, w, b, NULL, NULL);
}

/* A 1-D parameter of a normalisation must have `c` elements. */
static ct_result ct__check_channels(const ct_tensor *t, const char *what, int64_t c)
{
    if (t && ct_numel(t) != c)
        return ct__fail(CT_ERR_RUNTIME, "%s should contain %lld elements not %lld", what, (long long)c,
                        (long long)ct_numel(t));
    return CT_OK;
}

/* (1, C, 1, ...): a per-channel tensor seen against an input of ndim dims. */
static ct_shape ct__channel_shape(int ndim, int64_t c)
{
    ct_shape s = CT_SHAPE0;
    s.ndim = ndim;
    for (int d = 0; d < ndim; d++) s.size[d] = d == 1 ? c : 1;
    return s;
}

ct_tensor *ct_layer_norm(const ct_tensor *input, ct_shape normalized_shape, const ct_tensor *weight,
                         const ct_tensor *bias, double eps)
{
    CT__ARG(input, "input", 1);
    int k = normalized_shape.ndim, nd = input->ndim;
    char a[200], b[200];
    if (k < 1 || k > CT_MAX_DIMS) {
        ct__fail(CT_ERR_RUNTIME, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = %s",
                 ct__shape_str(normalized_shape.size, k < 0 ? 0 : CT__MIN(k, CT_MAX_DIMS), a, sizeof a));
        return NULL;
    }
    const ct_tensor *wb[2] = {weight, bias};
    for (int i = 0; i < 2; i++)
        if (wb[i] && (wb[i]->ndim != k || memcmp(wb[i]->sizes, normalized_shape.size, (size_t)k * sizeof(int64_t)))) {
            ct__fail(CT_ERR_RUNTIME, "Expected %s to be of same shape as normalized_shape, but got %s of shape %s and normalized_shape = %s",
                     i ? "bias" : "weight", i ? "bias" : "weight", ct__shape_str(wb[i]->sizes, wb[i]->ndim, a, sizeof a),
                     ct__shape_str(normalized_shape.size, k, b, sizeof b));
            return NULL;
        }
    if (nd < k || memcmp(input->sizes + nd - k, normalized_shape.size, (size_t)k * sizeof(int64_t))) {
        char expect[240];
        ct__shape_str(normalized_shape.size, k, a, sizeof a);
        snprintf(expect, sizeof expect, "[*, %s", a + 1);
        ct__fail(CT_ERR_RUNTIME, "Given normalized_shape=%s, expected input with shape %s, but got input of size%s", a,
                 expect, ct__shape_str(input->sizes, nd, b, sizeof b));
        return NULL;
    }
    ct__normspec s;
    memset(&s, 0, sizeof s);
    s.stat = ct_shape_of(input);
    s.affine = normalized_shape;
    s.dims.ndim = k;
    for (int i = 0; i < k; i++) s.dims.size[i] = nd - k + i;
    s.eps = eps;
    s.rows = true;
    ct_scope sc = ct_scope_begin();
    ct_tensor *r = ct_keep(ct__norm_apply(&ct__layer_norm_type, &s, input, weight, bias));
    ct_scope_end(sc);
    return r;
}

/* ---- batch norm's forward, operation for operation as PyTorch 1.13's CPU
 * kernels (aten/src/ATen/native/Normalization.cpp, cpu/batch_norm_kernel.cpp),
 * so that results are bit for bit PyTorch's. The backward is the shared
 * normalisation formula above. */

/* Tensor.is_contiguous(memory_format=torch.channels_last) (channels_last_3d
 * for 5-D): strides in the order C, W, H, (D,) N, size-1 dims ignored. */
static bool ct__is_channels_last_contiguous(const ct_tensor *t)
{
    static const int order4[4] = {1, 3, 2, 0}, order5[5] = {1, 4, 3, 2, 0};
    const int *order = t->ndim == 4 ? order4 : t->ndim == 5 ? order5 : NULL;
    int64_t expected = 1;
    for (int k = 0; order && k < t->ndim; k++) {
        int d = order[k];
        if (t->sizes[d] == 1) continue;
        if (t->strides[d] != expected) return false;
        expected *= t->sizes[d];
    }
    return order != NULL;
}

/* PyTorch takes its vectorised kernel when the input is contiguous in
 * either memory format and every per-channel tensor is contiguous; other
 * layouts go through a generic elementwise loop that rounds differently. */
static bool ct__bn_fast_layout(const ct_tensor *x, const ct_tensor *const *per_channel, int n)
{
    if (!ct_is_contiguous(x) && !ct__is_channels_last_contiguous(x)) return false;
    for (int i = 0; i < n; i++)
        if (per_channel[i] && !ct_is_contiguous(per_channel[i])) return false;
    return true;
}

/* The batch's statistics (channel-shaped, the input's dtype) as PyTorch's
 * kernel takes them: for float and double inputs contiguous in either
 * memory format, its kernels above; otherwise (PyTorch's generic path, whose
 * reduction order ctorch does not follow) the mean's sum and var_sum in
 * double, the squares rounded in the input's dtype. */
static ct_result ct__bn_batch_stats(const ct__normspec *s, const ct_tensor *x, int64_t count, ct_tensor **mean,
                                    ct_tensor **var_sum)
{
    bool planes = ct_is_contiguous(x), rows = !planes && ct__is_channels_last_contiguous(x);
    if ((x->dtype != CT_F32 && x->dtype != CT_F64) || (!planes && !rows) || count == 0) {
        *mean = ct_to(ct_div_scalar(ct_sum_dim(x, s->dims, true, CT_F64), ct_int(count)), x->dtype);
        ct_tensor *dev = ct_sub(x, *mean);
        *var_sum = ct_to(ct_sum_dim(ct_mul(dev, dev), s->dims, true, CT_F64), x->dtype);
        return *var_sum ? CT_OK : ct_last_error_code();
    }
    int64_t n = x->sizes[0], c = x->sizes[1], image = count / n;
    *mean = ct__alloc(s->affine.size, s->affine.ndim, x->dtype, x->storage->device);
    *var_sum = ct__alloc(s->affine.size, s->affine.ndim, x->dtype, x->storage->device);
    if (!*mean || !*var_sum) return ct_last_error_code();
    ct__bn_stats_job job = {x->dtype, rows || image == 1, n, c, image, count, ct__data(x), ct__data(*mean),
                            ct__data(*var_sum), x->storage->device.index}; /* (PyTorch takes (n, c, 1, ...) as rows) */
    ct__backend_for(x->storage->device.type)->bn_stats(&job);
    return CT_OK;
}

/* PyTorch's InvStd of the biased variance var_sum / count, in double:
 * 1 / sqrt(var + eps), and 0 where var and eps are both 0. */
static ct_tensor *ct__bn_batch_invstd(const ct_tensor *var_sum, int64_t count, double eps)
{
    ct_tensor *var = ct_to(ct_div_scalar(var_sum, ct_int(count)), CT_F64);
    ct_tensor *invstd = ct_to(ct_reciprocal(ct_sqrt(ct_add_scalar(var, ct_float(eps)))), var_sum->dtype);
    if (eps == 0 && invstd)
        invstd = ct_masked_fill(invstd, ct_eq_scalar(var, ct_int(0)), ct_scalar_tensor(ct_int(0), invstd->dtype));
    return invstd;
}

/* running = momentum * batch + (1 - momentum) * running, as the kernel
 * updates them (contiguous input): the mean in the running dtype, the
 * variance (the unbiased var_sum / (count - 1), in the input's dtype) with
 * its momentum product in double. */
static ct_result ct__bn_update_running(ct_tensor *rm, ct_tensor *rv, const ct_tensor *mean, const ct_tensor *var_sum,
                                       int64_t count, double momentum)
{
    if (rm) {
        double m = ct__as_dtype(momentum, rm->dtype), keep = ct__as_dtype(1 - m, rm->dtype);
        ct_tensor *batch = ct_reshape(mean, CT_SHAPE(-1));
        if (ct_copy_(rm, ct_add(ct_mul_scalar(batch, ct_float(m)), ct_mul_scalar(rm, ct_float(keep)))) != CT_OK)
            return ct_last_error_code();
    }
    if (rv) {
        double m = ct__as_dtype(momentum, rv->dtype), keep = ct__as_dtype(1 - m, rv->dtype);
        ct_tensor *unbiased = ct_to(ct_div_scalar(ct_reshape(var_sum, CT_SHAPE(-1)), ct_int(count - 1)), CT_F64);
        ct_tensor *kept = ct_to(ct_mul_scalar(rv, ct_float(keep)), CT_F64);
        if (ct_copy_(rv, ct_add(ct_mul_scalar(unbiased, ct_float(m)), kept)) != CT_OK) return ct_last_error_code();
    }
    return CT_OK;
}

/* out = ((x - mean) * invstd) * weight + bias, mean and invstd
 * channel-shaped. The vectorised layouts fold it into per-channel
 * alpha = invstd * weight and beta = bias - mean * alpha and compute
 * x * alpha + beta, both fused multiply-adds as PyTorch's compiled kernel has
 * them (addcmul with value 1); other layouts round every step. */
static ct_tensor *ct__bn_transform(const ct__normspec *s, const ct_tensor *x, ct_tensor *mean, ct_tensor *invstd,
                                   const ct_tensor *w, const ct_tensor *b, bool fast)
{
    if (!invstd) return NULL;
    ct_tensor *wc = w ? ct_reshape(w, s->affine) : NULL;
    ct_tensor *bc = b ? ct_reshape(b, s->affine) : ct_zeros(s->affine, invstd->dtype);
    if (fast) {
        ct_tensor *alpha = wc ? ct_mul(invstd, wc) : invstd;
        ct_tensor *beta = ct_addcmul(bc, ct_neg(mean), alpha, ct_int(1));
        return ct_addcmul(beta, x, alpha, ct_int(1));
    }
    ct_tensor *y = ct_mul(ct_sub(x, mean), invstd);
    return ct_add(wc ? ct_mul(y, wc) : y, bc);
}

/* Batch norm's value (with recording off), and in training the running
 * statistics updated. */
static ct_tensor *ct__bn_forward(const ct__normspec *s, const ct_tensor *x, ct_tensor *rm, ct_tensor *rv,
                                 const ct_tensor *w, const ct_tensor *b, int64_t count, double momentum)
{
    const ct_tensor *per_channel[4] = {w, b, rm, rv};
    ct_tensor *mean, *invstd, *var_sum = NULL;
    if (s->running) {
        mean = ct_reshape(rm, s->affine);
        invstd = ct_rsqrt(ct_add_scalar(ct_reshape(rv, s->affine), ct_float(s->eps)));
    } else {
        if (ct__bn_batch_stats(s, x, count, &mean, &var_sum) != CT_OK) return NULL;
        invstd = ct__bn_batch_invstd(var_sum, count, s->eps);
    }
    ct_tensor *y = ct__bn_transform(s, x, mean, invstd, w, b, ct__bn_fast_layout(x, per_channel, 4));
    if (y && var_sum && (rm || rv) && ct__bn_update_running(rm, rv, mean, var_sum, count, momentum) != CT_OK) return NULL;
    return y;
}

ct_tensor *ct_batch_norm(const ct_tensor *input, ct_tensor *running_mean, ct_tensor *running_var,
                         const ct_tensor *weight, const ct_tensor *bias, bool training, double momentum, double eps)
{
    CT__ARG(input, "input", 1);
    if (input->ndim < 2) {
        ct__fail(CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
        return NULL;
    }
    int64_t c = input->sizes[1], count = ct_numel(input) / (c ? c : 1);
    if (ct__check_channels(running_mean, "running_mean", c) || ct__check_channels(running_var, "running_var", c) ||
        ct__check_channels(weight, "weight", c) || ct__check_channels(bias, "bias", c))
        return NULL;
    if (!training && (!running_mean || !running_var)) {
        ct__fail(CT_ERR_RUNTIME, "%s must be defined in evaluation mode", running_mean ? "running_var" : "running_mean");
        return NULL;
    }
    if (training && count == 1) {
        char a[200];
        ct__fail(CT_ERR_VALUE, "Expected more than 1 value per channel when training, got input size torch.Size(%s)",
                 ct__shape_str(input->sizes, input->ndim, a, sizeof a));
        return NULL;
    }
    ct__normspec s;
    memset(&s, 0, sizeof s);
    s.stat = ct_shape_of(input);
    s.affine = ct__channel_shape(input->ndim, c);
    for (int d = 0; d < input->ndim; d++)
        if (d != 1) s.dims.size[s.dims.ndim++] = d;
    s.eps = eps;
    s.running = !training;
    if (ct__norm_recordable(input, weight, bias) != CT_OK) return NULL; /* before the running statistics move */
    ct_scope sc = ct_scope_begin();
    ct_grad_mode mode = ct_set_grad_enabled(false);
    ct_tensor *y = ct__bn_forward(&s, input, running_mean, running_var, weight, bias, count, momentum);
    ct_grad_mode_restore(mode);
    ct_tensor *r = ct_keep(ct__norm_record(&ct__batch_norm_type, &s, y, input, weight, bias, running_mean, running_var));
    ct_scope_end(sc);
    return r;
}

ct_tensor *ct_instance_norm(const ct_tensor *input, ct_tensor *running_mean, ct_tensor *running_var,
                            const ct_tensor *weight, const ct_tensor *bias, bool use_input_stats, double momentum,
                            double eps)
{
    CT__ARG(input, "input", 1);
    if (input->ndim < 2) {
        ct__fail(CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
        return NULL;
    }
    int64_t b = input->sizes[0], c = input->sizes[1], spatial = 1;
    for (int d = 2; d < input->ndim; d++) spatial *= input->sizes[d];
    if (use_input_stats && spatial == 1) {
        char a[200];
        ct__fail(CT_ERR_VALUE, "Expected more than 1 spatial element when training, got input size torch.Size(%s)",
                 ct__shape_str(input->sizes, input->ndim, a, sizeof a));
        return NULL;
    }
    if (ct__check_channels(running_mean, "running_mean", c) || ct__check_channels(running_var, "running_var", c) ||
        ct__check_channels(weight, "weight", c) || ct__check_channels(bias, "bias", c))
        return NULL;
    ct_scope sc = ct_scope_begin();
    ct_shape flat = ct_shape_of(input);
    flat.size[0] = 1;
    flat.size[1] = b * c;
    ct_tensor *rm = running_mean ? ct_repeat(running_mean, CT_SHAPE(b)) : NULL;
    ct_tensor *rv = running_var ? ct_repeat(running_var, CT_SHAPE(b)) : NULL;
    ct_tensor *r = ct_batch_norm(ct_reshape(input, flat), rm, rv, weight ? ct_repeat(weight, CT_SHAPE(b)) : NULL,
                                 bias ? ct_repeat(bias, CT_SHAPE(b)) : NULL, use_input_stats, momentum, eps);
    if (r && use_input_stats) {
        ct_grad_mode mode = ct_no_grad();
        if ((running_mean && ct_copy_(running_mean, ct_mean_dim(ct_view(rm, CT_SHAPE(b, c)), CT_DIMS(0), false, CT_DEFAULT))) ||
            (running_var && ct_copy_(running_var, ct_mean_dim(ct_view(rv, CT_SHAPE(b, c)), CT_DIMS(0), false, CT_DEFAULT))))
            r = NULL;
        ct_grad_mode_restore(mode);
    }
    r = ct_keep(r ? ct_view(r, ct_shape_of(input)) : NULL);
    ct_scope_end(sc);
    return r;
}

ct_tensor *ct_group_norm(const ct_tensor *input, int64_t num_groups, const ct_tensor *weight, const ct_tensor *bias,
                         double eps)
{
    CT__ARG(input, "input", 1);
    char a[200];
    if (input->ndim < 2) {
        ct__fail(CT_ERR_RUNTIME, "Expected at least 2 dimensions for input tensor but received %d", input->ndim);
        return NULL;
    }
    int64_t n = input->sizes[0], c = input->sizes[1];
    if (num_groups <= 0 || c % num_groups) {
        ct__fail(CT_ERR_RUNTIME, "Expected number of channels in input to be divisible by num_groups, but got input of shape %s and num_groups=%lld",
                 ct__shape_str(input->sizes, input->ndim, a, sizeof a), (long long)num_groups);
        return NULL;
    }
    int64_t per_group = n * c / num_groups;
    for (int d = 2; d < input->ndim; d++) per_group *= input->sizes[d];
    if (per_group == 1) { /* PyTorch's _verify_batch_size on [N * C / G, G, *rest], a Python list */
        int64_t sizes[CT_MAX_DIMS];
        memcpy(sizes, input->sizes, sizeof sizes);
        sizes[0] = n * c / num_groups;
        sizes[1] = num_groups;
        ct__fail(CT_ERR_VALUE, "Expected more than 1 value per channel when training, got input size %s",
                 ct__shape_str(sizes, input->ndim, a, sizeof a));
        return NULL;
    }
    const ct_tensor *wb[2] = {weight, bias};
    for (int i = 0; i < 2; i++)
        if (wb[i] && (wb[i]->ndim != 1 || wb[i]->sizes[0] != c)) {
            char b[200];
            ct__fail(CT_ERR_RUNTIME, "Expected %s to be a vector of size equal to the number of channels in input, but got %s of shape %s and input of shape %s",
                     i ? "bias" : "weight", i ? "bias" : "weight", ct__shape_str(wb[i]->sizes, wb[i]->ndim, a, sizeof a),
                     ct__shape_str(input->sizes, input->ndim, b, sizeof b));
            return NULL;
        }
    ct__normspec s;
    memset(&s, 0, sizeof s);
    s.stat = CT_SHAPE(n, num_groups, -1);
    s.dims = CT_DIMS(2);
    s.affine = ct__channel_shape(input->ndim, c);
    s.eps = eps;
    ct_scope sc = ct_scope_begin();
    ct_tensor *r = ct_keep(ct__norm_apply(&ct__group_norm_type, &s, input, weight, bias));
    ct_scope_end(sc);
    return r;
}
