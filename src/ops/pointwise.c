/* Pointwise ops: type promotion, broadcasting, in-place rules, and the
 * public functions, which all go through ct__pointwise. */

/* ---------------------------------------------------------------- type promotion */

/* PyTorch's ResultTypeState: tensors with dims outrank 0-d tensors, which
 * outrank Python numbers, unless a lower group brings a higher category
 * (bool < integral < floating). */
typedef struct ct__type_state {
    ct_dtype dim, zero, wrapped; /* CT_DEFAULT: none seen */
} ct__type_state;

static ct_dtype ct__promote_skip(ct_dtype a, ct_dtype b)
{
    return a == CT_DEFAULT ? b : b == CT_DEFAULT ? a : ct_promote_types(a, b);
}

static void ct__type_state_add(ct__type_state *st, const ct_tensor *t)
{
    if (t->wrapped_number)
        st->wrapped = ct__promote_skip(st->wrapped, ct_dtype_is_floating(t->dtype) ? ct__default_dtype : t->dtype);
    else if (t->ndim > 0)
        st->dim = ct__promote_skip(st->dim, t->dtype);
    else
        st->zero = ct__promote_skip(st->zero, t->dtype);
}

static ct_dtype ct__combine_categories(ct_dtype higher, ct_dtype lower)
{
    if (ct_dtype_is_floating(higher)) return higher;
    if (higher == CT_BOOL || ct_dtype_is_floating(lower)) return ct__promote_skip(higher, lower);
    return higher != CT_DEFAULT ? higher : lower;
}

static ct_dtype ct__type_state_result(const ct__type_state *st)
{
    return ct__combine_categories(st->dim, ct__combine_categories(st->zero, st->wrapped));
}

static ct_dtype ct__result_type(const ct_tensor *const *ts, int n)
{
    ct__type_state st = {CT_DEFAULT, CT_DEFAULT, CT_DEFAULT};
    for (int i = 0; i < n; i++) ct__type_state_add(&st, ts[i]);
    return ct__type_state_result(&st);
}

/* A Python number as a 0-d wrapped-number tensor on the stack: no allocation,
 * never registered, never released. */
typedef struct ct__stack_scalar {
    ct_tensor t;
    ct__storage s;
    uint64_t value;
} ct__stack_scalar;

static ct_tensor *ct__stack_scalar_init(ct__stack_scalar *ss, ct_scalar v)
{
    memset(ss, 0, sizeof *ss);
    ss->s.refcount = 1;
    ss->s.data = &ss->value;
    ss->s.nbytes = sizeof ss->value;
    ss->s.device = ct__cpu;
    ss->t.refcount = 1;
    ss->t.dtype = v.kind;
    ss->t.storage = &ss->s;
    ss->t.wrapped_number = true;
    if (v.kind == CT_F64) memcpy(&ss->value, &v.v.f, 8);
    else if (v.kind == CT_I64) memcpy(&ss->value, &v.v.i, 8);
    else ss->value = v.v.b;
    return &ss->t;
}

ct_dtype ct_result_type(const ct_tensor *a, const ct_tensor *b)
{
    if (!a || !b) return (ct__null_arg(__func__, a ? "other" : "tensor", a ? 2 : 1), CT_DEFAULT);
    const ct_tensor *ts[2] = {a, b};
    return ct__result_type(ts, 2);
}

ct_dtype ct_result_type_scalar(const ct_tensor *t, ct_scalar s)
{
    ct__stack_scalar ss;
    if (!t) return (ct__null_arg(__func__, "tensor", 1), CT_DEFAULT);
    const ct_tensor *ts[2] = {t, ct__stack_scalar_init(&ss, s)};
    return ct__result_type(ts, 2);
}

/* ---------------------------------------------------------------- the front end */

/* Refusals PyTorch makes before looking for a kernel. */
static ct_result ct__pointwise_refusals(ct__op op, const ct_tensor *a, const ct_tensor *b, ct_dtype common)
{
    if (op == CT__OP_neg && a->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                                        "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    if (op == CT__OP_sub && a->dtype == CT_BOOL && b->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                                        "the `^` or `logical_xor()` operator instead.");
    if (op == CT__OP_sub && (a->dtype == CT_BOOL || b->dtype == CT_BOOL))
        return ct__fail(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                                        "are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    if (op == CT__OP_relu && a->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Boolean inputs not supported for relu");
    /* a number exponent must be non-negative for an integral power (tensors get 1, -1 or 0) */
    if (op == CT__OP_pow && b->wrapped_number && !ct_dtype_is_floating(common) && b->dtype != CT_F64 &&
        ct__read_i64(ct__data(b), b->dtype) < 0)
        return ct__fail(CT_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
    return CT_OK;
}

/* The dtype an op's kernel computes in and the dtype of its result. */
static void ct__pointwise_dtypes(ct__op op, ct_dtype common, ct_dtype *compute, ct_dtype *result)
{
    *compute = ct__ops[op].rule == CT__RULE_FLOAT && !ct_dtype_is_floating(common) ? ct__default_dtype : common;
    *result = ct__ops[op].rule == CT__RULE_BOOL ? CT_BOOL : *compute;
}

/* x as dtype dt: itself when it already is; a wrapped scalar stays on the stack. */
static const ct_tensor *ct__as_dtype(const ct_tensor *x, ct_dtype dt, ct__stack_scalar *ss)
{
    if (x->dtype == dt) return x;
    if (x->wrapped_number) {
        double v = ct__read_f64(ct__data(x), x->dtype);
        int64_t i = ct__read_i64(ct__data(x), x->dtype);
        ct__stack_scalar_init(ss, ct_int(0));
        ss->t.dtype = dt;
        if (x->dtype == CT_F64) ct__write_f64(&ss->value, dt, v);
        else ct__write_i64(&ss->value, dt, i);
        return &ss->t;
    }
    return ct_to(x, dt);
}

/* op(a[, b]) into *out: a new tensor when *out is NULL, else in place into
 * *out (which is a). Temporaries live in an internal scope. */
static ct_result ct__pointwise(ct__op op, ct_tensor **out, const ct_tensor *a, const ct_tensor *b,
                               const ct__op_args *args)
{
    const ct_tensor *in[2] = {a, b};
    int arity = ct__ops[op].arity;
    ct_dtype common = arity == 1 ? a->dtype : ct__result_type(in, 2), compute, result;
    ct_result r = ct__pointwise_refusals(op, a, b, common);
    if (r != CT_OK) return r;
    ct__pointwise_dtypes(op, common, &compute, &result);
    /* float16 and bfloat16 compute in float32 and round once, as PyTorch's opmath does */
    ct_dtype kernel = compute == CT_F16 || compute == CT_BF16 ? CT_F32 : compute;
    ct_dtype kernel_out = ct__ops[op].rule == CT__RULE_BOOL ? CT_BOOL : kernel;
    if (!ct__backend_for(a->storage->device.type)->has_pointwise(op, kernel))
        return ct__not_implemented(ct__ops[op].kernel, compute);
    int64_t shape[CT_MAX_DIMS];
    int ndim = a->ndim;
    memcpy(shape, a->sizes, sizeof shape);
    if (arity > 1 && ct__broadcast_shapes(a->sizes, a->ndim, b->sizes, b->ndim, shape, &ndim) != CT_OK)
        return ct_last_error_code();
    if (*out) { /* in place: the result must fit self's shape and dtype */
        char b1[256], b2[256];
        if (ndim != (*out)->ndim || memcmp(shape, (*out)->sizes, (size_t)ndim * sizeof(int64_t)))
            return ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                            ct__shape_str((*out)->sizes, (*out)->ndim, b1, sizeof b1), ct__shape_str(shape, ndim, b2, sizeof b2));
        if (!ct_can_cast(result, (*out)->dtype))
            return ct__fail(CT_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                            ct__dtype_title(result), ct__dtype_title((*out)->dtype));
        if ((r = ct__check_write(*out, arity > 1 && b != *out ? b : NULL)) != CT_OK) return r;
    }
    ct_scope s = ct_scope_begin();
    ct__stack_scalar ss[2];
    const ct_tensor *kin[2] = {ct__as_dtype(a, kernel, &ss[0]), arity > 1 ? ct__as_dtype(b, kernel, &ss[1]) : NULL};
    ct_tensor *dst = NULL;
    if (kin[0] && (arity == 1 || kin[1])) {
        bool direct = *out && (*out)->dtype == kernel_out;
        if (direct) {
            dst = *out;
        } else {
            int64_t strides[CT_MAX_DIMS];
            ct__dense_strides_for(in, arity, shape, ndim, strides);
            dst = ct__alloc_strided(shape, strides, ndim, kernel_out, ct__cpu);
        }
        ct__op_args kargs = *args;
        kargs.number_other = arity > 1 && b->wrapped_number;
        kargs.compute = compute;
        if (dst && ct_numel(dst)) ct__backend_for(a->storage->device.type)->pointwise(op, dst, kin, &kargs);
        /* round to the result dtype (float16, bfloat16) or to self's dtype (in place) */
        if (dst && *out && !direct) ct__copy_unchecked(*out, dst);
        else if (dst && kernel_out != result) dst = ct_to(dst, result);
        if (dst && !*out) *out = ct_keep(dst);
    }
    r = dst ? CT_OK : ct_last_error_code();
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- public functions */

static const ct__op_args ct__no_args = {1.0, 1, false, CT_DEFAULT};

static ct_tensor *ct__pointwise_new(ct__op op, const ct_tensor *a, const ct_tensor *b, const ct__op_args *args)
{
    ct_tensor *out = NULL;
    return ct__pointwise(op, &out, a, b, args) == CT_OK ? out : NULL;
}

static ct_result ct__pointwise_inplace(ct__op op, ct_tensor *self, const ct_tensor *b, const ct__op_args *args)
{
    ct_tensor *out = self;
    return ct__pointwise(op, &out, self, b, args);
}

/* The public functions of each op, made from its forms in the op table. */
#define CT__FORM_FN(name)                                                        \
    ct_tensor *ct_##name(const ct_tensor *t)                                     \
    {                                                                            \
        CT__ARG(t, "input", 1);                                                  \
        return ct__pointwise_new(CT__OP_##name, t, NULL, &ct__no_args);          \
    }
#define CT__FORM_FN_(name)                                                       \
    ct_result ct_##name##_(ct_tensor *t)                                         \
    {                                                                            \
        CT__ARG_R(t, "input", 1);                                                \
        return ct__pointwise_inplace(CT__OP_##name, t, NULL, &ct__no_args);      \
    }
#define CT__FORM_FN2(name)                                                       \
    ct_tensor *ct_##name(const ct_tensor *a, const ct_tensor *b)                 \
    {                                                                            \
        CT__ARG(a, "input", 1);                                                  \
        CT__ARG(b, "other", 2);                                                  \
        return ct__pointwise_new(CT__OP_##name, a, b, &ct__no_args);             \
    }
#define CT__FORM_FN2_(name)                                                      \
    ct_result ct_##name##_(ct_tensor *a, const ct_tensor *b)                     \
    {                                                                            \
        CT__ARG_R(a, "input", 1);                                                \
        CT__ARG_R(b, "other", 2);                                                \
        return ct__pointwise_inplace(CT__OP_##name, a, b, &ct__no_args);         \
    }
#define CT__FORM_FN2_SCALAR(name)                                                \
    ct_tensor *ct_##name##_scalar(const ct_tensor *a, ct_scalar b)               \
    {                                                                            \
        ct__stack_scalar ss;                                                     \
        CT__ARG(a, "input", 1);                                                  \
        return ct__pointwise_new(CT__OP_##name, a, ct__stack_scalar_init(&ss, b), &ct__no_args); \
    }
#define CT__FORM_FN2_SCALAR_(name)                                               \
    ct_result ct_##name##_scalar_(ct_tensor *a, ct_scalar b)                     \
    {                                                                            \
        ct__stack_scalar ss;                                                     \
        CT__ARG_R(a, "input", 1);                                                \
        return ct__pointwise_inplace(CT__OP_##name, a, ct__stack_scalar_init(&ss, b), &ct__no_args); \
    }
#define CT__FORMS_U(name) CT__FORM_FN(name)
#define CT__FORMS_UI(name) CT__FORM_FN(name) CT__FORM_FN_(name)
#define CT__FORMS_B(name) CT__FORM_FN2(name)
#define CT__FORMS_BI(name) CT__FORM_FN2(name) CT__FORM_FN2_(name)
#define CT__FORMS_BS(name) CT__FORM_FN2(name) CT__FORM_FN2_SCALAR(name)
#define CT__FORMS_BSI(name) CT__FORM_FN2(name) CT__FORM_FN2_(name) CT__FORM_FN2_SCALAR(name) CT__FORM_FN2_SCALAR_(name)
#define CT__DEFINE_FORMS(name, arity, rule, forms, kernel) CT__FORMS_##forms(name)
CT__POINTWISE_OPS(CT__DEFINE_FORMS)
#undef CT__DEFINE_FORMS

/* add and sub with alpha: x + alpha * y */
static ct__op_args ct__alpha_args(ct_scalar alpha)
{
    ct__op_args a;
    a.alpha = ct_scalar_to_double(alpha);
    a.alpha_i = alpha.kind == CT_F64 ? (int64_t)alpha.v.f : alpha.kind == CT_BOOL ? alpha.v.b : alpha.v.i;
    a.number_other = false;
    a.compute = CT_DEFAULT;
    return a;
}

static ct_result ct__check_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    const ct_tensor *ts[2] = {a, b};
    ct_dtype common = ct__result_type(ts, 2);
    if (alpha.kind == CT_F64 && !ct_dtype_is_floating(common))
        return ct__fail(CT_ERR_RUNTIME, "For integral input tensors, argument alpha must not be a floating point number.");
    if (alpha.kind != CT_BOOL && common == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
    return CT_OK;
}

ct_tensor *ct_add_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    ct__op_args args = ct__alpha_args(alpha);
    return ct__check_alpha(a, b, alpha) == CT_OK ? ct__pointwise_new(CT__OP_add, a, b, &args) : NULL;
}

ct_tensor *ct_sub_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    ct__op_args args = ct__alpha_args(alpha);
    return ct__check_alpha(a, b, alpha) == CT_OK ? ct__pointwise_new(CT__OP_sub, a, b, &args) : NULL;
}

ct_result ct_add_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    ct__op_args args = ct__alpha_args(alpha);
    ct_result r = ct__check_alpha(a, b, alpha);
    return r == CT_OK ? ct__pointwise_inplace(CT__OP_add, a, b, &args) : r;
}

ct_result ct_sub_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    ct__op_args args = ct__alpha_args(alpha);
    ct_result r = ct__check_alpha(a, b, alpha);
    return r == CT_OK ? ct__pointwise_inplace(CT__OP_sub, a, b, &args) : r;
}

int ct_op_count(void) { return CT__NUM_OPS; }
const char *ct_op_name(int i) { return i >= 0 && i < CT__NUM_OPS ? ct__op_names[i] : NULL; }
