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

/* ss holding one element of dtype dt, copied from elem. */
static ct_tensor *ct__stack_elem_init(ct__stack_scalar *ss, ct_dtype dt, const void *elem)
{
    memset(ss, 0, sizeof *ss);
    ss->s.refcount = 1;
    ss->s.data = &ss->value;
    ss->s.nbytes = sizeof ss->value;
    ss->s.device = ct__cpu;
    ss->t.refcount = 1;
    ss->t.dtype = dt;
    ss->t.storage = &ss->s;
    ss->t.wrapped_number = true;
    memcpy(&ss->value, elem, ct_dtype_size(dt));
    return &ss->t;
}

static ct_tensor *ct__stack_scalar_init(ct__stack_scalar *ss, ct_scalar v)
{
    return ct__stack_elem_init(ss, v.kind, &v.v);
}

/* The Python number a stack scalar holds. */
static ct_scalar ct__stack_scalar_value(const ct_tensor *t)
{
    ct_scalar s;
    memset(&s, 0, sizeof s);
    s.kind = t->dtype;
    memcpy(&s.v, ct__data(t), ct_dtype_size(t->dtype));
    return s;
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

static const char *ct__kernel_name(ct__op op, const ct__op_args *args)
{
    return args->kernel ? args->kernel : ct__ops[op].kernel;
}


/* The dtype the inputs are promoted to, or CT_DEFAULT with the error set. */
static ct_dtype ct__pointwise_common(ct__op op, const ct_tensor *const *in)
{
    static const char *const exact_names[3] = {"self", "end", "weight"};
    int n = ct__ops[op].arity;
    switch (ct__ops[op].rule) {
    case CT__RULE_COND:
        if (in[0]->dtype != CT_BOOL && in[0]->dtype != CT_U8) {
            ct__fail(CT_ERR_RUNTIME, "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                     ct__dtype_title(in[0]->dtype));
            return CT_DEFAULT;
        }
        return ct__result_type(in + 1, n - 1);
    case CT__RULE_EXACT:
        for (int i = 1; i < n; i++)
            if (!in[i]->wrapped_number && in[i]->dtype != in[0]->dtype) {
                ct__fail(CT_ERR_RUNTIME, "expected dtype %s for `%s` but got dtype %s",
                         ct__type_meta_name(in[0]->dtype), exact_names[i], ct__type_meta_name(in[i]->dtype));
                return CT_DEFAULT;
            }
        return in[0]->dtype;
    default: return ct__result_type(in, n);
    }
}

/* Refusals PyTorch makes before looking for a kernel. */
static ct_result ct__pointwise_refusals(ct__op op, const ct_tensor *const *in, ct_dtype common,
                                        const ct__op_args *args)
{
    const ct_tensor *a = in[0], *b = in[1];
    if (op == CT__OP_neg && a->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                                        "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    if (op == CT__OP_sub && a->dtype == CT_BOOL && b->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                                        "the `^` or `logical_xor()` operator instead.");
    if (op == CT__OP_sub && (a->dtype == CT_BOOL || b->dtype == CT_BOOL))
        return ct__fail(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                                        "are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    if ((op == CT__OP_add || op == CT__OP_sub) && args->has_value && args->value.kind == CT_BOOL && common != CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
    if ((op == CT__OP_add || op == CT__OP_sub) && args->has_value && args->value.kind == CT_F64 &&
        !ct_dtype_is_floating(common))
        return ct__fail(CT_ERR_RUNTIME, "For integral input tensors, argument alpha must not be a floating point number.");
    if (op == CT__OP_relu && a->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Boolean inputs not supported for relu");
    /* a number exponent must be non-negative for an integral power (tensors get 1, -1 or 0) */
    if (op == CT__OP_pow && b->wrapped_number && !ct_dtype_is_floating(common) && b->dtype != CT_F64 &&
        ct__read_i64(ct__data(b), b->dtype) < 0)
        return ct__fail(CT_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
    if (op == CT__OP_addcdiv && !ct_dtype_is_floating(common))
        return ct__fail(CT_ERR_RUNTIME,
                        "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                        "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                        "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
                        "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                        "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
                        "dtypes.");
    /* round with decimals has floating kernels only, even for decimals=0 */
    if ((op == CT__OP_round && args->mode && !ct_dtype_is_floating(common)) || (args->scalar_clamp && common == CT_BOOL))
        return ct__not_implemented(ct__kernel_name(op, args), common);
    return CT_OK;
}

/* The dtype an op's kernel computes in and the dtype of its result. */
static void ct__pointwise_dtypes(ct__op op, ct_dtype common, const ct__op_args *args, ct_dtype *compute,
                                 ct_dtype *result)
{
    bool to_float = ct__ops[op].rule == CT__RULE_FLOAT && !(op == CT__OP_div && args->mode != CT_ROUNDING_NONE);
    *compute = to_float && !ct_dtype_is_floating(common) ? ct__default_dtype : common;
    *result = ct__ops[op].rule == CT__RULE_BOOL ? CT_BOOL : *compute;
}

/* A number operand as one element of dtype dt: converted as c10::convert does,
 * or checked for overflow as Scalar.to<T>() is (bounds, weights, values). */
static ct_result ct__number_as(const ct_tensor *x, ct_dtype dt, bool checked, uint64_t *elem)
{
    ct_scalar v = ct__stack_scalar_value(x);
    *elem = 0;
    if (checked) return ct__scalar_to_elem(v, dt, elem);
    if (v.kind == CT_F64) ct__write_f64(elem, dt, v.v.f);
    else ct__write_i64(elem, dt, ct__read_i64(&v.v, v.kind));
    return CT_OK;
}

/* An operand in the dtype PyTorch computes in (so a number or a float32
 * tensor meets a bfloat16 one rounded to bfloat16). Numbers stay on the stack. */
static const ct_tensor *ct__operand_as(const ct_tensor *x, ct_dtype compute, bool checked, ct__stack_scalar *ss)
{
    if (x->wrapped_number) {
        uint64_t elem;
        return ct__number_as(x, compute, checked, &elem) == CT_OK ? ct__stack_elem_init(ss, compute, &elem) : NULL;
    }
    return x->dtype == compute ? x : ct_to(x, compute);
}

/* Whether op divides integers (computing in compute): its divisor is checked for zeros. */
static bool ct__integer_division(ct__op op, ct_dtype compute, const ct__op_args *args)
{
    bool divides = op == CT__OP_remainder || op == CT__OP_fmod || (op == CT__OP_div && args->mode);
    return divides && !ct_dtype_is_floating(compute);
}

/* Integer division by zero fails before anything is written (PyTorch fails
 * midway through its kernel). */
static ct_result ct__check_divisor(ct__op op, const ct_tensor *divisor, ct_dtype compute, const ct__op_args *args)
{
    if (!ct__integer_division(op, compute, args) || ct_numel(divisor) == 0) return CT_OK;
    const ct_tensor *zero = ct_eq_scalar(divisor, ct_int(0));
    if (!zero) return ct_last_error_code();
    zero = ct__host(ct_contiguous(zero));
    if (!zero) return ct_last_error_code();
    if (memchr(ct__data(zero), 1, (size_t)ct_numel(zero))) return ct__fail(CT_ERR_RUNTIME, "ZeroDivisionError");
    return CT_OK;
}

/* The broadcast shape of the inputs, combined left to right as TensorIterator does. */
static ct_result ct__pointwise_shape(const ct_tensor *const *in, int n, int64_t *shape, int *ndim)
{
    *ndim = in[0]->ndim;
    memcpy(shape, in[0]->sizes, sizeof(int64_t) * (size_t)*ndim);
    for (int i = 1; i < n; i++) {
        int64_t acc[CT_MAX_DIMS];
        if (in[i]->ndim == *ndim && ct__dims_equal(in[i]->sizes, shape, *ndim)) continue; /* nothing to broadcast */
        memcpy(acc, shape, sizeof(int64_t) * (size_t)*ndim);
        if (ct__broadcast_shapes(acc, *ndim, in[i]->sizes, in[i]->ndim, shape, ndim) != CT_OK)
            return ct_last_error_code();
    }
    return CT_OK;
}

/* Whether the result can be written to self in place, as PyTorch checks. */
static ct_result ct__check_inplace(ct__op op, const ct_tensor *self, const ct_tensor *const *in, int n,
                                   const int64_t *shape, int ndim, ct_dtype result, const ct__op_args *args)
{
    char b1[256], b2[256];
    if (ndim != self->ndim || memcmp(shape, self->sizes, (size_t)ndim * sizeof(int64_t)))
        return ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        ct__shape_str(self->sizes, self->ndim, b1, sizeof b1), ct__shape_str(shape, ndim, b2, sizeof b2));
    if (!ct_can_cast(result, self->dtype) && op == CT__OP_pow && in[1]->wrapped_number) /* pow_(number)'s own check */
        return ct__fail(CT_ERR_RUNTIME, "Found dtype %s but expected %s", ct__dtype_title(self->dtype),
                        ct__dtype_title(result));
    if (!ct_can_cast(result, self->dtype))
        return ct__fail(CT_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                        ct__dtype_title(result),
                        args->scalar_clamp ? ct__type_meta_name(self->dtype) : ct__dtype_title(self->dtype));
    if (ct__check_write(self, NULL) != CT_OK) return ct_last_error_code();
    for (int i = 1; i < n; i++)
        if (in[i] != self && ct__check_write(self, in[i]) != CT_OK) return ct_last_error_code();
    return CT_OK;
}

/* value (alpha of add and sub, value of addcmul and addcdiv, lerp's number
 * weight) as the kernels read it: converted to dt with Scalar.to<T>()'s
 * overflow check. */
static ct_result ct__value_arg(ct__op_args *args, ct_dtype dt)
{
    uint64_t elem = 0;
    ct_result r = ct__scalar_to_elem(args->value, dt, &elem);
    if (r != CT_OK) return r;
    args->alpha = ct__read_f64(&elem, dt);
    args->alpha_i = ct__read_i64(&elem, dt);
    return CT_OK;
}

/* The dtype PyTorch converts value (and lerp's number weight) to: the
 * compute dtype, but float for float16 and bfloat16 where its kernels work
 * in float (opmath). */
static ct_dtype ct__value_dtype(ct_dtype compute, const ct__op_args *args)
{
    return args->opmath && (compute == CT_F16 || compute == CT_BF16) ? CT_F32 : compute;
}

/* Whether number operand i converts with Scalar.to<T>()'s overflow check:
 * bounds and weights do, and pow's exponent except for float and double,
 * where PyTorch casts it as C does. */
static bool ct__number_checked(ct__op op, int i, ct_dtype compute, const ct__op_args *args)
{
    if (op == CT__OP_pow) return i == 1 && compute != CT_F32 && compute != CT_F64;
    return args->checked;
}

/* Whether t's strides are exactly the contiguous ones of its sizes, those
 * of size-1 dims included (as ct__contiguous_strides makes them). */
static bool ct__exactly_contiguous(const ct_tensor *t)
{
    int64_t expected = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->strides[d] != expected) return false;
        expected *= t->sizes[d] > 1 ? t->sizes[d] : 1;
    }
    return true;
}

/* Strides of a new output of the broadcast shape, as TensorIterator lays it
 * out: plainly contiguous when every input is 0-d or exactly contiguous with
 * that shape and no size is 0 (the dims' order then stays as it is, so
 * asking ct__dense_strides_for would give the same), else like the inputs. */
static void ct__output_strides(const ct_tensor *const *in, int n, const int64_t *shape, int ndim, int64_t *strides)
{
    bool plain = true;
    ct__contiguous_strides(shape, ndim, strides);
    for (int d = 0; d < ndim && plain; d++) plain = shape[d] > 0;
    for (int i = 0; i < n && plain; i++)
        plain = in[i]->ndim == 0 ||
                (in[i]->ndim == ndim && ct__dims_equal(in[i]->sizes, shape, ndim) && ct__exactly_contiguous(in[i]));
    if (!plain) ct__dense_strides_for(in, n, shape, ndim, strides);
}

/* Whether ct__pointwise makes tensors of its own on the way (converted
 * operands, a divisor check, a copy of self, a result in another dtype) and
 * so needs a scope of its own; a new result of the plain kind goes straight
 * into the caller's scope. */
static bool ct__pointwise_makes_temporaries(ct__op op, const ct_tensor *out, const ct_tensor *const *in, int n,
                                            ct_dtype compute, const ct__op_args *args)
{
    if (out) return true;
    for (int i = 0; i < n; i++) {
        bool condition = i == 0 && ct__ops[op].rule == CT__RULE_COND;
        if (!condition && !in[i]->wrapped_number && in[i]->dtype != compute) return true;
    }
    return ct__integer_division(op, compute, args);
}

/* The kernel's options from the call's: alpha 1 until ct__value_arg sets
 * it (add and sub then run their plain loops), and what the front end
 * decides (number_other, compute) still to set. */
static void ct__kernel_args_init(ct__op_args *kargs, const ct__op_args *args)
{
    *kargs = *args;
    kargs->alpha = 1.0;
    kargs->alpha_i = 1;
}

/* The kernel's operands kin: each of in converted to the compute dtype
 * (numbers onto ss; where's condition as it is). */
static ct_result ct__kernel_operands(ct__op op, const ct_tensor *const *in, ct_dtype compute, const ct__op_args *args,
                                     ct__stack_scalar *ss, const ct_tensor **kin)
{
    for (int i = 0; i < ct__ops[op].arity; i++) {
        bool condition = i == 0 && ct__ops[op].rule == CT__RULE_COND;
        bool as_it_is = condition || (!in[i]->wrapped_number && in[i]->dtype == compute);
        kin[i] = as_it_is ? in[i] : ct__operand_as(in[i], compute, ct__number_checked(op, i, compute, args), &ss[i]);
        if (!kin[i]) return ct_last_error_code();
    }
    return CT_OK;
}

/* What the front end decides in the kernel's options. */
static void ct__kernel_args_set(ct__op_args *kargs, ct__op op, const ct_tensor *const *in, ct_dtype compute)
{
    kargs->number_other = ct__ops[op].arity == 2 && in[1]->wrapped_number;
    kargs->compute = compute;
}

/* Run the kernel on the converted operands into *out (in place), or into a
 * new tensor stored in *out (kept for the enclosing scope when `scoped`, the
 * caller's own scope being open). args are the kernel's: this fills in what
 * the front end sets (number_other, compute). */
static ct_result ct__pointwise_run(ct__op op, ct_tensor **out, const ct_tensor *const *in, const int64_t *shape,
                                   int ndim, ct_device dev, ct_dtype compute, ct_dtype result, ct__op_args *args,
                                   bool scoped)
{
    int n = ct__ops[op].arity;
    ct__stack_scalar ss[3];
    const ct_tensor *kin[3];
    if (ct__kernel_operands(op, in, compute, args, ss, kin) != CT_OK) return ct_last_error_code();
    if (n > 1 && ct__check_divisor(op, kin[n - 1], compute, args) != CT_OK) return ct_last_error_code();
    ct_tensor *dst;
    bool direct = *out && (*out)->dtype == result;
    if (direct) {
        dst = *out;
    } else {
        int64_t strides[CT_MAX_DIMS];
        ct__output_strides(in, n, shape, ndim, strides);
        dst = ct__alloc_strided(shape, strides, ndim, result, dev);
        if (!dst) return ct_last_error_code();
    }
    ct__kernel_args_set(args, op, in, compute);
    if (ct_numel(dst)) ct__backend_for(dev.type)->pointwise(op, dst, kin, args);
    if (*out && !direct) ct__copy_unchecked(*out, dst); /* in place into another dtype */
    if (!*out) *out = scoped ? ct_keep(dst) : dst;
    return CT_OK;
}

/* The options of a call without any: never written (a static, as a copy of
 * a struct just zeroed on the stack stalls). */
static ct__op_args ct__no_args;

/* Whether t is alike `like` (exactly contiguous): of its dtype, sizes and
 * strides, on the CPU, no Python number and no view whose history
 * autograd must first check. */
static bool ct__alike(const ct_tensor *t, const ct_tensor *like)
{
    return t->dtype == like->dtype && t->ndim == like->ndim && !t->wrapped_number && !ct__view_is_stale(t) &&
           t->storage->device.type == CT_DEVICE_CPU &&
           (t == like || (ct__dims_equal(t->sizes, like->sizes, t->ndim) &&
                          ct__dims_equal(t->strides, like->strides, t->ndim)));
}

/* Whether a Python number leaves a tensor's dtype dt as it is in type
 * promotion: a float number meets a floating dt, an int one anything but bool. */
static bool ct__number_keeps(ct_dtype dt, const ct_tensor *number)
{
    if (number->dtype == CT_F64) return ct_dtype_is_floating(dt);
    return number->dtype != CT_I64 || dt != CT_BOOL;
}

/* The common call, made short: a new result of tensors alike and not empty,
 * perhaps with Python numbers after the first that keep its dtype, no
 * options, computing in that dtype without temporaries. Type promotion,
 * broadcasting, conversion and the layout of the result are then the
 * identity, and what is left of ct__pointwise is its refusals, the numbers'
 * conversion, the kernel and the record. false when the call is not of this
 * kind; else true, with the call's result in *r (and *out). */
static bool ct__pointwise_alike(ct__op op, ct_tensor **out, const ct_tensor *const *in, ct_result *r)
{
    const ct_tensor *a = in[0], *kin[3], *const *operands = in; /* (kin: with the numbers converted) */
    int n = ct__ops[op].arity;
    ct__stack_scalar ss[3];
    ct_dtype compute, result;
    bool numbers = false;
    if (ct__ops[op].rule == CT__RULE_COND || ct_numel(a) == 0 || !ct__exactly_contiguous(a)) return false;
    for (int i = 0; i < n; i++) {
        bool number = i > 0 && in[i]->wrapped_number;
        if (number ? !ct__number_keeps(a->dtype, in[i]) : !ct__alike(in[i], a)) return false;
        numbers = numbers || number;
    }
    ct__pointwise_dtypes(op, a->dtype, &ct__no_args, &compute, &result);
    if (compute != a->dtype || ct__integer_division(op, compute, &ct__no_args)) return false;
    const ct_backend *cpu = ct__backend_for(CT_DEVICE_CPU);
    ct_tensor *dst = NULL;
    if ((*r = ct__pointwise_refusals(op, in, compute, &ct__no_args)) != CT_OK) return true;
    if (!cpu->has_pointwise(op, compute)) {
        *r = ct__not_implemented(ct__kernel_name(op, &ct__no_args), compute);
        return true;
    }
    if ((numbers && ct__kernel_operands(op, in, compute, &ct__no_args, ss, kin) != CT_OK) ||
        !(dst = ct__alloc_strided(a->sizes, a->strides, a->ndim, result, a->storage->device))) {
        *r = ct_last_error_code();
        return true;
    }
    if (numbers) operands = kin;
    ct__op_args kargs;
    ct__kernel_args_init(&kargs, &ct__no_args);
    ct__kernel_args_set(&kargs, op, in, compute);
    kargs.alike = true;
    cpu->pointwise(op, dst, operands, &kargs);
    if (ct__records(in, n) && (*r = ct__pointwise_record(op, dst, in, n, &ct__no_args, NULL)) != CT_OK) {
        ct__discard(dst);
        return true;
    }
    *out = dst;
    return true;
}

/* op(in...) into *out: a new tensor when *out is NULL, else in place into
 * *out (which is in[0]). args NULL means no options. Every check runs before
 * anything is written. */
static ct_result ct__pointwise(ct__op op, ct_tensor **out, const ct_tensor *const *in, const ct__op_args *args)
{
    ct_result r;
    if (!args && !*out && ct__pointwise_alike(op, out, in, &r)) return r;
    if (!args) args = &ct__no_args;
    int n = ct__ops[op].arity, ndim;
    int64_t shape[CT_MAX_DIMS];
    /* autograd refuses a differentiable write to a leaf first, as PyTorch's VariableType does, and any
     * write to an inference tensor, or one that would save an inference tensor for backward */
    if (*out && (r = ct__check_inference_write(*out)) != CT_OK) return r;
    if (*out && ct__pointwise_differentiable(op, in, args) && (r = ct__check_inplace_grad(*out, in, n)) != CT_OK) return r;
    if (*out && (r = ct__pointwise_saves_inference(op, in, n, args)) != CT_OK) return r;
    /* and a stale view whose history it cannot read, before computing (ct__history_check) */
    if (!*out && ct__any_stale_view(in, n) && ct__pointwise_differentiable(op, in, args) &&
        (r = ct__recordable(in, n)) != CT_OK)
        return r;
    ct_device dev;
    if ((r = ct__common_device(in, n, true, &dev)) != CT_OK) return r;
    ct_dtype common = ct__pointwise_common(op, in), compute, result;
    if (common == CT_DEFAULT) return ct_last_error_code();
    if ((r = ct__pointwise_refusals(op, in, common, args)) != CT_OK) return r;
    ct__pointwise_dtypes(op, common, args, &compute, &result);
    if ((r = ct__pointwise_shape(in, n, shape, &ndim)) != CT_OK) return r;
    if (*out && (r = ct__check_inplace(op, *out, in, n, shape, ndim, result, args)) != CT_OK) return r;
    if (!ct__backend_for(dev.type)->has_pointwise(op, compute))
        return ct__not_implemented(ct__kernel_name(op, args), compute);
    ct__op_args kargs;
    ct__kernel_args_init(&kargs, args);
    if (args->has_value && (r = ct__value_arg(&kargs, ct__value_dtype(compute, args))) != CT_OK) return r;
    bool scoped = ct__pointwise_makes_temporaries(op, *out, in, n, compute, args);
    ct_scope s = {0};
    if (scoped) s = ct_scope_begin();
    ct_tensor *self_before = *out ? ct__pointwise_self_before(op, in, n) : NULL;
    bool inplace = *out != NULL;
    r = ct__pointwise_run(op, out, in, shape, ndim, dev, compute, result, &kargs, scoped);
    if (r == CT_OK) {
        if (inplace) (*out)->storage->version++;
        if (ct__records(in, n)) r = ct__pointwise_record(op, *out, in, n, args, self_before);
    }
    if (scoped) ct_scope_end(s);
    if (r != CT_OK && !inplace && *out) { /* made, but its history could not be */
        ct__discard(*out);
        *out = NULL;
    }
    return r;
}

/* ---------------------------------------------------------------- public functions */

static ct__op_args ct__args(void)
{
    ct__op_args a;
    memset(&a, 0, sizeof a);
    return a;
}

/* The options of a call that runs on another op's kernel (its autograd node
 * is its own). */
static ct__op_args ct__derived_args(ct__op derived)
{
    ct__op_args a = ct__args();
    a.derived = derived;
    return a;
}

/* derived: a call that is its kernel's own op */
#define CT__NOT_DERIVED ((ct__op)0)

static ct_tensor *ct__new(ct__op op, const ct_tensor *a, const ct_tensor *b, const ct_tensor *c, const ct__op_args *args)
{
    const ct_tensor *in[3] = {a, b, c};
    ct_tensor *out = NULL;
    return ct__pointwise(op, &out, in, args) == CT_OK ? out : NULL;
}

static ct_result ct__inplace(ct__op op, ct_tensor *self, const ct_tensor *b, const ct_tensor *c, const ct__op_args *args)
{
    const ct_tensor *in[3] = {self, b, c};
    ct_tensor *out = self;
    return ct__pointwise(op, &out, in, args);
}

/* The public functions of each op, made from its forms in the op table. */
#define CT__FORM_FN(name)                                                            \
    ct_tensor *ct_##name(const ct_tensor *t)                                         \
    {                                                                                \
        CT__ARG(t, "input", 1);                                                      \
        return ct__new(CT__OP_##name, t, NULL, NULL, NULL);                  \
    }
#define CT__FORM_FN_(name)                                                           \
    ct_result ct_##name##_(ct_tensor *t)                                             \
    {                                                                                \
        CT__ARG_R(t, "input", 1);                                                    \
        return ct__inplace(CT__OP_##name, t, NULL, NULL, NULL);              \
    }
#define CT__FORM_FN2(name)                                                           \
    ct_tensor *ct_##name(const ct_tensor *a, const ct_tensor *b)                     \
    {                                                                                \
        CT__ARG(a, "input", 1);                                                      \
        CT__ARG(b, "other", 2);                                                      \
        return ct__new(CT__OP_##name, a, b, NULL, NULL);                     \
    }
#define CT__FORM_FN2_(name)                                                          \
    ct_result ct_##name##_(ct_tensor *a, const ct_tensor *b)                         \
    {                                                                                \
        CT__ARG_R(a, "input", 1);                                                    \
        CT__ARG_R(b, "other", 2);                                                    \
        return ct__inplace(CT__OP_##name, a, b, NULL, NULL);                 \
    }
#define CT__FORM_FN2_SCALAR(name)                                                    \
    ct_tensor *ct_##name##_scalar(const ct_tensor *a, ct_scalar b)                   \
    {                                                                                \
        ct__stack_scalar ss;                                                         \
        CT__ARG(a, "input", 1);                                                      \
        return ct__new(CT__OP_##name, a, ct__stack_scalar_init(&ss, b), NULL, NULL); \
    }
#define CT__FORM_FN2_SCALAR_(name)                                                   \
    ct_result ct_##name##_scalar_(ct_tensor *a, ct_scalar b)                         \
    {                                                                                \
        ct__stack_scalar ss;                                                         \
        CT__ARG_R(a, "input", 1);                                                    \
        return ct__inplace(CT__OP_##name, a, ct__stack_scalar_init(&ss, b), NULL, NULL); \
    }
#define CT__FORMS_H(name)
#define CT__FORMS_U(name) CT__FORM_FN(name)
#define CT__FORMS_UI(name) CT__FORM_FN(name) CT__FORM_FN_(name)
#define CT__FORMS_B(name) CT__FORM_FN2(name)
#define CT__FORMS_BI(name) CT__FORM_FN2(name) CT__FORM_FN2_(name)
#define CT__FORMS_BSI(name) CT__FORM_FN2(name) CT__FORM_FN2_(name) CT__FORM_FN2_SCALAR(name) CT__FORM_FN2_SCALAR_(name)
#define CT__DEFINE_FORMS(name, arity, rule, forms, kernel) CT__FORMS_##forms(name)
CT__POINTWISE_OPS(CT__DEFINE_FORMS)
#undef CT__DEFINE_FORMS

/* ---------------------------------------------------------------- arithmetic with options */

/* add and sub with alpha: x + alpha * y */
static ct_result ct__alpha_op(ct__op op, ct_tensor **out, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    const ct_tensor *in[3] = {a, b, NULL};
    ct__op_args args = ct__args();
    args.value = alpha;
    args.has_value = true;
    return ct__pointwise(op, out, in, &args);
}

ct_tensor *ct_add_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    ct_tensor *out = NULL;
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    return ct__alpha_op(CT__OP_add, &out, a, b, alpha) == CT_OK ? out : NULL;
}

ct_result ct_add_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    return ct__alpha_op(CT__OP_add, &a, a, b, alpha);
}

ct_tensor *ct_sub_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    ct_tensor *out = NULL;
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    return ct__alpha_op(CT__OP_sub, &out, a, b, alpha) == CT_OK ? out : NULL;
}

ct_result ct_sub_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    return ct__alpha_op(CT__OP_sub, &a, a, b, alpha);
}

ct_tensor *ct_rsub(const ct_tensor *a, const ct_tensor *b)
{
    ct_tensor *r;
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    const ct_tensor *in[2] = {a, b};
    if (ct__recordable(in, 2) != CT_OK) return NULL;
    CT__UNRECORDED(r, ct__new(CT__OP_sub, b, a, NULL, NULL));
    if (r && !ct__record_rsub(r, a, b)) r = ct__unrecordable(r);
    return r;
}

ct_tensor *ct_rsub_scalar(const ct_tensor *t, ct_scalar s)
{
    ct__stack_scalar ss;
    ct_tensor *r;
    CT__ARG(t, "input", 1);
    if (ct__recordable(&t, 1) != CT_OK) return NULL;
    CT__UNRECORDED(r, ct__new(CT__OP_sub, ct__stack_scalar_init(&ss, s), t, NULL, NULL));
    if (r && !ct__record_rsub(r, t, NULL)) r = ct__unrecordable(r);
    return r;
}

static ct_tensor *ct__div_number(const ct_tensor *t, ct_scalar number)
{
    ct_tensor *r;
    CT__ARG(t, "input", 1);
    if (ct__recordable(&t, 1) != CT_OK) return NULL;
    CT__UNRECORDED(r, ct_div_scalar(t, number));
    if (r && !ct__record_div_number(r, t, number)) r = ct__unrecordable(r);
    return r;
}

ct_tensor *ct_rdiv_scalar(const ct_tensor *t, ct_scalar s)
{
    CT__ARG(t, "input", 1);
    ct_scope scope = ct_scope_begin();
    ct_tensor *r = ct_mul_scalar(ct_reciprocal(t), s);
    if (r) ct_keep(r);
    ct_scope_end(scope);
    return r;
}

ct_tensor *ct_rpow_scalar(const ct_tensor *t, ct_scalar s)
{
    ct__stack_scalar ss;
    CT__ARG(t, "input", 1);
    return ct__new(CT__OP_pow, ct__stack_scalar_init(&ss, s), t, NULL, NULL);
}

/* div with a rounding mode; a bad mode fails as PyTorch does for a bad string. */
static ct_result ct__div_mode(ct_tensor **out, const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode,
                              ct__op derived)
{
    static const char *const kernels[3] = {NULL, "div_trunc_cpu", "div_floor_cpu"};
    const ct_tensor *in[3] = {a, b, NULL};
    if ((unsigned)mode > CT_ROUNDING_FLOOR)
        return ct__fail(CT_ERR_RUNTIME, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found %d",
                        (int)mode);
    ct__op_args args = ct__derived_args(derived);
    args.mode = (int)mode;
    args.kernel = kernels[mode];
    return ct__pointwise(CT__OP_div, out, in, &args);
}

ct_tensor *ct_div_mode(const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode)
{
    ct_tensor *out = NULL;
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    return ct__div_mode(&out, a, b, mode, CT__NOT_DERIVED) == CT_OK ? out : NULL;
}

ct_tensor *ct_div_mode_scalar(const ct_tensor *a, ct_scalar b, ct_rounding_mode mode)
{
    ct_tensor *out = NULL;
    ct__stack_scalar ss;
    CT__ARG(a, "input", 1);
    return ct__div_mode(&out, a, ct__stack_scalar_init(&ss, b), mode, CT__NOT_DERIVED) == CT_OK ? out : NULL;
}

ct_result ct_div_mode_(ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    return ct__div_mode(&a, a, b, mode, CT__NOT_DERIVED);
}

ct_result ct_div_mode_scalar_(ct_tensor *a, ct_scalar b, ct_rounding_mode mode)
{
    ct__stack_scalar ss;
    CT__ARG_R(a, "input", 1);
    return ct__div_mode(&a, a, ct__stack_scalar_init(&ss, b), mode, CT__NOT_DERIVED);
}

ct_tensor *ct_floor_divide(const ct_tensor *a, const ct_tensor *b)
{
    ct_tensor *out = NULL;
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    return ct__div_mode(&out, a, b, CT_ROUNDING_FLOOR, CT__OP_floor_divide) == CT_OK ? out : NULL;
}

ct_tensor *ct_floor_divide_scalar(const ct_tensor *a, ct_scalar b)
{
    ct_tensor *out = NULL;
    ct__stack_scalar ss;
    CT__ARG(a, "input", 1);
    const ct_tensor *number = ct__stack_scalar_init(&ss, b);
    return ct__div_mode(&out, a, number, CT_ROUNDING_FLOOR, CT__OP_floor_divide) == CT_OK ? out : NULL;
}

ct_result ct_floor_divide_(ct_tensor *a, const ct_tensor *b)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    return ct__div_mode(&a, a, b, CT_ROUNDING_FLOOR, CT__OP_floor_divide);
}

ct_result ct_floor_divide_scalar_(ct_tensor *a, ct_scalar b)
{
    ct__stack_scalar ss;
    CT__ARG_R(a, "input", 1);
    return ct__div_mode(&a, a, ct__stack_scalar_init(&ss, b), CT_ROUNDING_FLOOR, CT__OP_floor_divide);
}

/* addcmul and addcdiv: t + value * t1 (*, /) t2 */
static ct_result ct__addc(ct__op op, ct_tensor **out, const ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2,
                          ct_scalar value)
{
    const ct_tensor *in[3] = {t, t1, t2};
    ct__op_args args = ct__args();
    args.value = value;
    args.has_value = true;
    args.opmath = true;
    return ct__pointwise(op, out, in, &args);
}

ct_tensor *ct_addcmul(const ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    CT__ARG(t1, "tensor1", 2);
    CT__ARG(t2, "tensor2", 3);
    return ct__addc(CT__OP_addcmul, &out, t, t1, t2, value) == CT_OK ? out : NULL;
}

ct_result ct_addcmul_(ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(t1, "tensor1", 2);
    CT__ARG_R(t2, "tensor2", 3);
    return ct__addc(CT__OP_addcmul, &t, t, t1, t2, value);
}

ct_tensor *ct_addcdiv(const ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    CT__ARG(t1, "tensor1", 2);
    CT__ARG(t2, "tensor2", 3);
    return ct__addc(CT__OP_addcdiv, &out, t, t1, t2, value) == CT_OK ? out : NULL;
}

ct_result ct_addcdiv_(ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(t1, "tensor1", 2);
    CT__ARG_R(t2, "tensor2", 3);
    return ct__addc(CT__OP_addcdiv, &t, t, t1, t2, value);
}

ct_tensor *ct_lerp(const ct_tensor *start, const ct_tensor *end, const ct_tensor *weight)
{
    CT__ARG(start, "input", 1);
    CT__ARG(end, "end", 2);
    CT__ARG(weight, "weight", 3);
    return ct__new(CT__OP_lerp, start, end, weight, NULL);
}

ct_result ct_lerp_(ct_tensor *start, const ct_tensor *end, const ct_tensor *weight)
{
    CT__ARG_R(start, "input", 1);
    CT__ARG_R(end, "end", 2);
    CT__ARG_R(weight, "weight", 3);
    return ct__inplace(CT__OP_lerp, start, end, weight, NULL);
}

/* lerp's number weight reaches the kernel as value (mode 1), converted with
 * an overflow check to the compute dtype, or to float for float16 and
 * bfloat16 (PyTorch's opmath); the weight operand is then only a placeholder. */
static ct__op_args ct__lerp_scalar_args(ct_scalar weight)
{
    ct__op_args args = ct__args();
    args.value = weight;
    args.has_value = true;
    args.opmath = true;
    args.mode = 1;
    args.kernel = "lerp_kernel_scalar";
    return args;
}

ct_tensor *ct_lerp_scalar(const ct_tensor *start, const ct_tensor *end, ct_scalar weight)
{
    ct__stack_scalar ss;
    CT__ARG(start, "input", 1);
    CT__ARG(end, "end", 2);
    ct__op_args args = ct__lerp_scalar_args(weight);
    return ct__new(CT__OP_lerp, start, end, ct__stack_scalar_init(&ss, weight), &args);
}

ct_result ct_lerp_scalar_(ct_tensor *start, const ct_tensor *end, ct_scalar weight)
{
    ct__stack_scalar ss;
    CT__ARG_R(start, "input", 1);
    CT__ARG_R(end, "end", 2);
    ct__op_args args = ct__lerp_scalar_args(weight);
    return ct__inplace(CT__OP_lerp, start, end, ct__stack_scalar_init(&ss, weight), &args);
}

/* ---------------------------------------------------------------- clamps */

ct_tensor *ct_clamp(const ct_tensor *t, const ct_tensor *min, const ct_tensor *max)
{
    CT__ARG(t, "input", 1);
    CT__ARG(min, "min", 2);
    CT__ARG(max, "max", 3);
    return ct__new(CT__OP_clamp, t, min, max, NULL);
}

ct_result ct_clamp_(ct_tensor *t, const ct_tensor *min, const ct_tensor *max)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(min, "min", 2);
    CT__ARG_R(max, "max", 3);
    return ct__inplace(CT__OP_clamp, t, min, max, NULL);
}

/* The clamps with number bounds: the bounds join type promotion as numbers
 * and convert with an overflow check. One bound runs maximum or minimum, two
 * the clamp kernel; a NaN bound makes NaN in all three, as in PyTorch. */
static ct_result ct__clamp_numbers(ct_tensor **out, const ct_tensor *t, const ct_scalar *min, const ct_scalar *max,
                                   ct__op derived)
{
    ct__stack_scalar s1, s2;
    const ct_tensor *in[3] = {t, min ? ct__stack_scalar_init(&s1, *min) : NULL, max ? ct__stack_scalar_init(&s2, *max) : NULL};
    ct__op_args args = ct__derived_args(derived);
    args.checked = true;
    args.scalar_clamp = true;
    if (min && max) {
        args.kernel = "clamp_scalar_cpu";
        return ct__pointwise(CT__OP_clamp, out, in, &args);
    }
    args.kernel = min ? "clamp_min_cpu" : "clamp_max_scalar_cpu";
    if (!min) in[1] = in[2];
    return ct__pointwise(min ? CT__OP_maximum : CT__OP_minimum, out, in, &args);
}

ct_tensor *ct_clamp_scalar(const ct_tensor *t, ct_scalar min, ct_scalar max)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__clamp_numbers(&out, t, &min, &max, CT__NOT_DERIVED) == CT_OK ? out : NULL;
}

ct_result ct_clamp_scalar_(ct_tensor *t, ct_scalar min, ct_scalar max)
{
    CT__ARG_R(t, "input", 1);
    return ct__clamp_numbers(&t, t, &min, &max, CT__NOT_DERIVED);
}

ct_tensor *ct_clamp_min(const ct_tensor *t, const ct_tensor *min)
{
    CT__ARG(t, "input", 1);
    CT__ARG(min, "min", 2);
    ct__op_args args = ct__derived_args(CT__OP_clamp_min);
    return ct__new(CT__OP_maximum, t, min, NULL, &args);
}

ct_result ct_clamp_min_(ct_tensor *t, const ct_tensor *min)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(min, "min", 2);
    ct__op_args args = ct__derived_args(CT__OP_clamp_min);
    return ct__inplace(CT__OP_maximum, t, min, NULL, &args);
}

ct_tensor *ct_clamp_min_scalar(const ct_tensor *t, ct_scalar min)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__clamp_numbers(&out, t, &min, NULL, CT__NOT_DERIVED) == CT_OK ? out : NULL;
}

ct_result ct_clamp_min_scalar_(ct_tensor *t, ct_scalar min)
{
    CT__ARG_R(t, "input", 1);
    return ct__clamp_numbers(&t, t, &min, NULL, CT__NOT_DERIVED);
}

ct_tensor *ct_clamp_max(const ct_tensor *t, const ct_tensor *max)
{
    CT__ARG(t, "input", 1);
    CT__ARG(max, "max", 2);
    ct__op_args args = ct__derived_args(CT__OP_clamp_max);
    return ct__new(CT__OP_minimum, t, max, NULL, &args);
}

ct_result ct_clamp_max_(ct_tensor *t, const ct_tensor *max)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(max, "max", 2);
    ct__op_args args = ct__derived_args(CT__OP_clamp_max);
    return ct__inplace(CT__OP_minimum, t, max, NULL, &args);
}

ct_tensor *ct_clamp_max_scalar(const ct_tensor *t, ct_scalar max)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__clamp_numbers(&out, t, NULL, &max, CT__NOT_DERIVED) == CT_OK ? out : NULL;
}

ct_result ct_clamp_max_scalar_(ct_tensor *t, ct_scalar max)
{
    CT__ARG_R(t, "input", 1);
    return ct__clamp_numbers(&t, t, NULL, &max, CT__NOT_DERIVED);
}

/* hardtanh is clamp; integer tensors take the bounds truncated to integers
 * so that they do not promote (PyTorch's legacy rule). */
static ct_result ct__hardtanh(ct_tensor **out, const ct_tensor *t, double min_val, double max_val)
{
    ct_scalar lo = ct_float(min_val), hi = ct_float(max_val);
    if (t->dtype == CT_BOOL) return ct__fail(CT_ERR_RUNTIME, "Bool inputs not supported for hardtanh");
    if (ct__is_integral(t->dtype)) {
        uint64_t l, h;
        if (ct__scalar_to_elem(lo, CT_I64, &l) != CT_OK || ct__scalar_to_elem(hi, CT_I64, &h) != CT_OK)
            return ct_last_error_code();
        lo = ct_int((int64_t)l);
        hi = ct_int((int64_t)h);
        if (t->dtype == CT_U8 && (lo.v.i < 0 || hi.v.i < 0))
            return ct__fail(CT_ERR_RUNTIME, "cannot do hardtanh on an unsigned type with negative limits");
    }
    return ct__clamp_numbers(out, t, &lo, &hi, CT__OP_hardtanh);
}

ct_tensor *ct_hardtanh(const ct_tensor *t, double min_val, double max_val)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__hardtanh(&out, t, min_val, max_val) == CT_OK ? out : NULL;
}

ct_result ct_hardtanh_(ct_tensor *t, double min_val, double max_val)
{
    CT__ARG_R(t, "input", 1);
    return ct__hardtanh(&t, t, min_val, max_val);
}

ct_tensor *ct_relu6(const ct_tensor *t)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__hardtanh(&out, t, 0, 6) == CT_OK ? out : NULL;
}

ct_result ct_relu6_(ct_tensor *t)
{
    CT__ARG_R(t, "input", 1);
    return ct__hardtanh(&t, t, 0, 6);
}

/* ---------------------------------------------------------------- unary ops with parameters */

/* A unary op with parameters, new (self NULL) or in place. */
static ct_result ct__unary_params(ct__op op, ct_tensor **out, const ct_tensor *t, ct__op_args args)
{
    const ct_tensor *in[3] = {t, NULL, NULL};
    return ct__pointwise(op, out, in, &args);
}

static ct_tensor *ct__unary_new(ct__op op, const ct_tensor *t, ct__op_args args)
{
    ct_tensor *out = NULL;
    return ct__unary_params(op, &out, t, args) == CT_OK ? out : NULL;
}

static ct__op_args ct__round_args(int64_t decimals)
{
    ct__op_args a = ct__args();
    a.mode = decimals > 0 ? 1 : decimals < 0 ? 2 : 3;
    a.p[0] = pow(10.0, fabs((double)decimals));
    a.kernel = decimals ? "round_cpu" : NULL;
    return a;
}

ct_tensor *ct_round_decimals(const ct_tensor *t, int64_t decimals)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_round, t, ct__round_args(decimals));
}

ct_result ct_round_decimals_(ct_tensor *t, int64_t decimals)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_round, &t, t, ct__round_args(decimals));
}

ct_tensor *ct_round(const ct_tensor *t)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_round, t, ct__args());
}

ct_result ct_round_(ct_tensor *t)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_round, &t, t, ct__args());
}

/* One number parameter in p[0]. */
static ct__op_args ct__p1(double v)
{
    ct__op_args a = ct__args();
    a.p[0] = v;
    return a;
}

/* PyTorch passes logit's eps=None to its kernel as -1: negative means no clamp. */
ct_tensor *ct_logit(const ct_tensor *t)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_logit, t, ct__p1(-1.0));
}

ct_result ct_logit_(ct_tensor *t)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_logit, &t, t, ct__p1(-1.0));
}

ct_tensor *ct_logit_eps(const ct_tensor *t, double eps)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_logit, t, ct__p1(eps));
}

ct_result ct_logit_eps_(ct_tensor *t, double eps)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_logit, &t, t, ct__p1(eps));
}

/* polygamma's n reaches the kernel as an int, as PyTorch's calc_polygamma takes it */
static ct_result ct__polygamma(ct_tensor **out, const ct_tensor *t, int64_t n)
{
    ct__op_args a = ct__args();
    if (n < 0) return ct__fail(CT_ERR_RUNTIME, "polygamma(n, x) does not support negative n.");
    a.mode = (int)n;
    return ct__unary_params(CT__OP_polygamma, out, t, a);
}

ct_tensor *ct_polygamma(int64_t n, const ct_tensor *t)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 2);
    return ct__polygamma(&out, t, n) == CT_OK ? out : NULL;
}

ct_result ct_polygamma_(ct_tensor *t, int64_t n)
{
    CT__ARG_R(t, "input", 1);
    return ct__polygamma(&t, t, n);
}

ct_tensor *ct_leaky_relu(const ct_tensor *t, double negative_slope)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_leaky_relu, t, ct__p1(negative_slope));
}

ct_result ct_leaky_relu_(ct_tensor *t, double negative_slope)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_leaky_relu, &t, t, ct__p1(negative_slope));
}

ct_elu_opts ct_elu_opts_init(void)
{
    ct_elu_opts o;
    o.alpha = o.scale = o.input_scale = 1.0;
    return o;
}

static ct__op_args ct__elu_args(double alpha, double scale, double input_scale)
{
    ct__op_args a = ct__args();
    a.p[0] = alpha;
    a.p[1] = scale;
    a.p[2] = input_scale;
    return a;
}

ct_tensor *ct_elu(const ct_tensor *t, ct_elu_opts o)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_elu, t, ct__elu_args(o.alpha, o.scale, o.input_scale));
}

ct_result ct_elu_(ct_tensor *t, ct_elu_opts o)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_elu, &t, t, ct__elu_args(o.alpha, o.scale, o.input_scale));
}

/* SELU's constants (Klambauer et al.), as PyTorch spells them. */
#define CT__SELU_ALPHA 1.6732632423543772848170429916717
#define CT__SELU_SCALE 1.0507009873554804934193349852946

ct_tensor *ct_selu(const ct_tensor *t)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_elu, t, ct__elu_args(CT__SELU_ALPHA, CT__SELU_SCALE, 1.0));
}

ct_result ct_selu_(ct_tensor *t)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_elu, &t, t, ct__elu_args(CT__SELU_ALPHA, CT__SELU_SCALE, 1.0));
}

static ct_result ct__celu(ct_tensor **out, const ct_tensor *t, double alpha)
{
    if (alpha == 0) return ct__fail(CT_ERR_RUNTIME, "ZeroDivisionError: alpha cannot be 0 for CELU");
    ct__op_args a = ct__elu_args(alpha, 1.0, 1.0 / alpha);
    a.derived = CT__OP_celu;
    return ct__unary_params(CT__OP_elu, out, t, a);
}

ct_tensor *ct_celu(const ct_tensor *t, double alpha)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__celu(&out, t, alpha) == CT_OK ? out : NULL;
}

ct_result ct_celu_(ct_tensor *t, double alpha)
{
    CT__ARG_R(t, "input", 1);
    return ct__celu(&t, t, alpha);
}

/* gelu's approximate: none or tanh, or PyTorch's error */
static ct_result ct__check_approximate(ct_gelu_approximate approximate)
{
    if ((unsigned)approximate <= CT_GELU_TANH) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME, "approximate argument must be either none or tanh.");
}

ct_tensor *ct_gelu(const ct_tensor *t, ct_gelu_approximate approximate)
{
    CT__ARG(t, "input", 1);
    if (ct__check_approximate(approximate) != CT_OK) return NULL;
    ct__op_args a = ct__args();
    a.mode = (int)approximate;
    /* PyTorch computes the exact form of a contiguous bfloat16 tensor in float,
     * of any other with bfloat16 roundings (mode 2) */
    if (approximate == CT_GELU_NONE && t->dtype == CT_BF16 && !ct_is_contiguous(t)) a.mode = 2;
    return ct__unary_new(CT__OP_gelu, t, a);
}

/* ---------------------------------------------------------------- first derivatives */

/* A backward op of the table over (grad_output, v): computed unrecorded,
 * then recorded as the node its activation's first derivative makes under
 * create_graph (ct__record_backward_op). args NULL means no options. */
static ct_tensor *ct__backward_op(ct__op op, const ct_tensor *grad_output, const ct_tensor *v, const ct__op_args *args)
{
    const ct_tensor *in[2] = {grad_output, v};
    ct_tensor *r;
    if (ct__recordable(in, 2) != CT_OK) return NULL;
    CT__UNRECORDED(r, ct__new(op, grad_output, v, NULL, args));
    return r ? ct__record_backward_op(op, r, in, args) : NULL;
}

ct_tensor *ct_threshold_backward(const ct_tensor *grad_output, const ct_tensor *self, ct_scalar threshold)
{
    CT__ARG(grad_output, "grad_output", 1);
    CT__ARG(self, "self", 2);
    /* relu's threshold, an int 0, is the kernel's own: no value to convert, the short call */
    if (threshold.kind == CT_I64 && threshold.v.i == 0)
        return ct__backward_op(CT__OP_threshold_backward, grad_output, self, NULL);
    ct__op_args a = ct__args();
    a.value = threshold;
    a.has_value = true;
    a.checked = true;
    return ct__backward_op(CT__OP_threshold_backward, grad_output, self, &a);
}

ct_tensor *ct_tanh_backward(const ct_tensor *grad_output, const ct_tensor *output)
{
    CT__ARG(grad_output, "grad_output", 1);
    CT__ARG(output, "output", 2);
    return ct__backward_op(CT__OP_tanh_backward, grad_output, output, NULL);
}

ct_tensor *ct_sigmoid_backward(const ct_tensor *grad_output, const ct_tensor *output)
{
    CT__ARG(grad_output, "grad_output", 1);
    CT__ARG(output, "output", 2);
    return ct__backward_op(CT__OP_sigmoid_backward, grad_output, output, NULL);
}

ct_tensor *ct_gelu_backward(const ct_tensor *grad_output, const ct_tensor *self, ct_gelu_approximate approximate)
{
    CT__ARG(grad_output, "grad_output", 1);
    CT__ARG(self, "self", 2);
    if (ct__check_approximate(approximate) != CT_OK) return NULL;
    if (approximate == CT_GELU_NONE) return ct__backward_op(CT__OP_gelu_backward, grad_output, self, NULL); /* mode 0 */
    ct__op_args a = ct__args();
    a.mode = (int)approximate;
    return ct__backward_op(CT__OP_gelu_backward, grad_output, self, &a);
}

ct_softplus_opts ct_softplus_opts_init(void)
{
    ct_softplus_opts o;
    o.beta = 1.0;
    o.threshold = 20.0;
    return o;
}

ct_tensor *ct_softplus(const ct_tensor *t, ct_softplus_opts o)
{
    CT__ARG(t, "input", 1);
    ct__op_args a = ct__p1(o.beta);
    a.p[1] = o.threshold;
    return ct__unary_new(CT__OP_softplus, t, a);
}

/* nan_to_num's replacements: the dtype's largest and lowest finite values
 * when posinf and neginf are not given. */
static ct__op_args ct__nan_to_num_args(ct_dtype dt, ct_nan_to_num_opts o)
{
    double big = dt == CT_F16 ? 65504.0 : dt == CT_BF16 ? 3.3895313892515355e38 : dt == CT_F32 ? FLT_MAX : DBL_MAX;
    ct__op_args a = ct__p1(o.nan);
    a.p[1] = o.posinf ? *o.posinf : big;
    a.p[2] = o.neginf ? *o.neginf : -big;
    return a;
}

ct_tensor *ct_nan_to_num(const ct_tensor *t, ct_nan_to_num_opts opts)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_nan_to_num, t, ct__nan_to_num_args(t->dtype, opts));
}

ct_result ct_nan_to_num_(ct_tensor *t, ct_nan_to_num_opts opts)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_nan_to_num, &t, t, ct__nan_to_num_args(t->dtype, opts));
}

/* ---------------------------------------------------------------- where */

/* where's numbers convert with an overflow check */
static ct_tensor *ct__where(const ct_tensor *c, const ct_tensor *x, const ct_tensor *y)
{
    ct__op_args args = ct__args();
    args.checked = true;
    return ct__new(CT__OP_where, c, x, y, &args);
}

ct_tensor *ct_where(const ct_tensor *condition, const ct_tensor *x, const ct_tensor *y)
{
    CT__ARG(condition, "condition", 1);
    CT__ARG(x, "input", 2);
    CT__ARG(y, "other", 3);
    return ct__new(CT__OP_where, condition, x, y, NULL);
}

ct_tensor *ct_where_scalar_other(const ct_tensor *condition, const ct_tensor *x, ct_scalar y)
{
    ct__stack_scalar ss;
    CT__ARG(condition, "condition", 1);
    CT__ARG(x, "input", 2);
    return ct__where(condition, x, ct__stack_scalar_init(&ss, y));
}

ct_tensor *ct_where_scalar_self(const ct_tensor *condition, ct_scalar x, const ct_tensor *y)
{
    ct__stack_scalar ss;
    CT__ARG(condition, "condition", 1);
    CT__ARG(y, "other", 3);
    return ct__where(condition, ct__stack_scalar_init(&ss, x), y);
}

ct_tensor *ct_where_scalar(const ct_tensor *condition, ct_scalar x, ct_scalar y)
{
    ct__stack_scalar s1, s2;
    CT__ARG(condition, "condition", 1);
    return ct__where(condition, ct__stack_scalar_init(&s1, x), ct__stack_scalar_init(&s2, y));
}

/* ---------------------------------------------------------------- closeness and equality */

ct_isclose_opts ct_isclose_opts_init(void)
{
    ct_isclose_opts o;
    o.rtol = 1e-05;
    o.atol = 1e-08;
    o.equal_nan = false;
    return o;
}

/* PyTorch's isclose, op for op, so that the float rounding is the same:
 * a == b, or both NaN, or |a - b| finite and <= atol + |rtol * b|, with
 * integers and bool compared in the default float dtype. */
static ct_tensor *ct__isclose(const ct_tensor *a, const ct_tensor *b, ct_isclose_opts o)
{
    ct_tensor *close = ct_eq(a, b);
    if (close && o.equal_nan && ct_dtype_is_floating(a->dtype) &&
        ct_logical_or_(close, ct_logical_and(ct_isnan(a), ct_isnan(b))) != CT_OK)
        return NULL;
    if (!close || (o.rtol == 0 && o.atol == 0)) return close;
    const ct_tensor *ca = ct_dtype_is_floating(a->dtype) ? a : ct_to(a, ct__default_dtype);
    const ct_tensor *cb = ct_dtype_is_floating(b->dtype) ? b : ct_to(b, ct__default_dtype);
    ct_tensor *allowed = ct_add_scalar(ct_abs(ct_mul_scalar(cb, ct_float(o.rtol))), ct_float(o.atol));
    ct_tensor *actual = ct_abs(ct_sub(ca, cb));
    ct_tensor *within = ct_logical_and(ct_isfinite(actual), ct_le(actual, allowed));
    return ct_logical_or_(close, within) == CT_OK ? close : NULL;
}

ct_tensor *ct_isclose(const ct_tensor *a, const ct_tensor *b, ct_isclose_opts opts)
{
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    if (a->dtype != b->dtype) {
        ct__fail(CT_ERR_RUNTIME, "%s did not match %s", ct__dtype_title(a->dtype), ct__dtype_title(b->dtype));
        return NULL;
    }
    if (opts.rtol < 0 || opts.atol < 0) {
        ct__fail(CT_ERR_RUNTIME, "%s must be greater than or equal to zero, but got %g", opts.rtol < 0 ? "rtol" : "atol",
                 opts.rtol < 0 ? opts.rtol : opts.atol);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct__isclose(a, b, opts);
    if (r) ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* Whether every element of a bool tensor is true (false when t is NULL). */
static bool ct__all_true(const ct_tensor *t)
{
    const ct_tensor *c = t ? ct__host(t) : NULL;
    return c && (ct_numel(c) == 0 || !memchr(ct__data(c), 0, (size_t)ct_numel(c)));
}

bool ct_allclose(const ct_tensor *a, const ct_tensor *b, ct_isclose_opts opts)
{
    if (!a || !b) return (ct__null_arg(__func__, a ? "other" : "input", a ? 2 : 1), false);
    ct_scope s = ct_scope_begin();
    bool r = ct__all_true(ct_isclose(a, b, opts));
    ct_scope_end(s);
    return r;
}

bool ct_equal(const ct_tensor *a, const ct_tensor *b)
{
    if (!a || !b) return (ct__null_arg(__func__, a ? "other" : "input", a ? 2 : 1), false);
    if (a->ndim != b->ndim || memcmp(a->sizes, b->sizes, (size_t)a->ndim * sizeof(int64_t))) return false;
    ct_scope s = ct_scope_begin();
    bool r = ct__all_true(ct_eq(a, b));
    ct_scope_end(s);
    return r;
}

int ct_op_count(void) { return CT__NUM_OPS; }
const char *ct_op_name(int i) { return i >= 0 && i < CT__NUM_OPS ? ct__op_names[i] : NULL; }
