/* Samplers (torch/utils/data/sampler.py, distributed.py). A pass draws its
 * random numbers when PyTorch's generator functions would: at the first
 * next(), and RandomSampler chunk by chunk (a randperm of n, or a randint of
 * 32) as the pass reaches it, so a generator shared with other code is
 * consumed in PyTorch's order. */

typedef enum ct__sampler_kind {
    CT__SAMPLER_USER,
    CT__SAMPLER_SEQUENTIAL,
    CT__SAMPLER_RANDOM,
    CT__SAMPLER_SUBSET_RANDOM,
    CT__SAMPLER_WEIGHTED,
    CT__SAMPLER_BATCH,
    CT__SAMPLER_DISTRIBUTED
} ct__sampler_kind;

static const char *const ct__sampler_names[] = {"Sampler", "SequentialSampler", "RandomSampler",
                                                "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
                                                "DistributedSampler"};

struct ct_sampler {
    int refcount;
    ct__sampler_kind kind;
    int64_t n;               /* the dataset's length (or how many indices / weights) */
    int64_t num_samples;     /* Random, Weighted, Distributed: samples in a pass */
    int64_t *values;         /* SubsetRandom: the indices; Weighted: NULL */
    double *weights;         /* Weighted */
    bool replacement, drop_last, shuffle;
    ct_generator *generator; /* the caller's, or NULL */
    ct_generator *own;       /* RandomSampler without a generator: seeded per pass */
    int64_t batch_size;      /* Batch */
    ct_sampler *base;        /* Batch */
    int64_t num_replicas, rank, seed, epoch; /* Distributed */
    ct_sampler_desc user;    /* User */
    /* the pass */
    bool started;
    int64_t *chunk; /* indices drawn and not yet given out: chunk[pos..chunk_n) */
    int64_t chunk_n, pos, chunks_left;
};

static ct_sampler *ct__sampler_alloc(ct__sampler_kind kind, int64_t n)
{
    ct_sampler *s = (ct_sampler *)CT_MALLOC(sizeof *s);
    if (!s) {
        CT__OOM();
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->refcount = 1;
    s->kind = kind;
    s->n = n;
    return s;
}

static bool ct__check_len(int64_t n)
{
    if (n >= 0) return true;
    ct__fail(CT_ERR_VALUE, "a dataset's length must be >= 0, not %lld", (long long)n);
    return false;
}

ct_sampler *ct_sampler_new(ct_sampler_desc desc)
{
    if (!desc.next || desc.max_batch < 0) {
        ct__fail(CT_ERR_VALUE, "ct_sampler_new(): a sampler needs next, and max_batch >= 0");
        return NULL;
    }
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_USER, 0);
    if (s) s->user = desc;
    else if (desc.free) desc.free(desc.user);
    return s;
}

ct_sampler *ct_sequential_sampler(int64_t n)
{
    return ct__check_len(n) ? ct__sampler_alloc(CT__SAMPLER_SEQUENTIAL, n) : NULL;
}

static bool ct__check_num_samples(int64_t num_samples)
{
    if (num_samples > 0) return true;
    ct__fail(CT_ERR_VALUE, "num_samples should be a positive integer value, but got num_samples=%lld",
             (long long)num_samples);
    return false;
}

ct_sampler *ct_random_sampler(int64_t n, ct_random_sampler_opts opts)
{
    int64_t num_samples = opts.num_samples ? opts.num_samples : n;
    if (!ct__check_len(n) || !ct__check_num_samples(num_samples)) return NULL;
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_RANDOM, n);
    if (!s) return NULL;
    s->num_samples = num_samples;
    s->replacement = opts.replacement;
    s->generator = opts.generator;
    return s;
}

ct_sampler *ct_subset_random_sampler(const int64_t *indices, int64_t n, ct_generator *g)
{
    if (n < 0 || (n > 0 && !indices)) {
        ct__fail(CT_ERR_VALUE, "SubsetRandomSampler(): indices must be a list of n >= 0 indices");
        return NULL;
    }
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_SUBSET_RANDOM, n);
    if (s && !(s->values = ct__copy_indices(indices, n))) {
        CT_FREE(s);
        return NULL;
    }
    if (s) s->generator = g;
    return s;
}

ct_weighted_random_sampler_opts ct_weighted_random_sampler_opts_init(void)
{
    ct_weighted_random_sampler_opts o;
    memset(&o, 0, sizeof o);
    o.replacement = true;
    return o;
}

ct_sampler *ct_weighted_random_sampler(const double *weights, int64_t n, ct_weighted_random_sampler_opts opts)
{
    if (!ct__check_num_samples(opts.num_samples)) return NULL;
    if (n < 0 || (n > 0 && !weights)) {
        ct__fail(CT_ERR_VALUE, "WeightedRandomSampler(): weights must be a list of n >= 0 weights");
        return NULL;
    }
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_WEIGHTED, n);
    if (!s) return NULL;
    s->weights = (double *)CT_MALLOC(((size_t)n + 1) * sizeof *s->weights);
    if (!s->weights) {
        CT_FREE(s);
        CT__OOM();
        return NULL;
    }
    if (n > 0) memcpy(s->weights, weights, (size_t)n * sizeof *weights);
    s->num_samples = opts.num_samples;
    s->replacement = opts.replacement;
    s->generator = opts.generator;
    return s;
}

static ct_result ct__null_sampler(const char *fn, const char *arg)
{
    if (ct_last_error_code() != CT_OK) return ct_last_error_code();
    return ct__fail(CT_ERR_TYPE, "%s(): argument '%s' must be a sampler, not NULL", fn, arg);
}

ct_sampler *ct_batch_sampler(ct_sampler *sampler, int64_t batch_size, bool drop_last)
{
    if (!sampler) {
        ct__null_sampler("batch_sampler", "sampler");
        return NULL;
    }
    if (batch_size <= 0) {
        ct__fail(CT_ERR_VALUE, "batch_size should be a positive integer value, but got batch_size=%lld",
                 (long long)batch_size);
        return NULL;
    }
    if (ct_sampler_max_batch(sampler) != 1) {
        ct__fail(CT_ERR_VALUE, "BatchSampler needs a sampler of single indices, not a batch sampler");
        return NULL;
    }
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_BATCH, 0);
    if (!s) return NULL;
    s->base = ct_sampler_retain(sampler);
    s->batch_size = batch_size;
    s->drop_last = drop_last;
    return s;
}

ct_distributed_sampler_opts ct_distributed_sampler_opts_init(void)
{
    ct_distributed_sampler_opts o;
    memset(&o, 0, sizeof o);
    o.num_replicas = 1;
    o.shuffle = true;
    return o;
}

ct_sampler *ct_distributed_sampler(int64_t n, ct_distributed_sampler_opts opts)
{
    if (!ct__check_len(n)) return NULL;
    if (opts.num_replicas <= 0) {
        ct__fail(CT_ERR_VALUE, "num_replicas should be a positive integer value, but got num_replicas=%lld",
                 (long long)opts.num_replicas);
        return NULL;
    }
    if (opts.rank >= opts.num_replicas || opts.rank < 0) {
        ct__fail(CT_ERR_VALUE, "Invalid rank %lld, rank should be in the interval [0, %lld]", (long long)opts.rank,
                 (long long)(opts.num_replicas - 1));
        return NULL;
    }
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_DISTRIBUTED, n);
    if (!s) return NULL;
    int64_t r = opts.num_replicas;
    /* math.ceil((n - r) / r) when dropping an uneven tail, else math.ceil(n / r) */
    if (opts.drop_last && n % r != 0) s->num_samples = n - r >= 0 ? (n - r + r - 1) / r : -((r - n) / r);
    else s->num_samples = (n + r - 1) / r;
    s->num_replicas = r;
    s->rank = opts.rank;
    s->shuffle = opts.shuffle;
    s->seed = opts.seed;
    s->drop_last = opts.drop_last;
    return s;
}

ct_result ct_sampler_set_epoch(ct_sampler *s, int64_t epoch)
{
    if (!s) return ct__null_sampler("sampler_set_epoch", "sampler");
    if (s->kind != CT__SAMPLER_DISTRIBUTED)
        return ct__fail(CT_ERR_TYPE, "'%s' object has no attribute 'set_epoch'", ct__sampler_names[s->kind]);
    s->epoch = epoch;
    return CT_OK;
}

ct_sampler *ct_sampler_retain(ct_sampler *s)
{
    if (s) CT__ATOMIC_INC(&s->refcount);
    return s;
}

void ct_sampler_free(ct_sampler *s)
{
    if (!s || CT__ATOMIC_DEC(&s->refcount) != 0) return;
    if (s->kind == CT__SAMPLER_USER && s->user.free) s->user.free(s->user.user);
    ct_sampler_free(s->base);
    if (s->own) ct_generator_free(s->own);
    CT_FREE(s->values);
    CT_FREE(s->weights);
    CT_FREE(s->chunk);
    CT_FREE(s);
}

int64_t ct_sampler_len(const ct_sampler *s)
{
    if (!s) return ct__null_sampler("sampler_len", "sampler");
    switch (s->kind) {
    case CT__SAMPLER_USER:
        if (!s->user.len) return ct__fail(CT_ERR_TYPE, "object of type 'Sampler' has no len()");
        return s->user.len(s->user.user);
    case CT__SAMPLER_SEQUENTIAL:
    case CT__SAMPLER_SUBSET_RANDOM: return s->n;
    case CT__SAMPLER_BATCH: {
        int64_t n = ct_sampler_len(s->base);
        if (n < 0) return n;
        return s->drop_last ? n / s->batch_size : (n + s->batch_size - 1) / s->batch_size;
    }
    default: return s->num_samples;
    }
}

int64_t ct_sampler_max_batch(const ct_sampler *s)
{
    if (!s) return ct__null_sampler("sampler_max_batch", "sampler");
    if (s->kind == CT__SAMPLER_BATCH) return s->batch_size;
    if (s->kind == CT__SAMPLER_USER && s->user.max_batch > 0) return s->user.max_batch;
    return 1;
}

ct_result ct_sampler_iter(ct_sampler *s)
{
    if (!s) return ct__null_sampler("sampler_iter", "sampler");
    s->started = false;
    s->chunk_n = s->pos = s->chunks_left = 0;
    return s->kind == CT__SAMPLER_BATCH ? ct_sampler_iter(s->base) : CT_OK;
}

/* ---------------------------------------------------------------- a pass */

/* The pass's next chunk of indices from an int64 tensor (NULL after an error). */
static ct_result ct__take_chunk(ct_sampler *s, ct_tensor *t, int64_t keep)
{
    if (!t) return ct_last_error_code();
    int64_t *c = (int64_t *)CT_REALLOC(s->chunk, ((size_t)keep + 1) * sizeof *c);
    if (!c) return CT__OOM();
    s->chunk = c;
    if (keep > 0) memcpy(c, ct_data_ptr(t), (size_t)keep * sizeof *c);
    s->chunk_n = keep;
    s->pos = 0;
    return CT_OK;
}

/* The seed RandomSampler draws without a generator:
 * int(torch.empty((), dtype=torch.int64).random_()), a 64-bit draw mod 2^63. */
static int64_t ct__draw_seed(ct_generator *g)
{
    g = ct__gen_lock(g);
    uint64_t v = ct__rand64(g);
    ct__gen_unlock(g);
    return (int64_t)(v & (((uint64_t)1 << 63) - 1));
}

/* RandomSampler's next chunk: randint(n, (32,)) or randperm(n), the last one
 * cut to what remains of num_samples. */
static ct_result ct__random_chunk(ct_sampler *s)
{
    ct_generator *g = s->generator ? s->generator : s->own;
    int64_t whole = s->replacement ? 32 : s->n;
    int64_t keep = s->chunks_left > 1 ? whole : s->num_samples % whole;
    s->chunks_left--;
    if (s->replacement) return ct__take_chunk(s, ct_randint(0, s->n, CT_SHAPE(keep), CT_I64, g), keep);
    return ct__take_chunk(s, ct_randperm(s->n, CT_I64, g), keep);
}

/* DistributedSampler's indices for this rank. */
static ct_result ct__distributed_pass(ct_sampler *s)
{
    int64_t n = s->n, total = s->num_samples * s->num_replicas;
    ct_tensor *perm = NULL;
    if (s->shuffle) {
        ct_generator *g = ct_generator_new();
        if (!g) return CT__OOM();
        ct_generator_manual_seed(g, (uint64_t)(s->seed + s->epoch));
        perm = ct_randperm(n, CT_I64, g);
        ct_generator_free(g);
        if (!perm) return ct_last_error_code();
    }
    const int64_t *p = perm ? (const int64_t *)ct_data_ptr(perm) : NULL;
    int64_t *c = (int64_t *)CT_REALLOC(s->chunk, ((size_t)s->num_samples + 1) * sizeof *c);
    if (!c) return CT__OOM();
    s->chunk = c;
    s->chunk_n = 0;
    /* padding repeats the list from its start; rank takes every num_replicas-th */
    for (int64_t i = s->rank; i < total; i += s->num_replicas) {
        int64_t j = i % n;
        c[s->chunk_n++] = p ? p[j] : j;
    }
    s->pos = 0;
    return CT_OK;
}

static ct_result ct__start_pass(ct_sampler *s)
{
    s->started = true;
    s->pos = s->chunk_n = 0;
    switch (s->kind) {
    case CT__SAMPLER_USER:
        if (s->user.begin) s->user.begin(s->user.user);
        return CT_OK;
    case CT__SAMPLER_RANDOM:
        if (!s->generator) {
            if (!s->own && !(s->own = ct_generator_new())) return CT__OOM();
            ct_generator_manual_seed(s->own, (uint64_t)ct__draw_seed(NULL));
        }
        s->chunks_left = s->num_samples / (s->replacement ? 32 : s->n) + 1;
        return CT_OK;
    case CT__SAMPLER_SUBSET_RANDOM: return ct__take_chunk(s, ct_randperm(s->n, CT_I64, s->generator), s->n);
    case CT__SAMPLER_WEIGHTED: {
        ct_tensor *w = ct_from_array(s->weights, CT_SHAPE(s->n), CT_F64);
        return ct__take_chunk(s, ct_multinomial(w, s->num_samples, s->replacement, s->generator), s->num_samples);
    }
    case CT__SAMPLER_DISTRIBUTED: return s->n == 0 ? CT_OK : ct__distributed_pass(s);
    default: return CT_OK;
    }
}

/* The next index (a user batch sampler's next list) into out: how many, 0 at
 * the end, or a negative ct_result. */
static int64_t ct__next_index(ct_sampler *s, int64_t *out)
{
    if (!s->started) {
        ct_scope scope = ct_scope_begin();
        ct_result r = ct__start_pass(s);
        ct_scope_end(scope);
        if (r != CT_OK) {
            s->started = false;
            return r;
        }
    }
    switch (s->kind) {
    case CT__SAMPLER_USER: {
        int64_t r = s->user.next(s->user.user, out);
        if (r > ct_sampler_max_batch(s))
            return ct__fail(CT_ERR_VALUE, "the sampler gave %lld indices, more than its max_batch %lld", (long long)r,
                            (long long)ct_sampler_max_batch(s));
        return r < 0 && ct_last_error_code() != CT_OK ? (int64_t)ct_last_error_code() : r;
    }
    case CT__SAMPLER_SEQUENTIAL:
        if (s->pos >= s->n) return 0;
        *out = s->pos++;
        return 1;
    case CT__SAMPLER_RANDOM:
        while (s->pos == s->chunk_n) {
            if (s->chunks_left == 0) return 0;
            ct_scope scope = ct_scope_begin();
            ct_result r = ct__random_chunk(s);
            ct_scope_end(scope);
            if (r != CT_OK) return r;
        }
        break;
    default:
        if (s->pos == s->chunk_n) return 0;
    }
    *out = s->kind == CT__SAMPLER_SUBSET_RANDOM ? s->values[s->chunk[s->pos++]] : s->chunk[s->pos++];
    return 1;
}

/* BatchSampler: up to batch_size indices; a short last batch unless drop_last. */
static int64_t ct__next_batch(ct_sampler *s, int64_t *out)
{
    int64_t k = 0;
    while (k < s->batch_size) {
        int64_t r = ct__next_index(s->base, out + k);
        if (r < 0) return r;
        if (r == 0) break;
        k++;
    }
    return k < s->batch_size && s->drop_last ? 0 : k;
}

int64_t ct_sampler_next(ct_sampler *s, int64_t *out, int64_t capacity)
{
    if (!s) return ct__null_sampler("sampler_next", "sampler");
    int64_t need = ct_sampler_max_batch(s);
    if (!out || capacity < need)
        return ct__fail(CT_ERR_VALUE, "sampler_next(): out has room for %lld indices, the sampler gives up to %lld",
                        (long long)(out ? capacity : 0), (long long)need);
    /* the draws are the host's, whatever the default device (PyTorch's samplers use CPU generators) */
    ct_device_guard host = ct_device_guard_begin(CT_CPU);
    int64_t r = s->kind == CT__SAMPLER_BATCH ? ct__next_batch(s, out) : ct__next_index(s, out);
    ct_device_guard_end(host);
    return r;
}
