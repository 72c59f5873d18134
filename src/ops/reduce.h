/* Public reductions, scans and softmax. Every function mirrors the torch
 * function of the same name and gives the same numbers as PyTorch 1.13 on
 * the CPU with one thread: sums follow its cascade summation, products its
 * vector lanes, variances its Welford or two-pass algorithm, so that results
 * agree to the last bit (softmax and logsumexp, whose exp and log are
 * vectorised in PyTorch, agree to a few units in the last place).
 *
 * Dims: a list of dims is a ct_shape, written CT_DIMS(0, 2); negative dims
 * count from the end; the empty list CT_SHAPE0 means every dim, as dim=()
 * does in PyTorch 1.13. With keepdim the reduced dims stay as size 1.
 * dtype CT_DEFAULT keeps PyTorch's result dtype (integer and bool sums and
 * products give int64); another dtype converts the input to it first.
 *
 * Ops that PyTorch answers with a named tuple of values and indices
 * (torch.return_types.max, .median, ...) write new tensors to *values and
 * *indices and return a ct_result; pass NULL for a result you do not need.
 * On failure both are set to NULL. Indices are int64.
 *
 * Where PyTorch 1.13 has no float16 CPU kernel (prod, median, cumsum,
 * cumprod, cummax, cummin, logcumsumexp, softmax, log_softmax, logsumexp),
 * ctorch computes in float32 and rounds the result to float16 once.
 * Results are contiguous. All functions may be called from several threads
 * on different tensors. */

/* ---------------------------------------------------------------- sums and products */

/* torch.sum(input): the sum of every element; integer and bool inputs give int64. */
CTORCH_API ct_tensor *ct_sum(const ct_tensor *input);
/* torch.sum(input, dim, keepdim, dtype=dtype). */
CTORCH_API ct_tensor *ct_sum_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype);
/* torch.nansum(input): the sum with NaN counted as zero. */
CTORCH_API ct_tensor *ct_nansum(const ct_tensor *input);
/* torch.nansum(input, dim, keepdim, dtype=dtype). */
CTORCH_API ct_tensor *ct_nansum_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype);
/* torch.mean(input): floating inputs only, as in PyTorch; NaN for no elements. */
CTORCH_API ct_tensor *ct_mean(const ct_tensor *input);
/* torch.mean(input, dim, keepdim, dtype=dtype): dtype, when given, must be floating. */
CTORCH_API ct_tensor *ct_mean_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype);
/* torch.prod(input): the product of every element; integer and bool inputs give int64. */
CTORCH_API ct_tensor *ct_prod(const ct_tensor *input);
/* torch.prod(input, dim, keepdim, dtype=dtype): one dim, as in PyTorch. */
CTORCH_API ct_tensor *ct_prod_dim(const ct_tensor *input, int dim, bool keepdim, ct_dtype dtype);

/* ---------------------------------------------------------------- extremes */

/* torch.max(input) / torch.min(input): the largest (smallest) element, NaN if
 * there is one. Error for a tensor without elements. */
CTORCH_API ct_tensor *ct_max(const ct_tensor *input);
CTORCH_API ct_tensor *ct_min(const ct_tensor *input);
/* torch.max(input, dim, keepdim) / torch.min: the largest (smallest) values
 * along dim and the index of the first of them (of the first NaN, if any). */
CTORCH_API ct_result ct_max_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values,
                                ct_tensor **indices);
CTORCH_API ct_result ct_min_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values,
                                ct_tensor **indices);
/* torch.amax(input, dim, keepdim) / torch.amin: the extremes over several dims. */
CTORCH_API ct_tensor *ct_amax(const ct_tensor *input, ct_shape dims, bool keepdim);
CTORCH_API ct_tensor *ct_amin(const ct_tensor *input, ct_shape dims, bool keepdim);
/* torch.argmax(input) / torch.argmin: the index of the first extreme (or
 * first NaN) of the flattened input, as a 0-d int64 tensor. */
CTORCH_API ct_tensor *ct_argmax(const ct_tensor *input);
CTORCH_API ct_tensor *ct_argmin(const ct_tensor *input);
/* torch.argmax(input, dim, keepdim) / torch.argmin. */
CTORCH_API ct_tensor *ct_argmax_dim(const ct_tensor *input, int dim, bool keepdim);
CTORCH_API ct_tensor *ct_argmin_dim(const ct_tensor *input, int dim, bool keepdim);

/* ---------------------------------------------------------------- statistics */

/* torch.std(input) / torch.var(input): with Bessel's correction. */
CTORCH_API ct_tensor *ct_std(const ct_tensor *input);
CTORCH_API ct_tensor *ct_var(const ct_tensor *input);
/* torch.std(input, dim, correction=correction, keepdim) / torch.var: the
 * divisor is N - correction (1 is PyTorch's default, unbiased=True; 0 is
 * unbiased=False); NaN for no elements, inf when N <= correction. */
CTORCH_API ct_tensor *ct_std_dim(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim);
CTORCH_API ct_tensor *ct_var_dim(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim);
/* torch.std_mean(input, dim, correction=correction, keepdim) / torch.var_mean:
 * both results of one pass (CT_SHAPE0 for every dim). */
CTORCH_API ct_result ct_std_mean(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim,
                                 ct_tensor **std, ct_tensor **mean);
CTORCH_API ct_result ct_var_mean(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim,
                                 ct_tensor **var, ct_tensor **mean);
/* torch.median(input): the lower median of every element, NaN if there is one. */
CTORCH_API ct_tensor *ct_median(const ct_tensor *input);
/* torch.median(input, dim, keepdim): the lower medians along dim and their
 * indices (among equal values, PyTorch's choice; the first NaN if any). */
CTORCH_API ct_result ct_median_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values,
                                   ct_tensor **indices);
/* torch.mode(input, dim, keepdim): the most frequent value along dim (the
 * smallest of equally frequent ones) and an index of it, PyTorch's. dim -1 is
 * PyTorch's default. */
CTORCH_API ct_result ct_mode(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values,
                             ct_tensor **indices);

/* ---------------------------------------------------------------- norms */

/* torch.norm(input, p): the p-norm of every element; p may be any number,
 * INFINITY or -INFINITY; 0 counts the nonzero elements. torch.norm(input),
 * whose p is 'fro', is ct_norm(input, 2). Floating inputs only. */
CTORCH_API ct_tensor *ct_norm(const ct_tensor *input, double p);
/* torch.norm(input, p, dim, keepdim, dtype=dtype). */
CTORCH_API ct_tensor *ct_norm_dim(const ct_tensor *input, double p, ct_shape dims, bool keepdim, ct_dtype dtype);
/* torch.norm(input, 'fro', dim, keepdim): at most two dims; over two it is
 * sqrt(sum(input * input)), as in PyTorch, which rounds differently. */
CTORCH_API ct_tensor *ct_norm_fro(const ct_tensor *input, ct_shape dims, bool keepdim);
/* torch.logsumexp(input, dim, keepdim): log(sum(exp(input))) without
 * overflow; integer inputs give the default float dtype. */
CTORCH_API ct_tensor *ct_logsumexp(const ct_tensor *input, ct_shape dims, bool keepdim);

/* ---------------------------------------------------------------- logic and counting */

/* torch.all(input) / torch.any: bool, or uint8 for a uint8 input as in PyTorch. */
CTORCH_API ct_tensor *ct_all(const ct_tensor *input);
CTORCH_API ct_tensor *ct_any(const ct_tensor *input);
/* torch.all(input, dim, keepdim) / torch.any. */
CTORCH_API ct_tensor *ct_all_dim(const ct_tensor *input, int dim, bool keepdim);
CTORCH_API ct_tensor *ct_any_dim(const ct_tensor *input, int dim, bool keepdim);
/* torch.count_nonzero(input, dim): int64 counts over the dims (CT_SHAPE0: all). */
CTORCH_API ct_tensor *ct_count_nonzero(const ct_tensor *input, ct_shape dims);

/* ---------------------------------------------------------------- scans */

/* torch.cumsum(input, dim, dtype=dtype) / torch.cumprod: integer and bool
 * inputs give int64. Floating sums run in double (float for bfloat16), as
 * PyTorch's CPU kernels do. */
CTORCH_API ct_tensor *ct_cumsum(const ct_tensor *input, int dim, ct_dtype dtype);
CTORCH_API ct_tensor *ct_cumprod(const ct_tensor *input, int dim, ct_dtype dtype);
/* Tensor.cumsum_(dim, dtype) / Tensor.cumprod_: in place; the result keeps
 * self's dtype (dtype, when given, must be it). */
CTORCH_API ct_result ct_cumsum_(ct_tensor *self, int dim, ct_dtype dtype);
CTORCH_API ct_result ct_cumprod_(ct_tensor *self, int dim, ct_dtype dtype);
/* torch.cummax(input, dim) / torch.cummin: the running extreme along dim and
 * the index of its last occurrence so far (NaN sticks). */
CTORCH_API ct_result ct_cummax(const ct_tensor *input, int dim, ct_tensor **values, ct_tensor **indices);
CTORCH_API ct_result ct_cummin(const ct_tensor *input, int dim, ct_tensor **values, ct_tensor **indices);
/* torch.logcumsumexp(input, dim): log of the running sum of exp, floating only. */
CTORCH_API ct_tensor *ct_logcumsumexp(const ct_tensor *input, int dim);

/* ---------------------------------------------------------------- softmax */

/* torch.softmax(input, dim, dtype=dtype) / torch.log_softmax: over dim, less
 * the maximum first so that nothing overflows. dtype, when given, converts
 * the input first (integer inputs need it, as in PyTorch). */
CTORCH_API ct_tensor *ct_softmax(const ct_tensor *input, int dim, ct_dtype dtype);
CTORCH_API ct_tensor *ct_log_softmax(const ct_tensor *input, int dim, ct_dtype dtype);

/* ---------------------------------------------------------------- normalize */

/* torch.nn.functional.normalize(input, p, dim, eps): input divided by its
 * p-norm along dim, the norm taken to be at least eps (PyTorch's defaults:
 * p 2, dim 1, eps 1e-12), so rows of zeros stay zeros. Floating inputs only,
 * with PyTorch's message for others. Float16, which PyTorch 1.13 refuses on
 * the CPU (it has no float16 clamp_min there), works as it does where PyTorch
 * has float16 kernels: eps is rounded to float16, so the default 1e-12
 * becomes 0 and a row of zeros gives NaN (pytorch/pytorch#32137); an eps of
 * at least 6e-8 avoids that. */
CTORCH_API ct_tensor *ct_normalize(const ct_tensor *input, double p, int dim, double eps);

/* ---------------------------------------------------------------- printing */

/* print() of a torch.return_types named tuple: "torch.return_types.<name>(",
 * then "values=" and "indices=" with the tensors' reprs, as PyTorch prints
 * the result of torch.max(x, dim), torch.cummin(x, dim), ... */
CTORCH_API void ct_print_return_types(const char *name, const ct_tensor *values, const ct_tensor *indices);
