/* Seed 002 (torch.std and torch.var; torch.nn.functional.normalize): std and
 * var are unbiased estimates, dividing by d - 1, unless told otherwise;
 * normalize divides by the 2-norm along dim 1 by default. The seed's
 * normalize(torch.tensor([[6, 8]])) is an integer tensor, which PyTorch
 * refuses; the same values as floats give the seed's [[0.6, 0.8]]. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *x = ct_from_array((float[]){2, 4, 4, 4, 5, 5, 7, 9}, CT_SHAPE(8), CT_F32);
    int64_t d = ct_size(x, 0);                                                   /* d = x.shape[0] */
    ct_tensor *squares = ct_sum(ct_pow_scalar(ct_sub(x, ct_mean(x)), ct_int(2))); /* ((x - x.mean()) ** 2).sum() */
    ct_print(ct_std(x));                                                         /* torch.std(x) */
    ct_print(ct_sqrt(ct_div_scalar(squares, ct_int(d - 1))));                    /* torch.sqrt(squares / (d - 1)) */
    ct_print(ct_var(x));                                                         /* torch.var(x) */
    ct_print(ct_div_scalar(squares, ct_int(d - 1)));                             /* squares / (d - 1) */
    ct_print(ct_std_dim(x, CT_SHAPE0, 0, false));                                /* torch.std(x, unbiased=False) */
    ct_print(ct_var_dim(x, CT_SHAPE0, 0, false));                                /* torch.var(x, unbiased=False) */
    ct_print(ct_div_scalar(ct_mul_scalar(ct_var(x), ct_int(d - 1)), ct_int(d))); /* torch.var(x) * (d - 1) / d */

    ct_tensor *ints = ct_from_array((int64_t[]){6, 8}, CT_SHAPE(1, 2), CT_I64);  /* torch.tensor([[6, 8]]) */
    if (!ct_normalize(ints, 2, 1, 1e-12)) printf("RuntimeError: %s\n", ct_last_error());
    ct_clear_error();
    ct_print(ct_normalize(ct_from_array((float[]){6, 8}, CT_SHAPE(1, 2), CT_F32), 2, 1, 1e-12)); /* normalize(torch.tensor([[6.0, 8.0]])) */
    ct_tensor *rows = ct_from_array((float[]){6, 8, 0, 0}, CT_SHAPE(2, 2), CT_F32); /* torch.tensor([[6.0, 8.0], [0.0, 0.0]]) */
    ct_print(ct_normalize(rows, 2, 1, 1e-12));                                   /* a row of zeros stays zeros (eps) */
    ct_print(ct_normalize(rows, 1, 0, 1e-12));                                   /* normalize(rows, p=1, dim=0) */
    ct_scope_end(s);
    return 0;
}
