/* The autograd graph: grad mode, tensors' autograd state, recording nodes,
 * saved tensors, hooks. The engine that runs it is engine.c. */

/* ---------------------------------------------------------------- grad mode */

static CT__TLS bool ct__grad_disabled;  /* inverted so a new thread starts with grad on */
static CT__TLS bool ct__inference;
static bool ct__anomaly;
static uint64_t ct__node_seq;

static bool ct__grad_mode(void) { return !ct__grad_disabled && !ct__inference; }

static ct_grad_mode ct__mode_now(void)
{
    ct_grad_mode m;
    m.enabled = !ct__grad_disabled;
    m.inference = ct__inference;
    return m;
}

ct_grad_mode ct_set_grad_enabled(bool enabled)
{
    ct_grad_mode prev = ct__mode_now();
    ct__grad_disabled = !enabled;
    return prev;
}

ct_grad_mode ct_no_grad(void) { return ct_set_grad_enabled(false); }
ct_grad_mode ct_enable_grad(void) { return ct_set_grad_enabled(true); }

ct_grad_mode ct_inference_mode(void)
{
    ct_grad_mode prev = ct__mode_now();
    ct__inference = true;
    return prev;
}

void ct_grad_mode_restore(ct_grad_mode mode)
{
    ct__grad_disabled = !mode.enabled;
    ct__inference = mode.inference;
}

bool ct_is_grad_enabled(void) { return !ct__grad_disabled; }
bool ct_is_inference_mode_enabled(void) { return ct__inference; }

bool ct_is_inference(const ct_tensor *t) { return t && t->storage->inference; }

static ct_result ct__check_inference_save(const ct_tensor *t)
{
    if (!t->storage->inference) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME, "Inference tensors cannot be saved for backward. To work around you can make a "
                                    "clone to get a normal tensor and use it in autograd.");
}

static ct_result ct__check_inference_write(const ct_tensor *t)
{
    if (!t->storage->inference || ct__inference) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME, "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
                                    "make a clone to get a normal tensor before doing inplace update.See "
                                    "https://github.com/pytorch/rfcs/pull/17 for more details.");
}
void ct_set_detect_anomaly(bool enabled) { ct__anomaly = enabled; }
bool ct_is_anomaly_enabled(void) { return ct__anomaly; }

/* ---------------------------------------------------------------- hook lists */

static int ct__hook_add(ct__hook_list *l, ct_grad_hook fn, void *user, int slot, ct_tensor *owner, bool retain)
{
    static int next_id = 1;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 2;
        ct__hook *items = (ct__hook *)CT_REALLOC(l->items, (size_t)cap * sizeof *items);
        if (!items) {
            CT__OOM();
            return -1;
        }
        l->items = items;
        l->cap = cap;
    }
    ct__hook h;
    h.id = CT__ATOMIC_INC(&next_id);
    h.fn = fn;
    h.user = user;
    h.slot = slot;
    h.owner = owner;
    h.retain = retain;
    l->items[l->n++] = h;
    return h.id;
}

static bool ct__hook_remove(ct__hook_list *l, int id)
{
    for (int i = 0; i < l->n; i++)
        if (l->items[i].id == id) {
            memmove(l->items + i, l->items + i + 1, (size_t)(l->n - i - 1) * sizeof *l->items);
            l->n--;
            return true;
        }
    return false;
}

/* A non-leaf tensor dies: its hooks and retain_grad leave its grad_fn. */
static void ct__hooks_drop_owner(ct__hook_list *l, const ct_tensor *owner)
{
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (l->items[i].owner != owner) l->items[k++] = l->items[i];
    l->n = k;
}

/* retain_grad's hook: the gradient goes to owner's .grad (accumulating). */
static void ct__retain_into(ct_tensor *owner, ct_tensor *grad)
{
    ct__ag_meta *m = ct__meta(owner);
    ct_scope s = ct_scope_begin();
    ct_tensor *g = m->grad ? ct_add(m->grad, grad) : ct_clone(grad);
    if (g) {
        ct_release(m->grad);
        m->grad = ct_retain(g);
    }
    ct_scope_end(s);
}

/* Run the hooks that apply to gradient slot `slot` on *grad, in order, each
 * replacing it when it returns a tensor. */
static void ct__hooks_run(const ct__hook_list *l, int slot, ct_tensor **grad)
{
    for (int i = 0; i < l->n && *grad; i++) {
        if (l->items[i].slot >= 0 && l->items[i].slot != slot) continue;
        if (l->items[i].retain) {
            ct__retain_into(l->items[i].owner, *grad);
            continue;
        }
        ct_tensor *r = l->items[i].fn(*grad, l->items[i].user);
        if (r && r != *grad) {
            ct_release(*grad);
            *grad = r;
        } else if (r) {
            ct_release(r);
        }
    }
}

/* ---------------------------------------------------------------- nodes */

static ct__node *ct__node_new(const ct__node_type *type, int n_next, int n_out)
{
    ct__node *n = (ct__node *)CT_MALLOC(sizeof *n);
    if (!n) return NULL;
    ct__zero(n, sizeof *n);
    n->refcount = 1;
    n->type = type;
    n->seq = CT__ATOMIC_INC(&ct__node_seq);
    n->n_next = n_next;
    n->n_out = n_out;
    n->next = n_next <= 4 ? n->next_inline : (ct__edge *)CT_MALLOC((size_t)n_next * sizeof *n->next);
    n->out = n_out <= 2 ? n->out_inline : (ct__out_meta *)CT_MALLOC((size_t)n_out * sizeof *n->out);
    if (!n->next || !n->out) {
        if (n->next != n->next_inline) CT_FREE(n->next);
        if (n->out != n->out_inline) CT_FREE(n->out);
        CT_FREE(n);
        return NULL;
    }
    memset(n->next, 0, (size_t)n_next * sizeof *n->next);
    memset(n->out, 0, (size_t)n_out * sizeof *n->out); /* an output no tensor takes keeps it (ct__has_output) */
    n->saved = n->saved_inline;
    n->cap_saved = CT__NODE_MAX_SAVED;
    return n;
}

static void ct__saved_release(ct__node *n)
{
    for (int i = 0; i < n->n_saved; i++) ct_release(n->saved[i].data);
    n->n_saved = 0;
}

/* A leaf's accumulator is a weak reference (the node holds the leaf): taking
 * a reference through it, and dropping an accumulator's last one, happen
 * under this lock, as threads recording ops on shared parameters do both. */
static ct__mutex ct__accumulator_mutex = CT__MUTEX_INIT;

/* Whether the caller drops node's last reference; an AccumulateGrad node's
 * leaf then forgets it, in the same step as ct__accumulator takes one. */
static bool ct__node_last_reference(ct__node *node)
{
    if (!node->leaf) return ct__last_reference(&node->refcount);
    ct__mutex_lock(&ct__accumulator_mutex);
    bool last = ct__last_reference(&node->refcount);
    ct__ag_meta *m = (ct__ag_meta *)node->leaf->ag;
    if (last && m && m->accumulator == node) m->accumulator = NULL;
    ct__mutex_unlock(&ct__accumulator_mutex);
    return last;
}

/* Drop a reference to a node. A long chain (a 100000-op graph) is freed with
 * an explicit stack, not recursion. */
static void ct__node_release(ct__node *first)
{
    ct__node *stack_inline[64], **stack = stack_inline;
    int n = 0, cap = 64;
    if (first) stack[n++] = first;
    while (n > 0) {
        ct__node *node = stack[--n];
        if (!ct__node_last_reference(node)) continue;
        for (int i = 0; i < node->n_next; i++) {
            if (!node->next[i].fn) continue;
            if (n == cap) {
                ct__node **grown = (ct__node **)CT_MALLOC((size_t)cap * 2 * sizeof *grown);
                if (!grown) { /* cannot go on iteratively: leak rather than crash */
                    CT__OOM();
                    continue;
                }
                memcpy(grown, stack, (size_t)n * sizeof *stack);
                if (stack != stack_inline) CT_FREE(stack);
                stack = grown;
                cap *= 2;
            }
            stack[n++] = node->next[i].fn;
        }
        ct__saved_release(node);
        if (node->leaf) ct_release(node->leaf);
        CT_FREE(node->pre_hooks.items);
        CT_FREE(node->post_hooks.items);
        if (node->release_extra) node->release_extra(node);
        CT_FREE(node->extra);
        if (node->saved != node->saved_inline) CT_FREE(node->saved);
        if (node->next != node->next_inline) CT_FREE(node->next);
        if (node->out != node->out_inline) CT_FREE(node->out);
        CT_FREE(node);
    }
    if (stack != stack_inline) CT_FREE(stack);
}

/* ---------------------------------------------------------------- tensors' state */

/* t's autograd state, made on first use; NULL (the error set) when memory runs out. */
static ct__ag_meta *ct__meta_get(ct_tensor *t)
{
    if (!t->ag) {
        ct__ag_meta *m = (ct__ag_meta *)CT_MALLOC(sizeof *m);
        if (!m) {
            CT__OOM();
            return NULL;
        }
        ct__zero(m, sizeof *m);
        t->ag = m;
    }
    return ct__meta(t);
}

static void ct__ag_meta_free(ct_tensor *t)
{
    ct__ag_meta *m = ct__meta(t);
    if (!m) return;
    ct_release(m->grad);
    if (m->grad_fn) ct__hooks_drop_owner(&m->grad_fn->pre_hooks, t);
    ct__node_release(m->grad_fn);
    CT_FREE(m->hooks.items);
    CT_FREE(m->post_acc_hooks.items);
    CT_FREE(m);
    t->ag = NULL;
}

/* A tensor that is no view: requires grad itself or has a grad_fn. */
static bool ct__own_requires_grad(const ct_tensor *t) { return t->requires_grad || (t->ag && ct__meta(t)->grad_fn); }

static bool ct__requires_grad(const ct_tensor *t)
{
    if (!t) return false;
    if (t->base) {
        ct__view_refresh((ct_tensor *)t);
        /* as PyTorch's view meta: a view of a base that requires grad does too,
         * even one made in no_grad mode (whose history is then None) */
        if (ct__own_requires_grad(t->base)) return true;
    }
    return ct__own_requires_grad(t);
}

static bool ct__any_requires_grad(const ct_tensor *const *ts, int n)
{
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        bool maybe = t && (t->requires_grad || t->ag || t->base); /* (none of them: the common case, no call) */
        if (maybe && ct__requires_grad(t)) return true;
    }
    return false;
}

/* The AccumulateGrad node of a leaf that requires grad (made on first use).
 * The engine runs these nodes itself (they have a leaf, not a backward). */
static const ct__node_type ct__accumulate_grad_type = {"torch::autograd::AccumulateGrad", NULL};

static ct__node *ct__accumulator(ct_tensor *leaf)
{
    ct__ag_meta *m = ct__meta_get(leaf);
    if (!m) return NULL;
    ct__mutex_lock(&ct__accumulator_mutex);
    ct__node *n = m->accumulator;
    if (n) {
        CT__ATOMIC_INC(&n->refcount);
        ct__mutex_unlock(&ct__accumulator_mutex);
        return n;
    }
    n = ct__node_new(&ct__accumulate_grad_type, 0, 1);
    if (!n) {
        ct__mutex_unlock(&ct__accumulator_mutex);
        CT__OOM();
        return NULL;
    }
    n->seq = UINT64_MAX; /* as PyTorch: accumulation runs as soon as it is ready */
    n->leaf = ct_retain(leaf);
    n->out[0].ndim = leaf->ndim;
    memcpy(n->out[0].sizes, leaf->sizes, sizeof n->out[0].sizes);
    n->out[0].dtype = leaf->dtype;
    n->out[0].device = leaf->storage->device;
    m->accumulator = n; /* weak: the node holds the leaf, not the reverse */
    ct__mutex_unlock(&ct__accumulator_mutex);
    return n;
}

/* param.data = src (VariableHooks::set_data): t keeps its identity, autograd
 * state and .grad, and takes src's storage, dtype and geometry. Its
 * AccumulateGrad node is forgotten when the dtype or device changes, as
 * PyTorch resets grad_accumulator_: a graph still holding the old one keeps
 * it, new ops record a node with t's new metadata. */
static void ct__set_data(ct_tensor *t, const ct_tensor *src)
{
    ct__ag_meta *m = ct__meta(t);
    if (m) {
        ct__mutex_lock(&ct__accumulator_mutex);
        if (src->dtype != t->dtype || !ct_device_equal(src->storage->device, t->storage->device)) m->accumulator = NULL;
        ct__mutex_unlock(&ct__accumulator_mutex);
    }
    CT__ATOMIC_INC(&src->storage->refcount);
    ct__storage *old = t->storage;
    t->storage = src->storage;
    t->dtype = src->dtype;
    t->ndim = src->ndim;
    t->offset = src->offset;
    memcpy(t->sizes, src->sizes, sizeof t->sizes);
    memcpy(t->strides, src->strides, sizeof t->strides);
    ct__storage_release(old);
}

/* The edge a gradient for t follows into *e: t's grad_fn, or its
 * AccumulateGrad node (none for t that does not require grad). False, the
 * error set, when the accumulator cannot be made: the leaf would silently
 * get no gradient. */
static bool ct__edge_of(const ct_tensor *t, ct__edge *e)
{
    e->fn = NULL;
    e->input_nr = 0;
    if (!ct__requires_grad(t)) return true;
    ct__ag_meta *m = ct__meta(t);
    if (m && m->grad_fn) {
        CT__ATOMIC_INC(&m->grad_fn->refcount);
        e->fn = m->grad_fn;
        e->input_nr = m->output_nr;
    } else if (t->requires_grad) {
        e->fn = ct__accumulator((ct_tensor *)t);
        return e->fn != NULL;
    } /* else a view made in no_grad mode: requires grad through its base, history None */
    return true;
}

/* t becomes output k of node n (a new reference to n); false (the error set)
 * when t's autograd state cannot be made. */
static bool ct__set_grad_fn(ct_tensor *t, ct__node *n, int k)
{
    ct__ag_meta *m = ct__meta_get(t);
    if (!m) return false;
    CT__ATOMIC_INC(&n->refcount);
    ct__node_release(m->grad_fn);
    m->grad_fn = n;
    m->output_nr = k;
    t->view_version = t->storage->version;
    n->out[k].ndim = t->ndim;
    memcpy(n->out[k].sizes, t->sizes, sizeof n->out[k].sizes);
    n->out[k].dtype = t->dtype;
    n->out[k].device = t->storage->device;
    return true;
}

static bool ct__has_output(const ct__node *n, int k) { return n->out[k].dtype != CT_DEFAULT; }

/* Undo ct__set_grad_fn on the first n outputs (a record that failed midway). */
static void ct__unset_grad_fns(ct_tensor *const *outputs, int n, const ct__node *node)
{
    for (int k = 0; k < n; k++) {
        ct__ag_meta *m = outputs[k] && outputs[k]->ag ? ct__meta(outputs[k]) : NULL;
        if (!m || m->grad_fn != node) continue;
        m->grad_fn = NULL;
        ct__node_release((ct__node *)node);
    }
}

/* Which of inputs is t (an output written in place), or -1. */
static int ct__input_index(const ct_tensor *t, const ct_tensor *const *inputs, int n_in)
{
    for (int i = 0; i < n_in; i++)
        if (inputs[i] == t) return i;
    return -1;
}

static ct__node *ct__record(const ct__node_type *type, const ct_tensor *const *inputs, int n_in,
                            ct_tensor *const *outputs, int n_out)
{
    if (!ct__records(inputs, n_in)) return NULL;
    /* (an op that checks first, as PyTorch does before computing, never gets here refused) */
    if (ct__history_check(inputs, n_in) != CT_OK) return NULL;
    ct__node *n = ct__node_new(type, n_in, n_out);
    if (!n) {
        CT__OOM();
        return NULL;
    }
    bool ok = true;
    for (int i = 0; i < n_in && ok; i++) ok = ct__edge_of(inputs[i], &n->next[i]); /* before outputs change (in place) */
    for (int k = 0; k < n_out && ok; k++) {
        int self = ct__input_index(outputs[k], inputs, n_in);
        if (outputs[k] && outputs[k]->base && self >= 0)
            ok = ct__rebase_history(outputs[k], n, self); /* written in place through a view */
        else if (outputs[k])
            ok = ct__set_grad_fn(outputs[k], n, k);
        if (!ok) ct__unset_grad_fns(outputs, k, n);
    }
    if (ct__anomaly) n->anomaly_op = type->name;
    /* the outputs hold it now; on failure this frees it, and the caller gets NULL, never a freed node */
    ct__node_release(n);
    return ok ? n : NULL;
}

/* Whether recording, which gave n (NULL: none), left the op whole: a node
 * whose tensors were all saved, or none because nothing needed one. False
 * (the error set) when memory ran out: the op must then fail, not return a
 * result whose gradient would silently be lost. */
static bool ct__recorded_ok(const ct__node *n, const ct_tensor *const *inputs, int n_in)
{
    return n ? !n->save_failed : !ct__records(inputs, n_in);
}

static ct_tensor *ct__recorded_or_discard(ct_tensor *out, const ct__node *n, const ct_tensor *const *inputs, int n_in)
{
    if (ct__recorded_ok(n, inputs, n_in)) return out;
    ct__discard(out);
    return NULL;
}

static void ct__save(ct__node *n, const ct_tensor *t, bool is_output)
{
    if (!t) { /* the call that made it failed, and said why */
        n->save_failed = true;
        return;
    }
    if (ct__check_inference_save(t) != CT_OK) {
        n->save_failed = true;
        return;
    }
    if (n->n_saved == n->cap_saved) { /* only a custom function saves this many */
        ct__saved *grown = (ct__saved *)CT_MALLOC((size_t)n->cap_saved * 2 * sizeof *grown);
        if (!grown) {
            CT__OOM();
            n->save_failed = true;
            return;
        }
        memcpy(grown, n->saved, (size_t)n->n_saved * sizeof *grown);
        if (n->saved != n->saved_inline) CT_FREE(n->saved);
        n->saved = grown;
        n->cap_saved *= 2;
    }
    ct__saved *s = &n->saved[n->n_saved]; /* (never a stack-held number: formulas keep copies) */
    ct_tensor *v = (ct_tensor *)t;
    if (is_output) { /* its data without its grad_fn, which is this node: no cycle */
        v = (ct_tensor *)CT_MALLOC(sizeof *v);
        if (!v) {
            CT__OOM();
            n->save_failed = true;
            return;
        }
        *v = *t;
        v->refcount = 1;
        v->ag = NULL;
        v->base = NULL;
        v->requires_grad = false;
        v->hosts_storage = false; /* a block of its own */
        CT__ATOMIC_INC(&v->storage->refcount);
    } else { /* an input itself, so double backward reaches its graph */
        ct_retain(v);
    }
    s->data = v;
    s->version = t->storage->version;
    s->is_output = is_output;
    s->output_nr = is_output && t->ag ? ct__meta(t)->output_nr : 0;
    n->n_saved++;
}

static const char ct__freed_graph_msg[] =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward.";

static ct_tensor *ct__saved_get(ct__node *n, int i)
{
    if (n->saved_freed) {
        ct__fail(CT_ERR_RUNTIME, "%s", ct__freed_graph_msg);
        return NULL;
    }
    ct__saved *s = &n->saved[i];
    if (s->data->storage->version != s->version) {
        char shape[256], made_by[160] = "";
        /* PyTorch names the node the tensor now comes from (an in-place op's, after one) */
        const ct__node *from = s->is_output ? n : ct__meta(s->data) ? ct__meta(s->data)->grad_fn : NULL;
        if (from)
            snprintf(made_by, sizeof made_by, ", which is output %d of %s,",
                     s->is_output ? s->output_nr : ct__meta(s->data)->output_nr, ct_node_name(from));
        ct__shape_str(s->data->sizes, s->data->ndim, shape, sizeof shape);
        ct__fail(CT_ERR_RUNTIME,
                 "one of the variables needed for gradient computation has been modified by an inplace operation: "
                 "[%s %s]%s is at version %u; expected version %u instead. Hint: enable anomaly detection to "
                 "find the operation that failed to compute its gradient, with "
                 "torch.autograd.set_detect_anomaly(True).",
                 ct__legacy_type_name(s->data->dtype), shape, made_by, s->data->storage->version, s->version);
        return NULL;
    }
    if (!s->is_output || !ct__grad_mode()) return s->data;
    /* under create_graph, an output is reconnected to the node that made it */
    ct_tensor *v = ct__view_of(s->data, s->data->sizes, s->data->strides, s->data->ndim, s->data->offset);
    return v && ct__set_grad_fn(v, n, s->output_nr) ? v : NULL;
}

static bool ct__edge_requires_grad(const ct__node *n, int i) { return i < n->n_next && n->next[i].fn != NULL; }

/* The engine marks the nodes of its run it needs (ct__mark_needed). A node outside a run (run 0),
 * or a child a nested run (a checkpoint's) has taken over since, counts as needed. */
static bool ct__needs_grad(const ct__node *n, int i)
{
    if (!ct__edge_requires_grad(n, i)) return false;
    const ct__node *c = n->next[i].fn;
    return n->run == 0 || c->run != n->run || c->needed || c->capture_any;
}

/* A view whose base's history cannot be rewritten (PyTorch's
 * handle_view_on_rebase): indirect when the write went through its base or
 * another view of it. A view of a view made in no_grad mode has a grad_fn
 * of its own; 1.13 fails an internal assert there, ctorch words it as later
 * PyTorch releases do. */
static ct_result ct__check_view_rebase(const ct_tensor *v, bool indirect)
{
    static const char *const why[] = {
        "",
        (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
         "both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
         "tracked) or both outside (if you want the inplace to be tracked)."),
        (" This view is the output of a function that returns multiple views. Such functions do not allow the output "
         "views to be modified inplace. You should replace the inplace operation by an out-of-place one."),
        (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
         "both the view and the inplace either both inside the inference_mode block (if you don't want the inplace to "
         "be tracked) or both outside (if you want the inplace to be tracked)."),
        (" This view was created inside a custom Function (or because an input was returned as-is) and the autograd "
         "logic to handle view+inplace would override the custom backward associated with the custom Function, "
         "leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the "
         "custom Function.")};
    const char *what = indirect ? "its base or another view of its base has been" : "is being";
    ct__view_made made = (ct__view_made)v->view_made;
    ct__node *fn = v->ag ? ct__meta(v)->grad_fn : NULL;
    char prefix[160] = "A view was created in";
    if (made == CT__VIEW_MADE_DEFAULT) return CT_OK;
    if (fn && made != CT__VIEW_MADE_NO_GRAD && made != CT__VIEW_MADE_INFERENCE)
        return ct__fail(CT_ERR_RUNTIME, "Output %d of %s is a view and %s modified inplace.%s", ct__meta(v)->output_nr,
                        ct_node_name(fn), what, why[made]);
    if (fn)
        snprintf(prefix, sizeof prefix, "Output %d of %s is a view of a view which was created in",
                 ct__meta(v)->output_nr, ct_node_name(fn));
    if (made == CT__VIEW_MADE_INFERENCE)
        return ct__fail(CT_ERR_RUNTIME, "%s inference mode and %s modified inplace in normal mode.%s", prefix, what,
                        why[made]);
    return ct__fail(CT_ERR_RUNTIME, "%s no_grad mode and %s modified inplace with grad mode enabled.%s", prefix, what,
                    why[made]);
}

/* Autograd reads a view's history after its storage was written through
 * its base or another view (PyTorch's VariableHooks::grad_fn): refused for
 * a view whose history may not be regenerated, when it has one to read. */
static ct_result ct__stale_view_check(const ct_tensor *v)
{
    if (v->view_made == CT__VIEW_MADE_DEFAULT) return CT_OK; /* regenerated by ct__view_refresh */
    if (!(v->ag && ct__meta(v)->grad_fn) && !ct__own_requires_grad(v->base)) return CT_OK;
    return ct__check_view_rebase(v, true);
}

static ct_result ct__recordable(const ct_tensor *const *in, int n)
{
    return CT__UNLIKELY(ct__any_stale_view(in, n)) && ct__grad_mode() ? ct__history_check(in, n) : CT_OK;
}

static ct_result ct__history_check(const ct_tensor *const *in, int n)
{
    for (int i = 0; i < n; i++)
        if (in[i] && CT__UNLIKELY(ct__view_is_stale(in[i])) && ct__stale_view_check(in[i]) != CT_OK)
            return ct_last_error_code();
    return CT_OK;
}

static ct_result ct__check_inplace_grad(const ct_tensor *t, const ct_tensor *const *in, int n_in)
{
    if (ct__check_inference_write(t) != CT_OK) return ct_last_error_code();
    bool recorded = ct__requires_grad(t);
    for (int i = 0; i < n_in; i++) recorded = recorded || ct__requires_grad(in[i]);
    if (!ct__grad_mode() || !recorded) return CT_OK;
    if (t->base) {
        if (ct__check_view_rebase(t, false) != CT_OK) return ct_last_error_code();
        if (t->base->requires_grad && ct_is_leaf(t->base))
            return ct__fail(CT_ERR_RUNTIME, "a view of a leaf Variable that requires grad is being used in an in-place "
                                            "operation.");
    }
    if (t->requires_grad && ct_is_leaf(t))
        return ct__fail(CT_ERR_RUNTIME, "a leaf Variable that requires grad is being used in an in-place operation.");
    return ct__history_check(in, n_in); /* t itself passed the stricter check above */
}

/* A view used after its storage was written (through its base or another
 * view) gets a new history from its base's current one: AsStridedBackward0
 * (PyTorch regenerates a view's grad_fn the same way). Only a view that may
 * have its history rewritten; the others keep theirs. */
static void ct__view_refresh(ct_tensor *v)
{
    const ct_tensor *b = v->base;
    if (v->view_version == v->storage->version || v->view_made != CT__VIEW_MADE_DEFAULT) return;
    if (!ct__own_requires_grad(b) || !ct__grad_mode()) return;
    ct__record_view("AsStridedBackward0", CT__VIEW_STRIDED, v, b, NULL);
}

/* ---------------------------------------------------------------- public */

ct_tensor *ct_grad(const ct_tensor *t)
{
    return t && t->ag && ct__meta(t)->grad ? ct__same(ct__meta(t)->grad) : NULL;
}

ct_result ct_set_grad(ct_tensor *t, const ct_tensor *grad)
{
    CT__ARG_R(t, "self", 1);
    if (grad) {
        if (grad->ndim != t->ndim || memcmp(grad->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t)))
            return ct__fail(CT_ERR_RUNTIME, "assigned grad has data of a different size");
        /* the type is PyTorch's tensor type: the dtype and the device type */
        if (grad->dtype != t->dtype || grad->storage->device.type != t->storage->device.type)
            return ct__fail(CT_ERR_RUNTIME, "assigned grad has data of a different type");
        if (!ct_device_equal(grad->storage->device, t->storage->device))
            return ct__fail(CT_ERR_RUNTIME, "assigned grad has data located on a different device");
        if (grad == t) return ct__fail(CT_ERR_RUNTIME, "can't assign Variable as its own grad");
    }
    ct__ag_meta *m = ct__meta_get(t);
    if (!m) return CT__OOM();
    ct_tensor *old = m->grad;
    m->grad = grad ? ct_retain((ct_tensor *)grad) : NULL;
    ct_release(old);
    return CT_OK;
}

static bool ct__leaf_field(const ct_tensor *t) { return !t->ag || !ct__meta(t)->grad_fn; }

bool ct_is_leaf(const ct_tensor *t)
{
    return t && ct__history_check(&t, 1) == CT_OK && !ct_grad_fn(t); /* refused: false, with the error set */
}
ct_node *ct_grad_fn(const ct_tensor *t)
{
    if (t && ct__history_check(&t, 1) != CT_OK) return NULL;
    return ct__requires_grad(t) && t->ag ? ct__meta(t)->grad_fn : NULL;
}
const char *ct_node_name(const ct_node *n) { return n ? (n->name ? n->name : n->type->name) : NULL; }
int ct_node_num_next(const ct_node *n) { return n ? n->n_next : 0; }

ct_tensor *ct_node_variable(const ct_node *n) { return n ? n->leaf : NULL; }

ct_node *ct_node_next(const ct_node *n, int i, int *input_nr)
{
    if (!n) return NULL;
    if (i < 0 || i >= n->n_next) {
        ct__fail(CT_ERR_INDEX, "tuple index out of range");
        return NULL;
    }
    if (input_nr) *input_nr = n->next[i].input_nr;
    return n->next[i].fn;
}

ct_result ct_retain_grad(ct_tensor *t)
{
    CT__ARG_R(t, "self", 1);
    if (!ct__requires_grad(t)) return ct__fail(CT_ERR_RUNTIME, "can't retain_grad on Tensor that has requires_grad=False");
    /* leaves keep their grad anyway (PyTorch asks the field: no history read); the hook goes on a non-leaf's */
    if (ct__leaf_field(t)) return CT_OK;
    if (ct__history_check((const ct_tensor *const *)&t, 1) != CT_OK) return ct_last_error_code();
    ct__ag_meta *m = ct__meta(t);
    if (m->retains_grad) return CT_OK;
    if (ct__hook_add(&m->grad_fn->pre_hooks, NULL, NULL, m->output_nr, t, true) < 0) return ct_last_error_code();
    m->retains_grad = true;
    return CT_OK;
}

bool ct_retains_grad(const ct_tensor *t) { return t && t->ag && ct__meta(t)->retains_grad; }

ct_result ct_detach_(ct_tensor *t)
{
    CT__ARG_R(t, "self", 1);
    if (t->base)
        return ct__fail(CT_ERR_RUNTIME,
                        "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                        "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, "
                        "and hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                        "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
    if (t->ag) {
        ct__node_release(ct__meta(t)->grad_fn);
        ct__meta(t)->grad_fn = NULL;
    }
    t->requires_grad = false;
    return CT_OK;
}

static void ct__storage_release_ctx(void *data, void *ctx)
{
    (void)data;
    ct__storage_release((ct__storage *)ctx);
}

ct_tensor *ct_data(const ct_tensor *t)
{
    CT__ARG(t, "self", 1);
    /* a storage of its own over the same memory: writes through it bump no version */
    ct__storage *s = (ct__storage *)CT_MALLOC(sizeof *s);
    if (!s) {
        CT__OOM();
        return NULL;
    }
    *s = *t->storage;
    s->refcount = 1;
    s->owned = false;
    s->deleter = ct__storage_release_ctx;
    s->deleter_ctx = t->storage;
    s->version = 0;
    CT__ATOMIC_INC(&t->storage->refcount);
    ct_tensor *r = ct__tensor_new(s, t->dtype, t->sizes, t->strides, t->ndim, t->offset);
    ct__storage_release(s);
    return r;
}

int64_t ct_version(const ct_tensor *t) { return t ? (int64_t)t->storage->version : 0; }

int ct_register_hook(ct_tensor *t, ct_grad_hook hook, void *user)
{
    if (!t) return (int)ct__null_arg(__func__, "self", 1);
    if (!hook) return (int)ct__fail(CT_ERR_VALUE, "register_hook(): hook is NULL");
    if (!ct__requires_grad(t))
        return (int)ct__fail(CT_ERR_RUNTIME, "cannot register a hook on a tensor that doesn't require gradient");
    if (ct__history_check((const ct_tensor *const *)&t, 1) != CT_OK) return (int)ct_last_error_code(); /* Tensor.grad_fn */
    ct__ag_meta *m = ct__meta_get(t);
    if (!m) return (int)CT__OOM();
    if (m->grad_fn) /* a non-leaf's gradient is met at its grad_fn */
        return ct__hook_add(&m->grad_fn->pre_hooks, hook, user, m->output_nr, t, false);
    return ct__hook_add(&m->hooks, hook, user, -1, NULL, false);
}

ct_result ct_remove_hook(ct_tensor *t, int id)
{
    CT__ARG_R(t, "self", 1);
    ct__ag_meta *m = ct__meta(t);
    if (m && (ct__hook_remove(&m->hooks, id) || ct__hook_remove(&m->post_acc_hooks, id) ||
              (m->grad_fn && ct__hook_remove(&m->grad_fn->pre_hooks, id))))
        return CT_OK;
    return ct__fail(CT_ERR_VALUE, "remove_hook(): no hook with id %d on this tensor", id);
}

int ct_register_post_accumulate_grad_hook(ct_tensor *t, ct_grad_hook hook, void *user)
{
    if (!t) return (int)ct__null_arg(__func__, "self", 1);
    if (!hook) return (int)ct__fail(CT_ERR_VALUE, "register_post_accumulate_grad_hook(): hook is NULL");
    if (!ct__requires_grad(t))
        return (int)ct__fail(CT_ERR_RUNTIME, "cannot register a hook on a tensor that doesn't require gradient");
    if (!ct_is_leaf(t))
        return (int)ct__fail(CT_ERR_RUNTIME, "post accumulate grad hooks cannot be registered on non-leaf tensors");
    ct__ag_meta *m = ct__meta_get(t);
    return m ? ct__hook_add(&m->post_acc_hooks, hook, user, -1, NULL, false) : (int)CT__OOM();
}

int ct_node_register_prehook(ct_node *n, ct_grad_hook hook, void *user)
{
    if (!n || !hook) return (int)ct__fail(CT_ERR_VALUE, "register_prehook(): node or hook is NULL");
    return ct__hook_add(&n->pre_hooks, hook, user, -1, NULL, false);
}

int ct_node_register_hook(ct_node *n, ct_grad_hook hook, void *user)
{
    if (!n || !hook) return (int)ct__fail(CT_ERR_VALUE, "register_hook(): node or hook is NULL");
    return ct__hook_add(&n->post_hooks, hook, user, -1, NULL, false);
}
