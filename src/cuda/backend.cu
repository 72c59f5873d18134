/* Matrix products on cuBLAS, the op families that run the CPU's kernels on
 * managed memory for now, and the backend table registered at start-up. */

/* ---------------------------------------------------------------- products */

/* One cuBLAS handle per device, made on first use; each product sets its stream. */
static cublasHandle_t cu_blas(int index)
{
    static cublasHandle_t handles[CU_MAX_DEVICES];
    static std::mutex lock;
    std::lock_guard<std::mutex> hold(lock);
    if (!handles[index] && cublasCreate(&handles[index]) != CUBLAS_STATUS_SUCCESS) handles[index] = NULL;
    return handles[index];
}

/* C = beta C + alpha op(A) op(B), row-major, as cuBLAS's column-major
 * C^T = op(B)^T op(A)^T: B's and A's storage read column-major are
 * already the transposes the row-major product needs. false when cuBLAS
 * refuses the shapes (leading dimensions it does not take, sizes past its
 * int): the CPU's GEMM takes the product then. */
static bool cu_gemm_blas(const ct__gemm_job *j, cublasHandle_t h)
{
    const int64_t most = 2147483647;
    if (j->M > most || j->N > most || j->K > most || j->a_ld > most || j->b_ld > most) return false;
    cublasOperation_t ta = j->a_trans ? CUBLAS_OP_T : CUBLAS_OP_N, tb = j->b_trans ? CUBLAS_OP_T : CUBLAS_OP_N;
    int m = (int)j->N, n = (int)j->M, k = (int)j->K, lda = (int)j->b_ld, ldb = (int)j->a_ld, ldc = (int)j->N;
    cublasStatus_t st = cublasSetStream(h, cu_stream());
    if (st != CUBLAS_STATUS_SUCCESS) return false;
    if (j->dtype == CT_F32) {
        /* float32 stays float32 unless ct_set_allow_tf32_matmul(true), as PyTorch's allow_tf32 */
        cublasMath_t math = ct_allow_tf32_matmul() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
        if (cublasSetMathMode(h, math) != CUBLAS_STATUS_SUCCESS) return false;
        float alpha = (float)j->alpha, beta = (float)j->beta;
        st = cublasSgemmStridedBatched(h, tb, ta, m, n, k, &alpha, (const float *)j->B, lda, j->b_bs,
                                       (const float *)j->A, ldb, j->a_bs, &beta, (float *)j->C, ldc, j->M * j->N,
                                       (int)j->batch);
    } else {
        st = cublasDgemmStridedBatched(h, tb, ta, m, n, k, &j->alpha, (const double *)j->B, lda, j->b_bs,
                                       (const double *)j->A, ldb, j->a_bs, &j->beta, (double *)j->C, ldc,
                                       j->M * j->N, (int)j->batch);
    }
    return st == CUBLAS_STATUS_SUCCESS;
}

/* float32 and float64 on cuBLAS; int64 and what cuBLAS refuses on the CPU's GEMM. */
static void cu_gemm(const ct__gemm_job *job)
{
    if (job->batch == 0 || job->M == 0 || job->N == 0) return;
    cu_use(job->device_index);
    cublasHandle_t h = job->dtype == CT_I64 || job->batch > 2147483647 ? NULL : cu_blas(job->device_index);
    if (h && cu_gemm_blas(job, h)) return;
    cu_finish_all();
    cu_cpu()->gemm(job);
}

/* ---------------------------------------------------------------- the CPU's kernels on managed memory */

/* The op families without a CUDA kernel yet: every device finishes its
 * queued work, then the CPU's kernel runs on the same (managed) memory. */

/* gather (index_select, embedding, ...) on one GPU as a kernel; the other
 * index kinds on the CPU. */
static void cu_index(ct__index_job *job)
{
    bool one_gpu = job->kind == CT__INDEX_GATHER && job->src->storage->device.type == CT_DEVICE_CUDA &&
                   job->index->storage->device.type == CT_DEVICE_CUDA && cu_index_of(job->src) == cu_index_of(job->dst) &&
                   cu_index_of(job->index) == cu_index_of(job->dst);
    if (one_gpu && cu_gather(job)) return;
    cu_finish_all();
    cu_cpu()->index(job);
}

static ct_result cu_sorting(ct__op op, ct__sort_job *job)
{
    cu_finish_all();
    return cu_cpu()->sorting(op, job);
}

/* the order-free reductions as kernels on one GPU (kernels.cu) */
static void cu_reduce(ct__rop op, ct_tensor *out, const ct_tensor *in, uint32_t mask, const ct__rargs *args)
{
    if (cu_fold_here(op, out, in)) {
        cu_fold(op, out, in, mask);
        return;
    }
    cu_finish_all();
    cu_cpu()->reduce->reduce(op, out, in, mask, args);
}

/* along one dim: a thread a row where the operands are on one GPU (kernels.cu) */
static ct_result cu_along(ct__aop op, ct_tensor *values, ct_tensor *indices, const ct_tensor *in, int dim)
{
    if (cu_along_here(op, values, indices, in)) return cu_along_rows(op, values, indices, in, dim);
    cu_finish_all();
    return cu_cpu()->reduce->along(op, values, indices, in, dim);
}

static void cu_range(const ct__range_job *job)
{
    cu_finish_all();
    cu_cpu()->range(job);
}

static ct_result cu_conv(const ct__conv_job *job)
{
    cu_finish_all();
    return cu_cpu()->conv(job);
}

static void cu_linmap(const ct__linmap_job *job)
{
    cu_finish_all();
    cu_cpu()->linmap(job);
}

static ct_result cu_layer_norm(const ct__layer_norm_job *job)
{
    cu_finish_all();
    return cu_cpu()->layer_norm(job);
}

/* ---------------------------------------------------------------- registration */

static const ct__reduce_kernels cu_reduce_kernels = {cu_reduce, cu_along};

static const ct_stream_kernels cu_streams = {
    cu_stream_create,  cu_stream_current, cu_stream_set_current, cu_stream_handle, cu_stream_synchronize, cu_stream_query,
    cu_event_create,   cu_event_destroy,  cu_event_record,       cu_event_wait,         cu_event_synchronize,
    cu_event_query,    cu_event_elapsed_time, cu_record_stream};

static const ct_backend cu_backend = {
    "cuda",         cu_device_count, cu_alloc,           cu_free,         cu_copy,
    cu_fill,        cu_has_pointwise, cu_pointwise,      cu_index,        cu_sorting,
    &cu_reduce_kernels, cu_gemm,     cu_range,           cu_random,       &cu_generator,
    cu_conv,        cu_linmap,       cu_optim_step,      cu_bn_stats,     cu_layer_norm,   cu_synchronize,
    cu_memory_stats, cu_reset_peak_memory_stats, cu_empty_cache, &cu_streams,
    cu_host_alloc,  cu_host_free};

/* Registered before main, as a static object's constructor runs, whether or
 * not a GPU is there (device_count then says 0). */
static struct cu_registration {
    cu_registration() { ct_register_backend(CT_DEVICE_CUDA, &cu_backend, CT_BACKEND_ABI_VERSION); }
} cu_registered;
