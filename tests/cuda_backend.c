/* What only the CUDA backend has. Its caching allocator against PyTorch
 * 1.13's numbers: torch.cuda.memory_allocated() and memory_reserved() after
 * the same tensors (the block sizes, pools, segment sizes, splits and merges
 * of CUDACachingAllocator), empty_cache, the peaks, and the out-of-memory
 * error; TF32 products behind allow_tf32; streams and events, and the
 * allocator's blocks per stream and record_stream; pinned memory and
 * non-blocking copies. Linked with
 * ctorch_cuda.cu (make cuda) or its host emulation (make cuda-emu, with
 * CT_CUDA_EMU defined); tests/run.sh runs it as cuda_backend@cuda and
 * @cuda-emu, with cuda:0 the default device (so host tensors are made with
 * ct_cpu). The emulation runs a stream's work only when the host waits
 * for it, so what a GPU does only sometimes (a stream reading memory before
 * another stream has written it) it does every time: those checks run
 * there only. */
#include "harness.h"

#include <pthread.h>

#define MiB (1024 * 1024)

static ct_memory_counters stats(void)
{
    ct_memory_counters s;
    memset(&s, 0, sizeof s);
    CHECK_OK(ct_memory_stats(CT_CUDA(0), &s));
    return s;
}

/* n float32 elements on cuda:0 (a block of 4 n bytes, rounded up to 512),
 * owned by the caller, not the test's scope: ct_release frees them. */
static ct_tensor *floats(int64_t n)
{
    ct_scope s = ct_scope_begin();
    ct_device_guard g = ct_device_guard_begin(CT_CUDA(0));
    ct_tensor *t = ct_empty(CT_SHAPE(n), CT_F32);
    ct_device_guard_end(g);
    if (t) ct_retain(t);
    ct_scope_end(s);
    return t;
}

/* Every test starts from no tensor and an empty cache. */
static void start_empty(void)
{
    CHECK_OK(ct_empty_cache(CT_CUDA(0)));
    ct_memory_counters s = stats();
    CHECK_INT(s.allocated_bytes, 0);
    CHECK_INT(s.reserved_bytes, 0);
}

/* torch.empty(1, device='cuda'): 512 bytes allocated, a 2 MiB small
 * segment reserved; the next small tensors are split off the same segment
 * while they fit. */
static void test_small_pool(void)
{
    start_empty();
    ct_tensor *a = floats(1), *b = floats(300);
    ct_memory_counters s = stats();
    CHECK_INT(s.allocated_bytes, 512 + 1536);
    CHECK_INT(s.reserved_bytes, 2 * MiB);
    ct_tensor *c = floats(MiB / 4); /* 1 MiB: still the small pool, beside a and b */
    CHECK_INT(stats().reserved_bytes, 2 * MiB);
    ct_tensor *d = floats(MiB / 4); /* no longer fits there: a second segment */
    CHECK_INT(stats().reserved_bytes, 4 * MiB);
    ct_release(a);
    ct_release(b);
    ct_release(c);
    ct_release(d);
    s = stats();
    CHECK_INT(s.allocated_bytes, 0);
    CHECK_INT(s.reserved_bytes, 4 * MiB);
    CHECK_INT(s.num_allocs, 4);
    CHECK_INT(s.num_frees, 4);
    CHECK_OK(ct_empty_cache(CT_CUDA(0))); /* the blocks merged back into whole segments */
    CHECK_INT(stats().reserved_bytes, 0);
}

/* From 10 MiB a request's segment is its size rounded up to 2 MiB, taken
 * whole when what remains is not over 1 MiB (the block, and so
 * memory_allocated, counts the whole segment then); below 10 MiB it makes a
 * 20 MiB segment, which the next requests share; a freed block is reused
 * by the smallest request that fits. */
static void test_large_pool(void)
{
    start_empty();
    ct_tensor *big = floats(11 * MiB / 4);
    ct_memory_counters s = stats();
    CHECK_INT(s.allocated_bytes, 12 * MiB);
    CHECK_INT(s.reserved_bytes, 12 * MiB);
    ct_tensor *t[5];
    for (int i = 0; i < 4; i++) t[i] = floats(5 * MiB / 4);
    s = stats();
    CHECK_INT(s.allocated_bytes, 32 * MiB);
    CHECK_INT(s.reserved_bytes, 32 * MiB);
    t[4] = floats(5 * MiB / 4);
    s = stats();
    CHECK_INT(s.allocated_bytes, 37 * MiB);
    CHECK_INT(s.reserved_bytes, 52 * MiB);
    ct_release(t[1]); /* a 5 MiB hole, which a 4 MiB request takes whole: 1 MiB would be left, not kept */
    ct_tensor *hole = floats(4 * MiB / 4);
    s = stats();
    CHECK_INT(s.allocated_bytes, 37 * MiB);
    CHECK_INT(s.reserved_bytes, 52 * MiB);
    ct_release(hole);
    for (int i = 0; i < 5; i++)
        if (i != 1) ct_release(t[i]);
    ct_release(big);
    CHECK_INT(stats().allocated_bytes, 0);
    CHECK_OK(ct_empty_cache(CT_CUDA(0)));
    CHECK_INT(stats().reserved_bytes, 0);
}

/* A block freed between two live ones stays cached; empty_cache gives back
 * only whole free segments. */
static void test_empty_cache_keeps_live_segments(void)
{
    start_empty();
    ct_tensor *a = floats(128), *b = floats(128), *c = floats(128);
    ct_release(b);
    CHECK_OK(ct_empty_cache(CT_CUDA(0)));
    ct_memory_counters s = stats();
    CHECK_INT(s.allocated_bytes, 1024);
    CHECK_INT(s.reserved_bytes, 2 * MiB);
    ct_tensor *again = floats(128); /* the hole is reused */
    CHECK_INT(stats().reserved_bytes, 2 * MiB);
    ct_release(again);
    ct_release(a);
    ct_release(c);
    CHECK_OK(ct_empty_cache(CT_CUDA(0)));
    CHECK_INT(stats().reserved_bytes, 0);
}

static void test_peaks(void)
{
    start_empty();
    CHECK_OK(ct_reset_peak_memory_stats(CT_CUDA(0)));
    ct_tensor *a = floats(MiB); /* 4 MiB: a 20 MiB segment */
    ct_release(a);
    ct_memory_counters s = stats();
    CHECK_INT(s.peak_allocated_bytes, 4 * MiB);
    CHECK_INT(s.peak_reserved_bytes, 20 * MiB);
    CHECK_OK(ct_empty_cache(CT_CUDA(0)));
    CHECK_OK(ct_reset_peak_memory_stats(CT_CUDA(0)));
    s = stats();
    CHECK_INT(s.peak_allocated_bytes, 0);
    CHECK_INT(s.peak_reserved_bytes, 0);
}

/* A request no device meets fails in PyTorch's words, naming the segment
 * it tried for; the allocator and its statistics go on as before. */
static void test_out_of_memory(void)
{
    start_empty();
    ct_tensor *keep = floats(300);
    CHECK_ERR(floats((int64_t)1 << 38), CT_ERR_MEMORY, "CUDA out of memory. Tried to allocate 1024.00 GiB (GPU 0; ");
    CHECK_ERR(floats((int64_t)1 << 38), CT_ERR_MEMORY, "1.50 KiB already allocated; ");
    CHECK_ERR(floats((int64_t)1 << 38), CT_ERR_MEMORY,
              "2.00 MiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting "
              "max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
              "PYTORCH_CUDA_ALLOC_CONF");
    ct_memory_counters s = stats();
    CHECK_INT(s.allocated_bytes, 1536);
    CHECK_INT(s.reserved_bytes, 2 * MiB);
    ct_tensor *after = floats(256);
    CHECK(after != NULL);
    ct_release(after);
    ct_release(keep);
}

/* torch.backends.cuda.matmul.allow_tf32: off, a float32 product keeps 24
 * bits (1 + 2^-12 survives); on, the inputs keep 10 (it rounds to 1). */
static void test_allow_tf32(void)
{
    CHECK(!ct_allow_tf32_matmul()); /* PyTorch's default since 1.12 */
    ct_device_guard g = ct_device_guard_begin(CT_CUDA(0));
    ct_tensor *a = ct_full(CT_SHAPE(2, 2), ct_float(1 + 1.0 / 4096), CT_F32), *b = ct_eye(2, 2, CT_F32);
    ct_device_guard_end(g);
    CHECK_VALUES(ct_cpu(ct_mm(a, b)), CT_SHAPE(2, 2), 1 + 1.0 / 4096, 1 + 1.0 / 4096, 1 + 1.0 / 4096, 1 + 1.0 / 4096);
    ct_set_allow_tf32_matmul(true);
    CHECK(ct_allow_tf32_matmul());
    CHECK_VALUES(ct_cpu(ct_mm(a, b)), CT_SHAPE(2, 2), 1, 1, 1, 1);
    ct_set_allow_tf32_matmul(false);
    CHECK_VALUES(ct_cpu(ct_mm(a, b)), CT_SHAPE(2, 2), 1 + 1.0 / 4096, 1 + 1.0 / 4096, 1 + 1.0 / 4096, 1 + 1.0 / 4096);
}

/* ---------------------------------------------------------------- streams and events */

static ct_stream new_stream(int priority)
{
    ct_stream s = {CT_CPU, -1};
    CHECK_OK(ct_stream_new(CT_CUDA(0), priority, &s));
    return s;
}

static ct_stream current_stream(void)
{
    ct_stream s = {CT_CPU, -1};
    CHECK_OK(ct_current_stream(CT_CUDA(0), &s));
    return s;
}

/* torch.cuda.Stream() hands out the pool's 32 streams of a priority round
 * robin, the high-priority ones apart; current_stream is the default one
 * (id 0) until set_stream, and a guard puts back what it replaced. */
static void test_stream_pool_and_current(void)
{
    ct_stream def = current_stream(), d0;
    CHECK_INT(def.id, 0);
    CHECK_OK(ct_default_stream(CT_CUDA(0), &d0));
    CHECK_INT(d0.id, 0);
    ct_stream first = new_stream(0), high = new_stream(-1);
    CHECK(first.id != 0 && high.id != 0 && high.id != first.id);
    for (int i = 1; i < 32; i++) CHECK(new_stream(0).id != first.id);
    CHECK_INT(new_stream(0).id, first.id); /* the 33rd is the first again */
    ct_stream_guard g = ct_stream_guard_begin(first);
    CHECK(g.active);
    CHECK_INT(current_stream().id, first.id);
    ct_stream_guard inner = ct_stream_guard_begin(high);
    CHECK_INT(current_stream().id, high.id);
    ct_stream_guard_end(inner);
    CHECK_INT(current_stream().id, first.id);
    ct_stream_guard_end(g);
    CHECK_INT(current_stream().id, 0);
    CHECK_OK(ct_set_stream(high));
    CHECK_INT(current_stream().id, high.id);
    CHECK_OK(ct_set_stream(def));
}

static void *current_id_of_new_thread(void *out)
{
    ct_stream s = {CT_CPU, -1};
    ct_current_stream(CT_CUDA(0), &s);
    *(int64_t *)out = s.id;
    return NULL;
}

/* The current stream is the calling thread's: another thread starts on the default one. */
static void test_current_stream_per_thread(void)
{
    ct_stream s = new_stream(0);
    CHECK_OK(ct_set_stream(s));
    int64_t seen = -1;
    pthread_t t;
    CHECK_INT(pthread_create(&t, NULL, current_id_of_new_thread, &seen), 0);
    pthread_join(t, NULL);
    CHECK_INT(seen, 0);
    CHECK_INT(current_stream().id, s.id);
    CHECK_OK(ct_set_stream((ct_stream){CT_CUDA(0), 0}));
}

/* torch.cuda.set_device and current_device: the current device starts at
 * 0, a negative index changes nothing, one past the last is refused and
 * changes nothing. */
static void test_current_device(void)
{
    CHECK_INT(ct_cuda_current_device(), 0);
    CHECK_OK(ct_cuda_set_device(-1));
    CHECK_INT(ct_cuda_current_device(), 0);
    CHECK_FAILS(ct_cuda_set_device(ct_cuda_device_count()), CT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
    CHECK_INT(ct_cuda_current_device(), 0);
}

static void *current_device_of_new_thread(void *out)
{
    *(int *)out = ct_cuda_current_device();
    return NULL;
}

/* With two devices, "cuda" without an index is the calling thread's
 * current one: ct_cuda puts a tensor there, the current stream and the
 * memory statistics are its, and another thread's current device is
 * still 0. */
static void test_switch_device(void)
{
    ct_scope sc = ct_scope_begin();
    CHECK_OK(ct_cuda_set_device(1));
    CHECK_INT(ct_cuda_current_device(), 1);
    CHECK(ct_device_equal(CT_CUDA(-1), CT_CUDA(1)) && !ct_device_equal(CT_CUDA(-1), CT_CUDA(0)));
    ct_memory_counters before = {0}, after = {0};
    CHECK_OK(ct_memory_stats(CT_CUDA(-1), &before));
    const float values[3] = {1.5f, -2, 4};
    ct_tensor *x = ct_cuda(ct_cpu(ct_from_array(values, CT_SHAPE(3), CT_F32)));
    CHECK_T(x);
    if (x) {
        CHECK_INT(ct_device_of(x).index, 1);
        CHECK_TENSOR(ct_cpu(x), ct_cpu(ct_from_array(values, CT_SHAPE(3), CT_F32)), 0);
    }
    CHECK_OK(ct_memory_stats(CT_CUDA(-1), &after));
    CHECK(after.allocated_bytes > before.allocated_bytes);
    ct_stream s = {CT_CPU, -1};
    CHECK_OK(ct_current_stream(CT_CUDA(-1), &s));
    CHECK_INT(s.device.index, 1);
    int seen = -1;
    pthread_t t;
    CHECK_INT(pthread_create(&t, NULL, current_device_of_new_thread, &seen), 0);
    pthread_join(t, NULL);
    CHECK_INT(seen, 0);
    CHECK_OK(ct_cuda_set_device(0));
    ct_scope_end(sc);
}

/* The CPU has no streams; a stream id the device never gave is refused;
 * events keep PyTorch's rules. Nothing changes on an error. */
static void test_stream_errors(void)
{
    ct_stream s;
    CHECK_FAILS(ct_stream_new(CT_CPU, 0, &s), CT_ERR_VALUE, "Expected a cuda device, but got: cpu");
    CHECK_FAILS(ct_current_stream(CT_CPU, &s), CT_ERR_VALUE, "Expected a cuda device, but got: cpu");
    CHECK_FAILS(ct_set_stream((ct_stream){CT_CUDA(0), 999}), CT_ERR_RUNTIME, "CUDA error: invalid resource handle");
    CHECK_INT(current_stream().id, 0);
    CHECK_FAILS(ct_set_stream((ct_stream){CT_CUDA(7), 0}), CT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
    ct_stream_guard g = ct_stream_guard_begin((ct_stream){CT_CUDA(0), -3});
    CHECK(!g.active);
    ct_stream_guard_end(g);
    CHECK_INT(current_stream().id, 0);
    ct_tensor *cpu = ct_cpu(ct_ones(CT_SHAPE(2), CT_F32));
    CHECK_FAILS(ct_record_stream(cpu, current_stream()), CT_ERR_NOT_IMPLEMENTED,
                "Could not run 'aten::record_stream' with arguments from the 'CPU' backend.");
    ct_event *a = ct_event_new((ct_event_opts){0}), *b = ct_event_new((ct_event_opts){.enable_timing = true});
    bool done = false;
    CHECK_OK(ct_event_query(a, &done)); /* never recorded: done */
    CHECK(done);
    CHECK_OK(ct_event_synchronize(a));
    CHECK_OK(ct_event_wait(a, current_stream())); /* never recorded: nothing to wait for */
    float ms = -1;
    CHECK_FAILS(ct_event_elapsed_time(a, b, &ms), CT_ERR_RUNTIME,
                "Both events must be recorded before calculating elapsed time.");
    CHECK_OK(ct_event_record(a, current_stream()));
    CHECK_OK(ct_event_record(b, current_stream()));
    CHECK_OK(ct_event_synchronize(b));
    CHECK_FAILS(ct_event_elapsed_time(a, b, &ms), CT_ERR_RUNTIME, "CUDA error: invalid resource handle");
    CHECK(ms == -1);
    ct_event_free(a);
    ct_event_free(b);
}

/* Events recorded with timing around some work: elapsed_time after both
 * have passed; query and synchronize see the work done. */
static void test_event_timing(void)
{
    ct_event *start = ct_event_new((ct_event_opts){.enable_timing = true});
    ct_event *end = ct_event_new((ct_event_opts){.enable_timing = true});
    ct_stream s = current_stream();
    CHECK_OK(ct_event_record(start, s));
    ct_device_guard g = ct_device_guard_begin(CT_CUDA(0));
    ct_tensor *x = ct_mul_scalar(ct_ones(CT_SHAPE(1000), CT_F32), ct_float(3));
    ct_device_guard_end(g);
    CHECK_OK(ct_event_record(end, s));
    CHECK_OK(ct_event_synchronize(end));
    bool done = false;
    CHECK_OK(ct_event_query(end, &done));
    CHECK(done);
    CHECK_OK(ct_stream_query(s, &done));
    CHECK(done);
    float ms = -1;
    CHECK_OK(ct_event_elapsed_time(start, end, &ms));
    CHECK(ms >= 0);
    CHECK_NEAR(ct_item(ct_sum(ct_cpu(x))), 3000, 0);
    ct_event_free(start);
    ct_event_free(end);
}

/* A block freed on one stream goes only to requests on that stream: a
 * request of the same size on another stream makes a segment of its own. */
static void test_blocks_per_stream(void)
{
    start_empty();
    ct_stream side = new_stream(0);
    ct_stream_guard g = ct_stream_guard_begin(side);
    ct_tensor *a = floats(256);
    ct_stream_guard_end(g);
    void *a_ptr = ct_data_ptr(a);
    ct_release(a);
    ct_tensor *b = floats(256); /* the default stream: not side's free block */
    CHECK(ct_data_ptr(b) != a_ptr);
    CHECK_INT(stats().reserved_bytes, 4 * MiB);
    g = ct_stream_guard_begin(side);
    ct_tensor *c = floats(256); /* side again: its block back */
    ct_stream_guard_end(g);
    CHECK(ct_data_ptr(c) == a_ptr);
    ct_release(b);
    ct_release(c);
}

/* Tensor.record_stream: a block used on a side stream, freed, is not handed
 * out again before the side stream's work then queued has passed. */
static void test_record_stream(void)
{
    start_empty();
    ct_stream side = new_stream(0);
    ct_tensor *x = floats(256), *y = floats(256);
    CHECK_OK(ct_fill_(x, ct_float(2)));
    CHECK_OK(ct_stream_wait_stream(side, current_stream()));
    ct_stream_guard g = ct_stream_guard_begin(side);
    ct_tensor *doubled = ct_mul_scalar(x, ct_float(2)); /* reads x on side */
    ct_stream_guard_end(g);
    CHECK_OK(ct_record_stream(x, side));
    CHECK_OK(ct_record_stream(y, current_stream())); /* its own stream: nothing to wait for */
    void *x_ptr = ct_data_ptr(x), *y_ptr = ct_data_ptr(y);
    ct_release(x);
    ct_release(y);
    ct_tensor *again = floats(256); /* y's block: free at once */
    CHECK(ct_data_ptr(again) == y_ptr);
#ifdef CT_CUDA_EMU
    ct_tensor *other = floats(256); /* side's work has not run: x's block is held */
    CHECK(ct_data_ptr(other) != x_ptr);
    ct_release(other);
#endif
    CHECK_OK(ct_stream_synchronize(side));
    ct_tensor *after = floats(256); /* side has passed its event: x's block is free again */
    CHECK(ct_data_ptr(after) == x_ptr);
    CHECK_NEAR(ct_item(ct_sum(ct_cpu(doubled))), 1024, 0);
    ct_release(again);
    ct_release(after);
}

/* Seed 002's two streams: A written on the default stream, read on a side
 * stream. Without wait_stream the side stream may read A before the default
 * stream has written it: on the emulation it always does, and reads the
 * ones A held before. With side.wait_stream(default) it reads the zeros. */
static void test_wait_stream(void)
{
    ct_device_guard g = ct_device_guard_begin(CT_CUDA(0));
    ct_tensor *a = ct_ones(CT_SHAPE(64), CT_F32);
    ct_device_guard_end(g);
    ct_stream main_stream = current_stream(), side = new_stream(0);
    CHECK_OK(ct_stream_synchronize(main_stream)); /* A is ones */
    for (int fixed = 0; fixed < 2; fixed++) {
        CHECK_OK(ct_fill_(a, ct_float(1)));
        CHECK_OK(ct_stream_synchronize(main_stream));
        CHECK_OK(ct_zero_(a)); /* queued on the default stream */
        if (fixed) CHECK_OK(ct_stream_wait_stream(side, main_stream));
        ct_stream_guard sg = ct_stream_guard_begin(side);
        ct_tensor *b = ct_mul_scalar(a, ct_float(2));
        CHECK_OK(ct_record_stream(a, side));
        ct_stream_guard_end(sg);
        CHECK_OK(ct_stream_synchronize(side)); /* b is read on the default stream next */
        double sum = ct_item(ct_sum(ct_cpu(b)));
        if (fixed) CHECK_NEAR(sum, 0, 0);
#ifdef CT_CUDA_EMU
        else CHECK_NEAR(sum, 128, 0);
#endif
    }
}

/* ---------------------------------------------------------------- pinned memory */

/* n float32 ones in pinned memory, owned by the caller (ct_release frees
 * them), made without touching the GPU: no stream runs here. */
static ct_tensor *pinned_ones(int64_t n)
{
    ct_scope s = ct_scope_begin();
    ct_device_guard on_host = ct_device_guard_begin(CT_CPU);
    ct_tensor *t = ct_pin_memory(ct_ones(CT_SHAPE(n), CT_F32));
    ct_device_guard_end(on_host);
    if (t) ct_retain(t);
    ct_scope_end(s);
    return t;
}

/* Tensor.pin_memory: a pinned copy with the input's sizes and strides, the
 * tensor itself when pinned already, PinMemoryBackward0 for autograd; CUDA
 * tensors refused in PyTorch's words. A non-blocking copy to the CPU lands
 * in pinned memory, as PyTorch's _to_copy puts it. */
static void test_pin_memory(void)
{
    ct_tensor *x = ct_transpose(ct_reshape(ct_cpu(ct_arange(ct_int(0), ct_int(6), ct_int(1), CT_F32)), CT_SHAPE(2, 3)), 0, 1);
    CHECK(!ct_is_pinned(x) && !ct_is_pinned(NULL));
    ct_tensor *p = ct_pin_memory(x);
    CHECK(ct_is_pinned(p) && ct_equal(p, x));
    CHECK_INT(ct_strides_of(p).size[0], 1);
    CHECK_INT(ct_strides_of(p).size[1], 3);
    CHECK(ct_storage_data_ptr(ct_pin_memory(p)) == ct_storage_data_ptr(p));
    ct_tensor *w = ct_cpu(ct_ones(CT_SHAPE(3), CT_F32));
    CHECK_OK(ct_requires_grad_(w, true));
    CHECK_STR(ct_node_name(ct_grad_fn(ct_pin_memory(w))), "PinMemoryBackward0");
    ct_tensor *dev = ct_cuda(x);
    CHECK_ERR(ct_pin_memory(dev), CT_ERR_RUNTIME, "cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned");
    ct_tensor *back = ct_to_device(dev, CT_CPU, true);
    CHECK(ct_is_pinned(back));
    CHECK(!ct_is_pinned(ct_to_device(dev, CT_CPU, false)));
    CHECK_OK(ct_synchronize(CT_CUDA(0)));
    CHECK(ct_equal(back, x));
}

/* A non-blocking copy from pinned memory does not wait: the host may write
 * the source before the copy runs (on the emulation it always does, and the
 * copy reads the new values). A pinned block a copy used is not handed out
 * again before that copy is done. */
static void test_non_blocking_copies(void)
{
    ct_tensor *host = pinned_ones(256);
    void *host_ptr = ct_data_ptr(host);
    ct_tensor *dev = ct_to_device(host, CT_CUDA(0), true);
#ifdef CT_CUDA_EMU
    CHECK_OK(ct_fill_(host, ct_float(5))); /* before the copy has run */
#endif
    ct_release(host);
#ifdef CT_CUDA_EMU
    ct_tensor *other = pinned_ones(256); /* the copy has not run: host's block is held */
    CHECK(ct_data_ptr(other) != host_ptr);
#endif
    CHECK_OK(ct_synchronize(CT_CUDA(0)));
    ct_tensor *after = pinned_ones(256); /* the copy is done: host's block again */
    CHECK(ct_data_ptr(after) == host_ptr);
    ct_release(after);
#ifdef CT_CUDA_EMU
    ct_release(other);
#endif
#ifdef CT_CUDA_EMU
    CHECK_NEAR(ct_item(ct_sum(ct_cpu(dev))), 5 * 256, 0);
#else
    CHECK_NEAR(ct_item(ct_sum(ct_cpu(dev))), 256, 0);
#endif
}

/* DataLoader(pin_memory=True): each batch's tensors pinned, their values kept. */
/* The reductions whose order cannot show, as kernels: of everything, of a
 * long dim (few outputs, each folded in parts) and of a short one, on a
 * transposed view, for int32, bool, float32 and float16; each the CPU's
 * result bit for bit (integer sums and products wrap alike). */
static ct_tensor *sum_long(const ct_tensor *t) { return ct_sum_dim(t, CT_SHAPE(0), false, CT_DEFAULT); }
static ct_tensor *prod_long(const ct_tensor *t) { return ct_prod_dim(t, 0, false, CT_DEFAULT); }
static ct_tensor *amax_long(const ct_tensor *t) { return ct_amax(t, CT_SHAPE(0), false); }
static ct_tensor *amin_short(const ct_tensor *t) { return ct_amin(t, CT_SHAPE(1), true); }
static ct_tensor *all_long(const ct_tensor *t) { return ct_all_dim(t, 0, false); }
static ct_tensor *any_short(const ct_tensor *t) { return ct_any_dim(t, 1, false); }
static ct_tensor *count_long(const ct_tensor *t) { return ct_count_nonzero(t, CT_SHAPE(0)); }

static void test_order_free_reductions(void)
{
    ct_tensor *(*const ops[])(const ct_tensor *) = {ct_sum, ct_prod, ct_max, ct_min, ct_all, ct_any, sum_long, prod_long,
                                                    amax_long, amin_short, all_long, any_short, count_long};
    const ct_dtype dtypes[] = {CT_I32, CT_BOOL, CT_F32, CT_F16};
    /* (3, 40001) made on the host: values in [-500, 500), zeros among them */
    ct_tensor *k = ct_arange(ct_int(0), ct_int(3 * 40001), ct_int(1), CT_I64);
    ct_tensor *host = ct_reshape(ct_sub_scalar(ct_remainder_scalar(ct_mul_scalar(ct_cpu(k), ct_int(7919)), ct_int(1000)),
                                               ct_int(500)),
                                 CT_SHAPE(3, 40001));
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        ct_tensor *x = ct_transpose(ct_to(host, dtypes[d]), 0, 1); /* (40001, 3), strided */
        ct_tensor *xd = ct_cuda(x);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            if ((ops[o] == ct_sum || ops[o] == sum_long || ops[o] == ct_prod || ops[o] == prod_long) &&
                (dtypes[d] == CT_F32 || dtypes[d] == CT_F16))
                continue; /* (floating sums and products are order's, run on the CPU) */
            ct_tensor *want = ops[o](x), *got = ops[o](xd);
            CHECK(want && got && ct_device_of(got).type == CT_DEVICE_CUDA);
            CHECK(ct_equal(ct_cpu(got), want));
        }
    }
}

static void test_loader_pins_batches(void)
{
    ct_tensor *x = ct_cpu(ct_reshape(ct_arange(ct_int(0), ct_int(8), ct_int(1), CT_F32), CT_SHAPE(4, 2)));
    ct_tensor *y = ct_cpu(ct_arange(ct_int(0), ct_int(4), ct_int(1), CT_I64));
    ct_dataset *d = ct_tensor_dataset((ct_tensor *[]){x, y}, 2);
    for (int pin = 0; pin < 2; pin++) {
        ct_loader *l = ct_loader_new(d, (ct_loader_opts){.batch_size = 2, .pin_memory = pin, .num_workers = pin});
        ct_sample batch;
        CHECK_INT(ct_loader_next(l, &batch), 1);
        CHECK(ct_is_pinned(batch.field[0]) == pin && ct_is_pinned(batch.field[1]) == pin);
        CHECK_VALUES(batch.field[0], CT_SHAPE(2, 2), 0, 1, 2, 3);
        ct_loader_free(l);
    }
    ct_dataset_free(d);
}

int main(void)
{
    if (!ct_cuda_is_available()) {
        SKIP(cuda_backend, "no CUDA device");
        return ct_test_report();
    }
    RUN(test_small_pool);
    RUN(test_large_pool);
    RUN(test_empty_cache_keeps_live_segments);
    RUN(test_peaks);
    RUN(test_out_of_memory);
    RUN(test_allow_tf32);
    RUN(test_stream_pool_and_current);
    RUN(test_current_stream_per_thread);
    RUN(test_stream_errors);
    RUN(test_current_device);
    if (ct_cuda_device_count() >= 2) RUN(test_switch_device);
    else SKIP(test_switch_device, "one CUDA device (CTORCH_CUDA_EMU_DEVICES=2 gives the emulation two)");
    RUN(test_event_timing);
    RUN(test_blocks_per_stream);
    RUN(test_record_stream);
    RUN(test_wait_stream);
    RUN(test_pin_memory);
    RUN(test_non_blocking_copies);
    RUN(test_loader_pins_batches);
    RUN(test_order_free_reductions);
    return ct_test_report();
}
