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
