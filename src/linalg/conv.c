/* Convolutions (im2col + GEMM per image and group), transposed convolutions
 * (GEMM + col2im), and F.unfold / F.fold.
 *
 * One internal op, ct__convolution (at::convolution), computes both kinds
 * and records ConvolutionBackward0. Its backward is made of convolutions
 * again, as PyTorch's classic formulas: the input's gradient is the other
 * kind of convolution of the output's gradient with the same weight, the
 * weight's gradient a convolution of the (regrouped) input with the
 * (regrouped) output gradient, stride and dilation swapped. So double
 * backward works with nothing more. */

/* ---------------------------------------------------------------- geometry */

/* A convolution's parameters for nd (1 to 3) spatial dims. */
typedef struct ct__conv {
    int nd;
    bool transposed;
    int64_t groups;
    int64_t stride[3], pad[3], dil[3], out_pad[3];
} ct__conv;

/* The output's spatial size along d for input size in and kernel size k. */
static int64_t ct__conv_out_size(const ct__conv *c, int d, int64_t in, int64_t k)
{
    if (c->transposed) return (in - 1) * c->stride[d] - 2 * c->pad[d] + c->dil[d] * (k - 1) + c->out_pad[d] + 1;
    return (in + 2 * c->pad[d] - c->dil[d] * (k - 1) - 1) / c->stride[d] + 1;
}

/* The im2col window of one image: over the input for a convolution, over the output for a transposed one. */
static ct__window ct__conv_window(const ct__conv *c, const int64_t *in, const int64_t *out, const int64_t *k)
{
    ct__window g;
    int lead = 3 - c->nd;
    for (int d = 0; d < 3; d++) {
        int s = d - lead;
        g.in[d] = s < 0 ? 1 : c->transposed ? out[s] : in[s];
        g.out[d] = s < 0 ? 1 : c->transposed ? in[s] : out[s];
        g.k[d] = s < 0 ? 1 : k[s];
        g.stride[d] = s < 0 ? 1 : c->stride[s];
        g.pad[d] = s < 0 ? 0 : c->pad[s];
        g.dil[d] = s < 0 ? 1 : c->dil[s];
    }
    return g;
}

/* ---------------------------------------------------------------- the kernels' driver */

/* Images per GEMM: as many as keep the columns of a chunk within about
 * 4 MB, so that small images make one product of useful size. */
static int64_t ct__conv_chunk(int64_t N, int64_t col_elems_per_image)
{
    int64_t nb = ((int64_t)1 << 20) / CT__MAX(col_elems_per_image, 1);
    return CT__MAX(1, CT__MIN(N, nb));
}

/* m images (C, L), image_stride apart, to or from a chunk (C, m * L) that
 * has them side by side: from_chunk says which way src -> dst goes. */
#define CT__CONV_REGROUP(T)                                                                                   \
    static void ct__regroup_##T(const T *src, T *dst, int64_t m, int64_t C, int64_t L, int64_t image_stride,  \
                                bool from_chunk)                                                              \
    {                                                                                                         \
        for (int64_t c = 0; c < C; c++)                                                                       \
            for (int64_t i = 0; i < m; i++) {                                                                 \
                int64_t in_chunk = (c * m + i) * L, in_images = i * image_stride + c * L;                     \
                memcpy(dst + (from_chunk ? in_images : in_chunk), src + (from_chunk ? in_chunk : in_images),  \
                       sizeof(T) * (size_t)L);                                                                \
            }                                                                                                 \
    }
CT__CONV_REGROUP(float)
CT__CONV_REGROUP(double)

/* ---------------------------------------------------------------- stride 1: the image read in place */

#ifdef _OPENMP
#define CT__OMP_PARALLEL_THREADS _Pragma("omp parallel num_threads(threads)")
#define CT__OMP_FOR _Pragma("omp for schedule(static)")
#else
#define CT__OMP_PARALLEL_THREADS
#define CT__OMP_FOR
#endif

static int ct__thread_num(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* Threads for a loop over `items` that makes `work` multiply-adds in all: one per 2^20 of them (about
 * 50 us: less is not worth waking a thread for), at most one per item. */
static int ct__conv_threads(int64_t items, double work)
{
#ifdef _OPENMP
    if (omp_in_parallel()) return 1;
    double t = CT__MIN(CT__MIN((double)omp_get_max_threads(), work / (1 << 20)), (double)items);
    return t < 1 ? 1 : (int)t;
#else
    (void)items, (void)work;
    return 1;
#endif
}

/* Whether the wide form below suits a convolution of N images with `work` multiply-adds per image: it
 * splits the images over the threads, so a few large images keep the GEMM, which splits each product. */
static bool ct__conv_wide_suits(int64_t N, int64_t work)
{
    double all = (double)N * (double)work;
    return ct__conv_threads(N, all) == ct__conv_threads(INT64_MAX, all);
}

/* The calling thread's scratch memory for a convolution (see ct__scratch_get). */
static void *ct__conv_scratch(size_t bytes) { return ct__scratch_get(CT__SCRATCH_CONV, bytes); }

/* A stride-1 convolution reads image place o + j * dil - pad for output place o and window place j. In
 * the image zero-padded to P = in + 2 * pad and flattened, output (o0, o1, o2) has the "wide" column
 * w = (o0 * P1 + o1) * P2 + o2 and its window place j sits at w + off(j), so each row of the im2col
 * matrix is a stretch of the padded image: the GEMMs read the image in place (ct__gemm_rows_at,
 * ct__gemm_rows_add_at) instead of a matrix written for them. (The weight's gradient keeps im2col: a dot
 * product over wide columns adds in another order than one over the outputs, and PyTorch's numbers,
 * the digits demo's losses among them, follow the latter.) Wide columns with o1 >= out1 or o2 >= out2
 * are computed too and thrown away (or, as the output's gradient, are zeros). */
typedef struct ct__wide {
    int64_t P[3], plane; /* the padded image's sizes, P0 * P1 * P2 */
    int64_t L;           /* wide columns up to the last output's */
    int64_t S;           /* L rounded up to whole vectors of any element type (a row of the transposed form's input) */
    int64_t image;       /* elements a padded image takes: C * plane and the room read past it */
} ct__wide;

/* Elements read past a padded image: a product's last tile (fewer than NR). */
#define CT__WIDE_ROOM 64

/* The wide layout of an image of C channels (for a transposed convolution, its output), if the window
 * has one worth taking: stride 1 and at most twice as many wide columns as outputs. */
static bool ct__wide_plan(const ct__window *g, int64_t C, ct__wide *w)
{
    for (int d = 0; d < 3; d++) {
        if (g->stride[d] != 1) return false;
        w->P[d] = g->in[d] + 2 * g->pad[d];
    }
    w->plane = w->P[0] * w->P[1] * w->P[2];
    w->L = ((g->out[0] - 1) * w->P[1] + g->out[1] - 1) * w->P[2] + g->out[2];
    w->S = (w->L + 15) / 16 * 16;
    w->image = C * w->plane + CT__WIDE_ROOM;
    return w->L <= 2 * g->out[0] * g->out[1] * g->out[2];
}

/* The offsets in the padded image of the Cg * K rows of a group's im2col matrix (NULL: out of memory). */
static int64_t *ct__wide_offsets(const ct__window *g, const ct__wide *w, int64_t Cg)
{
    int64_t *off = (int64_t *)CT_MALLOC(sizeof(int64_t) * (size_t)CT__MAX(Cg * g->k[0] * g->k[1] * g->k[2], 1)), *o = off;
    if (!off) return NULL;
    for (int64_t c = 0; c < Cg; c++)
        for (int64_t j0 = 0; j0 < g->k[0]; j0++)
            for (int64_t j1 = 0; j1 < g->k[1]; j1++)
                for (int64_t j2 = 0; j2 < g->k[2]; j2++)
                    *o++ = c * w->plane + (j0 * g->dil[0] * w->P[1] + j1 * g->dil[1]) * w->P[2] + j2 * g->dil[2];
    return off;
}

/* A stride-1 form's buffers: the offsets of its C channels' windows and
 * bytes of per-thread scratch; CT_OK, or out of memory with nothing held. */
static ct_result ct__wide_buffers(const ct__window *g, const ct__wide *w, int64_t C, size_t bytes, int64_t **off,
                                  void **buf)
{
    *off = ct__wide_offsets(g, w, C);
    *buf = ct__conv_scratch(bytes);
    if (*off && *buf) return CT_OK;
    CT_FREE(*off);
    return CT__OOM();
}

/* Per element type: the padded image, moving outputs between their wide columns and their places,
 * whether an image is all finite, the forward and the weight's gradient. */
#define CT__CONV_WIDE(T, sfx)                                                                                 \
    /* An image (C, in0, in1, in2) from src to dst, into the padded image (C, P0, P1, P2) with zeros around   \
     * it and in its room, or back out of it. */                                                              \
    static void ct__wide_pad_##T(const ct__window *g, const ct__wide *w, int64_t C, const T *src, T *dst,     \
                                 bool to_padded)                                                              \
    {                                                                                                         \
        if (to_padded) memset(dst, 0, sizeof(T) * (size_t)w->image);                                          \
        for (int64_t c = 0; c < C; c++)                                                                       \
            for (int64_t i0 = 0; i0 < g->in[0]; i0++)                                                         \
                for (int64_t i1 = 0; i1 < g->in[1]; i1++) {                                                   \
                    int64_t at_padded = c * w->plane + ((i0 + g->pad[0]) * w->P[1] + i1 + g->pad[1]) * w->P[2] + g->pad[2]; \
                    int64_t at_dense = ((c * g->in[0] + i0) * g->in[1] + i1) * g->in[2];                      \
                    memcpy(dst + (to_padded ? at_padded : at_dense), src + (to_padded ? at_dense : at_padded), \
                           sizeof(T) * (size_t)g->in[2]);                                                     \
                }                                                                                             \
    }                                                                                                         \
    /* C rows of outputs (out0 * out1 * out2 each, dense) from src to dst, into wide columns (rows ld         \
     * apart, a row's S columns zeroed first) or out of them. */                                              \
    static void ct__wide_lines_##T(const ct__window *g, const ct__wide *w, int64_t C, const T *src, T *dst,   \
                                   int64_t ld, bool to_wide)                                                  \
    {                                                                                                         \
        int64_t n2 = g->out[2];                                                                               \
        for (int64_t c = 0; c < C; c++) {                                                                     \
            if (to_wide) memset(dst + c * ld, 0, sizeof(T) * (size_t)w->S);                                   \
            for (int64_t o0 = 0; o0 < g->out[0]; o0++)                                                        \
                for (int64_t o1 = 0; o1 < g->out[1]; o1++) {                                                  \
                    int64_t at_wide = c * ld + (o0 * w->P[1] + o1) * w->P[2];                                 \
                    int64_t at_dense = ((c * g->out[0] + o0) * g->out[1] + o1) * n2;                          \
                    memcpy(dst + (to_wide ? at_wide : at_dense), src + (to_wide ? at_dense : at_wide),        \
                           sizeof(T) * (size_t)n2);                                                           \
                }                                                                                             \
        }                                                                                                     \
    }                                                                                                         \
    static bool ct__all_finite_##T(const T *v, int64_t n)                                                     \
    {                                                                                                         \
        bool bad = false;                                                                                     \
        for (int64_t i = 0; i < n; i++) bad |= !(v[i] - v[i] == 0);                                           \
        return !bad;                                                                                          \
    }                                                                                                         \
    /* out (N, Cout, out...) of a stride-1 convolution: per image, each group's weight (Og, Cg * K) times     \
     * the padded image read in place, bias added as it is stored, into wide columns of which the outputs     \
     * are kept. The images are split over the threads. */                                                    \
    static ct_result ct__conv_wide_forward_##T(const ct__window *g, const ct__wide *wd, int64_t G, int64_t N, \
                                               int64_t Cin, int64_t Cout, const T *x, const T *w, const T *b, \
                                               T *out)                                                        \
    {                                                                                                         \
        int64_t K = g->k[0] * g->k[1] * g->k[2], Og = Cout / G, Cg = Cin / G, CgK = Cg * K;                   \
        int64_t Limg = g->in[0] * g->in[1] * g->in[2], Lout = g->out[0] * g->out[1] * g->out[2];              \
        int64_t per_thread = wd->image + Cout * wd->L;                                                        \
        int threads = ct__conv_threads(N, (double)N * (double)Cout * (double)(wd->L * CgK));                  \
        int64_t *off;                                                                                         \
        void *scratch;                                                                                        \
        if (ct__wide_buffers(g, wd, Cg, sizeof(T) * (size_t)(per_thread * threads), &off, &scratch))          \
            return ct_last_error_code();                                                                      \
        T *buf = (T *)scratch;                                                                                \
        CT__OMP_PARALLEL_THREADS                                                                              \
        {                                                                                                     \
            T *xp = buf + per_thread * ct__thread_num(), *wide = xp + wd->image;                              \
            CT__OMP_FOR                                                                                       \
            for (int64_t n = 0; n < N; n++) {                                                                 \
                ct__wide_pad_##T(g, wd, Cin, x + n * Cin * Limg, xp, true);                                   \
                for (int64_t k = 0; k < G; k++)                                                               \
                    ct__gemm_rows_at_##sfx(Og, wd->L, CgK, w + k * Og * CgK, CgK, xp + k * Cg * wd->plane, off, \
                                         b ? b + k * Og : NULL, wide + k * Og * wd->L, wd->L);                \
                ct__wide_lines_##T(g, wd, Cout, wide, out + n * Cout * Lout, wd->L, false);                   \
            }                                                                                                 \
        }                                                                                                     \
        CT_FREE(off);                                                                                         \
        return CT_OK;                                                                                         \
    }                                                                                                         \
    /* out (N, Cout, in...) of a stride-1 transposed convolution of x (N, Cin, out...) (its window runs over  \
     * the output): per image and group, the rows of cols = W_g^T (Og * K, Cg) @ x_g (x as wide columns) are  \
     * added whole to the padded output at their window offsets (col2im in the wide layout; the zeros of      \
     * x's wide columns add nothing, the caller having made sure w is finite), then the output is cut out     \
     * of the padding and the bias added. The images are split over the threads. */                           \
    static ct_result ct__conv_wide_transposed_##T(const ct__window *g, const ct__wide *wd, int64_t G,         \
                                                  int64_t N, int64_t Cin, int64_t Cout, const T *x, const T *w, \
                                                  const T *b, T *out)                                         \
    {                                                                                                         \
        int64_t K = g->k[0] * g->k[1] * g->k[2], Og = Cout / G, Cg = Cin / G, OgK = Og * K;                   \
        int64_t Limg = g->in[0] * g->in[1] * g->in[2], Lx = g->out[0] * g->out[1] * g->out[2];                \
        int64_t per_thread = wd->image + Cin * wd->S + CT__WIDE_ROOM;                                         \
        int threads = ct__conv_threads(N, (double)N * (double)Cout * (double)(K * wd->L * Cg));               \
        int64_t *off;                                                                                         \
        void *scratch;                                                                                        \
        if (ct__wide_buffers(g, wd, Og, sizeof(T) * (size_t)(per_thread * threads), &off, &scratch))          \
            return ct_last_error_code();                                                                      \
        T *buf = (T *)scratch;                                                                                \
        CT__OMP_PARALLEL_THREADS                                                                              \
        {                                                                                                     \
            T *op = buf + per_thread * ct__thread_num(), *xw = op + wd->image;                                \
            CT__OMP_FOR                                                                                       \
            for (int64_t n = 0; n < N; n++) {                                                                 \
                T *on = out + n * Cout * Limg;                                                                \
                ct__wide_lines_##T(g, wd, Cin, x + n * Cin * Lx, xw, wd->S, true);                            \
                memset(op, 0, sizeof(T) * (size_t)wd->image);                                                 \
                for (int64_t k = 0; k < G; k++)                                                               \
                    ct__gemm_rows_add_at_##sfx(OgK, wd->L, Cg, w + k * Cg * OgK, 1, OgK, xw + k * Cg * wd->S, wd->S, \
                                               off, op + k * Og * wd->plane);                                 \
                ct__wide_pad_##T(g, wd, Cout, op, on, false);                                                 \
                for (int64_t o = 0; b && o < Cout; o++)                                                       \
                    for (int64_t l = 0; l < Limg; l++) on[o * Limg + l] += b[o];                              \
            }                                                                                                 \
        }                                                                                                     \
        CT_FREE(off);                                                                                         \
        return CT_OK;                                                                                         \
    }
CT__CONV_WIDE(float, s)
CT__CONV_WIDE(double, d)

/* ---------------------------------------------------------------- stride 1: the channels form */

/* The forward's other register tile: NC wide columns by one or two vectors of output channels, each
 * column's image value broadcast. Its columns need not fill whole vectors, so a tile starts at an output
 * and skips the wide columns past a line's outputs that the row form computes and throws away, and NC
 * is chosen among a few (the whole tiles fitting the registers) to fit the lines' outputs best: 10 for
 * the 10 outputs a line of 5x5 windows over 14x14 images has. Each output is the row form's FMA chain
 * over the window from zero, bias added as it is stored: the same bits. */
#if defined(__AVX512F__)
#define CT__CHAN_WIDTHS(X, x, T, OV) X(x, T, OV, 8) X(x, T, OV, 10) X(x, T, OV, 12) X(x, T, OV, 14)
#define CT__CHAN_NCMAX 14
#else
#define CT__CHAN_WIDTHS(X, x, T, OV) X(x, T, OV, 4) X(x, T, OV, 5) X(x, T, OV, 6)
#define CT__CHAN_NCMAX 6
#endif

/* tile (NC x OV vectors, rows ldw apart) = wide columns [0, NC) of B (row k of B at B + off[k]) times the
 * K x (OV vectors) weights Wp (rows ldw apart). */
#define CT__CHAN_MICRO(x, T, OV, NC)                                                                          \
    static void ct__chan_micro##OV##_##NC##_##x(int64_t K, const T *Wp, int64_t ldw, const T *B,              \
                                                const int64_t *off, T *tile)                                  \
    {                                                                                                         \
        ct__v##x c[NC][OV];                                                                                   \
        for (int j = 0; j < NC; j++)                                                                          \
            for (int v = 0; v < OV; v++) c[j][v] = CT__VSPLAT_##x((T)0);                                      \
        for (int64_t k = 0; k < K; k++) {                                                                     \
            const T *b = B + off[k];                                                                          \
            ct__v##x w[OV];                                                                                   \
            for (int v = 0; v < OV; v++) w[v] = CT__VLOAD_##x(Wp + k * ldw + v * CT__VL_##x);                 \
            for (int j = 0; j < NC; j++) {                                                                    \
                ct__v##x bj = CT__VSPLAT_##x(b[j]);                                                           \
                for (int v = 0; v < OV; v++) c[j][v] = CT__VFMA_##x(c[j][v], bj, w[v]);                       \
            }                                                                                                 \
        }                                                                                                     \
        for (int j = 0; j < NC; j++)                                                                          \
            for (int v = 0; v < OV; v++) CT__VSTORE_##x(tile + j * ldw + v * CT__VL_##x, c[j][v]);            \
    }
CT__CHAN_WIDTHS(CT__CHAN_MICRO, s, float, 1)
CT__CHAN_WIDTHS(CT__CHAN_MICRO, s, float, 2)
CT__CHAN_WIDTHS(CT__CHAN_MICRO, d, double, 1)
CT__CHAN_WIDTHS(CT__CHAN_MICRO, d, double, 2)

/* The micro-kernel of OV vectors by NC columns. */
#define CT__CHAN_CASE(x, T, OV, NC)                                                                           \
    case NC:                                                                                                  \
        ct__chan_micro##OV##_##NC##_##x(K, Wp, ldw, B, off, tile);                                            \
        return;
#define CT__CHAN_RUN(x, T)                                                                                    \
    static void ct__chan_run_##x(int OV, int64_t NC, int64_t K, const T *Wp, int64_t ldw, const T *B,         \
                                 const int64_t *off, T *tile)                                                 \
    {                                                                                                         \
        if (OV == 2) switch (NC) { CT__CHAN_WIDTHS(CT__CHAN_CASE, x, T, 2) }                                  \
        switch (NC) { CT__CHAN_WIDTHS(CT__CHAN_CASE, x, T, 1) }                                               \
    }
CT__CHAN_RUN(s, float)
CT__CHAN_RUN(d, double)

/* The channels form's tiles of NC columns: each starts at the first output its predecessors leave out
 * (start: their first wide columns, when not NULL); place (L + CT__CHAN_NCMAX entries, when not NULL):
 * each wide column's output, its index among out0 * out1 * out2, or -1. Returns the number of tiles. */
static int64_t ct__chan_tiles(const ct__window *g, const ct__wide *wd, int64_t NC, int64_t *start, int64_t *place)
{
    int64_t n = 0, end = 0;
    for (int64_t w = 0; place && w < wd->L + CT__CHAN_NCMAX; w++) place[w] = -1;
    for (int64_t o0 = 0; o0 < g->out[0]; o0++)
        for (int64_t o1 = 0; o1 < g->out[1]; o1++) {
            int64_t line = (o0 * wd->P[1] + o1) * wd->P[2], at = (o0 * g->out[1] + o1) * g->out[2];
            for (int64_t o2 = 0; o2 < g->out[2]; o2++) {
                if (place) place[line + o2] = at + o2;
                if (line + o2 < end) continue;
                if (start) start[n] = line + o2;
                n++, end = line + o2 + NC;
            }
        }
    return n;
}

#define CT__CHAN_WIDTH(x, T, OV, NC) widths[count++] = NC;
/* The tile width whose tiles cover the fewest wide columns (the widest of those), and their columns. */
static int64_t ct__chan_width(const ct__window *g, const ct__wide *wd, int64_t *columns)
{
    int64_t widths[8], count = 0, best = 0;
    CT__CHAN_WIDTHS(CT__CHAN_WIDTH, s, float, 1)
    *columns = INT64_MAX;
    for (int64_t i = 0; i < count; i++) {
        int64_t cols = ct__chan_tiles(g, wd, widths[i], NULL, NULL) * widths[i];
        if (cols <= *columns) *columns = cols, best = widths[i];
    }
    return best;
}

/* Whether the channels form suits Og output channels of a CgK-long window: its multiply-adds (channels
 * rounded up to vectors of VL) and its stores (one an output, about 2 * VL multiply-adds' time) against
 * the row form's (channels rounded up to MR, wide columns up to NR). */
static bool ct__chan_suits(const ct__window *g, const ct__wide *wd, int64_t Og, int64_t CgK, int64_t VL, int64_t MR,
                           int64_t NR)
{
    int64_t columns;
    ct__chan_width(g, wd, &columns);
    double rows = (double)((Og + MR - 1) / MR * MR) * (double)((wd->L + NR - 1) / NR * NR) * (double)CgK;
    double chan = (double)((Og + VL - 1) / VL * VL) * (double)columns * (double)CgK + (double)Og * (double)columns * 2.0 * (double)VL;
    return chan < rows;
}

/* out (N, Cout, out...) of a stride-1 convolution by the channels form: the weights packed once as each
 * group's (Cg * K, Og) rounded up to vectors; per image, the padded image, then per group, block of two
 * (or the last one) vectors of channels and tile, the tile's outputs stored with the bias. The images
 * are split over the threads. */
#define CT__CONV_CHANNELS(T, sfx)                                                                             \
    static ct_result ct__conv_chan_forward_##T(const ct__window *g, const ct__wide *wd, int64_t G, int64_t N, \
                                               int64_t Cin, int64_t Cout, const T *x, const T *w, const T *b, \
                                               T *out)                                                        \
    {                                                                                                         \
        enum { VL = CT__VL_##sfx };                                                                           \
        int64_t K = g->k[0] * g->k[1] * g->k[2], Og = Cout / G, Cg = Cin / G, CgK = Cg * K, columns;          \
        int64_t Limg = g->in[0] * g->in[1] * g->in[2], Lout = g->out[0] * g->out[1] * g->out[2];              \
        int64_t NC = ct__chan_width(g, wd, &columns), ldw = (Og + VL - 1) / VL * VL;                          \
        int64_t per_thread = wd->image + CT__CHAN_NCMAX * ldw;                                                \
        int threads = ct__conv_threads(N, (double)N * (double)Cout * (double)(wd->L * CgK));                  \
        int64_t *off, *start = (int64_t *)CT_MALLOC(sizeof(int64_t) * (size_t)(Lout + wd->L + CT__CHAN_NCMAX)); \
        void *scratch;                                                                                        \
        if (!start) return CT__OOM();                                                                         \
        if (ct__wide_buffers(g, wd, Cg, sizeof(T) * (size_t)(per_thread * threads + G * CgK * ldw), &off,     \
                             &scratch)) {                                                                     \
            CT_FREE(start);                                                                                   \
            return ct_last_error_code();                                                                      \
        }                                                                                                     \
        int64_t *place = start + Lout, tiles = ct__chan_tiles(g, wd, NC, start, place);                       \
        T *buf = (T *)scratch, *Wp = buf + per_thread * threads;                                              \
        for (int64_t k = 0; k < G; k++)                                                                       \
            for (int64_t r = 0; r < CgK; r++)                                                                 \
                for (int64_t o = 0; o < ldw; o++)                                                             \
                    Wp[(k * CgK + r) * ldw + o] = o < Og ? w[(k * Og + o) * CgK + r] : (T)0;                  \
        CT__OMP_PARALLEL_THREADS                                                                              \
        {                                                                                                     \
            T *xp = buf + per_thread * ct__thread_num(), *tile = xp + wd->image;                              \
            CT__OMP_FOR                                                                                       \
            for (int64_t n = 0; n < N; n++) {                                                                 \
                ct__wide_pad_##T(g, wd, Cin, x + n * Cin * Limg, xp, true);                                   \
                for (int64_t k = 0; k < G; k++)                                                               \
                    for (int64_t o0 = 0; o0 < Og; o0 += 2 * VL) {                                             \
                        const T *W = Wp + k * CgK * ldw + o0, *B = xp + k * Cg * wd->plane;                   \
                        int64_t o1 = CT__MIN(Og, o0 + 2 * VL);                                                \
                        T *on = out + (n * Cout + k * Og) * Lout;                                             \
                        for (int64_t t = 0; t < tiles; t++) {                                                 \
                            int64_t s = start[t];                                                             \
                            ct__chan_run_##sfx(o1 - o0 > VL ? 2 : 1, NC, CgK, W, ldw, B + s, off, tile);      \
                            for (int64_t j = 0; j < NC; j++) {                                                \
                                int64_t d = place[s + j];                                                     \
                                if (d < 0) continue;                                                          \
                                for (int64_t o = o0; o < o1; o++)                                             \
                                    on[o * Lout + d] = tile[j * ldw + o - o0] + (b ? b[k * Og + o] : (T)0);   \
                            }                                                                                 \
                        }                                                                                     \
                    }                                                                                         \
            }                                                                                                 \
        }                                                                                                     \
        CT_FREE(off);                                                                                         \
        CT_FREE(start);                                                                                       \
        return CT_OK;                                                                                         \
    }
CT__CONV_CHANNELS(float, s)
CT__CONV_CHANNELS(double, d)

/* out (N, Cout, out...) from x (N, Cin, in...), w and bias b (Cout or NULL):
 * a convolution multiplies each group's weight (Og, Cg * K) by the im2col
 * columns (Cg * K, m * L) of a chunk of m images side by side; a transposed
 * one makes columns (Og * K, L_in) = W_g^T x_g per image and adds them back
 * with col2im. */
#define CT__CONV_FORWARD(T, gemm, sfx)                                                                        \
    static ct_result ct__conv_forward_##T(const ct__conv *c, const ct__window *g, int64_t N, int64_t Cin,     \
                                          int64_t Cout, const T *x, const T *w, const T *b, T *out)           \
    {                                                                                                         \
        int64_t G = c->groups, K = g->k[0] * g->k[1] * g->k[2], Lcol = g->out[0] * g->out[1] * g->out[2];     \
        int64_t Limg = g->in[0] * g->in[1] * g->in[2], Lin = c->transposed ? Lcol : Limg;                     \
        int64_t Lout = c->transposed ? Limg : Lcol, Cimg = c->transposed ? Cout : Cin;                        \
        int64_t Og = Cout / G, CgK = Cin / G * K;                                                             \
        ct__wide wd;                                                                                          \
        if (!c->transposed && Og <= CT__SMALL_M && ct__wide_plan(g, Cin, &wd) &&                              \
            ct__conv_wide_suits(N, Cout * wd.L * CgK))                                                        \
            return ct__chan_suits(g, &wd, Og, CgK, CT__VL_##sfx, CT__MR_##sfx, CT__NR_##sfx)                  \
                       ? ct__conv_chan_forward_##T(g, &wd, G, N, Cin, Cout, x, w, b, out)                     \
                       : ct__conv_wide_forward_##T(g, &wd, G, N, Cin, Cout, x, w, b, out);                    \
        if (c->transposed && ct__wide_plan(g, Cout, &wd) && ct__conv_wide_suits(N, Cout * K * wd.L * Cin / G) && \
            ct__all_finite_##T(w, Cin * Cout / G * K))                                                        \
            return ct__conv_wide_transposed_##T(g, &wd, G, N, Cin, Cout, x, w, b, out);                       \
        bool direct = !c->transposed && K == 1 && g->stride[0] * g->stride[1] * g->stride[2] == 1 &&          \
                      g->pad[0] + g->pad[1] + g->pad[2] == 0;                                                 \
        int64_t nb = direct || c->transposed ? 1 : ct__conv_chunk(N, Cimg * K * Lcol);                        \
        int64_t ncols = direct ? 0 : Cimg * K * Lcol * nb, nprod = nb > 1 ? Cout * Lcol * nb : 0;             \
        T *cols = (T *)ct__conv_scratch(sizeof(T) * (size_t)CT__MAX(ncols + nprod, 1));                       \
        if (!cols) return CT__OOM();                                                                          \
        T *prod = cols + ncols;                                                                               \
        for (int64_t n0 = 0; n0 < N; n0 += nb) {                                                              \
            int64_t m = CT__MIN(nb, N - n0), ld = m * Lcol;                                                   \
            const T *xn = x + n0 * Cin * Lin;                                                                 \
            T *on = out + n0 * Cout * Lout;                                                                   \
            if (!c->transposed) {                                                                             \
                if (!direct) ct__im2col_##T(g, xn, Cin * Lin, 0, Cin * K, 0, ld, cols, ld);                   \
                const T *B = direct ? xn : cols;                                                              \
                T *dst = m > 1 ? prod : on; /* (Cout, m * L): the chunk's images side by side */              \
                for (int64_t k = 0; k < G; k++)                                                               \
                    gemm(false, false, Og, ld, CgK, 1, w + k * Og * CgK, CgK, B + k * CgK * ld, ld, 0,        \
                         dst + k * Og * ld, ld);                                                              \
                if (m > 1) ct__regroup_##T(prod, on, m, Cout, Lcol, Cout * Lout, true);                       \
            } else {                                                                                          \
                for (int64_t k = 0; k < G; k++)                                                               \
                    gemm(true, false, Cout / G * K, Lcol, Cin / G, 1, w + k * (Cin / G) * (Cout / G) * K,     \
                         Cout / G * K, xn + k * (Cin / G) * Lcol, Lcol, 0, cols + k * (Cout / G) * K * Lcol, Lcol); \
                ct__col2im_##T(g, Cout, cols, on);                                                            \
            }                                                                                                 \
            for (int64_t i = 0; b && i < m; i++)                                                              \
                for (int64_t o = 0; o < Cout; o++)                                                            \
                    for (int64_t l = 0; l < Lout; l++) on[(i * Cout + o) * Lout + l] += b[o];                 \
        }                                                                                                     \
        return CT_OK;                                                                                         \
    }
CT__CONV_FORWARD(float, ct__sgemm, s)
CT__CONV_FORWARD(double, ct__dgemm, d)

/* Columns of the weight's gradient taken at a time by its dot form below: at most 512, fewer when the
 * stretch of every row of the output's gradient would pass CT__DOTS_L1 bytes (the GEMM's: it stays in
 * L1). */
#define CT__DOTS_STRETCH 512

/* The dot form's chunks of images: each makes at least this many multiply-adds, and there are at most
 * CT__DOTS_CHUNKS of them, however many threads there are (their sums add in their order, so they fix
 * the bits). */
#define CT__DOTS_CHUNK_WORK (1 << 18)
#define CT__DOTS_CHUNKS 16

/* Images per chunk of the dot form below for N images of `work` multiply-adds each. */
static int64_t ct__dots_chunk(int64_t N, int64_t work)
{
    int64_t nb = CT__MAX((CT__DOTS_CHUNK_WORK + work - 1) / CT__MAX(work, 1), (N + CT__DOTS_CHUNKS - 1) / CT__DOTS_CHUNKS);
    return CT__MAX(1, CT__MIN(N, nb));
}

/* The weight's gradient by ct__gemm_dots's sums without the whole im2col matrix: per chunk of images
 * (ct__dots_chunk), gw_g (R, CgK) = side_g (R, m * L) . cols(img)_g (CgK, m * L), each element's lanes
 * growing over the chunk's columns in order as ct__dots_steps takes them, then summed by
 * ct__dots_finish; the chunks' sums are then added in their order. cols is made a stretch of columns
 * and DC rows at a time by im2col, into per-thread scratch that stays in L1 with the stretch of the side
 * and the lanes of those rows' tiles (making all the rows of a stretch first, then their products, left
 * them to L2 and cost about a tenth more time); each tile's lanes grow over the stretches in order as
 * before, so the block order changes no sum. When an image's L columns are whole
 * vectors, the stretches stop at the images' ends (each still starts on a vector, so every lane takes
 * the same columns in the same order) and the side is read in place, rows L apart; else a stretch of it
 * is copied image by image (a lane's columns then run across images). Work items are a chunk's group,
 * or a block of its rows of cols when there are fewer of those than threads: each thread reads only
 * its chunks' images, which the step before (a copy, an activation's gradient) split over the threads
 * the same way, and which rows a thread takes changes no sum, so the bits do not depend on the
 * thread count. */
#define CT__CONV_WEIGHT_GRAD_DOTS(T, sfx)                                                                     \
    /* The side's stretch of columns [s0, s0 + w) of R rows of images side by side (row r of image i, L       \
     * long, at side + i * image + r * L): in place (*lda = L) when it lies in one image and `in_place`,      \
     * else a copy of each image's part into A (rows S apart, *lda = S). */                                   \
    static const T *ct__side_stretch_##T(const T *side, int64_t image, int64_t L, int64_t R, int64_t s0,      \
                                         int64_t w, bool in_place, T *A, int64_t S, int64_t *lda)             \
    {                                                                                                         \
        *lda = in_place ? L : S;                                                                              \
        if (in_place) return side + s0 / L * image + s0 % L;                                                  \
        for (int64_t r = 0; r < R; r++)                                                                       \
            for (int64_t q = s0, len; q < s0 + w; q += len) {                                                 \
                len = CT__MIN(L - q % L, s0 + w - q);                                                         \
                memcpy(A + r * S + q - s0, side + q / L * image + r * L + q % L, sizeof(T) * (size_t)len);    \
            }                                                                                                 \
        return A;                                                                                             \
    }                                                                                                         \
    /* A block of nc (at most DC) rows of B (rows ldb apart) against rows [0, R) of A (rows lda               \
     * apart): the lanes of its (R + DR - 1) / DR tiles of DR x DC dot products grow by a stretch's           \
     * first `steps` columns, from zero in a chunk's first stretch (fresh). In a chunk's last stretch         \
     * (out not NULL) the tiles are then finished, with the columns [kv, cols) past the chunk's last          \
     * whole vector, which lie in that stretch, and stored at out (rows ldo apart). */                        \
    static void ct__dots_block_##T(int64_t R, int64_t nc, int64_t steps, const T *A, int64_t lda, const T *B, \
                                   int64_t ldb, bool fresh, T *lanes, int64_t kv, int64_t cols, T *out,       \
                                   int64_t ldo)                                                               \
    {                                                                                                         \
        int64_t lane_size = CT__DR * CT__DC * CT__VL_##sfx;                                                   \
        T acc[CT__DR * CT__DC];                                                                               \
        for (int64_t i = 0; i < R; i += CT__DR)                                                               \
            ct__dots_steps_##sfx(CT__MIN(CT__DR, R - i), nc, steps, A + i * lda, lda, B, ldb, fresh,          \
                                 lanes + i / CT__DR * lane_size);                                             \
        for (int64_t i = 0; out && i < R; i += CT__DR) {                                                      \
            int64_t mr = CT__MIN(CT__DR, R - i);                                                              \
            ct__dots_finish_##sfx(mr, nc, kv, cols, A + i * lda, lda, B, ldb, lanes + i / CT__DR * lane_size, \
                                  acc);                                                                       \
            ct__tile_store_##sfx(mr, nc, acc, CT__DC, 1, 0, true, out + i * ldo, ldo);                        \
        }                                                                                                     \
    }                                                                                                         \
    static ct_result ct__conv_weight_grad_dots_##T(const ct__window *g, int64_t G, int64_t N, const T *img,   \
                                                   int64_t Cimg, const T *side, int64_t Cside, T *gw)         \
    {                                                                                                         \
        enum { VL = CT__VL_##sfx };                                                                           \
        int64_t L = g->out[0] * g->out[1] * g->out[2], Limg = g->in[0] * g->in[1] * g->in[2];                 \
        int64_t R = Cside / G, CgK = Cimg / G * g->k[0] * g->k[1] * g->k[2], W = G * R * CgK;                 \
        bool in_place = L % VL == 0;                                                                          \
        int64_t S = CT__MIN(CT__DOTS_STRETCH, CT__MAX(64, CT__DOTS_L1 / (R * (int64_t)sizeof(T)) / 64 * 64)); \
        int64_t parts = (L + S - 1) / S; /* an image's stretches when the side is read in place */            \
        if (in_place) S = ((L + parts - 1) / parts + VL - 1) / VL * VL;                                       \
        int64_t nb = ct__dots_chunk(N, L * R * CgK), chunks = (N + nb - 1) / nb;                              \
        double work = (double)N * (double)L * (double)R * (double)(CgK * G);                                  \
        int64_t splits = CT__MAX(1, ct__conv_threads(INT64_MAX, work) / (G * chunks));                        \
        int64_t RB = (CgK + splits - 1) / splits, blocks = (CgK + RB - 1) / RB, items = chunks * G * blocks;  \
        int64_t IT = (R + CT__DR - 1) / CT__DR, lane_size = CT__DR * CT__DC * VL; /* a block's tiles */     \
        int64_t lanes_size = IT * ((RB + CT__DC - 1) / CT__DC) * lane_size;                                   \
        int64_t per_thread = (in_place ? CT__DC : R + CT__DC) * S + lanes_size;                               \
        int threads = ct__conv_threads(items, work);                                                          \
        T *buf = (T *)ct__conv_scratch(sizeof(T) * (size_t)(per_thread * threads + (chunks - 1) * W));        \
        if (!buf) return CT__OOM();                                                                           \
        T *later = buf + per_thread * threads; /* the sums of chunks 1.. (chunk 0's go to gw) */              \
        CT__OMP_PARALLEL_THREADS                                                                              \
        {                                                                                                     \
            T *B = buf + per_thread * ct__thread_num(), *lanes = B + CT__DC * S, *Acopy = lanes + lanes_size; \
            CT__OMP_FOR                                                                                       \
            for (int64_t item = 0; item < items; item++) {                                                    \
                int64_t c = item / (G * blocks), k = item / blocks % G, r0 = item % blocks * RB;              \
                int64_t rb = CT__MIN(RB, CgK - r0), row0 = k * CgK + r0; /* the block's first row in cols */  \
                int64_t n0 = c * nb, cols = CT__MIN(nb, N - n0) * L, kv = cols / VL * VL, lda;                \
                const T *sides = side + (n0 * Cside + k * R) * L, *imgs = img + n0 * Cimg * Limg;             \
                T *out = (c == 0 ? gw : later + (c - 1) * W) + k * R * CgK + r0;                              \
                for (int64_t s0 = 0, w; s0 < cols; s0 += w) {                                                 \
                    w = CT__MIN(CT__MIN(S, cols - s0), in_place ? L - s0 % L : S);                            \
                    const T *A = ct__side_stretch_##T(sides, Cside * L, L, R, s0, w, in_place, Acopy, S, &lda);\
                    T *done = s0 + w == cols ? out : NULL; /* the chunk's last stretch: its tiles finish */   \
                    for (int64_t j = 0; j < rb; j += CT__DC) { /* im2col's rows DC at a time: B stays in L1 */\
                        int64_t nc = CT__MIN(CT__DC, rb - j);                                                 \
                        ct__im2col_##T(g, imgs, Cimg * Limg, row0 + j, row0 + j + nc, s0, s0 + w, B, S);      \
                        ct__dots_block_##T(R, nc, CT__MIN(w, kv - s0), A, lda, B, S, s0 == 0,                 \
                                           lanes + j / CT__DC * IT * lane_size, kv - s0, cols - s0,           \
                                           done ? done + j : NULL, CgK);                                      \
                    }                                                                                         \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
        for (int64_t c = 1; c < chunks; c++) /* in the chunks' order, as one thread would add them */         \
            for (int64_t e = 0; e < W; e++) gw[e] += later[(c - 1) * W + e];                                  \
        return CT_OK;                                                                                         \
    }
CT__CONV_WEIGHT_GRAD_DOTS(float, s)
CT__CONV_WEIGHT_GRAD_DOTS(double, d)

/* The same sums without an im2col matrix at all (the lanes form). Each element of gw_g (R, CgK) is a
 * dot product over a chunk's columns q, which the dot form adds in VL lanes (lane q mod VL, q in order,
 * an FMA each), then sums, then adds the columns past the last whole vector; the chunks add up through
 * beta. Here the vectors run over the R rows of the
 * output's gradient instead: for one lane at a time, a register tile of RT rows of the im2col matrix by
 * OV vectors of rows of side^T grows by the products of every VL-th column, the im2col element read
 * from the (padded) image at its column's base plus its row's offset, the side from side^T (made per
 * chunk). Each lane thus adds the same products in the same order as the dot form's lane; the lanes are
 * then summed and the tail added as ct__dots_finish does: the same bits, without im2col. */
/* Whether the lanes form suits R rows of side by CgK of im2col: it makes side^T, R rounded up to whole
 * vectors of VL, per column, where the dot form makes CgK rows of im2col; it wins when that is the
 * smaller part. */
static bool ct__conv_lanes_suit(int64_t R, int64_t CgK, int64_t VL) { return CgK >= 2 * ((R + VL - 1) / VL * VL); }

#if defined(__AVX512F__)
#define CT__LANES_RT 10
#else
#define CT__LANES_RT 6
#endif

/* Where side^T and the column bases keep column q of a chunk: lane by lane (lane q mod VL, then q / VL),
 * so that a lane's columns lie one after the other; nq columns a lane. */
#define CT__LANE_ROW(q, nq, VL) ((q) % (VL) * (nq) + (q) / (VL))

/* out (RT rows ost apart, OV vectors each) = one lane of the tile: for its columns s < steps,
 * out[t] += sideT[s] (OV vectors, rows ldT apart) * img[base[s] + off[t]]. */
#define CT__LANES_MICRO(x, T, OV)                                                                             \
    static void ct__lanes_micro##OV##_##x(int64_t steps, const int64_t *base, const T *img, const int64_t *off, \
                                          const T *sideT, int64_t ldT, T *out, int64_t ost)                   \
    {                                                                                                         \
        ct__v##x c[CT__LANES_RT][OV];                                                                         \
        int64_t o[CT__LANES_RT];                                                                              \
        for (int t = 0; t < CT__LANES_RT; t++) {                                                              \
            o[t] = off[t];                                                                                    \
            for (int v = 0; v < OV; v++) c[t][v] = CT__VSPLAT_##x((T)0);                                      \
        }                                                                                                     \
        for (int64_t q = 0; q < steps; q++) {                                                                 \
            const T *p = img + base[q];                                                                       \
            ct__v##x s[OV];                                                                                   \
            for (int v = 0; v < OV; v++) s[v] = CT__VLOAD_##x(sideT + q * ldT + v * CT__VL_##x);              \
            for (int t = 0; t < CT__LANES_RT; t++) {                                                          \
                ct__v##x b = CT__VSPLAT_##x(p[o[t]]);                                                         \
                for (int v = 0; v < OV; v++) c[t][v] = CT__VFMA_##x(c[t][v], s[v], b);                        \
            }                                                                                                 \
        }                                                                                                     \
        for (int t = 0; t < CT__LANES_RT; t++)                                                                \
            for (int v = 0; v < OV; v++) CT__VSTORE_##x(out + t * ost + v * CT__VL_##x, c[t][v]);             \
    }
CT__LANES_MICRO(s, float, 1)
CT__LANES_MICRO(s, float, 2)
CT__LANES_MICRO(d, double, 1)
CT__LANES_MICRO(d, double, 2)

#define CT__CONV_WEIGHT_GRAD_LANES(T, sfx)                                                                    \
    /* The im2col column bases of nb images side by side in (padded) images `image` apart, at their lane     \
     * rows (row[q], nq a lane): column (i, o) reads the image at base + the row's offset                    \
     * (ct__wide_offsets). */                                                                                \
    static void ct__lanes_bases_##T(const ct__window *g, const ct__wide *wd, int64_t nb, int64_t nq,         \
                                    int64_t *base, int64_t *row)                                              \
    {                                                                                                         \
        int64_t q = 0;                                                                                        \
        for (int64_t i = 0; i < nb; i++)                                                                      \
            for (int64_t o0 = 0; o0 < g->out[0]; o0++)                                                        \
                for (int64_t o1 = 0; o1 < g->out[1]; o1++)                                                    \
                    for (int64_t o2 = 0; o2 < g->out[2]; o2++, q++) {                                         \
                        row[q] = CT__LANE_ROW(q, nq, CT__VL_##sfx);                                           \
                        base[row[q]] = i * wd->image + (o0 * g->stride[0] * wd->P[1] + o1 * g->stride[1]) *   \
                                       wd->P[2] + o2 * g->stride[2];                                          \
                    }                                                                                         \
    }                                                                                                         \
    /* Rows [r0, r0 + rt) of gw_g (R, CgK) for a chunk of `cols` columns: the lanes of blocks of two or one   \
     * vectors of side^T's R rows (sideT: its columns' rows ldT apart at their lane rows, nq a lane; lanes:   \
     * RT x VL x Rp, Rp = R rounded up to whole vectors), then each element's lanes summed and its tail     \
     * added as ct__dots_finish does, stored with beta (0 for the first chunk, else 1) as the dot form       \
     * stores. */                                                                                            \
    static void ct__lanes_rows_##T(int64_t R, int64_t Rp, int64_t ldT, int64_t nq, int64_t cols,              \
                                   const int64_t *base, const int64_t *row, const T *img, const int64_t *off, \
                                   int64_t rt, const T *sideT, T beta, T *lanes, T *gw, int64_t ldg)          \
    {                                                                                                         \
        enum { VL = CT__VL_##sfx };                                                                           \
        int64_t kv = cols / VL * VL, o[CT__LANES_RT];                                                         \
        for (int t = 0; t < CT__LANES_RT; t++) o[t] = off[CT__MIN(t, rt - 1)]; /* rows past rt repeat */      \
        for (int64_t b = 0; b < R; b += 2 * VL)                                                               \
            for (int64_t l = 0; l < VL; l++) {                                                                \
                T *out = lanes + l * Rp + b;                                                                  \
                const T *sl = sideT + l * nq * ldT + b;                                                       \
                if (R - b > VL)                                                                               \
                    ct__lanes_micro2_##sfx(kv / VL, base + l * nq, img, o, sl, ldT, out, VL * Rp);            \
                else                                                                                          \
                    ct__lanes_micro1_##sfx(kv / VL, base + l * nq, img, o, sl, ldT, out, VL * Rp);            \
            }                                                                                                 \
        /* each element's lanes summed in order from zero, then its tail added, a vector of elements at a    \
         * time (into lane 0; an FMA by one adds exactly, and the tail's sum + a * b is ct__dots_finish's)    \
         */                                                                                                   \
        ct__v##sfx one = CT__VSPLAT_##sfx((T)1);                                                              \
        for (int64_t t = 0; t < rt; t++)                                                                      \
            for (int64_t i = 0; i < Rp; i += VL) {                                                            \
                ct__v##sfx sum = CT__VSPLAT_##sfx((T)0);                                                      \
                for (int l = 0; l < VL; l++)                                                                  \
                    sum = CT__VFMA_##sfx(sum, one, CT__VLOAD_##sfx(lanes + (t * VL + l) * Rp + i));           \
                for (int64_t q = kv; q < cols; q++) {                                                         \
                    ct__v##sfx a = CT__VLOAD_##sfx(sideT + row[q] * ldT + i);                                 \
                    ct__v##sfx x = CT__VSPLAT_##sfx(img[base[row[q]] + o[t]]);                                \
                    sum += a * x;                                                                             \
                }                                                                                             \
                CT__VSTORE_##sfx(lanes + t * VL * Rp + i, sum);                                               \
            }                                                                                                 \
        for (int64_t i = 0; i < R; i++)                                                                       \
            for (int64_t t = 0; t < rt; t++)                                                                  \
                ct__tile_store_##sfx(1, 1, lanes + t * VL * Rp + i, 1, 1, beta, true, gw + i * ldg + t, ldg); \
    }                                                                                                         \
    /* gw (G * R, CgK) by the lanes form: side^T (per chunk of nb images, its columns x G * ldT) and, when   \
     * the window pads, the padded images are made first (split over the threads by image), then the        \
     * groups' tiles of RT rows, each over every chunk in turn (split over the threads by tile). */          \
    static ct_result ct__conv_weight_grad_lanes_##T(const ct__window *g, int64_t G, int64_t N, int64_t nb,    \
                                                    const T *img, int64_t Cimg, const T *side, int64_t Cside, \
                                                    T *gw)                                                    \
    {                                                                                                         \
        enum { VL = CT__VL_##sfx, RT = CT__LANES_RT };                                                        \
        int64_t L = g->out[0] * g->out[1] * g->out[2], Limg = g->in[0] * g->in[1] * g->in[2];                 \
        int64_t R = Cside / G, Cg = Cimg / G, CgK = Cg * g->k[0] * g->k[1] * g->k[2];                         \
        int64_t ldT = (R + VL - 1) / VL * VL, tiles = (CgK + RT - 1) / RT;                                    \
        bool padded = g->pad[0] + g->pad[1] + g->pad[2] > 0;                                                  \
        ct__wide wd;                                                                                          \
        for (int d = 0; d < 3; d++) wd.P[d] = g->in[d] + 2 * g->pad[d];                                       \
        wd.plane = wd.P[0] * wd.P[1] * wd.P[2];                                                               \
        wd.image = padded ? Cimg * wd.plane + CT__WIDE_ROOM : Cimg * Limg;                                    \
        wd.L = wd.S = 0;                                                                                      \
        double work = (double)N * (double)L * (double)ldT * (double)(CgK * G);                                \
        int threads = ct__conv_threads(G * tiles, work);                                                      \
        int64_t nq = (nb * L + VL - 1) / VL, lanes_size = RT * VL * ldT, chunk = VL * nq * G * ldT;            \
        int64_t chunks = (N + nb - 1) / nb, sideT_size = chunks * chunk;                                      \
        int64_t *off = ct__wide_offsets(g, &wd, Cg);                                                          \
        int64_t *base = (int64_t *)CT_MALLOC(sizeof(int64_t) * (size_t)(VL * nq + nb * L)), *row = base + VL * nq; \
        T *buf = (T *)ct__conv_scratch(sizeof(T) * (size_t)(sideT_size + (padded ? N * wd.image : 0) +       \
                                                            lanes_size * threads));                           \
        if (!off || !base || !buf) {                                                                          \
            CT_FREE(off);                                                                                     \
            CT_FREE(base);                                                                                    \
            return CT__OOM();                                                                                 \
        }                                                                                                     \
        ct__lanes_bases_##T(g, &wd, nb, nq, base, row);                                                       \
        T *sideT = buf, *pad = sideT + sideT_size, *lanes_all = pad + (padded ? N * wd.image : 0);            \
        for (int64_t q = 0; q < chunks * VL * nq * G; q++) /* the rows of side^T past R stay zero */          \
            for (int64_t r = R; r < ldT; r++) sideT[q * ldT + r] = 0;                                         \
        CT__OMP_PARALLEL_THREADS                                                                              \
        {                                                                                                     \
            T *lanes = lanes_all + lanes_size * ct__thread_num();                                             \
            CT__OMP_FOR                                                                                       \
            for (int64_t n = 0; n < N; n++) {                                                                 \
                const T *s = side + n * Cside * L;                                                            \
                T *sT = sideT + n / nb * chunk;                                                               \
                int64_t i = n % nb;                                                                           \
                for (int64_t k = 0; k < G; k++) /* by blocks of 64 columns, which stay in L1 */               \
                    for (int64_t l0 = 0; l0 < L; l0 += 64)                                                    \
                        for (int64_t r = 0; r < R; r++)                                                       \
                            for (int64_t l = l0; l < CT__MIN(l0 + 64, L); l++)                                \
                                sT[(row[i * L + l] * G + k) * ldT + r] = s[(k * R + r) * L + l];              \
                if (padded) ct__wide_pad_##T(g, &wd, Cimg, img + n * Cimg * Limg, pad + n * wd.image, true);  \
            }                                                                                                 \
            CT__OMP_FOR                                                                                       \
            for (int64_t item = 0; item < G * tiles; item++) {                                                \
                int64_t k = item / tiles, r0 = item % tiles * RT, rt = CT__MIN((int64_t)RT, CgK - r0);        \
                for (int64_t n0 = 0; n0 < N; n0 += nb) {                                                      \
                    const T *im = padded ? pad + n0 * wd.image : img + n0 * Cimg * Limg;                      \
                    ct__lanes_rows_##T(R, ldT, G * ldT, nq, CT__MIN(nb, N - n0) * L, base, row,               \
                                       im + k * Cg * wd.plane, off + r0, rt, sideT + n0 / nb * chunk + k * ldT, \
                                       n0 == 0 ? 0 : 1, lanes, gw + k * R * CgK + r0, CgK);                   \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
        CT_FREE(off);                                                                                         \
        CT_FREE(base);                                                                                        \
        return CT_OK;                                                                                         \
    }
CT__CONV_WEIGHT_GRAD_LANES(float, s)
CT__CONV_WEIGHT_GRAD_LANES(double, d)

/* The weight's gradient gw (shaped as the weight) from x (N, Cin, ...) and
 * go (N, Cout, ...): per chunk of m images and group, a product of one
 * side by the im2col columns of the other, summed over the chunks. For a
 * convolution gw_g (Og, Cg * K) += go_g (Og, m * L) cols(x)_g^T; for a
 * transposed one gw_g (Cg, Og * K) += x_g (Cg, m * L) cols(go)_g^T, the
 * columns taken over its output as its forward's col2im writes them. When
 * the GEMM would take these products by its dot form, the form above makes
 * the same sums without the whole im2col matrix. */
#define CT__CONV_WEIGHT_GRAD(T, gemm, sfx)                                                                    \
    static ct_result ct__conv_weight_grad_##T(const ct__conv *c, const ct__window *g, int64_t N, int64_t Cin, \
                                              int64_t Cout, const T *x, const T *go, T *gw)                   \
    {                                                                                                         \
        int64_t G = c->groups, K = g->k[0] * g->k[1] * g->k[2], L = g->out[0] * g->out[1] * g->out[2];        \
        int64_t Limg = g->in[0] * g->in[1] * g->in[2];                                                        \
        const T *img = c->transposed ? go : x, *side = c->transposed ? x : go;                                \
        int64_t Cimg = c->transposed ? Cout : Cin, Cside = c->transposed ? Cin : Cout;                        \
        int64_t rows = Cside / G, cols_per_group = Cimg / G * K, nb = ct__conv_chunk(N, Cimg * K * L);        \
        int64_t fewest = (N - (N - 1) / nb * nb) * L; /* the last chunk's columns */                          \
        if (!CT__USE_CBLAS(rows, cols_per_group, nb * L, nb * L, nb * L, cols_per_group) &&                   \
            CT__DOTS_SUIT(sfx, rows, fewest))                                                                 \
            return ct__conv_lanes_suit(rows, cols_per_group, CT__VL_##sfx)                                    \
                       ? ct__conv_weight_grad_lanes_##T(g, G, N, nb, img, Cimg, side, Cside, gw)              \
                       : ct__conv_weight_grad_dots_##T(g, G, N, img, Cimg, side, Cside, gw);                  \
        T *cols = (T *)ct__conv_scratch(sizeof(T) * (size_t)CT__MAX((Cimg * K + Cside) * L * nb, 1));         \
        if (!cols) return CT__OOM();                                                                          \
        T *sides = cols + Cimg * K * L * nb;                                                                  \
        for (int64_t n0 = 0; n0 < N; n0 += nb) {                                                              \
            int64_t m = CT__MIN(nb, N - n0), ld = m * L;                                                      \
            ct__im2col_##T(g, img + n0 * Cimg * Limg, Cimg * Limg, 0, Cimg * K, 0, ld, cols, ld);             \
            ct__regroup_##T(side + n0 * Cside * L, sides, m, Cside, L, Cside * L, false);                     \
            for (int64_t k = 0; k < G; k++)                                                                   \
                gemm(false, true, rows, cols_per_group, ld, 1, sides + k * rows * ld, ld,                     \
                     cols + k * cols_per_group * ld, ld, n0 == 0 ? 0 : 1, gw + k * rows * cols_per_group,     \
                     cols_per_group);                                                                         \
        }                                                                                                     \
        return CT_OK;                                                                                         \
    }
CT__CONV_WEIGHT_GRAD(float, ct__sgemm, s)
CT__CONV_WEIGHT_GRAD(double, ct__dgemm, d)

/* ---------------------------------------------------------------- the op and its backward */

static ct_tensor *ct__convolution(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b, const ct__conv *c);

/* The weight's gradient: a convolution of data (N, G * C, ...) regrouped to
 * (C, G * N, ...) with kern (N, G * O, ...) seen as (G * O, N, ...), stride
 * and dilation swapped, cut to the kernel's size k, as (G * O, C, k...). For
 * a convolution data is the input and kern the output's gradient; for a
 * transposed one the other way round. */
static ct_tensor *ct__conv_weight_grad(const ct_tensor *data, const ct_tensor *kern, const ct__conv *c, const int64_t *k)
{
    int64_t G = c->groups, N = data->sizes[0], C = data->sizes[1] / G, split[CT_MAX_DIMS], perm[CT_MAX_DIMS];
    int nd = c->nd;
    split[0] = N, split[1] = G, split[2] = C;
    perm[0] = 2, perm[1] = 1, perm[2] = 0;
    for (int d = 0; d < nd; d++) split[3 + d] = data->sizes[2 + d], perm[3 + d] = 3 + d;
    int64_t regrouped[CT_MAX_DIMS];
    memcpy(regrouped + 1, split + 2, sizeof(int64_t) * (size_t)(nd + 1));
    regrouped[0] = C;
    regrouped[1] = G * N;
    ct_tensor *xs = ct_reshape(ct_permute(ct_reshape(data, ct_shape_make(nd + 3, split)), ct_shape_make(nd + 3, perm)),
                               ct_shape_make(nd + 2, regrouped));
    ct_tensor *ws = ct_transpose(kern, 0, 1);
    ct__conv s = *c;
    s.transposed = false;
    for (int d = 0; d < nd; d++) {
        s.stride[d] = c->dil[d];
        s.dil[d] = c->stride[d];
        s.out_pad[d] = 0;
    }
    ct_tensor *r = ct__convolution(xs, ws, NULL, &s);
    for (int d = 0; d < nd && r; d++) r = ct_narrow(r, 2 + d, 0, k[d]);
    return ct_transpose(r, 0, 1);
}

/* The weight's gradient by the kernel above, for a backward that records
 * nothing (no create_graph): the composite above costs an im2col with the
 * whole image as the window. */
static ct_tensor *ct__conv_weight_grad_direct(const ct_tensor *x, const ct_tensor *go, const ct_tensor *w,
                                              const ct__conv *c)
{
    int64_t N = x->sizes[0];
    if (N == 0) return ct_zeros(ct_shape_make(w->ndim, w->sizes), w->dtype);
    ct__window g = ct__conv_window(c, x->sizes + 2, go->sizes + 2, w->sizes + 2);
    ct_tensor *xc = ct_contiguous(x), *gc = ct_contiguous(go), *gw = ct__alloc(w->sizes, w->ndim, w->dtype, ct__cpu);
    if (!xc || !gc || !gw) return NULL;
    ct_result r = w->dtype == CT_F32
                      ? ct__conv_weight_grad_float(c, &g, N, x->sizes[1], go->sizes[1], (const float *)ct__data(xc),
                                                   (const float *)ct__data(gc), (float *)ct__data(gw))
                      : ct__conv_weight_grad_double(c, &g, N, x->sizes[1], go->sizes[1], (const double *)ct__data(xc),
                                                    (const double *)ct__data(gc), (double *)ct__data(gw));
    return r == CT_OK ? gw : NULL;
}

/* The bias's gradient for a backward that records nothing: go (N, C, L), contiguous, summed over its
 * images and places, a channel at a time. A channel's sum grows in CT__BIAS_LANES lanes (place l of
 * each image in lane l mod CT__BIAS_LANES, images in order: independent vector adds), which are then
 * added in order; channels split over the threads, so the bits do not depend on their number.
 * PyTorch's oneDNN sums it with the weight's gradient, in an order of its own; sum's cascade over
 * (0, 2, 3) (PyTorch's order for sum, a cascade per image's row) took up to twice as long. */
#define CT__BIAS_LANES 64
#define CT__CONV_BIAS_GRAD(T)                                                                                 \
    static void ct__conv_bias_grad_##T(int64_t N, int64_t C, int64_t L, const T *go, T *gb)                 \
    {                                                                                                         \
        int threads = ct__conv_threads(C, (double)N * (double)C * (double)L);                                 \
        (void)threads; /* read by OpenMP's pragma alone */                                                    \
        CT__OMP_PARALLEL_THREADS                                                                              \
        {                                                                                                     \
            CT__OMP_FOR                                                                                       \
            for (int64_t c = 0; c < C; c++) {                                                                 \
                T lane[CT__BIAS_LANES] = {0}, sum = 0;                                                        \
                for (int64_t n = 0; n < N; n++) {                                                             \
                    const T *row = go + (n * C + c) * L;                                                      \
                    int64_t l = 0;                                                                            \
                    for (; l + CT__BIAS_LANES <= L; l += CT__BIAS_LANES)                                      \
                        for (int e = 0; e < CT__BIAS_LANES; e++) lane[e] += row[l + e];                       \
                    for (int e = 0; l + e < L; e++) lane[e] += row[l + e];                                    \
                }                                                                                             \
                for (int e = 0; e < CT__BIAS_LANES; e++) sum += lane[e];                                      \
                gb[c] = sum;                                                                                  \
            }                                                                                                 \
        }                                                                                                     \
    }
CT__CONV_BIAS_GRAD(float)
CT__CONV_BIAS_GRAD(double)

/* The bias's gradient (C) of the output's gradient go (N, C, ...): by the kernel above when it may
 * (kernels: recording nothing, go contiguous, float or double), else by sum over every dim but C. */
static ct_tensor *ct__conv_bias_grad(const ct_tensor *go, bool kernels)
{
    if (!kernels) {
        ct_shape dims = CT_SHAPE(0);
        for (int d = 2; d < go->ndim; d++) dims.size[dims.ndim++] = d;
        return ct_sum_dim(go, dims, false, CT_DEFAULT);
    }
    int64_t N = go->sizes[0], C = go->sizes[1], L = N * C > 0 ? ct_numel(go) / (N * C) : 0;
    ct_tensor *gb = ct__alloc(&C, 1, go->dtype, ct__cpu);
    if (!gb) return NULL;
    if (go->dtype == CT_F32)
        ct__conv_bias_grad_float(N, C, L, (const float *)ct__data(go), (float *)ct__data(gb));
    else
        ct__conv_bias_grad_double(N, C, L, (const double *)ct__data(go), (double *)ct__data(gb));
    return gb;
}

/* The input's gradient: the other kind of convolution of the output's
 * gradient, its output padding chosen to give back the input's size. */
static ct_tensor *ct__conv_input_grad(const ct_tensor *go, const ct_tensor *w, const ct__conv *c, const int64_t *in_sizes)
{
    ct__conv s = *c;
    s.transposed = !c->transposed;
    for (int d = 0; d < c->nd; d++) s.out_pad[d] = 0;
    for (int d = 0; d < c->nd; d++)
        if (s.transposed)
            s.out_pad[d] = in_sizes[2 + d] - ct__conv_out_size(&s, d, go->sizes[2 + d], w->sizes[2 + d]);
    return ct__convolution(go, w, NULL, &s);
}

/* The output's gradient go made contiguous for a backward that records nothing: go itself when it is,
 * else a copy in the thread's scratch memory, which each gradient of the node reads and none keeps (a
 * new copy's pages would fault in at every step: sum's gradient, an expanded one, is copied whole). */
static const ct_tensor *ct__conv_grad_contiguous(const ct_tensor *go)
{
    if (ct_is_contiguous(go)) return go;
    void *p = ct__scratch_get(CT__SCRATCH_CONV_GRAD, (size_t)CT__MAX(ct_numel(go), 1) * ct__esize(go));
    if (!p) {
        CT__OOM();
        return NULL;
    }
    ct_tensor *t = ct_from_blob(p, ct_shape_make(go->ndim, go->sizes), NULL, go->dtype, NULL, NULL);
    return t && ct_copy_(t, go) == CT_OK ? t : NULL;
}

CT__BACKWARD(convolution)
{
    const ct__conv *c = (const ct__conv *)n->extra;
    ct_tensor *x = CT__S(0), *w = CT__S(1);
    if (!x || !w) return ct_last_error_code();
    /* Recording nothing, every gradient reads the output's gradient whole: made contiguous once (an
     * expanded one, as sum's gradient, is copied once, not per gradient, and summed as contiguous). */
    bool direct = !ct_is_grad_enabled(), kernels = direct && (w->dtype == CT_F32 || w->dtype == CT_F64);
    const ct_tensor *g = direct ? ct__conv_grad_contiguous(go[0]) : go[0];
    if (!g) return ct_last_error_code();
    CT__GRAD(0, ct__conv_input_grad(g, w, c, x->sizes));
    CT__GRAD(1, kernels          ? ct__conv_weight_grad_direct(x, g, w, c)
                : c->transposed ? ct__conv_weight_grad(g, x, c, w->sizes + 2)
                                : ct__conv_weight_grad(x, g, c, w->sizes + 2));
    CT__GRAD(2, ct__conv_bias_grad(g, kernels));
    return CT_OK;
}

/* at::convolution for a batched x (N, Cin, in...) and a checked geometry. */
static ct_tensor *ct__convolution(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b, const ct__conv *c)
{
    static const ct__node_type type = {"ConvolutionBackward0", ct__bw_convolution};
    const ct_tensor *inputs[3] = {x, w, b};
    if (ct__recordable(inputs, 3) != CT_OK) return NULL;
    int64_t sizes[5], Cout = c->transposed ? w->sizes[1] * c->groups : w->sizes[0];
    sizes[0] = x->sizes[0];
    sizes[1] = Cout;
    for (int d = 0; d < c->nd; d++) {
        sizes[2 + d] = ct__conv_out_size(c, d, x->sizes[2 + d], w->sizes[2 + d]);
    }
    ct__window g = ct__conv_window(c, x->sizes + 2, sizes + 2, w->sizes + 2);
    ct_dtype cd = x->dtype == CT_BF16 ? CT_F32 : x->dtype; /* bfloat16 computes in float, rounded once */
    ct_tensor *xc, *wc, *bc = NULL, *out = ct__alloc(sizes, c->nd + 2, cd, ct__cpu);
    CT__UNRECORDED(xc, ct_contiguous(ct_to(x, cd)));
    CT__UNRECORDED(wc, ct_contiguous(ct_to(w, cd)));
    if (b) CT__UNRECORDED(bc, ct_contiguous(ct_to(b, cd)));
    ct__conv *keep = (ct__conv *)CT_MALLOC(sizeof *keep);
    ct_result rc = !out || !xc || !wc || (b && !bc) ? ct_last_error_code() : !keep ? CT__OOM() : CT_OK;
    if (rc == CT_OK && ct_numel(out) > 0) {
        if (cd == CT_F32)
            rc = ct__conv_forward_float(c, &g, x->sizes[0], x->sizes[1], Cout, (const float *)ct__data(xc),
                                        (const float *)ct__data(wc), bc ? (const float *)ct__data(bc) : NULL,
                                        (float *)ct__data(out));
        else
            rc = ct__conv_forward_double(c, &g, x->sizes[0], x->sizes[1], Cout, (const double *)ct__data(xc),
                                         (const double *)ct__data(wc), bc ? (const double *)ct__data(bc) : NULL,
                                         (double *)ct__data(out));
    }
    ct__discard(xc);
    ct__discard(wc);
    ct__discard(bc);
    if (rc != CT_OK) {
        CT_FREE(keep);
        ct__discard(out);
        return NULL;
    }
    if (cd != x->dtype) {
        ct_tensor *wide = out;
        CT__UNRECORDED(out, ct_to(wide, x->dtype));
        ct__discard(wide);
        if (!out) {
            CT_FREE(keep);
            return NULL;
        }
    }
    *keep = *c;
    ct__node *n = ct__record(&type, inputs, 3, &out, 1);
    if (!n) {
        CT_FREE(keep);
        return out;
    }
    n->extra = keep;
    ct__save(n, x, false);
    ct__save(n, w, false);
    return out;
}

/* ---------------------------------------------------------------- front ends */

/* "[1, 1, 1]" of a list. */
static const char *ct__list_str(const int64_t *v, int n, char *buf, size_t size) { return ct__shape_str(v, n, buf, size); }

/* A list argument as PyTorch's parser and expand_param_if_needed see it:
 * empty takes def for each of the function's fn_nd dims, one value fills
 * them; the result must then have one value per weight dim (nd) or one. */
static ct_result ct__conv_param(const char *what, ct_shape s, int fn_nd, int nd, int64_t def, int64_t *out)
{
    int64_t given[CT_MAX_DIMS];
    int n = s.ndim == 0 || s.ndim == 1 ? fn_nd : s.ndim;
    for (int d = 0; d < n; d++) given[d] = s.ndim == 0 ? def : s.size[s.ndim == 1 ? 0 : d];
    if (n != 1 && n != nd) {
        char buf[256];
        return ct__fail(CT_ERR_RUNTIME, "expected %s to be a single integer value or a list of %d values to match the "
                        "convolution dimensions, but got %s=%s", what, nd, what, ct__list_str(given, n, buf, sizeof buf));
    }
    for (int d = 0; d < nd; d++) out[d] = given[n == 1 ? 0 : d];
    return CT_OK;
}

static const char *ct__type_name(ct_dtype t) { return t == CT_F64 ? "double" : t == CT_F32 ? "float" : ct_dtype_name(t); }

/* "(6 x 6)" of n values. */
static const char *ct__x_list(const int64_t *v, int n, char *buf, size_t size)
{
    int at = snprintf(buf, size, "(");
    for (int d = 0; d < n && at < (int)size; d++) at += snprintf(buf + at, size - (size_t)at, "%s%lld", d ? " x " : "", (long long)v[d]);
    if (at < (int)size) snprintf(buf + at, size - (size_t)at, ")");
    return buf;
}

/* check_shape_forward: the weight, groups, channels, bias and window sizes of a batched x. */
static ct_result ct__check_conv_shapes(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b, const ct__conv *c)
{
    char a[256], bb[256], cc[256];
    int64_t G = c->groups;
    if (w->ndim != x->ndim)
        return ct__fail(CT_ERR_RUNTIME, "Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional "
                        "input of size %s instead", w->ndim, w->ndim, ct__shape_str(w->sizes, w->ndim, a, sizeof a), x->ndim,
                        ct__shape_str(x->sizes, x->ndim, bb, sizeof bb));
    ct__shape_str(w->sizes, w->ndim, a, sizeof a);
    if (w->sizes[0] < G)
        return ct__fail(CT_ERR_RUNTIME, "Given groups=%lld, expected weight to be at least %lld at dimension 0, but got weight "
                        "of size %s instead", (long long)G, (long long)G, a);
    if (w->sizes[0] % G)
        return ct__fail(CT_ERR_RUNTIME, "Given groups=%lld, expected weight to be divisible by %lld at dimension 0, but got "
                        "weight of size [%s] instead", (long long)G, (long long)G, a);
    int64_t channels = c->transposed ? w->sizes[0] : w->sizes[1] * G, bias = c->transposed ? w->sizes[1] * G : w->sizes[0];
    if (x->sizes[1] != channels)
        return ct__fail(CT_ERR_RUNTIME, "Given %s=%lld, weight of size %s, expected input%s to have %lld channels, but got %lld "
                        "channels instead", c->transposed ? "transposed" : "groups", c->transposed ? 1LL : (long long)G, a,
                        ct__shape_str(x->sizes, x->ndim, bb, sizeof bb), (long long)channels, (long long)x->sizes[1]);
    if (b && (b->ndim != 1 || b->sizes[0] != bias))
        return ct__fail(CT_ERR_RUNTIME, "Given %sweight of size %s, expected bias to be 1-dimensional with %lld elements, but got "
                        "bias of size %s instead", c->transposed ? "transposed=1, " : "", a, (long long)bias,
                        ct__shape_str(b->sizes, b->ndim, bb, sizeof bb));
    int64_t padded[3], kernel[3], out[3];
    bool fits = true, positive = true;
    for (int d = 0; d < c->nd; d++) {
        padded[d] = x->sizes[2 + d] + 2 * c->pad[d];
        kernel[d] = c->dil[d] * (w->sizes[2 + d] - 1) + 1;
        fits &= padded[d] >= kernel[d];
        out[d] = ct__conv_out_size(c, d, x->sizes[2 + d], w->sizes[2 + d]);
        positive &= out[d] > 0;
    }
    if (!c->transposed && !fits)
        return ct__fail(CT_ERR_RUNTIME, "Calculated padded input size per channel: %s. Kernel size: %s. Kernel size can't be "
                        "greater than actual input size", ct__x_list(padded, c->nd, bb, sizeof bb), ct__x_list(kernel, c->nd, cc, sizeof cc));
    if (c->transposed && !positive)
        return ct__fail(CT_ERR_RUNTIME, "Given input size per channel: %s. Calculated output size per channel: %s. Output size "
                        "is too small", ct__x_list(x->sizes + 2, c->nd, bb, sizeof bb), ct__x_list(out, c->nd, cc, sizeof cc));
    if (w->dtype != x->dtype)
        return ct__fail(CT_ERR_RUNTIME, "Input type (%s) and weight type (%s) should be the same or input should be a MKLDNN "
                        "tensor and weight is a dense tensor", x->dtype == CT_F64 ? "torch.DoubleTensor" : "torch.FloatTensor",
                        w->dtype == CT_F64 ? "torch.DoubleTensor" : "torch.FloatTensor");
    if (b && b->dtype != x->dtype)
        return ct__fail(CT_ERR_RUNTIME, "Input type (%s) and bias type (%s) should be the same", ct__type_name(x->dtype),
                        ct__type_name(b->dtype));
    if (x->dtype != CT_F32 && x->dtype != CT_F64 && x->dtype != CT_BF16)
        return ct__fail(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", c->transposed ? "conv_transpose" : "conv",
                        ct_dtype_name(x->dtype));
    bool too_large = false;
    for (int d = 0; c->transposed && d < c->nd; d++) too_large |= c->out_pad[d] >= c->stride[d] && c->out_pad[d] >= c->dil[d];
    if (too_large) { /* worded for 2-D: a 1-D one is run as 2-D with height 1 */
        int h = c->nd == 2 ? 0 : -1, w = c->nd - 1;
        return ct__fail(CT_ERR_RUNTIME, "output padding must be smaller than either stride or dilation, but got "
                        "output_padding_height: %lld output_padding_width: %lld stride_height: %lld stride_width: %lld "
                        "dilation_height: %lld dilation_width: %lld", h < 0 ? 0LL : (long long)c->out_pad[h],
                        (long long)c->out_pad[w], h < 0 ? 1LL : (long long)c->stride[h], (long long)c->stride[w],
                        h < 0 ? 1LL : (long long)c->dil[h], (long long)c->dil[w]);
    }
    return CT_OK;
}

/* The geometry from the options, checked as at::_convolution checks it. */
static ct_result ct__conv_geometry(const ct_tensor *w, int fn_nd, bool transposed, const ct_conv_opts *o, ct__conv *c)
{
    memset(c, 0, sizeof *c);
    if (w->ndim < 3) return ct__fail(CT_ERR_RUNTIME, "weight should have at least three dimensions");
    c->nd = w->ndim - 2;
    c->transposed = transposed;
    c->groups = o->groups ? o->groups : 1;
    if (c->nd > 3) return ct__fail(CT_ERR_RUNTIME, "ctorch: convolutions have at most 3 spatial dims");
    if (ct__conv_param("stride", o->stride, fn_nd, c->nd, 1, c->stride) ||
        ct__conv_param("padding", o->padding, fn_nd, c->nd, 0, c->pad) ||
        ct__conv_param("dilation", o->dilation, fn_nd, c->nd, 1, c->dil) ||
        (transposed && ct__conv_param("output_padding", o->output_padding, fn_nd, c->nd, 0, c->out_pad)))
        return ct_last_error_code();
    for (int d = 0; d < c->nd; d++) {
        if (c->pad[d] < 0) return ct__fail(CT_ERR_RUNTIME, "negative padding is not supported");
        if (c->out_pad[d] < 0) return ct__fail(CT_ERR_RUNTIME, "negative output_padding is not supported");
        if (c->stride[d] <= 0) return ct__fail(CT_ERR_RUNTIME, "non-positive stride is not supported");
        if (c->dil[d] <= 0) return ct__fail(CT_ERR_RUNTIME, "non-positive dilation is not supported");
    }
    if (c->groups <= 0) return ct__fail(CT_ERR_RUNTIME, "non-positive groups is not supported");
    return CT_OK;
}

/* padding="same": half the dilated kernel on each side; an odd total puts
 * the extra place on the right, padded into the input first (as PyTorch).
 * Returns x itself or the padded copy (owned by the open scope). */
static const ct_tensor *ct__pad_same(const ct_tensor *x, const ct_tensor *w, ct__conv *c)
{
    ct_shape extra = CT_SHAPE0;
    bool asymmetric = false;
    for (int d = c->nd - 1; d >= 0; d--) {
        int64_t total = c->dil[d] * (w->sizes[2 + d] - 1);
        c->pad[d] = total / 2;
        extra.size[extra.ndim++] = 0;
        extra.size[extra.ndim++] = total - 2 * (total / 2);
        asymmetric |= total % 2 != 0;
    }
    return asymmetric ? ct_pad(x, extra, CT_PAD_CONSTANT, 0) : x;
}

/* The public convolutions (fn: PyTorch's name): fn_nd spatial dims, unbatched inputs given a batch dim and losing it after. */
static ct_tensor *ct__conv_front(const char *fn, int fn_nd, bool transposed, const ct_tensor *input, const ct_tensor *weight,
                                 const ct_tensor *bias, ct_conv_opts opts)
{
    char buf[256];
    if (!input || !weight) {
        ct__null_arg(fn, input ? "weight" : "input", input ? 2 : 1);
        return NULL;
    }
    if (input->ndim != fn_nd + 1 && input->ndim != fn_nd + 2) {
        ct__fail(CT_ERR_RUNTIME, "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s", fn_nd + 1,
                 fn_nd + 2, fn, ct__shape_str(input->sizes, input->ndim, buf, sizeof buf));
        return NULL;
    }
    bool same = opts.padding_str && !strcmp(opts.padding_str, "same");
    if (opts.padding_str && !same && strcmp(opts.padding_str, "valid")) {
        ct__fail(transposed ? CT_ERR_TYPE : CT_ERR_RUNTIME, "Invalid padding string: '%s'", opts.padding_str);
        return NULL;
    }
    if (opts.padding_str && transposed) {
        ct__fail(CT_ERR_TYPE, "%s(): argument 'padding' must be tuple of ints, not str", fn);
        return NULL;
    }
    if (opts.padding_str) opts.padding = CT_SHAPE0;
    ct__conv c;
    if (ct__conv_geometry(weight, fn_nd, transposed, &opts, &c)) return NULL;
    for (int d = 0; same && d < c.nd; d++)
        if (c.stride[d] != 1) {
            ct__fail(CT_ERR_RUNTIME, "padding='same' is not supported for strided convolutions");
            return NULL;
        }
    ct_scope s = ct_scope_begin();
    bool batched = input->ndim == fn_nd + 2;
    const ct_tensor *x = batched ? input : ct_unsqueeze(input, 0);
    ct_tensor *r = NULL;
    if (x && same) x = ct__pad_same(x, weight, &c);
    if (x && !ct__check_conv_shapes(x, weight, bias, &c)) r = ct__convolution(x, weight, bias, &c);
    if (r && !batched) r = ct_squeeze_dim(r, 0);
    r = ct_keep(r);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_conv1d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_conv1d(input, weight, bias, opts), &input, &weight, &bias);
    return ct__conv_front("conv1d", 1, false, input, weight, bias, opts);
}

ct_tensor *ct_conv2d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_conv2d(input, weight, bias, opts), &input, &weight, &bias);
    return ct__conv_front("conv2d", 2, false, input, weight, bias, opts);
}

ct_tensor *ct_conv3d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    CT__AUTOCAST(CT__CAST_LOWER, ct_conv3d(input, weight, bias, opts), &input, &weight, &bias);
    return ct__conv_front("conv3d", 3, false, input, weight, bias, opts);
}

ct_tensor *ct_conv_transpose1d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    return ct__conv_front("conv_transpose1d", 1, true, input, weight, bias, opts);
}

ct_tensor *ct_conv_transpose2d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    return ct__conv_front("conv_transpose2d", 2, true, input, weight, bias, opts);
}

ct_tensor *ct_conv_transpose3d(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias, ct_conv_opts opts)
{
    return ct__conv_front("conv_transpose3d", 3, true, input, weight, bias, opts);
}

/* ---------------------------------------------------------------- im2col and col2im */

/* F.unfold's window over (H, W) and whether the result is the columns (im2col) or the image (col2im). */
typedef struct ct__fold {
    ct__window g;
    bool to_image;
    int64_t channels; /* of the image */
} ct__fold;

static ct_tensor *ct__fold_run(const ct__fold *f, const ct_tensor *x, bool to_image);

CT__BACKWARD(fold)
{
    CT__GRAD(0, ct__fold_run((const ct__fold *)n->extra, go[0], !n->iargs[0]));
    return CT_OK;
}

/* im2col (image (N, C, H, W) to columns (N, C * K, L)) or col2im of x, with
 * or without its batch dim; records Im2ColBackward0 or Col2ImBackward0. */
static ct_tensor *ct__fold_run(const ct__fold *f, const ct_tensor *x, bool to_image)
{
    static const ct__node_type type = {"Im2ColBackward0", ct__bw_fold};
    if (ct__recordable(&x, 1) != CT_OK) return NULL;
    const ct__window *g = &f->g;
    int64_t K = g->k[1] * g->k[2], L = g->out[1] * g->out[2], image = g->in[1] * g->in[2];
    bool batched = x->ndim == (to_image ? 3 : 4);
    int64_t N = batched ? x->sizes[0] : 1, sizes[4];
    int nd = 0;
    if (batched) sizes[nd++] = N;
    sizes[nd++] = to_image ? f->channels : f->channels * K;
    if (to_image) sizes[nd++] = g->in[1];
    sizes[nd++] = to_image ? g->in[2] : L;
    ct_tensor *xc, *out = ct__alloc(sizes, nd, x->dtype, ct__cpu);
    CT__UNRECORDED(xc, ct_contiguous(x));
    ct__fold *keep = (ct__fold *)CT_MALLOC(sizeof *keep);
    if (!out || !xc || !keep) {
        if (!keep) CT__OOM();
        CT_FREE(keep);
        ct__discard(out);
        ct__discard(xc);
        return NULL;
    }
    int64_t C = f->channels, in_per = to_image ? C * K * L : C * image, out_per = to_image ? C * image : C * K * L;
    for (int64_t n = 0; n < N && ct_numel(out) > 0; n++) {
        const char *src = ct__data(xc) + (size_t)(n * in_per) * ct__esize(x);
        char *dst = ct__data(out) + (size_t)(n * out_per) * ct__esize(x);
        if (x->dtype == CT_F32 && to_image) ct__col2im_float(g, C, (const float *)src, (float *)dst);
        else if (x->dtype == CT_F32) ct__im2col_float(g, (const float *)src, 0, 0, C * K, 0, L, (float *)dst, L);
        else if (to_image) ct__col2im_double(g, C, (const double *)src, (double *)dst);
        else ct__im2col_double(g, (const double *)src, 0, 0, C * K, 0, L, (double *)dst, L);
    }
    ct__discard(xc);
    *keep = *f;
    const ct_tensor *inputs[1] = {x};
    ct__node *n = ct__record(&type, inputs, 1, &out, 1);
    if (!n) {
        CT_FREE(keep);
        return out;
    }
    n->name = to_image ? "Col2ImBackward0" : "Im2ColBackward0";
    n->iargs[0] = to_image;
    n->extra = keep;
    return out;
}

/* A 2-value list of F.unfold / F.fold (one value: both). */
static ct_result ct__fold_list(const char *what, ct_shape s, int64_t def, int64_t *out)
{
    if (s.ndim > 2) return ct__fail(CT_ERR_RUNTIME, "It is expected %s equals to 2, but got size %d", what, s.ndim);
    for (int d = 0; d < 2; d++) out[d] = s.ndim == 0 ? def : s.size[s.ndim == 1 ? 0 : d];
    return CT_OK;
}

/* The window of F.unfold / F.fold over an image of size (H, W), checked as PyTorch's im2col_shape_check. */
static ct_result ct__fold_geometry(ct_shape kernel, const ct_fold_opts *o, ct__fold *f)
{
    int64_t k[2] = {0, 0}, d[2] = {0, 0}, p[2] = {0, 0}, s[2] = {0, 0};
    if (kernel.ndim == 0) return ct__fail(CT_ERR_RUNTIME, "It is expected kernel_size equals to 2, but got size 0");
    if (ct__fold_list("kernel_size", kernel, 0, k) || ct__fold_list("dilation", o->dilation, 1, d) ||
        ct__fold_list("padding", o->padding, 0, p) || ct__fold_list("stride", o->stride, 1, s))
        return ct_last_error_code();
    if (k[0] <= 0 || k[1] <= 0)
        return ct__fail(CT_ERR_RUNTIME, "kernel size should be greater than zero, but got kernel_height: %lld kernel_width: %lld",
                        (long long)k[0], (long long)k[1]);
    if (s[0] <= 0 || s[1] <= 0)
        return ct__fail(CT_ERR_RUNTIME, "stride should be greater than zero, but got stride_height: %lld stride_width: %lld",
                        (long long)s[0], (long long)s[1]);
    if (d[0] <= 0 || d[1] <= 0)
        return ct__fail(CT_ERR_RUNTIME, "dilation should be greater than zero, but got dilation_height: %lld dilation_width: %lld",
                        (long long)d[0], (long long)d[1]);
    if (p[0] < 0 || p[1] < 0)
        return ct__fail(CT_ERR_RUNTIME, "padding should be non-negative, but got pad_height: %lld pad_width: %lld",
                        (long long)p[0], (long long)p[1]);
    memset(f, 0, sizeof *f);
    f->g.in[0] = f->g.out[0] = f->g.k[0] = f->g.stride[0] = f->g.dil[0] = 1;
    for (int i = 0; i < 2; i++) {
        f->g.k[1 + i] = k[i];
        f->g.dil[1 + i] = d[i];
        f->g.pad[1 + i] = p[i];
        f->g.stride[1 + i] = s[i];
    }
    return CT_OK;
}

/* The number of blocks along each dim of an image (H, W). */
static void ct__fold_blocks(ct__fold *f, int64_t H, int64_t W)
{
    f->g.in[1] = H;
    f->g.in[2] = W;
    for (int i = 1; i < 3; i++)
        f->g.out[i] = (f->g.in[i] + 2 * f->g.pad[i] - f->g.dil[i] * (f->g.k[i] - 1) - 1) / f->g.stride[i] + 1;
}

ct_tensor *ct_im2col(const ct_tensor *input, ct_shape kernel_size, ct_fold_opts opts)
{
    CT__ARG(input, "input", 1);
    char buf[256];
    ct__fold f;
    if (ct__fold_geometry(kernel_size, &opts, &f)) return NULL;
    bool ok = input->ndim == 3 || input->ndim == 4;
    for (int d = input->ndim - 3; ok && d < input->ndim; d++) ok = input->sizes[d] != 0;
    if (!ok) {
        ct__fail(CT_ERR_RUNTIME, "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
                 "for input, but got: %s", ct__shape_str(input->sizes, input->ndim, buf, sizeof buf));
        return NULL;
    }
    if (ct__check_floating(input, "im2col_out_cpu")) return NULL;
    ct__fold_blocks(&f, input->sizes[input->ndim - 2], input->sizes[input->ndim - 1]);
    f.channels = input->sizes[input->ndim - 3];
    if (f.g.out[1] < 1 || f.g.out[2] < 1) {
        ct__fail(CT_ERR_RUNTIME, "Given input with spatial size (%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), "
                 "padding=(%lld, %lld), calculated shape of the array of sliding blocks as (%lld, %lld), but its components must "
                 "be at least one.", (long long)f.g.in[1], (long long)f.g.in[2], (long long)f.g.k[1], (long long)f.g.k[2],
                 (long long)f.g.dil[1], (long long)f.g.dil[2], (long long)f.g.pad[1], (long long)f.g.pad[2],
                 (long long)f.g.out[1], (long long)f.g.out[2]);
        return NULL;
    }
    return ct__fold_run(&f, input, false);
}

ct_tensor *ct_col2im(const ct_tensor *input, ct_shape output_size, ct_shape kernel_size, ct_fold_opts opts)
{
    CT__ARG(input, "input", 1);
    char buf[256];
    ct__fold f;
    int64_t size[2] = {0, 0};
    if (ct__fold_list("output_size", output_size, 0, size) || ct__fold_geometry(kernel_size, &opts, &f)) return NULL;
    bool ok = input->ndim == 2 || input->ndim == 3;
    for (int d = input->ndim - 2; ok && d < input->ndim; d++) ok = input->sizes[d] != 0;
    if (!ok) {
        ct__fail(CT_ERR_RUNTIME, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                 "dimensions for input, but got: %s", ct__shape_str(input->sizes, input->ndim, buf, sizeof buf));
        return NULL;
    }
    int64_t rows = input->sizes[input->ndim - 2], cols = input->sizes[input->ndim - 1], K = f.g.k[1] * f.g.k[2];
    if (rows % K) {
        ct__fail(CT_ERR_RUNTIME, "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
                 "input.size(1)=%lld and kernel_size=(%lld, %lld).", (long long)rows, (long long)f.g.k[1], (long long)f.g.k[2]);
        return NULL;
    }
    ct__fold_blocks(&f, size[0], size[1]);
    f.channels = rows / K;
    if (f.g.out[1] < 1 || f.g.out[2] < 1 || f.g.out[1] * f.g.out[2] != cols) {
        ct__fail(CT_ERR_RUNTIME, "Given output_size=(%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), padding=(%lld, "
                 "%lld), stride=(%lld, %lld), expected size of input's dimension 2 to match the calculated number of sliding "
                 "blocks %lld * %lld = %lld, but got input.size(2)=%lld.", (long long)size[0], (long long)size[1],
                 (long long)f.g.k[1], (long long)f.g.k[2], (long long)f.g.dil[1], (long long)f.g.dil[2], (long long)f.g.pad[1],
                 (long long)f.g.pad[2], (long long)f.g.stride[1], (long long)f.g.stride[2], (long long)f.g.out[1],
                 (long long)f.g.out[2], (long long)(f.g.out[1] * f.g.out[2]), (long long)cols);
        return NULL;
    }
    if (ct__check_floating(input, "col2im_out_cpu")) return NULL;
    return ct__fold_run(&f, input, true);
}
