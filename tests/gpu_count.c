/* Prints how many CUDA devices ctorch_cuda.cu sees: tests/run.sh runs the
 * op suites on cuda:0 when it is 1 or more. */
#include "ctorch.h"

#include <stdio.h>

int main(void)
{
    printf("%d\n", ct_cuda_device_count());
    return 0;
}
