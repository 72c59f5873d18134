/* Work: one operation's life. It first exchanges fingerprints (a
 * collective's among the group, a send's with its receiver), so that a
 * mismatch fails on every rank; then posts the data operation, or, when the
 * data travelled inline with the fingerprints, reduces or copies it here;
 * then does what follows (copies out of a flat buffer, AVG's division). Each step
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

static bool ct__dist_is_p2p(ct__dist_kind kind) { return kind == CT__DIST_SEND || kind == CT__DIST_RECV; }

/* The most data a collective of g carries inline: none where the backend
 * works on device memory (NCCL), whose data the host does not touch. */
static int64_t ct__dist_inline_cap(const ct_process_group *g)
{
    return g->backend->on_device ? 0 : CT__DIST_INLINE_BYTES;
}

/* A block of `bytes` for a work: the group's spare one when it is large
 * enough (a synchronous call's block then comes back to it every time,
 * which spares the allocator the tens of KiB of the inline slots). */
static ct_work *ct__work_block(ct_process_group *g, size_t bytes)
{
    ct_work *w = g->spare;
    if (w && w->block_bytes >= bytes) {
        g->spare = NULL;
        bytes = w->block_bytes;
    } else if (!(w = (ct_work *)ct__dist_alloc(bytes)))
        return NULL;
    memset(w, 0, sizeof *w);
    w->block_bytes = bytes;
    return w;
}

/* A work, with its buffers in one block after it: this rank's fingerprint
 * and room for its inline data; the slots it receives (a collective's from
 * every member, each as long as the longest fingerprint, all_to_all's, plus
 * the inline data; a recv's from its sender); the exchange's requests. */
static ct_work *ct__work_new(ct_process_group *g, ct__dist_kind kind, int fp_len)
{
    bool p2p = ct__dist_is_p2p(kind);
    int inline_len = p2p ? 0 : (int)(ct__dist_inline_cap(g) / (int64_t)sizeof(int64_t));
    int slot_len = p2p ? fp_len : CT__FP_COUNTS + 2 * g->size + inline_len;
    int n_slots = p2p ? 1 : g->size, n_exchange = p2p ? 1 : 2 * (g->size - 1);
    size_t head = (sizeof(ct_work) + sizeof(int64_t) - 1) / sizeof(int64_t) * sizeof(int64_t);
    size_t words = (size_t)(fp_len + inline_len) + (size_t)n_slots * (size_t)slot_len;
    ct_work *w = ct__work_block(g, head + words * sizeof(int64_t) + (size_t)n_exchange * sizeof(void *));
    if (!w) return NULL;
    int64_t *fp = (int64_t *)((char *)w + head);
    memset(fp, 0, (size_t)fp_len * sizeof *fp);
    w->exchange = (void **)(fp + words);
    memset(w->exchange, 0, (size_t)n_exchange * sizeof(void *));
    w->n_exchange = n_exchange;
    w->slot_len = slot_len;
    w->group = g;
    w->op.kind = kind;
    w->op.root = -1;
    w->source = -1;
    w->fp_len = fp_len;
    w->fp = fp;
    w->all_fp = fp + fp_len + inline_len;
    w->fp[CT__FP_KIND] = kind;
    w->fp[CT__FP_ROOT] = -1;
    w->seq = ++g->seq;
    return w;
}

/* The fingerprint of the tensor a collective is about. */
static void ct__work_fingerprint(ct_work *w, const ct_tensor *t)
{
    int ndim = ct_dim(t); /* not ct_shape_of, whose copy of every dimension a small all_reduce felt */
    w->fp[CT__FP_DEVICE] = ct_device_of(t).type;
    w->fp[CT__FP_DTYPE] = ct_dtype_of(t);
    w->fp[CT__FP_NDIM] = ndim;
    for (int d = 0; d < ndim; d++) w->fp[CT__FP_SIZES + d] = ct_size(t, d);
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
            n += (size_t)snprintf(buf + n, cap - n, "], TensorDtypes=%s, TensorDeviceTypes=%s",
                                  ct__dist_scalar_type(fp[CT__FP_DTYPE]), fp[CT__FP_DEVICE] == CT_DEVICE_CUDA ? "cuda" : "cpu");
    }
    if (fp[CT__FP_ROOT] >= 0 && n < cap) n += (size_t)snprintf(buf + n, cap - n, ", RootRank=%lld", (long long)fp[CT__FP_ROOT]);
    if (n < cap) snprintf(buf + n, cap - n, ")");
}

/* Member r's fingerprint, and the data it sent inline after it. */
static const int64_t *ct__work_fp_of(const ct_work *w, int r)
{
    return r == w->group->rank ? w->fp : w->all_fp + (size_t)r * (size_t)w->slot_len;
}

static const char *ct__work_inline_of(const ct_work *w, int r) { return (const char *)(ct__work_fp_of(w, r) + w->fp_len); }

/* all_to_all: what rank i sends rank j must be what j expects from i. */
static bool ct__dist_all_to_all_agrees(const ct_work *w, char *msg, size_t cap)
{
    int n = w->group->size;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int64_t sent = ct__work_fp_of(w, i)[CT__FP_COUNTS + j];
            int64_t expected = ct__work_fp_of(w, j)[CT__FP_COUNTS + n + i];
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
        const int64_t *other = ct__work_fp_of(w, r);
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
        if (!ct__work_fp_of(w, r)[CT__FP_SYNC]) w->op.blocking = false;
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

/* out[i] = a[i] op b[i], as MPI's predefined operations compute it:
 * integers wrap (the arithmetic is done unsigned, U), MIN and MAX keep a[i]
 * unless b[i] compares below or above it. out may be a. */
#define CT__DIST_FOLD(T, U)                                                                                  \
    do {                                                                                                     \
        T *o = (T *)out;                                                                                     \
        const T *x = (const T *)a, *y = (const T *)b;                                                        \
        switch (op) {                                                                                        \
        case CT_REDUCE_PRODUCT: for (int64_t i = 0; i < n; i++) o[i] = (T)((U)x[i] * (U)y[i]); break;      \
        case CT_REDUCE_MIN: for (int64_t i = 0; i < n; i++) o[i] = x[i] < y[i] ? x[i] : y[i]; break;       \
        case CT_REDUCE_MAX: for (int64_t i = 0; i < n; i++) o[i] = x[i] > y[i] ? x[i] : y[i]; break;       \
        default: for (int64_t i = 0; i < n; i++) o[i] = (T)((U)x[i] + (U)y[i]); break;                      \
        }                                                                                                    \
    } while (0)

/* One step of a reduction done on this rank. Booleans are logical, as
 * ct__dist_set_reduction promised: SUM and MAX are OR, PRODUCT and MIN AND. */
static void ct__dist_fold(void *out, const void *a, const void *b, int64_t n, ct_dtype dtype, ct_reduce_op op)
{
    switch (dtype) {
    case CT_BOOL: {
        bool all = op == CT_REDUCE_PRODUCT || op == CT_REDUCE_MIN;
        uint8_t *o = (uint8_t *)out;
        const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
        for (int64_t i = 0; i < n; i++) o[i] = all ? x[i] & y[i] : x[i] | y[i];
        break;
    }
    case CT_U8: CT__DIST_FOLD(uint8_t, uint32_t); break;
    case CT_I8: CT__DIST_FOLD(int8_t, uint32_t); break;
    case CT_I16: CT__DIST_FOLD(int16_t, uint32_t); break;
    case CT_I32: CT__DIST_FOLD(int32_t, uint32_t); break;
    case CT_I64: CT__DIST_FOLD(int64_t, uint64_t); break;
    case CT_F32: CT__DIST_FOLD(float, float); break;
    case CT_F64: CT__DIST_FOLD(double, double); break;
    default: break; /* half types were refused before posting */
    }
}
#undef CT__DIST_FOLD

/* The bytes of w's data in each message: its tensor's, none for a barrier
 * (computed from the fingerprint, which every agreeing rank shares). */
static int64_t ct__work_data_bytes(const ct_work *w)
{
    if (w->fp[CT__FP_KIND] == CT__DIST_BARRIER) return 0;
    int64_t numel = 1;
    for (int64_t d = 0; d < w->fp[CT__FP_NDIM]; d++) numel *= w->fp[CT__FP_SIZES + d];
    return numel * (int64_t)ct_dtype_size((ct_dtype)w->fp[CT__FP_DTYPE]);
}

/* Whether w's data travels with its fingerprint: a collective that each
 * member completes from the messages of the others, on host tensors of at
 * most CT__DIST_INLINE_BYTES, unless the fingerprint would push an eager
 * message over the limit (above). scatter, reduce_scatter and all_to_all,
 * which send each member a different part, go the two-step way. */
static bool ct__work_goes_inline(const ct_work *w, int64_t bytes)
{
    int64_t cap = ct__dist_inline_cap(w->group), message = w->fp_len * (int64_t)sizeof *w->fp + bytes;
    if (bytes <= CT__DIST_EAGER_BYTES && message > CT__DIST_EAGER_BYTES) return false;
    switch (w->fp[CT__FP_KIND]) {
    case CT__DIST_BARRIER: return cap > 0;
    case CT__DIST_ALLREDUCE:
    case CT__DIST_BROADCAST:
    case CT__DIST_REDUCE:
    case CT__DIST_ALLGATHER:
    case CT__DIST__ALLGATHER_BASE:
    case CT__DIST_GATHER: return w->fp[CT__FP_DEVICE] == CT_DEVICE_CPU && bytes <= cap;
    default: return false;
    }
}

/* Whether member `to` needs this rank's inline data. */
static bool ct__work_sends_inline_to(const ct_work *w, int to)
{
    switch (w->op.kind) {
    case CT__DIST_BROADCAST: return w->op.root == w->group->rank;
    case CT__DIST_REDUCE:
    case CT__DIST_GATHER: return to == w->op.root;
    default: return true;
    }
}

/* An inline operation's data step, done here from the members' data: each
 * rank folds or copies them in rank order, so every rank gets the same bits. */
static void ct__work_complete_inline(ct_work *w)
{
    const ct_process_group *g = w->group;
    size_t bytes = (size_t)w->inline_bytes;
    char *out = (char *)w->op.recv;
    bool root = w->op.root == g->rank;
    if (bytes == 0) return;
    switch (w->op.kind) {
    case CT__DIST_ALLREDUCE:
    case CT__DIST_REDUCE:
        if (w->op.kind == CT__DIST_REDUCE && !root) break;
        if (g->size == 1) memcpy(out, ct__work_inline_of(w, 0), bytes);
        for (int r = 1; r < g->size; r++)
            ct__dist_fold(out, r == 1 ? ct__work_inline_of(w, 0) : out, ct__work_inline_of(w, r), w->op.count,
                          w->op.dtype, w->op.op);
        break;
    case CT__DIST_BROADCAST:
        if (!root) memcpy(out, ct__work_inline_of(w, w->op.root), bytes);
        break;
    case CT__DIST_ALLGATHER:
    case CT__DIST__ALLGATHER_BASE:
    case CT__DIST_GATHER:
        if (w->op.kind == CT__DIST_GATHER && !root) break;
        for (int r = 0; r < g->size; r++) memcpy(out + (size_t)r * bytes, ct__work_inline_of(w, r), bytes);
        break;
    default: break;
    }
}

/* The data arrived: AVG's division, the copies out of a flat buffer. */
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
    if (w->inline_data) {
        ct__work_complete_inline(w);
        ct__work_data_done(w);
    } else if (ct__work_post_data(w) != CT_OK)
        ct__work_end(w, ct_last_error_code(), ct_last_error());
}

static bool ct__work_done(const ct_work *w) { return w->stage == CT__WORK_DONE && !w->request; }

/* A failure while some of w's requests are still out: kept, and reported
 * once they all finished, since their buffers must live until then. */
static void ct__work_note_failure(ct_work *w, ct_result code, const char *message)
{
    if (w->status != CT_OK) return;
    w->status = code;
    w->error = ct__dist_strdup(message);
}

/* Tests the exchange's requests; whether every one of them finished. */
static bool ct__work_exchanged(ct_work *w)
{
    for (int i = 0; i < w->n_exchange; i++) {
        if (!w->exchange[i]) continue;
        int source = -1;
        int done = w->group->backend->test(w->exchange[i], &source);
        if (done == 0) return false;
        w->exchange[i] = NULL;
        if (done < 0) ct__work_note_failure(w, (ct_result)done, ct_last_error());
        else if (w->op.kind == CT__DIST_RECV) w->source = source;
    }
    return true;
}

/* Moves w on as far as it goes without blocking. The data is posted (or,
 * inline, taken from the fingerprints' messages) only when `turn` (every
 * earlier work of the group posted its own): each rank then posts the data
 * operations in the order the program started them, as MPI needs for
 * collectives and for pairing messages. */
static void ct__work_step(ct_work *w, bool turn)
{
    if (w->stage == CT__WORK_FINGERPRINT) {
        if (!w->fingerprinted && !(w->fingerprinted = ct__work_exchanged(w))) return;
        if (w->status != CT_OK) w->stage = CT__WORK_DONE; /* the failure ct__work_note_failure kept */
        else if (turn) ct__work_fingerprinted(w);
        return;
    }
    if (!w->request) return;
    int source = -1;
    int done = w->group->backend->test(w->request, &source);
    if (done == 0) return;
    w->request = NULL;
    if (done < 0) ct__work_end(w, (ct_result)done, ct_last_error());
    else if (w->stage == CT__WORK_DATA) ct__work_data_done(w);
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

/* Collectives' exchanges use tag 0 of the control communicator; send's and
 * recv's use 2 tag + 1 there (and 2 tag for their data on the other). */
#define CT__DIST_EXCHANGE_TAG 0

/* Posts the fingerprint exchange on the group's control communicator: a
 * collective's with every other member (receives first, then sends, with
 * the inline data where it goes), send's and recv's with the peer. Messages
 * between two ranks with one tag arrive in order, so the k-th exchange of
 * each rank meets the k-th of the others. */
static ct_result ct__work_post_exchange(ct_work *w)
{
    ct_process_group *g = w->group;
    ct__dist_op x;
    memset(&x, 0, sizeof x);
    x.dtype = CT_U8;
    x.root = -1;
    x.send = w->fp;
    if (ct__dist_is_p2p(w->op.kind)) {
        x.kind = w->op.kind;
        x.peer = w->op.peer;
        x.tag = 2 * w->op.tag + 1;
        x.recv = w->all_fp;
        x.count = w->fp_len * (int64_t)sizeof *w->fp;
        return g->backend->post(g->control, &x, &w->exchange[0]);
    }
    x.tag = CT__DIST_EXCHANGE_TAG;
    int64_t fp_bytes = w->fp_len * (int64_t)sizeof *w->fp;
    ct_result res = CT_OK;
    for (int i = 1; i < g->size && res == CT_OK; i++) {
        x.kind = CT__DIST_RECV;
        x.peer = (g->rank + g->size - i) % g->size;
        x.recv = w->all_fp + (size_t)x.peer * (size_t)w->slot_len;
        x.count = w->slot_len * (int64_t)sizeof *w->fp;
        res = g->backend->post(g->control, &x, &w->exchange[i - 1]);
    }
    for (int i = 1; i < g->size && res == CT_OK; i++) {
        x.kind = CT__DIST_SEND;
        x.peer = (g->rank + i) % g->size;
        x.count = fp_bytes + (ct__work_sends_inline_to(w, x.peer) ? w->inline_bytes : 0);
        res = g->backend->post(g->control, &x, &w->exchange[g->size - 2 + i]);
    }
    return res;
}

/* Starts the work: its inline data is copied after its fingerprint, the
 * exchange is posted, and the work joins its group's pending list. */
static ct_result ct__work_start(ct_work *w)
{
    int64_t bytes = ct__work_data_bytes(w);
    w->inline_data = ct__work_goes_inline(w, bytes);
    w->inline_bytes = w->inline_data ? bytes : 0;
    if (w->inline_bytes > 0) memcpy(w->fp + w->fp_len, w->op.send, (size_t)w->inline_bytes);
    ct_work **link = &w->group->pending;
    while (*link) link = &(*link)->next_pending;
    *link = w;
    ct_result res = ct__work_post_exchange(w);
    if (res != CT_OK) ct__work_note_failure(w, res, ct_last_error());
    return res;
}

static const char *ct__work_name(const ct_work *w) { return ct__dist_kind_names[w->op.kind]; }

ct_result ct_work_wait(ct_work *w)
{
    if (!w) return ct__dist_fail(CT_ERR_TYPE, "wait(): argument 'self' must be Work, not NULL");
    const ct__dist_backend *b = w->group->backend;
    for (unsigned polls = 1; !ct__work_progress(w); polls++) {
        if (b->idle) b->idle(w->group->comm, 1e-3);
        else if (polls % 16 != 0) continue; /* a busy wait: reading the clock costs about what a poll of MPI does */
        if (w->started == 0) w->started = ct__dist_seconds(); /* a synchronous call's, at its first look */
        double ran = ct__dist_seconds() - w->started;
        if (ran > w->group->timeout)
            return ct__dist_fail(CT_ERR_RUNTIME,
                                 "[Rank %d] Watchdog caught collective operation timeout: %s(SeqNum=%lld, "
                                 "OpType=%s, Timeout(ms)=%.0f) ran for %.0f milliseconds before timing out.",
                                 w->group->global[w->group->rank], b->work_name, (long long)w->seq,
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
    ct_process_group *g = w->group;
    if (!g->spare) g->spare = w;
    else CT_FREE(w);
}

/* A synchronous call waits and frees; an async one hands the work out. */
static ct_result ct__work_finish_call(ct_work *w, ct_work **async_op)
{
    if (async_op) {
        w->started = ct__dist_seconds();
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
