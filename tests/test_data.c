#define _POSIX_C_SOURCE 200809L /* nanosleep */
/* torch.utils.data: samplers give PyTorch's index sequences for the same
 * seeds (golden data from tests/golden/gen_data.py), the DataLoader delivers
 * batches in order whatever order its worker threads finish in, keeps at most
 * num_workers * prefetch_factor batches in flight, reports a failing index,
 * times out, and shuts down cleanly at any point; datasets, readers and
 * transforms. Built with -fsanitize=thread by `make test-tsan`. */
#include "harness.h"

#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static ct_generator *gen(uint64_t seed)
{
    ct_generator *g = ct_generator_new();
    ct_generator_manual_seed(g, seed);
    return g;
}

/* ---------------------------------------------------------------- collecting */

typedef struct seq {
    int64_t v[512], len[128];
    int n, batches;
} seq;

/* A pass of a sampler appended to q (each next() is one "batch"). */
static void add_pass(seq *q, ct_sampler *s)
{
    int64_t buf[64], r;
    CHECK_OK(ct_sampler_iter(s));
    while ((r = ct_sampler_next(s, buf, 64)) > 0) {
        for (int64_t i = 0; i < r; i++) q->v[q->n++] = buf[i];
        q->len[q->batches++] = r;
    }
    CHECK_INT(r, 0);
}

static void check_seq(const seq *q, const char *name, bool lengths)
{
    char key[128];
    CHECK_TENSOR(ct_from_array(q->v, CT_SHAPE(q->n), CT_I64), golden("data", name), 0);
    snprintf(key, sizeof key, "%s.len", name);
    if (lengths) CHECK_TENSOR(ct_from_array(q->len, CT_SHAPE(q->batches), CT_I64), golden("data", key), 0);
}

/* The sampler's passes against golden data; frees s. */
static void check_passes(ct_sampler *s, int passes, const char *name, bool lengths)
{
    seq q = {{0}, {0}, 0, 0};
    for (int p = 0; p < passes; p++) add_pass(&q, s);
    check_seq(&q, name, lengths);
    ct_sampler_free(s);
}

/* ---------------------------------------------------------------- samplers */

static void test_random_sampler_matches_pytorch(void)
{
    ct_generator *g0 = gen(0), *g42 = gen(42), *g1 = gen(1), *g3 = gen(3);
    check_passes(ct_random_sampler(10, (ct_random_sampler_opts){false, 0, g0}), 2, "random.s0.n10", false);
    check_passes(ct_random_sampler(7, (ct_random_sampler_opts){false, 0, g42}), 2, "random.s42.n7", false);
    check_passes(ct_random_sampler(10, (ct_random_sampler_opts){true, 70, g1}), 1, "random.replacement", false);
    check_passes(ct_random_sampler(10, (ct_random_sampler_opts){false, 25, g3}), 1, "random.num_samples", false);
    ct_manual_seed(5); /* no generator: each pass seeds one from the default generator */
    check_passes(ct_random_sampler(12, (ct_random_sampler_opts){0}), 2, "random.default", false);
    ct_sampler *s = ct_random_sampler(10, (ct_random_sampler_opts){true, 70, NULL});
    CHECK_INT(ct_sampler_len(s), 70);
    CHECK_INT(ct_sampler_max_batch(s), 1);
    ct_sampler_free(s);
    ct_generator_free(g0), ct_generator_free(g42), ct_generator_free(g1), ct_generator_free(g3);
}

static void test_subset_and_weighted_samplers_match_pytorch(void)
{
    const int64_t idx[] = {3, 7, 9, 11, 20};
    const double w[] = {0.1, 0.9, 0.4, 0.7, 3.0, 0.6};
    ct_generator *g4 = gen(4), *g6 = gen(6);
    check_passes(ct_subset_random_sampler(idx, 5, g4), 1, "subset_random", false);
    ct_weighted_random_sampler_opts o = ct_weighted_random_sampler_opts_init();
    o.num_samples = 10;
    o.generator = g6;
    check_passes(ct_weighted_random_sampler(w, 6, o), 1, "weighted.replacement", false);
    ct_generator_manual_seed(g6, 6);
    o.num_samples = 5;
    o.replacement = false;
    check_passes(ct_weighted_random_sampler(w, 6, o), 1, "weighted.no_replacement", false);
    ct_generator_free(g4), ct_generator_free(g6);
}

static void test_batch_sampler_matches_pytorch(void)
{
    ct_generator *g2 = gen(2);
    ct_sampler *seq10 = ct_sequential_sampler(10);
    ct_sampler *keep = ct_batch_sampler(seq10, 3, false), *drop = ct_batch_sampler(seq10, 3, true);
    ct_sampler_free(seq10); /* the batch samplers hold it */
    CHECK_INT(ct_sampler_len(keep), 4);
    CHECK_INT(ct_sampler_len(drop), 3);
    CHECK_INT(ct_sampler_max_batch(keep), 3);
    check_passes(keep, 1, "batch.keep", true);
    check_passes(drop, 1, "batch.drop", true);
    ct_sampler *r = ct_random_sampler(10, (ct_random_sampler_opts){false, 0, g2});
    check_passes(ct_batch_sampler(r, 4, false), 1, "batch.random", true);
    ct_sampler_free(r);
    ct_generator_free(g2);
}

static void test_distributed_sampler_matches_pytorch(void)
{
    static const struct { int64_t n, reps; bool shuffle, drop; } cases[] = {
        {10, 3, true, false}, {10, 3, true, true}, {10, 3, false, false}, {2, 4, true, false}, {11, 4, false, true}};
    for (int c = 0; c < 5; c++)
        for (int64_t rank = 0; rank < cases[c].reps; rank++) {
            char name[96];
            snprintf(name, sizeof name, "dist.n%lld.r%lld.%s.%s.rank%lld", (long long)cases[c].n, (long long)cases[c].reps,
                     cases[c].shuffle ? "shuffle" : "seq", cases[c].drop ? "drop" : "pad", (long long)rank);
            ct_distributed_sampler_opts o = ct_distributed_sampler_opts_init();
            o.num_replicas = cases[c].reps;
            o.rank = rank;
            o.shuffle = cases[c].shuffle;
            o.seed = 3;
            o.drop_last = cases[c].drop;
            ct_sampler *s = ct_distributed_sampler(cases[c].n, o);
            seq q = {{0}, {0}, 0, 0};
            add_pass(&q, s);
            CHECK_OK(ct_sampler_set_epoch(s, 1));
            add_pass(&q, s);
            CHECK_INT(q.n, 2 * ct_sampler_len(s));
            check_seq(&q, name, false);
            ct_sampler_free(s);
        }
}

/* A sampler of your own: seed 002's MySampler yields [i, i+1] for i < batches. */
typedef struct pairs {
    int i, batches, begun;
} pairs;

static void pairs_begin(void *user)
{
    ((pairs *)user)->i = 0;
    ((pairs *)user)->begun++;
}

static int64_t pairs_next(void *user, int64_t *out)
{
    pairs *p = (pairs *)user;
    if (p->i == p->batches) return 0;
    out[0] = p->i, out[1] = p->i + 1;
    p->i++;
    return 2;
}

static void test_user_sampler(void)
{
    pairs p = {0, 3, 0};
    ct_sampler_desc d = {pairs_begin, pairs_next, NULL, 2, NULL, &p};
    ct_sampler *s = ct_sampler_new(d);
    seq q = {{0}, {0}, 0, 0};
    add_pass(&q, s);
    add_pass(&q, s);
    CHECK_INT(p.begun, 2);
    CHECK_INT(q.batches, 6);
    CHECK_INT(q.v[4], 2);
    CHECK_INT(q.v[5], 3);
    CHECK_ERR(ct_sampler_len(s) >= 0, CT_ERR_TYPE, "object of type 'Sampler' has no len()");
    ct_sampler_free(s);
}

/* ---------------------------------------------------------------- datasets */

static ct_dataset *range_dataset(int64_t n)
{
    ct_tensor *t = ct_arange(ct_int(0), ct_int(n), ct_int(1), CT_I64);
    ct_dataset *d = ct_tensor_dataset(&t, 1);
    return d;
}

static int64_t value_at(ct_dataset *d, int64_t i)
{
    ct_sample s;
    if (ct_dataset_get(d, i, &s) != CT_OK) return -999;
    int64_t v = ct_item_int(s.field[0]);
    return v;
}

static void test_tensor_subset_concat(void)
{
    ct_scope sc = ct_scope_begin();
    ct_tensor *t[2] = {ct_view(ct_arange(ct_int(0), ct_int(12), ct_int(1), CT_F32), CT_SHAPE(4, 3)),
                       ct_arange(ct_int(10), ct_int(14), ct_int(1), CT_I64)};
    ct_dataset *d = ct_tensor_dataset(t, 2);
    ct_scope_end(sc); /* the dataset keeps its tensors */
    ct_sample s;
    CHECK_INT(ct_dataset_len(d), 4);
    CHECK_OK(ct_dataset_get(d, -1, &s));
    CHECK_INT(s.n, 2);
    CHECK_VALUES(s.field[0], CT_SHAPE(3), 9, 10, 11);
    CHECK_VALUES(s.field[1], CT_SHAPE0, 13);
    CHECK_FAILS(ct_dataset_get(d, 4, &s), CT_ERR_INDEX, "index 4 is out of bounds for dimension 0 with size 4");
    const int64_t idx[] = {2, 0};
    ct_dataset *sub = ct_subset(d, idx, 2), *parts[2] = {sub, d};
    ct_dataset *cat = ct_concat_dataset(parts, 2);
    ct_dataset_free(sub);
    CHECK_INT(ct_dataset_len(cat), 6);
    ct_scope s2 = ct_scope_begin(); /* a scope owns what get puts in the sample */
    CHECK_OK(ct_dataset_get(cat, 1, &s));
    CHECK_VALUES(s.field[1], CT_SHAPE0, 10);
    CHECK_OK(ct_dataset_get(cat, -6, &s));
    CHECK_VALUES(s.field[1], CT_SHAPE0, 12);
    CHECK_OK(ct_dataset_get(cat, 5, &s));
    CHECK_VALUES(s.field[1], CT_SHAPE0, 13);
    ct_scope_end(s2);
    CHECK_FAILS(ct_dataset_get(cat, 6, &s), CT_ERR_INDEX, "list index out of range");
    CHECK_FAILS(ct_dataset_get(cat, -7, &s), CT_ERR_VALUE, "absolute value of index should not exceed dataset length");
    ct_dataset_free(cat);
    ct_dataset_free(d);
}

static void test_random_split_matches_pytorch(void)
{
    static const struct { const char *name; int64_t n; int parts; double lengths[3]; } cases[] = {
        {"split.counts", 10, 2, {3, 7, 0}}, {"split.fractions", 30, 3, {0.3, 0.3, 0.4}}, {"split.remainder", 11, 2, {0.5, 0.5, 0}}};
    for (int c = 0; c < 3; c++) {
        ct_dataset *d = range_dataset(cases[c].n), *out[3];
        ct_generator *g = gen(42);
        seq q = {{0}, {0}, 0, 0};
        CHECK_OK(ct_random_split(d, cases[c].lengths, cases[c].parts, g, out));
        for (int p = 0; p < cases[c].parts; p++) {
            int64_t len = ct_dataset_len(out[p]);
            for (int64_t i = 0; i < len; i++) q.v[q.n++] = value_at(out[p], i);
            q.len[q.batches++] = len;
            ct_dataset_free(out[p]);
        }
        check_seq(&q, cases[c].name, true);
        ct_dataset_free(d);
        ct_generator_free(g);
    }
}

/* ---------------------------------------------------------------- the loader */

/* Every batch's first field appended to q, for one epoch. */
static void add_epoch(seq *q, ct_loader *l)
{
    ct_sample b;
    int r;
    while ((r = ct_loader_next(l, &b)) > 0) {
        int64_t n = ct_numel(b.field[0]);
        CHECK_OK(ct_copy_to_array(b.field[0], q->v + q->n, n, CT_I64));
        q->n += (int)n;
        q->len[q->batches++] = n;
    }
    CHECK_INT(r, 0);
}

static void test_loader_shuffle_matches_pytorch(void)
{
    ct_dataset *d = range_dataset(10);
    ct_generator *g = gen(7);
    ct_loader_opts o = {0};
    o.batch_size = 3;
    o.shuffle = true;
    o.generator = g;
    ct_loader *l = ct_loader_new(d, o);
    CHECK_INT(ct_loader_len(l), 4);
    seq q = {{0}, {0}, 0, 0};
    add_epoch(&q, l);
    check_seq(&q, "loader.generator", true);
    ct_loader_free(l);
    /* without a generator: base_seed, then the sampler's seed, from the default generator */
    ct_manual_seed(8);
    o.batch_size = 4;
    o.generator = NULL;
    l = ct_loader_new(d, o);
    seq q2 = {{0}, {0}, 0, 0};
    add_epoch(&q2, l);
    add_epoch(&q2, l);
    check_seq(&q2, "loader.default", true);
    ct_loader_free(l);
    ct_dataset_free(d);
    ct_generator_free(g);
}

/* get_item: the loading worker's seed and id, and the index; records how far
 * ahead of the consumer the loaders run. */
typedef struct probe {
    int64_t n, batch_size, taken; /* taken: batches the test has received (atomic) */
    int64_t most_ahead;           /* max over get_item of batch - taken (atomic) */
    int slow;                     /* sleep a pseudo-random time per item */
    int64_t fail_at;              /* this index fails with IndexError (-1: none) */
    int inits;                    /* worker_init_fn calls (atomic) */
    int most_threads;             /* the most intra-op threads a worker_init_fn saw (atomic) */
} probe;

static int64_t probe_len(void *user) { return ((probe *)user)->n; }

static ct_result probe_get(void *user, int64_t i, ct_sample *out)
{
    probe *p = (probe *)user;
    ct_worker_info w = ct_get_worker_info();
    int64_t ahead = i / p->batch_size - __atomic_load_n(&p->taken, __ATOMIC_ACQUIRE);
    int64_t m = __atomic_load_n(&p->most_ahead, __ATOMIC_RELAXED);
    while (ahead > m && !__atomic_compare_exchange_n(&p->most_ahead, &m, ahead, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        continue;
    if (p->slow) sleep_ms((int)((i * 7919) % 5));
    if (i == p->fail_at) return ct_dataset_raise(CT_ERR_INDEX, "boom");
    out->n = 3;
    out->field[0] = ct_scalar_tensor(ct_int(w.seed), CT_I64);
    out->field[1] = ct_scalar_tensor(ct_int(w.id), CT_I64);
    out->field[2] = ct_scalar_tensor(ct_int(i), CT_I64);
    return CT_OK;
}

static void probe_init(int worker_id, void *user)
{
    (void)worker_id;
    probe *p = (probe *)user;
    __atomic_add_fetch(&p->inits, 1, __ATOMIC_RELAXED);
    int threads = ct_get_num_threads(), m = __atomic_load_n(&p->most_threads, __ATOMIC_RELAXED);
    while (threads > m && !__atomic_compare_exchange_n(&p->most_threads, &m, threads, false, __ATOMIC_RELAXED,
                                                       __ATOMIC_RELAXED))
        continue;
}

static ct_dataset *probe_dataset(probe *p)
{
    ct_dataset_desc d = {probe_len, probe_get, NULL, p};
    return ct_dataset_new(d);
}

static void test_loader_worker_seeds_match_pytorch(void)
{
    probe p = {12, 2, 0, 0, 0, -1, 0, 0};
    ct_dataset *d = probe_dataset(&p);
    ct_generator *g = gen(9);
    ct_loader_opts o = {0};
    o.batch_size = 2;
    o.num_workers = 3;
    o.generator = g;
    ct_loader *l = ct_loader_new(d, o);
    seq q = {{0}, {0}, 0, 0};
    add_epoch(&q, l);
    check_seq(&q, "loader.worker_seeds", true); /* base_seed + worker id, batch k on worker k % 3 */
    CHECK_INT(q.v[0], ct_item_int(golden("data", "loader.base_seed")));
    CHECK_INT(ct_get_worker_info().id, -1);
    ct_loader_free(l);
    ct_dataset_free(d);
    ct_generator_free(g);
}

/* Holds the first batch (taken stays 0) until some worker has started a
 * later one, or 10 s have passed: a prefetching loader starts it unasked,
 * so most_ahead >= 1 does not hang on which thread the scheduler runs first. */
static void wait_until_ahead(probe *p)
{
    for (int ms = 0; ms < 10000 && __atomic_load_n(&p->most_ahead, __ATOMIC_RELAXED) < 1; ms++) sleep_ms(1);
}

static void test_loader_keeps_order_and_bounds_in_flight(void)
{
    for (int workers = 1; workers <= 3; workers++) {
        probe p = {60, 3, 0, 0, 1, -1, 0, 0};
        ct_dataset *d = probe_dataset(&p);
        ct_loader_opts o = {0};
        o.batch_size = 3;
        o.num_workers = workers;
        o.prefetch_factor = 2;
        ct_loader *l = ct_loader_new(d, o);
        ct_sample b;
        int64_t k = 0;
        while (ct_loader_next(l, &b) > 0) {
            for (int64_t j = 0; j < 3; j++) { /* in order, and built by one worker: k mod workers */
                CHECK_INT(ct_item_int(ct_select(b.field[2], 0, j)), 3 * k + j);
                CHECK_INT(ct_item_int(ct_select(b.field[1], 0, j)), k % workers);
            }
            if (k == 0) wait_until_ahead(&p);
            __atomic_store_n(&p.taken, ++k, __ATOMIC_RELEASE);
        }
        CHECK_INT(k, 20);
        /* next() for batch k hands out batch k and sends batch k + workers * prefetch_factor
         * before `taken` says k + 1: nothing further ahead is ever started */
        CHECK(p.most_ahead <= workers * 2);
        CHECK(p.most_ahead >= 1);
        ct_loader_free(l);
        ct_dataset_free(d);
    }
}

static void test_loader_reports_the_failing_index(void)
{
    for (int workers = 0; workers <= 2; workers += 2) {
        probe p = {10, 2, 0, 0, 0, 7, 0, 0};
        ct_dataset *d = probe_dataset(&p);
        ct_loader_opts o = {0};
        o.batch_size = 2;
        o.num_workers = workers;
        ct_loader *l = ct_loader_new(d, o);
        ct_sample b;
        int got = 0, r;
        for (int k = 0; (r = ct_loader_next(l, &b)) != 0; k++) {
            if (k == 3) {
                CHECK_INT(r, CT_ERR_INDEX);
                CHECK_STR(ct_last_error(), workers ? "Caught IndexError in DataLoader worker process 1 at dataset index 7: boom"
                                                   : "Caught IndexError in DataLoader at dataset index 7: boom");
                ct_clear_error();
                continue;
            }
            CHECK_INT(r, 1);
            if (r == 1) CHECK_INT(ct_item_int(ct_select(b.field[2], 0, 0)), 2 * k);
            got++;
        }
        CHECK_INT(got, 4); /* the epoch goes on after the failed batch */
        ct_loader_free(l);
        ct_dataset_free(d);
    }
}

static int64_t sleepy_len(void *user) { return *(int64_t *)user; }

static ct_result sleepy_get(void *user, int64_t i, ct_sample *out)
{
    (void)user;
    sleep_ms(60);
    out->n = 1;
    out->field[0] = ct_scalar_tensor(ct_int(i), CT_I64);
    return CT_OK;
}

static void test_loader_timeout_and_early_free(void)
{
    int64_t n = 40;
    ct_dataset_desc dd = {sleepy_len, sleepy_get, NULL, &n};
    ct_dataset *d = ct_dataset_new(dd);
    ct_loader_opts o = {0};
    o.num_workers = 2;
    o.timeout = 0.01;
    ct_loader *l = ct_loader_new(d, o);
    ct_sample b;
    CHECK_INT(ct_loader_next(l, &b), CT_ERR_RUNTIME);
    CHECK_STR(ct_last_error(), "DataLoader timed out after 0.01 seconds");
    ct_clear_error();
    int r;
    while ((r = ct_loader_next(l, &b)) == CT_ERR_RUNTIME) ct_clear_error(); /* the batch still comes */
    CHECK_INT(r, 1);
    CHECK_VALUES(b.field[0], CT_SHAPE(1), 0);
    ct_loader_free(l); /* mid-epoch, workers busy */
    o.timeout = 0;
    o.persistent_workers = true;
    l = ct_loader_new(d, o);
    CHECK_INT(ct_loader_next(l, &b), 1);
    CHECK_OK(ct_loader_iter(l)); /* a new epoch abandons the running one */
    CHECK_INT(ct_loader_next(l, &b), 1);
    CHECK_VALUES(b.field[0], CT_SHAPE(1), 0);
    ct_loader_free(l);
    ct_dataset_free(d);
}

static void test_loader_persistent_workers(void)
{
    int threads = ct_get_num_threads();
    CHECK_OK(ct_set_num_threads(2)); /* the main thread's setting: not the workers' */
    for (int persistent = 0; persistent <= 1; persistent++) {
        probe p = {8, 2, 0, 0, 0, -1, 0, 0};
        ct_dataset *d = probe_dataset(&p);
        ct_generator *g = gen(9);
        ct_loader_opts o = {0};
        o.batch_size = 2;
        o.num_workers = 2;
        o.generator = g;
        o.worker_init_fn = probe_init;
        o.worker_init_user = &p;
        o.persistent_workers = persistent;
        ct_loader *l = ct_loader_new(d, o);
        seq a = {{0}, {0}, 0, 0}, b = {{0}, {0}, 0, 0};
        add_epoch(&a, l);
        add_epoch(&b, l);
        CHECK_INT(p.inits, persistent ? 2 : 4);
        CHECK_INT(a.v[0] == b.v[0], persistent); /* persistent workers keep their seeds */
        CHECK_INT(p.most_threads, 1);           /* workers run their ops on one thread, as PyTorch's */
        ct_loader_free(l);
        ct_dataset_free(d);
        ct_generator_free(g);
    }
#ifdef _OPENMP
    CHECK_INT(ct_get_num_threads(), 2);
#else
    CHECK_INT(ct_get_num_threads(), 1);
#endif
    CHECK_OK(ct_set_num_threads(threads));
}

/* An iterable dataset: 0..9, worker w of n yields the values v with v % n == w. */
typedef struct shard {
    int64_t next, step;
} shard;

static void *shard_iter(void *user)
{
    (void)user;
    ct_worker_info w = ct_get_worker_info();
    shard *s = (shard *)malloc(sizeof *s);
    s->next = w.id < 0 ? 0 : w.id;
    s->step = w.id < 0 ? 1 : w.num_workers;
    return s;
}

static int shard_next(void *state, ct_sample *out)
{
    shard *s = (shard *)state;
    if (s->next >= 10) return 0;
    out->n = 1;
    out->field[0] = ct_scalar_tensor(ct_int(s->next), CT_I64);
    s->next += s->step;
    return 1;
}

static void test_iterable_dataset(void)
{
    static const struct { int workers; int64_t bs; bool drop; int batches; int64_t v[10]; } cases[] = {
        {2, 2, false, 6, {0, 2, 1, 3, 4, 6, 5, 7, 8, 9}}, {2, 3, true, 2, {0, 2, 4, 1, 3, 5}}, {0, 4, false, 3, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}};
    ct_iterable_desc desc = {shard_iter, shard_next, free, NULL, NULL};
    ct_dataset *d = ct_iterable_dataset_new(desc);
    CHECK_ERR(ct_dataset_len(d) >= 0, CT_ERR_TYPE, "object of type 'IterableDataset' has no len()");
    for (int c = 0; c < 3; c++) {
        ct_loader_opts o = {0};
        o.batch_size = cases[c].bs;
        o.num_workers = cases[c].workers;
        o.drop_last = cases[c].drop;
        ct_loader *l = ct_loader_new(d, o);
        for (int epoch = 0; epoch < 2; epoch++) {
            seq q = {{0}, {0}, 0, 0};
            add_epoch(&q, l);
            CHECK_INT(q.batches, cases[c].batches);
            for (int i = 0; i < q.n; i++) CHECK_INT(q.v[i], cases[c].v[i]);
        }
        ct_loader_free(l);
    }
    ct_dataset_free(d);
}

/* Seed 002: a dataset whose item idx is [-2 idx, -2 idx], a batch sampler of
 * [i, i+1], and a collate_fn that hands the samples on as they are. */
static int64_t neg_len(void *user) { return (void)user, 10; }

static ct_result neg_get(void *user, int64_t i, ct_sample *out)
{
    (void)user;
    out->n = 1;
    out->field[0] = ct_full(CT_SHAPE(2), ct_int(-2 * i), CT_I64);
    return CT_OK;
}

static ct_result collect(const ct_sample *samples, int64_t n, ct_sample *batch, void *user)
{
    __atomic_add_fetch((int *)user, 1, __ATOMIC_RELAXED); /* collate runs on the workers */
    batch->n = (int)n;
    for (int64_t i = 0; i < n; i++) batch->field[i] = samples[i].field[0];
    return CT_OK;
}

static void test_seed_002_batch_sampler_and_collate(void)
{
    pairs p = {0, 20, 0};
    int calls = 0;
    ct_sampler_desc sd = {pairs_begin, pairs_next, NULL, 2, NULL, &p};
    ct_sampler *s = ct_sampler_new(sd);
    ct_dataset_desc dd = {neg_len, neg_get, NULL, NULL};
    ct_dataset *d = ct_dataset_new(dd);
    for (int workers = 0; workers <= 2; workers += 2) {
        ct_loader_opts o = {0};
        o.batch_sampler = s;
        o.collate_fn = collect;
        o.collate_user = &calls;
        o.num_workers = workers;
        ct_loader *l = ct_loader_new(d, o);
        CHECK_ERR(ct_loader_len(l) >= 0, CT_ERR_TYPE, "object of type 'Sampler' has no len()");
        ct_sample b;
        int k = 0;
        ct_scope sc = ct_scope_begin(); /* the batches belong to this scope */
        while (ct_loader_next(l, &b) > 0) {
            CHECK_INT(b.n, 2);
            CHECK_VALUES(b.field[0], CT_SHAPE(2), -2 * k, -2 * k);
            CHECK_VALUES(b.field[1], CT_SHAPE(2), -2 * (k + 1), -2 * (k + 1));
            k++;
        }
        ct_scope_end(sc);
        CHECK_INT(k, 20);
        ct_loader_free(l);
    }
    CHECK_INT(calls, 40);
    ct_sampler_free(s);
    ct_dataset_free(d);
}

static void test_default_collate_stacks_fields(void)
{
    ct_scope sc = ct_scope_begin();
    ct_tensor *x = ct_view(ct_arange(ct_int(0), ct_int(8), ct_int(1), CT_F32), CT_SHAPE(4, 2));
    ct_tensor *y = ct_arange(ct_int(0), ct_int(4), ct_int(1), CT_I64);
    ct_tensor *t[2] = {x, y};
    ct_dataset *d = ct_tensor_dataset(t, 2);
    ct_loader_opts o = {0};
    o.batch_size = 3;
    ct_loader *l = ct_loader_new(d, o);
    ct_sample b;
    CHECK_INT(ct_loader_next(l, &b), 1);
    CHECK_VALUES(b.field[0], CT_SHAPE(3, 2), 0, 1, 2, 3, 4, 5);
    CHECK_VALUES(b.field[1], CT_SHAPE(3), 0, 1, 2);
    CHECK_INT(ct_loader_next(l, &b), 1);
    CHECK_VALUES(b.field[1], CT_SHAPE(1), 3);
    CHECK_INT(ct_loader_next(l, &b), 0);
    ct_loader_free(l);
    o.drop_last = true;
    l = ct_loader_new(d, o);
    CHECK_INT(ct_loader_len(l), 1);
    CHECK_INT(ct_loader_next(l, &b), 1);
    CHECK_INT(ct_loader_next(l, &b), 0);
    ct_loader_free(l);
    ct_dataset_free(d);
    ct_scope_end(sc);
}

/* ---------------------------------------------------------------- readers and transforms */

#define DATA "tests/golden/data/"

static void test_npy_reader(void)
{
    ct_scope sc = ct_scope_begin();
    ct_tensor *a = ct_load_npy(DATA "c_f4.npy");
    CHECK_TENSOR(a, golden("data", "npy.c_f4"), 0);
    ct_tensor *f = ct_load_npy(DATA "fortran_f8.npy");
    CHECK_VALUES(f, CT_SHAPE(2, 3), 0, 1, 2, 3, 4, 5);
    CHECK(f && !ct_is_contiguous(f) && ct_stride(f, 0) == 1);
    CHECK_VALUES(ct_load_npy(DATA "big_i4.npy"), CT_SHAPE(6), -3, -2, -1, 0, 1, 2);
    CHECK_VALUES(ct_load_npy(DATA "scalar_i8.npy"), CT_SHAPE0, 7);
    /* mapped copy on write: a write does not reach the file */
    CHECK_OK(ct_fill_(a, ct_float(-1)));
    CHECK_TENSOR(ct_load_npy(DATA "c_f4.npy"), golden("data", "npy.c_f4"), 0);
    /* round trip */
    ct_tensor *h = ct_to(ct_t(ct_load_npy(DATA "c_f4.npy")), CT_F16);
    CHECK_OK(ct_save_npy(CT_BUILD_DIR "/test_data_h.npy", h));
    CHECK(ct_equal(ct_load_npy(CT_BUILD_DIR "/test_data_h.npy"), ct_cpu(h))); /* (loads land on the CPU) */
    ct_tensor *b = ct_zeros(CT_SHAPE(0, 3), CT_BOOL);
    CHECK_OK(ct_save_npy(CT_BUILD_DIR "/test_data_b.npy", b));
    CHECK(ct_equal(ct_load_npy(CT_BUILD_DIR "/test_data_b.npy"), ct_cpu(b)));
    ct_scope_end(sc);
}

#ifndef _WIN32
/* Readers take what cannot be mapped: a pipe, and /proc files, whose size
 * stat gives as 0 (they used to read as an empty [0, 0] tensor). */
static void test_csv_from_a_pipe_and_proc(void)
{
    int fd[2];
    CHECK(pipe(fd) == 0);
    const char text[] = "1,2\n3,4\n";
    CHECK(write(fd[1], text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
    close(fd[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fd[0]);
    CHECK_VALUES(ct_read_csv(path, (ct_csv_opts){0}), CT_SHAPE(2, 2), 1, 2, 3, 4);
    close(fd[0]);
    FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
    long long pid_max = 0;
    if (!f || fscanf(f, "%lld", &pid_max) != 1) {
        if (f) fclose(f);
        return; /* no /proc here */
    }
    fclose(f);
    ct_tensor *t = ct_read_csv("/proc/sys/kernel/pid_max", (ct_csv_opts){.dtype = CT_I64});
    CHECK_T(t);
    if (t) CHECK(ct_numel(t) == 1 && ct_item_int(ct_sum(t)) == pid_max);
}
#endif

static void test_idx_and_csv_readers(void)
{
    ct_scope sc = ct_scope_begin();
    CHECK_TENSOR(ct_read_idx(DATA "images.idx"), golden("data", "idx.images"), 0);
    CHECK_TENSOR(ct_read_idx(DATA "ints.idx"), golden("data", "idx.ints"), 0);
#ifdef CTORCH_ZLIB
    CHECK_TENSOR(ct_read_idx(DATA "images.idx.gz"), golden("data", "idx.images"), 0);
#else
    CHECK_ERR(ct_read_idx(DATA "images.idx.gz"), CT_ERR_RUNTIME, "needs zlib");
#endif
    ct_dataset *d = ct_idx_dataset(DATA "images.idx", DATA "labels.idx");
    ct_sample s;
    CHECK_INT(ct_dataset_len(d), 5);
    CHECK_OK(ct_dataset_get(d, 2, &s));
    CHECK_TENSOR(s.field[0], ct_select(golden("data", "idx.images"), 0, 2), 0);
    CHECK_VALUES(s.field[1], CT_SHAPE0, 4);
    CHECK(ct_dtype_of(s.field[1]) == CT_I64);
    ct_dataset_free(d);
    CHECK_TENSOR(ct_read_csv(DATA "table.csv", (ct_csv_opts){0, 1, CT_F64}), golden("data", "csv.table"), 0);
#ifdef CTORCH_ZLIB /* the bundled UCI digits, as numpy.loadtxt reads them */
    ct_tensor *digits = ct_read_csv("data/digits.csv.gz", (ct_csv_opts){0});
    CHECK(digits && ct_size(digits, 0) == 1797 && ct_size(digits, 1) == 65);
    CHECK_NEAR(ct_item(ct_sum(digits)), 569788, 0);
    CHECK_VALUES(ct_index(digits, "0, :8"), CT_SHAPE(8), 0, 0, 5, 13, 9, 1, 0, 0);
#endif
    ct_scope_end(sc);
}

static void test_transforms_match_torchvision(void)
{
    ct_scope sc = ct_scope_begin();
    ct_transform list[4];
    memset(list, 0, sizeof list);
    list[0].kind = CT_TO_FLOAT;
    list[1].kind = CT_NORMALIZE;
    list[1].channels = 2;
    list[1].mean[0] = 0.5, list[1].mean[1] = 0.25, list[1].std[0] = 0.25, list[1].std[1] = 0.5;
    list[2].kind = CT_RANDOM_CROP;
    list[2].size[0] = list[2].size[1] = 4;
    list[2].padding = 1;
    list[3].kind = CT_RANDOM_HFLIP;
    ct_manual_seed(11);
    const ct_tensor *in = golden("data", "transform.in");
    ct_tensor *outs[4];
    for (int i = 0; i < 4; i++) outs[i] = ct_transform_apply(list, 4, in, NULL);
    CHECK_TENSOR(ct_stack(outs, 4, 0), golden("data", "transform.out"), 0);
    /* the same through a dataset */
    ct_tensor *batch = ct_unsqueeze(in, 0);
    ct_dataset *base = ct_tensor_dataset(&batch, 1);
    ct_dataset *d = ct_transformed_dataset(base, 0, list, 4);
    ct_dataset_free(base);
    ct_manual_seed(11);
    ct_sample s;
    CHECK_OK(ct_dataset_get(d, 0, &s));
    CHECK_TENSOR(s.field[0], ct_select(golden("data", "transform.out"), 0, 0), 0);
    ct_dataset_free(d);
    ct_scope_end(sc);
}

int main(void)
{
    RUN(test_random_sampler_matches_pytorch);
    RUN(test_subset_and_weighted_samplers_match_pytorch);
    RUN(test_batch_sampler_matches_pytorch);
    RUN(test_distributed_sampler_matches_pytorch);
    RUN(test_user_sampler);
    RUN(test_tensor_subset_concat);
    RUN(test_random_split_matches_pytorch);
    RUN(test_loader_shuffle_matches_pytorch);
    RUN(test_loader_worker_seeds_match_pytorch);
    RUN(test_loader_keeps_order_and_bounds_in_flight);
    RUN(test_loader_reports_the_failing_index);
    RUN(test_loader_timeout_and_early_free);
    RUN(test_loader_persistent_workers);
    RUN(test_iterable_dataset);
    RUN(test_seed_002_batch_sampler_and_collate);
    RUN(test_default_collate_stacks_fields);
    RUN(test_npy_reader);
    RUN(test_idx_and_csv_readers);
    RUN_NOT_ON_WINDOWS(test_csv_from_a_pipe_and_proc, "a pipe read through /dev/fd, and /proc");
    RUN_CPU_DRAWS(test_transforms_match_torchvision);
    return ct_test_report();
}
