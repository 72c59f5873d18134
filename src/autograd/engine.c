/* The backward engine: runs the graph from its roots in dependency order,
 * latest nodes first (PyTorch's order, so gradients are summed in the same
 * order), accumulating into leaves' .grad or capturing the gradients
 * torch.autograd.grad asks for. */

/* A gradient wanted by autograd.grad, or backward(inputs=): slot `slot` of
 * `node` (a leaf's AccumulateGrad, or a non-leaf's grad_fn). */
typedef struct ct__capture {
    const ct_tensor *tensor;
    ct__node *node;
    int slot;
    ct_tensor *grad; /* summed as it arrives */
} ct__capture;

/* The scratch a node holds for the pass running it, kept aside while a
 * pass nested inside that one (a backward op's, formulas.c) uses the node. */
typedef struct ct__node_scratch {
    ct__node *node;
    uint64_t run;
    int deps, pending;
    ct_tensor **buffer;
    bool needed, capture_any;
} ct__node_scratch;

typedef struct ct__run {
    uint64_t id;
    bool create_graph, retain_graph;
    bool accumulate; /* backward: into .grad; grad: captured only */
    bool filtered;   /* only the captured tensors get gradients */
    ct__node **nodes;
    int n_nodes, cap_nodes;
    ct__node_scratch *outer; /* the scratch of nodes an enclosing pass holds, restored at the end */
    int n_outer, cap_outer;
    ct__capture *captures;
    int n_captures;
    ct__node **heap; /* the ready queue, a max-heap on seq */
    int n_heap;
    ct_tensor **buffers; /* every node's gradient buffer, one block */
    struct ct__final_callback *callbacks; /* queue_callback's, run after the last node */
    int n_callbacks, cap_callbacks;
} ct__run;

typedef struct ct__final_callback {
    ct_autograd_callback fn;
    void *user;
} ct__final_callback;

static uint64_t ct__run_ids;

/* One backward pass at a time in the process. A node keeps the state of the
 * pass running it (its dependency count and gradient buffer), and threads
 * that run forward on shared parameters share those leaves' AccumulateGrad
 * nodes, so passes from several threads take turns; one thread's nested
 * passes (a checkpoint's, a hook's) run inside its own. Forward passes run
 * in parallel with them and with each other. */
static ct__mutex ct__engine_mutex = CT__MUTEX_INIT;
static CT__TLS int ct__engine_depth;

static void ct__engine_enter(void)
{
    if (ct__engine_depth++ == 0) ct__mutex_lock(&ct__engine_mutex);
}

static void ct__engine_leave(void)
{
    if (--ct__engine_depth == 0) ct__mutex_unlock(&ct__engine_mutex);
}

/* Whether the backward running on this thread gives every leaf its gradient
 * (a plain backward): a checkpoint can rerun its forward only then
 * (torch.autograd._is_checkpoint_valid). */
static CT__TLS bool ct__checkpoint_valid = true;

/* The backward pass running on this thread (the innermost, when a
 * checkpoint's backward starts another): where queue_callback queues. */
static CT__TLS ct__run *ct__current_run;

ct_result ct_autograd_queue_callback(ct_autograd_callback fn, void *user)
{
    ct__run *r = ct__current_run;
    if (!r) return ct__fail(CT_ERR_RUNTIME, "Final callbacks can only be installed during backward pass.");
    if (!fn) return ct__fail(CT_ERR_TYPE, "queue_callback(): argument 'callback' must be a function, not NULL");
    if (r->n_callbacks == r->cap_callbacks) {
        int cap = r->cap_callbacks ? 2 * r->cap_callbacks : 4;
        ct__final_callback *grown =
            (ct__final_callback *)CT_REALLOC(r->callbacks, (size_t)cap * sizeof *grown);
        if (!grown) return CT__OOM();
        r->callbacks = grown;
        r->cap_callbacks = cap;
    }
    r->callbacks[r->n_callbacks].fn = fn;
    r->callbacks[r->n_callbacks].user = user;
    r->n_callbacks++;
    return CT_OK;
}

/* GraphTask::exec_post_processing's final callbacks: in order, each may queue
 * more (so the count is read again every time round). */
static ct_result ct__run_callbacks(ct__run *r)
{
    ct_result res = CT_OK;
    for (int i = 0; i < r->n_callbacks && res == CT_OK; i++) res = r->callbacks[i].fn(r->callbacks[i].user);
    return res;
}

/* ---------------------------------------------------------------- the ready queue */

static void ct__ready_push(ct__run *r, ct__node *n)
{
    int i = r->n_heap++;
    while (i > 0 && r->heap[(i - 1) / 2]->seq < n->seq) {
        r->heap[i] = r->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    r->heap[i] = n;
}

static ct__node *ct__ready_pop(ct__run *r)
{
    ct__node *top = r->heap[0], *last = r->heap[--r->n_heap];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= r->n_heap) break;
        if (c + 1 < r->n_heap && r->heap[c + 1]->seq > r->heap[c]->seq) c++;
        if (r->heap[c]->seq <= last->seq) break;
        r->heap[i] = r->heap[c];
        i = c;
    }
    if (r->n_heap > 0) r->heap[i] = last;
    return top;
}

/* ---------------------------------------------------------------- discovering the graph */

/* Keep n's scratch for the enclosing pass that holds it. */
static bool ct__run_keep_outer(ct__run *r, ct__node *n)
{
    if (r->n_outer == r->cap_outer) {
        int cap = r->cap_outer ? r->cap_outer * 2 : 16;
        ct__node_scratch *grown = (ct__node_scratch *)CT_REALLOC(r->outer, (size_t)cap * sizeof *grown);
        if (!grown) return false;
        r->outer = grown;
        r->cap_outer = cap;
    }
    ct__node_scratch *k = &r->outer[r->n_outer++];
    k->node = n, k->run = n->run, k->deps = n->deps, k->pending = n->pending;
    k->buffer = n->buffer, k->needed = n->needed, k->capture_any = n->capture_any;
    return true;
}

static bool ct__run_add_node(ct__run *r, ct__node *n)
{
    if (n->run != 0 && !ct__run_keep_outer(r, n)) return false;
    if (r->n_nodes == r->cap_nodes) {
        int cap = r->cap_nodes ? r->cap_nodes * 2 : 64;
        ct__node **grown = (ct__node **)CT_REALLOC(r->nodes, (size_t)cap * sizeof *grown);
        if (!grown) return false;
        r->nodes = grown;
        r->cap_nodes = cap;
    }
    r->nodes[r->n_nodes++] = n;
    n->run = r->id;
    n->deps = 0;
    n->needed = n->capture_any = false;
    n->buffer = NULL;
    return true;
}

/* Each node's buffer of n_out gradients, all empty, carved from one block. */
static bool ct__run_buffers(ct__run *r)
{
    size_t total = 0;
    for (int k = 0; k < r->n_nodes; k++) total += (size_t)r->nodes[k]->n_out;
    size_t bytes = (total ? total : 1) * sizeof *r->buffers;
    r->buffers = (ct_tensor **)CT_MALLOC(bytes);
    if (!r->buffers) return false;
    ct__zero(r->buffers, bytes);
    for (int k = 0, at = 0; k < r->n_nodes; k++) {
        r->nodes[k]->buffer = r->buffers + at;
        at += r->nodes[k]->n_out;
    }
    return true;
}

/* Every node reachable from the roots, in r->nodes in depth-first preorder,
 * with deps = the number of edges into it from reachable nodes. */
static ct_result ct__discover(ct__run *r, ct__node *const *roots, int n_roots)
{
    for (int i = 0; i < n_roots; i++)
        if (roots[i]->run != r->id && !ct__run_add_node(r, roots[i])) return CT__OOM();
    for (int k = 0; k < r->n_nodes; k++) { /* r->nodes doubles as the work list */
        ct__node *n = r->nodes[k];
        for (int i = 0; i < n->n_next; i++) {
            ct__node *c = n->next[i].fn;
            if (!c) continue;
            if (c->run != r->id && !ct__run_add_node(r, c)) return CT__OOM();
            c->deps++;
        }
    }
    return ct__run_buffers(r) ? CT_OK : CT__OOM();
}

/* Which nodes must run. Unfiltered: all of them. Filtered: those from which
 * a captured gradient is reachable (a node reached only to capture at it need
 * not run itself). Children are decided before parents: the nodes are taken
 * in reverse of an order where every node comes after all its parents (Kahn's,
 * counting the edges discover found). */
static ct_result ct__mark_needed(ct__run *r)
{
    for (int c = 0; c < r->n_captures; c++) r->captures[c].node->capture_any = true;
    if (!r->filtered) {
        for (int k = 0; k < r->n_nodes; k++) r->nodes[k]->needed = r->accumulate || !r->nodes[k]->leaf;
        return CT_OK;
    }
    ct__node **order = (ct__node **)CT_MALLOC((size_t)r->n_nodes * sizeof *order);
    if (!order) return CT__OOM();
    int head = 0, tail = 0;
    for (int k = 0; k < r->n_nodes; k++) {
        r->nodes[k]->pending = r->nodes[k]->deps;
        if (r->nodes[k]->pending == 0) order[tail++] = r->nodes[k];
    }
    while (head < tail) {
        ct__node *n = order[head++];
        for (int i = 0; i < n->n_next; i++)
            if (n->next[i].fn && --n->next[i].fn->pending == 0) order[tail++] = n->next[i].fn;
    }
    for (int k = tail - 1; k >= 0; k--) {
        ct__node *n = order[k];
        if (n->leaf) { /* AccumulateGrad runs only for a captured leaf under backward(inputs=) */
            n->needed = r->accumulate && n->capture_any;
            continue;
        }
        for (int i = 0; i < n->n_next && !n->needed; i++) {
            ct__node *c = n->next[i].fn;
            n->needed = c && (c->needed || c->capture_any);
        }
    }
    CT_FREE(order);
    return CT_OK;
}

/* ---------------------------------------------------------------- running nodes */

/* buffer slot += g (g is a new reference, taken over). */
static ct_result ct__buffer_add(ct_tensor **slot, ct_tensor *g)
{
    if (!*slot) {
        *slot = g;
        return CT_OK;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *sum = ct_add(*slot, g);
    if (sum) {
        ct_release(*slot);
        *slot = ct_retain(sum);
    }
    ct_release(g);
    ct_scope_end(s);
    return sum ? CT_OK : ct_last_error_code();
}

/* Zeros shaped like output k of n, for an output that received no gradient. */
static ct_tensor *ct__zeros_for(const ct__node *n, int k)
{
    return ct_zeros(ct_shape_make(n->out[k].ndim, n->out[k].sizes), n->out[k].dtype);
}

/* validate_outputs' device error; fn NULL for a root's gradient, which
 * PyTorch reports without naming a function. */
static void ct__wrong_grad_device(const char *fn, int i, ct_device want, ct_device got)
{
    char w[64], g[64];
    ct__fail(CT_ERR_RUNTIME, "%s%s%sinvalid gradient at index %d - expected device %s but got %s", fn ? "Function " : "",
             fn ? fn : "", fn ? " returned an " : "", i, ct_device_str(want, w, sizeof w), ct_device_str(got, g, sizeof g));
}

/* A gradient for edge e of n checked against what the input was: its shape
 * (a broadcastable one is summed down, as PyTorch's validate_outputs does) and
 * its dtype (converted). Returns a new reference, or NULL with the error. */
static ct_tensor *ct__validate_grad(const ct__node *n, int i, ct_tensor *g)
{
    const ct__out_meta *m = &n->next[i].fn->out[n->next[i].input_nr];
    ct_tensor *r = g;
    if (g->ndim != m->ndim || !ct__dims_equal(g->sizes, m->sizes, m->ndim)) {
        ct_tensor *summed = ct__sum_to_shape(g, m->sizes, m->ndim);
        if (!summed) {
            char b1[256], b2[256];
            ct_clear_error();
            ct__fail(CT_ERR_RUNTIME, "Function %s returned an invalid gradient at index %d - got %s but expected shape "
                                     "compatible with %s",
                     n->type->name, i, ct__shape_str(g->sizes, g->ndim, b1, sizeof b1), ct__shape_str(m->sizes, m->ndim, b2, sizeof b2));
            return NULL;
        }
        r = summed;
    }
    if (r->dtype != m->dtype) r = ct_to(r, m->dtype);
    if (r && !ct_device_equal(r->storage->device, m->device)) {
        ct__wrong_grad_device(n->type->name, i, m->device, r->storage->device);
        return NULL;
    }
    return r ? ct_retain(r) : NULL;
}

static bool ct__has_nan(const ct_tensor *g)
{
    if (!ct_dtype_is_floating(g->dtype)) return false;
    ct_scope s = ct_scope_begin();
    const ct_tensor *c = ct__host(ct_contiguous(g));
    bool nan = false;
    for (int64_t i = 0, n = ct_numel(c); c && i < n && !nan; i++) {
        double v = ct__read_f64(ct__data(c) + (size_t)i * ct__esize(c), c->dtype);
        nan = v != v;
    }
    ct_scope_end(s);
    return nan;
}

/* Whether grad may become leaf's .grad as it is under PyTorch's gradient
 * layout contract (obeys_layout_contract): leaf's strides in its dims of
 * size > 1 (and no stride 0 in the others) when leaf is dense, else contiguous. */
static bool ct__obeys_layout(const ct_tensor *grad, const ct_tensor *leaf)
{
    if (!ct__is_dense(leaf)) return ct_is_contiguous(grad);
    for (int d = 0; d < grad->ndim; d++)
        if (grad->sizes[d] != 1 ? grad->strides[d] != leaf->strides[d] : grad->strides[d] == 0) return false;
    return true;
}

/* A copy of grad laid out by the contract (clone_obey_contract): with leaf's
 * strides when leaf is dense, else contiguous; recorded under create_graph. */
static ct_tensor *ct__clone_obey_layout(const ct_tensor *grad, const ct_tensor *leaf)
{
    bool dense = ct__is_dense(leaf);
    ct_tensor *r = ct__alloc_strided(grad->sizes, dense ? leaf->strides : NULL, grad->ndim, grad->dtype,
                                     grad->storage->device);
    return r && ct_copy_(r, grad) == CT_OK ? r : NULL;
}

/* AccumulateGrad: leaf.grad = grad, or += grad (out of place under create_graph,
 * so the sum is itself differentiable). */
static ct_result ct__accumulate(ct__run *r, ct__node *n, ct_tensor *grad)
{
    ct_tensor *leaf = n->leaf;
    ct__ag_meta *m = ct__meta_get(leaf);
    if (!m) return CT__OOM();
    ct__hooks_run(&m->hooks, -1, &grad);
    if (!m->grad) {
        /* take the gradient over when nothing else can see it and it is laid out
         * as the contract asks (an expanded gradient, as sum's, is copied, so
         * that .grad can be written in place), else copy it so laid out */
        if (r->create_graph || CT__ATOMIC_LOAD(&grad->refcount) > 1 || !ct__obeys_layout(grad, leaf)) {
            ct_tensor *copy = ct__clone_obey_layout(grad, leaf);
            if (!copy) return ct_last_error_code();
            m->grad = ct_retain(copy);
        } else { /* without create_graph only a hook's tensor can have history: an alias without it */
            ct_tensor *own = grad->requires_grad ? ct_detach(grad) : grad;
            if (!own) return ct_last_error_code();
            m->grad = ct_retain(own);
        }
    } else if (!r->create_graph) {
        ct_result res = ct_add_(m->grad, grad);
        if (res != CT_OK) return res;
    } else {
        ct_tensor *sum = ct_add(m->grad, grad);
        if (!sum) return ct_last_error_code();
        ct_release(m->grad);
        m->grad = ct_retain(sum);
    }
    ct_release(grad);
    for (int i = 0; i < m->post_acc_hooks.n; i++) {
        ct_tensor *ret = m->post_acc_hooks.items[i].fn(leaf, m->post_acc_hooks.items[i].user);
        if (ret) ct_release(ret);
    }
    return CT_OK;
}

/* Run one ready node: its hooks, captures, backward, and hand the results on. */
static ct_result ct__run_node(ct__run *r, ct__node *n)
{
    ct_tensor **grads = n->buffer, *grads_in_inline[8], **grads_in = grads_in_inline;
    ct_result res = CT_OK;
    for (int k = 0; k < n->n_out; k++) /* prehooks: register_hook and retain_grad on non-leaves, node prehooks */
        if (grads[k]) ct__hooks_run(&n->pre_hooks, k, &grads[k]);
    for (int c = 0; c < r->n_captures; c++) {
        ct__capture *cap = &r->captures[c];
        if (cap->node != n || !grads[cap->slot] || (n->leaf && r->accumulate)) continue;
        ct_tensor *g = grads[cap->slot];
        if (n->leaf) ct__hooks_run(&ct__meta(n->leaf)->hooks, -1, &g); /* a leaf's hooks see its captured grad */
        if (g != grads[cap->slot]) grads[cap->slot] = g;
        if (r->accumulate) { /* backward(inputs=[non-leaf]) accumulates into its .grad */
            ct__retain_into((ct_tensor *)cap->tensor, g);
        } else {
            if (!cap->grad) cap->grad = ct_retain(g);
            else if ((res = ct__buffer_add(&cap->grad, ct_retain(g))) != CT_OK) return res;
        }
    }
    if (!n->needed) return CT_OK;
    if (n->leaf) {
        ct_tensor *g = grads[0];
        grads[0] = NULL;
        return g ? ct__accumulate(r, n, g) : CT_OK;
    }
    if (n->saved_freed) return ct__fail(CT_ERR_RUNTIME, "%s", ct__freed_graph_msg);
    if (n->save_failed) return ct__fail(CT_ERR_MEMORY, "%s: a tensor saved for it could not be kept (not enough memory)",
                                        ct_node_name(n));
    if (n->n_next > 8 && !(grads_in = (ct_tensor **)CT_MALLOC((size_t)n->n_next * sizeof *grads_in))) return CT__OOM();
    memset(grads_in, 0, (size_t)n->n_next * sizeof *grads_in);
    /* what the zeros and the formula create goes to the node's device, as PyTorch's engine guards it */
    ct_device_guard on = ct_device_guard_begin(n->n_out ? n->out[0].device : ct__cpu);
    for (int k = 0; k < n->n_out; k++)
        if (!grads[k] && !(grads[k] = ct_retain(ct__zeros_for(n, k)))) res = ct_last_error_code();
    if (res == CT_OK) res = n->type->backward(n, grads, grads_in);
    ct_device_guard_end(on);
    for (int i = 0; i < n->n_next && res == CT_OK; i++) {
        if (!grads_in[i] || !n->next[i].fn) continue;
        ct_tensor *g = ct__validate_grad(n, i, grads_in[i]);
        if (!g) {
            res = ct_last_error_code();
            break;
        }
        ct__hooks_run(&n->post_hooks, -1, &g);
        if (ct__anomaly && ct__has_nan(g)) {
            ct_release(g);
            res = ct__fail(CT_ERR_RUNTIME, "Function '%s' returned nan values in its %dth output.", ct_node_name(n), i);
            break;
        }
        ct__node *next = n->next[i].fn;
        if (next->run == r->id && (res = ct__buffer_add(&next->buffer[n->next[i].input_nr], g)) != CT_OK) break;
        if (next->run != r->id) ct_release(g);
    }
    if (grads_in != grads_in_inline) CT_FREE(grads_in);
    if (res == CT_OK && !r->retain_graph) {
        ct__saved_release(n);
        n->saved_freed = true;
    }
    return res;
}

/* ---------------------------------------------------------------- the run */

static void ct__run_cleanup(ct__run *r)
{
    for (int k = 0; k < r->n_nodes; k++) {
        ct__node *n = r->nodes[k];
        for (int s = 0; n->buffer && s < n->n_out; s++) ct_release(n->buffer[s]);
        n->buffer = NULL;
        n->run = 0;
    }
    for (int k = r->n_outer - 1; k >= 0; k--) {
        const ct__node_scratch *o = &r->outer[k];
        ct__node *n = o->node;
        n->run = o->run, n->deps = o->deps, n->pending = o->pending;
        n->buffer = o->buffer, n->needed = o->needed, n->capture_any = o->capture_any;
    }
    CT_FREE(r->outer);
    CT_FREE(r->buffers);
    CT_FREE(r->nodes);
    CT_FREE(r->heap);
    CT_FREE(r->callbacks);
}

/* The gradient a root starts with: the one given (checked), or ones for a one-element root. */
static ct_tensor *ct__root_grad(const ct_tensor *t, const ct_tensor *given, int i)
{
    char b1[256], b2[256];
    if (!given) {
        if (ct_numel(t) != 1) {
            ct__fail(CT_ERR_RUNTIME, "grad can be implicitly created only for scalar outputs");
            return NULL;
        }
        return ct_ones_like(t, CT_DEFAULT);
    }
    if (given->ndim != t->ndim || memcmp(given->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t))) {
        ct__fail(CT_ERR_RUNTIME, "Mismatch in shape: grad_output[%d] has a shape of torch.Size(%s) and output[%d] has a "
                                 "shape of torch.Size(%s).",
                 i, ct__shape_str(given->sizes, given->ndim, b1, sizeof b1), i, ct__shape_str(t->sizes, t->ndim, b2, sizeof b2));
        return NULL;
    }
    if (ct_device_equal(given->storage->device, t->storage->device)) return ct__same(given);
    if (given->ndim == 0) return ct_to_device(given, t->storage->device, false); /* a 0-d one is moved, as PyTorch does */
    ct__wrong_grad_device(NULL, i, t->storage->device, given->storage->device);
    return NULL;
}

/* The whole backward pass over n roots, accumulating or capturing. */
static ct_result ct__execute(ct__run *r, const ct_tensor *const *roots, const ct_tensor *const *grads, int n)
{
    ct__edge edges_inline[8], *edges = n <= 8 ? edges_inline : (ct__edge *)CT_MALLOC((size_t)n * sizeof *edges);
    ct__node *nodes_inline[8] = {NULL}, **root_nodes = n <= 8 ? nodes_inline : (ct__node **)CT_MALLOC((size_t)n * sizeof *root_nodes);
    ct_result res = CT_OK;
    int n_edges = 0;
    if (!edges || !root_nodes) res = CT__OOM();
    for (int i = 0; i < n && res == CT_OK; i++) {
        if (!roots[i]) {
            res = ct__fail(CT_ERR_TYPE, "expected Tensor as element %d in argument 0, but got NULL", i);
        } else if (!ct__requires_grad(roots[i])) {
            res = ct__fail(CT_ERR_RUNTIME, "element %d of tensors does not require grad and does not have a grad_fn", i);
        } else if ((res = ct__history_check(roots + i, 1)) == CT_OK) {
            if (!ct__edge_of(roots[i], &edges[n_edges])) {
                res = ct_last_error_code();
                break;
            }
            root_nodes[n_edges] = edges[n_edges].fn;
            n_edges++;
        }
    }
    ct_grad_mode mode = ct_set_grad_enabled(r->create_graph);
    bool checkpoint_valid = ct__checkpoint_valid;
    ct__checkpoint_valid = r->accumulate && !r->filtered;
    ct__run *outer_run = ct__current_run;
    ct__current_run = r;
    ct_scope s = ct_scope_begin();
    if (res == CT_OK) res = ct__discover(r, root_nodes, n_edges);
    if (res == CT_OK) res = ct__mark_needed(r);
    if (res == CT_OK) {
        for (int i = 0; i < n_edges && res == CT_OK; i++) {
            ct_tensor *g = ct__root_grad(roots[i], grads ? grads[i] : NULL, i);
            if (!g) res = ct_last_error_code();
            else res = ct__buffer_add(&edges[i].fn->buffer[edges[i].input_nr], ct_retain(g));
        }
    }
    if (res == CT_OK && !(r->heap = (ct__node **)CT_MALLOC((size_t)(r->n_nodes + 1) * sizeof *r->heap))) res = CT__OOM();
    for (int i = 0; i < n_edges && res == CT_OK; i++)
        if (root_nodes[i]->deps == 0) {
            root_nodes[i]->deps = -1; /* queued: a root listed twice is queued once */
            ct__ready_push(r, root_nodes[i]);
        }
    while (res == CT_OK && r->n_heap > 0) {
        ct__node *node = ct__ready_pop(r);
        ct_scope ns = ct_scope_begin();
        res = ct__run_node(r, node);
        ct_scope_end(ns);
        for (int k = 0; k < node->n_out; k++) { /* its incoming gradients are spent */
            ct_release(node->buffer[k]);
            node->buffer[k] = NULL;
        }
        for (int i = 0; i < node->n_next; i++) { /* its children lose a dependency, run or not */
            ct__node *c = node->next[i].fn;
            if (c && c->run == r->id && --c->deps == 0) ct__ready_push(r, c);
        }
    }
    ct_scope_end(s);
    ct__checkpoint_valid = checkpoint_valid;
    ct_grad_mode_restore(mode);
    if (res == CT_OK) res = ct__run_callbacks(r);
    ct__current_run = outer_run;
    ct__run_cleanup(r);
    for (int i = 0; i < n_edges; i++) ct__node_release(edges[i].fn);
    if (edges != edges_inline) CT_FREE(edges);
    if (root_nodes != nodes_inline) CT_FREE(root_nodes);
    return res;
}

/* The captures for a list of inputs (autograd.grad's, or backward's inputs=). */
/* backward(inputs=) and autograd.grad word a tensor that needs no grad differently. */
static const char ct__no_grad_input_backward[] = "can't retain_grad on Tensor that has requires_grad=False";
static const char ct__no_grad_input_grad[] = "One of the differentiated Tensors does not require grad";

static ct_result ct__captures_for(ct__run *r, const ct_tensor *const *inputs, int n, const char *no_grad_msg)
{
    r->captures = (ct__capture *)CT_MALLOC((size_t)(n ? n : 1) * sizeof *r->captures);
    if (!r->captures) return CT__OOM();
    memset(r->captures, 0, (size_t)(n ? n : 1) * sizeof *r->captures);
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = inputs[i];
        if (!t) return ct__fail(CT_ERR_RUNTIME, "all inputs have to be Tensors, but got NULL");
        if (!ct__requires_grad(t)) return ct__fail(CT_ERR_RUNTIME, "%s", no_grad_msg);
        if (ct__history_check(&t, 1) != CT_OK) return ct_last_error_code();
        ct__capture *c = &r->captures[r->n_captures++];
        c->tensor = t;
        if (ct_is_leaf(t)) {
            c->node = ct__accumulator((ct_tensor *)t); /* a new reference, dropped after the run */
            c->slot = 0;
        } else {
            c->node = ct__meta(t)->grad_fn;
            CT__ATOMIC_INC(&c->node->refcount);
            c->slot = ct__meta(t)->output_nr;
        }
        if (!c->node) return CT__OOM();
    }
    return CT_OK;
}

static void ct__captures_free(ct__run *r)
{
    for (int i = 0; i < r->n_captures; i++) {
        ct_release(r->captures[i].grad);
        ct__node_release(r->captures[i].node);
    }
    CT_FREE(r->captures);
}

ct_result ct_autograd_backward(const ct_tensor *const *tensors, const ct_tensor *const *grad_tensors, int n,
                               ct_backward_opts opts)
{
    ct__run r;
    memset(&r, 0, sizeof r);
    if (!tensors)
        return ct__fail(CT_ERR_TYPE, "autograd_backward(): argument 'tensors' (position 1) must be tuple of Tensors, not NULL");
    if (opts.inputs && opts.n_inputs <= 0)
        return ct__fail(CT_ERR_RUNTIME, "'inputs' argument to backward() cannot be empty.");
    if (n <= 0) return CT_OK; /* torch.autograd.backward([]) */
    r.id = CT__ATOMIC_INC(&ct__run_ids);
    r.create_graph = opts.create_graph;
    r.retain_graph = opts.retain_graph || opts.create_graph;
    r.accumulate = true;
    r.filtered = opts.inputs != NULL;
    ct__engine_enter();
    ct_result res = r.filtered ? ct__captures_for(&r, opts.inputs, opts.n_inputs, ct__no_grad_input_backward) : CT_OK;
    if (res == CT_OK) res = ct__execute(&r, tensors, grad_tensors, n);
    ct__captures_free(&r);
    ct__engine_leave();
    return res;
}

ct_result ct_backward(const ct_tensor *t, const ct_tensor *gradient, ct_backward_opts opts)
{
    CT__ARG_R(t, "self", 1);
    return ct_autograd_backward(&t, gradient ? &gradient : NULL, 1, opts);
}

ct_result ct_autograd_grad(const ct_tensor *const *outputs, int n_outputs, const ct_tensor *const *inputs,
                           int n_inputs, const ct_tensor *const *grad_outputs, ct_tensor **grads, ct_grad_opts opts)
{
    ct__run r;
    memset(&r, 0, sizeof r);
    if (!outputs)
        return ct__fail(CT_ERR_TYPE, "autograd_grad(): argument 'outputs' (position 1) must be tuple of Tensors, not NULL");
    if (!inputs)
        return ct__fail(CT_ERR_TYPE, "autograd_grad(): argument 'inputs' (position 2) must be tuple of Tensors, not NULL");
    if (n_outputs <= 0 || !grads) return ct__fail(CT_ERR_RUNTIME, "grad(): outputs, inputs and grads must be given");
    if (n_inputs <= 0) return ct__fail(CT_ERR_VALUE, "grad requires non-empty inputs.");
    r.id = CT__ATOMIC_INC(&ct__run_ids);
    r.create_graph = opts.create_graph;
    r.retain_graph = opts.retain_graph || opts.create_graph;
    r.filtered = true;
    ct__engine_enter();
    ct_result res = ct__captures_for(&r, inputs, n_inputs, ct__no_grad_input_grad);
    if (res == CT_OK) res = ct__execute(&r, outputs, grad_outputs, n_outputs);
    for (int i = 0; i < n_inputs && res == CT_OK; i++)
        if (!r.captures[i].grad && !opts.allow_unused)
            res = ct__fail(CT_ERR_RUNTIME, "One of the differentiated Tensors appears to not have been used in the graph. "
                                           "Set allow_unused=True if this is the desired behavior.");
    for (int i = 0; i < n_inputs; i++) { /* all or nothing */
        grads[i] = res == CT_OK && r.captures[i].grad ? ct__own(ct_retain(r.captures[i].grad)) : NULL;
    }
    ct__captures_free(&r);
    ct__engine_leave();
    return res;
}
