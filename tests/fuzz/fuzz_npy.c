/* .npy files (numpy.load). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_fuzz_tensor_reader(data, size, ".npy", ct_load_npy);
    return 0;
}
