/* Public convolution and pooling API (torch.nn.functional): convolutions and
 * transposed convolutions, max/average/adaptive pooling, im2col and col2im
 * (F.unfold and F.fold), padding, interpolation and pixel shuffling.
 *
 * Inputs are batched (N, C, spatial...) or, where PyTorch accepts it,
 * unbatched (C, spatial...); float32 or float64. Window arguments are
 * ct_shape lists: an empty list takes the default, one value applies to
 * every spatial dim, as an int does in PyTorch. Every function records its
 * backward under PyTorch's node name, and each backward is differentiable. */

/* Options of the convolutions; all zero means PyTorch's defaults. */
typedef struct ct_conv_opts {
    ct_shape stride;         /* empty: 1 */
    ct_shape padding;        /* empty: 0 */
    const char *padding_str; /* "same" or "valid" in place of padding (not for transposed convolutions) */
    ct_shape dilation;       /* empty: 1 */
    int64_t groups;          /* 0: 1 */
    ct_shape output_padding; /* transposed convolutions only; empty: 0 */
} ct_conv_opts;

/* F.conv1d / F.conv2d / F.conv3d(input, weight, bias, stride, padding,
 * dilation, groups). weight: (out_channels, in_channels / groups, kernel...);
 * bias (out_channels) or NULL. */
CTORCH_API ct_tensor *ct_conv1d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts);
CTORCH_API ct_tensor *ct_conv2d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts);
CTORCH_API ct_tensor *ct_conv3d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts);
/* F.conv_transpose1d / F.conv_transpose2d(input, weight, bias, stride,
 * padding, output_padding, groups, dilation). weight: (in_channels,
 * out_channels / groups, kernel...). */
CTORCH_API ct_tensor *ct_conv_transpose1d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias,
                                          ct_conv_opts opts);
CTORCH_API ct_tensor *ct_conv_transpose2d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias,
                                          ct_conv_opts opts);

/* Options of max pooling; all zero means PyTorch's defaults. */
typedef struct ct_max_pool_opts {
    ct_shape stride;   /* empty: kernel_size */
    ct_shape padding;  /* empty: 0 (padded places never win) */
    ct_shape dilation; /* empty: 1 */
    bool ceil_mode;    /* the last window may start in the right padding */
} ct_max_pool_opts;

/* F.max_pool1d / F.max_pool2d(input, kernel_size, stride, padding, dilation,
 * ceil_mode). NaN wins. */
CTORCH_API ct_tensor *ct_max_pool1d(const ct_tensor *input, ct_shape kernel_size, ct_max_pool_opts opts);
CTORCH_API ct_tensor *ct_max_pool2d(const ct_tensor *input, ct_shape kernel_size, ct_max_pool_opts opts);
/* The same with return_indices=True: *indices (int64, the flat position of
 * each maximum within its input plane) as well; NULL on failure. */
CTORCH_API ct_tensor *ct_max_pool1d_with_indices(const ct_tensor *input, ct_shape kernel_size, ct_max_pool_opts opts,
                                                 ct_tensor **indices);
CTORCH_API ct_tensor *ct_max_pool2d_with_indices(const ct_tensor *input, ct_shape kernel_size, ct_max_pool_opts opts,
                                                 ct_tensor **indices);

/* Options of average pooling: start from ct_avg_pool_opts_init()
 * (count_include_pad true, PyTorch's default). */
typedef struct ct_avg_pool_opts {
    ct_shape stride;          /* empty: kernel_size */
    ct_shape padding;         /* empty: 0 */
    bool ceil_mode;
    bool count_include_pad;   /* padded zeros count in the divisor */
    int64_t divisor_override; /* 0: none (avg_pool2d only) */
} ct_avg_pool_opts;
CTORCH_API ct_avg_pool_opts ct_avg_pool_opts_init(void);

/* F.avg_pool1d / F.avg_pool2d(input, kernel_size, stride, padding,
 * ceil_mode, count_include_pad[, divisor_override]). */
CTORCH_API ct_tensor *ct_avg_pool1d(const ct_tensor *input, ct_shape kernel_size, ct_avg_pool_opts opts);
CTORCH_API ct_tensor *ct_avg_pool2d(const ct_tensor *input, ct_shape kernel_size, ct_avg_pool_opts opts);

/* F.adaptive_avg_pool2d(input, output_size) and F.adaptive_max_pool2d(input,
 * output_size, return_indices): window i of a dim of size n spans
 * [floor(i*n/out), ceil((i+1)*n/out)). indices may be NULL. */
CTORCH_API ct_tensor *ct_adaptive_avg_pool2d(const ct_tensor *input, ct_shape output_size);
CTORCH_API ct_tensor *ct_adaptive_max_pool2d(const ct_tensor *input, ct_shape output_size, ct_tensor **indices);

/* Options of im2col and col2im; all zero means PyTorch's defaults. */
typedef struct ct_fold_opts {
    ct_shape dilation; /* empty: 1 */
    ct_shape padding;  /* empty: 0 */
    ct_shape stride;   /* empty: 1 */
} ct_fold_opts;

/* F.unfold(input, kernel_size, dilation, padding, stride) (im2col): the
 * sliding blocks of a (N, C, H, W) or (C, H, W) input as columns,
 * (N, C * kh * kw, L). */
CTORCH_API ct_tensor *ct_im2col(const ct_tensor *input, ct_shape kernel_size, ct_fold_opts opts);
/* F.fold(input, output_size, kernel_size, dilation, padding, stride)
 * (col2im): columns (N, C * kh * kw, L) or (C * kh * kw, L) summed back into
 * (N, C, H, W) images; overlapping places add up. */
CTORCH_API ct_tensor *ct_col2im(const ct_tensor *input, ct_shape output_size, ct_shape kernel_size, ct_fold_opts opts);

/* The modes of F.pad. */
typedef enum ct_pad_mode { CT_PAD_CONSTANT = 0, CT_PAD_REFLECT, CT_PAD_REPLICATE, CT_PAD_CIRCULAR } ct_pad_mode;

/* F.pad(input, pad, mode, value): pad holds (left, right) pairs from the last
 * dim backwards. Constant padding may be negative (it crops); the other
 * modes pad the last 1 or 2 dims of a (C, ...) or (N, C, ...) input. */
CTORCH_API ct_tensor *ct_pad(const ct_tensor *input, ct_shape pad, ct_pad_mode mode, double value);

/* The modes of F.interpolate. */
typedef enum ct_interp_mode { CT_INTERP_NEAREST = 0, CT_INTERP_BILINEAR } ct_interp_mode;

/* Options of F.interpolate: size or scale_factor (not both). */
typedef struct ct_interp_opts {
    ct_shape size;          /* the output's spatial size; one value applies to each dim */
    double scale_factor[3]; /* zero: unset; only the first set: applies to each dim */
    ct_interp_mode mode;    /* nearest (1-D or 2-D) or bilinear (2-D) */
    bool align_corners;     /* bilinear only */
} ct_interp_opts;

/* F.interpolate(input, size, scale_factor, mode, align_corners) for
 * (N, C, W) and (N, C, H, W) inputs. */
CTORCH_API ct_tensor *ct_interpolate(const ct_tensor *input, ct_interp_opts opts);

/* F.pixel_shuffle(input, r): (*, C * r^2, H, W) to (*, C, H * r, W * r), and
 * F.pixel_unshuffle, its inverse. */
CTORCH_API ct_tensor *ct_pixel_shuffle(const ct_tensor *input, int64_t upscale_factor);
CTORCH_API ct_tensor *ct_pixel_unshuffle(const ct_tensor *input, int64_t downscale_factor);

/* F.conv_transpose3d(input, weight, bias, stride, padding, output_padding,
 * groups, dilation): input (N, C_in, D, H, W) or unbatched (C_in, D, H, W),
 * weight (C_in, C_out / groups, kD, kH, kW), bias (C_out) or NULL; the same
 * GEMM + col2im as conv_transpose1d/2d, recording ConvolutionBackward0. */
CTORCH_API ct_tensor *ct_conv_transpose3d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias,
                                          ct_conv_opts opts);
