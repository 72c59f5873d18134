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

/* ---------------------------------------------------------------- einsum, tensordot, kron, cross
 *
 * Contractions and products built from the ops above exactly as PyTorch
 * builds them (permute, reshape, sum, mul, bmm / mm), so their graphs have
 * PyTorch's nodes and every order of derivative comes for free. Operand
 * dtypes follow those ops: mul promotes, bmm and mm need one dtype.
 *
 *     ct_tensor *ops[2] = {a, b};
 *     ct_tensor *c = ct_einsum("bij,bjk->bik", ops, 2);    // torch.einsum("bij,bjk->bik", a, b)
 *
 * Aligned operands have one dim per distinct label plus the ellipsis's, so an
 * einsum is limited to CT_MAX_DIMS (16) of them (PyTorch allows 64), and kron
 * to inputs of at most CT_MAX_DIMS / 2 dims (it views them with twice as many). */

/* torch.einsum(equation, *operands): the Einstein sum of the n operands.
 * The equation is PyTorch's: a label per dim in [a-zA-Z], operands separated
 * by commas, "..." for broadcast dims, spaces ignored; "->" gives the output,
 * else it is "..." then the labels used once, in order (A-Z before a-z).
 * A label repeated in one operand takes its diagonal; labels left out of the
 * output are summed. Operands are contracted pairwise from the left, each
 * pair through one bmm (PyTorch's sumproduct_pair). */
CTORCH_API ct_tensor *ct_einsum(const char *equation, ct_tensor *const *operands, int n);
/* torch.tensordot(a, b, dims): sums over the last `dims` dims of a and the
 * first `dims` dims of b, through one mm. */
CTORCH_API ct_tensor *ct_tensordot(const ct_tensor *a, const ct_tensor *b, int64_t dims);
/* torch.tensordot(a, b, dims=(dims_a, dims_b)): sums over dims_a[i] of a
 * paired with dims_b[i] of b (a size-1 dim pairs with any size). */
CTORCH_API ct_tensor *ct_tensordot_dims(const ct_tensor *a, const ct_tensor *b, ct_shape dims_a, ct_shape dims_b);
/* torch.kron(input, other): the Kronecker product; the smaller rank is padded
 * with leading 1s. As in PyTorch 1.13, the product of the two inputs' views
 * is laid out like them and then viewed, so a transposed input fails with
 * view's error. */
CTORCH_API ct_tensor *ct_kron(const ct_tensor *input, const ct_tensor *other);
/* torch.linalg.cross(input, other, dim=-1): the cross product of 3-vectors
 * along dim; inputs have the same number of dims and broadcast, and share a
 * dtype (not float16 or bool, as PyTorch's CPU kernel). On a device it
 * runs on the host through copies, as the decompositions do. */
CTORCH_API ct_tensor *ct_linalg_cross(const ct_tensor *input, const ct_tensor *other, int dim);
/* torch.cross(input, other): linalg.cross along the first dim of input that
 * has size 3 (PyTorch 1.13's default, which linalg.cross's -1 replaces). */
CTORCH_API ct_tensor *ct_cross(const ct_tensor *input, const ct_tensor *other);
/* torch.cross(input, other, dim): linalg.cross along dim. */
CTORCH_API ct_tensor *ct_cross_dim(const ct_tensor *input, const ct_tensor *other, int dim);
