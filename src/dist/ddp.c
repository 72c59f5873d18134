/* DistributedDataParallel: the wrapper module, its gradient buckets (the
 * Reducer's), and the checks and broadcasts at construction. */

/* dist._DEFAULT_FIRST_BUCKET_BYTES */
#define CT__DDP_FIRST_BUCKET_BYTES ((int64_t)1 << 20)

typedef struct ct__ddp ct__ddp;

/* One bucket: parameters of one dtype whose gradients go through one flat
 * buffer and one all-reduce. */
typedef struct ct__ddp_bucket {
    int *params; /* indices into ct__ddp.params, in registration order */
    int n_params;
    int64_t numel;
    ct_tensor *flat; /* owned */
    int pending;     /* gradients still to arrive in this backward */
    bool ready;
    ct_work *work;
} ct__ddp_bucket;

/* What a parameter's hook needs: its DDP, bucket and place in the flat buffer. */
typedef struct ct__ddp_slot {
    ct__ddp *ddp;
    int bucket;
    int64_t offset;
    int hook_id;
} ct__ddp_slot;

struct ct__ddp {
    ct_module base;
    ct_module *inner; /* the child "module", borrowed */
    ct_process_group *group;
    bool broadcast_buffers;
    bool require_sync;   /* off inside no_sync */
    bool expect_hooks;   /* a forward prepared the buckets for this backward */
    bool require_finish; /* a backward started reducing and has not finished */
    bool find_unused;
    int n_params;
    ct_device device; /* the parameters' (the first one's): its buffers and exchanges live there */
    uint8_t *used; /* per parameter: its gradient arrived in this backward (find_unused) */
    ct_tensor **params; /* retained, so the hooks can be removed at the end */
    ct__ddp_slot *slots;
    ct__ddp_bucket *buckets;
    int n_buckets, next_bucket; /* buckets are launched in order, as the Reducer launches them */
};

static ct_tensor *ct__ddp_forward(ct_module *self, ct_tensor *const *inputs, int n_inputs);
static void ct__ddp_destroy(ct_module *self);
static const ct_module_class ct__ddp_class = {"DistributedDataParallel", ct__ddp_forward, ct__ddp_destroy};

static ct__ddp *ct__ddp_of(const ct_module *m)
{
    if (!m || m->cls != &ct__ddp_class) {
        ct__dist_fail(CT_ERR_TYPE, "expected a DistributedDataParallel module");
        return NULL;
    }
    return (ct__ddp *)m;
}

ct_ddp_opts ct_ddp_opts_init(void)
{
    ct_ddp_opts o;
    memset(&o, 0, sizeof o);
    o.broadcast_buffers = true;
    o.bucket_cap_mb = 25;
    return o;
}

ct_module *ct_ddp_module(ct_module *ddp)
{
    ct__ddp *d = ct__ddp_of(ddp);
    return d ? d->inner : NULL;
}

bool ct_ddp_no_sync(ct_module *ddp, bool no_sync)
{
    ct__ddp *d = ct__ddp_of(ddp);
    if (!d) return false;
    bool was = !d->require_sync;
    d->require_sync = !no_sync;
    return was;
}

int ct_ddp_bucket_sizes(const ct_module *ddp, int64_t *sizes, int cap)
{
    const ct__ddp *d = ct__ddp_of(ddp);
    if (!d) return -1;
    for (int b = 0; b < d->n_buckets && b < cap; b++)
        sizes[b] = d->buckets[b].numel * (int64_t)ct_element_size(d->buckets[b].flat);
    return d->n_buckets;
}

/* ---------------------------------------------------------------- backward */

/* Copies a bucket's gradients into its flat buffer, divided by the world
 * size (the Reducer divides before summing), and starts its all-reduce. The
 * last bucket's all-reduce has nothing left of backward to overlap with:
 * it runs at once, on every rank, where MPI's blocking algorithms are
 * faster than its non-blocking ones. */
static ct_result ct__ddp_launch(ct__ddp *d, ct__ddp_bucket *b, bool last)
{
    ct_scope s = ct_scope_begin();
    ct_result res = CT_OK;
    for (int i = 0; i < b->n_params && res == CT_OK; i++) {
        ct_tensor *p = d->params[b->params[i]];
        ct_tensor *chunk = ct_view(ct_narrow(b->flat, 0, d->slots[b->params[i]].offset, ct_numel(p)), ct_shape_of(p));
        ct_tensor *grad = ct_grad(p);
        res = grad ? ct_copy_(chunk, grad) : ct_fill_(chunk, ct_int(0));
    }
    if (res == CT_OK) res = ct_div_scalar_(b->flat, ct_int(ct_dist_get_world_size(d->group)));
    ct_scope_end(s);
    ct_dist_opts opts = {d->group, last ? NULL : &b->work};
    return res == CT_OK ? ct_dist_all_reduce(b->flat, CT_REDUCE_SUM, opts) : res;
}

/* A tensor made on the host, moved to the parameters' device for a
 * collective: the nccl backend takes CUDA tensors only. */
static ct_tensor *ct__ddp_on_params_device(const ct__ddp *d, ct_tensor *t)
{
    return t ? ct_to_device(t, d->device, false) : NULL;
}

/* With find_unused: which parameters some rank used in this backward (the
 * Reducer's all-reduced local_used_map), into d->used. */
static ct_result ct__ddp_global_use(ct__ddp *d)
{
    ct_dist_opts opts = {d->group, NULL};
    ct_tensor *used = ct__ddp_on_params_device(d, ct_from_array(d->used, CT_SHAPE(d->n_params), CT_U8));
    ct_result res = used ? ct_dist_all_reduce(used, CT_REDUCE_MAX, opts) : ct_last_error_code();
    const ct_tensor *host = res == CT_OK ? ct_to_device(used, CT_CPU, false) : NULL;
    if (host) memcpy(d->used, ct_data_ptr(host), (size_t)d->n_params);
    return host ? CT_OK : ct_last_error_code();
}

/* The end of backward: every bucket's average back into .grad (but for the
 * parameters no rank used, with find_unused). */
static ct_result ct__ddp_finish(void *user)
{
    ct__ddp *d = (ct__ddp *)user;
    ct_scope s = ct_scope_begin();
    ct_result res = d->find_unused ? ct__ddp_global_use(d) : CT_OK;
    for (int k = 0; k < d->n_buckets; k++) {
        ct__ddp_bucket *b = &d->buckets[k];
        if (res == CT_OK && b->work) res = ct_work_wait(b->work);
        ct_work_free(b->work);
        b->work = NULL;
        for (int i = 0; i < b->n_params && res == CT_OK; i++) {
            if (d->find_unused && !d->used[b->params[i]]) continue;
            ct_tensor *p = d->params[b->params[i]];
            ct_tensor *chunk = ct_view(ct_narrow(b->flat, 0, d->slots[b->params[i]].offset, ct_numel(p)), ct_shape_of(p));
            ct_tensor *grad = ct_grad(p);
            res = grad ? ct_copy_(grad, chunk) : ct_set_grad(p, ct_clone(chunk));
        }
    }
    ct_scope_end(s);
    d->expect_hooks = d->require_finish = false;
    return res;
}

/* Parameter `slot` is ready (mark_variable_ready): when it completes its
 * bucket, the buckets now ready are launched in order. Whether this
 * launched the last one. */
static ct_result ct__ddp_mark_ready(ct__ddp *d, const ct__ddp_slot *slot, bool *launched_last)
{
    ct__ddp_bucket *b = &d->buckets[slot->bucket];
    if (--b->pending == 0) b->ready = true;
    for (int k = 0; k < d->next_bucket; k++) ct_work_is_completed(d->buckets[k].work); /* moves MPI on */
    int launched_before = d->next_bucket;
    while (d->next_bucket < d->n_buckets && d->buckets[d->next_bucket].ready) {
        bool last = d->next_bucket == d->n_buckets - 1;
        ct_result res = ct__ddp_launch(d, &d->buckets[d->next_bucket], last);
        if (res != CT_OK) return res;
        d->next_bucket++;
    }
    *launched_last = launched_before < d->n_buckets && d->next_bucket == d->n_buckets;
    return CT_OK;
}

/* A gradient arrived (the Reducer's autograd hook): its parameter is ready,
 * and once the last bucket is launched the end of backward is arranged. */
static ct_tensor *ct__ddp_grad_ready(ct_tensor *param, void *user)
{
    (void)param;
    ct__ddp_slot *slot = (ct__ddp_slot *)user;
    ct__ddp *d = slot->ddp;
    if (!d->expect_hooks) return NULL; /* no_sync, or a backward without a DDP forward */
    d->require_finish = true;
    if (d->find_unused) d->used[slot - d->slots] = 1;
    bool launched_last = false;
    if (ct__ddp_mark_ready(d, slot, &launched_last) != CT_OK) return NULL; /* (the error stays set) */
    if (launched_last) ct_autograd_queue_callback(ct__ddp_finish, d);
    return NULL;
}

/* ---------------------------------------------------------------- forward */

static ct_result ct__ddp_prepare_for_backward(ct__ddp *d)
{
    if (d->require_finish)
        return ct__dist_fail(
            CT_ERR_RUNTIME,
            "Expected to have finished reduction in the prior iteration before starting a new one. This error "
            "indicates that your module has parameters that were not used in producing loss. You can enable unused "
            "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
            "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
            "participate in calculating loss.");
    for (int k = 0; k < d->n_buckets; k++) {
        d->buckets[k].pending = d->buckets[k].n_params;
        d->buckets[k].ready = false;
    }
    if (d->find_unused) memset(d->used, 0, (size_t)d->n_params);
    d->next_bucket = 0;
    d->expect_hooks = true;
    return CT_OK;
}

/* A set of nodes seen, open addressing on their addresses (size a power of two). */
typedef struct ct__node_set {
    const ct_node **slots;
    size_t cap, n;
} ct__node_set;

/* Adds n; false when it was there already (or, the error set, when the set cannot grow). */
static bool ct__node_set_add(ct__node_set *set, const ct_node *n, bool *failed)
{
    if (2 * (set->n + 1) > set->cap) {
        ct__node_set grown = {NULL, set->cap ? 2 * set->cap : 64, 0};
        grown.slots = (const ct_node **)ct__dist_alloc(grown.cap * sizeof *grown.slots);
        if (!grown.slots) {
            *failed = true;
            return false;
        }
        memset(grown.slots, 0, grown.cap * sizeof *grown.slots);
        for (size_t i = 0; i < set->cap; i++)
            if (set->slots[i]) ct__node_set_add(&grown, set->slots[i], failed);
        CT_FREE(set->slots);
        *set = grown;
    }
    size_t i = ((uintptr_t)n >> 4) * 0x9E3779B97F4A7C15u & (set->cap - 1);
    for (; set->slots[i]; i = (i + 1) & (set->cap - 1))
        if (set->slots[i] == n) return false;
    set->slots[i] = n;
    set->n++;
    return true;
}

/* The parameters out's graph reaches, marked in reached (the Reducer's
 * search from the forward's outputs): a depth-first walk over grad_fn's
 * next functions to the AccumulateGrad nodes. */
static ct_result ct__ddp_reached(const ct__ddp *d, const ct_tensor *out, uint8_t *reached)
{
    for (int i = 0; i < d->n_params; i++) reached[i] = d->params[i] == out; /* a parameter returned as is */
    ct__node_set seen = {NULL, 0, 0};
    const ct_node **stack = NULL;
    size_t n = 0, cap = 0;
    bool failed = false;
    const ct_node *root = ct_grad_fn(out);
    if (root && ct__node_set_add(&seen, root, &failed)) {
        cap = 64;
        if (!(stack = (const ct_node **)ct__dist_alloc(cap * sizeof *stack))) failed = true;
        else stack[n++] = root;
    }
    while (n > 0 && !failed) {
        const ct_node *node = stack[--n];
        const ct_tensor *leaf = ct_node_variable(node);
        for (int i = 0; leaf && i < d->n_params; i++) reached[i] |= d->params[i] == leaf;
        for (int k = 0; k < ct_node_num_next(node) && !failed; k++) {
            const ct_node *next = ct_node_next(node, k, NULL);
            if (!next || !ct__node_set_add(&seen, next, &failed)) continue;
            if (n == cap) {
                const ct_node **grown = (const ct_node **)CT_REALLOC(stack, 2 * cap * sizeof *stack);
                if (!grown) {
                    failed = true;
                    break;
                }
                stack = grown, cap *= 2;
            }
            stack[n++] = next;
        }
    }
    CT_FREE(stack);
    CT_FREE(seen.slots);
    return failed ? ct__dist_fail(CT_ERR_MEMORY, "DistributedDataParallel: not enough memory to search the graph")
                  : CT_OK;
}

/* find_unused_parameters: the parameters out does not reach are ready now.
 * When out reaches none, no hook will end the reduction: it ends here. */
static ct_result ct__ddp_mark_unused_ready(ct__ddp *d, const ct_tensor *out)
{
    uint8_t *reached = (uint8_t *)ct__dist_alloc((size_t)d->n_params);
    ct_result res = reached ? ct__ddp_reached(d, out, reached) : CT_ERR_MEMORY;
    bool launched_last = false;
    for (int i = 0; i < d->n_params && res == CT_OK; i++)
        if (!reached[i]) res = ct__ddp_mark_ready(d, &d->slots[i], &launched_last);
    CT_FREE(reached);
    return res == CT_OK && launched_last ? ct__ddp_finish(d) : res;
}

/* Rank 0's tensors (of the group) to every rank, one broadcast each. */
static ct_result ct__ddp_broadcast_all(const ct__ddp *d, const ct_tensor_list *list)
{
    ct_result res = CT_OK;
    ct_dist_opts opts = {d->group, NULL};
    for (int i = 0; i < list->n && res == CT_OK; i++)
        res = ct_dist_broadcast(list->tensors[i], d->group->global[0], opts);
    return res;
}

static ct_result ct__ddp_sync_buffers(const ct__ddp *d)
{
    ct_tensor_list buffers = ct_module_buffers(d->inner, true);
    ct_result res = ct__ddp_broadcast_all(d, &buffers);
    ct_tensor_list_free(&buffers);
    return res;
}

static ct_tensor *ct__ddp_forward(ct_module *self, ct_tensor *const *inputs, int n_inputs)
{
    ct__ddp *d = (ct__ddp *)self;
    if (ct_is_grad_enabled() && d->require_sync && ct__ddp_prepare_for_backward(d) != CT_OK) return NULL;
    if (d->broadcast_buffers && d->group->size > 1 && ct__ddp_sync_buffers(d) != CT_OK) return NULL;
    ct_tensor *out = ct_forward_n(d->inner, inputs, n_inputs);
    if (out && d->find_unused && d->expect_hooks && ct__ddp_mark_unused_ready(d, out) != CT_OK) return NULL;
    return out;
}

/* ---------------------------------------------------------------- construction */

/* _verify_param_shape_across_processes: the same number of parameters with
 * the same shapes on every rank (shapes exchanged as ndim and 16 sizes). */
static ct_result ct__ddp_verify_params(const ct__ddp *d)
{
    enum { ROW = 1 + CT_MAX_DIMS };
    int size = d->group->size;
    ct_dist_opts opts = {d->group, NULL};
    ct_scope s = ct_scope_begin();
    ct_tensor *mine = ct__ddp_on_params_device(d, ct_full(CT_SHAPE(1), ct_int(d->n_params), CT_I64));
    ct_tensor *all = ct__ddp_on_params_device(d, ct_zeros(CT_SHAPE(size), CT_I64));
    ct_result res = mine && all ? ct_dist_all_gather_into_tensor(all, mine, opts) : ct_last_error_code();
    if (res == CT_OK && !(all = ct_to_device(all, CT_CPU, false))) res = ct_last_error_code();
    const int64_t *counts = res == CT_OK ? (const int64_t *)ct_data_ptr(all) : NULL;
    for (int r = 0; res == CT_OK && r < size; r++)
        if (counts[r] != d->n_params)
            res = ct__dist_fail(CT_ERR_RUNTIME,
                                "DDP expects same model across all ranks, but Rank %d has %d params, while rank %d has "
                                "inconsistent %lld params.",
                                d->group->global[d->group->rank], d->n_params, d->group->global[r], (long long)counts[r]);
    ct_tensor *shapes = res == CT_OK ? ct_zeros(CT_SHAPE(d->n_params > 0 ? d->n_params : 1, ROW), CT_I64) : NULL;
    for (int i = 0; shapes && i < d->n_params; i++) {
        ct_shape sh = ct_shape_of(d->params[i]);
        int64_t *row = (int64_t *)ct_data_ptr(shapes) + (size_t)i * ROW;
        row[0] = sh.ndim;
        for (int k = 0; k < sh.ndim; k++) row[1 + k] = sh.size[k];
    }
    ct_tensor *gathered = shapes ? ct__ddp_on_params_device(d, ct_zeros(CT_SHAPE(size, ct_numel(shapes)), CT_I64)) : NULL;
    ct_tensor *sent = gathered ? ct__ddp_on_params_device(d, shapes) : NULL;
    if (res == CT_OK) res = sent ? ct_dist_all_gather_into_tensor(gathered, sent, opts) : ct_last_error_code();
    if (res == CT_OK && !(gathered = ct_to_device(gathered, CT_CPU, false))) res = ct_last_error_code();
    for (int r = 0; res == CT_OK && r < size; r++) {
        const int64_t *theirs = (const int64_t *)ct_data_ptr(gathered) + (size_t)r * (size_t)ct_numel(shapes);
        for (int i = 0; res == CT_OK && i < d->n_params; i++)
            if (memcmp(theirs + (size_t)i * ROW, (const int64_t *)ct_data_ptr(shapes) + (size_t)i * ROW, ROW * sizeof(int64_t)))
                res = ct__dist_fail(CT_ERR_RUNTIME,
                                    "DDP expects same model across all ranks, but Rank %d params[%d] has a different "
                                    "shape than rank %d's.",
                                    d->group->global[d->group->rank], i, d->group->global[r]);
    }
    ct_scope_end(s);
    return res;
}

/* _compute_bucket_assignment_by_size: parameters in registration order, a
 * bucket per dtype, each closed once it holds its limit (1 MiB for the
 * first, cap for the rest); then reversed, as DDP hands them to the Reducer. */
static ct_result ct__ddp_assign_buckets(ct__ddp *d, int64_t cap_bytes)
{
    d->buckets = (ct__ddp_bucket *)ct__dist_alloc((size_t)d->n_params * sizeof *d->buckets);
    if (!d->buckets) return CT_ERR_MEMORY;
    memset(d->buckets, 0, (size_t)d->n_params * sizeof *d->buckets);
    int open[CT_NUM_DTYPES]; /* each dtype's open bucket, or -1 */
    int64_t limit[CT_NUM_DTYPES];
    for (int t = 0; t < CT_NUM_DTYPES; t++) open[t] = -1, limit[t] = CT__DDP_FIRST_BUCKET_BYTES;
    int n = 0;
    for (int i = 0; i < d->n_params; i++) {
        ct_dtype dt = ct_dtype_of(d->params[i]);
        if (open[dt] < 0) open[dt] = n++;
        d->n_buckets = n; /* (so that a failure frees what was made) */
        ct__ddp_bucket *b = &d->buckets[open[dt]];
        if (!b->params && !(b->params = (int *)ct__dist_alloc((size_t)d->n_params * sizeof *b->params)))
            return CT_ERR_MEMORY;
        d->slots[i].offset = b->numel;
        b->params[b->n_params++] = i;
        b->numel += ct_numel(d->params[i]);
        if (b->numel * (int64_t)ct_dtype_size(dt) >= limit[dt]) open[dt] = -1, limit[dt] = cap_bytes;
    }
    d->n_buckets = n;
    for (int k = 0; k < n / 2; k++) { /* reversed */
        ct__ddp_bucket t = d->buckets[k];
        d->buckets[k] = d->buckets[n - 1 - k];
        d->buckets[n - 1 - k] = t;
    }
    for (int k = 0; k < n; k++)
        for (int i = 0; i < d->buckets[k].n_params; i++) d->slots[d->buckets[k].params[i]].bucket = k;
    return CT_OK;
}

static ct_result ct__ddp_make_flats(ct__ddp *d)
{
    ct_result res = CT_OK;
    ct_scope s = ct_scope_begin();
    for (int k = 0; k < d->n_buckets && res == CT_OK; k++) {
        ct__ddp_bucket *b = &d->buckets[k];
        b->flat = ct__ddp_on_params_device(d, ct_zeros(CT_SHAPE(b->numel), ct_dtype_of(d->params[b->params[0]])));
        if (b->flat) ct_retain(b->flat); /* the bucket's own reference, past the scope */
        else res = ct_last_error_code();
    }
    ct_scope_end(s);
    return res;
}

/* The parameters that require grad, retained, and their hooks. */
static ct_result ct__ddp_take_params(ct__ddp *d)
{
    ct_tensor_list list = ct_module_parameters(d->inner, true);
    d->params = (ct_tensor **)ct__dist_alloc((size_t)list.n * sizeof *d->params);
    d->slots = d->params ? (ct__ddp_slot *)ct__dist_alloc((size_t)list.n * sizeof *d->slots) : NULL;
    d->used = d->slots ? (uint8_t *)ct__dist_alloc((size_t)list.n + 1) : NULL;
    ct_result res = d->used ? CT_OK : CT_ERR_MEMORY;
    for (int i = 0; i < list.n && res == CT_OK; i++) {
        if (!ct_requires_grad(list.tensors[i])) continue;
        d->params[d->n_params] = ct_retain(list.tensors[i]);
        memset(&d->slots[d->n_params], 0, sizeof *d->slots);
        d->slots[d->n_params].ddp = d;
        d->slots[d->n_params].hook_id = -1;
        d->n_params++;
    }
    ct_tensor_list_free(&list);
    d->device = d->n_params > 0 ? ct_device_of(d->params[0]) : CT_CPU;
    if (res == CT_OK && d->n_params == 0)
        res = ct__dist_fail(CT_ERR_RUNTIME, "DistributedDataParallel is not needed when a module doesn't have any "
                                            "parameter that requires a gradient.");
    return res;
}

static ct_result ct__ddp_register_hooks(ct__ddp *d)
{
    for (int i = 0; i < d->n_params; i++) {
        d->slots[i].hook_id = ct_register_post_accumulate_grad_hook(d->params[i], ct__ddp_grad_ready, &d->slots[i]);
        if (d->slots[i].hook_id < 0) return ct_last_error_code();
    }
    return CT_OK;
}

static ct_result ct__ddp_sync_params_and_buffers(const ct__ddp *d)
{
    ct_tensor_list params = {d->n_params, NULL, d->params};
    ct_result res = ct__ddp_broadcast_all(d, &params);
    return res == CT_OK ? ct__ddp_sync_buffers(d) : res;
}

ct_module *ct_ddp(ct_module *module, ct_ddp_opts opts)
{
    ct_process_group *g = ct__dist_group(opts.process_group);
    if (!module) ct__dist_fail(CT_ERR_TYPE, "DistributedDataParallel(): argument 'module' must be Module, not NULL");
    if (!g || !module) {
        ct_module_release(module);
        return NULL;
    }
    ct_module *m = ct_module_new(&ct__ddp_class, sizeof(ct__ddp));
    if (!m) {
        ct_module_release(module);
        return NULL;
    }
    ct__ddp *d = (ct__ddp *)m;
    d->group = g;
    d->broadcast_buffers = opts.broadcast_buffers;
    d->find_unused = opts.find_unused_parameters;
    d->require_sync = true;
    d->inner = ct_add_module(m, "module", module);
    double cap_mb = opts.bucket_cap_mb > 0 ? opts.bucket_cap_mb : 25;
    ct_result res = d->inner ? ct__ddp_take_params(d) : ct_last_error_code();
    if (res == CT_OK) res = ct__ddp_verify_params(d);
    if (res == CT_OK) res = ct__ddp_sync_params_and_buffers(d);
    if (res == CT_OK) res = ct__ddp_assign_buckets(d, (int64_t)(cap_mb * 1024 * 1024));
    if (res == CT_OK) res = ct__ddp_make_flats(d);
    if (res == CT_OK) res = ct__ddp_register_hooks(d);
    if (res != CT_OK) {
        ct_module_release(m);
        return NULL;
    }
    return m;
}

static void ct__ddp_destroy(ct_module *self)
{
    ct__ddp *d = (ct__ddp *)self;
    for (int k = 0; d->buckets && k < d->n_buckets; k++) {
        ct_work_free(d->buckets[k].work);
        ct_release(d->buckets[k].flat);
        CT_FREE(d->buckets[k].params);
    }
    for (int i = 0; i < d->n_params; i++) {
        if (d->slots[i].hook_id >= 0) ct_remove_hook(d->params[i], d->slots[i].hook_id);
        ct_release(d->params[i]);
    }
    CT_FREE(d->buckets);
    CT_FREE(d->slots);
    CT_FREE(d->used);
    CT_FREE(d->params);
}
