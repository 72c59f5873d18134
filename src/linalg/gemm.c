/* The built-in GEMM: C = alpha * op(A) @ op(B) + beta * C, row-major.
 *
 *   A: op(A) is M x K   (A is M x K with row stride lda, or K x M when transposed)
 *   B: op(B) is K x N   (B is K x N with row stride ldb, or N x K when transposed)
 *   C: M x N with row stride ldc
 *
 * beta == 0 means C is only written, never read (NaNs already in C do not
 * propagate, as BLAS specifies). Every product, convolution and decomposition
 * in ctorch goes through ct__sgemm / ct__dgemm, so this is the one place to
 * make fast. This version is the reference: a plain i-k-j loop. */

#define CT__GEMM_BODY(T)                                                                              \
    for (int64_t i = 0; i < M; i++) {                                                                 \
        T *c = C + i * ldc;                                                                           \
        for (int64_t j = 0; j < N; j++) c[j] = beta == 0 ? (T)0 : beta * c[j];                        \
        if (alpha == 0) continue;                                                                     \
        for (int64_t k = 0; k < K; k++) {                                                             \
            T a = alpha * (ta ? A[k * lda + i] : A[i * lda + k]);                                     \
            if (tb)                                                                                   \
                for (int64_t j = 0; j < N; j++) c[j] += a * B[j * ldb + k];                           \
            else                                                                                      \
                for (int64_t j = 0; j < N; j++) c[j] += a * B[k * ldb + j];                           \
        }                                                                                             \
    }

static void ct__sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                      const float *B, int64_t ldb, float beta, float *C, int64_t ldc)
{
    CT__GEMM_BODY(float)
}

static void ct__dgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double *A, int64_t lda,
                      const double *B, int64_t ldb, double beta, double *C, int64_t ldc)
{
    CT__GEMM_BODY(double)
}

/* Integer products: int64 values as uint64, whose arithmetic wraps (narrower
 * integers and int64 keep the same low bits as PyTorch's wrapping kernels). */
static void ct__ugemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, uint64_t alpha, const uint64_t *A,
                      int64_t lda, const uint64_t *B, int64_t ldb, uint64_t beta, uint64_t *C, int64_t ldc)
{
    CT__GEMM_BODY(uint64_t)
}
