/* Gradients of the pointwise ops against PyTorch: every op and form of
 * tests/golden/grad_pointwise.txt (written by gen_grad_pointwise.py) is run,
 * its node's name checked, its gradients for PyTorch's random grad_output
 * compared with PyTorch's, its backward errors matched; the float64 cases
 * marked gc also pass gradcheck and gradgradcheck. */
#include "harness.h"

#define GP "grad_pointwise"

/* ---------------------------------------------------------------- parameters */

typedef struct params {
    const char *text; /* key=value;... */
} params;

/* The value of key, or NULL. */
static const char *param(const params *p, const char *key)
{
    size_t k = strlen(key);
    for (const char *s = p->text; s && *s;) {
        if (!strncmp(s, key, k) && s[k] == '=') return s + k + 1;
        s = strchr(s, ';');
        if (s) s++;
    }
    return NULL;
}

static double param_f(const params *p, const char *key, double dflt)
{
    const char *v = param(p, key);
    return v ? strtod(v, NULL) : dflt;
}

/* a Python number: i:<int> or f:<float> */
static ct_scalar param_s(const params *p, const char *key)
{
    const char *v = param(p, key);
    if (!v) return ct_int(0);
    return v[0] == 'i' ? ct_int(strtoll(v + 2, NULL, 10)) : ct_float(strtod(v + 2, NULL));
}

/* ---------------------------------------------------------------- the ops */

typedef ct_tensor *(*unary_fn)(const ct_tensor *);
typedef ct_result (*unary_ip)(ct_tensor *);
typedef ct_tensor *(*binary_fn)(const ct_tensor *, const ct_tensor *);
typedef ct_result (*binary_ip)(ct_tensor *, const ct_tensor *);
typedef ct_tensor *(*number_fn)(const ct_tensor *, ct_scalar);
typedef ct_result (*number_ip)(ct_tensor *, ct_scalar);

static const struct {
    const char *name;
    unary_fn fn;
    unary_ip ip;
} unary_ops[] = {
    {"reciprocal", ct_reciprocal, ct_reciprocal_}, {"exp2", ct_exp2, ct_exp2_}, {"expm1", ct_expm1, ct_expm1_},
    {"log2", ct_log2, ct_log2_}, {"log10", ct_log10, ct_log10_}, {"log1p", ct_log1p, ct_log1p_},
    {"rsqrt", ct_rsqrt, ct_rsqrt_}, {"sin", ct_sin, ct_sin_}, {"cos", ct_cos, ct_cos_}, {"tan", ct_tan, ct_tan_},
    {"asin", ct_asin, ct_asin_}, {"acos", ct_acos, ct_acos_}, {"atan", ct_atan, ct_atan_},
    {"sinh", ct_sinh, ct_sinh_}, {"cosh", ct_cosh, ct_cosh_}, {"asinh", ct_asinh, ct_asinh_},
    {"acosh", ct_acosh, ct_acosh_}, {"atanh", ct_atanh, ct_atanh_}, {"erf", ct_erf, ct_erf_},
    {"erfc", ct_erfc, ct_erfc_}, {"erfinv", ct_erfinv, ct_erfinv_}, {"lgamma", ct_lgamma, ct_lgamma_},
    {"digamma", ct_digamma, ct_digamma_}, {"silu", ct_silu, ct_silu_}, {"mish", ct_mish, ct_mish_},
    {"hardsigmoid", ct_hardsigmoid, ct_hardsigmoid_}, {"hardswish", ct_hardswish, ct_hardswish_},
    {"relu6", ct_relu6, ct_relu6_}, {"selu", ct_selu, ct_selu_}, {"neg", ct_neg, ct_neg_}, {"abs", ct_abs, ct_abs_},
    {"exp", ct_exp, ct_exp_}, {"log", ct_log, ct_log_}, {"sqrt", ct_sqrt, ct_sqrt_}, {"tanh", ct_tanh, ct_tanh_},
    {"sigmoid", ct_sigmoid, ct_sigmoid_}, {"relu", ct_relu, ct_relu_}, {"frac", ct_frac, ct_frac_},
    {"sign", ct_sign, ct_sign_}, {"floor", ct_floor, ct_floor_}, {"ceil", ct_ceil, ct_ceil_},
    {"trunc", ct_trunc, ct_trunc_}, {"round", ct_round, ct_round_},
};

static const struct {
    const char *name;
    binary_fn fn;
    binary_ip ip;
    number_fn fn_s;
    number_ip ip_s;
} binary_ops[] = {
    {"xlogy", ct_xlogy, ct_xlogy_, ct_xlogy_scalar, ct_xlogy_scalar_},
    {"remainder", ct_remainder, ct_remainder_, ct_remainder_scalar, ct_remainder_scalar_},
    {"fmod", ct_fmod, ct_fmod_, ct_fmod_scalar, ct_fmod_scalar_},
    {"pow", ct_pow, ct_pow_, ct_pow_scalar, ct_pow_scalar_},
    {"maximum", ct_maximum, NULL, NULL, NULL},
    {"minimum", ct_minimum, NULL, NULL, NULL},
    {"fmax", ct_fmax, NULL, NULL, NULL},
    {"fmin", ct_fmin, NULL, NULL, NULL},
    {"copysign", ct_copysign, ct_copysign_, ct_copysign_scalar, ct_copysign_scalar_},
    {"hypot", ct_hypot, ct_hypot_, NULL, NULL},
    {"atan2", ct_atan2, ct_atan2_, NULL, NULL},
    {"clamp_min", ct_clamp_min, ct_clamp_min_, ct_clamp_min_scalar, ct_clamp_min_scalar_},
    {"clamp_max", ct_clamp_max, ct_clamp_max_, ct_clamp_max_scalar, ct_clamp_max_scalar_},
    {"add", ct_add, ct_add_, ct_add_scalar, ct_add_scalar_},
    {"sub", ct_sub, ct_sub_, ct_sub_scalar, ct_sub_scalar_},
    {"rsub", ct_rsub, NULL, ct_rsub_scalar, NULL},
    {"mul", ct_mul, ct_mul_, ct_mul_scalar, ct_mul_scalar_},
    {"div", ct_div, ct_div_, ct_div_scalar, ct_div_scalar_},
    {"floor_divide", ct_floor_divide, ct_floor_divide_, ct_floor_divide_scalar, ct_floor_divide_scalar_},
    {"eq", ct_eq, ct_eq_, ct_eq_scalar, ct_eq_scalar_},
    {"ne", ct_ne, ct_ne_, ct_ne_scalar, ct_ne_scalar_},
    {"lt", ct_lt, ct_lt_, ct_lt_scalar, ct_lt_scalar_},
    {"le", ct_le, ct_le_, ct_le_scalar, ct_le_scalar_},
    {"gt", ct_gt, ct_gt_, ct_gt_scalar, ct_gt_scalar_},
    {"ge", ct_ge, ct_ge_, ct_ge_scalar, ct_ge_scalar_},
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A unary op with parameters: out of place into *out, or in place on t. */
static ct_result unary_params(const char *op, ct_tensor *t, ct_tensor **out, const params *p)
{
    bool ip = out == NULL;
    ct_tensor *r = NULL;
    ct_result rc = CT_OK;
#define ONE(call_new, call_ip)           \
    do {                                 \
        if (ip) rc = (call_ip);          \
        else r = (call_new);             \
    } while (0)
    if (!strcmp(op, "polygamma")) {
        int64_t k = (int64_t)param_f(p, "n", 0);
        ONE(ct_polygamma(k, t), ct_polygamma_(t, k));
    } else if (!strcmp(op, "logit")) {
        double eps = param_f(p, "eps", -1);
        if (eps < 0) ONE(ct_logit(t), ct_logit_(t));
        else ONE(ct_logit_eps(t, eps), ct_logit_eps_(t, eps));
    } else if (!strcmp(op, "leaky_relu")) {
        double s = param_f(p, "slope", 0.01);
        ONE(ct_leaky_relu(t, s), ct_leaky_relu_(t, s));
    } else if (!strcmp(op, "elu")) {
        ct_elu_opts o = {param_f(p, "alpha", 1), param_f(p, "scale", 1), param_f(p, "input_scale", 1)};
        ONE(ct_elu(t, o), ct_elu_(t, o));
    } else if (!strcmp(op, "celu")) {
        double a = param_f(p, "alpha", 1);
        ONE(ct_celu(t, a), ct_celu_(t, a));
    } else if (!strcmp(op, "gelu")) {
        r = ct_gelu(t, strcmp(param(p, "approximate"), "tanh") ? CT_GELU_NONE : CT_GELU_TANH);
    } else if (!strcmp(op, "softplus")) {
        ct_softplus_opts o = {param_f(p, "beta", 1), param_f(p, "threshold", 20)};
        r = ct_softplus(t, o);
    } else if (!strcmp(op, "hardtanh")) {
        double lo = param_f(p, "min", -1), hi = param_f(p, "max", 1);
        ONE(ct_hardtanh(t, lo, hi), ct_hardtanh_(t, lo, hi));
    } else if (!strcmp(op, "nan_to_num")) {
        double pos = param_f(p, "posinf", 0), neg = param_f(p, "neginf", 0);
        ct_nan_to_num_opts o = {param_f(p, "nan", 0), NULL, NULL};
        if (param(p, "posinf")) o.posinf = &pos, o.neginf = &neg;
        ONE(ct_nan_to_num(t, o), ct_nan_to_num_(t, o));
    } else if (!strcmp(op, "round")) {
        int64_t d = (int64_t)param_f(p, "decimals", 0);
        ONE(ct_round_decimals(t, d), ct_round_decimals_(t, d));
    } else {
        return CT_ERR_VALUE;
    }
#undef ONE
    if (!ip) *out = r;
    return ip ? rc : r ? CT_OK : ct_last_error_code();
}

/* The ternary ops: t op (a, b), out of place into *out or in place on t. */
static ct_result ternary(const char *op, const char *form, ct_tensor *t, ct_tensor *a, ct_tensor *b, ct_tensor **out,
                         const params *p)
{
    bool ip = out == NULL, number = form[0] == 's';
    ct_tensor *r = NULL;
    ct_result rc = CT_OK;
    if (!strcmp(op, "addcmul")) {
        if (ip) rc = ct_addcmul_(t, a, b, param_s(p, "value"));
        else r = ct_addcmul(t, a, b, param_s(p, "value"));
    } else if (!strcmp(op, "addcdiv")) {
        if (ip) rc = ct_addcdiv_(t, a, b, param_s(p, "value"));
        else r = ct_addcdiv(t, a, b, param_s(p, "value"));
    } else if (!strcmp(op, "lerp") && number) {
        if (ip) rc = ct_lerp_scalar_(t, a, param_s(p, "weight"));
        else r = ct_lerp_scalar(t, a, param_s(p, "weight"));
    } else if (!strcmp(op, "lerp")) {
        if (ip) rc = ct_lerp_(t, a, b);
        else r = ct_lerp(t, a, b);
    } else if (!strcmp(op, "clamp") && number) {
        if (ip) rc = ct_clamp_scalar_(t, param_s(p, "min"), param_s(p, "max"));
        else r = ct_clamp_scalar(t, param_s(p, "min"), param_s(p, "max"));
    } else if (!strcmp(op, "clamp")) {
        if (ip) rc = ct_clamp_(t, a, b);
        else r = ct_clamp(t, a, b);
    } else if (!strcmp(op, "where")) {
        r = ct_where(ct_gt_scalar(t, ct_int(0)), a, b);
    } else {
        return CT_ERR_VALUE;
    }
    if (!ip) *out = r;
    return ip ? rc : r ? CT_OK : ct_last_error_code();
}

/* div with a rounding mode */
static ct_result div_mode(const char *mode, const char *form, ct_tensor *t, ct_tensor *b, ct_tensor **out,
                          const params *p)
{
    ct_rounding_mode m = !strcmp(mode, "trunc") ? CT_ROUNDING_TRUNC : CT_ROUNDING_FLOOR;
    if (!strcmp(form, "i")) return ct_div_mode_(t, b, m);
    *out = form[0] == 's' ? ct_div_mode_scalar(t, param_s(p, "other"), m) : ct_div_mode(t, b, m);
    return *out ? CT_OK : ct_last_error_code();
}

static ct_result binary(int k, const char *form, ct_tensor *t, ct_tensor *b, ct_tensor **out, const params *p)
{
    if (!strcmp(form, "i")) return binary_ops[k].ip(t, b);
    if (!strcmp(form, "si")) return binary_ops[k].ip_s(t, param_s(p, "other"));
    if (!strcmp(form, "s")) *out = binary_ops[k].fn_s(t, param_s(p, "other"));
    else if (!strcmp(form, "r")) *out = ct_rpow_scalar(t, param_s(p, "other"));
    else *out = binary_ops[k].fn(t, b);
    return *out ? CT_OK : ct_last_error_code();
}

/* Run op in form on x (the operands); the result, or NULL with the error
 * set. In-place forms work on x[0] * 1. */
static ct_tensor *run_op(const char *op, const char *form, ct_tensor *const *x, const params *p)
{
    bool ip = form[strlen(form) - 1] == 'i';
    ct_tensor *t = ip ? ct_mul_scalar(x[0], ct_int(1)) : x[0], *out = NULL, **dst = ip ? NULL : &out;
    ct_result rc = CT_ERR_VALUE;
    if (!t) return NULL;
    for (int k = 0; k < COUNT(unary_ops); k++)
        if (!strcmp(op, unary_ops[k].name) && !param(p, "decimals")) {
            if (ip) rc = unary_ops[k].ip(t);
            else rc = (out = unary_ops[k].fn(t)) ? CT_OK : ct_last_error_code();
        }
    if (param(p, "mode")) rc = div_mode(param(p, "mode"), form, t, x[1], dst, p);
    else
        for (int k = 0; k < COUNT(binary_ops); k++)
            if (!strcmp(op, binary_ops[k].name)) rc = binary(k, form, t, x[1], dst, p);
    if (rc == CT_ERR_VALUE) rc = unary_params(op, t, dst, p);
    if (rc == CT_ERR_VALUE) rc = ternary(op, form, t, x[1], x[2], dst, p);
    if (rc != CT_OK) return NULL;
    return ip ? t : out;
}

/* ---------------------------------------------------------------- tolerances */

/* Units in the last place allowed between ctorch's gradients and PyTorch's.
 * 0 (bit for bit) unless PyTorch evaluates a transcendental function of the
 * formula (or of the forward result it reuses) with its vectorised SLEEF or
 * polynomial code, where ctorch calls the C library: those differ by an ulp
 * or two, and tanh's 1 - y * y, silu's and mish's 1 - s terms and gelu's
 * 1 + erf(x / sqrt 2) cancel, scaling that difference up relative to the
 * small gradients near the tails (the inputs stay within +-2.5 to bound it). */
static int grad_ulps(const char *op)
{
    static const struct {
        const char *op;
        int ulps;
    } bounds[] = {
        {"sin", 2}, {"cos", 2}, {"tan", 2}, {"sinh", 2}, {"cosh", 2}, {"exp", 2}, {"expm1", 2}, {"erf", 2},
        {"erfc", 2}, {"erfinv", 2}, {"pow", 2}, {"silu", 8}, {"mish", 8}, {"tanh", 16}, {"gelu", 32},
    };
    for (int i = 0; i < COUNT(bounds); i++)
        if (!strcmp(op, bounds[i].op)) return bounds[i].ulps;
    return 0;
}

/* ---------------------------------------------------------------- one case */

typedef struct gcase {
    char op[32], form[8], id[16], name[64], inputs[32], params[160], expect[512];
} gcase;

static bool parse_case(char *line, gcase *c)
{
    char *f[7];
    int n = 0;
    line[strcspn(line, "\n")] = 0;
    for (char *s = line; n < 7; n++) {
        f[n] = s;
        char *bar = n < 6 ? strchr(s, '|') : NULL;
        if (n < 6 && !bar) return false;
        if (bar) *bar = 0, s = bar + 1;
    }
    snprintf(c->op, sizeof c->op, "%s", f[0]);
    snprintf(c->form, sizeof c->form, "%s", f[1]);
    snprintf(c->id, sizeof c->id, "%s", f[2]);
    snprintf(c->name, sizeof c->name, "%s", f[3]);
    snprintf(c->inputs, sizeof c->inputs, "%s", f[4]);
    snprintf(c->params, sizeof c->params, "%s", f[5]);
    snprintf(c->expect, sizeof c->expect, "%s", f[6]);
    return true;
}

static const ct_tensor *gold(const gcase *c, const char *what)
{
    char key[64];
    snprintf(key, sizeof key, "c%s_%s", c->id, what);
    return golden(GP, key);
}

/* The case's leaves (the stored tensors, requiring grad as specified) and
 * operands (leaves, transposed where marked T). Returns how many. */
static int load_inputs(const gcase *c, ct_tensor **leaves, ct_tensor **ops, bool *needs)
{
    int n = 0;
    for (const char *s = c->inputs; *s && n < 3; n++) {
        char what[8];
        snprintf(what, sizeof what, "x%d", n);
        leaves[n] = (ct_tensor *)gold(c, what);
        needs[n] = s[0] == 'g';
        if (leaves[n] && needs[n]) ct_requires_grad_(leaves[n], true);
        ops[n] = leaves[n] && s[1] == 'T' ? ct_transpose(leaves[n], 0, 1) : leaves[n];
        s += strcspn(s, ",");
        if (*s) s++;
    }
    for (int i = n; i < 3; i++) leaves[i] = ops[i] = NULL;
    return n;
}

static ct_result code_of(const char *type)
{
    return !strncmp(type, "NotImplementedError", 19) ? CT_ERR_NOT_IMPLEMENTED : CT_ERR_RUNTIME;
}

/* Backward from out with the golden grad_output; compares or expects the error. */
static void check_grads(const gcase *c, ct_tensor *out, ct_tensor **leaves, const bool *needs, int n)
{
    const ct_tensor *need[3], *go = gold(c, "go");
    ct_tensor *grads[3] = {NULL, NULL, NULL};
    int k = 0, idx[3];
    for (int i = 0; i < n; i++)
        if (needs[i]) idx[k] = i, need[k++] = leaves[i];
    ct_grad_opts o = {false, false, true};
    ct_result rc = ct_autograd_grad((const ct_tensor *const *)&out, 1, need, k, &go, grads, o);
    if (!strncmp(c->expect, "ERR ", 4)) {
        const char *type = c->expect + 4, *msg = strchr(type, ' ');
        CHECK_FAILS(rc, code_of(type), msg ? msg + 1 : "");
        return;
    }
    if (rc != CT_OK) {
        ct_test_fail(__FILE__, __LINE__, "case %s (%s %s): backward failed: %s", c->id, c->op, c->form,
                     ct_last_error());
        return;
    }
    for (int j = 0; j < k; j++) {
        char what[8];
        snprintf(what, sizeof what, "g%d", idx[j]);
        const ct_tensor *want = gold(c, what);
        const ct_tensor *got = grads[j] ? grads[j] : ct_zeros_like(want, CT_DEFAULT);
        int before = ct_test_failed_checks;
        CHECK_TENSOR(got, want, grad_ulps(c->op));
        if (ct_test_failed_checks != before)
            printf("    in case %s: %s %s [%s] input %d\n", c->id, c->op, c->form, c->params, idx[j]);
    }
}

/* ---------------------------------------------------------------- gradcheck */

typedef struct gc_user {
    const gcase *c;
    params p;
} gc_user;

static int gc_fn(ct_tensor *const *inputs, int n, ct_tensor **out, void *user)
{
    const gc_user *u = (const gc_user *)user;
    ct_tensor *x[3] = {NULL, NULL, NULL};
    for (int i = 0; i < n; i++) x[i] = inputs[i];
    out[0] = run_op(u->c->op, u->c->form, x, &u->p);
    return out[0] ? 1 : -1;
}

static void run_case(const gcase *c)
{
    ct_tensor *leaves[3], *ops[3];
    bool needs[3];
    params p = {c->params};
    int n = load_inputs(c, leaves, ops, needs);
    ct_tensor *out = run_op(c->op, c->form, ops, &p);
    if (!out) {
        ct_test_fail(__FILE__, __LINE__, "case %s (%s %s): %s", c->id, c->op, c->form, ct_last_error());
        return;
    }
    if (!strcmp(c->form, "fwd")) {
        CHECK_TENSOR(out, gold(c, "out"), 0);
        return;
    }
    const char *name = ct_node_name(ct_grad_fn(out));
    if (!name || strcmp(name, c->name))
        ct_test_fail(__FILE__, __LINE__, "case %s (%s %s): node %s, expected %s", c->id, c->op, c->form,
                     name ? name : "(none)", c->name);
    check_grads(c, out, leaves, needs, n);
    if (!strcmp(c->expect, "gc")) {
        gc_user u = {c, p};
        ct_gradcheck_opts o = ct_gradcheck_opts_init();
        int before = ct_test_failed_checks;
        CHECK_OK(ct_gradcheck(gc_fn, leaves, n, &u, o));
        CHECK_OK(ct_gradgradcheck(gc_fn, leaves, n, &u, o));
        if (ct_test_failed_checks != before) printf("    in case %s: %s %s [%s]\n", c->id, c->op, c->form, c->params);
    }
}

/* Whether op's golden gradients hold glibc's last bits, which Windows
 * builds do not get from mingw-w64's libm: hypot's, mish's and polygamma's. */
static bool holds_glibc_bits(const char *op)
{
    static const char *const ops[] = {"hypot", "mish", "polygamma", NULL};
    return ct_test_libm_bits_differ(op, ops);
}

static void test_golden_gradients(void)
{
    char line[1024];
    int cases = 0, glibc_bits_cases = 0;
    const char *only = getenv("CT_CASE"); /* one case id, when debugging */
    FILE *f = fopen("tests/golden/" GP ".txt", "r");
    CHECK(f != NULL);
    while (f && fgets(line, sizeof line, f)) {
        gcase c;
        if (!parse_case(line, &c)) {
            ct_test_fail(__FILE__, __LINE__, "bad line: %s", line);
            continue;
        }
        if (only && strcmp(only, c.id)) continue;
        if (holds_glibc_bits(c.op)) {
            glibc_bits_cases++;
            continue;
        }
        ct_scope s = ct_scope_begin();
        run_case(&c);
        ct_clear_error();
        ct_scope_end(s);
        cases++;
    }
    if (f) fclose(f);
    CHECK(only || cases > 800);
    ct_test_skip_cases("test_golden_gradients", glibc_bits_cases, "cases of hypot, mish and polygamma",
                       "their golden gradients hold glibc's last bits");
}

/* ---------------------------------------------------------------- results that never require grad */

static void test_no_grad_results(void)
{
    ct_tensor *x = ct_from_array((double[]){0.5, -1, 2, 0}, CT_SHAPE(4), CT_F64);
    ct_tensor *y = ct_from_array((double[]){1, -1, 0.25, 3}, CT_SHAPE(4), CT_F64);
    ct_requires_grad_(x, true);
    ct_requires_grad_(y, true);
    ct_isclose_opts io = ct_isclose_opts_init();
    ct_tensor *results[] = {
        ct_eq(x, y), ct_ne(x, y), ct_lt(x, y), ct_le(x, y), ct_gt(x, y), ct_ge(x, y), ct_eq_scalar(x, ct_int(0)),
        ct_gt_scalar(x, ct_float(0.5)), ct_isnan(x), ct_isinf(x), ct_isfinite(x), ct_logical_not(x),
        ct_logical_and(x, y), ct_logical_or(x, y), ct_logical_xor(x, y), ct_isclose(x, y, io),
    };
    for (int i = 0; i < COUNT(results); i++) {
        CHECK_T(results[i]);
        if (results[i]) CHECK(!ct_requires_grad(results[i]) && ct_grad_fn(results[i]) == NULL);
    }
    /* an in-place logical op records nothing: the tensor keeps its node */
    ct_tensor *t = ct_mul_scalar(x, ct_int(1));
    CHECK_OK(ct_logical_not_(t));
    CHECK_STR(ct_node_name(ct_grad_fn(t)), "MulBackward0");
}

/* polygamma's errors, before anything is written */
static void test_polygamma_errors(void)
{
    ct_tensor *x = ct_from_array((float[]){1, 2}, CT_SHAPE(2), CT_F32);
    ct_tensor *i = ct_from_array((int64_t[]){1, 2}, CT_SHAPE(2), CT_I64);
    CHECK_ERR(ct_polygamma(-2, x), CT_ERR_RUNTIME, "polygamma(n, x) does not support negative n.");
    CHECK_ERR(ct_polygamma(1, NULL), CT_ERR_TYPE, "polygamma(): argument 'input' (position 2) must be Tensor");
    CHECK_FAILS(ct_polygamma_(i, 1), CT_ERR_RUNTIME, "result type Float can't be cast to the desired output type Long");
    CHECK_VALUES(i, CT_SHAPE(2), 1, 2);
    CHECK_FAILS(ct_polygamma_(x, -1), CT_ERR_RUNTIME, "polygamma(n, x) does not support negative n.");
    CHECK_VALUES(x, CT_SHAPE(2), 1, 2);
}

/* ---------------------------------------------------------------- second derivatives at kinks */

static ct_tensor *elu_default(const ct_tensor *x) { return ct_elu(x, ct_elu_opts_init()); }
static ct_tensor *elu_in_place(const ct_tensor *x)
{
    ct_tensor *c = ct_clone(x);
    return ct_elu_(c, ct_elu_opts_init()) == CT_OK ? c : NULL;
}
static ct_tensor *celu_half(const ct_tensor *x) { return ct_celu(x, 0.5); }
static ct_tensor *softplus_default(const ct_tensor *x) { return ct_softplus(x, ct_softplus_opts_init()); }
static ct_tensor *softplus_b2_t3(const ct_tensor *x) { return ct_softplus(x, (ct_softplus_opts){.beta = 2, .threshold = 3}); }

/* d/dx of sum(d/dx sum(f(x))), float64, the first derivative taken with create_graph */
static ct_tensor *second_derivative(unary_fn f, const double *xs, int64_t n)
{
    ct_tensor *x = ct_from_array(xs, CT_SHAPE(n), CT_F64), *g = NULL, *gg = NULL;
    ct_requires_grad_(x, true);
    ct_tensor *y = ct_sum(f(x));
    CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&y, 1, (const ct_tensor *const *)&x, 1, NULL, &g,
                              (ct_grad_opts){.create_graph = true}));
    ct_tensor *gs = ct_sum(g);
    CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&gs, 1, (const ct_tensor *const *)&x, 1, NULL, &gg,
                              (ct_grad_opts){0}));
    return gg;
}

/* PyTorch's double backward formulas compare strictly (elu's x < 0,
 * hardswish's -3 < x < 3, softplus's beta * x < threshold), so the second
 * derivative is 0 at the kink, where the first takes the smooth side's value. */
static void test_second_derivative_at_kinks(void)
{
    CHECK_VALUES(second_derivative(elu_default, (double[]){0, -1}, 2), CT_SHAPE(2), 0, 0.36787944117144233);
    CHECK_VALUES(second_derivative(elu_in_place, (double[]){0, -1}, 2), CT_SHAPE(2), 0, 0.36787944117144233);
    CHECK_VALUES(second_derivative(celu_half, (double[]){0, -1}, 2), CT_SHAPE(2), 0, 0.2706705664732254);
    CHECK_VALUES(second_derivative(ct_selu, (double[]){0, -1}, 2), CT_SHAPE(2), 0, 0.646768603034814);
    CHECK_VALUES(second_derivative(ct_hardswish, (double[]){-3, 3, 1}, 3), CT_SHAPE(3), 0, 0, 0.3333333333333333);
    CHECK_VALUES(second_derivative(softplus_default, (double[]){20, 20.01}, 2), CT_SHAPE(2), 0, 0);
    CHECK_VALUES(second_derivative(softplus_b2_t3, (double[]){1.5, 1.6}, 2), CT_SHAPE(2), 0, 0);
    /* below the threshold: PyTorch's sigmoid_backward(grad, sigmoid(beta * x)) * beta, reached in another order */
    CHECK_NEAR(ct_item(second_derivative(softplus_default, (double[]){19.99}, 1)), 2.0818684510716347e-09, 1e-16);
    CHECK_NEAR(ct_item(second_derivative(softplus_b2_t3, (double[]){1.4}, 1)), 0.10807622951276859, 1e-15);
}

/* hardsigmoid_backward has no derivative in PyTorch 1.13: its result
 * requires grad through a node that fails when reached */
static void test_hardsigmoid_double_backward(void)
{
    ct_tensor *x = ct_from_array((float[]){0, 3, -4}, CT_SHAPE(3), CT_F32), *g = NULL, *unused = NULL;
    ct_requires_grad_(x, true);
    ct_tensor *y = ct_sum(ct_hardsigmoid(x));
    CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&y, 1, (const ct_tensor *const *)&x, 1, NULL, &g,
                              (ct_grad_opts){.create_graph = true}));
    CHECK_VALUES(g, CT_SHAPE(3), (double)(1.0f / 6.0f), 0, 0);
    CHECK(ct_requires_grad(g));
    CHECK_STR(ct_node_name(ct_grad_fn(g)), "torch::autograd::NotImplemented");
    ct_tensor *gs = ct_sum(g);
    CHECK_FAILS(ct_autograd_grad((const ct_tensor *const *)&gs, 1, (const ct_tensor *const *)&x, 1, NULL, &unused,
                                 (ct_grad_opts){0}),
                CT_ERR_RUNTIME, "derivative for aten::hardsigmoid_backward is not implemented");
}

/* ---------------------------------------------------------------- double-backward node names */

static ct_tensor *name_target(void)
{
    return ct_from_array((double[]){0.3, 0.7, 0.2, 0.5, 0.9, 0.4}, CT_SHAPE(2, 3), CT_F64);
}
static ct_tensor *name_classes(void) { return ct_from_array((int64_t[]){0, 2}, CT_SHAPE(2), CT_I64); }
static ct_tensor *celu_one(const ct_tensor *x) { return ct_celu(x, 1.0); }
static ct_tensor *leaky_default(const ct_tensor *x) { return ct_leaky_relu(x, 0.01); }
static ct_tensor *leaky_in_place(const ct_tensor *x)
{
    ct_tensor *c = ct_clone(x);
    return ct_leaky_relu_(c, 0.01) == CT_OK ? c : NULL;
}
static ct_tensor *gelu_none(const ct_tensor *x) { return ct_gelu(x, CT_GELU_NONE); }
static ct_tensor *gelu_tanh(const ct_tensor *x) { return ct_gelu(x, CT_GELU_TANH); }
static ct_tensor *hardtanh_default(const ct_tensor *x) { return ct_hardtanh(x, -1, 1); }
static ct_tensor *log_softmax_1(const ct_tensor *x) { return ct_log_softmax(x, 1, CT_DEFAULT); }
static ct_tensor *softmax_1(const ct_tensor *x) { return ct_softmax(x, 1, CT_DEFAULT); }
static ct_tensor *mse(const ct_tensor *x) { return ct_mse_loss(x, name_target(), CT_REDUCTION_MEAN); }
static ct_tensor *bce(const ct_tensor *x) { return ct_binary_cross_entropy(x, name_target(), NULL, CT_REDUCTION_MEAN); }
static ct_tensor *bce_logits(const ct_tensor *x)
{
    return ct_binary_cross_entropy_with_logits(x, name_target(), NULL, NULL, CT_REDUCTION_MEAN);
}
static ct_tensor *smooth_l1(const ct_tensor *x) { return ct_smooth_l1_loss(x, name_target(), CT_REDUCTION_MEAN, 1.0); }
static ct_tensor *huber(const ct_tensor *x) { return ct_huber_loss(x, name_target(), CT_REDUCTION_SUM, 1.0); }
static ct_tensor *l1(const ct_tensor *x) { return ct_l1_loss(x, name_target(), CT_REDUCTION_MEAN); }
static ct_tensor *kl_div(const ct_tensor *x) { return ct_kl_div(x, name_target(), CT_REDUCTION_MEAN, false); }
static ct_tensor *nll(const ct_tensor *x) { return ct_nll_loss(x, name_classes(), ct_nll_loss_opts_init()); }
static ct_tensor *cross_entropy(const ct_tensor *x) { return ct_cross_entropy(x, name_classes(), ct_nll_loss_opts_init()); }

/* grad_fn.name() of torch.autograd.grad(f(x).sum(), x, create_graph=True)[0]
 * in PyTorch 1.13 for x of shape (2, 3) in (0, 1): the first derivatives
 * PyTorch computes as ops of their own have nodes of their own; NULL: the
 * derivative does not require grad. */
static void test_double_backward_node_names(void)
{
    static const struct {
        const char *what;
        unary_fn f;
        const char *name;
    } cases[] = {
        {"elu", elu_default, "EluBackwardBackward0"},
        {"elu_", elu_in_place, "EluBackwardBackward0"},
        {"celu", celu_one, "EluBackwardBackward0"},
        {"selu", ct_selu, "EluBackwardBackward0"},
        {"softplus", softplus_default, "SoftplusBackwardBackward0"},
        {"hardswish", ct_hardswish, "HardswishBackwardBackward0"},
        {"hardsigmoid", ct_hardsigmoid, "torch::autograd::NotImplemented"},
        {"leaky_relu", leaky_default, "LeakyReluBackwardBackward0"},
        {"leaky_relu_", leaky_in_place, "LeakyReluBackwardBackward0"},
        {"gelu", gelu_none, "GeluBackwardBackward0"},
        {"gelu tanh", gelu_tanh, "GeluBackwardBackward0"},
        {"silu", ct_silu, "MulBackward0"},
        {"mish", ct_mish, "MulBackward0"},
        {"sigmoid", ct_sigmoid, "SigmoidBackwardBackward0"},
        {"tanh", ct_tanh, "TanhBackwardBackward0"},
        {"relu", ct_relu, "ThresholdBackwardBackward0"},
        {"relu6", ct_relu6, "HardtanhBackwardBackward0"},
        {"hardtanh", hardtanh_default, "HardtanhBackwardBackward0"},
        {"log_softmax", log_softmax_1, "LogSoftmaxBackwardDataBackward0"},
        {"softmax", softmax_1, "SoftmaxBackwardDataBackward0"},
        {"mse_loss", mse, "MseLossBackwardBackward0"},
        {"binary_cross_entropy", bce, "BinaryCrossEntropyBackwardBackward0"},
        {"binary_cross_entropy_with_logits", bce_logits, "DivBackward1"},
        {"smooth_l1_loss", smooth_l1, "SmoothL1LossBackwardBackward0"},
        {"huber_loss", huber, "HuberLossBackwardBackward0"},
        {"l1_loss", l1, "MulBackward0"},
        {"kl_div", kl_div, NULL},
        {"nll_loss", nll, "NllLossBackwardBackward0"},
        {"cross_entropy", cross_entropy, "LogSoftmaxBackwardDataBackward0"},
        {"exp", ct_exp, "MulBackward0"},
        {"log", ct_log, "DivBackward0"},
        {"logit", ct_logit, "WhereBackward0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ct_tensor *x = ct_from_array((double[]){0.2, 0.5, 0.8, 0.35, 0.6, 0.15}, CT_SHAPE(2, 3), CT_F64), *g = NULL;
        ct_requires_grad_(x, true);
        ct_tensor *y = ct_sum(cases[i].f(x));
        CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&y, 1, (const ct_tensor *const *)&x, 1, NULL, &g,
                                  (ct_grad_opts){.create_graph = true}));
        const char *name = g && ct_grad_fn(g) ? ct_node_name(ct_grad_fn(g)) : NULL;
        if (name != cases[i].name && (!name || !cases[i].name || strcmp(name, cases[i].name)))
            ct_test_fail(__FILE__, __LINE__, "%s: %s, expected %s", cases[i].what, name ? name : "no grad_fn",
                         cases[i].name ? cases[i].name : "no grad_fn");
    }
    /* nll_loss past 2-D input dims */
    ct_tensor *x = ct_from_array((double[]){0.2, 0.5, 0.8, 0.35, 0.6, 0.15}, CT_SHAPE(1, 3, 2, 1), CT_F64), *g = NULL;
    ct_requires_grad_(x, true);
    ct_tensor *y = ct_nll_loss(x, ct_zeros(CT_SHAPE(1, 2, 1), CT_I64), ct_nll_loss_opts_init());
    CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&y, 1, (const ct_tensor *const *)&x, 1, NULL, &g,
                              (ct_grad_opts){.create_graph = true}));
    CHECK_STR(ct_node_name(ct_grad_fn(g)), "NllLoss2DBackwardBackward0");
}

/* The public backward ops record the nodes the first derivatives make
 * under create_graph, and differentiate as PyTorch's do: tanh_backward(g,
 * y) by g (1 - y^2) and by y (-2 g y); sigmoid_backward by g (1 - y) y and
 * by y (g (1 - 2 y)); threshold_backward(g, y, 0.5) by g (1 above 0.5) and
 * by y (zeros). */
static void test_backward_ops_differentiate(void)
{
    ct_tensor *g = ct_from_array((double[]){0.5, -1}, CT_SHAPE(2), CT_F64);
    ct_tensor *y = ct_from_array((double[]){0.25, 0.75}, CT_SHAPE(2), CT_F64);
    const ct_tensor *in[2] = {g, y};
    ct_tensor *grads[2];
    ct_requires_grad_(g, true);
    ct_requires_grad_(y, true);
    ct_tensor *t = ct_tanh_backward(g, y), *s = ct_sigmoid_backward(g, y);
    ct_tensor *r = ct_threshold_backward(g, y, ct_float(0.5));
    CHECK_STR(ct_node_name(ct_grad_fn(t)), "TanhBackwardBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(s)), "SigmoidBackwardBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(r)), "ThresholdBackwardBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(ct_gelu_backward(g, y, CT_GELU_TANH))), "GeluBackwardBackward0");
    ct_tensor *outs[3] = {ct_sum(t), ct_sum(s), ct_sum(r)};
    CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&outs[0], 1, in, 2, NULL, grads, (ct_grad_opts){0}));
    CHECK_VALUES(grads[0], CT_SHAPE(2), 0.9375, 0.4375);
    CHECK_VALUES(grads[1], CT_SHAPE(2), -0.25, 1.5);
    CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&outs[1], 1, in, 2, NULL, grads, (ct_grad_opts){0}));
    CHECK_VALUES(grads[0], CT_SHAPE(2), 0.1875, 0.1875);
    CHECK_VALUES(grads[1], CT_SHAPE(2), 0.25, 0.5);
    CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&outs[2], 1, in, 2, NULL, grads, (ct_grad_opts){0}));
    CHECK_VALUES(grads[0], CT_SHAPE(2), 0, 1);
    CHECK_VALUES(grads[1], CT_SHAPE(2), 0, 0);
}

/* Where the first derivative is piecewise constant in x, its node still
 * takes x (as PyTorch's threshold_backward, leaky_relu_backward and
 * hardtanh_backward do), and the second derivative is zeros. */
static void test_second_derivative_of_piecewise_linear(void)
{
    CHECK_VALUES(second_derivative(ct_relu, (double[]){-1, 2}, 2), CT_SHAPE(2), 0, 0);
    CHECK_VALUES(second_derivative(leaky_default, (double[]){-1, 2}, 2), CT_SHAPE(2), 0, 0);
    CHECK_VALUES(second_derivative(hardtanh_default, (double[]){-2, 0.5}, 2), CT_SHAPE(2), 0, 0);
}

/* ---------------------------------------------------------------- fused first derivatives */

/* t where same holds, 0 elsewhere */
static ct_tensor *where_same(const ct_tensor *same, const ct_tensor *t)
{
    return ct_where_scalar_other(same, t, ct_int(0));
}

/* x's gradient of op(x) for grad_output dy must be want, bit for bit, where
 * op(x) is want_y (NaN for NaN): ctorch's tanh and sigmoid are not yet
 * PyTorch's to the bit (a few ulps, above), so the elements where the
 * forward differs (10 of 104 at most here) are left out. */
static void check_fused(ct_tensor *(*op)(const ct_tensor *), const ct_tensor *x0, const ct_tensor *dy,
                        const ct_tensor *want_y, const ct_tensor *want)
{
    ct_tensor *x = ct_clone(x0);
    CHECK(ct_requires_grad_(x, true) == CT_OK);
    ct_tensor *y = op(x);
    CHECK(ct_backward(y, dy, (ct_backward_opts){false, false, NULL, 0}) == CT_OK);
    ct_tensor *yd = ct_detach(y);
    ct_tensor *same = ct_logical_or(ct_eq(yd, want_y), ct_logical_and(ct_isnan(yd), ct_isnan(want_y)));
    CHECK(ct_item_int(ct_sum(same)) >= ct_numel(x) - 16);
    CHECK_TENSOR(where_same(same, ct_grad(x)), where_same(same, want), 0);
}

/* relu's, tanh's and sigmoid's gradients give PyTorch's bits (its
 * threshold_backward, tanh_backward and sigmoid_backward kernels: a NaN
 * result passes relu's grad_output, tanh's 1 - y * y is one FMA) on NaN,
 * infinities, -0, 0 and subnormals, with grad_output contiguous and
 * strided; float32, float64 and bfloat16 (computed in float, rounded
 * once: not as the differentiable ops would round each step)
 * (gen_grad_pointwise.py, "fused_"), on every device: each runs the op
 * table's backward kernels. */
static void test_fused_first_derivatives(void)
{
    static const char *const dtypes[] = {"float32", "float64", "bfloat16"};
    static const char *const names[] = {"relu", "tanh", "sigmoid"};
    ct_tensor *(*const ops[])(const ct_tensor *) = {ct_relu, ct_tanh, ct_sigmoid};
    char name[64], out[32], grad[32];
#define FUSED(what) (snprintf(name, sizeof name, "fused_%s_%s", dtypes[d], what), golden(GP, name))
    for (int d = 0; d < 3; d++) {
        const ct_tensor *dys[2] = {FUSED("dy"), ct_transpose(FUSED("dyT"), 0, 1)};
        for (int k = 0; k < 3; k++) {
            snprintf(out, sizeof out, "%s_out", names[k]);
            snprintf(grad, sizeof grad, "%s_grad", names[k]);
            for (int strided = 0; strided < 2; strided++)
                check_fused(ops[k], FUSED("x"), dys[strided], FUSED(out), FUSED(grad));
        }
    }
#undef FUSED
}

int main(void)
{
    RUN(test_second_derivative_at_kinks);
    RUN(test_hardsigmoid_double_backward);
    RUN(test_double_backward_node_names);
    RUN(test_backward_ops_differentiate);
    RUN(test_second_derivative_of_piecewise_linear);
    RUN(test_golden_gradients);
    RUN(test_polygamma_errors);
    RUN(test_no_grad_results);
    RUN(test_fused_first_derivatives);
    return ct_test_report();
}
