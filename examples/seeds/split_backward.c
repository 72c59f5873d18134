/* Seed 002 (splitting backward in two): backward through step2 from a
 * detached copy y1 of step1's output, then y.backward(y1.grad), gives w the
 * same gradient as one backward through both steps. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

static ct_tensor *w;

static ct_tensor *step1(const ct_tensor *x) { return ct_matmul(w, x); } /* torch.matmul(w, x) */
static ct_tensor *step2(const ct_tensor *x) { return ct_sum(x); }       /* torch.sum(x) */
static ct_tensor *end2end(const ct_tensor *x) { return step2(step1(x)); }

static void new_w(void)
{
    w = ct_from_array((float[]){1, 2}, CT_SHAPE(2), CT_F32); /* w = torch.tensor([1., 2.], requires_grad=True) */
    ct_requires_grad_(w, true);
}

int main(void)
{
    const ct_backward_opts plain = {false, false, NULL, 0};
    ct_scope s = ct_scope_begin();
    new_w();
    ct_tensor *x = ct_from_array((float[]){3, 4}, CT_SHAPE(2), CT_F32); /* x = torch.tensor([3., 4.]) */
    ct_backward(end2end(x), NULL, plain);                               /* end2end(x).backward() */
    ct_print(ct_grad(w));

    new_w();
    ct_tensor *y = step1(x);
    ct_tensor *y1 = ct_detach(ct_clone(y)); /* y1 = y.clone().detach().requires_grad_(True) */
    ct_requires_grad_(y1, true);
    ct_backward(step2(y1), NULL, plain);    /* step2(y1).backward() */
    ct_print(ct_grad(y1));
    ct_backward(y, ct_grad(y1), plain);     /* y.backward(y1.grad) */
    ct_print(ct_grad(w));
    ct_scope_end(s);
    return 0;
}
