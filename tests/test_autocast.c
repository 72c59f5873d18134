/* Autocast on the CPU (torch.autocast("cpu")): which ops cast to bfloat16,
 * which to float32, which promote, the graph the casts leave, the weight
 * cache and the region's state. Expected values from PyTorch 1.13. */
#include "harness.h"

static ct_tensor *arange_f32(ct_shape shape, double divisor)
{
    int64_t n = 1;
    for (int i = 0; i < shape.ndim; i++) n *= shape.size[i];
    return ct_view(ct_div_scalar(ct_arange(ct_int(0), ct_int(n), ct_int(1), CT_F32), ct_float(divisor)), shape);
}

static const char *next_name(const ct_tensor *t, int i)
{
    return ct_node_name(ct_node_next(ct_grad_fn(t), i, NULL));
}

/* x = arange(6)/7 (2, 3); w = arange(12)/11 (3, 4), requires grad;
 * with autocast: y = x @ w; loss = mse_loss(y, zeros); then loss.backward().
 * A bfloat16 product accumulates in float32 and rounds once, as PyTorch's
 * oneDNN kernel and PyTorch 2 do (1.13's reference CPU kernel rounds after
 * every multiply-add: its y[0] is 0.2578125), so the expected values are
 * PyTorch's float32 ops on the same bfloat16 operands:
 * y = (x.bfloat16().float() @ w.bfloat16().float()).bfloat16(). */
static void test_matmul_in_bfloat16_loss_in_float32(void)
{
    ct_tensor *x = arange_f32(CT_SHAPE(2, 3), 7), *w = arange_f32(CT_SHAPE(3, 4), 11);
    ct_requires_grad_(w, true);
    ct_autocast_mode m = ct_autocast(true, CT_BF16);
    CHECK(ct_is_autocast_enabled() && ct_get_autocast_dtype() == CT_BF16);
    ct_tensor *y = ct_mm(x, w);
    ct_tensor *loss = ct_mse_loss(y, ct_zeros(CT_SHAPE(2, 4), CT_F32), CT_REDUCTION_MEAN);
    ct_autocast_restore(m);
    CHECK(!ct_is_autocast_enabled());
    CHECK(ct_dtype_of(y) == CT_BF16 && ct_dtype_of(loss) == CT_F32);
    CHECK_STR(ct_node_name(ct_grad_fn(y)), "MmBackward0");
    CHECK(ct_node_next(ct_grad_fn(y), 0, NULL) == NULL); /* x needs no grad: its cast is not recorded */
    CHECK_STR(next_name(y, 1), "ToCopyBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(loss)), "MseLossBackward0");
    CHECK_STR(next_name(loss, 0), "ToCopyBackward0");
    CHECK_VALUES(y, CT_SHAPE(2, 4), 0.259765625, 0.296875, 0.337890625, 0.375, 0.7265625, 0.8828125, 1.0390625, 1.1953125);
    CHECK_VALUES(loss, CT_SHAPE0, 0.5282602310180664);
    CHECK_OK(ct_backward(loss, NULL, (ct_backward_opts){0}));
    CHECK(ct_dtype_of(ct_grad(w)) == CT_F32);
    CHECK_VALUES(ct_grad(w), CT_SHAPE(3, 4), 0.07763671875, 0.09423828125, 0.111328125, 0.1279296875, 0.11279296875,
                 0.13671875, 0.16015625, 0.18359375, 0.1484375, 0.1787109375, 0.2099609375, 0.240234375);
}

/* Each list's members, and ops on no list, with float32 and bfloat16 inputs. */
static void test_op_lists(void)
{
    ct_tensor *f = arange_f32(CT_SHAPE(2, 2), 3), *b = ct_to(f, CT_BF16), *d = ct_to(f, CT_F64);
    ct_tensor *img = arange_f32(CT_SHAPE(1, 1, 3, 3), 5), *k = arange_f32(CT_SHAPE(1, 1, 2, 2), 4);
    ct_tensor *fb[2] = {f, b}, *bb[2] = {b, b};
    ct_autocast_mode m = ct_autocast(true, CT_DEFAULT);
    /* lower precision */
    CHECK(ct_dtype_of(ct_matmul(f, f)) == CT_BF16);
    CHECK(ct_dtype_of(ct_mm(b, f)) == CT_BF16);
    CHECK(ct_dtype_of(ct_bmm(ct_unsqueeze(f, 0), ct_unsqueeze(f, 0))) == CT_BF16);
    CHECK(ct_dtype_of(ct_addmm(f, f, f, ct_addmm_opts_init())) == CT_BF16);
    CHECK(ct_dtype_of(ct_linear(f, f, NULL)) == CT_BF16);
    CHECK(ct_dtype_of(ct_conv2d(img, k, NULL, (ct_conv_opts){0})) == CT_BF16);
    CHECK(ct_dtype_of(ct_mm(d, d)) == CT_F64); /* float64 is never cast */
    CHECK(ct_dtype_of(ct_mv(f, ct_select(f, 0, 0))) == CT_F32); /* mv is on no list */
    CHECK(ct_dtype_of(ct_conv_transpose2d(img, k, NULL, (ct_conv_opts){0})) == CT_F32);
    /* float32 */
    CHECK(ct_dtype_of(ct_prod(b)) == CT_F32);
    CHECK(ct_dtype_of(ct_trace(b)) == CT_F32);
    CHECK(ct_dtype_of(ct_l1_loss(b, b, CT_REDUCTION_MEAN)) == CT_F32);
    CHECK(ct_dtype_of(ct_pad(ct_unsqueeze(b, 0), CT_SHAPE(1, 1), CT_PAD_REFLECT, 0)) == CT_F32);
    CHECK(ct_dtype_of(ct_pad(b, CT_SHAPE(1, 1), CT_PAD_CONSTANT, 0)) == CT_BF16);
    ct_tensor *Q, *R;
    CHECK_OK(ct_linalg_qr(b, CT_QR_REDUCED, &Q, &R));
    CHECK(ct_dtype_of(Q) == CT_F32 && ct_dtype_of(R) == CT_F32);
    /* the widest input */
    CHECK(ct_dtype_of(ct_cat(fb, 2, 0)) == CT_F32);
    CHECK(ct_dtype_of(ct_stack(bb, 2, 0)) == CT_BF16);
    /* on no list */
    CHECK(ct_dtype_of(ct_softmax(b, 0, CT_DEFAULT)) == CT_BF16);
    CHECK(ct_dtype_of(ct_add(b, f)) == CT_F32);
    ct_autocast_mode off = ct_autocast(false, CT_BF16); /* a nested region turns it off */
    CHECK(ct_dtype_of(ct_mm(f, f)) == CT_F32 && !ct_is_autocast_enabled());
    ct_autocast_restore(off);
    CHECK(ct_dtype_of(ct_mm(f, f)) == CT_BF16);
    ct_autocast_restore(m);
    CHECK(ct_dtype_of(ct_mm(f, f)) == CT_F32);
}

/* A weight (leaf requiring grad) is cast once per outermost region. */
static void test_weight_casts_are_cached(void)
{
    ct_tensor *x = arange_f32(CT_SHAPE(2, 2), 3), *w = arange_f32(CT_SHAPE(2, 2), 5);
    ct_requires_grad_(w, true);
    ct_requires_grad_(x, true);
    ct_tensor *h = ct_mul_scalar(x, ct_int(2)); /* not a leaf: cast every time */
    ct_autocast_mode m = ct_autocast(true, CT_BF16);
    ct_tensor *y1 = ct_mm(h, w), *y2 = ct_mm(h, w);
    ct_autocast_mode inner = ct_autocast(true, CT_BF16);
    ct_tensor *y3 = ct_mm(h, w);
    ct_autocast_restore(inner); /* not the outermost: the cache stays */
    ct_tensor *y4 = ct_mm(h, w);
    ct_autocast_restore(m);
    m = ct_autocast(true, CT_BF16);
    ct_tensor *y5 = ct_mm(h, w);
    ct_autocast_restore(m);
    const ct_node *w1 = ct_node_next(ct_grad_fn(y1), 1, NULL);
    CHECK(w1 == ct_node_next(ct_grad_fn(y2), 1, NULL) && w1 == ct_node_next(ct_grad_fn(y3), 1, NULL));
    CHECK(w1 == ct_node_next(ct_grad_fn(y4), 1, NULL) && w1 != ct_node_next(ct_grad_fn(y5), 1, NULL));
    CHECK(ct_node_next(ct_grad_fn(y1), 0, NULL) != ct_node_next(ct_grad_fn(y2), 0, NULL));
    CHECK_OK(ct_backward(ct_sum(ct_add(y1, y2)), NULL, (ct_backward_opts){0}));
    CHECK(ct_dtype_of(ct_grad(w)) == CT_F32 && ct_dtype_of(ct_grad(x)) == CT_F32);
}

static void test_only_bfloat16_on_the_cpu(void)
{
    ct_autocast_mode m = ct_autocast(true, CT_F16);
    CHECK_ERR(NULL, CT_ERR_RUNTIME, "Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype");
    CHECK(!ct_is_autocast_enabled());
    ct_autocast_restore(m);
    ct_clear_error();
    ct_tensor *h = ct_ones(CT_SHAPE(2), CT_F16), *b = ct_ones(CT_SHAPE(2), CT_BF16), *hb[2] = {h, b};
    m = ct_autocast(true, CT_BF16);
    CHECK_ERR(ct_cat(hb, 2, 0), CT_ERR_RUNTIME, "Unexpected floating ScalarType in at::autocast::prioritize");
    ct_autocast_restore(m);
}

int main(void)
{
    RUN(test_matmul_in_bfloat16_loss_in_float32);
    RUN(test_op_lists);
    RUN(test_weight_casts_are_cached);
    RUN(test_only_bfloat16_on_the_cpu);
    return ct_test_report();
}
