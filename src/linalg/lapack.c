/* Dense linear algebra kernels on one matrix: LU, Cholesky, Householder QR,
 * symmetric eigen (cyclic Jacobi), SVD (one-sided Jacobi), general eigen
 * (Hessenberg reduction, Francis double-shift QR, inverse iteration), the
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
 * columns in LAPACK's order, so gelsy's rank and solution agree too. The Jacobi and QR iterations
 * reach the same eigen and singular values; their vectors may differ from
 * LAPACK's by a sign (a phase for complex ones). */

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

/* a (n, n) reduced in place to upper Hessenberg form by Householder
 * similarity transforms (eigenvalues kept). v: n doubles of scratch. */
static void ct__hessenberg(double *a, int64_t n, double *v)
{
    for (int64_t k = 0; k + 2 < n; k++) {
        double xnorm = 0;
        for (int64_t i = k + 2; i < n; i++) xnorm = hypot(xnorm, a[i * n + k]);
        if (xnorm == 0) continue;
        double alpha = a[(k + 1) * n + k], beta = -copysign(hypot(alpha, xnorm), alpha);
        double tau = (beta - alpha) / beta, scale = 1 / (alpha - beta);
        v[k + 1] = 1;
        for (int64_t i = k + 2; i < n; i++) v[i] = a[i * n + k] * scale;
        for (int64_t c = 0; c < n; c++) { /* H a */
            double s = 0;
            for (int64_t i = k + 1; i < n; i++) s += v[i] * a[i * n + c];
            s *= tau;
            for (int64_t i = k + 1; i < n; i++) a[i * n + c] -= s * v[i];
        }
        for (int64_t r = 0; r < n; r++) { /* (H a) H */
            double s = 0;
            for (int64_t i = k + 1; i < n; i++) s += a[r * n + i] * v[i];
            s *= tau;
            for (int64_t i = k + 1; i < n; i++) a[r * n + i] -= s * v[i];
        }
        for (int64_t i = k + 2; i < n; i++) a[i * n + k] = 0;
    }
}

/* Eigenvalues wr + i wi of the upper Hessenberg h (n, n) (destroyed) by
 * Francis double-shift QR with exceptional shifts (EISPACK hqr). A complex
 * pair comes out with the positive imaginary part first. Returns false when
 * it does not converge in 30 iterations per eigenvalue. */
static bool ct__hqr(double *h, int64_t n, double *wr, double *wi)
{
#define H(i, j) h[((i) - 1) * n + ((j) - 1)] /* 1-based, as EISPACK */
    double anorm = 0, t = 0;
    for (int64_t i = 1; i <= n; i++)
        for (int64_t j = CT__MAX(i - 1, 1); j <= n; j++) anorm += fabs(H(i, j));
    int64_t nn = n;
    while (nn >= 1) {
        int its = 0;
        int64_t l;
        do {
            for (l = nn; l >= 2; l--) {
                double s = fabs(H(l - 1, l - 1)) + fabs(H(l, l));
                if (s == 0) s = anorm;
                if (fabs(H(l, l - 1)) + s == s) {
                    H(l, l - 1) = 0;
                    break;
                }
            }
            double x = H(nn, nn);
            if (l == nn) { /* one root */
                wr[nn - 1] = x + t;
                wi[nn - 1] = 0;
                nn--;
            } else {
                double y = H(nn - 1, nn - 1), w = H(nn, nn - 1) * H(nn - 1, nn);
                if (l == nn - 1) { /* two roots */
                    double p = 0.5 * (y - x), q = p * p + w, z = sqrt(fabs(q));
                    x += t;
                    if (q >= 0) {
                        z = p + copysign(z, p);
                        wr[nn - 2] = wr[nn - 1] = x + z;
                        if (z != 0) wr[nn - 1] = x - w / z;
                        wi[nn - 2] = wi[nn - 1] = 0;
                    } else {
                        wr[nn - 2] = wr[nn - 1] = x + p;
                        wi[nn - 2] = z;
                        wi[nn - 1] = -z;
                    }
                    nn -= 2;
                } else {
                    if (its == 30) return false;
                    if (its == 10 || its == 20) { /* exceptional shift */
                        t += x;
                        for (int64_t i = 1; i <= nn; i++) H(i, i) -= x;
                        double s = fabs(H(nn, nn - 1)) + fabs(H(nn - 1, nn - 2));
                        y = x = 0.75 * s;
                        w = -0.4375 * s * s;
                    }
                    ++its;
                    int64_t m;
                    double p = 0, q = 0, r = 0, z;
                    for (m = nn - 2; m >= l; m--) {
                        z = H(m, m);
                        r = x - z;
                        double s = y - z;
                        p = (r * s - w) / H(m + 1, m) + H(m, m + 1);
                        q = H(m + 1, m + 1) - z - r - s;
                        r = H(m + 2, m + 1);
                        s = fabs(p) + fabs(q) + fabs(r);
                        p /= s;
                        q /= s;
                        r /= s;
                        if (m == l) break;
                        double u = fabs(H(m, m - 1)) * (fabs(q) + fabs(r));
                        double v = fabs(p) * (fabs(H(m - 1, m - 1)) + fabs(z) + fabs(H(m + 1, m + 1)));
                        if (u + v == v) break;
                    }
                    for (int64_t i = m + 2; i <= nn; i++) {
                        H(i, i - 2) = 0;
                        if (i != m + 2) H(i, i - 3) = 0;
                    }
                    for (int64_t k = m; k <= nn - 1; k++) {
                        if (k != m) {
                            p = H(k, k - 1);
                            q = H(k + 1, k - 1);
                            r = k != nn - 1 ? H(k + 2, k - 1) : 0;
                            if ((x = fabs(p) + fabs(q) + fabs(r)) != 0) {
                                p /= x;
                                q /= x;
                                r /= x;
                            }
                        }
                        double s = copysign(sqrt(p * p + q * q + r * r), p);
                        if (s == 0) continue;
                        if (k == m) {
                            if (l != m) H(k, k - 1) = -H(k, k - 1);
                        } else {
                            H(k, k - 1) = -s * x;
                        }
                        p += s;
                        x = p / s;
                        y = q / s;
                        z = r / s;
                        q /= p;
                        r /= p;
                        for (int64_t j = k; j <= nn; j++) {
                            p = H(k, j) + q * H(k + 1, j);
                            if (k != nn - 1) {
                                p += r * H(k + 2, j);
                                H(k + 2, j) -= p * z;
                            }
                            H(k + 1, j) -= p * y;
                            H(k, j) -= p * x;
                        }
                        int64_t mmin = nn < k + 3 ? nn : k + 3;
                        for (int64_t i = l; i <= mmin; i++) {
                            p = x * H(i, k) + y * H(i, k + 1);
                            if (k != nn - 1) {
                                p += z * H(i, k + 2);
                                H(i, k + 2) -= p * r;
                            }
                            H(i, k + 1) -= p * q;
                            H(i, k) -= p;
                        }
                    }
                }
            }
        } while (l < nn - 1);
    }
    return true;
#undef H
}

/* x (n complex, as re/im pairs) = the eigenvector of a (n, n) for the
 * eigenvalue lr + i li, by inverse iteration on (a - lambda I) in complex
 * arithmetic; unit 2-norm, its largest component real and positive.
 * lu: 2 n n doubles of scratch, piv: n. */
static void ct__eigvec(const double *a, int64_t n, double lr, double li, double *x, double *lu, int64_t *piv)
{
    double anorm = 0;
    for (int64_t i = 0; i < n * n; i++) anorm = CT__MAX(anorm, fabs(a[i]));
    double shift = (anorm > 0 ? anorm : 1) * 1e-10; /* keeps a - lambda I just invertible */
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            lu[2 * (i * n + j)] = a[i * n + j] - (i == j ? lr + shift : 0);
            lu[2 * (i * n + j) + 1] = i == j ? -li : 0;
        }
#define RE(i, j) lu[2 * ((i) * n + (j))]
#define IM(i, j) lu[2 * ((i) * n + (j)) + 1]
    for (int64_t k = 0; k < n; k++) { /* complex LU with partial pivoting */
        int64_t p = k;
        for (int64_t i = k + 1; i < n; i++)
            if (hypot(RE(i, k), IM(i, k)) > hypot(RE(p, k), IM(p, k))) p = i;
        piv[k] = p;
        for (int64_t j = 0; j < n && p != k; j++) {
            double tr = RE(k, j), ti = IM(k, j);
            RE(k, j) = RE(p, j);
            IM(k, j) = IM(p, j);
            RE(p, j) = tr;
            IM(p, j) = ti;
        }
        if (RE(k, k) == 0 && IM(k, k) == 0) RE(k, k) = shift * CT__LA_EPS;
        double dr = RE(k, k), di = IM(k, k), dd = dr * dr + di * di;
        for (int64_t i = k + 1; i < n; i++) {
            double er = RE(i, k), ei = IM(i, k);
            double lr_ = (er * dr + ei * di) / dd, li_ = (ei * dr - er * di) / dd;
            RE(i, k) = lr_;
            IM(i, k) = li_;
            for (int64_t j = k + 1; j < n; j++) {
                RE(i, j) -= lr_ * RE(k, j) - li_ * IM(k, j);
                IM(i, j) -= lr_ * IM(k, j) + li_ * RE(k, j);
            }
        }
    }
    for (int64_t i = 0; i < n; i++) {
        x[2 * i] = 1 + 0.01 * (double)i; /* a start with a part along every eigenvector, as a rule */
        x[2 * i + 1] = 0;
    }
    for (int it = 0; it < 3; it++) {
        for (int64_t i = 0; i < n; i++)
            if (piv[i] != i) {
                double tr = x[2 * i], ti = x[2 * i + 1];
                x[2 * i] = x[2 * piv[i]];
                x[2 * i + 1] = x[2 * piv[i] + 1];
                x[2 * piv[i]] = tr;
                x[2 * piv[i] + 1] = ti;
            }
        for (int64_t i = 0; i < n; i++)
            for (int64_t p = 0; p < i; p++) {
                x[2 * i] -= RE(i, p) * x[2 * p] - IM(i, p) * x[2 * p + 1];
                x[2 * i + 1] -= RE(i, p) * x[2 * p + 1] + IM(i, p) * x[2 * p];
            }
        for (int64_t i = n - 1; i >= 0; i--) {
            for (int64_t p = i + 1; p < n; p++) {
                x[2 * i] -= RE(i, p) * x[2 * p] - IM(i, p) * x[2 * p + 1];
                x[2 * i + 1] -= RE(i, p) * x[2 * p + 1] + IM(i, p) * x[2 * p];
            }
            double dr = RE(i, i), di = IM(i, i), dd = dr * dr + di * di, xr = x[2 * i], xi = x[2 * i + 1];
            x[2 * i] = (xr * dr + xi * di) / dd;
            x[2 * i + 1] = (xi * dr - xr * di) / dd;
        }
        double nrm = 0, big = -1, br = 1, bi = 0;
        for (int64_t i = 0; i < n; i++) {
            double mag = hypot(x[2 * i], x[2 * i + 1]);
            nrm = hypot(nrm, mag);
            if (mag > big) {
                big = mag;
                br = x[2 * i];
                bi = x[2 * i + 1];
            }
        }
        /* divide by nrm * (br + i bi) / |b|: unit norm, the largest component real positive */
        double cr = br / big, ci = bi / big;
        for (int64_t i = 0; i < n; i++) {
            double xr = x[2 * i], xi = x[2 * i + 1];
            x[2 * i] = (xr * cr + xi * ci) / nrm;
            x[2 * i + 1] = (xi * cr - xr * ci) / nrm;
        }
    }
    for (int64_t i = 0; i < n; i++)
        if (li == 0) x[2 * i + 1] = 0;
#undef RE
#undef IM
}

/* Eigenvalues wr + i wi of a (n, n) and, when v is not NULL, their
 * eigenvectors v (n, n, 2) (columns of (re, im) pairs, unit norm): by
 * Hessenberg reduction and Francis QR (ct__hessenberg, ct__hqr; a complex
 * pair comes out with the positive imaginary part first, as LAPACK's geev
 * gives it) and inverse iteration for each vector (ct__eigvec). Returns
 * false when the QR iteration does not converge. single: the input was
 * float32 (LAPACK's float32 routine then). scratch: 3 n n + 3 n doubles,
 * piv: n. */
static bool ct__geev(const double *a, int64_t n, bool single, double *wr, double *wi, double *v, double *scratch,
                     int64_t *piv)
{
    if (CT__LAPACK(ct__lapack_geev(a, n, single, wr, wi, v))) return true;
    (void)single; /* the built-in kernel works in double for both */
    double *h = scratch, *lu = h + n * n, *x = lu + 2 * n * n, *hv = x + 2 * n;
    memcpy(h, a, (size_t)(n * n) * sizeof *h);
    ct__hessenberg(h, n, hv);
    if (!ct__hqr(h, n, wr, wi)) return false;
    for (int64_t i = 0; v && i < n; i++) {
        ct__eigvec(a, n, wr[i], wi[i], x, lu, piv);
        for (int64_t r = 0; r < n; r++) { /* column i */
            v[(r * n + i) * 2] = x[2 * r];
            v[(r * n + i) * 2 + 1] = x[2 * r + 1];
        }
    }
    return true;
}

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
