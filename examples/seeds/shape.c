/* Seed 004 (changing dimensions): view and reshape, squeeze and unsqueeze,
 * transpose (to the Batch,Channel,Height,Width layout) and t(). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_manual_seed(0);
    int minval = 0, maxval = 255;
    ct_tensor *a = ct_to(ct_add_scalar(ct_mul_scalar(ct_rand(CT_SHAPE(1, 3, 3, 2), CT_DEFAULT, NULL),
                                                     ct_int(maxval - minval)), ct_int(minval)), CT_I32);
    ct_print_shape(a);
    ct_print(a);
    ct_tensor *b = ct_view(a, CT_SHAPE(3, 6));   /* a.view([3,6]) */
    ct_print_shape(b);
    ct_print(b);
    ct_tensor *c = ct_reshape(b, CT_SHAPE(1, 3, 3, 2));
    ct_print_shape(c);

    a = ct_from_array((float[]){1, 2}, CT_SHAPE(1, 2), CT_F32);
    ct_tensor *sq = ct_squeeze(a);
    ct_print(a);
    ct_print(sq);
    ct_print_shape(a);
    ct_print_shape(sq);
    ct_tensor *d = ct_unsqueeze(sq, 0);
    ct_print(sq);
    ct_print(d);
    ct_print_shape(sq);
    ct_print_shape(d);

    /* Batch,Height,Width,Channel to Batch,Channel,Height,Width: two transposes */
    ct_tensor *data = ct_to(ct_floor(ct_add_scalar(ct_mul_scalar(ct_rand(CT_SHAPE(100, 256, 256, 4), CT_DEFAULT, NULL),
                                                                 ct_int(maxval - minval)), ct_int(minval))), CT_I32);
    ct_print_shape(data);
    ct_print_shape(ct_transpose(ct_transpose(data, 1, 2), 1, 3));

    ct_tensor *matrix = ct_from_array((int64_t[]){1, 2, 3, 4, 5, 6}, CT_SHAPE(2, 3), CT_I64);
    ct_print(matrix);
    ct_print(ct_t(matrix));
    ct_scope_end(s);
    return 0;
}
