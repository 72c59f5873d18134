/* The collectives' and point-to-point operations' front ends: argument
 * checks in PyTorch's words, the fingerprint, and the operation on flat
 * buffers that the backend posts. */

/* The start of every collective: its group, and a work when this rank takes
 * part (none, with CT_OK, when it is outside the group; none, with an
 * error, when there is no group). */
static ct_result ct__dist_collective_begin(ct_dist_opts opts, ct__dist_kind kind, int fp_extra, ct_work **out)
{
    *out = NULL;
    if (opts.async_op) *opts.async_op = NULL;
    ct_process_group *g = ct__dist_group(opts.group);
    if (!g) return ct_last_error_code();
    if (g->rank < 0) return CT_OK; /* PyTorch warns and returns None */
    *out = ct__work_new(g, kind, CT__FP_COUNTS + fp_extra * g->size);
    return *out ? CT_OK : ct_last_error_code();
}

/* Runs a prepared collective. When this rank's arguments were wrong (res),
 * it still takes part in the fingerprint exchange, marked invalid, so the
 * other ranks fail too instead of waiting for it; then it fails with its
 * own error. */
static ct_result ct__dist_collective_run(ct_work *w, ct_result res, ct_work **async_op)
{
    if (res != CT_OK) {
        w->own_error = ct__dist_strdup(ct_last_error());
        w->own_code = res;
        w->fp[CT__FP_KIND] = CT__FP_INVALID;
        async_op = NULL; /* a failed call hands out no work */
    }
    w->fp[CT__FP_SYNC] = async_op == NULL;
    if (ct__work_start(w) != CT_OK) async_op = NULL;
    return ct__work_finish_call(w, async_op);
}

static ct_result ct__dist_check_tensor(const ct_tensor *t, const char *name)
{
    if (!t)
        return ct__dist_fail(CT_ERR_RUNTIME, "Invalid function argument. Expected parameter `%s` to be of type torch.Tensor.",
                             name);
    if (!ct_is_contiguous(t)) return ct__dist_fail(CT_ERR_RUNTIME, "input tensor has to be contiguous");
    return CT_OK;
}

/* A list argument: n tensors, each contiguous and of `like`'s size and dtype. */
static ct_result ct__dist_check_list(ct_tensor *const *list, int n, const char *name, const ct_tensor *like)
{
    if (!list && n > 0)
        return ct__dist_fail(CT_ERR_RUNTIME,
                             "Invalid function argument. Expected parameter `%s` to be of type List[torch.Tensor].", name);
    for (int i = 0; i < n; i++) {
        if (!list[i])
            return ct__dist_fail(CT_ERR_RUNTIME,
                                 "Invalid function argument. Expected parameter `%s` to be of type List[torch.Tensor].",
                                 name);
        if (ct_numel(list[i]) != ct_numel(like) || ct_dtype_of(list[i]) != ct_dtype_of(like))
            return ct__dist_fail(CT_ERR_RUNTIME, "Tensors are not equal in size or data type");
        if (!ct_is_contiguous(list[i])) return ct__dist_fail(CT_ERR_RUNTIME, "input tensor has to be contiguous");
    }
    return CT_OK;
}

static ct_result ct__dist_check_count(int n, int size, const char *what)
{
    if (n != size) return ct__dist_fail(CT_ERR_RUNTIME, "%s: number of %s tensors should equal to the world size", what,
                                        strcmp(what, "Scatter") == 0 ? "input" : "output");
    return CT_OK;
}

/* A rank argument (global) as a rank of the work's group. */
static ct_result ct__dist_group_rank_of(const ct_work *w, int global_rank, int *group_rank)
{
    *group_rank = ct__dist_group_rank(w->group, global_rank);
    if (*group_rank < 0) return ct__dist_fail(CT_ERR_RUNTIME, "The global rank %d is not part of the group", global_rank);
    return CT_OK;
}

/* A reduction's op and dtype: AVG becomes SUM and a division afterwards. */
static ct_result ct__dist_set_reduction(ct_work *w, ct_reduce_op op, ct_dtype dtype)
{
    if ((unsigned)op > CT_REDUCE_MAX) return ct__dist_fail(CT_ERR_VALUE, "Unknown ReduceOp: %d", (int)op);
    bool on_device = w->group->backend->on_device;
    if ((dtype == CT_F16 || dtype == CT_BF16) && !on_device)
        return ct__dist_fail(CT_ERR_RUNTIME, "The %s backend does not reduce %s tensors", w->group->backend->name,
                             ct_dtype_name(dtype));
    if (op == CT_REDUCE_AVG && dtype == CT_BOOL)
        return ct__dist_fail(CT_ERR_RUNTIME, "Cannot use ReduceOp.AVG with boolean inputs");
    w->average = op == CT_REDUCE_AVG && !on_device;
    w->op.op = w->average ? CT_REDUCE_SUM : op;
    return CT_OK;
}

/* The operation works on t itself (broadcast, all_reduce, reduce). */
static ct_result ct__dist_in_place(ct_work *w, ct_tensor *t)
{
    ct__work_fingerprint(w, t);
    w->op.send = w->op.recv = ct_data_ptr(t);
    w->op.count = ct_numel(t);
    w->op.dtype = ct_dtype_of(t);
    return ct__work_hold(w, t);
}

static ct_result ct__dist_set_root(ct_work *w, int global_root)
{
    w->fp[CT__FP_ROOT] = global_root;
    return ct__dist_group_rank_of(w, global_root, &w->op.root);
}

ct_result ct_dist_broadcast(ct_tensor *tensor, int src, ct_dist_opts opts)
{
    ct_work *w;
    ct_result res = ct__dist_collective_begin(opts, CT__DIST_BROADCAST, 0, &w);
    if (!w) return res;
    res = ct__dist_check_tensor(tensor, "tensor");
    if (res == CT_OK) res = ct__dist_set_root(w, src);
    if (res == CT_OK) res = ct__dist_in_place(w, tensor);
    return ct__dist_collective_run(w, res, opts.async_op);
}

ct_result ct_dist_all_reduce(ct_tensor *tensor, ct_reduce_op op, ct_dist_opts opts)
{
    ct_work *w;
    ct_result res = ct__dist_collective_begin(opts, CT__DIST_ALLREDUCE, 0, &w);
    if (!w) return res;
    res = ct__dist_check_tensor(tensor, "tensor");
    if (res == CT_OK) res = ct__dist_set_reduction(w, op, ct_dtype_of(tensor));
    if (res == CT_OK) res = ct__dist_in_place(w, tensor);
    return ct__dist_collective_run(w, res, opts.async_op);
}

ct_result ct_dist_reduce(ct_tensor *tensor, int dst, ct_reduce_op op, ct_dist_opts opts)
{
    ct_work *w;
    ct_result res = ct__dist_collective_begin(opts, CT__DIST_REDUCE, 0, &w);
    if (!w) return res;
    res = ct__dist_check_tensor(tensor, "tensor");
    if (res == CT_OK) res = ct__dist_set_root(w, dst);
    if (res == CT_OK) res = ct__dist_set_reduction(w, op, ct_dtype_of(tensor));
    if (res == CT_OK) res = ct__dist_in_place(w, tensor);
    w->average = w->average && w->op.root == w->group->rank; /* only dst's tensor holds the sum */
    return ct__dist_collective_run(w, res, opts.async_op);
}

/* The flat buffer of a list operation: n chunks of `bytes`, with a copy
 * between chunk i and list[i] before (into) or after (out of) the operation. */
static ct_result ct__dist_flat_list(ct_work *w, ct_tensor *const *list, int n, size_t bytes, bool into, char **flat)
{
    ct_result res = ct__work_scratch(w, (size_t)n * bytes, list[0], flat);
    for (int i = 0; i < n && res == CT_OK; i++) {
        char *chunk = *flat + (size_t)i * bytes;
        res = ct__work_hold(w, list[i]);
        if (res == CT_OK)
            res = into ? ct__work_copy_in(w, chunk, ct_data_ptr(list[i]), bytes)
                       : ct__work_copy(w, ct_data_ptr(list[i]), chunk, bytes);
    }
    return res;
}

/* An operation on t and n chunks like it, held in one flat buffer: a
 * gathering one reads t and writes the chunks (spread to `list` after it), a
 * scattering one reads the chunks (copied from `list` before it) into t. */
static ct_result ct__dist_chunked(ct_work *w, const ct_tensor *t, ct_tensor *const *list, int n, bool gathering)
{
    ct__work_fingerprint(w, t);
    w->op.count = ct_numel(t);
    w->op.dtype = ct_dtype_of(t);
    char *flat = NULL;
    ct_result res = n > 0 ? ct__dist_flat_list(w, list, n, (size_t)ct__dist_numel_bytes(t), !gathering, &flat) : CT_OK;
    if (res != CT_OK) return res;
    w->op.send = gathering ? ct_data_ptr(t) : flat;
    w->op.recv = gathering ? flat : ct_data_ptr(t);
    return ct__work_hold(w, t);
}

/* A tensor, and a list of the group's size of tensors like it. */
static ct_result ct__dist_check_with_list(const ct_work *w, const ct_tensor *t, const char *t_name,
                                          ct_tensor *const *list, int n, const char *list_name, const char *what)
{
    ct_result res = ct__dist_check_tensor(t, t_name);
    if (res == CT_OK) res = ct__dist_check_count(n, w->group->size, what);
    return res == CT_OK ? ct__dist_check_list(list, n, list_name, t) : res;
}

ct_result ct_dist_all_gather(ct_tensor *const *tensor_list, int n, const ct_tensor *tensor, ct_dist_opts opts)
{
    ct_work *w;
    ct_result res = ct__dist_collective_begin(opts, CT__DIST_ALLGATHER, 0, &w);
    if (!w) return res;
    res = ct__dist_check_with_list(w, tensor, "tensor", tensor_list, n, "tensor_list", "All gather");
    if (res == CT_OK) res = ct__dist_chunked(w, tensor, tensor_list, n, true);
    return ct__dist_collective_run(w, res, opts.async_op);
}

ct_result ct_dist_all_gather_into_tensor(ct_tensor *output, const ct_tensor *input, ct_dist_opts opts)
{
    ct_work *w;
    ct_result res = ct__dist_collective_begin(opts, CT__DIST_ALLGATHER, 0, &w);
    if (!w) return res;
    w->op.kind = CT__DIST__ALLGATHER_BASE;
    w->fp[CT__FP_KIND] = w->op.kind;
    res = ct__dist_check_tensor(input, "input_tensor");
    if (res == CT_OK) res = ct__dist_check_tensor(output, "output_tensor");
    if (res == CT_OK && ct_dtype_of(output) != ct_dtype_of(input))
        res = ct__dist_fail(CT_ERR_RUNTIME, "output tensor must have the same type as input tensor");
    if (res == CT_OK && ct_numel(output) != ct_numel(input) * w->group->size)
        res = ct__dist_fail(CT_ERR_RUNTIME, "output tensor size must be equal to world_size times input tensor size");
    if (res == CT_OK) res = ct__dist_chunked(w, input, NULL, 0, true);
    if (res == CT_OK) res = ct__work_hold(w, output);
    if (res == CT_OK) w->op.recv = ct_data_ptr(output);
    return ct__dist_collective_run(w, res, opts.async_op);
}

/* gather's and scatter's checks: the tensor, the root (a global rank), and
 * the list: given on the root only (in PyTorch's words), of the group's size. */
static ct_result ct__dist_check_rooted(ct_work *w, const ct_tensor *t, ct_tensor *const *list, int n, int root,
                                       const char *name, const char *root_name, const char *what)
{
    ct_result res = ct__dist_check_tensor(t, "tensor");
    if (res == CT_OK) res = ct__dist_set_root(w, root);
    if (res != CT_OK) return res;
    if (w->op.root == w->group->rank && (!list || n <= 0))
        return ct__dist_fail(CT_ERR_VALUE, "Argument ``%s`` must be specified on %s rank.", name, root_name);
    if (w->op.root != w->group->rank && (list || n > 0))
        return ct__dist_fail(CT_ERR_VALUE, "Argument ``%s`` must NOT be specified on non-%s ranks.", name, root_name);
    if (list) res = ct__dist_check_count(n, w->group->size, what);
    return res == CT_OK ? ct__dist_check_list(list, n, name, t) : res;
}

ct_result ct_dist_gather(const ct_tensor *tensor, ct_tensor *const *gather_list, int n, int dst, ct_dist_opts opts)
{
    ct_work *w;
    ct_result res = ct__dist_collective_begin(opts, CT__DIST_GATHER, 0, &w);
    if (!w) return res;
    res = ct__dist_check_rooted(w, tensor, gather_list, n, dst, "gather_list", "destination", "Gather");
    if (res == CT_OK) res = ct__dist_chunked(w, tensor, gather_list, n, true);
    return ct__dist_collective_run(w, res, opts.async_op);
}

ct_result ct_dist_scatter(ct_tensor *tensor, ct_tensor *const *scatter_list, int n, int src, ct_dist_opts opts)
{
    ct_work *w;
    ct_result res = ct__dist_collective_begin(opts, CT__DIST_SCATTER, 0, &w);
    if (!w) return res;
    res = ct__dist_check_rooted(w, tensor, scatter_list, n, src, "scatter_list", "source", "Scatter");
    if (res == CT_OK) res = ct__dist_chunked(w, tensor, scatter_list, n, false);
    return ct__dist_collective_run(w, res, opts.async_op);
}

ct_result ct_dist_reduce_scatter(ct_tensor *output, ct_tensor *const *input_list, int n, ct_reduce_op op,
                                 ct_dist_opts opts)
{
    ct_work *w;
    ct_result res = ct__dist_collective_begin(opts, CT__DIST_REDUCE_SCATTER, 0, &w);
    if (!w) return res;
    res = ct__dist_check_with_list(w, output, "output", input_list, n, "input_list", "Reduce scatter");
    if (res == CT_OK) res = ct__dist_set_reduction(w, op, ct_dtype_of(output));
    if (res == CT_OK) res = ct__dist_chunked(w, output, input_list, n, false);
    return ct__dist_collective_run(w, res, opts.async_op);
}

/* all_to_all's lists: one dtype, any sizes. The fingerprint carries the
 * element counts sent to and expected from each rank. */
static ct_result ct__dist_check_all_to_all(ct_work *w, ct_tensor *const *outs, ct_tensor *const *ins, int n)
{
    ct_result res = ct__dist_check_count(n, w->group->size, "All to all");
    for (int i = 0; i < n && res == CT_OK; i++) {
        res = ct__dist_check_tensor(ins ? ins[i] : NULL, "input_tensor_list");
        if (res == CT_OK) res = ct__dist_check_tensor(outs ? outs[i] : NULL, "output_tensor_list");
        if (res == CT_OK && (ct_dtype_of(ins[i]) != ct_dtype_of(ins[0]) || ct_dtype_of(outs[i]) != ct_dtype_of(ins[0])))
            res = ct__dist_fail(CT_ERR_RUNTIME, "Tensors must have the same dtype");
    }
    return res;
}

static ct_result ct__dist_all_to_all_plan(ct_work *w, ct_tensor *const *outs, ct_tensor *const *ins, int n)
{
    size_t elem = ct_dtype_size(ct_dtype_of(ins[0]));
    int64_t *c = w->counts = (int64_t *)ct__dist_alloc(4 * (size_t)n * sizeof *c);
    if (!c) return CT_ERR_MEMORY;
    int64_t sent = 0, received = 0;
    for (int i = 0; i < n; i++) { /* scounts, sdispls, rcounts, rdispls */
        c[i] = w->fp[CT__FP_COUNTS + i] = ct_numel(ins[i]);
        c[2 * n + i] = w->fp[CT__FP_COUNTS + n + i] = ct_numel(outs[i]);
        c[n + i] = sent, sent += c[i];
        c[3 * n + i] = received, received += c[2 * n + i];
    }
    w->fp[CT__FP_DTYPE] = ct_dtype_of(ins[0]);
    w->op.dtype = ct_dtype_of(ins[0]);
    w->op.all_to_all = c;
    char *send = NULL;
    if (ct__work_scratch(w, (size_t)(sent + received) * elem, ins[0], &send) != CT_OK) return ct_last_error_code();
    char *recv = send + (size_t)sent * elem;
    w->op.send = send, w->op.recv = recv;
    ct_result res = CT_OK;
    for (int i = 0; i < n && res == CT_OK; i++) {
        res = ct__work_hold(w, ins[i]);
        if (res == CT_OK) res = ct__work_hold(w, outs[i]);
        if (res == CT_OK) res = ct__work_copy_in(w, send + (size_t)c[n + i] * elem, ct_data_ptr(ins[i]), (size_t)c[i] * elem);
    }
    for (int i = 0; i < n && res == CT_OK; i++)
        res = ct__work_copy(w, ct_data_ptr(outs[i]), recv + (size_t)c[3 * n + i] * elem, (size_t)c[2 * n + i] * elem);
    return res;
}

ct_result ct_dist_all_to_all(ct_tensor *const *output_list, ct_tensor *const *input_list, int n, ct_dist_opts opts)
{
    ct_work *w;
    ct_result res = ct__dist_collective_begin(opts, CT__DIST_ALLTOALL, 2, &w);
    if (!w) return res;
    res = ct__dist_check_all_to_all(w, output_list, input_list, n);
    if (res == CT_OK) res = ct__dist_all_to_all_plan(w, output_list, input_list, n);
    return ct__dist_collective_run(w, res, opts.async_op);
}

ct_result ct_dist_barrier(ct_dist_opts opts)
{
    ct_work *w;
    ct_result res = ct__dist_collective_begin(opts, CT__DIST_BARRIER, 0, &w);
    if (!w) return res;
    return ct__dist_collective_run(w, res, opts.async_op);
}

/* ---------------------------------------------------------------- point to point */

/* Tags pair a fingerprint (2 tag + 1) with its data (2 tag); MPI promises
 * tags up to 32767. */
#define CT__DIST_MAX_TAG 16383

/* send's and recv's work, or NULL (with an error when there was one). */
static ct_work *ct__dist_p2p_begin(ct_dist_opts opts, ct__dist_kind kind, const ct_tensor *t, int peer, int tag)
{
    ct_work *w;
    if (ct__dist_collective_begin(opts, kind, 0, &w) != CT_OK || !w) return NULL;
    ct_result res = ct__dist_check_tensor(t, "tensor");
    if (res == CT_OK && (tag < 0 || tag > CT__DIST_MAX_TAG))
        res = ct__dist_fail(CT_ERR_VALUE, "tag must be in [0, %d] with the %s backend, but got %d", CT__DIST_MAX_TAG,
                            w->group->backend->name, tag);
    if (res == CT_OK && peer < 0) w->op.peer = -1;
    else if (res == CT_OK) res = ct__dist_group_rank_of(w, peer, &w->op.peer);
    if (res == CT_OK) res = ct__dist_in_place(w, (ct_tensor *)t);
    w->op.tag = tag;
    if (res != CT_OK) { /* a point-to-point error stays on its rank, as in PyTorch */
        ct__work_end(w, res, ct_last_error());
        ct_work_free(w);
        return NULL;
    }
    return w;
}

ct_result ct_dist_send(const ct_tensor *tensor, int dst, int tag, ct_dist_opts opts)
{
    ct_work *w = ct__dist_p2p_begin(opts, CT__DIST_SEND, tensor, dst, tag);
    if (!w) return ct_last_error_code();
    return ct__work_finish_call(w, ct__work_start(w) == CT_OK ? opts.async_op : NULL);
}

int ct_dist_recv(ct_tensor *tensor, int src, int tag, ct_dist_opts opts)
{
    ct_work *w = ct__dist_p2p_begin(opts, CT__DIST_RECV, tensor, src, tag);
    if (!w) return ct_last_error_code() == CT_OK ? (opts.async_op ? 0 : -1) : -1;
    bool started = ct__work_start(w) == CT_OK;
    if (opts.async_op && started) return ct__work_finish_call(w, opts.async_op) == CT_OK ? 0 : -1;
    ct_result res = ct_work_wait(w);
    int sender = res == CT_OK ? w->group->global[w->source] : -1;
    char msg[1536];
    if (res != CT_OK) snprintf(msg, sizeof msg, "%s", ct_last_error());
    ct_work_free(w);
    if (res != CT_OK) ct_set_error(res, msg);
    return sender;
}
