/* The backend interface: what a device's translation unit needs to serve
 * ctorch's ops. The library compiles it with its implementation; a backend
 * compiled apart (ctorch_cuda.cu, a test device) defines CTORCH_BACKEND
 * before including ctorch.h to see it. With the op enum, the argument
 * structs and the jobs above (optable.h, reduce_ops.h, join_ops.h,
 * sort_ops.h), it is the whole contract between the front ends and a
 * device: front ends check arguments, pick dtypes and layouts, allocate
 * results and record autograd nodes; a backend moves and computes bytes.
 *
 * Every entry is called with tensors of the backend's own device only
 * (copies: one side may be another device), after the front end's checks.
 * A kernel that fails sets the error with ct_set_error and says so through its
 * result; the others cannot fail. A backend registers itself once, at
 * start-up (from a constructor), with ct_register_backend. */

/* A refcounted buffer on one device. */
typedef struct ct__storage {
    int refcount;
    void *data;
    size_t nbytes;
    ct_device device;
    void (*deleter)(void *data, void *ctx); /* caller memory with a deleter */
    void *deleter_ctx;
    bool owned; /* allocated by the device backend, freed by it */
    bool inference; /* made in inference mode: its tensors are inference tensors */
    uint32_t version; /* bumped by in-place writes: autograd checks saved tensors against it */
} ct__storage;

/* A strided view of a storage. A backend reads sizes, strides (in
 * elements), offset, dtype and storage->data; the rest is the front end's. */
struct ct_tensor {
    int refcount;
    int ndim;
    ct_dtype dtype;
    int64_t offset; /* in elements */
    int64_t sizes[CT_MAX_DIMS];
    int64_t strides[CT_MAX_DIMS]; /* in elements */
    ct__storage *storage;
    bool requires_grad;  /* a leaf's flag; a non-leaf requires grad through its grad_fn */
    bool wrapped_number; /* a Python number made a 0-d tensor: lowest rank in type promotion */
    uint8_t view_made;   /* a view's ct__view_made: whether its history may be rewritten */
    bool hosts_storage;  /* its block holds a storage too (a small CPU tensor, ct__alloc_strided) */
    uint32_t view_version; /* a view: its storage's version when its grad_fn was last set */
    struct ct_tensor *base; /* a view's base (Tensor._base), never itself a view; strong. NULL: not a view */
    struct ct__ag_meta *ag; /* autograd state (src/autograd/internal.h), NULL until it takes part */
};

/* One batched matrix product, BLAS style on raw device pointers:
 * C[i] = beta * C[i] + alpha * op(A[i]) @ op(B[i]) for i < batch, where
 * op(A[i]) is M x K (A[i] starts at A + i * a_bs elements, row-major with
 * leading dimension a_ld, or its transpose stored so when a_trans), op(B[i])
 * K x N likewise, and C is contiguous [batch, M, N]. beta 0 never reads C.
 * dtype is float32, float64, or int64 (integers wrap; alpha and beta are
 * whole numbers then). */
typedef struct ct__gemm_job {
    ct_dtype dtype;
    int64_t batch, M, N, K;
    const void *A, *B;
    void *C;
    int64_t a_bs, a_ld, b_bs, b_ld;
    bool a_trans, b_trans;
    double alpha, beta;
    int device_index;
} ct__gemm_job;

/* One range: out (1-D, contiguous, fresh) filled with
 *   ARANGE    start + i * step, start and step given as Python numbers in
 *             the kernel's accumulate type (int64 wraps; see ct_arange)
 *   LINSPACE  steps >= 2 values from begin to end, both as out's dtype holds them
 *   LOGSPACE  base ** linspace(begin, end), likewise. */
typedef enum ct__range_kind { CT__RANGE_ARANGE, CT__RANGE_LINSPACE, CT__RANGE_LOGSPACE } ct__range_kind;
typedef struct ct__range_job {
    ct__range_kind kind;
    ct_tensor *out;
    ct_scalar start, step; /* ARANGE */
    double begin, end, base; /* LINSPACE, LOGSPACE */
} ct__range_job;

/* One sampler run on out, drawing from generator g, locked by the front
 * end: on the CPU the front end's own mt19937, on a device the generator's
 * state (the device's ct_generator_kind), which the sampler advances:
 *   UNIFORM        in [a[0], a[1]) (bounds rounded to out's dtype)
 *   NORMAL         mean a[0], std a[1]
 *   INT            (draw % u[0] + u[1]) in uint64, 64-bit draws when u[2]
 *   EXPONENTIAL    lambda a[0]
 *   BERNOULLI      probability a[0], or input's elements when input is set
 *                  (an element outside [0, 1]: PyTorch's error)
 *   NORMAL_TENSOR  normal(0, 1) * input2 + input (std, mean broadcast to out)
 *   RANDPERM       out (1-D) a permutation of 0 .. n-1
 *   MULTINOMIAL    k indices per row of the probabilities in input, with
 *                  replacement or not (its checks of the values: errors)
 * CT_OK, or an error the sampler found in the values it read. */
typedef enum ct__random_kind {
    CT__RANDOM_UNIFORM,
    CT__RANDOM_NORMAL,
    CT__RANDOM_INT,
    CT__RANDOM_EXPONENTIAL,
    CT__RANDOM_BERNOULLI,
    CT__RANDOM_NORMAL_TENSOR,
    CT__RANDOM_RANDPERM,
    CT__RANDOM_MULTINOMIAL
} ct__random_kind;
typedef struct ct__random_job {
    ct__random_kind kind;
    ct_tensor *out;
    const ct_tensor *input, *input2;
    double a[2];
    uint64_t u[3];
    int64_t k;
    bool replacement;
    ct_generator *g;
    void *state; /* a device generator's state; NULL on the CPU */
} ct__random_job;

/* A device's random number generator (torch.Generator(device=...)): a state
 * of state_bytes, in the layout Generator.get_state shows (CUDA's: the seed
 * and the Philox offset). seed() makes the state a seed starts; initial_seed()
 * reads back the seed a state started from; check_state() says whether
 * nbytes handed to set_state are such a state (CT_OK, else the error set in
 * PyTorch's words). */
typedef struct ct_generator_kind {
    size_t state_bytes;
    void (*seed)(void *state, uint64_t seed);
    uint64_t (*initial_seed)(const void *state);
    ct_result (*check_state)(const void *bytes, size_t nbytes);
} ct_generator_kind;

/* One fused optimizer step over n contiguous float32 elements of a
 * parameter p and its gradient, in the bits of the op-by-op rule:
 *   SGD   buf[0] the momentum buffer; a = {weight_decay, momentum,
 *         1 - dampening, -lr}; maximize, nesterov
 *   ADAM  buf = {exp_avg, exp_avg_sq, max_exp_avg_sq or NULL}; a = {beta1,
 *         beta2, 1 - beta1, 1 - beta2, sqrt(bias_correction2), eps, -step_size} */
typedef enum ct__optim_kind { CT__OPTIM_SGD, CT__OPTIM_ADAM } ct__optim_kind;
typedef struct ct__optim_job {
    ct__optim_kind kind;
    int64_t n;
    float *p, *buf[3];
    const float *grad;
    float a[7];
    bool maximize, nesterov;
    int device_index; /* the device of every pointer */
} ct__optim_job;

/* Batch norm's statistics per channel of a contiguous x (float32 or
 * float64) into mean and var_sum (the sum of squared deviations), both
 * (c): x is (n, c, image) planes, or (count, c) rows when channels-last. */
typedef struct ct__bn_stats_job {
    ct_dtype dtype;
    bool rows;
    int64_t n, c, image, count;
    const void *x;
    void *mean, *var_sum;
    int device_index; /* the device of every pointer */
} ct__bn_stats_job;

/* Layer norm over `rows` rows of n contiguous float32 elements: the
 * forward (g NULL) writes y = xhat * w + b, the backward (g the gradient of
 * y) writes x's gradient into y and g * xhat into gxhat (either may be
 * NULL); w and b may be NULL. Fails only for memory. */
typedef struct ct__layer_norm_job {
    const float *x, *g, *w, *b;
    float *y, *gxhat;
    int64_t rows, n;
    double eps;
    int device_index; /* the device of every pointer */
} ct__layer_norm_job;

/* A device's streams and events (ct_stream, ct_event): streams are ids, 0
 * the default one, others from create; events the backend's handles.
 * Each returns CT_OK, else the error set in PyTorch's words. */
typedef struct ct_stream_kernels {
    ct_result (*create)(int device_index, int priority, int64_t *id);
    /* The calling thread's current stream of a device, and setting it. */
    int64_t (*current)(int device_index);
    ct_result (*set_current)(int device_index, int64_t id);
    /* The device's own handle of the stream (Stream.cuda_stream). */
    ct_result (*handle)(int device_index, int64_t id, void **out);
    ct_result (*synchronize)(int device_index, int64_t id);
    ct_result (*query)(int device_index, int64_t id, bool *done);
    ct_result (*event_create)(int device_index, bool timing, bool blocking, void **event);
    void (*event_destroy)(int device_index, void *event);
    /* event marks the work queued on the stream so far; the stream waits for an event. */
    ct_result (*event_record)(void *event, int device_index, int64_t id);
    ct_result (*event_wait)(void *event, int device_index, int64_t id);
    ct_result (*event_synchronize)(void *event);
    ct_result (*event_query)(void *event, bool *done);
    ct_result (*event_elapsed_time)(void *start, void *end, float *ms);
    /* The block at ptr (a storage's base, from alloc on device_index) is in
     * use on stream id of stream_device too (Tensor.record_stream). */
    ct_result (*record_stream)(void *ptr, int device_index, int stream_device, int64_t id);
} ct_stream_kernels;

/* What a device provides (ggml-backend's idea: one table per device type). */
typedef struct ct_backend {
    const char *name; /* the device type's name in strings: "cpu", "cuda", a PrivateUse1 name */
    /* How many devices of this type the process sees. */
    int (*device_count)(void);
    /* nbytes (> 0) on device `index`, aligned for any dtype; NULL with the
     * error set (PyTorch's out-of-memory words). */
    void *(*alloc)(size_t nbytes, int device_index);
    /* Give back a block alloc made, with the size it was asked for. */
    void (*free)(void *ptr, size_t nbytes, int device_index);
    /* dst = src: src already broadcast to dst's shape (zero strides), any
     * dtypes, either of them (or both) on this device and the other on the
     * CPU or this device. non_blocking: the copy may still run when this
     * returns (it is ordered before any later kernel of this device). */
    void (*copy)(ct_tensor *dst, const ct_tensor *src, bool non_blocking);
    /* Every element of dst set to the bytes at elem (one element of dst's dtype). */
    void (*fill)(ct_tensor *dst, const void *elem);
    /* Whether the backend has op's kernel for inputs of dtype dt. */
    bool (*has_pointwise)(ct__op op, ct_dtype dt);
    /* out = op(inputs): inputs of one dtype, broadcast to out's shape; out is
     * of that dtype (or bool for comparisons). */
    void (*pointwise)(ct__op op, ct_tensor *out, const ct_tensor *const *inputs, const ct__op_args *args);
    /* The join family's index kernels: gather, scatter, masks (see ct__index_job). */
    void (*index)(ct__index_job *job);
    /* The sorting and selection ops (sort_ops.h): CT_OK, or an error such as
     * running out of scratch memory. */
    ct_result (*sorting)(ct__op op, ct__sort_job *job);
    /* Reductions, scans and softmax (reduce_ops.h). */
    const ct__reduce_kernels *reduce;
    /* Matrix products (ct__gemm_job). */
    void (*gemm)(const ct__gemm_job *job);
    /* arange, linspace, logspace (ct__range_job). */
    void (*range)(const ct__range_job *job);
    /* Random numbers (ct__random_job), from generators of this kind (the
     * CPU's is the front end's own: NULL there). */
    ct_result (*random)(const ct__random_job *job);
    const ct_generator_kind *generator;
    /* Convolutions, their gradients, im2col and col2im (ct__conv_job). */
    ct_result (*conv)(const ct__conv_job *job);
    /* Pooling, padding, interpolation, pixel shuffle: sparse linear maps (ct__linmap_job). */
    void (*linmap)(const ct__linmap_job *job);
    /* The fused optimizer steps (ct__optim_job). */
    void (*optim_step)(const ct__optim_job *job);
    /* Batch norm's statistics (ct__bn_stats_job). */
    void (*bn_stats)(const ct__bn_stats_job *job);
    /* Layer norm's rows, forward or backward (ct__layer_norm_job). */
    ct_result (*layer_norm)(const ct__layer_norm_job *job);
    /* Wait until the device has finished what was queued on it. */
    void (*synchronize)(int device_index);
    /* Memory statistics (optional: NULL where the backend keeps none, and
     * then reset_peak_memory_stats and empty_cache are NULL too):
     * the counters of device index, the peaks set to the current values,
     * and cached free blocks given back to the device. */
    void (*memory_stats)(int device_index, ct_memory_counters *out);
    void (*reset_peak_memory_stats)(int device_index);
    void (*empty_cache)(int device_index);
    /* Streams and events (optional: NULL where the device has none). */
    const ct_stream_kernels *streams;
    /* Page-locked host memory the device copies to and from without the
     * host waiting (Tensor.pin_memory; optional: both NULL or neither).
     * host_alloc gives NULL with the error set. */
    void *(*host_alloc)(size_t nbytes);
    void (*host_free)(void *ptr);
} ct_backend;

/* The interface's version: a backend compiled against another one is refused. */
#define CT_BACKEND_ABI_VERSION 6

#ifdef __cplusplus
extern "C" {
#endif
/* Install `backend` as the one for device type `type` (CUDA, or
 * PrivateUse1 under the backend's name), replacing any before it. abi_version
 * must be CT_BACKEND_ABI_VERSION as the backend saw it. The table must live
 * as long as the program. Not thread safe: call it at start-up. */
CTORCH_API ct_result ct_register_backend(ct_device_type type, const ct_backend *backend, int abi_version);
/* The table serving a device type, NULL when none is registered; a backend
 * may wrap another (the CPU's) through it. */
CTORCH_API const ct_backend *ct_backend_get(ct_device_type type);
#ifdef __cplusplus
}
#endif
