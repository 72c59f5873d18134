/* Public linear algebra API: matrix products.
 *
 * The products take float32 and float64 tensors with a derivative, and also
 * bfloat16 and the integer dtypes (no derivative), as PyTorch's CPU kernels
 * do; float16 and bool are refused with PyTorch's error. Operands of one
 * product must share a dtype (no promotion, as in PyTorch), except the added
 * tensor of addmv and baddbmm, which is cast. Inputs may be non-contiguous,
 * broadcast (zero strides) or empty; results are new contiguous tensors.
 * Integer products wrap as PyTorch's do; a float beta or alpha given with
 * integer tensors is truncated to an integer first, as PyTorch converts it.
 *
 *     ct_tensor *y = ct_matmul(x, w);                              // x @ w
 *     ct_tensor *z = ct_addmm(b, x, w, ct_addmm_opts_init());      // b + x @ w
 *
 * All functions are safe to call from several threads on different tensors. */

/* torch.mm(input, mat2): the (n x m) @ (m x p) matrix product. */
CTORCH_API ct_tensor *ct_mm(const ct_tensor *input, const ct_tensor *mat2);
/* torch.bmm(input, mat2): the batched product of (b x n x m) and (b x m x p). */
CTORCH_API ct_tensor *ct_bmm(const ct_tensor *input, const ct_tensor *mat2);
/* torch.mv(input, vec): the (n x m) matrix times the m-vector. */
CTORCH_API ct_tensor *ct_mv(const ct_tensor *input, const ct_tensor *vec);
/* torch.dot(input, tensor): the 0-d inner product of two 1-D tensors. */
CTORCH_API ct_tensor *ct_dot(const ct_tensor *input, const ct_tensor *tensor);
/* torch.vdot(input, other): dot with the first argument conjugated (the same
 * as dot for real tensors; its node is VdotBackward0). */
CTORCH_API ct_tensor *ct_vdot(const ct_tensor *input, const ct_tensor *other);
/* torch.outer(input, vec2) (also torch.ger): the outer product of two 1-D
 * tensors, input[:, None] * vec2, with type promotion as mul has it. */
CTORCH_API ct_tensor *ct_outer(const ct_tensor *input, const ct_tensor *vec2);

/* torch.matmul(input, other), the @ operator: dot for two vectors, mv and
 * mm for a matrix, and for more dims a batched product whose batch dims
 * broadcast (a 1-D argument gets a dim of size 1 prepended or appended, and
 * removed from the result). It is made of mm, mv, dot and bmm exactly as
 * PyTorch's matmul is, so the recorded graph has PyTorch's nodes. */
CTORCH_API ct_tensor *ct_matmul(const ct_tensor *input, const ct_tensor *other);

/* The scale factors of addmm, addmv and baddbmm: beta * input + alpha * product.
 * Start from ct_addmm_opts_init() (beta 1, alpha 1). With beta 0 the input is
 * not read (its NaNs do not reach the result), as in PyTorch. */
typedef struct ct_addmm_opts {
    double beta, alpha;
} ct_addmm_opts;
CTORCH_API ct_addmm_opts ct_addmm_opts_init(void);

/* torch.addmm(input, mat1, mat2, beta=, alpha=): beta * input + alpha * (mat1 @ mat2),
 * input broadcast to the product's shape. All three share a dtype. */
CTORCH_API ct_tensor *ct_addmm(const ct_tensor *input, const ct_tensor *mat1, const ct_tensor *mat2, ct_addmm_opts opts);
/* torch.addmv(input, mat, vec, beta=, alpha=): beta * input + alpha * (mat @ vec). */
CTORCH_API ct_tensor *ct_addmv(const ct_tensor *input, const ct_tensor *mat, const ct_tensor *vec, ct_addmm_opts opts);
/* torch.baddbmm(input, batch1, batch2, beta=, alpha=): beta * input + alpha * bmm(batch1, batch2). */
CTORCH_API ct_tensor *ct_baddbmm(const ct_tensor *input, const ct_tensor *batch1, const ct_tensor *batch2,
                                 ct_addmm_opts opts);
