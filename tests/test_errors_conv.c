/* Bad input to the convolution and pooling functions: each fails with
 * PyTorch 1.13's exact words (checked against it) and the program goes on. */
#include "errors.h"

static ct_tensor *ones(ct_shape s, ct_dtype dt) { return ct_ones(s, dt); }
#define F(...) ones(CT_SHAPE(__VA_ARGS__), CT_F32)
#define D(...) ones(CT_SHAPE(__VA_ARGS__), CT_F64)
#define L(...) ones(CT_SHAPE(__VA_ARGS__), CT_I64)
#define RT CT_ERR_RUNTIME

static void test_null_tensors(void)
{
    ct_tensor *x = F(1, 1, 4, 4), *w = F(1, 1, 2, 2);
    ct_conv_opts c = {0};
    ct_max_pool_opts m = {0};
    ct_fold_opts f = {0};
    ct_interp_opts io = {0};
    io.scale_factor[0] = 2;
    FAILS_NULL(ct_conv1d(NULL_T, w, NULL, c), "conv1d(): argument 'input' (position 1)");
    FAILS_NULL(ct_conv2d(x, NULL_T, NULL, c), "conv2d(): argument 'weight' (position 2)");
    FAILS_NULL(ct_conv3d(NULL_T, w, NULL, c), "conv3d(): argument 'input' (position 1)");
    FAILS_NULL(ct_conv_transpose1d(NULL_T, w, NULL, c), "conv_transpose1d(): argument 'input' (position 1)");
    FAILS_NULL(ct_conv_transpose2d(x, NULL_T, NULL, c), "conv_transpose2d(): argument 'weight' (position 2)");
    FAILS_NULL(ct_conv_transpose3d(NULL_T, w, NULL, c), "conv_transpose3d(): argument 'input' (position 1)");
    FAILS_NULL(ct_max_pool1d(NULL_T, CT_SHAPE(2), m), "max_pool1d(): argument 'input' (position 1)");
    FAILS_NULL(ct_max_pool2d(NULL_T, CT_SHAPE(2), m), "max_pool2d(): argument 'input' (position 1)");
    FAILS_NULL(ct_max_pool1d_with_indices(NULL_T, CT_SHAPE(2), m, NULL), "max_pool1d_with_indices(): argument 'input' (position 1)");
    FAILS_NULL(ct_max_pool2d_with_indices(NULL_T, CT_SHAPE(2), m, NULL), "max_pool2d_with_indices(): argument 'input' (position 1)");
    FAILS_NULL(ct_avg_pool1d(NULL_T, CT_SHAPE(2), ct_avg_pool_opts_init()), "avg_pool1d(): argument 'input' (position 1)");
    FAILS_NULL(ct_avg_pool2d(NULL_T, CT_SHAPE(2), ct_avg_pool_opts_init()), "avg_pool2d(): argument 'input' (position 1)");
    FAILS_NULL(ct_adaptive_avg_pool2d(NULL_T, CT_SHAPE(2)), "adaptive_avg_pool2d(): argument 'input' (position 1)");
    FAILS_NULL(ct_adaptive_max_pool2d(NULL_T, CT_SHAPE(2), NULL), "adaptive_max_pool2d(): argument 'input' (position 1)");
    FAILS_NULL(ct_im2col(NULL_T, CT_SHAPE(2), f), "im2col(): argument 'input' (position 1)");
    FAILS_NULL(ct_col2im(NULL_T, CT_SHAPE(4, 4), CT_SHAPE(2), f), "col2im(): argument 'input' (position 1)");
    FAILS_NULL(ct_pad(NULL_T, CT_SHAPE(1, 1), CT_PAD_CONSTANT, 0), "pad(): argument 'input' (position 1)");
    FAILS_NULL(ct_interpolate(NULL_T, io), "interpolate(): argument 'input' (position 1)");
    FAILS_NULL(ct_pixel_shuffle(NULL_T, 2), "pixel_shuffle(): argument 'input' (position 1)");
    FAILS_NULL(ct_pixel_unshuffle(NULL_T, 2), "pixel_unshuffle(): argument 'input' (position 1)");
}

static ct_conv_opts conv_opts(ct_shape stride, ct_shape padding, ct_shape dilation, int64_t groups)
{
    ct_conv_opts o = {stride, padding, NULL, dilation, groups, CT_SHAPE0};
    return o;
}

static void test_convolutions(void)
{
    ct_tensor *x = F(2, 4, 6, 6), *w = F(3, 4, 3, 3), *wt = F(4, 3, 3, 3);
    ct_conv_opts o = {0}, same = {0}, foo = {0}, op = {0};
    same.padding_str = "same";
    same.stride = CT_SHAPE(2);
    foo.padding_str = "foo";
    FAILS_T(ct_conv2d(F(2, 3), w, NULL, o), RT, "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 3]");
    FAILS_T(ct_conv1d(x, w, NULL, o), RT, "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [2, 4, 6, 6]");
    FAILS_T(ct_conv_transpose2d(F(4, 6), wt, NULL, o), RT,
            "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: [4, 6]");
    FAILS_T(ct_conv_transpose3d(F(2, 4, 6), wt, NULL, o), RT,
            "Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of size: [2, 4, 6]");
    FAILS_T(ct_conv_transpose3d(F(1, 3, 2, 2, 2), F(4, 2, 2, 2, 2), NULL, o), RT,
            "Given transposed=1, weight of size [4, 2, 2, 2, 2], expected input[1, 3, 2, 2, 2] to have 4 channels, but got 3 "
            "channels instead");
    FAILS_T(ct_conv2d(F(2, 3, 6, 6), w, NULL, o), RT,
            "Given groups=1, weight of size [3, 4, 3, 3], expected input[2, 3, 6, 6] to have 4 channels, but got 3 channels instead");
    FAILS_T(ct_conv2d(x, w, NULL, conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, 2)), RT,
            "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[3, 4, 3, 3]] instead");
    FAILS_T(ct_conv2d(x, F(0, 4, 3, 3), NULL, o), RT,
            "Given groups=1, expected weight to be at least 1 at dimension 0, but got weight of size [0, 4, 3, 3] instead");
    FAILS_T(ct_conv2d(x, F(3, 4, 3), NULL, o), RT,
            "expected stride to be a single integer value or a list of 1 values to match the convolution dimensions, but got stride=[1, 1]");
    FAILS_T(ct_conv2d(x, F(3, 4), NULL, o), RT, "weight should have at least three dimensions");
    FAILS_T(ct_conv2d(x, F(3, 4, 3, 3, 3), NULL, conv_opts(CT_SHAPE(1, 1, 1), CT_SHAPE0, CT_SHAPE0, 0)), RT,
            "expected padding to be a single integer value or a list of 3 values to match the convolution dimensions, but got padding=[0, 0]");
    FAILS_T(ct_conv2d(x, w, F(4), o), RT,
            "Given weight of size [3, 4, 3, 3], expected bias to be 1-dimensional with 3 elements, but got bias of size [4] instead");
    FAILS_T(ct_conv2d(x, w, F(3, 1), o), RT,
            "Given weight of size [3, 4, 3, 3], expected bias to be 1-dimensional with 3 elements, but got bias of size [3, 1] instead");
    FAILS_T(ct_conv2d(x, w, NULL, conv_opts(CT_SHAPE(1, 1, 1), CT_SHAPE0, CT_SHAPE0, 0)), RT,
            "expected stride to be a single integer value or a list of 2 values to match the convolution dimensions, but got stride=[1, 1, 1]");
    FAILS_T(ct_conv2d(x, w, NULL, conv_opts(CT_SHAPE0, CT_SHAPE(1, 1, 1), CT_SHAPE0, 0)), RT,
            "expected padding to be a single integer value or a list of 2 values to match the convolution dimensions, but got padding=[1, 1, 1]");
    FAILS_T(ct_conv2d(x, w, NULL, conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE(1, 1, 1), 0)), RT,
            "expected dilation to be a single integer value or a list of 2 values to match the convolution dimensions, but got dilation=[1, 1, 1]");
    FAILS_T(ct_conv2d(x, w, NULL, conv_opts(CT_SHAPE(0), CT_SHAPE0, CT_SHAPE0, 0)), RT, "non-positive stride is not supported");
    FAILS_T(ct_conv2d(x, w, NULL, conv_opts(CT_SHAPE0, CT_SHAPE(-1), CT_SHAPE0, 0)), RT, "negative padding is not supported");
    FAILS_T(ct_conv2d(x, w, NULL, conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE(0), 0)), RT, "non-positive dilation is not supported");
    FAILS_T(ct_conv2d(x, w, NULL, conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, -1)), RT, "non-positive groups is not supported");
    FAILS_T(ct_conv2d(x, F(3, 4, 7, 7), NULL, o), RT,
            "Calculated padded input size per channel: (6 x 6). Kernel size: (7 x 7). Kernel size can't be greater than actual input size");
    FAILS_T(ct_conv2d(x, w, NULL, same), RT, "padding='same' is not supported for strided convolutions");
    FAILS_T(ct_conv2d(x, w, NULL, foo), RT, "Invalid padding string: 'foo'");
    FAILS_T(ct_conv2d(x, D(3, 4, 3, 3), NULL, o), RT,
            "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same or input should be a "
            "MKLDNN tensor and weight is a dense tensor");
    FAILS_T(ct_conv2d(x, w, D(3), o), RT, "Input type (float) and bias type (double) should be the same");
    same.stride = CT_SHAPE0;
    FAILS_T(ct_conv_transpose2d(x, wt, NULL, same), CT_ERR_TYPE, "conv_transpose2d(): argument 'padding' must be tuple of ints, not str");
    op.stride = CT_SHAPE(2);
    op.output_padding = CT_SHAPE(2);
    FAILS_T(ct_conv_transpose2d(x, wt, NULL, op), RT,
            "output padding must be smaller than either stride or dilation, but got output_padding_height: 2 output_padding_width: 2 "
            "stride_height: 2 stride_width: 2 dilation_height: 1 dilation_width: 1");
    op.output_padding = CT_SHAPE(2);
    FAILS_T(ct_conv_transpose1d(F(2, 4, 6), F(4, 3, 3), NULL, op), RT,
            "output padding must be smaller than either stride or dilation, but got output_padding_height: 0 output_padding_width: 2 "
            "stride_height: 1 stride_width: 2 dilation_height: 1 dilation_width: 1");
    op.output_padding = CT_SHAPE(1, 1, 1);
    FAILS_T(ct_conv_transpose2d(x, wt, NULL, op), RT,
            "expected output_padding to be a single integer value or a list of 2 values to match the convolution dimensions, but "
            "got output_padding=[1, 1, 1]");
    op.output_padding = CT_SHAPE(-1);
    FAILS_T(ct_conv_transpose2d(x, wt, NULL, op), RT, "negative output_padding is not supported");
    FAILS_T(ct_conv_transpose2d(x, F(3, 3, 3, 3), NULL, o), RT,
            "Given transposed=1, weight of size [3, 3, 3, 3], expected input[2, 4, 6, 6] to have 3 channels, but got 4 channels instead");
    FAILS_T(ct_conv_transpose2d(x, wt, NULL, conv_opts(CT_SHAPE0, CT_SHAPE0, CT_SHAPE0, 3)), RT,
            "Given groups=3, expected weight to be divisible by 3 at dimension 0, but got weight of size [[4, 3, 3, 3]] instead");
    FAILS_T(ct_conv_transpose2d(x, wt, NULL, conv_opts(CT_SHAPE0, CT_SHAPE(5), CT_SHAPE0, 0)), RT,
            "Given input size per channel: (6 x 6). Calculated output size per channel: (-2 x -2). Output size is too small");
    FAILS_T(ct_conv3d(x, w, NULL, o), RT,
            "expected stride to be a single integer value or a list of 2 values to match the convolution dimensions, but got stride=[1, 1, 1]");
}

static void test_pooling(void)
{
    ct_tensor *x = F(2, 4, 6, 6);
    ct_max_pool_opts m = {0};
    ct_avg_pool_opts a = ct_avg_pool_opts_init();
    FAILS_T(ct_max_pool2d(x, CT_SHAPE(7), m), RT, "Given input size: (4x6x6). Calculated output size: (4x0x0). Output size is too small");
    m.padding = CT_SHAPE(2);
    FAILS_T(ct_max_pool2d(x, CT_SHAPE(2), m), RT, "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
    m.padding = CT_SHAPE0;
    FAILS_T(ct_max_pool2d(F(3, 3), CT_SHAPE(2), m), RT, "non-empty 3D or 4D (batch mode) tensor expected for input");
    FAILS_T(ct_max_pool2d(F(2, 0, 3), CT_SHAPE(2), m), RT,
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 0, 3]");
    FAILS_T(ct_max_pool2d(x, CT_SHAPE(2, 2, 2), m), RT, "max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
    FAILS_T(ct_max_pool2d(L(2, 4, 6, 6), CT_SHAPE(2), m), RT, "\"max_pool2d\" not implemented for 'Long'");
    m.stride = CT_SHAPE(0);
    FAILS_T(ct_max_pool2d(x, CT_SHAPE(2), m), RT, "stride should not be zero");
    m.stride = CT_SHAPE0;
    m.dilation = CT_SHAPE(0);
    FAILS_T(ct_max_pool2d(x, CT_SHAPE(2), m), RT, "dilation should be greater than zero, but got dilationH: 0 dilationW: 0");
    FAILS_T(ct_max_pool2d_with_indices(x, CT_SHAPE(2), m, NULL), RT,
            "dilation should be greater than zero, but got dilationH: 0 dilationW: 0");
    m.dilation = CT_SHAPE0;
    FAILS_T(ct_max_pool1d(x, CT_SHAPE(2), m), RT,
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 4, 6, 6]");
    FAILS_T(ct_max_pool1d_with_indices(x, CT_SHAPE(2), m, NULL), RT,
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 4, 6, 6]");

    FAILS_T(ct_avg_pool2d(x, CT_SHAPE(7), a), RT, "Given input size: (4x6x6). Calculated output size: (4x0x0). Output size is too small");
    a.padding = CT_SHAPE(2);
    FAILS_T(ct_avg_pool2d(x, CT_SHAPE(2), a), RT, "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
    a.padding = CT_SHAPE0;
    FAILS_T(ct_avg_pool2d(F(2, 0, 3), CT_SHAPE(2), a), RT,
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 0, 3]");
    FAILS_T(ct_avg_pool2d(F(3, 3), CT_SHAPE(2), a), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
    FAILS_T(ct_avg_pool2d(ct_zeros(CT_SHAPE0, CT_F32), CT_SHAPE(2), a), CT_ERR_INDEX,
            "Dimension specified as -3 but tensor has no dimensions");
    FAILS_T(ct_avg_pool2d(F(1, 1, 1, 4, 4), CT_SHAPE(2), a), RT,
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[1, 1, 1, 4, 4]");
    FAILS_T(ct_avg_pool1d(x, CT_SHAPE(2), a), RT,
            "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)");
    FAILS_T(ct_avg_pool1d(F(2, 3, 4), CT_SHAPE(7), a), RT,
            "Given input size: (3x1x4). Calculated output size: (3x1x0). Output size is too small");

    FAILS_T(ct_adaptive_avg_pool2d(F(3, 3), CT_SHAPE(2)), RT, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [3, 3]");
    FAILS_T(ct_adaptive_max_pool2d(F(3, 3), CT_SHAPE(2), NULL), RT, "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [3, 3]");
    FAILS_T(ct_adaptive_avg_pool2d(x, CT_SHAPE(2, 2, 2)), RT, "adaptive_avg_pool2d: output_size must be 2");
    FAILS_T(ct_adaptive_max_pool2d(F(2, 0, 3), CT_SHAPE(2), NULL), RT,
            "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [2, 0, 3] "
            "with dimension 1 being empty");
}

static void test_fold(void)
{
    ct_tensor *x = F(2, 4, 6, 6);
    ct_fold_opts f = {0};
    FAILS_T(ct_im2col(x, CT_SHAPE(7), f), RT,
            "Given input with spatial size (6, 6), kernel_size=(7, 7), dilation=(1, 1), padding=(0, 0), calculated shape of the "
            "array of sliding blocks as (0, 0), but its components must be at least one.");
    FAILS_T(ct_im2col(x, CT_SHAPE(2, 2, 2), f), RT, "It is expected kernel_size equals to 2, but got size 3");
    FAILS_T(ct_im2col(x, CT_SHAPE(0), f), RT, "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0");
    FAILS_T(ct_im2col(F(2, 0, 6, 6), CT_SHAPE(2), f), RT,
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: [2, 0, 6, 6]");
    f.padding = CT_SHAPE(-1);
    FAILS_T(ct_im2col(x, CT_SHAPE(2), f), RT, "padding should be non-negative, but got pad_height: -1 pad_width: -1");
    f.padding = CT_SHAPE0;
    f.dilation = CT_SHAPE(0);
    FAILS_T(ct_im2col(x, CT_SHAPE(2), f), RT, "dilation should be greater than zero, but got dilation_height: 0 dilation_width: 0");
    f.dilation = CT_SHAPE(1, 1, 1);
    FAILS_T(ct_im2col(x, CT_SHAPE(2), f), RT, "It is expected dilation equals to 2, but got size 3");
    f.dilation = CT_SHAPE0;
    f.stride = CT_SHAPE(0);
    FAILS_T(ct_col2im(F(2, 16, 25), CT_SHAPE(6, 6), CT_SHAPE(2), f), RT,
            "stride should be greater than zero, but got stride_height: 0 stride_width: 0");
    f.stride = CT_SHAPE0;
    FAILS_T(ct_col2im(F(2, 16, 25), CT_SHAPE(6, 6, 6), CT_SHAPE(2), f), RT, "It is expected output_size equals to 2, but got size 3");
    FAILS_T(ct_col2im(F(2, 15, 25), CT_SHAPE(6, 6), CT_SHAPE(2), f), RT,
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=15 and "
            "kernel_size=(2, 2).");
    FAILS_T(ct_col2im(F(2, 16, 24), CT_SHAPE(6, 6), CT_SHAPE(2), f), RT,
            "Given output_size=(6, 6), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), stride=(1, 1), expected size of input's "
            "dimension 2 to match the calculated number of sliding blocks 5 * 5 = 25, but got input.size(2)=24.");
    FAILS_T(ct_col2im(F(2, 16, 25, 1), CT_SHAPE(6, 6), CT_SHAPE(2), f), RT,
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: "
            "[2, 16, 25, 1]");
    FAILS_T(ct_col2im(L(2, 16, 25), CT_SHAPE(6, 6), CT_SHAPE(2), f), RT, "\"col2im_out_cpu\" not implemented for 'Long'");
}

static void test_pad(void)
{
    ct_tensor *x = F(2, 4, 6, 6);
    const char *nd = "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now";
    FAILS_T(ct_pad(x, CT_SHAPE(1, 1, 1), CT_PAD_CONSTANT, 0), RT, "Padding length must be divisible by 2");
    FAILS_T(ct_pad(x, CT_SHAPE(1, 1, 1, 1, 1, 1, 1, 1, 1, 1), CT_PAD_CONSTANT, 0), RT, "Padding length too large");
    FAILS_T(ct_pad(x, CT_SHAPE(1, 1), CT_PAD_REFLECT, 0), CT_ERR_NOT_IMPLEMENTED, nd);
    FAILS_T(ct_pad(x, CT_SHAPE(1, 1, 1, 1, 1, 1, 1, 1), CT_PAD_REFLECT, 0), CT_ERR_NOT_IMPLEMENTED, nd);
    FAILS_T(ct_pad(F(6), CT_SHAPE(1, 1), CT_PAD_REFLECT, 0), CT_ERR_NOT_IMPLEMENTED, nd);
    FAILS_T(ct_pad(x, CT_SHAPE(6, 6, 0, 0), CT_PAD_REFLECT, 0), RT,
            "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (6, 6) at dimension 3 of input 4");
    FAILS_T(ct_pad(x, CT_SHAPE(0, 0, 6, 6), CT_PAD_REFLECT, 0), RT,
            "Argument #6: Padding size should be less than the corresponding input dimension, but got: padding (6, 6) at dimension 2 of input 4");
    FAILS_T(ct_pad(F(2, 3, 4), CT_SHAPE(4, 0), CT_PAD_REFLECT, 0), RT,
            "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (4, 0) at dimension 2 of input [2, 3, 4]");
    FAILS_T(ct_pad(x, CT_SHAPE(7, 0, 0, 0), CT_PAD_CIRCULAR, 0), RT, "Padding value causes wrapping around more than once.");
    FAILS_T(ct_pad(F(2, 0, 3), CT_SHAPE(1, 1), CT_PAD_REPLICATE, 0), RT,
            "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: [2, 0, 3]");
    FAILS_T(ct_pad(F(2, 0, 3, 3), CT_SHAPE(1, 1, 1, 1), CT_PAD_REFLECT, 0), RT,
            "3D or 4D (batch mode) tensor expected for input, but got: [ torch.FloatTensor{2,0,3,3} ]");
    FAILS_T(ct_pad(x, CT_SHAPE(1, 1), (ct_pad_mode)7, 0), CT_ERR_NOT_IMPLEMENTED, "Unrecognised padding mode 7");
}

static void test_interpolate_shuffle(void)
{
    ct_tensor *x = F(2, 4, 6, 6);
    ct_interp_opts o = {0};
    FAILS_T(ct_interpolate(x, o), CT_ERR_VALUE, "either size or scale_factor should be defined");
    o.size = CT_SHAPE(3, 3);
    o.scale_factor[0] = 2;
    FAILS_T(ct_interpolate(x, o), CT_ERR_VALUE, "only one of size or scale_factor should be defined");
    o.scale_factor[0] = 0;
    o.size = CT_SHAPE(3, 3, 3);
    FAILS_T(ct_interpolate(x, o), CT_ERR_VALUE,
            "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of [6, 6] and "
            "output size of (3, 3, 3). Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
            "...,oK) format.");
    o.size = CT_SHAPE(3);
    o.mode = CT_INTERP_BILINEAR;
    FAILS_T(ct_interpolate(F(2, 3, 4), o), CT_ERR_NOT_IMPLEMENTED, "Got 3D input, but bilinear mode needs 4D input");
    o.mode = CT_INTERP_NEAREST;
    o.align_corners = true;
    FAILS_T(ct_interpolate(x, o), CT_ERR_VALUE,
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear");
    o.align_corners = false;
    o.size = CT_SHAPE(0);
    FAILS_T(ct_interpolate(x, o), RT, "Input and output sizes should be greater than 0, but got input (H: 6, W: 6) output (H: 0, W: 0)");
    o.size = CT_SHAPE(2);
    FAILS_T(ct_interpolate(F(3), o), CT_ERR_NOT_IMPLEMENTED,
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got 1D) for the modes: nearest | linear | bilinear | bicubic | "
            "trilinear | area | nearest-exact (got nearest)");

    FAILS_T(ct_pixel_shuffle(x, 3), RT,
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but "
            "input.size(-3)=4 is not divisible by 9");
    FAILS_T(ct_pixel_shuffle(F(4, 4), 2), RT, "pixel_shuffle expects input to have at least 3 dimensions, but got input with 2 dimension(s)");
    FAILS_T(ct_pixel_shuffle(x, 0), RT, "pixel_shuffle expects a positive upscale_factor, but got 0");
    FAILS_T(ct_pixel_unshuffle(x, 4), RT,
            "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=6 is not divisible by 4");
    FAILS_T(ct_pixel_unshuffle(x, 0), RT, "pixel_unshuffle expects a positive downscale_factor, but got 0");
}

int main(void)
{
    RUN(test_null_tensors);
    RUN(test_convolutions);
    RUN(test_pooling);
    RUN(test_fold);
    RUN(test_pad);
    RUN(test_interpolate_shuffle);
    return ct_test_report();
}
