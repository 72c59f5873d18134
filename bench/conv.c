/* Convolution benchmarks: one training step (forward, backward, SGD with
 * momentum) of the LeNet-style CNN of examples/fashion_mnist.c at batch 64,
 * and conv2d alone, forward and forward+backward. bench/conv.py does the
 * same in PyTorch. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include "bench.h"

typedef struct step_ctx {
    ct_module *net;
    ct_optimizer *opt;
    ct_tensor *x, *y;
} step_ctx;

static void train_step(void *p)
{
    step_ctx *c = (step_ctx *)p;
    ct_scope s = ct_scope_begin();
    ct_optim_zero_grad(c->opt, true);
    ct_tensor *loss = ct_cross_entropy(ct_forward(c->net, c->x), c->y, ct_nll_loss_opts_init());
    ct_backward(loss, NULL, (ct_backward_opts){0});
    ct_optim_step(c->opt);
    ct_scope_end(s);
}

/* nn.Sequential(Conv2d(1, 6, 5, padding=2), ReLU(), MaxPool2d(2), Conv2d(6, 16, 5), ReLU(), MaxPool2d(2),
 *               Flatten(), Linear(400, 120), ReLU(), Linear(120, 84), ReLU(), Linear(84, 10)) */
static ct_module *lenet(void)
{
    const ct_conv_layer_opts pad2 = {.padding = CT_SHAPE(2)}, valid = {0};
    const ct_max_pool_opts pool = {0};
    ct_module *layers[] = {ct_nn_conv2d(1, 6, CT_SHAPE(5), pad2),   ct_nn_relu(), ct_nn_max_pool2d(CT_SHAPE(2), pool),
                           ct_nn_conv2d(6, 16, CT_SHAPE(5), valid), ct_nn_relu(), ct_nn_max_pool2d(CT_SHAPE(2), pool),
                           ct_nn_flatten(1, -1),
                           ct_nn_linear(400, 120, true),           ct_nn_relu(),
                           ct_nn_linear(120, 84, true),            ct_nn_relu(),
                           ct_nn_linear(84, 10, true)};
    return ct_nn_sequential(layers, 12);
}

typedef struct conv_ctx {
    ct_tensor *x, *w, *b;
    bool backward;
} conv_ctx;

static void conv_call(void *p)
{
    conv_ctx *c = (conv_ctx *)p;
    ct_scope s = ct_scope_begin();
    ct_tensor *y = ct_conv2d(c->x, c->w, c->b, (ct_conv_opts){0});
    if (c->backward) ct_backward(ct_sum(y), NULL, (ct_backward_opts){0});
    ct_scope_end(s);
}

static void bench_conv(const char *name, int64_t n, int64_t cin, int64_t hw, int64_t cout, int64_t k)
{
    conv_ctx c = {ct_keep(ct_randn(CT_SHAPE(n, cin, hw, hw), CT_F32, NULL)),
                  ct_keep(ct_randn(CT_SHAPE(cout, cin, k, k), CT_F32, NULL)),
                  ct_keep(ct_randn(CT_SHAPE(cout), CT_F32, NULL)), false};
    ct_requires_grad_(c.w, true);
    ct_requires_grad_(c.b, true);
    char label[96];
    snprintf(label, sizeof label, "conv2d_%s_forward", name);
    bench_report(label, bench_time(conv_call, &c));
    c.backward = true;
    snprintf(label, sizeof label, "conv2d_%s_forward_backward", name);
    bench_report(label, bench_time(conv_call, &c));
    ct_release(c.x), ct_release(c.w), ct_release(c.b);
}

int main(void)
{
    ct_manual_seed(0);
    step_ctx c = {lenet(), NULL, ct_keep(ct_randn(CT_SHAPE(64, 1, 28, 28), CT_F32, NULL)),
                  ct_keep(ct_randint(0, 10, CT_SHAPE(64), CT_I64, NULL))};
    ct_tensor_list ps = ct_module_parameters(c.net, true);
    c.opt = ct_sgd(ps.tensors, ps.n, (ct_sgd_opts){.lr = 0.01, .momentum = 0.9});
    bench_report("lenet_batch64_train_step", bench_time(train_step, &c));
    bench_conv("64x1x28x28_k5_6", 64, 1, 28, 6, 5);
    bench_conv("64x6x14x14_k5_16", 64, 6, 14, 16, 5);
    bench_conv("64x1x28x28_k5_16", 64, 1, 28, 16, 5);
    bench_conv("64x16x14x14_k5_32", 64, 16, 14, 32, 5);
    return 0;
}
