/* Work: one operation's life. It first exchanges fingerprints (a
 * collective's among the group, a send's with its receiver), so that a
 * mismatch fails on every rank; then posts the data operation; then does
 * what follows it (copies out of a flat buffer, AVG's division). Each step
 * is started by whichever call finds the previous one completed (a test, a
 * wait, the next collective's hook in DDP), so nothing here blocks except
 * wait. */

static double ct__dist_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *const ct__dist_kind_names[] = {
#define CT__DIST_KIND_NAME(name) #name,
    CT__DIST_KINDS(CT__DIST_KIND_NAME)
#undef CT__DIST_KIND_NAME
};

/* c10's ScalarType names, which PyTorch's fingerprints print. */
static const char *ct__dist_scalar_type(int64_t dtype)
{
    static const char *const names[CT_NUM_DTYPES] = {"Undefined", "Bool",  "Byte",     "Char",  "Short", "Int",
                                                     "Long",      "Half",  "BFloat16", "Float", "Double"};
    return dtype >= 0 && dtype < CT_NUM_DTYPES ? names[dtype] : "Undefined";
}

static ct_work *ct__work_new(ct_process_group *g, ct__dist_kind kind, int fp_len)
{
    ct_work *w = (ct_work *)ct__dist_alloc(sizeof *w);
    int64_t *fp = w ? (int64_t *)ct__dist_alloc((size_t)fp_len * (size_t)(g->size + 1) * sizeof *fp) : NULL;
    if (!fp) {
        CT_FREE(w);
        return NULL;
    }
    memset(w, 0, sizeof *w);
    memset(fp, 0, (size_t)fp_len * (size_t)(g->size + 1) * sizeof *fp);
    w->group = g;
    w->op.kind = kind;
    w->op.root = -1;
    w->source = -1;
    w->fp_len = fp_len;
    w->fp = fp;
    w->all_fp = fp + fp_len;
    w->fp[CT__FP_KIND] = kind;
    w->fp[CT__FP_ROOT] = -1;
    w->seq = ++g->seq;
    return w;
}

/* The fingerprint of the tensor a collective is about. */
static void ct__work_fingerprint(ct_work *w, const ct_tensor *t)
{
    ct_shape s = ct_shape_of(t);
    w->fp[CT__FP_DTYPE] = ct_dtype_of(t);
    w->fp[CT__FP_NDIM] = s.ndim;
    for (int d = 0; d < s.ndim; d++) w->fp[CT__FP_SIZES + d] = s.size[d];
}

/* Keeps t alive until the work is freed: the caller may drop its reference
 * while an async operation still reads or writes it. */
static ct_result ct__work_hold(ct_work *w, const ct_tensor *t)
{
    if (w->group->backend->on_device && ct_device_of(t).type != CT_DEVICE_CUDA)
        return ct__dist_fail(CT_ERR_RUNTIME, "Tensors must be CUDA and dense");
    ct_tensor **held = (ct_tensor **)CT_REALLOC(w->held, (size_t)(w->n_held + 1) * sizeof *held);
    if (!held) return ct__dist_oom();
    w->held = held;
    w->held[w->n_held++] = ct_retain((ct_tensor *)t);
    return CT_OK;
}

static ct_result ct__work_copy(ct_work *w, void *dst, const void *src, size_t bytes)
{
    ct__dist_copy *copies = (ct__dist_copy *)CT_REALLOC(w->copies, (size_t)(w->n_copies + 1) * sizeof *copies);
    if (!copies) return ct__dist_oom();
    w->copies = copies;
    w->copies[w->n_copies].dst = dst;
    w->copies[w->n_copies].src = src;
    w->copies[w->n_copies].bytes = bytes;
    w->n_copies++;
    return CT_OK;
}

/* A copy into the flat buffer, before the operation is posted. */
static ct_result ct__work_copy_in(ct_work *w, void *dst, const void *src, size_t bytes)
{
    ct_result res = ct__work_copy(w, dst, src, bytes);
    if (res == CT_OK) w->n_before = w->n_copies;
    return res;
}

/* A flat buffer of `bytes` for the operation, on like's device, so that
 * the backend sees one kind of memory (NCCL's is the GPU's); the work
 * holds it. */
static ct_result ct__work_scratch(ct_work *w, size_t bytes, const ct_tensor *like, char **out)
{
    ct_scope s = ct_scope_begin();
    ct_device_guard g = ct_device_guard_begin(ct_device_of(like));
    ct_tensor *t = ct_empty(CT_SHAPE((int64_t)bytes), CT_U8);
    ct_device_guard_end(g);
    ct_result res = t ? ct__work_hold(w, t) : ct_last_error_code();
    *out = res == CT_OK ? (char *)ct_data_ptr(t) : NULL;
    ct_scope_end(s);
    return res;
}

/* Before the host reads or writes device memory (the copies into a flat
 * buffer; a backend that works on the host), every kernel queued on the
 * held tensors' devices has to finish. */
static ct_result ct__work_sync_devices(const ct_work *w)
{
    ct_device done = CT_CPU;
    ct_result res = CT_OK;
    for (int i = 0; i < w->n_held && res == CT_OK; i++) {
        ct_device d = ct_device_of(w->held[i]);
        if (d.type != CT_DEVICE_CPU && !ct_device_equal(d, done)) res = ct_synchronize(done = d);
    }
    return res;
}

/* The work ends with `status`; the message is kept for every wait. */
static void ct__work_end(ct_work *w, ct_result status, const char *message)
{
    w->stage = CT__WORK_DONE;
    w->status = status;
    if (status != CT_OK && !w->error) w->error = ct__dist_strdup(message);
}

/* "CollectiveFingerPrint(OpType=ALLREDUCE, TensorShape=[20, 10], ...)" */
static void ct__dist_fingerprint_str(const int64_t *fp, char *buf, size_t cap)
{
    int64_t kind = fp[CT__FP_KIND];
    const char *name = kind >= 0 && kind < CT__DIST_NUM_KINDS ? ct__dist_kind_names[kind] : "UNKNOWN";
    size_t n = (size_t)snprintf(buf, cap, "CollectiveFingerPrint(OpType=%s", name);
    if (kind != CT__DIST_BARRIER && n < cap) {
        n += (size_t)snprintf(buf + n, cap - n, ", TensorShape=[");
        for (int64_t d = 0; d < fp[CT__FP_NDIM] && d < CT_MAX_DIMS && n < cap; d++)
            n += (size_t)snprintf(buf + n, cap - n, d ? ", %lld" : "%lld", (long long)fp[CT__FP_SIZES + d]);
        if (n < cap)
            n += (size_t)snprintf(buf + n, cap - n, "], TensorDtypes=%s, TensorDeviceTypes=cpu",
                                  ct__dist_scalar_type(fp[CT__FP_DTYPE]));
    }
    if (fp[CT__FP_ROOT] >= 0 && n < cap) n += (size_t)snprintf(buf + n, cap - n, ", RootRank=%lld", (long long)fp[CT__FP_ROOT]);
    if (n < cap) snprintf(buf + n, cap - n, ")");
}

/* all_to_all: what rank i sends rank j must be what j expects from i. */
static bool ct__dist_all_to_all_agrees(const ct_work *w, char *msg, size_t cap)
{
    int n = w->group->size;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int64_t sent = w->all_fp[(size_t)i * (size_t)w->fp_len + CT__FP_COUNTS + j];
            int64_t expected = w->all_fp[(size_t)j * (size_t)w->fp_len + CT__FP_COUNTS + n + i];
            if (sent != expected) {
                snprintf(msg, cap,
                         "Detected mismatch between collectives on ranks. Rank %d sends %lld elements to rank %d in "
                         "ALLTOALL, but Rank %d expects %lld from it.",
                         w->group->global[i], (long long)sent, w->group->global[j], w->group->global[j],
                         (long long)expected);
                return false;
            }
        }
    return true;
}

/* After the exchange: whether every rank runs the same collective. The
 * message is the same on every rank but for the rank it names first (this
 * one), as PyTorch's ProcessGroupWrapper words it. */
static bool ct__dist_fingerprints_agree(ct_work *w, char *msg, size_t cap)
{
    const ct_process_group *g = w->group;
    for (int r = 0; r < g->size; r++) {
        const int64_t *other = w->all_fp + (size_t)r * (size_t)w->fp_len;
        if (other[CT__FP_KIND] == CT__FP_INVALID) {
            snprintf(msg, cap, "Rank %d failed the argument checks of %s; see the error on that rank", g->global[r],
                     ct__dist_kind_names[w->fp[CT__FP_KIND]]);
            return false;
        }
        if (memcmp(other, w->fp, CT__FP_FIXED * sizeof *other) != 0) {
            char mine[512], theirs[512];
            ct__dist_fingerprint_str(w->fp, mine, sizeof mine);
            ct__dist_fingerprint_str(other, theirs, sizeof theirs);
            snprintf(msg, cap,
                     "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d "
                     "is running collective: %s.",
                     g->global[g->rank], mine, g->global[r], theirs);
            return false;
        }
    }
    if (w->op.kind == CT__DIST_ALLTOALL && !ct__dist_all_to_all_agrees(w, msg, cap)) return false;
    /* MPI matches a blocking collective only with blocking ones: the data
     * goes the blocking way when every rank waits for it */
    w->op.blocking = true;
    for (int r = 0; r < g->size; r++)
        if (!w->all_fp[(size_t)r * (size_t)w->fp_len + CT__FP_SYNC]) w->op.blocking = false;
    return true;
}

/* A receive's check: the sender's tensor must be the one being filled. */
static bool ct__dist_p2p_agrees(ct_work *w, char *msg, size_t cap)
{
    const int64_t *sent = w->all_fp;
    if (memcmp(sent + CT__FP_DTYPE, w->fp + CT__FP_DTYPE, (CT__FP_FIXED - CT__FP_DTYPE) * sizeof *sent) == 0) return true;
    char mine[512], theirs[512];
    ct__dist_fingerprint_str(w->fp, mine, sizeof mine);
    ct__dist_fingerprint_str(sent, theirs, sizeof theirs);
    snprintf(msg, cap, "Detected mismatch between send and recv. Rank %d is running: %s, but Rank %d sent: %s.",
             w->group->global[w->group->rank], mine, w->group->global[w->source], theirs);
    return false;
}

/* Drains a mismatched message into a scratch buffer so the sender completes. */
static ct_result ct__dist_recv_drain(ct_work *w)
{
    int64_t numel = 1;
    for (int64_t d = 0; d < w->all_fp[CT__FP_NDIM]; d++) numel *= w->all_fp[CT__FP_SIZES + d];
    size_t bytes = (size_t)numel * ct_dtype_size((ct_dtype)w->all_fp[CT__FP_DTYPE]);
    char *drain;
    if (ct__work_scratch(w, bytes, w->held[0], &drain) != CT_OK) return ct_last_error_code();
    w->op.recv = drain;
    w->op.count = (int64_t)bytes;
    w->op.dtype = CT_U8;
    return w->group->backend->post(w->group->comm, &w->op, &w->request);
}

static ct_result ct__work_post_data(ct_work *w)
{
    if ((w->n_before > 0 || !w->group->backend->on_device) && ct__work_sync_devices(w) != CT_OK)
        return ct_last_error_code();
    for (int i = 0; i < w->n_before; i++) memcpy(w->copies[i].dst, w->copies[i].src, w->copies[i].bytes);
    w->stage = CT__WORK_DATA;
    return w->group->backend->post(w->group->comm, &w->op, &w->request);
}

/* The fingerprints arrived: post the data, or fail on every rank. */
static void ct__work_fingerprinted(ct_work *w)
{
    char msg[1536];
    bool agree;
    if (w->own_error) {
        ct__work_end(w, w->own_code, w->own_error);
        return;
    }
    if (w->op.kind == CT__DIST_SEND) agree = true; /* the receiver checks */
    else if (w->op.kind == CT__DIST_RECV) {
        w->op.peer = w->source;
        agree = ct__dist_p2p_agrees(w, msg, sizeof msg);
        if (!agree) { /* failed, but the message still has to be taken off the wire */
            ct__work_end(w, CT_ERR_RUNTIME, msg);
            if (ct__dist_recv_drain(w) == CT_OK) w->stage = CT__WORK_DATA;
            return;
        }
    } else
        agree = ct__dist_fingerprints_agree(w, msg, sizeof msg);
    if (!agree) {
        ct__work_end(w, CT_ERR_RUNTIME, msg);
        return;
    }
    if (ct__work_post_data(w) != CT_OK) ct__work_end(w, ct_last_error_code(), ct_last_error());
}

/* AVG: the sum divided by the group's size, in the tensor's dtype. */
static void ct__dist_divide(void *data, int64_t n, ct_dtype dtype, int64_t by)
{
    switch (dtype) {
    case CT_F32: for (int64_t i = 0; i < n; i++) ((float *)data)[i] /= (float)by; break;
    case CT_F64: for (int64_t i = 0; i < n; i++) ((double *)data)[i] /= (double)by; break;
    case CT_I64: for (int64_t i = 0; i < n; i++) ((int64_t *)data)[i] /= by; break;
    case CT_I32: for (int64_t i = 0; i < n; i++) ((int32_t *)data)[i] /= (int32_t)by; break;
    case CT_I16: for (int64_t i = 0; i < n; i++) ((int16_t *)data)[i] = (int16_t)(((int16_t *)data)[i] / by); break;
    case CT_I8: for (int64_t i = 0; i < n; i++) ((int8_t *)data)[i] = (int8_t)(((int8_t *)data)[i] / by); break;
    case CT_U8: for (int64_t i = 0; i < n; i++) ((uint8_t *)data)[i] = (uint8_t)(((uint8_t *)data)[i] / by); break;
    default: break; /* bool and half types were refused before posting */
    }
}

static void ct__work_data_done(ct_work *w)
{
    if (w->status != CT_OK) { /* a drained mismatched receive */
        w->stage = CT__WORK_DONE;
        return;
    }
    if (w->average) ct__dist_divide(w->op.recv, w->op.count, w->op.dtype, w->group->size);
    for (int i = w->n_before; i < w->n_copies; i++) memcpy(w->copies[i].dst, w->copies[i].src, w->copies[i].bytes);
    ct__work_end(w, CT_OK, "");
}

static bool ct__work_done(const ct_work *w) { return w->stage == CT__WORK_DONE && !w->request; }

/* Tests w's request; on completion, moves it to its next step. The data is
 * posted only when `turn` (every earlier work of the group posted its own):
 * each rank then posts the data operations in the order the program
 * started them, as MPI needs for collectives and for pairing messages. */
static void ct__work_step(ct_work *w, bool turn)
{
    if (w->request) {
        int source = -1;
        int done = w->group->backend->test(w->request, &source);
        if (done == 0) return;
        w->request = NULL;
        if (done < 0) {
            ct__work_end(w, (ct_result)done, ct_last_error());
            return;
        }
        if (w->stage == CT__WORK_FINGERPRINT) {
            w->fingerprinted = true;
            if (w->op.kind == CT__DIST_RECV) w->source = source;
        } else if (w->stage == CT__WORK_DATA)
            ct__work_data_done(w);
    }
    if (w->stage == CT__WORK_FINGERPRINT && w->fingerprinted && turn) ct__work_fingerprinted(w);
}

/* Moves every work of w's group on, oldest first, as far as each goes
 * without blocking; whether w is done. */
static bool ct__work_progress(ct_work *w)
{
    bool turn = true;
    for (ct_work *p = w->group->pending; p; p = p->next_pending) {
        if (!ct__work_done(p)) ct__work_step(p, turn);
        if (p->stage == CT__WORK_FINGERPRINT) turn = false;
    }
    return ct__work_done(w);
}

/* Starts the work: the fingerprint exchange is posted, and the work joins
 * its group's pending list. */
static ct_result ct__work_start(ct_work *w)
{
    ct__dist_op exchange;
    memset(&exchange, 0, sizeof exchange);
    exchange.dtype = CT_I64;
    exchange.count = w->fp_len;
    exchange.send = w->fp;
    exchange.recv = w->all_fp;
    exchange.root = -1;
    exchange.tag = 2 * w->op.tag + 1; /* the data uses 2 * tag */
    if (w->op.kind == CT__DIST_SEND || w->op.kind == CT__DIST_RECV) {
        exchange.kind = w->op.kind;
        exchange.peer = w->op.peer;
    } else
        exchange.kind = CT__DIST_ALLGATHER;
    w->started = ct__dist_seconds();
    ct_work **link = &w->group->pending;
    while (*link) link = &(*link)->next_pending;
    *link = w;
    ct_result res = w->group->backend->post(w->group->control, &exchange, &w->request);
    if (res != CT_OK) ct__work_end(w, res, ct_last_error());
    return res;
}

static const char *ct__work_name(const ct_work *w) { return ct__dist_kind_names[w->op.kind]; }

ct_result ct_work_wait(ct_work *w)
{
    if (!w) return ct__dist_fail(CT_ERR_TYPE, "wait(): argument 'self' must be Work, not NULL");
    while (!ct__work_progress(w)) {
        if (w->group->backend->idle) w->group->backend->idle(w->group->comm, 1e-3);
        double ran = ct__dist_seconds() - w->started;
        if (ran > w->group->timeout)
            return ct__dist_fail(CT_ERR_RUNTIME,
                                 "[Rank %d] Watchdog caught collective operation timeout: %s(SeqNum=%lld, "
                                 "OpType=%s, Timeout(ms)=%.0f) ran for %.0f milliseconds before timing out.",
                                 w->group->global[w->group->rank], w->group->backend->work_name, (long long)w->seq,
                                 ct__work_name(w), 1e3 * w->group->timeout, 1e3 * ran);
    }
    return w->status == CT_OK ? CT_OK : ct_set_error(w->status, w->error ? w->error : "");
}

bool ct_work_is_completed(ct_work *w)
{
    if (!w) return false;
    return ct__work_progress(w);
}

int ct_work_source_rank(const ct_work *w)
{
    if (!w || w->op.kind != CT__DIST_RECV || w->stage != CT__WORK_DONE || w->source < 0) {
        ct__dist_fail(CT_ERR_RUNTIME, "sourceRank() may only be called on a completed recv work");
        return -1;
    }
    return w->group->global[w->source];
}

void ct_work_free(ct_work *w)
{
    if (!w) return;
    if (!ct__work_done(w)) {
        ct_result pending = ct_last_error_code();
        if (ct_work_wait(w) != CT_OK && pending == CT_OK) ct_clear_error(); /* freeing reports nothing */
    }
    bool finished = ct__work_done(w);
    ct_work **link = &w->group->pending;
    while (*link && *link != w) link = &(*link)->next_pending;
    if (*link) *link = w->next_pending;
    if (!finished) return; /* timed out: the backend may still write into its buffers, so they stay */
    for (int i = 0; i < w->n_held; i++) ct_release(w->held[i]);
    CT_FREE(w->held);
    CT_FREE(w->copies);
    CT_FREE(w->counts);
    CT_FREE(w->own_error);
    CT_FREE(w->error);
    CT_FREE(w->fp);
    CT_FREE(w);
}

/* A synchronous call waits and frees; an async one hands the work out. */
static ct_result ct__work_finish_call(ct_work *w, ct_work **async_op)
{
    if (async_op) {
        *async_op = w;
        ct__work_progress(w);
        return CT_OK;
    }
    ct_result res = ct_work_wait(w);
    char msg[1536];
    if (res != CT_OK) snprintf(msg, sizeof msg, "%s", ct_last_error());
    ct_work_free(w);
    if (res != CT_OK) ct_set_error(res, msg);
    return res;
}
