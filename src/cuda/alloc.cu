/* The caching allocator: blocks rounded up to 512 bytes (PyTorch's
 * kMinBlockSize) come from CUDA's managed memory, preferring the device, so
 * that the CPU kernels serving the op families without a CUDA kernel can
 * read and write them after a synchronize. A freed block waits in its
 * device's cache under its rounded size for the next request of that size
 * (a training step asks for the same sizes every time); a request the
 * device cannot meet first gives the cache back and tries once more, then
 * fails with PyTorch's out-of-memory words. All work goes to the default
 * stream, in order, so a block freed by one op is safe for the next. */

#define CU_ROUND 512

typedef struct cu_pool {
    std::multimap<size_t, void *> cached; /* rounded size -> free block */
    ct_memory_counters stats;
} cu_pool;

static cu_pool cu_pools[CU_MAX_DEVICES];
static std::mutex cu_pools_lock;

static size_t cu_rounded(size_t nbytes) { return (nbytes + CU_ROUND - 1) / CU_ROUND * CU_ROUND; }

static void cu_note_reserved(ct_memory_counters *s, int64_t bytes)
{
    s->reserved_bytes += bytes;
    if (s->reserved_bytes > s->peak_reserved_bytes) s->peak_reserved_bytes = s->reserved_bytes;
}

static void cu_note_allocated(ct_memory_counters *s, int64_t bytes)
{
    s->allocated_bytes += bytes;
    if (s->allocated_bytes > s->peak_allocated_bytes) s->peak_allocated_bytes = s->allocated_bytes;
    s->num_allocs++;
}

/* A cached block of exactly `size` bytes on device index, or NULL. */
static void *cu_take_cached(int index, size_t size)
{
    std::lock_guard<std::mutex> hold(cu_pools_lock);
    cu_pool *pool = &cu_pools[index];
    auto it = pool->cached.find(size);
    if (it == pool->cached.end()) return NULL;
    void *p = it->second;
    pool->cached.erase(it);
    cu_note_allocated(&pool->stats, (int64_t)size);
    return p;
}

/* torch.cuda.empty_cache(): the cached blocks of device index go back to CUDA. */
static void cu_empty_cache(int index)
{
    std::lock_guard<std::mutex> hold(cu_pools_lock);
    cu_pool *pool = &cu_pools[index];
    cu_use(index);
    for (auto &block : pool->cached) {
        cu_ok(cudaFree(block.second));
        pool->stats.reserved_bytes -= (int64_t)block.first;
    }
    pool->cached.clear();
}

/* PyTorch's out-of-memory error for a request of size bytes on device index. */
static void cu_out_of_memory(int index, size_t size)
{
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) cudaGetLastError();
    ct_memory_counters s;
    {
        std::lock_guard<std::mutex> hold(cu_pools_lock);
        s = cu_pools[index].stats;
    }
    const double MiB = 1024.0 * 1024.0, GiB = MiB * 1024.0;
    char msg[512];
    snprintf(msg, sizeof msg,
             "CUDA out of memory. Tried to allocate %.2f MiB (GPU %d; %.2f GiB total capacity; %.2f GiB already "
             "allocated; %.2f MiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated "
             "memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
             "Management and PYTORCH_CUDA_ALLOC_CONF",
             (double)size / MiB, index, (double)total / GiB, (double)s.allocated_bytes / GiB,
             (double)free_bytes / MiB, (double)s.reserved_bytes / GiB);
    ct_set_error(CT_ERR_MEMORY, msg);
}

/* Fresh managed memory of size bytes on device index, placed on the device. */
static void *cu_fresh(int index, size_t size)
{
    void *p = NULL;
    cu_use(index);
    cudaError_t e = cudaMallocManaged(&p, size, cudaMemAttachGlobal);
    if (e == cudaErrorMemoryAllocation) { /* give the cache back, then once more */
        cudaGetLastError();
        cu_empty_cache(index);
        e = cudaMallocManaged(&p, size, cudaMemAttachGlobal);
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        cu_out_of_memory(index, size);
        return NULL;
    }
    cudaMemLocation device = {};
    device.type = cudaMemLocationTypeDevice;
    device.id = index;
    if (cudaMemAdvise(p, size, cudaMemAdviseSetPreferredLocation, device) != cudaSuccess) cudaGetLastError();
    std::lock_guard<std::mutex> hold(cu_pools_lock);
    cu_note_reserved(&cu_pools[index].stats, (int64_t)size);
    cu_note_allocated(&cu_pools[index].stats, (int64_t)size);
    return p;
}

static void *cu_alloc(size_t nbytes, int index)
{
    size_t size = cu_rounded(nbytes);
    void *p = cu_take_cached(index, size);
    return p ? p : cu_fresh(index, size);
}

static void cu_free(void *ptr, size_t nbytes, int index)
{
    size_t size = cu_rounded(nbytes);
    std::lock_guard<std::mutex> hold(cu_pools_lock);
    cu_pool *pool = &cu_pools[index];
    pool->cached.insert(std::make_pair(size, ptr));
    pool->stats.allocated_bytes -= (int64_t)size;
    pool->stats.num_frees++;
}

static void cu_memory_stats(int index, ct_memory_counters *out)
{
    std::lock_guard<std::mutex> hold(cu_pools_lock);
    *out = cu_pools[index].stats;
}

static void cu_reset_peak_memory_stats(int index)
{
    std::lock_guard<std::mutex> hold(cu_pools_lock);
    ct_memory_counters *s = &cu_pools[index].stats;
    s->peak_allocated_bytes = s->allocated_bytes;
    s->peak_reserved_bytes = s->reserved_bytes;
}
