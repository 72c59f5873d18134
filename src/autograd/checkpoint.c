/* Activation checkpointing (torch.utils.checkpoint), as a custom function
 * whose backward runs the forward again with grad mode on. */

/* Generators and a copy of their states: the CPU's default generator and
 * the default of each device an input is on, which is what a forward may
 * draw from (checkpoint's preserve_rng_state). */
typedef struct ct__rng_states {
    int n;
    ct_generator **gens;
    unsigned char **bytes;
} ct__rng_states;

/* s made for the n generators gens, their states not yet read, in one
 * block; false when out of memory. */
static bool ct__rng_make(ct__rng_states *s, ct_generator *const *gens, int n)
{
    size_t total = 0;
    for (int i = 0; i < n; i++) total += ct_generator_state_size(gens[i]);
    char *block = (char *)CT_MALLOC((size_t)n * (sizeof *s->gens + sizeof *s->bytes) + total);
    if (!block) return false;
    s->n = n;
    s->gens = (ct_generator **)block;
    s->bytes = (unsigned char **)(s->gens + n);
    unsigned char *at = (unsigned char *)(s->bytes + n);
    for (int i = 0; i < n; i++) {
        s->gens[i] = gens[i];
        s->bytes[i] = at;
        at += ct_generator_state_size(gens[i]);
    }
    return true;
}

/* s for the generators the n inputs' forward may draw from. */
static ct_result ct__rng_for_inputs(ct__rng_states *s, ct_tensor *const *inputs, int n)
{
    ct_generator **gens = (ct_generator **)CT_MALLOC((size_t)(n + 1) * sizeof *gens);
    if (!gens) return CT__OOM();
    int k = 0;
    gens[k++] = ct_default_generator();
    ct_result r = CT_OK;
    for (int i = 0; i < n && r == CT_OK; i++) {
        if (!inputs[i] || ct_device_of(inputs[i]).type == CT_DEVICE_CPU) continue;
        ct_generator *g = ct_device_default_generator(ct_device_of(inputs[i]));
        bool seen = false;
        for (int j = 0; j < k; j++) seen |= gens[j] == g;
        if (!g) r = ct_last_error_code();
        else if (!seen) gens[k++] = g;
    }
    if (r == CT_OK && !ct__rng_make(s, gens, k)) r = CT__OOM();
    CT_FREE(gens);
    return r;
}

static void ct__rng_save(const ct__rng_states *s)
{
    for (int i = 0; i < s->n; i++) ct_generator_get_state(s->gens[i], s->bytes[i]);
}

static void ct__rng_load(const ct__rng_states *s)
{
    for (int i = 0; i < s->n; i++) ct_generator_set_state(s->gens[i], s->bytes[i], ct_generator_state_size(s->gens[i]));
}

static void ct__rng_free(ct__rng_states *s)
{
    CT_FREE(s->gens);
    s->gens = NULL;
}

typedef struct ct__checkpoint {
    ct_checkpoint_fn fn;
    void *user;
    void (*free_user)(void *user); /* NULL: the caller's */
    int n_outputs;
    ct__rng_states rng; /* the generators' states before forward */
    bool owned;         /* by the ctx, once forward ran */
} ct__checkpoint;

static void ct__checkpoint_free(void *p)
{
    ct__checkpoint *c = (ct__checkpoint *)p;
    if (c->free_user) c->free_user(c->user);
    ct__rng_free(&c->rng);
    CT_FREE(c);
}

/* fn's outputs, checked: exactly n_outputs of them. */
static ct_result ct__checkpoint_run(const ct__checkpoint *c, ct_tensor *const *inputs, int n, ct_tensor **outputs)
{
    ct_tensor *got[8];
    int k = c->fn(inputs, n, got, c->user);
    if (k < 0) return (ct_result)k;
    if (k != c->n_outputs)
        return ct__fail(CT_ERR_RUNTIME, "checkpoint: the function gave %d outputs, not %d", k, c->n_outputs);
    memcpy(outputs, got, (size_t)k * sizeof *got);
    return CT_OK;
}

static ct_result ct__checkpoint_forward(ct_function_ctx *ctx, ct_tensor *const *inputs, int n, ct_tensor **outputs)
{
    ct__checkpoint *c = (ct__checkpoint *)ct_ctx_user(ctx);
    ct_ctx_set_data(ctx, c, ct__checkpoint_free); /* the ctx (and the graph) owns it from here */
    c->owned = true;
    ct_result r = ct__rng_for_inputs(&c->rng, inputs, n);
    if (r != CT_OK) return r;
    ct__rng_save(&c->rng);
    r = ct__checkpoint_run(c, inputs, n, outputs);
    return r == CT_OK ? ct_ctx_save_for_backward(ctx, inputs, n) : r;
}

/* backward from the recomputed outputs that require grad, with their gradients. */
static ct_result ct__checkpoint_backward_through(ct_tensor *const *y, ct_tensor *const *go, int n_out)
{
    const ct_tensor *roots[8], *grads[8];
    int k = 0;
    for (int i = 0; i < n_out; i++)
        if (ct_requires_grad(y[i])) roots[k] = y[i], grads[k++] = go[i];
    ct_backward_opts opts = {false, false, NULL, 0};
    return ct_autograd_backward(roots, grads, k, opts);
}

/* Run fn again on detached inputs with the forward's random state, then
 * backward through it: the inputs' gradients are what it left in them. */
static ct_result ct__checkpoint_backward(ct_function_ctx *ctx, ct_tensor *const *go, ct_tensor **gi)
{
    const ct__checkpoint *c = (const ct__checkpoint *)ct_ctx_data(ctx);
    int n = ctx->n_inputs;
    if (!ct__checkpoint_valid)
        return ct__fail(CT_ERR_RUNTIME, "Checkpointing is not compatible with .grad() or when an `inputs` parameter is "
                                        "passed to .backward(). Please use .backward() and do not pass its `inputs` "
                                        "argument.");
    ct_tensor **x = (ct_tensor **)CT_MALLOC((size_t)(n + c->n_outputs + 1) * sizeof *x), **y = x + n;
    ct__rng_states now = {0, NULL, NULL};
    ct_result r = x && ct__rng_make(&now, c->rng.gens, c->rng.n) ? CT_OK : CT__OOM();
    for (int i = 0; i < n && r == CT_OK; i++) {
        ct_tensor *saved = ct_ctx_saved_tensor(ctx, i);
        x[i] = saved ? ct_detach(saved) : NULL;
        if (!x[i]) r = ct_last_error_code();
        else if (ct_ctx_needs_input_grad(ctx, i)) r = ct_requires_grad_(x[i], true);
    }
    if (r == CT_OK) {
        ct__rng_save(&now); /* fork_rng: the generators go on afterwards as if the rerun had not drawn */
        ct__rng_load(&c->rng);
        ct_grad_mode mode = ct_enable_grad();
        r = ct__checkpoint_run(c, x, n, y);
        ct_grad_mode_restore(mode);
        ct__rng_load(&now);
    }
    if (r == CT_OK) r = ct__checkpoint_backward_through(y, go, c->n_outputs);
    for (int i = 0; i < n && r == CT_OK; i++) gi[i] = ct_ctx_needs_input_grad(ctx, i) ? ct_grad(x[i]) : NULL;
    CT_FREE(x);
    ct__rng_free(&now);
    return r;
}

/* checkpoint, with free_user to free user when the graph goes (NULL: the caller's). */
static ct_result ct__checkpoint_apply(ct_checkpoint_fn fn, ct_tensor *const *inputs, int n, ct_tensor **outputs,
                                      int n_outputs, void *user, void (*free_user)(void *user))
{
    static const ct_function checkpoint = {"Checkpoint", 0, ct__checkpoint_forward, ct__checkpoint_backward, false};
    ct__checkpoint *c = (ct__checkpoint *)CT_MALLOC(sizeof *c);
    if (!c) {
        if (free_user) free_user(user);
        return CT__OOM();
    }
    memset(c, 0, sizeof *c);
    c->fn = fn;
    c->user = user;
    c->free_user = free_user;
    c->n_outputs = n_outputs;
    ct_function f = checkpoint; /* CheckpointFunctionBackward, with this call's number of outputs */
    f.name = "CheckpointFunction";
    f.n_outputs = n_outputs;
    ct_result r = ct_function_apply(&f, inputs, n, outputs, c);
    if (!c->owned) ct__checkpoint_free(c);
    return r;
}

ct_result ct_checkpoint(ct_checkpoint_fn fn, ct_tensor *const *inputs, int n, ct_tensor **outputs, int n_outputs,
                        void *user)
{
    if (!fn || n_outputs <= 0 || n_outputs > 8 || !outputs)
        return ct__fail(CT_ERR_VALUE, "checkpoint: give a function and room for its 1 to 8 outputs");
    return ct__checkpoint_apply(fn, inputs, n, outputs, n_outputs, user, NULL);
}

/* Functions [begin, end) of a sequence, applied to one tensor. A
 * checkpointed chunk keeps its own copy of them for backward. */
typedef struct ct__chunk {
    const ct_checkpoint_fn *fns;
    void *const *users;
    int begin, end;
} ct__chunk;

static ct__chunk *ct__chunk_copy(const ct__chunk *c)
{
    int n = c->end - c->begin;
    ct__chunk *k = (ct__chunk *)CT_MALLOC(sizeof *k + (size_t)n * (sizeof(ct_checkpoint_fn) + sizeof(void *)));
    if (!k) return NULL;
    ct_checkpoint_fn *fns = (ct_checkpoint_fn *)(k + 1);
    void **users = (void **)(fns + n);
    for (int i = 0; i < n; i++) {
        fns[i] = c->fns[c->begin + i];
        users[i] = c->users ? c->users[c->begin + i] : NULL;
    }
    k->fns = fns;
    k->users = users;
    k->begin = 0;
    k->end = n;
    return k;
}

static void ct__chunk_free(void *c) { CT_FREE(c); }

static int ct__run_chunk(ct_tensor *const *inputs, int n, ct_tensor **outputs, void *user)
{
    const ct__chunk *c = (const ct__chunk *)user;
    ct_tensor *x = inputs[0];
    (void)n;
    for (int i = c->begin; i < c->end; i++) {
        ct_tensor *y[8];
        int k = c->fns[i](&x, 1, y, c->users ? c->users[i] : NULL);
        if (k < 0) return k;
        if (k != 1) return ct__fail(CT_ERR_RUNTIME, "checkpoint_sequential: function %d gave %d outputs, not 1", i, k);
        x = y[0];
    }
    outputs[0] = x == inputs[0] ? ct_detach(x) : x;
    return outputs[0] ? 1 : ct_last_error_code();
}

ct_tensor *ct_checkpoint_sequential(const ct_checkpoint_fn *fns, void *const *users, int n_fns, int segments,
                                    const ct_tensor *input)
{
    CT__ARG(input, "input", 3);
    if (!fns || n_fns <= 0 || segments <= 0) {
        ct__fail(CT_ERR_VALUE, "checkpoint_sequential: give 1 or more functions and segments");
        return NULL;
    }
    int size = n_fns / segments, end = -1; /* as PyTorch: segments - 1 chunks of size, then the rest */
    ct_tensor *x = (ct_tensor *)input;
    ct_scope s = ct_scope_begin();
    for (int start = 0; x && start < size * (segments - 1); start += size) {
        end = start + size - 1;
        ct__chunk chunk = {fns, users, start, end + 1}, *kept = ct__chunk_copy(&chunk);
        ct_tensor *y = NULL;
        if (!kept) CT__OOM();
        x = kept && ct__checkpoint_apply(ct__run_chunk, &x, 1, &y, 1, kept, ct__chunk_free) == CT_OK ? y : NULL;
    }
    ct__chunk last = {fns, users, end + 1, n_fns};
    ct_tensor *out = NULL;
    if (x && ct__run_chunk(&x, 1, &out, &last) != 1) out = NULL;
    ct_keep(out);
    ct_scope_end(s);
    return out;
}
