/* Autograd overhead: a chain of 1000 small ops recorded and run backward,
 * and the same chain with grad mode off, on 16-element float32 tensors
 * (what the graph costs per op, not the arithmetic). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include "bench.h"

#define CHAIN 1000

typedef struct args {
    ct_tensor *x;
    bool backward;
} args;

/* y = x, then y = tanh(y * 0.9 + 0.1) repeated: CHAIN ops in all (and a sum) */
static void chain(void *p)
{
    args *a = (args *)p;
    ct_scope s = ct_scope_begin();
    ct_tensor *y = a->x;
    for (int i = 0; i < CHAIN / 2; i++) y = ct_tanh(ct_add_scalar(ct_mul_scalar(y, ct_float(0.9)), ct_float(0.1)));
    if (a->backward) {
        ct_backward_opts plain = {false, false, NULL, 0};
        ct_backward(ct_sum(y), NULL, plain);
        ct_set_grad(a->x, NULL);
    }
    ct_scope_end(s);
}

int main(void)
{
    args a = {ct_keep(ct_randn(CT_SHAPE(16), CT_F32, NULL)), false};
    ct_requires_grad_(a.x, true);
    ct_grad_mode mode = ct_no_grad();
    bench_report("chain1000_forward_no_grad", bench_time(chain, &a));
    ct_grad_mode_restore(mode);
    bench_report("chain1000_forward_recorded", bench_time(chain, &a));
    a.backward = true;
    bench_report("chain1000_forward_backward", bench_time(chain, &a));
    return 0;
}
