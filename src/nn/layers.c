/* The layers of torch.nn: one struct for the simple ones (their settings),
 * a class per layer (its name and forward), PyTorch's initialisation. */

typedef struct ct__layer {
    ct_module base;
    int kind;                 /* activations and losses: which one */
    int dim, end_dim;         /* flatten, unflatten, softmax */
    ct_shape shape;           /* unflatten's sizes, layer_norm's normalized_shape */
    double a, b;              /* dropout's p; activations' numbers; losses' beta, delta, margin */
    int64_t n;                /* padding_idx, num_groups, num_features */
    const char *mode;         /* embedding_bag */
    ct_norm_opts norm;
    ct_reduction reduction;
    ct_nll_loss_opts nll;     /* its weight is the "weight" buffer */
    ct_triplet_margin_loss_opts triplet;
    bool flag;                /* kl_div's log_target */
} ct__layer;

#define CT__LAYER(m) ((ct__layer *)(m))
/* A module's own parameter or buffer by name (NULL: None or absent). */
static ct_tensor *ct__attr(const ct_module *m, const char *name);

static ct_tensor *ct__attr(const ct_module *m, const char *name)
{
    const ct__slot *s = ct__slot_find(&m->state->params, name);
    if (!s) s = ct__slot_find(&m->state->buffers, name);
    return s ? s->tensor : NULL;
}

static ct__layer *ct__layer_new(const ct_module_class *cls)
{
    return (ct__layer *)ct_module_new(cls, sizeof(ct__layer));
}

/* Forward's inputs must number `want` (a layer called with the wrong count). */
static bool ct__inputs(const ct_module *m, int n, int lo, int hi)
{
    if (n >= lo && n <= hi) return true;
    ct__fail(CT_ERR_TYPE, "%s.forward() takes %d positional argument%s but %d were given", ct_module_name(m), hi + 1,
             hi ? "s" : "", n + 1);
    return false;
}

/* Register a new parameter of `shape` (uninitialised) or buffer; NULL on failure. */
static ct_tensor *ct__new_tensor(ct_module *m, const char *name, ct_shape shape, ct_dtype dtype, bool param,
                                 bool persistent)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *t = ct_empty(shape, dtype);
    ct_result r = !t ? ct_last_error_code() : param ? ct_register_parameter(m, name, t) : ct_register_buffer(m, name, t, persistent);
    ct_scope_end(s);
    return r == CT_OK ? ct__attr(m, name) : NULL;
}

/* A layer made, or released and NULL when a step failed. */
static ct_module *ct__made(ct__layer *l, bool ok)
{
    if (ok) return &l->base;
    ct_module_release(&l->base);
    return NULL;
}

/* ---------------------------------------------------------------- shape layers */

static ct_tensor *ct__identity_forward(ct_module *m, ct_tensor *const *in, int n)
{
    return ct__inputs(m, n, 1, 1) ? ct__same(in[0]) : NULL;
}

static ct_tensor *ct__flatten_forward(ct_module *m, ct_tensor *const *in, int n)
{
    return ct__inputs(m, n, 1, 1) ? ct_flatten(in[0], CT__LAYER(m)->dim, CT__LAYER(m)->end_dim) : NULL;
}

static ct_tensor *ct__unflatten_forward(ct_module *m, ct_tensor *const *in, int n)
{
    return ct__inputs(m, n, 1, 1) ? ct_unflatten(in[0], CT__LAYER(m)->dim, CT__LAYER(m)->shape) : NULL;
}

ct_module *ct_nn_identity(void)
{
    static const ct_module_class cls = {"Identity", ct__identity_forward, NULL};
    ct__layer *l = ct__layer_new(&cls);
    return l ? &l->base : NULL;
}

ct_module *ct_nn_flatten(int start_dim, int end_dim)
{
    static const ct_module_class cls = {"Flatten", ct__flatten_forward, NULL};
    ct__layer *l = ct__layer_new(&cls);
    if (!l) return NULL;
    l->dim = start_dim;
    l->end_dim = end_dim;
    return &l->base;
}

ct_module *ct_nn_unflatten(int dim, ct_shape unflattened_size)
{
    static const ct_module_class cls = {"Unflatten", ct__unflatten_forward, NULL};
    ct__layer *l = ct__layer_new(&cls);
    if (!l) return NULL;
    l->dim = dim;
    l->shape = unflattened_size;
    return &l->base;
}

/* ---------------------------------------------------------------- linear layers */

static ct_tensor *ct__linear_forward(ct_module *m, ct_tensor *const *in, int n)
{
    return ct__inputs(m, n, 1, 1) ? ct_linear(in[0], ct__attr(m, "weight"), ct__attr(m, "bias")) : NULL;
}

static ct_tensor *ct__bilinear_forward(ct_module *m, ct_tensor *const *in, int n)
{
    return ct__inputs(m, n, 2, 2) ? ct_bilinear(in[0], in[1], ct__attr(m, "weight"), ct__attr(m, "bias")) : NULL;
}

/* weight of `shape` and an optional bias of its first size, registered (bias None when absent). */
static ct_tensor *ct__weight_and_bias(ct__layer *l, ct_shape shape, bool bias, ct_tensor **b)
{
    ct_tensor *w = ct__new_tensor(&l->base, "weight", shape, CT_DEFAULT, true, true);
    *b = NULL;
    if (!w) return NULL;
    if (!bias) return ct_register_parameter(&l->base, "bias", NULL) == CT_OK ? w : NULL;
    *b = ct__new_tensor(&l->base, "bias", CT_SHAPE(shape.size[0]), CT_DEFAULT, true, true);
    return *b ? w : NULL;
}

/* nn.Linear under the class cls (MultiheadAttention's out_proj is a
 * NonDynamicallyQuantizableLinear, Linear under another name). */
static ct_module *ct__linear_layer(const ct_module_class *cls, int64_t in_features, int64_t out_features, bool bias)
{
    ct__layer *l = ct__layer_new(cls);
    if (!l) return NULL;
    ct_tensor *b, *w = ct__weight_and_bias(l, CT_SHAPE(out_features, in_features), bias, &b);
    ct_kaiming_opts ko = {sqrt(5.0), NULL, NULL};
    bool ok = w && ct_init_kaiming_uniform_(w, ko) == CT_OK;
    if (ok && b) { /* reset_parameters: the bias bound comes from the weight's fan_in */
        double bound = in_features > 0 ? 1 / sqrt((double)in_features) : 0;
        ok = ct_init_uniform_(b, -bound, bound) == CT_OK;
    }
    return ct__made(l, ok);
}

ct_module *ct_nn_linear(int64_t in_features, int64_t out_features, bool bias)
{
    static const ct_module_class cls = {"Linear", ct__linear_forward, NULL};
    return ct__linear_layer(&cls, in_features, out_features, bias);
}

ct_module *ct_nn_bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias)
{
    static const ct_module_class cls = {"Bilinear", ct__bilinear_forward, NULL};
    ct__layer *l = ct__layer_new(&cls);
    if (!l) return NULL;
    ct_tensor *b, *w = ct__weight_and_bias(l, CT_SHAPE(out_features, in1_features, in2_features), bias, &b);
    double bound = 1 / sqrt((double)in1_features);
    bool ok = w && ct_init_uniform_(w, -bound, bound) == CT_OK && (!b || ct_init_uniform_(b, -bound, bound) == CT_OK);
    return ct__made(l, ok);
}

/* ---------------------------------------------------------------- activations */

enum {
    CT__ACT_RELU, CT__ACT_RELU6, CT__ACT_LEAKY_RELU, CT__ACT_ELU, CT__ACT_SELU, CT__ACT_CELU, CT__ACT_GELU,
    CT__ACT_SILU, CT__ACT_MISH, CT__ACT_SOFTPLUS, CT__ACT_HARDTANH, CT__ACT_HARDSIGMOID, CT__ACT_HARDSWISH,
    CT__ACT_SIGMOID, CT__ACT_TANH, CT__ACT_SOFTMAX, CT__ACT_LOG_SOFTMAX, CT__ACT_COUNT
};

static ct_tensor *ct__activation_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    const ct__layer *l = CT__LAYER(m);
    const ct_tensor *x = in[0];
    switch (l->kind) {
    case CT__ACT_RELU: return ct_relu(x);
    case CT__ACT_RELU6: return ct_relu6(x);
    case CT__ACT_LEAKY_RELU: return ct_leaky_relu(x, l->a);
    case CT__ACT_ELU: {
        ct_elu_opts o = ct_elu_opts_init();
        o.alpha = l->a;
        return ct_elu(x, o);
    }
    case CT__ACT_SELU: return ct_selu(x);
    case CT__ACT_CELU: return ct_celu(x, l->a);
    case CT__ACT_GELU: return ct_gelu(x, (ct_gelu_approximate)l->dim);
    case CT__ACT_SILU: return ct_silu(x);
    case CT__ACT_MISH: return ct_mish(x);
    case CT__ACT_SOFTPLUS: {
        ct_softplus_opts o = {l->a, l->b};
        return ct_softplus(x, o);
    }
    case CT__ACT_HARDTANH: return ct_hardtanh(x, l->a, l->b);
    case CT__ACT_HARDSIGMOID: return ct_hardsigmoid(x);
    case CT__ACT_HARDSWISH: return ct_hardswish(x);
    case CT__ACT_SIGMOID: return ct_sigmoid(x);
    case CT__ACT_TANH: return ct_tanh(x);
    case CT__ACT_SOFTMAX: return ct_softmax(x, l->dim, CT_DEFAULT);
    default: return ct_log_softmax(x, l->dim, CT_DEFAULT);
    }
}

static ct_module *ct__activation(int kind, double a, double b, int dim)
{
    static const ct_module_class classes[CT__ACT_COUNT] = {
        {"ReLU", ct__activation_forward, NULL},      {"ReLU6", ct__activation_forward, NULL},
        {"LeakyReLU", ct__activation_forward, NULL}, {"ELU", ct__activation_forward, NULL},
        {"SELU", ct__activation_forward, NULL},      {"CELU", ct__activation_forward, NULL},
        {"GELU", ct__activation_forward, NULL},      {"SiLU", ct__activation_forward, NULL},
        {"Mish", ct__activation_forward, NULL},      {"Softplus", ct__activation_forward, NULL},
        {"Hardtanh", ct__activation_forward, NULL},  {"Hardsigmoid", ct__activation_forward, NULL},
        {"Hardswish", ct__activation_forward, NULL}, {"Sigmoid", ct__activation_forward, NULL},
        {"Tanh", ct__activation_forward, NULL},      {"Softmax", ct__activation_forward, NULL},
        {"LogSoftmax", ct__activation_forward, NULL},
    };
    ct__layer *l = ct__layer_new(&classes[kind]);
    if (!l) return NULL;
    l->kind = kind;
    l->a = a;
    l->b = b;
    l->dim = dim;
    return &l->base;
}

ct_module *ct_nn_relu(void) { return ct__activation(CT__ACT_RELU, 0, 0, 0); }
ct_module *ct_nn_relu6(void) { return ct__activation(CT__ACT_RELU6, 0, 0, 0); }
ct_module *ct_nn_leaky_relu(double negative_slope) { return ct__activation(CT__ACT_LEAKY_RELU, negative_slope, 0, 0); }
ct_module *ct_nn_elu(double alpha) { return ct__activation(CT__ACT_ELU, alpha, 0, 0); }
ct_module *ct_nn_selu(void) { return ct__activation(CT__ACT_SELU, 0, 0, 0); }
ct_module *ct_nn_celu(double alpha) { return ct__activation(CT__ACT_CELU, alpha, 0, 0); }
ct_module *ct_nn_gelu(ct_gelu_approximate approximate) { return ct__activation(CT__ACT_GELU, 0, 0, (int)approximate); }
ct_module *ct_nn_silu(void) { return ct__activation(CT__ACT_SILU, 0, 0, 0); }
ct_module *ct_nn_mish(void) { return ct__activation(CT__ACT_MISH, 0, 0, 0); }
ct_module *ct_nn_softplus(double beta, double threshold) { return ct__activation(CT__ACT_SOFTPLUS, beta, threshold, 0); }
ct_module *ct_nn_hardtanh(double min_val, double max_val) { return ct__activation(CT__ACT_HARDTANH, min_val, max_val, 0); }
ct_module *ct_nn_hardsigmoid(void) { return ct__activation(CT__ACT_HARDSIGMOID, 0, 0, 0); }
ct_module *ct_nn_hardswish(void) { return ct__activation(CT__ACT_HARDSWISH, 0, 0, 0); }
ct_module *ct_nn_sigmoid(void) { return ct__activation(CT__ACT_SIGMOID, 0, 0, 0); }
ct_module *ct_nn_tanh(void) { return ct__activation(CT__ACT_TANH, 0, 0, 0); }
ct_module *ct_nn_softmax(int dim) { return ct__activation(CT__ACT_SOFTMAX, 0, 0, dim); }
ct_module *ct_nn_log_softmax(int dim) { return ct__activation(CT__ACT_LOG_SOFTMAX, 0, 0, dim); }

/* ---------------------------------------------------------------- dropout */

static ct_tensor *ct__dropout_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    return ct__dropout(in[0], CT__LAYER(m)->a, ct_module_is_training(m), CT__LAYER(m)->kind != 0);
}

static ct_module *ct__dropout_layer(const ct_module_class *cls, double p, int feature)
{
    if (!(p >= 0 && p <= 1)) {
        ct__fail(CT_ERR_VALUE, "dropout probability has to be between 0 and 1, but got %g", p);
        return NULL;
    }
    ct__layer *l = ct__layer_new(cls);
    if (!l) return NULL;
    l->a = p;
    l->kind = feature;
    return &l->base;
}

ct_module *ct_nn_dropout(double p)
{
    static const ct_module_class cls = {"Dropout", ct__dropout_forward, NULL};
    return ct__dropout_layer(&cls, p, 0);
}

ct_module *ct_nn_dropout2d(double p)
{
    static const ct_module_class cls = {"Dropout2d", ct__dropout_forward, NULL};
    return ct__dropout_layer(&cls, p, 1);
}

/* ---------------------------------------------------------------- embeddings */

ct_embedding_opts ct_embedding_opts_init(void)
{
    ct_embedding_opts o = {CT_NO_PADDING};
    return o;
}

static ct_tensor *ct__embedding_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    return ct_embedding(in[0], ct__attr(m, "weight"), CT__LAYER(m)->n);
}

static ct_tensor *ct__embedding_bag_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 2)) return NULL;
    return ct_embedding_bag(in[0], ct__attr(m, "weight"), n > 1 ? in[1] : NULL, CT__LAYER(m)->mode);
}

/* A (num, dim) weight drawn from N(0, 1), as reset_parameters does. */
static bool ct__embedding_weight(ct__layer *l, int64_t num, int64_t dim)
{
    ct_tensor *w = ct__new_tensor(&l->base, "weight", CT_SHAPE(num, dim), CT_DEFAULT, true, true);
    return w && ct_init_normal_(w, 0, 1) == CT_OK;
}

ct_module *ct_nn_embedding(int64_t num_embeddings, int64_t embedding_dim, ct_embedding_opts opts)
{
    static const ct_module_class cls = {"Embedding", ct__embedding_forward, NULL};
    int64_t pad = opts.padding_idx;
    if (pad != CT_NO_PADDING && (pad >= num_embeddings || pad < -num_embeddings)) {
        ct__fail(CT_ERR_RUNTIME, "Padding_idx must be within num_embeddings"); /* an AssertionError in PyTorch */
        return NULL;
    }
    if (pad != CT_NO_PADDING && pad < 0) pad += num_embeddings;
    ct__layer *l = ct__layer_new(&cls);
    if (!l) return NULL;
    l->n = pad;
    bool ok = ct__embedding_weight(l, num_embeddings, embedding_dim);
    if (ok && pad != CT_NO_PADDING) {
        ct_scope s = ct_scope_begin();
        ct_grad_mode mode = ct_no_grad();
        ok = ct_fill_(ct_select(ct__attr(&l->base, "weight"), 0, pad), ct_int(0)) == CT_OK;
        ct_grad_mode_restore(mode);
        ct_scope_end(s);
    }
    return ct__made(l, ok);
}

ct_module *ct_nn_embedding_bag(int64_t num_embeddings, int64_t embedding_dim, const char *mode)
{
    static const ct_module_class cls = {"EmbeddingBag", ct__embedding_bag_forward, NULL};
    if (mode && strcmp(mode, "sum") && strcmp(mode, "mean")) {
        ct__fail(CT_ERR_VALUE, "mode has to be one of sum, mean or max");
        return NULL;
    }
    ct__layer *l = ct__layer_new(&cls);
    if (!l) return NULL;
    l->mode = mode && !strcmp(mode, "sum") ? "sum" : "mean";
    return ct__made(l, ct__embedding_weight(l, num_embeddings, embedding_dim));
}

/* ---------------------------------------------------------------- normalisation */

ct_norm_opts ct_norm_opts_init(void)
{
    ct_norm_opts o;
    memset(&o, 0, sizeof o);
    o.eps = 1e-5;
    o.momentum = 0.1;
    o.affine = true;
    o.track_running_stats = true;
    return o;
}

ct_norm_opts ct_instance_norm_opts_init(void)
{
    ct_norm_opts o = ct_norm_opts_init();
    o.affine = false;
    o.track_running_stats = false;
    return o;
}

/* weight (ones) and bias (zeros) of `shape` when affine. */
static bool ct__affine_params(ct__layer *l, ct_shape shape, bool affine)
{
    if (!affine) return true;
    ct_tensor *w = ct__new_tensor(&l->base, "weight", shape, CT_DEFAULT, true, true);
    ct_tensor *b = w ? ct__new_tensor(&l->base, "bias", shape, CT_DEFAULT, true, true) : NULL;
    return b && ct_init_ones_(w) == CT_OK && ct_init_zeros_(b) == CT_OK;
}

/* running_mean (zeros), running_var (ones), num_batches_tracked (0) when tracked. */
static bool ct__running_stats(ct__layer *l, int64_t c, bool track)
{
    if (!track) return true;
    ct_module *m = &l->base;
    ct_tensor *rm = ct__new_tensor(m, "running_mean", CT_SHAPE(c), CT_DEFAULT, false, true);
    ct_tensor *rv = rm ? ct__new_tensor(m, "running_var", CT_SHAPE(c), CT_DEFAULT, false, true) : NULL;
    ct_tensor *nb = rv ? ct__new_tensor(m, "num_batches_tracked", CT_SHAPE0, CT_I64, false, true) : NULL;
    return nb && ct_zero_(rm) == CT_OK && ct_fill_(rv, ct_int(1)) == CT_OK && ct_zero_(nb) == CT_OK;
}

/* _BatchNorm.forward: the momentum (or cumulative factor) and which statistics. */
static ct_tensor *ct__batch_norm_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    const ct__layer *l = CT__LAYER(m);
    int nd = in[0]->ndim;
    bool one_d = !strcmp(m->cls->name, "BatchNorm1d");
    if (one_d ? (nd != 2 && nd != 3) : nd != 4) {
        ct__fail(CT_ERR_VALUE, "expected %s input (got %dD input)", one_d ? "2D or 3D" : "4D", nd);
        return NULL;
    }
    bool training = ct_module_is_training(m);
    ct_tensor *rm = ct__attr(m, "running_mean"), *rv = ct__attr(m, "running_var"), *nb = ct__attr(m, "num_batches_tracked");
    double factor = l->norm.cumulative ? 0.0 : l->norm.momentum;
    if (training && l->norm.track_running_stats && nb) {
        ct_grad_mode mode = ct_no_grad();
        ct_result r = ct_add_scalar_(nb, ct_int(1));
        ct_grad_mode_restore(mode);
        if (r != CT_OK) return NULL;
        if (l->norm.cumulative) factor = 1.0 / (double)ct_item_int(nb);
    }
    bool use_batch = training || (!rm && !rv);
    bool pass_running = !training || l->norm.track_running_stats;
    return ct_batch_norm(in[0], pass_running ? rm : NULL, pass_running ? rv : NULL, ct__attr(m, "weight"),
                         ct__attr(m, "bias"), use_batch, factor, l->norm.eps);
}

static ct_module *ct__batch_norm_layer(const ct_module_class *cls, int64_t c, ct_norm_opts o)
{
    ct__layer *l = ct__layer_new(cls);
    if (!l) return NULL;
    l->norm = o;
    l->n = c;
    return ct__made(l, ct__affine_params(l, CT_SHAPE(c), o.affine) && ct__running_stats(l, c, o.track_running_stats));
}

ct_module *ct_nn_batch_norm1d(int64_t num_features, ct_norm_opts opts)
{
    static const ct_module_class cls = {"BatchNorm1d", ct__batch_norm_forward, NULL};
    return ct__batch_norm_layer(&cls, num_features, opts);
}

ct_module *ct_nn_batch_norm2d(int64_t num_features, ct_norm_opts opts)
{
    static const ct_module_class cls = {"BatchNorm2d", ct__batch_norm_forward, NULL};
    return ct__batch_norm_layer(&cls, num_features, opts);
}

bool ct_nn_is_batch_norm(const ct_module *m, int64_t *num_features, ct_norm_opts *opts)
{
    if (!m || m->cls->forward != ct__batch_norm_forward) return false;
    if (num_features) *num_features = CT__LAYER(m)->n;
    if (opts) *opts = CT__LAYER(m)->norm;
    return true;
}

/* _InstanceNorm.forward (2d: a 3-D input has no batch dim). */
static ct_tensor *ct__instance_norm_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    const ct__layer *l = CT__LAYER(m);
    int nd = in[0]->ndim;
    if (nd != 3 && nd != 4) {
        ct__fail(CT_ERR_VALUE, "expected 3D or 4D input (got %dD input)", nd);
        return NULL;
    }
    if (ct_size(in[0], nd - 3) != l->n && l->norm.affine) {
        ct__fail(CT_ERR_VALUE, "expected input's size at dim=%d to match num_features (%lld), but got: %lld.", nd - 3,
                 (long long)l->n, (long long)ct_size(in[0], nd - 3));
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *x = nd == 3 ? ct_unsqueeze(in[0], 0) : in[0];
    ct_tensor *r = ct_instance_norm(x, ct__attr(m, "running_mean"), ct__attr(m, "running_var"), ct__attr(m, "weight"),
                                    ct__attr(m, "bias"), ct_module_is_training(m) || !l->norm.track_running_stats,
                                    l->norm.momentum, l->norm.eps);
    r = ct_keep(r && nd == 3 ? ct_squeeze_dim(r, 0) : r);
    ct_scope_end(s);
    return r;
}

ct_module *ct_nn_instance_norm2d(int64_t num_features, ct_norm_opts opts)
{
    static const ct_module_class cls = {"InstanceNorm2d", ct__instance_norm_forward, NULL};
    return ct__batch_norm_layer(&cls, num_features, opts);
}

static ct_tensor *ct__layer_norm_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    const ct__layer *l = CT__LAYER(m);
    return ct_layer_norm(in[0], l->shape, ct__attr(m, "weight"), ct__attr(m, "bias"), l->norm.eps);
}

ct_module *ct_nn_layer_norm(ct_shape normalized_shape, ct_norm_opts opts)
{
    static const ct_module_class cls = {"LayerNorm", ct__layer_norm_forward, NULL};
    if (ct__check_shape(normalized_shape, "normalized_shape") != CT_OK) return NULL;
    ct__layer *l = ct__layer_new(&cls);
    if (!l) return NULL;
    l->shape = normalized_shape;
    l->norm = opts;
    return ct__made(l, ct__affine_params(l, normalized_shape, opts.affine));
}

static ct_tensor *ct__group_norm_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    const ct__layer *l = CT__LAYER(m);
    return ct_group_norm(in[0], l->n, ct__attr(m, "weight"), ct__attr(m, "bias"), l->norm.eps);
}

ct_module *ct_nn_group_norm(int64_t num_groups, int64_t num_channels, ct_norm_opts opts)
{
    static const ct_module_class cls = {"GroupNorm", ct__group_norm_forward, NULL};
    if (num_groups <= 0 || num_channels % num_groups) {
        ct__fail(CT_ERR_VALUE, "num_channels must be divisible by num_groups");
        return NULL;
    }
    ct__layer *l = ct__layer_new(&cls);
    if (!l) return NULL;
    l->n = num_groups;
    l->norm = opts;
    return ct__made(l, ct__affine_params(l, CT_SHAPE(num_channels), opts.affine));
}

/* ---------------------------------------------------------------- containers */

static ct_tensor *ct__sequential_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    const ct__slots *ch = &m->state->children;
    ct_tensor *x = ct__same(in[0]);
    for (int i = 0; i < ch->n && x; i++)
        if (ch->items[i].module) x = ct_forward(ch->items[i].module, x);
    return x;
}

ct_module *ct_nn_append(ct_module *container, ct_module *child)
{
    char name[24];
    snprintf(name, sizeof name, "%d", container ? container->state->children.n : 0);
    return ct_add_module(container, name, child);
}

/* A container of n modules (named by position, or by names), taking their references. */
static ct_module *ct__container(const ct_module_class *cls, const char *const *names, ct_module *const *modules, int n)
{
    ct_module *m = ct_module_new(cls, sizeof(ct_module));
    bool ok = m != NULL && n >= 0 && (n == 0 || modules);
    if (m && !ok) ct__fail(CT_ERR_VALUE, "%s: give an array of %d modules", cls->name, n);
    for (int i = 0; i < n && modules; i++) {
        if (!ok) ct_module_release(modules[i]);
        else if (!modules[i] && ct_last_error_code() != CT_OK) ok = false; /* a failed constructor's NULL: keep its error */
        else if (names) ok = ct_add_module(m, names[i], modules[i]) || !modules[i];
        else ok = ct_nn_append(m, modules[i]) || !modules[i]; /* (NULL is None, as PyTorch allows) */
    }
    if (ok) return m;
    ct_module_release(m);
    return NULL;
}

ct_module *ct_nn_sequential(ct_module *const *modules, int n)
{
    static const ct_module_class cls = {"Sequential", ct__sequential_forward, NULL};
    return ct__container(&cls, NULL, modules, n);
}

ct_module *ct_nn_module_list(ct_module *const *modules, int n)
{
    static const ct_module_class cls = {"ModuleList", NULL, NULL};
    return ct__container(&cls, NULL, modules, n);
}

ct_module *ct_nn_module_dict(const char *const *names, ct_module *const *modules, int n)
{
    static const ct_module_class cls = {"ModuleDict", NULL, NULL};
    if (!names && n > 0) {
        ct__fail(CT_ERR_VALUE, "ModuleDict: give %d names", n);
        for (int i = 0; i < n && modules; i++) ct_module_release(modules[i]);
        return NULL;
    }
    return ct__container(&cls, names, modules, n);
}

/* ---------------------------------------------------------------- loss modules */

enum {
    CT__LM_MSE, CT__LM_L1, CT__LM_SMOOTH_L1, CT__LM_HUBER, CT__LM_NLL, CT__LM_CE, CT__LM_BCE, CT__LM_BCE_LOGITS,
    CT__LM_KL_DIV, CT__LM_COSINE, CT__LM_MARGIN_RANKING, CT__LM_TRIPLET, CT__LM_COUNT
};

static ct_tensor *ct__loss_forward(ct_module *m, ct_tensor *const *in, int n)
{
    const ct__layer *l = CT__LAYER(m);
    bool three = l->kind == CT__LM_COSINE || l->kind == CT__LM_MARGIN_RANKING || l->kind == CT__LM_TRIPLET;
    if (!ct__inputs(m, n, three ? 3 : 2, three ? 3 : 2)) return NULL;
    ct_nll_loss_opts nll = l->nll;
    nll.weight = ct__attr(m, "weight");
    switch (l->kind) {
    case CT__LM_MSE: return ct_mse_loss(in[0], in[1], l->reduction);
    case CT__LM_L1: return ct_l1_loss(in[0], in[1], l->reduction);
    case CT__LM_SMOOTH_L1: return ct_smooth_l1_loss(in[0], in[1], l->reduction, l->a);
    case CT__LM_HUBER: return ct_huber_loss(in[0], in[1], l->reduction, l->a);
    case CT__LM_NLL: return ct_nll_loss(in[0], in[1], nll);
    case CT__LM_CE: return ct_cross_entropy(in[0], in[1], nll);
    case CT__LM_BCE: return ct_binary_cross_entropy(in[0], in[1], nll.weight, l->reduction);
    case CT__LM_BCE_LOGITS:
        return ct_binary_cross_entropy_with_logits(in[0], in[1], nll.weight, ct__attr(m, "pos_weight"), l->reduction);
    case CT__LM_KL_DIV: return ct_kl_div(in[0], in[1], l->reduction, l->flag);
    case CT__LM_COSINE: return ct_cosine_embedding_loss(in[0], in[1], in[2], l->a, l->reduction);
    case CT__LM_MARGIN_RANKING: return ct_margin_ranking_loss(in[0], in[1], in[2], l->a, l->reduction);
    default: return ct_triplet_margin_loss(in[0], in[1], in[2], l->triplet);
    }
}

/* A loss module; weight and pos_weight (when given) become buffers. */
static ct__layer *ct__loss_module(int kind, ct_reduction reduction, double a, const ct_tensor *weight,
                                  const ct_tensor *pos_weight)
{
    static const ct_module_class classes[CT__LM_COUNT] = {
        {"MSELoss", ct__loss_forward, NULL},         {"L1Loss", ct__loss_forward, NULL},
        {"SmoothL1Loss", ct__loss_forward, NULL},    {"HuberLoss", ct__loss_forward, NULL},
        {"NLLLoss", ct__loss_forward, NULL},         {"CrossEntropyLoss", ct__loss_forward, NULL},
        {"BCELoss", ct__loss_forward, NULL},         {"BCEWithLogitsLoss", ct__loss_forward, NULL},
        {"KLDivLoss", ct__loss_forward, NULL},       {"CosineEmbeddingLoss", ct__loss_forward, NULL},
        {"MarginRankingLoss", ct__loss_forward, NULL}, {"TripletMarginLoss", ct__loss_forward, NULL},
    };
    if (ct__check_reduction(reduction, kind == CT__LM_KL_DIV) != CT_OK) return NULL;
    ct__layer *l = ct__layer_new(&classes[kind]);
    if (!l) return NULL;
    l->kind = kind;
    l->reduction = reduction;
    l->a = a;
    if ((weight && ct_register_buffer(&l->base, "weight", (ct_tensor *)weight, true) != CT_OK) ||
        (pos_weight && ct_register_buffer(&l->base, "pos_weight", (ct_tensor *)pos_weight, true) != CT_OK)) {
        ct_module_release(&l->base);
        return NULL;
    }
    return l;
}

static ct_module *ct__base(ct__layer *l) { return l ? &l->base : NULL; }

ct_module *ct_nn_mse_loss(ct_reduction reduction) { return ct__base(ct__loss_module(CT__LM_MSE, reduction, 0, NULL, NULL)); }
ct_module *ct_nn_l1_loss(ct_reduction reduction) { return ct__base(ct__loss_module(CT__LM_L1, reduction, 0, NULL, NULL)); }

ct_module *ct_nn_smooth_l1_loss(ct_reduction reduction, double beta)
{
    return ct__base(ct__loss_module(CT__LM_SMOOTH_L1, reduction, beta, NULL, NULL));
}

ct_module *ct_nn_huber_loss(ct_reduction reduction, double delta)
{
    return ct__base(ct__loss_module(CT__LM_HUBER, reduction, delta, NULL, NULL));
}

static ct_module *ct__nll_module(int kind, ct_nll_loss_opts opts)
{
    ct__layer *l = ct__loss_module(kind, opts.reduction, 0, opts.weight, NULL);
    if (l) l->nll = opts;
    return ct__base(l);
}

ct_module *ct_nn_nll_loss(ct_nll_loss_opts opts) { return ct__nll_module(CT__LM_NLL, opts); }
ct_module *ct_nn_cross_entropy_loss(ct_nll_loss_opts opts) { return ct__nll_module(CT__LM_CE, opts); }

ct_module *ct_nn_bce_loss(const ct_tensor *weight, ct_reduction reduction)
{
    return ct__base(ct__loss_module(CT__LM_BCE, reduction, 0, weight, NULL));
}

ct_module *ct_nn_bce_with_logits_loss(const ct_tensor *weight, const ct_tensor *pos_weight, ct_reduction reduction)
{
    return ct__base(ct__loss_module(CT__LM_BCE_LOGITS, reduction, 0, weight, pos_weight));
}

ct_module *ct_nn_kl_div_loss(ct_reduction reduction, bool log_target)
{
    ct__layer *l = ct__loss_module(CT__LM_KL_DIV, reduction, 0, NULL, NULL);
    if (l) l->flag = log_target;
    return ct__base(l);
}

ct_module *ct_nn_cosine_embedding_loss(double margin, ct_reduction reduction)
{
    return ct__base(ct__loss_module(CT__LM_COSINE, reduction, margin, NULL, NULL));
}

ct_module *ct_nn_margin_ranking_loss(double margin, ct_reduction reduction)
{
    return ct__base(ct__loss_module(CT__LM_MARGIN_RANKING, reduction, margin, NULL, NULL));
}

ct_module *ct_nn_triplet_margin_loss(ct_triplet_margin_loss_opts opts)
{
    ct__layer *l = ct__loss_module(CT__LM_TRIPLET, opts.reduction, 0, NULL, NULL);
    if (l) l->triplet = opts;
    return ct__base(l);
}
