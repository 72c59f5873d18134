/* A program that links ctorch::cuda (tests/consumer/run.sh builds it where
 * nvcc is installed). It prints torch.cuda.is_available(), and where that is
 * False, the error cuda:0 gets: "Found no NVIDIA driver ..." when the
 * backend registered itself at start-up, "Torch not compiled with CUDA
 * enabled" when its object was dropped at link time. */
#include "ctorch.h"

#include <stdio.h>

int main(void)
{
    bool available = ct_cuda_is_available();
    printf("%s\n", available ? "True" : "False");
    if (!available && ct_synchronize(CT_CUDA(0)) != CT_OK) printf("%s\n", ct_last_error());
    return 0;
}
