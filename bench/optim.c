/* One optimizer step over 10M float32 parameters (one tensor, gradient
 * set): SGD with momentum and AdamW, the update loops alone. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include "bench.h"

static void step(void *opt) { ct_optim_step((ct_optimizer *)opt); }

int main(void)
{
    ct_manual_seed(0);
    ct_tensor *p = ct_randn(CT_SHAPE(10000000), CT_F32, NULL);
    ct_requires_grad_(p, true);
    ct_set_grad(p, ct_randn(CT_SHAPE(10000000), CT_F32, NULL));
    ct_optimizer *sgd = ct_sgd(&p, 1, (ct_sgd_opts){.lr = 1e-3, .momentum = 0.9});
    bench_report("sgd_momentum_10M_step", bench_time(step, sgd));
    ct_optim_free(sgd);
    ct_adam_opts o = ct_adamw_opts_init();
    o.lr = 1e-3;
    ct_optimizer *adamw = ct_adamw(&p, 1, o);
    bench_report("adamw_10M_step", bench_time(step, adamw));
    ct_optim_free(adamw);
    return 0;
}
