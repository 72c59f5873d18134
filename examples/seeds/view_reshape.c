/* Seed 003 (view versus reshape): view shares data and may make a tensor
 * non-contiguous; contiguous() returns the tensor itself when it already is;
 * reshape and flatten view when they can and copy when they must; clone and
 * detach().clone() make independent copies. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

static const char *yes(bool b) { return b ? "True" : "False"; }

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *x = ct_view(ct_arange(ct_int(0), ct_int(6), ct_int(1), CT_F32), CT_SHAPE(2, 3));
    ct_tensor *v = ct_view(x, CT_SHAPE(3, 2));
    ct_fill_(ct_index(v, "0, 0"), ct_float(100)); /* view shares the data (danger) */
    ct_print(x);
    ct_tensor *t = ct_transpose(x, 0, 1); /* a view that is not contiguous */
    printf("%s %s\n", yes(ct_is_contiguous(x)), yes(ct_is_contiguous(t)));
    printf("%s\n", yes(ct_contiguous(x) == x)); /* contiguous() returns x itself */
    ct_tensor *tc = ct_contiguous(t);            /* ... or a new tensor */
    printf("%s %s\n", yes(ct_storage_data_ptr(tc) == ct_storage_data_ptr(t)), yes(ct_is_contiguous(tc)));
    /* reshape and flatten: a view when possible, else a copy */
    printf("%s\n", yes(ct_storage_data_ptr(ct_reshape(x, CT_SHAPE(6))) == ct_storage_data_ptr(x)));
    printf("%s\n", yes(ct_storage_data_ptr(ct_reshape(t, CT_SHAPE(6))) == ct_storage_data_ptr(x)));
    printf("%s\n", yes(ct_storage_data_ptr(ct_flatten(t, 0, -1)) == ct_storage_data_ptr(x)));
    if (!ct_view(t, CT_SHAPE(-1))) { /* view cannot flatten it; reshape copies */
        ct_print(ct_reshape(t, CT_SHAPE(-1)));
        printf("%s\n", ct_last_error());
        ct_clear_error();
    }
    /* deep copies: clone() (and detach().clone() for a tensor that requires grad) */
    ct_tensor *w = ct_ones(CT_SHAPE(2), CT_F32);
    ct_requires_grad_(w, true);
    ct_tensor *c = ct_clone(ct_detach(w));
    ct_fill_(c, ct_int(7));
    ct_print(w);
    ct_print(c);
    ct_scope_end(s);
    return 0;
}
