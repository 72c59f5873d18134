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

/* torch.set_printoptions. Start from ct_print_opts_init() (PyTorch's
 * defaults: precision 4, threshold 1000, edgeitems 3, linewidth 80, sci_mode
 * auto) and change what you need; every field is taken as given, so precision
 * 0 prints no decimals. sci_mode: 0 auto, 1 on, -1 off. The options are global,
 * as in PyTorch: do not change them while another thread prints. */
typedef struct ct_print_opts {
    int precision;
    int64_t threshold;
    int edgeitems;
    int linewidth;
    int sci_mode;
} ct_print_opts;
CTORCH_API ct_print_opts ct_print_opts_init(void);
CTORCH_API ct_print_opts ct_get_printoptions(void);
/* Fails (and changes nothing) for a negative precision or edgeitems. */
CTORCH_API ct_result ct_set_printoptions(ct_print_opts opts);
/* repr(t) into buf (snprintf's contract: returns the length it needs, writes at
 * most n bytes including the terminating NUL); a negative ct_result, with buf
 * set to "", when t is NULL. */
CTORCH_API int ct_to_string(const ct_tensor *t, char *buf, size_t n);
/* print(t): repr(t) and a newline on stdout (nothing for NULL, whose error is kept). */
CTORCH_API void ct_print(const ct_tensor *t);
/* print(t.shape): "torch.Size([2, 3])" and a newline. */
CTORCH_API void ct_print_shape(const ct_tensor *t);

/* ==================== ops/math.h ==================== */
// >>ops/math.h
/* Public math API: pointwise ops (and, as they come, reductions, scans,
 * sorting, joining). Every function mirrors the torch function of the same
 * name; the _ forms work in place on their first argument and return a
 * ct_result; the _scalar forms take a Python number for the second operand,
 * with PyTorch's promotion for numbers (int_tensor * 2 stays integral,
 * int_tensor * 2.5 becomes the default float dtype). */

/* torch.result_type(a, b) and torch.result_type(t, number). */
CTORCH_API ct_dtype ct_result_type(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_dtype ct_result_type_scalar(const ct_tensor *t, ct_scalar s);

/* ---------------------------------------------------------------- unary */

CTORCH_API ct_tensor *ct_neg(const ct_tensor *t);         /* torch.neg (-t); not for bool */
CTORCH_API ct_result ct_neg_(ct_tensor *t);
CTORCH_API ct_tensor *ct_abs(const ct_tensor *t);         /* torch.abs */
CTORCH_API ct_result ct_abs_(ct_tensor *t);
CTORCH_API ct_tensor *ct_floor(const ct_tensor *t);       /* torch.floor (integers unchanged) */
CTORCH_API ct_result ct_floor_(ct_tensor *t);
CTORCH_API ct_tensor *ct_exp(const ct_tensor *t);         /* torch.exp; integers give the default float dtype */
CTORCH_API ct_result ct_exp_(ct_tensor *t);
CTORCH_API ct_tensor *ct_log(const ct_tensor *t);         /* torch.log */
CTORCH_API ct_result ct_log_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sqrt(const ct_tensor *t);        /* torch.sqrt */
CTORCH_API ct_result ct_sqrt_(ct_tensor *t);
CTORCH_API ct_tensor *ct_tanh(const ct_tensor *t);        /* torch.tanh */
CTORCH_API ct_result ct_tanh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sigmoid(const ct_tensor *t);     /* torch.sigmoid */
CTORCH_API ct_result ct_sigmoid_(ct_tensor *t);
CTORCH_API ct_tensor *ct_relu(const ct_tensor *t);        /* torch.relu */
CTORCH_API ct_result ct_relu_(ct_tensor *t);
CTORCH_API ct_tensor *ct_isnan(const ct_tensor *t);       /* torch.isnan: bool */
CTORCH_API ct_tensor *ct_logical_not(const ct_tensor *t); /* torch.logical_not: bool */
CTORCH_API ct_result ct_logical_not_(ct_tensor *t);

/* ---------------------------------------------------------------- binary (broadcasting) */

CTORCH_API ct_tensor *ct_add(const ct_tensor *a, const ct_tensor *b);             /* torch.add (a + b) */
CTORCH_API ct_tensor *ct_add_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_add_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_add_scalar_(ct_tensor *a, ct_scalar b);
/* torch.add(a, b, alpha=alpha): a + alpha * b (and sub: a - alpha * b). */
CTORCH_API ct_tensor *ct_add_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_result ct_add_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_tensor *ct_sub(const ct_tensor *a, const ct_tensor *b);             /* torch.sub (a - b) */
CTORCH_API ct_tensor *ct_sub_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_sub_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_sub_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_sub_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_result ct_sub_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_tensor *ct_mul(const ct_tensor *a, const ct_tensor *b);             /* torch.mul (a * b) */
CTORCH_API ct_tensor *ct_mul_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_mul_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_mul_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_div(const ct_tensor *a, const ct_tensor *b);             /* torch.div (a / b, true division) */
CTORCH_API ct_tensor *ct_div_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_div_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_div_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_maximum(const ct_tensor *a, const ct_tensor *b);         /* torch.maximum (NaN propagates; no number form, as in PyTorch) */
CTORCH_API ct_tensor *ct_pow(const ct_tensor *a, const ct_tensor *b);             /* torch.pow (a ** b) */
CTORCH_API ct_tensor *ct_pow_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_pow_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_pow_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_eq(const ct_tensor *a, const ct_tensor *b);              /* torch.eq (a == b): bool */
CTORCH_API ct_tensor *ct_eq_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_eq_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_eq_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_lt(const ct_tensor *a, const ct_tensor *b);              /* torch.lt (a < b): bool */
CTORCH_API ct_tensor *ct_lt_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_lt_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_lt_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_logical_and(const ct_tensor *a, const ct_tensor *b);     /* torch.logical_and: bool */
CTORCH_API ct_result ct_logical_and_(ct_tensor *a, const ct_tensor *b);

/* The op table (for tests and tools): how many ops there are and their names. */
CTORCH_API int ct_op_count(void);
CTORCH_API const char *ct_op_name(int i);

/* ==================== ops/reduce.h ==================== */
// >>ops/reduce.h

/* ==================== ops/join.h ==================== */
// >>ops/join.h

/* ==================== ops/sort.h ==================== */
// >>ops/sort.h
/* Public sorting and selection API: sort, argsort, topk, kthvalue, unique,
 * unique_consecutive, nonzero, searchsorted.
 *
 * The ops that PyTorch answers with a named tuple of values and indices
 * (torch.return_types.sort, .topk, .kthvalue) write new tensors to *values and
 * *indices and return a ct_result; pass NULL for a result you do not need.
 * On failure both are set to NULL. Indices are int64. NaN counts as larger
 * than every number, as in PyTorch; all NaNs are equal to each other.
 *
 * Which of several equal elements comes first (and so the indices) is what
 * PyTorch 1.13's CPU kernels give: ctorch replays their unstable algorithms
 * (libstdc++'s std::sort, std::partial_sort, std::nth_element, and PyTorch's
 * quickselect) step for step where it matters, and sorts faster where it
 * does not. All functions are safe to call from several threads on
 * different tensors. */

/* torch.sort(input, dim, descending, stable): the values along dim in
 * ascending (or descending) order, and where each came from. A stable sort
 * keeps equal elements in their order; otherwise they come out as PyTorch's
 * default (unstable) sort leaves them. A 0-d tensor gives itself and index 0.
 * The results are laid out like the input (densely, when it has gaps). */
CTORCH_API ct_result ct_sort(const ct_tensor *input, int dim, bool descending, bool stable, ct_tensor **values,
                             ct_tensor **indices);

/* torch.argsort(input, dim, descending, stable): the indices of ct_sort. */
CTORCH_API ct_tensor *ct_argsort(const ct_tensor *input, int dim, bool descending, bool stable);

/* torch.topk(input, k, dim, largest, sorted): the k largest (or smallest)
 * elements along dim, contiguous results of size k along dim. With sorted
 * false the order of the k is PyTorch's (sorted anyway when k is at most
 * 1/64 of the dim). Error: "selected index k out of range". Bool inputs are
 * refused as in PyTorch; float16, which PyTorch 1.13 refuses, works. */
CTORCH_API ct_result ct_topk(const ct_tensor *input, int64_t k, int dim, bool largest, bool sorted,
                             ct_tensor **values, ct_tensor **indices);

/* torch.kthvalue(input, k, dim, keepdim): the k-th smallest element (k from 1)
 * along dim and its index; dim is removed unless keepdim. Float16 works
 * (PyTorch 1.13 refuses it); bool is refused as in PyTorch. */
CTORCH_API ct_result ct_kthvalue(const ct_tensor *input, int64_t k, int dim, bool keepdim, ct_tensor **values,
                                 ct_tensor **indices);

/* torch.unique(input, sorted, return_inverse, return_counts) of the flattened
 * input: the distinct values (1-D) in ascending order, or with sorted false
 * in the order PyTorch 1.13's hash set gives them; and, when the pointers are
 * given, the inverse (for each input element, the position of its value:
 * input's shape, int64) and the counts. -0 and 0 are one value (the first
 * seen is kept). Every NaN is a value of its own, with PyTorch 1.13's
 * quirks: count 0, inverse 0, and a place among the sorted values that
 * depends on the hash set. Float16 works (PyTorch 1.13 refuses it). */
CTORCH_API ct_result ct_unique(const ct_tensor *input, bool sorted, ct_tensor **output, ct_tensor **inverse,
                               ct_tensor **counts);

/* torch.unique(input, sorted, return_inverse, return_counts, dim): the
 * distinct slices along dim, in lexicographic order (PyTorch sorts them
 * whatever `sorted` says); inverse and counts have one entry per slice. */
CTORCH_API ct_result ct_unique_dim(const ct_tensor *input, int dim, bool sorted, ct_tensor **output,
                                   ct_tensor **inverse, ct_tensor **counts);

/* torch.unique_consecutive(input, return_inverse, return_counts): the first
 * value of every run of equal values of the flattened input, with the inverse
 * (input's shape) and the run lengths. */
CTORCH_API ct_result ct_unique_consecutive(const ct_tensor *input, ct_tensor **output, ct_tensor **inverse,
                                           ct_tensor **counts);

/* torch.unique_consecutive(input, return_inverse, return_counts, dim): the
 * same for runs of equal slices along dim. */
CTORCH_API ct_result ct_unique_consecutive_dim(const ct_tensor *input, int dim, ct_tensor **output,
                                               ct_tensor **inverse, ct_tensor **counts);

/* torch.nonzero(input): the int64 (n, input.dim()) indices of the nonzero
 * elements in row-major order (column-major in memory, as PyTorch lays it out).
 * NaN is nonzero, -0 is zero. */
CTORCH_API ct_tensor *ct_nonzero(const ct_tensor *input);

/* torch.nonzero(input, as_tuple=True): one 1-D int64 tensor of indices per
 * dim (one for a 0-d input), written to out, which has room for
 * max(1, ct_dim(input)) tensors; their number goes to *count. */
CTORCH_API ct_result ct_nonzero_as_tuple(const ct_tensor *input, ct_tensor **out, int *count);

/* torch.searchsorted's keyword arguments; zero for each is PyTorch's default.
 * side, when given, is "left" or "right" and must agree with right. sorter
 * holds int64 indices that sort sorted_sequence along its last dim. */
typedef struct ct_searchsorted_opts {
    bool out_int32;
    bool right;
    const char *side;
    const ct_tensor *sorter;
} ct_searchsorted_opts;

/* torch.searchsorted(sorted_sequence, input, ...): for each value, the index
 * where it would be inserted into the last dim of sorted_sequence (1-D, or
 * with the leading dims of input) to keep it sorted: before equal boundaries,
 * or after them with right. int64 results of input's shape (int32 with
 * out_int32). Different dtypes are promoted as for a binary op. */
CTORCH_API ct_tensor *ct_searchsorted(const ct_tensor *sorted_sequence, const ct_tensor *input,
                                      ct_searchsorted_opts opts);

/* torch.searchsorted(sorted_sequence, number, ...): a 0-d result; the number
 * takes part in type promotion as a Python number does. */
CTORCH_API ct_tensor *ct_searchsorted_scalar(const ct_tensor *sorted_sequence, ct_scalar value,
                                             ct_searchsorted_opts opts);

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

/* ==================== ops/reduce_ops.h ==================== */
// >>ops/reduce_ops.h
/* Private: the names of the reduce ops, for the op table (src/ops/optable.h). */
#define CT__REDUCE_OP_NAMES(X)

/* ==================== ops/join_ops.h ==================== */
// >>ops/join_ops.h
/* Private: the names of the join ops, for the op table (src/ops/optable.h). */
#define CT__JOIN_OP_NAMES(X)

/* ==================== ops/sort_ops.h ==================== */
// >>ops/sort_ops.h
/* Private: the names of the sort ops, for the op table (src/ops/optable.h),
 * and what their front ends (src/ops/sort.c) hand to a backend's kernels. */
#define CT__SORT_OP_NAMES(X) \
    X(sort) X(argsort) X(topk) X(kthvalue) X(unique) X(unique_consecutive) X(nonzero) X(searchsorted)

/* One call of a sorting kernel (ct__backend.sorting). The front end has
 * checked the arguments; which fields an op reads:
 *   sort, argsort  input; values (may be NULL) and indices, allocated with
 *                  input's shape; dim, descending, stable
 *   topk           the same, outputs of size k along dim; k, descending
 *                  (largest), sorted
 *   kthvalue       the same, outputs of size 1 along dim; k (1-based)
 *   unique, unique_consecutive
 *                  input contiguous; dim -1 for the flattened input, else 0
 *                  with input a contiguous matrix whose rows are compared;
 *                  sorted (unique only). The kernel makes values (the
 *                  uniques: 1-D, or rows), indices (the inverse: input's
 *                  shape, or one per row) and counts, the last two only when
 *                  want_inverse / want_counts.
 *   nonzero        input; the kernel makes indices: (n, ndim), column-major
 *   searchsorted   input (the values) and boundaries contiguous, of one
 *                  dtype; sorter NULL or contiguous int64 of boundaries'
 *                  shape, its entries in range; indices allocated (int32 or
 *                  int64, input's shape, contiguous); right */
typedef struct ct__sort_job {
    const ct_tensor *input, *boundaries, *sorter;
    ct_tensor *values, *indices, *counts;
    int dim;
    int64_t k;
    bool descending, stable, sorted, right, want_inverse, want_counts;
} ct__sort_job;

/* ==================== ops/optable.h ==================== */
// >>ops/optable.h
/* Private: the op table. Every pointwise op is one line here; the list makes
 * the op enum, the names, and the dtype rule each front end applies, and the
 * tests walk it so that no op escapes a golden test.
 *
 * X(name, arity, rule, forms, kernel):
 *   name    PyTorch's name (ct_<name> is the public function)
 *   arity   1 (unary) or 2 (binary)
 *   rule    how the result dtype follows from the inputs:
 *             SAME   the (promoted) input dtype
 *             FLOAT  the promoted dtype, integers and bool becoming the default float
 *             BOOL   bool (comparisons, tests, logic), computed in the promoted dtype
 *   forms   the public functions PyTorch has for it:
 *             U   ct_<name>(t)              UI  and ct_<name>_(t)
 *             B   ct_<name>(a, b)           BI  and ct_<name>_(a, b)
 *             BS  and ct_<name>_scalar(a, s)   BSI all four
 *   kernel  PyTorch's kernel name, for "not implemented for 'Bool'" messages
 */
#define CT__POINTWISE_OPS(X)                        \
    X(neg, 1, SAME, UI, "neg_cpu")                  \
    X(abs, 1, SAME, UI, "abs_cpu")                  \
    X(floor, 1, SAME, UI, "floor_vml_cpu")          \
    X(exp, 1, FLOAT, UI, "exp_vml_cpu")             \
    X(log, 1, FLOAT, UI, "log_vml_cpu")             \
    X(sqrt, 1, FLOAT, UI, "sqrt_vml_cpu")           \
    X(tanh, 1, FLOAT, UI, "tanh_vml_cpu")           \
    X(sigmoid, 1, FLOAT, UI, "sigmoid_cpu")         \
    X(relu, 1, SAME, UI, "clamp_min_cpu")           \
    X(isnan, 1, BOOL, U, "isnan_cpu")               \
    X(logical_not, 1, BOOL, UI, "logical_not_cpu")  \
    X(add, 2, SAME, BSI, "add_cpu")                 \
    X(sub, 2, SAME, BSI, "sub_cpu")                 \
    X(mul, 2, SAME, BSI, "mul_cpu")                 \
    X(div, 2, FLOAT, BSI, "div_true_cpu")           \
    X(maximum, 2, SAME, B, "maximum_cpu")           \
    X(pow, 2, SAME, BSI, "pow")                     \
    X(eq, 2, BOOL, BSI, "eq_cpu")                   \
    X(lt, 2, BOOL, BSI, "lt_cpu")                   \
    X(logical_and, 2, BOOL, BI, "logical_and_cpu")

/* Every op: the pointwise ops above, then the families that list their names
 * in their own headers (src/ops/*_ops.h). The enum and ct_op_name cover all;
 * pointwise ops come first, so ct__ops[] below is indexed by their enum. */
#define CT__FAMILY_OP_NAMES(X) CT__REDUCE_OP_NAMES(X) CT__JOIN_OP_NAMES(X) CT__SORT_OP_NAMES(X)

typedef enum ct__op {
#define CT__OP_ENUM(name) CT__OP_##name,
#define CT__OP_ENUM_POINTWISE(name, arity, rule, forms, kernel) CT__OP_##name,
    CT__POINTWISE_OPS(CT__OP_ENUM_POINTWISE) CT__FAMILY_OP_NAMES(CT__OP_ENUM)
#undef CT__OP_ENUM_POINTWISE
#undef CT__OP_ENUM
    CT__NUM_OPS
} ct__op;

static const char *const ct__op_names[CT__NUM_OPS] = {
#define CT__OP_NAME(name) #name,
#define CT__OP_NAME_POINTWISE(name, arity, rule, forms, kernel) #name,
    CT__POINTWISE_OPS(CT__OP_NAME_POINTWISE) CT__FAMILY_OP_NAMES(CT__OP_NAME)
#undef CT__OP_NAME_POINTWISE
#undef CT__OP_NAME
};

typedef enum ct__dtype_rule { CT__RULE_SAME, CT__RULE_FLOAT, CT__RULE_BOOL } ct__dtype_rule;

typedef struct ct__op_info {
    const char *name;
    int arity;
    ct__dtype_rule rule;
    const char *kernel;
} ct__op_info;

#define CT__POINTWISE_COUNT(name, arity, rule, forms, kernel) +1
enum { CT__NUM_POINTWISE = 0 CT__POINTWISE_OPS(CT__POINTWISE_COUNT) };
#undef CT__POINTWISE_COUNT

static const ct__op_info ct__ops[CT__NUM_POINTWISE] = {
#define CT__OP_INFO(name, arity, rule, forms, kernel) {#name, arity, CT__RULE_##rule, kernel},
    CT__POINTWISE_OPS(CT__OP_INFO)
#undef CT__OP_INFO
};

/* Extra arguments of a pointwise kernel (alpha of add/sub, a scalar's value...). */
typedef struct ct__op_args {
    double alpha;
    int64_t alpha_i;   /* alpha for integral dtypes */
    bool number_other; /* the second operand is a Python number (pow specialises on it) */
    ct_dtype compute;  /* the dtype PyTorch computes in, before float16/bfloat16 become float32 */
} ct__op_args;

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
    bool wrapped_number; /* a Python number made a 0-d tensor: lowest rank in type promotion */
};

/* What a device provides. The CPU backend is built in; ctorch_cuda.cu adds CUDA's. */
typedef struct ct__backend {
    void *(*alloc)(size_t nbytes, int device_index);
    void (*free)(void *ptr, int device_index);
    /* dst = src: src already broadcast to dst's shape (zero strides), any dtypes. */
    void (*copy)(ct_tensor *dst, const ct_tensor *src);
    /* Every element of dst set to the bytes at elem (one element of dst's dtype). */
    void (*fill)(ct_tensor *dst, const void *elem);
    /* Whether the backend has op's kernel for inputs of dtype dt. */
    bool (*has_pointwise)(ct__op op, ct_dtype dt);
    /* out = op(inputs): inputs of one dtype, broadcast to out's shape; out is
     * of that dtype (or bool for comparisons). */
    void (*pointwise)(ct__op op, ct_tensor *out, const ct_tensor *const *inputs, const ct__op_args *args);
    /* The sorting and selection ops (src/ops/sort_ops.h): CT_OK, or an error
     * such as running out of scratch memory. */
    ct_result (*sorting)(ct__op op, ct__sort_job *job);
} ct__backend;

/* The backend of a device type (NULL when it is not linked in). */
static const ct__backend *ct__backend_for(ct_device_type type);

static const ct_device ct__cpu = {CT_DEVICE_CPU, 0};

/* Element size of a tensor and a pointer to its first element (NULL when its
 * storage is empty, as for a tensor with no elements). */
static inline size_t ct__esize(const ct_tensor *t) { return ct_dtype_size(t->dtype); }
static inline char *ct__data(const ct_tensor *t)
{
    char *base = (char *)t->storage->data;
    return base ? base + (size_t)t->offset * ct__esize(t) : NULL;
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
/* The dims in the order PyTorch's TensorIterator iterates them, innermost
 * first, for operands broadcast to shape (NULL operands are skipped). */
static void ct__iter_perm(const ct_tensor *const *ops, int nops, const int64_t *shape, int ndim, int *perm);
/* Strides of a new dense output laid out like the inputs (in that order of
 * precedence), as TensorIterator allocates outputs. */
static void ct__dense_strides_for(const ct_tensor *const *inputs, int ninputs, const int64_t *shape, int ndim,
                                  int64_t *strides);
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

/* A scalar as one element of dtype dt, refusing values that overflow it, as
 * c10's checked_convert does (fill_, full, masked_fill). */
static ct_result ct__scalar_to_elem(ct_scalar s, ct_dtype dt, void *out)
{
    dt = ct__resolve(dt);
    if (s.kind == CT_F64) {
        double f = s.v.f, lo, hi;
        bool overflow = false;
        switch (dt) {
        case CT_U8: lo = 0, hi = 255; break; /* floats do not wrap, unlike ints below */
        case CT_I8: lo = -128, hi = 127; break;
        case CT_I16: lo = -32768, hi = 32767; break;
        case CT_I32: lo = -2147483648.0, hi = 2147483647.0; break;
        case CT_I64: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
        case CT_F16: lo = -65504, hi = 65504; break;
        case CT_BF16: lo = -3.3895313892515355e38, hi = 3.3895313892515355e38; break;
        case CT_F32: lo = -FLT_MAX, hi = FLT_MAX; break;
        default: lo = -INFINITY, hi = INFINITY; break;
        }
        if (ct__is_integral(dt)) overflow = f != f || f < lo || f > hi;
        else if (dt != CT_BOOL) overflow = !isinf(f) && (f < lo || f > hi);
        if (overflow)
            return ct__fail(CT_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                            ct__dtype_cname(dt));
        ct__write_f64(out, dt, f);
        return CT_OK;
    }
    int64_t i = s.kind == CT_BOOL ? (int64_t)s.v.b : s.v.i;
    bool overflow = false;
    switch (dt) {
    case CT_U8: overflow = i > 255 || i < -255; break; /* negatives wrap (two's complement) */
    case CT_I8: overflow = i < -128 || i > 127; break;
    case CT_I16: overflow = i < -32768 || i > 32767; break;
    case CT_I32: overflow = i < INT32_MIN || i > INT32_MAX; break;
    case CT_F16: overflow = i < -65504 || i > 65504; break;
    default: break;
    }
    if (overflow)
        return ct__fail(CT_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                        ct__dtype_cname(dt));
    ct__write_i64(out, dt, i);
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
void *ct_data_ptr(const ct_tensor *t) { return t ? ct__data(t) : NULL; }

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

/* An uninitialised tensor shaped like t: with t's strides when t is dense
 * (PyTorch's preserve_format), contiguous otherwise. */
static ct_tensor *ct__empty_like(const ct_tensor *t, ct_dtype dtype)
{
    dtype = dtype == CT_DEFAULT ? t->dtype : dtype;
    const int64_t *strides = ct__is_dense(t) ? t->strides : NULL;
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
        ct__fail(CT_ERR_INDEX, "slice() cannot be applied to a 0-dim tensor.");
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

static ct_tensor *ct__filled(ct_shape shape, ct_dtype dtype, ct_scalar value)
{
    if (ct__check_shape(shape, "full") != CT_OK) return NULL;
    if (dtype != CT_DEFAULT && !ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "invalid dtype %d", (int)dtype);
        return NULL;
    }
    uint64_t elem = 0;
    if (ct__scalar_to_elem(value, dtype, &elem) != CT_OK) return NULL; /* before allocating */
    ct_tensor *t = ct__alloc(shape.size, shape.ndim, dtype, ct__cpu);
    if (t && ct_numel(t)) ct__backend_for(CT_DEVICE_CPU)->fill(t, &elem);
    return t;
}

ct_tensor *ct_empty(ct_shape shape, ct_dtype dtype)
{
    if (ct__check_shape(shape, "empty") != CT_OK) return NULL;
    if (dtype != CT_DEFAULT && !ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "invalid dtype %d", (int)dtype);
        return NULL;
    }
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
    return ct__empty_like(t, dtype);
}

ct_tensor *ct_full_like(const ct_tensor *t, ct_scalar value, ct_dtype dtype)
{
    uint64_t elem = 0;
    CT__ARG(t, "self", 1);
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
    int64_t st[CT_MAX_DIMS], numel, last = 0;
    if (ct__check_shape(shape, "from_blob") != CT_OK) return NULL;
    if (!ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "from_blob(): the dtype of the memory must be given");
        return NULL;
    }
    if (!ct__numel_of(shape.size, shape.ndim, &numel)) {
        char buf[256];
        ct__fail(CT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s",
                 ct__shape_str(shape.size, shape.ndim, buf, sizeof buf));
        return NULL;
    }
    if (strides) memcpy(st, strides, (size_t)shape.ndim * sizeof(int64_t));
    else ct__contiguous_strides(shape.size, shape.ndim, st);
    for (int d = 0; d < shape.ndim; d++) {
        if (st[d] < 0) {
            ct__fail(CT_ERR_RUNTIME, "from_blob(): negative strides are not supported, got stride %lld at dim %d",
                     (long long)st[d], d);
            return NULL;
        }
        if (shape.size[d] > 1) last += (shape.size[d] - 1) * st[d];
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
    ct__storage_release(s);
    return t;
}

ct_tensor *ct_scalar_tensor(ct_scalar value, ct_dtype dtype)
{
    return ct__filled(CT_SHAPE0, dtype == CT_DEFAULT ? ct__scalar_dtype(value) : dtype, value);
}

/* ---------------------------------------------------------------- ranges */

ct_tensor *ct_arange(ct_scalar start, ct_scalar end, ct_scalar step, ct_dtype dtype)
{
    bool all_int = start.kind != CT_F64 && end.kind != CT_F64 && step.kind != CT_F64;
    dtype = dtype != CT_DEFAULT ? dtype : all_int ? CT_I64 : ct__default_dtype;
    if (!ct__dtype_valid(dtype) || dtype == CT_BOOL) {
        ct__fail(CT_ERR_RUNTIME, "\"arange_cpu\" not implemented for '%s'", dtype == CT_BOOL ? "Bool" : "?");
        return NULL;
    }
    double xs = ct_scalar_to_double(start), xe = ct_scalar_to_double(end), xd = ct_scalar_to_double(step);
    double size_d;
    if (dtype == CT_I64 && all_int) { /* int64 is more precise than double */
        int64_t is = start.kind == CT_BOOL ? start.v.b : start.v.i, ie = end.kind == CT_BOOL ? end.v.b : end.v.i;
        int64_t id = step.kind == CT_BOOL ? step.v.b : step.v.i;
        size_d = id ? ceil((double)(ie - is) / (double)id) : 0;
    } else {
        size_d = ceil((xe - xs) / xd);
    }
    if (!(xd > 0 || xd < 0)) {
        ct__fail(CT_ERR_RUNTIME, "step must be nonzero");
        return NULL;
    }
    if (!isfinite(xs) || !isfinite(xe)) {
        char a[64], b[64];
        snprintf(a, sizeof a, start.kind == CT_F64 ? "%g" : "%.0f", xs);
        snprintf(b, sizeof b, end.kind == CT_F64 ? "%g" : "%.0f", xe);
        ct__fail(CT_ERR_RUNTIME, "unsupported range: %s -> %s", a, b);
        return NULL;
    }
    if (!((xd > 0 && xe >= xs) || (xd < 0 && xe <= xs))) {
        ct__fail(CT_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign");
        return NULL;
    }
    if (!(size_d >= 0 && size_d <= 9.2233720368547758e18)) {
        ct__fail(CT_ERR_RUNTIME, "invalid size, possible overflow?");
        return NULL;
    }
    int64_t n = (int64_t)size_d;
    ct_tensor *t = ct__alloc(&n, 1, dtype, ct__cpu);
    if (t) ct__cpu_arange(t, start, step);
    return t;
}

ct_tensor *ct_linspace(double start, double end, int64_t steps, ct_dtype dtype)
{
    if (steps < 0) {
        ct__fail(CT_ERR_RUNTIME, "number of steps must be non-negative");
        return NULL;
    }
    ct_tensor *t = ct_empty(CT_SHAPE(steps), dtype);
    if (t) ct__cpu_linspace(t, start, end);
    return t;
}

ct_tensor *ct_logspace(double start, double end, int64_t steps, double base, ct_dtype dtype)
{
    if (steps < 0) {
        ct__fail(CT_ERR_RUNTIME, "number of steps must be non-negative");
        return NULL;
    }
    ct_tensor *t = ct_empty(CT_SHAPE(steps), dtype);
    if (t) ct__cpu_logspace(t, start, end, base);
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
    ct_tensor *r;
    if (t->ndim == 2) {
        r = ct_clone(ct_diagonal(t, diagonal, 0, 1));
    } else {
        int64_t n = t->sizes[0] + (diagonal < 0 ? -diagonal : diagonal);
        r = ct_zeros(CT_SHAPE(n, n), t->dtype);
        if (r && ct_copy_(ct_diagonal(r, diagonal, 0, 1), t) != CT_OK) r = NULL;
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* A copy of t with the elements on the discarded side of diagonal k zeroed:
 * below it (keep_upper, triu) or above it (tril), over the last two dims. */
static ct_tensor *ct__triangle(const ct_tensor *t, int64_t k, bool keep_upper)
{
    if (t->ndim < 2) {
        ct__fail(CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-%d, %d], but got -2)",
                 t->ndim ? t->ndim : 1, t->ndim ? t->ndim - 1 : 0);
        return NULL;
    }
    ct_tensor *r = ct__alloc(t->sizes, t->ndim, t->dtype, t->storage->device);
    if (!r) return NULL;
    ct__copy_unchecked(r, t);
    int64_t rows = r->sizes[r->ndim - 2], cols = r->sizes[r->ndim - 1];
    int64_t batch = rows > 0 && cols > 0 ? ct_numel(r) / (rows * cols) : 0;
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
/* Indexing in Python's notation: t[spec] and t[spec] = value.
 *
 * As in PyTorch (torch/csrc/autograd/python_variable_indexing.cpp), basic
 * items (ints, slices, None, ...) are applied first as views; tensor, list
 * and mask items are recorded against the dims of that view and applied last
 * by one advanced-indexing gather (or scatter for assignment). */

typedef enum ct__ix_kind {
    CT__IX_INT,
    CT__IX_SLICE,
    CT__IX_NONE,
    CT__IX_ELLIPSIS,
    CT__IX_BOOL,
    CT__IX_TENSOR
} ct__ix_kind;

typedef struct ct__ix_item {
    ct__ix_kind kind;
    int64_t i;                  /* INT; slice start */
    int64_t stop, step;         /* SLICE (start in i) */
    bool b;                     /* BOOL */
    const ct_tensor *t;         /* TENSOR */
    bool from_list;             /* TENSOR written as a list literal */
} ct__ix_item;

#define CT__IX_MAX 64

/* ---------------------------------------------------------------- parsing */

typedef struct ct__ix_parser {
    const char *spec, *p;
    va_list *args;
} ct__ix_parser;

static ct_result ct__ix_syntax(const ct__ix_parser *ps, const char *what)
{
    return ct__fail(CT_ERR_VALUE, "index: %s at position %d of \"%s\"", what, (int)(ps->p - ps->spec), ps->spec);
}

static void ct__ix_skip_space(ct__ix_parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n') ps->p++;
}

static bool ct__ix_word(ct__ix_parser *ps, const char *w)
{
    size_t n = strlen(w);
    if (strncmp(ps->p, w, n) || ((ps->p[n] >= 'a' && ps->p[n] <= 'z') || (ps->p[n] >= 'A' && ps->p[n] <= 'Z')))
        return false;
    ps->p += n;
    return true;
}

/* An integer literal or %d; false (nothing consumed) when there is none. */
static bool ct__ix_int(ct__ix_parser *ps, int64_t *out)
{
    ct__ix_skip_space(ps);
    if (ps->p[0] == '%' && ps->p[1] == 'd') {
        ps->p += 2;
        *out = va_arg(*ps->args, int);
        return true;
    }
    const char *q = ps->p;
    if (*q == '-' || *q == '+') q++;
    if (*q < '0' || *q > '9') return false;
    char *end;
    long long v = strtoll(ps->p, &end, 10);
    ps->p = end;
    *out = v;
    return true;
}

/* A (nested) list literal of ints, or of True/False, being read. */
typedef struct ct__ix_list_state {
    int64_t sizes[CT_MAX_DIMS];
    bool sized[CT_MAX_DIMS]; /* the first list at a depth fixes its length */
    int ndim;                /* depth of the values, -1 until the first one */
    bool has_bool, has_int;
    int64_t *vals, n, cap;
} ct__ix_list_state;

static bool ct__ix_list_push(ct__ix_list_state *ls, int64_t v)
{
    if (ls->n == ls->cap) {
        int64_t cap = ls->cap ? ls->cap * 2 : 16;
        int64_t *grown = (int64_t *)CT_REALLOC(ls->vals, (size_t)cap * sizeof *grown);
        if (!grown) return false;
        ls->vals = grown;
        ls->cap = cap;
    }
    ls->vals[ls->n++] = v;
    return true;
}

/* One list at `depth` (the '[' not yet consumed); false on malformed input. */
static bool ct__ix_list_read(ct__ix_parser *ps, ct__ix_list_state *ls, int depth)
{
    int64_t count = 0;
    if (depth >= CT_MAX_DIMS) return false;
    ps->p++; /* '[' */
    for (;;) {
        ct__ix_skip_space(ps);
        if (*ps->p == ']') break;
        int64_t v;
        if (*ps->p == '[') {
            if (!ct__ix_list_read(ps, ls, depth + 1)) return false;
        } else {
            if (ct__ix_word(ps, "True") || ct__ix_word(ps, "False")) {
                v = ps->p[-2] == 'u'; /* Tr-u-e */
                ls->has_bool = true;
            } else if (ct__ix_int(ps, &v)) {
                ls->has_int = true;
            } else {
                return false;
            }
            if (ls->ndim < 0) ls->ndim = depth + 1;
            if (ls->ndim != depth + 1 || !ct__ix_list_push(ls, v)) return false;
        }
        count++;
        ct__ix_skip_space(ps);
        if (*ps->p == ',') ps->p++;
        else if (*ps->p != ']') return false;
    }
    ps->p++; /* ']' */
    if (ls->ndim < 0 && count == 0) ls->ndim = depth + 1; /* [] is a 1-D empty index */
    if (ls->sized[depth] && ls->sizes[depth] != count) return false; /* ragged */
    ls->sized[depth] = true;
    ls->sizes[depth] = count;
    return true;
}

/* The list literal at ps as an int64 (or bool) tensor, as torch.tensor(list) makes it. */
static ct_tensor *ct__ix_list(ct__ix_parser *ps)
{
    ct__ix_list_state ls;
    memset(&ls, 0, sizeof ls);
    ls.ndim = -1;
    ct_tensor *r = NULL;
    if (!ct__ix_list_read(ps, &ls, 0) || ls.ndim > CT_MAX_DIMS) ct__ix_syntax(ps, "malformed list");
    else if (ls.has_bool && ls.has_int) ct__ix_syntax(ps, "a list index mixes ints and booleans");
    else r = ct_empty(ct_shape_make(ls.ndim, ls.sizes), ls.has_bool ? CT_BOOL : CT_I64);
    for (int64_t i = 0; r && i < ls.n; i++) ct__write_i64((char *)ct__data(r) + (size_t)i * ct__esize(r), r->dtype, ls.vals[i]);
    CT_FREE(ls.vals);
    return r;
}

/* PyTorch (like old NumPy) reads a lone list that holds lists as a tuple:
 * x[[[0, 1], [2, 0]]] is x[[0, 1], [2, 0]]. */
static ct_result ct__ix_split_nested_list(ct__ix_item *items, int *nitems)
{
    if (*nitems != 1 || items[0].kind != CT__IX_TENSOR || !items[0].from_list || items[0].t->ndim < 2) return CT_OK;
    const ct_tensor *list = items[0].t;
    if (list->sizes[0] > CT__IX_MAX) return ct__fail(CT_ERR_INDEX, "too many indices for tensor");
    for (int64_t i = 0; i < list->sizes[0]; i++) {
        items[i].kind = CT__IX_TENSOR;
        items[i].from_list = true;
        items[i].t = ct_select(list, 0, i);
        if (!items[i].t) return ct_last_error_code();
    }
    *nitems = (int)list->sizes[0];
    return CT_OK;
}

/* The items of spec, in order. Tensors made for list literals belong to the
 * caller's (internal) scope. */
static ct_result ct__ix_parse(const char *spec, va_list *args, ct__ix_item *items, int *nitems)
{
    ct__ix_parser ps = {spec, spec, args};
    int n = 0;
    ct__ix_skip_space(&ps);
    if (!*ps.p) return ct__ix_syntax(&ps, "empty index");
    for (;;) {
        ct__ix_item it;
        memset(&it, 0, sizeof it);
        if (n == CT__IX_MAX) return ct__ix_syntax(&ps, "too many items");
        ct__ix_skip_space(&ps);
        if (strncmp(ps.p, "...", 3) == 0) {
            ps.p += 3;
            it.kind = CT__IX_ELLIPSIS;
        } else if (ct__ix_word(&ps, "None")) {
            it.kind = CT__IX_NONE;
        } else if (ct__ix_word(&ps, "True") || ct__ix_word(&ps, "False")) {
            it.kind = CT__IX_BOOL;
            it.b = ps.p[-2] == 'u'; /* Tr-u-e */
        } else if (ps.p[0] == '%' && ps.p[1] == 't') {
            ps.p += 2;
            it.kind = CT__IX_TENSOR;
            it.t = va_arg(*args, const ct_tensor *);
            if (!it.t) return ct__null_arg("ct_index", "indices", n + 2);
        } else if (*ps.p == '[') {
            it.kind = CT__IX_TENSOR;
            it.from_list = true;
            it.t = ct__ix_list(&ps);
            if (!it.t) return ct_last_error_code();
        } else {
            bool has_start = ct__ix_int(&ps, &it.i);
            ct__ix_skip_space(&ps);
            if (*ps.p == ':') { /* a slice: start:stop:step, each part optional */
                ps.p++;
                it.kind = CT__IX_SLICE;
                if (!has_start) it.i = 0;
                if (!ct__ix_int(&ps, &it.stop)) it.stop = CT_END;
                ct__ix_skip_space(&ps);
                it.step = 1;
                if (*ps.p == ':') {
                    ps.p++;
                    if (!ct__ix_int(&ps, &it.step)) it.step = 1;
                }
            } else if (has_start) {
                it.kind = CT__IX_INT;
            } else {
                return ct__ix_syntax(&ps, "expected an index");
            }
        }
        items[n++] = it;
        ct__ix_skip_space(&ps);
        if (!*ps.p) break;
        if (*ps.p != ',') return ct__ix_syntax(&ps, "expected ','");
        ps.p++;
        ct__ix_skip_space(&ps);
        if (!*ps.p) break; /* a trailing comma, as in x[1,] */
    }
    *nitems = n;
    return ct__ix_split_nested_list(items, nitems);
}

/* ---------------------------------------------------------------- basic indexing */

/* PyTorch's legacy type names, used by index_put's dtype message. */
static const char *ct__scalar_type_name(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: return "Bool";
    case CT_U8: return "Byte";
    case CT_I8: return "Char";
    case CT_I16: return "Short";
    case CT_I32: return "Int";
    case CT_I64: return "Long";
    case CT_F16: return "Half";
    case CT_BF16: return "BFloat16";
    case CT_F64: return "Double";
    default: return "Float";
    }
}

static bool ct__is_mask(const ct_tensor *t) { return t->dtype == CT_BOOL || t->dtype == CT_U8; }

/* How many dims of the indexed tensor an item consumes. */
static int ct__ix_consumes(const ct__ix_item *it)
{
    switch (it->kind) {
    case CT__IX_INT: case CT__IX_SLICE: return 1;
    case CT__IX_TENSOR:
        if (it->t->ndim == 0) return ct__is_mask(it->t) ? 0 : 1;
        return ct__is_mask(it->t) ? it->t->ndim : 1;
    default: return 0;
    }
}

/* cur[..., i] at dim; orig_dim is that dim's number in the indexed tensor, for the message. */
static ct_tensor *ct__ix_select(const ct_tensor *cur, int dim, int orig_dim, int64_t i)
{
    if (cur->ndim == 0) {
        ct__fail(CT_ERR_INDEX, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                               "in C++ to convert a 0-dim tensor to a number");
        return NULL;
    }
    int64_t size = cur->sizes[dim];
    if (i < -size || i >= size) {
        ct__fail(CT_ERR_INDEX, "index %lld is out of bounds for dimension %d with size %lld", (long long)i, orig_dim,
                 (long long)size);
        return NULL;
    }
    return ct_select(cur, dim, i);
}

/* Index tensors recorded per dim of the basic-indexed view (NULL: not indexed). */
typedef struct ct__ix_adv {
    const ct_tensor *index[CT_MAX_DIMS];
    int count;
} ct__ix_adv;

/* Apply the basic items to t as views; record the advanced ones in adv.
 * Returns the view (owned by the open scope) or NULL. */
static ct_tensor *ct__ix_apply_basic(const ct_tensor *t, const ct__ix_item *items, int n, ct__ix_adv *adv)
{
    int consumed = 0, dim = 0, orig_dim = 0; /* orig_dim: dims of t used so far */
    bool ellipsis_seen = false;
    for (int k = 0; k < n; k++) {
        /* long, byte or bool tensors; a 0-d one of any integral dtype acts as an int */
        const ct_tensor *ix = items[k].kind == CT__IX_TENSOR ? items[k].t : NULL;
        if (ix && (ix->ndim == 0 ? ct_dtype_is_floating(ix->dtype) : !ct__is_mask(ix) && ix->dtype != CT_I64)) {
            ct__fail(CT_ERR_INDEX, "tensors used as indices must be long, byte or bool tensors");
            return NULL;
        }
        consumed += ct__ix_consumes(&items[k]);
    }
    /* a lone int or slice goes straight to select() or slice(), as in PyTorch's getitem fast path */
    bool lone = n == 1 && (items[0].kind == CT__IX_SLICE || items[0].kind == CT__IX_INT);
    if (consumed > t->ndim && !lone) {
        ct__fail(CT_ERR_INDEX, "too many indices for tensor of dimension %d", t->ndim);
        return NULL;
    }
    memset(adv, 0, sizeof *adv);
    ct_tensor *cur = ct_detach(t);
    for (int k = 0; k < n && cur; k++) {
        const ct__ix_item *it = &items[k];
        switch (it->kind) {
        case CT__IX_INT: cur = ct__ix_select(cur, dim, orig_dim, it->i); break;
        case CT__IX_SLICE: cur = ct_slice(cur, dim++, it->i, it->stop, it->step); break;
        case CT__IX_NONE: cur = ct_unsqueeze(cur, dim++); break;
        case CT__IX_ELLIPSIS:
            if (!ellipsis_seen) dim += t->ndim - consumed, orig_dim += t->ndim - consumed;
            ellipsis_seen = true;
            break;
        case CT__IX_BOOL: /* x[True] adds a dim of size 1, x[False] one of size 0 */
            cur = ct_unsqueeze(cur, dim);
            adv->index[dim++] = ct_zeros(CT_SHAPE(it->b ? 1 : 0), CT_I64);
            adv->count++;
            break;
        case CT__IX_TENSOR: {
            const ct_tensor *ix = it->t;
            if (ix->ndim == 0 && !ct__is_mask(ix)) { /* a 0-d integer tensor acts as an int */
                cur = ct__ix_select(cur, dim, orig_dim, ct_item_int(ix));
            } else if (ix->ndim == 0) { /* a 0-d mask acts as True/False */
                cur = ct_unsqueeze(cur, dim);
                adv->index[dim++] = ct_zeros(CT_SHAPE(ct_item_int(ix) ? 1 : 0), CT_I64);
                adv->count++;
            } else {
                adv->index[dim] = ix;
                adv->count++;
                dim += ct__is_mask(ix) ? ix->ndim : 1;
            }
            break;
        }
        }
        orig_dim += ct__ix_consumes(it);
    }
    return cur;
}

/* ---------------------------------------------------------------- advanced indexing */

/* The plan of an advanced index: masks replaced by their nonzero positions,
 * all index tensors broadcast to one shape, and where the result puts it. */
typedef struct ct__ix_plan {
    int ndim;                      /* of the indexed view */
    const ct_tensor *index[CT_MAX_DIMS]; /* int64, broadcast to bshape (NULL: dim not indexed) */
    int64_t bshape[CT_MAX_DIMS];
    int bdims;
    int first;                     /* result dims before the broadcast block (adjacent indices) */
    int64_t out_sizes[CT_MAX_DIMS];
    int out_ndim;
} ct__ix_plan;

/* The int64 coordinates of a mask's set elements, one tensor per mask dim. */
static ct_result ct__ix_mask_to_indices(const ct_tensor *self, int dim, const ct_tensor *mask, const ct_tensor **out)
{
    char b1[256], b2[256];
    for (int j = 0; j < mask->ndim; j++)
        if (dim + j >= self->ndim || mask->sizes[j] != self->sizes[dim + j])
            return ct__fail(CT_ERR_INDEX,
                            "The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at "
                            "index %d",
                            ct__shape_str(mask->sizes, mask->ndim, b1, sizeof b1), j,
                            ct__shape_str(self->sizes, self->ndim, b2, sizeof b2), dim + j);
    ct_tensor *m = ct_contiguous(mask);
    if (!m) return ct_last_error_code();
    int64_t numel = ct_numel(m), count = 0;
    const uint8_t *p = (const uint8_t *)ct__data(m);
    for (int64_t i = 0; i < numel; i++) count += p[i] != 0;
    ct_tensor *coords[CT_MAX_DIMS];
    for (int j = 0; j < m->ndim; j++) {
        coords[j] = ct_empty(CT_SHAPE(count), CT_I64);
        if (!coords[j]) return ct_last_error_code();
        out[j] = coords[j];
    }
    for (int64_t i = 0, c = 0; i < numel; i++) {
        if (!p[i]) continue;
        int64_t rem = i;
        for (int j = m->ndim - 1; j >= 0; j--) { /* unravel i, the last dim fastest */
            ((int64_t *)ct__data(coords[j]))[c] = rem % m->sizes[j];
            rem /= m->sizes[j];
        }
        c++;
    }
    return CT_OK;
}

static ct_result ct__ix_plan_make(const ct_tensor *self, const ct__ix_adv *adv, ct__ix_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->ndim = self->ndim;
    for (int d = 0; d < self->ndim; d++) {
        const ct_tensor *ix = adv->index[d];
        if (!ix) continue;
        if (ct__is_mask(ix)) {
            if (ct__ix_mask_to_indices(self, d, ix, &plan->index[d]) != CT_OK) return ct_last_error_code();
            d += ix->ndim - 1;
        } else {
            plan->index[d] = ix;
        }
    }
    /* broadcast the index tensors together */
    bool any = false;
    for (int d = 0; d < plan->ndim; d++) {
        const ct_tensor *ix = plan->index[d];
        if (!ix) continue;
        if (!any) {
            memcpy(plan->bshape, ix->sizes, sizeof plan->bshape);
            plan->bdims = ix->ndim;
            any = true;
        } else if (ct__broadcast_shapes(plan->bshape, plan->bdims, ix->sizes, ix->ndim, plan->bshape,
                                        &plan->bdims) != CT_OK) {
            char b1[256];
            return ct__fail(CT_ERR_INDEX, "shape mismatch: indexing tensors could not be broadcast together with "
                                          "shapes %s", ct__shape_str(ix->sizes, ix->ndim, b1, sizeof b1));
        }
    }
    for (int d = 0; d < plan->ndim; d++) {
        if (!plan->index[d]) continue;
        ct_tensor *e = ct_expand(plan->index[d], ct_shape_make(plan->bdims, plan->bshape));
        if (!e) return ct_last_error_code();
        plan->index[d] = e;
        /* every index in range: negatives count from the end */
        int64_t n = ct_numel(e), size = self->sizes[d];
        ct_tensor *c = ct_contiguous(e);
        if (!c) return ct_last_error_code();
        const int64_t *v = (const int64_t *)ct__data(c);
        for (int64_t i = 0; i < n; i++)
            if (v[i] < -size || v[i] >= size)
                return ct__fail(CT_ERR_INDEX, "index %lld is out of bounds for dimension %d with size %lld",
                                (long long)v[i], d, (long long)size);
    }
    /* adjacent indexed dims keep their place in the result; separated ones go first */
    int lo = -1, hi = -1;
    bool adjacent = true;
    for (int d = 0; d < plan->ndim; d++)
        if (plan->index[d]) {
            if (lo < 0) lo = d;
            else if (hi != d - 1) adjacent = false;
            hi = d;
        }
    plan->first = adjacent ? lo : 0;
    int n = 0;
    for (int d = 0; d < plan->first; d++) plan->out_sizes[n++] = self->sizes[d];
    for (int d = 0; d < plan->bdims; d++) plan->out_sizes[n++] = plan->bshape[d];
    for (int d = plan->first; d < plan->ndim; d++)
        if (!plan->index[d]) plan->out_sizes[n++] = self->sizes[d];
    if (n > CT_MAX_DIMS) return ct__fail(CT_ERR_VALUE, "index: ctorch supports at most %d dimensions", CT_MAX_DIMS);
    plan->out_ndim = n;
    return CT_OK;
}

/* A stack view of `base` with the given dims picked out: no allocation, no refcount. */
static void ct__ix_subview(ct_tensor *out, const ct_tensor *base, int64_t offset, const int64_t *sizes,
                           const int64_t *strides, int ndim)
{
    *out = *base;
    out->offset = offset;
    out->ndim = ndim;
    memcpy(out->sizes, sizes, (size_t)ndim * sizeof(int64_t));
    memcpy(out->strides, strides, (size_t)ndim * sizeof(int64_t));
}

/* Walk every (leading, broadcast) position of the plan and copy one block of
 * the not-indexed dims: result <- self (gather) or self <- value (scatter). */
static void ct__ix_walk(const ct_tensor *self, const ct__ix_plan *plan, ct_tensor *other, bool scatter)
{
    int64_t lead = 1, bnumel = 1;
    for (int d = 0; d < plan->first; d++) lead *= self->sizes[d];
    for (int d = 0; d < plan->bdims; d++) bnumel *= plan->bshape[d];
    /* the block: self's not-indexed dims after `first`, and other's trailing dims */
    int64_t bsz[CT_MAX_DIMS], sst[CT_MAX_DIMS], ost[CT_MAX_DIMS];
    int bn = 0;
    for (int d = plan->first; d < plan->ndim; d++)
        if (!plan->index[d]) {
            bsz[bn] = self->sizes[d];
            sst[bn] = self->strides[d];
            ost[bn] = other->strides[plan->first + plan->bdims + bn];
            bn++;
        }
    const ct__backend *be = ct__backend_for(self->storage->device.type);
    for (int64_t l = 0; l < lead; l++) {
        int64_t s_off = self->offset, o_off = other->offset, rem = l;
        for (int d = plan->first - 1; d >= 0; d--) { /* unravel l over the leading dims */
            int64_t i = rem % self->sizes[d];
            rem /= self->sizes[d];
            s_off += i * self->strides[d];
            o_off += i * other->strides[d];
        }
        for (int64_t b = 0; b < bnumel; b++) {
            int64_t so = s_off, oo = o_off;
            rem = b;
            for (int d = plan->bdims - 1; d >= 0; d--) { /* unravel b over the broadcast block */
                oo += (rem % plan->bshape[d]) * other->strides[plan->first + d];
                rem /= plan->bshape[d];
            }
            for (int d = 0; d < plan->ndim; d++) {
                const ct_tensor *ix = plan->index[d];
                if (!ix) continue;
                int64_t ioff = ix->offset, r2 = b;
                for (int q = plan->bdims - 1; q >= 0; q--) {
                    ioff += (r2 % plan->bshape[q]) * ix->strides[q];
                    r2 /= plan->bshape[q];
                }
                int64_t v = ((const int64_t *)ix->storage->data)[ioff];
                so += (v < 0 ? v + self->sizes[d] : v) * self->strides[d];
            }
            ct_tensor sv, ov;
            ct__ix_subview(&sv, self, so, bsz, sst, bn);
            ct__ix_subview(&ov, other, oo, bsz, ost, bn);
            if (scatter) be->copy(&sv, &ov);
            else be->copy(&ov, &sv);
        }
    }
}

/* ---------------------------------------------------------------- public */

ct_tensor *ct_index(const ct_tensor *t, const char *spec, ...)
{
    ct__ix_item items[CT__IX_MAX];
    ct__ix_adv adv;
    ct__ix_plan plan;
    int n = 0;
    va_list ap;
    CT__ARG(t, "self", 1);
    if (!spec) {
        ct__fail(CT_ERR_VALUE, "index: spec is NULL");
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r = NULL;
    va_start(ap, spec);
    ct_result ok = ct__ix_parse(spec, &ap, items, &n);
    va_end(ap);
    ct_tensor *view = ok == CT_OK ? ct__ix_apply_basic(t, items, n, &adv) : NULL;
    if (view && !adv.count) {
        r = view;
    } else if (view && ct__ix_plan_make(view, &adv, &plan) == CT_OK) {
        r = ct__alloc(plan.out_sizes, plan.out_ndim, view->dtype, view->storage->device);
        if (r && ct_numel(r)) ct__ix_walk(view, &plan, r, false);
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* value with its leading size-1 dims dropped, as PyTorch's setitem does. */
static ct_tensor *ct__ix_strip_leading_ones(const ct_tensor *value)
{
    int lead = 0;
    while (lead < value->ndim && value->sizes[lead] == 1) lead++;
    return ct__view_of(value, value->sizes + lead, value->strides + lead, value->ndim - lead, value->offset);
}

static ct_result ct__ix_put_advanced(ct_tensor *view, const ct__ix_adv *adv, const ct_tensor *value)
{
    ct__ix_plan plan;
    char b1[256], b2[256];
    if (ct__ix_plan_make(view, adv, &plan) != CT_OK) return ct_last_error_code();
    if (value->dtype != view->dtype)
        return ct__fail(CT_ERR_RUNTIME,
                        "Index put requires the source and destination dtypes match, got %s for the destination and "
                        "%s for the source.",
                        ct__scalar_type_name(view->dtype), ct__scalar_type_name(value->dtype));
    int64_t shape[CT_MAX_DIMS];
    int nd;
    if (ct__broadcast_shapes(plan.out_sizes, plan.out_ndim, value->sizes, value->ndim, shape, &nd) != CT_OK ||
        nd != plan.out_ndim || memcmp(shape, plan.out_sizes, (size_t)nd * sizeof(int64_t))) {
        return ct__fail(CT_ERR_RUNTIME, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result "
                                        "of shape %s",
                        ct__shape_str(value->sizes, value->ndim, b1, sizeof b1),
                        ct__shape_str(plan.out_sizes, plan.out_ndim, b2, sizeof b2));
    }
    ct_tensor *v = ct_expand(value, ct_shape_make(plan.out_ndim, plan.out_sizes));
    if (!v) return ct_last_error_code();
    if (ct__has_internal_overlap(view)) return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_internal_overlap);
    ct_tensor *src = view->storage == v->storage ? ct_clone(v) : v; /* read all of value before writing */
    if (src && ct_numel(v)) ct__ix_walk(view, &plan, src, true);
    return src ? CT_OK : ct_last_error_code();
}

ct_result ct_index_put_(ct_tensor *t, const ct_tensor *value, const char *spec, ...)
{
    ct__ix_item items[CT__IX_MAX];
    ct__ix_adv adv;
    int n = 0;
    va_list ap;
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(value, "value", 2);
    if (!spec) return ct__fail(CT_ERR_VALUE, "index_put_: spec is NULL");
    ct_scope s = ct_scope_begin();
    va_start(ap, spec);
    ct_result r = ct__ix_parse(spec, &ap, items, &n);
    va_end(ap);
    ct_tensor *view = r == CT_OK ? ct__ix_apply_basic(t, items, n, &adv) : NULL;
    ct_tensor *v = view ? ct__ix_strip_leading_ones(value) : NULL;
    if (!v) r = ct_last_error_code();
    else if (adv.count) r = ct__ix_put_advanced(view, &adv, v);
    else if (!(v = ct_expand(v, ct_shape_of(view)))) r = ct_last_error_code();
    else r = ct_copy_(view, v);
    ct_scope_end(s);
    return r;
}

/* ==================== tensor/random.c ==================== */
// >>tensor/random.c

/* ==================== tensor/print.c ==================== */
// >>tensor/print.c
/* Printing: repr(t) exactly as PyTorch 1.13 writes it. The functions follow
 * torch/_tensor_str.py one for one (_Formatter, _vector_str,
 * _tensor_str_with_formatter, _add_suffixes, _str_intern), so that a change
 * there maps to one place here. Elements are read in place through the
 * strides: printing makes no tensor and allocates nothing (ct_print aside). */

/* ---------------------------------------------------------------- options */

/* torch._tensor_str.PRINT_OPTS: one per process, as in Python. */
static ct_print_opts ct__print_opts = {4, 1000, 3, 80, 0};

ct_print_opts ct_print_opts_init(void)
{
    ct_print_opts o = {4, 1000, 3, 80, 0};
    return o;
}

ct_print_opts ct_get_printoptions(void) { return ct__print_opts; }

ct_result ct_set_printoptions(ct_print_opts opts)
{
    /* Python would fail later, formatting with '{:.-1f}'; refuse now instead.
     * A negative threshold or linewidth is meaningful (summarize everything,
     * one element per line). */
    if (opts.precision < 0 || opts.edgeitems < 0)
        return ct__fail(CT_ERR_VALUE, "set_printoptions(): precision and edgeitems must be non-negative, got %d and %d",
                        opts.precision, opts.edgeitems);
    opts.sci_mode = opts.sci_mode > 0 ? 1 : opts.sci_mode < 0 ? -1 : 0;
    ct__print_opts = opts;
    return CT_OK;
}

/* ---------------------------------------------------------------- output */

/* Text goes to buf with snprintf's contract: len counts every character
 * produced, buf keeps the first n - 1. With n == 0 the sink only counts,
 * which is how element widths are measured. */
typedef struct ct__sink {
    char *buf;
    size_t n;
    size_t len;
    size_t line_start; /* where the last line began, for _add_suffixes */
} ct__sink;

static void ct__sink_write(ct__sink *s, const char *text, size_t k)
{
    if (s->len < s->n) memcpy(s->buf + s->len, text, CT__MIN(k, s->n - s->len));
    s->len += k;
}

/* text holds no newline (ct__sink_newlines writes those). */
static void ct__sink_puts(ct__sink *s, const char *text) { ct__sink_write(s, text, strlen(text)); }

static void ct__sink_spaces(ct__sink *s, int64_t k)
{
    static const char spaces[] = "                                ";
    for (; k > 0; k -= (int64_t)(sizeof spaces - 1))
        ct__sink_write(s, spaces, (size_t)CT__MIN(k, (int64_t)(sizeof spaces - 1)));
}

static void ct__sink_newlines(ct__sink *s, int k)
{
    for (; k > 0; k--) ct__sink_write(s, "\n", 1);
    s->line_start = s->len;
}

/* A formatted number (never a newline), written straight into buf. */
static void ct__sink_printf(ct__sink *s, const char *fmt, ...) CT__PRINTF(2, 3);
static void ct__sink_printf(ct__sink *s, const char *fmt, ...)
{
    size_t room = s->len < s->n ? s->n - s->len : 0;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(room ? s->buf + s->len : NULL, room, fmt, ap);
    va_end(ap);
    if (k > 0) s->len += (size_t)k;
}

/* ---------------------------------------------------------------- _Formatter */

/* How floating values are written: "{:.4f}", "{:.0f}" plus ".", or "{:.4e}". */
typedef enum ct__mode { CT__FIXED, CT__INTEGRAL, CT__SCI } ct__mode;

typedef struct ct__fmt {
    const ct_tensor *t;
    ct_print_opts o; /* the options when printing began */
    bool summarize;  /* numel > threshold: only edgeitems per dim are shown */
    ct__mode mode;
    int64_t width;
    /* the nonzero finite values shown: smallest and largest magnitude
     * (hi == 0 when there is none), and whether all are integers */
    double lo, hi;
    bool integral;
} ct__fmt;

/* Whether a dim of size n is cut to its edges, as get_summarized_data does. */
static bool ct__cut(const ct__fmt *f, int64_t n) { return f->summarize && n > 2 * (int64_t)f->o.edgeitems; }

static const char *ct__at(const ct__fmt *f, const char *p, int dim, int64_t i)
{
    return p + (ptrdiff_t)(i * f->t->strides[dim]) * (ptrdiff_t)ct__esize(f->t);
}

/* Call fn on every element that will be shown, in order: what the _Formatter
 * iterates over (get_summarized_data(t) when summarizing). */
static void ct__visit(ct__fmt *f, int dim, const char *p, void (*fn)(ct__fmt *f, const char *p))
{
    if (dim == f->t->ndim) {
        fn(f, p);
        return;
    }
    int64_t n = f->t->sizes[dim];
    for (int64_t i = 0; i < n; i++) {
        if (ct__cut(f, n) && i == f->o.edgeitems) i = n - f->o.edgeitems;
        ct__visit(f, dim + 1, ct__at(f, p, dim, i), fn);
    }
}

/* One element without padding: Python's str() of the value from tolist(),
 * which for floating dtypes is a double (float16 and bfloat16 widen exactly). */
static void ct__put_value(ct__sink *s, const ct__fmt *f, const char *p)
{
    ct_dtype dt = f->t->dtype;
    if (dt == CT_BOOL) {
        ct__sink_puts(s, ct__read_i64(p, dt) ? "True" : "False");
        return;
    }
    if (!ct_dtype_is_floating(dt)) {
        ct__sink_printf(s, "%lld", (long long)ct__read_i64(p, dt));
        return;
    }
    double v = ct__read_f64(p, dt);
    if (isnan(v)) ct__sink_puts(s, "nan"); /* Python drops a NaN's sign, glibc writes "-nan" */
    else if (isinf(v)) ct__sink_puts(s, v < 0 ? "-inf" : "inf");
    else if (f->mode == CT__SCI) ct__sink_printf(s, "%.*e", f->o.precision, v);
    else if (f->mode == CT__INTEGRAL) ct__sink_printf(s, "%.0f.", v);
    else ct__sink_printf(s, "%.*f", f->o.precision, v);
}

static int64_t ct__value_len(const ct__fmt *f, const char *p)
{
    ct__sink count = {NULL, 0, 0, 0};
    ct__put_value(&count, f, p);
    return (int64_t)count.len;
}

/* _Formatter.format: right-aligned to the common width. */
static void ct__put_elem(ct__sink *s, const ct__fmt *f, const char *p)
{
    ct__sink_spaces(s, f->width - ct__value_len(f, p));
    ct__put_value(s, f, p);
}

static void ct__scan(ct__fmt *f, const char *p)
{
    double v = ct__read_f64(p, f->t->dtype);
    if (!isfinite(v) || v == 0) return;
    f->lo = CT__MIN(f->lo, fabs(v));
    f->hi = CT__MAX(f->hi, fabs(v));
    if (v != ceil(v)) f->integral = false;
}

/* Only nonzero finite values count toward a floating width: nan, inf and 0
 * may be wider or narrower than the others, as in PyTorch. */
static void ct__measure(ct__fmt *f, const char *p)
{
    if (ct_dtype_is_floating(f->t->dtype)) {
        double v = ct__read_f64(p, f->t->dtype);
        if (!isfinite(v) || v == 0) return;
    }
    f->width = CT__MAX(f->width, ct__value_len(f, p));
}

/* _Formatter.__init__. */
static void ct__fmt_init(ct__fmt *f, const ct_tensor *t)
{
    bool floating = ct_dtype_is_floating(t->dtype);
    f->t = t;
    f->o = ct__print_opts;
    f->summarize = ct_numel(t) > f->o.threshold;
    f->mode = CT__INTEGRAL;
    f->width = 1;
    f->lo = INFINITY;
    f->hi = 0;
    f->integral = true;
    if (floating) {
        ct__visit(f, 0, ct__data(t), ct__scan);
        if (f->hi == 0) return; /* PyTorch returns before looking at sci_mode */
        bool sci = f->hi / f->lo > 1000.0 || f->hi > 1.0e8 || (!f->integral && f->lo < 1.0e-4);
        f->mode = sci ? CT__SCI : f->integral ? CT__INTEGRAL : CT__FIXED;
    }
    ct__visit(f, 0, ct__data(t), ct__measure);
    /* sci_mode set by the user overrides the choice only now, after the
     * widths were measured in the format chosen automatically */
    if (floating && f->o.sci_mode) f->mode = f->o.sci_mode > 0 ? CT__SCI : f->integral ? CT__INTEGRAL : CT__FIXED;
}

/* ---------------------------------------------------------------- layout */

/* Before the item-th item of a row: a new line every per_line items. */
static void ct__put_item_sep(ct__sink *s, int64_t item, int64_t per_line, int64_t indent)
{
    if (item == 0) return;
    if (item % per_line) {
        ct__sink_puts(s, ", ");
        return;
    }
    ct__sink_puts(s, ",");
    ct__sink_newlines(s, 1);
    ct__sink_spaces(s, indent + 1);
}

/* _vector_str: a 1-D row wrapped to the linewidth. When summarizing, " ..."
 * stands for the middle and takes an item's place in the line. */
static void ct__put_vector(ct__sink *s, const ct__fmt *f, const char *p, int64_t indent)
{
    int dim = f->t->ndim - 1;
    int64_t n = f->t->sizes[dim], room = (int64_t)f->o.linewidth - indent, item = 0;
    int64_t per_line = room > 0 ? CT__MAX(1, room / (f->width + 2)) : 1;
    ct__sink_puts(s, "[");
    for (int64_t i = 0; i < n; i++) {
        if (ct__cut(f, n) && i == f->o.edgeitems) {
            ct__put_item_sep(s, item++, per_line, indent);
            ct__sink_puts(s, " ...");
            i = n - f->o.edgeitems;
        }
        ct__put_item_sep(s, item++, per_line, indent);
        ct__put_elem(s, f, ct__at(f, p, dim, i));
    }
    ct__sink_puts(s, "]");
}

/* The separator between slices of a dim with `rest` dims below it. */
static void ct__put_slice_sep(ct__sink *s, int rest, int64_t indent)
{
    ct__sink_puts(s, ",");
    ct__sink_newlines(s, rest - 1);
    ct__sink_spaces(s, indent + 1);
}

/* _tensor_str_with_formatter: dims from `dim` on, each one level deeper. */
static void ct__put_tensor(ct__sink *s, const ct__fmt *f, int dim, const char *p, int64_t indent)
{
    int rest = f->t->ndim - dim;
    if (rest == 0) {
        ct__put_elem(s, f, p);
        return;
    }
    if (rest == 1) {
        ct__put_vector(s, f, p, indent);
        return;
    }
    int64_t n = f->t->sizes[dim];
    ct__sink_puts(s, "[");
    for (int64_t i = 0; i < n; i++) {
        if (i > 0) ct__put_slice_sep(s, rest, indent);
        if (ct__cut(f, n) && i == f->o.edgeitems) {
            ct__sink_puts(s, "...");
            ct__put_slice_sep(s, rest, indent);
            i = n - f->o.edgeitems;
        }
        ct__put_tensor(s, f, dim + 1, ct__at(f, p, dim, i), indent + 1);
    }
    ct__sink_puts(s, "]");
}

/* ---------------------------------------------------------------- repr */

#define CT__SUFFIX_MAX 512
#define CT__SUFFIXES 3

/* The name of the autograd node that made t ("AddBackward0"), NULL for a
 * leaf. Autograd records no nodes yet, so every tensor is a leaf; the
 * grad_fn suffix reads the name here once it does. */
static const char *ct__grad_fn_name(const ct_tensor *t)
{
    (void)t;
    return NULL;
}

/* The suffixes _str_intern adds for a CPU tensor, in its order; their count. */
static int ct__suffixes(const ct_tensor *t, char out[CT__SUFFIXES][CT__SUFFIX_MAX])
{
    int k = 0;
    ct_dtype def = ct_get_default_dtype();
    const char *grad_fn = ct__grad_fn_name(t);
    if (ct_numel(t) == 0) {
        /* the shape is shown unless it is (0,); an empty tensor has no values
         * to tell int64 from float, so only the default dtype goes unnamed */
        if (t->ndim != 1) {
            char shape[CT__SUFFIX_MAX - 8]; /* room for "size=(" and ")" */
            ct__shape_str(t->sizes, t->ndim, shape, sizeof shape);
            shape[strlen(shape) - 1] = 0;
            snprintf(out[k++], CT__SUFFIX_MAX, "size=(%s)", shape + 1);
        }
        if (t->dtype != def) snprintf(out[k++], CT__SUFFIX_MAX, "dtype=torch.%s", ct_dtype_name(t->dtype));
    } else if (t->dtype != def && t->dtype != CT_I64 && t->dtype != CT_BOOL) {
        snprintf(out[k++], CT__SUFFIX_MAX, "dtype=torch.%s", ct_dtype_name(t->dtype));
    }
    if (grad_fn) snprintf(out[k++], CT__SUFFIX_MAX, "grad_fn=<%s>", grad_fn);
    else if (t->requires_grad) snprintf(out[k++], CT__SUFFIX_MAX, "requires_grad=True");
    return k;
}

/* _add_suffixes: each suffix goes on the last line while it fits in the
 * linewidth, else on a new line at the indent. */
static void ct__put_suffixes(ct__sink *s, char suffixes[CT__SUFFIXES][CT__SUFFIX_MAX], int count, int64_t indent)
{
    /* PyTorch's len(str) - str.rfind("\n") + 1: two more than the last line */
    int64_t last = (int64_t)(s->len - s->line_start) + 2;
    for (int i = 0; i < count; i++) {
        int64_t len = (int64_t)strlen(suffixes[i]);
        if (last + len + 2 > ct__print_opts.linewidth) {
            ct__sink_puts(s, ",");
            ct__sink_newlines(s, 1);
            ct__sink_spaces(s, indent);
            last = indent + len;
        } else {
            ct__sink_puts(s, ", ");
            last += len + 2;
        }
        ct__sink_puts(s, suffixes[i]);
    }
    ct__sink_puts(s, ")");
}

/* _str_intern for a strided CPU tensor. */
static void ct__put_repr(ct__sink *s, const ct_tensor *t)
{
    static const char prefix[] = "tensor(";
    const int64_t indent = (int64_t)sizeof prefix - 1;
    char suffixes[CT__SUFFIXES][CT__SUFFIX_MAX];
    ct__sink_puts(s, prefix);
    if (ct_numel(t) == 0) {
        ct__sink_puts(s, "[]");
    } else {
        ct__fmt f;
        ct__fmt_init(&f, t);
        ct__put_tensor(s, &f, 0, ct__data(t), indent);
    }
    ct__put_suffixes(s, suffixes, ct__suffixes(t, suffixes), indent);
}

int ct_to_string(const ct_tensor *t, char *buf, size_t n)
{
    ct__sink s = {buf, buf ? n : 0, 0, 0};
    if (s.n) buf[0] = 0;
    if (!t) return (int)ct__null_arg(__func__, "self", 1);
    if (t->storage->device.type != CT_DEVICE_CPU) /* its elements cannot be read in place */
        return (int)ct__fail(CT_ERR_NOT_IMPLEMENTED, "printing a CUDA tensor is not supported yet");
    ct__put_repr(&s, t);
    if (s.n) buf[CT__MIN(s.len, s.n - 1)] = 0;
    if (s.len > INT_MAX) /* what snprintf does (EOVERFLOW) */
        return (int)ct__fail(CT_ERR_VALUE, "repr of %lld characters is longer than INT_MAX", (long long)s.len);
    return (int)s.len;
}

void ct_print(const ct_tensor *t)
{
    char small[1024], *text = small;
    if (!t) {
        ct__null_arg(__func__, "self", 1);
        return;
    }
    int len = ct_to_string(t, small, sizeof small);
    if (len < 0) return;
    if ((size_t)len >= sizeof small) { /* measured first: the second pass fills it */
        text = (char *)CT_MALLOC((size_t)len + 1);
        if (!text) {
            CT__OOM();
            return;
        }
        ct_to_string(t, text, (size_t)len + 1);
    }
    fwrite(text, 1, (size_t)len, stdout);
    fputc('\n', stdout);
    if (text != small) CT_FREE(text);
}

void ct_print_shape(const ct_tensor *t)
{
    char shape[CT__SUFFIX_MAX];
    if (!t) {
        ct__null_arg(__func__, "self", 1);
        return;
    }
    printf("torch.Size(%s)\n", ct__shape_str(t->sizes, t->ndim, shape, sizeof shape));
}

/* ==================== ops/pointwise.c ==================== */
// >>ops/pointwise.c
/* Pointwise ops: type promotion, broadcasting, in-place rules, and the
 * public functions, which all go through ct__pointwise. */

/* ---------------------------------------------------------------- type promotion */

/* PyTorch's ResultTypeState: tensors with dims outrank 0-d tensors, which
 * outrank Python numbers, unless a lower group brings a higher category
 * (bool < integral < floating). */
typedef struct ct__type_state {
    ct_dtype dim, zero, wrapped; /* CT_DEFAULT: none seen */
} ct__type_state;

static ct_dtype ct__promote_skip(ct_dtype a, ct_dtype b)
{
    return a == CT_DEFAULT ? b : b == CT_DEFAULT ? a : ct_promote_types(a, b);
}

static void ct__type_state_add(ct__type_state *st, const ct_tensor *t)
{
    if (t->wrapped_number)
        st->wrapped = ct__promote_skip(st->wrapped, ct_dtype_is_floating(t->dtype) ? ct__default_dtype : t->dtype);
    else if (t->ndim > 0)
        st->dim = ct__promote_skip(st->dim, t->dtype);
    else
        st->zero = ct__promote_skip(st->zero, t->dtype);
}

static ct_dtype ct__combine_categories(ct_dtype higher, ct_dtype lower)
{
    if (ct_dtype_is_floating(higher)) return higher;
    if (higher == CT_BOOL || ct_dtype_is_floating(lower)) return ct__promote_skip(higher, lower);
    return higher != CT_DEFAULT ? higher : lower;
}

static ct_dtype ct__type_state_result(const ct__type_state *st)
{
    return ct__combine_categories(st->dim, ct__combine_categories(st->zero, st->wrapped));
}

static ct_dtype ct__result_type(const ct_tensor *const *ts, int n)
{
    ct__type_state st = {CT_DEFAULT, CT_DEFAULT, CT_DEFAULT};
    for (int i = 0; i < n; i++) ct__type_state_add(&st, ts[i]);
    return ct__type_state_result(&st);
}

/* A Python number as a 0-d wrapped-number tensor on the stack: no allocation,
 * never registered, never released. */
typedef struct ct__stack_scalar {
    ct_tensor t;
    ct__storage s;
    uint64_t value;
} ct__stack_scalar;

static ct_tensor *ct__stack_scalar_init(ct__stack_scalar *ss, ct_scalar v)
{
    memset(ss, 0, sizeof *ss);
    ss->s.refcount = 1;
    ss->s.data = &ss->value;
    ss->s.nbytes = sizeof ss->value;
    ss->s.device = ct__cpu;
    ss->t.refcount = 1;
    ss->t.dtype = v.kind;
    ss->t.storage = &ss->s;
    ss->t.wrapped_number = true;
    if (v.kind == CT_F64) memcpy(&ss->value, &v.v.f, 8);
    else if (v.kind == CT_I64) memcpy(&ss->value, &v.v.i, 8);
    else ss->value = v.v.b;
    return &ss->t;
}

ct_dtype ct_result_type(const ct_tensor *a, const ct_tensor *b)
{
    if (!a || !b) return (ct__null_arg(__func__, a ? "other" : "tensor", a ? 2 : 1), CT_DEFAULT);
    const ct_tensor *ts[2] = {a, b};
    return ct__result_type(ts, 2);
}

ct_dtype ct_result_type_scalar(const ct_tensor *t, ct_scalar s)
{
    ct__stack_scalar ss;
    if (!t) return (ct__null_arg(__func__, "tensor", 1), CT_DEFAULT);
    const ct_tensor *ts[2] = {t, ct__stack_scalar_init(&ss, s)};
    return ct__result_type(ts, 2);
}

/* ---------------------------------------------------------------- the front end */

/* PyTorch's names for dtypes in "not implemented for 'Bool'" messages. */
static const char *ct__dtype_title(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: return "Bool";
    case CT_U8: return "Byte";
    case CT_I8: return "Char";
    case CT_I16: return "Short";
    case CT_I32: return "Int";
    case CT_I64: return "Long";
    case CT_F16: return "Half";
    case CT_BF16: return "BFloat16";
    case CT_F64: return "Double";
    default: return "Float";
    }
}

/* Refusals PyTorch makes before looking for a kernel. */
static ct_result ct__pointwise_refusals(ct__op op, const ct_tensor *a, const ct_tensor *b, ct_dtype common)
{
    if (op == CT__OP_neg && a->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                                        "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    if (op == CT__OP_sub && a->dtype == CT_BOOL && b->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                                        "the `^` or `logical_xor()` operator instead.");
    if (op == CT__OP_sub && (a->dtype == CT_BOOL || b->dtype == CT_BOOL))
        return ct__fail(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                                        "are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    if (op == CT__OP_relu && a->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Boolean inputs not supported for relu");
    /* a number exponent must be non-negative for an integral power (tensors get 1, -1 or 0) */
    if (op == CT__OP_pow && b->wrapped_number && !ct_dtype_is_floating(common) && b->dtype != CT_F64 &&
        ct__read_i64(ct__data(b), b->dtype) < 0)
        return ct__fail(CT_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
    return CT_OK;
}

/* The dtype an op's kernel computes in and the dtype of its result. */
static void ct__pointwise_dtypes(ct__op op, ct_dtype common, ct_dtype *compute, ct_dtype *result)
{
    *compute = ct__ops[op].rule == CT__RULE_FLOAT && !ct_dtype_is_floating(common) ? ct__default_dtype : common;
    *result = ct__ops[op].rule == CT__RULE_BOOL ? CT_BOOL : *compute;
}

/* x as dtype dt: itself when it already is; a wrapped scalar stays on the stack. */
static const ct_tensor *ct__as_dtype(const ct_tensor *x, ct_dtype dt, ct__stack_scalar *ss)
{
    if (x->dtype == dt) return x;
    if (x->wrapped_number) {
        double v = ct__read_f64(ct__data(x), x->dtype);
        int64_t i = ct__read_i64(ct__data(x), x->dtype);
        ct__stack_scalar_init(ss, ct_int(0));
        ss->t.dtype = dt;
        if (x->dtype == CT_F64) ct__write_f64(&ss->value, dt, v);
        else ct__write_i64(&ss->value, dt, i);
        return &ss->t;
    }
    return ct_to(x, dt);
}

/* op(a[, b]) into *out: a new tensor when *out is NULL, else in place into
 * *out (which is a). Temporaries live in an internal scope. */
static ct_result ct__pointwise(ct__op op, ct_tensor **out, const ct_tensor *a, const ct_tensor *b,
                               const ct__op_args *args)
{
    const ct_tensor *in[2] = {a, b};
    int arity = ct__ops[op].arity;
    ct_dtype common = arity == 1 ? a->dtype : ct__result_type(in, 2), compute, result;
    ct_result r = ct__pointwise_refusals(op, a, b, common);
    if (r != CT_OK) return r;
    ct__pointwise_dtypes(op, common, &compute, &result);
    /* float16 and bfloat16 compute in float32 and round once, as PyTorch's opmath does */
    ct_dtype kernel = compute == CT_F16 || compute == CT_BF16 ? CT_F32 : compute;
    ct_dtype kernel_out = ct__ops[op].rule == CT__RULE_BOOL ? CT_BOOL : kernel;
    if (!ct__backend_for(a->storage->device.type)->has_pointwise(op, kernel))
        return ct__fail(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", ct__ops[op].kernel,
                        ct__dtype_title(compute));
    int64_t shape[CT_MAX_DIMS];
    int ndim = a->ndim;
    memcpy(shape, a->sizes, sizeof shape);
    if (arity > 1 && ct__broadcast_shapes(a->sizes, a->ndim, b->sizes, b->ndim, shape, &ndim) != CT_OK)
        return ct_last_error_code();
    if (*out) { /* in place: the result must fit self's shape and dtype */
        char b1[256], b2[256];
        if (ndim != (*out)->ndim || memcmp(shape, (*out)->sizes, (size_t)ndim * sizeof(int64_t)))
            return ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                            ct__shape_str((*out)->sizes, (*out)->ndim, b1, sizeof b1), ct__shape_str(shape, ndim, b2, sizeof b2));
        if (!ct_can_cast(result, (*out)->dtype))
            return ct__fail(CT_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                            ct__dtype_title(result), ct__dtype_title((*out)->dtype));
        if ((r = ct__check_write(*out, arity > 1 && b != *out ? b : NULL)) != CT_OK) return r;
    }
    ct_scope s = ct_scope_begin();
    ct__stack_scalar ss[2];
    const ct_tensor *kin[2] = {ct__as_dtype(a, kernel, &ss[0]), arity > 1 ? ct__as_dtype(b, kernel, &ss[1]) : NULL};
    ct_tensor *dst = NULL;
    if (kin[0] && (arity == 1 || kin[1])) {
        bool direct = *out && (*out)->dtype == kernel_out;
        if (direct) {
            dst = *out;
        } else {
            int64_t strides[CT_MAX_DIMS];
            ct__dense_strides_for(in, arity, shape, ndim, strides);
            dst = ct__alloc_strided(shape, strides, ndim, kernel_out, ct__cpu);
        }
        ct__op_args kargs = *args;
        kargs.number_other = arity > 1 && b->wrapped_number;
        kargs.compute = compute;
        if (dst && ct_numel(dst)) ct__backend_for(a->storage->device.type)->pointwise(op, dst, kin, &kargs);
        /* round to the result dtype (float16, bfloat16) or to self's dtype (in place) */
        if (dst && *out && !direct) ct__copy_unchecked(*out, dst);
        else if (dst && kernel_out != result) dst = ct_to(dst, result);
        if (dst && !*out) *out = ct_keep(dst);
    }
    r = dst ? CT_OK : ct_last_error_code();
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- public functions */

static const ct__op_args ct__no_args = {1.0, 1, false, CT_DEFAULT};

static ct_tensor *ct__pointwise_new(ct__op op, const ct_tensor *a, const ct_tensor *b, const ct__op_args *args)
{
    ct_tensor *out = NULL;
    return ct__pointwise(op, &out, a, b, args) == CT_OK ? out : NULL;
}

static ct_result ct__pointwise_inplace(ct__op op, ct_tensor *self, const ct_tensor *b, const ct__op_args *args)
{
    ct_tensor *out = self;
    return ct__pointwise(op, &out, self, b, args);
}

/* The public functions of each op, made from its forms in the op table. */
#define CT__FORM_FN(name)                                                        \
    ct_tensor *ct_##name(const ct_tensor *t)                                     \
    {                                                                            \
        CT__ARG(t, "input", 1);                                                  \
        return ct__pointwise_new(CT__OP_##name, t, NULL, &ct__no_args);          \
    }
#define CT__FORM_FN_(name)                                                       \
    ct_result ct_##name##_(ct_tensor *t)                                         \
    {                                                                            \
        CT__ARG_R(t, "input", 1);                                                \
        return ct__pointwise_inplace(CT__OP_##name, t, NULL, &ct__no_args);      \
    }
#define CT__FORM_FN2(name)                                                       \
    ct_tensor *ct_##name(const ct_tensor *a, const ct_tensor *b)                 \
    {                                                                            \
        CT__ARG(a, "input", 1);                                                  \
        CT__ARG(b, "other", 2);                                                  \
        return ct__pointwise_new(CT__OP_##name, a, b, &ct__no_args);             \
    }
#define CT__FORM_FN2_(name)                                                      \
    ct_result ct_##name##_(ct_tensor *a, const ct_tensor *b)                     \
    {                                                                            \
        CT__ARG_R(a, "input", 1);                                                \
        CT__ARG_R(b, "other", 2);                                                \
        return ct__pointwise_inplace(CT__OP_##name, a, b, &ct__no_args);         \
    }
#define CT__FORM_FN2_SCALAR(name)                                                \
    ct_tensor *ct_##name##_scalar(const ct_tensor *a, ct_scalar b)               \
    {                                                                            \
        ct__stack_scalar ss;                                                     \
        CT__ARG(a, "input", 1);                                                  \
        return ct__pointwise_new(CT__OP_##name, a, ct__stack_scalar_init(&ss, b), &ct__no_args); \
    }
#define CT__FORM_FN2_SCALAR_(name)                                               \
    ct_result ct_##name##_scalar_(ct_tensor *a, ct_scalar b)                     \
    {                                                                            \
        ct__stack_scalar ss;                                                     \
        CT__ARG_R(a, "input", 1);                                                \
        return ct__pointwise_inplace(CT__OP_##name, a, ct__stack_scalar_init(&ss, b), &ct__no_args); \
    }
#define CT__FORMS_U(name) CT__FORM_FN(name)
#define CT__FORMS_UI(name) CT__FORM_FN(name) CT__FORM_FN_(name)
#define CT__FORMS_B(name) CT__FORM_FN2(name)
#define CT__FORMS_BI(name) CT__FORM_FN2(name) CT__FORM_FN2_(name)
#define CT__FORMS_BS(name) CT__FORM_FN2(name) CT__FORM_FN2_SCALAR(name)
#define CT__FORMS_BSI(name) CT__FORM_FN2(name) CT__FORM_FN2_(name) CT__FORM_FN2_SCALAR(name) CT__FORM_FN2_SCALAR_(name)
#define CT__DEFINE_FORMS(name, arity, rule, forms, kernel) CT__FORMS_##forms(name)
CT__POINTWISE_OPS(CT__DEFINE_FORMS)
#undef CT__DEFINE_FORMS

/* add and sub with alpha: x + alpha * y */
static ct__op_args ct__alpha_args(ct_scalar alpha)
{
    ct__op_args a;
    a.alpha = ct_scalar_to_double(alpha);
    a.alpha_i = alpha.kind == CT_F64 ? (int64_t)alpha.v.f : alpha.kind == CT_BOOL ? alpha.v.b : alpha.v.i;
    a.number_other = false;
    a.compute = CT_DEFAULT;
    return a;
}

static ct_result ct__check_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    const ct_tensor *ts[2] = {a, b};
    ct_dtype common = ct__result_type(ts, 2);
    if (alpha.kind == CT_F64 && !ct_dtype_is_floating(common))
        return ct__fail(CT_ERR_RUNTIME, "For integral input tensors, argument alpha must not be a floating point number.");
    if (alpha.kind != CT_BOOL && common == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
    return CT_OK;
}

ct_tensor *ct_add_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    ct__op_args args = ct__alpha_args(alpha);
    return ct__check_alpha(a, b, alpha) == CT_OK ? ct__pointwise_new(CT__OP_add, a, b, &args) : NULL;
}

ct_tensor *ct_sub_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    ct__op_args args = ct__alpha_args(alpha);
    return ct__check_alpha(a, b, alpha) == CT_OK ? ct__pointwise_new(CT__OP_sub, a, b, &args) : NULL;
}

ct_result ct_add_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    ct__op_args args = ct__alpha_args(alpha);
    ct_result r = ct__check_alpha(a, b, alpha);
    return r == CT_OK ? ct__pointwise_inplace(CT__OP_add, a, b, &args) : r;
}

ct_result ct_sub_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    ct__op_args args = ct__alpha_args(alpha);
    ct_result r = ct__check_alpha(a, b, alpha);
    return r == CT_OK ? ct__pointwise_inplace(CT__OP_sub, a, b, &args) : r;
}

int ct_op_count(void) { return CT__NUM_OPS; }
const char *ct_op_name(int i) { return i >= 0 && i < CT__NUM_OPS ? ct__op_names[i] : NULL; }

/* ==================== ops/reduce.c ==================== */
// >>ops/reduce.c

/* ==================== ops/join.c ==================== */
// >>ops/join.c

/* ==================== ops/sort.c ==================== */
// >>ops/sort.c
/* Sorting and selection: PyTorch's argument checks, output shapes and
 * layouts, then the backend's kernels (ct__backend.sorting). */

static ct_result ct__sorting(ct__op op, ct__sort_job *job)
{
    return ct__backend_for(job->input->storage->device.type)->sorting(op, job);
}

/* Set the caller's result pointers to NULL (those given). */
static void ct__sort_clear_results(ct_tensor **a, ct_tensor **b, ct_tensor **c)
{
    if (a) *a = NULL;
    if (b) *b = NULL;
    if (c) *c = NULL;
}

/* Hand a result on to the caller's pointer, when there is one. */
static void ct__sort_hand_on(ct_tensor **dst, ct_tensor *t)
{
    if (dst) *dst = ct_keep(t);
}

static ct_result ct__sort_not_implemented(const char *kernel, ct_dtype dt)
{
    return ct__fail(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel, ct__dtype_title(dt));
}

/* ---------------------------------------------------------------- values and indices */

/* Run sort, topk or kthvalue into new outputs of the given sizes and strides
 * (NULL: contiguous); values only when wanted. With `reduced` the outputs
 * lack job->dim, which the kernel sees as a dim of size 1. A 0-d input gives
 * itself and index 0. */
static ct_result ct__values_indices(ct__op op, ct__sort_job *job, const int64_t *sizes, const int64_t *strides,
                                    int ndim, bool reduced, ct_tensor **values, ct_tensor **indices)
{
    const ct_tensor *t = job->input;
    ct_scope s = ct_scope_begin();
    ct_tensor *v = values ? ct__alloc_strided(sizes, strides, ndim, t->dtype, t->storage->device) : NULL;
    ct_tensor *i = ct__alloc_strided(sizes, strides, ndim, CT_I64, t->storage->device);
    ct_result r = i && (v || !values) ? CT_OK : ct_last_error_code();
    if (r == CT_OK && t->ndim == 0) {
        if (v) ct__copy_unchecked(v, t);
        *(int64_t *)ct__data(i) = 0;
    } else if (r == CT_OK && ct_numel(i) > 0) {
        job->values = v && reduced ? ct_unsqueeze(v, job->dim) : v;
        job->indices = reduced ? ct_unsqueeze(i, job->dim) : i;
        r = job->indices && (job->values || !v) ? ct__sorting(op, job) : ct_last_error_code();
    }
    if (r == CT_OK) {
        ct__sort_hand_on(values, v);
        ct__sort_hand_on(indices, i);
    }
    ct_scope_end(s);
    return r;
}

static ct__sort_job ct__sort_job_for(const ct_tensor *t, int dim)
{
    ct__sort_job job;
    memset(&job, 0, sizeof job);
    job.input = t;
    job.dim = dim;
    return job;
}

ct_result ct_sort(const ct_tensor *input, int dim, bool descending, bool stable, ct_tensor **values,
                  ct_tensor **indices)
{
    ct__sort_clear_results(values, indices, NULL);
    CT__ARG_R(input, "input", 1);
    int d = ct__wrap_dim(dim, input->ndim);
    if (d < 0) return ct_last_error_code();
    /* like the input when it is dense, else dense in the input's dim order */
    int64_t strides[CT_MAX_DIMS];
    if (ct__is_dense(input)) memcpy(strides, input->strides, sizeof strides);
    else ct__dense_strides_for(&input, 1, input->sizes, input->ndim, strides);
    ct__sort_job job = ct__sort_job_for(input, d);
    job.descending = descending;
    job.stable = stable;
    return ct__values_indices(CT__OP_sort, &job, input->sizes, strides, input->ndim, false, values, indices);
}

ct_tensor *ct_argsort(const ct_tensor *input, int dim, bool descending, bool stable)
{
    ct_tensor *indices = NULL;
    CT__ARG(input, "input", 1);
    return ct_sort(input, dim, descending, stable, NULL, &indices) == CT_OK ? indices : NULL;
}

ct_result ct_topk(const ct_tensor *input, int64_t k, int dim, bool largest, bool sorted, ct_tensor **values,
                  ct_tensor **indices)
{
    ct__sort_clear_results(values, indices, NULL);
    CT__ARG_R(input, "input", 1);
    int d = ct__wrap_dim(dim, input->ndim);
    if (d < 0) return ct_last_error_code();
    if (k < 0 || k > (input->ndim ? input->sizes[d] : 1))
        return ct__fail(CT_ERR_RUNTIME, "selected index k out of range");
    /* PyTorch looks for a kernel unless it just copies a 0-d input */
    if (input->dtype == CT_BOOL && input->ndim) return ct__sort_not_implemented("topk_cpu", input->dtype);
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, input->sizes, sizeof sizes);
    if (input->ndim) sizes[d] = k;
    ct__sort_job job = ct__sort_job_for(input, d);
    job.k = k;
    job.descending = largest;
    job.sorted = sorted;
    return ct__values_indices(CT__OP_topk, &job, sizes, NULL, input->ndim, false, values, indices);
}

ct_result ct_kthvalue(const ct_tensor *input, int64_t k, int dim, bool keepdim, ct_tensor **values,
                      ct_tensor **indices)
{
    ct__sort_clear_results(values, indices, NULL);
    CT__ARG_R(input, "input", 1);
    int d = ct__wrap_dim(dim, input->ndim);
    if (d < 0) return ct_last_error_code();
    int64_t n = input->ndim ? input->sizes[d] : 1;
    if (n == 0)
        return ct__fail(CT_ERR_INDEX, "kthvalue(): Expected reduction dim %d to have non-zero size.", d);
    if (k < 1 || k > n)
        return ct__fail(CT_ERR_RUNTIME, "kthvalue(): selected number k out of range for dimension %d", d);
    if (input->dtype == CT_BOOL && input->ndim) return ct__sort_not_implemented("kthvalue_cpu", input->dtype);
    int64_t sizes[CT_MAX_DIMS];
    int ndim = input->ndim;
    memcpy(sizes, input->sizes, sizeof sizes);
    if (ndim && keepdim) sizes[d] = 1;
    else if (ndim) memmove(sizes + d, sizes + d + 1, (size_t)(--ndim - d) * sizeof(int64_t));
    ct__sort_job job = ct__sort_job_for(input, d);
    job.k = k;
    return ct__values_indices(CT__OP_kthvalue, &job, sizes, NULL, ndim, input->ndim && !keepdim, values, indices);
}

/* ---------------------------------------------------------------- unique */

/* unique and unique_consecutive of the flattened input. */
static ct_result ct__unique_flat(ct__op op, const ct_tensor *input, bool sorted, ct_tensor **output,
                                 ct_tensor **inverse, ct_tensor **counts)
{
    ct_scope s = ct_scope_begin();
    ct__sort_job job = ct__sort_job_for(ct_contiguous(input), -1);
    job.sorted = sorted;
    job.want_inverse = inverse != NULL;
    job.want_counts = counts != NULL;
    ct_result r = job.input ? ct__sorting(op, &job) : ct_last_error_code();
    if (r == CT_OK) {
        ct__sort_hand_on(output, job.values);
        ct__sort_hand_on(inverse, job.indices);
        ct__sort_hand_on(counts, job.counts);
    }
    ct_scope_end(s);
    return r;
}

ct_result ct_unique(const ct_tensor *input, bool sorted, ct_tensor **output, ct_tensor **inverse, ct_tensor **counts)
{
    ct__sort_clear_results(output, inverse, counts);
    CT__ARG_R(input, "input", 1);
    return ct__unique_flat(CT__OP_unique, input, sorted, output, inverse, counts);
}

ct_result ct_unique_consecutive(const ct_tensor *input, ct_tensor **output, ct_tensor **inverse, ct_tensor **counts)
{
    ct__sort_clear_results(output, inverse, counts);
    CT__ARG_R(input, "input", 1);
    return ct__unique_flat(CT__OP_unique_consecutive, input, false, output, inverse, counts);
}

/* unique_dim's refusals of zero-size dims, and its answer when the dim itself is empty. */
static ct_result ct__unique_dim_empty(const ct_tensor *input, int d, ct_tensor **output, ct_tensor **inverse,
                                      ct_tensor **counts)
{
    int zero_dims = 0;
    for (int i = 0; i < input->ndim; i++) zero_dims += input->sizes[i] == 0;
    if (input->sizes[d] != 0)
        return ct__fail(CT_ERR_RUNTIME,
                        "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
    if (zero_dims > 1)
        return ct__fail(CT_ERR_RUNTIME,
                        "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    int64_t none = 0;
    ct_scope s = ct_scope_begin();
    ct__sort_hand_on(output, ct__alloc(input->sizes, input->ndim, input->dtype, input->storage->device));
    ct__sort_hand_on(inverse, ct__alloc(&none, 1, CT_I64, input->storage->device));
    ct__sort_hand_on(counts, ct__alloc(&none, 1, CT_I64, input->storage->device));
    ct_scope_end(s);
    return (output && !*output) || (inverse && !*inverse) || (counts && !*counts) ? ct_last_error_code() : CT_OK;
}

/* unique and unique_consecutive of the slices along dim: the dim swapped
 * with the first (as PyTorch 1.13 does: that order of the other dims is the
 * order in which slices compare), the rest flattened into rows, and the
 * unique rows swapped back. */
static ct_result ct__unique_dim(ct__op op, const ct_tensor *input, int dim, ct_tensor **output, ct_tensor **inverse,
                                ct_tensor **counts)
{
    ct__sort_clear_results(output, inverse, counts);
    CT__ARG_R(input, "input", 1);
    int d = ct__wrap_dim_strict(dim, input->ndim);
    if (d < 0) return ct_last_error_code();
    if (ct_numel(input) == 0) return ct__unique_dim_empty(input, d, output, inverse, counts);
    const int64_t rows_cols[2] = {input->sizes[d], -1};
    ct_scope s = ct_scope_begin();
    ct_tensor *moved = ct_transpose(input, 0, d);
    ct__sort_job job = ct__sort_job_for(ct_reshape(ct_contiguous(moved), ct_shape_make(2, rows_cols)), 0);
    job.want_inverse = true;
    job.want_counts = counts != NULL;
    ct_result r = job.input ? ct__sorting(op, &job) : ct_last_error_code();
    if (r == CT_OK) {
        ct_shape rows = ct_shape_of(moved);
        rows.size[0] = -1;
        ct__sort_hand_on(output, ct_transpose(ct_view(job.values, rows), 0, d));
        ct__sort_hand_on(inverse, job.indices);
        ct__sort_hand_on(counts, job.counts);
        r = output && !*output ? ct_last_error_code() : CT_OK;
    }
    ct_scope_end(s);
    return r;
}

ct_result ct_unique_dim(const ct_tensor *input, int dim, bool sorted, ct_tensor **output, ct_tensor **inverse,
                        ct_tensor **counts)
{
    (void)sorted; /* PyTorch sorts the slices either way */
    return ct__unique_dim(CT__OP_unique, input, dim, output, inverse, counts);
}

ct_result ct_unique_consecutive_dim(const ct_tensor *input, int dim, ct_tensor **output, ct_tensor **inverse,
                                    ct_tensor **counts)
{
    return ct__unique_dim(CT__OP_unique_consecutive, input, dim, output, inverse, counts);
}

/* ---------------------------------------------------------------- nonzero */

ct_tensor *ct_nonzero(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    ct_scope s = ct_scope_begin();
    ct__sort_job job = ct__sort_job_for(ct_contiguous(input), -1);
    ct_tensor *r = job.input && ct__sorting(CT__OP_nonzero, &job) == CT_OK ? ct_keep(job.indices) : NULL;
    ct_scope_end(s);
    return r;
}

ct_result ct_nonzero_as_tuple(const ct_tensor *input, ct_tensor **out, int *count)
{
    if (count) *count = 0;
    CT__ARG_R(input, "input", 1);
    if (!out || !count) return ct__fail(CT_ERR_VALUE, "nonzero_as_tuple(): out and count must not be NULL");
    /* a 0-d input counts as one element of a 1-D one, as in PyTorch */
    ct_scope s = ct_scope_begin();
    ct_tensor *nz = ct_nonzero(input->ndim ? input : ct_unsqueeze(input, 0));
    int n = CT__MAX(1, input->ndim);
    for (int j = 0; nz && j < n; j++) out[j] = ct_select(nz, 1, j);
    ct_result r = nz ? CT_OK : ct_last_error_code();
    for (int j = 0; r == CT_OK && j < n; j++) ct_keep(out[j]);
    ct_scope_end(s);
    if (r == CT_OK) *count = n;
    return r;
}

/* ---------------------------------------------------------------- searchsorted */

/* searchsorted_pre_check: everything PyTorch checks before looking at values. */
static ct_result ct__searchsorted_check(const ct_tensor *bd, const ct_tensor *in, ct_searchsorted_opts o)
{
    char b1[256], b2[256];
    if (o.side && strcmp(o.side, "left") && strcmp(o.side, "right"))
        return ct__fail(CT_ERR_RUNTIME, "torch.searchsorted(): side can only be 'left' or 'right' but got %s", o.side);
    if (o.side && o.right && strcmp(o.side, "right"))
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): side and right can't be set to opposites, got side of %s while right "
                        "was True", o.side);
    if (o.sorter && (o.sorter->ndim != bd->ndim || memcmp(o.sorter->sizes, bd->sizes, (size_t)bd->ndim * 8)))
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor "
                        "%sand got sorter tensor %s", ct__shape_str(bd->sizes, bd->ndim, b1, sizeof b1),
                        ct__shape_str(o.sorter->sizes, o.sorter->ndim, b2, sizeof b2));
    if (o.sorter && o.sorter->dtype != CT_I64)
        return ct__fail(CT_ERR_RUNTIME, "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype %s",
                        ct__dtype_title(o.sorter->dtype));
    if (in->ndim == 0 && bd->ndim != 1)
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is "
                        "1, but we got boundaries tensor dim(%d) and input value's dim(%d) numel(%lld)",
                        bd->ndim, in->ndim, (long long)ct_numel(in));
    if (bd->ndim == 0)
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
    if (bd->ndim != 1 && (bd->ndim != in->ndim || memcmp(bd->sizes, in->sizes, (size_t)(bd->ndim - 1) * 8)))
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                        "boundaries tensor and input value tensor must match, but we got boundaries tensor %s and "
                        "input value tensor %s", ct__shape_str(bd->sizes, bd->ndim, b1, sizeof b1),
                        ct__shape_str(in->sizes, in->ndim, b2, sizeof b2));
    if (o.out_int32 && bd->sizes[bd->ndim - 1] >= INT_MAX)
        return ct__fail(CT_ERR_RUNTIME,
                        "torch.searchsorted(): the size of boundaries' last dimension should be less than %d, but we "
                        "got %lld", INT_MAX, (long long)bd->sizes[bd->ndim - 1]);
    return CT_OK;
}

/* PyTorch 1.13 reads out of bounds for a sorter index outside the last dim;
 * later releases refuse it, and so does ctorch. */
static ct_result ct__check_sorter_range(const ct_tensor *sorter)
{
    ct_scope s = ct_scope_begin();
    const ct_tensor *c = ct_contiguous(sorter);
    const int64_t *p = c ? (const int64_t *)ct__data(c) : NULL;
    int64_t n = ct_numel(sorter), inner = sorter->sizes[sorter->ndim - 1];
    bool bad = false;
    for (int64_t i = 0; p && i < n; i++) bad |= p[i] < 0 || p[i] >= inner;
    ct_result r = !c ? ct_last_error_code() : CT_OK;
    ct_scope_end(s);
    return bad ? ct__fail(CT_ERR_RUNTIME, "torch.searchsorted(): sorter index out of range") : r;
}

/* The kernel's dtype: the promoted one, float16 and bfloat16 compared as the
 * float32 values they are exactly. */
static const ct_tensor *ct__search_operand(const ct_tensor *t, ct_dtype common, ct__stack_scalar *ss)
{
    const ct_tensor *c = ct__as_dtype(t, common, ss);
    if (c && (common == CT_F16 || common == CT_BF16)) c = ct_to(c, CT_F32);
    return c && !c->wrapped_number ? ct_contiguous(c) : c;
}

static ct_tensor *ct__searchsorted(const ct_tensor *bd, const ct_tensor *in, ct_searchsorted_opts o)
{
    if (ct__searchsorted_check(bd, in, o) != CT_OK || (o.sorter && ct__check_sorter_range(o.sorter) != CT_OK))
        return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *out = ct__alloc(in->sizes, in->ndim, o.out_int32 ? CT_I32 : CT_I64, in->storage->device);
    const ct_tensor *pair[2] = {bd, in};
    ct_dtype common = ct__result_type(pair, 2);
    ct_result r = out ? CT_OK : ct_last_error_code();
    if (r == CT_OK && ct_numel(in) > 0 && common == CT_BOOL)
        r = ct__sort_not_implemented("searchsorted_out_cpu", common);
    if (r == CT_OK && ct_numel(in) > 0) {
        ct__stack_scalar ss[2];
        ct__sort_job job = ct__sort_job_for(ct__search_operand(in, common, &ss[0]), -1);
        job.boundaries = ct__search_operand(bd, common, &ss[1]);
        job.sorter = o.sorter ? ct_contiguous(o.sorter) : NULL;
        job.indices = out;
        job.right = o.side ? !strcmp(o.side, "right") : o.right;
        r = job.input && job.boundaries && (job.sorter || !o.sorter) ? ct__sorting(CT__OP_searchsorted, &job)
                                                                     : ct_last_error_code();
    }
    if (r == CT_OK) ct_keep(out);
    ct_scope_end(s);
    return r == CT_OK ? out : NULL;
}

ct_tensor *ct_searchsorted(const ct_tensor *sorted_sequence, const ct_tensor *input, ct_searchsorted_opts opts)
{
    CT__ARG(sorted_sequence, "sorted_sequence", 1);
    CT__ARG(input, "input", 2);
    return ct__searchsorted(sorted_sequence, input, opts);
}

ct_tensor *ct_searchsorted_scalar(const ct_tensor *sorted_sequence, ct_scalar value, ct_searchsorted_opts opts)
{
    ct__stack_scalar ss;
    CT__ARG(sorted_sequence, "sorted_sequence", 1);
    return ct__searchsorted(sorted_sequence, ct__stack_scalar_init(&ss, value), opts);
}

/* ==================== cpu/iter.c ==================== */
// >>cpu/iter.c
/* The strided iterator (see iter.h). */

/* Operand i's stride in bytes along dim d (tensor order) of the iteration
 * shape; 0 where it is broadcast, as TensorIterator sets it. */
static int64_t ct__iter_stride(const ct_tensor *t, const int64_t *shape, int ndim, int d)
{
    int td = t->ndim - ndim + d; /* right-aligned */
    if (td < 0 || (t->sizes[td] == 1 && shape[d] != 1)) return 0;
    return t->strides[td] * (int64_t)ct__esize(t);
}

/* Whether dim a should iterate outside dim b (1), inside (-1) or either (0),
 * by PyTorch's rule: the first operand whose strides differ decides; equal
 * strides put the smaller size inside; broadcast dims decide nothing. */
static int ct__iter_should_swap(const ct_tensor *const *ops, int nops, const int64_t *shape, int ndim, int a, int b)
{
    for (int i = 0; i < nops; i++) {
        if (!ops[i]) continue;
        int64_t sa = ct__iter_stride(ops[i], shape, ndim, a), sb = ct__iter_stride(ops[i], shape, ndim, b);
        if (sa == 0 || sb == 0) continue;
        if (sa != sb) return sa > sb ? 1 : -1;
        if (shape[a] > shape[b]) return 1;
    }
    return 0;
}

static void ct__iter_perm(const ct_tensor *const *ops, int nops, const int64_t *shape, int ndim, int *perm)
{
    for (int i = 0; i < ndim; i++) perm[i] = ndim - 1 - i; /* innermost first */
    /* insertion sort that steps over ambiguous pairs instead of stopping at them */
    for (int i = 1; i < ndim; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int c = ct__iter_should_swap(ops, nops, shape, ndim, perm[d0], perm[d1]);
            if (c > 0) {
                int x = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = x;
                d1 = d0;
            } else if (c < 0) {
                break;
            }
        }
    }
}

static void ct__iter_init(ct__iter *it, int nops, const ct_tensor *const *ops)
{
    const ct_tensor *out = ops[0];
    int nd = out->ndim, perm[CT_MAX_DIMS];
    CT_ASSERT(nops <= CT__ITER_MAX_OPS);
    memset(it, 0, sizeof *it);
    it->nops = nops;
    it->numel = 1;
    ct__iter_perm(ops, nops, out->sizes, nd, perm);
    for (int k = 0; k < nd; k++) {
        it->shape[k] = out->sizes[perm[k]];
        it->numel *= it->shape[k];
        for (int i = 0; i < nops; i++) it->strides[k][i] = ct__iter_stride(ops[i], out->sizes, nd, perm[k]);
    }
    for (int i = 0; i < nops; i++) it->data[i] = ct__data(ops[i]);
    /* merge dims that are one block of memory for every operand */
    int n = 0;
    for (int d = 0; d < nd; d++) {
        if (it->shape[d] == 1) continue; /* size-1 dims vanish */
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

static void ct__dense_strides_for(const ct_tensor *const *inputs, int ninputs, const int64_t *shape, int ndim,
                                  int64_t *strides)
{
    int perm[CT_MAX_DIMS];
    int64_t s = 1;
    ct__iter_perm(inputs, ninputs, shape, ndim, perm);
    for (int k = 0; k < ndim; k++) {
        strides[perm[k]] = s;
        s *= shape[perm[k]] > 1 ? shape[perm[k]] : 1;
    }
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

/* ==================== cpu/range.c ==================== */
// >>cpu/range.c
/* arange, linspace and logspace on the CPU.
 *
 * PyTorch fills these with vectorised kernels whose lanes compute
 * `base + k * step` from a base rounded to the output dtype, so elements can
 * differ in the last bit from `start + i * step`. To give the same numbers we
 * follow the same structure: on AVX2 (PyTorch's CPU capability on x86) a
 * vector holds 32 bytes, the kernel fills two vectors at a time while at
 * least two remain, and the tail elements one by one. Arithmetic "in dtype T"
 * is done in double and rounded to T after each operation, which gives T's
 * own result for float, half and bfloat16 (double has over twice their
 * precision, so the double rounding is harmless). */

static int64_t ct__vec_lanes(ct_dtype dt) { return 32 / (int64_t)ct_dtype_size(dt); }

/* x rounded to the floating dtype dt (float64: unchanged). */
static double ct__round_to(double x, ct_dtype dt)
{
    switch (dt) {
    case CT_F32: return (float)x;
    case CT_F16: return ct__f16_to_float(ct__float_to_f16((float)x));
    case CT_BF16: return ct__bf16_to_float(ct__float_to_bf16((float)x));
    default: return x;
    }
}

/* The range kernels' element i: forward from `start`, or backward from `end`
 * for linspace's second half. `acc` is the dtype the arithmetic rounds to. */
typedef struct ct__range {
    double start, step, end;
    int64_t steps, halfway; /* linspace only: halfway = steps / 2, else n */
    ct_dtype acc;
} ct__range;

static double ct__range_at(const ct__range *r, int64_t i)
{
    if (i < r->halfway) return ct__round_to(r->start + ct__round_to(r->step * (double)i, r->acc), r->acc);
    return ct__round_to(r->end - ct__round_to(r->step * (double)(r->steps - i - 1), r->acc), r->acc);
}

/* Fill t (1-D, contiguous, floating) the way cpu_serial_kernel_vec does. */
static void ct__range_fill(ct_tensor *t, const ct__range *r)
{
    int64_t n = t->sizes[0], V = ct__vec_lanes(t->dtype), i = 0;
    char *p = (char *)ct__data(t);
    size_t es = ct__esize(t);
    for (; n >= 2 * V && i <= n - 2 * V; i += V) {
        /* a vector: base = element i in the dtype, lane k = base + k * step */
        double base = ct__round_to(ct__range_at(r, i), t->dtype);
        for (int64_t k = 0; k < V; k++)
            ct__write_f64(p + (size_t)(i + k) * es, t->dtype,
                          ct__round_to(base + ct__round_to((double)k * r->step, r->acc), r->acc));
    }
    for (; i < n; i++) ct__write_f64(p + (size_t)i * es, t->dtype, ct__range_at(r, i));
}

static int64_t ct__scalar_trunc_i64(ct_scalar s)
{
    return s.kind == CT_F64 ? ct__trunc_i64(s.v.f) : s.kind == CT_BOOL ? (int64_t)s.v.b : s.v.i;
}

static void ct__cpu_arange(ct_tensor *t, ct_scalar start, ct_scalar step)
{
    int64_t n = t->sizes[0];
    if (!ct_dtype_is_floating(t->dtype)) { /* int64 arithmetic, wrapping as two's complement */
        uint64_t s = (uint64_t)ct__scalar_trunc_i64(start), d = (uint64_t)ct__scalar_trunc_i64(step);
        char *p = (char *)ct__data(t);
        for (int64_t i = 0; i < n; i++) ct__write_i64(p + (size_t)i * ct__esize(t), t->dtype, (int64_t)(s + d * (uint64_t)i));
        return;
    }
    ct__range r;
    r.acc = t->dtype == CT_F32 || t->dtype == CT_F64 ? CT_F64 : CT_F32; /* acc_type on the CPU */
    r.start = ct__round_to(ct_scalar_to_double(start), r.acc);
    r.step = ct__round_to(ct_scalar_to_double(step), r.acc);
    r.end = 0;
    r.steps = r.halfway = n;
    ct__range_fill(t, &r);
}

static void ct__cpu_linspace(ct_tensor *t, double start, double end)
{
    int64_t n = t->sizes[0];
    if (n == 0) return;
    if (!ct_dtype_is_floating(t->dtype)) { /* step in double, values truncated */
        double s = (double)ct__trunc_i64(start), e = (double)ct__trunc_i64(end);
        double step = n > 1 ? (e - s) / (double)(n - 1) : 0;
        char *p = (char *)ct__data(t);
        for (int64_t i = 0; i < n; i++) {
            double v = i < n / 2 ? s + step * (double)i : e - step * (double)(n - i - 1);
            ct__write_f64(p + (size_t)i * ct__esize(t), t->dtype, v);
        }
        return;
    }
    ct__range r;
    r.acc = t->dtype; /* linspace steps in the output dtype itself */
    r.start = ct__round_to(start, r.acc);
    r.end = ct__round_to(end, r.acc);
    r.step = n > 1 ? ct__round_to((r.end - r.start) / (double)(n - 1), r.acc) : 0;
    r.steps = n;
    r.halfway = n / 2;
    ct__range_fill(t, &r);
}

static void ct__cpu_logspace(ct_tensor *t, double start, double end, double base)
{
    int64_t n = t->sizes[0];
    char *p = (char *)ct__data(t);
    size_t es = ct__esize(t);
    bool integral = !ct_dtype_is_floating(t->dtype);
    if (n == 1) {
        ct__write_f64(p, t->dtype, pow(base, start));
        return;
    }
    /* start and end as the dtype holds them; the exponent steps in double */
    double s = integral ? (double)ct__trunc_i64(start) : ct__round_to(start, t->dtype);
    double e = integral ? (double)ct__trunc_i64(end) : ct__round_to(end, t->dtype);
    double b = integral ? (double)(float)base : base, step = (e - s) / (double)(n - 1);
    for (int64_t i = 0; i < n; i++) {
        double x = i < n / 2 ? s + step * (double)i : e - step * (double)(n - i - 1);
        ct__write_f64(p + (size_t)i * es, t->dtype, pow(b, x));
    }
}

/* ==================== cpu/pointwise.c ==================== */
// >>cpu/pointwise.c
/* Pointwise kernels on the CPU.
 *
 * Each op is defined once per compute flavour: f (float), d (double) and i
 * (int64, which also serves the narrower integers and bool: their results wrap
 * to the low bits when stored, as native arithmetic does). Loops over every
 * dtype are generated from those definitions. float16 and bfloat16 never reach
 * a kernel: the front end computes them in float32 and rounds once, which is
 * what PyTorch's per-element `float(a) op float(b)` gives. */

/* Per dtype: storage type, flavour, load to the flavour and store from it. */
#define CT__KT_b8 uint8_t
#define CT__KT_u8 uint8_t
#define CT__KT_i8 int8_t
#define CT__KT_i16 int16_t
#define CT__KT_i32 int32_t
#define CT__KT_i64 int64_t
#define CT__KT_f32 float
#define CT__KT_f64 double
#define CT__KF_b8 i
#define CT__KF_u8 i
#define CT__KF_i8 i
#define CT__KF_i16 i
#define CT__KF_i32 i
#define CT__KF_i64 i
#define CT__KF_f32 f
#define CT__KF_f64 d
#define CT__KS_b8(v) ((uint8_t)((v) != 0))
#define CT__KS_u8(v) ((uint8_t)(uint64_t)(v))
#define CT__KS_i8(v) ((int8_t)(uint8_t)(uint64_t)(v))
#define CT__KS_i16(v) ((int16_t)(uint16_t)(uint64_t)(v))
#define CT__KS_i32(v) ((int32_t)(uint32_t)(uint64_t)(v))
#define CT__KS_i64(v) ((int64_t)(v))
#define CT__KS_f32(v) (v)
#define CT__KS_f64(v) (v)
typedef float ct__flavour_f;
typedef double ct__flavour_d;
typedef int64_t ct__flavour_i;

/* The dtype groups an op supports. */
#define CT__KD_INTS(X, op) X(op, u8) X(op, i8) X(op, i16) X(op, i32) X(op, i64)
#define CT__KD_FLOATS(X, op) X(op, f32) X(op, f64)
#define CT__KD_NUMERIC(X, op) CT__KD_INTS(X, op) CT__KD_FLOATS(X, op)
#define CT__KD_ALL(X, op) X(op, b8) CT__KD_NUMERIC(X, op)

/* ---------------------------------------------------------------- op definitions */

/* Unary: out = fn(x). CT__UNARY(name, float expr, double expr, int64 expr) */
#define CT__UNARY_F(name, ef) static inline float ct__##name##_f(float x, const ct__op_args *a) { (void)a; return ef; }
#define CT__UNARY_D(name, ed) static inline double ct__##name##_d(double x, const ct__op_args *a) { (void)a; return ed; }
#define CT__UNARY_I(name, ei) static inline int64_t ct__##name##_i(int64_t x, const ct__op_args *a) { (void)a; return ei; }

CT__UNARY_I(neg, (int64_t)(0 - (uint64_t)x))
CT__UNARY_F(neg, -x)
CT__UNARY_D(neg, -x)
CT__UNARY_I(abs, x < 0 ? (int64_t)(0 - (uint64_t)x) : x)
CT__UNARY_F(abs, fabsf(x))
CT__UNARY_D(abs, fabs(x))
CT__UNARY_I(floor, x)
CT__UNARY_F(floor, floorf(x))
CT__UNARY_D(floor, floor(x))
CT__UNARY_F(exp, expf(x))
CT__UNARY_D(exp, exp(x))
CT__UNARY_F(log, logf(x))
CT__UNARY_D(log, log(x))
CT__UNARY_F(sqrt, sqrtf(x))
CT__UNARY_D(sqrt, sqrt(x))
CT__UNARY_F(tanh, tanhf(x))
CT__UNARY_D(tanh, tanh(x))
CT__UNARY_F(sigmoid, 1.0f / (1.0f + expf(-x)))
CT__UNARY_D(sigmoid, 1.0 / (1.0 + exp(-x)))
CT__UNARY_I(relu, x > 0 ? x : 0)
CT__UNARY_F(relu, x > 0 ? x : (x != x ? x : 0.0f))
CT__UNARY_D(relu, x > 0 ? x : (x != x ? x : 0.0))
CT__UNARY_I(isnan, x != x)
CT__UNARY_F(isnan, x != x)
CT__UNARY_D(isnan, x != x)
CT__UNARY_I(logical_not, x == 0)
CT__UNARY_F(logical_not, x == 0)
CT__UNARY_D(logical_not, x == 0)

/* Binary: out = fn(x, y). */
#define CT__BINARY_F(name, ef) \
    static inline float ct__##name##_f(float x, float y, const ct__op_args *a) { (void)a; return ef; }
#define CT__BINARY_D(name, ed) \
    static inline double ct__##name##_d(double x, double y, const ct__op_args *a) { (void)a; return ed; }
#define CT__BINARY_I(name, ei) \
    static inline int64_t ct__##name##_i(int64_t x, int64_t y, const ct__op_args *a) { (void)a; return ei; }

/* alpha scales y (PyTorch: add(x, y, alpha) = x + alpha * y) */
CT__BINARY_I(add, (int64_t)((uint64_t)x + (uint64_t)a->alpha_i * (uint64_t)y))
CT__BINARY_F(add, x + (float)a->alpha * y)
CT__BINARY_D(add, x + a->alpha * y)
CT__BINARY_I(sub, (int64_t)((uint64_t)x - (uint64_t)a->alpha_i * (uint64_t)y))
CT__BINARY_F(sub, x - (float)a->alpha * y)
CT__BINARY_D(sub, x - a->alpha * y)
CT__BINARY_I(mul, (int64_t)((uint64_t)x * (uint64_t)y))
CT__BINARY_F(mul, x * y)
CT__BINARY_D(mul, x * y)
CT__BINARY_F(div, x / y)
CT__BINARY_D(div, x / y)
/* NaN propagates, as in PyTorch (fmax is the NaN-ignoring one) */
CT__BINARY_I(maximum, x > y ? x : y)
CT__BINARY_F(maximum, (x != x || y != y) ? x + y : (x > y ? x : y))
CT__BINARY_D(maximum, (x != x || y != y) ? x + y : (x > y ? x : y))
/* With a number exponent PyTorch takes products for 2, 3 and -2, and (except
 * for float16) sqrt, rsqrt and reciprocal for 0.5, -0.5 and -1, which round
 * (and treat -0 and -inf) differently from pow. */
#define CT__POW_BY_NUMBER(x, y, one, sqrtfn)                    \
    if (a->number_other) {                                      \
        if (y == 0.5 && a->compute != CT_F16) return sqrtfn(x); \
        if (y == -0.5 && a->compute != CT_F16) return one / sqrtfn(x); \
        if (y == -1 && a->compute != CT_F16) return one / x;    \
        if (y == 2) return x * x;                               \
        if (y == 3) return x * x * x;                           \
        if (y == -2) return one / (x * x);                      \
    }
static inline float ct__pow_f(float x, float y, const ct__op_args *a)
{
    CT__POW_BY_NUMBER(x, y, 1.0f, sqrtf)
    return powf(x, y);
}
static inline double ct__pow_d(double x, double y, const ct__op_args *a)
{
    CT__POW_BY_NUMBER(x, y, 1.0, sqrt)
    return pow(x, y);
}
CT__BINARY_I(eq, x == y)
CT__BINARY_F(eq, x == y)
CT__BINARY_D(eq, x == y)
CT__BINARY_I(lt, x < y)
CT__BINARY_F(lt, x < y)
CT__BINARY_D(lt, x < y)
CT__BINARY_I(logical_and, x != 0 && y != 0)
CT__BINARY_F(logical_and, x != 0 && y != 0)
CT__BINARY_D(logical_and, x != 0 && y != 0)

/* Integer power by squaring, wrapping as PyTorch's does (negative exponents
 * are refused by the front end, except for bases 1 and -1). */
static inline int64_t ct__pow_i(int64_t x, int64_t y, const ct__op_args *a)
{
    (void)a;
    if (y < 0) return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
    uint64_t r = 1, b = (uint64_t)x;
    for (uint64_t e = (uint64_t)y; e; e >>= 1, b *= b)
        if (e & 1) r *= b;
    return (int64_t)r;
}

/* ---------------------------------------------------------------- loops */

/* out[k] = fn(x[k]); the contiguous case is a plain loop the compiler vectorises. */
#define CT__UNARY_LOOP(name, dt)                                                                 \
    static void ct__uk_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)           \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        const ct__op_args *a = (const ct__op_args *)ctx;                                         \
        if (s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) {                          \
            T *CT__RESTRICT o = (T *)d[0];                                                       \
            const T *CT__RESTRICT x = (const T *)d[1];                                           \
            for (int64_t k = 0; k < n; k++)                                                      \
                o[k] = CT__KS_##dt(CT__CAT(ct__##name##_, CT__KF_##dt)((CT__CAT(ct__flavour_, CT__KF_##dt))x[k], a)); \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                *(T *)(d[0] + k * s[0]) = CT__KS_##dt(CT__CAT(ct__##name##_, CT__KF_##dt)(       \
                    (CT__CAT(ct__flavour_, CT__KF_##dt))*(const T *)(d[1] + k * s[1]), a));      \
        }                                                                                        \
    }

/* The same with a bool output (tests such as isnan). */
#define CT__UNARY_BOOL_LOOP(name, dt)                                                            \
    static void ct__uk_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)           \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        const ct__op_args *a = (const ct__op_args *)ctx;                                         \
        for (int64_t k = 0; k < n; k++)                                                          \
            *(uint8_t *)(d[0] + k * s[0]) = (uint8_t)(CT__CAT(ct__##name##_, CT__KF_##dt)(       \
                (CT__CAT(ct__flavour_, CT__KF_##dt))*(const T *)(d[1] + k * s[1]), a) != 0);     \
    }

/* out[k] = fn(x[k], y[k]), with fast paths for contiguous operands and for a
 * broadcast scalar y. OUT is the output's dtype name, STORE its store. */
#define CT__BINARY_LOOP_AS(name, dt, OT, STORE)                                                  \
    static void ct__bk_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)           \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        typedef CT__CAT(ct__flavour_, CT__KF_##dt) F;                                            \
        const ct__op_args *a = (const ct__op_args *)ctx;                                         \
        if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T) && s[2] == (int64_t)sizeof(T)) { \
            OT *CT__RESTRICT o = (OT *)d[0];                                                     \
            const T *CT__RESTRICT x = (const T *)d[1], *CT__RESTRICT y = (const T *)d[2];        \
            for (int64_t k = 0; k < n; k++)                                                      \
                o[k] = STORE(CT__CAT(ct__##name##_, CT__KF_##dt)((F)x[k], (F)y[k], a));         \
        } else if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T) && s[2] == 0) {     \
            OT *CT__RESTRICT o = (OT *)d[0];                                                     \
            const T *CT__RESTRICT x = (const T *)d[1];                                           \
            const F y = (F) * (const T *)d[2];                                                   \
            for (int64_t k = 0; k < n; k++) o[k] = STORE(CT__CAT(ct__##name##_, CT__KF_##dt)((F)x[k], y, a)); \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                *(OT *)(d[0] + k * s[0]) = STORE(CT__CAT(ct__##name##_, CT__KF_##dt)(            \
                    (F) * (const T *)(d[1] + k * s[1]), (F) * (const T *)(d[2] + k * s[2]), a));  \
        }                                                                                        \
    }
#define CT__BINARY_LOOP(name, dt) CT__BINARY_LOOP_AS(name, dt, CT__KT_##dt, CT__KS_##dt)
#define CT__BINARY_BOOL_LOOP(name, dt) CT__BINARY_LOOP_AS(name, dt, uint8_t, CT__KS_b8)

/* Which loops exist: X(name, kind of loop, dtype group). */
#define CT__CPU_KERNELS(X)                  \
    X(neg, UNARY, NUMERIC)                  \
    X(abs, UNARY, NUMERIC)                  \
    X(floor, UNARY, NUMERIC)                \
    X(exp, UNARY, FLOATS)                   \
    X(log, UNARY, FLOATS)                   \
    X(sqrt, UNARY, FLOATS)                  \
    X(tanh, UNARY, FLOATS)                  \
    X(sigmoid, UNARY, FLOATS)               \
    X(relu, UNARY, NUMERIC)                 \
    X(isnan, UNARY_BOOL, ALL)               \
    X(logical_not, UNARY_BOOL, ALL)         \
    X(add, BINARY, ALL)                     \
    X(sub, BINARY, NUMERIC)                 \
    X(mul, BINARY, ALL)                     \
    X(div, BINARY, FLOATS)                  \
    X(maximum, BINARY, ALL)                 \
    X(pow, BINARY, NUMERIC)                 \
    X(eq, BINARY_BOOL, ALL)                 \
    X(lt, BINARY_BOOL, ALL)                 \
    X(logical_and, BINARY_BOOL, ALL)

#define CT__DEFINE_LOOPS(name, kind, group) CT__KD_##group(CT__##kind##_LOOP, name)
CT__CPU_KERNELS(CT__DEFINE_LOOPS)
#undef CT__DEFINE_LOOPS

#define CT__KCASE_UNARY(name, dt) case CT__DT_##dt: return ct__uk_##name##_##dt;
#define CT__KCASE_UNARY_BOOL CT__KCASE_UNARY
#define CT__KCASE_BINARY(name, dt) case CT__DT_##dt: return ct__bk_##name##_##dt;
#define CT__KCASE_BINARY_BOOL CT__KCASE_BINARY
#define CT__DT_b8 CT_BOOL
#define CT__DT_u8 CT_U8
#define CT__DT_i8 CT_I8
#define CT__DT_i16 CT_I16
#define CT__DT_i32 CT_I32
#define CT__DT_i64 CT_I64
#define CT__DT_f32 CT_F32
#define CT__DT_f64 CT_F64

/* The CPU loop of op for inputs of dtype dt, or NULL when PyTorch has none. */
static ct__loop_fn ct__cpu_pointwise_loop(ct__op op, ct_dtype dt)
{
    switch (op) {
#define CT__KCASES(name, kind, group) \
    case CT__OP_##name: switch (dt) { CT__KD_##group(CT__KCASE_##kind, name) default: return NULL; }
        CT__CPU_KERNELS(CT__KCASES)
#undef CT__KCASES
    default: return NULL;
    }
}

static void ct__cpu_pointwise(ct__op op, ct_tensor *out, const ct_tensor *const *inputs, const ct__op_args *args)
{
    const ct_tensor *ops[3] = {out, inputs[0], ct__ops[op].arity > 1 ? inputs[1] : NULL};
    ct__iter it;
    ct__iter_init(&it, 1 + ct__ops[op].arity, ops);
    ct__iter_parallel(&it, ct__cpu_pointwise_loop(op, inputs[0]->dtype), (void *)args);
}

/* ==================== cpu/reduce.c ==================== */
// >>cpu/reduce.c

/* ==================== cpu/join.c ==================== */
// >>cpu/join.c

/* ==================== cpu/sort.c ==================== */
// >>cpu/sort.c
/* Sorting and selection kernels on the CPU.
 *
 * Elements are sorted as (key, index) pairs. A key is an unsigned integer
 * that orders as PyTorch's comparators do: NaN above everything and all NaNs
 * equal, -0 equal to 0, every bit flipped for descending order. So each
 * algorithm compares plain integers, whatever the dtype.
 *
 * PyTorch 1.13's CPU kernels use libstdc++'s unstable algorithms (std::sort,
 * std::partial_sort, std::nth_element) and a quickselect of their own, so
 * which of several equal elements comes first, and with it the indices,
 * depends on their exact steps. The ct__std_* functions replay libstdc++ 12's
 * (bits/stl_algo.h, bits/stl_heap.h) comparison for comparison, and
 * ct__quick_select replays PyTorch's. Where any order of equal keys gives the
 * same answer (a stable sort, or keys that turn out distinct) a radix sort
 * does the work instead. */

typedef struct ct__sort_kv {
    uint64_t key;
    int64_t idx;
} ct__sort_kv;

static inline void ct__sort_kv_swap(ct__sort_kv *a, ct__sort_kv *b)
{
    ct__sort_kv t = *a;
    *a = *b;
    *b = t;
}

/* ---------------------------------------------------------------- keys */

/* IEEE bits to a key: positives above negatives, negatives reversed. */
static inline uint64_t ct__key_ieee(uint64_t bits, uint64_t sign, uint64_t all, uint64_t inf)
{
    uint64_t mag = bits & ~sign;
    if (mag > inf) return all; /* NaN */
    if (mag == 0) return sign; /* -0 and 0 */
    return (bits & sign) ? ~bits & all : bits | sign;
}

static inline uint64_t ct__key_b8(ct__b8_t v) { return v; }
static inline uint64_t ct__key_u8(ct__u8_t v) { return v; }
static inline uint64_t ct__key_i8(ct__i8_t v) { return (uint8_t)v ^ 0x80u; }
static inline uint64_t ct__key_i16(ct__i16_t v) { return (uint16_t)v ^ 0x8000u; }
static inline uint64_t ct__key_i32(ct__i32_t v) { return (uint32_t)v ^ 0x80000000u; }
static inline uint64_t ct__key_i64(ct__i64_t v) { return (uint64_t)v ^ 0x8000000000000000u; }
static inline uint64_t ct__key_f16(ct__f16_t v) { return ct__key_ieee(v, 0x8000u, 0xffffu, 0x7c00u); }
static inline uint64_t ct__key_bf16(ct__bf16_t v) { return ct__key_ieee(v, 0x8000u, 0xffffu, 0x7f80u); }
static inline uint64_t ct__key_f32(ct__f32_t v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    return ct__key_ieee(b, 0x80000000u, 0xffffffffu, 0x7f800000u);
}
static inline uint64_t ct__key_f64(ct__f64_t v)
{
    uint64_t b;
    memcpy(&b, &v, 8);
    return ct__key_ieee(b, 0x8000000000000000u, UINT64_MAX, 0x7ff0000000000000u);
}

/* The key every NaN of dt gets, or 0 for dtypes without NaN. */
static uint64_t ct__sort_nan_key(ct_dtype dt)
{
    switch (dt) {
    case CT_F16: case CT_BF16: return 0xffffu;
    case CT_F32: return 0xffffffffu;
    case CT_F64: return UINT64_MAX;
    default: return 0;
    }
}

/* kv[j] = (key of element j of a strided slice, xor flip; j). */
typedef void (*ct__key_loader)(const char *src, int64_t stride, int64_t n, uint64_t flip, ct__sort_kv *kv);
#define CT__KEY_LOADER(name, DT, _)                                                                         \
    static void ct__load_keys_##name(const char *src, int64_t stride, int64_t n, uint64_t flip, ct__sort_kv *kv) \
    {                                                                                                       \
        for (int64_t j = 0; j < n; j++) {                                                                   \
            kv[j].key = ct__key_##name(*(const ct__##name##_t *)(src + j * stride)) ^ flip;                 \
            kv[j].idx = j;                                                                                  \
        }                                                                                                   \
    }
CT__DTYPES_A(CT__KEY_LOADER, _)
#undef CT__KEY_LOADER

#define CT__KEY_LOADER_ENTRY(name, DT, _) ct__load_keys_##name,
static const ct__key_loader ct__key_loaders[CT_NUM_DTYPES] = {NULL, CT__DTYPES_A(CT__KEY_LOADER_ENTRY, _)};
#undef CT__KEY_LOADER_ENTRY

/* A key (xor flip undone) back to its element. It gives the element exactly
 * except for the zeros and NaNs of floating dtypes, whose sign and payload
 * it dropped: false for those. */
static inline uint64_t ct__unkey_ieee(uint64_t k, uint64_t sign, uint64_t all)
{
    return (k & sign) ? k & ~sign : ~k & all;
}
static inline bool ct__unkey_b8(uint64_t k, ct__b8_t *v) { *v = (ct__b8_t)k; return true; }
static inline bool ct__unkey_u8(uint64_t k, ct__u8_t *v) { *v = (ct__u8_t)k; return true; }
static inline bool ct__unkey_i8(uint64_t k, ct__i8_t *v) { *v = (ct__i8_t)(uint8_t)(k ^ 0x80u); return true; }
static inline bool ct__unkey_i16(uint64_t k, ct__i16_t *v) { *v = (ct__i16_t)(uint16_t)(k ^ 0x8000u); return true; }
static inline bool ct__unkey_i32(uint64_t k, ct__i32_t *v) { *v = (ct__i32_t)(uint32_t)(k ^ 0x80000000u); return true; }
static inline bool ct__unkey_i64(uint64_t k, ct__i64_t *v) { *v = (ct__i64_t)(k ^ 0x8000000000000000u); return true; }
static inline bool ct__unkey_f16(uint64_t k, ct__f16_t *v)
{
    *v = (ct__f16_t)ct__unkey_ieee(k, 0x8000u, 0xffffu);
    return k != 0x8000u && k != 0xffffu;
}
static inline bool ct__unkey_bf16(uint64_t k, ct__bf16_t *v)
{
    *v = (ct__bf16_t)ct__unkey_ieee(k, 0x8000u, 0xffffu);
    return k != 0x8000u && k != 0xffffu;
}
static inline bool ct__unkey_f32(uint64_t k, ct__f32_t *v)
{
    uint32_t b = (uint32_t)ct__unkey_ieee(k, 0x80000000u, 0xffffffffu);
    memcpy(v, &b, 4);
    return k != 0x80000000u && k != 0xffffffffu;
}
static inline bool ct__unkey_f64(uint64_t k, ct__f64_t *v)
{
    uint64_t b = ct__unkey_ieee(k, 0x8000000000000000u, UINT64_MAX);
    memcpy(v, &b, 8);
    return k != 0x8000000000000000u && k != UINT64_MAX;
}

/* dst[j] = the element of kv[j] (byte strides): from its key, which keeps
 * the writes in order, or from src[kv[j].idx] where the key cannot tell. */
typedef void (*ct__key_storer)(char *dst, int64_t dstride, const ct__sort_kv *kv, int64_t n, uint64_t flip,
                               const char *src, int64_t sstride);
#define CT__KEY_STORER(name, DT, _)                                                                                \
    static void ct__store_keys_##name(char *dst, int64_t dstride, const ct__sort_kv *kv, int64_t n, uint64_t flip, \
                                      const char *src, int64_t sstride)                                            \
    {                                                                                                              \
        for (int64_t j = 0; j < n; j++) {                                                                          \
            ct__##name##_t v;                                                                                      \
            if (!ct__unkey_##name(kv[j].key ^ flip, &v)) v = *(const ct__##name##_t *)(src + kv[j].idx * sstride); \
            *(ct__##name##_t *)(dst + j * dstride) = v;                                                            \
        }                                                                                                          \
    }
CT__DTYPES_A(CT__KEY_STORER, _)
#undef CT__KEY_STORER

#define CT__KEY_STORER_ENTRY(name, DT, _) ct__store_keys_##name,
static const ct__key_storer ct__key_storers[CT_NUM_DTYPES] = {NULL, CT__DTYPES_A(CT__KEY_STORER_ENTRY, _)};
#undef CT__KEY_STORER_ENTRY

/* ACTION(T) with T the unsigned type of an element's size `esize`. */
#define CT__SORT_BY_SIZE(ACTION)          \
    switch (esize) {                 \
    case 1: ACTION(uint8_t); break;  \
    case 2: ACTION(uint16_t); break; \
    case 4: ACTION(uint32_t); break; \
    default: ACTION(uint64_t); break; \
    }

static void ct__sort_write_indices(char *dst, int64_t stride, const ct__sort_kv *kv, int64_t n)
{
    for (int64_t j = 0; j < n; j++) *(int64_t *)(dst + j * stride) = kv[j].idx;
}

/* ---------------------------------------------------------------- libstdc++'s algorithms */

static int ct__sort_lg(int64_t n)
{
    int lg = 0;
    while (n >>= 1) lg++;
    return lg;
}

/* std::sort and the heap functions it falls back on, for a comparison
 * LESS(a, b, ctx) of two ct__sort_kv pointers. The final insertion pass, which
 * libstdc++ leaves unguarded, is bounded by the array as well: that changes
 * nothing for a consistent comparison and keeps an inconsistent one (rows
 * holding NaN) in bounds. The partition needs no bound for any comparison
 * that calls nothing less than itself: its scans stop at the pivot, or at
 * the elements they last swapped. */
#define CT__DEFINE_STD_SORT(name, LESS)                                                                               \
    static void ct__std_insertion_sort_##name(ct__sort_kv *first, ct__sort_kv *last, void *ctx)                       \
    {                                                                                                                 \
        for (ct__sort_kv *i = first + 1; i < last; i++) {                                                             \
            ct__sort_kv val = *i, *j = i;                                                                             \
            if (LESS(&val, first, ctx)) {                                                                             \
                memmove(first + 1, first, (size_t)(i - first) * sizeof *first);                                       \
                *first = val;                                                                                         \
                continue;                                                                                             \
            }                                                                                                         \
            for (; LESS(&val, j - 1, ctx); j--) *j = j[-1];                                                           \
            *j = val;                                                                                                 \
        }                                                                                                             \
    }                                                                                                                 \
    static void ct__std_unguarded_insertion_##name(ct__sort_kv *lo, ct__sort_kv *first, ct__sort_kv *last, void *ctx) \
    {                                                                                                                 \
        for (ct__sort_kv *i = first; i < last; i++) {                                                                 \
            ct__sort_kv val = *i, *j = i;                                                                             \
            for (; j > lo && LESS(&val, j - 1, ctx); j--) *j = j[-1];                                                 \
            *j = val;                                                                                                 \
        }                                                                                                             \
    }                                                                                                                 \
    static void ct__std_adjust_heap_##name(ct__sort_kv *first, int64_t hole, int64_t len, ct__sort_kv value,          \
                                           void *ctx)                                                                 \
    {                                                                                                                 \
        const int64_t top = hole;                                                                                     \
        int64_t child = hole;                                                                                         \
        while (child < (len - 1) / 2) {                                                                               \
            child = 2 * (child + 1);                                                                                  \
            if (LESS(first + child, first + (child - 1), ctx)) child--;                                               \
            first[hole] = first[child];                                                                               \
            hole = child;                                                                                             \
        }                                                                                                             \
        if ((len & 1) == 0 && child == (len - 2) / 2) {                                                               \
            child = 2 * (child + 1);                                                                                  \
            first[hole] = first[child - 1];                                                                           \
            hole = child - 1;                                                                                         \
        }                                                                                                             \
        for (int64_t parent = (hole - 1) / 2; hole > top && LESS(first + parent, &value, ctx);                        \
             parent = (hole - 1) / 2) {                                                                               \
            first[hole] = first[parent];                                                                              \
            hole = parent;                                                                                            \
        }                                                                                                             \
        first[hole] = value;                                                                                          \
    }                                                                                                                 \
    static void ct__std_pop_heap_##name(ct__sort_kv *first, ct__sort_kv *last, ct__sort_kv *result, void *ctx)        \
    {                                                                                                                 \
        ct__sort_kv value = *result;                                                                                  \
        *result = *first;                                                                                             \
        ct__std_adjust_heap_##name(first, 0, last - first, value, ctx);                                               \
    }                                                                                                                 \
    static void ct__std_heap_select_##name(ct__sort_kv *first, ct__sort_kv *middle, ct__sort_kv *last, void *ctx)     \
    {                                                                                                                 \
        int64_t len = middle - first;                                                                                 \
        for (int64_t parent = (len - 2) / 2; len >= 2 && parent >= 0; parent--)                                       \
            ct__std_adjust_heap_##name(first, parent, len, first[parent], ctx);                                       \
        for (ct__sort_kv *i = middle; i < last; i++)                                                                  \
            if (LESS(i, first, ctx)) ct__std_pop_heap_##name(first, middle, i, ctx);                                  \
    }                                                                                                                 \
    static void ct__std_partial_sort_##name(ct__sort_kv *first, ct__sort_kv *middle, ct__sort_kv *last, void *ctx)    \
    {                                                                                                                 \
        ct__std_heap_select_##name(first, middle, last, ctx);                                                         \
        for (; middle - first > 1; middle--) ct__std_pop_heap_##name(first, middle - 1, middle - 1, ctx);             \
    }                                                                                                                 \
    /* the median of first[1], the middle and the last moved to first, then Hoare's partition of the rest             \
     * around it (__unguarded_partition_pivot) */                                                                     \
    static ct__sort_kv *ct__std_partition_##name(ct__sort_kv *first, ct__sort_kv *last, void *ctx)                    \
    {                                                                                                                 \
        ct__sort_kv *a = first + 1, *b = first + (last - first) / 2, *c = last - 1, *m;                               \
        if (LESS(a, b, ctx))                                                                                          \
            m = LESS(b, c, ctx) ? b : LESS(a, c, ctx) ? c : a;                                                        \
        else                                                                                                          \
            m = LESS(a, c, ctx) ? a : LESS(b, c, ctx) ? c : b;                                                        \
        ct__sort_kv_swap(first, m);                                                                                   \
        ct__sort_kv *lo = first + 1, *hi = last;                                                                      \
        for (;;) {                                                                                                    \
            while (LESS(lo, first, ctx)) lo++;                                                                        \
            hi--;                                                                                                     \
            while (LESS(first, hi, ctx)) hi--;                                                                        \
            if (!(lo < hi)) return lo;                                                                                \
            ct__sort_kv_swap(lo, hi);                                                                                 \
            lo++;                                                                                                     \
        }                                                                                                             \
    }                                                                                                                 \
    static void ct__std_introsort_##name(ct__sort_kv *first, ct__sort_kv *last, int depth, void *ctx)                 \
    {                                                                                                                 \
        while (last - first > 16) {                                                                                   \
            if (depth-- == 0) {                                                                                       \
                ct__std_partial_sort_##name(first, last, last, ctx);                                                  \
                return;                                                                                               \
            }                                                                                                         \
            ct__sort_kv *cut = ct__std_partition_##name(first, last, ctx);                                            \
            ct__std_introsort_##name(cut, last, depth, ctx);                                                          \
            last = cut;                                                                                               \
        }                                                                                                             \
    }                                                                                                                 \
    static void ct__std_sort_##name(ct__sort_kv *first, ct__sort_kv *last, void *ctx)                                 \
    {                                                                                                                 \
        if (last - first < 2) return;                                                                                 \
        ct__std_introsort_##name(first, last, 2 * ct__sort_lg(last - first), ctx);                                    \
        ct__sort_kv *head = last - first > 16 ? first + 16 : last;                                                    \
        ct__std_insertion_sort_##name(first, head, ctx);                                                              \
        ct__std_unguarded_insertion_##name(first, head, last, ctx);                                                   \
    }

#define CT__KEY_LESS(a, b, ctx) ((void)(ctx), (a)->key < (b)->key)
CT__DEFINE_STD_SORT(kv, CT__KEY_LESS)

/* std::nth_element (__introselect) by key. */
static void ct__std_nth_element(ct__sort_kv *first, ct__sort_kv *nth, ct__sort_kv *last)
{
    if (first == last || nth == last) return;
    int depth = 2 * ct__sort_lg(last - first);
    while (last - first > 3) {
        if (depth-- == 0) {
            ct__std_heap_select_kv(first, nth + 1, last, NULL);
            ct__sort_kv_swap(first, nth);
            return;
        }
        ct__sort_kv *cut = ct__std_partition_kv(first, last, NULL);
        if (cut <= nth) first = cut;
        else last = cut;
    }
    ct__std_insertion_sort_kv(first, last, NULL);
}

/* PyTorch's quickselect for kthvalue (Sedgewick's, median of three): moves
 * the element of rank k (0-based, by key) to kv[k]. */
static void ct__quick_select(ct__sort_kv *kv, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    while (hi > lo + 1) {
        ct__sort_kv_swap(&kv[lo + (hi - lo) / 2], &kv[lo + 1]);
        if (kv[lo + 1].key > kv[hi].key) ct__sort_kv_swap(&kv[lo + 1], &kv[hi]);
        if (kv[lo].key > kv[hi].key) ct__sort_kv_swap(&kv[lo], &kv[hi]);
        if (kv[lo + 1].key > kv[lo].key) ct__sort_kv_swap(&kv[lo + 1], &kv[lo]);
        int64_t i = lo + 1, j = hi;
        const uint64_t pivot = kv[lo].key;
        for (;;) {
            do i++; while (pivot > kv[i].key);
            do j--; while (kv[j].key > pivot);
            if (j < i) break;
            ct__sort_kv_swap(&kv[i], &kv[j]);
        }
        ct__sort_kv_swap(&kv[lo], &kv[j]);
        if (j <= k) lo = i;
        if (j >= k) hi = j - 1;
    }
    if (hi == lo + 1 && kv[lo].key > kv[hi].key) ct__sort_kv_swap(&kv[lo], &kv[hi]);
}

/* ---------------------------------------------------------------- radix sort */

/* Stable LSD radix sort by key, a byte at a time; one pass counts every
 * byte, and bytes in which all keys agree take no pass. tmp has room for n.
 * Returns the array holding the result (kv or tmp). */
static ct__sort_kv *ct__radix_sort(ct__sort_kv *kv, ct__sort_kv *tmp, int64_t n)
{
    int64_t pos[8][256];
    memset(pos, 0, sizeof pos);
    for (int64_t j = 0; j < n; j++)
        for (int b = 0; b < 8; b++) pos[b][(kv[j].key >> (8 * b)) & 0xff]++;
    for (int b = 0; b < 8; b++) {
        if (pos[b][(kv[0].key >> (8 * b)) & 0xff] == n) continue;
        for (int64_t d = 0, sum = 0; d < 256; d++) {
            int64_t c = pos[b][d];
            pos[b][d] = sum;
            sum += c;
        }
        for (int64_t j = 0; j < n; j++) tmp[pos[b][(kv[j].key >> (8 * b)) & 0xff]++] = kv[j];
        ct__sort_kv *t = kv;
        kv = tmp;
        tmp = t;
    }
    return kv;
}

/* Below this many elements a comparison sort beats the radix sort's passes. */
#define CT__RADIX_MIN 256

/* Sorted by key, equal keys in index order (std::stable_sort's result). */
static ct__sort_kv *ct__stable_sort(ct__sort_kv *kv, ct__sort_kv *tmp, int64_t n)
{
    if (n >= CT__RADIX_MIN) return ct__radix_sort(kv, tmp, n);
    ct__std_insertion_sort_kv(kv, kv + n, NULL);
    return kv;
}

/* Whether the keys may well all differ, so that a radix sort (checked
 * afterwards) likely settles an unstable sort: exactly, with a bitmap in
 * scratch (16n bytes), when they span few values; else by the birthday
 * bound for keys spread evenly over their span. */
static bool ct__keys_may_differ(const ct__sort_kv *kv, int64_t n, void *scratch)
{
    uint64_t lo = kv[0].key, hi = kv[0].key, *bits = (uint64_t *)scratch;
    for (int64_t j = 1; j < n; j++) {
        lo = CT__MIN(lo, kv[j].key);
        hi = CT__MAX(hi, kv[j].key);
    }
    uint64_t span = hi - lo;
    if (span / 64 >= (uint64_t)n) return (double)n * (double)n / (2.0 * (double)span) < 1;
    memset(bits, 0, (size_t)(span / 64 + 1) * 8);
    for (int64_t j = 0; j < n; j++) {
        uint64_t b = kv[j].key - lo, bit = 1ull << (b & 63);
        if (bits[b >> 6] & bit) return false;
        bits[b >> 6] |= bit;
    }
    return true;
}

static bool ct__sorted_keys_repeat(const ct__sort_kv *kv, int64_t n)
{
    for (int64_t j = 1; j < n; j++)
        if (kv[j].key == kv[j - 1].key) return true;
    return false;
}

/* ---------------------------------------------------------------- slices along a dim */

/* The slices of one sort, topk or kthvalue: operands (indices, input[,
 * values]) with the dim squashed, and what one slice needs. */
typedef struct ct__slices ct__slices;
typedef void (*ct__slice_fn)(const ct__slices *s, char *idx, const char *in, char *val, ct__sort_kv *scratch);
struct ct__slices {
    ct__iter it;
    ct__slice_fn fn;
    ct__key_loader load;
    ct__key_storer store;
    int64_t n, k;                             /* slice length; outputs' length along dim */
    int64_t in_stride, idx_stride, val_stride; /* bytes along dim */
    uint64_t flip; /* all ones for descending order */
    bool stable, sorted, has_values;
    int64_t scratch; /* ct__sort_kv per slice */
    int failed;
};

typedef struct ct__slice_chunk {
    const ct__slices *s;
    ct__sort_kv *scratch;
} ct__slice_chunk;

/* The slice's outputs from the first k entries of kv. */
static void ct__slice_write(const ct__slices *s, char *idx, const char *in, char *val, const ct__sort_kv *kv, int64_t k)
{
    ct__sort_write_indices(idx, s->idx_stride, kv, k);
    if (val) s->store(val, s->val_stride, kv, k, s->flip, in, s->in_stride);
}

static void ct__slice_sort(const ct__slices *s, char *idx, const char *in, char *val, ct__sort_kv *kv)
{
    ct__sort_kv *tmp = kv + s->n, *res = kv;
    s->load(in, s->in_stride, s->n, s->flip, kv);
    if (s->stable) {
        res = ct__stable_sort(kv, tmp, s->n);
    } else if (s->n < CT__RADIX_MIN || !ct__keys_may_differ(kv, s->n, tmp)) {
        ct__std_sort_kv(kv, kv + s->n, NULL);
    } else {
        res = ct__radix_sort(kv, tmp, s->n);
        if (ct__sorted_keys_repeat(res, s->n)) { /* only std::sort's own steps order equal keys as PyTorch */
            s->load(in, s->in_stride, s->n, s->flip, kv);
            ct__std_sort_kv(kv, kv + s->n, NULL);
            res = kv;
        }
    }
    ct__slice_write(s, idx, in, val, res, s->n);
}

/* TopKImpl.h: partial_sort when k is small against the slice, else
 * nth_element and (when sorted) std::sort of the k-1 before it. */
static void ct__slice_topk(const ct__slices *s, char *idx, const char *in, char *val, ct__sort_kv *kv)
{
    s->load(in, s->in_stride, s->n, s->flip, kv);
    if (s->k <= s->n / 64) {
        ct__std_partial_sort_kv(kv, kv + s->k, kv + s->n, NULL);
    } else {
        ct__std_nth_element(kv, kv + s->k - 1, kv + s->n);
        if (s->sorted) ct__std_sort_kv(kv, kv + s->k - 1, NULL);
    }
    ct__slice_write(s, idx, in, val, kv, s->k);
}

static void ct__slice_kthvalue(const ct__slices *s, char *idx, const char *in, char *val, ct__sort_kv *kv)
{
    s->load(in, s->in_stride, s->n, 0, kv);
    ct__quick_select(kv, s->n, s->k - 1);
    ct__slice_write(s, idx, in, val, kv + s->k - 1, 1);
}

static void ct__slices_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const ct__slice_chunk *c = (const ct__slice_chunk *)ctx;
    for (int64_t i = 0; i < n; i++)
        c->s->fn(c->s, data[0] + i * strides[0], data[1] + i * strides[1],
                 c->s->has_values ? data[2] + i * strides[2] : NULL, c->scratch);
}

static void ct__slices_range(int64_t begin, int64_t end, void *ctx)
{
    ct__slices *s = (ct__slices *)ctx;
    ct__slice_chunk c = {s, (ct__sort_kv *)CT_MALLOC((size_t)s->scratch * sizeof(ct__sort_kv))};
    if (!c.scratch) {
        CT__ATOMIC_INC(&s->failed);
        return;
    }
    ct__iter_range(&s->it, begin, end, ct__slices_loop, &c);
    CT_FREE(c.scratch);
}

/* t without dim d: a shallow copy for the iterator, never released. */
static ct_tensor ct__sort_squash_dim(const ct_tensor *t, int d)
{
    ct_tensor v = *t;
    v.ndim = t->ndim - 1;
    for (int i = d; i < v.ndim; i++) {
        v.sizes[i] = t->sizes[i + 1];
        v.strides[i] = t->strides[i + 1];
    }
    return v;
}

/* Run fn on every slice along job->dim, with scratch for `per` ct__sort_kv per element of a slice. */
static ct_result ct__run_slices(ct__slice_fn fn, const ct__sort_job *job, uint64_t flip, int64_t per)
{
    const ct_tensor *in = job->input;
    int d = job->dim;
    ct__slices s;
    memset(&s, 0, sizeof s);
    s.fn = fn;
    s.load = ct__key_loaders[in->dtype];
    s.store = ct__key_storers[in->dtype];
    s.n = in->sizes[d];
    s.k = job->k;
    s.in_stride = in->strides[d] * (int64_t)ct__esize(in);
    s.idx_stride = job->indices->strides[d] * 8;
    s.val_stride = job->values ? job->values->strides[d] * (int64_t)ct__esize(in) : 0;
    s.flip = flip;
    s.stable = job->stable;
    s.sorted = job->sorted;
    s.has_values = job->values != NULL;
    s.scratch = per * s.n;
    ct_tensor ops[3] = {ct__sort_squash_dim(job->indices, d), ct__sort_squash_dim(in, d), ct__sort_squash_dim(in, d)};
    if (job->values) ops[2] = ct__sort_squash_dim(job->values, d);
    const ct_tensor *p[3] = {&ops[0], &ops[1], &ops[2]};
    ct__iter_init(&s.it, s.has_values ? 3 : 2, p);
    ct__parallel_for(s.it.numel, CT__MAX(1, CT__GRAIN / CT__MAX(1, s.n)), ct__slices_range, &s);
    return s.failed ? CT__OOM() : CT_OK;
}

/* ---------------------------------------------------------------- unique */

/* Whether the key of an element is a NaN, which equals nothing (not even itself). */
static inline bool ct__sort_is_nan_key(uint64_t key, uint64_t nan) { return nan && key == nan; }

/* The rows of a matrix of keys, for unique along a dim. */
typedef struct ct__sort_rows {
    const ct__sort_kv *keys;
    int64_t cols;
    uint64_t nan;
} ct__sort_rows;

/* unique_dim's order: the first column where one row's element is < or >
 * the other's decides; NaN is neither, so it decides nothing. */
static bool ct__sort_row_less(const ct__sort_rows *r, int64_t a, int64_t b)
{
    const ct__sort_kv *x = r->keys + a * r->cols, *y = r->keys + b * r->cols;
    for (int64_t c = 0; c < r->cols; c++) {
        if (ct__sort_is_nan_key(x[c].key, r->nan) || ct__sort_is_nan_key(y[c].key, r->nan)) continue;
        if (x[c].key != y[c].key) return x[c].key < y[c].key;
    }
    return false;
}

/* torch.equal of two rows: a NaN makes them differ. */
static bool ct__sort_row_equal(const ct__sort_rows *r, int64_t a, int64_t b)
{
    const ct__sort_kv *x = r->keys + a * r->cols, *y = r->keys + b * r->cols;
    for (int64_t c = 0; c < r->cols; c++)
        if (x[c].key != y[c].key || ct__sort_is_nan_key(x[c].key, r->nan)) return false;
    return true;
}

#define CT__ROW_LESS(a, b, ctx) ct__sort_row_less((const ct__sort_rows *)(ctx), (a)->idx, (b)->idx)
CT__DEFINE_STD_SORT(rows, CT__ROW_LESS)

/* Whether item b continues the run of item a: equal elements (a NaN equals
 * nothing), or equal rows. */
static inline bool ct__sort_same_item(const ct__sort_kv *a, const ct__sort_kv *b, const ct__sort_rows *rows,
                                      uint64_t nan)
{
    if (rows) return ct__sort_row_equal(rows, a->idx, b->idx);
    return a->key == b->key && !ct__sort_is_nan_key(a->key, nan);
}

/* unique's outputs: m values (rows of `cols` when cols > 0), and the inverse
 * (input's shape, or one per row) and the counts when wanted. */
static ct_result ct__unique_outputs(ct__sort_job *job, int64_t m, int64_t cols)
{
    const ct_tensor *in = job->input;
    int64_t vshape[2] = {m, cols};
    job->values = ct__alloc(vshape, cols ? 2 : 1, in->dtype, in->storage->device);
    job->counts = job->want_counts ? ct__alloc(&m, 1, CT_I64, in->storage->device) : NULL;
    job->indices = job->want_inverse ? ct__alloc(in->sizes, cols ? 1 : in->ndim, CT_I64, in->storage->device) : NULL;
    if (!job->values || (job->want_counts && !job->counts) || (job->want_inverse && !job->indices))
        return ct_last_error_code();
    return CT_OK;
}

/* unique's values: the items of the first m entries of order. */
static void ct__store_items(ct__sort_job *job, const ct__sort_kv *order, int64_t m, const ct__sort_rows *rows)
{
    const ct_tensor *in = job->input;
    int64_t width = (int64_t)ct__esize(in) * (rows ? rows->cols : 1);
    if (!rows) {
        ct__key_storers[in->dtype](ct__data(job->values), width, order, m, 0, ct__data(in), width);
        return;
    }
    for (int64_t g = 0; g < m; g++)
        memcpy(ct__data(job->values) + g * width, ct__data(in) + order[g].idx * width, (size_t)width);
}

/* Runs of equal items in order (as unique_consecutive finds them among rows,
 * and unique after sorting): the outputs from the first item of each run,
 * which are moved to the front of order on the way. */
static ct_result ct__emit_runs(ct__sort_job *job, ct__sort_kv *order, int64_t n, const ct__sort_rows *rows,
                               uint64_t nan)
{
    int64_t m = n > 0;
    for (int64_t j = 1; j < n; j++) m += !ct__sort_same_item(&order[j - 1], &order[j], rows, nan);
    ct_result r = ct__unique_outputs(job, m, rows ? rows->cols : 0);
    if (r != CT_OK) return r;
    int64_t *counts = job->counts ? (int64_t *)ct__data(job->counts) : NULL;
    int64_t *inverse = job->indices ? (int64_t *)ct__data(job->indices) : NULL;
    ct__sort_kv prev = {0, 0};
    int64_t g = -1, last = 0;
    for (int64_t j = 0; j < n; j++) {
        ct__sort_kv cur = order[j];
        if (j == 0 || !ct__sort_same_item(&prev, &cur, rows, nan)) {
            if (counts && g >= 0) counts[g] = j - last;
            order[++g] = cur;
            last = j;
        }
        if (inverse) inverse[cur.idx] = g;
        prev = cur;
    }
    if (counts && m) counts[m - 1] = n - last;
    ct__store_items(job, order, m, rows);
    return CT_OK;
}

/* ---------------------------------------------------------------- PyTorch 1.13's hash set */

/* PyTorch 1.13's unique collects the values in a std::unordered_set: with
 * sorted=False they come out in the set's order, and NaNs (each equal to
 * nothing, so each a value of its own) make its std::sort of them depend on
 * that order too. This replays libstdc++ 12's set: each dtype's std::hash,
 * growth through these bucket counts (load factor 1: 13 buckets at first,
 * then its next prime after twice as many), and where each node is linked. */
static const uint64_t ct__hset_sizes[] = {
    13u, 29u, 59u, 127u, 257u, 541u, 1109u, 2357u, 5087u, 10273u, 20753u, 42043u, 85229u, 172933u, 351061u,
    712697u, 1447153u, 2938679u, 5967347u, 12117689u, 24607243u, 49969847u, 101473717u, 206062531u, 418451333u,
    849749479u, 1725587117u, 3504151727u, 8589934583u, 25769803693u, 68719476731u, 206158430123u,
    412316860387u, 1099511627689u, 2199023255531u, 4398046511093u, 13194139533241u, 26388279066581u,
    52776558133177u, 105553116266399u, 211106232532861u, 562949953421231u, 1125899906842597u,
    4503599627370449u, 18014398509481951u, 36028797018963913u, 72057594037927931u, 288230376151711717u,
    1152921504606846883u, 2305843009213693951u, 9223372036854775783u};

/* libstdc++'s std::_Hash_bytes, which std::hash<float> and <double> use. */
static uint64_t ct__hash_bytes(const void *p, size_t len)
{
    const uint64_t mul = 0xc6a4a7935bd1e995u;
    const unsigned char *b = (const unsigned char *)p;
    size_t whole = len & ~(size_t)7;
    uint64_t h = 0xc70f6907u ^ (len * mul), d;
    for (size_t i = 0; i < whole; i += 8) {
        memcpy(&d, b + i, 8);
        d *= mul;
        h = (h ^ ((d ^ (d >> 47)) * mul)) * mul;
    }
    if (len & 7) {
        d = 0;
        for (size_t i = len; i-- > whole;) d = (d << 8) + b[i];
        h = (h ^ d) * mul;
    }
    h = (h ^ (h >> 47)) * mul;
    return h ^ (h >> 47);
}

/* std::hash of an element as PyTorch 1.13 hashes it: integers by value,
 * bfloat16 by its bits, float and double by their bytes (0 for both zeros);
 * float16, which 1.13 refuses, as the float32 ctorch computes it in. */
static uint64_t ct__std_hash(const char *p, ct_dtype dt)
{
    float f;
    double d;
    switch (dt) {
    case CT_BOOL: case CT_U8: return *(const uint8_t *)p;
    case CT_I8: return (uint64_t)*(const int8_t *)p;
    case CT_I16: return (uint64_t)*(const int16_t *)p;
    case CT_I32: return (uint64_t)*(const int32_t *)p;
    case CT_BF16: return *(const uint16_t *)p;
    case CT_F16: f = ct__f16_to_float(*(const uint16_t *)p); return f != 0 ? ct__hash_bytes(&f, 4) : 0;
    case CT_F32: memcpy(&f, p, 4); return f != 0 ? ct__hash_bytes(&f, 4) : 0;
    case CT_F64: memcpy(&d, p, 8); return d != 0 ? ct__hash_bytes(&d, 8) : 0;
    default: return (uint64_t)*(const int64_t *)p;
    }
}

#define CT__HSET_HEAD (-1) /* a bucket whose first node is the list's first */
#define CT__HSET_NONE (-2) /* an empty bucket */

/* Nodes are input positions, in one singly linked list; each bucket holds the
 * node before its first one. */
typedef struct ct__hset {
    const ct__sort_kv *keys;
    uint64_t nan, *hash;
    int64_t *next, *before, head, count, nbuckets;
    int size; /* index of nbuckets in ct__hset_sizes */
} ct__hset;

static int64_t ct__hset_after(const ct__hset *s, int64_t before)
{
    return before == CT__HSET_HEAD ? s->head : s->next[before];
}

/* Link node first in its bucket (_M_insert_bucket_begin, and each step of a rehash). */
static void ct__hset_push(ct__hset *s, int64_t node)
{
    int64_t b = (int64_t)(s->hash[node] % (uint64_t)s->nbuckets), before = s->before[b];
    if (before != CT__HSET_NONE) {
        s->next[node] = ct__hset_after(s, before);
        if (before == CT__HSET_HEAD) s->head = node;
        else s->next[before] = node;
        return;
    }
    s->next[node] = s->head;
    s->head = node;
    if (s->next[node] >= 0) s->before[s->hash[s->next[node]] % (uint64_t)s->nbuckets] = node;
    s->before[b] = CT__HSET_HEAD;
}

/* Move to the next bucket count, relinking the list from its front. */
static bool ct__hset_grow(ct__hset *s)
{
    int64_t nb = (int64_t)ct__hset_sizes[s->size + 1], *before = (int64_t *)CT_MALLOC((size_t)nb * sizeof(int64_t));
    if (!before) return false;
    CT_FREE(s->before);
    s->before = before;
    s->nbuckets = nb;
    s->size++;
    for (int64_t b = 0; b < nb; b++) before[b] = CT__HSET_NONE;
    int64_t p = s->head;
    s->head = -1;
    while (p >= 0) {
        int64_t next = s->next[p];
        ct__hset_push(s, p);
        p = next;
    }
    return true;
}

/* The node equal to element i, adding i as a new node when there is none
 * (-1: out of memory). */
static int64_t ct__hset_insert(ct__hset *s, int64_t i)
{
    int64_t b = (int64_t)(s->hash[i] % (uint64_t)s->nbuckets);
    if (s->before[b] != CT__HSET_NONE && !ct__sort_is_nan_key(s->keys[i].key, s->nan))
        for (int64_t n = ct__hset_after(s, s->before[b]); n >= 0 && (int64_t)(s->hash[n] % (uint64_t)s->nbuckets) == b;
             n = s->next[n])
            if (s->keys[n].key == s->keys[i].key) return n;
    if (s->count + 1 > s->nbuckets && !ct__hset_grow(s)) return -1;
    ct__hset_push(s, i);
    s->count++;
    return i;
}
/* The outputs of unique from the set's distinct values in order; the
 * inverse and counts as PyTorch's maps keyed by value give them, where a NaN
 * finds nothing (inverse 0, count 0). */
static void ct__emit_set(ct__sort_job *job, const ct__sort_kv *kv, int64_t n, const ct__sort_kv *order, int64_t m,
                         const int64_t *node_of, int64_t *pos, uint64_t nan)
{
    int64_t *counts = job->counts ? (int64_t *)ct__data(job->counts) : NULL;
    int64_t *inverse = job->indices ? (int64_t *)ct__data(job->indices) : NULL;
    if (counts && m) memset(counts, 0, (size_t)m * sizeof(int64_t));
    for (int64_t g = 0; g < m; g++) pos[order[g].idx] = g;
    ct__store_items(job, order, m, NULL);
    /* bfloat16 -0 and 0 hash apart, so the set keeps both; with just these
     * two values the maps have 2 buckets, and both find the one entry */
    bool one_entry = job->input->dtype == CT_BF16 && m == 2 && order[0].key == order[1].key;
    for (int64_t i = 0; i < n; i++) {
        bool found = !ct__sort_is_nan_key(kv[i].key, nan);
        int64_t g = one_entry ? 1 : found ? pos[node_of[i]] : 0;
        if (inverse) inverse[i] = g;
        if (counts && found) counts[g]++;
    }
    if (one_entry && counts) counts[0] = counts[1];
}

/* unique as PyTorch 1.13 computes it: the set's order, sorted by value with
 * std::sort (NaN neither smaller nor larger than anything) when asked. */
static ct_result ct__unique_by_set(ct__sort_job *job, const ct__sort_kv *kv, int64_t n, uint64_t nan)
{
    const ct_tensor *in = job->input;
    const char *src = ct__data(in);
    int64_t width = (int64_t)ct__esize(in), m = 0;
    int64_t *mem = (int64_t *)CT_MALLOC((size_t)(4 * n + 1) * sizeof(int64_t));
    ct__sort_kv *order = (ct__sort_kv *)CT_MALLOC((size_t)(n + 1) * sizeof(ct__sort_kv));
    ct__hset s = {kv, nan, (uint64_t *)mem, mem + n, (int64_t *)CT_MALLOC(13 * sizeof(int64_t)), -1, 0, 13, 0};
    ct_result r = mem && order && s.before ? CT_OK : CT__OOM();
    int64_t *node_of = mem + 2 * n, *pos = mem + 3 * n;
    for (int64_t b = 0; r == CT_OK && b < 13; b++) s.before[b] = CT__HSET_NONE;
    for (int64_t i = 0; r == CT_OK && i < n; i++) s.hash[i] = ct__std_hash(src + i * width, in->dtype);
    for (int64_t i = 0; r == CT_OK && i < n; i++)
        if ((node_of[i] = ct__hset_insert(&s, i)) < 0) r = CT__OOM();
    if (r == CT_OK) {
        ct__sort_rows by_value = {kv, 1, nan};
        for (int64_t p = s.head; p >= 0; p = s.next[p]) order[m++] = kv[p];
        if (job->sorted) ct__std_sort_rows(order, order + m, &by_value);
        r = ct__unique_outputs(job, m, 0);
    }
    if (r == CT_OK) ct__emit_set(job, kv, n, order, m, node_of, pos, nan);
    CT_FREE(s.before);
    CT_FREE(order);
    CT_FREE(mem);
    return r;
}

/* Whether sorting the values loses what PyTorch's set would show: its order
 * (sorted=False), NaNs, or a bfloat16 -0 (which the set may keep beside 0).
 * Bool inputs take another path in PyTorch, which always sorts. */
static bool ct__unique_needs_set(const ct__sort_kv *kv, int64_t n, const ct_tensor *in, uint64_t nan, bool sorted)
{
    if (in->dtype == CT_BOOL) return false;
    if (!sorted) return true;
    const uint16_t *bits = (const uint16_t *)ct__data(in);
    for (int64_t i = 0; i < n; i++)
        if (ct__sort_is_nan_key(kv[i].key, nan) || (in->dtype == CT_BF16 && bits[i] == 0x8000)) return true;
    return false;
}

/* starts[i] = whether element i (i > 0) begins a run: whether it differs
 * from the one before as C compares values (a NaN differs from everything,
 * -0 equals 0), which is how PyTorch's unique_consecutive compares. */
typedef void (*ct__run_marker)(const char *src, int64_t n, uint8_t *starts);
#define CT__RUN_MARKER(name, DT, _)                                                                     \
    static void ct__mark_runs_##name(const char *src, int64_t n, uint8_t *starts)                       \
    {                                                                                                   \
        const ct__##name##_t *x = (const ct__##name##_t *)src;                                          \
        for (int64_t i = 1; i < n; i++) starts[i] = !(ct__load_##name(x[i]) == ct__load_##name(x[i - 1])); \
    }
CT__DTYPES_A(CT__RUN_MARKER, _)
#undef CT__RUN_MARKER

#define CT__RUN_MARKER_ENTRY(name, DT, _) ct__mark_runs_##name,
static const ct__run_marker ct__run_markers[CT_NUM_DTYPES] = {NULL, CT__DTYPES_A(CT__RUN_MARKER_ENTRY, _)};
#undef CT__RUN_MARKER_ENTRY

/* unique_consecutive of the flattened input: one pass to find the runs,
 * one to write them. */
static ct_result ct__unique_runs(ct__sort_job *job)
{
    const ct_tensor *in = job->input;
    const char *src = ct__data(in);
    int64_t n = ct_numel(in), m = n > 0;
    size_t esize = ct__esize(in);
    uint8_t *starts = (uint8_t *)CT_MALLOC((size_t)n + 1);
    if (!starts) return CT__OOM();
    ct__run_markers[in->dtype](src, n, starts);
    for (int64_t i = 1; i < n; i++) m += starts[i];
    ct_result r = ct__unique_outputs(job, m, 0);
    char *out = r == CT_OK ? ct__data(job->values) : NULL;
    int64_t *counts = r == CT_OK && job->counts ? (int64_t *)ct__data(job->counts) : NULL;
    int64_t *inverse = r == CT_OK && job->indices ? (int64_t *)ct__data(job->indices) : NULL;
    int64_t g = -1, last = 0;
#define CT__EMIT_RUNS(T)                                                \
    for (int64_t i = 0; out && i < n; i++) {                            \
        if (i == 0 || starts[i]) {                                      \
            if (counts && g >= 0) counts[g] = i - last;                 \
            ((T *)out)[++g] = ((const T *)src)[i];                      \
            last = i;                                                   \
        }                                                               \
        if (inverse) inverse[i] = g;                                    \
    }
    CT__SORT_BY_SIZE(CT__EMIT_RUNS)
#undef CT__EMIT_RUNS
    if (counts && m) counts[m - 1] = n - last;
    CT_FREE(starts);
    return r;
}

static ct_result ct__cpu_unique(ct__sort_job *job, bool consecutive)
{
    const ct_tensor *in = job->input;
    if (consecutive && job->dim < 0) return ct__unique_runs(job);
    int64_t n = ct_numel(in), rows = job->dim < 0 ? n : in->sizes[0], cols = job->dim < 0 ? 1 : n / CT__MAX(1, rows);
    uint64_t nan = ct__sort_nan_key(in->dtype);
    /* keys of every element, then room to sort them (flat) or one entry per row */
    ct__sort_kv *kv = (ct__sort_kv *)CT_MALLOC((size_t)(n + rows + 1) * sizeof(ct__sort_kv));
    if (!kv) return CT__OOM();
    ct__key_loaders[in->dtype](ct__data(in), (int64_t)ct__esize(in), n, 0, kv);
    ct_result r;
    if (job->dim >= 0) {
        ct__sort_rows by_row = {kv, cols, nan};
        ct__sort_kv *order = kv + n;
        for (int64_t i = 0; i < rows; i++) order[i].idx = i;
        if (!consecutive) ct__std_sort_rows(order, order + rows, &by_row);
        r = ct__emit_runs(job, order, rows, &by_row, nan);
    } else if (ct__unique_needs_set(kv, n, in, nan, job->sorted)) {
        r = ct__unique_by_set(job, kv, n, nan);
    } else {
        r = ct__emit_runs(job, ct__stable_sort(kv, kv + n, n), n, NULL, nan);
    }
    CT_FREE(kv);
    return r;
}

/* ---------------------------------------------------------------- nonzero */

/* Element i of a contiguous buffer is nonzero when its bits under mask are:
 * for floats the mask drops the sign bit, so -0 is zero and NaN is not. */
typedef struct ct__nonzero_job {
    const ct_tensor *in;
    uint64_t mask;
    int64_t chunk, *first; /* first[c]: how many nonzeros come before chunk c */
    int64_t *out, n;       /* column-major (n, ndim) */
} ct__nonzero_job;

static void ct__nonzero_count(int64_t begin, int64_t end, void *ctx)
{
    ct__nonzero_job *z = (ct__nonzero_job *)ctx;
    const char *p = ct__data(z->in);
    int64_t numel = ct_numel(z->in);
    size_t esize = ct__esize(z->in);
    for (int64_t c = begin; c < end; c++) {
        int64_t count = 0, b = c * z->chunk, e = CT__MIN(numel, b + z->chunk);
#define CT__NONZERO_COUNT(T) \
    for (int64_t i = b; i < e; i++) count += (((const T *)p)[i] & (T)z->mask) != 0
        CT__SORT_BY_SIZE(CT__NONZERO_COUNT)
#undef CT__NONZERO_COUNT
        z->first[c + 1] = count;
    }
}

/* The coordinates of the nonzeros of one chunk, a run of the last dim at a time. */
static void ct__nonzero_chunk(const ct__nonzero_job *z, int64_t c)
{
    const ct_tensor *in = z->in;
    const char *p = ct__data(in);
    const int last = in->ndim - 1;
    int64_t rem = c * z->chunk, at = z->first[c], e = CT__MIN(ct_numel(in), rem + z->chunk), coord[CT_MAX_DIMS];
    size_t esize = ct__esize(in);
    for (int d = last; d >= 0; d--) { /* unravel, the last dim fastest */
        coord[d] = rem % in->sizes[d];
        rem /= in->sizes[d];
    }
    for (int64_t i = c * z->chunk; i < e;) {
        int64_t run = CT__MIN(e - i, in->sizes[last] - coord[last]);
#define CT__NONZERO_WRITE(T)                                                          \
    for (int64_t k = 0; k < run; k++) {                                               \
        if (!(((const T *)p)[i + k] & (T)z->mask)) continue;                          \
        for (int d = 0; d < last; d++) z->out[d * z->n + at] = coord[d];              \
        z->out[last * z->n + at++] = coord[last] + k;                                 \
    }
        CT__SORT_BY_SIZE(CT__NONZERO_WRITE)
#undef CT__NONZERO_WRITE
        i += run;
        coord[last] += run;
        for (int d = last; d > 0 && coord[d] == in->sizes[d]; d--) {
            coord[d] = 0;
            coord[d - 1]++;
        }
    }
}

static void ct__nonzero_write(int64_t begin, int64_t end, void *ctx)
{
    for (int64_t c = begin; c < end; c++) ct__nonzero_chunk((const ct__nonzero_job *)ctx, c);
}

static ct_result ct__cpu_nonzero(ct__sort_job *job)
{
    const ct_tensor *in = job->input;
    size_t esize = ct__esize(in);
    int64_t numel = ct_numel(in), nchunks = (numel + CT__GRAIN - 1) / CT__GRAIN;
    ct__nonzero_job z = {in, ct_dtype_is_floating(in->dtype) ? ~(1ull << (esize * 8 - 1)) : ~0ull, CT__GRAIN,
                         (int64_t *)CT_MALLOC((size_t)(nchunks + 1) * sizeof(int64_t)), NULL, 0};
    if (!z.first) return CT__OOM();
    z.first[0] = 0;
    ct__parallel_for(nchunks, 1, ct__nonzero_count, &z);
    for (int64_t c = 0; c < nchunks; c++) z.first[c + 1] += z.first[c];
    z.n = z.first[nchunks];
    int64_t sizes[2] = {z.n, in->ndim}, strides[2] = {1, z.n};
    job->indices = ct__alloc_strided(sizes, strides, 2, CT_I64, in->storage->device);
    if (job->indices && in->ndim > 0) { /* a 0-d input has no coordinates to write */
        z.out = (int64_t *)ct__data(job->indices);
        ct__parallel_for(nchunks, 1, ct__nonzero_write, &z);
    }
    CT_FREE(z.first);
    return job->indices ? CT_OK : ct_last_error_code();
}

/* ---------------------------------------------------------------- searchsorted */

typedef struct ct__search_job {
    const ct__sort_job *job;
    int64_t in_inner, bd_inner; /* last dims: values per row, boundaries per row */
    bool batched;
} ct__search_job;

/* Bucketization.cpp's binary search: the first boundary b with b >= v (or
 * b > v for right) in the row bd[start, start + len), through the sorter
 * when there is one; written as !(b >= v) so that NaNs go right as there. */
#define CT__SEARCH_LOOP(T)                                                                              \
    static inline int64_t ct__bound_##T(const T *bd, const int64_t *sorter, int64_t start, int64_t len, \
                                        T v, bool right)                                                \
    {                                                                                                  \
        int64_t lo = start, hi = start + len;                                                          \
        while (lo < hi) {                                                                              \
            int64_t mid = lo + ((hi - lo) >> 1);                                                       \
            const T b = sorter ? bd[sorter[mid] + start] : bd[mid];                                    \
            if (right ? !(b > v) : !(b >= v)) lo = mid + 1;                                            \
            else hi = mid;                                                                             \
        }                                                                                              \
        return lo - start;                                                                             \
    }                                                                                                  \
    static void ct__search_##T(int64_t begin, int64_t end, void *ctx)                                  \
    {                                                                                                  \
        const ct__search_job s = *(const ct__search_job *)ctx;                                         \
        const T *in = (const T *)ct__data(s.job->input), *bd = (const T *)ct__data(s.job->boundaries); \
        const int64_t *sorter = s.job->sorter ? (const int64_t *)ct__data(s.job->sorter) : NULL;       \
        int64_t *out64 = (int64_t *)ct__data(s.job->indices);                                          \
        int32_t *out32 = (int32_t *)ct__data(s.job->indices);                                          \
        const bool right = s.job->right, i32 = s.job->indices->dtype == CT_I32;                        \
        for (int64_t i = begin; i < end; i++) {                                                        \
            int64_t start = s.batched ? i / s.in_inner * s.bd_inner : 0, pos;                          \
            if (sorter) pos = ct__bound_##T(bd, sorter, start, s.bd_inner, in[i], right);              \
            else if (right) pos = ct__bound_##T(bd, NULL, start, s.bd_inner, in[i], true);             \
            else pos = ct__bound_##T(bd, NULL, start, s.bd_inner, in[i], false);                       \
            if (i32) out32[i] = (int32_t)pos;                                                          \
            else out64[i] = pos;                                                                       \
        }                                                                                              \
    }
CT__SEARCH_LOOP(uint8_t)
CT__SEARCH_LOOP(int8_t)
CT__SEARCH_LOOP(int16_t)
CT__SEARCH_LOOP(int32_t)
CT__SEARCH_LOOP(int64_t)
CT__SEARCH_LOOP(float)
CT__SEARCH_LOOP(double)
#undef CT__SEARCH_LOOP

static ct_result ct__cpu_searchsorted(ct__sort_job *job)
{
    const ct_tensor *in = job->input, *bd = job->boundaries;
    ct__search_job s = {job, in->ndim ? in->sizes[in->ndim - 1] : 1, bd->sizes[bd->ndim - 1], bd->ndim > 1};
    ct__range_fn fn;
    switch (in->dtype) {
    case CT_U8: fn = ct__search_uint8_t; break;
    case CT_I8: fn = ct__search_int8_t; break;
    case CT_I16: fn = ct__search_int16_t; break;
    case CT_I32: fn = ct__search_int32_t; break;
    case CT_I64: fn = ct__search_int64_t; break;
    case CT_F32: fn = ct__search_float; break;
    default: fn = ct__search_double; break;
    }
    ct__parallel_for(ct_numel(in), 200, fn, &s); /* Bucketization.cpp's grain */
    return CT_OK;
}

/* ---------------------------------------------------------------- dispatch */

static ct_result ct__cpu_sorting(ct__op op, ct__sort_job *job)
{
    uint64_t flip = job->descending ? UINT64_MAX : 0;
    switch (op) {
    case CT__OP_sort:
    case CT__OP_argsort: return ct__run_slices(ct__slice_sort, job, flip, 2);
    case CT__OP_topk: return ct__run_slices(ct__slice_topk, job, flip, 1);
    case CT__OP_kthvalue: return ct__run_slices(ct__slice_kthvalue, job, 0, 1);
    case CT__OP_unique: return ct__cpu_unique(job, false);
    case CT__OP_unique_consecutive: return ct__cpu_unique(job, true);
    case CT__OP_nonzero: return ct__cpu_nonzero(job);
    case CT__OP_searchsorted: return ct__cpu_searchsorted(job);
    default: return ct__fail(CT_ERR_RUNTIME, "%s is not a sorting op", ct__op_names[op]);
    }
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

static bool ct__cpu_has_pointwise(ct__op op, ct_dtype dt) { return ct__cpu_pointwise_loop(op, dt) != NULL; }

static const ct__backend ct__cpu_backend = {ct__cpu_alloc, ct__cpu_free, ct__cpu_copy, ct__cpu_fill,
                                            ct__cpu_has_pointwise, ct__cpu_pointwise, ct__cpu_sorting};
static const ct__backend *ct__backends[CT_NUM_DEVICE_TYPES] = {&ct__cpu_backend, NULL};

static const ct__backend *ct__backend_for(ct_device_type type) { return ct__backends[type]; }

#endif /* CTORCH_IMPLEMENTATION */
