/* What only the CUDA backend has. Its caching allocator against PyTorch
 * 1.13's numbers: torch.cuda.memory_allocated() and memory_reserved() after
 * the same tensors (the block sizes, pools, segment sizes, splits and merges
 * of CUDACachingAllocator), empty_cache, the peaks, and the out-of-memory
 * error; and TF32 products behind allow_tf32. Linked with ctorch_cuda.cu
 * (make cuda) or its host emulation (make cuda-emu); tests/run.sh runs it as
 * cuda_backend@cuda and @cuda-emu. */
#include "harness.h"

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
    return ct_test_report();
}
