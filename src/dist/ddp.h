/* torch.nn.parallel.DistributedDataParallel: a module wrapped so that
 * backward averages its gradients over the ranks of a process group.
 *
 * Built from the module's parameters in registration order, the gradient
 * buckets are PyTorch's Reducer's: by dtype, the first filled up to 1 MiB
 * and the others to bucket_cap_mb, then used in reverse order, so the
 * bucket of the last layers (whose gradients backward gives first) is
 * all-reduced first. Each bucket's all-reduce starts, asynchronously, from
 * the post-accumulate hook of the last of its gradients to arrive, while
 * backward goes on; the end of backward (an autograd final callback) waits
 * for them and writes the averages back into .grad. */

/* DistributedDataParallel's keyword arguments; start from
 * ct_ddp_opts_init() (broadcast_buffers true, bucket_cap_mb 25). */
typedef struct ct_ddp_opts {
    ct_process_group *process_group; /* NULL: the default group */
    bool broadcast_buffers;          /* rank 0's buffers to every rank before each forward */
    double bucket_cap_mb;
    /* After each forward, the parameters its output does not reach are
     * marked ready at once: their bucket slots go into the all-reduce as
     * their current gradient or zeros, and a parameter no rank used keeps
     * its .grad as it was. Without it such a parameter stalls the reduction
     * (PyTorch's "Expected to have finished reduction" error at the next
     * forward). */
    bool find_unused_parameters;
} ct_ddp_opts;
CTORCH_API ct_ddp_opts ct_ddp_opts_init(void);

/* DistributedDataParallel(module, ...): every rank of the group must call
 * it, with the same model. Checks that the ranks' parameters agree in
 * number and shape, and copies rank 0's parameters and buffers to every
 * rank. Takes over the caller's reference to module (released on failure
 * too), which becomes the child "module" (state_dict keys "module.x").
 * Returns a new module (ct_forward calls the wrapped one), or NULL. */
CTORCH_API ct_module *ct_ddp(ct_module *module, ct_ddp_opts opts);
/* DistributedDataParallel.module: the wrapped module (borrowed). */
CTORCH_API ct_module *ct_ddp_module(ct_module *ddp);
/* `with ddp.no_sync():` as a switch: while on, backward leaves gradients
 * local (they accumulate); the first backward after it is switched off
 * all-reduces what accumulated. Returns the previous setting, to restore. */
CTORCH_API bool ct_ddp_no_sync(ct_module *ddp, bool no_sync);
/* The gradient buckets' sizes in bytes, in the order they are all-reduced
 * (DDP logging data's bucket_sizes): up to cap written, the count returned
 * (-1 with an error when ddp is not a DDP module). */
CTORCH_API int ct_ddp_bucket_sizes(const ct_module *ddp, int64_t *sizes, int cap);

/* torch.nn.SyncBatchNorm(num_features, eps, momentum, affine,
 * track_running_stats, process_group): BatchNorm whose training statistics
 * are the whole group's batch (every rank's samples), with one all-reduce of
 * the per-channel sum, sum of squares and count; backward all-reduces their
 * gradients, so each rank gets its share of the whole batch's gradient.
 * Parameters and buffers are BatchNorm's (weight, bias, running_mean,
 * running_var, num_batches_tracked). Any input of at least 2 dims, channels
 * in dim 1. In eval mode, or in a group of one, it is plain batch_norm.
 * (PyTorch 1.13's runs on CUDA tensors only; this one on the CPU.) group
 * NULL: the default group, looked up at each forward. */
CTORCH_API ct_module *ct_nn_sync_batch_norm(int64_t num_features, ct_norm_opts opts, ct_process_group *group);
/* nn.SyncBatchNorm.convert_sync_batchnorm(module, process_group): every
 * BatchNorm in module (module itself included) becomes a SyncBatchNorm with
 * its options, training mode and the very same parameter and buffer tensors
 * (an optimizer made before keeps working). Takes over the caller's
 * reference to module and returns one to the result: module itself with
 * its children replaced, or the SyncBatchNorm that replaces it. NULL on
 * failure (module released). */
CTORCH_API ct_module *ct_convert_sync_batchnorm(ct_module *module, ct_process_group *group);
