/* Optimizers: parameter groups, the update rules of torch.optim (each the
 * single-tensor path of PyTorch 1.13, op for op, so that the float32
 * rounding is the same), zero_grad and the state dict. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CT__KEY_NAME(e, s) s,
static const char *const ct__optim_key_names[CT__K_COUNT] = {CT__OPTIM_KEYS(CT__KEY_NAME)};
#undef CT__KEY_NAME

#define CT__BIT(k) (1u << CT__K_##k)

static const char *ct__pyfloat(char *buf, size_t n, double v)
{
    if (isnan(v)) return snprintf(buf, n, "nan"), buf;
    if (isinf(v)) return snprintf(buf, n, v > 0 ? "inf" : "-inf"), buf;
    for (int prec = 1; prec <= 17; prec++) { /* the shortest text that reads back as v */
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    double a = fabs(v);
    if (a != 0 && (a < 1e-4 || a >= 1e16)) return buf; /* Python's exponent form, as %g's */
    if (strchr(buf, 'e')) snprintf(buf, n, "%.0f", v); /* %g chose an exponent Python does not use */
    if (!strchr(buf, '.')) strncat(buf, ".0", n - strlen(buf) - 1);
    return buf;
}

static ct_tensor *ct__keep_state(ct_tensor *t) { return t ? ct_retain(t) : NULL; }

/* CT_MALLOC'd zeroed memory (n > 0). */
static void *ct__zalloc(size_t n)
{
    void *p = CT_MALLOC(n);
    if (p) memset(p, 0, n);
    return p;
}

/* ---------------------------------------------------------------- update rules */

typedef ct_result (*ct__update_fn)(const double *o, ct_tensor *p, ct_tensor *grad, ct__pstate *st);

struct ct__optim_class {
    const char *name;
    const char *bufs[CT__NBUF]; /* state tensor names, in buf order */
    bool counts_steps;          /* state['step'] exists */
    ct__update_fn update;       /* NULL: LBFGS, whose step takes all parameters at once */
};

#define CT__F(x) ct_float(x)
/* every op below succeeds for a floating tensor and its own gradient; a
 * failure (out of memory) leaves its error, which the step returns */
#define CT__TRY(x) do { if ((x) != CT_OK) return ct_last_error_code(); } while (0)
#define CT__TRYT(x) do { if (!(x)) return ct_last_error_code(); } while (0)

/* grad if not maximize else -grad; then grad.add(param, alpha=weight_decay) */
static ct_tensor *ct__direction(ct_tensor *grad, const ct_tensor *p, bool maximize, double weight_decay)
{
    ct_tensor *d = maximize ? ct_neg(grad) : grad;
    return weight_decay != 0 ? ct_add_alpha(d, p, CT__F(weight_decay)) : d;
}

/* avg.mul_(beta).add_(x, alpha=1 - beta) */
static ct_result ct__ema_(ct_tensor *avg, const ct_tensor *x, double beta)
{
    CT__TRY(ct_mul_scalar_(avg, CT__F(beta)));
    return ct_add_alpha_(avg, x, CT__F(1 - beta));
}

/* sq.mul_(beta).addcmul_(x, x, value=1 - beta) */
static ct_result ct__ema_sq_(ct_tensor *sq, const ct_tensor *x, double beta)
{
    CT__TRY(ct_mul_scalar_(sq, CT__F(beta)));
    return ct_addcmul_(sq, x, x, CT__F(1 - beta));
}

static ct_tensor *ct__zeros_state(const ct_tensor *p) { return ct__keep_state(ct_zeros_like(p, CT_DEFAULT)); }

/* Whether t takes part in a fused float32 pass over numel elements: contiguous float32. */
static bool ct__fusable(const ct_tensor *t, int64_t numel)
{
    return t->dtype == CT_F32 && ct_is_contiguous(t) && ct_numel(t) == numel;
}

/* False when the tensors are not laid out for the one pass or the buffer does
 * not exist yet (the first step clones it). */
static bool ct__sgd_fused(const double *o, ct_tensor *p, const ct_tensor *grad, ct__pstate *st)
{
    ct_tensor *buf = st->buf[0];
    int64_t n = ct_numel(p);
    if (o[CT__K_MOMENTUM] == 0 || !buf || !ct__fusable(p, n) || !ct__fusable(grad, n) || !ct__fusable(buf, n))
        return false;
    ct__optim_job job = {CT__OPTIM_SGD, n, (float *)ct__data(p), {(float *)ct__data(buf), NULL, NULL},
                         (const float *)ct__data(grad),
                         {(float)o[CT__K_WEIGHT_DECAY], (float)o[CT__K_MOMENTUM], (float)(1 - o[CT__K_DAMPENING]),
                          (float)-o[CT__K_LR], 0, 0, 0},
                         o[CT__K_MAXIMIZE] != 0, o[CT__K_NESTEROV] != 0, p->storage->device.index};
    ct__backend_for(p->storage->device.type)->optim_step(&job);
    p->storage->version++;
    buf->storage->version++;
    return true;
}

static ct_result ct__sgd_update(const double *o, ct_tensor *p, ct_tensor *grad, ct__pstate *st)
{
    if (ct__sgd_fused(o, p, grad, st)) return CT_OK;
    ct_tensor *d = ct__direction(grad, p, o[CT__K_MAXIMIZE] != 0, o[CT__K_WEIGHT_DECAY]);
    CT__TRYT(d);
    double momentum = o[CT__K_MOMENTUM];
    if (momentum != 0) {
        if (!st->buf[0]) {
            CT__TRYT(st->buf[0] = ct__keep_state(ct_clone(d)));
        } else {
            CT__TRY(ct_mul_scalar_(st->buf[0], CT__F(momentum)));
            CT__TRY(ct_add_alpha_(st->buf[0], d, CT__F(1 - o[CT__K_DAMPENING])));
        }
        d = o[CT__K_NESTEROV] != 0 ? ct_add_alpha(d, st->buf[0], CT__F(momentum)) : st->buf[0];
        CT__TRYT(d);
    }
    return ct_add_alpha_(p, d, CT__F(-o[CT__K_LR]));
}

/* False when the tensors are not laid out for the one pass. */
static bool ct__adam_moments_fused(const double *o, ct_tensor *p, const ct_tensor *grad, ct__pstate *st,
                                   double step_size, double bias_correction2_sqrt)
{
    ct_tensor *m = st->buf[0], *v = st->buf[1], *vmax = o[CT__K_AMSGRAD] != 0 ? st->buf[2] : NULL;
    int64_t n = ct_numel(p);
    if (!ct__fusable(p, n) || !ct__fusable(grad, n) || !ct__fusable(m, n) || !ct__fusable(v, n) ||
        (vmax && !ct__fusable(vmax, n)))
        return false;
    ct__optim_job job = {CT__OPTIM_ADAM, n, (float *)ct__data(p),
                         {(float *)ct__data(m), (float *)ct__data(v), vmax ? (float *)ct__data(vmax) : NULL},
                         (const float *)ct__data(grad),
                         {(float)o[CT__K_BETA1], (float)o[CT__K_BETA2], (float)(1 - o[CT__K_BETA1]),
                          (float)(1 - o[CT__K_BETA2]), (float)bias_correction2_sqrt, (float)o[CT__K_EPS],
                          (float)-step_size},
                         false, false, p->storage->device.index};
    ct__backend_for(p->storage->device.type)->optim_step(&job);
    p->storage->version++;
    m->storage->version++;
    v->storage->version++;
    if (vmax) vmax->storage->version++;
    return true;
}

/* Adam and AdamW after their weight decay: the moments, bias corrections and step. */
static ct_result ct__adam_moments(const double *o, ct_tensor *p, const ct_tensor *grad, ct__pstate *st)
{
    double beta1 = o[CT__K_BETA1], beta2 = o[CT__K_BETA2], step = st->step;
    double bias_correction1 = 1 - pow(beta1, step), bias_correction2 = 1 - pow(beta2, step);
    double step_size = o[CT__K_LR] / bias_correction1;
    double bias_correction2_sqrt = sqrt(bias_correction2);
    if (ct__adam_moments_fused(o, p, grad, st, step_size, bias_correction2_sqrt)) return CT_OK;
    CT__TRY(ct__ema_(st->buf[0], grad, beta1));
    CT__TRY(ct__ema_sq_(st->buf[1], grad, beta2));
    ct_tensor *second = st->buf[1];
    if (o[CT__K_AMSGRAD] != 0) {
        ct_tensor *m = ct_maximum(st->buf[2], st->buf[1]);
        CT__TRYT(m);
        CT__TRY(ct_copy_(st->buf[2], m));
        second = st->buf[2];
    }
    ct_tensor *denom = ct_div_scalar(ct_sqrt(second), CT__F(bias_correction2_sqrt));
    CT__TRYT(denom);
    CT__TRY(ct_add_scalar_(denom, CT__F(o[CT__K_EPS])));
    return ct_addcdiv_(p, st->buf[0], denom, CT__F(-step_size));
}

static ct_result ct__adam_update(const double *o, ct_tensor *p, ct_tensor *grad, ct__pstate *st)
{
    ct_tensor *g = ct__direction(grad, p, o[CT__K_MAXIMIZE] != 0, 0);
    st->step += 1;
    CT__TRYT(g);
    if (o[CT__K_WEIGHT_DECAY] != 0) CT__TRYT(g = ct_add_alpha(g, p, CT__F(o[CT__K_WEIGHT_DECAY])));
    return ct__adam_moments(o, p, g, st);
}

static ct_result ct__adamw_update(const double *o, ct_tensor *p, ct_tensor *grad, ct__pstate *st)
{
    ct_tensor *g = ct__direction(grad, p, o[CT__K_MAXIMIZE] != 0, 0);
    CT__TRYT(g);
    st->step += 1;
    CT__TRY(ct_mul_scalar_(p, CT__F(1 - o[CT__K_LR] * o[CT__K_WEIGHT_DECAY])));
    return ct__adam_moments(o, p, g, st);
}

static ct_result ct__rmsprop_update(const double *o, ct_tensor *p, ct_tensor *grad, ct__pstate *st)
{
    ct_tensor *g = ct__direction(grad, p, o[CT__K_MAXIMIZE] != 0, o[CT__K_WEIGHT_DECAY]);
    CT__TRYT(g);
    st->step += 1;
    double alpha = o[CT__K_ALPHA];
    CT__TRY(ct__ema_sq_(st->buf[0], g, alpha));
    ct_tensor *avg;
    if (o[CT__K_CENTERED] != 0) {
        CT__TRY(ct__ema_(st->buf[2], g, alpha));
        CT__TRYT(avg = ct_addcmul(st->buf[0], st->buf[2], st->buf[2], CT__F(-1)));
        CT__TRY(ct_sqrt_(avg));
    } else {
        CT__TRYT(avg = ct_sqrt(st->buf[0]));
    }
    CT__TRY(ct_add_scalar_(avg, CT__F(o[CT__K_EPS])));
    if (o[CT__K_MOMENTUM] > 0) {
        CT__TRY(ct_mul_scalar_(st->buf[1], CT__F(o[CT__K_MOMENTUM])));
        CT__TRY(ct_addcdiv_(st->buf[1], g, avg, CT__F(1)));
        return ct_add_alpha_(p, st->buf[1], CT__F(-o[CT__K_LR]));
    }
    return ct_addcdiv_(p, g, avg, CT__F(-o[CT__K_LR]));
}

static ct_result ct__adagrad_update(const double *o, ct_tensor *p, ct_tensor *grad, ct__pstate *st)
{
    st->step += 1;
    ct_tensor *g = ct__direction(grad, p, o[CT__K_MAXIMIZE] != 0, o[CT__K_WEIGHT_DECAY]);
    CT__TRYT(g);
    double clr = o[CT__K_LR] / (1 + (st->step - 1) * o[CT__K_LR_DECAY]);
    CT__TRY(ct_addcmul_(st->buf[0], g, g, CT__F(1)));
    ct_tensor *std = ct_sqrt(st->buf[0]);
    CT__TRYT(std);
    CT__TRY(ct_add_scalar_(std, CT__F(o[CT__K_EPS])));
    return ct_addcdiv_(p, g, std, CT__F(-clr));
}

static ct_result ct__adadelta_update(const double *o, ct_tensor *p, ct_tensor *grad, ct__pstate *st)
{
    ct_tensor *g = ct__direction(grad, p, o[CT__K_MAXIMIZE] != 0, o[CT__K_WEIGHT_DECAY]);
    CT__TRYT(g);
    st->step += 1;
    double rho = o[CT__K_RHO], eps = o[CT__K_EPS];
    CT__TRY(ct__ema_sq_(st->buf[0], g, rho));
    ct_tensor *std = ct_add_scalar(st->buf[0], CT__F(eps));
    ct_tensor *delta = ct_add_scalar(st->buf[1], CT__F(eps));
    CT__TRYT(std && delta);
    CT__TRY(ct_sqrt_(std));
    CT__TRY(ct_sqrt_(delta));
    CT__TRY(ct_div_(delta, std));
    CT__TRY(ct_mul_(delta, g));
    CT__TRY(ct__ema_sq_(st->buf[1], delta, rho));
    return ct_add_alpha_(p, delta, CT__F(-o[CT__K_LR]));
}

static ct_result ct__adamax_update(const double *o, ct_tensor *p, ct_tensor *grad, ct__pstate *st)
{
    ct_tensor *g = ct__direction(grad, p, o[CT__K_MAXIMIZE] != 0, 0);
    CT__TRYT(g);
    st->step += 1;
    if (o[CT__K_WEIGHT_DECAY] != 0) CT__TRYT(g = ct_add_alpha(g, p, CT__F(o[CT__K_WEIGHT_DECAY])));
    CT__TRY(ct__ema_(st->buf[0], g, o[CT__K_BETA1]));
    /* torch.amax(cat([exp_inf * beta2, |grad| + eps]), 0): the elementwise maximum */
    CT__TRY(ct_mul_scalar_(st->buf[1], CT__F(o[CT__K_BETA2])));
    ct_tensor *bound = ct_abs(g);
    CT__TRYT(bound);
    CT__TRY(ct_add_scalar_(bound, CT__F(o[CT__K_EPS])));
    ct_tensor *m = ct_maximum(st->buf[1], bound);
    CT__TRYT(m);
    CT__TRY(ct_copy_(st->buf[1], m));
    double clr = o[CT__K_LR] / (1 - pow(o[CT__K_BETA1], st->step));
    return ct_addcdiv_(p, st->buf[0], st->buf[1], CT__F(-clr));
}

static ct_result ct__nadam_update(const double *o, ct_tensor *p, ct_tensor *grad, ct__pstate *st)
{
    double beta1 = o[CT__K_BETA1], beta2 = o[CT__K_BETA2], lr = o[CT__K_LR];
    double step = st->step += 1;
    double bias_correction2 = 1 - pow(beta2, step);
    ct_tensor *g = grad;
    if (o[CT__K_WEIGHT_DECAY] != 0) CT__TRYT(g = ct_add_alpha(g, p, CT__F(o[CT__K_WEIGHT_DECAY])));
    double mu = beta1 * (1. - 0.5 * pow(0.96, step * o[CT__K_MOMENTUM_DECAY]));
    double mu_next = beta1 * (1. - 0.5 * pow(0.96, (step + 1) * o[CT__K_MOMENTUM_DECAY]));
    /* mu_product is a float32 tensor: each product rounds to float */
    st->mu_product = st->mu_product * (float)mu;
    float mu_product_next = st->mu_product * (float)mu * (float)mu_next;
    CT__TRY(ct__ema_(st->buf[0], g, beta1));
    CT__TRY(ct__ema_sq_(st->buf[1], g, beta2));
    ct_tensor *denom = ct_div_scalar(st->buf[1], CT__F(bias_correction2));
    CT__TRYT(denom);
    CT__TRY(ct_sqrt_(denom));
    CT__TRY(ct_add_scalar_(denom, CT__F(o[CT__K_EPS])));
    CT__TRY(ct_addcdiv_(p, g, denom, CT__F(-lr * (1. - mu) / (1. - (double)st->mu_product))));
    return ct_addcdiv_(p, st->buf[0], denom, CT__F(-lr * mu_next / (1. - (double)mu_product_next)));
}

static ct_result ct__radam_update(const double *o, ct_tensor *p, ct_tensor *grad, ct__pstate *st)
{
    double beta1 = o[CT__K_BETA1], beta2 = o[CT__K_BETA2], lr = o[CT__K_LR];
    double step = st->step += 1;
    double bias_correction1 = 1 - pow(beta1, step), bias_correction2 = 1 - pow(beta2, step);
    ct_tensor *g = grad;
    if (o[CT__K_WEIGHT_DECAY] != 0) CT__TRYT(g = ct_add_alpha(g, p, CT__F(o[CT__K_WEIGHT_DECAY])));
    CT__TRY(ct__ema_(st->buf[0], g, beta1));
    CT__TRY(ct__ema_sq_(st->buf[1], g, beta2));
    ct_tensor *corrected = ct_div_scalar(st->buf[0], CT__F(bias_correction1));
    CT__TRYT(corrected);
    double rho_inf = 2 / (1 - beta2) - 1;
    double rho_t = rho_inf - 2 * step * pow(beta2, step) / bias_correction2;
    ct_tensor *update = ct_mul_scalar(corrected, CT__F(lr));
    CT__TRYT(update);
    if (rho_t > 5.) {
        double rect = sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
        ct_tensor *denom = ct_sqrt(st->buf[1]);
        CT__TRYT(denom);
        CT__TRY(ct_add_scalar_(denom, CT__F(o[CT__K_EPS])));
        /* a number over a tensor is reciprocal() * number in PyTorch */
        ct_tensor *adaptive_lr = ct_mul_scalar(ct_reciprocal(denom), CT__F(sqrt(bias_correction2)));
        CT__TRYT(adaptive_lr);
        CT__TRY(ct_mul_(update, adaptive_lr));
        CT__TRY(ct_mul_scalar_(update, CT__F(rect)));
    }
    return ct_add_alpha_(p, update, CT__F(-1.0));
}

/* The state tensors each rule starts with, PyTorch's _init_group. */
static ct_result ct__init_state(const ct__optim_class *cls, const double *o, ct_tensor *p, ct__pstate *st)
{
    st->init = true;
    st->step = 0;
    st->mu_product = 1.0f;
    bool want[CT__NBUF] = {false, false, false, false};
    for (int b = 0; b < CT__NBUF; b++) want[b] = cls->bufs[b] != NULL;
    if (cls->update == ct__sgd_update) want[0] = false; /* the first gradient clones into it */
    if (cls->update == ct__adam_update || cls->update == ct__adamw_update) want[2] = o[CT__K_AMSGRAD] != 0;
    if (cls->update == ct__rmsprop_update) {
        want[1] = o[CT__K_MOMENTUM] > 0;
        want[2] = o[CT__K_CENTERED] != 0;
    }
    for (int b = 0; b < CT__NBUF; b++)
        if (want[b]) CT__TRYT(st->buf[b] = ct__zeros_state(p));
    if (cls->update == ct__adagrad_update && o[CT__K_INITIAL_ACC] != 0)
        CT__TRY(ct_fill_(st->buf[0], CT__F(o[CT__K_INITIAL_ACC])));
    return CT_OK;
}

static const ct__optim_class ct__sgd_class = {"SGD", {"momentum_buffer"}, false, ct__sgd_update};
static const ct__optim_class ct__adam_class = {"Adam", {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"}, true, ct__adam_update};
static const ct__optim_class ct__adamw_class = {"AdamW", {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"}, true,
                                                ct__adamw_update};
static const ct__optim_class ct__rmsprop_class = {"RMSprop", {"square_avg", "momentum_buffer", "grad_avg"}, true,
                                                  ct__rmsprop_update};
static const ct__optim_class ct__adagrad_class = {"Adagrad", {"sum"}, true, ct__adagrad_update};
static const ct__optim_class ct__adadelta_class = {"Adadelta", {"square_avg", "acc_delta"}, true, ct__adadelta_update};
static const ct__optim_class ct__adamax_class = {"Adamax", {"exp_avg", "exp_inf"}, true, ct__adamax_update};
static const ct__optim_class ct__nadam_class = {"NAdam", {"exp_avg", "exp_avg_sq"}, true, ct__nadam_update};
static const ct__optim_class ct__radam_class = {"RAdam", {"exp_avg", "exp_avg_sq"}, true, ct__radam_update};
static const ct__optim_class ct__lbfgs_class = {"LBFGS", {NULL}, false, NULL};

/* ---------------------------------------------------------------- groups */

static int ct__optim_key(const char *name)
{
    for (int k = 0; name && k < CT__K_COUNT; k++)
        if (!strcmp(name, ct__optim_key_names[k])) return k;
    return -1;
}

static bool ct__optim_owns(const ct_optimizer *opt, const ct_tensor *p, int *gi, int64_t *pi)
{
    for (int g = 0; g < opt->n_groups; g++)
        for (int64_t i = 0; i < opt->groups[g].n; i++)
            if (opt->groups[g].params[i] == p) {
                if (gi) *gi = g;
                if (pi) *pi = i;
                return true;
            }
    return false;
}

static ct_result ct__check_group(const ct_optimizer *opt, const ct_param_group *group)
{
    if (group->n < 0 || (group->n > 0 && !group->params))
        return ct__fail(CT_ERR_TYPE, "params argument given to the optimizer should be an iterable of Tensors or "
                                     "dicts, but got NULL");
    if (group->n == 0) return ct__fail(CT_ERR_VALUE, "optimizer got an empty parameter list");
    for (int64_t i = 0; i < group->n; i++) {
        const ct_tensor *p = group->params[i];
        if (!p) return ct__fail(CT_ERR_TYPE, "optimizer can only optimize Tensors, but one of the params is NoneType");
        if (ct__history_check(&p, 1) != CT_OK) return ct_last_error_code(); /* Tensor.is_leaf reads the history */
        if (!ct_is_leaf(p)) return ct__fail(CT_ERR_VALUE, "can't optimize a non-leaf Tensor");
        for (int64_t j = 0; j < i; j++)
            if (group->params[j] == p)
                return ct__fail(CT_ERR_VALUE, "some parameters appear in more than one parameter group");
        if (ct__optim_owns(opt, p, NULL, NULL))
            return ct__fail(CT_ERR_VALUE, "some parameters appear in more than one parameter group");
    }
    for (int o = 0; o < CT_OPTIM_MAX_OPTIONS && group->options[o].name; o++) {
        int k = ct__optim_key(group->options[o].name);
        if (k < 0 || !((opt->default_has >> k) & 1u))
            return ct__fail(CT_ERR_VALUE, "%s has no option '%s'", opt->cls->name, group->options[o].name);
    }
    return CT_OK;
}

ct_result ct_optim_add_param_group(ct_optimizer *opt, ct_param_group group)
{
    if (!opt) return ct__fail(CT_ERR_TYPE, "add_param_group(): optimizer must not be NULL");
    ct_result r = ct__check_group(opt, &group);
    if (r != CT_OK) return r;
    ct__group *groups = (ct__group *)CT_REALLOC(opt->groups, (size_t)(opt->n_groups + 1) * sizeof *groups);
    if (!groups) return CT__OOM();
    opt->groups = groups;
    ct__group *g = &groups[opt->n_groups];
    memset(g, 0, sizeof *g);
    g->params = (ct_tensor **)CT_MALLOC((size_t)group.n * sizeof *g->params);
    g->state = (ct__pstate *)ct__zalloc((size_t)group.n * sizeof *g->state);
    if (!g->params || !g->state) {
        CT_FREE(g->params);
        CT_FREE(g->state);
        return CT__OOM();
    }
    for (int64_t i = 0; i < group.n; i++) g->params[i] = ct_retain(group.params[i]);
    g->n = group.n;
    memcpy(g->v, opt->defaults, sizeof g->v);
    g->has = opt->default_has & ~(CT__BIT(INITIAL_LR) | CT__BIT(MAX_LR) | CT__BIT(MIN_LR));
    for (int o = 0; o < CT_OPTIM_MAX_OPTIONS && group.options[o].name; o++) {
        int k = ct__optim_key(group.options[o].name);
        g->v[k] = group.options[o].value;
        g->has |= 1u << k;
    }
    opt->n_groups++;
    return CT_OK;
}

int ct_optim_num_groups(const ct_optimizer *opt) { return opt ? opt->n_groups : 0; }

static ct__group *ct__optim_group(const ct_optimizer *opt, int group)
{
    if (!opt) {
        ct__fail(CT_ERR_TYPE, "optimizer must not be NULL");
        return NULL;
    }
    if (group < 0 || group >= opt->n_groups) {
        ct__fail(CT_ERR_INDEX, "list index out of range");
        return NULL;
    }
    return &opt->groups[group];
}

double ct_optim_get(const ct_optimizer *opt, int group, const char *name)
{
    const ct__group *g = ct__optim_group(opt, group);
    if (!g) return NAN;
    int k = ct__optim_key(name);
    if (k < 0 || !CT__HAS(g, k)) {
        ct__fail(CT_ERR_INDEX, "'%s'", name ? name : "(null)");
        return NAN;
    }
    return g->v[k];
}

ct_result ct_optim_set(ct_optimizer *opt, int group, const char *name, double value)
{
    ct__group *g = ct__optim_group(opt, group);
    if (!g) return ct_last_error_code();
    int k = ct__optim_key(name);
    uint32_t settable = opt->default_has | CT__BIT(INITIAL_LR) | CT__BIT(MAX_LR) | CT__BIT(MIN_LR);
    if (k < 0 || !((settable >> k) & 1u))
        return ct__fail(CT_ERR_VALUE, "%s has no option '%s'", opt->cls->name, name ? name : "(null)");
    g->v[k] = value;
    g->has |= 1u << k;
    return CT_OK;
}

/* ---------------------------------------------------------------- construction */

static ct_result ct__check_value(bool ok, const char *what, double v)
{
    char buf[40];
    return ok ? CT_OK : ct__fail(CT_ERR_VALUE, "Invalid %s: %s", what, ct__pyfloat(buf, sizeof buf, v));
}

static ct_result ct__check_betas(double beta1, double beta2)
{
    char buf[40];
    if (!(0.0 <= beta1 && beta1 < 1.0))
        return ct__fail(CT_ERR_VALUE, "Invalid beta parameter at index 0: %s", ct__pyfloat(buf, sizeof buf, beta1));
    if (!(0.0 <= beta2 && beta2 < 1.0))
        return ct__fail(CT_ERR_VALUE, "Invalid beta parameter at index 1: %s", ct__pyfloat(buf, sizeof buf, beta2));
    return CT_OK;
}

/* The common checks: lr, eps and weight_decay (NAN: the optimizer has none). */
static ct_result ct__check_common(double lr, double eps, double weight_decay)
{
    ct_result r = ct__check_value(0.0 <= lr, "learning rate", lr);
    if (r == CT_OK && !isnan(eps)) r = ct__check_value(0.0 <= eps, "epsilon value", eps);
    if (r == CT_OK) r = ct__check_value(0.0 <= weight_decay, "weight_decay value", weight_decay);
    return r;
}

/* Adam's family checks lr, eps, the betas and weight_decay, in that order. */
static ct_result ct__check_adam_like(double lr, double eps, double beta1, double beta2, double weight_decay)
{
    ct_result r = ct__check_common(lr, eps, 0);
    if (r == CT_OK) r = ct__check_betas(beta1, beta2);
    if (r == CT_OK) r = ct__check_value(0.0 <= weight_decay, "weight_decay value", weight_decay);
    return r;
}

typedef struct ct__default {
    int key;
    double value;
} ct__default;

static ct_optimizer *ct__optim_new(const ct__optim_class *cls, ct_tensor *const *params, int64_t n,
                                   const ct__default *defaults, int n_defaults)
{
    ct_optimizer *opt = (ct_optimizer *)ct__zalloc(sizeof *opt);
    if (!opt) {
        CT__OOM();
        return NULL;
    }
    opt->cls = cls;
    for (int i = 0; i < n_defaults; i++) {
        opt->defaults[defaults[i].key] = defaults[i].value;
        opt->default_has |= 1u << defaults[i].key;
    }
    ct_param_group group = {params, n, {{NULL, 0}}};
    if (ct_optim_add_param_group(opt, group) != CT_OK) {
        ct_optim_free(opt);
        return NULL;
    }
    return opt;
}

ct_optimizer *ct_sgd(ct_tensor *const *params, int64_t n, ct_sgd_opts o)
{
    if (ct__check_common(o.lr, NAN, o.weight_decay) != CT_OK ||
        ct__check_value(0.0 <= o.momentum, "momentum value", o.momentum) != CT_OK)
        return NULL;
    if (o.nesterov && (o.momentum <= 0 || o.dampening != 0)) {
        ct__fail(CT_ERR_VALUE, "Nesterov momentum requires a momentum and zero dampening");
        return NULL;
    }
    ct__default d[] = {{CT__K_LR, o.lr},
                       {CT__K_MOMENTUM, o.momentum},
                       {CT__K_DAMPENING, o.dampening},
                       {CT__K_WEIGHT_DECAY, o.weight_decay},
                       {CT__K_NESTEROV, (double)o.nesterov},
                       {CT__K_MAXIMIZE, (double)o.maximize}};
    return ct__optim_new(&ct__sgd_class, params, n, d, 6);
}

ct_adam_opts ct_adam_opts_init(void)
{
    ct_adam_opts o = {1e-3, 0.9, 0.999, 1e-8, 0, false, false};
    return o;
}

ct_adam_opts ct_adamw_opts_init(void)
{
    ct_adam_opts o = ct_adam_opts_init();
    o.weight_decay = 1e-2;
    return o;
}

static ct_optimizer *ct__adam_family(const ct__optim_class *cls, ct_tensor *const *params, int64_t n, ct_adam_opts o)
{
    if (ct__check_adam_like(o.lr, o.eps, o.beta1, o.beta2, o.weight_decay) != CT_OK)
        return NULL;
    ct__default d[] = {{CT__K_LR, o.lr},       {CT__K_BETA1, o.beta1},
                       {CT__K_BETA2, o.beta2}, {CT__K_EPS, o.eps},
                       {CT__K_WEIGHT_DECAY, o.weight_decay}, {CT__K_AMSGRAD, (double)o.amsgrad},
                       {CT__K_MAXIMIZE, (double)o.maximize}};
    return ct__optim_new(cls, params, n, d, 7);
}

ct_optimizer *ct_adam(ct_tensor *const *params, int64_t n, ct_adam_opts o)
{
    return ct__adam_family(&ct__adam_class, params, n, o);
}

ct_optimizer *ct_adamw(ct_tensor *const *params, int64_t n, ct_adam_opts o)
{
    return ct__adam_family(&ct__adamw_class, params, n, o);
}

ct_rmsprop_opts ct_rmsprop_opts_init(void)
{
    ct_rmsprop_opts o = {1e-2, 0.99, 1e-8, 0, 0, false, false};
    return o;
}

ct_optimizer *ct_rmsprop(ct_tensor *const *params, int64_t n, ct_rmsprop_opts o)
{
    if (ct__check_value(0.0 <= o.lr, "learning rate", o.lr) != CT_OK ||
        ct__check_value(0.0 <= o.eps, "epsilon value", o.eps) != CT_OK ||
        ct__check_value(0.0 <= o.momentum, "momentum value", o.momentum) != CT_OK ||
        ct__check_value(0.0 <= o.weight_decay, "weight_decay value", o.weight_decay) != CT_OK ||
        ct__check_value(0.0 <= o.alpha, "alpha value", o.alpha) != CT_OK)
        return NULL;
    ct__default d[] = {{CT__K_LR, o.lr},          {CT__K_MOMENTUM, o.momentum}, {CT__K_ALPHA, o.alpha},
                       {CT__K_EPS, o.eps},        {CT__K_CENTERED, (double)o.centered}, {CT__K_WEIGHT_DECAY, o.weight_decay},
                       {CT__K_MAXIMIZE, (double)o.maximize}};
    return ct__optim_new(&ct__rmsprop_class, params, n, d, 7);
}

ct_adagrad_opts ct_adagrad_opts_init(void)
{
    ct_adagrad_opts o = {1e-2, 0, 0, 0, 1e-10, false};
    return o;
}

ct_optimizer *ct_adagrad(ct_tensor *const *params, int64_t n, ct_adagrad_opts o)
{
    if (ct__check_value(0.0 <= o.lr, "learning rate", o.lr) != CT_OK ||
        ct__check_value(0.0 <= o.lr_decay, "lr_decay value", o.lr_decay) != CT_OK ||
        ct__check_value(0.0 <= o.weight_decay, "weight_decay value", o.weight_decay) != CT_OK ||
        ct__check_value(0.0 <= o.initial_accumulator_value, "initial_accumulator_value value",
                        o.initial_accumulator_value) != CT_OK ||
        ct__check_value(0.0 <= o.eps, "epsilon value", o.eps) != CT_OK)
        return NULL;
    ct__default d[] = {{CT__K_LR, o.lr},
                       {CT__K_LR_DECAY, o.lr_decay},
                       {CT__K_EPS, o.eps},
                       {CT__K_WEIGHT_DECAY, o.weight_decay},
                       {CT__K_INITIAL_ACC, o.initial_accumulator_value},
                       {CT__K_MAXIMIZE, (double)o.maximize}};
    return ct__optim_new(&ct__adagrad_class, params, n, d, 6);
}

ct_adadelta_opts ct_adadelta_opts_init(void)
{
    ct_adadelta_opts o = {1.0, 0.9, 1e-6, 0, false};
    return o;
}

ct_optimizer *ct_adadelta(ct_tensor *const *params, int64_t n, ct_adadelta_opts o)
{
    if (ct__check_value(0.0 <= o.lr, "learning rate", o.lr) != CT_OK ||
        ct__check_value(0.0 <= o.rho && o.rho <= 1.0, "rho value", o.rho) != CT_OK ||
        ct__check_value(0.0 <= o.eps, "epsilon value", o.eps) != CT_OK ||
        ct__check_value(0.0 <= o.weight_decay, "weight_decay value", o.weight_decay) != CT_OK)
        return NULL;
    ct__default d[] = {{CT__K_LR, o.lr},
                       {CT__K_RHO, o.rho},
                       {CT__K_EPS, o.eps},
                       {CT__K_WEIGHT_DECAY, o.weight_decay},
                       {CT__K_MAXIMIZE, (double)o.maximize}};
    return ct__optim_new(&ct__adadelta_class, params, n, d, 5);
}

ct_adamax_opts ct_adamax_opts_init(void)
{
    ct_adamax_opts o = {2e-3, 0.9, 0.999, 1e-8, 0, false};
    return o;
}

ct_optimizer *ct_adamax(ct_tensor *const *params, int64_t n, ct_adamax_opts o)
{
    if (ct__check_adam_like(o.lr, o.eps, o.beta1, o.beta2, o.weight_decay) != CT_OK)
        return NULL;
    ct__default d[] = {{CT__K_LR, o.lr},   {CT__K_BETA1, o.beta1},
                       {CT__K_BETA2, o.beta2},                {CT__K_EPS, o.eps},
                       {CT__K_WEIGHT_DECAY, o.weight_decay}, {CT__K_MAXIMIZE, (double)o.maximize}};
    return ct__optim_new(&ct__adamax_class, params, n, d, 6);
}

ct_nadam_opts ct_nadam_opts_init(void)
{
    ct_nadam_opts o = {2e-3, 0.9, 0.999, 1e-8, 0, 4e-3};
    return o;
}

ct_optimizer *ct_nadam(ct_tensor *const *params, int64_t n, ct_nadam_opts o)
{
    if (ct__check_adam_like(o.lr, o.eps, o.beta1, o.beta2, o.weight_decay) != CT_OK ||
        ct__check_value(0.0 <= o.momentum_decay, "momentum_decay value", o.momentum_decay) != CT_OK)
        return NULL;
    ct__default d[] = {{CT__K_LR, o.lr},   {CT__K_BETA1, o.beta1},
                       {CT__K_BETA2, o.beta2},                {CT__K_EPS, o.eps},
                       {CT__K_WEIGHT_DECAY, o.weight_decay}, {CT__K_MOMENTUM_DECAY, o.momentum_decay}};
    return ct__optim_new(&ct__nadam_class, params, n, d, 6);
}

ct_radam_opts ct_radam_opts_init(void)
{
    ct_radam_opts o = {1e-3, 0.9, 0.999, 1e-8, 0};
    return o;
}

ct_optimizer *ct_radam(ct_tensor *const *params, int64_t n, ct_radam_opts o)
{
    if (ct__check_adam_like(o.lr, o.eps, o.beta1, o.beta2, o.weight_decay) != CT_OK)
        return NULL;
    ct__default d[] = {{CT__K_LR, o.lr},
                       {CT__K_BETA1, o.beta1},
                       {CT__K_BETA2, o.beta2},
                       {CT__K_EPS, o.eps},
                       {CT__K_WEIGHT_DECAY, o.weight_decay}};
    return ct__optim_new(&ct__radam_class, params, n, d, 5);
}

ct_lbfgs_opts ct_lbfgs_opts_init(void)
{
    ct_lbfgs_opts o = {1, 20, 0, 1e-7, 1e-9, 100, false};
    return o;
}

ct_optimizer *ct_lbfgs(ct_tensor *const *params, int64_t n, ct_lbfgs_opts o)
{
    int64_t max_eval = o.max_eval ? o.max_eval : o.max_iter * 5 / 4;
    ct__default d[] = {{CT__K_LR, o.lr},
                       {CT__K_MAX_ITER, (double)o.max_iter},
                       {CT__K_MAX_EVAL, (double)max_eval},
                       {CT__K_TOL_GRAD, o.tolerance_grad},
                       {CT__K_TOL_CHANGE, o.tolerance_change},
                       {CT__K_HISTORY, (double)o.history_size},
                       {CT__K_STRONG_WOLFE, (double)o.strong_wolfe}};
    return ct__optim_new(&ct__lbfgs_class, params, n, d, 7);
}

static void ct__pstate_clear(ct__pstate *st)
{
    for (int b = 0; b < CT__NBUF; b++) ct_release(st->buf[b]);
    memset(st, 0, sizeof *st);
}

void ct_optim_free(ct_optimizer *opt)
{
    if (!opt) return;
    for (int g = 0; g < opt->n_groups; g++) {
        for (int64_t i = 0; i < opt->groups[g].n; i++) {
            ct_release(opt->groups[g].params[i]);
            ct__pstate_clear(&opt->groups[g].state[i]);
        }
        CT_FREE(opt->groups[g].params);
        CT_FREE(opt->groups[g].state);
    }
    CT_FREE(opt->groups);
    ct__lbfgs_free(opt->lbfgs);
    CT_FREE(opt);
}

/* ---------------------------------------------------------------- steps */

ct_result ct_optim_zero_grad(ct_optimizer *opt, bool set_to_none)
{
    if (!opt) return ct__fail(CT_ERR_TYPE, "zero_grad(): optimizer must not be NULL");
    for (int g = 0; g < opt->n_groups; g++)
        for (int64_t i = 0; i < opt->groups[g].n; i++) {
            ct_tensor *p = opt->groups[g].params[i];
            if (!p->ag || !ct__meta(p)->grad) continue;
            if (set_to_none) {
                ct_set_grad(p, NULL);
                continue;
            }
            ct_tensor *grad = ct__meta(p)->grad;
            if (ct_grad_fn(grad)) ct_detach_(grad); /* p.grad.detach_() or requires_grad_(False) */
            else ct_requires_grad_(grad, false);
            ct_zero_(grad);
        }
    return CT_OK;
}

/* Checked before the first update so that a refused step changes nothing
 * (PyTorch would fail at that parameter's first op, with TensorIterator's
 * words). */
static ct_result ct__optim_check_devices(const ct_optimizer *opt)
{
    for (int g = 0; g < opt->n_groups; g++)
        for (int64_t i = 0; i < opt->groups[g].n; i++) {
            const ct_tensor *p = opt->groups[g].params[i], *grad = p->ag ? ct__meta(p)->grad : NULL;
            const ct_tensor *const *buf = (const ct_tensor *const *)opt->groups[g].state[i].buf;
            if (!grad) continue;
            ct_result r = ct__same_device(p, grad, buf[0]);
            for (int k = 1; r == CT_OK && k < CT__NBUF; k++) r = ct__same_device(p, buf[k], NULL);
            if (r != CT_OK) return r;
        }
    return CT_OK;
}

static ct_result ct__optim_update_all(ct_optimizer *opt)
{
    ct_result r0 = ct__optim_check_devices(opt);
    if (r0 != CT_OK) return r0;
    for (int g = 0; g < opt->n_groups; g++) {
        ct__group *grp = &opt->groups[g];
        for (int64_t i = 0; i < grp->n; i++) {
            ct_tensor *p = grp->params[i];
            ct_tensor *grad = p->ag ? ct__meta(p)->grad : NULL;
            if (!grad) continue;
            ct__pstate *st = &grp->state[i];
            ct_result r = st->init ? CT_OK : ct__init_state(opt->cls, grp->v, p, st);
            if (r == CT_OK) r = opt->cls->update(grp->v, p, grad, st);
            if (r != CT_OK) return r;
        }
    }
    return CT_OK;
}

ct_result ct_optim_step(ct_optimizer *opt)
{
    if (!opt) return ct__fail(CT_ERR_TYPE, "step(): optimizer must not be NULL");
    if (!opt->cls->update) return ct__fail(CT_ERR_TYPE, "step() missing 1 required positional argument: 'closure'");
    ct_grad_mode mode = ct_no_grad();
    ct_scope s = ct_scope_begin();
    ct_result r = ct__optim_update_all(opt);
    ct_scope_end(s);
    ct_grad_mode_restore(mode);
    return r;
}

ct_result ct_optim_step_closure(ct_optimizer *opt, ct_closure closure, void *user, double *loss)
{
    if (!opt) return ct__fail(CT_ERR_TYPE, "step(): optimizer must not be NULL");
    if (!closure) return ct__fail(CT_ERR_TYPE, "'NoneType' object is not callable");
    if (!opt->cls->update) return ct__lbfgs_step(opt, closure, user, loss);
    ct_grad_mode mode = ct_enable_grad();
    double value = NAN;
    ct_result r = closure(&value, user);
    ct_grad_mode_restore(mode);
    if (r != CT_OK) return r;
    if (loss) *loss = value;
    return ct_optim_step(opt);
}

/* ---------------------------------------------------------------- state */

static ct_tensor *ct__step_tensor(double v)
{
    float f = (float)v;
    return ct_from_array(&f, CT_SHAPE0, CT_F32);
}

static ct_tensor *ct__key_error(const char *name)
{
    ct__fail(CT_ERR_INDEX, "'%s'", name ? name : "(null)");
    return NULL;
}

ct_tensor *ct_optim_state_get(const ct_optimizer *opt, const ct_tensor *param, const char *name)
{
    int g;
    int64_t i;
    if (!opt) { ct__fail(CT_ERR_TYPE, "state_get(): optimizer must not be NULL"); return NULL; }
    CT__ARG(param, "param", 2);
    if (!ct__optim_owns(opt, param, &g, &i)) return ct__key_error("param");
    if (opt->lbfgs && g == 0 && i == 0) return ct__lbfgs_state_get(opt->lbfgs, name);
    const ct__pstate *st = &opt->groups[g].state[i];
    if (!st->init || !name) return ct__key_error(name);
    if (opt->cls->counts_steps && !strcmp(name, "step")) return ct__step_tensor(st->step);
    if (opt->cls == &ct__nadam_class && !strcmp(name, "mu_product")) return ct__step_tensor(st->mu_product);
    for (int b = 0; b < CT__NBUF; b++)
        if (opt->cls->bufs[b] && !strcmp(name, opt->cls->bufs[b]) && st->buf[b]) return ct__same(st->buf[b]);
    return ct__key_error(name);
}

struct ct_optim_state {
    const ct__optim_class *cls;
    int n_groups;
    ct__group *groups; /* params NULL: only their number counts */
    ct__lbfgs *lbfgs;
};

void ct_optim_state_free(ct_optim_state *state)
{
    if (!state) return;
    for (int g = 0; g < state->n_groups; g++) {
        for (int64_t i = 0; i < state->groups[g].n; i++) ct__pstate_clear(&state->groups[g].state[i]);
        CT_FREE(state->groups[g].state);
    }
    CT_FREE(state->groups);
    ct__lbfgs_free(state->lbfgs);
    CT_FREE(state);
}

/* A copy of one parameter's state, its tensors cloned (cast to dtype unless CT_DEFAULT). */
static ct_result ct__pstate_copy(ct__pstate *dst, const ct__pstate *src, ct_dtype dtype)
{
    *dst = *src;
    for (int b = 0; b < CT__NBUF; b++) {
        if (!src->buf[b]) continue;
        ct_scope s = ct_scope_begin();
        ct_tensor *t = ct_clone(dtype == CT_DEFAULT ? src->buf[b] : ct_to(src->buf[b], dtype));
        dst->buf[b] = ct__keep_state(t);
        ct_scope_end(s);
        if (!dst->buf[b]) {
            while (--b >= 0) ct_release(dst->buf[b]), dst->buf[b] = NULL;
            return ct_last_error_code();
        }
    }
    return CT_OK;
}

/* Groups with copied state (params shared when keep_params, else NULL). */
static ct__group *ct__groups_copy(const ct__group *src, int n_groups, const ct__group *dtypes_from)
{
    ct__group *out = (ct__group *)ct__zalloc((size_t)(n_groups ? n_groups : 1) * sizeof *out);
    if (!out) { CT__OOM(); return NULL; }
    for (int g = 0; g < n_groups; g++) {
        out[g] = src[g];
        out[g].params = NULL;
        out[g].state = (ct__pstate *)ct__zalloc((size_t)src[g].n * sizeof *out[g].state);
        bool ok = out[g].state != NULL;
        for (int64_t i = 0; ok && i < src[g].n; i++) {
            ct_dtype dt = dtypes_from ? ct_dtype_of(dtypes_from[g].params[i]) : CT_DEFAULT;
            ok = ct__pstate_copy(&out[g].state[i], &src[g].state[i], dt) == CT_OK;
        }
        if (!ok) {
            if (!out[g].state) CT__OOM();
            for (int h = 0; h <= g; h++) {
                for (int64_t i = 0; out[h].state && i < out[h].n; i++) ct__pstate_clear(&out[h].state[i]);
                CT_FREE(out[h].state);
            }
            CT_FREE(out);
            return NULL;
        }
    }
    return out;
}

ct_optim_state *ct_optim_state_dict(const ct_optimizer *opt)
{
    if (!opt) { ct__fail(CT_ERR_TYPE, "state_dict(): optimizer must not be NULL"); return NULL; }
    ct_optim_state *st = (ct_optim_state *)ct__zalloc(sizeof *st);
    if (!st) { CT__OOM(); return NULL; }
    st->cls = opt->cls;
    st->groups = ct__groups_copy(opt->groups, opt->n_groups, NULL);
    st->n_groups = opt->n_groups;
    if (opt->lbfgs) st->lbfgs = ct__lbfgs_clone(opt->lbfgs);
    if (!st->groups || (opt->lbfgs && !st->lbfgs)) {
        if (!st->groups) st->n_groups = 0;
        ct_optim_state_free(st);
        return NULL;
    }
    return st;
}

ct_result ct_optim_load_state_dict(ct_optimizer *opt, const ct_optim_state *state)
{
    if (!opt) return ct__fail(CT_ERR_TYPE, "load_state_dict(): optimizer must not be NULL");
    if (!state) return ct__fail(CT_ERR_TYPE, "load_state_dict(): state_dict must not be NULL");
    if (state->n_groups != opt->n_groups || state->cls != opt->cls)
        return ct__fail(CT_ERR_VALUE, "loaded state dict has a different number of parameter groups");
    for (int g = 0; g < opt->n_groups; g++)
        if (state->groups[g].n != opt->groups[g].n)
            return ct__fail(CT_ERR_VALUE, "loaded state dict contains a parameter group that doesn't match the "
                                          "size of optimizer's group");
    ct__group *copy = ct__groups_copy(state->groups, state->n_groups, opt->groups);
    ct__lbfgs *lbfgs = state->lbfgs ? ct__lbfgs_clone(state->lbfgs) : NULL;
    if (!copy || (state->lbfgs && !lbfgs)) {
        for (int g = 0; copy && g < state->n_groups; g++) {
            for (int64_t i = 0; i < copy[g].n; i++) ct__pstate_clear(&copy[g].state[i]);
            CT_FREE(copy[g].state);
        }
        CT_FREE(copy);
        ct__lbfgs_free(lbfgs);
        return ct_last_error_code();
    }
    for (int g = 0; g < opt->n_groups; g++) {
        ct__group *dst = &opt->groups[g];
        for (int64_t i = 0; i < dst->n; i++) ct__pstate_clear(&dst->state[i]);
        CT_FREE(dst->state);
        dst->state = copy[g].state;
        memcpy(dst->v, copy[g].v, sizeof dst->v);
        dst->has = copy[g].has;
    }
    CT_FREE(copy);
    ct__lbfgs_free(opt->lbfgs);
    opt->lbfgs = lbfgs;
    return CT_OK;
}
