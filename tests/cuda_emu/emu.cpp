/* The CUDA runtime, cuBLAS and NCCL calls that ctorch_cuda.cu and
 * ctorch_dist.h's nccl backend make, served on the host for the emulated
 * build (emu.h): managed memory is host memory, copies are memcpy, a
 * strided batched GEMM is the textbook loop in cuBLAS's column-major
 * convention, and NCCL has one rank (its collectives copy).
 *
 * Work queues on its stream as on a GPU and runs only when the host waits
 * for it: a stream, event or device synchronize, a copy that touches host
 * memory (after its stream's earlier work), cudaMemcpy (after the default
 * stream's), cudaFree (after everything), or a query the host repeats in a
 * polling loop (emu_host_is_polling). Streams other than a device's
 * default one are non-blocking, as ctorch makes them, so nothing orders
 * two streams but events: a program that reads another stream's result
 * without waiting for it reads what was there before, every time, which is
 * the race a GPU shows only sometimes.
 * The environment sets the machine: CTORCH_CUDA_EMU_DEVICES (default 1)
 * devices, each with CTORCH_CUDA_EMU_MEMORY bytes (default 1 GiB), past
 * which an allocation fails as cudaMallocManaged does; each has an H200's
 * 132 multiprocessors of 2048 threads. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>

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
typedef std::map<void *, std::pair<int, size_t>> emu_block_map; /* start -> (device, bytes) */
static emu_block_map emu_blocks;                                  /* managed memory */
static emu_block_map emu_pinned;                                  /* cudaHostAlloc's, device -1 */
static size_t emu_used[64];

/* The block of `blocks` that holds p, or end(). Lock held. */
static emu_block_map::const_iterator emu_find(const emu_block_map &blocks, const void *p)
{
    auto it = blocks.upper_bound((void *)p);
    if (it == blocks.begin()) return blocks.end();
    --it;
    return (const char *)p < (const char *)it->first + it->second.second ? it : blocks.end();
}

/* Whether p is pageable host memory: neither managed nor pinned. */
static bool emu_is_pageable(const void *p)
{
    std::lock_guard<std::mutex> hold(emu_lock);
    return emu_find(emu_blocks, p) == emu_blocks.end() && emu_find(emu_pinned, p) == emu_pinned.end();
}

/* ---------------------------------------------------------------- streams and events */

struct emu_stream;

/* An event's records: the latest made (recorded) and the latest passed,
 * with the time it passed, on the stream of the latest record. */
struct emu_event {
    unsigned flags;
    uint64_t recorded, passed;
    emu_stream *stream;
    double at_ms;
};
typedef std::shared_ptr<emu_event> emu_event_ref; /* queued work keeps the events it names */

/* A stream's work item: run(), or (run empty) a wait until record `mark`
 * of event has passed on `on`. */
struct emu_work {
    std::function<void()> run;
    emu_event_ref event;
    uint64_t mark;
    emu_stream *on;
};

struct emu_stream {
    int device;
    std::list<emu_work> work; /* (a list: drained, it holds no memory) */
};

static std::recursive_mutex emu_queue_lock; /* work runs under it, and may queue more */
static std::set<emu_stream *> emu_streams;   /* every device's default stream and the ones made */
static emu_stream *emu_defaults[64];

static double emu_now_ms(void)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* The stream behind a handle: NULL is the current device's default one. */
static emu_stream *emu_stream_of(cudaStream_t stream)
{
    std::lock_guard<std::recursive_mutex> hold(emu_queue_lock);
    if (stream) return (emu_stream *)stream;
    emu_stream *&s = emu_defaults[emu_device];
    if (!s) emu_streams.insert(s = new emu_stream{emu_device, {}});
    return s;
}

/* A GPU finishes work while the host polls for it; the emulation runs the
 * work a query asks about once the host has asked EMU_POLLS times in a row
 * with nothing queued in between (a polling loop), and never for a query
 * made once or twice, which so sees the work still pending. */
#define EMU_POLLS 8
static const void *emu_polled;
static int emu_polls;

static bool emu_host_is_polling(const void *what)
{
    if (what != emu_polled) emu_polled = what, emu_polls = 0;
    return ++emu_polls >= EMU_POLLS;
}

static void emu_push(emu_stream *s, emu_work w)
{
    std::lock_guard<std::recursive_mutex> hold(emu_queue_lock);
    s->work.push_back(std::move(w));
    emu_polled = NULL;
}

static void emu_queue(emu_stream *s, std::function<void()> run) { emu_push(s, emu_work{std::move(run), NULL, 0, NULL}); }

/* A kernel launch of the emulated ctorch_cuda.cu (emu.h's CU_LAUNCH). */
void cu_emu_enqueue(cudaStream_t stream, std::function<void()> work) { emu_queue(emu_stream_of(stream), std::move(work)); }

static void emu_wait_for(const emu_event_ref &e, uint64_t mark, emu_stream *on);

/* The first work item of s, done and dropped; true if there was one. */
static bool emu_run_front(emu_stream *s)
{
    std::lock_guard<std::recursive_mutex> hold(emu_queue_lock);
    if (s->work.empty()) return false;
    emu_work w = s->work.front();
    s->work.pop_front();
    if (w.event) emu_wait_for(w.event, w.mark, w.on);
    else w.run();
    return true;
}

static void emu_drain(emu_stream *s)
{
    while (emu_run_front(s)) {
    }
}

/* Run the work of stream `on` until record `mark` of e has passed. */
static void emu_wait_for(const emu_event_ref &e, uint64_t mark, emu_stream *on)
{
    std::lock_guard<std::recursive_mutex> hold(emu_queue_lock);
    while (e->passed < mark && emu_run_front(on)) {
    }
}

/* Every stream of device d, until none has work. */
static void emu_drain_device(int d)
{
    std::lock_guard<std::recursive_mutex> hold(emu_queue_lock);
    for (bool ran = true; ran;) {
        ran = false;
        for (emu_stream *s : emu_streams)
            if (s->device == d) ran = emu_run_front(s) || ran;
    }
}

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
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
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

/* As CUDA's, it waits for all work first. */
cudaError_t cudaFree(void *ptr)
{
    for (int d = 0; d < emu_device_count(); d++) emu_drain_device(d);
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
    emu_drain(emu_stream_of(NULL));
    memmove(dst, src, count);
    return cudaSuccess;
}

/* A copy that touches pageable host memory waits for its stream's earlier
 * work and is done when it returns; between device and pinned memory it queues. */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind, cudaStream_t stream)
{
    emu_stream *s = emu_stream_of(stream);
    if (emu_is_pageable(dst) || emu_is_pageable(src)) {
        emu_drain(s);
        memmove(dst, src, count);
    } else {
        emu_queue(s, [=] { memmove(dst, src, count); });
    }
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *dst, int value, size_t count, cudaStream_t stream)
{
    emu_queue(emu_stream_of(stream), [=] { memset(dst, value, count); });
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    emu_drain(emu_stream_of(stream));
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    emu_drain_device(emu_device);
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    std::lock_guard<std::recursive_mutex> hold(emu_queue_lock);
    emu_stream *s = emu_stream_of(stream);
    if (!s->work.empty() && emu_host_is_polling(s)) emu_drain(s);
    return s->work.empty() ? cudaSuccess : cudaErrorNotReady;
}

/* Memory from cudaMallocManaged is managed memory of its device, from
 * cudaHostAlloc pinned host memory; any other address is host memory the
 * runtime does not know. */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *ptr)
{
    std::lock_guard<std::mutex> hold(emu_lock);
    memset(a, 0, sizeof *a);
    a->type = cudaMemoryTypeUnregistered;
    a->device = -2;
    auto managed = emu_find(emu_blocks, ptr);
    if (managed != emu_blocks.end()) a->type = cudaMemoryTypeManaged, a->device = managed->second.first;
    if (emu_find(emu_pinned, ptr) != emu_pinned.end()) a->type = cudaMemoryTypeHost;
    return cudaSuccess;
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int)
{
    void *p = malloc(size ? size : 1);
    if (!p) return emu_fail(cudaErrorMemoryAllocation);
    std::lock_guard<std::mutex> hold(emu_lock);
    emu_pinned[p] = std::make_pair(-1, size);
    *ptr = p;
    return cudaSuccess;
}

/* As CUDA's, it waits for all work first. */
cudaError_t cudaFreeHost(void *ptr)
{
    for (int d = 0; d < emu_device_count(); d++) emu_drain_device(d);
    std::lock_guard<std::mutex> hold(emu_lock);
    if (!emu_pinned.erase(ptr)) return emu_fail(cudaErrorInvalidValue);
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    *least = 0, *greatest = -5; /* an H200's */
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int, int)
{
    std::lock_guard<std::recursive_mutex> hold(emu_queue_lock);
    emu_stream *s = new emu_stream{emu_device, {}};
    emu_streams.insert(s);
    *stream = (cudaStream_t)s;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(stream, flags, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    emu_stream *s = (emu_stream *)stream;
    emu_drain(s); /* its work still runs, as CUDA lets it */
    std::lock_guard<std::recursive_mutex> hold(emu_queue_lock);
    emu_streams.erase(s);
    delete s;
    return cudaSuccess;
}

/* A handle is a reference to the event, which queued work may share. */
static const emu_event_ref &emu_event_of(cudaEvent_t event) { return *(emu_event_ref *)event; }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    *event = (cudaEvent_t) new emu_event_ref(new emu_event{flags, 0, 0, NULL, 0});
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    delete (emu_event_ref *)event;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    std::lock_guard<std::recursive_mutex> hold(emu_queue_lock);
    emu_event_ref e = emu_event_of(event);
    emu_stream *s = emu_stream_of(stream);
    uint64_t mark = ++e->recorded;
    e->stream = s;
    emu_queue(s, [e, mark] { e->passed = mark, e->at_ms = emu_now_ms(); });
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    std::lock_guard<std::recursive_mutex> hold(emu_queue_lock);
    const emu_event_ref &e = emu_event_of(event);
    if (e->passed != e->recorded && emu_host_is_polling(e.get())) emu_wait_for(e, e->recorded, e->stream);
    return e->passed == e->recorded ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    const emu_event_ref &e = emu_event_of(event);
    if (e->recorded) emu_wait_for(e, e->recorded, e->stream);
    return cudaSuccess;
}

/* Work queued on stream from now on waits for the event's latest record. */
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int)
{
    std::lock_guard<std::recursive_mutex> hold(emu_queue_lock);
    const emu_event_ref &e = emu_event_of(event);
    if (e->passed != e->recorded) emu_push(emu_stream_of(stream), emu_work{{}, e, e->recorded, e->stream});
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    emu_event *a = emu_event_of(start).get(), *b = emu_event_of(end).get();
    if ((a->flags | b->flags) & cudaEventDisableTiming) return emu_fail(cudaErrorInvalidResourceHandle);
    if (!a->recorded || !b->recorded) return emu_fail(cudaErrorInvalidResourceHandle);
    if (a->passed != a->recorded || b->passed != b->recorded) return emu_fail(cudaErrorNotReady);
    *ms = (float)(b->at_ms - a->at_ms);
    return cudaSuccess;
}

/* A handle is its math mode and stream. */
struct emu_blas {
    cublasMath_t mode;
    cudaStream_t stream;
};

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    *handle = (cublasHandle_t) new emu_blas{CUBLAS_DEFAULT_MATH, NULL};
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    ((emu_blas *)handle)->mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    ((emu_blas *)handle)->stream = stream;
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
static void emu_gemm_now(bool tf32, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, T alpha,
                         const T *A, int lda, long long sa, const T *B, int ldb, long long sb, T beta, T *C, int ldc,
                         long long sc, int batch)
{
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
}

/* The product queued on the handle's stream, in the handle's math mode now. */
template <typename T>
static cublasStatus_t emu_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                               T alpha, const T *A, int lda, long long sa, const T *B, int ldb, long long sb, T beta,
                               T *C, int ldc, long long sc, int batch)
{
    const emu_blas *blas = (const emu_blas *)h;
    bool tf32 = blas->mode == CUBLAS_TF32_TENSOR_OP_MATH;
    emu_queue(emu_stream_of(blas->stream),
              [=] { emu_gemm_now(tf32, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch); });
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

/* A collective of one rank, queued on its stream: what it receives is what it sent. */
static ncclResult_t emu_nccl_copy(const void *send, void *recv, size_t count, ncclDataType_t t, cudaStream_t stream)
{
    size_t bytes = count * emu_nccl_size(t);
    emu_queue(emu_stream_of(stream), [=] { memmove(recv, send, bytes); });
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
                           cudaStream_t stream)
{
    return emu_nccl_copy(send, recv, count, t, stream);
}

ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, ncclDataType_t t, int, ncclComm_t, cudaStream_t stream)
{
    return emu_nccl_copy(send, recv, count, t, stream);
}

ncclResult_t ncclReduce(const void *send, void *recv, size_t count, ncclDataType_t t, ncclRedOp_t, int, ncclComm_t,
                        cudaStream_t stream)
{
    return emu_nccl_copy(send, recv, count, t, stream);
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count, ncclDataType_t t, ncclComm_t, cudaStream_t stream)
{
    return emu_nccl_copy(send, recv, count, t, stream);
}

ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t count, ncclDataType_t t, ncclRedOp_t, ncclComm_t,
                               cudaStream_t stream)
{
    return emu_nccl_copy(send, recv, count, t, stream);
}

/* One rank has no peer to send to or receive from. */
ncclResult_t ncclSend(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) { return ncclInvalidUsage; }
ncclResult_t ncclRecv(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) { return ncclInvalidUsage; }
ncclResult_t ncclGroupStart(void) { return ncclSuccess; }
ncclResult_t ncclGroupEnd(void) { return ncclSuccess; }

} /* extern "C" */
