/* The CUDA runtime, cuBLAS and NCCL calls that ctorch_cuda.cu and
 * ctorch_dist.h's nccl backend make, served on the host for the emulated
 * build (emu.h): managed memory is host memory, copies are memcpy, every
 * stream and event is already finished, a strided batched GEMM is the
 * textbook loop in cuBLAS's column-major convention, and NCCL has one rank
 * (its collectives copy).
 * The environment sets the machine: CTORCH_CUDA_EMU_DEVICES (default 1)
 * devices, each with CTORCH_CUDA_EMU_MEMORY bytes (default 1 GiB), past
 * which an allocation fails as cudaMallocManaged does; each has an H200's
 * 132 multiprocessors of 2048 threads. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

thread_local uint3 cu_emu_thread, cu_emu_block;
thread_local dim3 cu_emu_block_dim, cu_emu_grid_dim;

static thread_local cudaError_t emu_last_error = cudaSuccess;
static thread_local int emu_device = 0;

static long long emu_env(const char *name, long long fallback)
{
    const char *v = getenv(name);
    return v && *v ? atoll(v) : fallback;
}

static int emu_device_count(void) { return (int)emu_env("CTORCH_CUDA_EMU_DEVICES", 1); }
static size_t emu_capacity(void) { return (size_t)emu_env("CTORCH_CUDA_EMU_MEMORY", 1LL << 30); }

/* An error becomes the sticky last error, as the runtime keeps it. */
static cudaError_t emu_fail(cudaError_t e)
{
    emu_last_error = e;
    return e;
}

/* Live allocations and the bytes they hold, per device. */
static std::mutex emu_lock;
static std::map<void *, std::pair<int, size_t>> emu_blocks;
static size_t emu_used[64];

extern "C" {

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = emu_device_count();
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    if (device < 0 || device >= emu_device_count()) return emu_fail(cudaErrorInvalidDevice);
    emu_device = device;
    return cudaSuccess;
}

/* An H200's shape, where the launch shape depends on it (the samplers'). */
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (device < 0 || device >= emu_device_count()) return emu_fail(cudaErrorInvalidDevice);
    switch (attr) {
    case cudaDevAttrMultiProcessorCount: *value = 132; return cudaSuccess;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = 2048; return cudaSuccess;
    default: return emu_fail(cudaErrorInvalidValue);
    }
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = emu_last_error;
    emu_last_error = cudaSuccess;
    return e;
}

const char *cudaGetErrorString(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    default: return "unknown error";
    }
}

cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int)
{
    std::lock_guard<std::mutex> hold(emu_lock);
    if (emu_used[emu_device] + size > emu_capacity()) return emu_fail(cudaErrorMemoryAllocation);
    void *p = aligned_alloc(256, (size + 255) / 256 * 256);
    if (!p) return emu_fail(cudaErrorMemoryAllocation);
    emu_blocks[p] = std::make_pair(emu_device, size);
    emu_used[emu_device] += size;
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaFree(void *ptr)
{
    std::lock_guard<std::mutex> hold(emu_lock);
    auto it = emu_blocks.find(ptr);
    if (it == emu_blocks.end()) return ptr ? emu_fail(cudaErrorInvalidValue) : cudaSuccess;
    emu_used[it->second.first] -= it->second.second;
    emu_blocks.erase(it);
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    std::lock_guard<std::mutex> hold(emu_lock);
    *total = emu_capacity();
    *free_bytes = *total - emu_used[emu_device];
    return cudaSuccess;
}

cudaError_t cudaMemAdvise(const void *, size_t, enum cudaMemoryAdvise, struct cudaMemLocation) { return cudaSuccess; }

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind)
{
    memmove(dst, src, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t)
{
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemsetAsync(void *dst, int value, size_t count, cudaStream_t)
{
    memset(dst, value, count);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }

/* Memory from cudaMallocManaged is managed memory of its device; any other
 * address is host memory the runtime does not know. */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *ptr)
{
    std::lock_guard<std::mutex> hold(emu_lock);
    memset(a, 0, sizeof *a);
    a->type = cudaMemoryTypeUnregistered;
    a->device = -2;
    auto it = emu_blocks.upper_bound((void *)ptr);
    if (it != emu_blocks.begin()) {
        --it;
        const char *start = (const char *)it->first;
        if ((const char *)ptr < start + it->second.second) a->type = cudaMemoryTypeManaged, a->device = it->second.first;
    }
    return cudaSuccess;
}

/* Streams and events are tokens: the work before them is always done. */
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int)
{
    *stream = (cudaStream_t) new char;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    delete (char *)stream;
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int)
{
    *event = (cudaEvent_t) new char;
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    delete (char *)event;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return cudaSuccess; }

/* A handle is its math mode. */
cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    *handle = (cublasHandle_t) new cublasMath_t(CUBLAS_DEFAULT_MATH);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    *(cublasMath_t *)handle = mode;
    return CUBLAS_STATUS_SUCCESS;
}

} /* extern "C" */

/* C = alpha op(A) op(B) + beta C for each item of the batch, column-major:
 * element (i, j) of an m-by-n matrix with leading dimension ld at i + j ld. */
/* What a TF32 tensor core reads of a float32: its mantissa rounded to 10
 * bits, to nearest, ties away from zero (cvt.rna.tf32.f32). */
static float emu_tf32(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & ~0x1fffu; /* not inf or NaN */
    memcpy(&v, &u, sizeof v);
    return v;
}
static double emu_tf32(double v) { return v; } /* float64 never rounds */

template <typename T>
static cublasStatus_t emu_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                               T alpha, const T *A, int lda, long long sa, const T *B, int ldb, long long sb, T beta,
                               T *C, int ldc, long long sc, int batch)
{
    bool tf32 = *(cublasMath_t *)h == CUBLAS_TF32_TENSOR_OP_MATH;
    for (int b = 0; b < batch; b++, A += sa, B += sb, C += sc)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                T acc = 0;
                for (int p = 0; p < k; p++) {
                    T a = ta == CUBLAS_OP_N ? A[i + (long long)p * lda] : A[p + (long long)i * lda];
                    T x = tb == CUBLAS_OP_N ? B[p + (long long)j * ldb] : B[j + (long long)p * ldb];
                    acc += tf32 ? emu_tf32(a) * emu_tf32(x) : a * x;
                }
                T *c = &C[i + (long long)j * ldc];
                *c = beta == 0 ? alpha * acc : alpha * acc + beta * *c; /* beta 0 ignores C, as cuBLAS does */
            }
    return CUBLAS_STATUS_SUCCESS;
}

extern "C" {

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const float *alpha, const float *A, int lda, long long sa,
                                         const float *B, int ldb, long long sb, const float *beta, float *C, int ldc,
                                         long long sc, int batch)
{
    return emu_gemm<float>(h, ta, tb, m, n, k, *alpha, A, lda, sa, B, ldb, sb, *beta, C, ldc, sc, batch);
}

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const double *alpha, const double *A, int lda, long long sa,
                                         const double *B, int ldb, long long sb, const double *beta, double *C,
                                         int ldc, long long sc, int batch)
{
    return emu_gemm<double>(h, ta, tb, m, n, k, *alpha, A, lda, sa, B, ldb, sb, *beta, C, ldc, sc, batch);
}

} /* extern "C" */

/* ---------------------------------------------------------------- NCCL, one rank */

struct ncclComm {
    int nranks;
};

static size_t emu_nccl_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8:
    case ncclUint8: return 1;
    case ncclFloat16:
    case ncclBfloat16: return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32: return 4;
    default: return 8;
    }
}

/* A collective of one rank: what it receives is what it sent. */
static ncclResult_t emu_nccl_copy(const void *send, void *recv, size_t count, ncclDataType_t t)
{
    memmove(recv, send, count * emu_nccl_size(t));
    return ncclSuccess;
}

extern "C" {

ncclResult_t ncclGetVersion(int *version)
{
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result) { return result == ncclSuccess ? "no error" : "invalid usage"; }

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    memset(id, 7, sizeof *id);
    return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId, int rank)
{
    if (nranks != 1 || rank != 0) return ncclInvalidUsage; /* the emulation has one rank */
    *comm = new ncclComm{nranks};
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    delete comm;
    return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t t, ncclRedOp_t, ncclComm_t,
                           cudaStream_t)
{
    return emu_nccl_copy(send, recv, count, t);
}

ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, ncclDataType_t t, int, ncclComm_t, cudaStream_t)
{
    return emu_nccl_copy(send, recv, count, t);
}

ncclResult_t ncclReduce(const void *send, void *recv, size_t count, ncclDataType_t t, ncclRedOp_t, int, ncclComm_t,
                        cudaStream_t)
{
    return emu_nccl_copy(send, recv, count, t);
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count, ncclDataType_t t, ncclComm_t, cudaStream_t)
{
    return emu_nccl_copy(send, recv, count, t);
}

ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t count, ncclDataType_t t, ncclRedOp_t, ncclComm_t,
                               cudaStream_t)
{
    return emu_nccl_copy(send, recv, count, t);
}

/* One rank has no peer to send to or receive from. */
ncclResult_t ncclSend(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) { return ncclInvalidUsage; }
ncclResult_t ncclRecv(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) { return ncclInvalidUsage; }
ncclResult_t ncclGroupStart(void) { return ncclSuccess; }
ncclResult_t ncclGroupEnd(void) { return ncclSuccess; }

} /* extern "C" */
