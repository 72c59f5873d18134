/* The convolution, pooling and attention layers, scaled dot-product
 * attention and nn.init.orthogonal_ given bad settings and shapes: PyTorch
 * 1.13's exact errors. */
#include "errors.h"

#define RT CT_ERR_RUNTIME
#define VE CT_ERR_VALUE

static void test_module_errors(void)
{
    ct_conv_layer_opts o = {.groups = -1};
    FAILS_T(ct_nn_conv2d(3, 4, CT_SHAPE(3), o), VE, "groups must be a positive integer");
    o.groups = 2;
    FAILS_T(ct_nn_conv2d(3, 4, CT_SHAPE(3), o), VE, "in_channels must be divisible by groups");
    o.groups = 3;
    FAILS_T(ct_nn_conv2d(3, 4, CT_SHAPE(3), o), VE, "out_channels must be divisible by groups");
    o = (ct_conv_layer_opts){.padding_str = "foo"};
    FAILS_T(ct_nn_conv2d(3, 4, CT_SHAPE(3), o), VE, "Invalid padding string 'foo', should be one of {'valid', 'same'}");
    o = (ct_conv_layer_opts){.padding_str = "same"};
    o.stride = CT_SHAPE(1, 2);
    FAILS_T(ct_nn_conv2d(3, 4, CT_SHAPE(3), o), VE, "padding='same' is not supported for strided convolutions");
    FAILS_T(ct_nn_conv_transpose2d(3, 4, CT_SHAPE(3), (ct_conv_layer_opts){.padding_mode = CT_PAD_REFLECT}), VE,
            "Only \"zeros\" padding mode is supported for ConvTranspose2d");
    FAILS_T(ct_nn_conv_transpose3d(3, 4, CT_SHAPE(3), (ct_conv_layer_opts){.padding_mode = CT_PAD_CIRCULAR}), VE,
            "Only \"zeros\" padding mode is supported for ConvTranspose3d");
    o = (ct_conv_layer_opts){.stride = CT_SHAPE(1, 2, 3)};
    FAILS_T(ct_nn_conv2d(3, 3, CT_SHAPE(3), o), RT, "expected stride to be a single integer value or a list of 2 values to "
                                                      "match the convolution dimensions, but got stride=[1, 2, 3]");
    FAILS_T(ct_nn_conv2d(3, 3, CT_SHAPE0, (ct_conv_layer_opts){0}), CT_ERR_TYPE,
            "__init__() missing 1 required positional argument: 'kernel_size'");

    ct_module *c = ct_nn_conv2d(1, 16, CT_SHAPE(5), (ct_conv_layer_opts){0});
    FAILS_T(ct_forward(c, ct_zeros(CT_SHAPE(2, 2, 8, 8), CT_F32)), RT,
            "Given groups=1, weight of size [16, 1, 5, 5], expected input[2, 2, 8, 8] to have 1 channels, but got 2 channels instead");
    FAILS_T(ct_conv_transpose_forward(c, ct_zeros(CT_SHAPE(1, 1, 8, 8), CT_F32), CT_SHAPE(8, 8)), CT_ERR_TYPE,
            "ct_conv_transpose_forward: Conv2d is not a ConvTranspose1d, ConvTranspose2d or ConvTranspose3d");
    ct_module_release(c);
    ct_module *t = ct_nn_conv_transpose1d(3, 4, CT_SHAPE(3), (ct_conv_layer_opts){.stride = CT_SHAPE(2)});
    FAILS_T(ct_conv_transpose_forward(t, ct_zeros(CT_SHAPE(3, 5), CT_F32), CT_SHAPE(20)), VE,
            "requested an output size of [20], but valid sizes range from [11] to [12] (for an input of torch.Size([]))");
    FAILS_T(ct_conv_transpose_forward(t, ct_zeros(CT_SHAPE(1, 3, 5), CT_F32), CT_SHAPE(1, 2, 3, 4)), VE,
            "ConvTranspose1D: for 3D input, output_size must have 1 or 3 elements (got 4)");
    ct_module_release(t);

    FAILS_T(ct_nn_multihead_attention(8, 3, (ct_mha_opts){0}), RT, "embed_dim must be divisible by num_heads");
    FAILS_T(ct_nn_multihead_attention(8, 0, (ct_mha_opts){0}), RT, "integer division or modulo by zero");
    ct_module *m = ct_nn_multihead_attention(8, 2, (ct_mha_opts){0});
    ct_tensor *q = ct_zeros(CT_SHAPE(4, 2, 8), CT_F32), *k = ct_zeros(CT_SHAPE(5, 2, 8), CT_F32);
    ct_tensor *k2 = ct_zeros(CT_SHAPE(5, 8), CT_F32), *q2 = ct_zeros(CT_SHAPE(4, 8), CT_F32);
    ct_mha_forward_opts none = {NULL, NULL, false}, o3 = none;
    FAILS_T(ct_multihead_attention_forward(m, ct_zeros(CT_SHAPE(8), CT_F32), k, k, none, NULL), RT,
            "query should be unbatched 2D or batched 3D tensor but received 1-D query tensor");
    FAILS_T(ct_multihead_attention_forward(m, q, k2, k2, none, NULL), RT,
            "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 2-D and 2-D tensors respectively");
    o3.key_padding_mask = ct_zeros(CT_SHAPE(2, 1, 5), CT_BOOL);
    FAILS_T(ct_multihead_attention_forward(m, q, k, k, o3, NULL), RT,
            "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found 3-D tensor instead");
    o3 = none;
    o3.attn_mask = ct_zeros(CT_SHAPE(5), CT_BOOL);
    FAILS_T(ct_multihead_attention_forward(m, q, k, k, o3, NULL), RT,
            "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found 1-D tensor instead");
    o3 = none;
    o3.key_padding_mask = ct_zeros(CT_SHAPE(2, 5), CT_BOOL);
    FAILS_T(ct_multihead_attention_forward(m, q2, k2, k2, o3, NULL), RT,
            "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found 2-D tensor instead");
    o3 = none;
    o3.attn_mask = ct_zeros(CT_SHAPE(3, 4, 5), CT_BOOL);
    FAILS_T(ct_multihead_attention_forward(m, q2, k2, k2, o3, NULL), RT,
            "Expected `attn_mask` shape to be (2, 4, 5) but got torch.Size([3, 4, 5])");
    FAILS_T(ct_multihead_attention_forward(m, ct_zeros(CT_SHAPE(4, 2, 6), CT_F32), k, k, none, NULL), RT,
            "was expecting embedding dimension of 8, but got 6");
    FAILS_T(ct_multihead_attention_forward(m, q, k, ct_zeros(CT_SHAPE(6, 2, 8), CT_F32), none, NULL), RT,
            "key shape torch.Size([5, 2, 8]) does not match value shape torch.Size([6, 2, 8])");
    o3 = none;
    o3.key_padding_mask = ct_zeros(CT_SHAPE(2, 5), CT_I64);
    FAILS_T(ct_multihead_attention_forward(m, q, k, k, o3, NULL), RT, "only bool and floating types of key_padding_mask are supported");
    o3 = none;
    o3.attn_mask = ct_zeros(CT_SHAPE(4, 5), CT_I64);
    FAILS_T(ct_multihead_attention_forward(m, q, k, k, o3, NULL), RT,
            "Only float, byte, and bool types are supported for attn_mask, not torch.int64");
    o3.attn_mask = ct_zeros(CT_SHAPE(4, 6), CT_BOOL);
    FAILS_T(ct_multihead_attention_forward(m, q, k, k, o3, NULL), RT,
            "The shape of the 2D attn_mask is torch.Size([4, 6]), but should be (4, 5).");
    o3.attn_mask = ct_zeros(CT_SHAPE(3, 4, 5), CT_BOOL);
    FAILS_T(ct_multihead_attention_forward(m, q, k, k, o3, NULL), RT,
            "The shape of the 3D attn_mask is torch.Size([3, 4, 5]), but should be (4, 4, 5).");
    o3 = none;
    o3.key_padding_mask = ct_zeros(CT_SHAPE(2, 4), CT_BOOL);
    FAILS_T(ct_multihead_attention_forward(m, q, k, k, o3, NULL), RT,
            "expecting key_padding_mask shape of (2, 5), but got torch.Size([2, 4])");
    FAILS_T(ct_multihead_attention_forward(m, q, ct_zeros(CT_SHAPE(5, 2, 7), CT_F32), ct_zeros(CT_SHAPE(5, 2, 7), CT_F32), none, NULL),
            RT, "mat1 and mat2 shapes cannot be multiplied (10x7 and 8x8)");
    ct_tensor *in3[3] = {q, k, k};
    FAILS_T(ct_forward_n(m, in3, 2), CT_ERR_TYPE, "MultiheadAttention.forward() takes 4 positional arguments but 3 were given");
    FAILS_T(ct_transformer_encoder_layer_forward(m, q, NULL, NULL), CT_ERR_TYPE,
            "ct_transformer_encoder_layer_forward: MultiheadAttention is not a TransformerEncoderLayer");
    ct_module_release(m);

    ct_mha_opts ko = {0};
    ko.kdim = 3;
    ko.vdim = 6;
    m = ct_nn_multihead_attention(8, 2, ko);
    FAILS_T(ct_multihead_attention_forward(m, q, ct_zeros(CT_SHAPE(5, 2, 4), CT_F32), ct_zeros(CT_SHAPE(5, 2, 6), CT_F32), none, NULL),
            RT, "expecting key weights shape of (8, 4), but got torch.Size([8, 3])");
    FAILS_T(ct_multihead_attention_forward(m, q, ct_zeros(CT_SHAPE(5, 2, 3), CT_F32), ct_zeros(CT_SHAPE(6, 2, 6), CT_F32), none, NULL),
            RT, "key's sequence and batch dims torch.Size([5, 2]) do not match value's torch.Size([6, 2])");
    ct_module_release(m);

    ct_transformer_encoder_layer_opts eo = ct_transformer_encoder_layer_opts_init();
    eo.activation = "tanh";
    FAILS_T(ct_nn_transformer_encoder_layer(8, 2, eo), RT, "activation should be relu/gelu, not tanh");
    eo = ct_transformer_encoder_layer_opts_init();
    eo.dropout = 1.5;
    FAILS_T(ct_nn_transformer_encoder_layer(8, 2, eo), VE, "dropout probability has to be between 0 and 1, but got 1.5");
    eo.dropout = 0.1;
    eo.dim_feedforward = 16;
    ct_module *e = ct_nn_transformer_encoder_layer(8, 2, eo);
    FAILS_T(ct_transformer_encoder_layer_forward(e, ct_zeros(CT_SHAPE(5, 2, 8), CT_F32), NULL, ct_zeros(CT_SHAPE(2, 5), CT_I64)),
            RT, "only bool and floating types of key_padding_mask are supported");
    FAILS_T(ct_forward(e, ct_zeros(CT_SHAPE(5, 2, 6), CT_F32)), RT, "was expecting embedding dimension of 8, but got 6");
    ct_module_release(e);
}

/* A module that is built fine and given an input of the wrong rank or channels. */
static void forward_fails(ct_module *m, ct_tensor *x, ct_result code, const char *msg)
{
    CHECK_T(m);
    if (m) FAILS_T(ct_forward(m, x), code, msg);
    ct_module_release(m);
}

static void test_wrong_inputs(void)
{
    const ct_max_pool_opts mp = {0};
    const ct_conv_layer_opts plain = {0};
    forward_fails(ct_nn_max_pool1d(CT_SHAPE(2), mp), ct_zeros(CT_SHAPE(2, 2, 2, 2), CT_F32), RT,
                  "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but "
                  "got:[2, 2, 2, 2]");
    forward_fails(ct_nn_max_pool2d(CT_SHAPE(2), mp), ct_zeros(CT_SHAPE(4), CT_F32), RT,
                  "non-empty 3D or 4D (batch mode) tensor expected for input");
    forward_fails(ct_nn_avg_pool1d(CT_SHAPE(2), ct_avg_pool_opts_init()), ct_zeros(CT_SHAPE(4), CT_F32), RT,
                  "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while checking "
                  "arguments for avg_pool1d)");
    forward_fails(ct_nn_avg_pool2d(CT_SHAPE(2), ct_avg_pool_opts_init()), ct_zeros(CT_SHAPE(4), CT_F32), CT_ERR_INDEX,
                  "Dimension out of range (expected to be in range of [-1, 0], but got -3)");
    forward_fails(ct_nn_adaptive_avg_pool2d(CT_SHAPE(2)), ct_zeros(CT_SHAPE(4), CT_F32), RT,
                  "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [4]");
    forward_fails(ct_nn_adaptive_max_pool2d(CT_SHAPE(2)), ct_zeros(CT_SHAPE(4), CT_F32), RT,
                  "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [4]");
    forward_fails(ct_nn_conv1d(3, 4, CT_SHAPE(3), plain), ct_zeros(CT_SHAPE(2, 2, 5), CT_F32), RT,
                  "Given groups=1, weight of size [4, 3, 3], expected input[2, 2, 5] to have 3 channels, but got 2 "
                  "channels instead");
    forward_fails(ct_nn_conv3d(3, 4, CT_SHAPE(3), plain), ct_zeros(CT_SHAPE(2, 3, 5, 5), CT_F32), RT,
                  "Given groups=1, weight of size [4, 3, 3, 3, 3], expected input[1, 2, 3, 5, 5] to have 3 channels, "
                  "but got 2 channels instead");
    forward_fails(ct_nn_conv_transpose1d(3, 4, CT_SHAPE(3), plain), ct_zeros(CT_SHAPE(2, 2, 5), CT_F32), RT,
                  "Given transposed=1, weight of size [3, 4, 3], expected input[2, 2, 5] to have 3 channels, but got 2 "
                  "channels instead");
    FAILS_T(ct_scaled_dot_product_attention(ct_zeros(CT_SHAPE(2, 3, 4), CT_F32), ct_zeros(CT_SHAPE(2, 5, 6), CT_F32),
                                            ct_zeros(CT_SHAPE(2, 5, 4), CT_F32), (ct_sdpa_opts){0}, NULL),
            RT, "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 6].");
    FAILS_R(ct_init_orthogonal_(ct_empty(CT_SHAPE(3), CT_F32), 1), VE, "Only tensors with 2 or more dimensions are supported");
}

int main(void)
{
    RUN(test_module_errors);
    RUN(test_wrong_inputs);
    return ct_test_report();
}
