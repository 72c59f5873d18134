/* Element-wise kernels: fill, copies, and the pointwise ops generated from
 * the shared formulas (src/ops/formulas.h), as the CPU's loops are. Each
 * kernel strides over its n elements from a capped grid. */

/* ---------------------------------------------------------------- layouts */

/* Where a kernel finds element k of its output (operand 0) and of up to
 * three inputs (1 to 3). ndim 0: dense, element k at k * step[j] (step 0:
 * one element for all, a 0-d or broadcast input). Otherwise the output's
 * sizes and every operand's strides in elements (0 along a broadcast dim),
 * adjacent dims merged where every stride allows. */
typedef struct cu_layout {
    int ndim;
    int64_t step[4];
    int64_t sizes[CT_MAX_DIMS];
    int64_t strides[4][CT_MAX_DIMS];
} cu_layout;

/* off[j]: element k's offset in operand j. */
__device__ inline void cu_offsets(const cu_layout &l, int64_t k, int64_t *off)
{
    for (int j = 0; j < 4; j++) off[j] = l.ndim ? 0 : k * l.step[j];
    for (int d = l.ndim - 1; d >= 0; d--) {
        int64_t i = k % l.sizes[d];
        k /= l.sizes[d];
        for (int j = 0; j < 4; j++) off[j] += i * l.strides[j][d];
    }
}

/* Whether t holds one element as far as its readers see: a 0-d tensor, or
 * one broadcast to a shape (zero strides). */
static bool cu_single(const ct_tensor *t)
{
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] != 1 && t->strides[d] != 0) return false;
    return true;
}

/* The layout of out and its operands (dims right-aligned with out's; an
 * operand NULL, or one travelling by value, has 0 strides): dense when
 * every operand is dense like out or a single element. */
static cu_layout cu_layout_of(const ct_tensor *out, const ct_tensor *const *ops, int n_ops)
{
    cu_layout l;
    memset(&l, 0, sizeof l);
    bool dense = ct_is_contiguous(out);
    l.step[0] = 1;
    for (int j = 0; j < n_ops; j++) {
        bool single = !ops[j] || cu_single(ops[j]);
        l.step[1 + j] = single ? 0 : 1;
        dense = dense && (single || (ct_is_contiguous(ops[j]) && ct_numel(ops[j]) == ct_numel(out)));
    }
    if (dense) return l;
    for (int d = 0; d < out->ndim; d++) {
        int64_t size = out->sizes[d], s[4] = {out->strides[d], 0, 0, 0};
        for (int j = 0; j < n_ops; j++) {
            const ct_tensor *t = ops[j];
            int td = t ? d - (out->ndim - t->ndim) : -1;
            if (td >= 0 && t->sizes[td] != 1) s[1 + j] = t->strides[td];
        }
        if (size == 1) continue; /* a dim of one element moves nothing */
        bool merges = l.ndim > 0;
        for (int j = 0; j < 4 && merges; j++) merges = l.strides[j][l.ndim - 1] == s[j] * size;
        int at = merges ? l.ndim - 1 : l.ndim++;
        l.sizes[at] = merges ? l.sizes[at] * size : size;
        for (int j = 0; j < 4; j++) l.strides[j][at] = s[j];
    }
    if (l.ndim == 0) l.ndim = 1, l.sizes[0] = 1; /* one element, strided: still a layout */
    return l;
}

/* f(T()) for T the unsigned type of an element's width (1, 2, 4 or 8
 * bytes): the kernels that move elements without reading them as numbers
 * are instantiated per width, not per dtype. */
template <typename F> static void cu_by_width(size_t width, F f)
{
    switch (width) {
    case 1: f(uint8_t()); break;
    case 2: f(uint16_t()); break;
    case 4: f(uint32_t()); break;
    default: f(uint64_t()); break;
    }
}

/* ---------------------------------------------------------------- fill */

/* Element k of p = v, T an unsigned type of the element's width. */
template <typename T> __global__ void cu_fill_kernel(T *p, T v, cu_layout l, int64_t n)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
        int64_t off[4];
        cu_offsets(l, k, off);
        p[off[0]] = v;
    }
}

template <typename T> static void cu_fill_as(void *p, const void *elem, const cu_layout &l, int64_t n)
{
    T v;
    memcpy(&v, elem, sizeof v);
    CU_LAUNCH(cu_fill_kernel<T>, cu_blocks(n), CU_THREADS, (T *)p, v, l, n);
    cu_ok(cudaGetLastError());
}

static void cu_fill(ct_tensor *dst, const void *elem)
{
    int64_t n = ct_numel(dst);
    if (n == 0) return;
    cu_layout l = cu_layout_of(dst, NULL, 0);
    cu_use(cu_index_of(dst));
    cu_by_width(ct_dtype_size(dst->dtype), [&](auto w) { cu_fill_as<decltype(w)>(ct_data_ptr(dst), elem, l, n); });
}

/* ---------------------------------------------------------------- copies */

/* Element k of dst = element k of src, T an unsigned type of the element's width. */
template <typename T> __global__ void cu_copy_kernel(T *dst, const T *src, cu_layout l, int64_t n)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
        int64_t off[4];
        cu_offsets(l, k, off);
        dst[off[0]] = src[off[1]];
    }
}

template <typename T> static void cu_copy_as(ct_tensor *dst, const ct_tensor *src, int64_t n)
{
    cu_layout l = cu_layout_of(dst, &src, 1);
    CU_LAUNCH(cu_copy_kernel<T>, cu_blocks(n), CU_THREADS, (T *)ct_data_ptr(dst), (const T *)ct_data_ptr(src), l, n);
    cu_ok(cudaGetLastError());
}

/* ---------------------------------------------------------------- converting copies */

/* An element read in its wide type (c10::convert's: int64 for the integer
 * and bool dtypes, double for the floating ones), as CT__CONVERT reads it. */
typedef struct cu_wide {
    bool is_float;
    int64_t i;
    double f;
} cu_wide;

__device__ inline cu_wide cu_wide_of(int64_t v) { return cu_wide{false, v, 0}; }
__device__ inline cu_wide cu_wide_of(double v) { return cu_wide{true, 0, v}; }

__device__ inline cu_wide cu_load_wide(const char *p, ct_dtype dt)
{
    switch (dt) {
#define CU_LOAD_CASE(name, DT, _) \
    case DT: return cu_wide_of(ct__load_##name(*(const ct__##name##_t *)p));
        CT__DTYPES_A(CU_LOAD_CASE, _)
#undef CU_LOAD_CASE
    default: return cu_wide_of((int64_t)0);
    }
}

/* w stored as dtype dt with CT__CONVERT's rules (the CPU's converting copy). */
__device__ inline void cu_store_wide(char *p, ct_dtype dt, cu_wide w)
{
    switch (dt) {
#define CU_STORE_CASE(name, DT, _) \
    case DT: *(ct__##name##_t *)p = w.is_float ? ct__to_##name##_from_f64(w.f) : ct__to_##name##_from_i64(w.i); return;
        CT__DTYPES_A(CU_STORE_CASE, _)
#undef CU_STORE_CASE
    default: return;
    }
}

/* Element k of dst (dtype dt, dsize bytes each) = element k of src (st,
 * ssize) converted: one kernel for every pair of dtypes, the branch on the
 * dtypes the same for every thread. */
__global__ void cu_cast_kernel(char *dst, ct_dtype dt, size_t dsize, const char *src, ct_dtype st, size_t ssize,
                               cu_layout l, int64_t n)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
        int64_t off[4];
        cu_offsets(l, k, off);
        cu_store_wide(dst + off[0] * (int64_t)dsize, dt, cu_load_wide(src + off[1] * (int64_t)ssize, st));
    }
}

static void cu_cast(ct_tensor *dst, const ct_tensor *src, int64_t n)
{
    cu_layout l = cu_layout_of(dst, &src, 1);
    CU_LAUNCH(cu_cast_kernel, cu_blocks(n), CU_THREADS, (char *)ct_data_ptr(dst), dst->dtype,
              ct_dtype_size(dst->dtype), (const char *)ct_data_ptr(src), src->dtype, ct_dtype_size(src->dtype), l, n);
    cu_ok(cudaGetLastError());
}

/* Whether t is device memory, or host memory that is pinned: then a copy
 * need not wait, and the pinned block is not handed out again before the
 * copy is done. */
static bool cu_host_side_pinned(const ct_tensor *t, bool on_device)
{
    if (on_device) return true;
    void *base = t->storage->data;
    if (!cu_host_pinned(base)) return false;
    cu_host_used(base);
    return true;
}

/* dst = src, on the current stream. The same dtype, both dense with the
 * same number of elements: one cudaMemcpy in either direction (a copy that
 * touches pageable host memory waits for itself: the host buffer may go as
 * soon as this returns, as in PyTorch; only a non_blocking one between the
 * device and pinned memory does not). On one GPU, strided or broadcast: a
 * kernel (converting the dtype as the CPU's copy does). Anything else (a
 * conversion or a strided side with the host or another GPU): the CPU's copy
 * on the managed memory, after a synchronize. */
static void cu_copy(ct_tensor *dst, const ct_tensor *src, bool non_blocking)
{
    int64_t n = ct_numel(dst);
    if (n == 0) return;
    bool dst_dev = dst->storage->device.type == CT_DEVICE_CUDA, src_dev = src->storage->device.type == CT_DEVICE_CUDA;
    int index = cu_index_of(dst_dev ? dst : src);
    bool same = dst->dtype == src->dtype;
    if (same && ct_numel(src) == n && ct_is_contiguous(dst) && ct_is_contiguous(src)) {
        cu_use(index);
        size_t bytes = (size_t)n * ct_dtype_size(dst->dtype);
        if (!cu_ok(cudaMemcpyAsync(ct_data_ptr(dst), ct_data_ptr(src), bytes, cudaMemcpyDefault, cu_stream()))) return;
        if (!non_blocking || !cu_host_side_pinned(dst, dst_dev) || !cu_host_side_pinned(src, src_dev))
            cu_ok(cudaStreamSynchronize(cu_stream()));
        return;
    }
    if (dst_dev && src_dev && cu_index_of(dst) == cu_index_of(src)) {
        cu_use(index);
        if (same) cu_by_width(ct_dtype_size(dst->dtype), [&](auto w) { cu_copy_as<decltype(w)>(dst, src, n); });
        else cu_cast(dst, src, n);
        return;
    }
    cu_finish_all();
    cu_cpu()->copy(dst, src, false);
}

/* ---------------------------------------------------------------- gather */

/* dst[p] = src[p with dim = index[p]], T an unsigned type of the element's
 * width: operand 0 of the layout is dst, 1 index, 2 src without dim (its
 * stride there 0), which dim_stride adds for the index read. An index
 * outside [lo, size) (lo = -size when negatives count from the end) writes
 * nothing and sets *bad. */
template <typename T>
__global__ void cu_gather_kernel(T *dst, const int64_t *index, const T *src, cu_layout l, int64_t n, int64_t lo,
                                 int64_t size, int64_t dim_stride, int *bad)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
        int64_t off[4];
        cu_offsets(l, k, off);
        int64_t i = index[off[1]];
        if (i < lo || i >= size) {
            *bad = 1;
            continue;
        }
        dst[off[0]] = src[off[2] + (i < 0 ? i + size : i) * dim_stride];
    }
}

template <typename T> static void cu_gather_as(ct__index_job *job, const cu_layout &l, int64_t n, int *bad)
{
    const ct_tensor *src = job->src;
    int64_t size = src->sizes[job->dim];
    CU_LAUNCH(cu_gather_kernel<T>, cu_blocks(n), CU_THREADS, (T *)ct_data_ptr(job->dst),
              (const int64_t *)ct_data_ptr(job->index), (const T *)ct_data_ptr(src), l, n, job->negatives ? -size : 0,
              size, src->strides[job->dim], bad);
}

/* The calling thread's out-of-range flag on device index: 4 bytes of
 * managed memory made on first use and kept for the process (as the cuBLAS
 * handles are); NULL, with no error set, when CUDA has none to give. */
static int *cu_flag(int index)
{
    static thread_local int *flags[CU_MAX_DEVICES];
    if (!flags[index]) {
        cu_use(index);
        if (cudaMallocManaged((void **)&flags[index], sizeof(int), cudaMemAttachGlobal) != cudaSuccess) {
            cudaGetLastError();
            flags[index] = NULL;
        }
    }
    return flags[index];
}

/* The gather kernel over index's positions; the out-of-range flag comes
 * back to the host (a wait for the kernel). false when there is no flag:
 * the CPU's loop serves then. */
static bool cu_gather(ct__index_job *job)
{
    int64_t n = ct_numel(job->index);
    int index = cu_index_of(job->dst);
    int *bad = n > 0 ? cu_flag(index) : NULL;
    job->out_of_range = false;
    if (n == 0) return true;
    if (!bad) return false;
    ct_tensor src = *job->src; /* src seen over index's positions, dim left to the kernel */
    memcpy(src.sizes, job->index->sizes, sizeof src.sizes);
    src.strides[job->dim] = 0;
    const ct_tensor *ops[2] = {job->index, &src};
    cu_layout l = cu_layout_of(job->dst, ops, 2);
    cu_use(index);
    int found = 0;
    if (cu_ok(cudaMemsetAsync(bad, 0, sizeof *bad, cu_stream()))) {
        cu_by_width(ct_dtype_size(job->dst->dtype), [&](auto w) { cu_gather_as<decltype(w)>(job, l, n, bad); });
        if (cu_ok(cudaGetLastError()) &&
            cu_ok(cudaMemcpyAsync(&found, bad, sizeof found, cudaMemcpyDeviceToHost, cu_stream())))
            cu_ok(cudaStreamSynchronize(cu_stream()));
    }
    job->out_of_range = found != 0;
    return true;
}

/* ---------------------------------------------------------------- order-free reductions */

/* The dims a reduction folds: their sizes and in's strides in elements (the
 * last fastest), and how many elements each output folds. */
typedef struct cu_reduced {
    int ndim;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int64_t count;
} cu_reduced;

/* Element j's offset in an output's block of in. */
__device__ inline int64_t cu_reduced_offset(const cu_reduced &r, int64_t j)
{
    int64_t off = 0;
    for (int d = r.ndim - 1; d >= 0; d--) {
        off += j % r.sizes[d] * r.strides[d];
        j /= r.sizes[d];
    }
    return off;
}

/* reduce_formulas.h's folds of an element into a partial result, as types
 * the kernel template takes. */
#define CU_FOLD(fn)                                                                                        \
    struct cu_fold_##fn {                                                                                 \
        template <typename A, typename X> __device__ A operator()(A a, X x) const { return (A)fn(a, x); } \
    };
#define CU_FOLDS(fl, DT, _)                                                                 \
    CU_FOLD(CT__OPMAX_##fl) CU_FOLD(CT__OPMIN_##fl) CU_FOLD(CT__OPALL_##fl) CU_FOLD(CT__OPANY_##fl) \
    CU_FOLD(CT__OPCOUNT_##fl)
CT__FREE_DTYPES(CU_FOLDS)
CU_FOLD(CT__OP_ADD)
CU_FOLD(CT__OP_MUL)
#undef CU_FOLDS
#undef CU_FOLD

/* Part c of `parts` of output k's fold (t = k * parts + c): the elements
 * j = c, c + parts, ... of its block, so that neighbouring threads read
 * neighbouring elements, folded into out's value there (the op's
 * identity). One part: the result goes to out; more: to part[t]. */
template <typename T, typename TO, typename Fold>
__global__ void cu_fold_kernel(TO *out, TO *part, const T *in, cu_layout l, cu_reduced r, int64_t n, int64_t parts)
{
    Fold fold;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n * parts;
         t += (int64_t)gridDim.x * blockDim.x) {
        int64_t k = t / parts, c = t % parts, off[4];
        cu_offsets(l, k, off);
        TO acc = out[off[0]];
        for (int64_t j = c; j < r.count; j += parts) acc = fold(acc, in[off[1] + cu_reduced_offset(r, j)]);
        if (part) part[t] = acc;
        else out[off[0]] = acc;
    }
}

/* The parts each output's fold is split into: enough threads to fill a
 * GPU when there are few outputs, each part a few hundred elements at
 * least, and few enough parts that one thread folds them after. */
static int64_t cu_fold_parts(int64_t n, int64_t count)
{
    int64_t most = n >= 8192 ? 1 : 8192 / n, enough = (count + 255) / 256;
    return enough < most ? enough : most;
}

/* out = Fold over each output's elements of in (layout l: out 0, in's
 * block starts 1), through parts folded again by Combine when the outputs
 * are few and memory for the parts' results is there. */
template <typename T, typename TO, typename Fold, typename Combine>
static void cu_fold_run(ct_tensor *out, const ct_tensor *in, const cu_layout &l, const cu_reduced &r, int64_t n,
                        int index)
{
    TO *o = (TO *)ct_data_ptr(out);
    const T *x = (const T *)ct_data_ptr(in);
    int64_t parts = cu_fold_parts(n, r.count);
    size_t bytes = (size_t)(n * parts) * sizeof(TO);
    TO *part = parts > 1 ? (TO *)cu_alloc_block(bytes, index, false) : NULL;
    if (!part) parts = 1;
    CU_LAUNCH((cu_fold_kernel<T, TO, Fold>), cu_blocks(n * parts), CU_THREADS, o, part, x, l, r, n, parts);
    if (!part) return;
    cu_layout lp = l; /* the parts: output k's at k * parts, one after the other */
    if (lp.ndim == 0) lp.step[1] = parts;
    for (int64_t d = lp.ndim - 1, m = parts; d >= 0; m *= lp.sizes[d--]) lp.strides[1][d] = m;
    cu_reduced rp;
    rp.ndim = 1, rp.sizes[0] = rp.count = parts, rp.strides[0] = 1;
    CU_LAUNCH((cu_fold_kernel<TO, TO, Combine>), cu_blocks(n), CU_THREADS, o, (TO *)NULL, (const TO *)part, lp, rp, n,
              (int64_t)1);
    cu_free(part, bytes, index); /* (reused only by work queued after these kernels) */
}

/* op's folds on elements of type T, which fold as dtype fl's (the narrow
 * integers as int64's); sums and products only for the integers and bool. */
template <typename T, bool integral, typename Max, typename Min, typename All, typename Any, typename Count>
static void cu_fold_dtype(ct__rop op, ct_tensor *out, const ct_tensor *in, const cu_layout &l, const cu_reduced &r,
                          int64_t n, int index)
{
    switch (op) {
    case CT__ROP_MAX: cu_fold_run<T, T, Max, Max>(out, in, l, r, n, index); return;
    case CT__ROP_MIN: cu_fold_run<T, T, Min, Min>(out, in, l, r, n, index); return;
    case CT__ROP_ALL: cu_fold_run<T, uint8_t, All, cu_fold_CT__OPALL_b8>(out, in, l, r, n, index); return;
    case CT__ROP_ANY: cu_fold_run<T, uint8_t, Any, cu_fold_CT__OPANY_b8>(out, in, l, r, n, index); return;
    case CT__ROP_COUNT: cu_fold_run<T, int64_t, Count, cu_fold_CT__OP_ADD>(out, in, l, r, n, index); return;
    default: break;
    }
    if constexpr (integral) {
        using add = cu_fold_CT__OP_ADD;
        using mul = cu_fold_CT__OP_MUL;
        if (op == CT__ROP_SUM) cu_fold_run<T, int64_t, add, add>(out, in, l, r, n, index);
        if (op == CT__ROP_PROD) cu_fold_run<T, int64_t, mul, mul>(out, in, l, r, n, index);
    }
}

/* Whether op over in runs here: an op whose order cannot show (floating
 * sums and products, norms and variances are the CPU's), in and out on one
 * GPU. */
static bool cu_fold_here(ct__rop op, const ct_tensor *out, const ct_tensor *in)
{
    bool floating = in->dtype == CT_F16 || in->dtype == CT_BF16 || in->dtype == CT_F32 || in->dtype == CT_F64;
    bool free_order = op == CT__ROP_MAX || op == CT__ROP_MIN || op == CT__ROP_ALL || op == CT__ROP_ANY ||
                      op == CT__ROP_COUNT || ((op == CT__ROP_SUM || op == CT__ROP_PROD) && !floating);
    return free_order && in->storage->device.type == CT_DEVICE_CUDA &&
           out->storage->device.type == CT_DEVICE_CUDA && cu_index_of(in) == cu_index_of(out);
}

/* op over the dims of in whose bit is set in mask into out (in's dims, 1
 * where folded, holding the op's identity), one thread an output or a
 * part of one. */
static void cu_fold(ct__rop op, ct_tensor *out, const ct_tensor *in, uint32_t mask)
{
    int64_t n = ct_numel(out);
    if (n == 0) return;
    cu_reduced r;
    r.ndim = 0, r.count = 1;
    ct_tensor kept = *in; /* in with the folded dims one element: each output's block start */
    for (int d = 0; d < in->ndim; d++) {
        if (!((mask >> d) & 1) || in->sizes[d] == 1) continue;
        r.sizes[r.ndim] = in->sizes[d], r.strides[r.ndim++] = in->strides[d];
        r.count *= in->sizes[d];
        kept.sizes[d] = 1;
    }
    const ct_tensor *ops[1] = {&kept};
    cu_layout l = cu_layout_of(out, ops, 1);
    int index = cu_index_of(out);
    cu_use(index);
    switch (in->dtype) {
#define CU_FOLD_CASE(DT, T, integral, fl)                                                                  \
    case DT:                                                                                               \
        cu_fold_dtype<T, integral, cu_fold_CT__OPMAX_##fl, cu_fold_CT__OPMIN_##fl, cu_fold_CT__OPALL_##fl, \
                      cu_fold_CT__OPANY_##fl, cu_fold_CT__OPCOUNT_##fl>(op, out, in, l, r, n, index);      \
        break;
        CU_FOLD_CASE(CT_BOOL, uint8_t, true, b8)
        CU_FOLD_CASE(CT_U8, uint8_t, true, i64)
        CU_FOLD_CASE(CT_I8, int8_t, true, i64)
        CU_FOLD_CASE(CT_I16, int16_t, true, i64)
        CU_FOLD_CASE(CT_I32, int32_t, true, i64)
        CU_FOLD_CASE(CT_I64, int64_t, true, i64)
        CU_FOLD_CASE(CT_F16, uint16_t, false, f16)
        CU_FOLD_CASE(CT_BF16, uint16_t, false, bf16)
        CU_FOLD_CASE(CT_F32, float, false, f32)
        CU_FOLD_CASE(CT_F64, double, false, f64)
#undef CU_FOLD_CASE
    default: break;
    }
    cu_ok(cudaGetLastError());
}

/* ---------------------------------------------------------------- along one dim */

/* An along op's rows: in's bytes, values' and indices' (NULL when not asked
 * for), the element size of in and values, byte strides along the dim, the
 * row length, and softmax's scratch (8 bytes an element). */
typedef struct cu_rows {
    const char *in;
    char *val, *idx, *scratch;
    int64_t es, is, vs, xs, n;
    ct__aop op;
    bool last;
} cu_rows;

/* One thread a row: row k's start in each operand through the layout (in 0,
 * values 1, indices 2, each with the dim squashed to one element), then
 * reduce_formulas.h's row kernel of the dtype, the CPU's. */
#define CU_ALONG_KERNEL(name, DT, _)                                                                   \
    __global__ void cu_along_##name(cu_rows a, cu_layout l, int64_t rows)                              \
    {                                                                                                  \
        for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < rows;                     \
             k += (int64_t)gridDim.x * blockDim.x) {                                                   \
            int64_t off[4];                                                                            \
            cu_offsets(l, k, off);                                                                     \
            ct__row r;                                                                                 \
            r.in = a.in + off[0] * a.es;                                                               \
            r.val = a.val ? a.val + off[1] * a.es : NULL;                                              \
            r.idx = a.idx ? a.idx + off[2] * (int64_t)sizeof(int64_t) : NULL;                          \
            r.is = a.is, r.vs = a.vs, r.xs = a.xs, r.n = a.n;                                          \
            r.scratch = a.scratch ? a.scratch + k * a.n * 8 : NULL;                                    \
            ct__along_row_##name(&r, a.op, a.last);                                                    \
        }                                                                                              \
    }
CT__DTYPES_A(CU_ALONG_KERNEL, _)
#undef CU_ALONG_KERNEL

/* Whether op along a dim runs here: every operand on one GPU, and an op
 * reduce_formulas.h has (median and mode are the CPU's). */
static bool cu_along_here(ct__aop op, const ct_tensor *values, const ct_tensor *indices, const ct_tensor *in)
{
    if (op == CT__AOP_MEDIAN || op == CT__AOP_MODE || in->storage->device.type != CT_DEVICE_CUDA) return false;
    const ct_tensor *outs[2] = {values, indices};
    for (int j = 0; j < 2; j++)
        if (outs[j] && (outs[j]->storage->device.type != CT_DEVICE_CUDA || cu_index_of(outs[j]) != cu_index_of(in)))
            return false;
    return true;
}

/* t with dim squashed to one element (TensorIterator's declare_static_shape), into sq. */
static const ct_tensor *cu_squashed(const ct_tensor *t, int dim, ct_tensor *sq)
{
    if (!t) return NULL;
    *sq = *t;
    if (sq->ndim) sq->sizes[dim] = 1;
    return sq;
}

/* op along dim of in into values and/or indices, one thread a row. Fails
 * only for softmax's scratch, with CUDA's out-of-memory error. */
static ct_result cu_along_rows(ct__aop op, ct_tensor *values, ct_tensor *indices, const ct_tensor *in, int dim)
{
    int64_t n = in->ndim ? in->sizes[dim] : 1, numel = ct_numel(in);
    if (numel == 0) return CT_OK;
    int64_t rows = numel / n;
    int index = cu_index_of(in);
    ct_tensor sq[3];
    const ct_tensor *outs[2] = {cu_squashed(values, dim, &sq[1]), cu_squashed(indices, dim, &sq[2])};
    cu_layout l = cu_layout_of(cu_squashed(in, dim, &sq[0]), outs, 2);
    cu_rows a;
    a.in = (const char *)ct_data_ptr(in);
    a.val = values ? (char *)ct_data_ptr(values) : NULL;
    a.idx = indices ? (char *)ct_data_ptr(indices) : NULL;
    a.es = (int64_t)ct_dtype_size(in->dtype);
    a.is = in->ndim ? in->strides[dim] * a.es : 0;
    a.vs = values && in->ndim ? values->strides[dim] * a.es : 0;
    a.xs = indices && in->ndim ? indices->strides[dim] * (int64_t)sizeof(int64_t) : 0;
    a.n = n, a.op = op, a.last = in->ndim == 0 || dim == in->ndim - 1;
    size_t scratch = op == CT__AOP_SOFTMAX || op == CT__AOP_LOG_SOFTMAX ? (size_t)numel * 8 : 0;
    a.scratch = scratch ? (char *)cu_alloc(scratch, index) : NULL;
    if (scratch && !a.scratch) return CT_ERR_MEMORY;
    cu_use(index);
    switch (in->dtype) {
#define CU_ALONG_CASE(name, DT, _) \
    case DT: CU_LAUNCH(cu_along_##name, cu_blocks(rows), CU_THREADS, a, l, rows); break;
        CT__DTYPES_A(CU_ALONG_CASE, _)
#undef CU_ALONG_CASE
    default: break;
    }
    bool launched = cu_ok(cudaGetLastError());
    if (scratch) cu_free(a.scratch, scratch, index); /* (reused only by work queued after this kernel) */
    return launched ? CT_OK : CT_ERR_RUNTIME;
}

/* ---------------------------------------------------------------- batch norm's statistics */

/* One thread a channel: reduce_formulas.h's statistics, the CPU's. */
#define CU_BN_STATS(T)                                                                                     \
    __global__ void cu_bn_stats_##T(ct__bn_stats_job j)                                                    \
    {                                                                                                      \
        const T *x = (const T *)j.x;                                                                       \
        T *mean = (T *)j.mean, *var_sum = (T *)j.var_sum;                                                  \
        for (int64_t ch = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; ch < j.c;                        \
             ch += (int64_t)gridDim.x * blockDim.x) {                                                      \
            if (j.rows) ct__bn_stats_column_##T(x, j.count, j.c, ch, mean, var_sum);                       \
            else ct__bn_stats_plane_##T(x, j.n, j.c, j.image, ch, mean, var_sum);                          \
        }                                                                                                  \
    }
CU_BN_STATS(float)
CU_BN_STATS(double)
#undef CU_BN_STATS

static void cu_bn_stats(const ct__bn_stats_job *job)
{
    if (job->c == 0) return;
    cu_use(job->device_index);
    if (job->dtype == CT_F32) CU_LAUNCH(cu_bn_stats_float, cu_blocks(job->c), CU_THREADS, *job);
    else CU_LAUNCH(cu_bn_stats_double, cu_blocks(job->c), CU_THREADS, *job);
    cu_ok(cudaGetLastError());
}

/* ---------------------------------------------------------------- pointwise */

/* The ct_dtype of a formula dtype suffix. */
#define CU_DT_b8 CT_BOOL
#define CU_DT_u8 CT_U8
#define CU_DT_i8 CT_I8
#define CU_DT_i16 CT_I16
#define CU_DT_i32 CT_I32
#define CU_DT_i64 CT_I64
#define CU_DT_f32 CT_F32
#define CU_DT_f64 CT_F64
#define CU_DT_f16 CT_F16
#define CU_DT_bf16 CT_BF16
#define CU_DT_f16h CT_F16
#define CU_DT_bf16h CT_BF16

/* The inputs' data. One on the host (a number, a CPU scalar beside device
 * tensors, 0-d) travels by value in scalar[j], data[j] NULL. */
typedef struct cu_operands {
    const void *data[3];
    uint64_t scalar[3];
} cu_operands;

/* Input j's elements, as the kernel sees them. */
template <typename T> __device__ const T *cu_operand(const cu_operands &in, int j)
{
    return in.data[j] ? (const T *)in.data[j] : (const T *)(const void *)&in.scalar[j];
}

/* One kernel per op and dtype: o[k] = store(formula(load(x[k]), ...)). The
 * comparison and predicate kinds store bool. */
#define CU_KERNEL(name, dt, OUT, STORE, ...)                                                                \
    __global__ void cu_k_##name##_##dt(OUT *o, cu_operands in, cu_layout l, int64_t n, ct__op_args a)      \
    {                                                                                                      \
        const CT__KT_##dt *x = cu_operand<CT__KT_##dt>(in, 0), *y = cu_operand<CT__KT_##dt>(in, 1);        \
        const CT__KT_##dt *z = cu_operand<CT__KT_##dt>(in, 2);                                             \
        (void)y, (void)z;                                                                                  \
        for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n;                            \
             k += (int64_t)gridDim.x * blockDim.x) {                                                       \
            int64_t off[4];                                                                                \
            cu_offsets(l, k, off);                                                                         \
            o[off[0]] = STORE(CT__KFN(name, dt)(__VA_ARGS__, &a));                                         \
        }                                                                                                  \
    }
#define CU_LOAD(dt, p, j) CT__KL_##dt(p[off[1 + j]])
#define CU_STORE_BOOL(v) ((uint8_t)((v) != 0))
#define CU_UNARY(name, dt) CU_KERNEL(name, dt, CT__KT_##dt, CT__KS_##dt, CU_LOAD(dt, x, 0))
#define CU_UNARY_VM CU_UNARY
#define CU_UNARY_VM0 CU_UNARY
#define CU_BINARY_VM0 CU_BINARY
#define CU_UNARY_BOOL(name, dt) CU_KERNEL(name, dt, uint8_t, CU_STORE_BOOL, CU_LOAD(dt, x, 0))
#define CU_BINARY(name, dt) CU_KERNEL(name, dt, CT__KT_##dt, CT__KS_##dt, CU_LOAD(dt, x, 0), CU_LOAD(dt, y, 1))
#define CU_BINARY_BOOL(name, dt) CU_KERNEL(name, dt, uint8_t, CU_STORE_BOOL, CU_LOAD(dt, x, 0), CU_LOAD(dt, y, 1))
#define CU_TERNARY(name, dt)                                                                                \
    CU_KERNEL(name, dt, CT__KT_##dt, CT__KS_##dt, CU_LOAD(dt, x, 0), CU_LOAD(dt, y, 1), CU_LOAD(dt, z, 2))
/* where(cond, x, y): a select on the stored values, cond bool */
#define CU_WHERE(name, dt)                                                                                  \
    __global__ void cu_k_##name##_##dt(CT__KT_##dt *o, cu_operands in, cu_layout l, int64_t n, ct__op_args a) \
    {                                                                                                      \
        const uint8_t *c = cu_operand<uint8_t>(in, 0);                                                     \
        const CT__KT_##dt *x = cu_operand<CT__KT_##dt>(in, 1), *y = cu_operand<CT__KT_##dt>(in, 2);        \
        (void)a;                                                                                           \
        for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n;                            \
             k += (int64_t)gridDim.x * blockDim.x) {                                                       \
            int64_t off[4];                                                                                \
            cu_offsets(l, k, off);                                                                         \
            o[off[0]] = c[off[1]] ? x[off[2]] : y[off[3]];                                                 \
        }                                                                                                  \
    }

#define CU_KERNELS(name, kind, group) CT__KD_##group(CU_##kind, name, )
#define CU_KERNELS_H(name, kind, group) CT__KD_##group(CU_##kind, name, h)
CT__POINTWISE_KERNELS(CU_KERNELS, CU_KERNELS_H)
CU_KERNELS_H(add_alpha, BINARY, ALL)
CU_KERNELS_H(sub_alpha, BINARY, NUMERIC)

/* A launcher per op: the kernel of dtype dt on out's n elements; false
 * when the op has no kernel of that dtype. */
#define CU_CASE(name, dt)                                                                                   \
    case CU_DT_##dt:                                                                                       \
        CU_LAUNCH(cu_k_##name##_##dt, cu_blocks(n), CU_THREADS, (decltype(cu_out_type_##name##_##dt()))o, in, *l, n, *a); \
        return true;
#define CU_OUT_TYPE(name, dt) static inline CT__KT_##dt *cu_out_type_##name##_##dt(void) { return NULL; }
#define CU_OUT_BOOL(name, dt) static inline uint8_t *cu_out_type_##name##_##dt(void) { return NULL; }
#define CU_OUT_UNARY CU_OUT_TYPE
#define CU_OUT_UNARY_VM CU_OUT_TYPE
#define CU_OUT_UNARY_VM0 CU_OUT_TYPE
#define CU_OUT_BINARY_VM0 CU_OUT_TYPE
#define CU_OUT_BINARY CU_OUT_TYPE
#define CU_OUT_TERNARY CU_OUT_TYPE
#define CU_OUT_WHERE CU_OUT_TYPE
#define CU_OUT_UNARY_BOOL CU_OUT_BOOL
#define CU_OUT_BINARY_BOOL CU_OUT_BOOL
#define CU_OUT_TYPES(name, kind, group) CT__KD_##group(CU_OUT_##kind, name, )
#define CU_OUT_TYPES_H(name, kind, group) CT__KD_##group(CU_OUT_##kind, name, h)
CT__POINTWISE_KERNELS(CU_OUT_TYPES, CU_OUT_TYPES_H)
CU_OUT_TYPES_H(add_alpha, BINARY, ALL)
CU_OUT_TYPES_H(sub_alpha, BINARY, NUMERIC)

#define CU_LAUNCHER(name, kind, group, h)                                                                   \
    static bool cu_launch_##name(ct_dtype dt, void *o, cu_operands in, const cu_layout *l, int64_t n,        \
                                 const ct__op_args *a)                                                     \
    {                                                                                                      \
        switch (dt) {                                                                                      \
            CT__KD_##group(CU_CASE, name, h) default : return false;                                       \
        }                                                                                                  \
    }
#define CU_LAUNCHERS(name, kind, group) CU_LAUNCHER(name, kind, group, )
#define CU_LAUNCHERS_H(name, kind, group) CU_LAUNCHER(name, kind, group, h)
CT__POINTWISE_KERNELS(CU_LAUNCHERS, CU_LAUNCHERS_H)
CU_LAUNCHERS_H(add_alpha, BINARY, ALL)
CU_LAUNCHERS_H(sub_alpha, BINARY, NUMERIC)

/* The launch of op's kernel of dtype dt; false when there is none. add and
 * sub with an alpha other than 1 run their alpha forms. */
static bool cu_launch(ct__op op, ct_dtype dt, void *o, cu_operands in, const cu_layout *l, int64_t n,
                      const ct__op_args *a)
{
    bool alpha = a->alpha != 1 || a->alpha_i != 1;
    if (op == CT__OP_add && alpha) return cu_launch_add_alpha(dt, o, in, l, n, a);
    if (op == CT__OP_sub && alpha) return cu_launch_sub_alpha(dt, o, in, l, n, a);
    switch (op) {
#define CU_OP_CASE(name, kind, group) \
    case CT__OP_##name: return cu_launch_##name(dt, o, in, l, n, a);
        CT__POINTWISE_KERNELS(CU_OP_CASE, CU_OP_CASE)
#undef CU_OP_CASE
    default: return false;
    }
}

static bool cu_has_pointwise(ct__op op, ct_dtype dt) { return cu_cpu()->has_pointwise(op, dt); }

/* out = op(inputs), as a kernel, through the inputs' layout (dense,
 * strided or broadcast). An op without a kernel of the dtype runs the CPU's
 * loop on the managed memory, after a synchronize. */
static void cu_pointwise(ct__op op, ct_tensor *out, const ct_tensor *const *inputs, const ct__op_args *args)
{
    int64_t n = ct_numel(out);
    if (n == 0) return;
    int arity = ct__ops[op].arity;
    cu_operands in = {{NULL, NULL, NULL}, {0, 0, 0}};
    const ct_tensor *on_device[3] = {NULL, NULL, NULL};
    for (int j = 0; j < arity; j++) {
        const ct_tensor *t = inputs[j];
        if (t->storage->device.type == CT_DEVICE_CPU) memcpy(&in.scalar[j], ct_data_ptr(t), ct_dtype_size(t->dtype));
        else in.data[j] = ct_data_ptr(t), on_device[j] = t;
    }
    cu_layout l = cu_layout_of(out, on_device, arity);
    cu_use(cu_index_of(out));
    /* the last input has the data dtype (where's first is its condition) */
    if (cu_launch(op, inputs[arity - 1]->dtype, ct_data_ptr(out), in, &l, n, args)) {
        cu_ok(cudaGetLastError());
        return;
    }
    cu_finish_all();
    cu_cpu()->pointwise(op, out, inputs, args);
}

/* ---------------------------------------------------------------- fused optimizer steps */

/* SGD with momentum over n elements (ct__optim_job's a = {weight_decay,
 * momentum, 1 - dampening, -lr}): the CPU's element step, so the bits agree. */
__global__ void cu_sgd_kernel(float *p, float *buf, const float *g, int64_t n, float weight_decay, float momentum,
                              float damp, float neg_lr, bool maximize, bool nesterov)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x)
        ct__sgd_element(&p[k], &buf[k], g[k], weight_decay, momentum, damp, neg_lr, maximize, nesterov);
}

/* The seven numbers of an Adam step (ct__optim_job's a), by value into the kernel. */
typedef struct cu_adam_args {
    float a[7];
} cu_adam_args;

/* Adam over n elements (vmax NULL without amsgrad). */
__global__ void cu_adam_kernel(float *p, float *m, float *v, float *vmax, const float *g, int64_t n, cu_adam_args a)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x)
        ct__adam_element(&p[k], &m[k], &v[k], vmax ? &vmax[k] : NULL, g[k], a.a[0], a.a[1], a.a[2], a.a[3], a.a[4],
                         a.a[5], a.a[6]);
}

static void cu_optim_step(const ct__optim_job *j)
{
    if (j->n == 0) return;
    cu_use(j->device_index);
    if (j->kind == CT__OPTIM_SGD) {
        CU_LAUNCH(cu_sgd_kernel, cu_blocks(j->n), CU_THREADS, j->p, j->buf[0], j->grad, j->n, j->a[0], j->a[1], j->a[2],
                  j->a[3], j->maximize, j->nesterov);
    } else {
        cu_adam_args a;
        memcpy(a.a, j->a, sizeof a.a);
        CU_LAUNCH(cu_adam_kernel, cu_blocks(j->n), CU_THREADS, j->p, j->buf[0], j->buf[1], j->buf[2], j->grad, j->n, a);
    }
    cu_ok(cudaGetLastError());
}
