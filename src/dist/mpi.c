/* The MPI backend (CTORCH_DIST_MPI; OpenMPI's mpicc): every operation is one
 * of MPI-3's non-blocking calls, so a work is an MPI_Request that MPI_Test
 * moves on. Each group has its own communicator (a duplicate of
 * MPI_COMM_WORLD for the default group), whose errors are returned rather
 * than fatal. */
#ifdef CTORCH_DIST_MPI
/* MPI's C API only, from C++ too (the C++ bindings are deprecated and warn) */
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

/* A request, and all_to_all's counts in bytes, which live as long as it. */
typedef struct ct__mpi_request {
    MPI_Request request;
    int *v;
} ct__mpi_request;

static ct_result ct__mpi_fail(int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    return ct__dist_fail(CT_ERR_RUNTIME, "MPI error, with error code %d: %.*s", code, len, text);
}

static void ct__mpi_finalize(void)
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

static ct_result ct__mpi_new_comm(MPI_Comm from, void **comm)
{
    MPI_Comm *c = (MPI_Comm *)ct__dist_alloc(sizeof *c);
    if (!c) return CT_ERR_MEMORY;
    *c = from;
    MPI_Comm_set_errhandler(*c, MPI_ERRORS_RETURN);
    *comm = c;
    return CT_OK;
}

/* MPI gives the ranks itself; a rank or world size passed in, or set by a
 * launcher in RANK and WORLD_SIZE, must then agree with MPI's (PyTorch only
 * warns; a disagreement here means two launchers and wrong collectives). */
static ct_result ct__mpi_check_launcher_ranks(const ct_dist_init_opts *opts, int rank, int size)
{
    const char *env_rank = getenv("RANK"), *env_size = getenv("WORLD_SIZE");
    int want_rank = opts->world_size > 0 ? opts->rank : env_rank ? atoi(env_rank) : rank;
    int want_size = opts->world_size > 0 ? opts->world_size : env_size ? atoi(env_size) : size;
    if (want_rank != rank || want_size != size)
        return ct__dist_fail(CT_ERR_RUNTIME,
                             "The mpi backend gives this process rank %d of %d, but rank %d of %d was asked for "
                             "(the rank and world_size arguments, or RANK and WORLD_SIZE)",
                             rank, size, want_rank, want_size);
    return CT_OK;
}

/* MPI is started once per process (as ProcessGroupMPI::initMPIOnce), and
 * finalised at exit when ctorch started it. */
static ct_result ct__mpi_init(const ct_dist_init_opts *opts, int *rank, int *size, void **world)
{
    int initialized = 0, provided = 0, rc;
    MPI_Initialized(&initialized);
    if (!initialized) {
        if ((rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided)) != MPI_SUCCESS) return ct__mpi_fail(rc);
        atexit(ct__mpi_finalize);
    } else
        MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_SERIALIZED)
        return ct__dist_fail(CT_ERR_RUNTIME, "Used MPI implementation doesn't have the minimum level of threading "
                                             "support: MPI_THREAD_SERIALIZED. This is required by c10d package");
    MPI_Comm dup;
    if ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup)) != MPI_SUCCESS) return ct__mpi_fail(rc);
    MPI_Comm_rank(dup, rank);
    MPI_Comm_size(dup, size);
    if (ct__mpi_check_launcher_ranks(opts, *rank, *size) != CT_OK) {
        MPI_Comm_free(&dup);
        return ct_last_error_code();
    }
    return ct__mpi_new_comm(dup, world);
}

static ct_result ct__mpi_split(void *parent, bool member, int key, void **comm)
{
    MPI_Comm c;
    int rc = MPI_Comm_split(*(MPI_Comm *)parent, member ? 0 : MPI_UNDEFINED, key, &c);
    if (rc != MPI_SUCCESS) return ct__mpi_fail(rc);
    *comm = NULL;
    return member ? ct__mpi_new_comm(c, comm) : CT_OK;
}

static void ct__mpi_free_comm(void *comm)
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free((MPI_Comm *)comm);
    CT_FREE(comm);
}

static MPI_Datatype ct__mpi_type(ct_dtype dtype)
{
    switch (dtype) {
    case CT_BOOL: return MPI_C_BOOL;
    case CT_U8: return MPI_UINT8_T;
    case CT_I8: return MPI_INT8_T;
    case CT_I16: return MPI_INT16_T;
    case CT_I32: return MPI_INT32_T;
    case CT_I64: return MPI_INT64_T;
    case CT_F32: return MPI_FLOAT;
    case CT_F64: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL; /* half types: moved as bytes, never reduced */
    }
}

/* Booleans reduce logically, as PyTorch's backends reduce them. */
static MPI_Op ct__mpi_op(ct_reduce_op op, ct_dtype dtype)
{
    bool logical = dtype == CT_BOOL;
    switch (op) {
    case CT_REDUCE_PRODUCT: return logical ? MPI_LAND : MPI_PROD;
    case CT_REDUCE_MIN: return logical ? MPI_LAND : MPI_MIN;
    case CT_REDUCE_MAX: return logical ? MPI_LOR : MPI_MAX;
    default: return logical ? MPI_LOR : MPI_SUM;
    }
}

static bool ct__mpi_reduces(ct__dist_kind kind)
{
    return kind == CT__DIST_ALLREDUCE || kind == CT__DIST_REDUCE || kind == CT__DIST_REDUCE_SCATTER;
}

/* MPI counts are ints: elements for a reduction, bytes otherwise. */
static ct_result ct__mpi_count(int64_t count, int *out)
{
    if (count > INT_MAX)
        return ct__dist_fail(CT_ERR_RUNTIME, "The mpi backend moves at most %d elements or bytes at once, not %lld",
                             INT_MAX, (long long)count);
    *out = (int)count;
    return CT_OK;
}

/* all_to_all's element counts and displacements as byte ints. */
static ct_result ct__mpi_all_to_all_v(const ct__dist_op *op, int size, size_t elem, int **v)
{
    *v = (int *)ct__dist_alloc(4 * (size_t)size * sizeof **v);
    if (!*v) return CT_ERR_MEMORY;
    for (int i = 0; i < 4 * size; i++)
        if (ct__mpi_count(op->all_to_all[i] * (int64_t)elem, *v + i) != CT_OK) return ct_last_error_code();
    return CT_OK;
}

/* A synchronous call's bulk collective runs MPI's blocking call: for large
 * messages its algorithms are 1.5 to 2.5 times as fast here as OpenMPI's
 * non-blocking ones (libnbc), which only async work needs. *ran says
 * whether it did (the request is then complete). */
static int ct__mpi_run_now(MPI_Comm comm, const ct__dist_op *op, int n, MPI_Datatype type, MPI_Op mop, bool root,
                           bool *ran)
{
    *ran = true;
    switch (op->kind) {
    case CT__DIST_BROADCAST: return MPI_Bcast(op->recv, n, type, op->root, comm);
    case CT__DIST_ALLREDUCE: return MPI_Allreduce(MPI_IN_PLACE, op->recv, n, type, mop, comm);
    case CT__DIST_REDUCE:
        return MPI_Reduce(root ? MPI_IN_PLACE : op->send, root ? op->recv : NULL, n, type, mop, op->root, comm);
    case CT__DIST_ALLGATHER:
    case CT__DIST__ALLGATHER_BASE: return MPI_Allgather(op->send, n, type, op->recv, n, type, comm);
    case CT__DIST_REDUCE_SCATTER: return MPI_Reduce_scatter_block(op->send, op->recv, n, type, mop, comm);
    default: *ran = false; return MPI_SUCCESS;
    }
}

static int ct__mpi_start(MPI_Comm comm, const ct__dist_op *op, ct__mpi_request *r, int n, MPI_Datatype type)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Op mop = ct__mpi_op(op->op, op->dtype);
    bool root = op->root == rank, ran = false;
    MPI_Request *q = &r->request;
    if (op->blocking) {
        int rc = ct__mpi_run_now(comm, op, n, type, mop, root, &ran);
        if (ran) {
            *q = MPI_REQUEST_NULL; /* MPI_Test finds it complete */
            return rc;
        }
    }
    switch (op->kind) {
    case CT__DIST_BROADCAST: return MPI_Ibcast(op->recv, n, type, op->root, comm, q);
    case CT__DIST_ALLREDUCE: return MPI_Iallreduce(MPI_IN_PLACE, op->recv, n, type, mop, comm, q);
    case CT__DIST_REDUCE:
        return MPI_Ireduce(root ? MPI_IN_PLACE : op->send, root ? op->recv : NULL, n, type, mop, op->root, comm, q);
    case CT__DIST_ALLGATHER:
    case CT__DIST__ALLGATHER_BASE: return MPI_Iallgather(op->send, n, type, op->recv, n, type, comm, q);
    case CT__DIST_GATHER: return MPI_Igather(op->send, n, type, root ? op->recv : NULL, n, type, op->root, comm, q);
    case CT__DIST_SCATTER: return MPI_Iscatter(root ? op->send : NULL, n, type, op->recv, n, type, op->root, comm, q);
    case CT__DIST_REDUCE_SCATTER: return MPI_Ireduce_scatter_block(op->send, op->recv, n, type, mop, comm, q);
    case CT__DIST_ALLTOALL:
        return MPI_Ialltoallv(op->send, r->v, r->v + size, MPI_BYTE, op->recv, r->v + 2 * size, r->v + 3 * size,
                              MPI_BYTE, comm, q);
    case CT__DIST_BARRIER: return MPI_Ibarrier(comm, q);
    case CT__DIST_SEND: return MPI_Isend(op->send, n, type, op->peer, op->tag, comm, q);
    case CT__DIST_RECV: return MPI_Irecv(op->recv, n, type, op->peer < 0 ? MPI_ANY_SOURCE : op->peer, op->tag, comm, q);
    default: return MPI_ERR_OP;
    }
}

static ct_result ct__mpi_post(void *comm, const ct__dist_op *op, void **request)
{
    MPI_Comm c = *(MPI_Comm *)comm;
    size_t elem = ct_dtype_size(op->dtype);
    bool typed = ct__mpi_reduces(op->kind);
    MPI_Datatype type = typed ? ct__mpi_type(op->dtype) : MPI_BYTE;
    int n = 0, size, rc;
    MPI_Comm_size(c, &size);
    if (type == MPI_DATATYPE_NULL)
        return ct__dist_fail(CT_ERR_RUNTIME, "The mpi backend does not reduce %s tensors", ct_dtype_name(op->dtype));
    if (ct__mpi_count(typed ? op->count : op->count * (int64_t)elem, &n) != CT_OK) return ct_last_error_code();
    ct__mpi_request *r = (ct__mpi_request *)ct__dist_alloc(sizeof *r);
    if (!r) return CT_ERR_MEMORY;
    r->v = NULL;
    if (op->kind == CT__DIST_ALLTOALL && ct__mpi_all_to_all_v(op, size, elem, &r->v) != CT_OK) {
        CT_FREE(r->v);
        CT_FREE(r);
        return ct_last_error_code();
    }
    if ((rc = ct__mpi_start(c, op, r, n, type)) != MPI_SUCCESS) {
        CT_FREE(r->v);
        CT_FREE(r);
        return ct__mpi_fail(rc);
    }
    *request = r;
    return CT_OK;
}

static int ct__mpi_test(void *request, int *source)
{
    ct__mpi_request *r = (ct__mpi_request *)request;
    MPI_Status status;
    int done = 0, rc = MPI_Test(&r->request, &done, &status);
    if (rc == MPI_SUCCESS && !done) return 0;
    if (rc == MPI_SUCCESS) *source = status.MPI_SOURCE;
    CT_FREE(r->v);
    CT_FREE(r);
    return rc == MPI_SUCCESS ? 1 : (int)ct__mpi_fail(rc);
}

static const ct__dist_backend ct__mpi_backend = {"mpi",        "WorkMPI",    ct__mpi_init,
                                                 ct__mpi_split, ct__mpi_free_comm, ct__mpi_post,
                                                 ct__mpi_test,  NULL /* MPI moves only when tested */, false};
#endif

bool ct_dist_is_gloo_available(void) { return true; }

bool ct_dist_is_mpi_available(void)
{
#ifdef CTORCH_DIST_MPI
    return true;
#else
    return false;
#endif
}

bool ct_dist_is_nccl_available(void)
{
#ifdef CTORCH_DIST_NCCL
    return true;
#else
    return false;
#endif
}

static const ct__dist_backend *ct__dist_backend_named(const char *name)
{
#ifdef CTORCH_DIST_MPI
    if (strcmp(name, "mpi") == 0) return &ct__mpi_backend;
#else
    if (strcmp(name, "mpi") == 0) {
        ct__dist_fail(CT_ERR_RUNTIME, "Distributed package doesn't have MPI built in. MPI is only included if you "
                                      "build ctorch_dist.h with CTORCH_DIST_MPI on a host that has MPI installed.");
        return NULL;
    }
#endif
    if (strcmp(name, "gloo") == 0) return &ct__tcp_backend;
#ifdef CTORCH_DIST_NCCL
    if (strcmp(name, "nccl") == 0) return &ct__nccl_backend;
#endif
    if (strcmp(name, "nccl") == 0 || strcmp(name, "ucc") == 0) {
        ct__dist_fail(CT_ERR_RUNTIME, "Distributed package doesn't have %s built in", name);
        return NULL;
    }
    ct__dist_fail(CT_ERR_VALUE, "Invalid backend: '%s'", name);
    return NULL;
}
