/* Seed 004 (creating tensors): from values, ranges, constant matrices,
 * fill_, random distributions, eye and diag. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_print(ct_from_array((float[]){1, 2, 3}, CT_SHAPE(3), CT_F32));             /* torch.tensor([1,2,3], dtype=torch.float) */
    ct_print(ct_arange(ct_int(1), ct_int(10), ct_int(2), CT_DEFAULT));            /* torch.arange(1, 10, step=2) */
    ct_print(ct_linspace(0.0, 2 * 3.14, 10, CT_DEFAULT));                         /* torch.linspace(0.0, 2*3.14, 10) */
    ct_print(ct_zeros(CT_SHAPE(3, 3), CT_DEFAULT));

    ct_tensor *a = ct_ones(CT_SHAPE(3, 3), CT_I32);                               /* dtype=torch.int */
    ct_tensor *b = ct_zeros_like(a, CT_F32);
    ct_print(a);
    ct_print(b);
    ct_fill_(b, ct_int(5));                                                        /* torch.fill_(b, 5) */
    ct_print(b);

    /* uniform: minval + (maxval - minval) * torch.rand([5]) */
    ct_manual_seed(0);
    int minval = 0, maxval = 10;
    ct_print(ct_add_scalar(ct_mul_scalar(ct_rand(CT_SHAPE(5), CT_DEFAULT, NULL), ct_int(maxval - minval)), ct_int(minval)));
    /* normal: torch.normal(mean=torch.zeros(3,3), std=torch.ones(3,3)) */
    ct_print(ct_normal(ct_zeros(CT_SHAPE(3, 3), CT_DEFAULT), ct_ones(CT_SHAPE(3, 3), CT_DEFAULT), NULL));
    /* std * torch.randn((3,3)) + mean */
    ct_print(ct_add_scalar(ct_mul_scalar(ct_randn(CT_SHAPE(3, 3), CT_DEFAULT, NULL), ct_int(5)), ct_int(2)));
    ct_print(ct_randperm(20, CT_DEFAULT, NULL));

    ct_print(ct_eye(3, 3, CT_DEFAULT));
    ct_print(ct_diag(ct_from_array((int64_t[]){1, 2, 3}, CT_SHAPE(3), CT_I64), 0));
    ct_scope_end(s);
    return 0;
}
