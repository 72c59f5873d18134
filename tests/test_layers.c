/* The convolution, pooling and attention layers of torch.nn, scaled
 * dot-product attention and nn.init.orthogonal_: initial parameters after
 * manual_seed bit for bit, outputs and gradients against PyTorch's golden
 * values (tests/golden/gen_layers.py), gradcheck / gradgradcheck of small
 * float64 modules (bad settings and shapes: test_errors_layers.c). */
#include "errors.h"

#define CLOSE CT_TEST_CLOSE
#define RT CT_ERR_RUNTIME
#define VE CT_ERR_VALUE

static const ct_tensor *gold(const char *name, const char *suffix) { return ct_test_gold("layers", name, suffix); }

static void check_case(const char *name, ct_module *m, ct_test_case_fn fn, void *user, int n_in, int seed)
{
    ct_test_golden_case("layers", name, m, fn, user, n_in, CLOSE, seed);
}

/* Run a golden case on module m (taken over and released). */
static void module_case(const char *name, ct_module *m, int n_in)
{
    CHECK_T(m);
    if (m) check_case(name, m, NULL, NULL, n_in, -1);
    ct_module_release(m);
}

static ct_conv_layer_opts conv_opts(ct_shape stride, ct_shape padding, ct_shape dilation, int64_t groups)
{
    ct_conv_layer_opts o;
    memset(&o, 0, sizeof o);
    o.stride = stride;
    o.padding = padding;
    o.dilation = dilation;
    o.groups = groups;
    return o;
}

static ct_conv_layer_opts padded(const char *padding_str, ct_pad_mode mode)
{
    ct_conv_layer_opts o;
    memset(&o, 0, sizeof o);
    o.padding_str = padding_str;
    o.padding_mode = mode;
    return o;
}

/* ---------------------------------------------------------------- initialisation */

/* m (taken over), made right after ct_manual_seed(seed), has PyTorch's
 * parameters, names and order: `names` lists them, NULL-terminated. */
static void check_init(const char *tag, int seed, ct_module *(*make)(void), const char *const *names, int max_ulps)
{
    ct_manual_seed((uint64_t)seed);
    ct_module *m = make();
    CHECK_T(m);
    if (!m) return;
    ct_tensor_list ps = ct_module_parameters(m, true);
    int n = 0;
    while (names[n]) n++;
    CHECK_INT(ps.n, n);
    for (int i = 0; i < ps.n && i < n; i++) {
        char key[128];
        CHECK_STR(ps.names[i], names[i]);
        snprintf(key, sizeof key, "%s_%s", tag, ps.names[i]);
        ct_test_compare(__FILE__, __LINE__, key, ps.tensors[i], ct_test_gold("layers", "init", key), max_ulps);
    }
    ct_tensor_list_free(&ps);
    ct_module_release(m);
}

static ct_module *make_conv2d_1_16_5(void) { return ct_nn_conv2d(1, 16, CT_SHAPE(5), conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, 0)); }
static ct_module *make_conv1d_groups(void) { return ct_nn_conv1d(4, 6, CT_SHAPE(3), conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, 2)); }
static ct_module *make_conv3d(void)
{
    ct_conv_layer_opts o = conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, 0);
    o.no_bias = true;
    return ct_nn_conv3d(2, 4, CT_SHAPE(2, 3, 3), o);
}
static ct_module *make_conv_transpose1d(void)
{
    return ct_nn_conv_transpose1d(4, 6, CT_SHAPE(3), conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, 2));
}
static ct_module *make_conv_transpose2d(void)
{
    return ct_nn_conv_transpose2d(3, 5, CT_SHAPE(2, 3), conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, 0));
}
static ct_module *make_conv_transpose3d(void)
{
    return ct_nn_conv_transpose3d(4, 2, CT_SHAPE(2, 3, 2), conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, 2));
}
static ct_module *make_mha(void) { return ct_nn_multihead_attention(8, 2, (ct_mha_opts){0}); }
static ct_module *make_mha_kdim(void)
{
    ct_mha_opts o = {0};
    o.kdim = 5;
    o.vdim = 3;
    o.add_bias_kv = true;
    return ct_nn_multihead_attention(8, 4, o);
}
static ct_module *make_mha_nobias(void)
{
    ct_mha_opts o = {0};
    o.no_bias = true;
    return ct_nn_multihead_attention(6, 3, o);
}
static ct_module *make_encoder(void)
{
    ct_transformer_encoder_layer_opts o = ct_transformer_encoder_layer_opts_init();
    o.dim_feedforward = 16;
    return ct_nn_transformer_encoder_layer(8, 2, o);
}

static void test_init(void)
{
    static const char *const wb[] = {"weight", "bias", NULL}, *const w[] = {"weight", NULL};
    static const char *const mha[] = {"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias", NULL};
    static const char *const mha_kdim[] = {"q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "bias_k",
                                           "bias_v", "out_proj.weight", "out_proj.bias", NULL};
    static const char *const mha_nobias[] = {"in_proj_weight", "out_proj.weight", NULL};
    static const char *const enc[] = {"self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
                                      "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
                                      "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias", NULL};
    check_init("conv2d_1_16_5", 0, make_conv2d_1_16_5, wb, 0);
    check_init("conv1d_groups", 1, make_conv1d_groups, wb, 0);
    check_init("conv3d", 2, make_conv3d, w, 0);
    check_init("conv_transpose1d", 3, make_conv_transpose1d, wb, 0);
    check_init("conv_transpose2d", 4, make_conv_transpose2d, wb, 0);
    check_init("mha", 5, make_mha, mha, 0);
    check_init("mha_kdim", 6, make_mha_kdim, mha_kdim, 1); /* xavier_normal_'s draws: within an ulp */
    check_init("mha_nobias", 7, make_mha_nobias, mha_nobias, 0);
    check_init("encoder", 8, make_encoder, enc, 0);
    check_init("conv_transpose3d", 10, make_conv_transpose3d, wb, 0);
}

static ct_tensor *count_call(ct_module *m, ct_tensor *const *in, int n, ct_tensor *out, void *user)
{
    (void)m, (void)in, (void)out;
    *(int *)user += n;
    return NULL;
}

/* The calls with keyword arguments run through ct_forward's hooks, on the
 * layer and on the children it calls. */
static void test_hooks(void)
{
    ct_module *e = make_encoder();
    int outer = 0, inner = 0;
    ct_hook_handle h1 = ct_module_register_forward_hook(e, count_call, &outer);
    ct_hook_handle h2 = ct_module_register_forward_hook(ct_module_get_submodule(e, "self_attn"), count_call, &inner);
    ct_tensor *x = ct_randn(CT_SHAPE(5, 2, 8), CT_F32, NULL), *kpm = ct_zeros(CT_SHAPE(2, 5), CT_BOOL);
    CHECK_T(ct_transformer_encoder_layer_forward(e, x, NULL, kpm));
    CHECK_INT(outer, 1);
    CHECK_INT(inner, 3); /* self_attn(x, x, x) */
    ct_hook_handle_remove(h1);
    ct_hook_handle_remove(h2);
    ct_module_release(e);
}

/* The children, classes and None parameters PyTorch registers. */
static void test_structure(void)
{
    ct_module *m = make_mha(), *e = make_encoder();
    CHECK_STR(ct_module_name(ct_module_get_submodule(m, "out_proj")), "NonDynamicallyQuantizableLinear");
    CHECK(ct_module_get_parameter(m, "q_proj_weight") == NULL);
    CHECK_INT(ct_last_error_code(), CT_OK);
    CHECK(ct_module_get_parameter(m, "bias_k") == NULL); /* a plain None attribute in PyTorch */
    ct_clear_error();
    ct_module_list ch = ct_module_children(e);
    static const char *const names[] = {"self_attn", "linear1", "dropout", "linear2", "norm1", "norm2", "dropout1", "dropout2"};
    CHECK_INT(ch.n, 8);
    for (int i = 0; i < ch.n && i < 8; i++) CHECK_STR(ch.names[i], names[i]);
    ct_module_list_free(&ch);
    CHECK_STR(ct_module_name(e), "TransformerEncoderLayer");
    ct_module *c = make_conv2d_1_16_5();
    CHECK_STR(ct_module_name(c), "Conv2d");
    ct_module_release(c);
    ct_module_release(m);
    ct_module_release(e);
}

static void test_orthogonal(void)
{
    ct_manual_seed(9);
    ct_tensor *tall = ct_empty(CT_SHAPE(6, 3), CT_F32), *wide = ct_empty(CT_SHAPE(2, 5), CT_F32);
    ct_tensor *conv = ct_empty(CT_SHAPE(4, 2, 3), CT_F32), *f64 = ct_empty(CT_SHAPE(5, 5), CT_F64);
    CHECK_OK(ct_init_orthogonal_(tall, 1));
    CHECK_OK(ct_init_orthogonal_(wide, 2));
    CHECK_OK(ct_init_orthogonal_(conv, 1));
    CHECK_OK(ct_init_orthogonal_(f64, 1));
    /* the same draws; our QR runs in double where PyTorch's float32 LAPACK runs in float */
    ct_test_compare(__FILE__, __LINE__, "tall", tall, golden("layers", "orthogonal_tall"), CLOSE);
    ct_test_compare(__FILE__, __LINE__, "wide", wide, golden("layers", "orthogonal_wide"), CLOSE);
    ct_test_compare(__FILE__, __LINE__, "conv", conv, golden("layers", "orthogonal_conv"), CLOSE);
    /* float64: LAPACK's blocked QR and ours agree to a few units of 1e-16 in
     * each (order one) entry, which is many ulps for the small entries */
    ct_isclose_opts f64_tol = {0, 1e-14, false};
    CHECK(ct_allclose(f64, golden("layers", "orthogonal_f64"), f64_tol));
    ct_tensor *qtq = ct_matmul(ct_t(tall), tall), *wwt = ct_matmul(wide, ct_t(wide));
    ct_isclose_opts tol = {1e-5, 1e-5, false};
    CHECK(ct_allclose(qtq, ct_eye(3, 3, CT_F32), tol));
    CHECK(ct_allclose(wwt, ct_mul_scalar(ct_eye(2, 2, CT_F32), ct_float(4)), tol));
    ct_tensor *empty = ct_empty(CT_SHAPE(0, 3), CT_F32);
    CHECK_OK(ct_init_orthogonal_(empty, 1));
    FAILS_R(ct_init_orthogonal_(ct_empty(CT_SHAPE(3), CT_F32), 1), VE, "Only tensors with 2 or more dimensions are supported");
}

/* ---------------------------------------------------------------- convolution and pooling */

/* F.pad's constant mode on integers and bool (MultiheadAttention pads its boolean masks). */
static void test_pad_integers(void)
{
    ct_tensor *b = ct_from_array((bool[]){true, false, true}, CT_SHAPE(1, 3), CT_BOOL);
    CHECK_VALUES(ct_pad(b, CT_SHAPE(1, 2), CT_PAD_CONSTANT, 0), CT_SHAPE(1, 6), 0, 1, 0, 1, 0, 0);
    ct_tensor *i = ct_arange(ct_int(0), ct_int(6), ct_int(1), CT_I64);
    i = ct_view(i, CT_SHAPE(2, 3));
    CHECK_VALUES(ct_pad(i, CT_SHAPE(-1, 2, 1, 0), CT_PAD_CONSTANT, 7), CT_SHAPE(3, 4), 7, 7, 7, 7, 1, 2, 7, 7, 4, 5, 7, 7);
    CHECK_VALUES(ct_pad(i, CT_SHAPE(1, 1), CT_PAD_CONSTANT, 2.7), CT_SHAPE(2, 5), 2, 0, 1, 2, 2, 2, 3, 4, 5, 2);
    FAILS_T(ct_pad(ct_to(i, CT_U8), CT_SHAPE(1, 1), CT_PAD_CONSTANT, -1), RT, "value cannot be converted to type uint8_t without overflow");
}

static void test_conv_layers(void)
{
    ct_conv_layer_opts o = conv_opts(CT_SHAPE(2), CT_SHAPE(1), CT_SHAPE0, 2);
    module_case("conv1d", ct_nn_conv1d(4, 6, CT_SHAPE(3), o), 1);
    o = padded("same", CT_PAD_CONSTANT);
    o.dilation = CT_SHAPE(2);
    module_case("conv1d_same_even", ct_nn_conv1d(2, 3, CT_SHAPE(4), o), 1);
    o = padded(NULL, CT_PAD_REFLECT);
    o.padding = CT_SHAPE(2);
    module_case("conv1d_reflect", ct_nn_conv1d(2, 3, CT_SHAPE(3), o), 1);
    module_case("conv1d_unbatched", ct_nn_conv1d(3, 2, CT_SHAPE(2), padded(NULL, CT_PAD_CONSTANT)), 1);
    module_case("conv2d", ct_nn_conv2d(3, 4, CT_SHAPE(3, 2), conv_opts(CT_SHAPE(2, 1), CT_SHAPE(1, 2), CT_SHAPE(1, 2), 0)), 1);
    o = conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, 2);
    o.no_bias = true;
    module_case("conv2d_groups_nobias", ct_nn_conv2d(4, 6, CT_SHAPE(3), o), 1);
    module_case("conv2d_same", ct_nn_conv2d(2, 3, CT_SHAPE(3, 4), padded("same", CT_PAD_CONSTANT)), 1);
    module_case("conv2d_valid", ct_nn_conv2d(2, 3, CT_SHAPE(3), padded("valid", CT_PAD_CONSTANT)), 1);
    o = padded(NULL, CT_PAD_REFLECT);
    o.padding = CT_SHAPE(1, 2);
    module_case("conv2d_reflect", ct_nn_conv2d(2, 3, CT_SHAPE(3), o), 1);
    o = padded(NULL, CT_PAD_REPLICATE);
    o.padding = CT_SHAPE(1);
    module_case("conv2d_replicate", ct_nn_conv2d(2, 2, CT_SHAPE(3), o), 1);
    o = padded(NULL, CT_PAD_CIRCULAR);
    o.padding = CT_SHAPE(2, 1);
    o.stride = CT_SHAPE(2);
    module_case("conv2d_circular", ct_nn_conv2d(2, 2, CT_SHAPE(3), o), 1);
    module_case("conv2d_same_circular", ct_nn_conv2d(1, 2, CT_SHAPE(2, 3), padded("same", CT_PAD_CIRCULAR)), 1);
    module_case("conv2d_unbatched", ct_nn_conv2d(2, 3, CT_SHAPE(2), padded(NULL, CT_PAD_CONSTANT)), 1);
    module_case("conv3d", ct_nn_conv3d(2, 4, CT_SHAPE(2, 3, 2), conv_opts(CT_SHAPE(1, 2, 1), CT_SHAPE(1), CT_SHAPE0, 2)), 1);
    o = padded(NULL, CT_PAD_REPLICATE);
    o.padding = CT_SHAPE(1);
    module_case("conv3d_replicate", ct_nn_conv3d(1, 2, CT_SHAPE(2), o), 1);
}

/* A ConvTranspose module called with an output_size. */
typedef struct output_size_call {
    ct_module *m;
    ct_shape size;
} output_size_call;

static ct_tensor *output_size_fn(ct_tensor *const *in, int n, void *user)
{
    (void)n;
    const output_size_call *c = user;
    return ct_conv_transpose_forward(c->m, in[0], c->size);
}

static void test_conv_transpose_layers(void)
{
    ct_conv_layer_opts o = conv_opts(CT_SHAPE(2), CT_SHAPE(1), CT_SHAPE0, 2);
    o.output_padding = CT_SHAPE(1);
    module_case("conv_transpose1d", ct_nn_conv_transpose1d(4, 6, CT_SHAPE(3), o), 1);
    o = conv_opts(CT_SHAPE(2, 3), CT_SHAPE(1, 0), CT_SHAPE(1, 2), 0);
    o.output_padding = CT_SHAPE(1, 2);
    module_case("conv_transpose2d", ct_nn_conv_transpose2d(3, 2, CT_SHAPE(3, 2), o), 1);
    o = conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, 0);
    o.no_bias = true;
    module_case("conv_transpose2d_unbatched", ct_nn_conv_transpose2d(2, 3, CT_SHAPE(2), o), 1);
    ct_module *m = ct_nn_conv_transpose2d(2, 3, CT_SHAPE(3), conv_opts(CT_SHAPE(2), CT_SHAPE(1), CT_SHAPE0, 0));
    check_case("conv_transpose2d_output_size", m, output_size_fn, &(output_size_call){m, CT_SHAPE(8, 7)}, 1, -1);
    /* the whole shape works too, and the module's own output_padding is back after the call */
    ct_tensor *x = ct_zeros(CT_SHAPE(1, 2, 4, 4), CT_F32);
    ct_tensor *r = ct_conv_transpose_forward(m, x, CT_SHAPE(1, 3, 8, 8));
    CHECK_T(r);
    if (r) CHECK_INT(ct_size(r, 2), 8);
    r = ct_forward(m, x);
    CHECK_T(r);
    if (r) CHECK_INT(ct_size(r, 2), 7);
    ct_module_release(m);

    o = conv_opts(CT_SHAPE(1, 2, 2), CT_SHAPE(0, 1, 1), CT_SHAPE(2, 1, 1), 2);
    o.output_padding = CT_SHAPE(0, 1, 0);
    module_case("conv_transpose3d", ct_nn_conv_transpose3d(4, 2, CT_SHAPE(2, 3, 2), o), 1);
    o = conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, 0);
    o.no_bias = true;
    module_case("conv_transpose3d_unbatched", ct_nn_conv_transpose3d(2, 3, CT_SHAPE(2), o), 1);
    m = ct_nn_conv_transpose3d(2, 2, CT_SHAPE(3), conv_opts(CT_SHAPE(2), CT_SHAPE(1), CT_SHAPE0, 0));
    check_case("conv_transpose3d_output_size", m, output_size_fn, &(output_size_call){m, CT_SHAPE(1, 2, 5, 6, 4)}, 1, -1);
    ct_module_release(m);
}

static void test_pool_layers(void)
{
    ct_max_pool_opts mo = {CT_SHAPE(2), CT_SHAPE(1), CT_SHAPE(2), true};
    module_case("max_pool1d", ct_nn_max_pool1d(CT_SHAPE(3), mo), 1);
    ct_max_pool_opts mo2 = {CT_SHAPE(2, 1), CT_SHAPE(1), CT_SHAPE0, false};
    module_case("max_pool2d", ct_nn_max_pool2d(CT_SHAPE(3, 2), mo2), 1);
    ct_max_pool_opts ceil = {CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, true};
    module_case("max_pool2d_ceil", ct_nn_max_pool2d(CT_SHAPE(2), ceil), 1);
    ct_avg_pool_opts ao = ct_avg_pool_opts_init();
    ao.stride = CT_SHAPE(2);
    ao.padding = CT_SHAPE(1);
    ao.count_include_pad = false;
    module_case("avg_pool1d", ct_nn_avg_pool1d(CT_SHAPE(3), ao), 1);
    ao = ct_avg_pool_opts_init();
    ao.stride = CT_SHAPE(2);
    ao.padding = CT_SHAPE(1, 1);
    ao.ceil_mode = true;
    module_case("avg_pool2d", ct_nn_avg_pool2d(CT_SHAPE(2, 3), ao), 1);
    ao = ct_avg_pool_opts_init();
    ao.divisor_override = 4;
    module_case("avg_pool2d_divisor", ct_nn_avg_pool2d(CT_SHAPE(3), ao), 1);
    module_case("adaptive_avg_pool2d", ct_nn_adaptive_avg_pool2d(CT_SHAPE(3, 5)), 1);
    module_case("adaptive_avg_pool2d_1", ct_nn_adaptive_avg_pool2d(CT_SHAPE(1)), 1);
    module_case("adaptive_max_pool2d", ct_nn_adaptive_max_pool2d(CT_SHAPE(4, 3)), 1);
}

/* ---------------------------------------------------------------- attention */

typedef struct sdpa_case {
    const char *name;
    int n_in;
    bool weights, is_causal;
    double dropout_p, scale;
    int seed;
} sdpa_case;

static ct_tensor *sdpa_fn(ct_tensor *const *in, int n, void *user)
{
    const sdpa_case *c = (const sdpa_case *)user;
    ct_sdpa_opts o = {n > 3 ? in[3] : NULL, c->dropout_p, c->is_causal, c->scale};
    ct_tensor *w = NULL, *out = ct_scaled_dot_product_attention(in[0], in[1], in[2], o, c->weights ? &w : NULL);
    return c->weights ? w : out;
}

static void test_sdpa(void)
{
    static const sdpa_case cases[] = {
        {"sdpa", 3, false, false, 0, 0, -1},        {"sdpa_weights", 3, true, false, 0, 0, -1},
        {"sdpa_bool", 4, false, false, 0, 0, -1},   {"sdpa_float", 4, false, false, 0, 0, -1},
        {"sdpa_causal", 3, false, true, 0, 0, -1},  {"sdpa_dropout", 3, false, false, 0.4, 0, 11},
        {"sdpa_scale", 3, false, false, 0, 0.3, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(cases[i].name, NULL, sdpa_fn, (void *)&cases[i], cases[i].n_in, cases[i].seed);
    ct_tensor *q = ct_zeros(CT_SHAPE(2, 3, 4), CT_F32);
    ct_sdpa_opts bad = {ct_ones(CT_SHAPE(3, 3), CT_BOOL), 0, true, 0};
    FAILS_T(ct_scaled_dot_product_attention(q, q, q, bad, NULL), RT,
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
}

/* How a MultiheadAttention case calls the module: which inputs are query,
 * key, value and the masks (-1: none), and whether it returns the weights. */
typedef struct mha_case {
    const char *name;
    int n_in, q, k, v, attn_mask, kpm;
    bool weights, per_head;
    int seed;
    ct_module *m;
} mha_case;

static ct_tensor *mha_fn(ct_tensor *const *in, int n, void *user)
{
    (void)n;
    const mha_case *c = (const mha_case *)user;
    ct_mha_forward_opts o = {c->kpm >= 0 ? in[c->kpm] : NULL, c->attn_mask >= 0 ? in[c->attn_mask] : NULL, c->per_head};
    ct_tensor *w = NULL, *out = ct_multihead_attention_forward(c->m, in[c->q], in[c->k], in[c->v], o, c->weights ? &w : NULL);
    return c->weights ? w : out;
}

static void run_mha_cases(ct_module *m, mha_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cases[i].m = m;
        check_case(cases[i].name, m, mha_fn, &cases[i], cases[i].n_in, cases[i].seed);
    }
}

static void test_mha(void)
{
    mha_case cases[] = {
        {"mha", 3, 0, 1, 2, -1, -1, false, false, -1, NULL},
        {"mha_self", 1, 0, 0, 0, -1, -1, false, false, -1, NULL},
        {"mha_kv_same", 2, 0, 1, 1, -1, -1, false, false, -1, NULL},
        {"mha_weights", 3, 0, 1, 2, -1, -1, true, false, -1, NULL},
        {"mha_weights_per_head", 3, 0, 1, 2, -1, -1, true, true, -1, NULL},
        {"mha_kpm", 4, 0, 1, 2, -1, 3, false, false, -1, NULL},
        {"mha_bool_mask", 4, 0, 1, 2, 3, -1, false, false, -1, NULL},
        {"mha_float_mask", 4, 0, 1, 2, 3, -1, false, false, -1, NULL},
        {"mha_both_masks", 5, 0, 1, 2, 3, 4, false, false, -1, NULL},
        {"mha_float_mask_kpm", 5, 0, 1, 2, 3, 4, true, false, -1, NULL},
        {"mha_float_kpm", 4, 0, 1, 2, -1, 3, false, false, -1, NULL},
        {"mha_unbatched", 4, 0, 1, 2, -1, 3, false, false, -1, NULL},
        {"mha_unbatched_weights", 3, 0, 1, 2, -1, -1, true, true, -1, NULL},
    };
    ct_module *m = make_mha();
    run_mha_cases(m, cases, sizeof cases / sizeof cases[0]);
    ct_module_release(m);

    ct_mha_opts o = {0};
    o.batch_first = true;
    o.dropout = 0.3;
    m = ct_nn_multihead_attention(8, 4, o);
    mha_case bf[] = {{"mha_batch_first_dropout", 1, 0, 0, 0, -1, -1, false, false, 12, NULL}};
    run_mha_cases(m, bf, 1);
    ct_module_eval(m);
    mha_case bf_eval[] = {{"mha_batch_first_eval", 2, 0, 1, 1, -1, -1, false, false, -1, NULL}};
    run_mha_cases(m, bf_eval, 1);
    ct_module_release(m);

    memset(&o, 0, sizeof o);
    o.kdim = 3;
    o.vdim = 6;
    o.add_bias_kv = true;
    m = ct_nn_multihead_attention(8, 2, o);
    mha_case kd[] = {{"mha_kdim_bias_kv", 5, 0, 1, 2, 3, 4, false, false, -1, NULL}};
    run_mha_cases(m, kd, 1);
    ct_module_release(m);

    memset(&o, 0, sizeof o);
    o.no_bias = true;
    o.add_zero_attn = true;
    m = ct_nn_multihead_attention(6, 3, o);
    mha_case z[] = {{"mha_zero_attn", 4, 0, 1, 2, 3, -1, true, false, -1, NULL}};
    run_mha_cases(m, z, 1);
    ct_module_release(m);
}

/* ct_forward_n(mha, {q, k, v}) is the call without keyword arguments, and
 * the module's graph has PyTorch's nodes. */
static void test_mha_plain_call(void)
{
    ct_module *m = make_mha();
    ct_test_load_params("layers", m, "mha");
    ct_tensor *in[3] = {ct_clone(gold("mha", "in0")), ct_clone(gold("mha", "in1")), ct_clone(gold("mha", "in2"))};
    ct_tensor *out = ct_forward_n(m, in, 3);
    ct_test_compare(__FILE__, __LINE__, "out", out, gold("mha", "out"), CLOSE);
    CHECK_STR(ct_node_name(ct_grad_fn(out)), "ViewBackward0");
    ct_module_release(m);
}

typedef struct encoder_case {
    const char *name;
    int n_in, mask, kpm, seed;
    ct_module *m;
} encoder_case;

static ct_tensor *encoder_fn(ct_tensor *const *in, int n, void *user)
{
    (void)n;
    const encoder_case *c = (const encoder_case *)user;
    return ct_transformer_encoder_layer_forward(c->m, in[0], c->mask >= 0 ? in[c->mask] : NULL, c->kpm >= 0 ? in[c->kpm] : NULL);
}

static void run_encoder_case(ct_module *m, encoder_case c)
{
    c.m = m;
    check_case(c.name, m, encoder_fn, &c, c.n_in, c.seed);
}

static void test_encoder(void)
{
    ct_transformer_encoder_layer_opts o = ct_transformer_encoder_layer_opts_init();
    o.dim_feedforward = 16;
    o.dropout = 0.2;
    ct_module *m = ct_nn_transformer_encoder_layer(8, 2, o);
    run_encoder_case(m, (encoder_case){"encoder_train", 1, -1, -1, 13, NULL});
    run_encoder_case(m, (encoder_case){"encoder_masks", 3, 1, 2, 14, NULL});
    ct_module_eval(m);
    CHECK(!ct_module_is_training(ct_module_get_submodule(m, "self_attn")));
    check_case("encoder_eval", m, NULL, NULL, 1, -1); /* ct_forward: no masks */
    ct_module_release(m);

    o = ct_transformer_encoder_layer_opts_init();
    o.dim_feedforward = 12;
    o.activation = "gelu";
    o.layer_norm_eps = 1e-4;
    o.batch_first = true;
    o.norm_first = true;
    m = ct_nn_transformer_encoder_layer(8, 4, o);
    run_encoder_case(m, (encoder_case){"encoder_norm_first", 2, -1, 1, 15, NULL});
    run_encoder_case(m, (encoder_case){"encoder_unbatched", 1, -1, -1, 16, NULL});
    ct_module_release(m);
}

/* ---------------------------------------------------------------- gradcheck */

/* gradcheck's function: the module of the case on inputs[0] (and masks
 * given as user data); its parameters are the other inputs, perturbed in place. */
typedef struct gc_case {
    ct_module *m;
    int kind; /* 0: ct_forward; 1: MultiheadAttention with masks; 2: TransformerEncoderLayer with masks */
    const ct_tensor *mask, *kpm;
} gc_case;

static int gc_fn(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    (void)n;
    const gc_case *c = (const gc_case *)user;
    ct_mha_forward_opts o = {c->kpm, c->mask, false};
    ct_tensor *w = NULL;
    if (c->kind == 0) out[0] = ct_forward(c->m, in[0]);
    else if (c->kind == 1) out[0] = ct_multihead_attention_forward(c->m, in[0], in[0], in[0], o, &w);
    else out[0] = ct_transformer_encoder_layer_forward(c->m, in[0], c->mask, c->kpm);
    if (!out[0]) return ct_last_error_code();
    out[1] = w;
    return w ? 2 : 1;
}

/* gradcheck and gradgradcheck of m (taken over, made float64) on x. */
static void gradcheck_module(const char *what, ct_module *m, ct_shape x_shape, int kind, const ct_tensor *mask,
                             const ct_tensor *kpm)
{
    CHECK_T(m);
    if (!m) return;
    ct_scope s = ct_scope_begin();
    CHECK_OK(ct_module_to(m, CT_F64));
    ct_tensor_list ps = ct_module_parameters(m, true);
    ct_tensor *in[16] = {ct_randn(x_shape, CT_F64, NULL)};
    ct_requires_grad_(in[0], true);
    for (int i = 0; i < ps.n && i < 15; i++) in[1 + i] = ps.tensors[i];
    gc_case c = {m, kind, mask, kpm};
    if (ct_gradcheck(gc_fn, in, 1 + ps.n, &c, ct_gradcheck_opts_init()) != CT_OK)
        ct_test_fail(__FILE__, __LINE__, "gradcheck %s: %s", what, ct_last_error());
    if (ct_gradgradcheck(gc_fn, in, 1 + ps.n, &c, ct_gradcheck_opts_init()) != CT_OK)
        ct_test_fail(__FILE__, __LINE__, "gradgradcheck %s: %s", what, ct_last_error());
    ct_clear_error();
    ct_tensor_list_free(&ps);
    ct_scope_end(s);
    ct_module_release(m);
}

static void test_gradcheck(void)
{
    ct_manual_seed(21);
    ct_conv_layer_opts o = padded("same", CT_PAD_REFLECT);
    o.groups = 2;
    gradcheck_module("conv2d reflect same groups", ct_nn_conv2d(2, 2, CT_SHAPE(2, 3), o), CT_SHAPE(1, 2, 3, 4), 0, NULL, NULL);
    o = conv_opts(CT_SHAPE(2), CT_SHAPE(1), CT_SHAPE0, 0);
    o.output_padding = CT_SHAPE(1);
    gradcheck_module("conv_transpose1d", ct_nn_conv_transpose1d(2, 1, CT_SHAPE(3), o), CT_SHAPE(1, 2, 3), 0, NULL, NULL);
    gradcheck_module("avg_pool2d", ct_nn_avg_pool2d(CT_SHAPE(2), ct_avg_pool_opts_init()), CT_SHAPE(1, 2, 3, 4), 0, NULL, NULL);

    ct_tensor *mask = ct_zeros(CT_SHAPE(3, 3), CT_BOOL);
    CHECK_OK(ct_fill_(ct_select(ct_select(mask, 0, 0), 0, 2), ct_bool(true)));
    ct_tensor *kpm = ct_zeros(CT_SHAPE(2, 3), CT_BOOL);
    CHECK_OK(ct_fill_(ct_select(ct_select(kpm, 0, 1), 0, 1), ct_bool(true)));
    ct_mha_opts mo = {0};
    mo.add_bias_kv = true;
    gradcheck_module("mha masks weights", ct_nn_multihead_attention(4, 2, mo), CT_SHAPE(3, 2, 4), 1, mask, kpm);
    ct_transformer_encoder_layer_opts eo = ct_transformer_encoder_layer_opts_init();
    eo.dim_feedforward = 3;
    eo.activation = "gelu";
    eo.norm_first = true;
    ct_module *enc = ct_nn_transformer_encoder_layer(4, 2, eo);
    if (enc) ct_module_eval(enc);
    gradcheck_module("encoder eval", enc, CT_SHAPE(3, 2, 4), 2, NULL, kpm);
}

/* ---------------------------------------------------------------- errors */

int main(void)
{
    RUN_CPU_DRAWS(test_init);
    RUN(test_structure);
    RUN(test_hooks);
    RUN_CPU_DRAWS(test_orthogonal);
    RUN(test_pad_integers);
    RUN(test_conv_layers);
    RUN(test_conv_transpose_layers);
    RUN(test_pool_layers);
    RUN(test_sdpa);
    RUN(test_mha);
    RUN(test_mha_plain_call);
    RUN_CPU_DRAWS(test_encoder);
    RUN(test_gradcheck);
    return ct_test_report();
}
