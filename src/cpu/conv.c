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
/* The mask of two vectors of 16 or fewer lanes each, side by side (n clipped to [0, 32]). */
static inline uint32_t ct__two_lanes(int64_t n) { return n >= 32 ? ~0u : (1u << CT__MAX(n, 0)) - 1; }
#if defined(__AVX512F__)
#include <immintrin.h>
/* The mask of lanes [0, n) of a vector of 16 or fewer (n clipped to [0, 16]). */
static inline uint32_t ct__low_lanes(int64_t n) { return (1u << CT__MIN(CT__MAX(n, 0), 16)) - 1; }
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
 * last NaN as PyTorch's scan leaves it) in its plane, from a map's taps, and
 * the maximum itself.
 * A block of windows at a time, tap by tap: one window's taps form a chain of
 * dependent compares, a block's windows are independent of each other. */
#define CT__LINMAP_ARGMAX(T)                                                                            \
    static void ct__linmap_argmax_##T(const ct__linmap *m, const T *x, int64_t *idx, T *y)              \
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
                for (int64_t i = 0; i < n; i++) {                                                       \
                    idx[b * n_out + i0 + i] = CT__MAX(best[i], 0);                                      \
                    y[b * n_out + i0 + i] = xp[CT__MAX(best[i], 0)];                                    \
                }                                                                                       \
            }                                                                                           \
    }
CT__LINMAP_ARGMAX(float)
CT__LINMAP_ARGMAX(double)

/* Max pooling's argmax over 2-D windows that all lie inside the image (no
 * padding, dilation 1, none past the edge): the scan of ct__linmap_argmax
 * (taps in row-major order, the first maximum, the last NaN) without its
 * table, a row of windows at a time, tap by tap, into local arrays (which
 * nothing else can alias: the loop vectorises).
 * x (planes, H, W), idx (planes, OH, OW) the index of each maximum in its
 * plane, y (planes, OH, OW) the maxima. */
#define CT__MAX_POOL2D_ARGMAX(T)                                                                        \
    static void ct__max_pool2d_argmax_##T(int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW, \
                                          const int64_t *k, const int64_t *stride, const T *x, int64_t *idx,\
                                          T *y)                                                         \
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
                    memcpy(y + (b * OH + oy) * OW + ox0, best_v, sizeof(T) * (size_t)n);                \
                }                                                                                       \
    }
CT__MAX_POOL2D_ARGMAX(float)
CT__MAX_POOL2D_ARGMAX(double)

/* Max pooling whose windows tile the rows (kernel == stride == k[1] in x,
 * W == OW * k[1]) and all lie inside the image: rows of a few windows are too
 * short for vectors, so the scan goes in two passes over a group of whole
 * rows (contiguous, as the rows tile): the maximum of each row's window
 * segment over the group flattened (one long loop), then of those segments
 * down each window's rows, a row of windows padded to whole vectors (the lanes
 * past it read the next rows' segments, and what they write the next rows
 * overwrite). The scan's order
 * (row by row, the first maximum, the last NaN) is kept: the first (last) in
 * row-major order is the first (last) row's first (last) one.
 * x (planes, H, W); y, idx (planes, OH, OW). */
enum { CT__POOL_TILED_BLOCK = 1024, CT__POOL_LANES = 16 }; /* segments a group holds; the padding */

/* The input row (of planes * H) where output row q's (of planes * OH) windows start. */
static inline int64_t ct__pool_row_at(int64_t q, int64_t OH, int64_t H, int64_t sy) { return q / OH * H + q % OH * sy; }

#define CT__MAX_POOL2D_TILED(T)                                                                           \
    /* each of n runs of k values in x (n * k): its maximum v and that one's place c in the run */        \
    static inline void ct__pool_run_max_##T(int64_t n, int64_t k, const T *x, T *v, int32_t *c)           \
    {                                                                                                     \
        for (int64_t j = 0; j < n; j++) {                                                                 \
            T best = x[j * k];                                                                            \
            int32_t at = 0;                                                                               \
            for (int64_t t = 1; t < k; t++) {                                                             \
                T u = x[j * k + t];                                                                       \
                bool take = (u > best) | (u != u);                                                        \
                best = take ? u : best;                                                                   \
                at = take ? (int32_t)t : at;                                                              \
            }                                                                                             \
            v[j] = best;                                                                                  \
            c[j] = at;                                                                                    \
        }                                                                                                 \
    }                                                                                                     \
    /* down kh rows, OW apart, of segment maxima v and places c: the maximum v_out and its place in the  \
     * window, row * W + c, in each of n lanes */                                                         \
    static void ct__pool_down_max_##T(int64_t kh, int64_t n, int64_t OW, int64_t W, const T *v,           \
                                      const int32_t *c, T *v_out, int32_t *at_out)                        \
    {                                                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                                 \
            v_out[i] = v[i];                                                                              \
            at_out[i] = c[i];                                                                             \
        }                                                                                                 \
        for (int64_t ky = 1; ky < kh; ky++)                                                               \
            for (int64_t i = 0; i < n; i++) {                                                             \
                T u = v[ky * OW + i];                                                                     \
                bool take = (u > v_out[i]) | (u != u);                                                    \
                v_out[i] = take ? u : v_out[i];                                                           \
                at_out[i] = take ? (int32_t)(ky * W) + c[ky * OW + i] : at_out[i];                        \
            }                                                                                             \
    }                                                                                                     \
    static void ct__max_pool2d_tiled_##T(int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW,    \
                                         const int64_t *k, const int64_t *stride, const T *x, int64_t *idx, \
                                         T *y)                                                            \
    {                                                                                                     \
        enum { block = CT__POOL_TILED_BLOCK, lanes = CT__POOL_LANES };                                    \
        T seg_v[block + lanes], best_v[block + lanes];                                                    \
        int32_t seg_c[block + lanes], best_at[block + lanes];                                             \
        /* the padding lanes read what earlier groups (or this) left: defined values */                   \
        memset(seg_v, 0, sizeof seg_v);                                                                   \
        memset(seg_c, 0, sizeof seg_c);                                                                   \
        const int64_t rows_max = block / OW, kw = k[1], sy = stride[0], out_rows = planes * OH;           \
        const int64_t n = (OW + lanes - 1) / lanes * lanes;                                               \
        /* output rows [q0, q1) at a time: as many as the input rows they read fit the block */           \
        for (int64_t q0 = 0, q1; q0 < out_rows; q0 = q1) {                                                \
            int64_t r0 = ct__pool_row_at(q0, OH, H, sy);                                                  \
            q1 = q0 + 1;                                                                                  \
            while (q1 < out_rows && ct__pool_row_at(q1, OH, H, sy) + k[0] - r0 <= rows_max) q1++;         \
            int64_t rows = ct__pool_row_at(q1 - 1, OH, H, sy) + k[0] - r0;                                \
            /* a constant 2 (the common window) lets the loads be shuffles, not gathers */                \
            if (kw == 2) ct__pool_run_max_##T(rows * OW, 2, x + r0 * W, seg_v, seg_c);                    \
            else ct__pool_run_max_##T(rows * OW, kw, x + r0 * W, seg_v, seg_c);                           \
            for (int64_t q = q0; q < q1; q++) {                                                           \
                int64_t r = ct__pool_row_at(q, OH, H, sy) - r0, corner = q % OH * sy * W;                 \
                ct__pool_down_max_##T(k[0], n, OW, W, seg_v + r * OW, seg_c + r * OW, best_v, best_at);   \
                /* all n lanes where the rows after q follow (they overwrite the excess) */              \
                int64_t len = (q * OW + n <= out_rows * OW) ? n : OW;                                     \
                for (int64_t i = 0; i < len; i++) {                                                       \
                    y[q * OW + i] = best_v[i];                                                            \
                    idx[q * OW + i] = corner + i * kw + best_at[i];                                       \
                }                                                                                         \
            }                                                                                             \
        }                                                                                                 \
    }
CT__MAX_POOL2D_TILED(float)
CT__MAX_POOL2D_TILED(double)

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
        int64_t *base = (int64_t *)CT_MALLOC(sizeof(int64_t) * (size_t)(VL * nq + nb * L));                   \
        T *buf = (T *)ct__conv_scratch(sizeof(T) * (size_t)(sideT_size + (padded ? N * wd.image : 0) +       \
                                                            lanes_size * threads));                           \
        if (!off || !base || !buf) {                                                                          \
            CT_FREE(off);                                                                                     \
            CT_FREE(base);                                                                                    \
            return CT__OOM();                                                                                 \
        }                                                                                                     \
        int64_t *row = base + VL * nq;                                                                        \
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

/* ---------------------------------------------------------------- the backend's entries */

/* F.unfold (im2col) or F.fold (col2im) of N images, one at a time. */
#define CT__FOLD_IMAGES(T)                                                                                    \
    static void ct__fold_images_##T(const ct__conv_job *j)                                                    \
    {                                                                                                         \
        const ct__window *g = j->g;                                                                           \
        int64_t K = g->k[1] * g->k[2], L = g->out[1] * g->out[2], image = g->in[1] * g->in[2], C = j->Cin;    \
        bool to_image = j->kind == CT__CONV_COL2IM;                                                           \
        int64_t in_per = to_image ? C * K * L : C * image, out_per = to_image ? C * image : C * K * L;         \
        for (int64_t n = 0; n < j->N; n++) {                                                                  \
            const T *src = (const T *)j->x + n * in_per;                                                      \
            T *dst = (T *)j->out + n * out_per;                                                               \
            if (to_image) ct__col2im_##T(g, C, src, dst);                                                     \
            else ct__im2col_##T(g, src, 0, 0, C * K, 0, L, dst, L);                                           \
        }                                                                                                     \
    }
CT__FOLD_IMAGES(float)
CT__FOLD_IMAGES(double)

#define CT__CPU_CONV(T)                                                                                       \
    static ct_result ct__cpu_conv_##T(const ct__conv_job *j)                                                  \
    {                                                                                                         \
        switch (j->kind) {                                                                                    \
        case CT__CONV_FORWARD:                                                                                \
            return ct__conv_forward_##T(j->conv, j->g, j->N, j->Cin, j->Cout, (const T *)j->x, (const T *)j->w, \
                                        (const T *)j->b, (T *)j->out);                                        \
        case CT__CONV_WEIGHT_GRAD:                                                                            \
            return ct__conv_weight_grad_##T(j->conv, j->g, j->N, j->Cin, j->Cout, (const T *)j->x,             \
                                            (const T *)j->w, (T *)j->out);                                    \
        case CT__CONV_BIAS_GRAD: ct__conv_bias_grad_##T(j->N, j->Cout, j->L, (const T *)j->x, (T *)j->out); break; \
        case CT__CONV_IM2COL:                                                                                 \
        case CT__CONV_COL2IM: ct__fold_images_##T(j); break;                                                  \
        }                                                                                                     \
        return CT_OK;                                                                                         \
    }
CT__CPU_CONV(float)
CT__CPU_CONV(double)

static ct_result ct__cpu_conv(const ct__conv_job *job)
{
    return job->dtype == CT_F32 ? ct__cpu_conv_float(job) : ct__cpu_conv_double(job);
}

/* Whether an inside max pool's windows tile the rows (kernel == stride in x, W == OW * stride), a
 * window's rows fit ct__max_pool2d_tiled's block and its places an int32. */
static bool ct__pool_tiles_rows(const ct__linmap_job *j)
{
    const int64_t *k = j->inside[0], *stride = j->inside[1];
    return k[1] == stride[1] && j->W == j->OW * k[1] && k[0] * j->OW <= CT__POOL_TILED_BLOCK &&
           k[0] * j->W <= INT32_MAX;
}

#define CT__CPU_LINMAP(T)                                                                                     \
    static void ct__cpu_linmap_##T(const ct__linmap_job *j)                                                   \
    {                                                                                                         \
        const ct__linmap *m = j->m;                                                                           \
        int64_t *idx = (int64_t *)j->out;                                                                     \
        switch (j->kind) {                                                                                    \
        case CT__LINMAP_APPLY: ct__linmap_apply_##T(m, (const T *)j->x, (T *)j->out, (T)j->fill); break;     \
        case CT__LINMAP_ADJOINT: ct__linmap_adjoint_##T(m, (const T *)j->x, (T *)j->out); break;             \
        case CT__LINMAP_ARGMAX:                                                                               \
            if (j->inside && ct__pool_tiles_rows(j))                                                          \
                ct__max_pool2d_tiled_##T(m->planes, j->H, j->W, j->OH, j->OW, j->inside[0], j->inside[1],     \
                                         (const T *)j->x, idx, (T *)j->values);                               \
            else if (j->inside)                                                                               \
                ct__max_pool2d_argmax_##T(m->planes, j->H, j->W, j->OH, j->OW, j->inside[0], j->inside[1],    \
                                          (const T *)j->x, idx, (T *)j->values);                              \
            else                                                                                              \
                ct__linmap_argmax_##T(m, (const T *)j->x, idx, (T *)j->values);                               \
            break;                                                                                            \
        }                                                                                                     \
    }
CT__CPU_LINMAP(float)
CT__CPU_LINMAP(double)

static void ct__cpu_linmap(const ct__linmap_job *job)
{
    if (job->dtype == CT_F32) ct__cpu_linmap_float(job);
    else ct__cpu_linmap_double(job);
}
