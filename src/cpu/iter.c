/* The strided iterator (see iter.h). */

static void ct__iter_init(ct__iter *it, int nops, const ct_tensor *const *ops)
{
    const ct_tensor *out = ops[0];
    int nd = out->ndim;
    CT_ASSERT(nops <= CT__ITER_MAX_OPS);
    memset(it, 0, sizeof *it);
    it->nops = nops;
    it->numel = 1;
    /* dims reversed so that [0] is the last (innermost) dim of the tensors */
    for (int d = 0; d < nd; d++) {
        it->shape[d] = out->sizes[nd - 1 - d];
        it->numel *= it->shape[d];
    }
    for (int i = 0; i < nops; i++) {
        const ct_tensor *t = ops[i];
        size_t es = ct__esize(t);
        it->data[i] = ct__data(t);
        for (int d = 0; d < nd; d++) {
            int td = t->ndim - 1 - d; /* the operand's dim, right-aligned */
            bool broadcast = td < 0 || (t->sizes[td] == 1 && it->shape[d] != 1);
            it->strides[d][i] = broadcast ? 0 : t->strides[td] * (int64_t)es;
        }
    }
    /* order dims by the output's strides, innermost smallest (insertion sort) */
    for (int a = 1; a < nd; a++) {
        for (int b = a; b > 0; b--) {
            bool swap = false;
            for (int i = 0; i < nops; i++) {
                int64_t inner = it->strides[b - 1][i], outer = it->strides[b][i];
                if (inner == 0 || outer == 0) continue; /* broadcast dims decide nothing */
                if (inner < 0) inner = -inner;
                if (outer < 0) outer = -outer;
                if (inner != outer) {
                    swap = outer < inner;
                    break;
                }
            }
            if (!swap) break;
            int64_t s = it->shape[b];
            it->shape[b] = it->shape[b - 1];
            it->shape[b - 1] = s;
            for (int i = 0; i < nops; i++) {
                int64_t x = it->strides[b][i];
                it->strides[b][i] = it->strides[b - 1][i];
                it->strides[b - 1][i] = x;
            }
        }
    }
    /* merge dims that are one block of memory for every operand */
    int n = 0;
    for (int d = 0; d < nd; d++) {
        if (it->shape[d] == 1 && nd > 1) continue; /* size-1 dims vanish */
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

static void ct__iter_parallel(const ct__iter *it, ct__loop_fn fn, void *ctx)
{
    ct__iter_job job = {it, fn, ctx};
    ct__parallel_for(it->numel, CT__GRAIN, ct__iter_job_run, &job);
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
