/* Seed 002: a custom 2-D convolution as an autograd Function whose backward is
 * made of convolutions, checked by gradcheck (custom_conv2d.py is its PyTorch twin). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

static const ct_conv_opts plain_conv = {0};

/* convolution_backward(grad_out, X, weight): the gradients of X and weight */
static void convolution_backward(const ct_tensor *grad_out, const ct_tensor *X, const ct_tensor *weight,
                                 ct_tensor **grad_X, ct_tensor **grad_weight)
{
    /* F.conv2d(X.transpose(0, 1), grad_out.transpose(0, 1)).transpose(0, 1) */
    *grad_weight = ct_transpose(ct_conv2d(ct_transpose(X, 0, 1), ct_transpose(grad_out, 0, 1), NULL, plain_conv), 0, 1);
    *grad_X = ct_conv_transpose2d(grad_out, weight, NULL, plain_conv); /* F.conv_transpose2d(grad_out, weight) */
}

static ct_result conv_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    (void)n;
    ct_ctx_save_for_backward(ctx, in, 2); /* ctx.save_for_backward(X, weight) */
    out[0] = ct_conv2d(in[0], in[1], NULL, plain_conv);
    return out[0] ? CT_OK : ct_last_error_code();
}

static ct_result conv_backward(ct_function_ctx *ctx, ct_tensor *const *grad_out, ct_tensor **grad_in)
{
    convolution_backward(grad_out[0], ct_ctx_saved_tensor(ctx, 0), ct_ctx_saved_tensor(ctx, 1), &grad_in[0],
                         &grad_in[1]);
    return grad_in[0] && grad_in[1] ? CT_OK : ct_last_error_code();
}

/* class Conv2D(torch.autograd.Function), its backward @once_differentiable */
static const ct_function Conv2D = {"Conv2D", 1, conv_forward, conv_backward, true};

static int conv2d_apply(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    (void)user;
    return ct_function_apply(&Conv2D, in, n, out, NULL) == CT_OK ? 1 : -1;
}

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_manual_seed(0);
    ct_tensor *weight = ct_rand(CT_SHAPE(5, 3, 3, 3), CT_F64, NULL), *X = ct_rand(CT_SHAPE(10, 3, 7, 7), CT_F64, NULL);
    ct_tensor *in[2] = {X, weight};
    for (int i = 0; i < 2; i++) ct_requires_grad_(in[i], true);
    ct_result r = ct_gradcheck(conv2d_apply, in, 2, NULL, ct_gradcheck_opts_init());
    printf("%s\n", r == CT_OK ? "True" : ct_last_error());

    ct_tensor *y;
    ct_function_apply(&Conv2D, in, 2, &y, NULL);
    printf("%s (%lld, %lld, %lld, %lld)\n", ct_node_name(ct_grad_fn(y)), (long long)ct_size(y, 0),
           (long long)ct_size(y, 1), (long long)ct_size(y, 2), (long long)ct_size(y, 3));
    ct_backward(ct_sum(y), NULL, (ct_backward_opts){0});
    ct_print(ct_index(ct_grad(weight), "0, 0"));  /* weight.grad[0, 0] */
    ct_print(ct_index(ct_grad(X), "0, 0, :2"));    /* X.grad[0, 0, :2] */
    ct_scope_end(s);
    return 0;
}
