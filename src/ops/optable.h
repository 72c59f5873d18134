/* Private: the op table. Every pointwise op is one line here; the list makes
 * the op enum, the names, and the dtype rule each front end applies, and the
 * tests walk it so that no op escapes a golden test.
 *
 * X(name, arity, rule, forms, kernel):
 *   name    PyTorch's name (ct_<name> is the public function)
 *   arity   1 (unary) or 2 (binary)
 *   rule    how the result dtype follows from the inputs:
 *             SAME   the (promoted) input dtype
 *             FLOAT  the promoted dtype, integers and bool becoming the default float
 *             BOOL   bool (comparisons, tests, logic), computed in the promoted dtype
 *   forms   the public functions PyTorch has for it:
 *             U   ct_<name>(t)              UI  and ct_<name>_(t)
 *             B   ct_<name>(a, b)           BI  and ct_<name>_(a, b)
 *             BS  and ct_<name>_scalar(a, s)   BSI all four
 *   kernel  PyTorch's kernel name, for "not implemented for 'Bool'" messages
 */
#define CT__POINTWISE_OPS(X)                        \
    X(neg, 1, SAME, UI, "neg_cpu")                  \
    X(abs, 1, SAME, UI, "abs_cpu")                  \
    X(floor, 1, SAME, UI, "floor_vml_cpu")          \
    X(exp, 1, FLOAT, UI, "exp_vml_cpu")             \
    X(log, 1, FLOAT, UI, "log_vml_cpu")             \
    X(sqrt, 1, FLOAT, UI, "sqrt_vml_cpu")           \
    X(tanh, 1, FLOAT, UI, "tanh_vml_cpu")           \
    X(sigmoid, 1, FLOAT, UI, "sigmoid_cpu")         \
    X(relu, 1, SAME, UI, "clamp_min_cpu")           \
    X(isnan, 1, BOOL, U, "isnan_cpu")               \
    X(logical_not, 1, BOOL, UI, "logical_not_cpu")  \
    X(add, 2, SAME, BSI, "add_cpu")                 \
    X(sub, 2, SAME, BSI, "sub_cpu")                 \
    X(mul, 2, SAME, BSI, "mul_cpu")                 \
    X(div, 2, FLOAT, BSI, "div_true_cpu")           \
    X(maximum, 2, SAME, B, "maximum_cpu")           \
    X(pow, 2, SAME, BSI, "pow")                     \
    X(eq, 2, BOOL, BSI, "eq_cpu")                   \
    X(lt, 2, BOOL, BSI, "lt_cpu")                   \
    X(logical_and, 2, BOOL, BI, "logical_and_cpu")

/* Every op: the pointwise ops above, then the families that list their names
 * in their own headers (src/ops/<family>_ops.h). The enum and ct_op_name cover all;
 * pointwise ops come first, so ct__ops[] below is indexed by their enum. */
#define CT__FAMILY_OP_NAMES(X) CT__REDUCE_OP_NAMES(X) CT__JOIN_OP_NAMES(X) CT__SORT_OP_NAMES(X)

typedef enum ct__op {
#define CT__OP_ENUM(name) CT__OP_##name,
#define CT__OP_ENUM_POINTWISE(name, arity, rule, forms, kernel) CT__OP_##name,
    CT__POINTWISE_OPS(CT__OP_ENUM_POINTWISE) CT__FAMILY_OP_NAMES(CT__OP_ENUM)
#undef CT__OP_ENUM_POINTWISE
#undef CT__OP_ENUM
    CT__NUM_OPS
} ct__op;

static const char *const ct__op_names[CT__NUM_OPS] = {
#define CT__OP_NAME(name) #name,
#define CT__OP_NAME_POINTWISE(name, arity, rule, forms, kernel) #name,
    CT__POINTWISE_OPS(CT__OP_NAME_POINTWISE) CT__FAMILY_OP_NAMES(CT__OP_NAME)
#undef CT__OP_NAME_POINTWISE
#undef CT__OP_NAME
};

typedef enum ct__dtype_rule { CT__RULE_SAME, CT__RULE_FLOAT, CT__RULE_BOOL } ct__dtype_rule;

typedef struct ct__op_info {
    const char *name;
    int arity;
    ct__dtype_rule rule;
    const char *kernel;
} ct__op_info;

#define CT__POINTWISE_COUNT(name, arity, rule, forms, kernel) +1
enum { CT__NUM_POINTWISE = 0 CT__POINTWISE_OPS(CT__POINTWISE_COUNT) };
#undef CT__POINTWISE_COUNT

static const ct__op_info ct__ops[CT__NUM_POINTWISE] = {
#define CT__OP_INFO(name, arity, rule, forms, kernel) {#name, arity, CT__RULE_##rule, kernel},
    CT__POINTWISE_OPS(CT__OP_INFO)
#undef CT__OP_INFO
};

/* Extra arguments of a pointwise kernel (alpha of add/sub, a scalar's value...). */
typedef struct ct__op_args {
    double alpha;
    int64_t alpha_i;   /* alpha for integral dtypes */
    bool number_other; /* the second operand is a Python number (pow specialises on it) */
    ct_dtype compute;  /* the dtype PyTorch computes in, before float16/bfloat16 become float32 */
} ct__op_args;
