/* Public math API: pointwise ops (and, as they come, reductions, scans,
 * sorting, joining). Every function mirrors the torch function of the same
 * name; the _ forms work in place on their first argument and return a
 * ct_result; the _scalar forms take a Python number for the second operand,
 * with PyTorch's promotion for numbers (int_tensor * 2 stays integral,
 * int_tensor * 2.5 becomes the default float dtype). */

/* torch.result_type(a, b) and torch.result_type(t, number). */
CTORCH_API ct_dtype ct_result_type(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_dtype ct_result_type_scalar(const ct_tensor *t, ct_scalar s);

/* ---------------------------------------------------------------- unary */

CTORCH_API ct_tensor *ct_neg(const ct_tensor *t);         /* torch.neg (-t); not for bool */
CTORCH_API ct_result ct_neg_(ct_tensor *t);
CTORCH_API ct_tensor *ct_abs(const ct_tensor *t);         /* torch.abs */
CTORCH_API ct_result ct_abs_(ct_tensor *t);
CTORCH_API ct_tensor *ct_floor(const ct_tensor *t);       /* torch.floor (integers unchanged) */
CTORCH_API ct_result ct_floor_(ct_tensor *t);
CTORCH_API ct_tensor *ct_exp(const ct_tensor *t);         /* torch.exp; integers give the default float dtype */
CTORCH_API ct_result ct_exp_(ct_tensor *t);
CTORCH_API ct_tensor *ct_log(const ct_tensor *t);         /* torch.log */
CTORCH_API ct_result ct_log_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sqrt(const ct_tensor *t);        /* torch.sqrt */
CTORCH_API ct_result ct_sqrt_(ct_tensor *t);
CTORCH_API ct_tensor *ct_tanh(const ct_tensor *t);        /* torch.tanh */
CTORCH_API ct_result ct_tanh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sigmoid(const ct_tensor *t);     /* torch.sigmoid */
CTORCH_API ct_result ct_sigmoid_(ct_tensor *t);
CTORCH_API ct_tensor *ct_relu(const ct_tensor *t);        /* torch.relu */
CTORCH_API ct_result ct_relu_(ct_tensor *t);
CTORCH_API ct_tensor *ct_isnan(const ct_tensor *t);       /* torch.isnan: bool */
CTORCH_API ct_tensor *ct_logical_not(const ct_tensor *t); /* torch.logical_not: bool */
CTORCH_API ct_result ct_logical_not_(ct_tensor *t);

/* ---------------------------------------------------------------- binary (broadcasting) */

CTORCH_API ct_tensor *ct_add(const ct_tensor *a, const ct_tensor *b);             /* torch.add (a + b) */
CTORCH_API ct_tensor *ct_add_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_add_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_add_scalar_(ct_tensor *a, ct_scalar b);
/* torch.add(a, b, alpha=alpha): a + alpha * b (and sub: a - alpha * b). */
CTORCH_API ct_tensor *ct_add_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_result ct_add_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_tensor *ct_sub(const ct_tensor *a, const ct_tensor *b);             /* torch.sub (a - b) */
CTORCH_API ct_tensor *ct_sub_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_sub_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_sub_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_sub_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_result ct_sub_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_tensor *ct_mul(const ct_tensor *a, const ct_tensor *b);             /* torch.mul (a * b) */
CTORCH_API ct_tensor *ct_mul_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_mul_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_mul_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_div(const ct_tensor *a, const ct_tensor *b);             /* torch.div (a / b, true division) */
CTORCH_API ct_tensor *ct_div_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_div_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_div_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_maximum(const ct_tensor *a, const ct_tensor *b);         /* torch.maximum (NaN propagates; no number form, as in PyTorch) */
CTORCH_API ct_tensor *ct_pow(const ct_tensor *a, const ct_tensor *b);             /* torch.pow (a ** b) */
CTORCH_API ct_tensor *ct_pow_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_pow_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_pow_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_eq(const ct_tensor *a, const ct_tensor *b);              /* torch.eq (a == b): bool */
CTORCH_API ct_tensor *ct_eq_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_eq_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_eq_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_lt(const ct_tensor *a, const ct_tensor *b);              /* torch.lt (a < b): bool */
CTORCH_API ct_tensor *ct_lt_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_lt_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_lt_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_logical_and(const ct_tensor *a, const ct_tensor *b);     /* torch.logical_and: bool */
CTORCH_API ct_result ct_logical_and_(ct_tensor *a, const ct_tensor *b);

/* The op table (for tests and tools): how many ops there are and their names. */
CTORCH_API int ct_op_count(void);
CTORCH_API const char *ct_op_name(int i);
