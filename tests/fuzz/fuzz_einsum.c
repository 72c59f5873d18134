/* einsum equations over one to three small operands. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *eq = ct_fuzz_string(data, size);
    ct_scope s = ct_scope_begin();
    ct_tensor *ops[3] = {ct_randn(CT_SHAPE(2, 3), CT_F32, NULL), ct_randn(CT_SHAPE(3, 2, 2), CT_F32, NULL),
                         ct_randn(CT_SHAPE(2), CT_F32, NULL)};
    for (int n = 1; n <= 3; n++) ct_fuzz_check(ct_einsum(eq, ops, n) != NULL);
    ct_scope_end(s);
    free(eq);
    return 0;
}
