/* torch.optim.LBFGS: limited-memory BFGS over the flattened parameters,
 * with PyTorch 1.13's iteration, history and strong-Wolfe line search. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A scalar of the algorithm as PyTorch holds it: a Python float, or a 0-d
 * tensor of the parameters' dtype (dot products, norms, and whatever is
 * computed from them). An operation with a float32 tensor operand rounds
 * both operands and the result to float32, as a 0-d float32 tensor op does
 * (a double result rounded to float is the float result for + - * / and
 * sqrt); everything else is double, exact for float64 parameters. The step
 * size is a tensor or a float depending on the path taken, so the kind
 * travels with the value. Parameters of other dtypes keep double scalars. */
typedef struct ct__num {
    double v;
    bool f32;    /* a 0-d float32 tensor */
    bool failed; /* made from a tensor that could not be made (its error set), or from such a
                  * scalar: a chain is checked once at its end, as with a NULL tensor */
} ct__num;

/* v as a value of its kind: rounded to float32 when it is a float32 tensor */
static ct__num ct__num_make(double v, bool f32)
{
    ct__num n;
    n.v = ct__as_dtype(v, f32 ? CT_F32 : CT_F64);
    n.f32 = f32;
    n.failed = false;
    return n;
}

static ct__num ct__py(double v) { return ct__num_make(v, false); }

/* a op b, op one of + - * / */
static ct__num ct__arith(ct__num a, char op, ct__num b)
{
    bool f32 = a.f32 || b.f32;
    ct_dtype dt = f32 ? CT_F32 : CT_F64;
    double x = ct__as_dtype(a.v, dt), y = ct__as_dtype(b.v, dt);
    double z = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
    ct__num r = ct__num_make(z, f32);
    r.failed = a.failed || b.failed;
    return r;
}

static ct__num ct__add(ct__num a, ct__num b) { return ct__arith(a, '+', b); }
static ct__num ct__sub(ct__num a, ct__num b) { return ct__arith(a, '-', b); }
static ct__num ct__mul(ct__num a, ct__num b) { return ct__arith(a, '*', b); }
static ct__num ct__div(ct__num a, ct__num b) { return ct__arith(a, '/', b); }
static ct__num ct__abs(ct__num a)
{
    ct__num r = ct__num_make(fabs(a.v), a.f32);
    r.failed = a.failed;
    return r;
}

/* a < b; a comparison with a tensor compares in its dtype */
static bool ct__lt(ct__num a, ct__num b)
{
    ct_dtype dt = a.f32 || b.f32 ? CT_F32 : CT_F64;
    return ct__as_dtype(a.v, dt) < ct__as_dtype(b.v, dt);
}

static bool ct__le(ct__num a, ct__num b) { return !ct__lt(b, a) && a.v == a.v && b.v == b.v; }
/* Python's min(a, b) and max(a, b) */
static ct__num ct__num_pick(ct__num chosen, ct__num a, ct__num b)
{
    chosen.failed = a.failed || b.failed;
    return chosen;
}
static ct__num ct__min(ct__num a, ct__num b) { return ct__num_pick(ct__lt(b, a) ? b : a, a, b); }
static ct__num ct__max(ct__num a, ct__num b) { return ct__num_pick(ct__lt(a, b) ? b : a, a, b); }

struct ct__lbfgs {
    int64_t func_evals, n_iter;
    ct_tensor *d, *prev_flat_grad;
    ct__num t, H_diag;
    double prev_loss;
    int64_t n_old;           /* history entries in use */
    ct_tensor **old_dirs, **old_stps;
    ct__num *ro, *al;        /* history_size each */
    int64_t history_size;
};

static void ct__lbfgs_free(ct__lbfgs *s)
{
    if (!s) return;
    ct_release(s->d);
    ct_release(s->prev_flat_grad);
    for (int64_t i = 0; i < s->n_old; i++) ct_release(s->old_dirs[i]), ct_release(s->old_stps[i]);
    CT_FREE(s->old_dirs);
    CT_FREE(s->old_stps);
    CT_FREE(s->ro);
    CT_FREE(s->al);
    CT_FREE(s);
}

/* The history's entries: history_size, and a spare one where an iteration
 * puts its new pair until it knows that it will not fail. */
static size_t ct__lbfgs_capacity(int64_t history_size) { return (size_t)(history_size > 0 ? history_size : 0) + 1; }

static ct__lbfgs *ct__lbfgs_new(int64_t history_size)
{
    ct__lbfgs *s = (ct__lbfgs *)CT_MALLOC(sizeof *s);
    if (!s) {
        CT__OOM();
        return NULL;
    }
    memset(s, 0, sizeof *s);
    size_t n = ct__lbfgs_capacity(history_size);
    s->history_size = history_size;
    s->old_dirs = (ct_tensor **)CT_MALLOC(n * sizeof *s->old_dirs);
    s->old_stps = (ct_tensor **)CT_MALLOC(n * sizeof *s->old_stps);
    s->ro = (ct__num *)CT_MALLOC(n * sizeof *s->ro);
    s->al = (ct__num *)CT_MALLOC(n * sizeof *s->al);
    if (!s->old_dirs || !s->old_stps || !s->ro || !s->al) {
        ct__lbfgs_free(s);
        CT__OOM();
        return NULL;
    }
    memset(s->al, 0, n * sizeof *s->al);
    return s;
}

static ct__lbfgs *ct__lbfgs_clone(const ct__lbfgs *src)
{
    ct__lbfgs *s = ct__lbfgs_new(src->history_size);
    if (!s) return NULL;
    ct_tensor **old_dirs = s->old_dirs, **old_stps = s->old_stps;
    ct__num *ro = s->ro, *al = s->al;
    size_t n = ct__lbfgs_capacity(src->history_size);
    *s = *src;
    s->old_dirs = old_dirs, s->old_stps = old_stps, s->ro = ro, s->al = al;
    memcpy(ro, src->ro, n * sizeof *ro);
    memcpy(al, src->al, n * sizeof *al);
    ct_scope sc = ct_scope_begin();
    s->d = src->d ? ct__keep_state(ct_clone(src->d)) : NULL;
    s->prev_flat_grad = src->prev_flat_grad ? ct__keep_state(ct_clone(src->prev_flat_grad)) : NULL;
    bool ok = (!src->d || s->d) && (!src->prev_flat_grad || s->prev_flat_grad);
    int64_t i = 0;
    for (; ok && i < src->n_old; i++) {
        old_dirs[i] = ct__keep_state(ct_clone(src->old_dirs[i]));
        old_stps[i] = ct__keep_state(ct_clone(src->old_stps[i]));
        ok = old_dirs[i] && old_stps[i];
    }
    ct_scope_end(sc);
    if (!ok) {
        s->n_old = i;
        ct__lbfgs_free(s);
        return NULL;
    }
    return s;
}

static ct_tensor *ct__lbfgs_state_get(const ct__lbfgs *s, const char *name)
{
    double v;
    if (!name) return ct__key_error(name);
    if (!strcmp(name, "d") && s->d) return ct__same(s->d);
    if (!strcmp(name, "prev_flat_grad") && s->prev_flat_grad) return ct__same(s->prev_flat_grad);
    if (!strcmp(name, "func_evals")) v = (double)s->func_evals;
    else if (!strcmp(name, "n_iter")) v = (double)s->n_iter;
    else if (!strcmp(name, "t")) v = s->t.v;
    else if (!strcmp(name, "H_diag")) v = s->H_diag.v;
    else if (!strcmp(name, "prev_loss")) v = s->prev_loss;
    else return ct__key_error(name);
    return ct_from_array(&v, CT_SHAPE0, CT_F64);
}

/* ---------------------------------------------------------------- flat vectors */

typedef struct ct__lbfgs_ctx {
    ct__group *g;
    ct_closure closure;
    void *user;
} ct__lbfgs_ctx;

/* a 0-d tensor's value as a scalar of the algorithm */
static ct__num ct__num_of(const ct_tensor *t)
{
    ct__num n = ct__num_make(t ? ct_item(t) : NAN, t && ct_dtype_of(t) == CT_F32);
    n.failed = !t;
    return n;
}
static ct__num ct__lbfgs_dot(const ct_tensor *a, const ct_tensor *b) { return ct__num_of(ct_sum(ct_mul(a, b))); }
static ct__num ct__abs_max(const ct_tensor *a) { return ct__num_of(ct_max(ct_abs(a))); }

/* torch.cat of the gradients viewed flat (zeros for a parameter without one). */
static ct_tensor *ct__flat_grad(const ct__group *g)
{
    ct_tensor **v = (ct_tensor **)CT_MALLOC((size_t)g->n * sizeof *v);
    if (!v) {
        CT__OOM();
        return NULL;
    }
    for (int64_t i = 0; i < g->n; i++) {
        ct_tensor *p = g->params[i], *grad = p->ag ? ct__meta(p)->grad : NULL;
        v[i] = grad ? ct_reshape(grad, CT_SHAPE(-1)) : ct_zeros(CT_SHAPE(ct_numel(p)), ct_dtype_of(p));
    }
    ct_tensor *flat = ct_cat(v, (int)g->n, 0);
    CT_FREE(v);
    return flat;
}

/* p += step_size * update[slice of p], for each parameter */
static ct_result ct__add_grad(const ct__group *g, double step_size, const ct_tensor *update)
{
    int64_t offset = 0;
    for (int64_t i = 0; i < g->n; i++) {
        ct_tensor *p = g->params[i];
        int64_t numel = ct_numel(p);
        ct_tensor *piece = ct_view_as(ct_narrow(update, 0, offset, numel), p);
        ct_result r = ct_add_alpha_(p, piece, ct_float(step_size));
        if (r != CT_OK) return r;
        offset += numel;
    }
    return CT_OK;
}

static ct_result ct__eval(const ct__lbfgs_ctx *c, double *loss)
{
    ct_grad_mode mode = ct_enable_grad();
    ct_result r = c->closure(loss, c->user);
    ct_grad_mode_restore(mode);
    return r;
}

/* _directional_evaluate: loss, flat gradient and its slope g.d at x + t d,
 * then back to x (also when the evaluation failed). */
static ct_result ct__dir_eval(const ct__lbfgs_ctx *c, ct_tensor *const *x, double t, const ct_tensor *d, double *f,
                              ct_tensor **g, ct__num *gtd)
{
    ct_result r = ct__add_grad(c->g, t, d);
    if (r == CT_OK) r = ct__eval(c, f);
    if (r == CT_OK) *gtd = ct__lbfgs_dot(*g = ct__flat_grad(c->g), d);
    if (r == CT_OK && gtd->failed) r = ct_last_error_code();
    for (int64_t i = 0; i < c->g->n; i++) {
        ct_result back = ct_copy_(c->g->params[i], x[i]);
        if (r == CT_OK) r = back;
    }
    return r;
}

/* The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2) within
 * bounds; the losses f are Python floats, the slopes g tensors. */
static ct__num ct__cubic_interpolate(ct__num x1, double f1, ct__num g1, ct__num x2, double f2, ct__num g2,
                                     const ct__num *bounds)
{
    bool ordered = ct__le(x1, x2);
    ct__num xmin_bound = bounds ? bounds[0] : ordered ? x1 : x2;
    ct__num xmax_bound = bounds ? bounds[1] : ordered ? x2 : x1;
    /* d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2); d2_square = d1**2 - g1 * g2 */
    ct__num d1 = ct__sub(ct__add(g1, g2), ct__div(ct__py(3 * (f1 - f2)), ct__sub(x1, x2)));
    ct__num d2_square = ct__sub(ct__mul(d1, d1), ct__mul(g1, g2));
    if (!ct__le(ct__py(0), d2_square)) return ct__div(ct__add(xmin_bound, xmax_bound), ct__py(2.));
    ct__num d2 = ct__num_make(sqrt(d2_square.v), d2_square.f32), two_d2 = ct__mul(ct__py(2), d2), min_pos;
    if (ordered) /* x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2)) */
        min_pos = ct__sub(x2, ct__mul(ct__sub(x2, x1),
                                      ct__div(ct__sub(ct__add(g2, d2), d1), ct__add(ct__sub(g2, g1), two_d2))));
    else /* x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2)) */
        min_pos = ct__sub(x1, ct__mul(ct__sub(x1, x2),
                                      ct__div(ct__sub(ct__add(g1, d2), d1), ct__add(ct__sub(g1, g2), two_d2))));
    return ct__min(ct__max(min_pos, xmin_bound), xmax_bound);
}

/* One end of a bracket of the line search. */
typedef struct ct__ls_point {
    ct__num t;
    double f;
    ct__num gtd;
    ct_tensor *g;
} ct__ls_point;

static ct__ls_point ct__ls_at(ct__num t, double f, ct__num gtd, ct_tensor *g)
{
    ct__ls_point p;
    p.t = t, p.f = f, p.gtd = gtd, p.g = g;
    return p;
}

/* f + c1 * t * gtd < f_new: the sufficient decrease (Armijo) condition fails */
static bool ct__armijo_fails(double f_new, double f, ct__num t, ct__num gtd)
{
    return ct__lt(ct__add(ct__py(f), ct__mul(ct__mul(ct__py(1e-4), t), gtd)), ct__py(f_new));
}

/* abs(gtd_new) <= -c2 * gtd: the curvature condition holds */
static bool ct__curvature_holds(ct__num gtd_new, ct__num gtd)
{
    return ct__le(ct__abs(gtd_new), ct__mul(ct__py(-0.9), gtd));
}

/* _strong_wolfe(obj_func, x, t, d, f, g, gtd): the step t, its loss and gradient. */
static ct_result ct__strong_wolfe(const ct__lbfgs_ctx *c, ct_tensor *const *x, ct__num *t_io, const ct_tensor *d,
                                  double *f_io, ct_tensor **g_io, ct__num gtd, double tolerance_change,
                                  int64_t *evals)
{
    const int max_ls = 25;
    ct__num t = *t_io, d_norm = ct__abs_max(d), gtd_new;
    double f = *f_io, f_new;
    ct_tensor *g_new = NULL;
    if (d_norm.failed) return ct_last_error_code();
    ct_result r = ct__dir_eval(c, x, t.v, d, &f_new, &g_new, &gtd_new);
    if (r != CT_OK) return r;
    int64_t ls_func_evals = 1;
    ct__ls_point prev = ct__ls_at(ct__py(0), f, gtd, *g_io), br[2];
    int nb = 0, ls_iter = 0;
    bool done = false;
    while (ls_iter < max_ls) {
        bool sufficient = !(ct__armijo_fails(f_new, f, t, gtd) || (ls_iter > 1 && f_new >= prev.f));
        if (sufficient && ct__curvature_holds(gtd_new, gtd)) {
            br[0] = ct__ls_at(t, f_new, gtd_new, g_new), nb = 1, done = true;
            break;
        }
        if (!sufficient || ct__le(ct__py(0), gtd_new)) {
            br[0] = prev, br[1] = ct__ls_at(t, f_new, gtd_new, g_new), nb = 2;
            break;
        }
        /* bounds (t + 0.01 * (t - t_prev), t * 10) */
        ct__num bounds[2] = {ct__add(t, ct__mul(ct__py(0.01), ct__sub(t, prev.t))), ct__mul(t, ct__py(10))};
        ct__num tmp = t;
        t = ct__cubic_interpolate(prev.t, prev.f, prev.gtd, t, f_new, gtd_new, bounds);
        prev = ct__ls_at(tmp, f_new, gtd_new, g_new);
        if ((r = ct__dir_eval(c, x, t.v, d, &f_new, &g_new, &gtd_new)) != CT_OK) return r;
        ls_func_evals++;
        ls_iter++;
    }
    if (ls_iter == max_ls)
        br[0] = ct__ls_at(ct__py(0), f, gtd, *g_io), br[1] = ct__ls_at(t, f_new, gtd_new, g_new), nb = 2;
    bool insuf_progress = false;
    int low = nb == 2 && br[0].f > br[1].f ? 1 : 0, high = 1 - low;
    while (!done && ls_iter < max_ls) {
        if (ct__lt(ct__mul(ct__abs(ct__sub(br[1].t, br[0].t)), d_norm), ct__py(tolerance_change))) break;
        t = ct__cubic_interpolate(br[0].t, br[0].f, br[0].gtd, br[1].t, br[1].f, br[1].gtd, NULL);
        /* max(bracket), min(bracket) and eps = 0.1 * (max - min) */
        ct__num hi_t = ct__max(br[0].t, br[1].t), lo_t = ct__min(br[0].t, br[1].t);
        ct__num eps = ct__mul(ct__py(0.1), ct__sub(hi_t, lo_t));
        if (ct__lt(ct__min(ct__sub(hi_t, t), ct__sub(t, lo_t)), eps)) {
            if (insuf_progress || ct__le(hi_t, t) || ct__le(t, lo_t)) {
                bool nearer_hi = ct__lt(ct__abs(ct__sub(t, hi_t)), ct__abs(ct__sub(t, lo_t)));
                t = nearer_hi ? ct__sub(hi_t, eps) : ct__add(lo_t, eps);
                insuf_progress = false;
            } else {
                insuf_progress = true;
            }
        } else {
            insuf_progress = false;
        }
        if ((r = ct__dir_eval(c, x, t.v, d, &f_new, &g_new, &gtd_new)) != CT_OK) return r;
        ls_func_evals++;
        ls_iter++;
        ct__ls_point p = {t, f_new, gtd_new, g_new};
        if (ct__armijo_fails(f_new, f, t, gtd) || f_new >= br[low].f) {
            br[high] = p;
            low = br[0].f <= br[1].f ? 0 : 1, high = 1 - low;
        } else {
            if (ct__curvature_holds(gtd_new, gtd)) done = true;
            else if (ct__le(ct__py(0), ct__mul(gtd_new, ct__sub(br[high].t, br[low].t)))) br[high] = br[low];
            br[low] = p;
        }
    }
    *t_io = br[low].t, *f_io = br[low].f, *g_io = br[low].g;
    *evals = ls_func_evals;
    return CT_OK;
}

/* ---------------------------------------------------------------- the step */

/* Release history entry i's tensors. */
static void ct__lbfgs_forget(ct__lbfgs *s, int64_t i)
{
    ct_release(s->old_dirs[i]);
    ct_release(s->old_stps[i]);
}

/* The two-loop recursion over history entries [first, end): d = -H grad,
 * H scaled by h_diag; NULL (the error set) when it could not be computed. */
static ct_tensor *ct__lbfgs_direction(ct__lbfgs *s, int64_t first, int64_t end, ct__num h_diag,
                                      const ct_tensor *flat_grad)
{
    ct_tensor *q = ct_neg(flat_grad);
    for (int64_t i = end - 1; q && i >= first; i--) {
        ct__num al = s->al[i - first] = ct__mul(ct__lbfgs_dot(s->old_stps[i], q), s->ro[i]);
        if (al.failed || ct_add_alpha_(q, s->old_dirs[i], ct_float(-al.v)) != CT_OK) q = NULL;
    }
    ct_tensor *r = q ? ct_mul_scalar(q, ct_float(h_diag.v)) : NULL;
    for (int64_t i = first; r && i < end; i++) {
        ct__num be_i = ct__mul(ct__lbfgs_dot(s->old_dirs[i], r), s->ro[i]);
        if (be_i.failed || ct_add_alpha_(r, s->old_stps[i], ct_float(ct__sub(s->al[i - first], be_i).v)) != CT_OK)
            r = NULL;
    }
    return r;
}

/* The last step's pair, y = flat_grad - prev_flat_grad and s = d t, put in
 * the spare entry after the history (n_old, not counted yet) when
 * y.s > 1e-10, with *h_diag = y.s / y.y; else nothing, and *h_diag the
 * state's. *kept says which. */
static ct_result ct__lbfgs_pending_pair(ct__lbfgs *s, const ct_tensor *flat_grad, bool *kept, ct__num *h_diag)
{
    ct_tensor *y = ct_sub(flat_grad, s->prev_flat_grad), *step = ct_mul_scalar(s->d, ct_float(s->t.v));
    ct__num ys = ct__lbfgs_dot(y, step);
    *kept = false;
    *h_diag = s->H_diag;
    if (ys.failed) return ct_last_error_code();
    if (!ct__lt(ct__py(1e-10), ys)) return CT_OK;
    ct__num yy = ct__lbfgs_dot(y, y);
    if (yy.failed) return ct_last_error_code();
    s->old_dirs[s->n_old] = ct__keep_state(y);
    s->old_stps[s->n_old] = ct__keep_state(step);
    s->ro[s->n_old] = ct__div(ct__py(1.), ys);
    *h_diag = ct__div(ys, yy);
    *kept = true;
    return CT_OK;
}

static void ct__lbfgs_set(ct_tensor **slot, ct_tensor *t)
{
    ct_tensor *old = *slot;
    *slot = ct__keep_state(t);
    ct_release(old);
}

/* An iteration up to its move (PyTorch's n_iter += 1 to gtd): the direction
 * d (steepest descent at the first iteration, else the two-loop recursion
 * over the history with the last step remembered, the oldest entry dropped
 * beyond history_size), prev_flat_grad, prev_loss, the step size t, and
 * *gtd = flat_grad.d. What can fail is computed before the state changes,
 * so that a failure leaves the state as the last iteration left it. */
static ct_result ct__lbfgs_advance(ct__lbfgs *s, const ct_tensor *flat_grad, double loss, double lr, ct__num *gtd)
{
    bool restart = s->n_iter == 0, kept = false;
    ct__num h_diag = ct__py(1), t = ct__py(lr);
    int64_t first = 0, end = 0;
    ct_tensor *d = NULL;
    ct_result r = CT_OK;
    if (restart) {
        d = ct_neg(flat_grad); /* t = min(1., 1. / flat_grad.abs().sum()) * lr */
        t = ct__mul(ct__min(ct__py(1.), ct__div(ct__py(1.), ct__num_of(ct_sum(ct_abs(flat_grad))))), ct__py(lr));
    } else if ((r = ct__lbfgs_pending_pair(s, flat_grad, &kept, &h_diag)) == CT_OK) {
        end = s->n_old + kept;
        first = end > s->history_size ? 1 : 0;
        d = ct__lbfgs_direction(s, first, end, h_diag, flat_grad);
    }
    ct_tensor *prev_flat_grad = d ? ct_clone(flat_grad) : NULL;
    *gtd = ct__lbfgs_dot(flat_grad, d);
    if (r == CT_OK && (!prev_flat_grad || t.failed || gtd->failed)) r = ct_last_error_code();
    if (r != CT_OK) {
        if (kept) ct__lbfgs_forget(s, s->n_old);
        return r;
    }
    if (restart) {
        for (int64_t i = 0; i < s->n_old; i++) ct__lbfgs_forget(s, i);
    } else if (first) {
        ct__lbfgs_forget(s, 0);
        memmove(s->old_dirs, s->old_dirs + 1, (size_t)(end - 1) * sizeof *s->old_dirs);
        memmove(s->old_stps, s->old_stps + 1, (size_t)(end - 1) * sizeof *s->old_stps);
        memmove(s->ro, s->ro + 1, (size_t)(end - 1) * sizeof *s->ro);
    }
    s->n_old = end - first;
    s->n_iter++;
    s->H_diag = h_diag;
    ct__lbfgs_set(&s->d, d);
    ct__lbfgs_set(&s->prev_flat_grad, prev_flat_grad);
    s->prev_loss = loss;
    s->t = t;
    return CT_OK;
}

static ct_result ct__lbfgs_iterate(ct_optimizer *opt, const ct__lbfgs_ctx *c, double loss)
{
    ct__lbfgs *s = opt->lbfgs;
    const double *o = c->g->v;
    double lr = o[CT__K_LR], tolerance_grad = o[CT__K_TOL_GRAD], tolerance_change = o[CT__K_TOL_CHANGE];
    int64_t max_iter = (int64_t)o[CT__K_MAX_ITER], max_eval = (int64_t)o[CT__K_MAX_EVAL];
    ct_tensor *flat_grad = ct__flat_grad(c->g);
    ct__num grad_max = ct__abs_max(flat_grad);
    if (grad_max.failed) return ct_last_error_code();
    int64_t current_evals = 1;
    if (ct__le(grad_max, ct__py(tolerance_grad))) {
        s->func_evals++;
        return CT_OK;
    }
    ct_result r = CT_OK;
    for (int64_t n_iter = 1; n_iter <= max_iter; n_iter++) {
        ct__num gtd;
        if ((r = ct__lbfgs_advance(s, flat_grad, loss, lr, &gtd)) != CT_OK) return r;
        /* the step's opening evaluation, counted once its first iteration has
         * begun: a step that fails before leaves the state as it was */
        if (n_iter == 1) s->func_evals++;
        if (ct__lt(ct__py(-tolerance_change), gtd)) break;
        int64_t ls_func_evals = 0;
        ct__num grad_max_now = grad_max;
        if (o[CT__K_STRONG_WOLFE] != 0) {
            ct_tensor **x = (ct_tensor **)CT_MALLOC((size_t)c->g->n * sizeof *x);
            if (!x) return CT__OOM();
            for (int64_t i = 0; i < c->g->n; i++) x[i] = ct_clone(c->g->params[i]);
            r = ct__strong_wolfe(c, x, &s->t, s->d, &loss, &flat_grad, gtd, tolerance_change, &ls_func_evals);
            CT_FREE(x);
            if (r == CT_OK) r = ct__add_grad(c->g, s->t.v, s->d);
            if (r == CT_OK) grad_max_now = ct__abs_max(flat_grad);
        } else {
            r = ct__add_grad(c->g, s->t.v, s->d);
            if (r == CT_OK && n_iter != max_iter) {
                r = ct__eval(c, &loss);
                if (r == CT_OK) grad_max_now = ct__abs_max(flat_grad = ct__flat_grad(c->g));
                ls_func_evals = 1;
            }
        }
        if (r == CT_OK && grad_max_now.failed) r = ct_last_error_code();
        if (r != CT_OK) return r;
        bool opt_cond = ls_func_evals > 0 && ct__le(grad_max_now, ct__py(tolerance_grad));
        current_evals += ls_func_evals;
        s->func_evals += ls_func_evals;
        if (n_iter == max_iter || current_evals >= max_eval || opt_cond) break;
        ct__num step_max = ct__abs_max(ct_mul_scalar(s->d, ct_float(s->t.v)));
        if (step_max.failed) return ct_last_error_code();
        if (ct__le(step_max, ct__py(tolerance_change))) break;
        if (fabs(loss - s->prev_loss) < tolerance_change) break;
    }
    return r;
}

/* The optimizers' device check, and LBFGS's flat state (made from earlier
 * gradients) on the parameters' device: a parameter moved since the last
 * step is refused before the step changes anything. */
static ct_result ct__lbfgs_check_devices(const ct_optimizer *opt)
{
    const ct__lbfgs *s = opt->lbfgs;
    const ct_tensor *p = opt->groups[0].params[0];
    ct_result r = ct__optim_check_devices(opt);
    if (r == CT_OK) r = ct__same_device(p, s->d, s->prev_flat_grad);
    for (int64_t i = 0; r == CT_OK && i < s->n_old; i++) r = ct__same_device(p, s->old_dirs[i], s->old_stps[i]);
    return r;
}

static ct_result ct__lbfgs_step(ct_optimizer *opt, ct_closure closure, void *user, double *loss_out)
{
    ct__lbfgs_ctx c = {&opt->groups[0], closure, user};
    if (!opt->lbfgs && !(opt->lbfgs = ct__lbfgs_new((int64_t)c.g->v[CT__K_HISTORY]))) return ct_last_error_code();
    ct_grad_mode mode = ct_no_grad();
    ct_scope sc = ct_scope_begin();
    double loss = NAN;
    ct_result r = ct__eval(&c, &loss);
    if (r == CT_OK) r = ct__lbfgs_check_devices(opt); /* the closure has made the gradients */
    if (r == CT_OK) {
        if (loss_out) *loss_out = loss;
        r = ct__lbfgs_iterate(opt, &c, loss);
    }
    ct_scope_end(sc);
    ct_grad_mode_restore(mode);
    return r;
}
