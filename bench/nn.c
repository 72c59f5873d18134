/* One training step (zero_grad, forward, loss, backward, SGD step) of seed
 * 004's ToyModel (Linear(10, 10), ReLU, Linear(10, 5), MSE) at batch 20 and
 * of an MLP 784-256-128-10 with cross-entropy at batch 8 and 64: what a
 * small model's step costs (issue target: at least 2x PyTorch's steps/s). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include "bench.h"

typedef struct step_case {
    ct_module *model;
    ct_optimizer *opt;
    ct_tensor *x, *y;
    bool classify; /* cross-entropy on class indices, else MSE */
} step_case;

static void train_step(void *p)
{
    step_case *c = (step_case *)p;
    ct_scope s = ct_scope_begin();
    ct_optim_zero_grad(c->opt, true);
    ct_tensor *out = ct_forward(c->model, c->x);
    ct_tensor *loss = c->classify ? ct_cross_entropy(out, c->y, ct_nll_loss_opts_init())
                                  : ct_mse_loss(out, c->y, CT_REDUCTION_MEAN);
    ct_backward(loss, NULL, (ct_backward_opts){0});
    ct_optim_step(c->opt);
    ct_scope_end(s);
}

/* Times train_step on a Sequential of n layers; the case owns what it is given. */
static void run(const char *name, ct_module **layers, int n, ct_tensor *x, ct_tensor *y, bool classify)
{
    step_case c = {ct_nn_sequential(layers, n), NULL, x, y, classify};
    ct_tensor_list params = ct_module_parameters(c.model, true);
    c.opt = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.01, .momentum = 0.9});
    bench_report(name, bench_time(train_step, &c));
    ct_optim_free(c.opt);
    ct_tensor_list_free(&params);
    ct_module_release(c.model);
    ct_release(x);
    ct_release(y);
}

int main(void)
{
    ct_manual_seed(0);
    ct_module *toy[3] = {ct_nn_linear(10, 10, true), ct_nn_relu(), ct_nn_linear(10, 5, true)};
    run("toymodel_batch20_step", toy, 3, ct_randn(CT_SHAPE(20, 10), CT_F32, NULL), ct_randn(CT_SHAPE(20, 5), CT_F32, NULL),
        false);
    for (int b = 8; b <= 64; b *= 8) {
        char name[64];
        snprintf(name, sizeof name, "mlp_784_256_128_10_batch%d_step", b);
        ct_module *mlp[5] = {ct_nn_linear(784, 256, true), ct_nn_relu(), ct_nn_linear(256, 128, true), ct_nn_relu(),
                             ct_nn_linear(128, 10, true)};
        run(name, mlp, 5, ct_randn(CT_SHAPE(b, 784), CT_F32, NULL),
            ct_randint(0, 10, CT_SHAPE(b), CT_I64, NULL), true);
    }
    return 0;
}
