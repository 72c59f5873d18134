/* gradcheck and gradgradcheck: backward's Jacobians against finite differences. */

#define CT__GC_MAX_OUT 8

ct_gradcheck_opts ct_gradcheck_opts_init(void)
{
    ct_gradcheck_opts o;
    o.eps = 1e-6;
    o.atol = 1e-5;
    o.rtol = 1e-3;
    return o;
}

/* Run fn, checking its outputs; returns how many or -1. */
static int ct__gc_call(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, ct_tensor **out)
{
    int k = fn(inputs, n, out, user);
    if (k < 0 || k > CT__GC_MAX_OUT) {
        if (k >= 0) ct__fail(CT_ERR_VALUE, "gradcheck: the function returned more than %d outputs", CT__GC_MAX_OUT);
        return -1;
    }
    for (int i = 0; i < k; i++) /* made while our scope is open, they belong to it */
        if (!out[i]) {
            ct__fail(CT_ERR_RUNTIME, "gradcheck: output %d is NULL", i);
            return -1;
        }
    return k;
}

/* Element i (row-major) of t: its storage offset. */
static int64_t ct__gc_offset(const ct_tensor *t, int64_t i)
{
    int64_t off = t->offset;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += (i % t->sizes[d]) * t->strides[d];
        i /= t->sizes[d];
    }
    return off;
}

/* A zeroed float64 matrix on the host, for a Jacobian. */
static ct_tensor *ct__gc_host_zeros(int64_t rows, int64_t cols)
{
    int64_t sizes[2] = {rows, cols};
    ct_tensor *t = ct__alloc(sizes, 2, CT_F64, ct__cpu);
    if (t) ct__fill_double(t, 0);
    return t;
}

/* Element i (row-major) of t, a 0-d tensor over its storage, written
 * through t's device (the perturbations and one-hot gradients). */
static ct_tensor *ct__gc_element(const ct_tensor *t, int64_t i)
{
    return ct__view_of(t, NULL, NULL, 0, ct__gc_offset(t, i));
}

/* The outputs of fn flattened into one float64 vector. (Grad mode stays on:
 * gradgradcheck's function runs a backward inside.) */
static ct_tensor *ct__gc_flat_outputs(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user)
{
    ct_tensor *out[CT__GC_MAX_OUT], *flat[CT__GC_MAX_OUT];
    int k = ct__gc_call(fn, inputs, n, user, out);
    if (k < 0) return NULL;
    for (int i = 0; i < k; i++) flat[i] = ct_reshape(ct_to(out[i], CT_F64), CT_SHAPE(-1));
    /* a host copy read as a plain array: an output may be an input itself, which the caller perturbs */
    const ct_tensor *all = k == 1 ? flat[0] : ct_cat(flat, k, 0);
    return all && all->storage->device.type != CT_DEVICE_CPU ? (ct_tensor *)ct__host(all) : ct_clone(ct_contiguous(all));
}

/* Numerical Jacobian of all outputs with respect to input `which`: rows are
 * the input's elements, columns the outputs' (central differences). */
static ct_tensor *ct__gc_numerical(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, int which, int64_t n_out,
                                   double eps)
{
    ct_tensor *x = inputs[which];
    int64_t rows = ct_numel(x);
    ct_tensor *jac = ct__gc_host_zeros(rows, n_out);
    if (!jac) return NULL;
    double *J = (double *)ct__data(jac);
    for (int64_t r = 0; r < rows; r++) {
        ct_tensor *p = ct__gc_element(x, r);
        if (!p) return NULL;
        double orig = ct_item(p);
        ct__fill_double(p, orig - eps);
        ct_tensor *lo = ct__gc_flat_outputs(fn, inputs, n, user);
        ct__fill_double(p, orig + eps);
        ct_tensor *hi = ct__gc_flat_outputs(fn, inputs, n, user);
        ct__fill_double(p, orig);
        if (!lo || !hi) return NULL;
        const double *a = (const double *)ct__data(lo), *b = (const double *)ct__data(hi);
        for (int64_t c = 0; c < n_out; c++) J[r * n_out + c] = (b[c] - a[c]) / (2 * eps);
    }
    return jac;
}

/* Analytical Jacobians: one backward per output element (a one-hot
 * grad_output), its gradients giving a column of every input's Jacobian. */
static ct_result ct__gc_analytical(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, int64_t n_out,
                                   ct_tensor **jacs)
{
    ct_tensor *out[CT__GC_MAX_OUT];
    const ct_tensor *wrt[CT__GC_MAX_OUT * 4];
    int nwrt = 0, idx[CT__GC_MAX_OUT * 4];
    for (int i = 0; i < n && nwrt < CT__GC_MAX_OUT * 4; i++)
        if (ct_requires_grad(inputs[i])) {
            idx[nwrt] = i;
            wrt[nwrt++] = inputs[i];
            jacs[i] = ct__gc_host_zeros(ct_numel(inputs[i]), n_out);
            if (!jacs[i]) return ct_last_error_code();
        }
    int k = ct__gc_call(fn, inputs, n, user, out);
    if (k < 0) return ct_last_error_code();
    int64_t col = 0;
    for (int o = 0; o < k; o++) {
        if (!ct_requires_grad(out[o])) { /* constant output: its columns stay zero */
            col += ct_numel(out[o]);
            continue;
        }
        for (int64_t e = 0; e < ct_numel(out[o]); e++, col++) {
            ct_scope s = ct_scope_begin();
            ct_tensor *go = ct__alloc(out[o]->sizes, out[o]->ndim, out[o]->dtype, out[o]->storage->device); /* row-major */
            ct_tensor *g[CT__GC_MAX_OUT * 4], *one = go ? ct__gc_element(go, e) : NULL;
            if (one) {
                ct__fill_double(go, 0);
                ct__fill_double(one, 1);
            }
            ct_grad_opts opts = {true, false, true};
            ct_result r = !one ? ct_last_error_code() : ct_autograd_grad((const ct_tensor *const *)&out[o], 1, wrt, nwrt, (const ct_tensor *const *)&go, g, opts);
            for (int w = 0; w < nwrt && r == CT_OK; w++) {
                if (!g[w]) continue;
                const ct_tensor *gc = ct__host(ct_contiguous(ct_to(g[w], CT_F64)));
                if (!gc) {
                    r = ct_last_error_code();
                    break;
                }
                double *J = (double *)ct__data(jacs[idx[w]]);
                const double *v = (const double *)ct__data(gc);
                for (int64_t row = 0; row < ct_numel(gc); row++) J[row * n_out + col] = v[row];
            }
            ct_scope_end(s);
            if (r != CT_OK) return r;
        }
    }
    return CT_OK;
}

/* The mismatch message: PyTorch's, then the worst element. */
static ct_result ct__gc_mismatch(int input, const ct_tensor *num, const ct_tensor *ana, int64_t worst, int64_t n_out)
{
    int nn = ct_to_string(num, NULL, 0), na = ct_to_string(ana, NULL, 0);
    char *a = (char *)CT_MALLOC((size_t)nn + 1), *b = (char *)CT_MALLOC((size_t)na + 1);
    ct_result r;
    if (!a || !b) {
        r = CT__OOM();
    } else {
        ct_to_string(num, a, (size_t)nn + 1);
        ct_to_string(ana, b, (size_t)na + 1);
        const double *N = (const double *)ct__data(num), *A = (const double *)ct__data(ana);
        r = ct__fail(CT_ERR_RUNTIME,
                     "Jacobian mismatch for output 0 with respect to input %d,\nnumerical:%s\nanalytical:%s\n"
                     "worst element: input element %lld, output element %lld: numerical %.10g, analytical %.10g",
                     input, a, b, (long long)(worst / n_out), (long long)(worst % n_out), N[worst], A[worst]);
    }
    CT_FREE(a);
    CT_FREE(b);
    return r;
}

ct_result ct_gradcheck(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, ct_gradcheck_opts opts)
{
    ct_tensor *jacs[CT__GC_MAX_OUT * 4] = {NULL};
    if (!fn || !inputs || n <= 0 || n > CT__GC_MAX_OUT * 4)
        return ct__fail(CT_ERR_VALUE, "gradcheck: give a function and 1 to %d inputs", CT__GC_MAX_OUT * 4);
    for (int i = 0; i < n; i++)
        if (!inputs[i]) return ct__fail(CT_ERR_TYPE, "gradcheck: input %d is NULL", i);
    for (int i = 0; i < n; i++) CT__ARG_R(inputs[i], "inputs", i + 1);
    ct_scope s = ct_scope_begin();
    ct_tensor *flat = ct__gc_flat_outputs(fn, inputs, n, user);
    ct_result r = flat ? ct__gc_analytical(fn, inputs, n, user, ct_numel(flat), jacs) : ct_last_error_code();
    for (int i = 0; i < n && r == CT_OK; i++) {
        if (!jacs[i]) continue;
        ct_tensor *num = ct__gc_numerical(fn, inputs, n, user, i, ct_numel(flat), opts.eps);
        if (!num) {
            r = ct_last_error_code();
            break;
        }
        const double *N = (const double *)ct__data(num), *A = (const double *)ct__data(jacs[i]);
        int64_t worst = -1;
        double worst_excess = 0;
        for (int64_t e = 0; e < ct_numel(num); e++) {
            double excess = fabs(A[e] - N[e]) - (opts.atol + opts.rtol * fabs(N[e]));
            if (excess > worst_excess || (A[e] != A[e]) != (N[e] != N[e])) {
                worst_excess = excess > worst_excess ? excess : worst_excess;
                worst = e;
            }
        }
        if (worst >= 0) r = ct__gc_mismatch(i, num, jacs[i], worst, ct_numel(flat));
    }
    ct_scope_end(s);
    return r;
}

/* gradgradcheck's function: the gradients of fn's outputs with respect to the
 * original inputs, against grad_outputs given as extra inputs. */
typedef struct ct__gg_ctx {
    ct_gradcheck_fn fn;
    void *user;
    int n_in, n_out;
} ct__gg_ctx;

static int ct__gg_fn(ct_tensor *const *inputs, int n, ct_tensor **out, void *user)
{
    const ct__gg_ctx *c = (const ct__gg_ctx *)user;
    ct_tensor *y[CT__GC_MAX_OUT], *g[CT__GC_MAX_OUT * 4];
    const ct_tensor *wrt[CT__GC_MAX_OUT * 4];
    int nwrt = 0, k = c->fn(inputs, c->n_in, y, c->user);
    (void)n;
    if (k < 0) return k;
    for (int i = 0; i < c->n_in; i++)
        if (ct_requires_grad(inputs[i])) wrt[nwrt++] = inputs[i];
    ct_grad_opts opts = {true, true, true};
    ct_result r = ct_autograd_grad((const ct_tensor *const *)y, k, wrt, nwrt, (const ct_tensor *const *)(inputs + c->n_in),
                                   g, opts);
    if (r != CT_OK) return r;
    int m = 0;
    for (int i = 0; i < nwrt && m < CT__GC_MAX_OUT; i++)
        if (g[i]) out[m++] = g[i];
    return m;
}

ct_result ct_gradgradcheck(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, ct_gradcheck_opts opts)
{
    ct_tensor *all[CT__GC_MAX_OUT * 4], *y[CT__GC_MAX_OUT];
    if (!fn || !inputs || n <= 0 || n > CT__GC_MAX_OUT * 3)
        return ct__fail(CT_ERR_VALUE, "gradgradcheck: give a function and 1 to %d inputs", CT__GC_MAX_OUT * 3);
    for (int i = 0; i < n; i++)
        if (!inputs[i]) return ct__fail(CT_ERR_TYPE, "gradcheck: input %d is NULL", i);
    ct_scope s = ct_scope_begin();
    int k = ct__gc_call(fn, inputs, n, user, y);
    ct_result r = k < 0 ? ct_last_error_code() : CT_OK;
    ct_generator *gen = ct_generator_new(); /* the same random grad_outputs every run */
    for (int i = 0; i < n; i++) all[i] = inputs[i];
    for (int i = 0; i < k && r == CT_OK; i++) {
        ct_device_guard host = ct_device_guard_begin(CT_CPU); /* drawn on the host, then moved to y's device */
        ct_tensor *drawn = ct_randn(ct_shape_of(y[i]), CT_F64, gen);
        ct_device_guard_end(host);
        all[n + i] = ct_to(ct_to_device(drawn, ct_device_of(y[i]), false), y[i]->dtype);
        if (!all[n + i] || ct_requires_grad_(all[n + i], true) != CT_OK) r = ct_last_error_code();
    }
    ct_generator_free(gen);
    ct__gg_ctx c = {fn, user, n, k};
    if (r == CT_OK) r = ct_gradcheck(ct__gg_fn, all, n + k, &c, opts);
    ct_scope_end(s);
    return r;
}
