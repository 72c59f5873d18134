/* Seed 002 (torch.cuda.amp.GradScaler): scale(loss).backward() gives
 * gradients 65536 times too large; unscale_ divides them back, so that
 * clipping sees the true gradients; step skips the update after an inf/NaN
 * and update() adjusts the scale. The order is a state machine per
 * optimizer: unscale_ twice, or after step, is an error until update().
 * ctorch runs it on the CPU (PyTorch 1.13's is CUDA-only, so the Python
 * twin spells the same ops out). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

static void show(const ct_tensor *t, const char *rest)
{
    char buf[256];
    ct_to_string(t, buf, sizeof buf);
    printf("%s %s\n", buf, rest);
}

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_grad_scaler *scaler = ct_grad_scaler_new(ct_grad_scaler_opts_init()); /* GradScaler() */
    ct_tensor *params[2] = {ct_from_array((float[]){1, 2}, CT_SHAPE(2), CT_F32),
                            ct_from_array((float[]){2, 3}, CT_SHAPE(2), CT_F32)};
    ct_tensor *x = params[0], *z = params[1];
    ct_requires_grad_(x, true);
    ct_requires_grad_(z, true);
    ct_tensor *y = ct_add(ct_sum(x), ct_sum(z));
    ct_optimizer *opt = ct_sgd(params, 2, (ct_sgd_opts){.lr = 0.001});

    ct_backward(ct_grad_scaler_scale(scaler, y), NULL, (ct_backward_opts){0}); /* scaler.scale(y).backward() */
    char ybuf[128], scale[32];
    ct_to_string(y, ybuf, sizeof ybuf);
    show(ct_grad(x), ybuf);
    ct_grad_scaler_unscale_(scaler, opt);
    snprintf(scale, sizeof scale, "%.1f", ct_grad_scaler_get_scale(scaler));
    show(ct_grad(x), scale);
    ct_clip_grad_norm_(&x, 1, 1., 2, false); /* clip_grad_norm_(x, 1.) */
    ct_clip_grad_norm_(&z, 1, 1., 2, false);
    show(ct_grad(x), scale);
    ct_grad_scaler_step(scaler, opt, NULL);
    ct_print(x);
    ct_grad_scaler_update(scaler);

    ct_optim_free(opt);
    ct_grad_scaler_free(scaler);
    ct_scope_end(s);
    return 0;
}
