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
    problem_init(pr, tc->dtype);
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

/* Every rule follows PyTorch op for op: the parameters agree bit for bit.
 * Except float32 LBFGS: PyTorch's float32 dot product is the system BLAS's
 * sdot, whose summation order depends on the BLAS installed (OpenBLAS and
 * the reference BLAS give different bits on the same machine); the golden
 * data came from OpenBLAS, and a last-bit difference in a dot product moves
 * the trajectory by a few ulps. (Before its scalars were rounded as
 * PyTorch's float32 tensors, it was thousands of ulps off.) */
static void check_params(const test_case *tc, const problem *pr, const char *when)
{
    char name[96];
    int max_ulps = !strcmp(tc->kind, "LBFGS") && !strcmp(tc->dtype, "f32") ? 4 : 0;
    for (int i = 0; i < 2; i++) {
        snprintf(name, sizeof name, "%s%s_p%d", tc->name, when, i);
        const ct_tensor *want = golden("optim", name);
        ct_tensor *got = ct_detach(pr->p[i]);
        if (want) ct_test_check_tensor(__FILE__, __LINE__, name, got, want, max_ulps);
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

/* Steps [from, to) of a case, each in its own scope; the parameters are
 * checked after half the steps when that falls in the range. */
static void take_steps(ct_optimizer *opt, const test_case *tc, problem *pr, int from, int to)
{
    for (int step = from; opt && step < to; step++) {
        ct_scope inner = ct_scope_begin();
        take_step(opt, tc, pr);
        ct_scope_end(inner);
        if (step + 1 == tc->steps / 2) check_params(tc, pr, "_mid");
    }
}

static void test_trajectories_match_pytorch(void)
{
    static test_case cases[64];
    int n = read_cases(cases, 64);
    CHECK(n >= 41);
    for (int c = 0; c < n; c++) {
        const test_case *tc = &cases[c];
        ct_scope s = ct_scope_begin();
        problem pr;
        ct_optimizer *opt = case_optimizer(tc, &pr);
        take_steps(opt, tc, &pr, 0, tc->steps);
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
        ct_optimizer *opt = case_optimizer(tc, &pr);
        take_steps(opt, tc, &pr, 0, tc->steps / 2);
        ct_optim_state *state = ct_optim_state_dict(opt);
        CHECK(state != NULL);
        ct_optim_free(opt);
        /* the fresh optimizer starts from defaults: the state dict brings the options back */
        ct_optimizer *resumed = make_optimizer(tc->kind, pr.p, strcmp(tc->g1spec, "-") ? 1 : 2);
        if (strcmp(tc->g1spec, "-")) CHECK_OK(ct_optim_add_param_group(resumed, (ct_param_group){&pr.p[1], 1, {{0}}}));
        CHECK_OK(ct_optim_load_state_dict(resumed, state));
        ct_optim_state_free(state);
        take_steps(resumed, tc, &pr, tc->steps / 2, tc->steps);
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
    CHECK_ERR(ct_optim_state_get(opt, x, "exp_avg"), CT_ERR_INDEX, "'exp_avg'");
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

/* clip_grad_norm_ and clip_grad_value_ against PyTorch (golden clip_*). */
static void test_clipping_matches_pytorch(void)
{
    static const char *const tags[] = {"1", "2", "inf", "3", "half"};
    static const double ps[] = {1, 2, INFINITY, 3, 0.5};
    for (int t = 0; t < 5; t++)
        for (int big = 0; big < 2; big++) {
            char name[64];
            ct_tensor *p[2];
            for (int i = 0; i < 2; i++) {
                snprintf(name, sizeof name, "clip_g%d", i);
                p[i] = ct_zeros_like(golden("optim", name), CT_DEFAULT);
                ct_requires_grad_(p[i], true);
                ct_set_grad(p[i], ct_clone(golden("optim", name)));
            }
            ct_tensor *total = ct_clip_grad_norm_(p, 2, big ? 100.0 : 1.0, ps[t], false);
            snprintf(name, sizeof name, "clip_%s_%d_total", tags[t], big ? 100 : 1);
            CHECK_TENSOR(total, golden("optim", name), 0);
            for (int i = 0; i < 2; i++) {
                snprintf(name, sizeof name, "clip_%s_%d_g%d", tags[t], big ? 100 : 1, i);
                CHECK_TENSOR(ct_grad(p[i]), golden("optim", name), 0);
            }
        }
    ct_tensor *p[2];
    for (int i = 0; i < 2; i++) {
        p[i] = ct_zeros_like(golden("optim", i ? "clip_g1" : "clip_g0"), CT_DEFAULT);
        ct_requires_grad_(p[i], true);
        ct_set_grad(p[i], ct_clone(golden("optim", i ? "clip_g1" : "clip_g0")));
    }
    CHECK_OK(ct_clip_grad_value_(p, 2, 0.5));
    CHECK_TENSOR(ct_grad(p[0]), golden("optim", "clip_value_g0"), 0);
    CHECK_TENSOR(ct_grad(p[1]), golden("optim", "clip_value_g1"), 0);
    /* no gradients: a zero norm */
    ct_tensor *bare = ct_zeros(CT_SHAPE(2), CT_F32);
    CHECK_VALUES(ct_clip_grad_norm_(&bare, 1, 1.0, 2, false), CT_SHAPE0, 0);
}

static void test_parameters_to_vector(void)
{
    ct_tensor *p[2] = {ct_from_array((float[]){1, 2, 3, 4}, CT_SHAPE(2, 2), CT_F32),
                       ct_from_array((float[]){5}, CT_SHAPE(1), CT_F32)};
    ct_tensor *v = ct_parameters_to_vector(p, 2);
    CHECK_VALUES(v, CT_SHAPE(5), 1, 2, 3, 4, 5);
    CHECK_OK(ct_vector_to_parameters(ct_mul_scalar(v, ct_int(2)), p, 2));
    CHECK_VALUES(p[0], CT_SHAPE(2, 2), 2, 4, 6, 8);
    CHECK_VALUES(p[1], CT_SHAPE(1), 10);
}

/* vector_to_parameters rebinds param.data to views of the vector: the
 * parameters share its storage and take its dtype, and stay the same
 * leaves with their requires_grad and .grad. */
static void test_vector_to_parameters_views(void)
{
    ct_tensor *p[2] = {ct_zeros(CT_SHAPE(2), CT_F32), ct_zeros(CT_SHAPE(2, 2), CT_F32)};
    ct_requires_grad_(p[0], true);
    CHECK_OK(ct_set_grad(p[0], ct_ones(CT_SHAPE(2), CT_F32)));
    ct_tensor *old = ct_mul_scalar(p[0], ct_int(2)); /* a graph holding p[0]'s AccumulateGrad */
    ct_tensor *vec = ct_arange(ct_int(0), ct_int(7), ct_int(1), CT_F64); /* longer than the parameters */
    CHECK_OK(ct_vector_to_parameters(vec, p, 2));
    CHECK_VALUES(p[0], CT_SHAPE(2), 0, 1);
    CHECK_VALUES(p[1], CT_SHAPE(2, 2), 2, 3, 4, 5);
    CHECK(ct_dtype_of(p[0]) == CT_F64 && ct_is_leaf(p[0]) && ct_requires_grad(p[0]));
    CHECK_VALUES(ct_grad(p[0]), CT_SHAPE(2), 1, 1);
    CHECK_OK(ct_add_scalar_(vec, ct_int(10)));
    CHECK_VALUES(p[1], CT_SHAPE(2, 2), 12, 13, 14, 15);
    ct_grad_mode mode = ct_no_grad();
    CHECK_OK(ct_fill_(p[0], ct_int(-1)));
    ct_grad_mode_restore(mode);
    CHECK_VALUES(ct_narrow(vec, 0, 0, 3), CT_SHAPE(3), -1, -1, 12);
    /* new graphs accumulate into the leaf in its new dtype; the old one still reaches it */
    CHECK_OK(ct_set_grad(p[0], NULL));
    CHECK_OK(ct_backward(ct_sum(ct_mul(p[0], p[0])), NULL, (ct_backward_opts){0}));
    CHECK(ct_dtype_of(ct_grad(p[0])) == CT_F64);
    CHECK_VALUES(ct_grad(p[0]), CT_SHAPE(2), -2, -2);
    CHECK_OK(ct_backward(ct_sum(old), NULL, (ct_backward_opts){0}));
    CHECK_VALUES(ct_grad(p[0]), CT_SHAPE(2), 0, 0);
    /* dim 0 is sliced: a (4, 1) vector gives (2, 1) pieces viewed as the parameters */
    ct_tensor *col = ct_reshape(ct_arange(ct_int(0), ct_int(4), ct_int(1), CT_F32), CT_SHAPE(4, 1));
    ct_tensor *q[2] = {ct_zeros(CT_SHAPE(2), CT_F32), ct_zeros(CT_SHAPE(2), CT_F32)};
    CHECK_OK(ct_vector_to_parameters(col, q, 2));
    CHECK_VALUES(q[1], CT_SHAPE(2), 2, 3);
}

/* GradScaler's update rule: growth after growth_interval clean steps,
 * backoff and a skipped step after an inf. */
static void test_grad_scaler_skips_and_rescales(void)
{
    ct_grad_scaler_opts o = ct_grad_scaler_opts_init();
    o.growth_interval = 2;
    ct_grad_scaler *scaler = ct_grad_scaler_new(o);
    ct_tensor *x = ct_ones(CT_SHAPE(2), CT_F32);
    ct_requires_grad_(x, true);
    ct_optimizer *opt = ct_sgd(&x, 1, (ct_sgd_opts){.lr = 0.5});
    CHECK(ct_grad_scaler_get_scale(scaler) == 65536);
    const double want_scale[4] = {65536, 131072, 65536, 65536};
    const double want_x[4] = {0.5, 0, 0, -0.5};
    for (int i = 0; i < 4; i++) {
        ct_optim_zero_grad(opt, true);
        ct_tensor *loss = ct_sum(x);
        if (i == 2) loss = ct_mul_scalar(loss, ct_float(INFINITY)); /* an overflow */
        CHECK_OK(ct_backward(ct_grad_scaler_scale(scaler, loss), NULL, (ct_backward_opts){0}));
        bool stepped;
        CHECK_OK(ct_grad_scaler_step(scaler, opt, &stepped));
        CHECK(stepped == (i != 2));
        CHECK_OK(ct_grad_scaler_update(scaler));
        CHECK(ct_grad_scaler_get_scale(scaler) == want_scale[i]);
        CHECK(ct_item(ct_index(x, "0")) == want_x[i]);
    }
    ct_grad_scaler_state st = ct_grad_scaler_state_dict(scaler);
    CHECK(st.scale == 65536 && st.growth_tracker == 1 && st.growth_interval == 2 && st.growth_factor == 2);
    ct_grad_scaler *copy = ct_grad_scaler_new(ct_grad_scaler_opts_init());
    ct_grad_scaler_scale(copy, x);
    CHECK_OK(ct_grad_scaler_load_state_dict(copy, st));
    CHECK(ct_grad_scaler_get_scale(copy) == 65536 && ct_grad_scaler_state_dict(copy).growth_tracker == 1);
    /* disabled: scale() passes through, step() is a plain step */
    o.enabled = false;
    ct_grad_scaler *off = ct_grad_scaler_new(o);
    CHECK(ct_grad_scaler_scale(off, x) != NULL && ct_grad_scaler_get_scale(off) == 1.0);
    ct_grad_scaler_free(off);
    ct_grad_scaler_free(copy);
    ct_grad_scaler_free(scaler);
    ct_optim_free(opt);
}

/* Seed 002's loop: SGD, ExponentialLR(gamma=0.9) stepped per epoch, and
 * clip_grad_norm_(max_norm=5) before each step. */
static void test_seed_training_loop(void)
{
    ct_manual_seed(0);
    ct_tensor *w = ct_randn(CT_SHAPE(2, 2), CT_F32, NULL); /* [Parameter(torch.randn(2, 2))] */
    ct_requires_grad_(w, true);
    ct_optimizer *optimizer = ct_sgd(&w, 1, (ct_sgd_opts){.lr = 0.1});
    ct_lr_scheduler *scheduler = ct_exponential_lr(optimizer, 0.9);
    double first = 0, last = 0;
    for (int epoch = 0; epoch < 20; epoch++) {
        for (int batch = 0; batch < 3; batch++) {
            ct_scope s = ct_scope_begin();
            ct_optim_zero_grad(optimizer, true);
            ct_tensor *loss = ct_sum(ct_mul(w, w)); /* loss_fn(model(input), target) */
            double value = ct_item(loss);
            if (epoch == 0 && batch == 0) first = value;
            last = value;
            CHECK_OK(ct_backward(loss, NULL, (ct_backward_opts){0}));
            CHECK_T(ct_clip_grad_norm_(&w, 1, 5., 2, false));
            CHECK_OK(ct_optim_step(optimizer));
            ct_scope_end(s);
        }
        CHECK_OK(ct_lr_scheduler_step(scheduler));
    }
    double lr;
    ct_lr_scheduler_get_last_lr(scheduler, &lr, 1);
    CHECK(lr == ct_optim_get(optimizer, 0, "lr"));
    CHECK_NEAR(lr, 0.1 * pow(0.9, 20), 1e-15);
    CHECK(last < first * 1e-3);
    ct_lr_scheduler_free(scheduler);
    ct_optim_free(optimizer);
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
    RUN(test_clipping_matches_pytorch);
    RUN(test_parameters_to_vector);
    RUN(test_vector_to_parameters_views);
    RUN(test_grad_scaler_skips_and_rescales);
    RUN(test_seed_training_loop);
    return ct_test_report();
}
