/* Gradient clipping and flattening (torch.nn.utils) and loss scaling
 * (torch.cuda.amp.GradScaler, here on the CPU). */
#include "internal.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- clipping */

static ct_result ct__check_params(ct_tensor *const *params, int64_t n)
{
    if (n < 0 || (n > 0 && !params)) return ct__fail(CT_ERR_TYPE, "'NoneType' object is not iterable");
    for (int64_t i = 0; i < n; i++)
        if (!params[i]) return ct__fail(CT_ERR_TYPE, "expected Tensor as element %lld in argument 0, but got NoneType", (long long)i);
    return CT_OK;
}

/* _check_param_device: parameters_to_vector and vector_to_parameters take
 * parameters on one device only (a TypeError in PyTorch). */
static ct_result ct__check_param_devices(ct_tensor *const *params, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (!ct_device_equal(params[i]->storage->device, params[0]->storage->device))
            return ct__fail(CT_ERR_TYPE, "Found two parameters on different devices, this is currently not supported.");
    return CT_OK;
}

static ct_tensor *ct__grad_of(const ct_tensor *p) { return p->ag ? ct__meta(p)->grad : NULL; }

/* torch.norm(torch.stack([torch.norm(g, p) for g in grads]), p), or the
 * largest |g| for p = inf; grads: the n gradients (n > 0), on any devices:
 * each norm moves to the first gradient's, as PyTorch's does. */
static ct_tensor *ct__total_norm(ct_tensor **grads, int64_t n, double norm_type)
{
    ct_tensor **norms = (ct_tensor **)CT_MALLOC((size_t)n * sizeof *norms);
    if (!norms) { CT__OOM(); return NULL; }
    for (int64_t i = 0; i < n; i++)
        norms[i] = ct_to_device(norm_type == INFINITY ? ct_max(ct_abs(grads[i])) : ct_norm(grads[i], norm_type),
                                grads[0]->storage->device, false);
    ct_tensor *total;
    if (norm_type == INFINITY) total = n == 1 ? norms[0] : ct_max(ct_stack(norms, (int)n, 0));
    else total = ct_norm(ct_stack(norms, (int)n, 0), norm_type);
    CT_FREE(norms);
    return total;
}

ct_tensor *ct_clip_grad_norm_(ct_tensor *const *params, int64_t n, double max_norm, double norm_type,
                              bool error_if_nonfinite)
{
    if (ct__check_params(params, n) != CT_OK) return NULL;
    ct_tensor **grads = (ct_tensor **)CT_MALLOC((size_t)(n > 0 ? n : 1) * sizeof *grads);
    if (!grads) { CT__OOM(); return NULL; }
    int64_t ng = 0;
    for (int64_t i = 0; i < n; i++)
        if (ct__grad_of(params[i])) grads[ng++] = ct__grad_of(params[i]);
    ct_tensor *result = NULL;
    if (ng == 0) {
        CT_FREE(grads);
        return ct_scalar_tensor(ct_float(0.), CT_F32);
    }
    ct_grad_mode mode = ct_no_grad();
    ct_scope s = ct_scope_begin();
    ct_tensor *total = ct__total_norm(grads, ng, norm_type);
    double value = total ? ct_item(total) : NAN;
    char buf[40];
    if (!total) {
        /* the norm's own error stands */
    } else if (error_if_nonfinite && !isfinite(value)) {
        ct__fail(CT_ERR_RUNTIME,
                 "The total norm of order %s for gradients from `parameters` is non-finite, so it cannot be "
                 "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                 "`error_if_nonfinite=False`",
                 ct__pyfloat(buf, sizeof buf, norm_type));
    } else {
        /* max_norm / (total_norm + 1e-6): a number over a tensor is reciprocal() * number */
        ct_tensor *coef = ct_mul_scalar(ct_reciprocal(ct_add_scalar(total, ct_float(1e-6))), ct_float(max_norm));
        bool ok = coef != NULL;
        if (ok && ct_item(coef) < 1)
            for (int64_t i = 0; ok && i < ng; i++)
                ok = ct_mul_(grads[i], ct_to_device(coef, grads[i]->storage->device, false)) == CT_OK;
        if (ok) result = ct_keep(total);
    }
    ct_scope_end(s);
    ct_grad_mode_restore(mode);
    CT_FREE(grads);
    return result;
}

ct_result ct_clip_grad_value_(ct_tensor *const *params, int64_t n, double clip_value)
{
    ct_result r = ct__check_params(params, n);
    ct_grad_mode mode = ct_no_grad();
    for (int64_t i = 0; r == CT_OK && i < n; i++) {
        ct_tensor *g = ct__grad_of(params[i]);
        if (g) r = ct_clamp_scalar_(g, ct_float(-clip_value), ct_float(clip_value));
    }
    ct_grad_mode_restore(mode);
    return r;
}

ct_tensor *ct_parameters_to_vector(ct_tensor *const *params, int64_t n)
{
    if (ct__check_params(params, n) != CT_OK || ct__check_param_devices(params, n) != CT_OK) return NULL;
    if (n == 0) { ct__fail(CT_ERR_RUNTIME, "torch.cat(): expected a non-empty list of Tensors"); return NULL; }
    ct_tensor **views = (ct_tensor **)CT_MALLOC((size_t)n * sizeof *views);
    if (!views) { CT__OOM(); return NULL; }
    ct_scope s = ct_scope_begin();
    for (int64_t i = 0; i < n; i++) views[i] = ct_view(params[i], CT_SHAPE(-1));
    ct_tensor *vec = ct_keep(ct_cat(views, (int)n, 0));
    ct_scope_end(s);
    CT_FREE(views);
    return vec;
}

/* vec[pointer:pointer + numel].view_as(param) for each parameter in turn,
 * into views (n); an error, with nothing kept, when one cannot be made. */
static ct_result ct__vector_views(const ct_tensor *vec, ct_tensor *const *params, int64_t n, ct_tensor **views)
{
    int64_t pointer = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t numel = ct_numel(params[i]);
        views[i] = ct_view_as(ct_slice(vec, 0, pointer, pointer + numel, 1), params[i]);
        if (!views[i]) return ct_last_error_code();
        if (ct_requires_grad(params[i]) && !ct_dtype_is_floating(vec->dtype))
            return ct__fail(CT_ERR_RUNTIME, "data set to a tensor that requires gradients must be floating point or complex dtype");
        pointer += numel;
    }
    return CT_OK;
}

/* param.data = vec[pointer:pointer + numel].view_as(param).data for each
 * parameter: the parameters become views of vec's storage, on its device and
 * in its dtype. Every view is made before the first parameter changes. */
ct_result ct_vector_to_parameters(const ct_tensor *vec, ct_tensor *const *params, int64_t n)
{
    if (!vec) return ct__fail(CT_ERR_TYPE, "expected torch.Tensor, but got: NoneType");
    ct_result r = ct__check_params(params, n);
    if (r == CT_OK) r = ct__check_param_devices(params, n);
    if (r != CT_OK || n == 0) return r;
    ct_tensor **views = (ct_tensor **)CT_MALLOC((size_t)n * sizeof *views);
    if (!views) return CT__OOM();
    ct_grad_mode mode = ct_no_grad();
    ct_scope s = ct_scope_begin();
    r = ct__vector_views(vec, params, n, views);
    for (int64_t i = 0; r == CT_OK && i < n; i++) ct__set_data(params[i], views[i]);
    ct_scope_end(s);
    ct_grad_mode_restore(mode);
    CT_FREE(views);
    return r;
}

/* ---------------------------------------------------------------- GradScaler */

typedef enum ct__scaler_stage { CT__READY, CT__UNSCALED, CT__STEPPED } ct__scaler_stage;

/* What GradScaler keeps per optimizer between update() calls. */
typedef struct ct__scaler_opt {
    const ct_optimizer *opt;
    ct__scaler_stage stage;
    bool found_inf;
} ct__scaler_opt;

#define CT__SCALER_OPTS 8

struct ct_grad_scaler {
    bool enabled, started; /* started: scale() ran, the scale exists (PyTorch's lazy init) */
    float scale;
    int32_t growth_tracker;
    double init_scale, growth_factor, backoff_factor;
    int64_t growth_interval;
    ct__scaler_opt opts[CT__SCALER_OPTS];
    int n_opts;
};

ct_grad_scaler_opts ct_grad_scaler_opts_init(void)
{
    ct_grad_scaler_opts o = {65536.0, 2.0, 0.5, 2000, true};
    return o;
}

ct_grad_scaler *ct_grad_scaler_new(ct_grad_scaler_opts o)
{
    if (o.enabled && !(o.growth_factor > 1.0)) { ct__fail(CT_ERR_VALUE, "The growth factor must be > 1.0."); return NULL; }
    if (o.enabled && !(o.backoff_factor < 1.0)) { ct__fail(CT_ERR_VALUE, "The backoff factor must be < 1.0."); return NULL; }
    ct_grad_scaler *s = (ct_grad_scaler *)CT_MALLOC(sizeof *s);
    if (!s) { CT__OOM(); return NULL; }
    memset(s, 0, sizeof *s);
    s->enabled = o.enabled;
    s->init_scale = o.init_scale;
    s->growth_factor = o.growth_factor;
    s->backoff_factor = o.backoff_factor;
    s->growth_interval = o.growth_interval;
    return s;
}

void ct_grad_scaler_free(ct_grad_scaler *s) { CT_FREE(s); }

static ct_result ct__scaler_null(void) { return ct__fail(CT_ERR_TYPE, "GradScaler must not be NULL"); }

ct_tensor *ct_grad_scaler_scale(ct_grad_scaler *s, const ct_tensor *outputs)
{
    if (!s) { ct__scaler_null(); return NULL; }
    CT__ARG(outputs, "outputs", 2);
    if (!s->enabled) return ct__same(outputs);
    if (!s->started) {
        s->scale = (float)s->init_scale;
        s->growth_tracker = 0;
        s->started = true;
    }
    ct_tensor *scale = ct_full(CT_SHAPE(1), ct_float(s->scale), CT_F32); /* self._scale, shape (1,) */
    return ct_mul(outputs, scale);
}

/* The optimizer's per-step record, made READY when first seen. */
static ct__scaler_opt *ct__scaler_state(ct_grad_scaler *s, const ct_optimizer *opt)
{
    for (int i = 0; i < s->n_opts; i++)
        if (s->opts[i].opt == opt) return &s->opts[i];
    if (s->n_opts == CT__SCALER_OPTS) {
        ct__fail(CT_ERR_RUNTIME, "GradScaler: more than %d optimizers between update() calls", CT__SCALER_OPTS);
        return NULL;
    }
    ct__scaler_opt *st = &s->opts[s->n_opts++];
    st->opt = opt, st->stage = CT__READY, st->found_inf = false;
    return st;
}

static ct_result ct__scaler_check_started(const ct_grad_scaler *s, const char *funcname)
{
    if (s->started) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME,
                    "Attempted %s but _scale is None.  This may indicate your script did not use scaler.scale(loss or "
                    "outputs) earlier in the iteration.",
                    funcname);
}

/* _amp_foreach_non_finite_check_and_unscale_: every gradient times
 * inv_scale (the float32 reciprocal of the scale), noting inf/NaN. */
static ct_result ct__unscale_grads(ct_grad_scaler *s, ct_optimizer *opt, ct__scaler_opt *st)
{
    float inv_scale = (float)(1.0 / (double)s->scale);
    for (int g = 0; g < opt->n_groups; g++)
        for (int64_t i = 0; i < opt->groups[g].n; i++) {
            ct_tensor *grad = ct__grad_of(opt->groups[g].params[i]);
            if (grad && ct_dtype_of(grad) == CT_F16) return ct__fail(CT_ERR_VALUE, "Attempting to unscale FP16 gradients.");
        }
    ct_grad_mode mode = ct_no_grad();
    ct_scope sc = ct_scope_begin();
    ct_result r = CT_OK;
    for (int g = 0; r == CT_OK && g < opt->n_groups; g++)
        for (int64_t i = 0; r == CT_OK && i < opt->groups[g].n; i++) {
            ct_tensor *grad = ct__grad_of(opt->groups[g].params[i]);
            if (!grad) continue;
            ct_tensor *finite = ct_isfinite(grad);
            if (finite && !ct_item(ct_all(finite))) st->found_inf = true;
            r = finite ? ct_mul_scalar_(grad, ct_float(inv_scale)) : ct_last_error_code();
        }
    ct_scope_end(sc);
    ct_grad_mode_restore(mode);
    return r;
}

ct_result ct_grad_scaler_unscale_(ct_grad_scaler *s, ct_optimizer *opt)
{
    if (!s) return ct__scaler_null();
    if (!opt) return ct__fail(CT_ERR_TYPE, "unscale_(): optimizer must not be NULL");
    if (!s->enabled) return CT_OK;
    ct_result r = ct__scaler_check_started(s, "unscale_");
    ct__scaler_opt *st = r == CT_OK ? ct__scaler_state(s, opt) : NULL;
    if (!st) return ct_last_error_code();
    if (st->stage == CT__UNSCALED)
        return ct__fail(CT_ERR_RUNTIME, "unscale_() has already been called on this optimizer since the last update().");
    if (st->stage == CT__STEPPED) return ct__fail(CT_ERR_RUNTIME, "unscale_() is being called after step().");
    r = ct__unscale_grads(s, opt, st);
    if (r == CT_OK) st->stage = CT__UNSCALED;
    return r;
}

ct_result ct_grad_scaler_step(ct_grad_scaler *s, ct_optimizer *opt, bool *stepped)
{
    if (stepped) *stepped = false;
    if (!s) return ct__scaler_null();
    if (!opt) return ct__fail(CT_ERR_TYPE, "step(): optimizer must not be NULL");
    if (!s->enabled) {
        ct_result r = ct_optim_step(opt);
        if (stepped) *stepped = r == CT_OK;
        return r;
    }
    ct_result r = ct__scaler_check_started(s, "step");
    ct__scaler_opt *st = r == CT_OK ? ct__scaler_state(s, opt) : NULL;
    if (!st) return ct_last_error_code();
    if (st->stage == CT__STEPPED) return ct__fail(CT_ERR_RUNTIME, "step() has already been called since the last update().");
    if (st->stage == CT__READY && (r = ct_grad_scaler_unscale_(s, opt)) != CT_OK) return r;
    if (!st->found_inf) {
        r = ct_optim_step(opt);
        if (r != CT_OK) return r;
        if (stepped) *stepped = true;
    }
    st->stage = CT__STEPPED;
    return CT_OK;
}

ct_result ct_grad_scaler_update(ct_grad_scaler *s)
{
    if (!s) return ct__scaler_null();
    if (!s->enabled) return CT_OK;
    ct_result r = ct__scaler_check_started(s, "update");
    if (r != CT_OK) return r;
    bool found_inf = false;
    int checked = 0;
    for (int i = 0; i < s->n_opts; i++)
        if (s->opts[i].stage != CT__READY) found_inf |= s->opts[i].found_inf, checked++;
    if (!checked) return ct__fail(CT_ERR_RUNTIME, "No inf checks were recorded prior to update.");
    /* _amp_update_scale_ */
    if (found_inf) {
        s->scale = s->scale * (float)s->backoff_factor;
        s->growth_tracker = 0;
    } else if (s->growth_tracker + 1 == s->growth_interval) {
        float grown = s->scale * (float)s->growth_factor;
        if (isfinite(grown)) s->scale = grown;
        s->growth_tracker = 0;
    } else {
        s->growth_tracker++;
    }
    s->n_opts = 0;
    return CT_OK;
}

double ct_grad_scaler_get_scale(const ct_grad_scaler *s)
{
    if (!s) return (ct__scaler_null(), NAN);
    if (!s->enabled) return 1.0;
    return s->started ? (double)s->scale : s->init_scale;
}

ct_grad_scaler_state ct_grad_scaler_state_dict(const ct_grad_scaler *s)
{
    ct_grad_scaler_state st = {NAN, NAN, NAN, 0, 0};
    if (!s) return (ct__scaler_null(), st);
    st.scale = ct_grad_scaler_get_scale(s);
    st.growth_factor = s->growth_factor;
    st.backoff_factor = s->backoff_factor;
    st.growth_interval = s->growth_interval;
    st.growth_tracker = s->started ? s->growth_tracker : 0;
    return st;
}

ct_result ct_grad_scaler_load_state_dict(ct_grad_scaler *s, ct_grad_scaler_state st)
{
    if (!s) return ct__scaler_null();
    if (!s->enabled) return CT_OK;
    s->init_scale = st.scale;
    s->growth_factor = st.growth_factor;
    s->backoff_factor = st.backoff_factor;
    s->growth_interval = st.growth_interval;
    if (s->started) { /* else scale() starts from init_scale, and the tracker at 0, as in PyTorch */
        s->scale = (float)st.scale;
        s->growth_tracker = (int32_t)st.growth_tracker;
    }
    return CT_OK;
}
