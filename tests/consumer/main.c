/* A program that uses ctorch as a library (tests/consumer/run.sh builds it
 * through CMake's add_subdirectory, find_package and pkg-config): it
 * includes ctorch.h without the implementation and prints what PyTorch
 * prints for torch.manual_seed(0); torch.rand(2, 3).sum(). */
#include "ctorch.h"

#include <stdio.h>

int main(void)
{
    ct_manual_seed(0);
    ct_tensor *x = ct_rand(CT_SHAPE(2, 3), CT_F32, NULL), *sum = ct_sum(x);
    printf("%.4f\n", ct_item(sum));
    ct_release(sum);
    ct_release(x);
    return 0;
}
