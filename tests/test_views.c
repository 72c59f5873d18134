/* Views: shapes, strides, offsets and shared storage, as PyTorch computes them. */
#include "harness.h"

static ct_tensor *arange_f(int64_t n) { return ct_arange(ct_int(0), ct_int(n), ct_int(1), CT_F32); }

static void test_view_shares_storage(void)
{
    /* seed 000: t_a.storage().data_ptr() == t_b.storage().data_ptr() */
    ct_tensor *a = ct_ones(CT_SHAPE(2, 2), CT_F32);
    ct_tensor *b = ct_view(a, CT_SHAPE(4));
    CHECK(ct_storage_data_ptr(a) == ct_storage_data_ptr(b));
    CHECK_INT(ct_dim(b), 1);
    CHECK_INT(ct_size(b, 0), 4);
    CHECK_OK(ct_fill_(b, ct_float(3)));
    CHECK_VALUES(a, CT_SHAPE(2, 2), 3, 3, 3, 3);
}

static void test_view_infers_and_fails(void)
{
    ct_tensor *x = arange_f(6);
    ct_tensor *v = ct_view(x, CT_SHAPE(-1, 2));
    CHECK_INT(ct_size(v, 0), 3);
    CHECK_ERR(ct_view(x, CT_SHAPE(4, 2)), CT_ERR_RUNTIME, "shape '[4, 2]' is invalid for input of size 6");
    CHECK_ERR(ct_view(x, CT_SHAPE(-1, -1)), CT_ERR_RUNTIME, "only one dimension can be inferred");
    CHECK_ERR(ct_view(ct_t(ct_view(x, CT_SHAPE(2, 3))), CT_SHAPE(6)), CT_ERR_RUNTIME,
              "view size is not compatible with input tensor's size and stride");
}

static void test_transpose_and_contiguous(void)
{
    ct_tensor *x = ct_view(arange_f(6), CT_SHAPE(2, 3));
    ct_tensor *t = ct_t(x);
    CHECK(!ct_is_contiguous(t));
    CHECK_INT(ct_stride(t, 0), 1);
    CHECK_INT(ct_stride(t, 1), 3);
    ct_tensor *c = ct_contiguous(t);
    CHECK(ct_is_contiguous(c));
    CHECK(ct_storage_data_ptr(c) != ct_storage_data_ptr(x));
    CHECK_VALUES(c, CT_SHAPE(3, 2), 0, 3, 1, 4, 2, 5);
    CHECK(ct_contiguous(x) == x); /* already contiguous: itself */
}

static void test_reshape_copies_only_when_needed(void)
{
    ct_tensor *x = ct_view(arange_f(6), CT_SHAPE(2, 3));
    CHECK(ct_storage_data_ptr(ct_reshape(x, CT_SHAPE(3, 2))) == ct_storage_data_ptr(x));
    ct_tensor *r = ct_reshape(ct_t(x), CT_SHAPE(6));
    CHECK(ct_storage_data_ptr(r) != ct_storage_data_ptr(x));
    CHECK_VALUES(r, CT_SHAPE(6), 0, 3, 1, 4, 2, 5);
}

static void test_slice_select_narrow(void)
{
    ct_tensor *x = ct_view(arange_f(12), CT_SHAPE(3, 4));
    CHECK_VALUES(ct_slice(x, 1, 0, CT_END, 2), CT_SHAPE(3, 2), 0, 2, 4, 6, 8, 10);
    CHECK_VALUES(ct_select(x, 0, -1), CT_SHAPE(4), 8, 9, 10, 11);
    CHECK_VALUES(ct_narrow(x, 1, 1, 2), CT_SHAPE(3, 2), 1, 2, 5, 6, 9, 10);
    CHECK_ERR(ct_select(x, 0, 5), CT_ERR_INDEX, "select(): index 5 out of range for tensor of size [3, 4] at dimension 0");
    CHECK_ERR(ct_slice(x, 0, 0, 2, 0), CT_ERR_VALUE, "slice step cannot be zero");
}

static void test_expand_and_broadcast_copy(void)
{
    ct_tensor *x = ct_from_array((float[]){1, 2, 3}, CT_SHAPE(3), CT_F32);
    ct_tensor *e = ct_expand(x, CT_SHAPE(2, -1));
    CHECK_INT(ct_stride(e, 0), 0);
    CHECK_VALUES(e, CT_SHAPE(2, 3), 1, 2, 3, 1, 2, 3);
    ct_tensor *d = ct_zeros(CT_SHAPE(2, 3), CT_I32);
    CHECK_OK(ct_copy_(d, x));
    CHECK_VALUES(d, CT_SHAPE(2, 3), 1, 2, 3, 1, 2, 3);
    CHECK_FAILS(ct_copy_(e, d), CT_ERR_RUNTIME, "more than one element of the written-to tensor");
}

int main(void)
{
    RUN(test_view_shares_storage);
    RUN(test_view_infers_and_fails);
    RUN(test_transpose_and_contiguous);
    RUN(test_reshape_copies_only_when_needed);
    RUN(test_slice_select_narrow);
    RUN(test_expand_and_broadcast_copy);
    return ct_test_report();
}
