/* Reduction, scan and softmax kernels on the CPU.
 *
 * Users compare ctorch's numbers with PyTorch's to the last bit, so where
 * the order of floating-point operations shows in the result these kernels
 * replay PyTorch 1.13's CPU kernels as they run on one thread of an AVX2
 * machine: the dims of a reduction are ordered and merged as TensorIterator
 * does, then handed to 2-D loops that follow the cascade sum of
 * SumKernel.cpp, the vector lanes of Reduce.h's products, Welford's update
 * with the fused multiply-add GCC makes of it, and so on. A vector of
 * PyTorch's is an array of lanes here, which the compiler may vectorise.
 * Threads never change a result: they split work only where PyTorch's
 * single-threaded order is kept (distinct outputs, whole column groups,
 * the independent top-level blocks of a cascade sum). */

/* ---------------------------------------------------------------- elements */


/* ---------------------------------------------------------------- the plan of a reduction */

/* A reduction as TensorIterator lays it out: dims ordered with the reduced
 * ones innermost (by input stride), then the kept ones (by output stride),
 * adjacent dims merged where both operands allow, size-1 dims dropped.
 * Dims [0, nred) are reduced (output stride 0). Strides are in bytes. */
typedef struct ct__rplan {
    int ndim, nred;
    int64_t shape[CT_MAX_DIMS];
    int64_t os[CT_MAX_DIMS], is[CT_MAX_DIMS];
    char *out;
    const char *in;
    int64_t numel;
} ct__rplan;

/* TensorIterator's should_swap for a reduction: 1 when dim a goes outside b. */
static int ct__rplan_order(const int64_t *os, const int64_t *is, const int64_t *shape, int a, int b)
{
    const int64_t *st[2] = {os, is};
    if ((os[a] == 0) != (os[b] == 0)) return os[b] == 0 ? 1 : -1;
    for (int k = 0; k < 2; k++) {
        if (st[k][a] == 0 || st[k][b] == 0) continue;
        if (st[k][a] != st[k][b]) return st[k][a] > st[k][b] ? 1 : -1;
        if (shape[a] > shape[b]) return 1;
    }
    return 0;
}

/* out may be NULL: a reduction of everything into a value the kernel keeps. */
static void ct__rplan_init(ct__rplan *p, ct_tensor *out, const ct_tensor *in, uint32_t mask)
{
    int nd = in->ndim, perm[CT_MAX_DIMS];
    int64_t os[CT_MAX_DIMS], is[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        bool zero = !out || (((mask >> d) & 1) && in->sizes[d] != 1);
        os[d] = zero ? 0 : out->strides[d] * (int64_t)ct__esize(out);
        is[d] = in->strides[d] * (int64_t)ct__esize(in);
    }
    for (int i = 0; i < nd; i++) perm[i] = nd - 1 - i;
    for (int i = 1; i < nd; i++) /* insertion sort that steps over ambiguous pairs, as PyTorch's */
        for (int d0 = i - 1, d1 = i; d0 >= 0; d0--) {
            int c = ct__rplan_order(os, is, in->sizes, perm[d0], perm[d1]);
            if (c < 0) break;
            if (c > 0) {
                int x = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = x;
                d1 = d0;
            }
        }
    p->out = out ? ct__data(out) : NULL;
    p->in = ct__data(in);
    p->ndim = 1;
    p->shape[0] = 1;
    p->os[0] = p->is[0] = 0;
    for (int k = 0; k < nd; k++) { /* coalesce_dimensions */
        int d = perm[k], q = p->ndim - 1;
        int64_t size = in->sizes[d];
        if (k == 0 || p->shape[q] == 1 || size == 1 ||
            (p->shape[q] * p->os[q] == os[d] && p->shape[q] * p->is[q] == is[d])) {
            if (k == 0 || p->shape[q] == 1) {
                p->os[q] = os[d];
                p->is[q] = is[d];
            }
            p->shape[q] *= size;
        } else {
            p->shape[p->ndim] = size;
            p->os[p->ndim] = os[d];
            p->is[p->ndim++] = is[d];
        }
    }
    p->nred = 0;
    while (p->nred < p->ndim && p->os[p->nred] == 0) p->nred++;
    p->numel = 1;
    for (int d = 0; d < p->ndim; d++) p->numel *= p->shape[d];
}

/* Byte offsets of outer position `lin` over dims [from, to) (dim `from` fastest). */
static void ct__rplan_offsets(const ct__rplan *p, int from, int to, int64_t lin, int64_t *oo, int64_t *io)
{
    *oo = *io = 0;
    for (int d = from; d < to; d++) {
        int64_t x = lin % p->shape[d];
        lin /= p->shape[d];
        *oo += x * p->os[d];
        *io += x * p->is[d];
    }
}

static int64_t ct__rplan_count(const ct__rplan *p, int from, int to)
{
    int64_t n = 1;
    for (int d = from; d < to; d++) n *= p->shape[d];
    return n;
}

/* ---------------------------------------------------------------- 2-D loops over a plan */

/* TensorIterator's loop2d: n0 elements along dim 0 for each of n1 along dim
 * 1; s = {out stride 0, in stride 0, out stride 1, in stride 1}. */
typedef void (*ct__loop2d)(char *out, const char *in, const int64_t *s, int64_t n0, int64_t n1, void *ctx);

typedef struct ct__rjob {
    const ct__rplan *p;
    ct__loop2d fn;
    void *ctx;
    int first_kept; /* the first outer dim that is kept */
} ct__rjob;

/* The 2-D blocks of kept outer positions [b, e), each with its reduced outer
 * positions in order: what serial_for_each does for those outputs. */
static void ct__rjob_outer(int64_t b, int64_t e, void *ctx)
{
    const ct__rjob *j = (const ct__rjob *)ctx;
    const ct__rplan *p = j->p;
    int64_t s[4] = {p->os[0], p->is[0], p->ndim > 1 ? p->os[1] : 0, p->ndim > 1 ? p->is[1] : 0};
    int64_t n1 = p->ndim > 1 ? p->shape[1] : 1, nred = ct__rplan_count(p, 2, j->first_kept);
    for (int64_t k = b; k < e; k++) {
        int64_t ko, ki;
        ct__rplan_offsets(p, j->first_kept, p->ndim, k, &ko, &ki);
        for (int64_t r = 0; r < nred; r++) {
            int64_t ro, ri;
            ct__rplan_offsets(p, 2, j->first_kept, r, &ro, &ri);
            j->fn(p->out ? p->out + ko + ro : NULL, p->in + ki + ri, s, p->shape[0], n1, j->ctx);
        }
    }
}

/* Column chunks [b, e) of 64 (whole groups of PyTorch's vector columns) of a
 * 2-D plan whose dim 1 is kept. */
static void ct__rjob_cols(int64_t b, int64_t e, void *ctx)
{
    const ct__rjob *j = (const ct__rjob *)ctx;
    const ct__rplan *p = j->p;
    int64_t s[4] = {p->os[0], p->is[0], p->os[1], p->is[1]};
    int64_t c0 = b * 64, c1 = CT__MIN(p->shape[1], e * 64);
    j->fn(p->out + c0 * p->os[1], p->in + c0 * p->is[1], s, p->shape[0], c1 - c0, j->ctx);
}

/* Run fn over the plan in PyTorch's order, in parallel over distinct outputs. */
static void ct__rplan_run(const ct__rplan *p, ct__loop2d fn, void *ctx)
{
    ct__rjob job;
    job.p = p;
    job.fn = fn;
    job.ctx = ctx;
    job.first_kept = CT__MIN(p->ndim, CT__MAX(2, p->nred));
    if (p->numel == 0) return;
    int64_t nkept = ct__rplan_count(p, job.first_kept, p->ndim), block = p->numel / nkept;
    if (nkept > 1) {
        ct__parallel_for(nkept, CT__MAX(1, CT__GRAIN / block), ct__rjob_outer, &job);
    } else if (p->ndim == 2 && p->nred <= 1 && p->shape[1] > 64) {
        ct__parallel_for((p->shape[1] + 63) / 64, CT__MAX(1, CT__GRAIN / (64 * p->shape[0])), ct__rjob_cols, &job);
    } else {
        ct__rjob_outer(0, 1, &job);
    }
}

/* ---------------------------------------------------------------- cascade sums (SumKernel.cpp) */

/* multi_row_sum's level width: 2^lp rows are summed before moving up a level. */
static int ct__cascade_power(int64_t size)
{
    int c = 1;
    while (c < 62 && ((int64_t)1 << c) < size) c++;
    return CT__MAX(4, c / 4);
}

/* One level-0 sum of W lanes, name##_sum, and name##_add(sum, p), which adds
 * the W lanes at p to it. With GCC or clang the sum is a vector: given W
 * scalar accumulators, GCC keeps them in registers and never vectorises the
 * lane loops (the strides are run-time values). ADDV adds the lanes to -0,
 * which leaves every value as it is (and which the compiler drops), so the
 * vector adds are the scalar ones, lane for lane. */
#if defined(__GNUC__)
#define CT__MRS_SUM(name, A, W, ADDV)                                                                     \
    typedef A name##_sum __attribute__((vector_size((W) * sizeof(A))));                                  \
    static inline void name##_add(name##_sum *sum, const char *p)                                         \
    {                                                                                                     \
        A lanes[W];                                                                                       \
        name##_sum v;                                                                                     \
        for (int l = 0; l < (W); l++) lanes[l] = -(A)0;                                                   \
        ADDV(lanes, p);                                                                                   \
        memcpy(&v, lanes, sizeof v);                                                                      \
        *sum += v;                                                                                        \
    }
#else
#define CT__MRS_SUM(name, A, W, ADDV)                                                                     \
    typedef struct name##_sum {                                                                           \
        A lane[W];                                                                                        \
    } name##_sum;                                                                                         \
    static inline void name##_add(name##_sum *sum, const char *p) { ADDV(sum->lane, p); }
#endif

/* Sums run on four levels of accumulators, each 4 vectors of W lanes. A
 * top-level block of 2^(3 lp) rows always starts from zero, so blocks are
 * summed in parallel and added to the top level in order, as the serial
 * loop would. CT__MRS(name, A, W, ADDV) defines
 *   name(in, row stride, column stride, rows, sums[4][W])
 * where ADDV(a, p) adds the W lanes at p to a. */
#define CT__MRS(name, A, W, ADDV)                                                                         \
    CT__MRS_SUM(name, A, W, ADDV)                                                                         \
    /* rows [i, end) added into the four level-0 sums a, held in locals */                                \
    static inline void name##_rows(const char *in, int64_t rs, int64_t cs, int64_t i, int64_t end, A a[4][W]) \
    {                                                                                                     \
        name##_sum t[4];                                                                                  \
        memcpy(t, a, sizeof t);                                                                           \
        for (; i < end; i++) {                                                                            \
            const char *row = in + i * rs;                                                                \
            name##_add(&t[0], row);                                                                       \
            name##_add(&t[1], row + cs);                                                                  \
            name##_add(&t[2], row + 2 * cs);                                                              \
            name##_add(&t[3], row + 3 * cs);                                                              \
        }                                                                                                 \
        memcpy(a, t, sizeof t);                                                                           \
    }                                                                                                     \
    /* a level's sums moved up into the next: one flat loop, which vectorises */                          \
    static inline void name##_carry(A *up, A *level)                                                      \
    {                                                                                                     \
        for (int x = 0; x < 4 * (W); x++) {                                                               \
            up[x] += level[x];                                                                            \
            level[x] = 0;                                                                                 \
        }                                                                                                 \
    }                                                                                                     \
    static void name##_core(const char *in, int64_t rs, int64_t cs, int64_t size, int lp, int64_t i,      \
                            A acc[4][4][W])                                                               \
    {                                                                                                     \
        int64_t step = (int64_t)1 << lp, mask = step - 1;                                                 \
        for (; i + step <= size; i += step) {                                                             \
            name##_rows(in, rs, cs, i, i + step, acc[0]);                                                 \
            for (int j = 1; j < 4; j++) {                                                                 \
                name##_carry(acc[j][0], acc[j - 1][0]);                                                   \
                if ((i + step) & (mask << (j * lp))) break;                                               \
            }                                                                                             \
        }                                                                                                 \
        name##_rows(in, rs, cs, i, size, acc[0]);                                                         \
    }                                                                                                     \
    typedef struct name##_job {                                                                           \
        const char *in;                                                                                   \
        int64_t rs, cs, top;                                                                              \
        int lp;                                                                                           \
        A *blocks;                                                                                        \
    } name##_job;                                                                                         \
    static void name##_blocks(int64_t b, int64_t e, void *ctx)                                            \
    {                                                                                                     \
        const name##_job *jb = (const name##_job *)ctx;                                                   \
        for (int64_t m = b; m < e; m++) {                                                                 \
            A a[4][4][W];                                                                                 \
            memset(a, 0, sizeof a);                                                                       \
            name##_core(jb->in + m * jb->top * jb->rs, jb->rs, jb->cs, jb->top, jb->lp, 0, a);           \
            memcpy(jb->blocks + m * 4 * W, a[3], sizeof a[3]);                                            \
        }                                                                                                 \
    }                                                                                                     \
    static void name(const char *in, int64_t rs, int64_t cs, int64_t size, A sums[4][W])                  \
    {                                                                                                     \
        A acc[4][4][W];                                                                                   \
        int lp = ct__cascade_power(size);                                                                 \
        int64_t start = 0, top = lp < 20 ? (int64_t)1 << (3 * lp) : size, nb = size / top;                \
        A *blocks = nb > 1 ? (A *)CT_MALLOC((size_t)nb * 4 * W * sizeof(A)) : NULL;                       \
        memset(acc, 0, sizeof acc);                                                                       \
        if (blocks) {                                                                                     \
            name##_job jb;                                                                                \
            jb.in = in;                                                                                   \
            jb.rs = rs;                                                                                   \
            jb.cs = cs;                                                                                   \
            jb.top = top;                                                                                 \
            jb.lp = lp;                                                                                   \
            jb.blocks = blocks;                                                                           \
            ct__parallel_for(nb, 1, name##_blocks, &jb);                                                  \
            for (int64_t m = 0; m < nb; m++)                                                              \
                for (int k = 0; k < 4; k++)                                                               \
                    for (int l = 0; l < W; l++) acc[3][k][l] += blocks[(m * 4 + k) * W + l];              \
            start = nb * top;                                                                             \
            CT_FREE(blocks);                                                                              \
        }                                                                                                 \
        name##_core(in, rs, cs, size, lp, start, acc);                                                    \
        for (int j = 1; j < 4; j++)                                                                       \
            for (int k = 0; k < 4; k++)                                                                   \
                for (int l = 0; l < W; l++) acc[0][k][l] += acc[j][k][l];                                 \
        memcpy(sums, acc[0], sizeof acc[0]);                                                              \
    }

/* row_sum: the row read as (-1, 4), its four column sums, the rest added to
 * the first, then the four added up. */
#define CT__ROWSUM(name, mrs, A, W, ADDV)                                                                 \
    static void name(const char *in, int64_t stride, int64_t size, A out[W])                              \
    {                                                                                                     \
        A p[4][W];                                                                                        \
        mrs(in, 4 * stride, stride, size / 4, p);                                                         \
        for (int64_t i = size / 4 * 4; i < size; i++) ADDV(p[0], in + i * stride);                       \
        for (int k = 1; k < 4; k++)                                                                       \
            for (int l = 0; l < W; l++) p[0][l] += p[k][l];                                               \
        memcpy(out, p[0], sizeof p[0]);                                                                   \
    }

/* One family of cascade sums: input dtype `fam`, accumulator A with W lanes,
 * ES bytes an element, VN elements a vector load, LD a scalar load, LDVI the
 * inner vector load (W lanes from VN elements), STORE(p, v) adding a sum to
 * an output as PyTorch's CastStoreAccumulate, ADD(o, x) the elementwise
 * out + in of a reduction over nothing. */
#define CT__CASCADE(fam, A, W, ES, VN, LD, LDVI, STORE, ADD)                                              \
    static inline void ct__ld1_##fam(A *a, const char *p) { a[0] += LD(p); }                              \
    static inline void ct__ldo_##fam(A *a, const char *p)                                                 \
    {                                                                                                     \
        for (int l = 0; l < W; l++) a[l] += LD(p + l * (ES));                                             \
    }                                                                                                     \
    static inline void ct__ldi_##fam(A *a, const char *p) { LDVI(a, p); }                                 \
    CT__MRS(ct__mrs1_##fam, A, 1, ct__ld1_##fam)                                                          \
    CT__MRS(ct__mrso_##fam, A, W, ct__ldo_##fam)                                                          \
    CT__MRS(ct__mrsi_##fam, A, W, ct__ldi_##fam)                                                          \
    CT__ROWSUM(ct__rsum1_##fam, ct__mrs1_##fam, A, 1, ct__ld1_##fam)                                      \
    CT__ROWSUM(ct__rsumo_##fam, ct__mrso_##fam, A, W, ct__ldo_##fam)                                      \
    CT__ROWSUM(ct__rsumi_##fam, ct__mrsi_##fam, A, W, ct__ldi_##fam)                                      \
    /* vectorized_inner_sum: each of n1 rows contiguous over n0 */                                       \
    static void ct__csum_inner_##fam(char *out, const char *in, int64_t istride, int64_t ostride, int64_t n0, \
                                     int64_t n1)                                                          \
    {                                                                                                     \
        int64_t nv = n0 / (VN);                                                                           \
        for (int64_t j = 0; j < n1; j++) {                                                                \
            const char *row = in + j * istride;                                                           \
            A v[W], fin = 0;                                                                              \
            ct__rsumi_##fam(row, (VN) * (ES), nv, v);                                                     \
            for (int64_t k = nv * (VN); k < n0; k++) fin += LD(row + k * (ES));                           \
            for (int l = 0; l < W; l++) fin += v[l];                                                      \
            STORE(out + j * ostride, fin);                                                                \
        }                                                                                                 \
    }                                                                                                     \
    /* vectorized_outer_sum: n0 rows of n1 contiguous columns */                                         \
    static void ct__csum_outer_##fam(char *out, const char *in, int64_t istride, int64_t ostride, int64_t n0, \
                                     int64_t n1)                                                          \
    {                                                                                                     \
        int64_t j = 0;                                                                                    \
        for (; j + 4 * W <= n1; j += 4 * W) {                                                             \
            A s[4][W];                                                                                    \
            ct__mrso_##fam(in + j * (ES), istride, W * (ES), n0, s);                                      \
            for (int k = 0; k < 4; k++)                                                                   \
                for (int l = 0; l < W; l++) STORE(out + (j + k * W + l) * ostride, s[k][l]);             \
        }                                                                                                 \
        for (; j + W <= n1; j += W) {                                                                     \
            A s[W];                                                                                       \
            ct__rsumo_##fam(in + j * (ES), istride, n0, s);                                               \
            for (int l = 0; l < W; l++) STORE(out + (j + l) * ostride, s[l]);                             \
        }                                                                                                 \
        for (; j < n1; j++) {                                                                             \
            A s[1];                                                                                       \
            ct__rsum1_##fam(in + j * (ES), istride, n0, s);                                               \
            STORE(out + j * ostride, s[0]);                                                               \
        }                                                                                                 \
    }                                                                                                     \
    /* scalar_inner_sum and scalar_outer_sum: strided both ways */                                       \
    static void ct__csum_scalar_##fam(char *out, const char *in, const int64_t *is, int64_t ostride, int64_t n0, \
                                      int64_t n1, bool inner)                                             \
    {                                                                                                     \
        int64_t j = 0;                                                                                    \
        for (; !inner && j + 3 < n1; j += 4) {                                                            \
            A s[4][1];                                                                                    \
            ct__mrs1_##fam(in + j * is[1], is[0], is[1], n0, s);                                          \
            for (int k = 0; k < 4; k++) STORE(out + (j + k) * ostride, s[k][0]);                          \
        }                                                                                                 \
        for (; j < n1; j++) {                                                                             \
            A s[1];                                                                                       \
            ct__rsum1_##fam(in + j * is[1], is[0], n0, s);                                                \
            STORE(out + j * ostride, s[0]);                                                               \
        }                                                                                                 \
    }                                                                                                     \
    /* cascade_sum's loop2d */                                                                            \
    static void ct__csum_##fam(char *out, const char *in, const int64_t *s, int64_t n0, int64_t n1, void *ctx) \
    {                                                                                                     \
        int64_t is[2] = {s[1], s[3]}, os[2] = {s[0], s[2]};                                               \
        (void)ctx;                                                                                        \
        if (os[0] != 0 && os[1] == 0) { /* the reduced dim first */                                      \
            int64_t t = is[0];                                                                            \
            is[0] = is[1], is[1] = t, os[0] = 0, os[1] = s[0], t = n0, n0 = n1, n1 = t;                   \
        }                                                                                                 \
        if (os[0] != 0) { /* nothing is reduced */                                                        \
            for (int64_t j = 0; j < n1; j++)                                                              \
                for (int64_t i = 0; i < n0; i++) ADD(out + i * s[0] + j * s[2], in + i * s[1] + j * s[3]); \
        } else if (is[0] == (ES) && n0 >= (VN)) {                                                         \
            ct__csum_inner_##fam(out, in, is[1], os[1], n0, n1);                                          \
        } else if (is[1] == (ES) && n1 >= (VN)) {                                                         \
            ct__csum_outer_##fam(out, in, is[0], os[1], n0, n1);                                          \
        } else {                                                                                          \
            ct__csum_scalar_##fam(out, in, is, os[1], n0, n1, is[0] < is[1]);                             \
        }                                                                                                 \
    }

/* Loads, with NaN as zero for nansum. */
static inline float ct__nzf(float v) { return v != v ? 0.0f : v; }
static inline double ct__nzd(double v) { return v != v ? 0.0 : v; }
#define CT__LD_F32(p) (*(const float *)(p))
#define CT__LD_F64(p) (*(const double *)(p))
#define CT__LD_NF32(p) ct__nzf(*(const float *)(p))
#define CT__LD_NF64(p) ct__nzd(*(const double *)(p))
#define CT__LD_NF16(p) ct__nzf(ct__h2f(p))
#define CT__LD_NBF16(p) ct__nzf(ct__b2f(p))
/* Inner vector loads: float and double lanes are the elements; float16
 * lanes sum neighbouring pairs (load_reduce_vec), bfloat16 lanes the two
 * halves of 16 elements (load_fp32_from_bf16). */
#define CT__LDVI_SAME(a, p, LD, ES) \
    for (int l = 0; l < 8 * 4 / (ES); l++) (a)[l] += LD((p) + l * (ES))
#define CT__LDVI_PAIRS(a, p, LD) \
    for (int l = 0; l < 8; l++) (a)[l] += (0.0f + LD((p) + 4 * l)) + LD((p) + 4 * l + 2)
#define CT__LDVI_HALVES(a, p, LD) \
    for (int l = 0; l < 8; l++) (a)[l] += LD((p) + 2 * l) + LD((p) + 2 * l + 16)
/* Stores: out += sum; float16 and bfloat16 round the sum, then the addition. */
#define CT__ST_F32(p, v) (*(float *)(p) += (v))
#define CT__ST_F64(p, v) (*(double *)(p) += (v))
#define CT__ST_F16(p, v) ct__f2h(p, ct__h2f(p) + ct__rh(v))
#define CT__ST_BF16(p, v) ct__f2b(p, ct__b2f(p) + ct__rb(v))
#define CT__ADD_F32(o, x) (*(float *)(o) += *(const float *)(x))
#define CT__ADD_F64(o, x) (*(double *)(o) += *(const double *)(x))
#define CT__ADD_F16(o, x) ct__f2h(o, ct__h2f(o) + ct__h2f(x))
#define CT__ADD_BF16(o, x) ct__f2b(o, ct__b2f(o) + ct__b2f(x))
#define CT__ADD_NF32(o, x) (*(float *)(o) = ct__nzf(*(float *)(o)) + CT__LD_NF32(x))
#define CT__ADD_NF64(o, x) (*(double *)(o) = ct__nzd(*(double *)(o)) + CT__LD_NF64(x))
#define CT__ADD_NF16(o, x) ct__f2h(o, ct__nzf(ct__h2f(o)) + CT__LD_NF16(x))
#define CT__ADD_NBF16(o, x) ct__f2b(o, ct__nzf(ct__b2f(o)) + CT__LD_NBF16(x))

#define CT__LDVI_f32(a, p) CT__LDVI_SAME(a, p, CT__LD_F32, 4)
#define CT__LDVI_f64(a, p) CT__LDVI_SAME(a, p, CT__LD_F64, 8)
#define CT__LDVI_f16(a, p) CT__LDVI_PAIRS(a, p, ct__h2f)
#define CT__LDVI_bf16(a, p) CT__LDVI_HALVES(a, p, ct__b2f)
#define CT__LDVI_nf32(a, p) CT__LDVI_SAME(a, p, CT__LD_NF32, 4)
#define CT__LDVI_nf64(a, p) CT__LDVI_SAME(a, p, CT__LD_NF64, 8)
#define CT__LDVI_nf16(a, p) CT__LDVI_PAIRS(a, p, CT__LD_NF16)
#define CT__LDVI_nbf16(a, p) CT__LDVI_HALVES(a, p, CT__LD_NBF16)

CT__CASCADE(f32, float, 8, 4, 8, CT__LD_F32, CT__LDVI_f32, CT__ST_F32, CT__ADD_F32)
CT__CASCADE(f64, double, 4, 8, 4, CT__LD_F64, CT__LDVI_f64, CT__ST_F64, CT__ADD_F64)
CT__CASCADE(f16, float, 8, 2, 16, ct__h2f, CT__LDVI_f16, CT__ST_F16, CT__ADD_F16)
CT__CASCADE(bf16, float, 8, 2, 16, ct__b2f, CT__LDVI_bf16, CT__ST_BF16, CT__ADD_BF16)
CT__CASCADE(nf32, float, 8, 4, 8, CT__LD_NF32, CT__LDVI_nf32, CT__ST_F32, CT__ADD_NF32)
CT__CASCADE(nf64, double, 4, 8, 4, CT__LD_NF64, CT__LDVI_nf64, CT__ST_F64, CT__ADD_NF64)
CT__CASCADE(nf16, float, 8, 2, 16, CT__LD_NF16, CT__LDVI_nf16, CT__ST_F16, CT__ADD_NF16)
CT__CASCADE(nbf16, float, 8, 2, 16, CT__LD_NBF16, CT__LDVI_nbf16, CT__ST_BF16, CT__ADD_NBF16)

static ct__loop2d ct__cascade_loop(ct_dtype dt, bool nan)
{
    switch (dt) {
    case CT_F64: return nan ? ct__csum_nf64 : ct__csum_f64;
    case CT_F16: return nan ? ct__csum_nf16 : ct__csum_f16;
    case CT_BF16: return nan ? ct__csum_nbf16 : ct__csum_bf16;
    default: return nan ? ct__csum_nf32 : ct__csum_f32;
    }
}

/* ---------------------------------------------------------------- floating products (Reduce.h) */

/* binary_kernel_reduce_vec with multiplication: a contiguous row runs in 4
 * vectors of VW lanes folded at the end, columns run down each column. */
#define CT__PROD(T, VW)                                                                                   \
    static void ct__prod_inner_##T(T *out, const T *x, int64_t n)                                         \
    {                                                                                                     \
        int64_t count = n / (4 * VW), i = count * 4 * VW;                                                 \
        if (count > 0) {                                                                                  \
            T acc[4][VW], b;                                                                              \
            memcpy(acc, x, sizeof acc);                                                                   \
            for (int64_t c = 1; c < count; c++)                                                           \
                for (int k = 0; k < 4; k++)                                                               \
                    for (int l = 0; l < VW; l++) acc[k][l] *= x[(c * 4 + k) * VW + l];                    \
            for (int l = 0; l < VW; l++) acc[0][l] = (acc[0][l] * acc[1][l]) * (acc[2][l] * acc[3][l]);  \
            b = acc[0][0];                                                                                \
            for (int l = 1; l < VW; l++) b *= acc[0][l];                                                  \
            *out *= b;                                                                                    \
        }                                                                                                 \
        for (; i < n; i++) *out *= x[i];                                                                  \
    }                                                                                                     \
    static void ct__prod_outer_##T(T *out, const char *in, int64_t stride, int64_t n0, int64_t n1)        \
    {                                                                                                     \
        int64_t j = 0;                                                                                    \
        for (; j + 4 * VW <= n1; j += 4 * VW) {                                                           \
            T acc[4 * VW];                                                                                \
            memcpy(acc, in + j * sizeof(T), sizeof acc);                                                  \
            for (int64_t i = 1; i < n0; i++) {                                                            \
                const T *x = (const T *)(in + i * stride) + j;                                            \
                for (int l = 0; l < 4 * VW; l++) acc[l] *= x[l];                                          \
            }                                                                                             \
            for (int l = 0; l < 4 * VW; l++) out[j + l] *= acc[l];                                        \
        }                                                                                                 \
        for (; j < n1; j++)                                                                               \
            for (int64_t i = 0; i < n0; i++) out[j] *= *((const T *)(in + i * stride) + j);               \
    }                                                                                                     \
    static void ct__prod_##T(char *out, const char *in, const int64_t *s, int64_t n0, int64_t n1, void *ctx) \
    {                                                                                                     \
        (void)ctx;                                                                                        \
        if (s[0] == 0 && s[1] == (int64_t)sizeof(T)) {                                                    \
            for (int64_t j = 0; j < n1; j++)                                                              \
                ct__prod_inner_##T((T *)(out + j * s[2]), (const T *)(in + j * s[3]), n0);                \
        } else if (s[0] == 0 && s[2] == (int64_t)sizeof(T) && s[3] == (int64_t)sizeof(T)) {               \
            ct__prod_outer_##T((T *)out, in, s[1], n0, n1);                                               \
        } else {                                                                                          \
            for (int64_t j = 0; j < n1; j++)                                                              \
                for (int64_t i = 0; i < n0; i++)                                                          \
                    *(T *)(out + i * s[0] + j * s[2]) *= *(const T *)(in + i * s[1] + j * s[3]);          \
        }                                                                                                 \
    }
CT__PROD(float, 8)
CT__PROD(double, 4)

/* ---------------------------------------------------------------- reductions whose order cannot show */


/* A row's extreme through keys where the dtype has them (see above): FAST_MAX_<name> and
 * FAST_MIN_<name> (x, n, &v) store it in v and say whether they did. */
#define CT__NO_FAST(x, n, v) ((void)(x), (void)(n), (void)(v), false)
#define CT__FAST_MAX_f32(x, n, v) ct__extreme_f32(x, n, true, v)
#define CT__FAST_MIN_f32(x, n, v) ct__extreme_f32(x, n, false, v)
#define CT__FAST_MAX_f64(x, n, v) ct__extreme_f64(x, n, true, v)
#define CT__FAST_MIN_f64(x, n, v) ct__extreme_f64(x, n, false, v)
#define CT__FAST_MAX_f16(x, n, v) ct__extreme_f16(x, n, true, v)
#define CT__FAST_MIN_f16(x, n, v) ct__extreme_f16(x, n, false, v)
#define CT__FAST_MAX_bf16(x, n, v) ct__extreme_bf16(x, n, true, v)
#define CT__FAST_MIN_bf16(x, n, v) ct__extreme_bf16(x, n, false, v)
#define CT__FAST_MAX_b8 CT__NO_FAST
#define CT__FAST_MIN_b8 CT__NO_FAST
#define CT__FAST_MAX_i64 CT__NO_FAST
#define CT__FAST_MIN_i64 CT__NO_FAST

/* out = OP(out, x) over a 2-D block: integer sums and products (which wrap,
 * so any order gives the same bits), extremes, logic and counts. LIFT makes
 * an element a partial result and COMBINE joins two, so that a contiguous
 * row runs in 16 independent lanes the compiler can vectorise. FAST(x, n,
 * &v) may give a contiguous row's result v first (the extremes of floating
 * dtypes: it is then the value the lanes would give). */
#define CT__FREE_LOOP(name, TI, TO, OP, LIFT, COMBINE, FAST)                                             \
    static inline TO name##_row(TO acc, const TI *x, int64_t n)                                           \
    {                                                                                                     \
        int64_t i = 0;                                                                                    \
        TO v;                                                                                             \
        if (FAST(x, n, &v)) return COMBINE(acc, v);                                                       \
        if (n >= 32) {                                                                                    \
            TO lanes[16];                                                                                 \
            for (int l = 0; l < 16; l++) lanes[l] = LIFT(x[l]);                                           \
            for (i = 16; i + 16 <= n; i += 16)                                                            \
                for (int l = 0; l < 16; l++) lanes[l] = OP(lanes[l], x[i + l]);                           \
            /* pairwise: gcc 12 at -O3 miscompiles the int8 sum folded lane by lane */                    \
            for (int w = 8; w > 0; w /= 2)                                                                \
                for (int l = 0; l < w; l++) lanes[l] = COMBINE(lanes[l], lanes[l + w]);                   \
            acc = COMBINE(acc, lanes[0]);                                                                 \
        }                                                                                                 \
        for (; i < n; i++) acc = OP(acc, x[i]);                                                           \
        return acc;                                                                                       \
    }                                                                                                     \
    static void name(char *out, const char *in, const int64_t *s, int64_t n0, int64_t n1, void *ctx)      \
    {                                                                                                     \
        (void)ctx;                                                                                        \
        if (s[0] == 0 && s[2] == (int64_t)sizeof(TO) && s[3] == (int64_t)sizeof(TI)) { /* row by row */   \
            TO *o = (TO *)out;                                                                            \
            for (int64_t i = 0; i < n0; i++) {                                                            \
                const TI *x = (const TI *)(in + i * s[1]);                                                \
                for (int64_t j = 0; j < n1; j++) o[j] = OP(o[j], x[j]);                                   \
            }                                                                                             \
            return;                                                                                       \
        }                                                                                                 \
        for (int64_t j = 0; j < n1; j++) {                                                                \
            char *o = out + j * s[2];                                                                     \
            const char *x = in + j * s[3];                                                                \
            if (s[0] == 0 && s[1] == (int64_t)sizeof(TI)) {                                               \
                *(TO *)o = name##_row(*(TO *)o, (const TI *)x, n0);                                       \
            } else if (s[0] == 0) {                                                                       \
                TO acc = *(TO *)o;                                                                        \
                for (int64_t i = 0; i < n0; i++) acc = OP(acc, *(const TI *)(x + i * s[1]));              \
                *(TO *)o = acc;                                                                           \
            } else {                                                                                      \
                for (int64_t i = 0; i < n0; i++) {                                                        \
                    TO *a = (TO *)(o + i * s[0]);                                                         \
                    *a = OP(*a, *(const TI *)(x + i * s[1]));                                             \
                }                                                                                         \
            }                                                                                             \
        }                                                                                                 \
    }

#define CT__AS_I64(x) ((int64_t)(x))
#define CT__SAME(x) (x)
#define CT__AND(a, b) ((a) && (b))
#define CT__OR(a, b) ((a) || (b))
#define CT__ALL_LOOPS(name, DT, _)                                                                        \
    CT__FREE_LOOP(ct__rall_##name, ct__##name##_t, uint8_t, CT__OPALL_##name, CT__NZ_##name, CT__AND, CT__NO_FAST) \
    CT__FREE_LOOP(ct__rany_##name, ct__##name##_t, uint8_t, CT__OPANY_##name, CT__NZ_##name, CT__OR, CT__NO_FAST) \
    CT__FREE_LOOP(ct__rcount_##name, ct__##name##_t, int64_t, CT__OPCOUNT_##name, CT__NZ_##name, CT__OP_ADD,  \
                  CT__NO_FAST)                                                                            \
    CT__FREE_LOOP(ct__rmax_##name, ct__##name##_t, ct__##name##_t, CT__OPMAX_##name, CT__SAME, CT__OPMAX_##name, \
                  CT__FAST_MAX_##name)                                                                    \
    CT__FREE_LOOP(ct__rmin_##name, ct__##name##_t, ct__##name##_t, CT__OPMIN_##name, CT__SAME, CT__OPMIN_##name, \
                  CT__FAST_MIN_##name)
CT__FREE_DTYPES(CT__ALL_LOOPS)
#define CT__INT_LOOPS(name)                                                                               \
    CT__FREE_LOOP(ct__rsum_##name, ct__##name##_t, int64_t, CT__OP_ADD, CT__AS_I64, CT__OP_ADD, CT__NO_FAST) \
    CT__FREE_LOOP(ct__rprod_##name, ct__##name##_t, int64_t, CT__OP_MUL, CT__AS_I64, CT__OP_MUL, CT__NO_FAST)
CT__INT_LOOPS(b8)
CT__INT_LOOPS(i64)

/* An order-free op on a narrow integer dtype (uint8, int8, int16, int32):
 * int64's loop on the input widened a chunk at a time, which gives the same
 * results (sums and products wrap alike in int64; the extremes of the
 * widened values are the values). The extremes' output, of the input's
 * dtype, is widened and narrowed with it; the others' is bool or int64. */
typedef struct ct__free_widened {
    ct__loop2d loop; /* int64's */
    ct_dtype dt;
    bool out_widened;
} ct__free_widened;

static void ct__free_widened_loop(char *out, const char *in, const int64_t *s, int64_t n0, int64_t n1, void *ctx)
{
    enum { CHUNK = 256 };
    const ct__free_widened *w = (const ct__free_widened *)ctx;
    int64_t x[CHUNK], o[CHUNK];
    for (int64_t j = 0; j < n1; j++) {
        for (int64_t at = 0; at < n0; at += CHUNK) {
            const int64_t m = CT__MIN((int64_t)CHUNK, n0 - at);
            char *op = out + j * s[2] + at * s[0];
            ct__load_widened(w->dt, in + j * s[3] + at * s[1], s[1], m, x);
            if (!w->out_widened) {
                const int64_t ws[4] = {s[0], sizeof x[0], 0, 0};
                w->loop(op, (const char *)x, ws, m, 1, NULL);
                continue;
            }
            const int64_t no = s[0] == 0 ? 1 : m; /* one accumulator, or an output per element */
            const int64_t ws[4] = {s[0] == 0 ? 0 : (int64_t)sizeof o[0], sizeof x[0], 0, 0};
            ct__load_widened(w->dt, op, s[0], no, o);
            w->loop((char *)o, (const char *)x, ws, m, 1, NULL);
            ct__store_narrowed(w->dt, o, op, s[0], no);
        }
    }
}

/* The loop of an order-free op for input dtype dt, and its context: NULL,
 * or *w filled for the narrow integers' widening loop. */
static ct__loop2d ct__free_loop(ct__rop op, ct_dtype dt, ct__free_widened *w, void **ctx)
{
#define CT__CASE_ALL(name, DT, _)                                                                         \
    case DT:                                                                                              \
        return op == CT__ROP_ALL ? ct__rall_##name : op == CT__ROP_ANY ? ct__rany_##name                  \
             : op == CT__ROP_COUNT ? ct__rcount_##name : op == CT__ROP_MAX ? ct__rmax_##name : ct__rmin_##name;
    *ctx = NULL;
    if (dt == CT_U8 || dt == CT_I8 || dt == CT_I16 || dt == CT_I32) {
        void *unused;
        w->loop = ct__free_loop(op, CT_I64, w, &unused);
        w->dt = dt;
        w->out_widened = op == CT__ROP_MAX || op == CT__ROP_MIN;
        *ctx = w;
        return ct__free_widened_loop;
    }
    if (op == CT__ROP_SUM || op == CT__ROP_PROD) {
        if (dt == CT_BOOL) return op == CT__ROP_SUM ? ct__rsum_b8 : ct__rprod_b8;
        return op == CT__ROP_SUM ? ct__rsum_i64 : ct__rprod_i64;
    }
    switch (dt) {
        CT__FREE_DTYPES(CT__CASE_ALL)
    default: return NULL;
    }
#undef CT__CASE_ALL
}

/* How partial results of an order-free op are combined: counts add up. */
static ct__loop2d ct__combine_loop(ct__rop op, ct_dtype out_dtype, ct__free_widened *w, void **ctx)
{
    return ct__free_loop(op == CT__ROP_COUNT ? CT__ROP_SUM : op, op == CT__ROP_COUNT ? CT_I64 : out_dtype, w, ctx);
}

typedef struct ct__split_job {
    const ct__rplan *p;
    ct__loop2d fn;
    void *ctx;
    uint64_t *slots; /* one partial output per chunk, starting as the identity */
    int64_t chunk;
} ct__split_job;

static void ct__split_run(int64_t b, int64_t e, void *ctx)
{
    const ct__split_job *j = (const ct__split_job *)ctx;
    int last = j->p->ndim - 1;
    for (int64_t c = b; c < e; c++) {
        ct__rplan sub = *j->p;
        int64_t start = c * j->chunk;
        sub.shape[last] = CT__MIN(j->chunk, j->p->shape[last] - start);
        sub.in += start * sub.is[last];
        sub.out = (char *)&j->slots[c];
        ct__rjob job;
        job.p = &sub;
        job.fn = j->fn;
        job.ctx = j->ctx;
        job.first_kept = sub.ndim;
        ct__rjob_outer(0, 1, &job);
    }
}

/* An order-free op into one output: chunks of the outermost dim reduce into
 * partial results in parallel, which are then combined. */
static void ct__run_free(const ct__rplan *p, ct__rop op, ct_dtype in_dtype, ct_dtype out_dtype)
{
    ct__free_widened w;
    void *ctx;
    ct__loop2d fn = ct__free_loop(op, in_dtype, &w, &ctx);
    int last = p->ndim - 1;
    int64_t chunks = CT__MIN(p->shape[last], (p->numel + CT__GRAIN - 1) / CT__GRAIN);
    uint64_t *slots = p->nred == p->ndim && chunks > 1 ? (uint64_t *)CT_MALLOC((size_t)chunks * 8) : NULL;
    if (!slots) {
        ct__rplan_run(p, fn, ctx);
        return;
    }
    ct__split_job j;
    j.p = p;
    j.fn = fn;
    j.ctx = ctx;
    j.slots = slots;
    j.chunk = (p->shape[last] + chunks - 1) / chunks;
    chunks = (p->shape[last] + j.chunk - 1) / j.chunk;
    for (int64_t c = 0; c < chunks; c++) memcpy(&slots[c], p->out, ct_dtype_size(out_dtype));
    ct__parallel_for(chunks, 1, ct__split_run, &j);
    int64_t s[4] = {0, 8, 0, 0};
    ct__loop2d combine = ct__combine_loop(op, out_dtype, &w, &ctx);
    combine(p->out, (const char *)slots, s, chunks, 1, ctx);
    CT_FREE(slots);
}

/* ---------------------------------------------------------------- one output at a time */

/* binary_kernel_reduce: each output reduces its elements in the plan's
 * order (dim 0 fastest), one output per task. A row function consumes
 * elements into an accumulator; a finish function writes the output. */
typedef struct ct__each {
    const ct__rplan *p;
    void (*start)(void *acc, const void *ctx);
    void (*row)(void *acc, const char *x, int64_t stride, int64_t n, const void *ctx);
    /* CT__EACH_ROWS outputs' rows at once, when only one dim is reduced
     * (NULL: row by row): an op whose update is a chain of dependent
     * operations (Welford's division) then runs that many chains side by
     * side, each output's result unchanged. */
    void (*rows)(void *const *accs, const char *const *x, int64_t stride, int64_t n, const void *ctx);
    void (*finish)(void *acc, char *out, int64_t offset, const void *ctx);
    const void *ctx;
} ct__each;

enum { CT__EACH_ROWS = 8 };

/* outputs k .. k + CT__EACH_ROWS - 1 of a plan that reduces one dim */
static void ct__each_rows(const ct__each *w, int64_t k)
{
    const ct__rplan *p = w->p;
    double acc[CT__EACH_ROWS][8];
    void *accs[CT__EACH_ROWS];
    const char *x[CT__EACH_ROWS];
    int64_t oo[CT__EACH_ROWS];
    for (int r = 0; r < CT__EACH_ROWS; r++) {
        int64_t io;
        ct__rplan_offsets(p, 1, p->ndim, k + r, &oo[r], &io);
        accs[r] = acc[r];
        x[r] = p->in + io;
        w->start(acc[r], w->ctx);
    }
    w->rows(accs, x, p->is[0], p->shape[0], w->ctx);
    for (int r = 0; r < CT__EACH_ROWS; r++) w->finish(acc[r], p->out + oo[r], oo[r], w->ctx);
}

static void ct__each_run(int64_t b, int64_t e, void *ctx)
{
    const ct__each *w = (const ct__each *)ctx;
    const ct__rplan *p = w->p;
    int64_t rows = ct__rplan_count(p, 1, CT__MAX(1, p->nred)), k = b;
    if (w->rows && p->nred == 1)
        for (; k + CT__EACH_ROWS <= e; k += CT__EACH_ROWS) ct__each_rows(w, k);
    for (; k < e; k++) {
        double acc[8]; /* room for any accumulator */
        int64_t oo, io;
        ct__rplan_offsets(p, p->nred, p->ndim, k, &oo, &io);
        w->start(acc, w->ctx);
        if (p->nred == 0) { /* nothing to reduce: one element each */
            w->row(acc, p->in + io, 0, 1, w->ctx);
        } else {
            for (int64_t r = 0; r < rows; r++) {
                int64_t ro, ri;
                ct__rplan_offsets(p, 1, p->nred, r, &ro, &ri);
                w->row(acc, p->in + io + ri, p->is[0], p->shape[0], w->ctx);
            }
        }
        w->finish(acc, p->out + oo, oo, w->ctx);
    }
}

static void ct__run_each(ct__each *w)
{
    const ct__rplan *p = w->p;
    int64_t outputs = ct__rplan_count(p, p->nred, p->ndim), per = ct__rplan_count(p, 0, p->nred);
    if (p->numel == 0) return;
    ct__parallel_for(outputs, CT__MAX(1, CT__GRAIN / per), ct__each_run, w);
}

/* Welford's update in double, the m2 update fused as GCC compiles PyTorch's. */
typedef struct ct__welford {
    double mean, m2;
    int64_t n;
} ct__welford;

typedef struct ct__var_ctx {
    ct_dtype dt;
    const ct__rargs *args;
    char *mean;
} ct__var_ctx;

static void ct__welford_start(void *acc, const void *ctx)
{
    (void)ctx;
    memset(acc, 0, sizeof(ct__welford));
}

static void ct__welford_row(void *acc, const char *x, int64_t stride, int64_t n, const void *ctx)
{
    ct__welford *w = (ct__welford *)acc;
    ct_dtype dt = ((const ct__var_ctx *)ctx)->dt;
    for (int64_t i = 0; i < n; i++) {
        double v = ct__read_f64(x + i * stride, dt), delta = v - w->mean;
        w->n++;
        w->mean += delta / (double)w->n;
        w->m2 = fma(delta, v - w->mean, w->m2);
    }
}

/* ct__welford_row over CT__EACH_ROWS rows, in step: the same operations on
 * each, the rows' divisions independent. Float and double rows are read
 * directly (no dtype switch in the loop), which lets the compiler vectorise
 * across the rows. */
#define CT__WELFORD_ROWS(T)                                                                                         \
    static void ct__welford_rows_##T(ct__welford *const *w, const char *const *x, int64_t stride, int64_t n)      \
    {                                                                                                               \
        double mean[CT__EACH_ROWS], m2[CT__EACH_ROWS];                                                              \
        int64_t count = w[0]->n;                                                                                    \
        for (int r = 0; r < CT__EACH_ROWS; r++) {                                                                   \
            mean[r] = w[r]->mean;                                                                                   \
            m2[r] = w[r]->m2;                                                                                       \
        }                                                                                                           \
        for (int64_t i = 0; i < n; i++) {                                                                           \
            double c = (double)++count;                                                                             \
            for (int r = 0; r < CT__EACH_ROWS; r++) {                                                               \
                double v = *(const T *)(x[r] + i * stride), delta = v - mean[r];                                    \
                mean[r] += delta / c;                                                                               \
                m2[r] = fma(delta, v - mean[r], m2[r]);                                                             \
            }                                                                                                       \
        }                                                                                                           \
        for (int r = 0; r < CT__EACH_ROWS; r++) {                                                                   \
            w[r]->n = count;                                                                                        \
            w[r]->mean = mean[r];                                                                                   \
            w[r]->m2 = m2[r];                                                                                       \
        }                                                                                                           \
    }
CT__WELFORD_ROWS(float)
CT__WELFORD_ROWS(double)
#undef CT__WELFORD_ROWS

static void ct__welford_rows(void *const *accs, const char *const *x, int64_t stride, int64_t n, const void *ctx)
{
    ct__welford *const *w = (ct__welford *const *)accs;
    ct_dtype dt = ((const ct__var_ctx *)ctx)->dt;
    if (dt == CT_F32) {
        ct__welford_rows_float(w, x, stride, n);
    } else if (dt == CT_F64) {
        ct__welford_rows_double(w, x, stride, n);
    } else {
        for (int r = 0; r < CT__EACH_ROWS; r++) ct__welford_row(w[r], x[r], stride, n, ctx);
    }
}

static void ct__welford_finish(void *acc, char *out, int64_t offset, const void *ctx)
{
    const ct__welford *w = (const ct__welford *)acc;
    const ct__var_ctx *c = (const ct__var_ctx *)ctx;
    double nf = (double)w->n, corr = (double)c->args->correction;
    double var = w->m2 / (nf > corr ? nf - corr : 0.0);
    ct__write_f64(out, c->dt, c->args->take_sqrt ? sqrt(var) : var);
    if (c->mean) ct__write_f64(c->mean + offset, c->dt, w->mean);
}

/* Norms, accumulated in the input's dtype (float16 and bfloat16 round after
 * every operation, as their c10 arithmetic does). */
typedef struct ct__norm_ctx {
    ct_dtype dt;
    double p; /* as PyTorch keeps it: a float */
} ct__norm_ctx;

/* A double rounded to the norm's dtype, as its C++ type holds it. */
static inline double ct__norm_round(double v, ct_dtype dt)
{
    switch (dt) {
    case CT_F16: return ct__rh((float)v);
    case CT_BF16: return ct__rb((float)v);
    case CT_F32: return (float)v;
    default: return v;
    }
}

/* acc + t in the norm's arithmetic: float for float32, float then rounded
 * for float16 and bfloat16 (c10's operator+), double for float64. */
static inline double ct__norm_add(double acc, double t, ct_dtype dt)
{
    if (dt == CT_F64) return acc + t;
    return ct__norm_round((float)acc + (float)t, dt);
}

static void ct__norm_start(void *acc, const void *ctx)
{
    *(double *)acc = ((const ct__norm_ctx *)ctx)->p == -INFINITY ? INFINITY : 0.0;
}

static inline double ct__max_nan(double a, double b) { return a != a ? a : a > b ? a : b; }
static inline double ct__min_nan(double a, double b) { return a != a ? a : a < b ? a : b; }

/* x*x added to acc as PyTorch's compiled code does it: fused in float and
 * double, the square rounded first in float16 and bfloat16. */
static inline double ct__norm_sq(double acc, double x, ct_dtype dt)
{
    if (dt == CT_F32) return fmaf((float)x, (float)x, (float)acc);
    if (dt == CT_F64) return fma(x, x, acc);
    return ct__norm_add(acc, ct__norm_round((float)x * (float)x, dt), dt);
}

static void ct__norm_row(void *acc, const char *x, int64_t stride, int64_t n, const void *ctx)
{
    const ct__norm_ctx *c = (const ct__norm_ctx *)ctx;
    double a = *(double *)acc, p = c->p, pt = ct__norm_round(p, c->dt);
    ct_dtype dt = c->dt;
    for (int64_t i = 0; i < n; i++) {
        double v = ct__read_f64(x + i * stride, dt), av = fabs(v);
        if (p == 0) a = ct__norm_add(a, v != 0, dt);
        else if (p == 1) a = ct__norm_add(a, av, dt);
        else if (p == 2) a = ct__norm_sq(a, v, dt);
        else if (p == INFINITY) a = ct__max_nan(a, av);
        else if (p == -INFINITY) a = ct__min_nan(a, av);
        else if (dt == CT_F64) a = a + pow(av, p);
        else a = ct__norm_add(a, dt == CT_BF16 ? ct__rb(powf((float)av, (float)pt)) : powf((float)av, (float)pt), dt);
    }
    *(double *)acc = a;
}

/* The fused 8-lane loop of the vectorised p = 2 path over n floats (a
 * multiple of 8). fmaf is exact however it is computed; x86 machines with
 * AVX2 and FMA (PyTorch's own kernel needs them) run a copy compiled for
 * them, whose fmaf is one instruction instead of a call into libm. */
#define CT__NORM_LANES(name, ATTR)                                                                        \
    static ATTR void name(const float *x, int64_t n, float *lanes)                                        \
    {                                                                                                     \
        float acc[8];                                                                                     \
        memcpy(acc, lanes, sizeof acc);                                                                   \
        for (int64_t d = 0; d < n; d += 8)                                                                \
            for (int l = 0; l < 8; l++) acc[l] = fmaf(x[d + l], x[d + l], acc[l]);                        \
        memcpy(lanes, acc, sizeof acc);                                                                   \
    }
CT__NORM_LANES(ct__norm_lanes_any, )
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(__FMA__)
CT__NORM_LANES(ct__norm_lanes_fma, __attribute__((target("avx2,fma"))))
static void ct__norm_lanes(const float *x, int64_t n, float *lanes)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ct__norm_lanes_fma(x, n, lanes);
    else ct__norm_lanes_any(x, n, lanes);
}
#else
#define ct__norm_lanes ct__norm_lanes_any
#endif

/* The vectorised p = 2 path of a contiguous row: 8 (bfloat16: 16) lanes
 * with fused updates, folded in order, then the tail, which GCC unrolls by
 * four with the squares rounded before adding, the last few fused. */
static void ct__norm_fast_row(void *acc, const char *x, int64_t stride, int64_t n, const void *ctx)
{
    bool bf = ((const ct__norm_ctx *)ctx)->dt == CT_BF16;
    int64_t vw = bf ? 16 : 8, d = n - n % vw;
    float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0}, b;
    (void)stride;
    if (!bf) ct__norm_lanes((const float *)x, d, lanes);
    for (int64_t e = 0; bf && e < d; e += vw)
        for (int l = 0; l < 8; l++) {
            float v = ct__b2f(x + 2 * (e + l)), w = ct__b2f(x + 2 * (e + 8 + l));
            lanes[l] = fmaf(w, w, fmaf(v, v, lanes[l]));
        }
    b = lanes[0];
    for (int l = 1; l < 8; l++) b += lanes[l];
    for (int64_t i = 0, rest = n - d, body = rest / 4 * 4; i < rest; i++, d++) {
        float v = bf ? ct__b2f(x + 2 * d) : ((const float *)x)[d];
        if (i < body) {
            float sq = v * v;
            b += sq;
        } else {
            b = fmaf(v, v, b);
        }
    }
    *(double *)acc = b;
}

static void ct__norm_finish(void *acc, char *out, int64_t offset, const void *ctx)
{
    const ct__norm_ctx *c = (const ct__norm_ctx *)ctx;
    double a = *(double *)acc, p = c->p;
    (void)offset;
    if (p == 2) {
        a = c->dt == CT_F64 ? sqrt(a) : sqrtf((float)a);
    } else if (p != 0 && p != 1 && p != INFINITY && p != -INFINITY) {
        float inv = (float)(1.0f / (float)ct__norm_round(p, c->dt));
        a = c->dt == CT_F64 ? pow(a, 1.0 / p) : powf((float)a, (float)ct__norm_round(inv, c->dt));
    }
    ct__write_f64(out, c->dt, a);
}

/* ---------------------------------------------------------------- sum of squared deviations */

/* The second pass of std_var_all_cpu: in double, unfused, in memory order;
 * each 2-D block sums on its own before it is added to the total. */
typedef struct ct__sqdev_ctx {
    ct_dtype dt;
    double center, sum;
} ct__sqdev_ctx;

static void ct__sqdev_loop(char *out, const char *in, const int64_t *s, int64_t n0, int64_t n1, void *ctx)
{
    ct__sqdev_ctx *c = (ct__sqdev_ctx *)ctx;
    double block = 0;
    (void)out;
    for (int64_t j = 0; j < n1; j++)
        for (int64_t i = 0; i < n0; i++) {
            double v = ct__read_f64(in + i * s[1] + j * s[3], c->dt) - c->center, sq = v * v;
            block += sq;
        }
    c->sum += block;
}

/* ---------------------------------------------------------------- the reduce entry point */

static void ct__reduce_sqdev(const ct__rplan *p, ct_dtype dt, const ct__rargs *args)
{
    ct__sqdev_ctx c;
    ct__rjob job;
    c.dt = dt;
    c.center = args->center;
    c.sum = 0;
    job.p = p;
    job.fn = ct__sqdev_loop;
    job.ctx = &c;
    job.first_kept = p->ndim; /* one serial pass, as PyTorch's on one thread */
    if (p->numel) ct__rjob_outer(0, 1, &job);
    *args->result = c.sum;
}

static void ct__reduce_var(const ct__rplan *p, ct_dtype dt, const ct__rargs *args)
{
    ct__var_ctx c;
    ct__each w;
    c.dt = dt;
    c.args = args;
    c.mean = args->mean ? ct__data(args->mean) : NULL;
    w.p = p;
    w.start = ct__welford_start;
    w.row = ct__welford_row;
    w.rows = ct__welford_rows;
    w.finish = ct__welford_finish;
    w.ctx = &c;
    ct__run_each(&w);
}

static void ct__reduce_norm(const ct__rplan *p, ct_dtype dt, const ct__rargs *args)
{
    ct__norm_ctx c;
    ct__each w;
    /* p = 2 over a contiguous last dim takes PyTorch's vectorised path */
    bool fast = args->p == 2 && (dt == CT_F32 || dt == CT_BF16) && p->nred == 1 &&
                p->is[0] == (int64_t)ct_dtype_size(dt);
    c.dt = dt;
    c.p = args->p;
    w.p = p;
    w.start = ct__norm_start;
    w.row = fast ? ct__norm_fast_row : ct__norm_row;
    w.rows = NULL;
    w.finish = ct__norm_finish;
    w.ctx = &c;
    ct__run_each(&w);
}

static void ct__cpu_reduce(ct__rop op, ct_tensor *out, const ct_tensor *in, uint32_t mask, const ct__rargs *args)
{
    ct__rplan p;
    ct_dtype dt = in->dtype;
    ct__rplan_init(&p, op == CT__ROP_SQDEV ? NULL : out, in, mask);
    if (op == CT__ROP_SQDEV) ct__reduce_sqdev(&p, dt, args);
    else if (op == CT__ROP_VAR) ct__reduce_var(&p, dt, args);
    else if (op == CT__ROP_NORM) ct__reduce_norm(&p, dt, args);
    else if ((op == CT__ROP_SUM || op == CT__ROP_NANSUM) && ct_dtype_is_floating(dt))
        ct__rplan_run(&p, ct__cascade_loop(dt, op == CT__ROP_NANSUM), NULL);
    else if (op == CT__ROP_PROD && (dt == CT_F32 || dt == CT_F64))
        ct__rplan_run(&p, dt == CT_F32 ? ct__prod_float : ct__prod_double, NULL);
    else
        ct__run_free(&p, op, dt, out->dtype);
}

/* ---------------------------------------------------------------- along one dim: the driver */

typedef void (*ct__row_fn)(const ct__row *r, ct__aop op, bool last);
/* the same for nc adjacent rows, elements one element apart (softmax's columns) */
typedef void (*ct__cols_fn)(const ct__row *r, int64_t nc, bool logsm);

typedef struct ct__along_job {
    ct__iter it;
    int ival, iidx, iin;
    int64_t is, vs, xs, n, es;
    size_t scratch;
    ct__row_fn fn;
    ct__cols_fn cols; /* or NULL */
    ct__aop op;
    bool last;
    int failed;
} ct__along_job;

typedef struct ct__along_range {
    ct__along_job *job;
    void *scratch;
} ct__along_range;

static void ct__along_rows(char **data, const int64_t *strides, int64_t m, void *ctx)
{
    const ct__along_range *rg = (const ct__along_range *)ctx;
    const ct__along_job *j = rg->job;
    ct__row r;
    bool adjacent = j->cols && strides[j->iin] == j->es && strides[j->ival] == j->es;
    r.is = j->is, r.vs = j->vs, r.xs = j->xs, r.n = j->n, r.scratch = rg->scratch;
    for (int64_t k = 0, nc = 1; k < m; k += nc) {
        r.in = data[j->iin] + k * strides[j->iin];
        r.val = j->ival < 0 ? NULL : data[j->ival] + k * strides[j->ival];
        r.idx = j->iidx < 0 ? NULL : data[j->iidx] + k * strides[j->iidx];
        nc = adjacent ? CT__MIN(64, m - k) : 1;
        if (adjacent) j->cols(&r, nc, j->op == CT__AOP_LOG_SOFTMAX);
        else j->fn(&r, j->op, j->last);
    }
}

static void ct__along_part(int64_t b, int64_t e, void *ctx)
{
    ct__along_range rg;
    rg.job = (ct__along_job *)ctx;
    rg.scratch = rg.job->scratch ? CT_MALLOC(rg.job->scratch) : NULL;
    if (rg.job->scratch && !rg.scratch) {
        CT__ATOMIC_INC(&rg.job->failed);
        return;
    }
    ct__iter_range(&rg.job->it, b, e, ct__along_rows, &rg);
    CT_FREE(rg.scratch);
}

/* Every row along dim: the operands are iterated with that dim squashed to
 * size 1 (TensorIterator's declare_static_shape), rows in parallel. */
static ct_result ct__along_run(ct__along_job *job, ct_tensor *values, ct_tensor *indices, const ct_tensor *in,
                               int dim)
{
    ct_tensor sq[3];
    const ct_tensor *ops[3];
    int n = 0;
    job->ival = job->iidx = -1;
    if (values) job->ival = n, sq[n++] = *values;
    if (indices) job->iidx = n, sq[n++] = *indices;
    job->iin = n, sq[n++] = *in;
    for (int k = 0; k < n; k++) {
        if (in->ndim) sq[k].sizes[dim] = 1;
        ops[k] = &sq[k];
    }
    job->n = in->ndim ? in->sizes[dim] : 1;
    job->es = (int64_t)ct__esize(in);
    job->is = in->ndim ? in->strides[dim] * (int64_t)ct__esize(in) : 0;
    job->vs = values && in->ndim ? values->strides[dim] * (int64_t)ct__esize(values) : 0;
    job->xs = indices && in->ndim ? indices->strides[dim] * 8 : 0;
    job->failed = 0;
    ct__iter_init(&job->it, n, ops);
    if (ct_numel(in) == 0) return CT_OK;
    ct__parallel_for(job->it.numel, CT__MAX(1, CT__GRAIN / CT__MAX(1, job->n)), ct__along_part, job);
    return job->failed ? CT__OOM() : CT_OK;
}

/* ---------------------------------------------------------------- selection */

/* For each key type: an (element, index) pair and the lower median by
 * (value, index) order, which ties cannot make depend on the algorithm. */
#define CT__KEYED(kn, V)                                                                                  \
    typedef struct ct__kv_##kn {                                                                          \
        V v;                                                                                              \
        int64_t i;                                                                                        \
    } ct__kv_##kn;                                                                                        \
    static inline bool ct__kvlt_##kn(const ct__kv_##kn *x, const ct__kv_##kn *y)                          \
    {                                                                                                     \
        return x->v < y->v || (x->v == y->v && x->i < y->i);                                              \
    }                                                                                                     \
    static inline void ct__kvswap_##kn(ct__kv_##kn *a, int64_t i, int64_t j)                              \
    {                                                                                                     \
        ct__kv_##kn t = a[i];                                                                             \
        a[i] = a[j];                                                                                      \
        a[j] = t;                                                                                         \
    }                                                                                                     \
    /* the k-th of n by (value, index), quickselect with a median of three */                            \
    static ct__kv_##kn ct__select_##kn(ct__kv_##kn *a, int64_t n, int64_t k)                              \
    {                                                                                                     \
        int64_t lo = 0, hi = n - 1;                                                                       \
        while (hi - lo > 1) {                                                                             \
            int64_t mid = lo + (hi - lo) / 2, i = lo, j = hi;                                             \
            if (ct__kvlt_##kn(&a[mid], &a[lo])) ct__kvswap_##kn(a, lo, mid);                              \
            if (ct__kvlt_##kn(&a[hi], &a[lo])) ct__kvswap_##kn(a, lo, hi);                                \
            if (ct__kvlt_##kn(&a[hi], &a[mid])) ct__kvswap_##kn(a, mid, hi);                              \
            ct__kv_##kn pv = a[mid];                                                                      \
            while (i <= j) {                                                                              \
                while (ct__kvlt_##kn(&a[i], &pv)) i++;                                                    \
                while (ct__kvlt_##kn(&pv, &a[j])) j--;                                                    \
                if (i <= j) ct__kvswap_##kn(a, i++, j--);                                                 \
            }                                                                                             \
            if (k <= j) hi = j;                                                                           \
            else if (k >= i) lo = i;                                                                      \
            else return a[k];                                                                             \
        }                                                                                                 \
        if (hi > lo && ct__kvlt_##kn(&a[hi], &a[lo])) ct__kvswap_##kn(a, lo, hi);                         \
        return a[k];                                                                                      \
    }
CT__KEYED(i64, int64_t)
CT__KEYED(f32, float)
CT__KEYED(f64, double)

/* ---------------------------------------------------------------- along one dim: the row kernels */

/* median.dim: the first NaN, else the lower median by (value, index). */
#define CT__ROW_MEDIAN(name, T, V, LOAD, kn)                                                              \
    static void ct__median_##name(const ct__row *r)                                                       \
    {                                                                                                     \
        ct__kv_##kn *a = (ct__kv_##kn *)r->scratch, m;                                                    \
        for (int64_t i = 0; i < r->n; i++) {                                                              \
            a[i].v = LOAD(r->in + i * r->is);                                                             \
            a[i].i = i;                                                                                   \
            if (a[i].v != a[i].v) {                                                                       \
                memcpy(r->val, r->in + i * r->is, sizeof(T));                                             \
                *(int64_t *)r->idx = i;                                                                   \
                return;                                                                                   \
            }                                                                                             \
        }                                                                                                 \
        m = ct__select_##kn(a, r->n, (r->n - 1) / 2);                                                     \
        memcpy(r->val, r->in + m.i * r->is, sizeof(T));                                                   \
        *(int64_t *)r->idx = m.i;                                                                         \
    }

/* mode: the row sorted as PyTorch's std::sort with operator< on the values
 * leaves it (sort.c's replay), then the first longest run of equal values
 * (a NaN equals nothing) wins and reports the index at its end. */
static void ct__mode_row(const ct__row *r, ct_dtype dt)
{
    ct__sort_kv *a = (ct__sort_kv *)r->scratch;
    const uint64_t nan = ct__sort_nan_key(dt);
    int64_t best = 0, at = 0, run = 0;
    ct__sort_load_keys(dt, r->in, r->is, r->n, 0, a);
    ct__std_sort_values(a, a + r->n, nan);
    for (int64_t i = 0; i < r->n; i++) {
        run++;
        if (i == r->n - 1 || a[i].key != a[i + 1].key || (nan && a[i].key == nan)) {
            if (run > best) best = run, at = a[i].idx;
            run = 0;
        }
    }
    memcpy(r->val, r->in + at * r->is, ct_dtype_size(dt));
    *(int64_t *)r->idx = at;
}

/* The CPU's row kernel of every dtype: median and mode here, the other
 * ops reduce_formulas.h's. name, dtype, storage type, key type and its pair type. */
#define CT__ROWS_ALL(name, DT, T, V, kn)                                                                  \
    CT__ROW_MEDIAN(name, T, V, CT__LOAD_##name, kn)                                                       \
    static void ct__row_##name(const ct__row *r, ct__aop op, bool last)                                   \
    {                                                                                                     \
        if (op == CT__AOP_MEDIAN) ct__median_##name(r);                                                   \
        else if (op == CT__AOP_MODE) ct__mode_row(r, DT);                                                 \
        else ct__along_row_##name(r, op, last);                                                           \
    }

/* softmax over a dim that is not the last, for nc adjacent rows (columns
 * one element apart): each column in the order of reduce_formulas.h's row kernel,
 * the block read in memory order. exp(x - max) waits in the output when
 * its type is A (KEEP 1), else it is computed again. */
#define CT__COLS_SOFTMAX(name, T, A, EXP, LOG, LOAD, STORE, KEEP)                                         \
    static void ct__softmax_cols_##name(const ct__row *r, int64_t nc, bool logsm)                        \
    {                                                                                                     \
        A m[64], sum[64], lsum[64];                                                                       \
        for (int64_t j = 0; j < nc; j++) m[j] = (A)LOAD(r->in + j * sizeof(T)), sum[j] = 0;               \
        for (int64_t i = 1; i < r->n; i++)                                                                \
            for (int64_t j = 0; j < nc; j++) {                                                            \
                A v = (A)LOAD(r->in + i * r->is + j * sizeof(T));                                         \
                if (v != v || v > m[j]) m[j] = v;                                                         \
            }                                                                                             \
        for (int64_t i = 0; i < r->n; i++)                                                                \
            for (int64_t j = 0; j < nc; j++) {                                                            \
                A e = EXP((A)LOAD(r->in + i * r->is + j * sizeof(T)) - m[j]);                             \
                if (KEEP && !logsm) *(A *)(r->val + i * r->vs + j * sizeof(T)) = e;                       \
                sum[j] += e;                                                                              \
            }                                                                                             \
        for (int64_t j = 0; j < nc; j++) lsum[j] = LOG(sum[j]);                                           \
        for (int64_t i = 0; i < r->n; i++)                                                                \
            for (int64_t j = 0; j < nc; j++) {                                                            \
                char *o = r->val + i * r->vs + j * sizeof(T);                                             \
                A x = (A)LOAD(r->in + i * r->is + j * sizeof(T));                                         \
                STORE(o, logsm ? x - m[j] - lsum[j] : (KEEP ? *(A *)o : EXP(x - m[j])) / sum[j]);          \
            }                                                                                             \
    }

/* softmax's columns in the types and functions of reduce_formulas.h's rows */
CT__COLS_SOFTMAX(f32, float, float, ct__vexpf, logf, CT__LOAD_f32, CT__STORE_f32, 1)
CT__COLS_SOFTMAX(f64, double, double, ct__vexp, log, CT__LOAD_f64, CT__STORE_f64, 1)
CT__COLS_SOFTMAX(bf16, uint16_t, float, ct__vexpf, logf, CT__LOAD_bf16, CT__STORE_bf16, 0)

CT__ROWS_ALL(b8, CT_BOOL, uint8_t, int64_t, i64)
CT__ROWS_ALL(u8, CT_U8, uint8_t, int64_t, i64)
CT__ROWS_ALL(i8, CT_I8, int8_t, int64_t, i64)
CT__ROWS_ALL(i16, CT_I16, int16_t, int64_t, i64)
CT__ROWS_ALL(i32, CT_I32, int32_t, int64_t, i64)
CT__ROWS_ALL(i64, CT_I64, int64_t, int64_t, i64)
CT__ROWS_ALL(f16, CT_F16, uint16_t, float, f32)
CT__ROWS_ALL(bf16, CT_BF16, uint16_t, float, f32)
CT__ROWS_ALL(f32, CT_F32, float, float, f32)
CT__ROWS_ALL(f64, CT_F64, double, double, f64)

/* The scratch a row of n elements needs. */
static size_t ct__along_scratch(ct__aop op, int64_t n)
{
    switch (op) {
    case CT__AOP_MEDIAN: case CT__AOP_MODE: return (size_t)n * 16; /* (key, index) pairs */
    case CT__AOP_SOFTMAX: case CT__AOP_LOG_SOFTMAX: return (size_t)n * 8;
    default: return 0;
    }
}

static ct_result ct__cpu_along(ct__aop op, ct_tensor *values, ct_tensor *indices, const ct_tensor *in, int dim)
{
    ct__along_job job;
    job.op = op;
    job.last = in->ndim == 0 || dim == in->ndim - 1;
    job.scratch = ct__along_scratch(op, in->ndim ? in->sizes[dim] : 1);
    job.cols = NULL;
    if ((op == CT__AOP_SOFTMAX || op == CT__AOP_LOG_SOFTMAX) && !job.last)
        job.cols = in->dtype == CT_F64 ? ct__softmax_cols_f64 : in->dtype == CT_BF16 ? ct__softmax_cols_bf16
                                                                                      : ct__softmax_cols_f32;
    switch (in->dtype) {
#define CT__ALONG_CASE(name, DT, _) case DT: job.fn = ct__row_##name; break;
        CT__DTYPES_A(CT__ALONG_CASE, _)
#undef CT__ALONG_CASE
    default: return ct__fail(CT_ERR_TYPE, "invalid dtype");
    }
    return ct__along_run(&job, values, indices, in, dim);
}

static const ct__reduce_kernels ct__cpu_reduce_kernels = {ct__cpu_reduce, ct__cpu_along};
