/* The join family's CPU kernels (ct__index_job, src/ops/join_ops.h): gather
 * and scatter along a dim, masks, index statistics, repeat_interleave's index.
 *
 * Gather and scatter run as PyTorch's cpu_scatter_gather_base_kernel does:
 * the iterator walks every position of index with dim squashed, and the dim
 * is a loop of its own. Positions of one walk write disjoint elements, so
 * they split across threads; along dim, elements are visited in index order,
 * which is what makes duplicates resolve as in PyTorch (the last write wins,
 * sums accumulate in order). */

/* ---------------------------------------------------------------- walks */

/* Loops that only move elements come in four sizes: 1, 2, 4 and 8 bytes. */
static int ct__size_class(size_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3; }

/* An iterator over ops (all of ops[0]'s rank and sizes) in row-major order,
 * dims neither reordered nor merged: for kernels whose output depends on the
 * order of visits (masked_select, the first bad index). */
static void ct__iter_rowmajor(ct__iter *it, int nops, const ct_tensor *const *ops)
{
    const ct_tensor *t = ops[0];
    memset(it, 0, sizeof *it);
    it->nops = nops;
    it->ndim = t->ndim ? t->ndim : 1;
    it->shape[0] = 1;
    it->numel = 1;
    for (int k = 0; k < t->ndim; k++) {
        int d = t->ndim - 1 - k;
        it->shape[k] = t->sizes[d];
        it->numel *= t->sizes[d];
        for (int i = 0; i < nops; i++) it->strides[k][i] = ops[i]->strides[d] * (int64_t)ct__esize(ops[i]);
    }
    for (int i = 0; i < nops; i++) it->data[i] = ct__data(ops[i]);
}

/* ---------------------------------------------------------------- index statistics */

/* min, max, sum and nonzero count; the chunk that holds the first value
 * outside [lo, hi) is read again to find it (the walk is row-major) */
#define CT__STATS_LOOP(T)                                                                        \
    static void ct__stats_##T(char **d, const int64_t *s, int64_t n, void *ctx)                  \
    {                                                                                            \
        ct__index_job *job = (ct__index_job *)ctx;                                               \
        int64_t lo = job->min, hi = job->max, nz = 0;                                            \
        uint64_t sum = (uint64_t)job->sum;                                                       \
        for (int64_t k = 0; k < n; k++) {                                                        \
            int64_t v = (int64_t) * (const T *)(d[0] + k * s[0]);                                \
            lo = v < lo ? v : lo;                                                                \
            hi = v > hi ? v : hi;                                                                \
            nz += v != 0;                                                                        \
            sum += (uint64_t)v;                                                                  \
        }                                                                                        \
        for (int64_t k = 0; !job->out_of_range && (lo < job->lo || hi >= job->hi) && k < n; k++) { \
            int64_t v = (int64_t) * (const T *)(d[0] + k * s[0]);                                \
            if (v < job->lo || v >= job->hi) job->out_of_range = true, job->first_bad = v;        \
        }                                                                                        \
        job->min = lo, job->max = hi, job->nonzero += nz, job->sum = (int64_t)sum;               \
    }
CT__STATS_LOOP(int64_t)
CT__STATS_LOOP(int32_t)
CT__STATS_LOOP(uint8_t)
#undef CT__STATS_LOOP

static void ct__cpu_index_stats(ct__index_job *job)
{
    const ct_tensor *ops[1] = {job->index};
    ct__iter it;
    ct__loop_fn fn = job->index->dtype == CT_I64 ? ct__stats_int64_t
                     : job->index->dtype == CT_I32 ? ct__stats_int32_t
                                                   : ct__stats_uint8_t;
    job->min = INT64_MAX;
    job->max = INT64_MIN;
    ct__iter_rowmajor(&it, 1, ops);
    ct__iter_serial(&it, fn, job);
}

/* ---------------------------------------------------------------- gather and scatter */

/* The walk's geometry. Gather reads src at index values and writes dst along
 * dim; scatter writes dst at index values and reads src along dim. */
typedef struct ct__gs_geom {
    int64_t k;                  /* index.size(dim) */
    int64_t lo, size;           /* indices lie in [lo, size); negative ones add size */
    int64_t dst_step, src_step; /* bytes per step along dim */
    int64_t idx_i;              /* index's bytes per step along dim */
    const void *alpha;
    int bad; /* counts walks that met an index out of range (and stopped) */
} ct__gs_geom;

/* One element of each combination: o is the written element, v the read
 * one, n names the dtype (the storage type for plain copies). */
#define CT__SET(T, o, v, al) (*(T *)(o) = *(const T *)(v))
#define CT__LOAD(n, p) ct__load_##n(*(const ct__##n##_t *)(p))
/* Integers and bool in int64 with wrapping, stored with c10's conversions
 * (bool: a + alpha * b != 0 is `a || (alpha && b)`, as bool arithmetic gives). */
#define CT__ADD_INT(n, o, v, al)                                                                \
    (*(ct__##n##_t *)(o) = ct__to_##n##_from_i64(                                                \
         (int64_t)((uint64_t)CT__LOAD(n, o) + (uint64_t)CT__LOAD(n, al) * (uint64_t)CT__LOAD(n, v))))
#define CT__MUL_INT(n, o, v, al) \
    (*(ct__##n##_t *)(o) = ct__to_##n##_from_i64((int64_t)((uint64_t)CT__LOAD(n, o) * (uint64_t)CT__LOAD(n, v))))
/* float16 and bfloat16 as c10::Half arithmetic: each operation rounds. */
#define CT__ROUND_H(n, x) ct__load_##n(ct__to_##n##_from_f64(x))
#define CT__ADD_HALF(n, o, v, al)                                                                   \
    (*(ct__##n##_t *)(o) = ct__to_##n##_from_f64(                                                \
         (float)CT__LOAD(n, o) + (float)CT__ROUND_H(n, (float)CT__LOAD(n, al) * (float)CT__LOAD(n, v))))
#define CT__MUL_HALF(n, o, v, al) \
    (*(ct__##n##_t *)(o) = ct__to_##n##_from_f64((float)CT__LOAD(n, o) * (float)CT__LOAD(n, v)))
/* float and double: a + alpha * b rounded twice (the product through a
 * volatile, so that no compiler fuses it), or once (fma) where PyTorch's
 * vectorised add fuses it; with alpha 1 both are a + b. */
#define CT__ADD_FLOAT(n, o, v, al)                                                                   \
    do {                                                                                         \
        volatile ct__##n##_t p_ = *(const ct__##n##_t *)(al) * *(const ct__##n##_t *)(v);        \
        *(ct__##n##_t *)(o) += p_;                                                               \
    } while (0)
#define CT__ADD1_F(n, o, v, al) (*(ct__##n##_t *)(o) += *(const ct__##n##_t *)(v))
#define CT__MUL_FLOAT(n, o, v, al) (*(ct__##n##_t *)(o) *= *(const ct__##n##_t *)(v))
#define CT__FMA_F(n, o, v, al) \
    (*(ct__##n##_t *)(o) = CT__FMA_##n(*(const ct__##n##_t *)(al), *(const ct__##n##_t *)(v), *(ct__##n##_t *)(o)))
#define CT__FMA_f32 fmaf
#define CT__FMA_f64 fma
/* Which of those each dtype takes. */
#define CT__ARITH_b8 INT
#define CT__ARITH_u8 INT
#define CT__ARITH_i8 INT
#define CT__ARITH_i16 INT
#define CT__ARITH_i32 INT
#define CT__ARITH_i64 INT
#define CT__ARITH_f16 HALF
#define CT__ARITH_bf16 HALF
#define CT__ARITH_f32 FLOAT
#define CT__ARITH_f64 FLOAT

/* Read index value x at p; leave the walk on one out of range (one unsigned
 * compare for [lo, size)). */
#define CT__GS_INDEX(x, p)                                                                       \
    int64_t x = *(const int64_t *)(p);                                                           \
    if (CT__UNLIKELY((uint64_t)x - (uint64_t)g.lo >= (uint64_t)g.size - (uint64_t)g.lo)) {       \
        CT__ATOMIC_INC(&((ct__gs_geom *)ctx)->bad);                                              \
        return;                                                                                  \
    }                                                                                            \
    x += x < 0 ? g.size : 0

/* The offsets of step i along dim with index value x in the written element
 * (o) and the read one (v), for strides so and sv: G is 1 for gather, 0 for
 * scatter. */
#define CT__GS_O(G, i, x, so) (((G) ? (i) : (x)) * (so))
#define CT__GS_V(G, i, x, sv) (((G) ? (x) : (i)) * (sv))

/* The walk: for each of n positions and each of k steps along dim, combine
 * the elements index[j, i] points at: COMBINE(N, o, v, alpha) on elements
 * of type T. The loops nest as memory does: steps along dim inside when they
 * are closer together than positions, or when there is one position (take),
 * with element-sized steps as constants so that the common case is a plain
 * indexed loop; positions inside otherwise, where an index shared by all
 * positions (an expanded one, as index_select's) is read once per step. */
#define CT__GS_LOOP(name, T, N, COMBINE, G)                                                       \
    static void ct__gs_##name(char **d, const int64_t *s, int64_t n, void *ctx)                  \
    {                                                                                            \
        const ct__gs_geom g = *(const ct__gs_geom *)ctx;                                         \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        if (n == 1 || llabs(g.dst_step) < llabs(s[0])) {                                         \
            bool unit = g.dst_step == es && g.src_step == es && g.idx_i == (int64_t)sizeof(int64_t); \
            for (int64_t j = 0; j < n; j++) {                                                    \
                char *o = d[0] + j * s[0];                                                       \
                const char *v = d[1] + j * s[1], *ix = d[2] + j * s[2];                           \
                if (unit) {                                                                      \
                    for (int64_t i = 0; i < g.k; i++) {                                          \
                        CT__GS_INDEX(x, ix + i * (int64_t)sizeof(int64_t));                      \
                        COMBINE(N, o + CT__GS_O(G, i, x, es), v + CT__GS_V(G, i, x, es), g.alpha); \
                    }                                                                            \
                    continue;                                                                    \
                }                                                                                \
                for (int64_t i = 0; i < g.k; i++) {                                              \
                    CT__GS_INDEX(x, ix + i * g.idx_i);                                           \
                    COMBINE(N, o + CT__GS_O(G, i, x, g.dst_step), v + CT__GS_V(G, i, x, g.src_step), g.alpha); \
                }                                                                                \
            }                                                                                    \
            return;                                                                              \
        }                                                                                        \
        for (int64_t i = 0; i < g.k; i++) {                                                      \
            char *o = d[0] + CT__GS_O(G, i, 0, g.dst_step);                                      \
            const char *v = d[1] + CT__GS_V(G, i, 0, g.src_step), *ix = d[2] + i * g.idx_i;       \
            if (s[2] == 0) {                                                                     \
                CT__GS_INDEX(x, ix);                                                             \
                o += CT__GS_O(G, 0, x, g.dst_step);                                              \
                v += CT__GS_V(G, 0, x, g.src_step);                                              \
                for (int64_t j = 0; j < n; j++) COMBINE(N, o + j * s[0], v + j * s[1], g.alpha);  \
                continue;                                                                        \
            }                                                                                    \
            for (int64_t j = 0; j < n; j++) {                                                    \
                CT__GS_INDEX(x, ix + j * s[2]);                                                  \
                COMBINE(N, o + j * s[0] + CT__GS_O(G, 0, x, g.dst_step), v + j * s[1] + CT__GS_V(G, 0, x, g.src_step), \
                        g.alpha);                                                                \
            }                                                                                    \
        }                                                                                        \
    }

/* Plain copies (gather, and scatter that replaces) by element size, with
 * whole blocks as one memcpy when one index serves every position and both
 * operands are contiguous along the walk. */
#define CT__GS_SET_LOOP(name, T, G)                                                              \
    CT__GS_LOOP(name##_any, T, T, CT__SET, G)                                                    \
    static void ct__gs_##name(char **d, const int64_t *s, int64_t n, void *ctx)                  \
    {                                                                                            \
        const ct__gs_geom g = *(const ct__gs_geom *)ctx;                                         \
        if (s[2] != 0 || s[0] != (int64_t)sizeof(T) || s[1] != (int64_t)sizeof(T)) {             \
            ct__gs_##name##_any(d, s, n, ctx);                                                   \
            return;                                                                              \
        }                                                                                        \
        for (int64_t i = 0; i < g.k; i++) {                                                      \
            CT__GS_INDEX(x, d[2] + i * g.idx_i);                                                 \
            memcpy(d[0] + CT__GS_O(G, i, x, g.dst_step), d[1] + CT__GS_V(G, i, x, g.src_step),   \
                   (size_t)n * sizeof(T));                                                       \
        }                                                                                        \
    }
#define CT__GS_SET_LOOPS(T) CT__GS_SET_LOOP(gather_##T, T, 1) CT__GS_SET_LOOP(scatter_##T, T, 0)
CT__GS_SET_LOOPS(uint8_t)
CT__GS_SET_LOOPS(uint16_t)
CT__GS_SET_LOOPS(uint32_t)
CT__GS_SET_LOOPS(uint64_t)
#undef CT__GS_SET_LOOPS

/* scatter's add and mul for every dtype, and the fused adds */
#define CT__GS_ARITH(n, DT, _)                                                                   \
    CT__GS_LOOP(add_##n, ct__##n##_t, n, CT__CAT(CT__ADD_, CT__ARITH_##n), 0)                    \
    CT__GS_LOOP(mul_##n, ct__##n##_t, n, CT__CAT(CT__MUL_, CT__ARITH_##n), 0)
CT__DTYPES_A(CT__GS_ARITH, _)
CT__GS_LOOP(fma_f32, float, f32, CT__FMA_F, 0)
CT__GS_LOOP(fma_f64, double, f64, CT__FMA_F, 0)
CT__GS_LOOP(add1_f32, float, f32, CT__ADD1_F, 0)
CT__GS_LOOP(add1_f64, double, f64, CT__ADD1_F, 0)
#undef CT__GS_ARITH

/* The loop for a job: plain copies by element size, arithmetic by dtype. */
static ct__loop_fn ct__gs_loop(const ct__index_job *job)
{
    static const ct__loop_fn gather[4] = {ct__gs_gather_uint8_t, ct__gs_gather_uint16_t, ct__gs_gather_uint32_t,
                                          ct__gs_gather_uint64_t};
    static const ct__loop_fn scatter[4] = {ct__gs_scatter_uint8_t, ct__gs_scatter_uint16_t, ct__gs_scatter_uint32_t,
                                           ct__gs_scatter_uint64_t};
    ct_dtype dt = job->dst->dtype;
    if (job->kind == CT__INDEX_GATHER) return gather[ct__size_class(ct_dtype_size(dt))];
    if (job->kind == CT__INDEX_SCATTER) return scatter[ct__size_class(ct_dtype_size(dt))];
    if (job->kind == CT__INDEX_SCATTER_ADD && dt == CT_F32) {
        float alpha = *(const float *)job->alpha;
        return alpha == 1 ? ct__gs_add1_f32 : job->fused ? ct__gs_fma_f32 : ct__gs_add_f32;
    }
    if (job->kind == CT__INDEX_SCATTER_ADD && dt == CT_F64) {
        double alpha = *(const double *)job->alpha;
        return alpha == 1 ? ct__gs_add1_f64 : job->fused ? ct__gs_fma_f64 : ct__gs_add_f64;
    }
    switch (dt) {
#define CT__GS_CASE(n, DT, _) \
    case DT: return job->kind == CT__INDEX_SCATTER_ADD ? ct__gs_add_##n : ct__gs_mul_##n;
        CT__DTYPES_A(CT__GS_CASE, _)
#undef CT__GS_CASE
    default: return NULL;
    }
}

static void ct__cpu_gather_scatter(ct__index_job *job)
{
    const ct_tensor *ix = job->index, *indexed = job->kind == CT__INDEX_GATHER ? job->src : job->dst;
    int d = job->dim, nd = ix->ndim;
    int64_t sizes[CT_MAX_DIMS], es = (int64_t)ct__esize(job->dst);
    ct__gs_geom g;
    g.k = ix->sizes[d];
    g.size = indexed->sizes[d];
    g.lo = job->negatives ? -g.size : 0;
    g.dst_step = job->dst->strides[d] * es;
    g.src_step = job->src->strides[d] * es;
    g.idx_i = ix->strides[d] * (int64_t)sizeof(int64_t);
    g.alpha = job->alpha;
    g.bad = 0;
    /* the walk: every operand over index's positions, dim squashed to size 1 */
    memcpy(sizes, ix->sizes, (size_t)nd * sizeof(int64_t));
    sizes[d] = 1;
    ct_tensor v[3];
    const ct_tensor *base[3] = {job->dst, job->src, ix}, *ops[3] = {&v[0], &v[1], &v[2]};
    for (int i = 0; i < 3; i++) ct__ix_subview(&v[i], base[i], base[i]->offset, sizes, base[i]->strides, nd);
    ct__iter it;
    ct__iter_init(&it, 3, ops);
    ct__iter_job run = {&it, ct__gs_loop(job), &g};
    if (job->serial) ct__iter_serial(&it, run.fn, &g);
    else ct__parallel_for(it.numel, CT__MAX(CT__GRAIN / CT__MAX(g.k, 1), 1), ct__iter_job_run, &run);
    job->out_of_range = g.bad != 0;
}

/* ---------------------------------------------------------------- masks */

/* dst[k] = value where mask[k] (the mask is 0 or 1 bytes) */
#define CT__MASKED_FILL_LOOP(T)                                                                  \
    static void ct__masked_fill_##T(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        T v;                                                                                     \
        memcpy(&v, ctx, sizeof v);                                                               \
        for (int64_t k = 0; k < n; k++)                                                          \
            if (*(const uint8_t *)(d[1] + k * s[1])) *(T *)(d[0] + k * s[0]) = v;                 \
    }
/* out[c++] = src[k] where mask[k], in the order of the walk; ctx holds the
 * output cursor (a char *) */
#define CT__MASKED_SELECT_LOOP(T)                                                                \
    static void ct__masked_select_##T(char **d, const int64_t *s, int64_t n, void *ctx)          \
    {                                                                                            \
        T *out = (T *)*(char **)ctx;                                                             \
        for (int64_t k = 0; k < n; k++)                                                          \
            if (*(const uint8_t *)(d[1] + k * s[1])) *out++ = *(const T *)(d[0] + k * s[0]);     \
        *(char **)ctx = (char *)out;                                                             \
    }
CT__MASKED_FILL_LOOP(uint8_t)
CT__MASKED_FILL_LOOP(uint16_t)
CT__MASKED_FILL_LOOP(uint32_t)
CT__MASKED_FILL_LOOP(uint64_t)
CT__MASKED_SELECT_LOOP(uint8_t)
CT__MASKED_SELECT_LOOP(uint16_t)
CT__MASKED_SELECT_LOOP(uint32_t)
CT__MASKED_SELECT_LOOP(uint64_t)
#undef CT__MASKED_FILL_LOOP
#undef CT__MASKED_SELECT_LOOP

static void ct__cpu_masked_fill(const ct__index_job *job)
{
    static const ct__loop_fn fill[4] = {ct__masked_fill_uint8_t, ct__masked_fill_uint16_t, ct__masked_fill_uint32_t,
                                        ct__masked_fill_uint64_t};
    const ct_tensor *ops[2] = {job->dst, job->index};
    ct__loop_fn fn = fill[ct__size_class(ct__esize(job->dst))];
    ct__iter it;
    ct__iter_init(&it, 2, ops);
    if (job->serial) ct__iter_serial(&it, fn, ct__data(job->src));
    else ct__iter_parallel(&it, fn, ct__data(job->src));
}

static void ct__cpu_masked_select(const ct__index_job *job)
{
    static const ct__loop_fn select[4] = {ct__masked_select_uint8_t, ct__masked_select_uint16_t,
                                          ct__masked_select_uint32_t, ct__masked_select_uint64_t};
    const ct_tensor *ops[2] = {job->src, job->index};
    char *out = ct__data(job->dst);
    ct__iter it;
    ct__iter_rowmajor(&it, 2, ops);
    ct__iter_serial(&it, select[ct__size_class(ct__esize(job->dst))], &out);
}

/* ---------------------------------------------------------------- repeat_interleave's index */

#define CT__REPEATS_LOOP(T)                                                                      \
    static void ct__repeats_##T(T *out, const char *rep, int64_t stride, int64_t n)              \
    {                                                                                            \
        for (int64_t i = 0; i < n; i++)                                                          \
            for (T r = *(const T *)(rep + i * stride); r > 0; r--) *out++ = (T)i;                \
    }
CT__REPEATS_LOOP(int64_t)
CT__REPEATS_LOOP(int32_t)
#undef CT__REPEATS_LOOP

static void ct__cpu_repeats(const ct__index_job *job)
{
    const ct_tensor *rep = job->src;
    int64_t stride = rep->strides[0] * (int64_t)ct__esize(rep);
    if (rep->dtype == CT_I64) ct__repeats_int64_t((int64_t *)ct__data(job->dst), ct__data(rep), stride, rep->sizes[0]);
    else ct__repeats_int32_t((int32_t *)ct__data(job->dst), ct__data(rep), stride, rep->sizes[0]);
}

static void ct__cpu_index(ct__index_job *job)
{
    switch (job->kind) {
    case CT__INDEX_STATS: ct__cpu_index_stats(job); break;
    case CT__INDEX_MASKED_FILL: ct__cpu_masked_fill(job); break;
    case CT__INDEX_MASKED_SELECT: ct__cpu_masked_select(job); break;
    case CT__INDEX_REPEATS: ct__cpu_repeats(job); break;
    default: ct__cpu_gather_scatter(job); break;
    }
}
