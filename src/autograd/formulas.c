/* Backward formulas. Each is written with ctorch's own differentiable ops, so
 * under create_graph the backward pass records a graph of its own and
 * higher-order gradients follow. */

/* g summed down to the shape `sizes` it was broadcast from (at::sum_to):
 * leading dims summed away, dims of size 1 summed with keepdim. */
static ct_tensor *ct__sum_to_shape(const ct_tensor *g, const int64_t *sizes, int ndim)
{
    int lead = g->ndim - ndim;
    ct_shape dims = CT_SHAPE0;
    if (lead < 0) {
        ct__fail(CT_ERR_RUNTIME, "sum_to: the gradient has fewer dims than its input");
        return NULL;
    }
    for (int d = 0; d < g->ndim; d++) {
        if (d >= lead && sizes[d - lead] != 1 && sizes[d - lead] != g->sizes[d]) {
            ct__fail(CT_ERR_RUNTIME, "sum_to: shapes do not broadcast");
            return NULL;
        }
        if (d < lead || (sizes[d - lead] == 1 && g->sizes[d] != 1)) dims.size[dims.ndim++] = d;
    }
    if (dims.ndim == 0) return g->ndim == ndim ? ct__same(g) : ct_reshape(g, ct_shape_make(ndim, sizes));
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct_sum_dim(g, dims, true, CT_DEFAULT);
    if (r && lead) r = ct_reshape(r, ct_shape_make(ndim, sizes)); /* the leading dims were kept as 1s */
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- pointwise */

/* What a pointwise node keeps: its inputs (bit i) and its result. */
#define CT__SAVE_IN(i) (1u << (i))
#define CT__SAVE_RESULT 8u

typedef struct ct__pw_grad {
    ct__node_type type;         /* name and backward of the tensor form */
    const char *number_name;    /* the name when the last operand is a Python number (NULL: the same) */
    bool number_keeps_edge;     /* add, sub, mul, div: a number operand still has an (empty) edge */
    bool condition_first;       /* where: input 0 is the condition, not differentiable */
    unsigned save;
} ct__pw_grad;

/* Saved slots are filled in order: the inputs asked for, then the result. */
static int ct__pw_slot(const ct__node *n, unsigned what)
{
    int slot = 0;
    for (unsigned bit = 1; bit < what; bit <<= 1) slot += (n->iargs[0] & bit) != 0;
    return slot;
}
#define CT__IN(i) CT__S(ct__pw_slot(n, CT__SAVE_IN(i)))
#define CT__RESULT CT__S(ct__pw_slot(n, CT__SAVE_RESULT))
/* the op's parameters, as the forward had them */
#define CT__ARGS (&n->pw)

CT__BACKWARD(neg)
{
    CT__GRAD(0, ct_neg(go[0]));
    return CT_OK;
}

CT__BACKWARD(zero)
{
    CT__GRAD(0, ct_zeros_like(go[0], CT_DEFAULT));
    return CT_OK;
}

CT__BACKWARD(identity)
{
    CT__GRAD(0, go[0]);
    return CT_OK;
}

CT__BACKWARD(abs) /* g * sgn(x) */
{
    CT__GRAD(0, ct_mul(go[0], ct_sign(CT__IN(0))));
    return CT_OK;
}

CT__BACKWARD(exp)
{
    CT__GRAD(0, ct_mul(go[0], CT__RESULT));
    return CT_OK;
}

CT__BACKWARD(log)
{
    CT__GRAD(0, ct_div(go[0], CT__IN(0)));
    return CT_OK;
}

CT__BACKWARD(sqrt)
{
    CT__GRAD(0, ct_div(go[0], ct_mul_scalar(CT__RESULT, ct_int(2))));
    return CT_OK;
}

CT__BACKWARD(tanh) /* tanh_backward: g * (1 - y*y) */
{
    ct_tensor *y = CT__RESULT;
    CT__GRAD(0, ct_mul(go[0], ct_rsub_scalar(ct_mul(y, y), ct_int(1))));
    return CT_OK;
}

CT__BACKWARD(sigmoid) /* sigmoid_backward: g * (1 - y) * y */
{
    ct_tensor *y = CT__RESULT;
    CT__GRAD(0, ct_mul(ct_mul(go[0], ct_rsub_scalar(y, ct_int(1))), y));
    return CT_OK;
}

CT__BACKWARD(relu) /* threshold_backward(g, result, 0) */
{
    CT__GRAD(0, ct_where_scalar_other(ct_gt_scalar(CT__RESULT, ct_int(0)), go[0], ct_int(0)));
    return CT_OK;
}

/* a + alpha * b and a - alpha * b (rsub: b - alpha * a) */
static ct_tensor *ct__times_alpha(ct_tensor *g, const ct__node *n)
{
    const ct__op_args *a = CT__ARGS;
    return a->has_value ? ct_mul_scalar(g, a->value) : g;
}

CT__BACKWARD(add)
{
    CT__GRAD(0, go[0]);
    CT__GRAD(1, ct__times_alpha(go[0], n));
    return CT_OK;
}

CT__BACKWARD(sub)
{
    CT__GRAD(0, go[0]);
    CT__GRAD(1, ct_neg(ct__times_alpha(go[0], n)));
    return CT_OK;
}

CT__BACKWARD(mul)
{
    CT__GRAD(0, ct_mul(go[0], CT__IN(1)));
    CT__GRAD(1, ct_mul(go[0], CT__IN(0)));
    return CT_OK;
}

CT__BACKWARD(div) /* self: g / b; other: -g * a / (b * b) */
{
    CT__GRAD(0, ct_div(go[0], CT__IN(1)));
    CT__GRAD(1, ct_div(ct_mul(ct_neg(go[0]), CT__IN(0)), ct_mul(CT__IN(1), CT__IN(1))));
    return CT_OK;
}

CT__BACKWARD(where) /* the condition picks which side the gradient goes to */
{
    ct_tensor *c = CT__IN(0);
    CT__GRAD(0, ct_where_scalar_other(c, go[0], ct_int(0)));
    CT__GRAD(1, ct_where_scalar_self(c, ct_int(0), go[0]));
    return CT_OK;
}

#define CT__PW(var, name, bw, save) static const ct__pw_grad var = {{name, ct__bw_##bw}, NULL, false, false, save}
CT__PW(ct__pw_neg, "NegBackward0", neg, 0);
CT__PW(ct__pw_abs, "AbsBackward0", abs, CT__SAVE_IN(0));
CT__PW(ct__pw_sign, "SignBackward0", zero, 0);
CT__PW(ct__pw_round, "RoundBackward0", zero, 0);
CT__PW(ct__pw_floor, "FloorBackward0", zero, 0);
CT__PW(ct__pw_ceil, "CeilBackward0", zero, 0);
CT__PW(ct__pw_trunc, "TruncBackward0", zero, 0);
CT__PW(ct__pw_frac, "FracBackward0", identity, 0);
CT__PW(ct__pw_exp, "ExpBackward0", exp, CT__SAVE_RESULT);
CT__PW(ct__pw_log, "LogBackward0", log, CT__SAVE_IN(0));
CT__PW(ct__pw_sqrt, "SqrtBackward0", sqrt, CT__SAVE_RESULT);
CT__PW(ct__pw_tanh, "TanhBackward0", tanh, CT__SAVE_RESULT);
CT__PW(ct__pw_sigmoid, "SigmoidBackward0", sigmoid, CT__SAVE_RESULT);
CT__PW(ct__pw_relu, "ReluBackward0", relu, CT__SAVE_RESULT);
static const ct__pw_grad ct__pw_add = {{"AddBackward0", ct__bw_add}, NULL, true, false, 0};
static const ct__pw_grad ct__pw_sub = {{"SubBackward0", ct__bw_sub}, NULL, true, false, 0};
static const ct__pw_grad ct__pw_mul = {{"MulBackward0", ct__bw_mul}, NULL, true, false, CT__SAVE_IN(0) | CT__SAVE_IN(1)};
static const ct__pw_grad ct__pw_div = {{"DivBackward0", ct__bw_div}, NULL, true, false, CT__SAVE_IN(0) | CT__SAVE_IN(1)};
static const ct__pw_grad ct__pw_where = {{"WhereBackward0", ct__bw_where}, NULL, true, true, CT__SAVE_IN(0)};
#undef CT__PW

/* The formula of a pointwise op, NULL for one without a derivative. */
static const ct__pw_grad *ct__pw_grad_of(ct__op op)
{
    switch (op) {
    case CT__OP_neg: return &ct__pw_neg;
    case CT__OP_abs: return &ct__pw_abs;
    case CT__OP_sign: return &ct__pw_sign;
    case CT__OP_round: return &ct__pw_round;
    case CT__OP_floor: return &ct__pw_floor;
    case CT__OP_ceil: return &ct__pw_ceil;
    case CT__OP_trunc: return &ct__pw_trunc;
    case CT__OP_frac: return &ct__pw_frac;
    case CT__OP_exp: return &ct__pw_exp;
    case CT__OP_log: return &ct__pw_log;
    case CT__OP_sqrt: return &ct__pw_sqrt;
    case CT__OP_tanh: return &ct__pw_tanh;
    case CT__OP_sigmoid: return &ct__pw_sigmoid;
    case CT__OP_relu: return &ct__pw_relu;
    case CT__OP_add: return &ct__pw_add;
    case CT__OP_sub: return &ct__pw_sub;
    case CT__OP_mul: return &ct__pw_mul;
    case CT__OP_div: return &ct__pw_div;
    case CT__OP_where: return &ct__pw_where;
    default: return NULL;
    }
}

/* A Python number operand as a heap 0-d wrapped-number tensor a node can keep. */
static ct_tensor *ct__keep_number(const ct_tensor *x)
{
    ct_tensor *t = ct__alloc(NULL, 0, x->dtype, ct__cpu);
    if (!t) return NULL;
    memcpy(t->storage->data, ct__data(x), ct__esize(x));
    t->wrapped_number = true;
    return t;
}

static void ct__pointwise_record(ct__op op, ct_tensor *out, const ct_tensor *const *in, int n_in,
                                 const ct__op_args *args, ct_tensor *self_before)
{
    const ct__pw_grad *f = ct__pw_grad_of(op);
    if (!f || !ct__grad_mode()) return;
    const ct_tensor *edges_in[3] = {NULL, NULL, NULL};
    int n_edges = 0;
    bool number = false;
    for (int i = f->condition_first ? 1 : 0; i < n_in; i++) {
        if (in[i]->wrapped_number) {
            number = true;
            if (!f->number_keeps_edge) continue;
        }
        edges_in[n_edges++] = in[i];
    }
    ct__node *node = ct__record(&f->type, edges_in, n_edges, &out, 1);
    if (!node) return;
    if (number && f->number_name) node->name = f->number_name;
    node->pw = *args;
    node->iargs[0] = f->save;
    ct_scope s = ct_scope_begin();
    for (int i = 0; i < n_in; i++) {
        if (!(f->save & CT__SAVE_IN(i))) continue;
        const ct_tensor *x = i == 0 && self_before ? self_before : in[i];
        ct__save(node, x->wrapped_number ? ct__keep_number(x) : x, false);
    }
    if (f->save & CT__SAVE_RESULT) ct__save(node, out, true);
    ct_scope_end(s);
}

/* Before an in-place op writes self: a copy of self when its formula needs
 * self's old values and something requires grad (NULL otherwise). */
static ct_tensor *ct__pointwise_self_before(ct__op op, const ct_tensor *const *in, int n_in)
{
    const ct__pw_grad *f = ct__pw_grad_of(op);
    bool any = false;
    for (int i = 0; i < n_in; i++) any = any || ct__requires_grad(in[i]);
    if (!f || !any || !ct__grad_mode() || !(f->save & CT__SAVE_IN(0))) return NULL;
    return ct_clone(ct_detach(in[0]));
}

static bool ct__pointwise_differentiable(ct__op op) { return ct__pw_grad_of(op) != NULL; }
