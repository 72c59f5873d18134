/* Seed 002 (gradient penalty): each step takes the parameters' gradients
 * with torch.autograd.grad(create_graph=True), which leaves .grad alone, adds
 * their norm to the loss, and backward through both fills .grad; then a
 * plain SGD step (lr 0.1) on a linear model. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

static void print_grad(const ct_tensor *t)
{
    ct_tensor *g = ct_grad(t);
    if (g) ct_print(g);
    else printf("None");
}

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *w = ct_from_array((float[]){0.5f, -0.2f, 0.1f, 0.3f, 0.8f, -0.5f}, CT_SHAPE(2, 3), CT_F32);
    ct_tensor *b = ct_from_array((float[]){0.1f, -0.1f}, CT_SHAPE(2), CT_F32);
    ct_tensor *params[2] = {w, b};
    ct_requires_grad_(w, true);
    ct_requires_grad_(b, true);
    ct_tensor *inputs[2] = {ct_from_array((float[]){1, 2, 3, 0.5f, -1, 2}, CT_SHAPE(2, 3), CT_F32),
                            ct_from_array((float[]){-1, 0.5f, 1.5f, 2, 1, -0.5f}, CT_SHAPE(2, 3), CT_F32)};
    ct_tensor *targets[2] = {ct_from_array((float[]){1, 0, 0, 1}, CT_SHAPE(2, 2), CT_F32),
                             ct_from_array((float[]){0.5f, 0.5f, 1, -1}, CT_SHAPE(2, 2), CT_F32)};
    for (int epoch = 0; epoch < 3; epoch++) {
        for (int i = 0; i < 2; i++) {
            ct_scope step = ct_scope_begin();
            for (int k = 0; k < 2; k++) ct_set_grad(params[k], NULL); /* optimizer.zero_grad() */
            ct_tensor *output = ct_add(ct_matmul(inputs[i], ct_t(w)), b);
            ct_tensor *loss = ct_mean(ct_pow_scalar(ct_sub(output, targets[i]), ct_int(2)));
            ct_tensor *grad_params[2];
            ct_grad_opts create_graph = {true, true, false};
            ct_autograd_grad((const ct_tensor *const *)&loss, 1, (const ct_tensor *const *)params, 2, NULL,
                             grad_params, create_graph);
            print_grad(w);
            printf(" ");
            print_grad(b);
            printf("\n");
            ct_tensor *grad_norm = ct_scalar_tensor(ct_int(0), CT_I64); /* grad_norm = 0 */
            for (int k = 0; k < 2; k++) grad_norm = ct_add(grad_norm, ct_sum(ct_pow_scalar(grad_params[k], ct_int(2))));
            grad_norm = ct_sqrt(grad_norm);
            loss = ct_add(loss, grad_norm);
            ct_backward(loss, NULL, (ct_backward_opts){false, false, NULL, 0});
            ct_print(loss);
            ct_print(ct_grad(w));
            ct_print(ct_grad(b));
            ct_grad_mode mode = ct_no_grad(); /* optimizer.step(): p -= 0.1 * p.grad */
            for (int k = 0; k < 2; k++) ct_sub_(params[k], ct_mul_scalar(ct_grad(params[k]), ct_float(0.1)));
            ct_grad_mode_restore(mode);
            ct_scope_end(step);
        }
    }
    ct_print(w);
    ct_print(b);
    ct_scope_end(s);
    return 0;
}
