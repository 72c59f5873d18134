/* Optimizers against PyTorch 1.13: every case of tests/golden/optim.txt
 * (written with optim.ctg by tests/golden/gen_optim.py) replayed step by
 * step; parameter groups, zero_grad, state and a resume through the state
 * dict that must agree with an uninterrupted run bit for bit. */
#include "harness.h"

typedef struct problem {
    ct_tensor *p[2];
    const ct_tensor *c[2], *s[2];
    bool maximize;
} problem;

static void problem_init(problem *pr, const char *dtype)
{
    char name[64];
    for (int i = 0; i < 2; i++) {
        snprintf(name, sizeof name, "init_p%d_%s", i, dtype);
        pr->p[i] = ct_clone(golden("optim", name));
        ct_requires_grad_(pr->p[i], true);
        snprintf(name, sizeof name, "c%d_%s", i, dtype);
        pr->c[i] = golden("optim", name);
        snprintf(name, sizeof name, "s%d_%s", i, dtype);
        pr->s[i] = golden("optim", name);
    }
    pr->maximize = false;
}

/* p.grad = s * (p - c) + 0.1 * (p * p * p), negated for maximize */
static void set_grads(problem *pr)
{
    for (int i = 0; i < 2; i++) {
        ct_tensor *p = ct_detach(pr->p[i]);
        ct_tensor *g = ct_add(ct_mul(pr->s[i], ct_sub(p, pr->c[i])), ct_mul_scalar(ct_mul(ct_mul(p, p), p), ct_float(0.1)));
        ct_set_grad(pr->p[i], pr->maximize ? ct_neg(g) : g);
    }
}

/* loss = sum(0.5 * s * (p - c)^2 + 0.025 * p^4), with gradients */
static ct_result closure(double *loss, void *user)
{
    problem *pr = (problem *)user;
    ct_tensor *total = NULL;
    for (int i = 0; i < 2; i++) {
        ct_set_grad(pr->p[i], NULL);
        ct_tensor *d = ct_sub(pr->p[i], pr->c[i]);
        ct_tensor *term = ct_add(ct_mul(ct_mul_scalar(pr->s[i], ct_float(0.5)), ct_pow_scalar(d, ct_int(2))),
                                 ct_mul_scalar(ct_pow_scalar(pr->p[i], ct_int(4)), ct_float(0.025)));
        ct_tensor *sum = ct_sum(term);
        total = total ? ct_add(total, sum) : sum; /* Python's sum() starts from 0, an exact add */
    }
    *loss = ct_item(total);
    return ct_backward(total, NULL, (ct_backward_opts){0});
}

/* "a=1;b=2" into options (at most max); returns how many. */
static int parse_options(char *spec, ct_optim_option *out, int max)
{
    int n = 0;
    if (!strcmp(spec, "-")) return 0;
    for (char *item = strtok(spec, ";"); item && n < max; item = strtok(NULL, ";")) {
        char *eq = strchr(item, '=');
        *eq = 0;
        out[n].name = item;
        out[n++].value = atof(eq + 1);
    }
    return n;
}

static ct_optimizer *make_optimizer(const char *kind, ct_tensor *const *params, int64_t n)
{
    if (!strcmp(kind, "SGD")) return ct_sgd(params, n, (ct_sgd_opts){.lr = 0.1});
    if (!strcmp(kind, "Adam")) return ct_adam(params, n, ct_adam_opts_init());
    if (!strcmp(kind, "AdamW")) return ct_adamw(params, n, ct_adamw_opts_init());
    if (!strcmp(kind, "RMSprop")) return ct_rmsprop(params, n, ct_rmsprop_opts_init());
    if (!strcmp(kind, "Adagrad")) return ct_adagrad(params, n, ct_adagrad_opts_init());
    if (!strcmp(kind, "Adadelta")) return ct_adadelta(params, n, ct_adadelta_opts_init());
    if (!strcmp(kind, "Adamax")) return ct_adamax(params, n, ct_adamax_opts_init());
    if (!strcmp(kind, "NAdam")) return ct_nadam(params, n, ct_nadam_opts_init());
    if (!strcmp(kind, "RAdam")) return ct_radam(params, n, ct_radam_opts_init());
    if (!strcmp(kind, "LBFGS")) return ct_lbfgs(params, n, ct_lbfgs_opts_init());
    return NULL;
}

typedef struct test_case {
    char name[64], kind[16], spec[160], g1spec[160], dtype[8];
    int steps;
} test_case;

/* The optimizer of a case: the options given to the constructor are set on
 * group 0; with group 1 options, p1 is a second group that also inherits
 * the constructor's options. */
static ct_optimizer *case_optimizer(const test_case *tc, problem *pr)
{
    char spec[160], g1spec[160];
    ct_optim_option opts[CT_OPTIM_MAX_OPTIONS] = {{0}}, g1[CT_OPTIM_MAX_OPTIONS] = {{0}};
    snprintf(spec, sizeof spec, "%s", tc->spec);
    snprintf(g1spec, sizeof g1spec, "%s", tc->g1spec);
    int n = parse_options(spec, opts, CT_OPTIM_MAX_OPTIONS);
    bool groups = strcmp(g1spec, "-") != 0;
    ct_optimizer *opt = make_optimizer(tc->kind, pr->p, groups ? 1 : 2);
    CHECK(opt != NULL);
    for (int i = 0; i < n; i++) {
        CHECK_OK(ct_optim_set(opt, 0, opts[i].name, opts[i].value));
        if (!strcmp(opts[i].name, "maximize")) pr->maximize = opts[i].value != 0;
    }
    if (groups) {
        ct_param_group group = {&pr->p[1], 1, {{0}}};
        int m = parse_options(g1spec, g1, CT_OPTIM_MAX_OPTIONS);
        int k = 0;
        for (int i = 0; i < n && k < CT_OPTIM_MAX_OPTIONS; i++) group.options[k++] = opts[i];
        for (int i = 0; i < m && k < CT_OPTIM_MAX_OPTIONS; i++) group.options[k++] = g1[i];
        CHECK_OK(ct_optim_add_param_group(opt, group));
    }
    return opt;
}

static void take_step(ct_optimizer *opt, const test_case *tc, problem *pr)
{
    if (!strcmp(tc->kind, "LBFGS")) {
        double loss;
        CHECK_OK(ct_optim_step_closure(opt, closure, pr, &loss));
    } else {
        set_grads(pr);
        CHECK_OK(ct_optim_step(opt));
    }
}

/* Every rule follows PyTorch op for op: the parameters agree bit for bit. */
static void check_params(const test_case *tc, const problem *pr, const char *when)
{
    char name[96];
    for (int i = 0; i < 2; i++) {
        snprintf(name, sizeof name, "%s%s_p%d", tc->name, when, i);
        const ct_tensor *want = golden("optim", name);
        ct_tensor *got = ct_detach(pr->p[i]);
        if (want) ct_test_check_tensor(__FILE__, __LINE__, name, got, want, 0);
    }
}

static int read_cases(test_case *cases, int max)
{
    FILE *f = fopen("tests/golden/optim.txt", "r");
    char line[512];
    int n = 0;
    CHECK(f != NULL);
    while (f && n < max && fgets(line, sizeof line, f)) {
        test_case *tc = &cases[n];
        if (sscanf(line, "%63[^|]|%15[^|]|%159[^|]|%159[^|]|%d|%7s", tc->name, tc->kind, tc->spec, tc->g1spec,
                   &tc->steps, tc->dtype) == 6)
            n++;
    }
    if (f) fclose(f);
    return n;
}

static void test_trajectories_match_pytorch(void)
{
    static test_case cases[64];
    int n = read_cases(cases, 64);
    CHECK(n >= 38);
    for (int c = 0; c < n; c++) {
        const test_case *tc = &cases[c];
        ct_scope s = ct_scope_begin();
        problem pr;
        problem_init(&pr, tc->dtype);
        ct_optimizer *opt = case_optimizer(tc, &pr);
        for (int step = 0; opt && step < tc->steps; step++) {
            ct_scope inner = ct_scope_begin();
            take_step(opt, tc, &pr);
            ct_scope_end(inner);
            if (step + 1 == tc->steps / 2) check_params(tc, &pr, "_mid");
        }
        check_params(tc, &pr, "");
        ct_optim_free(opt);
        ct_scope_end(s);
    }
}

/* Half the steps, a state dict, a fresh optimizer that loads it, the rest:
 * the same bits as one optimizer all along. */
static void test_state_dict_resumes_bit_for_bit(void)
{
    static test_case cases[64];
    int n = read_cases(cases, 64);
    for (int c = 0; c < n; c++) {
        const test_case *tc = &cases[c];
        ct_scope s = ct_scope_begin();
        problem pr;
        problem_init(&pr, tc->dtype);
        ct_optimizer *opt = case_optimizer(tc, &pr);
        for (int step = 0; step < tc->steps / 2; step++) take_step(opt, tc, &pr);
        ct_optim_state *state = ct_optim_state_dict(opt);
        CHECK(state != NULL);
        ct_optim_free(opt);
        /* the fresh optimizer starts from defaults: the state dict brings the options back */
        ct_optimizer *resumed = make_optimizer(tc->kind, pr.p, strcmp(tc->g1spec, "-") ? 1 : 2);
        if (strcmp(tc->g1spec, "-")) CHECK_OK(ct_optim_add_param_group(resumed, (ct_param_group){&pr.p[1], 1, {{0}}}));
        CHECK_OK(ct_optim_load_state_dict(resumed, state));
        ct_optim_state_free(state);
        for (int step = tc->steps / 2; step < tc->steps; step++) take_step(resumed, tc, &pr);
        check_params(tc, &pr, "");
        ct_optim_free(resumed);
        ct_scope_end(s);
    }
}

static void test_param_groups(void)
{
    /* seed 002: optim.SGD([{'params': base}, {'params': classifier, 'lr': 1e-3}], lr=1e-2, momentum=0.9) */
    ct_tensor *base = ct_zeros(CT_SHAPE(2), CT_F32), *classifier = ct_zeros(CT_SHAPE(3), CT_F32);
    ct_requires_grad_(base, true);
    ct_requires_grad_(classifier, true);
    ct_optimizer *opt = ct_sgd(&base, 1, (ct_sgd_opts){.lr = 1e-2, .momentum = 0.9});
    CHECK_OK(ct_optim_add_param_group(opt, (ct_param_group){&classifier, 1, {{"lr", 1e-3}}}));
    CHECK_INT(ct_optim_num_groups(opt), 2);
    CHECK(ct_optim_get(opt, 0, "lr") == 1e-2);
    CHECK(ct_optim_get(opt, 1, "lr") == 1e-3);
    CHECK(ct_optim_get(opt, 1, "momentum") == 0.9);
    CHECK_OK(ct_optim_set(opt, 1, "lr", 0.5));
    CHECK(ct_optim_get(opt, 1, "lr") == 0.5);
    CHECK(ct_optim_get(opt, 0, "lr") == 1e-2);
    /* an update uses each group's own lr */
    ct_set_grad(base, ct_ones(CT_SHAPE(2), CT_F32));
    ct_set_grad(classifier, ct_ones(CT_SHAPE(3), CT_F32));
    CHECK_OK(ct_optim_step(opt));
    CHECK_VALUES(ct_detach(base), CT_SHAPE(2), -0.01f, -0.01f);
    CHECK_VALUES(ct_detach(classifier), CT_SHAPE(3), -0.5, -0.5, -0.5);
    ct_tensor *buf = ct_optim_state_get(opt, base, "momentum_buffer");
    CHECK_VALUES(buf, CT_SHAPE(2), 1, 1);
    ct_optim_free(opt);
}

static void test_three_groups_recipe(void)
{
    /* seed 002: SGD(g0, lr, momentum, nesterov=True); add_param_group({'params': g1,
     * 'weight_decay': wd}); add_param_group({'params': g2}) */
    ct_tensor *g[3];
    for (int i = 0; i < 3; i++) {
        g[i] = ct_ones(CT_SHAPE(2), CT_F32);
        ct_requires_grad_(g[i], true);
    }
    ct_optimizer *opt = ct_sgd(&g[0], 1, (ct_sgd_opts){.lr = 0.01, .momentum = 0.937, .nesterov = true});
    CHECK_OK(ct_optim_add_param_group(opt, (ct_param_group){&g[1], 1, {{"weight_decay", 5e-4}}}));
    CHECK_OK(ct_optim_add_param_group(opt, (ct_param_group){&g[2], 1, {{NULL, 0}}}));
    CHECK(ct_optim_get(opt, 0, "weight_decay") == 0);
    CHECK(ct_optim_get(opt, 1, "weight_decay") == 5e-4);
    CHECK(ct_optim_get(opt, 2, "weight_decay") == 0);
    CHECK(ct_optim_get(opt, 2, "nesterov") == 1);
    for (int i = 0; i < 3; i++) ct_set_grad(g[i], ct_zeros(CT_SHAPE(2), CT_F32));
    CHECK_OK(ct_optim_step(opt));
    /* only group 1 decays: 1 - 0.01 * (5e-4 * 1) * (1 + 0.937) in float32 as PyTorch has it */
    CHECK_VALUES(ct_detach(g[0]), CT_SHAPE(2), 1, 1);
    CHECK(ct_item(ct_index(g[1], "0")) < 1);
    CHECK_VALUES(ct_detach(g[2]), CT_SHAPE(2), 1, 1);
    ct_optim_free(opt);
}

static void test_zero_grad(void)
{
    ct_tensor *x = ct_ones(CT_SHAPE(2), CT_F32);
    ct_requires_grad_(x, true);
    ct_optimizer *opt = ct_adam(&x, 1, ct_adam_opts_init());
    ct_set_grad(x, ct_ones(CT_SHAPE(2), CT_F32));
    ct_tensor *before = ct_grad(x);
    CHECK_OK(ct_optim_zero_grad(opt, false));
    ct_tensor *after = ct_grad(x);
    CHECK(after == before); /* zeroed in place */
    CHECK_VALUES(after, CT_SHAPE(2), 0, 0);
    CHECK_OK(ct_optim_zero_grad(opt, true));
    CHECK(ct_grad(x) == NULL);
    /* a step without gradients changes nothing and starts no state */
    CHECK_OK(ct_optim_step(opt));
    CHECK_VALUES(ct_detach(x), CT_SHAPE(2), 1, 1);
    CHECK_ERR(ct_optim_state_get(opt, x, "exp_avg"), CT_ERR_INDEX, "KeyError: 'exp_avg'");
    ct_optim_free(opt);
}

static void test_step_state_is_float32_counter(void)
{
    ct_tensor *x = ct_ones(CT_SHAPE(2), CT_F32);
    ct_requires_grad_(x, true);
    ct_optimizer *opt = ct_nadam(&x, 1, ct_nadam_opts_init());
    for (int i = 0; i < 3; i++) {
        ct_set_grad(x, ct_ones(CT_SHAPE(2), CT_F32));
        CHECK_OK(ct_optim_step(opt));
    }
    ct_tensor *step = ct_optim_state_get(opt, x, "step");
    CHECK(step && ct_dtype_of(step) == CT_F32 && ct_item(step) == 3);
    ct_optim_free(opt);
}

/* optimizer.step(closure) for a first-order optimizer: the closure runs
 * once, with grad mode on, and its loss comes back */
static ct_result quadratic(double *loss, void *user)
{
    ct_tensor *x = (ct_tensor *)user;
    CHECK(ct_is_grad_enabled());
    ct_set_grad(x, NULL);
    ct_tensor *y = ct_sum(ct_mul(x, x));
    *loss = ct_item(y);
    return ct_backward(y, NULL, (ct_backward_opts){0});
}

static void test_step_with_closure(void)
{
    float v[2] = {1, 2};
    ct_tensor *x = ct_from_array(v, CT_SHAPE(2), CT_F32);
    ct_requires_grad_(x, true);
    ct_optimizer *opt = ct_sgd(&x, 1, (ct_sgd_opts){.lr = 0.25});
    double loss = 0;
    ct_grad_mode m = ct_no_grad();
    CHECK_OK(ct_optim_step_closure(opt, quadratic, x, &loss));
    ct_grad_mode_restore(m);
    CHECK(loss == 5);
    CHECK_VALUES(ct_detach(x), CT_SHAPE(2), 0.5, 1);
    ct_optim_free(opt);
}

int main(void)
{
    RUN(test_trajectories_match_pytorch);
    RUN(test_state_dict_resumes_bit_for_bit);
    RUN(test_param_groups);
    RUN(test_three_groups_recipe);
    RUN(test_zero_grad);
    RUN(test_step_state_is_float32_counter);
    RUN(test_step_with_closure);
    return ct_test_report();
}
