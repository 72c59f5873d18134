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

/* ---------------------------------------------------------------- backward ops */

/* What a backward op's node keeps of the forward's node n: its numbers,
 * the extra its formula reads, and the op's saved inputs. */
static void ct__grad_op_keep(const ct__grad_op *op, ct__node *node, const ct__node *n, const ct_tensor *const *in)
{
    node->pw = n->pw;
    memcpy(node->args, n->args, sizeof node->args);
    memcpy(node->iargs, n->iargs, sizeof node->iargs);
    for (int i = 0; i < op->n_saved; i++) ct__save(node, in[i], false);
    if (!op->extra_size) return;
    if (!(node->extra = CT_MALLOC(op->extra_size))) {
        CT__OOM();
        node->save_failed = true;
        return;
    }
    memcpy(node->extra, n->extra, op->extra_size);
}

static ct_result ct__grad_op_run(const ct__grad_op *op, const ct__node *n, const ct_tensor *const *in, const bool *want,
                                 ct_tensor **out)
{
    for (int i = 0; i < op->n_saved; i++)
        if (!in[i]) return ct_last_error_code(); /* a saved tensor that could not be had: its error stands */
    bool record = ct__records(in, op->n_in);
    ct_result r;
    CT__UNRECORDED(r, op->formula(n, in, want, out));
    ct__node *node = r == CT_OK && record ? ct__record(&op->type, in, op->n_in, out, op->n_out) : NULL;
    if (node) ct__grad_op_keep(op, node, n, in);
    if (r == CT_OK && ct__recorded_ok(node, in, op->n_in)) return CT_OK;
    for (int k = 0; k < op->n_out; k++) {
        if (out[k]) ct__discard(out[k]);
        out[k] = NULL;
    }
    return ct_last_error_code();
}

static ct_tensor *ct__grad_op_apply(const ct__grad_op *op, const ct__node *n, const ct_tensor *const *in)
{
    const bool want = true;
    ct_tensor *r = NULL;
    return ct__grad_op_run(op, n, in, &want, &r) == CT_OK ? r : NULL;
}

/* The formula run again with grad mode on and differentiated, so that the
 * second derivatives are those its own ops give (as before it had a node of
 * its own), at the cost of computing the first derivative once more. It
 * reads each input through a view of its own, whose node is where the
 * input's gradient is taken: the partial derivative, not the total one
 * through another input made from it (g from the forward's result), and
 * under create_graph still a graph over the inputs themselves. */
static ct_result ct__bw_grad_op(ct__node *n, ct_tensor *const *go, ct_tensor **gi)
{
    const ct__grad_op *op = (const ct__grad_op *)n->type; /* its first member */
    const ct_tensor *in[CT__NODE_MAX_SAVED], *wrt[CT__NODE_MAX_SAVED];
    int which[CT__NODE_MAX_SAVED], k = 0;
    for (int i = 0; i < op->n_saved; i++)
        if (!(in[i] = ct__saved_get(n, i))) return ct_last_error_code();
    bool want[CT__GRAD_OP_MAX_OUT];
    for (int j = 0; j < op->n_out; j++) want[j] = ct__has_output(n, j); /* the outputs it made */
    ct_grad_mode mode = ct_enable_grad();
    for (int i = 0; i < op->n_in; i++)
        if (ct__needs_grad(n, i)) which[k] = i, wrt[k++] = in[i] = ct_view_as(in[i], in[i]);
    ct_tensor *r[CT__GRAD_OP_MAX_OUT] = {NULL};
    ct_result res = k ? op->formula(n, in, want, r) : CT_OK;
    ct_grad_mode_restore(mode);
    if (k == 0 || res != CT_OK) return res;
    /* the outputs through which a gradient comes back */
    const ct_tensor *outs[CT__GRAD_OP_MAX_OUT], *gos[CT__GRAD_OP_MAX_OUT];
    int m = 0;
    for (int j = 0; j < op->n_out; j++)
        if (r[j] && ct_requires_grad(r[j])) outs[m] = r[j], gos[m++] = go[j];
    ct_tensor *grads[CT__NODE_MAX_SAVED] = {NULL};
    /* retain_graph: the pass may run nodes of the graph being differentiated */
    ct_grad_opts o = {true, ct__grad_mode(), true};
    res = m ? ct_autograd_grad(outs, m, wrt, k, gos, grads, o) : CT_OK;
    /* an input the formula reads through comparisons only gets zeros, as
     * PyTorch's formulas give them (threshold_backward's self: zeros_like(grad)) */
    for (int j = 0; res == CT_OK && j < k; j++)
        if (!(gi[which[j]] = grads[j] ? grads[j] : ct_zeros_like(wrt[j], CT_DEFAULT))) res = ct_last_error_code();
    return res;
}

/* ---------------------------------------------------------------- pointwise */

/* What a pointwise node keeps: its inputs (bit i) and its result. */
#define CT__SAVE_IN(i) (1u << (i))
#define CT__SAVE_RESULT 8u

typedef struct ct__pw_grad {
    ct__node_type type;         /* name and backward of the tensor form */
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

/* Whether a first derivative of g and v runs its backward op's kernel
 * (ct_tanh_backward...), on any device, as PyTorch's autograd does: no
 * graph to record (under create_graph, and when its node's backward runs
 * it again, it is made of differentiable ops), and floating operands of one
 * dtype (float16 and bfloat16 too: the kernels round as PyTorch's, where
 * the differentiable ops would round each step). */
static bool ct__grad_kernel(const ct_tensor *g, const ct_tensor *v)
{
    return !ct_is_grad_enabled() && g->dtype == v->dtype && ct_dtype_is_floating(v->dtype);
}

/* tanh_backward(g, y): g * (1 - y*y) */
static ct_tensor *ct__tanh_grad(const ct__node *n, const ct_tensor *const *in)
{
    (void)n;
    if (ct__grad_kernel(in[0], in[1])) return ct_tanh_backward(in[0], in[1]);
    return ct_mul(in[0], ct_rsub_scalar(ct_mul(in[1], in[1]), ct_int(1)));
}
CT__GRAD_OP(ct__tanh_backward, "TanhBackwardBackward0", ct__tanh_grad, 2, 2);
CT__BACKWARD_OP(tanh, &ct__tanh_backward, CT__RESULT)

/* sigmoid_backward(g, y): g * (1 - y) * y */
static ct_tensor *ct__sigmoid_grad(const ct__node *n, const ct_tensor *const *in)
{
    (void)n;
    if (ct__grad_kernel(in[0], in[1])) return ct_sigmoid_backward(in[0], in[1]);
    return ct_mul(ct_mul(in[0], ct_rsub_scalar(in[1], ct_int(1))), in[1]);
}
CT__GRAD_OP(ct__sigmoid_backward, "SigmoidBackwardBackward0", ct__sigmoid_grad, 2, 2);
CT__BACKWARD_OP(sigmoid, &ct__sigmoid_backward, CT__RESULT)

/* threshold_backward(g, y, threshold): y <= threshold ? 0 : g (a NaN y
 * passes g); relu's threshold is 0, ct_threshold_backward's its value */
static ct_tensor *ct__threshold_grad(const ct__node *n, const ct_tensor *const *in)
{
    ct_scalar threshold = n->pw.has_value ? n->pw.value : ct_int(0);
    if (ct__grad_kernel(in[0], in[1])) return ct_threshold_backward(in[0], in[1], threshold);
    return ct_where_scalar_self(ct_le_scalar(in[1], threshold), ct_int(0), in[0]);
}
CT__GRAD_OP(ct__threshold_backward, "ThresholdBackwardBackward0", ct__threshold_grad, 2, 2);
CT__BACKWARD_OP(relu, &ct__threshold_backward, CT__RESULT)

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

CT__BACKWARD(rsub) /* other - self */
{
    CT__GRAD(0, ct_neg(go[0]));
    if (n->n_next > 1) CT__GRAD(1, go[0]);
    return CT_OK;
}

static bool ct__record_rsub(ct_tensor *out, const ct_tensor *self, const ct_tensor *other)
{
    static const ct__node_type tensor_form = {"RsubBackward0", ct__bw_rsub}, number_form = {"RsubBackward1", ct__bw_rsub};
    const ct_tensor *in[2] = {self, other};
    return ct__recorded_ok(ct__record(other ? &tensor_form : &number_form, in, other ? 2 : 1, &out, 1), in, other ? 2 : 1);
}

CT__BACKWARD(mul)
{
    CT__GRAD(0, ct_mul(go[0], CT__IN(1)));
    CT__GRAD(1, ct_mul(go[0], CT__IN(0)));
    return CT_OK;
}

CT__BACKWARD(div) /* self: g / b; other: -g * ((a / b) / b), as div_tensor_other_backward has it */
{
    CT__GRAD(0, ct_div(go[0], CT__IN(1)));
    CT__GRAD(1, ct_mul(ct_neg(go[0]), ct_div(ct_div(CT__IN(0), CT__IN(1)), CT__IN(1))));
    return CT_OK;
}

CT__BACKWARD(div_number) /* g / the number */
{
    CT__GRAD(0, ct__div_number(go[0], n->pw.value));
    return CT_OK;
}

static bool ct__record_div_number(ct_tensor *out, const ct_tensor *self, ct_scalar number)
{
    static const ct__node_type type = {"DivBackward1", ct__bw_div_number};
    ct__node *n = ct__record(&type, &self, 1, &out, 1);
    if (n) n->pw.value = number;
    return ct__recorded_ok(n, &self, 1);
}

CT__BACKWARD(where) /* the condition picks which side the gradient goes to */
{
    ct_tensor *c = CT__IN(0);
    CT__GRAD(0, ct_where_scalar_other(c, go[0], ct_int(0)));
    CT__GRAD(1, ct_where_scalar_self(c, ct_int(0), go[0]));
    return CT_OK;
}

/* ---------------------------------------------------------------- more pointwise formulas */

/* Each follows PyTorch 1.13's derivatives.yaml (or the backward kernel it
 * calls) op for op, with numbers where it has Scalars, so that the float
 * roundings are the same. */
#define CT__G go[0]
#define CT__X CT__IN(0)
#define CT__Y CT__RESULT
#define CT__UNARY_GRAD(name, expr) \
    CT__BACKWARD(name)             \
    {                              \
        CT__GRAD(0, expr);         \
        return CT_OK;              \
    }

static const double ct__grad_pi = 3.14159265358979323846;

/* A Scalar the kernels convert to the input's type: rounded to float below float64. */
static ct_scalar ct__coef(double v, ct_dtype dt) { return ct_float(dt == CT_F64 ? v : (double)(float)v); }
/* a * b computed in the input's type, as the kernels form their coefficients */
static ct_scalar ct__coef_mul(double a, double b, ct_dtype dt)
{
    return ct_float(dt == CT_F64 ? a * b : (double)((float)a * (float)b));
}
/* 1 - x * x, written as PyTorch's (-x * x + 1) */
static ct_tensor *ct__one_minus_square(const ct_tensor *x) { return ct_add_scalar(ct_mul(ct_neg(x), x), ct_int(1)); }

CT__UNARY_GRAD(reciprocal, ct_mul(ct_neg(CT__G), ct_mul(CT__Y, CT__Y)))
CT__UNARY_GRAD(exp2, ct_mul_scalar(ct_mul(CT__G, CT__Y), ct_float(0.693147180559945309417)))
CT__UNARY_GRAD(expm1, ct_mul(CT__G, ct_add_scalar(CT__Y, ct_int(1))))
CT__UNARY_GRAD(log2, ct_div(CT__G, ct_mul_scalar(CT__X, ct_float(0.6931471805599453))))
CT__UNARY_GRAD(log10, ct_div(CT__G, ct_mul_scalar(CT__X, ct_float(2.3025850929940456))))
CT__UNARY_GRAD(log1p, ct_div(CT__G, ct_add_scalar(CT__X, ct_int(1))))
CT__UNARY_GRAD(rsqrt, ct_mul(ct_mul_scalar(CT__G, ct_float(-0.5)), ct_pow_scalar(CT__Y, ct_int(3))))
CT__UNARY_GRAD(sin, ct_mul(CT__G, ct_cos(CT__X)))
CT__UNARY_GRAD(cos, ct_mul(CT__G, ct_neg(ct_sin(CT__X))))
CT__UNARY_GRAD(tan, ct_mul(CT__G, ct_add_scalar(ct_pow_scalar(CT__Y, ct_int(2)), ct_int(1))))
CT__UNARY_GRAD(asin, ct_mul(CT__G, ct_rsqrt(ct__one_minus_square(CT__X))))
CT__UNARY_GRAD(acos, ct_mul(CT__G, ct_neg(ct_rsqrt(ct__one_minus_square(CT__X)))))
CT__UNARY_GRAD(atan, ct_div(CT__G, ct_add_scalar(ct_mul(CT__X, CT__X), ct_int(1))))
CT__UNARY_GRAD(sinh, ct_mul(CT__G, ct_cosh(CT__X)))
CT__UNARY_GRAD(cosh, ct_mul(CT__G, ct_sinh(CT__X)))
CT__UNARY_GRAD(asinh, ct_mul(CT__G, ct_rsqrt(ct_add_scalar(ct_pow_scalar(CT__X, ct_int(2)), ct_int(1)))))
CT__UNARY_GRAD(acosh, ct_mul(CT__G, ct_rsqrt(ct_sub_scalar(ct_pow_scalar(CT__X, ct_int(2)), ct_int(1)))))
CT__UNARY_GRAD(atanh, ct_div(CT__G, ct_rsub_scalar(ct_pow_scalar(CT__X, ct_int(2)), ct_int(1))))
/* erf, erfc: c * exp(-x^2) * g with c = +-2/sqrt(pi); erfinv: sqrt(pi)/2 * exp(erfinv(x)^2) * g */
static ct_tensor *ct__scaled_exp_grad(const ct_tensor *g, const ct_tensor *e, double c)
{
    return ct_mul(ct_mul_scalar(ct_exp(e), ct_float(c)), g);
}
CT__UNARY_GRAD(erf, ct__scaled_exp_grad(CT__G, ct_neg(ct_pow_scalar(CT__X, ct_int(2))), 2.0 / sqrt(ct__grad_pi)))
CT__UNARY_GRAD(erfc, ct__scaled_exp_grad(CT__G, ct_neg(ct_pow_scalar(CT__X, ct_int(2))), -2.0 / sqrt(ct__grad_pi)))
CT__UNARY_GRAD(erfinv, ct__scaled_exp_grad(CT__G, ct_pow_scalar(ct_erfinv(CT__X), ct_int(2)), 0.5 * sqrt(ct__grad_pi)))
CT__UNARY_GRAD(lgamma, ct_mul(CT__G, ct_digamma(CT__X)))
CT__UNARY_GRAD(digamma, ct_mul(CT__G, ct_polygamma(1, CT__X)))
CT__UNARY_GRAD(polygamma, ct_mul(CT__G, ct_polygamma(CT__ARGS->mode + 1, CT__X)))
CT__UNARY_GRAD(nan_to_num, ct_mul(CT__G, ct_isfinite(CT__X)))

/* logit: g / (x (1 - x)) inside [eps, 1 - eps], else 0 (NaN outside [0, 1] without eps) */
static ct_tensor *ct__logit_grad(const ct_tensor *g, const ct_tensor *x, double eps)
{
    double lo = eps < 0 ? 0 : eps;
    ct_tensor *inside = ct_logical_and(ct_ge_scalar(x, ct_float(lo)), ct_le_scalar(x, ct_float(1.0 - lo)));
    return ct_where_scalar_self(ct_logical_not(inside), ct_float(eps < 0 ? NAN : 0.0),
                                ct_div(g, ct_mul(x, ct_rsub_scalar(x, ct_float(1.0)))));
}
CT__UNARY_GRAD(logit, ct__logit_grad(CT__G, CT__X, CT__ARGS->p[0]))

/* ---- activations: self (or, for an in-place form, the result) is x */

/* x, through which no gradient flows where `smooth` is false: for a first
 * derivative that takes one side's formula at a kink (elu's x <= 0), so that
 * its own derivative there is 0, as PyTorch's double backward formulas have
 * it with their strict comparisons (elu's x < 0, hardswish's -3 < x < 3,
 * softplus's beta * x < threshold). Only when the gradient is being recorded. */
static const ct_tensor *ct__smooth_only(const ct_tensor *x, const ct_tensor *smooth)
{
    if (!ct__grad_mode() || !x || !ct__requires_grad(x)) return x;
    return ct_where(smooth, x, ct_detach(x));
}

/* leaky_relu_backward(g, x or result): g where x > 0, else g * slope */
static ct_tensor *ct__leaky_grad(const ct__node *n, const ct_tensor *const *in)
{
    return ct_where(ct_gt_scalar(in[1], ct_int(0)), in[0], ct_mul_scalar(in[0], ct_float(n->pw.p[0])));
}
CT__GRAD_OP(ct__leaky_relu_backward, "LeakyReluBackwardBackward0", ct__leaky_grad, 2, 2);
CT__BACKWARD_OP(leaky_relu, &ct__leaky_relu_backward, CT__X)

CT__BACKWARD(leaky_relu_result)
{
    if (CT__ARGS->p[0] < 0)
        return ct__fail(CT_ERR_RUNTIME,
                        "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                        "supported. This is caused by calling in-place forward function with a negative slope, please "
                        "call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you "
                        "do require supporting in-place leakRelu backward calculation with negative slope");
    CT__GRAD_OP_OF(&ct__leaky_relu_backward, CT__Y);
    return CT_OK;
}

/* elu_backward: x <= 0 gives g * input_scale * alpha * scale * exp(x * input_scale)
 * (from the result y: g * input_scale * (y + alpha * scale)), else g * scale.
 * celu's input_scale is 1 / alpha with alpha rounded to float first, as its formula has it. */
static ct_tensor *ct__elu_grad(const ct__node *n, const ct_tensor *g, const ct_tensor *x, bool is_result, bool celu)
{
    const double *p = n->pw.p;
    ct_dtype dt = x->dtype;
    ct_scalar negcoef = ct__coef_mul(p[0], p[1], dt), in_scale = ct__coef(celu ? 1.0 / (float)p[0] : p[2], dt);
    const ct_tensor *xn = ct__smooth_only(x, ct_lt_scalar(x, ct_int(0)));
    ct_tensor *neg = is_result ? ct_mul(ct_mul_scalar(g, in_scale), ct_add_scalar(xn, negcoef))
                               : ct_mul(ct_mul_scalar(ct_mul_scalar(g, in_scale), negcoef),
                                        ct_exp(ct_mul_scalar(xn, in_scale)));
    return ct_where(ct_le_scalar(x, ct_int(0)), neg, ct_mul_scalar(g, ct__coef(p[1], dt)));
}

/* elu_backward(g, x or result), one op per form (celu's is elu's with its numbers) */
static ct_tensor *ct__elu_grad_x(const ct__node *n, const ct_tensor *const *in)
{
    return ct__elu_grad(n, in[0], in[1], false, false);
}
static ct_tensor *ct__elu_grad_y(const ct__node *n, const ct_tensor *const *in)
{
    return ct__elu_grad(n, in[0], in[1], true, false);
}
static ct_tensor *ct__celu_grad_x(const ct__node *n, const ct_tensor *const *in)
{
    return ct__elu_grad(n, in[0], in[1], false, true);
}
static ct_tensor *ct__celu_grad_y(const ct__node *n, const ct_tensor *const *in)
{
    return ct__elu_grad(n, in[0], in[1], true, true);
}
CT__GRAD_OP(ct__elu_backward_x, "EluBackwardBackward0", ct__elu_grad_x, 2, 2);
CT__GRAD_OP(ct__elu_backward_y, "EluBackwardBackward0", ct__elu_grad_y, 2, 2);
CT__GRAD_OP(ct__celu_backward_x, "EluBackwardBackward0", ct__celu_grad_x, 2, 2);
CT__GRAD_OP(ct__celu_backward_y, "EluBackwardBackward0", ct__celu_grad_y, 2, 2);

static ct_result ct__elu_backward(ct__node *n, ct_tensor *const *go, ct_tensor **gi, const ct__grad_op *op,
                                  bool is_result)
{
    if (is_result && n->pw.p[0] < 0)
        return ct__fail(CT_ERR_RUNTIME, "In-place elu backward calculation is triggered with a negative slope which is "
                                        "not supported. This is caused by calling in-place forward function with a "
                                        "negative slope, please call out-of-place version instead.");
    CT__GRAD_OP_OF(op, is_result ? CT__Y : CT__X);
    return CT_OK;
}
CT__BACKWARD(elu) { return ct__elu_backward(n, go, gi, &ct__elu_backward_x, false); }
CT__BACKWARD(elu_result) { return ct__elu_backward(n, go, gi, &ct__elu_backward_y, true); }
CT__BACKWARD(celu) { return ct__elu_backward(n, go, gi, &ct__celu_backward_x, false); }
CT__BACKWARD(celu_result) { return ct__elu_backward(n, go, gi, &ct__celu_backward_y, true); }

/* gelu_backward(g, x): g * (cdf + x * pdf), or its tanh approximation's derivative */
static ct_tensor *ct__gelu_grad(const ct__node *n, const ct_tensor *const *in)
{
    const ct_tensor *g = in[0], *x = in[1];
    ct_dtype dt = x->dtype;
    if (n->pw.mode != CT_GELU_TANH) {
        /* (float32's kernel only: PyTorch's float64 one runs SLEEF's double erf, ctorch's the C
         * library's; its bfloat16 one computes contiguous blocks in float, which ctorch's does not yet) */
        if (dt == CT_F32 && ct__grad_kernel(g, x)) return ct_gelu_backward(g, x, CT_GELU_NONE);
        const double sqrt1_2 = 0.70710678118654752440, two_sqrtpi = 1.12837916709551257390;
        ct_tensor *erf = ct_erf(ct_mul_scalar(x, ct__coef(sqrt1_2, dt)));
        ct_tensor *cdf = ct_mul_scalar(ct_add_scalar(erf, ct_int(1)), ct_float(0.5));
        ct_tensor *pdf = ct_mul_scalar(ct_exp(ct_mul_scalar(ct_mul(x, x), ct_float(-0.5))),
                                       ct__coef(two_sqrtpi * sqrt1_2 * 0.5, dt));
        return ct_mul(g, ct_add(cdf, ct_mul(x, pdf)));
    }
    const double beta = 1.41421356237309504880 * 1.12837916709551257390 * 0.5, kappa = 0.044715;
    ct_tensor *x_sq = ct_mul(x, x);
    ct_tensor *cube = ct_mul_scalar(ct_mul(x_sq, x), ct__coef(kappa, dt));
    ct_tensor *inner = ct_mul_scalar(ct_add(x, cube), ct__coef(beta, dt));
    ct_tensor *t = ct_tanh(inner);
    ct_tensor *left = ct_mul_scalar(x, ct_float(0.5));
    ct_tensor *left_d = ct_mul_scalar(ct_add_scalar(t, ct_int(1)), ct_float(0.5));
    ct_tensor *inner_d = ct_mul_scalar(ct_add_scalar(ct_mul_scalar(x_sq, ct__coef_mul(3.0, kappa, dt)), ct_int(1)),
                                       ct__coef(beta, dt));
    ct_tensor *right_d = ct_mul(ct_mul(left, ct_rsub_scalar(ct_mul(t, t), ct_int(1))), inner_d);
    return ct_mul(g, ct_add(left_d, right_d));
}
CT__GRAD_OP(ct__gelu_backward, "GeluBackwardBackward0", ct__gelu_grad, 2, 2);
CT__BACKWARD_OP(gelu, &ct__gelu_backward, CT__X)

/* silu: g * s * (1 + x * (1 - s)), s = sigmoid(x) */
static ct_tensor *ct__silu_grad(const ct_tensor *g, const ct_tensor *x)
{
    ct_tensor *s = ct_sigmoid(x);
    return ct_mul(ct_mul(g, s), ct_add_scalar(ct_mul(x, ct_rsub_scalar(s, ct_int(1))), ct_int(1)));
}
CT__UNARY_GRAD(silu, ct__silu_grad(CT__G, CT__X))

/* mish: g * (t + x * sigmoid(x) * (1 - t * t)), t = tanh(log1p(exp(x))) */
static ct_tensor *ct__mish_grad(const ct_tensor *g, const ct_tensor *x)
{
    ct_tensor *t = ct_tanh(ct_log1p(ct_exp(x)));
    ct_tensor *rest = ct_mul(ct_mul(x, ct_sigmoid(x)), ct_rsub_scalar(ct_mul(t, t), ct_int(1)));
    return ct_mul(g, ct_add(t, rest));
}
CT__UNARY_GRAD(mish, ct__mish_grad(CT__G, CT__X))

/* softplus_backward(g, x): g where beta * x > threshold, else g * z / (z + 1), z = exp(beta * x) */
static ct_tensor *ct__softplus_grad(const ct__node *n, const ct_tensor *const *in)
{
    const ct_tensor *g = in[0], *x = in[1];
    const double *p = n->pw.p;
    ct_tensor *bx = ct_mul_scalar(x, ct__coef(p[0], x->dtype));
    ct_tensor *z = ct_exp(ct__smooth_only(bx, ct_lt_scalar(bx, ct_float(p[1]))));
    return ct_where(ct_gt_scalar(bx, ct_float(p[1])), g, ct_div(ct_mul(g, z), ct_add_scalar(z, ct_int(1))));
}
CT__GRAD_OP(ct__softplus_backward, "SoftplusBackwardBackward0", ct__softplus_grad, 2, 2);
CT__BACKWARD_OP(softplus, &ct__softplus_backward, CT__X)

/* hardsigmoid: g / 6 inside (-3, 3), with PyTorch's float 1/6 for every dtype */
static ct_tensor *ct__hardsigmoid_grad(const ct_tensor *g, const ct_tensor *x)
{
    ct_tensor *inside = ct_logical_and(ct_gt_scalar(x, ct_int(-3)), ct_lt_scalar(x, ct_int(3)));
    return ct_where_scalar_other(inside, ct_mul_scalar(g, ct_float((double)(1.0f / 6.0f))), ct_int(0));
}

/* PyTorch 1.13 has no derivative for hardsigmoid_backward: under create_graph
 * its result gets a NotImplemented node over (grad_output, self), which fails
 * when reached, rather than a result that silently does not require grad. */
CT__BACKWARD(hardsigmoid_backward)
{
    (void)n, (void)go, (void)gi;
    return ct__fail(CT_ERR_RUNTIME, "derivative for aten::hardsigmoid_backward is not implemented");
}

CT__BACKWARD(hardsigmoid)
{
    static const ct__node_type missing = {"torch::autograd::NotImplemented", ct__bw_hardsigmoid_backward};
    if (!ct__needs_grad(n, 0)) return CT_OK;
    const ct_tensor *in[2] = {CT__G, CT__X};
    if (!in[1]) return ct_last_error_code();
    ct_tensor *r = ct__hardsigmoid_grad(ct_detach(in[0]), in[1]);
    if (!r || !ct__recorded_ok(ct__record(&missing, in, 2, &r, 1), in, 2)) return ct_last_error_code();
    gi[0] = r;
    return CT_OK;
}

/* hardswish_backward(g, x): 0 below -3, g * (x / 3 + 1/2) up to 3, g above */
static ct_tensor *ct__hardswish_grad(const ct__node *n, const ct_tensor *const *in)
{
    const ct_tensor *g = in[0], *x = in[1];
    (void)n;
    const ct_tensor *xm = ct__smooth_only(x, ct_logical_and(ct_gt_scalar(x, ct_int(-3)), ct_lt_scalar(x, ct_int(3))));
    ct_tensor *mid = ct_mul(g, ct_add_scalar(ct_div_scalar(xm, ct_int(3)), ct_float(0.5)));
    return ct_where_scalar_self(ct_lt_scalar(x, ct_int(-3)), ct_int(0), ct_where(ct_le_scalar(x, ct_int(3)), mid, g));
}
CT__GRAD_OP(ct__hardswish_backward, "HardswishBackwardBackward0", ct__hardswish_grad, 2, 2);
CT__BACKWARD_OP(hardswish, &ct__hardswish_backward, CT__X)

/* hardtanh_backward(g, x) (and relu6's), with the number bounds as tensors
 * in[2], in[3]: 0 at and beyond them */
static ct_tensor *ct__hardtanh_grad(const ct__node *n, const ct_tensor *const *in)
{
    (void)n;
    return ct_where_scalar_self(ct_logical_or(ct_le(in[1], in[2]), ct_ge(in[1], in[3])), ct_int(0), in[0]);
}
CT__GRAD_OP(ct__hardtanh_backward, "HardtanhBackwardBackward0", ct__hardtanh_grad, 2, 4);
CT__BACKWARD_OP(hardtanh, &ct__hardtanh_backward, CT__X, CT__IN(1), CT__IN(2))

/* ---- clamps: g passes where the bound did not act (at the bound too) */

/* where(keep, g, 0) */
static ct_tensor *ct__pass(const ct_tensor *keep, const ct_tensor *g)
{
    return ct_where_scalar_other(keep, g, ct_int(0));
}

CT__UNARY_GRAD(clamp_min_number, ct__pass(ct_ge(CT__X, CT__IN(1)), CT__G))
CT__UNARY_GRAD(clamp_max_number, ct__pass(ct_le(CT__X, CT__IN(1)), CT__G))
CT__UNARY_GRAD(clamp_numbers, ct__pass(ct_logical_and(ct_ge(CT__X, CT__IN(1)), ct_le(CT__X, CT__IN(2))), CT__G))

CT__BACKWARD(clamp_min)
{
    CT__GRAD(0, ct__pass(ct_ge(CT__X, CT__IN(1)), CT__G));
    CT__GRAD(1, ct__pass(ct_lt(CT__X, CT__IN(1)), CT__G));
    return CT_OK;
}

CT__BACKWARD(clamp_max)
{
    CT__GRAD(0, ct__pass(ct_le(CT__X, CT__IN(1)), CT__G));
    CT__GRAD(1, ct__pass(ct_gt(CT__X, CT__IN(1)), CT__G));
    return CT_OK;
}

/* clamp_backward and clamp_backward_min_max: a bound gets g where it acted
 * (min where x < min < max; max where x > max, or everywhere max < min) */
CT__BACKWARD(clamp)
{
    ct_tensor *x = CT__X, *lo = CT__IN(1), *hi = CT__IN(2);
    CT__GRAD(0, ct__pass(ct_logical_and(ct_ge(x, lo), ct_le(x, hi)), CT__G));
    CT__GRAD(1, ct__pass(ct_logical_and(ct_lt(x, lo), ct_lt(lo, hi)), CT__G));
    CT__GRAD(2, ct__pass(ct_logical_or(ct_gt(x, hi), ct_lt(hi, lo)), CT__G));
    return CT_OK;
}

/* maximum, minimum: ties split the gradient in half */
static ct_tensor *ct__extremum_grad(const ct_tensor *g, const ct_tensor *a, const ct_tensor *b, bool self_loses_below)
{
    ct_tensor *split = ct_where(ct_eq(a, b), ct_div_scalar(g, ct_int(2)), g);
    return ct_where_scalar_self(self_loses_below ? ct_lt(a, b) : ct_gt(a, b), ct_int(0), split);
}

CT__BACKWARD(maximum)
{
    CT__GRAD(0, ct__extremum_grad(CT__G, CT__IN(0), CT__IN(1), true));
    CT__GRAD(1, ct__extremum_grad(CT__G, CT__IN(0), CT__IN(1), false));
    return CT_OK;
}

CT__BACKWARD(minimum)
{
    CT__GRAD(0, ct__extremum_grad(CT__G, CT__IN(0), CT__IN(1), false));
    CT__GRAD(1, ct__extremum_grad(CT__G, CT__IN(0), CT__IN(1), true));
    return CT_OK;
}

/* fmax, fmin: self gets g where it won ((a >= b, or <=) or b is NaN), other elsewhere */
static ct_result ct__fextremum_backward(ct__node *n, ct_tensor *const *go, ct_tensor **gi, bool max)
{
    ct_tensor *a = CT__IN(0), *b = CT__IN(1);
    ct_tensor *self_won = ct_logical_or(max ? ct_ge(a, b) : ct_le(a, b), ct_isnan(b));
    CT__GRAD(0, ct__pass(self_won, CT__G));
    CT__GRAD(1, ct_where_scalar_self(self_won, ct_int(0), CT__G));
    return CT_OK;
}
CT__BACKWARD(fmax) { return ct__fextremum_backward(n, go, gi, true); }
CT__BACKWARD(fmin) { return ct__fextremum_backward(n, go, gi, false); }

/* ---- binary ops */

/* copysign: g * result / self, 0 where self is 0; other gets zeros */
CT__BACKWARD(copysign)
{
    CT__GRAD(0, ct_mul(CT__G, ct_where_scalar_self(ct_eq_scalar(CT__X, ct_int(0)), ct_int(0), ct_div(CT__Y, CT__X))));
    if (ct__needs_grad(n, 1)) {
        const ct__out_meta *m = ct__input_meta(n, 1);
        CT__GRAD(1, ct_zeros(ct_shape_make(m->ndim, m->sizes), m->dtype));
    }
    return CT_OK;
}

CT__BACKWARD(hypot)
{
    CT__GRAD(0, ct_div(ct_mul(CT__G, CT__IN(0)), CT__Y));
    CT__GRAD(1, ct_div(ct_mul(CT__G, CT__IN(1)), CT__Y));
    return CT_OK;
}

/* atan2_backward: (g * b, g * -a) / (a^2 + b^2) */
CT__BACKWARD(atan2)
{
    ct_tensor *a = CT__IN(0), *b = CT__IN(1);
    ct_tensor *recip = ct_reciprocal(ct_add(ct_mul(a, a), ct_mul(b, b)));
    CT__GRAD(0, ct_mul(ct_mul(CT__G, b), recip));
    CT__GRAD(1, ct_mul(ct_mul(CT__G, ct_neg(a)), recip));
    return CT_OK;
}

/* xlogy: self gets xlogy(g, other), 0 where self is 0 and other <= 0 (for a
 * number other, masked only when it is <= 0); other gets g * self / other */
CT__BACKWARD(xlogy)
{
    ct_tensor *a = CT__IN(0), *b = CT__IN(1);
    if (ct__needs_grad(n, 0)) {
        ct_tensor *d = ct_xlogy(CT__G, b), *zero = ct_eq_scalar(a, ct_float(0.0));
        if (!b->wrapped_number) zero = ct_logical_and(zero, ct_le_scalar(b, ct_float(0.0)));
        CT__GRAD(0, b->wrapped_number && ct_item(b) > 0 ? d : ct_where_scalar_self(zero, ct_float(0.0), d));
    }
    CT__GRAD(1, ct_div(ct_mul(CT__G, a), b));
    return CT_OK;
}

/* remainder, fmod: other gets -g * (self / other rounded as the op rounds) */
static ct_result ct__mod_backward(ct__node *n, ct_tensor *const *go, ct_tensor **gi, ct_rounding_mode mode)
{
    CT__GRAD(0, CT__G);
    CT__GRAD(1, ct_mul(ct_neg(CT__G), ct_div_mode(CT__IN(0), CT__IN(1), mode)));
    return CT_OK;
}
CT__BACKWARD(remainder) { return ct__mod_backward(n, go, gi, CT_ROUNDING_FLOOR); }
CT__BACKWARD(fmod) { return ct__mod_backward(n, go, gi, CT_ROUNDING_TRUNC); }

/* pow_backward_self and pow_backward_exponent (tensor ** tensor) */
CT__BACKWARD(pow)
{
    ct_tensor *a = CT__IN(0), *b = CT__IN(1);
    CT__GRAD(0, ct_where_scalar_self(ct_eq_scalar(b, ct_float(0.0)), ct_int(0),
                                     ct_mul(CT__G, ct_mul(b, ct_pow(a, ct_sub_scalar(b, ct_int(1)))))));
    if (ct__needs_grad(n, 1)) {
        ct_tensor *base = ct_to(a, ct_result_type(a, b));
        ct_tensor *at_zero = ct_logical_and(ct_eq_scalar(a, ct_int(0)), ct_ge_scalar(b, ct_int(0)));
        CT__GRAD(1, ct_mul(CT__G, ct_where_scalar_self(at_zero, ct_int(0), ct_mul(CT__Y, ct_log(base)))));
    }
    return CT_OK;
}

/* pow_backward (tensor ** number e): g * (e * self^(e - 1)), zeros for e == 0 */
CT__BACKWARD(pow_number)
{
    double e = ct_item(CT__IN(1));
    CT__GRAD(0, e == 0 ? ct_zeros_like(CT__X, CT_DEFAULT)
                       : ct_mul(CT__G, ct_mul_scalar(ct_pow_scalar(CT__X, ct_float(e - 1)), ct_float(e))));
    return CT_OK;
}

/* pow_backward_exponent (number c ** tensor): g * result * log(c), 0 where
 * c == 0 and the exponent is >= 0. The exponent is the only edge. */
CT__BACKWARD(rpow)
{
    double c = ct_item(CT__IN(0));
    ct_tensor *d = ct_mul_scalar(CT__Y, ct_float(log(c)));
    if (c == 0) d = ct_where_scalar_self(ct_ge_scalar(CT__IN(1), ct_int(0)), ct_int(0), d);
    CT__GRAD(0, ct_mul(CT__G, d));
    return CT_OK;
}

/* ---- ternary ops */

/* addcmul: tensor1 gets g * (tensor2 * value), and the other way round */
CT__BACKWARD(addcmul)
{
    ct_scalar v = CT__ARGS->value;
    CT__GRAD(0, CT__G);
    CT__GRAD(1, ct_mul(CT__G, ct_mul_scalar(CT__IN(2), v)));
    CT__GRAD(2, ct_mul(CT__G, ct_mul_scalar(CT__IN(1), v)));
    return CT_OK;
}

/* addcdiv: tensor1 gets g * (value / tensor2), which ATen computes as
 * tensor2.reciprocal() * value; tensor2 -g * (value * tensor1 / tensor2^2) */
CT__BACKWARD(addcdiv)
{
    ct_scalar v = CT__ARGS->value;
    ct_tensor *t1 = CT__IN(1), *t2 = CT__IN(2);
    CT__GRAD(0, CT__G);
    CT__GRAD(1, ct_mul(CT__G, ct_mul_scalar(ct_reciprocal(t2), v)));
    CT__GRAD(2, ct_mul(ct_neg(CT__G), ct_div(ct_mul_scalar(t1, v), ct_mul(t2, t2))));
    return CT_OK;
}

/* lerp with a number weight w (value): g * (1 - w) (in double) and g * w */
CT__BACKWARD(lerp_number)
{
    ct_scalar w = CT__ARGS->value;
    double wd = w.kind == CT_F64 ? w.v.f : w.kind == CT_BOOL ? (double)w.v.b : (double)w.v.i;
    CT__GRAD(0, ct_mul_scalar(CT__G, ct_float(1.0 - wd)));
    CT__GRAD(1, ct_mul_scalar(CT__G, w));
    return CT_OK;
}

CT__BACKWARD(lerp)
{
    ct_tensor *w = CT__IN(2);
    CT__GRAD(0, ct_mul(CT__G, ct_rsub_scalar(w, ct_int(1))));
    CT__GRAD(1, ct_mul(CT__G, w));
    CT__GRAD(2, ct_mul(CT__G, ct_sub(CT__IN(1), CT__IN(0))));
    return CT_OK;
}

/* div with a rounding mode, and the in-place comparisons: zero gradients */
CT__BACKWARD(zeros2)
{
    CT__GRAD(0, ct_zeros_like(CT__G, CT_DEFAULT));
    CT__GRAD(1, ct_zeros_like(CT__G, CT_DEFAULT));
    return CT_OK;
}

/* floor_divide records PyTorch's NotImplemented node, which fails when reached */
CT__BACKWARD(floor_divide)
{
    (void)n, (void)go, (void)gi;
    return ct__fail(CT_ERR_RUNTIME, "derivative for aten::floor_divide is not implemented");
}

/* PyTorch 1.13 records asinh_, acosh_ and atanh_ with nodes that fail when reached */
#define CT__INPLACE_MISSING(op)                                                          \
    CT__BACKWARD(op##_)                                                                  \
    {                                                                                    \
        (void)n, (void)go, (void)gi;                                                     \
        return ct__fail(CT_ERR_NOT_IMPLEMENTED,                                          \
                        "the derivative for 'inplace version of " #op "' is not implemented."); \
    }
CT__INPLACE_MISSING(asinh)
CT__INPLACE_MISSING(acosh)
CT__INPLACE_MISSING(atanh)
#undef CT__INPLACE_MISSING

#undef CT__UNARY_GRAD
#undef CT__Y
#undef CT__X
#undef CT__G

/* ---------------------------------------------------------------- the table */

#define CT__PW(var, name, bw, save) static const ct__pw_grad var = {{name, ct__bw_##bw}, false, false, save}
#define CT__PW_EDGE(var, name, bw, save) static const ct__pw_grad var = {{name, ct__bw_##bw}, true, false, save}
#define CT__SELF CT__SAVE_IN(0)
#define CT__BOTH (CT__SAVE_IN(0) | CT__SAVE_IN(1))
#define CT__ALL3 (CT__SAVE_IN(0) | CT__SAVE_IN(1) | CT__SAVE_IN(2))
CT__PW(ct__pw_neg, "NegBackward0", neg, 0);
CT__PW(ct__pw_abs, "AbsBackward0", abs, CT__SELF);
CT__PW(ct__pw_sign, "SignBackward0", zero, 0);
CT__PW(ct__pw_round, "RoundBackward0", zero, 0);
CT__PW(ct__pw_round_decimals, "RoundBackward1", zero, 0);
CT__PW(ct__pw_floor, "FloorBackward0", zero, 0);
CT__PW(ct__pw_ceil, "CeilBackward0", zero, 0);
CT__PW(ct__pw_trunc, "TruncBackward0", zero, 0);
CT__PW(ct__pw_frac, "FracBackward0", identity, 0);
CT__PW(ct__pw_exp, "ExpBackward0", exp, CT__SAVE_RESULT);
CT__PW(ct__pw_log, "LogBackward0", log, CT__SELF);
CT__PW(ct__pw_sqrt, "SqrtBackward0", sqrt, CT__SAVE_RESULT);
CT__PW(ct__pw_tanh, "TanhBackward0", tanh, CT__SAVE_RESULT);
CT__PW(ct__pw_sigmoid, "SigmoidBackward0", sigmoid, CT__SAVE_RESULT);
CT__PW(ct__pw_relu, "ReluBackward0", relu, CT__SAVE_RESULT);
CT__PW(ct__pw_reciprocal, "ReciprocalBackward0", reciprocal, CT__SAVE_RESULT);
CT__PW(ct__pw_exp2, "Exp2Backward0", exp2, CT__SAVE_RESULT);
CT__PW(ct__pw_expm1, "Expm1Backward0", expm1, CT__SAVE_RESULT);
CT__PW(ct__pw_log2, "Log2Backward0", log2, CT__SELF);
CT__PW(ct__pw_log10, "Log10Backward0", log10, CT__SELF);
CT__PW(ct__pw_log1p, "Log1PBackward0", log1p, CT__SELF);
CT__PW(ct__pw_rsqrt, "RsqrtBackward0", rsqrt, CT__SAVE_RESULT);
CT__PW(ct__pw_sin, "SinBackward0", sin, CT__SELF);
CT__PW(ct__pw_cos, "CosBackward0", cos, CT__SELF);
CT__PW(ct__pw_tan, "TanBackward0", tan, CT__SAVE_RESULT);
CT__PW(ct__pw_asin, "AsinBackward0", asin, CT__SELF);
CT__PW(ct__pw_acos, "AcosBackward0", acos, CT__SELF);
CT__PW(ct__pw_atan, "AtanBackward0", atan, CT__SELF);
CT__PW(ct__pw_sinh, "SinhBackward0", sinh, CT__SELF);
CT__PW(ct__pw_cosh, "CoshBackward0", cosh, CT__SELF);
CT__PW(ct__pw_asinh, "AsinhBackward0", asinh, CT__SELF);
CT__PW(ct__pw_acosh, "AcoshBackward0", acosh, CT__SELF);
CT__PW(ct__pw_atanh, "AtanhBackward0", atanh, CT__SELF);
CT__PW(ct__pw_asinh_, "AsinhBackward1", asinh_, 0);
CT__PW(ct__pw_acosh_, "AcoshBackward1", acosh_, 0);
CT__PW(ct__pw_atanh_, "AtanhBackward1", atanh_, 0);
CT__PW(ct__pw_erf, "ErfBackward0", erf, CT__SELF);
CT__PW(ct__pw_erfc, "ErfcBackward0", erfc, CT__SELF);
CT__PW(ct__pw_erfinv, "ErfinvBackward0", erfinv, CT__SELF);
CT__PW(ct__pw_lgamma, "LgammaBackward0", lgamma, CT__SELF);
CT__PW(ct__pw_digamma, "DigammaBackward0", digamma, CT__SELF);
CT__PW(ct__pw_polygamma, "PolygammaBackward0", polygamma, CT__SELF);
CT__PW(ct__pw_polygamma_, "PolygammaBackward1", polygamma, CT__SELF);
CT__PW(ct__pw_logit, "LogitBackward0", logit, CT__SELF);
CT__PW(ct__pw_nan_to_num, "NanToNumBackward0", nan_to_num, CT__SELF);
CT__PW(ct__pw_leaky_relu, "LeakyReluBackward0", leaky_relu, CT__SELF);
CT__PW(ct__pw_leaky_relu_, "LeakyReluBackward1", leaky_relu_result, CT__SAVE_RESULT);
CT__PW(ct__pw_elu, "EluBackward0", elu, CT__SELF);
CT__PW(ct__pw_elu_, "EluBackward1", elu_result, CT__SAVE_RESULT);
CT__PW(ct__pw_celu, "CeluBackward0", celu, CT__SELF);
CT__PW(ct__pw_celu_, "CeluBackward1", celu_result, CT__SAVE_RESULT);
CT__PW(ct__pw_gelu, "GeluBackward0", gelu, CT__SELF);
CT__PW(ct__pw_silu, "SiluBackward0", silu, CT__SELF);
CT__PW(ct__pw_mish, "MishBackward0", mish, CT__SELF);
CT__PW(ct__pw_softplus, "SoftplusBackward0", softplus, CT__SELF);
CT__PW(ct__pw_hardsigmoid, "HardsigmoidBackward0", hardsigmoid, CT__SELF);
CT__PW(ct__pw_hardswish, "HardswishBackward0", hardswish, CT__SELF);
CT__PW(ct__pw_hardtanh, "HardtanhBackward0", hardtanh, CT__ALL3);
CT__PW(ct__pw_clamp_numbers, "ClampBackward1", clamp_numbers, CT__ALL3);
CT__PW(ct__pw_clamp, "ClampBackward0", clamp, CT__ALL3);
CT__PW(ct__pw_clamp_min_number, "ClampMinBackward0", clamp_min_number, CT__BOTH);
CT__PW(ct__pw_clamp_max_number, "ClampMaxBackward0", clamp_max_number, CT__BOTH);
CT__PW(ct__pw_clamp_min, "ClampMinBackward1", clamp_min, CT__BOTH);
CT__PW(ct__pw_clamp_max, "ClampMaxBackward1", clamp_max, CT__BOTH);
CT__PW(ct__pw_maximum, "MaximumBackward0", maximum, CT__BOTH);
CT__PW(ct__pw_minimum, "MinimumBackward0", minimum, CT__BOTH);
CT__PW(ct__pw_fmax, "FmaxBackward0", fmax, CT__BOTH);
CT__PW(ct__pw_fmin, "FminBackward0", fmin, CT__BOTH);
CT__PW(ct__pw_copysign, "CopysignBackward0", copysign, CT__SELF | CT__SAVE_RESULT);
CT__PW(ct__pw_copysign_number, "CopysignBackward1", copysign, CT__SELF | CT__SAVE_RESULT);
CT__PW(ct__pw_hypot, "HypotBackward0", hypot, CT__BOTH | CT__SAVE_RESULT);
CT__PW(ct__pw_atan2, "Atan2Backward0", atan2, CT__BOTH);
CT__PW(ct__pw_xlogy, "XlogyBackward0", xlogy, CT__BOTH);
CT__PW(ct__pw_xlogy_number, "XlogyBackward2", xlogy, CT__BOTH);
CT__PW(ct__pw_remainder, "RemainderBackward1", remainder, CT__BOTH);
CT__PW(ct__pw_remainder_number, "RemainderBackward0", identity, 0);
CT__PW(ct__pw_fmod, "FmodBackward1", fmod, CT__BOTH);
CT__PW(ct__pw_fmod_number, "FmodBackward0", identity, 0);
CT__PW(ct__pw_pow, "PowBackward1", pow, CT__BOTH | CT__SAVE_RESULT);
CT__PW(ct__pw_pow_number, "PowBackward0", pow_number, CT__BOTH);
CT__PW(ct__pw_rpow, "PowBackward2", rpow, CT__BOTH | CT__SAVE_RESULT);
CT__PW(ct__pw_addcmul, "AddcmulBackward0", addcmul, CT__SAVE_IN(1) | CT__SAVE_IN(2));
CT__PW(ct__pw_addcdiv, "AddcdivBackward0", addcdiv, CT__SAVE_IN(1) | CT__SAVE_IN(2));
CT__PW(ct__pw_lerp_number, "LerpBackward0", lerp_number, 0);
CT__PW(ct__pw_lerp, "LerpBackward1", lerp, CT__ALL3);
CT__PW_EDGE(ct__pw_div_mode, "DivBackward2", zeros2, 0);
CT__PW_EDGE(ct__pw_floor_divide, "torch::autograd::NotImplemented", floor_divide, 0);
static const ct__pw_grad ct__pw_add = {{"AddBackward0", ct__bw_add}, true, false, 0};
static const ct__pw_grad ct__pw_sub = {{"SubBackward0", ct__bw_sub}, true, false, 0};
static const ct__pw_grad ct__pw_mul = {{"MulBackward0", ct__bw_mul}, true, false, CT__BOTH};
static const ct__pw_grad ct__pw_div = {{"DivBackward0", ct__bw_div}, true, false, CT__BOTH};
static const ct__pw_grad ct__pw_where = {{"WhereBackward0", ct__bw_where}, true, true, CT__SAVE_IN(0)};
/* the in-place comparisons (Tensor.eq_...): number and tensor forms */
#define CT__PW_CMP(op, Name)                                          \
    CT__PW(ct__pw_##op##_number, #Name "Backward0", zeros2, 0); \
    CT__PW(ct__pw_##op, #Name "Backward1", zeros2, 0);
CT__PW_CMP(eq, Eq)
CT__PW_CMP(ne, Ne)
CT__PW_CMP(lt, Lt)
CT__PW_CMP(le, Le)
CT__PW_CMP(gt, Gt)
CT__PW_CMP(ge, Ge)
#undef CT__PW_CMP
#undef CT__ALL3
#undef CT__BOTH
#undef CT__SELF
#undef CT__PW_EDGE
#undef CT__PW

/* The formula of a unary pointwise op, NULL for one without a derivative. */
static const ct__pw_grad *ct__pw_grad_unary(ct__op op)
{
    switch (op) {
    case CT__OP_neg: return &ct__pw_neg;
    case CT__OP_abs: return &ct__pw_abs;
    case CT__OP_sign: return &ct__pw_sign;
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
    case CT__OP_reciprocal: return &ct__pw_reciprocal;
    case CT__OP_exp2: return &ct__pw_exp2;
    case CT__OP_expm1: return &ct__pw_expm1;
    case CT__OP_log2: return &ct__pw_log2;
    case CT__OP_log10: return &ct__pw_log10;
    case CT__OP_log1p: return &ct__pw_log1p;
    case CT__OP_rsqrt: return &ct__pw_rsqrt;
    case CT__OP_sin: return &ct__pw_sin;
    case CT__OP_cos: return &ct__pw_cos;
    case CT__OP_tan: return &ct__pw_tan;
    case CT__OP_asin: return &ct__pw_asin;
    case CT__OP_acos: return &ct__pw_acos;
    case CT__OP_atan: return &ct__pw_atan;
    case CT__OP_sinh: return &ct__pw_sinh;
    case CT__OP_cosh: return &ct__pw_cosh;
    case CT__OP_erf: return &ct__pw_erf;
    case CT__OP_erfc: return &ct__pw_erfc;
    case CT__OP_erfinv: return &ct__pw_erfinv;
    case CT__OP_lgamma: return &ct__pw_lgamma;
    case CT__OP_digamma: return &ct__pw_digamma;
    case CT__OP_logit: return &ct__pw_logit;
    case CT__OP_nan_to_num: return &ct__pw_nan_to_num;
    case CT__OP_gelu: return &ct__pw_gelu;
    case CT__OP_silu: return &ct__pw_silu;
    case CT__OP_mish: return &ct__pw_mish;
    case CT__OP_softplus: return &ct__pw_softplus;
    case CT__OP_hardsigmoid: return &ct__pw_hardsigmoid;
    case CT__OP_hardswish: return &ct__pw_hardswish;
    default: return NULL;
    }
}

/* An op whose number form (last operand a Python number) has a node of its own. */
static const ct__pw_grad *ct__pw_grad_number_form(ct__op op, bool number)
{
    switch (op) {
    case CT__OP_copysign: return number ? &ct__pw_copysign_number : &ct__pw_copysign;
    case CT__OP_xlogy: return number ? &ct__pw_xlogy_number : &ct__pw_xlogy;
    case CT__OP_remainder: return number ? &ct__pw_remainder_number : &ct__pw_remainder;
    case CT__OP_fmod: return number ? &ct__pw_fmod_number : &ct__pw_fmod;
    case CT__OP_eq: return number ? &ct__pw_eq_number : &ct__pw_eq;
    case CT__OP_ne: return number ? &ct__pw_ne_number : &ct__pw_ne;
    case CT__OP_lt: return number ? &ct__pw_lt_number : &ct__pw_lt;
    case CT__OP_le: return number ? &ct__pw_le_number : &ct__pw_le;
    case CT__OP_gt: return number ? &ct__pw_gt_number : &ct__pw_gt;
    case CT__OP_ge: return number ? &ct__pw_ge_number : &ct__pw_ge;
    default: return NULL;
    }
}

/* The formula of a pointwise call: the op, the form its operands and options
 * make (args NULL: the op's default), and whether it works in place.
 * Comparisons have formulas only in place, as PyTorch's eq_ has (their
 * results are bool otherwise, which never requires grad). */
static const ct__pw_grad *ct__pw_grad_of(ct__op op, const ct_tensor *const *in, const ct__op_args *args, bool inplace)
{
    ct__op derived = args ? args->derived : (ct__op)0;
    bool numbers = args && args->scalar_clamp;
    switch (op) {
    case CT__OP_add: return &ct__pw_add;
    case CT__OP_sub: return &ct__pw_sub;
    case CT__OP_mul: return &ct__pw_mul;
    case CT__OP_where: return &ct__pw_where;
    case CT__OP_round: return args && args->mode ? &ct__pw_round_decimals : &ct__pw_round;
    case CT__OP_polygamma: return inplace ? &ct__pw_polygamma_ : &ct__pw_polygamma;
    case CT__OP_asinh: return inplace ? &ct__pw_asinh_ : &ct__pw_asinh;
    case CT__OP_acosh: return inplace ? &ct__pw_acosh_ : &ct__pw_acosh;
    case CT__OP_atanh: return inplace ? &ct__pw_atanh_ : &ct__pw_atanh;
    case CT__OP_leaky_relu: return inplace ? &ct__pw_leaky_relu_ : &ct__pw_leaky_relu;
    case CT__OP_elu:
        if (derived == CT__OP_celu) return inplace ? &ct__pw_celu_ : &ct__pw_celu;
        return inplace ? &ct__pw_elu_ : &ct__pw_elu;
    case CT__OP_clamp:
        return !numbers ? &ct__pw_clamp : derived == CT__OP_hardtanh ? &ct__pw_hardtanh : &ct__pw_clamp_numbers;
    case CT__OP_maximum:
        return numbers ? &ct__pw_clamp_min_number : derived == CT__OP_clamp_min ? &ct__pw_clamp_min : &ct__pw_maximum;
    case CT__OP_minimum:
        return numbers ? &ct__pw_clamp_max_number : derived == CT__OP_clamp_max ? &ct__pw_clamp_max : &ct__pw_minimum;
    case CT__OP_fmax: return &ct__pw_fmax;
    case CT__OP_fmin: return &ct__pw_fmin;
    case CT__OP_hypot: return &ct__pw_hypot;
    case CT__OP_atan2: return &ct__pw_atan2;
    case CT__OP_div:
        if (derived == CT__OP_floor_divide) return &ct__pw_floor_divide;
        return args && args->mode ? &ct__pw_div_mode : &ct__pw_div;
    case CT__OP_pow:
        return in[0]->wrapped_number ? &ct__pw_rpow : in[1]->wrapped_number ? &ct__pw_pow_number : &ct__pw_pow;
    case CT__OP_addcmul: return &ct__pw_addcmul;
    case CT__OP_addcdiv: return &ct__pw_addcdiv;
    case CT__OP_lerp: return in[2]->wrapped_number ? &ct__pw_lerp_number : &ct__pw_lerp;
    case CT__OP_eq: case CT__OP_ne: case CT__OP_lt: case CT__OP_le: case CT__OP_gt: case CT__OP_ge:
        return inplace ? ct__pw_grad_number_form(op, in[1]->wrapped_number) : NULL;
    default: break;
    }
    const ct__pw_grad *f = ct__pw_grad_unary(op);
    return f ? f : in[1] ? ct__pw_grad_number_form(op, in[1]->wrapped_number) : NULL;
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

/* CT_OK, or the error of a record that ran out of memory. */
static ct_result ct__pointwise_record(ct__op op, ct_tensor *out, const ct_tensor *const *in, int n_in,
                                      const ct__op_args *args, ct_tensor *self_before)
{
    const ct__pw_grad *f = ct__pw_grad_of(op, in, args, out == in[0]);
    if (!f) return CT_OK;
    const ct_tensor *edges_in[3] = {NULL, NULL, NULL};
    int n_edges = 0;
    for (int i = f->condition_first ? 1 : 0; i < n_in; i++)
        if (!in[i]->wrapped_number || f->number_keeps_edge) edges_in[n_edges++] = in[i];
    ct__node *node = ct__record(&f->type, edges_in, n_edges, &out, 1);
    if (!node) return ct__recorded_ok(node, edges_in, n_edges) ? CT_OK : ct_last_error_code();
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
    return node->save_failed ? ct_last_error_code() : CT_OK;
}

static ct_tensor *ct__record_backward_op(ct__op op, ct_tensor *out, const ct_tensor *const *in, const ct__op_args *args)
{
    const ct__grad_op *grad_op = op == CT__OP_threshold_backward ? &ct__threshold_backward
                                 : op == CT__OP_tanh_backward    ? &ct__tanh_backward
                                 : op == CT__OP_sigmoid_backward ? &ct__sigmoid_backward
                                                                 : &ct__gelu_backward;
    ct__node *node = ct__record(&grad_op->type, in, 2, &out, 1);
    if (node) {
        ct__node forward; /* what the formula reads of a forward node: the numbers */
        memset(&forward, 0, sizeof forward);
        if (args) forward.pw = *args;
        ct__grad_op_keep(grad_op, node, &forward, in);
    }
    return ct__recorded_or_discard(out, node, in, 2);
}

/* Before an in-place op writes self: whether the node it will record would
 * save an inference tensor (refused then, before anything is written; self
 * itself is saved as a copy of its old values). */
static ct_result ct__pointwise_saves_inference(ct__op op, const ct_tensor *const *in, int n_in, const ct__op_args *args)
{
    if (!ct__records(in, n_in)) return CT_OK;
    const ct__pw_grad *f = ct__pw_grad_of(op, in, args, true);
    for (int i = 1; f && i < n_in; i++)
        if ((f->save & CT__SAVE_IN(i)) && ct__check_inference_save(in[i]) != CT_OK) return ct_last_error_code();
    return CT_OK;
}

/* Before an in-place op writes self: a copy of self when its formula needs
 * self's old values and something requires grad (NULL otherwise). */
static ct_tensor *ct__pointwise_self_before(ct__op op, const ct_tensor *const *in, int n_in)
{
    if (!ct__records(in, n_in)) return NULL;
    const ct__pw_grad *f = ct__pw_grad_of(op, in, NULL, true);
    if (!f || !(f->save & CT__SAVE_IN(0))) return NULL;
    return ct_clone(in[0]); /* recorded (PyTorch's original_self): double backward goes through it */
}

static bool ct__pointwise_differentiable(ct__op op, const ct_tensor *const *in, const ct__op_args *args)
{
    return ct__pw_grad_of(op, in, args, true) != NULL;
}
