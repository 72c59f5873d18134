/* Convolutions (im2col + GEMM per image and group), transposed convolutions
 * (GEMM + col2im), and F.unfold / F.fold.
 *
 * One internal op, ct__convolution (at::convolution), computes both kinds
 * and records ConvolutionBackward0. Its backward is made of convolutions
 * again, as PyTorch's classic formulas: the input's gradient is the other
 * kind of convolution of the output's gradient with the same weight, the
 * weight's gradient a convolution of the (regrouped) input with the
 * (regrouped) output gradient, stride and dilation swapped. So double
 * backward works with nothing more. */

/* ---------------------------------------------------------------- geometry */

/* The output's spatial size along d for input size in and kernel size k. */
static int64_t ct__conv_out_size(const ct__conv *c, int d, int64_t in, int64_t k)
{
    if (c->transposed) return (in - 1) * c->stride[d] - 2 * c->pad[d] + c->dil[d] * (k - 1) + c->out_pad[d] + 1;
    return (in + 2 * c->pad[d] - c->dil[d] * (k - 1) - 1) / c->stride[d] + 1;
}

/* The im2col window of one image: over the input for a convolution, over the output for a transposed one. */
static ct__window ct__conv_window(const ct__conv *c, const int64_t *in, const int64_t *out, const int64_t *k)
{
    ct__window g;
    int lead = 3 - c->nd;
    for (int d = 0; d < 3; d++) {
        int s = d - lead;
        g.in[d] = s < 0 ? 1 : c->transposed ? out[s] : in[s];
        g.out[d] = s < 0 ? 1 : c->transposed ? in[s] : out[s];
        g.k[d] = s < 0 ? 1 : k[s];
        g.stride[d] = s < 0 ? 1 : c->stride[s];
        g.pad[d] = s < 0 ? 0 : c->pad[s];
        g.dil[d] = s < 0 ? 1 : c->dil[s];
    }
    return g;
}

/* ---------------------------------------------------------------- the op and its backward */

/* A convolution kernel's job on out's device, the rest zero. */
static ct__conv_job ct__conv_job_for(ct__conv_kind kind, ct_tensor *out, const ct__conv *c, const ct__window *g)
{
    ct__conv_job job;
    memset(&job, 0, sizeof job);
    job.kind = kind;
    job.conv = c;
    job.g = g;
    job.dtype = out->dtype;
    job.out = ct__data(out);
    return job;
}

static ct_result ct__conv_run(const ct_tensor *out, const ct__conv_job *job)
{
    return ct__backend_for(out->storage->device.type)->conv(job);
}

static ct_tensor *ct__convolution(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b, const ct__conv *c);

/* The weight's gradient: a convolution of data (N, G * C, ...) regrouped to
 * (C, G * N, ...) with kern (N, G * O, ...) seen as (G * O, N, ...), stride
 * and dilation swapped, cut to the kernel's size k, as (G * O, C, k...). For
 * a convolution data is the input and kern the output's gradient; for a
 * transposed one the other way round. */
static ct_tensor *ct__conv_weight_grad(const ct_tensor *data, const ct_tensor *kern, const ct__conv *c, const int64_t *k)
{
    int64_t G = c->groups, N = data->sizes[0], C = data->sizes[1] / G, split[CT_MAX_DIMS], perm[CT_MAX_DIMS];
    int nd = c->nd;
    split[0] = N, split[1] = G, split[2] = C;
    perm[0] = 2, perm[1] = 1, perm[2] = 0;
    for (int d = 0; d < nd; d++) split[3 + d] = data->sizes[2 + d], perm[3 + d] = 3 + d;
    int64_t regrouped[CT_MAX_DIMS];
    memcpy(regrouped + 1, split + 2, sizeof(int64_t) * (size_t)(nd + 1));
    regrouped[0] = C;
    regrouped[1] = G * N;
    ct_tensor *xs = ct_reshape(ct_permute(ct_reshape(data, ct_shape_make(nd + 3, split)), ct_shape_make(nd + 3, perm)),
                               ct_shape_make(nd + 2, regrouped));
    ct_tensor *ws = ct_transpose(kern, 0, 1);
    ct__conv s = *c;
    s.transposed = false;
    for (int d = 0; d < nd; d++) {
        s.stride[d] = c->dil[d];
        s.dil[d] = c->stride[d];
        s.out_pad[d] = 0;
    }
    ct_tensor *r = ct__convolution(xs, ws, NULL, &s);
    for (int d = 0; d < nd && r; d++) r = ct_narrow(r, 2 + d, 0, k[d]);
    return ct_transpose(r, 0, 1);
}

/* The weight's gradient by the kernel above, for a backward that records
 * nothing (no create_graph): the composite above costs an im2col with the
 * whole image as the window. */
static ct_tensor *ct__conv_weight_grad_direct(const ct_tensor *x, const ct_tensor *go, const ct_tensor *w,
                                              const ct__conv *c)
{
    int64_t N = x->sizes[0];
    if (N == 0) return ct_zeros(ct_shape_make(w->ndim, w->sizes), w->dtype);
    ct__window g = ct__conv_window(c, x->sizes + 2, go->sizes + 2, w->sizes + 2);
    ct_tensor *xc = ct_contiguous(x), *gc = ct_contiguous(go);
    ct_tensor *gw = ct__alloc(w->sizes, w->ndim, w->dtype, w->storage->device);
    if (!xc || !gc || !gw) return NULL;
    ct__conv_job job = ct__conv_job_for(CT__CONV_WEIGHT_GRAD, gw, c, &g);
    job.N = N;
    job.Cin = x->sizes[1];
    job.Cout = go->sizes[1];
    job.x = ct__data(xc);
    job.w = ct__data(gc);
    return ct__conv_run(gw, &job) == CT_OK ? gw : NULL;
}

/* The bias's gradient (C) of the output's gradient go (N, C, ...): by the kernel above when it may
 * (kernels: recording nothing, go contiguous, float or double), else by sum over every dim but C. */
static ct_tensor *ct__conv_bias_grad(const ct_tensor *go, bool kernels)
{
    if (!kernels) {
        ct_shape dims = CT_SHAPE(0);
        for (int d = 2; d < go->ndim; d++) dims.size[dims.ndim++] = d;
        return ct_sum_dim(go, dims, false, CT_DEFAULT);
    }
    int64_t N = go->sizes[0], C = go->sizes[1], L = N * C > 0 ? ct_numel(go) / (N * C) : 0;
    ct_tensor *gb = ct__alloc(&C, 1, go->dtype, go->storage->device);
    if (!gb) return NULL;
    ct__conv_job job = ct__conv_job_for(CT__CONV_BIAS_GRAD, gb, NULL, NULL);
    job.N = N;
    job.Cout = C;
    job.L = L;
    job.x = ct__data(go);
    return ct__conv_run(gb, &job) == CT_OK ? gb : NULL;
}

/* The input's gradient: the other kind of convolution of the output's
 * gradient, its output padding chosen to give back the input's size. */
static ct_tensor *ct__conv_input_grad(const ct_tensor *go, const ct_tensor *w, const ct__conv *c, const int64_t *in_sizes)
{
    ct__conv s = *c;
    s.transposed = !c->transposed;
    for (int d = 0; d < c->nd; d++) s.out_pad[d] = 0;
    for (int d = 0; d < c->nd; d++)
        if (s.transposed)
            s.out_pad[d] = in_sizes[2 + d] - ct__conv_out_size(&s, d, go->sizes[2 + d], w->sizes[2 + d]);
    return ct__convolution(go, w, NULL, &s);
}

/* The output's gradient go made contiguous for a backward that records nothing: go itself when it is,
 * else a copy in the thread's scratch memory, which each gradient of the node reads and none keeps (a
 * new copy's pages would fault in at every step: sum's gradient, an expanded one, is copied whole). */
static const ct_tensor *ct__conv_grad_contiguous(const ct_tensor *go)
{
    if (ct_is_contiguous(go) || go->storage->device.type != CT_DEVICE_CPU) return ct_contiguous(go);
    void *p = ct__scratch_get(CT__SCRATCH_CONV_GRAD, (size_t)CT__MAX(ct_numel(go), 1) * ct__esize(go));
    if (!p) {
        CT__OOM();
        return NULL;
    }
    ct_tensor *t = ct_from_blob(p, ct_shape_make(go->ndim, go->sizes), NULL, go->dtype, NULL, NULL);
    return t && ct_copy_(t, go) == CT_OK ? t : NULL;
}

CT__BACKWARD(convolution)
{
    const ct__conv *c = (const ct__conv *)n->extra;
    ct_tensor *x = CT__S(0), *w = CT__S(1);
    if (!x || !w) return ct_last_error_code();
    /* Recording nothing, every gradient reads the output's gradient whole: made contiguous once (an
     * expanded one, as sum's gradient, is copied once, not per gradient, and summed as contiguous). */
    bool direct = !ct_is_grad_enabled(), kernels = direct && (w->dtype == CT_F32 || w->dtype == CT_F64);
    const ct_tensor *g = direct ? ct__conv_grad_contiguous(go[0]) : go[0];
    if (!g) return ct_last_error_code();
    CT__GRAD(0, ct__conv_input_grad(g, w, c, x->sizes));
    CT__GRAD(1, kernels          ? ct__conv_weight_grad_direct(x, g, w, c)
                : c->transposed ? ct__conv_weight_grad(g, x, c, w->sizes + 2)
                                : ct__conv_weight_grad(x, g, c, w->sizes + 2));
    CT__GRAD(2, ct__conv_bias_grad(g, kernels));
    return CT_OK;
}

/* at::convolution for a batched x (N, Cin, in...) and a checked geometry. */
static ct_tensor *ct__convolution(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b, const ct__conv *c)
{
    static const ct__node_type type = {"ConvolutionBackward0", ct__bw_convolution};
    const ct_tensor *inputs[3] = {x, w, b};
    ct_device dev;
    if (ct__common_device(inputs, 3, false, &dev) != CT_OK || ct__recordable(inputs, 3) != CT_OK) return NULL;
    int64_t sizes[5], Cout = c->transposed ? w->sizes[1] * c->groups : w->sizes[0];
    sizes[0] = x->sizes[0];
    sizes[1] = Cout;
    for (int d = 0; d < c->nd; d++) {
        sizes[2 + d] = ct__conv_out_size(c, d, x->sizes[2 + d], w->sizes[2 + d]);
    }
    ct__window g = ct__conv_window(c, x->sizes + 2, sizes + 2, w->sizes + 2);
    ct_dtype cd = x->dtype == CT_BF16 ? CT_F32 : x->dtype; /* bfloat16 computes in float, rounded once */
    ct_tensor *xc, *wc, *bc = NULL, *out = ct__alloc(sizes, c->nd + 2, cd, x->storage->device);
    CT__UNRECORDED(xc, ct_contiguous(ct_to(x, cd)));
    CT__UNRECORDED(wc, ct_contiguous(ct_to(w, cd)));
    if (b) CT__UNRECORDED(bc, ct_contiguous(ct_to(b, cd)));
    ct__conv *keep = (ct__conv *)CT_MALLOC(sizeof *keep);
    ct_result rc = !out || !xc || !wc || (b && !bc) ? ct_last_error_code() : !keep ? CT__OOM() : CT_OK;
    if (rc == CT_OK && ct_numel(out) > 0) {
        ct__conv_job job = ct__conv_job_for(CT__CONV_FORWARD, out, c, &g);
        job.N = x->sizes[0];
        job.Cin = x->sizes[1];
        job.Cout = Cout;
        job.x = ct__data(xc);
        job.w = ct__data(wc);
        job.b = bc ? ct__data(bc) : NULL;
        rc = ct__conv_run(out, &job);
    }
    ct__discard(xc);
    ct__discard(wc);
    ct__discard(bc);
    if (rc != CT_OK) {
        CT_FREE(keep);
        ct__discard(out);
        return NULL;
    }
    if (cd != x->dtype) {
        ct_tensor *wide = out;
        CT__UNRECORDED(out, ct_to(wide, x->dtype));
        ct__discard(wide);
        if (!out) {
            CT_FREE(keep);
            return NULL;
        }
    }
    *keep = *c;
    ct__node *n = ct__record(&type, inputs, 3, &out, 1);
    if (!n) {
        CT_FREE(keep);
        return ct__recorded_or_discard(out, NULL, inputs, 3);
    }
    n->extra = keep;
    ct__save(n, x, false);
    ct__save(n, w, false);
    return ct__recorded_or_discard(out, n, inputs, 3);
}

/* ---------------------------------------------------------------- front ends */

/* "[1, 1, 1]" of a list. */
static const char *ct__list_str(const int64_t *v, int n, char *buf, size_t size) { return ct__shape_str(v, n, buf, size); }

/* A list argument as PyTorch's parser and expand_param_if_needed see it:
 * empty takes def for each of the function's fn_nd dims, one value fills
 * them; the result must then have one value per weight dim (nd) or one. */
static ct_result ct__conv_param(const char *what, ct_shape s, int fn_nd, int nd, int64_t def, int64_t *out)
{
    int64_t given[CT_MAX_DIMS];
    int n = s.ndim == 0 || s.ndim == 1 ? fn_nd : s.ndim;
    for (int d = 0; d < n; d++) given[d] = s.ndim == 0 ? def : s.size[s.ndim == 1 ? 0 : d];
    if (n != 1 && n != nd) {
        char buf[256];
        return ct__fail(CT_ERR_RUNTIME, "expected %s to be a single integer value or a list of %d values to match the "
                        "convolution dimensions, but got %s=%s", what, nd, what, ct__list_str(given, n, buf, sizeof buf));
    }
    for (int d = 0; d < nd; d++) out[d] = given[n == 1 ? 0 : d];
    return CT_OK;
}

static const char *ct__type_name(ct_dtype t) { return t == CT_F64 ? "double" : t == CT_F32 ? "float" : ct_dtype_name(t); }

/* "(6 x 6)" of n values. */
static const char *ct__x_list(const int64_t *v, int n, char *buf, size_t size)
{
    int at = snprintf(buf, size, "(");
    for (int d = 0; d < n && at < (int)size; d++) at += snprintf(buf + at, size - (size_t)at, "%s%lld", d ? " x " : "", (long long)v[d]);
    if (at < (int)size) snprintf(buf + at, size - (size_t)at, ")");
    return buf;
}

/* check_shape_forward: the weight, groups, channels, bias and window sizes of a batched x. */
static ct_result ct__check_conv_shapes(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b, const ct__conv *c)
{
    char a[256], bb[256], cc[256];
    int64_t G = c->groups;
    if (w->ndim != x->ndim)
        return ct__fail(CT_ERR_RUNTIME, "Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional "
                        "input of size %s instead", w->ndim, w->ndim, ct__shape_str(w->sizes, w->ndim, a, sizeof a), x->ndim,
                        ct__shape_str(x->sizes, x->ndim, bb, sizeof bb));
    ct__shape_str(w->sizes, w->ndim, a, sizeof a);
    if (w->sizes[0] < G)
        return ct__fail(CT_ERR_RUNTIME, "Given groups=%lld, expected weight to be at least %lld at dimension 0, but got weight "
                        "of size %s instead", (long long)G, (long long)G, a);
    if (w->sizes[0] % G)
        return ct__fail(CT_ERR_RUNTIME, "Given groups=%lld, expected weight to be divisible by %lld at dimension 0, but got "
                        "weight of size [%s] instead", (long long)G, (long long)G, a);
    int64_t channels = c->transposed ? w->sizes[0] : w->sizes[1] * G, bias = c->transposed ? w->sizes[1] * G : w->sizes[0];
    if (x->sizes[1] != channels)
        return ct__fail(CT_ERR_RUNTIME, "Given %s=%lld, weight of size %s, expected input%s to have %lld channels, but got %lld "
                        "channels instead", c->transposed ? "transposed" : "groups", c->transposed ? 1LL : (long long)G, a,
                        ct__shape_str(x->sizes, x->ndim, bb, sizeof bb), (long long)channels, (long long)x->sizes[1]);
    if (b && (b->ndim != 1 || b->sizes[0] != bias))
        return ct__fail(CT_ERR_RUNTIME, "Given %sweight of size %s, expected bias to be 1-dimensional with %lld elements, but got "
                        "bias of size %s instead", c->transposed ? "transposed=1, " : "", a, (long long)bias,
                        ct__shape_str(b->sizes, b->ndim, bb, sizeof bb));
    int64_t padded[3], kernel[3], out[3];
    bool fits = true, positive = true;
    for (int d = 0; d < c->nd; d++) {
        padded[d] = x->sizes[2 + d] + 2 * c->pad[d];
        kernel[d] = c->dil[d] * (w->sizes[2 + d] - 1) + 1;
        fits &= padded[d] >= kernel[d];
        out[d] = ct__conv_out_size(c, d, x->sizes[2 + d], w->sizes[2 + d]);
        positive &= out[d] > 0;
    }
    if (!c->transposed && !fits)
        return ct__fail(CT_ERR_RUNTIME, "Calculated padded input size per channel: %s. Kernel size: %s. Kernel size can't be "
                        "greater than actual input size", ct__x_list(padded, c->nd, bb, sizeof bb), ct__x_list(kernel, c->nd, cc, sizeof cc));
    if (c->transposed && !positive)
        return ct__fail(CT_ERR_RUNTIME, "Given input size per channel: %s. Calculated output size per channel: %s. Output size "
                        "is too small", ct__x_list(x->sizes + 2, c->nd, bb, sizeof bb), ct__x_list(out, c->nd, cc, sizeof cc));
    if (w->dtype != x->dtype)
        return ct__fail(CT_ERR_RUNTIME, "Input type (%s) and weight type (%s) should be the same or input should be a MKLDNN "
                        "tensor and weight is a dense tensor", x->dtype == CT_F64 ? "torch.DoubleTensor" : "torch.FloatTensor",
                        w->dtype == CT_F64 ? "torch.DoubleTensor" : "torch.FloatTensor");
    if (b && b->dtype != x->dtype)
        return ct__fail(CT_ERR_RUNTIME, "Input type (%s) and bias type (%s) should be the same", ct__type_name(x->dtype),
                        ct__type_name(b->dtype));
    if (x->dtype != CT_F32 && x->dtype != CT_F64 && x->dtype != CT_BF16)
        return ct__fail(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", c->transposed ? "conv_transpose" : "conv",
                        ct_dtype_name(x->dtype));
    bool too_large = false;
    for (int d = 0; c->transposed && d < c->nd; d++) too_large |= c->out_pad[d] >= c->stride[d] && c->out_pad[d] >= c->dil[d];
    if (too_large) { /* worded for 2-D: a 1-D one is run as 2-D with height 1 */
        int h = c->nd == 2 ? 0 : -1, w = c->nd - 1;
        return ct__fail(CT_ERR_RUNTIME, "output padding must be smaller than either stride or dilation, but got "
                        "output_padding_height: %lld output_padding_width: %lld stride_height: %lld stride_width: %lld "
                        "dilation_height: %lld dilation_width: %lld", h < 0 ? 0LL : (long long)c->out_pad[h],
                        (long long)c->out_pad[w], h < 0 ? 1LL : (long long)c->stride[h], (long long)c->stride[w],
                        h < 0 ? 1LL : (long long)c->dil[h], (long long)c->dil[w]);
    }
    return CT_OK;
}

/* The geometry from the options, checked as at::_convolution checks it. */
static ct_result ct__conv_geometry(const ct_tensor *w, int fn_nd, bool transposed, const ct_conv_opts *o, ct__conv *c)
{
    memset(c, 0, sizeof *c);
    if (w->ndim < 3) return ct__fail(CT_ERR_RUNTIME, "weight should have at least three dimensions");
    c->nd = w->ndim - 2;
    c->transposed = transposed;
    c->groups = o->groups ? o->groups : 1;
    if (c->nd > 3) return ct__fail(CT_ERR_RUNTIME, "ctorch: convolutions have at most 3 spatial dims");
    if (ct__conv_param("stride", o->stride, fn_nd, c->nd, 1, c->stride) ||
        ct__conv_param("padding", o->padding, fn_nd, c->nd, 0, c->pad) ||
        ct__conv_param("dilation", o->dilation, fn_nd, c->nd, 1, c->dil) ||
        (transposed && ct__conv_param("output_padding", o->output_padding, fn_nd, c->nd, 0, c->out_pad)))
        return ct_last_error_code();
    for (int d = 0; d < c->nd; d++) {
        if (c->pad[d] < 0) return ct__fail(CT_ERR_RUNTIME, "negative padding is not supported");
        if (c->out_pad[d] < 0) return ct__fail(CT_ERR_RUNTIME, "negative output_padding is not supported");
        if (c->stride[d] <= 0) return ct__fail(CT_ERR_RUNTIME, "non-positive stride is not supported");
        if (c->dil[d] <= 0) return ct__fail(CT_ERR_RUNTIME, "non-positive dilation is not supported");
    }
    if (c->groups <= 0) return ct__fail(CT_ERR_RUNTIME, "non-positive groups is not supported");
    return CT_OK;
}

/* padding="same": half the dilated kernel on each side; an odd total puts
 * the extra place on the right, padded into the input first (as PyTorch).
 * Returns x itself or the padded copy (owned by the open scope). */
static const ct_tensor *ct__pad_same(const ct_tensor *x, const ct_tensor *w, ct__conv *c)
{
    ct_shape extra = CT_SHAPE0;
    bool asymmetric = false;
    for (int d = c->nd - 1; d >= 0; d--) {
        int64_t total = c->dil[d] * (w->sizes[2 + d] - 1);
        c->pad[d] = total / 2;
        extra.size[extra.ndim++] = 0;
        extra.size[extra.ndim++] = total - 2 * (total / 2);
        asymmetric |= total % 2 != 0;
    }
    return asymmetric ? ct_pad(x, extra, CT_PAD_CONSTANT, 0) : x;
}

/* The public convolutions (fn: PyTorch's name): fn_nd spatial dims, unbatched inputs given a batch dim and losing it after. */
static ct_tensor *ct__conv_front(const char *fn, int fn_nd, bool transposed, const ct_tensor *input, const ct_tensor *weight,
                                 const ct_tensor *bias, ct_conv_opts opts)
{
    char buf[256];
    if (!input || !weight) {
        ct__null_arg(fn, input ? "weight" : "input", input ? 2 : 1);
        return NULL;
    }
    if (input->ndim != fn_nd + 1 && input->ndim != fn_nd + 2) {
        ct__fail(CT_ERR_RUNTIME, "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s", fn_nd + 1,
                 fn_nd + 2, fn, ct__shape_str(input->sizes, input->ndim, buf, sizeof buf));
        return NULL;
    }
    bool same = opts.padding_str && !strcmp(opts.padding_str, "same");
    if (opts.padding_str && !same && strcmp(opts.padding_str, "valid")) {
        ct__fail(transposed ? CT_ERR_TYPE : CT_ERR_RUNTIME, "Invalid padding string: '%s'", opts.padding_str);
        return NULL;
    }
    if (opts.padding_str && transposed) {
        ct__fail(CT_ERR_TYPE, "%s(): argument 'padding' must be tuple of ints, not str", fn);
        return NULL;
    }
    if (opts.padding_str) opts.padding = CT_SHAPE0;
    ct__conv c;
    if (ct__conv_geometry(weight, fn_nd, transposed, &opts, &c)) return NULL;
    for (int d = 0; same && d < c.nd; d++)
        if (c.stride[d] != 1) {
            ct__fail(CT_ERR_RUNTIME, "padding='same' is not supported for strided convolutions");
            return NULL;
        }
    ct_scope s = ct_scope_begin();
    bool batched = input->ndim == fn_nd + 2;
    const ct_tensor *x = batched ? input : ct_unsqueeze(input, 0);
    ct_tensor *r = NULL;
    if (x && same) x = ct__pad_same(x, weight, &c);
    if (x && !ct__check_conv_shapes(x, weight, bias, &c)) r = ct__convolution(x, weight, bias, &c);
    if (r && !batched) r = ct_squeeze_dim(r, 0);
    r = ct_keep(r);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_conv1d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_conv1d(input, weight, bias, opts), &input, &weight, &bias);
    return ct__conv_front("conv1d", 1, false, input, weight, bias, opts);
}

ct_tensor *ct_conv2d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_conv2d(input, weight, bias, opts), &input, &weight, &bias);
    return ct__conv_front("conv2d", 2, false, input, weight, bias, opts);
}

ct_tensor *ct_conv3d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_conv3d(input, weight, bias, opts), &input, &weight, &bias);
    return ct__conv_front("conv3d", 3, false, input, weight, bias, opts);
}

ct_tensor *ct_conv_transpose1d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    return ct__conv_front("conv_transpose1d", 1, true, input, weight, bias, opts);
}

ct_tensor *ct_conv_transpose2d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    return ct__conv_front("conv_transpose2d", 2, true, input, weight, bias, opts);
}

ct_tensor *ct_conv_transpose3d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    return ct__conv_front("conv_transpose3d", 3, true, input, weight, bias, opts);
}

/* ---------------------------------------------------------------- im2col and col2im */

/* F.unfold's window over (H, W) and whether the result is the columns (im2col) or the image (col2im). */
typedef struct ct__fold {
    ct__window g;
    bool to_image;
    int64_t channels; /* of the image */
} ct__fold;

static ct_tensor *ct__fold_run(const ct__fold *f, const ct_tensor *x, bool to_image);

CT__BACKWARD(fold)
{
    CT__GRAD(0, ct__fold_run((const ct__fold *)n->extra, go[0], !n->iargs[0]));
    return CT_OK;
}

/* im2col (image (N, C, H, W) to columns (N, C * K, L)) or col2im of x, with
 * or without its batch dim; records Im2ColBackward0 or Col2ImBackward0. */
static ct_tensor *ct__fold_run(const ct__fold *f, const ct_tensor *x, bool to_image)
{
    static const ct__node_type type = {"Im2ColBackward0", ct__bw_fold};
    if (ct__recordable(&x, 1) != CT_OK) return NULL;
    const ct__window *g = &f->g;
    int64_t K = g->k[1] * g->k[2], L = g->out[1] * g->out[2];
    bool batched = x->ndim == (to_image ? 3 : 4);
    int64_t N = batched ? x->sizes[0] : 1, sizes[4];
    int nd = 0;
    if (batched) sizes[nd++] = N;
    sizes[nd++] = to_image ? f->channels : f->channels * K;
    if (to_image) sizes[nd++] = g->in[1];
    sizes[nd++] = to_image ? g->in[2] : L;
    ct_tensor *xc, *out = ct__alloc(sizes, nd, x->dtype, x->storage->device);
    CT__UNRECORDED(xc, ct_contiguous(x));
    ct__fold *keep = (ct__fold *)CT_MALLOC(sizeof *keep);
    if (!out || !xc || !keep) {
        if (!keep) CT__OOM();
        CT_FREE(keep);
        ct__discard(out);
        ct__discard(xc);
        return NULL;
    }
    if (ct_numel(out) > 0) {
        ct__conv_job job = ct__conv_job_for(to_image ? CT__CONV_COL2IM : CT__CONV_IM2COL, out, NULL, g);
        job.N = N;
        job.Cin = f->channels;
        job.x = ct__data(xc);
        ct__conv_run(out, &job); /* (cannot fail: no scratch) */
    }
    ct__discard(xc);
    *keep = *f;
    const ct_tensor *inputs[1] = {x};
    ct__node *n = ct__record(&type, inputs, 1, &out, 1);
    if (!n) {
        CT_FREE(keep);
        return ct__recorded_or_discard(out, NULL, inputs, 1);
    }
    n->name = to_image ? "Col2ImBackward0" : "Im2ColBackward0";
    n->iargs[0] = to_image;
    n->extra = keep;
    return out;
}

/* A 2-value list of F.unfold / F.fold (one value: both). */
static ct_result ct__fold_list(const char *what, ct_shape s, int64_t def, int64_t *out)
{
    if (s.ndim > 2) return ct__fail(CT_ERR_RUNTIME, "It is expected %s equals to 2, but got size %d", what, s.ndim);
    for (int d = 0; d < 2; d++) out[d] = s.ndim == 0 ? def : s.size[s.ndim == 1 ? 0 : d];
    return CT_OK;
}

/* The window of F.unfold / F.fold over an image of size (H, W), checked as PyTorch's im2col_shape_check. */
static ct_result ct__fold_geometry(ct_shape kernel, const ct_fold_opts *o, ct__fold *f)
{
    int64_t k[2] = {0, 0}, d[2] = {0, 0}, p[2] = {0, 0}, s[2] = {0, 0};
    if (kernel.ndim == 0) return ct__fail(CT_ERR_RUNTIME, "It is expected kernel_size equals to 2, but got size 0");
    if (ct__fold_list("kernel_size", kernel, 0, k) || ct__fold_list("dilation", o->dilation, 1, d) ||
        ct__fold_list("padding", o->padding, 0, p) || ct__fold_list("stride", o->stride, 1, s))
        return ct_last_error_code();
    if (k[0] <= 0 || k[1] <= 0)
        return ct__fail(CT_ERR_RUNTIME, "kernel size should be greater than zero, but got kernel_height: %lld kernel_width: %lld",
                        (long long)k[0], (long long)k[1]);
    if (s[0] <= 0 || s[1] <= 0)
        return ct__fail(CT_ERR_RUNTIME, "stride should be greater than zero, but got stride_height: %lld stride_width: %lld",
                        (long long)s[0], (long long)s[1]);
    if (d[0] <= 0 || d[1] <= 0)
        return ct__fail(CT_ERR_RUNTIME, "dilation should be greater than zero, but got dilation_height: %lld dilation_width: %lld",
                        (long long)d[0], (long long)d[1]);
    if (p[0] < 0 || p[1] < 0)
        return ct__fail(CT_ERR_RUNTIME, "padding should be non-negative, but got pad_height: %lld pad_width: %lld",
                        (long long)p[0], (long long)p[1]);
    memset(f, 0, sizeof *f);
    f->g.in[0] = f->g.out[0] = f->g.k[0] = f->g.stride[0] = f->g.dil[0] = 1;
    for (int i = 0; i < 2; i++) {
        f->g.k[1 + i] = k[i];
        f->g.dil[1 + i] = d[i];
        f->g.pad[1 + i] = p[i];
        f->g.stride[1 + i] = s[i];
    }
    return CT_OK;
}

/* The number of blocks along each dim of an image (H, W). */
static void ct__fold_blocks(ct__fold *f, int64_t H, int64_t W)
{
    f->g.in[1] = H;
    f->g.in[2] = W;
    for (int i = 1; i < 3; i++)
        f->g.out[i] = (f->g.in[i] + 2 * f->g.pad[i] - f->g.dil[i] * (f->g.k[i] - 1) - 1) / f->g.stride[i] + 1;
}

ct_tensor *ct_im2col(const ct_tensor *input, ct_shape kernel_size, ct_fold_opts opts)
{
    CT__ARG(input, "input", 1);
    char buf[256];
    ct__fold f;
    if (ct__fold_geometry(kernel_size, &opts, &f)) return NULL;
    bool ok = input->ndim == 3 || input->ndim == 4;
    for (int d = input->ndim - 3; ok && d < input->ndim; d++) ok = input->sizes[d] != 0;
    if (!ok) {
        ct__fail(CT_ERR_RUNTIME, "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
                 "for input, but got: %s", ct__shape_str(input->sizes, input->ndim, buf, sizeof buf));
        return NULL;
    }
    if (ct__check_floating(input, "im2col_out_cpu")) return NULL;
    ct__fold_blocks(&f, input->sizes[input->ndim - 2], input->sizes[input->ndim - 1]);
    f.channels = input->sizes[input->ndim - 3];
    if (f.g.out[1] < 1 || f.g.out[2] < 1) {
        ct__fail(CT_ERR_RUNTIME, "Given input with spatial size (%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), "
                 "padding=(%lld, %lld), calculated shape of the array of sliding blocks as (%lld, %lld), but its components must "
                 "be at least one.", (long long)f.g.in[1], (long long)f.g.in[2], (long long)f.g.k[1], (long long)f.g.k[2],
                 (long long)f.g.dil[1], (long long)f.g.dil[2], (long long)f.g.pad[1], (long long)f.g.pad[2],
                 (long long)f.g.out[1], (long long)f.g.out[2]);
        return NULL;
    }
    return ct__fold_run(&f, input, false);
}

ct_tensor *ct_col2im(const ct_tensor *input, ct_shape output_size, ct_shape kernel_size, ct_fold_opts opts)
{
    CT__ARG(input, "input", 1);
    char buf[256];
    ct__fold f;
    int64_t size[2] = {0, 0};
    if (ct__fold_list("output_size", output_size, 0, size) || ct__fold_geometry(kernel_size, &opts, &f)) return NULL;
    bool ok = input->ndim == 2 || input->ndim == 3;
    for (int d = input->ndim - 2; ok && d < input->ndim; d++) ok = input->sizes[d] != 0;
    if (!ok) {
        ct__fail(CT_ERR_RUNTIME, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                 "dimensions for input, but got: %s", ct__shape_str(input->sizes, input->ndim, buf, sizeof buf));
        return NULL;
    }
    int64_t rows = input->sizes[input->ndim - 2], cols = input->sizes[input->ndim - 1], K = f.g.k[1] * f.g.k[2];
    if (rows % K) {
        ct__fail(CT_ERR_RUNTIME, "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
                 "input.size(1)=%lld and kernel_size=(%lld, %lld).", (long long)rows, (long long)f.g.k[1], (long long)f.g.k[2]);
        return NULL;
    }
    ct__fold_blocks(&f, size[0], size[1]);
    f.channels = rows / K;
    if (f.g.out[1] < 1 || f.g.out[2] < 1 || f.g.out[1] * f.g.out[2] != cols) {
        ct__fail(CT_ERR_RUNTIME, "Given output_size=(%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), padding=(%lld, "
                 "%lld), stride=(%lld, %lld), expected size of input's dimension 2 to match the calculated number of sliding "
                 "blocks %lld * %lld = %lld, but got input.size(2)=%lld.", (long long)size[0], (long long)size[1],
                 (long long)f.g.k[1], (long long)f.g.k[2], (long long)f.g.dil[1], (long long)f.g.dil[2], (long long)f.g.pad[1],
                 (long long)f.g.pad[2], (long long)f.g.stride[1], (long long)f.g.stride[2], (long long)f.g.out[1],
                 (long long)f.g.out[2], (long long)(f.g.out[1] * f.g.out[2]), (long long)cols);
        return NULL;
    }
    if (ct__check_floating(input, "col2im_out_cpu")) return NULL;
    return ct__fold_run(&f, input, true);
}
