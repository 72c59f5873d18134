/* Seed 002 (torch.optim.lr_scheduler.LambdaLR): the learning rate is the
 * initial one times a function of the epoch, one function per parameter
 * group. Before the first scheduler.step() the lr is 0.1 * (0 + 1)^2 = 0.1.
 * get_lr() and get_last_lr() agree here; ctorch has get_last_lr (printed
 * with %g, as Python prints these numbers). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

static double squared(int64_t e, void *user) { (void)user; return (double)((e + 1) * (e + 1)); } /* (x+1)**2 */
static double linear(int64_t e, void *user) { (void)user; return (double)(e + 1); }            /* x+1 */

static void print_lrs(const ct_lr_scheduler *s)
{
    double lrs[4];
    int n = ct_lr_scheduler_get_last_lr(s, lrs, 4);
    printf("[");
    for (int i = 0; i < n; i++) printf("%s%g", i ? ", " : "", lrs[i]);
    printf("]\n");
}

static void show(const char *before, const ct_tensor *a, const char *middle, const ct_tensor *b)
{
    char sa[256], sb[256];
    ct_to_string(a, sa, sizeof sa);
    ct_to_string(b, sb, sizeof sb);
    printf("%s%s%s%s\n", before, sa, middle, sb);
}

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *x = ct_from_array((float[]){1, 2}, CT_SHAPE(2), CT_F32); /* torch.tensor([1., 2.], requires_grad=True) */
    ct_requires_grad_(x, true);
    ct_optimizer *optimizer = ct_sgd(&x, 1, (ct_sgd_opts){.lr = 0.1}); /* SGD([x], 0.1) */
    ct_lr_lambda fn = squared;
    ct_lr_scheduler *scheduler = ct_lambda_lr(optimizer, &fn, NULL, 1);
    for (int i = 0; i < 3; i++) {
        ct_optim_zero_grad(optimizer, true);
        ct_backward(ct_sum(x), NULL, (ct_backward_opts){0}); /* torch.sum(x).backward() */
        show("before optimizer.step(), x.grad: ", ct_grad(x), ", x: ", x);
        ct_optim_step(optimizer);
        show("after optimizer.step(): x.grad, ", ct_grad(x), ", x: ", x);
        ct_lr_scheduler_step(scheduler);
        print_lrs(scheduler);
    }
    ct_lr_scheduler_free(scheduler);
    ct_optim_free(optimizer);

    /* SGD([{'params': [x], 'lr': 1}, {'params': [z], 'lr': 2}]) with a lambda per group */
    x = ct_from_array((float[]){1, 2}, CT_SHAPE(2), CT_F32);
    ct_tensor *z = ct_scalar_tensor(ct_float(3), CT_F32);
    ct_requires_grad_(x, true);
    ct_requires_grad_(z, true);
    optimizer = ct_sgd(&x, 1, (ct_sgd_opts){.lr = 1});
    ct_optim_add_param_group(optimizer, (ct_param_group){&z, 1, {{"lr", 2}}});
    ct_lr_lambda fns[2] = {squared, linear};
    scheduler = ct_lambda_lr(optimizer, fns, NULL, 2);
    print_lrs(scheduler);
    for (int i = 0; i < 2; i++) {
        ct_optim_zero_grad(optimizer, true);
        ct_backward(ct_add(ct_sum(x), z), NULL, (ct_backward_opts){0}); /* (torch.sum(x) + z).backward() */
        ct_optim_step(optimizer);
        ct_lr_scheduler_step(scheduler);
        print_lrs(scheduler);
    }
    ct_lr_scheduler_free(scheduler);
    ct_optim_free(optimizer);
    ct_scope_end(s);
    return 0;
}
