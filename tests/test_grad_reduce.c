/* Gradients of the reductions, scans, softmax and sorting/selection ops
 * against PyTorch: every case of tests/golden/grad_reduce.txt (written by
 * gen_grad_reduce.py) checks the output's node name and the input's
 * gradient; then gradcheck and gradgradcheck in float64 for every op and
 * form, index outputs that never require grad, and the in-place scans'
 * rules. */
#include "harness.h"

/* ---------------------------------------------------------------- running an op */

typedef struct op_args {
    ct_shape d;
    bool k, desc, stable, sorted;
    ct_dtype t;
    double p;
    int64_t c, K;
} op_args;

static ct_dtype dtype_named(const char *s)
{
    return !strncmp(s, "f64", 3) ? CT_F64 : !strncmp(s, "f32", 3) ? CT_F32 : !strncmp(s, "f16", 3) ? CT_F16 : CT_BF16;
}

/* "d=1,0;k=1;p=inf;..." */
static op_args parse_args(const char *s)
{
    op_args a;
    memset(&a, 0, sizeof a);
    a.p = 2;
    while (*s) {
        char key[8] = {0};
        int n = 0;
        while (*s && *s != '=' && n < 7) key[n++] = *s++;
        if (*s == '=') s++;
        if (!strcmp(key, "d")) {
            while (*s && *s != ';') {
                a.d.size[a.d.ndim++] = strtoll(s, (char **)&s, 10);
                if (*s == ',') s++;
            }
        } else if (!strcmp(key, "p")) {
            a.p = strtod(s, (char **)&s);
        } else if (!strcmp(key, "t")) {
            a.t = dtype_named(s);
        } else {
            long long v = strtoll(s, (char **)&s, 10);
            if (!strcmp(key, "k")) a.k = v;
            if (!strcmp(key, "desc")) a.desc = v;
            if (!strcmp(key, "stable")) a.stable = v;
            if (!strcmp(key, "sorted")) a.sorted = v;
            if (!strcmp(key, "c")) a.c = v;
            if (!strcmp(key, "K")) a.K = v;
        }
        while (*s && *s != ';') s++;
        if (*s == ';') s++;
    }
    return a;
}

/* op's values (first output of a values-and-indices op) */
typedef ct_result (*pair_fn)(const ct_tensor *, int, bool, ct_tensor **, ct_tensor **);

/* (the values are read after the call has written them) */
static ct_tensor *values_of(ct_result r, ct_tensor *const *v) { return r == CT_OK ? *v : NULL; }

/* op (form "all", "dim" or "ip") of x into out (room for 2): how many
 * differentiable outputs, or -1. */
static int run_op(const char *op, const char *form, ct_tensor *x, const op_args *a, ct_tensor **out)
{
    bool all = !strcmp(form, "all");
    int d0 = a->d.ndim ? (int)a->d.size[0] : 0;
    ct_tensor *v = NULL, *i = NULL, *m = NULL;
    static const struct { const char *name; pair_fn fn; } pairs[] = {
        {"max", ct_max_dim}, {"min", ct_min_dim}, {"median", ct_median_dim}, {"mode", ct_mode}};
    out[1] = NULL;
    for (size_t j = 0; j < sizeof pairs / sizeof pairs[0]; j++)
        if (!strcmp(op, pairs[j].name) && !all) out[0] = values_of(pairs[j].fn(x, d0, a->k, &v, &i), &v);
    if (!strcmp(op, "sum")) out[0] = all ? ct_sum(x) : ct_sum_dim(x, a->d, a->k, a->t);
    else if (!strcmp(op, "mean")) out[0] = all ? ct_mean(x) : ct_mean_dim(x, a->d, a->k, a->t);
    else if (!strcmp(op, "nansum")) out[0] = all ? ct_nansum(x) : ct_nansum_dim(x, a->d, a->k, a->t);
    else if (!strcmp(op, "prod")) out[0] = all ? ct_prod(x) : ct_prod_dim(x, d0, a->k, a->t);
    else if (!strcmp(op, "amax")) out[0] = ct_amax(x, a->d, a->k);
    else if (!strcmp(op, "amin")) out[0] = ct_amin(x, a->d, a->k);
    else if (!strcmp(op, "max") && all) out[0] = ct_max(x);
    else if (!strcmp(op, "min") && all) out[0] = ct_min(x);
    else if (!strcmp(op, "median") && all) out[0] = ct_median(x);
    else if (!strcmp(op, "kthvalue")) out[0] = values_of(ct_kthvalue(x, a->K, d0, a->k, &v, &i), &v);
    else if (!strcmp(op, "sort")) out[0] = values_of(ct_sort(x, d0, a->desc, a->stable, &v, &i), &v);
    else if (!strcmp(op, "topk")) out[0] = values_of(ct_topk(x, a->K, d0, a->desc, a->sorted, &v, &i), &v);
    else if (!strcmp(op, "std")) out[0] = all ? ct_std(x) : ct_std_dim(x, a->d, a->c, a->k);
    else if (!strcmp(op, "var")) out[0] = all ? ct_var(x) : ct_var_dim(x, a->d, a->c, a->k);
    else if (!strcmp(op, "std_mean") && ct_std_mean(x, a->d, a->c, a->k, &v, &m) == CT_OK) out[0] = v, out[1] = m;
    else if (!strcmp(op, "var_mean") && ct_var_mean(x, a->d, a->c, a->k, &v, &m) == CT_OK) out[0] = v, out[1] = m;
    else if (!strcmp(op, "norm") && !strcmp(form, "fro")) out[0] = ct_norm_fro(x, a->d, a->k);
    else if (!strcmp(op, "norm")) out[0] = all ? ct_norm(x, a->p) : ct_norm_dim(x, a->p, a->d, a->k, a->t);
    else if (!strcmp(op, "logsumexp")) out[0] = ct_logsumexp(x, a->d, a->k);
    else if (!strcmp(op, "cumsum") && strcmp(form, "ip")) out[0] = ct_cumsum(x, d0, a->t);
    else if (!strcmp(op, "cumprod") && strcmp(form, "ip")) out[0] = ct_cumprod(x, d0, a->t);
    else if (!strcmp(op, "cumsum") || !strcmp(op, "cumprod")) { /* in place on x * 1, which has a graph */
        ct_tensor *y = ct_mul_scalar(x, ct_int(1));
        out[0] = y && (op[3] == 's' ? ct_cumsum_(y, d0, CT_DEFAULT) : ct_cumprod_(y, d0, CT_DEFAULT)) == CT_OK ? y : NULL;
    } else if (!strcmp(op, "cummax")) out[0] = values_of(ct_cummax(x, d0, &v, &i), &v);
    else if (!strcmp(op, "cummin")) out[0] = values_of(ct_cummin(x, d0, &v, &i), &v);
    else if (!strcmp(op, "logcumsumexp")) out[0] = ct_logcumsumexp(x, d0);
    else if (!strcmp(op, "softmax")) out[0] = ct_softmax(x, d0, a->t);
    else if (!strcmp(op, "log_softmax")) out[0] = ct_log_softmax(x, d0, a->t);
    if (i && ct_requires_grad(i)) ct_test_fail(__FILE__, __LINE__, "%s: indices require grad", op);
    return !out[0] ? -1 : out[1] ? 2 : 1;
}

/* ---------------------------------------------------------------- golden gradients */

/* How far a gradient may be from PyTorch's. Every formula is the same
 * sequence of ops as PyTorch's, so bit-exact, except where exp and log come
 * in (logsumexp, logcumsumexp): PyTorch vectorises them with Sleef (within 1
 * ulp), ctorch calls the C library; and softmax and log_softmax, whose
 * backward kernel (_softmax_backward_data) sums along the dim in vector
 * lanes, another order of addition than ct_sum_dim's. The error is measured
 * in ulps of the largest gradient of the case: the formulas subtract terms
 * of similar size (y * (g - sum), a difference of two exponentials), so the
 * absolute error of the large terms is what the small results carry. */
static int ulps_for(const char *op)
{
    static const char *inexact[] = {"logsumexp", "logcumsumexp", "softmax", "log_softmax"};
    for (size_t i = 0; i < sizeof inexact / sizeof inexact[0]; i++)
        if (!strcmp(op, inexact[i])) return 4;
    return 0;
}

static void check_grad(const char *what, const ct_tensor *g, const ct_tensor *expect, int ulps)
{
    int64_t n = ct_numel(expect);
    double *a = (double *)calloc((size_t)n + 1, sizeof(double)), *b = (double *)calloc((size_t)n + 1, sizeof(double));
    double scale = 0;
    int mant = ct_dtype_of(expect) == CT_F64 ? 53 : 24;
    if (g && (ct_dtype_of(g) != ct_dtype_of(expect) || ct_dim(g) != ct_dim(expect) || ct_numel(g) != n))
        ct_test_fail(__FILE__, __LINE__, "%s: dtype or shape differs from PyTorch's", what);
    else if (g) ct_copy_to_array(g, a, n, CT_F64);
    ct_copy_to_array(expect, b, n, CT_F64);
    for (int64_t i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
    for (int64_t i = 0; i < n; i++) {
        int e;
        frexp(ulps ? scale : fabs(b[i]), &e);
        if (a[i] == b[i] || (a[i] != a[i] && b[i] != b[i]) || (ulps && fabs(a[i] - b[i]) <= ulps * ldexp(1.0, e - mant)))
            continue;
        ct_test_fail(__FILE__, __LINE__, "%s[%lld] (flat) == %.17g, expected %.17g", what, (long long)i, a[i], b[i]);
        break;
    }
    free(a);
    free(b);
}

static ct_tensor *leaf_view(ct_tensor *base, const char *view)
{
    ct_tensor *x = !*view ? base : view[0] == 'T' ? ct_t(base) : ct_index(base, view + 1);
    if (x) ct_requires_grad_(x, true);
    return x;
}

static void replay(char **f)
{
    char name[64], what[600];
    const char *op = f[0], *form = f[1], *cid = f[2];
    op_args a = parse_args(f[4]);
    ct_tensor *out[2], *gx = NULL;
    const ct_tensor *gs[2];
    snprintf(what, sizeof what, "%s|%s|%s|%s|%s", op, form, cid, f[3], f[4]);
    snprintf(name, sizeof name, "%s_x", cid);
    ct_tensor *x = leaf_view(ct_clone(golden("grad_reduce", name)), f[3]);
    int n = x ? run_op(op, form, x, &a, out) : -1;
    if (n < 0) {
        ct_test_fail(__FILE__, __LINE__, "%s failed: %s", what, ct_last_error());
        return;
    }
    const char *node = ct_grad_fn(out[0]) ? ct_node_name(ct_grad_fn(out[0])) : "(none)";
    if (strcmp(node, f[5])) ct_test_fail(__FILE__, __LINE__, "%s: node %s, expected %s", what, node, f[5]);
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s_g%d", cid, i);
        gs[i] = golden("grad_reduce", name);
    }
    ct_grad_opts o = {false, false, true};
    if (ct_autograd_grad((const ct_tensor *const *)out, n, (const ct_tensor *const *)&x, 1, gs, &gx, o) != CT_OK) {
        ct_test_fail(__FILE__, __LINE__, "%s: backward failed: %s", what, ct_last_error());
        return;
    }
    snprintf(name, sizeof name, "%s_gx", cid);
    check_grad(what, gx ? gx : ct_zeros_like(x, CT_DEFAULT), golden("grad_reduce", name), ulps_for(op));
}

static void test_golden_gradients(void) { CHECK(ct_test_each_case("tests/golden/grad_reduce.txt", 6, replay) > 900); }

/* ---------------------------------------------------------------- gradcheck */

typedef struct spec {
    const char *op, *form, *args;
    char input; /* r: away from zero, distinct; z: with zeros; 0: 0-d */
    const char *waits; /* why its gradgradcheck cannot pass yet: ops its formula uses that record no node yet */
} spec;

static int spec_fn(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    const spec *sp = (const spec *)user;
    op_args a = parse_args(sp->args);
    (void)n;
    return run_op(sp->op, sp->form, in[0], &a, out);
}

/* x + 0.5 sign(x): no element near zero, and (almost surely) no ties */
static ct_tensor *input_for(char kind)
{
    ct_tensor *u = ct_randn(kind == '0' ? CT_SHAPE0 : CT_SHAPE(3, 4), CT_F64, NULL);
    ct_tensor *x = ct_add(u, ct_mul_scalar(ct_sign(u), ct_float(0.5)));
    if (kind == 'z') ct_index_put_(x, ct_scalar_tensor(ct_float(0), CT_F64), "1, 1:3");
    ct_requires_grad_(x, true);
    return x;
}

static const spec specs[] = {
    {"prod", "all", "", 'r', NULL},
    {"prod", "all", "", 'z', NULL},
    {"prod", "dim", "d=1;k=0", 'r', NULL},
    {"prod", "dim", "d=1;k=1", 'z', NULL},
    {"prod", "dim", "d=0;k=0", '0', NULL},
    {"amax", "dim", "d=1;k=0", 'r', NULL},
    {"amin", "dim", "d=0,1;k=1", 'r', NULL},
    {"max", "all", "", 'r', NULL},
    {"min", "all", "", 'r', NULL},
    {"median", "all", "", 'r', NULL},
    {"max", "dim", "d=1;k=0", 'r', NULL},
    {"min", "dim", "d=0;k=1", 'r', NULL},
    {"median", "dim", "d=1;k=0", 'r', NULL},
    {"mode", "dim", "d=1;k=1", 'r', NULL},
    {"kthvalue", "dim", "K=2;d=0;k=0", 'r', NULL},
    {"sort", "dim", "d=1;desc=1;stable=0", 'r', NULL},
    {"sort", "dim", "d=0;desc=0;stable=1", 'r', NULL},
    {"topk", "dim", "K=2;d=1;desc=1;sorted=1", 'r', NULL},
    {"std", "all", "", 'r', NULL},
    {"var", "all", "", 'r', NULL},
    {"std", "dim", "d=1;c=0;k=0", 'r', NULL},
    {"var", "dim", "d=0,1;c=2;k=1", 'r', NULL},
    {"std_mean", "dim", "d=1;c=1;k=0", 'r', NULL},
    {"var_mean", "dim", "d=;c=1;k=0", 'r', NULL},
    {"norm", "all", "p=2", 'r', NULL},
    {"norm", "dim", "p=1;d=1;k=0", 'r', NULL},
    {"norm", "dim", "p=inf;d=1;k=1", 'r', NULL},
    {"norm", "dim", "p=-inf;d=0;k=0", 'r', NULL},
    {"norm", "dim", "p=0.5;d=1;k=0", 'r', NULL},
    {"norm", "dim", "p=1.5;d=0,1;k=0", 'r', NULL},
    {"norm", "all", "p=3", 'r', NULL},
    {"norm", "dim", "p=2;d=1;k=0;t=f64", 'r', NULL},
    {"logsumexp", "dim", "d=1;k=0", 'r', NULL},
    {"logsumexp", "dim", "d=0,1;k=1", 'r', NULL},
    {"cumsum", "dim", "d=1", 'r', NULL},
    {"cumsum", "ip", "d=0", 'r', NULL},
    {"cumprod", "dim", "d=1", 'r', NULL},
    {"cumprod", "dim", "d=1", 'z', NULL},
    {"cumprod", "ip", "d=0", 'r', NULL},
    {"cummax", "dim", "d=1", 'r', NULL},
    {"cummin", "dim", "d=0", 'r', NULL},
    {"logcumsumexp", "dim", "d=1", 'r', NULL},
    {"softmax", "dim", "d=1", 'r', NULL},
    {"softmax", "dim", "d=0", '0', NULL},
    {"log_softmax", "dim", "d=0", 'r', NULL},
};

static void test_gradcheck(void)
{
    ct_manual_seed(0);
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        ct_scope s = ct_scope_begin();
        ct_tensor *x = input_for(specs[i].input);
        if (ct_gradcheck(spec_fn, &x, 1, (void *)&specs[i], ct_gradcheck_opts_init()) != CT_OK)
            ct_test_fail(__FILE__, __LINE__, "gradcheck %s|%s|%s (%c): %.300s", specs[i].op, specs[i].form, specs[i].args,
                         specs[i].input, ct_last_error());
        ct_scope_end(s);
    }
}

/* The formulas marked `waits` go through ops that record no node yet
 * (scatter, scatter_add, flip, cat, pow), so their gradients have no graph
 * of their own: those gradgradchecks are printed, with the reason, until the
 * nodes land; the others must pass. "gradcheck aliasing": the gradient of a
 * 0-d prod is grad_output itself, which gradgradcheck's finite differences
 * perturb in place and read back as both of their ends. */
static void test_gradgradcheck(void)
{
    int waiting = 0;
    ct_manual_seed(1);
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        ct_scope s = ct_scope_begin();
        ct_tensor *x = input_for(specs[i].input);
        if (ct_gradgradcheck(spec_fn, &x, 1, (void *)&specs[i], ct_gradcheck_opts_init()) != CT_OK) {
            if (specs[i].waits)
                printf("  waits (%s): gradgradcheck %s|%s|%s (%c)\n", specs[i].waits, specs[i].op, specs[i].form,
                       specs[i].args, specs[i].input), waiting++;
            else
                ct_test_fail(__FILE__, __LINE__, "gradgradcheck %s|%s|%s (%c): %.300s", specs[i].op, specs[i].form,
                             specs[i].args, specs[i].input, ct_last_error());
        } else if (specs[i].waits) {
            printf("  gradgradcheck %s|%s|%s (%c) passes now: its waits mark can go\n", specs[i].op, specs[i].form,
                   specs[i].args, specs[i].input);
        }
        ct_scope_end(s);
    }
    if (waiting) printf("  (%d gradgradchecks wait for other ops' nodes)\n", waiting);
}

/* ---------------------------------------------------------------- rules */

static void test_indices_and_in_place(void)
{
    ct_tensor *x = ct_randn(CT_SHAPE(3, 4), CT_F32, NULL), *v, *i;
    ct_requires_grad_(x, true);
    CHECK(!ct_requires_grad(ct_argmax(x)) && !ct_requires_grad(ct_argsort(x, 1, false, false)));
    CHECK_OK(ct_max_dim(x, 1, false, NULL, &i)); /* values not wanted: still fine */
    CHECK(!ct_requires_grad(i));
    CHECK_OK(ct_sort(x, 1, false, false, &v, NULL));
    CHECK(ct_requires_grad(v));
    CHECK_FAILS(ct_cumsum_(x, 0, CT_DEFAULT), CT_ERR_RUNTIME,
                "a leaf Variable that requires grad is being used in an in-place operation.");
    /* cumprod_ saves self as it was: a later write to the result is caught */
    ct_tensor *y = ct_mul_scalar(x, ct_int(2));
    CHECK_OK(ct_cumprod_(y, 1, CT_DEFAULT));
    CHECK_STR(ct_node_name(ct_grad_fn(y)), "CumprodBackward0");
    CHECK_OK(ct_add_scalar_(y, ct_int(1)));
    CHECK_FAILS(ct_backward(ct_sum(y), NULL, (ct_backward_opts){false, false, NULL, 0}), CT_ERR_RUNTIME,
                "one of the variables needed for gradient computation has been modified by an inplace operation");
    /* no graph without grad mode */
    ct_grad_mode m = ct_set_grad_enabled(false);
    CHECK(ct_grad_fn(ct_softmax(x, 1, CT_DEFAULT)) == NULL);
    ct_grad_mode_restore(m);
}

/* With a graph (create_graph), cumprod's gradient where x has zeros is
 * built from differentiable ops (PyTorch's O(n^2) path), and prod's from the
 * exclusive products: the same numbers, up to rounding, as without. */
static ct_tensor *grad_of(int which, ct_tensor *x, bool graph)
{
    ct_tensor *y = which ? ct_cumprod(x, 1, CT_DEFAULT) : ct_prod(x), *g = NULL;
    ct_tensor *go = which ? ct_linspace(-1, 2, 12, CT_F64) : ct_scalar_tensor(ct_float(1.5), CT_F64);
    ct_grad_opts o = {false, graph, false};
    if (which) go = ct_reshape(go, CT_SHAPE(3, 4));
    CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&y, 1, (const ct_tensor *const *)&x, 1,
                              (const ct_tensor *const *)&go, &g, o));
    return g;
}

static void test_zeros_with_graph(void)
{
    const double v[3][12] = {{2, 0, 3, .5, 1, 2, 0, 4, 0, 1, -1, 2}, {2, 3, 3, .5, 1, 2, 5, 4, 0, 1, -1, 2},
                             {2, 3, 3, .5, 1, 2, 5, 4, 7, 1, -1, 2}};
    for (int which = 0; which < 2; which++)
        for (int k = 0; k < 3; k++) {
            ct_tensor *x = ct_from_array(v[k], CT_SHAPE(3, 4), CT_F64);
            ct_requires_grad_(x, true);
            ct_tensor *plain = grad_of(which, x, false), *graph = grad_of(which, x, true);
            ct_isclose_opts close = {1e-12, 1e-12, false};
            CHECK(plain && graph && ct_allclose(graph, plain, close));
        }
}

int main(void)
{
    RUN(test_golden_gradients);
    RUN(test_gradcheck);
    RUN(test_gradgradcheck);
    RUN(test_indices_and_in_place);
    RUN(test_zeros_with_graph);
    return ct_test_report();
}
