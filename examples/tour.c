/* A tour of ctorch's tensor API: what `make demo` runs. Each step prints what
 * the same PyTorch code prints.
 *
 *   cc -std=c11 -O2 -I. examples/tour.c -o tour -lm && ./tour */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

static void step(const char *python) { printf("\n>>> %s\n", python); }

int main(void)
{
    ct_scope s = ct_scope_begin(); /* every tensor made below is released at the end */

    step("x = torch.arange(12.).view(3, 4)");
    ct_tensor *x = ct_view(ct_arange(ct_int(0), ct_float(12), ct_int(1), CT_DEFAULT), CT_SHAPE(3, 4));
    ct_print(x);

    step("x[1:, ::2]                       # a view: no copy");
    ct_tensor *v = ct_index(x, "1:, ::2");
    ct_print(v);
    printf("same storage: %s, strides (%lld, %lld)\n", ct_storage_data_ptr(v) == ct_storage_data_ptr(x) ? "True" : "False",
           (long long)ct_stride(v, 0), (long long)ct_stride(v, 1));

    step("x.t().is_contiguous(), x.t().contiguous().is_contiguous()");
    printf("(%s, %s)\n", ct_is_contiguous(ct_t(x)) ? "True" : "False",
           ct_is_contiguous(ct_contiguous(ct_t(x))) ? "True" : "False");

    step("x[[0, 2], None]                  # advanced indexing gathers a copy");
    ct_print(ct_index(x, "[0, 2], None"));

    step("x * torch.tensor([1, 0, 1, 0]) + 0.5   # broadcasting and type promotion");
    ct_tensor *mask = ct_from_array((int64_t[]){1, 0, 1, 0}, CT_SHAPE(4), CT_I64);
    ct_print(ct_add_scalar(ct_mul(x, mask), ct_float(0.5)));

    step("torch.manual_seed(0); torch.rand(2, 3)   # the same numbers as PyTorch");
    ct_manual_seed(0);
    ct_print(ct_rand(CT_SHAPE(2, 3), CT_DEFAULT, NULL));

    step("torch.randn(2, 2, dtype=torch.float64)");
    ct_print(ct_randn(CT_SHAPE(2, 2), CT_F64, NULL));

    step("torch.tensor([300., -1.5]).to(torch.uint8)   # PyTorch's conversion rules");
    ct_print(ct_to(ct_from_array((float[]){300.f, -1.5f}, CT_SHAPE(2), CT_F32), CT_U8));

    step("x.view(5)                        # errors are PyTorch's, and the program goes on");
    if (!ct_view(x, CT_SHAPE(5))) printf("RuntimeError: %s\n", ct_last_error());
    ct_clear_error();

    ct_scope_end(s);
    return 0;
}
