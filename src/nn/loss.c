/* Losses (torch.nn.functional): the ones PyTorch fuses (mse, smooth_l1,
 * huber, binary_cross_entropy[_with_logits], nll) compute with recording
 * off and record one node under PyTorch's name, whose backward is built of
 * differentiable ops; the others are compositions, as in PyTorch. */

static ct_result ct__check_reduction(ct_reduction r, bool batchmean_ok)
{
    if (r == CT_REDUCTION_MEAN || r == CT_REDUCTION_NONE || r == CT_REDUCTION_SUM || (batchmean_ok && r == CT_REDUCTION_BATCHMEAN))
        return CT_OK;
    if (r == CT_REDUCTION_BATCHMEAN) return ct__fail(CT_ERR_VALUE, "batchmean is not a valid value for reduction");
    return ct__fail(CT_ERR_VALUE, "%d is not a valid value for reduction", (int)r);
}

/* apply_loss_reduction: mean, sum, or the elements themselves. */
static ct_tensor *ct__reduce_loss(ct_tensor *elems, ct_reduction r)
{
    if (r == CT_REDUCTION_MEAN) return ct_mean(elems);
    if (r == CT_REDUCTION_SUM) return ct_sum(elems);
    return elems;
}

/* Input and target of a pointwise loss broadcast together (PyTorch warns
 * when their sizes differ; BCE refuses it). */
static ct_result ct__broadcast_pair(const ct_tensor **x, const ct_tensor **t, ct_tensor **keep)
{
    if ((*x)->ndim == (*t)->ndim && !memcmp((*x)->sizes, (*t)->sizes, (size_t)(*x)->ndim * sizeof(int64_t)))
        return CT_OK;
    ct_tensor *in[2] = {(ct_tensor *)*x, (ct_tensor *)*t};
    ct_result r = ct_broadcast_tensors(in, 2, keep);
    if (r != CT_OK) return r;
    *x = keep[0];
    *t = keep[1];
    return CT_OK;
}

/* ---------------------------------------------------------------- fused pointwise losses */

typedef enum ct__loss_kind { CT__LOSS_MSE, CT__LOSS_SMOOTH_L1, CT__LOSS_HUBER, CT__LOSS_BCE, CT__LOSS_BCE_LOGITS } ct__loss_kind;

/* A fused loss's operands: input, target, the optional weight and
 * pos_weight, and its number (beta, delta). */
typedef struct ct__loss_args {
    const ct_tensor *x, *t, *w, *pw;
    double a;
} ct__loss_args;

/* The loss of each element, with PyTorch's kernels' formulas. */
static ct_tensor *ct__loss_elems(ct__loss_kind kind, const ct__loss_args *o)
{
    const ct_tensor *x = o->x, *t = o->t;
    ct_tensor *d = kind <= CT__LOSS_HUBER ? ct_sub(x, t) : NULL, *l = NULL;
    ct_tensor *ad = d && kind != CT__LOSS_MSE ? ct_abs(d) : NULL; /* (only what is used: a failure must not go unseen) */
    switch (kind) {
    case CT__LOSS_MSE: l = ct_mul(d, d); break;
    case CT__LOSS_SMOOTH_L1: /* |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta */
        l = ct_where(ct_lt_scalar(ad, ct_float(o->a)), ct_div_scalar(ct_mul_scalar(ct_mul(d, d), ct_float(0.5)), ct_float(o->a)),
                     ct_sub_scalar(ad, ct_float(0.5 * o->a)));
        break;
    case CT__LOSS_HUBER: /* |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta) */
        l = ct_where(ct_lt_scalar(ad, ct_float(o->a)), ct_mul_scalar(ct_mul(d, d), ct_float(0.5)),
                     ct_mul_scalar(ct_sub_scalar(ad, ct_float(0.5 * o->a)), ct_float(o->a)));
        break;
    case CT__LOSS_BCE: /* (t - 1) max(log(1 - x), -100) - t max(log(x), -100) */
        l = ct_sub(ct_mul(ct_sub_scalar(t, ct_int(1)), ct_clamp_min_scalar(ct_log(ct_rsub_scalar(x, ct_int(1))), ct_int(-100))),
                   ct_mul(t, ct_clamp_min_scalar(ct_log(x), ct_int(-100))));
        break;
    case CT__LOSS_BCE_LOGITS: { /* (1 - t) x + lw (log(exp(-m) + exp(-x - m)) + m), m = max(-x, 0) */
        ct_tensor *m = ct_clamp_min_scalar(ct_neg(x), ct_int(0));
        ct_tensor *lse = ct_log(ct_add(ct_exp(ct_neg(m)), ct_exp(ct_sub(ct_neg(x), m))));
        ct_tensor *first = ct_mul(ct_rsub_scalar(t, ct_int(1)), x);
        if (o->pw) {
            ct_tensor *lw = ct_add_scalar(ct_mul(ct_sub_scalar(o->pw, ct_int(1)), t), ct_int(1));
            l = ct_add(first, ct_mul(lw, ct_add(lse, m)));
        } else {
            l = ct_add(ct_add(first, m), lse);
        }
        break;
    }
    }
    return o->w ? ct_mul(l, o->w) : l;
}

/* F.logsigmoid as PyTorch's kernel computes it: min(x, 0) - log1p(exp(-|x|)). */
static ct_tensor *ct__log_sigmoid(const ct_tensor *x)
{
    return ct_sub(ct_clamp_max_scalar(x, ct_int(0)), ct_log1p(ct_exp(ct_neg(ct_abs(x)))));
}

/* A BCE gradient reduced as PyTorch's backward reduces it: divided by
 * numel for the mean (mean_of; 0 for sum and none), where the other fused
 * losses' kernels multiply by 1 / numel, so that the last bit is its. */
static ct_tensor *ct__bce_reduce_grad(ct_tensor *grad, int64_t mean_of)
{
    return mean_of ? ct__div_number(grad, ct_int(mean_of)) : grad;
}

/* The input's gradient from g (the output's gradient, one per element, or
 * the one number), in PyTorch's backward kernels' order of operations;
 * mean_of: the number of elements the mean divides by, 0 for sum and none. */
static ct_tensor *ct__loss_input_grad(ct__loss_kind kind, const ct__loss_args *o, const ct_tensor *g, int64_t mean_of)
{
    const ct_tensor *x = o->x, *t = o->t;
    double norm = mean_of ? 1.0 / (double)mean_of : 1.0; /* (mse: twice that) */
    ct_tensor *d = kind <= CT__LOSS_HUBER ? ct_sub(x, t) : NULL, *gx = NULL;
    switch (kind) {
    case CT__LOSS_MSE: gx = ct_mul(ct_mul_scalar(d, ct_float(2 * norm)), g); break;
    case CT__LOSS_SMOOTH_L1: /* norm * clamp(d / beta, -1, 1) * g */
        gx = ct_mul(ct_mul_scalar(ct_clamp_scalar(ct_div_scalar(d, ct_float(o->a)), ct_int(-1), ct_int(1)), ct_float(norm)), g);
        break;
    case CT__LOSS_HUBER: gx = ct_mul(ct_mul_scalar(ct_clamp_scalar(d, ct_float(-o->a), ct_float(o->a)), ct_float(norm)), g); break;
    case CT__LOSS_BCE: /* g (x - t) / max((1 - x) x, 1e-12) */
        gx = ct_div(ct_mul(g, ct_sub(x, t)), ct_clamp_min_scalar(ct_mul(ct_rsub_scalar(x, ct_int(1)), x), ct_float(1e-12)));
        break;
    case CT__LOSS_BCE_LOGITS: /* ((pw t + 1 - t) sigmoid(x) - pw t) g */
        if (o->pw) {
            ct_tensor *pt = ct_mul(o->pw, t);
            gx = ct_mul(ct_sub(ct_mul(ct_sub(ct_add_scalar(pt, ct_int(1)), t), ct_sigmoid(x)), pt), g);
        } else {
            gx = ct_mul(ct_sub(ct_sigmoid(x), t), g);
        }
        break;
    }
    if (o->w) gx = ct_mul(gx, o->w);
    return kind >= CT__LOSS_BCE ? ct__bce_reduce_grad(gx, mean_of) : gx;
}

/* The target's gradient: -gx for the losses of x - t, else its own formula
 * (BCE: (log(1 - x) - log(x)) g; with logits: (log_sigmoid(-x) - pw log_sigmoid(x)) g). */
static ct_tensor *ct__loss_target_grad(ct__loss_kind kind, const ct__loss_args *o, const ct_tensor *g, int64_t mean_of,
                                       const ct_tensor *gx)
{
    const ct_tensor *x = o->x;
    ct_tensor *gt;
    if (kind <= CT__LOSS_HUBER) return ct_neg(gx);
    if (kind == CT__LOSS_BCE) gt = ct_mul(ct_sub(ct_log(ct_rsub_scalar(x, ct_int(1))), ct_log(x)), g);
    else if (o->pw) gt = ct_mul(ct_sub(ct__log_sigmoid(ct_neg(x)), ct_mul(ct__log_sigmoid(x), o->pw)), g);
    else gt = ct_mul(ct_neg(x), g);
    if (o->w) gt = ct_mul(gt, o->w);
    return ct__bce_reduce_grad(gt, mean_of);
}

/* iargs: 0 kind, 1 reduction, 2 has weight, 3 has pos_weight; args[0]: a. */
static ct__loss_args ct__loss_args_of(const ct__node *n, const ct_tensor *const *saved)
{
    ct__loss_args o = {saved[0], saved[1], n->iargs[2] ? saved[2] : NULL, n->iargs[3] ? saved[3] : NULL, n->args[0]};
    return o;
}

/* The number of elements the mean divides by; 0 for sum and none. */
static int64_t ct__loss_mean_of(const ct__node *n, const ct_tensor *x)
{
    return n->iargs[1] == CT_REDUCTION_MEAN ? ct_numel(x) : 0;
}

/* mse_loss_backward(g, x, t) and its kin: in = {g, x, t, weight, pos_weight} */
static ct_tensor *ct__loss_backward(const ct__node *n, const ct_tensor *const *in)
{
    ct__loss_args o = ct__loss_args_of(n, in + 1);
    return ct__loss_input_grad((ct__loss_kind)n->iargs[0], &o, in[0], ct__loss_mean_of(n, o.x));
}
CT__GRAD_OP(ct__mse_backward, "MseLossBackwardBackward0", ct__loss_backward, 3, 5);
CT__GRAD_OP(ct__smooth_l1_backward, "SmoothL1LossBackwardBackward0", ct__loss_backward, 3, 5);
CT__GRAD_OP(ct__huber_backward, "HuberLossBackwardBackward0", ct__loss_backward, 3, 5);
CT__GRAD_OP(ct__bce_backward, "BinaryCrossEntropyBackwardBackward0", ct__loss_backward, 3, 5);
/* PyTorch's backward ops, by kind; binary_cross_entropy_with_logits has none (its backward is a composite) */
static const ct__grad_op *const ct__loss_backward_ops[] = {&ct__mse_backward, &ct__smooth_l1_backward,
                                                            &ct__huber_backward, &ct__bce_backward, NULL};

/* Saved: input, target, weight, pos_weight (input again where absent). */
CT__BACKWARD(pointwise_loss)
{
    const ct_tensor *in[5] = {go[0], CT__S(0), CT__S(1), CT__S(2), CT__S(3)};
    if (!in[1] || !in[2] || !in[3] || !in[4]) return ct_last_error_code();
    ct__loss_kind kind = (ct__loss_kind)n->iargs[0];
    ct__loss_args o = ct__loss_args_of(n, in + 1);
    const ct__grad_op *op = ct__loss_backward_ops[kind];
    int64_t mean_of = ct__loss_mean_of(n, o.x);
    ct_tensor *gx = NULL;
    if (ct__needs_grad(n, 0) || (ct__needs_grad(n, 1) && kind <= CT__LOSS_HUBER)) {
        gx = op ? ct__grad_op_apply(op, n, in) : ct__loss_input_grad(kind, &o, go[0], mean_of);
        if (!gx) return ct_last_error_code();
    }
    CT__GRAD(0, gx);
    CT__GRAD(1, ct__loss_target_grad(kind, &o, go[0], mean_of, gx));
    return CT_OK;
}

static const ct__node_type ct__loss_types[] = {
    {"MseLossBackward0", ct__bw_pointwise_loss},
    {"SmoothL1LossBackward0", ct__bw_pointwise_loss},
    {"HuberLossBackward0", ct__bw_pointwise_loss},
    {"BinaryCrossEntropyBackward0", ct__bw_pointwise_loss},
    {"BinaryCrossEntropyWithLogitsBackward0", ct__bw_pointwise_loss},
};

/* The fused loss: computed unrecorded, one node recorded. */
static ct_tensor *ct__fused_loss(ct__loss_kind kind, const ct__loss_args *o, ct_reduction reduction)
{
    ct_tensor *r;
    CT__UNRECORDED(r, ct__reduce_loss(ct__loss_elems(kind, o), reduction));
    const ct_tensor *in[2] = {o->x, o->t};
    if (!r || ct__recordable(in, 2) != CT_OK) return NULL;
    ct__node *node = ct__record(&ct__loss_types[kind], in, 2, &r, 1);
    if (node) {
        node->iargs[0] = kind;
        node->iargs[1] = reduction;
        node->iargs[2] = o->w != NULL;
        node->iargs[3] = o->pw != NULL;
        node->args[0] = o->a;
        ct__save(node, o->x, false);
        ct__save(node, o->t, false);
        ct__save(node, o->w ? o->w : o->x, false);
        ct__save(node, o->pw ? o->pw : o->x, false);
    }
    return ct__recorded_ok(node, in, 2) ? r : ct__unrecordable(r);
}

/* The pointwise losses' common front end: checks, broadcasting, a scope. */
static ct_tensor *ct__pointwise_loss(ct__loss_kind kind, const ct_tensor *input, const ct_tensor *target,
                                     ct_reduction reduction, double a)
{
    CT__ARG(input, "input", 1);
    CT__ARG(target, "target", 2);
    if (ct__check_reduction(reduction, false) != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    ct__loss_args o = {input, target, NULL, NULL, a};
    ct_tensor *keep[2], *r = NULL;
    if (ct__broadcast_pair(&o.x, &o.t, keep) == CT_OK) r = ct_keep(ct__fused_loss(kind, &o, reduction));
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_mse_loss(const ct_tensor *input, const ct_tensor *target, ct_reduction reduction)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_mse_loss(input, target, reduction), &input, &target);
    return ct__pointwise_loss(CT__LOSS_MSE, input, target, reduction, 0);
}

ct_tensor *ct_l1_loss(const ct_tensor *input, const ct_tensor *target, ct_reduction reduction)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_l1_loss(input, target, reduction), &input, &target);
    CT__ARG(input, "input", 1);
    CT__ARG(target, "target", 2);
    if (ct__check_reduction(reduction, false) != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct_keep(ct__reduce_loss(ct_abs(ct_sub(input, target)), reduction));
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_smooth_l1_loss(const ct_tensor *input, const ct_tensor *target, ct_reduction reduction, double beta)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_smooth_l1_loss(input, target, reduction, beta), &input, &target);
    if (beta < 0) {
        ct__fail(CT_ERR_RUNTIME, "smooth_l1_loss does not support negative values for beta.");
        return NULL;
    }
    if (beta == 0) return ct_l1_loss(input, target, reduction);
    return ct__pointwise_loss(CT__LOSS_SMOOTH_L1, input, target, reduction, beta);
}

ct_tensor *ct_huber_loss(const ct_tensor *input, const ct_tensor *target, ct_reduction reduction, double delta)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_huber_loss(input, target, reduction, delta), &input, &target);
    if (!(delta > 0)) {
        ct__fail(CT_ERR_RUNTIME, "huber_loss does not support non-positive values for delta.");
        return NULL;
    }
    return ct__pointwise_loss(CT__LOSS_HUBER, input, target, reduction, delta);
}

/* "torch.Size([2, 3])" */
static const char *ct__torch_size(const ct_tensor *t, char *buf, size_t n)
{
    char dims[200];
    snprintf(buf, n, "torch.Size(%s)", ct__shape_str(t->sizes, t->ndim, dims, sizeof dims));
    return buf;
}

static bool ct__same_shape(const ct_tensor *a, const ct_tensor *b)
{
    return a->ndim == b->ndim && !memcmp(a->sizes, b->sizes, (size_t)a->ndim * sizeof(int64_t));
}

ct_tensor *ct_binary_cross_entropy(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
                                   ct_reduction reduction)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_binary_cross_entropy(input, target, weight, reduction), &input, &target, &weight);
    CT__ARG(input, "input", 1);
    CT__ARG(target, "target", 2);
    if (ct__check_reduction(reduction, false) != CT_OK) return NULL;
    char a[240], b[240];
    if (!ct__same_shape(input, target)) {
        ct__fail(CT_ERR_VALUE, "Using a target size (%s) that is different to the input size (%s) is deprecated. Please ensure they have the same size.",
                 ct__torch_size(target, a, sizeof a), ct__torch_size(input, b, sizeof b));
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r = NULL, *lo = ct_numel(input) ? ct_min(input) : NULL, *hi = ct_numel(input) ? ct_max(input) : NULL;
    if (lo && hi && !(ct_item(lo) >= 0 && ct_item(hi) <= 1)) {
        ct__fail(CT_ERR_RUNTIME, "all elements of input should be between 0 and 1");
    } else {
        ct__loss_args o = {input, target, weight ? ct_expand_as(weight, input) : NULL, NULL, 0};
        if (!weight || o.w) r = ct_keep(ct__fused_loss(CT__LOSS_BCE, &o, reduction));
    }
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_binary_cross_entropy_with_logits(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
                                               const ct_tensor *pos_weight, ct_reduction reduction)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction), &input,
                 &target, &weight, &pos_weight);
    CT__ARG(input, "input", 1);
    CT__ARG(target, "target", 2);
    if (ct__check_reduction(reduction, false) != CT_OK) return NULL;
    char a[240], b[240];
    if (!ct__same_shape(input, target)) {
        ct__fail(CT_ERR_VALUE, "Target size (%s) must be the same as input size (%s)", ct__torch_size(target, a, sizeof a),
                 ct__torch_size(input, b, sizeof b));
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct__loss_args o = {input, target, weight ? ct_expand_as(weight, input) : NULL,
                       pos_weight ? ct_expand_as(pos_weight, input) : NULL, 0};
    ct_tensor *r = NULL;
    if ((!weight || o.w) && (!pos_weight || o.pw)) r = ct_keep(ct__fused_loss(CT__LOSS_BCE_LOGITS, &o, reduction));
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- nll_loss */

ct_nll_loss_opts ct_nll_loss_opts_init(void)
{
    ct_nll_loss_opts o;
    memset(&o, 0, sizeof o);
    o.ignore_index = -100;
    return o;
}

/* Saved: the (N, C, ...) input, a (N, 1, ...) target with ignored entries
 * made 0, and each element's weight (0 where ignored), target-shaped with a
 * size-1 class dim; iargs[0] the reduction; saved 3: the total weight. */
/* nll_loss_backward(g, x, t, w, total): in = {g, x, t, w, total} */
static ct_tensor *ct__nll_grad(const ct__node *n, const ct_tensor *const *in)
{
    const ct_tensor *x = in[1], *t = in[2], *w = in[3], *total = in[4];
    ct_reduction r = (ct_reduction)n->iargs[0];
    const ct_tensor *g = r == CT_REDUCTION_NONE ? ct_unsqueeze(in[0], 1) : r == CT_REDUCTION_MEAN ? ct_div(in[0], total) : in[0];
    return ct_scatter(ct_zeros_like(x, CT_DEFAULT), 1, t, ct_neg(ct_mul(w, ct_expand_as(g, w))));
}
CT__GRAD_OP(ct__nll_backward, "NllLossBackwardBackward0", ct__nll_grad, 2, 5);
CT__GRAD_OP(ct__nll2d_backward, "NllLoss2DBackwardBackward0", ct__nll_grad, 2, 5);
CT__BACKWARD_OP(nll, &ct__nll_backward, CT__S(0), CT__S(1), CT__S(2), CT__S(3))
CT__BACKWARD_OP(nll2d, &ct__nll2d_backward, CT__S(0), CT__S(1), CT__S(2), CT__S(3))

static const ct__node_type ct__nll_type = {"NllLossBackward0", ct__bw_nll};
static const ct__node_type ct__nll2d_type = {"NllLoss2DBackward0", ct__bw_nll2d};

/* nll_loss_nd's checks: input (N, C, d1, ...) or (C), target (N, d1, ...) or (). */
static ct_result ct__nll_check(const ct_tensor *x, const ct_tensor *t, const ct_nll_loss_opts *o)
{
    char a[200], b[200];
    if (x->ndim < 1) return ct__fail(CT_ERR_VALUE, "Expected 1 or more dimensions (got %d)", x->ndim);
    if (x->ndim != 1 && (t->ndim < 1 || x->sizes[0] != t->sizes[0]))
        return ct__fail(CT_ERR_VALUE, "Expected input batch_size (%lld) to match target batch_size (%lld).",
                        (long long)x->sizes[0], (long long)(t->ndim ? t->sizes[0] : 1));
    if (x->ndim <= 2 && t->ndim > 1) return ct__fail(CT_ERR_RUNTIME, "0D or 1D target tensor expected, multi-target not supported");
    if (x->ndim == 1 && t->ndim != 0)
        return ct__fail(CT_ERR_RUNTIME, "size mismatch (got input: %s, target: %s)", ct__shape_str(x->sizes, 1, a, sizeof a),
                        ct__shape_str(t->sizes, t->ndim, b, sizeof b));
    if (x->ndim > 2 && (t->ndim != x->ndim - 1 || memcmp(t->sizes + 1, x->sizes + 2, (size_t)(t->ndim - 1) * sizeof(int64_t)))) {
        int64_t out[CT_MAX_DIMS];
        out[0] = x->sizes[0];
        for (int d = 2; d < x->ndim; d++) out[d - 1] = x->sizes[d];
        return ct__fail(CT_ERR_RUNTIME, "Expected target size %s, got %s", ct__shape_str(out, x->ndim - 1, a, sizeof a),
                        ct__shape_str(t->sizes, t->ndim, b, sizeof b));
    }
    int64_t c = x->sizes[x->ndim == 1 ? 0 : 1];
    if (o->weight && (o->weight->ndim != 1 || o->weight->sizes[0] != c))
        return ct__fail(CT_ERR_RUNTIME, "weight tensor should be defined either for all %lld classes or no classes but got weight tensor of shape: %s",
                        (long long)c, ct__shape_str(o->weight->sizes, o->weight->ndim, a, sizeof a));
    if (t->dtype != CT_I64) return ct__fail(CT_ERR_RUNTIME, "expected scalar type Long but found %s", ct__dtype_title(t->dtype));
    int64_t nt = ct_numel(t);
    int64_t *v = (int64_t *)CT_MALLOC((size_t)(nt + 1) * sizeof *v);
    if (!v) return CT__OOM();
    ct_result r = ct_copy_to_array(t, v, nt, CT_I64);
    for (int64_t i = 0; r == CT_OK && i < nt; i++)
        if (v[i] != o->ignore_index && (v[i] < 0 || v[i] >= c))
            r = ct__fail(CT_ERR_INDEX, "Target %lld is out of bounds.", (long long)v[i]);
    CT_FREE(v);
    return r;
}

/* nll_loss on checked operands, recording NllLossBackward0 (NllLoss2DBackward0 past 2-D). */
static ct_tensor *ct__nll(const ct_tensor *input, const ct_tensor *target, const ct_nll_loss_opts *o)
{
    bool one = input->ndim == 1;
    ct_tensor *x = one ? ct_unsqueeze(input, 0) : (ct_tensor *)input, *t = one ? ct_unsqueeze(target, 0) : (ct_tensor *)target;
    ct_tensor *keep = ct_ne_scalar(t, ct_int(o->ignore_index));
    ct_tensor *safe = ct_unsqueeze(ct_where_scalar_other(keep, t, ct_int(0)), 1);
    ct_tensor *w = o->weight ? ct_view_as(ct_index_select(o->weight, 0, ct_reshape(safe, CT_SHAPE(-1))), safe)
                             : ct_ones_like(safe, input->dtype);
    w = ct_mul(w, ct_unsqueeze(keep, 1));
    ct_tensor *total = ct_sum(w), *r;
    ct_grad_mode mode = ct_set_grad_enabled(false);
    ct_tensor *loss = ct_squeeze_dim(ct_neg(ct_mul(ct_gather(x, 1, safe), w)), 1);
    if (o->reduction == CT_REDUCTION_NONE) r = ct_reshape(loss, ct_shape_of(target));
    else if (o->reduction == CT_REDUCTION_SUM) r = ct_sum(loss);
    else r = ct_div(ct_sum(loss), total);
    ct_grad_mode_restore(mode);
    if (!r || ct__recordable(&input, 1) != CT_OK) return NULL;
    ct__node *node = ct__record(input->ndim > 2 ? &ct__nll2d_type : &ct__nll_type, &input, 1, &r, 1);
    if (node) {
        node->iargs[0] = o->reduction;
        ct__save(node, x, false);
        ct__save(node, safe, false);
        ct__save(node, w, false);
        ct__save(node, total, false);
    }
    return ct__recorded_ok(node, &input, 1) ? r : ct__unrecordable(r);
}

ct_tensor *ct_nll_loss(const ct_tensor *input, const ct_tensor *target, ct_nll_loss_opts opts)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_nll_loss(input, target, opts), &input, &target, &opts.weight);
    CT__ARG(input, "input", 1);
    CT__ARG(target, "target", 2);
    if (ct__check_reduction(opts.reduction, false) != CT_OK || ct__nll_check(input, target, &opts) != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct_keep(ct__nll(input, target, &opts));
    ct_scope_end(s);
    return r;
}

/* The class weights seen against the input: (C) at the class dim. */
static ct_tensor *ct__class_weight(const ct_tensor *w, int ndim, int class_dim)
{
    ct_shape s = CT_SHAPE0;
    s.ndim = ndim;
    for (int d = 0; d < ndim; d++) s.size[d] = d == class_dim ? -1 : 1;
    return ct_view(w, s);
}

/* cross_entropy with class probabilities (cross_entropy_loss_prob_target). */
static ct_tensor *ct__ce_probs(const ct_tensor *logp, const ct_tensor *target, const ct_nll_loss_opts *o, int class_dim)
{
    int64_t c = logp->sizes[class_dim];
    ct_tensor *t = (ct_tensor *)target;
    if (o->label_smoothing > 0)
        t = ct_add_scalar(ct_mul_scalar(t, ct_float(1 - o->label_smoothing)), ct_float(o->label_smoothing / (double)c));
    ct_tensor *prod = ct_mul(logp, t);
    if (o->weight) prod = ct_mul(prod, ct__class_weight(o->weight, logp->ndim, class_dim));
    if (o->reduction == CT_REDUCTION_MEAN) return ct_div_scalar(ct_neg(ct_sum(prod)), ct_int(ct_numel(logp) / (c ? c : 1)));
    if (o->reduction == CT_REDUCTION_SUM) return ct_neg(ct_sum(prod));
    return ct_neg(ct_sum_dim(prod, CT_DIMS(class_dim), false, CT_DEFAULT));
}

/* cross_entropy_loss_label_smoothing: (1 - ls) nll + ls / C * smooth. */
static ct_tensor *ct__ce_smoothed(const ct_tensor *logp, const ct_tensor *target, const ct_nll_loss_opts *o, int class_dim)
{
    int64_t c = logp->sizes[class_dim];
    ct_tensor *nll = ct__nll(logp, target, o);
    ct_tensor *ignore = ct_eq_scalar(target, ct_int(o->ignore_index));
    ct_tensor *lw = o->weight ? ct_mul(logp, ct__class_weight(o->weight, logp->ndim, class_dim)) : (ct_tensor *)logp;
    ct_tensor *smooth = ct_masked_fill_scalar(ct_neg(ct_sum_dim(lw, CT_DIMS(class_dim), false, CT_DEFAULT)), ignore, ct_float(0));
    ct_tensor *ret = smooth;
    if (o->reduction == CT_REDUCTION_MEAN && o->weight)
        ret = ct_div(ct_sum(smooth), ct_sum(ct_index_select(o->weight, 0, ct_masked_select(target, ct_logical_not(ignore)))));
    else if (o->reduction == CT_REDUCTION_MEAN)
        ret = ct_mean(smooth);
    else if (o->reduction == CT_REDUCTION_SUM)
        ret = ct_sum(smooth);
    return ct_add(ct_mul_scalar(nll, ct_float(1 - o->label_smoothing)),
                  ct_mul_scalar(ret, ct_float(o->label_smoothing / (double)c)));
}

ct_tensor *ct_cross_entropy(const ct_tensor *input, const ct_tensor *target, ct_nll_loss_opts opts)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_cross_entropy(input, target, opts), &input, &target, &opts.weight);
    CT__ARG(input, "input", 1);
    CT__ARG(target, "target", 2);
    if (ct__check_reduction(opts.reduction, false) != CT_OK) return NULL;
    if (!(opts.label_smoothing >= 0 && opts.label_smoothing <= 1)) {
        ct__fail(CT_ERR_RUNTIME, "label_smoothing must be between 0.0 and 1.0. Got: %g", opts.label_smoothing);
        return NULL;
    }
    int class_dim = input->ndim == 1 ? 0 : 1;
    bool probs = ct__same_shape(input, target);
    if (probs && !ct_dtype_is_floating(target->dtype)) {
        ct__fail(CT_ERR_RUNTIME, "Expected floating point type for target with class probabilities, got %s",
                 ct__dtype_title(target->dtype));
        return NULL;
    }
    if (probs && opts.ignore_index >= 0) {
        ct__fail(CT_ERR_RUNTIME, "ignore_index is not supported for floating point target");
        return NULL;
    }
    if (!probs && (ct__nll_check(input, target, &opts) != CT_OK)) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *logp = ct_log_softmax(input, class_dim, CT_DEFAULT), *r;
    if (!logp) r = NULL;
    else if (probs) r = ct__ce_probs(logp, target, &opts, class_dim);
    else if (opts.label_smoothing > 0) r = ct__ce_smoothed(logp, target, &opts, class_dim);
    else r = ct__nll(logp, target, &opts);
    r = ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- composite losses */

ct_tensor *ct_kl_div(const ct_tensor *input, const ct_tensor *target, ct_reduction reduction, bool log_target)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_kl_div(input, target, reduction, log_target), &input, &target);
    CT__ARG(input, "input", 1);
    CT__ARG(target, "target", 2);
    if (ct__check_reduction(reduction, true) != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *out = log_target ? ct_mul(ct_exp(target), ct_sub(target, input))
                                : ct_sub(ct_xlogy(target, target), ct_mul(target, input));
    ct_tensor *r;
    if (reduction == CT_REDUCTION_BATCHMEAN)
        r = input->ndim ? ct_div_scalar(ct_sum(out), ct_int(input->sizes[0])) : ct_sum(out);
    else
        r = ct__reduce_loss(out, reduction);
    r = ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* The three tensors of a pairwise loss (named as PyTorch names them) and its reduction. */
static bool ct__loss3_ok(const char *fn, const ct_tensor *const *t, const char *const *names, ct_reduction reduction)
{
    for (int i = 0; i < 3; i++)
        if (!t[i]) {
            ct__null_arg(fn, names[i], i + 1);
            return false;
        }
    return ct__check_reduction(reduction, false) == CT_OK;
}

static const char *const ct__pair_names[3] = {"input1", "input2", "target"};

ct_tensor *ct_cosine_embedding_loss(const ct_tensor *input1, const ct_tensor *input2, const ct_tensor *target,
                                    double margin, ct_reduction reduction)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_cosine_embedding_loss(input1, input2, target, margin, reduction), &input1, &input2,
                 &target);
    const ct_tensor *args[3] = {input1, input2, target};
    if (!ct__loss3_ok(__func__, args, ct__pair_names, reduction)) return NULL;
    char a[200], b[200];
    int td = target->ndim;
    if (td > 1) {
        ct__fail(CT_ERR_RUNTIME, "0D or 1D target tensor expected, multi-target not supported");
        return NULL;
    }
    if ((td == 1 && (input1->ndim != 2 || input2->ndim != 2)) || (td == 0 && (input1->ndim != 1 || input2->ndim != 1))) {
        ct__fail(CT_ERR_RUNTIME, "%dD target tensor expects %dD input tensors, but found inputs with sizes %s and %s.", td,
                 td + 1, ct__shape_str(input1->sizes, input1->ndim, a, sizeof a),
                 ct__shape_str(input2->sizes, input2->ndim, b, sizeof b));
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    const double eps = 1e-12;
    ct_tensor *prod = ct_sum_dim(ct_mul(input1, input2), CT_DIMS(td), false, CT_DEFAULT);
    ct_tensor *m1 = ct_add_scalar(ct_sum_dim(ct_mul(input1, input1), CT_DIMS(td), false, CT_DEFAULT), ct_float(eps));
    ct_tensor *m2 = ct_add_scalar(ct_sum_dim(ct_mul(input2, input2), CT_DIMS(td), false, CT_DEFAULT), ct_float(eps));
    ct_tensor *cosv = ct_div(prod, ct_sqrt(ct_mul(m1, m2)));
    ct_tensor *zeros = ct_zeros_like(cosv, CT_DEFAULT);
    ct_tensor *pos = ct_where(ct_eq_scalar(target, ct_int(1)), ct_rsub_scalar(cosv, ct_int(1)), zeros);
    ct_tensor *neg = ct_where(ct_eq_scalar(target, ct_int(-1)), ct_clamp_min_scalar(ct_sub_scalar(cosv, ct_float(margin)), ct_int(0)), zeros);
    ct_tensor *r = ct_keep(ct__reduce_loss(ct_add(pos, neg), reduction));
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_margin_ranking_loss(const ct_tensor *input1, const ct_tensor *input2, const ct_tensor *target,
                                  double margin, ct_reduction reduction)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_margin_ranking_loss(input1, input2, target, margin, reduction), &input1, &input2,
                 &target);
    const ct_tensor *args[3] = {input1, input2, target};
    if (!ct__loss3_ok(__func__, args, ct__pair_names, reduction)) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *out = ct_clamp_min_scalar(ct_add_scalar(ct_mul(ct_neg(target), ct_sub(input1, input2)), ct_float(margin)), ct_int(0));
    ct_tensor *r = ct_keep(ct__reduce_loss(out, reduction));
    ct_scope_end(s);
    return r;
}

ct_triplet_margin_loss_opts ct_triplet_margin_loss_opts_init(void)
{
    ct_triplet_margin_loss_opts o;
    memset(&o, 0, sizeof o);
    o.margin = 1;
    o.p = 2;
    o.eps = 1e-6;
    return o;
}

/* F.pairwise_distance(a, b, p, eps): the p-norm of a - b + eps over the last dim. */
static ct_tensor *ct__pairwise_distance(const ct_tensor *a, const ct_tensor *b, double p, double eps)
{
    int dim = CT__MAX(a->ndim, b->ndim) - 1;
    return ct_norm_dim(ct_add_scalar(ct_sub(a, b), ct_float(eps)), p, CT_DIMS(dim), false, CT_DEFAULT);
}

ct_tensor *ct_triplet_margin_loss(const ct_tensor *anchor, const ct_tensor *positive, const ct_tensor *negative,
                                  ct_triplet_margin_loss_opts opts)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_triplet_margin_loss(anchor, positive, negative, opts), &anchor, &positive,
                 &negative);
    static const char *const names[3] = {"anchor", "positive", "negative"};
    const ct_tensor *args[3] = {anchor, positive, negative};
    if (!ct__loss3_ok(__func__, args, names, opts.reduction)) return NULL;
    if (anchor->ndim != positive->ndim || anchor->ndim != negative->ndim) {
        ct__fail(CT_ERR_RUNTIME, "All inputs should have same dimension but got %dD, %dD and %dD inputs.", anchor->ndim,
                 positive->ndim, negative->ndim);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *dpos = ct__pairwise_distance(anchor, positive, opts.p, opts.eps);
    ct_tensor *dneg = ct__pairwise_distance(anchor, negative, opts.p, opts.eps);
    if (opts.swap) dneg = ct_minimum(dneg, ct__pairwise_distance(positive, negative, opts.p, opts.eps));
    ct_tensor *out = ct_clamp_min_scalar(ct_sub(ct_add_scalar(dpos, ct_float(opts.margin)), dneg), ct_int(0));
    ct_tensor *r = ct_keep(ct__reduce_loss(out, opts.reduction));
    ct_scope_end(s);
    return r;
}
