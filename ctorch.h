/* ctorch.h - PyTorch's core as a single-header C library.
 *
 * Generated from src/ by `make amalgamate`; edit src/, not this file.
 *
 * 1. QUICK START
 *
 *    In exactly one C or C++ file:
 *
 *        #define CTORCH_IMPLEMENTATION
 *        #include "ctorch.h"
 *
 *    and `#include "ctorch.h"` wherever else it is used. Link with -lm.
 *
 *        ct_manual_seed(0);
 *        ct_tensor *x = ct_rand(CT_SHAPE(2, 3), CT_F32, NULL);   // torch.rand(2, 3)
 *        ct_tensor *y = ct_index(x, ":, 1:");                     // x[:, 1:], a view
 *        ct_print(y);                                             // tensor([[0.7682, 0.0885], ...
 *        ct_release(y);
 *        ct_release(x);
 *
 *    Names follow PyTorch's: torch.zeros is ct_zeros, Tensor.view is ct_view,
 *    an in-place Tensor.fill_ is ct_fill_. Shapes are written inline with
 *    CT_SHAPE(3, 4); dtypes are CT_F32, CT_I64, ... and CT_DEFAULT (0) means the
 *    default dtype. Python numbers are ct_scalar values made by ct_int(2),
 *    ct_float(2.5) and ct_bool(true), because PyTorch treats them differently.
 *
 * 2. MEMORY RULES
 *
 *    Tensors are refcounted. Every function that returns a tensor returns a new
 *    reference, which the caller gives back with ct_release (ct_retain takes
 *    another). A view shares its storage: the storage lives while any view does.
 *
 *    Scopes free a loop's temporaries without a ct_release for each:
 *
 *        for (int step = 0; step < n; step++) {
 *            ct_scope s = ct_scope_begin();
 *            ... every tensor made here belongs to the scope ...
 *            best = ct_keep(t);       // except those handed on with ct_keep
 *            ct_scope_end(s);         // releases the rest
 *        }
 *
 *    While a scope is open on a thread, tensors returned on that thread belong
 *    to it: do not ct_release them. ct_keep hands one reference on to the
 *    enclosing scope, or to the caller when no scope encloses it. Scopes nest,
 *    and ending one ends those still open inside it.
 *
 *    ct_from_blob wraps caller memory without copying (torch.from_numpy); an
 *    optional deleter is called when the last view goes.
 *
 * 3. ERRORS
 *
 *    Bad input never aborts the program and never leaves state half changed.
 *    A function that makes a tensor returns NULL on failure; one that acts
 *    returns a ct_result (CT_OK is 0, errors are negative and name the Python
 *    exception PyTorch raises: CT_ERR_RUNTIME, CT_ERR_INDEX, ...). The message,
 *    worded as PyTorch's, is ct_last_error(); ct_clear_error() forgets it.
 *    A function given a NULL tensor returns NULL and keeps the error already
 *    pending, so a chain of calls is checked once at its end:
 *
 *        ct_tensor *r = ct_view(ct_transpose(x, 0, 1), CT_SHAPE(-1));
 *        if (!r) fprintf(stderr, "%s\n", ct_last_error());
 *        // view size is not compatible with input tensor's size and stride ...
 *
 *    ct_set_error_handler installs a callback for every new error (to log, or
 *    to abort in a debug build).
 *
 * 4. THREADS
 *
 *    Tensors may be passed between threads; refcounts are atomic. Writing a
 *    tensor on one thread while another reads or writes it is a data race, as
 *    in PyTorch. Errors and scopes are per thread. The default generator is
 *    shared (as torch.default_generator is): give each thread its own
 *    ct_generator when several draw random numbers at once. Built with
 *    -fopenmp, large elementwise kernels run on OpenMP threads.
 *
 * 5. BUILD OPTIONS
 *
 *    CTORCH_IMPLEMENTATION   compile the implementation in this file
 *    CTORCH_STATIC           make every function static (one file uses ctorch)
 *    CT_MALLOC, CT_REALLOC, CT_FREE   the allocator (define all three or none)
 *    CT_ASSERT               internal invariant checks (default: assert)
 *    -fopenmp                parallel kernels
 *
 *    ctorch is C11 and compiles as C++17; it needs the C math library (-lm).
 */

#ifndef CTORCH_H
#define CTORCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* ==================== base/base.h ==================== */
// >>base/base.h
/* Public base types: linkage, errors, dtypes, scalars, devices, shapes. */
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
    CT_ERR_IO = -7               /* a file could not be read or written */
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

/* ---------------------------------------------------------------- devices */

typedef enum ct_device_type { CT_DEVICE_CPU = 0, CT_DEVICE_CUDA = 1 } ct_device_type;
#define CT_NUM_DEVICE_TYPES 2

typedef struct ct_device {
    ct_device_type type;
    int index;
} ct_device;

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

/* ==================== tensor/tensor.h ==================== */
// >>tensor/tensor.h
/* Public tensor API: objects and memory, properties, creation, views, copies,
 * indexing, random numbers and printing. */

/* A tensor: a strided view of a refcounted storage (torch.Tensor). Opaque;
 * every function that returns one returns a new reference. */
typedef struct ct_tensor ct_tensor;

/* A random number generator (torch.Generator): Mersenne Twister, as PyTorch's CPU one. */
typedef struct ct_generator ct_generator;

/* ---------------------------------------------------------------- memory */

/* Take one more reference; returns t. */
CTORCH_API ct_tensor *ct_retain(ct_tensor *t);
/* Drop one reference; the tensor (and its storage, when no other view holds it)
 * is freed with the last one. NULL is ignored. Never release a tensor that a
 * scope owns (see ct_scope_begin). */
CTORCH_API void ct_release(ct_tensor *t);

/* A scope: while one is open on a thread, every tensor a ctorch function returns
 * on that thread belongs to the scope and is released by ct_scope_end, unless
 * ct_keep hands it on. Scopes nest. */
typedef struct ct_scope {
    int depth;
} ct_scope;
CTORCH_API ct_scope ct_scope_begin(void);
/* Close the scope s (and any still open inside it), releasing what they own. */
CTORCH_API void ct_scope_end(ct_scope s);
/* Hand one reference to t on from the innermost open scope: to the enclosing
 * scope, or to the caller (who then releases it) when there is none. Returns t. */
CTORCH_API ct_tensor *ct_keep(ct_tensor *t);

/* ---------------------------------------------------------------- properties */

CTORCH_API int ct_dim(const ct_tensor *t);                       /* Tensor.dim() */
CTORCH_API int64_t ct_size(const ct_tensor *t, int dim);         /* Tensor.size(dim), dim may be negative */
CTORCH_API int64_t ct_stride(const ct_tensor *t, int dim);       /* Tensor.stride(dim) */
CTORCH_API ct_shape ct_shape_of(const ct_tensor *t);             /* Tensor.shape */
CTORCH_API ct_shape ct_strides_of(const ct_tensor *t);           /* Tensor.stride() */
CTORCH_API int64_t ct_numel(const ct_tensor *t);                 /* Tensor.numel() */
CTORCH_API ct_dtype ct_dtype_of(const ct_tensor *t);             /* Tensor.dtype */
CTORCH_API ct_device ct_device_of(const ct_tensor *t);           /* Tensor.device */
CTORCH_API size_t ct_element_size(const ct_tensor *t);           /* Tensor.element_size() */
CTORCH_API bool ct_is_contiguous(const ct_tensor *t);            /* Tensor.is_contiguous() */
CTORCH_API bool ct_is_floating_point(const ct_tensor *t);        /* Tensor.is_floating_point() */
CTORCH_API int64_t ct_storage_offset(const ct_tensor *t);        /* Tensor.storage_offset() */
/* Tensor.data_ptr(): the address of the first element (NULL for an empty tensor). */
CTORCH_API void *ct_data_ptr(const ct_tensor *t);
/* Tensor.storage().data_ptr(): equal for every view of one storage. */
CTORCH_API void *ct_storage_data_ptr(const ct_tensor *t);
/* Tensor.requires_grad / requires_grad_(). Only floating tensors may require grad. */
CTORCH_API bool ct_requires_grad(const ct_tensor *t);
CTORCH_API ct_result ct_requires_grad_(ct_tensor *t, bool requires_grad);

/* Tensor.item(): the single element as a double or as an int64 (error: NaN or 0). */
CTORCH_API double ct_item(const ct_tensor *t);
CTORCH_API int64_t ct_item_int(const ct_tensor *t);
/* Copy the elements out in row-major order, converted to `dtype`, into `out`
 * (room for `capacity` elements): what Tensor.tolist() or .numpy() give Python. */
CTORCH_API ct_result ct_copy_to_array(const ct_tensor *t, void *out, int64_t capacity, ct_dtype dtype);

/* ---------------------------------------------------------------- creation */

/* torch.empty / zeros / ones / full. dtype CT_DEFAULT is the default dtype, except
 * for full, which takes its dtype from the value as PyTorch does (int -> int64,
 * bool -> bool, float -> default). */
CTORCH_API ct_tensor *ct_empty(ct_shape shape, ct_dtype dtype);
CTORCH_API ct_tensor *ct_zeros(ct_shape shape, ct_dtype dtype);
CTORCH_API ct_tensor *ct_ones(ct_shape shape, ct_dtype dtype);
CTORCH_API ct_tensor *ct_full(ct_shape shape, ct_scalar value, ct_dtype dtype);
/* torch.empty_like / zeros_like / ones_like / full_like: dtype CT_DEFAULT keeps t's. */
CTORCH_API ct_tensor *ct_empty_like(const ct_tensor *t, ct_dtype dtype);
CTORCH_API ct_tensor *ct_zeros_like(const ct_tensor *t, ct_dtype dtype);
CTORCH_API ct_tensor *ct_ones_like(const ct_tensor *t, ct_dtype dtype);
CTORCH_API ct_tensor *ct_full_like(const ct_tensor *t, ct_scalar value, ct_dtype dtype);

/* torch.tensor(data, dtype): a new tensor holding a copy of the row-major C array
 * `data` of the given dtype (which may not be CT_DEFAULT). */
CTORCH_API ct_tensor *ct_from_array(const void *data, ct_shape shape, ct_dtype dtype);
/* torch.from_numpy / torch::from_blob: a tensor over caller memory, no copy.
 * strides NULL means contiguous. When the last reference goes, deleter(data, ctx)
 * is called if given; otherwise the memory stays the caller's and must outlive
 * every view. */
CTORCH_API ct_tensor *ct_from_blob(void *data, ct_shape shape, const int64_t *strides, ct_dtype dtype,
                                   void (*deleter)(void *data, void *ctx), void *ctx);
/* torch.tensor(3.5): a 0-d tensor of the scalar's own dtype (int -> int64,
 * float -> default dtype, bool -> bool), or of `dtype` when given. */
CTORCH_API ct_tensor *ct_scalar_tensor(ct_scalar value, ct_dtype dtype);

/* torch.arange(start, end, step): int64 when all three are ints, else the
 * default dtype, unless dtype says otherwise. */
CTORCH_API ct_tensor *ct_arange(ct_scalar start, ct_scalar end, ct_scalar step, ct_dtype dtype);
/* torch.linspace / torch.logspace(start, end, steps, base). */
CTORCH_API ct_tensor *ct_linspace(double start, double end, int64_t steps, ct_dtype dtype);
CTORCH_API ct_tensor *ct_logspace(double start, double end, int64_t steps, double base, ct_dtype dtype);
/* torch.eye(n, m). */
CTORCH_API ct_tensor *ct_eye(int64_t n, int64_t m, ct_dtype dtype);
/* torch.diag: a 1-D input becomes a diagonal matrix, a 2-D input gives its diagonal. */
CTORCH_API ct_tensor *ct_diag(const ct_tensor *t, int64_t diagonal);
/* torch.tril / torch.triu: copies with the other triangle zeroed. */
CTORCH_API ct_tensor *ct_tril(const ct_tensor *t, int64_t diagonal);
CTORCH_API ct_tensor *ct_triu(const ct_tensor *t, int64_t diagonal);

/* Tensor.fill_ / zero_ / copy_ (src broadcast to t, converted across dtypes). */
CTORCH_API ct_result ct_fill_(ct_tensor *t, ct_scalar value);
CTORCH_API ct_result ct_zero_(ct_tensor *t);
CTORCH_API ct_result ct_copy_(ct_tensor *t, const ct_tensor *src);

/* ---------------------------------------------------------------- views (never copy) */

/* Tensor.view(shape): one size may be -1. Fails with PyTorch's message when the
 * strides do not allow it (use ct_reshape). */
CTORCH_API ct_tensor *ct_view(const ct_tensor *t, ct_shape shape);
CTORCH_API ct_tensor *ct_view_as(const ct_tensor *t, const ct_tensor *other);
/* torch.as_strided(t, size, stride, storage_offset). */
CTORCH_API ct_tensor *ct_as_strided(const ct_tensor *t, ct_shape size, ct_shape stride, int64_t storage_offset);
CTORCH_API ct_tensor *ct_transpose(const ct_tensor *t, int dim0, int dim1);   /* torch.transpose */
CTORCH_API ct_tensor *ct_t(const ct_tensor *t);                               /* Tensor.t() */
CTORCH_API ct_tensor *ct_permute(const ct_tensor *t, ct_shape dims);          /* torch.permute */
/* torch.movedim(t, source, destination) with lists of dims (CT_DIMS(0), CT_DIMS(2)). */
CTORCH_API ct_tensor *ct_movedim(const ct_tensor *t, ct_shape source, ct_shape destination);
CTORCH_API ct_tensor *ct_squeeze(const ct_tensor *t);                         /* all size-1 dims */
CTORCH_API ct_tensor *ct_squeeze_dim(const ct_tensor *t, int dim);
CTORCH_API ct_tensor *ct_unsqueeze(const ct_tensor *t, int dim);
/* Tensor.expand(sizes): -1 keeps a size; new leading dims may be added. */
CTORCH_API ct_tensor *ct_expand(const ct_tensor *t, ct_shape sizes);
CTORCH_API ct_tensor *ct_expand_as(const ct_tensor *t, const ct_tensor *other);
CTORCH_API ct_tensor *ct_broadcast_to(const ct_tensor *t, ct_shape shape);
CTORCH_API ct_tensor *ct_narrow(const ct_tensor *t, int dim, int64_t start, int64_t length);
CTORCH_API ct_tensor *ct_select(const ct_tensor *t, int dim, int64_t index);
/* t[start:end:step] along dim, with Python's clamping; CT_END as end means "to the end". */
#define CT_END INT64_MAX
CTORCH_API ct_tensor *ct_slice(const ct_tensor *t, int dim, int64_t start, int64_t end, int64_t step);
/* Tensor.unfold(dim, size, step): sliding windows as a new last dim. */
CTORCH_API ct_tensor *ct_unfold(const ct_tensor *t, int dim, int64_t size, int64_t step);
/* torch.diagonal(t, offset, dim1, dim2). */
CTORCH_API ct_tensor *ct_diagonal(const ct_tensor *t, int64_t offset, int dim1, int dim2);
/* Tensor.detach(): shares storage, takes no part in autograd. */
CTORCH_API ct_tensor *ct_detach(const ct_tensor *t);
/* torch.flatten(t, start_dim, end_dim) and Tensor.unflatten(dim, sizes): views
 * when the strides allow, copies otherwise (as reshape). */
CTORCH_API ct_tensor *ct_flatten(const ct_tensor *t, int start_dim, int end_dim);
CTORCH_API ct_tensor *ct_unflatten(const ct_tensor *t, int dim, ct_shape sizes);

/* ---------------------------------------------------------------- copies when needed */

/* torch.reshape: a view when the strides allow one, else a contiguous copy. */
CTORCH_API ct_tensor *ct_reshape(const ct_tensor *t, ct_shape shape);
CTORCH_API ct_tensor *ct_reshape_as(const ct_tensor *t, const ct_tensor *other);
/* Tensor.contiguous(): t itself (a new reference) when already contiguous. */
CTORCH_API ct_tensor *ct_contiguous(const ct_tensor *t);
/* torch.clone: a new tensor with t's values, strides preserved when dense. */
CTORCH_API ct_tensor *ct_clone(const ct_tensor *t);
/* Tensor.to(dtype): t itself when the dtype is already that. */
CTORCH_API ct_tensor *ct_to(const ct_tensor *t, ct_dtype dtype);

/* ---------------------------------------------------------------- indexing */

/* t[spec] in Python's notation: ints, slices (start:stop:step, any part
 * omitted), "...", "None", "True"/"False", and lists of ints ("[0, 2]"), with
 * "%t" taking a ct_tensor* (int64 indices or a bool mask) and "%d" an int from
 * the arguments. Basic indexing returns a view, as in PyTorch; list, tensor and
 * mask indices gather a copy. Example: ct_index(t, "1:4, :4:2"). */
CTORCH_API ct_tensor *ct_index(const ct_tensor *t, const char *spec, ...);
/* t[spec] = value (value broadcast to the indexed shape and converted). */
CTORCH_API ct_result ct_index_put_(ct_tensor *t, const ct_tensor *value, const char *spec, ...);

/* ---------------------------------------------------------------- random numbers */

/* torch.manual_seed: seeds the default generator. */
CTORCH_API void ct_manual_seed(uint64_t seed);
/* torch.initial_seed / torch.seed (a fresh seed from the clock, returned). */
CTORCH_API uint64_t ct_initial_seed(void);
CTORCH_API uint64_t ct_seed(void);
/* The default generator (torch.default_generator); do not free it. */
CTORCH_API ct_generator *ct_default_generator(void);
/* torch.Generator(): a new generator, seeded with 67280421310721 as PyTorch's. */
CTORCH_API ct_generator *ct_generator_new(void);
CTORCH_API void ct_generator_free(ct_generator *g);
CTORCH_API void ct_generator_manual_seed(ct_generator *g, uint64_t seed);
CTORCH_API uint64_t ct_generator_initial_seed(const ct_generator *g);
/* Generator.get_state / set_state: the whole state as bytes (ct_generator_state_size of them). */
CTORCH_API size_t ct_generator_state_size(void);
CTORCH_API void ct_generator_get_state(const ct_generator *g, void *state);
CTORCH_API ct_result ct_generator_set_state(ct_generator *g, const void *state);

/* The rest take a generator, or NULL for the default one. Same seed, same
 * numbers as PyTorch 1.13 on the CPU. */
CTORCH_API ct_tensor *ct_rand(ct_shape shape, ct_dtype dtype, ct_generator *g);             /* torch.rand */
CTORCH_API ct_tensor *ct_randn(ct_shape shape, ct_dtype dtype, ct_generator *g);            /* torch.randn */
/* torch.randint(low, high, shape): int64 unless dtype says otherwise. */
CTORCH_API ct_tensor *ct_randint(int64_t low, int64_t high, ct_shape shape, ct_dtype dtype, ct_generator *g);
CTORCH_API ct_tensor *ct_randperm(int64_t n, ct_dtype dtype, ct_generator *g);              /* torch.randperm */
/* torch.normal(mean, std) with tensors (broadcast), and torch.normal(mean, std, size). */
CTORCH_API ct_tensor *ct_normal(const ct_tensor *mean, const ct_tensor *std, ct_generator *g);
CTORCH_API ct_tensor *ct_normal_scalar(double mean, double std, ct_shape shape, ct_dtype dtype, ct_generator *g);
CTORCH_API ct_result ct_uniform_(ct_tensor *t, double from, double to, ct_generator *g);   /* Tensor.uniform_ */
CTORCH_API ct_result ct_normal_(ct_tensor *t, double mean, double std, ct_generator *g);   /* Tensor.normal_ */
/* Tensor.random_(from, to): integers in [from, to). */
CTORCH_API ct_result ct_random_(ct_tensor *t, int64_t from, int64_t to, ct_generator *g);
CTORCH_API ct_result ct_exponential_(ct_tensor *t, double lambd, ct_generator *g);         /* Tensor.exponential_ */
/* torch.bernoulli(p) with a tensor of probabilities, and Tensor.bernoulli_(p). */
CTORCH_API ct_tensor *ct_bernoulli(const ct_tensor *p, ct_generator *g);
CTORCH_API ct_result ct_bernoulli_(ct_tensor *t, double p, ct_generator *g);
/* torch.multinomial(probs, num_samples, replacement): int64 indices. */
CTORCH_API ct_tensor *ct_multinomial(const ct_tensor *probs, int64_t num_samples, bool replacement,
                                     ct_generator *g);

/* ---------------------------------------------------------------- printing */

/* torch.set_printoptions. Zero fields keep PyTorch's defaults (precision 4,
 * threshold 1000, edgeitems 3, linewidth 80); sci_mode: 0 auto, 1 on, -1 off. */
typedef struct ct_print_opts {
    int precision;
    int64_t threshold;
    int edgeitems;
    int linewidth;
    int sci_mode;
} ct_print_opts;
CTORCH_API void ct_set_printoptions(ct_print_opts opts);
/* repr(t) into buf (snprintf's contract: returns the length it needs, writes at
 * most n bytes including the terminating NUL). */
CTORCH_API int ct_to_string(const ct_tensor *t, char *buf, size_t n);
/* print(t): repr(t) and a newline on stdout. */
CTORCH_API void ct_print(const ct_tensor *t);
/* print(t.shape): "torch.Size([2, 3])" and a newline. */
CTORCH_API void ct_print_shape(const ct_tensor *t);

#ifdef __cplusplus
}
#endif

/* ==================== base/cplusplus.h ==================== */
// >>base/cplusplus.h
/* C++ only: CT_SHAPE(...) without C's compound literals. */
#ifdef __cplusplus
#include <initializer_list>
inline ct_shape ct_shape_of(std::initializer_list<int64_t> sizes)
{
    ct_shape s{};
    for (int64_t v : sizes) {
        if (s.ndim == CT_MAX_DIMS) { s.ndim = CT_MAX_DIMS + 1; break; } /* rejected by the callee */
        s.size[s.ndim++] = v;
    }
    return s;
}
#endif

#endif /* CTORCH_H */

#if defined(CTORCH_IMPLEMENTATION) && !defined(CTORCH_IMPLEMENTATION_DONE)
#define CTORCH_IMPLEMENTATION_DONE

/* ==================== base/internal.h ==================== */
// >>base/internal.h
/* Private to the implementation: system headers, allocator hooks, threads,
 * atomics, error helpers and the per-dtype element conversions. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------------------------------------------------------- allocator hooks */

#if defined(CT_MALLOC) && defined(CT_REALLOC) && defined(CT_FREE)
#elif !defined(CT_MALLOC) && !defined(CT_REALLOC) && !defined(CT_FREE)
#define CT_MALLOC(n) malloc(n)
#define CT_REALLOC(p, n) realloc(p, n)
#define CT_FREE(p) free(p)
#else
#error "define all of CT_MALLOC, CT_REALLOC and CT_FREE, or none"
#endif

/* Internal invariants: a failure is a bug in ctorch, not bad input. */
#ifndef CT_ASSERT
#include <assert.h>
#define CT_ASSERT(c) assert(c)
#endif

#ifdef __cplusplus
#define CT__TLS thread_local
#define CT__RESTRICT __restrict
#else
#define CT__TLS _Thread_local
#define CT__RESTRICT restrict
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CT__LIKELY(x) __builtin_expect(!!(x), 1)
#define CT__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CT__PRINTF(f, a) __attribute__((format(printf, f, a)))
#define CT__ATOMIC_INC(p) __atomic_add_fetch(p, 1, __ATOMIC_RELAXED)
#define CT__ATOMIC_DEC(p) __atomic_sub_fetch(p, 1, __ATOMIC_ACQ_REL)
#define CT__ATOMIC_LOAD(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#else
#define CT__LIKELY(x) (x)
#define CT__UNLIKELY(x) (x)
#define CT__PRINTF(f, a)
#include <intrin.h>
#define CT__ATOMIC_INC(p) _InterlockedIncrement((volatile long *)(p))
#define CT__ATOMIC_DEC(p) _InterlockedDecrement((volatile long *)(p))
#define CT__ATOMIC_LOAD(p) _InterlockedOr((volatile long *)(p), 0)
#endif

#define CT__MIN(a, b) ((a) < (b) ? (a) : (b))
#define CT__MAX(a, b) ((a) > (b) ? (a) : (b))
#define CT__CAT_(a, b) a##b
#define CT__CAT(a, b) CT__CAT_(a, b)

/* Elementwise loops shorter than this run on one thread (PyTorch's GRAIN_SIZE). */
#define CT__GRAIN 32768

/* ---------------------------------------------------------------- errors */

/* Record an error (worded like PyTorch's) and tell the handler. Returns the code
 * so that `return ct__fail(...)` works in functions returning ct_result. */
static ct_result ct__fail(ct_result code, const char *fmt, ...) CT__PRINTF(2, 3);
/* A NULL tensor argument: keep a pending error (a failed call earlier in the
 * chain), or report the NULL in PyTorch's words. `fn` is the C function name. */
static ct_result ct__null_arg(const char *fn, const char *arg, int position);
#define CT__ARG(t, name, pos) \
    do { if (CT__UNLIKELY(!(t))) { ct__null_arg(__func__, name, pos); return NULL; } } while (0)
#define CT__ARG_R(t, name, pos) \
    do { if (CT__UNLIKELY(!(t))) return ct__null_arg(__func__, name, pos); } while (0)
#define CT__OOM() ct__fail(CT_ERR_MEMORY, "DefaultCPUAllocator: not enough memory")

/* a*b into *out, false on int64 overflow (sizes are checked before allocating). */
static inline bool ct__mul_ok(int64_t a, int64_t b, int64_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return !__builtin_mul_overflow(a, b, out);
#else
    if (a != 0 && (b > INT64_MAX / a || b < INT64_MIN / a)) return false;
    *out = a * b;
    return true;
#endif
}

/* a+b into *out, false on int64 overflow. */
static inline bool ct__add_ok(int64_t a, int64_t b, int64_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return !__builtin_add_overflow(a, b, out);
#else
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return false;
    *out = a + b;
    return true;
#endif
}

/* ---------------------------------------------------------------- element types */

/* Storage types: bool is one byte holding 0 or 1; half and bfloat16 are bits. */
typedef uint8_t ct__b8_t;
typedef uint8_t ct__u8_t;
typedef int8_t ct__i8_t;
typedef int16_t ct__i16_t;
typedef int32_t ct__i32_t;
typedef int64_t ct__i64_t;
typedef uint16_t ct__f16_t;
typedef uint16_t ct__bf16_t;
typedef float ct__f32_t;
typedef double ct__f64_t;

/* X(name, ct_dtype): every dtype, twice so that two lists can nest (the cast
 * table is one list expanded inside the other). */
#define CT__DTYPES_A(X, a) \
    X(b8, CT_BOOL, a) X(u8, CT_U8, a) X(i8, CT_I8, a) X(i16, CT_I16, a) X(i32, CT_I32, a) \
    X(i64, CT_I64, a) X(f16, CT_F16, a) X(bf16, CT_BF16, a) X(f32, CT_F32, a) X(f64, CT_F64, a)
#define CT__DTYPES_B(X, a) \
    X(b8, CT_BOOL, a) X(u8, CT_U8, a) X(i8, CT_I8, a) X(i16, CT_I16, a) X(i32, CT_I32, a) \
    X(i64, CT_I64, a) X(f16, CT_F16, a) X(bf16, CT_BF16, a) X(f32, CT_F32, a) X(f64, CT_F64, a)

/* IEEE half <-> float, rounding to nearest even as c10::Half does. */
static inline float ct__f16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: renormalise */
            int e = -1;
            do { man <<= 1; e++; } while (!(man & 0x400));
            bits = sign | (uint32_t)(112 - e) << 23 | (man & 0x3ff) << 13;
        }
    } else {
        bits = sign | (exp + 112) << 23 | man << 13;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint16_t ct__float_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* rounds past 65504: inf */
    if (ax < 0x38800000u) {                                 /* below the smallest normal */
        if (ax < 0x33000000u) return sign;                  /* under half the smallest subnormal */
        uint32_t man = (ax & 0x7fffff) | 0x800000;
        int shift = 126 - (int)(ax >> 23);
        uint32_t r = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = ((ax - 0x38000000u) >> 13), rem = ax & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++;
    return (uint16_t)(sign | r);
}

static inline float ct__bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint16_t ct__float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if (f != f) return 0x7fc0;
    x += 0x7fffu + ((x >> 16) & 1); /* round to nearest even */
    return (uint16_t)(x >> 16);
}

/* Loading an element widens it to int64 (integral and bool) or double
 * (floating), both exact. ct__wide_<name> names which. */
#define ct__wide_b8 i64
#define ct__wide_u8 i64
#define ct__wide_i8 i64
#define ct__wide_i16 i64
#define ct__wide_i32 i64
#define ct__wide_i64 i64
#define ct__wide_f16 f64
#define ct__wide_bf16 f64
#define ct__wide_f32 f64
#define ct__wide_f64 f64
static inline int64_t ct__load_b8(ct__b8_t v) { return v != 0; }
static inline int64_t ct__load_u8(ct__u8_t v) { return v; }
static inline int64_t ct__load_i8(ct__i8_t v) { return v; }
static inline int64_t ct__load_i16(ct__i16_t v) { return v; }
static inline int64_t ct__load_i32(ct__i32_t v) { return v; }
static inline int64_t ct__load_i64(ct__i64_t v) { return v; }
static inline double ct__load_f16(ct__f16_t v) { return ct__f16_to_float(v); }
static inline double ct__load_bf16(ct__bf16_t v) { return ct__bf16_to_float(v); }
static inline double ct__load_f32(ct__f32_t v) { return v; }
static inline double ct__load_f64(ct__f64_t v) { return v; }

/* Truncation of a double the way x86's cvttsd2si does it, which is what
 * PyTorch's static_cast compiles to: NaN and out-of-range give the minimum. */
static inline int64_t ct__trunc_i64(double d)
{
    return (d >= -9223372036854775808.0 && d < 9223372036854775808.0) ? (int64_t)d : INT64_MIN;
}
static inline int32_t ct__trunc_i32(double d)
{
    return (d > -2147483649.0 && d < 2147483648.0) ? (int32_t)d : INT32_MIN;
}

/* Storing converts with c10::convert's rules: integers wrap to the low bits,
 * floats truncate through a 32-bit conversion (int8, int16, int32) or a 64-bit
 * one (uint8, int64), float16 and bfloat16 go through float. */
static inline ct__b8_t ct__to_b8_from_i64(int64_t v) { return v != 0; }
static inline ct__b8_t ct__to_b8_from_f64(double v) { return v != 0; }
static inline ct__u8_t ct__to_u8_from_i64(int64_t v) { return (ct__u8_t)(uint64_t)v; }
static inline ct__u8_t ct__to_u8_from_f64(double v) { return (ct__u8_t)(uint64_t)ct__trunc_i64(v); }
static inline ct__i8_t ct__to_i8_from_i64(int64_t v) { return (ct__i8_t)(uint8_t)(uint64_t)v; }
static inline ct__i8_t ct__to_i8_from_f64(double v) { return (ct__i8_t)(uint8_t)(uint32_t)ct__trunc_i32(v); }
static inline ct__i16_t ct__to_i16_from_i64(int64_t v) { return (ct__i16_t)(uint16_t)(uint64_t)v; }
static inline ct__i16_t ct__to_i16_from_f64(double v) { return (ct__i16_t)(uint16_t)(uint32_t)ct__trunc_i32(v); }
static inline ct__i32_t ct__to_i32_from_i64(int64_t v) { return (ct__i32_t)(uint32_t)(uint64_t)v; }
static inline ct__i32_t ct__to_i32_from_f64(double v) { return ct__trunc_i32(v); }
static inline ct__i64_t ct__to_i64_from_i64(int64_t v) { return v; }
static inline ct__i64_t ct__to_i64_from_f64(double v) { return ct__trunc_i64(v); }
static inline ct__f16_t ct__to_f16_from_i64(int64_t v) { return ct__float_to_f16((float)v); }
static inline ct__f16_t ct__to_f16_from_f64(double v) { return ct__float_to_f16((float)v); }
static inline ct__bf16_t ct__to_bf16_from_i64(int64_t v) { return ct__float_to_bf16((float)v); }
static inline ct__bf16_t ct__to_bf16_from_f64(double v) { return ct__float_to_bf16((float)v); }
static inline ct__f32_t ct__to_f32_from_i64(int64_t v) { return (float)v; }
static inline ct__f32_t ct__to_f32_from_f64(double v) { return (float)v; }
static inline ct__f64_t ct__to_f64_from_i64(int64_t v) { return (double)v; }
static inline ct__f64_t ct__to_f64_from_f64(double v) { return v; }

/* CT__CONVERT(src, dst, x): one element of dtype `src` as dtype `dst`. */
#define CT__CONVERT(src, dst, x) CT__CAT(ct__to_##dst##_from_, ct__wide_##src)(ct__load_##src(x))

/* Read element i of a buffer of any dtype as a double / int64 (slow paths only). */
static double ct__read_f64(const void *p, ct_dtype dt);
static int64_t ct__read_i64(const void *p, ct_dtype dt);
/* Write a double to an element of any dtype with c10::convert's rules. */
static void ct__write_f64(void *p, ct_dtype dt, double v);
static void ct__write_i64(void *p, ct_dtype dt, int64_t v);

/* ==================== tensor/internal.h ==================== */
// >>tensor/internal.h
/* Private: storage and tensor structs, the device backend table, helpers that
 * every op uses (dims, shapes, making tensors and views). */

typedef struct ct__storage {
    int refcount;
    void *data;
    size_t nbytes;
    ct_device device;
    void (*deleter)(void *data, void *ctx); /* caller memory with a deleter */
    void *deleter_ctx;
    bool owned; /* allocated by the device backend, freed by it */
} ct__storage;

struct ct_tensor {
    int refcount;
    int ndim;
    ct_dtype dtype;
    int64_t offset; /* in elements */
    int64_t sizes[CT_MAX_DIMS];
    int64_t strides[CT_MAX_DIMS]; /* in elements */
    ct__storage *storage;
    bool requires_grad;
};

/* What a device provides. The CPU backend is built in; ctorch_cuda.cu adds CUDA's. */
typedef struct ct__backend {
    void *(*alloc)(size_t nbytes, int device_index);
    void (*free)(void *ptr, int device_index);
    /* dst = src: src already broadcast to dst's shape (zero strides), any dtypes. */
    void (*copy)(ct_tensor *dst, const ct_tensor *src);
    /* Every element of dst set to the bytes at elem (one element of dst's dtype). */
    void (*fill)(ct_tensor *dst, const void *elem);
} ct__backend;

/* The backend of a device type (NULL when it is not linked in). */
static const ct__backend *ct__backend_for(ct_device_type type);

static const ct_device ct__cpu = {CT_DEVICE_CPU, 0};

/* Element size of a tensor and a pointer to its first element. */
static inline size_t ct__esize(const ct_tensor *t) { return ct_dtype_size(t->dtype); }
static inline char *ct__data(const ct_tensor *t)
{
    return (char *)t->storage->data + (size_t)t->offset * ct__esize(t);
}

/* dim in [-ndim, ndim) to [0, ndim), or -1 with PyTorch's IndexError set.
 * A 0-d tensor accepts dims -1 and 0, as PyTorch's wrap_dim does. */
static int ct__wrap_dim(int64_t dim, int ndim);
/* The same for Tensor.size(dim) and stride(dim), which refuse 0-d tensors. */
static int ct__wrap_dim_strict(int64_t dim, int ndim);

/* A new, uninitialised, contiguous tensor (registered in the open scope). */
static ct_tensor *ct__alloc(const int64_t *sizes, int ndim, ct_dtype dtype, ct_device device);
/* The same with given strides (NULL: contiguous) that must describe a dense
 * layout starting at offset 0, as a permutation of contiguous ones does. */
static ct_tensor *ct__alloc_strided(const int64_t *sizes, const int64_t *strides, int ndim, ct_dtype dtype,
                                    ct_device device);
/* A new view of t's storage with other sizes, strides and offset. */
static ct_tensor *ct__view_of(const ct_tensor *t, const int64_t *sizes, const int64_t *strides, int ndim,
                              int64_t offset);
/* Contiguous strides for sizes (a size-0 or size-1 dim gets the stride it would
 * have with size 1, as PyTorch computes them). */
static void ct__contiguous_strides(const int64_t *sizes, int ndim, int64_t *strides);
/* The product of sizes, false on overflow. */
static bool ct__numel_of(const int64_t *sizes, int ndim, int64_t *numel);
/* A shape argument checked: ndim in range, every size >= 0. */
static ct_result ct__check_shape(ct_shape s, const char *what);
/* "[2, 3]" into buf. */
static const char *ct__shape_str(const int64_t *sizes, int ndim, char *buf, size_t n);

/* Broadcast two shapes (torch.broadcast_shapes); error in PyTorch's words. */
static ct_result ct__broadcast_shapes(const int64_t *a, int na, const int64_t *b, int nb, int64_t *out,
                                      int *nout);

/* A new reference to t itself, registered in the open scope (for functions
 * that return their input, as contiguous() of a contiguous tensor does). */
static ct_tensor *ct__same(const ct_tensor *t);
/* Register a new tensor in the innermost open scope. */
static ct_tensor *ct__own(ct_tensor *t);
/* Drop a tensor this call made and will not return (after a later failure):
 * released now, or by the open scope that owns it. */
static void ct__discard(ct_tensor *t);

/* ==================== cpu/iter.h ==================== */
// >>cpu/iter.h
/* Private: the strided iterator that every CPU elementwise kernel runs through.
 *
 * Operands share one iteration shape; an input with fewer dims or size-1 dims
 * is broadcast by zero strides. Dims are reordered so that the innermost one
 * has the smallest output stride, then adjacent dims that are one block of
 * memory for every operand are merged, so a contiguous tensor of any shape is
 * one loop of numel elements. A kernel is a loop over n elements of the
 * innermost dim with per-operand byte strides; it takes the fast path when
 * they equal the element sizes. */

#define CT__ITER_MAX_OPS 6

typedef struct ct__iter {
    int nops, ndim;
    int64_t numel;
    int64_t shape[CT_MAX_DIMS];                   /* [0] is the innermost dim */
    int64_t strides[CT_MAX_DIMS][CT__ITER_MAX_OPS]; /* bytes, per dim, per operand */
    char *data[CT__ITER_MAX_OPS];
} ct__iter;

/* data[i] points at operand i's element; strides[i] its byte stride; n elements. */
typedef void (*ct__loop_fn)(char **data, const int64_t *strides, int64_t n, void *ctx);

/* Operand 0 is the output (it defines the shape); the others are broadcast to it. */
static void ct__iter_init(ct__iter *it, int nops, const ct_tensor *const *ops);
/* Run fn over elements [begin, end) of the iteration order. */
static void ct__iter_range(const ct__iter *it, int64_t begin, int64_t end, ct__loop_fn fn, void *ctx);
/* Run fn over everything, on one thread. */
static void ct__iter_serial(const ct__iter *it, ct__loop_fn fn, void *ctx);
/* Run fn over everything, split across OpenMP threads when large enough. */
static void ct__iter_parallel(const ct__iter *it, ct__loop_fn fn, void *ctx);

/* Split [0, n) into chunks of at least `grain` and run fn on each, in parallel
 * with OpenMP when built with it (at::parallel_for). */
typedef void (*ct__range_fn)(int64_t begin, int64_t end, void *ctx);
static void ct__parallel_for(int64_t n, int64_t grain, ct__range_fn fn, void *ctx);

/* The range factories' kernels (range.c): fill a new 1-D contiguous tensor. */
static void ct__cpu_arange(ct_tensor *t, ct_scalar start, ct_scalar step);
static void ct__cpu_linspace(ct_tensor *t, double start, double end);
static void ct__cpu_logspace(ct_tensor *t, double start, double end, double base);

/* ==================== base/error.c ==================== */
// >>base/error.c
/* Errors: a thread-local message worded like PyTorch's, and an optional handler. */

static CT__TLS char ct__err_msg[1024];
static CT__TLS ct_result ct__err_code = CT_OK;
static ct_error_handler ct__err_handler = NULL;
static void *ct__err_handler_user = NULL;

const char *ct_result_str(ct_result r)
{
    switch (r) {
    case CT_OK: return "OK";
    case CT_ERR_RUNTIME: return "RuntimeError";
    case CT_ERR_VALUE: return "ValueError";
    case CT_ERR_TYPE: return "TypeError";
    case CT_ERR_INDEX: return "IndexError";
    case CT_ERR_NOT_IMPLEMENTED: return "NotImplementedError";
    case CT_ERR_MEMORY: return "MemoryError";
    case CT_ERR_IO: return "IOError";
    }
    return "UnknownError";
}

const char *ct_last_error(void) { return ct__err_code == CT_OK ? "" : ct__err_msg; }
ct_result ct_last_error_code(void) { return ct__err_code; }
void ct_clear_error(void) { ct__err_code = CT_OK; ct__err_msg[0] = 0; }

void ct_set_error_handler(ct_error_handler handler, void *user)
{
    ct__err_handler = handler;
    ct__err_handler_user = user;
}

static ct_result ct__fail(ct_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ct__err_msg, sizeof ct__err_msg, fmt, ap);
    va_end(ap);
    ct__err_code = code;
    if (ct__err_handler) ct__err_handler(code, ct__err_msg, ct__err_handler_user);
    return code;
}

static ct_result ct__null_arg(const char *fn, const char *arg, int position)
{
    if (ct__err_code != CT_OK) return ct__err_code; /* a failure earlier in the chain */
    if (strncmp(fn, "ct_", 3) == 0) fn += 3;
    return ct__fail(CT_ERR_TYPE, "%s(): argument '%s' (position %d) must be Tensor, not NULL", fn, arg,
                    position);
}

/* ==================== base/dtype.c ==================== */
// >>base/dtype.c
/* Dtypes, type promotion, scalars, shapes. */

static ct_dtype ct__default_dtype = CT_F32;

const char *ct_dtype_name(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: return "bool";
    case CT_U8: return "uint8";
    case CT_I8: return "int8";
    case CT_I16: return "int16";
    case CT_I32: return "int32";
    case CT_I64: return "int64";
    case CT_F16: return "float16";
    case CT_BF16: return "bfloat16";
    case CT_F32: return "float32";
    case CT_F64: return "float64";
    case CT_DEFAULT: break;
    }
    return "default";
}

size_t ct_dtype_size(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: case CT_U8: case CT_I8: return 1;
    case CT_I16: case CT_F16: case CT_BF16: return 2;
    case CT_I32: case CT_F32: return 4;
    case CT_I64: case CT_F64: return 8;
    case CT_DEFAULT: break;
    }
    return ct_dtype_size(ct__default_dtype);
}

bool ct_dtype_is_floating(ct_dtype dt)
{
    return dt == CT_F16 || dt == CT_BF16 || dt == CT_F32 || dt == CT_F64;
}

static bool ct__dtype_valid(ct_dtype dt) { return dt >= CT_BOOL && dt <= CT_F64; }
static bool ct__is_integral(ct_dtype dt) { return dt >= CT_U8 && dt <= CT_I64; }

/* The C++ type name c10 prints in conversion errors. */
static const char *ct__dtype_cname(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: return "bool";
    case CT_U8: return "uint8_t";
    case CT_I8: return "int8_t";
    case CT_I16: return "int16_t";
    case CT_I32: return "int";
    case CT_I64: return "int64_t";
    case CT_F16: return "at::Half";
    case CT_BF16: return "at::BFloat16";
    case CT_F32: return "float";
    case CT_F64: case CT_DEFAULT: break;
    }
    return "double";
}

ct_result ct_set_default_dtype(ct_dtype dt)
{
    if (!ct_dtype_is_floating(dt))
        return ct__fail(CT_ERR_TYPE, "only floating-point types are supported as the default type");
    ct__default_dtype = dt;
    return CT_OK;
}

ct_dtype ct_get_default_dtype(void) { return ct__default_dtype; }

/* CT_DEFAULT resolved to the default dtype. */
static ct_dtype ct__resolve(ct_dtype dt) { return dt == CT_DEFAULT ? ct__default_dtype : dt; }

ct_dtype ct_promote_types(ct_dtype a, ct_dtype b)
{
    a = ct__resolve(a);
    b = ct__resolve(b);
    if (a == b) return a;
    if (a == CT_BOOL) return b;
    if (b == CT_BOOL) return a;
    if (ct__is_integral(a) && ct__is_integral(b)) {
        if (a == CT_U8 || b == CT_U8) { /* uint8 with a signed type needs the next signed width */
            ct_dtype other = a == CT_U8 ? b : a;
            return other == CT_I8 ? CT_I16 : other;
        }
        return a > b ? a : b;
    }
    if (ct__is_integral(a)) return b;
    if (ct__is_integral(b)) return a;
    if ((a == CT_F16 && b == CT_BF16) || (a == CT_BF16 && b == CT_F16)) return CT_F32;
    return a > b ? a : b;
}

bool ct_can_cast(ct_dtype from, ct_dtype to)
{
    from = ct__resolve(from);
    to = ct__resolve(to);
    if (ct_dtype_is_floating(from) && !ct_dtype_is_floating(to) && to != CT_BOOL) return false;
    if (from != CT_BOOL && to == CT_BOOL) return false;
    return true;
}

ct_scalar ct_int(int64_t v)
{
    ct_scalar s;
    s.kind = CT_I64;
    s.v.i = v;
    return s;
}

ct_scalar ct_float(double v)
{
    ct_scalar s;
    s.kind = CT_F64;
    s.v.f = v;
    return s;
}

ct_scalar ct_bool(bool v)
{
    ct_scalar s;
    s.kind = CT_BOOL;
    s.v.b = v;
    return s;
}

double ct_scalar_to_double(ct_scalar s)
{
    return s.kind == CT_F64 ? s.v.f : s.kind == CT_BOOL ? (double)s.v.b : (double)s.v.i;
}

ct_shape ct_shape_make(int ndim, const int64_t *size)
{
    ct_shape s;
    memset(&s, 0, sizeof s);
    s.ndim = ndim;
    if (ndim >= 0 && ndim <= CT_MAX_DIMS && size) memcpy(s.size, size, (size_t)ndim * sizeof(int64_t));
    return s;
}

static double ct__read_f64(const void *p, ct_dtype dt)
{
#define CT__READ(name, DT, _) \
    case DT: return (double)ct__load_##name(*(const ct__##name##_t *)p);
    switch (dt) { CT__DTYPES_A(CT__READ, _) default: break; }
#undef CT__READ
    return 0;
}

static int64_t ct__read_i64(const void *p, ct_dtype dt)
{
#define CT__READ(name, DT, _) \
    case DT: return CT__CONVERT(name, i64, *(const ct__##name##_t *)p);
    switch (dt) { CT__DTYPES_A(CT__READ, _) default: break; }
#undef CT__READ
    return 0;
}

static void ct__write_f64(void *p, ct_dtype dt, double v)
{
#define CT__WRITE(name, DT, _) \
    case DT: *(ct__##name##_t *)p = ct__to_##name##_from_f64(v); return;
    switch (dt) { CT__DTYPES_A(CT__WRITE, _) default: break; }
#undef CT__WRITE
}

static void ct__write_i64(void *p, ct_dtype dt, int64_t v)
{
#define CT__WRITE(name, DT, _) \
    case DT: *(ct__##name##_t *)p = ct__to_##name##_from_i64(v); return;
    switch (dt) { CT__DTYPES_A(CT__WRITE, _) default: break; }
#undef CT__WRITE
}

/* Whether c10's checked_convert refuses the scalar for dtype dt: a value
 * outside the dtype's range, or NaN for an integer dtype. Negative ints may
 * wrap into uint8 (-255 and up); infinities and NaN fit every floating dtype;
 * bool takes anything. */
static bool ct__scalar_overflows(ct_scalar s, ct_dtype dt)
{
    if (s.kind == CT_F64) {
        double f = s.v.f, lo, hi;
        switch (dt) {
        case CT_U8: lo = 0, hi = 255; break; /* floats do not wrap, unlike ints below */
        case CT_I8: lo = -128, hi = 127; break;
        case CT_I16: lo = -32768, hi = 32767; break;
        case CT_I32: lo = -2147483648.0, hi = 2147483647.0; break;
        case CT_I64: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break; /* hi rounds to 2^63 */
        case CT_F16: lo = -65504, hi = 65504; break;
        case CT_BF16: lo = -3.3895313892515355e38, hi = 3.3895313892515355e38; break;
        case CT_F32: lo = -FLT_MAX, hi = FLT_MAX; break;
        default: return false;
        }
        if (ct__is_integral(dt)) return f != f || f < lo || f > hi;
        return !isinf(f) && (f < lo || f > hi);
    }
    int64_t i = s.kind == CT_BOOL ? (int64_t)s.v.b : s.v.i;
    switch (dt) {
    case CT_U8: return i > 255 || i < -255; /* negatives wrap (two's complement) */
    case CT_I8: return i < -128 || i > 127;
    case CT_I16: return i < -32768 || i > 32767;
    case CT_I32: return i < INT32_MIN || i > INT32_MAX;
    case CT_F16: return i < -65504 || i > 65504;
    default: return false;
    }
}

/* A scalar as one element of dtype dt, refusing values that overflow it, as
 * c10's checked_convert does (fill_, full, masked_fill). */
static ct_result ct__scalar_to_elem(ct_scalar s, ct_dtype dt, void *out)
{
    dt = ct__resolve(dt);
    if (ct__scalar_overflows(s, dt))
        return ct__fail(CT_ERR_RUNTIME, "value cannot be converted to type %s without overflow", ct__dtype_cname(dt));
    if (s.kind == CT_F64) ct__write_f64(out, dt, s.v.f);
    else ct__write_i64(out, dt, s.kind == CT_BOOL ? (int64_t)s.v.b : s.v.i);
    return CT_OK;
}

/* ==================== tensor/tensor.c ==================== */
// >>tensor/tensor.c
/* Storage and tensor objects, refcounts, scopes, properties. */

/* ---------------------------------------------------------------- storage */

static ct__storage *ct__storage_new(size_t nbytes, ct_device device)
{
    ct__storage *s = (ct__storage *)CT_MALLOC(sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->refcount = 1;
    s->nbytes = nbytes;
    s->device = device;
    s->owned = true;
    if (nbytes) {
        s->data = ct__backend_for(device.type)->alloc(nbytes, device.index);
        if (!s->data) {
            CT_FREE(s);
            return NULL;
        }
    }
    return s;
}

static void ct__storage_release(ct__storage *s)
{
    if (CT__ATOMIC_DEC(&s->refcount) != 0) return;
    if (s->owned && s->data) ct__backend_for(s->device.type)->free(s->data, s->device.index);
    else if (s->deleter) s->deleter(s->data, s->deleter_ctx);
    CT_FREE(s);
}

/* ---------------------------------------------------------------- tensors */

static ct_tensor *ct__tensor_new(ct__storage *storage, ct_dtype dtype, const int64_t *sizes,
                                 const int64_t *strides, int ndim, int64_t offset)
{
    ct_tensor *t = (ct_tensor *)CT_MALLOC(sizeof *t);
    if (!t) {
        CT__OOM();
        return NULL;
    }
    memset(t, 0, sizeof *t);
    t->refcount = 1;
    t->ndim = ndim;
    t->dtype = dtype;
    t->offset = offset;
    if (ndim) {
        memcpy(t->sizes, sizes, (size_t)ndim * sizeof(int64_t));
        memcpy(t->strides, strides, (size_t)ndim * sizeof(int64_t));
    }
    t->storage = storage;
    CT__ATOMIC_INC(&storage->refcount);
    return ct__own(t);
}

static void ct__contiguous_strides(const int64_t *sizes, int ndim, int64_t *strides)
{
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= sizes[d] > 1 ? sizes[d] : 1;
    }
}

static bool ct__numel_of(const int64_t *sizes, int ndim, int64_t *numel)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        if (!ct__mul_ok(n, sizes[d], &n)) return false;
    *numel = n;
    return true;
}

static ct_tensor *ct__alloc_strided(const int64_t *sizes, const int64_t *strides, int ndim, ct_dtype dtype,
                                    ct_device device)
{
    int64_t numel, nbytes, contiguous[CT_MAX_DIMS];
    dtype = ct__resolve(dtype);
    if (!ct__numel_of(sizes, ndim, &numel) || !ct__mul_ok(numel, (int64_t)ct_dtype_size(dtype), &nbytes)) {
        char buf[256];
        ct__fail(CT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s",
                 ct__shape_str(sizes, ndim, buf, sizeof buf));
        return NULL;
    }
    ct__storage *s = ct__storage_new((size_t)nbytes, device);
    if (!s) {
        ct__fail(CT_ERR_MEMORY,
                 "DefaultCPUAllocator: can't allocate memory: you tried to allocate %lld bytes. Error code 12 "
                 "(Cannot allocate memory)",
                 (long long)nbytes);
        return NULL;
    }
    if (!strides) {
        ct__contiguous_strides(sizes, ndim, contiguous);
        strides = contiguous;
    }
    ct_tensor *t = ct__tensor_new(s, dtype, sizes, strides, ndim, 0);
    ct__storage_release(s); /* the tensor holds it now */
    return t;
}

static ct_tensor *ct__alloc(const int64_t *sizes, int ndim, ct_dtype dtype, ct_device device)
{
    return ct__alloc_strided(sizes, NULL, ndim, dtype, device);
}

static ct_tensor *ct__view_of(const ct_tensor *t, const int64_t *sizes, const int64_t *strides, int ndim,
                              int64_t offset)
{
    return ct__tensor_new(t->storage, t->dtype, sizes, strides, ndim, offset);
}

static ct_tensor *ct__same(const ct_tensor *t) { return ct__own(ct_retain((ct_tensor *)t)); }

ct_tensor *ct_retain(ct_tensor *t)
{
    if (t) CT__ATOMIC_INC(&t->refcount);
    return t;
}

void ct_release(ct_tensor *t)
{
    if (!t || CT__ATOMIC_DEC(&t->refcount) != 0) return;
    ct__storage_release(t->storage);
    CT_FREE(t);
}

/* ---------------------------------------------------------------- scopes */

/* Per thread: one stack of owned tensors for all open scopes (each frame owns
 * the entries from its start), and one of tensors kept for the enclosing scope. */
typedef struct ct__ptrvec {
    ct_tensor **items;
    int64_t n, cap;
} ct__ptrvec;

typedef struct ct__frame {
    int64_t owned_start, kept_start;
} ct__frame;

static CT__TLS ct__ptrvec ct__owned;
static CT__TLS ct__ptrvec ct__kept;
static CT__TLS ct__frame *ct__frames;
static CT__TLS int ct__depth, ct__frames_cap;

static bool ct__ptrvec_push(ct__ptrvec *v, ct_tensor *t)
{
    if (v->n == v->cap) {
        int64_t cap = v->cap ? v->cap * 2 : 256;
        ct_tensor **items = (ct_tensor **)CT_REALLOC(v->items, (size_t)cap * sizeof *items);
        if (!items) return false;
        v->items = items;
        v->cap = cap;
    }
    v->items[v->n++] = t;
    return true;
}

static ct_tensor *ct__own(ct_tensor *t)
{
    if (ct__depth > 0 && !ct__ptrvec_push(&ct__owned, t)) {
        ct_release(t);
        CT__OOM();
        return NULL;
    }
    return t;
}

static void ct__discard(ct_tensor *t)
{
    if (!t) return;
    if (ct__depth > 0) {
        if (ct__owned.n == 0 || ct__owned.items[ct__owned.n - 1] != t) return; /* the scope releases it */
        ct__owned.n--;
    }
    ct_release(t);
}

ct_scope ct_scope_begin(void)
{
    ct_scope s;
    if (ct__depth == ct__frames_cap) {
        int cap = ct__frames_cap ? ct__frames_cap * 2 : 16;
        ct__frame *f = (ct__frame *)CT_REALLOC(ct__frames, (size_t)cap * sizeof *f);
        if (!f) { /* cannot track a new scope: tensors go to the enclosing one */
            CT__OOM();
            s.depth = ct__depth;
            return s;
        }
        ct__frames = f;
        ct__frames_cap = cap;
    }
    ct__frames[ct__depth].owned_start = ct__owned.n;
    ct__frames[ct__depth].kept_start = ct__kept.n;
    s.depth = ++ct__depth;
    return s;
}

void ct_scope_end(ct_scope s)
{
    while (s.depth >= 1 && ct__depth >= s.depth) {
        ct__frame f = ct__frames[--ct__depth];
        while (ct__owned.n > f.owned_start) ct_release(ct__owned.items[--ct__owned.n]);
        /* kept tensors move to the enclosing scope (its entries end where ours began) */
        for (int64_t i = f.kept_start; i < ct__kept.n; i++)
            if (ct__depth > 0 && !ct__ptrvec_push(&ct__owned, ct__kept.items[i])) CT__OOM();
        ct__kept.n = f.kept_start;
    }
}

ct_tensor *ct_keep(ct_tensor *t)
{
    if (t && ct__depth > 0) {
        ct_retain(t);
        if (!ct__ptrvec_push(&ct__kept, t)) {
            ct_release(t);
            CT__OOM();
        }
    }
    return t;
}

/* ---------------------------------------------------------------- dims and shapes */

static int ct__wrap_dim(int64_t dim, int ndim)
{
    int64_t n = ndim > 0 ? ndim : 1;
    if (dim < -n || dim >= n) {
        ct__fail(CT_ERR_INDEX, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                 (long long)-n, (long long)(n - 1), (long long)dim);
        return -1;
    }
    return (int)(dim < 0 ? dim + n : dim);
}

static int ct__wrap_dim_strict(int64_t dim, int ndim)
{
    if (ndim == 0) {
        ct__fail(CT_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions", (long long)dim);
        return -1;
    }
    return ct__wrap_dim(dim, ndim);
}

static const char *ct__shape_str(const int64_t *sizes, int ndim, char *buf, size_t n)
{
    size_t len = 0;
    len += (size_t)snprintf(buf, n, "[");
    for (int d = 0; d < ndim && len < n; d++)
        len += (size_t)snprintf(buf + len, n - len, d ? ", %lld" : "%lld", (long long)sizes[d]);
    if (len < n) snprintf(buf + len, n - len, "]");
    return buf;
}

static ct_result ct__check_shape(ct_shape s, const char *what)
{
    if (s.ndim < 0 || s.ndim > CT_MAX_DIMS)
        return ct__fail(CT_ERR_VALUE, "%s: ctorch supports at most %d dimensions, got %d", what, CT_MAX_DIMS,
                        s.ndim);
    for (int d = 0; d < s.ndim; d++)
        if (s.size[d] < 0) {
            char buf[256];
            return ct__fail(CT_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: %s",
                            (long long)s.size[d], ct__shape_str(s.size, s.ndim, buf, sizeof buf));
        }
    return CT_OK;
}

static ct_result ct__broadcast_shapes(const int64_t *a, int na, const int64_t *b, int nb, int64_t *out,
                                      int *nout)
{
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) { /* i counts from the last dim */
        int64_t sa = i < na ? a[na - 1 - i] : 1, sb = i < nb ? b[nb - 1 - i] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return ct__fail(CT_ERR_RUNTIME,
                            "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                            "non-singleton dimension %d",
                            (long long)sa, (long long)sb, n - 1 - i);
        out[n - 1 - i] = sa == 1 ? sb : sa;
    }
    *nout = n;
    return CT_OK;
}

/* ---------------------------------------------------------------- properties */

int ct_dim(const ct_tensor *t) { return t ? t->ndim : 0; }

int64_t ct_size(const ct_tensor *t, int dim)
{
    if (!t) {
        ct__null_arg(__func__, "self", 1);
        return -1;
    }
    int d = ct__wrap_dim_strict(dim, t->ndim);
    return d < 0 ? -1 : t->sizes[d];
}

int64_t ct_stride(const ct_tensor *t, int dim)
{
    if (!t) {
        ct__null_arg(__func__, "self", 1);
        return -1;
    }
    int d = ct__wrap_dim_strict(dim, t->ndim);
    return d < 0 ? -1 : t->strides[d];
}

ct_shape ct_shape_of(const ct_tensor *t)
{
    return t ? ct_shape_make(t->ndim, t->sizes) : ct_shape_make(0, NULL);
}

ct_shape ct_strides_of(const ct_tensor *t)
{
    return t ? ct_shape_make(t->ndim, t->strides) : ct_shape_make(0, NULL);
}

int64_t ct_numel(const ct_tensor *t)
{
    int64_t n = 0;
    if (t) ct__numel_of(t->sizes, t->ndim, &n);
    return n;
}

ct_dtype ct_dtype_of(const ct_tensor *t) { return t ? t->dtype : CT_DEFAULT; }
ct_device ct_device_of(const ct_tensor *t) { return t ? t->storage->device : ct__cpu; }
size_t ct_element_size(const ct_tensor *t) { return t ? ct__esize(t) : 0; }
bool ct_is_floating_point(const ct_tensor *t) { return t && ct_dtype_is_floating(t->dtype); }
int64_t ct_storage_offset(const ct_tensor *t) { return t ? t->offset : 0; }
void *ct_storage_data_ptr(const ct_tensor *t) { return t ? t->storage->data : NULL; }
void *ct_data_ptr(const ct_tensor *t) { return t && t->storage->data ? ct__data(t) : NULL; }

static bool ct__is_contiguous(const ct_tensor *t)
{
    int64_t expected = 1;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] == 0) return true;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->sizes[d] == 1) continue;
        if (t->strides[d] != expected) return false;
        expected *= t->sizes[d];
    }
    return true;
}

bool ct_is_contiguous(const ct_tensor *t) { return t && ct__is_contiguous(t); }

bool ct_requires_grad(const ct_tensor *t) { return t && t->requires_grad; }

ct_result ct_requires_grad_(ct_tensor *t, bool requires_grad)
{
    CT__ARG_R(t, "self", 1);
    if (requires_grad && !ct_dtype_is_floating(t->dtype))
        return ct__fail(CT_ERR_RUNTIME, "only Tensors of floating point dtype can require gradients");
    t->requires_grad = requires_grad;
    return CT_OK;
}

/* ==================== tensor/copy.c ==================== */
// >>tensor/copy.c
/* Copies: copy_, fill_, contiguous, clone, to(dtype), and reading values out. */

/* Whether t's elements tile a block of memory exactly once, in some order
 * (PyTorch's is_non_overlapping_and_dense). */
static bool ct__is_dense(const ct_tensor *t)
{
    int order[CT_MAX_DIMS], n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] >= 2) order[n++] = d;
    for (int i = 1; i < n; i++) /* by stride, ascending */
        for (int j = i; j > 0 && t->strides[order[j]] < t->strides[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    int64_t expected = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[order[i]] != expected) return false;
        expected *= t->sizes[order[i]];
    }
    return true;
}

/* Whether two elements of t share memory, where that is easy to tell (PyTorch's
 * has_internal_overlap: a size>1 dim with stride 0). */
static bool ct__has_internal_overlap(const ct_tensor *t)
{
    if (ct__is_contiguous(t)) return false;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] > 1 && t->strides[d] == 0) return true;
    return false;
}

typedef enum ct__overlap { CT__OVERLAP_NO, CT__OVERLAP_FULL, CT__OVERLAP_PARTIAL, CT__OVERLAP_UNKNOWN } ct__overlap;

/* How the memory of two tensors overlaps (PyTorch's get_overlap_status). */
static ct__overlap ct__overlap_of(const ct_tensor *a, const ct_tensor *b)
{
    if (a == b) return CT__OVERLAP_FULL;
    if (a->storage != b->storage || ct_numel(a) == 0 || ct_numel(b) == 0) return CT__OVERLAP_NO;
    if (!ct__is_dense(a) || !ct__is_dense(b)) return CT__OVERLAP_UNKNOWN;
    /* dense tensors span [first element, first + numel): offsets in bytes */
    int64_t sa = a->offset * (int64_t)ct__esize(a), sb = b->offset * (int64_t)ct__esize(b);
    int64_t ea = sa + ct_numel(a) * (int64_t)ct__esize(a), eb = sb + ct_numel(b) * (int64_t)ct__esize(b);
    if (sa == sb && ea == eb && a->ndim == b->ndim &&
        !memcmp(a->strides, b->strides, (size_t)a->ndim * sizeof(int64_t)))
        return CT__OVERLAP_FULL;
    return sa < eb && sb < ea ? CT__OVERLAP_PARTIAL : CT__OVERLAP_NO;
}

static const char ct__msg_internal_overlap[] =
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
    "Please clone() the tensor before performing the operation.";
static const char ct__msg_partial_overlap[] =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation.";

/* The checks PyTorch makes before writing `out` from `in` (may be NULL). */
static ct_result ct__check_write(const ct_tensor *out, const ct_tensor *in)
{
    if (ct__has_internal_overlap(out)) return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_internal_overlap);
    if (in && ct__overlap_of(out, in) == CT__OVERLAP_PARTIAL)
        return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_partial_overlap);
    return CT_OK;
}

/* Check that src broadcasts to dst's shape exactly (copy_'s rule). */
static ct_result ct__check_broadcast_to(const ct_tensor *dst, const ct_tensor *src)
{
    int64_t shape[CT_MAX_DIMS];
    int n = 0;
    char b1[256], b2[256];
    if (ct__broadcast_shapes(dst->sizes, dst->ndim, src->sizes, src->ndim, shape, &n) != CT_OK)
        return ct_last_error_code();
    if (n != dst->ndim || memcmp(shape, dst->sizes, (size_t)n * sizeof(int64_t)))
        return ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        ct__shape_str(dst->sizes, dst->ndim, b1, sizeof b1), ct__shape_str(shape, n, b2, sizeof b2));
    return CT_OK;
}

/* dst = src after the checks; src in dst's storage is read from a copy first. */
static void ct__copy_unchecked(ct_tensor *dst, const ct_tensor *src)
{
    if (ct_numel(dst) == 0) return;
    if (dst->storage == src->storage && ct__overlap_of(dst, src) != CT__OVERLAP_NO) {
        if (ct__overlap_of(dst, src) == CT__OVERLAP_FULL) return;
        ct_scope s = ct_scope_begin();
        ct_tensor *tmp = ct_clone(src);
        if (tmp) ct__backend_for(CT_DEVICE_CPU)->copy(dst, tmp);
        ct_scope_end(s);
        return;
    }
    ct__backend_for(dst->storage->device.type)->copy(dst, src);
}

ct_result ct_copy_(ct_tensor *t, const ct_tensor *src)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(src, "src", 2);
    if (t == src) return CT_OK;
    ct_result r = ct__check_broadcast_to(t, src);
    if (r == CT_OK) r = ct__check_write(t, src);
    if (r != CT_OK) return r;
    ct__copy_unchecked(t, src);
    return CT_OK;
}

ct_result ct_fill_(ct_tensor *t, ct_scalar value)
{
    uint64_t elem = 0;
    CT__ARG_R(t, "self", 1);
    ct_result r = ct__scalar_to_elem(value, t->dtype, &elem);
    if (r != CT_OK) return r;
    if (ct_numel(t)) ct__backend_for(t->storage->device.type)->fill(t, &elem);
    return CT_OK;
}

ct_result ct_zero_(ct_tensor *t) { return ct_fill_(t, ct_int(0)); }

/* How dims a and b of t order by stride (infer_dense_strides' rule, which
 * is TensorIterator's): -1 when a goes inside b, 1 when outside, 0 when
 * undecided (a stride 0, or equal strides and a is not the larger). */
static int ct__stride_order(const ct_tensor *t, int a, int b)
{
    int64_t sa = t->strides[a], sb = t->strides[b];
    if (sa == 0 || sb == 0) return 0;
    if (sa != sb) return sa < sb ? -1 : 1;
    return t->sizes[a] > t->sizes[b] ? 1 : 0;
}

/* Dense strides for t's sizes that keep the order of t's dims by stride
 * (PyTorch's infer_dense_strides, for tensors that are not dense). */
static void ct__dense_strides_like(const ct_tensor *t, int64_t *strides)
{
    int perm[CT_MAX_DIMS], n = t->ndim; /* perm[0] is the innermost dim */
    for (int i = 0; i < n; i++) perm[i] = n - 1 - i;
    for (int i = 1; i < n; i++) { /* insertion sort that steps over undecided dims without moving them */
        int moving = i;
        for (int j = i - 1; j >= 0; j--) {
            int order = ct__stride_order(t, perm[j], perm[moving]);
            if (order < 0) break;
            if (order > 0) {
                int x = perm[j];
                perm[j] = perm[moving];
                perm[moving] = x;
                moving = j;
            }
        }
    }
    int64_t stride = 1;
    for (int i = 0; i < n; i++) {
        strides[perm[i]] = stride;
        if (t->sizes[perm[i]] > 1) stride *= t->sizes[perm[i]];
    }
}

/* An uninitialised tensor shaped like t, laid out as PyTorch's
 * preserve_format does: t's own strides when t is dense, else dense strides
 * in t's order. */
static ct_tensor *ct__empty_like(const ct_tensor *t, ct_dtype dtype)
{
    int64_t strides[CT_MAX_DIMS];
    dtype = dtype == CT_DEFAULT ? t->dtype : dtype;
    if (ct__is_dense(t)) memcpy(strides, t->strides, (size_t)t->ndim * sizeof(int64_t));
    else ct__dense_strides_like(t, strides);
    return ct__alloc_strided(t->sizes, strides, t->ndim, dtype, t->storage->device);
}

/* A new tensor with t's values in `dtype`, laid out as ct__empty_like does. */
static ct_tensor *ct__copy_as(const ct_tensor *t, ct_dtype dtype)
{
    ct_tensor *r = ct__empty_like(t, dtype);
    if (r) ct__copy_unchecked(r, t);
    return r;
}

ct_tensor *ct_contiguous(const ct_tensor *t)
{
    CT__ARG(t, "self", 1);
    if (ct__is_contiguous(t)) return ct__same(t);
    ct_tensor *r = ct__alloc(t->sizes, t->ndim, t->dtype, t->storage->device);
    if (r) ct__copy_unchecked(r, t);
    return r;
}

ct_tensor *ct_clone(const ct_tensor *t)
{
    CT__ARG(t, "self", 1);
    return ct__copy_as(t, t->dtype);
}

ct_tensor *ct_to(const ct_tensor *t, ct_dtype dtype)
{
    CT__ARG(t, "self", 1);
    if (dtype == CT_DEFAULT || dtype == t->dtype) return ct__same(t);
    if (!ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "to(): invalid dtype %d", (int)dtype);
        return NULL;
    }
    return ct__copy_as(t, dtype);
}

ct_result ct_copy_to_array(const ct_tensor *t, void *out, int64_t capacity, ct_dtype dtype)
{
    CT__ARG_R(t, "self", 1);
    dtype = dtype == CT_DEFAULT ? t->dtype : dtype;
    if (!out && capacity) return ct__fail(CT_ERR_VALUE, "copy_to_array(): out is NULL");
    if (!ct__dtype_valid(dtype)) return ct__fail(CT_ERR_TYPE, "copy_to_array(): invalid dtype %d", (int)dtype);
    if (capacity < ct_numel(t))
        return ct__fail(CT_ERR_VALUE, "copy_to_array(): the tensor has %lld elements but out has room for %lld",
                        (long long)ct_numel(t), (long long)capacity);
    ct_scope s = ct_scope_begin();
    ct_tensor *dst = ct_from_blob(out, ct_shape_of(t), NULL, dtype, NULL, NULL);
    if (dst) ct__copy_unchecked(dst, t);
    ct_scope_end(s);
    return dst ? CT_OK : ct_last_error_code();
}

/* The single element of t as a double, or an error (NaN). */
static bool ct__single(const ct_tensor *t, const char *fn)
{
    if (!t) {
        ct__null_arg(fn, "self", 1);
        return false;
    }
    if (ct_numel(t) != 1) {
        ct__fail(CT_ERR_VALUE, "only one element tensors can be converted to Python scalars");
        return false;
    }
    return true;
}

double ct_item(const ct_tensor *t)
{
    if (!ct__single(t, __func__)) return NAN;
    return ct__read_f64(ct__data(t), t->dtype);
}

int64_t ct_item_int(const ct_tensor *t)
{
    if (!ct__single(t, __func__)) return 0;
    return ct__read_i64(ct__data(t), t->dtype);
}

/* ==================== tensor/view.c ==================== */
// >>tensor/view.c
/* Views: new sizes, strides and offset over the same storage, never a copy. */

/* Why a shape cannot hold numel elements (PyTorch's infer_size). */
typedef enum ct__infer_status {
    CT__INFER_OK,
    CT__INFER_TWO_UNKNOWN,
    CT__INFER_NEGATIVE,
    CT__INFER_AMBIGUOUS,
    CT__INFER_MISMATCH
} ct__infer_status;

/* Fill `out` with shape, replacing one -1 by what makes numel elements. */
static ct__infer_status ct__infer_size(ct_shape shape, int64_t numel, int64_t *out)
{
    int64_t known = 1;
    int infer = -1;
    for (int d = 0; d < shape.ndim; d++) {
        out[d] = shape.size[d];
        if (shape.size[d] == -1) {
            if (infer >= 0) return CT__INFER_TWO_UNKNOWN;
            infer = d;
        } else if (shape.size[d] < 0) {
            return CT__INFER_NEGATIVE;
        } else if (!ct__mul_ok(known, shape.size[d], &known)) {
            known = -1; /* matches no numel */
        }
    }
    if (infer >= 0 && known == 0) return CT__INFER_AMBIGUOUS;
    if (infer >= 0 && known > 0 && numel % known == 0) {
        out[infer] = numel / known;
        return CT__INFER_OK;
    }
    return infer < 0 && known == numel ? CT__INFER_OK : CT__INFER_MISMATCH;
}

/* infer_size's message for a status. */
static const char *ct__infer_message(ct__infer_status st, ct_shape shape, int64_t numel, char *buf, size_t n)
{
    char sh[256];
    ct__shape_str(shape.size, shape.ndim, sh, sizeof sh);
    switch (st) {
    case CT__INFER_TWO_UNKNOWN: snprintf(buf, n, "only one dimension can be inferred"); break;
    case CT__INFER_NEGATIVE:
        for (int d = 0; d < shape.ndim; d++)
            if (shape.size[d] < -1) {
                snprintf(buf, n, "invalid shape dimension %lld", (long long)shape.size[d]);
                break;
            }
        break;
    case CT__INFER_AMBIGUOUS:
        snprintf(buf, n,
                 "cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size -1 can "
                 "be any value and is ambiguous",
                 sh);
        break;
    default: snprintf(buf, n, "shape '%s' is invalid for input of size %lld", sh, (long long)numel); break;
    }
    return buf;
}

/* The sizes a view or reshape of t to `shape` gets, or an error. */
static ct_result ct__view_sizes(const ct_tensor *t, ct_shape shape, int64_t *sizes)
{
    char buf[512];
    if (shape.ndim < 0 || shape.ndim > CT_MAX_DIMS) return ct__check_shape(shape, "view");
    ct__infer_status st = ct__infer_size(shape, ct_numel(t), sizes);
    if (st == CT__INFER_OK) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME, "%s", ct__infer_message(st, shape, ct_numel(t), buf, sizeof buf));
}

/* Strides that let t be seen with the new sizes without a copy, or false
 * (PyTorch's computeStride: dims of t that are one block of memory form a
 * chunk, and each chunk must split into whole dims of the new shape). */
static bool ct__view_strides(const ct_tensor *t, const int64_t *sizes, int ndim, int64_t *strides)
{
    if (t->ndim == 0) {
        for (int d = 0; d < ndim; d++) strides[d] = 1;
        return true;
    }
    int64_t numel = ct_numel(t);
    if (numel == 0) {
        bool same = ndim == t->ndim && !memcmp(sizes, t->sizes, (size_t)ndim * sizeof(int64_t));
        if (same) memcpy(strides, t->strides, (size_t)ndim * sizeof(int64_t));
        else ct__contiguous_strides(sizes, ndim, strides);
        return true;
    }
    int view_d = ndim - 1;
    int64_t chunk_stride = t->strides[t->ndim - 1], tensor_numel = 1, view_numel = 1;
    for (int td = t->ndim - 1; td >= 0; td--) {
        tensor_numel *= t->sizes[td];
        bool chunk_ends = td == 0 || (t->sizes[td - 1] != 1 && t->strides[td - 1] != tensor_numel * chunk_stride);
        if (!chunk_ends) continue;
        while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
            strides[view_d] = view_numel * chunk_stride;
            view_numel *= sizes[view_d];
            view_d--;
        }
        if (view_numel != tensor_numel) return false;
        if (td > 0) {
            chunk_stride = t->strides[td - 1];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    return view_d == -1;
}

ct_tensor *ct_view(const ct_tensor *t, ct_shape shape)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    CT__ARG(t, "self", 1);
    if (ct__view_sizes(t, shape, sizes) != CT_OK) return NULL;
    if (!ct__view_strides(t, sizes, shape.ndim, strides)) {
        ct__fail(CT_ERR_RUNTIME, "view size is not compatible with input tensor's size and stride (at least one "
                                 "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
        return NULL;
    }
    return ct__view_of(t, sizes, strides, shape.ndim, t->offset);
}

ct_tensor *ct_view_as(const ct_tensor *t, const ct_tensor *other)
{
    CT__ARG(other, "other", 2);
    return ct_view(t, ct_shape_of(other));
}

ct_tensor *ct_reshape(const ct_tensor *t, ct_shape shape)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    CT__ARG(t, "self", 1);
    if (ct__view_sizes(t, shape, sizes) != CT_OK) return NULL;
    if (ct__view_strides(t, sizes, shape.ndim, strides)) return ct__view_of(t, sizes, strides, shape.ndim, t->offset);
    ct_scope s = ct_scope_begin();
    ct_tensor *c = ct_contiguous(t), *r = c ? ct_view(c, ct_shape_make(shape.ndim, sizes)) : NULL;
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_reshape_as(const ct_tensor *t, const ct_tensor *other)
{
    CT__ARG(other, "other", 2);
    return ct_reshape(t, ct_shape_of(other));
}

ct_tensor *ct_as_strided(const ct_tensor *t, ct_shape size, ct_shape stride, int64_t storage_offset)
{
    char b1[256], b2[256];
    CT__ARG(t, "self", 1);
    if (ct__check_shape(size, "as_strided") != CT_OK) return NULL;
    if (size.ndim != stride.ndim) {
        ct__fail(CT_ERR_RUNTIME, "mismatch in length of strides and shape");
        return NULL;
    }
    for (int d = 0; d < stride.ndim; d++)
        if (stride.size[d] < 0) {
            ct__fail(CT_ERR_RUNTIME, "as_strided: Negative strides are not supported at the moment, got strides: %s",
                     ct__shape_str(stride.size, stride.ndim, b1, sizeof b1));
            return NULL;
        }
    if (storage_offset < 0) {
        ct__fail(CT_ERR_RUNTIME, "Tensor: invalid storage offset %lld", (long long)storage_offset);
        return NULL;
    }
    /* the furthest element must lie inside the storage */
    int64_t last = storage_offset, numel = 1, span;
    bool ok = true;
    for (int d = 0; d < size.ndim && ok; d++) {
        ok = ct__mul_ok(numel, size.size[d], &numel);
        if (size.size[d] > 0) ok = ok && ct__mul_ok(size.size[d] - 1, stride.size[d], &span) && ct__add_ok(last, span, &last);
    }
    int64_t need = numel == 0 ? 0 : (last + 1) * (int64_t)ct__esize(t);
    if (!ok || need > (int64_t)t->storage->nbytes) {
        ct__fail(CT_ERR_RUNTIME,
                 "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize %d requiring a storage size of "
                 "%lld are out of bounds for storage of size %lld",
                 ct__shape_str(size.size, size.ndim, b1, sizeof b1), ct__shape_str(stride.size, stride.ndim, b2, sizeof b2),
                 (long long)storage_offset, (int)ct__esize(t), (long long)need, (long long)t->storage->nbytes);
        return NULL;
    }
    return ct__view_of(t, size.size, stride.size, size.ndim, storage_offset);
}

ct_tensor *ct_transpose(const ct_tensor *t, int dim0, int dim1)
{
    CT__ARG(t, "self", 1);
    int a = ct__wrap_dim(dim0, t->ndim), b = a < 0 ? -1 : ct__wrap_dim(dim1, t->ndim);
    if (b < 0) return NULL;
    if (t->ndim == 0) return ct__same(t);
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    sizes[a] = t->sizes[b], sizes[b] = t->sizes[a];
    strides[a] = t->strides[b], strides[b] = t->strides[a];
    return ct__view_of(t, sizes, strides, t->ndim, t->offset);
}

ct_tensor *ct_t(const ct_tensor *t)
{
    CT__ARG(t, "self", 1);
    if (t->ndim > 2) {
        ct__fail(CT_ERR_RUNTIME, "t() expects a tensor with <= 2 dimensions, but self is %dD", t->ndim);
        return NULL;
    }
    return t->ndim < 2 ? ct__same(t) : ct_transpose(t, 0, 1);
}

ct_tensor *ct_permute(const ct_tensor *t, ct_shape dims)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    bool seen[CT_MAX_DIMS] = {false};
    CT__ARG(t, "self", 1);
    if (dims.ndim != t->ndim) {
        ct__fail(CT_ERR_RUNTIME,
                 "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
                 "desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d",
                 t->ndim, dims.ndim);
        return NULL;
    }
    for (int i = 0; i < dims.ndim; i++) {
        int d = ct__wrap_dim(dims.size[i], t->ndim);
        if (d < 0) return NULL;
        if (seen[d]) {
            ct__fail(CT_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
            return NULL;
        }
        seen[d] = true;
        sizes[i] = t->sizes[d];
        strides[i] = t->strides[d];
    }
    return ct__view_of(t, sizes, strides, t->ndim, t->offset);
}

/* Wrap a list of dims, refusing repeats with movedim's message. */
static ct_result ct__wrap_dim_list(ct_shape dims, int ndim, const char *which, int *out)
{
    bool seen[CT_MAX_DIMS] = {false};
    char buf[256];
    for (int i = 0; i < dims.ndim; i++) {
        int d = ct__wrap_dim(dims.size[i], ndim);
        if (d < 0) return ct_last_error_code();
        if (seen[d])
            return ct__fail(CT_ERR_RUNTIME, "movedim: repeated dim in `%s` (%s)", which,
                            ct__shape_str(dims.size, dims.ndim, buf, sizeof buf));
        seen[d] = true;
        out[i] = d;
    }
    return CT_OK;
}

ct_tensor *ct_movedim(const ct_tensor *t, ct_shape source, ct_shape destination)
{
    int src[CT_MAX_DIMS], dst[CT_MAX_DIMS];
    char b1[256], b2[256];
    CT__ARG(t, "self", 1);
    if (source.ndim != destination.ndim || source.ndim < 0 || source.ndim > CT_MAX_DIMS) {
        ct__fail(CT_ERR_RUNTIME,
                 "movedim: Invalid source or destination dims: source (%s dims) should contain the same number of "
                 "dims as destination (%s dims)",
                 ct__shape_str(source.size, CT__MIN(CT__MAX(source.ndim, 0), CT_MAX_DIMS), b1, sizeof b1),
                 ct__shape_str(destination.size, CT__MIN(CT__MAX(destination.ndim, 0), CT_MAX_DIMS), b2, sizeof b2));
        return NULL;
    }
    if (ct__wrap_dim_list(source, t->ndim, "source", src) != CT_OK ||
        ct__wrap_dim_list(destination, t->ndim, "destination", dst) != CT_OK)
        return NULL;
    /* moved dims go to their destinations; the rest keep their order in the gaps */
    int64_t order[CT_MAX_DIMS];
    bool taken_src[CT_MAX_DIMS] = {false}, taken_dst[CT_MAX_DIMS] = {false};
    for (int i = 0; i < source.ndim; i++) {
        order[dst[i]] = src[i];
        taken_src[src[i]] = taken_dst[dst[i]] = true;
    }
    for (int d = 0, next = 0; d < t->ndim; d++) {
        if (taken_dst[d]) continue;
        while (taken_src[next]) next++;
        order[d] = next++;
    }
    return ct_permute(t, ct_shape_make(t->ndim, order));
}

ct_tensor *ct_squeeze(const ct_tensor *t)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int n = 0;
    CT__ARG(t, "self", 1);
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] != 1) {
            sizes[n] = t->sizes[d];
            strides[n++] = t->strides[d];
        }
    return ct__view_of(t, sizes, strides, n, t->offset);
}

ct_tensor *ct_squeeze_dim(const ct_tensor *t, int dim)
{
    CT__ARG(t, "self", 1);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return NULL;
    if (t->ndim == 0 || t->sizes[d] != 1) return ct__view_of(t, t->sizes, t->strides, t->ndim, t->offset);
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    for (int i = 0, n = 0; i < t->ndim; i++)
        if (i != d) {
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    return ct__view_of(t, sizes, strides, t->ndim - 1, t->offset);
}

ct_tensor *ct_unsqueeze(const ct_tensor *t, int dim)
{
    CT__ARG(t, "self", 1);
    int d = ct__wrap_dim(dim, t->ndim + 1);
    if (d < 0) return NULL;
    if (t->ndim == CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "unsqueeze: ctorch supports at most %d dimensions", CT_MAX_DIMS);
        return NULL;
    }
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    for (int i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = d >= t->ndim ? 1 : t->sizes[d] * t->strides[d];
        } else {
            sizes[i] = t->sizes[j];
            strides[i] = t->strides[j++];
        }
    }
    return ct__view_of(t, sizes, strides, t->ndim + 1, t->offset);
}

/* The torch.FloatTensor-style name expand's message uses. */
static const char *ct__legacy_type_name(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: return "torch.BoolTensor";
    case CT_U8: return "torch.ByteTensor";
    case CT_I8: return "torch.CharTensor";
    case CT_I16: return "torch.ShortTensor";
    case CT_I32: return "torch.IntTensor";
    case CT_I64: return "torch.LongTensor";
    case CT_F16: return "torch.HalfTensor";
    case CT_BF16: return "torch.BFloat16Tensor";
    case CT_F64: return "torch.DoubleTensor";
    default: return "torch.FloatTensor";
    }
}

ct_tensor *ct_expand(const ct_tensor *t, ct_shape sizes)
{
    int64_t out_strides[CT_MAX_DIMS];
    char b1[256], b2[256];
    CT__ARG(t, "self", 1);
    if (sizes.ndim < 0 || sizes.ndim > CT_MAX_DIMS) {
        ct__check_shape(sizes, "expand");
        return NULL;
    }
    if (sizes.ndim < t->ndim) {
        ct__fail(CT_ERR_RUNTIME,
                 "expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the "
                 "number of dimensions in the tensor (%d)",
                 ct__legacy_type_name(t->dtype), ct__shape_str(t->sizes, t->ndim, b1, sizeof b1),
                 ct__shape_str(sizes.size, sizes.ndim, b2, sizeof b2), sizes.ndim, t->ndim);
        return NULL;
    }
    int lead = sizes.ndim - t->ndim;
    for (int d = sizes.ndim - 1; d >= 0; d--) {
        int td = d - lead;
        int64_t want = sizes.size[d];
        if (td < 0) {
            if (want < 0) {
                ct__fail(CT_ERR_RUNTIME,
                         "The expanded size of the tensor (%lld) isn't allowed in a leading, non-existing dimension %d",
                         (long long)want, d);
                return NULL;
            }
            out_strides[d] = 0;
            continue;
        }
        if (want == -1) want = sizes.size[d] = t->sizes[td];
        if (t->sizes[td] == want) {
            out_strides[d] = t->strides[td];
        } else if (t->sizes[td] == 1 && want >= 0) {
            out_strides[d] = 0;
        } else {
            ct__fail(CT_ERR_RUNTIME,
                     "The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton "
                     "dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                     (long long)want, (long long)t->sizes[td], d, ct__shape_str(sizes.size, sizes.ndim, b1, sizeof b1),
                     ct__shape_str(t->sizes, t->ndim, b2, sizeof b2));
            return NULL;
        }
    }
    return ct__view_of(t, sizes.size, out_strides, sizes.ndim, t->offset);
}

ct_tensor *ct_expand_as(const ct_tensor *t, const ct_tensor *other)
{
    CT__ARG(other, "other", 2);
    return ct_expand(t, ct_shape_of(other));
}

ct_tensor *ct_broadcast_to(const ct_tensor *t, ct_shape shape) { return ct_expand(t, shape); }

ct_tensor *ct_narrow(const ct_tensor *t, int dim, int64_t start, int64_t length)
{
    CT__ARG(t, "self", 1);
    if (t->ndim == 0) {
        ct__fail(CT_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return NULL;
    int64_t size = t->sizes[d];
    if (start != size) { /* start == size is a valid (empty) position, not a wrappable one */
        if (start < -size || start >= size) {
            ct__fail(CT_ERR_INDEX, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                     (long long)-size, (long long)(size - 1), (long long)start);
            return NULL;
        }
        if (start < 0) start += size;
    }
    if (length < 0 || start > size - length) {
        ct__fail(CT_ERR_RUNTIME, "start (%lld) + length (%lld) exceeds dimension size (%lld).", (long long)start,
                 (long long)length, (long long)size);
        return NULL;
    }
    return ct_slice(t, d, start, start + length, 1);
}

ct_tensor *ct_select(const ct_tensor *t, int dim, int64_t index)
{
    char buf[256];
    CT__ARG(t, "self", 1);
    if (t->ndim == 0) {
        ct__fail(CT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return NULL;
    int64_t size = t->sizes[d];
    if (index < -size || index >= size) {
        ct__fail(CT_ERR_INDEX, "select(): index %lld out of range for tensor of size %s at dimension %d",
                 (long long)index, ct__shape_str(t->sizes, t->ndim, buf, sizeof buf), dim);
        return NULL;
    }
    if (index < 0) index += size;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    for (int i = 0, n = 0; i < t->ndim; i++)
        if (i != d) {
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    return ct__view_of(t, sizes, strides, t->ndim - 1, t->offset + index * t->strides[d]);
}

ct_tensor *ct_slice(const ct_tensor *t, int dim, int64_t start, int64_t end, int64_t step)
{
    CT__ARG(t, "self", 1);
    if (t->ndim == 0) {
        ct__fail(CT_ERR_RUNTIME, "slice() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return NULL;
    if (step <= 0) {
        ct__fail(CT_ERR_VALUE, step == 0 ? "slice step cannot be zero" : "step must be greater than zero");
        return NULL;
    }
    int64_t size = t->sizes[d];
    /* Python's clamping: negatives count from the end, then clip to [0, size] */
    if (start < 0) start = start < -size ? 0 : start + size;
    if (end < 0) end = end < -size ? 0 : end + size;
    if (start > size) start = size;
    if (end > size) end = size;
    if (end < start) end = start;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    sizes[d] = (end - start + step - 1) / step;
    strides[d] = t->strides[d] * step;
    return ct__view_of(t, sizes, strides, t->ndim, t->offset + start * t->strides[d]);
}

ct_tensor *ct_unfold(const ct_tensor *t, int dim, int64_t size, int64_t step)
{
    CT__ARG(t, "self", 1);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return NULL;
    int64_t max = t->ndim ? t->sizes[d] : 1;
    if (size > max) {
        ct__fail(CT_ERR_RUNTIME, "maximum size for tensor at dimension %d is %lld but size is %lld", d, (long long)max,
                 (long long)size);
        return NULL;
    }
    if (step <= 0) {
        ct__fail(CT_ERR_RUNTIME, "step is %lld but must be > 0", (long long)step);
        return NULL;
    }
    if (size < 0) {
        ct__fail(CT_ERR_RUNTIME, "size is %lld but must be >= 0", (long long)size);
        return NULL;
    }
    if (t->ndim == CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "unfold: ctorch supports at most %d dimensions", CT_MAX_DIMS);
        return NULL;
    }
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int n = t->ndim;
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    if (n > 0) {
        sizes[d] = (t->sizes[d] - size) / step + 1;
        strides[d] = t->strides[d] * step;
    }
    sizes[n] = size;
    strides[n] = n > 0 ? t->strides[d] : 1;
    return ct__view_of(t, sizes, strides, n + 1, t->offset);
}

ct_tensor *ct_diagonal(const ct_tensor *t, int64_t offset, int dim1, int dim2)
{
    CT__ARG(t, "self", 1);
    int a = ct__wrap_dim(dim1, t->ndim), b = a < 0 ? -1 : ct__wrap_dim(dim2, t->ndim);
    if (b < 0) return NULL;
    if (a == b) {
        ct__fail(CT_ERR_RUNTIME, "diagonal dimensions cannot be identical %d, %d", dim1, dim2);
        return NULL;
    }
    int64_t len, start = t->offset;
    if (offset >= 0) {
        len = CT__MAX(CT__MIN(t->sizes[a], t->sizes[b] - offset), 0);
        if (len > 0) start += offset * t->strides[b];
    } else {
        len = CT__MAX(CT__MIN(t->sizes[a] + offset, t->sizes[b]), 0);
        if (len > 0) start -= offset * t->strides[a];
    }
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (i != a && i != b) {
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    sizes[n] = len;
    strides[n++] = t->strides[a] + t->strides[b];
    return ct__view_of(t, sizes, strides, n, start);
}

ct_tensor *ct_detach(const ct_tensor *t)
{
    CT__ARG(t, "self", 1);
    return ct__view_of(t, t->sizes, t->strides, t->ndim, t->offset);
}

ct_tensor *ct_flatten(const ct_tensor *t, int start_dim, int end_dim)
{
    CT__ARG(t, "self", 1);
    int a = ct__wrap_dim(start_dim, t->ndim), b = a < 0 ? -1 : ct__wrap_dim(end_dim, t->ndim);
    if (b < 0) return NULL;
    if (a > b) {
        ct__fail(CT_ERR_RUNTIME, "flatten() has invalid args: start_dim cannot come after end_dim");
        return NULL;
    }
    if (t->ndim == 0) return ct_reshape(t, CT_SHAPE(1));
    if (a == b) return ct__same(t);
    int64_t sizes[CT_MAX_DIMS], n = 0, flat = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (d < a || d > b) {
            sizes[n++] = t->sizes[d];
        } else {
            flat *= t->sizes[d];
            if (d == b) sizes[n++] = flat;
        }
    }
    return ct_reshape(t, ct_shape_make((int)n, sizes));
}

ct_tensor *ct_unflatten(const ct_tensor *t, int dim, ct_shape sizes)
{
    int64_t inferred[CT_MAX_DIMS], shape[CT_MAX_DIMS];
    char buf[512];
    CT__ARG(t, "self", 1);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return NULL;
    if (sizes.ndim <= 0) {
        ct__fail(CT_ERR_RUNTIME, "unflatten: sizes must be non-empty");
        return NULL;
    }
    if (t->ndim + sizes.ndim - 1 > CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "unflatten: ctorch supports at most %d dimensions", CT_MAX_DIMS);
        return NULL;
    }
    int64_t dim_size = t->ndim ? t->sizes[d] : 1;
    ct__infer_status st = ct__infer_size(sizes, dim_size, inferred);
    if (st == CT__INFER_MISMATCH) {
        ct__fail(CT_ERR_RUNTIME, "unflatten: Provided sizes %s don't multiply up to the size of dim %d (%lld) in the input tensor",
                 ct__shape_str(sizes.size, sizes.ndim, buf, sizeof buf), dim, (long long)dim_size);
        return NULL;
    }
    if (st != CT__INFER_OK) {
        ct__fail(CT_ERR_RUNTIME, "unflatten got an unexpected error:\n%s",
                 ct__infer_message(st, sizes, dim_size, buf, sizeof buf));
        return NULL;
    }
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i != d) {
            shape[n++] = t->sizes[i];
            continue;
        }
        for (int j = 0; j < sizes.ndim; j++) shape[n++] = inferred[j];
    }
    return ct_view(t, ct_shape_make(n, shape));
}

/* ==================== tensor/create.c ==================== */
// >>tensor/create.c
/* Creation: empty, zeros, ones, full, from C arrays and caller memory, ranges,
 * eye, diag, tril, triu. */

/* A new tensor of that shape and dtype with every element the bytes at elem. */
static ct_tensor *ct__full_of(ct_shape shape, ct_dtype dtype, const void *elem)
{
    ct_tensor *t = ct__alloc(shape.size, shape.ndim, dtype, ct__cpu);
    if (t && ct_numel(t)) ct__backend_for(CT_DEVICE_CPU)->fill(t, elem);
    return t;
}

static ct_result ct__check_dtype(ct_dtype dtype)
{
    if (dtype == CT_DEFAULT || ct__dtype_valid(dtype)) return CT_OK;
    return ct__fail(CT_ERR_TYPE, "invalid dtype %d", (int)dtype);
}

static ct_tensor *ct__filled(ct_shape shape, ct_dtype dtype, ct_scalar value)
{
    uint64_t elem = 0;
    if (ct__check_shape(shape, "full") != CT_OK || ct__check_dtype(dtype) != CT_OK) return NULL;
    if (ct__scalar_to_elem(value, dtype, &elem) != CT_OK) return NULL; /* before allocating */
    return ct__full_of(shape, dtype, &elem);
}

ct_tensor *ct_empty(ct_shape shape, ct_dtype dtype)
{
    if (ct__check_shape(shape, "empty") != CT_OK || ct__check_dtype(dtype) != CT_OK) return NULL;
    return ct__alloc(shape.size, shape.ndim, dtype, ct__cpu);
}

ct_tensor *ct_zeros(ct_shape shape, ct_dtype dtype) { return ct__filled(shape, dtype, ct_int(0)); }
ct_tensor *ct_ones(ct_shape shape, ct_dtype dtype) { return ct__filled(shape, dtype, ct_int(1)); }

/* The dtype torch.full and torch.tensor give a Python number. */
static ct_dtype ct__scalar_dtype(ct_scalar v)
{
    return v.kind == CT_F64 ? ct__default_dtype : v.kind == CT_BOOL ? CT_BOOL : CT_I64;
}

ct_tensor *ct_full(ct_shape shape, ct_scalar value, ct_dtype dtype)
{
    return ct__filled(shape, dtype == CT_DEFAULT ? ct__scalar_dtype(value) : dtype, value);
}

ct_tensor *ct_empty_like(const ct_tensor *t, ct_dtype dtype)
{
    CT__ARG(t, "self", 1);
    if (ct__check_dtype(dtype) != CT_OK) return NULL;
    return ct__empty_like(t, dtype);
}

ct_tensor *ct_full_like(const ct_tensor *t, ct_scalar value, ct_dtype dtype)
{
    uint64_t elem = 0;
    CT__ARG(t, "self", 1);
    if (ct__check_dtype(dtype) != CT_OK) return NULL;
    if (ct__scalar_to_elem(value, dtype == CT_DEFAULT ? t->dtype : dtype, &elem) != CT_OK) return NULL;
    ct_tensor *r = ct__empty_like(t, dtype);
    if (r && ct_numel(r)) ct__backend_for(r->storage->device.type)->fill(r, &elem);
    return r;
}

ct_tensor *ct_zeros_like(const ct_tensor *t, ct_dtype dtype) { return ct_full_like(t, ct_int(0), dtype); }
ct_tensor *ct_ones_like(const ct_tensor *t, ct_dtype dtype) { return ct_full_like(t, ct_int(1), dtype); }

ct_tensor *ct_from_array(const void *data, ct_shape shape, ct_dtype dtype)
{
    if (!ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "from_array(): the dtype of the C array must be given");
        return NULL;
    }
    int64_t numel;
    if (!data && ct__check_shape(shape, "from_array") == CT_OK && ct__numel_of(shape.size, shape.ndim, &numel) &&
        numel > 0) {
        ct__fail(CT_ERR_VALUE, "from_array(): data is NULL");
        return NULL;
    }
    ct_tensor *t = ct_empty(shape, dtype);
    if (t && t->storage->nbytes) memcpy(t->storage->data, data, t->storage->nbytes);
    return t;
}

ct_tensor *ct_from_blob(void *data, ct_shape shape, const int64_t *strides, ct_dtype dtype,
                        void (*deleter)(void *data, void *ctx), void *ctx)
{
    int64_t st[CT_MAX_DIMS], numel = 0, last = 0; /* last: the offset of the last element */
    if (ct__check_shape(shape, "from_blob") != CT_OK) return NULL;
    if (!ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "from_blob(): the dtype of the memory must be given");
        return NULL;
    }
    if (strides) memcpy(st, strides, (size_t)shape.ndim * sizeof(int64_t));
    else ct__contiguous_strides(shape.size, shape.ndim, st);
    bool fits = ct__numel_of(shape.size, shape.ndim, &numel);
    for (int d = 0; d < shape.ndim; d++) {
        int64_t span;
        if (st[d] < 0) { /* torch.from_numpy's refusal, in its words */
            ct__fail(CT_ERR_RUNTIME, "from_blob(): at least one stride is negative, and tensors with negative "
                                     "strides are not currently supported");
            return NULL;
        }
        if (shape.size[d] > 1) fits = fits && ct__mul_ok(shape.size[d] - 1, st[d], &span) && ct__add_ok(last, span, &last);
    }
    if (!fits || (uint64_t)last >= SIZE_MAX / ct_dtype_size(dtype)) {
        char buf[256];
        ct__fail(CT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s",
                 ct__shape_str(shape.size, shape.ndim, buf, sizeof buf));
        return NULL;
    }
    if (numel && !data) {
        ct__fail(CT_ERR_VALUE, "from_blob(): data is NULL");
        return NULL;
    }
    ct__storage *s = (ct__storage *)CT_MALLOC(sizeof *s);
    if (!s) {
        CT__OOM();
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->refcount = 1;
    s->data = data;
    s->nbytes = numel ? (size_t)(last + 1) * ct_dtype_size(dtype) : 0;
    s->device = ct__cpu;
    s->deleter = deleter;
    s->deleter_ctx = ctx;
    ct_tensor *t = ct__tensor_new(s, dtype, shape.size, st, shape.ndim, 0);
    if (!t) s->deleter = NULL; /* a failed call leaves the memory the caller's */
    ct__storage_release(s);
    return t;
}

/* value as torch.tensor(value, dtype=dt) stores it: integer dtypes refuse
 * values out of their range (naming the dtype as Python does), floating
 * dtypes round (to infinity past their range), bool tests for nonzero. */
static ct_result ct__tensor_elem(ct_scalar value, ct_dtype dt, void *out)
{
    if (!ct__is_integral(dt)) {
        ct__write_f64(out, dt, ct_scalar_to_double(value));
        return CT_OK;
    }
    if (ct__scalar_overflows(value, dt))
        return ct__fail(CT_ERR_RUNTIME, "value cannot be converted to type %s without overflow", ct_dtype_name(dt));
    return ct__scalar_to_elem(value, dt, out);
}

ct_tensor *ct_scalar_tensor(ct_scalar value, ct_dtype dtype)
{
    uint64_t elem = 0;
    dtype = dtype == CT_DEFAULT ? ct__scalar_dtype(value) : dtype;
    if (ct__check_dtype(dtype) != CT_OK || ct__tensor_elem(value, dtype, &elem) != CT_OK) return NULL;
    return ct__full_of(CT_SHAPE0, dtype, &elem);
}

/* ---------------------------------------------------------------- ranges */

/* Scalar::to<T>() for dtype dt (checked as c10's checked_convert), as a
 * double holding the dtype's value. */
static bool ct__scalar_as(ct_scalar s, ct_dtype dt, double *out)
{
    uint64_t elem = 0;
    if (ct__scalar_to_elem(s, dt, &elem) != CT_OK) return false;
    *out = ct__read_f64(&elem, dt);
    return true;
}

/* t filled with value (checked as fill_ checks it), or NULL and t discarded. */
static ct_tensor *ct__filled_or_discard(ct_tensor *t, ct_scalar value)
{
    if (ct_fill_(t, value) == CT_OK) return t;
    ct__discard(t);
    return NULL;
}

/* c10's ScalarType name, which "not implemented for" errors print. */
static const char *ct__dtype_scalar_name(ct_dtype dt)
{
    static const char *names[CT_NUM_DTYPES] = {"",     "Bool", "Byte", "Char",     "Short", "Int",
                                               "Long", "Half", "BFloat16", "Float", "Double"};
    return names[dt];
}

static ct_tensor *ct__not_implemented(const char *kernel, ct_dtype dt)
{
    ct__fail(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel, ct__dtype_scalar_name(dt));
    return NULL;
}

/* arange's start, end and step converted in place to the kernel's
 * accumulate type (int64 for integer dtypes, float for half and bfloat16,
 * double otherwise), and checked there as PyTorch checks them. */
static bool ct__arange_bounds(ct_scalar *start, ct_scalar *end, ct_scalar *step, ct_dtype dtype)
{
    ct_dtype acc = !ct_dtype_is_floating(dtype) ? CT_I64 : dtype == CT_F16 || dtype == CT_BF16 ? CT_F32 : CT_F64;
    uint64_t es = 0, ee = 0, ed = 0;
    if (ct__scalar_to_elem(*start, acc, &es) != CT_OK || ct__scalar_to_elem(*end, acc, &ee) != CT_OK ||
        ct__scalar_to_elem(*step, acc, &ed) != CT_OK)
        return false;
    int step_sign, order; /* the signs of step and of end - start */
    double s = 0, e = 0;    /* floating bounds, which may be infinite */
    if (acc == CT_I64) {
        int64_t is = ct__read_i64(&es, acc), ie = ct__read_i64(&ee, acc), id = ct__read_i64(&ed, acc);
        step_sign = (id > 0) - (id < 0);
        order = (ie > is) - (ie < is);
        *start = ct_int(is);
        *end = ct_int(ie);
        *step = ct_int(id);
    } else {
        double d = ct__read_f64(&ed, acc);
        s = ct__read_f64(&es, acc);
        e = ct__read_f64(&ee, acc);
        step_sign = (d > 0) - (d < 0); /* NaN: 0 */
        order = (e > s) - (e < s);
        *start = ct_float(s);
        *end = ct_float(e);
        *step = ct_float(d);
    }
    if (!step_sign) {
        ct__fail(CT_ERR_RUNTIME, "step must be nonzero");
        return false;
    }
    if (!isfinite(s) || !isfinite(e)) {
        ct__fail(CT_ERR_RUNTIME, "unsupported range: %g -> %g", s, e);
        return false;
    }
    if (!((step_sign > 0 && order >= 0) || (step_sign < 0 && order <= 0))) {
        ct__fail(CT_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign");
        return false;
    }
    return true;
}

ct_tensor *ct_arange(ct_scalar start, ct_scalar end, ct_scalar step, ct_dtype dtype)
{
    bool all_int = start.kind != CT_F64 && end.kind != CT_F64 && step.kind != CT_F64;
    dtype = dtype != CT_DEFAULT ? dtype : all_int ? CT_I64 : ct__default_dtype;
    if (ct__check_dtype(dtype) != CT_OK) return NULL;
    if (dtype == CT_BOOL) return ct__not_implemented("arange_cpu", dtype);
    ct_scalar xs = start, xe = end, xd = step;
    if (!ct__arange_bounds(&xs, &xe, &xd, dtype)) return NULL;
    /* The length: from the int64 values for int64 (their difference wraps as
     * in C++), from the scalars as doubles for every other dtype. */
    double size_d;
    if (dtype == CT_I64)
        size_d = ceil((double)(int64_t)((uint64_t)xe.v.i - (uint64_t)xs.v.i) / (double)xd.v.i);
    else
        size_d = ceil((ct_scalar_to_double(end) - ct_scalar_to_double(start)) / ct_scalar_to_double(step));
    if (!(size_d >= 0 && size_d <= 9223372036854775807.0)) {
        ct__fail(CT_ERR_RUNTIME, "invalid size, possible overflow?");
        return NULL;
    }
    int64_t n = ct__trunc_i64(size_d); /* 2^63 passes the check above and wraps, as in PyTorch */
    if (n < 0) {
        ct__fail(CT_ERR_RUNTIME, "IntArrayRef contains an int that cannot be represented as a SymInt: %lld", (long long)n);
        return NULL;
    }
    ct_tensor *t = ct_empty(CT_SHAPE(n), dtype);
    if (t && n) ct__cpu_arange(t, xs, xd);
    return t;
}

/* What linspace and logspace share: the result for 0 steps, or for 1
 * (filled with first through fill_'s checks), with *done set; else a tensor
 * for the kernel, with start and end converted to its dtype as Scalar::to
 * converts them into se[0] and se[1]. */
static ct_tensor *ct__spaced(const char *kernel, bool has_half, double start, double end, int64_t steps,
                             ct_dtype dtype, double first, double se[2], bool *done)
{
    *done = true;
    if (steps < 0) {
        ct__fail(CT_ERR_RUNTIME, "number of steps must be non-negative");
        return NULL;
    }
    ct_tensor *t = ct_empty(CT_SHAPE(steps), dtype);
    if (!t || steps == 0) return t;
    if (steps == 1) return ct__filled_or_discard(t, ct_float(first));
    ct_dtype dt = t->dtype;
    if (dt == CT_BOOL || (dt == CT_F16 && !has_half)) {
        ct__discard(t);
        return ct__not_implemented(kernel, dt);
    }
    if (!ct__scalar_as(ct_float(start), dt, &se[0]) || !ct__scalar_as(ct_float(end), dt, &se[1])) {
        ct__discard(t);
        return NULL;
    }
    *done = false;
    return t;
}

ct_tensor *ct_linspace(double start, double end, int64_t steps, ct_dtype dtype)
{
    double se[2];
    bool done;
    ct_tensor *t = ct__spaced("linspace_cpu", true, start, end, steps, dtype, start, se, &done);
    if (!done) ct__cpu_linspace(t, se[0], se[1]);
    return t;
}

ct_tensor *ct_logspace(double start, double end, int64_t steps, double base, ct_dtype dtype)
{
    double se[2];
    bool done;
    ct_tensor *t = ct__spaced("logspace_cpu", false, start, end, steps, dtype, pow(base, start), se, &done);
    if (!done) ct__cpu_logspace(t, se[0], se[1], base);
    return t;
}

/* ---------------------------------------------------------------- matrices */

ct_tensor *ct_eye(int64_t n, int64_t m, ct_dtype dtype)
{
    if (n < 0 || m < 0) {
        ct__fail(CT_ERR_RUNTIME, "%s must be greater or equal to 0, got %lld", n < 0 ? "n" : "m",
                 (long long)(n < 0 ? n : m));
        return NULL;
    }
    ct_tensor *t = ct_zeros(CT_SHAPE(n, m), dtype);
    if (!t) return NULL;
    ct_scope s = ct_scope_begin();
    ct_fill_(ct_diagonal(t, 0, 0, 1), ct_int(1));
    ct_scope_end(s);
    return t;
}

ct_tensor *ct_diag(const ct_tensor *t, int64_t diagonal)
{
    CT__ARG(t, "self", 1);
    if (t->ndim != 1 && t->ndim != 2) {
        ct__fail(CT_ERR_RUNTIME, "matrix or a vector expected");
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r = NULL;
    if (t->ndim == 1) { /* a square matrix with t on the diagonal */
        int64_t n = t->sizes[0] + (diagonal < 0 ? -diagonal : diagonal);
        r = ct_zeros(CT_SHAPE(n, n), t->dtype);
        if (r) ct__copy_unchecked(ct_diagonal(r, diagonal, 0, 1), t);
    } else { /* the diagonal's length; PyTorch resizes to it unclamped, refusing a negative one */
        int64_t len = diagonal >= 0 ? CT__MIN(t->sizes[0], t->sizes[1] - diagonal)
                                    : CT__MIN(t->sizes[0] + diagonal, t->sizes[1]);
        if (len < 0) ct__fail(CT_ERR_RUNTIME, "numel: integer multiplication overflow");
        else r = ct_empty(CT_SHAPE(len), t->dtype);
        if (r) ct__copy_unchecked(r, ct_diagonal(t, diagonal, 0, 1));
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* A copy of t with the elements on the discarded side of diagonal k zeroed:
 * below it (keep_upper, triu) or above it (tril), over the last two dims. */
static ct_tensor *ct__triangle(const ct_tensor *t, int64_t k, bool keep_upper)
{
    if (ct__wrap_dim_strict(-2, t->ndim) < 0) return NULL; /* PyTorch's error for fewer than 2 dims */
    ct_tensor *r = ct__alloc(t->sizes, t->ndim, t->dtype, t->storage->device);
    if (!r) return NULL;
    ct__copy_unchecked(r, t);
    int64_t rows = r->sizes[r->ndim - 2], cols = r->sizes[r->ndim - 1];
    if (ct_numel(r) == 0) return r;
    int64_t batch = ct_numel(r) / (rows * cols);
    k = CT__MAX(CT__MIN(k, cols), -rows); /* beyond these every diagonal gives the same, and i + k cannot overflow */
    size_t es = ct__esize(r);
    char *p = (char *)ct__data(r);
    for (int64_t b = 0; b < batch; b++, p += (size_t)(rows * cols) * es)
        for (int64_t i = 0; i < rows; i++) {
            /* zero columns [lo, hi) of row i */
            int64_t lo = keep_upper ? 0 : CT__MAX(i + k + 1, 0), hi = keep_upper ? CT__MIN(i + k, cols) : cols;
            if (lo < hi) memset(p + (size_t)(i * cols + lo) * es, 0, (size_t)(hi - lo) * es);
        }
    return r;
}

ct_tensor *ct_tril(const ct_tensor *t, int64_t diagonal)
{
    CT__ARG(t, "self", 1);
    return ct__triangle(t, diagonal, false);
}

ct_tensor *ct_triu(const ct_tensor *t, int64_t diagonal)
{
    CT__ARG(t, "self", 1);
    return ct__triangle(t, diagonal, true);
}

/* ==================== tensor/index.c ==================== */
// >>tensor/index.c

/* ==================== tensor/random.c ==================== */
// >>tensor/random.c

/* ==================== tensor/print.c ==================== */
// >>tensor/print.c

/* ==================== cpu/iter.c ==================== */
// >>cpu/iter.c
/* The strided iterator (see iter.h). */

static void ct__iter_init(ct__iter *it, int nops, const ct_tensor *const *ops)
{
    const ct_tensor *out = ops[0];
    int nd = out->ndim;
    CT_ASSERT(nops <= CT__ITER_MAX_OPS);
    memset(it, 0, sizeof *it);
    it->nops = nops;
    it->numel = 1;
    /* dims reversed so that [0] is the last (innermost) dim of the tensors */
    for (int d = 0; d < nd; d++) {
        it->shape[d] = out->sizes[nd - 1 - d];
        it->numel *= it->shape[d];
    }
    for (int i = 0; i < nops; i++) {
        const ct_tensor *t = ops[i];
        size_t es = ct__esize(t);
        it->data[i] = t->storage->data ? ct__data(t) : NULL;
        for (int d = 0; d < nd; d++) {
            int td = t->ndim - 1 - d; /* the operand's dim, right-aligned */
            bool broadcast = td < 0 || (t->sizes[td] == 1 && it->shape[d] != 1);
            it->strides[d][i] = broadcast ? 0 : t->strides[td] * (int64_t)es;
        }
    }
    /* order dims by the output's strides, innermost smallest (insertion sort) */
    for (int a = 1; a < nd; a++) {
        for (int b = a; b > 0; b--) {
            bool swap = false;
            for (int i = 0; i < nops; i++) {
                int64_t inner = it->strides[b - 1][i], outer = it->strides[b][i];
                if (inner == 0 || outer == 0) continue; /* broadcast dims decide nothing */
                if (inner < 0) inner = -inner;
                if (outer < 0) outer = -outer;
                if (inner != outer) {
                    swap = outer < inner;
                    break;
                }
            }
            if (!swap) break;
            int64_t s = it->shape[b];
            it->shape[b] = it->shape[b - 1];
            it->shape[b - 1] = s;
            for (int i = 0; i < nops; i++) {
                int64_t x = it->strides[b][i];
                it->strides[b][i] = it->strides[b - 1][i];
                it->strides[b - 1][i] = x;
            }
        }
    }
    /* merge dims that are one block of memory for every operand */
    int n = 0;
    for (int d = 0; d < nd; d++) {
        if (it->shape[d] == 1 && nd > 1) continue; /* size-1 dims vanish */
        if (n > 0) {
            bool merge = true;
            for (int i = 0; i < nops && merge; i++)
                merge = it->strides[d][i] == it->strides[n - 1][i] * it->shape[n - 1];
            if (merge) {
                it->shape[n - 1] *= it->shape[d];
                continue;
            }
        }
        it->shape[n] = it->shape[d];
        memcpy(it->strides[n], it->strides[d], sizeof it->strides[d]);
        n++;
    }
    if (n == 0) { /* a single element */
        it->shape[0] = 1;
        memset(it->strides[0], 0, sizeof it->strides[0]);
        n = 1;
    }
    it->ndim = n;
}

static void ct__iter_range(const ct__iter *it, int64_t begin, int64_t end, ct__loop_fn fn, void *ctx)
{
    if (begin >= end) return;
    int64_t idx[CT_MAX_DIMS], rem = begin;
    char *ptr[CT__ITER_MAX_OPS];
    for (int d = 0; d < it->ndim; d++) {
        idx[d] = rem % it->shape[d];
        rem /= it->shape[d];
    }
    for (int i = 0; i < it->nops; i++) {
        ptr[i] = it->data[i];
        for (int d = 0; d < it->ndim; d++) ptr[i] += idx[d] * it->strides[d][i];
    }
    for (int64_t pos = begin; pos < end;) {
        int64_t n = CT__MIN(it->shape[0] - idx[0], end - pos);
        fn(ptr, it->strides[0], n, ctx);
        pos += n;
        idx[0] += n;
        for (int i = 0; i < it->nops; i++) ptr[i] += n * it->strides[0][i];
        /* carry into the outer dims when a dim wraps around */
        for (int d = 0; d < it->ndim - 1 && idx[d] == it->shape[d]; d++) {
            idx[d] = 0;
            idx[d + 1]++;
            for (int i = 0; i < it->nops; i++)
                ptr[i] += it->strides[d + 1][i] - it->shape[d] * it->strides[d][i];
        }
    }
}

static void ct__iter_serial(const ct__iter *it, ct__loop_fn fn, void *ctx)
{
    ct__iter_range(it, 0, it->numel, fn, ctx);
}

typedef struct ct__iter_job {
    const ct__iter *it;
    ct__loop_fn fn;
    void *ctx;
} ct__iter_job;

static void ct__iter_job_run(int64_t begin, int64_t end, void *ctx)
{
    ct__iter_job *job = (ct__iter_job *)ctx;
    ct__iter_range(job->it, begin, end, job->fn, job->ctx);
}

static void ct__iter_parallel(const ct__iter *it, ct__loop_fn fn, void *ctx)
{
    ct__iter_job job = {it, fn, ctx};
    ct__parallel_for(it->numel, CT__GRAIN, ct__iter_job_run, &job);
}

static void ct__parallel_for(int64_t n, int64_t grain, ct__range_fn fn, void *ctx)
{
#ifdef _OPENMP
    if (n > grain && !omp_in_parallel() && omp_get_max_threads() > 1) {
        int64_t nchunks = CT__MIN((int64_t)omp_get_max_threads(), (n + grain - 1) / grain);
#pragma omp parallel num_threads((int)nchunks)
        {
            int64_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
            int64_t chunk = (n + nt - 1) / nt, b = tid * chunk, e = CT__MIN(n, b + chunk);
            if (b < e) fn(b, e, ctx);
        }
        return;
    }
#else
    (void)grain;
#endif
    if (n > 0) fn(0, n, ctx);
}

/* ==================== cpu/copy.c ==================== */
// >>cpu/copy.c
/* The CPU backend: aligned allocation, copy with dtype conversion, fill. */

/* 64-byte aligned blocks (one cache line, one AVX-512 vector); the pointer
 * CT_MALLOC returned is kept just before the block. */
static void *ct__cpu_alloc(size_t nbytes, int device_index)
{
    (void)device_index;
    if (nbytes > SIZE_MAX - 64 - sizeof(void *)) return NULL;
    char *raw = (char *)CT_MALLOC(nbytes + 64 + sizeof(void *));
    if (!raw) return NULL;
    uintptr_t p = ((uintptr_t)raw + sizeof(void *) + 63) & ~(uintptr_t)63;
    ((void **)p)[-1] = raw;
    return (void *)p;
}

static void ct__cpu_free(void *ptr, int device_index)
{
    (void)device_index;
    if (ptr) CT_FREE(((void **)ptr)[-1]);
}

/* Same-dtype copy of n elements of `size` bytes. */
#define CT__COPY_LOOP(T)                                                              \
    static void ct__copy_loop_##T(char **data, const int64_t *strides, int64_t n, void *ctx) \
    {                                                                                 \
        (void)ctx;                                                                    \
        char *dst = data[0], *src = data[1];                                          \
        if (strides[0] == (int64_t)sizeof(T) && strides[1] == (int64_t)sizeof(T)) {   \
            memcpy(dst, src, (size_t)n * sizeof(T));                                  \
            return;                                                                   \
        }                                                                             \
        for (int64_t i = 0; i < n; i++) {                                             \
            memcpy(dst + i * strides[0], src + i * strides[1], sizeof(T));            \
        }                                                                             \
    }
CT__COPY_LOOP(uint8_t)
CT__COPY_LOOP(uint16_t)
CT__COPY_LOOP(uint32_t)
CT__COPY_LOOP(uint64_t)
#undef CT__COPY_LOOP

/* Converting copies, one loop per (source, destination) pair. */
#define CT__CAST_LOOP(dst, DDT, src)                                                                  \
    static void ct__cast_##src##_##dst(char **data, const int64_t *strides, int64_t n, void *ctx)     \
    {                                                                                                 \
        (void)ctx;                                                                                    \
        ct__##dst##_t *d = (ct__##dst##_t *)data[0];                                                  \
        const ct__##src##_t *s = (const ct__##src##_t *)data[1];                                      \
        if (strides[0] == (int64_t)sizeof *d && strides[1] == (int64_t)sizeof *s) {                   \
            for (int64_t i = 0; i < n; i++) d[i] = CT__CONVERT(src, dst, s[i]);                       \
        } else {                                                                                      \
            for (int64_t i = 0; i < n; i++)                                                           \
                *(ct__##dst##_t *)(data[0] + i * strides[0]) =                                        \
                    CT__CONVERT(src, dst, *(const ct__##src##_t *)(data[1] + i * strides[1]));        \
        }                                                                                             \
    }
#define CT__CAST_ROW(src, SDT, _) CT__DTYPES_B(CT__CAST_LOOP, src)
CT__DTYPES_A(CT__CAST_ROW, _)
#undef CT__CAST_ROW
#undef CT__CAST_LOOP

/* ct__cast_loops[src][dst], indexed by ct_dtype (CT_DEFAULT's row and column unused). */
#define CT__CAST_ENTRY(dst, DDT, src) ct__cast_##src##_##dst,
#define CT__CAST_ROW(src, SDT, _) {NULL, CT__DTYPES_B(CT__CAST_ENTRY, src)},
static const ct__loop_fn ct__cast_loops[CT_NUM_DTYPES][CT_NUM_DTYPES] = {
    {NULL}, CT__DTYPES_A(CT__CAST_ROW, _)};
#undef CT__CAST_ROW
#undef CT__CAST_ENTRY

static ct__loop_fn ct__copy_loop_for_size(size_t size)
{
    switch (size) {
    case 1: return ct__copy_loop_uint8_t;
    case 2: return ct__copy_loop_uint16_t;
    case 4: return ct__copy_loop_uint32_t;
    default: return ct__copy_loop_uint64_t;
    }
}

static void ct__cpu_copy(ct_tensor *dst, const ct_tensor *src)
{
    const ct_tensor *ops[2] = {dst, src};
    ct__iter it;
    ct__iter_init(&it, 2, ops);
    ct__loop_fn fn = dst->dtype == src->dtype ? ct__copy_loop_for_size(ct__esize(dst))
                                              : ct__cast_loops[src->dtype][dst->dtype];
    ct__iter_parallel(&it, fn, NULL);
}

/* Fill n elements of `size` bytes with the pattern in ctx. */
#define CT__FILL_LOOP(T)                                                              \
    static void ct__fill_loop_##T(char **data, const int64_t *strides, int64_t n, void *ctx) \
    {                                                                                 \
        T v;                                                                          \
        memcpy(&v, ctx, sizeof v);                                                    \
        if (strides[0] == (int64_t)sizeof(T)) {                                       \
            T *d = (T *)data[0];                                                      \
            for (int64_t i = 0; i < n; i++) d[i] = v;                                 \
        } else {                                                                      \
            for (int64_t i = 0; i < n; i++) memcpy(data[0] + i * strides[0], &v, sizeof v); \
        }                                                                             \
    }
CT__FILL_LOOP(uint8_t)
CT__FILL_LOOP(uint16_t)
CT__FILL_LOOP(uint32_t)
CT__FILL_LOOP(uint64_t)
#undef CT__FILL_LOOP

static void ct__cpu_fill(ct_tensor *dst, const void *elem)
{
    const ct_tensor *ops[1] = {dst};
    ct__iter it;
    ct__loop_fn fn;
    switch (ct__esize(dst)) {
    case 1: fn = ct__fill_loop_uint8_t; break;
    case 2: fn = ct__fill_loop_uint16_t; break;
    case 4: fn = ct__fill_loop_uint32_t; break;
    default: fn = ct__fill_loop_uint64_t; break;
    }
    ct__iter_init(&it, 1, ops);
    ct__iter_parallel(&it, fn, (void *)elem);
}

static const ct__backend ct__cpu_backend = {ct__cpu_alloc, ct__cpu_free, ct__cpu_copy, ct__cpu_fill};
static const ct__backend *ct__backends[CT_NUM_DEVICE_TYPES] = {&ct__cpu_backend, NULL};

static const ct__backend *ct__backend_for(ct_device_type type) { return ct__backends[type]; }

/* ==================== cpu/range.c ==================== */
// >>cpu/range.c
/* arange, linspace and logspace on the CPU, element for element as PyTorch
 * 1.13's x86 build (CPU capability AVX2) computes them.
 *
 * PyTorch fills arange and linspace with cpu_serial_kernel_vec: each chunk of
 * at::parallel_for (grain 32768) writes two 32-byte vectors at a time while
 * two fit, then the rest one element at a time. The scalar loop computes
 * element i from scratch; a vector computes its first element the same way,
 * rounds it to the output dtype, and steps its other lanes from that base, so
 * the two loops can differ in the last bit. Where each operation rounds, and
 * which products the compiler fused with the following addition into one FMA,
 * differs between the kernels and dtypes; ct__range_elem and ct__range_lane
 * record what was measured against PyTorch. logspace is a plain loop. */

/* a*b rounded on its own. PyTorch's kernel rounds these products before
 * adding; the volatile keeps a compiler that contracts a*b+c into an FMA
 * (gcc outside ISO C mode) from fusing them. */
static double ct__mul_rounded(double a, double b)
{
    volatile double p = a * b;
    return p;
}

static float ct__mulf_rounded(float a, float b)
{
    volatile float p = a * b;
    return p;
}

/* x rounded to half or bfloat16 (held in a float): what every operation on
 * c10::Half and c10::BFloat16 does to its float result. */
static float ct__round_half(float x, ct_dtype dt)
{
    return dt == CT_F16 ? ct__f16_to_float(ct__float_to_f16(x)) : ct__bf16_to_float(ct__float_to_bf16(x));
}

/* x rounded to the floating dtype dt. */
static double ct__round_to(double x, ct_dtype dt)
{
    switch (dt) {
    case CT_F32: return (float)x;
    case CT_F16: case CT_BF16: return ct__round_half((float)x, dt);
    default: return x;
    }
}

typedef enum ct__range_op { CT__ARANGE, CT__LINSPACE } ct__range_op;

/* One arange or linspace fill. start, end and step hold the values the kernel
 * computes with: arange's in its accumulate type (double for float32 and
 * float64, float for half and bfloat16), linspace's in the output dtype
 * (double for integers). */
typedef struct ct__range {
    ct__range_op op;
    ct_dtype dtype;
    char *data;
    double start, end, step;
    int64_t steps, halfway; /* linspace computes elements from halfway on back from end */
} ct__range;

/* Element i as the scalar loop computes it (start + step * i, or linspace's
 * end - step * (steps - i - 1)), before the store rounds it to the dtype. */
static double ct__range_elem(const ct__range *r, int64_t i)
{
    bool back = i >= r->halfway;
    double from = back ? r->end : r->start;
    /* end - step * k taken as end + step * -k: the same number, and a NaN
     * step keeps its sign, as x86's subtraction keeps it */
    double k = back ? -(double)(r->steps - i - 1) : (double)i;
    switch (r->dtype) {
    case CT_F16:
    case CT_BF16:
        if (r->op == CT__ARANGE) return fmaf((float)r->step, (float)k, (float)from); /* in float, fused */
        /* in the dtype: k, the product and the sum each rounded to it */
        return ct__round_half((float)from + ct__round_half((float)r->step * ct__round_half((float)k, r->dtype), r->dtype),
                              r->dtype);
    case CT_F32:
        if (r->op == CT__ARANGE) return fma(r->step, k, from); /* in double, fused */
        return fmaf((float)r->step, (float)k, (float)from);
    default: /* float64, and integer linspace: in double, fused */
        return fma(r->step, k, from);
    }
}

/* Lane k of a vector whose first element, as stored, is base. */
static double ct__range_lane(const ct__range *r, double base, int64_t k)
{
    switch (r->dtype) {
    case CT_F16:
    case CT_BF16:
        if (r->op == CT__ARANGE) return (float)base + ct__mulf_rounded((float)k, (float)r->step);
        return ct__round_half((float)base + ct__round_half(ct__round_half((float)k, r->dtype) * (float)r->step, r->dtype),
                              r->dtype);
    case CT_F32:
        if (r->op == CT__ARANGE) return fma((double)k, r->step, base);
        return (float)base + ct__mulf_rounded((float)k, (float)r->step);
    case CT_F64:
        if (r->op == CT__ARANGE) return fma((double)k, r->step, base);
        return base + ct__mul_rounded((double)k, r->step);
    default:
        return base + ct__mul_rounded((double)k, r->step);
    }
}

/* The vector of lanes elements from i: its base computed and stored as
 * element i, the other lanes stepped from the stored base. */
static void ct__range_vector(const ct__range *r, int64_t i, int64_t lanes)
{
    size_t es = ct_dtype_size(r->dtype);
    char *p = r->data + (size_t)i * es;
    ct__write_f64(p, r->dtype, ct__range_elem(r, i));
    double base = ct__read_f64(p, r->dtype);
    for (int64_t k = 1; k < lanes; k++) ct__write_f64(p + (size_t)k * es, r->dtype, ct__range_lane(r, base, k));
}

/* Elements [begin, end) of one parallel_for chunk: pairs of vectors while a
 * pair fits, then the scalar loop. */
static void ct__range_chunk(int64_t begin, int64_t end, void *ctx)
{
    const ct__range *r = (const ct__range *)ctx;
    size_t es = ct_dtype_size(r->dtype);
    int64_t lanes = 32 / (int64_t)es, i = begin; /* AVX2 vectors hold 32 bytes */
    for (; end - i >= 2 * lanes; i += 2 * lanes) {
        ct__range_vector(r, i, lanes);
        ct__range_vector(r, i + lanes, lanes);
    }
    for (; i < end; i++) ct__write_f64(r->data + (size_t)i * es, r->dtype, ct__range_elem(r, i));
}

static void ct__range_run(ct_tensor *t, const ct__range *r)
{
    ct__parallel_for(t->sizes[0], CT__GRAIN, ct__range_chunk, (void *)r);
}

/* start and step come in the kernel's accumulate type (see ct_arange). */
static void ct__cpu_arange(ct_tensor *t, ct_scalar start, ct_scalar step)
{
    int64_t n = t->sizes[0];
    if (!ct_dtype_is_floating(t->dtype)) { /* int64 arithmetic wraps, in vectors or not */
        uint64_t s = (uint64_t)start.v.i, d = (uint64_t)step.v.i;
        for (int64_t i = 0; i < n; i++)
            ct__write_i64((char *)ct__data(t) + (size_t)i * ct__esize(t), t->dtype, (int64_t)(s + d * (uint64_t)i));
        return;
    }
    ct__range r;
    r.op = CT__ARANGE;
    r.dtype = t->dtype;
    r.data = (char *)ct__data(t);
    r.start = ct_scalar_to_double(start);
    r.step = ct_scalar_to_double(step);
    r.end = 0;
    r.steps = r.halfway = n;
    ct__range_run(t, &r);
}

/* linspace's step, computed in the output dtype (double for integers). */
static double ct__linspace_step(double start, double end, int64_t steps, ct_dtype dt)
{
    switch (dt) {
    case CT_F16:
    case CT_BF16:
        return ct__round_half(ct__round_half((float)end - (float)start, dt) / ct__round_half((float)(steps - 1), dt), dt);
    case CT_F32:
        return ((float)end - (float)start) / (float)(steps - 1);
    default:
        return (end - start) / (double)(steps - 1);
    }
}

/* start and end come as the dtype holds them; steps >= 2. */
static void ct__cpu_linspace(ct_tensor *t, double start, double end)
{
    ct__range r;
    r.op = CT__LINSPACE;
    r.dtype = t->dtype;
    r.data = (char *)ct__data(t);
    r.start = start;
    r.end = end;
    r.steps = t->sizes[0];
    r.halfway = r.steps / 2;
    r.step = ct__linspace_step(start, end, r.steps, t->dtype);
    ct__range_run(t, &r);
}

typedef struct ct__logspace {
    char *data;
    ct_dtype dtype;
    double start, end, step, base;
    int64_t steps;
} ct__logspace;

/* Elements [begin, end): base ** exponent, the exponent computed in double
 * without FMA, the power stored as C++ stores a double in the dtype (through
 * a 32-bit integer for uint8, unlike c10::convert). */
static void ct__logspace_chunk(int64_t begin, int64_t end, void *ctx)
{
    const ct__logspace *g = (const ct__logspace *)ctx;
    size_t es = ct_dtype_size(g->dtype);
    for (int64_t i = begin; i < end; i++) {
        double x = i < g->steps / 2 ? g->start + ct__mul_rounded(g->step, (double)i)
                                    : g->end - ct__mul_rounded(g->step, (double)(g->steps - i - 1));
        double v = pow(g->base, x);
        char *p = g->data + (size_t)i * es;
        if (g->dtype == CT_U8) ct__write_i64(p, g->dtype, ct__trunc_i32(v));
        else ct__write_f64(p, g->dtype, v);
    }
}

/* start and end come as the dtype holds them; steps >= 2. */
static void ct__cpu_logspace(ct_tensor *t, double start, double end, double base)
{
    ct__logspace g;
    g.data = (char *)ct__data(t);
    g.dtype = t->dtype;
    g.start = start;
    g.end = end;
    g.base = base;
    g.steps = t->sizes[0];
    /* end - start in the dtype: integers subtract exactly (int64 wraps),
     * floating types round the difference to themselves */
    double diff = ct_dtype_is_floating(t->dtype) ? ct__round_to(end - start, t->dtype)
                                                  : (double)(int64_t)((uint64_t)ct__trunc_i64(end) - (uint64_t)ct__trunc_i64(start));
    g.step = diff / (double)(g.steps - 1);
    ct__parallel_for(g.steps, CT__GRAIN, ct__logspace_chunk, &g);
}

#endif /* CTORCH_IMPLEMENTATION */
