/* Public base types: linkage, errors, dtypes, scalars, devices, shapes. */
/* MinGW: the implementation formats through MinGW's C99 printf, not msvcrt's,
 * which lacks %zu and writes three-digit exponents (1e+010) where PyTorch
 * writes two. This takes effect where ctorch.h comes before every system
 * header; build the implementation with -D__USE_MINGW_ANSI_STDIO=1 otherwise. */
#if defined(__MINGW32__) && defined(CTORCH_IMPLEMENTATION) && !defined(__USE_MINGW_ANSI_STDIO)
#define __USE_MINGW_ANSI_STDIO 1
#endif
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(CTORCH_STATIC) && (defined(__GNUC__) || defined(__clang__))
#define CTORCH_API static __attribute__((unused)) /* no warning for the functions a program does not call */
#elif defined(CTORCH_STATIC)
#define CTORCH_API static
#else
#define CTORCH_API extern
#endif

/* The most dimensions a tensor may have. */
#define CT_MAX_DIMS 16

/* ---------------------------------------------------------------- errors */

/* What a function that acts (rather than makes a tensor) returns. The negative
 * codes mirror the Python exception PyTorch raises for the same mistake. */
typedef enum ct_result {
    CT_OK = 0,
    CT_ERR_RUNTIME = -1,         /* RuntimeError */
    CT_ERR_VALUE = -2,           /* ValueError */
    CT_ERR_TYPE = -3,            /* TypeError */
    CT_ERR_INDEX = -4,           /* IndexError */
    CT_ERR_NOT_IMPLEMENTED = -5, /* NotImplementedError */
    CT_ERR_MEMORY = -6,          /* out of memory */
    CT_ERR_IO = -7,              /* a file could not be read or written */
    CT_ERR_KEY = -8,             /* KeyError */
    CT_ERR_ATTRIBUTE = -9        /* AttributeError */
} ct_result;

/* The name of a result code: "RuntimeError", "IndexError", ... */
CTORCH_API const char *ct_result_str(ct_result r);

/* The message of the first error since the last ct_clear_error() on this thread,
 * worded as PyTorch words it; "" when there is none. */
CTORCH_API const char *ct_last_error(void);

/* The code of that error, or CT_OK. */
CTORCH_API ct_result ct_last_error_code(void);

/* Forget this thread's pending error. */
CTORCH_API void ct_clear_error(void);

/* Raise an error from code built on ctorch (ctorch_dist.h, a backend, a
 * program's own layers): this thread's error becomes `message` with `code`
 * (CT_ERR_RUNTIME for CT_OK), and the handler is told, as for ctorch's own
 * errors. Returns that code, so that `return ct_set_error(...)` reads as a raise. */
CTORCH_API ct_result ct_set_error(ct_result code, const char *message);

/* Called on every new error (not on a NULL passed along a chain), on the thread
 * that raised it: log it, abort in a debug build, or count it. NULL removes it. */
typedef void (*ct_error_handler)(ct_result code, const char *message, void *user);
CTORCH_API void ct_set_error_handler(ct_error_handler handler, void *user);

/* ---------------------------------------------------------------- dtypes */

/* Element types. CT_DEFAULT (zero) means "the default": the default dtype
 * (float32 unless ct_set_default_dtype changed it), or the input's dtype for
 * the _like functions and conversions. */
typedef enum ct_dtype {
    CT_DEFAULT = 0,
    CT_BOOL,
    CT_U8,
    CT_I8,
    CT_I16,
    CT_I32,
    CT_I64,
    CT_F16,
    CT_BF16,
    CT_F32,
    CT_F64
} ct_dtype;
#define CT_NUM_DTYPES 11

/* PyTorch's name without "torch.": "float32", "int64", "bool", ... */
CTORCH_API const char *ct_dtype_name(ct_dtype dtype);
/* Bytes per element (torch.Tensor.element_size for a tensor of that dtype). */
CTORCH_API size_t ct_dtype_size(ct_dtype dtype);
/* torch.is_floating_point for the dtype. */
CTORCH_API bool ct_dtype_is_floating(ct_dtype dtype);
/* torch.set_default_dtype: float32 or float64 (others are an error, as in PyTorch). */
CTORCH_API ct_result ct_set_default_dtype(ct_dtype dtype);
/* torch.get_default_dtype. */
CTORCH_API ct_dtype ct_get_default_dtype(void);
/* torch.promote_types. */
CTORCH_API ct_dtype ct_promote_types(ct_dtype a, ct_dtype b);
/* torch.can_cast: whether a value of `from` may be written to `to` under
 * PyTorch's casting rules (no float to integral, no non-bool to bool). */
CTORCH_API bool ct_can_cast(ct_dtype from, ct_dtype to);

/* ---------------------------------------------------------------- scalars */

/* A Python number: PyTorch treats an int, a float and a bool differently in
 * type promotion (int_tensor + 2 stays integral, int_tensor + 2.5 does not),
 * so a scalar remembers which it is. Make one with ct_int, ct_float, ct_bool. */
typedef struct ct_scalar {
    ct_dtype kind; /* CT_I64, CT_F64 or CT_BOOL */
    union {
        int64_t i;
        double f;
        bool b;
    } v;
} ct_scalar;

CTORCH_API ct_scalar ct_int(int64_t v);
CTORCH_API ct_scalar ct_float(double v);
CTORCH_API ct_scalar ct_bool(bool v);
/* The scalar's value as a double (an int64 beyond 2^53 rounds). */
CTORCH_API double ct_scalar_to_double(ct_scalar s);

/* ---------------------------------------------------------------- threads */

/* torch.set_num_threads: how many threads the calling thread's ops may use
 * (OpenMP's setting for that thread; DataLoader workers start at 1, as
 * PyTorch's do). n < 1 is an error. Without OpenMP ops run on one thread
 * whatever the setting. */
CTORCH_API ct_result ct_set_num_threads(int n);
/* torch.get_num_threads: that number (1 without OpenMP). */
CTORCH_API int ct_get_num_threads(void);

/* ---------------------------------------------------------------- devices */

/* Device types (torch.device.type). CT_DEVICE_DEFAULT (zero) means "the
 * default device" in an options field, as CT_DEFAULT does for dtypes.
 * CT_DEVICE_PRIVATEUSE1 is PyTorch's slot for a backend from outside the
 * library; it takes the name its backend registers (see ct_register_backend). */
typedef enum ct_device_type {
    CT_DEVICE_DEFAULT = 0,
    CT_DEVICE_CPU,
    CT_DEVICE_CUDA,
    CT_DEVICE_PRIVATEUSE1
} ct_device_type;
#define CT_NUM_DEVICE_TYPES 4

/* A device (torch.device): a type and an index; index -1 is "the current
 * one" (torch.device('cuda') has no index). A CPU device's index is -1. */
typedef struct ct_device {
    ct_device_type type;
    int index;
} ct_device;

#ifdef __cplusplus
#define CT__DEVICE(type, index) ct_device{type, index}
#else
#define CT__DEVICE(type, index) ((ct_device){type, index})
#endif
/* torch.device('cpu') and torch.device('cuda', i). */
#define CT_CPU CT__DEVICE(CT_DEVICE_CPU, -1)
#define CT_CUDA(i) CT__DEVICE(CT_DEVICE_CUDA, i)

/* torch.device(s): "cpu", "cuda", "cuda:1", or a registered backend's name
 * (with an index or not). Errors in PyTorch's words. */
CTORCH_API ct_result ct_device_parse(const char *s, ct_device *out);
/* str(torch.device): "cpu", "cuda:0" into buf (room for n bytes, cut to fit);
 * returns buf (NULL or n == 0: nothing is written). */
CTORCH_API const char *ct_device_str(ct_device d, char *buf, size_t n);
/* torch.device.__eq__: the same type and index (-1 counts as the current
 * index of its type). */
CTORCH_API bool ct_device_equal(ct_device a, ct_device b);
/* torch.cuda.is_available(): whether a CUDA backend is linked in and sees a GPU. */
CTORCH_API bool ct_cuda_is_available(void);
/* torch.cuda.device_count(): 0 without the CUDA backend or a GPU. */
CTORCH_API int ct_cuda_device_count(void);
/* torch.cuda.set_device(device): the calling thread's current CUDA device,
 * which CT_CUDA(-1) ("cuda" without an index: ct_cuda, streams, the
 * default device, ct_synchronize) means; initially 0. A negative index
 * does nothing, as in PyTorch; without a GPU, or past the last one, the
 * error torch.cuda gives. CUDA's own current device (cudaSetDevice) is
 * left alone: each ctorch op sets it to its tensors' device, so a kernel
 * of the program's own should name its device itself. */
CTORCH_API ct_result ct_cuda_set_device(int index);
/* torch.cuda.current_device(): that index, or -1 with the error
 * torch.cuda gives when there is no GPU. */
CTORCH_API int ct_cuda_current_device(void);
/* torch.backends.cuda.matmul.allow_tf32: whether float32 products on CUDA
 * may run on TF32 tensor cores (inputs rounded to 10 mantissa bits, about 3
 * decimal digits). Off by default, as in PyTorch 1.12 and later. */
CTORCH_API void ct_set_allow_tf32_matmul(bool allow);
CTORCH_API bool ct_allow_tf32_matmul(void);
/* torch.cuda.synchronize(device) / the same for any device: wait until every
 * queued kernel has finished. Nothing to do on the CPU. */
CTORCH_API ct_result ct_synchronize(ct_device d);

/* A device's memory counters: torch.cuda.memory_stats(device)'s
 * "*.all.current" and "*.all.peak" entries, in bytes, and its allocation
 * counts. Reserved memory is what the device's allocator holds, its cache
 * of free blocks included. */
typedef struct ct_memory_counters {
    int64_t allocated_bytes;      /* torch.cuda.memory_allocated(device) */
    int64_t peak_allocated_bytes; /* torch.cuda.max_memory_allocated(device) */
    int64_t reserved_bytes;       /* torch.cuda.memory_reserved(device) */
    int64_t peak_reserved_bytes;  /* torch.cuda.max_memory_reserved(device) */
    int64_t num_allocs;           /* "allocation.all.allocated" */
    int64_t num_frees;            /* "allocation.all.freed" */
} ct_memory_counters;
/* torch.cuda.memory_stats(device) for any device whose backend keeps
 * them: the CPU's caching allocator does (it counts whole blocks, as
 * PyTorch's CUDA one does: a fresh block is at most 1/16 over the bytes
 * asked, a cached one taken for a smaller request up to twice them); a
 * backend without them gives PyTorch's "Expected a cuda device" error.
 * *out is untouched on error. */
CTORCH_API ct_result ct_memory_stats(ct_device d, ct_memory_counters *out);
/* torch.cuda.reset_peak_memory_stats(device): the peaks start again from
 * the current values. */
CTORCH_API ct_result ct_reset_peak_memory_stats(ct_device d);
/* torch.cuda.empty_cache(): the allocator gives its cached free blocks
 * back to the device, lowering reserved_bytes. */
CTORCH_API ct_result ct_empty_cache(ct_device d);
/* The most bytes the CPU allocator keeps in its cache of freed blocks, for
 * the next tensors of their sizes (PyTorch's CPU allocator keeps none; its
 * CUDA caching allocator has no such limit either). A block freed past it
 * goes back to the system at once; a lower limit frees cached blocks, the
 * largest first, down to it; 0 disables the cache. Initially the
 * environment's CTORCH_CPU_CACHE_MAX (bytes, or with a K, M or G suffix:
 * binary units), else no limit. */
CTORCH_API void ct_set_cpu_cache_limit(size_t bytes);

/* torch.set_default_device: where the creation functions that take no
 * device (ct_zeros, ct_from_array, ct_arange, ct_randn, ...) put their
 * tensors, for the whole program (initially the CPU). Checked as
 * ct_to_device checks a device. */
CTORCH_API ct_result ct_set_default_device(ct_device d);
CTORCH_API ct_device ct_get_default_device(void);
/* A scoped default device, for one block of code (PyTorch's `with
 * torch.device(d):`): ct_device_guard_begin sets it on the calling thread
 * until the matching ct_device_guard_end restores what was in force.
 * Guards nest. */
typedef struct ct_device_guard {
    ct_device previous;
    bool had_previous;
} ct_device_guard;
CTORCH_API ct_device_guard ct_device_guard_begin(ct_device d);
CTORCH_API void ct_device_guard_end(ct_device_guard g);

/* ---------------------------------------------------------------- streams and events */

/* torch.cuda.Stream: a queue of work on one device, run in order; work on
 * two streams may run at once. Each device has a default stream (id 0),
 * and each thread a current stream per device, where ops queue their
 * kernels (initially the default one). A stream ctorch hands out is one of
 * the device's pool, as PyTorch's are: 32 per priority, given round robin,
 * never destroyed. The CPU has no streams: the functions below refuse it
 * with PyTorch's words. */
typedef struct ct_stream {
    ct_device device;
    int64_t id; /* 0: the default stream */
} ct_stream;
/* torch.cuda.Stream(device, priority): priority 0 (low) or negative (high). */
CTORCH_API ct_result ct_stream_new(ct_device device, int priority, ct_stream *out);
/* torch.cuda.current_stream(device), torch.cuda.default_stream(device). */
CTORCH_API ct_result ct_current_stream(ct_device device, ct_stream *out);
CTORCH_API ct_result ct_default_stream(ct_device device, ct_stream *out);
/* torch.cuda.set_stream(s): s becomes the calling thread's current stream
 * of s's device. */
CTORCH_API ct_result ct_set_stream(ct_stream s);
/* `with torch.cuda.stream(s):` s is current on the calling thread (for
 * its device) until the matching ct_stream_guard_end puts back the stream
 * it replaced. Guards nest; a guard whose begin failed restores nothing. */
typedef struct ct_stream_guard {
    ct_stream previous;
    bool active;
} ct_stream_guard;
CTORCH_API ct_stream_guard ct_stream_guard_begin(ct_stream s);
CTORCH_API void ct_stream_guard_end(ct_stream_guard g);
/* Stream.cuda_stream: the device's own handle of s (a cudaStream_t on
 * CUDA; NULL for its default stream), for code that queues work of its
 * own in order with ctorch's. */
CTORCH_API ct_result ct_stream_handle(ct_stream s, void **out);
/* Stream.synchronize(): wait until the work queued on s has finished. */
CTORCH_API ct_result ct_stream_synchronize(ct_stream s);
/* Stream.query(): *done = whether the work queued on s has finished. */
CTORCH_API ct_result ct_stream_query(ct_stream s, bool *done);
/* Stream.wait_stream(other): work queued on s from now on waits for the
 * work queued on other so far (the host does not wait). */
CTORCH_API ct_result ct_stream_wait_stream(ct_stream s, ct_stream other);

/* torch.cuda.Event: a point in a stream's work, to wait for or to time.
 * Made on the device of the first stream it is recorded on. */
typedef struct ct_event ct_event;
typedef struct ct_event_opts {
    bool enable_timing; /* elapsed_time may read it */
    bool blocking;      /* synchronize sleeps instead of spinning */
} ct_event_opts;
/* torch.cuda.Event(enable_timing, blocking); NULL with the error set when
 * out of memory. */
CTORCH_API ct_event *ct_event_new(ct_event_opts opts);
CTORCH_API void ct_event_free(ct_event *e);
/* Event.record(stream): e marks the work queued on s so far. */
CTORCH_API ct_result ct_event_record(ct_event *e, ct_stream s);
/* Event.wait(stream) / Stream.wait_event(e): work queued on s from now on
 * waits for the work e marks (nothing, when e was never recorded). */
CTORCH_API ct_result ct_event_wait(ct_event *e, ct_stream s);
/* Event.synchronize(): the host waits for the work e marks. */
CTORCH_API ct_result ct_event_synchronize(ct_event *e);
/* Event.query(): *done = whether the work e marks has finished (true for
 * an event never recorded). */
CTORCH_API ct_result ct_event_query(ct_event *e, bool *done);
/* Event.elapsed_time(end): milliseconds from start to end, both recorded
 * with enable_timing and finished. */
CTORCH_API ct_result ct_event_elapsed_time(const ct_event *start, const ct_event *end, float *ms);

/* ---------------------------------------------------------------- shapes */

/* A list of sizes (or of dims, strides, indices): what a Python tuple of ints
 * is in PyTorch. Write one inline: CT_SHAPE(3, 4); CT_SHAPE0 is the empty list. */
typedef struct ct_shape {
    int ndim;
    int64_t size[CT_MAX_DIMS];
} ct_shape;

#ifdef __cplusplus
#define CT_SHAPE(...) ct_shape_of({__VA_ARGS__})
#define CT_SHAPE0 ct_shape{}
#else
#define CT_SHAPE(...) \
    ((ct_shape){(int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), {__VA_ARGS__}})
#define CT_SHAPE0 ((ct_shape){0, {0}})
#endif
/* CT_DIMS reads better where the list holds dims rather than sizes. */
#define CT_DIMS CT_SHAPE

/* A shape from a C array of n sizes (n <= CT_MAX_DIMS). */
CTORCH_API ct_shape ct_shape_make(int ndim, const int64_t *size);
