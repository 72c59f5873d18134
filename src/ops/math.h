/* Public math API: pointwise ops (and, as they come, reductions, scans,
 * sorting, joining). Every function mirrors the torch function of the same
 * name; the _ forms work in place on their first argument and return a
 * ct_result; the _scalar forms take a Python number for the second operand,
 * with PyTorch's promotion for numbers (int_tensor * 2 stays integral,
 * int_tensor * 2.5 becomes the default float dtype). Operands broadcast.
 * Results have PyTorch's dtypes: the float functions (exp, sin, div...) turn
 * integers and bool into the default float dtype, comparisons and tests give
 * bool. float16 and bfloat16 are computed in float32 and rounded to the
 * result, with the intermediate roundings of PyTorch 1.13's per-element
 * kernels where it has them, and also where PyTorch 1.13 has no float16 CPU
 * kernel. Integer division by zero fails with PyTorch's "ZeroDivisionError"
 * before anything is written. All functions are safe to call from several
 * threads on different output tensors. */

/* torch.result_type(a, b) and torch.result_type(t, number). */
CTORCH_API ct_dtype ct_result_type(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_dtype ct_result_type_scalar(const ct_tensor *t, ct_scalar s);

/* ---------------------------------------------------------------- arithmetic */

CTORCH_API ct_tensor *ct_add(const ct_tensor *a, const ct_tensor *b);             /* torch.add (a + b) */
CTORCH_API ct_tensor *ct_add_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_add_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_add_scalar_(ct_tensor *a, ct_scalar b);
/* torch.add(a, b, alpha=alpha): a + alpha * b (and sub: a - alpha * b). */
CTORCH_API ct_tensor *ct_add_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_result ct_add_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_tensor *ct_sub(const ct_tensor *a, const ct_tensor *b);             /* torch.sub (a - b); not for bool */
CTORCH_API ct_tensor *ct_sub_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_sub_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_sub_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_sub_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_result ct_sub_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
/* torch.rsub(a, b): b - a; ct_rsub_scalar(t, s) is Python's s - t. */
CTORCH_API ct_tensor *ct_rsub(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_rsub_scalar(const ct_tensor *t, ct_scalar s);
CTORCH_API ct_tensor *ct_mul(const ct_tensor *a, const ct_tensor *b);             /* torch.mul (a * b) */
CTORCH_API ct_tensor *ct_mul_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_mul_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_mul_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_div(const ct_tensor *a, const ct_tensor *b);             /* torch.div (a / b, true division) */
CTORCH_API ct_tensor *ct_div_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_div_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_div_scalar_(ct_tensor *a, ct_scalar b);
/* Python's s / t (Tensor.__rtruediv__), which PyTorch computes as t.reciprocal() * s. */
CTORCH_API ct_tensor *ct_rdiv_scalar(const ct_tensor *t, ct_scalar s);

/* torch.div(a, b, rounding_mode=...): CT_ROUNDING_NONE is true division,
 * TRUNC rounds toward zero, FLOOR toward minus infinity (Python's //); the
 * rounding modes keep integer dtypes. */
typedef enum ct_rounding_mode { CT_ROUNDING_NONE = 0, CT_ROUNDING_TRUNC, CT_ROUNDING_FLOOR } ct_rounding_mode;
CTORCH_API ct_tensor *ct_div_mode(const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode);
CTORCH_API ct_tensor *ct_div_mode_scalar(const ct_tensor *a, ct_scalar b, ct_rounding_mode mode);
CTORCH_API ct_result ct_div_mode_(ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode);
CTORCH_API ct_result ct_div_mode_scalar_(ct_tensor *a, ct_scalar b, ct_rounding_mode mode);
/* torch.floor_divide (a // b): div with CT_ROUNDING_FLOOR. */
CTORCH_API ct_tensor *ct_floor_divide(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_floor_divide_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_floor_divide_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_floor_divide_scalar_(ct_tensor *a, ct_scalar b);
/* torch.remainder (Python's %: the sign of b) and torch.fmod (C's fmod: the sign of a). */
CTORCH_API ct_tensor *ct_remainder(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_remainder_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_remainder_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_remainder_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_fmod(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_fmod_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_fmod_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_fmod_scalar_(ct_tensor *a, ct_scalar b);
/* torch.pow (a ** b); ct_rpow_scalar(t, s) is torch.pow(s, t), Python's s ** t.
 * An integer tensor to a negative integer number is an error, as in PyTorch. */
CTORCH_API ct_tensor *ct_pow(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_pow_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_pow_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_pow_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_rpow_scalar(const ct_tensor *t, ct_scalar s);
CTORCH_API ct_tensor *ct_neg(const ct_tensor *t);          /* torch.neg (-t); not for bool */
CTORCH_API ct_result ct_neg_(ct_tensor *t);
CTORCH_API ct_tensor *ct_abs(const ct_tensor *t);          /* torch.abs */
CTORCH_API ct_result ct_abs_(ct_tensor *t);
CTORCH_API ct_tensor *ct_reciprocal(const ct_tensor *t);   /* torch.reciprocal (1 / t) */
CTORCH_API ct_result ct_reciprocal_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sign(const ct_tensor *t);         /* torch.sign: -1, 0 or 1 (0 for NaN) */
CTORCH_API ct_result ct_sign_(ct_tensor *t);
/* torch.addcmul(t, t1, t2, value=v): t + v * t1 * t2. */
CTORCH_API ct_tensor *ct_addcmul(const ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value);
CTORCH_API ct_result ct_addcmul_(ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value);
/* torch.addcdiv(t, t1, t2, value=v): t + v * t1 / t2 (floating point only, as in PyTorch). */
CTORCH_API ct_tensor *ct_addcdiv(const ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value);
CTORCH_API ct_result ct_addcdiv_(ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value);
/* torch.lerp(start, end, weight): start + weight * (end - start), with a tensor
 * or a number weight. No promotion: all tensors must have one floating dtype. */
CTORCH_API ct_tensor *ct_lerp(const ct_tensor *start, const ct_tensor *end, const ct_tensor *weight);
CTORCH_API ct_result ct_lerp_(ct_tensor *start, const ct_tensor *end, const ct_tensor *weight);
CTORCH_API ct_tensor *ct_lerp_scalar(const ct_tensor *start, const ct_tensor *end, ct_scalar weight);
CTORCH_API ct_result ct_lerp_scalar_(ct_tensor *start, const ct_tensor *end, ct_scalar weight);
/* torch.maximum / minimum (NaN propagates) and torch.fmax / fmin (NaN is
 * ignored unless both are NaN). PyTorch has no number or in-place forms. */
CTORCH_API ct_tensor *ct_maximum(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_minimum(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_fmax(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_fmin(const ct_tensor *a, const ct_tensor *b);
/* torch.clamp(t, min, max) with tensor bounds (broadcast) or number bounds.
 * A NaN bound gives NaN; min > max gives max everywhere. Bounds take part in
 * type promotion: an integer tensor clamped to 0.5 becomes float. */
CTORCH_API ct_tensor *ct_clamp(const ct_tensor *t, const ct_tensor *min, const ct_tensor *max);
CTORCH_API ct_result ct_clamp_(ct_tensor *t, const ct_tensor *min, const ct_tensor *max);
CTORCH_API ct_tensor *ct_clamp_scalar(const ct_tensor *t, ct_scalar min, ct_scalar max);
CTORCH_API ct_result ct_clamp_scalar_(ct_tensor *t, ct_scalar min, ct_scalar max);
/* torch.clamp_min / clamp_max: one bound (torch.clamp(t, min=m) and clamp(t, max=m)). */
CTORCH_API ct_tensor *ct_clamp_min(const ct_tensor *t, const ct_tensor *min);
CTORCH_API ct_result ct_clamp_min_(ct_tensor *t, const ct_tensor *min);
CTORCH_API ct_tensor *ct_clamp_min_scalar(const ct_tensor *t, ct_scalar min);
CTORCH_API ct_result ct_clamp_min_scalar_(ct_tensor *t, ct_scalar min);
CTORCH_API ct_tensor *ct_clamp_max(const ct_tensor *t, const ct_tensor *max);
CTORCH_API ct_result ct_clamp_max_(ct_tensor *t, const ct_tensor *max);
CTORCH_API ct_tensor *ct_clamp_max_scalar(const ct_tensor *t, ct_scalar max);
CTORCH_API ct_result ct_clamp_max_scalar_(ct_tensor *t, ct_scalar max);
/* torch.copysign: |a| with b's sign; float results. */
CTORCH_API ct_tensor *ct_copysign(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_copysign_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_copysign_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_copysign_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_hypot(const ct_tensor *a, const ct_tensor *b);   /* torch.hypot: sqrt(a^2 + b^2), floating only */
CTORCH_API ct_result ct_hypot_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_atan2(const ct_tensor *a, const ct_tensor *b);   /* torch.atan2(a, b): the angle of (b, a) */
CTORCH_API ct_result ct_atan2_(ct_tensor *a, const ct_tensor *b);

/* ---------------------------------------------------------------- rounding */

CTORCH_API ct_tensor *ct_round(const ct_tensor *t);        /* torch.round: half to even (integers unchanged) */
CTORCH_API ct_result ct_round_(ct_tensor *t);
/* torch.round(t, decimals=d): round(t * 10^d) / 10^d (floating point only). */
CTORCH_API ct_tensor *ct_round_decimals(const ct_tensor *t, int64_t decimals);
CTORCH_API ct_result ct_round_decimals_(ct_tensor *t, int64_t decimals);
CTORCH_API ct_tensor *ct_floor(const ct_tensor *t);        /* torch.floor (integers unchanged) */
CTORCH_API ct_result ct_floor_(ct_tensor *t);
CTORCH_API ct_tensor *ct_ceil(const ct_tensor *t);         /* torch.ceil (integers unchanged) */
CTORCH_API ct_result ct_ceil_(ct_tensor *t);
CTORCH_API ct_tensor *ct_trunc(const ct_tensor *t);        /* torch.trunc (integers unchanged) */
CTORCH_API ct_result ct_trunc_(ct_tensor *t);
CTORCH_API ct_tensor *ct_frac(const ct_tensor *t);         /* torch.frac: t - trunc(t), floating only */
CTORCH_API ct_result ct_frac_(ct_tensor *t);

/* ---------------------------------------------------------------- exponents, logarithms, trigonometry */

/* Integers and bool give the default float dtype. */
CTORCH_API ct_tensor *ct_exp(const ct_tensor *t);          /* torch.exp */
CTORCH_API ct_result ct_exp_(ct_tensor *t);
CTORCH_API ct_tensor *ct_exp2(const ct_tensor *t);         /* torch.exp2 (2^t) */
CTORCH_API ct_result ct_exp2_(ct_tensor *t);
CTORCH_API ct_tensor *ct_expm1(const ct_tensor *t);        /* torch.expm1 (e^t - 1) */
CTORCH_API ct_result ct_expm1_(ct_tensor *t);
CTORCH_API ct_tensor *ct_log(const ct_tensor *t);          /* torch.log */
CTORCH_API ct_result ct_log_(ct_tensor *t);
CTORCH_API ct_tensor *ct_log2(const ct_tensor *t);         /* torch.log2 */
CTORCH_API ct_result ct_log2_(ct_tensor *t);
CTORCH_API ct_tensor *ct_log10(const ct_tensor *t);        /* torch.log10 */
CTORCH_API ct_result ct_log10_(ct_tensor *t);
CTORCH_API ct_tensor *ct_log1p(const ct_tensor *t);        /* torch.log1p (log(1 + t)) */
CTORCH_API ct_result ct_log1p_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sqrt(const ct_tensor *t);         /* torch.sqrt */
CTORCH_API ct_result ct_sqrt_(ct_tensor *t);
CTORCH_API ct_tensor *ct_rsqrt(const ct_tensor *t);        /* torch.rsqrt (1 / sqrt(t)) */
CTORCH_API ct_result ct_rsqrt_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sin(const ct_tensor *t);          /* torch.sin */
CTORCH_API ct_result ct_sin_(ct_tensor *t);
CTORCH_API ct_tensor *ct_cos(const ct_tensor *t);          /* torch.cos */
CTORCH_API ct_result ct_cos_(ct_tensor *t);
CTORCH_API ct_tensor *ct_tan(const ct_tensor *t);          /* torch.tan */
CTORCH_API ct_result ct_tan_(ct_tensor *t);
CTORCH_API ct_tensor *ct_asin(const ct_tensor *t);         /* torch.asin */
CTORCH_API ct_result ct_asin_(ct_tensor *t);
CTORCH_API ct_tensor *ct_acos(const ct_tensor *t);         /* torch.acos */
CTORCH_API ct_result ct_acos_(ct_tensor *t);
CTORCH_API ct_tensor *ct_atan(const ct_tensor *t);         /* torch.atan */
CTORCH_API ct_result ct_atan_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sinh(const ct_tensor *t);         /* torch.sinh */
CTORCH_API ct_result ct_sinh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_cosh(const ct_tensor *t);         /* torch.cosh */
CTORCH_API ct_result ct_cosh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_tanh(const ct_tensor *t);         /* torch.tanh */
CTORCH_API ct_result ct_tanh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_asinh(const ct_tensor *t);        /* torch.asinh */
CTORCH_API ct_result ct_asinh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_acosh(const ct_tensor *t);        /* torch.acosh */
CTORCH_API ct_result ct_acosh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_atanh(const ct_tensor *t);        /* torch.atanh */
CTORCH_API ct_result ct_atanh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_erf(const ct_tensor *t);          /* torch.erf */
CTORCH_API ct_result ct_erf_(ct_tensor *t);
CTORCH_API ct_tensor *ct_erfc(const ct_tensor *t);         /* torch.erfc */
CTORCH_API ct_result ct_erfc_(ct_tensor *t);
CTORCH_API ct_tensor *ct_erfinv(const ct_tensor *t);       /* torch.erfinv */
CTORCH_API ct_result ct_erfinv_(ct_tensor *t);
CTORCH_API ct_tensor *ct_lgamma(const ct_tensor *t);       /* torch.lgamma (log |gamma(t)|) */
CTORCH_API ct_result ct_lgamma_(ct_tensor *t);
CTORCH_API ct_tensor *ct_digamma(const ct_tensor *t);      /* torch.digamma */
CTORCH_API ct_result ct_digamma_(ct_tensor *t);
/* torch.polygamma(n, t): the n-th derivative of digamma (n >= 0; n 0 is
 * digamma, 1 trigamma); ct_polygamma_ is Tensor.polygamma_(n). */
CTORCH_API ct_tensor *ct_polygamma(int64_t n, const ct_tensor *t);
CTORCH_API ct_result ct_polygamma_(ct_tensor *t, int64_t n);
CTORCH_API ct_tensor *ct_sigmoid(const ct_tensor *t);      /* torch.sigmoid */
CTORCH_API ct_result ct_sigmoid_(ct_tensor *t);
/* torch.logit(t): log(t / (1 - t)); the _eps forms first clamp t to [eps, 1 - eps]. */
CTORCH_API ct_tensor *ct_logit(const ct_tensor *t);
CTORCH_API ct_result ct_logit_(ct_tensor *t);
CTORCH_API ct_tensor *ct_logit_eps(const ct_tensor *t, double eps);
CTORCH_API ct_result ct_logit_eps_(ct_tensor *t, double eps);
/* torch.xlogy(a, b): a * log(b), 0 where a is 0 (unless b is NaN). */
CTORCH_API ct_tensor *ct_xlogy(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_xlogy_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_xlogy_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_xlogy_scalar_(ct_tensor *a, ct_scalar b);

/* ---------------------------------------------------------------- activations */

/* The functions of torch.nn.functional, on tensors; the _ forms are the
 * inplace=True variants. Floating point only, except relu, relu6 and
 * hardtanh, which also take integers. */
CTORCH_API ct_tensor *ct_relu(const ct_tensor *t);         /* torch.relu */
CTORCH_API ct_result ct_relu_(ct_tensor *t);
CTORCH_API ct_tensor *ct_relu6(const ct_tensor *t);        /* F.relu6: hardtanh(t, 0, 6) */
CTORCH_API ct_result ct_relu6_(ct_tensor *t);
/* F.leaky_relu(t, negative_slope) (PyTorch's default slope is 0.01). */
CTORCH_API ct_tensor *ct_leaky_relu(const ct_tensor *t, double negative_slope);
CTORCH_API ct_result ct_leaky_relu_(ct_tensor *t, double negative_slope);
/* F.elu and its general form: scale * (t if t > 0 else alpha * (exp(t * input_scale) - 1)).
 * Start from ct_elu_opts_init() (alpha 1, scale 1, input_scale 1). */
typedef struct ct_elu_opts {
    double alpha, scale, input_scale;
} ct_elu_opts;
CTORCH_API ct_elu_opts ct_elu_opts_init(void);
CTORCH_API ct_tensor *ct_elu(const ct_tensor *t, ct_elu_opts opts);
CTORCH_API ct_result ct_elu_(ct_tensor *t, ct_elu_opts opts);
CTORCH_API ct_tensor *ct_selu(const ct_tensor *t);         /* torch.selu: elu with SELU's constants */
CTORCH_API ct_result ct_selu_(ct_tensor *t);
/* torch.celu(t, alpha): elu(t, alpha, 1, 1 / alpha); alpha may not be 0. */
CTORCH_API ct_tensor *ct_celu(const ct_tensor *t, double alpha);
CTORCH_API ct_result ct_celu_(ct_tensor *t, double alpha);
/* F.gelu(t, approximate='none' or 'tanh'). */
typedef enum ct_gelu_approximate { CT_GELU_NONE = 0, CT_GELU_TANH } ct_gelu_approximate;
CTORCH_API ct_tensor *ct_gelu(const ct_tensor *t, ct_gelu_approximate approximate);
CTORCH_API ct_tensor *ct_silu(const ct_tensor *t);         /* F.silu: t * sigmoid(t) */
CTORCH_API ct_result ct_silu_(ct_tensor *t);
CTORCH_API ct_tensor *ct_mish(const ct_tensor *t);         /* F.mish: t * tanh(softplus(t)) */
CTORCH_API ct_result ct_mish_(ct_tensor *t);
/* F.softplus(t, beta, threshold): log(1 + exp(beta * t)) / beta, or t where
 * beta * t > threshold. Start from ct_softplus_opts_init() (beta 1, threshold 20). */
typedef struct ct_softplus_opts {
    double beta, threshold;
} ct_softplus_opts;
CTORCH_API ct_softplus_opts ct_softplus_opts_init(void);
CTORCH_API ct_tensor *ct_softplus(const ct_tensor *t, ct_softplus_opts opts);
/* F.hardtanh(t, min_val, max_val) (PyTorch's defaults are -1 and 1). */
CTORCH_API ct_tensor *ct_hardtanh(const ct_tensor *t, double min_val, double max_val);
CTORCH_API ct_result ct_hardtanh_(ct_tensor *t, double min_val, double max_val);
CTORCH_API ct_tensor *ct_hardsigmoid(const ct_tensor *t);  /* F.hardsigmoid: relu6(t + 3) / 6 */
CTORCH_API ct_result ct_hardsigmoid_(ct_tensor *t);
CTORCH_API ct_tensor *ct_hardswish(const ct_tensor *t);    /* F.hardswish: t * relu6(t + 3) / 6 */
CTORCH_API ct_result ct_hardswish_(ct_tensor *t);

/* The activations' first derivatives, the ops their backward passes run
 * (differentiable in turn). grad_output and the other operand broadcast and
 * promote as a binary op's. float16 and bfloat16 compute in float and round
 * once, but for float16's sigmoid_backward and bfloat16's gelu_backward,
 * which round each step as PyTorch 1.13's scalar kernels do (float16 where
 * PyTorch has no kernel: in float). */
/* aten::threshold_backward(grad_output, self, threshold): 0 where self <=
 * threshold, else grad_output (relu's, with threshold 0 and relu's result as self). */
CTORCH_API ct_tensor *ct_threshold_backward(const ct_tensor *grad_output, const ct_tensor *self, ct_scalar threshold);
/* aten::tanh_backward(grad_output, output): grad_output * (1 - output^2), output = tanh(x). */
CTORCH_API ct_tensor *ct_tanh_backward(const ct_tensor *grad_output, const ct_tensor *output);
/* aten::sigmoid_backward(grad_output, output): grad_output * (1 - output) * output, output = sigmoid(x). */
CTORCH_API ct_tensor *ct_sigmoid_backward(const ct_tensor *grad_output, const ct_tensor *output);
/* aten::gelu_backward(grad_output, self, approximate): grad_output times the
 * derivative of gelu(self, approximate). */
CTORCH_API ct_tensor *ct_gelu_backward(const ct_tensor *grad_output, const ct_tensor *self,
                                       ct_gelu_approximate approximate);

/* ---------------------------------------------------------------- comparison and logic */

/* Comparisons give bool tensors, computed in the promoted dtype. Their _ forms
 * write 0 or 1 into a (Tensor.eq_). */
CTORCH_API ct_tensor *ct_eq(const ct_tensor *a, const ct_tensor *b);   /* torch.eq (a == b) */
CTORCH_API ct_tensor *ct_eq_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_eq_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_eq_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_ne(const ct_tensor *a, const ct_tensor *b);   /* torch.ne (a != b) */
CTORCH_API ct_tensor *ct_ne_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_ne_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_ne_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_lt(const ct_tensor *a, const ct_tensor *b);   /* torch.lt (a < b) */
CTORCH_API ct_tensor *ct_lt_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_lt_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_lt_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_le(const ct_tensor *a, const ct_tensor *b);   /* torch.le (a <= b) */
CTORCH_API ct_tensor *ct_le_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_le_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_le_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_gt(const ct_tensor *a, const ct_tensor *b);   /* torch.gt (a > b) */
CTORCH_API ct_tensor *ct_gt_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_gt_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_gt_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_ge(const ct_tensor *a, const ct_tensor *b);   /* torch.ge (a >= b) */
CTORCH_API ct_tensor *ct_ge_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_ge_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_ge_scalar_(ct_tensor *a, ct_scalar b);
/* torch.isclose(a, b): |a - b| <= atol + rtol * |b| elementwise (bool), a and b
 * of one dtype. Start from ct_isclose_opts_init() (rtol 1e-05, atol 1e-08,
 * equal_nan false). */
typedef struct ct_isclose_opts {
    double rtol, atol;
    bool equal_nan;
} ct_isclose_opts;
CTORCH_API ct_isclose_opts ct_isclose_opts_init(void);
CTORCH_API ct_tensor *ct_isclose(const ct_tensor *a, const ct_tensor *b, ct_isclose_opts opts);
/* torch.allclose: whether isclose holds everywhere (false, with the error set, on an error). */
CTORCH_API bool ct_allclose(const ct_tensor *a, const ct_tensor *b, ct_isclose_opts opts);
/* torch.equal: same shape and equal values (after promotion; NaN is unequal). */
CTORCH_API bool ct_equal(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_isnan(const ct_tensor *t);        /* torch.isnan: bool */
CTORCH_API ct_tensor *ct_isinf(const ct_tensor *t);        /* torch.isinf: bool */
CTORCH_API ct_tensor *ct_isfinite(const ct_tensor *t);     /* torch.isfinite: bool */
/* torch.logical_*: nonzero is true; bool results (the _ forms write 0 or 1 into a). */
CTORCH_API ct_tensor *ct_logical_not(const ct_tensor *t);
CTORCH_API ct_result ct_logical_not_(ct_tensor *t);
CTORCH_API ct_tensor *ct_logical_and(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_logical_and_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_logical_or(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_logical_or_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_logical_xor(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_logical_xor_(ct_tensor *a, const ct_tensor *b);
/* torch.bitwise_*: integers and bool only. */
CTORCH_API ct_tensor *ct_bitwise_not(const ct_tensor *t);  /* ~t */
CTORCH_API ct_result ct_bitwise_not_(ct_tensor *t);
CTORCH_API ct_tensor *ct_bitwise_and(const ct_tensor *a, const ct_tensor *b);   /* a & b */
CTORCH_API ct_tensor *ct_bitwise_and_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_bitwise_and_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_bitwise_and_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_bitwise_or(const ct_tensor *a, const ct_tensor *b);    /* a | b */
CTORCH_API ct_tensor *ct_bitwise_or_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_bitwise_or_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_bitwise_or_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_bitwise_xor(const ct_tensor *a, const ct_tensor *b);   /* a ^ b */
CTORCH_API ct_tensor *ct_bitwise_xor_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_bitwise_xor_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_bitwise_xor_scalar_(ct_tensor *a, ct_scalar b);
/* torch.bitwise_left_shift / right_shift (a << b, a >> b; integers only). As in
 * PyTorch on x86, a shift count is taken modulo 32 (64 for int64) and the
 * narrow types shift as 32-bit ints. */
CTORCH_API ct_tensor *ct_bitwise_left_shift(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_bitwise_left_shift_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_bitwise_left_shift_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_bitwise_left_shift_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_bitwise_right_shift(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_bitwise_right_shift_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_bitwise_right_shift_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_bitwise_right_shift_scalar_(ct_tensor *a, ct_scalar b);

/* ---------------------------------------------------------------- selection */

/* torch.where(condition, x, y): x where condition (bool, or uint8 as PyTorch
 * still accepts) is true, else y; x and y are promoted together. The
 * _scalar forms take numbers, as where(c, t, 0.0) does in Python. */
CTORCH_API ct_tensor *ct_where(const ct_tensor *condition, const ct_tensor *x, const ct_tensor *y);
CTORCH_API ct_tensor *ct_where_scalar_other(const ct_tensor *condition, const ct_tensor *x, ct_scalar y);
CTORCH_API ct_tensor *ct_where_scalar_self(const ct_tensor *condition, ct_scalar x, const ct_tensor *y);
CTORCH_API ct_tensor *ct_where_scalar(const ct_tensor *condition, ct_scalar x, ct_scalar y);
/* torch.nan_to_num: NaN becomes opts.nan (default 0), +inf opts.posinf and
 * -inf opts.neginf (NULL: the dtype's largest and lowest finite values).
 * Integers and bool are returned unchanged. */
typedef struct ct_nan_to_num_opts {
    double nan;
    const double *posinf, *neginf;
} ct_nan_to_num_opts;
CTORCH_API ct_tensor *ct_nan_to_num(const ct_tensor *t, ct_nan_to_num_opts opts);
CTORCH_API ct_result ct_nan_to_num_(ct_tensor *t, ct_nan_to_num_opts opts);

/* The op table (for tests and tools): how many ops there are and their names. */
CTORCH_API int ct_op_count(void);
CTORCH_API const char *ct_op_name(int i);
