/* The convolution and pooling kernels: im2col / col2im over up to three
 * spatial dims, sparse linear maps (gathers with weights) and their
 * adjoints, and the search for each window's maximum. Float32 and float64. */

/* ---------------------------------------------------------------- im2col / col2im */

/* The outputs o in [*lo, *hi) of a row of n_out whose input o * stride + off
 * falls inside [0, n_in): a window's row is zero outside them. */
static void ct__inside_range(int64_t off, int64_t stride, int64_t n_in, int64_t n_out, int64_t *lo, int64_t *hi)
{
    int64_t first = off >= 0 ? 0 : (-off + stride - 1) / stride;
    int64_t end = n_in - 1 - off < 0 ? 0 : (n_in - 1 - off) / stride + 1;
    *hi = end < n_out ? end : n_out;
    *lo = first < *hi ? first : *hi;
}

/* dst[0, b - a) = places [a, b) of a line whose place p is src[p + off] in [lo, hi) and 0 elsewhere
 * (a <= lo <= hi <= b; src stays a valid pointer when lo == hi). Lines of a window are short (a row of
 * the image), so under AVX-512 a line is a few masked loads, which read nothing outside their mask,
 * and masked stores; a plain loop otherwise. */
/* The mask of lanes [0, n) of a vector of 16 or fewer (n clipped to [0, 16]). */
static inline uint32_t ct__low_lanes(int64_t n) { return (1u << CT__MIN(CT__MAX(n, 0), 16)) - 1; }
/* The same for two vectors of 16 or fewer lanes each, side by side (n clipped to [0, 32]). */
static inline uint32_t ct__two_lanes(int64_t n) { return n >= 32 ? ~0u : (1u << CT__MAX(n, 0)) - 1; }
#if defined(__AVX512F__)
#include <immintrin.h>
#define CT__LINE_COPY(T, VL, mask, load, store)                                                              \
    static inline void ct__line_copy_##T(const T *src, int64_t off, int64_t lo, int64_t hi, int64_t a,       \
                                         int64_t b, T *dst)                                                  \
    {                                                                                                        \
        for (int64_t p = a; p < b; p += VL)                                                                  \
            store(dst + p - a, (mask)ct__low_lanes(b - p),                                                   \
                  load((mask)(ct__low_lanes(hi - p) & ~ct__low_lanes(lo - p)), src + p + off));             \
    }
CT__LINE_COPY(float, 16, __mmask16, _mm512_maskz_loadu_ps, _mm512_mask_storeu_ps)
CT__LINE_COPY(double, 8, __mmask8, _mm512_maskz_loadu_pd, _mm512_mask_storeu_pd)
/* Whole lines [0, nl) of a window row, n2 places each (at most two vectors, else false and nothing
 * done), line l read from lsrc[l] + off (NULL: a line outside the image, zeros) into dst + l * n2:
 * `inside` the lanes read, `whole` the n2 written (ct__two_lanes), made once for the row. Masked loads
 * read nothing outside their mask (none for a NULL line). Stores are whole vectors while dst has room
 * for them (elements that later lines overwrite): a masked store costs several times a plain one. */
#define CT__WHOLE_LINES(T, VL, V, mask, load, store, store_all)                                              \
    static inline bool ct__whole_lines_##T(const T *const *lsrc, int64_t nl, int64_t off, int64_t n2,        \
                                           uint32_t inside, uint32_t whole, T *dst, int64_t room)            \
    {                                                                                                        \
        if (n2 > 2 * VL) return false;                                                                       \
        int vectors = n2 > VL ? 2 : 1;                                                                       \
        for (int64_t l = 0; l < nl; l++, dst += n2) {                                                        \
            const T *src = lsrc[l] ? lsrc[l] + off : dst;                                                    \
            uint32_t m = lsrc[l] ? inside : 0;                                                               \
            bool plain = l * n2 + vectors * VL <= room;                                                      \
            for (int v = 0; v < vectors; v++) {                                                              \
                V x = load((mask)(m >> (v * VL)), src + v * VL);                                             \
                if (plain)                                                                                   \
                    store_all(dst + v * VL, x);                                                              \
                else                                                                                         \
                    store(dst + v * VL, (mask)(whole >> (v * VL)), x);                                       \
            }                                                                                                \
        }                                                                                                    \
        return true;                                                                                         \
    }
CT__WHOLE_LINES(float, 16, __m512, __mmask16, _mm512_maskz_loadu_ps, _mm512_mask_storeu_ps, _mm512_storeu_ps)
CT__WHOLE_LINES(double, 8, __m512d, __mmask8, _mm512_maskz_loadu_pd, _mm512_mask_storeu_pd, _mm512_storeu_pd)
#else
#define CT__LINE_COPY(T)                                                                                     \
    static inline void ct__line_copy_##T(const T *CT__RESTRICT src, int64_t off, int64_t lo, int64_t hi,     \
                                         int64_t a, int64_t b, T *CT__RESTRICT dst)                          \
    {                                                                                                        \
        for (int64_t p = a; p < lo; p++) dst[p - a] = 0;                                                     \
        for (int64_t p = lo; p < hi; p++) dst[p - a] = src[p + off];                                         \
        for (int64_t p = hi; p < b; p++) dst[p - a] = 0;                                                     \
    }
CT__LINE_COPY(float)
CT__LINE_COPY(double)
#define CT__WHOLE_LINES(T)                                                                                   \
    static inline bool ct__whole_lines_##T(const T *const *lsrc, int64_t nl, int64_t off, int64_t n2,        \
                                           uint32_t inside, uint32_t whole, T *dst, int64_t room)            \
    {                                                                                                        \
        (void)lsrc, (void)nl, (void)off, (void)n2, (void)inside, (void)whole, (void)dst, (void)room;         \
        return false;                                                                                        \
    }
CT__WHOLE_LINES(float)
CT__WHOLE_LINES(double)
#endif

/* Rows of the im2col matrix that share their lines: (c, j0, j1, j2) for up to this many j2 in turn. */
#define CT__IM2COL_ROWS 16
/* Lines of a window row walked at a time, then written for each of those rows. */
#define CT__IM2COL_LINES 64

/* Places [from, b) of a window row's line into dst: src[p * stride2 + off] for its inside places p in
 * [lo, hi) (clipped to [from, b)), zeros elsewhere; src NULL: a line outside the image. */
#define CT__WINDOW_LINE(T)                                                                                   \
    static inline void ct__window_line_##T(const ct__window *g, const T *x, const T *src, int64_t off,      \
                                           int64_t lo, int64_t hi, int64_t from, int64_t b, T *dst)          \
    {                                                                                                        \
        int64_t w = lo, h = hi, s2 = g->stride[2]; /* w, h: the inside places */                             \
        if (!src) w = h = from;                                                                              \
        else if (from > 0 || b < g->out[2])                                                                  \
            w = CT__MIN(CT__MAX(w, from), b), h = CT__MIN(CT__MAX(h, w), b);                                 \
        if (s2 == 1) {                                                                                       \
            ct__line_copy_##T(src ? src : x, off, w, h, from, b, dst);                                       \
            return;                                                                                          \
        }                                                                                                    \
        for (int64_t p = from; p < b; p++) dst[p - from] = 0;                                                \
        for (int64_t p = w; p < h; p++) dst[p - from] = src[p * s2 + off];                                   \
    }
CT__WINDOW_LINE(float)
CT__WINDOW_LINE(double)

/* Rows [r0, r1) and columns [k0, k1) of the im2col matrix of images side by side: image i (C, in0, in1,
 * in2) at x + i * image_stride has columns [i * L, (i + 1) * L), L = out0 * out1 * out2; row (c, j0, j1,
 * j2), column (o0, o1, o2) = x[c, o * stride - pad + j * dil], 0 outside. Into cols, rows ld apart.
 * A column range walks the lines (o0, o1) of the images in turn, keeping its place by counting, not
 * dividing; the rows of every j2 read the same image lines at other offsets, so a batch of lines is
 * walked once and then written for each of them. */
#define CT__IM2COL(T)                                                                                        \
    static void ct__im2col_##T(const ct__window *g, const T *x, int64_t image_stride, int64_t r0,            \
                               int64_t r1, int64_t k0, int64_t k1, T *cols, int64_t ld)                      \
    {                                                                                                        \
        int64_t taps = g->k[0] * g->k[1] * g->k[2], n2 = g->out[2], L = g->out[0] * g->out[1] * n2;          \
        int64_t plane = g->in[0] * g->in[1] * g->in[2], s2 = g->stride[2];                                   \
        for (int64_t r = r0, rows; r < r1; r += rows, cols += rows * ld) {                                   \
            int64_t c = r / taps, t = r % taps, j2 = t % g->k[2], j1 = t / g->k[2] % g->k[1];                \
            int64_t j0 = t / (g->k[1] * g->k[2]), off[CT__IM2COL_ROWS], lo[CT__IM2COL_ROWS];                 \
            int64_t hi[CT__IM2COL_ROWS];                                                                     \
            rows = CT__MIN(CT__MIN(g->k[2] - j2, r1 - r), CT__IM2COL_ROWS);                                  \
            for (int64_t e = 0; e < rows; e++) {                                                             \
                off[e] = (j2 + e) * g->dil[2] - g->pad[2];                                                   \
                ct__inside_range(off[e], s2, g->in[2], n2, &lo[e], &hi[e]);                                  \
            }                                                                                                \
            int64_t i = k0 / L, q = k0 % L / n2, a = k0 % L % n2, o0 = q / g->out[1], o1 = q % g->out[1];    \
            const T *lsrc[CT__IM2COL_LINES];                                                                 \
            int64_t la[CT__IM2COL_LINES], lb[CT__IM2COL_LINES];                                              \
            for (int64_t done = 0, left = k1 - k0; left > 0;) {                                              \
                int nl = 0;                                                                                  \
                for (; nl < CT__IM2COL_LINES && left > 0; nl++, a = 0) {                                     \
                    int64_t i0 = o0 * g->stride[0] - g->pad[0] + j0 * g->dil[0];                             \
                    int64_t i1 = o1 * g->stride[1] - g->pad[1] + j1 * g->dil[1];                             \
                    bool inside = i0 >= 0 && i0 < g->in[0] && i1 >= 0 && i1 < g->in[1];                      \
                    la[nl] = a, lb[nl] = CT__MIN(n2, a + left);                                              \
                    const T *line = x + i * image_stride + c * plane;                                        \
                    lsrc[nl] = inside ? line + (i0 * g->in[1] + i1) * g->in[2] : NULL;                       \
                    left -= lb[nl] - a;                                                                      \
                    if (++o1 == g->out[1] && (o1 = 0, ++o0 == g->out[0])) o0 = 0, i++;                       \
                }                                                                                            \
                /* lines [w0, w1) are whole: only a batch's first and last can be cut by k0 or k1 */          \
                int64_t w0 = la[0] > 0 || lb[0] < n2, w1 = nl - (nl - 1 >= w0 && lb[nl - 1] < n2);           \
                int64_t width = 0, cut = w0 ? lb[0] - la[0] : 0;                                             \
                for (int l = 0; l < nl; l++) width += lb[l] - la[l];                                         \
                for (int64_t e = 0; e < rows; e++) {                                                         \
                    T *dst = cols + e * ld + done;                                                           \
                    uint32_t inside = ct__two_lanes(hi[e]) & ~ct__two_lanes(lo[e]), whole = ct__two_lanes(n2); \
                    if (s2 == 1 && ct__whole_lines_##T(lsrc + w0, w1 - w0, off[e], n2, inside, whole,        \
                                                       dst + cut, k1 - k0 - done - cut)) {                   \
                        if (w0) ct__window_line_##T(g, x, lsrc[0], off[e], lo[e], hi[e], la[0], lb[0], dst); \
                        if (w1 < nl)                                                                         \
                            ct__window_line_##T(g, x, lsrc[nl - 1], off[e], lo[e], hi[e], la[nl - 1],        \
                                                lb[nl - 1], dst + width - (lb[nl - 1] - la[nl - 1]));        \
                        continue;                                                                            \
                    }                                                                                        \
                    for (int l = 0; l < nl; dst += lb[l] - la[l], l++)                                       \
                        ct__window_line_##T(g, x, lsrc[l], off[e], lo[e], hi[e], la[l], lb[l], dst);         \
                }                                                                                            \
                done += width;                                                                               \
            }                                                                                                \
        }                                                                                                    \
    }                                                                                                        \
    /* col2im, im2col's adjoint: x (zeroed here) gets every column entry added back at its place. */         \
    static void ct__col2im_##T(const ct__window *g, int64_t C, const T *cols, T *x)                          \
    {                                                                                                        \
        int64_t L = g->out[0] * g->out[1] * g->out[2], n2 = g->out[2], s2 = g->stride[2];                    \
        memset(x, 0, sizeof(T) * (size_t)(C * g->in[0] * g->in[1] * g->in[2]));                              \
        const T *row = cols;                                                                                 \
        for (int64_t c = 0; c < C; c++)                                                                      \
            for (int64_t j0 = 0; j0 < g->k[0]; j0++)                                                         \
                for (int64_t j1 = 0; j1 < g->k[1]; j1++)                                                     \
                    for (int64_t j2 = 0; j2 < g->k[2]; j2++, row += L) {                                     \
                        int64_t off2 = j2 * g->dil[2] - g->pad[2], lo, hi;                                   \
                        ct__inside_range(off2, s2, g->in[2], n2, &lo, &hi);                                  \
                        T *xc = x + c * g->in[0] * g->in[1] * g->in[2];                                      \
                        for (int64_t o0 = 0; o0 < g->out[0]; o0++) {                                         \
                            int64_t i0 = o0 * g->stride[0] - g->pad[0] + j0 * g->dil[0];                     \
                            if (i0 < 0 || i0 >= g->in[0]) continue;                                          \
                            for (int64_t o1 = 0; o1 < g->out[1]; o1++) {                                     \
                                int64_t i1 = o1 * g->stride[1] - g->pad[1] + j1 * g->dil[1];                 \
                                if (i1 < 0 || i1 >= g->in[1]) continue;                                      \
                                const T *CT__RESTRICT src = row + (o0 * g->out[1] + o1) * n2;                \
                                T *CT__RESTRICT dst = xc + (i0 * g->in[1] + i1) * g->in[2];                  \
                                if (s2 == 1)                                                                 \
                                    for (int64_t o2 = lo; o2 < hi; o2++) dst[o2 + off2] += src[o2];          \
                                else                                                                         \
                                    for (int64_t o2 = lo; o2 < hi; o2++) dst[o2 * s2 + off2] += src[o2];     \
                            }                                                                                \
                        }                                                                                    \
                    }                                                                                        \
    }
CT__IM2COL(float)
CT__IM2COL(double)

/* ---------------------------------------------------------------- sparse linear maps */

/* out (planes, n_out) = the map of in (planes, n_in): each output is the sum
 * of its taps' weighted inputs, or `fill` when none of its taps is inside. */
#define CT__LINMAP(T)                                                                                        \
    static void ct__linmap_apply_##T(const ct__linmap *m, const T *in, T *out, T fill)                       \
    {                                                                                                        \
        int64_t per = m->n_out * m->taps;                                                                    \
        for (int64_t b = 0; b < m->planes; b++) {                                                            \
            const int64_t *src = m->src + (m->per_plane ? b * per : 0);                                      \
            const T *x = in + b * m->n_in;                                                                   \
            T *y = out + b * m->n_out;                                                                       \
            for (int64_t i = 0; i < m->n_out; i++) {                                                         \
                T acc = 0;                                                                                   \
                bool any = false;                                                                            \
                for (int64_t t = i * m->taps; t < (i + 1) * m->taps; t++) {                                  \
                    if (src[t] < 0) continue;                                                                \
                    acc += m->w ? (T)m->w[t] * x[src[t]] : x[src[t]];                                        \
                    any = true;                                                                              \
                }                                                                                            \
                y[i] = any ? acc : fill;                                                                     \
            }                                                                                                \
        }                                                                                                    \
    }                                                                                                        \
    /* The adjoint: in (planes, n_in) = the transposed map of out (planes, n_out), tap by tap. */            \
    static void ct__linmap_adjoint_##T(const ct__linmap *m, const T *out, T *in)                             \
    {                                                                                                        \
        const int64_t n_out = m->n_out, taps = m->taps, per = n_out * taps;                                  \
        const double *w = m->w;                                                                              \
        memset(in, 0, sizeof(T) * (size_t)(m->planes * m->n_in));                                            \
        for (int64_t b = 0; b < m->planes; b++) {                                                            \
            const int64_t *src = m->src + (m->per_plane ? b * per : 0);                                      \
            T *x = in + b * m->n_in;                                                                         \
            const T *y = out + b * n_out;                                                                    \
            for (int64_t i = 0; i < n_out; i++)                                                              \
                for (int64_t t = i * taps; t < (i + 1) * taps; t++)                                          \
                    if (src[t] >= 0) x[src[t]] += w ? (T)w[t] * y[i] : y[i];                                 \
        }                                                                                                    \
    }
CT__LINMAP(float)
CT__LINMAP(double)

/* Max pooling: the index of each window's maximum (the first; NaN wins, the
 * last NaN as PyTorch's scan leaves it) in its plane, from a map's taps.
 * A block of windows at a time, tap by tap: one window's taps form a chain of
 * dependent compares, a block's windows are independent of each other. */
#define CT__LINMAP_ARGMAX(T)                                                                            \
    static void ct__linmap_argmax_##T(const ct__linmap *m, const T *x, int64_t *idx)                    \
    {                                                                                                   \
        enum { block = 256 };                                                                           \
        const int64_t planes = m->planes, n_out = m->n_out, taps = m->taps, n_in = m->n_in;             \
        const int64_t *table = m->src; /* locals: idx's stores could alias m's fields */                \
        int64_t best[block];                                                                            \
        for (int64_t b = 0; b < planes; b++)                                                            \
            for (int64_t i0 = 0; i0 < n_out; i0 += block) {                                             \
                const T *xp = x + b * n_in;                                                             \
                const int64_t *src = table + i0 * taps;                                                 \
                int64_t n = CT__MIN((int64_t)block, n_out - i0);                                        \
                for (int64_t i = 0; i < n; i++) best[i] = -1;                                           \
                /* branch-free (the comparisons are data-dependent): the best value is read again       \
                 * rather than selected, the index selected by a mask */                                \
                for (int64_t t = 0; t < taps; t++)                                                      \
                    for (int64_t i = 0; i < n; i++) {                                                   \
                        int64_t s = src[i * taps + t], cur = best[i];                                   \
                        T v = xp[s < 0 ? 0 : s], bv = xp[cur < 0 ? 0 : cur];                            \
                        int64_t take = (s >= 0) & ((cur < 0) | (v > bv) | (v != v));                    \
                        best[i] = cur + ((s - cur) & -take);                                            \
                    }                                                                                   \
                for (int64_t i = 0; i < n; i++) idx[b * n_out + i0 + i] = CT__MAX(best[i], 0);          \
            }                                                                                           \
    }
CT__LINMAP_ARGMAX(float)
CT__LINMAP_ARGMAX(double)

/* Max pooling's argmax over 2-D windows that all lie inside the image (no
 * padding, dilation 1, none past the edge): the scan of ct__linmap_argmax
 * (taps in row-major order, the first maximum, the last NaN) without its
 * table, a row of windows at a time, tap by tap, into local arrays (which
 * nothing else can alias: the loop vectorises).
 * x (planes, H, W), idx (planes, OH, OW) the index of each maximum in its plane. */
#define CT__MAX_POOL2D_ARGMAX(T)                                                                        \
    static void ct__max_pool2d_argmax_##T(int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW, \
                                          const int64_t *k, const int64_t *stride, const T *x, int64_t *idx)\
    {                                                                                                   \
        enum { block = 256 };                                                                           \
        T best_v[block];                                                                                \
        int64_t best[block];                                                                            \
        const int64_t sx = stride[1];                                                                   \
        for (int64_t b = 0; b < planes; b++)                                                            \
            for (int64_t oy = 0; oy < OH; oy++)                                                         \
                for (int64_t ox0 = 0; ox0 < OW; ox0 += block) {                                         \
                    int64_t n = CT__MIN((int64_t)block, OW - ox0);                                      \
                    for (int64_t ky = 0; ky < k[0]; ky++)                                               \
                        for (int64_t kx = 0; kx < k[1]; kx++) {                                         \
                            int64_t at = (oy * stride[0] + ky) * W + ox0 * sx + kx;                     \
                            const T *row = x + b * H * W + at;                                          \
                            bool first = ky == 0 && kx == 0;                                            \
                            for (int64_t i = 0; i < n; i++) {                                           \
                                T v = row[i * sx];                                                      \
                                bool take = first | (v > best_v[i]) | (v != v);                         \
                                best_v[i] = take ? v : best_v[i];                                       \
                                best[i] = take ? at + i * sx : best[i];                                 \
                            }                                                                           \
                        }                                                                               \
                    memcpy(idx + (b * OH + oy) * OW + ox0, best, sizeof(int64_t) * (size_t)n);          \
                }                                                                                       \
    }
CT__MAX_POOL2D_ARGMAX(float)
CT__MAX_POOL2D_ARGMAX(double)
