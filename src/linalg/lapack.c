/* Dense linear algebra kernels on one matrix: LU, Cholesky, Householder QR,
 * symmetric eigen (cyclic Jacobi), SVD (one-sided Jacobi), general eigen
 * (LAPACK's dgeev: balancing, Hessenberg reduction, double-shift QR,
 * eigenvectors of the Schur form), the
 * matrix exponential and least squares (LAPACK gels and gelsy: QR, and QR
 * with column pivoting, incremental condition estimation and the RZ
 * factorization). Everything works in double on row-major (rows, cols)
 * arrays with explicit sizes; decomp.c converts float32 inputs to double and
 * back, so float results are as accurate as they can be stored.
 *
 * Built with CTORCH_OPENBLAS, LU, Cholesky, QR, eigh, the SVD, general
 * eigen and gels/gelsy call LAPACK itself (see CT__LAPACK below).
 *
 * LU and QR make the same choices as LAPACK's getrf (the first largest pivot)
 * and geqrf (beta = -sign(alpha) * norm), so pivots, the signs of Q and R and
 * the index of a zero pivot agree with PyTorch; pivoted QR takes LAPACK's
 * columns in LAPACK's order, so gelsy's rank and solution agree too; the
 * general eigen decomposition follows dgeev step by step, so its
 * eigenvalues come in LAPACK's order and its vectors with LAPACK's phases.
 * The Jacobi iterations reach the same eigen and singular values; their
 * vectors may differ from LAPACK's by a sign. */

#define CT__LA_EPS 2.220446049250313e-16

/* ---------------------------------------------------------------- OpenBLAS's LAPACK */

/* Built with CTORCH_OPENBLAS, LU, Cholesky, QR, the symmetric eigen
 * decomposition, the SVD, the general eigen decomposition and lstsq's gels
 * and gelsy drivers are LAPACK's, the routines PyTorch 1.13 calls with the
 * arguments it passes: getrf and getrs (inv, solve; getrf alone for det and
 * slogdet), potrf with the triangle asked for, geqrf and orgqr, syevd
 * (jobz 'N' for eigenvalues alone), gesdd (jobz 'N', 'S' or 'A'), geev,
 * gels and gelsy. They go through the Fortran interface: column-major,
 * 32-bit sizes, hidden string lengths last. A float32 input runs LAPACK's
 * single routine (sgetrf, spotrf, sgeqrf, ssyevd, sgesdd, sgeev, ...) on
 * a float32 copy, as PyTorch's does: the double routine's results rounded
 * to float32 are more accurate, but their last bits, the signs of their
 * vectors and their zero pivots and rank decisions can differ from
 * PyTorch's. The copies are exact (the data was float32 before ctorch
 * widened it), and so are the results widened back. Each kernel below asks
 * CT__LAPACK(its LAPACK call) first; that is false without OpenBLAS, and
 * also when a size does not fit LAPACK's int or its workspace cannot be
 * had, or (syevd, gesdd, geev) LAPACK does not converge, and then the
 * built-in kernel runs. The matrix exponential has no LAPACK routine
 * (PyTorch's is its own too); gelsd and gelss stay on ctorch's SVD in
 * double, which is dgesdd here. */
#ifdef CTORCH_OPENBLAS
#define CT__LAPACK(call) (call)
#ifdef __cplusplus
extern "C" {
#endif
/* The routines that ctorch calls in both precisions: T is float (prefix p
 * s) or double (d). */
#define CT__LAPACK_DECLARE(T, p)                                                                                    \
    void p##getrf_(const int *m, const int *n, T *a, const int *lda, int *ipiv, int *info);                        \
    void p##getrs_(const char *trans, const int *n, const int *nrhs, const T *a, const int *lda, const int *ipiv,  \
                   T *b, const int *ldb, int *info, size_t trans_len);                                              \
    void p##potrf_(const char *uplo, const int *n, T *a, const int *lda, int *info, size_t uplo_len);              \
    void p##geqrf_(const int *m, const int *n, T *a, const int *lda, T *tau, T *work, const int *lwork, int *info); \
    void p##orgqr_(const int *m, const int *n, const int *k, T *a, const int *lda, const T *tau, T *work,          \
                   const int *lwork, int *info);                                                                    \
    void p##syevd_(const char *jobz, const char *uplo, const int *n, T *a, const int *lda, T *w, T *work,          \
                   const int *lwork, int *iwork, const int *liwork, int *info, size_t jobz_len, size_t uplo_len);   \
    void p##gesdd_(const char *jobz, const int *m, const int *n, T *a, const int *lda, T *s, T *u, const int *ldu, \
                   T *vt, const int *ldvt, T *work, const int *lwork, int *iwork, int *info, size_t jobz_len);
CT__LAPACK_DECLARE(float, s)
CT__LAPACK_DECLARE(double, d)
void dgeev_(const char *jobvl, const char *jobvr, const int *n, double *a, const int *lda, double *wr, double *wi,
            double *vl, const int *ldvl, double *vr, const int *ldvr, double *work, const int *lwork, int *info,
            size_t jobvl_len, size_t jobvr_len);
void sgeev_(const char *jobvl, const char *jobvr, const int *n, float *a, const int *lda, float *wr, float *wi,
            float *vl, const int *ldvl, float *vr, const int *ldvr, float *work, const int *lwork, int *info,
            size_t jobvl_len, size_t jobvr_len);
void dgels_(const char *trans, const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b,
            const int *ldb, double *work, const int *lwork, int *info, size_t trans_len);
void sgels_(const char *trans, const int *m, const int *n, const int *nrhs, float *a, const int *lda, float *b,
            const int *ldb, float *work, const int *lwork, int *info, size_t trans_len);
void dgelsy_(const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
             int *jpvt, const double *rcond, int *rank, double *work, const int *lwork, int *info);
void sgelsy_(const int *m, const int *n, const int *nrhs, float *a, const int *lda, float *b, const int *ldb,
             int *jpvt, const float *rcond, int *rank, float *work, const int *lwork, int *info);
#ifdef __cplusplus
}
#endif

/* Whether every size fits LAPACK's int (and the problem is not empty, which
 * the built-in kernels handle). */
static bool ct__lapack_fits(int64_t m, int64_t n) { return m > 0 && n > 0 && m <= INT_MAX / n; }

/* dst (cols, rows) = src (rows, cols)^T: a row-major matrix to LAPACK's
 * column-major one, or back. */
static void ct__la_transpose(const double *src, int64_t rows, int64_t cols, double *dst)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) dst[j * rows + i] = src[i * cols + j];
}

/* The workspace size a query (lwork = -1) answered, as an int. */
static int ct__lapack_lwork(double answer) { return answer < 1 ? 1 : answer > INT_MAX ? INT_MAX : (int)answer; }

/* A workspace of the size a query answered (NULL: none to be had). */
static double *ct__lapack_work(double answer, int *lwork)
{
    *lwork = ct__lapack_lwork(answer);
    return (double *)CT_MALLOC((size_t)*lwork * sizeof(double));
}

/* The kernels below in LAPACK's precision T (float or double, routines of
 * prefix p): each copies its row-major double input into column-major T
 * (ct__la_to_lapack_T), calls LAPACK, and widens the results back. Each
 * returns LAPACK's info, or -1 when memory cannot be had. */
#define CT__LAPACK_KERNELS(T, p)                                                                                    \
    /* dst, column-major (rows, cols) with leading dimension rows, = src (rows, cols) row-major */                 \
    static void ct__la_to_lapack_##T(const double *src, int64_t rows, int64_t cols, T *dst)                        \
    {                                                                                                               \
        for (int64_t i = 0; i < rows; i++)                                                                          \
            for (int64_t j = 0; j < cols; j++) dst[j * rows + i] = (T)src[i * cols + j];                            \
    }                                                                                                               \
                                                                                                                    \
    /* dst (rows, cols) row-major = src, column-major (rows, cols) */                                               \
    static void ct__la_from_lapack_##T(const T *src, int64_t rows, int64_t cols, double *dst)                      \
    {                                                                                                               \
        for (int64_t i = 0; i < rows; i++)                                                                          \
            for (int64_t j = 0; j < cols; j++) dst[i * cols + j] = src[j * rows + i];                               \
    }                                                                                                               \
                                                                                                                    \
    /* n elements of T, NULL when they cannot be had */                                                             \
    static T *ct__la_alloc_##T(int64_t n) { return (T *)CT_MALLOC((size_t)(n > 0 ? n : 1) * sizeof(T)); }          \
                                                                                                                    \
    /* getrf on a (n, n), which gets the factors; the pivots (1-based) to ipiv[n] */                                \
    static int ct__lapack_getrf_##T(double *a, int64_t n, int *ipiv)                                               \
    {                                                                                                               \
        int N = (int)n, info = 0;                                                                                   \
        T *c = ct__la_alloc_##T(n * n);                                                                             \
        if (!c) return -1;                                                                                          \
        ct__la_to_lapack_##T(a, n, n, c);                                                                           \
        p##getrf_(&N, &N, c, &N, ipiv, &info);                                                                      \
        ct__la_from_lapack_##T(c, n, n, a);                                                                         \
        CT_FREE(c);                                                                                                 \
        return info;                                                                                                \
    }                                                                                                               \
                                                                                                                    \
    /* getrf, then getrs on b (n, k) when no pivot is zero: b = a^-1 b. a_t: factor a^T (a's row-major data as it  \
     * is, column-major) and solve with trans 'T' */                                                               \
    static int ct__lapack_getrs_##T(const double *a, int64_t n, bool a_t, double *b, int64_t k)                    \
    {                                                                                                               \
        int N = (int)n, K = (int)k, info = 0, *ipiv = (int *)CT_MALLOC((size_t)n * sizeof(int));                    \
        T *c = ipiv ? ct__la_alloc_##T(n * n + n * k) : NULL, *cb = c ? c + n * n : NULL; /* a, then b */          \
        if (c) {                                                                                                    \
            if (a_t)                                                                                                \
                for (int64_t i = 0; i < n * n; i++) c[i] = (T)a[i];                                                 \
            else                                                                                                    \
                ct__la_to_lapack_##T(a, n, n, c);                                                                   \
            ct__la_to_lapack_##T(b, n, k, cb);                                                                      \
            p##getrf_(&N, &N, c, &N, ipiv, &info);                                                                  \
            if (info == 0) p##getrs_(a_t ? "T" : "N", &N, &K, c, &N, ipiv, cb, &N, &info, 1);                       \
            if (info == 0) ct__la_from_lapack_##T(cb, n, k, b);                                                     \
        }                                                                                                           \
        CT_FREE(c);                                                                                                 \
        CT_FREE(ipiv);                                                                                              \
        return c ? info : -1;                                                                                       \
    }                                                                                                               \
                                                                                                                    \
    /* potrf on a (n, n) with uplo 'U' or 'L': a becomes U or L, zeros in the other triangle */                     \
    static int ct__lapack_potrf_##T(double *a, int64_t n, bool upper)                                              \
    {                                                                                                               \
        int N = (int)n, info = 0;                                                                                   \
        T *c = ct__la_alloc_##T(n * n);                                                                             \
        if (!c) return -1;                                                                                          \
        ct__la_to_lapack_##T(a, n, n, c);                                                                           \
        p##potrf_(upper ? "U" : "L", &N, c, &N, &info, 1);                                                          \
        ct__la_from_lapack_##T(c, n, n, a);                                                                         \
        CT_FREE(c);                                                                                                 \
        for (int64_t i = 0; i < n; i++)                                                                             \
            for (int64_t j = 0; j < n; j++)                                                                         \
                if (upper ? j < i : j > i) a[i * n + j] = 0;                                                        \
        return info;                                                                                                \
    }                                                                                                               \
                                                                                                                    \
    /* A workspace of the size a query answered (NULL: none to be had) */                                           \
    static T *ct__la_work_##T(T answer, int *lwork)                                                                \
    {                                                                                                               \
        *lwork = ct__lapack_lwork((double)answer);                                                                  \
        return ct__la_alloc_##T(*lwork);                                                                            \
    }                                                                                                               \
                                                                                                                    \
    /* geqrf on a (m, n), which gets R and the reflectors; tau[min(m, n)] */                                        \
    static int ct__lapack_geqrf_##T(double *a, int64_t m, int64_t n, double *tau)                                  \
    {                                                                                                               \
        int64_t k = CT__MIN(m, n);                                                                                  \
        int M = (int)m, N = (int)n, lwork = -1, info = 0;                                                           \
        T answer = 0, *work = NULL, *c = ct__la_alloc_##T(m * n + k), *ct = c ? c + m * n : NULL; /* a, tau */     \
        if (c) p##geqrf_(&M, &N, c, &M, ct, &answer, &lwork, &info);                                               \
        if (c && (work = ct__la_work_##T(answer, &lwork))) {                                                        \
            ct__la_to_lapack_##T(a, m, n, c);                                                                       \
            p##geqrf_(&M, &N, c, &M, ct, work, &lwork, &info);                                                      \
            ct__la_from_lapack_##T(c, m, n, a);                                                                     \
            for (int64_t i = 0; i < k; i++) tau[i] = ct[i];                                                         \
        }                                                                                                           \
        CT_FREE(work);                                                                                              \
        CT_FREE(c);                                                                                                 \
        return work ? info : -1;                                                                                    \
    }                                                                                                               \
                                                                                                                    \
    /* orgqr: q (m, qc) from geqrf's a (m, n) and tau, as PyTorch's linalg.qr calls it: its first min(m, n)      \
     * columns hold the reflectors */                                                                               \
    static int ct__lapack_orgqr_##T(const double *a, const double *tau, int64_t m, int64_t n, double *q,          \
                                    int64_t qc)                                                                     \
    {                                                                                                               \
        int64_t k = CT__MIN(m, n);                                                                                  \
        int M = (int)m, QC = (int)qc, K = (int)k, lwork = -1, info = 0;                                             \
        T answer = 0, *work = NULL, *c = ct__la_alloc_##T(m * qc + k), *ct = c ? c + m * qc : NULL; /* q, tau */   \
        if (c) p##orgqr_(&M, &QC, &K, c, &M, ct, &answer, &lwork, &info);                                          \
        if (c && (work = ct__la_work_##T(answer, &lwork))) {                                                        \
            for (int64_t j = 0; j < qc; j++)                                                                        \
                for (int64_t i = 0; i < m; i++) c[j * m + i] = j < k ? (T)a[i * n + j] : 0;                          \
            for (int64_t i = 0; i < k; i++) ct[i] = (T)tau[i];                                                      \
            p##orgqr_(&M, &QC, &K, c, &M, ct, work, &lwork, &info);                                                 \
            ct__la_from_lapack_##T(c, m, qc, q);                                                                    \
        }                                                                                                           \
        CT_FREE(work);                                                                                              \
        CT_FREE(c);                                                                                                 \
        return work ? info : -1;                                                                                    \
    }                                                                                                               \
                                                                                                                    \
    /* syevd(jobz 'V' or 'N', uplo 'U' or 'L') on a (n, n): w[n] ascending, the eigenvectors as v's columns */      \
    static int ct__lapack_syevd_##T(const double *a, int64_t n, bool upper, bool vectors, double *w, double *v)   \
    {                                                                                                               \
        int N = (int)n, lwork = -1, liwork = -1, ianswer = 0, info = 0, *iwork = NULL;                              \
        const char *jobz = vectors ? "V" : "N", *uplo = upper ? "U" : "L";                                          \
        T answer = 0, *work = NULL, *c = ct__la_alloc_##T(n * n + n), *cw = c ? c + n * n : NULL; /* a, w */       \
        if (c) p##syevd_(jobz, uplo, &N, c, &N, cw, &answer, &lwork, &ianswer, &liwork, &info, 1, 1);              \
        liwork = ianswer < 1 ? 1 : ianswer;                                                                         \
        if (c && (work = ct__la_work_##T(answer, &lwork)) &&                                                        \
            (iwork = (int *)CT_MALLOC((size_t)liwork * sizeof(int)))) {                                             \
            ct__la_to_lapack_##T(a, n, n, c);                                                                       \
            p##syevd_(jobz, uplo, &N, c, &N, cw, work, &lwork, iwork, &liwork, &info, 1, 1);                        \
            for (int64_t i = 0; i < n; i++) w[i] = cw[i];                                                           \
            if (vectors) ct__la_from_lapack_##T(c, n, n, v);                                                        \
        }                                                                                                           \
        int done = iwork ? info : -1;                                                                               \
        CT_FREE(iwork);                                                                                             \
        CT_FREE(work);                                                                                              \
        CT_FREE(c);                                                                                                 \
        return done;                                                                                                \
    }                                                                                                               \
                                                                                                                    \
    /* gesdd(jobz) on a (m, n): s[min(m, n)]; for jobz 'S' or 'A' also u (m, uc) and vt (vr, n) */                 \
    static int ct__lapack_gesdd_##T(const double *a, int64_t m, int64_t n, const char *jobz, double *s, double *u, \
                                    int64_t uc, double *vt, int64_t vr)                                             \
    {                                                                                                               \
        int64_t k = CT__MIN(m, n);                                                                                  \
        bool vectors = *jobz != 'N';                                                                                \
        int M = (int)m, N = (int)n, LDVT = vectors ? (int)vr : 1, lwork = -1, info = 0;                             \
        int *iwork = (int *)CT_MALLOC((size_t)(8 * k) * sizeof(int));                                              \
        T answer = 0, *work = NULL, *c = iwork ? ct__la_alloc_##T(m * n + k + (vectors ? m * uc + vr * n : 0)) : NULL; \
        T *cs = c ? c + m * n : NULL, *cu = c ? cs + k : NULL, *cvt = c ? cu + (vectors ? m * uc : 0) : NULL;      \
        if (c) p##gesdd_(jobz, &M, &N, c, &M, cs, cu, &M, cvt, &LDVT, &answer, &lwork, iwork, &info, 1);           \
        if (c && (work = ct__la_work_##T(answer, &lwork))) {                                                        \
            ct__la_to_lapack_##T(a, m, n, c);                                                                       \
            p##gesdd_(jobz, &M, &N, c, &M, cs, cu, &M, cvt, &LDVT, work, &lwork, iwork, &info, 1);                  \
            for (int64_t i = 0; i < k; i++) s[i] = cs[i];                                                           \
            if (vectors) ct__la_from_lapack_##T(cu, m, uc, u);                                                      \
            if (vectors) ct__la_from_lapack_##T(cvt, vr, n, vt);                                                    \
        }                                                                                                           \
        CT_FREE(work);                                                                                              \
        CT_FREE(c);                                                                                                 \
        CT_FREE(iwork);                                                                                             \
        return work ? info : -1;                                                                                    \
    }
CT__LAPACK_KERNELS(float, s)
CT__LAPACK_KERNELS(double, d)

/* getrf in LAPACK's single (float32 input) or double precision: as ct__lu,
 * *info its result. */
static bool ct__lapack_lu(double *a, int64_t n, bool single, int64_t *piv, int64_t *info)
{
    int *ipiv = ct__lapack_fits(n, n) ? (int *)CT_MALLOC((size_t)n * sizeof(int)) : NULL;
    int r = !ipiv ? -1 : single ? ct__lapack_getrf_float(a, n, ipiv) : ct__lapack_getrf_double(a, n, ipiv);
    for (int64_t i = 0; r >= 0 && i < n; i++) piv[i] = ipiv[i] - 1;
    CT_FREE(ipiv);
    if (r >= 0) *info = r;
    return r >= 0;
}

/* getrf and getrs, as PyTorch's linalg.solve and inv call them: as
 * ct__lu_factor_solve, *info getrf's. */
static bool ct__lapack_solve(const double *a, int64_t n, bool a_t, bool single, double *b, int64_t k, int64_t *info)
{
    if (!ct__lapack_fits(n, n) || !ct__lapack_fits(n, k)) return false;
    int r = single ? ct__lapack_getrs_float(a, n, a_t, b, k) : ct__lapack_getrs_double(a, n, a_t, b, k);
    if (r >= 0) *info = r;
    return r >= 0;
}

/* potrf: as ct__cholesky. */
static bool ct__lapack_cholesky(double *a, int64_t n, bool upper, bool single, int64_t *info)
{
    if (!ct__lapack_fits(n, n)) return false;
    int r = single ? ct__lapack_potrf_float(a, n, upper) : ct__lapack_potrf_double(a, n, upper);
    if (r >= 0) *info = r;
    return r >= 0;
}

/* geqrf: as ct__qr. */
static bool ct__lapack_qr(double *a, int64_t m, int64_t n, bool single, double *tau)
{
    if (!ct__lapack_fits(m, n)) return false;
    return (single ? ct__lapack_geqrf_float(a, m, n, tau) : ct__lapack_geqrf_double(a, m, n, tau)) >= 0;
}

/* orgqr: as ct__qr_q. */
static bool ct__lapack_qr_q(const double *a, const double *tau, int64_t m, int64_t n, bool single, double *q,
                            int64_t qc)
{
    if (!ct__lapack_fits(m, n) || !ct__lapack_fits(m, qc)) return false;
    return (single ? ct__lapack_orgqr_float(a, tau, m, n, q, qc) : ct__lapack_orgqr_double(a, tau, m, n, q, qc)) >= 0;
}

/* syevd: as ct__eigh; false also when LAPACK does not converge. */
static bool ct__lapack_eigh(const double *a, int64_t n, bool upper, bool vectors, bool single, double *w, double *v)
{
    if (!ct__lapack_fits(n, n)) return false;
    return (single ? ct__lapack_syevd_float(a, n, upper, vectors, w, v)
                   : ct__lapack_syevd_double(a, n, upper, vectors, w, v)) == 0;
}

/* gesdd (jobz 'N' without vectors, else 'S' thin or 'A' full): as ct__svd,
 * on A itself as PyTorch calls it; false also when LAPACK does not
 * converge. */
static bool ct__lapack_svd(const double *a, int64_t m, int64_t n, bool vectors, bool single, double *s, double *u,
                           int64_t uc, double *vt, int64_t vr)
{
    int64_t k = CT__MIN(m, n);
    const char *jobz = !vectors ? "N" : uc == k && vr == k ? "S" : "A";
    if (!ct__lapack_fits(m, n) || !ct__lapack_fits(m, m) || !ct__lapack_fits(n, n)) return false;
    return (single ? ct__lapack_gesdd_float(a, m, n, jobz, s, u, uc, vt, vr)
                   : ct__lapack_gesdd_double(a, m, n, jobz, s, u, uc, vt, vr)) == 0;
}

/* v (n, n, 2) = the complex eigenvectors (columns, (re, im) pairs) from
 * geev's column-major vr (n, n): a real eigenvalue's column is real; a
 * complex pair j, j+1 (wi[j] > 0) shares vr's columns j and j+1, its
 * vectors vr_j + i vr_{j+1} and their conjugate (as PyTorch unpacks them). */
static void ct__lapack_geev_vectors(const double *vr, const double *wi, int64_t n, double *v)
{
    for (int64_t j = 0; j < n; j++) {
        bool pair = wi[j] != 0 && j + 1 < n;
        for (int64_t r = 0; r < n; r++) {
            double re = vr[j * n + r], im = pair ? vr[(j + 1) * n + r] : 0;
            v[(r * n + j) * 2] = re;
            v[(r * n + j) * 2 + 1] = im;
            if (!pair) continue;
            v[(r * n + j + 1) * 2] = re;
            v[(r * n + j + 1) * 2 + 1] = -im;
        }
        j += pair;
    }
}

/* dgeev('N', jobvr) on the column-major ca (N, N), the right eigenvectors
 * to vr (N, N) when jobvr is "V": its info, or -1 when its workspace
 * cannot be had. */
static int ct__lapack_dgeev(int N, const char *jobvr, double *ca, double *wr, double *wi, double *vr)
{
    int one = 1, lwork = -1, info = 0;
    double answer = 0, unused = 0;
    dgeev_("N", jobvr, &N, ca, &N, wr, wi, &unused, &one, vr, &N, &answer, &lwork, &info, 1, 1);
    double *work = ct__lapack_work(answer, &lwork);
    if (!work) return -1;
    dgeev_("N", jobvr, &N, ca, &N, wr, wi, &unused, &one, vr, &N, work, &lwork, &info, 1, 1);
    CT_FREE(work);
    return info;
}

/* sgeev, as ct__lapack_dgeev, on a float32 copy of ca (exact: the input
 * was float32); its results come back as doubles. */
static int ct__lapack_sgeev(int N, const char *jobvr, const double *ca, double *wr, double *wi, double *vr)
{
    int64_t nn = (int64_t)N * N;
    int one = 1, lwork = -1, info = 0;
    float answer = 0, unused = 0, *f = (float *)CT_MALLOC((size_t)(2 * nn + 2 * N) * sizeof(float)), *work = NULL;
    float *fvr = f ? f + 2 * N : NULL, *fa = f ? fvr + nn : NULL; /* wr and wi, then vr, then A */
    if (f) {
        sgeev_("N", jobvr, &N, fa, &N, f, f + N, &unused, &one, fvr, &N, &answer, &lwork, &info, 1, 1);
        lwork = ct__lapack_lwork(answer);
        work = (float *)CT_MALLOC((size_t)lwork * sizeof(float));
    }
    if (work) {
        for (int64_t i = 0; i < nn; i++) fa[i] = (float)ca[i];
        sgeev_("N", jobvr, &N, fa, &N, f, f + N, &unused, &one, fvr, &N, work, &lwork, &info, 1, 1);
        for (int64_t i = 0; i < N; i++) wr[i] = f[i], wi[i] = f[N + i];
        for (int64_t i = 0; i < nn && *jobvr == 'V'; i++) vr[i] = fvr[i];
    }
    CT_FREE(work);
    CT_FREE(f);
    return work ? info : -1;
}

/* geev('N', 'V') (or 'N', 'N' when v is NULL), as PyTorch's linalg_eig
 * calls it: as ct__geev; false also when LAPACK does not converge. single:
 * the input was float32, for which PyTorch calls sgeev, and its vectors'
 * signs can differ from dgeev's. */
static bool ct__lapack_geev(const double *a, int64_t n, bool single, double *wr, double *wi, double *v)
{
    int N = (int)n;
    const char *jobvr = v ? "V" : "N";
    double *ca = ct__lapack_fits(n, n) ? (double *)CT_MALLOC((size_t)(2 * n * n) * sizeof(double)) : NULL;
    if (!ca) return false;
    double *vr = ca + n * n; /* column-major A, then the right eigenvectors */
    ct__la_transpose(a, n, n, ca);
    int info = single ? ct__lapack_sgeev(N, jobvr, ca, wr, wi, vr) : ct__lapack_dgeev(N, jobvr, ca, wr, wi, vr);
    if (info == 0 && v) ct__lapack_geev_vectors(vr, wi, n, v);
    CT_FREE(ca);
    return info == 0;
}

/* dgels('N') (gelsy false) or dgelsy on the column-major ca (M, N) and cb
 * (LDB, K), the solution into cb: LAPACK's info, or -1 when its workspace
 * cannot be had. jpvt, rcond, rank: gelsy's. */
static int ct__lapack_dlstsq(bool gelsy, int M, int N, int K, double *ca, double *cb, int LDB, int *jpvt, double rcond,
                             int *rank)
{
    int lwork = -1, info = 0;
    double answer = 0, *work = &answer;
    for (int query = 1; query >= 0; query--) { /* the workspace query, then the work */
        if (gelsy) dgelsy_(&M, &N, &K, ca, &M, cb, &LDB, jpvt, &rcond, rank, work, &lwork, &info);
        else dgels_("N", &M, &N, &K, ca, &M, cb, &LDB, work, &lwork, &info, 1);
        if (query && !(work = ct__lapack_work(answer, &lwork))) return -1;
    }
    CT_FREE(work);
    return info;
}

/* sgels or sgelsy, as ct__lapack_dlstsq, on float32 copies of ca and cb
 * (exact: the input was float32); the solution comes back into cb. */
static int ct__lapack_slstsq(bool gelsy, int M, int N, int K, const double *ca, double *cb, int LDB, int *jpvt,
                             double rcond, int *rank)
{
    int64_t na = (int64_t)M * N, nb = (int64_t)LDB * K;
    int lwork = -1, info = 0;
    float answer = 0, *work = &answer, rc = rcond > FLT_MAX ? INFINITY : rcond < -FLT_MAX ? -INFINITY : (float)rcond;
    float *f = (float *)CT_MALLOC((size_t)(na + nb) * sizeof(float));
    if (!f) return -1;
    float *fb = f + na; /* A, then B */
    for (int64_t i = 0; i < na + nb; i++) f[i] = (float)(i < na ? ca[i] : cb[i - na]);
    for (int query = 1; query >= 0; query--) { /* the workspace query, then the work */
        if (gelsy) sgelsy_(&M, &N, &K, f, &M, fb, &LDB, jpvt, &rc, rank, work, &lwork, &info);
        else sgels_("N", &M, &N, &K, f, &M, fb, &LDB, work, &lwork, &info, 1);
        if (!query) break;
        lwork = ct__lapack_lwork(answer);
        if (!(work = (float *)CT_MALLOC((size_t)lwork * sizeof(float)))) break;
    }
    for (int64_t i = 0; work && i < nb; i++) cb[i] = fb[i];
    CT_FREE(work);
    CT_FREE(f);
    return work ? info : -1;
}

/* gels('N') (gelsy false) or gelsy, as ct__gels and ct__gelsy: *result
 * is gels's info (the 1-based index of a zero on R's diagonal, or 0) or
 * gelsy's rank. single: the input was float32, and PyTorch calls sgels or
 * sgelsy then (gelsy's rank decisions use float32's unit roundoff). gelsy's
 * jpvt is zeroed for each matrix, so every column is free, as in the
 * built-in kernel (PyTorch 1.13 hands LAPACK uninitialised memory there:
 * see tests/golden/gen_decomp.py). False when memory cannot be had (or
 * LAPACK refuses an argument). */
static bool ct__lapack_lstsq(const double *a, int64_t m, int64_t n, double *b, int64_t k, bool gelsy, bool single,
                             double rcond, int64_t *result)
{
    int64_t rows = CT__MAX(m, n);
    int M = (int)m, N = (int)n, K = (int)k, LDB = (int)rows, r = 0, done = -1;
    bool fits = ct__lapack_fits(m, n) && ct__lapack_fits(rows, k);
    double *ca = fits ? (double *)CT_MALLOC((size_t)(m * n + rows * k) * sizeof(double)) : NULL, *cb = NULL;
    int *jpvt = ca ? (int *)CT_MALLOC((size_t)n * sizeof(int)) : NULL;
    if (jpvt) {
        cb = ca + m * n; /* column-major A and B */
        memset(jpvt, 0, (size_t)n * sizeof(int));
        ct__la_transpose(a, m, n, ca);
        ct__la_transpose(b, rows, k, cb);
        done = single ? ct__lapack_slstsq(gelsy, M, N, K, ca, cb, LDB, jpvt, rcond, &r)
                      : ct__lapack_dlstsq(gelsy, M, N, K, ca, cb, LDB, jpvt, rcond, &r);
    }
    if (done >= 0) {
        ct__la_transpose(cb, k, rows, b);
        *result = gelsy ? r : done;
    }
    CT_FREE(jpvt);
    CT_FREE(ca);
    return done >= 0;
}
#else
#define CT__LAPACK(call) false
#endif

/* ---------------------------------------------------------------- products */

/* c (m, n) = a (m, k) @ b (k, n), all row-major and dense. */
static void ct__la_mm(const double *a, const double *b, double *c, int64_t m, int64_t k, int64_t n)
{
    ct__dgemm(false, false, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
}

/* Columns j0 and j1 of a (rows, cols) swapped. */
static void ct__la_swap_cols(double *a, int64_t rows, int64_t cols, int64_t j0, int64_t j1)
{
    for (int64_t k = 0; k < rows; k++) {
        double t = a[k * cols + j0];
        a[k * cols + j0] = a[k * cols + j1];
        a[k * cols + j1] = t;
    }
}

/* a (n, n) transposed in place. */
static void ct__la_transpose_square(double *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++) {
            double t = a[i * n + j];
            a[i * n + j] = a[j * n + i];
            a[j * n + i] = t;
        }
}

/* a (n, n) = I. */
static void ct__la_eye(double *a, int64_t n)
{
    for (int64_t i = 0; i < n * n; i++) a[i] = 0;
    for (int64_t i = 0; i < n; i++) a[i * n + i] = 1;
}

/* ---------------------------------------------------------------- LU */

/* LU with partial pivoting (LAPACK getrf): a (n, n) becomes L (unit, below
 * the diagonal) and U; row i was swapped with row piv[i] >= i. Returns 0, or
 * the 1-based index of the first exactly zero pivot (the factorization goes
 * on past it, as LAPACK's does). single: the input was float32 (sgetrf with
 * LAPACK; the built-in kernel works in double for both). The built-in kernel
 * rounds as OpenBLAS's getf2 does (what PyTorch's LAPACK runs for small
 * matrices): left-looking, each column less its dot products (fused
 * multiply-adds) with the columns done, then scaled by its pivot's
 * reciprocal. The rounding decides which pivot of a singular matrix comes
 * out exactly 0 (linalg.inv's error names it), or whether one does; against
 * PyTorch on random singular integer matrices it agrees up to 5 x 5. */
static int64_t ct__lu(double *a, int64_t n, bool single, int64_t *piv)
{
    int64_t info = 0;
    if (CT__LAPACK(ct__lapack_lu(a, n, single, piv, &info))) return info;
    (void)single;
    for (int64_t j = 0; j < n; j++) {
        for (int64_t i = 1; i < n; i++) { /* U's rows above j, then the rest of column j */
            double s = 0;
            for (int64_t k = 0; k < (i < j ? i : j); k++) s = fma(a[i * n + k], a[k * n + j], s);
            a[i * n + j] -= s;
        }
        int64_t p = j;
        for (int64_t i = j + 1; i < n; i++)
            if (fabs(a[i * n + j]) > fabs(a[p * n + j])) p = i;
        piv[j] = p;
        double d = a[p * n + j];
        if (d == 0) {
            if (!info) info = j + 1;
            continue;
        }
        if (p != j)
            for (int64_t k = 0; k < n; k++) {
                double t = a[j * n + k];
                a[j * n + k] = a[p * n + k];
                a[p * n + k] = t;
            }
        double r = 1 / d;
        for (int64_t i = j + 1; i < n; i++) a[i * n + j] *= r;
    }
    return info;
}

/* b (n, k) = A^-1 b from A's LU (ct__lu) with nonzero pivots. */
static void ct__lu_solve(const double *lu, const int64_t *piv, int64_t n, double *b, int64_t k)
{
    for (int64_t i = 0; i < n; i++)
        if (piv[i] != i)
            for (int64_t j = 0; j < k; j++) {
                double t = b[i * k + j];
                b[i * k + j] = b[piv[i] * k + j];
                b[piv[i] * k + j] = t;
            }
    for (int64_t i = 0; i < n; i++) /* L y = b */
        for (int64_t p = 0; p < i; p++) {
            double l = lu[i * n + p];
            if (l != 0)
                for (int64_t j = 0; j < k; j++) b[i * k + j] -= l * b[p * k + j];
        }
    for (int64_t i = n - 1; i >= 0; i--) { /* U x = y */
        for (int64_t p = i + 1; p < n; p++) {
            double u = lu[i * n + p];
            if (u != 0)
                for (int64_t j = 0; j < k; j++) b[i * k + j] -= u * b[p * k + j];
        }
        for (int64_t j = 0; j < k; j++) b[i * k + j] /= lu[i * n + i];
    }
}

/* b (n, k) = A^-1 b from the LU (ct__lu) of A^T with nonzero pivots, as
 * getrs 'T' solves: P A^T = L U, so A = U^T L^T P; U^T z = b, L^T w = z,
 * then the row swaps undone in reverse order. */
static void ct__lu_solve_t(const double *lu, const int64_t *piv, int64_t n, double *b, int64_t k)
{
    for (int64_t i = 0; i < n; i++) { /* U^T z = b */
        for (int64_t p = 0; p < i; p++) {
            double u = lu[p * n + i];
            if (u != 0)
                for (int64_t j = 0; j < k; j++) b[i * k + j] -= u * b[p * k + j];
        }
        for (int64_t j = 0; j < k; j++) b[i * k + j] /= lu[i * n + i];
    }
    for (int64_t i = n - 1; i >= 0; i--) /* L^T w = z */
        for (int64_t p = i + 1; p < n; p++) {
            double l = lu[p * n + i];
            if (l != 0)
                for (int64_t j = 0; j < k; j++) b[i * k + j] -= l * b[p * k + j];
        }
    for (int64_t i = n - 1; i >= 0; i--)
        if (piv[i] != i)
            for (int64_t j = 0; j < k; j++) {
                double t = b[i * k + j];
                b[i * k + j] = b[piv[i] * k + j];
                b[piv[i] * k + j] = t;
            }
}

/* b (n, k) = A^-1 b for a (n, n) = A (destroyed), by LU: 0, or (b then
 * unspecified) the 1-based index of the first zero pivot. As PyTorch calls
 * getrf and getrs: a_t (PyTorch's choice for a contiguous A) factors A^T,
 * whose column-major data is A's row-major one, and solves with it
 * transposed; else A. Which pivot is the first zero (linalg.inv names it),
 * and whether one is exactly zero at all, depends on which is factored.
 * single: the input was float32 (sgetrf and sgetrs). piv: n. */
static int64_t ct__lu_factor_solve(double *a, int64_t n, bool a_t, bool single, double *b, int64_t k, int64_t *piv)
{
    int64_t info = 0;
    if (CT__LAPACK(ct__lapack_solve(a, n, a_t, single, b, k, &info))) return info;
    if (a_t) ct__la_transpose_square(a, n);
    if ((info = ct__lu(a, n, single, piv))) return info;
    if (a_t) ct__lu_solve_t(a, piv, n, b, k);
    else ct__lu_solve(a, piv, n, b, k);
    return 0;
}

/* The sign of the permutation and of prod(diag(U)) and log|prod(diag(U))|
 * from an LU (n, n): det = sign * exp(logabs). */
static void ct__lu_slogdet(const double *lu, const int64_t *piv, int64_t n, double *sign, double *logabs)
{
    double s = 1, l = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = lu[i * n + i];
        if (piv[i] != i) s = -s;
        if (d < 0) s = -s;
        if (d == 0) s = 0;
        l += log(fabs(d));
    }
    *sign = s;
    *logabs = l;
}

/* ---------------------------------------------------------------- Cholesky */

/* a (n, n) symmetric positive-definite (its lower triangle read) becomes L,
 * with zeros above the diagonal; upper: its upper triangle read, it becomes
 * U = L^T with zeros below (LAPACK potrf with uplo 'L' or 'U'). Returns 0,
 * or the order of the first leading minor that is not positive-definite
 * (potrf's info). single: the input was float32 (spotrf with LAPACK). */
static int64_t ct__cholesky(double *a, int64_t n, bool upper, bool single)
{
    int64_t info = 0;
    if (CT__LAPACK(ct__lapack_cholesky(a, n, upper, single, &info))) return info;
    (void)single;
    if (upper) { /* U^T U = A: the lower factor of A^T, transposed */
        ct__la_transpose_square(a, n);
        info = ct__cholesky(a, n, false, single);
        ct__la_transpose_square(a, n);
        return info;
    }
    for (int64_t j = 0; j < n; j++) {
        double d = a[j * n + j];
        for (int64_t p = 0; p < j; p++) d -= a[j * n + p] * a[j * n + p];
        if (!(d > 0)) return j + 1;
        d = sqrt(d);
        a[j * n + j] = d;
        for (int64_t i = j + 1; i < n; i++) {
            double s = a[i * n + j];
            for (int64_t p = 0; p < j; p++) s -= a[i * n + p] * a[j * n + p];
            a[i * n + j] = s / d;
        }
        for (int64_t i = 0; i < j; i++) a[i * n + j] = 0;
    }
    return info; /* 0 */
}

/* ---------------------------------------------------------------- QR */

/* The Householder reflector H = I - tau v v^T (LAPACK larfg) with
 * H [alpha; x] = [beta; 0], beta = -sign(alpha) * norm: alpha becomes beta,
 * x (len entries at stride) becomes v's tail (v's first entry is an
 * implicit 1). Returns tau; 0 (H = I, alpha kept) when x is zero. */
static double ct__la_reflector(double *alpha, double *x, int64_t len, int64_t stride)
{
    double xnorm = 0;
    for (int64_t i = 0; i < len; i++) xnorm = hypot(xnorm, x[i * stride]);
    if (xnorm == 0) return 0;
    double beta = -copysign(hypot(*alpha, xnorm), *alpha);
    double tau = (beta - *alpha) / beta, scale = 1 / (*alpha - beta);
    for (int64_t i = 0; i < len; i++) x[i * stride] *= scale;
    *alpha = beta;
    return tau;
}

/* The vector y = [head; tail] (tail: len entries at stride ts) times
 * I - tau v v^T, v = [1; z] (z: len entries at stride zs) (LAPACK larf and
 * larz on one column or row). */
static void ct__la_reflect_vec(double *head, double *tail, int64_t ts, const double *z, int64_t zs, int64_t len,
                               double tau)
{
    double s = *head;
    for (int64_t i = 0; i < len; i++) s += z[i * zs] * tail[i * ts];
    s *= tau;
    *head -= s;
    for (int64_t i = 0; i < len; i++) tail[i * ts] -= s * z[i * zs];
}

/* c (len, cols) (row stride ldc) = H c, H = I - tau v v^T with v's tail at
 * v[vs], v[2 vs], ... (v[0], an implicit 1, is not read). */
static void ct__la_reflect(const double *v, int64_t vs, int64_t len, double tau, double *c, int64_t ldc, int64_t cols)
{
    if (tau == 0 || len <= 0) return;
    for (int64_t j = 0; j < cols; j++) ct__la_reflect_vec(c + j, c + ldc + j, ldc, v + vs, vs, len - 1, tau);
}

/* Householder QR (LAPACK geqrf): a (m, n) becomes R on and above the
 * diagonal and the reflectors' vectors below it (their first entry an
 * implicit 1); tau[min(m, n)] their scales. single: the input was float32
 * (sgeqrf with LAPACK). */
static void ct__qr(double *a, int64_t m, int64_t n, bool single, double *tau)
{
    if (CT__LAPACK(ct__lapack_qr(a, m, n, single, tau))) return;
    (void)single;
    int64_t k = CT__MIN(m, n);
    for (int64_t j = 0; j < k; j++) {
        tau[j] = ct__la_reflector(a + j * n + j, a + (j + 1) * n + j, m - j - 1, n);
        ct__la_reflect(a + j * n + j, n, m - j, tau[j], a + j * n + j + 1, n, n - j - 1); /* the columns on the right */
    }
}

/* q (m, qc) = the first qc columns of H_0 H_1 ... H_{k-1} (LAPACK orgqr),
 * from ct__qr's a (m, n) and tau; k = min(m, n), qc is k or m. single: the
 * input was float32 (sorgqr with LAPACK). */
static void ct__qr_q(const double *a, const double *tau, int64_t m, int64_t n, bool single, double *q, int64_t qc)
{
    if (CT__LAPACK(ct__lapack_qr_q(a, tau, m, n, single, q, qc))) return;
    (void)single;
    int64_t k = CT__MIN(m, n);
    for (int64_t i = 0; i < m * qc; i++) q[i] = 0;
    for (int64_t i = 0; i < CT__MIN(m, qc); i++) q[i * qc + i] = 1;
    for (int64_t j = k - 1; j >= 0; j--) /* q = H_j q, columns j.. only */
        ct__la_reflect(a + j * n + j, n, m - j, tau[j], q + j * qc + j, qc, qc - j);
}

/* ---------------------------------------------------------------- symmetric eigen */

/* Eigenvalues w[n] (ascending) and eigenvectors v (n, n) (columns, unit
 * norm) of the symmetric a (n, n) (both triangles read: fill them first),
 * by cyclic Jacobi rotations; a is destroyed. With LAPACK, syevd as
 * PyTorch calls it: on the triangle upper or lower of a, in single
 * precision for float32 input (single), and without vectors (v then
 * unspecified) unless vectors. */
static void ct__eigh(double *a, int64_t n, bool upper, bool vectors, bool single, double *w, double *v)
{
    if (CT__LAPACK(ct__lapack_eigh(a, n, upper, vectors, single, w, v))) return;
    (void)upper, (void)vectors, (void)single;
    ct__la_eye(v, n);
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0, diag = 0;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++)
                if (i != j) off += a[i * n + j] * a[i * n + j];
                else diag += a[i * n + j] * a[i * n + j];
        if (off <= CT__LA_EPS * CT__LA_EPS * 1e-4 * diag || off == 0) break;
        for (int64_t p = 0; p < n - 1; p++)
            for (int64_t q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (apq == 0) continue;
                double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
                double t = copysign(1.0, theta) / (fabs(theta) + sqrt(theta * theta + 1));
                if (!isfinite(theta * theta)) t = 0.5 / theta; /* tiny apq: t ~ 1/(2 theta) */
                double c = 1 / sqrt(t * t + 1), sn = t * c, tau = sn / (1 + c);
                /* the rotation in the form that loses least (Numerical Recipes' jacobi) */
                a[p * n + p] -= t * apq;
                a[q * n + q] += t * apq;
                a[p * n + q] = a[q * n + p] = 0;
                for (int64_t r = 0; r < n; r++) {
                    if (r != p && r != q) {
                        double arp = a[r * n + p], arq = a[r * n + q];
                        a[r * n + p] = a[p * n + r] = arp - sn * (arq + tau * arp);
                        a[r * n + q] = a[q * n + r] = arq + sn * (arp - tau * arq);
                    }
                    double vrp = v[r * n + p], vrq = v[r * n + q];
                    v[r * n + p] = vrp - sn * (vrq + tau * vrp);
                    v[r * n + q] = vrq + sn * (vrp - tau * vrq);
                }
            }
    }
    for (int64_t i = 0; i < n; i++) w[i] = a[i * n + i];
    for (int64_t i = 1; i < n; i++) /* insertion sort, ascending, columns along */
        for (int64_t j = i; j > 0 && w[j - 1] > w[j]; j--) {
            double t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
            ct__la_swap_cols(v, n, n, j, j - 1);
        }
}

/* ---------------------------------------------------------------- SVD */

/* Columns j.. of u (m, c) made orthonormal to columns 0..j-1 and to each
 * other, where a column is zero it is replaced by the first unit vector that
 * is not in the span so far (Gram-Schmidt, twice for accuracy). */
static void ct__complete_basis(double *u, int64_t m, int64_t c, int64_t j)
{
    int64_t e = 0;
    for (; j < c; j++) {
        for (int tries = 0;; tries++) {
            double nrm0 = 0;
            for (int64_t i = 0; i < m; i++) nrm0 = hypot(nrm0, u[i * c + j]);
            for (int pass = 0; pass < 2; pass++)
                for (int64_t p = 0; p < j; p++) {
                    double d = 0;
                    for (int64_t i = 0; i < m; i++) d += u[i * c + p] * u[i * c + j];
                    for (int64_t i = 0; i < m; i++) u[i * c + j] -= d * u[i * c + p];
                }
            double nrm = 0;
            for (int64_t i = 0; i < m; i++) nrm = hypot(nrm, u[i * c + j]);
            if (nrm > 1e-8 * (nrm0 > 0 ? nrm0 : 1) && nrm > 0 && (tries || nrm0 > 0)) {
                for (int64_t i = 0; i < m; i++) u[i * c + j] /= nrm;
                break;
            }
            for (int64_t i = 0; i < m; i++) u[i * c + j] = i == e ? 1 : 0;
            e++;
        }
    }
}

/* Thin SVD of a (m, n), m >= n, by one-sided Jacobi: s[n] descending,
 * u (m, uc) with uc >= n columns (the first n: a v / s; the rest complete an
 * orthonormal basis), v (n, n). a is destroyed. */
static void ct__svd_tall(double *a, int64_t m, int64_t n, double *s, double *u, int64_t uc, double *v)
{
    ct__la_eye(v, n);
    for (int sweep = 0; sweep < 100; sweep++) {
        bool rotated = false;
        for (int64_t p = 0; p < n - 1; p++)
            for (int64_t q = p + 1; q < n; q++) {
                double alpha = 0, beta = 0, gamma = 0;
                for (int64_t i = 0; i < m; i++) {
                    alpha += a[i * n + p] * a[i * n + p];
                    beta += a[i * n + q] * a[i * n + q];
                    gamma += a[i * n + p] * a[i * n + q];
                }
                if (gamma == 0 || fabs(gamma) <= 1e-15 * sqrt(alpha * beta)) continue;
                rotated = true;
                double zeta = (beta - alpha) / (2 * gamma);
                double t = copysign(1.0, zeta) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double c = 1 / sqrt(1 + t * t), sn = c * t;
                for (int64_t i = 0; i < m; i++) {
                    double x = a[i * n + p], y = a[i * n + q];
                    a[i * n + p] = c * x - sn * y;
                    a[i * n + q] = sn * x + c * y;
                }
                for (int64_t i = 0; i < n; i++) {
                    double x = v[i * n + p], y = v[i * n + q];
                    v[i * n + p] = c * x - sn * y;
                    v[i * n + q] = sn * x + c * y;
                }
            }
        if (!rotated) break;
    }
    for (int64_t j = 0; j < n; j++) {
        double nrm = 0;
        for (int64_t i = 0; i < m; i++) nrm = hypot(nrm, a[i * n + j]);
        s[j] = nrm;
    }
    for (int64_t i = 1; i < n; i++) /* descending, with the columns of a and v */
        for (int64_t j = i; j > 0 && s[j - 1] < s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
            ct__la_swap_cols(a, m, n, j, j - 1);
            ct__la_swap_cols(v, n, n, j, j - 1);
        }
    double tiny = (n > 0 && s[0] > 0 ? s[0] : 1) * CT__LA_EPS * (double)m;
    int64_t r = 0; /* columns with a reliable direction */
    while (r < n && s[r] > tiny) r++;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < uc; j++) u[i * uc + j] = j < r ? a[i * n + j] / s[j] : 0;
    ct__complete_basis(u, m, uc, r);
}

/* SVD of a (m, n): s[k] descending (k = min(m, n)), u (m, uc), vt (vr, n)
 * with uc, vr = k (thin) or m, n (full). scratch: m*n + n*n + m*m doubles.
 * With LAPACK, gesdd as PyTorch calls it: in single precision for float32
 * input (single), and with jobz 'N' (u and vt then unspecified) unless
 * vectors. */
static void ct__svd(const double *a, int64_t m, int64_t n, bool vectors, bool single, double *s, double *u, int64_t uc,
                    double *vt, int64_t vr, double *scratch)
{
    if (CT__LAPACK(ct__lapack_svd(a, m, n, vectors, single, s, u, uc, vt, vr))) return;
    (void)vectors, (void)single;
    double *w = scratch;
    if (m >= n) { /* a = U S V^T */
        double *v = w + m * n;
        memcpy(w, a, (size_t)(m * n) * sizeof *w);
        ct__svd_tall(w, m, n, s, u, uc, v);
        for (int64_t i = 0; i < n; i++) /* vr == n */
            for (int64_t j = 0; j < n; j++) vt[i * n + j] = v[j * n + i];
    } else { /* a^T = V S U^T */
        double *uu = w + m * n, *vv = uu + m * m;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) w[j * m + i] = a[i * n + j];
        ct__svd_tall(w, n, m, s, vv, vr, uu); /* vv (n, vr), uu (m, m) */
        for (int64_t i = 0; i < vr; i++)
            for (int64_t j = 0; j < n; j++) vt[i * n + j] = vv[j * vr + i];
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < uc; j++) u[i * uc + j] = uu[i * m + j];
    }
}

/* ---------------------------------------------------------------- general eigen */

/* The general eigen decomposition is LAPACK's dgeev (jobvl 'N', jobvr 'V',
 * or 'N' for eigenvalues alone), the routine PyTorch 1.13 calls, followed
 * step by step as in LAPACK 3.10 (the copy OpenBLAS 0.3.21 carries):
 * scaling of an extreme A (dlascl), balancing by permutation and scaling
 * (dgebal 'B'), Householder reduction to Hessenberg form (dgehd2, which is
 * dgehrd below its crossover of 128), the orthogonal factor (dorghr by
 * dorg2r), the Schur form by the double-shift QR iteration (dhseqr by
 * dlahqr, its 2 by 2 blocks standardized by dlanv2), the eigenvectors of
 * the Schur form transformed back (dtrevc3, its one-vector-at-a-time
 * variant, with dlaln2 and dladiv), the balancing undone (dgebak) and
 * dgeev's normalization (unit 2-norm; a complex pair rotated by dlartg so
 * that its largest component is real). So the eigenvalues come in LAPACK's
 * order, which depends on the matrix and not on the last bits of its
 * arithmetic, and the vectors with LAPACK's phases; the values agree to
 * rounding (the sums run in reference BLAS order, where OpenBLAS's kernels
 * have their own). Where LAPACK changes algorithm, this code does not: for
 * n > 75 dhseqr calls dlaqr0 (aggressive early deflation, multishift
 * sweeps) and for more than 128 active rows dgehrd blocks its reduction,
 * and here dlahqr and dgehd2 carry on; the eigenvalues agree to rounding
 * and their order as a rule, but can differ where dlaqr0 deflates in
 * another order. dhseqr's rescue of a failed dlahqr by dlaqr0 is not
 * done: that failure is reported. float32 input is decomposed in double
 * (PyTorch calls sgeev, in float). */

#define CT__EV_SAFMIN 2.2250738585072014e-308 /* dlamch('S') */
#define CT__EV_ULP CT__LA_EPS                  /* dlamch('P'): eps * base */
#define CT__EV_EPS 1.1102230246251565e-16      /* dlamch('E') */

/* dnrm2: the 2-norm of n entries of x at stride inc, scaled so that the
 * squares neither overflow nor underflow. */
static double ct__ev_nrm2(const double *x, int64_t n, int64_t inc)
{
    double scale = 0, ssq = 1;
    for (int64_t i = 0; i < n; i++) {
        double a = fabs(x[i * inc]);
        if (a == 0) continue;
        if (scale < a) {
            ssq = 1 + ssq * (scale / a) * (scale / a);
            scale = a;
        } else {
            ssq += (a / scale) * (a / scale);
        }
    }
    return scale * sqrt(ssq);
}

/* dlapy2: sqrt(x^2 + y^2) without needless overflow. */
static double ct__ev_lapy2(double x, double y)
{
    double xa = fabs(x), ya = fabs(y), w = CT__MAX(xa, ya), z = CT__MIN(xa, ya);
    if (z == 0 || w > 1.7976931348623157e308) return w;
    return w * sqrt(1 + (z / w) * (z / w));
}

/* idamax: the (0-based) index of the first entry of largest magnitude
 * among n at stride inc. */
static int64_t ct__ev_amax(const double *x, int64_t n, int64_t inc)
{
    int64_t best = 0;
    for (int64_t i = 1; i < n; i++)
        if (fabs(x[i * inc]) > fabs(x[best * inc])) best = i;
    return best;
}

/* dlascl on count entries: x * (cto / cfrom), in steps of the safe
 * minimum or its inverse where the ratio itself would over- or underflow. */
static void ct__ev_lascl(double cfrom, double cto, double *x, int64_t count)
{
    double smlnum = CT__EV_SAFMIN, bignum = 1 / smlnum;
    bool done = false;
    while (!done) {
        double cfrom1 = cfrom * smlnum, mul;
        if (cfrom1 == cfrom) { /* cfrom is infinite */
            mul = cto / cfrom;
            done = true;
        } else {
            double cto1 = cto / bignum;
            if (cto1 == cto) { /* cto is 0 or infinite */
                mul = cto;
                done = true;
                cfrom = 1;
            } else if (fabs(cfrom1) > fabs(cto) && cto != 0) {
                mul = smlnum;
                cfrom = cfrom1;
            } else if (fabs(cto1) > fabs(cfrom)) {
                mul = bignum;
                cto = cto1;
            } else {
                mul = cto / cfrom;
                done = true;
                if (mul == 1) return;
            }
        }
        for (int64_t i = 0; i < count; i++) x[i] *= mul;
    }
}

/* dlarfg: the reflector H = I - tau [1; v] [1; v]^T with H [alpha; x] =
 * [beta; 0], beta = -sign(alpha) * norm (x: n - 1 entries at stride inc,
 * overwritten by v; alpha by beta). Returns tau, 0 (H = I) when x is
 * zero. Unlike ct__la_reflector it rescales a tiny beta, as LAPACK does. */
static double ct__ev_larfg(int64_t n, double *alpha, double *x, int64_t inc)
{
    if (n <= 1) return 0;
    double xnorm = ct__ev_nrm2(x, n - 1, inc);
    if (xnorm == 0) return 0;
    double beta = -copysign(ct__ev_lapy2(*alpha, xnorm), *alpha);
    double safmin = CT__EV_SAFMIN / CT__EV_EPS, rsafmn = 1 / safmin;
    int knt = 0;
    if (fabs(beta) < safmin) { /* beta and xnorm may be inaccurate: scale x up and recompute them */
        do {
            knt++;
            for (int64_t i = 0; i < n - 1; i++) x[i * inc] *= rsafmn;
            beta *= rsafmn;
            *alpha *= rsafmn;
        } while (fabs(beta) < safmin && knt < 20);
        xnorm = ct__ev_nrm2(x, n - 1, inc);
        beta = -copysign(ct__ev_lapy2(*alpha, xnorm), *alpha);
    }
    double tau = (beta - *alpha) / beta, scal = 1 / (*alpha - beta);
    for (int64_t i = 0; i < n - 1; i++) x[i * inc] *= scal;
    for (int j = 0; j < knt; j++) beta *= safmin;
    *alpha = beta;
    return tau;
}

/* dlarf: c (m, nc) at row stride ldc becomes H c (left) or c H, H = I -
 * tau v v^T (v: m or nc entries at stride incv, its first one included).
 * The sums w = c^T v or c v run in dgemv's order and the update is dger's,
 * c += v (-tau w)^T. work: nc (left) or m doubles. */
static void ct__ev_larf(bool left, int64_t m, int64_t nc, const double *v, int64_t incv, double tau, double *c,
                        int64_t ldc, double *work)
{
    if (tau == 0) return;
    if (left) {
        for (int64_t j = 0; j < nc; j++) work[j] = 0;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < nc; j++) work[j] += c[i * ldc + j] * v[i * incv];
        for (int64_t j = 0; j < nc; j++) work[j] *= -tau;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < nc; j++) c[i * ldc + j] += v[i * incv] * work[j];
    } else {
        for (int64_t i = 0; i < m; i++) {
            double s = 0;
            for (int64_t j = 0; j < nc; j++) s += c[i * ldc + j] * v[j * incv];
            work[i] = s;
        }
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < nc; j++) c[i * ldc + j] += work[i] * (-tau * v[j * incv]);
    }
}

/* drot: (x, y) = (c x + s y, c y - s x) on n pairs at strides incx, incy. */
static void ct__ev_rot(int64_t n, double *x, int64_t incx, double *y, int64_t incy, double c, double s)
{
    for (int64_t i = 0; i < n; i++) {
        double t = c * x[i * incx] + s * y[i * incy];
        y[i * incy] = c * y[i * incy] - s * x[i * incx];
        x[i * incx] = t;
    }
}

/* dswap: n entries of x and y (strides incx, incy) exchanged. */
static void ct__ev_swap(int64_t n, double *x, int64_t incx, double *y, int64_t incy)
{
    for (int64_t i = 0; i < n; i++) {
        double t = x[i * incx];
        x[i * incx] = y[i * incy];
        y[i * incy] = t;
    }
}

/* dlartg (LAPACK 3.10's dlartg.f90, which OpenBLAS 0.3.21 carries): the
 * rotation [c s; -s c] that takes (f, g) to (r, 0), c >= 0 and r of f's
 * sign. */
static void ct__ev_lartg(double f, double g, double *c, double *s)
{
    double safmin = CT__EV_SAFMIN, safmax = 1 / safmin, rtmin = sqrt(safmin), rtmax = sqrt(safmax / 2);
    double f1 = fabs(f), g1 = fabs(g);
    if (g == 0) {
        *c = 1;
        *s = 0;
    } else if (f == 0) {
        *c = 0;
        *s = copysign(1.0, g);
    } else if (f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax) {
        double d = sqrt(f * f + g * g);
        *c = f1 / d;
        *s = g / copysign(d, f);
    } else { /* scaled by u against over- and underflow */
        double u = CT__MIN(safmax, CT__MAX(safmin, CT__MAX(f1, g1)));
        double fs = f / u, gs = g / u, d = sqrt(fs * fs + gs * gs);
        *c = fabs(fs) / d;
        *s = gs / copysign(d, f);
    }
}

#define CT__EV_A(i, j) a[((i) - 1) * n + ((j) - 1)] /* 1-based, as LAPACK (row-major storage) */

/* dgebal('B'): a (n, n) permuted to isolate eigenvalues, rows and columns
 * ilo ... ihi (1-based) left coupled and scaled by powers of 2 so that
 * their row and column norms are close. scale[j - 1]: the index row j was
 * swapped with (j outside ilo ... ihi) or its scale factor. */
static void ct__ev_gebal(double *a, int64_t n, int64_t *ilo, int64_t *ihi, double *scale)
{
    int64_t k = 1, l = n;
    for (bool found = n > 0; found && l >= 1;) { /* a row with zeros off the diagonal goes to the bottom */
        found = false;
        for (int64_t j = l; j >= 1 && !found; j--) {
            bool zero = true;
            for (int64_t i = 1; i <= l && zero; i++) zero = i == j || CT__EV_A(j, i) == 0;
            if (!zero) continue;
            found = true;
            scale[l - 1] = (double)j;
            if (j != l) {
                ct__ev_swap(l, &CT__EV_A(1, j), n, &CT__EV_A(1, l), n);
                ct__ev_swap(n - k + 1, &CT__EV_A(j, k), 1, &CT__EV_A(l, k), 1);
            }
            if (l == 1) { /* all of a is triangular: nothing is left to scale */
                *ilo = *ihi = 1;
                return;
            }
            l--;
        }
    }
    for (bool found = n > 0; found;) { /* a column with zeros off the diagonal goes to the left */
        found = false;
        for (int64_t j = k; j <= l && !found; j++) {
            bool zero = true;
            for (int64_t i = k; i <= l && zero; i++) zero = i == j || CT__EV_A(i, j) == 0;
            if (!zero) continue;
            found = true;
            scale[k - 1] = (double)j;
            if (j != k) {
                ct__ev_swap(l, &CT__EV_A(1, j), n, &CT__EV_A(1, k), n);
                ct__ev_swap(n - k + 1, &CT__EV_A(j, k), 1, &CT__EV_A(k, k), 1);
            }
            k++;
        }
    }
    for (int64_t i = k; i <= l; i++) scale[i - 1] = 1;
    double sfmin1 = CT__EV_SAFMIN / CT__EV_ULP, sfmax1 = 1 / sfmin1, sfmin2 = sfmin1 * 2, sfmax2 = 1 / sfmin2;
    for (bool noconv = true; noconv;) {
        noconv = false;
        for (int64_t i = k; i <= l; i++) {
            double c = ct__ev_nrm2(&CT__EV_A(k, i), l - k + 1, n), r = ct__ev_nrm2(&CT__EV_A(i, k), l - k + 1, 1);
            double ca = fabs(CT__EV_A(1 + ct__ev_amax(&CT__EV_A(1, i), l, n), i));
            double ra = fabs(CT__EV_A(i, k + ct__ev_amax(&CT__EV_A(i, k), n - k + 1, 1)));
            if (c == 0 || r == 0) continue; /* guards against zero c or r from underflow */
            double g = r / 2, f = 1, s = c + r;
            while (c < g && CT__MAX(f, CT__MAX(c, ca)) < sfmax2 && CT__MIN(r, CT__MIN(g, ra)) > sfmin2) {
                if (isnan(c + f + ca + r + g + ra)) return; /* LAPACK's exit from an endless loop */
                f *= 2, c *= 2, ca *= 2, r /= 2, g /= 2, ra /= 2;
            }
            g = c / 2;
            while (g >= r && CT__MAX(r, ra) < sfmax2 && CT__MIN(CT__MIN(f, c), CT__MIN(g, ca)) > sfmin2)
                f /= 2, c /= 2, g /= 2, ca /= 2, r *= 2, ra *= 2;
            if (c + r >= 0.95 * s) continue; /* not worth it */
            if (f < 1 && scale[i - 1] < 1 && f * scale[i - 1] <= sfmin1) continue;
            if (f > 1 && scale[i - 1] > 1 && scale[i - 1] >= sfmax1 / f) continue;
            g = 1 / f;
            scale[i - 1] *= f;
            noconv = true;
            for (int64_t j = k; j <= n; j++) CT__EV_A(i, j) *= g;
            for (int64_t j = 1; j <= l; j++) CT__EV_A(j, i) *= f;
        }
    }
    *ilo = k;
    *ihi = l;
}

/* dgehd2: rows and columns ilo ... ihi of a (n, n) reduced to upper
 * Hessenberg form by reflectors H(i) = I - tau[i - 1] v v^T, v = [1; the
 * entries below a(i + 1, i)], which stay there. work: n doubles. */
static void ct__ev_gehd2(double *a, int64_t n, int64_t ilo, int64_t ihi, double *tau, double *work)
{
    for (int64_t i = ilo; i < ihi; i++) {
        tau[i - 1] = ct__ev_larfg(ihi - i, &CT__EV_A(i + 1, i), &CT__EV_A(CT__MIN(i + 2, n), i), n);
        double aii = CT__EV_A(i + 1, i);
        CT__EV_A(i + 1, i) = 1;
        ct__ev_larf(false, ihi, ihi - i, &CT__EV_A(i + 1, i), n, tau[i - 1], &CT__EV_A(1, i + 1), n, work);
        ct__ev_larf(true, ihi - i, n - i, &CT__EV_A(i + 1, i), n, tau[i - 1], &CT__EV_A(i + 1, i + 1), n, work);
        CT__EV_A(i + 1, i) = aii;
    }
}

#undef CT__EV_A
#define CT__EV_H(i, j) h[((i) - 1) * n + ((j) - 1)]
#define CT__EV_Z(i, j) z[((i) - 1) * n + ((j) - 1)]

/* dorghr: z (n, n) = H(ilo) H(ilo + 1) ... H(ihi - 1), the reflectors
 * ct__ev_gehd2 left in h: each shifted one column right, the identity
 * outside rows and columns ilo + 1 ... ihi, and dorg2r within. work: n
 * doubles. */
static void ct__ev_orghr(const double *h, int64_t n, int64_t ilo, int64_t ihi, const double *tau, double *z,
                         double *work)
{
    for (int64_t i = 0; i < n * n; i++) z[i] = 0;
    for (int64_t j = ilo + 1; j <= ihi; j++)
        for (int64_t i = j + 1; i <= ihi; i++) CT__EV_Z(i, j) = CT__EV_H(i, j - 1);
    for (int64_t j = 1; j <= n; j++)
        if (j <= ilo || j > ihi) CT__EV_Z(j, j) = 1;
    int64_t nh = ihi - ilo;
#define CT__EV_Q(i, j) CT__EV_Z(ilo + (i), ilo + (j))
    for (int64_t i = nh; i >= 1; i--) { /* dorg2r: each reflector applied to the columns already formed */
        double t = tau[ilo + i - 2];
        if (i < nh) {
            CT__EV_Q(i, i) = 1;
            ct__ev_larf(true, nh - i + 1, nh - i, &CT__EV_Q(i, i), n, t, &CT__EV_Q(i, i + 1), n, work);
            for (int64_t l = i + 1; l <= nh; l++) CT__EV_Q(l, i) *= -t;
        }
        CT__EV_Q(i, i) = 1 - t;
        for (int64_t l = 1; l < i; l++) CT__EV_Q(l, i) = 0;
    }
#undef CT__EV_Q
}

/* dlanv2: the Schur factorization of the real 2 by 2 [a b; c d] =
 * [cs -sn; sn cs] [aa bb; cc dd] [cs sn; -sn cs], in place: either cc = 0
 * (real eigenvalues, the larger in magnitude first where it can be) or aa
 * = dd and bb cc < 0 (a complex pair, positive imaginary part first). */
static void ct__ev_lanv2(double *a, double *b, double *c, double *d, double *rt1r, double *rt1i, double *rt2r,
                         double *rt2i, double *cs, double *sn)
{
    /* safmn2 = 2^-485, base^int(log_base(safmin / eps) / 2), and its inverse */
    const double multpl = 4, safmn2 = 1.0010415475915505e-146, safmx2 = 9.989595361011175e+145;
    if (*c == 0) {
        *cs = 1;
        *sn = 0;
    } else if (*b == 0) { /* swap rows and columns */
        *cs = 0;
        *sn = 1;
        double temp = *d;
        *d = *a;
        *a = temp;
        *b = -*c;
        *c = 0;
    } else if (*a - *d == 0 && (*b > 0) != (*c > 0)) {
        *cs = 1;
        *sn = 0;
    } else {
        double temp = *a - *d, p = 0.5 * temp, bcmax = CT__MAX(fabs(*b), fabs(*c));
        double bcmis = CT__MIN(fabs(*b), fabs(*c)) * copysign(1.0, *b) * copysign(1.0, *c);
        double scale = CT__MAX(fabs(p), bcmax), z = (p / scale) * p + (bcmax / scale) * bcmis;
        if (z >= multpl * CT__EV_ULP) { /* real eigenvalues: compute a and d */
            z = p + copysign(sqrt(scale) * sqrt(z), p);
            *a = *d + z;
            *d -= (bcmax / z) * bcmis;
            double tau = ct__ev_lapy2(*c, z);
            *cs = z / tau;
            *sn = *c / tau;
            *b -= *c;
            *c = 0;
        } else { /* complex or nearly equal real eigenvalues: make the diagonal entries equal */
            double sigma = *b + *c;
            for (int count = 1;; count++) {
                scale = CT__MAX(fabs(temp), fabs(sigma));
                if (scale >= safmx2) {
                    sigma *= safmn2;
                    temp *= safmn2;
                    if (count <= 20) continue;
                }
                if (scale <= safmn2) {
                    sigma *= safmx2;
                    temp *= safmx2;
                    if (count <= 20) continue;
                }
                break;
            }
            p = 0.5 * temp;
            double tau = ct__ev_lapy2(sigma, temp);
            *cs = sqrt(0.5 * (1 + fabs(sigma) / tau));
            *sn = -(p / (tau * *cs)) * copysign(1.0, sigma);
            /* [aa bb; cc dd] = [a b; c d] [cs -sn; sn cs], then [a b; c d] = [cs sn; -sn cs] [aa bb; cc dd] */
            double aa = *a * *cs + *b * *sn, bb = -*a * *sn + *b * *cs;
            double cc = *c * *cs + *d * *sn, dd = -*c * *sn + *d * *cs;
            *a = aa * *cs + cc * *sn;
            *b = bb * *cs + dd * *sn;
            *c = -aa * *sn + cc * *cs;
            *d = -bb * *sn + dd * *cs;
            temp = 0.5 * (*a + *d);
            *a = *d = temp;
            if (*c != 0) {
                if (*b != 0) {
                    if ((*b > 0) == (*c > 0)) { /* real eigenvalues: reduce to upper triangular form */
                        double sab = sqrt(fabs(*b)), sac = sqrt(fabs(*c));
                        p = copysign(sab * sac, *c);
                        tau = 1 / sqrt(fabs(*b + *c));
                        *a = temp + p;
                        *d = temp - p;
                        *b -= *c;
                        *c = 0;
                        double cs1 = sab * tau, sn1 = sac * tau;
                        temp = *cs * cs1 - *sn * sn1;
                        *sn = *cs * sn1 + *sn * cs1;
                        *cs = temp;
                    }
                } else {
                    *b = -*c;
                    *c = 0;
                    temp = *cs;
                    *cs = -*sn;
                    *sn = temp;
                }
            }
        }
    }
    *rt1r = *a;
    *rt2r = *d;
    if (*c == 0) {
        *rt1i = *rt2i = 0;
    } else {
        *rt1i = sqrt(fabs(*b)) * sqrt(fabs(*c));
        *rt2i = -*rt1i;
    }
}

/* dlahqr (LAPACK 3.10's): the eigenvalues wr + i wi of rows and columns
 * ilo ... ihi of the upper Hessenberg h (n, n) by the double-shift QR
 * iteration, deflating at the bottom, with the Ahues-Tisseur small
 * subdiagonal test and exceptional shifts after 10 and 20 sweeps without a
 * deflation. wantt: h becomes the Schur form T (all of it is updated),
 * else only the active block; wantz: the transformations accumulate into
 * rows iloz ... ihiz of z. Returns 0, or the row i (1-based) whose
 * eigenvalues did not converge in 30 max(10, ihi - ilo + 1) sweeps. */
static int64_t ct__ev_lahqr(bool wantt, bool wantz, double *h, int64_t n, int64_t ilo, int64_t ihi, double *wr,
                            double *wi, int64_t iloz, int64_t ihiz, double *z)
{
    const double dat1 = 0.75, dat2 = -0.4375;
    const int kexsh = 10;
    if (n == 0) return 0;
    if (ilo == ihi) {
        wr[ilo - 1] = CT__EV_H(ilo, ilo);
        wi[ilo - 1] = 0;
        return 0;
    }
    for (int64_t j = ilo; j <= ihi - 3; j++) CT__EV_H(j + 2, j) = CT__EV_H(j + 3, j) = 0; /* clear out the trash */
    if (ilo <= ihi - 2) CT__EV_H(ihi, ihi - 2) = 0;
    int64_t nh = ihi - ilo + 1, nz = ihiz - iloz + 1, itmax = 30 * CT__MAX(10, nh), i1 = 1, i2 = n;
    double ulp = CT__EV_ULP, smlnum = CT__EV_SAFMIN * ((double)nh / ulp);
    int64_t kdefl = 0; /* sweeps since the last deflation */
    for (int64_t i = ihi; i >= ilo;) {
        /* QR sweeps on rows and columns l ... i until a 1 by 1 or 2 by 2 block splits off at the bottom */
        int64_t l = ilo;
        bool split = false;
        for (int64_t its = 0; its <= itmax && !split; its++) {
            int64_t k;
            for (k = i; k > l; k--) { /* a single small subdiagonal entry */
                if (fabs(CT__EV_H(k, k - 1)) <= smlnum) break;
                double tst = fabs(CT__EV_H(k - 1, k - 1)) + fabs(CT__EV_H(k, k));
                if (tst == 0) {
                    if (k - 2 >= ilo) tst += fabs(CT__EV_H(k - 1, k - 2));
                    if (k + 1 <= ihi) tst += fabs(CT__EV_H(k + 1, k));
                }
                if (fabs(CT__EV_H(k, k - 1)) <= ulp * tst) { /* Ahues & Tisseur's conservative test */
                    double hkk1 = fabs(CT__EV_H(k, k - 1)), hk1k = fabs(CT__EV_H(k - 1, k));
                    double hkk = fabs(CT__EV_H(k, k)), dif = fabs(CT__EV_H(k - 1, k - 1) - CT__EV_H(k, k));
                    double ab = CT__MAX(hkk1, hk1k), ba = CT__MIN(hkk1, hk1k);
                    double aa = CT__MAX(hkk, dif), bb = CT__MIN(hkk, dif), s = aa + ab;
                    if (ba * (ab / s) <= CT__MAX(smlnum, ulp * (bb * (aa / s)))) break;
                }
            }
            l = k;
            if (l > ilo) CT__EV_H(l, l - 1) = 0; /* negligible */
            if (l >= i - 1) {
                split = true;
                break;
            }
            kdefl++;
            if (!wantt) { /* the active block alone */
                i1 = l;
                i2 = i;
            }
            double h11, h12, h21, h22, s;
            if (kdefl % (2 * kexsh) == 0) { /* exceptional shift */
                s = fabs(CT__EV_H(i, i - 1)) + fabs(CT__EV_H(i - 1, i - 2));
                h11 = dat1 * s + CT__EV_H(i, i);
                h12 = dat2 * s;
                h21 = s;
                h22 = h11;
            } else if (kdefl % kexsh == 0) { /* exceptional shift */
                s = fabs(CT__EV_H(l + 1, l)) + fabs(CT__EV_H(l + 2, l + 1));
                h11 = dat1 * s + CT__EV_H(l, l);
                h12 = dat2 * s;
                h21 = s;
                h22 = h11;
            } else { /* Francis' double shift: the eigenvalues of the trailing 2 by 2 */
                h11 = CT__EV_H(i - 1, i - 1);
                h21 = CT__EV_H(i, i - 1);
                h12 = CT__EV_H(i - 1, i);
                h22 = CT__EV_H(i, i);
            }
            double rt1r = 0, rt1i = 0, rt2r = 0, rt2i = 0;
            s = fabs(h11) + fabs(h12) + fabs(h21) + fabs(h22);
            if (s != 0) {
                h11 /= s;
                h21 /= s;
                h12 /= s;
                h22 /= s;
                double tr = (h11 + h22) / 2, det = (h11 - tr) * (h22 - tr) - h12 * h21, rtdisc = sqrt(fabs(det));
                if (det >= 0) { /* complex conjugate shifts */
                    rt1r = rt2r = tr * s;
                    rt1i = rtdisc * s;
                    rt2i = -rt1i;
                } else { /* real shifts: the one nearer h22, twice */
                    rt1r = tr + rtdisc;
                    rt2r = tr - rtdisc;
                    if (fabs(rt1r - h22) <= fabs(rt2r - h22))
                        rt2r = rt1r = rt1r * s;
                    else
                        rt1r = rt2r = rt2r * s;
                }
            }
            double v[3];
            int64_t m;
            for (m = i - 2; m >= l; m--) { /* two consecutive small subdiagonal entries: start the sweep at m */
                double h21s = CT__EV_H(m + 1, m);
                s = fabs(CT__EV_H(m, m) - rt2r) + fabs(rt2i) + fabs(h21s);
                h21s = CT__EV_H(m + 1, m) / s;
                v[0] = h21s * CT__EV_H(m, m + 1) + (CT__EV_H(m, m) - rt1r) * ((CT__EV_H(m, m) - rt2r) / s) -
                       rt1i * (rt2i / s);
                v[1] = h21s * (CT__EV_H(m, m) + CT__EV_H(m + 1, m + 1) - rt1r - rt2r);
                v[2] = h21s * CT__EV_H(m + 2, m + 1);
                s = fabs(v[0]) + fabs(v[1]) + fabs(v[2]);
                v[0] /= s;
                v[1] /= s;
                v[2] /= s;
                if (m == l) break;
                double h00 = fabs(CT__EV_H(m - 1, m - 1)) + fabs(CT__EV_H(m, m)) + fabs(CT__EV_H(m + 1, m + 1));
                if (fabs(CT__EV_H(m, m - 1)) * (fabs(v[1]) + fabs(v[2])) <= ulp * fabs(v[0]) * h00) break;
            }
            for (k = m; k <= i - 1; k++) { /* the double-shift sweep: a bulge chased down by reflectors */
                int64_t nr = CT__MIN(3, i - k + 1);
                if (k > m)
                    for (int64_t r = 0; r < nr; r++) v[r] = CT__EV_H(k + r, k - 1);
                double t1 = ct__ev_larfg(nr, &v[0], &v[1], 1);
                if (k > m) {
                    CT__EV_H(k, k - 1) = v[0];
                    CT__EV_H(k + 1, k - 1) = 0;
                    if (k < i - 1) CT__EV_H(k + 2, k - 1) = 0;
                } else if (m > l) {
                    CT__EV_H(k, k - 1) *= 1 - t1; /* not -h(k, k - 1): v[1] and v[2] may have underflowed */
                }
                double v2 = v[1], t2 = t1 * v2;
                if (nr == 3) {
                    double v3 = v[2], t3 = t1 * v3;
                    for (int64_t j = k; j <= i2; j++) { /* from the left, columns k ... i2 */
                        double sum = CT__EV_H(k, j) + v2 * CT__EV_H(k + 1, j) + v3 * CT__EV_H(k + 2, j);
                        CT__EV_H(k, j) -= sum * t1;
                        CT__EV_H(k + 1, j) -= sum * t2;
                        CT__EV_H(k + 2, j) -= sum * t3;
                    }
                    for (int64_t j = i1; j <= CT__MIN(k + 3, i); j++) { /* from the right, rows i1 ... k + 3 */
                        double sum = CT__EV_H(j, k) + v2 * CT__EV_H(j, k + 1) + v3 * CT__EV_H(j, k + 2);
                        CT__EV_H(j, k) -= sum * t1;
                        CT__EV_H(j, k + 1) -= sum * t2;
                        CT__EV_H(j, k + 2) -= sum * t3;
                    }
                    for (int64_t j = iloz; wantz && j <= ihiz; j++) {
                        double sum = CT__EV_Z(j, k) + v2 * CT__EV_Z(j, k + 1) + v3 * CT__EV_Z(j, k + 2);
                        CT__EV_Z(j, k) -= sum * t1;
                        CT__EV_Z(j, k + 1) -= sum * t2;
                        CT__EV_Z(j, k + 2) -= sum * t3;
                    }
                } else if (nr == 2) {
                    for (int64_t j = k; j <= i2; j++) {
                        double sum = CT__EV_H(k, j) + v2 * CT__EV_H(k + 1, j);
                        CT__EV_H(k, j) -= sum * t1;
                        CT__EV_H(k + 1, j) -= sum * t2;
                    }
                    for (int64_t j = i1; j <= i; j++) {
                        double sum = CT__EV_H(j, k) + v2 * CT__EV_H(j, k + 1);
                        CT__EV_H(j, k) -= sum * t1;
                        CT__EV_H(j, k + 1) -= sum * t2;
                    }
                    for (int64_t j = iloz; wantz && j <= ihiz; j++) {
                        double sum = CT__EV_Z(j, k) + v2 * CT__EV_Z(j, k + 1);
                        CT__EV_Z(j, k) -= sum * t1;
                        CT__EV_Z(j, k + 1) -= sum * t2;
                    }
                }
            }
        }
        if (!split) return i;
        if (l == i) { /* one eigenvalue has converged */
            wr[i - 1] = CT__EV_H(i, i);
            wi[i - 1] = 0;
        } else if (l == i - 1) { /* a pair: the 2 by 2 block to standard form, its rotation applied */
            double cs, sn;
            ct__ev_lanv2(&CT__EV_H(i - 1, i - 1), &CT__EV_H(i - 1, i), &CT__EV_H(i, i - 1), &CT__EV_H(i, i),
                         &wr[i - 2], &wi[i - 2], &wr[i - 1], &wi[i - 1], &cs, &sn);
            if (wantt) {
                if (i2 > i) ct__ev_rot(i2 - i, &CT__EV_H(i - 1, i + 1), 1, &CT__EV_H(i, i + 1), 1, cs, sn);
                ct__ev_rot(i - i1 - 1, &CT__EV_H(i1, i - 1), n, &CT__EV_H(i1, i), n, cs, sn);
            }
            if (wantz) ct__ev_rot(nz, &CT__EV_Z(iloz, i - 1), n, &CT__EV_Z(iloz, i), n, cs, sn);
        }
        kdefl = 0;
        i = l - 1;
    }
    return 0;
}

/* dhseqr('S', 'V') (wantz) or ('E', 'N'): the eigenvalues of the upper
 * Hessenberg h (n, n), which ct__ev_gebal left triangular outside rows
 * and columns ilo ... ihi; with wantz, h becomes the Schur form T
 * (clean below its subdiagonal) and z (the Hessenberg reduction's Q)
 * Q times the Schur vectors. Returns dlahqr's 0 or failing row. */
static int64_t ct__ev_hseqr(bool wantz, double *h, int64_t n, int64_t ilo, int64_t ihi, double *wr, double *wi,
                            double *z)
{
    for (int64_t i = 1; i <= n; i++)
        if (i < ilo || i > ihi) { /* isolated by the balancing */
            wr[i - 1] = CT__EV_H(i, i);
            wi[i - 1] = 0;
        }
    if (ilo == ihi) {
        wr[ilo - 1] = CT__EV_H(ilo, ilo);
        wi[ilo - 1] = 0;
        return 0;
    }
    int64_t info = ct__ev_lahqr(wantz, wantz, h, n, ilo, ihi, wr, wi, ilo, ihi, z);
    for (int64_t j = 1; wantz && j + 2 <= n; j++)
        for (int64_t i = j + 2; i <= n; i++) CT__EV_H(i, j) = 0;
    return info;
}

/* dladiv: p + i q = (a + i b) / (c + i d), robustly (Baudin and Smith's
 * algorithm, with LAPACK's scalings). */
static double ct__ev_ladiv2(double a, double b, double c, double d, double r, double t)
{
    if (r == 0) return (a + d * (b / c)) * t;
    double br = b * r;
    return br != 0 ? (a + br) * t : a * t + (b * t) * r;
}

static void ct__ev_ladiv1(double a, double b, double c, double d, double *p, double *q)
{
    double r = d / c, t = 1 / (c + d * r);
    *p = ct__ev_ladiv2(a, b, c, d, r, t);
    *q = ct__ev_ladiv2(b, -a, c, d, r, t);
}

static void ct__ev_ladiv(double a, double b, double c, double d, double *p, double *q)
{
    double ab = CT__MAX(fabs(a), fabs(b)), cd = CT__MAX(fabs(c), fabs(d)), s = 1;
    double ov = 1.7976931348623157e308, un = CT__EV_SAFMIN, eps = CT__EV_EPS, bs = 2, be = bs / (eps * eps);
    if (ab >= 0.5 * ov) a *= 0.5, b *= 0.5, s *= 2;
    if (cd >= 0.5 * ov) c *= 0.5, d *= 0.5, s *= 0.5;
    if (ab <= un * bs / eps) a *= be, b *= be, s /= be;
    if (cd <= un * bs / eps) c *= be, d *= be, s *= be;
    if (fabs(d) <= fabs(c)) {
        ct__ev_ladiv1(a, b, c, d, p, q);
    } else {
        ct__ev_ladiv1(b, a, d, c, p, q);
        *q = -*q;
    }
    *p *= s;
    *q *= s;
}

/* dlaln2 as dtrevc3 calls it for right eigenvectors: x (na by nw, real
 * and imaginary columns) solves (A - (wr + i wi)) x = scale b for the na
 * by na (1 or 2) block A at t (row stride ldt), by complete pivoting, with
 * a pivot below smin replaced by it and scale <= 1 against overflow.
 * b[r][0], x[r][0]: real parts, b[r][1], x[r][1]: imaginary ones (nw 2). */
static void ct__ev_laln2(int na, int nw, double smin, const double *t, int64_t ldt, double b[2][2], double wr,
                         double wi, double x[2][2], double *scale, double *xnorm)
{
    static const bool zswap[4] = {false, false, true, true}, rswap[4] = {false, true, false, true};
    static const int ipivot[4][4] = {{0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0}}; /* [icmax][row] */
    double smlnum = 2 * CT__EV_SAFMIN, bignum = 1 / smlnum, smini = CT__MAX(smin, smlnum);
    *scale = 1;
    if (na == 1) {
        double csr = t[0] - wr, csi = -wi, cnorm = fabs(csr) + (nw == 2 ? fabs(csi) : 0);
        if (cnorm < smini) { /* use smini for c */
            csr = smini;
            csi = 0;
            cnorm = smini;
        }
        double bnorm = fabs(b[0][0]) + (nw == 2 ? fabs(b[0][1]) : 0);
        if (cnorm < 1 && bnorm > 1 && bnorm > bignum * cnorm) *scale = 1 / bnorm;
        if (nw == 1) {
            x[0][0] = (b[0][0] * *scale) / csr;
            *xnorm = fabs(x[0][0]);
        } else {
            ct__ev_ladiv(*scale * b[0][0], *scale * b[0][1], csr, csi, &x[0][0], &x[0][1]);
            *xnorm = fabs(x[0][0]) + fabs(x[0][1]);
        }
        return;
    }
    /* 2 by 2: c = A - w, column-major in crv (civ: its imaginary part) */
    double crv[4] = {t[0] - wr, t[ldt], t[1], t[ldt + 1] - wr}, civ[4] = {-wi, 0, 0, -wi};
    double cmax = 0;
    int icmax = -1;
    for (int j = 0; j < 4; j++) {
        double mag = fabs(crv[j]) + (nw == 2 ? fabs(civ[j]) : 0);
        if (mag > cmax) {
            cmax = mag;
            icmax = j;
        }
    }
    if (cmax < smini) { /* use smini times the identity */
        double bnorm = nw == 1 ? CT__MAX(fabs(b[0][0]), fabs(b[1][0]))
                               : CT__MAX(fabs(b[0][0]) + fabs(b[0][1]), fabs(b[1][0]) + fabs(b[1][1]));
        if (smini < 1 && bnorm > 1 && bnorm > bignum * smini) *scale = 1 / bnorm;
        double temp = *scale / smini;
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < nw; c++) x[r][c] = temp * b[r][c];
        *xnorm = temp * bnorm;
        return;
    }
    const int *piv = ipivot[icmax];
    double xr1, xr2, xi1 = 0, xi2 = 0;
    if (nw == 1) { /* Gaussian elimination with complete pivoting */
        double ur11 = crv[icmax], cr21 = crv[piv[1]], ur12 = crv[piv[2]], cr22 = crv[piv[3]];
        double ur11r = 1 / ur11, lr21 = ur11r * cr21, ur22 = cr22 - ur12 * lr21;
        if (fabs(ur22) < smini) ur22 = smini;
        double br1 = rswap[icmax] ? b[1][0] : b[0][0], br2 = rswap[icmax] ? b[0][0] : b[1][0];
        br2 -= lr21 * br1;
        double bbnd = CT__MAX(fabs(br1 * (ur22 * ur11r)), fabs(br2));
        if (bbnd > 1 && fabs(ur22) < 1 && bbnd >= bignum * fabs(ur22)) *scale = 1 / bbnd;
        xr2 = (br2 * *scale) / ur22;
        xr1 = (*scale * br1) * ur11r - xr2 * (ur11r * ur12);
        *xnorm = CT__MAX(fabs(xr1), fabs(xr2));
    } else {
        double ur11 = crv[icmax], ui11 = civ[icmax], cr21 = crv[piv[1]], ci21 = civ[piv[1]];
        double ur12 = crv[piv[2]], ui12 = civ[piv[2]], cr22 = crv[piv[3]], ci22 = civ[piv[3]];
        double ur11r, ui11r, lr21, li21, ur12s, ui12s, ur22, ui22;
        if (icmax == 0 || icmax == 3) { /* the pivoted c's off-diagonal entries are real */
            if (fabs(ur11) > fabs(ui11)) {
                double temp = ui11 / ur11;
                ur11r = 1 / (ur11 * (1 + temp * temp));
                ui11r = -temp * ur11r;
            } else {
                double temp = ur11 / ui11;
                ui11r = -1 / (ui11 * (1 + temp * temp));
                ur11r = -temp * ui11r;
            }
            lr21 = cr21 * ur11r;
            li21 = cr21 * ui11r;
            ur12s = ur12 * ur11r;
            ui12s = ur12 * ui11r;
            ur22 = cr22 - ur12 * lr21;
            ui22 = ci22 - ur12 * li21;
        } else { /* its diagonal entries are real */
            ur11r = 1 / ur11;
            ui11r = 0;
            lr21 = cr21 * ur11r;
            li21 = ci21 * ur11r;
            ur12s = ur12 * ur11r;
            ui12s = ui12 * ur11r;
            ur22 = cr22 - ur12 * lr21 + ui12 * li21;
            ui22 = -ur12 * li21 - ui12 * lr21;
        }
        double u22abs = fabs(ur22) + fabs(ui22);
        if (u22abs < smini) {
            ur22 = smini;
            ui22 = 0;
        }
        int r1 = rswap[icmax] ? 1 : 0, r2 = 1 - r1;
        double br1 = b[r1][0], br2 = b[r2][0], bi1 = b[r1][1], bi2 = b[r2][1];
        br2 = br2 - lr21 * br1 + li21 * bi1;
        bi2 = bi2 - li21 * br1 - lr21 * bi1;
        double bbnd = CT__MAX((fabs(br1) + fabs(bi1)) * (u22abs * (fabs(ur11r) + fabs(ui11r))), fabs(br2) + fabs(bi2));
        if (bbnd > 1 && u22abs < 1 && bbnd >= bignum * u22abs) {
            *scale = 1 / bbnd;
            br1 *= *scale;
            bi1 *= *scale;
            br2 *= *scale;
            bi2 *= *scale;
        }
        ct__ev_ladiv(br2, bi2, ur22, ui22, &xr2, &xi2);
        xr1 = ur11r * br1 - ui11r * bi1 - ur12s * xr2 + ui12s * xi2;
        xi1 = ui11r * br1 + ur11r * bi1 - ui12s * xr2 - ur12s * xi2;
        *xnorm = CT__MAX(fabs(xr1) + fabs(xi1), fabs(xr2) + fabs(xi2));
    }
    int s1 = zswap[icmax] ? 1 : 0;
    x[s1][0] = xr1;
    x[1 - s1][0] = xr2;
    if (nw == 2) {
        x[s1][1] = xi1;
        x[1 - s1][1] = xi2;
    }
    if (*xnorm > 1 && cmax > 1 && *xnorm > bignum / cmax) { /* further scaling if norm(A) norm(x) overflows */
        double temp = cmax / bignum;
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < nw; c++) x[r][c] *= temp;
        *xnorm *= temp;
        *scale *= temp;
    }
}

#undef CT__EV_H

#define CT__EV_T(i, j) t[((i) - 1) * n + ((j) - 1)]
#define CT__EV_VR(i, j) vr[((i) - 1) * n + ((j) - 1)]

/* dtrevc3('R', 'B') one vector at a time (its NB = 1 variant; dgeev's
 * workspace gives it the blocked back-transform, the same products summed
 * in another order): vr (n, n), the Schur vectors Z of the quasi-triangular
 * T = t (n, n), becomes the right eigenvectors Z x, each x solved from T
 * upwards by back substitution with 1 by 1 and 2 by 2 blocks (dlaln2),
 * scaled against overflow, and each result scaled to largest entry 1 (a
 * complex pair: largest |re| + |im| 1, real part in the first column,
 * imaginary in the second). work: 3 n doubles. */
static void ct__ev_trevc(const double *t, int64_t n, double *vr, double *work)
{
#define CT__EV_CN(j) work[(j) - 1]          /* the 1-norms of T's columns above the diagonal */
#define CT__EV_X1(j) work[n + (j) - 1]      /* a complex vector's real part */
#define CT__EV_X2(j) work[2 * n + (j) - 1]  /* a real vector, or a complex one's imaginary part */
    double ulp = CT__EV_ULP, smlnum = CT__EV_SAFMIN * ((double)n / ulp), bignum = (1 - ulp) / smlnum;
    CT__EV_CN(1) = 0;
    for (int64_t j = 2; j <= n; j++) {
        CT__EV_CN(j) = 0;
        for (int64_t i = 1; i < j; i++) CT__EV_CN(j) += fabs(CT__EV_T(i, j));
    }
    int ip = 0; /* 0: real eigenvalue, -1: the second of a pair (ki - 1 is the first), 1: the first, done */
    for (int64_t ki = n; ki >= 1; ki--) {
        if (ip == -1) {
            ip = 1;
            continue;
        }
        ip = ki > 1 && CT__EV_T(ki, ki - 1) != 0 ? -1 : 0;
        double wr = CT__EV_T(ki, ki), wi = 0, b[2][2], x[2][2], scale, xnorm;
        if (ip != 0) wi = sqrt(fabs(CT__EV_T(ki, ki - 1))) * sqrt(fabs(CT__EV_T(ki - 1, ki)));
        double smin = CT__MAX(ulp * (fabs(wr) + fabs(wi)), smlnum);
        if (ip == 0) { /* a real eigenvector: solve (T(1:ki-1, 1:ki-1) - wr) x = -scale T(1:ki-1, ki) */
            CT__EV_X2(ki) = 1;
            for (int64_t k = 1; k < ki; k++) CT__EV_X2(k) = -CT__EV_T(k, ki);
            for (int64_t j = ki - 1, jnxt = ki - 1; j >= 1; j--) {
                if (j > jnxt) continue;
                bool block = j > 1 && CT__EV_T(j, j - 1) != 0;
                jnxt = block ? j - 2 : j - 1;
                if (!block) {
                    b[0][0] = CT__EV_X2(j);
                    ct__ev_laln2(1, 1, smin, &CT__EV_T(j, j), n, b, wr, 0, x, &scale, &xnorm);
                    if (xnorm > 1 && CT__EV_CN(j) > bignum / xnorm) { /* against overflow in the update */
                        x[0][0] /= xnorm;
                        scale /= xnorm;
                    }
                    for (int64_t k = 1; scale != 1 && k <= ki; k++) CT__EV_X2(k) *= scale;
                    CT__EV_X2(j) = x[0][0];
                    for (int64_t k = 1; k < j; k++) CT__EV_X2(k) += -x[0][0] * CT__EV_T(k, j);
                } else {
                    b[0][0] = CT__EV_X2(j - 1);
                    b[1][0] = CT__EV_X2(j);
                    ct__ev_laln2(2, 1, smin, &CT__EV_T(j - 1, j - 1), n, b, wr, 0, x, &scale, &xnorm);
                    if (xnorm > 1 && CT__MAX(CT__EV_CN(j - 1), CT__EV_CN(j)) > bignum / xnorm) {
                        x[0][0] /= xnorm;
                        x[1][0] /= xnorm;
                        scale /= xnorm;
                    }
                    for (int64_t k = 1; scale != 1 && k <= ki; k++) CT__EV_X2(k) *= scale;
                    CT__EV_X2(j - 1) = x[0][0];
                    CT__EV_X2(j) = x[1][0];
                    for (int64_t k = 1; k < j - 1; k++) CT__EV_X2(k) += -x[0][0] * CT__EV_T(k, j - 1);
                    for (int64_t k = 1; k < j - 1; k++) CT__EV_X2(k) += -x[1][0] * CT__EV_T(k, j);
                }
            }
            /* back-transform (dgemv): column ki = x(ki) Z(:, ki) + Z(:, 1:ki-1) x(1:ki-1) */
            for (int64_t r = 1; ki > 1 && r <= n; r++) {
                double y = CT__EV_X2(ki) * CT__EV_VR(r, ki);
                for (int64_t j = 1; j < ki; j++) y += CT__EV_X2(j) * CT__EV_VR(r, j);
                CT__EV_VR(r, ki) = y;
            }
            double remax = 1 / fabs(CT__EV_VR(1 + ct__ev_amax(&CT__EV_VR(1, ki), n, n), ki));
            for (int64_t r = 1; r <= n; r++) CT__EV_VR(r, ki) *= remax;
        } else { /* a complex pair's vector, from the 2 by 2 block's own, then as above in complex arithmetic */
            if (fabs(CT__EV_T(ki - 1, ki)) >= fabs(CT__EV_T(ki, ki - 1))) {
                CT__EV_X1(ki - 1) = 1;
                CT__EV_X2(ki) = wi / CT__EV_T(ki - 1, ki);
            } else {
                CT__EV_X1(ki - 1) = -wi / CT__EV_T(ki, ki - 1);
                CT__EV_X2(ki) = 1;
            }
            CT__EV_X1(ki) = 0;
            CT__EV_X2(ki - 1) = 0;
            for (int64_t k = 1; k < ki - 1; k++) {
                CT__EV_X1(k) = -CT__EV_X1(ki - 1) * CT__EV_T(k, ki - 1);
                CT__EV_X2(k) = -CT__EV_X2(ki) * CT__EV_T(k, ki);
            }
            for (int64_t j = ki - 2, jnxt = ki - 2; j >= 1; j--) {
                if (j > jnxt) continue;
                bool block = j > 1 && CT__EV_T(j, j - 1) != 0;
                jnxt = block ? j - 2 : j - 1;
                if (!block) {
                    b[0][0] = CT__EV_X1(j);
                    b[0][1] = CT__EV_X2(j);
                    ct__ev_laln2(1, 2, smin, &CT__EV_T(j, j), n, b, wr, wi, x, &scale, &xnorm);
                    if (xnorm > 1 && CT__EV_CN(j) > bignum / xnorm) {
                        x[0][0] /= xnorm;
                        x[0][1] /= xnorm;
                        scale /= xnorm;
                    }
                    for (int64_t k = 1; scale != 1 && k <= ki; k++) {
                        CT__EV_X1(k) *= scale;
                        CT__EV_X2(k) *= scale;
                    }
                    CT__EV_X1(j) = x[0][0];
                    CT__EV_X2(j) = x[0][1];
                    for (int64_t k = 1; k < j; k++) CT__EV_X1(k) += -x[0][0] * CT__EV_T(k, j);
                    for (int64_t k = 1; k < j; k++) CT__EV_X2(k) += -x[0][1] * CT__EV_T(k, j);
                } else {
                    b[0][0] = CT__EV_X1(j - 1);
                    b[1][0] = CT__EV_X1(j);
                    b[0][1] = CT__EV_X2(j - 1);
                    b[1][1] = CT__EV_X2(j);
                    ct__ev_laln2(2, 2, smin, &CT__EV_T(j - 1, j - 1), n, b, wr, wi, x, &scale, &xnorm);
                    if (xnorm > 1 && CT__MAX(CT__EV_CN(j - 1), CT__EV_CN(j)) > bignum / xnorm) {
                        double rec = 1 / xnorm;
                        x[0][0] *= rec;
                        x[0][1] *= rec;
                        x[1][0] *= rec;
                        x[1][1] *= rec;
                        scale *= rec;
                    }
                    for (int64_t k = 1; scale != 1 && k <= ki; k++) {
                        CT__EV_X1(k) *= scale;
                        CT__EV_X2(k) *= scale;
                    }
                    CT__EV_X1(j - 1) = x[0][0];
                    CT__EV_X1(j) = x[1][0];
                    CT__EV_X2(j - 1) = x[0][1];
                    CT__EV_X2(j) = x[1][1];
                    for (int64_t k = 1; k < j - 1; k++) CT__EV_X1(k) += -x[0][0] * CT__EV_T(k, j - 1);
                    for (int64_t k = 1; k < j - 1; k++) CT__EV_X1(k) += -x[1][0] * CT__EV_T(k, j);
                    for (int64_t k = 1; k < j - 1; k++) CT__EV_X2(k) += -x[0][1] * CT__EV_T(k, j - 1);
                    for (int64_t k = 1; k < j - 1; k++) CT__EV_X2(k) += -x[1][1] * CT__EV_T(k, j);
                }
            }
            /* back-transform: columns ki - 1 (real part) and ki (imaginary part) */
            for (int64_t r = 1; r <= n; r++) {
                double yr = CT__EV_X1(ki - 1) * CT__EV_VR(r, ki - 1), yi = CT__EV_X2(ki) * CT__EV_VR(r, ki);
                for (int64_t j = 1; j < ki - 1; j++) {
                    yr += CT__EV_X1(j) * CT__EV_VR(r, j);
                    yi += CT__EV_X2(j) * CT__EV_VR(r, j);
                }
                CT__EV_VR(r, ki - 1) = yr;
                CT__EV_VR(r, ki) = yi;
            }
            double emax = 0;
            for (int64_t r = 1; r <= n; r++) emax = CT__MAX(emax, fabs(CT__EV_VR(r, ki - 1)) + fabs(CT__EV_VR(r, ki)));
            double remax = 1 / emax;
            for (int64_t r = 1; r <= n; r++) {
                CT__EV_VR(r, ki - 1) *= remax;
                CT__EV_VR(r, ki) *= remax;
            }
        }
    }
#undef CT__EV_CN
#undef CT__EV_X1
#undef CT__EV_X2
}

/* dgebak('B', 'R'): the balancing undone on the eigenvectors vr (n, n)
 * (rows are components): rows ilo ... ihi scaled back, then the
 * permutations' swaps undone. */
static void ct__ev_gebak(int64_t n, int64_t ilo, int64_t ihi, const double *scale, double *vr)
{
    for (int64_t i = ilo; ilo != ihi && i <= ihi; i++)
        for (int64_t j = 1; j <= n; j++) CT__EV_VR(i, j) *= scale[i - 1];
    for (int64_t ii = 1; ii <= n; ii++) {
        int64_t i = ii;
        if (i >= ilo && i <= ihi) continue;
        if (i < ilo) i = ilo - ii;
        int64_t k = (int64_t)scale[i - 1];
        if (k != i) ct__ev_swap(n, &CT__EV_VR(i, 1), 1, &CT__EV_VR(k, 1), 1);
    }
}

/* Eigenvalues wr + i wi of a (n, n) and, when v is not NULL, their
 * eigenvectors v (n, n, 2) (columns of (re, im) pairs): LAPACK's dgeev, as
 * above; a complex pair comes with the positive imaginary part first, its
 * vectors v and conj(v), each vector of unit 2-norm, a complex one's
 * largest component real. Returns false when the QR iteration does not
 * converge. single: the input was float32 (LAPACK's sgeev then; the
 * built-in kernel works in double). scratch: 2 n n + 5 n doubles; piv is
 * not used. */
static bool ct__geev(const double *a, int64_t n, bool single, double *wr, double *wi, double *v, double *scratch,
                     int64_t *piv)
{
    if (CT__LAPACK(ct__lapack_geev(a, n, single, wr, wi, v))) return true;
    (void)single, (void)piv;
    if (n == 0) return true;
    double *t = scratch, *vr = t + n * n, *scale = vr + n * n, *tau = scale + n, *work = tau + n;
    memcpy(t, a, (size_t)(n * n) * sizeof *t);
    double smlnum = sqrt(CT__EV_SAFMIN) / CT__EV_ULP, bignum = 1 / smlnum, anrm = 0, cscale = 0;
    for (int64_t i = 0; i < n * n; i++) anrm = CT__MAX(anrm, fabs(t[i]));
    if (anrm > 0 && anrm < smlnum) /* scaled into range, the eigenvalues scaled back at the end */
        cscale = smlnum;
    else if (anrm > bignum)
        cscale = bignum;
    if (cscale != 0) ct__ev_lascl(anrm, cscale, t, n * n);
    int64_t ilo = 1, ihi = n;
    ct__ev_gebal(t, n, &ilo, &ihi, scale);
    ct__ev_gehd2(t, n, ilo, ihi, tau, work);
    if (v) ct__ev_orghr(t, n, ilo, ihi, tau, vr, work);
    if (ct__ev_hseqr(v != NULL, t, n, ilo, ihi, wr, wi, vr) != 0) return false;
    if (cscale != 0) {
        ct__ev_lascl(cscale, anrm, wr, n);
        ct__ev_lascl(cscale, anrm, wi, n);
    }
    if (!v) return true;
    ct__ev_trevc(t, n, vr, work);
    ct__ev_gebak(n, ilo, ihi, scale, vr);
    for (int64_t i = 1; i <= n; i++) { /* unit norm; a complex pair's largest component made real */
        if (wi[i - 1] == 0) {
            double scl = 1 / ct__ev_nrm2(&CT__EV_VR(1, i), n, n);
            for (int64_t r = 1; r <= n; r++) CT__EV_VR(r, i) *= scl;
        } else if (wi[i - 1] > 0) {
            double scl = 1 / ct__ev_lapy2(ct__ev_nrm2(&CT__EV_VR(1, i), n, n), ct__ev_nrm2(&CT__EV_VR(1, i + 1), n, n));
            for (int64_t r = 1; r <= n; r++) {
                CT__EV_VR(r, i) *= scl;
                CT__EV_VR(r, i + 1) *= scl;
            }
            for (int64_t r = 1; r <= n; r++)
                work[r - 1] = CT__EV_VR(r, i) * CT__EV_VR(r, i) + CT__EV_VR(r, i + 1) * CT__EV_VR(r, i + 1);
            int64_t k = 1 + ct__ev_amax(work, n, 1);
            double cs, sn;
            ct__ev_lartg(CT__EV_VR(k, i), CT__EV_VR(k, i + 1), &cs, &sn);
            ct__ev_rot(n, &CT__EV_VR(1, i), n, &CT__EV_VR(1, i + 1), n, cs, sn);
            CT__EV_VR(k, i + 1) = 0;
        }
    }
    for (int64_t j = 1; j <= n; j++) { /* column j: v_j, or a pair's v_j = re + i im and v_j+1 = conj(v_j) */
        bool pair = wi[j - 1] != 0 && j < n;
        for (int64_t r = 1; r <= n; r++) {
            double re = CT__EV_VR(r, j), im = pair ? CT__EV_VR(r, j + 1) : 0;
            v[((r - 1) * n + j - 1) * 2] = re;
            v[((r - 1) * n + j - 1) * 2 + 1] = im;
            if (!pair) continue;
            v[((r - 1) * n + j) * 2] = re;
            v[((r - 1) * n + j) * 2 + 1] = -im;
        }
        j += pair;
    }
    return true;
}

#undef CT__EV_T
#undef CT__EV_VR

/* ---------------------------------------------------------------- matrix exponential */

/* e (n, n) = exp(a (n, n)) by scaling and squaring with a degree-13 Pade
 * approximant (Higham 2005, as PyTorch's). scratch: 8 n n doubles, piv: n. */
static void ct__expm(const double *a, int64_t n, double *e, double *scratch, int64_t *piv)
{
    static const double b[14] = {64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
                                 129060195264000.,  10559470521600.,    670442572800.,    33522128640.,
                                 1323241920.,       40840800.,          960960.,          16380.,
                                 182.,              1.};
    double *a1 = scratch, *a2 = a1 + n * n, *a4 = a2 + n * n, *a6 = a4 + n * n, *u = a6 + n * n, *v = u + n * n,
           *t = v + n * n, *q = t + n * n;
    double norm1 = 0;
    for (int64_t j = 0; j < n; j++) {
        double s = 0;
        for (int64_t i = 0; i < n; i++) s += fabs(a[i * n + j]);
        norm1 = CT__MAX(norm1, s);
    }
    int sq = 0;
    if (norm1 > 5.371920351148152) sq = (int)ceil(log2(norm1 / 5.371920351148152));
    double scale = ldexp(1.0, -sq);
    for (int64_t i = 0; i < n * n; i++) a1[i] = a[i] * scale;
    ct__la_mm(a1, a1, a2, n, n, n);
    ct__la_mm(a2, a2, a4, n, n, n);
    ct__la_mm(a4, a2, a6, n, n, n);
    for (int64_t i = 0; i < n * n; i++) t[i] = b[13] * a6[i] + b[11] * a4[i] + b[9] * a2[i];
    ct__la_mm(a6, t, u, n, n, n);
    for (int64_t i = 0; i < n * n; i++) u[i] += b[7] * a6[i] + b[5] * a4[i] + b[3] * a2[i];
    for (int64_t i = 0; i < n; i++) u[i * n + i] += b[1];
    ct__la_mm(a1, u, t, n, n, n); /* t = U */
    for (int64_t i = 0; i < n * n; i++) q[i] = b[12] * a6[i] + b[10] * a4[i] + b[8] * a2[i];
    ct__la_mm(a6, q, v, n, n, n);
    for (int64_t i = 0; i < n * n; i++) v[i] += b[6] * a6[i] + b[4] * a4[i] + b[2] * a2[i];
    for (int64_t i = 0; i < n; i++) v[i * n + i] += b[0];
    for (int64_t i = 0; i < n * n; i++) { /* q = V - U, e = V + U; e = q^-1 e */
        q[i] = v[i] - t[i];
        e[i] = v[i] + t[i];
    }
    ct__lu(q, n, false, piv);
    ct__lu_solve(q, piv, n, e, n);
    for (int s = 0; s < sq; s++) {
        ct__la_mm(e, e, t, n, n, n);
        memcpy(e, t, (size_t)(n * n) * sizeof *e);
    }
}

/* ---------------------------------------------------------------- least squares */

/* x (n, k) = R^-1 x for the upper triangular R (n, n) at row stride lda
 * by back substitution, or (trans) x = R^-T x by forward substitution. */
static void ct__la_trsm_upper(const double *r, int64_t lda, int64_t n, bool trans, double *x, int64_t k)
{
    for (int64_t c = 0; c < k; c++)
        for (int64_t s = 0; s < n; s++) {
            int64_t i = trans ? s : n - 1 - s;
            double v = x[i * k + c];
            if (trans)
                for (int64_t j = 0; j < i; j++) v -= r[j * lda + i] * x[j * k + c];
            else
                for (int64_t j = i + 1; j < n; j++) v -= r[i * lda + j] * x[j * k + c];
            x[i * k + c] = v / r[i * lda + i];
        }
}

/* The 1-based index of the first exactly zero diagonal entry of the
 * triangle r (n, n) at row stride lda, or 0 (LAPACK trtrs's check). */
static int64_t ct__la_zero_diagonal(const double *r, int64_t lda, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (r[i * lda + i] == 0) return i + 1;
    return 0;
}

/* LAPACK gels (trans 'N'): min |a x - b| for a (m, n) of full rank, by QR
 * (m >= n) or, as LQ of a is QR of a^T, by QR of a^T (m < n). b (max(m, n),
 * k) holds B in its first m rows and gets X in its first n; for m > n rows
 * n.. are left as Q^T B's, whose squares sum to the residuals. Returns 0,
 * or the 1-based index of an exactly zero diagonal entry of R (L), where
 * LAPACK gives up. An empty or all-zero a gives X = 0 (LAPACK's quick
 * returns, which also zero rows n..). single: the input was float32
 * (LAPACK's sgels then, as PyTorch calls it). a is destroyed; scratch:
 * m n + min(m, n). */
static int64_t ct__gels(double *a, int64_t m, int64_t n, double *b, int64_t k, bool single, double *scratch)
{
    int64_t mn = CT__MIN(m, n), rows = CT__MAX(m, n), lapack_info = 0;
    if (CT__LAPACK(ct__lapack_lstsq(a, m, n, b, k, false, single, 0, &lapack_info))) return lapack_info;
    (void)single; /* the built-in kernel works in double for both */
    bool zero = true;
    for (int64_t i = 0; i < m * n && zero; i++) zero = a[i] == 0;
    if (mn == 0 || k == 0 || zero) {
        for (int64_t i = 0; i < rows * k; i++) b[i] = 0;
        return 0;
    }
    double *tau = scratch, *at = tau + mn;
    if (m >= n) { /* a = Q R: R x = (Q^T b)[:n] */
        ct__qr(a, m, n, false, tau);
        for (int64_t j = 0; j < n; j++) ct__la_reflect(a + j * n + j, n, m - j, tau[j], b + j * k, k, k);
        int64_t info = ct__la_zero_diagonal(a, n, n);
        if (!info) ct__la_trsm_upper(a, n, n, false, b, k);
        return info;
    }
    /* a^T (n, m) = Q R, a = R^T Q^T: R^T y = b, x = Q [y; 0] */
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) at[j * m + i] = a[i * n + j];
    ct__qr(at, n, m, false, tau);
    int64_t info = ct__la_zero_diagonal(at, m, m);
    if (info) return info;
    ct__la_trsm_upper(at, m, m, true, b, k);
    for (int64_t i = m * k; i < n * k; i++) b[i] = 0;
    for (int64_t j = m - 1; j >= 0; j--) ct__la_reflect(at + j * m + j, m, n - j, tau[j], b + j * k, k, k);
    return 0;
}

/* Householder QR with column pivoting (LAPACK geqp3 with every column free,
 * by its unblocked dlaqp2): a (m, n) P = Q R, a overwritten as ct__qr's; at
 * each step the column of largest remaining norm (the first of equals)
 * comes next; column j of a P is column jpvt[j] of a. The remaining norms
 * are downdated, and recomputed where the downdate lost more than half the
 * digits of eps (the unit roundoff of the input's dtype, as LAPACK's
 * single or double routine judges). tau[min(m, n)]; vn: 2 n doubles. */
static void ct__qp3(double *a, int64_t m, int64_t n, int64_t *jpvt, double *tau, double *vn, double eps)
{
    double *vn1 = vn, *vn2 = vn + n, tol3z = sqrt(eps);
    for (int64_t j = 0; j < n; j++) {
        double s = 0;
        for (int64_t i = 0; i < m; i++) s = hypot(s, a[i * n + j]);
        jpvt[j] = j;
        vn1[j] = vn2[j] = s;
    }
    for (int64_t i = 0; i < CT__MIN(m, n); i++) {
        int64_t p = i;
        for (int64_t j = i + 1; j < n; j++)
            if (vn1[j] > vn1[p]) p = j;
        if (p != i) {
            ct__la_swap_cols(a, m, n, i, p);
            int64_t t = jpvt[p];
            jpvt[p] = jpvt[i];
            jpvt[i] = t;
            vn1[p] = vn1[i];
            vn2[p] = vn2[i];
        }
        tau[i] = ct__la_reflector(a + i * n + i, a + (i + 1) * n + i, m - i - 1, n);
        ct__la_reflect(a + i * n + i, n, m - i, tau[i], a + i * n + i + 1, n, n - i - 1);
        for (int64_t j = i + 1; j < n; j++) { /* row i leaves column j's remaining part */
            if (vn1[j] == 0) continue;
            double r = fabs(a[i * n + j]) / vn1[j], left = CT__MAX(1 - r * r, 0.0);
            double q = vn1[j] / vn2[j];
            if (left * q * q > tol3z) {
                vn1[j] *= sqrt(left);
                continue;
            }
            double s = 0;
            for (int64_t l = i + 1; l < m; l++) s = hypot(s, a[l * n + j]);
            vn1[j] = vn2[j] = s;
        }
    }
}

/* One step of incremental condition estimation (LAPACK laic1). sest
 * estimates the largest (largest true) or smallest singular value of a
 * triangle R (j, j), x[j] the matching unit vector; R grows by the column
 * [w; gamma] (w: j entries at stride ws). Returns the new estimate; *s,
 * *c make the new vector [s x; c]. eps: the unit roundoff judged by. */
static double ct__laic1(bool largest, int64_t j, const double *x, double sest, const double *w, int64_t ws,
                        double gamma, double *s, double *c, double eps)
{
    double alpha = 0;
    for (int64_t i = 0; i < j; i++) alpha += x[i] * w[i * ws];
    double absalp = fabs(alpha), absgam = fabs(gamma), absest = fabs(sest);
    if (largest) {
        if (sest == 0) {
            double s1 = CT__MAX(absgam, absalp);
            if (s1 == 0) {
                *s = 0, *c = 1;
                return 0;
            }
            double sn = alpha / s1, cs = gamma / s1, t = sqrt(sn * sn + cs * cs);
            *s = sn / t, *c = cs / t;
            return s1 * t;
        }
        if (absgam <= eps * absest) { /* the new column adds nothing new */
            *s = 1, *c = 0;
            double t = CT__MAX(absest, absalp), s1 = absest / t, s2 = absalp / t;
            return t * sqrt(s1 * s1 + s2 * s2);
        }
        if (absalp <= eps * absest) {
            bool old = absgam <= absest;
            *s = old ? 1 : 0, *c = old ? 0 : 1;
            return old ? absest : absgam;
        }
        if (absest <= eps * absalp || absest <= eps * absgam) {
            if (absgam <= absalp) {
                double t = absgam / absalp, sn = sqrt(1 + t * t);
                *c = (gamma / absalp) / sn, *s = copysign(1.0, alpha) / sn;
                return absalp * sn;
            }
            double t = absalp / absgam, cs = sqrt(1 + t * t);
            *s = (alpha / absgam) / cs, *c = copysign(1.0, gamma) / cs;
            return absgam * cs;
        }
        /* the largest root of the secular equation */
        double z1 = alpha / absest, z2 = gamma / absest, b = (1 - z1 * z1 - z2 * z2) * 0.5, cc = z1 * z1;
        double t = b > 0 ? cc / (b + sqrt(b * b + cc)) : sqrt(b * b + cc) - b;
        double sn = -z1 / t, cs = -z2 / (1 + t), n = sqrt(sn * sn + cs * cs);
        *s = sn / n, *c = cs / n;
        return sqrt(t + 1) * absest;
    }
    if (sest == 0) {
        double sn = 1, cs = 0;
        if (CT__MAX(absgam, absalp) != 0) sn = -gamma, cs = alpha;
        double s1 = CT__MAX(fabs(sn), fabs(cs));
        sn /= s1, cs /= s1;
        double t = sqrt(sn * sn + cs * cs);
        *s = sn / t, *c = cs / t;
        return 0;
    }
    if (absgam <= eps * absest) {
        *s = 0, *c = 1;
        return absgam;
    }
    if (absalp <= eps * absest) {
        bool gam = absgam <= absest;
        *s = gam ? 0 : 1, *c = gam ? 1 : 0;
        return gam ? absgam : absest;
    }
    if (absest <= eps * absalp || absest <= eps * absgam) {
        if (absgam <= absalp) {
            double t = absgam / absalp, cs = sqrt(1 + t * t);
            *s = -(gamma / absalp) / cs, *c = copysign(1.0, alpha) / cs;
            return absest * (t / cs);
        }
        double t = absalp / absgam, sn = sqrt(1 + t * t);
        *c = (alpha / absgam) / sn, *s = -copysign(1.0, gamma) / sn;
        return absest / sn;
    }
    /* the smallest root of the secular equation, near 0 or near 1 */
    double z1 = alpha / absest, z2 = gamma / absest, sn, cs, est;
    double norma = CT__MAX(1 + z1 * z1 + fabs(z1 * z2), fabs(z1 * z2) + z2 * z2);
    if (1 + 2 * (z1 - z2) * (z1 + z2) >= 0) {
        double b = (z1 * z1 + z2 * z2 + 1) * 0.5, cc = z2 * z2, t = cc / (b + sqrt(fabs(b * b - cc)));
        sn = z1 / (1 - t), cs = -z2 / t;
        est = sqrt(t + 4 * eps * eps * norma) * absest;
    } else {
        double b = (z2 * z2 + z1 * z1 - 1) * 0.5, cc = z1 * z1;
        double t = b >= 0 ? -cc / (b + sqrt(b * b + cc)) : b - sqrt(b * b + cc);
        sn = -z1 / t, cs = -z2 / (1 + t);
        est = sqrt(1 + t + 4 * eps * eps * norma) * absest;
    }
    double n = sqrt(sn * sn + cs * cs);
    *s = sn / n, *c = cs / n;
    return est;
}

/* gelsy's rank of the pivoted R in a (m, n) (mn = min(m, n) rows of it):
 * the leading triangles grow while the estimate of their largest singular
 * value times rcond stays at most that of their smallest (so a NaN rcond
 * stops at 1, a negative one never); 0 when R[0][0] is zero. xmin, xmax:
 * mn doubles each. */
static int64_t ct__gelsy_rank(const double *a, int64_t n, int64_t mn, double rcond, double *xmin, double *xmax,
                              double eps)
{
    double smax = fabs(a[0]), smin = smax;
    if (smax == 0) return 0;
    xmin[0] = xmax[0] = 1;
    int64_t rank = 1;
    for (; rank < mn; rank++) {
        const double *w = a + rank, gamma = a[rank * n + rank]; /* column rank above the diagonal, its diagonal */
        double s1, c1, s2, c2;
        double sminpr = ct__laic1(false, rank, xmin, smin, w, n, gamma, &s1, &c1, eps);
        double smaxpr = ct__laic1(true, rank, xmax, smax, w, n, gamma, &s2, &c2, eps);
        if (!(smaxpr * rcond <= sminpr)) break;
        for (int64_t i = 0; i < rank; i++) xmin[i] *= s1, xmax[i] *= s2;
        xmin[rank] = c1, xmax[rank] = c2;
        smin = sminpr, smax = smaxpr;
    }
    return rank;
}

/* LAPACK tzrzf (unblocked, its latrz): the upper trapezoid a (r, n) (row
 * stride n, r <= n) = [T 0] Z with T (r, r) upper triangular, Z = Z_0 ...
 * Z_{r-1}, Z_i = I - tau[i] v v^T, v 1 at i and the n - r entries of row
 * i's right part at r..; T overwrites the triangle, v the right part. */
static void ct__tzrzf(double *a, int64_t r, int64_t n, double *tau)
{
    int64_t l = n - r;
    for (int64_t i = r - 1; i >= 0; i--) {
        double *row = a + i * n;
        tau[i] = ct__la_reflector(row + i, row + r, l, 1);
        for (int64_t p = 0; p < i && tau[i] != 0; p++) /* rows above times Z_i, from the right */
            ct__la_reflect_vec(a + p * n + i, a + p * n + r, 1, row + r, 1, l, tau[i]);
    }
}

/* LAPACK gelsy: the minimum norm solution of min |a x - b| for the rank
 * found by a complete orthogonal factorization a P = Q [T 0; 0 0] Z, QR
 * with column pivoting (ct__qp3), rank by incremental condition estimation
 * against rcond (ct__gelsy_rank), Z by tzrzf. b (max(m, n), k) holds B in
 * its first m rows and gets X in its first n. Returns the rank (0 for an
 * empty problem, k = 0 included, as LAPACK's quick return). a is destroyed;
 * eps: the unit roundoff of the input's dtype; scratch: 4 min(m, n) + 3 n
 * doubles; jpvt: n. */
static int64_t ct__gelsy(double *a, int64_t m, int64_t n, double *b, int64_t k, double rcond, double eps,
                         double *scratch, int64_t *jpvt)
{
    int64_t mn = CT__MIN(m, n), rows = CT__MAX(m, n), lapack_rank = 0;
    /* an eps above double's is float32's: LAPACK's sgelsy then */
    if (CT__LAPACK(ct__lapack_lstsq(a, m, n, b, k, true, eps > CT__LA_EPS, rcond, &lapack_rank))) return lapack_rank;
    if (mn == 0 || k == 0) return 0;
    double *tau = scratch, *tauz = tau + mn, *xmin = tauz + mn, *xmax = xmin + mn, *vn = xmax + mn, *col = vn + 2 * n;
    ct__qp3(a, m, n, jpvt, tau, vn, eps);
    int64_t rank = ct__gelsy_rank(a, n, mn, rcond, xmin, xmax, eps);
    if (rank == 0) {
        for (int64_t i = 0; i < rows * k; i++) b[i] = 0;
        return 0;
    }
    if (rank < n) ct__tzrzf(a, rank, n, tauz);
    for (int64_t j = 0; j < mn; j++) ct__la_reflect(a + j * n + j, n, m - j, tau[j], b + j * k, k, k); /* Q^T b */
    ct__la_trsm_upper(a, n, rank, false, b, k);
    for (int64_t i = rank * k; i < n * k; i++) b[i] = 0;
    for (int64_t i = 0; rank < n && i < rank; i++) /* Z^T [y; 0] = Z_{r-1} ... Z_0 [y; 0] */
        if (tauz[i] != 0)
            for (int64_t c = 0; c < k; c++)
                ct__la_reflect_vec(b + i * k + c, b + rank * k + c, k, a + i * n + rank, 1, n - rank, tauz[i]);
    for (int64_t c = 0; c < k; c++) { /* x = P b */
        for (int64_t i = 0; i < n; i++) col[jpvt[i]] = b[i * k + c];
        for (int64_t i = 0; i < n; i++) b[i * k + c] = col[i];
    }
    return rank;
}
