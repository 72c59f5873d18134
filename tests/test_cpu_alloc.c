/* The CPU's caching allocator (src/cpu/alloc.c): freed blocks reused by
 * size class, its memory statistics, its limit (the call and
 * CTORCH_CPU_CACHE_MAX), allocation failure, and threads allocating and
 * freeing at once.
 *
 * This file has a ctorch of its own (CTORCH_STATIC), built with allocation
 * hooks that count libc's blocks and can fail the large ones, as
 * test_alloc_fail.c does; the harness's copy, linked beside it, only
 * reports, and its memory does not show in these statistics. */
#define _DEFAULT_SOURCE /* setenv, unsetenv under -std=c11 */
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static void *test_malloc(size_t n);
static void test_free(void *p);
#define CT_MALLOC(n) test_malloc(n)
#define CT_REALLOC(p, n) realloc(p, n)
#define CT_FREE(p) test_free(p)
#define CTORCH_STATIC
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
#include "harness.h"

#ifdef _WIN32 /* the Windows C runtime's names */
#define malloc_usable_size _msize
static int setenv(const char *name, const char *value, int overwrite) { (void)overwrite; return _putenv_s(name, value); }
static int unsetenv(const char *name) { return _putenv_s(name, ""); } /* an empty value removes it */
#endif

/* ---------------------------------------------------------------- the counting allocator */

#define MIB ((size_t)1 << 20)
#define LARGE (MIB / 4) /* the tests' tensors are larger, the structs around them smaller */

static atomic_llong large_mallocs;
static atomic_llong large_frees;
static atomic_int large_failures;  /* how many of the next large ones fail */

static void *test_malloc(size_t n)
{
    if (n >= LARGE) {
        atomic_fetch_add(&large_mallocs, 1);
        if (atomic_load(&large_failures) > 0 && atomic_fetch_sub(&large_failures, 1) > 0) return NULL;
    }
    return malloc(n);
}

static void test_free(void *p)
{
    if (p && malloc_usable_size(p) >= LARGE) atomic_fetch_add(&large_frees, 1);
    free(p);
}

static ct_memory_counters stats(void)
{
    ct_memory_counters s;
    CHECK_OK(ct_memory_stats(CT_CPU, &s));
    return s;
}

/* A tensor of nbytes of floats in the current scope, and its data. */
static float *floats(size_t nbytes, ct_tensor **t)
{
    *t = ct_empty(CT_SHAPE((int64_t)(nbytes / sizeof(float))), CT_F32);
    return *t ? (float *)ct_data_ptr(*t) : NULL;
}

/* Each test starts from an empty cache with no limit. */
static void fresh_cache(void)
{
    ct_set_cpu_cache_limit(SIZE_MAX);
    CHECK_OK(ct_empty_cache(CT_CPU));
    CHECK_OK(ct_reset_peak_memory_stats(CT_CPU));
}

/* ---------------------------------------------------------------- reuse */

/* A freed block comes back for the next request of its class (sizes up to
 * 1/16 apart above 1 KB) or of a class up to twice smaller, without asking
 * libc; a larger request, or one less than half the block, takes another. */
static void test_freed_block_is_reused(void)
{
    fresh_cache();
    ct_tensor *t;
    ct_scope s = ct_scope_begin();
    float *first = floats(MIB, &t);
    ct_scope_end(s);
    long long mallocs = atomic_load(&large_mallocs);
    int64_t allocated = stats().allocated_bytes;
    const size_t reused[] = {MIB, MIB - 30 * 1024 /* the same class: they are 32 KiB apart below 1 MiB */,
                             MIB * 3 / 4, MIB / 2 /* 16 classes below */};
    for (size_t i = 0; i < sizeof reused / sizeof *reused; i++) {
        s = ct_scope_begin();
        CHECK(floats(reused[i], &t) == first);
        CHECK_INT(stats().allocated_bytes, allocated + (int64_t)MIB); /* the block's size counts */
        ct_scope_end(s);
    }
    CHECK_INT(atomic_load(&large_mallocs), mallocs);
    s = ct_scope_begin();
    CHECK(floats(MIB / 2 - 64 * 1024, &t) != first); /* 20 classes below */
    CHECK(floats(MIB + 4096, &t) != first);         /* the class above */
    CHECK_INT(atomic_load(&large_mallocs), mallocs + 2);
    ct_scope_end(s);
}

/* The class sizes: the next multiple of 64 up to 1 KB, then 16 steps per
 * power of two; never less than asked, at most 1/16 more above 1 KB. */
static void test_size_classes(void)
{
    CHECK_INT(ct__cpu_class_bytes(ct__cpu_class_of(0)), 64);
    CHECK_INT(ct__cpu_class_bytes(ct__cpu_class_of(1)), 64);
    CHECK_INT(ct__cpu_class_bytes(ct__cpu_class_of(65)), 128);
    CHECK_INT(ct__cpu_class_bytes(ct__cpu_class_of(1024)), 1024);
    CHECK_INT(ct__cpu_class_bytes(ct__cpu_class_of(1025)), 1088);
    CHECK_INT(ct__cpu_class_bytes(ct__cpu_class_of(2049)), 2176);
    CHECK_INT(ct__cpu_class_bytes(ct__cpu_class_of(64 * 6 * 28 * 28 * 4)), 1245184); /* LeNet's first activation */
    int last = 0;
    for (size_t n = 1; n < ((size_t)1 << 40); n += n / 7 + 1) {
        int c = ct__cpu_class_of(n);
        size_t bytes = ct__cpu_class_bytes(c);
        CHECK(bytes >= n && (n <= 1024 ? bytes - n < 64 : bytes - n <= n / 16));
        CHECK(c >= last && c < CT__CACHE_CLASSES && ct__cpu_class_of(bytes) == c);
        last = c;
    }
}

/* A small tensor keeps its storage in its own block (tensor.c's hosted
 * storage): the allocator does not see it. */
static void test_small_tensors_bypass_the_allocator(void)
{
    fresh_cache();
    ct_memory_counters before = stats();
    ct_scope s = ct_scope_begin();
    ct_tensor *t = ct_full(CT_SHAPE(4), ct_float(2.5), CT_F32);
    CHECK(ct_item(ct_sum(t)) == 10.0);
    ct_memory_counters during = stats();
    ct_scope_end(s);
    CHECK_INT(during.num_allocs, before.num_allocs);
    CHECK_INT(during.allocated_bytes, before.allocated_bytes);
}

/* ---------------------------------------------------------------- statistics */

static void test_statistics(void)
{
    fresh_cache();
    ct_memory_counters before = stats(), s;
    CHECK_INT(before.reserved_bytes, before.allocated_bytes); /* nothing cached */
    ct_tensor *t;
    ct_scope scope = ct_scope_begin();
    CHECK(floats(MIB, &t) != NULL);
    s = stats();
    CHECK_INT(s.allocated_bytes, before.allocated_bytes + (int64_t)MIB);
    CHECK_INT(s.reserved_bytes, before.reserved_bytes + (int64_t)MIB);
    CHECK_INT(s.peak_allocated_bytes, s.allocated_bytes);
    CHECK_INT(s.peak_reserved_bytes, s.reserved_bytes);
    CHECK_INT(s.num_allocs, before.num_allocs + 1);
    ct_scope_end(scope);
    s = stats();
    CHECK_INT(s.allocated_bytes, before.allocated_bytes);
    CHECK_INT(s.reserved_bytes, before.reserved_bytes + (int64_t)MIB); /* cached */
    CHECK_INT(s.peak_allocated_bytes, before.allocated_bytes + (int64_t)MIB);
    CHECK_INT(s.num_frees, before.num_frees + 1);
    CHECK_OK(ct_reset_peak_memory_stats(CT_CPU));
    s = stats();
    CHECK_INT(s.peak_allocated_bytes, s.allocated_bytes);
    CHECK_INT(s.peak_reserved_bytes, s.reserved_bytes);
    long long frees = atomic_load(&large_frees);
    CHECK_OK(ct_empty_cache(CT_CPU));
    s = stats();
    CHECK_INT(s.reserved_bytes, before.reserved_bytes);
    CHECK_INT(s.peak_reserved_bytes, before.reserved_bytes + (int64_t)MIB); /* the peak stays */
    CHECK_INT(atomic_load(&large_frees), frees + 1);
}

/* Under AddressSanitizer a cached block is poisoned: a use after free is
 * still caught. */
static void test_cached_blocks_are_poisoned(void)
{
#if CT__ASAN
    fresh_cache();
    ct_tensor *t;
    ct_scope s = ct_scope_begin();
    float *p = floats(MIB, &t);
    CHECK(!__asan_address_is_poisoned(p) && !__asan_address_is_poisoned(p + MIB / sizeof(float) - 1));
    ct_scope_end(s);
    CHECK(__asan_address_is_poisoned(p) && __asan_address_is_poisoned(p + MIB / sizeof(float) - 1));
    s = ct_scope_begin();
    CHECK(floats(MIB, &t) == p && !__asan_address_is_poisoned(p));
    ct_scope_end(s);
#endif
}

/* ---------------------------------------------------------------- the limit */

/* Two blocks of 1 MiB freed under the current limit: how many bytes it kept. */
static int64_t cached_of_two(void)
{
    ct_memory_counters before = stats();
    ct_tensor *a, *b;
    ct_scope s = ct_scope_begin();
    CHECK(floats(MIB, &a) && floats(MIB, &b));
    ct_scope_end(s);
    ct_memory_counters after = stats();
    CHECK_INT(after.allocated_bytes, before.allocated_bytes);
    return after.reserved_bytes - before.reserved_bytes;
}

static void test_limit_call(void)
{
    fresh_cache();
    CHECK_INT(cached_of_two(), 2 * MIB);
    ct_set_cpu_cache_limit(MIB + MIB / 2); /* a lower limit frees down to it */
    CHECK_INT(stats().reserved_bytes - stats().allocated_bytes, MIB);
    CHECK_OK(ct_empty_cache(CT_CPU));
    long long frees = atomic_load(&large_frees);
    CHECK_INT(cached_of_two(), MIB); /* the second block is past the limit: freed at once */
    CHECK_INT(atomic_load(&large_frees), frees + 1);
    ct_set_cpu_cache_limit(0); /* no cache */
    CHECK_INT(stats().reserved_bytes, stats().allocated_bytes);
    CHECK_INT(cached_of_two(), 0);
    ct_set_cpu_cache_limit(SIZE_MAX);
}

/* CTORCH_CPU_CACHE_MAX, read on the first allocation unless the call set a
 * limit first (the test forgets the call's limit to read it again). */
static void test_limit_environment(void)
{
    unsetenv("CTORCH_CPU_CACHE_MAX");
    CHECK_INT(ct__cpu_cache_limit_from_env(), SIZE_MAX); /* unset */
    setenv("CTORCH_CPU_CACHE_MAX", "1536K", 1);
    CHECK_INT(ct__cpu_cache_limit_from_env(), 1536 * 1024);
    setenv("CTORCH_CPU_CACHE_MAX", "3m", 1);
    CHECK_INT(ct__cpu_cache_limit_from_env(), 3 * MIB);
    setenv("CTORCH_CPU_CACHE_MAX", "2G", 1);
    CHECK_INT(ct__cpu_cache_limit_from_env(), (size_t)2 << 30);
    setenv("CTORCH_CPU_CACHE_MAX", "4096", 1);
    CHECK_INT(ct__cpu_cache_limit_from_env(), 4096);
    const char *unreadable[] = {"", "x", "-1", "12Q", "1MB", "99999999999999999999G"};
    for (size_t i = 0; i < sizeof unreadable / sizeof *unreadable; i++) {
        setenv("CTORCH_CPU_CACHE_MAX", unreadable[i], 1);
        CHECK_INT(ct__cpu_cache_limit_from_env(), SIZE_MAX);
    }
    fresh_cache();
    setenv("CTORCH_CPU_CACHE_MAX", "1536K", 1);
    ct__mutex_lock(&ct__cpu_cache.lock);
    ct__cpu_cache.limit_set = false;
    ct__mutex_unlock(&ct__cpu_cache.lock);
    CHECK_INT(cached_of_two(), MIB);
    unsetenv("CTORCH_CPU_CACHE_MAX");
    ct_set_cpu_cache_limit(SIZE_MAX);
}

/* ---------------------------------------------------------------- out of memory */

/* libc out of memory: the cache goes back to it and it is asked once more;
 * when that fails too (or nothing was cached), PyTorch's error. */
static void test_allocation_failure(void)
{
    fresh_cache();
    ct_tensor *t;
    ct_scope s = ct_scope_begin();
    CHECK(floats(4 * MIB, &t) != NULL);
    ct_scope_end(s); /* cached: 4 MiB, too large for a request of 1 MiB to take */
    long long mallocs = atomic_load(&large_mallocs), frees = atomic_load(&large_frees);
    ct_memory_counters before = stats();
    atomic_store(&large_failures, 1);
    s = ct_scope_begin();
    CHECK(floats(MIB, &t) != NULL); /* the first try fails, the cache goes, the retry succeeds */
    CHECK_INT(atomic_load(&large_mallocs), mallocs + 2);
    CHECK_INT(atomic_load(&large_frees), frees + 1);
    CHECK_INT(stats().reserved_bytes, before.reserved_bytes - 3 * (int64_t)MIB);
    ct_scope_end(s);

    atomic_store(&large_failures, 2); /* the retry fails too */
    mallocs = atomic_load(&large_mallocs);
    s = ct_scope_begin();
    CHECK(ct_empty(CT_SHAPE(4 * MIB / 4), CT_F32) == NULL);
    CHECK_INT(ct_last_error_code(), CT_ERR_MEMORY);
    CHECK(strstr(ct_last_error(), "DefaultCPUAllocator: can't allocate memory") != NULL);
    ct_clear_error();
    ct_scope_end(s);
    CHECK_INT(atomic_load(&large_mallocs), mallocs + 2);
    CHECK_INT(stats().reserved_bytes, stats().allocated_bytes); /* the 1 MiB block went back before the retry */

    atomic_store(&large_failures, 1); /* nothing cached: no retry */
    mallocs = atomic_load(&large_mallocs);
    before = stats();
    s = ct_scope_begin();
    CHECK(ct_empty(CT_SHAPE(MIB / 4), CT_F32) == NULL);
    CHECK_INT(ct_last_error_code(), CT_ERR_MEMORY);
    ct_clear_error();
    ct_scope_end(s);
    CHECK_INT(atomic_load(&large_mallocs), mallocs + 1);
    ct_memory_counters after = stats();
    CHECK(after.allocated_bytes == before.allocated_bytes && after.num_allocs == before.num_allocs);
    atomic_store(&large_failures, 0);
}

/* ---------------------------------------------------------------- threads */

enum { THREADS = 4, ROUNDS = 300, KEPT = 8 };

typedef struct worker {
    int id;
    ct_tensor *kept[KEPT]; /* left for the main thread to free */
    bool ok;
} worker;

/* Tensors of a few sizes (one class shared by all threads), each filled
 * with the thread's id and checked before it is freed: a block handed to
 * two threads at once would show another's id. */
static void *work(void *p)
{
    worker *w = (worker *)p;
    w->ok = true;
    ct_scope s = ct_scope_begin();
    for (int r = 0; r < ROUNDS; r++) {
        ct_scope inner = ct_scope_begin();
        int64_t n = 4096 + 1024 * (r % 5);
        ct_tensor *t = ct_full(CT_SHAPE(n), ct_int(w->id), CT_F32);
        ct_tensor *u = ct_full(CT_SHAPE(n), ct_int(w->id), CT_F32);
        w->ok &= t && u && ct_item(ct_sum(t)) == (double)(n * w->id) && ct_item(ct_sum(u)) == (double)(n * w->id);
        ct_scope_end(inner);
    }
    for (int k = 0; k < KEPT; k++) w->kept[k] = ct_keep(ct_zeros(CT_SHAPE(2048 + k), CT_F32));
    ct_scope_end(s);
    return NULL;
}

static void test_threads(void)
{
    fresh_cache();
    ct_memory_counters before = stats();
    pthread_t th[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i].id = i + 1;
        CHECK(pthread_create(&th[i], NULL, work, &w[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < THREADS; i++) CHECK(w[i].ok);
    ct_memory_counters s = stats();
    CHECK(s.allocated_bytes > before.allocated_bytes); /* the kept tensors */
    for (int i = 0; i < THREADS; i++)
        for (int k = 0; k < KEPT; k++) ct_release(w[i].kept[k]); /* freed on another thread */
    s = stats();
    CHECK_INT(s.allocated_bytes, before.allocated_bytes);
    CHECK_INT(s.num_allocs - before.num_allocs, s.num_frees - before.num_frees);
    CHECK(s.num_allocs - before.num_allocs >= THREADS * (ROUNDS * 2 + KEPT));
    CHECK(s.reserved_bytes > s.allocated_bytes);
    CHECK_OK(ct_empty_cache(CT_CPU));
    CHECK_INT(stats().reserved_bytes, before.reserved_bytes);
}

int main(void)
{
    RUN(test_size_classes);
    RUN(test_freed_block_is_reused);
    RUN(test_small_tensors_bypass_the_allocator);
    RUN(test_statistics);
    RUN(test_cached_blocks_are_poisoned);
    RUN(test_limit_call);
    RUN(test_limit_environment);
    RUN(test_allocation_failure);
    RUN(test_threads);
    return ct_test_report();
}
