/* .npy files (numpy.load). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *t = ct_load_npy(ct_fuzz_file(data, size, ".npy"));
    ct_fuzz_check(t != NULL);
    if (t) ct_sum(t); /* every element readable */
    ct_clear_error();
    ct_scope_end(s);
    return 0;
}
