/* Seed 004 (indexing and slicing): rows, elements, ranges with steps,
 * assignment through .data, and the ellipsis. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_manual_seed(0);
    int minval = 0, maxval = 10;
    /* torch.floor(minval + (maxval-minval)*torch.rand([5,5])).int() */
    ct_tensor *t = ct_to(ct_floor(ct_add_scalar(ct_mul_scalar(ct_rand(CT_SHAPE(5, 5), CT_DEFAULT, NULL),
                                                              ct_int(maxval - minval)), ct_int(minval))), CT_I32);
    ct_print(t);
    ct_print(ct_index(t, "0"));             /* row 0 */
    ct_print(ct_index(t, "-1"));            /* the last row */
    ct_print(ct_index(t, "1, 3"));          /* row 1, column 3 */
    ct_print(ct_index(ct_index(t, "1"), "3"));
    ct_print(ct_index(t, "1:4, :"));        /* rows 1 to 3 */
    ct_print(ct_index(t, "1:4, :4:2"));     /* rows 1 to 3, every other column up to 4 */

    /* indexing can assign: x.data[1,:] = torch.tensor([0.0,0.0]) */
    ct_tensor *x = ct_from_array((float[]){1, 2, 3, 4}, CT_SHAPE(2, 2), CT_F32);
    ct_requires_grad_(x, true);
    ct_index_put_(ct_detach(x), ct_from_array((float[]){0, 0}, CT_SHAPE(2), CT_F32), "1, :");
    ct_print(x);

    ct_tensor *a = ct_view(ct_arange(ct_int(0), ct_int(27), ct_int(1), CT_DEFAULT), CT_SHAPE(3, 3, 3));
    ct_print(ct_index(a, "..., 1"));        /* the ellipsis stands for as many colons as needed */
    ct_scope_end(s);
    return 0;
}
