/* The op table. Every pointwise op with a kernel is one line here;
 * the list makes the op enum, the names, and the dtype rule each front end
 * applies, and the tests walk it so that no op escapes a golden test.
 *
 * X(name, arity, rule, forms, kernel):
 *   name    PyTorch's name (ct_<name> is the public function)
 *   arity   1 (unary), 2 (binary) or 3 (ternary) tensor operands
 *   rule    how the result dtype follows from the inputs:
 *             SAME   the (promoted) input dtype
 *             FLOAT  the promoted dtype, integers and bool becoming the default float
 *             BOOL   bool (comparisons, tests, logic), computed in the promoted dtype
 *             COND   the first input is a bool condition, the others are promoted
 *             EXACT  no promotion: every input must have the first one's dtype
 *   forms   the public functions generated for it (H: written by hand, with
 *           the op's parameters):
 *             U   ct_<name>(t)              UI  and ct_<name>_(t)
 *             B   ct_<name>(a, b)           BI  and ct_<name>_(a, b)
 *             BSI and ct_<name>_scalar(a, s), ct_<name>_scalar_(a, s)
 *   kernel  PyTorch's kernel name, for "not implemented for 'Bool'" messages
 */
#define CT__POINTWISE_OPS(X)                              \
    X(neg, 1, SAME, UI, "neg_cpu")                        \
    X(abs, 1, SAME, UI, "abs_cpu")                        \
    X(reciprocal, 1, FLOAT, UI, "reciprocal_cpu")         \
    X(sign, 1, SAME, UI, "sign_cpu")                      \
    X(round, 1, SAME, H, "round_vml_cpu")                 \
    X(floor, 1, SAME, UI, "floor_vml_cpu")                \
    X(ceil, 1, SAME, UI, "ceil_vml_cpu")                  \
    X(trunc, 1, SAME, UI, "trunc_vml_cpu")                \
    X(frac, 1, SAME, UI, "frac_cpu")                      \
    X(exp, 1, FLOAT, UI, "exp_vml_cpu")                   \
    X(exp2, 1, FLOAT, UI, "exp2_cpu")                     \
    X(expm1, 1, FLOAT, UI, "expm1_vml_cpu")               \
    X(log, 1, FLOAT, UI, "log_vml_cpu")                   \
    X(log2, 1, FLOAT, UI, "log2_vml_cpu")                 \
    X(log10, 1, FLOAT, UI, "log10_vml_cpu")               \
    X(log1p, 1, FLOAT, UI, "log1p_vml_cpu")               \
    X(sqrt, 1, FLOAT, UI, "sqrt_vml_cpu")                 \
    X(rsqrt, 1, FLOAT, UI, "rsqrt_cpu")                   \
    X(sin, 1, FLOAT, UI, "sin_vml_cpu")                   \
    X(cos, 1, FLOAT, UI, "cos_vml_cpu")                   \
    X(tan, 1, FLOAT, UI, "tan_vml_cpu")                   \
    X(asin, 1, FLOAT, UI, "asin_vml_cpu")                 \
    X(acos, 1, FLOAT, UI, "acos_vml_cpu")                 \
    X(atan, 1, FLOAT, UI, "atan_vml_cpu")                 \
    X(sinh, 1, FLOAT, UI, "sinh_cpu")                     \
    X(cosh, 1, FLOAT, UI, "cosh_cpu")                     \
    X(tanh, 1, FLOAT, UI, "tanh_vml_cpu")                 \
    X(asinh, 1, FLOAT, UI, "asinh_cpu")                   \
    X(acosh, 1, FLOAT, UI, "acosh_cpu")                   \
    X(atanh, 1, FLOAT, UI, "atanh_cpu")                   \
    X(erf, 1, FLOAT, UI, "erf_vml_cpu")                   \
    X(erfc, 1, FLOAT, UI, "erfc_vml_cpu")                 \
    X(erfinv, 1, FLOAT, UI, "erfinv_vml_cpu")             \
    X(lgamma, 1, FLOAT, UI, "lgamma_vml_cpu")             \
    X(digamma, 1, FLOAT, UI, "digamma")                   \
    X(polygamma, 1, FLOAT, H, "polygamma")                \
    X(sigmoid, 1, FLOAT, UI, "sigmoid_cpu")               \
    X(logit, 1, FLOAT, H, "logit_cpu")                    \
    X(relu, 1, SAME, UI, "clamp_min_cpu")                 \
    X(leaky_relu, 1, SAME, H, "leaky_relu_cpu")           \
    X(elu, 1, SAME, H, "elu_cpu")                         \
    X(gelu, 1, SAME, H, "GeluKernelImpl")                 \
    X(silu, 1, SAME, UI, "silu_cpu")                      \
    X(mish, 1, SAME, UI, "mish_cpu")                      \
    X(softplus, 1, SAME, H, "softplus_cpu")               \
    X(hardsigmoid, 1, SAME, UI, "hardsigmoid_cpu")        \
    X(hardswish, 1, SAME, UI, "hardswish_cpu")            \
    X(threshold_backward, 2, SAME, H, "threshold_cpu")    \
    X(tanh_backward, 2, SAME, H, "tanh_backward_cpu")     \
    X(sigmoid_backward, 2, SAME, H, "sigmoid_backward_cpu") \
    X(gelu_backward, 2, SAME, H, "GeluBackwardKernelImpl") \
    X(isnan, 1, BOOL, U, "isnan_cpu")                     \
    X(isinf, 1, BOOL, U, "isinf_cpu")                     \
    X(isfinite, 1, BOOL, U, "isfinite_cpu")               \
    X(logical_not, 1, BOOL, UI, "logical_not_cpu")        \
    X(bitwise_not, 1, SAME, UI, "bitwise_not_cpu")        \
    X(nan_to_num, 1, SAME, H, "nan_to_num")               \
    X(add, 2, SAME, BSI, "add_cpu")                       \
    X(sub, 2, SAME, BSI, "sub_cpu")                       \
    X(mul, 2, SAME, BSI, "mul_cpu")                       \
    X(div, 2, FLOAT, BSI, "div_true_cpu")                 \
    X(remainder, 2, SAME, BSI, "remainder_cpu")           \
    X(fmod, 2, SAME, BSI, "fmod_cpu")                     \
    X(pow, 2, SAME, BSI, "pow")                           \
    X(maximum, 2, SAME, B, "maximum_cpu")                 \
    X(minimum, 2, SAME, B, "minimum_cpu")                 \
    X(fmax, 2, SAME, B, "fmax_cpu")                       \
    X(fmin, 2, SAME, B, "fmin_cpu")                       \
    X(copysign, 2, FLOAT, BSI, "copysign_cpu")            \
    X(hypot, 2, SAME, BI, "hypot_cpu")                    \
    X(atan2, 2, FLOAT, BI, "atan2_cpu")                   \
    X(xlogy, 2, FLOAT, BSI, "xlogy_cpu")                  \
    X(eq, 2, BOOL, BSI, "eq_cpu")                         \
    X(ne, 2, BOOL, BSI, "ne_cpu")                         \
    X(lt, 2, BOOL, BSI, "lt_cpu")                         \
    X(le, 2, BOOL, BSI, "le_cpu")                         \
    X(gt, 2, BOOL, BSI, "gt_cpu")                         \
    X(ge, 2, BOOL, BSI, "ge_cpu")                         \
    X(logical_and, 2, BOOL, BI, "logical_and_cpu")        \
    X(logical_or, 2, BOOL, BI, "logical_or_cpu")          \
    X(logical_xor, 2, BOOL, BI, "logical_xor_cpu")        \
    X(bitwise_and, 2, SAME, BSI, "bitwise_and_cpu")       \
    X(bitwise_or, 2, SAME, BSI, "bitwise_or_cpu")         \
    X(bitwise_xor, 2, SAME, BSI, "bitwise_xor_cpu")       \
    X(bitwise_left_shift, 2, SAME, BSI, "lshift_cpu")     \
    X(bitwise_right_shift, 2, SAME, BSI, "rshift_cpu")    \
    X(addcmul, 3, SAME, H, "addcmul_cpu_out")             \
    X(addcdiv, 3, SAME, H, "addcdiv_cpu_out")             \
    X(lerp, 3, EXACT, H, "lerp_kernel_tensor")            \
    X(clamp, 3, SAME, H, "clamp_cpu")                     \
    X(where, 3, COND, H, "where_cpu")

/* Public pointwise ops that run on the kernels of others (floor_divide is
 * div's floor mode, clamp_min is maximum, hardtanh is clamp...) or are made
 * of several ops (isclose), named here so that the tests cover them too. */
#define CT__POINTWISE_DERIVED_OPS(X) \
    X(floor_divide) X(rsub) X(rdiv) X(rpow) X(clamp_min) X(clamp_max) X(hardtanh) X(relu6) X(selu) X(celu) \
    X(isclose) X(allclose) X(equal)

/* Every op: the pointwise ops above, then the families that list their names
 * in their own headers (src/ops/<family>_ops.h). The enum and ct_op_name cover
 * all; pointwise ops with kernels come first, so ct__ops[] below is indexed
 * by their enum. */
#define CT__FAMILY_OP_NAMES(X) \
    CT__POINTWISE_DERIVED_OPS(X) CT__REDUCE_OP_NAMES(X) CT__JOIN_OP_NAMES(X) CT__SORT_OP_NAMES(X)

typedef enum ct__op {
#define CT__OP_ENUM(name) CT__OP_##name,
#define CT__OP_ENUM_POINTWISE(name, arity, rule, forms, kernel) CT__OP_##name,
    CT__POINTWISE_OPS(CT__OP_ENUM_POINTWISE) CT__FAMILY_OP_NAMES(CT__OP_ENUM)
#undef CT__OP_ENUM_POINTWISE
#undef CT__OP_ENUM
    CT__NUM_OPS
} ct__op;

#ifdef CTORCH_IMPLEMENTATION /* (a backend compiled apart has no use for the names) */
static const char *const ct__op_names[CT__NUM_OPS] = {
#define CT__OP_NAME(name) #name,
#define CT__OP_NAME_POINTWISE(name, arity, rule, forms, kernel) #name,
    CT__POINTWISE_OPS(CT__OP_NAME_POINTWISE) CT__FAMILY_OP_NAMES(CT__OP_NAME)
#undef CT__OP_NAME_POINTWISE
#undef CT__OP_NAME
};
#endif

typedef enum ct__dtype_rule { CT__RULE_SAME, CT__RULE_FLOAT, CT__RULE_BOOL, CT__RULE_COND, CT__RULE_EXACT } ct__dtype_rule;

typedef struct ct__op_info {
    const char *name;
    int arity;
    ct__dtype_rule rule;
    const char *kernel;
} ct__op_info;

#define CT__POINTWISE_COUNT(name, arity, rule, forms, kernel) +1
enum { CT__NUM_POINTWISE = 0 CT__POINTWISE_OPS(CT__POINTWISE_COUNT) };
#undef CT__POINTWISE_COUNT

/* Each pointwise op's name, operand count (a backend's pointwise entry gets
 * that many inputs), dtype rule and kernel name. */
static const ct__op_info ct__ops[CT__NUM_POINTWISE] = {
#define CT__OP_INFO(name, arity, rule, forms, kernel) {#name, arity, CT__RULE_##rule, kernel},
    CT__POINTWISE_OPS(CT__OP_INFO)
#undef CT__OP_INFO
};

/* Extra arguments of a pointwise kernel. The front end fills what an op
 * uses; the kernels read them with the op's meaning:
 *   alpha     add/sub alpha, addcmul/addcdiv value, lerp's number weight,
 *             threshold_backward's threshold (0 without a value): `value`
 *             converted to the compute dtype (alpha_i for integral kernels)
 *   p[0..2]   round: 10^|decimals|; logit: eps; leaky_relu: slope;
 *             elu: alpha, scale, input_scale; softplus: beta, threshold;
 *             nan_to_num: the values for NaN, +inf and -inf
 *   mode      div: its ct_rounding_mode; round: 1 for decimals > 0, 2 for
 *             decimals < 0, 3 for decimals == 0; gelu: its ct_gelu_approximate,
 *             or 2 for bfloat16 roundings; gelu_backward: its
 *             ct_gelu_approximate; lerp: 1 when the weight is alpha;
 *             polygamma: n
 *   derived   the public op a call is when it runs on another op's kernel
 *             (clamp_min on maximum's, hardtanh on clamp's, celu on elu's,
 *             floor_divide on div's), for its autograd node; 0 when it is
 *             the kernel's own op (neg, the first, is never derived) */
typedef struct ct__op_args {
    double alpha;
    int64_t alpha_i;
    ct_scalar value;    /* alpha or value, when has_value */
    bool has_value;
    double p[3];
    int mode;
    bool checked;       /* number operands convert with an overflow check (bounds, weights) */
    bool opmath;        /* value converts to float, not to float16/bfloat16 (PyTorch's
                           opmath: addcmul, addcdiv, lerp's weight) */
    bool scalar_clamp;  /* PyTorch's clamps with number bounds: no bool kernel, and a
                           cast error names self's C++ type */
    const char *kernel; /* the kernel name for this form, when not the table's (NULL) */
    ct__op derived;
    bool number_other;  /* set by the front end: the second operand is a Python number */
    ct_dtype compute;   /* set by the front end: the dtype PyTorch computes in */
    bool alike;         /* set by the front end: every operand is contiguous with the
                           result's sizes or 0-d (a number, broadcast): a kernel
                           need not check the layout */
} ct__op_args;
