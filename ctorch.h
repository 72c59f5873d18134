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
 * int_tensor * 2.5 becomes the default float dtype). Operands broadcast.
 * Results have PyTorch's dtypes: the float functions (exp, sin, div...) turn
 * integers and bool into the default float dtype, comparisons and tests give
 * bool. float16 and bfloat16 are computed in float32 and rounded to the
 * result, with the intermediate roundings of PyTorch 1.13's per-element
 * kernels where it has them, and also where PyTorch 1.13 has no float16 CPU
 * kernel. Integer division by zero fails with PyTorch's "ZeroDivisionError"
 * before anything is written. All functions are safe to call from several
 * threads on different output tensors. */

/* torch.result_type(a, b) and torch.result_type(t, number). */
CTORCH_API ct_dtype ct_result_type(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_dtype ct_result_type_scalar(const ct_tensor *t, ct_scalar s);

/* ---------------------------------------------------------------- arithmetic */

CTORCH_API ct_tensor *ct_add(const ct_tensor *a, const ct_tensor *b);             /* torch.add (a + b) */
CTORCH_API ct_tensor *ct_add_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_add_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_add_scalar_(ct_tensor *a, ct_scalar b);
/* torch.add(a, b, alpha=alpha): a + alpha * b (and sub: a - alpha * b). */
CTORCH_API ct_tensor *ct_add_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_result ct_add_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_tensor *ct_sub(const ct_tensor *a, const ct_tensor *b);             /* torch.sub (a - b); not for bool */
CTORCH_API ct_tensor *ct_sub_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_sub_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_sub_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_sub_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
CTORCH_API ct_result ct_sub_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
/* torch.rsub(a, b): b - a; ct_rsub_scalar(t, s) is Python's s - t. */
CTORCH_API ct_tensor *ct_rsub(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_rsub_scalar(const ct_tensor *t, ct_scalar s);
CTORCH_API ct_tensor *ct_mul(const ct_tensor *a, const ct_tensor *b);             /* torch.mul (a * b) */
CTORCH_API ct_tensor *ct_mul_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_mul_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_mul_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_div(const ct_tensor *a, const ct_tensor *b);             /* torch.div (a / b, true division) */
CTORCH_API ct_tensor *ct_div_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_div_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_div_scalar_(ct_tensor *a, ct_scalar b);
/* Python's s / t (Tensor.__rtruediv__), which PyTorch computes as t.reciprocal() * s. */
CTORCH_API ct_tensor *ct_rdiv_scalar(const ct_tensor *t, ct_scalar s);

/* torch.div(a, b, rounding_mode=...): CT_ROUNDING_NONE is true division,
 * TRUNC rounds toward zero, FLOOR toward minus infinity (Python's //); the
 * rounding modes keep integer dtypes. */
typedef enum ct_rounding_mode { CT_ROUNDING_NONE = 0, CT_ROUNDING_TRUNC, CT_ROUNDING_FLOOR } ct_rounding_mode;
CTORCH_API ct_tensor *ct_div_mode(const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode);
CTORCH_API ct_tensor *ct_div_mode_scalar(const ct_tensor *a, ct_scalar b, ct_rounding_mode mode);
CTORCH_API ct_result ct_div_mode_(ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode);
CTORCH_API ct_result ct_div_mode_scalar_(ct_tensor *a, ct_scalar b, ct_rounding_mode mode);
/* torch.floor_divide (a // b): div with CT_ROUNDING_FLOOR. */
CTORCH_API ct_tensor *ct_floor_divide(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_floor_divide_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_floor_divide_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_floor_divide_scalar_(ct_tensor *a, ct_scalar b);
/* torch.remainder (Python's %: the sign of b) and torch.fmod (C's fmod: the sign of a). */
CTORCH_API ct_tensor *ct_remainder(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_remainder_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_remainder_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_remainder_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_fmod(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_fmod_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_fmod_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_fmod_scalar_(ct_tensor *a, ct_scalar b);
/* torch.pow (a ** b); ct_rpow_scalar(t, s) is torch.pow(s, t), Python's s ** t.
 * An integer tensor to a negative integer number is an error, as in PyTorch. */
CTORCH_API ct_tensor *ct_pow(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_pow_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_pow_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_pow_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_rpow_scalar(const ct_tensor *t, ct_scalar s);
CTORCH_API ct_tensor *ct_neg(const ct_tensor *t);          /* torch.neg (-t); not for bool */
CTORCH_API ct_result ct_neg_(ct_tensor *t);
CTORCH_API ct_tensor *ct_abs(const ct_tensor *t);          /* torch.abs */
CTORCH_API ct_result ct_abs_(ct_tensor *t);
CTORCH_API ct_tensor *ct_reciprocal(const ct_tensor *t);   /* torch.reciprocal (1 / t) */
CTORCH_API ct_result ct_reciprocal_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sign(const ct_tensor *t);         /* torch.sign: -1, 0 or 1 (0 for NaN) */
CTORCH_API ct_result ct_sign_(ct_tensor *t);
/* torch.addcmul(t, t1, t2, value=v): t + v * t1 * t2. */
CTORCH_API ct_tensor *ct_addcmul(const ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value);
CTORCH_API ct_result ct_addcmul_(ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value);
/* torch.addcdiv(t, t1, t2, value=v): t + v * t1 / t2 (floating point only, as in PyTorch). */
CTORCH_API ct_tensor *ct_addcdiv(const ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value);
CTORCH_API ct_result ct_addcdiv_(ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value);
/* torch.lerp(start, end, weight): start + weight * (end - start), with a tensor
 * or a number weight. No promotion: all tensors must have one floating dtype. */
CTORCH_API ct_tensor *ct_lerp(const ct_tensor *start, const ct_tensor *end, const ct_tensor *weight);
CTORCH_API ct_result ct_lerp_(ct_tensor *start, const ct_tensor *end, const ct_tensor *weight);
CTORCH_API ct_tensor *ct_lerp_scalar(const ct_tensor *start, const ct_tensor *end, ct_scalar weight);
CTORCH_API ct_result ct_lerp_scalar_(ct_tensor *start, const ct_tensor *end, ct_scalar weight);
/* torch.maximum / minimum (NaN propagates) and torch.fmax / fmin (NaN is
 * ignored unless both are NaN). PyTorch has no number or in-place forms. */
CTORCH_API ct_tensor *ct_maximum(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_minimum(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_fmax(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_fmin(const ct_tensor *a, const ct_tensor *b);
/* torch.clamp(t, min, max) with tensor bounds (broadcast) or number bounds.
 * A NaN bound gives NaN; min > max gives max everywhere. Bounds take part in
 * type promotion: an integer tensor clamped to 0.5 becomes float. */
CTORCH_API ct_tensor *ct_clamp(const ct_tensor *t, const ct_tensor *min, const ct_tensor *max);
CTORCH_API ct_result ct_clamp_(ct_tensor *t, const ct_tensor *min, const ct_tensor *max);
CTORCH_API ct_tensor *ct_clamp_scalar(const ct_tensor *t, ct_scalar min, ct_scalar max);
CTORCH_API ct_result ct_clamp_scalar_(ct_tensor *t, ct_scalar min, ct_scalar max);
/* torch.clamp_min / clamp_max: one bound (torch.clamp(t, min=m) and clamp(t, max=m)). */
CTORCH_API ct_tensor *ct_clamp_min(const ct_tensor *t, const ct_tensor *min);
CTORCH_API ct_result ct_clamp_min_(ct_tensor *t, const ct_tensor *min);
CTORCH_API ct_tensor *ct_clamp_min_scalar(const ct_tensor *t, ct_scalar min);
CTORCH_API ct_result ct_clamp_min_scalar_(ct_tensor *t, ct_scalar min);
CTORCH_API ct_tensor *ct_clamp_max(const ct_tensor *t, const ct_tensor *max);
CTORCH_API ct_result ct_clamp_max_(ct_tensor *t, const ct_tensor *max);
CTORCH_API ct_tensor *ct_clamp_max_scalar(const ct_tensor *t, ct_scalar max);
CTORCH_API ct_result ct_clamp_max_scalar_(ct_tensor *t, ct_scalar max);
/* torch.copysign: |a| with b's sign; float results. */
CTORCH_API ct_tensor *ct_copysign(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_copysign_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_copysign_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_copysign_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_hypot(const ct_tensor *a, const ct_tensor *b);   /* torch.hypot: sqrt(a^2 + b^2), floating only */
CTORCH_API ct_result ct_hypot_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_atan2(const ct_tensor *a, const ct_tensor *b);   /* torch.atan2(a, b): the angle of (b, a) */
CTORCH_API ct_result ct_atan2_(ct_tensor *a, const ct_tensor *b);

/* ---------------------------------------------------------------- rounding */

CTORCH_API ct_tensor *ct_round(const ct_tensor *t);        /* torch.round: half to even (integers unchanged) */
CTORCH_API ct_result ct_round_(ct_tensor *t);
/* torch.round(t, decimals=d): round(t * 10^d) / 10^d (floating point only). */
CTORCH_API ct_tensor *ct_round_decimals(const ct_tensor *t, int64_t decimals);
CTORCH_API ct_result ct_round_decimals_(ct_tensor *t, int64_t decimals);
CTORCH_API ct_tensor *ct_floor(const ct_tensor *t);        /* torch.floor (integers unchanged) */
CTORCH_API ct_result ct_floor_(ct_tensor *t);
CTORCH_API ct_tensor *ct_ceil(const ct_tensor *t);         /* torch.ceil (integers unchanged) */
CTORCH_API ct_result ct_ceil_(ct_tensor *t);
CTORCH_API ct_tensor *ct_trunc(const ct_tensor *t);        /* torch.trunc (integers unchanged) */
CTORCH_API ct_result ct_trunc_(ct_tensor *t);
CTORCH_API ct_tensor *ct_frac(const ct_tensor *t);         /* torch.frac: t - trunc(t), floating only */
CTORCH_API ct_result ct_frac_(ct_tensor *t);

/* ---------------------------------------------------------------- exponents, logarithms, trigonometry */

/* Integers and bool give the default float dtype. */
CTORCH_API ct_tensor *ct_exp(const ct_tensor *t);          /* torch.exp */
CTORCH_API ct_result ct_exp_(ct_tensor *t);
CTORCH_API ct_tensor *ct_exp2(const ct_tensor *t);         /* torch.exp2 (2^t) */
CTORCH_API ct_result ct_exp2_(ct_tensor *t);
CTORCH_API ct_tensor *ct_expm1(const ct_tensor *t);        /* torch.expm1 (e^t - 1) */
CTORCH_API ct_result ct_expm1_(ct_tensor *t);
CTORCH_API ct_tensor *ct_log(const ct_tensor *t);          /* torch.log */
CTORCH_API ct_result ct_log_(ct_tensor *t);
CTORCH_API ct_tensor *ct_log2(const ct_tensor *t);         /* torch.log2 */
CTORCH_API ct_result ct_log2_(ct_tensor *t);
CTORCH_API ct_tensor *ct_log10(const ct_tensor *t);        /* torch.log10 */
CTORCH_API ct_result ct_log10_(ct_tensor *t);
CTORCH_API ct_tensor *ct_log1p(const ct_tensor *t);        /* torch.log1p (log(1 + t)) */
CTORCH_API ct_result ct_log1p_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sqrt(const ct_tensor *t);         /* torch.sqrt */
CTORCH_API ct_result ct_sqrt_(ct_tensor *t);
CTORCH_API ct_tensor *ct_rsqrt(const ct_tensor *t);        /* torch.rsqrt (1 / sqrt(t)) */
CTORCH_API ct_result ct_rsqrt_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sin(const ct_tensor *t);          /* torch.sin */
CTORCH_API ct_result ct_sin_(ct_tensor *t);
CTORCH_API ct_tensor *ct_cos(const ct_tensor *t);          /* torch.cos */
CTORCH_API ct_result ct_cos_(ct_tensor *t);
CTORCH_API ct_tensor *ct_tan(const ct_tensor *t);          /* torch.tan */
CTORCH_API ct_result ct_tan_(ct_tensor *t);
CTORCH_API ct_tensor *ct_asin(const ct_tensor *t);         /* torch.asin */
CTORCH_API ct_result ct_asin_(ct_tensor *t);
CTORCH_API ct_tensor *ct_acos(const ct_tensor *t);         /* torch.acos */
CTORCH_API ct_result ct_acos_(ct_tensor *t);
CTORCH_API ct_tensor *ct_atan(const ct_tensor *t);         /* torch.atan */
CTORCH_API ct_result ct_atan_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sinh(const ct_tensor *t);         /* torch.sinh */
CTORCH_API ct_result ct_sinh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_cosh(const ct_tensor *t);         /* torch.cosh */
CTORCH_API ct_result ct_cosh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_tanh(const ct_tensor *t);         /* torch.tanh */
CTORCH_API ct_result ct_tanh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_asinh(const ct_tensor *t);        /* torch.asinh */
CTORCH_API ct_result ct_asinh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_acosh(const ct_tensor *t);        /* torch.acosh */
CTORCH_API ct_result ct_acosh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_atanh(const ct_tensor *t);        /* torch.atanh */
CTORCH_API ct_result ct_atanh_(ct_tensor *t);
CTORCH_API ct_tensor *ct_erf(const ct_tensor *t);          /* torch.erf */
CTORCH_API ct_result ct_erf_(ct_tensor *t);
CTORCH_API ct_tensor *ct_erfc(const ct_tensor *t);         /* torch.erfc */
CTORCH_API ct_result ct_erfc_(ct_tensor *t);
CTORCH_API ct_tensor *ct_erfinv(const ct_tensor *t);       /* torch.erfinv */
CTORCH_API ct_result ct_erfinv_(ct_tensor *t);
CTORCH_API ct_tensor *ct_lgamma(const ct_tensor *t);       /* torch.lgamma (log |gamma(t)|) */
CTORCH_API ct_result ct_lgamma_(ct_tensor *t);
CTORCH_API ct_tensor *ct_digamma(const ct_tensor *t);      /* torch.digamma */
CTORCH_API ct_result ct_digamma_(ct_tensor *t);
CTORCH_API ct_tensor *ct_sigmoid(const ct_tensor *t);      /* torch.sigmoid */
CTORCH_API ct_result ct_sigmoid_(ct_tensor *t);
/* torch.logit(t): log(t / (1 - t)); the _eps forms first clamp t to [eps, 1 - eps]. */
CTORCH_API ct_tensor *ct_logit(const ct_tensor *t);
CTORCH_API ct_result ct_logit_(ct_tensor *t);
CTORCH_API ct_tensor *ct_logit_eps(const ct_tensor *t, double eps);
CTORCH_API ct_result ct_logit_eps_(ct_tensor *t, double eps);
/* torch.xlogy(a, b): a * log(b), 0 where a is 0 (unless b is NaN). */
CTORCH_API ct_tensor *ct_xlogy(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_xlogy_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_xlogy_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_xlogy_scalar_(ct_tensor *a, ct_scalar b);

/* ---------------------------------------------------------------- activations */

/* The functions of torch.nn.functional, on tensors; the _ forms are the
 * inplace=True variants. Floating point only, except relu, relu6 and
 * hardtanh, which also take integers. */
CTORCH_API ct_tensor *ct_relu(const ct_tensor *t);         /* torch.relu */
CTORCH_API ct_result ct_relu_(ct_tensor *t);
CTORCH_API ct_tensor *ct_relu6(const ct_tensor *t);        /* F.relu6: hardtanh(t, 0, 6) */
CTORCH_API ct_result ct_relu6_(ct_tensor *t);
/* F.leaky_relu(t, negative_slope) (PyTorch's default slope is 0.01). */
CTORCH_API ct_tensor *ct_leaky_relu(const ct_tensor *t, double negative_slope);
CTORCH_API ct_result ct_leaky_relu_(ct_tensor *t, double negative_slope);
/* F.elu and its general form: scale * (t if t > 0 else alpha * (exp(t * input_scale) - 1)).
 * Start from ct_elu_opts_init() (alpha 1, scale 1, input_scale 1). */
typedef struct ct_elu_opts {
    double alpha, scale, input_scale;
} ct_elu_opts;
CTORCH_API ct_elu_opts ct_elu_opts_init(void);
CTORCH_API ct_tensor *ct_elu(const ct_tensor *t, ct_elu_opts opts);
CTORCH_API ct_result ct_elu_(ct_tensor *t, ct_elu_opts opts);
CTORCH_API ct_tensor *ct_selu(const ct_tensor *t);         /* torch.selu: elu with SELU's constants */
CTORCH_API ct_result ct_selu_(ct_tensor *t);
/* torch.celu(t, alpha): elu(t, alpha, 1, 1 / alpha); alpha may not be 0. */
CTORCH_API ct_tensor *ct_celu(const ct_tensor *t, double alpha);
CTORCH_API ct_result ct_celu_(ct_tensor *t, double alpha);
/* F.gelu(t, approximate='none' or 'tanh'). */
typedef enum ct_gelu_approximate { CT_GELU_NONE = 0, CT_GELU_TANH } ct_gelu_approximate;
CTORCH_API ct_tensor *ct_gelu(const ct_tensor *t, ct_gelu_approximate approximate);
CTORCH_API ct_tensor *ct_silu(const ct_tensor *t);         /* F.silu: t * sigmoid(t) */
CTORCH_API ct_result ct_silu_(ct_tensor *t);
CTORCH_API ct_tensor *ct_mish(const ct_tensor *t);         /* F.mish: t * tanh(softplus(t)) */
CTORCH_API ct_result ct_mish_(ct_tensor *t);
/* F.softplus(t, beta, threshold): log(1 + exp(beta * t)) / beta, or t where
 * beta * t > threshold. Start from ct_softplus_opts_init() (beta 1, threshold 20). */
typedef struct ct_softplus_opts {
    double beta, threshold;
} ct_softplus_opts;
CTORCH_API ct_softplus_opts ct_softplus_opts_init(void);
CTORCH_API ct_tensor *ct_softplus(const ct_tensor *t, ct_softplus_opts opts);
/* F.hardtanh(t, min_val, max_val) (PyTorch's defaults are -1 and 1). */
CTORCH_API ct_tensor *ct_hardtanh(const ct_tensor *t, double min_val, double max_val);
CTORCH_API ct_result ct_hardtanh_(ct_tensor *t, double min_val, double max_val);
CTORCH_API ct_tensor *ct_hardsigmoid(const ct_tensor *t);  /* F.hardsigmoid: relu6(t + 3) / 6 */
CTORCH_API ct_result ct_hardsigmoid_(ct_tensor *t);
CTORCH_API ct_tensor *ct_hardswish(const ct_tensor *t);    /* F.hardswish: t * relu6(t + 3) / 6 */
CTORCH_API ct_result ct_hardswish_(ct_tensor *t);

/* ---------------------------------------------------------------- comparison and logic */

/* Comparisons give bool tensors, computed in the promoted dtype. Their _ forms
 * write 0 or 1 into a (Tensor.eq_). */
CTORCH_API ct_tensor *ct_eq(const ct_tensor *a, const ct_tensor *b);   /* torch.eq (a == b) */
CTORCH_API ct_tensor *ct_eq_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_eq_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_eq_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_ne(const ct_tensor *a, const ct_tensor *b);   /* torch.ne (a != b) */
CTORCH_API ct_tensor *ct_ne_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_ne_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_ne_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_lt(const ct_tensor *a, const ct_tensor *b);   /* torch.lt (a < b) */
CTORCH_API ct_tensor *ct_lt_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_lt_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_lt_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_le(const ct_tensor *a, const ct_tensor *b);   /* torch.le (a <= b) */
CTORCH_API ct_tensor *ct_le_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_le_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_le_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_gt(const ct_tensor *a, const ct_tensor *b);   /* torch.gt (a > b) */
CTORCH_API ct_tensor *ct_gt_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_gt_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_gt_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_ge(const ct_tensor *a, const ct_tensor *b);   /* torch.ge (a >= b) */
CTORCH_API ct_tensor *ct_ge_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_ge_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_ge_scalar_(ct_tensor *a, ct_scalar b);
/* torch.isclose(a, b): |a - b| <= atol + rtol * |b| elementwise (bool), a and b
 * of one dtype. Start from ct_isclose_opts_init() (rtol 1e-05, atol 1e-08,
 * equal_nan false). */
typedef struct ct_isclose_opts {
    double rtol, atol;
    bool equal_nan;
} ct_isclose_opts;
CTORCH_API ct_isclose_opts ct_isclose_opts_init(void);
CTORCH_API ct_tensor *ct_isclose(const ct_tensor *a, const ct_tensor *b, ct_isclose_opts opts);
/* torch.allclose: whether isclose holds everywhere (false, with the error set, on an error). */
CTORCH_API bool ct_allclose(const ct_tensor *a, const ct_tensor *b, ct_isclose_opts opts);
/* torch.equal: same shape and equal values (after promotion; NaN is unequal). */
CTORCH_API bool ct_equal(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_isnan(const ct_tensor *t);        /* torch.isnan: bool */
CTORCH_API ct_tensor *ct_isinf(const ct_tensor *t);        /* torch.isinf: bool */
CTORCH_API ct_tensor *ct_isfinite(const ct_tensor *t);     /* torch.isfinite: bool */
/* torch.logical_*: nonzero is true; bool results (the _ forms write 0 or 1 into a). */
CTORCH_API ct_tensor *ct_logical_not(const ct_tensor *t);
CTORCH_API ct_result ct_logical_not_(ct_tensor *t);
CTORCH_API ct_tensor *ct_logical_and(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_logical_and_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_logical_or(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_logical_or_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_logical_xor(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_logical_xor_(ct_tensor *a, const ct_tensor *b);
/* torch.bitwise_*: integers and bool only. */
CTORCH_API ct_tensor *ct_bitwise_not(const ct_tensor *t);  /* ~t */
CTORCH_API ct_result ct_bitwise_not_(ct_tensor *t);
CTORCH_API ct_tensor *ct_bitwise_and(const ct_tensor *a, const ct_tensor *b);   /* a & b */
CTORCH_API ct_tensor *ct_bitwise_and_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_bitwise_and_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_bitwise_and_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_bitwise_or(const ct_tensor *a, const ct_tensor *b);    /* a | b */
CTORCH_API ct_tensor *ct_bitwise_or_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_bitwise_or_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_bitwise_or_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_bitwise_xor(const ct_tensor *a, const ct_tensor *b);   /* a ^ b */
CTORCH_API ct_tensor *ct_bitwise_xor_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_bitwise_xor_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_bitwise_xor_scalar_(ct_tensor *a, ct_scalar b);
/* torch.bitwise_left_shift / right_shift (a << b, a >> b; integers only). As in
 * PyTorch on x86, a shift count is taken modulo 32 (64 for int64) and the
 * narrow types shift as 32-bit ints. */
CTORCH_API ct_tensor *ct_bitwise_left_shift(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_bitwise_left_shift_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_bitwise_left_shift_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_bitwise_left_shift_scalar_(ct_tensor *a, ct_scalar b);
CTORCH_API ct_tensor *ct_bitwise_right_shift(const ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_tensor *ct_bitwise_right_shift_scalar(const ct_tensor *a, ct_scalar b);
CTORCH_API ct_result ct_bitwise_right_shift_(ct_tensor *a, const ct_tensor *b);
CTORCH_API ct_result ct_bitwise_right_shift_scalar_(ct_tensor *a, ct_scalar b);

/* ---------------------------------------------------------------- selection */

/* torch.where(condition, x, y): x where condition (bool, or uint8 as PyTorch
 * still accepts) is true, else y; x and y are promoted together. The
 * _scalar forms take numbers, as where(c, t, 0.0) does in Python. */
CTORCH_API ct_tensor *ct_where(const ct_tensor *condition, const ct_tensor *x, const ct_tensor *y);
CTORCH_API ct_tensor *ct_where_scalar_other(const ct_tensor *condition, const ct_tensor *x, ct_scalar y);
CTORCH_API ct_tensor *ct_where_scalar_self(const ct_tensor *condition, ct_scalar x, const ct_tensor *y);
CTORCH_API ct_tensor *ct_where_scalar(const ct_tensor *condition, ct_scalar x, ct_scalar y);
/* torch.nan_to_num: NaN becomes opts.nan (default 0), +inf opts.posinf and
 * -inf opts.neginf (NULL: the dtype's largest and lowest finite values).
 * Integers and bool are returned unchanged. */
typedef struct ct_nan_to_num_opts {
    double nan;
    const double *posinf, *neginf;
} ct_nan_to_num_opts;
CTORCH_API ct_tensor *ct_nan_to_num(const ct_tensor *t, ct_nan_to_num_opts opts);
CTORCH_API ct_result ct_nan_to_num_(ct_tensor *t, ct_nan_to_num_opts opts);

/* The op table (for tests and tools): how many ops there are and their names. */
CTORCH_API int ct_op_count(void);
CTORCH_API const char *ct_op_name(int i);

/* ==================== ops/reduce.h ==================== */
// >>ops/reduce.h

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
/* Private: the names of the reduce ops, for the op table (src/ops/optable.h). */
#define CT__REDUCE_OP_NAMES(X)

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
/* Private: the op table. Every pointwise op with a kernel is one line here;
 * the list makes the op enum, the names, and the dtype rule each front end
 * applies, and the tests walk it so that no op escapes a golden test.
 *
 * X(name, arity, rule, forms, kernel):
 *   name    PyTorch's name (ct_<name> is the public function)
 *   arity   1 (unary), 2 (binary) or 3 (ternary) tensor operands
 *   rule    how the result dtype follows from the inputs:
 *             SAME   the (promoted) input dtype
 *             FLOAT  the promoted dtype, integers and bool becoming the default float
 *             BOOL   bool (comparisons, tests, logic), computed in the promoted dtype
 *             COND   the first input is a bool condition, the others are promoted
 *             EXACT  no promotion: every input must have the first one's dtype
 *   forms   the public functions generated for it (H: written by hand, with
 *           the op's parameters):
 *             U   ct_<name>(t)              UI  and ct_<name>_(t)
 *             B   ct_<name>(a, b)           BI  and ct_<name>_(a, b)
 *             BSI and ct_<name>_scalar(a, s), ct_<name>_scalar_(a, s)
 *   kernel  PyTorch's kernel name, for "not implemented for 'Bool'" messages
 */
#define CT__POINTWISE_OPS(X)                              \
    X(neg, 1, SAME, UI, "neg_cpu")                        \
    X(abs, 1, SAME, UI, "abs_cpu")                        \
    X(reciprocal, 1, FLOAT, UI, "reciprocal_cpu")         \
    X(sign, 1, SAME, UI, "sign_cpu")                      \
    X(round, 1, SAME, H, "round_vml_cpu")                 \
    X(floor, 1, SAME, UI, "floor_vml_cpu")                \
    X(ceil, 1, SAME, UI, "ceil_vml_cpu")                  \
    X(trunc, 1, SAME, UI, "trunc_vml_cpu")                \
    X(frac, 1, SAME, UI, "frac_cpu")                      \
    X(exp, 1, FLOAT, UI, "exp_vml_cpu")                   \
    X(exp2, 1, FLOAT, UI, "exp2_cpu")                     \
    X(expm1, 1, FLOAT, UI, "expm1_vml_cpu")               \
    X(log, 1, FLOAT, UI, "log_vml_cpu")                   \
    X(log2, 1, FLOAT, UI, "log2_vml_cpu")                 \
    X(log10, 1, FLOAT, UI, "log10_vml_cpu")               \
    X(log1p, 1, FLOAT, UI, "log1p_vml_cpu")               \
    X(sqrt, 1, FLOAT, UI, "sqrt_vml_cpu")                 \
    X(rsqrt, 1, FLOAT, UI, "rsqrt_cpu")                   \
    X(sin, 1, FLOAT, UI, "sin_vml_cpu")                   \
    X(cos, 1, FLOAT, UI, "cos_vml_cpu")                   \
    X(tan, 1, FLOAT, UI, "tan_vml_cpu")                   \
    X(asin, 1, FLOAT, UI, "asin_vml_cpu")                 \
    X(acos, 1, FLOAT, UI, "acos_vml_cpu")                 \
    X(atan, 1, FLOAT, UI, "atan_vml_cpu")                 \
    X(sinh, 1, FLOAT, UI, "sinh_cpu")                     \
    X(cosh, 1, FLOAT, UI, "cosh_cpu")                     \
    X(tanh, 1, FLOAT, UI, "tanh_vml_cpu")                 \
    X(asinh, 1, FLOAT, UI, "asinh_cpu")                   \
    X(acosh, 1, FLOAT, UI, "acosh_cpu")                   \
    X(atanh, 1, FLOAT, UI, "atanh_cpu")                   \
    X(erf, 1, FLOAT, UI, "erf_vml_cpu")                   \
    X(erfc, 1, FLOAT, UI, "erfc_vml_cpu")                 \
    X(erfinv, 1, FLOAT, UI, "erfinv_vml_cpu")             \
    X(lgamma, 1, FLOAT, UI, "lgamma_vml_cpu")             \
    X(digamma, 1, FLOAT, UI, "digamma")                   \
    X(sigmoid, 1, FLOAT, UI, "sigmoid_cpu")               \
    X(logit, 1, FLOAT, H, "logit_cpu")                    \
    X(relu, 1, SAME, UI, "clamp_min_cpu")                 \
    X(leaky_relu, 1, SAME, H, "leaky_relu_cpu")           \
    X(elu, 1, SAME, H, "elu_cpu")                         \
    X(gelu, 1, SAME, H, "GeluKernelImpl")                 \
    X(silu, 1, SAME, UI, "silu_cpu")                      \
    X(mish, 1, SAME, UI, "mish_cpu")                      \
    X(softplus, 1, SAME, H, "softplus_cpu")               \
    X(hardsigmoid, 1, SAME, UI, "hardsigmoid_cpu")        \
    X(hardswish, 1, SAME, UI, "hardswish_cpu")            \
    X(isnan, 1, BOOL, U, "isnan_cpu")                     \
    X(isinf, 1, BOOL, U, "isinf_cpu")                     \
    X(isfinite, 1, BOOL, U, "isfinite_cpu")               \
    X(logical_not, 1, BOOL, UI, "logical_not_cpu")        \
    X(bitwise_not, 1, SAME, UI, "bitwise_not_cpu")        \
    X(nan_to_num, 1, SAME, H, "nan_to_num")               \
    X(add, 2, SAME, BSI, "add_cpu")                       \
    X(sub, 2, SAME, BSI, "sub_cpu")                       \
    X(mul, 2, SAME, BSI, "mul_cpu")                       \
    X(div, 2, FLOAT, BSI, "div_true_cpu")                 \
    X(remainder, 2, SAME, BSI, "remainder_cpu")           \
    X(fmod, 2, SAME, BSI, "fmod_cpu")                     \
    X(pow, 2, SAME, BSI, "pow")                           \
    X(maximum, 2, SAME, B, "maximum_cpu")                 \
    X(minimum, 2, SAME, B, "minimum_cpu")                 \
    X(fmax, 2, SAME, B, "fmax_cpu")                       \
    X(fmin, 2, SAME, B, "fmin_cpu")                       \
    X(copysign, 2, FLOAT, BSI, "copysign_cpu")            \
    X(hypot, 2, SAME, BI, "hypot_cpu")                    \
    X(atan2, 2, FLOAT, BI, "atan2_cpu")                   \
    X(xlogy, 2, FLOAT, BSI, "xlogy_cpu")                  \
    X(eq, 2, BOOL, BSI, "eq_cpu")                         \
    X(ne, 2, BOOL, BSI, "ne_cpu")                         \
    X(lt, 2, BOOL, BSI, "lt_cpu")                         \
    X(le, 2, BOOL, BSI, "le_cpu")                         \
    X(gt, 2, BOOL, BSI, "gt_cpu")                         \
    X(ge, 2, BOOL, BSI, "ge_cpu")                         \
    X(logical_and, 2, BOOL, BI, "logical_and_cpu")        \
    X(logical_or, 2, BOOL, BI, "logical_or_cpu")          \
    X(logical_xor, 2, BOOL, BI, "logical_xor_cpu")        \
    X(bitwise_and, 2, SAME, BSI, "bitwise_and_cpu")       \
    X(bitwise_or, 2, SAME, BSI, "bitwise_or_cpu")         \
    X(bitwise_xor, 2, SAME, BSI, "bitwise_xor_cpu")       \
    X(bitwise_left_shift, 2, SAME, BSI, "lshift_cpu")     \
    X(bitwise_right_shift, 2, SAME, BSI, "rshift_cpu")    \
    X(addcmul, 3, SAME, H, "addcmul_cpu_out")             \
    X(addcdiv, 3, SAME, H, "addcdiv_cpu_out")             \
    X(lerp, 3, EXACT, H, "lerp_kernel_tensor")            \
    X(clamp, 3, SAME, H, "clamp_cpu")                     \
    X(where, 3, COND, H, "where_cpu")

/* Public pointwise ops that run on the kernels of others (floor_divide is
 * div's floor mode, clamp_min is maximum, hardtanh is clamp...) or are made
 * of several ops (isclose), named here so that the tests cover them too. */
#define CT__POINTWISE_DERIVED_OPS(X) \
    X(floor_divide) X(rsub) X(rdiv) X(rpow) X(clamp_min) X(clamp_max) X(hardtanh) X(relu6) X(selu) X(celu) \
    X(isclose) X(allclose) X(equal)

/* Every op: the pointwise ops above, then the families that list their names
 * in their own headers (src/ops/<family>_ops.h). The enum and ct_op_name cover
 * all; pointwise ops with kernels come first, so ct__ops[] below is indexed
 * by their enum. */
#define CT__FAMILY_OP_NAMES(X) \
    CT__POINTWISE_DERIVED_OPS(X) CT__REDUCE_OP_NAMES(X) CT__JOIN_OP_NAMES(X) CT__SORT_OP_NAMES(X)

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

typedef enum ct__dtype_rule { CT__RULE_SAME, CT__RULE_FLOAT, CT__RULE_BOOL, CT__RULE_COND, CT__RULE_EXACT } ct__dtype_rule;

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

/* Extra arguments of a pointwise kernel. The front end fills what an op
 * uses; the kernels read them with the op's meaning:
 *   alpha     add/sub alpha, addcmul/addcdiv value, lerp's number weight:
 *             `value` converted to the compute dtype (alpha_i for integral kernels)
 *   p[0..2]   round: 10^|decimals|; logit: eps; leaky_relu: slope;
 *             elu: alpha, scale, input_scale; softplus: beta, threshold;
 *             nan_to_num: the values for NaN, +inf and -inf
 *   mode      div: its ct_rounding_mode; round: 1 for decimals > 0, 2 for
 *             decimals < 0, 3 for decimals == 0; gelu: its ct_gelu_approximate,
 *             or 2 for bfloat16 roundings; lerp: 1 when the weight is alpha */
typedef struct ct__op_args {
    double alpha;
    int64_t alpha_i;
    ct_scalar value;    /* alpha or value, when has_value */
    bool has_value;
    double p[3];
    int mode;
    bool checked;       /* number operands convert with an overflow check (bounds, weights) */
    bool opmath;        /* value converts to float, not to float16/bfloat16 (PyTorch's
                           opmath: addcmul, addcdiv, lerp's weight) */
    bool scalar_clamp;  /* PyTorch's clamps with number bounds: no bool kernel, and a
                           cast error names self's C++ type */
    const char *kernel; /* the kernel name for this form, when not the table's (NULL) */
    bool number_other;  /* set by the front end: the second operand is a Python number */
    ct_dtype compute;   /* set by the front end: the dtype PyTorch computes in */
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

/* ss holding one element of dtype dt, copied from elem. */
static ct_tensor *ct__stack_elem_init(ct__stack_scalar *ss, ct_dtype dt, const void *elem)
{
    memset(ss, 0, sizeof *ss);
    ss->s.refcount = 1;
    ss->s.data = &ss->value;
    ss->s.nbytes = sizeof ss->value;
    ss->s.device = ct__cpu;
    ss->t.refcount = 1;
    ss->t.dtype = dt;
    ss->t.storage = &ss->s;
    ss->t.wrapped_number = true;
    memcpy(&ss->value, elem, ct_dtype_size(dt));
    return &ss->t;
}

static ct_tensor *ct__stack_scalar_init(ct__stack_scalar *ss, ct_scalar v)
{
    return ct__stack_elem_init(ss, v.kind, &v.v);
}

/* The Python number a stack scalar holds. */
static ct_scalar ct__stack_scalar_value(const ct_tensor *t)
{
    ct_scalar s;
    memset(&s, 0, sizeof s);
    s.kind = t->dtype;
    memcpy(&s.v, ct__data(t), ct_dtype_size(t->dtype));
    return s;
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

/* The C++ type names (caffe2::TypeMeta) some PyTorch messages print. */
static const char *ct__dtype_meta_name(ct_dtype dt)
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

static const char *ct__kernel_name(ct__op op, const ct__op_args *args)
{
    return args->kernel ? args->kernel : ct__ops[op].kernel;
}

static ct_result ct__not_implemented(const char *kernel, ct_dtype dt)
{
    return ct__fail(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel, ct__dtype_title(dt));
}

/* The dtype the inputs are promoted to, or CT_DEFAULT with the error set. */
static ct_dtype ct__pointwise_common(ct__op op, const ct_tensor *const *in)
{
    static const char *const exact_names[3] = {"self", "end", "weight"};
    int n = ct__ops[op].arity;
    switch (ct__ops[op].rule) {
    case CT__RULE_COND:
        if (in[0]->dtype != CT_BOOL && in[0]->dtype != CT_U8) {
            ct__fail(CT_ERR_RUNTIME, "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                     ct__dtype_title(in[0]->dtype));
            return CT_DEFAULT;
        }
        return ct__result_type(in + 1, n - 1);
    case CT__RULE_EXACT:
        for (int i = 1; i < n; i++)
            if (!in[i]->wrapped_number && in[i]->dtype != in[0]->dtype) {
                ct__fail(CT_ERR_RUNTIME, "expected dtype %s for `%s` but got dtype %s",
                         ct__dtype_meta_name(in[0]->dtype), exact_names[i], ct__dtype_meta_name(in[i]->dtype));
                return CT_DEFAULT;
            }
        return in[0]->dtype;
    default: return ct__result_type(in, n);
    }
}

/* Refusals PyTorch makes before looking for a kernel. */
static ct_result ct__pointwise_refusals(ct__op op, const ct_tensor *const *in, ct_dtype common,
                                        const ct__op_args *args)
{
    const ct_tensor *a = in[0], *b = in[1];
    if (op == CT__OP_neg && a->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                                        "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    if (op == CT__OP_sub && a->dtype == CT_BOOL && b->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                                        "the `^` or `logical_xor()` operator instead.");
    if (op == CT__OP_sub && (a->dtype == CT_BOOL || b->dtype == CT_BOOL))
        return ct__fail(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                                        "are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    if ((op == CT__OP_add || op == CT__OP_sub) && args->has_value && args->value.kind == CT_BOOL && common != CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
    if ((op == CT__OP_add || op == CT__OP_sub) && args->has_value && args->value.kind == CT_F64 &&
        !ct_dtype_is_floating(common))
        return ct__fail(CT_ERR_RUNTIME, "For integral input tensors, argument alpha must not be a floating point number.");
    if (op == CT__OP_relu && a->dtype == CT_BOOL)
        return ct__fail(CT_ERR_RUNTIME, "Boolean inputs not supported for relu");
    /* a number exponent must be non-negative for an integral power (tensors get 1, -1 or 0) */
    if (op == CT__OP_pow && b->wrapped_number && !ct_dtype_is_floating(common) && b->dtype != CT_F64 &&
        ct__read_i64(ct__data(b), b->dtype) < 0)
        return ct__fail(CT_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
    if (op == CT__OP_addcdiv && !ct_dtype_is_floating(common))
        return ct__fail(CT_ERR_RUNTIME,
                        "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                        "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                        "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
                        "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                        "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
                        "dtypes.");
    /* round with decimals has floating kernels only, even for decimals=0 */
    if ((op == CT__OP_round && args->mode && !ct_dtype_is_floating(common)) || (args->scalar_clamp && common == CT_BOOL))
        return ct__not_implemented(ct__kernel_name(op, args), common);
    return CT_OK;
}

/* The dtype an op's kernel computes in and the dtype of its result. */
static void ct__pointwise_dtypes(ct__op op, ct_dtype common, const ct__op_args *args, ct_dtype *compute,
                                 ct_dtype *result)
{
    bool to_float = ct__ops[op].rule == CT__RULE_FLOAT && !(op == CT__OP_div && args->mode != CT_ROUNDING_NONE);
    *compute = to_float && !ct_dtype_is_floating(common) ? ct__default_dtype : common;
    *result = ct__ops[op].rule == CT__RULE_BOOL ? CT_BOOL : *compute;
}

/* A number operand as one element of dtype dt: converted as c10::convert does,
 * or checked for overflow as Scalar.to<T>() is (bounds, weights, values). */
static ct_result ct__number_as(const ct_tensor *x, ct_dtype dt, bool checked, uint64_t *elem)
{
    ct_scalar v = ct__stack_scalar_value(x);
    *elem = 0;
    if (checked) return ct__scalar_to_elem(v, dt, elem);
    if (v.kind == CT_F64) ct__write_f64(elem, dt, v.v.f);
    else ct__write_i64(elem, dt, ct__read_i64(&v.v, v.kind));
    return CT_OK;
}

/* An operand in the dtype PyTorch computes in (so a number or a float32
 * tensor meets a bfloat16 one rounded to bfloat16). Numbers stay on the stack. */
static const ct_tensor *ct__operand_as(const ct_tensor *x, ct_dtype compute, bool checked, ct__stack_scalar *ss)
{
    if (x->wrapped_number) {
        uint64_t elem;
        return ct__number_as(x, compute, checked, &elem) == CT_OK ? ct__stack_elem_init(ss, compute, &elem) : NULL;
    }
    return x->dtype == compute ? x : ct_to(x, compute);
}

/* Integer division by zero fails before anything is written (PyTorch fails
 * midway through its kernel). */
static ct_result ct__check_divisor(ct__op op, const ct_tensor *divisor, ct_dtype compute, const ct__op_args *args)
{
    bool divides = op == CT__OP_remainder || op == CT__OP_fmod || (op == CT__OP_div && args->mode);
    if (!divides || ct_dtype_is_floating(compute) || ct_numel(divisor) == 0) return CT_OK;
    const ct_tensor *zero = ct_eq_scalar(divisor, ct_int(0));
    if (!zero) return ct_last_error_code();
    zero = ct_contiguous(zero);
    if (!zero) return ct_last_error_code();
    if (memchr(ct__data(zero), 1, (size_t)ct_numel(zero))) return ct__fail(CT_ERR_RUNTIME, "ZeroDivisionError");
    return CT_OK;
}

/* The broadcast shape of the inputs, combined left to right as TensorIterator does. */
static ct_result ct__pointwise_shape(const ct_tensor *const *in, int n, int64_t *shape, int *ndim)
{
    *ndim = in[0]->ndim;
    memcpy(shape, in[0]->sizes, sizeof(int64_t) * CT_MAX_DIMS);
    for (int i = 1; i < n; i++) {
        int64_t acc[CT_MAX_DIMS];
        memcpy(acc, shape, sizeof acc);
        if (ct__broadcast_shapes(acc, *ndim, in[i]->sizes, in[i]->ndim, shape, ndim) != CT_OK)
            return ct_last_error_code();
    }
    return CT_OK;
}

/* Whether the result can be written to self in place, as PyTorch checks. */
static ct_result ct__check_inplace(const ct_tensor *self, const ct_tensor *const *in, int n, const int64_t *shape,
                                   int ndim, ct_dtype result, const ct__op_args *args)
{
    char b1[256], b2[256];
    if (ndim != self->ndim || memcmp(shape, self->sizes, (size_t)ndim * sizeof(int64_t)))
        return ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        ct__shape_str(self->sizes, self->ndim, b1, sizeof b1), ct__shape_str(shape, ndim, b2, sizeof b2));
    if (!ct_can_cast(result, self->dtype))
        return ct__fail(CT_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                        ct__dtype_title(result),
                        args->scalar_clamp ? ct__dtype_meta_name(self->dtype) : ct__dtype_title(self->dtype));
    if (ct__check_write(self, NULL) != CT_OK) return ct_last_error_code();
    for (int i = 1; i < n; i++)
        if (in[i] != self && ct__check_write(self, in[i]) != CT_OK) return ct_last_error_code();
    return CT_OK;
}

/* value (alpha of add and sub, value of addcmul and addcdiv, lerp's number
 * weight) as the kernels read it: converted to dt with Scalar.to<T>()'s
 * overflow check. */
static ct_result ct__value_arg(ct__op_args *args, ct_dtype dt)
{
    uint64_t elem = 0;
    ct_result r = ct__scalar_to_elem(args->value, dt, &elem);
    if (r != CT_OK) return r;
    args->alpha = ct__read_f64(&elem, dt);
    args->alpha_i = ct__read_i64(&elem, dt);
    return CT_OK;
}

/* The dtype PyTorch converts value (and lerp's number weight) to: the
 * compute dtype, but float for float16 and bfloat16 where its kernels work
 * in float (opmath). */
static ct_dtype ct__value_dtype(ct_dtype compute, const ct__op_args *args)
{
    return args->opmath && (compute == CT_F16 || compute == CT_BF16) ? CT_F32 : compute;
}

/* Whether number operand i converts with Scalar.to<T>()'s overflow check:
 * bounds and weights do, and pow's exponent except for float and double,
 * where PyTorch casts it as C does. */
static bool ct__number_checked(ct__op op, int i, ct_dtype compute, const ct__op_args *args)
{
    if (op == CT__OP_pow) return i == 1 && compute != CT_F32 && compute != CT_F64;
    return args->checked;
}

/* The device the op runs on: the first operand's that is not a number. */
static ct_device_type ct__pointwise_device(const ct_tensor *const *in, int n)
{
    for (int i = 0; i < n; i++)
        if (!in[i]->wrapped_number) return in[i]->storage->device.type;
    return CT_DEVICE_CPU;
}

/* Run the kernel on the converted operands into *out (in place), or into a
 * new tensor stored in *out. Called inside the caller's scope. */
static ct_result ct__pointwise_run(ct__op op, ct_tensor **out, const ct_tensor *const *in, const int64_t *shape,
                                   int ndim, ct_dtype compute, ct_dtype result, const ct__op_args *args)
{
    int n = ct__ops[op].arity;
    ct__stack_scalar ss[3];
    const ct_tensor *kin[3] = {NULL, NULL, NULL};
    for (int i = 0; i < n; i++) {
        bool condition = i == 0 && ct__ops[op].rule == CT__RULE_COND;
        kin[i] = condition ? in[i] : ct__operand_as(in[i], compute, ct__number_checked(op, i, compute, args), &ss[i]);
        if (!kin[i]) return ct_last_error_code();
    }
    if (n > 1 && ct__check_divisor(op, kin[n - 1], compute, args) != CT_OK) return ct_last_error_code();
    ct_tensor *dst;
    bool direct = *out && (*out)->dtype == result;
    if (direct) {
        dst = *out;
    } else {
        int64_t strides[CT_MAX_DIMS];
        ct__dense_strides_for(in, n, shape, ndim, strides);
        dst = ct__alloc_strided(shape, strides, ndim, result, ct__cpu);
        if (!dst) return ct_last_error_code();
    }
    ct__op_args kargs = *args;
    kargs.number_other = n == 2 && in[1]->wrapped_number;
    kargs.compute = compute;
    if (ct_numel(dst)) ct__backend_for(ct__pointwise_device(in, n))->pointwise(op, dst, kin, &kargs);
    if (*out && !direct) ct__copy_unchecked(*out, dst); /* in place into another dtype */
    if (!*out) *out = ct_keep(dst);
    return CT_OK;
}

/* op(in...) into *out: a new tensor when *out is NULL, else in place into
 * *out (which is in[0]). args NULL means no options. Every check runs before
 * anything is written. */
static ct_result ct__pointwise(ct__op op, ct_tensor **out, const ct_tensor *const *in, const ct__op_args *args)
{
    ct__op_args none;
    if (!args) {
        memset(&none, 0, sizeof none);
        args = &none;
    }
    int n = ct__ops[op].arity, ndim;
    int64_t shape[CT_MAX_DIMS];
    ct_dtype common = ct__pointwise_common(op, in), compute, result;
    if (common == CT_DEFAULT) return ct_last_error_code();
    ct_result r = ct__pointwise_refusals(op, in, common, args);
    if (r != CT_OK) return r;
    ct__pointwise_dtypes(op, common, args, &compute, &result);
    if ((r = ct__pointwise_shape(in, n, shape, &ndim)) != CT_OK) return r;
    if (*out && (r = ct__check_inplace(*out, in, n, shape, ndim, result, args)) != CT_OK) return r;
    if (!ct__backend_for(ct__pointwise_device(in, n))->has_pointwise(op, compute))
        return ct__not_implemented(ct__kernel_name(op, args), compute);
    ct_scope s = ct_scope_begin();
    ct__op_args kargs = *args;
    kargs.alpha = 1.0;
    kargs.alpha_i = 1;
    if (args->has_value && (r = ct__value_arg(&kargs, ct__value_dtype(compute, args))) != CT_OK) {
        ct_scope_end(s);
        return r;
    }
    r = ct__pointwise_run(op, out, in, shape, ndim, compute, result, &kargs);
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- public functions */

static ct__op_args ct__args(void)
{
    ct__op_args a;
    memset(&a, 0, sizeof a);
    return a;
}

static ct_tensor *ct__new(ct__op op, const ct_tensor *a, const ct_tensor *b, const ct_tensor *c, const ct__op_args *args)
{
    const ct_tensor *in[3] = {a, b, c};
    ct_tensor *out = NULL;
    return ct__pointwise(op, &out, in, args) == CT_OK ? out : NULL;
}

static ct_result ct__inplace(ct__op op, ct_tensor *self, const ct_tensor *b, const ct_tensor *c, const ct__op_args *args)
{
    const ct_tensor *in[3] = {self, b, c};
    ct_tensor *out = self;
    return ct__pointwise(op, &out, in, args);
}

/* The public functions of each op, made from its forms in the op table. */
#define CT__FORM_FN(name)                                                            \
    ct_tensor *ct_##name(const ct_tensor *t)                                         \
    {                                                                                \
        CT__ARG(t, "input", 1);                                                      \
        return ct__new(CT__OP_##name, t, NULL, NULL, NULL);                  \
    }
#define CT__FORM_FN_(name)                                                           \
    ct_result ct_##name##_(ct_tensor *t)                                             \
    {                                                                                \
        CT__ARG_R(t, "input", 1);                                                    \
        return ct__inplace(CT__OP_##name, t, NULL, NULL, NULL);              \
    }
#define CT__FORM_FN2(name)                                                           \
    ct_tensor *ct_##name(const ct_tensor *a, const ct_tensor *b)                     \
    {                                                                                \
        CT__ARG(a, "input", 1);                                                      \
        CT__ARG(b, "other", 2);                                                      \
        return ct__new(CT__OP_##name, a, b, NULL, NULL);                     \
    }
#define CT__FORM_FN2_(name)                                                          \
    ct_result ct_##name##_(ct_tensor *a, const ct_tensor *b)                         \
    {                                                                                \
        CT__ARG_R(a, "input", 1);                                                    \
        CT__ARG_R(b, "other", 2);                                                    \
        return ct__inplace(CT__OP_##name, a, b, NULL, NULL);                 \
    }
#define CT__FORM_FN2_SCALAR(name)                                                    \
    ct_tensor *ct_##name##_scalar(const ct_tensor *a, ct_scalar b)                   \
    {                                                                                \
        ct__stack_scalar ss;                                                         \
        CT__ARG(a, "input", 1);                                                      \
        return ct__new(CT__OP_##name, a, ct__stack_scalar_init(&ss, b), NULL, NULL); \
    }
#define CT__FORM_FN2_SCALAR_(name)                                                   \
    ct_result ct_##name##_scalar_(ct_tensor *a, ct_scalar b)                         \
    {                                                                                \
        ct__stack_scalar ss;                                                         \
        CT__ARG_R(a, "input", 1);                                                    \
        return ct__inplace(CT__OP_##name, a, ct__stack_scalar_init(&ss, b), NULL, NULL); \
    }
#define CT__FORMS_H(name)
#define CT__FORMS_U(name) CT__FORM_FN(name)
#define CT__FORMS_UI(name) CT__FORM_FN(name) CT__FORM_FN_(name)
#define CT__FORMS_B(name) CT__FORM_FN2(name)
#define CT__FORMS_BI(name) CT__FORM_FN2(name) CT__FORM_FN2_(name)
#define CT__FORMS_BSI(name) CT__FORM_FN2(name) CT__FORM_FN2_(name) CT__FORM_FN2_SCALAR(name) CT__FORM_FN2_SCALAR_(name)
#define CT__DEFINE_FORMS(name, arity, rule, forms, kernel) CT__FORMS_##forms(name)
CT__POINTWISE_OPS(CT__DEFINE_FORMS)
#undef CT__DEFINE_FORMS

/* ---------------------------------------------------------------- arithmetic with options */

/* add and sub with alpha: x + alpha * y */
static ct_result ct__alpha_op(ct__op op, ct_tensor **out, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    const ct_tensor *in[3] = {a, b, NULL};
    ct__op_args args = ct__args();
    args.value = alpha;
    args.has_value = true;
    return ct__pointwise(op, out, in, &args);
}

ct_tensor *ct_add_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    ct_tensor *out = NULL;
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    return ct__alpha_op(CT__OP_add, &out, a, b, alpha) == CT_OK ? out : NULL;
}

ct_result ct_add_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    return ct__alpha_op(CT__OP_add, &a, a, b, alpha);
}

ct_tensor *ct_sub_alpha(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    ct_tensor *out = NULL;
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    return ct__alpha_op(CT__OP_sub, &out, a, b, alpha) == CT_OK ? out : NULL;
}

ct_result ct_sub_alpha_(ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    return ct__alpha_op(CT__OP_sub, &a, a, b, alpha);
}

ct_tensor *ct_rsub(const ct_tensor *a, const ct_tensor *b)
{
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    return ct__new(CT__OP_sub, b, a, NULL, NULL);
}

ct_tensor *ct_rsub_scalar(const ct_tensor *t, ct_scalar s)
{
    ct__stack_scalar ss;
    CT__ARG(t, "input", 1);
    return ct__new(CT__OP_sub, ct__stack_scalar_init(&ss, s), t, NULL, NULL);
}

ct_tensor *ct_rdiv_scalar(const ct_tensor *t, ct_scalar s)
{
    CT__ARG(t, "input", 1);
    ct_scope scope = ct_scope_begin();
    ct_tensor *r = ct_mul_scalar(ct_reciprocal(t), s);
    if (r) ct_keep(r);
    ct_scope_end(scope);
    return r;
}

ct_tensor *ct_rpow_scalar(const ct_tensor *t, ct_scalar s)
{
    ct__stack_scalar ss;
    CT__ARG(t, "input", 1);
    return ct__new(CT__OP_pow, ct__stack_scalar_init(&ss, s), t, NULL, NULL);
}

/* div with a rounding mode; a bad mode fails as PyTorch does for a bad string. */
static ct_result ct__div_mode(ct_tensor **out, const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode)
{
    static const char *const kernels[3] = {NULL, "div_trunc_cpu", "div_floor_cpu"};
    const ct_tensor *in[3] = {a, b, NULL};
    if ((unsigned)mode > CT_ROUNDING_FLOOR)
        return ct__fail(CT_ERR_RUNTIME, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found %d",
                        (int)mode);
    ct__op_args args = ct__args();
    args.mode = (int)mode;
    args.kernel = kernels[mode];
    return ct__pointwise(CT__OP_div, out, in, &args);
}

ct_tensor *ct_div_mode(const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode)
{
    ct_tensor *out = NULL;
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    return ct__div_mode(&out, a, b, mode) == CT_OK ? out : NULL;
}

ct_tensor *ct_div_mode_scalar(const ct_tensor *a, ct_scalar b, ct_rounding_mode mode)
{
    ct_tensor *out = NULL;
    ct__stack_scalar ss;
    CT__ARG(a, "input", 1);
    return ct__div_mode(&out, a, ct__stack_scalar_init(&ss, b), mode) == CT_OK ? out : NULL;
}

ct_result ct_div_mode_(ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    return ct__div_mode(&a, a, b, mode);
}

ct_result ct_div_mode_scalar_(ct_tensor *a, ct_scalar b, ct_rounding_mode mode)
{
    ct__stack_scalar ss;
    CT__ARG_R(a, "input", 1);
    return ct__div_mode(&a, a, ct__stack_scalar_init(&ss, b), mode);
}

ct_tensor *ct_floor_divide(const ct_tensor *a, const ct_tensor *b)
{
    ct_tensor *out = NULL;
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    return ct__div_mode(&out, a, b, CT_ROUNDING_FLOOR) == CT_OK ? out : NULL;
}

ct_tensor *ct_floor_divide_scalar(const ct_tensor *a, ct_scalar b)
{
    ct_tensor *out = NULL;
    ct__stack_scalar ss;
    CT__ARG(a, "input", 1);
    return ct__div_mode(&out, a, ct__stack_scalar_init(&ss, b), CT_ROUNDING_FLOOR) == CT_OK ? out : NULL;
}

ct_result ct_floor_divide_(ct_tensor *a, const ct_tensor *b)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    return ct__div_mode(&a, a, b, CT_ROUNDING_FLOOR);
}

ct_result ct_floor_divide_scalar_(ct_tensor *a, ct_scalar b)
{
    ct__stack_scalar ss;
    CT__ARG_R(a, "input", 1);
    return ct__div_mode(&a, a, ct__stack_scalar_init(&ss, b), CT_ROUNDING_FLOOR);
}

/* addcmul and addcdiv: t + value * t1 (*, /) t2 */
static ct_result ct__addc(ct__op op, ct_tensor **out, const ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2,
                          ct_scalar value)
{
    const ct_tensor *in[3] = {t, t1, t2};
    ct__op_args args = ct__args();
    args.value = value;
    args.has_value = true;
    args.opmath = true;
    return ct__pointwise(op, out, in, &args);
}

ct_tensor *ct_addcmul(const ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    CT__ARG(t1, "tensor1", 2);
    CT__ARG(t2, "tensor2", 3);
    return ct__addc(CT__OP_addcmul, &out, t, t1, t2, value) == CT_OK ? out : NULL;
}

ct_result ct_addcmul_(ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(t1, "tensor1", 2);
    CT__ARG_R(t2, "tensor2", 3);
    return ct__addc(CT__OP_addcmul, &t, t, t1, t2, value);
}

ct_tensor *ct_addcdiv(const ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    CT__ARG(t1, "tensor1", 2);
    CT__ARG(t2, "tensor2", 3);
    return ct__addc(CT__OP_addcdiv, &out, t, t1, t2, value) == CT_OK ? out : NULL;
}

ct_result ct_addcdiv_(ct_tensor *t, const ct_tensor *t1, const ct_tensor *t2, ct_scalar value)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(t1, "tensor1", 2);
    CT__ARG_R(t2, "tensor2", 3);
    return ct__addc(CT__OP_addcdiv, &t, t, t1, t2, value);
}

ct_tensor *ct_lerp(const ct_tensor *start, const ct_tensor *end, const ct_tensor *weight)
{
    CT__ARG(start, "input", 1);
    CT__ARG(end, "end", 2);
    CT__ARG(weight, "weight", 3);
    return ct__new(CT__OP_lerp, start, end, weight, NULL);
}

ct_result ct_lerp_(ct_tensor *start, const ct_tensor *end, const ct_tensor *weight)
{
    CT__ARG_R(start, "input", 1);
    CT__ARG_R(end, "end", 2);
    CT__ARG_R(weight, "weight", 3);
    return ct__inplace(CT__OP_lerp, start, end, weight, NULL);
}

/* lerp's number weight reaches the kernel as value (mode 1), converted with
 * an overflow check to the compute dtype, or to float for float16 and
 * bfloat16 (PyTorch's opmath); the weight operand is then only a placeholder. */
static ct__op_args ct__lerp_scalar_args(ct_scalar weight)
{
    ct__op_args args = ct__args();
    args.value = weight;
    args.has_value = true;
    args.opmath = true;
    args.mode = 1;
    args.kernel = "lerp_kernel_scalar";
    return args;
}

ct_tensor *ct_lerp_scalar(const ct_tensor *start, const ct_tensor *end, ct_scalar weight)
{
    ct__stack_scalar ss;
    CT__ARG(start, "input", 1);
    CT__ARG(end, "end", 2);
    ct__op_args args = ct__lerp_scalar_args(weight);
    return ct__new(CT__OP_lerp, start, end, ct__stack_scalar_init(&ss, weight), &args);
}

ct_result ct_lerp_scalar_(ct_tensor *start, const ct_tensor *end, ct_scalar weight)
{
    ct__stack_scalar ss;
    CT__ARG_R(start, "input", 1);
    CT__ARG_R(end, "end", 2);
    ct__op_args args = ct__lerp_scalar_args(weight);
    return ct__inplace(CT__OP_lerp, start, end, ct__stack_scalar_init(&ss, weight), &args);
}

/* ---------------------------------------------------------------- clamps */

ct_tensor *ct_clamp(const ct_tensor *t, const ct_tensor *min, const ct_tensor *max)
{
    CT__ARG(t, "input", 1);
    CT__ARG(min, "min", 2);
    CT__ARG(max, "max", 3);
    return ct__new(CT__OP_clamp, t, min, max, NULL);
}

ct_result ct_clamp_(ct_tensor *t, const ct_tensor *min, const ct_tensor *max)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(min, "min", 2);
    CT__ARG_R(max, "max", 3);
    return ct__inplace(CT__OP_clamp, t, min, max, NULL);
}

/* The clamps with number bounds: the bounds join type promotion as numbers
 * and convert with an overflow check. One bound runs maximum or minimum, two
 * the clamp kernel; a NaN bound makes NaN in all three, as in PyTorch. */
static ct_result ct__clamp_numbers(ct_tensor **out, const ct_tensor *t, const ct_scalar *min, const ct_scalar *max)
{
    ct__stack_scalar s1, s2;
    const ct_tensor *in[3] = {t, min ? ct__stack_scalar_init(&s1, *min) : NULL, max ? ct__stack_scalar_init(&s2, *max) : NULL};
    ct__op_args args = ct__args();
    args.checked = true;
    args.scalar_clamp = true;
    if (min && max) {
        args.kernel = "clamp_scalar_cpu";
        return ct__pointwise(CT__OP_clamp, out, in, &args);
    }
    args.kernel = min ? "clamp_min_cpu" : "clamp_max_scalar_cpu";
    if (!min) in[1] = in[2];
    return ct__pointwise(min ? CT__OP_maximum : CT__OP_minimum, out, in, &args);
}

ct_tensor *ct_clamp_scalar(const ct_tensor *t, ct_scalar min, ct_scalar max)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__clamp_numbers(&out, t, &min, &max) == CT_OK ? out : NULL;
}

ct_result ct_clamp_scalar_(ct_tensor *t, ct_scalar min, ct_scalar max)
{
    CT__ARG_R(t, "input", 1);
    return ct__clamp_numbers(&t, t, &min, &max);
}

ct_tensor *ct_clamp_min(const ct_tensor *t, const ct_tensor *min)
{
    CT__ARG(t, "input", 1);
    CT__ARG(min, "min", 2);
    return ct__new(CT__OP_maximum, t, min, NULL, NULL);
}

ct_result ct_clamp_min_(ct_tensor *t, const ct_tensor *min)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(min, "min", 2);
    return ct__inplace(CT__OP_maximum, t, min, NULL, NULL);
}

ct_tensor *ct_clamp_min_scalar(const ct_tensor *t, ct_scalar min)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__clamp_numbers(&out, t, &min, NULL) == CT_OK ? out : NULL;
}

ct_result ct_clamp_min_scalar_(ct_tensor *t, ct_scalar min)
{
    CT__ARG_R(t, "input", 1);
    return ct__clamp_numbers(&t, t, &min, NULL);
}

ct_tensor *ct_clamp_max(const ct_tensor *t, const ct_tensor *max)
{
    CT__ARG(t, "input", 1);
    CT__ARG(max, "max", 2);
    return ct__new(CT__OP_minimum, t, max, NULL, NULL);
}

ct_result ct_clamp_max_(ct_tensor *t, const ct_tensor *max)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(max, "max", 2);
    return ct__inplace(CT__OP_minimum, t, max, NULL, NULL);
}

ct_tensor *ct_clamp_max_scalar(const ct_tensor *t, ct_scalar max)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__clamp_numbers(&out, t, NULL, &max) == CT_OK ? out : NULL;
}

ct_result ct_clamp_max_scalar_(ct_tensor *t, ct_scalar max)
{
    CT__ARG_R(t, "input", 1);
    return ct__clamp_numbers(&t, t, NULL, &max);
}

/* hardtanh is clamp; integer tensors take the bounds truncated to integers
 * so that they do not promote (PyTorch's legacy rule). */
static ct_result ct__hardtanh(ct_tensor **out, const ct_tensor *t, double min_val, double max_val)
{
    ct_scalar lo = ct_float(min_val), hi = ct_float(max_val);
    if (t->dtype == CT_BOOL) return ct__fail(CT_ERR_RUNTIME, "Bool inputs not supported for hardtanh");
    if (ct__is_integral(t->dtype)) {
        uint64_t l, h;
        if (ct__scalar_to_elem(lo, CT_I64, &l) != CT_OK || ct__scalar_to_elem(hi, CT_I64, &h) != CT_OK)
            return ct_last_error_code();
        lo = ct_int((int64_t)l);
        hi = ct_int((int64_t)h);
        if (t->dtype == CT_U8 && (lo.v.i < 0 || hi.v.i < 0))
            return ct__fail(CT_ERR_RUNTIME, "cannot do hardtanh on an unsigned type with negative limits");
    }
    return ct__clamp_numbers(out, t, &lo, &hi);
}

ct_tensor *ct_hardtanh(const ct_tensor *t, double min_val, double max_val)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__hardtanh(&out, t, min_val, max_val) == CT_OK ? out : NULL;
}

ct_result ct_hardtanh_(ct_tensor *t, double min_val, double max_val)
{
    CT__ARG_R(t, "input", 1);
    return ct__hardtanh(&t, t, min_val, max_val);
}

ct_tensor *ct_relu6(const ct_tensor *t)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__hardtanh(&out, t, 0, 6) == CT_OK ? out : NULL;
}

ct_result ct_relu6_(ct_tensor *t)
{
    CT__ARG_R(t, "input", 1);
    return ct__hardtanh(&t, t, 0, 6);
}

/* ---------------------------------------------------------------- unary ops with parameters */

/* A unary op with parameters, new (self NULL) or in place. */
static ct_result ct__unary_params(ct__op op, ct_tensor **out, const ct_tensor *t, ct__op_args args)
{
    const ct_tensor *in[3] = {t, NULL, NULL};
    return ct__pointwise(op, out, in, &args);
}

static ct_tensor *ct__unary_new(ct__op op, const ct_tensor *t, ct__op_args args)
{
    ct_tensor *out = NULL;
    return ct__unary_params(op, &out, t, args) == CT_OK ? out : NULL;
}

static ct__op_args ct__round_args(int64_t decimals)
{
    ct__op_args a = ct__args();
    a.mode = decimals > 0 ? 1 : decimals < 0 ? 2 : 3;
    a.p[0] = pow(10.0, fabs((double)decimals));
    a.kernel = decimals ? "round_cpu" : NULL;
    return a;
}

ct_tensor *ct_round_decimals(const ct_tensor *t, int64_t decimals)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_round, t, ct__round_args(decimals));
}

ct_result ct_round_decimals_(ct_tensor *t, int64_t decimals)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_round, &t, t, ct__round_args(decimals));
}

ct_tensor *ct_round(const ct_tensor *t)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_round, t, ct__args());
}

ct_result ct_round_(ct_tensor *t)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_round, &t, t, ct__args());
}

/* One number parameter in p[0]. */
static ct__op_args ct__p1(double v)
{
    ct__op_args a = ct__args();
    a.p[0] = v;
    return a;
}

/* PyTorch passes logit's eps=None to its kernel as -1: negative means no clamp. */
ct_tensor *ct_logit(const ct_tensor *t)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_logit, t, ct__p1(-1.0));
}

ct_result ct_logit_(ct_tensor *t)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_logit, &t, t, ct__p1(-1.0));
}

ct_tensor *ct_logit_eps(const ct_tensor *t, double eps)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_logit, t, ct__p1(eps));
}

ct_result ct_logit_eps_(ct_tensor *t, double eps)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_logit, &t, t, ct__p1(eps));
}

ct_tensor *ct_leaky_relu(const ct_tensor *t, double negative_slope)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_leaky_relu, t, ct__p1(negative_slope));
}

ct_result ct_leaky_relu_(ct_tensor *t, double negative_slope)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_leaky_relu, &t, t, ct__p1(negative_slope));
}

ct_elu_opts ct_elu_opts_init(void)
{
    ct_elu_opts o;
    o.alpha = o.scale = o.input_scale = 1.0;
    return o;
}

static ct__op_args ct__elu_args(double alpha, double scale, double input_scale)
{
    ct__op_args a = ct__args();
    a.p[0] = alpha;
    a.p[1] = scale;
    a.p[2] = input_scale;
    return a;
}

ct_tensor *ct_elu(const ct_tensor *t, ct_elu_opts o)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_elu, t, ct__elu_args(o.alpha, o.scale, o.input_scale));
}

ct_result ct_elu_(ct_tensor *t, ct_elu_opts o)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_elu, &t, t, ct__elu_args(o.alpha, o.scale, o.input_scale));
}

/* SELU's constants (Klambauer et al.), as PyTorch spells them. */
#define CT__SELU_ALPHA 1.6732632423543772848170429916717
#define CT__SELU_SCALE 1.0507009873554804934193349852946

ct_tensor *ct_selu(const ct_tensor *t)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_elu, t, ct__elu_args(CT__SELU_ALPHA, CT__SELU_SCALE, 1.0));
}

ct_result ct_selu_(ct_tensor *t)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_elu, &t, t, ct__elu_args(CT__SELU_ALPHA, CT__SELU_SCALE, 1.0));
}

static ct_result ct__celu(ct_tensor **out, const ct_tensor *t, double alpha)
{
    if (alpha == 0) return ct__fail(CT_ERR_RUNTIME, "ZeroDivisionError: alpha cannot be 0 for CELU");
    return ct__unary_params(CT__OP_elu, out, t, ct__elu_args(alpha, 1.0, 1.0 / alpha));
}

ct_tensor *ct_celu(const ct_tensor *t, double alpha)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__celu(&out, t, alpha) == CT_OK ? out : NULL;
}

ct_result ct_celu_(ct_tensor *t, double alpha)
{
    CT__ARG_R(t, "input", 1);
    return ct__celu(&t, t, alpha);
}

ct_tensor *ct_gelu(const ct_tensor *t, ct_gelu_approximate approximate)
{
    CT__ARG(t, "input", 1);
    if ((unsigned)approximate > CT_GELU_TANH) {
        ct__fail(CT_ERR_RUNTIME, "approximate argument must be either none or tanh.");
        return NULL;
    }
    ct__op_args a = ct__args();
    a.mode = (int)approximate;
    /* PyTorch computes the exact form of a contiguous bfloat16 tensor in float,
     * of any other with bfloat16 roundings (mode 2) */
    if (approximate == CT_GELU_NONE && t->dtype == CT_BF16 && !ct_is_contiguous(t)) a.mode = 2;
    return ct__unary_new(CT__OP_gelu, t, a);
}

ct_softplus_opts ct_softplus_opts_init(void)
{
    ct_softplus_opts o;
    o.beta = 1.0;
    o.threshold = 20.0;
    return o;
}

ct_tensor *ct_softplus(const ct_tensor *t, ct_softplus_opts o)
{
    CT__ARG(t, "input", 1);
    ct__op_args a = ct__p1(o.beta);
    a.p[1] = o.threshold;
    return ct__unary_new(CT__OP_softplus, t, a);
}

/* nan_to_num's replacements: the dtype's largest and lowest finite values
 * when posinf and neginf are not given. */
static ct__op_args ct__nan_to_num_args(ct_dtype dt, ct_nan_to_num_opts o)
{
    double big = dt == CT_F16 ? 65504.0 : dt == CT_BF16 ? 3.3895313892515355e38 : dt == CT_F32 ? FLT_MAX : DBL_MAX;
    ct__op_args a = ct__p1(o.nan);
    a.p[1] = o.posinf ? *o.posinf : big;
    a.p[2] = o.neginf ? *o.neginf : -big;
    return a;
}

ct_tensor *ct_nan_to_num(const ct_tensor *t, ct_nan_to_num_opts opts)
{
    CT__ARG(t, "input", 1);
    return ct__unary_new(CT__OP_nan_to_num, t, ct__nan_to_num_args(t->dtype, opts));
}

ct_result ct_nan_to_num_(ct_tensor *t, ct_nan_to_num_opts opts)
{
    CT__ARG_R(t, "input", 1);
    return ct__unary_params(CT__OP_nan_to_num, &t, t, ct__nan_to_num_args(t->dtype, opts));
}

/* ---------------------------------------------------------------- where */

/* where's numbers convert with an overflow check */
static ct_tensor *ct__where(const ct_tensor *c, const ct_tensor *x, const ct_tensor *y)
{
    ct__op_args args = ct__args();
    args.checked = true;
    return ct__new(CT__OP_where, c, x, y, &args);
}

ct_tensor *ct_where(const ct_tensor *condition, const ct_tensor *x, const ct_tensor *y)
{
    CT__ARG(condition, "condition", 1);
    CT__ARG(x, "input", 2);
    CT__ARG(y, "other", 3);
    return ct__new(CT__OP_where, condition, x, y, NULL);
}

ct_tensor *ct_where_scalar_other(const ct_tensor *condition, const ct_tensor *x, ct_scalar y)
{
    ct__stack_scalar ss;
    CT__ARG(condition, "condition", 1);
    CT__ARG(x, "input", 2);
    return ct__where(condition, x, ct__stack_scalar_init(&ss, y));
}

ct_tensor *ct_where_scalar_self(const ct_tensor *condition, ct_scalar x, const ct_tensor *y)
{
    ct__stack_scalar ss;
    CT__ARG(condition, "condition", 1);
    CT__ARG(y, "other", 3);
    return ct__where(condition, ct__stack_scalar_init(&ss, x), y);
}

ct_tensor *ct_where_scalar(const ct_tensor *condition, ct_scalar x, ct_scalar y)
{
    ct__stack_scalar s1, s2;
    CT__ARG(condition, "condition", 1);
    return ct__where(condition, ct__stack_scalar_init(&s1, x), ct__stack_scalar_init(&s2, y));
}

/* ---------------------------------------------------------------- closeness and equality */

ct_isclose_opts ct_isclose_opts_init(void)
{
    ct_isclose_opts o;
    o.rtol = 1e-05;
    o.atol = 1e-08;
    o.equal_nan = false;
    return o;
}

/* PyTorch's isclose, op for op, so that the float rounding is the same:
 * a == b, or both NaN, or |a - b| finite and <= atol + |rtol * b|, with
 * integers and bool compared in the default float dtype. */
static ct_tensor *ct__isclose(const ct_tensor *a, const ct_tensor *b, ct_isclose_opts o)
{
    ct_tensor *close = ct_eq(a, b);
    if (close && o.equal_nan && ct_dtype_is_floating(a->dtype) &&
        ct_logical_or_(close, ct_logical_and(ct_isnan(a), ct_isnan(b))) != CT_OK)
        return NULL;
    if (!close || (o.rtol == 0 && o.atol == 0)) return close;
    const ct_tensor *ca = ct_dtype_is_floating(a->dtype) ? a : ct_to(a, ct__default_dtype);
    const ct_tensor *cb = ct_dtype_is_floating(b->dtype) ? b : ct_to(b, ct__default_dtype);
    ct_tensor *allowed = ct_add_scalar(ct_abs(ct_mul_scalar(cb, ct_float(o.rtol))), ct_float(o.atol));
    ct_tensor *actual = ct_abs(ct_sub(ca, cb));
    ct_tensor *within = ct_logical_and(ct_isfinite(actual), ct_le(actual, allowed));
    return ct_logical_or_(close, within) == CT_OK ? close : NULL;
}

ct_tensor *ct_isclose(const ct_tensor *a, const ct_tensor *b, ct_isclose_opts opts)
{
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    if (a->dtype != b->dtype) {
        ct__fail(CT_ERR_RUNTIME, "%s did not match %s", ct__dtype_title(a->dtype), ct__dtype_title(b->dtype));
        return NULL;
    }
    if (opts.rtol < 0 || opts.atol < 0) {
        ct__fail(CT_ERR_RUNTIME, "%s must be greater than or equal to zero, but got %g", opts.rtol < 0 ? "rtol" : "atol",
                 opts.rtol < 0 ? opts.rtol : opts.atol);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct__isclose(a, b, opts);
    if (r) ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* Whether every element of a bool tensor is true (false when t is NULL). */
static bool ct__all_true(const ct_tensor *t)
{
    const ct_tensor *c = t ? ct_contiguous(t) : NULL;
    return c && (ct_numel(c) == 0 || !memchr(ct__data(c), 0, (size_t)ct_numel(c)));
}

bool ct_allclose(const ct_tensor *a, const ct_tensor *b, ct_isclose_opts opts)
{
    if (!a || !b) return (ct__null_arg(__func__, a ? "other" : "input", a ? 2 : 1), false);
    ct_scope s = ct_scope_begin();
    bool r = ct__all_true(ct_isclose(a, b, opts));
    ct_scope_end(s);
    return r;
}

bool ct_equal(const ct_tensor *a, const ct_tensor *b)
{
    if (!a || !b) return (ct__null_arg(__func__, a ? "other" : "input", a ? 2 : 1), false);
    if (a->ndim != b->ndim || memcmp(a->sizes, b->sizes, (size_t)a->ndim * sizeof(int64_t))) return false;
    ct_scope s = ct_scope_begin();
    bool r = ct__all_true(ct_eq(a, b));
    ct_scope_end(s);
    return r;
}

int ct_op_count(void) { return CT__NUM_OPS; }
const char *ct_op_name(int i) { return i >= 0 && i < CT__NUM_OPS ? ct__op_names[i] : NULL; }

/* ==================== ops/reduce.c ==================== */
// >>ops/reduce.c

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
 * dtype are generated from those definitions.
 *
 * float16 and bfloat16 load to float, compute in float and round once when
 * stored, which is what PyTorch's per-element `float(a) op float(b)` gives. A
 * few ops of PyTorch 1.13 round intermediates to the narrow type in their
 * per-element kernels (rsqrt, logit, add with alpha...); those loops use an h
 * flavour instead, float with the same roundings (args->compute names the
 * narrow type). (PyTorch's vectorised bfloat16 loops, on contiguous runs of 32
 * or more, round once instead; ctorch follows the per-element kernels, which
 * small and strided tensors get.) */

/* At -O2, GCC's cost model vectorises only loops whose trip count is a
 * multiple of the vector width; these kernels need the dynamic model (the one
 * of -O3). (GCC also keeps a branch whose other side could raise a floating
 * point exception flag, so the ops compute both sides, as leaky_relu does.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

/* Per dtype: storage type (KT), flavour (KF), load to the flavour (KL) and
 * store from it (KS). f16 and bf16 have h twins (f16h, bf16h) for the ops
 * with float16/bfloat16 roundings. */
#define CT__KT_b8 uint8_t
#define CT__KT_u8 uint8_t
#define CT__KT_i8 int8_t
#define CT__KT_i16 int16_t
#define CT__KT_i32 int32_t
#define CT__KT_i64 int64_t
#define CT__KT_f32 float
#define CT__KT_f64 double
#define CT__KT_f16 uint16_t
#define CT__KT_bf16 uint16_t
#define CT__KT_f16h uint16_t
#define CT__KT_bf16h uint16_t
#define CT__KF_b8 i
#define CT__KF_u8 i
#define CT__KF_i8 i
#define CT__KF_i16 i
#define CT__KF_i32 i
#define CT__KF_i64 i
#define CT__KF_f32 f
#define CT__KF_f64 d
#define CT__KF_f16 f
#define CT__KF_bf16 f
#define CT__KF_f16h h
#define CT__KF_bf16h h
#define CT__KL_b8(v) ((int64_t)(v))
#define CT__KL_u8(v) ((int64_t)(v))
#define CT__KL_i8(v) ((int64_t)(v))
#define CT__KL_i16(v) ((int64_t)(v))
#define CT__KL_i32(v) ((int64_t)(v))
#define CT__KL_i64(v) (v)
#define CT__KL_f32(v) (v)
#define CT__KL_f64(v) (v)
#define CT__KL_f16(v) ct__f16_to_float(v)
#define CT__KL_bf16(v) ct__bf16_to_float(v)
#define CT__KL_f16h(v) ct__f16_to_float(v)
#define CT__KL_bf16h(v) ct__bf16_to_float(v)
#define CT__KS_b8(v) ((uint8_t)((v) != 0))
#define CT__KS_u8(v) ((uint8_t)(uint64_t)(v))
#define CT__KS_i8(v) ((int8_t)(uint8_t)(uint64_t)(v))
#define CT__KS_i16(v) ((int16_t)(uint16_t)(uint64_t)(v))
#define CT__KS_i32(v) ((int32_t)(uint32_t)(uint64_t)(v))
#define CT__KS_i64(v) ((int64_t)(v))
#define CT__KS_f32(v) (v)
#define CT__KS_f64(v) (v)
#define CT__KS_f16(v) ct__float_to_f16(v)
#define CT__KS_bf16(v) ct__float_to_bf16(v)
#define CT__KS_f16h(v) ct__float_to_f16(v)
#define CT__KS_bf16h(v) ct__float_to_bf16(v)
typedef float ct__flavour_f;
typedef float ct__flavour_h;
typedef double ct__flavour_d;
typedef int64_t ct__flavour_i;

/* The dtype groups an op supports. */
/* The dtype groups an op supports; h is empty, or h for the ops whose float16
 * and bfloat16 loops run the h flavour. */
#define CT__KD_INTS(X, op, h) X(op, u8) X(op, i8) X(op, i16) X(op, i32) X(op, i64)
#define CT__KD_FLOATS(X, op, h) X(op, f32) X(op, f64) X(op, f16##h) X(op, bf16##h)
#define CT__KD_NUMERIC(X, op, h) CT__KD_INTS(X, op, h) CT__KD_FLOATS(X, op, h)
#define CT__KD_ALL(X, op, h) X(op, b8) CT__KD_NUMERIC(X, op, h)
#define CT__KD_INTS_BOOL(X, op, h) X(op, b8) CT__KD_INTS(X, op, h)

/* x rounded to the narrow type PyTorch computes in (float16, bfloat16). */
static inline float ct__narrow(float x, ct_dtype compute)
{
    if (compute == CT_BF16) return ct__bf16_to_float(ct__float_to_bf16(x));
    if (compute == CT_F16) return ct__f16_to_float(ct__float_to_f16(x));
    return x;
}
/* In h flavours: N rounds as the input type; NB only for bfloat16, in ops
 * that PyTorch 1.13 has no float16 kernel for (float16 computes in float). */
#define CT__N(x) ct__narrow((x), a->compute)
#define CT__NB(x) (a->compute == CT_BF16 ? ct__narrow((x), CT_BF16) : (x))

/* fma(a, b, c), rounded once as PyTorch's compiled kernels have it. Without
 * FMA instructions, float's a * b is exact in double and the sum rounds once
 * there; rounding that to float is right unless the double lies exactly
 * halfway between two floats or below float's normal range, which the C
 * library's fmaf settles. Double has no wider type: the C library's fma. */
static inline float ct__fmaf(float a, float b, float c)
{
#ifdef __FMA__
    return fmaf(a, b, c);
#else
    double s = (double)a * b + c;
    uint64_t bits;
    memcpy(&bits, &s, sizeof bits);
    if (CT__UNLIKELY((bits & 0x1fffffffu) == 0x10000000u || fabs(s) < FLT_MIN)) return fmaf(a, b, c);
    return (float)s;
#endif
}
static inline double ct__fma(double a, double b, double c) { return fma(a, b, c); }

/* The libm function fn for a flavour: F(exp) is expf for float, exp for double. */
#define CT__LIBM_f(fn) fn##f
#define CT__LIBM_d(fn) fn

/* Ops whose floating formula is written once: a macro CT__GEN_<name>(fl, T, F)
 * defines the flavour fl with type T and libm suffix F; this instantiates both. */
#define CT__FLOATING(name) CT__GEN_##name(f, float, CT__LIBM_f) CT__GEN_##name(d, double, CT__LIBM_d)

/* ---------------------------------------------------------------- unary ops */

/* out = fn(x): the int64 flavour, one floating flavour, or both with a libm function. */
#define CT__UNARY_I(name, ei) static inline int64_t ct__##name##_i(int64_t x, const ct__op_args *a) { (void)a; return ei; }
#define CT__UNARY_FL(name, fl, T, e) static inline T ct__##name##_##fl(T x, const ct__op_args *a) { (void)a; return e; }
#define CT__UNARY_LIBM(name, fn) CT__UNARY_FL(name, f, float, fn##f(x)) CT__UNARY_FL(name, d, double, fn(x))

CT__UNARY_I(neg, (int64_t)(0 - (uint64_t)x))
CT__UNARY_FL(neg, f, float, -x)
CT__UNARY_FL(neg, d, double, -x)
CT__UNARY_I(abs, x < 0 ? (int64_t)(0 - (uint64_t)x) : x)
CT__UNARY_LIBM(abs, fabs)
CT__UNARY_FL(reciprocal, f, float, 1.0f / x)
CT__UNARY_FL(reciprocal, d, double, 1.0 / x)
/* NaN and -0 give +0, as PyTorch's (0 < x) - (x < 0) does */
CT__UNARY_I(sign, (x > 0) - (x < 0))
CT__UNARY_FL(sign, f, float, (float)((0 < x) - (x < 0)))
CT__UNARY_FL(sign, d, double, (double)((0 < x) - (x < 0)))
CT__UNARY_I(floor, x)
CT__UNARY_LIBM(floor, floor)
CT__UNARY_I(ceil, x)
CT__UNARY_LIBM(ceil, ceil)
CT__UNARY_I(trunc, x)
CT__UNARY_LIBM(trunc, trunc)
CT__UNARY_FL(frac, f, float, x - truncf(x))
CT__UNARY_FL(frac, d, double, x - trunc(x))
CT__UNARY_LIBM(exp, exp)
CT__UNARY_LIBM(exp2, exp2)
CT__UNARY_LIBM(expm1, expm1)
CT__UNARY_LIBM(log, log)
CT__UNARY_LIBM(log2, log2)
CT__UNARY_LIBM(log10, log10)
CT__UNARY_LIBM(log1p, log1p)
CT__UNARY_LIBM(sqrt, sqrt)
CT__UNARY_FL(rsqrt, f, float, 1.0f / sqrtf(x))
CT__UNARY_FL(rsqrt, d, double, 1.0 / sqrt(x))
CT__UNARY_LIBM(sin, sin)
CT__UNARY_LIBM(cos, cos)
CT__UNARY_LIBM(tan, tan)
CT__UNARY_LIBM(asin, asin)
CT__UNARY_LIBM(acos, acos)
CT__UNARY_LIBM(atan, atan)
CT__UNARY_LIBM(sinh, sinh)
CT__UNARY_LIBM(cosh, cosh)
CT__UNARY_LIBM(tanh, tanh)
CT__UNARY_LIBM(asinh, asinh)
CT__UNARY_LIBM(acosh, acosh)
CT__UNARY_LIBM(atanh, atanh)
CT__UNARY_LIBM(erf, erf)
CT__UNARY_LIBM(erfc, erfc)
/* (the C library's lgamma also stores the sign in the global signgam, which
 * OpenMP threads then write at once, as PyTorch's do; the values are unaffected) */
CT__UNARY_LIBM(lgamma, lgamma)
CT__UNARY_FL(sigmoid, f, float, 1.0f / (1.0f + expf(-x)))
CT__UNARY_FL(sigmoid, d, double, 1.0 / (1.0 + exp(-x)))
CT__UNARY_I(isnan, x != x)
CT__UNARY_FL(isnan, f, float, x != x)
CT__UNARY_FL(isnan, d, double, x != x)
CT__UNARY_I(isinf, x != x)
CT__UNARY_FL(isinf, f, float, isinf(x))
CT__UNARY_FL(isinf, d, double, isinf(x))
CT__UNARY_I(isfinite, x == x)
CT__UNARY_FL(isfinite, f, float, isfinite(x))
CT__UNARY_FL(isfinite, d, double, isfinite(x))
CT__UNARY_I(logical_not, x == 0)
CT__UNARY_FL(logical_not, f, float, x == 0)
CT__UNARY_FL(logical_not, d, double, x == 0)
/* bool's ~ is logical not */
CT__UNARY_I(bitwise_not, a->compute == CT_BOOL ? !x : ~x)
CT__UNARY_I(relu, x > 0 ? x : 0)
CT__UNARY_FL(relu, f, float, x > 0 ? x : (x != x ? x : 0.0f))
CT__UNARY_FL(relu, d, double, x > 0 ? x : (x != x ? x : 0.0))
CT__UNARY_I(nan_to_num, x)

/* round: half to even; with decimals, by 10^|decimals| (p[0]) in the input
 * precision, multiplying first for positive decimals and dividing first for
 * negative ones, as PyTorch does. */
CT__UNARY_I(round, x)
#define CT__GEN_round(fl, T, F)                                                           \
    static inline T ct__round_##fl(T x, const ct__op_args *a)                             \
    {                                                                                     \
        T p = (T)a->p[0];                                                                 \
        if (a->mode == 1) return F(nearbyint)(x * p) / p;                                 \
        if (a->mode == 2) return F(nearbyint)(x / p) * p;                                 \
        return F(nearbyint)(x);                                                           \
    }
CT__FLOATING(round)

/* nan_to_num: NaN, +inf and -inf replaced by p[0], p[1], p[2] */
#define CT__GEN_nan_to_num(fl, T, F)                                                      \
    static inline T ct__nan_to_num_##fl(T x, const ct__op_args *a)                        \
    {                                                                                     \
        return x != x ? (T)a->p[0] : x == (T)INFINITY ? (T)a->p[1] : x == -(T)INFINITY ? (T)a->p[2] : x; \
    }
CT__FLOATING(nan_to_num)

/* logit: log(x / (1 - x)), x clamped to [eps, 1 - eps] first unless eps (p[0]) < 0 */
#define CT__GEN_logit(fl, T, F)                                                           \
    static inline T ct__logit_##fl(T x, const ct__op_args *a)                             \
    {                                                                                     \
        T eps = (T)a->p[0];                                                               \
        if (eps >= 0) x = x < eps ? eps : x > 1 - eps ? 1 - eps : x;                      \
        return x == 1 ? (T)INFINITY : F(log)(x / (1 - x));                                \
    }
CT__FLOATING(logit)

/* erfinv as PyTorch computes it, in the input precision: the rational
 * approximations of Pavlis' MATLAB erfinv (1996) for |y| <= 0.7 and beyond,
 * each refined by two Newton steps on erf(x) = y. */
#define CT__GEN_erfinv(fl, T, F)                                                          \
    static inline T ct__erfinv_##fl(T y, const ct__op_args *args)                         \
    {                                                                                     \
        static const T a[4] = {(T)0.886226899, (T)-1.645349621, (T)0.914624893, (T)-0.140543331}; \
        static const T b[4] = {(T)-2.118377725, (T)1.442710462, (T)-0.329097515, (T)0.012229801}; \
        static const T c[4] = {(T)-1.970840454, (T)-1.624906493, (T)3.429567803, (T)1.641345311}; \
        static const T d[2] = {(T)3.543889200, (T)1.637067800};                          \
        const T two_over_sqrt_pi = (T)2 / (T)1.77245385090551602730;                      \
        T ay = F(fabs)(y), x, z, num, den;                                                \
        (void)args;                                                                       \
        if (ay > 1) return (T)NAN;                                                        \
        if (ay == 1) return F(copysign)((T)INFINITY, y);                                  \
        if (ay <= (T)0.7) {                                                               \
            z = y * y;                                                                    \
            num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];                              \
            den = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1;                    \
            x = y * num / den;                                                            \
        } else {                                                                          \
            z = F(sqrt)(-F(log)((1 - ay) / 2));                                           \
            num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];                              \
            den = (d[1] * z + d[0]) * z + 1;                                              \
            x = F(copysign)(num, y) / den;                                                \
        }                                                                                 \
        for (int step = 0; step < 2; step++)                                              \
            x = x - (F(erf)(x) - y) / (two_over_sqrt_pi * F(exp)(-x * x));                \
        return x;                                                                         \
    }
CT__FLOATING(erfinv)

/* digamma in the input precision, as PyTorch computes it: poles at 0 (signed
 * infinity) and at negative integers (NaN), the reflection formula (through
 * double) below 0, the recurrence psi(x) = psi(x + 1) - 1/x up to 10, then
 * the asymptotic series log x - 1/2x - sum B2k / (2k x^2k), k = 1..7. */
#define CT__GEN_digamma(fl, T, F)                                                         \
    static T ct__digamma_##fl(T x, const ct__op_args *args)                               \
    {                                                                                     \
        static const T bern[7] = {(T)(1.0 / 12), (T)(-691.0 / 32760), (T)(1.0 / 132),     \
                                  (T)(-1.0 / 240), (T)(1.0 / 252), (T)(-1.0 / 120), (T)(1.0 / 12)}; \
        const double pi = 3.14159265358979323846;                                         \
        T result = 0;                                                                     \
        if (x == 0) return F(copysign)((T)INFINITY, -x);                                  \
        if (x < 0) {                                                                      \
            if (x == F(trunc)(x)) return (T)NAN;                                          \
            double whole, r = modf((double)x, &whole);                                    \
            return ct__digamma_##fl(1 - x, args) - (T)(pi / tan(pi * r));                \
        }                                                                                 \
        for (; x < 10; x += 1) result -= 1 / x;                                           \
        if (x == 10) return result + (T)2.25175258906672110764; /* psi(10) = H(9) - gamma */ \
        T y = 0;                                                                          \
        if (x < (T)1e17) {                                                                \
            T z = 1 / (x * x), p = 0;                                                     \
            for (int k = 0; k < 7; k++) p = p * z + bern[k];                              \
            y = z * p;                                                                    \
        }                                                                                 \
        return result + F(log)(x) - (T)0.5 / x - y;                                       \
    }
CT__FLOATING(digamma)

/* ---------------------------------------------------------------- activations */

/* leaky_relu: x above 0, else x * slope (p[0], in float as PyTorch has it);
 * a multiply either way, so that the loop vectorises */
CT__UNARY_FL(leaky_relu, f, float, x * (x > 0 ? 1.0f : (float)a->p[0]))
CT__UNARY_FL(leaky_relu, d, double, x * (x > 0 ? 1.0 : a->p[0]))

/* elu: scale * x above 0, else alpha * scale * (exp(x * input_scale) - 1) */
#define CT__GEN_elu(fl, T, F)                                                             \
    static inline T ct__elu_##fl(T x, const ct__op_args *a)                               \
    {                                                                                     \
        T neg = (T)a->p[0] * (T)a->p[1], pos = (T)a->p[1], in = (T)a->p[2];               \
        return x <= 0 ? (F(exp)(x * in) - 1) * neg : x * pos;                             \
    }
CT__FLOATING(elu)

/* gelu: x * Phi(x) exactly (mode 0) or with the tanh approximation (mode 1) */
#define CT__GEN_gelu(fl, T, F)                                                            \
    static inline T ct__gelu_##fl(T x, const ct__op_args *a)                              \
    {                                                                                     \
        if (a->mode == 1) {                                                               \
            const T beta = (T)(1.41421356237309504880 * 1.12837916709551257390 * 0.5), kappa = (T)0.044715; \
            T inner = beta * (x + kappa * (x * x * x));                                   \
            return (T)0.5 * x * (1 + F(tanh)(inner));                                     \
        }                                                                                 \
        return x * (T)0.5 * (1 + F(erf)(x * (T)0.70710678118654752440));                  \
    }
CT__FLOATING(gelu)

CT__UNARY_FL(silu, f, float, x / (1.0f + expf(-x)))
CT__UNARY_FL(silu, d, double, x / (1.0 + exp(-x)))
CT__UNARY_FL(mish, f, float, x * tanhf(log1pf(expf(x))))
CT__UNARY_FL(mish, d, double, x * tanh(log1p(exp(x))))

/* softplus: log1p(exp(x * beta)) / beta, or x where x * beta > threshold */
#define CT__GEN_softplus(fl, T, F)                                                        \
    static inline T ct__softplus_##fl(T x, const ct__op_args *a)                          \
    {                                                                                     \
        T beta = (T)a->p[0], threshold = (T)a->p[1];                                      \
        return x * beta > threshold ? x : F(log1p)(F(exp)(x * beta)) / beta;              \
    }
CT__FLOATING(softplus)

/* hardsigmoid: min(max(x + 3, 0), 6) / 6, hardswish: x times that, with
 * std::max and std::min, which let NaN through */
#define CT__GEN_hardsigmoid(fl, T, F)                                                     \
    static inline T ct__relu6_of_##fl(T v) { v = v < 0 ? 0 : v; return 6 < v ? 6 : v; }   \
    static inline T ct__hardsigmoid_##fl(T x, const ct__op_args *a) { (void)a; return ct__relu6_of_##fl(x + 3) / 6; } \
    static inline T ct__hardswish_##fl(T x, const ct__op_args *a) { (void)a; return x * ct__relu6_of_##fl(x + 3) / 6; }
CT__FLOATING(hardsigmoid)


/* ---------------------------------------------------------------- float16/bfloat16 roundings (h flavours) */

CT__UNARY_FL(rsqrt, h, float, 1.0f / CT__NB(sqrtf(x)))
static inline float ct__round_h(float x, const ct__op_args *a)
{
    float p = CT__NB((float)a->p[0]);
    if (a->mode == 1) return nearbyintf(CT__NB(x * p)) / p;
    if (a->mode == 2) return nearbyintf(CT__NB(x / p)) * p;
    return nearbyintf(x);
}
static inline float ct__logit_h(float x, const ct__op_args *a)
{
    float eps = CT__NB((float)a->p[0]), hi = CT__NB(1 - eps);
    if (eps >= 0) x = x < eps ? eps : x > hi ? hi : x;
    return x == 1 ? INFINITY : logf(CT__NB(x / CT__NB(1 - x)));
}
/* the tanh form (mode 1), and the exact form of a strided tensor (mode 2) */
static inline float ct__gelu_h(float x, const ct__op_args *a)
{
    if (a->mode == 0) return ct__gelu_f(x, a);
    if (a->mode == 2) return CT__NB(x * 0.5f) * CT__NB(1 + CT__NB(erff(CT__NB(x * CT__NB(0.70710678118654752440f)))));
    const float beta = CT__NB((float)(1.41421356237309504880 * 1.12837916709551257390 * 0.5));
    const float kappa = CT__NB(0.044715f);
    float inner = CT__NB(beta * CT__NB(x + CT__NB(kappa * CT__NB(CT__NB(x * x) * x))));
    return CT__NB(0.5f * x) * CT__NB(1 + CT__NB(tanhf(inner)));
}
CT__UNARY_FL(silu, h, float, x / CT__NB(1.0f + CT__NB(expf(-x))))

/* ---------------------------------------------------------------- binary ops */

/* out = fn(x, y): the int64 flavour, one floating flavour, or both from one expression. */
#define CT__BINARY_I(name, ei) \
    static inline int64_t ct__##name##_i(int64_t x, int64_t y, const ct__op_args *a) { (void)a; return ei; }
#define CT__BINARY_FL(name, fl, T, e) \
    static inline T ct__##name##_##fl(T x, T y, const ct__op_args *a) { (void)a; return e; }
#define CT__BINARY_FD(name, e) CT__BINARY_FL(name, f, float, e) CT__BINARY_FL(name, d, double, e)
#define CT__BINARY_ALL(name, e) CT__BINARY_I(name, e) CT__BINARY_FD(name, e)

/* add and sub; with an alpha other than 1 (x + alpha * y) they run the
 * add_alpha and sub_alpha loops, so that the plain loops vectorise. PyTorch's
 * kernels fuse the multiply-add. */
CT__BINARY_ALL(add, x + y)
CT__BINARY_I(sub, (int64_t)((uint64_t)x - (uint64_t)y))
CT__BINARY_FD(sub, x - y)
CT__BINARY_I(add_alpha, (int64_t)((uint64_t)x + (uint64_t)a->alpha_i * (uint64_t)y))
CT__BINARY_FL(add_alpha, f, float, ct__fmaf(y, (float)a->alpha, x))
CT__BINARY_FL(add_alpha, d, double, ct__fma(y, a->alpha, x))
CT__BINARY_I(sub_alpha, (int64_t)((uint64_t)x - (uint64_t)a->alpha_i * (uint64_t)y))
CT__BINARY_FL(sub_alpha, f, float, ct__fmaf(y, -(float)a->alpha, x))
CT__BINARY_FL(sub_alpha, d, double, ct__fma(y, -a->alpha, x))
CT__BINARY_I(mul, (int64_t)((uint64_t)x * (uint64_t)y))
CT__BINARY_FD(mul, x * y)

/* Integer division (the front end has refused zero divisors); the most
 * negative int64 over -1 wraps instead of trapping. */
static inline int64_t ct__idiv(int64_t x, int64_t y) { return y == -1 ? (int64_t)(0 - (uint64_t)x) : x / y; }
static inline int64_t ct__imod(int64_t x, int64_t y) { return y == -1 ? 0 : x % y; }

/* div: true division, or rounded toward zero or minus infinity (mode) */
static inline int64_t ct__div_i(int64_t x, int64_t y, const ct__op_args *a)
{
    int64_t q = ct__idiv(x, y);
    if (a->mode == CT_ROUNDING_FLOOR && (x < 0) != (y < 0) && ct__imod(x, y) != 0) q -= 1;
    return q;
}
/* floor division as Python defines it: from fmod, so that the quotient is
 * the one whose remainder has the divisor's sign, then rounded to the
 * nearest integer (PyTorch's div_floor_floating) */
#define CT__GEN_div(fl, T, F)                                                             \
    static inline T ct__div_floor_##fl(T x, T y)                                          \
    {                                                                                     \
        if (y == 0) return x / y;                                                         \
        T mod = F(fmod)(x, y), div = (x - mod) / y;                                       \
        if (mod != 0 && (y < 0) != (mod < 0)) div -= 1;                                   \
        if (div == 0) return F(copysign)(0, x / y);                                       \
        T floordiv = F(floor)(div);                                                       \
        return div - floordiv > (T)0.5 ? floordiv + 1 : floordiv;                         \
    }                                                                                     \
    static inline T ct__div_##fl(T x, T y, const ct__op_args *a)                          \
    {                                                                                     \
        if (a->mode == CT_ROUNDING_TRUNC) return F(trunc)(x / y);                         \
        return a->mode == CT_ROUNDING_FLOOR ? ct__div_floor_##fl(x, y) : x / y;           \
    }
CT__FLOATING(div)

/* remainder has the divisor's sign (Python's %), fmod the dividend's (C's) */
static inline int64_t ct__remainder_i(int64_t x, int64_t y, const ct__op_args *a)
{
    int64_t r = ct__imod(x, y);
    (void)a;
    return r != 0 && (r < 0) != (y < 0) ? r + y : r;
}
#define CT__GEN_remainder(fl, T, F)                                                       \
    static inline T ct__remainder_##fl(T x, T y, const ct__op_args *a)                    \
    {                                                                                     \
        T r = F(fmod)(x, y);                                                              \
        (void)a;                                                                          \
        return r != 0 && (y < 0) != (r < 0) ? r + y : r;                                  \
    }
CT__FLOATING(remainder)
CT__BINARY_I(fmod, ct__imod(x, y))
CT__BINARY_FL(fmod, f, float, fmodf(x, y))
CT__BINARY_FL(fmod, d, double, fmod(x, y))

/* With a number exponent PyTorch takes products for 2, 3 and -2, and (except
 * for float16) sqrt, rsqrt and reciprocal for 0.5, -0.5 and -1, which round
 * (and treat -0 and -inf) differently from pow. */
#define CT__GEN_pow(fl, T, F)                                                             \
    static inline T ct__pow_##fl(T x, T y, const ct__op_args *a)                          \
    {                                                                                     \
        if (a->number_other) {                                                            \
            if (y == (T)0.5 && a->compute != CT_F16) return F(sqrt)(x);                   \
            if (y == (T)-0.5 && a->compute != CT_F16) return 1 / F(sqrt)(x);              \
            if (y == -1 && a->compute != CT_F16) return 1 / x;                            \
            if (y == 2) return x * x;                                                     \
            if (y == 3) return x * x * x;                                                 \
            if (y == -2) return 1 / (x * x);                                              \
        }                                                                                 \
        return F(pow)(x, y);                                                              \
    }
CT__FLOATING(pow)

/* Integer power by squaring, wrapping as PyTorch's does (negative exponents
 * are refused by the front end for numbers; tensors give 1, -1 or 0). */
static inline int64_t ct__pow_i(int64_t x, int64_t y, const ct__op_args *a)
{
    (void)a;
    if (y < 0) return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
    uint64_t r = 1, b = (uint64_t)x;
    for (uint64_t e = (uint64_t)y; e; e >>= 1, b *= b)
        if (e & 1) r *= b;
    return (int64_t)r;
}

/* maximum and minimum propagate NaN; otherwise std::max and std::min (the
 * first argument on ties) */
CT__BINARY_I(maximum, x < y ? y : x)
CT__BINARY_FD(maximum, (x != x || y != y) ? NAN : (x < y ? y : x))
CT__BINARY_I(minimum, y < x ? y : x)
CT__BINARY_FD(minimum, (x != x || y != y) ? NAN : (y < x ? y : x))
CT__BINARY_I(fmax, x < y ? y : x)
CT__BINARY_FL(fmax, f, float, fmaxf(x, y))
CT__BINARY_FL(fmax, d, double, fmax(x, y))
CT__BINARY_I(fmin, y < x ? y : x)
CT__BINARY_FL(fmin, f, float, fminf(x, y))
CT__BINARY_FL(fmin, d, double, fmin(x, y))
CT__BINARY_FL(copysign, f, float, copysignf(x, y))
CT__BINARY_FL(copysign, d, double, copysign(x, y))
CT__BINARY_FL(hypot, f, float, hypotf(x, y))
CT__BINARY_FL(hypot, d, double, hypot(x, y))
CT__BINARY_FL(atan2, f, float, atan2f(x, y))
CT__BINARY_FL(atan2, d, double, atan2(x, y))
/* xlogy: NaN where y is NaN, else 0 where x is 0 */
CT__BINARY_FL(xlogy, f, float, y != y ? NAN : x == 0 ? 0.0f : x * logf(y))
CT__BINARY_FL(xlogy, d, double, y != y ? NAN : x == 0 ? 0.0 : x * log(y))

/* Comparisons and logic: one expression for all three flavours. */
CT__BINARY_ALL(eq, x == y)
CT__BINARY_ALL(ne, x != y)
CT__BINARY_ALL(lt, x < y)
CT__BINARY_ALL(le, x <= y)
CT__BINARY_ALL(gt, x > y)
CT__BINARY_ALL(ge, x >= y)
CT__BINARY_ALL(logical_and, x != 0 && y != 0)
CT__BINARY_ALL(logical_or, x != 0 || y != 0)
CT__BINARY_ALL(logical_xor, (x != 0) != (y != 0))
CT__BINARY_I(bitwise_and, x & y)
CT__BINARY_I(bitwise_or, x | y)
CT__BINARY_I(bitwise_xor, x ^ y)

/* Shifts as PyTorch's compile on x86: types narrower than int64 shift as
 * 32-bit ints, and the count is taken modulo the width (32 or 64). */
static inline int64_t ct__bitwise_left_shift_i(int64_t x, int64_t y, const ct__op_args *a)
{
    if (a->compute == CT_I64) return (int64_t)((uint64_t)x << (y & 63));
    return (int32_t)((uint32_t)x << (y & 31));
}
static inline int64_t ct__bitwise_right_shift_i(int64_t x, int64_t y, const ct__op_args *a)
{
    if (a->compute == CT_I64) return x >> (y & 63);
    return (int32_t)x >> (y & 31);
}

/* h flavours: alpha * y, a quotient before trunc, and xlogy's log round to the narrow type */
CT__BINARY_FL(add_alpha, h, float, x + CT__N((float)a->alpha * y))
CT__BINARY_FL(sub_alpha, h, float, x - CT__N((float)a->alpha * y))
static inline float ct__div_h(float x, float y, const ct__op_args *a)
{
    return a->mode == CT_ROUNDING_TRUNC ? truncf(CT__N(x / y)) : ct__div_f(x, y, a);
}
CT__BINARY_FL(xlogy, h, float, y != y ? NAN : x == 0 ? 0.0f : x * CT__NB(logf(y)))

/* ---------------------------------------------------------------- ternary ops */

/* out = fn(x, y, z): the int64 flavour (the floating ones are CT__GEN_ macros) */
#define CT__TERNARY_I(name, ei) \
    static inline int64_t ct__##name##_i(int64_t x, int64_t y, int64_t z, const ct__op_args *a) { (void)a; return ei; }

/* addcmul: x + value * y * z, its last multiply-add fused as PyTorch's
 * compiled kernels have it; addcdiv: x + value * y / z */
CT__TERNARY_I(addcmul, (int64_t)((uint64_t)x + (uint64_t)a->alpha_i * (uint64_t)y * (uint64_t)z))
#define CT__GEN_addc(fl, T, F)                                                                          \
    static inline T ct__addcmul_##fl(T x, T y, T z, const ct__op_args *a) { return F(ct__fma)((T)a->alpha * y, z, x); } \
    static inline T ct__addcdiv_##fl(T x, T y, T z, const ct__op_args *a) { return x + (T)a->alpha * y / z; }
CT__FLOATING(addc)
/* lerp from x to y by z, from the start below weight 0.5 and from the end
 * above, each a fused multiply-add as PyTorch's compiled kernel has them */
#define CT__GEN_lerp(fl, T, F)                                                                          \
    static inline T ct__lerp_##fl(T x, T y, T z, const ct__op_args *a)                                  \
    {                                                                                                   \
        T d = y - x, w = a->mode ? (T)a->alpha : z;                                                      \
        return w < (T)0.5 ? F(ct__fma)(w, d, x) : F(ct__fma)(-d, 1 - w, y);                             \
    }
CT__FLOATING(lerp)
/* clamp: std::min(std::max(x, lo), hi), NaN where a bound is NaN (written
 * as selects that pass a NaN bound on, so that the loops vectorise) */
CT__TERNARY_I(clamp, (x < y ? y : x) > z ? z : (x < y ? y : x))
#define CT__GEN_clamp(fl, T, F)                                                                         \
    static inline T ct__clamp_##fl(T x, T y, T z, const ct__op_args *a)                                 \
    {                                                                                                   \
        T m = x < y || y != y ? y : x;                                                                  \
        (void)a;                                                                                        \
        return z < m || z != z ? z : m;                                                                 \
    }
CT__FLOATING(clamp)

/* ---------------------------------------------------------------- loops */

/* The flavour function of op `name` for dtype dt, and the flavour's type. */
#define CT__KFN(name, dt) CT__CAT(ct__##name##_, CT__KF_##dt)
#define CT__KFT(dt) CT__CAT(ct__flavour_, CT__KF_##dt)

/* out[k] = fn(x[k]); the contiguous case is a plain loop the compiler
 * vectorises. OT and STORE are the output's type and store. */
#define CT__UNARY_LOOP_AS(name, dt, OT, STORE)                                                   \
    static void ct__k_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        const ct__op_args args_ = *(const ct__op_args *)ctx, *a = &args_; /* not aliased: hoistable */ \
        if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T)) {                         \
            OT *CT__RESTRICT o = (OT *)d[0];                                                     \
            const T *CT__RESTRICT x = (const T *)d[1];                                           \
            for (int64_t k = 0; k < n; k++) o[k] = STORE(CT__KFN(name, dt)(CT__KL_##dt(x[k]), a)); \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                *(OT *)(d[0] + k * s[0]) = STORE(CT__KFN(name, dt)(CT__KL_##dt(*(const T *)(d[1] + k * s[1])), a)); \
        }                                                                                        \
    }
#define CT__UNARY_LOOP(name, dt) CT__UNARY_LOOP_AS(name, dt, CT__KT_##dt, CT__KS_##dt)
#define CT__UNARY_BOOL_LOOP(name, dt) CT__UNARY_LOOP_AS(name, dt, uint8_t, CT__KS_b8)

/* out[k] = fn(x[k], y[k]), with fast paths for contiguous operands and for a
 * broadcast number y. */
#define CT__BINARY_LOOP_AS(name, dt, OT, STORE)                                                  \
    static void ct__k_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        typedef CT__KFT(dt) F;                                                                   \
        const ct__op_args args_ = *(const ct__op_args *)ctx, *a = &args_; /* not aliased: hoistable */ \
        OT *CT__RESTRICT o = (OT *)d[0];                                                         \
        const T *CT__RESTRICT x = (const T *)d[1], *CT__RESTRICT y = (const T *)d[2];            \
        bool dense = s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T);                  \
        if (dense && s[2] == (int64_t)sizeof(T)) {                                               \
            for (int64_t k = 0; k < n; k++) o[k] = STORE(CT__KFN(name, dt)(CT__KL_##dt(x[k]), CT__KL_##dt(y[k]), a)); \
        } else if (dense && s[2] == 0) {                                                         \
            const F y0 = CT__KL_##dt(y[0]);                                                      \
            for (int64_t k = 0; k < n; k++) o[k] = STORE(CT__KFN(name, dt)(CT__KL_##dt(x[k]), y0, a)); \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                *(OT *)(d[0] + k * s[0]) = STORE(CT__KFN(name, dt)(                              \
                    CT__KL_##dt(*(const T *)(d[1] + k * s[1])), CT__KL_##dt(*(const T *)(d[2] + k * s[2])), a)); \
        }                                                                                        \
    }
#define CT__BINARY_LOOP(name, dt) CT__BINARY_LOOP_AS(name, dt, CT__KT_##dt, CT__KS_##dt)
#define CT__BINARY_BOOL_LOOP(name, dt) CT__BINARY_LOOP_AS(name, dt, uint8_t, CT__KS_b8)

/* out[k] = fn(x[k], y[k], z[k]), with fast paths for contiguous operands and
 * for broadcast numbers z (lerp's weight) or y and z (clamp's bounds). */
#define CT__TERNARY_LOOP(name, dt)                                                               \
    static void ct__k_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        typedef CT__KFT(dt) F;                                                                   \
        const ct__op_args args_ = *(const ct__op_args *)ctx, *a = &args_; /* not aliased: hoistable */ \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        T *CT__RESTRICT o = (T *)d[0];                                                           \
        const T *CT__RESTRICT x = (const T *)d[1], *CT__RESTRICT y = (const T *)d[2];            \
        const T *CT__RESTRICT z = (const T *)d[3];                                               \
        bool dense = s[0] == es && s[1] == es;                                                   \
        if (dense && s[2] == es && s[3] == es) {                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                o[k] = CT__KS_##dt(CT__KFN(name, dt)(CT__KL_##dt(x[k]), CT__KL_##dt(y[k]), CT__KL_##dt(z[k]), a)); \
        } else if (dense && s[2] == es && s[3] == 0) {                                           \
            const F z0 = CT__KL_##dt(z[0]);                                                      \
            for (int64_t k = 0; k < n; k++)                                                      \
                o[k] = CT__KS_##dt(CT__KFN(name, dt)(CT__KL_##dt(x[k]), CT__KL_##dt(y[k]), z0, a)); \
        } else if (dense && s[2] == 0 && s[3] == 0) {                                            \
            const F y0 = CT__KL_##dt(y[0]), z0 = CT__KL_##dt(z[0]);                              \
            for (int64_t k = 0; k < n; k++) o[k] = CT__KS_##dt(CT__KFN(name, dt)(CT__KL_##dt(x[k]), y0, z0, a)); \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                *(T *)(d[0] + k * s[0]) = CT__KS_##dt(CT__KFN(name, dt)(CT__KL_##dt(*(const T *)(d[1] + k * s[1])), \
                    CT__KL_##dt(*(const T *)(d[2] + k * s[2])), CT__KL_##dt(*(const T *)(d[3] + k * s[3])), a)); \
        }                                                                                        \
    }

/* where: out[k] = c[k] ? x[k] : y[k], c bool (or uint8), copied bit for bit */
#define CT__WHERE_LOOP(name, dt)                                                                 \
    static void ct__k_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        (void)ctx;                                                                               \
        if (s[0] == es && s[1] == 1 && s[2] == es && s[3] == es) {                               \
            T *CT__RESTRICT o = (T *)d[0];                                                       \
            const uint8_t *CT__RESTRICT c = (const uint8_t *)d[1];                               \
            const T *CT__RESTRICT x = (const T *)d[2], *CT__RESTRICT y = (const T *)d[3];        \
            for (int64_t k = 0; k < n; k++) {                                                    \
                T xk = x[k], yk = y[k]; /* both loaded, so that the select vectorises */         \
                o[k] = c[k] ? xk : yk;                                                           \
            }                                                                                    \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                *(T *)(d[0] + k * s[0]) = *(const uint8_t *)(d[1] + k * s[1]) ? *(const T *)(d[2] + k * s[2]) \
                                                                               : *(const T *)(d[3] + k * s[3]); \
        }                                                                                        \
    }

/* Which loops exist: X(name, kind of loop, dtype group), and HX(...) for the
 * ops that also have an h flavour for float16 and bfloat16. */
#define CT__CPU_KERNELS(X, HX)                                                                   \
    X(neg, UNARY, NUMERIC) X(abs, UNARY, NUMERIC) X(reciprocal, UNARY, FLOATS) X(sign, UNARY, ALL) \
    HX(round, UNARY, NUMERIC) X(floor, UNARY, NUMERIC) X(ceil, UNARY, NUMERIC) X(trunc, UNARY, NUMERIC) \
    X(frac, UNARY, FLOATS) X(exp, UNARY, FLOATS) X(exp2, UNARY, FLOATS) X(expm1, UNARY, FLOATS)    \
    X(log, UNARY, FLOATS) X(log2, UNARY, FLOATS) X(log10, UNARY, FLOATS) X(log1p, UNARY, FLOATS)   \
    X(sqrt, UNARY, FLOATS) HX(rsqrt, UNARY, FLOATS) X(sin, UNARY, FLOATS) X(cos, UNARY, FLOATS)    \
    X(tan, UNARY, FLOATS) X(asin, UNARY, FLOATS) X(acos, UNARY, FLOATS) X(atan, UNARY, FLOATS)     \
    X(sinh, UNARY, FLOATS) X(cosh, UNARY, FLOATS) X(tanh, UNARY, FLOATS) X(asinh, UNARY, FLOATS)   \
    X(acosh, UNARY, FLOATS) X(atanh, UNARY, FLOATS) X(erf, UNARY, FLOATS) X(erfc, UNARY, FLOATS)   \
    X(erfinv, UNARY, FLOATS) X(lgamma, UNARY, FLOATS) X(digamma, UNARY, FLOATS)                    \
    X(sigmoid, UNARY, FLOATS) HX(logit, UNARY, FLOATS) X(relu, UNARY, NUMERIC)                     \
    X(leaky_relu, UNARY, FLOATS) X(elu, UNARY, FLOATS) HX(gelu, UNARY, FLOATS) HX(silu, UNARY, FLOATS) \
    X(mish, UNARY, FLOATS) X(softplus, UNARY, FLOATS) X(hardsigmoid, UNARY, FLOATS)                \
    X(hardswish, UNARY, FLOATS) X(isnan, UNARY_BOOL, ALL) X(isinf, UNARY_BOOL, ALL)                \
    X(isfinite, UNARY_BOOL, ALL) X(logical_not, UNARY_BOOL, ALL) X(bitwise_not, UNARY, INTS_BOOL)  \
    X(nan_to_num, UNARY, ALL)                                                                      \
    X(add, BINARY, ALL) X(sub, BINARY, NUMERIC) X(mul, BINARY, ALL) HX(div, BINARY, NUMERIC)       \
    X(remainder, BINARY, NUMERIC) X(fmod, BINARY, NUMERIC) X(pow, BINARY, NUMERIC)                 \
    X(maximum, BINARY, ALL) X(minimum, BINARY, ALL) X(fmax, BINARY, ALL) X(fmin, BINARY, ALL)      \
    X(copysign, BINARY, FLOATS) X(hypot, BINARY, FLOATS) X(atan2, BINARY, FLOATS)                  \
    HX(xlogy, BINARY, FLOATS) X(eq, BINARY_BOOL, ALL) X(ne, BINARY_BOOL, ALL)                      \
    X(lt, BINARY_BOOL, ALL) X(le, BINARY_BOOL, ALL) X(gt, BINARY_BOOL, ALL) X(ge, BINARY_BOOL, ALL) \
    X(logical_and, BINARY_BOOL, ALL) X(logical_or, BINARY_BOOL, ALL) X(logical_xor, BINARY_BOOL, ALL) \
    X(bitwise_and, BINARY, INTS_BOOL) X(bitwise_or, BINARY, INTS_BOOL) X(bitwise_xor, BINARY, INTS_BOOL) \
    X(bitwise_left_shift, BINARY, INTS) X(bitwise_right_shift, BINARY, INTS)                       \
    X(addcmul, TERNARY, NUMERIC) X(addcdiv, TERNARY, FLOATS) X(lerp, TERNARY, FLOATS)              \
    X(clamp, TERNARY, NUMERIC) X(where, WHERE, ALL)

#define CT__DEFINE_LOOPS(name, kind, group) CT__KD_##group(CT__##kind##_LOOP, name, )
#define CT__DEFINE_LOOPS_H(name, kind, group) CT__KD_##group(CT__##kind##_LOOP, name, h)
CT__CPU_KERNELS(CT__DEFINE_LOOPS, CT__DEFINE_LOOPS_H)
CT__DEFINE_LOOPS_H(add_alpha, BINARY, ALL)
CT__DEFINE_LOOPS_H(sub_alpha, BINARY, NUMERIC)
#undef CT__DEFINE_LOOPS_H
#undef CT__DEFINE_LOOPS

#define CT__DT_b8 CT_BOOL
#define CT__DT_u8 CT_U8
#define CT__DT_i8 CT_I8
#define CT__DT_i16 CT_I16
#define CT__DT_i32 CT_I32
#define CT__DT_i64 CT_I64
#define CT__DT_f32 CT_F32
#define CT__DT_f64 CT_F64
#define CT__DT_f16 CT_F16
#define CT__DT_bf16 CT_BF16
#define CT__DT_f16h CT_F16
#define CT__DT_bf16h CT_BF16
#define CT__KCASE(name, dt) case CT__DT_##dt: return ct__k_##name##_##dt;

/* The CPU loop of op for operands of dtype dt, or NULL when there is none. */
static ct__loop_fn ct__cpu_pointwise_loop(ct__op op, ct_dtype dt)
{
    switch (op) {
#define CT__KCASES(name, kind, group) \
    case CT__OP_##name: switch (dt) { CT__KD_##group(CT__KCASE, name, ) default: return NULL; }
#define CT__KCASES_H(name, kind, group) \
    case CT__OP_##name: switch (dt) { CT__KD_##group(CT__KCASE, name, h) default: return NULL; }
        CT__CPU_KERNELS(CT__KCASES, CT__KCASES_H)
#undef CT__KCASES_H
#undef CT__KCASES
    default: return NULL;
    }
}

/* The add_alpha or sub_alpha loop for dtype dt. */
static ct__loop_fn ct__cpu_alpha_loop(ct__op op, ct_dtype dt)
{
    if (op == CT__OP_add) switch (dt) { CT__KD_ALL(CT__KCASE, add_alpha, h) default: break; }
    else switch (dt) { CT__KD_NUMERIC(CT__KCASE, sub_alpha, h) default: break; }
    return NULL;
}

static void ct__cpu_pointwise(ct__op op, ct_tensor *out, const ct_tensor *const *inputs, const ct__op_args *args)
{
    int n = ct__ops[op].arity;
    const ct_tensor *ops[4] = {out, inputs[0], n > 1 ? inputs[1] : NULL, n > 2 ? inputs[2] : NULL};
    /* the last input has the data dtype (where's first is its condition) */
    ct_dtype dt = inputs[n - 1]->dtype;
    bool alpha = args->alpha != 1 || args->alpha_i != 1;
    ct__loop_fn fn = (op == CT__OP_add || op == CT__OP_sub) && alpha ? ct__cpu_alpha_loop(op, dt)
                                                                      : ct__cpu_pointwise_loop(op, dt);
    ct__iter it;
    ct__iter_init(&it, 1 + n, ops);
    ct__iter_parallel(&it, fn, (void *)args);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* ==================== cpu/reduce.c ==================== */
// >>cpu/reduce.c

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
                                            ct__cpu_has_pointwise, ct__cpu_pointwise};
static const ct__backend *ct__backends[CT_NUM_DEVICE_TYPES] = {&ct__cpu_backend, NULL};

static const ct__backend *ct__backend_for(ct_device_type type) { return ct__backends[type]; }

#endif /* CTORCH_IMPLEMENTATION */
