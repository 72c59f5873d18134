/* The convolution and pooling layers of torch.nn: Conv1d/2d/3d,
 * ConvTranspose1d/2d/3d, MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool2d and
 * AdaptiveMaxPool2d. Settings are checked as PyTorch's constructors check
 * them, parameters drawn as _ConvNd.reset_parameters draws them, and
 * forward calls the functional ops (src/linalg/conv.c, pool.c), which
 * record the graph. */

/* ---------------------------------------------------------------- convolutions */

typedef struct ct__conv_layer {
    ct_module base;
    int nd; /* spatial dims */
    bool transposed;
    int64_t groups;
    ct_shape kernel_size, stride, padding, dilation, output_padding; /* nd values each */
    const char *padding_str;                           /* "same", "valid" or NULL */
    ct_pad_mode padding_mode;
    ct_shape pad_twice;   /* F.pad's list for padding modes other than zeros (_reversed_padding_repeated_twice) */
    ct_shape output_size; /* ConvTranspose.forward's output_size for the call in progress (empty: None) */
} ct__conv_layer;

#define CT__CONV(m) ((ct__conv_layer *)(m))

/* A list argument as nd values: one value applies to every dim (_single,
 * _pair, _triple), empty gives def; checked as the functional checks it. */
static ct_result ct__conv_list(const char *what, ct_shape s, int nd, int64_t def, ct_shape *out)
{
    out->ndim = nd;
    return ct__conv_param(what, s, nd, nd, def, out->size);
}

/* The functional's options for this layer's call. */
static ct_conv_opts ct__conv_call_opts(const ct__conv_layer *c)
{
    ct_conv_opts o;
    memset(&o, 0, sizeof o);
    o.stride = c->stride;
    o.padding = c->padding;
    o.padding_str = c->padding_str;
    o.dilation = c->dilation;
    o.groups = c->groups;
    o.output_padding = c->output_padding;
    return o;
}

static ct_tensor *ct__conv_nd(int nd, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b, ct_conv_opts o)
{
    return nd == 1 ? ct_conv1d(x, w, b, o) : nd == 2 ? ct_conv2d(x, w, b, o) : ct_conv3d(x, w, b, o);
}

/* _ConvNd._conv_forward: padding modes other than zeros pad with F.pad first. */
static ct_tensor *ct__conv_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    const ct__conv_layer *c = CT__CONV(m);
    ct_conv_opts o = ct__conv_call_opts(c);
    ct_tensor *w = ct__attr(m, "weight"), *b = ct__attr(m, "bias");
    if (c->padding_mode == CT_PAD_CONSTANT) return ct__conv_nd(c->nd, in[0], w, b, o);
    o.padding = CT_SHAPE(0);
    o.padding_str = NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *padded = ct_pad(in[0], c->pad_twice, c->padding_mode, 0);
    ct_tensor *r = ct_keep(padded ? ct__conv_nd(c->nd, padded, w, b, o) : NULL);
    ct_scope_end(s);
    return r;
}

/* _ConvTransposeNd._output_padding: the output_padding that gives the
 * requested output size, checked against the sizes this input can give. */
static ct_result ct__output_padding(const ct__conv_layer *c, const ct_tensor *x, ct_shape size, ct_shape *out)
{
    int nd = c->nd, non_spatial = x->ndim == nd + 2 ? 2 : 1;
    char a[256], b[256], s[256], in_sizes[256];
    if (size.ndim == non_spatial + nd) {
        memmove(size.size, size.size + non_spatial, (size_t)nd * sizeof(int64_t));
        size.ndim = nd;
    }
    if (size.ndim != nd)
        return ct__fail(CT_ERR_VALUE, "ConvTranspose%dD: for %dD input, output_size must have %d or %d elements (got %d)", nd,
                        x->ndim, nd, non_spatial + nd, size.ndim);
    int64_t lo[CT_MAX_DIMS], hi[CT_MAX_DIMS];
    bool ok = true;
    for (int d = 0; d < nd; d++) {
        int64_t in = d + non_spatial < x->ndim ? x->sizes[d + non_spatial] : 0;
        lo[d] = (in - 1) * c->stride.size[d] - 2 * c->padding.size[d] + c->dilation.size[d] * (c->kernel_size.size[d] - 1) + 1;
        hi[d] = lo[d] + c->stride.size[d] - 1;
        ok = ok && size.size[d] >= lo[d] && size.size[d] <= hi[d];
    }
    if (!ok) /* PyTorch shows input.size()[2:] whether or not there is a batch dim */
        return ct__fail(CT_ERR_VALUE, "requested an output size of %s, but valid sizes range from %s to %s (for an input of "
                        "torch.Size(%s))", ct__shape_str(size.size, nd, s, sizeof s), ct__shape_str(lo, nd, a, sizeof a),
                        ct__shape_str(hi, nd, b, sizeof b),
                        ct__shape_str(x->sizes + CT__MIN(2, x->ndim), CT__MAX(x->ndim - 2, 0), in_sizes, sizeof in_sizes));
    out->ndim = nd;
    for (int d = 0; d < nd; d++) out->size[d] = size.size[d] - lo[d];
    return CT_OK;
}

static ct_tensor *ct__conv_transpose_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    const ct__conv_layer *c = CT__CONV(m);
    ct_conv_opts o = ct__conv_call_opts(c);
    if (c->output_size.ndim && ct__output_padding(c, in[0], c->output_size, &o.output_padding) != CT_OK) return NULL;
    ct_tensor *w = ct__attr(m, "weight"), *b = ct__attr(m, "bias");
    return c->nd == 1   ? ct_conv_transpose1d(in[0], w, b, o)
           : c->nd == 2 ? ct_conv_transpose2d(in[0], w, b, o)
                        : ct_conv_transpose3d(in[0], w, b, o);
}

static const ct_module_class ct__conv_classes[3] = {
    {"Conv1d", ct__conv_forward, NULL}, {"Conv2d", ct__conv_forward, NULL}, {"Conv3d", ct__conv_forward, NULL}};
static const ct_module_class ct__conv_transpose_classes[3] = {{"ConvTranspose1d", ct__conv_transpose_forward, NULL},
                                                              {"ConvTranspose2d", ct__conv_transpose_forward, NULL},
                                                              {"ConvTranspose3d", ct__conv_transpose_forward, NULL}};

/* _ConvNd.__init__'s checks of groups, padding and padding_mode, in its order. */
static ct_result ct__conv_check(const char *name, const ct__conv_layer *c, int64_t in_channels, int64_t out_channels,
                                const ct_conv_layer_opts *o)
{
    if (c->transposed && o->padding_mode != CT_PAD_CONSTANT)
        return ct__fail(CT_ERR_VALUE, "Only \"zeros\" padding mode is supported for %s", name);
    if (c->groups <= 0) return ct__fail(CT_ERR_VALUE, "groups must be a positive integer");
    if (in_channels % c->groups) return ct__fail(CT_ERR_VALUE, "in_channels must be divisible by groups");
    if (out_channels % c->groups) return ct__fail(CT_ERR_VALUE, "out_channels must be divisible by groups");
    if (o->padding_str) {
        bool same = !strcmp(o->padding_str, "same");
        if (!same && strcmp(o->padding_str, "valid"))
            return ct__fail(CT_ERR_VALUE, "Invalid padding string '%s', should be one of {'valid', 'same'}", o->padding_str);
        for (int d = 0; same && d < c->nd; d++)
            if (c->stride.size[d] != 1) return ct__fail(CT_ERR_VALUE, "padding='same' is not supported for strided convolutions");
    }
    if ((unsigned)o->padding_mode > CT_PAD_CIRCULAR)
        return ct__fail(CT_ERR_VALUE, "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got "
                        "padding_mode=%d", (int)o->padding_mode);
    return CT_OK;
}

/* _reversed_padding_repeated_twice: (left, right) pairs from the last dim
 * back; for "same", half the dilated kernel on the left, the rest right. */
static void ct__conv_pad_twice(ct__conv_layer *c)
{
    c->pad_twice.ndim = 2 * c->nd;
    for (int d = 0; d < c->nd; d++) {
        int i = c->nd - 1 - d;
        int64_t lo = 0, hi = 0;
        if (!c->padding_str) {
            lo = hi = c->padding.size[d];
        } else if (!strcmp(c->padding_str, "same")) {
            int64_t total = c->dilation.size[d] * (c->kernel_size.size[d] - 1);
            lo = total / 2;
            hi = total - lo;
        }
        c->pad_twice.size[2 * i] = lo;
        c->pad_twice.size[2 * i + 1] = hi;
    }
}

/* weight and bias (None without one), then reset_parameters: kaiming_uniform_(a=sqrt(5)) and a bias in +-1/sqrt(fan_in). */
static bool ct__conv_params(ct__conv_layer *c, ct_shape weight_shape, int64_t out_channels, bool bias)
{
    ct_module *m = &c->base;
    ct_tensor *w = ct__new_tensor(m, "weight", weight_shape, CT_DEFAULT, true, true), *b = NULL;
    if (!w) return false;
    if (!bias && ct_register_parameter(m, "bias", NULL) != CT_OK) return false;
    if (bias && !(b = ct__new_tensor(m, "bias", CT_SHAPE(out_channels), CT_DEFAULT, true, true))) return false;
    ct_kaiming_opts ko = {sqrt(5.0), NULL, NULL};
    if (ct_init_kaiming_uniform_(w, ko) != CT_OK) return false;
    int64_t fan_in = 1;
    for (int d = 1; d < weight_shape.ndim; d++) fan_in *= weight_shape.size[d];
    if (!b || fan_in == 0) return true; /* PyTorch leaves the bias as torch.empty made it */
    double bound = 1 / sqrt((double)fan_in);
    return ct_init_uniform_(b, -bound, bound) == CT_OK;
}

static ct_module *ct__conv_layer_new(const ct_module_class *cls, int nd, bool transposed, int64_t in_channels,
                                     int64_t out_channels, ct_shape kernel_size, const ct_conv_layer_opts *o)
{
    if (kernel_size.ndim == 0) {
        ct__fail(CT_ERR_TYPE, "__init__() missing 1 required positional argument: 'kernel_size'");
        return NULL;
    }
    ct__conv_layer *c = (ct__conv_layer *)ct_module_new(cls, sizeof(ct__conv_layer));
    if (!c) return NULL;
    c->nd = nd;
    c->transposed = transposed;
    c->groups = o->groups ? o->groups : 1;
    c->padding_str = o->padding_str && !strcmp(o->padding_str, "same") ? "same" : o->padding_str ? "valid" : NULL;
    c->padding_mode = o->padding_mode;
    bool ok = !ct__conv_list("kernel_size", kernel_size, nd, 0, &c->kernel_size) &&
              !ct__conv_list("stride", o->stride, nd, 1, &c->stride) &&
              !ct__conv_list("padding", o->padding, nd, 0, &c->padding) &&
              !ct__conv_list("dilation", o->dilation, nd, 1, &c->dilation) &&
              !ct__conv_list("output_padding", o->output_padding, nd, 0, &c->output_padding) &&
              !ct__conv_check(cls->name, c, in_channels, out_channels, o);
    if (ok) {
        ct__conv_pad_twice(c);
        ct_shape ws;
        ws.ndim = nd + 2;
        ws.size[0] = transposed ? in_channels : out_channels;
        ws.size[1] = (transposed ? out_channels : in_channels) / c->groups;
        memcpy(ws.size + 2, c->kernel_size.size, (size_t)nd * sizeof(int64_t));
        ok = ct__conv_params(c, ws, out_channels, !o->no_bias);
    }
    if (ok) return &c->base;
    ct_module_release(&c->base);
    return NULL;
}

ct_module *ct_nn_conv1d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size, ct_conv_layer_opts opts)
{
    return ct__conv_layer_new(&ct__conv_classes[0], 1, false, in_channels, out_channels, kernel_size, &opts);
}

ct_module *ct_nn_conv2d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size, ct_conv_layer_opts opts)
{
    return ct__conv_layer_new(&ct__conv_classes[1], 2, false, in_channels, out_channels, kernel_size, &opts);
}

ct_module *ct_nn_conv3d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size, ct_conv_layer_opts opts)
{
    return ct__conv_layer_new(&ct__conv_classes[2], 3, false, in_channels, out_channels, kernel_size, &opts);
}

ct_module *ct_nn_conv_transpose1d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size, ct_conv_layer_opts opts)
{
    return ct__conv_layer_new(&ct__conv_transpose_classes[0], 1, true, in_channels, out_channels, kernel_size, &opts);
}

ct_module *ct_nn_conv_transpose2d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size, ct_conv_layer_opts opts)
{
    return ct__conv_layer_new(&ct__conv_transpose_classes[1], 2, true, in_channels, out_channels, kernel_size, &opts);
}

ct_module *ct_nn_conv_transpose3d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size, ct_conv_layer_opts opts)
{
    return ct__conv_layer_new(&ct__conv_transpose_classes[2], 3, true, in_channels, out_channels, kernel_size, &opts);
}

ct_tensor *ct_conv_transpose_forward(ct_module *m, const ct_tensor *input, ct_shape output_size)
{
    if (!m || m->cls < ct__conv_transpose_classes || m->cls >= ct__conv_transpose_classes + 3) {
        ct__fail(CT_ERR_TYPE, "ct_conv_transpose_forward: %s is not a ConvTranspose1d, ConvTranspose2d or ConvTranspose3d",
                 m ? ct_module_name(m) : "NULL");
        return NULL;
    }
    ct__conv_layer *c = CT__CONV(m);
    ct_shape saved = c->output_size;
    c->output_size = output_size;
    ct_tensor *r = ct_forward(m, input);
    c->output_size = saved; /* a hook may have called the module again */
    return r;
}

/* ---------------------------------------------------------------- pooling */

enum { CT__POOL_MAX1, CT__POOL_MAX2, CT__POOL_AVG1, CT__POOL_AVG2, CT__POOL_ADAPTIVE_AVG2, CT__POOL_ADAPTIVE_MAX2, CT__POOL_KINDS };

typedef struct ct__pool_layer {
    ct_module base;
    int kind;
    ct_shape size; /* kernel_size, or the adaptive pools' output_size */
    ct_max_pool_opts max;
    ct_avg_pool_opts avg;
} ct__pool_layer;

static ct_tensor *ct__pool_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    const ct__pool_layer *p = (const ct__pool_layer *)m;
    switch (p->kind) {
    case CT__POOL_MAX1: return ct_max_pool1d(in[0], p->size, p->max);
    case CT__POOL_MAX2: return ct_max_pool2d(in[0], p->size, p->max);
    case CT__POOL_AVG1: return ct_avg_pool1d(in[0], p->size, p->avg);
    case CT__POOL_AVG2: return ct_avg_pool2d(in[0], p->size, p->avg);
    case CT__POOL_ADAPTIVE_AVG2: return ct_adaptive_avg_pool2d(in[0], p->size);
    default: return ct_adaptive_max_pool2d(in[0], p->size, NULL);
    }
}

static ct_module *ct__pool_layer_new(int kind, ct_shape size, const ct_max_pool_opts *max, const ct_avg_pool_opts *avg)
{
    static const ct_module_class classes[CT__POOL_KINDS] = {
        {"MaxPool1d", ct__pool_forward, NULL}, {"MaxPool2d", ct__pool_forward, NULL},
        {"AvgPool1d", ct__pool_forward, NULL}, {"AvgPool2d", ct__pool_forward, NULL},
        {"AdaptiveAvgPool2d", ct__pool_forward, NULL}, {"AdaptiveMaxPool2d", ct__pool_forward, NULL}};
    ct__pool_layer *p = (ct__pool_layer *)ct_module_new(&classes[kind], sizeof(ct__pool_layer));
    if (!p) return NULL;
    p->kind = kind;
    p->size = size;
    if (max) p->max = *max;
    if (avg) p->avg = *avg;
    return &p->base;
}

ct_module *ct_nn_max_pool1d(ct_shape kernel_size, ct_max_pool_opts opts)
{
    return ct__pool_layer_new(CT__POOL_MAX1, kernel_size, &opts, NULL);
}

ct_module *ct_nn_max_pool2d(ct_shape kernel_size, ct_max_pool_opts opts)
{
    return ct__pool_layer_new(CT__POOL_MAX2, kernel_size, &opts, NULL);
}

ct_module *ct_nn_avg_pool1d(ct_shape kernel_size, ct_avg_pool_opts opts)
{
    return ct__pool_layer_new(CT__POOL_AVG1, kernel_size, NULL, &opts);
}

ct_module *ct_nn_avg_pool2d(ct_shape kernel_size, ct_avg_pool_opts opts)
{
    return ct__pool_layer_new(CT__POOL_AVG2, kernel_size, NULL, &opts);
}

ct_module *ct_nn_adaptive_avg_pool2d(ct_shape output_size)
{
    return ct__pool_layer_new(CT__POOL_ADAPTIVE_AVG2, output_size, NULL, NULL);
}

ct_module *ct_nn_adaptive_max_pool2d(ct_shape output_size)
{
    return ct__pool_layer_new(CT__POOL_ADAPTIVE_MAX2, output_size, NULL, NULL);
}
