/* Public linear algebra API: decompositions, solvers and matrix functions
 * (torch.linalg and the older torch names).
 *
 * Every function takes a matrix or a batch of them: A (..., m, n), the
 * leading dims batch dims, float32 or float64 (float16 and integer inputs
 * are refused in PyTorch's words). The work is done in double, so float32
 * results are the float64 ones rounded. Functions that PyTorch answers with a
 * named tuple write new tensors to their pointer arguments (NULL: not
 * wanted) and return a ct_result; on failure every one is set to NULL.
 * ctorch has no complex dtype: complex results (eig) come as real and
 * imaginary parts along a last dim of size 2, as torch.view_as_real lays
 * them out. A singular or not positive-definite input fails with PyTorch's
 * message, naming the batch element ("(Batch element 1): ") for a batch.
 * Every function here runs on the host: a device input is copied to the CPU
 * (waiting for the device), decomposed there, and the results are copied
 * back to the input's device. */

/* torch.linalg.inv(A): the inverse of each square matrix. */
CTORCH_API ct_tensor *ct_linalg_inv(const ct_tensor *A);
/* torch.inverse(A): the same as ct_linalg_inv. */
CTORCH_API ct_tensor *ct_inverse(const ct_tensor *A);
/* torch.linalg.det(A) (and torch.det): the determinant of each matrix, by LU. */
CTORCH_API ct_tensor *ct_linalg_det(const ct_tensor *A);
/* torch.linalg.slogdet(A): the sign (-1, 0 or 1) and log|det|; a singular
 * matrix gives sign 0 and -inf. */
CTORCH_API ct_result ct_linalg_slogdet(const ct_tensor *A, ct_tensor **sign, ct_tensor **logabsdet);
/* torch.linalg.solve(A, B): X with A X = B. B is (..., n, k), or a vector
 * (..., n) when B.dim() == A.dim() - 1 and B's shape is A's without its last
 * dim; batch dims broadcast. */
CTORCH_API ct_tensor *ct_linalg_solve(const ct_tensor *A, const ct_tensor *B);
/* torch.linalg.cholesky(A, upper): L with A = L L^T (upper: U = L^T). */
CTORCH_API ct_tensor *ct_linalg_cholesky(const ct_tensor *A, bool upper);

/* torch.linalg.qr's mode: Q (m, k) R (k, n) with k = min(m, n); Q (m, m)
 * R (m, n); or R alone (Q an empty tensor). */
typedef enum ct_qr_mode { CT_QR_REDUCED = 0, CT_QR_COMPLETE, CT_QR_R } ct_qr_mode;
/* torch.linalg.qr(A, mode): A = Q R by Householder reflections, with
 * LAPACK's signs (R's diagonal may be negative). */
CTORCH_API ct_result ct_linalg_qr(const ct_tensor *A, ct_qr_mode mode, ct_tensor **Q, ct_tensor **R);
/* torch.qr(A, some): ct_linalg_qr with mode reduced (some) or complete. */
CTORCH_API ct_result ct_qr(const ct_tensor *A, bool some, ct_tensor **Q, ct_tensor **R);

/* torch.linalg.svd(A, full_matrices): A = U diag(S) Vh, S descending;
 * U (..., m, m) and Vh (..., n, n) with full_matrices, else (..., m, k) and
 * (..., k, n). Singular vectors are unique up to sign (and, for repeated
 * singular values, a rotation): compare U diag(S) Vh, not U. */
CTORCH_API ct_result ct_linalg_svd(const ct_tensor *A, bool full_matrices, ct_tensor **U, ct_tensor **S,
                                   ct_tensor **Vh);
/* torch.svd(A, some): the older form, returning V = Vh^T (a transposed view). */
CTORCH_API ct_result ct_svd(const ct_tensor *A, bool some, ct_tensor **U, ct_tensor **S, ct_tensor **V);
/* torch.linalg.svdvals(A): the singular values, descending. */
CTORCH_API ct_tensor *ct_linalg_svdvals(const ct_tensor *A);

/* torch.linalg.eigh(A, UPLO): eigenvalues (ascending) and orthonormal
 * eigenvectors (columns) of symmetric matrices, reading the lower ('L', or
 * 0 for PyTorch's default) or upper ('U') triangle. */
CTORCH_API ct_result ct_linalg_eigh(const ct_tensor *A, char uplo, ct_tensor **eigenvalues,
                                    ct_tensor **eigenvectors);
/* torch.linalg.eigvalsh(A, UPLO): the eigenvalues of ct_linalg_eigh. */
CTORCH_API ct_tensor *ct_linalg_eigvalsh(const ct_tensor *A, char uplo);
/* torch.linalg.eig(A): eigenvalues (..., n, 2) and eigenvectors
 * (..., n, n, 2) of general square matrices, as real and imaginary parts,
 * as LAPACK's geev gives them (ctorch's own kernel follows dgeev step by
 * step): the eigenvalues in its order, a complex pair with the positive
 * imaginary part first; each eigenvector of unit norm, a complex one
 * rotated so that its largest component is real, its sign or phase
 * LAPACK's. For float32 input PyTorch runs sgeev in float and ctorch's
 * kernel works in double, so a vector's sign can differ from PyTorch's
 * there. Error for inf or NaN input. */
CTORCH_API ct_result ct_linalg_eig(const ct_tensor *A, ct_tensor **eigenvalues, ct_tensor **eigenvectors);
/* torch.linalg.eigvals(A): the eigenvalues of ct_linalg_eig. */
CTORCH_API ct_tensor *ct_linalg_eigvals(const ct_tensor *A);

/* torch.linalg.lstsq(A, B).solution: the X that minimises ||A X - B||
 * (the least-norm one when A lacks full rank, singular values below
 * eps * max(m, n) * the largest counting as zero). B may be a vector as in
 * ct_linalg_solve; batch dims broadcast. ct_linalg_lstsq_all gives the
 * other results and takes driver and rcond. */
CTORCH_API ct_tensor *ct_linalg_lstsq(const ct_tensor *A, const ct_tensor *B);
/* torch.linalg.pinv(A, hermitian): the pseudo-inverse (n, m), dropping
 * singular values at most eps * max(m, n) * the largest. hermitian: A is
 * symmetric, so its eigen decomposition is used. */
CTORCH_API ct_tensor *ct_linalg_pinv(const ct_tensor *A, bool hermitian);
/* torch.linalg.matrix_rank(A, hermitian): the number of singular values
 * above eps * max(m, n) * the largest (int64). */
CTORCH_API ct_tensor *ct_linalg_matrix_rank(const ct_tensor *A, bool hermitian);

/* torch.linalg.vector_norm(x, ord, dim, keepdim): the ord-norm over dims
 * (none: every element); ord any number, INFINITY or -INFINITY. */
CTORCH_API ct_tensor *ct_linalg_vector_norm(const ct_tensor *x, double ord, ct_shape dims, bool keepdim);
/* torch.linalg.matrix_norm(A, ord, dim, keepdim): ord is "fro" (NULL: the
 * default), "nuc", or a number written out: "1", "-1", "2", "-2", "inf",
 * "-inf". dims: the two matrix dims (ndim 0: (-2, -1)). */
CTORCH_API ct_tensor *ct_linalg_matrix_norm(const ct_tensor *A, const char *ord, ct_shape dims, bool keepdim);
/* torch.trace(A): the sum of the main diagonal of a 2-D tensor (integers sum
 * to int64). */
CTORCH_API ct_tensor *ct_trace(const ct_tensor *A);
/* torch.linalg.matrix_power(A, n): A multiplied by itself n times (n = 0:
 * the identity; n < 0: the power of the inverse), by repeated squaring. */
CTORCH_API ct_tensor *ct_linalg_matrix_power(const ct_tensor *A, int64_t n);
/* torch.linalg.matrix_exp(A): the matrix exponential, by scaling and
 * squaring with a degree-13 Pade approximant. */
CTORCH_API ct_tensor *ct_linalg_matrix_exp(const ct_tensor *A);

/* torch.linalg.lstsq's keyword arguments; zero is PyTorch's defaults.
 * driver: "gels", "gelsy" (NULL: the CPU default), "gelsd" or "gelss", in
 * any case. rcond (when has_rcond; None otherwise): singular values at most
 * rcond times the largest count as zero; None is eps(dtype) * max(m, n).
 * As in LAPACK, gelsd takes its machine precision for an rcond outside
 * (0, 1), gelss and gelsy for a negative one; gels ignores rcond. */
typedef struct ct_lstsq_opts {
    const char *driver;
    double rcond;
    bool has_rcond;
} ct_lstsq_opts;
/* torch.linalg.lstsq(A, B, rcond, driver=driver): the four results of its
 * named tuple, each new (NULL: not wanted). solution as ct_linalg_lstsq
 * (the only differentiable one, as in PyTorch). residuals (..., k): the
 * squared residual norm of each column, when m > n and the driver is not
 * gelsy, and with gelsd or gelss only when every matrix has rank n; an
 * empty (0,) tensor otherwise (a vector B gives (..., 1)). rank (...,
 * int64; empty for gels), singular_values (..., min(m, n); empty but for
 * gelsd and gelss). Every driver computes by SVD in double: rank and
 * solution follow the singular values also for gelsy (whose pivoted QR may
 * count a rank differently at the rcond boundary) and gels (whose QR gives
 * PyTorch no meaningful solution for a rank-deficient A). */
CTORCH_API ct_result ct_linalg_lstsq_all(const ct_tensor *A, const ct_tensor *B, ct_lstsq_opts opts,
                                         ct_tensor **solution, ct_tensor **residuals, ct_tensor **rank,
                                         ct_tensor **singular_values);
