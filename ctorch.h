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
/* Public reductions, scans and softmax. Every function mirrors the torch
 * function of the same name and gives the same numbers as PyTorch 1.13 on
 * the CPU with one thread: sums follow its cascade summation, products its
 * vector lanes, variances its Welford or two-pass algorithm, so that results
 * agree to the last bit (softmax and logsumexp, whose exp and log are
 * vectorised in PyTorch, agree to a few units in the last place).
 *
 * Dims: a list of dims is a ct_shape, written CT_DIMS(0, 2); negative dims
 * count from the end; the empty list CT_SHAPE0 means every dim, as dim=()
 * does in PyTorch 1.13. With keepdim the reduced dims stay as size 1.
 * dtype CT_DEFAULT keeps PyTorch's result dtype (integer and bool sums and
 * products give int64); another dtype converts the input to it first.
 *
 * Ops that PyTorch answers with a named tuple of values and indices
 * (torch.return_types.max, .median, ...) write new tensors to *values and
 * *indices and return a ct_result; pass NULL for a result you do not need.
 * On failure both are set to NULL. Indices are int64.
 *
 * Where PyTorch 1.13 has no float16 CPU kernel (prod, median, cumsum,
 * cumprod, cummax, cummin, logcumsumexp, softmax, log_softmax, logsumexp),
 * ctorch computes in float32 and rounds the result to float16 once.
 * Results are contiguous. All functions may be called from several threads
 * on different tensors. */

/* ---------------------------------------------------------------- sums and products */

/* torch.sum(input): the sum of every element; integer and bool inputs give int64. */
CTORCH_API ct_tensor *ct_sum(const ct_tensor *input);
/* torch.sum(input, dim, keepdim, dtype=dtype). */
CTORCH_API ct_tensor *ct_sum_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype);
/* torch.nansum(input): the sum with NaN counted as zero. */
CTORCH_API ct_tensor *ct_nansum(const ct_tensor *input);
/* torch.nansum(input, dim, keepdim, dtype=dtype). */
CTORCH_API ct_tensor *ct_nansum_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype);
/* torch.mean(input): floating inputs only, as in PyTorch; NaN for no elements. */
CTORCH_API ct_tensor *ct_mean(const ct_tensor *input);
/* torch.mean(input, dim, keepdim, dtype=dtype): dtype, when given, must be floating. */
CTORCH_API ct_tensor *ct_mean_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype);
/* torch.prod(input): the product of every element; integer and bool inputs give int64. */
CTORCH_API ct_tensor *ct_prod(const ct_tensor *input);
/* torch.prod(input, dim, keepdim, dtype=dtype): one dim, as in PyTorch. */
CTORCH_API ct_tensor *ct_prod_dim(const ct_tensor *input, int dim, bool keepdim, ct_dtype dtype);

/* ---------------------------------------------------------------- extremes */

/* torch.max(input) / torch.min(input): the largest (smallest) element, NaN if
 * there is one. Error for a tensor without elements. */
CTORCH_API ct_tensor *ct_max(const ct_tensor *input);
CTORCH_API ct_tensor *ct_min(const ct_tensor *input);
/* torch.max(input, dim, keepdim) / torch.min: the largest (smallest) values
 * along dim and the index of the first of them (of the first NaN, if any). */
CTORCH_API ct_result ct_max_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values,
                                ct_tensor **indices);
CTORCH_API ct_result ct_min_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values,
                                ct_tensor **indices);
/* torch.amax(input, dim, keepdim) / torch.amin: the extremes over several dims. */
CTORCH_API ct_tensor *ct_amax(const ct_tensor *input, ct_shape dims, bool keepdim);
CTORCH_API ct_tensor *ct_amin(const ct_tensor *input, ct_shape dims, bool keepdim);
/* torch.argmax(input) / torch.argmin: the index of the first extreme (or
 * first NaN) of the flattened input, as a 0-d int64 tensor. */
CTORCH_API ct_tensor *ct_argmax(const ct_tensor *input);
CTORCH_API ct_tensor *ct_argmin(const ct_tensor *input);
/* torch.argmax(input, dim, keepdim) / torch.argmin. */
CTORCH_API ct_tensor *ct_argmax_dim(const ct_tensor *input, int dim, bool keepdim);
CTORCH_API ct_tensor *ct_argmin_dim(const ct_tensor *input, int dim, bool keepdim);

/* ---------------------------------------------------------------- statistics */

/* torch.std(input) / torch.var(input): with Bessel's correction. */
CTORCH_API ct_tensor *ct_std(const ct_tensor *input);
CTORCH_API ct_tensor *ct_var(const ct_tensor *input);
/* torch.std(input, dim, correction=correction, keepdim) / torch.var: the
 * divisor is N - correction (1 is PyTorch's default, unbiased=True; 0 is
 * unbiased=False); NaN for no elements, inf when N <= correction. */
CTORCH_API ct_tensor *ct_std_dim(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim);
CTORCH_API ct_tensor *ct_var_dim(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim);
/* torch.std_mean(input, dim, correction=correction, keepdim) / torch.var_mean:
 * both results of one pass (CT_SHAPE0 for every dim). */
CTORCH_API ct_result ct_std_mean(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim,
                                 ct_tensor **std, ct_tensor **mean);
CTORCH_API ct_result ct_var_mean(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim,
                                 ct_tensor **var, ct_tensor **mean);
/* torch.median(input): the lower median of every element, NaN if there is one. */
CTORCH_API ct_tensor *ct_median(const ct_tensor *input);
/* torch.median(input, dim, keepdim): the lower medians along dim and their
 * indices (among equal values, PyTorch's choice; the first NaN if any). */
CTORCH_API ct_result ct_median_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values,
                                   ct_tensor **indices);
/* torch.mode(input, dim, keepdim): the most frequent value along dim (the
 * smallest of equally frequent ones) and an index of it, PyTorch's. dim -1 is
 * PyTorch's default. */
CTORCH_API ct_result ct_mode(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values,
                             ct_tensor **indices);

/* ---------------------------------------------------------------- norms */

/* torch.norm(input, p): the p-norm of every element; p may be any number,
 * INFINITY or -INFINITY; 0 counts the nonzero elements. torch.norm(input),
 * whose p is 'fro', is ct_norm(input, 2). Floating inputs only. */
CTORCH_API ct_tensor *ct_norm(const ct_tensor *input, double p);
/* torch.norm(input, p, dim, keepdim, dtype=dtype). */
CTORCH_API ct_tensor *ct_norm_dim(const ct_tensor *input, double p, ct_shape dims, bool keepdim, ct_dtype dtype);
/* torch.norm(input, 'fro', dim, keepdim): at most two dims; over two it is
 * sqrt(sum(input * input)), as in PyTorch, which rounds differently. */
CTORCH_API ct_tensor *ct_norm_fro(const ct_tensor *input, ct_shape dims, bool keepdim);
/* torch.logsumexp(input, dim, keepdim): log(sum(exp(input))) without
 * overflow; integer inputs give the default float dtype. */
CTORCH_API ct_tensor *ct_logsumexp(const ct_tensor *input, ct_shape dims, bool keepdim);

/* ---------------------------------------------------------------- logic and counting */

/* torch.all(input) / torch.any: bool, or uint8 for a uint8 input as in PyTorch. */
CTORCH_API ct_tensor *ct_all(const ct_tensor *input);
CTORCH_API ct_tensor *ct_any(const ct_tensor *input);
/* torch.all(input, dim, keepdim) / torch.any. */
CTORCH_API ct_tensor *ct_all_dim(const ct_tensor *input, int dim, bool keepdim);
CTORCH_API ct_tensor *ct_any_dim(const ct_tensor *input, int dim, bool keepdim);
/* torch.count_nonzero(input, dim): int64 counts over the dims (CT_SHAPE0: all). */
CTORCH_API ct_tensor *ct_count_nonzero(const ct_tensor *input, ct_shape dims);

/* ---------------------------------------------------------------- scans */

/* torch.cumsum(input, dim, dtype=dtype) / torch.cumprod: integer and bool
 * inputs give int64. Floating sums run in double (float for bfloat16), as
 * PyTorch's CPU kernels do. */
CTORCH_API ct_tensor *ct_cumsum(const ct_tensor *input, int dim, ct_dtype dtype);
CTORCH_API ct_tensor *ct_cumprod(const ct_tensor *input, int dim, ct_dtype dtype);
/* Tensor.cumsum_(dim, dtype) / Tensor.cumprod_: in place; the result keeps
 * self's dtype (dtype, when given, must be it). */
CTORCH_API ct_result ct_cumsum_(ct_tensor *self, int dim, ct_dtype dtype);
CTORCH_API ct_result ct_cumprod_(ct_tensor *self, int dim, ct_dtype dtype);
/* torch.cummax(input, dim) / torch.cummin: the running extreme along dim and
 * the index of its last occurrence so far (NaN sticks). */
CTORCH_API ct_result ct_cummax(const ct_tensor *input, int dim, ct_tensor **values, ct_tensor **indices);
CTORCH_API ct_result ct_cummin(const ct_tensor *input, int dim, ct_tensor **values, ct_tensor **indices);
/* torch.logcumsumexp(input, dim): log of the running sum of exp, floating only. */
CTORCH_API ct_tensor *ct_logcumsumexp(const ct_tensor *input, int dim);

/* ---------------------------------------------------------------- softmax */

/* torch.softmax(input, dim, dtype=dtype) / torch.log_softmax: over dim, less
 * the maximum first so that nothing overflows. dtype, when given, converts
 * the input first (integer inputs need it, as in PyTorch). */
CTORCH_API ct_tensor *ct_softmax(const ct_tensor *input, int dim, ct_dtype dtype);
CTORCH_API ct_tensor *ct_log_softmax(const ct_tensor *input, int dim, ct_dtype dtype);

/* ---------------------------------------------------------------- printing */

/* print() of a torch.return_types named tuple: "torch.return_types.<name>(",
 * then "values=" and "indices=" with the tensors' reprs, as PyTorch prints
 * the result of torch.max(x, dim), torch.cummin(x, dim), ... */
CTORCH_API void ct_print_return_types(const char *name, const ct_tensor *values, const ct_tensor *indices);

/* ==================== ops/join.h ==================== */
// >>ops/join.h

/* ==================== ops/sort.h ==================== */
// >>ops/sort.h

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
/* Private: the names of the reduce ops, for the op table (src/ops/optable.h),
 * and the interface between their front ends (src/ops/reduce.c) and a
 * device's kernels (src/cpu/reduce.c). */
#define CT__REDUCE_OP_NAMES(X)                                                                        \
    X(sum) X(nansum) X(mean) X(prod) X(max) X(min) X(amax) X(amin) X(argmax) X(argmin) X(std) X(var)  \
    X(std_mean) X(var_mean) X(median) X(mode) X(norm) X(logsumexp) X(all) X(any) X(count_nonzero)     \
    X(cumsum) X(cumprod) X(cummax) X(cummin) X(logcumsumexp) X(softmax) X(log_softmax)

/* What a reduction over a set of dims combines. The front end has already
 * converted the input to the dtype the kernel works in. */
typedef enum ct__rop {
    CT__ROP_SUM,    /* floating: PyTorch's cascade sum; integral and bool: into int64 */
    CT__ROP_NANSUM, /* floating, NaN counted as zero */
    CT__ROP_PROD,   /* floating; integral and bool into int64 */
    CT__ROP_MAX,    /* same dtype in and out; NaN wins */
    CT__ROP_MIN,
    CT__ROP_ALL,    /* into bool, or uint8 for a uint8 input */
    CT__ROP_ANY,
    CT__ROP_COUNT,  /* nonzero elements, into int64 */
    CT__ROP_NORM,   /* the p-norm, args->p; same floating dtype in and out */
    CT__ROP_VAR,    /* Welford: args->correction, take_sqrt, and mean (may be NULL) */
    CT__ROP_SQDEV   /* sum of (x - args->center)^2 in double into *args->result (out is NULL) */
} ct__rop;

typedef struct ct__rargs {
    double p;
    int64_t correction;
    bool take_sqrt;
    ct_tensor *mean; /* laid out as out */
    double center;
    double *result;
} ct__rargs;

/* What runs along one dim: reductions to a value and an index, scans, softmax. */
typedef enum ct__aop {
    CT__AOP_MAX,    /* values and indices */
    CT__AOP_MIN,
    CT__AOP_ARGMAX, /* indices only */
    CT__AOP_ARGMIN,
    CT__AOP_MEDIAN, /* values and indices */
    CT__AOP_MODE,
    CT__AOP_CUMSUM, /* values of in's shape */
    CT__AOP_CUMPROD,
    CT__AOP_CUMMAX, /* values and indices of in's shape */
    CT__AOP_CUMMIN,
    CT__AOP_LOGCUMSUMEXP,
    CT__AOP_SOFTMAX,
    CT__AOP_LOG_SOFTMAX
} ct__aop;

typedef struct ct__reduce_kernels {
    /* op over the dims of in whose bit is set in mask, into out, which has
     * in's dims (size 1 where reduced) and holds the op's identity. */
    void (*reduce)(ct__rop op, ct_tensor *out, const ct_tensor *in, uint32_t mask, const ct__rargs *args);
    /* op along dim of in into values and/or indices (int64), which have in's
     * dims, of size 1 along dim for the reductions. Fails only for memory. */
    ct_result (*along)(ct__aop op, ct_tensor *values, ct_tensor *indices, const ct_tensor *in, int dim);
} ct__reduce_kernels;

/* ==================== ops/join_ops.h ==================== */
// >>ops/join_ops.h
/* Private: the names of the join ops, for the op table (src/ops/optable.h). */
#define CT__JOIN_OP_NAMES(X)

/* ==================== ops/sort_ops.h ==================== */
// >>ops/sort_ops.h
/* Private: the names of the sort ops, for the op table (src/ops/optable.h). */
#define CT__SORT_OP_NAMES(X)

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
    /* Reductions, scans and softmax (src/ops/reduce_ops.h). */
    const ct__reduce_kernels *reduce;
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
/* Reductions, scans and softmax: PyTorch's dims, result dtypes, checks and
 * messages. The work is the device's (ct__reduce_kernels); composites
 * (mean, logsumexp, the Frobenius norm) are PyTorch's own compositions. */

static const ct__reduce_kernels *ct__rk(const ct_tensor *t)
{
    return ct__backend_for(t->storage->device.type)->reduce;
}

/* ---------------------------------------------------------------- dims, shapes, dtypes */

/* The reduced dims as bits; the empty list is every dim (dim=() in 1.13). */
static ct_result ct__dims_mask(const ct_tensor *t, ct_shape dims, uint32_t *mask)
{
    uint32_t seen = 0;
    *mask = 0;
    if (dims.ndim < 0 || dims.ndim > CT_MAX_DIMS)
        return ct__fail(CT_ERR_VALUE, "dim: ctorch supports at most %d dimensions, got %d", CT_MAX_DIMS, dims.ndim);
    if (dims.ndim == 0) {
        *mask = (uint32_t)((1u << t->ndim) - 1);
        return CT_OK;
    }
    for (int i = 0; i < dims.ndim; i++) {
        int d = ct__wrap_dim(dims.size[i], t->ndim);
        if (d < 0) return ct_last_error_code();
        if ((seen >> d) & 1) return ct__fail(CT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims", d);
        seen |= 1u << d;
    }
    *mask = t->ndim ? seen : 0; /* a 0-d tensor takes dim 0 and -1 but has none */
    return CT_OK;
}

/* One dim as a mask (-1 when it is out of range). */
static int64_t ct__dim_mask1(const ct_tensor *t, int dim, int *wrapped)
{
    *wrapped = ct__wrap_dim(dim, t->ndim);
    return *wrapped < 0 ? -1 : t->ndim ? (int64_t)1 << *wrapped : 0;
}

/* The result's sizes: the kept dims, and 1 for each reduced one with keepdim. */
static int ct__kept_shape(const ct_tensor *t, uint32_t mask, bool keepdim, int64_t *sizes)
{
    int n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (!((mask >> d) & 1)) sizes[n++] = t->sizes[d];
        else if (keepdim) sizes[n++] = 1;
    return n;
}

/* The result seen with in's dims (size 1 where reduced), as the kernels take
 * it; a reduced dim keeps the result's stride with keepdim, else 0. */
static void ct__kernel_view(ct_tensor *view, const ct_tensor *res, const ct_tensor *in, uint32_t mask, bool keepdim)
{
    *view = *res;
    view->ndim = in->ndim;
    for (int d = 0, r = 0; d < in->ndim; d++) {
        bool red = (mask >> d) & 1;
        view->sizes[d] = red ? 1 : res->sizes[r];
        view->strides[d] = red && !keepdim ? 0 : res->strides[r];
        r += !red || keepdim;
    }
}

static ct_result ct__check_dtype(ct_dtype dtype)
{
    if (dtype != CT_DEFAULT && !ct__dtype_valid(dtype)) return ct__fail(CT_ERR_TYPE, "invalid dtype %d", (int)dtype);
    return CT_OK;
}

/* What sum and prod give without a dtype: integers and bool widen to int64. */
static ct_dtype ct__widened(ct_dtype dt) { return ct_dtype_is_floating(dt) ? dt : CT_I64; }

/* "\"kernel\" not implemented for 'Dtype'", PyTorch's refusal of a dtype. */
static ct_result ct__no_kernel(const char *kernel, ct_dtype dt)
{
    return ct__fail(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel, ct__dtype_title(dt));
}

/* The C++ type names in PyTorch's in-place dtype message. */
static const char *ct__typemeta_name(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: return "bool";
    case CT_U8: return "unsigned char";
    case CT_I8: return "signed char";
    case CT_I16: return "short int";
    case CT_I32: return "int";
    case CT_I64: return "long int";
    case CT_F16: return "c10::Half";
    case CT_BF16: return "c10::BFloat16";
    case CT_F64: return "double";
    default: return "float";
    }
}

/* The smallest and largest value of an integral (or bool) dtype. */
static void ct__int_range(ct_dtype dt, int64_t *lo, int64_t *hi)
{
    int bits = dt == CT_I8 || dt == CT_U8 ? 8 : dt == CT_I16 ? 16 : dt == CT_I32 ? 32 : 64;
    if (dt == CT_BOOL || dt == CT_U8) {
        *lo = 0;
        *hi = dt == CT_BOOL ? 1 : 255;
        return;
    }
    *hi = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
    *lo = -*hi - 1;
}

/* The element a reduction starts from (PyTorch's identity, lower_bound, upper_bound). */
static void ct__identity(ct__rop op, ct_dtype dt, void *elem)
{
    int64_t lo, hi;
    if (op != CT__ROP_MAX && op != CT__ROP_MIN) {
        ct__write_i64(elem, dt, op == CT__ROP_PROD || op == CT__ROP_ALL);
    } else if (ct_dtype_is_floating(dt)) {
        ct__write_f64(elem, dt, op == CT__ROP_MAX ? -INFINITY : INFINITY);
    } else {
        ct__int_range(dt, &lo, &hi);
        ct__write_i64(elem, dt, op == CT__ROP_MAX ? lo : hi);
    }
}

/* ---------------------------------------------------------------- the common paths */

/* A new result of op over the masked dims of in, which is already in the
 * kernel's dtype: out_dtype, holding the op's identity where nothing is reduced. */
static ct_tensor *ct__reduce(ct__rop op, const ct_tensor *in, uint32_t mask, bool keepdim, ct_dtype out_dtype,
                             const ct__rargs *args)
{
    int64_t sizes[CT_MAX_DIMS];
    uint64_t elem = 0;
    int n = ct__kept_shape(in, mask, keepdim, sizes);
    ct_tensor *res = ct__alloc(sizes, n, out_dtype, in->storage->device);
    if (!res) return NULL;
    ct__identity(op, out_dtype, &elem);
    if (ct_numel(res)) ct__backend_for(res->storage->device.type)->fill(res, &elem);
    if (ct_numel(in) && ct_numel(res)) {
        ct_tensor view;
        ct__kernel_view(&view, res, in, mask, keepdim);
        ct__rk(in)->reduce(op, &view, in, mask, args);
    }
    return res;
}

/* A 0-d result of dtype dt holding v converted as PyTorch converts. */
static ct_tensor *ct__scalar_result(double v, ct_dtype dt)
{
    ct_tensor *r = ct__alloc(NULL, 0, dt, ct__cpu);
    if (r) ct__write_f64(ct__data(r), dt, v);
    return r;
}

/* Outputs start as NULL, so that they are NULL whatever fails. */
static void ct__clear_pair(ct_tensor **values, ct_tensor **indices)
{
    if (values) *values = NULL;
    if (indices) *indices = NULL;
}

/* Hand the results of a values-and-indices op to the caller (NULL where
 * not wanted; both NULL on failure). */
static ct_result ct__hand_pair(ct_result r, ct_tensor *v, ct_tensor *i, ct_tensor **values, ct_tensor **indices)
{
    if (values) *values = r == CT_OK ? v : NULL;
    if (indices) *indices = r == CT_OK ? i : NULL;
    if (r == CT_OK && !indices) ct__discard(i);
    if (r == CT_OK && !values) ct__discard(v);
    return r;
}

/* values and indices of op along dim; float16 inputs go through float32
 * when PyTorch has no float16 kernel (half_via_float). */
static ct_result ct__along_reduce(ct__aop op, const char *name, const ct_tensor *t, int dim, bool keepdim,
                                  bool half_via_float, ct_tensor **values, ct_tensor **indices)
{
    int64_t sizes[CT_MAX_DIMS];
    int d;
    int64_t mask = ct__dim_mask1(t, dim, &d);
    if (mask < 0) return ct_last_error_code();
    if (t->ndim && t->sizes[d] == 0)
        return ct__fail(CT_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size.", name, d);
    ct_scope s = ct_scope_begin();
    ct_tensor *v = NULL, *i = NULL;
    const ct_tensor *in = half_via_float && t->dtype == CT_F16 ? ct_to(t, CT_F32) : t;
    int n = ct__kept_shape(t, (uint32_t)mask, keepdim, sizes);
    bool with_values = op != CT__AOP_ARGMAX && op != CT__AOP_ARGMIN;
    ct_result r = in ? CT_OK : ct_last_error_code();
    if (r == CT_OK && with_values && !(v = ct__alloc(sizes, n, in->dtype, ct__cpu))) r = ct_last_error_code();
    if (r == CT_OK && !(i = ct__alloc(sizes, n, CT_I64, ct__cpu))) r = ct_last_error_code();
    if (r == CT_OK) {
        ct_tensor vv, iv;
        if (v) ct__kernel_view(&vv, v, in, (uint32_t)mask, keepdim);
        ct__kernel_view(&iv, i, in, (uint32_t)mask, keepdim);
        r = ct__rk(in)->along(op, v ? &vv : NULL, &iv, in, d);
    }
    if (r == CT_OK && v && v->dtype != t->dtype && !(v = ct_to(v, t->dtype))) r = ct_last_error_code();
    if (r == CT_OK) ct_keep(v), ct_keep(i);
    ct_scope_end(s);
    return ct__hand_pair(r, v, i, values, indices);
}

/* ---------------------------------------------------------------- sums and products */

static ct_tensor *ct__sum(const ct_tensor *t, ct_shape dims, bool keepdim, ct_dtype dtype, bool nan)
{
    uint32_t mask;
    if (ct__check_dtype(dtype) != CT_OK || ct__dims_mask(t, dims, &mask) != CT_OK) return NULL;
    nan = nan && ct_dtype_is_floating(t->dtype); /* integers have no NaN: PyTorch sums them */
    ct_dtype out = dtype != CT_DEFAULT ? dtype : ct__widened(t->dtype);
    if (nan && !ct_dtype_is_floating(out)) {
        ct__no_kernel("nansum_cpu", out);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r;
    if (ct_dtype_is_floating(out)) {
        const ct_tensor *in = ct_to(t, out);
        r = in ? ct__reduce(nan ? CT__ROP_NANSUM : CT__ROP_SUM, in, mask, keepdim, out, NULL) : NULL;
    } else if (out == CT_BOOL) { /* bool + bool is or */
        r = ct__reduce(CT__ROP_ANY, t, mask, keepdim, CT_BOOL, NULL);
    } else { /* integers wrap: summed in int64, the low bits are the narrower sum */
        const ct_tensor *in = ct_dtype_is_floating(t->dtype) ? ct_to(t, out) : t;
        r = in ? ct_to(ct__reduce(CT__ROP_SUM, in, mask, keepdim, CT_I64, NULL), out) : NULL;
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_sum(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__sum(input, CT_SHAPE0, false, CT_DEFAULT, false);
}

ct_tensor *ct_sum_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype)
{
    CT__ARG(input, "input", 1);
    return ct__sum(input, dims, keepdim, dtype, false);
}

ct_tensor *ct_nansum(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__sum(input, CT_SHAPE0, false, CT_DEFAULT, true);
}

ct_tensor *ct_nansum_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype)
{
    CT__ARG(input, "input", 1);
    return ct__sum(input, dims, keepdim, dtype, true);
}

/* PyTorch's CPU mean: the sum in the result dtype, divided by the count. */
ct_tensor *ct_mean_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype)
{
    uint32_t mask;
    int64_t count = 1;
    CT__ARG(input, "input", 1);
    if (ct__check_dtype(dtype) != CT_OK) return NULL;
    if (!ct_dtype_is_floating(dtype == CT_DEFAULT ? input->dtype : dtype)) {
        ct__fail(CT_ERR_RUNTIME,
                 "mean(): could not infer output dtype. %s dtype must be either a floating point or complex dtype. "
                 "Got: %s",
                 dtype == CT_DEFAULT ? "Input" : "Optional", ct__dtype_title(dtype == CT_DEFAULT ? input->dtype : dtype));
        return NULL;
    }
    if (ct__dims_mask(input, dims, &mask) != CT_OK) return NULL;
    for (int d = 0; d < input->ndim; d++)
        if ((mask >> d) & 1) count *= input->sizes[d];
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct__sum(input, dims, keepdim, dtype == CT_DEFAULT ? input->dtype : dtype, false);
    if (r) { /* PyTorch divides by the count as an element of the result's dtype: 70000 is inf in float16 */
        uint64_t elem = 0;
        ct__write_i64(&elem, r->dtype, count);
        if (ct_div_scalar_(r, ct_float(ct__read_f64(&elem, r->dtype))) != CT_OK) r = NULL;
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_mean(const ct_tensor *input) { return ct_mean_dim(input, CT_SHAPE0, false, CT_DEFAULT); }

static ct_tensor *ct__prod(const ct_tensor *t, uint32_t mask, bool keepdim, ct_dtype dtype)
{
    ct_dtype out = dtype != CT_DEFAULT ? dtype : ct__widened(t->dtype);
    if (out == CT_BF16 && ct_numel(t)) { /* PyTorch only looks for a kernel when there is work */
        ct__no_kernel("prod_cpu", out);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r;
    if (ct_dtype_is_floating(out)) { /* float16 has no kernel in PyTorch 1.13: float32, rounded once */
        const ct_tensor *in = ct_to(t, out);
        in = in && out == CT_F16 ? ct_to(in, CT_F32) : in;
        r = in ? ct_to(ct__reduce(CT__ROP_PROD, in, mask, keepdim, in->dtype, NULL), out) : NULL;
    } else if (out == CT_BOOL) { /* bool * bool is and */
        r = ct__reduce(CT__ROP_ALL, t, mask, keepdim, CT_BOOL, NULL);
    } else {
        const ct_tensor *in = ct_dtype_is_floating(t->dtype) ? ct_to(t, out) : t;
        r = in ? ct_to(ct__reduce(CT__ROP_PROD, in, mask, keepdim, CT_I64, NULL), out) : NULL;
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_prod(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__prod(input, (uint32_t)((1u << input->ndim) - 1), false, CT_DEFAULT);
}

ct_tensor *ct_prod_dim(const ct_tensor *input, int dim, bool keepdim, ct_dtype dtype)
{
    int d;
    CT__ARG(input, "input", 1);
    int64_t mask = ct__dim_mask1(input, dim, &d);
    if (mask < 0 || ct__check_dtype(dtype) != CT_OK) return NULL;
    return ct__prod(input, (uint32_t)mask, keepdim, dtype);
}

/* ---------------------------------------------------------------- extremes */

static ct_tensor *ct__amax(const char *name, ct__rop op, const ct_tensor *t, ct_shape dims, bool keepdim)
{
    uint32_t mask;
    if (ct__dims_mask(t, dims, &mask) != CT_OK) return NULL;
    if (ct_numel(t) == 0 && dims.ndim == 0) {
        ct__fail(CT_ERR_RUNTIME,
                 "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
                 "with the 'dim' argument.",
                 name);
        return NULL;
    }
    for (int i = 0; i < dims.ndim && ct_numel(t) == 0; i++) /* PyTorch names the dim as given */
        if (t->sizes[ct__wrap_dim(dims.size[i], t->ndim)] == 0) {
            ct__fail(CT_ERR_INDEX, "%s(): Expected reduction dim %lld to have non-zero size.", name,
                     (long long)dims.size[i]);
            return NULL;
        }
    return ct__reduce(op, t, mask, keepdim, t->dtype, NULL);
}

ct_tensor *ct_max(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__amax("max", CT__ROP_MAX, input, CT_SHAPE0, false);
}

ct_tensor *ct_min(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__amax("min", CT__ROP_MIN, input, CT_SHAPE0, false);
}

ct_tensor *ct_amax(const ct_tensor *input, ct_shape dims, bool keepdim)
{
    CT__ARG(input, "input", 1);
    return ct__amax("amax", CT__ROP_MAX, input, dims, keepdim);
}

ct_tensor *ct_amin(const ct_tensor *input, ct_shape dims, bool keepdim)
{
    CT__ARG(input, "input", 1);
    return ct__amax("amin", CT__ROP_MIN, input, dims, keepdim);
}

ct_result ct_max_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    return ct__along_reduce(CT__AOP_MAX, "max", input, dim, keepdim, false, values, indices);
}

ct_result ct_min_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    return ct__along_reduce(CT__AOP_MIN, "min", input, dim, keepdim, false, values, indices);
}

static ct_tensor *ct__argext(ct__aop op, const char *name, const ct_tensor *t, int dim, bool keepdim, bool flat)
{
    ct_tensor *i = NULL;
    if (t->dtype == CT_BOOL) {
        ct__no_kernel(op == CT__AOP_ARGMAX ? "argmax_cpu" : "argmin_cpu", t->dtype);
        return NULL;
    }
    if (flat && ct_numel(t) == 0) {
        ct__fail(CT_ERR_INDEX, "%s(): Expected reduction dim to be specified for input.numel() == 0.", name);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    const ct_tensor *in = flat ? ct_reshape(t, CT_SHAPE(-1)) : t;
    if (in && ct__along_reduce(op, name, in, flat ? 0 : dim, keepdim, false, NULL, &i) == CT_OK) ct_keep(i);
    ct_scope_end(s);
    return i;
}

ct_tensor *ct_argmax(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__argext(CT__AOP_ARGMAX, "argmax", input, 0, false, true);
}

ct_tensor *ct_argmin(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__argext(CT__AOP_ARGMIN, "argmin", input, 0, false, true);
}

ct_tensor *ct_argmax_dim(const ct_tensor *input, int dim, bool keepdim)
{
    CT__ARG(input, "input", 1);
    return ct__argext(CT__AOP_ARGMAX, "argmax", input, dim, keepdim, false);
}

ct_tensor *ct_argmin_dim(const ct_tensor *input, int dim, bool keepdim)
{
    CT__ARG(input, "input", 1);
    return ct__argext(CT__AOP_ARGMIN, "argmin", input, dim, keepdim, false);
}

/* ---------------------------------------------------------------- statistics */

/* std_var_all_cpu: float and double reductions to one value take the mean
 * first, then the squared deviations in double. */
static ct_result ct__var_two_pass(const ct_tensor *t, ct_tensor *res, int64_t correction, bool take_sqrt)
{
    ct__rargs args;
    double sum = 0;
    ct_scope s = ct_scope_begin();
    ct_tensor *mean = ct_mean(t);
    memset(&args, 0, sizeof args);
    args.center = mean ? ct_item(mean) : 0;
    args.result = &sum;
    ct_scope_end(s);
    if (!mean) return ct_last_error_code();
    ct__rk(t)->reduce(CT__ROP_SQDEV, NULL, t, (uint32_t)((1u << t->ndim) - 1), &args);
    double var = sum / (double)CT__MAX((int64_t)0, ct_numel(t) - correction);
    if (ct_numel(res)) ct__write_f64(ct__data(res), res->dtype, take_sqrt ? sqrt(var) : var);
    return CT_OK;
}

static ct_result ct__var(const char *fname, bool take_sqrt, bool with_mean, const ct_tensor *t, ct_shape dims,
                         int64_t correction, bool keepdim, ct_tensor **out, ct_tensor **mean)
{
    int64_t sizes[CT_MAX_DIMS];
    uint32_t mask;
    ct__clear_pair(out, mean);
    if (!ct_dtype_is_floating(t->dtype))
        return ct__fail(CT_ERR_RUNTIME, "%s only support floating point and complex dtypes", fname);
    if (ct__dims_mask(t, dims, &mask) != CT_OK) return ct_last_error_code();
    int n = ct__kept_shape(t, mask, keepdim, sizes);
    ct_scope s = ct_scope_begin();
    ct_tensor *v = ct__alloc(sizes, n, t->dtype, ct__cpu), *m = with_mean ? ct__alloc(sizes, n, t->dtype, ct__cpu) : NULL;
    ct_result r = v && (m || !with_mean) ? CT_OK : ct_last_error_code();
    if (r == CT_OK && ct_numel(t) == 0) {
        r = ct_fill_(v, ct_float(NAN));
        if (m && r == CT_OK) r = ct_fill_(m, ct_float(NAN));
    } else if (r == CT_OK && !m && (t->dtype == CT_F32 || t->dtype == CT_F64) && ct_numel(v) <= 1) {
        r = ct__var_two_pass(t, v, correction, take_sqrt);
    } else if (r == CT_OK && ct_numel(v)) {
        ct_tensor vv, mv;
        ct__rargs args;
        memset(&args, 0, sizeof args);
        args.correction = correction;
        args.take_sqrt = take_sqrt;
        ct__kernel_view(&vv, v, t, mask, keepdim);
        if (m) ct__kernel_view(&mv, m, t, mask, keepdim), args.mean = &mv;
        ct__rk(t)->reduce(CT__ROP_VAR, &vv, t, mask, &args);
    }
    if (r == CT_OK) ct_keep(v), ct_keep(m);
    ct_scope_end(s);
    return ct__hand_pair(r, v, m, out, mean);
}

static ct_tensor *ct__var_only(bool take_sqrt, const ct_tensor *t, ct_shape dims, int64_t correction, bool keepdim)
{
    ct_tensor *r = NULL;
    ct__var("std and var", take_sqrt, false, t, dims, correction, keepdim, &r, NULL);
    return r;
}

ct_tensor *ct_std(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__var_only(true, input, CT_SHAPE0, 1, false);
}

ct_tensor *ct_var(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__var_only(false, input, CT_SHAPE0, 1, false);
}

ct_tensor *ct_std_dim(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim)
{
    CT__ARG(input, "input", 1);
    return ct__var_only(true, input, dims, correction, keepdim);
}

ct_tensor *ct_var_dim(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim)
{
    CT__ARG(input, "input", 1);
    return ct__var_only(false, input, dims, correction, keepdim);
}

ct_result ct_std_mean(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim, ct_tensor **std,
                      ct_tensor **mean)
{
    ct__clear_pair(std, mean);
    CT__ARG_R(input, "input", 1);
    return ct__var("std_mean", true, true, input, dims, correction, keepdim, std, mean);
}

ct_result ct_var_mean(const ct_tensor *input, ct_shape dims, int64_t correction, bool keepdim, ct_tensor **var,
                      ct_tensor **mean)
{
    ct__clear_pair(var, mean);
    CT__ARG_R(input, "input", 1);
    return ct__var("var_mean", false, true, input, dims, correction, keepdim, var, mean);
}

ct_tensor *ct_median(const ct_tensor *input)
{
    ct_tensor *v = NULL;
    CT__ARG(input, "input", 1);
    if (input->dtype == CT_BOOL) {
        ct__no_kernel("median_cpu", input->dtype);
        return NULL;
    }
    if (ct_numel(input) == 0) return ct__scalar_result(NAN, input->dtype);
    ct_scope s = ct_scope_begin();
    ct_tensor *flat = ct_reshape(input, CT_SHAPE(-1));
    if (flat && ct__along_reduce(CT__AOP_MEDIAN, "median", flat, 0, false, true, &v, NULL) == CT_OK) ct_keep(v);
    ct_scope_end(s);
    return v;
}

ct_result ct_median_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    if (input->dtype == CT_BOOL) return ct__no_kernel("median_out", input->dtype);
    return ct__along_reduce(CT__AOP_MEDIAN, "median", input, dim, keepdim, true, values, indices);
}

ct_result ct_mode(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    return ct__along_reduce(CT__AOP_MODE, "mode", input, dim, keepdim, false, values, indices);
}

/* ---------------------------------------------------------------- norms */

ct_tensor *ct_norm_dim(const ct_tensor *input, double p, ct_shape dims, bool keepdim, ct_dtype dtype)
{
    uint32_t mask;
    ct__rargs args;
    CT__ARG(input, "input", 1);
    if (ct__check_dtype(dtype) != CT_OK) return NULL;
    if (dtype != CT_DEFAULT && !ct_dtype_is_floating(dtype)) {
        ct__fail(CT_ERR_RUNTIME, "norm(): the desired output dtype should be either floating point or complex. Got %s instead.",
                 ct__dtype_title(dtype));
        return NULL;
    }
    if (dtype == CT_DEFAULT && !ct_dtype_is_floating(input->dtype)) {
        ct__fail(CT_ERR_RUNTIME, "norm(): input dtype should be either floating point or complex. Got %s instead.",
                 ct__dtype_title(input->dtype));
        return NULL;
    }
    if (ct__dims_mask(input, dims, &mask) != CT_OK) return NULL;
    memset(&args, 0, sizeof args);
    args.p = (float)p; /* PyTorch's norm kernel keeps p as a float */
    ct_scope s = ct_scope_begin();
    const ct_tensor *in = ct_to(input, dtype);
    ct_tensor *r = in ? ct__reduce(CT__ROP_NORM, in, mask, keepdim, in->dtype, &args) : NULL;
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_norm(const ct_tensor *input, double p) { return ct_norm_dim(input, p, CT_SHAPE0, false, CT_DEFAULT); }

ct_tensor *ct_norm_fro(const ct_tensor *input, ct_shape dims, bool keepdim)
{
    CT__ARG(input, "input", 1);
    if (dims.ndim > 2) {
        ct__fail(CT_ERR_RUNTIME, "Expected at most 2 dimensions, but got %d dimensions instead.", dims.ndim);
        return NULL;
    }
    if (dims.ndim < 2) return ct_norm_dim(input, 2, dims, keepdim, CT_DEFAULT);
    int d0 = ct__wrap_dim(dims.size[0], input->ndim), d1 = d0 < 0 ? -1 : ct__wrap_dim(dims.size[1], input->ndim);
    if (d1 < 0) return NULL;
    if (d0 == d1) {
        ct__fail(CT_ERR_RUNTIME, "Expected dims to be different, got [%lld, %lld] instead", (long long)dims.size[0],
                 (long long)dims.size[1]);
        return NULL;
    }
    if (!ct_dtype_is_floating(input->dtype)) return ct_norm_dim(input, 2, dims, keepdim, CT_DEFAULT); /* its message */
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct_sqrt(ct_sum_dim(ct_mul(input, input), dims, keepdim, CT_DEFAULT));
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* amax with those of its values that are infinite made 0, as logsumexp
 * subtracts and adds them back (so that inf - inf never happens). */
static ct_tensor *ct__finite_max(const ct_tensor *t, ct_shape dims)
{
    ct_tensor *m = ct_amax(t, dims, true);
    ct_tensor *c = m ? ct_contiguous(m) : NULL;
    char *p = c ? ct__data(c) : NULL;
    for (int64_t i = 0, n = ct_numel(c); i < n; i++, p += ct__esize(c))
        if (isinf(ct__read_f64(p, c->dtype))) ct__write_f64(p, c->dtype, 0);
    return c;
}

ct_tensor *ct_logsumexp(const ct_tensor *input, ct_shape dims, bool keepdim)
{
    uint32_t mask;
    int64_t ones[CT_MAX_DIMS];
    char b1[16], b2[256];
    CT__ARG(input, "input", 1);
    if (ct__dims_mask(input, dims, &mask) != CT_OK) return NULL;
    if (dims.ndim == 0 && !keepdim && input->ndim > 0) { /* PyTorch 1.13 keeps amax's dims for the sum's out */
        for (int d = 0; d < input->ndim; d++) ones[d] = 1;
        ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                 ct__shape_str(ones, 0, b1, sizeof b1), ct__shape_str(ones, input->ndim, b2, sizeof b2));
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    const ct_tensor *in = ct_dtype_is_floating(input->dtype) ? input : ct_to(input, ct__default_dtype);
    in = in && in->dtype == CT_F16 ? ct_to(in, CT_F32) : in; /* no float16 exp in PyTorch 1.13 */
    ct_tensor *r = NULL;
    if (in && ct_numel(in)) {
        ct_tensor *m = ct__finite_max(in, dims), *e = m ? ct_sub(in, m) : NULL;
        r = e && ct_exp_(e) == CT_OK ? ct_sum_dim(e, dims, keepdim, CT_DEFAULT) : NULL;
        if (r && (ct_log_(r) != CT_OK || ct_add_(r, ct_reshape(m, ct_shape_of(r))) != CT_OK)) r = NULL;
    } else if (in) {
        r = ct_sum_dim(ct_exp(in), dims, keepdim, CT_DEFAULT);
        if (r && ct_log_(r) != CT_OK) r = NULL;
    }
    if (r && r->dtype != input->dtype && input->dtype == CT_F16) r = ct_to(r, CT_F16);
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- logic and counting */

static ct_tensor *ct__logic(ct__rop op, const ct_tensor *t, uint32_t mask, bool keepdim)
{
    return ct__reduce(op, t, mask, keepdim, t->dtype == CT_U8 ? CT_U8 : CT_BOOL, NULL);
}

ct_tensor *ct_all(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__logic(CT__ROP_ALL, input, (uint32_t)((1u << input->ndim) - 1), false);
}

ct_tensor *ct_any(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__logic(CT__ROP_ANY, input, (uint32_t)((1u << input->ndim) - 1), false);
}

ct_tensor *ct_all_dim(const ct_tensor *input, int dim, bool keepdim)
{
    int d;
    CT__ARG(input, "input", 1);
    int64_t mask = ct__dim_mask1(input, dim, &d);
    return mask < 0 ? NULL : ct__logic(CT__ROP_ALL, input, (uint32_t)mask, keepdim);
}

ct_tensor *ct_any_dim(const ct_tensor *input, int dim, bool keepdim)
{
    int d;
    CT__ARG(input, "input", 1);
    int64_t mask = ct__dim_mask1(input, dim, &d);
    return mask < 0 ? NULL : ct__logic(CT__ROP_ANY, input, (uint32_t)mask, keepdim);
}

ct_tensor *ct_count_nonzero(const ct_tensor *input, ct_shape dims)
{
    uint32_t mask;
    CT__ARG(input, "input", 1);
    if (ct__dims_mask(input, dims, &mask) != CT_OK) return NULL;
    return ct__reduce(CT__ROP_COUNT, input, mask, false, CT_I64, NULL);
}

/* ---------------------------------------------------------------- scans */

/* op along dim of in into new contiguous values (and indices); a 0-d input
 * is its own scan. Float16 runs in float32 (PyTorch 1.13 has no kernel). */
static ct_result ct__scan_dim(ct__aop op, const ct_tensor *in, int dim, bool with_indices, ct_tensor **values,
                          ct_tensor **indices)
{
    int d = ct__wrap_dim(dim, in->ndim);
    if (d < 0) return ct_last_error_code();
    ct_scope s = ct_scope_begin();
    const ct_tensor *work = in->dtype == CT_F16 ? ct_to(in, CT_F32) : in;
    ct_tensor *v = work ? ct__alloc(in->sizes, in->ndim, work->dtype, ct__cpu) : NULL;
    ct_tensor *i = with_indices ? ct__alloc(in->sizes, in->ndim, CT_I64, ct__cpu) : NULL;
    ct_result r = v && (i || !with_indices) ? CT_OK : ct_last_error_code();
    if (r == CT_OK && in->ndim == 0) {
        r = ct_copy_(v, work);
        if (i && r == CT_OK) r = ct_zero_(i);
    } else if (r == CT_OK) {
        r = ct__rk(in)->along(op, v, i, work, d);
    }
    if (r == CT_OK && v->dtype != in->dtype && !(v = ct_to(v, in->dtype))) r = ct_last_error_code();
    if (r == CT_OK) ct_keep(v), ct_keep(i);
    ct_scope_end(s);
    return ct__hand_pair(r, v, i, values, indices);
}

/* cumsum and cumprod: the input converted to the result dtype first. */
static ct_tensor *ct__cum(ct__aop op, const ct_tensor *t, int dim, ct_dtype dtype)
{
    ct_tensor *r = NULL;
    if (ct__check_dtype(dtype) != CT_OK || ct__wrap_dim(dim, t->ndim) < 0) return NULL;
    ct_dtype out = dtype != CT_DEFAULT ? dtype : ct__widened(t->dtype);
    if (out == CT_BOOL) {
        ct__no_kernel(op == CT__AOP_CUMSUM ? "cumsum_out_cpu" : "cumprod_out_cpu", out);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    const ct_tensor *in = ct_to(t, out);
    if (in && ct__scan_dim(op, in, dim, false, &r, NULL) == CT_OK) ct_keep(r);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_cumsum(const ct_tensor *input, int dim, ct_dtype dtype)
{
    CT__ARG(input, "input", 1);
    return ct__cum(CT__AOP_CUMSUM, input, dim, dtype);
}

ct_tensor *ct_cumprod(const ct_tensor *input, int dim, ct_dtype dtype)
{
    CT__ARG(input, "input", 1);
    return ct__cum(CT__AOP_CUMPROD, input, dim, dtype);
}

static ct_result ct__cum_(ct__aop op, ct_tensor *self, int dim, ct_dtype dtype)
{
    if (ct__check_dtype(dtype) != CT_OK) return ct_last_error_code();
    if (dtype != CT_DEFAULT && dtype != self->dtype)
        return ct__fail(CT_ERR_RUNTIME, "Bad in-place call: input tensor dtype %s and output tensor dtype %s should match",
                        ct__typemeta_name(self->dtype), ct__typemeta_name(dtype));
    ct_result r = ct__check_write(self, NULL);
    if (r != CT_OK) return r;
    ct_scope s = ct_scope_begin();
    ct_tensor *c = ct__cum(op, self, dim, self->dtype);
    if (c) ct__copy_unchecked(self, c);
    r = c ? CT_OK : ct_last_error_code();
    ct_scope_end(s);
    return r;
}

ct_result ct_cumsum_(ct_tensor *self, int dim, ct_dtype dtype)
{
    CT__ARG_R(self, "self", 1);
    return ct__cum_(CT__AOP_CUMSUM, self, dim, dtype);
}

ct_result ct_cumprod_(ct_tensor *self, int dim, ct_dtype dtype)
{
    CT__ARG_R(self, "self", 1);
    return ct__cum_(CT__AOP_CUMPROD, self, dim, dtype);
}

ct_result ct_cummax(const ct_tensor *input, int dim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    return ct__scan_dim(CT__AOP_CUMMAX, input, input->ndim ? dim : 0, true, values, indices); /* 0-d: any dim */
}

ct_result ct_cummin(const ct_tensor *input, int dim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    return ct__scan_dim(CT__AOP_CUMMIN, input, input->ndim ? dim : 0, true, values, indices); /* 0-d: any dim */
}

ct_tensor *ct_logcumsumexp(const ct_tensor *input, int dim)
{
    ct_tensor *r = NULL;
    CT__ARG(input, "input", 1);
    if (ct__wrap_dim(dim, input->ndim) < 0) return NULL;
    if (!ct_dtype_is_floating(input->dtype)) {
        ct__no_kernel("logcumsumexp_out_cpu", input->dtype);
        return NULL;
    }
    ct__scan_dim(CT__AOP_LOGCUMSUMEXP, input, dim, false, &r, NULL);
    return r;
}

/* ---------------------------------------------------------------- softmax */

static ct_tensor *ct__softmax(bool logsm, const ct_tensor *t, int dim, ct_dtype dtype)
{
    ct_tensor *r = NULL;
    if (ct__check_dtype(dtype) != CT_OK) return NULL;
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return NULL;
    bool last = t->ndim == 0 || d == t->ndim - 1;
    ct_dtype dt = dtype != CT_DEFAULT ? dtype : t->dtype;
    if (!ct_dtype_is_floating(dt)) {
        ct__no_kernel(!last ? "softmax_kernel_impl" : logsm ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl",
                      dt);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    const ct_tensor *in = ct_to(t, dt), *in1 = in && in->ndim == 0 ? ct_reshape(in, CT_SHAPE(1)) : in;
    ct_tensor *out = NULL;
    if (in1 && ct__scan_dim(logsm ? CT__AOP_LOG_SOFTMAX : CT__AOP_SOFTMAX, in1, d, false, &out, NULL) == CT_OK)
        r = ct_keep(t->ndim ? out : ct_reshape(out, CT_SHAPE0)); /* PyTorch views a 0-d input as 1-d */
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_softmax(const ct_tensor *input, int dim, ct_dtype dtype)
{
    CT__ARG(input, "input", 1);
    return ct__softmax(false, input, dim, dtype);
}

ct_tensor *ct_log_softmax(const ct_tensor *input, int dim, ct_dtype dtype)
{
    CT__ARG(input, "input", 1);
    return ct__softmax(true, input, dim, dtype);
}

/* ---------------------------------------------------------------- printing */

void ct_print_return_types(const char *name, const ct_tensor *values, const ct_tensor *indices)
{
    if (!values || !indices) {
        ct__null_arg(__func__, values ? "indices" : "values", values ? 3 : 2);
        return;
    }
    int nv = ct_to_string(values, NULL, 0), ni = ct_to_string(indices, NULL, 0);
    char *text = nv < 0 || ni < 0 ? NULL : (char *)CT_MALLOC((size_t)nv + (size_t)ni + 2);
    if (!text) {
        if (nv >= 0 && ni >= 0) CT__OOM();
        return;
    }
    ct_to_string(values, text, (size_t)nv + 1);
    ct_to_string(indices, text + nv + 1, (size_t)ni + 1);
    printf("torch.return_types.%s(\nvalues=%s,\nindices=%s)\n", name ? name : "", text, text + nv + 1);
    CT_FREE(text);
}

/* ==================== ops/join.c ==================== */
// >>ops/join.c

/* ==================== ops/sort.c ==================== */
// >>ops/sort.c

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
/* Reduction, scan and softmax kernels on the CPU.
 *
 * Users compare ctorch's numbers with PyTorch's to the last bit, so where
 * the order of floating-point operations shows in the result these kernels
 * replay PyTorch 1.13's CPU kernels as they run on one thread of an AVX2
 * machine: the dims of a reduction are ordered and merged as TensorIterator
 * does, then handed to 2-D loops that follow the cascade sum of
 * SumKernel.cpp, the vector lanes of Reduce.h's products, Welford's update
 * with the fused multiply-add GCC makes of it, and so on. A vector of
 * PyTorch's is an array of lanes here, which the compiler may vectorise.
 * Threads never change a result: they split work only where PyTorch's
 * single-threaded order is kept (distinct outputs, whole column groups,
 * the independent top-level blocks of a cascade sum). */

/* ---------------------------------------------------------------- elements */

static inline float ct__h2f(const char *p) { return ct__f16_to_float(*(const uint16_t *)p); }
static inline float ct__b2f(const char *p) { return ct__bf16_to_float(*(const uint16_t *)p); }
static inline void ct__f2h(char *p, float v) { *(uint16_t *)p = ct__float_to_f16(v); }
static inline void ct__f2b(char *p, float v) { *(uint16_t *)p = ct__float_to_bf16(v); }
/* float rounded to float16 / bfloat16 and back: one operation of c10::Half arithmetic */
static inline float ct__rh(float v) { return ct__f16_to_float(ct__float_to_f16(v)); }
static inline float ct__rb(float v) { return ct__bf16_to_float(ct__float_to_bf16(v)); }

/* ---------------------------------------------------------------- the plan of a reduction */

/* A reduction as TensorIterator lays it out: dims ordered with the reduced
 * ones innermost (by input stride), then the kept ones (by output stride),
 * adjacent dims merged where both operands allow, size-1 dims dropped.
 * Dims [0, nred) are reduced (output stride 0). Strides are in bytes. */
typedef struct ct__rplan {
    int ndim, nred;
    int64_t shape[CT_MAX_DIMS];
    int64_t os[CT_MAX_DIMS], is[CT_MAX_DIMS];
    char *out;
    const char *in;
    int64_t numel;
} ct__rplan;

/* TensorIterator's should_swap for a reduction: 1 when dim a goes outside b. */
static int ct__rplan_order(const int64_t *os, const int64_t *is, const int64_t *shape, int a, int b)
{
    const int64_t *st[2] = {os, is};
    if ((os[a] == 0) != (os[b] == 0)) return os[b] == 0 ? 1 : -1;
    for (int k = 0; k < 2; k++) {
        if (st[k][a] == 0 || st[k][b] == 0) continue;
        if (st[k][a] != st[k][b]) return st[k][a] > st[k][b] ? 1 : -1;
        if (shape[a] > shape[b]) return 1;
    }
    return 0;
}

/* out may be NULL: a reduction of everything into a value the kernel keeps. */
static void ct__rplan_init(ct__rplan *p, ct_tensor *out, const ct_tensor *in, uint32_t mask)
{
    int nd = in->ndim, perm[CT_MAX_DIMS];
    int64_t os[CT_MAX_DIMS], is[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        bool zero = !out || (((mask >> d) & 1) && in->sizes[d] != 1);
        os[d] = zero ? 0 : out->strides[d] * (int64_t)ct__esize(out);
        is[d] = in->strides[d] * (int64_t)ct__esize(in);
    }
    for (int i = 0; i < nd; i++) perm[i] = nd - 1 - i;
    for (int i = 1; i < nd; i++) /* insertion sort that steps over ambiguous pairs, as PyTorch's */
        for (int d0 = i - 1, d1 = i; d0 >= 0; d0--) {
            int c = ct__rplan_order(os, is, in->sizes, perm[d0], perm[d1]);
            if (c < 0) break;
            if (c > 0) {
                int x = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = x;
                d1 = d0;
            }
        }
    p->out = out ? ct__data(out) : NULL;
    p->in = ct__data(in);
    p->ndim = 1;
    p->shape[0] = 1;
    p->os[0] = p->is[0] = 0;
    for (int k = 0; k < nd; k++) { /* coalesce_dimensions */
        int d = perm[k], q = p->ndim - 1;
        int64_t size = in->sizes[d];
        if (k == 0 || p->shape[q] == 1 || size == 1 ||
            (p->shape[q] * p->os[q] == os[d] && p->shape[q] * p->is[q] == is[d])) {
            if (k == 0 || p->shape[q] == 1) {
                p->os[q] = os[d];
                p->is[q] = is[d];
            }
            p->shape[q] *= size;
        } else {
            p->shape[p->ndim] = size;
            p->os[p->ndim] = os[d];
            p->is[p->ndim++] = is[d];
        }
    }
    p->nred = 0;
    while (p->nred < p->ndim && p->os[p->nred] == 0) p->nred++;
    p->numel = 1;
    for (int d = 0; d < p->ndim; d++) p->numel *= p->shape[d];
}

/* Byte offsets of outer position `lin` over dims [from, to) (dim `from` fastest). */
static void ct__rplan_offsets(const ct__rplan *p, int from, int to, int64_t lin, int64_t *oo, int64_t *io)
{
    *oo = *io = 0;
    for (int d = from; d < to; d++) {
        int64_t x = lin % p->shape[d];
        lin /= p->shape[d];
        *oo += x * p->os[d];
        *io += x * p->is[d];
    }
}

static int64_t ct__rplan_count(const ct__rplan *p, int from, int to)
{
    int64_t n = 1;
    for (int d = from; d < to; d++) n *= p->shape[d];
    return n;
}

/* ---------------------------------------------------------------- 2-D loops over a plan */

/* TensorIterator's loop2d: n0 elements along dim 0 for each of n1 along dim
 * 1; s = {out stride 0, in stride 0, out stride 1, in stride 1}. */
typedef void (*ct__loop2d)(char *out, const char *in, const int64_t *s, int64_t n0, int64_t n1, void *ctx);

typedef struct ct__rjob {
    const ct__rplan *p;
    ct__loop2d fn;
    void *ctx;
    int first_kept; /* the first outer dim that is kept */
} ct__rjob;

/* The 2-D blocks of kept outer positions [b, e), each with its reduced outer
 * positions in order: what serial_for_each does for those outputs. */
static void ct__rjob_outer(int64_t b, int64_t e, void *ctx)
{
    const ct__rjob *j = (const ct__rjob *)ctx;
    const ct__rplan *p = j->p;
    int64_t s[4] = {p->os[0], p->is[0], p->ndim > 1 ? p->os[1] : 0, p->ndim > 1 ? p->is[1] : 0};
    int64_t n1 = p->ndim > 1 ? p->shape[1] : 1, nred = ct__rplan_count(p, 2, j->first_kept);
    for (int64_t k = b; k < e; k++) {
        int64_t ko, ki;
        ct__rplan_offsets(p, j->first_kept, p->ndim, k, &ko, &ki);
        for (int64_t r = 0; r < nred; r++) {
            int64_t ro, ri;
            ct__rplan_offsets(p, 2, j->first_kept, r, &ro, &ri);
            j->fn(p->out ? p->out + ko + ro : NULL, p->in + ki + ri, s, p->shape[0], n1, j->ctx);
        }
    }
}

/* Column chunks [b, e) of 64 (whole groups of PyTorch's vector columns) of a
 * 2-D plan whose dim 1 is kept. */
static void ct__rjob_cols(int64_t b, int64_t e, void *ctx)
{
    const ct__rjob *j = (const ct__rjob *)ctx;
    const ct__rplan *p = j->p;
    int64_t s[4] = {p->os[0], p->is[0], p->os[1], p->is[1]};
    int64_t c0 = b * 64, c1 = CT__MIN(p->shape[1], e * 64);
    j->fn(p->out + c0 * p->os[1], p->in + c0 * p->is[1], s, p->shape[0], c1 - c0, j->ctx);
}

/* Run fn over the plan in PyTorch's order, in parallel over distinct outputs. */
static void ct__rplan_run(const ct__rplan *p, ct__loop2d fn, void *ctx)
{
    ct__rjob job;
    job.p = p;
    job.fn = fn;
    job.ctx = ctx;
    job.first_kept = CT__MIN(p->ndim, CT__MAX(2, p->nred));
    if (p->numel == 0) return;
    int64_t nkept = ct__rplan_count(p, job.first_kept, p->ndim), block = p->numel / nkept;
    if (nkept > 1) {
        ct__parallel_for(nkept, CT__MAX(1, CT__GRAIN / block), ct__rjob_outer, &job);
    } else if (p->ndim == 2 && p->nred <= 1 && p->shape[1] > 64) {
        ct__parallel_for((p->shape[1] + 63) / 64, CT__MAX(1, CT__GRAIN / (64 * p->shape[0])), ct__rjob_cols, &job);
    } else {
        ct__rjob_outer(0, 1, &job);
    }
}

/* ---------------------------------------------------------------- cascade sums (SumKernel.cpp) */

/* multi_row_sum's level width: 2^lp rows are summed before moving up a level. */
static int ct__cascade_power(int64_t size)
{
    int c = 1;
    while (c < 62 && ((int64_t)1 << c) < size) c++;
    return CT__MAX(4, c / 4);
}

/* Sums run on four levels of accumulators, each 4 vectors of W lanes. A
 * top-level block of 2^(3 lp) rows always starts from zero, so blocks are
 * summed in parallel and added to the top level in order, as the serial
 * loop would. CT__MRS(name, A, W, ADDV) defines
 *   name(in, row stride, column stride, rows, sums[4][W])
 * where ADDV(a, p) adds the W lanes at p to a. */
#define CT__MRS(name, A, W, ADDV)                                                                         \
    /* rows [i, end) added into the level-0 sums, held in a local copy */                                \
    static inline void name##_rows(const char *in, int64_t rs, int64_t cs, int64_t i, int64_t end, A a[4][W]) \
    {                                                                                                     \
        A t[4][W];                                                                                        \
        memcpy(t, a, sizeof t);                                                                           \
        for (; i < end; i++) {                                                                            \
            const char *row = in + i * rs;                                                                \
            ADDV(t[0], row);                                                                              \
            ADDV(t[1], row + cs);                                                                         \
            ADDV(t[2], row + 2 * cs);                                                                     \
            ADDV(t[3], row + 3 * cs);                                                                     \
        }                                                                                                 \
        memcpy(a, t, sizeof t);                                                                           \
    }                                                                                                     \
    static void name##_core(const char *in, int64_t rs, int64_t cs, int64_t size, int lp, int64_t i,      \
                            A acc[4][4][W])                                                               \
    {                                                                                                     \
        int64_t step = (int64_t)1 << lp, mask = step - 1;                                                 \
        for (; i + step <= size; i += step) {                                                             \
            name##_rows(in, rs, cs, i, i + step, acc[0]);                                                 \
            for (int j = 1; j < 4; j++) {                                                                 \
                for (int k = 0; k < 4; k++)                                                               \
                    for (int l = 0; l < W; l++) {                                                         \
                        acc[j][k][l] += acc[j - 1][k][l];                                                 \
                        acc[j - 1][k][l] = 0;                                                             \
                    }                                                                                     \
                if ((i + step) & (mask << (j * lp))) break;                                               \
            }                                                                                             \
        }                                                                                                 \
        name##_rows(in, rs, cs, i, size, acc[0]);                                                         \
    }                                                                                                     \
    typedef struct name##_job {                                                                           \
        const char *in;                                                                                   \
        int64_t rs, cs, top;                                                                              \
        int lp;                                                                                           \
        A *blocks;                                                                                        \
    } name##_job;                                                                                         \
    static void name##_blocks(int64_t b, int64_t e, void *ctx)                                            \
    {                                                                                                     \
        const name##_job *jb = (const name##_job *)ctx;                                                   \
        for (int64_t m = b; m < e; m++) {                                                                 \
            A a[4][4][W];                                                                                 \
            memset(a, 0, sizeof a);                                                                       \
            name##_core(jb->in + m * jb->top * jb->rs, jb->rs, jb->cs, jb->top, jb->lp, 0, a);           \
            memcpy(jb->blocks + m * 4 * W, a[3], sizeof a[3]);                                            \
        }                                                                                                 \
    }                                                                                                     \
    static void name(const char *in, int64_t rs, int64_t cs, int64_t size, A sums[4][W])                  \
    {                                                                                                     \
        A acc[4][4][W];                                                                                   \
        int lp = ct__cascade_power(size);                                                                 \
        int64_t start = 0, top = lp < 20 ? (int64_t)1 << (3 * lp) : size, nb = size / top;                \
        A *blocks = nb > 1 ? (A *)CT_MALLOC((size_t)nb * 4 * W * sizeof(A)) : NULL;                       \
        memset(acc, 0, sizeof acc);                                                                       \
        if (blocks) {                                                                                     \
            name##_job jb;                                                                                \
            jb.in = in;                                                                                   \
            jb.rs = rs;                                                                                   \
            jb.cs = cs;                                                                                   \
            jb.top = top;                                                                                 \
            jb.lp = lp;                                                                                   \
            jb.blocks = blocks;                                                                           \
            ct__parallel_for(nb, 1, name##_blocks, &jb);                                                  \
            for (int64_t m = 0; m < nb; m++)                                                              \
                for (int k = 0; k < 4; k++)                                                               \
                    for (int l = 0; l < W; l++) acc[3][k][l] += blocks[(m * 4 + k) * W + l];              \
            start = nb * top;                                                                             \
            CT_FREE(blocks);                                                                              \
        }                                                                                                 \
        name##_core(in, rs, cs, size, lp, start, acc);                                                    \
        for (int j = 1; j < 4; j++)                                                                       \
            for (int k = 0; k < 4; k++)                                                                   \
                for (int l = 0; l < W; l++) acc[0][k][l] += acc[j][k][l];                                 \
        memcpy(sums, acc[0], sizeof acc[0]);                                                              \
    }

/* row_sum: the row read as (-1, 4), its four column sums, the rest added to
 * the first, then the four added up. */
#define CT__ROWSUM(name, mrs, A, W, ADDV)                                                                 \
    static void name(const char *in, int64_t stride, int64_t size, A out[W])                              \
    {                                                                                                     \
        A p[4][W];                                                                                        \
        mrs(in, 4 * stride, stride, size / 4, p);                                                         \
        for (int64_t i = size / 4 * 4; i < size; i++) ADDV(p[0], in + i * stride);                       \
        for (int k = 1; k < 4; k++)                                                                       \
            for (int l = 0; l < W; l++) p[0][l] += p[k][l];                                               \
        memcpy(out, p[0], sizeof p[0]);                                                                   \
    }

/* One family of cascade sums: input dtype `fam`, accumulator A with W lanes,
 * ES bytes an element, VN elements a vector load, LD a scalar load, LDVI the
 * inner vector load (W lanes from VN elements), STORE(p, v) adding a sum to
 * an output as PyTorch's CastStoreAccumulate, ADD(o, x) the elementwise
 * out + in of a reduction over nothing. */
#define CT__CASCADE(fam, A, W, ES, VN, LD, LDVI, STORE, ADD)                                              \
    static inline void ct__ld1_##fam(A *a, const char *p) { a[0] += LD(p); }                              \
    static inline void ct__ldo_##fam(A *a, const char *p)                                                 \
    {                                                                                                     \
        for (int l = 0; l < W; l++) a[l] += LD(p + l * (ES));                                             \
    }                                                                                                     \
    static inline void ct__ldi_##fam(A *a, const char *p) { LDVI(a, p); }                                 \
    CT__MRS(ct__mrs1_##fam, A, 1, ct__ld1_##fam)                                                          \
    CT__MRS(ct__mrso_##fam, A, W, ct__ldo_##fam)                                                          \
    CT__MRS(ct__mrsi_##fam, A, W, ct__ldi_##fam)                                                          \
    CT__ROWSUM(ct__rsum1_##fam, ct__mrs1_##fam, A, 1, ct__ld1_##fam)                                      \
    CT__ROWSUM(ct__rsumo_##fam, ct__mrso_##fam, A, W, ct__ldo_##fam)                                      \
    CT__ROWSUM(ct__rsumi_##fam, ct__mrsi_##fam, A, W, ct__ldi_##fam)                                      \
    /* vectorized_inner_sum: each of n1 rows contiguous over n0 */                                       \
    static void ct__csum_inner_##fam(char *out, const char *in, int64_t istride, int64_t ostride, int64_t n0, \
                                     int64_t n1)                                                          \
    {                                                                                                     \
        int64_t nv = n0 / (VN);                                                                           \
        for (int64_t j = 0; j < n1; j++) {                                                                \
            const char *row = in + j * istride;                                                           \
            A v[W], fin = 0;                                                                              \
            ct__rsumi_##fam(row, (VN) * (ES), nv, v);                                                     \
            for (int64_t k = nv * (VN); k < n0; k++) fin += LD(row + k * (ES));                           \
            for (int l = 0; l < W; l++) fin += v[l];                                                      \
            STORE(out + j * ostride, fin);                                                                \
        }                                                                                                 \
    }                                                                                                     \
    /* vectorized_outer_sum: n0 rows of n1 contiguous columns */                                         \
    static void ct__csum_outer_##fam(char *out, const char *in, int64_t istride, int64_t ostride, int64_t n0, \
                                     int64_t n1)                                                          \
    {                                                                                                     \
        int64_t j = 0;                                                                                    \
        for (; j + 4 * W <= n1; j += 4 * W) {                                                             \
            A s[4][W];                                                                                    \
            ct__mrso_##fam(in + j * (ES), istride, W * (ES), n0, s);                                      \
            for (int k = 0; k < 4; k++)                                                                   \
                for (int l = 0; l < W; l++) STORE(out + (j + k * W + l) * ostride, s[k][l]);             \
        }                                                                                                 \
        for (; j + W <= n1; j += W) {                                                                     \
            A s[W];                                                                                       \
            ct__rsumo_##fam(in + j * (ES), istride, n0, s);                                               \
            for (int l = 0; l < W; l++) STORE(out + (j + l) * ostride, s[l]);                             \
        }                                                                                                 \
        for (; j < n1; j++) {                                                                             \
            A s[1];                                                                                       \
            ct__rsum1_##fam(in + j * (ES), istride, n0, s);                                               \
            STORE(out + j * ostride, s[0]);                                                               \
        }                                                                                                 \
    }                                                                                                     \
    /* scalar_inner_sum and scalar_outer_sum: strided both ways */                                       \
    static void ct__csum_scalar_##fam(char *out, const char *in, const int64_t *is, int64_t ostride, int64_t n0, \
                                      int64_t n1, bool inner)                                             \
    {                                                                                                     \
        int64_t j = 0;                                                                                    \
        for (; !inner && j + 3 < n1; j += 4) {                                                            \
            A s[4][1];                                                                                    \
            ct__mrs1_##fam(in + j * is[1], is[0], is[1], n0, s);                                          \
            for (int k = 0; k < 4; k++) STORE(out + (j + k) * ostride, s[k][0]);                          \
        }                                                                                                 \
        for (; j < n1; j++) {                                                                             \
            A s[1];                                                                                       \
            ct__rsum1_##fam(in + j * is[1], is[0], n0, s);                                                \
            STORE(out + j * ostride, s[0]);                                                               \
        }                                                                                                 \
    }                                                                                                     \
    /* cascade_sum's loop2d */                                                                            \
    static void ct__csum_##fam(char *out, const char *in, const int64_t *s, int64_t n0, int64_t n1, void *ctx) \
    {                                                                                                     \
        int64_t is[2] = {s[1], s[3]}, os[2] = {s[0], s[2]};                                               \
        (void)ctx;                                                                                        \
        if (os[0] != 0 && os[1] == 0) { /* the reduced dim first */                                      \
            int64_t t = is[0];                                                                            \
            is[0] = is[1], is[1] = t, os[0] = 0, os[1] = s[0], t = n0, n0 = n1, n1 = t;                   \
        }                                                                                                 \
        if (os[0] != 0) { /* nothing is reduced */                                                        \
            for (int64_t j = 0; j < n1; j++)                                                              \
                for (int64_t i = 0; i < n0; i++) ADD(out + i * s[0] + j * s[2], in + i * s[1] + j * s[3]); \
        } else if (is[0] == (ES) && n0 >= (VN)) {                                                         \
            ct__csum_inner_##fam(out, in, is[1], os[1], n0, n1);                                          \
        } else if (is[1] == (ES) && n1 >= (VN)) {                                                         \
            ct__csum_outer_##fam(out, in, is[0], os[1], n0, n1);                                          \
        } else {                                                                                          \
            ct__csum_scalar_##fam(out, in, is, os[1], n0, n1, is[0] < is[1]);                             \
        }                                                                                                 \
    }

/* Loads, with NaN as zero for nansum. */
static inline float ct__nzf(float v) { return v != v ? 0.0f : v; }
static inline double ct__nzd(double v) { return v != v ? 0.0 : v; }
#define CT__LD_F32(p) (*(const float *)(p))
#define CT__LD_F64(p) (*(const double *)(p))
#define CT__LD_NF32(p) ct__nzf(*(const float *)(p))
#define CT__LD_NF64(p) ct__nzd(*(const double *)(p))
#define CT__LD_NF16(p) ct__nzf(ct__h2f(p))
#define CT__LD_NBF16(p) ct__nzf(ct__b2f(p))
/* Inner vector loads: float and double lanes are the elements; float16
 * lanes sum neighbouring pairs (load_reduce_vec), bfloat16 lanes the two
 * halves of 16 elements (load_fp32_from_bf16). */
#define CT__LDVI_SAME(a, p, LD, ES) \
    for (int l = 0; l < 8 * 4 / (ES); l++) (a)[l] += LD((p) + l * (ES))
#define CT__LDVI_PAIRS(a, p, LD) \
    for (int l = 0; l < 8; l++) (a)[l] += (0.0f + LD((p) + 4 * l)) + LD((p) + 4 * l + 2)
#define CT__LDVI_HALVES(a, p, LD) \
    for (int l = 0; l < 8; l++) (a)[l] += LD((p) + 2 * l) + LD((p) + 2 * l + 16)
/* Stores: out += sum; float16 and bfloat16 round the sum, then the addition. */
#define CT__ST_F32(p, v) (*(float *)(p) += (v))
#define CT__ST_F64(p, v) (*(double *)(p) += (v))
#define CT__ST_F16(p, v) ct__f2h(p, ct__h2f(p) + ct__rh(v))
#define CT__ST_BF16(p, v) ct__f2b(p, ct__b2f(p) + ct__rb(v))
#define CT__ADD_F32(o, x) (*(float *)(o) += *(const float *)(x))
#define CT__ADD_F64(o, x) (*(double *)(o) += *(const double *)(x))
#define CT__ADD_F16(o, x) ct__f2h(o, ct__h2f(o) + ct__h2f(x))
#define CT__ADD_BF16(o, x) ct__f2b(o, ct__b2f(o) + ct__b2f(x))
#define CT__ADD_NF32(o, x) (*(float *)(o) = ct__nzf(*(float *)(o)) + CT__LD_NF32(x))
#define CT__ADD_NF64(o, x) (*(double *)(o) = ct__nzd(*(double *)(o)) + CT__LD_NF64(x))
#define CT__ADD_NF16(o, x) ct__f2h(o, ct__nzf(ct__h2f(o)) + CT__LD_NF16(x))
#define CT__ADD_NBF16(o, x) ct__f2b(o, ct__nzf(ct__b2f(o)) + CT__LD_NBF16(x))

#define CT__LDVI_f32(a, p) CT__LDVI_SAME(a, p, CT__LD_F32, 4)
#define CT__LDVI_f64(a, p) CT__LDVI_SAME(a, p, CT__LD_F64, 8)
#define CT__LDVI_f16(a, p) CT__LDVI_PAIRS(a, p, ct__h2f)
#define CT__LDVI_bf16(a, p) CT__LDVI_HALVES(a, p, ct__b2f)
#define CT__LDVI_nf32(a, p) CT__LDVI_SAME(a, p, CT__LD_NF32, 4)
#define CT__LDVI_nf64(a, p) CT__LDVI_SAME(a, p, CT__LD_NF64, 8)
#define CT__LDVI_nf16(a, p) CT__LDVI_PAIRS(a, p, CT__LD_NF16)
#define CT__LDVI_nbf16(a, p) CT__LDVI_HALVES(a, p, CT__LD_NBF16)

CT__CASCADE(f32, float, 8, 4, 8, CT__LD_F32, CT__LDVI_f32, CT__ST_F32, CT__ADD_F32)
CT__CASCADE(f64, double, 4, 8, 4, CT__LD_F64, CT__LDVI_f64, CT__ST_F64, CT__ADD_F64)
CT__CASCADE(f16, float, 8, 2, 16, ct__h2f, CT__LDVI_f16, CT__ST_F16, CT__ADD_F16)
CT__CASCADE(bf16, float, 8, 2, 16, ct__b2f, CT__LDVI_bf16, CT__ST_BF16, CT__ADD_BF16)
CT__CASCADE(nf32, float, 8, 4, 8, CT__LD_NF32, CT__LDVI_nf32, CT__ST_F32, CT__ADD_NF32)
CT__CASCADE(nf64, double, 4, 8, 4, CT__LD_NF64, CT__LDVI_nf64, CT__ST_F64, CT__ADD_NF64)
CT__CASCADE(nf16, float, 8, 2, 16, CT__LD_NF16, CT__LDVI_nf16, CT__ST_F16, CT__ADD_NF16)
CT__CASCADE(nbf16, float, 8, 2, 16, CT__LD_NBF16, CT__LDVI_nbf16, CT__ST_BF16, CT__ADD_NBF16)

static ct__loop2d ct__cascade_loop(ct_dtype dt, bool nan)
{
    switch (dt) {
    case CT_F64: return nan ? ct__csum_nf64 : ct__csum_f64;
    case CT_F16: return nan ? ct__csum_nf16 : ct__csum_f16;
    case CT_BF16: return nan ? ct__csum_nbf16 : ct__csum_bf16;
    default: return nan ? ct__csum_nf32 : ct__csum_f32;
    }
}

/* ---------------------------------------------------------------- floating products (Reduce.h) */

/* binary_kernel_reduce_vec with multiplication: a contiguous row runs in 4
 * vectors of VW lanes folded at the end, columns run down each column. */
#define CT__PROD(T, VW)                                                                                   \
    static void ct__prod_inner_##T(T *out, const T *x, int64_t n)                                         \
    {                                                                                                     \
        int64_t count = n / (4 * VW), i = count * 4 * VW;                                                 \
        if (count > 0) {                                                                                  \
            T acc[4][VW], b;                                                                              \
            memcpy(acc, x, sizeof acc);                                                                   \
            for (int64_t c = 1; c < count; c++)                                                           \
                for (int k = 0; k < 4; k++)                                                               \
                    for (int l = 0; l < VW; l++) acc[k][l] *= x[(c * 4 + k) * VW + l];                    \
            for (int l = 0; l < VW; l++) acc[0][l] = (acc[0][l] * acc[1][l]) * (acc[2][l] * acc[3][l]);  \
            b = acc[0][0];                                                                                \
            for (int l = 1; l < VW; l++) b *= acc[0][l];                                                  \
            *out *= b;                                                                                    \
        }                                                                                                 \
        for (; i < n; i++) *out *= x[i];                                                                  \
    }                                                                                                     \
    static void ct__prod_outer_##T(T *out, const char *in, int64_t stride, int64_t n0, int64_t n1)        \
    {                                                                                                     \
        int64_t j = 0;                                                                                    \
        for (; j + 4 * VW <= n1; j += 4 * VW) {                                                           \
            T acc[4 * VW];                                                                                \
            memcpy(acc, in + j * sizeof(T), sizeof acc);                                                  \
            for (int64_t i = 1; i < n0; i++) {                                                            \
                const T *x = (const T *)(in + i * stride) + j;                                            \
                for (int l = 0; l < 4 * VW; l++) acc[l] *= x[l];                                          \
            }                                                                                             \
            for (int l = 0; l < 4 * VW; l++) out[j + l] *= acc[l];                                        \
        }                                                                                                 \
        for (; j < n1; j++)                                                                               \
            for (int64_t i = 0; i < n0; i++) out[j] *= *((const T *)(in + i * stride) + j);               \
    }                                                                                                     \
    static void ct__prod_##T(char *out, const char *in, const int64_t *s, int64_t n0, int64_t n1, void *ctx) \
    {                                                                                                     \
        (void)ctx;                                                                                        \
        if (s[0] == 0 && s[1] == (int64_t)sizeof(T)) {                                                    \
            for (int64_t j = 0; j < n1; j++)                                                              \
                ct__prod_inner_##T((T *)(out + j * s[2]), (const T *)(in + j * s[3]), n0);                \
        } else if (s[0] == 0 && s[2] == (int64_t)sizeof(T) && s[3] == (int64_t)sizeof(T)) {               \
            ct__prod_outer_##T((T *)out, in, s[1], n0, n1);                                               \
        } else {                                                                                          \
            for (int64_t j = 0; j < n1; j++)                                                              \
                for (int64_t i = 0; i < n0; i++)                                                          \
                    *(T *)(out + i * s[0] + j * s[2]) *= *(const T *)(in + i * s[1] + j * s[3]);          \
        }                                                                                                 \
    }
CT__PROD(float, 8)
CT__PROD(double, 4)

/* ---------------------------------------------------------------- reductions whose order cannot show */

/* out = OP(out, x) over a 2-D block: integer sums and products (which wrap,
 * so any order gives the same bits), extremes, logic and counts. LIFT makes
 * an element a partial result and COMBINE joins two, so that a contiguous
 * row runs in 16 independent lanes the compiler can vectorise. */
#define CT__FREE_LOOP(name, TI, TO, OP, LIFT, COMBINE)                                                   \
    static inline TO name##_row(TO acc, const TI *x, int64_t n)                                           \
    {                                                                                                     \
        int64_t i = 0;                                                                                    \
        if (n >= 32) {                                                                                    \
            TO lanes[16];                                                                                 \
            for (int l = 0; l < 16; l++) lanes[l] = LIFT(x[l]);                                           \
            for (i = 16; i + 16 <= n; i += 16)                                                            \
                for (int l = 0; l < 16; l++) lanes[l] = OP(lanes[l], x[i + l]);                           \
            for (int l = 0; l < 16; l++) acc = COMBINE(acc, lanes[l]);                                    \
        }                                                                                                 \
        for (; i < n; i++) acc = OP(acc, x[i]);                                                           \
        return acc;                                                                                       \
    }                                                                                                     \
    static void name(char *out, const char *in, const int64_t *s, int64_t n0, int64_t n1, void *ctx)      \
    {                                                                                                     \
        (void)ctx;                                                                                        \
        if (s[0] == 0 && s[2] == (int64_t)sizeof(TO) && s[3] == (int64_t)sizeof(TI)) { /* row by row */   \
            TO *o = (TO *)out;                                                                            \
            for (int64_t i = 0; i < n0; i++) {                                                            \
                const TI *x = (const TI *)(in + i * s[1]);                                                \
                for (int64_t j = 0; j < n1; j++) o[j] = OP(o[j], x[j]);                                   \
            }                                                                                             \
            return;                                                                                       \
        }                                                                                                 \
        for (int64_t j = 0; j < n1; j++) {                                                                \
            char *o = out + j * s[2];                                                                     \
            const char *x = in + j * s[3];                                                                \
            if (s[0] == 0 && s[1] == (int64_t)sizeof(TI)) {                                               \
                *(TO *)o = name##_row(*(TO *)o, (const TI *)x, n0);                                       \
            } else if (s[0] == 0) {                                                                       \
                TO acc = *(TO *)o;                                                                        \
                for (int64_t i = 0; i < n0; i++) acc = OP(acc, *(const TI *)(x + i * s[1]));              \
                *(TO *)o = acc;                                                                           \
            } else {                                                                                      \
                for (int64_t i = 0; i < n0; i++) {                                                        \
                    TO *a = (TO *)(o + i * s[0]);                                                         \
                    *a = OP(*a, *(const TI *)(x + i * s[1]));                                             \
                }                                                                                         \
            }                                                                                             \
        }                                                                                                 \
    }

/* Whether an element is nonzero (NaN is, -0 is not). */
#define CT__NZ_INT(x) ((x) != 0)
#define CT__NZ_HALF(x) (((x) & 0x7fff) != 0)
#define CT__NZ_b8 CT__NZ_INT
#define CT__NZ_u8 CT__NZ_INT
#define CT__NZ_i8 CT__NZ_INT
#define CT__NZ_i16 CT__NZ_INT
#define CT__NZ_i32 CT__NZ_INT
#define CT__NZ_i64 CT__NZ_INT
#define CT__NZ_f16 CT__NZ_HALF
#define CT__NZ_bf16 CT__NZ_HALF
#define CT__NZ_f32 CT__NZ_INT
#define CT__NZ_f64 CT__NZ_INT
/* Order an element by: its value as float for float16 and bfloat16. */
#define CT__KEY_b8(x) (x)
#define CT__KEY_u8(x) (x)
#define CT__KEY_i8(x) (x)
#define CT__KEY_i16(x) (x)
#define CT__KEY_i32(x) (x)
#define CT__KEY_i64(x) (x)
#define CT__KEY_f16(x) ct__f16_to_float(x)
#define CT__KEY_bf16(x) ct__bf16_to_float(x)
#define CT__KEY_f32(x) (x)
#define CT__KEY_f64(x) (x)

#define CT__OP_ADD(a, x) ((int64_t)((uint64_t)(a) + (uint64_t)(int64_t)(x)))
#define CT__OP_MUL(a, x) ((int64_t)((uint64_t)(a) * (uint64_t)(int64_t)(x)))
#define CT__AS_I64(x) ((int64_t)(x))
#define CT__SAME(x) (x)
#define CT__AND(a, b) ((a) && (b))
#define CT__OR(a, b) ((a) || (b))
#define CT__ALL_LOOPS(name, DT, _)                                                                        \
    CT__FREE_LOOP(ct__rall_##name, ct__##name##_t, uint8_t, CT__OPALL_##name, CT__NZ_##name, CT__AND)     \
    CT__FREE_LOOP(ct__rany_##name, ct__##name##_t, uint8_t, CT__OPANY_##name, CT__NZ_##name, CT__OR)      \
    CT__FREE_LOOP(ct__rcount_##name, ct__##name##_t, int64_t, CT__OPCOUNT_##name, CT__NZ_##name, CT__OP_ADD) \
    CT__FREE_LOOP(ct__rmax_##name, ct__##name##_t, ct__##name##_t, CT__OPMAX_##name, CT__SAME, CT__OPMAX_##name) \
    CT__FREE_LOOP(ct__rmin_##name, ct__##name##_t, ct__##name##_t, CT__OPMIN_##name, CT__SAME, CT__OPMIN_##name)
/* max keeps a NaN once seen (x != x is false for the integer types) */
#define CT__OPS_FOR(name)                                                                                 \
    static inline uint8_t CT__OPALL_##name(uint8_t a, ct__##name##_t x) { return a && CT__NZ_##name(x); } \
    static inline uint8_t CT__OPANY_##name(uint8_t a, ct__##name##_t x) { return a || CT__NZ_##name(x); } \
    static inline int64_t CT__OPCOUNT_##name(int64_t a, ct__##name##_t x) { return a + CT__NZ_##name(x); } \
    static inline ct__##name##_t CT__OPMAX_##name(ct__##name##_t a, ct__##name##_t x)                     \
    {                                                                                                     \
        return (CT__KEY_##name(x) > CT__KEY_##name(a) || CT__KEY_##name(x) != CT__KEY_##name(x)) ? x : a; \
    }                                                                                                     \
    static inline ct__##name##_t CT__OPMIN_##name(ct__##name##_t a, ct__##name##_t x)                     \
    {                                                                                                     \
        return (CT__KEY_##name(x) < CT__KEY_##name(a) || CT__KEY_##name(x) != CT__KEY_##name(x)) ? x : a; \
    }
CT__OPS_FOR(b8)
CT__OPS_FOR(u8)
CT__OPS_FOR(i8)
CT__OPS_FOR(i16)
CT__OPS_FOR(i32)
CT__OPS_FOR(i64)
CT__OPS_FOR(f16)
CT__OPS_FOR(bf16)
CT__OPS_FOR(f32)
CT__OPS_FOR(f64)
CT__DTYPES_A(CT__ALL_LOOPS, _)
#define CT__INT_LOOPS(name)                                                                               \
    CT__FREE_LOOP(ct__rsum_##name, ct__##name##_t, int64_t, CT__OP_ADD, CT__AS_I64, CT__OP_ADD)           \
    CT__FREE_LOOP(ct__rprod_##name, ct__##name##_t, int64_t, CT__OP_MUL, CT__AS_I64, CT__OP_MUL)
CT__INT_LOOPS(b8)
CT__INT_LOOPS(u8)
CT__INT_LOOPS(i8)
CT__INT_LOOPS(i16)
CT__INT_LOOPS(i32)
CT__INT_LOOPS(i64)

/* The loop of an order-free op for input dtype dt. */
static ct__loop2d ct__free_loop(ct__rop op, ct_dtype dt)
{
#define CT__CASE_INT(name, DT)                                                                            \
    case DT: return op == CT__ROP_SUM ? ct__rsum_##name : ct__rprod_##name;
#define CT__CASE_ALL(name, DT, _)                                                                         \
    case DT:                                                                                              \
        return op == CT__ROP_ALL ? ct__rall_##name : op == CT__ROP_ANY ? ct__rany_##name                  \
             : op == CT__ROP_COUNT ? ct__rcount_##name : op == CT__ROP_MAX ? ct__rmax_##name : ct__rmin_##name;
    if (op == CT__ROP_SUM || op == CT__ROP_PROD) {
        switch (dt) {
            CT__CASE_INT(b8, CT_BOOL) CT__CASE_INT(u8, CT_U8) CT__CASE_INT(i8, CT_I8) CT__CASE_INT(i16, CT_I16)
            CT__CASE_INT(i32, CT_I32) default: return op == CT__ROP_SUM ? ct__rsum_i64 : ct__rprod_i64;
        }
    }
    switch (dt) {
        CT__DTYPES_A(CT__CASE_ALL, _)
    default: return NULL;
    }
#undef CT__CASE_INT
#undef CT__CASE_ALL
}

/* How partial results of an order-free op are combined: counts add up. */
static ct__loop2d ct__combine_loop(ct__rop op, ct_dtype out_dtype)
{
    return ct__free_loop(op == CT__ROP_COUNT ? CT__ROP_SUM : op, op == CT__ROP_COUNT ? CT_I64 : out_dtype);
}

typedef struct ct__split_job {
    const ct__rplan *p;
    ct__loop2d fn;
    uint64_t *slots; /* one partial output per chunk, starting as the identity */
    int64_t chunk;
} ct__split_job;

static void ct__split_run(int64_t b, int64_t e, void *ctx)
{
    const ct__split_job *j = (const ct__split_job *)ctx;
    int last = j->p->ndim - 1;
    for (int64_t c = b; c < e; c++) {
        ct__rplan sub = *j->p;
        int64_t start = c * j->chunk;
        sub.shape[last] = CT__MIN(j->chunk, j->p->shape[last] - start);
        sub.in += start * sub.is[last];
        sub.out = (char *)&j->slots[c];
        ct__rjob job;
        job.p = &sub;
        job.fn = j->fn;
        job.ctx = NULL;
        job.first_kept = sub.ndim;
        ct__rjob_outer(0, 1, &job);
    }
}

/* An order-free op into one output: chunks of the outermost dim reduce into
 * partial results in parallel, which are then combined. */
static void ct__run_free(const ct__rplan *p, ct__rop op, ct_dtype in_dtype, ct_dtype out_dtype)
{
    ct__loop2d fn = ct__free_loop(op, in_dtype);
    int last = p->ndim - 1;
    int64_t chunks = CT__MIN(p->shape[last], (p->numel + CT__GRAIN - 1) / CT__GRAIN);
    uint64_t *slots = p->nred == p->ndim && chunks > 1 ? (uint64_t *)CT_MALLOC((size_t)chunks * 8) : NULL;
    if (!slots) {
        ct__rplan_run(p, fn, NULL);
        return;
    }
    ct__split_job j;
    j.p = p;
    j.fn = fn;
    j.slots = slots;
    j.chunk = (p->shape[last] + chunks - 1) / chunks;
    chunks = (p->shape[last] + j.chunk - 1) / j.chunk;
    for (int64_t c = 0; c < chunks; c++) memcpy(&slots[c], p->out, ct_dtype_size(out_dtype));
    ct__parallel_for(chunks, 1, ct__split_run, &j);
    int64_t s[4] = {0, 8, 0, 0};
    ct__combine_loop(op, out_dtype)(p->out, (const char *)slots, s, chunks, 1, NULL);
    CT_FREE(slots);
}

/* ---------------------------------------------------------------- one output at a time */

/* binary_kernel_reduce: each output reduces its elements in the plan's
 * order (dim 0 fastest), one output per task. A row function consumes
 * elements into an accumulator; a finish function writes the output. */
typedef struct ct__each {
    const ct__rplan *p;
    void (*start)(void *acc, const void *ctx);
    void (*row)(void *acc, const char *x, int64_t stride, int64_t n, const void *ctx);
    void (*finish)(void *acc, char *out, int64_t offset, const void *ctx);
    const void *ctx;
} ct__each;

static void ct__each_run(int64_t b, int64_t e, void *ctx)
{
    const ct__each *w = (const ct__each *)ctx;
    const ct__rplan *p = w->p;
    int64_t rows = ct__rplan_count(p, 1, CT__MAX(1, p->nred));
    for (int64_t k = b; k < e; k++) {
        double acc[8]; /* room for any accumulator */
        int64_t oo, io;
        ct__rplan_offsets(p, p->nred, p->ndim, k, &oo, &io);
        w->start(acc, w->ctx);
        if (p->nred == 0) { /* nothing to reduce: one element each */
            w->row(acc, p->in + io, 0, 1, w->ctx);
        } else {
            for (int64_t r = 0; r < rows; r++) {
                int64_t ro, ri;
                ct__rplan_offsets(p, 1, p->nred, r, &ro, &ri);
                w->row(acc, p->in + io + ri, p->is[0], p->shape[0], w->ctx);
            }
        }
        w->finish(acc, p->out + oo, oo, w->ctx);
    }
}

static void ct__run_each(ct__each *w)
{
    const ct__rplan *p = w->p;
    int64_t outputs = ct__rplan_count(p, p->nred, p->ndim), per = ct__rplan_count(p, 0, p->nred);
    if (p->numel == 0) return;
    ct__parallel_for(outputs, CT__MAX(1, CT__GRAIN / per), ct__each_run, w);
}

/* Welford's update in double, the m2 update fused as GCC compiles PyTorch's. */
typedef struct ct__welford {
    double mean, m2;
    int64_t n;
} ct__welford;

typedef struct ct__var_ctx {
    ct_dtype dt;
    const ct__rargs *args;
    char *mean;
} ct__var_ctx;

static void ct__welford_start(void *acc, const void *ctx)
{
    (void)ctx;
    memset(acc, 0, sizeof(ct__welford));
}

static void ct__welford_row(void *acc, const char *x, int64_t stride, int64_t n, const void *ctx)
{
    ct__welford *w = (ct__welford *)acc;
    ct_dtype dt = ((const ct__var_ctx *)ctx)->dt;
    for (int64_t i = 0; i < n; i++) {
        double v = ct__read_f64(x + i * stride, dt), delta = v - w->mean;
        w->n++;
        w->mean += delta / (double)w->n;
        w->m2 = fma(delta, v - w->mean, w->m2);
    }
}

static void ct__welford_finish(void *acc, char *out, int64_t offset, const void *ctx)
{
    const ct__welford *w = (const ct__welford *)acc;
    const ct__var_ctx *c = (const ct__var_ctx *)ctx;
    double nf = (double)w->n, corr = (double)c->args->correction;
    double var = w->m2 / (nf > corr ? nf - corr : 0.0);
    ct__write_f64(out, c->dt, c->args->take_sqrt ? sqrt(var) : var);
    if (c->mean) ct__write_f64(c->mean + offset, c->dt, w->mean);
}

/* Norms, accumulated in the input's dtype (float16 and bfloat16 round after
 * every operation, as their c10 arithmetic does). */
typedef struct ct__norm_ctx {
    ct_dtype dt;
    double p; /* as PyTorch keeps it: a float */
} ct__norm_ctx;

/* A double rounded to the norm's dtype, as its C++ type holds it. */
static inline double ct__norm_round(double v, ct_dtype dt)
{
    switch (dt) {
    case CT_F16: return ct__rh((float)v);
    case CT_BF16: return ct__rb((float)v);
    case CT_F32: return (float)v;
    default: return v;
    }
}

/* acc + t in the norm's arithmetic: float for float32, float then rounded
 * for float16 and bfloat16 (c10's operator+), double for float64. */
static inline double ct__norm_add(double acc, double t, ct_dtype dt)
{
    if (dt == CT_F64) return acc + t;
    return ct__norm_round((float)acc + (float)t, dt);
}

static void ct__norm_start(void *acc, const void *ctx)
{
    *(double *)acc = ((const ct__norm_ctx *)ctx)->p == -INFINITY ? INFINITY : 0.0;
}

static inline double ct__max_nan(double a, double b) { return a != a ? a : a > b ? a : b; }
static inline double ct__min_nan(double a, double b) { return a != a ? a : a < b ? a : b; }

/* x*x added to acc as PyTorch's compiled code does it: fused in float and
 * double, the square rounded first in float16 and bfloat16. */
static inline double ct__norm_sq(double acc, double x, ct_dtype dt)
{
    if (dt == CT_F32) return fmaf((float)x, (float)x, (float)acc);
    if (dt == CT_F64) return fma(x, x, acc);
    return ct__norm_add(acc, ct__norm_round((float)x * (float)x, dt), dt);
}

static void ct__norm_row(void *acc, const char *x, int64_t stride, int64_t n, const void *ctx)
{
    const ct__norm_ctx *c = (const ct__norm_ctx *)ctx;
    double a = *(double *)acc, p = c->p, pt = ct__norm_round(p, c->dt);
    ct_dtype dt = c->dt;
    for (int64_t i = 0; i < n; i++) {
        double v = ct__read_f64(x + i * stride, dt), av = fabs(v);
        if (p == 0) a = ct__norm_add(a, v != 0, dt);
        else if (p == 1) a = ct__norm_add(a, av, dt);
        else if (p == 2) a = ct__norm_sq(a, v, dt);
        else if (p == INFINITY) a = ct__max_nan(a, av);
        else if (p == -INFINITY) a = ct__min_nan(a, av);
        else if (dt == CT_F64) a = a + pow(av, p);
        else a = ct__norm_add(a, dt == CT_BF16 ? ct__rb(powf((float)av, (float)pt)) : powf((float)av, (float)pt), dt);
    }
    *(double *)acc = a;
}

/* The fused 8-lane loop of the vectorised p = 2 path over n floats (a
 * multiple of 8). fmaf is exact however it is computed; x86 machines with
 * AVX2 and FMA (PyTorch's own kernel needs them) run a copy compiled for
 * them, whose fmaf is one instruction instead of a call into libm. */
#define CT__NORM_LANES(name, ATTR)                                                                        \
    static ATTR void name(const float *x, int64_t n, float *lanes)                                        \
    {                                                                                                     \
        float acc[8];                                                                                     \
        memcpy(acc, lanes, sizeof acc);                                                                   \
        for (int64_t d = 0; d < n; d += 8)                                                                \
            for (int l = 0; l < 8; l++) acc[l] = fmaf(x[d + l], x[d + l], acc[l]);                        \
        memcpy(lanes, acc, sizeof acc);                                                                   \
    }
CT__NORM_LANES(ct__norm_lanes_any, )
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(__FMA__)
CT__NORM_LANES(ct__norm_lanes_fma, __attribute__((target("avx2,fma"))))
static void ct__norm_lanes(const float *x, int64_t n, float *lanes)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ct__norm_lanes_fma(x, n, lanes);
    else ct__norm_lanes_any(x, n, lanes);
}
#else
#define ct__norm_lanes ct__norm_lanes_any
#endif

/* The vectorised p = 2 path of a contiguous row: 8 (bfloat16: 16) lanes
 * with fused updates, folded in order, then the tail, which GCC unrolls by
 * four with the squares rounded before adding, the last few fused. */
static void ct__norm_fast_row(void *acc, const char *x, int64_t stride, int64_t n, const void *ctx)
{
    bool bf = ((const ct__norm_ctx *)ctx)->dt == CT_BF16;
    int64_t vw = bf ? 16 : 8, d = n - n % vw;
    float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0}, b;
    (void)stride;
    if (!bf) ct__norm_lanes((const float *)x, d, lanes);
    for (int64_t e = 0; bf && e < d; e += vw)
        for (int l = 0; l < 8; l++) {
            float v = ct__b2f(x + 2 * (e + l)), w = ct__b2f(x + 2 * (e + 8 + l));
            lanes[l] = fmaf(w, w, fmaf(v, v, lanes[l]));
        }
    b = lanes[0];
    for (int l = 1; l < 8; l++) b += lanes[l];
    for (int64_t i = 0, rest = n - d, body = rest / 4 * 4; i < rest; i++, d++) {
        float v = bf ? ct__b2f(x + 2 * d) : ((const float *)x)[d];
        if (i < body) {
            float sq = v * v;
            b += sq;
        } else {
            b = fmaf(v, v, b);
        }
    }
    *(double *)acc = b;
}

static void ct__norm_finish(void *acc, char *out, int64_t offset, const void *ctx)
{
    const ct__norm_ctx *c = (const ct__norm_ctx *)ctx;
    double a = *(double *)acc, p = c->p;
    (void)offset;
    if (p == 2) {
        a = c->dt == CT_F64 ? sqrt(a) : sqrtf((float)a);
    } else if (p != 0 && p != 1 && p != INFINITY && p != -INFINITY) {
        float inv = (float)(1.0f / (float)ct__norm_round(p, c->dt));
        a = c->dt == CT_F64 ? pow(a, 1.0 / p) : powf((float)a, (float)ct__norm_round(inv, c->dt));
    }
    ct__write_f64(out, c->dt, a);
}

/* ---------------------------------------------------------------- sum of squared deviations */

/* The second pass of std_var_all_cpu: in double, unfused, in memory order;
 * each 2-D block sums on its own before it is added to the total. */
typedef struct ct__sqdev_ctx {
    ct_dtype dt;
    double center, sum;
} ct__sqdev_ctx;

static void ct__sqdev_loop(char *out, const char *in, const int64_t *s, int64_t n0, int64_t n1, void *ctx)
{
    ct__sqdev_ctx *c = (ct__sqdev_ctx *)ctx;
    double block = 0;
    (void)out;
    for (int64_t j = 0; j < n1; j++)
        for (int64_t i = 0; i < n0; i++) {
            double v = ct__read_f64(in + i * s[1] + j * s[3], c->dt) - c->center, sq = v * v;
            block += sq;
        }
    c->sum += block;
}

/* ---------------------------------------------------------------- the reduce entry point */

static void ct__reduce_sqdev(const ct__rplan *p, ct_dtype dt, const ct__rargs *args)
{
    ct__sqdev_ctx c;
    ct__rjob job;
    c.dt = dt;
    c.center = args->center;
    c.sum = 0;
    job.p = p;
    job.fn = ct__sqdev_loop;
    job.ctx = &c;
    job.first_kept = p->ndim; /* one serial pass, as PyTorch's on one thread */
    if (p->numel) ct__rjob_outer(0, 1, &job);
    *args->result = c.sum;
}

static void ct__reduce_var(const ct__rplan *p, ct_dtype dt, const ct__rargs *args)
{
    ct__var_ctx c;
    ct__each w;
    c.dt = dt;
    c.args = args;
    c.mean = args->mean ? ct__data(args->mean) : NULL;
    w.p = p;
    w.start = ct__welford_start;
    w.row = ct__welford_row;
    w.finish = ct__welford_finish;
    w.ctx = &c;
    ct__run_each(&w);
}

static void ct__reduce_norm(const ct__rplan *p, ct_dtype dt, const ct__rargs *args)
{
    ct__norm_ctx c;
    ct__each w;
    /* p = 2 over a contiguous last dim takes PyTorch's vectorised path */
    bool fast = args->p == 2 && (dt == CT_F32 || dt == CT_BF16) && p->nred == 1 &&
                p->is[0] == (int64_t)ct_dtype_size(dt);
    c.dt = dt;
    c.p = args->p;
    w.p = p;
    w.start = ct__norm_start;
    w.row = fast ? ct__norm_fast_row : ct__norm_row;
    w.finish = ct__norm_finish;
    w.ctx = &c;
    ct__run_each(&w);
}

static void ct__cpu_reduce(ct__rop op, ct_tensor *out, const ct_tensor *in, uint32_t mask, const ct__rargs *args)
{
    ct__rplan p;
    ct_dtype dt = in->dtype;
    ct__rplan_init(&p, op == CT__ROP_SQDEV ? NULL : out, in, mask);
    if (op == CT__ROP_SQDEV) ct__reduce_sqdev(&p, dt, args);
    else if (op == CT__ROP_VAR) ct__reduce_var(&p, dt, args);
    else if (op == CT__ROP_NORM) ct__reduce_norm(&p, dt, args);
    else if ((op == CT__ROP_SUM || op == CT__ROP_NANSUM) && ct_dtype_is_floating(dt))
        ct__rplan_run(&p, ct__cascade_loop(dt, op == CT__ROP_NANSUM), NULL);
    else if (op == CT__ROP_PROD && (dt == CT_F32 || dt == CT_F64))
        ct__rplan_run(&p, dt == CT_F32 ? ct__prod_float : ct__prod_double, NULL);
    else
        ct__run_free(&p, op, dt, out->dtype);
}

/* ---------------------------------------------------------------- along one dim: the driver */

/* One row: n elements of in along the dim, and where its values and indices
 * go; scratch has room for the op's work arrays. */
typedef struct ct__row {
    const char *in;
    char *val, *idx;
    int64_t is, vs, xs, n;
    void *scratch;
} ct__row;

typedef void (*ct__row_fn)(const ct__row *r, ct__aop op, bool last);
/* the same for nc adjacent rows, elements one element apart (softmax's columns) */
typedef void (*ct__cols_fn)(const ct__row *r, int64_t nc, bool logsm);

typedef struct ct__along_job {
    ct__iter it;
    int ival, iidx, iin;
    int64_t is, vs, xs, n, es;
    size_t scratch;
    ct__row_fn fn;
    ct__cols_fn cols; /* or NULL */
    ct__aop op;
    bool last;
    int failed;
} ct__along_job;

typedef struct ct__along_range {
    ct__along_job *job;
    void *scratch;
} ct__along_range;

static void ct__along_rows(char **data, const int64_t *strides, int64_t m, void *ctx)
{
    const ct__along_range *rg = (const ct__along_range *)ctx;
    const ct__along_job *j = rg->job;
    ct__row r;
    bool adjacent = j->cols && strides[j->iin] == j->es && strides[j->ival] == j->es;
    r.is = j->is, r.vs = j->vs, r.xs = j->xs, r.n = j->n, r.scratch = rg->scratch;
    for (int64_t k = 0, nc = 1; k < m; k += nc) {
        r.in = data[j->iin] + k * strides[j->iin];
        r.val = j->ival < 0 ? NULL : data[j->ival] + k * strides[j->ival];
        r.idx = j->iidx < 0 ? NULL : data[j->iidx] + k * strides[j->iidx];
        nc = adjacent ? CT__MIN(64, m - k) : 1;
        if (adjacent) j->cols(&r, nc, j->op == CT__AOP_LOG_SOFTMAX);
        else j->fn(&r, j->op, j->last);
    }
}

static void ct__along_part(int64_t b, int64_t e, void *ctx)
{
    ct__along_range rg;
    rg.job = (ct__along_job *)ctx;
    rg.scratch = rg.job->scratch ? CT_MALLOC(rg.job->scratch) : NULL;
    if (rg.job->scratch && !rg.scratch) {
        CT__ATOMIC_INC(&rg.job->failed);
        return;
    }
    ct__iter_range(&rg.job->it, b, e, ct__along_rows, &rg);
    CT_FREE(rg.scratch);
}

/* Every row along dim: the operands are iterated with that dim squashed to
 * size 1 (TensorIterator's declare_static_shape), rows in parallel. */
static ct_result ct__along_run(ct__along_job *job, ct_tensor *values, ct_tensor *indices, const ct_tensor *in,
                               int dim)
{
    ct_tensor sq[3];
    const ct_tensor *ops[3];
    int n = 0;
    job->ival = job->iidx = -1;
    if (values) job->ival = n, sq[n++] = *values;
    if (indices) job->iidx = n, sq[n++] = *indices;
    job->iin = n, sq[n++] = *in;
    for (int k = 0; k < n; k++) {
        if (in->ndim) sq[k].sizes[dim] = 1;
        ops[k] = &sq[k];
    }
    job->n = in->ndim ? in->sizes[dim] : 1;
    job->es = (int64_t)ct__esize(in);
    job->is = in->ndim ? in->strides[dim] * (int64_t)ct__esize(in) : 0;
    job->vs = values && in->ndim ? values->strides[dim] * (int64_t)ct__esize(values) : 0;
    job->xs = indices && in->ndim ? indices->strides[dim] * 8 : 0;
    job->failed = 0;
    ct__iter_init(&job->it, n, ops);
    if (ct_numel(in) == 0) return CT_OK;
    ct__parallel_for(job->it.numel, CT__MAX(1, CT__GRAIN / CT__MAX(1, job->n)), ct__along_part, job);
    return job->failed ? CT__OOM() : CT_OK;
}

/* ---------------------------------------------------------------- selection and PyTorch's std::sort */

/* For each key type: an (element, index) pair, the lower median by
 * (value, index) order, and libstdc++'s introsort by value alone, step for
 * step, so that equal values end up where PyTorch's std::sort leaves them
 * (mode reports the index of the last one). The scans are bounded, which
 * only matters if NaN breaks the ordering PyTorch assumes. */
#define CT__KEYED(kn, V)                                                                                  \
    typedef struct ct__kv_##kn {                                                                          \
        V v;                                                                                              \
        int64_t i;                                                                                        \
    } ct__kv_##kn;                                                                                        \
    static inline bool ct__kvlt_##kn(const ct__kv_##kn *x, const ct__kv_##kn *y)                          \
    {                                                                                                     \
        return x->v < y->v || (x->v == y->v && x->i < y->i);                                              \
    }                                                                                                     \
    static inline void ct__kvswap_##kn(ct__kv_##kn *a, int64_t i, int64_t j)                              \
    {                                                                                                     \
        ct__kv_##kn t = a[i];                                                                             \
        a[i] = a[j];                                                                                      \
        a[j] = t;                                                                                         \
    }                                                                                                     \
    /* the k-th of n by (value, index), quickselect with a median of three */                            \
    static ct__kv_##kn ct__select_##kn(ct__kv_##kn *a, int64_t n, int64_t k)                              \
    {                                                                                                     \
        int64_t lo = 0, hi = n - 1;                                                                       \
        while (hi - lo > 1) {                                                                             \
            int64_t mid = lo + (hi - lo) / 2, i = lo, j = hi;                                             \
            if (ct__kvlt_##kn(&a[mid], &a[lo])) ct__kvswap_##kn(a, lo, mid);                              \
            if (ct__kvlt_##kn(&a[hi], &a[lo])) ct__kvswap_##kn(a, lo, hi);                                \
            if (ct__kvlt_##kn(&a[hi], &a[mid])) ct__kvswap_##kn(a, mid, hi);                              \
            ct__kv_##kn pv = a[mid];                                                                      \
            while (i <= j) {                                                                              \
                while (ct__kvlt_##kn(&a[i], &pv)) i++;                                                    \
                while (ct__kvlt_##kn(&pv, &a[j])) j--;                                                    \
                if (i <= j) ct__kvswap_##kn(a, i++, j--);                                                 \
            }                                                                                             \
            if (k <= j) hi = j;                                                                           \
            else if (k >= i) lo = i;                                                                      \
            else return a[k];                                                                             \
        }                                                                                                 \
        if (hi > lo && ct__kvlt_##kn(&a[hi], &a[lo])) ct__kvswap_##kn(a, lo, hi);                         \
        return a[k];                                                                                      \
    }                                                                                                     \
    static void ct__heap_adjust_##kn(ct__kv_##kn *a, int64_t hole, int64_t len, ct__kv_##kn value)        \
    {                                                                                                     \
        int64_t top = hole, child = hole, parent;                                                         \
        while (child < (len - 1) / 2) {                                                                   \
            child = 2 * (child + 1);                                                                      \
            if (a[child].v < a[child - 1].v) child--;                                                     \
            a[hole] = a[child];                                                                           \
            hole = child;                                                                                 \
        }                                                                                                 \
        if ((len & 1) == 0 && child == (len - 2) / 2) {                                                   \
            child = 2 * (child + 1);                                                                      \
            a[hole] = a[child - 1];                                                                       \
            hole = child - 1;                                                                             \
        }                                                                                                 \
        for (parent = (hole - 1) / 2; hole > top && a[parent].v < value.v; parent = (hole - 1) / 2) {      \
            a[hole] = a[parent];                                                                          \
            hole = parent;                                                                                \
        }                                                                                                 \
        a[hole] = value;                                                                                  \
    }                                                                                                     \
    static void ct__heapsort_##kn(ct__kv_##kn *a, int64_t n)                                              \
    {                                                                                                     \
        for (int64_t parent = (n - 2) / 2; n >= 2; parent--) {                                            \
            ct__heap_adjust_##kn(a, parent, n, a[parent]);                                                \
            if (parent == 0) break;                                                                       \
        }                                                                                                 \
        for (int64_t last = n - 1; last > 0; last--) {                                                    \
            ct__kv_##kn v = a[last];                                                                      \
            a[last] = a[0];                                                                               \
            ct__heap_adjust_##kn(a, 0, last, v);                                                          \
        }                                                                                                 \
    }                                                                                                     \
    static void ct__median_first_##kn(ct__kv_##kn *a, int64_t r, int64_t x, int64_t y, int64_t z)         \
    {                                                                                                     \
        if (a[x].v < a[y].v) {                                                                            \
            if (a[y].v < a[z].v) ct__kvswap_##kn(a, r, y);                                                \
            else if (a[x].v < a[z].v) ct__kvswap_##kn(a, r, z);                                           \
            else ct__kvswap_##kn(a, r, x);                                                                \
        } else if (a[x].v < a[z].v) {                                                                     \
            ct__kvswap_##kn(a, r, x);                                                                     \
        } else if (a[y].v < a[z].v) {                                                                     \
            ct__kvswap_##kn(a, r, z);                                                                     \
        } else {                                                                                          \
            ct__kvswap_##kn(a, r, y);                                                                     \
        }                                                                                                 \
    }                                                                                                     \
    static void ct__introsort_##kn(ct__kv_##kn *a, int64_t lo, int64_t hi, int depth)                     \
    {                                                                                                     \
        while (hi - lo > 16) {                                                                            \
            if (depth-- == 0) {                                                                           \
                ct__heapsort_##kn(a + lo, hi - lo);                                                       \
                return;                                                                                   \
            }                                                                                             \
            int64_t f = lo + 1, l = hi;                                                                   \
            ct__median_first_##kn(a, lo, lo + 1, lo + (hi - lo) / 2, hi - 1);                             \
            for (;;) {                                                                                    \
                while (f < hi && a[f].v < a[lo].v) f++;                                                   \
                for (l--; l > lo && a[lo].v < a[l].v;) l--;                                               \
                if (f >= l) break;                                                                        \
                ct__kvswap_##kn(a, f++, l);                                                               \
            }                                                                                             \
            ct__introsort_##kn(a, f, hi, depth);                                                          \
            hi = f;                                                                                       \
        }                                                                                                 \
    }                                                                                                     \
    static void ct__insert_##kn(ct__kv_##kn *a, int64_t i)                                                \
    {                                                                                                     \
        ct__kv_##kn v = a[i];                                                                             \
        for (; i > 0 && v.v < a[i - 1].v; i--) a[i] = a[i - 1];                                           \
        a[i] = v;                                                                                         \
    }                                                                                                     \
    static void ct__stdsort_##kn(ct__kv_##kn *a, int64_t n)                                               \
    {                                                                                                     \
        int lg = 0;                                                                                       \
        while (((int64_t)2 << lg) <= n) lg++;                                                             \
        ct__introsort_##kn(a, 0, n, 2 * lg);                                                              \
        for (int64_t i = 1; i < n; i++) { /* __final_insertion_sort */                                   \
            if (i < 16 && a[i].v < a[0].v) {                                                              \
                ct__kv_##kn v = a[i];                                                                     \
                memmove(a + 1, a, (size_t)i * sizeof *a);                                                 \
                a[0] = v;                                                                                 \
            } else {                                                                                      \
                ct__insert_##kn(a, i);                                                                    \
            }                                                                                             \
        }                                                                                                 \
    }
CT__KEYED(i64, int64_t)
CT__KEYED(f32, float)
CT__KEYED(f64, double)

/* ---------------------------------------------------------------- along one dim: the row kernels */

/* Extremes (max.dim, argmax): the first largest, or the first NaN. */
#define CT__ROW_EXTREME(name, T, V, LOAD)                                                                 \
    static void ct__ext_##name(const ct__row *r, bool max)                                                \
    {                                                                                                     \
        V best = LOAD(r->in);                                                                             \
        int64_t at = 0;                                                                                   \
        for (int64_t i = 1; i < r->n && best == best; i++) {                                              \
            V v = LOAD(r->in + i * r->is);                                                                \
            if (max ? !(v <= best) : !(v >= best)) best = v, at = i;                                      \
        }                                                                                                 \
        if (r->val) memcpy(r->val, r->in + at * r->is, sizeof(T));                                        \
        if (r->idx) *(int64_t *)r->idx = at;                                                              \
    }

/* median.dim: the first NaN, else the lower median by (value, index). */
#define CT__ROW_MEDIAN(name, T, V, LOAD, kn)                                                              \
    static void ct__median_##name(const ct__row *r)                                                       \
    {                                                                                                     \
        ct__kv_##kn *a = (ct__kv_##kn *)r->scratch, m;                                                    \
        for (int64_t i = 0; i < r->n; i++) {                                                              \
            a[i].v = LOAD(r->in + i * r->is);                                                             \
            a[i].i = i;                                                                                   \
            if (a[i].v != a[i].v) {                                                                       \
                memcpy(r->val, r->in + i * r->is, sizeof(T));                                             \
                *(int64_t *)r->idx = i;                                                                   \
                return;                                                                                   \
            }                                                                                             \
        }                                                                                                 \
        m = ct__select_##kn(a, r->n, (r->n - 1) / 2);                                                     \
        memcpy(r->val, r->in + m.i * r->is, sizeof(T));                                                   \
        *(int64_t *)r->idx = m.i;                                                                         \
    }

/* mode: sorted as PyTorch's std::sort does, the first longest run wins and
 * reports the index at its end. */
#define CT__ROW_MODE(name, T, V, LOAD, kn)                                                                \
    static void ct__mode_##name(const ct__row *r)                                                         \
    {                                                                                                     \
        ct__kv_##kn *a = (ct__kv_##kn *)r->scratch;                                                       \
        int64_t best = 0, at = 0, run = 0;                                                                \
        for (int64_t i = 0; i < r->n; i++) a[i].v = LOAD(r->in + i * r->is), a[i].i = i;                  \
        ct__stdsort_##kn(a, r->n);                                                                        \
        for (int64_t i = 0; i < r->n; i++) {                                                              \
            run++;                                                                                        \
            if (i == r->n - 1 || a[i].v != a[i + 1].v) {                                                  \
                if (run > best) best = run, at = a[i].i;                                                  \
                run = 0;                                                                                  \
            }                                                                                             \
        }                                                                                                 \
        memcpy(r->val, r->in + at * r->is, sizeof(T));                                                    \
        *(int64_t *)r->idx = at;                                                                          \
    }

/* cummax / cummin: a NaN takes over, ties move the index on. */
#define CT__ROW_CUMEXT(name, T, V, LOAD)                                                                  \
    static void ct__cumext_##name(const ct__row *r, bool max)                                             \
    {                                                                                                     \
        V best = LOAD(r->in);                                                                             \
        int64_t at = 0;                                                                                   \
        for (int64_t i = 0; i < r->n; i++) {                                                              \
            V v = LOAD(r->in + i * r->is);                                                                \
            if (v != v || (best == best && (max ? v >= best : v <= best))) best = v, at = i;              \
            memcpy(r->val + i * r->vs, r->in + at * r->is, sizeof(T));                                    \
            *(int64_t *)(r->idx + i * r->xs) = at;                                                        \
        }                                                                                                 \
    }

/* cumsum / cumprod in PyTorch's CPU accumulate type A. */
#define CT__ROW_CUM(name, T, A, LOAD, STORE)                                                              \
    static void ct__cum_##name(const ct__row *r, bool prod)                                               \
    {                                                                                                     \
        A acc = prod ? 1 : 0;                                                                             \
        for (int64_t i = 0; i < r->n; i++) {                                                              \
            A v = (A)LOAD(r->in + i * r->is);                                                             \
            acc = prod ? acc * v : acc + v;                                                               \
            STORE(r->val + i * r->vs, acc);                                                               \
        }                                                                                                 \
    }

#define CT__LOADI(T) (int64_t) * (const T *)
#define CT__LOAD_b8(p) (CT__LOADI(uint8_t)(p))
#define CT__LOAD_u8(p) (CT__LOADI(uint8_t)(p))
#define CT__LOAD_i8(p) (CT__LOADI(int8_t)(p))
#define CT__LOAD_i16(p) (CT__LOADI(int16_t)(p))
#define CT__LOAD_i32(p) (CT__LOADI(int32_t)(p))
#define CT__LOAD_i64(p) (CT__LOADI(int64_t)(p))
#define CT__LOAD_f16(p) ct__h2f(p)
#define CT__LOAD_bf16(p) ct__b2f(p)
#define CT__LOAD_f32(p) (*(const float *)(p))
#define CT__LOAD_f64(p) (*(const double *)(p))
/* integers wrap to the low bits; floats round */
#define CT__STOREI(T, p, v) (*(T *)(p) = (T)(v))
#define CT__STORE_b8(p, v) (*(uint8_t *)(p) = (v) != 0)
#define CT__STORE_u8(p, v) CT__STOREI(uint8_t, p, v)
#define CT__STORE_i8(p, v) CT__STOREI(int8_t, p, (uint8_t)(v))
#define CT__STORE_i16(p, v) CT__STOREI(int16_t, p, (uint16_t)(v))
#define CT__STORE_i32(p, v) CT__STOREI(int32_t, p, (uint32_t)(v))
#define CT__STORE_i64(p, v) CT__STOREI(int64_t, p, v)
#define CT__STORE_f16(p, v) ct__f2h(p, (float)(v))
#define CT__STORE_bf16(p, v) ct__f2b(p, (float)(v))
#define CT__STORE_f32(p, v) (*(float *)(p) = (float)(v))
#define CT__STORE_f64(p, v) (*(double *)(p) = (v))

/* The ops every dtype has. name, storage type, key type and its pair type,
 * accumulate type of cumsum (integers in uint64_t, which wraps). */
#define CT__ROWS_ALL(name, T, V, kn, A)                                                                   \
    CT__ROW_EXTREME(name, T, V, CT__LOAD_##name)                                                          \
    CT__ROW_MEDIAN(name, T, V, CT__LOAD_##name, kn)                                                       \
    CT__ROW_MODE(name, T, V, CT__LOAD_##name, kn)                                                         \
    CT__ROW_CUMEXT(name, T, V, CT__LOAD_##name)                                                           \
    CT__ROW_CUM(name, T, A, CT__LOAD_##name, CT__STORE_##name)                                            \
    static void ct__row_##name(const ct__row *r, ct__aop op, bool last)                                   \
    {                                                                                                     \
        (void)last;                                                                                       \
        switch (op) {                                                                                     \
        case CT__AOP_MAX: case CT__AOP_ARGMAX: ct__ext_##name(r, true); break;                            \
        case CT__AOP_MIN: case CT__AOP_ARGMIN: ct__ext_##name(r, false); break;                           \
        case CT__AOP_MEDIAN: ct__median_##name(r); break;                                                 \
        case CT__AOP_MODE: ct__mode_##name(r); break;                                                     \
        case CT__AOP_CUMMAX: case CT__AOP_CUMMIN: ct__cumext_##name(r, op == CT__AOP_CUMMAX); break;      \
        case CT__AOP_CUMSUM: case CT__AOP_CUMPROD: ct__cum_##name(r, op == CT__AOP_CUMPROD); break;       \
        default: ct__row_float_##name(r, op, last); break;                                                \
        }                                                                                                 \
    }

/* logcumsumexp in A: std::min and std::max keep their first argument when
 * the other is NaN, so a NaN sum sticks. */
#define CT__ROW_LOGCUMSUMEXP(name, A, LOG1P, EXP, LOAD, STORE)                                           \
    static void ct__lcse_##name(const ct__row *r)                                                         \
    {                                                                                                     \
        A cum = -(A)INFINITY;                                                                             \
        for (int64_t i = 0; i < r->n; i++) {                                                              \
            A x = (A)LOAD(r->in + i * r->is);                                                             \
            A lo = cum != cum ? cum : cum < x ? cum : x, hi = cum != cum ? cum : x < cum ? cum : x;       \
            cum = (lo != hi || isfinite(lo)) ? LOG1P(EXP(lo - hi)) + hi : x;                              \
            STORE(r->val + i * r->vs, cum);                                                               \
        }                                                                                                 \
    }

/* softmax and log_softmax in A: the maximum (NaN wins), exp(x - max), their
 * sum, then either exp * (1 / sum) (the last dim, summed in PyTorch's
 * 32-byte vector lanes, folded as its vec_reduce_all folds them) or
 * exp / sum (other dims, summed in order); log_softmax is x - max - log(sum).
 * RND is what PyTorch's bfloat16 kernel rounds the last dim's sum and log to. */
#define CT__ROW_SOFTMAX(name, A, EXP, LOG, LOAD, STORE, RND)                                              \
    static void ct__softmax_##name(const ct__row *r, bool logsm, bool last)                              \
    {                                                                                                     \
        enum { VW = 32 / sizeof(A) };                                                                     \
        A *e = (A *)r->scratch, m = (A)LOAD(r->in), sum = 0, lanes[VW];                                   \
        int64_t n = r->n, d = VW;                                                                         \
        for (int64_t i = 1; i < n; i++) {                                                                 \
            A v = (A)LOAD(r->in + i * r->is);                                                             \
            if (v != v || v > m) m = v;                                                                   \
        }                                                                                                 \
        for (int64_t i = 0; i < n; i++) e[i] = EXP((A)LOAD(r->in + i * r->is) - m);                       \
        if (last && n >= VW) {                                                                            \
            memcpy(lanes, e, sizeof lanes);                                                               \
            for (; d + VW <= n; d += VW)                                                                  \
                for (int l = 0; l < VW; l++) lanes[l] += e[d + l];                                        \
            for (int l = 0; d + l < n; l++) lanes[l] += e[d + l];                                         \
            sum = ct__fold_##name(lanes);                                                                 \
        } else {                                                                                          \
            for (int64_t i = 0; i < n; i++) sum += e[i];                                                  \
        }                                                                                                 \
        if (logsm && last) sum = RND(sum);                                                                \
        A inv = 1 / sum, lsum = logsm && last ? RND(LOG(sum)) : LOG(sum);                                 \
        for (int64_t i = 0; i < n; i++) {                                                                 \
            A v = logsm ? (A)LOAD(r->in + i * r->is) - m - lsum : last ? e[i] * inv : e[i] / sum;          \
            STORE(r->val + i * r->vs, v);                                                                 \
        }                                                                                                 \
    }

/* vec_reduce_all's fold of the lanes: AVX2's shuffle tree for float, in
 * order for double. */
static inline float ct__fold_tree(const float *l)
{
    return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}
static inline float ct__fold_f32(const float *l) { return ct__fold_tree(l); }
static inline float ct__fold_bf16(const float *l) { return ct__fold_tree(l); }
static inline double ct__fold_f64(const double *l) { return ((l[0] + l[1]) + l[2]) + l[3]; }
#define CT__KEEP(v) (v)

/* softmax over a dim that is not the last, for nc adjacent rows (columns
 * one element apart): each column in the order of the row kernel above,
 * the block read in memory order. exp(x - max) waits in the output when
 * its type is A (KEEP 1), else it is computed again. */
#define CT__COLS_SOFTMAX(name, T, A, EXP, LOG, LOAD, STORE, KEEP)                                         \
    static void ct__softmax_cols_##name(const ct__row *r, int64_t nc, bool logsm)                        \
    {                                                                                                     \
        A m[64], sum[64], lsum[64];                                                                       \
        for (int64_t j = 0; j < nc; j++) m[j] = (A)LOAD(r->in + j * sizeof(T)), sum[j] = 0;               \
        for (int64_t i = 1; i < r->n; i++)                                                                \
            for (int64_t j = 0; j < nc; j++) {                                                            \
                A v = (A)LOAD(r->in + i * r->is + j * sizeof(T));                                         \
                if (v != v || v > m[j]) m[j] = v;                                                         \
            }                                                                                             \
        for (int64_t i = 0; i < r->n; i++)                                                                \
            for (int64_t j = 0; j < nc; j++) {                                                            \
                A e = EXP((A)LOAD(r->in + i * r->is + j * sizeof(T)) - m[j]);                             \
                if (KEEP && !logsm) *(A *)(r->val + i * r->vs + j * sizeof(T)) = e;                       \
                sum[j] += e;                                                                              \
            }                                                                                             \
        for (int64_t j = 0; j < nc; j++) lsum[j] = LOG(sum[j]);                                           \
        for (int64_t i = 0; i < r->n; i++)                                                                \
            for (int64_t j = 0; j < nc; j++) {                                                            \
                char *o = r->val + i * r->vs + j * sizeof(T);                                             \
                A x = (A)LOAD(r->in + i * r->is + j * sizeof(T));                                         \
                STORE(o, logsm ? x - m[j] - lsum[j] : (KEEP ? *(A *)o : EXP(x - m[j])) / sum[j]);          \
            }                                                                                             \
    }

#define CT__ROWS_FLOAT(name, T, A, LOG1P, EXP, SA, SEXP, SLOG, RND, KEEP)                                 \
    CT__ROW_LOGCUMSUMEXP(name, A, LOG1P, EXP, CT__LOAD_##name, CT__STORE_##name)                          \
    CT__ROW_SOFTMAX(name, SA, SEXP, SLOG, CT__LOAD_##name, CT__STORE_##name, RND)                         \
    CT__COLS_SOFTMAX(name, T, SA, SEXP, SLOG, CT__LOAD_##name, CT__STORE_##name, KEEP)                    \
    static void ct__row_float_##name(const ct__row *r, ct__aop op, bool last)                             \
    {                                                                                                     \
        if (op == CT__AOP_LOGCUMSUMEXP) ct__lcse_##name(r);                                               \
        else ct__softmax_##name(r, op == CT__AOP_LOG_SOFTMAX, last);                                      \
    }
/* Integer rows never get a floating op: the front end refuses it. */
#define CT__ROWS_NOFLOAT(name)                                                                            \
    static void ct__row_float_##name(const ct__row *r, ct__aop op, bool last) { (void)r, (void)op, (void)last; }

/* name; logcumsumexp's accumulate type (PyTorch's: double for float) and
 * its functions; softmax's type, its functions and its rounding */
CT__ROWS_FLOAT(f32, float, double, log1p, exp, float, expf, logf, CT__KEEP, 1)
CT__ROWS_FLOAT(f64, double, double, log1p, exp, double, exp, log, CT__KEEP, 1)
CT__ROWS_FLOAT(bf16, uint16_t, float, log1pf, expf, float, expf, logf, ct__rb, 0)
CT__ROWS_NOFLOAT(b8)
CT__ROWS_NOFLOAT(u8)
CT__ROWS_NOFLOAT(i8)
CT__ROWS_NOFLOAT(i16)
CT__ROWS_NOFLOAT(i32)
CT__ROWS_NOFLOAT(i64)
CT__ROWS_NOFLOAT(f16)
CT__ROWS_ALL(b8, uint8_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(u8, uint8_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(i8, int8_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(i16, int16_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(i32, int32_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(i64, int64_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(f16, uint16_t, float, f32, float)
CT__ROWS_ALL(bf16, uint16_t, float, f32, float)
CT__ROWS_ALL(f32, float, float, f32, double)
CT__ROWS_ALL(f64, double, double, f64, double)

/* The scratch a row of n elements needs. */
static size_t ct__along_scratch(ct__aop op, int64_t n)
{
    switch (op) {
    case CT__AOP_MEDIAN: case CT__AOP_MODE: return (size_t)n * 16; /* (key, index) pairs */
    case CT__AOP_SOFTMAX: case CT__AOP_LOG_SOFTMAX: return (size_t)n * 8;
    default: return 0;
    }
}

static ct_result ct__cpu_along(ct__aop op, ct_tensor *values, ct_tensor *indices, const ct_tensor *in, int dim)
{
    ct__along_job job;
    job.op = op;
    job.last = in->ndim == 0 || dim == in->ndim - 1;
    job.scratch = ct__along_scratch(op, in->ndim ? in->sizes[dim] : 1);
    job.cols = NULL;
    if ((op == CT__AOP_SOFTMAX || op == CT__AOP_LOG_SOFTMAX) && !job.last)
        job.cols = in->dtype == CT_F64 ? ct__softmax_cols_f64 : in->dtype == CT_BF16 ? ct__softmax_cols_bf16
                                                                                      : ct__softmax_cols_f32;
    switch (in->dtype) {
#define CT__ALONG_CASE(name, DT, _) case DT: job.fn = ct__row_##name; break;
        CT__DTYPES_A(CT__ALONG_CASE, _)
#undef CT__ALONG_CASE
    default: return ct__fail(CT_ERR_TYPE, "invalid dtype");
    }
    return ct__along_run(&job, values, indices, in, dim);
}

static const ct__reduce_kernels ct__cpu_reduce_kernels = {ct__cpu_reduce, ct__cpu_along};

/* ==================== cpu/join.c ==================== */
// >>cpu/join.c

/* ==================== cpu/sort.c ==================== */
// >>cpu/sort.c

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
                                            ct__cpu_has_pointwise, ct__cpu_pointwise, &ct__cpu_reduce_kernels};
static const ct__backend *ct__backends[CT_NUM_DEVICE_TYPES] = {&ct__cpu_backend, NULL};

static const ct__backend *ct__backend_for(ct_device_type type) { return ct__backends[type]; }

#endif /* CTORCH_IMPLEMENTATION */
