/* Custom functions (torch.autograd.Function): user forward and backward
 * callbacks around one node of the graph. */

struct ct_function_ctx {
    const ct_function *fn;  /* &fn_copy: the caller's may not outlive the graph */
    ct_function fn_copy;
    void *user;
    ct__node *node;         /* once recorded (the node owns the ctx) */
    char node_name[96];     /* "<name>Backward" */
    int n_inputs;
    bool *needs_input_grad; /* per input, while forward runs */
    ct_tensor **to_save;    /* save_for_backward's tensors until the node keeps them */
    int n_to_save;
    ct_tensor **dirty, **non_diff;
    int n_dirty, n_non_diff;
    void *data;
    void (*free_data)(void *data);
};

static void ct__ctx_free(ct_function_ctx *ctx)
{
    if (!ctx) return;
    for (int i = 0; i < ctx->n_to_save; i++) ct_release(ctx->to_save[i]);
    if (ctx->free_data) ctx->free_data(ctx->data);
    CT_FREE(ctx->to_save);
    CT_FREE(ctx->dirty);
    CT_FREE(ctx->non_diff);
    CT_FREE(ctx->needs_input_grad);
    CT_FREE(ctx);
}

/* A tensor list kept by the ctx (a copy of the caller's pointers). */
static ct_result ct__ctx_list(ct_tensor *const *tensors, int n, const char *what, ct_tensor ***list, int *count)
{
    if (n < 0 || (n > 0 && !tensors)) return ct__fail(CT_ERR_VALUE, "%s: give an array of %d tensors", what, n);
    for (int i = 0; i < n; i++)
        if (!tensors[i]) return ct__fail(CT_ERR_TYPE, "%s(): argument %d must be Tensor, not NULL", what, i);
    ct_tensor **copy = (ct_tensor **)CT_MALLOC((size_t)(n + 1) * sizeof *copy);
    if (!copy) return CT__OOM();
    memcpy(copy, tensors, (size_t)n * sizeof *copy);
    CT_FREE(*list);
    *list = copy;
    *count = n;
    return CT_OK;
}

static bool ct__listed(ct_tensor *const *list, int n, const ct_tensor *t)
{
    for (int i = 0; i < n; i++)
        if (list[i] == t) return true;
    return false;
}

void *ct_ctx_user(const ct_function_ctx *ctx) { return ctx ? ctx->user : NULL; }
void *ct_ctx_data(const ct_function_ctx *ctx) { return ctx ? ctx->data : NULL; }

void ct_ctx_set_data(ct_function_ctx *ctx, void *data, void (*free_data)(void *data))
{
    if (!ctx) return;
    if (ctx->free_data && ctx->data != data) ctx->free_data(ctx->data);
    ctx->data = data;
    ctx->free_data = free_data;
}

ct_result ct_ctx_save_for_backward(ct_function_ctx *ctx, ct_tensor *const *tensors, int n)
{
    if (!ctx) return ct__fail(CT_ERR_VALUE, "save_for_backward: ctx is NULL");
    if (ctx->node) return ct__fail(CT_ERR_RUNTIME, "save_for_backward can only be called from forward");
    ct_tensor **old = ctx->to_save;
    int n_old = ctx->n_to_save;
    ctx->to_save = NULL;
    ct_result r = ct__ctx_list(tensors, n, "save_for_backward", &ctx->to_save, &ctx->n_to_save);
    if (r != CT_OK) { /* nothing changed */
        ctx->to_save = old;
        ctx->n_to_save = n_old;
        return r;
    }
    for (int i = 0; i < n; i++) ct_retain(ctx->to_save[i]);
    for (int i = 0; i < n_old; i++) ct_release(old[i]);
    CT_FREE(old);
    return CT_OK;
}

ct_tensor *ct_ctx_saved_tensor(ct_function_ctx *ctx, int i)
{
    if (!ctx || !ctx->node) {
        ct__fail(CT_ERR_RUNTIME, "saved_tensors can only be read in backward");
        return NULL;
    }
    if (!ctx->node->saved_freed && (i < 0 || i >= ctx->node->n_saved)) {
        ct__fail(CT_ERR_INDEX, "tuple index out of range");
        return NULL;
    }
    return ct__saved_get(ctx->node, i);
}

bool ct_ctx_needs_input_grad(const ct_function_ctx *ctx, int i)
{
    if (!ctx || i < 0 || i >= ctx->n_inputs) return false;
    return ctx->node ? ct__edge_requires_grad(ctx->node, i) : ctx->needs_input_grad[i];
}

ct_result ct_ctx_mark_dirty(ct_function_ctx *ctx, ct_tensor *const *tensors, int n)
{
    if (!ctx) return ct__fail(CT_ERR_VALUE, "mark_dirty: ctx is NULL");
    return ct__ctx_list(tensors, n, "mark_dirty", &ctx->dirty, &ctx->n_dirty);
}

ct_result ct_ctx_mark_non_differentiable(ct_function_ctx *ctx, ct_tensor *const *tensors, int n)
{
    if (!ctx) return ct__fail(CT_ERR_VALUE, "mark_non_differentiable: ctx is NULL");
    return ct__ctx_list(tensors, n, "mark_non_differentiable", &ctx->non_diff, &ctx->n_non_diff);
}

/* ---------------------------------------------------------------- backward */

/* What once_differentiable leaves behind when the gradients it got require
 * grad: results that refuse to be differentiated again. */
CT__BACKWARD(delayed_error)
{
    (void)n, (void)go, (void)gi;
    return ct__fail(CT_ERR_RUNTIME, "trying to differentiate twice a function that was marked with @once_differentiable");
}

static void ct__once_differentiable_guard(ct_tensor *const *go, int n_out, ct_tensor **gi, int n_in)
{
    static const ct__node_type delayed = {"DelayedError", ct__bw_delayed_error};
    ct_tensor *results[64];
    int k = 0;
    for (int i = 0; i < n_in && k < 64; i++)
        if (gi[i]) results[k++] = gi[i] = ct_detach(gi[i]);
    ct__record(&delayed, (const ct_tensor *const *)go, n_out, results, k);
}

CT__BACKWARD(custom)
{
    ct_function_ctx *ctx = (ct_function_ctx *)n->extra;
    const ct_function *fn = ctx->fn;
    bool recorded = ct__grad_mode(); /* create_graph */
    ct_grad_mode mode = ct_set_grad_enabled(recorded && !fn->once_differentiable);
    ct_result r = fn->backward(ctx, go, gi);
    ct_grad_mode_restore(mode);
    if (r != CT_OK) return r;
    bool grads_need_grad = false;
    for (int k = 0; k < n->n_out; k++) grads_need_grad = grads_need_grad || ct__requires_grad(go[k]);
    if (fn->once_differentiable && recorded && grads_need_grad) ct__once_differentiable_guard(go, n->n_out, gi, n->n_next);
    for (int i = 0; i < n->n_next; i++)
        if (!ct__edge_requires_grad(n, i)) gi[i] = NULL; /* PyTorch drops what was not asked for */
    return CT_OK;
}

static void ct__custom_release(ct__node *n)
{
    ct__ctx_free((ct_function_ctx *)n->extra);
    n->extra = NULL;
}

/* ---------------------------------------------------------------- apply */

/* Whether output t gets a gradient edge (PyTorch's is_differentiable): the
 * node is recorded (recorded: some input needs grad), t was not marked
 * non-differentiable and its dtype can carry a gradient. */
static bool ct__output_differentiable(const ct_function_ctx *ctx, bool recorded, const ct_tensor *t)
{
    return recorded && !ct__listed(ctx->non_diff, ctx->n_non_diff, t) && ct_dtype_is_floating(t->dtype);
}

/* An input forward handed back without marking it dirty: a view of it made
 * in no_grad mode (as forward's own views are), so that it can take the
 * node's history; detached instead when it requires grad but gets no edge. */
static ct_tensor *ct__input_alias(const ct_function_ctx *ctx, bool recorded, const ct_tensor *t)
{
    if (!ct__output_differentiable(ctx, recorded, t) && ct__requires_grad(t)) return ct_detach(t);
    ct_grad_mode mode = ct_set_grad_enabled(false);
    ct_tensor *v = ct_view_as(t, t);
    ct_grad_mode_restore(mode);
    return v;
}

static const char ct__dirty_view_msg[] =
    "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return more "
    "than one Tensor. This is not supported by the current autograd engine. You should either make sure the input is "
    "not a view (using .clone() for example) or make your Function only return one Tensor (potentially splitting it "
    "into two Functions: one doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change.";

/* After forward: an output that is an input comes back as that input when
 * it was marked dirty (its version counted), else as a new alias of it. */
static ct_result ct__settle_outputs(ct_function_ctx *ctx, ct_tensor *const *inputs, int n_in, ct_tensor **outputs,
                                    bool recorded)
{
    for (int k = 0; k < ctx->fn->n_outputs; k++) {
        if (!outputs[k]) return ct__fail(CT_ERR_RUNTIME, "%s.forward returned no tensor for output %d", ctx->fn->name, k);
        if (!ct__listed(inputs, n_in, outputs[k])) continue;
        if (ct__listed(ctx->dirty, ctx->n_dirty, outputs[k])) {
            if (ct__grad_mode() && outputs[k]->requires_grad && ct_is_leaf(outputs[k]))
                return ct__fail(CT_ERR_RUNTIME, "a leaf Variable that requires grad has been used in an in-place operation.");
            if (ct__output_differentiable(ctx, recorded, outputs[k]) && outputs[k]->base && ctx->fn->n_outputs > 1)
                return ct__fail(CT_ERR_RUNTIME, "%s", ct__dirty_view_msg); /* its history is rewritten for one output */
            outputs[k]->storage->version++;
            outputs[k] = ct__same(outputs[k]);
        } else {
            ct_tensor *alias = ct__input_alias(ctx, recorded, outputs[k]);
            for (int i = 0; alias && i < ctx->n_non_diff; i++) /* its marks go with it */
                if (ctx->non_diff[i] == outputs[k]) ctx->non_diff[i] = alias;
            outputs[k] = alias;
        }
        if (!outputs[k]) return ct_last_error_code();
    }
    return CT_OK;
}

/* The node: edges to the inputs, the differentiable outputs, what forward saved. */
static ct_result ct__record_custom(ct_function_ctx *ctx, ct_tensor *const *inputs, int n_in, ct_tensor **outputs,
                                   bool recorded)
{
    static const ct__node_type custom = {"CustomBackward", ct__bw_custom};
    int n_out = ctx->fn->n_outputs;
    if (!recorded) return CT_OK;
    ct_tensor **diff = (ct_tensor **)CT_MALLOC((size_t)(n_out + 1) * sizeof *diff);
    if (!diff) return CT__OOM();
    bool any_diff = false;
    for (int k = 0; k < n_out; k++) {
        diff[k] = ct__output_differentiable(ctx, true, outputs[k]) ? outputs[k] : NULL;
        any_diff = any_diff || diff[k];
    }
    if (!any_diff) { /* no output would hold the node: none is made, the inputs' history is still read */
        CT_FREE(diff);
        return ct__history_check((const ct_tensor *const *)inputs, n_in);
    }
    ct__node *n = ct__record(&custom, (const ct_tensor *const *)inputs, n_in, diff, n_out);
    CT_FREE(diff);
    if (!n) return ct_last_error_code();
    n->name = ctx->node_name;
    n->extra = ctx;
    n->release_extra = ct__custom_release;
    ctx->node = n;
    for (int i = 0; i < ctx->n_to_save; i++)
        ct__save(n, ctx->to_save[i], ct__listed(outputs, n_out, ctx->to_save[i]));
    for (int i = 0; i < ctx->n_to_save; i++) ct_release(ctx->to_save[i]);
    ctx->n_to_save = 0;
    return ct__recorded_ok(n, (const ct_tensor *const *)inputs, n_in) ? CT_OK : ct_last_error_code();
}

/* The outputs that are views (made in forward, or inputs handed back) may
 * not have their history rewritten by an in-place op, nor regenerated after
 * their base was written: the custom backward would be bypassed (PyTorch's
 * CreationMeta::IN_CUSTOM_FUNCTION; MULTI_OUTPUT_NODE when the function has
 * several differentiable outputs). An input marked dirty keeps how it was made. */
static void ct__mark_output_views(const ct_function_ctx *ctx, ct_tensor *const *outputs, bool recorded)
{
    int n_out = ctx->fn->n_outputs, n_diff = 0;
    for (int k = 0; k < n_out; k++) n_diff += ct__output_differentiable(ctx, recorded, outputs[k]);
    for (int k = 0; k < n_out; k++) {
        if (!outputs[k]->base) continue;
        if (n_diff > 1)
            outputs[k]->view_made = CT__VIEW_MADE_MULTI_OUTPUT;
        else if (!ct__listed(ctx->dirty, ctx->n_dirty, outputs[k]))
            outputs[k]->view_made = CT__VIEW_MADE_IN_CUSTOM_FUNCTION;
    }
}

static ct_function_ctx *ct__ctx_new(const ct_function *fn, ct_tensor *const *inputs, int n_in, void *user)
{
    ct_function_ctx *ctx = (ct_function_ctx *)CT_MALLOC(sizeof *ctx);
    bool *needs = (bool *)CT_MALLOC((size_t)(n_in + 1) * sizeof *needs);
    if (!ctx || !needs) {
        CT_FREE(ctx);
        CT_FREE(needs);
        CT__OOM();
        return NULL;
    }
    memset(ctx, 0, sizeof *ctx);
    ctx->fn_copy = *fn;
    ctx->fn = &ctx->fn_copy;
    ctx->user = user;
    ctx->n_inputs = n_in;
    ctx->needs_input_grad = needs;
    for (int i = 0; i < n_in; i++) needs[i] = ct__grad_mode() && ct__requires_grad(inputs[i]);
    snprintf(ctx->node_name, sizeof ctx->node_name, "%sBackward", fn->name ? fn->name : "");
    return ctx;
}

ct_result ct_function_apply(const ct_function *fn, ct_tensor *const *inputs, int n_inputs, ct_tensor **outputs,
                            void *user)
{
    if (!fn || !fn->forward || !fn->backward || fn->n_outputs <= 0)
        return ct__fail(CT_ERR_VALUE, "Function.apply: give a function with forward, backward and at least one output");
    if (n_inputs < 0 || (n_inputs > 0 && !inputs) || !outputs)
        return ct__fail(CT_ERR_VALUE, "Function.apply: give %d inputs and room for %d outputs", n_inputs, fn->n_outputs);
    for (int i = 0; i < n_inputs; i++)
        if (!inputs[i]) return ct__fail(CT_ERR_TYPE, "expected Tensor as element %d in argument 0, but got NULL", i);
    ct_function_ctx *ctx = ct__ctx_new(fn, inputs, n_inputs, user);
    if (!ctx) return ct_last_error_code();
    for (int k = 0; k < fn->n_outputs; k++) outputs[k] = NULL;
    ct_grad_mode mode = ct_set_grad_enabled(false);
    ct_result r = fn->forward(ctx, inputs, n_inputs, outputs);
    ct_grad_mode_restore(mode);
    bool recorded = false; /* some input needs grad */
    for (int i = 0; i < n_inputs; i++) recorded = recorded || ctx->needs_input_grad[i];
    if (r == CT_OK) r = ct__settle_outputs(ctx, inputs, n_inputs, outputs, recorded);
    if (r == CT_OK) r = ct__record_custom(ctx, inputs, n_inputs, outputs, recorded);
    if (r == CT_OK) ct__mark_output_views(ctx, outputs, recorded);
    if (!ctx->node) ct__ctx_free(ctx); /* not recorded: nothing will call backward */
    if (r != CT_OK)
        for (int k = 0; k < fn->n_outputs; k++) outputs[k] = NULL;
    return r;
}
