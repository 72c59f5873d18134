/* Seed 000 (PyTorch features, tensors): a copy versus a zero-copy tensor over
 * an existing array (torch.tensor vs torch.from_numpy), and two views of one
 * storage reporting the same data pointer. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

static void print_array(const double *a) { printf("array([[%g., %g.]])\n", a[0], a[1]); }

int main(void)
{
    /* a copy is made */
    double np_array[2] = {1, 1};
    ct_tensor *torch_array = ct_from_array(np_array, CT_SHAPE(1, 2), CT_F64); /* torch.tensor(np_array) */
    ct_add_scalar_(torch_array, ct_float(1.0));
    print_array(np_array); /* array([[1., 1.]]) */
    ct_release(torch_array);

    /* zero-copy: the tensor is a view of the array */
    double np_array2[2] = {1, 1};
    torch_array = ct_from_blob(np_array2, CT_SHAPE(1, 2), NULL, CT_F64, NULL, NULL); /* torch.from_numpy */
    ct_add_scalar_(torch_array, ct_float(1.0));
    print_array(np_array2); /* array([[2., 2.]]) */
    ct_release(torch_array);

    /* zero-copy, but `+` makes a new tensor: the array keeps its values */
    double np_array3[2] = {1, 1};
    torch_array = ct_from_blob(np_array3, CT_SHAPE(1, 2), NULL, CT_F64, NULL, NULL);
    ct_tensor *sum = ct_add_scalar(torch_array, ct_float(1.0));
    print_array(np_array3); /* array([[1., 1.]]) */
    ct_release(sum);
    ct_release(torch_array);

    /* many tensors, one storage */
    ct_tensor *t_a = ct_ones(CT_SHAPE(2, 2), CT_F32);
    ct_tensor *t_b = ct_view(t_a, CT_SHAPE(4));
    printf("%s\n", ct_storage_data_ptr(t_a) == ct_storage_data_ptr(t_b) ? "True" : "False");
    ct_release(t_b);
    ct_release(t_a);
    return 0;
}
