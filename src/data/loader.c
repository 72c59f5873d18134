/* The DataLoader (torch/utils/data/dataloader.py) with worker threads.
 *
 * As in PyTorch's multiprocessing iterator, the calling thread runs the
 * sampler and hands batch k (its list of indices) to worker k mod W, keeping
 * at most W * prefetch_factor batches in flight; a worker builds a whole
 * batch (get_item for each index, then collate_fn) without waiting for the
 * others, and the caller takes results strictly in order 0, 1, 2, ... from a
 * ring of W * prefetch_factor slots (batch k in slot k mod size).
 *
 * Ownership across threads: a worker builds a batch inside a scope of its
 * own and ct_keeps the batch's tensors, so with no scope around them they
 * leave as plain references; ct_loader_next registers them in the caller's
 * open scope (refcounts are atomic, so the tensors may be released on any
 * thread). Errors are per thread: a worker copies its code and message, with
 * the failing index, into the slot, and ct_loader_next raises them on the
 * caller's thread. One mutex guards the queues and slots; a slot's batch is
 * written by its worker before the state change that publishes it. */

#define CT__LOADER_MSG 1024

typedef enum ct__slot_state { CT__SLOT_EMPTY, CT__SLOT_PENDING, CT__SLOT_READY, CT__SLOT_FAILED, CT__SLOT_EXHAUSTED } ct__slot_state;

typedef struct ct__batch_slot {
    ct__slot_state state;
    int worker;
    int64_t n;        /* indices (or samples wanted from an iterable dataset) */
    int64_t *indices; /* room for the sampler's max_batch */
    ct_sample batch;
    ct_result code;
    char msg[CT__LOADER_MSG];
} ct__batch_slot;

/* An iterable dataset's pass on one thread. */
typedef struct ct__iter_pass {
    void *state;
    bool open, ended;
} ct__iter_pass;

typedef struct ct__worker {
    struct ct_loader *l;
    int id;
    int64_t *queue; /* batch numbers, a ring */
    int head, count;
    bool busy, active, reset_pass, started;
    ct__iter_pass pass;
#ifndef CTORCH_NO_THREADS
    ct__thread thread;
#endif
} ct__worker;

struct ct_loader {
    ct_dataset *dataset;
    ct_sampler *index_sampler; /* a batch sampler (map-style), or NULL (iterable) */
    ct_loader_opts o;
    int64_t max_batch;
    /* the epoch */
    bool running, sampler_done;
    int64_t sent, received; /* batches handed to workers, batches taken */
    int64_t base_seed;
    ct__iter_pass pass; /* num_workers == 0 with an iterable dataset */
    /* workers */
    int nslots, cycle;
    ct__batch_slot *slots;
    ct__worker *workers;
    bool workers_up, stop;
#ifndef CTORCH_NO_THREADS
    ct__mutex mu;
    ct__cond work, done;
#endif
};

ct_worker_info ct_get_worker_info(void) { return ct__worker_info; }

/* ---------------------------------------------------------------- collation */

ct_result ct_default_collate(const ct_sample *samples, int64_t n, ct_sample *batch, void *user)
{
    (void)user;
    if (!samples || !batch || n <= 0) return ct__fail(CT_ERR_VALUE, "default_collate(): needs n >= 1 samples");
    if (n > INT_MAX) return ct__fail(CT_ERR_VALUE, "default_collate(): too many samples (%lld)", (long long)n);
    for (int64_t i = 1; i < n; i++)
        if (samples[i].n != samples[0].n)
            return ct__fail(CT_ERR_RUNTIME, "each element in list of batch should be of equal size");
    ct_tensor **col = (ct_tensor **)CT_MALLOC((size_t)n * sizeof *col);
    if (!col) return CT__OOM();
    ct_result r = CT_OK;
    batch->n = 0;
    for (int k = 0; r == CT_OK && k < samples[0].n; k++) {
        for (int64_t i = 0; i < n; i++) col[i] = samples[i].field[k];
        batch->field[k] = ct_stack(col, (int)n, 0);
        if (!batch->field[k]) r = ct_last_error_code();
        else batch->n = k + 1;
    }
    CT_FREE(col);
    return r;
}

/* "worker process 2 " on a worker thread, "" on the caller's. */
static const char *ct__worker_label(char *buf, size_t n)
{
    if (ct__worker_info.id < 0) return "";
    snprintf(buf, n, "worker process %d ", ct__worker_info.id);
    return buf;
}

/* The pending error, wrapped with where it happened, into msg; returns its code. */
static ct_result ct__wrap_error(ct_result r, char *msg, const char *fmt, long long where)
{
    char label[48], place[96];
    ct_result code = ct_last_error_code() != CT_OK ? ct_last_error_code() : r;
    snprintf(place, sizeof place, fmt, where);
    snprintf(msg, CT__LOADER_MSG, "Caught %s in DataLoader %s%s: %.800s", ct_result_str(code),
             ct__worker_label(label, sizeof label), place, ct_last_error());
    ct_clear_error();
    return code;
}

/* Sample i of a batch from an iterable dataset: 1, 0 at its end, or an error. */
static int ct__iterable_next(ct_dataset *d, ct__iter_pass *p, ct_sample *out)
{
    if (p->ended) return 0;
    if (!p->open) {
        p->state = d->it.iter(d->it.user);
        if (!p->state && ct_last_error_code() != CT_OK) return ct_last_error_code();
        p->open = true;
    }
    int r = d->it.next(p->state, out);
    if (r < 0) return ct_last_error_code() != CT_OK ? ct_last_error_code() : r;
    if (r == 0) {
        p->ended = true;
        return 0;
    }
    ct_result c = ct__check_sample(out, CT_OK);
    return c != CT_OK ? (int)c : 1;
}

static void ct__pass_close(ct_dataset *d, ct__iter_pass *p)
{
    if (p->open && d->it.iter_free) d->it.iter_free(p->state);
    memset(p, 0, sizeof *p);
}

/* The samples of one batch: n fetched (fewer when an iterable dataset ends). */
static int ct__fetch(ct_loader *l, ct__iter_pass *p, const int64_t *idx, int64_t n, ct_sample *samples, int64_t *got,
                     char *msg)
{
    *got = 0;
    for (int64_t i = 0; i < n; i++) {
        memset(&samples[i], 0, sizeof samples[i]);
        int r = p ? ct__iterable_next(l->dataset, p, &samples[i]) : (int)ct_dataset_get(l->dataset, idx[i], &samples[i]);
        if (r < 0) return ct__wrap_error((ct_result)r, msg, p ? "at sample %lld of its pass" : "at dataset index %lld",
                                         p ? (long long)i : (long long)idx[i]);
        if (p && r == 0) break;
        (*got)++;
    }
    return CT_OK;
}

/* DataLoader(pin_memory=True): the batch's tensors copied to pinned memory,
 * as PyTorch's pin memory thread does, when a GPU is there to use them. */
static ct_result ct__pin_sample(ct_sample *batch)
{
    for (int i = 0; i < batch->n && ct_cuda_is_available(); i++) {
        ct_tensor *pinned = ct_pin_memory(batch->field[i]);
        if (!pinned) return ct_last_error_code();
        batch->field[i] = pinned;
    }
    return CT_OK;
}

/* Build one batch: 1 with it in *batch (plain references), 0 when an
 * iterable dataset has nothing more for it, or a negative code with the
 * wrapped message in msg. */
static int ct__build_batch(ct_loader *l, ct__iter_pass *p, int64_t k, const int64_t *idx, int64_t n, ct_sample *batch,
                           char *msg)
{
    ct_sample *samples = (ct_sample *)CT_MALLOC((size_t)n * sizeof *samples);
    if (!samples) return ct__wrap_error(CT__OOM(), msg, "for batch %lld", (long long)k);
    int64_t got = 0;
    ct_scope s = ct_scope_begin();
    int r = ct__fetch(l, p, idx, n, samples, &got, msg);
    bool short_batch = got == 0 || (got < n && l->o.drop_last);
    if (r == CT_OK && !short_batch) {
        ct_collate_fn collate = l->o.collate_fn ? l->o.collate_fn : ct_default_collate;
        memset(batch, 0, sizeof *batch);
        r = ct__check_sample(batch, collate(samples, got, batch, l->o.collate_user));
        if (r != CT_OK) r = ct__wrap_error((ct_result)r, msg, "in collate_fn for batch %lld", (long long)k);
        else if (l->o.pin_memory && (r = ct__pin_sample(batch)) != CT_OK)
            r = ct__wrap_error((ct_result)r, msg, "in pin memory thread for batch %lld", (long long)k);
        else ct__keep_sample(batch);
    }
    ct_scope_end(s);
    CT_FREE(samples);
    return r != CT_OK ? r : short_batch ? 0 : 1;
}

/* ---------------------------------------------------------------- options */

static ct_result ct__check_loader_opts(const ct_dataset *d, const ct_loader_opts *o)
{
    if (o->num_workers < 0)
        return ct__fail(CT_ERR_VALUE,
                        "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
    if (o->timeout < 0) return ct__fail(CT_ERR_VALUE, "timeout option should be non-negative");
    if (o->num_workers == 0 && o->prefetch_factor != 0 && o->prefetch_factor != 2)
        return ct__fail(CT_ERR_VALUE, "prefetch_factor option could only be specified in multiprocessing.let "
                                      "num_workers > 0 to enable multiprocessing.");
    if (o->prefetch_factor < 0) return ct__fail(CT_ERR_VALUE, "prefetch_factor should be positive, but got %d", o->prefetch_factor);
    if (o->persistent_workers && o->num_workers == 0)
        return ct__fail(CT_ERR_VALUE, "persistent_workers option needs num_workers > 0");
    if (d->iterable && o->shuffle)
        return ct__fail(CT_ERR_VALUE, "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True");
    if (d->iterable && o->sampler)
        return ct__fail(CT_ERR_VALUE, "DataLoader with IterableDataset: expected unspecified sampler option, but got sampler=%s",
                        ct__sampler_names[o->sampler->kind]);
    if (d->iterable && o->batch_sampler)
        return ct__fail(CT_ERR_VALUE, "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                        "batch_sampler=%s", ct__sampler_names[o->batch_sampler->kind]);
    if (o->sampler && o->shuffle) return ct__fail(CT_ERR_VALUE, "sampler option is mutually exclusive with shuffle");
    if (o->batch_sampler && ((o->batch_size != 0 && o->batch_size != 1) || o->shuffle || o->sampler || o->drop_last))
        return ct__fail(CT_ERR_VALUE, "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last");
    if (o->sampler && ct_sampler_max_batch(o->sampler) != 1)
        return ct__fail(CT_ERR_VALUE, "sampler option takes a sampler of single indices: pass a batch sampler as batch_sampler");
#ifdef CTORCH_NO_THREADS
    if (o->num_workers > 0)
        return ct__fail(CT_ERR_RUNTIME, "num_workers > 0 needs threads, and ctorch was built with CTORCH_NO_THREADS");
#endif
    return CT_OK;
}

/* The batch sampler the loader iterates: the given one, or a BatchSampler
 * over the given sampler, a RandomSampler (shuffle) or a SequentialSampler. */
static ct_sampler *ct__index_sampler(const ct_dataset *d, const ct_loader_opts *o)
{
    if (o->batch_sampler) return ct_sampler_retain(o->batch_sampler);
    ct_sampler *base = o->sampler ? ct_sampler_retain(o->sampler) : NULL;
    if (!base) {
        int64_t n = ct_dataset_len(d);
        if (n < 0) return NULL;
        ct_random_sampler_opts ro = {false, 0, o->generator};
        base = o->shuffle ? ct_random_sampler(n, ro) : ct_sequential_sampler(n);
    }
    ct_sampler *b = base ? ct_batch_sampler(base, o->batch_size, o->drop_last) : NULL;
    ct_sampler_free(base);
    return b;
}

ct_loader *ct_loader_new(ct_dataset *d, ct_loader_opts opts)
{
    if (!d) {
        ct__null_dataset("loader_new");
        return NULL;
    }
    if (ct__check_loader_opts(d, &opts) != CT_OK) return NULL;
    if (opts.batch_size == 0) opts.batch_size = 1;
    if (opts.prefetch_factor == 0) opts.prefetch_factor = 2;
    if (opts.batch_size < 0) {
        ct__fail(CT_ERR_VALUE, "batch_size should be a positive integer value, but got batch_size=%lld",
                 (long long)opts.batch_size);
        return NULL;
    }
    ct_loader *l = (ct_loader *)CT_MALLOC(sizeof *l);
    if (!l) {
        CT__OOM();
        return NULL;
    }
    memset(l, 0, sizeof *l);
    l->o = opts;
    l->index_sampler = d->iterable ? NULL : ct__index_sampler(d, &opts);
    if (!d->iterable && !l->index_sampler) {
        CT_FREE(l);
        return NULL;
    }
    l->dataset = ct_dataset_retain(d);
    l->max_batch = l->index_sampler ? ct_sampler_max_batch(l->index_sampler) : opts.batch_size;
    return l;
}

int64_t ct_loader_len(const ct_loader *l)
{
    if (!l) return ct__fail(CT_ERR_TYPE, "loader_len(): argument 'loader' must be a loader, not NULL");
    if (!l->index_sampler) return ct__fail(CT_ERR_TYPE, "object of type 'IterableDataset' has no len()");
    return ct_sampler_len(l->index_sampler);
}

/* The next list of indices from the sampler into idx: how many, 0 at the end, or an error. */
static int64_t ct__next_indices(ct_loader *l, int64_t *idx)
{
    if (l->sampler_done) return 0;
    int64_t n = l->index_sampler ? ct_sampler_next(l->index_sampler, idx, l->max_batch) : l->o.batch_size;
    if (n <= 0) l->sampler_done = true;
    return n;
}

/* ---------------------------------------------------------------- without workers */

static int ct__next_here(ct_loader *l, ct_sample *batch)
{
    char msg[CT__LOADER_MSG];
    int64_t *idx = (int64_t *)CT_MALLOC((size_t)l->max_batch * sizeof *idx);
    if (!idx) return CT__OOM();
    int64_t n = ct__next_indices(l, idx);
    int r = n <= 0 ? (int)n : ct__build_batch(l, l->index_sampler ? NULL : &l->pass, l->received, idx, n, batch, msg);
    if (r < 0 && n > 0) ct__fail((ct_result)r, "%s", msg);
    CT_FREE(idx);
    if (r > 0) l->received++;
    if (r == 0) l->running = false;
    return r;
}

/* ---------------------------------------------------------------- workers */

#ifndef CTORCH_NO_THREADS

/* Give back a batch ct__adopt_batch handed on (to the open scope or the caller). */
static void ct__drop_batch(ct_sample *batch)
{
    for (int k = batch->n - 1; k >= 0; k--) ct__discard(batch->field[k]);
    batch->n = 0;
}

/* A batch's tensors made on another thread join the caller's open scope;
 * false (the error set, the batch given back) when memory runs out there. */
static bool ct__adopt_batch(ct_sample *batch)
{
    bool ok = true;
    for (int k = 0; k < batch->n; k++) ok = (batch->field[k] = ct__own(batch->field[k])) != NULL && ok;
    if (!ok) ct__drop_batch(batch); /* (ct__discard skips the NULLs) */
    return ok;
}

static void ct__worker_build(ct__worker *w, int64_t k, bool new_pass)
{
    ct_loader *l = w->l;
    ct__batch_slot *slot = &l->slots[k % l->nslots];
    if (new_pass && l->dataset->iterable) ct__pass_close(l->dataset, &w->pass);
    ct_sample batch;
    memset(&batch, 0, sizeof batch);
    int r = ct__build_batch(l, l->dataset->iterable ? &w->pass : NULL, k, slot->indices, slot->n, &batch, slot->msg);
    ct__mutex_lock(&l->mu);
    slot->batch = batch;
    slot->code = r < 0 ? (ct_result)r : CT_OK;
    slot->state = r > 0 ? CT__SLOT_READY : r == 0 ? CT__SLOT_EXHAUSTED : CT__SLOT_FAILED;
    w->busy = false;
    ct__cond_broadcast(&l->done);
}

static void ct__worker_main(void *arg)
{
    ct__worker *w = (ct__worker *)arg;
    ct_loader *l = w->l;
    ct_generator *g = ct_generator_new();
    if (g) ct_generator_manual_seed(g, (uint64_t)(l->base_seed + w->id));
    ct_worker_info info = {w->id, l->o.num_workers, l->base_seed + w->id, l->dataset, g};
    ct__worker_info = info;
    ct_set_num_threads(1); /* as PyTorch's worker loop: a batch is one worker's, the cores are shared by the workers */
    if (l->o.worker_init_fn) l->o.worker_init_fn(w->id, l->o.worker_init_user);
    ct__mutex_lock(&l->mu);
    for (;;) {
        while (!l->stop && w->count == 0) ct__cond_wait(&l->work, &l->mu);
        if (l->stop) break;
        int64_t k = w->queue[w->head];
        w->head = (w->head + 1) % l->nslots;
        w->count--;
        w->busy = true;
        bool new_pass = w->reset_pass;
        w->reset_pass = false;
        ct__mutex_unlock(&l->mu);
        ct__worker_build(w, k, new_pass); /* returns with the lock held */
    }
    ct__mutex_unlock(&l->mu);
    if (l->dataset->iterable) ct__pass_close(l->dataset, &w->pass);
    ct_clear_error();
    ct__worker_info.id = -1;
    ct__worker_info.generator = NULL;
    if (g) ct_generator_free(g);
}

/* Stop and join the workers (each finishes the batch it is building), and drop every batch not taken. */
static void ct__stop_workers(ct_loader *l)
{
    if (!l->workers_up) return;
    ct__mutex_lock(&l->mu);
    l->stop = true;
    ct__cond_broadcast(&l->work);
    ct__mutex_unlock(&l->mu);
    int nw = l->workers ? l->o.num_workers : 0, nslots = l->slots ? l->nslots : 0; /* (none: their allocation failed) */
    for (int i = 0; i < nw; i++)
        if (l->workers[i].started) ct__thread_join(&l->workers[i].thread);
    for (int i = 0; i < nslots; i++) {
        ct_sample_release(&l->slots[i].batch);
        CT_FREE(l->slots[i].indices);
    }
    for (int i = 0; i < nw; i++) CT_FREE(l->workers[i].queue);
    CT_FREE(l->slots);
    CT_FREE(l->workers);
    l->slots = NULL;
    l->workers = NULL;
    ct__cond_destroy(&l->work);
    ct__cond_destroy(&l->done);
    ct__mutex_destroy(&l->mu);
    l->workers_up = l->stop = false;
}

static ct_result ct__alloc_workers(ct_loader *l)
{
    int nw = l->o.num_workers;
    l->nslots = nw * l->o.prefetch_factor;
    l->slots = (ct__batch_slot *)CT_MALLOC((size_t)l->nslots * sizeof *l->slots);
    l->workers = (ct__worker *)CT_MALLOC((size_t)nw * sizeof *l->workers);
    bool ok = l->slots && l->workers;
    if (l->slots) memset(l->slots, 0, (size_t)l->nslots * sizeof *l->slots);
    if (l->workers) memset(l->workers, 0, (size_t)nw * sizeof *l->workers);
    for (int i = 0; ok && i < l->nslots; i++)
        ok = (l->slots[i].indices = (int64_t *)CT_MALLOC((size_t)l->max_batch * sizeof(int64_t))) != NULL;
    for (int i = 0; ok && i < nw; i++)
        ok = (l->workers[i].queue = (int64_t *)CT_MALLOC((size_t)l->nslots * sizeof(int64_t))) != NULL;
    return ok ? CT_OK : CT__OOM();
}

static ct_result ct__start_workers(ct_loader *l)
{
    ct__mutex_init(&l->mu);
    ct__cond_init(&l->work);
    ct__cond_init(&l->done);
    l->workers_up = true;
    ct_result r = ct__alloc_workers(l);
    for (int i = 0; r == CT_OK && i < l->o.num_workers; i++) {
        ct__worker *w = &l->workers[i];
        w->l = l;
        w->id = i;
        w->active = true;
        if (!ct__thread_start(&w->thread, ct__worker_main, w))
            r = ct__fail(CT_ERR_RUNTIME, "DataLoader: could not start worker thread %d", i);
        else w->started = true;
    }
    if (r != CT_OK) ct__stop_workers(l);
    return r;
}

/* _try_put_index: the sampler's next batch to the next active worker in the cycle. */
static ct_result ct__dispatch(ct_loader *l)
{
    int nw = l->o.num_workers, w = -1;
    if (l->sampler_done || l->sent - l->received >= l->nslots) return CT_OK;
    for (int tries = 0; tries < nw && w < 0; tries++) {
        int c = l->cycle;
        l->cycle = (l->cycle + 1) % nw;
        if (l->workers[c].active) w = c;
    }
    if (w < 0) return CT_OK;
    ct__batch_slot *slot = &l->slots[l->sent % l->nslots];
    int64_t n = ct__next_indices(l, slot->indices);
    if (n <= 0) return (ct_result)n;
    ct__mutex_lock(&l->mu);
    ct__worker *wk = &l->workers[w];
    slot->n = n;
    slot->worker = w;
    slot->state = CT__SLOT_PENDING;
    wk->queue[(wk->head + wk->count) % l->nslots] = l->sent++;
    wk->count++;
    ct__cond_broadcast(&l->work);
    ct__mutex_unlock(&l->mu);
    return CT_OK;
}

/* Wait for slot's batch; false when the timeout expired. Called with the lock held. */
static bool ct__wait_slot(ct_loader *l, ct__batch_slot *slot)
{
    ct__deadline deadline = ct__deadline_in(l->o.timeout); /* (read only with a timeout) */
    while (slot->state == CT__SLOT_PENDING) {
        if (l->o.timeout <= 0) ct__cond_wait(&l->done, &l->mu);
        else if (!ct__cond_wait_until(&l->done, &l->mu, &deadline) && slot->state == CT__SLOT_PENDING)
            return false;
    }
    return true;
}

static int ct__next_from_workers(ct_loader *l, ct_sample *batch)
{
    for (;;) {
        if (l->received == l->sent) {
            l->running = false;
            if (!l->o.persistent_workers) ct__stop_workers(l);
            return 0;
        }
        ct__batch_slot *slot = &l->slots[l->received % l->nslots];
        ct__mutex_lock(&l->mu);
        if (!ct__wait_slot(l, slot)) {
            ct__mutex_unlock(&l->mu);
            return ct__fail(CT_ERR_RUNTIME, "DataLoader timed out after %g seconds", l->o.timeout);
        }
        ct__slot_state state = slot->state;
        ct_result code = slot->code;
        char msg[CT__LOADER_MSG];
        if (state == CT__SLOT_FAILED) memcpy(msg, slot->msg, sizeof msg);
        *batch = slot->batch;
        memset(&slot->batch, 0, sizeof slot->batch);
        slot->state = CT__SLOT_EMPTY;
        if (state == CT__SLOT_EXHAUSTED) l->workers[slot->worker].active = false;
        ct__mutex_unlock(&l->mu);
        l->received++;
        ct_result r = ct__dispatch(l);
        if (state == CT__SLOT_FAILED) return ct__fail(code, "%s", msg);
        if (state == CT__SLOT_READY) {
            if (!ct__adopt_batch(batch)) return ct_last_error_code();
            if (r != CT_OK) ct__drop_batch(batch); /* the sampler failed: report that */
            return r != CT_OK ? (int)r : 1;
        }
        if (r != CT_OK) return r;
    }
}

/* An epoch with workers: (re)start them as needed and fill the pipeline. */
static ct_result ct__begin_worker_epoch(ct_loader *l)
{
    ct_result r = l->workers_up ? CT_OK : ct__start_workers(l);
    if (r != CT_OK) return r;
    ct__mutex_lock(&l->mu);
    for (int i = 0; i < l->o.num_workers; i++) {
        l->workers[i].active = true;
        l->workers[i].reset_pass = true;
    }
    ct__mutex_unlock(&l->mu);
    l->cycle = 0;
    for (int i = 0; r == CT_OK && i < l->nslots; i++) r = ct__dispatch(l);
    return r;
}

/* Abandon the running epoch: queued batches are dropped, batches being built
 * are waited for and dropped, persistent workers stay. */
static void ct__abandon_worker_epoch(ct_loader *l)
{
    if (!l->workers_up) return;
    if (!l->o.persistent_workers) {
        ct__stop_workers(l);
        return;
    }
    ct__mutex_lock(&l->mu);
    for (int i = 0; i < l->o.num_workers; i++) l->workers[i].count = 0;
    for (int i = 0; i < l->o.num_workers; i++)
        while (l->workers[i].busy) ct__cond_wait(&l->done, &l->mu);
    for (int i = 0; i < l->nslots; i++) {
        ct_sample_release(&l->slots[i].batch);
        l->slots[i].state = CT__SLOT_EMPTY;
    }
    ct__mutex_unlock(&l->mu);
}

#else /* CTORCH_NO_THREADS: ct__check_loader_opts refuses num_workers > 0 */

static void ct__stop_workers(ct_loader *l) { (void)l; }
static void ct__abandon_worker_epoch(ct_loader *l) { (void)l; }
static ct_result ct__begin_worker_epoch(ct_loader *l) { (void)l; return CT_ERR_RUNTIME; }
static int ct__next_from_workers(ct_loader *l, ct_sample *batch) { (void)l, (void)batch; return CT_ERR_RUNTIME; }

#endif

/* ---------------------------------------------------------------- epochs */

ct_result ct_loader_iter(ct_loader *l)
{
    if (!l) return ct__fail(CT_ERR_TYPE, "loader_iter(): argument 'loader' must be a loader, not NULL");
    if (l->running) ct__abandon_worker_epoch(l);
    if (l->dataset->iterable) ct__pass_close(l->dataset, &l->pass);
    l->running = true;
    l->sampler_done = false;
    l->sent = l->received = 0;
    /* each new iterator draws base_seed; persistent workers keep theirs */
    if (!(l->o.persistent_workers && l->workers_up)) l->base_seed = ct__draw_seed(l->o.generator);
    ct_result r = l->index_sampler ? ct_sampler_iter(l->index_sampler) : CT_OK;
    if (r == CT_OK && l->o.num_workers > 0) r = ct__begin_worker_epoch(l);
    if (r != CT_OK) l->running = false;
    return r;
}

int ct_loader_next(ct_loader *l, ct_sample *batch)
{
    if (!l) return ct__fail(CT_ERR_TYPE, "loader_next(): argument 'loader' must be a loader, not NULL");
    if (!batch) return ct__fail(CT_ERR_TYPE, "loader_next(): argument 'batch' must be a sample, not NULL");
    memset(batch, 0, sizeof *batch);
    if (!l->running) {
        ct_result r = ct_loader_iter(l);
        if (r != CT_OK) return r;
    }
    return l->o.num_workers > 0 ? ct__next_from_workers(l, batch) : ct__next_here(l, batch);
}

void ct_loader_free(ct_loader *l)
{
    if (!l) return;
    ct__stop_workers(l);
    if (l->dataset->iterable) ct__pass_close(l->dataset, &l->pass);
    ct_sampler_free(l->index_sampler);
    ct_dataset_free(l->dataset);
    CT_FREE(l);
}
