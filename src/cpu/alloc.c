/* The CPU allocator: 64-byte aligned blocks over CT_MALLOC, and a cache of
 * freed blocks by size class.
 *
 * A training loop asks for the same sizes at every step; without the cache
 * each step takes fresh memory from libc and gives it back, and the kernel
 * faults every page of every new activation in again on its first touch (a
 * third of a small CNN's step). A freed block therefore waits in its class's
 * list for the next request of that class (or of a smaller one: see
 * CT__CACHE_REACH). Classes are fine (16 per power of two, 64 bytes apart
 * below 1 KB): a fresh block is at most 1/16 larger than asked, where powers
 * of two would waste up to half. The cache holds at most a
 * limit (CTORCH_CPU_CACHE_MAX, ct_set_cpu_cache_limit; unlimited by
 * default): a block freed past it goes back to libc at once.
 *
 * One mutex guards the lists and the counters: DataLoader workers allocate
 * on their threads, and a block may be freed on another. libc is called
 * outside it. */

/* Under AddressSanitizer a cached block is poisoned until it is handed out
 * again, so a use after free of a tensor's memory is still reported (as a
 * use of poisoned memory) while the cache itself is exercised. */
#if CT__ASAN
#include <sanitizer/asan_interface.h>
#define CT__POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define CT__UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define CT__POISON(p, n) ((void)(p), (void)(n))
#define CT__UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Blocks of at least 32 MB, with libc's allocator on Linux, ask for
 * transparent huge pages (Linux gives them only on request by default): a
 * new output that large is then faulted in 2 MB at a time, about twice as
 * fast as in 4 KB pages, and the ops that make one (a + b on 10M floats)
 * spend about half their time faulting. 32 MB is glibc's largest mmap
 * threshold: smaller blocks may come back from its heap already faulted
 * in, which is faster still. Such a block is 2 MB aligned and a whole
 * number of 2 MB long, so its last huge page may hold up to 2 MB more than
 * the tensor asked for. */
#define CT__HUGE_PAGE ((size_t)2 << 20)
#define CT__HUGE_BLOCK ((size_t)32 << 20)
#if defined(__linux__) && defined(CT__LIBC_ALLOCATOR)
#include <sys/mman.h>
#ifndef MADV_HUGEPAGE /* named only under _DEFAULT_SOURCE; every Linux libc has madvise */
#define MADV_HUGEPAGE 14
#ifdef __cplusplus
extern "C" int madvise(void *addr, size_t len, int advice);
#else
int madvise(void *addr, size_t len, int advice);
#endif
#endif

static char *ct__cpu_alloc_raw(size_t nbytes)
{
    if (nbytes < CT__HUGE_BLOCK) return (char *)CT_MALLOC(nbytes);
    size_t size = (nbytes + CT__HUGE_PAGE - 1) & ~(CT__HUGE_PAGE - 1);
    char *raw = (char *)aligned_alloc(CT__HUGE_PAGE, size);
    if (raw) madvise(raw, size, MADV_HUGEPAGE); /* (only advice: refused, the pages are small ones) */
    return raw;
}
#else
static char *ct__cpu_alloc_raw(size_t nbytes) { return (char *)CT_MALLOC(nbytes); }
#endif

/* ---------------------------------------------------------------- blocks */

/* A block is 64-byte aligned (one cache line, one AVX-512 vector); its
 * header lies just before it. */
typedef struct ct__cpu_block {
    void *next; /* while cached: the next block of its class's list */
    int c;      /* its size class */
    void *raw;  /* what libc returned */
} ct__cpu_block;

static ct__cpu_block *ct__cpu_header(void *block) { return (ct__cpu_block *)block - 1; }

static void *ct__cpu_block_new(int c, size_t class_bytes)
{
    char *raw = ct__cpu_alloc_raw(class_bytes + 64 + sizeof(ct__cpu_block));
    if (!raw) return NULL;
    void *block = (void *)(((uintptr_t)raw + sizeof(ct__cpu_block) + 63) & ~(uintptr_t)63);
    ct__cpu_header(block)->c = c;
    ct__cpu_header(block)->raw = raw;
    return block;
}

static void ct__cpu_block_delete(void *block) { CT_FREE(ct__cpu_header(block)->raw); }

/* ---------------------------------------------------------------- size classes */

/* Requests of more than half the address space fail before any rounding. */
#define CT__CPU_MAX_REQUEST (SIZE_MAX / 2 - CT__HUGE_PAGE)
#define CT__CACHE_CLASSES (16 * (int)(sizeof(size_t) * CHAR_BIT - 10) + 17)

/* The size of class c: up to 1 KB (classes 1-16) multiples of 64, above it
 * 16 steps per power of two. */
static size_t ct__cpu_class_bytes(int c)
{
    if (c <= 16) return (size_t)c * 64;
    int e = 10 + (c - 17) / 16;
    return (size_t)(c - (e - 10) * 16) << (e - 4);
}

/* The smallest class holding nbytes (<= CT__CPU_MAX_REQUEST): above 1 KB,
 * the next of 16 steps in the request's power of two (2^e, 2^(e+1)]. */
static int ct__cpu_class_of(size_t nbytes)
{
    if (nbytes <= 1024) return nbytes ? (int)((nbytes + 63) / 64) : 1; /* (class 0 would hold empty blocks) */
    int e = ct__floor_log2((int64_t)(nbytes - 1)); /* >= 10 (src/tensor/random.c) */
    size_t step = (size_t)1 << (e - 4);
    return (e - 10) * 16 + (int)((nbytes + step - 1) / step); /* the step count is 17..32 */
}

/* ---------------------------------------------------------------- the cache */

static struct {
    ct__mutex lock;
    void *free_blocks[CT__CACHE_CLASSES]; /* each class's list, linked through the headers */
    ct_memory_counters stats;             /* reserved = allocated + cached */
    size_t limit;                         /* the most cached bytes */
    bool limit_set;                       /* (else read from the environment on first use) */
} ct__cpu_cache = {CT__MUTEX_INIT, {NULL}, {0, 0, 0, 0, 0, 0}, 0, false};

static int64_t ct__cpu_cached_bytes_locked(void)
{
    return ct__cpu_cache.stats.reserved_bytes - ct__cpu_cache.stats.allocated_bytes;
}

/* CTORCH_CPU_CACHE_MAX: bytes, with an optional K, M or G (binary units);
 * unset or unreadable: no limit. */
static size_t ct__cpu_cache_limit_from_env(void)
{
    const char *s = getenv("CTORCH_CPU_CACHE_MAX");
    if (!s || *s < '0' || *s > '9') return SIZE_MAX;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 0;
    if (shift) end++;
    if (*end || v > (unsigned long long)(SIZE_MAX >> shift)) return SIZE_MAX;
    return (size_t)v << shift;
}

static size_t ct__cpu_cache_limit_locked(void)
{
    if (!ct__cpu_cache.limit_set) {
        ct__cpu_cache.limit = ct__cpu_cache_limit_from_env();
        ct__cpu_cache.limit_set = true;
    }
    return ct__cpu_cache.limit;
}

static void ct__cpu_count_reserved_locked(int64_t delta)
{
    ct_memory_counters *st = &ct__cpu_cache.stats;
    st->reserved_bytes += delta;
    if (st->reserved_bytes > st->peak_reserved_bytes) st->peak_reserved_bytes = st->reserved_bytes;
}

static void ct__cpu_count_alloc_locked(size_t class_bytes)
{
    ct_memory_counters *st = &ct__cpu_cache.stats;
    st->allocated_bytes += (int64_t)class_bytes;
    if (st->allocated_bytes > st->peak_allocated_bytes) st->peak_allocated_bytes = st->allocated_bytes;
    st->num_allocs++;
}

/* How far up a request may take a cached block of a larger class when its
 * own has none: 16 classes, a block at most twice the request. A training
 * step frees and asks for different sizes in turn (the forward's
 * activations, then the backward's gradients); taking a larger block that
 * waits keeps the cache near the peak of the bytes in use. With exact
 * classes alone LeNet's step reserved 55% more than that peak, and the
 * process's peak resident memory grew 12%; with this, 38% and 8%. */
#define CT__CACHE_REACH 16

static void *ct__cpu_list_pop_locked(int c)
{
    void *block = ct__cpu_cache.free_blocks[c];
    if (block) ct__cpu_cache.free_blocks[c] = ct__cpu_header(block)->next;
    return block;
}

static void ct__cpu_list_push(void **list, void *block)
{
    ct__cpu_header(block)->next = *list;
    *list = block;
}

/* A cached block of class c or up to CT__CACHE_REACH classes above it,
 * counted as allocated; NULL when none waits. */
static void *ct__cpu_cache_take(int c)
{
    void *block = NULL;
    ct__mutex_lock(&ct__cpu_cache.lock);
    for (int k = c; !block && k <= c + CT__CACHE_REACH && k < CT__CACHE_CLASSES; k++) block = ct__cpu_list_pop_locked(k);
    if (block) ct__cpu_count_alloc_locked(ct__cpu_class_bytes(ct__cpu_header(block)->c));
    ct__mutex_unlock(&ct__cpu_cache.lock);
    if (block) CT__UNPOISON(block, ct__cpu_class_bytes(ct__cpu_header(block)->c));
    return block;
}

/* Cached blocks, the largest first, unlinked from their lists and no longer
 * counted as reserved until the cache holds at most keep bytes: one list
 * for ct__cpu_blocks_delete. */
static void *ct__cpu_cache_trim_locked(size_t keep)
{
    void *out = NULL;
    for (int c = CT__CACHE_CLASSES - 1; c > 0 && (size_t)ct__cpu_cached_bytes_locked() > keep; c--)
        while (ct__cpu_cache.free_blocks[c] && (size_t)ct__cpu_cached_bytes_locked() > keep) {
            ct__cpu_list_push(&out, ct__cpu_list_pop_locked(c));
            ct__cpu_count_reserved_locked(-(int64_t)ct__cpu_class_bytes(c));
        }
    return out;
}

/* The blocks of a trimmed list back to libc; whether there were any. */
static bool ct__cpu_blocks_delete(void *list)
{
    bool any = list != NULL;
    while (list) {
        void *next = ct__cpu_header(list)->next;
        ct__cpu_block_delete(list); /* (libc takes poisoned memory back: ASan's free repoisons it all) */
        list = next;
    }
    return any;
}

/* Cached blocks back to libc until the cache holds at most keep bytes;
 * whether any went. */
static bool ct__cpu_cache_shrink(size_t keep)
{
    ct__mutex_lock(&ct__cpu_cache.lock);
    void *out = ct__cpu_cache_trim_locked(keep);
    ct__mutex_unlock(&ct__cpu_cache.lock);
    return ct__cpu_blocks_delete(out);
}

/* A fresh block from libc; when it has none left, the cache goes back to it
 * first and libc is asked once more. */
static void *ct__cpu_block_fresh(int c)
{
    size_t class_bytes = ct__cpu_class_bytes(c);
    void *block = ct__cpu_block_new(c, class_bytes);
    if (!block && ct__cpu_cache_shrink(0)) block = ct__cpu_block_new(c, class_bytes);
    if (!block) return NULL;
    ct__mutex_lock(&ct__cpu_cache.lock);
    ct__cpu_count_reserved_locked((int64_t)class_bytes);
    ct__cpu_count_alloc_locked(class_bytes);
    ct__mutex_unlock(&ct__cpu_cache.lock);
    return block;
}

static void *ct__cpu_alloc(size_t nbytes, int device_index)
{
    (void)device_index;
    if (nbytes > CT__CPU_MAX_REQUEST) return NULL;
    int c = ct__cpu_class_of(nbytes);
    void *block = ct__cpu_cache_take(c);
    return block ? block : ct__cpu_block_fresh(c);
}

/* The block waits in its class's list, or goes back to libc when the cache
 * would pass its limit. (Its class is in its header: it may be larger than
 * nbytes asked.) */
static void ct__cpu_free(void *block, size_t nbytes, int device_index)
{
    (void)nbytes, (void)device_index;
    if (!block) return;
    int c = ct__cpu_header(block)->c;
    size_t class_bytes = ct__cpu_class_bytes(c);
    ct__mutex_lock(&ct__cpu_cache.lock);
    size_t limit = ct__cpu_cache_limit_locked(), cached = (size_t)ct__cpu_cached_bytes_locked();
    bool keep = class_bytes <= limit && cached <= limit - class_bytes;
    ct__cpu_cache.stats.allocated_bytes -= (int64_t)class_bytes;
    ct__cpu_cache.stats.num_frees++;
    if (keep) {
        CT__POISON(block, class_bytes);
        ct__cpu_list_push(&ct__cpu_cache.free_blocks[c], block);
    } else {
        ct__cpu_count_reserved_locked(-(int64_t)class_bytes);
    }
    ct__mutex_unlock(&ct__cpu_cache.lock);
    if (!keep) ct__cpu_block_delete(block);
}

/* ---------------------------------------------------------------- statistics */

static void ct__cpu_memory_stats(int device_index, ct_memory_counters *out)
{
    (void)device_index;
    ct__mutex_lock(&ct__cpu_cache.lock);
    *out = ct__cpu_cache.stats;
    ct__mutex_unlock(&ct__cpu_cache.lock);
}

static void ct__cpu_reset_peak_memory_stats(int device_index)
{
    (void)device_index;
    ct__mutex_lock(&ct__cpu_cache.lock);
    ct__cpu_cache.stats.peak_allocated_bytes = ct__cpu_cache.stats.allocated_bytes;
    ct__cpu_cache.stats.peak_reserved_bytes = ct__cpu_cache.stats.reserved_bytes;
    ct__mutex_unlock(&ct__cpu_cache.lock);
}

static void ct__cpu_empty_cache(int device_index)
{
    (void)device_index;
    ct__cpu_cache_shrink(0);
}

void ct_set_cpu_cache_limit(size_t bytes)
{
    ct__mutex_lock(&ct__cpu_cache.lock);
    ct__cpu_cache.limit = bytes;
    ct__cpu_cache.limit_set = true;
    void *out = ct__cpu_cache_trim_locked(bytes);
    ct__mutex_unlock(&ct__cpu_cache.lock);
    ct__cpu_blocks_delete(out);
}
