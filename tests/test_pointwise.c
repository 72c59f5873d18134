/* Pointwise ops against PyTorch: every case of tests/golden/pointwise.txt
 * (written by gen_pointwise.py, whose header describes the format), the
 * in-place forms on the same cases, the seed examples, and layout and error
 * rules. tests/test_optable.c checks that every op of the table has cases. */
#include "harness.h"

#include <float.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------------------------------------------------------- golden tensors, indexed once */

typedef struct record {
    const char *name;
    ct_dtype dtype;
    int ndim;
    int64_t sizes[CT_MAX_DIMS];
    const void *data;
} record;

static unsigned char *golden_bytes;
static record *records;
static size_t nrecords;

static int record_cmp(const void *a, const void *b)
{
    return strcmp(((const record *)a)->name, ((const record *)b)->name);
}

/* Reads the whole .ctg file and sorts its records by name (harness.h's
 * golden() scans the file per lookup, too slow for thousands of cases). */
static int load_golden(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    golden_bytes = (unsigned char *)malloc((size_t)size + 1);
    size_t got = fread(golden_bytes, 1, (size_t)size, f);
    fclose(f);
    size_t cap = 1024, pos = 0;
    records = (record *)malloc(cap * sizeof(record));
    while (pos + 4 <= got) {
        uint32_t len;
        memcpy(&len, golden_bytes + pos, 4);
        record r;
        memset(&r, 0, sizeof r);
        char *name = (char *)golden_bytes + pos + 4;
        pos += 4 + len;
        r.dtype = (ct_dtype)golden_bytes[pos];
        r.ndim = golden_bytes[pos + 1];
        name[len] = 0; /* overwrites the dtype byte, read just above */
        pos += 2;
        int64_t numel = 1;
        for (int d = 0; d < r.ndim; d++, pos += 8) {
            memcpy(&r.sizes[d], golden_bytes + pos, 8);
            numel *= r.sizes[d];
        }
        r.name = name;
        r.data = golden_bytes + pos;
        pos += (size_t)numel * ct_dtype_size(r.dtype);
        if (nrecords == cap) records = (record *)realloc(records, (cap *= 2) * sizeof(record));
        records[nrecords++] = r;
    }
    qsort(records, nrecords, sizeof(record), record_cmp);
    return 1;
}

static void free_golden(void)
{
    free(records);
    free(golden_bytes);
    records = NULL;
    golden_bytes = NULL;
    nrecords = 0;
}

/* A golden tensor by name (owned by the open scope), or NULL. */
static ct_tensor *gold(const char *name)
{
    record key;
    key.name = name;
    const record *r = (const record *)bsearch(&key, records, nrecords, sizeof(record), record_cmp);
    if (!r) {
        ct_test_fail(__FILE__, __LINE__, "no golden tensor '%s'", name);
        return NULL;
    }
    return ct_from_array(r->data, ct_shape_make(r->ndim, r->sizes), r->dtype);
}

/* ---------------------------------------------------------------- a case's operands and options */

typedef struct call_args {
    const ct_tensor *t[3]; /* tensor operands by position (NULL where a number) */
    ct_scalar s[3];        /* number operands by position */
    const char *kind;      /* one letter per operand, 't' or 's' (transposes already applied) */
    const char *opts;      /* name=value,... */
} call_args;

static ct_scalar number(const char *code)
{
    if (code[0] == 'f') return ct_float(strtod(code + 2, NULL));
    if (code[0] == 'b') return ct_bool(code[2] == '1');
    return ct_int(strtoll(code + 2, NULL, 10));
}

/* The text of option `key` (up to the next comma), or NULL. */
static const char *opt(const call_args *c, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = c->opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, key, n) && p[n] == '=') return p + n + 1;
    return NULL;
}

static double opt_f(const call_args *c, const char *key, double dflt)
{
    const char *v = opt(c, key);
    return v ? strtod(v, NULL) : dflt;
}

/* ---------------------------------------------------------------- callers for the ops with options */

/* Calls an op's form for case c: out of place into *out when self is NULL,
 * else the in-place form on self. NO_INPLACE: the op has no in-place form. */
#define NO_INPLACE ((ct_result)1)
typedef ct_result (*call_fn)(const call_args *c, ct_tensor *self, ct_tensor **out);

static ct_result done(ct_tensor *r, ct_tensor **out)
{
    *out = r;
    return r ? CT_OK : ct_last_error_code();
}

static ct_rounding_mode div_mode(const call_args *c)
{
    const char *m = opt(c, "mode");
    return !m ? CT_ROUNDING_NONE : !strncmp(m, "trunc", 5) ? CT_ROUNDING_TRUNC : CT_ROUNDING_FLOOR;
}

static ct_result call_div(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    ct_rounding_mode m = div_mode(c);
    if (c->kind[1] == 's')
        return self ? ct_div_mode_scalar_(self, c->s[1], m) : done(ct_div_mode_scalar(c->t[0], c->s[1], m), out);
    return self ? ct_div_mode_(self, c->t[1], m) : done(ct_div_mode(c->t[0], c->t[1], m), out);
}

static ct_result call_alpha(const call_args *c, ct_tensor *self, ct_tensor **out, bool add)
{
    const char *a = opt(c, "alpha");
    if (!a) return NO_INPLACE; /* the generic forms cover these */
    ct_scalar alpha = number(a);
    if (self) return add ? ct_add_alpha_(self, c->t[1], alpha) : ct_sub_alpha_(self, c->t[1], alpha);
    return done(add ? ct_add_alpha(c->t[0], c->t[1], alpha) : ct_sub_alpha(c->t[0], c->t[1], alpha), out);
}
static ct_result call_add(const call_args *c, ct_tensor *self, ct_tensor **out) { return call_alpha(c, self, out, true); }
static ct_result call_sub(const call_args *c, ct_tensor *self, ct_tensor **out) { return call_alpha(c, self, out, false); }

static ct_result call_round(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    const char *d = opt(c, "decimals");
    if (!d) return self ? ct_round_(self) : done(ct_round(c->t[0]), out);
    int64_t dec = strtoll(d, NULL, 10);
    return self ? ct_round_decimals_(self, dec) : done(ct_round_decimals(c->t[0], dec), out);
}

static ct_result call_logit(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    if (!opt(c, "eps")) return self ? ct_logit_(self) : done(ct_logit(c->t[0]), out);
    double eps = opt_f(c, "eps", 0);
    return self ? ct_logit_eps_(self, eps) : done(ct_logit_eps(c->t[0], eps), out);
}

static ct_result call_leaky_relu(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    double s = opt_f(c, "slope", 0.01);
    return self ? ct_leaky_relu_(self, s) : done(ct_leaky_relu(c->t[0], s), out);
}

static ct_result call_elu(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    ct_elu_opts o = ct_elu_opts_init();
    o.alpha = opt_f(c, "alpha", 1);
    o.scale = opt_f(c, "scale", 1);
    o.input_scale = opt_f(c, "input_scale", 1);
    return self ? ct_elu_(self, o) : done(ct_elu(c->t[0], o), out);
}

static ct_result call_celu(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    double a = opt_f(c, "alpha", 1);
    return self ? ct_celu_(self, a) : done(ct_celu(c->t[0], a), out);
}

static ct_gelu_approximate gelu_mode(const call_args *c)
{
    const char *m = opt(c, "approximate");
    return m && !strncmp(m, "tanh", 4) ? CT_GELU_TANH : CT_GELU_NONE;
}

static ct_result call_gelu(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    return self ? NO_INPLACE : done(ct_gelu(c->t[0], gelu_mode(c)), out);
}

static ct_result call_softplus(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    ct_softplus_opts o = ct_softplus_opts_init();
    o.beta = opt_f(c, "beta", 1);
    o.threshold = opt_f(c, "threshold", 20);
    return self ? NO_INPLACE : done(ct_softplus(c->t[0], o), out);
}

static ct_result call_hardtanh(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    const char *b = opt(c, "bounds");
    char *end;
    double lo = b ? strtod(b, &end) : -1, hi = b ? strtod(end + 1, NULL) : 1;
    return self ? ct_hardtanh_(self, lo, hi) : done(ct_hardtanh(c->t[0], lo, hi), out);
}

static ct_result call_nan_to_num(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    double posinf = opt_f(c, "posinf", 0), neginf = opt_f(c, "neginf", 0);
    ct_nan_to_num_opts o;
    o.nan = opt_f(c, "nan", 0);
    o.posinf = opt(c, "posinf") ? &posinf : NULL;
    o.neginf = opt(c, "neginf") ? &neginf : NULL;
    return self ? ct_nan_to_num_(self, o) : done(ct_nan_to_num(c->t[0], o), out);
}

static ct_result call_addcmul(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    ct_scalar v = number(opt(c, "value"));
    return self ? ct_addcmul_(self, c->t[1], c->t[2], v) : done(ct_addcmul(c->t[0], c->t[1], c->t[2], v), out);
}

static ct_result call_addcdiv(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    ct_scalar v = number(opt(c, "value"));
    return self ? ct_addcdiv_(self, c->t[1], c->t[2], v) : done(ct_addcdiv(c->t[0], c->t[1], c->t[2], v), out);
}

static ct_result call_lerp(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    const char *w = opt(c, "weight");
    if (w) return self ? ct_lerp_scalar_(self, c->t[1], number(w)) : done(ct_lerp_scalar(c->t[0], c->t[1], number(w)), out);
    return self ? ct_lerp_(self, c->t[1], c->t[2]) : done(ct_lerp(c->t[0], c->t[1], c->t[2]), out);
}

static ct_result call_clamp(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    if (c->kind[1] == 's')
        return self ? ct_clamp_scalar_(self, c->s[1], c->s[2]) : done(ct_clamp_scalar(c->t[0], c->s[1], c->s[2]), out);
    return self ? ct_clamp_(self, c->t[1], c->t[2]) : done(ct_clamp(c->t[0], c->t[1], c->t[2]), out);
}

static ct_result call_where(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    if (self) return NO_INPLACE;
    if (c->kind[1] == 's' && c->kind[2] == 's') return done(ct_where_scalar(c->t[0], c->s[1], c->s[2]), out);
    if (c->kind[1] == 's') return done(ct_where_scalar_self(c->t[0], c->s[1], c->t[2]), out);
    if (c->kind[2] == 's') return done(ct_where_scalar_other(c->t[0], c->t[1], c->s[2]), out);
    return done(ct_where(c->t[0], c->t[1], c->t[2]), out);
}

/* the activations' first derivatives: (grad_output, self or output), no in-place form */
static ct_result call_threshold_backward(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    return self ? NO_INPLACE : done(ct_threshold_backward(c->t[0], c->t[1], number(opt(c, "threshold"))), out);
}
static ct_result call_tanh_backward(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    return self ? NO_INPLACE : done(ct_tanh_backward(c->t[0], c->t[1]), out);
}
static ct_result call_sigmoid_backward(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    return self ? NO_INPLACE : done(ct_sigmoid_backward(c->t[0], c->t[1]), out);
}
static ct_result call_gelu_backward(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    return self ? NO_INPLACE : done(ct_gelu_backward(c->t[0], c->t[1], gelu_mode(c)), out);
}

/* rsub, rdiv and rpow: the number comes second in the generator's calls (f(t, s)) */
static ct_result call_rsub(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    if (self) return NO_INPLACE;
    return done(c->kind[1] == 's' ? ct_rsub_scalar(c->t[0], c->s[1]) : ct_rsub(c->t[0], c->t[1]), out);
}
static ct_result call_rdiv(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    return self ? NO_INPLACE : done(ct_rdiv_scalar(c->t[0], c->s[1]), out);
}
static ct_result call_rpow(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    return self ? NO_INPLACE : done(ct_rpow_scalar(c->t[0], c->s[1]), out);
}

static ct_isclose_opts isclose_opts(const call_args *c)
{
    ct_isclose_opts o = ct_isclose_opts_init();
    o.rtol = opt_f(c, "rtol", o.rtol);
    o.atol = opt_f(c, "atol", o.atol);
    o.equal_nan = opt_f(c, "equal_nan", 0) != 0;
    return o;
}
static ct_result call_isclose(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    return self ? NO_INPLACE : done(ct_isclose(c->t[0], c->t[1], isclose_opts(c)), out);
}
/* allclose and equal answer a bool: made a 0-d tensor to compare with PyTorch's */
static ct_result bool_result(bool v, ct_tensor **out)
{
    if (ct_last_error_code() != CT_OK) return ct_last_error_code();
    return done(ct_scalar_tensor(ct_bool(v), CT_BOOL), out);
}
static ct_result call_allclose(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    return self ? NO_INPLACE : bool_result(ct_allclose(c->t[0], c->t[1], isclose_opts(c)), out);
}
static ct_result call_equal(const call_args *c, ct_tensor *self, ct_tensor **out)
{
    return self ? NO_INPLACE : bool_result(ct_equal(c->t[0], c->t[1]), out);
}

/* ---------------------------------------------------------------- the op list */

typedef struct op_entry {
    const char *name;
    int ulps; /* 0: bit-exact; else the most units in the last place allowed (see below) */
    ct_tensor *(*unary)(const ct_tensor *);
    ct_result (*unary_)(ct_tensor *);
    ct_tensor *(*binary)(const ct_tensor *, const ct_tensor *);
    ct_result (*binary_)(ct_tensor *, const ct_tensor *);
    ct_tensor *(*scalar)(const ct_tensor *, ct_scalar);
    ct_result (*scalar_)(ct_tensor *, ct_scalar);
    call_fn call; /* forms with options or more operands; NO_INPLACE falls back to the fields above */
} op_entry;

#define U(name, ulps) {#name, ulps, ct_##name, NULL, NULL, NULL, NULL, NULL, NULL}
#define UI(name, ulps) {#name, ulps, ct_##name, ct_##name##_, NULL, NULL, NULL, NULL, NULL}
#define B(name, ulps) {#name, ulps, NULL, NULL, ct_##name, NULL, NULL, NULL, NULL}
#define BI(name, ulps) {#name, ulps, NULL, NULL, ct_##name, ct_##name##_, NULL, NULL, NULL}
#define BSI(name, ulps) {#name, ulps, NULL, NULL, ct_##name, ct_##name##_, ct_##name##_scalar, ct_##name##_scalar_, NULL}
#define BSI_CALL(name, ulps, fn) {#name, ulps, NULL, NULL, ct_##name, ct_##name##_, ct_##name##_scalar, ct_##name##_scalar_, fn}
#define CALL(name, ulps, fn) {#name, ulps, NULL, NULL, NULL, NULL, NULL, NULL, fn}

/* ULP bounds: on contiguous float data PyTorch's transcendental functions
 * run Sleef's vectorised code, ctorch the C library's, each within 1 ulp of
 * the true value, so results may differ by 2 (not float erf, which is
 * SLEEF's in ctorch too: exact_erf). lgamma is 3: near its zeros
 * (x = -2.5) glibc's double lgamma is 2.5 ulps off where Sleef is right. mish
 * composes three such functions (3). gelu's bound is in ulps of x/2, not of
 * the result: PyTorch computes contiguous float gelu with oneDNN, whose erf
 * approximation is within 1.5e-7, and 1 + erf(x/sqrt 2) cancels for negative
 * x, so only an absolute bound relative to x holds (see check_result). float16
 * and bfloat16 round the float32 results, so they differ by at most one of
 * their own ulps. */
static const op_entry ops[] = {
    UI(neg, 0), UI(abs, 0), UI(reciprocal, 0), UI(sign, 0), CALL(round, 0, call_round), UI(floor, 0), UI(ceil, 0),
    UI(trunc, 0), UI(frac, 0), UI(exp, 2), UI(exp2, 2), UI(expm1, 2), UI(log, 2), UI(log2, 2), UI(log10, 2),
    UI(log1p, 2), UI(sqrt, 0), UI(rsqrt, 0), UI(sin, 2), UI(cos, 2), UI(tan, 2), UI(asin, 2), UI(acos, 2),
    UI(atan, 2), UI(sinh, 2), UI(cosh, 2), UI(tanh, 2), UI(asinh, 2), UI(acosh, 2), UI(atanh, 2), UI(erf, 2),
    UI(erfc, 2), UI(erfinv, 2), UI(lgamma, 3), UI(digamma, 2), UI(sigmoid, 2), CALL(logit, 2, call_logit),
    UI(relu, 0), UI(relu6, 0), CALL(leaky_relu, 0, call_leaky_relu), CALL(elu, 2, call_elu), UI(selu, 2),
    CALL(celu, 2, call_celu), CALL(gelu, 8, call_gelu), UI(silu, 2), UI(mish, 3), CALL(softplus, 2, call_softplus),
    CALL(hardtanh, 0, call_hardtanh), UI(hardsigmoid, 0), UI(hardswish, 0),
    CALL(threshold_backward, 0, call_threshold_backward), CALL(tanh_backward, 0, call_tanh_backward),
    CALL(sigmoid_backward, 0, call_sigmoid_backward), CALL(gelu_backward, 16, call_gelu_backward), U(isnan, 0), U(isinf, 0),
    U(isfinite, 0), UI(logical_not, 0), UI(bitwise_not, 0), CALL(nan_to_num, 0, call_nan_to_num),
    BSI_CALL(add, 0, call_add), BSI_CALL(sub, 0, call_sub), BSI(mul, 0), BSI_CALL(div, 0, call_div),
    BSI(floor_divide, 0), BSI(remainder, 0), BSI(fmod, 0), BSI(pow, 2), B(maximum, 0), B(minimum, 0), B(fmax, 0),
    B(fmin, 0), BSI(copysign, 0), BI(hypot, 2), BI(atan2, 2), BSI(xlogy, 2), BSI(eq, 0), BSI(ne, 0), BSI(lt, 0),
    BSI(le, 0), BSI(gt, 0), BSI(ge, 0), BI(logical_and, 0), BI(logical_or, 0), BI(logical_xor, 0),
    BSI(bitwise_and, 0), BSI(bitwise_or, 0), BSI(bitwise_xor, 0), BSI(bitwise_left_shift, 0),
    BSI(bitwise_right_shift, 0), BSI(clamp_min, 0), BSI(clamp_max, 0), CALL(rsub, 0, call_rsub),
    CALL(rdiv, 0, call_rdiv), CALL(rpow, 2, call_rpow), CALL(addcmul, 0, call_addcmul),
    CALL(addcdiv, 0, call_addcdiv), CALL(lerp, 0, call_lerp), CALL(clamp, 0, call_clamp),
    CALL(where, 0, call_where), CALL(isclose, 0, call_isclose), CALL(allclose, 0, call_allclose),
    CALL(equal, 0, call_equal),
};

static const op_entry *find_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(ops[i].name, name)) return &ops[i];
    return NULL;
}

/* Runs op on case c: out of place (self NULL) or in place on self. */
static ct_result run(const op_entry *op, const call_args *c, ct_tensor *self, ct_tensor **out)
{
    *out = NULL;
    if (op->call) {
        ct_result r = op->call(c, self, out);
        if (r != NO_INPLACE) return r;
    }
    int nargs = (int)strlen(c->kind);
    bool number = nargs == 2 && c->kind[1] == 's';
    if (nargs == 1 && (self ? op->unary_ != NULL : op->unary != NULL))
        return self ? op->unary_(self) : done(op->unary(c->t[0]), out);
    if (nargs == 2 && number && (self ? op->scalar_ != NULL : op->scalar != NULL))
        return self ? op->scalar_(self, c->s[1]) : done(op->scalar(c->t[0], c->s[1]), out);
    if (nargs == 2 && !number && (self ? op->binary_ != NULL : op->binary != NULL))
        return self ? op->binary_(self, c->t[1]) : done(op->binary(c->t[0], c->t[1]), out);
    return NO_INPLACE;
}

/* ---------------------------------------------------------------- the golden cases */

static int split(char *line, char **fields, int n)
{
    int k = 0;
    fields[k++] = line;
    for (char *p = line; *p && k < n; p++)
        if (*p == '|') {
            *p = 0;
            fields[k++] = p + 1;
        }
    return k;
}

/* Whether r is an erf result that must have PyTorch's bits: float erf is
 * SLEEF's in both (float16 and bfloat16 round it); double erf is not. */
static bool exact_erf(const op_entry *op, const ct_tensor *r)
{
    return !strcmp(op->name, "erf") && r && ct_dtype_of(r) != CT_F64;
}

/* The ulps case c of op allows: float erf and gelu_backward's exact form
 * on the CPU are bit for bit. Elsewhere gelu_backward is within 16: its tanh
 * form's vector blocks run ctorch's vector tanh, within an ulp of SLEEF's,
 * and 1 - tanh^2 cancels; a device runs the vector blocks' formulas on every
 * element, where PyTorch's scalar loop takes the C library's functions. */
static int case_ulps(const op_entry *op, const call_args *c, const ct_tensor *r)
{
    const char *m = opt(c, "approximate");
    bool exact_gelu_backward = !strcmp(op->name, "gelu_backward") && !(m && !strncmp(m, "tanh", 4));
    return exact_erf(op, r) || (exact_gelu_backward && !ct_test_on_device()) ? 0 : op->ulps;
}

/* gelu: within op->ulps ulps of |x|/2 (the size of x/2 * (1 + erf(x/sqrt 2))'s
 * rounding, which cancellation does not shrink), elsewhere op->ulps ulps. */
static void check_result(const op_entry *op, const call_args *c, const ct_tensor *r, const ct_tensor *expect,
                         const char *what)
{
    if (strcmp(op->name, "gelu") || !r || !expect || ct_numel(r) != ct_numel(c->t[0]) ||
        ct_dtype_of(r) != ct_dtype_of(expect)) {
        ct_test_check_tensor(__FILE__, __LINE__, what, r, expect, case_ulps(op, c, r));
        return;
    }
    int64_t n = ct_numel(r);
    int mant = ct_dtype_of(r) == CT_F64 ? 52 : ct_dtype_of(r) == CT_F32 ? 23 : ct_dtype_of(r) == CT_F16 ? 10 : 7;
    double *v = (double *)malloc((size_t)(3 * n + 1) * sizeof(double));
    ct_copy_to_array(r, v, n, CT_F64);
    ct_copy_to_array(expect, v + n, n, CT_F64);
    ct_copy_to_array(c->t[0], v + 2 * n, n, CT_F64);
    for (int64_t i = 0; i < n; i++) {
        int e;
        frexp(fabs(v[2 * n + i]) / 2, &e);
        double tol = op->ulps * ldexp(1.0, e - 1 - mant);
        if (!(fabs(v[i] - v[n + i]) <= tol || (v[i] != v[i] && v[n + i] != v[n + i]) || v[i] == v[n + i])) {
            ct_test_fail(__FILE__, __LINE__, "%s[%lld] (flat) == %.17g, expected %.17g", what, (long long)i, v[i], v[n + i]);
            break;
        }
    }
    free(v);
}

/* Whether two shapes are the same. */
static bool same_shape(const ct_tensor *a, const ct_tensor *b)
{
    if (ct_dim(a) != ct_dim(b)) return false;
    for (int d = 0; d < ct_dim(a); d++)
        if (ct_size(a, d) != ct_size(b, d)) return false;
    return true;
}

/* The in-place form on a copy of the first operand gives the same values in
 * its own dtype, or PyTorch's error when the result cannot be stored there. */
static void check_inplace(const op_entry *op, const call_args *c, const ct_tensor *expect, const char *what)
{
    if (c->kind[0] != 't' || !strcmp(op->name, "where")) return;
    ct_tensor *self = ct_clone(c->t[0]);
    ct_tensor *unused;
    ct_result r = run(op, c, self, &unused);
    if (r == NO_INPLACE) return;
    /* pow_ with a number exponent has a check of its own ("Found dtype Long but expected Float") */
    bool pow_number = !strcmp(op->name, "pow") && c->kind[1] != 't';
    const char *want = !same_shape(self, expect) ? "doesn't match the broadcast shape"
                       : ct_can_cast(ct_dtype_of(expect), ct_dtype_of(self)) ? NULL
                       : pow_number ? "but expected"
                                    : "can't be cast to the desired output type";
    if (want) {
        if (r == CT_OK || !strstr(ct_last_error(), want))
            ct_test_fail(__FILE__, __LINE__, "%s in place: expected \"%s\", got \"%s\"", what, want, ct_last_error());
        ct_clear_error();
        return;
    }
    if (r != CT_OK) {
        ct_test_fail(__FILE__, __LINE__, "%s in place failed: %s", what, ct_last_error());
        ct_clear_error();
        return;
    }
    check_result(op, c, self, ct_to(expect, ct_dtype_of(self)), what);
}

/* One line of pointwise.txt. Returns 0 when the op is unknown. */
/* Whether a case's goldens hold glibc's last bits, which Windows builds do
 * not get from mingw-w64's libm: acosh's, erfc's, lgamma's and pow's, and
 * gelu_backward's tanh form, whose 1 - tanh^2 magnifies the last bit of the
 * C library's tanhf in the scalar loop. fld: the case's fields, n of them. */
static bool holds_glibc_bits(char *const *fld, int n)
{
    static const char *const ops[] = {"acosh", "erfc", "lgamma", "pow", NULL};
    static const char *const tanh_form[] = {"gelu_backward", NULL};
    return ct_test_libm_bits_differ(fld[0], ops) ||
           (n > 4 && !strcmp(fld[4], "approximate=tanh") && ct_test_libm_bits_differ(fld[0], tanh_form));
}
static int glibc_bits_cases;

static int run_case(char *line)
{
    char *fld[12], what[512];
    int n = split(line, fld, 12), k = 2;
    if (holds_glibc_bits(fld, n)) {
        glibc_bits_cases++;
        return 0;
    }
    const op_entry *op = find_op(fld[0]);
    if (!op) {
        ct_test_fail(__FILE__, __LINE__, "unknown op %s", fld[0]);
        return 0;
    }
    call_args c;
    char kind[8];
    int nargs = 0;
    memset(&c, 0, sizeof c);
    for (const char *p = fld[1]; *p; p++) {
        if (*p == 'T') continue;
        if (*p == 't') {
            ct_tensor *t = gold(fld[k++]);
            c.t[nargs] = p[1] == 'T' && t ? ct_t(t) : t;
        } else {
            c.s[nargs] = number(fld[k++]);
        }
        kind[nargs++] = *p;
    }
    kind[nargs] = 0;
    c.kind = kind;
    c.opts = fld[k++];
    snprintf(what, sizeof what, "%.40s(%.60s%s%.60s%s%.60s) [%.8s] {%.100s}", fld[0], fld[2], nargs > 1 ? ", " : "",
             nargs > 1 ? fld[3] : "", nargs > 2 ? ", " : "", nargs > 2 ? fld[4] : "", fld[1], c.opts);
    ct_tensor *r;
    ct_result rc = run(op, &c, NULL, &r);
    const char *res = fld[k];
    if (rc == NO_INPLACE) {
        ct_test_fail(__FILE__, __LINE__, "%s: no C form for this case", what);
    } else if (!strncmp(res, "ERR ", 4)) {
        const char *msg = n > k + 1 ? fld[k + 1] : "";
        if (rc == CT_OK) ct_test_fail(__FILE__, __LINE__, "%s succeeded, expected %s", what, msg);
        else if (strcmp(ct_last_error(), msg))
            ct_test_fail(__FILE__, __LINE__, "%s: got \"%s\", expected \"%s\"", what, ct_last_error(), msg);
        ct_clear_error();
    } else if (rc != CT_OK) {
        ct_test_fail(__FILE__, __LINE__, "%s failed: %s", what, ct_last_error());
        ct_clear_error();
    } else {
        const ct_tensor *expect = gold(res);
        check_result(op, &c, r, expect, what);
        check_inplace(op, &c, expect, what);
    }
    return 1;
}

static void test_golden_cases(void)
{
    FILE *f = fopen("tests/golden/pointwise.txt", "r");
    char line[8192];
    int cases = 0;
    CHECK(f != NULL);
    CHECK(load_golden("tests/golden/pointwise.ctg"));
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        ct_scope s = ct_scope_begin();
        cases += run_case(line);
        ct_scope_end(s);
    }
    if (f) fclose(f);
    free_golden();
    CHECK(cases > 10000);
    ct_test_skip_cases("test_golden_cases", glibc_bits_cases,
                       "cases of acosh, erfc, lgamma, pow and gelu_backward's tanh form",
                       "their goldens hold glibc's last bits");
}

/* ---------------------------------------------------------------- seeds and rules */

static void test_seed_outputs(void)
{
    float xv[] = {2.6f, -2.7f}, cv[] = {0.9f, -0.8f, 100.0f, -20.0f, 0.7f};
    int64_t av[] = {1, 2, 3}, bv[] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    ct_tensor *x = ct_from_array(xv, CT_SHAPE(2), CT_F32), *c = ct_from_array(cv, CT_SHAPE(5), CT_F32);
    CHECK_REPR(ct_round(x), "tensor([ 3., -3.])");
    CHECK_REPR(ct_floor(x), "tensor([ 2., -3.])");
    CHECK_REPR(ct_ceil(x), "tensor([ 3., -2.])");
    CHECK_REPR(ct_trunc(x), "tensor([ 2., -2.])");
    CHECK_REPR(ct_fmod_scalar(x, ct_int(2)), "tensor([ 0.6000, -0.7000])");
    CHECK_REPR(ct_remainder_scalar(x, ct_int(2)), "tensor([0.6000, 1.3000])");
    CHECK_REPR(ct_clamp_scalar(c, ct_int(-1), ct_int(1)), "tensor([ 0.9000, -0.8000,  1.0000, -1.0000,  0.7000])");
    CHECK_REPR(ct_clamp_max_scalar(c, ct_int(1)), "tensor([  0.9000,  -0.8000,   1.0000, -20.0000,   0.7000])");
    CHECK_REPR(ct_add(ct_from_array(av, CT_SHAPE(3), CT_I64), ct_from_array(bv, CT_SHAPE(3, 3), CT_I64)),
               "tensor([[1, 2, 3],\n        [2, 3, 4],\n        [3, 4, 5]])");
}

static void test_output_layout_follows_inputs(void)
{
    /* TensorIterator lays a new output out like its first input */
    ct_tensor *a = ct_t(ct_zeros(CT_SHAPE(3, 4), CT_F32));
    ct_tensor *r = ct_add_scalar(a, ct_int(1));
    CHECK_INT(ct_stride(r, 0), 1);
    CHECK_INT(ct_stride(r, 1), 4);
    ct_tensor *r2 = ct_add(ct_zeros(CT_SHAPE(4, 3), CT_F32), a);
    CHECK(ct_is_contiguous(r2));
    ct_tensor *r3 = ct_where(ct_ones(CT_SHAPE(4, 3), CT_BOOL), a, a);
    CHECK_T(r3);
    CHECK(ct_is_contiguous(r3));
    ct_tensor *r4 = ct_clamp_scalar(a, ct_int(0), ct_int(1));
    CHECK_INT(ct_stride(r4, 0), 1);
}

static void test_inplace_errors(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(3), CT_F32);
    CHECK_FAILS(ct_add_(x, ct_zeros(CT_SHAPE(2, 3), CT_F32)), CT_ERR_RUNTIME,
                "output with shape [3] doesn't match the broadcast shape [2, 3]");
    CHECK_FAILS(ct_add_scalar_(ct_zeros(CT_SHAPE(2), CT_I64), ct_float(1.5)), CT_ERR_RUNTIME,
                "result type Float can't be cast to the desired output type Long");
    CHECK_FAILS(ct_add_(ct_expand(x, CT_SHAPE(2, 3)), ct_ones(CT_SHAPE(2, 3), CT_F32)), CT_ERR_RUNTIME,
                "more than one element of the written-to tensor refers to a single memory location");
    CHECK_FAILS(ct_clamp_scalar_(ct_zeros(CT_SHAPE(2), CT_I32), ct_float(0.5), ct_float(1)), CT_ERR_RUNTIME,
                "result type Float can't be cast to the desired output type int");
    ct_tensor *y = ct_arange(ct_int(0), ct_int(4), ct_int(1), CT_F32);
    CHECK_FAILS(ct_add_(ct_slice(y, 0, 1, CT_END, 1), ct_slice(y, 0, 0, 3, 1)), CT_ERR_RUNTIME,
                "some elements of the input tensor and the written-to tensor refer to a single memory location");
    CHECK_FAILS(ct_lerp_scalar_(ct_slice(y, 0, 1, CT_END, 1), ct_slice(y, 0, 0, 3, 1), ct_float(0.5)), CT_ERR_RUNTIME,
                "some elements of the input tensor and the written-to tensor refer to a single memory location");
    CHECK_VALUES(y, CT_SHAPE(4), 0, 1, 2, 3);
    CHECK_OK(ct_mul_(y, y)); /* the same tensor in and out is fine */
    CHECK_VALUES(y, CT_SHAPE(4), 0, 1, 4, 9);
    CHECK_ERR(ct_add(x, NULL), CT_ERR_TYPE, "add(): argument 'other' (position 2) must be Tensor, not NULL");
    CHECK_ERR(ct_where(NULL, x, x), CT_ERR_TYPE, "where(): argument 'condition' (position 1) must be Tensor, not NULL");
    CHECK_ERR(ct_addcmul(x, x, NULL, ct_int(1)), CT_ERR_TYPE,
              "addcmul(): argument 'tensor2' (position 3) must be Tensor, not NULL");
}

/* A failed integer division writes nothing, where PyTorch stops midway. */
static void test_zero_division_changes_nothing(void)
{
    int64_t v[] = {7, 8, 9}, d[] = {2, 0, 3};
    ct_tensor *a = ct_from_array(v, CT_SHAPE(3), CT_I64);
    CHECK_FAILS(ct_remainder_(a, ct_from_array(d, CT_SHAPE(3), CT_I64)), CT_ERR_RUNTIME, "ZeroDivisionError");
    CHECK_VALUES(a, CT_SHAPE(3), 7, 8, 9);
    CHECK_FAILS(ct_div_mode_scalar_(a, ct_int(0), CT_ROUNDING_FLOOR), CT_ERR_RUNTIME, "ZeroDivisionError");
    CHECK_VALUES(a, CT_SHAPE(3), 7, 8, 9);
    /* the most negative int64 over -1 wraps instead of trapping (PyTorch crashes) */
    int64_t m[] = {INT64_MIN};
    CHECK_VALUES(ct_div_mode_scalar(ct_from_array(m, CT_SHAPE(1), CT_I64), ct_int(-1), CT_ROUNDING_TRUNC), CT_SHAPE(1),
                 (double)INT64_MIN);
    CHECK_VALUES(ct_remainder_scalar(ct_from_array(m, CT_SHAPE(1), CT_I64), ct_int(-1)), CT_SHAPE(1), 0);
}

/* Tensors big enough for several OpenMP chunks (when built with it): each
 * chunk starts its pointers mid-tensor, broadcast operands included. */
static void test_large_tensors(void)
{
    int64_t n = 300001;
    ct_tensor *x = ct_arange(ct_int(0), ct_int(n), ct_int(1), CT_F32);
    ct_tensor *col = ct_view(ct_slice(x, 0, 0, 100000, 1), CT_SHAPE(100000, 1));
    ct_tensor *row = ct_arange(ct_int(0), ct_int(3), ct_int(1), CT_F32);
    ct_tensor *sum = ct_add(col, row), *clamped = ct_clamp_scalar(x, ct_int(10), ct_int(200000));
    ct_tensor *picked = ct_where(ct_gt_scalar(x, ct_int(5)), x, ct_neg(x));
    float *v = (float *)malloc((size_t)n * sizeof(float));
    CHECK_OK(ct_copy_to_array(sum, v, n, CT_F32));
    for (int64_t i = 0; i < 300000; i++)
        if (v[i] != (float)(i / 3 + i % 3)) {
            ct_test_fail(__FILE__, __LINE__, "sum[%lld] == %g", (long long)i, v[i]);
            break;
        }
    CHECK_OK(ct_copy_to_array(clamped, v, n, CT_F32));
    for (int64_t i = 0; i < n; i++)
        if (v[i] != (float)(i < 10 ? 10 : i > 200000 ? 200000 : i)) {
            ct_test_fail(__FILE__, __LINE__, "clamped[%lld] == %g", (long long)i, v[i]);
            break;
        }
    CHECK_OK(ct_copy_to_array(picked, v, n, CT_F32));
    for (int64_t i = 0; i < n; i++)
        if (v[i] != (float)(i > 5 ? i : -i)) {
            ct_test_fail(__FILE__, __LINE__, "picked[%lld] == %g", (long long)i, v[i]);
            break;
        }
    free(v);
}

static void test_options_defaults(void)
{
    ct_elu_opts e = ct_elu_opts_init();
    ct_softplus_opts s = ct_softplus_opts_init();
    ct_isclose_opts c = ct_isclose_opts_init();
    CHECK(e.alpha == 1 && e.scale == 1 && e.input_scale == 1);
    CHECK(s.beta == 1 && s.threshold == 20);
    CHECK(c.rtol == 1e-05 && c.atol == 1e-08 && !c.equal_nan);
    CHECK_ERR(ct_gelu(ct_zeros(CT_SHAPE(2), CT_F32), (ct_gelu_approximate)7), CT_ERR_RUNTIME,
              "approximate argument must be either none or tanh.");
    CHECK_ERR(ct_div_mode(ct_zeros(CT_SHAPE(2), CT_F32), ct_ones(CT_SHAPE(2), CT_F32), (ct_rounding_mode)9),
              CT_ERR_RUNTIME, "div expected rounding_mode to be one of None, 'trunc', or 'floor'");
    CHECK(!ct_allclose(NULL, ct_zeros(CT_SHAPE(2), CT_F32), c));
    ct_clear_error();
}

/* float32 exp within an ulp of e^x (double's exp rounded is within 1e-9 of
 * an ulp of it) on every 512th float from -104 (results down to the
 * smallest subnormal) to 89 (overflow): the vector math's own float
 * arithmetic in a -march=native build, the C library's otherwise. */
static void test_float_exp_within_an_ulp(void)
{
    enum { STEP = 512 };
    const uint32_t sign = 0x80000000u, one = 0x3f800000u, ends[2] = {0x42b20000u, 0x42d00000u}; /* 89, -104 */
    int64_t n = 2 * (one / STEP) + (ends[0] - one) / STEP + (ends[1] - one) / STEP + 2, m = 0;
    float *x = (float *)malloc((size_t)n * sizeof *x);
    for (int neg = 0; neg < 2; neg++)
        for (uint32_t b = 0; b < ends[neg]; b += STEP) {
            uint32_t bits = b | (neg ? sign : 0);
            memcpy(&x[m++], &bits, sizeof(float));
        }
    ct_tensor *t = ct_from_array(x, CT_SHAPE(m), CT_F32), *e = ct_exp(t);
    const float *y = (const float *)ct_data_ptr(ct_cpu(e)) /* (a host copy on a device) */;
    int64_t bad = 0;
    for (int64_t i = 0; i < m; i++) {
        double truth = exp((double)x[i]);
        int ex;
        frexp(truth, &ex);
        double ulp = ldexp(1.0, ex - 24 < -149 ? -149 : ex - 24);
        bool ok = truth > FLT_MAX ? isinf(y[i]) : fabs((double)y[i] - truth) <= ulp;
        if (!ok && bad++ < 3) printf("  exp(%a) = %a, e^x = %a\n", (double)x[i], (double)y[i], truth);
    }
    CHECK_INT(bad, 0);
    free(x);
}

#ifdef _OPENMP
/* exp, log, tanh and sigmoid run the vector math (built with -march=native
 * for AVX2) on whole blocks of a loop and the C library on the rest: the
 * threads split a loop in whole blocks, so the bits do not depend on how
 * many there are. 4 threads share these 200060 elements in runs of 50015
 * were the split by element, each ending in 15 elements off a block. */
static void test_vector_math_same_bits_on_any_thread_count(void)
{
    ct_tensor *(*const ops[])(const ct_tensor *) = {ct_exp, ct_log, ct_tanh, ct_sigmoid};
    int saved = omp_get_max_threads();
    ct_tensor *x = ct_mul_scalar(ct_randn(CT_SHAPE(200060), CT_F32, NULL), ct_float(4.0)), *r1[8], *r4[8];
    ct_tensor *in[2] = {x, ct_to(x, CT_F64)};
    for (int round = 0; round < 2; round++) {
        omp_set_num_threads(round ? 4 : 1);
        for (int k = 0; k < 8; k++) {
            const ct_tensor *t = k % 4 == 1 ? ct_abs(in[k / 4]) : in[k / 4];
            (round ? r4 : r1)[k] = ops[k % 4](t);
        }
    }
    omp_set_num_threads(saved);
    for (int k = 0; k < 8; k++) CHECK_TENSOR(r4[k], r1[k], 0);
}
#endif

/* float32 erf, gelu (approximate none) and its backward give PyTorch 1.13's
 * bits (SLEEF's erf and exp, GeluKernelImpl's and GeluBackwardKernelImpl's
 * formulas) on inputs chosen to stress them (gen_pointwise.py, "SLEEF's
 * bits"): whole vector blocks, so the bits hold with any C library. The
 * gradient comes through autograd, from the op table's gelu_backward
 * kernel, on every device. */
static void test_sleef_bits(void)
{
    CHECK(load_golden("tests/golden/pointwise.ctg"));
    ct_tensor *x = ct_clone(gold("sleef_x")), *dy = gold("sleef_dy");
    CHECK_TENSOR(ct_erf(x), gold("sleef_erf"), 0);
    CHECK(ct_requires_grad_(x, true) == CT_OK);
    ct_tensor *y = ct_gelu(x, CT_GELU_NONE);
    CHECK_TENSOR(y, gold("sleef_gelu"), 0);
    ct_backward_opts o = {false, false, NULL, 0};
    CHECK(ct_backward(y, dy, o) == CT_OK);
    CHECK_TENSOR(ct_grad(x), gold("sleef_gelu_backward"), 0);
    free_golden();
}

int main(void)
{
    RUN(test_golden_cases);
    RUN(test_sleef_bits);
    RUN(test_seed_outputs);
    RUN(test_output_layout_follows_inputs);
    RUN(test_inplace_errors);
    RUN(test_zero_division_changes_nothing);
    RUN(test_large_tensors);
    RUN(test_options_defaults);
    RUN(test_float_exp_within_an_ulp);
#ifdef _OPENMP
    RUN(test_vector_math_same_bits_on_any_thread_count);
#else
    SKIP(test_vector_math_same_bits_on_any_thread_count, "built without OpenMP");
#endif
    return ct_test_report();
}
