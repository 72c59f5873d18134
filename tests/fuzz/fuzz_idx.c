/* IDX files (MNIST's format). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_fuzz_tensor_reader(data, size, ".idx", ct_read_idx);
    return 0;
}
