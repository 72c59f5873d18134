/* SyncBatchNorm: batch statistics over every rank of a group, computed with
 * differentiable ops around one differentiable all-reduce, so autograd gives
 * the backward (the all-reduced sum_dy and sum_dy_xmu of PyTorch's kernels
 * come out of the all-reduce's own backward). */

typedef struct ct__sync_bn {
    ct_module base;
    int64_t num_features;
    ct_norm_opts opts;
    ct_process_group *group;
} ct__sync_bn;

/* all_reduce(SUM) as an autograd function: its backward is the all-reduce
 * of the gradients (each rank's input reaches every rank's output). Both
 * sum a copy over the ranks of the group passed to apply. */
static ct_result ct__sum_ranks_copy(ct_function_ctx *ctx, const ct_tensor *t, ct_tensor **out)
{
    ct_dist_opts opts = {(ct_process_group *)ct_ctx_user(ctx), NULL};
    *out = ct_clone(t);
    return *out ? ct_dist_all_reduce(*out, CT_REDUCE_SUM, opts) : ct_last_error_code();
}

static ct_result ct__sum_ranks_forward(ct_function_ctx *ctx, ct_tensor *const *inputs, int n, ct_tensor **outputs)
{
    (void)n;
    return ct__sum_ranks_copy(ctx, inputs[0], outputs);
}

static ct_result ct__sum_ranks_backward(ct_function_ctx *ctx, ct_tensor *const *grad_outputs, ct_tensor **grad_inputs)
{
    return ct__sum_ranks_copy(ctx, grad_outputs[0], grad_inputs);
}

static const ct_function ct__sum_ranks = {"AllReduceSum", 1, ct__sum_ranks_forward, ct__sum_ranks_backward, false};

/* A per-channel vector shaped to broadcast against x (1, C, 1, ...). */
static ct_tensor *ct__per_channel(const ct_tensor *v, const ct_tensor *x)
{
    ct_shape s = ct_shape_of(x);
    for (int d = 0; d < s.ndim; d++) s.size[d] = d == 1 ? s.size[1] : 1;
    return ct_view(v, s);
}

/* The running statistics, as batch_norm updates them: the unbiased variance. */
static ct_result ct__sync_bn_update_running(ct__sync_bn *bn, const ct_tensor *mean, const ct_tensor *var, double count)
{
    if (!bn->opts.track_running_stats) return CT_OK;
    ct_tensor *rm = ct_module_get_buffer(&bn->base, "running_mean"), *rv = ct_module_get_buffer(&bn->base, "running_var");
    ct_tensor *nb = ct_module_get_buffer(&bn->base, "num_batches_tracked");
    ct_grad_mode mode = ct_no_grad();
    ct_result res = ct_add_scalar_(nb, ct_int(1));
    double m = bn->opts.cumulative ? 1.0 / (double)ct_item_int(nb) : bn->opts.momentum;
    if (res == CT_OK) res = ct_copy_(rm, ct_add(ct_mul_scalar(rm, ct_float(1 - m)), ct_mul_scalar(mean, ct_float(m))));
    if (res == CT_OK)
        res = ct_copy_(rv, ct_add(ct_mul_scalar(rv, ct_float(1 - m)), ct_mul_scalar(var, ct_float(m * count / (count - 1)))));
    ct_grad_mode_restore(mode);
    return res;
}

/* Training in a group of several: the group's mean and biased variance per channel. */
static ct_tensor *ct__sync_bn_train(ct__sync_bn *bn, ct_process_group *g, const ct_tensor *x)
{
    ct_shape dims = {0, {0}};
    for (int d = 0; d < ct_shape_of(x).ndim; d++)
        if (d != 1) dims.size[dims.ndim++] = d;
    int64_t c = ct_shape_of(x).size[1];
    ct_tensor *n = ct_full(CT_SHAPE(1), ct_int(ct_numel(x) / c), ct_dtype_of(x));
    ct_tensor *parts[3] = {ct_sum_dim(x, dims, false, CT_DEFAULT), ct_sum_dim(ct_mul(x, x), dims, false, CT_DEFAULT),
                           n ? ct_to_device(n, ct_device_of(x), false) : NULL};
    ct_tensor *total = NULL;
    ct_tensor *stats = ct_cat(parts, 3, 0);
    if (!stats || ct_function_apply(&ct__sum_ranks, &stats, 1, &total, g) != CT_OK) return NULL;
    double count = ct_item(ct_select(total, 0, 2 * c));
    if (count <= 1) {
        ct__dist_fail(CT_ERR_VALUE, "Expected more than 1 value per channel when training, got input size %lld",
                      (long long)count);
        return NULL;
    }
    ct_tensor *mean = ct_div_scalar(ct_narrow(total, 0, 0, c), ct_float(count));
    ct_tensor *var = ct_sub(ct_div_scalar(ct_narrow(total, 0, c, c), ct_float(count)), ct_mul(mean, mean));
    if (!var || ct__sync_bn_update_running(bn, mean, var, count) != CT_OK) return NULL;
    ct_tensor *inv_std = ct_rsqrt(ct_add_scalar(var, ct_float(bn->opts.eps)));
    return ct_mul(ct_sub(x, ct__per_channel(mean, x)), ct__per_channel(inv_std, x));
}

static ct_tensor *ct__sync_bn_forward(ct_module *self, ct_tensor *const *inputs, int n)
{
    ct__sync_bn *bn = (ct__sync_bn *)self;
    const ct_tensor *x = n == 1 ? inputs[0] : NULL;
    if (!x) {
        ct__dist_fail(CT_ERR_TYPE, "forward() takes 1 positional argument but %d were given", n);
        return NULL;
    }
    if (ct_shape_of(x).ndim < 2) {
        ct__dist_fail(CT_ERR_VALUE, "expected at least 2D input (got %dD input)", ct_shape_of(x).ndim);
        return NULL;
    }
    bool affine = bn->opts.affine, tracked = bn->opts.track_running_stats;
    ct_tensor *w = affine ? ct_module_get_parameter(self, "weight") : NULL;
    ct_tensor *b = affine ? ct_module_get_parameter(self, "bias") : NULL;
    ct_tensor *rm = tracked ? ct_module_get_buffer(self, "running_mean") : NULL;
    ct_tensor *rv = tracked ? ct_module_get_buffer(self, "running_var") : NULL;
    bool training = ct_module_is_training(self), use_batch = training || !rm;
    ct_process_group *g = use_batch && ct_dist_is_initialized() ? ct__dist_group(bn->group) : NULL;
    if (!g || g->size == 1 || g->rank < 0) { /* _BatchNorm's forward */
        ct_tensor *nb = tracked ? ct_module_get_buffer(self, "num_batches_tracked") : NULL;
        double m = bn->opts.momentum;
        if (training && nb) {
            ct_grad_mode mode = ct_no_grad();
            ct_add_scalar_(nb, ct_int(1));
            ct_grad_mode_restore(mode);
            if (bn->opts.cumulative) m = 1.0 / (double)ct_item_int(nb);
        }
        return ct_batch_norm(x, rm, rv, w, b, use_batch, m, bn->opts.eps);
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *y = ct__sync_bn_train(bn, g, x);
    if (y && w) y = ct_add(ct_mul(y, ct__per_channel(w, x)), ct__per_channel(b, x));
    ct_tensor *out = y ? ct_keep(y) : NULL;
    ct_scope_end(s);
    return out;
}

ct_module *ct_nn_sync_batch_norm(int64_t num_features, ct_norm_opts opts, ct_process_group *group)
{
    static const ct_module_class cls = {"SyncBatchNorm", ct__sync_bn_forward, NULL};
    if (num_features <= 0) {
        ct__dist_fail(CT_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: [%lld]",
                      (long long)num_features, (long long)num_features);
        return NULL;
    }
    ct_module *m = ct_module_new(&cls, sizeof(ct__sync_bn));
    if (!m) return NULL;
    ct__sync_bn *bn = (ct__sync_bn *)m;
    bn->num_features = num_features;
    bn->opts = opts;
    bn->group = group;
    ct_result res = CT_OK;
    ct_scope s = ct_scope_begin();
    if (opts.affine) {
        res = ct_register_parameter(m, "weight", ct_ones(CT_SHAPE(num_features), CT_DEFAULT));
        if (res == CT_OK) res = ct_register_parameter(m, "bias", ct_zeros(CT_SHAPE(num_features), CT_DEFAULT));
    }
    if (res == CT_OK && opts.track_running_stats) {
        res = ct_register_buffer(m, "running_mean", ct_zeros(CT_SHAPE(num_features), CT_DEFAULT), true);
        if (res == CT_OK) res = ct_register_buffer(m, "running_var", ct_ones(CT_SHAPE(num_features), CT_DEFAULT), true);
        if (res == CT_OK) res = ct_register_buffer(m, "num_batches_tracked", ct_zeros(CT_SHAPE0, CT_I64), true);
    }
    ct_scope_end(s);
    if (res != CT_OK) {
        ct_module_release(m);
        return NULL;
    }
    return m;
}

/* A SyncBatchNorm that takes over a BatchNorm's options and tensors. */
static ct_module *ct__sync_bn_from(ct_module *bn, int64_t c, ct_norm_opts o, ct_process_group *group)
{
    ct_module *sync = ct_nn_sync_batch_norm(c, o, group);
    static const char *const params[] = {"weight", "bias"};
    static const char *const buffers[] = {"running_mean", "running_var", "num_batches_tracked"};
    ct_result res = sync ? CT_OK : ct_last_error_code();
    for (int i = 0; i < 2 && o.affine && res == CT_OK; i++)
        res = ct_register_parameter(sync, params[i], ct_module_get_parameter(bn, params[i]));
    for (int i = 0; i < 3 && o.track_running_stats && res == CT_OK; i++)
        res = ct_register_buffer(sync, buffers[i], ct_module_get_buffer(bn, buffers[i]), true);
    if (res == CT_OK) ct_module_train(sync, ct_module_is_training(bn));
    ct_module_release(bn);
    if (res != CT_OK) {
        ct_module_release(sync);
        return NULL;
    }
    return sync;
}

ct_module *ct_convert_sync_batchnorm(ct_module *module, ct_process_group *group)
{
    int64_t c;
    ct_norm_opts o;
    if (!module) {
        ct__dist_fail(CT_ERR_TYPE, "convert_sync_batchnorm(): argument 'module' must be Module, not NULL");
        return NULL;
    }
    if (ct_nn_is_batch_norm(module, &c, &o)) return ct__sync_bn_from(module, c, o, group);
    ct_module_list children = ct_module_children(module);
    bool ok = true;
    for (int i = 0; i < children.n && ok; i++) {
        ct_module *child = ct_module_retain(children.modules[i]);
        ct_module *converted = ct_convert_sync_batchnorm(child, group); /* takes the reference just taken */
        if (!converted) ok = false;
        else if (converted == child) ct_module_release(converted);
        else ok = ct_add_module(module, children.names[i], converted) != NULL;
    }
    ct_module_list_free(&children);
    if (!ok) {
        ct_module_release(module);
        return NULL;
    }
    return module;
}
