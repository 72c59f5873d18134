/* Seed 004 (vector operations): statistics of a whole tensor or along one
 * dim, running (cumulative) scans, topk and sort. Ops that return values and
 * indices print as PyTorch's torch.return_types named tuples. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

/* print(torch.topk(...), "\n"): the named tuple, then print's separating
 * space and the "\n" argument before print's own newline. */
static void print_return_types_and_blank_line(const char *name, const ct_tensor *values, const ct_tensor *indices)
{
    char v[1024], i[1024];
    ct_to_string(values, v, sizeof v);
    ct_to_string(indices, i, sizeof i);
    printf("torch.return_types.%s(\nvalues=%s,\nindices=%s) \n\n", name, v, i);
}

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *values, *indices;
    ct_tensor *a = ct_to(ct_arange(ct_int(1), ct_int(10), ct_int(1), CT_DEFAULT), CT_F32); /* torch.arange(1,10).float() */
    ct_print(ct_sum(a));
    ct_print(ct_mean(a));
    ct_print(ct_max(a));
    ct_print(ct_min(a));
    ct_print(ct_prod(a));                                       /* the product of all */
    ct_print(ct_std(a));                                        /* standard deviation */
    ct_print(ct_var(a));                                        /* variance */
    ct_print(ct_median(a));

    /* statistics along one dim */
    ct_tensor *b = ct_view(a, CT_SHAPE(3, 3));                  /* a.view(3,3) */
    ct_print(b);
    ct_max_dim(b, 0, false, &values, &indices);                 /* torch.max(b,dim = 0) */
    ct_print_return_types("max", values, indices);
    ct_max_dim(b, 1, false, &values, &indices);                 /* torch.max(b,dim = 1) */
    ct_print_return_types("max", values, indices);

    /* cumulative scans */
    a = ct_arange(ct_int(1), ct_int(10), ct_int(1), CT_DEFAULT);  /* torch.arange(1,10) */
    ct_print(ct_cumsum(a, 0, CT_DEFAULT));
    ct_print(ct_cumprod(a, 0, CT_DEFAULT));
    ct_cummax(a, 0, &values, &indices);
    ct_print(values);                                           /* torch.cummax(a,0).values */
    ct_print(indices);                                          /* torch.cummax(a,0).indices */
    ct_cummin(a, 0, &values, &indices);
    ct_print_return_types("cummin", values, indices);

    /* sorting: topk and sort */
    a = ct_to(ct_from_array((int64_t[]){9, 7, 8, 1, 3, 2, 5, 6, 4}, CT_SHAPE(3, 3), CT_I64), CT_F32);
    ct_topk(a, 2, 0, true, true, &values, &indices);            /* torch.topk(a,2,dim = 0) */
    print_return_types_and_blank_line("topk", values, indices);
    ct_topk(a, 2, 1, true, true, &values, &indices);            /* torch.topk(a,2,dim = 1) */
    print_return_types_and_blank_line("topk", values, indices);
    ct_sort(a, 1, false, false, &values, &indices);             /* torch.sort(a,dim = 1) */
    print_return_types_and_blank_line("sort", values, indices);
    ct_scope_end(s);
    return 0;
}
