/* The built-in GEMM: C = alpha * op(A) @ op(B) + beta * C, row-major.
 *
 *   A: op(A) is M x K   (A is M x K with row stride lda, or K x M when transposed)
 *   B: op(B) is K x N   (B is K x N with row stride ldb, or N x K when transposed)
 *   C: M x N with row stride ldc
 *
 * beta == 0 means C is only written, never read (NaNs already in C do not
 * propagate, as BLAS specifies); alpha == 0 means A and B are not read. Every
 * product, convolution and decomposition in ctorch goes through ct__sgemm /
 * ct__dgemm, so this is the one place to make fast.
 *
 * The method is Goto's, in BLIS's loop order: per block of KC values of k,
 * op(A) is packed by blocks of up to MC rows into strips PMR tall, op(B) by
 * panels of about 512 KB (L2) into strips PNR wide; one strip of A stays in
 * L1 while the register-tiled micro-kernel (PMR x PNR accumulators,
 * broadcasting A, loading whole vectors of B) sweeps it over the panel.
 * Each element of C is thus, per KC block, a sequence of FMAs over k from
 * zero, then C = alpha * acc + (first block ? beta * C : C). The golden
 * tests and the demo's losses (PyTorch's to 4 decimals) rest on these sums:
 * the tile and the blocking may change, KC and the order may not. Whole
 * tiles are stored straight into C when alpha == 1.
 * Products of at most CT__SMALL_M rows (a training step's batch) skip
 * packing, which there costs as much as the multiplications: op(B) not
 * transposed is read in place NR columns at a time (the row form), A @ B.t()
 * as dot products of contiguous rows (the dot form). The row form also
 * takes B's rows through a table of offsets (ct__gemm_rows_at and the
 * scatter-add ct__gemm_rows_add_at): the implicit GEMMs of stride-1
 * convolutions, which read the image in place. The micro-kernels
 * use AVX-512 or AVX2+FMA intrinsics when the compiler targets them
 * (-march=native), GCC vector extensions otherwise (SSE2, NEON), and plain C
 * for other compilers. OpenMP cuts C into one slab per thread, which the
 * threads take as they come (ct__gemm_parallel); a batch of small products
 * (bmm) is split by item instead. A join seen waiting on a descheduled thread
 * keeps small products on one thread for a while (ct__gemm_note_join).
 * Built with CTORCH_OPENBLAS, ct__sgemm and ct__dgemm call cblas_sgemm /
 * cblas_dgemm instead. */

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef CTORCH_OPENBLAS
#include <cblas.h>
#endif

/* ---------------------------------------------------------------- vector primitives */

/* Per element type T (s: float, d: double): the vector type, its lanes, and
 * load, store, broadcast, zero and fused multiply-add (c + a * b). */
#if defined(__AVX512F__)
#define CT__GEMM_ISA "avx512"
typedef __m512 ct__vs;
typedef __m512d ct__vd;
#define CT__VL_s 16
#define CT__VL_d 8
#define CT__MR_s 8
#define CT__MR_d 8
#define CT__VLOAD_s _mm512_loadu_ps
#define CT__VLOAD_d _mm512_loadu_pd
#define CT__VSTORE_s _mm512_storeu_ps
#define CT__VSTORE_d _mm512_storeu_pd
#define CT__VSPLAT_s _mm512_set1_ps
#define CT__VSPLAT_d _mm512_set1_pd
#define CT__VFMA_s(c, a, b) _mm512_fmadd_ps(a, b, c)
#define CT__VFMA_d(c, a, b) _mm512_fmadd_pd(a, b, c)
#define CT__VADD_s _mm512_add_ps
#define CT__VADD_d _mm512_add_pd
#elif defined(__AVX2__) && defined(__FMA__)
#define CT__GEMM_ISA "avx2"
typedef __m256 ct__vs;
typedef __m256d ct__vd;
#define CT__VL_s 8
#define CT__VL_d 4
#define CT__MR_s 6
#define CT__MR_d 6
#define CT__VLOAD_s _mm256_loadu_ps
#define CT__VLOAD_d _mm256_loadu_pd
#define CT__VSTORE_s _mm256_storeu_ps
#define CT__VSTORE_d _mm256_storeu_pd
#define CT__VSPLAT_s _mm256_set1_ps
#define CT__VSPLAT_d _mm256_set1_pd
#define CT__VFMA_s(c, a, b) _mm256_fmadd_ps(a, b, c)
#define CT__VFMA_d(c, a, b) _mm256_fmadd_pd(a, b, c)
#define CT__VADD_s _mm256_add_ps
#define CT__VADD_d _mm256_add_pd
#elif defined(__GNUC__)
#define CT__GEMM_ISA "vector"
typedef float ct__vs __attribute__((vector_size(16)));
typedef double ct__vd __attribute__((vector_size(16)));
#define CT__VL_s 4
#define CT__VL_d 2
#define CT__MR_s 4
#define CT__MR_d 4
static inline ct__vs CT__VLOAD_s(const float *p)
{
    ct__vs v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline ct__vd CT__VLOAD_d(const double *p)
{
    ct__vd v;
    memcpy(&v, p, sizeof v);
    return v;
}
#define CT__VSTORE_s(p, v) memcpy(p, &(v), sizeof(ct__vs))
#define CT__VSTORE_d(p, v) memcpy(p, &(v), sizeof(ct__vd))
static inline ct__vs CT__VSPLAT_s(float x)
{
    ct__vs v = {x, x, x, x};
    return v;
}
static inline ct__vd CT__VSPLAT_d(double x)
{
    ct__vd v = {x, x};
    return v;
}
#define CT__VFMA_s(c, a, b) ((c) + (a) * (b))
#define CT__VFMA_d(c, a, b) ((c) + (a) * (b))
#define CT__VADD_s(a, b) ((a) + (b))
#define CT__VADD_d(a, b) ((a) + (b))
#else
#define CT__GEMM_ISA "scalar"
typedef float ct__vs;
typedef double ct__vd;
#define CT__VL_s 1
#define CT__VL_d 1
#define CT__MR_s 4
#define CT__MR_d 4
#define CT__VLOAD_s(p) (*(p))
#define CT__VLOAD_d(p) (*(p))
#define CT__VSTORE_s(p, v) (*(p) = (v))
#define CT__VSTORE_d(p, v) (*(p) = (v))
#define CT__VSPLAT_s(x) (x)
#define CT__VSPLAT_d(x) (x)
#define CT__VFMA_s(c, a, b) ((c) + (a) * (b))
#define CT__VFMA_d(c, a, b) ((c) + (a) * (b))
#define CT__VADD_s(a, b) ((a) + (b))
#define CT__VADD_d(a, b) ((a) + (b))
#endif

/* CT__VKEEP(v): v, loaded once, stays in a register. Where a vector feeds
 * several FMAs, GCC otherwise folds its load into each of them (a memory
 * operand), and the dot form's 4 x 4 tile then makes 20 loads per 16 FMAs
 * instead of 8: a fifth slower on AMD Zen 4, which loads one 64-byte vector
 * per cycle. */
#if defined(__GNUC__) && (defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__)))
#define CT__VKEEP(v) __asm__("" : "+v"(v))
#else
#define CT__VKEEP(v) (void)(v)
#endif

#define CT__NR_s (2 * CT__VL_s)
#define CT__NR_d (2 * CT__VL_d)

/* The dot form's register tile: DR rows of A times DC rows of B, DR * DC
 * accumulators (16 of AVX-512's 32 registers, 8 of the 16 elsewhere). */
#if defined(__AVX512F__)
#define CT__DR 4
#else
#define CT__DR 2
#endif
#define CT__DC 4

/* Products with at most this many rows skip packing: packing op(B) costs as
 * much as multiplying it by a few rows, and a few rows of op(A) are read from
 * cache whatever their layout. */
#define CT__SMALL_M 64
/* Bytes of op(B) (K x a panel of columns) the row form keeps in L2. */
#define CT__ROWS_PANEL (256 * 1024)
/* Bytes of A's rows the dot form keeps in L1 (of 48 KB, next to DC rows of B). */
#define CT__DOTS_L1 (32 * 1024)
/* The dot form runs across columns (ct__gemm_dots_cols) up to this many vectors of K. */
#define CT__DOTS_COLS_VECTORS 4

/* The blocked path (see the top). KC fixes the order of the sums and must
 * not change; the rest only moves data. The register tile is PMR rows of
 * op(A) by PNV vectors of op(B): 12 x 32 floats under AVX-512 (24 of its 32
 * registers), 6 x 16 under AVX2, 4 x 8 with 16-byte vectors. A block of
 * PMC_STRIPS strips of op(A) (about 1 MB of floats) stays in L2 or L3, a
 * panel of op(B) of PANEL_BYTES in L2, one strip of op(A) (12 KB) in L1;
 * the micro-kernel prefetches op(B) PB_AHEAD rows ahead. */
#define CT__KC 256
#if defined(__AVX512F__)
#define CT__PMR_s 12
#define CT__PMR_d 12
#else
#define CT__PMR_s CT__MR_s
#define CT__PMR_d CT__MR_d
#endif
#define CT__PNV 2
#define CT__PNR_s (CT__PNV * CT__VL_s)
#define CT__PNR_d (CT__PNV * CT__VL_d)
#define CT__PMC_STRIPS 96
#define CT__PANEL_BYTES (512 * 1024)
#define CT__PB_AHEAD 8
/* How the micro-kernel stores its tile (ct__micro_s / ct__micro_d). */
enum { CT__TILE_ACC, CT__TILE_SET, CT__TILE_ADD };
#if defined(__GNUC__)
#define CT__PREFETCH(p) __builtin_prefetch(p, 1, 3)
#define CT__PREFETCH_R(p) __builtin_prefetch(p, 0, 3)
#else
#define CT__PREFETCH_R(p) (void)(p)
#define CT__PREFETCH(p) (void)(p)
#endif
/* Each thread of a product gets at least this many multiply-adds (about 20 us
 * of one AVX-512 core): below it, waking a thread costs more than it gains.
 * A training step's products (a batch of 32 or 64 times 784 x 256) are above
 * it and take two threads (but see CT__GEMM_CONTENDED_WORK). */
#define CT__GEMM_PARALLEL_WORK (1 << 21)

/* A thread's scratch buffer in `slot` (see ct__scratch_get), its start rounded
 * up to a cache line: a packed strip's vectors are loaded whole, never split
 * between two lines. */
static void *ct__gemm_aligned(int slot, size_t bytes)
{
    char *p = (char *)ct__scratch_get(slot, bytes + 63);
    return p ? p + (64 - (uintptr_t)p % 64) % 64 : NULL;
}

/* The reference loop: integer products, and the fallback of a thread that
 * cannot have its packing buffers. */
#define CT__GEMM_BODY(T)                                                                                               \
    for (int64_t i = 0; i < M; i++) {                                                                                  \
        T *c = C + i * ldc;                                                                                            \
        for (int64_t j = 0; j < N; j++) c[j] = beta == 0 ? (T)0 : beta * c[j];                                         \
        if (alpha == 0) continue;                                                                                      \
        for (int64_t k = 0; k < K; k++) {                                                                              \
            T a = alpha * (ta ? A[k * lda + i] : A[i * lda + k]);                                                      \
            if (tb)                                                                                                    \
                for (int64_t j = 0; j < N; j++) c[j] += a * B[j * ldb + k];                                            \
            else                                                                                                       \
                for (int64_t j = 0; j < N; j++) c[j] += a * B[k * ldb + j];                                            \
        }                                                                                                              \
    }

/* The GEMM for one element type T with suffix s or d. */
#define CT__GEMM_DEFINE(x, T)                                                                                          \
    /* The tile (PMR x PNR) of Ap (kc x PMR strip) @ Bp (kc x PNR strip), kept in registers, then stored by mode:      \
     * CT__TILE_ACC: into acc (C, row stride ldc), CT__TILE_SET: C = tile + 0, CT__TILE_ADD: C = tile + C. The two     \
     * last are alpha * tile + (beta * C or C) of ct__tile_store for alpha == 1 (the product by one is exact), the     \
     * sum an FMA by one (exact too), so that no compiler contracts it otherwise. */                                   \
    static void ct__micro_##x(int64_t kc, const T *CT__RESTRICT Ap, const T *CT__RESTRICT Bp, T *CT__RESTRICT C,       \
                              int64_t ldc, int mode)                                                                   \
    {                                                                                                                  \
        ct__v##x c[CT__PMR_##x][CT__PNV];                                                                              \
        for (int i = 0; i < CT__PMR_##x; i++)                                                                          \
            for (int v = 0; v < CT__PNV; v++) c[i][v] = CT__VSPLAT_##x((T)0);                                          \
        if (mode != CT__TILE_ACC)                                                                                      \
            for (int i = 0; i < CT__PMR_##x; i++)                                                                      \
                CT__PREFETCH(C + i * ldc), CT__PREFETCH(C + i * ldc + CT__PNR_##x - 1);                                \
        for (int64_t k = 0; k < kc; k++, Ap += CT__PMR_##x, Bp += CT__PNR_##x) {                                       \
            ct__v##x b[CT__PNV];                                                                                       \
            CT__PREFETCH_R(Bp + CT__PB_AHEAD * CT__PNR_##x);                                                           \
            CT__PREFETCH_R(Bp + CT__PB_AHEAD * CT__PNR_##x + CT__PNR_##x - 1);                                         \
            for (int v = 0; v < CT__PNV; v++) b[v] = CT__VLOAD_##x(Bp + v * CT__VL_##x);                               \
            for (int i = 0; i < CT__PMR_##x; i++) {                                                                    \
                ct__v##x a = CT__VSPLAT_##x(Ap[i]);                                                                    \
                for (int v = 0; v < CT__PNV; v++) c[i][v] = CT__VFMA_##x(c[i][v], a, b[v]);                            \
            }                                                                                                          \
        }                                                                                                              \
        ct__v##x one = CT__VSPLAT_##x((T)1), zero = CT__VSPLAT_##x((T)0);                                              \
        for (int i = 0; i < CT__PMR_##x; i++, C += ldc)                                                                \
            for (int v = 0; v < CT__PNV; v++) {                                                                        \
                T *p = C + v * CT__VL_##x;                                                                             \
                ct__v##x out = mode == CT__TILE_ACC ? c[i][v]                                                          \
                               : CT__VFMA_##x(mode == CT__TILE_ADD ? CT__VLOAD_##x(p) : zero, c[i][v], one);           \
                CT__VSTORE_##x(p, out);                                                                                \
            }                                                                                                          \
    }                                                                                                                  \
                                                                                                                       \
    /* Pack rows [i0, i0 + mc) x cols [k0, k0 + kc) of op(A) into PMR-tall strips (kc x PMR each), zero-padded. */     \
    static void ct__pack_a_##x(bool ta, const T *A, int64_t lda, int64_t i0, int64_t mc, int64_t k0, int64_t kc,       \
                               T *CT__RESTRICT Ap)                                                                     \
    {                                                                                                                  \
        for (int64_t s = 0; s < mc; s += CT__PMR_##x, Ap += kc * CT__PMR_##x) {                                        \
            int64_t rows = CT__MIN(CT__PMR_##x, mc - s);                                                               \
            if (ta) /* op(A)'s column k is a row of A: PMR contiguous elements */                                      \
                for (int64_t k = 0; k < kc; k++) {                                                                     \
                    const T *a = A + (k0 + k) * lda + i0 + s;                                                          \
                    for (int64_t r = 0; r < CT__PMR_##x; r++) Ap[k * CT__PMR_##x + r] = r < rows ? a[r] : (T)0;        \
                }                                                                                                      \
            else /* each row read along k, written PMR apart (the strip stays in L1); the next strip's rows            \
                  * fetched meanwhile, as a few short rows far apart are not streams the hardware prefetches */        \
                for (int64_t r = 0; r < CT__PMR_##x; r++) {                                                            \
                    const T *a = A + (i0 + s + r) * lda + k0;                                                          \
                    if (s + CT__PMR_##x + r < mc)                                                                      \
                        for (int64_t k = 0; k < kc; k += 64 / (int64_t)sizeof(T))                                      \
                            CT__PREFETCH_R(a + CT__PMR_##x * lda + k);                                                 \
                    for (int64_t k = 0; k < kc; k++) Ap[k * CT__PMR_##x + r] = r < rows ? a[k] : (T)0;                 \
                }                                                                                                      \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    /* Pack rows [k0, k0 + kc) x cols [j0, j0 + nc) of op(B) into PNR-wide strips (kc x PNR each), zero-padded. */     \
    static void ct__pack_b_##x(bool tb, const T *B, int64_t ldb, int64_t k0, int64_t kc, int64_t j0, int64_t nc,       \
                               T *CT__RESTRICT Bp)                                                                     \
    {                                                                                                                  \
        if (tb) /* op(B)'s column j is a row of B: read along k, written PNR apart */                                  \
            for (int64_t j = 0; j < nc; j += CT__PNR_##x, Bp += kc * CT__PNR_##x)                                      \
                for (int64_t c = 0; c < CT__PNR_##x; c++) {                                                            \
                    const T *b = B + (j0 + j + c) * ldb + k0;                                                          \
                    bool real = c < nc - j;                                                                            \
                    for (int64_t k = 0; k < kc; k++) Bp[k * CT__PNR_##x + c] = real ? b[k] : (T)0;                     \
                }                                                                                                      \
        else /* row by row of B (one stream read), PNR elements to each strip */                                       \
            for (int64_t k = 0; k < kc; k++) {                                                                         \
                const T *b = B + (k0 + k) * ldb + j0;                                                                  \
                T *out = Bp + k * CT__PNR_##x;                                                                         \
                int64_t j = 0;                                                                                         \
                for (; j + CT__PNR_##x <= nc; j += CT__PNR_##x) memcpy(out + j * kc, b + j, sizeof(T) * CT__PNR_##x);  \
                for (int64_t c = 0; j < nc && c < CT__PNR_##x; c++) out[j * kc + c] = j + c < nc ? b[j + c] : (T)0;    \
            }                                                                                                          \
    }                                                                                                                  \
                                                                                                                       \
    /* Pack NR-wide strip s of rows [k0, k0 + kc) x cols [j0, j0 + nc) of op(B), zero-padded (the row form's tail). */ \
    static void ct__pack_b_strip_##x(bool tb, const T *B, int64_t ldb, int64_t k0, int64_t kc, int64_t j0, int64_t nc, \
                                     int64_t s, T *Bp)                                                                 \
    {                                                                                                                  \
        int64_t j = s * CT__NR_##x, cols = CT__MIN(CT__NR_##x, nc - j);                                                \
        Bp += s * kc * CT__NR_##x;                                                                                     \
        for (int64_t k = 0; k < kc; k++, Bp += CT__NR_##x) {                                                           \
            for (int64_t c = 0; c < cols; c++)                                                                         \
                Bp[c] = tb ? B[(j0 + j + c) * ldb + k0 + k] : B[(k0 + k) * ldb + j0 + j + c];                          \
            for (int64_t c = cols; c < CT__NR_##x; c++) Bp[c] = (T)0;                                                  \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    /* C (mr x nr of the tile) = alpha * acc (row stride acs) + (first k block ? beta * C : C). */                     \
    static void ct__tile_store_##x(int64_t mr, int64_t nr, const T *acc, int64_t acs, T alpha, T beta, bool first,     \
                                   T *C, int64_t ldc)                                                                  \
    {                                                                                                                  \
        for (int64_t i = 0; i < mr; i++, C += ldc, acc += acs)                                                         \
            for (int64_t j = 0; j < nr; j++) C[j] = alpha * acc[j] + (!first ? C[j] : beta == 0 ? (T)0 : beta * C[j]); \
    }                                                                                                                  \
                                                                                                                       \
    /* One PMR strip of the packed block of A (mr of its rows real) times every PNR strip of the packed panel          \
     * of B (nc columns), into C. Whole tiles go straight into C when alpha == 1 and the sum needs no beta * C;        \
     * the others through acc and ct__tile_store, the same arithmetic. */                                              \
    static void ct__strip_##x(const T *Ap, const T *Bp, int64_t mr, int64_t nc, int64_t kc, T alpha, T beta,           \
                              bool first, T *C, int64_t ldc)                                                           \
    {                                                                                                                  \
        T acc[CT__PMR_##x * CT__PNR_##x];                                                                              \
        bool direct = mr == CT__PMR_##x && alpha == 1 && (!first || beta == 0 || beta == 1);                           \
        int mode = first && beta == 0 ? CT__TILE_SET : CT__TILE_ADD;                                                   \
        for (int64_t j = 0; j < nc; j += CT__PNR_##x, Bp += kc * CT__PNR_##x) {                                        \
            int64_t nr = CT__MIN(CT__PNR_##x, nc - j);                                                                 \
            if (direct && nr == CT__PNR_##x) {                                                                         \
                ct__micro_##x(kc, Ap, Bp, C + j, ldc, mode);                                                           \
            } else {                                                                                                   \
                ct__micro_##x(kc, Ap, Bp, acc, CT__PNR_##x, CT__TILE_ACC);                                             \
                ct__tile_store_##x(mr, nr, acc, CT__PNR_##x, alpha, beta, first, C + j, ldc);                          \
            }                                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    static void ct__scale_##x(int64_t M, int64_t N, T beta, T *C, int64_t ldc)                                         \
    {                                                                                                                  \
        for (int64_t i = 0; i < M; i++)                                                                                \
            for (int64_t j = 0; j < N; j++) C[i * ldc + j] = beta == 0 ? (T)0 : beta * C[i * ldc + j];                 \
    }                                                                                                                  \
                                                                                                                       \
                                                                                                                       \
    /* The blocked product on one thread (the reference loop when packing buffers cannot be had). Per KC block of      \
     * k, a block of up to MC rows of op(A) is packed, then panels of op(B) in turn; each PMR strip of A stays in L1   \
     * while it sweeps the panel, which stays in L2. */                                                                \
    static void ct__gemm_blocked_##x(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T *A,           \
                                     int64_t lda, const T *B, int64_t ldb, T beta, T *C, int64_t ldc)                  \
    {                                                                                                                  \
        int64_t MC = CT__PMC_STRIPS * CT__PMR_##x, KC = CT__KC;                                                        \
        int64_t NC = CT__MAX(CT__PANEL_BYTES / (KC * (int64_t)sizeof(T)) / CT__PNR_##x, 1) * CT__PNR_##x;              \
        int64_t mcap = (CT__MIN(MC, M) + CT__PMR_##x - 1) / CT__PMR_##x * CT__PMR_##x;                                 \
        int64_t ncap = (CT__MIN(NC, N) + CT__PNR_##x - 1) / CT__PNR_##x * CT__PNR_##x, kcap = CT__MIN(KC, K);          \
        T *Ap = (T *)ct__gemm_aligned(CT__SCRATCH_PACK_A_##x, (size_t)(mcap * kcap) * sizeof(T));                \
        T *Bp = (T *)ct__gemm_aligned(CT__SCRATCH_PACK_B_##x, (size_t)(ncap * kcap) * sizeof(T));                \
        if (!Ap || !Bp) {                                                                                              \
            CT__GEMM_BODY(T)                                                                                           \
            return;                                                                                                    \
        }                                                                                                              \
        for (int64_t pc = 0; pc < K; pc += KC) {                                                                       \
            int64_t kc = CT__MIN(KC, K - pc);                                                                          \
            for (int64_t ic = 0; ic < M; ic += MC) {                                                                   \
                int64_t mc = CT__MIN(MC, M - ic);                                                                      \
                ct__pack_a_##x(ta, A, lda, ic, mc, pc, kc, Ap);                                                        \
                for (int64_t jc = 0; jc < N; jc += NC) {                                                               \
                    int64_t nc = CT__MIN(NC, N - jc);                                                                  \
                    ct__pack_b_##x(tb, B, ldb, pc, kc, jc, nc, Bp);                                                    \
                    for (int64_t i = 0; i < mc; i += CT__PMR_##x)                                                      \
                        ct__strip_##x(Ap + i * kc, Bp, CT__MIN(CT__PMR_##x, mc - i), nc, kc, alpha, beta, pc == 0,     \
                                      C + (ic + i) * ldc + jc, ldc);                                                   \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }

/* The row form's loop over K: row(k) is where row k of B starts. */
#define CT__ROWS_STEPS(x, T, row)                                                                                      \
    for (int64_t k = 0; k < K; k++) {                                                                                  \
        const T *b = (row);                                                                                            \
        ct__v##x b0 = CT__VLOAD_##x(b), b1 = CT__VLOAD_##x(b + CT__VL_##x);                                            \
        for (int i = 0; i < CT__MR_##x; i++) {                                                                         \
            ct__v##x av = CT__VSPLAT_##x(a[i][k * acs]);                                                               \
            c0[i] = CT__VFMA_##x(c0[i], av, b0);                                                                       \
            c1[i] = CT__VFMA_##x(c1[i], av, b1);                                                                       \
        }                                                                                                              \
    }

/* Whether A @ B.t() of M rows over K takes the dot form on one thread (and so on any number: the threads
 * split M or N). ct__conv_weight_grad replays the form's sums. */
#define CT__DOTS_SUIT(x, M, K) ((M) <= CT__SMALL_M && (K) >= CT__VL_##x)

/* The dot form's lane sums: sum[e] = 0 + lanes[e][0] + lanes[e][1] + ... in that order, for the
 * DR * DC elements of a tile (lanes: DR * DC x VL, row-major). With AVX-512 floats (DR x DC = 4 x 4
 * elements of 16 lanes) the 16 x 16 block is transposed in registers and its columns added in order:
 * the same sums as the scalar loop, without its 256 scalar loads and adds per tile (which took a
 * fifth of the dot form's time at K = 784). */
#define CT__LANES_SUM(x, T)                                                                                            \
    static void ct__lanes_sum_##x(const T *lanes, T *sum)                                                              \
    {                                                                                                                  \
        for (int e = 0; e < CT__DR * CT__DC; e++) {                                                                    \
            sum[e] = 0;                                                                                                \
            for (int l = 0; l < CT__VL_##x; l++) sum[e] += lanes[e * CT__VL_##x + l];                                  \
        }                                                                                                              \
    }
#if defined(__AVX512F__)
static void ct__lanes_sum_s(const float *lanes, float *sum)
{
    __m512 t[16], u[16], col[16];
    for (int e = 0; e < 16; e += 2) { /* in each 128-bit lane: the lanes of e and e + 1 interleaved (loaded
                                         here: an array of the 16 rows, GCC copies to the stack with memcpy) */
        __m512 r0 = _mm512_loadu_ps(lanes + 16 * e), r1 = _mm512_loadu_ps(lanes + 16 * (e + 1));
        t[e] = _mm512_unpacklo_ps(r0, r1);
        t[e + 1] = _mm512_unpackhi_ps(r0, r1);
    }
    for (int g = 0; g < 16; g += 4) { /* u[g + m], 128-bit lane k: rows g..g + 3 of column 4k + m */
        u[g] = _mm512_shuffle_ps(t[g], t[g + 2], 0x44);
        u[g + 1] = _mm512_shuffle_ps(t[g], t[g + 2], 0xEE);
        u[g + 2] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0x44);
        u[g + 3] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
    }
    for (int m = 0; m < 4; m++) { /* the 128-bit lanes k of u[m], u[4 + m], u[8 + m], u[12 + m]: column 4k + m */
        __m512 v0 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0x88), v1 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0x88);
        __m512 w0 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0xDD), w1 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0xDD);
        col[m] = _mm512_shuffle_f32x4(v0, v1, 0x88);
        col[8 + m] = _mm512_shuffle_f32x4(v0, v1, 0xDD);
        col[4 + m] = _mm512_shuffle_f32x4(w0, w1, 0x88);
        col[12 + m] = _mm512_shuffle_f32x4(w0, w1, 0xDD);
    }
    __m512 acc = _mm512_setzero_ps();
    for (int c = 0; c < 16; c++) acc = _mm512_add_ps(acc, col[c]);
    _mm512_storeu_ps(sum, acc);
}
#else
CT__LANES_SUM(s, float)
#endif
CT__LANES_SUM(d, double)

/* The unpacked forms for few rows (or a short K), per element type T with suffix s or d. */
#define CT__GEMM_SMALL(x, T)                                                                                           \
    /* Row form. acc (MR x NR, row-major) = rows [0, mr) of op(A) @ B (K x NR), where op(A)[i][k] =                    \
     * A[i * ars + k * acs] and row k of B starts at B + k * ldb, or at B + off[k] when off is given (an               \
     * implicit GEMM: an image read through a window's offsets); rows past mr repeat the last one (computed,           \
     * not stored). */                                                                                                 \
    static void ct__rows_micro_##x(int64_t mr, int64_t K, const T *A, int64_t ars, int64_t acs, const T *B,            \
                                   int64_t ldb, const int64_t *off, T *CT__RESTRICT acc)                               \
    {                                                                                                                  \
        const T *a[CT__MR_##x];                                                                                        \
        ct__v##x c0[CT__MR_##x], c1[CT__MR_##x];                                                                       \
        for (int i = 0; i < CT__MR_##x; i++) {                                                                         \
            a[i] = A + CT__MIN(i, mr - 1) * ars;                                                                       \
            c0[i] = c1[i] = CT__VSPLAT_##x((T)0);                                                                      \
        }                                                                                                              \
        if (off) {                                                                                                     \
            CT__ROWS_STEPS(x, T, B + off[k])                                                                           \
        } else {                                                                                                       \
            CT__ROWS_STEPS(x, T, B + k * ldb)                                                                          \
        }                                                                                                              \
        for (int i = 0; i < CT__MR_##x; i++) {                                                                         \
            CT__VSTORE_##x(acc + i * CT__NR_##x, c0[i]);                                                               \
            CT__VSTORE_##x(acc + i * CT__NR_##x + CT__VL_##x, c1[i]);                                                  \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    /* C (M x N) = alpha * op(A) (M x K) @ B (K x N, not transposed) + beta * C, B read in place NR columns            \
     * at a time (the last, narrower strip through a zero-padded copy of K x NR), in panels of columns that            \
     * stay in L2 while every MR rows of op(A) sweep them; C is written row by row within a panel. */                  \
    static bool ct__gemm_rows_##x(bool ta, int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t lda,          \
                                  const T *B, int64_t ldb, T beta, T *C, int64_t ldc)                                  \
    {                                                                                                                  \
        int64_t ars = ta ? 1 : lda, acs = ta ? lda : 1, full = N / CT__NR_##x * CT__NR_##x;                            \
        int64_t panel = CT__MAX(CT__ROWS_PANEL / (K * (int64_t)sizeof(T)) / CT__NR_##x, 1) * CT__NR_##x;               \
        T *tail = NULL, acc[CT__MR_##x * CT__NR_##x];                                                                  \
        if (full < N) {                                                                                                \
            tail = (T *)ct__scratch_get(CT__SCRATCH_PACK_B_##x, (size_t)(K * CT__NR_##x) * sizeof(T));           \
            if (!tail) return false;                                                                                   \
            ct__pack_b_strip_##x(false, B, ldb, 0, K, full, N - full, 0, tail);                                        \
        }                                                                                                              \
        for (int64_t jc = 0; jc < N; jc += panel)                                                                      \
            for (int64_t i = 0; i < M; i += CT__MR_##x) {                                                              \
                int64_t mr = CT__MIN(CT__MR_##x, M - i);                                                               \
                for (int64_t j = jc; j < CT__MIN(jc + panel, N); j += CT__NR_##x) {                                    \
                    const T *b = j < full ? B + j : tail;                                                              \
                    int64_t nr = CT__MIN(CT__NR_##x, N - j), ldbj = j < full ? ldb : CT__NR_##x;                       \
                    ct__rows_micro_##x(mr, K, A + i * ars, ars, acs, b, ldbj, NULL, acc);                              \
                    ct__tile_store_##x(mr, nr, acc, CT__NR_##x, alpha, beta, true, C + i * ldc + j, ldc);              \
                }                                                                                                      \
            }                                                                                                          \
        return true;                                                                                                   \
    }                                                                                                                  \
                                                                                                                       \
    /* Implicit GEMM, row form: C (M x N) = A (M x K, row stride lda) @ B + bias (a value per row, or none),           \
     * row k of B being the N elements at B + off[k] (see ct__rows_micro), in panels of columns that stay in           \
     * L2. Reads up to NR - 1 elements past each row's end: the caller's buffer has them. */                           \
    static void ct__gemm_rows_at_##x(int64_t M, int64_t N, int64_t K, const T *A, int64_t lda, const T *B,             \
                                     const int64_t *off, const T *bias, T *C, int64_t ldc)                             \
    {                                                                                                                  \
        int64_t panel = CT__MAX(CT__ROWS_PANEL / (K * (int64_t)sizeof(T)) / CT__NR_##x, 1) * CT__NR_##x;               \
        T acc[CT__MR_##x * CT__NR_##x];                                                                                \
        for (int64_t jc = 0; jc < N; jc += panel)                                                                      \
            for (int64_t i = 0; i < M; i += CT__MR_##x) {                                                              \
                int64_t mr = CT__MIN(CT__MR_##x, M - i);                                                               \
                for (int64_t j = jc; j < CT__MIN(jc + panel, N); j += CT__NR_##x) {                                    \
                    int64_t nr = CT__MIN(CT__NR_##x, N - j);                                                           \
                    ct__rows_micro_##x(mr, K, A + i * lda, lda, 1, B + j, 0, off, acc);                                \
                    for (int64_t r = 0; r < mr; r++)                                                                   \
                        for (int64_t c = 0; c < nr; c++)                                                               \
                            C[(i + r) * ldc + j + c] = acc[r * CT__NR_##x + c] + (bias ? bias[i + r] : (T)0);          \
                }                                                                                                      \
            }                                                                                                          \
    }                                                                                                                  \
                                                                                                                       \
    /* The adjoint of ct__gemm_rows_at: C[off[i] + j] += (op(A) @ B)[i][j] for i < M, j < N, where op(A)[i][k]         \
     * = A[i * ars + k * acs] and B is K x N (row stride ldb; read up to NR - 1 past a row's end). Rows are            \
     * added whole, one after the other, in panels of columns (col2im's order when N fits one panel). */               \
    static void ct__gemm_rows_add_at_##x(int64_t M, int64_t N, int64_t K, const T *A, int64_t ars, int64_t acs,        \
                                         const T *B, int64_t ldb, const int64_t *off, T *C)                            \
    {                                                                                                                  \
        enum { panel = 8 * CT__NR_##x };                                                                               \
        T acc[CT__MR_##x * CT__NR_##x], rows[CT__MR_##x * panel];                                                      \
        for (int64_t jc = 0; jc < N; jc += panel) {                                                                    \
            int64_t nc = CT__MIN((int64_t)panel, N - jc);                                                              \
            for (int64_t i = 0; i < M; i += CT__MR_##x) {                                                              \
                int64_t mr = CT__MIN(CT__MR_##x, M - i);                                                               \
                for (int64_t j = 0; j < nc; j += CT__NR_##x) {                                                         \
                    ct__rows_micro_##x(mr, K, A + i * ars, ars, acs, B + jc + j, ldb, NULL, acc);                      \
                    for (int64_t r = 0; r < mr; r++)                                                                   \
                        memcpy(rows + r * panel + j, acc + r * CT__NR_##x, sizeof(T) * CT__NR_##x);                    \
                }                                                                                                      \
                for (int64_t r = 0; r < mr; r++) {                                                                     \
                    T *CT__RESTRICT c = C + off[i + r] + jc;                                                           \
                    const T *CT__RESTRICT v = rows + r * panel;                                                        \
                    for (int64_t j = 0; j < nc; j++) c[j] += v[j];                                                     \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    /* Dot form, a stretch of the dot products: the lanes (DR x DC vectors, row-major; lane l holds the                \
     * products of k = l mod VL) of rows [0, mr) of A (row stride lda) . rows [0, nc) of B (row stride ldb)            \
     * grow by the products over k < kv, kv a multiple of VL; rows past mr and nc repeat the last. Taken in            \
     * stretches (the convolution's weight gradient makes B a stretch at a time), they add as in one; the              \
     * first may start from zero (fresh) instead of reading the lanes. */                                              \
    static void ct__dots_steps_##x(int64_t mr, int64_t nc, int64_t kv, const T *A, int64_t lda, const T *B,            \
                                   int64_t ldb, bool fresh, T *CT__RESTRICT lanes)                                     \
    {                                                                                                                  \
        const T *a[CT__DR], *b[CT__DC];                                                                                \
        ct__v##x c[CT__DR][CT__DC];                                                                                    \
        /* (stepped a row at a time: from min(i, mr - 1) * lda, GCC made a vector and extracted each pointer) */       \
        for (int i = 0; i < CT__DR; i++, A += i < mr ? lda : 0) a[i] = A;                                              \
        for (int j = 0; j < CT__DC; j++, B += j < nc ? ldb : 0) b[j] = B;                                              \
        for (int i = 0; i < CT__DR; i++)                                                                               \
            for (int j = 0; j < CT__DC; j++)                                                                           \
                c[i][j] = fresh ? CT__VSPLAT_##x((T)0) : CT__VLOAD_##x(lanes + (i * CT__DC + j) * CT__VL_##x);         \
        for (int64_t k = 0; k < kv; k += CT__VL_##x) {                                                                 \
            ct__v##x bv[CT__DC];                                                                                       \
            for (int j = 0; j < CT__DC; j++) {                                                                         \
                bv[j] = CT__VLOAD_##x(b[j] + k);                                                                       \
                CT__VKEEP(bv[j]);                                                                                      \
            }                                                                                                          \
            for (int i = 0; i < CT__DR; i++) {                                                                         \
                ct__v##x av = CT__VLOAD_##x(a[i] + k);                                                                 \
                CT__VKEEP(av);                                                                                         \
                for (int j = 0; j < CT__DC; j++) c[i][j] = CT__VFMA_##x(c[i][j], av, bv[j]);                           \
            }                                                                                                          \
        }                                                                                                              \
        for (int i = 0; i < CT__DR; i++)                                                                               \
            for (int j = 0; j < CT__DC; j++) CT__VSTORE_##x(lanes + (i * CT__DC + j) * CT__VL_##x, c[i][j]);           \
    }                                                                                                                  \
                                                                                                                       \
    /* The dot products' end: acc (DR x DC, row-major) = each one's lanes summed in order, then the products           \
     * over k in [kv, K) of the rows as ct__dots_steps takes them. */                                                  \
    static void ct__dots_finish_##x(int64_t mr, int64_t nc, int64_t kv, int64_t K, const T *A, int64_t lda,            \
                                    const T *B, int64_t ldb, const T *lanes, T *CT__RESTRICT acc)                      \
    {                                                                                                                  \
        T sum[CT__DR * CT__DC];                                                                                        \
        ct__lanes_sum_##x(lanes, sum);                                                                                 \
        for (int i = 0; i < CT__DR; i++)                                                                               \
            for (int j = 0; j < CT__DC; j++) {                                                                         \
                const T *a = A + CT__MIN(i, mr - 1) * lda, *b = B + CT__MIN(j, nc - 1) * ldb;                          \
                T s = sum[i * CT__DC + j];                                                                             \
                for (int64_t r = kv; r < K; r++) s += a[r] * b[r];                                                     \
                acc[i * CT__DC + j] = s;                                                                               \
            }                                                                                                          \
    }                                                                                                                  \
                                                                                                                       \
    /* Dot form. acc (DR x DC, row-major) = rows [0, mr) of A (row stride lda) . rows [0, nc) of B (row                \
     * stride ldb), each a dot product over K contiguous elements; rows past mr and nc repeat the last. */             \
    static void ct__dots_micro_##x(int64_t mr, int64_t nc, int64_t K, const T *A, int64_t lda, const T *B,             \
                                   int64_t ldb, T *CT__RESTRICT acc)                                                   \
    {                                                                                                                  \
        T lanes[CT__DR * CT__DC * CT__VL_##x];                                                                         \
        int64_t kv = K / CT__VL_##x * CT__VL_##x;                                                                      \
        ct__dots_steps_##x(mr, nc, kv, A, lda, B, ldb, true, lanes);                                                   \
        ct__dots_finish_##x(mr, nc, kv, K, A, lda, B, ldb, lanes, acc);                                                \
    }                                                                                                                  \
                                                                                                                       \
    /* The dot form across columns. acc (DR x VL, row stride NR) = rows [0, mr) of A (row stride lda) . VL             \
     * rows of B given transposed (bt: K x VL, row stride NR), the sums of ct__dots_micro: lane l of each dot           \
     * product the FMAs over k = l mod VL (k < kv) from zero, the lanes added to zero in order, then the               \
     * products over k in [kv, K). Each lane is taken for VL dot products at once, so no lanes are summed              \
     * across a register. */                                                                                           \
    static void ct__dots_cols_micro_##x(int64_t mr, int64_t kv, int64_t K, const T *A, int64_t lda, const T *bt,       \
                                        T *CT__RESTRICT acc)                                                           \
    {                                                                                                                  \
        const T *a[CT__DR];                                                                                            \
        ct__v##x sum[CT__DR];                                                                                          \
        for (int i = 0; i < CT__DR; i++) {                                                                             \
            a[i] = A + CT__MIN(i, mr - 1) * lda;                                                                       \
            sum[i] = CT__VSPLAT_##x((T)0);                                                                             \
        }                                                                                                              \
        for (int l = 0; l < CT__VL_##x; l++) {                                                                         \
            ct__v##x lane[CT__DR];                                                                                     \
            for (int i = 0; i < CT__DR; i++) lane[i] = CT__VSPLAT_##x((T)0);                                           \
            for (int64_t k = l; k < kv; k += CT__VL_##x) {                                                             \
                ct__v##x b = CT__VLOAD_##x(bt + k * CT__NR_##x);                                                       \
                for (int i = 0; i < CT__DR; i++) lane[i] = CT__VFMA_##x(lane[i], CT__VSPLAT_##x(a[i][k]), b);          \
            }                                                                                                          \
            for (int i = 0; i < CT__DR; i++) sum[i] = CT__VADD_##x(sum[i], lane[i]);                                   \
        }                                                                                                              \
        for (int i = 0; i < CT__DR; i++) {                                                                             \
            CT__VSTORE_##x(acc + i * CT__NR_##x, sum[i]);                                                              \
            for (int64_t k = kv; k < K; k++)                                                                           \
                for (int j = 0; j < CT__VL_##x; j++) acc[i * CT__NR_##x + j] += a[i][k] * bt[k * CT__NR_##x + j];      \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    /* ct__gemm_dots by ct__dots_cols_micro, B copied transposed NR rows at a time (K x NR, zeros past N):             \
     * where K is a few vectors, summing each product's lanes across a register costs more than its FMAs.              \
     * False when there is no memory for the copy. */                                                                  \
    static bool ct__gemm_dots_cols_##x(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t lda, const T *B,  \
                                       int64_t ldb, T beta, T *C, int64_t ldc)                                         \
    {                                                                                                                  \
        T acc[CT__DR * CT__NR_##x];                                                                                    \
        T *bt = (T *)ct__scratch_get(CT__SCRATCH_PACK_B_##x, (size_t)(K * CT__NR_##x) * sizeof(T));                    \
        if (!bt) return false;                                                                                         \
        for (int64_t j = 0; j < N; j += CT__NR_##x) {                                                                  \
            int64_t nr = CT__MIN(CT__NR_##x, N - j);                                                                   \
            ct__pack_b_strip_##x(true, B, ldb, 0, K, j, nr, 0, bt);                                                    \
            for (int64_t i = 0; i < M; i += CT__DR) {                                                                  \
                int64_t mr = CT__MIN(CT__DR, M - i);                                                                   \
                for (int h = 0; h < CT__NR_##x; h += CT__VL_##x)                                                       \
                    ct__dots_cols_micro_##x(mr, K / CT__VL_##x * CT__VL_##x, K, A + i * lda, lda, bt + h, acc + h);    \
                ct__tile_store_##x(mr, nr, acc, CT__NR_##x, alpha, beta, true, C + i * ldc + j, ldc);                  \
            }                                                                                                          \
        }                                                                                                              \
        return true;                                                                                                   \
    }                                                                                                                  \
                                                                                                                       \
    /* C (M x N) = alpha * A (M x K) @ op(B) + beta * C where B is N x K (transposed): every element a dot             \
     * product of two contiguous rows (x @ W.t() of a linear layer). A block of A's rows (CT__DOTS_L1 bytes)           \
     * stays in L1 while B streams past it DC rows at a time: streaming A past B's rows instead would read             \
     * every row of A from L2 for each DC rows of B, faster than L2 delivers them. A short K goes across               \
     * columns instead (ct__gemm_dots_cols). */                                                                        \
    static void ct__gemm_dots_##x(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t lda, const T *B,       \
                                  int64_t ldb, T beta, T *C, int64_t ldc)                                              \
    {                                                                                                                  \
        T acc[CT__DR * CT__DC];                                                                                        \
        if (K <= CT__DOTS_COLS_VECTORS * CT__VL_##x &&                                                                 \
            ct__gemm_dots_cols_##x(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc))                                      \
            return;                                                                                                    \
        int64_t mb = CT__MAX(CT__DOTS_L1 / (K * (int64_t)sizeof(T)) / CT__DR, 1) * CT__DR;                             \
        for (int64_t ib = 0; ib < M; ib += mb)                                                                         \
            for (int64_t j = 0; j < N; j += CT__DC) {                                                                  \
                int64_t nc = CT__MIN(CT__DC, N - j);                                                                   \
                for (int64_t i = ib; i < CT__MIN(ib + mb, M); i += CT__DR) {                                           \
                    int64_t mr = CT__MIN(CT__DR, M - i);                                                               \
                    ct__dots_micro_##x(mr, nc, K, A + i * lda, lda, B + j * ldb, ldb, acc);                            \
                    ct__tile_store_##x(mr, nc, acc, CT__DC, alpha, beta, true, C + i * ldc + j, ldc);                  \
                }                                                                                                      \
            }                                                                                                          \
    }                                                                                                                  \
                                                                                                                       \
    /* One thread's product: an unpacked form when the shape is small enough for it, else the blocked one. */          \
    static void ct__gemm_serial_##x(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T *A,            \
                                    int64_t lda, const T *B, int64_t ldb, T beta, T *C, int64_t ldc)                   \
    {                                                                                                                  \
        if (!tb && M <= CT__SMALL_M &&                                                                                 \
            ct__gemm_rows_##x(ta, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc))                                       \
            return;                                                                                                    \
        if (!ta && tb && CT__DOTS_SUIT(x, M, K)) {                                                                     \
            ct__gemm_dots_##x(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);                                           \
            return;                                                                                                    \
        }                                                                                                              \
        ct__gemm_blocked_##x(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);                                    \
    }

/* While the machine is found contended, a product below this many
 * multiply-adds runs its parts on the calling thread alone (the parts of
 * its threads, so the sums and the bits do not depend on the timing of
 * other programs): there a woken thread may wait a
 * scheduler slice (milliseconds) for a core another program holds, and
 * every parallel product's join waits with it, which costs small products
 * many times their work. Found contended: a join waited more than the
 * caller's own share took and more than a millisecond. It holds for
 * CT__GEMM_HOLD_FIRST seconds, twice as long as the last hold (up to
 * CT__GEMM_HOLD_MOST) when the stall came within that hold's length after
 * it ended: a lasting contention stalls one product per hold (a few
 * percent), while a lone stall (a virtual machine's core taken away for a
 * moment) holds products on one thread for a hundredth of a second, not
 * for the next thousand products. */
#define CT__GEMM_CONTENDED_WORK (1 << 24)
#define CT__GEMM_HOLD_FIRST 0.01
#define CT__GEMM_HOLD_MOST 0.25

#ifdef _OPENMP
static double ct__gemm_contended_until, ct__gemm_hold; /* omp_get_wtime() seconds, the last hold's length */

static double ct__gemm_clock(void) { return omp_get_wtime(); }

static bool ct__gemm_is_caller(void) { return omp_get_thread_num() == 0; }

static bool ct__gemm_contended(void)
{
    double until;
#pragma omp atomic read
    until = ct__gemm_contended_until;
    return omp_get_wtime() < until;
}

/* After a parallel product of `total` seconds of which the caller computed `own`. */
static void ct__gemm_note_join(double total, double own)
{
    if (total - own <= CT__MAX(own, 1e-3)) return;
    double now = omp_get_wtime(), until, hold;
#pragma omp atomic read
    until = ct__gemm_contended_until;
#pragma omp atomic read
    hold = ct__gemm_hold;
    hold = now - until < hold ? CT__MIN(2 * hold, CT__GEMM_HOLD_MOST) : CT__GEMM_HOLD_FIRST;
#pragma omp atomic write
    ct__gemm_hold = hold;
#pragma omp atomic write
    ct__gemm_contended_until = now + hold;
}
#else
static bool ct__gemm_contended(void) { return false; }
static double ct__gemm_clock(void) { return 0; }
static bool ct__gemm_is_caller(void) { return true; }
static void ct__gemm_note_join(double total, double own) { (void)total, (void)own; }
#endif

/* How many threads a product of this size gets: one per CT__GEMM_PARALLEL_WORK
 * multiply-adds, at most one per tile along the split dim. */
static int ct__gemm_threads(int64_t M, int64_t N, int64_t K, int64_t tiles)
{
#ifdef _OPENMP
    double work = (double)M * (double)N * (double)K / CT__GEMM_PARALLEL_WORK;
    if (work < 2 || omp_in_parallel()) return 1;
    return (int)CT__MIN(CT__MIN((double)omp_get_max_threads(), work), (double)tiles);
#else
    (void)M, (void)N, (void)K, (void)tiles;
    return 1;
#endif
}

/* The parallel product. C is cut along its longer side into one slab per
 * thread, of whole tiles (the small forms', or the packed ones' when every
 * slab would take the blocked path), each slab a product of its own (its own
 * path: an unpacked form when it has few rows) that packs its own operands.
 * The threads take the slabs as they come, so a thread woken late leaves its
 * slab to the caller. No barrier but the last. Finer pieces (4 per thread)
 * balanced a loaded machine better, but each packs the whole of the other
 * operand again: on a quiet one they cost 6-20% (AMD Zen 4, 2 threads). The
 * sums stay the same: a blocked product computes an element alike wherever
 * its tile lies. */
#define CT__GEMM_PARALLEL(x, T)                                                                                        \
    /* Rows (or columns) [lo, hi) of C by the blocked product or by the serial one, which picks the path. */           \
    static void ct__gemm_part_##x(bool blocked, bool rows, int64_t lo, int64_t hi, bool ta, bool tb, int64_t M,        \
                                  int64_t N, int64_t K, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,     \
                                  T beta, T *C, int64_t ldc)                                                           \
    {                                                                                                                  \
        if (hi <= lo) return;                                                                                          \
        if (rows)                                                                                                      \
            M = hi - lo, A = ta ? A + lo : A + lo * lda, C += lo * ldc;                                                \
        else                                                                                                           \
            N = hi - lo, B = tb ? B + lo * ldb : B + lo, C += lo;                                                      \
        if (blocked)                                                                                                   \
            ct__gemm_blocked_##x(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);                                \
        else                                                                                                           \
            ct__gemm_serial_##x(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);                                 \
    }                                                                                                                  \
                                                                                                                       \
    static void ct__gemm_parallel_##x(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T *A,          \
                                      int64_t lda, const T *B, int64_t ldb, T beta, T *C, int64_t ldc)                 \
    {                                                                                                                  \
        bool rows = M / CT__MR_##x >= N / CT__NR_##x;                                                                  \
        int64_t total = rows ? M : N, unit = rows ? CT__MR_##x : CT__NR_##x, tiles = (total + unit - 1) / unit;        \
        int threads = ct__gemm_threads(M, N, K, tiles);                                                                \
        if (threads <= 1) {                                                                                            \
            ct__gemm_serial_##x(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);                                 \
            return;                                                                                                    \
        }                                                                                                              \
        int64_t least = M; /* the rows of the smallest slab: ct__gemm_serial's unpacked forms take at most             \
                              CT__SMALL_M */                                                                           \
        for (int t = 0; rows && t < threads; t++)                                                                      \
            least = CT__MIN(least, CT__MIN(tiles * (t + 1) / threads * unit, M) - tiles * t / threads * unit);         \
        bool blocked = least > CT__SMALL_M;                                                                            \
        if (blocked) {                                                                                                 \
            unit = rows ? CT__PMR_##x : CT__PNR_##x, tiles = (total + unit - 1) / unit;                                \
        }                                                                                                              \
        int parts = (int)CT__MIN(threads, tiles);                                                                      \
        /* contended: the same parts, so the same sums, all on this thread */                                          \
        int team = (double)M * (double)N * (double)K < CT__GEMM_CONTENDED_WORK && ct__gemm_contended() ? 1 : threads;   \
        double start = ct__gemm_clock(), own = 0; /* own: the caller's time in its parts */                            \
        CT__OMP_FOR_THREADS                                                                                            \
        for (int p = 0; p < parts; p++) {                                                                              \
            double t = ct__gemm_clock();                                                                               \
            ct__gemm_part_##x(blocked, rows, tiles * p / parts * unit, CT__MIN(tiles * (p + 1) / parts * unit, total), \
                              ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);                                   \
            if (ct__gemm_is_caller()) own += ct__gemm_clock() - t;                                                     \
        }                                                                                                              \
        ct__gemm_note_join(ct__gemm_clock() - start, own);                                                             \
    }

#ifdef _OPENMP
#define CT__OMP_FOR_THREADS _Pragma("omp parallel for num_threads(team) schedule(dynamic, 1)")
#else
#define CT__OMP_FOR_THREADS (void)team;
#endif

CT__GEMM_DEFINE(s, float)
CT__GEMM_DEFINE(d, double)
CT__GEMM_SMALL(s, float)
CT__GEMM_SMALL(d, double)
CT__GEMM_PARALLEL(s, float)
CT__GEMM_PARALLEL(d, double)

/* Whether OpenBLAS takes the product: built with it and every size fits its int. */
#ifdef CTORCH_OPENBLAS
#define CT__USE_CBLAS(M, N, K, lda, ldb, ldc)                                                                          \
    (CT__MAX(CT__MAX(M, N), CT__MAX(K, CT__MAX(lda, CT__MAX(ldb, ldc)))) <= INT32_MAX)
#define CT__CBLAS(f)                                                                                                   \
    f(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K, alpha, A, \
      (int)lda, B, (int)ldb, beta, C, (int)ldc)
#else
#define CT__USE_CBLAS(M, N, K, lda, ldb, ldc) false
#define CT__CBLAS(f) (void)0
#endif

#define CT__GEMM_ENTRY(x, T, cblas)                                                                                    \
    {                                                                                                                  \
        if (M == 0 || N == 0) return;                                                                                  \
        if (K == 0 || alpha == 0) {                                                                                    \
            ct__scale_##x(M, N, beta, C, ldc);                                                                         \
            return;                                                                                                    \
        }                                                                                                              \
        if (CT__USE_CBLAS(M, N, K, lda, ldb, ldc)) {                                                                   \
            CT__CBLAS(cblas);                                                                                          \
            return;                                                                                                    \
        }                                                                                                              \
        ct__gemm_parallel_##x(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);                                   \
    }

static void ct__sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                      const float *B, int64_t ldb, float beta, float *C, int64_t ldc)
    CT__GEMM_ENTRY(s, float, cblas_sgemm)

        static void ct__dgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double *A,
                              int64_t lda, const double *B, int64_t ldb, double beta, double *C, int64_t ldc)
            CT__GEMM_ENTRY(d, double, cblas_dgemm)

    /* Integer products: int64 values as uint64, whose arithmetic wraps (narrower
     * integers and int64 keep the same low bits as PyTorch's wrapping kernels). */
    static void ct__ugemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, uint64_t alpha, const uint64_t *A,
                          int64_t lda, const uint64_t *B, int64_t ldb, uint64_t beta, uint64_t *C, int64_t ldc)
{
    CT__GEMM_BODY(uint64_t)
}

/* ---------------------------------------------------------------- the backend's entry */

/* Item i of a batched product (ct__gemm_job) on the matching kernel. */
static void ct__gemm_item(const ct__gemm_job *j, int64_t i)
{
    size_t es = ct_dtype_size(j->dtype);
    /* (with K 0 the operands are empty and may have no data at all) */
    const char *A = j->K ? (const char *)j->A + (size_t)(i * j->a_bs) * es : (const char *)j->A;
    const char *B = j->K ? (const char *)j->B + (size_t)(i * j->b_bs) * es : (const char *)j->B;
    char *c = (char *)j->C + (size_t)(i * j->M * j->N) * es;
    if (j->dtype == CT_F32)
        ct__sgemm(j->a_trans, j->b_trans, j->M, j->N, j->K, (float)j->alpha, (const float *)A, j->a_ld,
                  (const float *)B, j->b_ld, (float)j->beta, (float *)c, j->N);
    else if (j->dtype == CT_F64)
        ct__dgemm(j->a_trans, j->b_trans, j->M, j->N, j->K, j->alpha, (const double *)A, j->a_ld, (const double *)B,
                  j->b_ld, j->beta, (double *)c, j->N);
    else
        ct__ugemm(j->a_trans, j->b_trans, j->M, j->N, j->K, (uint64_t)ct__trunc_i64(j->alpha), (const uint64_t *)A,
                  j->a_ld, (const uint64_t *)B, j->b_ld, (uint64_t)ct__trunc_i64(j->beta), (uint64_t *)c, j->N);
}

/* Every item of a batch. A batch with at least an item per thread is split by item (each product then
 * runs on one thread); a smaller one runs its items in turn, each product splitting itself. That loop
 * stays outside any parallel region: inside one, even an inactive one (if (false)), each product's own
 * region would be nested, and OpenMP starts a nested team's threads anew every time (tens of
 * microseconds, more than a training step's product takes on a thread). */
static void ct__cpu_gemm(const ct__gemm_job *j)
{
#ifdef _OPENMP
    if (j->batch >= omp_get_max_threads() &&
        (double)j->batch * (double)j->M * (double)j->N * (double)j->K >= CT__GEMM_PARALLEL_WORK) {
#pragma omp parallel for schedule(dynamic)
        for (int64_t i = 0; i < j->batch; i++) ct__gemm_item(j, i);
        return;
    }
#endif
    for (int64_t i = 0; i < j->batch; i++) ct__gemm_item(j, i);
}
