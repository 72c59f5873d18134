/* Seed 004 (joining and splitting): torch.cat joins along an existing dim,
 * torch.stack along a new one; torch.split undoes cat, in pieces of one size
 * or of listed sizes. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *a = ct_from_array((float[]){1, 2, 3, 4}, CT_SHAPE(2, 2), CT_F32);     /* torch.tensor([[1.0,2.0],[3.0,4.0]]) */
    ct_tensor *b = ct_from_array((float[]){5, 6, 7, 8}, CT_SHAPE(2, 2), CT_F32);     /* torch.tensor([[5.0,6.0],[7.0,8.0]]) */
    ct_tensor *c = ct_from_array((float[]){9, 10, 11, 12}, CT_SHAPE(2, 2), CT_F32);  /* torch.tensor([[9.0,10.0],[11.0,12.0]]) */
    ct_tensor *abc[3] = {a, b, c};

    ct_tensor *abc_cat = ct_cat(abc, 3, 0);                   /* torch.cat([a,b,c],dim = 0) */
    ct_print_shape(abc_cat);
    ct_print(abc_cat);
    ct_tensor *abc_stack = ct_stack(abc, 3, 0);               /* torch.stack([a,b,c],axis = 0) */
    ct_print_shape(abc_stack);
    ct_print(abc_stack);
    ct_print(ct_cat(abc, 3, 1));                              /* torch.cat([a,b,c],axis = 1) */
    ct_print(ct_stack(abc, 3, 1));                            /* torch.stack([a,b,c],axis = 1) */

    ct_tensor *parts[3];
    ct_print(abc_cat);
    ct_split(abc_cat, 2, 0, parts, 3);                        /* a,b,c = torch.split(abc_cat,split_size_or_sections = 2,dim = 0) */
    ct_print(parts[0]);
    ct_print(parts[1]);
    ct_print(parts[2]);
    ct_print(abc_cat);
    ct_split_with_sizes(abc_cat, CT_SHAPE(4, 1, 1), 0, parts, 3); /* p,q,r = torch.split(abc_cat,split_size_or_sections =[4,1,1],dim = 0) */
    ct_print(parts[0]);
    ct_print(parts[1]);
    ct_print(parts[2]);
    ct_scope_end(s);
    return 0;
}
