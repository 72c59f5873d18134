/* Autocast given bad input: the CPU takes bfloat16 only; float16 among a
 * promoting op's arguments has no widest type. PyTorch 1.13's errors. */
#include "errors.h"

static void test_autocast_errors(void)
{
    ct_autocast_mode m = ct_autocast(true, CT_F16);
    FAILS_T(NULL, CT_ERR_RUNTIME, "Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype");
    CHECK(!ct_is_autocast_enabled());
    ct_autocast_restore(m);
    ct_tensor *h = ct_ones(CT_SHAPE(2), CT_F16), *b = ct_ones(CT_SHAPE(2), CT_BF16), *hb[2] = {h, b};
    m = ct_autocast(true, CT_BF16);
    FAILS_T(ct_cat(hb, 2, 0), CT_ERR_RUNTIME, "Unexpected floating ScalarType in at::autocast::prioritize");
    FAILS_T(ct_mm(ct_ones(CT_SHAPE(2, 3), CT_F32), ct_ones(CT_SHAPE(2, 3), CT_F32)), CT_ERR_RUNTIME,
            "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)");
    ct_autocast_restore(m);
}

int main(void)
{
    RUN(test_autocast_errors);
    return ct_test_report();
}
