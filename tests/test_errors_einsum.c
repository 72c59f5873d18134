/* Bad input to einsum, tensordot, kron and cross (src/linalg/linalg.h): bad
 * equations, sizes that do not broadcast, dims out of range or repeated,
 * dtypes the products refuse, NULL arguments; each fails with PyTorch 1.13's
 * exact words (checked against it), in PyTorch's order of checks. Where
 * ctorch's CT_MAX_DIMS (16) is the limit rather than PyTorch's 64, the
 * message says so. */
#include "errors.h"

static ct_tensor *Z(ct_shape s) { return ct_zeros(s, CT_F32); }

/* einsum over operands of the given shapes (float32 zeros). */
static ct_tensor *ein(const char *eq, int n, ct_shape s0, ct_shape s1)
{
    ct_tensor *ops[2] = {Z(s0), Z(s1)};
    return ct_einsum(eq, ops, n);
}
#define EIN1(eq, s) ein(eq, 1, s, CT_SHAPE0)
#define EIN2(eq, a, b) ein(eq, 2, a, b)

static void test_einsum_equation_errors(void)
{
    const ct_shape v2 = CT_SHAPE(2), v3 = CT_SHAPE(3);
    const char *sub = " in the equation string, subscripts must be in [a-zA-Z]";
    char msg[160];
    snprintf(msg, sizeof msg, "einsum(): invalid subscript given at index 1%s", sub);
    FAILS_T(EIN2("i1,j", v2, v3), CT_ERR_RUNTIME, msg);
    snprintf(msg, sizeof msg, "einsum(): invalid subscript given at index 6%s", sub);
    FAILS_T(EIN2("i,j->i1", v2, v3), CT_ERR_RUNTIME, msg);
    snprintf(msg, sizeof msg, "einsum(): invalid subscript given at index 1%s", sub);
    FAILS_T(EIN1("i-j", CT_SHAPE(2, 2)), CT_ERR_RUNTIME, msg);
    snprintf(msg, sizeof msg, "einsum(): invalid subscript given at index 3%s", sub);
    FAILS_T(EIN1("i->->i", v2), CT_ERR_RUNTIME, msg);
    FAILS_T(EIN2("i.,j", v2, v3), CT_ERR_RUNTIME, "einsum(): found '.' for operand 0 that is not part of any ellipsis");
    FAILS_T(EIN2("i,j..", v2, v3), CT_ERR_RUNTIME,
            "einsum(): found '.' for operand 1 that is not part of any ellipsis");
    FAILS_T(EIN2("...i...,j", v2, v3), CT_ERR_RUNTIME,
            "einsum(): found '.' for operand 0 for which an ellipsis was already found");
    FAILS_T(EIN2("i,j->..", v2, v3), CT_ERR_RUNTIME,
            "einsum(): found '.' for output that is not part of any ellipsis (...)");
    FAILS_T(EIN1("i->......", v2), CT_ERR_RUNTIME,
            "einsum(): found '.' for output but an ellipsis (...) was already found");
    FAILS_T(EIN2("i,j,k", v2, v3), CT_ERR_RUNTIME,
            "einsum(): fewer operands were provided than specified in the equation");
    FAILS_T(EIN2("i", v2, v3), CT_ERR_RUNTIME, "einsum(): more operands were provided than specified in the equation");
    FAILS_T(EIN1("ij", v2), CT_ERR_RUNTIME,
            "einsum(): the number of subscripts in the equation (2) does not match the number of dimensions (1) for "
            "operand 0 and no ellipsis was given");
    FAILS_T(EIN2("i,ij", v2, v3), CT_ERR_RUNTIME,
            "einsum(): the number of subscripts in the equation (2) does not match the number of dimensions (1) for "
            "operand 1 and no ellipsis was given");
    FAILS_T(EIN1("...ij", v2), CT_ERR_RUNTIME,
            "einsum(): the number of subscripts in the equation (2) is more than the number of dimensions (1) for "
            "operand 0");
    /* the operands' dims are checked before the output is read */
    FAILS_T(EIN1("ij->k", v2), CT_ERR_RUNTIME,
            "einsum(): the number of subscripts in the equation (2) does not match the number of dimensions (1) for "
            "operand 0 and no ellipsis was given");
    FAILS_T(EIN1("i->ii", v2), CT_ERR_RUNTIME, "einsum(): output subscript i appears more than once in the output");
    FAILS_T(EIN1("i->j", v2), CT_ERR_RUNTIME,
            "einsum(): output subscript j does not appear in the equation for any input operand");
    FAILS_T(EIN1("i->I", v2), CT_ERR_RUNTIME,
            "einsum(): output subscript I does not appear in the equation for any input operand");
    FAILS_T(EIN1("abcdefghijklmnopq", CT_SHAPE(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)), CT_ERR_RUNTIME,
            "einsum(): the number of subscripts in the equation (17) does not match the number of dimensions (16) for "
            "operand 0 and no ellipsis was given");
    FAILS_T(EIN2("abcdefghi,jklmnopqr", CT_SHAPE(1, 1, 1, 1, 1, 1, 1, 1, 1), CT_SHAPE(1, 1, 1, 1, 1, 1, 1, 1, 1)),
            CT_ERR_RUNTIME, "einsum(): the aligned operands would have 18 dimensions, more than CT_MAX_DIMS (16)");
}

static void test_einsum_size_errors(void)
{
    FAILS_T(EIN1("ii", CT_SHAPE(2, 3)), CT_ERR_RUNTIME,
            "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2");
    FAILS_T(EIN1("II", CT_SHAPE(2, 3)), CT_ERR_RUNTIME,
            "einsum(): subscript I is repeated for operand 0 but the sizes don't match, 3 != 2");
    FAILS_T(EIN2("i,i", CT_SHAPE(2), CT_SHAPE(3)), CT_ERR_RUNTIME,
            "einsum(): subscript i has size 3 for operand 1 which does not broadcast with previously seen size 2");
    FAILS_T(EIN2("Bi,Bj", CT_SHAPE(2, 1), CT_SHAPE(3, 1)), CT_ERR_RUNTIME,
            "einsum(): subscript B has size 3 for operand 1 which does not broadcast with previously seen size 2");
    /* PyTorch's message has no space before "has" */
    FAILS_T(EIN2("...,...", CT_SHAPE(2), CT_SHAPE(3)), CT_ERR_RUNTIME,
            "einsum(): dimension 0 covered by ellipsis in operand 1has size 3 which does not broadcast with "
            "previously seen ellipsis with size 2 for the respective dimension");
    FAILS_T(EIN2("i...,...", CT_SHAPE(4, 2, 5), CT_SHAPE(3, 5)), CT_ERR_RUNTIME,
            "einsum(): dimension 0 covered by ellipsis in operand 1has size 3 which does not broadcast with "
            "previously seen ellipsis with size 2 for the respective dimension");
    /* operand dtypes: mul promotes, bmm does not */
    ct_tensor *ops[2] = {Z(CT_SHAPE(2, 3)), ct_zeros(CT_SHAPE(3, 2), CT_F64)};
    FAILS_T(ct_einsum("ij,jk", ops, 2), CT_ERR_RUNTIME, "expected scalar type Float but found Double");
    ops[0] = ct_zeros(CT_SHAPE(2, 3), CT_F16);
    FAILS_T(ct_einsum("ij,jk", ops, 2), CT_ERR_RUNTIME, "\"bmm\" not implemented for 'Half'");
    ops[0] = ct_zeros(CT_SHAPE(2, 3), CT_BOOL), ops[1] = ct_zeros(CT_SHAPE(3, 2), CT_BOOL);
    FAILS_T(ct_einsum("ij,jk", ops, 2), CT_ERR_RUNTIME, "\"bmm\" not implemented for 'Bool'");
}

static void test_einsum_arguments(void)
{
    ct_tensor *v = Z(CT_SHAPE(2)), *ops[2] = {v, NULL};
    FAILS_T(ct_einsum("i", ops, 0), CT_ERR_RUNTIME, "einsum(): must provide at least one operand");
    FAILS_T(ct_einsum(NULL, ops, 1), CT_ERR_TYPE, "einsum(): argument 'equation' (position 1) must be str, not NULL");
    FAILS_T(ct_einsum("i", NULL, 1), CT_ERR_TYPE,
            "einsum(): argument 'tensors' (position 2) must be tuple of Tensors, not NULL");
    FAILS_T(ct_einsum("i,i", ops, 2), CT_ERR_TYPE, "expected Tensor as element 1 in argument 1, but got NULL");
    /* a failure earlier in the chain keeps its own message */
    ct_tensor *bad[1] = {ct_reshape(v, CT_SHAPE(3))};
    FAILS_T(ct_einsum("i", bad, 1), CT_ERR_RUNTIME, "shape '[3]' is invalid for input of size 2");
}

static void test_tensordot_errors(void)
{
    ct_tensor *a = Z(CT_SHAPE(2, 3, 4)), *b = Z(CT_SHAPE(4, 3, 5));
    FAILS_T(ct_tensordot(a, b, -1), CT_ERR_RUNTIME, "tensordot expects dims >= 0, but got dims=-1");
    FAILS_T(ct_tensordot(a, Z(CT_SHAPE(4, 5)), 5), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-3, 2], but got -5)");
    FAILS_T(ct_tensordot(a, Z(CT_SHAPE(4, 5)), 40), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-3, 2], but got -40)");
    FAILS_T(ct_tensordot(Z(CT_SHAPE(2, 3)), Z(CT_SHAPE(3, 2)), 3), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
    FAILS_T(ct_tensordot(Z(CT_SHAPE(2, 3)), Z(CT_SHAPE(3, 2)), 2), CT_ERR_RUNTIME,
            "contracted dimensions need to match, but first has size 2 in dim -2 and second has size 3 in dim 0");
    FAILS_T(ct_tensordot(Z(CT_SHAPE(2, 3)), Z(CT_SHAPE(2, 2)), 2), CT_ERR_RUNTIME,
            "contracted dimensions need to match, but first has size 3 in dim -1 and second has size 2 in dim 1");
    FAILS_T(ct_tensordot(Z(CT_SHAPE(3, 3)), Z(CT_SHAPE(3)), 2), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    FAILS_T(ct_tensordot(Z(CT_SHAPE(3)), ct_zeros(CT_SHAPE0, CT_F32), 1), CT_ERR_INDEX,
            "Dimension specified as 0 but tensor has no dimensions");
    FAILS_T(ct_tensordot_dims(a, b, CT_DIMS(1, 2), CT_DIMS(1)), CT_ERR_RUNTIME,
            "both dimension lists should have same length");
    FAILS_T(ct_tensordot_dims(a, b, CT_DIMS(1, 2), CT_DIMS(1, 1)), CT_ERR_RUNTIME,
            "contracted dimensions need to match, but first has size 4 in dim 2 and second has size 3 in dim 1");
    FAILS_T(ct_tensordot_dims(a, b, CT_DIMS(1, 1), CT_DIMS(1, 1)), CT_ERR_RUNTIME,
            "dim 1 appears multiple times in the list of dims");
    FAILS_T(ct_tensordot_dims(a, b, CT_DIMS(2, -3), CT_DIMS(0, 0)), CT_ERR_RUNTIME,
            "contracted dimensions need to match, but first has size 2 in dim -3 and second has size 4 in dim 0");
    FAILS_T(ct_tensordot_dims(a, b, CT_DIMS(5), CT_DIMS(1)), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-3, 2], but got 5)");
    FAILS_T(ct_tensordot_dims(a, b, CT_DIMS(1), CT_DIMS(-4)), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-3, 2], but got -4)");
    FAILS_T(ct_tensordot_dims(a, ct_zeros(CT_SHAPE(4, 3, 5), CT_F64), CT_DIMS(1), CT_DIMS(1)), CT_ERR_RUNTIME,
            "expected scalar type Float but found Double");
    FAILS_T(ct_tensordot(ct_zeros(CT_SHAPE(2, 3), CT_I32), ct_zeros(CT_SHAPE(3, 2), CT_I64), 1), CT_ERR_RUNTIME,
            "expected scalar type Int but found Long");
    FAILS_T(ct_tensordot(ct_zeros(CT_SHAPE(2, 3), CT_F16), ct_zeros(CT_SHAPE(3, 2), CT_F16), 1), CT_ERR_RUNTIME,
            "\"addmm_impl_cpu_\" not implemented for 'Half'");
    FAILS_NULL(ct_tensordot(NULL_T, a, 1), "tensordot(): argument 'input' (position 1)");
    FAILS_NULL(ct_tensordot(a, NULL_T, 1), "tensordot(): argument 'other' (position 2)");
    FAILS_NULL(ct_tensordot_dims(NULL_T, a, CT_DIMS(0), CT_DIMS(0)), "tensordot_dims(): argument 'input' (position 1)");
}

static void test_kron_errors(void)
{
    /* PyTorch 1.13 views the product, which keeps a transposed input's layout */
    const char *no_view = "view size is not compatible with input tensor's size and stride (at least one dimension "
                          "spans across two contiguous subspaces). Use .reshape(...) instead.";
    FAILS_T(ct_kron(ct_t(Z(CT_SHAPE(3, 2))), Z(CT_SHAPE(4, 5))), CT_ERR_RUNTIME, no_view);
    FAILS_T(ct_kron(Z(CT_SHAPE(4, 5)), ct_t(Z(CT_SHAPE(3, 2)))), CT_ERR_RUNTIME, no_view);
    FAILS_T(ct_kron(Z(CT_SHAPE(1, 1, 1, 1, 1, 1, 1, 1, 1)), Z(CT_SHAPE(2))), CT_ERR_RUNTIME,
            "kron: inputs of 9 dimensions would need 18, more than CT_MAX_DIMS (16)");
    FAILS_NULL(ct_kron(NULL_T, Z(CT_SHAPE(2))), "kron(): argument 'input' (position 1)");
    FAILS_NULL(ct_kron(Z(CT_SHAPE(2)), NULL_T), "kron(): argument 'other' (position 2)");
}

static void test_cross_errors(void)
{
    ct_tensor *m = Z(CT_SHAPE(4, 3)), *s = ct_zeros(CT_SHAPE0, CT_F32);
    FAILS_T(ct_cross(Z(CT_SHAPE(4, 5)), Z(CT_SHAPE(4, 5))), CT_ERR_RUNTIME, "no dimension of size 3 in input");
    FAILS_T(ct_cross(Z(CT_SHAPE(4, 1)), m), CT_ERR_RUNTIME, "no dimension of size 3 in input");
    FAILS_T(ct_cross(s, s), CT_ERR_RUNTIME, "no dimension of size 3 in input");
    FAILS_T(ct_cross_dim(s, s, 0), CT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    FAILS_T(ct_linalg_cross(s, s, -1), CT_ERR_INDEX, "Dimension specified as -1 but tensor has no dimensions");
    FAILS_T(ct_cross_dim(m, m, 0), CT_ERR_RUNTIME, "linalg.cross: inputs dimension 0 must have length 3. Got 4 and 4");
    FAILS_T(ct_linalg_cross(Z(CT_SHAPE(3, 4)), Z(CT_SHAPE(3, 4)), -1), CT_ERR_RUNTIME,
            "linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4");
    FAILS_T(ct_linalg_cross(Z(CT_SHAPE(2, 3)), Z(CT_SHAPE(2, 4)), 1), CT_ERR_RUNTIME,
            "linalg.cross: inputs dimension 1 must have length 3. Got 3 and 4");
    FAILS_T(ct_cross_dim(m, m, 2), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    FAILS_T(ct_cross(Z(CT_SHAPE(3)), m), CT_ERR_RUNTIME,
            "linalg.cross: inputs must have the same number of dimensions.");
    FAILS_T(ct_linalg_cross(m, Z(CT_SHAPE(3)), 5), CT_ERR_RUNTIME,
            "linalg.cross: inputs must have the same number of dimensions.");
    FAILS_T(ct_cross(Z(CT_SHAPE(2, 3)), m), CT_ERR_RUNTIME,
            "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0");
    FAILS_T(ct_cross(m, ct_zeros(CT_SHAPE(4, 3), CT_F64)), CT_ERR_RUNTIME,
            "expected scalar type Float but found Double");
    FAILS_T(ct_cross(Z(CT_SHAPE(0, 3)), ct_zeros(CT_SHAPE(0, 3), CT_F64)), CT_ERR_RUNTIME,
            "expected scalar type Float but found Double");
    FAILS_T(ct_cross(ct_zeros(CT_SHAPE(4, 3), CT_I32), ct_zeros(CT_SHAPE(4, 3), CT_I64)), CT_ERR_RUNTIME,
            "expected scalar type Int but found Long");
    FAILS_T(ct_cross(ct_zeros(CT_SHAPE(4, 3), CT_F16), m), CT_ERR_RUNTIME, "\"cross\" not implemented for 'Half'");
    FAILS_T(ct_cross(m, ct_zeros(CT_SHAPE(4, 3), CT_F16)), CT_ERR_RUNTIME, "expected scalar type Float but found Half");
    FAILS_T(ct_cross(ct_zeros(CT_SHAPE(4, 3), CT_BOOL), ct_zeros(CT_SHAPE(4, 3), CT_BOOL)), CT_ERR_RUNTIME,
            "\"cross\" not implemented for 'Bool'");
    FAILS_NULL(ct_cross(NULL_T, m), "cross(): argument 'input' (position 1)");
    FAILS_NULL(ct_cross(m, NULL_T), "cross(): argument 'other' (position 2)");
    FAILS_NULL(ct_cross_dim(NULL_T, m, 1), "cross_dim(): argument 'input' (position 1)");
    FAILS_NULL(ct_linalg_cross(NULL_T, m, -1), "linalg_cross(): argument 'input' (position 1)");
    FAILS_NULL(ct_linalg_cross(m, NULL_T, -1), "linalg_cross(): argument 'other' (position 2)");
}

int main(void)
{
    RUN(test_einsum_equation_errors);
    RUN(test_einsum_size_errors);
    RUN(test_einsum_arguments);
    RUN(test_tensordot_errors);
    RUN(test_kron_errors);
    RUN(test_cross_errors);
    return ct_test_report();
}
