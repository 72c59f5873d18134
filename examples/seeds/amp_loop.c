/* Seed 002's AMP training loop on the CPU: autocast (bfloat16 on the CPU)
 * around the forward pass, then scaler.scale(loss).backward(), unscale_,
 * clip, step and update (amp_loop.py is its PyTorch twin). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

static const char *dtype_name(const ct_tensor *t) { return ct_dtype_of(t) == CT_BF16 ? "torch.bfloat16" : "torch.float32"; }

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_manual_seed(0);
    ct_module *layers[3] = {ct_nn_linear(4, 8, true), ct_nn_relu(), ct_nn_linear(8, 1, true)};
    ct_module *net = ct_nn_sequential(layers, 3);
    ct_tensor *data = ct_randn(CT_SHAPE(5, 16, 4), CT_F32, NULL), *targets = ct_randn(CT_SHAPE(5, 16, 1), CT_F32, NULL);
    ct_tensor_list params = ct_module_parameters(net, true);
    ct_optimizer *optimizer = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.1});
    ct_grad_scaler *scaler = ct_grad_scaler_new(ct_grad_scaler_opts_init());

    for (int step = 0; step < 5; step++) {
        ct_scope it = ct_scope_begin();
        ct_autocast_mode amp = ct_autocast(true, CT_BF16); /* with torch.autocast("cpu", dtype=torch.bfloat16): */
        ct_tensor *output = ct_forward(net, ct_select(data, 0, step));
        ct_tensor *loss = ct_mse_loss(output, ct_select(targets, 0, step), CT_REDUCTION_MEAN);
        ct_autocast_restore(amp);
        ct_backward(ct_grad_scaler_scale(scaler, loss), NULL, (ct_backward_opts){0});
        ct_grad_scaler_unscale_(scaler, optimizer);
        ct_tensor *norm = ct_clip_grad_norm_(params.tensors, params.n, 1.0, 2, false);
        ct_grad_scaler_step(scaler, optimizer, NULL);
        ct_grad_scaler_update(scaler);
        ct_optim_zero_grad(optimizer, false);
        printf("step %d: %s output, %s loss %.4f, grad norm %.4f\n", step, dtype_name(output), dtype_name(loss),
               ct_item(loss), ct_item(norm));
        ct_scope_end(it);
    }
    printf("%s ", dtype_name(params.tensors[2]));
    ct_print(ct_grad(params.tensors[2])); /* net[2].weight.grad */
    printf("Parameter containing:\n");
    ct_print(params.tensors[3]);           /* net[2].bias */

    ct_grad_scaler_free(scaler);
    ct_optim_free(optimizer);
    ct_tensor_list_free(&params);
    ct_module_release(net);
    ct_scope_end(s);
    return 0;
}
