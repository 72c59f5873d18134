/* The test device: a second backend, compiled apart from the implementation
 * and registered through ct_register_backend as ctorch_cuda.cu registers
 * CUDA's, under PyTorch's PrivateUse1 type named "testdev".
 *
 * It runs the CPU's kernels, but the host cannot touch its memory outside
 * the backend's own calls: every block is a run of whole pages kept
 * PROT_NONE, and an entry opens the blocks of the tensors (or pointers) its
 * job names for as long as it runs (blocks it allocates meanwhile too). A
 * front end that reads or writes a tensor's memory without the backend
 * table (printing, item, an index parsed on the host, a kernel called
 * directly) crashes the test instead of passing by luck.
 *
 * The arena is one reservation of address space carved into blocks by size
 * class (powers of two, a page at least); a device's freed blocks wait on
 * its stack per class kept outside the arena (its cache, counted in its
 * reserved bytes) until empty_cache hands them to a spare stack any device
 * may take from. Page tables beside it map a page to its block and count
 * how many running calls hold a block open. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and MAP_NORESERVE under -std=c11 */
#define CTORCH_BACKEND
#include "ctorch.h"
#include "testdev.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <sys/mman.h>
#endif

#define TD_RESERVE ((size_t)64 << 30) /* address space only (MAP_NORESERVE) */
#define TD_PAGE_SHIFT 12
#define TD_PAGES (TD_RESERVE >> TD_PAGE_SHIFT)
#define TD_CLASSES 40   /* up to 512 GB blocks: beyond the reservation anyway */
#define TD_DEVICES 2    /* testdev:0 and testdev:1 share the arena */
#define TD_CALL_MAX 16  /* blocks one entry names */

typedef struct td_stack {
    void **items;
    size_t n, cap;
} td_stack;

static const ct_backend *td_cpu;
static char *td_arena;
static size_t td_used;          /* bytes handed out from the arena's start */
static uint32_t *td_first_page; /* page -> 1 + its block's first page (0: no block) */
static uint32_t *td_open_count; /* a block's first page -> calls holding it open */
static uint8_t *td_class_at;    /* a block's first page -> its size class */
static td_stack td_free_blocks[TD_DEVICES][TD_CLASSES];
static td_stack td_spare_blocks[TD_CLASSES];
static ct_memory_counters td_stats[TD_DEVICES];
static pthread_mutex_t td_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int td_depth;          /* this thread's entries running */
static _Thread_local td_stack td_born_open; /* blocks it allocated meanwhile */

static int td_class_of(size_t nbytes)
{
    int c = TD_PAGE_SHIFT;
    while (c < TD_CLASSES && ((size_t)1 << c) < nbytes) c++;
    return c;
}

static bool td_push(td_stack *s, void *p)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        void **items = (void **)realloc(s->items, cap * sizeof *items);
        if (!items) return false;
        s->items = items, s->cap = cap;
    }
    s->items[s->n++] = p;
    return true;
}

/* ---------------------------------------------------------------- opening and sealing */

/* The first page of the block holding p, or -1 when p is not in one. */
static long td_block_page(const void *p)
{
    const char *c = (const char *)p;
    if (!c || c < td_arena || c >= td_arena + td_used) return -1;
    return (long)td_first_page[(size_t)(c - td_arena) >> TD_PAGE_SHIFT] - 1;
}

/* Address space for the arena and its page tables, none of it backed until
 * used: readable and writable, or no access at all. (Windows reserves it,
 * then commits a block when it is first opened.) */
static void *td_reserve(size_t bytes, bool readable)
{
#ifdef _WIN32
    return VirtualAlloc(NULL, bytes, readable ? MEM_RESERVE | MEM_COMMIT : MEM_RESERVE,
                        readable ? PAGE_READWRITE : PAGE_NOACCESS);
#else
    void *p = mmap(NULL, bytes, readable ? PROT_READ | PROT_WRITE : PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
#endif
}

/* Open a block to the host, or seal it. */
static void td_protect(long page, bool open)
{
    char *p = td_arena + ((size_t)page << TD_PAGE_SHIFT);
    size_t n = (size_t)1 << td_class_at[page];
#ifdef _WIN32
    DWORD was;
    if (open) VirtualAlloc(p, n, MEM_COMMIT, PAGE_READWRITE);
    else VirtualProtect(p, n, PAGE_NOACCESS, &was);
#else
    mprotect(p, n, open ? PROT_READ | PROT_WRITE : PROT_NONE);
#endif
}

static void td_open_locked(const void *p)
{
    long page = td_block_page(p);
    if (page >= 0 && td_open_count[page]++ == 0) td_protect(page, true);
}

static void td_close_locked(const void *p)
{
    long page = td_block_page(p);
    if (page >= 0 && td_open_count[page] > 0 && --td_open_count[page] == 0) td_protect(page, false);
}

/* The blocks one entry works on. */
typedef struct td_call {
    const void *ptrs[TD_CALL_MAX];
    int n;
} td_call;

static void td_add(td_call *c, const void *p)
{
    if (p && c->n < TD_CALL_MAX) c->ptrs[c->n++] = p;
}

static void td_add_tensor(td_call *c, const ct_tensor *t)
{
    if (t) td_add(c, t->storage->data);
}

static void td_enter(const td_call *c)
{
    pthread_mutex_lock(&td_lock);
    td_depth++;
    for (int i = 0; i < c->n; i++) td_open_locked(c->ptrs[i]);
    pthread_mutex_unlock(&td_lock);
}

static void td_leave(const td_call *c)
{
    pthread_mutex_lock(&td_lock);
    for (int i = 0; i < c->n; i++) td_close_locked(c->ptrs[i]);
    if (--td_depth == 0) { /* the thread's outermost entry: what it allocated inside is sealed now */
        for (size_t i = 0; i < td_born_open.n; i++) td_close_locked(td_born_open.items[i]);
        td_born_open.n = 0;
    }
    pthread_mutex_unlock(&td_lock);
}

/* ---------------------------------------------------------------- memory */

/* A block of class c for device dev from its cache, the spare stack or the
 * arena's end (those two count in its reserved bytes); NULL when none is left. */
static char *td_take_block_locked(int c, int dev)
{
    size_t size = (size_t)1 << c;
    ct_memory_counters *st = &td_stats[dev];
    if (td_free_blocks[dev][c].n) return (char *)td_free_blocks[dev][c].items[--td_free_blocks[dev][c].n];
    char *p = NULL;
    if (td_spare_blocks[c].n) {
        p = (char *)td_spare_blocks[c].items[--td_spare_blocks[c].n];
    } else if (size <= TD_RESERVE - td_used) {
        p = td_arena + td_used;
        td_used += size;
        size_t first = (size_t)(p - td_arena) >> TD_PAGE_SHIFT;
        for (size_t k = 0; k < size >> TD_PAGE_SHIFT; k++) td_first_page[first + k] = (uint32_t)first + 1;
        td_class_at[first] = (uint8_t)c;
    }
    if (p) {
        st->reserved_bytes += (int64_t)size;
        if (st->reserved_bytes > st->peak_reserved_bytes) st->peak_reserved_bytes = st->reserved_bytes;
    }
    return p;
}

static void *td_alloc(size_t nbytes, int device_index)
{
    int c = td_class_of(nbytes);
    char *p = NULL;
    pthread_mutex_lock(&td_lock);
    if (c < TD_CLASSES) p = td_take_block_locked(c, device_index);
    if (p) {
        ct_memory_counters *st = &td_stats[device_index];
        st->allocated_bytes += (int64_t)1 << c;
        if (st->allocated_bytes > st->peak_allocated_bytes) st->peak_allocated_bytes = st->allocated_bytes;
        st->num_allocs++;
    }
    /* a kernel allocating scratch on the device reads it until its outermost entry ends */
    if (p && td_depth > 0 && td_push(&td_born_open, p)) td_open_locked(p);
    pthread_mutex_unlock(&td_lock);
    if (!p) ct_set_error(CT_ERR_MEMORY, "testdev out of memory");
    return p;
}

static void td_free(void *ptr, size_t nbytes, int device_index)
{
    int c = td_class_of(nbytes);
    pthread_mutex_lock(&td_lock);
    for (size_t i = 0; i < td_born_open.n; i++) /* freed before its maker's entry ended */
        if (td_born_open.items[i] == ptr) {
            td_close_locked(ptr);
            td_born_open.items[i] = td_born_open.items[--td_born_open.n];
            break;
        }
    td_stats[device_index].allocated_bytes -= (int64_t)1 << c;
    td_stats[device_index].num_frees++;
    /* (when the stack cannot grow the block is lost to reuse; still reserved) */
    td_push(&td_free_blocks[device_index][c], ptr);
    pthread_mutex_unlock(&td_lock);
}

static void td_memory_stats(int device_index, ct_memory_counters *out)
{
    pthread_mutex_lock(&td_lock);
    *out = td_stats[device_index];
    pthread_mutex_unlock(&td_lock);
}

static void td_reset_peak_memory_stats(int device_index)
{
    pthread_mutex_lock(&td_lock);
    td_stats[device_index].peak_allocated_bytes = td_stats[device_index].allocated_bytes;
    td_stats[device_index].peak_reserved_bytes = td_stats[device_index].reserved_bytes;
    pthread_mutex_unlock(&td_lock);
}

/* The device's cached blocks go to the spare stack (those it cannot move stay cached). */
static void td_empty_cache(int device_index)
{
    pthread_mutex_lock(&td_lock);
    for (int c = 0; c < TD_CLASSES; c++) {
        td_stack *cache = &td_free_blocks[device_index][c];
        while (cache->n && td_push(&td_spare_blocks[c], cache->items[cache->n - 1])) {
            cache->n--;
            td_stats[device_index].reserved_bytes -= (int64_t)1 << c;
        }
    }
    pthread_mutex_unlock(&td_lock);
}

/* ---------------------------------------------------------------- the CPU's kernels, sealed around */

static int td_device_count(void) { return TD_DEVICES; }
static void td_synchronize(int device_index) { (void)device_index; }

/* Each entry: name the blocks its job works on, open them, run the CPU's kernel, seal them. */
#define TD_RUN(call, ...)                  \
    do {                                   \
        td_enter(call);                    \
        __VA_ARGS__;                       \
        td_leave(call);                    \
    } while (0)

static void td_copy(ct_tensor *dst, const ct_tensor *src, bool non_blocking)
{
    td_call c = {{0}, 0};
    td_add_tensor(&c, dst), td_add_tensor(&c, src);
    TD_RUN(&c, td_cpu->copy(dst, src, non_blocking));
}

static void td_fill(ct_tensor *dst, const void *elem)
{
    td_call c = {{0}, 0};
    td_add_tensor(&c, dst);
    TD_RUN(&c, td_cpu->fill(dst, elem));
}

static bool td_has_pointwise(ct__op op, ct_dtype dt) { return td_cpu->has_pointwise(op, dt); }

/* The tensor operands of each pointwise op, from the op table. */
static const int td_arity[] = {
#define TD_ARITY(name, arity, rule, forms, kernel) arity,
    CT__POINTWISE_OPS(TD_ARITY)
#undef TD_ARITY
};

static void td_pointwise(ct__op op, ct_tensor *out, const ct_tensor *const *inputs, const ct__op_args *args)
{
    td_call c = {{0}, 0};
    td_add_tensor(&c, out);
    for (int i = 0; i < td_arity[op]; i++) td_add_tensor(&c, inputs[i]);
    TD_RUN(&c, td_cpu->pointwise(op, out, inputs, args));
}

static void td_index(ct__index_job *job)
{
    td_call c = {{0}, 0};
    td_add_tensor(&c, job->dst), td_add_tensor(&c, job->src), td_add_tensor(&c, job->index);
    TD_RUN(&c, td_cpu->index(job));
}

static ct_result td_sorting(ct__op op, ct__sort_job *job)
{
    ct_result r;
    td_call c = {{0}, 0};
    td_add_tensor(&c, job->input), td_add_tensor(&c, job->boundaries), td_add_tensor(&c, job->sorter);
    td_add_tensor(&c, job->values), td_add_tensor(&c, job->indices), td_add_tensor(&c, job->counts);
    TD_RUN(&c, r = td_cpu->sorting(op, job));
    return r;
}

static void td_reduce(ct__rop op, ct_tensor *out, const ct_tensor *in, uint32_t mask, const ct__rargs *args)
{
    td_call c = {{0}, 0};
    td_add_tensor(&c, out), td_add_tensor(&c, in), td_add_tensor(&c, args ? args->mean : NULL);
    TD_RUN(&c, td_cpu->reduce->reduce(op, out, in, mask, args));
}

static ct_result td_along(ct__aop op, ct_tensor *values, ct_tensor *indices, const ct_tensor *in, int dim)
{
    ct_result r;
    td_call c = {{0}, 0};
    td_add_tensor(&c, values), td_add_tensor(&c, indices), td_add_tensor(&c, in);
    TD_RUN(&c, r = td_cpu->reduce->along(op, values, indices, in, dim));
    return r;
}

static void td_gemm(const ct__gemm_job *job)
{
    td_call c = {{0}, 0};
    td_add(&c, job->A), td_add(&c, job->B), td_add(&c, job->C);
    TD_RUN(&c, td_cpu->gemm(job));
}

static void td_range(const ct__range_job *job)
{
    td_call c = {{0}, 0};
    td_add_tensor(&c, job->out);
    TD_RUN(&c, td_cpu->range(job));
}

/* The test device's generators hold the CPU's mt19937 state (its bytes as
 * get_state lays them out), so that a seed gives the CPU's numbers here too
 * and the suites' golden values hold on the device; each is a generator of
 * its own all the same. A sampler runs the CPU's kernel on a scratch CPU
 * generator loaded with the device generator's state, then stores it back. */
#define TD_RNG_BYTES 5056
static ct_generator *td_rng;
static pthread_mutex_t td_rng_lock = PTHREAD_MUTEX_INITIALIZER;

static void td_rng_seed(void *state, uint64_t seed)
{
    pthread_mutex_lock(&td_rng_lock);
    ct_generator_manual_seed(td_rng, seed);
    ct_generator_get_state(td_rng, state);
    pthread_mutex_unlock(&td_rng_lock);
}

static uint64_t td_rng_initial_seed(const void *state)
{
    uint64_t seed;
    memcpy(&seed, state, sizeof seed); /* the state's first field */
    return seed;
}

static ct_result td_rng_check_state(const void *bytes, size_t nbytes)
{
    pthread_mutex_lock(&td_rng_lock);
    ct_result r = ct_generator_set_state(td_rng, bytes, nbytes);
    pthread_mutex_unlock(&td_rng_lock);
    return r;
}

static const ct_generator_kind td_generator = {TD_RNG_BYTES, td_rng_seed, td_rng_initial_seed, td_rng_check_state};

static ct_result td_random(const ct__random_job *job)
{
    ct_result r;
    td_call c = {{0}, 0};
    td_add_tensor(&c, job->out), td_add_tensor(&c, job->input), td_add_tensor(&c, job->input2);
    ct__random_job on_cpu = *job;
    on_cpu.state = NULL;
    pthread_mutex_lock(&td_rng_lock);
    ct_generator_set_state(td_rng, job->state, TD_RNG_BYTES);
    on_cpu.g = td_rng;
    TD_RUN(&c, r = td_cpu->random(&on_cpu));
    ct_generator_get_state(td_rng, job->state);
    pthread_mutex_unlock(&td_rng_lock);
    return r;
}

static ct_result td_conv(const ct__conv_job *job)
{
    ct_result r;
    td_call c = {{0}, 0};
    td_add(&c, job->x), td_add(&c, job->w), td_add(&c, job->b), td_add(&c, job->out);
    TD_RUN(&c, r = td_cpu->conv(job));
    return r;
}

static void td_linmap(const ct__linmap_job *job)
{
    td_call c = {{0}, 0};
    td_add(&c, job->x), td_add(&c, job->out), td_add(&c, job->values);
    TD_RUN(&c, td_cpu->linmap(job));
}

static void td_optim_step(const ct__optim_job *job)
{
    td_call c = {{0}, 0};
    td_add(&c, job->p), td_add(&c, job->grad);
    for (int i = 0; i < 3; i++) td_add(&c, job->buf[i]);
    TD_RUN(&c, td_cpu->optim_step(job));
}

static void td_bn_stats(const ct__bn_stats_job *job)
{
    td_call c = {{0}, 0};
    td_add(&c, job->x), td_add(&c, job->mean), td_add(&c, job->var_sum);
    TD_RUN(&c, td_cpu->bn_stats(job));
}

static ct_result td_layer_norm(const ct__layer_norm_job *job)
{
    td_call c = {{0}, 0};
    td_add(&c, job->x), td_add(&c, job->g), td_add(&c, job->w), td_add(&c, job->b);
    td_add(&c, job->y), td_add(&c, job->gxhat);
    ct_result r = CT_OK;
    TD_RUN(&c, r = td_cpu->layer_norm(job));
    return r;
}

static const ct__reduce_kernels td_reduce_kernels = {td_reduce, td_along};
static const ct_backend td_backend = {"testdev", td_device_count, td_alloc,      td_free,
                                      td_copy,   td_fill,         td_has_pointwise, td_pointwise,
                                      td_index,  td_sorting,      &td_reduce_kernels, td_gemm,
                                      td_range,  td_random,       &td_generator, td_conv,
                                      td_linmap, td_optim_step,   td_bn_stats,   td_layer_norm,
                                      td_synchronize, td_memory_stats, td_reset_peak_memory_stats,
                                      td_empty_cache, NULL /* no streams */, NULL, NULL /* no pinned memory */};

ct_result ct_testdev_register(void)
{
    if (!td_arena) {
        td_first_page = (uint32_t *)td_reserve(TD_PAGES * sizeof(uint32_t), true);
        td_open_count = (uint32_t *)td_reserve(TD_PAGES * sizeof(uint32_t), true);
        td_class_at = (uint8_t *)td_reserve(TD_PAGES, true);
        td_arena = (char *)td_reserve(TD_RESERVE, false);
        if (!td_first_page || !td_open_count || !td_class_at || !td_arena)
            return ct_set_error(CT_ERR_MEMORY, "testdev: cannot reserve its arena");
        td_cpu = ct_backend_get(CT_DEVICE_CPU);
        if (!(td_rng = ct_generator_new())) return ct_last_error_code();
        if (ct_generator_state_size(td_rng) != TD_RNG_BYTES)
            return ct_set_error(CT_ERR_RUNTIME, "testdev: the CPU generator's state is not 5056 bytes");
    }
    return ct_register_backend(CT_DEVICE_PRIVATEUSE1, &td_backend, CT_BACKEND_ABI_VERSION);
}

bool ct_testdev_readable(const void *p)
{
    pthread_mutex_lock(&td_lock);
    long page = td_block_page(p);
    bool readable = page < 0 || td_open_count[page] > 0;
    pthread_mutex_unlock(&td_lock);
    return readable;
}
