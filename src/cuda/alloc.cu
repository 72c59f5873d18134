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
