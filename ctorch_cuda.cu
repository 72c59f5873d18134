/* ctorch_cuda.cu: ctorch's CUDA backend, generated from src/cuda/ by
 * `make amalgamate`. It registers the "cuda" device with ctorch.h's backend
 * table at start-up, so a program that includes ctorch.h as always gets
 * tensors on NVIDIA GPUs by linking it in:
 *
 *     nvcc -O2 -std=c++17 -arch=sm_90 -I. -c ctorch_cuda.cu -o ctorch_cuda.o
 *     cc -O2 app.c ctorch_cuda.o -o app -lcudart -lcublas -lm
 *
 * (app.c defines CTORCH_IMPLEMENTATION before including ctorch.h, in one
 * file of the program, as ever.) Without a GPU at run time
 * ct_cuda_is_available() is false and CPU programs run unchanged;
 * CUDA_VISIBLE_DEVICES is honoured, as the CUDA runtime reads it.
 *
 * What runs where, for now: memory comes from PyTorch's caching allocator
 * (its pools, segments, splitting and statistics; empty_cache) over CUDA's
 * managed memory. Pointwise ops (dense, strided or broadcast operands),
 * fill, copies (any layout and dtype conversion on one GPU; dense between
 * host and device), gather (gather, index_select, embedding), matrix
 * products (cuBLAS, float32 and float64), the fused SGD and Adam steps, and
 * the uniform and normal samplers (Philox, PyTorch's seed and offset state,
 * launch shape and element order: a seed gives PyTorch's CUDA numbers) run
 * as CUDA kernels. Every other op family (reductions, sorting, the other
 * indexing, convolution and pooling, strided or converting copies between
 * the host and a GPU) runs the CPU's kernel on the same managed memory
 * after the device has finished its queued work: correct, and as slow as a
 * round trip; each is to move to
 * a kernel of its own. Work queues on the calling thread's current stream
 * (PyTorch's stream pools, events and record_stream: ct_stream, ct_event). */

#define CTORCH_BACKEND
#include "ctorch.h"

/* ==================== cuda/runtime.cu ==================== */
// >>cuda/runtime.cu
/* The CUDA runtime as the backend uses it: errors in PyTorch's words, the
 * devices this process sees, and the thread's current device. (The
 * amalgamation puts ctorch.h, with CTORCH_BACKEND, before this file.) */

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <map>
#include <mutex>

#define CU_MAX_DEVICES 64
#define CU_THREADS 256 /* threads per block of the element-wise kernels */

/* Whether e is success; otherwise the error set ("CUDA error: ..."), the
 * runtime's sticky last error cleared. */
static bool cu_ok(cudaError_t e)
{
    if (e == cudaSuccess) return true;
    cudaGetLastError();
    char msg[256];
    snprintf(msg, sizeof msg, "CUDA error: %s", cudaGetErrorString(e));
    ct_set_error(CT_ERR_RUNTIME, msg);
    return false;
}

/* The devices CUDA shows this process (CUDA_VISIBLE_DEVICES applied), 0
 * without a driver or a GPU; asked once. */
static int cu_device_count(void)
{
    static int count = -1;
    static std::once_flag once;
    std::call_once(once, [] {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            cudaGetLastError();
            n = 0;
        }
        count = n < CU_MAX_DEVICES ? n : CU_MAX_DEVICES;
    });
    return count;
}

/* The calling thread's current device, as CUDA's runtime has it (0 until set). */
static thread_local int cu_current_device = 0;

/* Make device index the calling thread's current one (kernels and
 * allocations go to the current device). */
static void cu_use(int index)
{
    if (cu_current_device != index && cu_ok(cudaSetDevice(index))) cu_current_device = index;
}

/* The calling thread's current stream on its current device (stream.cu). */
static cudaStream_t cu_stream(void);

/* A kernel launch, nvcc's kernel<<<blocks, threads, 0, stream>>>(...) on
 * the current stream. A build may define it first: the tests' host
 * emulation (tests/cuda_emu) runs the kernels on the CPU. */
#ifndef CU_LAUNCH
#define CU_LAUNCH(kernel, blocks, threads, ...) kernel<<<blocks, threads, 0, cu_stream()>>>(__VA_ARGS__)
#endif

/* Blocks for n elements, CU_THREADS each, capped: the kernels stride over the rest. */
static unsigned cu_blocks(int64_t n)
{
    int64_t b = (n + CU_THREADS - 1) / CU_THREADS;
    return (unsigned)(b < 1 ? 1 : b > 65535 * 8 ? 65535 * 8 : b);
}

/* Wait for everything queued on device index: the host may then touch its
 * managed memory (the CPU kernels that serve the op families without a
 * kernel here). */
static void cu_synchronize(int index)
{
    cu_use(index);
    cu_ok(cudaDeviceSynchronize());
}

/* Wait for every device: the CPU's kernels, which serve the op families
 * without a kernel here, may then read and write managed memory. */
static void cu_finish_all(void)
{
    for (int i = 0; i < cu_device_count(); i++) cu_synchronize(i);
}

/* The CPU's backend, whose kernels run on managed memory after a synchronize. */
static const ct_backend *cu_cpu(void) { return ct_backend_get(CT_DEVICE_CPU); }

/* The device of a job's output tensor. */
static int cu_index_of(const ct_tensor *t) { return t->storage->device.index < 0 ? 0 : t->storage->device.index; }

/* ==================== cuda/stream.cu ==================== */
// >>cuda/stream.cu
/* Streams and events (ct_stream, ct_event) as PyTorch 1.13's CUDA streams:
 * each device has its legacy default stream (id 0) and two pools of 32
 * non-blocking streams, low and high priority, made on first use and handed
 * out round robin (ids 1 to 32 low, 33 to 64 high). Each thread has a
 * current stream per device, where the backend queues its kernels, copies
 * and cuBLAS calls. Pool streams do not wait for the default stream: work
 * that crosses streams waits through events (ct_stream_wait_stream). */

#include <atomic>

#define CU_POOL_STREAMS 32 /* kStreamsPerPool */

typedef struct cu_stream_pool {
    std::once_flag made;
    bool ok;
    cudaStream_t low[CU_POOL_STREAMS], high[CU_POOL_STREAMS];
    std::atomic<unsigned> next_low, next_high;
} cu_stream_pool;

static cu_stream_pool cu_pools[CU_MAX_DEVICES];
static thread_local int64_t cu_current_ids[CU_MAX_DEVICES]; /* 0: the default stream */

/* Device index's pools, made on first use; false (the error set) when CUDA
 * could not make them. */
static bool cu_pool_ready(int index)
{
    cu_stream_pool *p = &cu_pools[index];
    std::call_once(p->made, [&] {
        int lowest = 0, highest = 0;
        cu_use(index);
        p->ok = cu_ok(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
        for (int i = 0; i < CU_POOL_STREAMS && p->ok; i++)
            p->ok = cu_ok(cudaStreamCreateWithPriority(&p->low[i], cudaStreamNonBlocking, lowest)) &&
                    cu_ok(cudaStreamCreateWithPriority(&p->high[i], cudaStreamNonBlocking, highest));
    });
    if (!p->ok) ct_set_error(CT_ERR_RUNTIME, "CUDA error: the stream pool of this device could not be made");
    return p->ok;
}

static bool cu_stream_id_valid(int64_t id) { return id >= 0 && id <= 2 * CU_POOL_STREAMS; }

/* The CUDA stream of id on device index (NULL: the legacy default stream).
 * id is valid and, when not 0, from the device's pools. */
static cudaStream_t cu_stream_of(int index, int64_t id)
{
    if (id == 0) return NULL;
    cu_stream_pool *p = &cu_pools[index];
    return id <= CU_POOL_STREAMS ? p->low[id - 1] : p->high[id - 1 - CU_POOL_STREAMS];
}

/* The calling thread's current stream on its current device: where kernels queue. */
static cudaStream_t cu_stream(void) { return cu_stream_of(cu_current_device, cu_current_ids[cu_current_device]); }

static ct_result cu_check_stream(int index, int64_t id)
{
    if (!cu_stream_id_valid(id) || (id != 0 && !cu_pool_ready(index)))
        return ct_set_error(CT_ERR_RUNTIME, "CUDA error: invalid resource handle");
    return CT_OK;
}

static ct_result cu_stream_create(int index, int priority, int64_t *id)
{
    if (!cu_pool_ready(index)) return CT_ERR_RUNTIME;
    cu_stream_pool *p = &cu_pools[index];
    bool high = priority < 0;
    unsigned k = (high ? p->next_high : p->next_low).fetch_add(1) % CU_POOL_STREAMS;
    *id = 1 + (int64_t)k + (high ? CU_POOL_STREAMS : 0);
    return CT_OK;
}

static int64_t cu_stream_current(int index) { return cu_current_ids[index]; }

static ct_result cu_stream_set_current(int index, int64_t id)
{
    ct_result r = cu_check_stream(index, id);
    if (r == CT_OK) cu_current_ids[index] = id;
    return r;
}

static ct_result cu_stream_handle(int index, int64_t id, void **out)
{
    ct_result r = cu_check_stream(index, id);
    if (r == CT_OK) *out = (void *)cu_stream_of(index, id);
    return r;
}

static ct_result cu_stream_synchronize(int index, int64_t id)
{
    ct_result r = cu_check_stream(index, id);
    if (r != CT_OK) return r;
    cu_use(index);
    return cu_ok(cudaStreamSynchronize(cu_stream_of(index, id))) ? CT_OK : CT_ERR_RUNTIME;
}

/* cudaSuccess: true; cudaErrorNotReady: false; anything else the error. */
static ct_result cu_ready(cudaError_t e, bool *done)
{
    *done = e == cudaSuccess;
    if (e == cudaErrorNotReady) {
        cudaGetLastError();
        return CT_OK;
    }
    return cu_ok(e) ? CT_OK : CT_ERR_RUNTIME;
}

static ct_result cu_stream_query(int index, int64_t id, bool *done)
{
    ct_result r = cu_check_stream(index, id);
    if (r != CT_OK) return r;
    cu_use(index);
    return cu_ready(cudaStreamQuery(cu_stream_of(index, id)), done);
}

static ct_result cu_event_create(int index, bool timing, bool blocking, void **event)
{
    unsigned flags = (timing ? 0 : cudaEventDisableTiming) | (blocking ? cudaEventBlockingSync : 0);
    cu_use(index);
    return cu_ok(cudaEventCreateWithFlags((cudaEvent_t *)event, flags)) ? CT_OK : CT_ERR_RUNTIME;
}

static void cu_event_destroy(int index, void *event)
{
    cu_use(index);
    cu_ok(cudaEventDestroy((cudaEvent_t)event));
}

static ct_result cu_event_record(void *event, int index, int64_t id)
{
    ct_result r = cu_check_stream(index, id);
    if (r != CT_OK) return r;
    cu_use(index);
    return cu_ok(cudaEventRecord((cudaEvent_t)event, cu_stream_of(index, id))) ? CT_OK : CT_ERR_RUNTIME;
}

static ct_result cu_event_wait(void *event, int index, int64_t id)
{
    ct_result r = cu_check_stream(index, id);
    if (r != CT_OK) return r;
    cu_use(index);
    return cu_ok(cudaStreamWaitEvent(cu_stream_of(index, id), (cudaEvent_t)event, 0)) ? CT_OK : CT_ERR_RUNTIME;
}

static ct_result cu_event_synchronize(void *event)
{
    return cu_ok(cudaEventSynchronize((cudaEvent_t)event)) ? CT_OK : CT_ERR_RUNTIME;
}

static ct_result cu_event_query(void *event, bool *done) { return cu_ready(cudaEventQuery((cudaEvent_t)event), done); }

static ct_result cu_event_elapsed_time(void *start, void *end, float *ms)
{
    return cu_ok(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end)) ? CT_OK : CT_ERR_RUNTIME;
}

/* ==================== cuda/alloc.cu ==================== */
// >>cuda/alloc.cu
/* The caching allocator: PyTorch 1.13's CUDACachingAllocator.
 * Sizes are rounded up to 512 bytes. Requests of at most 1 MiB come from
 * the small pool, carved out of 2 MiB segments; larger ones from the large
 * pool, out of a 20 MiB segment below 10 MiB, else a segment of the request
 * rounded up to 2 MiB. A request takes the smallest cached block that fits,
 * split when the rest is worth keeping (512 bytes in the small pool, over
 * 1 MiB in the large one); a freed block merges with the free blocks beside
 * it in its segment. When CUDA cannot give a segment, the cache's whole free
 * segments go back and the request is tried once more, then fails with
 * PyTorch's out-of-memory words. The statistics count blocks and segments
 * as PyTorch's do, so memory_allocated and memory_reserved agree with it.
 *
 * Segments are CUDA managed memory, preferring the device, so that the CPU
 * kernels serving the op families without a CUDA kernel can read and write
 * them after a synchronize.
 *
 * Each segment belongs to the stream that was current when it was made, and
 * its blocks go only to requests on that stream: work on one stream runs in
 * order, so a block freed there is safe for the stream's next op. A block
 * also used on other streams (record_stream) is held back when freed until
 * an event recorded on each of those streams has passed. */

#include <deque>
#include <set>
#include <unordered_map>

#define CU_MIN_BLOCK 512                       /* kMinBlockSize */
#define CU_SMALL_SIZE ((size_t)1 << 20)        /* kSmallSize: the small pool's largest request */
#define CU_SMALL_SEGMENT ((size_t)2 << 20)     /* kSmallBuffer */
#define CU_LARGE_SEGMENT ((size_t)20 << 20)    /* kLargeBuffer */
#define CU_MIN_LARGE_ALLOC ((size_t)10 << 20)  /* kMinLargeAlloc */
#define CU_ROUND_LARGE ((size_t)2 << 20)       /* kRoundLarge */

/* A stream of some device: (device, stream id). */
typedef std::pair<int, int64_t> cu_stream_key;

/* A block: all or part of a segment, linked to its neighbours in it. */
typedef struct cu_block {
    char *ptr;
    size_t size;
    bool allocated, small;
    struct cu_block *prev, *next;
    int64_t stream;                 /* its segment's stream, on the segment's device */
    std::set<cu_stream_key> uses;   /* other streams it is used on (record_stream) */
    int events;                     /* events to pass before a freed block is free */
} cu_block;

/* Free blocks by stream, then smallest first, then by address (PyTorch's BlockComparator). */
struct cu_block_order {
    bool operator()(const cu_block *a, const cu_block *b) const
    {
        if (a->stream != b->stream) return a->stream < b->stream;
        return a->size != b->size ? a->size < b->size : a->ptr < b->ptr;
    }
};
typedef std::set<cu_block *, cu_block_order> cu_free_pool;

typedef struct cu_device_cache {
    cu_free_pool small, large;
    std::unordered_map<void *, cu_block *> live;             /* allocated blocks, by address */
    std::deque<std::pair<cudaEvent_t, cu_block *>> pending; /* freed blocks' events on other streams */
    ct_memory_counters stats;
} cu_device_cache;

static cu_device_cache cu_caches[CU_MAX_DEVICES];
static std::mutex cu_caches_lock;

static size_t cu_rounded(size_t nbytes)
{
    return nbytes < CU_MIN_BLOCK ? CU_MIN_BLOCK : (nbytes + CU_MIN_BLOCK - 1) / CU_MIN_BLOCK * CU_MIN_BLOCK;
}

/* The segment a request of `size` (rounded) makes when no cached block fits. */
static size_t cu_segment_size(size_t size)
{
    if (size <= CU_SMALL_SIZE) return CU_SMALL_SEGMENT;
    if (size < CU_MIN_LARGE_ALLOC) return CU_LARGE_SEGMENT;
    return (size + CU_ROUND_LARGE - 1) / CU_ROUND_LARGE * CU_ROUND_LARGE;
}

static cu_free_pool *cu_pool_of(cu_device_cache *c, bool small) { return small ? &c->small : &c->large; }

static void cu_note_reserved(ct_memory_counters *s, int64_t bytes)
{
    s->reserved_bytes += bytes;
    if (s->reserved_bytes > s->peak_reserved_bytes) s->peak_reserved_bytes = s->reserved_bytes;
}

/* The smallest free block of stream's in the pool that holds size bytes,
 * out of the pool; NULL if none. */
static cu_block *cu_take_fitting(cu_free_pool *pool, int64_t stream, size_t size)
{
    cu_block key = {NULL, size, false, false, NULL, NULL, stream, {}, 0};
    auto it = pool->lower_bound(&key);
    if (it == pool->end() || (*it)->stream != stream) return NULL;
    cu_block *b = *it;
    pool->erase(it);
    return b;
}

static void cu_return_block(cu_device_cache *c, cu_block *b);

/* The held-back blocks whose events have passed become free (all of them,
 * waiting for the events, when `wait`). Lock held. */
static void cu_process_events(cu_device_cache *c, bool wait)
{
    for (auto it = c->pending.begin(); it != c->pending.end();) {
        cudaError_t e = wait ? cudaEventSynchronize(it->first) : cudaEventQuery(it->first);
        if (e == cudaErrorNotReady) {
            cudaGetLastError();
            ++it;
            continue;
        }
        cu_ok(e); /* a failed event counts as passed: the device has failed anyway */
        cudaEventDestroy(it->first);
        cu_block *b = it->second;
        it = c->pending.erase(it);
        if (--b->events == 0) cu_return_block(c, b);
    }
}

/* The free segments (blocks that are a whole segment) of device index go
 * back to CUDA, after the held-back blocks' events. Lock held. */
static void cu_release_free_segments(int index)
{
    cu_device_cache *c = &cu_caches[index];
    cu_use(index);
    cu_process_events(c, true);
    for (cu_free_pool *pool : {&c->small, &c->large})
        for (auto it = pool->begin(); it != pool->end();) {
            cu_block *b = *it;
            if (b->prev || b->next) {
                ++it;
                continue;
            }
            cu_ok(cudaFree(b->ptr));
            c->stats.reserved_bytes -= (int64_t)b->size;
            it = pool->erase(it);
            delete b;
        }
}

/* torch.cuda.empty_cache() */
static void cu_empty_cache(int index)
{
    std::lock_guard<std::mutex> hold(cu_caches_lock);
    cu_release_free_segments(index);
}

/* PyTorch's format_size: bytes, KiB, MiB or GiB with two decimals. */
static void cu_format_size(size_t size, char *out, size_t cap)
{
    if (size <= 1024) snprintf(out, cap, "%zu bytes", size);
    else if (size <= ((size_t)1 << 20)) snprintf(out, cap, "%.2f KiB", (double)size / 1024.0);
    else if (size <= ((size_t)1 << 30)) snprintf(out, cap, "%.2f MiB", (double)size / 1048576.0);
    else snprintf(out, cap, "%.2f GiB", (double)size / 1073741824.0);
}

/* PyTorch's out-of-memory error for a segment of `size` bytes on device index. Lock held. */
static void cu_out_of_memory(int index, size_t size)
{
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) cudaGetLastError();
    const ct_memory_counters *s = &cu_caches[index].stats;
    char asked[32], capacity[32], allocated[32], free_text[32], reserved[32], msg[512];
    cu_format_size(size, asked, sizeof asked);
    cu_format_size(total, capacity, sizeof capacity);
    cu_format_size((size_t)s->allocated_bytes, allocated, sizeof allocated);
    cu_format_size(free_bytes, free_text, sizeof free_text);
    cu_format_size((size_t)s->reserved_bytes, reserved, sizeof reserved);
    snprintf(msg, sizeof msg,
             "CUDA out of memory. Tried to allocate %s (GPU %d; %s total capacity; %s already allocated; %s free; %s "
             "reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb "
             "to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
             asked, index, capacity, allocated, free_text, reserved);
    ct_set_error(CT_ERR_MEMORY, msg);
}

/* A new segment of `size` bytes on device index for stream, as one free
 * block; once more after the free segments went back, then NULL, with the
 * error set when `report`. Lock held. */
static cu_block *cu_new_segment(int index, int64_t stream, size_t size, bool small, bool report)
{
    void *p = NULL;
    cu_use(index);
    cudaError_t e = cudaMallocManaged(&p, size, cudaMemAttachGlobal);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        cu_release_free_segments(index);
        e = cudaMallocManaged(&p, size, cudaMemAttachGlobal);
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        if (report) cu_out_of_memory(index, size);
        return NULL;
    }
    cudaMemLocation device = {};
    device.type = cudaMemLocationTypeDevice;
    device.id = index;
    if (cudaMemAdvise(p, size, cudaMemAdviseSetPreferredLocation, device) != cudaSuccess) cudaGetLastError();
    cu_note_reserved(&cu_caches[index].stats, (int64_t)size);
    return new cu_block{(char *)p, size, false, small, NULL, NULL, stream, {}, 0};
}

/* b keeps its first `size` bytes; the rest becomes a free block after it,
 * when worth keeping. */
static void cu_split(cu_free_pool *pool, cu_block *b, size_t size)
{
    size_t rest = b->size - size;
    if (b->small ? rest < CU_MIN_BLOCK : rest <= CU_SMALL_SIZE) return;
    cu_block *r = new cu_block{b->ptr + size, rest, false, b->small, b, b->next, b->stream, {}, 0};
    if (b->next) b->next->prev = r;
    b->next = r;
    b->size = size;
    pool->insert(r);
}

/* A block for nbytes on device index, for the calling thread's current
 * stream there; NULL when there is no memory, with PyTorch's error set when
 * `report` (a kernel's scratch that has another way does not report). */
static void *cu_alloc_block(size_t nbytes, int index, bool report)
{
    size_t size = cu_rounded(nbytes);
    bool small = size <= CU_SMALL_SIZE;
    int64_t stream = cu_current_ids[index];
    std::lock_guard<std::mutex> hold(cu_caches_lock);
    cu_device_cache *c = &cu_caches[index];
    cu_process_events(c, false);
    cu_free_pool *pool = cu_pool_of(c, small);
    cu_block *b = cu_take_fitting(pool, stream, size);
    if (!b && !(b = cu_new_segment(index, stream, cu_segment_size(size), small, report))) return NULL;
    cu_split(pool, b, size);
    b->allocated = true;
    c->live[b->ptr] = b;
    c->stats.allocated_bytes += (int64_t)b->size;
    if (c->stats.allocated_bytes > c->stats.peak_allocated_bytes) c->stats.peak_allocated_bytes = c->stats.allocated_bytes;
    c->stats.num_allocs++;
    return b->ptr;
}

static void *cu_alloc(size_t nbytes, int index) { return cu_alloc_block(nbytes, index, true); }

/* b absorbs n, its free neighbour after it: both leave the pool (b's size
 * changes, and the pool is ordered by size); the merged block is b. */
static cu_block *cu_merge(cu_free_pool *pool, cu_block *b, cu_block *n)
{
    pool->erase(b);
    pool->erase(n);
    b->size += n->size;
    b->next = n->next;
    if (n->next) n->next->prev = b;
    delete n;
    return b;
}

/* A freed block back in its pool, merged with its free neighbours. Lock held. */
static void cu_return_block(cu_device_cache *c, cu_block *b)
{
    b->allocated = false;
    cu_free_pool *pool = cu_pool_of(c, b->small);
    if (b->next && !b->next->allocated && !b->next->events) b = cu_merge(pool, b, b->next);
    if (b->prev && !b->prev->allocated && !b->prev->events) b = cu_merge(pool, b->prev, b);
    pool->insert(b);
}

/* An event recorded now on each stream b was used on besides its own, b
 * held back until they pass (PyTorch's insert_events). Where no event can
 * be made, the stream is waited for instead. Lock held. */
static void cu_hold_for_uses(cu_device_cache *c, cu_block *b)
{
    for (const cu_stream_key &use : b->uses) {
        cudaEvent_t e;
        cu_use(use.first);
        cudaStream_t s = cu_stream_of(use.first, use.second);
        if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess && cudaEventRecord(e, s) == cudaSuccess) {
            c->pending.emplace_back(e, b);
            b->events++;
        } else {
            cudaGetLastError();
            cu_ok(cudaStreamSynchronize(s));
        }
    }
    b->uses.clear();
}

static void cu_free(void *ptr, size_t nbytes, int index)
{
    (void)nbytes; /* the block knows its size */
    std::lock_guard<std::mutex> hold(cu_caches_lock);
    cu_device_cache *c = &cu_caches[index];
    auto it = c->live.find(ptr);
    if (it == c->live.end()) return;
    cu_block *b = it->second;
    c->live.erase(it);
    c->stats.allocated_bytes -= (int64_t)b->size;
    c->stats.num_frees++;
    cu_hold_for_uses(c, b);
    if (b->events == 0) cu_return_block(c, b);
    else b->allocated = false;
}

/* Tensor.record_stream: the block at ptr is used on stream id of
 * stream_device too (nothing for its own stream, or memory not from here). */
static ct_result cu_record_stream(void *ptr, int index, int stream_device, int64_t id)
{
    ct_result r = cu_check_stream(stream_device, id);
    if (r != CT_OK) return r;
    std::lock_guard<std::mutex> hold(cu_caches_lock);
    cu_device_cache *c = &cu_caches[index];
    auto it = c->live.find(ptr);
    if (it != c->live.end() && !(stream_device == index && id == it->second->stream))
        it->second->uses.insert(cu_stream_key(stream_device, id));
    return CT_OK;
}

static void cu_memory_stats(int index, ct_memory_counters *out)
{
    std::lock_guard<std::mutex> hold(cu_caches_lock);
    *out = cu_caches[index].stats;
}

static void cu_reset_peak_memory_stats(int index)
{
    std::lock_guard<std::mutex> hold(cu_caches_lock);
    ct_memory_counters *s = &cu_caches[index].stats;
    s->peak_allocated_bytes = s->allocated_bytes;
    s->peak_reserved_bytes = s->reserved_bytes;
}

/* ---------------------------------------------------------------- pinned host memory */

/* PyTorch 1.13's CachingHostAllocator: page-locked blocks of a power of two
 * bytes, kept when freed for the next request they fit; a block an
 * asynchronous copy used (cu_host_used) is free again only once an event
 * recorded after that copy has passed. */

typedef struct cu_host_block {
    size_t size;
    bool allocated;
    int events;                                  /* events to pass before a freed block is free */
    std::set<std::pair<int, cudaStream_t>> uses; /* streams whose copies used it since it was allocated */
} cu_host_block;

static std::unordered_map<void *, cu_host_block> cu_host_blocks; /* every block, by address */
static std::set<std::pair<size_t, void *>> cu_host_free_blocks; /* the free ones, smallest first, then by address */
static std::deque<std::pair<cudaEvent_t, void *>> cu_host_pending;
static std::mutex cu_host_lock;

static size_t cu_power_of_two_ceil(size_t n)
{
    size_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

/* Blocks whose events have passed become free. Lock held. */
static void cu_host_process_events(void)
{
    for (auto it = cu_host_pending.begin(); it != cu_host_pending.end();) {
        cudaError_t e = cudaEventQuery(it->first);
        if (e == cudaErrorNotReady) {
            cudaGetLastError();
            ++it;
            continue;
        }
        cu_ok(e);
        cudaEventDestroy(it->first);
        cu_host_block &b = cu_host_blocks[it->second];
        if (--b.events == 0 && !b.allocated) cu_host_free_blocks.emplace(b.size, it->second);
        it = cu_host_pending.erase(it);
    }
}

static void *cu_host_alloc(size_t nbytes)
{
    size_t size = cu_power_of_two_ceil(nbytes);
    std::lock_guard<std::mutex> hold(cu_host_lock);
    cu_host_process_events();
    auto fit = cu_host_free_blocks.lower_bound(std::make_pair(size, (void *)NULL));
    void *p = NULL;
    if (fit != cu_host_free_blocks.end()) {
        p = fit->second;
        cu_host_free_blocks.erase(fit);
    } else {
        if (!cu_ok(cudaHostAlloc(&p, size, cudaHostAllocDefault))) return NULL;
        cu_host_blocks[p] = cu_host_block{size, false, 0, {}};
    }
    cu_host_blocks[p].allocated = true;
    return p;
}

static void cu_host_free(void *ptr)
{
    std::lock_guard<std::mutex> hold(cu_host_lock);
    auto it = ptr ? cu_host_blocks.find(ptr) : cu_host_blocks.end();
    if (it == cu_host_blocks.end()) return;
    cu_host_block &b = it->second;
    b.allocated = false;
    for (const auto &use : b.uses) {
        cudaEvent_t e;
        cu_use(use.first);
        if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess && cudaEventRecord(e, use.second) == cudaSuccess) {
            cu_host_pending.emplace_back(e, ptr);
            b.events++;
        } else {
            cudaGetLastError();
            cu_ok(cudaStreamSynchronize(use.second));
        }
    }
    b.uses.clear();
    if (b.events == 0) cu_host_free_blocks.emplace(b.size, ptr);
}

/* Whether ptr is the start of a pinned block of ours (a pinned storage's data). */
static bool cu_host_pinned(const void *ptr)
{
    std::lock_guard<std::mutex> hold(cu_host_lock);
    return cu_host_blocks.count((void *)ptr) != 0;
}

/* An asynchronous copy on the current stream of the current device used the pinned block at ptr. */
static void cu_host_used(void *ptr)
{
    std::lock_guard<std::mutex> hold(cu_host_lock);
    auto it = cu_host_blocks.find(ptr);
    if (it != cu_host_blocks.end()) it->second.uses.insert(std::make_pair(cu_current_device, cu_stream()));
}

/* ==================== cuda/kernels.cu ==================== */
// >>cuda/kernels.cu
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

/* ==================== cuda/random.cu ==================== */
// >>cuda/random.cu
/* Random numbers: a CUDA generator's state is PyTorch's, the seed and the
 * Philox offset (16 bytes, torch.cuda.get_rng_state()'s layout since
 * PyTorch 2). A sampler run gives thread t of the launch Philox subsequence
 * t from the offset, four Philox numbers a draw, and moves the offset past
 * what the busiest thread used, a multiple of 4, as PyTorch's
 * distribution_nullary_kernel does, with its launch shape and element
 * order. Uniform and normal samples of a dense
 * float32 or float64 output are drawn here; the other samplers run the
 * CPU's on the managed memory from a CPU generator seeded by the state, so
 * they too are repeatable from a seed and move the offset on. */

#include <curand_kernel.h>

typedef struct cu_philox {
    uint64_t seed, offset;
} cu_philox;

static void cu_rng_seed(void *state, uint64_t seed)
{
    cu_philox s = {seed, 0};
    memcpy(state, &s, sizeof s);
}

static uint64_t cu_rng_initial_seed(const void *state)
{
    cu_philox s;
    memcpy(&s, state, sizeof s);
    return s.seed;
}

static ct_result cu_rng_check_state(const void *bytes, size_t nbytes)
{
    if (nbytes != sizeof(cu_philox)) return ct_set_error(CT_ERR_RUNTIME, "RNG state is wrong size");
    cu_philox s;
    memcpy(&s, bytes, sizeof s);
    return s.offset % 4 ? ct_set_error(CT_ERR_RUNTIME, "offset must be a multiple of 4") : CT_OK;
}

static const ct_generator_kind cu_generator = {sizeof(cu_philox), cu_rng_seed, cu_rng_initial_seed,
                                               cu_rng_check_state};

/* Uniforms in (0, 1] or standard normals, four floats or two doubles a
 * draw of four Philox numbers (curand's uniform4 / uniform2_double). */
template <typename T> struct cu_draws;
template <> struct cu_draws<float> {
    enum { n = 4 };
    static __device__ void draw(curandStatePhilox4_32_10_t *st, bool normal, float *r)
    {
        float4 v = normal ? curand_normal4(st) : curand_uniform4(st);
        r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
    }
};
template <> struct cu_draws<double> {
    enum { n = 2 };
    static __device__ void draw(curandStatePhilox4_32_10_t *st, bool normal, double *r)
    {
        double2 v = normal ? curand_normal2_double(st) : curand_uniform2_double(st);
        r[0] = v.x, r[1] = v.y;
    }
};

/* PyTorch's distribution_elementwise_grid_stride_kernel, so that a seed
 * gives PyTorch's CUDA numbers: thread t of the launch draws from Philox
 * subsequence t; the j-th value of each draw goes to element
 * i + j * (threads in the launch), i the element the thread is at. In T
 * (float for float32, as PyTorch's accscalar_t): uniform: u * (to - from) +
 * from with u = 1 taken as 0, so [from, to); normal: z * std + mean; each
 * one fused multiply-add, as nvcc contracts PyTorch's expression. */
template <typename T>
__global__ void cu_sample_kernel(T *out, int64_t n, cu_philox s, bool normal, T a0, T a1)
{
    const int per = cu_draws<T>::n;
    int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, stride = (int64_t)gridDim.x * blockDim.x;
    int64_t rounded = ((n - 1) / (stride * per) + 1) * stride * per;
    curandStatePhilox4_32_10_t st;
    curand_init(s.seed, (unsigned long long)t, s.offset, &st);
    for (int64_t i = t; i < rounded; i += stride * per) {
        T r[4];
        cu_draws<T>::draw(&st, normal, r);
        for (int j = 0; j < per; j++)
            if (i + j * stride < n) out[i + j * stride] = normal ? fma(r[j], a1, a0) : fma(r[j] == 1 ? 0 : r[j], a1 - a0, a0);
    }
}

/* PyTorch's calc_execution_policy: 256 threads a block, as many blocks as
 * fill the device (its multiprocessors times the blocks each holds), fewer
 * for a small n; the offset moves by 4 Philox numbers per draw the busiest
 * thread makes with four values a draw. */
static unsigned cu_sample_blocks(int64_t n, int index, uint64_t *offset_used)
{
    int sms = 1, threads_per_sm = CU_THREADS;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, index) != cudaSuccess ||
        cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, index) != cudaSuccess)
        cudaGetLastError();
    int64_t wanted = (n + CU_THREADS - 1) / CU_THREADS, most = (int64_t)sms * (threads_per_sm / CU_THREADS);
    unsigned blocks = (unsigned)(wanted < most ? wanted : most);
    *offset_used = (uint64_t)((n - 1) / ((int64_t)CU_THREADS * blocks * 4) + 1) * 4;
    return blocks;
}

/* A uniform or normal sample of a dense float32/float64 output here; false
 * for the samplers left to the CPU. */
static bool cu_sample_here(const ct__random_job *job, cu_philox *s)
{
    ct_tensor *out = job->out;
    bool normal = job->kind == CT__RANDOM_NORMAL;
    if ((job->kind != CT__RANDOM_UNIFORM && !normal) || !ct_is_contiguous(out) ||
        (out->dtype != CT_F32 && out->dtype != CT_F64))
        return false;
    int64_t n = ct_numel(out);
    int index = cu_index_of(out);
    uint64_t used = 0;
    unsigned blocks = cu_sample_blocks(n, index, &used);
    cu_use(index);
    if (out->dtype == CT_F32)
        CU_LAUNCH(cu_sample_kernel<float>, blocks, CU_THREADS, (float *)ct_data_ptr(out), n, *s, normal,
                  (float)job->a[0], (float)job->a[1]);
    else
        CU_LAUNCH(cu_sample_kernel<double>, blocks, CU_THREADS, (double *)ct_data_ptr(out), n, *s, normal, job->a[0],
                  job->a[1]);
    cu_ok(cudaGetLastError());
    s->offset += used;
    return true;
}

/* The other samplers: the CPU's, from a CPU generator seeded by (seed,
 * offset), the offset then moved past one draw per element. */
static ct_result cu_sample_on_host(const ct__random_job *job, cu_philox *s)
{
    ct_generator *g = ct_generator_new();
    if (!g) return ct_last_error_code();
    ct_generator_manual_seed(g, s->seed ^ (s->offset * 0x9e3779b97f4a7c15ULL));
    ct__random_job on_host = *job;
    on_host.g = g;
    on_host.state = NULL;
    cu_finish_all();
    ct_result r = cu_cpu()->random(&on_host);
    ct_generator_free(g);
    s->offset += (uint64_t)(ct_numel(job->out) + 3) / 4 * 4;
    return r;
}

static ct_result cu_random(const ct__random_job *job)
{
    cu_philox s;
    memcpy(&s, job->state, sizeof s);
    ct_result r = ct_numel(job->out) == 0 || cu_sample_here(job, &s) ? CT_OK : cu_sample_on_host(job, &s);
    memcpy(job->state, &s, sizeof s);
    return r;
}

/* ==================== cuda/backend.cu ==================== */
// >>cuda/backend.cu
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
