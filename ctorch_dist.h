/* ctorch_dist.h - torch.distributed for ctorch: process groups over TCP
 * (the gloo backend) or MPI, the collectives with async work handles, and
 * DistributedDataParallel.
 *
 * Generated from src/dist/ by `make amalgamate`; edit src/dist/, not this file.
 *
 * 1. QUICK START
 *
 *    ctorch_dist.h builds on ctorch.h. In exactly one C or C++ file, after
 *    ctorch.h:
 *
 *        #define CTORCH_DIST_IMPLEMENTATION
 *        #include "ctorch_dist.h"
 *
 *    The gloo backend needs nothing more (POSIX sockets and threads); run
 *    one process per rank with ctorchrun (or torchrun), which sets
 *    MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE for its env:// rendezvous:
 *
 *        cc train.c -o train -lm -lpthread
 *        build/ctorchrun --nproc_per_node 2 ./train
 *
 *    The mpi backend needs mpicc (Debian's libopenmpi-dev), -DCTORCH_DIST_MPI
 *    and mpirun (mpirun -np 2 ./train), with "mpi" below:
 *
 *        ct_dist_init_process_group("gloo", (ct_dist_init_opts){0});
 *        ct_tensor *t = ct_full(CT_SHAPE(2), ct_int(ct_dist_get_rank(NULL) + 1), CT_F32);
 *        ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){0});   // tensor([3., 3.]) on both ranks
 *        ct_dist_destroy_process_group(NULL);
 *
 * 2. MODEL
 *
 *    As in torch.distributed: one process per rank, a default group made by
 *    init_process_group, smaller groups made by new_group. Ranks are global
 *    ranks. Every collective checks that all ranks of its group call the
 *    same operation on tensors of the same shape and dtype (a small
 *    exchange before the data), so a mismatch is an error on every rank,
 *    not a hang. async_op gives a ct_work to wait for; a work that waits
 *    longer than the group's timeout fails with an error naming the rank.
 *
 * 3. THREADS
 *
 *    One thread at a time may call into a process group (MPI is started
 *    with MPI_THREAD_SERIALIZED). DDP's gradient hooks run inside backward on
 *    the thread that called it. The gloo backend runs threads of its own:
 *    one moving the sockets, and one per communicator running its
 *    collectives in order.
 *
 * 4. BUILD OPTIONS
 *
 *    CTORCH_DIST_MPI   the MPI backend (link MPI: build with mpicc)
 *    CTORCH_DIST_NCCL  the NCCL backend, for CUDA tensors: -I/usr/local/cuda/include,
 *                      linked with ctorch_cuda.cu's object, -lnccl -lcudart
 *    CTORCH_STATIC     as for ctorch.h
 */

#ifndef CTORCH_DIST_H
#define CTORCH_DIST_H

#include "ctorch.h" /* (guarded: a program may have included it already) */

#ifdef __cplusplus
extern "C" {
#endif

/* ==================== dist/dist.h ==================== */
// >>dist/dist.h
/* Public distributed API (torch.distributed): process groups, their work
 * handles, and the collectives and point-to-point operations on tensors.
 *
 * Ranks are global ranks (ranks in the default group), as in PyTorch, also
 * when a collective runs on a smaller group. Every tensor must be
 * contiguous (the MPI backend's rule in PyTorch); list arguments are
 * arrays of tensors with their count. Functions return CT_OK or an error
 * worded as PyTorch's (ct_last_error). A rank outside the group a
 * collective names takes no part in it and returns CT_OK at once, as
 * PyTorch's functions return None there.
 *
 * Before moving any data, each collective exchanges a small fingerprint
 * (operation, dtype, shape, root) among the group's ranks: when they differ,
 * every rank fails with the same "Detected mismatch between collectives"
 * error (PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL check), rather than
 * hanging or reading garbage. */

typedef struct ct_process_group ct_process_group; /* torch.distributed.ProcessGroup */
typedef struct ct_work ct_work;                   /* torch.distributed.Work (what async_op=True returns) */

/* torch.distributed.ReduceOp. SUM is zero, the default. AVG divides the sum
 * by the group's size (floating dtypes; integers divide with truncation). */
typedef enum ct_reduce_op {
    CT_REDUCE_SUM = 0,
    CT_REDUCE_AVG,
    CT_REDUCE_PRODUCT,
    CT_REDUCE_MIN,
    CT_REDUCE_MAX
} ct_reduce_op;

/* init_process_group's keyword arguments. world_size 0 takes the ranks
 * from the launcher; rank is read only when world_size is given.
 *
 * The gloo backend makes its own rendezvous: with init_method "env://" (the
 * default) it reads MASTER_ADDR and MASTER_PORT, and RANK and WORLD_SIZE
 * unless world_size is given, as torchrun and ctorchrun set them; with
 * "tcp://host:port" the rank and world size must be given. Rank 0 serves a
 * TCP store there (under torchrun, whose agent serves one, it connects to
 * that instead); the others connect to it, retrying until the timeout.
 *
 * The mpi backend's ranks are MPI's: a rank and world size given here, or
 * in RANK and WORLD_SIZE, must agree with them; init_method is checked
 * (env://, tcp://, file://) but MPI makes its own rendezvous, as in
 * PyTorch. */
typedef struct ct_dist_init_opts {
    const char *init_method; /* NULL: "env://" */
    int world_size;
    int rank;
    double timeout; /* seconds for the rendezvous and for a collective; 0: 1800 (default_pg_timeout) */
} ct_dist_init_opts;

/* torch.distributed.init_process_group(backend, ...): backend "gloo"
 * (ctorch's TCP transport, always built in: CPU tensors between processes,
 * under ctorchrun or torchrun), "mpi" (built with CTORCH_DIST_MPI, under
 * mpirun) or "nccl" (built with CTORCH_DIST_NCCL, linked with ctorch_cuda.cu:
 * CUDA tensors, one GPU per process, the gloo backend's rendezvous). Makes
 * the default group (group=None). Call once per process, before any
 * collective. */
CTORCH_API ct_result ct_dist_init_process_group(const char *backend, ct_dist_init_opts opts);
/* torch.distributed.destroy_process_group(group): NULL destroys every group
 * and the default one (init_process_group may then be called again); a
 * group made by new_group is destroyed alone. Pending work is waited for. */
CTORCH_API ct_result ct_dist_destroy_process_group(ct_process_group *group);
/* torch.distributed.is_initialized / is_gloo_available / is_mpi_available /
 * is_nccl_available. */
CTORCH_API bool ct_dist_is_initialized(void);
CTORCH_API bool ct_dist_is_gloo_available(void);
CTORCH_API bool ct_dist_is_mpi_available(void);
CTORCH_API bool ct_dist_is_nccl_available(void);

/* torch.distributed.get_rank(group) / get_world_size(group): NULL is the
 * default group; -1 when this process is not in the group, or with an error
 * when no group was initialised. */
CTORCH_API int ct_dist_get_rank(const ct_process_group *group);
CTORCH_API int ct_dist_get_world_size(const ct_process_group *group);
/* torch.distributed.get_backend(group): "gloo" or "mpi". */
CTORCH_API const char *ct_dist_get_backend(const ct_process_group *group);

/* DistributedSampler(dataset)'s options in a process group:
 * ct_distributed_sampler_opts_init() with num_replicas and rank from the
 * default group, as PyTorch asks dist.get_world_size() and dist.get_rank()
 * when they are None. Before init_process_group: one replica, rank 0, with
 * PyTorch's error set. */
CTORCH_API ct_distributed_sampler_opts ct_dist_sampler_opts_init(void);

/* torch.distributed.new_group(ranks, timeout): every process of the default
 * group must call it, with the same ranks (global ranks; NULL and 0: all).
 * The group's ranks are ordered as the global ones. Processes outside it
 * get a group too, in which they have rank -1. The default group owns it
 * (destroy_process_group(NULL) frees it). timeout 0: the default group's. */
CTORCH_API ct_process_group *ct_dist_new_group(const int *ranks, int n_ranks, double timeout);

/* The options every collective takes: the group (NULL: the default group)
 * and async_op. With async_op non-NULL the call returns once the operation
 * is started, *async_op being its work handle (ct_work_wait, then
 * ct_work_free); the tensors must not be touched until it completes. A rank
 * outside the group gets NULL. */
typedef struct ct_dist_opts {
    ct_process_group *group;
    ct_work **async_op;
} ct_dist_opts;

/* torch.distributed.broadcast(tensor, src): every rank's tensor becomes src's. */
CTORCH_API ct_result ct_dist_broadcast(ct_tensor *tensor, int src, ct_dist_opts opts);
/* torch.distributed.all_reduce(tensor, op): every rank's tensor becomes the
 * reduction of all ranks' tensors. */
CTORCH_API ct_result ct_dist_all_reduce(ct_tensor *tensor, ct_reduce_op op, ct_dist_opts opts);
/* torch.distributed.reduce(tensor, dst, op): dst's tensor gets the reduction;
 * the others' tensors are left as they were (PyTorch leaves them undefined). */
CTORCH_API ct_result ct_dist_reduce(ct_tensor *tensor, int dst, ct_reduce_op op, ct_dist_opts opts);
/* torch.distributed.all_gather(tensor_list, tensor): tensor_list[i] (n of
 * them, the group's size) gets rank i's tensor, on every rank. */
CTORCH_API ct_result ct_dist_all_gather(ct_tensor *const *tensor_list, int n, const ct_tensor *tensor, ct_dist_opts opts);
/* torch.distributed.all_gather_into_tensor(output, input): the ranks' inputs
 * concatenated along dim 0 into output (world_size times input's size). */
CTORCH_API ct_result ct_dist_all_gather_into_tensor(ct_tensor *output, const ct_tensor *input, ct_dist_opts opts);
/* torch.distributed.gather(tensor, gather_list, dst): on dst, gather_list[i]
 * (n, the group's size) gets rank i's tensor; other ranks pass NULL and 0. */
CTORCH_API ct_result ct_dist_gather(const ct_tensor *tensor, ct_tensor *const *gather_list, int n, int dst,
                                    ct_dist_opts opts);
/* torch.distributed.scatter(tensor, scatter_list, src): rank i's tensor gets
 * src's scatter_list[i]; other ranks pass NULL and 0. */
CTORCH_API ct_result ct_dist_scatter(ct_tensor *tensor, ct_tensor *const *scatter_list, int n, int src,
                                     ct_dist_opts opts);
/* torch.distributed.reduce_scatter(output, input_list, op): output on rank i
 * gets the reduction over ranks of their input_list[i]. */
CTORCH_API ct_result ct_dist_reduce_scatter(ct_tensor *output, ct_tensor *const *input_list, int n, ct_reduce_op op,
                                            ct_dist_opts opts);
/* torch.distributed.all_to_all(output_list, input_list): output_list[j] on
 * rank i gets rank j's input_list[i]; sizes may differ between pairs. */
CTORCH_API ct_result ct_dist_all_to_all(ct_tensor *const *output_list, ct_tensor *const *input_list, int n,
                                        ct_dist_opts opts);
/* torch.distributed.barrier(): returns once every rank of the group called it. */
CTORCH_API ct_result ct_dist_barrier(ct_dist_opts opts);

/* torch.distributed.send(tensor, dst, tag) / isend (opts.async_op). */
CTORCH_API ct_result ct_dist_send(const ct_tensor *tensor, int dst, int tag, ct_dist_opts opts);
/* torch.distributed.recv(tensor, src, tag) / irecv: src -1 takes the first
 * sender (src=None). Returns the sender's rank (or -1 with an error); with
 * async_op, 0 (ct_work_source_rank gives the sender once completed). The
 * sender's dtype and shape must be the tensor's. */
CTORCH_API int ct_dist_recv(ct_tensor *tensor, int src, int tag, ct_dist_opts opts);

/* Work.wait(): blocks until the operation completes or the group's timeout
 * passes; then the operation's error, if it failed, or CT_OK. */
CTORCH_API ct_result ct_work_wait(ct_work *work);
/* Work.is_completed(): without blocking (it also moves the operation on). */
CTORCH_API bool ct_work_is_completed(ct_work *work);
/* Work._source_rank(): the sender of a completed recv. */
CTORCH_API int ct_work_source_rank(const ct_work *work);
/* Frees a work handle, waiting first when it is still running. NULL is ignored. */
CTORCH_API void ct_work_free(ct_work *work);

/* A worker of ct_dist_spawn: rank is 0 .. nprocs-1; CT_OK or an error
 * (ct_last_error says which) is the worker's outcome. */
typedef ct_result (*ct_dist_spawn_fn)(int rank, void *arg);
/* torch.multiprocessing.spawn(fn, args=(arg,), nprocs, join=True), with
 * fork: nprocs processes each run fn(rank, arg) and exit (0 when it returned
 * CT_OK, 1 when not). Returns once all exited 0, or, as soon as one fails,
 * stops the others (SIGTERM, SIGKILL 30 seconds later) and fails (CT_ERR_RUNTIME)
 * with ProcessRaisedException's message ("\n\n-- Process 1 terminated with
 * the following error:\nValueError: ...") when fn returned an error, or
 * ProcessExitedException's ("process 1 terminated with exit code 3",
 * "process 1 terminated with signal SIGSEGV") when the worker exited or
 * died. Workers run ctorch's ops on one thread (ct_set_num_threads(1), as
 * torchrun's OMP_NUM_THREADS=1): GNU OpenMP is not fork-safe, and a worker
 * of a parent that ran parallel ops would hang in a team of more. Call it
 * before init_process_group: each worker makes its own (MPI itself must not
 * be started in the parent). POSIX only. */
CTORCH_API ct_result ct_dist_spawn(int nprocs, ct_dist_spawn_fn fn, void *arg);

/* torch.distributed.TCPStore: a key-value store served over TCP by one
 * process (the master) to the others, as init_process_group's env://
 * rendezvous uses it. Keys are strings, values bytes. It speaks PyTorch's
 * TCPStore protocol: a Python TCPStore can be its server or its client. */
typedef struct ct_tcp_store ct_tcp_store;

/* TCPStore's keyword arguments. */
typedef struct ct_tcp_store_opts {
    int world_size; /* the master waits for this many clients, itself included; 0: does not wait */
    bool is_master; /* serve the store on port (of every interface, IPv6 and IPv4), and connect to it */
    double timeout; /* seconds for connecting and for each request; 0: 300 */
} ct_tcp_store_opts;

/* TCPStore(host_name, port, world_size, is_master, timeout): connects to
 * host_name:port (a name, an IPv4 or an IPv6 address: "::1"), retrying
 * until the timeout while nobody listens or the name does not resolve
 * ("The client socket has timed
 * out after 2s while trying to connect to (127.0.0.1, 29500)."); the
 * master serves it first (port 0: a free port, see ct_tcp_store_port) and
 * waits for world_size clients ("Timed out after 2 seconds waiting for
 * clients. 1/2 clients joined."). NULL with the error on failure. */
CTORCH_API ct_tcp_store *ct_tcp_store_new(const char *host_name, int port, ct_tcp_store_opts opts);
/* TCPStore.port. */
CTORCH_API int ct_tcp_store_port(const ct_tcp_store *store);
/* TCPStore.set(key, value). */
CTORCH_API ct_result ct_tcp_store_set(ct_tcp_store *store, const char *key, const void *value, size_t len);
/* TCPStore.get(key): waits until key is set (or fails after the timeout
 * with "Socket Timeout"), copies at most cap bytes of its value into value
 * and sets *len to the value's whole length. */
CTORCH_API ct_result ct_tcp_store_get(ct_tcp_store *store, const char *key, void *value, size_t cap, size_t *len);
/* TCPStore.add(key, amount): adds to the number kept (as decimal text, 0
 * when unset) and gives the sum in *value. */
CTORCH_API ct_result ct_tcp_store_add(ct_tcp_store *store, const char *key, int64_t amount, int64_t *value);
/* TCPStore.wait(keys, timeout): until every key is set; timeout 0 is the store's. */
CTORCH_API ct_result ct_tcp_store_wait(ct_tcp_store *store, const char *const *keys, int n, double timeout);
/* TCPStore::check(keys) of c10d's C++ API (Python 1.13 does not bind it):
 * *ready tells whether every key is set, without waiting. */
CTORCH_API ct_result ct_tcp_store_check(ct_tcp_store *store, const char *const *keys, int n, bool *ready);
/* TCPStore.compare_set(key, expected_value, desired_value): the key takes
 * the desired value when it holds the expected one, or when it is not set
 * and the expected value is empty. The answer, into value as
 * ct_tcp_store_get's, is the key's value afterwards, or the expected value
 * when the key is not set (PyTorch's server answers so). */
CTORCH_API ct_result ct_tcp_store_compare_set(ct_tcp_store *store, const char *key, const void *expected,
                                              size_t expected_len, const void *desired, size_t desired_len,
                                              void *value, size_t cap, size_t *len);
/* TCPStore.delete_key(key): *deleted tells whether the key was set. */
CTORCH_API ct_result ct_tcp_store_delete_key(ct_tcp_store *store, const char *key, bool *deleted);
/* TCPStore.num_keys(): every key the server holds, including the one its
 * clients count themselves in by (the master's "init/" of world_size). */
CTORCH_API ct_result ct_tcp_store_num_keys(ct_tcp_store *store, int64_t *n);
/* Closes the connection; the master's store stops serving. NULL is ignored. */
CTORCH_API void ct_tcp_store_free(ct_tcp_store *store);

/* ==================== dist/ddp.h ==================== */
// >>dist/ddp.h
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

#ifdef __cplusplus
}
#endif

#endif /* CTORCH_DIST_H */

#if defined(CTORCH_DIST_IMPLEMENTATION) && !defined(CTORCH_DIST_IMPLEMENTATION_DONE)
#define CTORCH_DIST_IMPLEMENTATION_DONE

/* ==================== dist/internal.h ==================== */
// >>dist/internal.h
/* The distributed layer's private parts: the backend table (one per
 * communication library, as c10d has a ProcessGroup subclass per backend),
 * the process group and work structs, and the fingerprint that every
 * collective exchanges before its data (or with it). Only public ctorch functions are
 * used here, so ctorch_dist.h's implementation may sit in a file of its own. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(CT_MALLOC)
#define CT_MALLOC(n) malloc(n)
#define CT_REALLOC(p, n) realloc(p, n)
#define CT_FREE(p) free(p)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CT__DIST_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CT__DIST_PRINTF(f, a)
#endif

/* The operations, as PyTorch's OpType names them in its messages. */
#define CT__DIST_KINDS(X) \
    X(BROADCAST) X(ALLREDUCE) X(REDUCE) X(ALLGATHER) X(_ALLGATHER_BASE) X(GATHER) X(SCATTER) \
    X(REDUCE_SCATTER) X(ALLTOALL) X(BARRIER) X(SEND) X(RECV)
typedef enum ct__dist_kind {
#define CT__DIST_KIND_ENUM(name) CT__DIST_##name,
    CT__DIST_KINDS(CT__DIST_KIND_ENUM)
#undef CT__DIST_KIND_ENUM
    CT__DIST_NUM_KINDS
} ct__dist_kind;

/* One operation on contiguous buffers, as a backend posts it. Counts are
 * elements of dtype: per rank for the gathers and scatters, per peer for
 * all_to_all (counts and displacements, send then receive, group size each). */
typedef struct ct__dist_op {
    ct__dist_kind kind;
    void *send, *recv; /* an in-place operation has send == recv */
    int64_t count;
    const int64_t *all_to_all; /* scounts, sdispls, rcounts, rdispls */
    ct_dtype dtype;
    ct_reduce_op op; /* AVG is posted as SUM and divided afterwards */
    int root;        /* group rank: broadcast, reduce, gather, scatter */
    int peer;        /* group rank for send and recv (-1: any source) */
    int tag;
    bool blocking; /* a synchronous call's collective: the backend may run it at once */
} ct__dist_op;

/* A backend: what one communication library (MPI, ctorch's TCP transport,
 * NCCL) provides. init makes the world communicator from
 * init_process_group's options. post starts an operation and gives back a request that test moves on:
 * 1 once it completed (the request is freed then, *source set for a
 * receive), 0 while it runs, an error code (with the error set) when it
 * failed. Messages are the backend's own. */
typedef struct ct__dist_backend {
    const char *name;
    const char *work_name; /* the work class a timeout names, as PyTorch's watchdog message */
    ct_result (*init)(const ct_dist_init_opts *opts, int *rank, int *size, void **world);
    ct_result (*split)(void *parent, bool member, int key, void **comm);
    void (*free_comm)(void *comm);
    ct_result (*post)(void *comm, const ct__dist_op *op, void **request);
    int (*test)(void *request, int *source);
    /* optional: sleeps until the backend's threads moved something on, or
     * `seconds` passed, so that a waiting caller leaves them the CPU */
    void (*idle)(void *comm, double seconds);
    /* NCCL: works on CUDA tensors only, on streams of its own ordered after
     * the work queued on their device, so the front end neither waits for
     * the device before posting nor refuses half types; AVG is its own op */
    bool on_device;
} ct__dist_backend;

struct ct_process_group {
    const ct__dist_backend *backend;
    void *comm;       /* the data operations */
    void *control;    /* the fingerprint exchanges (and the data they carry): a
                         communicator of their own, so that the ranks post the
                         operations of each in one order */
    int rank, size;   /* in this group; rank -1 outside it */
    int *global;      /* group rank -> global rank */
    double timeout;   /* seconds */
    int64_t seq;      /* collectives started, for timeout messages */
    ct_work *pending; /* started work not yet freed, oldest first */
    ct_work *spare;   /* a freed work's block, kept for the next (ct__work_block) */
    ct_process_group *next_group;
};

/* A fingerprint: kind, device type, dtype, ndim, root and sizes, which must
 * agree (the first CT__FP_FIXED; send and recv compare from the dtype on);
 * whether the rank waits for the operation (a synchronous call), which may
 * differ; then, for all_to_all, the counts sent to and expected from each
 * rank. */
enum {
    CT__FP_KIND, CT__FP_DEVICE, CT__FP_DTYPE, CT__FP_NDIM, CT__FP_ROOT, CT__FP_SIZES,
    CT__FP_FIXED = CT__FP_SIZES + CT_MAX_DIMS,
    CT__FP_SYNC = CT__FP_FIXED,
    CT__FP_COUNTS
};
#define CT__FP_INVALID (-1) /* the rank's own arguments were wrong: it fails with its own error */

/* A collective whose data is at most CT__DIST_INLINE_BYTES per message
 * (its tensor, on the host) sends it inline, after its fingerprint, and
 * completes with the exchange: one round of messages instead of two. Every
 * rank knows the constant, so each receives into slots of this size
 * whatever its own arguments, and a mismatch is still found from the
 * fingerprints. Measured on OpenMPI's shared memory (bench/RESULTS.md),
 * inline beat the two rounds from 1 KiB to 64 KiB but for one band:
 * OpenMPI sends a message of up to 4 KiB at once (its eager limit) and
 * makes a longer one wait until its receiver is ready, so 4 KiB of data,
 * which MPI_Allreduce sends at once, plus a fingerprint took 3.8 times
 * MPI_Allreduce inline and 1.5 times in two rounds. Data that fits the
 * limit alone but not with its fingerprint goes in two rounds. */
#define CT__DIST_INLINE_BYTES (64 << 10)
#define CT__DIST_EAGER_BYTES (4 << 10)

/* A copy done before the operation is posted or after it completed. */
typedef struct ct__dist_copy {
    void *dst;
    const void *src;
    size_t bytes;
} ct__dist_copy;

typedef enum ct__work_stage { CT__WORK_FINGERPRINT, CT__WORK_DATA, CT__WORK_DONE } ct__work_stage;

struct ct_work {
    size_t block_bytes; /* the work and its buffers after it, one allocation */
    ct_process_group *group;
    ct__work_stage stage;
    void *request; /* the data operation's */
    void **exchange; /* the fingerprint exchange's requests, NULL once finished */
    int n_exchange;
    double started; /* seconds; 0 until a synchronous call's wait first looks */
    int64_t seq;
    int fp_len;
    int64_t *fp;     /* this rank's fingerprint, then its data when that goes inline */
    int64_t *all_fp; /* the members' fingerprints (and inline data), slot_len apart (p2p: the peer's) */
    int slot_len;
    bool inline_data;     /* the data travels with the fingerprints: nothing is posted after them */
    int64_t inline_bytes; /* how much of it goes in each message that carries it */
    char *own_error;      /* this rank's argument error, reported after the exchange */
    ct_result own_code;
    ct__dist_op op;
    int64_t *counts;       /* all_to_all's counts and displacements */
    ct__dist_copy *copies; /* n_before copies in, then the copies out */
    int n_before, n_copies;
    ct_tensor **held; /* the tensors the operation reads or writes, retained */
    int n_held;
    bool average; /* AVG: divide op.recv by the group size when done */
    bool fingerprinted; /* the exchange completed; the data waits for its turn */
    int source;
    ct_result status;
    char *error; /* status's message, raised again by every wait */
    ct_work *next_pending;
};

static int64_t ct__dist_numel_bytes(const ct_tensor *t) { return ct_numel(t) * (int64_t)ct_element_size(t); }

/* ==================== dist/group.c ==================== */
// >>dist/group.c
/* Process groups: the default group that init_process_group makes, the
 * groups new_group makes from it, and the questions about them. */

/* The default group (GroupMember.WORLD) and, after it, every group made by
 * new_group, which it owns. */
static ct_process_group *ct__dist_world;

/* The backends this build has, by name (the table of c10d's Backend). */
static const ct__dist_backend *ct__dist_backend_named(const char *name);

static ct_result ct__dist_fail(ct_result code, const char *fmt, ...) CT__DIST_PRINTF(2, 3);
static ct_result ct__dist_fail(ct_result code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ct_set_error(code, msg);
}

static ct_result ct__dist_oom(void) { return ct__dist_fail(CT_ERR_MEMORY, "DefaultCPUAllocator: not enough memory"); }

/* CT_MALLOC that fails with PyTorch's out-of-memory error (0 bytes ask for 1). */
static void *ct__dist_alloc(size_t bytes)
{
    void *p = CT_MALLOC(bytes ? bytes : 1);
    if (!p) ct__dist_oom();
    return p;
}

/* A copy of a message, or NULL when there is no memory for it. */
static char *ct__dist_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = (char *)CT_MALLOC(n);
    if (copy) memcpy(copy, s, n);
    return copy;
}

static const char ct__dist_not_initialized[] =
    "Default process group has not been initialized, please make sure to call init_process_group.";

/* The group a function was given: the default one for NULL. */
static ct_process_group *ct__dist_group(const ct_process_group *group)
{
    if (!ct__dist_world) {
        ct__dist_fail(CT_ERR_RUNTIME, "%s", ct__dist_not_initialized);
        return NULL;
    }
    return group ? (ct_process_group *)group : ct__dist_world;
}


static ct_process_group *ct__dist_group_new(const ct__dist_backend *backend, void *comm, int rank, int size,
                                            double timeout)
{
    ct_process_group *g = (ct_process_group *)ct__dist_alloc(sizeof *g);
    int *global = g ? (int *)ct__dist_alloc((size_t)size * sizeof *global) : NULL;
    if (!global) {
        CT_FREE(g);
        return NULL;
    }
    memset(g, 0, sizeof *g);
    if (comm && backend->split(comm, true, rank, &g->control) != CT_OK) {
        CT_FREE(g);
        CT_FREE(global);
        return NULL;
    }
    g->backend = backend;
    g->comm = comm;
    g->rank = rank;
    g->size = size;
    g->global = global;
    g->timeout = timeout;
    for (int i = 0; i < size; i++) global[i] = i;
    return g;
}

static void ct__dist_group_free(ct_process_group *g)
{
    while (g->pending) ct_work_free(g->pending); /* unlinks itself */
    if (g->comm) g->backend->free_comm(g->comm);
    if (g->control) g->backend->free_comm(g->control);
    CT_FREE(g->spare);
    CT_FREE(g->global);
    CT_FREE(g);
}

/* init_process_group's rendezvous arguments, checked as PyTorch checks them:
 * an env:// rendezvous needs RANK and WORLD_SIZE unless they were given. */
static ct_result ct__dist_check_init_opts(const ct_dist_init_opts *opts)
{
    const char *method = opts->init_method ? opts->init_method : "env://";
    if (strncmp(method, "env://", 6) != 0 && strncmp(method, "tcp://", 6) != 0 && strncmp(method, "file://", 7) != 0)
        return ct__dist_fail(CT_ERR_RUNTIME, "No rendezvous handler for %.*s://", (int)strcspn(method, ":"), method);
    if (opts->world_size < 0) return ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using env:// rendezvous: world_size must be positive");
    if (opts->world_size > 0 && (opts->rank < 0 || opts->rank >= opts->world_size))
        return ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using env:// rendezvous: rank must be "
                                           "in the range [0, world_size)");
    if (opts->timeout < 0) return ct__dist_fail(CT_ERR_VALUE, "timeout must be a positive number of seconds");
    return CT_OK;
}

ct_result ct_dist_init_process_group(const char *backend, ct_dist_init_opts opts)
{
    if (ct__dist_world)
        return ct__dist_fail(CT_ERR_RUNTIME, "trying to initialize the default process group twice!");
    if (!backend) return ct__dist_fail(CT_ERR_VALUE, "Backend name must be a string, but got: NULL");
    const ct__dist_backend *b = ct__dist_backend_named(backend);
    if (!b) return ct_last_error_code();
    ct_result res = ct__dist_check_init_opts(&opts);
    int rank = -1, size = -1;
    void *world = NULL;
    if (res == CT_OK) res = b->init(&opts, &rank, &size, &world);
    if (res == CT_OK) {
        ct__dist_world = ct__dist_group_new(b, world, rank, size, opts.timeout > 0 ? opts.timeout : 1800.0);
        if (!ct__dist_world) res = ct_last_error_code();
    }
    if (res != CT_OK && world) b->free_comm(world);
    return res;
}

bool ct_dist_is_initialized(void) { return ct__dist_world != NULL; }

ct_result ct_dist_destroy_process_group(ct_process_group *group)
{
    if (!ct__dist_world) return ct__dist_fail(CT_ERR_RUNTIME, "%s", ct__dist_not_initialized);
    if (group && group != ct__dist_world) {
        ct_process_group **link = &ct__dist_world->next_group;
        while (*link && *link != group) link = &(*link)->next_group;
        if (!*link) return ct__dist_fail(CT_ERR_RUNTIME, "Invalid process group specified");
        *link = group->next_group;
        ct__dist_group_free(group);
        return CT_OK;
    }
    while (ct__dist_world->next_group) ct_dist_destroy_process_group(ct__dist_world->next_group);
    ct__dist_group_free(ct__dist_world);
    ct__dist_world = NULL;
    return CT_OK;
}

int ct_dist_get_rank(const ct_process_group *group)
{
    const ct_process_group *g = ct__dist_group(group);
    return g ? g->rank : -1;
}

int ct_dist_get_world_size(const ct_process_group *group)
{
    const ct_process_group *g = ct__dist_group(group);
    return g ? (g->rank < 0 ? -1 : g->size) : -1;
}

const char *ct_dist_get_backend(const ct_process_group *group)
{
    const ct_process_group *g = ct__dist_group(group);
    if (g && g->rank < 0) {
        ct__dist_fail(CT_ERR_RUNTIME, "Invalid process group specified");
        return NULL;
    }
    return g ? g->backend->name : NULL;
}

ct_distributed_sampler_opts ct_dist_sampler_opts_init(void)
{
    ct_distributed_sampler_opts o = ct_distributed_sampler_opts_init();
    const ct_process_group *g = ct__dist_group(NULL);
    if (g) {
        o.num_replicas = g->size;
        o.rank = g->rank;
    }
    return o;
}

/* new_group's ranks, checked and sorted (PyTorch sorts them too). */
static int *ct__dist_sorted_ranks(const int *ranks, int n, int world_size)
{
    int *sorted = (int *)ct__dist_alloc((size_t)n * sizeof *sorted);
    if (!sorted) return NULL;
    for (int i = 0; i < n; i++) {
        int r = ranks ? ranks[i] : i, j = i;
        if (r < 0 || r >= world_size) {
            CT_FREE(sorted);
            ct__dist_fail(CT_ERR_RUNTIME, "The new group's rank should be within the the world_size set by "
                                          "init_process_group");
            return NULL;
        }
        for (; j > 0 && sorted[j - 1] > r; j--) sorted[j] = sorted[j - 1];
        if (j > 0 && sorted[j - 1] == r) {
            CT_FREE(sorted);
            ct__dist_fail(CT_ERR_VALUE, "ranks passed to new_group must be unique, but %d is given twice", r);
            return NULL;
        }
        sorted[j] = r;
    }
    return sorted;
}

ct_process_group *ct_dist_new_group(const int *ranks, int n_ranks, double timeout)
{
    ct_process_group *world = ct__dist_group(NULL);
    if (!world) return NULL;
    if (!ranks || n_ranks <= 0) n_ranks = world->size, ranks = NULL;
    int *sorted = ct__dist_sorted_ranks(ranks, n_ranks, world->size);
    if (!sorted) return NULL;
    int my_rank = -1;
    for (int i = 0; i < n_ranks; i++)
        if (sorted[i] == world->rank) my_rank = i;
    void *comm = NULL;
    if (world->backend->split(world->comm, my_rank >= 0, world->rank, &comm) != CT_OK) {
        CT_FREE(sorted);
        return NULL;
    }
    ct_process_group *g = ct__dist_group_new(world->backend, comm, my_rank, n_ranks, timeout > 0 ? timeout : world->timeout);
    if (!g) {
        if (comm) world->backend->free_comm(comm);
        CT_FREE(sorted);
        return NULL;
    }
    memcpy(g->global, sorted, (size_t)n_ranks * sizeof *sorted);
    CT_FREE(sorted);
    g->next_group = world->next_group;
    world->next_group = g;
    return g;
}

/* A global rank as a rank of group g (PyTorch's _get_group_rank). */
static int ct__dist_group_rank(const ct_process_group *g, int global_rank)
{
    for (int i = 0; i < g->size; i++)
        if (g->global[i] == global_rank) return i;
    return -1;
}

/* ==================== dist/work.c ==================== */
// >>dist/work.c
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

/* ==================== dist/collectives.c ==================== */
// >>dist/collectives.c
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

/* ==================== dist/listen.h ==================== */
// >>dist/listen.h
/* Listening sockets as the TCP store and the gloo transport open them
 * (c10d's server socket: [::] for IPv6 and IPv4 clients alike, or 0.0.0.0
 * where there is no IPv6), and the free-port probe built on the same code,
 * so that a port it finds is one the store can bind. POSIX sockets only:
 * tools/ctorchrun.c (no ctorch inside) and tests/dist/free_port.h include
 * this file too, hence its guard. */
#ifndef CT__DIST_LISTEN_H
#define CT__DIST_LISTEN_H
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A socket listening on `family`'s wildcard address ([::] takes IPv4 too)
 * at *port (0: a free port, written back), or -1 with errno set. */
static int ct__sock_listen_on(int family, int *port, int backlog)
{
    struct sockaddr_storage a;
    socklen_t len = family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    memset(&a, 0, sizeof a);
    if (family == AF_INET6) {
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&a;
        a6->sin6_family = AF_INET6, a6->sin6_addr = in6addr_any, a6->sin6_port = htons((uint16_t)*port);
    } else {
        struct sockaddr_in *a4 = (struct sockaddr_in *)&a;
        a4->sin_family = AF_INET, a4->sin_addr.s_addr = htonl(INADDR_ANY), a4->sin_port = htons((uint16_t)*port);
    }
    int fd = socket(family, SOCK_STREAM, 0), one = 1, zero = 0;
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (bind(fd, (struct sockaddr *)&a, len) != 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    *port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&a)->sin6_port : ((struct sockaddr_in *)&a)->sin_port);
    return fd;
}

/* A socket listening on every interface at *port (0: a free port, written
 * back): on [::], or, where that fails (no IPv6), on 0.0.0.0, as c10d's
 * server socket. -1 when both failed, their errnos in err6 and err4. */
static int ct__sock_listen_any(int *port, int backlog, int *err6, int *err4)
{
    int fd = ct__sock_listen_on(AF_INET6, port, backlog);
    *err6 = errno;
    if (fd < 0) fd = ct__sock_listen_on(AF_INET, port, backlog);
    *err4 = errno;
    return fd;
}

/* A port nobody listens on, where a store would listen (torchrun's
 * _get_socket_with_port; for ctorchrun's --standalone, and the tests): the
 * kernel's pick for a listener opened as the store's is, closed at once.
 * On [::] the pick is free for IPv6 and IPv4 alike, so the store's bind
 * cannot fail for an IPv4-only or IPv6-only listener holding it. 0 when
 * none. */
static inline int ct__sock_free_port(void)
{
    int port = 0, err6, err4, fd = ct__sock_listen_any(&port, 1, &err6, &err4);
    if (fd < 0) return 0;
    close(fd);
    return port;
}
#endif

/* ==================== dist/socket.c ==================== */
// >>dist/socket.c
/* POSIX sockets for the TCP store and the gloo backend: addresses,
 * listening, connecting with retries until a deadline, and whole-buffer
 * reads and writes bounded by a deadline; IPv4 and IPv6, as c10d's. Errors
 * are worded as c10d's socket layer words them. Deadlines are ct__dist_seconds() values. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

/* getaddrinfo is POSIX.1-2001: strict C11 (-std=c11), or the older
 * _POSIX_C_SOURCE that -pthread and -fopenmp set, leave it undeclared. */
#if !defined(__cplusplus) && (!defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200112L)
struct addrinfo {
    int ai_flags, ai_family, ai_socktype, ai_protocol;
    socklen_t ai_addrlen;
    struct sockaddr *ai_addr;
    char *ai_canonname;
    struct addrinfo *ai_next;
};
extern int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res);
extern void freeaddrinfo(struct addrinfo *res);
extern const char *gai_strerror(int code);
#endif

/* poll's timeout for a deadline: the milliseconds left, at least 0. */
static int ct__sock_ms_left(double deadline)
{
    double left = deadline - ct__dist_seconds();
    return left <= 0 ? 0 : left > 1e6 ? 1000000000 : (int)(left * 1e3) + 1;
}

static void ct__sock_sleep_ms(int ms) { poll(NULL, 0, ms); }

static void ct__sock_no_delay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* A socket listening on every interface at *port (0: a free port, written
 * back), or -1 with c10d's error for its two tries ([::], then 0.0.0.0):
 * listen.h's ct__sock_listen_any. */
static int ct__sock_listen(int *port, int backlog)
{
    int err6, err4, fd = ct__sock_listen_any(port, backlog, &err6, &err4);
    if (fd >= 0) return fd;
    ct__dist_fail(CT_ERR_RUNTIME,
                  "The server socket has failed to listen on any local network address. The server socket has failed "
                  "to bind to [::]:%d (errno: %d - %s). The server socket has failed to bind to 0.0.0.0:%d (errno: %d - %s).",
                  *port, err6, strerror(err6), *port, err4, strerror(err4));
    return -1;
}

/* A connection to one of the addresses host (a name, an IPv4 or an IPv6
 * address) resolves to now, tried in getaddrinfo's order; -1 when there is
 * none (not yet resolvable, or nobody listening). */
static int ct__sock_try_connect(const char *host, int port)
{
    struct addrinfo hints, *found = NULL;
    char service[16];
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &found) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *a = found; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) close(fd), fd = -1;
    }
    freeaddrinfo(found);
    return fd;
}

/* Connects to host:port, retrying while the name does not resolve or nobody
 * listens there yet, until `timeout` seconds passed: the fd, or -1 with
 * c10d's client timeout message. */
static int ct__sock_connect(const char *host, int port, double timeout)
{
    double deadline = ct__dist_seconds() + timeout;
    for (;;) {
        int fd = ct__sock_try_connect(host, port);
        if (fd >= 0) {
            ct__sock_no_delay(fd);
            return fd;
        }
        if (ct__dist_seconds() >= deadline) break;
        ct__sock_sleep_ms(ct__sock_ms_left(deadline) < 100 ? ct__sock_ms_left(deadline) : 100);
    }
    ct__dist_fail(CT_ERR_RUNTIME, "The client socket has timed out after %gs while trying to connect to (%s, %d).",
                  timeout, host, port);
    return -1;
}

/* a's IP address as text ("127.0.0.1", "::1"); an IPv4 client of an IPv6
 * socket (::ffff:127.0.0.1) as the IPv4 address it is. Its port, when
 * port is given. */
static void ct__sock_ip(const struct sockaddr *a, char *ip, size_t cap, int *port)
{
    snprintf(ip, cap, "?");
    if (a->sa_family == AF_INET) {
        const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
        inet_ntop(AF_INET, &a4->sin_addr, ip, (socklen_t)cap);
        if (port) *port = ntohs(a4->sin_port);
    } else if (a->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
        if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
            inet_ntop(AF_INET, a6->sin6_addr.s6_addr + 12, ip, (socklen_t)cap);
        else
            inet_ntop(AF_INET6, &a6->sin6_addr, ip, (socklen_t)cap);
        if (port) *port = ntohs(a6->sin6_port);
    }
}

/* The IP address of fd's own end: "?" when the socket cannot tell. */
static void ct__sock_local_ip(int fd, char *ip, size_t cap)
{
    struct sockaddr_storage a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &len);
    ct__sock_ip((const struct sockaddr *)&a, ip, cap, NULL);
}

/* fd's peer as gloo names it in its errors: "[127.0.0.1]:41234", "[::1]:41234". */
static void ct__sock_peer_name(int fd, char *out, size_t cap)
{
    struct sockaddr_storage a;
    socklen_t len = sizeof a;
    char ip[INET6_ADDRSTRLEN];
    int port = 0;
    memset(&a, 0, sizeof a);
    getpeername(fd, (struct sockaddr *)&a, &len);
    ct__sock_ip((const struct sockaddr *)&a, ip, sizeof ip, &port);
    snprintf(out, cap, "[%s]:%d", ip, port);
}

/* Waits until fd is ready for `events` or the deadline passed. */
static ct_result ct__sock_ready(int fd, short events, double deadline)
{
    struct pollfd p;
    p.fd = fd, p.events = events, p.revents = 0;
    int rc;
    while ((rc = poll(&p, 1, ct__sock_ms_left(deadline))) < 0 && errno == EINTR) {}
    if (rc == 0) return ct__dist_fail(CT_ERR_RUNTIME, "Socket Timeout");
    return CT_OK;
}

static ct_result ct__sock_io_error(int err)
{
    if (err == 0) return ct__dist_fail(CT_ERR_RUNTIME, "Connection closed by peer");
    return ct__dist_fail(CT_ERR_RUNTIME, "Socket error %d: %s", err, strerror(err));
}

static ct_result ct__sock_send_all(int fd, const void *buf, size_t n, double deadline)
{
    const char *p = (const char *)buf;
    while (n > 0) {
        if (ct__sock_ready(fd, POLLOUT, deadline) != CT_OK) return CT_ERR_RUNTIME;
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) return ct__sock_io_error(errno);
        p += k, n -= (size_t)k;
    }
    return CT_OK;
}

static ct_result ct__sock_recv_all(int fd, void *buf, size_t n, double deadline)
{
    char *p = (char *)buf;
    while (n > 0) {
        if (ct__sock_ready(fd, POLLIN, deadline) != CT_OK) return CT_ERR_RUNTIME;
        ssize_t k = recv(fd, p, n, 0);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) return ct__sock_io_error(k == 0 ? 0 : errno);
        p += k, n -= (size_t)k;
    }
    return CT_OK;
}

/* ==================== dist/store.c ==================== */
// >>dist/store.c
/* The TCP store (torch.distributed.TCPStore): a key-value store that the
 * master process serves, one thread per client connection, and that every
 * process (the master too) reaches through a client connection. It carries
 * the gloo backend's rendezvous. The wire format is PyTorch 1.13's
 * TCPStore's, so that ctorch's clients work with the store torchrun's agent
 * serves and Python's clients with ctorch's: a query type byte, then
 * strings and byte vectors as a 64-bit length and the bytes, integers as
 * 64 bits. SET has no answer; WAIT and GET are answered once their keys
 * exist, so a client's wait is bounded by its own socket deadline. The
 * server's threads never set ctorch's error: a client that goes away, or
 * sends a query it does not know (WATCH_KEY), just ends its thread. */

/* c10d's QueryType, in its order. */
enum { CT__STORE_SET, CT__STORE_COMPARE_SET, CT__STORE_GET, CT__STORE_ADD, CT__STORE_CHECK, CT__STORE_WAIT,
       CT__STORE_GETNUMKEYS, CT__STORE_WATCH_KEY, CT__STORE_DELETE_KEY };

/* TCPStore's key prefixes: the one its API puts before every key, and the
 * key through which clients count themselves in (waitForWorkers). */
#define CT__STORE_PREFIX "/"
#define CT__STORE_INIT_KEY "init/"

typedef struct ct__store_entry {
    struct ct__store_entry *next;
    char *key, *value;
    size_t len;
} ct__store_entry;

typedef struct ct__store_server ct__store_server;

typedef struct ct__store_conn {
    struct ct__store_conn *next;
    int fd;
    pthread_t thread;
    ct__store_server *server;
} ct__store_conn;

struct ct__store_server {
    int listen_fd;
    pthread_t acceptor;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a key was set, or the server stops */
    ct__store_entry *entries;
    ct__store_conn *conns;
    bool stopping;
};

struct ct_tcp_store {
    ct__store_server *server; /* the master's; NULL elsewhere */
    int fd;                   /* this process's client connection; -1 once broken */
    int port;
    double timeout;
    pthread_mutex_t lock; /* one request at a time on the connection */
};

/* ---------------------------------------------------------------- server */

static bool ct__store_read(int fd, void *buf, size_t n)
{
    for (char *p = (char *)buf; n > 0;) {
        ssize_t k = recv(fd, p, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k, n -= (size_t)k;
    }
    return true;
}

static bool ct__store_write(int fd, const void *buf, size_t n)
{
    for (const char *p = (const char *)buf; n > 0;) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k, n -= (size_t)k;
    }
    return true;
}

static ct__store_entry *ct__store_find(ct__store_server *s, const char *key)
{
    for (ct__store_entry *e = s->entries; e; e = e->next)
        if (strcmp(e->key, key) == 0) return e;
    return NULL;
}

/* Sets key to value (taken over) and wakes the waiters; the entry, or
 * NULL when out of memory. */
static ct__store_entry *ct__store_put(ct__store_server *s, const char *key, char *value, size_t len)
{
    ct__store_entry *e = ct__store_find(s, key);
    if (!e) {
        e = (ct__store_entry *)CT_MALLOC(sizeof *e);
        char *k = ct__dist_strdup(key);
        if (!e || !k) {
            CT_FREE(e), CT_FREE(k), CT_FREE(value);
            return NULL;
        }
        e->key = k, e->value = NULL, e->next = s->entries, s->entries = e;
    }
    CT_FREE(e->value);
    e->value = value, e->len = len;
    pthread_cond_broadcast(&s->changed);
    return e;
}

/* ADD: the value, a decimal number as PyTorch keeps it, grows by amount. */
static bool ct__store_add(ct__store_server *s, const char *key, int64_t amount, int64_t *sum)
{
    ct__store_entry *e = ct__store_find(s, key);
    char text[32], *copy;
    *sum = amount + (e ? strtoll(e->value, NULL, 10) : 0);
    snprintf(text, sizeof text, "%lld", (long long)*sum);
    return (copy = ct__dist_strdup(text)) && ct__store_put(s, key, copy, strlen(text)) != NULL;
}

/* Waits (lock held) until key exists; NULL when the server stops first. */
static ct__store_entry *ct__store_await(ct__store_server *s, const char *key)
{
    ct__store_entry *e;
    while (!(e = ct__store_find(s, key)) && !s->stopping) pthread_cond_wait(&s->changed, &s->lock);
    return e;
}

/* A string or byte vector of the wire: its length, then its bytes, read
 * into a NUL-terminated buffer; NULL when the client went away. */
static char *ct__store_read_bytes(int fd, uint64_t *len)
{
    char *p = NULL;
    if (!ct__store_read(fd, len, sizeof *len) || *len >= ((uint64_t)1 << 40) || !(p = (char *)CT_MALLOC(*len + 1)) ||
        !ct__store_read(fd, p, *len)) {
        CT_FREE(p);
        return NULL;
    }
    p[*len] = 0;
    return p;
}

/* CHECK's and WAIT's keys: whether all exist (lock held), after waiting
 * for them when `wait`; false when the server stops first. */
static bool ct__store_keys_ready(ct__store_server *s, char **keys, uint64_t n, bool wait)
{
    for (uint64_t i = 0; i < n; i++)
        if (!(wait ? ct__store_await(s, keys[i]) : ct__store_find(s, keys[i]))) return false;
    return true;
}

/* CHECK and WAIT: the number of keys, the keys; one byte answers (0:
 * ready, 1: not ready). */
static bool ct__store_serve_keys(ct__store_server *s, int fd, bool wait)
{
    uint64_t n = 0, len;
    char **keys = NULL;
    bool ok = ct__store_read(fd, &n, sizeof n) && n < (1u << 20) && (keys = (char **)CT_MALLOC(n * sizeof *keys + 1));
    uint64_t got = 0;
    while (ok && got < n && (keys[got] = ct__store_read_bytes(fd, &len)) != NULL) got++;
    ok = ok && got == n;
    if (ok) {
        pthread_mutex_lock(&s->lock);
        unsigned char ready = ct__store_keys_ready(s, keys, n, wait) ? 0 : 1;
        ok = !(wait && ready) && !s->stopping;
        pthread_mutex_unlock(&s->lock);
        ok = ok && ct__store_write(fd, &ready, 1);
    }
    while (got > 0) CT_FREE(keys[--got]);
    CT_FREE(keys);
    return ok;
}

/* A byte vector answer: its length, then its bytes, copied (lock held)
 * so that it is written after the lock is released; NULL when out of
 * memory. *size is the answer's whole length. */
static char *ct__store_vector_answer(const char *bytes, uint64_t n, size_t *size)
{
    char *answer = (char *)CT_MALLOC(sizeof n + n + 1);
    if (!answer) return NULL;
    memcpy(answer, &n, sizeof n), memcpy(answer + sizeof n, bytes, n);
    *size = sizeof n + n;
    return answer;
}

static bool ct__store_write_answer(int fd, char *answer, size_t size)
{
    bool ok = answer && ct__store_write(fd, answer, size);
    CT_FREE(answer);
    return ok;
}

/* GET: the key; the value answers, once it exists. */
static bool ct__store_serve_get(ct__store_server *s, int fd, const char *key)
{
    char *answer = NULL;
    size_t size = 0;
    pthread_mutex_lock(&s->lock);
    ct__store_entry *e = ct__store_await(s, key);
    if (e) answer = ct__store_vector_answer(e->value, e->len, &size);
    pthread_mutex_unlock(&s->lock);
    return ct__store_write_answer(fd, answer, size);
}

/* SET: the key, the value; no answer. */
static bool ct__store_serve_set(ct__store_server *s, int fd, const char *key)
{
    uint64_t len;
    char *value = ct__store_read_bytes(fd, &len);
    if (!value) return false;
    pthread_mutex_lock(&s->lock);
    bool ok = ct__store_put(s, key, value, len) != NULL; /* takes value */
    pthread_mutex_unlock(&s->lock);
    return ok;
}

/* ADD: the key, the amount; the sum answers. */
static bool ct__store_serve_add(ct__store_server *s, int fd, const char *key)
{
    int64_t amount = 0, sum = 0;
    if (!ct__store_read(fd, &amount, sizeof amount)) return false;
    pthread_mutex_lock(&s->lock);
    bool ok = ct__store_add(s, key, amount, &sum);
    pthread_mutex_unlock(&s->lock);
    return ok && ct__store_write(fd, &sum, sizeof sum);
}

/* COMPARE_SET: the key, the expected value, the desired one. The key
 * takes the desired value when it holds the expected one, or when it is
 * missing and the expected value is empty; the key's value then answers,
 * or, for a missing key, the expected value (as PyTorch's server). Unlike
 * PyTorch's, which only wakes them on SET and ADD, a key made here wakes
 * the clients waiting for it. */
static bool ct__store_serve_compare_set(ct__store_server *s, int fd, const char *key)
{
    uint64_t expected_len = 0, desired_len = 0;
    char *expected = ct__store_read_bytes(fd, &expected_len);
    char *desired = expected ? ct__store_read_bytes(fd, &desired_len) : NULL, *answer = NULL;
    size_t size = 0;
    if (desired) {
        pthread_mutex_lock(&s->lock);
        ct__store_entry *e = ct__store_find(s, key);
        bool swap = e ? e->len == expected_len && memcmp(e->value, expected, expected_len) == 0 : expected_len == 0;
        if (swap) e = ct__store_put(s, key, desired, desired_len), desired = NULL; /* takes desired */
        if (e) answer = ct__store_vector_answer(e->value, e->len, &size);
        else if (!swap) answer = ct__store_vector_answer(expected, expected_len, &size); /* missing: PyTorch answers this */
        pthread_mutex_unlock(&s->lock);
    }
    CT_FREE(expected), CT_FREE(desired);
    return ct__store_write_answer(fd, answer, size);
}

/* DELETE_KEY: the key; the number of keys deleted (0 or 1) answers. */
static bool ct__store_serve_delete_key(ct__store_server *s, int fd, const char *key)
{
    int64_t deleted = 0;
    pthread_mutex_lock(&s->lock);
    for (ct__store_entry **link = &s->entries, *e; (e = *link) != NULL; link = &e->next)
        if (strcmp(e->key, key) == 0) {
            *link = e->next, deleted = 1;
            CT_FREE(e->key), CT_FREE(e->value), CT_FREE(e);
            break;
        }
    pthread_mutex_unlock(&s->lock);
    return ct__store_write(fd, &deleted, sizeof deleted);
}

/* GETNUMKEYS: the number of keys answers, the ones the API's users do not
 * see included ("init/", where clients count themselves in). */
static bool ct__store_serve_num_keys(ct__store_server *s, int fd)
{
    int64_t n = 0;
    pthread_mutex_lock(&s->lock);
    for (ct__store_entry *e = s->entries; e; e = e->next) n++;
    pthread_mutex_unlock(&s->lock);
    return ct__store_write(fd, &n, sizeof n);
}

typedef bool (*ct__store_keyed_query)(ct__store_server *s, int fd, const char *key);

/* The handler of a query that starts with a key; NULL for the others. */
static ct__store_keyed_query ct__store_keyed_handler(int cmd)
{
    switch (cmd) {
    case CT__STORE_SET: return ct__store_serve_set;
    case CT__STORE_COMPARE_SET: return ct__store_serve_compare_set;
    case CT__STORE_GET: return ct__store_serve_get;
    case CT__STORE_ADD: return ct__store_serve_add;
    case CT__STORE_DELETE_KEY: return ct__store_serve_delete_key;
    default: return NULL;
    }
}

/* One query; false ends the connection. */
static bool ct__store_serve(ct__store_server *s, int fd, int cmd)
{
    if (cmd == CT__STORE_CHECK || cmd == CT__STORE_WAIT) return ct__store_serve_keys(s, fd, cmd == CT__STORE_WAIT);
    if (cmd == CT__STORE_GETNUMKEYS) return ct__store_serve_num_keys(s, fd);
    ct__store_keyed_query handler = ct__store_keyed_handler(cmd);
    uint64_t len;
    char *key = handler ? ct__store_read_bytes(fd, &len) : NULL; /* WATCH_KEY, or garbage: the connection ends */
    bool ok = key && handler(s, fd, key);
    CT_FREE(key);
    return ok;
}

static void *ct__store_conn_main(void *arg)
{
    ct__store_conn *c = (ct__store_conn *)arg;
    unsigned char cmd;
    while (ct__store_read(c->fd, &cmd, 1) && ct__store_serve(c->server, c->fd, cmd)) {}
    shutdown(c->fd, SHUT_RDWR);
    return NULL;
}

static void *ct__store_accept_main(void *arg)
{
    ct__store_server *s = (ct__store_server *)arg;
    for (;;) {
        int fd = accept(s->listen_fd, NULL, NULL);
        if (fd < 0 && errno == EINTR) continue;
        if (fd < 0) break; /* the listening socket was shut down */
        ct__store_conn *c = (ct__store_conn *)CT_MALLOC(sizeof *c);
        pthread_mutex_lock(&s->lock);
        bool started = c && !s->stopping;
        if (started) {
            c->fd = fd, c->server = s;
            started = pthread_create(&c->thread, NULL, ct__store_conn_main, c) == 0;
        }
        if (started) c->next = s->conns, s->conns = c;
        pthread_mutex_unlock(&s->lock);
        if (!started) close(fd), CT_FREE(c);
    }
    return NULL;
}

static void ct__store_server_stop(ct__store_server *s)
{
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    shutdown(s->listen_fd, SHUT_RDWR); /* wakes accept */
    pthread_join(s->acceptor, NULL);
    close(s->listen_fd);
    for (ct__store_conn *c = s->conns; c; c = s->conns) {
        shutdown(c->fd, SHUT_RDWR); /* wakes its read */
        pthread_join(c->thread, NULL);
        close(c->fd);
        s->conns = c->next;
        CT_FREE(c);
    }
    for (ct__store_entry *e = s->entries; e; e = s->entries) {
        s->entries = e->next;
        CT_FREE(e->key), CT_FREE(e->value), CT_FREE(e);
    }
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    CT_FREE(s);
}

static ct__store_server *ct__store_server_start(int *port)
{
    ct__store_server *s = (ct__store_server *)ct__dist_alloc(sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    if ((s->listen_fd = ct__sock_listen(port, 128)) < 0) {
        CT_FREE(s);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    if (pthread_create(&s->acceptor, NULL, ct__store_accept_main, s) != 0) {
        close(s->listen_fd);
        CT_FREE(s);
        ct__dist_fail(CT_ERR_RUNTIME, "The TCP store's server thread could not be started");
        return NULL;
    }
    return s;
}

/* The master waits for world_size clients (itself included) to count
 * themselves in, as TCPStore's waitForWorkers. */
static ct_result ct__store_wait_for_workers(ct__store_server *s, int world_size, double timeout)
{
    struct timespec until;
    timespec_get(&until, TIME_UTC);
    double end = (double)until.tv_sec + 1e-9 * (double)until.tv_nsec + timeout;
    until.tv_sec = (time_t)end, until.tv_nsec = (long)((end - (double)(time_t)end) * 1e9);
    pthread_mutex_lock(&s->lock);
    int rc = 0, joined;
    ct__store_entry *e;
    while ((joined = (e = ct__store_find(s, CT__STORE_INIT_KEY)) ? atoi(e->value) : 0) < world_size && rc == 0)
        rc = pthread_cond_timedwait(&s->changed, &s->lock, &until);
    pthread_mutex_unlock(&s->lock);
    if (joined >= world_size) return CT_OK;
    return ct__dist_fail(CT_ERR_RUNTIME, "Timed out after %g seconds waiting for clients. %d/%d clients joined.", timeout,
                         joined, world_size);
}

/* ---------------------------------------------------------------- client */

/* A failed request leaves the connection out of step with the server, so
 * it is closed: later requests fail at once. */
static ct_result ct__store_broken(ct_tcp_store *s, ct_result res)
{
    if (res != CT_OK && s->fd >= 0) close(s->fd), s->fd = -1;
    return res;
}

static ct_result ct__store_send_cmd(ct_tcp_store *s, int cmd, double deadline)
{
    unsigned char c = (unsigned char)cmd;
    if (s->fd < 0) return ct__dist_fail(CT_ERR_RUNTIME, "Connection closed by peer");
    return ct__store_broken(s, ct__sock_send_all(s->fd, &c, 1, deadline));
}

/* A string or byte vector: its length, then its bytes. */
static ct_result ct__store_send_bytes(ct_tcp_store *s, const void *p, uint64_t n, double deadline)
{
    ct_result res = ct__sock_send_all(s->fd, &n, sizeof n, deadline);
    if (res == CT_OK) res = ct__sock_send_all(s->fd, p, (size_t)n, deadline);
    return ct__store_broken(s, res);
}

static ct_result ct__store_recv(ct_tcp_store *s, void *p, size_t n, double deadline)
{
    return ct__store_broken(s, ct__sock_recv_all(s->fd, p, n, deadline));
}

/* A key as TCPStore's API sends it, after its prefix (NULL: out of memory). */
static char *ct__store_full_key(const char *key)
{
    size_t n = strlen(CT__STORE_PREFIX) + strlen(key) + 1;
    char *full = (char *)ct__dist_alloc(n);
    if (full) snprintf(full, n, "%s%s", CT__STORE_PREFIX, key);
    return full;
}

static ct_result ct__store_send_key(ct_tcp_store *s, const char *key, double deadline)
{
    char *full = ct__store_full_key(key);
    ct_result res = full ? ct__store_send_bytes(s, full, strlen(full), deadline) : CT_ERR_MEMORY;
    CT_FREE(full);
    return res;
}

/* The start of a query about one key: its type, then the key. */
static ct_result ct__store_send_keyed(ct_tcp_store *s, int cmd, const char *key, double deadline)
{
    ct_result res = ct__store_send_cmd(s, cmd, deadline);
    return res == CT_OK ? ct__store_send_key(s, key, deadline) : res;
}

static ct_result ct__store_add_raw(ct_tcp_store *s, const char *full_key, int64_t amount, int64_t *sum, double deadline)
{
    ct_result res = ct__store_send_cmd(s, CT__STORE_ADD, deadline);
    if (res == CT_OK) res = ct__store_send_bytes(s, full_key, strlen(full_key), deadline);
    if (res == CT_OK) res = ct__store_broken(s, ct__sock_send_all(s->fd, &amount, sizeof amount, deadline));
    return res == CT_OK ? ct__store_recv(s, sum, sizeof *sum, deadline) : res;
}

ct_tcp_store *ct_tcp_store_new(const char *host_name, int port, ct_tcp_store_opts opts)
{
    if (!host_name) {
        ct__dist_fail(CT_ERR_VALUE, "TCPStore(): host_name must be a string, not NULL");
        return NULL;
    }
    if (port < 0 || port > 65535 || opts.world_size < 0 || opts.timeout < 0) {
        ct__dist_fail(CT_ERR_VALUE, "TCPStore(): port must be in [0, 65535], world_size and timeout not negative");
        return NULL;
    }
    ct_tcp_store *s = (ct_tcp_store *)ct__dist_alloc(sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->timeout = opts.timeout > 0 ? opts.timeout : 300.0;
    s->port = port;
    s->fd = -1;
    pthread_mutex_init(&s->lock, NULL);
    int64_t joined = 0;
    bool ok = !opts.is_master || (s->server = ct__store_server_start(&s->port)) != NULL;
    ok = ok && (s->fd = ct__sock_connect(host_name, s->port, s->timeout)) >= 0;
    if (ok && opts.world_size > 0) /* every client counts itself in, as TCPStore's */
        ok = ct__store_add_raw(s, CT__STORE_INIT_KEY, 1, &joined, ct__dist_seconds() + s->timeout) == CT_OK;
    if (ok && s->server && opts.world_size > 0)
        ok = ct__store_wait_for_workers(s->server, opts.world_size, s->timeout) == CT_OK;
    if (!ok) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", ct_last_error());
        ct_tcp_store_free(s);
        ct_set_error(CT_ERR_RUNTIME, msg);
        return NULL;
    }
    return s;
}

int ct_tcp_store_port(const ct_tcp_store *store) { return store ? store->port : -1; }

void ct_tcp_store_free(ct_tcp_store *store)
{
    if (!store) return;
    if (store->fd >= 0) close(store->fd);
    if (store->server) ct__store_server_stop(store->server);
    pthread_mutex_destroy(&store->lock);
    CT_FREE(store);
}

static ct_result ct__store_check_self(const ct_tcp_store *s)
{
    if (!s) return ct__dist_fail(CT_ERR_TYPE, "TCPStore: argument 'self' must be TCPStore, not NULL");
    return CT_OK;
}

static ct_result ct__store_check(const ct_tcp_store *s, const char *key)
{
    ct_result res = ct__store_check_self(s);
    if (res == CT_OK && !key) res = ct__dist_fail(CT_ERR_TYPE, "TCPStore: key must be a string, not NULL");
    return res;
}

/* n keys, every one a string (none is fine). */
static ct_result ct__store_check_keys(const ct_tcp_store *s, const char *const *keys, int n)
{
    ct_result res = ct__store_check_self(s);
    if (res == CT_OK && n < 0) res = ct__dist_fail(CT_ERR_VALUE, "TCPStore: the number of keys must not be negative, not %d", n);
    if (res == CT_OK && n > 0 && !keys) res = ct__dist_fail(CT_ERR_TYPE, "TCPStore: keys must be a list of strings, not NULL");
    for (int i = 0; i < n && res == CT_OK; i++) res = ct__store_check(s, keys[i]);
    return res;
}

/* A buffer of len bytes: NULL only when empty. */
static ct_result ct__store_check_bytes(const char *name, const void *p, size_t len)
{
    if (!p && len > 0) return ct__dist_fail(CT_ERR_TYPE, "TCPStore: %s must be bytes, not NULL", name);
    return CT_OK;
}

ct_result ct_tcp_store_set(ct_tcp_store *store, const char *key, const void *value, size_t len)
{
    ct_result res = ct__store_check(store, key);
    if (res == CT_OK) res = ct__store_check_bytes("value", value, len);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + store->timeout;
    pthread_mutex_lock(&store->lock);
    res = ct__store_send_keyed(store, CT__STORE_SET, key, deadline);
    if (res == CT_OK) res = ct__store_send_bytes(store, value, len, deadline);
    pthread_mutex_unlock(&store->lock);
    return res;
}

/* CHECK or WAIT for n keys (lock held): the number of keys, the keys;
 * one byte answers (0: all exist; WAIT answers once they do). */
static ct_result ct__store_keys_query(ct_tcp_store *s, int cmd, const char *const *keys, int n, double deadline,
                                      unsigned char *answer)
{
    uint64_t count = (uint64_t)n;
    ct_result res = ct__store_send_cmd(s, cmd, deadline);
    if (res == CT_OK) res = ct__store_broken(s, ct__sock_send_all(s->fd, &count, sizeof count, deadline));
    for (int i = 0; i < n && res == CT_OK; i++) res = ct__store_send_key(s, keys[i], deadline);
    if (res == CT_OK) res = ct__store_recv(s, answer, 1, deadline);
    return res;
}

static ct_result ct__store_wait_locked(ct_tcp_store *s, const char *const *keys, int n, double deadline)
{
    unsigned char answer = 1;
    return ct__store_keys_query(s, CT__STORE_WAIT, keys, n, deadline, &answer);
}

/* The rest of an answer that did not fit the caller's buffer. */
static ct_result ct__store_skip(ct_tcp_store *s, uint64_t n, double deadline)
{
    char sink[4096];
    ct_result res = CT_OK;
    for (; n > 0 && res == CT_OK; n -= n < sizeof sink ? n : sizeof sink)
        res = ct__store_recv(s, sink, n < sizeof sink ? (size_t)n : sizeof sink, deadline);
    return res;
}

/* A byte vector answer (lock held): at most cap bytes into value, and
 * the whole length into *len. */
static ct_result ct__store_recv_vector(ct_tcp_store *s, void *value, size_t cap, uint64_t *len, double deadline)
{
    ct_result res = ct__store_recv(s, len, sizeof *len, deadline);
    size_t kept = *len < cap ? (size_t)*len : cap;
    if (res == CT_OK) res = ct__store_recv(s, value, kept, deadline);
    if (res == CT_OK) res = ct__store_skip(s, *len - kept, deadline);
    return res;
}

ct_result ct_tcp_store_get(ct_tcp_store *store, const char *key, void *value, size_t cap, size_t *len)
{
    uint64_t n = 0;
    ct_result res = ct__store_check(store, key);
    if (res == CT_OK) res = ct__store_check_bytes("value", value, cap);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + store->timeout;
    pthread_mutex_lock(&store->lock);
    res = ct__store_wait_locked(store, &key, 1, deadline); /* as TCPStore::get: PyTorch's server fails a GET of a missing key */
    if (res == CT_OK) res = ct__store_send_keyed(store, CT__STORE_GET, key, deadline);
    if (res == CT_OK) res = ct__store_recv_vector(store, value, cap, &n, deadline);
    pthread_mutex_unlock(&store->lock);
    if (len) *len = res == CT_OK ? (size_t)n : 0;
    return res;
}

ct_result ct_tcp_store_compare_set(ct_tcp_store *store, const char *key, const void *expected, size_t expected_len,
                                   const void *desired, size_t desired_len, void *value, size_t cap, size_t *len)
{
    uint64_t n = 0;
    ct_result res = ct__store_check(store, key);
    if (res == CT_OK) res = ct__store_check_bytes("expected_value", expected, expected_len);
    if (res == CT_OK) res = ct__store_check_bytes("desired_value", desired, desired_len);
    if (res == CT_OK) res = ct__store_check_bytes("value", value, cap);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + store->timeout;
    pthread_mutex_lock(&store->lock);
    res = ct__store_send_keyed(store, CT__STORE_COMPARE_SET, key, deadline);
    if (res == CT_OK) res = ct__store_send_bytes(store, expected, expected_len, deadline);
    if (res == CT_OK) res = ct__store_send_bytes(store, desired, desired_len, deadline);
    if (res == CT_OK) res = ct__store_recv_vector(store, value, cap, &n, deadline);
    pthread_mutex_unlock(&store->lock);
    if (len) *len = res == CT_OK ? (size_t)n : 0;
    return res;
}

ct_result ct_tcp_store_delete_key(ct_tcp_store *store, const char *key, bool *deleted)
{
    int64_t n = 0;
    ct_result res = ct__store_check(store, key);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + store->timeout;
    pthread_mutex_lock(&store->lock);
    res = ct__store_send_keyed(store, CT__STORE_DELETE_KEY, key, deadline);
    if (res == CT_OK) res = ct__store_recv(store, &n, sizeof n, deadline);
    pthread_mutex_unlock(&store->lock);
    if (deleted) *deleted = res == CT_OK && n == 1;
    return res;
}

ct_result ct_tcp_store_num_keys(ct_tcp_store *store, int64_t *n)
{
    int64_t count = 0;
    ct_result res = ct__store_check_self(store);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + store->timeout;
    pthread_mutex_lock(&store->lock);
    res = ct__store_send_cmd(store, CT__STORE_GETNUMKEYS, deadline);
    if (res == CT_OK) res = ct__store_recv(store, &count, sizeof count, deadline);
    pthread_mutex_unlock(&store->lock);
    if (n) *n = res == CT_OK ? count : 0;
    return res;
}

ct_result ct_tcp_store_add(ct_tcp_store *store, const char *key, int64_t amount, int64_t *value)
{
    int64_t sum = 0;
    ct_result res = ct__store_check(store, key);
    char *full = res == CT_OK ? ct__store_full_key(key) : NULL;
    if (!full) return ct_last_error_code();
    pthread_mutex_lock(&store->lock);
    res = ct__store_add_raw(store, full, amount, &sum, ct__dist_seconds() + store->timeout);
    pthread_mutex_unlock(&store->lock);
    CT_FREE(full);
    if (value) *value = sum;
    return res;
}

ct_result ct_tcp_store_wait(ct_tcp_store *store, const char *const *keys, int n, double timeout)
{
    ct_result res = ct__store_check_keys(store, keys, n);
    if (res != CT_OK) return res;
    pthread_mutex_lock(&store->lock);
    res = ct__store_wait_locked(store, keys, n, ct__dist_seconds() + (timeout > 0 ? timeout : store->timeout));
    pthread_mutex_unlock(&store->lock);
    return res;
}

ct_result ct_tcp_store_check(ct_tcp_store *store, const char *const *keys, int n, bool *ready)
{
    unsigned char answer = 1;
    ct_result res = ct__store_check_keys(store, keys, n);
    if (res != CT_OK) return res;
    pthread_mutex_lock(&store->lock);
    res = ct__store_keys_query(store, CT__STORE_CHECK, keys, n, ct__dist_seconds() + store->timeout, &answer);
    pthread_mutex_unlock(&store->lock);
    if (ready) *ready = res == CT_OK && answer == 0;
    return res;
}

/* ==================== dist/tcp.c ==================== */
// >>dist/tcp.c
/* The gloo backend: ctorch's own transport over TCP, named after PyTorch's
 * CPU backend (ProcessGroupGloo) so that programs written for torchrun
 * run as they are. Only POSIX sockets and threads.
 *
 * init makes the rendezvous through a TCP store (env:// or tcp://), which
 * rank 0 serves, or torchrun's agent when it says it does: each rank
 * publishes the address it listens on, connects to the lower ranks
 * and accepts the higher ones, so that every pair of ranks shares one
 * socket. One engine thread per process owns the sockets: it writes the
 * queued messages and reads every incoming one as it comes (into the
 * receive posted for it, or into a buffer kept until one is), so a send
 * never waits for its receiver and two ranks sending each other large
 * buffers cannot deadlock. A message carries its communicator's context
 * and a tag; receives match them in posting order, as MPI's do.
 *
 * Each communicator (a group's data, or its control messages) has a worker
 * thread that runs its collectives one after the other in posting order
 * (the front end has every rank post the same ones in the same order),
 * each as steps of sends and receives on the engine. The program's sends
 * and receives go to the engine directly.
 *
 * A lost connection fails the operations that need its peer. One that
 * failed so aborts the engine: all its operations fail with the same
 * message, and it tells every other rank, which aborts too, so that the
 * ranks waiting on a survivor (one that gave up) fail at once rather than
 * at their timeout. Its close waits, up to the timeout, until the others
 * have read that message, so that even a rank that had stopped reading
 * names the first failure. */

#define CT__TCP_COLLECTIVE_TAG (-1) /* a worker's collective messages */
#define CT__TCP_SETUP_TAG (-2)      /* init's and split's exchanges, made by the calling thread */
/* An aborted engine's close delivers its abort messages for at most this
 * many seconds (or the group's timeout, when shorter): a peer that has not
 * read them by then is hung, and destroy_process_group must not wait on it
 * for the default timeout's 30 minutes. */
#define CT__TCP_ABORT_LINGER 10.0
#define CT__TCP_ABORT_TAG (-3)      /* an aborting engine's message to the others: why */
#define CT__TCP_MAGIC 0x63744750u   /* a mesh connection's hello */
#define CT__TCP_ERROR_LEN 320

typedef struct ct__tcp_header {
    uint64_t ctx;
    int32_t tag;
    uint32_t unused;
    uint64_t len;
} ct__tcp_header;

/* A send or receive on the engine. */
typedef struct ct__tcp_req {
    struct ct__tcp_req *next;
    uint64_t ctx;
    int tag, peer; /* peer: a world rank; -1 for a receive from any */
    bool sending, complete, failed;
    bool orphan; /* the engine's own (an abort message, its text in error; the rest of an aborted send, after
                    it): freed once it went */
    char *buf;
    size_t len;   /* a send's bytes; a receive's capacity, then what arrived */
    size_t moved; /* a send's bytes of header and payload written */
    ct__tcp_header header;
    int source;
    char error[CT__TCP_ERROR_LEN];
} ct__tcp_req;

/* A message that arrived before its receive was posted. */
typedef struct ct__tcp_held {
    struct ct__tcp_held *next;
    uint64_t ctx;
    int tag, source;
    char *data;
    size_t len;
    bool arrived, dropped; /* dropped: its receive was cancelled while it arrived */
    ct__tcp_req *claimed;  /* the receive that took it while it was still arriving */
} ct__tcp_held;

typedef struct ct__tcp_peer {
    int fd; /* -1 for this rank, or once lost */
    bool lost;
    bool shut; /* shut for writing: the engine closes, waiting for the peer to read all */
    char addr[64]; /* [ip]:port, for messages */
    char why[CT__TCP_ERROR_LEN];
    ct__tcp_req *sends, *sends_tail; /* the first may be partly written */
    ct__tcp_header in;               /* the incoming message's header */
    size_t in_have;                  /* its bytes read so far */
    char *in_dst;                    /* where its payload goes; NULL: dropped */
    size_t in_left;                  /* payload bytes still to read */
    ct__tcp_req *in_req;             /* the receive it completes, or */
    ct__tcp_held *in_held;           /* the held message it fills */
    char abort_in[CT__TCP_ERROR_LEN]; /* an abort message's text, as it arrives */
} ct__tcp_peer;

typedef struct ct__tcp_engine {
    int rank, size, refs;
    ct__tcp_peer *peers;
    struct pollfd *polled;
    int *polled_peer;
    pthread_mutex_t lock;
    pthread_cond_t progress; /* a request completed, a job was queued, or a comm closes */
    uint64_t completions;    /* requests and jobs completed so far */
    uint64_t tested;         /* completions when the program's thread last found its work running */
    pthread_t thread;
    bool running, stop;
    int wake[2];
    ct__tcp_req *posted, *posted_tail; /* receives not matched yet */
    ct__tcp_held *held;                /* messages not received yet, oldest first */
    bool aborted;                      /* an operation failed for a lost peer: all do now */
    char abort_why[CT__TCP_ERROR_LEN];
    double linger, linger_deadline;    /* how long, and until when, an aborted engine's close delivers its abort
                                          messages (ct__tcp_lingers) */
} ct__tcp_engine;

/* An operation posted on a communicator: a collective for its worker, or a
 * send or receive that the engine moves (p2p). */
typedef struct ct__tcp_job {
    struct ct__tcp_job *next;
    struct ct__tcp_comm *comm;
    ct__dist_op op;
    ct__tcp_req *p2p;
    bool complete, failed;
    char error[CT__TCP_ERROR_LEN];
} ct__tcp_job;

typedef struct ct__tcp_comm {
    ct__tcp_engine *engine;
    uint64_t ctx, splits;
    int rank, size;
    int *world;                    /* comm rank -> world rank */
    ct__tcp_job *jobs, *jobs_tail; /* collectives waiting for the worker */
    bool closing;
    pthread_t worker;
} ct__tcp_comm;

/* One transfer of a collective's step, with a rank of the communicator. */
typedef struct ct__tcp_xfer {
    int peer;
    bool sending;
    char *buf;
    size_t len;
} ct__tcp_xfer;

/* ---------------------------------------------------------------- engine (lock held) */

static ct__tcp_req *ct__tcp_req_new(uint64_t ctx, int tag, int peer, bool sending, void *buf, size_t len)
{
    ct__tcp_req *q = (ct__tcp_req *)CT_MALLOC(sizeof *q);
    if (!q) return NULL;
    memset(q, 0, sizeof *q);
    q->ctx = ctx, q->tag = tag, q->peer = peer, q->sending = sending, q->buf = (char *)buf, q->len = len;
    q->source = -1;
    q->header.ctx = ctx, q->header.tag = tag, q->header.len = len;
    return q;
}

static void ct__tcp_finish(ct__tcp_engine *e, ct__tcp_req *q, const char *error)
{
    if (q->orphan) { /* nobody waits for it */
        CT_FREE(q);
        return;
    }
    q->complete = true;
    if (error) q->failed = true, snprintf(q->error, sizeof q->error, "%s", error);
    e->completions++;
    pthread_cond_broadcast(&e->progress);
}

static void ct__tcp_unlink_held(ct__tcp_engine *e, ct__tcp_held *h)
{
    ct__tcp_held **link = &e->held;
    while (*link && *link != h) link = &(*link)->next;
    if (*link) *link = h->next;
    CT_FREE(h->data);
    CT_FREE(h);
}

static void ct__tcp_unlink_posted(ct__tcp_engine *e, ct__tcp_req *q)
{
    ct__tcp_req **link = &e->posted, *prev = NULL;
    while (*link && *link != q) prev = *link, link = &(*link)->next;
    if (!*link) return;
    *link = q->next;
    if (e->posted_tail == q) e->posted_tail = prev;
}

/* The connection to p is gone: every operation that needs p fails; true
 * when one did. */
static bool ct__tcp_lose(ct__tcp_engine *e, int p, int err)
{
    ct__tcp_peer *peer = &e->peers[p];
    if (peer->lost) return false;
    bool failed = peer->sends || peer->in_req || (peer->in_held && peer->in_held->claimed);
    peer->lost = true;
    bool closed = err == 0 || err == ECONNRESET || err == EPIPE; /* it exited, or closed its end */
    if (!closed) snprintf(peer->why, sizeof peer->why, "Connection with peer %s (rank %d) failed: %s", peer->addr, p, strerror(err));
    else snprintf(peer->why, sizeof peer->why, "Connection closed by peer %s (rank %d)", peer->addr, p);
    close(peer->fd);
    peer->fd = -1;
    for (ct__tcp_req *q = peer->sends; q; q = peer->sends) peer->sends = q->next, ct__tcp_finish(e, q, peer->why);
    if (peer->in_req) ct__tcp_finish(e, peer->in_req, peer->why);
    if (peer->in_held) {
        if (peer->in_held->claimed) ct__tcp_finish(e, peer->in_held->claimed, peer->why);
        ct__tcp_unlink_held(e, peer->in_held);
    }
    peer->in_req = NULL, peer->in_held = NULL;
    for (ct__tcp_req *q = e->posted, *next; q; q = next) {
        next = q->next;
        if (q->peer == p) ct__tcp_unlink_posted(e, q), ct__tcp_finish(e, q, peer->why), failed = true;
    }
    return failed;
}

static void ct__tcp_write(ct__tcp_engine *e, int p);
static void ct__tcp_wake(ct__tcp_engine *e);

/* Queues a send to p, and writes as much as the socket takes now. */
static void ct__tcp_queue_send(ct__tcp_engine *e, int p, ct__tcp_req *q)
{
    ct__tcp_peer *to = &e->peers[p];
    if (to->sends_tail) to->sends_tail->next = q;
    else to->sends = q;
    to->sends_tail = q;
    ct__tcp_write(e, p);
    if (to->sends) ct__tcp_wake(e); /* the engine polls for room */
}

/* An orphan that sends what q has not written yet, the rest of its header
 * and its payload copied (q's caller may free its buffer once q failed);
 * NULL when out of memory. */
static ct__tcp_req *ct__tcp_rest_of(const ct__tcp_req *q)
{
    size_t sent = q->moved > sizeof q->header ? q->moved - sizeof q->header : 0, left = q->len - sent;
    ct__tcp_req *r = (ct__tcp_req *)CT_MALLOC(sizeof *r + left);
    if (!r) return NULL;
    *r = *q;
    r->next = NULL, r->orphan = true, r->buf = (char *)(r + 1), r->len = left, r->moved = q->moved - sent;
    if (left) memcpy(r->buf, q->buf + sent, left);
    return r;
}

/* On abort, p's queued sends fail with the abort's message, as their
 * operations do, rather than keep the abort message behind them: a rank
 * that reads slowly, or not at all for a while (stopped), would get it
 * only after all they hold. One already partly written must still end, or
 * the stream breaks: its rest goes on as an orphan, copied (or, without
 * the memory, the connection closes). */
static void ct__tcp_drop_sends(ct__tcp_engine *e, int p)
{
    ct__tcp_peer *peer = &e->peers[p];
    ct__tcp_req *rest = NULL;
    if (peer->sends && peer->sends->moved > 0 && !(rest = ct__tcp_rest_of(peer->sends))) {
        ct__tcp_lose(e, p, ENOMEM);
        return;
    }
    for (ct__tcp_req *q = peer->sends; q; q = peer->sends) peer->sends = q->next, ct__tcp_finish(e, q, e->abort_why);
    peer->sends = peer->sends_tail = rest;
}

/* An operation failed because a peer was lost, here or (the message of
 * another rank) there: the group cannot go on, as after NCCL's
 * communicator abort. Every operation in flight fails with why, and so does
 * every one posted later; every rank still connected is told why, right
 * after the message being written to it, so that a rank waiting on this
 * one fails at once, naming the lost peer, rather than at its timeout. */
static void ct__tcp_abort(ct__tcp_engine *e, const char *why)
{
    if (e->aborted) return;
    e->aborted = true;
    snprintf(e->abort_why, sizeof e->abort_why, "%s", why);
    for (ct__tcp_req *q = e->posted, *next; q; q = next) next = q->next, ct__tcp_finish(e, q, e->abort_why);
    e->posted = e->posted_tail = NULL;
    for (ct__tcp_held *h = e->held; h; h = h->next)
        if (h->claimed) ct__tcp_finish(e, h->claimed, e->abort_why), h->claimed = NULL, h->dropped = true;
    for (int p = 0; p < e->size; p++) {
        ct__tcp_peer *peer = &e->peers[p];
        if (peer->in_req) ct__tcp_finish(e, peer->in_req, e->abort_why), peer->in_req = NULL, peer->in_dst = NULL;
    }
    for (int p = 0; p < e->size; p++) {
        if (p == e->rank || e->peers[p].lost) continue;
        ct__tcp_drop_sends(e, p);
        if (e->peers[p].lost) continue; /* no memory to end the message being written */
        ct__tcp_req *q = ct__tcp_req_new(0, CT__TCP_ABORT_TAG, p, true, NULL, strlen(e->abort_why));
        if (!q) continue; /* that rank learns of the loss by itself, or at its timeout */
        q->orphan = true, q->buf = q->error;
        snprintf(q->error, sizeof q->error, "%s", e->abort_why);
        ct__tcp_queue_send(e, p, q);
    }
}

/* The connection to p ended (the peer closed it, or the network failed):
 * an operation that needed p aborts the engine. */
static void ct__tcp_lost(ct__tcp_engine *e, int p, int err)
{
    if (ct__tcp_lose(e, p, err)) ct__tcp_abort(e, e->peers[p].why);
}

/* A request for p, which is lost: it fails, and so does the engine. */
static void ct__tcp_fail_lost(ct__tcp_engine *e, ct__tcp_req *q, int p)
{
    ct__tcp_finish(e, q, e->peers[p].why);
    ct__tcp_abort(e, e->peers[p].why);
}

static bool ct__tcp_matches(const ct__tcp_req *q, uint64_t ctx, int tag, int source)
{
    return q->ctx == ctx && q->tag == tag && (q->peer < 0 || q->peer == source);
}

/* A header arrived from p: its payload goes to the first matching receive,
 * or into a held buffer. */
static void ct__tcp_route(ct__tcp_engine *e, int p)
{
    ct__tcp_peer *peer = &e->peers[p];
    ct__tcp_header h = peer->in;
    peer->in_left = (size_t)h.len;
    peer->in_dst = NULL;
    if (h.tag == CT__TCP_ABORT_TAG) {
        if (h.len < sizeof peer->abort_in) peer->in_dst = peer->abort_in;
        else ct__tcp_lost(e, p, EPROTO); /* no ctorch rank sends one so long */
        return;
    }
    if (e->aborted) return; /* nothing will receive it: dropped */
    for (ct__tcp_req *q = e->posted; q; q = q->next)
        if (ct__tcp_matches(q, h.ctx, h.tag, p)) {
            ct__tcp_unlink_posted(e, q);
            q->source = p;
            if (h.len > q->len) {
                char msg[128];
                snprintf(msg, sizeof msg, "Message of %llu bytes from rank %d for a receive of %llu bytes",
                         (unsigned long long)h.len, p, (unsigned long long)q->len);
                ct__tcp_finish(e, q, msg); /* the payload is dropped */
                return;
            }
            q->len = (size_t)h.len;
            peer->in_req = q, peer->in_dst = q->buf;
            return;
        }
    ct__tcp_held *held = (ct__tcp_held *)CT_MALLOC(sizeof *held);
    char *data = held ? (char *)CT_MALLOC(h.len ? (size_t)h.len : 1) : NULL;
    if (!data) { /* no memory to hold it: the connection cannot go on */
        CT_FREE(held);
        ct__tcp_lost(e, p, ENOMEM);
        return;
    }
    memset(held, 0, sizeof *held);
    held->ctx = h.ctx, held->tag = h.tag, held->source = p, held->data = data, held->len = (size_t)h.len;
    ct__tcp_held **link = &e->held;
    while (*link) link = &(*link)->next;
    *link = held;
    peer->in_held = held, peer->in_dst = data;
}

/* A held message's receive was posted, and the message is all there. */
static void ct__tcp_deliver_held(ct__tcp_engine *e, ct__tcp_held *h)
{
    memcpy(h->claimed->buf, h->data, h->len);
    ct__tcp_finish(e, h->claimed, NULL);
    ct__tcp_unlink_held(e, h);
}

/* The payload from p has all arrived. */
static void ct__tcp_arrived(ct__tcp_engine *e, int p)
{
    ct__tcp_peer *peer = &e->peers[p];
    bool aborts = peer->in.tag == CT__TCP_ABORT_TAG;
    if (peer->in_req) ct__tcp_finish(e, peer->in_req, NULL);
    if (peer->in_held) {
        peer->in_held->arrived = true;
        if (peer->in_held->claimed) ct__tcp_deliver_held(e, peer->in_held);
        else if (peer->in_held->dropped) ct__tcp_unlink_held(e, peer->in_held);
    }
    peer->in_req = NULL, peer->in_held = NULL, peer->in_have = 0;
    if (aborts) {
        peer->abort_in[peer->in.len] = 0;
        ct__tcp_abort(e, peer->abort_in);
    }
}

/* Reads what p has sent, without blocking. */
static void ct__tcp_read(ct__tcp_engine *e, int p)
{
    ct__tcp_peer *peer = &e->peers[p];
    char sink[65536];
    while (!peer->lost) {
        bool header = peer->in_have < sizeof peer->in;
        char *dst = header ? (char *)&peer->in + peer->in_have : peer->in_dst ? peer->in_dst : sink;
        size_t want = header ? sizeof peer->in - peer->in_have
                      : peer->in_dst || peer->in_left < sizeof sink ? peer->in_left : sizeof sink;
        ssize_t k = recv(peer->fd, dst, want, MSG_DONTWAIT);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (k <= 0) {
            ct__tcp_lost(e, p, k == 0 ? 0 : errno);
            return;
        }
        if (header) {
            peer->in_have += (size_t)k;
            if (peer->in_have < sizeof peer->in) continue;
            ct__tcp_route(e, p);
        } else {
            peer->in_left -= (size_t)k;
            if (peer->in_dst) peer->in_dst += k;
        }
        if (!peer->lost && peer->in_left == 0) ct__tcp_arrived(e, p);
    }
}

/* Writes p's queued sends, without blocking. */
static void ct__tcp_write(ct__tcp_engine *e, int p)
{
    ct__tcp_peer *peer = &e->peers[p];
    while (!peer->lost && peer->sends) {
        ct__tcp_req *q = peer->sends;
        if (q->moved == sizeof q->header + q->len) {
            peer->sends = q->next;
            if (!peer->sends) peer->sends_tail = NULL;
            ct__tcp_finish(e, q, NULL);
            continue;
        }
        bool header = q->moved < sizeof q->header;
        const char *src = header ? (const char *)&q->header + q->moved : q->buf + (q->moved - sizeof q->header);
        size_t want = header ? sizeof q->header - q->moved : q->len - (q->moved - sizeof q->header);
        ssize_t k = send(peer->fd, src, want, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (k < 0) {
            ct__tcp_lost(e, p, errno);
            return;
        }
        q->moved += (size_t)k;
    }
}

static void ct__tcp_wake(ct__tcp_engine *e)
{
    char one = 1;
    ssize_t k = write(e->wake[1], &one, 1);
    (void)k; /* a full pipe already wakes it */
}

/* Whether a stopped engine goes on, to deliver its abort messages: a
 * connection closed with unread data, or data still in the kernel's
 * buffer, would be reset and the message lost (a rank that stopped reading
 * for a while would then only see the connection closed). So each
 * connection, once its queue is written, is shut for writing, and the
 * engine reads (dropping the data) until the peer closes it, which it does
 * on reading to the end; until the deadline at most. */
static bool ct__tcp_lingers(ct__tcp_engine *e)
{
    if (!e->aborted || ct__dist_seconds() >= e->linger_deadline) return false;
    bool open = false;
    for (int p = 0; p < e->size; p++) {
        ct__tcp_peer *peer = &e->peers[p];
        if (peer->fd < 0) continue;
        if (!peer->sends && !peer->shut) shutdown(peer->fd, SHUT_WR), peer->shut = true;
        open = true;
    }
    return open;
}

static void *ct__tcp_engine_main(void *arg)
{
    ct__tcp_engine *e = (ct__tcp_engine *)arg;
    pthread_mutex_lock(&e->lock);
    while (!e->stop || ct__tcp_lingers(e)) {
        int n = 1;
        e->polled[0].fd = e->wake[0], e->polled[0].events = POLLIN;
        for (int p = 0; p < e->size; p++) {
            if (e->peers[p].fd < 0) continue;
            e->polled[n].fd = e->peers[p].fd;
            e->polled[n].events = (short)(POLLIN | (e->peers[p].sends ? POLLOUT : 0));
            e->polled_peer[n++] = p;
        }
        int wait_ms = e->stop ? ct__sock_ms_left(e->linger_deadline) : -1; /* (read under the lock) */
        pthread_mutex_unlock(&e->lock);
        int rc = poll(e->polled, (nfds_t)n, wait_ms);
        pthread_mutex_lock(&e->lock);
        if (rc <= 0) continue;
        if (e->polled[0].revents) {
            char drain[64];
            while (read(e->wake[0], drain, sizeof drain) == (ssize_t)sizeof drain) {}
        }
        for (int i = 1; i < n; i++) {
            int p = e->polled_peer[i];
            if (e->polled[i].revents & (POLLIN | POLLHUP | POLLERR)) ct__tcp_read(e, p);
            if (e->polled[i].revents & POLLOUT) ct__tcp_write(e, p);
        }
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* Posts a send (it goes out at once as far as the socket takes it) or a
 * receive (it takes the oldest matching held message, or waits); on an
 * aborted engine, or for a lost peer, it fails at once. NULL when out of
 * memory. */
static ct__tcp_req *ct__tcp_post_req(ct__tcp_engine *e, uint64_t ctx, int tag, int peer, bool sending, void *buf, size_t len)
{
    ct__tcp_req *q = ct__tcp_req_new(ctx, tag, peer, sending, buf, len);
    if (!q) return NULL;
    pthread_mutex_lock(&e->lock);
    ct__tcp_peer *to = peer >= 0 ? &e->peers[peer] : NULL;
    if (e->aborted) ct__tcp_finish(e, q, e->abort_why);
    else if (sending && to->lost) ct__tcp_fail_lost(e, q, peer);
    else if (sending) ct__tcp_queue_send(e, peer, q);
    else {
        ct__tcp_held *h = e->held;
        while (h && (h->claimed || h->dropped || !ct__tcp_matches(q, h->ctx, h->tag, h->source))) h = h->next;
        if (h && h->len > len) {
            q->source = h->source;
            ct__tcp_finish(e, q, "Message longer than its receive");
        } else if (h) {
            q->source = h->source, q->len = h->len;
            h->claimed = q;
            if (h->arrived) ct__tcp_deliver_held(e, h);
        } else if (to && to->lost) /* nothing more will come from it */
            ct__tcp_fail_lost(e, q, peer);
        else {
            if (e->posted_tail) e->posted_tail->next = q;
            else e->posted = q;
            e->posted_tail = q;
        }
    }
    pthread_mutex_unlock(&e->lock);
    return q;
}

/* Withdraws an unfinished request before its buffer goes away. A send
 * already partly written cannot be taken back without breaking the
 * stream, so that connection is closed. */
static void ct__tcp_cancel(ct__tcp_engine *e, ct__tcp_req *q)
{
    if (q->complete) return;
    ct__tcp_unlink_posted(e, q);
    for (ct__tcp_held *h = e->held; h; h = h->next)
        if (h->claimed == q) h->claimed = NULL, h->dropped = true; /* taken: no later receive matches it */
    for (int p = 0; p < e->size; p++) {
        ct__tcp_peer *peer = &e->peers[p];
        if (peer->in_req == q) peer->in_req = NULL, peer->in_dst = NULL; /* the rest is dropped */
        if (peer->sends == q && q->moved > 0) ct__tcp_lose(e, p, ECANCELED);
        for (ct__tcp_req **link = &peer->sends, *prev = NULL; *link; prev = *link, link = &(*link)->next)
            if (*link == q) {
                *link = q->next;
                if (peer->sends_tail == q) peer->sends_tail = prev;
                break;
            }
    }
    q->complete = true;
}

/* Waits for n requests, then frees them: true when all succeeded. A
 * failure (a request whose peer was lost fails), c closing, or the
 * deadline (0: none) ends the wait early, the others cancelled; err gets
 * the reason. A member lost after sending all it had to send is no
 * failure: it may have finished the last collective and exited. */
static bool ct__tcp_wait_all(ct__tcp_comm *c, ct__tcp_req **q, int n, double deadline, char *err)
{
    ct__tcp_engine *e = c->engine;
    const char *why = NULL;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        int left = 0;
        for (int i = 0; i < n; i++) {
            if (q[i]->failed && !why) why = q[i]->error;
            left += !q[i]->complete;
        }
        if (why || left == 0) break;
        if (c->closing) why = "The process group was destroyed while the operation ran";
        else if (deadline > 0 && ct__dist_seconds() > deadline) why = "Socket Timeout";
        if (why) break;
        if (deadline > 0) {
            struct timespec until;
            until.tv_sec = (time_t)deadline, until.tv_nsec = (long)((deadline - (double)(time_t)deadline) * 1e9);
            pthread_cond_timedwait(&e->progress, &e->lock, &until);
        } else
            pthread_cond_wait(&e->progress, &e->lock);
    }
    if (why) snprintf(err, CT__TCP_ERROR_LEN, "%s", why);
    for (int i = 0; i < n; i++) {
        ct__tcp_cancel(e, q[i]);
        CT_FREE(q[i]);
    }
    pthread_mutex_unlock(&e->lock);
    return why == NULL;
}

/* One step of a collective: its transfers all at once, the receives posted
 * first so that what arrives goes straight into place, not through a held
 * buffer. */
static bool ct__tcp_step(ct__tcp_comm *c, int tag, const ct__tcp_xfer *x, int n, double deadline, char *err)
{
    ct__tcp_req *small[8], **q = n <= 8 ? small : (ct__tcp_req **)CT_MALLOC((size_t)n * sizeof *q);
    int posted = 0;
    bool ok = q != NULL;
    for (int pass = 0; ok && pass < 2; pass++) /* receives, then sends */
        for (int i = 0; ok && i < n; i++) {
            if (x[i].sending != (pass == 1)) continue;
            q[posted] = ct__tcp_post_req(c->engine, c->ctx, tag, c->world[x[i].peer], x[i].sending, x[i].buf, x[i].len);
            if (q[posted]) posted++;
            else ok = false;
        }
    if (!ok) snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory");
    ok = (q ? ct__tcp_wait_all(c, q, posted, deadline, err) : false) && ok;
    if (q != small) CT_FREE(q);
    return ok;
}

/* ---------------------------------------------------------------- collectives */

/* dst = dst op src, n elements; booleans reduce logically. */
#define CT__TCP_LOOP(T, expr)                                             \
    do {                                                                  \
        T *d = (T *)dst;                                                  \
        const T *s = (const T *)src;                                      \
        for (int64_t i = 0; i < n; i++) d[i] = (T)(expr);                 \
    } while (0)
#define CT__TCP_FOLD(T)                                                                   \
    switch (op) {                                                                         \
    case CT_REDUCE_PRODUCT: CT__TCP_LOOP(T, d[i] * s[i]); break;                          \
    case CT_REDUCE_MIN: CT__TCP_LOOP(T, s[i] < d[i] ? s[i] : d[i]); break;                \
    case CT_REDUCE_MAX: CT__TCP_LOOP(T, s[i] > d[i] ? s[i] : d[i]); break;                \
    default: CT__TCP_LOOP(T, d[i] + s[i]); break;                                         \
    }
static void ct__tcp_reduce_into(void *dst, const void *src, int64_t n, ct_dtype dtype, ct_reduce_op op)
{
    bool all = op == CT_REDUCE_PRODUCT || op == CT_REDUCE_MIN;
    switch (dtype) {
    case CT_BOOL:
        if (all) CT__TCP_LOOP(unsigned char, d[i] && s[i]);
        else CT__TCP_LOOP(unsigned char, d[i] || s[i]);
        break;
    case CT_U8: CT__TCP_FOLD(uint8_t) break;
    case CT_I8: CT__TCP_FOLD(int8_t) break;
    case CT_I16: CT__TCP_FOLD(int16_t) break;
    case CT_I32: CT__TCP_FOLD(int32_t) break;
    case CT_I64: CT__TCP_FOLD(int64_t) break;
    case CT_F32: CT__TCP_FOLD(float) break;
    case CT_F64: CT__TCP_FOLD(double) break;
    default: break; /* half types: the front end refuses to reduce them */
    }
}
#undef CT__TCP_FOLD
#undef CT__TCP_LOOP

/* The general exchange, in bytes: this rank sends count[i] bytes from
 * send + displ[i] to rank i and receives count[n + i] bytes into
 * recv + displ[n + i] from it (its own part is copied). Empty parts are
 * skipped, on both sides alike. */
static bool ct__tcp_exchange(ct__tcp_comm *c, int tag, const char *send, char *recv, const size_t *count,
                             const size_t *displ, double deadline, char *err)
{
    int n = c->size, r = c->rank, k = 0;
    ct__tcp_xfer *x = (ct__tcp_xfer *)CT_MALLOC(2 * (size_t)n * sizeof *x);
    if (!x) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    if (count[r] > 0) memmove(recv + displ[n + r], send + displ[r], count[r]);
    for (int i = 0; i < n; i++) {
        if (i == r) continue;
        if (count[n + i] > 0) x[k].peer = i, x[k].sending = false, x[k].buf = recv + displ[n + i], x[k++].len = count[n + i];
        if (count[i] > 0) x[k].peer = i, x[k].sending = true, x[k].buf = (char *)send + displ[i], x[k++].len = count[i];
    }
    bool ok = ct__tcp_step(c, tag, x, k, deadline, err);
    CT_FREE(x);
    return ok;
}

/* The exchange's counts and displacements for the rooted and gathering
 * collectives, every part `bytes` long: who sends to whom. */
typedef enum { CT__TCP_ALL_GATHER, CT__TCP_GATHER, CT__TCP_SCATTER, CT__TCP_ALL_TO_ALL } ct__tcp_pattern;

static bool ct__tcp_patterned(ct__tcp_comm *c, int tag, ct__tcp_pattern pattern, int root, const char *send, char *recv,
                              size_t bytes, double deadline, char *err)
{
    int n = c->size, r = c->rank;
    size_t *v = (size_t *)CT_MALLOC(4 * (size_t)n * sizeof *v), *count = v, *displ = v ? v + 2 * n : NULL;
    if (!v) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    for (int i = 0; i < n; i++) {
        bool sends = pattern == CT__TCP_ALL_GATHER || pattern == CT__TCP_ALL_TO_ALL ||
                     (pattern == CT__TCP_GATHER && i == root) || (pattern == CT__TCP_SCATTER && r == root);
        bool receives = pattern == CT__TCP_ALL_GATHER || pattern == CT__TCP_ALL_TO_ALL ||
                        (pattern == CT__TCP_GATHER && r == root) || (pattern == CT__TCP_SCATTER && i == root);
        count[i] = sends ? bytes : 0;
        count[n + i] = receives ? bytes : 0;
        displ[i] = pattern == CT__TCP_SCATTER || pattern == CT__TCP_ALL_TO_ALL ? (size_t)i * bytes : 0;
        displ[n + i] = pattern == CT__TCP_SCATTER ? 0 : (size_t)i * bytes;
    }
    bool ok = ct__tcp_exchange(c, tag, send, recv, count, displ, deadline, err);
    CT_FREE(v);
    return ok;
}

/* The n parts of `parts` (count elements each), reduced in rank order into dst. */
static void ct__tcp_fold(void *dst, const char *parts, int n, const ct__dist_op *op)
{
    size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
    memmove(dst, parts, bytes);
    for (int i = 1; i < n; i++) ct__tcp_reduce_into(dst, parts + (size_t)i * bytes, op->count, op->dtype, op->op);
}

/* reduce and reduce_scatter: the parts gathered into a scratch buffer, then folded. */
static bool ct__tcp_gather_and_fold(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
    bool scattering = op->kind == CT__DIST_REDUCE_SCATTER, folds = scattering || op->root == c->rank;
    char *parts = folds ? (char *)CT_MALLOC((size_t)c->size * bytes + 1) : NULL;
    if (folds && !parts) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    bool ok = ct__tcp_patterned(c, CT__TCP_COLLECTIVE_TAG, scattering ? CT__TCP_ALL_TO_ALL : CT__TCP_GATHER, op->root,
                                (const char *)op->send, parts, bytes, 0, err);
    if (ok && folds) ct__tcp_fold(op->recv, parts, c->size, op);
    CT_FREE(parts);
    return ok;
}

/* A ring step's transfers go in segments: the receive buffer of a
 * reduction stays small and warm, and a segment's reduction overlaps the
 * peer's sending of the next (100 MB at 2 ranks: 1.8x PyTorch's gloo in one
 * piece). A multiple of every element size. */
#define CT__TCP_SEGMENT ((size_t)1 << 20)

/* One ring step: `out` bytes at src go to the next rank while `in` bytes
 * come from the previous one, into dst, or, when reducing, through tmp
 * and reduced into dst. The segments of a chunk are the same on both
 * sides, since both know its length. */
static bool ct__tcp_ring_step(ct__tcp_comm *c, const ct__dist_op *op, const char *src, size_t out, char *dst, size_t in,
                              char *tmp, char *err)
{
    int next = (c->rank + 1) % c->size, prev = (c->rank + c->size - 1) % c->size;
    size_t n_out = out ? (out + CT__TCP_SEGMENT - 1) / CT__TCP_SEGMENT : 1;
    size_t n_in = in ? (in + CT__TCP_SEGMENT - 1) / CT__TCP_SEGMENT : 1;
    bool ok = true;
    for (size_t k = 0; ok && (k < n_out || k < n_in); k++) {
        size_t at = k * CT__TCP_SEGMENT, m = 0;
        size_t out_len = k < n_out && out > at ? (out - at < CT__TCP_SEGMENT ? out - at : CT__TCP_SEGMENT) : 0;
        size_t in_len = k < n_in && in > at ? (in - at < CT__TCP_SEGMENT ? in - at : CT__TCP_SEGMENT) : 0;
        ct__tcp_xfer x[2];
        if (k < n_out) x[m].peer = next, x[m].sending = true, x[m].buf = (char *)src + at, x[m++].len = out_len;
        if (k < n_in) x[m].peer = prev, x[m].sending = false, x[m].buf = tmp ? tmp : dst + at, x[m++].len = in_len;
        ok = ct__tcp_step(c, CT__TCP_COLLECTIVE_TAG, x, (int)m, 0, err);
        if (ok && tmp && k < n_in)
            ct__tcp_reduce_into(dst + at, tmp, (int64_t)(in_len / ct_dtype_size(op->dtype)), op->dtype, op->op);
    }
    return ok;
}

/* Ring all-reduce: n - 1 steps of reduce-scatter, each rank passing one
 * chunk on and reducing the one it receives, then n - 1 steps of
 * all-gather passing the reduced chunks round. Every element is reduced
 * once, on one rank, so all ranks end with the same bits. */
static bool ct__tcp_all_reduce(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    int n = c->size, r = c->rank;
    size_t elem = ct_dtype_size(op->dtype);
    int64_t base = op->count / n, extra = op->count % n;
#define CT__TCP_CHUNK_START(i) ((size_t)((i) * base + ((i) < extra ? (i) : extra)) * elem)
#define CT__TCP_CHUNK_LEN(i) ((size_t)(base + ((i) < extra)) * elem)
    size_t tmp_len = (size_t)(base + 1) * elem < CT__TCP_SEGMENT ? (size_t)(base + 1) * elem : CT__TCP_SEGMENT;
    char *data = (char *)op->recv, *tmp = (char *)CT_MALLOC(tmp_len);
    if (!tmp) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    bool ok = true;
    for (int s = 0; ok && s < 2 * (n - 1); s++) {
        bool gathering = s >= n - 1;
        int out = ((gathering ? r + 1 - (s - (n - 1)) : r - s) % n + n) % n, in = (out + n - 1) % n;
        ok = ct__tcp_ring_step(c, op, data + CT__TCP_CHUNK_START(out), CT__TCP_CHUNK_LEN(out),
                               data + CT__TCP_CHUNK_START(in), CT__TCP_CHUNK_LEN(in), gathering ? NULL : tmp, err);
    }
#undef CT__TCP_CHUNK_START
#undef CT__TCP_CHUNK_LEN
    CT_FREE(tmp);
    return ok;
}

/* Segment k of the `bytes` at buf, as a transfer with peer. */
static ct__tcp_xfer ct__tcp_segment(int peer, bool sending, char *buf, size_t bytes, size_t k)
{
    size_t at = k * CT__TCP_SEGMENT;
    ct__tcp_xfer x = {peer, sending, buf + at, bytes - at < CT__TCP_SEGMENT ? bytes - at : CT__TCP_SEGMENT};
    return x;
}

/* Pipelined chain broadcast: the ranks form a chain from the root (root,
 * root + 1, ...) and the tensor goes down it in segments, each rank passing
 * segment k - 1 on while it receives segment k. The root sends the tensor
 * once, not once per rank, and every link carries it once. */
static bool ct__tcp_broadcast(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    int n = c->size, place = (c->rank - op->root + n) % n;
    int next = (c->rank + 1) % n, prev = (c->rank + n - 1) % n;
    size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
    size_t segments = bytes ? (bytes + CT__TCP_SEGMENT - 1) / CT__TCP_SEGMENT : 1;
    bool receives = place > 0, passes = place < n - 1;
    size_t lag = receives ? 1 : 0; /* the root sends segment k at step k, the others at step k + 1 */
    bool ok = true;
    for (size_t k = 0; ok && k < segments + lag; k++) {
        ct__tcp_xfer x[2];
        int m = 0;
        if (receives && k < segments) x[m++] = ct__tcp_segment(prev, false, (char *)op->recv, bytes, k);
        if (passes && k >= lag) x[m++] = ct__tcp_segment(next, true, (char *)op->recv, bytes, k - lag);
        ok = ct__tcp_step(c, CT__TCP_COLLECTIVE_TAG, x, m, 0, err);
    }
    return ok;
}

/* Ring all-gather: n - 1 steps, each rank passing on to the next the part
 * it received last (its own first) while the previous one sends it another. */
static bool ct__tcp_all_gather(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    int n = c->size, r = c->rank;
    size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
    char *all = (char *)op->recv;
    memmove(all + (size_t)r * bytes, op->send, bytes);
    bool ok = true;
    for (int s = 0; ok && s < n - 1; s++) {
        int out = (r - s + n) % n, in = (r - s - 1 + n) % n;
        ok = ct__tcp_ring_step(c, op, all + (size_t)out * bytes, bytes, all + (size_t)in * bytes, bytes, NULL, err);
    }
    return ok;
}

/* all_to_all's element counts and displacements, as the exchange's bytes. */
static bool ct__tcp_all_to_all(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    size_t elem = ct_dtype_size(op->dtype), n = (size_t)c->size, *count = (size_t *)CT_MALLOC(4 * n * sizeof *count);
    if (!count) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    size_t *displ = count + 2 * n;
    for (size_t i = 0; i < n; i++) { /* op's order: scounts, sdispls, rcounts, rdispls */
        count[i] = (size_t)op->all_to_all[i] * elem, displ[i] = (size_t)op->all_to_all[n + i] * elem;
        count[n + i] = (size_t)op->all_to_all[2 * n + i] * elem, displ[n + i] = (size_t)op->all_to_all[3 * n + i] * elem;
    }
    bool ok = ct__tcp_exchange(c, CT__TCP_COLLECTIVE_TAG, (const char *)op->send, (char *)op->recv, count, displ, 0, err);
    CT_FREE(count);
    return ok;
}

/* Every rank hears from every other one: none passes before all arrived. */
static bool ct__tcp_barrier(ct__tcp_comm *c, int tag, double deadline, char *err)
{
    char *flags = (char *)CT_MALLOC((size_t)c->size + 1), mine = 1;
    if (!flags) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    bool ok = ct__tcp_patterned(c, tag, CT__TCP_ALL_GATHER, -1, &mine, flags, 1, deadline, err);
    CT_FREE(flags);
    return ok;
}

/* A collective, on c's worker. */
static bool ct__tcp_collective(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
    const char *send = (const char *)op->send;
    char *recv = (char *)op->recv;
    switch (op->kind) {
    case CT__DIST_BROADCAST: return ct__tcp_broadcast(c, op, err);
    case CT__DIST_ALLREDUCE: return c->size == 1 || ct__tcp_all_reduce(c, op, err);
    case CT__DIST_REDUCE:
    case CT__DIST_REDUCE_SCATTER: return ct__tcp_gather_and_fold(c, op, err);
    case CT__DIST_ALLGATHER:
    case CT__DIST__ALLGATHER_BASE: return ct__tcp_all_gather(c, op, err);
    case CT__DIST_GATHER: return ct__tcp_patterned(c, CT__TCP_COLLECTIVE_TAG, CT__TCP_GATHER, op->root, send, recv, bytes, 0, err);
    case CT__DIST_SCATTER:
        return ct__tcp_patterned(c, CT__TCP_COLLECTIVE_TAG, CT__TCP_SCATTER, op->root, send, recv, bytes, 0, err);
    case CT__DIST_ALLTOALL: return ct__tcp_all_to_all(c, op, err);
    case CT__DIST_BARRIER: return ct__tcp_barrier(c, CT__TCP_COLLECTIVE_TAG, 0, err);
    default: return snprintf(err, CT__TCP_ERROR_LEN, "Unsupported operation"), false;
    }
}

/* ---------------------------------------------------------------- communicators */

static void *ct__tcp_worker_main(void *arg)
{
    ct__tcp_comm *c = (ct__tcp_comm *)arg;
    ct__tcp_engine *e = c->engine;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!c->jobs && !c->closing) pthread_cond_wait(&e->progress, &e->lock);
        if (c->closing) break;
        ct__tcp_job *job = c->jobs;
        c->jobs = job->next;
        if (!c->jobs) c->jobs_tail = NULL;
        pthread_mutex_unlock(&e->lock);
        char err[CT__TCP_ERROR_LEN] = "";
        bool ok = ct__tcp_collective(c, &job->op, err);
        pthread_mutex_lock(&e->lock);
        job->failed = !ok;
        snprintf(job->error, sizeof job->error, "%s", err);
        job->complete = true;
        e->completions++;
        pthread_cond_broadcast(&e->progress);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

static void ct__tcp_engine_release(ct__tcp_engine *e)
{
    if (--e->refs > 0) return;
    if (e->running) {
        pthread_mutex_lock(&e->lock);
        e->stop = true;
        e->linger_deadline = ct__dist_seconds() + e->linger;
        ct__tcp_wake(e);
        pthread_mutex_unlock(&e->lock);
        pthread_join(e->thread, NULL);
    }
    for (int p = 0; p < e->size; p++) {
        if (e->peers[p].fd >= 0) close(e->peers[p].fd);
        for (ct__tcp_req *q = e->peers[p].sends; q; q = e->peers[p].sends) e->peers[p].sends = q->next, CT_FREE(q);
    }
    while (e->held) ct__tcp_unlink_held(e, e->held);
    for (ct__tcp_req *q = e->posted; q; q = e->posted) e->posted = q->next, CT_FREE(q);
    close(e->wake[0]), close(e->wake[1]);
    pthread_cond_destroy(&e->progress);
    pthread_mutex_destroy(&e->lock);
    CT_FREE(e->peers), CT_FREE(e->polled), CT_FREE(e->polled_peer), CT_FREE(e);
}

/* An engine for rank of size ranks, before its connections are made;
 * linger: how long its close may deliver abort messages (ct__tcp_lingers). */
static ct__tcp_engine *ct__tcp_engine_new(int rank, int size, double linger)
{
    ct__tcp_engine *e = (ct__tcp_engine *)ct__dist_alloc(sizeof *e);
    if (!e) return NULL;
    memset(e, 0, sizeof *e);
    e->rank = rank, e->size = size, e->refs = 1, e->linger = linger;
    e->peers = (ct__tcp_peer *)CT_MALLOC((size_t)size * sizeof *e->peers);
    e->polled = (struct pollfd *)CT_MALLOC((size_t)(size + 1) * sizeof *e->polled);
    e->polled_peer = (int *)CT_MALLOC((size_t)(size + 1) * sizeof *e->polled_peer);
    if (!e->peers || !e->polled || !e->polled_peer || pipe(e->wake) != 0) {
        CT_FREE(e->peers), CT_FREE(e->polled), CT_FREE(e->polled_peer), CT_FREE(e);
        ct__dist_oom();
        return NULL;
    }
    memset(e->peers, 0, (size_t)size * sizeof *e->peers);
    for (int p = 0; p < size; p++) e->peers[p].fd = -1;
    fcntl(e->wake[0], F_SETFL, O_NONBLOCK);
    fcntl(e->wake[1], F_SETFL, O_NONBLOCK);
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->progress, NULL);
    return e;
}

static ct_result ct__tcp_engine_start(ct__tcp_engine *e)
{
    for (int p = 0; p < e->size; p++)
        if (e->peers[p].fd >= 0) fcntl(e->peers[p].fd, F_SETFL, O_NONBLOCK);
    e->running = pthread_create(&e->thread, NULL, ct__tcp_engine_main, e) == 0;
    return e->running ? CT_OK : ct__dist_fail(CT_ERR_RUNTIME, "The gloo backend's engine thread could not be started");
}

/* A communicator over `size` ranks of the engine (world[i] is rank i's
 * world rank; NULL: all of them), with its worker started. */
static ct__tcp_comm *ct__tcp_comm_new(ct__tcp_engine *e, uint64_t ctx, int rank, int size, const int *world)
{
    ct__tcp_comm *c = (ct__tcp_comm *)ct__dist_alloc(sizeof *c);
    int *w = c ? (int *)ct__dist_alloc((size_t)size * sizeof *w) : NULL;
    if (!w) {
        CT_FREE(c);
        return NULL;
    }
    memset(c, 0, sizeof *c);
    for (int i = 0; i < size; i++) w[i] = world ? world[i] : i;
    c->engine = e, c->ctx = ctx, c->rank = rank, c->size = size, c->world = w;
    if (pthread_create(&c->worker, NULL, ct__tcp_worker_main, c) != 0) {
        CT_FREE(w), CT_FREE(c);
        ct__dist_fail(CT_ERR_RUNTIME, "The gloo backend's worker thread could not be started");
        return NULL;
    }
    e->refs++;
    return c;
}

/* Stops the worker (a collective it runs fails) and drops the jobs it had
 * not started: the front end only frees a group once its works completed
 * or timed out, and never looks at a timed-out one again. */
static void ct__tcp_free_comm(void *comm)
{
    ct__tcp_comm *c = (ct__tcp_comm *)comm;
    ct__tcp_engine *e = c->engine;
    pthread_mutex_lock(&e->lock);
    c->closing = true;
    pthread_cond_broadcast(&e->progress);
    pthread_mutex_unlock(&e->lock);
    pthread_join(c->worker, NULL);
    for (ct__tcp_job *j = c->jobs; j; j = c->jobs) c->jobs = j->next, CT_FREE(j);
    CT_FREE(c->world);
    CT_FREE(c);
    ct__tcp_engine_release(e);
}

/* A sub-communicator's context: derived from its parent's and the number
 * of splits made of it, which every member of the parent counts alike, so
 * no message is needed to agree on it (64 bits make a clash unlikely). */
static uint64_t ct__tcp_child_context(ct__tcp_comm *parent)
{
    uint64_t z = parent->ctx * 0x9E3779B97F4A7C15ull + ++parent->splits;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* MPI_Comm_split: every rank of the parent tells the others whether it
 * joins and its key; the members are ordered by key. The exchange is made
 * here, apart from the worker's collectives (a tag of its own), so that it
 * cannot be ordered differently from them on different ranks. */
static ct_result ct__tcp_split(void *parent, bool member, int key, void **comm)
{
    ct__tcp_comm *p = (ct__tcp_comm *)parent;
    uint64_t ctx = ct__tcp_child_context(p);
    int64_t mine[2] = {member, key}, *all = (int64_t *)ct__dist_alloc(2 * (size_t)p->size * sizeof *all);
    int *world = all ? (int *)ct__dist_alloc((size_t)p->size * sizeof *world) : NULL;
    char err[CT__TCP_ERROR_LEN];
    *comm = NULL;
    if (!world) {
        CT_FREE(all);
        return CT_ERR_MEMORY;
    }
    ct_result res = CT_OK;
    if (!ct__tcp_patterned(p, CT__TCP_SETUP_TAG, CT__TCP_ALL_GATHER, -1, (const char *)mine, (char *)all, sizeof mine, 0, err))
        res = ct__dist_fail(CT_ERR_RUNTIME, "%s", err);
    int n = 0, rank = -1;
    for (int i = 0; res == CT_OK && i < p->size; i++) { /* members' parent ranks, by key then parent rank */
        if (!all[2 * i]) continue;
        int j = n++;
        for (; j > 0 && all[2 * world[j - 1] + 1] > all[2 * i + 1]; j--) world[j] = world[j - 1];
        world[j] = i;
    }
    for (int i = 0; i < n; i++) {
        if (world[i] == p->rank) rank = i;
        world[i] = p->world[world[i]];
    }
    if (res == CT_OK && member && !(*comm = ct__tcp_comm_new(p->engine, ctx, rank, n, world))) res = ct_last_error_code();
    CT_FREE(all), CT_FREE(world);
    return res;
}

/* ---------------------------------------------------------------- the backend's table */

static ct_result ct__tcp_post(void *comm, const ct__dist_op *op, void **request)
{
    ct__tcp_comm *c = (ct__tcp_comm *)comm;
    ct__tcp_engine *e = c->engine;
    bool p2p = op->kind == CT__DIST_SEND || op->kind == CT__DIST_RECV, sending = op->kind == CT__DIST_SEND;
    if (p2p && op->peer == c->rank)
        return ct__dist_fail(CT_ERR_RUNTIME, "Invalid %s rank: should not be the same as rank of the current process.",
                             sending ? "destination" : "source");
    ct__tcp_job *job = (ct__tcp_job *)ct__dist_alloc(sizeof *job);
    if (!job) return CT_ERR_MEMORY;
    memset(job, 0, sizeof *job);
    job->comm = c, job->op = *op;
    if (p2p) {
        size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
        int peer = op->peer < 0 ? -1 : c->world[op->peer];
        job->p2p = ct__tcp_post_req(e, c->ctx, op->tag, peer, sending, sending ? op->send : op->recv, bytes);
        if (!job->p2p) {
            CT_FREE(job);
            return ct__dist_oom();
        }
    } else {
        pthread_mutex_lock(&e->lock);
        if (c->jobs_tail) c->jobs_tail->next = job;
        else c->jobs = job;
        c->jobs_tail = job;
        pthread_cond_broadcast(&e->progress);
        pthread_mutex_unlock(&e->lock);
    }
    *request = job;
    return CT_OK;
}

static int ct__tcp_test(void *request, int *source)
{
    ct__tcp_job *job = (ct__tcp_job *)request;
    ct__tcp_comm *c = job->comm;
    int from = -1;
    pthread_mutex_lock(&c->engine->lock);
    ct__tcp_req *q = job->p2p;
    bool done = q ? q->complete : job->complete;
    if (!done) c->engine->tested = c->engine->completions;
    if (done && q) {
        job->failed = q->failed, from = q->source;
        snprintf(job->error, sizeof job->error, "%s", q->error);
        CT_FREE(q);
    }
    pthread_mutex_unlock(&c->engine->lock);
    if (!done) return 0;
    for (int i = 0; i < c->size; i++)
        if (c->world[i] == from) *source = i;
    ct_result res = job->failed ? ct__dist_fail(CT_ERR_RUNTIME, "%s", job->error) : CT_OK;
    CT_FREE(job);
    return res == CT_OK ? 1 : (int)res;
}

/* A waiting caller sleeps on the engine's condition, which every
 * completion signals, rather than spinning on test: on a machine with as
 * many ranks as cores, spinning took the CPU the engine and the workers
 * needed (1 KB all_reduce: 4.7 ms spinning). It does not sleep when
 * something completed since its last test found its work running. */
static void ct__tcp_idle(void *comm, double seconds)
{
    ct__tcp_engine *e = ((ct__tcp_comm *)comm)->engine;
    double until = ct__dist_seconds() + seconds;
    struct timespec t;
    t.tv_sec = (time_t)until, t.tv_nsec = (long)((until - (double)(time_t)until) * 1e9);
    pthread_mutex_lock(&e->lock);
    if (e->completions == e->tested) pthread_cond_timedwait(&e->progress, &e->lock, &t);
    pthread_mutex_unlock(&e->lock);
}

/* ---------------------------------------------------------------- rendezvous */

typedef struct ct__tcp_rendezvous {
    char host[256];
    int port, rank, size;
    bool agent_store; /* torchrun's agent serves the store: every rank is a client */
    char keys[64];    /* the prefix of this rendezvous's keys */
} ct__tcp_rendezvous;

/* init_process_group calls so far: every rank makes as many, so a later
 * rendezvous in a store that outlives one (torchrun's) has keys of its own. */
static int ct__tcp_inits;

static ct_result ct__tcp_env_int(const char *name, int *out)
{
    const char *v = getenv(name);
    char *end = NULL;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v)
        return ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using env:// rendezvous: environment "
                                           "variable %s expected, but not set", name);
    if (*end || n < 0 || n > INT_MAX)
        return ct__dist_fail(CT_ERR_VALUE, "invalid literal for int() with base 10: '%s' (environment variable %s)", v, name);
    *out = (int)n;
    return CT_OK;
}

/* Where the store is, and this process's rank and world size: env://
 * reads MASTER_ADDR, MASTER_PORT and, unless world_size was given, RANK
 * and WORLD_SIZE (as torchrun sets them); tcp://host:port takes the rank
 * and world size from the arguments. */
static ct_result ct__tcp_rendezvous_of(const ct_dist_init_opts *o, ct__tcp_rendezvous *rv)
{
    const char *method = o->init_method ? o->init_method : "env://", *addr = NULL;
    bool given = o->world_size > 0;
    ct_result res = CT_OK;
    memset(rv, 0, sizeof *rv);
    rv->rank = o->rank, rv->size = o->world_size;
    if (strncmp(method, "tcp://", 6) == 0) {
        /* the host as urlparse reads it: an IPv6 address in brackets, tcp://[::1]:29500 */
        const char *host = method + 6, *end = host[0] == '[' ? strchr(host, ']') : NULL;
        const char *colon = strrchr(end ? end : host, ':');
        if (!given) return ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using tcp:// rendezvous: world size parameter missing");
        if (!colon) return ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using tcp:// rendezvous: port number missing");
        if (end) host++;
        snprintf(rv->host, sizeof rv->host, "%.*s", (int)((end ? end : colon) - host), host);
        rv->port = atoi(colon + 1);
    } else if (strncmp(method, "env://", 6) == 0) {
        if (!given) res = ct__tcp_env_int("RANK", &rv->rank);
        if (res == CT_OK && !given) res = ct__tcp_env_int("WORLD_SIZE", &rv->size);
        if (res == CT_OK && !(addr = getenv("MASTER_ADDR")))
            res = ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using env:// rendezvous: environment "
                                              "variable MASTER_ADDR expected, but not set");
        if (res == CT_OK) res = ct__tcp_env_int("MASTER_PORT", &rv->port);
        if (res == CT_OK) snprintf(rv->host, sizeof rv->host, "%s", addr);
        const char *agent = getenv("TORCHELASTIC_USE_AGENT_STORE");
        rv->agent_store = agent && strcmp(agent, "True") == 0;
    } else
        res = ct__dist_fail(CT_ERR_RUNTIME, "The gloo backend makes its rendezvous through env:// or tcp://, not %s", method);
    if (res == CT_OK && (rv->size < 1 || rv->rank < 0 || rv->rank >= rv->size))
        res = ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using %.6s rendezvous: rank %d is not "
                                          "in the range [0, world_size %d)", method, rv->rank, rv->size);
    if (res == CT_OK && (rv->port < 1 || rv->port > 65535))
        res = ct__dist_fail(CT_ERR_VALUE, "The master port must be in [1, 65535], not %d", rv->port);
    const char *attempt = getenv("TORCHELASTIC_RESTART_COUNT"); /* torchrun's agent store outlives a restart */
    snprintf(rv->keys, sizeof rv->keys, "ctorch/gloo/attempt_%.8s/%d", attempt ? attempt : "0", ct__tcp_inits);
    return res;
}

/* The hello a rank sends on the connection it makes. */
typedef struct ct__tcp_hello {
    uint32_t magic;
    int32_t rank;
} ct__tcp_hello;

/* Connects to a lower rank, at the address it published in the store. */
static ct_result ct__tcp_dial(ct__tcp_engine *e, ct_tcp_store *store, const char *keys, int peer, double deadline)
{
    char key[96], value[64] = "", *colon;
    size_t len = 0;
    snprintf(key, sizeof key, "%s/rank_%d", keys, peer);
    ct_result res = ct_tcp_store_get(store, key, value, sizeof value - 1, &len);
    if (res != CT_OK) return res;
    value[len < sizeof value ? len : sizeof value - 1] = 0;
    if (!(colon = strrchr(value, ':'))) return ct__dist_fail(CT_ERR_RUNTIME, "Rank %d published no address", peer);
    *colon = 0; /* the port follows the last colon, after an IPv6 address's own */
    int fd = ct__sock_connect(value, atoi(colon + 1), deadline - ct__dist_seconds());
    if (fd < 0) return ct_last_error_code();
    ct__tcp_hello hello = {CT__TCP_MAGIC, (int32_t)e->rank};
    e->peers[peer].fd = fd;
    ct__sock_peer_name(fd, e->peers[peer].addr, sizeof e->peers[peer].addr);
    return ct__sock_send_all(fd, &hello, sizeof hello, deadline);
}

/* Accepts a higher rank's connection; it says which rank it is. */
static ct_result ct__tcp_answer(ct__tcp_engine *e, int listener, double deadline)
{
    ct__tcp_hello hello;
    if (ct__sock_ready(listener, POLLIN, deadline) != CT_OK) return CT_ERR_RUNTIME;
    int fd = accept(listener, NULL, NULL);
    if (fd < 0) return ct__sock_io_error(errno);
    ct__sock_no_delay(fd);
    ct_result res = ct__sock_recv_all(fd, &hello, sizeof hello, deadline);
    if (res == CT_OK && (hello.magic != CT__TCP_MAGIC || hello.rank <= e->rank || hello.rank >= e->size ||
                         e->peers[hello.rank].fd >= 0))
        res = ct__dist_fail(CT_ERR_RUNTIME, "An unexpected connection reached rank %d during the rendezvous", e->rank);
    if (res != CT_OK) {
        close(fd);
        return res;
    }
    e->peers[hello.rank].fd = fd;
    ct__sock_peer_name(fd, e->peers[hello.rank].addr, sizeof e->peers[hello.rank].addr);
    return CT_OK;
}

/* The full mesh: this rank publishes where it listens (the interface its
 * store connection uses), connects to every lower rank and accepts every
 * higher one. A connection waits in the listener's backlog until it is
 * accepted, so the order cannot deadlock. */
static ct_result ct__tcp_mesh(ct__tcp_engine *e, ct_tcp_store *store, const char *keys, double deadline)
{
    int port = 0, listener = ct__sock_listen(&port, e->size);
    if (listener < 0) return ct_last_error_code();
    char key[96], value[96], ip[INET6_ADDRSTRLEN];
    ct__sock_local_ip(store->fd, ip, sizeof ip);
    snprintf(key, sizeof key, "%s/rank_%d", keys, e->rank);
    snprintf(value, sizeof value, "%s:%d", ip, port);
    ct_result res = ct_tcp_store_set(store, key, value, strlen(value));
    for (int p = 0; res == CT_OK && p < e->rank; p++) res = ct__tcp_dial(e, store, keys, p, deadline);
    for (int p = e->rank + 1; res == CT_OK && p < e->size; p++) res = ct__tcp_answer(e, listener, deadline);
    close(listener);
    return res;
}

/* The store is needed no more once every rank is connected; the master
 * closes it between two barriers, so that no rank can reach it (say, for
 * a later init_process_group) before it is gone. (torchrun's agent store
 * stays: later rendezvous use other keys.) */
static ct_result ct__tcp_close_store(ct__tcp_comm *world, ct_tcp_store *store, double deadline)
{
    char err[CT__TCP_ERROR_LEN];
    bool ok = ct__tcp_barrier(world, CT__TCP_SETUP_TAG, deadline, err);
    if (world->rank == 0) ct_tcp_store_free(store);
    ok = ok && ct__tcp_barrier(world, CT__TCP_SETUP_TAG, deadline, err);
    if (world->rank != 0) ct_tcp_store_free(store);
    return ok ? CT_OK : ct__dist_fail(CT_ERR_RUNTIME, "%s", err);
}

static ct_result ct__tcp_init(const ct_dist_init_opts *opts, int *rank, int *size, void **world)
{
    ct__tcp_rendezvous rv;
    ct_result res = ct__tcp_rendezvous_of(opts, &rv);
    if (res != CT_OK) return res;
    double timeout = opts->timeout > 0 ? opts->timeout : 1800.0, deadline = ct__dist_seconds() + timeout;
    ct_tcp_store_opts so;
    memset(&so, 0, sizeof so);
    so.world_size = rv.size, so.is_master = rv.rank == 0 && !rv.agent_store, so.timeout = timeout;
    ct__tcp_inits++;
    ct_tcp_store *store = ct_tcp_store_new(rv.host, rv.port, so);
    if (!store) return ct_last_error_code();
    ct__tcp_engine *e = ct__tcp_engine_new(rv.rank, rv.size, timeout < CT__TCP_ABORT_LINGER ? timeout : CT__TCP_ABORT_LINGER);
    res = e ? ct__tcp_mesh(e, store, rv.keys, deadline) : CT_ERR_MEMORY;
    if (res == CT_OK) res = ct__tcp_engine_start(e);
    ct__tcp_comm *c = res == CT_OK ? ct__tcp_comm_new(e, 1, rv.rank, rv.size, NULL) : NULL;
    if (e) ct__tcp_engine_release(e); /* the communicator holds it now */
    if (!c) {
        ct_tcp_store_free(store);
        return ct_last_error_code() != CT_OK ? ct_last_error_code() : CT_ERR_RUNTIME;
    }
    if ((res = ct__tcp_close_store(c, store, deadline)) != CT_OK) {
        ct__tcp_free_comm(c);
        return res;
    }
    *rank = rv.rank, *size = rv.size, *world = c;
    return CT_OK;
}

static const ct__dist_backend ct__tcp_backend = {"gloo",        "WorkGloo",   ct__tcp_init,
                                                 ct__tcp_split, ct__tcp_free_comm, ct__tcp_post,
                                                 ct__tcp_test,  ct__tcp_idle,      false};

/* ==================== dist/nccl.c ==================== */
// >>dist/nccl.c
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

/* ==================== dist/mpi.c ==================== */
// >>dist/mpi.c
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

/* ==================== dist/ddp.c ==================== */
// >>dist/ddp.c
/* DistributedDataParallel: the wrapper module, its gradient buckets (the
 * Reducer's), and the checks and broadcasts at construction. */

/* dist._DEFAULT_FIRST_BUCKET_BYTES */
#define CT__DDP_FIRST_BUCKET_BYTES ((int64_t)1 << 20)

typedef struct ct__ddp ct__ddp;

/* One bucket: parameters of one dtype whose gradients go through one flat
 * buffer and one all-reduce. */
typedef struct ct__ddp_bucket {
    int *params; /* indices into ct__ddp.params, in registration order */
    int n_params;
    int64_t numel;
    ct_tensor *flat; /* owned */
    int pending;     /* gradients still to arrive in this backward */
    bool ready;
    ct_work *work;
} ct__ddp_bucket;

/* What a parameter's hook needs: its DDP, bucket and place in the flat buffer. */
typedef struct ct__ddp_slot {
    ct__ddp *ddp;
    int bucket;
    int64_t offset;
    int hook_id;
} ct__ddp_slot;

struct ct__ddp {
    ct_module base;
    ct_module *inner; /* the child "module", borrowed */
    ct_process_group *group;
    bool broadcast_buffers;
    bool require_sync;   /* off inside no_sync */
    bool expect_hooks;   /* a forward prepared the buckets for this backward */
    bool require_finish; /* a backward started reducing and has not finished */
    bool find_unused;
    int n_params;
    ct_device device; /* the parameters' (the first one's): its buffers and exchanges live there */
    uint8_t *used; /* per parameter: its gradient arrived in this backward (find_unused) */
    ct_tensor **params; /* retained, so the hooks can be removed at the end */
    ct__ddp_slot *slots;
    ct__ddp_bucket *buckets;
    int n_buckets, next_bucket; /* buckets are launched in order, as the Reducer launches them */
};

static ct_tensor *ct__ddp_forward(ct_module *self, ct_tensor *const *inputs, int n_inputs);
static void ct__ddp_destroy(ct_module *self);
static const ct_module_class ct__ddp_class = {"DistributedDataParallel", ct__ddp_forward, ct__ddp_destroy};

static ct__ddp *ct__ddp_of(const ct_module *m)
{
    if (!m || m->cls != &ct__ddp_class) {
        ct__dist_fail(CT_ERR_TYPE, "expected a DistributedDataParallel module");
        return NULL;
    }
    return (ct__ddp *)m;
}

ct_ddp_opts ct_ddp_opts_init(void)
{
    ct_ddp_opts o;
    memset(&o, 0, sizeof o);
    o.broadcast_buffers = true;
    o.bucket_cap_mb = 25;
    return o;
}

ct_module *ct_ddp_module(ct_module *ddp)
{
    ct__ddp *d = ct__ddp_of(ddp);
    return d ? d->inner : NULL;
}

bool ct_ddp_no_sync(ct_module *ddp, bool no_sync)
{
    ct__ddp *d = ct__ddp_of(ddp);
    if (!d) return false;
    bool was = !d->require_sync;
    d->require_sync = !no_sync;
    return was;
}

int ct_ddp_bucket_sizes(const ct_module *ddp, int64_t *sizes, int cap)
{
    const ct__ddp *d = ct__ddp_of(ddp);
    if (!d) return -1;
    for (int b = 0; b < d->n_buckets && b < cap; b++)
        sizes[b] = d->buckets[b].numel * (int64_t)ct_element_size(d->buckets[b].flat);
    return d->n_buckets;
}

/* ---------------------------------------------------------------- backward */

/* Copies a bucket's gradients into its flat buffer, divided by the world
 * size (the Reducer divides before summing), and starts its all-reduce. The
 * last bucket's all-reduce has nothing left of backward to overlap with:
 * it runs at once, on every rank, where MPI's blocking algorithms are
 * faster than its non-blocking ones. */
static ct_result ct__ddp_launch(ct__ddp *d, ct__ddp_bucket *b, bool last)
{
    ct_scope s = ct_scope_begin();
    ct_result res = CT_OK;
    for (int i = 0; i < b->n_params && res == CT_OK; i++) {
        ct_tensor *p = d->params[b->params[i]];
        ct_tensor *chunk = ct_view(ct_narrow(b->flat, 0, d->slots[b->params[i]].offset, ct_numel(p)), ct_shape_of(p));
        ct_tensor *grad = ct_grad(p);
        res = grad ? ct_copy_(chunk, grad) : ct_fill_(chunk, ct_int(0));
    }
    if (res == CT_OK) res = ct_div_scalar_(b->flat, ct_int(ct_dist_get_world_size(d->group)));
    ct_scope_end(s);
    ct_dist_opts opts = {d->group, last ? NULL : &b->work};
    return res == CT_OK ? ct_dist_all_reduce(b->flat, CT_REDUCE_SUM, opts) : res;
}

/* A tensor made on the host, moved to the parameters' device for a
 * collective: the nccl backend takes CUDA tensors only. */
static ct_tensor *ct__ddp_on_params_device(const ct__ddp *d, ct_tensor *t)
{
    return t ? ct_to_device(t, d->device, false) : NULL;
}

/* With find_unused: which parameters some rank used in this backward (the
 * Reducer's all-reduced local_used_map), into d->used. */
static ct_result ct__ddp_global_use(ct__ddp *d)
{
    ct_dist_opts opts = {d->group, NULL};
    ct_tensor *used = ct__ddp_on_params_device(d, ct_from_array(d->used, CT_SHAPE(d->n_params), CT_U8));
    ct_result res = used ? ct_dist_all_reduce(used, CT_REDUCE_MAX, opts) : ct_last_error_code();
    const ct_tensor *host = res == CT_OK ? ct_to_device(used, CT_CPU, false) : NULL;
    if (host) memcpy(d->used, ct_data_ptr(host), (size_t)d->n_params);
    return host ? CT_OK : ct_last_error_code();
}

/* The end of backward: every bucket's average back into .grad (but for the
 * parameters no rank used, with find_unused). */
static ct_result ct__ddp_finish(void *user)
{
    ct__ddp *d = (ct__ddp *)user;
    ct_scope s = ct_scope_begin();
    ct_result res = d->find_unused ? ct__ddp_global_use(d) : CT_OK;
    for (int k = 0; k < d->n_buckets; k++) {
        ct__ddp_bucket *b = &d->buckets[k];
        if (res == CT_OK && b->work) res = ct_work_wait(b->work);
        ct_work_free(b->work);
        b->work = NULL;
        for (int i = 0; i < b->n_params && res == CT_OK; i++) {
            if (d->find_unused && !d->used[b->params[i]]) continue;
            ct_tensor *p = d->params[b->params[i]];
            ct_tensor *chunk = ct_view(ct_narrow(b->flat, 0, d->slots[b->params[i]].offset, ct_numel(p)), ct_shape_of(p));
            ct_tensor *grad = ct_grad(p);
            res = grad ? ct_copy_(grad, chunk) : ct_set_grad(p, ct_clone(chunk));
        }
    }
    ct_scope_end(s);
    d->expect_hooks = d->require_finish = false;
    return res;
}

/* Parameter `slot` is ready (mark_variable_ready): when it completes its
 * bucket, the buckets now ready are launched in order. Whether this
 * launched the last one. */
static ct_result ct__ddp_mark_ready(ct__ddp *d, const ct__ddp_slot *slot, bool *launched_last)
{
    ct__ddp_bucket *b = &d->buckets[slot->bucket];
    if (--b->pending == 0) b->ready = true;
    for (int k = 0; k < d->next_bucket; k++) ct_work_is_completed(d->buckets[k].work); /* moves MPI on */
    int launched_before = d->next_bucket;
    while (d->next_bucket < d->n_buckets && d->buckets[d->next_bucket].ready) {
        bool last = d->next_bucket == d->n_buckets - 1;
        ct_result res = ct__ddp_launch(d, &d->buckets[d->next_bucket], last);
        if (res != CT_OK) return res;
        d->next_bucket++;
    }
    *launched_last = launched_before < d->n_buckets && d->next_bucket == d->n_buckets;
    return CT_OK;
}

/* A gradient arrived (the Reducer's autograd hook): its parameter is ready,
 * and once the last bucket is launched the end of backward is arranged. */
static ct_tensor *ct__ddp_grad_ready(ct_tensor *param, void *user)
{
    (void)param;
    ct__ddp_slot *slot = (ct__ddp_slot *)user;
    ct__ddp *d = slot->ddp;
    if (!d->expect_hooks) return NULL; /* no_sync, or a backward without a DDP forward */
    d->require_finish = true;
    if (d->find_unused) d->used[slot - d->slots] = 1;
    bool launched_last = false;
    if (ct__ddp_mark_ready(d, slot, &launched_last) != CT_OK) return NULL; /* (the error stays set) */
    if (launched_last) ct_autograd_queue_callback(ct__ddp_finish, d);
    return NULL;
}

/* ---------------------------------------------------------------- forward */

static ct_result ct__ddp_prepare_for_backward(ct__ddp *d)
{
    if (d->require_finish)
        return ct__dist_fail(
            CT_ERR_RUNTIME,
            "Expected to have finished reduction in the prior iteration before starting a new one. This error "
            "indicates that your module has parameters that were not used in producing loss. You can enable unused "
            "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
            "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
            "participate in calculating loss.");
    for (int k = 0; k < d->n_buckets; k++) {
        d->buckets[k].pending = d->buckets[k].n_params;
        d->buckets[k].ready = false;
    }
    if (d->find_unused) memset(d->used, 0, (size_t)d->n_params);
    d->next_bucket = 0;
    d->expect_hooks = true;
    return CT_OK;
}

/* A set of nodes seen, open addressing on their addresses (size a power of two). */
typedef struct ct__node_set {
    const ct_node **slots;
    size_t cap, n;
} ct__node_set;

/* Adds n; false when it was there already (or, the error set, when the set cannot grow). */
static bool ct__node_set_add(ct__node_set *set, const ct_node *n, bool *failed)
{
    if (2 * (set->n + 1) > set->cap) {
        ct__node_set grown = {NULL, set->cap ? 2 * set->cap : 64, 0};
        grown.slots = (const ct_node **)ct__dist_alloc(grown.cap * sizeof *grown.slots);
        if (!grown.slots) {
            *failed = true;
            return false;
        }
        memset(grown.slots, 0, grown.cap * sizeof *grown.slots);
        for (size_t i = 0; i < set->cap; i++)
            if (set->slots[i]) ct__node_set_add(&grown, set->slots[i], failed);
        CT_FREE(set->slots);
        *set = grown;
    }
    size_t i = ((uintptr_t)n >> 4) * 0x9E3779B97F4A7C15u & (set->cap - 1);
    for (; set->slots[i]; i = (i + 1) & (set->cap - 1))
        if (set->slots[i] == n) return false;
    set->slots[i] = n;
    set->n++;
    return true;
}

/* The parameters out's graph reaches, marked in reached (the Reducer's
 * search from the forward's outputs): a depth-first walk over grad_fn's
 * next functions to the AccumulateGrad nodes. */
static ct_result ct__ddp_reached(const ct__ddp *d, const ct_tensor *out, uint8_t *reached)
{
    for (int i = 0; i < d->n_params; i++) reached[i] = d->params[i] == out; /* a parameter returned as is */
    ct__node_set seen = {NULL, 0, 0};
    const ct_node **stack = NULL;
    size_t n = 0, cap = 0;
    bool failed = false;
    const ct_node *root = ct_grad_fn(out);
    if (root && ct__node_set_add(&seen, root, &failed)) {
        cap = 64;
        if (!(stack = (const ct_node **)ct__dist_alloc(cap * sizeof *stack))) failed = true;
        else stack[n++] = root;
    }
    while (n > 0 && !failed) {
        const ct_node *node = stack[--n];
        const ct_tensor *leaf = ct_node_variable(node);
        for (int i = 0; leaf && i < d->n_params; i++) reached[i] |= d->params[i] == leaf;
        for (int k = 0; k < ct_node_num_next(node) && !failed; k++) {
            const ct_node *next = ct_node_next(node, k, NULL);
            if (!next || !ct__node_set_add(&seen, next, &failed)) continue;
            if (n == cap) {
                const ct_node **grown = (const ct_node **)CT_REALLOC(stack, 2 * cap * sizeof *stack);
                if (!grown) {
                    failed = true;
                    break;
                }
                stack = grown, cap *= 2;
            }
            stack[n++] = next;
        }
    }
    CT_FREE(stack);
    CT_FREE(seen.slots);
    return failed ? ct__dist_fail(CT_ERR_MEMORY, "DistributedDataParallel: not enough memory to search the graph")
                  : CT_OK;
}

/* find_unused_parameters: the parameters out does not reach are ready now.
 * When out reaches none, no hook will end the reduction: it ends here. */
static ct_result ct__ddp_mark_unused_ready(ct__ddp *d, const ct_tensor *out)
{
    uint8_t *reached = (uint8_t *)ct__dist_alloc((size_t)d->n_params);
    ct_result res = reached ? ct__ddp_reached(d, out, reached) : CT_ERR_MEMORY;
    bool launched_last = false;
    for (int i = 0; i < d->n_params && res == CT_OK; i++)
        if (!reached[i]) res = ct__ddp_mark_ready(d, &d->slots[i], &launched_last);
    CT_FREE(reached);
    return res == CT_OK && launched_last ? ct__ddp_finish(d) : res;
}

/* Rank 0's tensors (of the group) to every rank, one broadcast each. */
static ct_result ct__ddp_broadcast_all(const ct__ddp *d, const ct_tensor_list *list)
{
    ct_result res = CT_OK;
    ct_dist_opts opts = {d->group, NULL};
    for (int i = 0; i < list->n && res == CT_OK; i++)
        res = ct_dist_broadcast(list->tensors[i], d->group->global[0], opts);
    return res;
}

static ct_result ct__ddp_sync_buffers(const ct__ddp *d)
{
    ct_tensor_list buffers = ct_module_buffers(d->inner, true);
    ct_result res = ct__ddp_broadcast_all(d, &buffers);
    ct_tensor_list_free(&buffers);
    return res;
}

static ct_tensor *ct__ddp_forward(ct_module *self, ct_tensor *const *inputs, int n_inputs)
{
    ct__ddp *d = (ct__ddp *)self;
    if (ct_is_grad_enabled() && d->require_sync && ct__ddp_prepare_for_backward(d) != CT_OK) return NULL;
    if (d->broadcast_buffers && d->group->size > 1 && ct__ddp_sync_buffers(d) != CT_OK) return NULL;
    ct_tensor *out = ct_forward_n(d->inner, inputs, n_inputs);
    if (out && d->find_unused && d->expect_hooks && ct__ddp_mark_unused_ready(d, out) != CT_OK) return NULL;
    return out;
}

/* ---------------------------------------------------------------- construction */

/* _verify_param_shape_across_processes: the same number of parameters with
 * the same shapes on every rank (shapes exchanged as ndim and 16 sizes). */
static ct_result ct__ddp_verify_params(const ct__ddp *d)
{
    enum { ROW = 1 + CT_MAX_DIMS };
    int size = d->group->size;
    ct_dist_opts opts = {d->group, NULL};
    ct_scope s = ct_scope_begin();
    ct_tensor *mine = ct__ddp_on_params_device(d, ct_full(CT_SHAPE(1), ct_int(d->n_params), CT_I64));
    ct_tensor *all = ct__ddp_on_params_device(d, ct_zeros(CT_SHAPE(size), CT_I64));
    ct_result res = mine && all ? ct_dist_all_gather_into_tensor(all, mine, opts) : ct_last_error_code();
    if (res == CT_OK && !(all = ct_to_device(all, CT_CPU, false))) res = ct_last_error_code();
    const int64_t *counts = res == CT_OK ? (const int64_t *)ct_data_ptr(all) : NULL;
    for (int r = 0; res == CT_OK && r < size; r++)
        if (counts[r] != d->n_params)
            res = ct__dist_fail(CT_ERR_RUNTIME,
                                "DDP expects same model across all ranks, but Rank %d has %d params, while rank %d has "
                                "inconsistent %lld params.",
                                d->group->global[d->group->rank], d->n_params, d->group->global[r], (long long)counts[r]);
    ct_tensor *shapes = res == CT_OK ? ct_zeros(CT_SHAPE(d->n_params > 0 ? d->n_params : 1, ROW), CT_I64) : NULL;
    for (int i = 0; shapes && i < d->n_params; i++) {
        ct_shape sh = ct_shape_of(d->params[i]);
        int64_t *row = (int64_t *)ct_data_ptr(shapes) + (size_t)i * ROW;
        row[0] = sh.ndim;
        for (int k = 0; k < sh.ndim; k++) row[1 + k] = sh.size[k];
    }
    ct_tensor *gathered = shapes ? ct__ddp_on_params_device(d, ct_zeros(CT_SHAPE(size, ct_numel(shapes)), CT_I64)) : NULL;
    ct_tensor *sent = gathered ? ct__ddp_on_params_device(d, shapes) : NULL;
    if (res == CT_OK) res = sent ? ct_dist_all_gather_into_tensor(gathered, sent, opts) : ct_last_error_code();
    if (res == CT_OK && !(gathered = ct_to_device(gathered, CT_CPU, false))) res = ct_last_error_code();
    for (int r = 0; res == CT_OK && r < size; r++) {
        const int64_t *theirs = (const int64_t *)ct_data_ptr(gathered) + (size_t)r * (size_t)ct_numel(shapes);
        for (int i = 0; res == CT_OK && i < d->n_params; i++)
            if (memcmp(theirs + (size_t)i * ROW, (const int64_t *)ct_data_ptr(shapes) + (size_t)i * ROW, ROW * sizeof(int64_t)))
                res = ct__dist_fail(CT_ERR_RUNTIME,
                                    "DDP expects same model across all ranks, but Rank %d params[%d] has a different "
                                    "shape than rank %d's.",
                                    d->group->global[d->group->rank], i, d->group->global[r]);
    }
    ct_scope_end(s);
    return res;
}

/* _compute_bucket_assignment_by_size: parameters in registration order, a
 * bucket per dtype, each closed once it holds its limit (1 MiB for the
 * first, cap for the rest); then reversed, as DDP hands them to the Reducer. */
static ct_result ct__ddp_assign_buckets(ct__ddp *d, int64_t cap_bytes)
{
    d->buckets = (ct__ddp_bucket *)ct__dist_alloc((size_t)d->n_params * sizeof *d->buckets);
    if (!d->buckets) return CT_ERR_MEMORY;
    memset(d->buckets, 0, (size_t)d->n_params * sizeof *d->buckets);
    int open[CT_NUM_DTYPES]; /* each dtype's open bucket, or -1 */
    int64_t limit[CT_NUM_DTYPES];
    for (int t = 0; t < CT_NUM_DTYPES; t++) open[t] = -1, limit[t] = CT__DDP_FIRST_BUCKET_BYTES;
    int n = 0;
    for (int i = 0; i < d->n_params; i++) {
        ct_dtype dt = ct_dtype_of(d->params[i]);
        if (open[dt] < 0) open[dt] = n++;
        d->n_buckets = n; /* (so that a failure frees what was made) */
        ct__ddp_bucket *b = &d->buckets[open[dt]];
        if (!b->params && !(b->params = (int *)ct__dist_alloc((size_t)d->n_params * sizeof *b->params)))
            return CT_ERR_MEMORY;
        d->slots[i].offset = b->numel;
        b->params[b->n_params++] = i;
        b->numel += ct_numel(d->params[i]);
        if (b->numel * (int64_t)ct_dtype_size(dt) >= limit[dt]) open[dt] = -1, limit[dt] = cap_bytes;
    }
    d->n_buckets = n;
    for (int k = 0; k < n / 2; k++) { /* reversed */
        ct__ddp_bucket t = d->buckets[k];
        d->buckets[k] = d->buckets[n - 1 - k];
        d->buckets[n - 1 - k] = t;
    }
    for (int k = 0; k < n; k++)
        for (int i = 0; i < d->buckets[k].n_params; i++) d->slots[d->buckets[k].params[i]].bucket = k;
    return CT_OK;
}

static ct_result ct__ddp_make_flats(ct__ddp *d)
{
    ct_result res = CT_OK;
    ct_scope s = ct_scope_begin();
    for (int k = 0; k < d->n_buckets && res == CT_OK; k++) {
        ct__ddp_bucket *b = &d->buckets[k];
        b->flat = ct__ddp_on_params_device(d, ct_zeros(CT_SHAPE(b->numel), ct_dtype_of(d->params[b->params[0]])));
        if (b->flat) ct_retain(b->flat); /* the bucket's own reference, past the scope */
        else res = ct_last_error_code();
    }
    ct_scope_end(s);
    return res;
}

/* The parameters that require grad, retained, and their hooks. */
static ct_result ct__ddp_take_params(ct__ddp *d)
{
    ct_tensor_list list = ct_module_parameters(d->inner, true);
    d->params = (ct_tensor **)ct__dist_alloc((size_t)list.n * sizeof *d->params);
    d->slots = d->params ? (ct__ddp_slot *)ct__dist_alloc((size_t)list.n * sizeof *d->slots) : NULL;
    d->used = d->slots ? (uint8_t *)ct__dist_alloc((size_t)list.n + 1) : NULL;
    ct_result res = d->used ? CT_OK : CT_ERR_MEMORY;
    for (int i = 0; i < list.n && res == CT_OK; i++) {
        if (!ct_requires_grad(list.tensors[i])) continue;
        d->params[d->n_params] = ct_retain(list.tensors[i]);
        memset(&d->slots[d->n_params], 0, sizeof *d->slots);
        d->slots[d->n_params].ddp = d;
        d->slots[d->n_params].hook_id = -1;
        d->n_params++;
    }
    ct_tensor_list_free(&list);
    d->device = d->n_params > 0 ? ct_device_of(d->params[0]) : CT_CPU;
    if (res == CT_OK && d->n_params == 0)
        res = ct__dist_fail(CT_ERR_RUNTIME, "DistributedDataParallel is not needed when a module doesn't have any "
                                            "parameter that requires a gradient.");
    return res;
}

static ct_result ct__ddp_register_hooks(ct__ddp *d)
{
    for (int i = 0; i < d->n_params; i++) {
        d->slots[i].hook_id = ct_register_post_accumulate_grad_hook(d->params[i], ct__ddp_grad_ready, &d->slots[i]);
        if (d->slots[i].hook_id < 0) return ct_last_error_code();
    }
    return CT_OK;
}

static ct_result ct__ddp_sync_params_and_buffers(const ct__ddp *d)
{
    ct_tensor_list params = {d->n_params, NULL, d->params};
    ct_result res = ct__ddp_broadcast_all(d, &params);
    return res == CT_OK ? ct__ddp_sync_buffers(d) : res;
}

ct_module *ct_ddp(ct_module *module, ct_ddp_opts opts)
{
    ct_process_group *g = ct__dist_group(opts.process_group);
    if (!module) ct__dist_fail(CT_ERR_TYPE, "DistributedDataParallel(): argument 'module' must be Module, not NULL");
    if (!g || !module) {
        ct_module_release(module);
        return NULL;
    }
    ct_module *m = ct_module_new(&ct__ddp_class, sizeof(ct__ddp));
    if (!m) {
        ct_module_release(module);
        return NULL;
    }
    ct__ddp *d = (ct__ddp *)m;
    d->group = g;
    d->broadcast_buffers = opts.broadcast_buffers;
    d->find_unused = opts.find_unused_parameters;
    d->require_sync = true;
    d->inner = ct_add_module(m, "module", module);
    double cap_mb = opts.bucket_cap_mb > 0 ? opts.bucket_cap_mb : 25;
    ct_result res = d->inner ? ct__ddp_take_params(d) : ct_last_error_code();
    if (res == CT_OK) res = ct__ddp_verify_params(d);
    if (res == CT_OK) res = ct__ddp_sync_params_and_buffers(d);
    if (res == CT_OK) res = ct__ddp_assign_buckets(d, (int64_t)(cap_mb * 1024 * 1024));
    if (res == CT_OK) res = ct__ddp_make_flats(d);
    if (res == CT_OK) res = ct__ddp_register_hooks(d);
    if (res != CT_OK) {
        ct_module_release(m);
        return NULL;
    }
    return m;
}

static void ct__ddp_destroy(ct_module *self)
{
    ct__ddp *d = (ct__ddp *)self;
    for (int k = 0; d->buckets && k < d->n_buckets; k++) {
        ct_work_free(d->buckets[k].work);
        ct_release(d->buckets[k].flat);
        CT_FREE(d->buckets[k].params);
    }
    for (int i = 0; i < d->n_params; i++) {
        if (d->slots[i].hook_id >= 0) ct_remove_hook(d->params[i], d->slots[i].hook_id);
        ct_release(d->params[i]);
    }
    CT_FREE(d->buckets);
    CT_FREE(d->slots);
    CT_FREE(d->used);
    CT_FREE(d->params);
}

/* ==================== dist/sync_batch_norm.c ==================== */
// >>dist/sync_batch_norm.c
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

/* ==================== dist/spawn.c ==================== */
// >>dist/spawn.c
/* ct_dist_spawn: torch.multiprocessing.spawn with fork. Each worker tells
 * the parent its error through a pipe of its own (PyTorch's error queue);
 * the parent polls the workers, and when one fails stops the others and
 * raises ProcessRaisedException's or ProcessExitedException's message. */
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* kill and nanosleep are POSIX: strict C11 (-std=c11) leaves them undeclared. */
#if !defined(__cplusplus) && !defined(_POSIX_C_SOURCE)
extern int kill(pid_t pid, int sig);
extern int nanosleep(const struct timespec *req, struct timespec *rem);
#endif

/* The grace period between SIGTERM and SIGKILL for the workers still
 * running when one failed (torchrun's 30 seconds). */
#define CT__SPAWN_GRACE_MS 30000

static void ct__spawn_sleep_ms(long ms)
{
    struct timespec t;
    t.tv_sec = ms / 1000, t.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&t, NULL);
}

/* Reaps the workers that have exited; returns how many still run. */
static int ct__spawn_reap(int nprocs, const pid_t *pid, int *status, bool *done)
{
    int running = 0;
    for (int i = 0; i < nprocs; i++) {
        if (done[i]) continue;
        if (waitpid(pid[i], &status[i], WNOHANG) == pid[i]) done[i] = true;
        else running++;
    }
    return running;
}

/* A signal's name as Python's signal.Signals(n).name. */
static const char *ct__spawn_signal_name(int sig)
{
    switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGBUS: return "SIGBUS";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return "UNKNOWN";
    }
}

/* The worker: fn's error, as "TypeName: message", goes to the parent. */
static void ct__spawn_child(int rank, ct_dist_spawn_fn fn, void *arg, int fd)
{
    ct_clear_error();
    /* one thread, as torchrun's OMP_NUM_THREADS=1; and GNU OpenMP's pool is
     * not fork-safe: a team of more than one thread after the parent used
     * OpenMP would wait for threads the fork did not copy */
    ct_set_num_threads(1);
    ct_result r = fn(rank, arg);
    if (r != CT_OK) {
        char msg[4000]; /* one write below PIPE_BUF: the parent reads it whole */
        int n = snprintf(msg, sizeof msg, "%s: %s\n", ct_result_str(r),
                         ct_last_error_code() != CT_OK ? ct_last_error() : "(no message)");
        if (n < 0 || n >= (int)sizeof msg) n = (int)sizeof msg - 1;
        if (write(fd, msg, (size_t)n) < 0) { /* the parent learns the exit code alone */
        }
    }
    fflush(NULL);
    _exit(r == CT_OK ? 0 : 1);
}

/* The failed worker's message, as PyTorch's ProcessContext.join raises it. */
static ct_result ct__spawn_fail(int rank, int status, int fd)
{
    char buf[4001];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = 0;
        return ct__dist_fail(CT_ERR_RUNTIME, "\n\n-- Process %d terminated with the following error:\n%s", rank, buf);
    }
    if (WIFSIGNALED(status))
        return ct__dist_fail(CT_ERR_RUNTIME, "process %d terminated with signal %s", rank,
                             ct__spawn_signal_name(WTERMSIG(status)));
    return ct__dist_fail(CT_ERR_RUNTIME, "process %d terminated with exit code %d", rank, WEXITSTATUS(status));
}

ct_result ct_dist_spawn(int nprocs, ct_dist_spawn_fn fn, void *arg)
{
    if (!fn) return ct__dist_fail(CT_ERR_TYPE, "'NoneType' object is not callable");
    if (nprocs < 0) return ct__dist_fail(CT_ERR_VALUE, "nprocs must be non-negative, got %d", nprocs);
    if (nprocs == 0) return CT_OK;
    pid_t *pid = (pid_t *)CT_MALLOC((size_t)nprocs * sizeof *pid);
    int *status = (int *)CT_MALLOC((size_t)nprocs * sizeof *status);
    int *fd = (int *)CT_MALLOC((size_t)nprocs * sizeof *fd);
    bool *done = (bool *)CT_MALLOC((size_t)nprocs * sizeof *done);
    if (!pid || !status || !fd || !done) {
        CT_FREE(pid), CT_FREE(status), CT_FREE(fd), CT_FREE(done);
        return ct__dist_oom();
    }
    fflush(NULL); /* what the parent buffered is printed once, not once more by each worker */
    ct_result res = CT_OK;
    int started = 0;
    for (; started < nprocs; started++) {
        int p[2];
        if (pipe(p)) {
            res = ct__dist_fail(CT_ERR_RUNTIME, "could not start process %d: pipe failed", started);
            break;
        }
        pid_t c = fork();
        if (c == 0) {
            close(p[0]);
            for (int i = 0; i < started; i++) close(fd[i]);
            ct__spawn_child(started, fn, arg, p[1]);
        }
        close(p[1]);
        if (c < 0) {
            close(p[0]);
            res = ct__dist_fail(CT_ERR_RUNTIME, "could not start process %d: fork failed", started);
            break;
        }
        pid[started] = c, fd[started] = p[0], done[started] = false, status[started] = 0;
    }
    /* join: the first worker seen failing stops the others */
    int failed = -1;
    while (ct__spawn_reap(started, pid, status, done) && res == CT_OK) {
        for (int i = 0; i < started && failed < 0; i++)
            if (done[i] && status[i] != 0) failed = i;
        if (failed >= 0) break;
        ct__spawn_sleep_ms(5);
    }
    for (int i = 0; i < started && failed < 0; i++)
        if (done[i] && status[i] != 0) failed = i;
    if (failed >= 0 || res != CT_OK) {
        for (int i = 0; i < started; i++)
            if (!done[i]) kill(pid[i], SIGTERM);
        for (long waited = 0; ct__spawn_reap(started, pid, status, done) && waited < CT__SPAWN_GRACE_MS; waited += 5)
            ct__spawn_sleep_ms(5);
        for (int i = 0; i < started; i++)
            if (!done[i]) kill(pid[i], SIGKILL);
        while (ct__spawn_reap(started, pid, status, done)) ct__spawn_sleep_ms(5);
    }
    if (failed >= 0 && res == CT_OK) res = ct__spawn_fail(failed, status[failed], fd[failed]);
    for (int i = 0; i < started; i++) close(fd[i]);
    CT_FREE(pid), CT_FREE(status), CT_FREE(fd), CT_FREE(done);
    return res;
}

#endif /* CTORCH_DIST_IMPLEMENTATION */
