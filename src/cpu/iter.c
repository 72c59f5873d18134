/* The strided iterator (see iter.h). */

/* Operand i's stride in bytes along dim d (tensor order) of the iteration
 * shape; 0 where it is broadcast, as TensorIterator sets it. */
static int64_t ct__iter_stride(const ct_tensor *t, const int64_t *shape, int ndim, int d)
{
    int td = t->ndim - ndim + d; /* right-aligned */
    if (td < 0 || (t->sizes[td] == 1 && shape[d] != 1)) return 0;
    return t->strides[td] * (int64_t)ct__esize(t);
}

/* Whether dim a should iterate outside dim b (1), inside (-1) or either (0),
 * by PyTorch's rule: the first operand whose strides differ decides; equal
 * strides put the smaller size inside; broadcast dims decide nothing. */
static int ct__iter_should_swap(const ct_tensor *const *ops, int nops, const int64_t *shape, int ndim, int a, int b)
{
    for (int i = 0; i < nops; i++) {
        if (!ops[i]) continue;
        int64_t sa = ct__iter_stride(ops[i], shape, ndim, a), sb = ct__iter_stride(ops[i], shape, ndim, b);
        if (sa == 0 || sb == 0) continue;
        if (sa != sb) return sa > sb ? 1 : -1;
        if (shape[a] > shape[b]) return 1;
    }
    return 0;
}

static void ct__iter_perm(const ct_tensor *const *ops, int nops, const int64_t *shape, int ndim, int *perm)
{
    for (int i = 0; i < ndim; i++) perm[i] = ndim - 1 - i; /* innermost first */
    /* insertion sort that steps over ambiguous pairs instead of stopping at them */
    for (int i = 1; i < ndim; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int c = ct__iter_should_swap(ops, nops, shape, ndim, perm[d0], perm[d1]);
            if (c > 0) {
                int x = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = x;
                d1 = d0;
            } else if (c < 0) {
                break;
            }
        }
    }
}

static void ct__iter_init(ct__iter *it, int nops, const ct_tensor *const *ops)
{
    const ct_tensor *out = ops[0];
    int nd = out->ndim, perm[CT_MAX_DIMS];
    CT_ASSERT(nops <= CT__ITER_MAX_OPS);
    memset(it, 0, sizeof *it);
    it->nops = nops;
    it->numel = 1;
    ct__iter_perm(ops, nops, out->sizes, nd, perm);
    for (int k = 0; k < nd; k++) {
        it->shape[k] = out->sizes[perm[k]];
        it->numel *= it->shape[k];
        for (int i = 0; i < nops; i++) it->strides[k][i] = ct__iter_stride(ops[i], out->sizes, nd, perm[k]);
    }
    for (int i = 0; i < nops; i++) it->data[i] = ct__data(ops[i]);
    /* merge dims that are one block of memory for every operand */
    int n = 0;
    for (int d = 0; d < nd; d++) {
        if (it->shape[d] == 1) continue; /* size-1 dims vanish */
        if (n > 0) {
            bool merge = true;
            for (int i = 0; i < nops && merge; i++)
                merge = it->strides[d][i] == it->strides[n - 1][i] * it->shape[n - 1];
            if (merge) {
                it->shape[n - 1] *= it->shape[d];
                continue;
            }
        }
        it->shape[n] = it->shape[d];
        memcpy(it->strides[n], it->strides[d], sizeof it->strides[d]);
        n++;
    }
    if (n == 0) { /* a single element */
        it->shape[0] = 1;
        memset(it->strides[0], 0, sizeof it->strides[0]);
        n = 1;
    }
    it->ndim = n;
}

/* Whether t has exactly `sizes` (ndim of them) and is laid out contiguously. */
static bool ct__same_sizes_contiguous(const ct_tensor *t, const int64_t *sizes, int ndim)
{
    return t->ndim == ndim && ct__dims_equal(t->sizes, sizes, ndim) && ct__is_contiguous(t);
}

/* An alike operand's stride in its one loop: 0 for a 0-d one (a number, or
 * a 0-d result: one element either way). */
static int64_t ct__alike_stride(const ct_tensor *t) { return t->ndim ? (int64_t)ct__esize(t) : 0; }

static void ct__iter_init_alike(ct__iter *it, int nops, const ct_tensor *const *ops)
{
    CT_ASSERT(nops <= CT__ITER_MAX_OPS);
    for (int i = 0; i < nops; i++) {
        it->strides[0][i] = ct__alike_stride(ops[i]);
        it->data[i] = ct__data(ops[i]);
    }
    it->nops = nops;
    it->ndim = 1;
    it->numel = it->shape[0] = ct_numel(ops[0]);
}

static void ct__iter_run_alike(int nops, const ct_tensor *const *ops, ct__loop_fn fn, void *ctx)
{
    int64_t numel = ct_numel(ops[0]);
    if (numel > CT__GRAIN) {
        ct__iter it;
        ct__iter_init_alike(&it, nops, ops);
        ct__iter_parallel(&it, fn, ctx);
        return;
    }
    char *data[CT__ITER_MAX_OPS];
    int64_t strides[CT__ITER_MAX_OPS];
    for (int i = 0; i < nops; i++) {
        data[i] = ct__data(ops[i]);
        strides[i] = ct__alike_stride(ops[i]);
    }
    if (numel > 0) fn(data, strides, numel, ctx);
}

static bool ct__iter_init_flat(ct__iter *it, int nops, const ct_tensor *const *ops)
{
    const ct_tensor *out = ops[0];
    if (!ct__is_contiguous(out)) return false;
    ct__iter_init_alike(it, nops, ops);
    for (int i = 1; i < nops; i++) {
        if (ct__same_sizes_contiguous(ops[i], out->sizes, out->ndim)) continue;
        if (ct_numel(ops[i]) != 1) return false;
        it->strides[0][i] = 0; /* one element, broadcast */
    }
    return true;
}

static void ct__dense_strides_for(const ct_tensor *const *inputs, int ninputs, const int64_t *shape, int ndim,
                                  int64_t *strides)
{
    int perm[CT_MAX_DIMS];
    int64_t s = 1;
    ct__iter_perm(inputs, ninputs, shape, ndim, perm);
    for (int k = 0; k < ndim; k++) {
        strides[perm[k]] = s;
        s *= shape[perm[k]] > 1 ? shape[perm[k]] : 1;
    }
}

static void ct__iter_range(const ct__iter *it, int64_t begin, int64_t end, ct__loop_fn fn, void *ctx)
{
    if (begin >= end) return;
    int64_t idx[CT_MAX_DIMS], rem = begin;
    char *ptr[CT__ITER_MAX_OPS];
    for (int d = 0; d < it->ndim; d++) {
        idx[d] = rem % it->shape[d];
        rem /= it->shape[d];
    }
    for (int i = 0; i < it->nops; i++) {
        ptr[i] = it->data[i];
        for (int d = 0; d < it->ndim; d++) ptr[i] += idx[d] * it->strides[d][i];
    }
    for (int64_t pos = begin; pos < end;) {
        int64_t n = CT__MIN(it->shape[0] - idx[0], end - pos);
        fn(ptr, it->strides[0], n, ctx);
        pos += n;
        idx[0] += n;
        for (int i = 0; i < it->nops; i++) ptr[i] += n * it->strides[0][i];
        /* carry into the outer dims when a dim wraps around */
        for (int d = 0; d < it->ndim - 1 && idx[d] == it->shape[d]; d++) {
            idx[d] = 0;
            idx[d + 1]++;
            for (int i = 0; i < it->nops; i++)
                ptr[i] += it->strides[d + 1][i] - it->shape[d] * it->strides[d][i];
        }
    }
}

static void ct__iter_serial(const ct__iter *it, ct__loop_fn fn, void *ctx)
{
    ct__iter_range(it, 0, it->numel, fn, ctx);
}

typedef struct ct__iter_job {
    const ct__iter *it;
    ct__loop_fn fn;
    void *ctx;
} ct__iter_job;

static void ct__iter_job_run(int64_t begin, int64_t end, void *ctx)
{
    ct__iter_job *job = (ct__iter_job *)ctx;
    ct__iter_range(job->it, begin, end, job->fn, job->ctx);
}

/* Tiles of a 2-D iteration with a transposed input (ct__iter_tile_rows):
 * rows of the outer dim by columns of the inner one. */
#define CT__TILE_ROWS 16
#define CT__TILE_COLS 256

/* Whether an input reads the inner dim a cache line or more apart per
 * element while its outer dim is the closer one: a transposed operand,
 * which a row by row walk reads one line per element. */
static bool ct__iter_has_transposed(const ct__iter *it)
{
    if (it->ndim != 2 || it->shape[0] < CT__TILE_COLS || it->shape[1] < CT__TILE_ROWS) return false;
    for (int i = 1; i < it->nops; i++) {
        int64_t inner = it->strides[0][i] < 0 ? -it->strides[0][i] : it->strides[0][i];
        int64_t outer = it->strides[1][i] < 0 ? -it->strides[1][i] : it->strides[1][i];
        if (inner >= 64 && outer != 0 && outer < inner) return true;
    }
    return false;
}

/* Row blocks [b, e) of a 2-D iteration, each walked tile by tile: the
 * lines a tile reads of a transposed input stay in cache while its rows
 * use them, and each call runs one row of a tile. */
static void ct__iter_tile_rows(int64_t b, int64_t e, void *ctx)
{
    const ct__iter_job *job = (const ct__iter_job *)ctx;
    const ct__iter *it = job->it;
    for (int64_t r0 = b * CT__TILE_ROWS; r0 < CT__MIN(e * CT__TILE_ROWS, it->shape[1]); r0 += CT__TILE_ROWS) {
        int64_t r1 = CT__MIN(it->shape[1], r0 + CT__TILE_ROWS);
        for (int64_t c0 = 0; c0 < it->shape[0]; c0 += CT__TILE_COLS) {
            int64_t n = CT__MIN(CT__TILE_COLS, it->shape[0] - c0);
            for (int64_t r = r0; r < r1; r++) {
                char *ptr[CT__ITER_MAX_OPS];
                for (int i = 0; i < it->nops; i++) ptr[i] = it->data[i] + r * it->strides[1][i] + c0 * it->strides[0][i];
                job->fn(ptr, it->strides[0], n, job->ctx);
            }
        }
    }
}

/* Blocks [b, e) of 64 elements of a 1-D iteration: every thread's loop but
 * the last then runs whole blocks of the pointwise vector math (CT__VM_BLOCK:
 * 64 bytes, at most 32 elements), so that which elements take the C
 * library's functions, and so the bits, do not depend on the number of
 * threads. */
#define CT__ITER_BLOCK 64
static void ct__iter_job_run_blocks(int64_t b, int64_t e, void *ctx)
{
    ct__iter_job *job = (ct__iter_job *)ctx;
    ct__iter_range(job->it, b * CT__ITER_BLOCK, CT__MIN(e * CT__ITER_BLOCK, job->it->numel), job->fn, job->ctx);
}

static void ct__iter_parallel(const ct__iter *it, ct__loop_fn fn, void *ctx)
{
    if (it->ndim == 1 && it->numel <= CT__GRAIN) { /* one loop on this thread: no job, no index arithmetic */
        char *data[CT__ITER_MAX_OPS];
        for (int i = 0; i < it->nops; i++) {
            CT__OPAQUE(i); /* a few: a loop, not a call of memcpy */
            data[i] = it->data[i];
        }
        if (it->numel > 0) fn(data, it->strides[0], it->numel, ctx); /* (none: a kernel may read a first element) */
        return;
    }
    ct__iter_job job = {it, fn, ctx};
    if (ct__iter_has_transposed(it)) {
        int64_t blocks = (it->shape[1] + CT__TILE_ROWS - 1) / CT__TILE_ROWS;
        ct__parallel_for(blocks, CT__MAX(1, CT__GRAIN / (CT__TILE_ROWS * it->shape[0])), ct__iter_tile_rows, &job);
        return;
    }
    if (it->ndim == 1) {
        ct__parallel_for((it->numel + CT__ITER_BLOCK - 1) / CT__ITER_BLOCK, CT__GRAIN / CT__ITER_BLOCK,
                         ct__iter_job_run_blocks, &job);
        return;
    }
    ct__parallel_for(it->numel, CT__GRAIN, ct__iter_job_run, &job);
}

ct_result ct_set_num_threads(int n)
{
    if (n < 1) return ct__fail(CT_ERR_RUNTIME, "set_num_threads expects a positive integer");
#ifdef _OPENMP
    omp_set_num_threads(n);
#endif
    return CT_OK;
}

int ct_get_num_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static void ct__parallel_for(int64_t n, int64_t grain, ct__range_fn fn, void *ctx)
{
#ifdef _OPENMP
    if (n > grain && !omp_in_parallel() && omp_get_max_threads() > 1) {
        int64_t nchunks = CT__MIN((int64_t)omp_get_max_threads(), (n + grain - 1) / grain);
#pragma omp parallel num_threads((int)nchunks)
        {
            int64_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
            int64_t chunk = (n + nt - 1) / nt, b = tid * chunk, e = CT__MIN(n, b + chunk);
            if (b < e) fn(b, e, ctx);
        }
        return;
    }
#else
    (void)grain;
#endif
    if (n > 0) fn(0, n, ctx);
}

/* ---------------------------------------------------------------- widened dtypes */

#define CT__WIDENED(X) X(u8) X(i8) X(i16) X(i32) X(f16) X(bf16)

static void ct__load_widened(ct_dtype dt, const char *p, int64_t s, int64_t n, void *w)
{
    switch (dt) {
#define CT__WIDEN(dt)                                                                            \
    case CT__DT_##dt:                                                                            \
        for (int64_t k = 0; k < n; k++) ((CT__KFT(dt) *)w)[k] = CT__KL_##dt(*(const CT__KT_##dt *)(p + k * s)); \
        break;
        CT__WIDENED(CT__WIDEN)
#undef CT__WIDEN
    default: break;
    }
}

static void ct__store_narrowed(ct_dtype dt, const void *w, char *p, int64_t s, int64_t n)
{
    switch (dt) {
#define CT__NARROW(dt)                                                                           \
    case CT__DT_##dt:                                                                            \
        for (int64_t k = 0; k < n; k++) *(CT__KT_##dt *)(p + k * s) = CT__KS_##dt(((const CT__KFT(dt) *)w)[k]); \
        break;
        CT__WIDENED(CT__NARROW)
#undef CT__NARROW
    default: break;
    }
}
#undef CT__WIDENED
