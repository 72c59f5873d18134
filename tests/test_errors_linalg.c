/* Bad input to the linear algebra functions: each fails with PyTorch 1.13's
 * exact words (checked against it), in PyTorch's order of checks, and the
 * program goes on. */
#include "errors.h"

static const char *const HALF_MM = "\"addmm_impl_cpu_\" not implemented for 'Half'";
static const char *const FLOAT_DOUBLE = "expected scalar type Float but found Double";

static ct_tensor *ones(ct_shape s, ct_dtype dt) { return ct_ones(s, dt); }
#define F(...) ones(CT_SHAPE(__VA_ARGS__), CT_F32)
#define D(...) ones(CT_SHAPE(__VA_ARGS__), CT_F64)
#define H(...) ones(CT_SHAPE(__VA_ARGS__), CT_F16)

static void test_null_tensors(void)
{
    ct_tensor *m = F(2, 2), *v = F(2), *b = F(1, 2, 2);
    ct_addmm_opts o = ct_addmm_opts_init();
    FAILS_NULL(ct_mm(NULL_T, m), "mm(): argument 'input' (position 1)");
    FAILS_NULL(ct_mm(m, NULL_T), "mm(): argument 'mat2' (position 2)");
    FAILS_NULL(ct_bmm(NULL_T, b), "bmm(): argument 'input' (position 1)");
    FAILS_NULL(ct_bmm(b, NULL_T), "bmm(): argument 'mat2' (position 2)");
    FAILS_NULL(ct_mv(NULL_T, v), "mv(): argument 'input' (position 1)");
    FAILS_NULL(ct_mv(m, NULL_T), "mv(): argument 'vec' (position 2)");
    FAILS_NULL(ct_dot(NULL_T, v), "dot(): argument 'input' (position 1)");
    FAILS_NULL(ct_dot(v, NULL_T), "dot(): argument 'tensor' (position 2)");
    FAILS_NULL(ct_vdot(NULL_T, v), "vdot(): argument 'input' (position 1)");
    FAILS_NULL(ct_vdot(v, NULL_T), "vdot(): argument 'other' (position 2)");
    FAILS_NULL(ct_outer(NULL_T, v), "outer(): argument 'input' (position 1)");
    FAILS_NULL(ct_outer(v, NULL_T), "outer(): argument 'vec2' (position 2)");
    FAILS_NULL(ct_matmul(NULL_T, m), "matmul(): argument 'input' (position 1)");
    FAILS_NULL(ct_matmul(m, NULL_T), "matmul(): argument 'other' (position 2)");
    FAILS_NULL(ct_addmm(NULL_T, m, m, o), "addmm(): argument 'input' (position 1)");
    FAILS_NULL(ct_addmm(m, NULL_T, m, o), "addmm(): argument 'mat1' (position 2)");
    FAILS_NULL(ct_addmm(m, m, NULL_T, o), "addmm(): argument 'mat2' (position 3)");
    FAILS_NULL(ct_addmv(NULL_T, m, v, o), "addmv(): argument 'input' (position 1)");
    FAILS_NULL(ct_addmv(v, NULL_T, v, o), "addmv(): argument 'mat' (position 2)");
    FAILS_NULL(ct_addmv(v, m, NULL_T, o), "addmv(): argument 'vec' (position 3)");
    FAILS_NULL(ct_baddbmm(NULL_T, b, b, o), "baddbmm(): argument 'input' (position 1)");
    FAILS_NULL(ct_baddbmm(b, NULL_T, b, o), "baddbmm(): argument 'batch1' (position 2)");
    FAILS_NULL(ct_baddbmm(b, b, NULL_T, o), "baddbmm(): argument 'batch2' (position 3)");
}

static void test_mm_bmm(void)
{
    FAILS_T(ct_mm(F(3), F(3, 2)), CT_ERR_RUNTIME, "self must be a matrix");
    FAILS_T(ct_mm(F(2, 3), F(3)), CT_ERR_RUNTIME, "mat2 must be a matrix");
    FAILS_T(ct_mm(F(2, 3), F(4, 2)), CT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)");
    FAILS_T(ct_mm(F(2, 3), D(4, 2)), CT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)");
    FAILS_T(ct_mm(H(2, 3), D(3, 2)), CT_ERR_RUNTIME, HALF_MM);
    FAILS_T(ct_mm(ones(CT_SHAPE(2, 3), CT_BOOL), ones(CT_SHAPE(3, 2), CT_BOOL)), CT_ERR_RUNTIME,
            "\"addmm_impl_cpu_\" not implemented for 'Bool'");
    FAILS_T(ct_mm(F(2, 3), D(3, 2)), CT_ERR_RUNTIME, FLOAT_DOUBLE);
    FAILS_T(ct_mm(ones(CT_SHAPE(2, 3), CT_I64), F(3, 2)), CT_ERR_RUNTIME, "expected scalar type Long but found Float");

    FAILS_T(ct_bmm(F(2, 3), F(3, 2)), CT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    FAILS_T(ct_bmm(F(1, 2, 3), F(3, 2)), CT_ERR_RUNTIME, "batch2 must be a 3D tensor");
    FAILS_T(ct_bmm(F(2, 2, 3), F(3, 3, 2)), CT_ERR_RUNTIME,
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].");
    FAILS_T(ct_bmm(F(2, 2, 3), F(2, 4, 2)), CT_ERR_RUNTIME,
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].");
    FAILS_T(ct_bmm(H(1, 2, 3), D(1, 3, 2)), CT_ERR_RUNTIME, "\"bmm\" not implemented for 'Half'");
    FAILS_T(ct_bmm(F(1, 2, 3), D(1, 3, 2)), CT_ERR_RUNTIME, FLOAT_DOUBLE);
}

static void test_mv_dot_outer(void)
{
    FAILS_T(ct_mv(F(2, 3), F(4)), CT_ERR_RUNTIME, "size mismatch, got 2, 2x3,4");
    FAILS_T(ct_mv(F(2, 3), F(3, 1)), CT_ERR_RUNTIME, "vector + matrix @ vector expected, got 1, 2, 2");
    FAILS_T(ct_mv(F(3), F(3)), CT_ERR_RUNTIME, "vector + matrix @ vector expected, got 1, 1, 1");
    FAILS_T(ct_mv(H(2, 3), D(3)), CT_ERR_RUNTIME, "\"addmv_impl_cpu\" not implemented for 'Half'");
    FAILS_T(ct_mv(F(2, 3), D(3)), CT_ERR_RUNTIME, FLOAT_DOUBLE);

    FAILS_T(ct_dot(F(3), F(3, 1)), CT_ERR_RUNTIME, "1D tensors expected, but got 1D and 2D tensors");
    FAILS_T(ct_dot(F(3), D(4)), CT_ERR_RUNTIME, "dot : expected both vectors to have same dtype, but found Float and Double");
    FAILS_T(ct_dot(F(3), F(4)), CT_ERR_RUNTIME,
            "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 "
            "and 4 elements respectively");
    FAILS_T(ct_dot(H(3), H(3)), CT_ERR_RUNTIME, "\"dot\" not implemented for 'Half'");
    FAILS_T(ct_vdot(F(3, 1), F(3)), CT_ERR_RUNTIME, "1D tensors expected, but got 2D and 1D tensors");
    FAILS_T(ct_vdot(ones(CT_SHAPE(3), CT_BOOL), ones(CT_SHAPE(3), CT_BOOL)), CT_ERR_RUNTIME,
            "\"dot\" not implemented for 'Bool'");

    FAILS_T(ct_outer(F(2, 2), F(3)), CT_ERR_RUNTIME, "outer: Expected 1-D argument self, but got 2-D");
    FAILS_T(ct_outer(F(3), F(1, 1)), CT_ERR_RUNTIME, "outer: Expected 1-D argument vec2, but got 2-D");
    FAILS_T(ct_outer(F(3), ones(CT_SHAPE0, CT_F32)), CT_ERR_RUNTIME, "outer: Expected 1-D argument vec2, but got 0-D");
}

static void test_matmul(void)
{
    FAILS_T(ct_matmul(ones(CT_SHAPE0, CT_F32), F(3)), CT_ERR_RUNTIME,
            "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
    FAILS_T(ct_matmul(F(3), F(4)), CT_ERR_RUNTIME,
            "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 "
            "and 4 elements respectively");
    FAILS_T(ct_matmul(F(2, 3), F(4)), CT_ERR_RUNTIME, "size mismatch, got 2, 2x3,4");
    FAILS_T(ct_matmul(F(3), F(4, 2)), CT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x2)");
    FAILS_T(ct_matmul(F(5, 2, 3), F(4, 3, 2)), CT_ERR_RUNTIME,
            "The size of tensor a (5) must match the size of tensor b (4) at non-singleton dimension 0");
    FAILS_T(ct_matmul(F(5, 2, 3), F(5, 4, 2)), CT_ERR_RUNTIME,
            "Expected size for first two dimensions of batch2 tensor to be: [5, 3] but got: [5, 4].");
    FAILS_T(ct_matmul(F(5, 2, 3), F(4)), CT_ERR_RUNTIME, "size mismatch, got 10, 10x3,4");
    FAILS_T(ct_matmul(F(4), F(5, 2, 3)), CT_ERR_RUNTIME, "size mismatch, got 15, 15x2,4");
    FAILS_T(ct_matmul(F(4, 2, 3), ones(CT_SHAPE(3, 2), CT_I64)), CT_ERR_RUNTIME, "expected scalar type Float but found Long");
    FAILS_T(ct_matmul(H(4, 2, 3), H(4, 3, 2)), CT_ERR_RUNTIME, "\"bmm\" not implemented for 'Half'");
    FAILS_T(ct_matmul(H(4, 2, 3), H(3)), CT_ERR_RUNTIME, "\"addmv_impl_cpu\" not implemented for 'Half'");
}

static void test_add_forms(void)
{
    ct_addmm_opts o = ct_addmm_opts_init();
    FAILS_T(ct_addmm(F(2, 4), F(2, 3), F(3, 3), o), CT_ERR_RUNTIME,
            "The expanded size of the tensor (3) must match the existing size (4) at non-singleton dimension 1.  "
            "Target sizes: [2, 3].  Tensor sizes: [2, 4]");
    FAILS_T(ct_addmm(D(2, 3), F(2, 3), F(3, 3), o), CT_ERR_RUNTIME, "self and mat2 must have the same dtype");
    FAILS_T(ct_addmm(F(2, 2), D(2, 3), F(3, 2), o), CT_ERR_RUNTIME, "mat1 and mat2 must have the same dtype");
    FAILS_T(ct_addmm(D(2, 2), F(2, 3), F(4, 2), o), CT_ERR_RUNTIME, "self and mat2 must have the same dtype");
    FAILS_T(ct_addmm(F(2, 3), F(3), F(3, 3), o), CT_ERR_RUNTIME, "mat1 must be a matrix, got 1-D tensor");
    FAILS_T(ct_addmm(F(2, 3), F(2, 3), F(1, 3, 3), o), CT_ERR_RUNTIME, "mat2 must be a matrix, got 3-D tensor");
    FAILS_T(ct_addmm(F(2, 3), F(2, 3), F(4, 3), o), CT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x3)");
    FAILS_T(ct_addmm(H(2, 2), H(2, 3), H(3, 2), o), CT_ERR_RUNTIME, HALF_MM);

    FAILS_T(ct_addmv(F(2), F(2, 3), F(4), o), CT_ERR_RUNTIME, "size mismatch, got 2, 2x3,4");
    FAILS_T(ct_addmv(F(3), F(2, 3), F(3), o), CT_ERR_RUNTIME, "size mismatch, got 3, 2x3,3");
    FAILS_T(ct_addmv(F(2, 2), F(2, 3), F(3), o), CT_ERR_RUNTIME, "vector + matrix @ vector expected, got 2, 2, 1");
    FAILS_T(ct_addmv(ones(CT_SHAPE0, CT_F32), F(2, 3), F(4), o), CT_ERR_INDEX,
            "Dimension specified as 0 but tensor has no dimensions");
    FAILS_T(ct_addmv(F(2), H(2, 3), H(3), o), CT_ERR_RUNTIME, "\"addmv_impl_cpu\" not implemented for 'Half'");
    FAILS_T(ct_addmv(F(2), D(2, 3), F(3), o), CT_ERR_RUNTIME, "expected scalar type Double but found Float");

    FAILS_T(ct_baddbmm(F(3, 2, 2), F(2, 2, 3), F(2, 3, 2), o), CT_ERR_RUNTIME,
            "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0.  "
            "Target sizes: [2, 2, 2].  Tensor sizes: [3, 2, 2]");
    FAILS_T(ct_baddbmm(F(1), F(2, 3), F(1, 3, 2), o), CT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    FAILS_T(ct_baddbmm(F(1), F(2), F(1, 3, 2), o), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    FAILS_T(ct_baddbmm(F(1), ones(CT_SHAPE0, CT_F32), F(1, 3, 2), o), CT_ERR_INDEX,
            "Dimension specified as 0 but tensor has no dimensions");
    FAILS_T(ct_baddbmm(F(1), F(1, 2, 3), F(1, 3), o), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    FAILS_T(ct_baddbmm(F(1), F(2, 2, 3), F(1, 3, 2), o), CT_ERR_RUNTIME,
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [1, 3].");
    FAILS_T(ct_baddbmm(F(1, 2, 2), H(1, 2, 3), H(1, 3, 2), o), CT_ERR_RUNTIME, "\"baddbmm\" not implemented for 'Half'");
    FAILS_T(ct_baddbmm(F(1, 2, 2), F(1, 2, 3), D(1, 3, 2), o), CT_ERR_RUNTIME, FLOAT_DOUBLE);
}

int main(void)
{
    RUN(test_null_tensors);
    RUN(test_mm_bmm);
    RUN(test_mv_dot_outer);
    RUN(test_matmul);
    RUN(test_add_forms);
    return ct_test_report();
}
