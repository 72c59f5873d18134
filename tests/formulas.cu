/* The pointwise formulas (src/ops/formulas.h) compile as device code: one
 * kernel per entry of CT__POINTWISE_KERNELS, dtype by dtype, as the CUDA
 * backend's kernels are generated. Compiled by tests/run.sh with nvcc
 * (-Werror), not run. */
#define CTORCH_BACKEND
#include "ctorch.h"

#define FORMULA_KERNEL(name, dt, ...)                                                       \
    __global__ void check_##name##_##dt(CT__KT_##dt *o, const CT__KT_##dt *x, const CT__KT_##dt *y, \
                                        const CT__KT_##dt *z, int64_t n, ct__op_args a)     \
    {                                                                                       \
        int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;                         \
        (void)y, (void)z;                                                                   \
        if (k < n) o[k] = CT__KS_##dt(CT__KFN(name, dt)(__VA_ARGS__, &a));                  \
    }
#define CHECK_UNARY(name, dt) FORMULA_KERNEL(name, dt, CT__KL_##dt(x[k]))
#define CHECK_UNARY_BOOL CHECK_UNARY
#define CHECK_UNARY_VM CHECK_UNARY
#define CHECK_UNARY_VM0 CHECK_UNARY
#define CHECK_BINARY(name, dt) FORMULA_KERNEL(name, dt, CT__KL_##dt(x[k]), CT__KL_##dt(y[k]))
#define CHECK_BINARY_BOOL CHECK_BINARY
#define CHECK_BINARY_VM0 CHECK_BINARY
#define CHECK_TERNARY(name, dt) FORMULA_KERNEL(name, dt, CT__KL_##dt(x[k]), CT__KL_##dt(y[k]), CT__KL_##dt(z[k]))
#define CHECK_WHERE(name, dt) /* a select: no formula */

#define CHECK_OP(name, kind, group) CT__KD_##group(CHECK_##kind, name, )
#define CHECK_OP_H(name, kind, group) CT__KD_##group(CHECK_##kind, name, h)
CT__POINTWISE_KERNELS(CHECK_OP, CHECK_OP_H)
CHECK_OP_H(add_alpha, BINARY, ALL)
CHECK_OP_H(sub_alpha, BINARY, NUMERIC)
