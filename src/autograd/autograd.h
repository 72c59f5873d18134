/* Public autograd API: grad mode, gradients of tensors, backward passes,
 * hooks and anomaly detection. */

/* A node of the backward graph (torch.autograd.graph.Node, what grad_fn is). */
typedef struct ct_node ct_node;

/* ---------------------------------------------------------------- grad mode */

/* The mode that ends a region: restore what the function entering it returned. */
typedef struct ct_grad_mode {
    bool enabled;
    bool inference;
} ct_grad_mode;

/* torch.no_grad(), torch.enable_grad(), torch.inference_mode(): enter the
 * region, returning the mode to give back to ct_grad_mode_restore at its end.
 * Modes are per thread. */
CTORCH_API ct_grad_mode ct_no_grad(void);
CTORCH_API ct_grad_mode ct_enable_grad(void);
CTORCH_API ct_grad_mode ct_inference_mode(void);
/* torch.set_grad_enabled(mode): returns the previous mode. */
CTORCH_API ct_grad_mode ct_set_grad_enabled(bool enabled);
CTORCH_API void ct_grad_mode_restore(ct_grad_mode mode);
CTORCH_API bool ct_is_grad_enabled(void);            /* torch.is_grad_enabled */
CTORCH_API bool ct_is_inference_mode_enabled(void);  /* torch.is_inference_mode_enabled */
/* Tensor.is_inference(): t was made in inference mode (or is a view of such a
 * tensor). Outside inference mode it cannot be written in place, saved for
 * backward or made to require grad, with PyTorch's errors. */
CTORCH_API bool ct_is_inference(const ct_tensor *t);

/* ---------------------------------------------------------------- tensors */

/* Tensor.grad: a new reference, or NULL when there is none (no error). */
CTORCH_API ct_tensor *ct_grad(const ct_tensor *t);
/* t.grad = grad (NULL clears it, as set_to_none does). */
CTORCH_API ct_result ct_set_grad(ct_tensor *t, const ct_tensor *grad);
/* Tensor.is_leaf: false, with the error set, for a view whose history
 * autograd refuses to read (one made in no_grad mode whose base was written
 * since, ...), where PyTorch raises. */
CTORCH_API bool ct_is_leaf(const ct_tensor *t);
/* Tensor.grad_fn: borrowed (valid while t lives), NULL for leaves. */
CTORCH_API ct_node *ct_grad_fn(const ct_tensor *t);
CTORCH_API const char *ct_node_name(const ct_node *n);           /* grad_fn.name(): "MulBackward0" */
/* grad_fn.next_functions: how many, and the i-th (node, input_nr); NULL node for an input needing no grad. */
CTORCH_API int ct_node_num_next(const ct_node *n);
CTORCH_API ct_node *ct_node_next(const ct_node *n, int i, int *input_nr);
/* AccumulateGrad.variable: the leaf an AccumulateGrad node accumulates into
 * (borrowed), NULL for any other node. */
CTORCH_API ct_tensor *ct_node_variable(const ct_node *n);
CTORCH_API ct_result ct_retain_grad(ct_tensor *t);               /* Tensor.retain_grad() */
CTORCH_API bool ct_retains_grad(const ct_tensor *t);             /* Tensor.retains_grad */
/* Tensor.detach_(): t leaves the graph in place. */
CTORCH_API ct_result ct_detach_(ct_tensor *t);
/* Tensor.data: a view that shares storage but is outside autograd and does
 * not share the version counter's checks (writes through it go unnoticed). */
CTORCH_API ct_tensor *ct_data(const ct_tensor *t);
/* Tensor._version: bumped by every in-place write. */
CTORCH_API int64_t ct_version(const ct_tensor *t);

/* ---------------------------------------------------------------- backward */

/* Tensor.backward / torch.autograd.backward options. retain_graph keeps the
 * graph for another backward (create_graph implies it, as in PyTorch);
 * create_graph records the backward pass for higher-order gradients; inputs
 * (n_inputs of them) limits accumulation to those tensors. */
typedef struct ct_backward_opts {
    bool retain_graph;
    bool create_graph;
    const ct_tensor *const *inputs;
    int n_inputs;
} ct_backward_opts;

/* Tensor.backward(gradient): gradient may be NULL for a one-element t. Leaves'
 * .grad accumulate. */
CTORCH_API ct_result ct_backward(const ct_tensor *t, const ct_tensor *gradient, ct_backward_opts opts);
/* torch.autograd.backward(tensors, grad_tensors): n roots at once (grad_tensors may be NULL). */
CTORCH_API ct_result ct_autograd_backward(const ct_tensor *const *tensors, const ct_tensor *const *grad_tensors, int n,
                                          ct_backward_opts opts);

typedef struct ct_grad_opts {
    bool retain_graph;
    bool create_graph;
    bool allow_unused;
} ct_grad_opts;

/* torch.autograd.grad(outputs, inputs, grad_outputs): the gradients of the
 * n_outputs outputs with respect to the n_inputs inputs, written to grads
 * (new references; NULL for an unused input when allow_unused). .grad is left
 * untouched. grad_outputs may be NULL (one-element outputs). */
CTORCH_API ct_result ct_autograd_grad(const ct_tensor *const *outputs, int n_outputs, const ct_tensor *const *inputs,
                                      int n_inputs, const ct_tensor *const *grad_outputs, ct_tensor **grads,
                                      ct_grad_opts opts);

/* Variable._execution_engine.queue_callback(fn): called during a backward
 * pass (from a hook, or a custom Function's backward), fn(user) runs once
 * after every node of that pass has run and before the call that started
 * the pass returns, callbacks in the order they were queued (one may queue
 * more). A callback that fails (returns an error) ends the pass with its
 * error, and the callbacks after it do not run; so do all of them when the
 * pass itself failed. DistributedDataParallel waits for its gradient
 * all-reduces this way. Outside a backward pass: PyTorch's error. */
typedef ct_result (*ct_autograd_callback)(void *user);
CTORCH_API ct_result ct_autograd_queue_callback(ct_autograd_callback fn, void *user);

/* ---------------------------------------------------------------- hooks */

/* A hook gets the gradient and returns a replacement (a new reference) or
 * NULL to keep it. Registering returns an id for the remove function. */
typedef ct_tensor *(*ct_grad_hook)(ct_tensor *grad, void *user);
/* Tensor.register_hook: runs when t's gradient is computed, before it is used. */
CTORCH_API int ct_register_hook(ct_tensor *t, ct_grad_hook hook, void *user);
CTORCH_API ct_result ct_remove_hook(ct_tensor *t, int id);
/* Tensor.register_post_accumulate_grad_hook: on a leaf, after .grad was
 * updated (the hook gets the leaf; its return value is ignored). */
CTORCH_API int ct_register_post_accumulate_grad_hook(ct_tensor *t, ct_grad_hook hook, void *user);
/* Node.register_prehook / Node.register_hook: a prehook gets each gradient of
 * the node's outputs (and may replace it); a hook gets each gradient the node
 * produced for its inputs (and may replace it). */
CTORCH_API int ct_node_register_prehook(ct_node *n, ct_grad_hook hook, void *user);
CTORCH_API int ct_node_register_hook(ct_node *n, ct_grad_hook hook, void *user);

/* torch.autograd.set_detect_anomaly: a backward that produces NaN fails with
 * the name of the forward op that made the node ("Function 'DivBackward0'
 * returned nan values in its 1th output."). */
CTORCH_API void ct_set_detect_anomaly(bool enabled);
CTORCH_API bool ct_is_anomaly_enabled(void);

/* ---------------------------------------------------------------- checking gradients */

/* A differentiable function for gradcheck: computes outputs from n inputs
 * into out (room for 8) and returns how many, or a negative ct_result on
 * failure. gradcheck calls it with a scope open, which owns the outputs. */
typedef int (*ct_gradcheck_fn)(ct_tensor *const *inputs, int n, ct_tensor **out, void *user);

/* torch.autograd.gradcheck options; start from ct_gradcheck_opts_init()
 * (eps 1e-6, atol 1e-5, rtol 1e-3: PyTorch's defaults). */
typedef struct ct_gradcheck_opts {
    double eps, atol, rtol;
} ct_gradcheck_opts;
CTORCH_API ct_gradcheck_opts ct_gradcheck_opts_init(void);

/* torch.autograd.gradcheck: compares the gradients backward gives for the
 * inputs that require grad (use float64) with central finite differences.
 * CT_OK when every element agrees within atol + rtol * |numerical|; else an
 * error whose message, as PyTorch's, shows both Jacobians ("Jacobian mismatch
 * for output 0 with respect to input 0, ...") and names the worst element. */
CTORCH_API ct_result ct_gradcheck(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, ct_gradcheck_opts opts);
/* torch.autograd.gradgradcheck: the same check on the gradients themselves
 * (computed with create_graph) against random grad_outputs, which checks
 * every backward formula's own backward. */
CTORCH_API ct_result ct_gradgradcheck(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, ct_gradcheck_opts opts);

/* ---------------------------------------------------------------- custom functions */

/* A custom function's ctx (what torch.autograd.Function passes as ctx). */
typedef struct ct_function_ctx ct_function_ctx;

/* torch.autograd.Function. forward computes n_outputs outputs from the
 * inputs, with grad mode off as PyTorch runs it; an output may be an input
 * it wrote in place (mark it dirty). backward gets one gradient per output
 * (zeros for an output that got none) and writes one per input into
 * grad_inputs (NULL: none); it runs with grad mode on under create_graph, so
 * a backward made of ctorch ops is itself differentiable. Tensors both make
 * belong to the scope open around them, as any op's results. */
typedef struct ct_function {
    const char *name; /* the class name: the node is named "<name>Backward" */
    int n_outputs;
    ct_result (*forward)(ct_function_ctx *ctx, ct_tensor *const *inputs, int n_inputs, ct_tensor **outputs);
    ct_result (*backward)(ct_function_ctx *ctx, ct_tensor *const *grad_outputs, ct_tensor **grad_inputs);
    /* @once_differentiable: backward runs unrecorded, and differentiating
     * its results fails with PyTorch's error */
    bool once_differentiable;
} ct_function;

/* Function.apply(*inputs): runs forward and, when grad mode is on and an
 * input requires grad, records one node whose backward is fn->backward.
 * outputs has room for fn->n_outputs; user is passed through (ct_ctx_user). */
CTORCH_API ct_result ct_function_apply(const ct_function *fn, ct_tensor *const *inputs, int n_inputs,
                                       ct_tensor **outputs, void *user);
CTORCH_API void *ct_ctx_user(const ct_function_ctx *ctx);
/* ctx.save_for_backward(*tensors), in forward: inputs or outputs kept for backward. */
CTORCH_API ct_result ct_ctx_save_for_backward(ct_function_ctx *ctx, ct_tensor *const *tensors, int n);
/* ctx.saved_tensors[i], in backward: NULL with PyTorch's error when the
 * tensor was modified in place since, or the graph was freed. */
CTORCH_API ct_tensor *ct_ctx_saved_tensor(ct_function_ctx *ctx, int i);
/* ctx.<attribute> = data: non-tensor state for backward, freed with the graph by free_data (may be NULL). */
CTORCH_API void ct_ctx_set_data(ct_function_ctx *ctx, void *data, void (*free_data)(void *data));
CTORCH_API void *ct_ctx_data(const ct_function_ctx *ctx);
/* ctx.needs_input_grad[i] */
CTORCH_API bool ct_ctx_needs_input_grad(const ct_function_ctx *ctx, int i);
/* ctx.mark_dirty(*tensors): inputs forward modified in place (and returns). */
CTORCH_API ct_result ct_ctx_mark_dirty(ct_function_ctx *ctx, ct_tensor *const *tensors, int n);
/* ctx.mark_non_differentiable(*tensors): outputs that never require grad. */
CTORCH_API ct_result ct_ctx_mark_non_differentiable(ct_function_ctx *ctx, ct_tensor *const *tensors, int n);

/* ---------------------------------------------------------------- checkpointing */

/* A piece of a model to checkpoint: outputs from n inputs (returns how many,
 * at most 8, or a negative ct_result). It may use tensors it does not get as
 * inputs (parameters): their gradients accumulate as usual. */
typedef int (*ct_checkpoint_fn)(ct_tensor *const *inputs, int n, ct_tensor **outputs, void *user);

/* torch.utils.checkpoint.checkpoint(fn, *inputs) (the reentrant form):
 * runs fn without keeping its graph; backward runs it again, with the
 * default generator's state as it was (preserve_rng_state), and goes back
 * through that. n_outputs: how many outputs fn gives (room in outputs); user
 * must stay valid until that backward. Like PyTorch's, it works with
 * backward, not with create_graph. */
CTORCH_API ct_result ct_checkpoint(ct_checkpoint_fn fn, ct_tensor *const *inputs, int n, ct_tensor **outputs,
                                   int n_outputs, void *user);
/* torch.utils.checkpoint.checkpoint_sequential(functions, segments, input):
 * n_fns one-tensor functions run in order (users[i] given to fns[i]), in
 * `segments` checkpointed chunks, the last one run normally. */
CTORCH_API ct_tensor *ct_checkpoint_sequential(const ct_checkpoint_fn *fns, void *const *users, int n_fns, int segments,
                                               const ct_tensor *input);

/* ---------------------------------------------------------------- autocast */

/* The autocast state a region ends with (give it to ct_autocast_restore). */
typedef struct ct_autocast_mode {
    bool enabled; /* the dtype needs no saving: the CPU has only bfloat16 */
} ct_autocast_mode;

/* torch.autocast("cpu", dtype, enabled): enters a region of this thread in
 * which matrix products (mm, bmm, matmul, addmm, baddbmm, linear) and
 * convolutions (conv1d/2d/3d) run in bfloat16; losses, prod, trace, the
 * decompositions and reflection/replication padding in float32; cat, stack
 * and index_copy in their widest floating input type; float64 is left alone
 * (PyTorch 1.13's CPU lists). dtype: CT_BF16 or CT_DEFAULT (the CPU
 * supports no other, as in PyTorch: an error, and the region stays as it
 * was). Regions nest; a cast of a weight is cached until the outermost ends.
 * Returns the mode to restore. */
CTORCH_API ct_autocast_mode ct_autocast(bool enabled, ct_dtype dtype);
CTORCH_API void ct_autocast_restore(ct_autocast_mode mode);
CTORCH_API bool ct_is_autocast_enabled(void);    /* torch.is_autocast_cpu_enabled() */
CTORCH_API ct_dtype ct_get_autocast_dtype(void); /* torch.get_autocast_cpu_dtype() */
