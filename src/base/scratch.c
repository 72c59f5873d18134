/* Per-thread scratch memory: the GEMM's packing buffers and the convolutions'
 * columns. A thread's buffer in each slot grows to the largest size asked and
 * is kept for the next call (a product or a convolution then allocates
 * nothing, and fresh pages would fault in at every call, which costs as much
 * as a small convolution's work). Likewise a few freed blocks of small
 * tensors are kept for the thread's next ones (malloc and free cost a tiny
 * op a seventh of its time). The buffers and blocks are freed when their
 * thread exits: the thread's first one registers them with a key whose
 * destructor frees them (ct__exit_key in threads.h; DataLoader workers and
 * the caller's own threads come and go, the main thread's last until the
 * process ends).
 * The key holds a heap copy that the thread-local variable points to, not
 * the variable itself: where thread-locals are emulated (MinGW's emutls)
 * their memory may be gone before the key's destructor runs. */

enum {
    CT__SCRATCH_PACK_A_s, /* the GEMM's packed blocks of A and panels of B, float and double */
    CT__SCRATCH_PACK_B_s,
    CT__SCRATCH_PACK_A_d,
    CT__SCRATCH_PACK_B_d,
    CT__SCRATCH_CONV, /* the convolutions' columns and padded images */
    CT__SCRATCH_CONV_GRAD, /* a convolution's output gradient made contiguous for its backward */
    CT__SCRATCH_SLOTS
};

/* Under AddressSanitizer no block is kept: malloc then catches a use after free. */
#if defined(__SANITIZE_ADDRESS__)
#define CT__ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CT__ASAN 1
#endif
#endif
#ifndef CT__ASAN
#define CT__ASAN 0
#endif
#define CT__BLOCKS_KEPT 8

typedef struct ct__scratch {
    void *buf[CT__SCRATCH_SLOTS];
    size_t cap[CT__SCRATCH_SLOTS];
    void *blocks[CT__BLOCKS_KEPT]; /* freed blocks of CT__HOSTED_BLOCK bytes */
    int nblocks;
} ct__scratch;

static CT__TLS ct__scratch *ct__thread_scratch;
static ct__exit_key ct__scratch_key;
static ct__once ct__scratch_once = CT__ONCE_INIT;
static bool ct__scratch_key_made;

static void CT__AT_EXIT ct__scratch_free(void *p)
{
    ct__scratch *s = (ct__scratch *)p;
    for (int i = 0; i < CT__SCRATCH_SLOTS; i++) {
        CT_FREE(s->buf[i]);
        s->buf[i] = NULL;
        s->cap[i] = 0;
    }
    while (s->nblocks > 0) CT_FREE(s->blocks[--s->nblocks]);
    CT_FREE(s);
    ct__thread_scratch = NULL;
}

static void ct__scratch_make_key(void) { ct__scratch_key_made = ct__exit_key_create(&ct__scratch_key, ct__scratch_free); }

/* The thread's scratch, made and registered to be freed at its exit on the
 * first call; NULL when that fails (out of memory). */
static ct__scratch *ct__my_scratch(void)
{
    if (ct__thread_scratch) return ct__thread_scratch;
    ct__call_once(&ct__scratch_once, ct__scratch_make_key);
    ct__scratch *s = ct__scratch_key_made ? (ct__scratch *)CT_MALLOC(sizeof *s) : NULL;
    if (s) memset(s, 0, sizeof *s);
    if (s && !ct__exit_key_set(ct__scratch_key, s)) {
        CT_FREE(s);
        s = NULL;
    }
    return ct__thread_scratch = s;
}

/* The calling thread's buffer in `slot`, grown to at least `bytes` (its
 * contents are not kept when it grows); NULL: out of memory. */
static void *ct__scratch_get(int slot, size_t bytes)
{
    ct__scratch *s = ct__my_scratch();
    if (!s) return NULL;
    if (bytes <= s->cap[slot]) return s->buf[slot];
    void *p = CT_REALLOC(s->buf[slot], bytes);
    if (!p) return NULL;
    s->buf[slot] = p;
    s->cap[slot] = bytes;
    return p;
}

/* A block of CT__HOSTED_BLOCK bytes for a small tensor: one the thread freed
 * before, or a new one. NULL: out of memory. */
static void *ct__block_get(void)
{
    ct__scratch *s = ct__thread_scratch; /* (none yet: no block kept either) */
    return s && s->nblocks > 0 ? s->blocks[--s->nblocks] : CT_MALLOC(CT__HOSTED_BLOCK);
}

/* Frees a block of ct__block_get, or keeps it for the thread's next small tensor. */
static void ct__block_put(void *block)
{
    ct__scratch *s = CT__ASAN ? NULL : ct__my_scratch();
    if (s && s->nblocks < CT__BLOCKS_KEPT) s->blocks[s->nblocks++] = block;
    else CT_FREE(block);
}
