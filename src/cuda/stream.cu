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
