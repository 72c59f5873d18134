/* Learning-rate schedulers against PyTorch 1.13: every case of
 * tests/golden/sched.txt (written with sched.ctg by
 * tests/golden/gen_sched.py) gives the same lrs and momenta, bit for bit,
 * over 120 steps; state dicts resume; the warmup recipe is one call. */
#include "harness.h"

#define STEPS 120

static double l0(int64_t e, void *u) { (void)u; return pow(0.95, (double)e); }
static double l1(int64_t e, void *u) { (void)u; return 1 / ((double)e + 1); }
static double m0(int64_t e, void *u) { (void)u, (void)e; return 0.95; }
static double m1(int64_t e, void *u) { (void)u; return e % 3 == 0 ? 0.5 : 1.0; }

static double metric(int64_t e) { return e < 20 ? 1 / (1 + (double)e) : 0.05 + 0.001 * (double)(e % 3); }

typedef struct sched_case {
    char name[64], opt[16], kind[48];
    double a[16];
    int n;
} sched_case;

static ct_tensor *params[2];

static ct_optimizer *make_optimizer(const char *kind)
{
    params[0] = ct_zeros(CT_SHAPE(2), CT_F32);
    params[1] = ct_zeros(CT_SHAPE(3), CT_F32);
    ct_requires_grad_(params[0], true);
    ct_requires_grad_(params[1], true);
    ct_optimizer *opt;
    if (!strcmp(kind, "Adam")) {
        ct_adam_opts o = ct_adam_opts_init();
        o.lr = 0.01;
        opt = ct_adam(&params[0], 1, o);
        ct_optim_add_param_group(opt, (ct_param_group){&params[1], 1, {{"lr", 0.005}}});
    } else {
        opt = ct_sgd(&params[0], 1, (ct_sgd_opts){.lr = 0.1, .momentum = 0.9});
        ct_optim_add_param_group(opt, (ct_param_group){&params[1], 1, {{"lr", 0.05}}});
    }
    return opt;
}

static ct_lr_scheduler *build(const sched_case *c, ct_optimizer *opt)
{
    const double *a = c->a;
    const char *k = c->kind;
    if (!strcmp(k, "LambdaLR")) {
        ct_lr_lambda fns[2] = {l0, l1};
        return ct_lambda_lr(opt, fns, NULL, (int)a[0]);
    }
    if (!strcmp(k, "MultiplicativeLR")) {
        ct_lr_lambda fns[2] = {m0, m1};
        return ct_multiplicative_lr(opt, fns, NULL, 2);
    }
    if (!strcmp(k, "StepLR")) return ct_step_lr(opt, (int64_t)a[0], a[1]);
    if (!strcmp(k, "MultiStepLR")) {
        int64_t m[8];
        for (int i = 1; i < c->n; i++) m[i - 1] = (int64_t)a[i];
        return ct_multi_step_lr(opt, m, c->n - 1, a[0]);
    }
    if (!strcmp(k, "ConstantLR")) return ct_constant_lr(opt, a[0], (int64_t)a[1]);
    if (!strcmp(k, "LinearLR")) return ct_linear_lr(opt, a[0], a[1], (int64_t)a[2]);
    if (!strcmp(k, "ExponentialLR")) return ct_exponential_lr(opt, a[0]);
    if (!strcmp(k, "PolynomialLR")) return ct_polynomial_lr(opt, (int64_t)a[0], a[1]);
    if (!strcmp(k, "CosineAnnealingLR")) return ct_cosine_annealing_lr(opt, (int64_t)a[0], a[1]);
    if (!strcmp(k, "CosineAnnealingWarmRestarts"))
        return ct_cosine_annealing_warm_restarts(opt, (int64_t)a[0], (int64_t)a[1], a[2]);
    if (!strcmp(k, "CyclicLR")) {
        ct_cyclic_lr_opts o = ct_cyclic_lr_opts_init();
        o.base_lr = a[0], o.max_lr = a[1], o.step_size_up = (int64_t)a[2], o.step_size_down = (int64_t)a[3];
        o.mode = (ct_cyclic_mode)(int)a[4], o.gamma = a[5], o.cycle_momentum = a[6] != 0;
        o.base_momentum = a[7], o.max_momentum = a[8];
        return ct_cyclic_lr(opt, o);
    }
    if (!strcmp(k, "OneCycleLR")) {
        ct_one_cycle_lr_opts o = ct_one_cycle_lr_opts_init();
        o.max_lr = a[0], o.total_steps = (int64_t)a[1], o.pct_start = a[2];
        o.anneal_linear = a[3] != 0, o.three_phase = a[4] != 0;
        return ct_one_cycle_lr(opt, o);
    }
    if (!strcmp(k, "ReduceLROnPlateau")) {
        ct_plateau_opts o = {a[0] != 0, a[1], (int64_t)a[2], a[3], a[4] != 0, (int64_t)a[5], a[6], a[7]};
        return ct_reduce_lr_on_plateau(opt, o);
    }
    if (!strcmp(k, "Sequential2")) {
        ct_lr_scheduler *s[2] = {ct_constant_lr(opt, a[0], (int64_t)a[1]), ct_exponential_lr(opt, a[2])};
        int64_t m = (int64_t)a[3];
        return ct_sequential_lr(opt, s, 2, &m);
    }
    if (!strcmp(k, "Sequential3")) {
        ct_lr_scheduler *s[3] = {ct_linear_lr(opt, 0.2, 1.0, 10), ct_cosine_annealing_lr(opt, 30, 0.001),
                                 ct_step_lr(opt, 10, 0.5)};
        int64_t m[2] = {10, 50};
        return ct_sequential_lr(opt, s, 3, m);
    }
    if (!strcmp(k, "WarmupCosine")) return ct_warmup_cosine_lr(opt, (int64_t)a[0], (int64_t)a[1], a[2], a[3]);
    if (!strcmp(k, "Chained")) {
        ct_lr_scheduler *s[2] = {ct_constant_lr(opt, 0.1, 10), ct_exponential_lr(opt, 0.95)};
        return ct_chained_scheduler(s, 2);
    }
    return NULL;
}

static int read_cases(sched_case *cases, int max)
{
    FILE *f = fopen("tests/golden/sched.txt", "r");
    char line[512], args[256];
    int n = 0;
    CHECK(f != NULL);
    while (f && n < max && fgets(line, sizeof line, f)) {
        sched_case *c = &cases[n];
        args[0] = 0;
        if (sscanf(line, "%63[^|]|%15[^|]|%47[^|]|%255[^\n]", c->name, c->opt, c->kind, args) < 3) continue;
        c->n = 0;
        for (char *t = strtok(args, ","); t && c->n < 16; t = strtok(NULL, ",")) c->a[c->n++] = atof(t);
        n++;
    }
    if (f) fclose(f);
    return n;
}

/* Whether case c runs in this build: on Windows not the cases whose
 * goldens hold glibc's last bits of pow, which mingw-w64's pow does not
 * give: LambdaLR's (l0's pow(0.95, e), Python's 0.95 ** e) and CyclicLR's
 * exp_range (gamma ** iterations); reported skipped. */
static bool runs_here(const sched_case *c)
{
#ifdef _WIN32
    bool exp_range = !strcmp(c->kind, "CyclicLR") && (ct_cyclic_mode)(int)c->a[4] == CT_CYCLIC_EXP_RANGE;
    if (!strcmp(c->kind, "LambdaLR") || exp_range) {
        ct_test_skip(c->name, "its goldens hold glibc's last bits of pow");
        return false;
    }
#else
    (void)c;
#endif
    return true;
}

static bool is_plateau(const sched_case *c) { return !strcmp(c->kind, "ReduceLROnPlateau"); }

/* row e of the golden lrs and momenta against the scheduler's and the groups' */
static void check_row(const sched_case *c, ct_lr_scheduler *s, ct_optimizer *opt, int e)
{
    char name[96];
    snprintf(name, sizeof name, "%s_lr", c->name);
    const ct_tensor *lr = golden("sched", name);
    snprintf(name, sizeof name, "%s_mom", c->name);
    const ct_tensor *mom = golden("sched", name);
    if (!lr || !mom) return;
    const double *want = (const double *)ct_data_ptr(ct_cpu(lr)) + 2 * e, *want_mom = (const double *)ct_data_ptr(ct_cpu(mom)) + 2 * e;
    double got[2] = {ct_optim_get(opt, 0, "lr"), ct_optim_get(opt, 1, "lr")};
    if (!is_plateau(c) || e > 0) CHECK_INT(ct_lr_scheduler_get_last_lr(s, got, 2), 2);
    const char *key = !strcmp(c->opt, "Adam") ? "beta1" : "momentum";
    for (int g = 0; g < 2; g++) {
        if (got[g] != want[g])
            ct_test_fail(__FILE__, __LINE__, "%s step %d group %d: lr %.17g, expected %.17g", c->name, e, g, got[g], want[g]);
        double m = ct_optim_get(opt, g, key);
        if (m != want_mom[g])
            ct_test_fail(__FILE__, __LINE__, "%s step %d group %d: %s %.17g, expected %.17g", c->name, e, g, key, m,
                         want_mom[g]);
    }
}

static ct_result step(const sched_case *c, ct_lr_scheduler *s, int e)
{
    return is_plateau(c) ? ct_lr_scheduler_step_metric(s, metric(e)) : ct_lr_scheduler_step(s);
}

static void test_sequences_match_pytorch(void)
{
    static sched_case cases[64];
    int n = read_cases(cases, 64);
    CHECK(n >= 26);
    for (int i = 0; i < n; i++) {
        const sched_case *c = &cases[i];
        if (!runs_here(c)) continue;
        ct_optimizer *opt = make_optimizer(c->opt);
        ct_lr_scheduler *s = build(c, opt);
        if (!s) {
            ct_test_fail(__FILE__, __LINE__, "%s: %s", c->name, ct_last_error());
        } else {
            check_row(c, s, opt, 0);
            for (int e = 0; e < STEPS; e++) {
                CHECK_OK(step(c, s, e));
                check_row(c, s, opt, e + 1);
            }
        }
        ct_lr_scheduler_free(s);
        ct_optim_free(opt);
    }
}

/* Half the steps, a state dict (with the optimizer's), fresh objects that
 * load both, the rest: PyTorch's numbers still. */
static void test_state_dict_resumes(void)
{
    static sched_case cases[64];
    int n = read_cases(cases, 64);
    for (int i = 0; i < n; i++) {
        const sched_case *c = &cases[i];
        if (!runs_here(c)) continue;
        ct_optimizer *opt = make_optimizer(c->opt);
        ct_lr_scheduler *s = build(c, opt);
        for (int e = 0; s && e < STEPS / 2; e++) step(c, s, e);
        ct_optim_state *ostate = ct_optim_state_dict(opt);
        ct_lr_scheduler_state *sstate = ct_lr_scheduler_state_dict(s);
        ct_lr_scheduler_free(s);
        ct_optim_free(opt);

        opt = make_optimizer(c->opt);
        s = build(c, opt);
        CHECK_OK(ct_optim_load_state_dict(opt, ostate));
        CHECK_OK(ct_lr_scheduler_load_state_dict(s, sstate));
        ct_optim_state_free(ostate);
        ct_lr_scheduler_state_free(sstate);
        for (int e = STEPS / 2; s && e < STEPS; e++) {
            CHECK_OK(step(c, s, e));
            check_row(c, s, opt, e + 1);
        }
        ct_lr_scheduler_free(s);
        ct_optim_free(opt);
    }
}

static void test_last_epoch_and_initial_lr(void)
{
    ct_optimizer *opt = make_optimizer("SGD");
    ct_lr_scheduler *s = ct_step_lr(opt, 3, 0.1);
    CHECK_INT(ct_lr_scheduler_last_epoch(s), 0);
    CHECK(ct_optim_get(opt, 1, "initial_lr") == 0.05);
    ct_lr_scheduler_step(s);
    CHECK_INT(ct_lr_scheduler_last_epoch(s), 1);
    /* a scheduler changes what the optimizer reads at run time */
    CHECK_OK(ct_optim_set(opt, 0, "lr", 0.3));
    ct_lr_scheduler_step(s);
    ct_lr_scheduler_step(s);
    CHECK_NEAR(ct_optim_get(opt, 0, "lr"), 0.03, 1e-17);
    ct_lr_scheduler_free(s);
    ct_optim_free(opt);
}

int main(void)
{
    RUN(test_sequences_match_pytorch);
    RUN(test_state_dict_resumes);
    RUN(test_last_epoch_and_initial_lr);
    return ct_test_report();
}
