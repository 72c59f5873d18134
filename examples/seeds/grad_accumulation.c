/* Seed 004's gradient accumulation: a batch of 64 as two batches of 32, two
 * forward/backward passes (each loss divided by the number of passes), then
 * one optimizer step; the accumulated gradient is the whole batch's. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

int main(void)
{
    const ct_backward_opts plain = {false, false, NULL, 0};
    ct_scope s = ct_scope_begin();
    ct_manual_seed(0);
    ct_module *model = ct_nn_linear(4, 2, true); /* model = nn.Linear(4, 2) */
    ct_tensor_list params = ct_module_parameters(model, true);
    ct_optimizer *opt = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.1});
    ct_tensor *x = ct_randn(CT_SHAPE(64, 4), CT_F32, NULL), *y = ct_randn(CT_SHAPE(64, 2), CT_F32, NULL);
    ct_tensor *weight = ct_module_get_parameter(model, "weight");

    /* the whole batch: mse_loss(model(x), y).backward() */
    ct_backward(ct_mse_loss(ct_forward(model, x), y, CT_REDUCTION_MEAN), NULL, plain);
    ct_print(ct_grad(weight));
    ct_optim_zero_grad(opt, true);

    /* for xs, ys in zip(x.split(32), y.split(32)): (mse_loss(model(xs), ys) / accumulate).backward() */
    const int accumulate = 2;
    ct_tensor *xs[2], *ys[2];
    ct_split(x, 32, 0, xs, 2);
    ct_split(y, 32, 0, ys, 2);
    for (int i = 0; i < accumulate; i++) {
        ct_tensor *loss = ct_div_scalar(ct_mse_loss(ct_forward(model, xs[i]), ys[i], CT_REDUCTION_MEAN), ct_int(accumulate));
        ct_backward(loss, NULL, plain);
        ct_print(ct_detach(loss));
    }
    ct_print(ct_grad(weight));
    ct_optim_step(opt); /* one step for the two passes */
    ct_optim_zero_grad(opt, true);
    ct_print(ct_detach(weight));

    ct_optim_free(opt);
    ct_tensor_list_free(&params);
    ct_module_release(model);
    ct_scope_end(s);
    return 0;
}
