/* Pooling, padding, interpolation and pixel shuffling: each is a sparse
 * linear map (ct__linmap) of its input planes, built once per call from the
 * geometry, whose backward node applies the adjoint, whose backward applies
 * the map again, so every order of derivative is exact. Max pooling finds its
 * maxima with their indices, and records them as the gather they describe. */

/* ---------------------------------------------------------------- maps and their nodes */

/* Room for n taps' sources and, when weighted, their weights; false (OOM set) on failure. */
static bool ct__taps_alloc(int64_t n, bool weighted, int64_t **src, double **w)
{
    *src = (int64_t *)CT_MALLOC(sizeof(int64_t) * (size_t)CT__MAX(n, 1));
    *w = weighted ? (double *)CT_MALLOC(sizeof(double) * (size_t)CT__MAX(n, 1)) : NULL;
    if (*src && (!weighted || *w)) return true;
    CT_FREE(*src);
    CT_FREE(*w);
    *src = NULL;
    *w = NULL;
    CT__OOM();
    return false;
}

static ct__linmap *ct__linmap_new(const char *name, const char *adjoint_name, int64_t planes, int64_t n_out,
                                  int64_t taps, bool weighted, bool per_plane)
{
    int64_t entries = n_out * taps * (per_plane ? planes : 1);
    ct__linmap *m = (ct__linmap *)CT_MALLOC(sizeof *m);
    if (!m) {
        CT__OOM();
        return NULL;
    }
    memset(m, 0, sizeof *m);
    m->refcount = 1;
    m->name = name;
    m->adjoint_name = adjoint_name;
    m->planes = planes;
    m->n_out = n_out;
    m->taps = taps;
    m->per_plane = per_plane;
    if (ct__taps_alloc(entries, weighted, &m->src, &m->w)) return m;
    CT_FREE(m);
    return NULL;
}

static void ct__linmap_unref(ct__linmap *m)
{
    if (!m || --m->refcount > 0) return;
    CT_FREE(m->src);
    CT_FREE(m->w);
    CT_FREE(m);
}

static void ct__linmap_release_node(ct__node *n)
{
    ct__linmap_unref((ct__linmap *)n->extra);
    n->extra = NULL;
}

static ct_tensor *ct__linmap_run(ct__linmap *m, const ct_tensor *x, bool adjoint, double fill);

CT__BACKWARD(linmap)
{
    CT__GRAD(0, ct__linmap_run((ct__linmap *)n->extra, go[0], !n->iargs[0], 0));
    return CT_OK;
}

/* A job of m on the contiguous x into out, the rest zero. */
static ct__linmap_job ct__linmap_job_for(ct__linmap_kind kind, const ct__linmap *m, const ct_tensor *x, ct_tensor *out)
{
    ct__linmap_job job;
    memset(&job, 0, sizeof job);
    job.kind = kind;
    job.m = m;
    job.dtype = x->dtype;
    job.x = ct__data(x);
    job.out = ct__data(out);
    return job;
}

/* Record out = m(x) (or its adjoint) as computed: a node that shares m. */
static ct_tensor *ct__linmap_record(ct__linmap *m, const ct_tensor *x, ct_tensor *out, bool adjoint)
{
    static const ct__node_type type = {"LinearMapBackward", ct__bw_linmap};
    const ct_tensor *inputs[1] = {x};
    ct__node *n = ct__record(&type, inputs, 1, &out, 1);
    if (n) {
        n->name = adjoint ? m->adjoint_name : m->name;
        n->iargs[0] = adjoint;
        m->refcount++;
        n->extra = m;
        n->release_extra = ct__linmap_release_node;
    }
    return ct__recorded_or_discard(out, n, inputs, 1);
}

/* The map (or its adjoint) of x, whose shape is the map's input (output)
 * shape; places no tap reaches get `fill`. Records a node that shares m. */
static ct_tensor *ct__linmap_run(ct__linmap *m, const ct_tensor *x, bool adjoint, double fill)
{
    if (ct__recordable(&x, 1) != CT_OK) return NULL;
    ct_shape shape = adjoint ? m->in_shape : m->out_shape;
    ct_tensor *xc, *out = ct__alloc(shape.size, shape.ndim, x->dtype, x->storage->device);
    CT__UNRECORDED(xc, ct_contiguous(x));
    if (!out || !xc) {
        ct__discard(out);
        ct__discard(xc);
        return NULL;
    }
    ct__linmap_job job = ct__linmap_job_for(adjoint ? CT__LINMAP_ADJOINT : CT__LINMAP_APPLY, m, xc, out);
    job.fill = fill;
    if (job.x && job.out) ct__backend_for(out->storage->device.type)->linmap(&job);
    ct__discard(xc);
    return ct__linmap_record(m, x, out, adjoint);
}

/* Run a freshly built map forward on x and drop the builder's reference. */
static ct_tensor *ct__linmap_once(ct__linmap *m, const ct_tensor *x, double fill)
{
    if (!m) return NULL;
    ct_tensor *r = ct__linmap_run(m, x, false, fill);
    ct__linmap_unref(m);
    return r;
}

/* ---------------------------------------------------------------- separable maps */

/* One spatial dim of a separable map: output o reads taps input places
 * src[o * taps + t] (-1: outside) with weights w (NULL: 1). */
typedef struct ct__axis {
    int64_t in, out, taps;
    int64_t *src;
    double *w;
} ct__axis;

static bool ct__axis_alloc(ct__axis *a, int64_t in, int64_t out, int64_t taps, bool weighted)
{
    a->in = in;
    a->out = out;
    a->taps = taps;
    return ct__taps_alloc(out * taps, weighted, &a->src, &a->w);
}

static void ct__axes_free(ct__axis *axes, int nd)
{
    for (int d = 0; d < nd; d++) {
        CT_FREE(axes[d].src);
        CT_FREE(axes[d].w);
    }
}

/* The map whose last nd dims follow axes (their product), over the planes
 * of shape in (its leading dims). Frees the axes. */
static ct__linmap *ct__linmap_separable(const char *name, const char *adjoint_name, const ct_shape *in, ct__axis *axes,
                                        int nd)
{
    int64_t planes = 1, n_out = 1, n_in = 1, taps = 1;
    bool weighted = false;
    ct_shape out = *in;
    for (int d = 0; d < in->ndim - nd; d++) planes *= in->size[d];
    for (int d = 0; d < nd; d++) {
        n_out *= axes[d].out;
        n_in *= axes[d].in;
        taps *= axes[d].taps;
        weighted |= axes[d].w != NULL;
        out.size[in->ndim - nd + d] = axes[d].out;
    }
    ct__linmap *m = ct__linmap_new(name, adjoint_name, planes, n_out, taps, weighted, false);
    if (m) {
        m->n_in = n_in;
        m->in_shape = *in;
        m->out_shape = out;
        for (int64_t e = 0; e < n_out * taps; e++) {
            int64_t o = e / taps, t = e % taps, src = 0, ostride = 1, tstride = 1, istride = 1;
            double w = 1;
            for (int d = nd - 1; d >= 0; d--) {
                const ct__axis *a = &axes[d];
                int64_t at = (o / ostride % a->out) * a->taps + t / tstride % a->taps;
                src = src < 0 || a->src[at] < 0 ? -1 : src + a->src[at] * istride;
                if (a->w) w *= a->w[at];
                ostride *= a->out;
                tstride *= a->taps;
                istride *= a->in;
            }
            m->src[e] = src;
            if (m->w) m->w[e] = w;
        }
    }
    ct__axes_free(axes, nd);
    return m;
}

/* ---------------------------------------------------------------- pooling */

/* PyTorch's pooling_output_shape: windows that start inside the input or
 * its left padding (ceil_mode: one more when it starts before the end). */
static int64_t ct__pool_out(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode)
{
    int64_t span = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
    int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
    if (ceil_mode && (out - 1) * stride >= in + pad) out--;
    return out;
}

/* The window axis of a pool: taps k places o * stride - pad + t * dil;
 * with weights (average pooling): 1 / the window's count. */
static bool ct__axis_window(ct__axis *a, int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad, int64_t dil,
                            bool averaged, bool count_include_pad)
{
    if (!ct__axis_alloc(a, in, out, k, averaged)) return false;
    for (int64_t o = 0; o < out; o++) {
        int64_t start = o * stride - pad, end = CT__MIN(start + k, in + pad);
        int64_t count = count_include_pad ? end - start : CT__MIN(end, in) - CT__MAX(start, 0);
        for (int64_t t = 0; t < k; t++) {
            int64_t i = start + t * dil;
            a->src[o * k + t] = i >= 0 && i < in ? i : -1;
            if (averaged) a->w[o * k + t] = count > 0 ? 1.0 / (double)count : 0;
        }
    }
    return true;
}

/* The adaptive pooling axis: window o spans [floor(o*in/out), ceil((o+1)*in/out)). */
static bool ct__axis_adaptive(ct__axis *a, int64_t in, int64_t out, bool averaged)
{
    int64_t taps = 1;
    for (int64_t o = 0; o < out; o++) taps = CT__MAX(taps, ((o + 1) * in + out - 1) / out - o * in / out);
    if (!ct__axis_alloc(a, in, out, taps, averaged)) return false;
    for (int64_t o = 0; o < out; o++) {
        int64_t start = o * in / out, end = ((o + 1) * in + out - 1) / out;
        for (int64_t t = 0; t < taps; t++) {
            a->src[o * taps + t] = start + t < end ? start + t : -1;
            if (averaged) a->w[o * taps + t] = 1.0 / (double)(end - start);
        }
    }
    return true;
}

/* The argmax kernel of m over xc (x made contiguous) into the maxima r and
 * the flat indices at out (m->planes * m->n_out int64s). inside: as below. */
static void ct__max_pool_run(const ct__linmap *m, const ct_tensor *x, const ct_tensor *xc, ct_tensor *r, void *out,
                             const int64_t (*inside)[2])
{
    ct__linmap_job job = ct__linmap_job_for(CT__LINMAP_ARGMAX, m, xc, r);
    job.values = job.out;
    job.out = out;
    job.inside = inside;
    job.H = x->sizes[x->ndim - 2], job.W = x->sizes[x->ndim - 1];
    job.OH = m->out_shape.size[x->ndim - 2], job.OW = m->out_shape.size[x->ndim - 1];
    ct__backend_for(x->storage->device.type)->linmap(&job);
}

/* The indices go into g, the gradient's map, whose table lives on the host.
 * On the CPU the kernel writes that table itself, and a tensor of the
 * indices is made only when wanted. false when memory runs out. */
static bool ct__max_pool_on_cpu(const ct__linmap *m, const ct_tensor *x, const ct_tensor *xc, ct_tensor *r,
                                const int64_t (*inside)[2], ct__linmap *g, bool want, ct_tensor **idx)
{
    size_t bytes = sizeof(int64_t) * (size_t)(m->planes * m->n_out);
    *idx = want ? ct__alloc(m->out_shape.size, m->out_shape.ndim, CT_I64, ct__cpu) : NULL;
    if (want && !*idx) return false;
    if (bytes == 0) return true;
    ct__max_pool_run(m, x, xc, r, g->src, inside);
    if (*idx) memcpy(ct__data(*idx), g->src, bytes);
    return true;
}

/* On another device the kernel writes a tensor of the indices there, whose
 * host copy fills g's table. */
static bool ct__max_pool_on_device(const ct__linmap *m, const ct_tensor *x, const ct_tensor *xc, ct_tensor *r,
                                   const int64_t (*inside)[2], ct__linmap *g, ct_tensor **idx)
{
    size_t bytes = sizeof(int64_t) * (size_t)(m->planes * m->n_out);
    *idx = ct__alloc(m->out_shape.size, m->out_shape.ndim, CT_I64, x->storage->device);
    if (!*idx) return false;
    if (bytes == 0) return true;
    ct__max_pool_run(m, x, xc, r, ct__data(*idx), inside);
    const ct_tensor *host = ct__host(*idx);
    if (host) memcpy(g->src, ct__data(host), bytes);
    return host != NULL;
}

/* Max pooling over the windows of m (whose reference it takes): the maxima,
 * and their indices (shaped as the result) in *indices when asked for.
 * inside: the 2-D windows' sizes and strides when they all lie inside the
 * image, found then without m's table (else NULL). */
static ct_tensor *ct__max_pool_of(ct__linmap *m, const ct_tensor *x, const int64_t (*inside)[2], const char *name,
                                  const char *adjoint_name, ct_tensor **indices)
{
    if (!m || ct__recordable(&x, 1) != CT_OK) {
        ct__linmap_unref(m);
        return NULL;
    }
    ct_tensor *xc, *idx = NULL, *r = ct__alloc(m->out_shape.size, m->out_shape.ndim, x->dtype, x->storage->device);
    CT__UNRECORDED(xc, ct_contiguous(x));
    ct__linmap *g = ct__linmap_new(name, adjoint_name, m->planes, m->n_out, 1, false, true);
    bool ok = xc && r && g;
    if (ok) ok = x->storage->device.type == CT_DEVICE_CPU
                     ? ct__max_pool_on_cpu(m, x, xc, r, inside, g, indices != NULL, &idx)
                     : ct__max_pool_on_device(m, x, xc, r, inside, g, &idx);
    if (ok) {
        g->n_in = m->n_in;
        g->in_shape = m->in_shape;
        g->out_shape = m->out_shape;
        r = ct__linmap_record(g, x, r, false);
    } else {
        ct__discard(r);
        r = NULL;
    }
    ct__linmap_unref(g);
    ct__linmap_unref(m);
    ct__discard(xc);
    if (r && indices) *indices = idx;
    else ct__discard(idx);
    return r;
}

/* ---------------------------------------------------------------- argument checks */

/* A list argument of a 2-D (or 1-D) pooling op: one value for each dim, or
 * def when empty. */
static ct_result ct__pool_list(const char *fn, const char *what, ct_shape s, int nd, const int64_t *def, int64_t *out)
{
    if (s.ndim != 0 && s.ndim != 1 && s.ndim != nd)
        return nd == 1 ? ct__fail(CT_ERR_RUNTIME, "%s: %s must be an int, a tuple of a single int", fn, what)
                       : ct__fail(CT_ERR_RUNTIME, "%s: %s must either be a single int, or a tuple of two ints", fn, what);
    for (int d = 0; d < nd; d++) out[d] = s.ndim == 0 ? def[d] : s.size[s.ndim == 1 ? 0 : d];
    return CT_OK;
}

static ct_result ct__check_floating(const ct_tensor *x, const char *fn)
{
    if (x->dtype == CT_F32 || x->dtype == CT_F64) return CT_OK;
    static const char *const names[] = {"", "Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float", "Double"};
    return ct__fail(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", fn, names[x->dtype]);
}

/* The input of a 2-D pooling op, checked as PyTorch 1.13 checks it: 3-D or
 * 4-D, non-empty past the batch dim. A wrong rank reads "non-empty 3D or 4D"
 * for max pooling; avg_pool2d reads input.size(-3) first, so a rank below 3
 * is an IndexError there. */
static ct_result ct__check_pool2d_input(const ct_tensor *x, bool avg)
{
    char buf[256];
    if (x->ndim < 3 && avg) return ct__wrap_dim_strict(-3, x->ndim) < 0 ? ct_last_error_code() : CT_OK;
    if ((x->ndim != 3 && x->ndim != 4) && !avg)
        return ct__fail(CT_ERR_RUNTIME, "non-empty 3D or 4D (batch mode) tensor expected for input");
    bool ok = x->ndim == 3 || x->ndim == 4;
    for (int d = x->ndim == 4 ? 1 : 0; ok && d < x->ndim; d++) ok = x->sizes[d] != 0;
    if (!ok)
        return ct__fail(CT_ERR_RUNTIME, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
                                        "but got:%s", ct__shape_str(x->sizes, x->ndim, buf, sizeof buf));
    return CT_OK;
}

/* The windows of a 2-D pooling op, checked as PyTorch's pool2d_shape_check. */
typedef struct ct__pool2d {
    int64_t k[2], stride[2], pad[2], dil[2], out[2];
} ct__pool2d;

static ct_result ct__pool2d_geometry(const ct_tensor *x, const char *fn, ct_shape kernel, ct_shape stride, ct_shape pad,
                                     ct_shape dil, bool ceil_mode, ct__pool2d *g)
{
    static const int64_t zeros[2] = {0, 0}, ones[2] = {1, 1};
    if (ct__pool_list(fn, "kernel_size", kernel, 2, zeros, g->k) || ct__pool_list(fn, "stride", stride, 2, g->k, g->stride) ||
        ct__pool_list(fn, "padding", pad, 2, zeros, g->pad) || ct__pool_list(fn, "dilation", dil, 2, ones, g->dil))
        return ct_last_error_code();
    if (kernel.ndim == 0) return ct__fail(CT_ERR_RUNTIME, "%s: kernel_size must either be a single int, or a tuple of two ints", fn);
    if (g->k[0] <= 0 || g->k[1] <= 0)
        return ct__fail(CT_ERR_RUNTIME, "kernel size should be greater than zero, but got kH: %lld kW: %lld",
                        (long long)g->k[0], (long long)g->k[1]);
    if (g->stride[0] == 0 || g->stride[1] == 0) return ct__fail(CT_ERR_RUNTIME, "stride should not be zero");
    if (g->dil[0] <= 0 || g->dil[1] <= 0)
        return ct__fail(CT_ERR_RUNTIME, "dilation should be greater than zero, but got dilationH: %lld dilationW: %lld",
                        (long long)g->dil[0], (long long)g->dil[1]);
    if (g->pad[0] > g->k[0] / 2 || g->pad[1] > g->k[1] / 2)
        return ct__fail(CT_ERR_RUNTIME, "pad should be at most half of kernel size, but got pad=%lld and kernel_size=%lld",
                        (long long)g->pad[g->pad[0] > g->k[0] / 2 ? 0 : 1], (long long)g->k[g->pad[0] > g->k[0] / 2 ? 0 : 1]);
    int64_t H = x->sizes[x->ndim - 2], W = x->sizes[x->ndim - 1], C = x->sizes[x->ndim - 3];
    for (int d = 0; d < 2; d++)
        g->out[d] = ct__pool_out(d ? W : H, g->k[d], g->pad[d], g->stride[d], g->dil[d], ceil_mode);
    if (g->out[0] < 1 || g->out[1] < 1)
        return ct__fail(CT_ERR_RUNTIME, "Given input size: (%lldx%lldx%lld). Calculated output size: (%lldx%lldx%lld). "
                        "Output size is too small", (long long)C, (long long)H, (long long)W, (long long)C,
                        (long long)g->out[0], (long long)g->out[1]);
    return CT_OK;
}

/* The 2-D window map of x (its last two dims) for g. */
static ct__linmap *ct__pool2d_map(const ct_tensor *x, const ct__pool2d *g, const char *name, const char *adjoint_name,
                                  bool averaged, bool count_include_pad)
{
    ct__axis axes[2];
    memset(axes, 0, sizeof axes);
    ct_shape in = ct_shape_make(x->ndim, x->sizes);
    for (int d = 0; d < 2; d++)
        if (!ct__axis_window(&axes[d], in.size[in.ndim - 2 + d], g->out[d], g->k[d], g->stride[d], g->pad[d], g->dil[d],
                             averaged, count_include_pad)) {
            ct__axes_free(axes, 2);
            return NULL;
        }
    return ct__linmap_separable(name, adjoint_name, &in, axes, 2);
}

/* ---------------------------------------------------------------- max pooling */

ct_tensor *ct_max_pool2d_with_indices(const ct_tensor *input, ct_shape kernel_size, ct_max_pool_opts opts,
                                      ct_tensor **indices)
{
    if (indices) *indices = NULL;
    CT__ARG(input, "input", 1);
    ct__pool2d g;
    if (ct__check_pool2d_input(input, false) ||
        ct__pool2d_geometry(input, "max_pool2d", kernel_size, opts.stride, opts.padding, opts.dilation, opts.ceil_mode, &g) ||
        ct__check_floating(input, "max_pool2d"))
        return NULL;
    ct__linmap *m = ct__pool2d_map(input, &g, "", "", false, false);
    bool inside = true;
    for (int d = 0; d < 2; d++)
        inside &= g.pad[d] == 0 && g.dil[d] == 1 && (g.out[d] - 1) * g.stride[d] + g.k[d] <= input->sizes[input->ndim - 2 + d];
    const int64_t window[2][2] = {{g.k[0], g.k[1]}, {g.stride[0], g.stride[1]}};
    return ct__max_pool_of(m, input, inside ? window : NULL, "MaxPool2DWithIndicesBackward0",
                           "MaxPool2DWithIndicesBackwardBackward0", indices);
}

ct_tensor *ct_max_pool2d(const ct_tensor *input, ct_shape kernel_size, ct_max_pool_opts opts)
{
    CT__ARG(input, "input", 1);
    return ct_max_pool2d_with_indices(input, kernel_size, opts, NULL);
}

/* A 1-D op as PyTorch runs it: its 2-D form on input.unsqueeze(-2), squeezed back. */
static ct_shape ct__with_one(ct_shape s, int64_t one)
{
    if (s.ndim == 1) {
        s.size[1] = s.size[0];
        s.size[0] = one;
        s.ndim = 2;
    }
    return s;
}

ct_tensor *ct_max_pool1d_with_indices(const ct_tensor *input, ct_shape kernel_size, ct_max_pool_opts opts,
                                      ct_tensor **indices)
{
    if (indices) *indices = NULL;
    CT__ARG(input, "input", 1);
    if (input->ndim != 2 && input->ndim != 3) {
        char buf[256];
        ct__fail(CT_ERR_RUNTIME, "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:%s",
                 ct__shape_str(input->sizes, input->ndim, buf, sizeof buf));
        return NULL;
    }
    int64_t zeros[1] = {0}, ones[1] = {1}, k[1] = {0}, s[1] = {0}, p[1] = {0}, d[1] = {0};
    if (ct__pool_list("max_pool1d", "kernel_size", kernel_size, 1, zeros, k) ||
        ct__pool_list("max_pool1d", "stride", opts.stride, 1, k, s) ||
        ct__pool_list("max_pool1d", "padding", opts.padding, 1, zeros, p) ||
        ct__pool_list("max_pool1d", "dilation", opts.dilation, 1, ones, d))
        return NULL;
    ct_max_pool_opts o2 = {ct__with_one(CT_SHAPE(s[0]), 1), ct__with_one(CT_SHAPE(p[0]), 0),
                           ct__with_one(CT_SHAPE(d[0]), 1), opts.ceil_mode};
    ct_scope sc = ct_scope_begin();
    ct_tensor *idx = NULL;
    ct_tensor *r = ct_max_pool2d_with_indices(ct_unsqueeze(input, -2), ct__with_one(CT_SHAPE(k[0]), 1), o2,
                                              indices ? &idx : NULL);
    r = ct_keep(ct_squeeze_dim(r, -2));
    if (r && indices) *indices = ct_keep(ct_squeeze_dim(idx, -2));
    ct_scope_end(sc);
    return r;
}

ct_tensor *ct_max_pool1d(const ct_tensor *input, ct_shape kernel_size, ct_max_pool_opts opts)
{
    CT__ARG(input, "input", 1);
    return ct_max_pool1d_with_indices(input, kernel_size, opts, NULL);
}

/* ---------------------------------------------------------------- average pooling */

ct_avg_pool_opts ct_avg_pool_opts_init(void)
{
    ct_avg_pool_opts o;
    memset(&o, 0, sizeof o);
    o.count_include_pad = true;
    return o;
}

ct_tensor *ct_avg_pool2d(const ct_tensor *input, ct_shape kernel_size, ct_avg_pool_opts opts)
{
    CT__ARG(input, "input", 1);
    ct__pool2d g;
    if (ct__check_pool2d_input(input, true) ||
        ct__pool2d_geometry(input, "avg_pool2d", kernel_size, opts.stride, opts.padding, CT_SHAPE0, opts.ceil_mode, &g) ||
        ct__check_floating(input, "avg_pool2d"))
        return NULL;
    ct__linmap *m = ct__pool2d_map(input, &g, "AvgPool2DBackward0", "AvgPool2DBackwardBackward0", true,
                                   opts.count_include_pad);
    if (m && opts.divisor_override)
        for (int64_t e = 0; e < m->n_out * m->taps; e++) m->w[e] = 1.0 / (double)opts.divisor_override;
    return ct__linmap_once(m, input, 0);
}

ct_tensor *ct_avg_pool1d(const ct_tensor *input, ct_shape kernel_size, ct_avg_pool_opts opts)
{
    CT__ARG(input, "input", 1);
    if (input->ndim != 2 && input->ndim != 3) {
        ct__fail(CT_ERR_RUNTIME, "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' "
                 "(while checking arguments for avg_pool1d)", input->ndim);
        return NULL;
    }
    int64_t zeros[1] = {0}, k[1] = {0}, s[1] = {0}, p[1] = {0};
    if (ct__pool_list("avg_pool1d", "kernel_size", kernel_size, 1, zeros, k) ||
        ct__pool_list("avg_pool1d", "stride", opts.stride, 1, k, s) ||
        ct__pool_list("avg_pool1d", "padding", opts.padding, 1, zeros, p))
        return NULL;
    ct_avg_pool_opts o2 = opts;
    o2.stride = ct__with_one(CT_SHAPE(s[0]), 1);
    o2.padding = ct__with_one(CT_SHAPE(p[0]), 0);
    o2.divisor_override = 0;
    ct_scope sc = ct_scope_begin();
    ct_tensor *r = ct_keep(ct_squeeze_dim(ct_avg_pool2d(ct_unsqueeze(input, -2), ct__with_one(CT_SHAPE(k[0]), 1), o2), -2));
    ct_scope_end(sc);
    return r;
}

/* ---------------------------------------------------------------- adaptive pooling */

static ct_result ct__adaptive_check(const ct_tensor *x, ct_shape size, const char *fn, const char *colon, int64_t *out)
{
    char buf[256];
    if (x->ndim != 3 && x->ndim != 4)
        return ct__fail(CT_ERR_RUNTIME, "%s(): Expected 3D or 4D tensor, but got%s %s", fn, colon,
                        ct__shape_str(x->sizes, x->ndim, buf, sizeof buf));
    for (int d = x->ndim - 3; d < x->ndim; d++)
        if (x->sizes[d] == 0)
            return ct__fail(CT_ERR_RUNTIME, "%s(): Expected input to have non-zero size for non-batch dimensions, but input "
                            "has sizes %s with dimension %d being empty", fn, ct__shape_str(x->sizes, x->ndim, buf, sizeof buf), d);
    if (size.ndim != 1 && size.ndim != 2)
        return ct__fail(CT_ERR_RUNTIME, "%s: output_size must be 2", fn);
    for (int d = 0; d < 2; d++) out[d] = size.size[size.ndim == 1 ? 0 : d];
    if (out[0] < 0 || out[1] < 0)
        return ct__fail(CT_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: %s", (long long)CT__MIN(out[0], out[1]),
                        ct__shape_str(out, 2, buf, sizeof buf));
    return ct__check_floating(x, fn);
}

static ct__linmap *ct__adaptive_map(const ct_tensor *x, const int64_t *out, const char *name, const char *adjoint_name,
                                    bool averaged)
{
    ct__axis axes[2];
    memset(axes, 0, sizeof axes);
    ct_shape in = ct_shape_make(x->ndim, x->sizes);
    for (int d = 0; d < 2; d++)
        if (!ct__axis_adaptive(&axes[d], in.size[in.ndim - 2 + d], out[d], averaged)) {
            ct__axes_free(axes, 2);
            return NULL;
        }
    return ct__linmap_separable(name, adjoint_name, &in, axes, 2);
}

ct_tensor *ct_adaptive_avg_pool2d(const ct_tensor *input, ct_shape output_size)
{
    CT__ARG(input, "input", 1);
    int64_t out[2];
    if (ct__adaptive_check(input, output_size, "adaptive_avg_pool2d", "", out)) return NULL;
    if (out[0] == 1 && out[1] == 1) return ct_mean_dim(input, CT_DIMS(-1, -2), true, CT_DEFAULT);
    return ct__linmap_once(ct__adaptive_map(input, out, "AdaptiveAvgPool2DBackward0", "AdaptiveAvgPool2DBackwardBackward0", true),
                           input, 0);
}

ct_tensor *ct_adaptive_max_pool2d(const ct_tensor *input, ct_shape output_size, ct_tensor **indices)
{
    if (indices) *indices = NULL;
    CT__ARG(input, "input", 1);
    int64_t out[2];
    if (ct__adaptive_check(input, output_size, "adaptive_max_pool2d", ":", out)) return NULL;
    ct__linmap *m = ct__adaptive_map(input, out, "", "", false);
    return ct__max_pool_of(m, input, NULL, "AdaptiveMaxPool2DBackward0", "AdaptiveMaxPool2DBackwardBackward0", indices);
}

/* ---------------------------------------------------------------- padding */

/* The padding axis: output o reads input o - lo, reflected, clamped or
 * wrapped back inside for the modes that do not fill. */
static bool ct__axis_pad(ct__axis *a, int64_t in, int64_t lo, int64_t hi, ct_pad_mode mode)
{
    int64_t out = in + lo + hi;
    if (!ct__axis_alloc(a, in, out, 1, false)) return false;
    for (int64_t o = 0; o < out; o++) {
        int64_t i = o - lo;
        if (mode == CT_PAD_REFLECT) i = i < 0 ? -i : i >= in ? 2 * (in - 1) - i : i;
        else if (mode == CT_PAD_REPLICATE) i = CT__MIN(CT__MAX(i, 0), in - 1);
        else if (mode == CT_PAD_CIRCULAR) i = ((i % in) + in) % in;
        a->src[o] = i >= 0 && i < in ? i : -1;
    }
    return true;
}

static ct_result ct__check_pad(const ct_tensor *x, ct_shape pad, ct_pad_mode mode, int nd)
{
    char buf[256];
    if (pad.ndim % 2) return ct__fail(CT_ERR_RUNTIME, "Padding length must be divisible by 2");
    if (nd > x->ndim) return ct__fail(CT_ERR_RUNTIME, "Padding length too large");
    if ((unsigned)mode > CT_PAD_CIRCULAR) return ct__fail(CT_ERR_NOT_IMPLEMENTED, "Unrecognised padding mode %d", (int)mode);
    if (mode != CT_PAD_CONSTANT && (nd < 1 || nd > 3 || x->ndim < nd + 1 || x->ndim > nd + 2))
        return ct__fail(CT_ERR_NOT_IMPLEMENTED, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
    for (int d = 0; d < nd; d++) {
        int dim = x->ndim - 1 - d;
        int64_t in = x->sizes[dim], lo = pad.size[2 * d], hi = pad.size[2 * d + 1];
        if (in + lo + hi < 0)
            return ct__fail(CT_ERR_RUNTIME, "The input size %lld, plus negative padding %lld and %lld resulted in a negative "
                            "output size, which is invalid. Check dimension %d of your input.", (long long)in, (long long)lo,
                            (long long)hi, dim);
        if (mode == CT_PAD_REFLECT && (lo >= in || hi >= in)) {
            const char *where = nd == 1 ? ct__shape_str(x->sizes, x->ndim, buf, sizeof buf) : NULL;
            if (!where) snprintf(buf, sizeof buf, "%d", x->ndim);
            return ct__fail(CT_ERR_RUNTIME, "Argument #%d: Padding size should be less than the corresponding input dimension, "
                            "but got: padding (%lld, %lld) at dimension %d of input %s", 4 + 2 * d, (long long)lo,
                            (long long)hi, dim, buf);
        }
        if (mode == CT_PAD_CIRCULAR && (lo > in || hi > in))
            return ct__fail(CT_ERR_RUNTIME, "Padding value causes wrapping around more than once.");
    }
    for (int d = x->ndim == nd + 2 ? 1 : 0; (mode == CT_PAD_REFLECT || mode == CT_PAD_REPLICATE) && d < x->ndim; d++) {
        if (x->sizes[d] != 0) continue;
        if (mode == CT_PAD_REPLICATE)
            return ct__fail(CT_ERR_RUNTIME, "Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other non-zero "
                            "dimensions for input, but got: %s", nd + 1, nd + 2, ct__shape_str(x->sizes, x->ndim, buf, sizeof buf));
        int at = 0;
        for (int e = 0; e < x->ndim; e++) at += snprintf(buf + at, sizeof buf - (size_t)at, "%s%lld", e ? "," : "", (long long)x->sizes[e]);
        return ct__fail(CT_ERR_RUNTIME, "%dD or %dD (batch mode) tensor expected for input, but got: [ torch.%sTensor{%s} ]", nd + 1,
                        nd + 2, x->dtype == CT_F64 ? "Double" : "Float", buf);
    }
    return CT_OK;
}

/* Constant padding of the dtypes the linear maps do not take (integers,
 * bool, half precision), as at::constant_pad_nd does it: a tensor filled
 * with value, the input (cropped where a pad is negative) copied into its
 * middle. */
static ct_tensor *ct__pad_filled(const ct_tensor *x, ct_shape pad, double value)
{
    ct_scope s = ct_scope_begin();
    ct_shape out = ct_shape_of(x);
    const ct_tensor *src = x;
    for (int d = 0; d < pad.ndim / 2 && src; d++) {
        int dim = x->ndim - 1 - d;
        int64_t lo = pad.size[2 * d], hi = pad.size[2 * d + 1];
        out.size[dim] += lo + hi;
        src = ct_narrow(src, dim, lo < 0 ? -lo : 0, src->sizes[dim] + CT__MIN(lo, 0) + CT__MIN(hi, 0));
    }
    ct_device_guard on = ct_device_guard_begin(x->storage->device); /* the result lives on x's device */
    ct_tensor *r = src ? ct_full(out, ct_float(value), x->dtype) : NULL, *dst = r;
    ct_device_guard_end(on);
    for (int d = 0; d < pad.ndim / 2 && dst; d++) {
        int dim = x->ndim - 1 - d;
        dst = ct_narrow(dst, dim, CT__MAX(pad.size[2 * d], 0), src->sizes[dim]);
    }
    r = ct_keep(dst && ct_copy_(dst, src) == CT_OK ? r : NULL);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_pad(const ct_tensor *input, ct_shape pad, ct_pad_mode mode, double value)
{
    if (mode == CT_PAD_REFLECT || mode == CT_PAD_REPLICATE)
        CT__AUTOCAST(CT__CAST_FP32, ct_pad(input, pad, mode, value), &input);
    static const char *const names[3][2][3] = {
        {{"ReflectionPad1DBackward0", "ReflectionPad2DBackward0", "ReflectionPad3DBackward0"},
         {"ReflectionPad1DBackwardBackward0", "ReflectionPad2DBackwardBackward0", "ReflectionPad3DBackwardBackward0"}},
        {{"ReplicationPad1DBackward0", "ReplicationPad2DBackward0", "ReplicationPad3DBackward0"},
         {"ReplicationPad1DBackwardBackward0", "ReplicationPad2DBackwardBackward0", "ReplicationPad3DBackwardBackward0"}},
        {{"torch::autograd::CopySlices", "torch::autograd::CopySlices", "torch::autograd::CopySlices"},
         {"torch::autograd::CopySlices", "torch::autograd::CopySlices", "torch::autograd::CopySlices"}}};
    CT__ARG(input, "input", 1);
    int nd = pad.ndim / 2;
    if (ct__check_pad(input, pad, mode, nd)) return NULL;
    if (mode != CT_PAD_CONSTANT && ct__check_floating(input, "pad")) return NULL;
    if (mode == CT_PAD_CONSTANT && input->dtype != CT_F32 && input->dtype != CT_F64)
        return ct__pad_filled(input, pad, value);
    ct__axis axes[CT_MAX_DIMS];
    memset(axes, 0, sizeof axes);
    for (int d = 0; d < nd; d++)
        if (!ct__axis_pad(&axes[nd - 1 - d], input->sizes[input->ndim - 1 - d], pad.size[2 * d], pad.size[2 * d + 1], mode)) {
            ct__axes_free(axes, nd);
            return NULL;
        }
    ct_shape in = ct_shape_make(input->ndim, input->sizes);
    const char *name = mode == CT_PAD_CONSTANT ? "ConstantPadNdBackward0" : names[mode - 1][0][nd - 1];
    const char *adjoint_name = mode == CT_PAD_CONSTANT ? "ConstantPadNdBackward0" : names[mode - 1][1][nd - 1];
    return ct__linmap_once(ct__linmap_separable(name, adjoint_name, &in, axes, nd), input, value);
}

/* ---------------------------------------------------------------- interpolation */

/* PyTorch's area_pixel_compute_scale and source index, in the input's
 * precision (float32 inputs compute them in float, as PyTorch's kernels). */
static double ct__interp_scale(int64_t in, int64_t out, bool align_corners, double scale_factor, bool f32)
{
    if (align_corners) return out > 1 ? (f32 ? (double)((float)(in - 1) / (float)(out - 1)) : (double)(in - 1) / (double)(out - 1)) : 0;
    if (scale_factor > 0) return f32 ? (double)(1.0f / (float)scale_factor) : 1.0 / scale_factor;
    return f32 ? (double)((float)in / (float)out) : (double)in / (double)out;
}

static double ct__in_precision(double v, bool f32) { return f32 ? (double)(float)v : v; }

static bool ct__axis_nearest(ct__axis *a, int64_t in, int64_t out, double scale_factor, bool f32)
{
    double scale = ct__interp_scale(in, out, false, scale_factor, f32);
    if (!ct__axis_alloc(a, in, out, 1, false)) return false;
    for (int64_t o = 0; o < out; o++)
        a->src[o] = CT__MIN((int64_t)floor(ct__in_precision((double)o * scale, f32)), in - 1);
    return true;
}

/* Linear interpolation: two taps (the same place at the right edge) with weights 1 - l and l. */
static bool ct__axis_linear(ct__axis *a, int64_t in, int64_t out, bool align_corners, double scale_factor, bool f32)
{
    double scale = ct__interp_scale(in, out, align_corners, scale_factor, f32);
    if (!ct__axis_alloc(a, in, out, 2, true)) return false;
    for (int64_t o = 0; o < out; o++) {
        double src = align_corners ? ct__in_precision(scale * (double)o, f32)
                                   : ct__in_precision(ct__in_precision(scale * ((double)o + 0.5), f32) - 0.5, f32);
        if (src < 0) src = 0;
        int64_t i0 = (int64_t)src, i1 = i0 + (i0 < in - 1);
        double l = ct__in_precision(src - (double)i0, f32);
        a->src[2 * o] = i0;
        a->src[2 * o + 1] = i1;
        a->w[2 * o] = ct__in_precision(1 - l, f32);
        a->w[2 * o + 1] = l;
    }
    return true;
}

static ct_result ct__interp_sizes(const ct_tensor *x, const ct_interp_opts *o, int nd, int64_t *out, double *scale)
{
    char buf[256], buf2[256];
    bool has_scale = o->scale_factor[0] != 0;
    if (o->size.ndim && has_scale) return ct__fail(CT_ERR_VALUE, "only one of size or scale_factor should be defined");
    if (!o->size.ndim && !has_scale) return ct__fail(CT_ERR_VALUE, "either size or scale_factor should be defined");
    if (o->size.ndim > 1 && o->size.ndim != nd) {
        ct__shape_str(o->size.size, o->size.ndim, buf2, sizeof buf2);
        buf2[0] = '(';
        buf2[strlen(buf2) - 1] = ')';
        return ct__fail(CT_ERR_VALUE, "Input and output must have the same number of spatial dimensions, but got input with "
                        "spatial dimensions of %s and output size of %s. Please provide input tensor in (N, C, d1, d2, "
                        "...,dK) format and output size in (o1, o2, ...,oK) format.",
                        ct__shape_str(x->sizes + 2, nd, buf, sizeof buf), buf2);
    }
    int n_scales = 0;
    while (n_scales < 3 && o->scale_factor[n_scales] != 0) n_scales++;
    if (has_scale && n_scales > 1 && n_scales != nd)
        return ct__fail(CT_ERR_VALUE, "Input and scale_factor must have the same number of spatial dimensions, but got input "
                        "with spatial dimensions of %s and scale_factor of shape %d. Please provide input tensor in (N, C, "
                        "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.",
                        ct__shape_str(x->sizes + 2, nd, buf, sizeof buf), n_scales);
    for (int d = 0; d < nd; d++) {
        scale[d] = has_scale ? o->scale_factor[n_scales == 1 ? 0 : d] : 0;
        out[d] = has_scale ? (int64_t)floor((double)x->sizes[2 + d] * scale[d]) : o->size.size[o->size.ndim == 1 ? 0 : d];
    }
    for (int d = 0; d < nd; d++)
        if (x->sizes[2 + d] <= 0 || out[d] <= 0) {
            if (nd == 1)
                return ct__fail(CT_ERR_RUNTIME, "Input and output sizes should be greater than 0, but got input (W: %lld) "
                                "and output (W: %lld)", (long long)x->sizes[2], (long long)out[0]);
            return ct__fail(CT_ERR_RUNTIME, "Input and output sizes should be greater than 0, but got input (H: %lld, W: %lld) "
                            "output (H: %lld, W: %lld)", (long long)x->sizes[2], (long long)x->sizes[3], (long long)out[0],
                            (long long)out[1]);
        }
    return CT_OK;
}

ct_tensor *ct_interpolate(const ct_tensor *input, ct_interp_opts opts)
{
    static const char *const modes[] = {"nearest", "bilinear"};
    CT__ARG(input, "input", 1);
    int nd = input->ndim - 2;
    if ((unsigned)opts.mode > CT_INTERP_BILINEAR) {
        ct__fail(CT_ERR_NOT_IMPLEMENTED, "Input Error: Only 3D, 4D and 5D input Tensors supported (got %dD) for the modes: "
                 "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got %d)", input->ndim, (int)opts.mode);
        return NULL;
    }
    if (opts.align_corners && opts.mode == CT_INTERP_NEAREST) {
        ct__fail(CT_ERR_VALUE, "align_corners option can only be set with the interpolating modes: linear | bilinear | "
                 "bicubic | trilinear");
        return NULL;
    }
    if (nd < 1 || nd > 3 || (opts.mode == CT_INTERP_NEAREST && nd == 3)) {
        ct__fail(CT_ERR_NOT_IMPLEMENTED, "Input Error: Only 3D, 4D and 5D input Tensors supported (got %dD) for the modes: "
                 "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got %s)", input->ndim,
                 modes[opts.mode]);
        return NULL;
    }
    if (opts.mode == CT_INTERP_BILINEAR && nd != 2) {
        ct__fail(CT_ERR_NOT_IMPLEMENTED, "Got %dD input, but bilinear mode needs 4D input", input->ndim);
        return NULL;
    }
    int64_t out[2];
    double scale[2];
    if (ct__interp_sizes(input, &opts, nd, out, scale) || ct__check_floating(input, modes[opts.mode])) return NULL;
    bool f32 = input->dtype == CT_F32;
    ct__axis axes[2];
    memset(axes, 0, sizeof axes);
    for (int d = 0; d < nd; d++) {
        int64_t in = input->sizes[2 + d];
        bool ok = opts.mode == CT_INTERP_NEAREST ? ct__axis_nearest(&axes[d], in, out[d], scale[d], f32)
                                                 : ct__axis_linear(&axes[d], in, out[d], opts.align_corners, scale[d], f32);
        if (!ok) {
            ct__axes_free(axes, nd);
            return NULL;
        }
    }
    static const char *const names[2][2][2] = {
        {{"UpsampleNearest1DBackward1", "UpsampleNearest1DBackwardBackward1"},
         {"UpsampleNearest2DBackward1", "UpsampleNearest2DBackwardBackward1"}},
        {{"", ""}, {"UpsampleBilinear2DBackward1", "UpsampleBilinear2DBackwardBackward1"}}};
    ct_shape in = ct_shape_make(input->ndim, input->sizes);
    return ct__linmap_once(ct__linmap_separable(names[opts.mode][nd - 1][0], names[opts.mode][nd - 1][1], &in, axes, nd),
                           input, 0);
}

/* ---------------------------------------------------------------- pixel shuffling */

/* The gather of pixel_shuffle over planes (C * r * r, H, W) -> (C, H * r, W * r), or its
 * inverse pixel_unshuffle (C, H, W) -> (C * r * r, H / r, W / r). */
static ct__linmap *ct__shuffle_map(const ct_tensor *x, int64_t r, bool unshuffle)
{
    int nd = x->ndim;
    int64_t planes = 1, C = x->sizes[nd - 3], H = x->sizes[nd - 2], W = x->sizes[nd - 1];
    for (int d = 0; d < nd - 3; d++) planes *= x->sizes[d];
    ct_shape in = ct_shape_make(nd, x->sizes), out = in;
    out.size[nd - 3] = unshuffle ? C * r * r : C / (r * r);
    out.size[nd - 2] = unshuffle ? H / r : H * r;
    out.size[nd - 1] = unshuffle ? W / r : W * r;
    ct__linmap *m = ct__linmap_new(unshuffle ? "PixelUnshuffleBackward0" : "PixelShuffleBackward0",
                                   unshuffle ? "PixelShuffleBackward0" : "PixelUnshuffleBackward0", planes, C * H * W, 1,
                                   false, false);
    if (!m) return NULL;
    m->n_in = C * H * W;
    m->in_shape = in;
    m->out_shape = out;
    /* the small image (channels c * r * r + i * r + j) and the large one (channels c) */
    int64_t Hs = unshuffle ? H / r : H, Ws = unshuffle ? W / r : W;
    for (int64_t e = 0; e < C * H * W; e++) {
        int64_t cs = e / (Hs * Ws * r * r), rest = e % (Hs * Ws * r * r);
        int64_t ij = rest / (Hs * Ws), h = rest % (Hs * Ws) / Ws, w = rest % Ws;
        int64_t i = ij / r, j = ij % r;
        int64_t small = ((cs * r * r + ij) * Hs + h) * Ws + w;
        int64_t large = (cs * Hs * r + h * r + i) * Ws * r + w * r + j;
        if (unshuffle) m->src[small] = large;
        else m->src[large] = small;
    }
    return m;
}

static ct_result ct__check_shuffle(const ct_tensor *x, int64_t r, bool unshuffle)
{
    const char *fn = unshuffle ? "pixel_unshuffle" : "pixel_shuffle";
    if (x->ndim < 3)
        return ct__fail(CT_ERR_RUNTIME, "%s expects input to have at least 3 dimensions, but got input with %d dimension(s)",
                        fn, x->ndim);
    if (r <= 0)
        return ct__fail(CT_ERR_RUNTIME, "%s expects a positive %s, but got %lld", fn,
                        unshuffle ? "downscale_factor" : "upscale_factor", (long long)r);
    int64_t C = x->sizes[x->ndim - 3], H = x->sizes[x->ndim - 2], W = x->sizes[x->ndim - 1];
    if (!unshuffle && C % (r * r))
        return ct__fail(CT_ERR_RUNTIME, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                        "of upscale_factor, but input.size(-3)=%lld is not divisible by %lld", (long long)C, (long long)(r * r));
    if (unshuffle && H % r)
        return ct__fail(CT_ERR_RUNTIME, "pixel_unshuffle expects height to be divisible by downscale_factor, but "
                        "input.size(-2)=%lld is not divisible by %lld", (long long)H, (long long)r);
    if (unshuffle && W % r)
        return ct__fail(CT_ERR_RUNTIME, "pixel_unshuffle expects width to be divisible by downscale_factor, but "
                        "input.size(-1)=%lld is not divisible by %lld", (long long)W, (long long)r);
    return CT_OK;
}

ct_tensor *ct_pixel_shuffle(const ct_tensor *input, int64_t upscale_factor)
{
    CT__ARG(input, "input", 1);
    if (ct__check_shuffle(input, upscale_factor, false) || ct__check_floating(input, "pixel_shuffle")) return NULL;
    return ct__linmap_once(ct__shuffle_map(input, upscale_factor, false), input, 0);
}

ct_tensor *ct_pixel_unshuffle(const ct_tensor *input, int64_t downscale_factor)
{
    CT__ARG(input, "input", 1);
    if (ct__check_shuffle(input, downscale_factor, true) || ct__check_floating(input, "pixel_unshuffle")) return NULL;
    return ct__linmap_once(ct__shuffle_map(input, downscale_factor, true), input, 0);
}
