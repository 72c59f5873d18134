/* The nccl backend (CTORCH_DIST_NCCL; the CUDA build, linked with -lnccl
 * -lcudart): collectives on CUDA tensors run as NCCL calls on a stream of
 * the communicator's own, after the work already queued on the device, as
 * ProcessGroupNCCL runs them. A request is an event recorded after the call.
 *
 * Each communicator also holds one of the TCP transport (the gloo
 * backend's), which makes the rendezvous, passes NCCL's unique id and
 * carries what has no device memory: the fingerprints every collective
 * exchanges first, and barrier. The NCCL communicator itself is made at the
 * first operation on device memory, on that memory's GPU, as PyTorch makes
 * it lazily; the group then works on that one GPU. */
#ifdef CTORCH_DIST_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>

typedef struct ct__nccl_comm {
    ct__tcp_comm *host;
    ncclComm_t nccl; /* NULL until the first operation on device memory */
    int device;      /* the GPU of nccl and stream */
    cudaStream_t stream;
} ct__nccl_comm;

/* An operation in flight: on the TCP transport, or on the stream until `done`. */
typedef struct ct__nccl_request {
    void *host;
    cudaEvent_t done;
    int device, peer;
} ct__nccl_request;

static ct_result ct__nccl_fail(ncclResult_t rc)
{
    int v = 0;
    ncclGetVersion(&v);
    return ct__dist_fail(CT_ERR_RUNTIME, "NCCL error: %s, NCCL version %d.%d.%d", ncclGetErrorString(rc), v / 10000,
                         v / 100 % 100, v % 100);
}

static ct_result ct__nccl_cuda_fail(cudaError_t rc)
{
    cudaGetLastError(); /* clears the runtime's sticky error */
    return ct__dist_fail(CT_ERR_RUNTIME, "CUDA error: %s", cudaGetErrorString(rc));
}

#define CT__NCCL_TRY(call)                                                                                               \
    do {                                                                                                               \
        ncclResult_t ct__rc = (call);                                                                                  \
        if (ct__rc != ncclSuccess) return ct__nccl_fail(ct__rc);                                                       \
    } while (0)
#define CT__NCCL_CUDA_TRY(call)                                                                                          \
    do {                                                                                                               \
        cudaError_t ct__rc = (call);                                                                                   \
        if (ct__rc != cudaSuccess) return ct__nccl_cuda_fail(ct__rc);                                                  \
    } while (0)

/* The GPU whose memory p is, or -1 for host memory (pageable or pinned). */
static int ct__nccl_device_of(const void *p)
{
    struct cudaPointerAttributes a;
    if (!p || cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ? a.device : -1;
}

static ct__nccl_comm *ct__nccl_comm_new(ct__tcp_comm *host)
{
    ct__nccl_comm *c = (ct__nccl_comm *)ct__dist_alloc(sizeof *c);
    if (!c) {
        ct__tcp_free_comm(host);
        return NULL;
    }
    memset(c, 0, sizeof *c);
    c->host = host;
    c->device = -1;
    return c;
}

/* ProcessGroupNCCL refuses to start without a GPU; the rendezvous is the
 * TCP transport's, so env://, tcp:// and the launchers work as for gloo. */
static ct_result ct__nccl_init(const ct_dist_init_opts *opts, int *rank, int *size, void **world)
{
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
        cudaGetLastError();
        return ct__dist_fail(CT_ERR_RUNTIME, "ProcessGroupNCCL is only supported with GPUs, no GPUs found!");
    }
    void *host = NULL;
    ct_result res = ct__tcp_init(opts, rank, size, &host);
    if (res != CT_OK) return res;
    *world = ct__nccl_comm_new((ct__tcp_comm *)host);
    return *world ? CT_OK : ct_last_error_code();
}

static ct_result ct__nccl_split(void *parent, bool member, int key, void **comm)
{
    void *host = NULL;
    ct_result res = ct__tcp_split(((ct__nccl_comm *)parent)->host, member, key, &host);
    *comm = NULL;
    if (res != CT_OK || !host) return res;
    *comm = ct__nccl_comm_new((ct__tcp_comm *)host);
    return *comm ? CT_OK : ct_last_error_code();
}

static void ct__nccl_free_comm(void *comm)
{
    ct__nccl_comm *c = (ct__nccl_comm *)comm;
    if (c->nccl) {
        cudaSetDevice(c->device);
        ncclCommDestroy(c->nccl);
        cudaStreamDestroy(c->stream);
    }
    ct__tcp_free_comm(c->host);
    CT_FREE(c);
}

/* The NCCL communicator on `device`, made when first needed: rank 0's
 * unique id reaches every rank over the TCP transport (the calling thread
 * makes that exchange, as split does, so every rank makes it at the same
 * operation). */
static ct_result ct__nccl_connect(ct__nccl_comm *c, int device)
{
    if (c->nccl && c->device == device) return CT_OK;
    if (c->nccl)
        return ct__dist_fail(CT_ERR_RUNTIME,
                             "The nccl backend drives one GPU per group: this group works on cuda:%d, not cuda:%d",
                             c->device, device);
    ncclUniqueId id, *all = (ncclUniqueId *)ct__dist_alloc((size_t)c->host->size * sizeof id);
    char err[CT__TCP_ERROR_LEN];
    if (!all) return CT_ERR_MEMORY;
    memset(&id, 0, sizeof id);
    ncclResult_t rc = c->host->rank == 0 ? ncclGetUniqueId(&id) : ncclSuccess;
    bool sent = ct__tcp_patterned(c->host, CT__TCP_SETUP_TAG, CT__TCP_ALL_GATHER, -1, (const char *)&id, (char *)all,
                                  sizeof id, 0, err);
    id = all[0];
    CT_FREE(all);
    if (rc != ncclSuccess) return ct__nccl_fail(rc);
    if (!sent) return ct__dist_fail(CT_ERR_RUNTIME, "%s", err);
    CT__NCCL_CUDA_TRY(cudaSetDevice(device));
    CT__NCCL_CUDA_TRY(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    if ((rc = ncclCommInitRank(&c->nccl, c->host->size, id, c->host->rank)) != ncclSuccess) {
        cudaStreamDestroy(c->stream);
        c->nccl = NULL;
        return ct__nccl_fail(rc);
    }
    c->device = device;
    return CT_OK;
}

/* NCCL's element type for a reduction; bytes move as ncclUint8. */
static bool ct__nccl_type(ct_dtype dtype, ncclDataType_t *out)
{
    switch (dtype) {
    case CT_BOOL:
    case CT_U8: *out = ncclUint8; return true;
    case CT_I8: *out = ncclInt8; return true;
    case CT_I32: *out = ncclInt32; return true;
    case CT_I64: *out = ncclInt64; return true;
    case CT_F16: *out = ncclFloat16; return true;
    case CT_BF16: *out = ncclBfloat16; return true;
    case CT_F32: *out = ncclFloat32; return true;
    case CT_F64: *out = ncclFloat64; return true;
    default: return false;
    }
}

/* Booleans reduce logically: their sum is a max and their product a min,
 * as ProcessGroupNCCL maps them. */
static ncclRedOp_t ct__nccl_op(ct_reduce_op op, ct_dtype dtype)
{
    bool logical = dtype == CT_BOOL;
    switch (op) {
    case CT_REDUCE_AVG: return ncclAvg;
    case CT_REDUCE_PRODUCT: return logical ? ncclMin : ncclProd;
    case CT_REDUCE_MIN: return ncclMin;
    case CT_REDUCE_MAX: return ncclMax;
    default: return logical ? ncclMax : ncclSum;
    }
}

/* gather, scatter and all_to_all as grouped sends and receives (counts in
 * bytes; all_to_all's per peer, as the op carries them); this rank's own
 * part is a copy on the stream. */
static ct_result ct__nccl_exchange(ct__nccl_comm *c, const ct__dist_op *op, size_t elem)
{
    int n = c->host->size, r = c->host->rank;
    size_t bytes = (size_t)op->count * elem;
    const char *send = (const char *)op->send;
    char *recv = (char *)op->recv;
    ncclResult_t rc = ncclGroupStart();
    for (int i = 0; i < n && rc == ncclSuccess; i++) {
        size_t out = 0, in = 0, out_at = 0, in_at = 0;
        if (op->kind == CT__DIST_ALLTOALL) {
            const int64_t *v = op->all_to_all; /* scounts, sdispls, rcounts, rdispls */
            out = (size_t)v[i] * elem, out_at = (size_t)v[n + i] * elem;
            in = (size_t)v[2 * n + i] * elem, in_at = (size_t)v[3 * n + i] * elem;
        } else if (op->kind == CT__DIST_GATHER) {
            out = i == op->root ? bytes : 0;
            in = r == op->root ? bytes : 0, in_at = (size_t)i * bytes;
        } else { /* scatter */
            out = r == op->root ? bytes : 0, out_at = (size_t)i * bytes;
            in = i == op->root ? bytes : 0;
        }
        if (i == r) {
            if (in && cudaMemcpyAsync(recv + in_at, send + out_at, in, cudaMemcpyDefault, c->stream) != cudaSuccess)
                rc = ncclUnhandledCudaError;
            continue;
        }
        if (out) rc = ncclSend(send + out_at, out, ncclUint8, i, c->nccl, c->stream);
        if (in && rc == ncclSuccess) rc = ncclRecv(recv + in_at, in, ncclUint8, i, c->nccl, c->stream);
    }
    ncclResult_t ended = ncclGroupEnd(); /* always, to leave the group */
    if (rc == ncclSuccess) rc = ended;
    return rc == ncclSuccess ? CT_OK : ct__nccl_fail(rc);
}

/* The NCCL call of an operation on device memory, queued on c's stream. */
static ct_result ct__nccl_launch(ct__nccl_comm *c, const ct__dist_op *op)
{
    size_t elem = ct_dtype_size(op->dtype);
    size_t n = (size_t)op->count;
    ncclDataType_t type = ncclUint8;
    ncclRedOp_t rop = ct__nccl_op(op->op, op->dtype);
    bool reduces = op->kind == CT__DIST_ALLREDUCE || op->kind == CT__DIST_REDUCE || op->kind == CT__DIST_REDUCE_SCATTER;
    if (reduces && !ct__nccl_type(op->dtype, &type))
        return ct__dist_fail(CT_ERR_RUNTIME, "Unsupported data type for NCCL process group");
    if (!reduces) n *= elem; /* moved as bytes */
    ncclComm_t k = c->nccl;
    cudaStream_t s = c->stream;
    switch (op->kind) {
    case CT__DIST_BROADCAST: CT__NCCL_TRY(ncclBroadcast(op->recv, op->recv, n, type, op->root, k, s)); break;
    case CT__DIST_ALLREDUCE: CT__NCCL_TRY(ncclAllReduce(op->recv, op->recv, n, type, rop, k, s)); break;
    case CT__DIST_REDUCE: CT__NCCL_TRY(ncclReduce(op->send, op->recv, n, type, rop, op->root, k, s)); break;
    case CT__DIST_ALLGATHER:
    case CT__DIST__ALLGATHER_BASE: CT__NCCL_TRY(ncclAllGather(op->send, op->recv, n, type, k, s)); break;
    case CT__DIST_REDUCE_SCATTER: CT__NCCL_TRY(ncclReduceScatter(op->send, op->recv, n, type, rop, k, s)); break;
    case CT__DIST_SEND: CT__NCCL_TRY(ncclSend(op->send, n, type, op->peer, k, s)); break;
    case CT__DIST_RECV: CT__NCCL_TRY(ncclRecv(op->recv, n, type, op->peer, k, s)); break; /* peer: the fingerprint's sender */
    default: return ct__nccl_exchange(c, op, elem);
    }
    return CT_OK;
}

/* The GPU of the operation's buffers: -1 when none is device memory (the
 * fingerprints, barrier), which the TCP transport carries. The front end
 * gives device operations only CUDA tensors and flat buffers beside them. */
static ct_result ct__nccl_device_of_op(const ct__dist_op *op, int *device)
{
    int send = ct__nccl_device_of(op->send), recv = ct__nccl_device_of(op->recv);
    *device = send >= 0 ? send : recv;
    bool one_gpu = (!op->send || send == *device) && (!op->recv || recv == *device);
    if (*device >= 0 && !one_gpu) return ct__dist_fail(CT_ERR_RUNTIME, "Expected list of tensors on the same device");
    return CT_OK;
}

/* Device memory: the group's stream waits for what the device's current
 * stream has queued (the kernels that wrote the buffers, as
 * ProcessGroupNCCL's syncStreams), then runs the call. */
static ct_result ct__nccl_post_device(ct__nccl_comm *c, const ct__dist_op *op, int device, ct__nccl_request *r)
{
    ct_result res = ct__nccl_connect(c, device);
    if (res != CT_OK) return res;
    ct_stream current;
    void *writer = NULL;
    if ((res = ct_current_stream(CT_CUDA(device), &current)) != CT_OK || (res = ct_stream_handle(current, &writer)) != CT_OK)
        return res;
    cudaEvent_t ready;
    CT__NCCL_CUDA_TRY(cudaSetDevice(device));
    CT__NCCL_CUDA_TRY(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    cudaError_t rc = cudaEventRecord(ready, (cudaStream_t)writer);
    if (rc == cudaSuccess) rc = cudaStreamWaitEvent(c->stream, ready, 0);
    cudaEventDestroy(ready);
    if (rc != cudaSuccess) return ct__nccl_cuda_fail(rc);
    if ((res = ct__nccl_launch(c, op)) != CT_OK) return res;
    CT__NCCL_CUDA_TRY(cudaEventCreateWithFlags(&r->done, cudaEventDisableTiming));
    r->device = device, r->peer = op->peer;
    if ((rc = cudaEventRecord(r->done, c->stream)) != cudaSuccess) {
        cudaEventDestroy(r->done);
        return ct__nccl_cuda_fail(rc);
    }
    return CT_OK;
}

static ct_result ct__nccl_post(void *comm, const ct__dist_op *op, void **request)
{
    ct__nccl_comm *c = (ct__nccl_comm *)comm;
    ct__nccl_request *r = (ct__nccl_request *)ct__dist_alloc(sizeof *r);
    if (!r) return CT_ERR_MEMORY;
    memset(r, 0, sizeof *r);
    int device = -1;
    ct_result res = ct__nccl_device_of_op(op, &device);
    if (res == CT_OK) res = device >= 0 ? ct__nccl_post_device(c, op, device, r) : ct__tcp_post(c->host, op, &r->host);
    if (res != CT_OK) {
        CT_FREE(r);
        return res;
    }
    *request = r;
    return CT_OK;
}

/* A device operation completes with its event; its receive's source is
 * the peer it named. */
static int ct__nccl_test(void *request, int *source)
{
    ct__nccl_request *r = (ct__nccl_request *)request;
    if (r->host) {
        int done = ct__tcp_test(r->host, source);
        if (done != 0) CT_FREE(r);
        return done;
    }
    cudaSetDevice(r->device);
    cudaError_t rc = cudaEventQuery(r->done);
    if (rc == cudaErrorNotReady) return 0;
    cudaEventDestroy(r->done);
    *source = r->peer;
    CT_FREE(r);
    return rc == cudaSuccess ? 1 : (int)ct__nccl_cuda_fail(rc);
}

static void ct__nccl_idle(void *comm, double seconds) { ct__tcp_idle(((ct__nccl_comm *)comm)->host, seconds); }

static const ct__dist_backend ct__nccl_backend = {"nccl",           "WorkNCCL",         ct__nccl_init, ct__nccl_split,
                                                  ct__nccl_free_comm, ct__nccl_post, ct__nccl_test,  ct__nccl_idle,
                                                  true /* device tensors only */};
#endif
