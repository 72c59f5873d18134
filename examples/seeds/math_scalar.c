/* Seed 004 (scalar operations): the operators, which work element by element,
 * then rounding, remainders and clamping. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *a = ct_from_array((float[]){1, 2, -3, 4}, CT_SHAPE(2, 2), CT_F32);     /* torch.tensor([[1.0,2],[-3,4.0]]) */
    ct_tensor *b = ct_from_array((float[]){5, 6, 7, 8}, CT_SHAPE(2, 2), CT_F32);      /* torch.tensor([[5.0,6],[7.0,8.0]]) */
    ct_print(ct_add(a, b));                                                           /* a + b */
    ct_print(ct_sub(a, b));                                                           /* a - b */
    ct_print(ct_mul(a, b));                                                           /* a * b */
    ct_print(ct_div(a, b));                                                           /* a / b */
    ct_print(ct_pow_scalar(a, ct_int(2)));                                            /* a ** 2 */
    ct_print(ct_pow_scalar(a, ct_float(0.5)));                                        /* a ** 0.5 */
    ct_print(ct_remainder_scalar(a, ct_int(3)));                                      /* a % 3 */
    ct_print(ct_floor_divide_scalar(a, ct_int(3)));                                   /* a // 3 */
    ct_print(ct_ge_scalar(a, ct_int(2)));                                             /* a >= 2 */
    ct_print(ct_bitwise_and(ct_ge_scalar(a, ct_int(2)), ct_le_scalar(a, ct_int(3)))); /* (a >= 2) & (a <= 3) */
    ct_print(ct_eq_scalar(a, ct_int(5)));                                             /* a == 5 */
    ct_print(ct_sqrt(a));                                                             /* torch.sqrt(a) */
    ct_print(ct_maximum(a, b));                                                       /* torch.max(a, b) */
    ct_print(ct_minimum(a, b));                                                       /* torch.min(a, b) */

    ct_tensor *x = ct_from_array((float[]){2.6f, -2.7f}, CT_SHAPE(2), CT_F32);        /* torch.tensor([2.6,-2.7]) */
    ct_print(ct_round(x));                                                            /* to nearest */
    ct_print(ct_floor(x));                                                            /* down */
    ct_print(ct_ceil(x));                                                             /* up */
    ct_print(ct_trunc(x));                                                            /* toward zero */
    ct_print(ct_fmod_scalar(x, ct_int(2)));                                           /* torch.fmod(x,2): the sign of x */
    ct_print(ct_remainder_scalar(x, ct_int(2)));                                      /* torch.remainder(x,2): never negative here */

    /* clipping values */
    x = ct_from_array((float[]){0.9f, -0.8f, 100.0f, -20.0f, 0.7f}, CT_SHAPE(5), CT_F32);
    ct_tensor *y = ct_clamp_scalar(x, ct_int(-1), ct_int(1));                         /* torch.clamp(x,min=-1,max=1) */
    ct_tensor *z = ct_clamp_max_scalar(x, ct_int(1));                                 /* torch.clamp(x,max=1) */
    ct_print(y);
    ct_print(z);
    ct_scope_end(s);
    return 0;
}
