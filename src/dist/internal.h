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
