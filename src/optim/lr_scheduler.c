/* Learning-rate schedulers: torch.optim.lr_scheduler of PyTorch 1.13, with
 * its recursive (chainable) get_lr forms, its closed forms where
 * SequentialLR asks for them (step(0) at a milestone), and their quirks. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum ct__sched_kind {
    CT__S_LAMBDA,
    CT__S_MULTIPLICATIVE,
    CT__S_STEP,
    CT__S_MULTI_STEP,
    CT__S_CONSTANT,
    CT__S_LINEAR,
    CT__S_EXPONENTIAL,
    CT__S_POLYNOMIAL,
    CT__S_COSINE,
    CT__S_WARM_RESTARTS,
    CT__S_CYCLIC,
    CT__S_ONE_CYCLE,
    CT__S_SEQUENTIAL,
    CT__S_CHAINED,
    CT__S_PLATEAU
} ct__sched_kind;

/* Per-group numbers, each an array of n_groups in one block. */
enum { CT__A_BASE_LR, CT__A_LAST_LR, CT__A_MAX_LR, CT__A_BASE_MOM, CT__A_MAX_MOM, CT__A_MIN_LR, CT__A_COUNT };

/* One phase of OneCycleLR: where it ends and the group keys it anneals between. */
typedef struct ct__phase {
    double end_step;
    int start_lr, end_lr;   /* CT__K_INITIAL_LR, CT__K_MAX_LR or CT__K_MIN_LR */
    int start_mom, end_mom; /* CT__A_BASE_MOM or CT__A_MAX_MOM */
} ct__phase;

static ct__phase ct__phase_make(double end_step, int start_lr, int end_lr, int start_mom, int end_mom)
{
    ct__phase ph;
    ph.end_step = end_step, ph.start_lr = start_lr, ph.end_lr = end_lr, ph.start_mom = start_mom, ph.end_mom = end_mom;
    return ph;
}

struct ct_lr_scheduler {
    ct__sched_kind kind;
    ct_optimizer *opt;
    int n_groups;
    int64_t last_epoch, step_count;
    bool has_last_lr;
    double *a; /* CT__A_COUNT arrays of n_groups */
    /* the kinds' parameters */
    ct_lr_lambda *fns;
    void **users;
    int64_t step_size, total_iters, T_0, T_i, T_mult, total_steps;
    double T_cur, gamma, factor, start_factor, end_factor, power, eta_min, T_max;
    int64_t *milestones;
    int n_milestones;
    double total_size, step_ratio;
    ct_cyclic_mode mode;
    bool cycle_momentum, use_beta1, anneal_linear;
    ct__phase phases[3];
    int n_phases;
    ct_plateau_opts plateau;
    double best;
    int64_t num_bad_epochs, cooldown_counter;
    ct_lr_scheduler **children;
    int n_children;
};

/* math.pi */
#define CT__PI 3.141592653589793

#define CT__ARR(s, k) ((s)->a + (size_t)(k) * (size_t)(s)->n_groups)

static double ct__group_lr(const ct_lr_scheduler *s, int g) { return s->opt->groups[g].v[CT__K_LR]; }

static void ct__set_lr(ct_lr_scheduler *s, int g, double lr)
{
    s->opt->groups[g].v[CT__K_LR] = lr;
}

static void ct__record_last_lr(ct_lr_scheduler *s)
{
    for (int g = 0; g < s->n_groups; g++) CT__ARR(s, CT__A_LAST_LR)[g] = ct__group_lr(s, g);
    s->has_last_lr = true;
}

void ct_lr_scheduler_free(ct_lr_scheduler *s)
{
    if (!s) return;
    for (int i = 0; i < s->n_children; i++) ct_lr_scheduler_free(s->children[i]);
    CT_FREE(s->children);
    CT_FREE(s->a);
    CT_FREE(s->fns);
    CT_FREE(s->users);
    CT_FREE(s->milestones);
    CT_FREE(s);
}

static ct_lr_scheduler *ct__sched_alloc(ct__sched_kind kind, ct_optimizer *opt)
{
    if (!opt) {
        ct__fail(CT_ERR_TYPE, "NoneType is not an Optimizer");
        return NULL;
    }
    ct_lr_scheduler *s = (ct_lr_scheduler *)CT_MALLOC(sizeof *s);
    size_t n = (size_t)CT__A_COUNT * (size_t)opt->n_groups;
    double *a = (double *)CT_MALLOC(n * sizeof *a);
    if (!s || !a) {
        CT_FREE(s);
        CT_FREE(a);
        CT__OOM();
        return NULL;
    }
    memset(s, 0, sizeof *s);
    memset(a, 0, n * sizeof *a);
    s->kind = kind;
    s->opt = opt;
    s->n_groups = opt->n_groups;
    s->a = a;
    s->last_epoch = -1;
    return s;
}

/* ---------------------------------------------------------------- get_lr */

static double ct__cyclic_scale(const ct_lr_scheduler *s, double cycle)
{
    switch (s->mode) {
    case CT_CYCLIC_TRIANGULAR2: return 1 / pow(2., cycle - 1);
    case CT_CYCLIC_EXP_RANGE: return pow(s->gamma, (double)s->last_epoch);
    default: return 1.;
    }
}

static void ct__cyclic_lr(ct_lr_scheduler *s, double *lrs)
{
    double cycle = floor(1 + (double)s->last_epoch / s->total_size);
    double x = 1. + (double)s->last_epoch / s->total_size - cycle;
    double scale_factor = x <= s->step_ratio ? x / s->step_ratio : (x - 1) / (s->step_ratio - 1);
    double scale = ct__cyclic_scale(s, cycle);
    for (int g = 0; g < s->n_groups; g++) {
        double base_height = (CT__ARR(s, CT__A_MAX_LR)[g] - CT__ARR(s, CT__A_BASE_LR)[g]) * scale_factor;
        lrs[g] = CT__ARR(s, CT__A_BASE_LR)[g] + base_height * scale;
    }
    for (int g = 0; s->cycle_momentum && g < s->n_groups; g++) {
        double base_height = (CT__ARR(s, CT__A_MAX_MOM)[g] - CT__ARR(s, CT__A_BASE_MOM)[g]) * scale_factor;
        s->opt->groups[g].v[CT__K_MOMENTUM] = CT__ARR(s, CT__A_MAX_MOM)[g] - base_height * scale;
    }
}

static double ct__anneal(const ct_lr_scheduler *s, double start, double end, double pct)
{
    if (s->anneal_linear) return (end - start) * pct + start;
    double cos_out = cos(CT__PI * pct) + 1;
    return end + (start - end) / 2.0 * cos_out;
}

static ct_result ct__one_cycle_lr(ct_lr_scheduler *s, double *lrs)
{
    double step_num = (double)s->last_epoch;
    if (s->last_epoch > s->total_steps)
        return ct__fail(CT_ERR_VALUE, "Tried to step %lld times. The specified number of total steps is %lld",
                        (long long)(s->last_epoch + 1), (long long)s->total_steps);
    for (int g = 0; g < s->n_groups; g++) {
        const double *v = s->opt->groups[g].v;
        double start_step = 0;
        for (int i = 0; i < s->n_phases; i++) {
            const ct__phase *ph = &s->phases[i];
            if (step_num <= ph->end_step || i == s->n_phases - 1) {
                double pct = (step_num - start_step) / (ph->end_step - start_step);
                lrs[g] = ct__anneal(s, v[ph->start_lr], v[ph->end_lr], pct);
                if (s->cycle_momentum) {
                    double m = ct__anneal(s, CT__ARR(s, ph->start_mom)[g], CT__ARR(s, ph->end_mom)[g], pct);
                    s->opt->groups[g].v[s->use_beta1 ? CT__K_BETA1 : CT__K_MOMENTUM] = m;
                }
                break;
            }
            start_step = ph->end_step;
        }
    }
    return CT_OK;
}

static int64_t ct__milestone_count(const ct_lr_scheduler *s, int64_t epoch)
{
    int64_t n = 0;
    for (int i = 0; i < s->n_milestones; i++) n += s->milestones[i] == epoch;
    return n;
}

/* The chainable form: each lr from the group's current one (or from base_lrs). */
static ct_result ct__get_lr(ct_lr_scheduler *s, double *lrs)
{
    int64_t e = s->last_epoch;
    double de = (double)e;
    for (int g = 0; g < s->n_groups; g++) {
        double lr = ct__group_lr(s, g), base_lr = CT__ARR(s, CT__A_BASE_LR)[g];
        switch (s->kind) {
        case CT__S_LAMBDA: lr = base_lr * s->fns[g](e, s->users[g]); break;
        case CT__S_MULTIPLICATIVE:
            if (e > 0) lr = lr * s->fns[g](e, s->users[g]);
            break;
        case CT__S_STEP:
            if (e != 0 && s->step_size == 0) return ct__fail(CT_ERR_VALUE, "integer division or modulo by zero");
            if (e != 0 && e % s->step_size == 0) lr = lr * s->gamma;
            break;
        case CT__S_MULTI_STEP:
            if (ct__milestone_count(s, e)) lr = lr * pow(s->gamma, (double)ct__milestone_count(s, e));
            break;
        case CT__S_CONSTANT:
            if (e == 0) lr = lr * s->factor;
            else if (e == s->total_iters) lr = lr * (1.0 / s->factor);
            break;
        case CT__S_LINEAR:
            if (e == 0) lr = lr * s->start_factor;
            else if (e <= s->total_iters)
                lr = lr * (1. + (s->end_factor - s->start_factor) /
                                    ((double)s->total_iters * s->start_factor +
                                     (de - 1) * (s->end_factor - s->start_factor)));
            break;
        case CT__S_EXPONENTIAL:
            if (e != 0) lr = lr * s->gamma;
            break;
        case CT__S_POLYNOMIAL:
            if (e != 0 && e <= s->total_iters) {
                double ti = (double)s->total_iters;
                lr = lr * pow((1.0 - de / ti) / (1.0 - (de - 1) / ti), s->power);
            }
            break;
        case CT__S_COSINE:
            if (e == 0) break;
            if (s->step_count == 1 && e > 0)
                lr = s->eta_min + (base_lr - s->eta_min) * (1 + cos(de * CT__PI / s->T_max)) / 2;
            else if (fmod(de - 1 - s->T_max, 2 * s->T_max) == 0)
                lr = lr + (base_lr - s->eta_min) * (1 - cos(CT__PI / s->T_max)) / 2;
            else
                lr = (1 + cos(CT__PI * de / s->T_max)) / (1 + cos(CT__PI * (de - 1) / s->T_max)) * (lr - s->eta_min) +
                     s->eta_min;
            break;
        case CT__S_WARM_RESTARTS:
            lr = s->eta_min + (base_lr - s->eta_min) * (1 + cos(CT__PI * s->T_cur / (double)s->T_i)) / 2;
            break;
        default: break;
        }
        lrs[g] = lr;
    }
    if (s->kind == CT__S_CYCLIC) ct__cyclic_lr(s, lrs);
    if (s->kind == CT__S_ONE_CYCLE) return ct__one_cycle_lr(s, lrs);
    return CT_OK;
}

/* The closed form, for step(epoch); kinds without one use get_lr. */
static ct_result ct__closed_form_lr(ct_lr_scheduler *s, double *lrs)
{
    double e = (double)s->last_epoch;
    for (int g = 0; g < s->n_groups; g++) {
        double base_lr = CT__ARR(s, CT__A_BASE_LR)[g];
        switch (s->kind) {
        case CT__S_STEP:
            if (s->step_size == 0) return ct__fail(CT_ERR_VALUE, "integer division or modulo by zero");
            lrs[g] = base_lr * pow(s->gamma, floor(e / (double)s->step_size));
            break;
        case CT__S_MULTI_STEP: {
            int64_t passed = 0;
            for (int i = 0; i < s->n_milestones; i++) passed += s->milestones[i] <= s->last_epoch;
            lrs[g] = base_lr * pow(s->gamma, (double)passed);
            break;
        }
        case CT__S_CONSTANT:
            lrs[g] = base_lr * (s->factor + (double)(s->last_epoch >= s->total_iters) * (1 - s->factor));
            break;
        case CT__S_LINEAR: {
            double m = (double)(s->total_iters < s->last_epoch ? s->total_iters : s->last_epoch);
            lrs[g] = base_lr * (s->start_factor + (s->end_factor - s->start_factor) * m / (double)s->total_iters);
            break;
        }
        case CT__S_EXPONENTIAL: lrs[g] = base_lr * pow(s->gamma, e); break;
        case CT__S_POLYNOMIAL: {
            double m = (double)(s->total_iters < s->last_epoch ? s->total_iters : s->last_epoch);
            lrs[g] = base_lr * pow(1.0 - m / (double)s->total_iters, s->power);
            break;
        }
        case CT__S_COSINE:
            lrs[g] = s->eta_min + (base_lr - s->eta_min) * (1 + cos(CT__PI * e / s->T_max)) / 2;
            break;
        default: return ct__get_lr(s, lrs);
        }
    }
    return CT_OK;
}

/* ---------------------------------------------------------------- stepping */

static ct_result ct__apply_lrs(ct_lr_scheduler *s, ct_result (*get)(ct_lr_scheduler *, double *))
{
    double stack[16], *lrs = s->n_groups <= 16 ? stack : (double *)CT_MALLOC((size_t)s->n_groups * sizeof *lrs);
    if (!lrs) return CT__OOM();
    ct_result r = get(s, lrs);
    for (int g = 0; r == CT_OK && g < s->n_groups; g++) ct__set_lr(s, g, lrs[g]);
    if (lrs != stack) CT_FREE(lrs);
    if (r == CT_OK) ct__record_last_lr(s);
    return r;
}

/* CosineAnnealingWarmRestarts.step(epoch) (epoch < 0: the next one). */
static ct_result ct__warm_restarts_step(ct_lr_scheduler *s, int64_t epoch)
{
    if (epoch < 0 && s->last_epoch < 0) epoch = 0;
    if (epoch < 0) {
        epoch = s->last_epoch + 1;
        s->T_cur = s->T_cur + 1;
        if (s->T_cur >= (double)s->T_i) {
            s->T_cur = s->T_cur - (double)s->T_i;
            s->T_i = s->T_i * s->T_mult;
        }
    } else if (epoch >= s->T_0) {
        if (s->T_mult == 1) {
            s->T_cur = (double)(epoch % s->T_0);
        } else {
            double n = floor(log((double)epoch / (double)s->T_0 * (double)(s->T_mult - 1) + 1) / log((double)s->T_mult));
            s->T_cur = (double)epoch - (double)s->T_0 * (pow((double)s->T_mult, n) - 1) / (double)(s->T_mult - 1);
            s->T_i = s->T_0 * (int64_t)pow((double)s->T_mult, n);
        }
    } else {
        s->T_i = s->T_0;
        s->T_cur = (double)epoch;
    }
    s->last_epoch = epoch;
    return ct__apply_lrs(s, ct__get_lr);
}

static ct_result ct__sched_step(ct_lr_scheduler *s);

/* step(epoch): what SequentialLR calls with 0 at a milestone. */
static ct_result ct__sched_step_epoch(ct_lr_scheduler *s, int64_t epoch)
{
    if (s->kind == CT__S_WARM_RESTARTS) return ct__warm_restarts_step(s, epoch);
    if (s->kind == CT__S_SEQUENTIAL || s->kind == CT__S_CHAINED || s->kind == CT__S_PLATEAU)
        return ct__fail(CT_ERR_TYPE, "step() takes 1 positional argument but 2 were given");
    s->step_count++;
    s->last_epoch = epoch;
    return ct__apply_lrs(s, ct__closed_form_lr);
}

static ct_result ct__sequential_step(ct_lr_scheduler *s)
{
    s->last_epoch++;
    int idx = 0;
    while (idx < s->n_milestones && s->milestones[idx] <= s->last_epoch) idx++; /* bisect_right */
    ct_lr_scheduler *child = s->children[idx];
    ct_result r = idx > 0 && s->milestones[idx - 1] == s->last_epoch ? ct__sched_step_epoch(child, 0)
                                                                     : ct__sched_step(child);
    if (r == CT_OK) {
        memcpy(CT__ARR(s, CT__A_LAST_LR), CT__ARR(child, CT__A_LAST_LR), (size_t)s->n_groups * sizeof(double));
        s->has_last_lr = true;
    }
    return r;
}

static ct_result ct__sched_step(ct_lr_scheduler *s)
{
    switch (s->kind) {
    case CT__S_WARM_RESTARTS: return ct__warm_restarts_step(s, -1);
    case CT__S_SEQUENTIAL: return ct__sequential_step(s);
    case CT__S_CHAINED:
        for (int i = 0; i < s->n_children; i++) {
            ct_result r = ct__sched_step(s->children[i]);
            if (r != CT_OK) return r;
        }
        ct__record_last_lr(s);
        return CT_OK;
    case CT__S_PLATEAU: return ct__fail(CT_ERR_TYPE, "step() missing 1 required positional argument: 'metrics'");
    default:
        s->step_count++;
        s->last_epoch++;
        return ct__apply_lrs(s, ct__get_lr);
    }
}

ct_result ct_lr_scheduler_step(ct_lr_scheduler *s)
{
    if (!s) return ct__fail(CT_ERR_TYPE, "step(): scheduler must not be NULL");
    return ct__sched_step(s);
}

static bool ct__plateau_better(const ct_lr_scheduler *s, double a, double best)
{
    const ct_plateau_opts *o = &s->plateau;
    if (!o->mode_max) return o->threshold_abs ? a < best - o->threshold : a < best * (1. - o->threshold);
    return o->threshold_abs ? a > best + o->threshold : a > best * (o->threshold + 1.);
}

ct_result ct_lr_scheduler_step_metric(ct_lr_scheduler *s, double metric)
{
    if (!s) return ct__fail(CT_ERR_TYPE, "step(): scheduler must not be NULL");
    if (s->kind != CT__S_PLATEAU) return ct__fail(CT_ERR_TYPE, "step() takes 1 positional argument but 2 were given");
    s->last_epoch++;
    if (ct__plateau_better(s, metric, s->best)) {
        s->best = metric;
        s->num_bad_epochs = 0;
    } else {
        s->num_bad_epochs++;
    }
    if (s->cooldown_counter > 0) {
        s->cooldown_counter--;
        s->num_bad_epochs = 0;
    }
    if (s->num_bad_epochs > s->plateau.patience) {
        for (int g = 0; g < s->n_groups; g++) {
            double old_lr = ct__group_lr(s, g), new_lr = old_lr * s->plateau.factor;
            if (new_lr < s->plateau.min_lr) new_lr = s->plateau.min_lr; /* max(old_lr * factor, min_lr) */
            if (old_lr - new_lr > s->plateau.eps) ct__set_lr(s, g, new_lr);
        }
        s->cooldown_counter = s->plateau.cooldown;
        s->num_bad_epochs = 0;
    }
    ct__record_last_lr(s);
    return CT_OK;
}

int ct_lr_scheduler_get_last_lr(const ct_lr_scheduler *s, double *out, int cap)
{
    if (!s) return ct__fail(CT_ERR_TYPE, "get_last_lr(): scheduler must not be NULL");
    if (!s->has_last_lr) return ct__fail(CT_ERR_TYPE, "'ReduceLROnPlateau' object has no attribute '_last_lr'");
    for (int g = 0; out && g < s->n_groups && g < cap; g++) out[g] = CT__ARR(s, CT__A_LAST_LR)[g];
    return s->n_groups;
}

int64_t ct_lr_scheduler_last_epoch(const ct_lr_scheduler *s) { return s ? s->last_epoch : -1; }

/* ---------------------------------------------------------------- construction */

/* _LRScheduler.__init__: initial_lr set where absent, base_lrs from it, the first step. */
static ct_lr_scheduler *ct__sched_start(ct_lr_scheduler *s)
{
    if (!s) return NULL;
    for (int g = 0; g < s->n_groups; g++) {
        ct__group *grp = &s->opt->groups[g];
        if (!CT__HAS(grp, CT__K_INITIAL_LR)) {
            grp->v[CT__K_INITIAL_LR] = grp->v[CT__K_LR];
            grp->has |= 1u << CT__K_INITIAL_LR;
        }
        CT__ARR(s, CT__A_BASE_LR)[g] = grp->v[CT__K_INITIAL_LR];
    }
    s->step_count = 0;
    if (ct__sched_step(s) != CT_OK) {
        ct_lr_scheduler_free(s);
        return NULL;
    }
    return s;
}

static ct_lr_scheduler *ct__lambda_sched(ct__sched_kind kind, ct_optimizer *opt, const ct_lr_lambda *fns,
                                         void *const *users, int n_fns)
{
    ct_lr_scheduler *s = ct__sched_alloc(kind, opt);
    if (!s) return NULL;
    if (!fns || (n_fns != 1 && n_fns != s->n_groups)) {
        ct__fail(CT_ERR_VALUE, "Expected %d lr_lambdas, but got %d", s->n_groups, fns ? n_fns : 0);
        ct_lr_scheduler_free(s);
        return NULL;
    }
    s->fns = (ct_lr_lambda *)CT_MALLOC((size_t)s->n_groups * sizeof *s->fns);
    s->users = (void **)CT_MALLOC((size_t)s->n_groups * sizeof *s->users);
    if (!s->fns || !s->users) {
        CT__OOM();
        ct_lr_scheduler_free(s);
        return NULL;
    }
    for (int g = 0; g < s->n_groups; g++) {
        int i = n_fns == 1 ? 0 : g;
        if (!fns[i]) {
            ct__fail(CT_ERR_TYPE, "'NoneType' object is not callable");
            ct_lr_scheduler_free(s);
            return NULL;
        }
        s->fns[g] = fns[i];
        s->users[g] = users ? users[i] : NULL;
    }
    return ct__sched_start(s);
}

ct_lr_scheduler *ct_lambda_lr(ct_optimizer *opt, const ct_lr_lambda *fns, void *const *users, int n_fns)
{
    return ct__lambda_sched(CT__S_LAMBDA, opt, fns, users, n_fns);
}

ct_lr_scheduler *ct_multiplicative_lr(ct_optimizer *opt, const ct_lr_lambda *fns, void *const *users, int n_fns)
{
    return ct__lambda_sched(CT__S_MULTIPLICATIVE, opt, fns, users, n_fns);
}

ct_lr_scheduler *ct_step_lr(ct_optimizer *opt, int64_t step_size, double gamma)
{
    ct_lr_scheduler *s = ct__sched_alloc(CT__S_STEP, opt);
    if (s) s->step_size = step_size, s->gamma = gamma;
    return ct__sched_start(s);
}

ct_lr_scheduler *ct_multi_step_lr(ct_optimizer *opt, const int64_t *milestones, int n_milestones, double gamma)
{
    if (n_milestones < 0 || (n_milestones > 0 && !milestones))
        { ct__fail(CT_ERR_TYPE, "'NoneType' object is not iterable"); return NULL; }
    ct_lr_scheduler *s = ct__sched_alloc(CT__S_MULTI_STEP, opt);
    if (!s) return NULL;
    s->milestones = (int64_t *)CT_MALLOC((size_t)(n_milestones ? n_milestones : 1) * sizeof *s->milestones);
    if (!s->milestones) {
        ct_lr_scheduler_free(s);
        CT__OOM();
        return NULL;
    }
    if (n_milestones) memcpy(s->milestones, milestones, (size_t)n_milestones * sizeof *milestones);
    s->n_milestones = n_milestones;
    s->gamma = gamma;
    return ct__sched_start(s);
}

static bool ct__check_factor(double f, const char *msg)
{
    if (f > 1.0 || f < 0) return ct__fail(CT_ERR_VALUE, "%s", msg), false;
    return true;
}

ct_lr_scheduler *ct_constant_lr(ct_optimizer *opt, double factor, int64_t total_iters)
{
    if (!ct__check_factor(factor, "Constant multiplicative factor expected to be between 0 and 1.")) return NULL;
    ct_lr_scheduler *s = ct__sched_alloc(CT__S_CONSTANT, opt);
    if (s) s->factor = factor, s->total_iters = total_iters;
    return ct__sched_start(s);
}

ct_lr_scheduler *ct_linear_lr(ct_optimizer *opt, double start_factor, double end_factor, int64_t total_iters)
{
    if (!ct__check_factor(start_factor, "Starting multiplicative factor expected to be between 0 and 1.") ||
        !ct__check_factor(end_factor, "Ending multiplicative factor expected to be between 0 and 1."))
        return NULL;
    ct_lr_scheduler *s = ct__sched_alloc(CT__S_LINEAR, opt);
    if (s) s->start_factor = start_factor, s->end_factor = end_factor, s->total_iters = total_iters;
    return ct__sched_start(s);
}

ct_lr_scheduler *ct_exponential_lr(ct_optimizer *opt, double gamma)
{
    ct_lr_scheduler *s = ct__sched_alloc(CT__S_EXPONENTIAL, opt);
    if (s) s->gamma = gamma;
    return ct__sched_start(s);
}

ct_lr_scheduler *ct_polynomial_lr(ct_optimizer *opt, int64_t total_iters, double power)
{
    ct_lr_scheduler *s = ct__sched_alloc(CT__S_POLYNOMIAL, opt);
    if (s) s->total_iters = total_iters, s->power = power;
    return ct__sched_start(s);
}

ct_lr_scheduler *ct_cosine_annealing_lr(ct_optimizer *opt, int64_t T_max, double eta_min)
{
    ct_lr_scheduler *s = ct__sched_alloc(CT__S_COSINE, opt);
    if (s) s->T_max = (double)T_max, s->eta_min = eta_min;
    return ct__sched_start(s);
}

ct_lr_scheduler *ct_cosine_annealing_warm_restarts(ct_optimizer *opt, int64_t T_0, int64_t T_mult, double eta_min)
{
    if (T_0 <= 0) { ct__fail(CT_ERR_VALUE, "Expected positive integer T_0, but got %lld", (long long)T_0); return NULL; }
    if (T_mult < 1)
        { ct__fail(CT_ERR_VALUE, "Expected integer T_mult >= 1, but got %lld", (long long)T_mult); return NULL; }
    ct_lr_scheduler *s = ct__sched_alloc(CT__S_WARM_RESTARTS, opt);
    if (s) s->T_0 = s->T_i = T_0, s->T_mult = T_mult, s->eta_min = eta_min, s->T_cur = -1;
    return ct__sched_start(s);
}

ct_cyclic_lr_opts ct_cyclic_lr_opts_init(void)
{
    ct_cyclic_lr_opts o = {0, 0, 2000, 0, CT_CYCLIC_TRIANGULAR, 1., true, 0.8, 0.9};
    return o;
}

static bool ct__has_option(const ct_optimizer *opt, int key) { return (opt->default_has >> key) & 1u; }

ct_lr_scheduler *ct_cyclic_lr(ct_optimizer *opt, ct_cyclic_lr_opts o)
{
    if ((unsigned)o.mode > CT_CYCLIC_EXP_RANGE) { ct__fail(CT_ERR_VALUE, "mode is invalid and scale_fn is None"); return NULL; }
    if (opt && o.cycle_momentum && !ct__has_option(opt, CT__K_MOMENTUM))
        { ct__fail(CT_ERR_VALUE, "optimizer must support momentum with `cycle_momentum` option enabled"); return NULL; }
    ct_lr_scheduler *s = ct__sched_alloc(CT__S_CYCLIC, opt);
    if (!s) return NULL;
    double up = (double)o.step_size_up, down = o.step_size_down ? (double)o.step_size_down : up;
    s->total_size = up + down;
    s->step_ratio = up / s->total_size;
    s->mode = o.mode;
    s->gamma = o.gamma;
    s->cycle_momentum = o.cycle_momentum;
    for (int g = 0; g < s->n_groups; g++) {
        opt->groups[g].v[CT__K_LR] = o.base_lr;
        CT__ARR(s, CT__A_MAX_LR)[g] = o.max_lr;
        if (o.cycle_momentum) {
            opt->groups[g].v[CT__K_MOMENTUM] = o.base_momentum;
            CT__ARR(s, CT__A_BASE_MOM)[g] = o.base_momentum;
            CT__ARR(s, CT__A_MAX_MOM)[g] = o.max_momentum;
        }
    }
    /* PyTorch's first step runs with base_lrs from initial_lr; base_lr replaces them after */
    if (!(s = ct__sched_start(s))) return NULL;
    for (int g = 0; g < s->n_groups; g++) CT__ARR(s, CT__A_BASE_LR)[g] = o.base_lr;
    return s;
}

ct_one_cycle_lr_opts ct_one_cycle_lr_opts_init(void)
{
    ct_one_cycle_lr_opts o = {0, 0, 0, 0, 0.3, false, true, 0.85, 0.95, 25., 1e4, false};
    return o;
}

static ct_result ct__one_cycle_check(ct_optimizer *opt, const ct_one_cycle_lr_opts *o, int64_t *total)
{
    if (o->total_steps == 0 && o->epochs == 0 && o->steps_per_epoch == 0)
        return ct__fail(CT_ERR_VALUE, "You must define either total_steps OR (epochs AND steps_per_epoch)");
    if (o->total_steps != 0) {
        if (o->total_steps < 0)
            return ct__fail(CT_ERR_VALUE, "Expected positive integer total_steps, but got %lld", (long long)o->total_steps);
        *total = o->total_steps;
    } else {
        if (o->epochs <= 0)
            return ct__fail(CT_ERR_VALUE, "Expected positive integer epochs, but got %lld", (long long)o->epochs);
        if (o->steps_per_epoch <= 0)
            return ct__fail(CT_ERR_VALUE, "Expected positive integer steps_per_epoch, but got %lld",
                            (long long)o->steps_per_epoch);
        *total = o->epochs * o->steps_per_epoch;
    }
    char buf[40];
    if (o->pct_start < 0 || o->pct_start > 1)
        return ct__fail(CT_ERR_VALUE, "Expected float between 0 and 1 pct_start, but got %s",
                        ct__pyfloat(buf, sizeof buf, o->pct_start));
    if (opt && o->cycle_momentum && !ct__has_option(opt, CT__K_MOMENTUM) && !ct__has_option(opt, CT__K_BETA1))
        return ct__fail(CT_ERR_VALUE, "optimizer must support momentum with `cycle_momentum` option enabled");
    return CT_OK;
}

ct_lr_scheduler *ct_one_cycle_lr(ct_optimizer *opt, ct_one_cycle_lr_opts o)
{
    int64_t total = 0;
    if (ct__one_cycle_check(opt, &o, &total) != CT_OK) return NULL;
    ct_lr_scheduler *s = ct__sched_alloc(CT__S_ONE_CYCLE, opt);
    if (!s) return NULL;
    s->total_steps = total;
    double t = (double)total, p = o.pct_start;
    /* PyTorch's phases: (end step, start and end lr key, start and end momentum key) */
    const int lr0 = CT__K_INITIAL_LR, lr_max = CT__K_MAX_LR, lr_min = CT__K_MIN_LR;
    const int mom_base = CT__A_BASE_MOM, mom_max = CT__A_MAX_MOM;
    if (o.three_phase) {
        s->phases[0] = ct__phase_make(p * t - 1, lr0, lr_max, mom_max, mom_base);
        s->phases[1] = ct__phase_make(2 * p * t - 2, lr_max, lr0, mom_base, mom_max);
        s->phases[2] = ct__phase_make(t - 1, lr0, lr_min, mom_max, mom_max);
        s->n_phases = 3;
    } else {
        s->phases[0] = ct__phase_make(p * t - 1, lr0, lr_max, mom_max, mom_base);
        s->phases[1] = ct__phase_make(t - 1, lr_max, lr_min, mom_base, mom_max);
        s->n_phases = 2;
    }
    s->anneal_linear = o.anneal_linear;
    s->cycle_momentum = o.cycle_momentum;
    s->use_beta1 = ct__has_option(opt, CT__K_BETA1);
    for (int g = 0; g < s->n_groups; g++) {
        ct__group *grp = &opt->groups[g];
        grp->v[CT__K_INITIAL_LR] = o.max_lr / o.div_factor;
        grp->v[CT__K_MAX_LR] = o.max_lr;
        grp->v[CT__K_MIN_LR] = grp->v[CT__K_INITIAL_LR] / o.final_div_factor;
        grp->has |= (1u << CT__K_INITIAL_LR) | (1u << CT__K_MAX_LR) | (1u << CT__K_MIN_LR);
        if (o.cycle_momentum) {
            grp->v[s->use_beta1 ? CT__K_BETA1 : CT__K_MOMENTUM] = o.max_momentum;
            CT__ARR(s, CT__A_MAX_MOM)[g] = o.max_momentum;
            CT__ARR(s, CT__A_BASE_MOM)[g] = o.base_momentum;
        }
    }
    return ct__sched_start(s);
}

static ct_lr_scheduler *ct__adopt_children(ct_lr_scheduler *s, ct_lr_scheduler *const *children, int n)
{
    s->children = (ct_lr_scheduler **)CT_MALLOC((size_t)n * sizeof *s->children);
    if (!s->children) {
        ct_lr_scheduler_free(s);
        CT__OOM();
        return NULL;
    }
    memcpy(s->children, children, (size_t)n * sizeof *children);
    s->n_children = n;
    return s;
}

static void ct__free_all(ct_lr_scheduler *const *schedulers, int n)
{
    for (int i = 0; schedulers && i < n; i++) ct_lr_scheduler_free(schedulers[i]);
}

ct_lr_scheduler *ct_sequential_lr(ct_optimizer *opt, ct_lr_scheduler *const *schedulers, int n,
                                  const int64_t *milestones)
{
    ct_result r = CT_OK;
    if (!schedulers || n < 1) r = ct__fail(CT_ERR_INDEX, "list index out of range");
    for (int i = 0; r == CT_OK && i < n; i++)
        if (!schedulers[i] || schedulers[i]->opt != opt)
            r = ct__fail(CT_ERR_VALUE, "Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                                       "but got schedulers at index %d to be different than the optimizer passed in.", i);
    if (r == CT_OK && n > 1 && !milestones)
        r = ct__fail(CT_ERR_VALUE, "Sequential Schedulers expects number of schedulers provided to be one more than "
                                   "the number of milestone points, but got number of schedulers %d and the number of "
                                   "milestones to be equal to 0", n);
    ct_lr_scheduler *s = r == CT_OK ? ct__sched_alloc(CT__S_SEQUENTIAL, opt) : NULL;
    if (!s || !(s = ct__adopt_children(s, schedulers, n))) {
        ct__free_all(schedulers, n);
        return NULL;
    }
    s->milestones = (int64_t *)CT_MALLOC((size_t)n * sizeof *s->milestones);
    if (!s->milestones) {
        ct_lr_scheduler_free(s);
        CT__OOM();
        return NULL;
    }
    if (n > 1) memcpy(s->milestones, milestones, (size_t)(n - 1) * sizeof *milestones);
    s->n_milestones = n - 1;
    s->last_epoch = 0;
    for (int g = 0; g < s->n_groups; g++) ct__set_lr(s, g, opt->groups[g].v[CT__K_INITIAL_LR]);
    for (int i = 0; i < n; i++) s->children[i]->last_epoch -= 1;
    s->children[0]->step_count = 0; /* the first one's _initial_step */
    if (ct__sched_step(s->children[0]) != CT_OK) {
        ct_lr_scheduler_free(s);
        return NULL;
    }
    memcpy(CT__ARR(s, CT__A_LAST_LR), CT__ARR(s->children[0], CT__A_LAST_LR), (size_t)s->n_groups * sizeof(double));
    s->has_last_lr = true;
    return s;
}

ct_lr_scheduler *ct_chained_scheduler(ct_lr_scheduler *const *schedulers, int n)
{
    ct_result r = CT_OK;
    if (!schedulers || n < 1 || !schedulers[0]) r = ct__fail(CT_ERR_INDEX, "list index out of range");
    for (int i = 1; r == CT_OK && i < n; i++)
        if (!schedulers[i] || schedulers[i]->opt != schedulers[0]->opt)
            r = ct__fail(CT_ERR_VALUE, "ChainedScheduler expects all schedulers to belong to the same optimizer, but "
                                       "got schedulers at index 0 and %d to be different", i);
    ct_lr_scheduler *s = r == CT_OK ? ct__sched_alloc(CT__S_CHAINED, schedulers[0]->opt) : NULL;
    if (!s || !(s = ct__adopt_children(s, schedulers, n))) {
        ct__free_all(schedulers, n);
        return NULL;
    }
    ct__record_last_lr(s);
    return s;
}

ct_lr_scheduler *ct_warmup_cosine_lr(ct_optimizer *opt, int64_t warmup_steps, int64_t total_steps,
                                     double start_factor, double eta_min)
{
    if (warmup_steps <= 0 || total_steps <= warmup_steps) {
        ct__fail(CT_ERR_VALUE, "warmup_cosine_lr: expected 0 < warmup_steps < total_steps, but got %lld and %lld",
                 (long long)warmup_steps, (long long)total_steps);
        return NULL;
    }
    ct_lr_scheduler *parts[2] = {ct_linear_lr(opt, start_factor, 1.0, warmup_steps), NULL};
    if (parts[0]) parts[1] = ct_cosine_annealing_lr(opt, total_steps - warmup_steps, eta_min);
    if (!parts[1]) {
        ct_lr_scheduler_free(parts[0]);
        return NULL;
    }
    return ct_sequential_lr(opt, parts, 2, &warmup_steps);
}

ct_plateau_opts ct_plateau_opts_init(void)
{
    ct_plateau_opts o = {false, 0.1, 10, 1e-4, false, 0, 0, 1e-8};
    return o;
}

ct_lr_scheduler *ct_reduce_lr_on_plateau(ct_optimizer *opt, ct_plateau_opts o)
{
    if (o.factor >= 1.0) { ct__fail(CT_ERR_VALUE, "Factor should be < 1.0."); return NULL; }
    ct_lr_scheduler *s = ct__sched_alloc(CT__S_PLATEAU, opt);
    if (!s) return NULL;
    s->plateau = o;
    s->last_epoch = 0;
    s->best = o.mode_max ? -INFINITY : INFINITY;
    return s;
}

/* ---------------------------------------------------------------- state dict */

struct ct_lr_scheduler_state {
    ct_lr_scheduler copy; /* the numbers; its pointers are the state's own */
    ct_lr_scheduler_state **children;
};

void ct_lr_scheduler_state_free(ct_lr_scheduler_state *st)
{
    if (!st) return;
    for (int i = 0; i < st->copy.n_children; i++) ct_lr_scheduler_state_free(st->children[i]);
    CT_FREE(st->children);
    CT_FREE(st->copy.a);
    CT_FREE(st->copy.milestones);
    CT_FREE(st);
}

ct_lr_scheduler_state *ct_lr_scheduler_state_dict(const ct_lr_scheduler *s)
{
    if (!s) { ct__fail(CT_ERR_TYPE, "state_dict(): scheduler must not be NULL"); return NULL; }
    ct_lr_scheduler_state *st = (ct_lr_scheduler_state *)CT_MALLOC(sizeof *st);
    if (!st) { CT__OOM(); return NULL; }
    st->copy = *s;
    st->copy.fns = NULL, st->copy.users = NULL, st->copy.children = NULL, st->copy.opt = NULL;
    size_t na = (size_t)CT__A_COUNT * (size_t)s->n_groups, nm = (size_t)(s->n_milestones > 0 ? s->n_milestones : 1);
    st->copy.a = (double *)CT_MALLOC(na * sizeof(double));
    st->copy.milestones = s->milestones ? (int64_t *)CT_MALLOC(nm * sizeof(int64_t)) : NULL;
    st->children = (ct_lr_scheduler_state **)CT_MALLOC((size_t)(s->n_children + 1) * sizeof *st->children);
    bool ok = st->copy.a && st->children && (!s->milestones || st->copy.milestones);
    st->copy.n_children = 0;
    while (ok && st->copy.n_children < s->n_children) {
        ct_lr_scheduler_state *child = ct_lr_scheduler_state_dict(s->children[st->copy.n_children]);
        if (child) st->children[st->copy.n_children++] = child;
        ok = child != NULL;
    }
    if (!ok) {
        ct_lr_scheduler_state_free(st);
        CT__OOM();
        return NULL;
    }
    memcpy(st->copy.a, s->a, na * sizeof(double));
    if (s->milestones) memcpy(st->copy.milestones, s->milestones, (size_t)s->n_milestones * sizeof(int64_t));
    return st;
}

static ct_result ct__sched_state_fits(const ct_lr_scheduler *s, const ct_lr_scheduler_state *st)
{
    if (st->copy.kind != s->kind || st->copy.n_groups != s->n_groups || st->copy.n_children != s->n_children ||
        st->copy.n_milestones != s->n_milestones)
        return ct__fail(CT_ERR_VALUE, "loaded state dict does not match this scheduler");
    for (int i = 0; i < s->n_children; i++) {
        ct_result r = ct__sched_state_fits(s->children[i], st->children[i]);
        if (r != CT_OK) return r;
    }
    return CT_OK;
}

static void ct__sched_load(ct_lr_scheduler *s, const ct_lr_scheduler_state *st)
{
    ct_lr_scheduler keep = *s;
    *s = st->copy;
    s->opt = keep.opt, s->fns = keep.fns, s->users = keep.users, s->children = keep.children;
    s->a = keep.a, s->milestones = keep.milestones;
    memcpy(s->a, st->copy.a, (size_t)CT__A_COUNT * (size_t)s->n_groups * sizeof(double));
    if (s->milestones) memcpy(s->milestones, st->copy.milestones, (size_t)s->n_milestones * sizeof(int64_t));
    for (int i = 0; i < s->n_children; i++) ct__sched_load(s->children[i], st->children[i]);
}

ct_result ct_lr_scheduler_load_state_dict(ct_lr_scheduler *s, const ct_lr_scheduler_state *state)
{
    if (!s) return ct__fail(CT_ERR_TYPE, "load_state_dict(): scheduler must not be NULL");
    if (!state) return ct__fail(CT_ERR_TYPE, "load_state_dict(): state_dict must not be NULL");
    ct_result r = ct__sched_state_fits(s, state);
    if (r == CT_OK) ct__sched_load(s, state);
    return r;
}
