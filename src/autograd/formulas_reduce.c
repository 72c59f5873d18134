/* Backward formulas of the reductions, scans and selections (reduce.c and
 * sort.c record them). They follow PyTorch 1.13's derivatives.yaml and
 * FunctionsManual.cpp step for step, so that gradients agree to the bit. */

/* ---------------------------------------------------------------- shapes */

/* The reduced dims of mask as a list. */
static ct_shape ct__mask_dims(uint32_t mask, int ndim)
{
    ct_shape dims;
    dims.ndim = 0;
    for (int d = 0; d < ndim; d++)
        if ((mask >> d) & 1) dims.size[dims.ndim++] = d;
    return dims;
}

/* A reduction's result (or its gradient) with the reduced dims put back as
 * size 1 (restore_reduced_dims, unsqueeze_multiple). */
static ct_tensor *ct__restore_dims(const ct_tensor *g, const ct__out_meta *in, uint32_t mask, bool keepdim)
{
    ct_tensor *r = (ct_tensor *)g;
    if (!keepdim)
        for (int d = 0; d < in->ndim && r; d++)
            if ((mask >> d) & 1) r = ct_unsqueeze(r, d);
    return r;
}

/* The gradient of a reduction's result spread back over the input's shape. */
static ct_tensor *ct__unreduce(const ct_tensor *g, const ct__out_meta *in, uint32_t mask, bool keepdim)
{
    ct_tensor *r = ct__restore_dims(g, in, mask, keepdim);
    return r ? ct_expand(r, ct_shape_make(in->ndim, in->sizes)) : NULL;
}

/* How many input elements went into each result element. */
static int64_t ct__reduced_count(const ct__out_meta *in, uint32_t mask)
{
    int64_t count = 1;
    for (int d = 0; d < in->ndim; d++)
        if ((mask >> d) & 1) count *= in->sizes[d];
    return count;
}

/* The node's saved tensors, in this order: input, result, indices. */
#define CT__SAVE_INPUT 1u
#define CT__SAVE_RES 2u
#define CT__SAVE_IDX 4u

static int ct__rg_slot(const ct__node *n, unsigned what)
{
    int slot = 0;
    for (unsigned bit = 1; bit < what; bit <<= 1) slot += (n->iargs[5] & bit) != 0;
    return slot;
}

#define CT__X CT__S(ct__rg_slot(n, CT__SAVE_INPUT))
#define CT__R CT__S(ct__rg_slot(n, CT__SAVE_RES))
#define CT__IDX CT__S(ct__rg_slot(n, CT__SAVE_IDX))
#define CT__MASK ((uint32_t)n->iargs[0])
#define CT__KEEPDIM (n->iargs[1] != 0)
#define CT__DIM ((int)n->iargs[2])
#define CT__CORRECTION (n->iargs[3])
#define CT__P (n->args[0])
#define CT__IN_META ct__input_meta(n, 0)

/* ---------------------------------------------------------------- sums and products */

CT__BACKWARD(sum)
{
    CT__GRAD(0, ct__unreduce(go[0], CT__IN_META, CT__MASK, CT__KEEPDIM));
    return CT_OK;
}

CT__BACKWARD(nansum) /* NaNs took no part */
{
    CT__GRAD(0, ct_where_scalar_self(ct_isnan(CT__X), ct_int(0), ct__unreduce(go[0], CT__IN_META, CT__MASK, CT__KEEPDIM)));
    return CT_OK;
}

/* mean_backward: the gradient spread evenly */
static ct_tensor *ct__mean_backward(const ct_tensor *g, const ct__out_meta *in, uint32_t mask, bool keepdim)
{
    return ct_div_scalar(ct__unreduce(g, in, mask, keepdim), ct_int(ct__reduced_count(in, mask)));
}

CT__BACKWARD(mean)
{
    CT__GRAD(0, ct__mean_backward(go[0], CT__IN_META, CT__MASK, CT__KEEPDIM));
    return CT_OK;
}

/* prod_safe_zeros_backward: the product of all the others, for each
 * element along dim, as the exclusive products from the front times those
 * from the back, which stays right when elements are zero. */
static ct_tensor *ct__prod_safe_zeros(const ct_tensor *g, const ct_tensor *x, int dim)
{
    if (ct_numel(x) == 0) return ct_expand(g, ct_shape_of(x));
    int64_t len = x->sizes[dim];
    ct_shape ones_size = ct_shape_of(x);
    ones_size.size[dim] = 1;
    ct_tensor *ones = ct_ones(ones_size, g->dtype);
    ct_tensor *front[2] = {ones, ct_narrow(x, dim, 0, len - 1)};
    ct_tensor *back[2] = {ones, ct_flip(ct_narrow(x, dim, 1, len - 1), ct__mask_dims(1u << dim, x->ndim))};
    ct_tensor *normal = ct_cumprod(ct_cat(front, 2, dim), dim, CT_DEFAULT);
    ct_tensor *reverse = ct_flip(ct_cumprod(ct_cat(back, 2, dim), dim, CT_DEFAULT), ct__mask_dims(1u << dim, x->ndim));
    return ct_mul(g, ct_mul(normal, reverse));
}

/* prod_backward: g * result / x without zeros; else the safe products (for
 * the product of everything, zeros when two are zero and no graph is made) */
CT__BACKWARD(prod)
{
    ct_tensor *x = CT__X, *r = CT__R, *g = go[0];
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (!x || !r) return ct_last_error_code();
    if (x->dtype != g->dtype) x = ct_to(x, g->dtype); /* prod(dtype=...): self.to(grad's dtype) */
    if (x && x->ndim == 0) {
        CT__GRAD(0, g);
        return CT_OK;
    }
    bool all = !n->iargs[4];
    int dim = 0;
    while (!all && !((CT__MASK >> dim) & 1)) dim++; /* the one reduced dim */
    if (!all && !CT__KEEPDIM) g = ct_unsqueeze(g, dim), r = ct_unsqueeze(r, dim);
    ct_tensor *zeros = x && g && r ? ct_sum(ct_eq_scalar(x, ct_int(0))) : NULL;
    if (!zeros) return ct_last_error_code();
    int64_t nz = ct_item_int(zeros);
    if (nz == 0) CT__GRAD(0, ct_mul(g, ct_div(r, x)));
    else if (all && nz > 1 && !ct_is_grad_enabled()) CT__GRAD(0, ct_zeros_like(x, CT_DEFAULT));
    else if (all) CT__GRAD(0, ct_view_as(ct__prod_safe_zeros(g, ct_reshape(x, CT_SHAPE(-1)), 0), x));
    else CT__GRAD(0, ct__prod_safe_zeros(g, x, dim));
    return CT_OK;
}

/* ---------------------------------------------------------------- extremes */

/* amax / amin (scale_grad_by_count): shared evenly by the elements equal to
 * their slice's extreme */
CT__BACKWARD(amax)
{
    const ct__out_meta *in = CT__IN_META;
    ct_tensor *mask = ct_eq(ct__restore_dims(CT__R, in, CT__MASK, CT__KEEPDIM), CT__X);
    ct_tensor *count = ct_sum_dim(mask, ct__mask_dims(CT__MASK, in->ndim), true, CT_DEFAULT);
    CT__GRAD(0, ct_mul(ct_div(ct__restore_dims(go[0], in, CT__MASK, CT__KEEPDIM), count), mask));
    return CT_OK;
}

/* evenly_distribute_backward: max(), min(), median() to one value share the
 * gradient among the elements equal to it (the NaNs, when it is NaN) */
CT__BACKWARD(evenly)
{
    ct_tensor *x = CT__X, *v = CT__R;
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (!x || !v) return ct_last_error_code();
    ct_tensor *mask = isnan(ct_item(v)) ? ct_isnan(x) : ct_eq(x, v);
    CT__GRAD(0, ct_where_scalar_other(mask, ct_div(go[0], ct_sum(mask)), ct_int(0)));
    return CT_OK;
}

/* value_selecting_reduction_backward: each gradient element goes to the
 * input element its index names; the rest get zero */
CT__BACKWARD(select)
{
    const ct__out_meta *in = CT__IN_META;
    ct_tensor *g = go[0], *idx = CT__IDX;
    if (!CT__KEEPDIM && in->ndim > 0) g = ct_unsqueeze(g, CT__DIM), idx = idx ? ct_unsqueeze(idx, CT__DIM) : NULL;
    CT__GRAD(0, ct_scatter(ct_zeros(ct_shape_make(in->ndim, in->sizes), go[0]->dtype), CT__DIM, idx, g));
    return CT_OK;
}

/* ---------------------------------------------------------------- statistics */

/* var_backward: 2 / (N - correction) * g * (x - mean) */
static ct_tensor *ct__var_backward(const ct__node *n, ct_tensor *g, const ct_tensor *x)
{
    const ct__out_meta *in = ct__input_meta(n, 0);
    bool all = x->ndim == 0 || !n->iargs[4];
    int64_t dof = (all ? ct_numel(x) : ct__reduced_count(in, CT__MASK)) - CT__CORRECTION;
    if (all && dof == 0) /* 2 / 0 */
        return ct_expand(ct_mul_scalar(g, ct_float(INFINITY)), ct_shape_of(x));
    if (!all && !CT__KEEPDIM && x->ndim > 1) g = ct__restore_dims(g, in, CT__MASK, false);
    ct_tensor *mean = all ? ct_mean(x) : ct_mean_dim(x, ct__mask_dims(CT__MASK, x->ndim), true, CT_DEFAULT);
    return ct_mul(ct_mul_scalar(g, ct_float(2.0 / (double)dof)), ct_sub(x, mean));
}

/* std_backward: the variance's, through d sqrt(v) = dv / (2 sqrt(v)), with
 * zero where the deviation is zero */
static ct_tensor *ct__std_backward(const ct__node *n, const ct_tensor *g, const ct_tensor *x, const ct_tensor *std)
{
    ct_tensor *gv = ct_where_scalar_self(ct_eq_scalar(std, ct_int(0)), ct_int(0), ct_div(g, ct_mul_scalar(std, ct_int(2))));
    return gv ? ct__var_backward(n, gv, x) : NULL;
}

/* std, var, and with their means (var_std_mean_backward) */
static ct_result ct__var_std_backward(ct__node *n, ct_tensor *const *go, ct_tensor **gi, bool is_std)
{
    ct_tensor *x = CT__X;
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (!x) return ct_last_error_code();
    ct_tensor *g = is_std ? ct__std_backward(n, go[0], x, CT__R) : ct__var_backward(n, go[0], x);
    if (g && n->n_out == 2) g = ct_add(g, ct__mean_backward(go[1], CT__IN_META, CT__MASK, CT__KEEPDIM));
    CT__GRAD(0, g);
    return CT_OK;
}

CT__BACKWARD(var) { return ct__var_std_backward(n, go, gi, false); }
CT__BACKWARD(std) { return ct__var_std_backward(n, go, gi, true); }

/* ---------------------------------------------------------------- norms */

/* norm_backward by p, with PyTorch's handling of zeros */
static ct_tensor *ct__norm_backward(const ct_tensor *g, const ct_tensor *x, const ct_tensor *norm, double p, uint32_t mask)
{
    ct_tensor *self_scaled, *scale_v;
    if (p == 1.0) return ct_mul(ct_sign(x), g);
    if (p == 2.0) return ct_mul(g, ct_where_scalar_self(ct_eq_scalar(norm, ct_int(0)), ct_int(0), ct_div(x, norm)));
    if (isinf(p)) { /* the extremes of |x| (or its NaNs) share the gradient */
        ct_tensor *a = ct_abs(x), *m = ct_logical_or(ct_eq(a, norm), ct_isnan(a));
        ct_tensor *count = ct_sum_dim(m, ct__mask_dims(mask, x->ndim), true, CT_DEFAULT);
        return ct_mul(ct_sign(x), ct_mul(ct_div(g, count), m));
    }
    if (p < 1.0) {
        self_scaled = ct_mul(ct_sign(x), ct_where_scalar_self(ct_eq_scalar(x, ct_int(0)), ct_int(0),
                                                              ct_pow_scalar(ct_abs(x), ct_float(p - 1))));
        return ct_mul(ct_mul(self_scaled, g), ct_pow_scalar(norm, ct_float(1 - p)));
    }
    if (p < 2.0) self_scaled = ct_mul(ct_sign(x), ct_pow_scalar(ct_abs(x), ct_float(p - 1)));
    else self_scaled = ct_mul(x, ct_pow_scalar(ct_abs(x), ct_float(p - 2)));
    scale_v = ct_where_scalar_self(ct_eq_scalar(norm, ct_int(0)), ct_int(0), ct_div(g, ct_pow_scalar(norm, ct_float(p - 1))));
    return ct_mul(self_scaled, scale_v);
}

CT__BACKWARD(norm) /* p = 0 has no gradient: left NULL (zero) */
{
    const ct__out_meta *in = CT__IN_META;
    ct_tensor *x = CT__X;
    if (!ct__needs_grad(n, 0) || CT__P == 0.0) return CT_OK;
    if (x && x->dtype != go[0]->dtype) x = ct_to(x, go[0]->dtype); /* norm(dtype=...) */
    ct_tensor *g = ct__restore_dims(go[0], in, CT__MASK, CT__KEEPDIM), *r = ct__restore_dims(CT__R, in, CT__MASK, CT__KEEPDIM);
    if (!x || !g || !r) return ct_last_error_code();
    CT__GRAD(0, ct__norm_backward(g, x, r, CT__P, CT__MASK));
    return CT_OK;
}

CT__BACKWARD(logsumexp) /* g * exp(x - result) */
{
    const ct__out_meta *in = CT__IN_META;
    ct_tensor *g = ct__restore_dims(go[0], in, CT__MASK, CT__KEEPDIM), *r = ct__restore_dims(CT__R, in, CT__MASK, CT__KEEPDIM);
    CT__GRAD(0, ct_mul(g, ct_exp(ct_sub(CT__X, r))));
    return CT_OK;
}

/* ---------------------------------------------------------------- scans */

/* w.flip(dim).cumsum(dim).flip(dim) */
static ct_tensor *ct__reversed_cumsum(const ct_tensor *w, int dim)
{
    ct_shape d = ct__mask_dims(1u << dim, w->ndim);
    return ct_flip(ct_cumsum(ct_flip(w, d), dim, CT_DEFAULT), d);
}

CT__BACKWARD(cumsum)
{
    ct_tensor *g = go[0];
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (g->dtype != CT__IN_META->dtype) g = ct_to(g, CT__IN_META->dtype); /* cumsum(dtype=...) */
    CT__GRAD(0, !g || ct_numel(g) <= 1 || g->sizes[CT__DIM] == 1 ? g : ct__reversed_cumsum(g, CT__DIM));
    return CT_OK;
}

/* cumprod_backward where x has zeros, without a graph (PyTorch's O(n)
 * path): before the first zero of a slice, as without zeros; at the first
 * zero, the product before it times the sum of g times the products after it
 * up to the second zero; after it, zero. */
static ct_tensor *ct__cumprod_zeros_backward(const ct_tensor *g, const ct_tensor *x, const ct_tensor *out,
                                             const ct_tensor *w, const ct_tensor *is_zero, int dim)
{
    ct_tensor *cs = ct_cumsum(is_zero, dim, CT_DEFAULT);
    ct_tensor *before = ct_eq_scalar(cs, ct_int(0)), *span = ct_eq_scalar(cs, ct_int(1));
    ct_tensor *first_zero = ct_logical_and(span, is_zero), *after_first = ct_logical_and(span, ct_logical_not(is_zero));
    ct_tensor *first_idx = NULL;
    if (ct_max_dim(span, dim, true, NULL, &first_idx) != CT_OK) return NULL;
    ct_tensor *g_before = ct_div(ct__reversed_cumsum(ct_where_scalar_other(before, w, ct_int(0)), dim), x);
    ct_tensor *prod_before = ct_where_scalar_self(ct_eq_scalar(first_idx, ct_int(0)), ct_int(1),
                                                  ct_gather(out, dim, ct_relu(ct_sub_scalar(first_idx, ct_int(1)))));
    ct_tensor *after = ct_cumprod(ct_where_scalar_other(after_first, x, ct_int(1)), dim, CT_DEFAULT);
    ct_tensor *g_first = ct_mul(ct_sum_dim(ct_mul(after, ct_where_scalar_other(span, g, ct_int(0))), CT_DIMS(dim), true,
                                           CT_DEFAULT), prod_before);
    return ct_where(first_zero, g_first, ct_where_scalar_other(before, g_before, ct_int(0)));
}

/* cumprod_backward where x has zeros and a graph is made: for each k, the
 * sum over j >= k of g_j times the product of x_0..x_j without x_k, built
 * from differentiable ops (PyTorch's O(n^2) path). */
static ct_tensor *ct__cumprod_graph_backward(const ct_tensor *g, const ct_tensor *x, int dim)
{
    int64_t len = x->sizes[dim];
    ct_shape ones_size = ct_shape_of(x);
    ones_size.size[dim] = 1;
    ct_tensor *ones = ct_ones(ones_size, g->dtype), *cols[64] = {NULL}, *omitted;
    ct_tensor **parts = len <= 64 ? cols : (ct_tensor **)CT_MALLOC((size_t)len * sizeof *parts);
    if (!parts) {
        CT__OOM();
        return NULL;
    }
    for (int64_t k = 0; k < len; k++) {
        ct_tensor *from_next = k + 1 < len ? ct_cumprod(ct_slice(x, dim, k + 1, len, 1), dim, CT_DEFAULT) : NULL;
        ct_tensor *until = k > 0 ? ct_prod_dim(ct_slice(x, dim, 0, k, 1), dim, true, CT_DEFAULT) : ones;
        ct_tensor *pair[2] = {until, from_next && k > 0 ? ct_mul(ct_expand_as(until, from_next), from_next) : from_next};
        omitted = from_next ? ct_cat(pair, 2, dim) : until;
        parts[k] = ct_sum_dim(ct_mul(ct_slice(g, dim, k, len, 1), omitted), CT_DIMS(dim), true, CT_DEFAULT);
    }
    ct_tensor *r = ct_cat(parts, (int)len, dim);
    if (parts != cols) CT_FREE(parts);
    return r;
}

CT__BACKWARD(cumprod)
{
    ct_tensor *x = CT__X, *out = CT__R, *g = go[0];
    int dim = CT__DIM;
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (!x || !out) return ct_last_error_code();
    if (g->dtype != x->dtype) g = ct_to(g, x->dtype); /* cumprod(dtype=...): grad.to(self's dtype) */
    if (!g || ct_numel(x) <= 1 || x->sizes[dim] == 1) {
        CT__GRAD(0, g);
        return CT_OK;
    }
    ct_tensor *w = ct_mul(out, g), *is_zero = ct_eq_scalar(x, ct_int(0)), *any = is_zero ? ct_any(is_zero) : NULL;
    if (!any) return ct_last_error_code();
    if (!ct_item_int(any)) CT__GRAD(0, ct_div(ct__reversed_cumsum(w, dim), x));
    else if (!ct_is_grad_enabled()) CT__GRAD(0, ct__cumprod_zeros_backward(g, x, out, w, is_zero, dim));
    else CT__GRAD(0, ct__cumprod_graph_backward(g, x, dim));
    return CT_OK;
}

/* cummaxmin_backward: each gradient element added to the element its index names */
CT__BACKWARD(cummax)
{
    const ct__out_meta *in = CT__IN_META;
    ct_tensor *zeros = ct_zeros(ct_shape_make(in->ndim, in->sizes), go[0]->dtype);
    CT__GRAD(0, ct_numel(zeros) == 0 ? zeros : ct_scatter_add(zeros, CT__DIM, CT__IDX, go[0]));
    return CT_OK;
}

/* The lowest finite value of a floating dtype (std::numeric_limits::lowest). */
static double ct__lowest(ct_dtype dt)
{
    switch (dt) {
    case CT_F16: return -65504.0;
    case CT_BF16: return -3.3895313892515355e38;
    case CT_F64: return -DBL_MAX;
    default: return -FLT_MAX;
    }
}

/* logcumsumexp_backward: the positive and negative parts of g run through
 * a reversed logcumsumexp in log space, so nothing overflows */
CT__BACKWARD(logcumsumexp)
{
    ct_tensor *g = go[0], *x = CT__X, *r = CT__R;
    int dim = CT__DIM;
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (g->ndim == 0 || ct_numel(g) == 0) {
        CT__GRAD(0, g);
        return CT_OK;
    }
    ct_shape d = ct__mask_dims(1u << dim, g->ndim);
    ct_scalar lowest = ct_float(ct__lowest(g->dtype));
    ct_tensor *log_abs = ct_log(ct_abs(g));
    ct_tensor *log_pos = ct_where_scalar_other(ct_gt_scalar(g, ct_int(0)), log_abs, lowest);
    ct_tensor *log_neg = ct_where_scalar_other(ct_lt_scalar(g, ct_int(0)), log_abs, lowest);
    ct_tensor *pos = ct_exp(ct_add(ct_flip(ct_logcumsumexp(ct_flip(ct_sub(log_pos, r), d), dim), d), x));
    ct_tensor *neg = ct_exp(ct_add(ct_flip(ct_logcumsumexp(ct_flip(ct_sub(log_neg, r), d), dim), d), x));
    CT__GRAD(0, ct_sub(pos, neg));
    return CT_OK;
}

/* ---------------------------------------------------------------- softmax */

/* _softmax_backward_data(g, y): y * (g - sum(g * y)) */
static ct_tensor *ct__softmax_grad(const ct__node *n, const ct_tensor *const *in)
{
    const ct_tensor *g = in[0], *y = in[1];
    return ct_mul(y, ct_sub(g, ct_sum_dim(ct_mul(g, y), CT_DIMS(CT__DIM), true, CT_DEFAULT)));
}
CT__GRAD_OP(ct__softmax_backward, "SoftmaxBackwardDataBackward0", ct__softmax_grad, 2, 2);
CT__BACKWARD_OP(softmax, &ct__softmax_backward, CT__R)

/* _log_softmax_backward_data(g, y): g - exp(y) * sum(g) */
static ct_tensor *ct__log_softmax_grad(const ct__node *n, const ct_tensor *const *in)
{
    const ct_tensor *g = in[0], *y = in[1];
    return ct_sub(g, ct_mul(ct_exp(y), ct_sum_dim(g, CT_DIMS(CT__DIM), true, CT_DEFAULT)));
}
CT__GRAD_OP(ct__log_softmax_backward, "LogSoftmaxBackwardDataBackward0", ct__log_softmax_grad, 2, 2);
CT__BACKWARD_OP(log_softmax, &ct__log_softmax_backward, CT__R)

#undef CT__X
#undef CT__R
#undef CT__IDX
#undef CT__MASK
#undef CT__KEEPDIM
#undef CT__DIM
#undef CT__CORRECTION
#undef CT__P
#undef CT__IN_META

/* ---------------------------------------------------------------- recording */

typedef struct ct__reduce_formula {
    ct__node_type type;
    const char *alt_name; /* the name of PyTorch's other form (NULL: the same) */
    unsigned save;
} ct__reduce_formula;

#define CT__IR (CT__SAVE_INPUT | CT__SAVE_RES)
/* indexed by ct__reduce_grad */
static const ct__reduce_formula ct__reduce_formulas[] = {
    {{"SumBackward0", ct__bw_sum}, "SumBackward1", 0},
    {{"NansumBackward0", ct__bw_nansum}, NULL, CT__SAVE_INPUT},
    {{"MeanBackward0", ct__bw_mean}, "MeanBackward1", 0},
    {{"ProdBackward0", ct__bw_prod}, "ProdBackward1", CT__IR},
    {{"AmaxBackward0", ct__bw_amax}, NULL, CT__IR},
    {{"AminBackward0", ct__bw_amax}, NULL, CT__IR},
    {{"MaxBackward1", ct__bw_evenly}, NULL, CT__IR},
    {{"MinBackward1", ct__bw_evenly}, NULL, CT__IR},
    {{"MedianBackward0", ct__bw_evenly}, NULL, CT__IR},
    {{"MaxBackward0", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"MinBackward0", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"MedianBackward1", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"ModeBackward0", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"KthvalueBackward0", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"SortBackward0", ct__bw_select}, "SortBackward1", CT__SAVE_IDX},
    {{"TopkBackward0", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"StdBackward0", ct__bw_std}, NULL, CT__IR},
    {{"VarBackward0", ct__bw_var}, NULL, CT__SAVE_INPUT},
    {{"StdMeanBackward0", ct__bw_std}, NULL, CT__IR},
    {{"VarMeanBackward0", ct__bw_var}, NULL, CT__SAVE_INPUT},
    {{"NormBackward1", ct__bw_norm}, "NormBackward3", CT__IR},
    {{"LogsumexpBackward0", ct__bw_logsumexp}, NULL, CT__IR},
    {{"CumsumBackward0", ct__bw_cumsum}, NULL, 0},
    {{"CumprodBackward0", ct__bw_cumprod}, NULL, CT__IR},
    {{"CummaxBackward0", ct__bw_cummax}, NULL, CT__SAVE_IDX},
    {{"CumminBackward0", ct__bw_cummax}, NULL, CT__SAVE_IDX},
    {{"LogcumsumexpBackward0", ct__bw_logcumsumexp}, NULL, CT__IR},
    {{"SoftmaxBackward0", ct__bw_softmax}, NULL, CT__SAVE_RES},
    {{"LogSoftmaxBackward0", ct__bw_log_softmax}, NULL, CT__SAVE_RES},
};
#undef CT__IR

static ct__reduce_rec ct__reduce_rec_of(uint32_t mask, bool keepdim)
{
    ct__reduce_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.mask = mask;
    rec.keepdim = keepdim;
    return rec;
}

static bool ct__record_reduce(ct__reduce_grad kind, ct_tensor *const *out, int n_out, const ct_tensor *input,
                              const ct__reduce_rec *rec)
{
    const ct__reduce_formula *f = &ct__reduce_formulas[kind];
    if (!out[0] || !ct_dtype_is_floating(out[0]->dtype)) return true; /* integer results have no gradient */
    if (ct__recordable(&input, 1) != CT_OK) return false;
    const ct_tensor *saved_input = rec->self_before ? rec->self_before : input;
    ct__node *n = ct__record(&f->type, &input, 1, out, n_out);
    if (!n) return ct__recorded_ok(n, &input, 1);
    if (rec->alt && f->alt_name) n->name = f->alt_name;
    n->iargs[0] = rec->mask;
    n->iargs[1] = rec->keepdim;
    n->iargs[2] = rec->dim;
    n->iargs[3] = rec->correction;
    n->iargs[4] = rec->alt;
    n->iargs[5] = f->save;
    n->args[0] = rec->p;
    if (f->save & CT__SAVE_INPUT) ct__save(n, saved_input, false);
    if (f->save & CT__SAVE_RES) ct__save(n, out[0], true);
    if (f->save & CT__SAVE_IDX) ct__save(n, rec->indices, false);
    return !n->save_failed;
}
