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
/* Generator.get_state / set_state: the whole state as ct_generator_state_size()
 * bytes, laid out as PyTorch's (torch.get_rng_state() bytes load here). */
CTORCH_API size_t ct_generator_state_size(void);
CTORCH_API void ct_generator_get_state(const ct_generator *g, void *state);
CTORCH_API ct_result ct_generator_set_state(ct_generator *g, const void *state, size_t size);

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

/* ==================== autograd/autograd.h ==================== */
// >>autograd/autograd.h
/* Public autograd API: grad mode, gradients of tensors, backward passes,
 * hooks and anomaly detection. */

/* A node of the backward graph (torch.autograd.graph.Node, what grad_fn is). */
typedef struct ct_node ct_node;

/* ---------------------------------------------------------------- grad mode */

/* The mode that ends a region: restore what the function entering it returned. */
typedef struct ct_grad_mode {
    bool enabled;
    bool inference;
} ct_grad_mode;

/* torch.no_grad(), torch.enable_grad(), torch.inference_mode(): enter the
 * region, returning the mode to give back to ct_grad_mode_restore at its end.
 * Modes are per thread. */
CTORCH_API ct_grad_mode ct_no_grad(void);
CTORCH_API ct_grad_mode ct_enable_grad(void);
CTORCH_API ct_grad_mode ct_inference_mode(void);
/* torch.set_grad_enabled(mode): returns the previous mode. */
CTORCH_API ct_grad_mode ct_set_grad_enabled(bool enabled);
CTORCH_API void ct_grad_mode_restore(ct_grad_mode mode);
CTORCH_API bool ct_is_grad_enabled(void);            /* torch.is_grad_enabled */
CTORCH_API bool ct_is_inference_mode_enabled(void);  /* torch.is_inference_mode_enabled */

/* ---------------------------------------------------------------- tensors */

/* Tensor.grad: a new reference, or NULL when there is none (no error). */
CTORCH_API ct_tensor *ct_grad(const ct_tensor *t);
/* t.grad = grad (NULL clears it, as set_to_none does). */
CTORCH_API ct_result ct_set_grad(ct_tensor *t, const ct_tensor *grad);
CTORCH_API bool ct_is_leaf(const ct_tensor *t);                  /* Tensor.is_leaf */
/* Tensor.grad_fn: borrowed (valid while t lives), NULL for leaves. */
CTORCH_API ct_node *ct_grad_fn(const ct_tensor *t);
CTORCH_API const char *ct_node_name(const ct_node *n);           /* grad_fn.name(): "MulBackward0" */
/* grad_fn.next_functions: how many, and the i-th (node, input_nr); NULL node for an input needing no grad. */
CTORCH_API int ct_node_num_next(const ct_node *n);
CTORCH_API ct_node *ct_node_next(const ct_node *n, int i, int *input_nr);
CTORCH_API ct_result ct_retain_grad(ct_tensor *t);               /* Tensor.retain_grad() */
CTORCH_API bool ct_retains_grad(const ct_tensor *t);             /* Tensor.retains_grad */
/* Tensor.detach_(): t leaves the graph in place. */
CTORCH_API ct_result ct_detach_(ct_tensor *t);
/* Tensor.data: a view that shares storage but is outside autograd and does
 * not share the version counter's checks (writes through it go unnoticed). */
CTORCH_API ct_tensor *ct_data(const ct_tensor *t);
/* Tensor._version: bumped by every in-place write. */
CTORCH_API int64_t ct_version(const ct_tensor *t);

/* ---------------------------------------------------------------- backward */

/* Tensor.backward / torch.autograd.backward options. retain_graph keeps the
 * graph for another backward (create_graph implies it, as in PyTorch);
 * create_graph records the backward pass for higher-order gradients; inputs
 * (n_inputs of them) limits accumulation to those tensors. */
typedef struct ct_backward_opts {
    bool retain_graph;
    bool create_graph;
    const ct_tensor *const *inputs;
    int n_inputs;
} ct_backward_opts;

/* Tensor.backward(gradient): gradient may be NULL for a one-element t. Leaves'
 * .grad accumulate. */
CTORCH_API ct_result ct_backward(const ct_tensor *t, const ct_tensor *gradient, ct_backward_opts opts);
/* torch.autograd.backward(tensors, grad_tensors): n roots at once (grad_tensors may be NULL). */
CTORCH_API ct_result ct_autograd_backward(const ct_tensor *const *tensors, const ct_tensor *const *grad_tensors, int n,
                                          ct_backward_opts opts);

typedef struct ct_grad_opts {
    bool retain_graph;
    bool create_graph;
    bool allow_unused;
} ct_grad_opts;

/* torch.autograd.grad(outputs, inputs, grad_outputs): the gradients of the
 * n_outputs outputs with respect to the n_inputs inputs, written to grads
 * (new references; NULL for an unused input when allow_unused). .grad is left
 * untouched. grad_outputs may be NULL (one-element outputs). */
CTORCH_API ct_result ct_autograd_grad(const ct_tensor *const *outputs, int n_outputs, const ct_tensor *const *inputs,
                                      int n_inputs, const ct_tensor *const *grad_outputs, ct_tensor **grads,
                                      ct_grad_opts opts);

/* ---------------------------------------------------------------- hooks */

/* A hook gets the gradient and returns a replacement (a new reference) or
 * NULL to keep it. Registering returns an id for the remove function. */
typedef ct_tensor *(*ct_grad_hook)(ct_tensor *grad, void *user);
/* Tensor.register_hook: runs when t's gradient is computed, before it is used. */
CTORCH_API int ct_register_hook(ct_tensor *t, ct_grad_hook hook, void *user);
CTORCH_API ct_result ct_remove_hook(ct_tensor *t, int id);
/* Tensor.register_post_accumulate_grad_hook: on a leaf, after .grad was
 * updated (the hook gets the leaf; its return value is ignored). */
CTORCH_API int ct_register_post_accumulate_grad_hook(ct_tensor *t, ct_grad_hook hook, void *user);
/* Node.register_prehook / Node.register_hook: a prehook gets each gradient of
 * the node's outputs (and may replace it); a hook gets each gradient the node
 * produced for its inputs (and may replace it). */
CTORCH_API int ct_node_register_prehook(ct_node *n, ct_grad_hook hook, void *user);
CTORCH_API int ct_node_register_hook(ct_node *n, ct_grad_hook hook, void *user);

/* torch.autograd.set_detect_anomaly: a backward that produces NaN fails with
 * the name of the forward op that made the node ("Function 'DivBackward0'
 * returned nan values in its 1th output."). */
CTORCH_API void ct_set_detect_anomaly(bool enabled);
CTORCH_API bool ct_is_anomaly_enabled(void);

/* ---------------------------------------------------------------- checking gradients */

/* A differentiable function for gradcheck: computes outputs from n inputs
 * into out (room for 8) and returns how many, or a negative ct_result on
 * failure. gradcheck calls it with a scope open, which owns the outputs. */
typedef int (*ct_gradcheck_fn)(ct_tensor *const *inputs, int n, ct_tensor **out, void *user);

/* torch.autograd.gradcheck options; start from ct_gradcheck_opts_init()
 * (eps 1e-6, atol 1e-5, rtol 1e-3: PyTorch's defaults). */
typedef struct ct_gradcheck_opts {
    double eps, atol, rtol;
} ct_gradcheck_opts;
CTORCH_API ct_gradcheck_opts ct_gradcheck_opts_init(void);

/* torch.autograd.gradcheck: compares the gradients backward gives for the
 * inputs that require grad (use float64) with central finite differences.
 * CT_OK when every element agrees within atol + rtol * |numerical|; else an
 * error whose message, as PyTorch's, shows both Jacobians ("Jacobian mismatch
 * for output 0 with respect to input 0, ...") and names the worst element. */
CTORCH_API ct_result ct_gradcheck(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, ct_gradcheck_opts opts);
/* torch.autograd.gradgradcheck: the same check on the gradients themselves
 * (computed with create_graph) against random grad_outputs, which checks
 * every backward formula's own backward. */
CTORCH_API ct_result ct_gradgradcheck(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, ct_gradcheck_opts opts);

/* ---------------------------------------------------------------- custom functions */

/* A custom function's ctx (what torch.autograd.Function passes as ctx). */
typedef struct ct_function_ctx ct_function_ctx;

/* torch.autograd.Function. forward computes n_outputs outputs from the
 * inputs, with grad mode off as PyTorch runs it; an output may be an input
 * it wrote in place (mark it dirty). backward gets one gradient per output
 * (zeros for an output that got none) and writes one per input into
 * grad_inputs (NULL: none); it runs with grad mode on under create_graph, so
 * a backward made of ctorch ops is itself differentiable. Tensors both make
 * belong to the scope open around them, as any op's results. */
typedef struct ct_function {
    const char *name; /* the class name: the node is named "<name>Backward" */
    int n_outputs;
    ct_result (*forward)(ct_function_ctx *ctx, ct_tensor *const *inputs, int n_inputs, ct_tensor **outputs);
    ct_result (*backward)(ct_function_ctx *ctx, ct_tensor *const *grad_outputs, ct_tensor **grad_inputs);
    /* @once_differentiable: backward runs unrecorded, and differentiating
     * its results fails with PyTorch's error */
    bool once_differentiable;
} ct_function;

/* Function.apply(*inputs): runs forward and, when grad mode is on and an
 * input requires grad, records one node whose backward is fn->backward.
 * outputs has room for fn->n_outputs; user is passed through (ct_ctx_user). */
CTORCH_API ct_result ct_function_apply(const ct_function *fn, ct_tensor *const *inputs, int n_inputs,
                                       ct_tensor **outputs, void *user);
CTORCH_API void *ct_ctx_user(const ct_function_ctx *ctx);
/* ctx.save_for_backward(*tensors), in forward: inputs or outputs kept for backward. */
CTORCH_API ct_result ct_ctx_save_for_backward(ct_function_ctx *ctx, ct_tensor *const *tensors, int n);
/* ctx.saved_tensors[i], in backward: NULL with PyTorch's error when the
 * tensor was modified in place since, or the graph was freed. */
CTORCH_API ct_tensor *ct_ctx_saved_tensor(ct_function_ctx *ctx, int i);
/* ctx.<attribute> = data: non-tensor state for backward, freed with the graph by free_data (may be NULL). */
CTORCH_API void ct_ctx_set_data(ct_function_ctx *ctx, void *data, void (*free_data)(void *data));
CTORCH_API void *ct_ctx_data(const ct_function_ctx *ctx);
/* ctx.needs_input_grad[i] */
CTORCH_API bool ct_ctx_needs_input_grad(const ct_function_ctx *ctx, int i);
/* ctx.mark_dirty(*tensors): inputs forward modified in place (and returns). */
CTORCH_API ct_result ct_ctx_mark_dirty(ct_function_ctx *ctx, ct_tensor *const *tensors, int n);
/* ctx.mark_non_differentiable(*tensors): outputs that never require grad. */
CTORCH_API ct_result ct_ctx_mark_non_differentiable(ct_function_ctx *ctx, ct_tensor *const *tensors, int n);

/* ---------------------------------------------------------------- checkpointing */

/* A piece of a model to checkpoint: outputs from n inputs (returns how many,
 * at most 8, or a negative ct_result). It may use tensors it does not get as
 * inputs (parameters): their gradients accumulate as usual. */
typedef int (*ct_checkpoint_fn)(ct_tensor *const *inputs, int n, ct_tensor **outputs, void *user);

/* torch.utils.checkpoint.checkpoint(fn, *inputs) (the reentrant form):
 * runs fn without keeping its graph; backward runs it again, with the
 * default generator's state as it was (preserve_rng_state), and goes back
 * through that. n_outputs: how many outputs fn gives (room in outputs); user
 * must stay valid until that backward. Like PyTorch's, it works with
 * backward, not with create_graph. */
CTORCH_API ct_result ct_checkpoint(ct_checkpoint_fn fn, ct_tensor *const *inputs, int n, ct_tensor **outputs,
                                   int n_outputs, void *user);
/* torch.utils.checkpoint.checkpoint_sequential(functions, segments, input):
 * n_fns one-tensor functions run in order (users[i] given to fns[i]), in
 * `segments` checkpointed chunks, the last one run normally. */
CTORCH_API ct_tensor *ct_checkpoint_sequential(const ct_checkpoint_fn *fns, void *const *users, int n_fns, int segments,
                                               const ct_tensor *input);

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
/* torch.polygamma(n, t): the n-th derivative of digamma (n >= 0; n 0 is
 * digamma, 1 trigamma); ct_polygamma_ is Tensor.polygamma_(n). */
CTORCH_API ct_tensor *ct_polygamma(int64_t n, const ct_tensor *t);
CTORCH_API ct_result ct_polygamma_(ct_tensor *t, int64_t n);
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

/* ---------------------------------------------------------------- normalize */

/* torch.nn.functional.normalize(input, p, dim, eps): input divided by its
 * p-norm along dim, the norm taken to be at least eps (PyTorch's defaults:
 * p 2, dim 1, eps 1e-12), so rows of zeros stay zeros. Floating inputs only,
 * with PyTorch's message for others. Float16, which PyTorch 1.13 refuses on
 * the CPU (it has no float16 clamp_min there), works as it does where PyTorch
 * has float16 kernels: eps is rounded to float16, so the default 1e-12
 * becomes 0 and a row of zeros gives NaN (pytorch/pytorch#32137); an eps of
 * at least 6e-8 avoids that. */
CTORCH_API ct_tensor *ct_normalize(const ct_tensor *input, double p, int dim, double eps);

/* ---------------------------------------------------------------- printing */

/* print() of a torch.return_types named tuple: "torch.return_types.<name>(",
 * then "values=" and "indices=" with the tensors' reprs, as PyTorch prints
 * the result of torch.max(x, dim), torch.cummin(x, dim), ... */
CTORCH_API void ct_print_return_types(const char *name, const ct_tensor *values, const ct_tensor *indices);

/* ==================== ops/join.h ==================== */
// >>ops/join.h
/* Public joining, splitting and index-based API: cat, stack, split, chunk,
 * unbind, broadcast_tensors, repeat, tile, repeat_interleave, flip, roll,
 * gather, scatter, index_select, index_add, index_fill, index_copy,
 * masked_fill, masked_select, take, one_hot.
 *
 * Lists of tensors are a C array and a count; the tensors are only read. Ops
 * that give several tensors (split, chunk, unbind) write new references to an
 * array the caller provides and return how many there are, as Python unpacks
 * `a, b, c = torch.split(x, 2)`:
 *
 *     ct_tensor *parts[3];
 *     if (ct_split(x, 2, 0, parts, 3) < 0) ... ct_last_error() says why
 *
 * With out NULL they only count; an array too small for the pieces is an
 * error (ValueError, as Python's unpacking) and nothing is written. Failures
 * return a negative ct_result. The pieces are views of the input, as in PyTorch.
 *
 * Indices are int64 tensors (index_select, index_add and repeat_interleave
 * also take int32, as PyTorch does); an index out of range is an error with
 * PyTorch's message, found before anything is written. Where several indices
 * write the same element, the last one wins (scatter, index_copy) or they
 * accumulate in index order (scatter_add, index_add), as PyTorch's CPU
 * kernels do. Functions are thread safe for different output tensors. */

/* ---------------------------------------------------------------- joining */

/* torch.cat(tensors, dim): the n tensors joined along dim, promoted to their
 * common dtype (torch.result_type). As in PyTorch, 1-D tensors of size 0 are
 * skipped whatever the other shapes, and 4-D (5-D) inputs that are all
 * channels-last give a channels-last result. */
CTORCH_API ct_tensor *ct_cat(ct_tensor *const *tensors, int n, int dim);
/* torch.stack(tensors, dim): the n equal-shaped tensors joined along a new dim. */
CTORCH_API ct_tensor *ct_stack(ct_tensor *const *tensors, int n, int dim);
/* torch.hstack: cat along dim 1 (dim 0 when the first tensor is 1-D), after
 * making 0-d tensors 1-D. */
CTORCH_API ct_tensor *ct_hstack(ct_tensor *const *tensors, int n);
/* torch.vstack: cat along dim 0 after making every tensor at least 2-D. */
CTORCH_API ct_tensor *ct_vstack(ct_tensor *const *tensors, int n);

/* ---------------------------------------------------------------- splitting (views) */

/* torch.split(t, split_size, dim): pieces of split_size along dim (the last
 * one smaller) into out (room for capacity); returns their number. */
CTORCH_API int64_t ct_split(const ct_tensor *t, int64_t split_size, int dim, ct_tensor **out, int64_t capacity);
/* torch.split(t, [sizes], dim), which is torch.split_with_sizes: one piece per
 * size (at most CT_MAX_DIMS of them in a ct_shape). */
CTORCH_API int64_t ct_split_with_sizes(const ct_tensor *t, ct_shape sizes, int dim, ct_tensor **out,
                                       int64_t capacity);
/* torch.chunk(t, chunks, dim): at most `chunks` pieces of equal size (the last
 * smaller); fewer when the size does not allow, as in PyTorch. */
CTORCH_API int64_t ct_chunk(const ct_tensor *t, int64_t chunks, int dim, ct_tensor **out, int64_t capacity);
/* torch.unbind(t, dim): the slices along dim, each without that dim. */
CTORCH_API int64_t ct_unbind(const ct_tensor *t, int dim, ct_tensor **out, int64_t capacity);
/* torch.broadcast_tensors: the n tensors expanded (as views) to their common
 * broadcast shape, into out, which has room for n. */
CTORCH_API ct_result ct_broadcast_tensors(ct_tensor *const *tensors, int n, ct_tensor **out);

/* ---------------------------------------------------------------- repeating, flipping, rolling */

/* Tensor.repeat(repeats): t tiled repeats[i] times along each dim; repeats
 * may have more dims than t (new leading dims). */
CTORCH_API ct_tensor *ct_repeat(const ct_tensor *t, ct_shape repeats);
/* torch.tile(t, dims): repeat, with dims padded by leading 1s to t's rank. */
CTORCH_API ct_tensor *ct_tile(const ct_tensor *t, ct_shape dims);
/* torch.repeat_interleave(t, repeats): every element of the flattened t
 * repeated `repeats` times; the _dim form repeats the slices along dim. */
CTORCH_API ct_tensor *ct_repeat_interleave(const ct_tensor *t, int64_t repeats);
CTORCH_API ct_tensor *ct_repeat_interleave_dim(const ct_tensor *t, int64_t repeats, int dim);
/* torch.repeat_interleave(t, repeats) with a tensor of repeats (int64 or
 * int32; one per element or slice, or a single one for all). */
CTORCH_API ct_tensor *ct_repeat_interleave_tensor(const ct_tensor *t, const ct_tensor *repeats);
CTORCH_API ct_tensor *ct_repeat_interleave_tensor_dim(const ct_tensor *t, const ct_tensor *repeats, int dim);
/* torch.repeat_interleave(repeats): 0, 1, 2, ... each repeated repeats[i]
 * times, in repeats' dtype. */
CTORCH_API ct_tensor *ct_repeat_interleave_index(const ct_tensor *repeats);
/* torch.flip(t, dims): t reversed along the given dims (laid out like t). */
CTORCH_API ct_tensor *ct_flip(const ct_tensor *t, ct_shape dims);
/* torch.roll(t, shifts, dims): elements shifted along each dim, wrapping
 * around; with no dims, along the flattened t (one shift). */
CTORCH_API ct_tensor *ct_roll(const ct_tensor *t, ct_shape shifts, ct_shape dims);

/* ---------------------------------------------------------------- gather and scatter */

/* torch.gather(t, dim, index): out[i][j] = t[index[i][j]][j] for dim 0, and so
 * on: the result has index's shape. */
CTORCH_API ct_tensor *ct_gather(const ct_tensor *t, int dim, const ct_tensor *index);
/* torch.scatter(t, dim, index, src): a copy of t with t[index[i][j]][j] =
 * src[i][j] (dim 0); src has t's dtype. scatter_ writes t itself. */
CTORCH_API ct_tensor *ct_scatter(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src);
CTORCH_API ct_result ct_scatter_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src);
/* torch.scatter(t, dim, index, value): the same with a number. */
CTORCH_API ct_tensor *ct_scatter_scalar(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value);
CTORCH_API ct_result ct_scatter_scalar_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value);
/* torch.scatter(t, dim, index, src, reduce=reduce): reduce "add" or
 * "multiply" combines instead of replacing. (torch.scatter_reduce, with
 * "sum", "amax"... and include_self, is another function.) */
CTORCH_API ct_tensor *ct_scatter_with_reduce(const ct_tensor *t, int dim, const ct_tensor *index,
                                             const ct_tensor *src, const char *reduce);
CTORCH_API ct_result ct_scatter_with_reduce_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src,
                                             const char *reduce);
CTORCH_API ct_tensor *ct_scatter_scalar_with_reduce(const ct_tensor *t, int dim, const ct_tensor *index,
                                                    ct_scalar value, const char *reduce);
CTORCH_API ct_result ct_scatter_scalar_with_reduce_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value,
                                                    const char *reduce);
/* torch.scatter_add(t, dim, index, src): t[index[i][j]][j] += src[i][j]. */
CTORCH_API ct_tensor *ct_scatter_add(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src);
CTORCH_API ct_result ct_scatter_add_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src);

/* ---------------------------------------------------------------- index along a dim */

/* torch.index_select(t, dim, index): the slices index[k] along dim (index
 * 1-D or 0-d, int64 or int32). */
CTORCH_API ct_tensor *ct_index_select(const ct_tensor *t, int dim, const ct_tensor *index);
/* torch.index_add(t, dim, index, source): t's slice index[k] along dim plus
 * source's slice k; the _alpha forms add alpha * source (torch's alpha=),
 * the _ forms write t itself. */
CTORCH_API ct_tensor *ct_index_add(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source);
CTORCH_API ct_result ct_index_add_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source);
CTORCH_API ct_tensor *ct_index_add_alpha(const ct_tensor *t, int dim, const ct_tensor *index,
                                         const ct_tensor *source, ct_scalar alpha);
CTORCH_API ct_result ct_index_add_alpha_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source,
                                         ct_scalar alpha);
/* torch.index_fill(t, dim, index, value): the slices index[k] set to value
 * (a 0-d tensor; the _scalar forms take a number). Negative indices count
 * from the end here, as in PyTorch. */
CTORCH_API ct_tensor *ct_index_fill(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *value);
CTORCH_API ct_result ct_index_fill_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *value);
CTORCH_API ct_tensor *ct_index_fill_scalar(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value);
CTORCH_API ct_result ct_index_fill_scalar_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value);
/* torch.index_copy(t, dim, index, source): the slices index[k] replaced by
 * source's slices k. */
CTORCH_API ct_tensor *ct_index_copy(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source);
CTORCH_API ct_result ct_index_copy_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source);

/* ---------------------------------------------------------------- masks and flat indices */

/* torch.masked_fill(t, mask, value): t where mask is false, value (a 0-d
 * tensor; _scalar: a number) where it is true; mask and t broadcast together
 * (in place, mask broadcasts to t). Masks are bool; other dtypes are read as
 * PyTorch 1.13 reads them (the first byte of each element, which must be 0 or 1). */
CTORCH_API ct_tensor *ct_masked_fill(const ct_tensor *t, const ct_tensor *mask, const ct_tensor *value);
CTORCH_API ct_result ct_masked_fill_(ct_tensor *t, const ct_tensor *mask, const ct_tensor *value);
CTORCH_API ct_tensor *ct_masked_fill_scalar(const ct_tensor *t, const ct_tensor *mask, ct_scalar value);
CTORCH_API ct_result ct_masked_fill_scalar_(ct_tensor *t, const ct_tensor *mask, ct_scalar value);
/* torch.masked_select(t, mask): the elements where the (bool or uint8) mask,
 * broadcast with t, is true, as a 1-D tensor in row-major order. */
CTORCH_API ct_tensor *ct_masked_select(const ct_tensor *t, const ct_tensor *mask);
/* torch.take(t, index): t seen as 1-D, read at index (negatives count from
 * the end); the result has index's shape. */
CTORCH_API ct_tensor *ct_take(const ct_tensor *t, const ct_tensor *index);
/* torch.nn.functional.one_hot(t, num_classes): int64 t of class indices to
 * an int64 tensor with a new last dim of num_classes (-1: max(t) + 1). */
CTORCH_API ct_tensor *ct_one_hot(const ct_tensor *t, int64_t num_classes);

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

/* ==================== data/data.h ==================== */
// >>data/data.h
/* Public data API (torch.utils.data): datasets, samplers, the DataLoader,
 * readers for IDX, CSV and .npy files, and image transforms.
 *
 * A sample is a tuple of tensors (an image and its label, say; a label is a
 * 0-d int64 tensor, as default_collate makes a Python int). A dataset's
 * get_item fills one; a loader's next fills one with a batch, each field the
 * samples' fields stacked along a new dim 0. Tensors in a sample follow the
 * memory rules: get_item runs inside a scope that hands the sample's tensors
 * on to ct_dataset_get's caller, and the tensors of a batch belong to the
 * scope open on the thread that called ct_loader_next (or to that caller,
 * who releases them, when none is open), whichever thread made them.
 *
 * Datasets and samplers are objects freed with ct_dataset_free /
 * ct_sampler_free. A dataset made from others (Subset, ConcatDataset, a
 * transformed dataset) holds a reference to them, so the caller may free its
 * own at once. A loader holds references to its dataset and samplers. */

/* ---------------------------------------------------------------- samples */

/* The most tensors a sample (or a batch) may hold. */
#define CT_SAMPLE_MAX 8

/* A tuple of tensors: one sample of a dataset, or one batch of a loader. */
typedef struct ct_sample {
    int n;
    ct_tensor *field[CT_SAMPLE_MAX];
} ct_sample;

/* ct_release each of a sample's tensors and set n to 0: for a sample filled
 * while no scope was open (a scope releases its own; never both). */
CTORCH_API void ct_sample_release(ct_sample *s);

/* ---------------------------------------------------------------- datasets */

/* A dataset: map-style (torch.utils.data.Dataset: len and get_item by index)
 * or iterable-style (torch.utils.data.IterableDataset: a stream of samples). */
typedef struct ct_dataset ct_dataset;

/* A map-style dataset of your own: __len__ and __getitem__ as callbacks.
 * get_item fills `out` and returns CT_OK, or fails with a ct_result after
 * raising an error (through any ctorch call that failed, or
 * ct_dataset_raise). A loader with workers calls get_item from several threads
 * at once: it must be safe for that (reading shared tensors is). */
typedef struct ct_dataset_desc {
    int64_t (*len)(void *user);
    ct_result (*get_item)(void *user, int64_t index, ct_sample *out);
    void (*free)(void *user); /* called by the last ct_dataset_free; may be NULL */
    void *user;
} ct_dataset_desc;
/* class MyDataset(torch.utils.data.Dataset). NULL (ValueError) without len or get_item. */
CTORCH_API ct_dataset *ct_dataset_new(ct_dataset_desc desc);

/* An iterable-style dataset of your own (torch.utils.data.IterableDataset).
 * iter starts a pass and returns its state (NULL after an error); next fills
 * `out` and returns 1, or 0 at the end, or a negative ct_result; iter_free
 * ends the pass. With loader workers each worker runs its own pass on its own
 * thread, where ct_get_worker_info() tells it which share to yield (as
 * torch.utils.data.get_worker_info() does). */
typedef struct ct_iterable_desc {
    void *(*iter)(void *user);
    int (*next)(void *state, ct_sample *out);
    void (*iter_free)(void *state);
    void (*free)(void *user); /* may be NULL */
    void *user;
} ct_iterable_desc;
CTORCH_API ct_dataset *ct_iterable_dataset_new(ct_iterable_desc desc);

/* Take one more reference (returns d); ct_dataset_free drops one. NULL is ignored. */
CTORCH_API ct_dataset *ct_dataset_retain(ct_dataset *d);
CTORCH_API void ct_dataset_free(ct_dataset *d);
/* len(dataset): a negative ct_result (TypeError) for an iterable dataset. */
CTORCH_API int64_t ct_dataset_len(const ct_dataset *d);
/* dataset[index] into out (a negative index counts from the end where the
 * dataset allows it, as in Python). */
CTORCH_API ct_result ct_dataset_get(ct_dataset *d, int64_t index, ct_sample *out);
/* Raise an error from inside a get_item callback, in PyTorch's wording; returns code. */
CTORCH_API ct_result ct_dataset_raise(ct_result code, const char *message);

/* torch.utils.data.TensorDataset(*tensors): sample i is (t[0][i], t[1][i], ...),
 * views of the tensors, which must agree in their first size. */
CTORCH_API ct_dataset *ct_tensor_dataset(ct_tensor *const *tensors, int n);
/* torch.utils.data.Subset(dataset, indices): the indices are copied. */
CTORCH_API ct_dataset *ct_subset(ct_dataset *d, const int64_t *indices, int64_t n);
/* torch.utils.data.ConcatDataset(datasets): the n map-style datasets one after another. */
CTORCH_API ct_dataset *ct_concat_dataset(ct_dataset *const *datasets, int n);
/* torch.utils.data.random_split(dataset, lengths, generator): n Subsets into
 * out, made from torch.randperm(len, generator) (NULL: the default
 * generator), so that a seed splits as in PyTorch. Lengths are counts, or
 * fractions when they sum to 1 (each floor(len * f), the remainder handed out
 * one by one from the first split). */
CTORCH_API ct_result ct_random_split(ct_dataset *d, const double *lengths, int n, ct_generator *g,
                                     ct_dataset **out);

/* ---------------------------------------------------------------- worker info */

/* torch.utils.data.get_worker_info(): on a loader's worker thread, the
 * worker's id (0..num_workers-1), the loader's worker count, the worker's
 * seed (base_seed + id, as PyTorch seeds workers), the dataset, and a
 * generator seeded with that seed (the worker's torch.manual_seed(seed):
 * random transforms given a NULL generator draw from it). On any other thread
 * id is -1 and the rest is zero (PyTorch's None). */
typedef struct ct_worker_info {
    int id;
    int num_workers;
    int64_t seed;
    ct_dataset *dataset;
    ct_generator *generator;
} ct_worker_info;
CTORCH_API ct_worker_info ct_get_worker_info(void);

/* ---------------------------------------------------------------- samplers */

/* A sampler (torch.utils.data.Sampler): a pass yields indices, or lists of
 * indices for a batch sampler. */
typedef struct ct_sampler ct_sampler;

/* A sampler of your own, as a subclass of torch.utils.data.Sampler. begin
 * starts a pass (__iter__; may be NULL); next writes the next index (or, for
 * a batch sampler, the next list of at most max_batch indices) and returns
 * how many it wrote, 0 at the end, or a negative ct_result; len is __len__
 * (NULL: the sampler has none, and len() of it is a TypeError). A loader calls
 * these on the thread that calls ct_loader_next. */
typedef struct ct_sampler_desc {
    void (*begin)(void *user);
    int64_t (*next)(void *user, int64_t *indices);
    int64_t (*len)(void *user);
    int64_t max_batch; /* 0: a sampler of single indices; > 0: a batch sampler */
    void (*free)(void *user); /* may be NULL */
    void *user;
} ct_sampler_desc;
CTORCH_API ct_sampler *ct_sampler_new(ct_sampler_desc desc);

/* torch.utils.data.SequentialSampler over a dataset of n samples: 0, 1, ..., n-1. */
CTORCH_API ct_sampler *ct_sequential_sampler(int64_t n);

/* torch.utils.data.RandomSampler(data_source, replacement, num_samples,
 * generator) over n samples. Without a generator each pass seeds a fresh one
 * from the default generator, as PyTorch does. num_samples 0 means n. */
typedef struct ct_random_sampler_opts {
    bool replacement;
    int64_t num_samples;
    ct_generator *generator;
} ct_random_sampler_opts;
CTORCH_API ct_sampler *ct_random_sampler(int64_t n, ct_random_sampler_opts opts);

/* torch.utils.data.SubsetRandomSampler(indices, generator): the n indices
 * (copied) in a random order; generator NULL is the default generator. */
CTORCH_API ct_sampler *ct_subset_random_sampler(const int64_t *indices, int64_t n, ct_generator *g);

/* torch.utils.data.WeightedRandomSampler(weights, num_samples, replacement,
 * generator): indices 0..n-1 drawn by torch.multinomial with these weights.
 * Start from ct_weighted_random_sampler_opts_init() (replacement true, as in
 * PyTorch). */
typedef struct ct_weighted_random_sampler_opts {
    int64_t num_samples;
    bool replacement;
    ct_generator *generator;
} ct_weighted_random_sampler_opts;
CTORCH_API ct_weighted_random_sampler_opts ct_weighted_random_sampler_opts_init(void);
CTORCH_API ct_sampler *ct_weighted_random_sampler(const double *weights, int64_t n,
                                                  ct_weighted_random_sampler_opts opts);

/* torch.utils.data.BatchSampler(sampler, batch_size, drop_last): lists of
 * batch_size indices from `sampler` (which it keeps a reference to). */
CTORCH_API ct_sampler *ct_batch_sampler(ct_sampler *sampler, int64_t batch_size, bool drop_last);

/* torch.utils.data.distributed.DistributedSampler(dataset, num_replicas,
 * rank, shuffle, seed, drop_last) over n samples: rank's share of a pass,
 * padded by repeating indices (or cut, with drop_last) to divide evenly; the
 * shuffle is randperm with seed + epoch. Start from
 * ct_distributed_sampler_opts_init() (shuffle true, one replica, rank 0):
 * without a process group to ask, num_replicas and rank are given here. */
typedef struct ct_distributed_sampler_opts {
    int64_t num_replicas;
    int64_t rank;
    bool shuffle;
    int64_t seed;
    bool drop_last;
} ct_distributed_sampler_opts;
CTORCH_API ct_distributed_sampler_opts ct_distributed_sampler_opts_init(void);
CTORCH_API ct_sampler *ct_distributed_sampler(int64_t n, ct_distributed_sampler_opts opts);
/* DistributedSampler.set_epoch(epoch): other samplers have no such method (AttributeError, as TypeError). */
CTORCH_API ct_result ct_sampler_set_epoch(ct_sampler *s, int64_t epoch);

/* Take one more reference (returns s); ct_sampler_free drops one. NULL is ignored. */
CTORCH_API ct_sampler *ct_sampler_retain(ct_sampler *s);
CTORCH_API void ct_sampler_free(ct_sampler *s);
/* len(sampler): a negative ct_result (TypeError) when it has none. */
CTORCH_API int64_t ct_sampler_len(const ct_sampler *s);
/* iter(sampler): start a pass. */
CTORCH_API ct_result ct_sampler_iter(ct_sampler *s);
/* next(): writes the next index (or a batch sampler's next list) to out,
 * which has room for `capacity` indices, and returns how many; 0 at the end
 * of the pass; a negative ct_result on failure (ValueError when out is too
 * small: nothing is consumed then). Starts a pass when none is running. */
CTORCH_API int64_t ct_sampler_next(ct_sampler *s, int64_t *out, int64_t capacity);
/* The most indices one next() can give: 1, or a batch sampler's batch size. */
CTORCH_API int64_t ct_sampler_max_batch(const ct_sampler *s);

/* ---------------------------------------------------------------- DataLoader */

typedef struct ct_loader ct_loader;

/* collate_fn: makes a batch from the n samples of one batch (in index order).
 * Return CT_OK, or a failure after raising an error. The default stacks each
 * field (torch.utils.data.default_collate). */
typedef ct_result (*ct_collate_fn)(const ct_sample *samples, int64_t n, ct_sample *batch, void *user);

/* DataLoader's arguments; zero means PyTorch's default. */
typedef struct ct_loader_opts {
    int64_t batch_size;           /* 0: 1 */
    bool shuffle;                 /* a RandomSampler over the dataset */
    ct_sampler *sampler;          /* a sampler of indices (excludes shuffle) */
    ct_sampler *batch_sampler;    /* a sampler of index lists (excludes batch_size, shuffle, sampler, drop_last) */
    int num_workers;              /* 0: load on the calling thread; n: n worker threads */
    ct_collate_fn collate_fn;     /* NULL: stack each field */
    void *collate_user;
    bool pin_memory;              /* page-locked batches for CUDA copies: a no-op without the CUDA backend */
    bool drop_last;               /* drop the last batch when it is short */
    double timeout;               /* seconds to wait for a worker's batch; 0: forever */
    void (*worker_init_fn)(int worker_id, void *user); /* called on each worker thread after seeding */
    void *worker_init_user;
    ct_generator *generator;      /* for base_seed and the RandomSampler; NULL: the default generator */
    int prefetch_factor;          /* batches loaded ahead per worker; 0: 2 (needs num_workers > 0 otherwise) */
    bool persistent_workers;      /* keep the workers (and their seeds) from one epoch to the next */
} ct_loader_opts;

/* torch.utils.data.DataLoader(dataset, ...), with PyTorch's argument checks
 * and messages. The loader keeps references to the dataset and samplers. */
CTORCH_API ct_loader *ct_loader_new(ct_dataset *d, ct_loader_opts opts);
/* Stop the workers (waiting for the batches they are building), drop every
 * batch not yet taken, free the loader. Safe at any point of an epoch. */
CTORCH_API void ct_loader_free(ct_loader *l);
/* len(loader): the number of batches in an epoch (TypeError when the sampler has no len). */
CTORCH_API int64_t ct_loader_len(const ct_loader *l);
/* iter(loader): start a new epoch, abandoning the one running. */
CTORCH_API ct_result ct_loader_iter(ct_loader *l);
/* next(iterator): the next batch into `batch`, strictly in sampler order
 * whichever worker finishes first. Returns 1 with a batch, 0 at the end of
 * the epoch (the next call starts a new one), or a negative ct_result: a
 * failed get_item or collate_fn ("Caught IndexError in DataLoader worker 1 at
 * dataset index 7: ..."; the epoch goes on with the next batch), or a timeout
 * ("DataLoader timed out after 2 seconds"; the batch is still awaited). At most
 * num_workers * prefetch_factor batches are being built at any time; each is
 * built by one worker, which does not wait for the others. */
CTORCH_API int ct_loader_next(ct_loader *l, ct_sample *batch);

/* torch.utils.data.default_collate for samples of tensors: field k of the
 * batch is torch.stack of the samples' field k. */
CTORCH_API ct_result ct_default_collate(const ct_sample *samples, int64_t n, ct_sample *batch, void *user);

/* ---------------------------------------------------------------- readers */

/* An IDX file (MNIST, Fashion-MNIST): a tensor of the file's type and shape
 * (uint8 images [N, 28, 28], uint8 labels [N], ...). A name ending in ".gz"
 * is read through zlib when ctorch is built with CTORCH_ZLIB (link -lz);
 * an uncompressed uint8/int8 file is memory-mapped (copy on write), so a file
 * larger than memory works. */
CTORCH_API ct_tensor *ct_read_idx(const char *path);
/* A dataset of (image, label) from two IDX files, the label as int64 (as
 * torchvision.datasets.MNIST gives it). */
CTORCH_API ct_dataset *ct_idx_dataset(const char *images_path, const char *labels_path);

/* numpy.loadtxt(path, delimiter, skiprows) for numeric CSV: a 2-D tensor
 * [rows, columns] of dtype (CT_DEFAULT: the default dtype). Every row must
 * have the same number of columns. ".gz" as for ct_read_idx. */
typedef struct ct_csv_opts {
    char delimiter; /* 0: ',' */
    int skip_rows;
    ct_dtype dtype;
} ct_csv_opts;
CTORCH_API ct_tensor *ct_read_csv(const char *path, ct_csv_opts opts);

/* numpy.load of a .npy file (torch.from_numpy(np.load(path, mmap_mode='c'))):
 * memory-mapped, copy on write, when the data is little-endian; a Fortran-
 * order array gives a tensor with transposed strides, as from_numpy does. */
CTORCH_API ct_tensor *ct_load_npy(const char *path);
/* numpy.save of a tensor (contiguous copy, C order, little-endian). */
CTORCH_API ct_result ct_save_npy(const char *path, const ct_tensor *t);

/* ---------------------------------------------------------------- transforms */

/* An image transform (torchvision.transforms), applied to a [..., C, H, W]
 * tensor (or [H, W]). Transforms compose: ct_transform_apply runs a list in
 * order, as transforms.Compose. */
typedef enum ct_transform_kind {
    CT_TO_FLOAT = 1, /* to the default dtype, times scale (0: 1/255 for uint8, 1 otherwise): ConvertImageDtype */
    CT_NORMALIZE,    /* (x - mean[c]) / std[c] per channel: Normalize(mean, std) */
    CT_RANDOM_CROP,  /* RandomCrop(size, padding, fill): pad each side, then a random size[0] x size[1] window */
    CT_RANDOM_HFLIP  /* RandomHorizontalFlip(p): flip the last dim with probability p (0: 0.5) */
} ct_transform_kind;

#define CT_TRANSFORM_CHANNELS 4

typedef struct ct_transform {
    ct_transform_kind kind;
    double scale;                                                 /* CT_TO_FLOAT */
    int channels;                                                 /* CT_NORMALIZE: how many mean/std */
    double mean[CT_TRANSFORM_CHANNELS], std[CT_TRANSFORM_CHANNELS];
    int64_t size[2];                                              /* CT_RANDOM_CROP: output height, width */
    int64_t padding;
    double fill;
    double p;                                                     /* CT_RANDOM_HFLIP */
} ct_transform;

/* transforms.Compose(list)(x): a new tensor. Random transforms draw as
 * torchvision does (randint for the crop's top then left, rand(1) < p for the
 * flip) from g, or, given NULL, from the worker's generator on a loader
 * worker thread and the default generator elsewhere. */
CTORCH_API ct_tensor *ct_transform_apply(const ct_transform *list, int n, const ct_tensor *x, ct_generator *g);
/* A dataset whose samples are d's with the list (copied) applied to field `field`. */
CTORCH_API ct_dataset *ct_transformed_dataset(ct_dataset *d, int field, const ct_transform *list, int n);

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
#include <time.h>
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

/* ---------------------------------------------------------------- vector math */

/* exp, log, tanh and sigmoid written so that loops over them vectorise: range
 * reduction and a polynomial, bits moved through memcpy, no calls into the C
 * library, and no branches: special cases are picked by bit masks (GCC turns
 * a ?: between floating values into a branch when one side is needed only
 * there, and with trapping math will not compute both sides to vectorise).
 * All compute in double: within an ulp for double, and for float (which
 * converts to double and back) within 0.51 ulp. They are used where the
 * compiler targets AVX2 (CT__VECMATH): without it GCC leaves these loops
 * scalar, slower than the C library, which the ct__v* wrappers then call. */
#if !defined(CT__VECMATH) && (defined(__AVX2__) || defined(__AVX512F__))
#define CT__VECMATH 1
#endif
static inline double ct__f64_of_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}
static inline uint64_t ct__bits_of_f64(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}
/* c ? a : b, computed as bits. */
static inline double ct__pick(bool c, double a, double b)
{
    uint64_t m = 0 - (uint64_t)c;
    return ct__f64_of_bits((ct__bits_of_f64(a) & m) | (ct__bits_of_f64(b) & ~m));
}

/* 1.5 * 2^52: adding it rounds a double below 2^51 to an integer, which its
 * low bits then hold. */
#define CT__SHIFTER 6755399441055744.0

/* 2^k for an integer k in [-1022, 1023] (a double), from its bits. */
static inline double ct__pow2(double k)
{
    return ct__f64_of_bits((ct__bits_of_f64(k + CT__SHIFTER) - ct__bits_of_f64(CT__SHIFTER) + 1023) << 52);
}

/* e^r - 1 - r for |r| <= ln2/2 by Taylor to degree 13 (remainder 4e-18 of
 * e^r) or, for float results, 8 (2e-10), in Estrin's scheme: short chains
 * of dependent operations, which is what bounds a vector loop's speed. */
static inline double ct__expm1_tail(double r, bool full)
{
    double r2 = r * r, r4 = r2 * r2;
    double a = 0.5 + r * (1.0 / 6), b = 1.0 / 24 + r * (1.0 / 120), c = 1.0 / 720 + r * (1.0 / 5040);
    double lo = a + r2 * b, hi = c + r2 * (1.0 / 40320);
    if (full) {
        double d = 1.0 / 40320 + r * (1.0 / 362880), e = 1.0 / 3628800 + r * (1.0 / 39916800);
        double g = 1.0 / 479001600 + r * (1.0 / 6227020800);
        hi = (c + r2 * d) + r4 * (e + r2 * g);
    }
    return r2 * (lo + r4 * hi);
}

/* e^x, within an ulp (full) or to 2e-10 for float results. |x| is first
 * clamped to 746, where e^x over- or underflows anyway (NaN passes). x =
 * k ln2 + r with |r| <= ln2/2, ln2 split as Cody and Waite do (its high part
 * has 32 bits, so k * hi is exact); 2^k applied as two factors, so that
 * subnormal results round once. */
static inline double ct__exp_core(double x, bool full)
{
    const double log2e = 1.4426950408889634;
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    x = ct__pick(fabs(x) > 746.0, copysign(746.0, x), x);
    double k = (x * log2e + CT__SHIFTER) - CT__SHIFTER;
    double r = (x - k * ln2_hi) - k * ln2_lo;
    double p = 1.0 + (r + ct__expm1_tail(r, full));
    double k1 = (k * 0.5 + CT__SHIFTER) - CT__SHIFTER; /* k in halves: each within range */
    return p * ct__pow2(k1) * ct__pow2(k - k1);
}

/* log x within an ulp, fdlibm's way: x = 2^k m with m in [sqrt(1/2), sqrt 2),
 * f = m - 1, s = f / (2 + f), log m = f - f^2/2 + s (f^2/2 + R(s^2)) with
 * fdlibm's minimax R; k ln2 added in two parts. Subnormals are scaled by
 * 2^54 first; 0, negatives, infinity and NaN are picked at the end. */
static inline double ct__log_wide(double x)
{
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    const double lg1 = 6.666666666666735130e-01, lg2 = 3.999999999940941908e-01, lg3 = 2.857142874366239149e-01,
                 lg4 = 2.222219843214978396e-01, lg5 = 1.818357216161805012e-01, lg6 = 1.531383769920937332e-01,
                 lg7 = 1.479819860511658591e-01;
    bool sub = x < 2.2250738585072014e-308;
    uint64_t b = ct__bits_of_f64(ct__pick(sub, x * 18014398509481984.0, x));
    /* mantissas from sqrt 2 (0x6a09e...) up carry into bit 20: m halves, k grows */
    uint64_t up = ((b >> 32 & 0xfffff) + 0x95f62) >> 20;
    double m = ct__f64_of_bits((b & 0x000fffffffffffffu) | (0x3ff - up) << 52);
    /* k from the exponent's bits as the low bits of 2^52's mantissa */
    double e = ct__f64_of_bits((b >> 52 & 0x7ff) + up + 0x4330000000000000u) - 4503599627370496.0;
    double dk = e - 1023.0 - ct__pick(sub, 54.0, 0.0);
    double f = m - 1.0, s = f / (2.0 + f), z = s * s, w = z * z;
    double r = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7))) + w * (lg2 + w * (lg4 + w * lg6));
    double hfsq = 0.5 * f * f;
    double y = dk * ln2_hi - ((hfsq - (s * (hfsq + r) + dk * ln2_lo)) - f);
    y = ct__pick(x < (double)INFINITY, y, x); /* infinity, NaN */
    y = ct__pick(x == 0, -(double)INFINITY, y);
    return ct__pick(x < 0, (double)NAN, y);
}

/* tanh for float results: x (1 - x^2/3 + 2x^4/15 - 17x^6/315) below 2^-5
 * (remainder 2e-14 of the result), else 1 - 2 / (e^2|x| + 1) with x's sign. */
static inline double ct__tanhf_wide(double x)
{
    double z = x * x, ax = fabs(x);
    double small = x * (1.0 + z * (-1.0 / 3 + z * (2.0 / 15 + z * (-17.0 / 315))));
    double big = 1.0 - 2.0 / (ct__exp_core(2.0 * ax, false) + 1.0);
    return ct__pick(ax < 0.03125, small, copysign(big, x));
}
/* The functions the kernels call: the above, or the C library's. */
#ifdef CT__VECMATH
static inline double ct__vexp(double x) { return ct__exp_core(x, true); }
static inline float ct__vexpf(float x) { return (float)ct__exp_core(x, false); }
static inline double ct__vlog(double x) { return ct__log_wide(x); }
static inline float ct__vlogf(float x) { return (float)ct__log_wide(x); }
static inline float ct__vtanhf(float x) { return (float)ct__tanhf_wide(x); }
static inline float ct__vsigmoidf(float x) { return (float)(1.0 / (1.0 + ct__exp_core(-(double)x, false))); }
#else
static inline double ct__vexp(double x) { return exp(x); }
static inline float ct__vexpf(float x) { return expf(x); }
static inline double ct__vlog(double x) { return log(x); }
static inline float ct__vlogf(float x) { return logf(x); }
static inline float ct__vtanhf(float x) { return tanhf(x); }
static inline float ct__vsigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
#endif

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
/* Private: the names of the join ops, for the op table (src/ops/optable.h),
 * and the job that the backend's index kernels run. */
#define CT__JOIN_OP_NAMES(X)                                                                                     \
    X(cat) X(stack) X(hstack) X(vstack) X(split) X(split_with_sizes) X(chunk) X(unbind) X(broadcast_tensors)     \
    X(repeat) X(tile) X(repeat_interleave) X(flip) X(roll) X(gather) X(scatter) X(scatter_add) X(index_select)   \
    X(index_add) X(index_fill) X(index_copy) X(masked_fill) X(masked_select) X(take) X(one_hot)

/* What an index kernel does. Every op of the family that moves data by
 * indices is one of these (index_select is a gather with its index expanded
 * over the other dims, index_add a scatter-add, and so on). */
typedef enum ct__index_kind {
    CT__INDEX_STATS,         /* scan index (int64, int32, uint8 or bool) in row-major order */
    CT__INDEX_GATHER,        /* dst[p] = src[p with dim = index[p]]; dst has index's extent */
    CT__INDEX_SCATTER,       /* dst[p with dim = index[p]] = src[p] */
    CT__INDEX_SCATTER_ADD,   /* ... += alpha * src[p] */
    CT__INDEX_SCATTER_MUL,   /* ... *= src[p] */
    CT__INDEX_MASKED_FILL,   /* dst[p] = src[0] where index[p] (a mask broadcast to dst) */
    CT__INDEX_MASKED_SELECT, /* dst[k++] = src[p] where index[p], p in row-major order */
    CT__INDEX_REPEATS        /* dst (1-D) = 0 repeated src[0] times, 1 repeated src[1] times, ... */
} ct__index_kind;

/* One kernel call. Index tensors are int64 (masks bool or uint8). For
 * gather and scatter, dst, src and index have the same rank and index's sizes
 * bound the others' apart from dim; an index out of range stops the kernel,
 * having written only what was checked, so callers that must not write on
 * error (in-place ops) check with STATS first. */
typedef struct ct__index_job {
    ct__index_kind kind;
    ct_tensor *dst;
    const ct_tensor *src;
    const ct_tensor *index;
    int dim;
    const void *alpha; /* SCATTER_ADD: one element of dst's dtype */
    bool fused;        /* SCATTER_ADD in float32/64: one rounding (fma), as PyTorch's vectorised add */
    bool serial;       /* dst has elements that share memory: one thread */
    bool negatives;    /* gather, scatter: indices may be negative, counting from the end */
    /* STATS: in lo, hi; out the rest (sum wraps as int64 does) */
    int64_t lo, hi;
    int64_t min, max, sum, nonzero;
    bool out_of_range; /* STATS, gather and scatter: some index was out of range */
    int64_t first_bad; /* STATS: the first value outside [lo, hi) */
} ct__index_job;

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
    X(polygamma, 1, FLOAT, H, "polygamma")                \
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
 *             or 2 for bfloat16 roundings; lerp: 1 when the weight is alpha;
 *             polygamma: n
 *   derived   the public op a call is when it runs on another op's kernel
 *             (clamp_min on maximum's, hardtanh on clamp's, celu on elu's,
 *             floor_divide on div's), for its autograd node; 0 when it is
 *             the kernel's own op (neg, the first, is never derived) */
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
    ct__op derived;
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
    uint32_t version; /* bumped by in-place writes: autograd checks saved tensors against it */
} ct__storage;

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
    bool is_view;        /* made by a view op (Tensor._is_view()): detach_ refuses it */
    struct ct__ag_meta *ag; /* autograd state (src/autograd/internal.h), NULL until it takes part */
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
    /* The join family's index kernels: gather, scatter, masks (see ct__index_job). */
    void (*index)(ct__index_job *job);
    /* The sorting and selection ops (src/ops/sort_ops.h): CT_OK, or an error
     * such as running out of scratch memory. */
    ct_result (*sorting)(ct__op op, ct__sort_job *job);
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

/* torch.result_type over n tensors (wrapped numbers rank lowest; src/ops/pointwise.c). */
static ct_dtype ct__result_type(const ct_tensor *const *ts, int n);

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

/* ==================== autograd/internal.h ==================== */
// >>autograd/internal.h
/* Private: the autograd graph. A differentiable op that sees an input which
 * requires grad records a node: its backward function, edges to the nodes
 * that made its inputs (a leaf's edge goes to its AccumulateGrad node), what
 * backward needs saved, and the shape of each output (to make zeros for an
 * output that got no gradient and to check the gradients backward returns). */

typedef struct ct_node ct__node;

typedef struct ct__edge {
    ct__node *fn; /* NULL: that input needs no gradient */
    int input_nr; /* which of fn's outputs (its gradient slot) */
} ct__edge;

/* A tensor saved for backward: a detached view of the same storage and the
 * storage's version at save time, so a later in-place write is caught. An
 * output of the node itself is saved without its grad_fn (a node holding its
 * own output would be a reference cycle) and reattached when unpacked. */
typedef struct ct__saved {
    ct_tensor *data;
    uint32_t version;
    bool is_output;
    int output_nr;
} ct__saved;

/* A hook: called with a gradient; may return a replacement (a new reference)
 * or NULL to keep it. Removable by id. On a node's prehook list, `slot` picks
 * the output it applies to (-1: each) and `owner` is the non-leaf tensor whose
 * register_hook or retain_grad put it there (weak: removed when it dies);
 * `retain` marks retain_grad's, which stores the gradient in owner's .grad. */
typedef struct ct__hook {
    int id;
    ct_tensor *(*fn)(ct_tensor *grad, void *user);
    void *user;
    int slot;
    ct_tensor *owner;
    bool retain;
} ct__hook;

typedef struct ct__hook_list {
    ct__hook *items;
    int n, cap;
} ct__hook_list;

/* Per-output shape and dtype, as the node's outputs were made. */
typedef struct ct__out_meta {
    int ndim;
    int64_t sizes[CT_MAX_DIMS];
    ct_dtype dtype;
} ct__out_meta;

typedef struct ct__node_type {
    const char *name; /* PyTorch's node name: "AddBackward0" */
    /* grads_in[i] = gradient for next edge i (left NULL when needs_input_grad(i)
     * is false or the gradient is zero). grads_out[k] is the gradient of output k,
     * never NULL (zeros are made when none arrived). */
    ct_result (*backward)(ct__node *n, ct_tensor *const *grads_out, ct_tensor **grads_in);
} ct__node_type;

#define CT__NODE_MAX_SAVED 6
#define CT__NODE_MAX_ARGS 6

struct ct_node {
    int refcount;
    const ct__node_type *type;
    const char *name;  /* when the form differs from the type's ("RsubBackward1"); NULL: the type's */
    uint64_t seq;      /* creation order: later nodes run first, as in PyTorch */
    int n_next;
    ct__edge *next;    /* n_next edges (next_inline when few) */
    ct__edge next_inline[4];
    int n_out;
    ct__out_meta *out; /* n_out entries (out_inline when few) */
    ct__out_meta out_inline[2];
    ct__saved *saved;  /* n_saved of cap_saved (saved_inline until a custom function saves more) */
    ct__saved saved_inline[CT__NODE_MAX_SAVED];
    int n_saved, cap_saved;
    bool saved_freed;  /* released by a backward without retain_graph */
    double args[CT__NODE_MAX_ARGS];   /* op-specific numbers (alpha, dims, ...) */
    int64_t iargs[CT__NODE_MAX_ARGS];
    ct__op_args pw;                   /* a pointwise op's parameters */
    void *extra;                      /* larger op data (a view's geometry), freed with the node */
    void (*release_extra)(ct__node *n); /* frees what extra holds, when it is more than one block */
    ct_tensor *leaf;   /* AccumulateGrad: the leaf it accumulates into */
    ct__hook_list pre_hooks, post_hooks; /* node hooks (Node.register_prehook / register_hook) */
    const char *anomaly_op; /* the forward op that recorded it, kept in anomaly mode */
    /* the running engine's scratch */
    uint64_t run;
    int deps, pending;
    ct_tensor **buffer; /* n_out gradients arriving */
    bool needed, capture_any;
};

/* A tensor's autograd state, allocated the first time it takes part. */
typedef struct ct__ag_meta {
    ct_tensor *grad;
    ct__node *grad_fn;     /* strong */
    int output_nr;
    ct__node *accumulator; /* weak: a leaf's AccumulateGrad node while it lives */
    bool retains_grad;
    ct__hook_list hooks, post_acc_hooks;
} ct__ag_meta;

static inline ct__ag_meta *ct__meta(const ct_tensor *t) { return t->ag; }

/* Whether ops record graphs now (grad mode on, inference mode off). */
static bool ct__grad_mode(void);
/* Whether t takes part in autograd as an input: requires grad (leaf) or has a grad_fn. */
static bool ct__requires_grad(const ct_tensor *t);
/* Record op `type` with its inputs (n_in; NULL entries allowed) and outputs:
 * when grad mode is on and an input requires grad, a node is made, the
 * outputs get it as grad_fn and it is returned (for saving); else NULL. */
static ct__node *ct__record(const ct__node_type *type, const ct_tensor *const *inputs, int n_in,
                            ct_tensor *const *outputs, int n_out);
/* Save t for backward (is_output: t is one of the node's outputs). */
static void ct__save(ct__node *n, const ct_tensor *t, bool is_output);
/* Saved tensor i, checked against in-place writes; NULL with PyTorch's error. */
static ct_tensor *ct__saved_get(ct__node *n, int i);
/* Whether backward must compute the gradient of input i (needs_input_grad). */
static bool ct__needs_grad(const ct__node *n, int i);
/* Free t's autograd state (from ct_release). */
static void ct__ag_meta_free(ct_tensor *t);
/* Whether an in-place op may write t: not a leaf that requires grad (grad
 * mode on). The op bumps t's storage version after it writes. */
static ct_result ct__check_inplace_grad(const ct_tensor *t);
/* The pointwise ops' formulas (formulas.c): record op's node, and the copy of
 * self an in-place form must keep before it writes (or NULL). */
static void ct__pointwise_record(ct__op op, ct_tensor *out, const ct_tensor *const *in, int n_in,
                                 const ct__op_args *args, ct_tensor *self_before);
static ct_tensor *ct__pointwise_self_before(ct__op op, const ct_tensor *const *in, int n_in);
/* Whether op has a derivative (an in-place form on a leaf that requires grad is refused). */
static bool ct__pointwise_differentiable(ct__op op, const ct_tensor *const *in, const ct__op_args *args);
/* A tensor's place in its storage: what a strided view's backward needs. */
typedef struct ct__geom {
    int ndim;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], offset;
} ct__geom;

/* How a view relates to its input, for its node. */
typedef enum ct__view_kind {
    CT__VIEW_RESHAPE,   /* view, reshape, flatten, unflatten, squeeze: grad reshaped back */
    CT__VIEW_TRANSPOSE, /* iargs: the two dims */
    CT__VIEW_PERMUTE,   /* iargs: the permutation (in extra) */
    CT__VIEW_UNSQUEEZE, /* iargs[0]: the dim */
    CT__VIEW_EXPAND,    /* grad summed to the input's shape */
    CT__VIEW_STRIDED    /* select, slice, narrow, diagonal, unfold, as_strided: scatter by storage position */
} ct__view_kind;

/* Record view v of t (the view functions call it): a node of `name` whose
 * backward follows `kind`, with p the permutation (PERMUTE), the two dims
 * (TRANSPOSE) or the dim (UNSQUEEZE). */
static void ct__record_view(const char *name, ct__view_kind kind, ct_tensor *v, const ct_tensor *t, const int64_t *p);
/* g summed down to the shape it was broadcast from (at::sum_to; formulas.c). */
static ct_tensor *ct__sum_to_shape(const ct_tensor *g, const int64_t *sizes, int ndim);

/* ---------------------------------------------------------------- writing formulas */

/* A backward function: gi[i] = gradient for input i from go[k], the gradients
 * of the outputs. S(i) is saved tensor i. */
#define CT__BACKWARD(name) static ct_result ct__bw_##name(ct__node *n, ct_tensor *const *go, ct_tensor **gi)
#define CT__S(i) ct__saved_get(n, i)
/* Set gi[i] to expr when input i needs a gradient; fail on a NULL result. */
#define CT__GRAD(i, expr)                                              \
    do {                                                               \
        if (ct__needs_grad(n, i)) {                                    \
            gi[i] = (expr);                                            \
            if (!gi[i]) return ct_last_error_code();                   \
        }                                                              \
    } while (0)

/* The shape and dtype input i had when node n was recorded (only for an
 * input that needs a gradient: its edge leads somewhere). */
static inline const ct__out_meta *ct__input_meta(const ct__node *n, int i)
{
    return &n->next[i].fn->out[n->next[i].input_nr];
}

/* A differentiable op built from other ops records one node of its own, so
 * the ops inside it record nothing: result = expr with grad mode off. */
#define CT__UNRECORDED(result, expr)                          \
    do {                                                      \
        ct_grad_mode ct__mode_ = ct_set_grad_enabled(false);  \
        (result) = (expr);                                    \
        ct_grad_mode_restore(ct__mode_);                      \
    } while (0)

/* ---------------------------------------------------------------- reductions */

/* The reductions, scans and selections with a derivative (formulas_reduce.c). */
typedef enum ct__reduce_grad {
    CT__RG_SUM,    /* SumBackward0 (all) / SumBackward1 (dims) */
    CT__RG_NANSUM, /* NansumBackward0 */
    CT__RG_MEAN,   /* MeanBackward0 / MeanBackward1 */
    CT__RG_PROD,   /* ProdBackward0 / ProdBackward1 */
    CT__RG_AMAX,   /* the gradient split evenly among the extremes of each slice */
    CT__RG_AMIN,
    CT__RG_MAX,    /* to one value (MaxBackward1, ...): split evenly among its ties */
    CT__RG_MIN,
    CT__RG_MEDIAN,
    CT__RG_MAX_DIM, /* a value and its index per slice: the gradient goes to the index */
    CT__RG_MIN_DIM,
    CT__RG_MEDIAN_DIM,
    CT__RG_MODE,
    CT__RG_KTHVALUE,
    CT__RG_SORT,   /* SortBackward0 / SortBackward1 (stable) */
    CT__RG_TOPK,
    CT__RG_STD,
    CT__RG_VAR,
    CT__RG_STD_MEAN, /* two outputs */
    CT__RG_VAR_MEAN,
    CT__RG_NORM,   /* NormBackward1 / NormBackward3 (with a dtype) */
    CT__RG_LOGSUMEXP,
    CT__RG_CUMSUM,
    CT__RG_CUMPROD,
    CT__RG_CUMMAX,
    CT__RG_CUMMIN,
    CT__RG_LOGCUMSUMEXP,
    CT__RG_SOFTMAX,
    CT__RG_LOG_SOFTMAX
} ct__reduce_grad;

/* What a reduction's backward needs besides its input and result. */
typedef struct ct__reduce_rec {
    uint32_t mask;            /* the reduced dims; a one-dim op's dim as its bit (none for a 0-d input) */
    int dim;                  /* a one-dim op's dim, wrapped (0 for a 0-d input) */
    bool keepdim;             /* the reduced dims were kept (sort and topk: always) */
    bool alt;                 /* PyTorch's other name: with dims (sum, mean, prod), a dtype (norm), stable (sort) */
    int64_t correction;       /* std, var */
    double p;                 /* norm */
    const ct_tensor *indices; /* the index output the gradient follows */
    const ct_tensor *self_before; /* an in-place scan: self before it was written (saved in its place) */
} ct__reduce_rec;

/* A record with the reduced dims mask and keepdim; the rest zero. */
static ct__reduce_rec ct__reduce_rec_of(uint32_t mask, bool keepdim);
/* Record reduction `kind` of input giving out[0] (and out[1]: the mean of
 * std_mean and var_mean); nothing when no input requires grad. */
static void ct__record_reduce(ct__reduce_grad kind, ct_tensor *const *out, int n_out, const ct_tensor *input,
                              const ct__reduce_rec *rec);

/* ---------------------------------------------------------------- joining and indexing */

/* The join ops with a derivative (formulas_join.c). */
typedef enum ct__join_grad {
    CT__JG_CAT, CT__JG_STACK, CT__JG_SPLIT, CT__JG_SPLIT_WITH_SIZES, CT__JG_UNBIND, CT__JG_REPEAT, CT__JG_FLIP,
    CT__JG_ROLL, CT__JG_GATHER, CT__JG_SCATTER, CT__JG_SCATTER_VALUE, CT__JG_SCATTER_ADD, CT__JG_INDEX_SELECT,
    CT__JG_INDEX_ADD, CT__JG_INDEX_FILL, CT__JG_INDEX_FILL_TENSOR, CT__JG_INDEX_COPY, CT__JG_MASKED_FILL,
    CT__JG_MASKED_FILL_TENSOR, CT__JG_MASKED_SELECT, CT__JG_TAKE, CT__JG_INDEX, CT__JG_INDEX_PUT, CT__JG_COPY_SLICES,
    CT__JG_COPY_ALL,
    CT__JG_NOT_IMPLEMENTED /* scatter with reduce: PyTorch has no derivative */
} ct__join_grad;

/* What a join op's backward needs; start from ct__join_args_init(dim). */
typedef struct ct__join_args {
    int dim;                /* the (wrapped) dim the op works along */
    const ct_tensor *index; /* the index or mask, saved (NULL: none) */
    bool has_alpha;         /* index_add's alpha */
    ct_scalar alpha;
    ct_shape shape, dims;   /* repeat: repeats; flip: dims; roll: shifts and dims; masked_select: broadcast shape */
    const int64_t *lengths; /* cat: each input's length along dim (-1: a skipped legacy empty input) */
    int n_lengths;
} ct__join_args;

static inline ct__join_args ct__join_args_init(int dim)
{
    ct__join_args a;
    memset(&a, 0, sizeof a);
    a.dim = dim;
    return a;
}

/* Record join op `kind` over inputs in (NULL entries: no gradient) giving
 * outputs out (several for split and unbind). */
static void ct__record_join(ct__join_grad kind, const ct_tensor *const *in, int n_in, ct_tensor *const *out, int n_out,
                            const ct__join_args *a);

/* ---------------------------------------------------------------- copies */

/* The copying ops with a derivative (formulas_join.c). */
typedef enum ct__copy_grad {
    CT__CG_CLONE,   /* clone, contiguous */
    CT__CG_TO_COPY, /* to(dtype) */
    CT__CG_FILL,    /* fill_ with a number */
    CT__CG_ZERO,    /* zero_ */
    CT__CG_COPY,    /* copy_(src): the second input is src */
    CT__CG_DIAG,    /* diag(k) */
    CT__CG_TRIL,    /* tril(k) */
    CT__CG_TRIU     /* triu(k) */
} ct__copy_grad;

/* Record copy op `kind` of input (and src, for copy_) giving out; k: the diagonal. */
static void ct__record_copy(ct__copy_grad kind, ct_tensor *out, const ct_tensor *input, const ct_tensor *src, int64_t k);

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

/* x rounded to the floating dtype dt, as arithmetic in dt rounds (range.c). */
static double ct__round_to(double x, ct_dtype dt);
/* The range factories' kernels (range.c): fill a new 1-D contiguous tensor. */
static void ct__cpu_arange(ct_tensor *t, ct_scalar start, ct_scalar step);
static void ct__cpu_linspace(ct_tensor *t, double start, double end);
static void ct__cpu_logspace(ct_tensor *t, double start, double end, double base);

/* Sorting as PyTorch 1.13's CPU kernels sort (sort.c). Elements are (key,
 * index) pairs whose unsigned key orders as PyTorch compares the values, so
 * the algorithms compare integers whatever the dtype. Which of equal keys
 * comes first, and with it every index PyTorch reports, is decided by the
 * steps of libstdc++ 12's unstable algorithms: sort, topk, unique, mode and
 * multinomial all run the one replay of them in sort.c. */
typedef struct ct__sort_kv {
    uint64_t key;
    int64_t idx;
} ct__sort_kv;

/* A double's key: NaN above everything and all NaNs equal, -0 equal to 0. */
static inline uint64_t ct__key_f64(ct__f64_t v);
/* The key every NaN of dt gets, or 0 for dtypes without NaN. */
static uint64_t ct__sort_nan_key(ct_dtype dt);
/* kv[j] = (key of element j of a slice of dt with byte stride `stride`, xor flip; j). */
static void ct__sort_load_keys(ct_dtype dt, const char *src, int64_t stride, int64_t n, uint64_t flip,
                               ct__sort_kv *kv);
/* std::sort with operator< on the values: by key, except that a NaN (key
 * nan; 0 for none) is neither below nor above anything. */
static void ct__std_sort_values(ct__sort_kv *first, ct__sort_kv *last, uint64_t nan);
/* TopKImpl.h: the k smallest keys of kv[0, n) to the front, in order unless
 * k is large and sorted is false (std::partial_sort, or std::nth_element and
 * std::sort). */
static void ct__std_topk(ct__sort_kv *kv, int64_t n, int64_t k, bool sorted);

/* ==================== data/internal.h ==================== */
// >>data/internal.h
/* Private to the data files: what one of them uses from another that comes
 * later in the amalgamation, and the worker thread's state. */

/* The list's transforms checked (src/data/transform.c). */
static ct_result ct__check_transforms(const ct_transform *list, int n);

/* The loader's worker that runs on this thread (id -1 elsewhere): src/data/loader.c sets it. */
static CT__TLS ct_worker_info ct__worker_info = {-1, 0, 0, NULL, NULL};

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
/* A dtype argument: CT_DEFAULT or a real dtype. */
static ct_result ct__check_dtype(ct_dtype dtype)
{
    if (dtype == CT_DEFAULT || ct__dtype_valid(dtype)) return CT_OK;
    return ct__fail(CT_ERR_TYPE, "invalid dtype %d", (int)dtype);
}

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

/* c10's ScalarType name, as dispatch errors print it ("not implemented for 'Long'",
 * "result type Float can't be cast ..."). */
static const char *ct__dtype_title(ct_dtype dt)
{
    static const char *const names[CT_NUM_DTYPES] = {"Float", "Bool", "Byte",     "Char",  "Short", "Int",
                                                     "Long",  "Half", "BFloat16", "Float", "Double"};
    return ct__dtype_valid(dt) || dt == CT_DEFAULT ? names[ct__resolve(dt)] : "Undefined";
}

/* caffe2::TypeMeta's name, as bounds checks print it. */
static const char *ct__type_meta_name(ct_dtype dt)
{
    static const char *const names[CT_NUM_DTYPES] = {"float",     "bool",          "unsigned char", "signed char",
                                                     "short int", "int",           "long int",      "c10::Half",
                                                     "c10::BFloat16", "float",     "double"};
    return ct__dtype_valid(dt) || dt == CT_DEFAULT ? names[ct__resolve(dt)] : "Undefined";
}

/* The legacy tensor type name ("torch.FloatTensor") some messages use. */
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

/* A kernel PyTorch lacks for a dtype: "\"arange_cpu\" not implemented for 'Bool'". */
static ct_result ct__not_implemented(const char *kernel, ct_dtype dt)
{
    return ct__fail(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel, ct__dtype_title(dt));
}


ct_dtype ct_promote_types(ct_dtype a, ct_dtype b)
{
    a = ct__resolve(a);
    b = ct__resolve(b);
    if (!ct__dtype_valid(a) || !ct__dtype_valid(b)) return CT_DEFAULT;
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

/* A small CPU buffer lives in its storage's own block, behind the struct: one
 * allocation instead of two for the many tiny tensors of per-op overhead. Such
 * a storage is neither owned nor given a deleter, so releasing it frees the
 * block alone. Aligned as malloc aligns, enough for any element. */
#define CT__INLINE_BYTES 256
#define CT__INLINE_AT ((sizeof(ct__storage) + 15) & ~(size_t)15)

static ct__storage *ct__storage_new(size_t nbytes, ct_device device)
{
    bool inline_data = device.type == CT_DEVICE_CPU && nbytes > 0 && nbytes <= CT__INLINE_BYTES;
    ct__storage *s = (ct__storage *)CT_MALLOC(inline_data ? CT__INLINE_AT + nbytes : sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->refcount = 1;
    s->nbytes = nbytes;
    s->device = device;
    s->owned = !inline_data;
    if (inline_data) {
        s->data = (char *)s + CT__INLINE_AT;
    } else if (nbytes) {
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
    if (!ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "invalid dtype %d", (int)dtype);
        return NULL;
    }
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
    ct__ag_meta_free(t);
    ct__storage_release(t->storage);
    CT_FREE(t);
}

/* ---------------------------------------------------------------- scopes */

/* Per thread: one stack of owned tensors for all open scopes (each frame owns
 * the entries from its start), and one of tensors kept for the enclosing scope.
 * Each stack starts in a small buffer inside the thread's own storage, so that
 * a scope around one op (as every composite op opens) allocates nothing, and
 * a thread that ends leaves nothing behind once its outermost scope closed. */
#define CT__SCOPE_SMALL 32

typedef struct ct__ptrvec {
    ct_tensor **items; /* NULL until first used, then small or the heap */
    int64_t n, cap;
    ct_tensor *small[CT__SCOPE_SMALL];
} ct__ptrvec;

typedef struct ct__frame {
    int64_t owned_start, kept_start;
} ct__frame;

static CT__TLS ct__ptrvec ct__owned;
static CT__TLS ct__ptrvec ct__kept;
static CT__TLS ct__frame *ct__frames;
static CT__TLS ct__frame ct__frames_small[CT__SCOPE_SMALL];
static CT__TLS int ct__depth, ct__frames_cap;

/* A buffer of cap items of `size` bytes grown to twice that, from the heap
 * (the small buffer's contents copied over), or NULL when memory runs out. */
static void *ct__grow_buffer(void *items, const void *small, int64_t cap, size_t size)
{
    if (items != small) return CT_REALLOC(items, (size_t)(2 * cap) * size);
    void *heap = CT_MALLOC((size_t)(2 * cap) * size);
    if (heap) memcpy(heap, small, (size_t)cap * size);
    return heap;
}

static bool ct__ptrvec_push(ct__ptrvec *v, ct_tensor *t)
{
    if (!v->items) {
        v->items = v->small;
        v->cap = CT__SCOPE_SMALL;
    }
    if (v->n == v->cap) {
        ct_tensor **items = (ct_tensor **)ct__grow_buffer(v->items, v->small, v->cap, sizeof *items);
        if (!items) return false;
        v->items = items;
        v->cap *= 2;
    }
    v->items[v->n++] = t;
    return true;
}

/* An empty stack that grew onto the heap goes back to its small buffer. */
static void ct__ptrvec_shrink(ct__ptrvec *v)
{
    if (v->items == v->small) return;
    CT_FREE(v->items);
    v->items = NULL;
    v->cap = 0;
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
    if (!ct__frames) {
        ct__frames = ct__frames_small;
        ct__frames_cap = CT__SCOPE_SMALL;
    }
    if (ct__depth == ct__frames_cap) {
        ct__frame *f = (ct__frame *)ct__grow_buffer(ct__frames, ct__frames_small, ct__frames_cap, sizeof *f);
        if (!f) { /* cannot track a new scope: tensors go to the enclosing one */
            CT__OOM();
            s.depth = ct__depth;
            return s;
        }
        ct__frames = f;
        ct__frames_cap *= 2;
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
    if (ct__depth == 0) { /* the outermost scope ended: give back what came from the heap */
        ct__ptrvec_shrink(&ct__owned);
        ct__ptrvec_shrink(&ct__kept);
        if (ct__frames != ct__frames_small) {
            CT_FREE(ct__frames);
            ct__frames = NULL;
            ct__frames_cap = 0;
        }
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

bool ct_requires_grad(const ct_tensor *t) { return ct__requires_grad(t); }

ct_result ct_requires_grad_(ct_tensor *t, bool requires_grad)
{
    CT__ARG_R(t, "self", 1);
    if (!ct_is_leaf(t)) {
        if (requires_grad) return CT_OK;
        return ct__fail(CT_ERR_RUNTIME, "you can only change requires_grad flags of leaf variables. If you want to use "
                                        "a computed variable in a subgraph that doesn't require differentiation use "
                                        "var_no_grad = var.detach().");
    }
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
    ct_result r = ct__check_inplace_grad(t);
    if (r != CT_OK || t == src) return r;
    if ((r = ct__check_broadcast_to(t, src)) == CT_OK) r = ct__check_write(t, src);
    if (r != CT_OK) return r;
    ct__copy_unchecked(t, src);
    t->storage->version++;
    ct__record_copy(CT__CG_COPY, t, t, src, 0);
    return CT_OK;
}

/* fill_ and zero_ (kind says which node records it). */
static ct_result ct__fill_(ct_tensor *t, ct_scalar value, ct__copy_grad kind)
{
    uint64_t elem = 0;
    ct_result r = ct__check_inplace_grad(t);
    if (r == CT_OK) r = ct__scalar_to_elem(value, t->dtype, &elem);
    if (r != CT_OK) return r;
    if (ct_numel(t)) ct__backend_for(t->storage->device.type)->fill(t, &elem);
    t->storage->version++;
    ct__record_copy(kind, t, t, NULL, 0);
    return CT_OK;
}

ct_result ct_fill_(ct_tensor *t, ct_scalar value)
{
    CT__ARG_R(t, "self", 1);
    return ct__fill_(t, value, CT__CG_FILL);
}

ct_result ct_zero_(ct_tensor *t)
{
    CT__ARG_R(t, "self", 1);
    return ct__fill_(t, ct_int(0), CT__CG_ZERO);
}

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
    ct__record_copy(CT__CG_CLONE, r, t, NULL, 0);
    return r;
}

ct_tensor *ct_clone(const ct_tensor *t)
{
    CT__ARG(t, "self", 1);
    ct_tensor *r = ct__copy_as(t, t->dtype);
    ct__record_copy(CT__CG_CLONE, r, t, NULL, 0);
    return r;
}

ct_tensor *ct_to(const ct_tensor *t, ct_dtype dtype)
{
    CT__ARG(t, "self", 1);
    if (dtype == CT_DEFAULT || dtype == t->dtype) return ct__same(t);
    if (!ct__dtype_valid(dtype)) {
        ct__fail(CT_ERR_TYPE, "to(): invalid dtype %d", (int)dtype);
        return NULL;
    }
    ct_tensor *r = ct__copy_as(t, dtype);
    ct__record_copy(CT__CG_TO_COPY, r, t, NULL, 0);
    return r;
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

/* v, a new view of t, recorded for autograd as `name` (returns v). */
static ct_tensor *ct__recorded(ct_tensor *v, const char *name, ct__view_kind kind, const ct_tensor *t, const int64_t *p)
{
    if (v) v->is_view = true;
    ct__record_view(name, kind, v, t, p);
    return v;
}

/* view(shape), its node named `name` (ViewBackward0, or UnsafeViewBackward0 for reshape's copy). */
static ct_tensor *ct__view_named(const ct_tensor *t, ct_shape shape, const char *name)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    if (ct__view_sizes(t, shape, sizes) != CT_OK) return NULL;
    if (!ct__view_strides(t, sizes, shape.ndim, strides)) {
        ct__fail(CT_ERR_RUNTIME, "view size is not compatible with input tensor's size and stride (at least one "
                                 "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
        return NULL;
    }
    return ct__recorded(ct__view_of(t, sizes, strides, shape.ndim, t->offset), name, CT__VIEW_RESHAPE, t, NULL);
}

ct_tensor *ct_view(const ct_tensor *t, ct_shape shape)
{
    CT__ARG(t, "self", 1);
    return ct__view_named(t, shape, "ViewBackward0");
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
    if (ct__view_strides(t, sizes, shape.ndim, strides))
        return ct__recorded(ct__view_of(t, sizes, strides, shape.ndim, t->offset), "ReshapeAliasBackward0",
                            CT__VIEW_RESHAPE, t, NULL);
    ct_scope s = ct_scope_begin();
    ct_tensor *c = ct_contiguous(t), *r = c ? ct__view_named(c, ct_shape_make(shape.ndim, sizes), "UnsafeViewBackward0") : NULL;
    if (r && r != c) r->is_view = false; /* a view of reshape's own copy is no view of t */
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
    return ct__recorded(ct__view_of(t, size.size, stride.size, size.ndim, storage_offset), "AsStridedBackward0",
                        CT__VIEW_STRIDED, t, NULL);
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
    int64_t dims[2] = {a, b};
    return ct__recorded(ct__view_of(t, sizes, strides, t->ndim, t->offset), "TransposeBackward0", CT__VIEW_TRANSPOSE,
                        t, dims);
}

ct_tensor *ct_t(const ct_tensor *t)
{
    CT__ARG(t, "self", 1);
    if (t->ndim > 2) {
        ct__fail(CT_ERR_RUNTIME, "t() expects a tensor with <= 2 dimensions, but self is %dD", t->ndim);
        return NULL;
    }
    int64_t dims[2] = {0, 1};
    if (t->ndim < 2) /* a view all the same, as PyTorch's */
        return ct__recorded(ct__view_of(t, t->sizes, t->strides, t->ndim, t->offset), "TBackward0", CT__VIEW_RESHAPE, t,
                            NULL);
    ct_tensor *v = ct__view_of(t, t->sizes, t->strides, t->ndim, t->offset);
    if (v) {
        v->sizes[0] = t->sizes[1], v->sizes[1] = t->sizes[0];
        v->strides[0] = t->strides[1], v->strides[1] = t->strides[0];
    }
    return ct__recorded(v, "TBackward0", CT__VIEW_TRANSPOSE, t, dims);
}

ct_tensor *ct_permute(const ct_tensor *t, ct_shape dims)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], perm[CT_MAX_DIMS];
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
        perm[i] = d;
    }
    return ct__recorded(ct__view_of(t, sizes, strides, t->ndim, t->offset), "PermuteBackward0", CT__VIEW_PERMUTE, t,
                        perm);
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
    return ct__recorded(ct__view_of(t, sizes, strides, n, t->offset), "SqueezeBackward0", CT__VIEW_RESHAPE, t, NULL);
}

ct_tensor *ct_squeeze_dim(const ct_tensor *t, int dim)
{
    CT__ARG(t, "self", 1);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return NULL;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (i != d || t->sizes[d] != 1) {
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    return ct__recorded(ct__view_of(t, sizes, strides, n, t->offset), "SqueezeBackward1", CT__VIEW_RESHAPE, t, NULL);
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
    int64_t at = d;
    return ct__recorded(ct__view_of(t, sizes, strides, t->ndim + 1, t->offset), "UnsqueezeBackward0", CT__VIEW_UNSQUEEZE,
                        t, &at);
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
    return ct__recorded(ct__view_of(t, sizes.size, out_strides, sizes.ndim, t->offset), "ExpandBackward0",
                        CT__VIEW_EXPAND, t, NULL);
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
    return ct__recorded(ct__view_of(t, sizes, strides, t->ndim - 1, t->offset + index * t->strides[d]),
                        "SelectBackward0", CT__VIEW_STRIDED, t, NULL);
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
    return ct__recorded(ct__view_of(t, sizes, strides, t->ndim, t->offset + start * t->strides[d]), "SliceBackward0",
                        CT__VIEW_STRIDED, t, NULL);
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
    return ct__recorded(ct__view_of(t, sizes, strides, n + 1, t->offset), "UnfoldBackward0", CT__VIEW_STRIDED, t, NULL);
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
    return ct__recorded(ct__view_of(t, sizes, strides, n, start), "DiagonalBackward0", CT__VIEW_STRIDED, t, NULL);
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
    if (dtype == CT_BOOL) {
        ct__not_implemented("arange_cpu", dtype);
        return NULL;
    }
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
        ct__not_implemented(kernel, dt);
        return NULL;
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
    int64_t numel;
    if (n < 0 || m < 0) {
        ct__fail(CT_ERR_RUNTIME, "%s must be greater or equal to 0, got %lld", n < 0 ? "n" : "m",
                 (long long)(n < 0 ? n : m));
        return NULL;
    }
    if (!ct__mul_ok(n, m, &numel)) {
        ct__fail(CT_ERR_RUNTIME, "numel: integer multiplication overflow");
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
    ct_grad_mode mode = ct_set_grad_enabled(false); /* one DiagBackward0 node, not the copies inside */
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
    ct_grad_mode_restore(mode);
    ct__record_copy(CT__CG_DIAG, r, t, NULL, diagonal);
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
    ct_tensor *r = ct__triangle(t, diagonal, false);
    ct__record_copy(CT__CG_TRIL, r, t, NULL, diagonal);
    return r;
}

ct_tensor *ct_triu(const ct_tensor *t, int64_t diagonal)
{
    CT__ARG(t, "self", 1);
    ct_tensor *r = ct__triangle(t, diagonal, true);
    ct__record_copy(CT__CG_TRIU, r, t, NULL, diagonal);
    return r;
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
    bool recorded = ct__grad_mode(); /* callers that write through the view turn grad mode off */
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
    ct_tensor *cur = recorded ? ct__same(t) : ct_detach(t);
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

/* Record r = view[advanced indices] as IndexBackward0: it keeps the flat
 * position in view of every element r took, found by the same walk over
 * the positions themselves. */
static ct_tensor *ct__ix_record(ct_tensor *r, const ct_tensor *view, const ct__ix_plan *plan)
{
    if (!r || !ct__requires_grad(view) || !ct__grad_mode()) return r;
    ct_tensor *where = ct__alloc(r->sizes, r->ndim, CT_I64, r->storage->device);
    ct_tensor *flat = ct_arange(ct_int(0), ct_int(ct_numel(view)), ct_int(1), CT_I64);
    ct_tensor *pos = flat ? ct_reshape(flat, ct_shape_of(view)) : NULL;
    if (!where || !pos) return NULL; /* the scope ct_index holds open frees them, and r */
    if (ct_numel(where)) ct__ix_walk(pos, plan, where, false);
    ct__join_args a = ct__join_args_init(0);
    a.index = where;
    ct__record_join(CT__JG_INDEX, &view, 1, &r, 1, &a);
    return r;
}

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
        r = ct__ix_record(r, view, &plan);
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
                        ct__dtype_title(view->dtype), ct__dtype_title(value->dtype));
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

/* Whether indexing with items goes through a view of t first (an int, a
 * slice or None), as PyTorch's setitem does before it writes. */
static bool ct__ix_makes_view(const ct__ix_item *items, int n)
{
    for (int k = 0; k < n; k++)
        if (items[k].kind == CT__IX_INT || items[k].kind == CT__IX_SLICE || items[k].kind == CT__IX_NONE) return true;
    return false;
}

/* The flat position in t of every element t[items] names: the same
 * indexing applied to t's positions. */
static ct_tensor *ct__ix_positions(const ct_tensor *t, const ct__ix_item *items, int n)
{
    ct__ix_adv adv;
    ct__ix_plan plan;
    ct_tensor *flat = ct_arange(ct_int(0), ct_int(ct_numel(t)), ct_int(1), CT_I64);
    ct_tensor *pos = flat ? ct_reshape(flat, ct_shape_of(t)) : NULL;
    ct_tensor *view = pos ? ct__ix_apply_basic(pos, items, n, &adv) : NULL;
    if (!view || !adv.count) return view;
    if (ct__ix_plan_make(view, &adv, &plan) != CT_OK) return NULL;
    ct_tensor *where = ct__alloc(plan.out_sizes, plan.out_ndim, CT_I64, t->storage->device);
    if (where && ct_numel(where)) ct__ix_walk(view, &plan, where, false);
    return where;
}

/* Record t[items] = value as one node over t's old self and value: it keeps
 * the positions written (IndexPutBackward0, or CopySlices through a view). */
static void ct__ix_put_record(ct_tensor *t, const ct_tensor *value, const ct__ix_item *items, int n, bool advanced)
{
    if (!ct__grad_mode() || (!ct__requires_grad(t) && !ct__requires_grad(value))) return;
    ct__join_args a = ct__join_args_init(0);
    a.index = ct__ix_positions(t, items, n);
    if (!a.index) return;
    ct__join_grad kind = advanced ? CT__JG_INDEX_PUT : ct__ix_makes_view(items, n) ? CT__JG_COPY_SLICES : CT__JG_COPY_ALL;
    const ct_tensor *in[2] = {t, value};
    ct__record_join(kind, in, 2, &t, 1, &a);
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
    if (r == CT_OK && ct__grad_mode() && t->requires_grad && ct_is_leaf(t))
        r = ct__fail(CT_ERR_RUNTIME, "a %sleaf Variable that requires grad is being used in an in-place operation.",
                     ct__ix_makes_view(items, n) ? "view of a " : "");
    ct_grad_mode mode = ct_set_grad_enabled(false); /* the write is recorded once, below */
    ct_tensor *view = r == CT_OK ? ct__ix_apply_basic(t, items, n, &adv) : NULL;
    ct_tensor *v = view ? ct__ix_strip_leading_ones(value) : NULL;
    if (!v) {
        r = ct_last_error_code();
    } else if (adv.count) {
        r = ct__ix_put_advanced(view, &adv, v);
        if (r == CT_OK) t->storage->version++;
    } else if (!(v = ct_expand(v, ct_shape_of(view)))) {
        r = ct_last_error_code();
    } else {
        r = ct_copy_(view, v); /* counts the write */
    }
    ct_grad_mode_restore(mode);
    if (r == CT_OK) ct__ix_put_record(t, value, items, n, adv.count > 0);
    ct_scope_end(s);
    return r;
}

/* ==================== tensor/random.c ==================== */
// >>tensor/random.c
/* Random numbers: PyTorch's CPU generator and the distributions of its CPU
 * kernels, reproduced draw for draw so that a seed gives PyTorch's numbers.
 *
 * The engine is at::mt19937 (32-bit outputs; a 64-bit draw is two of them,
 * the first as the high half). A uniform of a floating dtype takes the low
 * `digits` bits of one draw (24 for float, 53 for double from a 64-bit draw,
 * 11 for half, 8 for bfloat16) scaled by 2^-digits. The serial kernels fill
 * their output in TensorIterator order, which ct__iter reproduces. Where
 * PyTorch computes in a narrower type (float, half, bfloat16) we compute in
 * double and round to it after each operation, which gives the same result
 * for + - * / and sqrt (double has over twice their precision); PyTorch's AVX2
 * kernels fuse some multiply-adds, and so does fma() here, in the same places. */


#define CT__MT_N 624
#define CT__MT_M 397
#define CT__DEFAULT_SEED 67280421310721ULL
/* sizeof(at::CPUGeneratorImplState): what torch.get_rng_state() returns. */
#define CT__STATE_BYTES 5056

static const double ct__pi = 3.14159265358979323846;

struct ct_generator {
    long lock; /* a spinlock, as PyTorch holds generator->mutex_ around a kernel */
    bool seeded; /* false only for the default generator before its first use */
    uint64_t seed;
    int left; /* mt19937_data_pod's fields, kept as PyTorch keeps them for get_state */
    uint32_t next;
    uint32_t state[CT__MT_N];
    bool has_normal; /* Box-Muller's second sample (next_double_normal_sample) */
    double normal;
    bool has_normal_f; /* next_float_normal_sample: only ever set through set_state */
    float normal_f;
};

static ct_generator ct__default_gen; /* zero: unlocked, seeded on first use */

/* ---------------------------------------------------------------- the engine */

static void ct__mt_seed(ct_generator *g, uint64_t seed)
{
    g->seed = seed;
    g->seeded = true;
    g->state[0] = (uint32_t)seed;
    for (uint32_t j = 1; j < CT__MT_N; j++)
        g->state[j] = 1812433253u * (g->state[j - 1] ^ (g->state[j - 1] >> 30)) + j;
    g->left = 1;
    g->next = 0;
    g->has_normal = g->has_normal_f = false;
}

static uint32_t ct__mt_twist(uint32_t u, uint32_t v)
{
    return (((u & 0x80000000u) | (v & 0x7fffffffu)) >> 1) ^ (v & 1 ? 0x9908b0dfu : 0);
}

static uint32_t ct__rand32(ct_generator *g)
{
    if (--g->left == 0) { /* regenerate the whole state */
        uint32_t *s = g->state;
        int j;
        for (j = 0; j < CT__MT_N - CT__MT_M; j++) s[j] = s[j + CT__MT_M] ^ ct__mt_twist(s[j], s[j + 1]);
        for (; j < CT__MT_N - 1; j++) s[j] = s[j + CT__MT_M - CT__MT_N] ^ ct__mt_twist(s[j], s[j + 1]);
        s[j] = s[j + CT__MT_M - CT__MT_N] ^ ct__mt_twist(s[j], s[0]);
        g->left = CT__MT_N;
        g->next = 0;
    }
    uint32_t y = g->state[g->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

static uint64_t ct__rand64(ct_generator *g)
{
    uint64_t hi = ct__rand32(g);
    return hi << 32 | ct__rand32(g);
}

/* ---------------------------------------------------------------- generators */

static void ct__gen_unlock(ct_generator *g)
{
#if defined(__GNUC__) || defined(__clang__)
    __atomic_store_n(&g->lock, 0L, __ATOMIC_RELEASE);
#else
    _InterlockedExchange((volatile long *)&g->lock, 0);
#endif
}

/* g (NULL: the default generator) locked and seeded. */
static ct_generator *ct__gen_lock(ct_generator *g)
{
    if (!g) g = &ct__default_gen;
#if defined(__GNUC__) || defined(__clang__)
    while (__atomic_exchange_n(&g->lock, 1L, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&g->lock, __ATOMIC_RELAXED)) continue;
#else
    while (_InterlockedExchange((volatile long *)&g->lock, 1)) continue;
#endif
    if (!g->seeded) ct__mt_seed(g, CT__DEFAULT_SEED);
    return g;
}

ct_generator *ct_default_generator(void) { return &ct__default_gen; }

ct_generator *ct_generator_new(void)
{
    ct_generator *g = (ct_generator *)CT_MALLOC(sizeof *g);
    if (!g) {
        CT__OOM();
        return NULL;
    }
    memset(g, 0, sizeof *g);
    ct__mt_seed(g, CT__DEFAULT_SEED);
    return g;
}

void ct_generator_free(ct_generator *g)
{
    if (g != &ct__default_gen) CT_FREE(g);
}

void ct_generator_manual_seed(ct_generator *g, uint64_t seed)
{
    g = ct__gen_lock(g);
    ct__mt_seed(g, seed);
    ct__gen_unlock(g);
}

uint64_t ct_generator_initial_seed(const ct_generator *g)
{
    ct_generator *locked = ct__gen_lock((ct_generator *)g);
    uint64_t seed = locked->seed;
    ct__gen_unlock(locked);
    return seed;
}

void ct_manual_seed(uint64_t seed) { ct_generator_manual_seed(NULL, seed); }
uint64_t ct_initial_seed(void) { return ct_generator_initial_seed(NULL); }

/* A nondeterministic seed: /dev/urandom as PyTorch reads it, else the clock. */
static uint64_t ct__fresh_seed(void)
{
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        size_t got = fread(&s, sizeof s, 1, f);
        fclose(f);
        if (got == 1) return s;
    }
    s = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)clock();
    return s ^ (s >> 31);
}

uint64_t ct_seed(void)
{
    uint64_t s = ct__fresh_seed();
    ct_manual_seed(s);
    return s;
}

/* The state bytes are at::CPUGeneratorImplState's layout, so that states move
 * between ctorch and torch.get_rng_state / set_rng_state. */
enum {
    CT__ST_SEED = 0, CT__ST_LEFT = 8, CT__ST_SEEDED = 12, CT__ST_NEXT = 16, CT__ST_STATE = 24,
    CT__ST_NORMAL_Y = 5024, CT__ST_NORMAL_VALID = 5040, CT__ST_FLOAT = 5048, CT__ST_FLOAT_VALID = 5052
};

size_t ct_generator_state_size(void) { return CT__STATE_BYTES; }

void ct_generator_get_state(const ct_generator *g, void *state)
{
    unsigned char *b = (unsigned char *)state;
    ct_generator *src = ct__gen_lock((ct_generator *)g);
    int seeded = 1, normal_valid = src->has_normal;
    uint64_t next = src->next;
    double normal = src->has_normal ? src->normal : 0.0;
    float normal_f = src->has_normal_f ? src->normal_f : 0.0f;
    memset(b, 0, CT__STATE_BYTES);
    memcpy(b + CT__ST_SEED, &src->seed, 8);
    memcpy(b + CT__ST_LEFT, &src->left, 4);
    memcpy(b + CT__ST_SEEDED, &seeded, 4);
    memcpy(b + CT__ST_NEXT, &next, 8);
    for (int j = 0; j < CT__MT_N; j++) {
        uint64_t w = src->state[j];
        memcpy(b + CT__ST_STATE + 8 * j, &w, 8);
    }
    memcpy(b + CT__ST_NORMAL_Y, &normal, 8);
    memcpy(b + CT__ST_NORMAL_VALID, &normal_valid, 4);
    memcpy(b + CT__ST_FLOAT, &normal_f, 4);
    b[CT__ST_FLOAT_VALID] = src->has_normal_f;
    ct__gen_unlock(src);
}

ct_result ct_generator_set_state(ct_generator *g, const void *state, size_t size)
{
    const unsigned char *b = (const unsigned char *)state;
    int left, seeded, normal_valid;
    uint64_t seed, next;
    if (!b) return ct__fail(CT_ERR_TYPE, "set_state(): argument 'new_state' (position 1) must be Tensor, not NULL");
    if (size != ct_generator_state_size())
        return ct__fail(CT_ERR_RUNTIME,
                        "Expected either a CPUGeneratorImplStateLegacy of size 5048 or a CPUGeneratorImplState of size "
                        "%d but found the input RNG state size to be %d",
                        (int)ct_generator_state_size(), (int)size);
    memcpy(&seed, b + CT__ST_SEED, 8);
    memcpy(&left, b + CT__ST_LEFT, 4);
    memcpy(&seeded, b + CT__ST_SEEDED, 4);
    memcpy(&next, b + CT__ST_NEXT, 8);
    memcpy(&normal_valid, b + CT__ST_NORMAL_VALID, 4);
    if (!seeded || left <= 0 || left > CT__MT_N || (uint32_t)next > CT__MT_N)
        return ct__fail(CT_ERR_RUNTIME, "Invalid mt19937 state");
    g = ct__gen_lock(g);
    g->seed = seed;
    g->left = left;
    g->next = (uint32_t)next;
    for (int j = 0; j < CT__MT_N; j++) {
        uint64_t w;
        memcpy(&w, b + CT__ST_STATE + 8 * j, 8);
        g->state[j] = (uint32_t)w;
    }
    g->has_normal = normal_valid != 0;
    memcpy(&g->normal, b + CT__ST_NORMAL_Y, 8);
    g->has_normal_f = b[CT__ST_FLOAT_VALID] != 0;
    memcpy(&g->normal_f, b + CT__ST_FLOAT, 4);
    ct__gen_unlock(g);
    return CT_OK;
}

/* ---------------------------------------------------------------- distributions */

/* Mantissa bits (std::numeric_limits<T>::digits) of a floating dtype. */
static int ct__digits(ct_dtype dt)
{
    return dt == CT_F64 ? 53 : dt == CT_F32 ? 24 : dt == CT_F16 ? 11 : 8;
}

/* The largest finite value of a floating dtype. */
static double ct__dtype_max(ct_dtype dt)
{
    return dt == CT_F64 ? DBL_MAX : dt == CT_F32 ? FLT_MAX : dt == CT_F16 ? 65504.0 : 3.3895313892515355e38;
}

/* uniform_real_distribution<T>(from, to), from and to already of dtype dt:
 * a float result for float, half and bfloat16 (PyTorch's dist_acctype). */
static double ct__uniform(ct_generator *g, ct_dtype dt, double from, double to)
{
    if (dt == CT_F64) {
        double x = (double)(ct__rand64(g) & ((1ULL << 53) - 1)) * 0x1p-53;
        return from == 0 && to == 1 ? x : fma(x, to - from, from); /* x * 1 + 0 is x: skip the fma */
    }
    uint32_t bits = ct__rand32(g);
    float x = dt == CT_F32 ? (float)(bits & 0xffffff) * 0x1p-24f
            : dt == CT_F16 ? (float)(bits & 0x7ff) * 0x1p-11f : (float)(bits & 0xff) * 0x1p-8f;
    return from == 0 && to == 1 ? x : fmaf(x, (float)ct__round_to(to - from, dt), (float)from);
}

/* normal_distribution<double>: Box-Muller on two 53-bit uniforms, the second
 * sample kept for the next call. */
static double ct__normal(ct_generator *g, double mean, double std)
{
    double z;
    if (g->has_normal) {
        g->has_normal = false;
        z = g->normal;
    } else {
        double u1 = ct__uniform(g, CT_F64, 0, 1), u2 = ct__uniform(g, CT_F64, 0, 1);
        double r = sqrt(-2.0 * log(1.0 - u2)), theta = 2.0 * ct__pi * u1;
        g->normal = r * sin(theta);
        g->has_normal = true;
        z = r * cos(theta);
    }
    return fma(z, std, mean);
}

/* One element drawn into `elem` (of dtype dt); arg holds the distribution's parameters. */
typedef void (*ct__draw_fn)(ct_generator *g, const void *arg, char *elem, ct_dtype dt);

typedef struct ct__fill {
    ct_generator *g;
    ct_dtype dtype;
    ct__draw_fn draw;
    const void *arg;
} ct__fill;

static void ct__fill_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const ct__fill *f = (const ct__fill *)ctx;
    for (int64_t i = 0; i < n; i++) f->draw(f->g, f->arg, data[0] + i * strides[0], f->dtype);
}

/* Fill t one draw per element in TensorIterator order (cpu_serial_kernel). */
static void ct__fill_serial(ct_tensor *t, ct_generator *g, ct__draw_fn draw, const void *arg)
{
    ct__iter it;
    const ct_tensor *ops[1];
    ct__fill f;
    ops[0] = t;
    f.g = g;
    f.dtype = t->dtype;
    f.draw = draw;
    f.arg = arg;
    ct__iter_init(&it, 1, ops);
    ct__iter_serial(&it, ct__fill_loop, &f);
}

/* arg: {from, to} of dtype dt */
static void ct__draw_uniform(ct_generator *g, const void *arg, char *elem, ct_dtype dt)
{
    const double *a = (const double *)arg;
    ct__write_f64(elem, dt, ct__uniform(g, dt, a[0], a[1]));
}

/* arg: {mean, std} */
static void ct__draw_normal(ct_generator *g, const void *arg, char *elem, ct_dtype dt)
{
    const double *a = (const double *)arg;
    ct__write_f64(elem, dt, ct__normal(g, a[0], a[1]));
}

/* arg: lambda */
static void ct__draw_exponential(ct_generator *g, const void *arg, char *elem, ct_dtype dt)
{
    double u = ct__uniform(g, CT_F64, 0, 1);
    ct__write_f64(elem, dt, -1.0 / *(const double *)arg * log(1.0 - u));
}

/* arg: p */
static void ct__draw_bernoulli(ct_generator *g, const void *arg, char *elem, ct_dtype dt)
{
    ct__write_f64(elem, dt, ct__uniform(g, CT_F64, 0, 1) < *(const double *)arg);
}

/* arg: {range, base, whether to draw 64 bits}; (draw % range + base) wraps
 * in uint64 and is then read as an int64, as uniform_int_from_to does. */
static void ct__draw_int(ct_generator *g, const void *arg, char *elem, ct_dtype dt)
{
    const uint64_t *a = (const uint64_t *)arg;
    uint64_t v = a[2] ? ct__rand64(g) : ct__rand32(g);
    ct__write_i64(elem, dt, (int64_t)(v % a[0] + a[1]));
}

/* An internal-overlap check (TensorIterator's) for the in-place samplers. */
static ct_result ct__check_writable(const ct_tensor *t)
{
    return ct__has_internal_overlap(t) ? ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_internal_overlap) : CT_OK;
}

/* ---------------------------------------------------------------- uniform_ */

ct_result ct_uniform_(ct_tensor *t, double from, double to, ct_generator *g)
{
    CT__ARG_R(t, "self", 1);
    ct_dtype dt = t->dtype;
    if (!ct_dtype_is_floating(dt)) return ct__not_implemented("check_uniform_bounds", dt);
    double max = ct__dtype_max(dt);
    if (!(from >= -max && from <= max))
        return ct__fail(CT_ERR_RUNTIME, "from is out of bounds for %s", ct__type_meta_name(dt));
    if (!(to >= -max && to <= max))
        return ct__fail(CT_ERR_RUNTIME, "to is out of bounds for %s", ct__type_meta_name(dt));
    if (!(from <= to))
        return ct__fail(CT_ERR_RUNTIME, "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                        from, to);
    if (!(to - from <= max))
        return ct__fail(CT_ERR_RUNTIME,
                        "uniform_ expects to-from <= std::numeric_limits<%s>::max(), but found to=%g and from=%g "
                        "which result in to-from to exceed the limit",
                        ct__dtype_title(dt), to, from);
    if (ct__check_writable(t) != CT_OK) return ct_last_error_code();
    double arg[2];
    arg[0] = ct__round_to(from, dt);
    arg[1] = ct__round_to(to, dt);
    g = ct__gen_lock(g);
    ct__fill_serial(t, g, ct__draw_uniform, arg);
    ct__gen_unlock(g);
    return CT_OK;
}

/* ---------------------------------------------------------------- normal_ */

/* log256_ps of avx_mathfun.h (cephes' logf) on one lane, with the
 * multiply-adds that GCC fuses there. x is 1 - u for a uniform u: in
 * [2^-24, 1], clear of the zeros and denormals that log256_ps also handles. */
static float ct__avx_logf(float x)
{
    static const float p[9] = {7.0376836292E-2f, -1.1514610310E-1f, 1.1676998740E-1f,
                               -1.2420140846E-1f, 1.4249322787E-1f, -1.6668057665E-1f,
                               2.0000714765E-1f, -2.4999993993E-1f, 3.3333331174E-1f};
    uint32_t bits;
    memcpy(&bits, &x, 4);
    float e = (float)((int32_t)(bits >> 23) - 0x7f) + 1.0f;
    bits = (bits & ~0x7f800000u) | 0x3f000000u; /* the mantissa as a number in [0.5, 1) */
    memcpy(&x, &bits, 4);
    float tmp = 0.0f;
    if (x < 0.707106781186547524f) {
        tmp = x;
        e -= 1.0f;
    }
    x = x - 1.0f;
    x = x + tmp;
    float z = x * x, y = p[0];
    for (int i = 1; i < 9; i++) y = fmaf(y, x, p[i]);
    y = y * x;
    y = fmaf(y, z, e * -2.12194440e-4f);
    y = fmaf(-z, 0.5f, y);
    return fmaf(e, 0.693359375f, x + y);
}

/* sincos256_ps of avx_mathfun.h (cephes' sinf and cosf) on one lane, for
 * x = 2 pi u >= 0 (the sign handling of negative x is left out). */
static void ct__avx_sincosf(float x, float *s, float *c)
{
    int32_t j = (int32_t)(x * 1.27323954473516f); /* 4/pi */
    j = (j + 1) & ~1;
    float y = (float)j;
    uint32_t sign_sin = (j & 4) ? 0x80000000u : 0;
    uint32_t sign_cos = (~(uint32_t)(j - 2) & 4) ? 0x80000000u : 0;
    bool sin_poly = (j & 2) == 0; /* the sine polynomial serves the sine */
    x = fmaf(y, -0.78515625f, x);
    x = fmaf(y, -2.4187564849853515625e-4f, x);
    x = fmaf(y, -3.77489497744594108e-8f, x);
    float z = x * x;
    float yc = fmaf(2.443315711809948E-005f, z, -1.388731625493765E-003f);
    yc = fmaf(yc, z, 4.166664568298827E-002f);
    yc = yc * z;
    yc = fmaf(yc, z, -(z * 0.5f));
    yc = yc + 1.0f;
    float ys = fmaf(-1.9515295891E-4f, z, 8.3321608736E-3f);
    ys = fmaf(ys, z, -1.6666654611E-1f);
    ys = ys * z;
    ys = fmaf(ys, x, x);
    /* the lanes add the unused polynomial's zero: -0 becomes +0 */
    float vs = (sin_poly ? ys : yc) + 0.0f, vc = (sin_poly ? yc : ys) + 0.0f;
    uint32_t b;
    memcpy(&b, &vs, 4);
    b ^= sign_sin;
    memcpy(s, &b, 4);
    memcpy(&b, &vc, 4);
    b ^= sign_cos;
    memcpy(c, &b, 4);
}

/* Box-Muller on 16 uniforms in place: v[j] and v[j + 8] become the cosine and
 * sine samples of the pair (1 - v[j], v[j + 8]) (normal_fill_16 and, for
 * float, normal_fill_16_AVX2). v holds values of dtype dt. */
static void ct__normal16(double *v, ct_dtype dt, double mean, double std)
{
    for (int j = 0; j < 8; j++) {
        double u1 = ct__round_to(1.0 - v[j], dt), u2 = v[j + 8];
        if (dt == CT_F64) {
            double radius = sqrt(-2.0 * log(u1)), theta = 2.0 * ct__pi * u2;
            v[j] = fma(radius * cos(theta), std, mean);
            v[j + 8] = fma(radius * sin(theta), std, mean);
        } else if (dt == CT_F32) {
            float radius = sqrtf(-2.0f * ct__avx_logf((float)u1)), s, c;
            ct__avx_sincosf((float)(2.0 * ct__pi) * (float)u2, &s, &c);
            v[j] = fmaf(radius * c, (float)std, (float)mean);
            v[j + 8] = fmaf(radius * s, (float)std, (float)mean);
        } else if (dt == CT_F16) { /* half has no math functions: float's, and float arithmetic */
            double radius = ct__round_to(sqrtf(-2.0f * logf((float)u1)), dt);
            float theta = (float)ct__round_to(2.0 * ct__pi * u2, dt);
            v[j] = fmaf((float)radius * cosf(theta), (float)std, (float)mean);
            v[j + 8] = fmaf((float)radius * sinf(theta), (float)std, (float)mean);
        } else { /* bfloat16 has its own functions (BFloat16-math.h): every step rounds */
            double radius = ct__round_to(sqrtf((float)ct__round_to(-2.0 * ct__round_to(logf((float)u1), dt), dt)), dt);
            float theta = (float)ct__round_to(2.0 * ct__pi * u2, dt);
            double c = ct__round_to(cosf(theta), dt), s = ct__round_to(sinf(theta), dt);
            v[j] = ct__round_to(ct__round_to(ct__round_to(radius * c, dt) * std, dt) + mean, dt);
            v[j + 8] = ct__round_to(ct__round_to(ct__round_to(radius * s, dt) * std, dt) + mean, dt);
        }
    }
}

/* Transform the 16 elements at p (uniforms of dtype dt) in place. */
static void ct__normal16_at(char *p, ct_dtype dt, size_t es, double mean, double std)
{
    double v[16];
    for (int j = 0; j < 16; j++) v[j] = ct__read_f64(p + j * es, dt);
    ct__normal16(v, dt, mean, std);
    for (int j = 0; j < 16; j++) ct__write_f64(p + j * es, dt, v[j]);
}

/* normal_fill: uniforms for every element first, then Box-Muller on blocks of
 * 16; a last partial block is redone on the last 16 elements with fresh draws. */
static void ct__normal_fill(ct_tensor *t, ct_generator *g, double mean, double std)
{
    ct_dtype dt = t->dtype;
    int64_t n = ct_numel(t), i;
    size_t es = ct__esize(t);
    char *p = ct__data(t);
    mean = ct__round_to(mean, dt);
    std = ct__round_to(std, dt);
    for (i = 0; i < n; i++) ct__write_f64(p + (size_t)i * es, dt, ct__uniform(g, dt, 0, 1));
    for (i = 0; i + 16 <= n; i += 16) ct__normal16_at(p + (size_t)i * es, dt, es, mean, std);
    if (n % 16) {
        p += (size_t)(n - 16) * es;
        for (i = 0; i < 16; i++) ct__write_f64(p + (size_t)i * es, dt, ct__uniform(g, dt, 0, 1));
        ct__normal16_at(p, dt, es, mean, std);
    }
}

/* normal_kernel, after the std check. */
static ct_result ct__normal_kernel(ct_tensor *t, double mean, double std, ct_generator *g)
{
    if (!ct_dtype_is_floating(t->dtype)) return ct__not_implemented("normal_kernel_cpu", t->dtype);
    bool fill = ct_numel(t) >= 16 && ct__is_contiguous(t);
    if (!fill && ct__check_writable(t) != CT_OK) return ct_last_error_code();
    g = ct__gen_lock(g);
    if (fill) {
        ct__normal_fill(t, g, mean, std);
    } else {
        double arg[2];
        arg[0] = mean;
        arg[1] = std;
        ct__fill_serial(t, g, ct__draw_normal, arg);
    }
    ct__gen_unlock(g);
    return CT_OK;
}

ct_result ct_normal_(ct_tensor *t, double mean, double std, ct_generator *g)
{
    CT__ARG_R(t, "self", 1);
    if (!(std >= 0.0)) return ct__fail(CT_ERR_RUNTIME, "normal expects std >= 0.0, but found std %g", std);
    return ct__normal_kernel(t, mean, std, g);
}

/* ---------------------------------------------------------------- random_ */

/* update_from / update_to: move a bound of a floating dtype inwards to the
 * nearest value that does not round outside [from, to). */
static int64_t ct__as_dtype_i64(int64_t v, ct_dtype dt)
{
    uint64_t elem = 0;
    ct__write_i64(&elem, dt, v);
    return ct__trunc_i64(ct__read_f64(&elem, dt));
}

/* floor(log2(|v|)) for v != 0. */
static int ct__floor_log2(int64_t v)
{
    int n = 0;
    uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    while (a >>= 1) n++;
    return n;
}

static int64_t ct__update_from(int64_t from, ct_dtype dt)
{
    int64_t rounded = ct__as_dtype_i64(from + 1, dt);
    if (rounded < from) from = rounded + ((int64_t)1 << (ct__floor_log2(from + 1) - ct__digits(dt) + 1));
    return from;
}

static int64_t ct__update_to(int64_t to, ct_dtype dt)
{
    int64_t rounded = ct__as_dtype_i64(to - 1, dt);
    if (rounded >= to) to = rounded - ((int64_t)1 << (ct__floor_log2(to - 1) - ct__digits(dt) + 1));
    return to;
}

/* check_from_to_in_range */
static ct_result ct__check_random_bounds(int64_t from, int64_t to_inc, ct_dtype dt)
{
    const char *which = NULL;
    if (ct_dtype_is_floating(dt)) {
        double max = ct__dtype_max(dt);
        which = !((double)from >= -max && (double)from <= max) ? "from"
              : !((double)to_inc >= -max && (double)to_inc <= max) ? "to - 1" : NULL;
    } else {
        int64_t lo = 0, hi = 1; /* bool */
        switch (dt) {
        case CT_U8: hi = 255; break;
        case CT_I8: lo = -128, hi = 127; break;
        case CT_I16: lo = -32768, hi = 32767; break;
        case CT_I32: lo = INT32_MIN, hi = INT32_MAX; break;
        case CT_I64: lo = INT64_MIN, hi = INT64_MAX; break;
        default: break;
        }
        which = !(from >= lo && from <= hi) ? "from" : !(to_inc >= lo && to_inc <= hi) ? "to - 1" : NULL;
    }
    return which ? ct__fail(CT_ERR_RUNTIME, "%s is out of bounds for %s", which, ct__type_meta_name(dt)) : CT_OK;
}

ct_result ct_random_(ct_tensor *t, int64_t from, int64_t to, ct_generator *g)
{
    CT__ARG_R(t, "self", 1);
    ct_dtype dt = t->dtype;
    if (ct__check_writable(t) != CT_OK) return ct_last_error_code();
    if (from >= to)
        return ct__fail(CT_ERR_RUNTIME, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                        (long long)from, (long long)to);
    if (ct_dtype_is_floating(dt)) {
        from = ct__update_from(from, dt);
        to = ct__update_to(to, dt);
        if (from >= to)
            return ct__fail(CT_ERR_RUNTIME,
                            "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got "
                            "from=%lld >= to=%lld",
                            (long long)from, (long long)to);
    }
    if (ct__check_random_bounds(from, to - 1, dt) != CT_OK) return ct_last_error_code();
    uint64_t arg[3];
    arg[0] = (uint64_t)to - (uint64_t)from;
    arg[1] = (uint64_t)from;
    /* uniform_int_from_to_distribution: 64-bit draws for wide ranges of these types */
    arg[2] = arg[0] >= (1ULL << 32) && (dt == CT_I64 || dt == CT_F64 || dt == CT_F32 || dt == CT_BF16);
    g = ct__gen_lock(g);
    ct__fill_serial(t, g, ct__draw_int, arg);
    ct__gen_unlock(g);
    return CT_OK;
}

/* ---------------------------------------------------------------- exponential_, bernoulli_ */

ct_result ct_exponential_(ct_tensor *t, double lambd, ct_generator *g)
{
    CT__ARG_R(t, "self", 1);
    if (!(lambd >= 0.0))
        return ct__fail(CT_ERR_RUNTIME, "exponential_ expects lambda >= 0.0, but found lambda=%g", lambd);
    if (ct__check_writable(t) != CT_OK) return ct_last_error_code();
    if (!ct_dtype_is_floating(t->dtype)) return ct__not_implemented("exponential_cpu", t->dtype);
    g = ct__gen_lock(g);
    ct__fill_serial(t, g, ct__draw_exponential, &lambd);
    ct__gen_unlock(g);
    return CT_OK;
}

ct_result ct_bernoulli_(ct_tensor *t, double p, ct_generator *g)
{
    CT__ARG_R(t, "self", 1);
    if (!(p >= 0 && p <= 1))
        return ct__fail(CT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
    if (ct__check_writable(t) != CT_OK) return ct_last_error_code();
    if (t->dtype == CT_F16) return ct__not_implemented("bernoulli_scalar_cpu_", t->dtype);
    g = ct__gen_lock(g);
    ct__fill_serial(t, g, ct__draw_bernoulli, &p);
    ct__gen_unlock(g);
    return CT_OK;
}

/* bernoulli with a tensor of probabilities: one draw per output element, a
 * 53-bit uniform against a double p, a 24-bit one against any other. */
typedef struct ct__bern {
    ct_generator *g;
    ct_dtype out, p;
    bool bad; /* a p outside [0, 1] stops the kernel, as its TORCH_CHECK does */
} ct__bern;

static void ct__bern_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    ct__bern *b = (ct__bern *)ctx;
    for (int64_t i = 0; i < n && !b->bad; i++) {
        double p = ct__read_f64(data[1] + i * strides[1], b->p);
        if (!(p >= 0 && p <= 1)) {
            b->bad = true;
            break;
        }
        ct_dtype u = b->p == CT_F64 ? CT_F64 : CT_F32;
        ct__write_f64(data[0] + i * strides[0], b->out, ct__uniform(b->g, u, 0, 1) < p);
    }
}

ct_tensor *ct_bernoulli(const ct_tensor *p, ct_generator *g)
{
    CT__ARG(p, "self", 1);
    if (p->dtype == CT_F16) {
        ct__not_implemented("bernoulli_tensor_cpu_self_", p->dtype);
        return NULL;
    }
    if (!ct_dtype_is_floating(p->dtype)) {
        ct__not_implemented("bernoulli_tensor_cpu_p_", p->dtype);
        return NULL;
    }
    ct_tensor *r = ct__alloc(p->sizes, p->ndim, p->dtype, ct__cpu);
    if (!r) return NULL;
    ct__iter it;
    const ct_tensor *ops[2];
    ct__bern b;
    ops[0] = r;
    ops[1] = p;
    ct__iter_init(&it, 2, ops);
    b.g = ct__gen_lock(g);
    b.out = r->dtype;
    b.p = p->dtype;
    b.bad = false;
    ct__iter_serial(&it, ct__bern_loop, &b);
    ct__gen_unlock(b.g);
    if (b.bad) {
        ct__fail(CT_ERR_RUNTIME, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                                 "message be improved?  If so, please report an enhancement request to PyTorch.)");
        ct__discard(r);
        return NULL;
    }
    return r;
}

/* ---------------------------------------------------------------- factories */

/* torch.rand and friends are empty() followed by an in-place sampler. */
static ct_tensor *ct__sampled(ct_tensor *t, ct_result r)
{
    if (t && r != CT_OK) {
        ct__discard(t);
        return NULL;
    }
    return t;
}

ct_tensor *ct_rand(ct_shape shape, ct_dtype dtype, ct_generator *g)
{
    ct_tensor *t = ct_empty(shape, dtype);
    return ct__sampled(t, t ? ct_uniform_(t, 0, 1, g) : CT_OK);
}

ct_tensor *ct_randn(ct_shape shape, ct_dtype dtype, ct_generator *g)
{
    ct_tensor *t = ct_empty(shape, dtype);
    return ct__sampled(t, t ? ct_normal_(t, 0, 1, g) : CT_OK);
}

ct_tensor *ct_normal_scalar(double mean, double std, ct_shape shape, ct_dtype dtype, ct_generator *g)
{
    ct_tensor *t = ct_empty(shape, dtype);
    return ct__sampled(t, t ? ct_normal_(t, mean, std, g) : CT_OK);
}

ct_tensor *ct_randint(int64_t low, int64_t high, ct_shape shape, ct_dtype dtype, ct_generator *g)
{
    ct_tensor *t = ct_empty(shape, dtype == CT_DEFAULT ? CT_I64 : dtype);
    return ct__sampled(t, t ? ct_random_(t, low, high, g) : CT_OK);
}

/* ---------------------------------------------------------------- normal(mean, std) */

/* An element of any dtype converted to dtype `to` (c10::convert), as a double. */
static double ct__read_as(const char *p, ct_dtype from, ct_dtype to)
{
    uint64_t elem = 0;
    if (ct_dtype_is_floating(from)) ct__write_f64(&elem, to, ct__read_f64(p, from));
    else ct__write_i64(&elem, to, ct__read_i64(p, from));
    return ct__read_f64(&elem, to);
}

/* out = out * std + mean, as out.mul_(std).add_(mean): two ops, each rounded to out's dtype. */
typedef struct ct__scale {
    ct_dtype out, std, mean, mul; /* mul: the dtype mul_ computes in */
} ct__scale;

static void ct__scale_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const ct__scale *s = (const ct__scale *)ctx;
    for (int64_t i = 0; i < n; i++) {
        char *o = data[0] + i * strides[0];
        double x = ct__read_as(o, s->out, s->mul) * ct__read_as(data[1] + i * strides[1], s->std, s->mul);
        x = ct__round_to(ct__round_to(x, s->mul), s->out);
        ct__write_f64(o, s->out, x + ct__read_f64(data[2] + i * strides[2], s->mean));
    }
}

/* CHECK_NORMAL_TENSOR_STD: every std >= 0 (a NaN fails, as std.min() does). */
static bool ct__all_nonnegative(const ct_tensor *t)
{
    bool ok = true;
    int64_t n = ct_numel(t);
    ct_scope s = ct_scope_begin();
    ct_tensor *c = ct_contiguous(t);
    for (int64_t i = 0; c && i < n && ok; i++) ok = ct__read_f64(ct__data(c) + (size_t)i * ct__esize(c), c->dtype) >= 0;
    ct_scope_end(s);
    return ok;
}

ct_tensor *ct_normal(const ct_tensor *mean, const ct_tensor *std, ct_generator *g)
{
    int64_t shape[CT_MAX_DIMS];
    int nd;
    CT__ARG(mean, "mean", 1);
    CT__ARG(std, "std", 2);
    if (!ct__all_nonnegative(std)) {
        ct__fail(CT_ERR_RUNTIME, "normal expects all elements of std >= 0.0");
        return NULL;
    }
    if (ct__broadcast_shapes(mean->sizes, mean->ndim, std->sizes, std->ndim, shape, &nd) != CT_OK) return NULL;
    ct_tensor *r = ct__alloc(shape, nd, mean->dtype, ct__cpu);
    if (!r || ct__normal_kernel(r, 0, 1, g) != CT_OK) return ct__sampled(r, ct_last_error_code());
    ct__iter it;
    const ct_tensor *ops[3];
    ct__scale s;
    ops[0] = r;
    ops[1] = std;
    ops[2] = mean;
    s.out = r->dtype;
    s.std = std->dtype;
    s.mean = mean->dtype;
    const ct_tensor *pair[2] = {r, std};
    s.mul = ct__result_type(pair, 2);
    ct__iter_init(&it, 3, ops);
    ct__iter_serial(&it, ct__scale_loop, &s);
    return r;
}

/* ---------------------------------------------------------------- randperm */

/* check_supported_max_int_with_precision */
static ct_result ct__check_randperm_n(int64_t n, ct_dtype dt)
{
    uint64_t elem;
    if (ct__scalar_to_elem(ct_int(n > 0 ? n - 1 : n), dt, &elem) != CT_OK) return ct_last_error_code();
    if (dt == CT_F16 && n > (1 << 11) + 1)
        return ct__fail(CT_ERR_RUNTIME, "n cannot be greater than 2049 for Half type.");
    if (dt == CT_F32 && n > (1 << 24) + 1)
        return ct__fail(CT_ERR_RUNTIME, "n cannot be greater than 2^24+1 for Float type.");
    if (dt == CT_F64 && n > ((int64_t)1 << 53) + 1)
        return ct__fail(CT_ERR_RUNTIME, "n cannot be greater than 2^53+1 for Double type.");
    if (dt == CT_BOOL) return ct__not_implemented("randperm", dt);
    return CT_OK;
}

ct_tensor *ct_randperm(int64_t n, ct_dtype dtype, ct_generator *g)
{
    ct_tensor *t = ct_empty(CT_SHAPE(n), dtype == CT_DEFAULT ? CT_I64 : dtype);
    if (!t || ct__check_randperm_n(n, t->dtype) != CT_OK) return ct__sampled(t, ct_last_error_code());
    if (n == 0) return t;
    char *p = ct__data(t), tmp[8];
    size_t es = ct__esize(t);
    for (int64_t i = 0; i < n; i++) ct__write_i64(p + (size_t)i * es, t->dtype, i);
    /* Fisher-Yates from the front, a 32-bit draw modulo what is left */
    g = ct__gen_lock(g);
    for (int64_t i = 0; i < n - 1; i++) {
        int64_t z = (int64_t)ct__rand32(g) % (n - i);
        memcpy(tmp, p + (size_t)i * es, es);
        memcpy(p + (size_t)i * es, p + (size_t)(z + i) * es, es);
        memcpy(p + (size_t)(z + i) * es, tmp, es);
    }
    ct__gen_unlock(g);
    return t;
}

/* ---------------------------------------------------------------- multinomial */

/* Without replacement PyTorch takes topk (or argmax) of p / q with q ~ Exp(1).
 * Equal values (zero probabilities) keep the order topk's libstdc++
 * algorithms leave them in, so the keys go through sort.c's replay of them:
 * flipped, so that the largest comes first, NaN before everything, as in
 * topk's comparator. */

/* argmax of a row: the first largest, a NaN before all. */
static int64_t ct__argmax_row(const ct__sort_kv *a, int64_t n)
{
    int64_t best = 0;
    for (int64_t j = 1; j < n; j++)
        if (a[j].key < a[best].key) best = j;
    return best;
}

/* topk(k) of a row, largest first, sorted, into out (indices). */
static void ct__topk_row(ct__sort_kv *a, int64_t n, int64_t k, int64_t *out)
{
    ct__std_topk(a, n, k, true);
    for (int64_t j = 0; j < k; j++) out[j] = a[j].idx;
}

/* Row i of a 1-D or 2-D tensor t, element j. */
static const char *ct__row_elem(const ct_tensor *t, int64_t i, int64_t j)
{
    int64_t off = t->ndim == 2 ? i * t->strides[0] + j * t->strides[1] : j * t->strides[0];
    return ct__data(t) + off * (int64_t)ct__esize(t);
}

static ct_result ct__multinomial_no_replacement(const ct_tensor *p, int64_t k, ct_tensor *out, ct_generator *g)
{
    int64_t rows = out->ndim == 2 ? out->sizes[0] : 1, cats = p->sizes[p->ndim - 1];
    bool valid = true, zero_row = false;
    for (int64_t i = 0; i < rows; i++) {
        bool any = false;
        for (int64_t j = 0; j < cats; j++) {
            double v = ct__read_f64(ct__row_elem(p, i, j), p->dtype);
            valid = valid && v >= 0 && v < INFINITY;
            any = any || v > 0;
        }
        zero_row = zero_row || !any;
    }
    if (!valid) return ct__fail(CT_ERR_RUNTIME, "probability tensor contains either `inf`, `nan` or element < 0");
    if (zero_row) return ct__fail(CT_ERR_RUNTIME, "invalid multinomial distribution (sum of probabilities <= 0)");
    ct_scope s = ct_scope_begin();
    ct_tensor *q = ct__empty_like(p, CT_DEFAULT);
    ct__sort_kv *a = (ct__sort_kv *)CT_MALLOC((size_t)cats * sizeof *a);
    ct_result r = !q || !a ? CT__OOM() : ct_exponential_(q, 1, g);
    for (int64_t i = 0; r == CT_OK && i < rows; i++) {
        for (int64_t j = 0; j < cats; j++) {
            double pv = ct__read_f64(ct__row_elem(p, i, j), p->dtype), qv = ct__read_f64(ct__row_elem(q, i, j), q->dtype);
            a[j].key = ~ct__key_f64(ct__round_to(pv / qv, p->dtype));
            a[j].idx = j;
        }
        int64_t *o = (int64_t *)(void *)ct__data(out) + i * k;
        if (k == 1) *o = ct__argmax_row(a, cats);
        else ct__topk_row(a, cats, k, o);
    }
    CT_FREE(a);
    ct_scope_end(s);
    return r;
}

/* With replacement: per row, the cumulative distribution (in float for
 * bfloat16, else in the input's dtype), normalised, then a binary search for
 * each 53-bit uniform. */
static ct_result ct__multinomial_replacement(const ct_tensor *p, int64_t k, ct_tensor *out, ct_generator *g)
{
    int64_t rows = out->ndim == 2 ? out->sizes[0] : 1, cats = p->sizes[p->ndim - 1];
    ct_dtype dt = p->dtype == CT_BF16 ? CT_F32 : p->dtype;
    double *cum = (double *)CT_MALLOC((size_t)(cats ? cats : 1) * sizeof *cum);
    if (!cum) return CT__OOM();
    ct_result r = CT_OK;
    g = ct__gen_lock(g);
    for (int64_t i = 0; i < rows && r == CT_OK; i++) {
        double sum = 0;
        for (int64_t j = 0; j < cats && r == CT_OK; j++) {
            double v = ct__read_f64(ct__row_elem(p, i, j), p->dtype);
            if (!(v >= 0)) r = ct__fail(CT_ERR_RUNTIME, "invalid multinomial distribution (encountering probability entry < 0)");
            else if (isinf(v))
                r = ct__fail(CT_ERR_RUNTIME,
                             "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
            sum = ct__round_to(sum + v, dt);
            cum[j] = sum;
        }
        if (r == CT_OK && !(sum > 0))
            r = ct__fail(CT_ERR_RUNTIME, "invalid multinomial distribution (sum of probabilities <= 0)");
        if (r != CT_OK) break;
        for (int64_t j = 0; j < cats; j++) cum[j] = ct__round_to(cum[j] / sum, dt);
        cum[cats - 1] = 1;
        int64_t *o = (int64_t *)(void *)ct__data(out) + i * k;
        for (int64_t j = 0; j < k; j++) {
            double u = ct__uniform(g, CT_F64, 0, 1);
            int64_t lo = 0, hi = cats;
            while (hi > lo) {
                int64_t mid = lo + (hi - lo) / 2;
                if (cum[mid] < u) lo = mid + 1;
                else hi = mid;
            }
            o[j] = lo;
        }
    }
    ct__gen_unlock(g);
    CT_FREE(cum);
    return r;
}

/* multinomial_out's argument checks, in its order. */
static ct_result ct__check_multinomial(const ct_tensor *p, int64_t k, bool replacement)
{
    if (p->ndim < 1 || p->ndim > 2) return ct__fail(CT_ERR_RUNTIME, "prob_dist must be 1 or 2 dim");
    if (!ct_dtype_is_floating(p->dtype))
        return ct__fail(CT_ERR_RUNTIME, "multinomial only supports floating-point dtypes for input, got: %s",
                        ct__dtype_title(p->dtype));
    if (k <= 0) return ct__fail(CT_ERR_RUNTIME, "cannot sample n_sample <= 0 samples");
    int64_t cats = p->sizes[p->ndim - 1];
    if (!replacement && k > cats)
        return ct__fail(CT_ERR_RUNTIME, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    if (cats > (1 << 24)) return ct__fail(CT_ERR_RUNTIME, "number of categories cannot exceed 2^24");
    return CT_OK;
}

ct_tensor *ct_multinomial(const ct_tensor *probs, int64_t num_samples, bool replacement, ct_generator *g)
{
    int64_t shape[2];
    CT__ARG(probs, "self", 1);
    if (ct__check_multinomial(probs, num_samples, replacement) != CT_OK) return NULL;
    shape[0] = probs->ndim == 2 ? probs->sizes[0] : num_samples;
    shape[1] = num_samples;
    ct_tensor *out = ct__alloc(shape, probs->ndim, CT_I64, ct__cpu);
    if (!out || ct_numel(out) == 0) return out;
    ct_result r;
    if (probs->dtype == CT_F16) r = ct__fail(CT_ERR_RUNTIME, "multinomial is not implemented for half on CPU");
    else if (replacement) r = ct__multinomial_replacement(probs, num_samples, out, g);
    else r = ct__multinomial_no_replacement(probs, num_samples, out, g);
    return ct__sampled(out, r);
}

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

/* The suffixes _str_intern adds for a CPU tensor, in its order; their count. */
static int ct__suffixes(const ct_tensor *t, char out[CT__SUFFIXES][CT__SUFFIX_MAX])
{
    int k = 0;
    ct_dtype def = ct_get_default_dtype();
    const char *grad_fn = ct_node_name(ct_grad_fn(t)); /* "AddBackward0", NULL for a leaf */
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

/* ==================== autograd/graph.c ==================== */
// >>autograd/graph.c
/* The autograd graph: grad mode, tensors' autograd state, recording nodes,
 * saved tensors, hooks. The engine that runs it is engine.c. */

/* ---------------------------------------------------------------- grad mode */

static CT__TLS bool ct__grad_disabled;  /* inverted so a new thread starts with grad on */
static CT__TLS bool ct__inference;
static bool ct__anomaly;
static uint64_t ct__node_seq;

static bool ct__grad_mode(void) { return !ct__grad_disabled && !ct__inference; }

static ct_grad_mode ct__mode_now(void)
{
    ct_grad_mode m;
    m.enabled = !ct__grad_disabled;
    m.inference = ct__inference;
    return m;
}

ct_grad_mode ct_set_grad_enabled(bool enabled)
{
    ct_grad_mode prev = ct__mode_now();
    ct__grad_disabled = !enabled;
    return prev;
}

ct_grad_mode ct_no_grad(void) { return ct_set_grad_enabled(false); }
ct_grad_mode ct_enable_grad(void) { return ct_set_grad_enabled(true); }

ct_grad_mode ct_inference_mode(void)
{
    ct_grad_mode prev = ct__mode_now();
    ct__inference = true;
    return prev;
}

void ct_grad_mode_restore(ct_grad_mode mode)
{
    ct__grad_disabled = !mode.enabled;
    ct__inference = mode.inference;
}

bool ct_is_grad_enabled(void) { return !ct__grad_disabled; }
bool ct_is_inference_mode_enabled(void) { return ct__inference; }
void ct_set_detect_anomaly(bool enabled) { ct__anomaly = enabled; }
bool ct_is_anomaly_enabled(void) { return ct__anomaly; }

/* ---------------------------------------------------------------- hook lists */

static int ct__hook_add(ct__hook_list *l, ct_grad_hook fn, void *user, int slot, ct_tensor *owner, bool retain)
{
    static int next_id = 1;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 2;
        ct__hook *items = (ct__hook *)CT_REALLOC(l->items, (size_t)cap * sizeof *items);
        if (!items) {
            CT__OOM();
            return -1;
        }
        l->items = items;
        l->cap = cap;
    }
    ct__hook h;
    h.id = CT__ATOMIC_INC(&next_id);
    h.fn = fn;
    h.user = user;
    h.slot = slot;
    h.owner = owner;
    h.retain = retain;
    l->items[l->n++] = h;
    return h.id;
}

static bool ct__hook_remove(ct__hook_list *l, int id)
{
    for (int i = 0; i < l->n; i++)
        if (l->items[i].id == id) {
            memmove(l->items + i, l->items + i + 1, (size_t)(l->n - i - 1) * sizeof *l->items);
            l->n--;
            return true;
        }
    return false;
}

/* A non-leaf tensor dies: its hooks and retain_grad leave its grad_fn. */
static void ct__hooks_drop_owner(ct__hook_list *l, const ct_tensor *owner)
{
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (l->items[i].owner != owner) l->items[k++] = l->items[i];
    l->n = k;
}

/* retain_grad's hook: the gradient goes to owner's .grad (accumulating). */
static void ct__retain_into(ct_tensor *owner, ct_tensor *grad)
{
    ct__ag_meta *m = ct__meta(owner);
    ct_scope s = ct_scope_begin();
    ct_tensor *g = m->grad ? ct_add(m->grad, grad) : ct_clone(grad);
    if (g) {
        ct_release(m->grad);
        m->grad = ct_retain(g);
    }
    ct_scope_end(s);
}

/* Run the hooks that apply to gradient slot `slot` on *grad, in order, each
 * replacing it when it returns a tensor. */
static void ct__hooks_run(const ct__hook_list *l, int slot, ct_tensor **grad)
{
    for (int i = 0; i < l->n && *grad; i++) {
        if (l->items[i].slot >= 0 && l->items[i].slot != slot) continue;
        if (l->items[i].retain) {
            ct__retain_into(l->items[i].owner, *grad);
            continue;
        }
        ct_tensor *r = l->items[i].fn(*grad, l->items[i].user);
        if (r && r != *grad) {
            ct_release(*grad);
            *grad = r;
        } else if (r) {
            ct_release(r);
        }
    }
}

/* ---------------------------------------------------------------- nodes */

static ct__node *ct__node_new(const ct__node_type *type, int n_next, int n_out)
{
    ct__node *n = (ct__node *)CT_MALLOC(sizeof *n);
    if (!n) return NULL;
    memset(n, 0, sizeof *n);
    n->refcount = 1;
    n->type = type;
    n->seq = CT__ATOMIC_INC(&ct__node_seq);
    n->n_next = n_next;
    n->n_out = n_out;
    n->next = n_next <= 4 ? n->next_inline : (ct__edge *)CT_MALLOC((size_t)n_next * sizeof *n->next);
    n->out = n_out <= 2 ? n->out_inline : (ct__out_meta *)CT_MALLOC((size_t)n_out * sizeof *n->out);
    if (!n->next || !n->out) {
        if (n->next != n->next_inline) CT_FREE(n->next);
        if (n->out != n->out_inline) CT_FREE(n->out);
        CT_FREE(n);
        return NULL;
    }
    memset(n->next, 0, (size_t)n_next * sizeof *n->next);
    n->saved = n->saved_inline;
    n->cap_saved = CT__NODE_MAX_SAVED;
    return n;
}

static void ct__saved_release(ct__node *n)
{
    for (int i = 0; i < n->n_saved; i++) ct_release(n->saved[i].data);
    n->n_saved = 0;
}

/* Drop a reference to a node. A long chain (a 100000-op graph) is freed with
 * an explicit stack, not recursion. */
static void ct__node_release(ct__node *first)
{
    ct__node *stack_inline[64], **stack = stack_inline;
    int n = 0, cap = 64;
    if (first) stack[n++] = first;
    while (n > 0) {
        ct__node *node = stack[--n];
        if (CT__ATOMIC_DEC(&node->refcount) != 0) continue;
        for (int i = 0; i < node->n_next; i++) {
            if (!node->next[i].fn) continue;
            if (n == cap) {
                ct__node **grown = (ct__node **)CT_MALLOC((size_t)cap * 2 * sizeof *grown);
                if (!grown) { /* cannot go on iteratively: leak rather than crash */
                    CT__OOM();
                    continue;
                }
                memcpy(grown, stack, (size_t)n * sizeof *stack);
                if (stack != stack_inline) CT_FREE(stack);
                stack = grown;
                cap *= 2;
            }
            stack[n++] = node->next[i].fn;
        }
        ct__saved_release(node);
        if (node->leaf) { /* an AccumulateGrad node: its leaf forgets it */
            ct__ag_meta *m = (ct__ag_meta *)node->leaf->ag;
            if (m && m->accumulator == node) m->accumulator = NULL;
            ct_release(node->leaf);
        }
        CT_FREE(node->pre_hooks.items);
        CT_FREE(node->post_hooks.items);
        if (node->release_extra) node->release_extra(node);
        CT_FREE(node->extra);
        if (node->saved != node->saved_inline) CT_FREE(node->saved);
        if (node->next != node->next_inline) CT_FREE(node->next);
        if (node->out != node->out_inline) CT_FREE(node->out);
        CT_FREE(node);
    }
    if (stack != stack_inline) CT_FREE(stack);
}

/* ---------------------------------------------------------------- tensors' state */

static ct__ag_meta *ct__meta_get(ct_tensor *t)
{
    if (!t->ag) {
        ct__ag_meta *m = (ct__ag_meta *)CT_MALLOC(sizeof *m);
        if (!m) return NULL;
        memset(m, 0, sizeof *m);
        t->ag = m;
    }
    return ct__meta(t);
}

static void ct__ag_meta_free(ct_tensor *t)
{
    ct__ag_meta *m = ct__meta(t);
    if (!m) return;
    ct_release(m->grad);
    if (m->grad_fn) ct__hooks_drop_owner(&m->grad_fn->pre_hooks, t);
    ct__node_release(m->grad_fn);
    CT_FREE(m->hooks.items);
    CT_FREE(m->post_acc_hooks.items);
    CT_FREE(m);
    t->ag = NULL;
}

static bool ct__requires_grad(const ct_tensor *t)
{
    return t && (t->requires_grad || (t->ag && ct__meta(t)->grad_fn));
}

/* The AccumulateGrad node of a leaf that requires grad (made on first use).
 * The engine runs these nodes itself (they have a leaf, not a backward). */
static const ct__node_type ct__accumulate_grad_type = {"torch::autograd::AccumulateGrad", NULL};

static ct__node *ct__accumulator(ct_tensor *leaf)
{
    ct__ag_meta *m = ct__meta_get(leaf);
    if (!m) return NULL;
    if (m->accumulator) {
        CT__ATOMIC_INC(&m->accumulator->refcount);
        return m->accumulator;
    }
    ct__node *n = ct__node_new(&ct__accumulate_grad_type, 0, 1);
    if (!n) return NULL;
    n->seq = UINT64_MAX; /* as PyTorch: accumulation runs as soon as it is ready */
    n->leaf = ct_retain(leaf);
    n->out[0].ndim = leaf->ndim;
    memcpy(n->out[0].sizes, leaf->sizes, sizeof n->out[0].sizes);
    n->out[0].dtype = leaf->dtype;
    m->accumulator = n; /* weak: the node holds the leaf, not the reverse */
    return n;
}

/* The edge a gradient for t follows: t's grad_fn, or its AccumulateGrad node. */
static ct__edge ct__edge_of(const ct_tensor *t)
{
    ct__edge e = {NULL, 0};
    if (!ct__requires_grad(t)) return e;
    ct__ag_meta *m = ct__meta(t);
    if (m && m->grad_fn) {
        CT__ATOMIC_INC(&m->grad_fn->refcount);
        e.fn = m->grad_fn;
        e.input_nr = m->output_nr;
    } else {
        e.fn = ct__accumulator((ct_tensor *)t);
    }
    return e;
}

/* t becomes output k of node n (a new reference to n). */
static void ct__set_grad_fn(ct_tensor *t, ct__node *n, int k)
{
    ct__ag_meta *m = ct__meta_get(t);
    if (!m) return;
    CT__ATOMIC_INC(&n->refcount);
    ct__node_release(m->grad_fn);
    m->grad_fn = n;
    m->output_nr = k;
    n->out[k].ndim = t->ndim;
    memcpy(n->out[k].sizes, t->sizes, sizeof n->out[k].sizes);
    n->out[k].dtype = t->dtype;
}

static ct__node *ct__record(const ct__node_type *type, const ct_tensor *const *inputs, int n_in,
                            ct_tensor *const *outputs, int n_out)
{
    bool any = false;
    if (!ct__grad_mode()) return NULL;
    for (int i = 0; i < n_in; i++) any = any || ct__requires_grad(inputs[i]);
    if (!any) return NULL;
    ct__node *n = ct__node_new(type, n_in, n_out);
    if (!n) {
        CT__OOM();
        return NULL;
    }
    for (int i = 0; i < n_in; i++) n->next[i] = ct__edge_of(inputs[i]); /* before outputs change (in place) */
    for (int k = 0; k < n_out; k++)
        if (outputs[k]) ct__set_grad_fn(outputs[k], n, k);
    if (ct__anomaly) n->anomaly_op = type->name;
    ct__node_release(n); /* the outputs hold it now */
    return n;
}

static void ct__save(ct__node *n, const ct_tensor *t, bool is_output)
{
    if (n->n_saved == n->cap_saved) { /* only a custom function saves this many */
        ct__saved *grown = (ct__saved *)CT_MALLOC((size_t)n->cap_saved * 2 * sizeof *grown);
        if (!grown) {
            CT__OOM();
            return;
        }
        memcpy(grown, n->saved, (size_t)n->n_saved * sizeof *grown);
        if (n->saved != n->saved_inline) CT_FREE(n->saved);
        n->saved = grown;
        n->cap_saved *= 2;
    }
    ct__saved *s = &n->saved[n->n_saved]; /* (never a stack-held number: formulas keep copies) */
    ct_tensor *v = (ct_tensor *)t;
    if (is_output) { /* its data without its grad_fn, which is this node: no cycle */
        v = (ct_tensor *)CT_MALLOC(sizeof *v);
        if (!v) {
            CT__OOM();
            return;
        }
        *v = *t;
        v->refcount = 1;
        v->ag = NULL;
        v->requires_grad = false;
        CT__ATOMIC_INC(&v->storage->refcount);
    } else { /* an input itself, so double backward reaches its graph */
        ct_retain(v);
    }
    s->data = v;
    s->version = t->storage->version;
    s->is_output = is_output;
    s->output_nr = is_output && t->ag ? ct__meta(t)->output_nr : 0;
    n->n_saved++;
}

static const char ct__freed_graph_msg[] =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward.";

static ct_tensor *ct__saved_get(ct__node *n, int i)
{
    if (n->saved_freed) {
        ct__fail(CT_ERR_RUNTIME, "%s", ct__freed_graph_msg);
        return NULL;
    }
    ct__saved *s = &n->saved[i];
    if (s->data->storage->version != s->version) {
        char shape[256], made_by[160] = "";
        /* PyTorch names the node the tensor now comes from (an in-place op's, after one) */
        const ct__node *from = s->is_output ? n : ct__meta(s->data) ? ct__meta(s->data)->grad_fn : NULL;
        if (from)
            snprintf(made_by, sizeof made_by, ", which is output %d of %s,",
                     s->is_output ? s->output_nr : ct__meta(s->data)->output_nr, ct_node_name(from));
        ct__shape_str(s->data->sizes, s->data->ndim, shape, sizeof shape);
        ct__fail(CT_ERR_RUNTIME,
                 "one of the variables needed for gradient computation has been modified by an inplace operation: "
                 "[%s %s]%s is at version %u; expected version %u instead. Hint: enable anomaly detection to "
                 "find the operation that failed to compute its gradient, with "
                 "torch.autograd.set_detect_anomaly(True).",
                 ct__legacy_type_name(s->data->dtype), shape, made_by, s->data->storage->version, s->version);
        return NULL;
    }
    if (!s->is_output || !ct__grad_mode()) return s->data;
    /* under create_graph, an output is reconnected to the node that made it */
    ct_tensor *v = ct__view_of(s->data, s->data->sizes, s->data->strides, s->data->ndim, s->data->offset);
    if (v) ct__set_grad_fn(v, n, s->output_nr);
    return v;
}

static bool ct__needs_grad(const ct__node *n, int i) { return i < n->n_next && n->next[i].fn != NULL; }

static ct_result ct__check_inplace_grad(const ct_tensor *t)
{
    if (ct__grad_mode() && t->requires_grad && !(t->ag && ct__meta(t)->grad_fn))
        return ct__fail(CT_ERR_RUNTIME, "a leaf Variable that requires grad is being used in an in-place operation.");
    return CT_OK;
}

/* ---------------------------------------------------------------- public */

ct_tensor *ct_grad(const ct_tensor *t)
{
    return t && t->ag && ct__meta(t)->grad ? ct__same(ct__meta(t)->grad) : NULL;
}

ct_result ct_set_grad(ct_tensor *t, const ct_tensor *grad)
{
    CT__ARG_R(t, "self", 1);
    if (grad) {
        if (grad->ndim != t->ndim || memcmp(grad->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t)))
            return ct__fail(CT_ERR_RUNTIME, "assigned grad has data of a different size");
        if (grad->dtype != t->dtype) return ct__fail(CT_ERR_RUNTIME, "assigned grad has data of a different type");
        if (grad == t) return ct__fail(CT_ERR_RUNTIME, "can't assign Variable as its own grad");
    }
    ct__ag_meta *m = ct__meta_get(t);
    if (!m) return CT__OOM();
    ct_tensor *old = m->grad;
    m->grad = grad ? ct_retain((ct_tensor *)grad) : NULL;
    ct_release(old);
    return CT_OK;
}

bool ct_is_leaf(const ct_tensor *t) { return t && !(t->ag && ct__meta(t)->grad_fn); }
ct_node *ct_grad_fn(const ct_tensor *t) { return t && t->ag ? ct__meta(t)->grad_fn : NULL; }
const char *ct_node_name(const ct_node *n) { return n ? (n->name ? n->name : n->type->name) : NULL; }
int ct_node_num_next(const ct_node *n) { return n ? n->n_next : 0; }

ct_node *ct_node_next(const ct_node *n, int i, int *input_nr)
{
    if (!n) return NULL;
    if (i < 0 || i >= n->n_next) {
        ct__fail(CT_ERR_INDEX, "tuple index out of range");
        return NULL;
    }
    if (input_nr) *input_nr = n->next[i].input_nr;
    return n->next[i].fn;
}

ct_result ct_retain_grad(ct_tensor *t)
{
    CT__ARG_R(t, "self", 1);
    if (!ct__requires_grad(t)) return ct__fail(CT_ERR_RUNTIME, "can't retain_grad on Tensor that has requires_grad=False");
    if (ct_is_leaf(t)) return CT_OK; /* leaves keep their grad anyway */
    ct__ag_meta *m = ct__meta(t);
    if (m->retains_grad) return CT_OK;
    if (ct__hook_add(&m->grad_fn->pre_hooks, NULL, NULL, m->output_nr, t, true) < 0) return ct_last_error_code();
    m->retains_grad = true;
    return CT_OK;
}

bool ct_retains_grad(const ct_tensor *t) { return t && t->ag && ct__meta(t)->retains_grad; }

ct_result ct_detach_(ct_tensor *t)
{
    CT__ARG_R(t, "self", 1);
    if (t->is_view)
        return ct__fail(CT_ERR_RUNTIME,
                        "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                        "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, "
                        "and hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                        "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
    if (t->ag) {
        ct__node_release(ct__meta(t)->grad_fn);
        ct__meta(t)->grad_fn = NULL;
    }
    t->requires_grad = false;
    return CT_OK;
}

static void ct__storage_release_ctx(void *data, void *ctx)
{
    (void)data;
    ct__storage_release((ct__storage *)ctx);
}

ct_tensor *ct_data(const ct_tensor *t)
{
    CT__ARG(t, "self", 1);
    /* a storage of its own over the same memory: writes through it bump no version */
    ct__storage *s = (ct__storage *)CT_MALLOC(sizeof *s);
    if (!s) {
        CT__OOM();
        return NULL;
    }
    *s = *t->storage;
    s->refcount = 1;
    s->owned = false;
    s->deleter = ct__storage_release_ctx;
    s->deleter_ctx = t->storage;
    s->version = 0;
    CT__ATOMIC_INC(&t->storage->refcount);
    ct_tensor *r = ct__tensor_new(s, t->dtype, t->sizes, t->strides, t->ndim, t->offset);
    ct__storage_release(s);
    return r;
}

int64_t ct_version(const ct_tensor *t) { return t ? (int64_t)t->storage->version : 0; }

int ct_register_hook(ct_tensor *t, ct_grad_hook hook, void *user)
{
    if (!t) return (int)ct__null_arg(__func__, "self", 1);
    if (!hook) return (int)ct__fail(CT_ERR_VALUE, "register_hook(): hook is NULL");
    if (!ct__requires_grad(t))
        return (int)ct__fail(CT_ERR_RUNTIME, "cannot register a hook on a tensor that doesn't require gradient");
    ct__ag_meta *m = ct__meta_get(t);
    if (!m) return (int)CT__OOM();
    if (m->grad_fn) /* a non-leaf's gradient is met at its grad_fn */
        return ct__hook_add(&m->grad_fn->pre_hooks, hook, user, m->output_nr, t, false);
    return ct__hook_add(&m->hooks, hook, user, -1, NULL, false);
}

ct_result ct_remove_hook(ct_tensor *t, int id)
{
    CT__ARG_R(t, "self", 1);
    ct__ag_meta *m = ct__meta(t);
    if (m && (ct__hook_remove(&m->hooks, id) || ct__hook_remove(&m->post_acc_hooks, id) ||
              (m->grad_fn && ct__hook_remove(&m->grad_fn->pre_hooks, id))))
        return CT_OK;
    return ct__fail(CT_ERR_VALUE, "remove_hook(): no hook with id %d on this tensor", id);
}

int ct_register_post_accumulate_grad_hook(ct_tensor *t, ct_grad_hook hook, void *user)
{
    if (!t) return (int)ct__null_arg(__func__, "self", 1);
    if (!hook) return (int)ct__fail(CT_ERR_VALUE, "register_post_accumulate_grad_hook(): hook is NULL");
    if (!ct__requires_grad(t))
        return (int)ct__fail(CT_ERR_RUNTIME, "cannot register a hook on a tensor that doesn't require gradient");
    if (!ct_is_leaf(t))
        return (int)ct__fail(CT_ERR_RUNTIME, "post accumulate grad hooks cannot be registered on non-leaf tensors");
    ct__ag_meta *m = ct__meta_get(t);
    return m ? ct__hook_add(&m->post_acc_hooks, hook, user, -1, NULL, false) : (int)CT__OOM();
}

int ct_node_register_prehook(ct_node *n, ct_grad_hook hook, void *user)
{
    if (!n || !hook) return (int)ct__fail(CT_ERR_VALUE, "register_prehook(): node or hook is NULL");
    return ct__hook_add(&n->pre_hooks, hook, user, -1, NULL, false);
}

int ct_node_register_hook(ct_node *n, ct_grad_hook hook, void *user)
{
    if (!n || !hook) return (int)ct__fail(CT_ERR_VALUE, "register_hook(): node or hook is NULL");
    return ct__hook_add(&n->post_hooks, hook, user, -1, NULL, false);
}

/* ==================== autograd/engine.c ==================== */
// >>autograd/engine.c
/* The backward engine: runs the graph from its roots in dependency order,
 * latest nodes first (PyTorch's order, so gradients are summed in the same
 * order), accumulating into leaves' .grad or capturing the gradients
 * torch.autograd.grad asks for. */

/* A gradient wanted by autograd.grad, or backward(inputs=): slot `slot` of
 * `node` (a leaf's AccumulateGrad, or a non-leaf's grad_fn). */
typedef struct ct__capture {
    const ct_tensor *tensor;
    ct__node *node;
    int slot;
    ct_tensor *grad; /* summed as it arrives */
} ct__capture;

typedef struct ct__run {
    uint64_t id;
    bool create_graph, retain_graph;
    bool accumulate; /* backward: into .grad; grad: captured only */
    bool filtered;   /* only the captured tensors get gradients */
    ct__node **nodes;
    int n_nodes, cap_nodes;
    ct__capture *captures;
    int n_captures;
    ct__node **heap; /* the ready queue, a max-heap on seq */
    int n_heap;
} ct__run;

static uint64_t ct__run_ids;

/* ---------------------------------------------------------------- the ready queue */

static void ct__ready_push(ct__run *r, ct__node *n)
{
    int i = r->n_heap++;
    while (i > 0 && r->heap[(i - 1) / 2]->seq < n->seq) {
        r->heap[i] = r->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    r->heap[i] = n;
}

static ct__node *ct__ready_pop(ct__run *r)
{
    ct__node *top = r->heap[0], *last = r->heap[--r->n_heap];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= r->n_heap) break;
        if (c + 1 < r->n_heap && r->heap[c + 1]->seq > r->heap[c]->seq) c++;
        if (r->heap[c]->seq <= last->seq) break;
        r->heap[i] = r->heap[c];
        i = c;
    }
    if (r->n_heap > 0) r->heap[i] = last;
    return top;
}

/* ---------------------------------------------------------------- discovering the graph */

static bool ct__run_add_node(ct__run *r, ct__node *n)
{
    if (r->n_nodes == r->cap_nodes) {
        int cap = r->cap_nodes ? r->cap_nodes * 2 : 64;
        ct__node **grown = (ct__node **)CT_REALLOC(r->nodes, (size_t)cap * sizeof *grown);
        if (!grown) return false;
        r->nodes = grown;
        r->cap_nodes = cap;
    }
    r->nodes[r->n_nodes++] = n;
    n->run = r->id;
    n->deps = 0;
    n->needed = n->capture_any = false;
    n->buffer = (ct_tensor **)CT_MALLOC((size_t)n->n_out * sizeof *n->buffer);
    if (!n->buffer) return false;
    memset(n->buffer, 0, (size_t)n->n_out * sizeof *n->buffer);
    return true;
}

/* Every node reachable from the roots, in r->nodes in depth-first preorder,
 * with deps = the number of edges into it from reachable nodes. */
static ct_result ct__discover(ct__run *r, ct__node *const *roots, int n_roots)
{
    for (int i = 0; i < n_roots; i++)
        if (roots[i]->run != r->id && !ct__run_add_node(r, roots[i])) return CT__OOM();
    for (int k = 0; k < r->n_nodes; k++) { /* r->nodes doubles as the work list */
        ct__node *n = r->nodes[k];
        for (int i = 0; i < n->n_next; i++) {
            ct__node *c = n->next[i].fn;
            if (!c) continue;
            if (c->run != r->id && !ct__run_add_node(r, c)) return CT__OOM();
            c->deps++;
        }
    }
    return CT_OK;
}

/* Which nodes must run. Unfiltered: all of them. Filtered: those from which
 * a captured gradient is reachable (a node reached only to capture at it need
 * not run itself). Children are decided before parents: the nodes are taken
 * in reverse of an order where every node comes after all its parents (Kahn's,
 * counting the edges discover found). */
static ct_result ct__mark_needed(ct__run *r)
{
    for (int c = 0; c < r->n_captures; c++) r->captures[c].node->capture_any = true;
    if (!r->filtered) {
        for (int k = 0; k < r->n_nodes; k++) r->nodes[k]->needed = r->accumulate || !r->nodes[k]->leaf;
        return CT_OK;
    }
    ct__node **order = (ct__node **)CT_MALLOC((size_t)r->n_nodes * sizeof *order);
    if (!order) return CT__OOM();
    int head = 0, tail = 0;
    for (int k = 0; k < r->n_nodes; k++) {
        r->nodes[k]->pending = r->nodes[k]->deps;
        if (r->nodes[k]->pending == 0) order[tail++] = r->nodes[k];
    }
    while (head < tail) {
        ct__node *n = order[head++];
        for (int i = 0; i < n->n_next; i++)
            if (n->next[i].fn && --n->next[i].fn->pending == 0) order[tail++] = n->next[i].fn;
    }
    for (int k = tail - 1; k >= 0; k--) {
        ct__node *n = order[k];
        if (n->leaf) { /* AccumulateGrad runs only for a captured leaf under backward(inputs=) */
            n->needed = r->accumulate && n->capture_any;
            continue;
        }
        for (int i = 0; i < n->n_next && !n->needed; i++) {
            ct__node *c = n->next[i].fn;
            n->needed = c && (c->needed || c->capture_any);
        }
    }
    CT_FREE(order);
    return CT_OK;
}

/* ---------------------------------------------------------------- running nodes */

/* buffer slot += g (g is a new reference, taken over). */
static ct_result ct__buffer_add(ct_tensor **slot, ct_tensor *g)
{
    if (!*slot) {
        *slot = g;
        return CT_OK;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *sum = ct_add(*slot, g);
    if (sum) {
        ct_release(*slot);
        *slot = ct_retain(sum);
    }
    ct_release(g);
    ct_scope_end(s);
    return sum ? CT_OK : ct_last_error_code();
}

/* Zeros shaped like output k of n, for an output that received no gradient. */
static ct_tensor *ct__zeros_for(const ct__node *n, int k)
{
    return ct_zeros(ct_shape_make(n->out[k].ndim, n->out[k].sizes), n->out[k].dtype);
}

/* A gradient for edge e of n checked against what the input was: its shape
 * (a broadcastable one is summed down, as PyTorch's validate_outputs does) and
 * its dtype (converted). Returns a new reference, or NULL with the error. */
static ct_tensor *ct__validate_grad(const ct__node *n, int i, ct_tensor *g)
{
    const ct__out_meta *m = &n->next[i].fn->out[n->next[i].input_nr];
    ct_tensor *r = g;
    if (g->ndim != m->ndim || memcmp(g->sizes, m->sizes, (size_t)m->ndim * sizeof(int64_t))) {
        ct_tensor *summed = ct__sum_to_shape(g, m->sizes, m->ndim);
        if (!summed) {
            char b1[256], b2[256];
            ct_clear_error();
            ct__fail(CT_ERR_RUNTIME, "Function %s returned an invalid gradient at index %d - got %s but expected shape "
                                     "compatible with %s",
                     n->type->name, i, ct__shape_str(g->sizes, g->ndim, b1, sizeof b1), ct__shape_str(m->sizes, m->ndim, b2, sizeof b2));
            return NULL;
        }
        r = summed;
    }
    if (r->dtype != m->dtype) r = ct_to(r, m->dtype);
    return r ? ct_retain(r) : NULL;
}

static bool ct__has_nan(const ct_tensor *g)
{
    if (!ct_dtype_is_floating(g->dtype)) return false;
    ct_scope s = ct_scope_begin();
    ct_tensor *c = ct_contiguous(g);
    bool nan = false;
    for (int64_t i = 0, n = ct_numel(c); c && i < n && !nan; i++) {
        double v = ct__read_f64(ct__data(c) + (size_t)i * ct__esize(c), c->dtype);
        nan = v != v;
    }
    ct_scope_end(s);
    return nan;
}

/* AccumulateGrad: leaf.grad = grad, or += grad (out of place under create_graph,
 * so the sum is itself differentiable). */
static ct_result ct__accumulate(ct__run *r, ct__node *n, ct_tensor *grad)
{
    ct_tensor *leaf = n->leaf;
    ct__ag_meta *m = ct__meta_get(leaf);
    if (!m) return CT__OOM();
    ct__hooks_run(&m->hooks, -1, &grad);
    if (!m->grad) {
        /* take the gradient over when nothing else can see it, else copy it (laid out like the leaf) */
        if (r->create_graph || CT__ATOMIC_LOAD(&grad->refcount) > 1) {
            ct_tensor *copy = r->create_graph ? ct_clone(grad) : ct__copy_as(grad, grad->dtype);
            if (!copy) return ct_last_error_code();
            m->grad = ct_retain(copy);
        } else {
            m->grad = ct_retain(grad);
            ct_detach_(m->grad);
        }
    } else if (!r->create_graph) {
        ct_result res = ct_add_(m->grad, grad);
        if (res != CT_OK) return res;
    } else {
        ct_tensor *sum = ct_add(m->grad, grad);
        if (!sum) return ct_last_error_code();
        ct_release(m->grad);
        m->grad = ct_retain(sum);
    }
    ct_release(grad);
    for (int i = 0; i < m->post_acc_hooks.n; i++) {
        ct_tensor *ret = m->post_acc_hooks.items[i].fn(leaf, m->post_acc_hooks.items[i].user);
        if (ret) ct_release(ret);
    }
    return CT_OK;
}

/* Run one ready node: its hooks, captures, backward, and hand the results on. */
static ct_result ct__run_node(ct__run *r, ct__node *n)
{
    ct_tensor **grads = n->buffer, *grads_in_inline[8], **grads_in = grads_in_inline;
    ct_result res = CT_OK;
    for (int k = 0; k < n->n_out; k++) /* prehooks: register_hook and retain_grad on non-leaves, node prehooks */
        if (grads[k]) ct__hooks_run(&n->pre_hooks, k, &grads[k]);
    for (int c = 0; c < r->n_captures; c++) {
        ct__capture *cap = &r->captures[c];
        if (cap->node != n || !grads[cap->slot] || (n->leaf && r->accumulate)) continue;
        ct_tensor *g = grads[cap->slot];
        if (n->leaf) ct__hooks_run(&ct__meta(n->leaf)->hooks, -1, &g); /* a leaf's hooks see its captured grad */
        if (g != grads[cap->slot]) grads[cap->slot] = g;
        if (r->accumulate) { /* backward(inputs=[non-leaf]) accumulates into its .grad */
            ct__retain_into((ct_tensor *)cap->tensor, g);
        } else {
            if (!cap->grad) cap->grad = ct_retain(g);
            else if ((res = ct__buffer_add(&cap->grad, ct_retain(g))) != CT_OK) return res;
        }
    }
    if (!n->needed) return CT_OK;
    if (n->leaf) {
        ct_tensor *g = grads[0];
        grads[0] = NULL;
        return g ? ct__accumulate(r, n, g) : CT_OK;
    }
    if (n->saved_freed) return ct__fail(CT_ERR_RUNTIME, "%s", ct__freed_graph_msg);
    if (n->n_next > 8 && !(grads_in = (ct_tensor **)CT_MALLOC((size_t)n->n_next * sizeof *grads_in))) return CT__OOM();
    memset(grads_in, 0, (size_t)n->n_next * sizeof *grads_in);
    for (int k = 0; k < n->n_out; k++)
        if (!grads[k] && !(grads[k] = ct_retain(ct__zeros_for(n, k)))) res = ct_last_error_code();
    if (res == CT_OK) res = n->type->backward(n, grads, grads_in);
    for (int i = 0; i < n->n_next && res == CT_OK; i++) {
        if (!grads_in[i] || !n->next[i].fn) continue;
        ct_tensor *g = ct__validate_grad(n, i, grads_in[i]);
        if (!g) {
            res = ct_last_error_code();
            break;
        }
        ct__hooks_run(&n->post_hooks, -1, &g);
        if (ct__anomaly && ct__has_nan(g)) {
            ct_release(g);
            res = ct__fail(CT_ERR_RUNTIME, "Function '%s' returned nan values in its %dth output.", ct_node_name(n), i);
            break;
        }
        ct__node *next = n->next[i].fn;
        if (next->run == r->id && (res = ct__buffer_add(&next->buffer[n->next[i].input_nr], g)) != CT_OK) break;
        if (next->run != r->id) ct_release(g);
    }
    if (grads_in != grads_in_inline) CT_FREE(grads_in);
    if (res == CT_OK && !r->retain_graph) {
        ct__saved_release(n);
        n->saved_freed = true;
    }
    return res;
}

/* ---------------------------------------------------------------- the run */

static void ct__run_cleanup(ct__run *r)
{
    for (int k = 0; k < r->n_nodes; k++) {
        ct__node *n = r->nodes[k];
        for (int s = 0; s < n->n_out; s++) ct_release(n->buffer[s]);
        CT_FREE(n->buffer);
        n->buffer = NULL;
        n->run = 0;
    }
    CT_FREE(r->nodes);
    CT_FREE(r->heap);
}

/* The gradient a root starts with: the one given (checked), or ones for a one-element root. */
static ct_tensor *ct__root_grad(const ct_tensor *t, const ct_tensor *given, int i)
{
    char b1[256], b2[256];
    if (!given) {
        if (ct_numel(t) != 1) {
            ct__fail(CT_ERR_RUNTIME, "grad can be implicitly created only for scalar outputs");
            return NULL;
        }
        return ct_ones_like(t, CT_DEFAULT);
    }
    if (given->ndim != t->ndim || memcmp(given->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t))) {
        ct__fail(CT_ERR_RUNTIME, "Mismatch in shape: grad_output[%d] has a shape of torch.Size(%s) and output[%d] has a "
                                 "shape of torch.Size(%s).",
                 i, ct__shape_str(given->sizes, given->ndim, b1, sizeof b1), i, ct__shape_str(t->sizes, t->ndim, b2, sizeof b2));
        return NULL;
    }
    return ct__same(given);
}

/* The whole backward pass over n roots, accumulating or capturing. */
static ct_result ct__execute(ct__run *r, const ct_tensor *const *roots, const ct_tensor *const *grads, int n)
{
    ct__edge edges_inline[8], *edges = n <= 8 ? edges_inline : (ct__edge *)CT_MALLOC((size_t)n * sizeof *edges);
    ct__node *nodes_inline[8], **root_nodes = n <= 8 ? nodes_inline : (ct__node **)CT_MALLOC((size_t)n * sizeof *root_nodes);
    ct_result res = CT_OK;
    int n_edges = 0;
    if (!edges || !root_nodes) res = CT__OOM();
    for (int i = 0; i < n && res == CT_OK; i++) {
        if (!roots[i]) {
            res = ct__fail(CT_ERR_TYPE, "expected Tensor as element %d in argument 0, but got NULL", i);
        } else if (!ct__requires_grad(roots[i])) {
            res = ct__fail(CT_ERR_RUNTIME, "element %d of tensors does not require grad and does not have a grad_fn", i);
        } else {
            edges[n_edges] = ct__edge_of(roots[i]);
            root_nodes[n_edges] = edges[n_edges].fn;
            n_edges++;
        }
    }
    ct_grad_mode mode = ct_set_grad_enabled(r->create_graph);
    ct_scope s = ct_scope_begin();
    if (res == CT_OK) res = ct__discover(r, root_nodes, n_edges);
    if (res == CT_OK) res = ct__mark_needed(r);
    if (res == CT_OK) {
        for (int i = 0; i < n_edges && res == CT_OK; i++) {
            ct_tensor *g = ct__root_grad(roots[i], grads ? grads[i] : NULL, i);
            if (!g) res = ct_last_error_code();
            else res = ct__buffer_add(&edges[i].fn->buffer[edges[i].input_nr], ct_retain(g));
        }
    }
    if (res == CT_OK && !(r->heap = (ct__node **)CT_MALLOC((size_t)(r->n_nodes + 1) * sizeof *r->heap))) res = CT__OOM();
    for (int i = 0; i < n_edges && res == CT_OK; i++)
        if (root_nodes[i]->deps == 0) {
            root_nodes[i]->deps = -1; /* queued: a root listed twice is queued once */
            ct__ready_push(r, root_nodes[i]);
        }
    while (res == CT_OK && r->n_heap > 0) {
        ct__node *node = ct__ready_pop(r);
        ct_scope ns = ct_scope_begin();
        res = ct__run_node(r, node);
        ct_scope_end(ns);
        for (int k = 0; k < node->n_out; k++) { /* its incoming gradients are spent */
            ct_release(node->buffer[k]);
            node->buffer[k] = NULL;
        }
        for (int i = 0; i < node->n_next; i++) { /* its children lose a dependency, run or not */
            ct__node *c = node->next[i].fn;
            if (c && c->run == r->id && --c->deps == 0) ct__ready_push(r, c);
        }
    }
    ct_scope_end(s);
    ct_grad_mode_restore(mode);
    ct__run_cleanup(r);
    for (int i = 0; i < n_edges; i++) ct__node_release(edges[i].fn);
    if (edges != edges_inline) CT_FREE(edges);
    if (root_nodes != nodes_inline) CT_FREE(root_nodes);
    return res;
}

/* The captures for a list of inputs (autograd.grad's, or backward's inputs=). */
/* backward(inputs=) and autograd.grad word a tensor that needs no grad differently. */
static const char ct__no_grad_input_backward[] = "can't retain_grad on Tensor that has requires_grad=False";
static const char ct__no_grad_input_grad[] = "One of the differentiated Tensors does not require grad";

static ct_result ct__captures_for(ct__run *r, const ct_tensor *const *inputs, int n, const char *no_grad_msg)
{
    r->captures = (ct__capture *)CT_MALLOC((size_t)(n ? n : 1) * sizeof *r->captures);
    if (!r->captures) return CT__OOM();
    memset(r->captures, 0, (size_t)(n ? n : 1) * sizeof *r->captures);
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = inputs[i];
        if (!t) return ct__fail(CT_ERR_RUNTIME, "all inputs have to be Tensors, but got NULL");
        if (!ct__requires_grad(t)) return ct__fail(CT_ERR_RUNTIME, "%s", no_grad_msg);
        ct__capture *c = &r->captures[r->n_captures++];
        c->tensor = t;
        if (ct_is_leaf(t)) {
            c->node = ct__accumulator((ct_tensor *)t); /* a new reference, dropped after the run */
            c->slot = 0;
        } else {
            c->node = ct__meta(t)->grad_fn;
            CT__ATOMIC_INC(&c->node->refcount);
            c->slot = ct__meta(t)->output_nr;
        }
        if (!c->node) return CT__OOM();
    }
    return CT_OK;
}

static void ct__captures_free(ct__run *r)
{
    for (int i = 0; i < r->n_captures; i++) {
        ct_release(r->captures[i].grad);
        ct__node_release(r->captures[i].node);
    }
    CT_FREE(r->captures);
}

ct_result ct_autograd_backward(const ct_tensor *const *tensors, const ct_tensor *const *grad_tensors, int n,
                               ct_backward_opts opts)
{
    ct__run r;
    memset(&r, 0, sizeof r);
    if (!tensors)
        return ct__fail(CT_ERR_TYPE, "autograd_backward(): argument 'tensors' (position 1) must be tuple of Tensors, not NULL");
    if (opts.inputs && opts.n_inputs <= 0)
        return ct__fail(CT_ERR_RUNTIME, "'inputs' argument to backward() cannot be empty.");
    if (n <= 0) return CT_OK; /* torch.autograd.backward([]) */
    r.id = CT__ATOMIC_INC(&ct__run_ids);
    r.create_graph = opts.create_graph;
    r.retain_graph = opts.retain_graph || opts.create_graph;
    r.accumulate = true;
    r.filtered = opts.inputs != NULL;
    ct_result res = r.filtered ? ct__captures_for(&r, opts.inputs, opts.n_inputs, ct__no_grad_input_backward) : CT_OK;
    if (res == CT_OK) res = ct__execute(&r, tensors, grad_tensors, n);
    ct__captures_free(&r);
    return res;
}

ct_result ct_backward(const ct_tensor *t, const ct_tensor *gradient, ct_backward_opts opts)
{
    CT__ARG_R(t, "self", 1);
    return ct_autograd_backward(&t, gradient ? &gradient : NULL, 1, opts);
}

ct_result ct_autograd_grad(const ct_tensor *const *outputs, int n_outputs, const ct_tensor *const *inputs,
                           int n_inputs, const ct_tensor *const *grad_outputs, ct_tensor **grads, ct_grad_opts opts)
{
    ct__run r;
    memset(&r, 0, sizeof r);
    if (!outputs)
        return ct__fail(CT_ERR_TYPE, "autograd_grad(): argument 'outputs' (position 1) must be tuple of Tensors, not NULL");
    if (!inputs)
        return ct__fail(CT_ERR_TYPE, "autograd_grad(): argument 'inputs' (position 2) must be tuple of Tensors, not NULL");
    if (n_outputs <= 0 || !grads) return ct__fail(CT_ERR_RUNTIME, "grad(): outputs, inputs and grads must be given");
    if (n_inputs <= 0) return ct__fail(CT_ERR_VALUE, "grad requires non-empty inputs.");
    r.id = CT__ATOMIC_INC(&ct__run_ids);
    r.create_graph = opts.create_graph;
    r.retain_graph = opts.retain_graph || opts.create_graph;
    r.filtered = true;
    ct_result res = ct__captures_for(&r, inputs, n_inputs, ct__no_grad_input_grad);
    if (res == CT_OK) res = ct__execute(&r, outputs, grad_outputs, n_outputs);
    for (int i = 0; i < n_inputs && res == CT_OK; i++)
        if (!r.captures[i].grad && !opts.allow_unused)
            res = ct__fail(CT_ERR_RUNTIME, "One of the differentiated Tensors appears to not have been used in the graph. "
                                           "Set allow_unused=True if this is the desired behavior.");
    for (int i = 0; i < n_inputs; i++) { /* all or nothing */
        grads[i] = res == CT_OK && r.captures[i].grad ? ct__own(ct_retain(r.captures[i].grad)) : NULL;
    }
    ct__captures_free(&r);
    return res;
}

/* ==================== autograd/formulas.c ==================== */
// >>autograd/formulas.c
/* Backward formulas. Each is written with ctorch's own differentiable ops, so
 * under create_graph the backward pass records a graph of its own and
 * higher-order gradients follow. */

/* g summed down to the shape `sizes` it was broadcast from (at::sum_to):
 * leading dims summed away, dims of size 1 summed with keepdim. */
static ct_tensor *ct__sum_to_shape(const ct_tensor *g, const int64_t *sizes, int ndim)
{
    int lead = g->ndim - ndim;
    ct_shape dims = CT_SHAPE0;
    if (lead < 0) {
        ct__fail(CT_ERR_RUNTIME, "sum_to: the gradient has fewer dims than its input");
        return NULL;
    }
    for (int d = 0; d < g->ndim; d++) {
        if (d >= lead && sizes[d - lead] != 1 && sizes[d - lead] != g->sizes[d]) {
            ct__fail(CT_ERR_RUNTIME, "sum_to: shapes do not broadcast");
            return NULL;
        }
        if (d < lead || (sizes[d - lead] == 1 && g->sizes[d] != 1)) dims.size[dims.ndim++] = d;
    }
    if (dims.ndim == 0) return g->ndim == ndim ? ct__same(g) : ct_reshape(g, ct_shape_make(ndim, sizes));
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct_sum_dim(g, dims, true, CT_DEFAULT);
    if (r && lead) r = ct_reshape(r, ct_shape_make(ndim, sizes)); /* the leading dims were kept as 1s */
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- pointwise */

/* What a pointwise node keeps: its inputs (bit i) and its result. */
#define CT__SAVE_IN(i) (1u << (i))
#define CT__SAVE_RESULT 8u

typedef struct ct__pw_grad {
    ct__node_type type;         /* name and backward of the tensor form */
    bool number_keeps_edge;     /* add, sub, mul, div: a number operand still has an (empty) edge */
    bool condition_first;       /* where: input 0 is the condition, not differentiable */
    unsigned save;
} ct__pw_grad;

/* Saved slots are filled in order: the inputs asked for, then the result. */
static int ct__pw_slot(const ct__node *n, unsigned what)
{
    int slot = 0;
    for (unsigned bit = 1; bit < what; bit <<= 1) slot += (n->iargs[0] & bit) != 0;
    return slot;
}
#define CT__IN(i) CT__S(ct__pw_slot(n, CT__SAVE_IN(i)))
#define CT__RESULT CT__S(ct__pw_slot(n, CT__SAVE_RESULT))
/* the op's parameters, as the forward had them */
#define CT__ARGS (&n->pw)

CT__BACKWARD(neg)
{
    CT__GRAD(0, ct_neg(go[0]));
    return CT_OK;
}

CT__BACKWARD(zero)
{
    CT__GRAD(0, ct_zeros_like(go[0], CT_DEFAULT));
    return CT_OK;
}

CT__BACKWARD(identity)
{
    CT__GRAD(0, go[0]);
    return CT_OK;
}

CT__BACKWARD(abs) /* g * sgn(x) */
{
    CT__GRAD(0, ct_mul(go[0], ct_sign(CT__IN(0))));
    return CT_OK;
}

CT__BACKWARD(exp)
{
    CT__GRAD(0, ct_mul(go[0], CT__RESULT));
    return CT_OK;
}

CT__BACKWARD(log)
{
    CT__GRAD(0, ct_div(go[0], CT__IN(0)));
    return CT_OK;
}

CT__BACKWARD(sqrt)
{
    CT__GRAD(0, ct_div(go[0], ct_mul_scalar(CT__RESULT, ct_int(2))));
    return CT_OK;
}

CT__BACKWARD(tanh) /* tanh_backward: g * (1 - y*y) */
{
    ct_tensor *y = CT__RESULT;
    CT__GRAD(0, ct_mul(go[0], ct_rsub_scalar(ct_mul(y, y), ct_int(1))));
    return CT_OK;
}

CT__BACKWARD(sigmoid) /* sigmoid_backward: g * (1 - y) * y */
{
    ct_tensor *y = CT__RESULT;
    CT__GRAD(0, ct_mul(ct_mul(go[0], ct_rsub_scalar(y, ct_int(1))), y));
    return CT_OK;
}

CT__BACKWARD(relu) /* threshold_backward(g, result, 0) */
{
    CT__GRAD(0, ct_where_scalar_other(ct_gt_scalar(CT__RESULT, ct_int(0)), go[0], ct_int(0)));
    return CT_OK;
}

/* a + alpha * b and a - alpha * b (rsub: b - alpha * a) */
static ct_tensor *ct__times_alpha(ct_tensor *g, const ct__node *n)
{
    const ct__op_args *a = CT__ARGS;
    return a->has_value ? ct_mul_scalar(g, a->value) : g;
}

CT__BACKWARD(add)
{
    CT__GRAD(0, go[0]);
    CT__GRAD(1, ct__times_alpha(go[0], n));
    return CT_OK;
}

CT__BACKWARD(sub)
{
    CT__GRAD(0, go[0]);
    CT__GRAD(1, ct_neg(ct__times_alpha(go[0], n)));
    return CT_OK;
}

CT__BACKWARD(mul)
{
    CT__GRAD(0, ct_mul(go[0], CT__IN(1)));
    CT__GRAD(1, ct_mul(go[0], CT__IN(0)));
    return CT_OK;
}

CT__BACKWARD(div) /* self: g / b; other: -g * ((a / b) / b), as div_tensor_other_backward has it */
{
    CT__GRAD(0, ct_div(go[0], CT__IN(1)));
    CT__GRAD(1, ct_mul(ct_neg(go[0]), ct_div(ct_div(CT__IN(0), CT__IN(1)), CT__IN(1))));
    return CT_OK;
}

CT__BACKWARD(where) /* the condition picks which side the gradient goes to */
{
    ct_tensor *c = CT__IN(0);
    CT__GRAD(0, ct_where_scalar_other(c, go[0], ct_int(0)));
    CT__GRAD(1, ct_where_scalar_self(c, ct_int(0), go[0]));
    return CT_OK;
}

/* ---------------------------------------------------------------- more pointwise formulas */

/* Each follows PyTorch 1.13's derivatives.yaml (or the backward kernel it
 * calls) op for op, with numbers where it has Scalars, so that the float
 * roundings are the same. */
#define CT__G go[0]
#define CT__X CT__IN(0)
#define CT__Y CT__RESULT
#define CT__UNARY_GRAD(name, expr) \
    CT__BACKWARD(name)             \
    {                              \
        CT__GRAD(0, expr);         \
        return CT_OK;              \
    }

static const double ct__grad_pi = 3.14159265358979323846;

/* A Scalar the kernels convert to the input's type: rounded to float below float64. */
static ct_scalar ct__coef(double v, ct_dtype dt) { return ct_float(dt == CT_F64 ? v : (double)(float)v); }
/* a * b computed in the input's type, as the kernels form their coefficients */
static ct_scalar ct__coef_mul(double a, double b, ct_dtype dt)
{
    return ct_float(dt == CT_F64 ? a * b : (double)((float)a * (float)b));
}
/* 1 - x * x, written as PyTorch's (-x * x + 1) */
static ct_tensor *ct__one_minus_square(const ct_tensor *x) { return ct_add_scalar(ct_mul(ct_neg(x), x), ct_int(1)); }

CT__UNARY_GRAD(reciprocal, ct_mul(ct_neg(CT__G), ct_mul(CT__Y, CT__Y)))
CT__UNARY_GRAD(exp2, ct_mul_scalar(ct_mul(CT__G, CT__Y), ct_float(0.693147180559945309417)))
CT__UNARY_GRAD(expm1, ct_mul(CT__G, ct_add_scalar(CT__Y, ct_int(1))))
CT__UNARY_GRAD(log2, ct_div(CT__G, ct_mul_scalar(CT__X, ct_float(0.6931471805599453))))
CT__UNARY_GRAD(log10, ct_div(CT__G, ct_mul_scalar(CT__X, ct_float(2.3025850929940456))))
CT__UNARY_GRAD(log1p, ct_div(CT__G, ct_add_scalar(CT__X, ct_int(1))))
CT__UNARY_GRAD(rsqrt, ct_mul(ct_mul_scalar(CT__G, ct_float(-0.5)), ct_pow_scalar(CT__Y, ct_int(3))))
CT__UNARY_GRAD(sin, ct_mul(CT__G, ct_cos(CT__X)))
CT__UNARY_GRAD(cos, ct_mul(CT__G, ct_neg(ct_sin(CT__X))))
CT__UNARY_GRAD(tan, ct_mul(CT__G, ct_add_scalar(ct_pow_scalar(CT__Y, ct_int(2)), ct_int(1))))
CT__UNARY_GRAD(asin, ct_mul(CT__G, ct_rsqrt(ct__one_minus_square(CT__X))))
CT__UNARY_GRAD(acos, ct_mul(CT__G, ct_neg(ct_rsqrt(ct__one_minus_square(CT__X)))))
CT__UNARY_GRAD(atan, ct_div(CT__G, ct_add_scalar(ct_mul(CT__X, CT__X), ct_int(1))))
CT__UNARY_GRAD(sinh, ct_mul(CT__G, ct_cosh(CT__X)))
CT__UNARY_GRAD(cosh, ct_mul(CT__G, ct_sinh(CT__X)))
CT__UNARY_GRAD(asinh, ct_mul(CT__G, ct_rsqrt(ct_add_scalar(ct_pow_scalar(CT__X, ct_int(2)), ct_int(1)))))
CT__UNARY_GRAD(acosh, ct_mul(CT__G, ct_rsqrt(ct_sub_scalar(ct_pow_scalar(CT__X, ct_int(2)), ct_int(1)))))
CT__UNARY_GRAD(atanh, ct_div(CT__G, ct_rsub_scalar(ct_pow_scalar(CT__X, ct_int(2)), ct_int(1))))
/* erf, erfc: c * exp(-x^2) * g with c = +-2/sqrt(pi); erfinv: sqrt(pi)/2 * exp(erfinv(x)^2) * g */
static ct_tensor *ct__scaled_exp_grad(const ct_tensor *g, const ct_tensor *e, double c)
{
    return ct_mul(ct_mul_scalar(ct_exp(e), ct_float(c)), g);
}
CT__UNARY_GRAD(erf, ct__scaled_exp_grad(CT__G, ct_neg(ct_pow_scalar(CT__X, ct_int(2))), 2.0 / sqrt(ct__grad_pi)))
CT__UNARY_GRAD(erfc, ct__scaled_exp_grad(CT__G, ct_neg(ct_pow_scalar(CT__X, ct_int(2))), -2.0 / sqrt(ct__grad_pi)))
CT__UNARY_GRAD(erfinv, ct__scaled_exp_grad(CT__G, ct_pow_scalar(ct_erfinv(CT__X), ct_int(2)), 0.5 * sqrt(ct__grad_pi)))
CT__UNARY_GRAD(lgamma, ct_mul(CT__G, ct_digamma(CT__X)))
CT__UNARY_GRAD(digamma, ct_mul(CT__G, ct_polygamma(1, CT__X)))
CT__UNARY_GRAD(polygamma, ct_mul(CT__G, ct_polygamma(CT__ARGS->mode + 1, CT__X)))
CT__UNARY_GRAD(nan_to_num, ct_mul(CT__G, ct_isfinite(CT__X)))

/* logit: g / (x (1 - x)) inside [eps, 1 - eps], else 0 (NaN outside [0, 1] without eps) */
static ct_tensor *ct__logit_grad(const ct_tensor *g, const ct_tensor *x, double eps)
{
    double lo = eps < 0 ? 0 : eps;
    ct_tensor *inside = ct_logical_and(ct_ge_scalar(x, ct_float(lo)), ct_le_scalar(x, ct_float(1.0 - lo)));
    return ct_where_scalar_self(ct_logical_not(inside), ct_float(eps < 0 ? NAN : 0.0),
                                ct_div(g, ct_mul(x, ct_rsub_scalar(x, ct_float(1.0)))));
}
CT__UNARY_GRAD(logit, ct__logit_grad(CT__G, CT__X, CT__ARGS->p[0]))

/* ---- activations: self (or, for an in-place form, the result) is x */

/* leaky_relu_backward: g where x > 0, else g * slope */
static ct_tensor *ct__leaky_grad(const ct_tensor *g, const ct_tensor *x, double slope)
{
    return ct_where(ct_gt_scalar(x, ct_int(0)), g, ct_mul_scalar(g, ct_float(slope)));
}
CT__UNARY_GRAD(leaky_relu, ct__leaky_grad(CT__G, CT__X, CT__ARGS->p[0]))

CT__BACKWARD(leaky_relu_result)
{
    if (CT__ARGS->p[0] < 0)
        return ct__fail(CT_ERR_RUNTIME,
                        "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                        "supported. This is caused by calling in-place forward function with a negative slope, please "
                        "call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you "
                        "do require supporting in-place leakRelu backward calculation with negative slope");
    CT__GRAD(0, ct__leaky_grad(CT__G, CT__Y, CT__ARGS->p[0]));
    return CT_OK;
}

/* elu_backward: x <= 0 gives g * input_scale * alpha * scale * exp(x * input_scale)
 * (from the result y: g * input_scale * (y + alpha * scale)), else g * scale.
 * celu's input_scale is 1 / alpha with alpha rounded to float first, as its formula has it. */
static ct_tensor *ct__elu_grad(const ct__node *n, const ct_tensor *g, const ct_tensor *x, bool is_result, bool celu)
{
    const double *p = n->pw.p;
    ct_dtype dt = x->dtype;
    ct_scalar negcoef = ct__coef_mul(p[0], p[1], dt), in_scale = ct__coef(celu ? 1.0 / (float)p[0] : p[2], dt);
    ct_tensor *neg = is_result ? ct_mul(ct_mul_scalar(g, in_scale), ct_add_scalar(x, negcoef))
                               : ct_mul(ct_mul_scalar(ct_mul_scalar(g, in_scale), negcoef),
                                        ct_exp(ct_mul_scalar(x, in_scale)));
    return ct_where(ct_le_scalar(x, ct_int(0)), neg, ct_mul_scalar(g, ct__coef(p[1], dt)));
}

static ct_result ct__elu_backward(ct__node *n, ct_tensor *const *go, ct_tensor **gi, bool is_result, bool celu)
{
    if (is_result && n->pw.p[0] < 0)
        return ct__fail(CT_ERR_RUNTIME, "In-place elu backward calculation is triggered with a negative slope which is "
                                        "not supported. This is caused by calling in-place forward function with a "
                                        "negative slope, please call out-of-place version instead.");
    CT__GRAD(0, ct__elu_grad(n, CT__G, is_result ? CT__Y : CT__X, is_result, celu));
    return CT_OK;
}
CT__BACKWARD(elu) { return ct__elu_backward(n, go, gi, false, false); }
CT__BACKWARD(elu_result) { return ct__elu_backward(n, go, gi, true, false); }
CT__BACKWARD(celu) { return ct__elu_backward(n, go, gi, false, true); }
CT__BACKWARD(celu_result) { return ct__elu_backward(n, go, gi, true, true); }

/* gelu_backward: g * (cdf + x * pdf), or its tanh approximation's derivative */
static ct_tensor *ct__gelu_grad(const ct_tensor *g, const ct_tensor *x, int approximate)
{
    ct_dtype dt = x->dtype;
    if (approximate != CT_GELU_TANH) {
        const double sqrt1_2 = 0.70710678118654752440, two_sqrtpi = 1.12837916709551257390;
        ct_tensor *erf = ct_erf(ct_mul_scalar(x, ct__coef(sqrt1_2, dt)));
        ct_tensor *cdf = ct_mul_scalar(ct_add_scalar(erf, ct_int(1)), ct_float(0.5));
        ct_tensor *pdf = ct_mul_scalar(ct_exp(ct_mul_scalar(ct_mul(x, x), ct_float(-0.5))),
                                       ct__coef(two_sqrtpi * sqrt1_2 * 0.5, dt));
        return ct_mul(g, ct_add(cdf, ct_mul(x, pdf)));
    }
    const double beta = 1.41421356237309504880 * 1.12837916709551257390 * 0.5, kappa = 0.044715;
    ct_tensor *x_sq = ct_mul(x, x);
    ct_tensor *cube = ct_mul_scalar(ct_mul(x_sq, x), ct__coef(kappa, dt));
    ct_tensor *inner = ct_mul_scalar(ct_add(x, cube), ct__coef(beta, dt));
    ct_tensor *t = ct_tanh(inner);
    ct_tensor *left = ct_mul_scalar(x, ct_float(0.5));
    ct_tensor *left_d = ct_mul_scalar(ct_add_scalar(t, ct_int(1)), ct_float(0.5));
    ct_tensor *inner_d = ct_mul_scalar(ct_add_scalar(ct_mul_scalar(x_sq, ct__coef_mul(3.0, kappa, dt)), ct_int(1)),
                                       ct__coef(beta, dt));
    ct_tensor *right_d = ct_mul(ct_mul(left, ct_rsub_scalar(ct_mul(t, t), ct_int(1))), inner_d);
    return ct_mul(g, ct_add(left_d, right_d));
}
CT__UNARY_GRAD(gelu, ct__gelu_grad(CT__G, CT__X, CT__ARGS->mode))

/* silu: g * s * (1 + x * (1 - s)), s = sigmoid(x) */
static ct_tensor *ct__silu_grad(const ct_tensor *g, const ct_tensor *x)
{
    ct_tensor *s = ct_sigmoid(x);
    return ct_mul(ct_mul(g, s), ct_add_scalar(ct_mul(x, ct_rsub_scalar(s, ct_int(1))), ct_int(1)));
}
CT__UNARY_GRAD(silu, ct__silu_grad(CT__G, CT__X))

/* mish: g * (t + x * sigmoid(x) * (1 - t * t)), t = tanh(log1p(exp(x))) */
static ct_tensor *ct__mish_grad(const ct_tensor *g, const ct_tensor *x)
{
    ct_tensor *t = ct_tanh(ct_log1p(ct_exp(x)));
    ct_tensor *rest = ct_mul(ct_mul(x, ct_sigmoid(x)), ct_rsub_scalar(ct_mul(t, t), ct_int(1)));
    return ct_mul(g, ct_add(t, rest));
}
CT__UNARY_GRAD(mish, ct__mish_grad(CT__G, CT__X))

/* softplus: g where beta * x > threshold, else g * z / (z + 1), z = exp(beta * x) */
static ct_tensor *ct__softplus_grad(const ct_tensor *g, const ct_tensor *x, const double *p)
{
    ct_tensor *bx = ct_mul_scalar(x, ct__coef(p[0], x->dtype));
    ct_tensor *z = ct_exp(bx);
    return ct_where(ct_gt_scalar(bx, ct_float(p[1])), g, ct_div(ct_mul(g, z), ct_add_scalar(z, ct_int(1))));
}
CT__UNARY_GRAD(softplus, ct__softplus_grad(CT__G, CT__X, CT__ARGS->p))

/* hardsigmoid: g / 6 inside (-3, 3), with PyTorch's float 1/6 for every dtype */
static ct_tensor *ct__hardsigmoid_grad(const ct_tensor *g, const ct_tensor *x)
{
    ct_tensor *inside = ct_logical_and(ct_gt_scalar(x, ct_int(-3)), ct_lt_scalar(x, ct_int(3)));
    return ct_where_scalar_other(inside, ct_mul_scalar(g, ct_float((double)(1.0f / 6.0f))), ct_int(0));
}
CT__UNARY_GRAD(hardsigmoid, ct__hardsigmoid_grad(CT__G, CT__X))

/* hardswish: 0 below -3, g * (x / 3 + 1/2) up to 3, g above */
static ct_tensor *ct__hardswish_grad(const ct_tensor *g, const ct_tensor *x)
{
    ct_tensor *mid = ct_mul(g, ct_add_scalar(ct_div_scalar(x, ct_int(3)), ct_float(0.5)));
    return ct_where_scalar_self(ct_lt_scalar(x, ct_int(-3)), ct_int(0), ct_where(ct_le_scalar(x, ct_int(3)), mid, g));
}
CT__UNARY_GRAD(hardswish, ct__hardswish_grad(CT__G, CT__X))

/* hardtanh (and relu6), with number bounds IN(1), IN(2): 0 at and beyond them */
static ct_tensor *ct__hardtanh_grad(const ct_tensor *g, const ct_tensor *x, const ct_tensor *lo, const ct_tensor *hi)
{
    return ct_where_scalar_self(ct_logical_or(ct_le(x, lo), ct_ge(x, hi)), ct_int(0), g);
}
CT__UNARY_GRAD(hardtanh, ct__hardtanh_grad(CT__G, CT__X, CT__IN(1), CT__IN(2)))

/* ---- clamps: g passes where the bound did not act (at the bound too) */

/* where(keep, g, 0) */
static ct_tensor *ct__pass(const ct_tensor *keep, const ct_tensor *g)
{
    return ct_where_scalar_other(keep, g, ct_int(0));
}

CT__UNARY_GRAD(clamp_min_number, ct__pass(ct_ge(CT__X, CT__IN(1)), CT__G))
CT__UNARY_GRAD(clamp_max_number, ct__pass(ct_le(CT__X, CT__IN(1)), CT__G))
CT__UNARY_GRAD(clamp_numbers, ct__pass(ct_logical_and(ct_ge(CT__X, CT__IN(1)), ct_le(CT__X, CT__IN(2))), CT__G))

CT__BACKWARD(clamp_min)
{
    CT__GRAD(0, ct__pass(ct_ge(CT__X, CT__IN(1)), CT__G));
    CT__GRAD(1, ct__pass(ct_lt(CT__X, CT__IN(1)), CT__G));
    return CT_OK;
}

CT__BACKWARD(clamp_max)
{
    CT__GRAD(0, ct__pass(ct_le(CT__X, CT__IN(1)), CT__G));
    CT__GRAD(1, ct__pass(ct_gt(CT__X, CT__IN(1)), CT__G));
    return CT_OK;
}

/* clamp_backward and clamp_backward_min_max: a bound gets g where it acted
 * (min where x < min < max; max where x > max, or everywhere max < min) */
CT__BACKWARD(clamp)
{
    ct_tensor *x = CT__X, *lo = CT__IN(1), *hi = CT__IN(2);
    CT__GRAD(0, ct__pass(ct_logical_and(ct_ge(x, lo), ct_le(x, hi)), CT__G));
    CT__GRAD(1, ct__pass(ct_logical_and(ct_lt(x, lo), ct_lt(lo, hi)), CT__G));
    CT__GRAD(2, ct__pass(ct_logical_or(ct_gt(x, hi), ct_lt(hi, lo)), CT__G));
    return CT_OK;
}

/* maximum, minimum: ties split the gradient in half */
static ct_tensor *ct__extremum_grad(const ct_tensor *g, const ct_tensor *a, const ct_tensor *b, bool self_loses_below)
{
    ct_tensor *split = ct_where(ct_eq(a, b), ct_div_scalar(g, ct_int(2)), g);
    return ct_where_scalar_self(self_loses_below ? ct_lt(a, b) : ct_gt(a, b), ct_int(0), split);
}

CT__BACKWARD(maximum)
{
    CT__GRAD(0, ct__extremum_grad(CT__G, CT__IN(0), CT__IN(1), true));
    CT__GRAD(1, ct__extremum_grad(CT__G, CT__IN(0), CT__IN(1), false));
    return CT_OK;
}

CT__BACKWARD(minimum)
{
    CT__GRAD(0, ct__extremum_grad(CT__G, CT__IN(0), CT__IN(1), false));
    CT__GRAD(1, ct__extremum_grad(CT__G, CT__IN(0), CT__IN(1), true));
    return CT_OK;
}

/* fmax, fmin: self gets g where it won ((a >= b, or <=) or b is NaN), other elsewhere */
static ct_result ct__fextremum_backward(ct__node *n, ct_tensor *const *go, ct_tensor **gi, bool max)
{
    ct_tensor *a = CT__IN(0), *b = CT__IN(1);
    ct_tensor *self_won = ct_logical_or(max ? ct_ge(a, b) : ct_le(a, b), ct_isnan(b));
    CT__GRAD(0, ct__pass(self_won, CT__G));
    CT__GRAD(1, ct_where_scalar_self(self_won, ct_int(0), CT__G));
    return CT_OK;
}
CT__BACKWARD(fmax) { return ct__fextremum_backward(n, go, gi, true); }
CT__BACKWARD(fmin) { return ct__fextremum_backward(n, go, gi, false); }

/* ---- binary ops */

/* copysign: g * result / self, 0 where self is 0; other gets zeros */
CT__BACKWARD(copysign)
{
    CT__GRAD(0, ct_mul(CT__G, ct_where_scalar_self(ct_eq_scalar(CT__X, ct_int(0)), ct_int(0), ct_div(CT__Y, CT__X))));
    if (ct__needs_grad(n, 1)) {
        const ct__out_meta *m = ct__input_meta(n, 1);
        CT__GRAD(1, ct_zeros(ct_shape_make(m->ndim, m->sizes), m->dtype));
    }
    return CT_OK;
}

CT__BACKWARD(hypot)
{
    CT__GRAD(0, ct_div(ct_mul(CT__G, CT__IN(0)), CT__Y));
    CT__GRAD(1, ct_div(ct_mul(CT__G, CT__IN(1)), CT__Y));
    return CT_OK;
}

/* atan2_backward: (g * b, g * -a) / (a^2 + b^2) */
CT__BACKWARD(atan2)
{
    ct_tensor *a = CT__IN(0), *b = CT__IN(1);
    ct_tensor *recip = ct_reciprocal(ct_add(ct_mul(a, a), ct_mul(b, b)));
    CT__GRAD(0, ct_mul(ct_mul(CT__G, b), recip));
    CT__GRAD(1, ct_mul(ct_mul(CT__G, ct_neg(a)), recip));
    return CT_OK;
}

/* xlogy: self gets xlogy(g, other), 0 where self is 0 and other <= 0 (for a
 * number other, masked only when it is <= 0); other gets g * self / other */
CT__BACKWARD(xlogy)
{
    ct_tensor *a = CT__IN(0), *b = CT__IN(1);
    if (ct__needs_grad(n, 0)) {
        ct_tensor *d = ct_xlogy(CT__G, b), *zero = ct_eq_scalar(a, ct_float(0.0));
        if (!b->wrapped_number) zero = ct_logical_and(zero, ct_le_scalar(b, ct_float(0.0)));
        CT__GRAD(0, b->wrapped_number && ct_item(b) > 0 ? d : ct_where_scalar_self(zero, ct_float(0.0), d));
    }
    CT__GRAD(1, ct_div(ct_mul(CT__G, a), b));
    return CT_OK;
}

/* remainder, fmod: other gets -g * (self / other rounded as the op rounds) */
static ct_result ct__mod_backward(ct__node *n, ct_tensor *const *go, ct_tensor **gi, ct_rounding_mode mode)
{
    CT__GRAD(0, CT__G);
    CT__GRAD(1, ct_mul(ct_neg(CT__G), ct_div_mode(CT__IN(0), CT__IN(1), mode)));
    return CT_OK;
}
CT__BACKWARD(remainder) { return ct__mod_backward(n, go, gi, CT_ROUNDING_FLOOR); }
CT__BACKWARD(fmod) { return ct__mod_backward(n, go, gi, CT_ROUNDING_TRUNC); }

/* pow_backward_self and pow_backward_exponent (tensor ** tensor) */
CT__BACKWARD(pow)
{
    ct_tensor *a = CT__IN(0), *b = CT__IN(1);
    CT__GRAD(0, ct_where_scalar_self(ct_eq_scalar(b, ct_float(0.0)), ct_int(0),
                                     ct_mul(CT__G, ct_mul(b, ct_pow(a, ct_sub_scalar(b, ct_int(1)))))));
    if (ct__needs_grad(n, 1)) {
        ct_tensor *base = ct_to(a, ct_result_type(a, b));
        ct_tensor *at_zero = ct_logical_and(ct_eq_scalar(a, ct_int(0)), ct_ge_scalar(b, ct_int(0)));
        CT__GRAD(1, ct_mul(CT__G, ct_where_scalar_self(at_zero, ct_int(0), ct_mul(CT__Y, ct_log(base)))));
    }
    return CT_OK;
}

/* pow_backward (tensor ** number e): g * (e * self^(e - 1)), zeros for e == 0 */
CT__BACKWARD(pow_number)
{
    double e = ct_item(CT__IN(1));
    CT__GRAD(0, e == 0 ? ct_zeros_like(CT__X, CT_DEFAULT)
                       : ct_mul(CT__G, ct_mul_scalar(ct_pow_scalar(CT__X, ct_float(e - 1)), ct_float(e))));
    return CT_OK;
}

/* pow_backward_exponent (number c ** tensor): g * result * log(c), 0 where
 * c == 0 and the exponent is >= 0. The exponent is the only edge. */
CT__BACKWARD(rpow)
{
    double c = ct_item(CT__IN(0));
    ct_tensor *d = ct_mul_scalar(CT__Y, ct_float(log(c)));
    if (c == 0) d = ct_where_scalar_self(ct_ge_scalar(CT__IN(1), ct_int(0)), ct_int(0), d);
    CT__GRAD(0, ct_mul(CT__G, d));
    return CT_OK;
}

/* ---- ternary ops */

/* addcmul: tensor1 gets g * (tensor2 * value), and the other way round */
CT__BACKWARD(addcmul)
{
    ct_scalar v = CT__ARGS->value;
    CT__GRAD(0, CT__G);
    CT__GRAD(1, ct_mul(CT__G, ct_mul_scalar(CT__IN(2), v)));
    CT__GRAD(2, ct_mul(CT__G, ct_mul_scalar(CT__IN(1), v)));
    return CT_OK;
}

/* addcdiv: tensor1 gets g * (value / tensor2), which ATen computes as
 * tensor2.reciprocal() * value; tensor2 -g * (value * tensor1 / tensor2^2) */
CT__BACKWARD(addcdiv)
{
    ct_scalar v = CT__ARGS->value;
    ct_tensor *t1 = CT__IN(1), *t2 = CT__IN(2);
    CT__GRAD(0, CT__G);
    CT__GRAD(1, ct_mul(CT__G, ct_mul_scalar(ct_reciprocal(t2), v)));
    CT__GRAD(2, ct_mul(ct_neg(CT__G), ct_div(ct_mul_scalar(t1, v), ct_mul(t2, t2))));
    return CT_OK;
}

/* lerp with a number weight w (value): g * (1 - w) (in double) and g * w */
CT__BACKWARD(lerp_number)
{
    ct_scalar w = CT__ARGS->value;
    double wd = w.kind == CT_F64 ? w.v.f : w.kind == CT_BOOL ? (double)w.v.b : (double)w.v.i;
    CT__GRAD(0, ct_mul_scalar(CT__G, ct_float(1.0 - wd)));
    CT__GRAD(1, ct_mul_scalar(CT__G, w));
    return CT_OK;
}

CT__BACKWARD(lerp)
{
    ct_tensor *w = CT__IN(2);
    CT__GRAD(0, ct_mul(CT__G, ct_rsub_scalar(w, ct_int(1))));
    CT__GRAD(1, ct_mul(CT__G, w));
    CT__GRAD(2, ct_mul(CT__G, ct_sub(CT__IN(1), CT__IN(0))));
    return CT_OK;
}

/* div with a rounding mode, and the in-place comparisons: zero gradients */
CT__BACKWARD(zeros2)
{
    CT__GRAD(0, ct_zeros_like(CT__G, CT_DEFAULT));
    CT__GRAD(1, ct_zeros_like(CT__G, CT_DEFAULT));
    return CT_OK;
}

/* floor_divide records PyTorch's NotImplemented node, which fails when reached */
CT__BACKWARD(floor_divide)
{
    (void)n, (void)go, (void)gi;
    return ct__fail(CT_ERR_RUNTIME, "derivative for aten::floor_divide is not implemented");
}

/* PyTorch 1.13 records asinh_, acosh_ and atanh_ with nodes that fail when reached */
#define CT__INPLACE_MISSING(op)                                                          \
    CT__BACKWARD(op##_)                                                                  \
    {                                                                                    \
        (void)n, (void)go, (void)gi;                                                     \
        return ct__fail(CT_ERR_NOT_IMPLEMENTED,                                          \
                        "the derivative for 'inplace version of " #op "' is not implemented."); \
    }
CT__INPLACE_MISSING(asinh)
CT__INPLACE_MISSING(acosh)
CT__INPLACE_MISSING(atanh)
#undef CT__INPLACE_MISSING

#undef CT__UNARY_GRAD
#undef CT__Y
#undef CT__X
#undef CT__G

/* ---------------------------------------------------------------- the table */

#define CT__PW(var, name, bw, save) static const ct__pw_grad var = {{name, ct__bw_##bw}, false, false, save}
#define CT__PW_EDGE(var, name, bw, save) static const ct__pw_grad var = {{name, ct__bw_##bw}, true, false, save}
#define CT__SELF CT__SAVE_IN(0)
#define CT__BOTH (CT__SAVE_IN(0) | CT__SAVE_IN(1))
#define CT__ALL3 (CT__SAVE_IN(0) | CT__SAVE_IN(1) | CT__SAVE_IN(2))
CT__PW(ct__pw_neg, "NegBackward0", neg, 0);
CT__PW(ct__pw_abs, "AbsBackward0", abs, CT__SELF);
CT__PW(ct__pw_sign, "SignBackward0", zero, 0);
CT__PW(ct__pw_round, "RoundBackward0", zero, 0);
CT__PW(ct__pw_round_decimals, "RoundBackward1", zero, 0);
CT__PW(ct__pw_floor, "FloorBackward0", zero, 0);
CT__PW(ct__pw_ceil, "CeilBackward0", zero, 0);
CT__PW(ct__pw_trunc, "TruncBackward0", zero, 0);
CT__PW(ct__pw_frac, "FracBackward0", identity, 0);
CT__PW(ct__pw_exp, "ExpBackward0", exp, CT__SAVE_RESULT);
CT__PW(ct__pw_log, "LogBackward0", log, CT__SELF);
CT__PW(ct__pw_sqrt, "SqrtBackward0", sqrt, CT__SAVE_RESULT);
CT__PW(ct__pw_tanh, "TanhBackward0", tanh, CT__SAVE_RESULT);
CT__PW(ct__pw_sigmoid, "SigmoidBackward0", sigmoid, CT__SAVE_RESULT);
CT__PW(ct__pw_relu, "ReluBackward0", relu, CT__SAVE_RESULT);
CT__PW(ct__pw_reciprocal, "ReciprocalBackward0", reciprocal, CT__SAVE_RESULT);
CT__PW(ct__pw_exp2, "Exp2Backward0", exp2, CT__SAVE_RESULT);
CT__PW(ct__pw_expm1, "Expm1Backward0", expm1, CT__SAVE_RESULT);
CT__PW(ct__pw_log2, "Log2Backward0", log2, CT__SELF);
CT__PW(ct__pw_log10, "Log10Backward0", log10, CT__SELF);
CT__PW(ct__pw_log1p, "Log1PBackward0", log1p, CT__SELF);
CT__PW(ct__pw_rsqrt, "RsqrtBackward0", rsqrt, CT__SAVE_RESULT);
CT__PW(ct__pw_sin, "SinBackward0", sin, CT__SELF);
CT__PW(ct__pw_cos, "CosBackward0", cos, CT__SELF);
CT__PW(ct__pw_tan, "TanBackward0", tan, CT__SAVE_RESULT);
CT__PW(ct__pw_asin, "AsinBackward0", asin, CT__SELF);
CT__PW(ct__pw_acos, "AcosBackward0", acos, CT__SELF);
CT__PW(ct__pw_atan, "AtanBackward0", atan, CT__SELF);
CT__PW(ct__pw_sinh, "SinhBackward0", sinh, CT__SELF);
CT__PW(ct__pw_cosh, "CoshBackward0", cosh, CT__SELF);
CT__PW(ct__pw_asinh, "AsinhBackward0", asinh, CT__SELF);
CT__PW(ct__pw_acosh, "AcoshBackward0", acosh, CT__SELF);
CT__PW(ct__pw_atanh, "AtanhBackward0", atanh, CT__SELF);
CT__PW(ct__pw_asinh_, "AsinhBackward1", asinh_, 0);
CT__PW(ct__pw_acosh_, "AcoshBackward1", acosh_, 0);
CT__PW(ct__pw_atanh_, "AtanhBackward1", atanh_, 0);
CT__PW(ct__pw_erf, "ErfBackward0", erf, CT__SELF);
CT__PW(ct__pw_erfc, "ErfcBackward0", erfc, CT__SELF);
CT__PW(ct__pw_erfinv, "ErfinvBackward0", erfinv, CT__SELF);
CT__PW(ct__pw_lgamma, "LgammaBackward0", lgamma, CT__SELF);
CT__PW(ct__pw_digamma, "DigammaBackward0", digamma, CT__SELF);
CT__PW(ct__pw_polygamma, "PolygammaBackward0", polygamma, CT__SELF);
CT__PW(ct__pw_polygamma_, "PolygammaBackward1", polygamma, CT__SELF);
CT__PW(ct__pw_logit, "LogitBackward0", logit, CT__SELF);
CT__PW(ct__pw_nan_to_num, "NanToNumBackward0", nan_to_num, CT__SELF);
CT__PW(ct__pw_leaky_relu, "LeakyReluBackward0", leaky_relu, CT__SELF);
CT__PW(ct__pw_leaky_relu_, "LeakyReluBackward1", leaky_relu_result, CT__SAVE_RESULT);
CT__PW(ct__pw_elu, "EluBackward0", elu, CT__SELF);
CT__PW(ct__pw_elu_, "EluBackward1", elu_result, CT__SAVE_RESULT);
CT__PW(ct__pw_celu, "CeluBackward0", celu, CT__SELF);
CT__PW(ct__pw_celu_, "CeluBackward1", celu_result, CT__SAVE_RESULT);
CT__PW(ct__pw_gelu, "GeluBackward0", gelu, CT__SELF);
CT__PW(ct__pw_silu, "SiluBackward0", silu, CT__SELF);
CT__PW(ct__pw_mish, "MishBackward0", mish, CT__SELF);
CT__PW(ct__pw_softplus, "SoftplusBackward0", softplus, CT__SELF);
CT__PW(ct__pw_hardsigmoid, "HardsigmoidBackward0", hardsigmoid, CT__SELF);
CT__PW(ct__pw_hardswish, "HardswishBackward0", hardswish, CT__SELF);
CT__PW(ct__pw_hardtanh, "HardtanhBackward0", hardtanh, CT__ALL3);
CT__PW(ct__pw_clamp_numbers, "ClampBackward1", clamp_numbers, CT__ALL3);
CT__PW(ct__pw_clamp, "ClampBackward0", clamp, CT__ALL3);
CT__PW(ct__pw_clamp_min_number, "ClampMinBackward0", clamp_min_number, CT__BOTH);
CT__PW(ct__pw_clamp_max_number, "ClampMaxBackward0", clamp_max_number, CT__BOTH);
CT__PW(ct__pw_clamp_min, "ClampMinBackward1", clamp_min, CT__BOTH);
CT__PW(ct__pw_clamp_max, "ClampMaxBackward1", clamp_max, CT__BOTH);
CT__PW(ct__pw_maximum, "MaximumBackward0", maximum, CT__BOTH);
CT__PW(ct__pw_minimum, "MinimumBackward0", minimum, CT__BOTH);
CT__PW(ct__pw_fmax, "FmaxBackward0", fmax, CT__BOTH);
CT__PW(ct__pw_fmin, "FminBackward0", fmin, CT__BOTH);
CT__PW(ct__pw_copysign, "CopysignBackward0", copysign, CT__SELF | CT__SAVE_RESULT);
CT__PW(ct__pw_copysign_number, "CopysignBackward1", copysign, CT__SELF | CT__SAVE_RESULT);
CT__PW(ct__pw_hypot, "HypotBackward0", hypot, CT__BOTH | CT__SAVE_RESULT);
CT__PW(ct__pw_atan2, "Atan2Backward0", atan2, CT__BOTH);
CT__PW(ct__pw_xlogy, "XlogyBackward0", xlogy, CT__BOTH);
CT__PW(ct__pw_xlogy_number, "XlogyBackward2", xlogy, CT__BOTH);
CT__PW(ct__pw_remainder, "RemainderBackward1", remainder, CT__BOTH);
CT__PW(ct__pw_remainder_number, "RemainderBackward0", identity, 0);
CT__PW(ct__pw_fmod, "FmodBackward1", fmod, CT__BOTH);
CT__PW(ct__pw_fmod_number, "FmodBackward0", identity, 0);
CT__PW(ct__pw_pow, "PowBackward1", pow, CT__BOTH | CT__SAVE_RESULT);
CT__PW(ct__pw_pow_number, "PowBackward0", pow_number, CT__BOTH);
CT__PW(ct__pw_rpow, "PowBackward2", rpow, CT__BOTH | CT__SAVE_RESULT);
CT__PW(ct__pw_addcmul, "AddcmulBackward0", addcmul, CT__SAVE_IN(1) | CT__SAVE_IN(2));
CT__PW(ct__pw_addcdiv, "AddcdivBackward0", addcdiv, CT__SAVE_IN(1) | CT__SAVE_IN(2));
CT__PW(ct__pw_lerp_number, "LerpBackward0", lerp_number, 0);
CT__PW(ct__pw_lerp, "LerpBackward1", lerp, CT__ALL3);
CT__PW_EDGE(ct__pw_div_mode, "DivBackward2", zeros2, 0);
CT__PW_EDGE(ct__pw_floor_divide, "torch::autograd::NotImplemented", floor_divide, 0);
static const ct__pw_grad ct__pw_add = {{"AddBackward0", ct__bw_add}, true, false, 0};
static const ct__pw_grad ct__pw_sub = {{"SubBackward0", ct__bw_sub}, true, false, 0};
static const ct__pw_grad ct__pw_mul = {{"MulBackward0", ct__bw_mul}, true, false, CT__BOTH};
static const ct__pw_grad ct__pw_div = {{"DivBackward0", ct__bw_div}, true, false, CT__BOTH};
static const ct__pw_grad ct__pw_where = {{"WhereBackward0", ct__bw_where}, true, true, CT__SAVE_IN(0)};
/* the in-place comparisons (Tensor.eq_...): number and tensor forms */
#define CT__PW_CMP(op, Name)                                          \
    CT__PW(ct__pw_##op##_number, #Name "Backward0", zeros2, 0); \
    CT__PW(ct__pw_##op, #Name "Backward1", zeros2, 0);
CT__PW_CMP(eq, Eq)
CT__PW_CMP(ne, Ne)
CT__PW_CMP(lt, Lt)
CT__PW_CMP(le, Le)
CT__PW_CMP(gt, Gt)
CT__PW_CMP(ge, Ge)
#undef CT__PW_CMP
#undef CT__ALL3
#undef CT__BOTH
#undef CT__SELF
#undef CT__PW_EDGE
#undef CT__PW

/* The formula of a unary pointwise op, NULL for one without a derivative. */
static const ct__pw_grad *ct__pw_grad_unary(ct__op op)
{
    switch (op) {
    case CT__OP_neg: return &ct__pw_neg;
    case CT__OP_abs: return &ct__pw_abs;
    case CT__OP_sign: return &ct__pw_sign;
    case CT__OP_floor: return &ct__pw_floor;
    case CT__OP_ceil: return &ct__pw_ceil;
    case CT__OP_trunc: return &ct__pw_trunc;
    case CT__OP_frac: return &ct__pw_frac;
    case CT__OP_exp: return &ct__pw_exp;
    case CT__OP_log: return &ct__pw_log;
    case CT__OP_sqrt: return &ct__pw_sqrt;
    case CT__OP_tanh: return &ct__pw_tanh;
    case CT__OP_sigmoid: return &ct__pw_sigmoid;
    case CT__OP_relu: return &ct__pw_relu;
    case CT__OP_reciprocal: return &ct__pw_reciprocal;
    case CT__OP_exp2: return &ct__pw_exp2;
    case CT__OP_expm1: return &ct__pw_expm1;
    case CT__OP_log2: return &ct__pw_log2;
    case CT__OP_log10: return &ct__pw_log10;
    case CT__OP_log1p: return &ct__pw_log1p;
    case CT__OP_rsqrt: return &ct__pw_rsqrt;
    case CT__OP_sin: return &ct__pw_sin;
    case CT__OP_cos: return &ct__pw_cos;
    case CT__OP_tan: return &ct__pw_tan;
    case CT__OP_asin: return &ct__pw_asin;
    case CT__OP_acos: return &ct__pw_acos;
    case CT__OP_atan: return &ct__pw_atan;
    case CT__OP_sinh: return &ct__pw_sinh;
    case CT__OP_cosh: return &ct__pw_cosh;
    case CT__OP_erf: return &ct__pw_erf;
    case CT__OP_erfc: return &ct__pw_erfc;
    case CT__OP_erfinv: return &ct__pw_erfinv;
    case CT__OP_lgamma: return &ct__pw_lgamma;
    case CT__OP_digamma: return &ct__pw_digamma;
    case CT__OP_logit: return &ct__pw_logit;
    case CT__OP_nan_to_num: return &ct__pw_nan_to_num;
    case CT__OP_gelu: return &ct__pw_gelu;
    case CT__OP_silu: return &ct__pw_silu;
    case CT__OP_mish: return &ct__pw_mish;
    case CT__OP_softplus: return &ct__pw_softplus;
    case CT__OP_hardsigmoid: return &ct__pw_hardsigmoid;
    case CT__OP_hardswish: return &ct__pw_hardswish;
    default: return NULL;
    }
}

/* An op whose number form (last operand a Python number) has a node of its own. */
static const ct__pw_grad *ct__pw_grad_number_form(ct__op op, bool number)
{
    switch (op) {
    case CT__OP_copysign: return number ? &ct__pw_copysign_number : &ct__pw_copysign;
    case CT__OP_xlogy: return number ? &ct__pw_xlogy_number : &ct__pw_xlogy;
    case CT__OP_remainder: return number ? &ct__pw_remainder_number : &ct__pw_remainder;
    case CT__OP_fmod: return number ? &ct__pw_fmod_number : &ct__pw_fmod;
    case CT__OP_eq: return number ? &ct__pw_eq_number : &ct__pw_eq;
    case CT__OP_ne: return number ? &ct__pw_ne_number : &ct__pw_ne;
    case CT__OP_lt: return number ? &ct__pw_lt_number : &ct__pw_lt;
    case CT__OP_le: return number ? &ct__pw_le_number : &ct__pw_le;
    case CT__OP_gt: return number ? &ct__pw_gt_number : &ct__pw_gt;
    case CT__OP_ge: return number ? &ct__pw_ge_number : &ct__pw_ge;
    default: return NULL;
    }
}

/* The formula of a pointwise call: the op, the form its operands and options
 * make (args NULL: the op's default), and whether it works in place.
 * Comparisons have formulas only in place, as PyTorch's eq_ has (their
 * results are bool otherwise, which never requires grad). */
static const ct__pw_grad *ct__pw_grad_of(ct__op op, const ct_tensor *const *in, const ct__op_args *args, bool inplace)
{
    ct__op derived = args ? args->derived : (ct__op)0;
    bool numbers = args && args->scalar_clamp;
    switch (op) {
    case CT__OP_add: return &ct__pw_add;
    case CT__OP_sub: return &ct__pw_sub;
    case CT__OP_mul: return &ct__pw_mul;
    case CT__OP_where: return &ct__pw_where;
    case CT__OP_round: return args && args->mode ? &ct__pw_round_decimals : &ct__pw_round;
    case CT__OP_polygamma: return inplace ? &ct__pw_polygamma_ : &ct__pw_polygamma;
    case CT__OP_asinh: return inplace ? &ct__pw_asinh_ : &ct__pw_asinh;
    case CT__OP_acosh: return inplace ? &ct__pw_acosh_ : &ct__pw_acosh;
    case CT__OP_atanh: return inplace ? &ct__pw_atanh_ : &ct__pw_atanh;
    case CT__OP_leaky_relu: return inplace ? &ct__pw_leaky_relu_ : &ct__pw_leaky_relu;
    case CT__OP_elu:
        if (derived == CT__OP_celu) return inplace ? &ct__pw_celu_ : &ct__pw_celu;
        return inplace ? &ct__pw_elu_ : &ct__pw_elu;
    case CT__OP_clamp:
        return !numbers ? &ct__pw_clamp : derived == CT__OP_hardtanh ? &ct__pw_hardtanh : &ct__pw_clamp_numbers;
    case CT__OP_maximum:
        return numbers ? &ct__pw_clamp_min_number : derived == CT__OP_clamp_min ? &ct__pw_clamp_min : &ct__pw_maximum;
    case CT__OP_minimum:
        return numbers ? &ct__pw_clamp_max_number : derived == CT__OP_clamp_max ? &ct__pw_clamp_max : &ct__pw_minimum;
    case CT__OP_fmax: return &ct__pw_fmax;
    case CT__OP_fmin: return &ct__pw_fmin;
    case CT__OP_hypot: return &ct__pw_hypot;
    case CT__OP_atan2: return &ct__pw_atan2;
    case CT__OP_div:
        if (derived == CT__OP_floor_divide) return &ct__pw_floor_divide;
        return args && args->mode ? &ct__pw_div_mode : &ct__pw_div;
    case CT__OP_pow:
        return in[0]->wrapped_number ? &ct__pw_rpow : in[1]->wrapped_number ? &ct__pw_pow_number : &ct__pw_pow;
    case CT__OP_addcmul: return &ct__pw_addcmul;
    case CT__OP_addcdiv: return &ct__pw_addcdiv;
    case CT__OP_lerp: return in[2]->wrapped_number ? &ct__pw_lerp_number : &ct__pw_lerp;
    case CT__OP_eq: case CT__OP_ne: case CT__OP_lt: case CT__OP_le: case CT__OP_gt: case CT__OP_ge:
        return inplace ? ct__pw_grad_number_form(op, in[1]->wrapped_number) : NULL;
    default: break;
    }
    const ct__pw_grad *f = ct__pw_grad_unary(op);
    return f ? f : in[1] ? ct__pw_grad_number_form(op, in[1]->wrapped_number) : NULL;
}

/* A Python number operand as a heap 0-d wrapped-number tensor a node can keep. */
static ct_tensor *ct__keep_number(const ct_tensor *x)
{
    ct_tensor *t = ct__alloc(NULL, 0, x->dtype, ct__cpu);
    if (!t) return NULL;
    memcpy(t->storage->data, ct__data(x), ct__esize(x));
    t->wrapped_number = true;
    return t;
}

static void ct__pointwise_record(ct__op op, ct_tensor *out, const ct_tensor *const *in, int n_in,
                                 const ct__op_args *args, ct_tensor *self_before)
{
    const ct__pw_grad *f = ct__pw_grad_of(op, in, args, out == in[0]);
    if (!f || !ct__grad_mode()) return;
    const ct_tensor *edges_in[3] = {NULL, NULL, NULL};
    int n_edges = 0;
    for (int i = f->condition_first ? 1 : 0; i < n_in; i++)
        if (!in[i]->wrapped_number || f->number_keeps_edge) edges_in[n_edges++] = in[i];
    ct__node *node = ct__record(&f->type, edges_in, n_edges, &out, 1);
    if (!node) return;
    node->pw = *args;
    node->iargs[0] = f->save;
    ct_scope s = ct_scope_begin();
    for (int i = 0; i < n_in; i++) {
        if (!(f->save & CT__SAVE_IN(i))) continue;
        const ct_tensor *x = i == 0 && self_before ? self_before : in[i];
        ct__save(node, x->wrapped_number ? ct__keep_number(x) : x, false);
    }
    if (f->save & CT__SAVE_RESULT) ct__save(node, out, true);
    ct_scope_end(s);
}

/* Before an in-place op writes self: a copy of self when its formula needs
 * self's old values and something requires grad (NULL otherwise). */
static ct_tensor *ct__pointwise_self_before(ct__op op, const ct_tensor *const *in, int n_in)
{
    const ct__pw_grad *f = ct__pw_grad_of(op, in, NULL, true);
    bool any = false;
    for (int i = 0; i < n_in; i++) any = any || ct__requires_grad(in[i]);
    if (!f || !any || !ct__grad_mode() || !(f->save & CT__SAVE_IN(0))) return NULL;
    return ct_clone(in[0]); /* recorded (PyTorch's original_self): double backward goes through it */
}

static bool ct__pointwise_differentiable(ct__op op, const ct_tensor *const *in, const ct__op_args *args)
{
    return ct__pw_grad_of(op, in, args, true) != NULL;
}

/* ==================== autograd/formulas_view.c ==================== */
// >>autograd/formulas_view.c
/* Backward formulas of the views (view.c records them). */

/* A view's backward. Reshapes, transposes, permutes and unsqueezes undo
 * themselves on the gradient; expand sums it back. A strided view (a select,
 * slice, diagonal, unfold or as_strided) reads storage positions of its
 * input: its gradient is added up per storage position and read back at the
 * input's positions, with index_add and index_select, so the backward is
 * itself differentiable (and correct when the view overlaps itself, as unfold
 * and as_strided can). */
typedef struct ct__view_extra {
    ct__geom in, out; /* the input's and the view's places in the storage */
    int64_t perm[CT_MAX_DIMS];
} ct__view_extra;

static void ct__geom_of(const ct_tensor *t, ct__geom *g)
{
    g->ndim = t->ndim;
    memcpy(g->sizes, t->sizes, sizeof g->sizes);
    memcpy(g->strides, t->strides, sizeof g->strides);
    g->offset = t->offset;
}

/* The lowest and one past the highest storage position a geometry touches. */
static void ct__geom_span(const ct__geom *g, int64_t *lo, int64_t *hi)
{
    int64_t last = g->offset, numel = 1;
    for (int d = 0; d < g->ndim; d++) {
        numel *= g->sizes[d];
        if (g->sizes[d] > 0) last += (g->sizes[d] - 1) * g->strides[d];
    }
    if (numel == 0) last = g->offset - 1;
    *lo = CT__MIN(*lo, g->offset);
    *hi = CT__MAX(*hi, last + 1);
}

/* The storage positions (relative to base) of every element of geometry g, as an int64 tensor of its shape. */
static ct_tensor *ct__positions(const ct_tensor *storage_index, const ct__geom *g, int64_t base)
{
    return ct_contiguous(ct_as_strided(storage_index, ct_shape_make(g->ndim, g->sizes), ct_shape_make(g->ndim, g->strides),
                                       g->offset - base));
}

static ct_tensor *ct__strided_view_backward(const ct_tensor *grad, const ct__view_extra *x)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    ct__geom_span(&x->in, &lo, &hi);
    ct__geom_span(&x->out, &lo, &hi);
    int64_t span = hi > lo ? hi - lo : 0;
    ct_tensor *where = ct_arange(ct_int(0), ct_int(span), ct_int(1), CT_I64);
    ct_tensor *out_pos = ct__positions(where, &x->out, lo), *in_pos = ct__positions(where, &x->in, lo);
    ct_tensor *per_position = ct_index_add(ct_zeros(CT_SHAPE(span), grad->dtype), 0, ct_reshape(out_pos, CT_SHAPE(-1)),
                                           ct_reshape(grad, CT_SHAPE(-1)));
    ct_tensor *g = ct_index_select(per_position, 0, ct_reshape(in_pos, CT_SHAPE(-1)));
    return ct_reshape(g, ct_shape_make(x->in.ndim, x->in.sizes));
}

CT__BACKWARD(view)
{
    const ct__view_extra *x = (const ct__view_extra *)n->extra;
    const ct__out_meta *in = &n->next[0].fn->out[n->next[0].input_nr];
    ct_tensor *g = go[0];
    int64_t inverse[CT_MAX_DIMS];
    switch ((ct__view_kind)n->iargs[0]) {
    case CT__VIEW_RESHAPE: g = ct_reshape(g, ct_shape_make(in->ndim, in->sizes)); break;
    case CT__VIEW_TRANSPOSE: g = ct_transpose(g, (int)n->iargs[1], (int)n->iargs[2]); break;
    case CT__VIEW_PERMUTE:
        for (int d = 0; d < x->out.ndim; d++) inverse[x->perm[d]] = d;
        g = ct_permute(g, ct_shape_make(x->out.ndim, inverse));
        break;
    case CT__VIEW_UNSQUEEZE: g = ct_squeeze_dim(g, (int)n->iargs[1]); break;
    case CT__VIEW_EXPAND: g = ct__sum_to_shape(g, in->sizes, in->ndim); break;
    case CT__VIEW_STRIDED: g = ct__strided_view_backward(g, x); break;
    }
    CT__GRAD(0, g);
    return CT_OK;
}

static void ct__record_view(const char *name, ct__view_kind kind, ct_tensor *v, const ct_tensor *t, const int64_t *p)
{
    static const ct__node_type view_type = {"ViewBackward0", ct__bw_view};
    if (!v || !ct__requires_grad(t) || !ct__grad_mode()) return;
    ct__view_extra *x = (ct__view_extra *)CT_MALLOC(sizeof *x);
    if (!x) {
        CT__OOM();
        return;
    }
    ct__geom_of(t, &x->in);
    ct__geom_of(v, &x->out);
    if (kind == CT__VIEW_PERMUTE) memcpy(x->perm, p, (size_t)v->ndim * sizeof *p);
    ct__node *n = ct__record(&view_type, &t, 1, &v, 1);
    if (!n) {
        CT_FREE(x);
        return;
    }
    n->name = name;
    n->extra = x;
    n->iargs[0] = kind;
    if (kind == CT__VIEW_TRANSPOSE || kind == CT__VIEW_UNSQUEEZE) n->iargs[1] = p[0];
    if (kind == CT__VIEW_TRANSPOSE) n->iargs[2] = p[1];
}

/* ==================== autograd/formulas_reduce.c ==================== */
// >>autograd/formulas_reduce.c
/* Backward formulas of the reductions, scans and selections (reduce.c and
 * sort.c record them). They follow PyTorch 1.13's derivatives.yaml and
 * FunctionsManual.cpp step for step, so that gradients agree to the bit. */

/* ---------------------------------------------------------------- shapes */

/* The reduced dims of mask as a list. */
static ct_shape ct__mask_dims(uint32_t mask, int ndim)
{
    ct_shape dims;
    dims.ndim = 0;
    for (int d = 0; d < ndim; d++)
        if ((mask >> d) & 1) dims.size[dims.ndim++] = d;
    return dims;
}

/* A reduction's result (or its gradient) with the reduced dims put back as
 * size 1 (restore_reduced_dims, unsqueeze_multiple). */
static ct_tensor *ct__restore_dims(const ct_tensor *g, const ct__out_meta *in, uint32_t mask, bool keepdim)
{
    ct_tensor *r = (ct_tensor *)g;
    if (!keepdim)
        for (int d = 0; d < in->ndim && r; d++)
            if ((mask >> d) & 1) r = ct_unsqueeze(r, d);
    return r;
}

/* The gradient of a reduction's result spread back over the input's shape. */
static ct_tensor *ct__unreduce(const ct_tensor *g, const ct__out_meta *in, uint32_t mask, bool keepdim)
{
    ct_tensor *r = ct__restore_dims(g, in, mask, keepdim);
    return r ? ct_expand(r, ct_shape_make(in->ndim, in->sizes)) : NULL;
}

/* How many input elements went into each result element. */
static int64_t ct__reduced_count(const ct__out_meta *in, uint32_t mask)
{
    int64_t count = 1;
    for (int d = 0; d < in->ndim; d++)
        if ((mask >> d) & 1) count *= in->sizes[d];
    return count;
}

/* The node's saved tensors, in this order: input, result, indices. */
#define CT__SAVE_INPUT 1u
#define CT__SAVE_RES 2u
#define CT__SAVE_IDX 4u

static int ct__rg_slot(const ct__node *n, unsigned what)
{
    int slot = 0;
    for (unsigned bit = 1; bit < what; bit <<= 1) slot += (n->iargs[5] & bit) != 0;
    return slot;
}

#define CT__X CT__S(ct__rg_slot(n, CT__SAVE_INPUT))
#define CT__R CT__S(ct__rg_slot(n, CT__SAVE_RES))
#define CT__IDX CT__S(ct__rg_slot(n, CT__SAVE_IDX))
#define CT__MASK ((uint32_t)n->iargs[0])
#define CT__KEEPDIM (n->iargs[1] != 0)
#define CT__DIM ((int)n->iargs[2])
#define CT__CORRECTION (n->iargs[3])
#define CT__P (n->args[0])
#define CT__IN_META ct__input_meta(n, 0)

/* ---------------------------------------------------------------- sums and products */

CT__BACKWARD(sum)
{
    CT__GRAD(0, ct__unreduce(go[0], CT__IN_META, CT__MASK, CT__KEEPDIM));
    return CT_OK;
}

CT__BACKWARD(nansum) /* NaNs took no part */
{
    CT__GRAD(0, ct_where_scalar_self(ct_isnan(CT__X), ct_int(0), ct__unreduce(go[0], CT__IN_META, CT__MASK, CT__KEEPDIM)));
    return CT_OK;
}

/* mean_backward: the gradient spread evenly */
static ct_tensor *ct__mean_backward(const ct_tensor *g, const ct__out_meta *in, uint32_t mask, bool keepdim)
{
    return ct_div_scalar(ct__unreduce(g, in, mask, keepdim), ct_int(ct__reduced_count(in, mask)));
}

CT__BACKWARD(mean)
{
    CT__GRAD(0, ct__mean_backward(go[0], CT__IN_META, CT__MASK, CT__KEEPDIM));
    return CT_OK;
}

/* prod_safe_zeros_backward: the product of all the others, for each
 * element along dim, as the exclusive products from the front times those
 * from the back, which stays right when elements are zero. */
static ct_tensor *ct__prod_safe_zeros(const ct_tensor *g, const ct_tensor *x, int dim)
{
    if (ct_numel(x) == 0) return ct_expand(g, ct_shape_of(x));
    int64_t len = x->sizes[dim];
    ct_shape ones_size = ct_shape_of(x);
    ones_size.size[dim] = 1;
    ct_tensor *ones = ct_ones(ones_size, g->dtype);
    ct_tensor *front[2] = {ones, ct_narrow(x, dim, 0, len - 1)};
    ct_tensor *back[2] = {ones, ct_flip(ct_narrow(x, dim, 1, len - 1), ct__mask_dims(1u << dim, x->ndim))};
    ct_tensor *normal = ct_cumprod(ct_cat(front, 2, dim), dim, CT_DEFAULT);
    ct_tensor *reverse = ct_flip(ct_cumprod(ct_cat(back, 2, dim), dim, CT_DEFAULT), ct__mask_dims(1u << dim, x->ndim));
    return ct_mul(g, ct_mul(normal, reverse));
}

/* prod_backward: g * result / x without zeros; else the safe products (for
 * the product of everything, zeros when two are zero and no graph is made) */
CT__BACKWARD(prod)
{
    ct_tensor *x = CT__X, *r = CT__R, *g = go[0];
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (!x || !r) return ct_last_error_code();
    if (x->dtype != g->dtype) x = ct_to(x, g->dtype); /* prod(dtype=...): self.to(grad's dtype) */
    if (x && x->ndim == 0) {
        CT__GRAD(0, g);
        return CT_OK;
    }
    bool all = !n->iargs[4];
    int dim = 0;
    while (!all && !((CT__MASK >> dim) & 1)) dim++; /* the one reduced dim */
    if (!all && !CT__KEEPDIM) g = ct_unsqueeze(g, dim), r = ct_unsqueeze(r, dim);
    ct_tensor *zeros = x && g && r ? ct_sum(ct_eq_scalar(x, ct_int(0))) : NULL;
    if (!zeros) return ct_last_error_code();
    int64_t nz = ct_item_int(zeros);
    if (nz == 0) CT__GRAD(0, ct_mul(g, ct_div(r, x)));
    else if (all && nz > 1 && !ct_is_grad_enabled()) CT__GRAD(0, ct_zeros_like(x, CT_DEFAULT));
    else if (all) CT__GRAD(0, ct_view_as(ct__prod_safe_zeros(g, ct_reshape(x, CT_SHAPE(-1)), 0), x));
    else CT__GRAD(0, ct__prod_safe_zeros(g, x, dim));
    return CT_OK;
}

/* ---------------------------------------------------------------- extremes */

/* amax / amin (scale_grad_by_count): shared evenly by the elements equal to
 * their slice's extreme */
CT__BACKWARD(amax)
{
    const ct__out_meta *in = CT__IN_META;
    ct_tensor *mask = ct_eq(ct__restore_dims(CT__R, in, CT__MASK, CT__KEEPDIM), CT__X);
    ct_tensor *count = ct_sum_dim(mask, ct__mask_dims(CT__MASK, in->ndim), true, CT_DEFAULT);
    CT__GRAD(0, ct_mul(ct_div(ct__restore_dims(go[0], in, CT__MASK, CT__KEEPDIM), count), mask));
    return CT_OK;
}

/* evenly_distribute_backward: max(), min(), median() to one value share the
 * gradient among the elements equal to it (the NaNs, when it is NaN) */
CT__BACKWARD(evenly)
{
    ct_tensor *x = CT__X, *v = CT__R;
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (!x || !v) return ct_last_error_code();
    ct_tensor *mask = isnan(ct_item(v)) ? ct_isnan(x) : ct_eq(x, v);
    CT__GRAD(0, ct_where_scalar_other(mask, ct_div(go[0], ct_sum(mask)), ct_int(0)));
    return CT_OK;
}

/* value_selecting_reduction_backward: each gradient element goes to the
 * input element its index names; the rest get zero */
CT__BACKWARD(select)
{
    const ct__out_meta *in = CT__IN_META;
    ct_tensor *g = go[0], *idx = CT__IDX;
    if (!CT__KEEPDIM && in->ndim > 0) g = ct_unsqueeze(g, CT__DIM), idx = idx ? ct_unsqueeze(idx, CT__DIM) : NULL;
    CT__GRAD(0, ct_scatter(ct_zeros(ct_shape_make(in->ndim, in->sizes), go[0]->dtype), CT__DIM, idx, g));
    return CT_OK;
}

/* ---------------------------------------------------------------- statistics */

/* var_backward: 2 / (N - correction) * g * (x - mean) */
static ct_tensor *ct__var_backward(const ct__node *n, ct_tensor *g, const ct_tensor *x)
{
    const ct__out_meta *in = ct__input_meta(n, 0);
    bool all = x->ndim == 0 || !n->iargs[4];
    int64_t dof = (all ? ct_numel(x) : ct__reduced_count(in, CT__MASK)) - CT__CORRECTION;
    if (all && dof == 0) /* 2 / 0 */
        return ct_expand(ct_mul_scalar(g, ct_float(INFINITY)), ct_shape_of(x));
    if (!all && !CT__KEEPDIM && x->ndim > 1) g = ct__restore_dims(g, in, CT__MASK, false);
    ct_tensor *mean = all ? ct_mean(x) : ct_mean_dim(x, ct__mask_dims(CT__MASK, x->ndim), true, CT_DEFAULT);
    return ct_mul(ct_mul_scalar(g, ct_float(2.0 / (double)dof)), ct_sub(x, mean));
}

/* std_backward: the variance's, through d sqrt(v) = dv / (2 sqrt(v)), with
 * zero where the deviation is zero */
static ct_tensor *ct__std_backward(const ct__node *n, const ct_tensor *g, const ct_tensor *x, const ct_tensor *std)
{
    ct_tensor *gv = ct_where_scalar_self(ct_eq_scalar(std, ct_int(0)), ct_int(0), ct_div(g, ct_mul_scalar(std, ct_int(2))));
    return gv ? ct__var_backward(n, gv, x) : NULL;
}

/* std, var, and with their means (var_std_mean_backward) */
static ct_result ct__var_std_backward(ct__node *n, ct_tensor *const *go, ct_tensor **gi, bool is_std)
{
    ct_tensor *x = CT__X;
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (!x) return ct_last_error_code();
    ct_tensor *g = is_std ? ct__std_backward(n, go[0], x, CT__R) : ct__var_backward(n, go[0], x);
    if (g && n->n_out == 2) g = ct_add(g, ct__mean_backward(go[1], CT__IN_META, CT__MASK, CT__KEEPDIM));
    CT__GRAD(0, g);
    return CT_OK;
}

CT__BACKWARD(var) { return ct__var_std_backward(n, go, gi, false); }
CT__BACKWARD(std) { return ct__var_std_backward(n, go, gi, true); }

/* ---------------------------------------------------------------- norms */

/* norm_backward by p, with PyTorch's handling of zeros */
static ct_tensor *ct__norm_backward(const ct_tensor *g, const ct_tensor *x, const ct_tensor *norm, double p, uint32_t mask)
{
    ct_tensor *self_scaled, *scale_v;
    if (p == 1.0) return ct_mul(ct_sign(x), g);
    if (p == 2.0) return ct_mul(g, ct_where_scalar_self(ct_eq_scalar(norm, ct_int(0)), ct_int(0), ct_div(x, norm)));
    if (isinf(p)) { /* the extremes of |x| (or its NaNs) share the gradient */
        ct_tensor *a = ct_abs(x), *m = ct_logical_or(ct_eq(a, norm), ct_isnan(a));
        ct_tensor *count = ct_sum_dim(m, ct__mask_dims(mask, x->ndim), true, CT_DEFAULT);
        return ct_mul(ct_sign(x), ct_mul(ct_div(g, count), m));
    }
    if (p < 1.0) {
        self_scaled = ct_mul(ct_sign(x), ct_where_scalar_self(ct_eq_scalar(x, ct_int(0)), ct_int(0),
                                                              ct_pow_scalar(ct_abs(x), ct_float(p - 1))));
        return ct_mul(ct_mul(self_scaled, g), ct_pow_scalar(norm, ct_float(1 - p)));
    }
    if (p < 2.0) self_scaled = ct_mul(ct_sign(x), ct_pow_scalar(ct_abs(x), ct_float(p - 1)));
    else self_scaled = ct_mul(x, ct_pow_scalar(ct_abs(x), ct_float(p - 2)));
    scale_v = ct_where_scalar_self(ct_eq_scalar(norm, ct_int(0)), ct_int(0), ct_div(g, ct_pow_scalar(norm, ct_float(p - 1))));
    return ct_mul(self_scaled, scale_v);
}

CT__BACKWARD(norm) /* p = 0 has no gradient: left NULL (zero) */
{
    const ct__out_meta *in = CT__IN_META;
    ct_tensor *x = CT__X;
    if (!ct__needs_grad(n, 0) || CT__P == 0.0) return CT_OK;
    if (x && x->dtype != go[0]->dtype) x = ct_to(x, go[0]->dtype); /* norm(dtype=...) */
    ct_tensor *g = ct__restore_dims(go[0], in, CT__MASK, CT__KEEPDIM), *r = ct__restore_dims(CT__R, in, CT__MASK, CT__KEEPDIM);
    if (!x || !g || !r) return ct_last_error_code();
    CT__GRAD(0, ct__norm_backward(g, x, r, CT__P, CT__MASK));
    return CT_OK;
}

CT__BACKWARD(logsumexp) /* g * exp(x - result) */
{
    const ct__out_meta *in = CT__IN_META;
    ct_tensor *g = ct__restore_dims(go[0], in, CT__MASK, CT__KEEPDIM), *r = ct__restore_dims(CT__R, in, CT__MASK, CT__KEEPDIM);
    CT__GRAD(0, ct_mul(g, ct_exp(ct_sub(CT__X, r))));
    return CT_OK;
}

/* ---------------------------------------------------------------- scans */

/* w.flip(dim).cumsum(dim).flip(dim) */
static ct_tensor *ct__reversed_cumsum(const ct_tensor *w, int dim)
{
    ct_shape d = ct__mask_dims(1u << dim, w->ndim);
    return ct_flip(ct_cumsum(ct_flip(w, d), dim, CT_DEFAULT), d);
}

CT__BACKWARD(cumsum)
{
    ct_tensor *g = go[0];
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (g->dtype != CT__IN_META->dtype) g = ct_to(g, CT__IN_META->dtype); /* cumsum(dtype=...) */
    CT__GRAD(0, !g || ct_numel(g) <= 1 || g->sizes[CT__DIM] == 1 ? g : ct__reversed_cumsum(g, CT__DIM));
    return CT_OK;
}

/* cumprod_backward where x has zeros, without a graph (PyTorch's O(n)
 * path): before the first zero of a slice, as without zeros; at the first
 * zero, the product before it times the sum of g times the products after it
 * up to the second zero; after it, zero. */
static ct_tensor *ct__cumprod_zeros_backward(const ct_tensor *g, const ct_tensor *x, const ct_tensor *out,
                                             const ct_tensor *w, const ct_tensor *is_zero, int dim)
{
    ct_tensor *cs = ct_cumsum(is_zero, dim, CT_DEFAULT);
    ct_tensor *before = ct_eq_scalar(cs, ct_int(0)), *span = ct_eq_scalar(cs, ct_int(1));
    ct_tensor *first_zero = ct_logical_and(span, is_zero), *after_first = ct_logical_and(span, ct_logical_not(is_zero));
    ct_tensor *first_idx = NULL;
    if (ct_max_dim(span, dim, true, NULL, &first_idx) != CT_OK) return NULL;
    ct_tensor *g_before = ct_div(ct__reversed_cumsum(ct_where_scalar_other(before, w, ct_int(0)), dim), x);
    ct_tensor *prod_before = ct_where_scalar_self(ct_eq_scalar(first_idx, ct_int(0)), ct_int(1),
                                                  ct_gather(out, dim, ct_relu(ct_sub_scalar(first_idx, ct_int(1)))));
    ct_tensor *after = ct_cumprod(ct_where_scalar_other(after_first, x, ct_int(1)), dim, CT_DEFAULT);
    ct_tensor *g_first = ct_mul(ct_sum_dim(ct_mul(after, ct_where_scalar_other(span, g, ct_int(0))), CT_DIMS(dim), true,
                                           CT_DEFAULT), prod_before);
    return ct_where(first_zero, g_first, ct_where_scalar_other(before, g_before, ct_int(0)));
}

/* cumprod_backward where x has zeros and a graph is made: for each k, the
 * sum over j >= k of g_j times the product of x_0..x_j without x_k, built
 * from differentiable ops (PyTorch's O(n^2) path). */
static ct_tensor *ct__cumprod_graph_backward(const ct_tensor *g, const ct_tensor *x, int dim)
{
    int64_t len = x->sizes[dim];
    ct_shape ones_size = ct_shape_of(x);
    ones_size.size[dim] = 1;
    ct_tensor *ones = ct_ones(ones_size, g->dtype), *cols[64] = {NULL}, *omitted;
    ct_tensor **parts = len <= 64 ? cols : (ct_tensor **)CT_MALLOC((size_t)len * sizeof *parts);
    if (!parts) {
        CT__OOM();
        return NULL;
    }
    for (int64_t k = 0; k < len; k++) {
        ct_tensor *from_next = k + 1 < len ? ct_cumprod(ct_slice(x, dim, k + 1, len, 1), dim, CT_DEFAULT) : NULL;
        ct_tensor *until = k > 0 ? ct_prod_dim(ct_slice(x, dim, 0, k, 1), dim, true, CT_DEFAULT) : ones;
        ct_tensor *pair[2] = {until, from_next && k > 0 ? ct_mul(ct_expand_as(until, from_next), from_next) : from_next};
        omitted = from_next ? ct_cat(pair, 2, dim) : until;
        parts[k] = ct_sum_dim(ct_mul(ct_slice(g, dim, k, len, 1), omitted), CT_DIMS(dim), true, CT_DEFAULT);
    }
    ct_tensor *r = ct_cat(parts, (int)len, dim);
    if (parts != cols) CT_FREE(parts);
    return r;
}

CT__BACKWARD(cumprod)
{
    ct_tensor *x = CT__X, *out = CT__R, *g = go[0];
    int dim = CT__DIM;
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (!x || !out) return ct_last_error_code();
    if (g->dtype != x->dtype) g = ct_to(g, x->dtype); /* cumprod(dtype=...): grad.to(self's dtype) */
    if (!g || ct_numel(x) <= 1 || x->sizes[dim] == 1) {
        CT__GRAD(0, g);
        return CT_OK;
    }
    ct_tensor *w = ct_mul(out, g), *is_zero = ct_eq_scalar(x, ct_int(0)), *any = is_zero ? ct_any(is_zero) : NULL;
    if (!any) return ct_last_error_code();
    if (!ct_item_int(any)) CT__GRAD(0, ct_div(ct__reversed_cumsum(w, dim), x));
    else if (!ct_is_grad_enabled()) CT__GRAD(0, ct__cumprod_zeros_backward(g, x, out, w, is_zero, dim));
    else CT__GRAD(0, ct__cumprod_graph_backward(g, x, dim));
    return CT_OK;
}

/* cummaxmin_backward: each gradient element added to the element its index names */
CT__BACKWARD(cummax)
{
    const ct__out_meta *in = CT__IN_META;
    ct_tensor *zeros = ct_zeros(ct_shape_make(in->ndim, in->sizes), go[0]->dtype);
    CT__GRAD(0, ct_numel(zeros) == 0 ? zeros : ct_scatter_add(zeros, CT__DIM, CT__IDX, go[0]));
    return CT_OK;
}

/* The lowest finite value of a floating dtype (std::numeric_limits::lowest). */
static double ct__lowest(ct_dtype dt)
{
    switch (dt) {
    case CT_F16: return -65504.0;
    case CT_BF16: return -3.3895313892515355e38;
    case CT_F64: return -DBL_MAX;
    default: return -FLT_MAX;
    }
}

/* logcumsumexp_backward: the positive and negative parts of g run through
 * a reversed logcumsumexp in log space, so nothing overflows */
CT__BACKWARD(logcumsumexp)
{
    ct_tensor *g = go[0], *x = CT__X, *r = CT__R;
    int dim = CT__DIM;
    if (!ct__needs_grad(n, 0)) return CT_OK;
    if (g->ndim == 0 || ct_numel(g) == 0) {
        CT__GRAD(0, g);
        return CT_OK;
    }
    ct_shape d = ct__mask_dims(1u << dim, g->ndim);
    ct_scalar lowest = ct_float(ct__lowest(g->dtype));
    ct_tensor *log_abs = ct_log(ct_abs(g));
    ct_tensor *log_pos = ct_where_scalar_other(ct_gt_scalar(g, ct_int(0)), log_abs, lowest);
    ct_tensor *log_neg = ct_where_scalar_other(ct_lt_scalar(g, ct_int(0)), log_abs, lowest);
    ct_tensor *pos = ct_exp(ct_add(ct_flip(ct_logcumsumexp(ct_flip(ct_sub(log_pos, r), d), dim), d), x));
    ct_tensor *neg = ct_exp(ct_add(ct_flip(ct_logcumsumexp(ct_flip(ct_sub(log_neg, r), d), dim), d), x));
    CT__GRAD(0, ct_sub(pos, neg));
    return CT_OK;
}

/* ---------------------------------------------------------------- softmax */

CT__BACKWARD(softmax) /* _softmax_backward_data: y * (g - sum(g * y)) */
{
    ct_tensor *y = CT__R;
    CT__GRAD(0, ct_mul(y, ct_sub(go[0], ct_sum_dim(ct_mul(go[0], y), CT_DIMS(CT__DIM), true, CT_DEFAULT))));
    return CT_OK;
}

CT__BACKWARD(log_softmax) /* _log_softmax_backward_data: g - exp(y) * sum(g) */
{
    ct_tensor *y = CT__R;
    CT__GRAD(0, ct_sub(go[0], ct_mul(ct_exp(y), ct_sum_dim(go[0], CT_DIMS(CT__DIM), true, CT_DEFAULT))));
    return CT_OK;
}

#undef CT__X
#undef CT__R
#undef CT__IDX
#undef CT__MASK
#undef CT__KEEPDIM
#undef CT__DIM
#undef CT__CORRECTION
#undef CT__P
#undef CT__IN_META

/* ---------------------------------------------------------------- recording */

typedef struct ct__reduce_formula {
    ct__node_type type;
    const char *alt_name; /* the name of PyTorch's other form (NULL: the same) */
    unsigned save;
} ct__reduce_formula;

#define CT__IR (CT__SAVE_INPUT | CT__SAVE_RES)
/* indexed by ct__reduce_grad */
static const ct__reduce_formula ct__reduce_formulas[] = {
    {{"SumBackward0", ct__bw_sum}, "SumBackward1", 0},
    {{"NansumBackward0", ct__bw_nansum}, NULL, CT__SAVE_INPUT},
    {{"MeanBackward0", ct__bw_mean}, "MeanBackward1", 0},
    {{"ProdBackward0", ct__bw_prod}, "ProdBackward1", CT__IR},
    {{"AmaxBackward0", ct__bw_amax}, NULL, CT__IR},
    {{"AminBackward0", ct__bw_amax}, NULL, CT__IR},
    {{"MaxBackward1", ct__bw_evenly}, NULL, CT__IR},
    {{"MinBackward1", ct__bw_evenly}, NULL, CT__IR},
    {{"MedianBackward0", ct__bw_evenly}, NULL, CT__IR},
    {{"MaxBackward0", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"MinBackward0", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"MedianBackward1", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"ModeBackward0", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"KthvalueBackward0", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"SortBackward0", ct__bw_select}, "SortBackward1", CT__SAVE_IDX},
    {{"TopkBackward0", ct__bw_select}, NULL, CT__SAVE_IDX},
    {{"StdBackward0", ct__bw_std}, NULL, CT__IR},
    {{"VarBackward0", ct__bw_var}, NULL, CT__SAVE_INPUT},
    {{"StdMeanBackward0", ct__bw_std}, NULL, CT__IR},
    {{"VarMeanBackward0", ct__bw_var}, NULL, CT__SAVE_INPUT},
    {{"NormBackward1", ct__bw_norm}, "NormBackward3", CT__IR},
    {{"LogsumexpBackward0", ct__bw_logsumexp}, NULL, CT__IR},
    {{"CumsumBackward0", ct__bw_cumsum}, NULL, 0},
    {{"CumprodBackward0", ct__bw_cumprod}, NULL, CT__IR},
    {{"CummaxBackward0", ct__bw_cummax}, NULL, CT__SAVE_IDX},
    {{"CumminBackward0", ct__bw_cummax}, NULL, CT__SAVE_IDX},
    {{"LogcumsumexpBackward0", ct__bw_logcumsumexp}, NULL, CT__IR},
    {{"SoftmaxBackward0", ct__bw_softmax}, NULL, CT__SAVE_RES},
    {{"LogSoftmaxBackward0", ct__bw_log_softmax}, NULL, CT__SAVE_RES},
};
#undef CT__IR

static ct__reduce_rec ct__reduce_rec_of(uint32_t mask, bool keepdim)
{
    ct__reduce_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.mask = mask;
    rec.keepdim = keepdim;
    return rec;
}

static void ct__record_reduce(ct__reduce_grad kind, ct_tensor *const *out, int n_out, const ct_tensor *input,
                              const ct__reduce_rec *rec)
{
    const ct__reduce_formula *f = &ct__reduce_formulas[kind];
    if (!out[0] || !ct_dtype_is_floating(out[0]->dtype)) return; /* integer results have no gradient */
    const ct_tensor *saved_input = rec->self_before ? rec->self_before : input;
    ct__node *n = ct__record(&f->type, &input, 1, out, n_out);
    if (!n) return;
    if (rec->alt && f->alt_name) n->name = f->alt_name;
    n->iargs[0] = rec->mask;
    n->iargs[1] = rec->keepdim;
    n->iargs[2] = rec->dim;
    n->iargs[3] = rec->correction;
    n->iargs[4] = rec->alt;
    n->iargs[5] = f->save;
    n->args[0] = rec->p;
    if (f->save & CT__SAVE_INPUT) ct__save(n, saved_input, false);
    if (f->save & CT__SAVE_RES) ct__save(n, out[0], true);
    if (f->save & CT__SAVE_IDX) ct__save(n, rec->indices, false);
}

/* ==================== autograd/formulas_join.c ==================== */
// >>autograd/formulas_join.c
/* Backward formulas of joining, splitting, indexing (join.c records them)
 * and copying (copy.c and create.c).
 * Gradients of a selection are put back with index_add or scatter_add into
 * zeros, and those are differentiable in turn, so every formula here has a
 * double backward. */

/* What a join node keeps beyond its saved index (or mask). */
typedef struct ct__join_extra {
    ct_shape shape, dims; /* repeat: repeats; flip: dims; roll: shifts and dims; masked_select: broadcast shape */
    int n_lengths;
    int64_t *lengths; /* cat: each input's length along dim, -1 for a skipped legacy empty input */
} ct__join_extra;

#define CT__DIM ((int)n->iargs[0])
#define CT__EXTRA ((const ct__join_extra *)n->extra)
#define CT__IN_SHAPE(i) ct_shape_make(ct__input_meta(n, i)->ndim, ct__input_meta(n, i)->sizes)

/* Zeros shaped and typed as input i. */
static ct_tensor *ct__zeros_as_input(const ct__node *n, int i)
{
    const ct__out_meta *m = ct__input_meta(n, i);
    return ct_zeros(ct_shape_make(m->ndim, m->sizes), m->dtype);
}

CT__BACKWARD(cat)
{
    const ct__join_extra *x = CT__EXTRA;
    int64_t at = 0;
    for (int i = 0; i < x->n_lengths; i++) {
        int64_t len = x->lengths[i];
        CT__GRAD(i, len < 0 ? ct__zeros_as_input(n, i) : ct_narrow(go[0], CT__DIM, at, len));
        at += len < 0 ? 0 : len;
    }
    return CT_OK;
}

CT__BACKWARD(stack)
{
    for (int i = 0; i < n->n_next; i++) CT__GRAD(i, ct_select(go[0], CT__DIM, i));
    return CT_OK;
}

CT__BACKWARD(split) /* the pieces' gradients joined back (zeros for pieces that got none) */
{
    CT__GRAD(0, ct_cat(go, n->n_out, CT__DIM));
    return CT_OK;
}

CT__BACKWARD(unbind)
{
    CT__GRAD(0, ct_stack(go, n->n_out, CT__DIM));
    return CT_OK;
}

/* repeat: each dim d of the result is repeats[d] blocks of the input's size;
 * the blocks' gradients add up. Dims are folded one at a time so the rank
 * never grows by more than one. */
static ct_tensor *ct__repeat_backward(const ct_tensor *g, const ct_shape *reps, const ct__out_meta *in)
{
    int lead = reps->ndim - in->ndim;
    ct_tensor *r = (ct_tensor *)g;
    if (lead > 0) {
        ct_shape dims = CT_SHAPE0;
        for (int d = 0; d < lead; d++) dims.size[dims.ndim++] = d;
        r = ct_sum_dim(r, dims, false, CT_DEFAULT);
    }
    for (int d = 0; d < in->ndim && r; d++) {
        if (reps->size[lead + d] == 1) continue;
        int64_t split[CT_MAX_DIMS + 1];
        memcpy(split, r->sizes, sizeof(int64_t) * (size_t)d);
        split[d] = reps->size[lead + d];
        split[d + 1] = in->sizes[d];
        memcpy(split + d + 2, r->sizes + d + 1, sizeof(int64_t) * (size_t)(r->ndim - d - 1));
        r = ct_sum_dim(ct_reshape(r, ct_shape_make(r->ndim + 1, split)), CT_SHAPE(d), false, CT_DEFAULT);
    }
    return r;
}

CT__BACKWARD(repeat)
{
    CT__GRAD(0, ct__repeat_backward(go[0], &CT__EXTRA->shape, ct__input_meta(n, 0)));
    return CT_OK;
}

CT__BACKWARD(flip)
{
    CT__GRAD(0, ct_flip(go[0], CT__EXTRA->dims));
    return CT_OK;
}

CT__BACKWARD(roll)
{
    ct_shape back = CT__EXTRA->shape;
    for (int i = 0; i < back.ndim; i++) back.size[i] = -back.size[i];
    CT__GRAD(0, ct_roll(go[0], back, CT__EXTRA->dims));
    return CT_OK;
}

CT__BACKWARD(gather)
{
    CT__GRAD(0, ct_scatter_add(ct__zeros_as_input(n, 0), CT__DIM, CT__S(0), go[0]));
    return CT_OK;
}

CT__BACKWARD(scatter) /* the written places got src's gradient */
{
    CT__GRAD(0, ct_scatter_scalar(go[0], CT__DIM, CT__S(0), ct_int(0)));
    if (n->n_next > 1) CT__GRAD(1, ct_gather(go[0], CT__DIM, CT__S(0)));
    return CT_OK;
}

CT__BACKWARD(scatter_add)
{
    CT__GRAD(0, go[0]);
    CT__GRAD(1, ct_gather(go[0], CT__DIM, CT__S(0)));
    return CT_OK;
}

CT__BACKWARD(index_select)
{
    CT__GRAD(0, ct_index_add(ct__zeros_as_input(n, 0), CT__DIM, CT__S(0), go[0]));
    return CT_OK;
}

/* The rows of g that index picked, shaped as input i (a 0-d source of a 1-d self). */
static ct_tensor *ct__picked(ct__node *n, const ct_tensor *g, int i)
{
    return ct_reshape(ct_index_select(g, CT__DIM, CT__S(0)), CT__IN_SHAPE(i));
}

CT__BACKWARD(index_add)
{
    CT__GRAD(0, go[0]);
    CT__GRAD(1, ct__times_alpha(ct__picked(n, go[0], 1), n));
    return CT_OK;
}

CT__BACKWARD(index_overwrite) /* index_fill and index_copy: the overwritten rows get nothing */
{
    CT__GRAD(0, ct_index_fill_scalar(go[0], CT__DIM, CT__S(0), ct_int(0)));
    if (n->n_next < 2) return CT_OK;
    if (n->iargs[1]) CT__GRAD(1, ct_sum(ct_index_select(go[0], CT__DIM, CT__S(0)))); /* a 0-d fill value */
    else CT__GRAD(1, ct__picked(n, go[0], 1));
    return CT_OK;
}

CT__BACKWARD(masked_fill)
{
    ct_tensor *mask = CT__S(0);
    CT__GRAD(0, ct_masked_fill_scalar(go[0], mask, ct_int(0)));
    if (n->n_next > 1) CT__GRAD(1, ct_sum(ct_where_scalar_other(mask, go[0], ct_int(0))));
    return CT_OK;
}

/* Element k of a flat selection came from flat position positions[k] of a
 * tensor of `shape`: its gradient goes back there (and adds up on repeats). */
static ct_tensor *ct__flat_put_back(const ct_tensor *g, const ct_tensor *positions, ct_shape shape, ct_dtype dtype)
{
    int64_t numel = 1;
    for (int d = 0; d < shape.ndim; d++) numel *= shape.size[d];
    ct_tensor *flat = ct_index_add(ct_zeros(CT_SHAPE(numel), dtype), 0, positions, ct_reshape(g, CT_SHAPE(-1)));
    return ct_reshape(flat, shape);
}

CT__BACKWARD(masked_select) /* positions of the mask's true elements in the broadcast shape */
{
    ct_shape b = CT__EXTRA->shape;
    const ct__out_meta *in = ct__input_meta(n, 0);
    ct_tensor *where = ct_reshape(ct_nonzero(ct_reshape(ct_broadcast_to(CT__S(0), b), CT_SHAPE(-1))), CT_SHAPE(-1));
    ct_tensor *g = where ? ct__flat_put_back(go[0], where, b, in->dtype) : NULL;
    CT__GRAD(0, g ? ct__sum_to_shape(g, in->sizes, in->ndim) : NULL);
    return CT_OK;
}

CT__BACKWARD(take) /* negative indices count from the end; also tensor[index] with positions saved */
{
    ct_shape shape = CT__IN_SHAPE(0);
    int64_t numel = 1;
    for (int d = 0; d < shape.ndim; d++) numel *= shape.size[d];
    ct_tensor *at = ct_reshape(CT__S(0), CT_SHAPE(-1));
    if (numel > 0) at = ct_remainder_scalar(at, ct_int(numel));
    CT__GRAD(0, at ? ct__flat_put_back(go[0], at, shape, ct__input_meta(n, 0)->dtype) : NULL);
    return CT_OK;
}

/* t[index] = value: the written places of t get nothing; value gets what
 * they got, summed over the places it was broadcast to. */
CT__BACKWARD(index_put)
{
    ct_tensor *at = ct_reshape(CT__S(0), CT_SHAPE(-1)), *flat = ct_reshape(go[0], CT_SHAPE(-1));
    CT__GRAD(0, ct_reshape(ct_index_fill_scalar(flat, 0, at, ct_int(0)), CT__IN_SHAPE(0)));
    if (!ct__needs_grad(n, 1)) return CT_OK;
    const ct__out_meta *v = ct__input_meta(n, 1);
    int lead = 0; /* setitem drops value's leading 1s before it broadcasts */
    while (lead < v->ndim && v->sizes[lead] == 1) lead++;
    ct_tensor *picked = ct_reshape(ct_index_select(flat, 0, at), ct_shape_of(CT__S(0)));
    ct_tensor *summed = picked ? ct__sum_to_shape(picked, v->sizes + lead, v->ndim - lead) : NULL;
    CT__GRAD(1, summed ? ct_reshape(summed, CT__IN_SHAPE(1)) : NULL);
    return CT_OK;
}

CT__BACKWARD(not_implemented)
{
    (void)n, (void)go, (void)gi;
    return ct__fail(CT_ERR_RUNTIME, "derivative for aten::scatter is not implemented");
}

#undef CT__DIM
#undef CT__EXTRA
#undef CT__IN_SHAPE

/* indexed by ct__join_grad */
static const ct__node_type ct__join_types[] = {
    {"CatBackward0", ct__bw_cat},
    {"StackBackward0", ct__bw_stack},
    {"SplitBackward0", ct__bw_split},
    {"SplitWithSizesBackward0", ct__bw_split},
    {"UnbindBackward0", ct__bw_unbind},
    {"RepeatBackward0", ct__bw_repeat},
    {"FlipBackward0", ct__bw_flip},
    {"RollBackward0", ct__bw_roll},
    {"GatherBackward0", ct__bw_gather},
    {"ScatterBackward0", ct__bw_scatter},
    {"ScatterBackward1", ct__bw_scatter},
    {"ScatterAddBackward0", ct__bw_scatter_add},
    {"IndexSelectBackward0", ct__bw_index_select},
    {"IndexAddBackward0", ct__bw_index_add},
    {"IndexFillBackward0", ct__bw_index_overwrite},
    {"IndexFillBackward1", ct__bw_index_overwrite},
    {"IndexCopyBackward0", ct__bw_index_overwrite},
    {"MaskedFillBackward0", ct__bw_masked_fill},
    {"MaskedFillBackward1", ct__bw_masked_fill},
    {"MaskedSelectBackward0", ct__bw_masked_select},
    {"TakeBackward0", ct__bw_take},
    {"IndexBackward0", ct__bw_take}, /* saved: the flat positions taken */
    {"IndexPutBackward0", ct__bw_index_put},
    {"torch::autograd::CopySlices", ct__bw_index_put},
    {"torch::autograd::CopyBackwards", ct__bw_index_put},
    {"torch::autograd::NotImplemented", ct__bw_not_implemented},
};

static ct__join_extra *ct__join_extra_new(const ct__join_args *a)
{
    size_t bytes = sizeof(ct__join_extra) + (size_t)CT__MAX(a->n_lengths, 0) * sizeof(int64_t);
    ct__join_extra *x = (ct__join_extra *)CT_MALLOC(bytes);
    if (!x) {
        CT__OOM();
        return NULL;
    }
    x->shape = a->shape;
    x->dims = a->dims;
    x->n_lengths = a->n_lengths;
    x->lengths = (int64_t *)(x + 1);
    if (a->n_lengths > 0) memcpy(x->lengths, a->lengths, (size_t)a->n_lengths * sizeof(int64_t));
    return x;
}

static void ct__record_join(ct__join_grad kind, const ct_tensor *const *in, int n_in, ct_tensor *const *out, int n_out,
                            const ct__join_args *a)
{
    for (int k = 0; k < n_out; k++)
        if (!out[k]) return;
    if (!ct__grad_mode()) return;
    ct__join_extra *x = ct__join_extra_new(a);
    if (!x) return;
    ct__node *n = ct__record(&ct__join_types[kind], in, n_in, out, n_out);
    if (!n) {
        CT_FREE(x);
        return;
    }
    n->extra = x;
    n->iargs[0] = a->dim;
    n->iargs[1] = kind == CT__JG_INDEX_FILL_TENSOR;
    n->pw.has_value = a->has_alpha;
    n->pw.value = a->alpha;
    if (a->index) ct__save(n, a->index, false);
}

/* ---------------------------------------------------------------- copies */

#define CT__K (n->iargs[0])

CT__BACKWARD(to_copy)
{
    CT__GRAD(0, ct_to(go[0], ct__input_meta(n, 0)->dtype));
    return CT_OK;
}

CT__BACKWARD(copy) /* self was overwritten; src was broadcast and cast into it */
{
    CT__GRAD(0, ct_zeros_like(go[0], CT_DEFAULT));
    if (!ct__needs_grad(n, 1)) return CT_OK;
    const ct__out_meta *src = ct__input_meta(n, 1);
    CT__GRAD(1, ct_to(ct__sum_to_shape(go[0], src->sizes, src->ndim), src->dtype));
    return CT_OK;
}

/* diag of a vector made a matrix: its diagonal k is the gradient. diag of
 * a matrix read its diagonal k: the gradient goes back to those places. */
CT__BACKWARD(diag)
{
    const ct__out_meta *in = ct__input_meta(n, 0);
    if (in->ndim == 1) {
        CT__GRAD(0, ct_diagonal(go[0], CT__K, 0, 1));
        return CT_OK;
    }
    int64_t cols = in->sizes[1], first = CT__K >= 0 ? CT__K : -CT__K * cols; /* flat place of the first element */
    ct_tensor *at = ct_add_scalar(ct_mul_scalar(ct_arange(ct_int(0), ct_int(go[0]->sizes[0]), ct_int(1), CT_I64),
                                                ct_int(cols + 1)),
                                  ct_int(first));
    CT__GRAD(0, at ? ct__flat_put_back(go[0], at, ct_shape_make(in->ndim, in->sizes), in->dtype) : NULL);
    return CT_OK;
}

CT__BACKWARD(tril)
{
    CT__GRAD(0, ct_tril(go[0], CT__K));
    return CT_OK;
}

CT__BACKWARD(triu)
{
    CT__GRAD(0, ct_triu(go[0], CT__K));
    return CT_OK;
}

#undef CT__K

/* indexed by ct__copy_grad */
static const ct__node_type ct__copy_types[] = {
    {"CloneBackward0", ct__bw_identity},
    {"ToCopyBackward0", ct__bw_to_copy},
    {"FillBackward2", ct__bw_zero},
    {"ZeroBackward0", ct__bw_zero},
    {"torch::autograd::CopyBackwards", ct__bw_copy},
    {"DiagBackward0", ct__bw_diag},
    {"TrilBackward0", ct__bw_tril},
    {"TriuBackward0", ct__bw_triu},
};

static void ct__record_copy(ct__copy_grad kind, ct_tensor *out, const ct_tensor *input, const ct_tensor *src, int64_t k)
{
    const ct_tensor *in[2] = {input, src};
    if (!out) return;
    ct__node *n = ct__record(&ct__copy_types[kind], in, src ? 2 : 1, &out, 1);
    if (n) n->iargs[0] = k;
}

/* ==================== autograd/function.c ==================== */
// >>autograd/function.c
/* Custom functions (torch.autograd.Function): user forward and backward
 * callbacks around one node of the graph. */

struct ct_function_ctx {
    const ct_function *fn;  /* &fn_copy: the caller's may not outlive the graph */
    ct_function fn_copy;
    void *user;
    ct__node *node;         /* once recorded (the node owns the ctx) */
    char node_name[96];     /* "<name>Backward" */
    int n_inputs;
    bool *needs_input_grad; /* per input, while forward runs */
    ct_tensor **to_save;    /* save_for_backward's tensors until the node keeps them */
    int n_to_save;
    ct_tensor **dirty, **non_diff;
    int n_dirty, n_non_diff;
    void *data;
    void (*free_data)(void *data);
};

static void ct__ctx_free(ct_function_ctx *ctx)
{
    if (!ctx) return;
    for (int i = 0; i < ctx->n_to_save; i++) ct_release(ctx->to_save[i]);
    if (ctx->free_data) ctx->free_data(ctx->data);
    CT_FREE(ctx->to_save);
    CT_FREE(ctx->dirty);
    CT_FREE(ctx->non_diff);
    CT_FREE(ctx->needs_input_grad);
    CT_FREE(ctx);
}

/* A tensor list kept by the ctx (a copy of the caller's pointers). */
static ct_result ct__ctx_list(ct_tensor *const *tensors, int n, const char *what, ct_tensor ***list, int *count)
{
    if (n < 0 || (n > 0 && !tensors)) return ct__fail(CT_ERR_VALUE, "%s: give an array of %d tensors", what, n);
    for (int i = 0; i < n; i++)
        if (!tensors[i]) return ct__fail(CT_ERR_TYPE, "%s(): argument %d must be Tensor, not NULL", what, i);
    ct_tensor **copy = (ct_tensor **)CT_MALLOC((size_t)(n + 1) * sizeof *copy);
    if (!copy) return CT__OOM();
    memcpy(copy, tensors, (size_t)n * sizeof *copy);
    CT_FREE(*list);
    *list = copy;
    *count = n;
    return CT_OK;
}

static bool ct__listed(ct_tensor *const *list, int n, const ct_tensor *t)
{
    for (int i = 0; i < n; i++)
        if (list[i] == t) return true;
    return false;
}

void *ct_ctx_user(const ct_function_ctx *ctx) { return ctx ? ctx->user : NULL; }
void *ct_ctx_data(const ct_function_ctx *ctx) { return ctx ? ctx->data : NULL; }

void ct_ctx_set_data(ct_function_ctx *ctx, void *data, void (*free_data)(void *data))
{
    if (!ctx) return;
    if (ctx->free_data && ctx->data != data) ctx->free_data(ctx->data);
    ctx->data = data;
    ctx->free_data = free_data;
}

ct_result ct_ctx_save_for_backward(ct_function_ctx *ctx, ct_tensor *const *tensors, int n)
{
    if (!ctx) return ct__fail(CT_ERR_VALUE, "save_for_backward: ctx is NULL");
    if (ctx->node) return ct__fail(CT_ERR_RUNTIME, "save_for_backward can only be called from forward");
    ct_tensor **old = ctx->to_save;
    int n_old = ctx->n_to_save;
    ctx->to_save = NULL;
    ct_result r = ct__ctx_list(tensors, n, "save_for_backward", &ctx->to_save, &ctx->n_to_save);
    if (r != CT_OK) { /* nothing changed */
        ctx->to_save = old;
        ctx->n_to_save = n_old;
        return r;
    }
    for (int i = 0; i < n; i++) ct_retain(ctx->to_save[i]);
    for (int i = 0; i < n_old; i++) ct_release(old[i]);
    CT_FREE(old);
    return CT_OK;
}

ct_tensor *ct_ctx_saved_tensor(ct_function_ctx *ctx, int i)
{
    if (!ctx || !ctx->node) {
        ct__fail(CT_ERR_RUNTIME, "saved_tensors can only be read in backward");
        return NULL;
    }
    if (!ctx->node->saved_freed && (i < 0 || i >= ctx->node->n_saved)) {
        ct__fail(CT_ERR_INDEX, "tuple index out of range");
        return NULL;
    }
    return ct__saved_get(ctx->node, i);
}

bool ct_ctx_needs_input_grad(const ct_function_ctx *ctx, int i)
{
    if (!ctx || i < 0 || i >= ctx->n_inputs) return false;
    return ctx->node ? ct__needs_grad(ctx->node, i) : ctx->needs_input_grad[i];
}

ct_result ct_ctx_mark_dirty(ct_function_ctx *ctx, ct_tensor *const *tensors, int n)
{
    if (!ctx) return ct__fail(CT_ERR_VALUE, "mark_dirty: ctx is NULL");
    return ct__ctx_list(tensors, n, "mark_dirty", &ctx->dirty, &ctx->n_dirty);
}

ct_result ct_ctx_mark_non_differentiable(ct_function_ctx *ctx, ct_tensor *const *tensors, int n)
{
    if (!ctx) return ct__fail(CT_ERR_VALUE, "mark_non_differentiable: ctx is NULL");
    return ct__ctx_list(tensors, n, "mark_non_differentiable", &ctx->non_diff, &ctx->n_non_diff);
}

/* ---------------------------------------------------------------- backward */

/* What once_differentiable leaves behind when the gradients it got require
 * grad: results that refuse to be differentiated again. */
CT__BACKWARD(delayed_error)
{
    (void)n, (void)go, (void)gi;
    return ct__fail(CT_ERR_RUNTIME, "trying to differentiate twice a function that was marked with @once_differentiable");
}

static void ct__once_differentiable_guard(ct_tensor *const *go, int n_out, ct_tensor **gi, int n_in)
{
    static const ct__node_type delayed = {"DelayedError", ct__bw_delayed_error};
    ct_tensor *results[64];
    int k = 0;
    for (int i = 0; i < n_in && k < 64; i++)
        if (gi[i]) results[k++] = gi[i] = ct_detach(gi[i]);
    ct__record(&delayed, (const ct_tensor *const *)go, n_out, results, k);
}

CT__BACKWARD(custom)
{
    ct_function_ctx *ctx = (ct_function_ctx *)n->extra;
    const ct_function *fn = ctx->fn;
    bool recorded = ct__grad_mode(); /* create_graph */
    ct_grad_mode mode = ct_set_grad_enabled(recorded && !fn->once_differentiable);
    ct_result r = fn->backward(ctx, go, gi);
    ct_grad_mode_restore(mode);
    if (r != CT_OK) return r;
    bool grads_need_grad = false;
    for (int k = 0; k < n->n_out; k++) grads_need_grad = grads_need_grad || ct__requires_grad(go[k]);
    if (fn->once_differentiable && recorded && grads_need_grad) ct__once_differentiable_guard(go, n->n_out, gi, n->n_next);
    for (int i = 0; i < n->n_next; i++)
        if (!ct__needs_grad(n, i)) gi[i] = NULL; /* PyTorch drops what was not asked for */
    return CT_OK;
}

static void ct__custom_release(ct__node *n)
{
    ct__ctx_free((ct_function_ctx *)n->extra);
    n->extra = NULL;
}

/* ---------------------------------------------------------------- apply */

/* After forward: an output that is an input comes back as that input when
 * it was marked dirty (its version counted), else as a new alias of it. */
static ct_result ct__settle_outputs(ct_function_ctx *ctx, ct_tensor *const *inputs, int n_in, ct_tensor **outputs)
{
    for (int k = 0; k < ctx->fn->n_outputs; k++) {
        if (!outputs[k]) return ct__fail(CT_ERR_RUNTIME, "%s.forward returned no tensor for output %d", ctx->fn->name, k);
        if (!ct__listed(inputs, n_in, outputs[k])) continue;
        if (ct__listed(ctx->dirty, ctx->n_dirty, outputs[k])) {
            if (ct__grad_mode() && outputs[k]->requires_grad && ct_is_leaf(outputs[k]))
                return ct__fail(CT_ERR_RUNTIME, "a leaf Variable that requires grad has been used in an in-place operation.");
            outputs[k]->storage->version++;
            outputs[k] = ct__same(outputs[k]);
        } else {
            outputs[k] = ct_detach(outputs[k]);
        }
        if (!outputs[k]) return ct_last_error_code();
    }
    return CT_OK;
}

/* The node: edges to the inputs, the differentiable outputs, what forward saved. */
static ct_result ct__record_custom(ct_function_ctx *ctx, ct_tensor *const *inputs, int n_in, ct_tensor **outputs)
{
    static const ct__node_type custom = {"CustomBackward", ct__bw_custom};
    int n_out = ctx->fn->n_outputs;
    bool any = false;
    for (int i = 0; i < n_in; i++) any = any || ctx->needs_input_grad[i];
    if (!any) return CT_OK;
    ct_tensor **diff = (ct_tensor **)CT_MALLOC((size_t)(n_out + 1) * sizeof *diff);
    if (!diff) return CT__OOM();
    for (int k = 0; k < n_out; k++) diff[k] = ct__listed(ctx->non_diff, ctx->n_non_diff, outputs[k]) ? NULL : outputs[k];
    ct__node *n = ct__record(&custom, (const ct_tensor *const *)inputs, n_in, diff, n_out);
    CT_FREE(diff);
    if (!n) return ct_last_error_code();
    n->name = ctx->node_name;
    n->extra = ctx;
    n->release_extra = ct__custom_release;
    ctx->node = n;
    for (int i = 0; i < ctx->n_to_save; i++)
        ct__save(n, ctx->to_save[i], ct__listed(outputs, n_out, ctx->to_save[i]));
    for (int i = 0; i < ctx->n_to_save; i++) ct_release(ctx->to_save[i]);
    ctx->n_to_save = 0;
    return CT_OK;
}

static ct_function_ctx *ct__ctx_new(const ct_function *fn, ct_tensor *const *inputs, int n_in, void *user)
{
    ct_function_ctx *ctx = (ct_function_ctx *)CT_MALLOC(sizeof *ctx);
    bool *needs = (bool *)CT_MALLOC((size_t)(n_in + 1) * sizeof *needs);
    if (!ctx || !needs) {
        CT_FREE(ctx);
        CT_FREE(needs);
        CT__OOM();
        return NULL;
    }
    memset(ctx, 0, sizeof *ctx);
    ctx->fn_copy = *fn;
    ctx->fn = &ctx->fn_copy;
    ctx->user = user;
    ctx->n_inputs = n_in;
    ctx->needs_input_grad = needs;
    for (int i = 0; i < n_in; i++) needs[i] = ct__grad_mode() && ct__requires_grad(inputs[i]);
    snprintf(ctx->node_name, sizeof ctx->node_name, "%sBackward", fn->name ? fn->name : "");
    return ctx;
}

ct_result ct_function_apply(const ct_function *fn, ct_tensor *const *inputs, int n_inputs, ct_tensor **outputs,
                            void *user)
{
    if (!fn || !fn->forward || !fn->backward || fn->n_outputs <= 0)
        return ct__fail(CT_ERR_VALUE, "Function.apply: give a function with forward, backward and at least one output");
    if (n_inputs < 0 || (n_inputs > 0 && !inputs) || !outputs)
        return ct__fail(CT_ERR_VALUE, "Function.apply: give %d inputs and room for %d outputs", n_inputs, fn->n_outputs);
    for (int i = 0; i < n_inputs; i++)
        if (!inputs[i]) return ct__fail(CT_ERR_TYPE, "expected Tensor as element %d in argument 0, but got NULL", i);
    ct_function_ctx *ctx = ct__ctx_new(fn, inputs, n_inputs, user);
    if (!ctx) return ct_last_error_code();
    for (int k = 0; k < fn->n_outputs; k++) outputs[k] = NULL;
    ct_grad_mode mode = ct_set_grad_enabled(false);
    ct_result r = fn->forward(ctx, inputs, n_inputs, outputs);
    ct_grad_mode_restore(mode);
    if (r == CT_OK) r = ct__settle_outputs(ctx, inputs, n_inputs, outputs);
    if (r == CT_OK) r = ct__record_custom(ctx, inputs, n_inputs, outputs);
    if (!ctx->node) ct__ctx_free(ctx); /* not recorded: nothing will call backward */
    if (r != CT_OK)
        for (int k = 0; k < fn->n_outputs; k++) outputs[k] = NULL;
    return r;
}

/* ==================== autograd/checkpoint.c ==================== */
// >>autograd/checkpoint.c
/* Activation checkpointing (torch.utils.checkpoint), as a custom function
 * whose backward runs the forward again with grad mode on. */

typedef struct ct__checkpoint {
    ct_checkpoint_fn fn;
    void *user;
    void (*free_user)(void *user); /* NULL: the caller's */
    int n_outputs;
    unsigned char *rng; /* the default generator's state before forward */
    bool owned;         /* by the ctx, once forward ran */
} ct__checkpoint;

static void ct__checkpoint_free(void *p)
{
    ct__checkpoint *c = (ct__checkpoint *)p;
    if (c->free_user) c->free_user(c->user);
    CT_FREE(c->rng);
    CT_FREE(c);
}

/* fn's outputs, checked: exactly n_outputs of them. */
static ct_result ct__checkpoint_run(const ct__checkpoint *c, ct_tensor *const *inputs, int n, ct_tensor **outputs)
{
    ct_tensor *got[8];
    int k = c->fn(inputs, n, got, c->user);
    if (k < 0) return (ct_result)k;
    if (k != c->n_outputs)
        return ct__fail(CT_ERR_RUNTIME, "checkpoint: the function gave %d outputs, not %d", k, c->n_outputs);
    memcpy(outputs, got, (size_t)k * sizeof *got);
    return CT_OK;
}

static ct_result ct__checkpoint_forward(ct_function_ctx *ctx, ct_tensor *const *inputs, int n, ct_tensor **outputs)
{
    ct__checkpoint *c = (ct__checkpoint *)ct_ctx_user(ctx);
    ct_ctx_set_data(ctx, c, ct__checkpoint_free); /* the ctx (and the graph) owns it from here */
    c->owned = true;
    ct_generator_get_state(ct_default_generator(), c->rng);
    ct_result r = ct__checkpoint_run(c, inputs, n, outputs);
    return r == CT_OK ? ct_ctx_save_for_backward(ctx, inputs, n) : r;
}

/* backward from the recomputed outputs that require grad, with their gradients. */
static ct_result ct__checkpoint_backward_through(ct_tensor *const *y, ct_tensor *const *go, int n_out)
{
    const ct_tensor *roots[8], *grads[8];
    int k = 0;
    for (int i = 0; i < n_out; i++)
        if (ct_requires_grad(y[i])) roots[k] = y[i], grads[k++] = go[i];
    ct_backward_opts opts = {false, false, NULL, 0};
    return ct_autograd_backward(roots, grads, k, opts);
}

/* Run fn again on detached inputs with the forward's random state, then
 * backward through it: the inputs' gradients are what it left in them. */
static ct_result ct__checkpoint_backward(ct_function_ctx *ctx, ct_tensor *const *go, ct_tensor **gi)
{
    const ct__checkpoint *c = (const ct__checkpoint *)ct_ctx_data(ctx);
    int n = ctx->n_inputs;
    if (ct_is_grad_enabled())
        return ct__fail(CT_ERR_RUNTIME, "Checkpointing is not compatible with .grad() or when an `inputs` parameter is "
                                        "passed to .backward(). Please use .backward() and do not pass its `inputs` "
                                        "argument.");
    ct_tensor **x = (ct_tensor **)CT_MALLOC((size_t)(n + c->n_outputs + 1) * sizeof *x), **y = x + n;
    unsigned char *now = (unsigned char *)CT_MALLOC(ct_generator_state_size());
    ct_result r = x && now ? CT_OK : CT__OOM();
    for (int i = 0; i < n && r == CT_OK; i++) {
        ct_tensor *saved = ct_ctx_saved_tensor(ctx, i);
        x[i] = saved ? ct_detach(saved) : NULL;
        if (!x[i]) r = ct_last_error_code();
        else if (ct_ctx_needs_input_grad(ctx, i)) r = ct_requires_grad_(x[i], true);
    }
    if (r == CT_OK) {
        ct_generator_get_state(ct_default_generator(), now);
        ct_generator_set_state(ct_default_generator(), c->rng, ct_generator_state_size());
        ct_grad_mode mode = ct_enable_grad();
        r = ct__checkpoint_run(c, x, n, y);
        ct_grad_mode_restore(mode);
        ct_generator_set_state(ct_default_generator(), now, ct_generator_state_size());
    }
    if (r == CT_OK) r = ct__checkpoint_backward_through(y, go, c->n_outputs);
    for (int i = 0; i < n && r == CT_OK; i++) gi[i] = ct_ctx_needs_input_grad(ctx, i) ? ct_grad(x[i]) : NULL;
    CT_FREE(x);
    CT_FREE(now);
    return r;
}

/* checkpoint, with free_user to free user when the graph goes (NULL: the caller's). */
static ct_result ct__checkpoint_apply(ct_checkpoint_fn fn, ct_tensor *const *inputs, int n, ct_tensor **outputs,
                                      int n_outputs, void *user, void (*free_user)(void *user))
{
    static const ct_function checkpoint = {"Checkpoint", 0, ct__checkpoint_forward, ct__checkpoint_backward, false};
    ct__checkpoint *c = (ct__checkpoint *)CT_MALLOC(sizeof *c);
    unsigned char *rng = (unsigned char *)CT_MALLOC(ct_generator_state_size());
    if (!c || !rng) {
        CT_FREE(c);
        CT_FREE(rng);
        if (free_user) free_user(user);
        return CT__OOM();
    }
    c->fn = fn;
    c->user = user;
    c->free_user = free_user;
    c->n_outputs = n_outputs;
    c->rng = rng;
    c->owned = false;
    ct_function f = checkpoint; /* CheckpointFunctionBackward, with this call's number of outputs */
    f.name = "CheckpointFunction";
    f.n_outputs = n_outputs;
    ct_result r = ct_function_apply(&f, inputs, n, outputs, c);
    if (!c->owned) ct__checkpoint_free(c);
    return r;
}

ct_result ct_checkpoint(ct_checkpoint_fn fn, ct_tensor *const *inputs, int n, ct_tensor **outputs, int n_outputs,
                        void *user)
{
    if (!fn || n_outputs <= 0 || n_outputs > 8 || !outputs)
        return ct__fail(CT_ERR_VALUE, "checkpoint: give a function and room for its 1 to 8 outputs");
    return ct__checkpoint_apply(fn, inputs, n, outputs, n_outputs, user, NULL);
}

/* Functions [begin, end) of a sequence, applied to one tensor. A
 * checkpointed chunk keeps its own copy of them for backward. */
typedef struct ct__chunk {
    const ct_checkpoint_fn *fns;
    void *const *users;
    int begin, end;
} ct__chunk;

static ct__chunk *ct__chunk_copy(const ct__chunk *c)
{
    int n = c->end - c->begin;
    ct__chunk *k = (ct__chunk *)CT_MALLOC(sizeof *k + (size_t)n * (sizeof(ct_checkpoint_fn) + sizeof(void *)));
    if (!k) return NULL;
    ct_checkpoint_fn *fns = (ct_checkpoint_fn *)(k + 1);
    void **users = (void **)(fns + n);
    for (int i = 0; i < n; i++) {
        fns[i] = c->fns[c->begin + i];
        users[i] = c->users ? c->users[c->begin + i] : NULL;
    }
    k->fns = fns;
    k->users = users;
    k->begin = 0;
    k->end = n;
    return k;
}

static void ct__chunk_free(void *c) { CT_FREE(c); }

static int ct__run_chunk(ct_tensor *const *inputs, int n, ct_tensor **outputs, void *user)
{
    const ct__chunk *c = (const ct__chunk *)user;
    ct_tensor *x = inputs[0];
    (void)n;
    for (int i = c->begin; i < c->end; i++) {
        ct_tensor *y[8];
        int k = c->fns[i](&x, 1, y, c->users ? c->users[i] : NULL);
        if (k < 0) return k;
        if (k != 1) return ct__fail(CT_ERR_RUNTIME, "checkpoint_sequential: function %d gave %d outputs, not 1", i, k);
        x = y[0];
    }
    outputs[0] = x == inputs[0] ? ct_detach(x) : x;
    return outputs[0] ? 1 : ct_last_error_code();
}

ct_tensor *ct_checkpoint_sequential(const ct_checkpoint_fn *fns, void *const *users, int n_fns, int segments,
                                    const ct_tensor *input)
{
    CT__ARG(input, "input", 3);
    if (!fns || n_fns <= 0 || segments <= 0) {
        ct__fail(CT_ERR_VALUE, "checkpoint_sequential: give 1 or more functions and segments");
        return NULL;
    }
    int size = n_fns / segments, end = -1; /* as PyTorch: segments - 1 chunks of size, then the rest */
    ct_tensor *x = (ct_tensor *)input;
    ct_scope s = ct_scope_begin();
    for (int start = 0; x && start < size * (segments - 1); start += size) {
        end = start + size - 1;
        ct__chunk chunk = {fns, users, start, end + 1}, *kept = ct__chunk_copy(&chunk);
        ct_tensor *y = NULL;
        if (!kept) CT__OOM();
        x = kept && ct__checkpoint_apply(ct__run_chunk, &x, 1, &y, 1, kept, ct__chunk_free) == CT_OK ? y : NULL;
    }
    ct__chunk last = {fns, users, end + 1, n_fns};
    ct_tensor *out = NULL;
    if (x && ct__run_chunk(&x, 1, &out, &last) != 1) out = NULL;
    ct_keep(out);
    ct_scope_end(s);
    return out;
}

/* ==================== autograd/gradcheck.c ==================== */
// >>autograd/gradcheck.c
/* gradcheck and gradgradcheck: backward's Jacobians against finite differences. */

#define CT__GC_MAX_OUT 8

ct_gradcheck_opts ct_gradcheck_opts_init(void)
{
    ct_gradcheck_opts o;
    o.eps = 1e-6;
    o.atol = 1e-5;
    o.rtol = 1e-3;
    return o;
}

/* Run fn, checking its outputs; returns how many or -1. */
static int ct__gc_call(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, ct_tensor **out)
{
    int k = fn(inputs, n, out, user);
    if (k < 0 || k > CT__GC_MAX_OUT) {
        if (k >= 0) ct__fail(CT_ERR_VALUE, "gradcheck: the function returned more than %d outputs", CT__GC_MAX_OUT);
        return -1;
    }
    for (int i = 0; i < k; i++) /* made while our scope is open, they belong to it */
        if (!out[i]) {
            ct__fail(CT_ERR_RUNTIME, "gradcheck: output %d is NULL", i);
            return -1;
        }
    return k;
}

/* Element i (row-major) of t: its storage offset. */
static int64_t ct__gc_offset(const ct_tensor *t, int64_t i)
{
    int64_t off = t->offset;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += (i % t->sizes[d]) * t->strides[d];
        i /= t->sizes[d];
    }
    return off;
}

/* The outputs of fn flattened into one float64 vector. (Grad mode stays on:
 * gradgradcheck's function runs a backward inside.) */
static ct_tensor *ct__gc_flat_outputs(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user)
{
    ct_tensor *out[CT__GC_MAX_OUT], *flat[CT__GC_MAX_OUT];
    int k = ct__gc_call(fn, inputs, n, user, out);
    if (k < 0) return NULL;
    for (int i = 0; i < k; i++) flat[i] = ct_reshape(ct_to(out[i], CT_F64), CT_SHAPE(-1));
    /* a copy read as a plain array: an output may be an input itself, which the caller perturbs */
    return ct_clone(ct_contiguous(k == 1 ? flat[0] : ct_cat(flat, k, 0)));
}

/* Numerical Jacobian of all outputs with respect to input `which`: rows are
 * the input's elements, columns the outputs' (central differences). */
static ct_tensor *ct__gc_numerical(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, int which, int64_t n_out,
                                   double eps)
{
    ct_tensor *x = inputs[which];
    int64_t rows = ct_numel(x);
    ct_tensor *jac = ct_zeros(CT_SHAPE(rows, n_out), CT_F64);
    if (!jac) return NULL;
    double *J = (double *)ct__data(jac);
    for (int64_t r = 0; r < rows; r++) {
        char *p = (char *)x->storage->data + (size_t)ct__gc_offset(x, r) * ct__esize(x);
        double orig = ct__read_f64(p, x->dtype);
        ct__write_f64(p, x->dtype, orig - eps);
        ct_tensor *lo = ct__gc_flat_outputs(fn, inputs, n, user);
        ct__write_f64(p, x->dtype, orig + eps);
        ct_tensor *hi = ct__gc_flat_outputs(fn, inputs, n, user);
        ct__write_f64(p, x->dtype, orig);
        if (!lo || !hi) return NULL;
        const double *a = (const double *)ct__data(lo), *b = (const double *)ct__data(hi);
        for (int64_t c = 0; c < n_out; c++) J[r * n_out + c] = (b[c] - a[c]) / (2 * eps);
    }
    return jac;
}

/* Analytical Jacobians: one backward per output element (a one-hot
 * grad_output), its gradients giving a column of every input's Jacobian. */
static ct_result ct__gc_analytical(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, int64_t n_out,
                                   ct_tensor **jacs)
{
    ct_tensor *out[CT__GC_MAX_OUT];
    const ct_tensor *wrt[CT__GC_MAX_OUT * 4];
    int nwrt = 0, idx[CT__GC_MAX_OUT * 4];
    for (int i = 0; i < n && nwrt < CT__GC_MAX_OUT * 4; i++)
        if (ct_requires_grad(inputs[i])) {
            idx[nwrt] = i;
            wrt[nwrt++] = inputs[i];
            jacs[i] = ct_zeros(CT_SHAPE(ct_numel(inputs[i]), n_out), CT_F64);
            if (!jacs[i]) return ct_last_error_code();
        }
    int k = ct__gc_call(fn, inputs, n, user, out);
    if (k < 0) return ct_last_error_code();
    int64_t col = 0;
    for (int o = 0; o < k; o++) {
        if (!ct_requires_grad(out[o])) { /* constant output: its columns stay zero */
            col += ct_numel(out[o]);
            continue;
        }
        for (int64_t e = 0; e < ct_numel(out[o]); e++, col++) {
            ct_scope s = ct_scope_begin();
            ct_tensor *go = ct_zeros(ct_shape_of(out[o]), out[o]->dtype), *g[CT__GC_MAX_OUT * 4]; /* row-major */
            ct__write_f64((char *)ct__data(go) + (size_t)e * ct__esize(go), go->dtype, 1.0);
            ct_grad_opts opts = {true, false, true};
            ct_result r = ct_autograd_grad((const ct_tensor *const *)&out[o], 1, wrt, nwrt, (const ct_tensor *const *)&go, g, opts);
            for (int w = 0; w < nwrt && r == CT_OK; w++) {
                if (!g[w]) continue;
                ct_tensor *gc = ct_contiguous(ct_to(g[w], CT_F64));
                if (!gc) {
                    r = ct_last_error_code();
                    break;
                }
                double *J = (double *)ct__data(jacs[idx[w]]);
                const double *v = (const double *)ct__data(gc);
                for (int64_t row = 0; row < ct_numel(gc); row++) J[row * n_out + col] = v[row];
            }
            ct_scope_end(s);
            if (r != CT_OK) return r;
        }
    }
    return CT_OK;
}

/* The mismatch message: PyTorch's, then the worst element. */
static ct_result ct__gc_mismatch(int input, const ct_tensor *num, const ct_tensor *ana, int64_t worst, int64_t n_out)
{
    int nn = ct_to_string(num, NULL, 0), na = ct_to_string(ana, NULL, 0);
    char *a = (char *)CT_MALLOC((size_t)nn + 1), *b = (char *)CT_MALLOC((size_t)na + 1);
    ct_result r;
    if (!a || !b) {
        r = CT__OOM();
    } else {
        ct_to_string(num, a, (size_t)nn + 1);
        ct_to_string(ana, b, (size_t)na + 1);
        const double *N = (const double *)ct__data(num), *A = (const double *)ct__data(ana);
        r = ct__fail(CT_ERR_RUNTIME,
                     "Jacobian mismatch for output 0 with respect to input %d,\nnumerical:%s\nanalytical:%s\n"
                     "worst element: input element %lld, output element %lld: numerical %.10g, analytical %.10g",
                     input, a, b, (long long)(worst / n_out), (long long)(worst % n_out), N[worst], A[worst]);
    }
    CT_FREE(a);
    CT_FREE(b);
    return r;
}

ct_result ct_gradcheck(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, ct_gradcheck_opts opts)
{
    ct_tensor *jacs[CT__GC_MAX_OUT * 4] = {NULL};
    if (!fn || !inputs || n <= 0 || n > CT__GC_MAX_OUT * 4)
        return ct__fail(CT_ERR_VALUE, "gradcheck: give a function and 1 to %d inputs", CT__GC_MAX_OUT * 4);
    for (int i = 0; i < n; i++)
        if (!inputs[i]) return ct__fail(CT_ERR_TYPE, "gradcheck: input %d is NULL", i);
    for (int i = 0; i < n; i++) CT__ARG_R(inputs[i], "inputs", i + 1);
    ct_scope s = ct_scope_begin();
    ct_tensor *flat = ct__gc_flat_outputs(fn, inputs, n, user);
    ct_result r = flat ? ct__gc_analytical(fn, inputs, n, user, ct_numel(flat), jacs) : ct_last_error_code();
    for (int i = 0; i < n && r == CT_OK; i++) {
        if (!jacs[i]) continue;
        ct_tensor *num = ct__gc_numerical(fn, inputs, n, user, i, ct_numel(flat), opts.eps);
        if (!num) {
            r = ct_last_error_code();
            break;
        }
        const double *N = (const double *)ct__data(num), *A = (const double *)ct__data(jacs[i]);
        int64_t worst = -1;
        double worst_excess = 0;
        for (int64_t e = 0; e < ct_numel(num); e++) {
            double excess = fabs(A[e] - N[e]) - (opts.atol + opts.rtol * fabs(N[e]));
            if (excess > worst_excess || (A[e] != A[e]) != (N[e] != N[e])) {
                worst_excess = excess > worst_excess ? excess : worst_excess;
                worst = e;
            }
        }
        if (worst >= 0) r = ct__gc_mismatch(i, num, jacs[i], worst, ct_numel(flat));
    }
    ct_scope_end(s);
    return r;
}

/* gradgradcheck's function: the gradients of fn's outputs with respect to the
 * original inputs, against grad_outputs given as extra inputs. */
typedef struct ct__gg_ctx {
    ct_gradcheck_fn fn;
    void *user;
    int n_in, n_out;
} ct__gg_ctx;

static int ct__gg_fn(ct_tensor *const *inputs, int n, ct_tensor **out, void *user)
{
    const ct__gg_ctx *c = (const ct__gg_ctx *)user;
    ct_tensor *y[CT__GC_MAX_OUT], *g[CT__GC_MAX_OUT * 4];
    const ct_tensor *wrt[CT__GC_MAX_OUT * 4];
    int nwrt = 0, k = c->fn(inputs, c->n_in, y, c->user);
    (void)n;
    if (k < 0) return k;
    for (int i = 0; i < c->n_in; i++)
        if (ct_requires_grad(inputs[i])) wrt[nwrt++] = inputs[i];
    ct_grad_opts opts = {true, true, true};
    ct_result r = ct_autograd_grad((const ct_tensor *const *)y, k, wrt, nwrt, (const ct_tensor *const *)(inputs + c->n_in),
                                   g, opts);
    if (r != CT_OK) return r;
    int m = 0;
    for (int i = 0; i < nwrt && m < CT__GC_MAX_OUT; i++)
        if (g[i]) out[m++] = g[i];
    return m;
}

ct_result ct_gradgradcheck(ct_gradcheck_fn fn, ct_tensor *const *inputs, int n, void *user, ct_gradcheck_opts opts)
{
    ct_tensor *all[CT__GC_MAX_OUT * 4], *y[CT__GC_MAX_OUT];
    if (!fn || !inputs || n <= 0 || n > CT__GC_MAX_OUT * 3)
        return ct__fail(CT_ERR_VALUE, "gradgradcheck: give a function and 1 to %d inputs", CT__GC_MAX_OUT * 3);
    for (int i = 0; i < n; i++)
        if (!inputs[i]) return ct__fail(CT_ERR_TYPE, "gradcheck: input %d is NULL", i);
    ct_scope s = ct_scope_begin();
    int k = ct__gc_call(fn, inputs, n, user, y);
    ct_result r = k < 0 ? ct_last_error_code() : CT_OK;
    ct_generator *gen = ct_generator_new(); /* the same random grad_outputs every run */
    for (int i = 0; i < n; i++) all[i] = inputs[i];
    for (int i = 0; i < k && r == CT_OK; i++) {
        all[n + i] = ct_to(ct_randn(ct_shape_of(y[i]), CT_F64, gen), y[i]->dtype);
        if (!all[n + i] || ct_requires_grad_(all[n + i], true) != CT_OK) r = ct_last_error_code();
    }
    ct_generator_free(gen);
    ct__gg_ctx c = {fn, user, n, k};
    if (r == CT_OK) r = ct_gradcheck(ct__gg_fn, all, n + k, &c, opts);
    ct_scope_end(s);
    return r;
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

static const char *ct__kernel_name(ct__op op, const ct__op_args *args)
{
    return args->kernel ? args->kernel : ct__ops[op].kernel;
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
                         ct__type_meta_name(in[0]->dtype), exact_names[i], ct__type_meta_name(in[i]->dtype));
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
static ct_result ct__check_inplace(ct__op op, const ct_tensor *self, const ct_tensor *const *in, int n,
                                   const int64_t *shape, int ndim, ct_dtype result, const ct__op_args *args)
{
    char b1[256], b2[256];
    if (ndim != self->ndim || memcmp(shape, self->sizes, (size_t)ndim * sizeof(int64_t)))
        return ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        ct__shape_str(self->sizes, self->ndim, b1, sizeof b1), ct__shape_str(shape, ndim, b2, sizeof b2));
    if (!ct_can_cast(result, self->dtype) && op == CT__OP_pow && in[1]->wrapped_number) /* pow_(number)'s own check */
        return ct__fail(CT_ERR_RUNTIME, "Found dtype %s but expected %s", ct__dtype_title(self->dtype),
                        ct__dtype_title(result));
    if (!ct_can_cast(result, self->dtype))
        return ct__fail(CT_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                        ct__dtype_title(result),
                        args->scalar_clamp ? ct__type_meta_name(self->dtype) : ct__dtype_title(self->dtype));
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
    ct_result r;
    /* autograd refuses a differentiable write to a leaf first, as PyTorch's VariableType does */
    if (*out && ct__pointwise_differentiable(op, in, args) && (r = ct__check_inplace_grad(*out)) != CT_OK) return r;
    ct_dtype common = ct__pointwise_common(op, in), compute, result;
    if (common == CT_DEFAULT) return ct_last_error_code();
    if ((r = ct__pointwise_refusals(op, in, common, args)) != CT_OK) return r;
    ct__pointwise_dtypes(op, common, args, &compute, &result);
    if ((r = ct__pointwise_shape(in, n, shape, &ndim)) != CT_OK) return r;
    if (*out && (r = ct__check_inplace(op, *out, in, n, shape, ndim, result, args)) != CT_OK) return r;
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
    ct_tensor *self_before = *out ? ct__pointwise_self_before(op, in, n) : NULL;
    bool inplace = *out != NULL;
    r = ct__pointwise_run(op, out, in, shape, ndim, compute, result, &kargs);
    if (r == CT_OK) {
        if (inplace) (*out)->storage->version++;
        ct__pointwise_record(op, *out, in, n, args, self_before);
    }
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

/* The options of a call that runs on another op's kernel (its autograd node
 * is its own). */
static ct__op_args ct__derived_args(ct__op derived)
{
    ct__op_args a = ct__args();
    a.derived = derived;
    return a;
}

/* derived: a call that is its kernel's own op */
#define CT__NOT_DERIVED ((ct__op)0)

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
static ct_result ct__div_mode(ct_tensor **out, const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode,
                              ct__op derived)
{
    static const char *const kernels[3] = {NULL, "div_trunc_cpu", "div_floor_cpu"};
    const ct_tensor *in[3] = {a, b, NULL};
    if ((unsigned)mode > CT_ROUNDING_FLOOR)
        return ct__fail(CT_ERR_RUNTIME, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found %d",
                        (int)mode);
    ct__op_args args = ct__derived_args(derived);
    args.mode = (int)mode;
    args.kernel = kernels[mode];
    return ct__pointwise(CT__OP_div, out, in, &args);
}

ct_tensor *ct_div_mode(const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode)
{
    ct_tensor *out = NULL;
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    return ct__div_mode(&out, a, b, mode, CT__NOT_DERIVED) == CT_OK ? out : NULL;
}

ct_tensor *ct_div_mode_scalar(const ct_tensor *a, ct_scalar b, ct_rounding_mode mode)
{
    ct_tensor *out = NULL;
    ct__stack_scalar ss;
    CT__ARG(a, "input", 1);
    return ct__div_mode(&out, a, ct__stack_scalar_init(&ss, b), mode, CT__NOT_DERIVED) == CT_OK ? out : NULL;
}

ct_result ct_div_mode_(ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    return ct__div_mode(&a, a, b, mode, CT__NOT_DERIVED);
}

ct_result ct_div_mode_scalar_(ct_tensor *a, ct_scalar b, ct_rounding_mode mode)
{
    ct__stack_scalar ss;
    CT__ARG_R(a, "input", 1);
    return ct__div_mode(&a, a, ct__stack_scalar_init(&ss, b), mode, CT__NOT_DERIVED);
}

ct_tensor *ct_floor_divide(const ct_tensor *a, const ct_tensor *b)
{
    ct_tensor *out = NULL;
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    return ct__div_mode(&out, a, b, CT_ROUNDING_FLOOR, CT__OP_floor_divide) == CT_OK ? out : NULL;
}

ct_tensor *ct_floor_divide_scalar(const ct_tensor *a, ct_scalar b)
{
    ct_tensor *out = NULL;
    ct__stack_scalar ss;
    CT__ARG(a, "input", 1);
    const ct_tensor *number = ct__stack_scalar_init(&ss, b);
    return ct__div_mode(&out, a, number, CT_ROUNDING_FLOOR, CT__OP_floor_divide) == CT_OK ? out : NULL;
}

ct_result ct_floor_divide_(ct_tensor *a, const ct_tensor *b)
{
    CT__ARG_R(a, "input", 1);
    CT__ARG_R(b, "other", 2);
    return ct__div_mode(&a, a, b, CT_ROUNDING_FLOOR, CT__OP_floor_divide);
}

ct_result ct_floor_divide_scalar_(ct_tensor *a, ct_scalar b)
{
    ct__stack_scalar ss;
    CT__ARG_R(a, "input", 1);
    return ct__div_mode(&a, a, ct__stack_scalar_init(&ss, b), CT_ROUNDING_FLOOR, CT__OP_floor_divide);
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
static ct_result ct__clamp_numbers(ct_tensor **out, const ct_tensor *t, const ct_scalar *min, const ct_scalar *max,
                                   ct__op derived)
{
    ct__stack_scalar s1, s2;
    const ct_tensor *in[3] = {t, min ? ct__stack_scalar_init(&s1, *min) : NULL, max ? ct__stack_scalar_init(&s2, *max) : NULL};
    ct__op_args args = ct__derived_args(derived);
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
    return ct__clamp_numbers(&out, t, &min, &max, CT__NOT_DERIVED) == CT_OK ? out : NULL;
}

ct_result ct_clamp_scalar_(ct_tensor *t, ct_scalar min, ct_scalar max)
{
    CT__ARG_R(t, "input", 1);
    return ct__clamp_numbers(&t, t, &min, &max, CT__NOT_DERIVED);
}

ct_tensor *ct_clamp_min(const ct_tensor *t, const ct_tensor *min)
{
    CT__ARG(t, "input", 1);
    CT__ARG(min, "min", 2);
    ct__op_args args = ct__derived_args(CT__OP_clamp_min);
    return ct__new(CT__OP_maximum, t, min, NULL, &args);
}

ct_result ct_clamp_min_(ct_tensor *t, const ct_tensor *min)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(min, "min", 2);
    ct__op_args args = ct__derived_args(CT__OP_clamp_min);
    return ct__inplace(CT__OP_maximum, t, min, NULL, &args);
}

ct_tensor *ct_clamp_min_scalar(const ct_tensor *t, ct_scalar min)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__clamp_numbers(&out, t, &min, NULL, CT__NOT_DERIVED) == CT_OK ? out : NULL;
}

ct_result ct_clamp_min_scalar_(ct_tensor *t, ct_scalar min)
{
    CT__ARG_R(t, "input", 1);
    return ct__clamp_numbers(&t, t, &min, NULL, CT__NOT_DERIVED);
}

ct_tensor *ct_clamp_max(const ct_tensor *t, const ct_tensor *max)
{
    CT__ARG(t, "input", 1);
    CT__ARG(max, "max", 2);
    ct__op_args args = ct__derived_args(CT__OP_clamp_max);
    return ct__new(CT__OP_minimum, t, max, NULL, &args);
}

ct_result ct_clamp_max_(ct_tensor *t, const ct_tensor *max)
{
    CT__ARG_R(t, "input", 1);
    CT__ARG_R(max, "max", 2);
    ct__op_args args = ct__derived_args(CT__OP_clamp_max);
    return ct__inplace(CT__OP_minimum, t, max, NULL, &args);
}

ct_tensor *ct_clamp_max_scalar(const ct_tensor *t, ct_scalar max)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 1);
    return ct__clamp_numbers(&out, t, NULL, &max, CT__NOT_DERIVED) == CT_OK ? out : NULL;
}

ct_result ct_clamp_max_scalar_(ct_tensor *t, ct_scalar max)
{
    CT__ARG_R(t, "input", 1);
    return ct__clamp_numbers(&t, t, NULL, &max, CT__NOT_DERIVED);
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
    return ct__clamp_numbers(out, t, &lo, &hi, CT__OP_hardtanh);
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

/* polygamma's n reaches the kernel as an int, as PyTorch's calc_polygamma takes it */
static ct_result ct__polygamma(ct_tensor **out, const ct_tensor *t, int64_t n)
{
    ct__op_args a = ct__args();
    if (n < 0) return ct__fail(CT_ERR_RUNTIME, "polygamma(n, x) does not support negative n.");
    a.mode = (int)n;
    return ct__unary_params(CT__OP_polygamma, out, t, a);
}

ct_tensor *ct_polygamma(int64_t n, const ct_tensor *t)
{
    ct_tensor *out = NULL;
    CT__ARG(t, "input", 2);
    return ct__polygamma(&out, t, n) == CT_OK ? out : NULL;
}

ct_result ct_polygamma_(ct_tensor *t, int64_t n)
{
    CT__ARG_R(t, "input", 1);
    return ct__polygamma(&t, t, n);
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
    ct__op_args a = ct__elu_args(alpha, 1.0, 1.0 / alpha);
    a.derived = CT__OP_celu;
    return ct__unary_params(CT__OP_elu, out, t, a);
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

static ct_tensor *ct__sum(const ct_tensor *t, uint32_t mask, bool keepdim, ct_dtype dtype, bool nan)
{
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

/* PyTorch's CPU mean: the sum in the result dtype, divided by the count. */
static ct_tensor *ct__mean(const ct_tensor *t, uint32_t mask, bool keepdim, ct_dtype dtype)
{
    int64_t count = 1;
    for (int d = 0; d < t->ndim; d++)
        if ((mask >> d) & 1) count *= t->sizes[d];
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct__sum(t, mask, keepdim, dtype == CT_DEFAULT ? t->dtype : dtype, false);
    if (r) { /* PyTorch divides by the count as an element of the result's dtype: 70000 is inf in float16 */
        uint64_t elem = 0;
        ct__write_i64(&elem, r->dtype, count);
        if (ct_div_scalar_(r, ct_float(ct__read_f64(&elem, r->dtype))) != CT_OK) r = NULL;
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* mean's dtype is checked before its dims, as PyTorch does. */
static ct_result ct__mean_dtype_check(const ct_tensor *t, ct_dtype dtype)
{
    ct_dtype dt = dtype == CT_DEFAULT ? t->dtype : dtype;
    if (ct__check_dtype(dtype) != CT_OK) return ct_last_error_code();
    if (ct_dtype_is_floating(dt)) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME,
                    "mean(): could not infer output dtype. %s dtype must be either a floating point or complex dtype. "
                    "Got: %s",
                    dtype == CT_DEFAULT ? "Input" : "Optional", ct__dtype_title(dt));
}

typedef ct_tensor *(*ct__reduce_fn)(const ct_tensor *t, uint32_t mask, bool keepdim, ct_dtype dtype);
static ct_tensor *ct__sum_plain(const ct_tensor *t, uint32_t mask, bool keepdim, ct_dtype dtype)
{
    return ct__sum(t, mask, keepdim, dtype, false);
}
static ct_tensor *ct__nansum(const ct_tensor *t, uint32_t mask, bool keepdim, ct_dtype dtype)
{
    return ct__sum(t, mask, keepdim, dtype, true);
}

/* A differentiable reduction: computed without recording, then one node.
 * all: the form without dims (which reduces every dim, as empty dims do). */
static ct_tensor *ct__reduce_recorded(ct__reduce_fn fn, ct__reduce_grad kind, const ct_tensor *t, ct_shape dims,
                                      bool keepdim, ct_dtype dtype, bool all)
{
    uint32_t mask;
    ct_tensor *r;
    if (ct__check_dtype(dtype) != CT_OK || ct__dims_mask(t, dims, &mask) != CT_OK) return NULL;
    CT__UNRECORDED(r, fn(t, mask, keepdim, dtype));
    ct__reduce_rec rec = ct__reduce_rec_of(mask, keepdim);
    rec.alt = !all;
    ct__record_reduce(kind, &r, 1, t, &rec);
    return r;
}

ct_tensor *ct_sum(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__reduce_recorded(ct__sum_plain, CT__RG_SUM, input, CT_SHAPE0, false, CT_DEFAULT, true);
}

ct_tensor *ct_sum_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype)
{
    CT__ARG(input, "input", 1);
    return ct__reduce_recorded(ct__sum_plain, CT__RG_SUM, input, dims, keepdim, dtype, false);
}

ct_tensor *ct_nansum(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__reduce_recorded(ct__nansum, CT__RG_NANSUM, input, CT_SHAPE0, false, CT_DEFAULT, true);
}

ct_tensor *ct_nansum_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype)
{
    CT__ARG(input, "input", 1);
    return ct__reduce_recorded(ct__nansum, CT__RG_NANSUM, input, dims, keepdim, dtype, false);
}

ct_tensor *ct_mean_dim(const ct_tensor *input, ct_shape dims, bool keepdim, ct_dtype dtype)
{
    CT__ARG(input, "input", 1);
    if (ct__mean_dtype_check(input, dtype) != CT_OK) return NULL;
    return ct__reduce_recorded(ct__mean, CT__RG_MEAN, input, dims, keepdim, dtype, false);
}

ct_tensor *ct_mean(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    if (ct__mean_dtype_check(input, CT_DEFAULT) != CT_OK) return NULL;
    return ct__reduce_recorded(ct__mean, CT__RG_MEAN, input, CT_SHAPE0, false, CT_DEFAULT, true);
}

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
    return ct__reduce_recorded(ct__prod, CT__RG_PROD, input, CT_SHAPE0, false, CT_DEFAULT, true);
}

ct_tensor *ct_prod_dim(const ct_tensor *input, int dim, bool keepdim, ct_dtype dtype)
{
    int d;
    CT__ARG(input, "input", 1);
    if (ct__dim_mask1(input, dim, &d) < 0) return NULL;
    return ct__reduce_recorded(ct__prod, CT__RG_PROD, input, CT_DIMS(d), keepdim, dtype, false);
}

/* ---------------------------------------------------------------- extremes */

/* Record r = kind(t) over the dims in mask, and hand r back. */
static ct_tensor *ct__record_result(ct__reduce_grad kind, ct_tensor *r, const ct_tensor *t, uint32_t mask, bool keepdim)
{
    ct__reduce_rec rec = ct__reduce_rec_of(mask, keepdim);
    ct__record_reduce(kind, &r, 1, t, &rec);
    return r;
}

/* A values-and-indices op along dim whose values are differentiable: the
 * node follows the indices, so they are made even when not wanted. */
static ct_result ct__along_recorded(ct__reduce_grad kind, ct__aop op, const char *name, const ct_tensor *t, int dim,
                                    bool keepdim, bool half_via_float, ct_tensor **values, ct_tensor **indices)
{
    ct_tensor *v = NULL, *i = NULL;
    ct_result r;
    CT__UNRECORDED(r, ct__along_reduce(op, name, t, dim, keepdim, half_via_float, &v, &i));
    if (r == CT_OK) {
        ct__reduce_rec rec = ct__reduce_rec_of(0, keepdim);
        rec.dim = ct__wrap_dim(dim, t->ndim);
        rec.indices = i;
        ct__record_reduce(kind, &v, 1, t, &rec);
    }
    return ct__hand_pair(r, v, i, values, indices);
}

static ct_tensor *ct__amax(const char *name, ct__rop op, ct__reduce_grad kind, const ct_tensor *t, ct_shape dims,
                           bool keepdim)
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
    return ct__record_result(kind, ct__reduce(op, t, mask, keepdim, t->dtype, NULL), t, mask, keepdim);
}

ct_tensor *ct_max(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__amax("max", CT__ROP_MAX, CT__RG_MAX, input, CT_SHAPE0, false);
}

ct_tensor *ct_min(const ct_tensor *input)
{
    CT__ARG(input, "input", 1);
    return ct__amax("min", CT__ROP_MIN, CT__RG_MIN, input, CT_SHAPE0, false);
}

ct_tensor *ct_amax(const ct_tensor *input, ct_shape dims, bool keepdim)
{
    CT__ARG(input, "input", 1);
    return ct__amax("amax", CT__ROP_MAX, CT__RG_AMAX, input, dims, keepdim);
}

ct_tensor *ct_amin(const ct_tensor *input, ct_shape dims, bool keepdim)
{
    CT__ARG(input, "input", 1);
    return ct__amax("amin", CT__ROP_MIN, CT__RG_AMIN, input, dims, keepdim);
}

ct_result ct_max_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    return ct__along_recorded(CT__RG_MAX_DIM, CT__AOP_MAX, "max", input, dim, keepdim, false, values, indices);
}

ct_result ct_min_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    return ct__along_recorded(CT__RG_MIN_DIM, CT__AOP_MIN, "min", input, dim, keepdim, false, values, indices);
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

static ct_result ct__var_compute(const char *fname, bool take_sqrt, bool with_mean, const ct_tensor *t, ct_shape dims,
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

/* std, var, std_mean and var_mean: computed without recording (the
 * two-pass path takes a mean), then one node for both results. */
static ct_result ct__var(const char *fname, bool take_sqrt, bool with_mean, const ct_tensor *t, ct_shape dims,
                         int64_t correction, bool keepdim, ct_tensor **out, ct_tensor **mean)
{
    static const ct__reduce_grad kinds[2][2] = {{CT__RG_VAR, CT__RG_VAR_MEAN}, {CT__RG_STD, CT__RG_STD_MEAN}};
    ct_tensor *res[2] = {NULL, NULL};
    uint32_t mask = 0;
    ct_result r;
    CT__UNRECORDED(r, ct__var_compute(fname, take_sqrt, with_mean, t, dims, correction, keepdim, &res[0],
                                      with_mean ? &res[1] : NULL));
    if (r == CT_OK && ct__dims_mask(t, dims, &mask) == CT_OK) {
        ct__reduce_rec rec = ct__reduce_rec_of(mask, keepdim);
        rec.alt = dims.ndim > 0;
        rec.correction = correction;
        ct__record_reduce(kinds[take_sqrt][with_mean], res, with_mean ? 2 : 1, t, &rec);
    }
    return ct__hand_pair(r, res[0], res[1], out, mean);
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

static ct_tensor *ct__median_flat(const ct_tensor *t)
{
    ct_tensor *v = NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *flat = ct_reshape(t, CT_SHAPE(-1));
    if (flat && ct__along_reduce(CT__AOP_MEDIAN, "median", flat, 0, false, true, &v, NULL) == CT_OK) ct_keep(v);
    ct_scope_end(s);
    return v;
}

ct_tensor *ct_median(const ct_tensor *input)
{
    ct_tensor *v = NULL;
    CT__ARG(input, "input", 1);
    if (input->dtype == CT_BOOL) {
        ct__no_kernel("median_cpu", input->dtype);
        return NULL;
    }
    if (ct_numel(input) == 0) v = ct__scalar_result(NAN, input->dtype);
    else CT__UNRECORDED(v, ct__median_flat(input));
    return ct__record_result(CT__RG_MEDIAN, v, input, (uint32_t)((1u << input->ndim) - 1), false);
}

ct_result ct_median_dim(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    if (input->dtype == CT_BOOL) return ct__no_kernel("median_out", input->dtype);
    return ct__along_recorded(CT__RG_MEDIAN_DIM, CT__AOP_MEDIAN, "median", input, dim, keepdim, true, values, indices);
}

ct_result ct_mode(const ct_tensor *input, int dim, bool keepdim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    return ct__along_recorded(CT__RG_MODE, CT__AOP_MODE, "mode", input, dim, keepdim, false, values, indices);
}

/* ---------------------------------------------------------------- norms */

static ct_tensor *ct__norm(const ct_tensor *t, uint32_t mask, bool keepdim, ct_dtype dtype, const ct__rargs *args)
{
    ct_scope s = ct_scope_begin();
    const ct_tensor *in = ct_to(t, dtype);
    ct_tensor *r = in ? ct__reduce(CT__ROP_NORM, in, mask, keepdim, in->dtype, args) : NULL;
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

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
    ct_tensor *r;
    CT__UNRECORDED(r, ct__norm(input, mask, keepdim, dtype, &args));
    ct__reduce_rec rec = ct__reduce_rec_of(mask, keepdim);
    rec.alt = dtype != CT_DEFAULT;
    rec.p = p;
    ct__record_reduce(CT__RG_NORM, &r, 1, input, &rec);
    return r;
}

ct_tensor *ct_norm(const ct_tensor *input, double p)
{
    CT__ARG(input, "input", 1);
    return ct_norm_dim(input, p, CT_SHAPE0, false, CT_DEFAULT);
}

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

static ct_tensor *ct__logsumexp(const ct_tensor *input, ct_shape dims, bool keepdim)
{
    int64_t ones[CT_MAX_DIMS];
    char b1[16], b2[256];
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

ct_tensor *ct_logsumexp(const ct_tensor *input, ct_shape dims, bool keepdim)
{
    uint32_t mask;
    ct_tensor *r;
    CT__ARG(input, "input", 1);
    if (ct__dims_mask(input, dims, &mask) != CT_OK) return NULL;
    CT__UNRECORDED(r, ct__logsumexp(input, dims, keepdim));
    return ct__record_result(CT__RG_LOGSUMEXP, r, input, mask, keepdim);
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

/* Record r = kind(t) along dim (any dim of a 0-d input), and hand r back. */
static ct_tensor *ct__dim_recorded(ct__reduce_grad kind, ct_tensor *r, const ct_tensor *t, int dim,
                                   const ct_tensor *indices, const ct_tensor *self_before)
{
    if (!r) return NULL;
    ct__reduce_rec rec = ct__reduce_rec_of(0, true);
    rec.dim = t->ndim ? ct__wrap_dim(dim, t->ndim) : 0;
    rec.indices = indices;
    rec.self_before = self_before;
    ct__record_reduce(kind, &r, 1, t, &rec);
    return r;
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
    ct_tensor *r;
    CT__ARG(input, "input", 1);
    CT__UNRECORDED(r, ct__cum(CT__AOP_CUMSUM, input, dim, dtype));
    return ct__dim_recorded(CT__RG_CUMSUM, r, input, dim, NULL, NULL);
}

ct_tensor *ct_cumprod(const ct_tensor *input, int dim, ct_dtype dtype)
{
    ct_tensor *r;
    CT__ARG(input, "input", 1);
    CT__UNRECORDED(r, ct__cum(CT__AOP_CUMPROD, input, dim, dtype));
    return ct__dim_recorded(CT__RG_CUMPROD, r, input, dim, NULL, NULL);
}

static ct_result ct__cum_(ct__aop op, ct_tensor *self, int dim, ct_dtype dtype)
{
    if (ct__check_dtype(dtype) != CT_OK || ct__check_inplace_grad(self) != CT_OK) return ct_last_error_code();
    if (dtype != CT_DEFAULT && dtype != self->dtype)
        return ct__fail(CT_ERR_RUNTIME, "Bad in-place call: input tensor dtype %s and output tensor dtype %s should match",
                        ct__typemeta_name(self->dtype), ct__typemeta_name(dtype));
    ct_result r = ct__check_write(self, NULL);
    if (r != CT_OK) return r;
    ct_scope s = ct_scope_begin();
    bool keep_self = op == CT__AOP_CUMPROD && ct__requires_grad(self) && ct__grad_mode(); /* its formula reads self */
    /* self before the write, as a recorded clone (PyTorch's original_self): double backward goes through it */
    ct_tensor *c, *before = keep_self ? ct_clone(self) : NULL;
    CT__UNRECORDED(c, ct__cum(op, self, dim, self->dtype));
    if (c && (before || !keep_self)) {
        ct__copy_unchecked(self, c);
        self->storage->version++;
        ct__dim_recorded(op == CT__AOP_CUMSUM ? CT__RG_CUMSUM : CT__RG_CUMPROD, self, self, dim, NULL, before);
    }
    r = c && (before || !keep_self) ? CT_OK : ct_last_error_code();
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

/* cummax and cummin; the gradient follows the indices, made even when not wanted. */
static ct_result ct__cumext(ct__aop op, const ct_tensor *t, int dim, ct_tensor **values, ct_tensor **indices)
{
    ct_tensor *v = NULL, *i = NULL;
    int d = t->ndim ? dim : 0; /* 0-d: any dim */
    ct_result r;
    CT__UNRECORDED(r, ct__scan_dim(op, t, d, true, &v, &i));
    if (r == CT_OK) ct__dim_recorded(op == CT__AOP_CUMMAX ? CT__RG_CUMMAX : CT__RG_CUMMIN, v, t, d, i, NULL);
    return ct__hand_pair(r, v, i, values, indices);
}

ct_result ct_cummax(const ct_tensor *input, int dim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    return ct__cumext(CT__AOP_CUMMAX, input, dim, values, indices);
}

ct_result ct_cummin(const ct_tensor *input, int dim, ct_tensor **values, ct_tensor **indices)
{
    ct__clear_pair(values, indices);
    CT__ARG_R(input, "input", 1);
    return ct__cumext(CT__AOP_CUMMIN, input, dim, values, indices);
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
    ct_result res;
    CT__UNRECORDED(res, ct__scan_dim(CT__AOP_LOGCUMSUMEXP, input, dim, false, &r, NULL));
    (void)res; /* r is NULL on failure */
    return ct__dim_recorded(CT__RG_LOGCUMSUMEXP, r, input, dim, NULL, NULL);
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
    ct_tensor *r;
    CT__ARG(input, "input", 1);
    CT__UNRECORDED(r, ct__softmax(false, input, dim, dtype));
    return ct__dim_recorded(CT__RG_SOFTMAX, r, input, dim, NULL, NULL);
}

ct_tensor *ct_log_softmax(const ct_tensor *input, int dim, ct_dtype dtype)
{
    ct_tensor *r;
    CT__ARG(input, "input", 1);
    CT__UNRECORDED(r, ct__softmax(true, input, dim, dtype));
    return ct__dim_recorded(CT__RG_LOG_SOFTMAX, r, input, dim, NULL, NULL);
}

/* ---------------------------------------------------------------- normalize */

/* Made of ops that autograd records one by one, as PyTorch's Python
 * function is, so that its gradient needs no formula of its own. The norm
 * is expanded before dividing, as PyTorch does, which gives the quotient
 * the layout PyTorch's has. */
ct_tensor *ct_normalize(const ct_tensor *input, double p, int dim, double eps)
{
    CT__ARG(input, "input", 1);
    ct_scope s = ct_scope_begin();
    ct_tensor *norm = ct_norm_dim(input, p, CT_DIMS(dim), true, CT_DEFAULT);
    ct_tensor *r = ct_keep(ct_div(input, ct_expand_as(ct_clamp_min_scalar(norm, ct_float(eps)), input)));
    ct_scope_end(s);
    return r;
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
/* Joining, splitting and index-based ops: the shape, dtype and error rules of
 * PyTorch 1.13 (checked in its order, so the first error is PyTorch's), with
 * data moved by the backend's copy and index kernels. Views made only to
 * describe operands to a kernel live on the stack (ct__ix_subview): no
 * allocation, no refcount. Indices are checked before anything is written. */

/* ---------------------------------------------------------------- helpers */

static const ct__backend *ct__be(const ct_tensor *t) { return ct__backend_for(t->storage->device.type); }

/* PyTorch's ensure_nonempty_size: a 0-d tensor counts as one element along dim 0. */
static int64_t ct__ne_size(const ct_tensor *t, int d) { return t->ndim ? t->sizes[d] : 1; }

/* t seen with at least one dim (a 0-d tensor as size 1), as the kernels want it. */
static void ct__view_1d(ct_tensor *v, const ct_tensor *t)
{
    static const int64_t one = 1;
    if (t->ndim) ct__ix_subview(v, t, t->offset, t->sizes, t->strides, t->ndim);
    else ct__ix_subview(v, t, t->offset, &one, &one, 1);
}

/* t seen with the shape it broadcasts to (zero strides where it has size 1 or no dim). */
static void ct__broadcast_view(ct_tensor *v, const ct_tensor *t, const int64_t *sizes, int ndim)
{
    int64_t strides[CT_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        int td = d - (ndim - t->ndim);
        strides[d] = td < 0 || (t->sizes[td] == 1 && sizes[d] != 1) ? 0 : t->strides[td];
    }
    ct__ix_subview(v, t, t->offset, sizes, strides, ndim);
}

/* A 1-D or 0-d index seen as a tensor of `sizes` that varies only along d. */
static void ct__index_along(ct_tensor *v, const ct_tensor *index, const int64_t *sizes, int ndim, int d)
{
    int64_t strides[CT_MAX_DIMS] = {0};
    strides[d] = index->ndim ? index->strides[0] : 0;
    ct__ix_subview(v, index, index->offset, sizes, strides, ndim);
}

/* A kernel job of kind along dim, the rest zero. */
static ct__index_job ct__job(ct__index_kind kind, int dim)
{
    ct__index_job job;
    memset(&job, 0, sizeof job);
    job.kind = kind;
    job.dim = dim;
    return job;
}

/* Scan an index (or mask) through the backend: min, max, sum, nonzero count
 * and the first value (row-major) outside [lo, hi). */
static ct__index_job ct__index_stats(const ct_tensor *index, int64_t lo, int64_t hi)
{
    ct__index_job job = ct__job(CT__INDEX_STATS, 0);
    job.index = index;
    job.lo = lo;
    job.hi = hi;
    ct__be(index)->index(&job);
    return job;
}

/* Run a gather or scatter job (kind, dim and options set) on dst, src (NULL:
 * the element at value, broadcast) and index, 0-d ones seen as size 1.
 * False when an index was out of range: the kernel stopped, dst is partly
 * written. */
static bool ct__run_index(ct__index_job *job, ct_tensor *dst, const ct_tensor *src, const void *value,
                          const ct_tensor *index)
{
    ct_tensor dv, sv, iv;
    ct__stack_scalar ss;
    ct__view_1d(&dv, dst);
    ct__view_1d(&iv, index);
    if (src) {
        ct__view_1d(&sv, src);
    } else {
        static const int64_t zeros[CT_MAX_DIMS] = {0};
        ct__stack_scalar_init(&ss, ct_int(0));
        ss.t.dtype = dst->dtype;
        memcpy(&ss.value, value, ct__esize(dst));
        ct__ix_subview(&sv, &ss.t, 0, iv.sizes, zeros, iv.ndim);
    }
    job->dst = &dv;
    job->src = &sv;
    job->index = &iv;
    job->serial = ct__has_internal_overlap(dst);
    ct__be(dst)->index(job);
    return !job->out_of_range;
}

/* An int64 copy of an int32 index (the kernels read int64); the index itself otherwise. */
static const ct_tensor *ct__index_i64(const ct_tensor *index)
{
    return index->dtype == CT_I64 ? index : ct_to(index, CT_I64);
}

/* PyTorch's assert_no_internal_overlap(out) and assert_no_overlap(out, input) for each input. */
static ct_result ct__check_no_overlap(const ct_tensor *out, const ct_tensor *a, const ct_tensor *b)
{
    const ct_tensor *in[2] = {a, b};
    if (ct__has_internal_overlap(out)) return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_internal_overlap);
    for (int i = 0; i < 2; i++) {
        ct__overlap lap = in[i] ? ct__overlap_of(out, in[i]) : CT__OVERLAP_NO;
        if (lap == CT__OVERLAP_PARTIAL || lap == CT__OVERLAP_FULL)
            return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_partial_overlap);
    }
    return CT_OK;
}

/* A new contiguous tensor with t's values: what PyTorch's out-of-place
 * scatter, index_add and index_copy start from. */
static ct_tensor *ct__fresh_copy(const ct_tensor *t)
{
    ct_tensor *r = ct__alloc(t->sizes, t->ndim, t->dtype, t->storage->device);
    if (r) ct__copy_unchecked(r, t);
    return r;
}

/* An uninitialised tensor laid out like t, as PyTorch's empty_like with
 * preserve_format: t's strides when dense, else dense strides in t's order. */
static ct_tensor *ct__empty_preserve(const ct_tensor *t)
{
    int64_t strides[CT_MAX_DIMS];
    if (ct__is_dense(t)) return ct__empty_like(t, t->dtype);
    ct__dense_strides_for(&t, 1, t->sizes, t->ndim, strides);
    return ct__alloc_strided(t->sizes, strides, t->ndim, t->dtype, t->storage->device);
}

/* clone(memory_format=preserve) */
static ct_tensor *ct__clone_preserve(const ct_tensor *t)
{
    ct_tensor *r = ct__empty_preserve(t);
    if (r) ct__copy_unchecked(r, t);
    return r;
}

/* A 0-d tensor's value as the Python number .item() gives. */
static ct_scalar ct__item_scalar(const ct_tensor *t)
{
    if (ct_dtype_is_floating(t->dtype)) return ct_float(ct_item(t));
    return t->dtype == CT_BOOL ? ct_bool(ct_item_int(t) != 0) : ct_int(ct_item_int(t));
}

/* The first tensor of a list that is NULL, reported as Python reports None
 * in a list (a failure earlier in the chain keeps its own error). */
static ct_result ct__check_list(ct_tensor *const *ts, int n, const char *fn)
{
    if (n > 0 && !ts)
        return ct__fail(CT_ERR_TYPE, "%s(): argument 'tensors' (position 1) must be tuple of Tensors, not NULL", fn);
    for (int i = 0; i < n; i++)
        if (!ts[i])
            return ct_last_error_code() != CT_OK
                       ? ct_last_error_code()
                       : ct__fail(CT_ERR_TYPE, "expected Tensor as element %d in argument 0, but got NULL", i);
    return CT_OK;
}

/* ---------------------------------------------------------------- cat */

static bool ct__cat_skipped(const ct_tensor *t) { return t->ndim == 1 && t->sizes[0] == 0; }

/* The dims of a 4-D (5-D) tensor from fastest to slowest in channels-last
 * (channels-last-3d) order; NULL for other ranks. */
static const int *ct__channels_last_order(int ndim)
{
    static const int order4[4] = {1, 3, 2, 0}, order5[5] = {1, 4, 3, 2, 0};
    return ndim == 4 ? order4 : ndim == 5 ? order5 : NULL;
}

/* PyTorch's suggest_memory_format: whether t's strides say channels-last
 * (ambiguous cases, such as size-1 or zero-stride channels, say contiguous). */
static bool ct__is_channels_last(const ct_tensor *t)
{
    const int *order = ct__channels_last_order(t->ndim);
    int64_t min = 0;
    if (!order || t->strides[1] == 0) return false;
    for (int k = 0; k < t->ndim; k++) {
        int d = order[k];
        if (t->sizes[d] == 0 || t->strides[d] < min || (d == 0 && min == t->strides[1])) return false;
        min = t->strides[d] * (t->sizes[d] > 1 ? t->sizes[d] : 1);
    }
    return true;
}

/* cat's output strides: channels-last when every input is channels-last of
 * one rank; contiguous (false) otherwise. */
static bool ct__cat_strides(ct_tensor *const *ts, int n, const int64_t *sizes, int ndim, int64_t *strides)
{
    const int *order = ct__channels_last_order(ndim);
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim != ndim || !ct__is_channels_last(ts[i])) return false;
    int64_t s = 1;
    for (int k = 0; order && k < ndim; k++) {
        strides[order[k]] = s;
        s *= sizes[order[k]];
    }
    return order != NULL;
}

/* The shape of cat's result, checked as cat_meta checks it; *dim wrapped. */
static ct_result ct__cat_shape(ct_tensor *const *ts, int n, int *dim, int64_t *sizes, int *ndim)
{
    int valid = -1;
    char buf[256];
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim == 0)
            return ct__fail(CT_ERR_RUNTIME, "zero-dimensional tensor (at position %d) cannot be concatenated", i);
    for (int i = 0; i < n && valid < 0; i++)
        if (!ct__cat_skipped(ts[i])) valid = i;
    if (valid >= 0 && (*dim = ct__wrap_dim(*dim, ts[valid]->ndim)) < 0) return ct_last_error_code();
    if (n == 0) return ct__fail(CT_ERR_RUNTIME, "torch.cat(): expected a non-empty list of Tensors");
    *ndim = 1;
    sizes[0] = 0;
    if (valid < 0) return CT_OK; /* every input skipped: a 1-D empty result */
    const ct_tensor *ref = ts[valid];
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        if (ct__cat_skipped(t)) continue;
        if (t->ndim != ref->ndim)
            return ct__fail(CT_ERR_RUNTIME, "Tensors must have same number of dimensions: got %d and %d", ref->ndim,
                            t->ndim);
        for (int d = 0; d < ref->ndim; d++)
            if (d != *dim && t->sizes[d] != ref->sizes[d])
                return ct__fail(CT_ERR_RUNTIME,
                                "Sizes of tensors must match except in dimension %d. Expected size %lld but got size "
                                "%lld for tensor number %d in the list.",
                                *dim, (long long)ref->sizes[d], (long long)t->sizes[d], i);
        if (!ct__add_ok(total, t->sizes[*dim], &total))
            return ct__fail(CT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s",
                            ct__shape_str(t->sizes, t->ndim, buf, sizeof buf));
    }
    memcpy(sizes, ref->sizes, sizeof(int64_t) * (size_t)ref->ndim);
    sizes[*dim] = total;
    *ndim = ref->ndim;
    return CT_OK;
}

/* cat along *dim (wrapped on return). */
static ct_tensor *ct__cat(ct_tensor *const *ts, int n, int *dim_io)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int ndim;
    if (ct__cat_shape(ts, n, dim_io, sizes, &ndim) != CT_OK) return NULL;
    int dim = *dim_io;
    ct_dtype dtype = ct__result_type((const ct_tensor *const *)ts, n);
    bool cl = ct__cat_strides(ts, n, sizes, ndim, strides);
    ct_tensor *out = ct__alloc_strided(sizes, cl ? strides : NULL, ndim, dtype, ts[0]->storage->device);
    int64_t at = 0;
    for (int i = 0; out && i < n; i++) {
        const ct_tensor *t = ts[i];
        if (ct__cat_skipped(t) || ct_numel(t) == 0) continue;
        ct_tensor part;
        int64_t psizes[CT_MAX_DIMS];
        memcpy(psizes, out->sizes, sizeof psizes);
        psizes[dim] = t->sizes[dim];
        ct__ix_subview(&part, out, at * out->strides[dim], psizes, out->strides, ndim);
        ct__be(out)->copy(&part, t);
        at += t->sizes[dim];
    }
    return out;
}

static bool ct__any_requires_grad(ct_tensor *const *ts, int n)
{
    for (int i = 0; i < n; i++)
        if (ct__requires_grad(ts[i])) return true;
    return false;
}

/* Record out-of-place join op r = kind(a0, a1) (a1 NULL: one input); returns r. */
static ct_tensor *ct__join_recorded(ct_tensor *r, ct__join_grad kind, const ct_tensor *a0, const ct_tensor *a1,
                                    const ct__join_args *a)
{
    const ct_tensor *in[2] = {a0, a1};
    ct__record_join(kind, in, a1 ? 2 : 1, &r, 1, a);
    return r;
}

/* After in-place join op kind wrote self (r: how it went): the write is
 * counted and recorded as self = kind(self, other). */
static ct_result ct__join_inplace_done(ct_result r, ct__join_grad kind, ct_tensor *self, const ct_tensor *other,
                                       const ct__join_args *a)
{
    if (r != CT_OK) return r;
    self->storage->version++;
    const ct_tensor *in[2] = {self, other};
    ct__record_join(kind, in, other ? 2 : 1, &self, 1, a);
    return CT_OK;
}

/* An index op's record: the dim and the index (or mask) it saves. */
static ct__join_args ct__index_args(int dim, const ct_tensor *index)
{
    ct__join_args a = ct__join_args_init(dim);
    a.index = index;
    return a;
}

/* Record r = cat of the n tensors along d, as joined (parts: the tensors or
 * the views of them that were joined): CatBackward0 over the tensors. */
static ct_tensor *ct__record_cat(ct_tensor *r, ct_tensor *const *ts, ct_tensor *const *parts, int n, int d)
{
    if (!r || !ct__grad_mode() || !ct__any_requires_grad(ts, n)) return r;
    int64_t *lengths = (int64_t *)CT_MALLOC((size_t)n * sizeof(int64_t) + 1);
    if (!lengths) {
        ct__discard(r);
        CT__OOM();
        return NULL;
    }
    for (int i = 0; i < n; i++) lengths[i] = ct__cat_skipped(parts[i]) ? -1 : parts[i]->sizes[d];
    ct__join_args a = ct__join_args_init(d);
    a.lengths = lengths;
    a.n_lengths = n;
    ct__record_join(CT__JG_CAT, (const ct_tensor *const *)ts, n, &r, 1, &a);
    CT_FREE(lengths);
    return r;
}

ct_tensor *ct_cat(ct_tensor *const *tensors, int n, int dim)
{
    if (ct__check_list(tensors, n, "cat") != CT_OK) return NULL;
    n = CT__MAX(n, 0);
    ct_tensor *r = ct__cat(tensors, n, &dim); /* dim comes back wrapped */
    return ct__record_cat(r, tensors, tensors, n, dim);
}

/* Stack views of the n tensors with leading size-1 dims up to min_rank (as
 * atleast_1d and atleast_2d add them) and, if trailing, one size-1 dim at the
 * end (unsqueeze(-1)); then cat along dim. */
static ct_tensor *ct__cat_reshaped(ct_tensor *const *ts, int n, int min_rank, bool trailing, int dim)
{
    ct_tensor *views = (ct_tensor *)CT_MALLOC((size_t)n * (sizeof(ct_tensor) + sizeof(ct_tensor *)));
    if (!views) {
        CT__OOM();
        return NULL;
    }
    ct_tensor **ptrs = (ct_tensor **)(views + n);
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
        int lead = CT__MAX(min_rank - t->ndim, 0), nd = t->ndim + lead;
        memcpy(sizes + lead, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
        memcpy(strides + lead, t->strides, sizeof(int64_t) * (size_t)t->ndim);
        for (int d = lead - 1; d >= 0; d--) { /* unsqueeze(0)'s stride */
            sizes[d] = 1;
            strides[d] = d + 1 < nd ? sizes[d + 1] * strides[d + 1] : 1;
        }
        if (trailing) {
            sizes[nd] = 1;
            strides[nd++] = 1;
        }
        ct__ix_subview(&views[i], t, t->offset, sizes, strides, nd);
        ptrs[i] = &views[i];
    }
    ct_tensor *r = ct__cat(ptrs, n, &dim); /* dim comes back wrapped */
    r = ct__record_cat(r, ts, ptrs, n, dim);
    CT_FREE(views);
    return r;
}

ct_tensor *ct_stack(ct_tensor *const *tensors, int n, int dim)
{
    char b1[256], b2[256];
    if (ct__check_list(tensors, n, "stack") != CT_OK) return NULL;
    if (n <= 0) {
        ct__fail(CT_ERR_RUNTIME, "stack expects a non-empty TensorList");
        return NULL;
    }
    const ct_tensor *first = tensors[0];
    int d = ct__wrap_dim(dim, first->ndim + 1);
    if (d < 0) return NULL;
    for (int i = 1; i < n; i++)
        if (tensors[i]->ndim != first->ndim ||
            memcmp(tensors[i]->sizes, first->sizes, sizeof(int64_t) * (size_t)first->ndim)) {
            ct__fail(CT_ERR_RUNTIME,
                     "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d",
                     ct__shape_str(first->sizes, first->ndim, b1, sizeof b1),
                     ct__shape_str(tensors[i]->sizes, tensors[i]->ndim, b2, sizeof b2), i);
            return NULL;
        }
    if (first->ndim == CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "stack: ctorch supports at most %d dimensions", CT_MAX_DIMS);
        return NULL;
    }
    ct_tensor *r;
    if (d == first->ndim) {
        CT__UNRECORDED(r, ct__cat_reshaped(tensors, n, 0, true, d));
    } else { /* PyTorch joins along d and splits d with a view, which keeps cat's layout */
        int64_t sizes[CT_MAX_DIMS];
        for (int i = 0, j = 0; i <= first->ndim; i++) sizes[i] = i == d ? n : first->sizes[j++];
        ct_scope s = ct_scope_begin();
        r = ct_keep(ct_view(ct__cat(tensors, n, &d), ct_shape_make(first->ndim + 1, sizes)));
        ct_scope_end(s);
    }
    ct__join_args a = ct__join_args_init(d);
    ct__record_join(CT__JG_STACK, (const ct_tensor *const *)tensors, n, &r, 1, &a);
    return r;
}

ct_tensor *ct_hstack(ct_tensor *const *tensors, int n)
{
    if (ct__check_list(tensors, n, "hstack") != CT_OK) return NULL;
    if (n <= 0) {
        ct__fail(CT_ERR_RUNTIME, "hstack expects a non-empty TensorList");
        return NULL;
    }
    return ct__cat_reshaped(tensors, n, 1, false, tensors[0]->ndim <= 1 ? 0 : 1);
}

ct_tensor *ct_vstack(ct_tensor *const *tensors, int n)
{
    if (ct__check_list(tensors, n, "vstack") != CT_OK) return NULL;
    if (n <= 0) {
        ct__fail(CT_ERR_RUNTIME, "vstack expects a non-empty TensorList");
        return NULL;
    }
    return ct__cat_reshaped(tensors, n, 2, false, 0);
}

/* ---------------------------------------------------------------- splitting */

/* Room for count pieces, as Python's unpacking checks it. */
static ct_result ct__check_room(int64_t count, ct_tensor **out, int64_t capacity)
{
    if (out && capacity < count)
        return ct__fail(CT_ERR_VALUE, "too many values to unpack (expected %lld)", (long long)capacity);
    return CT_OK;
}

/* Record the count pieces of t along d (out NULL: only counted) as one
 * node; returns count. */
static int64_t ct__record_pieces(ct__join_grad kind, const ct_tensor *t, int d, ct_tensor *const *out, int64_t count)
{
    ct__join_args a = ct__join_args_init(d);
    for (int64_t i = 0; out && i < count; i++) out[i]->is_view = true;
    if (out && count <= INT_MAX) ct__record_join(kind, &t, 1, out, (int)count, &a);
    return count;
}

/* The pieces of t along d, views of lengths[i] (or, when lengths is NULL,
 * of `step` each, the last one shorter), written to out; returns count. */
static int64_t ct__pieces(const ct_tensor *t, int d, int64_t count, const int64_t *lengths, int64_t step,
                          ct_tensor **out, int64_t capacity, ct__join_grad kind)
{
    if (ct__check_room(count, out, capacity) != CT_OK) return ct_last_error_code();
    int64_t sizes[CT_MAX_DIMS], start = 0;
    memcpy(sizes, t->sizes, sizeof sizes);
    for (int64_t i = 0; out && i < count; i++) {
        sizes[d] = lengths ? lengths[i] : CT__MIN(step, t->sizes[d] - start);
        out[i] = ct__view_of(t, sizes, t->strides, t->ndim, t->offset + start * t->strides[d]);
        if (!out[i]) {
            while (i > 0) ct__discard(out[--i]);
            return ct_last_error_code();
        }
        start += sizes[d];
    }
    return ct__record_pieces(kind, t, d, out, count);
}

static int64_t ct__split(const ct_tensor *t, int64_t split_size, int dim, ct_tensor **out, int64_t capacity)
{
    if (t->ndim == 0) return ct__fail(CT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
    if (split_size < 0)
        return ct__fail(CT_ERR_RUNTIME, "split expects split_size be non-negative, but got split_size=%lld",
                        (long long)split_size);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return ct_last_error_code();
    int64_t size = t->sizes[d];
    if (split_size == 0 && size != 0)
        return ct__fail(CT_ERR_RUNTIME,
                        "split_size can only be 0 if dimension size is 0, but got dimension size of %lld",
                        (long long)size);
    /* at least one piece, even when split_size exceeds the size */
    int64_t count = split_size ? CT__MAX(size / split_size + (size % split_size != 0), 1) : 1;
    return ct__pieces(t, d, count, NULL, split_size, out, capacity, CT__JG_SPLIT);
}

int64_t ct_split(const ct_tensor *t, int64_t split_size, int dim, ct_tensor **out, int64_t capacity)
{
    CT__ARG_R(t, "tensor", 1);
    return ct__split(t, split_size, dim, out, capacity);
}

int64_t ct_split_with_sizes(const ct_tensor *t, ct_shape sizes, int dim, ct_tensor **out, int64_t capacity)
{
    char buf[512];
    CT__ARG_R(t, "input", 1);
    if (t->ndim == 0) return ct__fail(CT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
    if (sizes.ndim < 0 || sizes.ndim > CT_MAX_DIMS)
        return ct__fail(CT_ERR_VALUE, "split_with_sizes: ctorch takes at most %d sizes", CT_MAX_DIMS);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return ct_last_error_code();
    int64_t total = 0;
    bool overflow = false;
    ct__shape_str(sizes.size, sizes.ndim, buf, sizeof buf);
    for (int i = 0; i < sizes.ndim; i++) {
        if (sizes.size[i] < 0)
            return ct__fail(CT_ERR_RUNTIME,
                            "split_with_sizes expects split_sizes have only non-negative entries, but got "
                            "split_sizes=%s",
                            buf);
        overflow = overflow || !ct__add_ok(total, sizes.size[i], &total);
    }
    if (overflow || total != t->sizes[d])
        return ct__fail(CT_ERR_RUNTIME,
                        "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension "
                        "%d), but got split_sizes=%s",
                        (long long)t->sizes[d], dim, buf);
    return ct__pieces(t, d, sizes.ndim, sizes.size, 0, out, capacity, CT__JG_SPLIT_WITH_SIZES);
}

int64_t ct_chunk(const ct_tensor *t, int64_t chunks, int dim, ct_tensor **out, int64_t capacity)
{
    CT__ARG_R(t, "input", 1);
    if (t->ndim == 0) return ct__fail(CT_ERR_RUNTIME, "chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0)
        return ct__fail(CT_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return ct_last_error_code();
    int64_t size = t->sizes[d], split_size = size ? (size - 1) / chunks + 1 : 0;
    /* an empty dim still gives `chunks` (empty) pieces, as split_with_sizes would */
    if (size == 0) return ct__pieces(t, d, chunks, NULL, 0, out, capacity, CT__JG_SPLIT);
    return ct__split(t, split_size, d, out, capacity);
}

int64_t ct_unbind(const ct_tensor *t, int dim, ct_tensor **out, int64_t capacity)
{
    CT__ARG_R(t, "input", 1);
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0 || (d = ct__wrap_dim_strict(d, t->ndim)) < 0) return ct_last_error_code();
    int64_t count = t->sizes[d];
    if (ct__check_room(count, out, capacity) != CT_OK) return ct_last_error_code();
    for (int64_t i = 0; out && i < count; i++) {
        CT__UNRECORDED(out[i], ct_select(t, d, i));
        if (!out[i]) {
            while (i > 0) ct__discard(out[--i]);
            return ct_last_error_code();
        }
    }
    return ct__record_pieces(CT__JG_UNBIND, t, d, out, count);
}

ct_result ct_broadcast_tensors(ct_tensor *const *tensors, int n, ct_tensor **out)
{
    int64_t shape[CT_MAX_DIMS];
    int ndim = 0;
    ct_result r = ct__check_list(tensors, n, "broadcast_tensors");
    if (r != CT_OK) return r;
    if (n > 0 && !out) return ct__fail(CT_ERR_VALUE, "broadcast_tensors(): out is NULL");
    for (int i = 0; i < n; i++)
        if (ct__broadcast_shapes(shape, ndim, tensors[i]->sizes, tensors[i]->ndim, shape, &ndim) != CT_OK)
            return ct_last_error_code();
    for (int i = 0; i < n; i++) {
        ct_tensor v;
        ct__broadcast_view(&v, tensors[i], shape, ndim);
        out[i] = ct__view_of(tensors[i], v.sizes, v.strides, ndim, v.offset);
        if (!out[i]) {
            while (i > 0) ct__discard(out[--i]);
            return ct_last_error_code();
        }
    }
    return CT_OK;
}

/* ---------------------------------------------------------------- repeat and tile */

/* out (contiguous) and x seen as (reps[0], x0, reps[1], x1, ...), x
 * broadcast over the reps dims, size-1 dims left out; false when that still
 * needs more than CT_MAX_DIMS dims. */
static bool ct__repeat_views(const ct_tensor *out, const ct_tensor *x, const int64_t *reps, int nd, ct_tensor *ov,
                             ct_tensor *xv)
{
    int64_t os[CT_MAX_DIMS], ost[CT_MAX_DIMS], xst[CT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < nd; i++) {
        int64_t size[2] = {reps[i], x->sizes[i]}, ostep[2] = {x->sizes[i] * out->strides[i], out->strides[i]};
        int64_t xstep[2] = {0, x->strides[i]};
        for (int k = 0; k < 2; k++) {
            if (size[k] == 1) continue;
            if (n == CT_MAX_DIMS) return false;
            os[n] = size[k];
            ost[n] = ostep[k];
            xst[n++] = xstep[k];
        }
    }
    ct__ix_subview(ov, out, out->offset, os, ost, n);
    ct__ix_subview(xv, x, x->offset, os, xst, n);
    return true;
}

/* out = x tiled reps[i] times along each of its nd dims: one copy, or, for
 * ranks the views cannot hold, one per repeat of the first repeated dim. */
static void ct__repeat_into(const ct_tensor *out, const ct_tensor *x, const int64_t *reps, int nd)
{
    ct_tensor ov, xv;
    if (ct__repeat_views(out, x, reps, nd, &ov, &xv)) {
        ct__be(out)->copy(&ov, &xv);
        return;
    }
    int64_t reps1[CT_MAX_DIMS], sizes[CT_MAX_DIMS];
    int d = 0;
    while (reps[d] == 1) d++; /* there is one, or the views would fit */
    memcpy(reps1, reps, sizeof(int64_t) * (size_t)nd);
    memcpy(sizes, out->sizes, sizeof(int64_t) * (size_t)nd);
    reps1[d] = 1;
    sizes[d] = x->sizes[d];
    for (int64_t j = 0; j < reps[d]; j++) {
        ct_tensor block;
        ct__ix_subview(&block, out, out->offset + j * x->sizes[d] * out->strides[d], sizes, out->strides, nd);
        ct__repeat_into(&block, x, reps1, nd);
    }
}

static ct_tensor *ct__repeat(const ct_tensor *t, ct_shape repeats)
{
    int64_t xs[CT_MAX_DIMS], xst[CT_MAX_DIMS], target[CT_MAX_DIMS];
    char buf[256];
    if (repeats.ndim < t->ndim) {
        ct__fail(CT_ERR_RUNTIME,
                 "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
        return NULL;
    }
    if (repeats.ndim > CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "repeat: ctorch supports at most %d dimensions", CT_MAX_DIMS);
        return NULL;
    }
    int nd = repeats.ndim, lead = nd - t->ndim;
    for (int i = 0; i < nd; i++) {
        xs[i] = i < lead ? 1 : t->sizes[i - lead];
        xst[i] = i < lead ? 0 : t->strides[i - lead];
        if (!ct__mul_ok(xs[i], repeats.size[i], &target[i])) {
            ct__fail(CT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s",
                     ct__shape_str(repeats.size, nd, buf, sizeof buf));
            return NULL;
        }
    }
    ct_tensor *out = ct_empty(ct_shape_make(nd, target), t->dtype);
    if (!out || ct_numel(out) == 0) return out;
    ct_tensor x;
    ct__ix_subview(&x, t, t->offset, xs, xst, nd);
    ct__repeat_into(out, &x, repeats.size, nd);
    return out;
}

ct_tensor *ct_repeat(const ct_tensor *t, ct_shape repeats)
{
    CT__ARG(t, "self", 1);
    ct__join_args a = ct__join_args_init(0);
    a.shape = repeats;
    return ct__join_recorded(ct__repeat(t, repeats), CT__JG_REPEAT, t, NULL, &a);
}

ct_tensor *ct_tile(const ct_tensor *t, ct_shape dims)
{
    CT__ARG(t, "input", 1);
    if (dims.ndim >= 0 && dims.ndim < t->ndim) { /* leading 1s up to t's rank */
        int lead = t->ndim - dims.ndim;
        memmove(dims.size + lead, dims.size, sizeof(int64_t) * (size_t)dims.ndim);
        for (int i = 0; i < lead; i++) dims.size[i] = 1;
        dims.ndim = t->ndim;
    }
    return ct_repeat(t, dims);
}

/* ---------------------------------------------------------------- repeat_interleave */

/* torch.repeat_interleave(repeats) for a 1-D (or expanded) repeats tensor. */
static ct_tensor *ct__repeats_index(const ct_tensor *repeats)
{
    if (repeats->dtype != CT_I64 && repeats->dtype != CT_I32) {
        ct__fail(CT_ERR_RUNTIME, "\"repeat_interleave_cpu\" not implemented for '%s'", ct__dtype_title(repeats->dtype));
        return NULL;
    }
    if (repeats->ndim != 1) {
        ct__fail(CT_ERR_RUNTIME, "repeat_interleave only accept 1D vector as repeat");
        return NULL;
    }
    if (repeats->sizes[0] == 0) return ct__alloc(repeats->sizes, 1, repeats->dtype, repeats->storage->device);
    ct__index_job st = ct__index_stats(repeats, 0, INT64_MAX);
    if (st.min < 0) {
        ct__fail(CT_ERR_RUNTIME, "repeats can not be negative");
        return NULL;
    }
    if (ct__check_shape(ct_shape_make(1, &st.sum), "repeat_interleave") != CT_OK) return NULL; /* the sum wrapped */
    ct_tensor *out = ct__alloc(&st.sum, 1, repeats->dtype, repeats->storage->device);
    if (out && st.sum) {
        ct__index_job job;
        memset(&job, 0, sizeof job);
        job.kind = CT__INDEX_REPEATS;
        job.dst = out;
        job.src = repeats;
        ct__be(out)->index(&job);
    }
    return out;
}

ct_tensor *ct_repeat_interleave_index(const ct_tensor *repeats)
{
    CT__ARG(repeats, "repeats", 1);
    return ct__repeats_index(repeats);
}

/* repeat_interleave of t (flattened when dim is NULL) by a tensor of repeats. */
static ct_tensor *ct__repeat_interleave(const ct_tensor *t, const ct_tensor *repeats, const int *dim)
{
    ct_scope s = ct_scope_begin();
    const ct_tensor *input = dim ? t : ct_reshape(t, CT_SHAPE(-1));
    int d = dim ? *dim : 0;
    ct_tensor *r = NULL;
    if (input && (d = ct__wrap_dim_strict(d, input->ndim)) >= 0) { /* input.size(dim) */
        int64_t size = input->sizes[d], zero = 0;
        ct_tensor rep; /* one count for every slice: expanded without a copy */
        if (repeats->ndim == 0 || (repeats->ndim == 1 && repeats->sizes[0] == 1))
            ct__ix_subview(&rep, repeats, repeats->offset, &size, &zero, 1);
        else
            rep = *repeats;
        if (repeats->ndim > 1) ct__fail(CT_ERR_RUNTIME, "repeats must be 0-dim or 1-dim tensor");
        else if (rep.sizes[0] != size) ct__fail(CT_ERR_RUNTIME, "repeats must have the same size as input along dim");
        else r = ct_keep(ct_index_select(input, d, ct__repeats_index(&rep)));
    }
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_repeat_interleave_tensor(const ct_tensor *t, const ct_tensor *repeats)
{
    CT__ARG(t, "input", 1);
    CT__ARG(repeats, "repeats", 2);
    return ct__repeat_interleave(t, repeats, NULL);
}

ct_tensor *ct_repeat_interleave_tensor_dim(const ct_tensor *t, const ct_tensor *repeats, int dim)
{
    CT__ARG(t, "input", 1);
    CT__ARG(repeats, "repeats", 2);
    return ct__repeat_interleave(t, repeats, &dim);
}

/* A 0-d int64 tensor on the stack holding repeats, as PyTorch makes one for an int. */
static ct_tensor *ct__repeats_scalar(ct__stack_scalar *ss, int64_t repeats)
{
    ct_tensor *t = ct__stack_scalar_init(ss, ct_int(repeats));
    t->wrapped_number = false;
    return t;
}

ct_tensor *ct_repeat_interleave(const ct_tensor *t, int64_t repeats)
{
    ct__stack_scalar ss;
    CT__ARG(t, "input", 1);
    return ct__repeat_interleave(t, ct__repeats_scalar(&ss, repeats), NULL);
}

ct_tensor *ct_repeat_interleave_dim(const ct_tensor *t, int64_t repeats, int dim)
{
    ct__stack_scalar ss;
    CT__ARG(t, "input", 1);
    return ct__repeat_interleave(t, ct__repeats_scalar(&ss, repeats), &dim);
}

/* ---------------------------------------------------------------- flip and roll */

static ct_tensor *ct__flip(const ct_tensor *t, ct_shape dims)
{
    bool flip[CT_MAX_DIMS] = {false};
    if (dims.ndim < 0 || dims.ndim > CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "flip: ctorch takes at most %d dims", CT_MAX_DIMS);
        return NULL;
    }
    for (int i = 0; i < dims.ndim; i++) {
        int d = ct__wrap_dim(dims.size[i], t->ndim);
        if (d < 0) return NULL;
        if (flip[d]) {
            ct__fail(CT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims", d);
            return NULL;
        }
        flip[d] = true;
    }
    ct_tensor *out = ct__empty_preserve(t);
    if (!out || ct_numel(out) == 0) return out;
    /* read t backwards along the flipped dims: a view with negative strides */
    ct_tensor src;
    int64_t strides[CT_MAX_DIMS], offset = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        strides[d] = flip[d] ? -t->strides[d] : t->strides[d];
        if (flip[d]) offset += (t->sizes[d] - 1) * t->strides[d];
    }
    ct__ix_subview(&src, t, offset, t->sizes, strides, t->ndim);
    ct__be(out)->copy(out, &src);
    return out;
}

ct_tensor *ct_flip(const ct_tensor *t, ct_shape dims)
{
    CT__ARG(t, "input", 1);
    ct__join_args a = ct__join_args_init(0);
    a.dims = dims;
    return ct__join_recorded(ct__flip(t, dims), CT__JG_FLIP, t, NULL, &a);
}

/* roll along one dim, as PyTorch's roll_cpu: the two parts swapped by cat. */
static ct_tensor *ct__roll1(const ct_tensor *t, int64_t shift, int dim)
{
    if (ct_numel(t) == 0) return ct__clone_preserve(t);
    int d = ct__wrap_dim_strict(dim, t->ndim); /* self.size(dim) */
    if (d < 0) return NULL;
    /* (size - shift) % size as PyTorch computes it, wrapping on overflow */
    int64_t size = t->sizes[d], start = (int64_t)((uint64_t)size - (uint64_t)shift) % size;
    start += start < 0 ? size : 0;
    ct_tensor parts[2];
    ct_tensor *ptrs[2] = {&parts[0], &parts[1]};
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    sizes[d] = size - start;
    ct__ix_subview(&parts[0], t, t->offset + start * t->strides[d], sizes, t->strides, t->ndim);
    sizes[d] = start;
    ct__ix_subview(&parts[1], t, t->offset, sizes, t->strides, t->ndim);
    return ct__cat(ptrs, 2, &d);
}

static ct_tensor *ct__roll(const ct_tensor *t, ct_shape shifts, ct_shape dims)
{
    if (shifts.ndim > CT_MAX_DIMS || dims.ndim < 0 || dims.ndim > CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "roll: ctorch takes at most %d dims", CT_MAX_DIMS);
        return NULL;
    }
    if (dims.ndim == 1 && shifts.ndim == 1) return ct__roll1(t, shifts.size[0], (int)dims.size[0]);
    if (shifts.ndim <= 0) {
        ct__fail(CT_ERR_RUNTIME, "`shifts` required");
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r = NULL;
    if (dims.ndim == 0 && shifts.ndim == 1) { /* the flattened tensor, viewed back */
        ct_tensor *flat = ct_reshape(ct_contiguous(t), CT_SHAPE(-1));
        r = flat ? ct_view(ct__roll1(flat, shifts.size[0], 0), ct_shape_of(t)) : NULL;
    } else if (shifts.ndim != dims.ndim) {
        ct__fail(CT_ERR_RUNTIME, "shifts and dimensions must align. shifts: %d, dims:%d", shifts.ndim, dims.ndim);
    } else { /* one dim after the other */
        r = ct__same(t);
        for (int i = 0; r && i < dims.ndim; i++) r = ct__roll1(r, shifts.size[i], (int)dims.size[i]);
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_roll(const ct_tensor *t, ct_shape shifts, ct_shape dims)
{
    CT__ARG(t, "input", 1);
    ct_tensor *r;
    ct__join_args a = ct__join_args_init(0);
    a.shape = shifts;
    a.dims = dims;
    CT__UNRECORDED(r, ct__roll(t, shifts, dims));
    return ct__join_recorded(r, CT__JG_ROLL, t, NULL, &a);
}

/* ---------------------------------------------------------------- gather and scatter */

/* The index's values must lie in [lo, hi); fmt words the error for the first that does not. */
static ct_result ct__check_range(const ct_tensor *index, int64_t lo, int64_t hi, ct_result code, const char *fmt,
                                 int d)
{
    if (ct_numel(index) == 0) return CT_OK;
    ct__index_job st = ct__index_stats(index, lo, hi);
    if (!st.out_of_range) return CT_OK;
    return ct__fail(code, fmt, (long long)st.first_bad, d, (long long)hi);
}

static const char ct__msg_bounds[] = "index %lld is out of bounds for dimension %d with size %lld";

/* gather's checks on a nonempty index (gather_shape_check). */
static ct_result ct__gather_checks(const ct_tensor *t, int d, const ct_tensor *index)
{
    char b1[256], b2[256];
    if (index->dtype != CT_I64) return ct__fail(CT_ERR_RUNTIME, "gather(): Expected dtype int64 for index");
    if (CT__MAX(t->ndim, 1) != CT__MAX(index->ndim, 1))
        return ct__fail(CT_ERR_RUNTIME, "Index tensor must have the same number of dimensions as input tensor");
    for (int k = 0; k < CT__MAX(t->ndim, 1); k++)
        if (k != d && ct__ne_size(index, k) > ct__ne_size(t, k))
            return ct__fail(CT_ERR_RUNTIME,
                            "Size does not match at dimension %d expected index %s to be smaller than self %s apart "
                            "from dimension %d",
                            k, ct__shape_str(index->sizes, index->ndim, b1, sizeof b1),
                            ct__shape_str(t->sizes, t->ndim, b2, sizeof b2), d);
    return CT_OK;
}

static ct_tensor *ct__gather(const ct_tensor *t, int dim, const ct_tensor *index)
{
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0 || (ct_numel(index) && ct__gather_checks(t, d, index) != CT_OK)) return NULL;
    ct_tensor *out = ct__alloc(index->sizes, index->ndim, t->dtype, t->storage->device);
    ct__index_job job = ct__job(CT__INDEX_GATHER, d);
    /* the kernel checks the indices; the first bad one is looked for only when there is one */
    if (out && ct_numel(out) && !ct__run_index(&job, out, t, NULL, index)) {
        ct__check_range(index, 0, ct__ne_size(t, d), CT_ERR_RUNTIME, ct__msg_bounds, d);
        ct__discard(out);
        return NULL;
    }
    return out;
}

ct_tensor *ct_gather(const ct_tensor *t, int dim, const ct_tensor *index)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    ct__join_args a = ct__index_args(dim, index);
    return ct__join_recorded(ct__gather(t, dim, index), CT__JG_GATHER, t, NULL, &a);
}

/* scatter_shape_check, including its quirk: a src of lower (nonzero) rank
 * fails on the first dim it lacks, as src.size(d) does. */
static ct_result ct__scatter_shape_check(const ct_tensor *self, int d, const ct_tensor *index, const ct_tensor *src)
{
    char b1[256], b2[256], b3[256];
    int nd = CT__MAX(self->ndim, 1);
    bool wrong = false;
    if (ct_numel(index) == 0) return CT_OK;
    if (nd != CT__MAX(index->ndim, 1))
        return ct__fail(CT_ERR_RUNTIME, "Index tensor must have the same number of dimensions as self tensor");
    for (int k = 0; k < nd && !wrong; k++) wrong = k != d && ct__ne_size(index, k) > ct__ne_size(self, k);
    for (int k = 0; src && k < nd && !wrong; k++) {
        if (src->ndim && k >= src->ndim) return ct__wrap_dim(k, src->ndim) < 0 ? ct_last_error_code() : CT_OK;
        wrong = ct__ne_size(index, k) > ct__ne_size(src, k);
    }
    if (src && CT__MAX(src->ndim, 1) != nd)
        return ct__fail(CT_ERR_RUNTIME, "Index tensor must have the same number of dimensions as src tensor");
    if (!wrong) return CT_OK;
    ct__shape_str(index->sizes, index->ndim, b1, sizeof b1);
    ct__shape_str(self->sizes, self->ndim, b2, sizeof b2);
    if (!src)
        return ct__fail(CT_ERR_RUNTIME, "Expected index %s to be smaller than self %s apart from dimension %d", b1, b2,
                        d);
    return ct__fail(CT_ERR_RUNTIME,
                    "Expected index %s to be smaller than self %s apart from dimension %d and to be smaller size than "
                    "src %s",
                    b1, b2, d, ct__shape_str(src->sizes, src->ndim, b3, sizeof b3));
}

/* The kernel for scatter's reduce argument: NULL replaces; "add" and "multiply" combine. */
static ct_result ct__scatter_kind(const char *reduce, bool reducing, bool inplace, ct__index_kind *kind)
{
    *kind = CT__INDEX_SCATTER;
    if (!reducing) return CT_OK;
    if (!reduce) return ct__fail(CT_ERR_TYPE, "scatter%s(): argument 'reduce' must be str, not NULL", inplace ? "_" : "");
    if (!strcmp(reduce, "add")) *kind = CT__INDEX_SCATTER_ADD;
    else if (!strcmp(reduce, "multiply")) *kind = CT__INDEX_SCATTER_MUL;
    else return ct__fail(CT_ERR_RUNTIME, "reduce argument must be either add or multiply.");
    return CT_OK;
}

/* Every scatter form: src (or value, when src is NULL) into *self (in place)
 * or into a new copy of self returned in *result. add: scatter_add. */
static ct_result ct__scatter(ct_tensor *self, bool inplace, int dim, const ct_tensor *index, const ct_tensor *src,
                             ct_scalar value, const char *reduce, bool reducing, bool add, ct_tensor **result)
{
    ct__index_kind kind;
    uint64_t elem = 0, one = 0;
    ct_result r; /* a leaf that requires grad is refused by the in-place callers */
    int d = ct__wrap_dim(dim, self->ndim);
    if (d < 0) return ct_last_error_code();
    if (ct_numel(index) && index->dtype != CT_I64)
        return ct__fail(CT_ERR_RUNTIME, "scatter(): Expected dtype int64 for index");
    if (src && src->dtype != self->dtype)
        return ct__fail(CT_ERR_RUNTIME, "scatter(): Expected self.dtype to be equal to src.dtype");
    r = ct__scatter_shape_check(self, d, index, src);
    if (r == CT_OK && inplace) r = ct__check_no_overlap(self, index, src);
    if (r == CT_OK) r = ct__scatter_kind(reduce, reducing, inplace, &kind);
    if (r != CT_OK) return r;
    if (add) kind = CT__INDEX_SCATTER_ADD;
    int64_t size = ct__ne_size(self, d);
    if (ct_numel(index)) {
        /* in place, nothing may be written before every index is known good */
        if (inplace && (r = ct__check_range(index, 0, size, CT_ERR_RUNTIME, ct__msg_bounds, d)) != CT_OK) return r;
        if (!src && (r = ct__scalar_to_elem(value, self->dtype, &elem)) != CT_OK) return r;
        ct__scalar_to_elem(ct_int(1), self->dtype, &one);
    }
    ct_tensor *out = inplace ? self : ct__fresh_copy(self);
    if (!out) return ct_last_error_code();
    ct__index_job job = ct__job(kind, d);
    job.alpha = &one;
    if (ct_numel(index) && !ct__run_index(&job, out, src, &elem, index)) {
        ct__discard(out);
        return ct__check_range(index, 0, size, CT_ERR_RUNTIME, ct__msg_bounds, d);
    }
    if (result) *result = out;
    return CT_OK;
}

/* Which scatter node a form records (PyTorch has no derivative for the reducing forms). */
static ct__join_grad ct__scatter_grad(const ct_tensor *src, bool reducing, bool add)
{
    if (reducing) return CT__JG_NOT_IMPLEMENTED;
    if (add) return CT__JG_SCATTER_ADD;
    return src ? CT__JG_SCATTER : CT__JG_SCATTER_VALUE;
}

static ct_tensor *ct__scatter_new(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src,
                                  ct_scalar value, const char *reduce, bool reducing, bool add)
{
    ct_tensor *r = NULL;
    ct__join_args a = ct__index_args(dim, index);
    if (ct__scatter((ct_tensor *)t, false, dim, index, src, value, reduce, reducing, add, &r) != CT_OK) return NULL;
    return ct__join_recorded(r, ct__scatter_grad(src, reducing, add), t, src, &a);
}

static ct_result ct__scatter_inplace(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src,
                                     ct_scalar value, const char *reduce, bool reducing, bool add)
{
    ct_result r = ct__check_inplace_grad(t);
    ct__join_args a = ct__index_args(dim, index);
    if (r == CT_OK) r = ct__scatter(t, true, dim, index, src, value, reduce, reducing, add, NULL);
    return ct__join_inplace_done(r, ct__scatter_grad(src, reducing, add), t, src, &a);
}

ct_tensor *ct_scatter(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(src, "src", 4);
    return ct__scatter_new(t, dim, index, src, ct_int(0), NULL, false, false);
}

ct_result ct_scatter_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(src, "src", 4);
    return ct__scatter_inplace(t, dim, index, src, ct_int(0), NULL, false, false);
}

ct_tensor *ct_scatter_scalar(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    return ct__scatter_new(t, dim, index, NULL, value, NULL, false, false);
}

ct_result ct_scatter_scalar_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    return ct__scatter_inplace(t, dim, index, NULL, value, NULL, false, false);
}

ct_tensor *ct_scatter_with_reduce(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src,
                                  const char *reduce)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(src, "src", 4);
    return ct__scatter_new(t, dim, index, src, ct_int(0), reduce, true, false);
}

ct_result ct_scatter_with_reduce_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src,
                                  const char *reduce)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(src, "src", 4);
    return ct__scatter_inplace(t, dim, index, src, ct_int(0), reduce, true, false);
}

ct_tensor *ct_scatter_scalar_with_reduce(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value,
                                         const char *reduce)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    return ct__scatter_new(t, dim, index, NULL, value, reduce, true, false);
}

ct_result ct_scatter_scalar_with_reduce_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value,
                                         const char *reduce)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    return ct__scatter_inplace(t, dim, index, NULL, value, reduce, true, false);
}

ct_tensor *ct_scatter_add(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(src, "src", 4);
    return ct__scatter_new(t, dim, index, src, ct_int(0), NULL, false, true);
}

ct_result ct_scatter_add_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(src, "src", 4);
    return ct__scatter_inplace(t, dim, index, src, ct_int(0), NULL, false, true);
}

/* ---------------------------------------------------------------- index_select */

static ct_tensor *ct__index_select(const ct_tensor *t, int dim, const ct_tensor *index)
{
    int d = ct__wrap_dim(dim, t->ndim);
    if (d < 0) return NULL;
    if (index->ndim > 1) {
        ct__fail(CT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
        return NULL;
    }
    if (index->dtype != CT_I64 && index->dtype != CT_I32) {
        ct__fail(CT_ERR_RUNTIME, "index_select(): Expected dtype int32 or int64 for index");
        return NULL;
    }
    int64_t n = ct_numel(index), sizes[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    if (t->ndim) sizes[d] = n;
    /* PyTorch's paths word range errors differently: an empty self and its
     * dim-1 fast path check every index first, with caffe2's message */
    if (t->ndim > 1 && n && (ct_numel(t) == 0 || d == 1)) {
        if (t->sizes[d] <= 0) {
            ct__fail(CT_ERR_RUNTIME, "index_select(): self indexing axis dim should be positive");
            return NULL;
        }
        ct__index_job st = ct__index_stats(index, 0, t->sizes[d]);
        if (st.out_of_range) {
            ct__fail(CT_ERR_RUNTIME, "INDICES element is out of DATA bounds, id=%lld axis_dim=%lld",
                     (long long)st.first_bad, (long long)t->sizes[d]);
            return NULL;
        }
    } else if (n) {
        ct__index_job st = ct__index_stats(index, 0, t->ndim > 1 ? t->sizes[d] : ct_numel(t));
        if (st.out_of_range) {
            ct__fail(CT_ERR_INDEX, "index out of range in self");
            return NULL;
        }
    }
    ct_tensor *out = ct__alloc(sizes, t->ndim, t->dtype, t->storage->device);
    if (!out || ct_numel(out) == 0) return out;
    if (t->ndim == 0) { /* every index is 0: the value itself (none: zero, not garbage) */
        if (n) ct__copy_unchecked(out, t);
        else ct_zero_(out);
        return out;
    }
    ct_scope s = ct_scope_begin();
    const ct_tensor *ix = ct__index_i64(index);
    if (ix) {
        ct_tensor iv;
        ct__index_job job = ct__job(CT__INDEX_GATHER, d);
        ct__index_along(&iv, ix, out->sizes, out->ndim, d);
        ct__run_index(&job, out, t, NULL, &iv);
    }
    ct_scope_end(s);
    if (!ix) ct__discard(out);
    return ix ? out : NULL;
}

ct_tensor *ct_index_select(const ct_tensor *t, int dim, const ct_tensor *index)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    ct__join_args a = ct__index_args(dim, index);
    return ct__join_recorded(ct__index_select(t, dim, index), CT__JG_INDEX_SELECT, t, NULL, &a);
}

/* ---------------------------------------------------------------- index_add */

/* index_add_'s checks before any data is read (index_func_meta_impl). */
static ct_result ct__index_add_checks(const ct_tensor *self, int d, const ct_tensor *index, const ct_tensor *source)
{
    char buf[256];
    if (index->ndim > 1)
        return ct__fail(CT_ERR_INDEX,
                        "index_add_(): Index is supposed to be a vector, but got dim: %d with type: %s and size: %s",
                        index->ndim, ct__dtype_title(index->dtype),
                        ct__shape_str(index->sizes, index->ndim, buf, sizeof buf));
    if (index->dtype != CT_I64 && index->dtype != CT_I32)
        return ct__fail(CT_ERR_RUNTIME, "index_add_(): Expected dtype int32/int64 for index but got: %s",
                        ct__dtype_title(index->dtype));
    if (self->dtype != source->dtype)
        return ct__fail(CT_ERR_RUNTIME, "index_add_(): self (%s) and source (%s) must have the same scalar type",
                        ct__dtype_title(self->dtype), ct__dtype_title(source->dtype));
    if (d != 0 && d >= source->ndim)
        return ct__fail(CT_ERR_RUNTIME,
                        "index_add_(): Indexing dim %d is out of bounds of the source tensor with dim %d", d,
                        source->ndim);
    int64_t n = ct_numel(index);
    if (source->ndim == 0 && n != 1) return ct__wrap_dim_strict(d, 0) < 0 ? ct_last_error_code() : CT_OK;
    if (source->ndim && n != source->sizes[d])
        return ct__fail(CT_ERR_RUNTIME,
                        "index_add_(): Number of indices (%lld) should be equal to source.size(dim): (%lld), for "
                        "dim: %d",
                        (long long)n, (long long)source->sizes[d], d);
    return CT_OK;
}

/* For self with more than one dim, source's slices (source without dim d)
 * broadcast to self's slices as add_ broadcasts them: src gets the strides
 * that see source with self's sizes (n along d). */
static ct_result ct__index_add_source(const ct_tensor *self, int d, const ct_tensor *source, int64_t n, ct_tensor *src)
{
    int64_t ss[CT_MAX_DIMS], fs[CT_MAX_DIMS], shape[CT_MAX_DIMS], sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    char b1[256], b2[256];
    int ns = 0, nf = 0, nb = 0;
    if (source->ndim == 0) return ct__fail(CT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    for (int k = 0; k < source->ndim; k++)
        if (k != d) ss[ns++] = source->sizes[k];
    for (int k = 0; k < self->ndim; k++)
        if (k != d) fs[nf++] = self->sizes[k];
    if (ct__broadcast_shapes(fs, nf, ss, ns, shape, &nb) != CT_OK) return ct_last_error_code();
    if (nb != nf || memcmp(shape, fs, sizeof(int64_t) * (size_t)nf))
        return ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        ct__shape_str(fs, nf, b1, sizeof b1), ct__shape_str(shape, nb, b2, sizeof b2));
    for (int k = 0, p = 0; k < self->ndim; k++) {
        sizes[k] = k == d ? n : self->sizes[k];
        if (k == d) {
            strides[k] = source->strides[d];
            continue;
        }
        int q = p++ - (nf - ns), sk = q < d ? q : q + 1; /* the source dim that aligns with self's dim k */
        strides[k] = q < 0 || source->sizes[sk] == 1 ? 0 : source->strides[sk];
    }
    ct__ix_subview(src, source, source->offset, sizes, strides, self->ndim);
    return CT_OK;
}

static ct_result ct__index_add(ct_tensor *self, bool inplace, int dim, const ct_tensor *index, const ct_tensor *source,
                               ct_scalar alpha, ct_tensor **result)
{
    uint64_t al = 0;
    ct_result r; /* a leaf that requires grad is refused by the in-place callers */
    int d = ct__wrap_dim(dim, self->ndim);
    if (d < 0) return ct_last_error_code();
    r = ct__index_add_checks(self, d, index, source);
    if (r == CT_OK && inplace) r = ct__check_no_overlap(self, index, source);
    if (r != CT_OK) return r;
    int64_t n = ct_numel(index);
    ct_tensor src, iv;
    bool multi = self->ndim > 1;
    if (multi && n && (r = ct__index_add_source(self, d, source, n, &src)) != CT_OK) return r;
    if (!multi && source->ndim > 1)
        return ct__fail(CT_ERR_RUNTIME, "source.dim() (%d) must one or zero for given self.dim() (%d)", source->ndim,
                        self->ndim);
    if ((n || !multi) && (r = ct__scalar_to_elem(alpha, self->dtype, &al)) != CT_OK) return r;
    if (n && ct__index_stats(index, 0, multi ? self->sizes[d] : ct_numel(self)).out_of_range)
        return ct__fail(CT_ERR_INDEX, "index out of range in self");
    ct_scope s = ct_scope_begin();
    ct_tensor *out = inplace ? self : ct__fresh_copy(self);
    const ct_tensor *ix = out && n ? ct__index_i64(index) : NULL;
    if (ix) {
        int64_t sizes[CT_MAX_DIMS];
        int nd = multi ? self->ndim : 1, dd = multi ? d : 0;
        if (multi) memcpy(sizes, self->sizes, sizeof sizes);
        sizes[dd] = n;
        ct__index_along(&iv, ix, sizes, nd, dd);
        ct__index_job job = ct__job(CT__INDEX_SCATTER_ADD, dd);
        job.alpha = &al;
        job.fused = multi; /* PyTorch adds slices with add_ (fused in float32/64), single elements by hand */
        ct__run_index(&job, out, multi ? &src : source, NULL, &iv);
    }
    r = out && (ix || !n) ? CT_OK : ct_last_error_code();
    if (r == CT_OK && !inplace) *result = ct_keep(out);
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_index_add(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(source, "source", 4);
    return ct_index_add_alpha(t, dim, index, source, ct_int(1));
}

ct_tensor *ct_index_add_alpha(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source,
                              ct_scalar alpha)
{
    ct_tensor *r = NULL;
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(source, "source", 4);
    ct__join_args a = ct__index_args(dim, index);
    a.has_alpha = true;
    a.alpha = alpha;
    if (ct__index_add((ct_tensor *)t, false, dim, index, source, alpha, &r) != CT_OK) return NULL;
    return ct__join_recorded(r, CT__JG_INDEX_ADD, t, source, &a);
}

ct_result ct_index_add_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(source, "source", 4);
    return ct_index_add_alpha_(t, dim, index, source, ct_int(1));
}

ct_result ct_index_add_alpha_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source, ct_scalar alpha)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(source, "source", 4);
    ct__join_args a = ct__index_args(dim, index);
    a.has_alpha = true;
    a.alpha = alpha;
    ct_result r = ct__check_inplace_grad(t);
    if (r == CT_OK) r = ct__index_add(t, true, dim, index, source, alpha, NULL);
    return ct__join_inplace_done(r, CT__JG_INDEX_ADD, t, source, &a);
}

/* ---------------------------------------------------------------- index_copy */

/* "2 4": how c10 prints the sizes of a slice (sizes without dim d; none for 0-d). */
static const char *ct__slice_str(const ct_tensor *t, int d, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int k = 0; k < t->ndim && len < n; k++)
        if (k != d) len += (size_t)snprintf(buf + len, n - len, len ? " %lld" : "%lld", (long long)t->sizes[k]);
    return buf;
}

static bool ct__same_slices(const ct_tensor *a, const ct_tensor *b, int d)
{
    int na = CT__MAX(a->ndim - 1, 0), nb = CT__MAX(b->ndim - 1, 0);
    if (na != nb) return false;
    for (int k = 0, i = 0, j = 0; k < na; k++, i++, j++) {
        i += i == d;
        j += j == d;
        if (a->sizes[i] != b->sizes[j]) return false;
    }
    return true;
}

static ct_result ct__index_copy(ct_tensor *self, bool inplace, int dim, const ct_tensor *index, const ct_tensor *source,
                                ct_tensor **result)
{
    char b1[256], b2[256];
    ct_result r; /* a leaf that requires grad is refused by the in-place callers */
    int d = ct__wrap_dim(dim, self->ndim);
    if (d < 0) return ct_last_error_code();
    if (inplace && (r = ct__check_no_overlap(self, index, source)) != CT_OK) return r;
    int64_t n = ct_numel(index);
    if (index->ndim >= 2)
        return ct__fail(CT_ERR_INDEX, "index_copy_(): Index should have dimension 1 or 0 (got %d)", index->ndim);
    if (source->ndim == 0 && n != 1)
        return ct__fail(CT_ERR_INDEX, "index_copy_(): When source is scalar, index should have one element (got %lld)",
                        (long long)n);
    if (source->ndim != self->ndim && source->ndim != 0 && self->ndim != 0)
        return ct__fail(CT_ERR_INDEX,
                        "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
                        "Source dimensionality (%d), destination dimensionality (%d)",
                        source->ndim, self->ndim);
    if (index->dtype != CT_I64)
        return ct__fail(CT_ERR_RUNTIME, "index_copy_(): Expected a long tensor for index, but got %s",
                        ct__dtype_title(index->dtype));
    if (self->dtype != source->dtype)
        return ct__fail(CT_ERR_RUNTIME,
                        "index_copy_(): self and source expected to have the same dtype, but got (self) %s and "
                        "(source) %s",
                        ct__dtype_title(self->dtype), ct__dtype_title(source->dtype));
    if (!ct__same_slices(self, source, d))
        return ct__fail(CT_ERR_RUNTIME,
                        "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                        "shape: %s at dimension %d and source slice shape: %s at dimension 0.",
                        ct__slice_str(self, d, b1, sizeof b1), d, ct__slice_str(source, d, b2, sizeof b2));
    if (source->ndim && n != source->sizes[d])
        return ct__fail(CT_ERR_INDEX,
                        "index_copy_(): Number of indices (%lld) should be equal to source.size(dim) (%lld)",
                        (long long)n, (long long)source->sizes[d]);
    if (ct_numel(source) && (r = ct__check_range(index, 0, ct__ne_size(self, d), CT_ERR_INDEX,
                             "index_copy_(): index %lld is out of bounds for dimension %d with size %lld", d)) != CT_OK)
        return r;
    ct_tensor *out = inplace ? self : ct__fresh_copy(self);
    if (!out) return ct_last_error_code();
    if (n) {
        ct_tensor sv, iv;
        ct__view_1d(&sv, source);
        ct__index_job job = ct__job(CT__INDEX_SCATTER, d);
        ct__index_along(&iv, index, sv.sizes, sv.ndim, d);
        ct__run_index(&job, out, &sv, NULL, &iv);
    }
    if (result) *result = out;
    return CT_OK;
}

ct_tensor *ct_index_copy(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source)
{
    ct_tensor *r = NULL;
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(source, "source", 4);
    ct__join_args a = ct__index_args(dim, index);
    if (ct__index_copy((ct_tensor *)t, false, dim, index, source, &r) != CT_OK) return NULL;
    return ct__join_recorded(r, CT__JG_INDEX_COPY, t, source, &a);
}

ct_result ct_index_copy_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(source, "source", 4);
    ct__join_args a = ct__index_args(dim, index);
    ct_result r = ct__check_inplace_grad(t);
    if (r == CT_OK) r = ct__index_copy(t, true, dim, index, source, NULL);
    return ct__join_inplace_done(r, CT__JG_INDEX_COPY, t, source, &a);
}

/* ---------------------------------------------------------------- index_fill */

/* index_fill_ on self (which may share memory within itself: PyTorch only warns). */
static ct_result ct__index_fill_(ct_tensor *self, int dim, const ct_tensor *index, ct_scalar value)
{
    uint64_t elem = 0;
    if (index->dtype != CT_I64) return ct__fail(CT_ERR_INDEX, "index_fill_(): Expected dtype int64 for index.");
    ct__overlap lap = ct__overlap_of(self, index);
    if (lap == CT__OVERLAP_PARTIAL || lap == CT__OVERLAP_FULL)
        return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_partial_overlap);
    int d = ct__wrap_dim(dim, CT__MAX(self->ndim, 1));
    if (d < 0) return ct_last_error_code();
    if (index->ndim > 1) return ct__fail(CT_ERR_RUNTIME, "Index has to be a vector/scalar");
    ct_result r = ct__scalar_to_elem(value, self->dtype, &elem);
    int64_t size = ct__ne_size(self, d);
    if (r != CT_OK || ct_numel(index) == 0 || ct_numel(self) == 0) return r; /* nothing to visit, nothing checked */
    if ((r = ct__check_range(index, -size, size, CT_ERR_INDEX, ct__msg_bounds, d)) != CT_OK) return r;
    ct_tensor sv, iv;
    ct__view_1d(&sv, self);
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, sv.sizes, sizeof sizes);
    sizes[d] = ct_numel(index);
    ct__index_along(&iv, index, sizes, sv.ndim, d);
    ct__index_job job = ct__job(CT__INDEX_SCATTER, d);
    job.negatives = true;
    ct__run_index(&job, self, NULL, &elem, &iv);
    return CT_OK;
}

/* index_fill: a copy laid out like t (clone(preserve)), then filled. */
static ct_tensor *ct__index_fill(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value)
{
    ct_tensor *r = ct__clone_preserve(t);
    if (r && ct__index_fill_(r, dim, index, value) != CT_OK) {
        ct__discard(r);
        r = NULL;
    }
    return r;
}

static ct_result ct__check_value_0d(const ct_tensor *value, const char *fn)
{
    if (value->ndim == 0) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME,
                    "%s only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).", fn,
                    value->ndim);
}

ct_tensor *ct_index_fill(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *value)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    CT__ARG(value, "value", 4);
    if (ct__check_value_0d(value, "index_fill_") != CT_OK) return NULL;
    ct__join_args a = ct__index_args(dim, index);
    return ct__join_recorded(ct__index_fill(t, dim, index, ct__item_scalar(value)), CT__JG_INDEX_FILL_TENSOR, t, value,
                             &a);
}

ct_result ct_index_fill_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *value)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    CT__ARG_R(value, "value", 4);
    ct__join_args a = ct__index_args(dim, index);
    ct_result r = ct__check_inplace_grad(t);
    if (r == CT_OK) r = ct__check_value_0d(value, "index_fill_");
    if (r == CT_OK) r = ct__index_fill_(t, dim, index, ct__item_scalar(value));
    return ct__join_inplace_done(r, CT__JG_INDEX_FILL_TENSOR, t, value, &a);
}

ct_tensor *ct_index_fill_scalar(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 3);
    ct__join_args a = ct__index_args(dim, index);
    return ct__join_recorded(ct__index_fill(t, dim, index, value), CT__JG_INDEX_FILL, t, NULL, &a);
}

ct_result ct_index_fill_scalar_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(index, "index", 3);
    ct__join_args a = ct__index_args(dim, index);
    ct_result r = ct__check_inplace_grad(t);
    if (r == CT_OK) r = ct__index_fill_(t, dim, index, value);
    return ct__join_inplace_done(r, CT__JG_INDEX_FILL, t, NULL, &a);
}

/* ---------------------------------------------------------------- masked_fill and masked_select */

/* The mask as the kernels read it: bool and uint8 as they are; PyTorch 1.13
 * reads any other dtype's elements by their first byte, and so does this view. */
static void ct__mask_bytes(ct_tensor *v, const ct_tensor *mask)
{
    int64_t es = (int64_t)ct__esize(mask), strides[CT_MAX_DIMS];
    for (int d = 0; d < mask->ndim; d++) strides[d] = mask->strides[d] * es;
    ct__ix_subview(v, mask, mask->offset * es, mask->sizes, strides, mask->ndim);
    v->dtype = CT_U8;
}

/* The number of set elements of a mask, or -1 (with PyTorch's error) when
 * some byte is neither 0 nor 1. */
static int64_t ct__mask_count(const ct_tensor *mask)
{
    if (ct_numel(mask) == 0) return 0;
    ct__index_job st = ct__index_stats(mask, 0, 2);
    if (!st.out_of_range) return st.nonzero;
    ct__fail(CT_ERR_RUNTIME, "Mask tensor can take 0 and 1 values only");
    return -1;
}

static ct_result ct__masked_fill_(ct_tensor *self, const ct_tensor *mask, ct_scalar value)
{
    char b1[256], b2[256];
    int64_t shape[CT_MAX_DIMS];
    int nd = 0;
    uint64_t elem = 0;
    if (ct__overlap_of(self, mask) == CT__OVERLAP_PARTIAL)
        return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_partial_overlap);
    if (ct__broadcast_shapes(self->sizes, self->ndim, mask->sizes, mask->ndim, shape, &nd) != CT_OK)
        return ct_last_error_code();
    if (nd != self->ndim || memcmp(shape, self->sizes, sizeof(int64_t) * (size_t)nd))
        return ct__fail(CT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        ct__shape_str(self->sizes, self->ndim, b1, sizeof b1), ct__shape_str(shape, nd, b2, sizeof b2));
    ct_result r = ct__scalar_to_elem(value, self->dtype, &elem);
    if (r != CT_OK || ct_numel(self) == 0) return r;
    ct_tensor bytes, mv;
    ct__mask_bytes(&bytes, mask);
    ct__broadcast_view(&mv, &bytes, self->sizes, self->ndim);
    if (mask->dtype != CT_BOOL && ct__mask_count(&mv) < 0) return ct_last_error_code(); /* bools are 0 or 1 */
    ct__stack_scalar ss;
    ct__stack_scalar_init(&ss, ct_int(0));
    ss.t.dtype = self->dtype;
    ss.value = elem;
    ct__index_job job;
    memset(&job, 0, sizeof job);
    job.kind = CT__INDEX_MASKED_FILL;
    job.dst = self;
    job.src = &ss.t;
    job.index = &mv;
    job.serial = ct__has_internal_overlap(self);
    ct__be(self)->index(&job);
    return CT_OK;
}

/* masked_fill: self and mask broadcast together into a contiguous copy, then filled. */
static ct_tensor *ct__masked_fill(const ct_tensor *t, const ct_tensor *mask, const ct_tensor *value_t, ct_scalar value)
{
    int64_t shape[CT_MAX_DIMS];
    int nd = 0;
    if (ct__broadcast_shapes(mask->sizes, mask->ndim, t->sizes, t->ndim, shape, &nd) != CT_OK) return NULL;
    if (value_t && ct__check_value_0d(value_t, "masked_fill_") != CT_OK) return NULL;
    ct_tensor tv;
    ct__broadcast_view(&tv, t, shape, nd);
    ct_tensor *r = ct__alloc(shape, nd, t->dtype, t->storage->device);
    if (!r) return NULL;
    ct__copy_unchecked(r, &tv);
    if (ct__masked_fill_(r, mask, value_t ? ct__item_scalar(value_t) : value) != CT_OK) {
        ct__discard(r);
        return NULL;
    }
    return r;
}

ct_tensor *ct_masked_fill(const ct_tensor *t, const ct_tensor *mask, const ct_tensor *value)
{
    CT__ARG(t, "input", 1);
    CT__ARG(mask, "mask", 2);
    CT__ARG(value, "value", 3);
    ct__join_args a = ct__index_args(0, mask);
    return ct__join_recorded(ct__masked_fill(t, mask, value, ct_int(0)), CT__JG_MASKED_FILL_TENSOR, t, value, &a);
}

ct_result ct_masked_fill_(ct_tensor *t, const ct_tensor *mask, const ct_tensor *value)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(mask, "mask", 2);
    CT__ARG_R(value, "value", 3);
    ct__join_args a = ct__index_args(0, mask);
    ct_result r = ct__check_inplace_grad(t);
    if (r == CT_OK) r = ct__check_value_0d(value, "masked_fill_");
    if (r == CT_OK) r = ct__masked_fill_(t, mask, ct__item_scalar(value));
    return ct__join_inplace_done(r, CT__JG_MASKED_FILL_TENSOR, t, value, &a);
}

ct_tensor *ct_masked_fill_scalar(const ct_tensor *t, const ct_tensor *mask, ct_scalar value)
{
    CT__ARG(t, "input", 1);
    CT__ARG(mask, "mask", 2);
    ct__join_args a = ct__index_args(0, mask);
    return ct__join_recorded(ct__masked_fill(t, mask, NULL, value), CT__JG_MASKED_FILL, t, NULL, &a);
}

ct_result ct_masked_fill_scalar_(ct_tensor *t, const ct_tensor *mask, ct_scalar value)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(mask, "mask", 2);
    ct__join_args a = ct__index_args(0, mask);
    ct_result r = ct__check_inplace_grad(t);
    if (r == CT_OK) r = ct__masked_fill_(t, mask, value);
    return ct__join_inplace_done(r, CT__JG_MASKED_FILL, t, NULL, &a);
}

static ct_tensor *ct__masked_select(const ct_tensor *t, const ct_tensor *mask)
{
    int64_t shape[CT_MAX_DIMS];
    int nd = 0;
    if (mask->dtype != CT_BOOL && mask->dtype != CT_U8) {
        ct__fail(CT_ERR_RUNTIME, "masked_select: expected BoolTensor or ByteTensor for mask");
        return NULL;
    }
    if (ct__broadcast_shapes(mask->sizes, mask->ndim, t->sizes, t->ndim, shape, &nd) != CT_OK) return NULL;
    ct_tensor tv, mv;
    ct__broadcast_view(&tv, t, shape, nd);
    ct__broadcast_view(&mv, mask, shape, nd);
    int64_t count = ct__mask_count(&mv);
    if (count < 0) return NULL;
    ct_tensor *out = ct__alloc(&count, 1, t->dtype, t->storage->device);
    if (out && count) {
        ct__index_job job;
        memset(&job, 0, sizeof job);
        job.kind = CT__INDEX_MASKED_SELECT;
        job.dst = out;
        job.src = &tv;
        job.index = &mv;
        ct__be(out)->index(&job);
    }
    return out;
}

ct_tensor *ct_masked_select(const ct_tensor *t, const ct_tensor *mask)
{
    CT__ARG(t, "input", 1);
    CT__ARG(mask, "mask", 2);
    ct_tensor *r = ct__masked_select(t, mask);
    if (!r || !ct__requires_grad(t)) return r;
    ct__join_args a = ct__index_args(0, mask);
    ct__broadcast_shapes(mask->sizes, mask->ndim, t->sizes, t->ndim, a.shape.size, &a.shape.ndim);
    return ct__join_recorded(r, CT__JG_MASKED_SELECT, t, NULL, &a);
}

/* ---------------------------------------------------------------- take and one_hot */

static ct_tensor *ct__take(const ct_tensor *t, const ct_tensor *index)
{
    static const int64_t one = 1;
    if (index->dtype != CT_I64) {
        ct__fail(CT_ERR_RUNTIME, "take(): Expected a long tensor for index, but got %s", ct__dtype_title(index->dtype));
        return NULL;
    }
    int64_t numel = ct_numel(t), n = ct_numel(index);
    if (numel == 0 && n != 0) {
        ct__fail(CT_ERR_INDEX, "take(): tried to take from an empty tensor");
        return NULL;
    }
    ct_tensor *out = ct__alloc(index->sizes, index->ndim, t->dtype, t->storage->device);
    if (!out || n == 0) return out;
    /* a gather along the only dim of t and index seen flat; the kernel checks the indices */
    ct_scope s = ct_scope_begin();
    ct_tensor *flat = ct_reshape(t, CT_SHAPE(-1)), *ix = ct_reshape(index, CT_SHAPE(-1)), ov;
    ct__index_job job = ct__job(CT__INDEX_GATHER, 0);
    job.negatives = true;
    ct__ix_subview(&ov, out, 0, &n, &one, 1);
    bool ok = flat && ix && ct__run_index(&job, &ov, flat, NULL, ix);
    if (flat && ix && !ok) {
        ct__index_job st = ct__index_stats(index, -numel, numel);
        ct__fail(CT_ERR_INDEX, "out of range: tried to access index %lld on a tensor of %lld elements.",
                 (long long)st.first_bad, (long long)numel);
    }
    ct_scope_end(s);
    if (!ok) ct__discard(out);
    return ok ? out : NULL;
}

ct_tensor *ct_take(const ct_tensor *t, const ct_tensor *index)
{
    CT__ARG(t, "input", 1);
    CT__ARG(index, "index", 2);
    ct_tensor *r;
    ct__join_args a = ct__index_args(0, index);
    CT__UNRECORDED(r, ct__take(t, index));
    return ct__join_recorded(r, CT__JG_TAKE, t, NULL, &a);
}

ct_tensor *ct_one_hot(const ct_tensor *t, int64_t num_classes)
{
    CT__ARG(t, "input", 1);
    if (t->dtype != CT_I64) {
        ct__fail(CT_ERR_RUNTIME, "one_hot is only applicable to index tensor.");
        return NULL;
    }
    if (t->ndim == CT_MAX_DIMS) {
        ct__fail(CT_ERR_VALUE, "one_hot: ctorch supports at most %d dimensions", CT_MAX_DIMS);
        return NULL;
    }
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    if (ct_numel(t) == 0) {
        if (num_classes <= 0) {
            ct__fail(CT_ERR_RUNTIME, "Can not infer total number of classes from empty tensor.");
            return NULL;
        }
        sizes[t->ndim] = num_classes;
        return ct__alloc(sizes, t->ndim + 1, CT_I64, t->storage->device);
    }
    ct__index_job st = ct__index_stats(t, 0, INT64_MAX);
    if (st.min < 0) {
        ct__fail(CT_ERR_RUNTIME, "Class values must be non-negative.");
        return NULL;
    }
    if (num_classes == -1) num_classes = st.max + 1;
    else if (num_classes <= st.max) {
        ct__fail(CT_ERR_RUNTIME, "Class values must be smaller than num_classes.");
        return NULL;
    }
    sizes[t->ndim] = num_classes;
    ct_tensor *out = ct_zeros(ct_shape_make(t->ndim + 1, sizes), CT_I64);
    if (!out) return NULL;
    /* scatter 1 along the new last dim at the class index */
    int64_t isizes[CT_MAX_DIMS], istrides[CT_MAX_DIMS];
    memcpy(isizes, t->sizes, sizeof isizes);
    memcpy(istrides, t->strides, sizeof istrides);
    isizes[t->ndim] = 1;
    istrides[t->ndim] = 1;
    ct_tensor iv;
    ct__ix_subview(&iv, t, t->offset, isizes, istrides, t->ndim + 1);
    int64_t one = 1;
    ct__index_job job = ct__job(CT__INDEX_SCATTER, t->ndim);
    ct__run_index(&job, out, NULL, &one, &iv);
    return out;
}

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

/* The values' node of sort, topk or kthvalue: the gradient goes back to
 * where the indices say (along dim, which `reduced` outputs lack). */
static void ct__sort_record(ct__op op, const ct__sort_job *job, ct_tensor *v, const ct_tensor *i, bool reduced)
{
    ct__reduce_rec rec = ct__reduce_rec_of(0, !reduced);
    rec.dim = job->dim;
    rec.alt = op == CT__OP_sort && job->stable;
    rec.indices = i;
    ct__record_reduce(op == CT__OP_sort ? CT__RG_SORT : op == CT__OP_topk ? CT__RG_TOPK : CT__RG_KTHVALUE, &v, 1,
                      job->input, &rec);
}

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
    if (r == CT_OK && v) ct__sort_record(op, job, v, i, reduced);
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
    ct__sort_clear_results(output, inverse, counts);
    CT__ARG_R(input, "input", 1);
    return ct__unique_dim(CT__OP_unique, input, dim, output, inverse, counts);
}

ct_result ct_unique_consecutive_dim(const ct_tensor *input, int dim, ct_tensor **output, ct_tensor **inverse,
                                    ct_tensor **counts)
{
    ct__sort_clear_results(output, inverse, counts);
    CT__ARG_R(input, "input", 1);
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
    const ct_tensor *c = ct__operand_as(t, common, false, ss);
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
/* exp, log, tanh and sigmoid run internal.h's vector math where the target
 * has AVX2, so that their loops vectorise; double tanh keeps the C
 * library's (the form for float cancels at small x). */
CT__UNARY_FL(exp, f, float, ct__vexpf(x))
CT__UNARY_FL(exp, d, double, ct__vexp(x))
CT__UNARY_LIBM(exp2, exp2)
CT__UNARY_LIBM(expm1, expm1)
CT__UNARY_FL(log, f, float, ct__vlogf(x))
CT__UNARY_FL(log, d, double, ct__vlog(x))
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
CT__UNARY_FL(tanh, f, float, ct__vtanhf(x))
CT__UNARY_FL(tanh, d, double, tanh(x))
CT__UNARY_LIBM(asinh, asinh)
CT__UNARY_LIBM(acosh, acosh)
CT__UNARY_LIBM(atanh, atanh)
CT__UNARY_LIBM(erf, erf)
CT__UNARY_LIBM(erfc, erfc)
/* (the C library's lgamma also stores the sign in the global signgam, which
 * OpenMP threads then write at once, as PyTorch's do; the values are unaffected) */
CT__UNARY_LIBM(lgamma, lgamma)
CT__UNARY_FL(sigmoid, f, float, ct__vsigmoidf(x))
CT__UNARY_FL(sigmoid, d, double, 1.0 / (1.0 + ct__vexp(-x)))
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

/* trigamma as PyTorch computes it: the reflection formula below 1/2, six
 * steps of the recurrence, then the asymptotic series */
#define CT__GEN_trigamma(fl, T, F)                                                        \
    static T ct__trigamma_##fl(T x)                                                       \
    {                                                                                     \
        const T pi = (T)3.14159265358979323846;                                           \
        T sign = 1, result = 0;                                                           \
        if (x < (T)0.5) {                                                                 \
            T s = F(sin)(pi * x);                                                         \
            sign = -1;                                                                    \
            result -= (pi * pi) / (s * s);                                                \
            x = 1 - x;                                                                    \
        }                                                                                 \
        for (int i = 0; i < 6; i++, x += 1) result += 1 / (x * x);                        \
        T ixx = 1 / (x * x);                                                              \
        result += (1 + 1 / (2 * x) + ixx * ((T)1 / 6 - ixx * ((T)1 / 30 - ixx * ((T)1 / 42)))) / x; \
        return sign * result;                                                             \
    }
CT__FLOATING(trigamma)

/* Hurwitz zeta(x, q) as PyTorch computes it (Cephes), in double for both
 * flavours (its ::pow and ::floor are C's double functions). */
#define CT__GEN_zeta(fl, T, F)                                                            \
    static T ct__zeta_##fl(T x, T q)                                                      \
    {                                                                                     \
        static const double A[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0,      \
            -1.8924375803183791606e9, 7.47242496e10, -2.950130727918164224e12,            \
            1.1646782814350067249e14, -4.5979787224074726105e15, 1.8152105401943546773e17, \
            -7.1661652561756670113e18};                                                   \
        const double macheps = 1.11022302462515654042E-16;                                \
        double a = q, b = 0, k = 0, s, t, w;                                              \
        int i = 0;                                                                        \
        if (x == 1) return (T)INFINITY;                                                   \
        if (x < 1) return (T)NAN;                                                         \
        if (q <= 0) {                                                                     \
            if (q == floor(q)) return (T)INFINITY;                                        \
            if (x != floor(x)) return (T)NAN;                                             \
        }                                                                                 \
        s = pow(q, -(double)x);                                                           \
        while (i < 9 || a <= 9.0) {                                                       \
            i++;                                                                          \
            a += 1;                                                                       \
            b = pow(a, -(double)x);                                                       \
            s += b;                                                                       \
            if (-macheps * s < b && b < macheps * s) return (T)s;                         \
        }                                                                                 \
        w = a;                                                                            \
        s += b * w / (x - 1.0);                                                           \
        s -= 0.5 * b;                                                                     \
        a = 1;                                                                            \
        for (int j = 0; j < 12; j++) {                                                    \
            a *= x + k;                                                                   \
            b /= w;                                                                       \
            t = a * b / A[j];                                                             \
            s = s + t;                                                                    \
            if (fabs(t / s) < macheps) return (T)s;                                       \
            k += 1;                                                                       \
            a *= x + k;                                                                   \
            b /= w;                                                                       \
            k += 1;                                                                       \
        }                                                                                 \
        return (T)s;                                                                      \
    }
CT__FLOATING(zeta)

/* polygamma(n, x) (n in mode): digamma and trigamma for n 0 and 1, else
 * (-1)^(n+1) n! zeta(n + 1, x) with n! as exp(lgamma(n + 1)), in double as
 * PyTorch's calls of C's exp and lgamma are */
#define CT__GEN_polygamma(fl, T, F)                                                       \
    static inline T ct__polygamma_##fl(T x, const ct__op_args *a)                         \
    {                                                                                     \
        int n = a->mode;                                                                  \
        if (n == 0) return ct__digamma_##fl(x, a);                                        \
        if (n == 1) return ct__trigamma_##fl(x);                                          \
        return (T)((n % 2 ? 1.0 : -1.0) * exp(lgamma((double)((T)n + 1))) * ct__zeta_##fl((T)(n + 1), x)); \
    }
CT__FLOATING(polygamma)

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
    X(erfinv, UNARY, FLOATS) X(lgamma, UNARY, FLOATS) X(digamma, UNARY, FLOATS) X(polygamma, UNARY, FLOATS) \
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

/* ---------------------------------------------------------------- selection */

/* For each key type: an (element, index) pair and the lower median by
 * (value, index) order, which ties cannot make depend on the algorithm. */
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

/* mode: the row sorted as PyTorch's std::sort with operator< on the values
 * leaves it (sort.c's replay), then the first longest run of equal values
 * (a NaN equals nothing) wins and reports the index at its end. */
static void ct__mode_row(const ct__row *r, ct_dtype dt)
{
    ct__sort_kv *a = (ct__sort_kv *)r->scratch;
    const uint64_t nan = ct__sort_nan_key(dt);
    int64_t best = 0, at = 0, run = 0;
    ct__sort_load_keys(dt, r->in, r->is, r->n, 0, a);
    ct__std_sort_values(a, a + r->n, nan);
    for (int64_t i = 0; i < r->n; i++) {
        run++;
        if (i == r->n - 1 || a[i].key != a[i + 1].key || (nan && a[i].key == nan)) {
            if (run > best) best = run, at = a[i].idx;
            run = 0;
        }
    }
    memcpy(r->val, r->in + at * r->is, ct_dtype_size(dt));
    *(int64_t *)r->idx = at;
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

/* The ops every dtype has. name, dtype, storage type, key type and its pair
 * type, accumulate type of cumsum (integers in uint64_t, which wraps). */
#define CT__ROWS_ALL(name, DT, T, V, kn, A)                                                               \
    CT__ROW_EXTREME(name, T, V, CT__LOAD_##name)                                                          \
    CT__ROW_MEDIAN(name, T, V, CT__LOAD_##name, kn)                                                       \
    CT__ROW_CUMEXT(name, T, V, CT__LOAD_##name)                                                           \
    CT__ROW_CUM(name, T, A, CT__LOAD_##name, CT__STORE_##name)                                            \
    static void ct__row_##name(const ct__row *r, ct__aop op, bool last)                                   \
    {                                                                                                     \
        (void)last;                                                                                       \
        switch (op) {                                                                                     \
        case CT__AOP_MAX: case CT__AOP_ARGMAX: ct__ext_##name(r, true); break;                            \
        case CT__AOP_MIN: case CT__AOP_ARGMIN: ct__ext_##name(r, false); break;                           \
        case CT__AOP_MEDIAN: ct__median_##name(r); break;                                                 \
        case CT__AOP_MODE: ct__mode_row(r, DT); break;                                                    \
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
 * its functions; softmax's type, its functions and its rounding (softmax's
 * exp is internal.h's, whose loops vectorise) */
CT__ROWS_FLOAT(f32, float, double, log1p, exp, float, ct__vexpf, logf, CT__KEEP, 1)
CT__ROWS_FLOAT(f64, double, double, log1p, exp, double, ct__vexp, log, CT__KEEP, 1)
CT__ROWS_FLOAT(bf16, uint16_t, float, log1pf, expf, float, ct__vexpf, logf, ct__rb, 0)
CT__ROWS_NOFLOAT(b8)
CT__ROWS_NOFLOAT(u8)
CT__ROWS_NOFLOAT(i8)
CT__ROWS_NOFLOAT(i16)
CT__ROWS_NOFLOAT(i32)
CT__ROWS_NOFLOAT(i64)
CT__ROWS_NOFLOAT(f16)
CT__ROWS_ALL(b8, CT_BOOL, uint8_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(u8, CT_U8, uint8_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(i8, CT_I8, int8_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(i16, CT_I16, int16_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(i32, CT_I32, int32_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(i64, CT_I64, int64_t, int64_t, i64, uint64_t)
CT__ROWS_ALL(f16, CT_F16, uint16_t, float, f32, float)
CT__ROWS_ALL(bf16, CT_BF16, uint16_t, float, f32, float)
CT__ROWS_ALL(f32, CT_F32, float, float, f32, double)
CT__ROWS_ALL(f64, CT_F64, double, double, f64, double)

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
/* The join family's CPU kernels (ct__index_job, src/ops/join_ops.h): gather
 * and scatter along a dim, masks, index statistics, repeat_interleave's index.
 *
 * Gather and scatter run as PyTorch's cpu_scatter_gather_base_kernel does:
 * the iterator walks every position of index with dim squashed, and the dim
 * is a loop of its own. Positions of one walk write disjoint elements, so
 * they split across threads; along dim, elements are visited in index order,
 * which is what makes duplicates resolve as in PyTorch (the last write wins,
 * sums accumulate in order). */

/* ---------------------------------------------------------------- walks */

/* Loops that only move elements come in four sizes: 1, 2, 4 and 8 bytes. */
static int ct__size_class(size_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3; }

/* An iterator over ops (all of ops[0]'s rank and sizes) in row-major order,
 * dims neither reordered nor merged: for kernels whose output depends on the
 * order of visits (masked_select, the first bad index). */
static void ct__iter_rowmajor(ct__iter *it, int nops, const ct_tensor *const *ops)
{
    const ct_tensor *t = ops[0];
    memset(it, 0, sizeof *it);
    it->nops = nops;
    it->ndim = t->ndim ? t->ndim : 1;
    it->shape[0] = 1;
    it->numel = 1;
    for (int k = 0; k < t->ndim; k++) {
        int d = t->ndim - 1 - k;
        it->shape[k] = t->sizes[d];
        it->numel *= t->sizes[d];
        for (int i = 0; i < nops; i++) it->strides[k][i] = ops[i]->strides[d] * (int64_t)ct__esize(ops[i]);
    }
    for (int i = 0; i < nops; i++) it->data[i] = ct__data(ops[i]);
}

/* ---------------------------------------------------------------- index statistics */

/* min, max, sum and nonzero count; the chunk that holds the first value
 * outside [lo, hi) is read again to find it (the walk is row-major) */
#define CT__STATS_LOOP(T)                                                                        \
    static void ct__stats_##T(char **d, const int64_t *s, int64_t n, void *ctx)                  \
    {                                                                                            \
        ct__index_job *job = (ct__index_job *)ctx;                                               \
        int64_t lo = job->min, hi = job->max, nz = 0;                                            \
        uint64_t sum = (uint64_t)job->sum;                                                       \
        for (int64_t k = 0; k < n; k++) {                                                        \
            int64_t v = (int64_t) * (const T *)(d[0] + k * s[0]);                                \
            lo = v < lo ? v : lo;                                                                \
            hi = v > hi ? v : hi;                                                                \
            nz += v != 0;                                                                        \
            sum += (uint64_t)v;                                                                  \
        }                                                                                        \
        for (int64_t k = 0; !job->out_of_range && (lo < job->lo || hi >= job->hi) && k < n; k++) { \
            int64_t v = (int64_t) * (const T *)(d[0] + k * s[0]);                                \
            if (v < job->lo || v >= job->hi) job->out_of_range = true, job->first_bad = v;        \
        }                                                                                        \
        job->min = lo, job->max = hi, job->nonzero += nz, job->sum = (int64_t)sum;               \
    }
CT__STATS_LOOP(int64_t)
CT__STATS_LOOP(int32_t)
CT__STATS_LOOP(uint8_t)
#undef CT__STATS_LOOP

static void ct__cpu_index_stats(ct__index_job *job)
{
    const ct_tensor *ops[1] = {job->index};
    ct__iter it;
    ct__loop_fn fn = job->index->dtype == CT_I64 ? ct__stats_int64_t
                     : job->index->dtype == CT_I32 ? ct__stats_int32_t
                                                   : ct__stats_uint8_t;
    job->min = INT64_MAX;
    job->max = INT64_MIN;
    ct__iter_rowmajor(&it, 1, ops);
    ct__iter_serial(&it, fn, job);
}

/* ---------------------------------------------------------------- gather and scatter */

/* The walk's geometry. Gather reads src at index values and writes dst along
 * dim; scatter writes dst at index values and reads src along dim. */
typedef struct ct__gs_geom {
    int64_t k;                  /* index.size(dim) */
    int64_t lo, size;           /* indices lie in [lo, size); negative ones add size */
    int64_t dst_step, src_step; /* bytes per step along dim */
    int64_t idx_i;              /* index's bytes per step along dim */
    const void *alpha;
    int bad; /* counts walks that met an index out of range (and stopped) */
} ct__gs_geom;

/* One element of each combination: o is the written element, v the read
 * one, n names the dtype (the storage type for plain copies). */
#define CT__SET(T, o, v, al) (*(T *)(o) = *(const T *)(v))
#define CT__LOAD(n, p) ct__load_##n(*(const ct__##n##_t *)(p))
/* Integers and bool in int64 with wrapping, stored with c10's conversions
 * (bool: a + alpha * b != 0 is `a || (alpha && b)`, as bool arithmetic gives). */
#define CT__ADD_I(n, o, v, al)                                                                   \
    (*(ct__##n##_t *)(o) = ct__to_##n##_from_i64(                                                \
         (int64_t)((uint64_t)CT__LOAD(n, o) + (uint64_t)CT__LOAD(n, al) * (uint64_t)CT__LOAD(n, v))))
#define CT__MUL_I(n, o, v, al) \
    (*(ct__##n##_t *)(o) = ct__to_##n##_from_i64((int64_t)((uint64_t)CT__LOAD(n, o) * (uint64_t)CT__LOAD(n, v))))
/* float16 and bfloat16 as c10::Half arithmetic: each operation rounds. */
#define CT__ROUND_H(n, x) ct__load_##n(ct__to_##n##_from_f64(x))
#define CT__ADD_H(n, o, v, al)                                                                   \
    (*(ct__##n##_t *)(o) = ct__to_##n##_from_f64(                                                \
         (float)CT__LOAD(n, o) + (float)CT__ROUND_H(n, (float)CT__LOAD(n, al) * (float)CT__LOAD(n, v))))
#define CT__MUL_H(n, o, v, al) \
    (*(ct__##n##_t *)(o) = ct__to_##n##_from_f64((float)CT__LOAD(n, o) * (float)CT__LOAD(n, v)))
/* float and double: a + alpha * b rounded twice (the product through a
 * volatile, so that no compiler fuses it), or once (fma) where PyTorch's
 * vectorised add fuses it; with alpha 1 both are a + b. */
#define CT__ADD_F(n, o, v, al)                                                                   \
    do {                                                                                         \
        volatile ct__##n##_t p_ = *(const ct__##n##_t *)(al) * *(const ct__##n##_t *)(v);        \
        *(ct__##n##_t *)(o) += p_;                                                               \
    } while (0)
#define CT__ADD1_F(n, o, v, al) (*(ct__##n##_t *)(o) += *(const ct__##n##_t *)(v))
#define CT__MUL_F(n, o, v, al) (*(ct__##n##_t *)(o) *= *(const ct__##n##_t *)(v))
#define CT__FMA_F(n, o, v, al) \
    (*(ct__##n##_t *)(o) = CT__FMA_##n(*(const ct__##n##_t *)(al), *(const ct__##n##_t *)(v), *(ct__##n##_t *)(o)))
#define CT__FMA_f32 fmaf
#define CT__FMA_f64 fma
/* Which of those each dtype takes. */
#define CT__ARITH_b8 I
#define CT__ARITH_u8 I
#define CT__ARITH_i8 I
#define CT__ARITH_i16 I
#define CT__ARITH_i32 I
#define CT__ARITH_i64 I
#define CT__ARITH_f16 H
#define CT__ARITH_bf16 H
#define CT__ARITH_f32 F
#define CT__ARITH_f64 F

/* Read index value x at p; leave the walk on one out of range (one unsigned
 * compare for [lo, size)). */
#define CT__GS_INDEX(x, p)                                                                       \
    int64_t x = *(const int64_t *)(p);                                                           \
    if (CT__UNLIKELY((uint64_t)x - (uint64_t)g.lo >= (uint64_t)g.size - (uint64_t)g.lo)) {       \
        CT__ATOMIC_INC(&((ct__gs_geom *)ctx)->bad);                                              \
        return;                                                                                  \
    }                                                                                            \
    x += x < 0 ? g.size : 0

/* The offsets of step i along dim with index value x in the written element
 * (o) and the read one (v), for strides so and sv: G is 1 for gather, 0 for
 * scatter. */
#define CT__GS_O(G, i, x, so) (((G) ? (i) : (x)) * (so))
#define CT__GS_V(G, i, x, sv) (((G) ? (x) : (i)) * (sv))

/* The walk: for each of n positions and each of k steps along dim, combine
 * the elements index[j, i] points at: COMBINE(N, o, v, alpha) on elements
 * of type T. The loops nest as memory does: steps along dim inside when they
 * are closer together than positions, or when there is one position (take),
 * with element-sized steps as constants so that the common case is a plain
 * indexed loop; positions inside otherwise, where an index shared by all
 * positions (an expanded one, as index_select's) is read once per step. */
#define CT__GS_LOOP(name, T, N, COMBINE, G)                                                       \
    static void ct__gs_##name(char **d, const int64_t *s, int64_t n, void *ctx)                  \
    {                                                                                            \
        const ct__gs_geom g = *(const ct__gs_geom *)ctx;                                         \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        if (n == 1 || llabs(g.dst_step) < llabs(s[0])) {                                         \
            bool unit = g.dst_step == es && g.src_step == es && g.idx_i == (int64_t)sizeof(int64_t); \
            for (int64_t j = 0; j < n; j++) {                                                    \
                char *o = d[0] + j * s[0];                                                       \
                const char *v = d[1] + j * s[1], *ix = d[2] + j * s[2];                           \
                if (unit) {                                                                      \
                    for (int64_t i = 0; i < g.k; i++) {                                          \
                        CT__GS_INDEX(x, ix + i * (int64_t)sizeof(int64_t));                      \
                        COMBINE(N, o + CT__GS_O(G, i, x, es), v + CT__GS_V(G, i, x, es), g.alpha); \
                    }                                                                            \
                    continue;                                                                    \
                }                                                                                \
                for (int64_t i = 0; i < g.k; i++) {                                              \
                    CT__GS_INDEX(x, ix + i * g.idx_i);                                           \
                    COMBINE(N, o + CT__GS_O(G, i, x, g.dst_step), v + CT__GS_V(G, i, x, g.src_step), g.alpha); \
                }                                                                                \
            }                                                                                    \
            return;                                                                              \
        }                                                                                        \
        for (int64_t i = 0; i < g.k; i++) {                                                      \
            char *o = d[0] + CT__GS_O(G, i, 0, g.dst_step);                                      \
            const char *v = d[1] + CT__GS_V(G, i, 0, g.src_step), *ix = d[2] + i * g.idx_i;       \
            if (s[2] == 0) {                                                                     \
                CT__GS_INDEX(x, ix);                                                             \
                o += CT__GS_O(G, 0, x, g.dst_step);                                              \
                v += CT__GS_V(G, 0, x, g.src_step);                                              \
                for (int64_t j = 0; j < n; j++) COMBINE(N, o + j * s[0], v + j * s[1], g.alpha);  \
                continue;                                                                        \
            }                                                                                    \
            for (int64_t j = 0; j < n; j++) {                                                    \
                CT__GS_INDEX(x, ix + j * s[2]);                                                  \
                COMBINE(N, o + j * s[0] + CT__GS_O(G, 0, x, g.dst_step), v + j * s[1] + CT__GS_V(G, 0, x, g.src_step), \
                        g.alpha);                                                                \
            }                                                                                    \
        }                                                                                        \
    }

/* Plain copies (gather, and scatter that replaces) by element size, with
 * whole blocks as one memcpy when one index serves every position and both
 * operands are contiguous along the walk. */
#define CT__GS_SET_LOOP(name, T, G)                                                              \
    CT__GS_LOOP(name##_any, T, T, CT__SET, G)                                                    \
    static void ct__gs_##name(char **d, const int64_t *s, int64_t n, void *ctx)                  \
    {                                                                                            \
        const ct__gs_geom g = *(const ct__gs_geom *)ctx;                                         \
        if (s[2] != 0 || s[0] != (int64_t)sizeof(T) || s[1] != (int64_t)sizeof(T)) {             \
            ct__gs_##name##_any(d, s, n, ctx);                                                   \
            return;                                                                              \
        }                                                                                        \
        for (int64_t i = 0; i < g.k; i++) {                                                      \
            CT__GS_INDEX(x, d[2] + i * g.idx_i);                                                 \
            memcpy(d[0] + CT__GS_O(G, i, x, g.dst_step), d[1] + CT__GS_V(G, i, x, g.src_step),   \
                   (size_t)n * sizeof(T));                                                       \
        }                                                                                        \
    }
#define CT__GS_SET_LOOPS(T) CT__GS_SET_LOOP(gather_##T, T, 1) CT__GS_SET_LOOP(scatter_##T, T, 0)
CT__GS_SET_LOOPS(uint8_t)
CT__GS_SET_LOOPS(uint16_t)
CT__GS_SET_LOOPS(uint32_t)
CT__GS_SET_LOOPS(uint64_t)
#undef CT__GS_SET_LOOPS

/* scatter's add and mul for every dtype, and the fused adds */
#define CT__GS_ARITH(n, DT, _)                                                                   \
    CT__GS_LOOP(add_##n, ct__##n##_t, n, CT__CAT(CT__ADD_, CT__ARITH_##n), 0)                    \
    CT__GS_LOOP(mul_##n, ct__##n##_t, n, CT__CAT(CT__MUL_, CT__ARITH_##n), 0)
CT__DTYPES_A(CT__GS_ARITH, _)
CT__GS_LOOP(fma_f32, float, f32, CT__FMA_F, 0)
CT__GS_LOOP(fma_f64, double, f64, CT__FMA_F, 0)
CT__GS_LOOP(add1_f32, float, f32, CT__ADD1_F, 0)
CT__GS_LOOP(add1_f64, double, f64, CT__ADD1_F, 0)
#undef CT__GS_ARITH

/* The loop for a job: plain copies by element size, arithmetic by dtype. */
static ct__loop_fn ct__gs_loop(const ct__index_job *job)
{
    static const ct__loop_fn gather[4] = {ct__gs_gather_uint8_t, ct__gs_gather_uint16_t, ct__gs_gather_uint32_t,
                                          ct__gs_gather_uint64_t};
    static const ct__loop_fn scatter[4] = {ct__gs_scatter_uint8_t, ct__gs_scatter_uint16_t, ct__gs_scatter_uint32_t,
                                           ct__gs_scatter_uint64_t};
    ct_dtype dt = job->dst->dtype;
    if (job->kind == CT__INDEX_GATHER) return gather[ct__size_class(ct_dtype_size(dt))];
    if (job->kind == CT__INDEX_SCATTER) return scatter[ct__size_class(ct_dtype_size(dt))];
    if (job->kind == CT__INDEX_SCATTER_ADD && dt == CT_F32) {
        float alpha = *(const float *)job->alpha;
        return alpha == 1 ? ct__gs_add1_f32 : job->fused ? ct__gs_fma_f32 : ct__gs_add_f32;
    }
    if (job->kind == CT__INDEX_SCATTER_ADD && dt == CT_F64) {
        double alpha = *(const double *)job->alpha;
        return alpha == 1 ? ct__gs_add1_f64 : job->fused ? ct__gs_fma_f64 : ct__gs_add_f64;
    }
    switch (dt) {
#define CT__GS_CASE(n, DT, _) \
    case DT: return job->kind == CT__INDEX_SCATTER_ADD ? ct__gs_add_##n : ct__gs_mul_##n;
        CT__DTYPES_A(CT__GS_CASE, _)
#undef CT__GS_CASE
    default: return NULL;
    }
}

static void ct__cpu_gather_scatter(ct__index_job *job)
{
    const ct_tensor *ix = job->index, *indexed = job->kind == CT__INDEX_GATHER ? job->src : job->dst;
    int d = job->dim, nd = ix->ndim;
    int64_t sizes[CT_MAX_DIMS], es = (int64_t)ct__esize(job->dst);
    ct__gs_geom g;
    g.k = ix->sizes[d];
    g.size = indexed->sizes[d];
    g.lo = job->negatives ? -g.size : 0;
    g.dst_step = job->dst->strides[d] * es;
    g.src_step = job->src->strides[d] * es;
    g.idx_i = ix->strides[d] * (int64_t)sizeof(int64_t);
    g.alpha = job->alpha;
    g.bad = 0;
    /* the walk: every operand over index's positions, dim squashed to size 1 */
    memcpy(sizes, ix->sizes, (size_t)nd * sizeof(int64_t));
    sizes[d] = 1;
    ct_tensor v[3];
    const ct_tensor *base[3] = {job->dst, job->src, ix}, *ops[3] = {&v[0], &v[1], &v[2]};
    for (int i = 0; i < 3; i++) ct__ix_subview(&v[i], base[i], base[i]->offset, sizes, base[i]->strides, nd);
    ct__iter it;
    ct__iter_init(&it, 3, ops);
    ct__iter_job run = {&it, ct__gs_loop(job), &g};
    if (job->serial) ct__iter_serial(&it, run.fn, &g);
    else ct__parallel_for(it.numel, CT__MAX(CT__GRAIN / CT__MAX(g.k, 1), 1), ct__iter_job_run, &run);
    job->out_of_range = g.bad != 0;
}

/* ---------------------------------------------------------------- masks */

/* dst[k] = value where mask[k] (the mask is 0 or 1 bytes) */
#define CT__MASKED_FILL_LOOP(T)                                                                  \
    static void ct__masked_fill_##T(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        T v;                                                                                     \
        memcpy(&v, ctx, sizeof v);                                                               \
        for (int64_t k = 0; k < n; k++)                                                          \
            if (*(const uint8_t *)(d[1] + k * s[1])) *(T *)(d[0] + k * s[0]) = v;                 \
    }
/* out[c++] = src[k] where mask[k], in the order of the walk; ctx holds the
 * output cursor (a char *) */
#define CT__MASKED_SELECT_LOOP(T)                                                                \
    static void ct__masked_select_##T(char **d, const int64_t *s, int64_t n, void *ctx)          \
    {                                                                                            \
        T *out = (T *)*(char **)ctx;                                                             \
        for (int64_t k = 0; k < n; k++)                                                          \
            if (*(const uint8_t *)(d[1] + k * s[1])) *out++ = *(const T *)(d[0] + k * s[0]);     \
        *(char **)ctx = (char *)out;                                                             \
    }
CT__MASKED_FILL_LOOP(uint8_t)
CT__MASKED_FILL_LOOP(uint16_t)
CT__MASKED_FILL_LOOP(uint32_t)
CT__MASKED_FILL_LOOP(uint64_t)
CT__MASKED_SELECT_LOOP(uint8_t)
CT__MASKED_SELECT_LOOP(uint16_t)
CT__MASKED_SELECT_LOOP(uint32_t)
CT__MASKED_SELECT_LOOP(uint64_t)
#undef CT__MASKED_FILL_LOOP
#undef CT__MASKED_SELECT_LOOP

static void ct__cpu_masked_fill(const ct__index_job *job)
{
    static const ct__loop_fn fill[4] = {ct__masked_fill_uint8_t, ct__masked_fill_uint16_t, ct__masked_fill_uint32_t,
                                        ct__masked_fill_uint64_t};
    const ct_tensor *ops[2] = {job->dst, job->index};
    ct__loop_fn fn = fill[ct__size_class(ct__esize(job->dst))];
    ct__iter it;
    ct__iter_init(&it, 2, ops);
    if (job->serial) ct__iter_serial(&it, fn, ct__data(job->src));
    else ct__iter_parallel(&it, fn, ct__data(job->src));
}

static void ct__cpu_masked_select(const ct__index_job *job)
{
    static const ct__loop_fn select[4] = {ct__masked_select_uint8_t, ct__masked_select_uint16_t,
                                          ct__masked_select_uint32_t, ct__masked_select_uint64_t};
    const ct_tensor *ops[2] = {job->src, job->index};
    char *out = ct__data(job->dst);
    ct__iter it;
    ct__iter_rowmajor(&it, 2, ops);
    ct__iter_serial(&it, select[ct__size_class(ct__esize(job->dst))], &out);
}

/* ---------------------------------------------------------------- repeat_interleave's index */

#define CT__REPEATS_LOOP(T)                                                                      \
    static void ct__repeats_##T(T *out, const char *rep, int64_t stride, int64_t n)              \
    {                                                                                            \
        for (int64_t i = 0; i < n; i++)                                                          \
            for (T r = *(const T *)(rep + i * stride); r > 0; r--) *out++ = (T)i;                \
    }
CT__REPEATS_LOOP(int64_t)
CT__REPEATS_LOOP(int32_t)
#undef CT__REPEATS_LOOP

static void ct__cpu_repeats(const ct__index_job *job)
{
    const ct_tensor *rep = job->src;
    int64_t stride = rep->strides[0] * (int64_t)ct__esize(rep);
    if (rep->dtype == CT_I64) ct__repeats_int64_t((int64_t *)ct__data(job->dst), ct__data(rep), stride, rep->sizes[0]);
    else ct__repeats_int32_t((int32_t *)ct__data(job->dst), ct__data(rep), stride, rep->sizes[0]);
}

static void ct__cpu_index(ct__index_job *job)
{
    switch (job->kind) {
    case CT__INDEX_STATS: ct__cpu_index_stats(job); break;
    case CT__INDEX_MASKED_FILL: ct__cpu_masked_fill(job); break;
    case CT__INDEX_MASKED_SELECT: ct__cpu_masked_select(job); break;
    case CT__INDEX_REPEATS: ct__cpu_repeats(job); break;
    default: ct__cpu_gather_scatter(job); break;
    }
}

/* ==================== cpu/sort.c ==================== */
// >>cpu/sort.c
/* Sorting and selection kernels on the CPU, and the sorting that mode and
 * multinomial share (declared in iter.h).
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

static inline void ct__sort_kv_swap(ct__sort_kv *a, ct__sort_kv *b)
{
    ct__sort_kv t = *a;
    *a = *b;
    *b = t;
}

/* ---------------------------------------------------------------- keys */

/* IEEE bits to a key: positives above negatives, negatives reversed, -0
 * and 0 one key, every NaN the largest. Written as selects, not branches:
 * signs, zeros (zero probabilities in multinomial) and NaNs come mixed in
 * real data, and mispredicting them cost more than the sort of a short row. */
static inline uint64_t ct__key_ieee(uint64_t bits, uint64_t sign, uint64_t all, uint64_t inf)
{
    uint64_t mag = bits & ~sign, neg = (uint64_t)(((bits & sign) != 0) & (mag != 0));
    uint64_t key = mag ^ sign ^ ((0 - neg) & all); /* mag | sign, or its complement when negative */
    return mag > inf ? all : key;
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

static void ct__sort_load_keys(ct_dtype dt, const char *src, int64_t stride, int64_t n, uint64_t flip,
                               ct__sort_kv *kv)
{
    ct__key_loaders[dt](src, stride, n, flip, kv);
}

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
 * LESS(a, b, ctx) of two ct__sort_kv pointers, stamped out once per
 * comparison: it runs inline in the inner loops, where calling it through a
 * pointer makes std::sort of a million keys some 15-20% slower. The final
 * insertion pass, which libstdc++ leaves unguarded, is bounded by the array
 * as well: that changes nothing for a consistent comparison and keeps an
 * inconsistent one (values or rows holding NaN) in bounds. The partition
 * needs no bound for any comparison that calls nothing less than itself: its
 * scans stop at the pivot, or at the elements they last swapped. */
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

/* operator< on values when some are NaN: the NaN key is the largest, so only
 * b can be a NaN that the keys call larger */
#define CT__VALUE_LESS(a, b, ctx) ((a)->key < (b)->key && (b)->key != *(const uint64_t *)(ctx))
CT__DEFINE_STD_SORT(nan, CT__VALUE_LESS)

static void ct__std_sort_values(ct__sort_kv *first, ct__sort_kv *last, uint64_t nan)
{
    const ct__sort_kv *p = first;
    while (nan && p < last && p->key != nan) p++;
    if (nan && p < last) ct__std_sort_nan(first, last, &nan);
    else ct__std_sort_kv(first, last, NULL); /* the same comparisons without NaN */
}

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

static void ct__std_topk(ct__sort_kv *kv, int64_t n, int64_t k, bool sorted)
{
    if (k <= n / 64) {
        ct__std_partial_sort_kv(kv, kv + k, kv + n, NULL);
    } else {
        ct__std_nth_element(kv, kv + k - 1, kv + n);
        if (sorted) ct__std_sort_kv(kv, kv + k - 1, NULL);
    }
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

static void ct__slice_topk(const ct__slices *s, char *idx, const char *in, char *val, ct__sort_kv *kv)
{
    s->load(in, s->in_stride, s->n, s->flip, kv);
    ct__std_topk(kv, s->n, s->k, s->sorted);
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
        for (int64_t p = s.head; p >= 0; p = s.next[p]) order[m++] = kv[p];
        if (job->sorted) ct__std_sort_values(order, order + m, nan);
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

/* float32 and float64 to bfloat16 on contiguous data: PyTorch's vectorised
 * loop writes NaN as 0xffff where its scalar loop (and the one above) writes
 * 0x7fc0; for float64 the vector loop covers whole blocks of 16 elements of
 * each call. ctx is the source dtype. */
static void ct__cast_to_bf16_vectorised(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    ct_dtype src = *(const ct_dtype *)ctx;
    ct__cast_loops[src][CT_BF16](data, strides, n, NULL);
    if (strides[0] != 2 || strides[1] != (int64_t)ct_dtype_size(src)) return;
    int64_t vec = src == CT_F64 ? n - n % 16 : n;
    uint16_t *d = (uint16_t *)data[0];
    for (int64_t i = 0; i < vec; i++)
        if (d[i] == 0x7fc0 && ct__read_f64(data[1] + i * strides[1], src) != ct__read_f64(data[1] + i * strides[1], src))
            d[i] = 0xffff;
}

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
    ct_dtype src_dtype = src->dtype;
    if (dst->dtype == CT_BF16 && (src_dtype == CT_F32 || src_dtype == CT_F64)) fn = ct__cast_to_bf16_vectorised;
    ct__iter_parallel(&it, fn, &src_dtype);
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
                                            ct__cpu_has_pointwise, ct__cpu_pointwise, ct__cpu_index, ct__cpu_sorting,
                                            &ct__cpu_reduce_kernels};
static const ct__backend *ct__backends[CT_NUM_DEVICE_TYPES] = {&ct__cpu_backend, NULL};

static const ct__backend *ct__backend_for(ct_device_type type) { return ct__backends[type]; }

/* ==================== data/dataset.c ==================== */
// >>data/dataset.c
/* Datasets (torch/utils/data/dataset.py): the map-style and iterable-style
 * interfaces, TensorDataset, Subset, ConcatDataset, random_split, and a
 * dataset that transforms one field of another's samples. Every built-in
 * dataset is a ct_dataset_desc with its own user data, so the loader sees
 * one kind of object. */

struct ct_dataset {
    int refcount;
    bool iterable;
    ct_dataset_desc map;
    ct_iterable_desc it;
};

void ct_sample_release(ct_sample *s)
{
    if (!s) return;
    for (int k = 0; k < s->n; k++) ct_release(s->field[k]);
    s->n = 0;
}

ct_result ct_dataset_raise(ct_result code, const char *message)
{
    return ct__fail(code == CT_OK ? CT_ERR_RUNTIME : code, "%s", message ? message : "");
}

static ct_dataset *ct__dataset_alloc(bool iterable)
{
    ct_dataset *d = (ct_dataset *)CT_MALLOC(sizeof *d);
    if (!d) {
        CT__OOM();
        return NULL;
    }
    memset(d, 0, sizeof *d);
    d->refcount = 1;
    d->iterable = iterable;
    return d;
}

ct_dataset *ct_dataset_new(ct_dataset_desc desc)
{
    if (!desc.len || !desc.get_item) {
        ct__fail(CT_ERR_VALUE, "ct_dataset_new(): a map-style dataset needs len and get_item");
        return NULL;
    }
    ct_dataset *d = ct__dataset_alloc(false);
    if (d) d->map = desc;
    else if (desc.free) desc.free(desc.user);
    return d;
}

/* A built-in map-style dataset over its own user data. */
static ct_dataset *ct__map_dataset(int64_t (*len)(void *), ct_result (*get_item)(void *, int64_t, ct_sample *),
                                   void (*free_user)(void *), void *user)
{
    ct_dataset_desc desc;
    desc.len = len;
    desc.get_item = get_item;
    desc.free = free_user;
    desc.user = user;
    return ct_dataset_new(desc);
}

ct_dataset *ct_iterable_dataset_new(ct_iterable_desc desc)
{
    if (!desc.iter || !desc.next) {
        ct__fail(CT_ERR_VALUE, "ct_iterable_dataset_new(): an iterable dataset needs iter and next");
        return NULL;
    }
    ct_dataset *d = ct__dataset_alloc(true);
    if (d) d->it = desc;
    else if (desc.free) desc.free(desc.user);
    return d;
}

ct_dataset *ct_dataset_retain(ct_dataset *d)
{
    if (d) CT__ATOMIC_INC(&d->refcount);
    return d;
}

void ct_dataset_free(ct_dataset *d)
{
    if (!d || CT__ATOMIC_DEC(&d->refcount) != 0) return;
    void (*free_user)(void *) = d->iterable ? d->it.free : d->map.free;
    if (free_user) free_user(d->iterable ? d->it.user : d->map.user);
    CT_FREE(d);
}

static ct_result ct__null_dataset(const char *fn)
{
    if (ct_last_error_code() != CT_OK) return ct_last_error_code();
    return ct__fail(CT_ERR_TYPE, "%s(): argument 'dataset' must be a dataset, not NULL", fn);
}

int64_t ct_dataset_len(const ct_dataset *d)
{
    if (!d) return ct__null_dataset("dataset_len");
    if (d->iterable) return ct__fail(CT_ERR_TYPE, "object of type 'IterableDataset' has no len()");
    return d->map.len(d->map.user);
}

/* The sample's tensors are handed out of the scope get_item ran in. */
static void ct__keep_sample(ct_sample *s)
{
    for (int k = 0; k < s->n; k++) ct_keep(s->field[k]);
}

static ct_result ct__check_sample(const ct_sample *s, ct_result r)
{
    if (r != CT_OK) return ct_last_error_code() != CT_OK ? ct_last_error_code() : r;
    if (s->n < 0 || s->n > CT_SAMPLE_MAX)
        return ct__fail(CT_ERR_VALUE, "a sample holds at most %d tensors, not %d", CT_SAMPLE_MAX, s->n);
    for (int k = 0; k < s->n; k++)
        if (!s->field[k]) return ct__fail(CT_ERR_TYPE, "sample field %d is NULL", k);
    return CT_OK;
}

ct_result ct_dataset_get(ct_dataset *d, int64_t index, ct_sample *out)
{
    if (!d) return ct__null_dataset("dataset_get");
    if (!out) return ct__fail(CT_ERR_TYPE, "dataset_get(): argument 'out' must be a sample, not NULL");
    if (d->iterable)
        return ct__fail(CT_ERR_NOT_IMPLEMENTED, "an IterableDataset has no __getitem__: iterate it with a loader");
    ct_sample s;
    memset(&s, 0, sizeof s);
    ct_scope scope = ct_scope_begin();
    ct_result r = ct__check_sample(&s, d->map.get_item(d->map.user, index, &s));
    if (r == CT_OK) ct__keep_sample(&s);
    ct_scope_end(scope);
    out->n = 0;
    if (r == CT_OK) *out = s;
    return r;
}

/* ---------------------------------------------------------------- TensorDataset */

typedef struct ct__tensor_ds {
    int n;
    ct_tensor *t[CT_SAMPLE_MAX];
} ct__tensor_ds;

static int64_t ct__tensor_ds_len(void *user) { return ct_size(((ct__tensor_ds *)user)->t[0], 0); }

static ct_result ct__tensor_ds_get(void *user, int64_t index, ct_sample *out)
{
    ct__tensor_ds *td = (ct__tensor_ds *)user;
    int64_t n = ct_size(td->t[0], 0);
    if (index < -n || index >= n) /* tensor[index]'s words, not select()'s */
        return ct__fail(CT_ERR_INDEX, "index %lld is out of bounds for dimension 0 with size %lld", (long long)index,
                        (long long)n);
    for (int k = 0; k < td->n; k++)
        if (!(out->field[k] = ct_select(td->t[k], 0, index))) return ct_last_error_code();
    out->n = td->n;
    return CT_OK;
}

static void ct__tensor_ds_free(void *user)
{
    ct__tensor_ds *td = (ct__tensor_ds *)user;
    for (int k = 0; k < td->n; k++) ct_release(td->t[k]);
    CT_FREE(td);
}

ct_dataset *ct_tensor_dataset(ct_tensor *const *tensors, int n)
{
    if (n < 1 || n > CT_SAMPLE_MAX || !tensors) {
        ct__fail(CT_ERR_VALUE, "TensorDataset takes 1 to %d tensors, not %d", CT_SAMPLE_MAX, n);
        return NULL;
    }
    for (int k = 0; k < n; k++) {
        if (!tensors[k]) {
            ct__null_arg(__func__, "tensors", k + 1);
            return NULL;
        }
        if (ct_dim(tensors[k]) == 0 || ct_size(tensors[k], 0) != ct_size(tensors[0], 0)) {
            ct__fail(CT_ERR_RUNTIME, "Size mismatch between tensors");
            return NULL;
        }
    }
    ct__tensor_ds *td = (ct__tensor_ds *)CT_MALLOC(sizeof *td);
    if (!td) {
        CT__OOM();
        return NULL;
    }
    td->n = n;
    for (int k = 0; k < n; k++) td->t[k] = ct_retain(tensors[k]);
    return ct__map_dataset(ct__tensor_ds_len, ct__tensor_ds_get, ct__tensor_ds_free, td);
}

/* ---------------------------------------------------------------- Subset */

typedef struct ct__subset {
    ct_dataset *d;
    int64_t n;
    int64_t *indices;
} ct__subset;

static int64_t ct__subset_len(void *user) { return ((ct__subset *)user)->n; }

/* A Python list index: negative counts from the end. */
static bool ct__list_index(int64_t *i, int64_t n)
{
    if (*i < 0) *i += n;
    if (*i >= 0 && *i < n) return true;
    ct__fail(CT_ERR_INDEX, "list index out of range");
    return false;
}

static ct_result ct__subset_get(void *user, int64_t index, ct_sample *out)
{
    ct__subset *s = (ct__subset *)user;
    if (!ct__list_index(&index, s->n)) return CT_ERR_INDEX;
    return ct_dataset_get(s->d, s->indices[index], out);
}

static void ct__subset_free(void *user)
{
    ct__subset *s = (ct__subset *)user;
    ct_dataset_free(s->d);
    CT_FREE(s->indices);
    CT_FREE(s);
}

/* A copy of n int64s (a non-NULL pointer even for n == 0), or NULL after an error. */
static int64_t *ct__copy_indices(const int64_t *indices, int64_t n)
{
    int64_t *c = (int64_t *)CT_MALLOC(((size_t)n + 1) * sizeof *c);
    if (!c) CT__OOM();
    else if (n > 0) memcpy(c, indices, (size_t)n * sizeof *c);
    return c;
}

ct_dataset *ct_subset(ct_dataset *d, const int64_t *indices, int64_t n)
{
    if (!d) {
        ct__null_dataset("subset");
        return NULL;
    }
    if (n < 0 || (n > 0 && !indices)) {
        ct__fail(CT_ERR_VALUE, "Subset(): indices must be a list of n >= 0 indices");
        return NULL;
    }
    ct__subset *s = (ct__subset *)CT_MALLOC(sizeof *s);
    int64_t *copy = s ? ct__copy_indices(indices, n) : NULL;
    if (!copy) {
        if (s) CT_FREE(s);
        else CT__OOM();
        return NULL;
    }
    s->d = ct_dataset_retain(d);
    s->n = n;
    s->indices = copy;
    return ct__map_dataset(ct__subset_len, ct__subset_get, ct__subset_free, s);
}

/* ---------------------------------------------------------------- ConcatDataset */

typedef struct ct__concat {
    int n;
    ct_dataset **d;
    int64_t *cumulative; /* cumulative_sizes */
} ct__concat;

static int64_t ct__concat_len(void *user)
{
    ct__concat *c = (ct__concat *)user;
    return c->cumulative[c->n - 1];
}

static ct_result ct__concat_get(void *user, int64_t index, ct_sample *out)
{
    ct__concat *c = (ct__concat *)user;
    int64_t total = c->cumulative[c->n - 1];
    if (index < 0) {
        if (-index > total) return ct__fail(CT_ERR_VALUE, "absolute value of index should not exceed dataset length");
        index += total;
    }
    int k = 0; /* bisect_right(cumulative_sizes, index) */
    while (k < c->n && c->cumulative[k] <= index) k++;
    if (k == c->n) return ct__fail(CT_ERR_INDEX, "list index out of range");
    return ct_dataset_get(c->d[k], k == 0 ? index : index - c->cumulative[k - 1], out);
}

static void ct__concat_free(void *user)
{
    ct__concat *c = (ct__concat *)user;
    for (int k = 0; k < c->n; k++) ct_dataset_free(c->d[k]);
    CT_FREE(c->d);
    CT_FREE(c->cumulative);
    CT_FREE(c);
}

ct_dataset *ct_concat_dataset(ct_dataset *const *datasets, int n)
{
    if (n <= 0 || !datasets) {
        ct__fail(CT_ERR_VALUE, "datasets should not be an empty iterable");
        return NULL;
    }
    for (int k = 0; k < n; k++) {
        if (!datasets[k]) {
            ct__null_dataset("concat_dataset");
            return NULL;
        }
        if (datasets[k]->iterable) {
            ct__fail(CT_ERR_VALUE, "ConcatDataset does not support IterableDataset");
            return NULL;
        }
    }
    ct__concat *c = (ct__concat *)CT_MALLOC(sizeof *c);
    ct_dataset **d = (ct_dataset **)CT_MALLOC((size_t)n * sizeof *d);
    int64_t *cum = (int64_t *)CT_MALLOC((size_t)n * sizeof *cum);
    if (!c || !d || !cum) {
        CT_FREE(c), CT_FREE(d), CT_FREE(cum);
        CT__OOM();
        return NULL;
    }
    for (int k = 0; k < n; k++) {
        d[k] = ct_dataset_retain(datasets[k]);
        cum[k] = (k ? cum[k - 1] : 0) + ct_dataset_len(datasets[k]);
    }
    c->n = n;
    c->d = d;
    c->cumulative = cum;
    return ct__map_dataset(ct__concat_len, ct__concat_get, ct__concat_free, c);
}

/* ---------------------------------------------------------------- random_split */

/* Fractions that sum to 1 become counts as random_split computes them. */
static ct_result ct__split_lengths(const double *lengths, int n, int64_t len, int64_t *counts)
{
    double sum = 0;
    for (int i = 0; i < n; i++) sum += lengths[i];
    bool fractions = fabs(sum - 1) <= 1e-9 * CT__MAX(1.0, fabs(sum)) && sum <= 1; /* math.isclose */
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        if (fractions && (lengths[i] < 0 || lengths[i] > 1))
            return ct__fail(CT_ERR_VALUE, "Fraction at index %d is not between 0 and 1", i);
        counts[i] = fractions ? (int64_t)floor((double)len * lengths[i]) : (int64_t)lengths[i];
        total += counts[i];
    }
    for (int64_t i = 0; fractions && i < len - total; i++) counts[i % n]++;
    if (fractions) total = len;
    if (total != len) return ct__fail(CT_ERR_VALUE, "Sum of input lengths does not equal the length of the input dataset!");
    return CT_OK;
}

ct_result ct_random_split(ct_dataset *d, const double *lengths, int n, ct_generator *g, ct_dataset **out)
{
    if (!d) return ct__null_dataset("random_split");
    if (n <= 0 || !lengths || !out) return ct__fail(CT_ERR_VALUE, "random_split(): lengths must be a list of n >= 1 lengths");
    int64_t len = ct_dataset_len(d);
    if (len < 0) return (ct_result)len;
    int64_t *counts = (int64_t *)CT_MALLOC((size_t)n * sizeof *counts);
    if (!counts) return CT__OOM();
    ct_result r = ct__split_lengths(lengths, n, len, counts);
    ct_scope s = ct_scope_begin();
    ct_tensor *perm = r == CT_OK ? ct_randperm(len, CT_I64, g) : NULL;
    if (r == CT_OK && !perm) r = ct_last_error_code();
    const int64_t *p = perm ? (const int64_t *)ct_data_ptr(perm) : NULL;
    int made = 0;
    for (int64_t offset = 0; r == CT_OK && made < n; offset += counts[made++])
        if (!(out[made] = ct_subset(d, p + offset, counts[made]))) r = ct_last_error_code();
    ct_scope_end(s);
    if (r != CT_OK)
        while (made > 0) ct_dataset_free(out[--made]);
    CT_FREE(counts);
    return r;
}

/* ---------------------------------------------------------------- transformed */

typedef struct ct__transformed {
    ct_dataset *d;
    int field, n;
    ct_transform list[1]; /* n of them */
} ct__transformed;

static int64_t ct__transformed_len(void *user) { return ct_dataset_len(((ct__transformed *)user)->d); }

static ct_result ct__transformed_get(void *user, int64_t index, ct_sample *out)
{
    ct__transformed *t = (ct__transformed *)user;
    ct_result r = ct_dataset_get(t->d, index, out);
    if (r != CT_OK) return r;
    if (t->field >= out->n)
        return ct__fail(CT_ERR_INDEX, "tuple index out of range: the sample has %d fields, the transform is for field %d",
                        out->n, t->field);
    ct_tensor *x = ct_transform_apply(t->list, t->n, out->field[t->field], NULL);
    if (!x) return ct_last_error_code();
    out->field[t->field] = x;
    return CT_OK;
}

static void ct__transformed_free(void *user)
{
    ct_dataset_free(((ct__transformed *)user)->d);
    CT_FREE(user);
}

ct_dataset *ct_transformed_dataset(ct_dataset *d, int field, const ct_transform *list, int n)
{
    if (!d) {
        ct__null_dataset("transformed_dataset");
        return NULL;
    }
    if (d->iterable) {
        ct__fail(CT_ERR_VALUE, "transformed_dataset(): takes a map-style dataset");
        return NULL;
    }
    if (field < 0 || field >= CT_SAMPLE_MAX || n < 0 || (n > 0 && !list)) {
        ct__fail(CT_ERR_VALUE, "transformed_dataset(): field must be in [0, %d) and list hold n >= 0 transforms",
                 CT_SAMPLE_MAX);
        return NULL;
    }
    if (ct__check_transforms(list, n) != CT_OK) return NULL;
    ct__transformed *t = (ct__transformed *)CT_MALLOC(sizeof *t + (size_t)n * sizeof t->list[0]);
    if (!t) {
        CT__OOM();
        return NULL;
    }
    t->d = ct_dataset_retain(d);
    t->field = field;
    t->n = n;
    if (n > 0) memcpy(t->list, list, (size_t)n * sizeof *list);
    return ct__map_dataset(ct__transformed_len, ct__transformed_get, ct__transformed_free, t);
}

/* ==================== data/transform.c ==================== */
// >>data/transform.c
/* Image transforms (torchvision.transforms on tensors): ConvertImageDtype /
 * ToTensor's scaling, Normalize, RandomCrop with padding, RandomHorizontalFlip,
 * composed in order. Random ones draw what torchvision draws, in its order. */

static ct_result ct__check_transforms(const ct_transform *list, int n)
{
    for (int i = 0; i < n; i++) {
        const ct_transform *t = &list[i];
        switch (t->kind) {
        case CT_TO_FLOAT: break;
        case CT_NORMALIZE:
            if (t->channels < 1 || t->channels > CT_TRANSFORM_CHANNELS)
                return ct__fail(CT_ERR_VALUE, "Normalize takes 1 to %d channels, not %d", CT_TRANSFORM_CHANNELS, t->channels);
            for (int c = 0; c < t->channels; c++)
                if ((float)t->std[c] == 0)
                    return ct__fail(CT_ERR_VALUE, "std evaluated to zero after conversion to torch.float32, leading to division by zero.");
            break;
        case CT_RANDOM_CROP:
            if (t->size[0] <= 0 || t->size[1] <= 0 || t->padding < 0)
                return ct__fail(CT_ERR_VALUE, "RandomCrop needs a positive size and padding >= 0, not size (%lld, %lld) "
                                "and padding %lld", (long long)t->size[0], (long long)t->size[1], (long long)t->padding);
            break;
        case CT_RANDOM_HFLIP:
            if (t->p < 0 || t->p > 1) return ct__fail(CT_ERR_VALUE, "probability should be between 0 and 1, but got %g", t->p);
            break;
        default: return ct__fail(CT_ERR_VALUE, "unknown transform kind %d at index %d", (int)t->kind, i);
        }
    }
    return CT_OK;
}

/* The generator a random transform draws from when given none. */
static ct_generator *ct__transform_gen(ct_generator *g) { return g ? g : ct__worker_info.generator; }

static bool ct__check_image(const ct_tensor *x, int min_dim)
{
    if (ct_dim(x) >= min_dim) return true;
    char shape[256];
    ct__shape_str(x->sizes, x->ndim, shape, sizeof shape);
    ct__fail(CT_ERR_TYPE, "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = torch.Size(%s)",
             shape);
    return false;
}

/* ToTensor / ConvertImageDtype: uint8 divided by 255, or times scale. */
static ct_tensor *ct__to_float(const ct_tensor *x, const ct_transform *t)
{
    ct_tensor *f = ct_to(x, ct_get_default_dtype());
    if (t->scale != 0) return ct_mul_scalar(f, ct_float(t->scale));
    return x->dtype == CT_U8 ? ct_div_scalar(f, ct_int(255)) : f;
}

/* F.normalize: (x - mean) / std with mean and std of x's dtype over dim -3. */
static ct_tensor *ct__normalize(const ct_tensor *x, const ct_transform *t)
{
    if (!ct_dtype_is_floating(x->dtype)) {
        ct__fail(CT_ERR_TYPE, "Input tensor should be a float tensor. Got torch.%s.", ct_dtype_name(x->dtype));
        return NULL;
    }
    if (!ct__check_image(x, 3)) return NULL;
    ct_tensor *mean = ct_view(ct_to(ct_from_array(t->mean, CT_SHAPE(t->channels), CT_F64), x->dtype), CT_SHAPE(-1, 1, 1));
    ct_tensor *std = ct_view(ct_to(ct_from_array(t->std, CT_SHAPE(t->channels), CT_F64), x->dtype), CT_SHAPE(-1, 1, 1));
    return ct_div(ct_sub(x, mean), std);
}

/* F.pad(img, padding, fill) with a constant: a filled tensor with img in its middle. */
static ct_tensor *ct__pad(const ct_tensor *x, int64_t pad, double fill)
{
    ct_shape s = ct_shape_of(x);
    s.size[s.ndim - 1] += 2 * pad;
    s.size[s.ndim - 2] += 2 * pad;
    ct_scalar v = ct_dtype_is_floating(x->dtype) ? ct_float(fill) : ct_int((int64_t)fill);
    ct_tensor *out = ct_full(s, v, x->dtype);
    ct_tensor *mid = ct_narrow(ct_narrow(out, -1, pad, ct_size(x, -1)), -2, pad, ct_size(x, -2));
    return mid && ct_copy_(mid, x) == CT_OK ? out : NULL;
}

/* RandomCrop.forward: pad, then get_params (top, then left, each a randint) and crop. */
static ct_tensor *ct__random_crop(const ct_tensor *x, const ct_transform *t, ct_generator *g)
{
    if (!ct__check_image(x, 2)) return NULL;
    const ct_tensor *img = t->padding > 0 ? ct__pad(x, t->padding, t->fill) : x;
    if (!img) return NULL;
    int64_t h = ct_size(img, -2), w = ct_size(img, -1), th = t->size[0], tw = t->size[1];
    if (h < th || w < tw) {
        ct__fail(CT_ERR_VALUE, "Required crop size (%lld, %lld) is larger than input image size (%lld, %lld)",
                 (long long)th, (long long)tw, (long long)h, (long long)w);
        return NULL;
    }
    int64_t top = 0, left = 0;
    if (h != th || w != tw) {
        top = ct_item_int(ct_randint(0, h - th + 1, CT_SHAPE(1), CT_I64, g));
        left = ct_item_int(ct_randint(0, w - tw + 1, CT_SHAPE(1), CT_I64, g));
    }
    return ct_narrow(ct_narrow(img, -2, top, th), -1, left, tw);
}

/* RandomHorizontalFlip.forward: torch.rand(1) < p flips the last dim. */
static ct_tensor *ct__random_hflip(const ct_tensor *x, const ct_transform *t, ct_generator *g)
{
    if (!ct__check_image(x, 2)) return NULL;
    float p = (float)(t->p == 0 ? 0.5 : t->p);
    ct_tensor *u = ct_rand(CT_SHAPE(1), CT_F32, g);
    if (!u) return NULL;
    return (float)ct_item(u) < p ? ct_flip(x, CT_DIMS(-1)) : ct__same(x);
}

ct_tensor *ct_transform_apply(const ct_transform *list, int n, const ct_tensor *x, ct_generator *g)
{
    CT__ARG(x, "img", 3);
    if (n < 0 || (n > 0 && !list)) {
        ct__fail(CT_ERR_VALUE, "transform_apply(): list must hold n >= 0 transforms");
        return NULL;
    }
    if (ct__check_transforms(list, n) != CT_OK) return NULL;
    g = ct__transform_gen(g);
    ct_scope s = ct_scope_begin();
    const ct_tensor *y = x;
    for (int i = 0; y && i < n; i++) {
        switch (list[i].kind) {
        case CT_TO_FLOAT: y = ct__to_float(y, &list[i]); break;
        case CT_NORMALIZE: y = ct__normalize(y, &list[i]); break;
        case CT_RANDOM_CROP: y = ct__random_crop(y, &list[i], g); break;
        default: y = ct__random_hflip(y, &list[i], g); break;
        }
    }
    ct_tensor *r = y ? ct_keep(y == x ? ct__same(x) : (ct_tensor *)y) : NULL;
    ct_scope_end(s);
    return r;
}

/* ==================== data/sampler.c ==================== */
// >>data/sampler.c
/* Samplers (torch/utils/data/sampler.py, distributed.py). A pass draws its
 * random numbers when PyTorch's generator functions would: at the first
 * next(), and RandomSampler chunk by chunk (a randperm of n, or a randint of
 * 32) as the pass reaches it, so a generator shared with other code is
 * consumed in PyTorch's order. */

typedef enum ct__sampler_kind {
    CT__SAMPLER_USER,
    CT__SAMPLER_SEQUENTIAL,
    CT__SAMPLER_RANDOM,
    CT__SAMPLER_SUBSET_RANDOM,
    CT__SAMPLER_WEIGHTED,
    CT__SAMPLER_BATCH,
    CT__SAMPLER_DISTRIBUTED
} ct__sampler_kind;

static const char *const ct__sampler_names[] = {"Sampler", "SequentialSampler", "RandomSampler",
                                                "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
                                                "DistributedSampler"};

struct ct_sampler {
    int refcount;
    ct__sampler_kind kind;
    int64_t n;               /* the dataset's length (or how many indices / weights) */
    int64_t num_samples;     /* Random, Weighted, Distributed: samples in a pass */
    int64_t *values;         /* SubsetRandom: the indices; Weighted: NULL */
    double *weights;         /* Weighted */
    bool replacement, drop_last, shuffle;
    ct_generator *generator; /* the caller's, or NULL */
    ct_generator *own;       /* RandomSampler without a generator: seeded per pass */
    int64_t batch_size;      /* Batch */
    ct_sampler *base;        /* Batch */
    int64_t num_replicas, rank, seed, epoch; /* Distributed */
    ct_sampler_desc user;    /* User */
    /* the pass */
    bool started;
    int64_t *chunk; /* indices drawn and not yet given out: chunk[pos..chunk_n) */
    int64_t chunk_n, pos, chunks_left;
};

static ct_sampler *ct__sampler_alloc(ct__sampler_kind kind, int64_t n)
{
    ct_sampler *s = (ct_sampler *)CT_MALLOC(sizeof *s);
    if (!s) {
        CT__OOM();
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->refcount = 1;
    s->kind = kind;
    s->n = n;
    return s;
}

static bool ct__check_len(int64_t n)
{
    if (n >= 0) return true;
    ct__fail(CT_ERR_VALUE, "a dataset's length must be >= 0, not %lld", (long long)n);
    return false;
}

ct_sampler *ct_sampler_new(ct_sampler_desc desc)
{
    if (!desc.next || desc.max_batch < 0) {
        ct__fail(CT_ERR_VALUE, "ct_sampler_new(): a sampler needs next, and max_batch >= 0");
        return NULL;
    }
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_USER, 0);
    if (s) s->user = desc;
    else if (desc.free) desc.free(desc.user);
    return s;
}

ct_sampler *ct_sequential_sampler(int64_t n)
{
    return ct__check_len(n) ? ct__sampler_alloc(CT__SAMPLER_SEQUENTIAL, n) : NULL;
}

static bool ct__check_num_samples(int64_t num_samples)
{
    if (num_samples > 0) return true;
    ct__fail(CT_ERR_VALUE, "num_samples should be a positive integer value, but got num_samples=%lld",
             (long long)num_samples);
    return false;
}

ct_sampler *ct_random_sampler(int64_t n, ct_random_sampler_opts opts)
{
    int64_t num_samples = opts.num_samples ? opts.num_samples : n;
    if (!ct__check_len(n) || !ct__check_num_samples(num_samples)) return NULL;
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_RANDOM, n);
    if (!s) return NULL;
    s->num_samples = num_samples;
    s->replacement = opts.replacement;
    s->generator = opts.generator;
    return s;
}

ct_sampler *ct_subset_random_sampler(const int64_t *indices, int64_t n, ct_generator *g)
{
    if (n < 0 || (n > 0 && !indices)) {
        ct__fail(CT_ERR_VALUE, "SubsetRandomSampler(): indices must be a list of n >= 0 indices");
        return NULL;
    }
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_SUBSET_RANDOM, n);
    if (s && !(s->values = ct__copy_indices(indices, n))) {
        CT_FREE(s);
        return NULL;
    }
    if (s) s->generator = g;
    return s;
}

ct_weighted_random_sampler_opts ct_weighted_random_sampler_opts_init(void)
{
    ct_weighted_random_sampler_opts o;
    memset(&o, 0, sizeof o);
    o.replacement = true;
    return o;
}

ct_sampler *ct_weighted_random_sampler(const double *weights, int64_t n, ct_weighted_random_sampler_opts opts)
{
    if (!ct__check_num_samples(opts.num_samples)) return NULL;
    if (n < 0 || (n > 0 && !weights)) {
        ct__fail(CT_ERR_VALUE, "WeightedRandomSampler(): weights must be a list of n >= 0 weights");
        return NULL;
    }
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_WEIGHTED, n);
    if (!s) return NULL;
    s->weights = (double *)CT_MALLOC(((size_t)n + 1) * sizeof *s->weights);
    if (!s->weights) {
        CT_FREE(s);
        CT__OOM();
        return NULL;
    }
    if (n > 0) memcpy(s->weights, weights, (size_t)n * sizeof *weights);
    s->num_samples = opts.num_samples;
    s->replacement = opts.replacement;
    s->generator = opts.generator;
    return s;
}

static ct_result ct__null_sampler(const char *fn, const char *arg)
{
    if (ct_last_error_code() != CT_OK) return ct_last_error_code();
    return ct__fail(CT_ERR_TYPE, "%s(): argument '%s' must be a sampler, not NULL", fn, arg);
}

ct_sampler *ct_batch_sampler(ct_sampler *sampler, int64_t batch_size, bool drop_last)
{
    if (!sampler) {
        ct__null_sampler("batch_sampler", "sampler");
        return NULL;
    }
    if (batch_size <= 0) {
        ct__fail(CT_ERR_VALUE, "batch_size should be a positive integer value, but got batch_size=%lld",
                 (long long)batch_size);
        return NULL;
    }
    if (ct_sampler_max_batch(sampler) != 1) {
        ct__fail(CT_ERR_VALUE, "BatchSampler needs a sampler of single indices, not a batch sampler");
        return NULL;
    }
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_BATCH, 0);
    if (!s) return NULL;
    s->base = ct_sampler_retain(sampler);
    s->batch_size = batch_size;
    s->drop_last = drop_last;
    return s;
}

ct_distributed_sampler_opts ct_distributed_sampler_opts_init(void)
{
    ct_distributed_sampler_opts o;
    memset(&o, 0, sizeof o);
    o.num_replicas = 1;
    o.shuffle = true;
    return o;
}

ct_sampler *ct_distributed_sampler(int64_t n, ct_distributed_sampler_opts opts)
{
    if (!ct__check_len(n)) return NULL;
    if (opts.num_replicas <= 0) {
        ct__fail(CT_ERR_VALUE, "num_replicas should be a positive integer value, but got num_replicas=%lld",
                 (long long)opts.num_replicas);
        return NULL;
    }
    if (opts.rank >= opts.num_replicas || opts.rank < 0) {
        ct__fail(CT_ERR_VALUE, "Invalid rank %lld, rank should be in the interval [0, %lld]", (long long)opts.rank,
                 (long long)(opts.num_replicas - 1));
        return NULL;
    }
    ct_sampler *s = ct__sampler_alloc(CT__SAMPLER_DISTRIBUTED, n);
    if (!s) return NULL;
    int64_t r = opts.num_replicas;
    /* math.ceil((n - r) / r) when dropping an uneven tail, else math.ceil(n / r) */
    if (opts.drop_last && n % r != 0) s->num_samples = n - r >= 0 ? (n - r + r - 1) / r : -((r - n) / r);
    else s->num_samples = (n + r - 1) / r;
    s->num_replicas = r;
    s->rank = opts.rank;
    s->shuffle = opts.shuffle;
    s->seed = opts.seed;
    s->drop_last = opts.drop_last;
    return s;
}

ct_result ct_sampler_set_epoch(ct_sampler *s, int64_t epoch)
{
    if (!s) return ct__null_sampler("sampler_set_epoch", "sampler");
    if (s->kind != CT__SAMPLER_DISTRIBUTED)
        return ct__fail(CT_ERR_TYPE, "'%s' object has no attribute 'set_epoch'", ct__sampler_names[s->kind]);
    s->epoch = epoch;
    return CT_OK;
}

ct_sampler *ct_sampler_retain(ct_sampler *s)
{
    if (s) CT__ATOMIC_INC(&s->refcount);
    return s;
}

void ct_sampler_free(ct_sampler *s)
{
    if (!s || CT__ATOMIC_DEC(&s->refcount) != 0) return;
    if (s->kind == CT__SAMPLER_USER && s->user.free) s->user.free(s->user.user);
    ct_sampler_free(s->base);
    if (s->own) ct_generator_free(s->own);
    CT_FREE(s->values);
    CT_FREE(s->weights);
    CT_FREE(s->chunk);
    CT_FREE(s);
}

int64_t ct_sampler_len(const ct_sampler *s)
{
    if (!s) return ct__null_sampler("sampler_len", "sampler");
    switch (s->kind) {
    case CT__SAMPLER_USER:
        if (!s->user.len) return ct__fail(CT_ERR_TYPE, "object of type 'Sampler' has no len()");
        return s->user.len(s->user.user);
    case CT__SAMPLER_SEQUENTIAL:
    case CT__SAMPLER_SUBSET_RANDOM: return s->n;
    case CT__SAMPLER_BATCH: {
        int64_t n = ct_sampler_len(s->base);
        if (n < 0) return n;
        return s->drop_last ? n / s->batch_size : (n + s->batch_size - 1) / s->batch_size;
    }
    default: return s->num_samples;
    }
}

int64_t ct_sampler_max_batch(const ct_sampler *s)
{
    if (!s) return ct__null_sampler("sampler_max_batch", "sampler");
    if (s->kind == CT__SAMPLER_BATCH) return s->batch_size;
    if (s->kind == CT__SAMPLER_USER && s->user.max_batch > 0) return s->user.max_batch;
    return 1;
}

ct_result ct_sampler_iter(ct_sampler *s)
{
    if (!s) return ct__null_sampler("sampler_iter", "sampler");
    s->started = false;
    s->chunk_n = s->pos = s->chunks_left = 0;
    return s->kind == CT__SAMPLER_BATCH ? ct_sampler_iter(s->base) : CT_OK;
}

/* ---------------------------------------------------------------- a pass */

/* The pass's next chunk of indices from an int64 tensor (NULL after an error). */
static ct_result ct__take_chunk(ct_sampler *s, ct_tensor *t, int64_t keep)
{
    if (!t) return ct_last_error_code();
    int64_t *c = (int64_t *)CT_REALLOC(s->chunk, ((size_t)keep + 1) * sizeof *c);
    if (!c) return CT__OOM();
    s->chunk = c;
    if (keep > 0) memcpy(c, ct_data_ptr(t), (size_t)keep * sizeof *c);
    s->chunk_n = keep;
    s->pos = 0;
    return CT_OK;
}

/* The seed RandomSampler draws without a generator:
 * int(torch.empty((), dtype=torch.int64).random_()), a 64-bit draw mod 2^63. */
static int64_t ct__draw_seed(ct_generator *g)
{
    g = ct__gen_lock(g);
    uint64_t v = ct__rand64(g);
    ct__gen_unlock(g);
    return (int64_t)(v & (((uint64_t)1 << 63) - 1));
}

/* RandomSampler's next chunk: randint(n, (32,)) or randperm(n), the last one
 * cut to what remains of num_samples. */
static ct_result ct__random_chunk(ct_sampler *s)
{
    ct_generator *g = s->generator ? s->generator : s->own;
    int64_t whole = s->replacement ? 32 : s->n;
    int64_t keep = s->chunks_left > 1 ? whole : s->num_samples % whole;
    s->chunks_left--;
    if (s->replacement) return ct__take_chunk(s, ct_randint(0, s->n, CT_SHAPE(keep), CT_I64, g), keep);
    return ct__take_chunk(s, ct_randperm(s->n, CT_I64, g), keep);
}

/* DistributedSampler's indices for this rank. */
static ct_result ct__distributed_pass(ct_sampler *s)
{
    int64_t n = s->n, total = s->num_samples * s->num_replicas;
    ct_tensor *perm = NULL;
    if (s->shuffle) {
        ct_generator *g = ct_generator_new();
        if (!g) return CT__OOM();
        ct_generator_manual_seed(g, (uint64_t)(s->seed + s->epoch));
        perm = ct_randperm(n, CT_I64, g);
        ct_generator_free(g);
        if (!perm) return ct_last_error_code();
    }
    const int64_t *p = perm ? (const int64_t *)ct_data_ptr(perm) : NULL;
    int64_t *c = (int64_t *)CT_REALLOC(s->chunk, ((size_t)s->num_samples + 1) * sizeof *c);
    if (!c) return CT__OOM();
    s->chunk = c;
    s->chunk_n = 0;
    /* padding repeats the list from its start; rank takes every num_replicas-th */
    for (int64_t i = s->rank; i < total; i += s->num_replicas) {
        int64_t j = i % n;
        c[s->chunk_n++] = p ? p[j] : j;
    }
    s->pos = 0;
    return CT_OK;
}

static ct_result ct__start_pass(ct_sampler *s)
{
    s->started = true;
    s->pos = s->chunk_n = 0;
    switch (s->kind) {
    case CT__SAMPLER_USER:
        if (s->user.begin) s->user.begin(s->user.user);
        return CT_OK;
    case CT__SAMPLER_RANDOM:
        if (!s->generator) {
            if (!s->own && !(s->own = ct_generator_new())) return CT__OOM();
            ct_generator_manual_seed(s->own, (uint64_t)ct__draw_seed(NULL));
        }
        s->chunks_left = s->num_samples / (s->replacement ? 32 : s->n) + 1;
        return CT_OK;
    case CT__SAMPLER_SUBSET_RANDOM: return ct__take_chunk(s, ct_randperm(s->n, CT_I64, s->generator), s->n);
    case CT__SAMPLER_WEIGHTED: {
        ct_tensor *w = ct_from_array(s->weights, CT_SHAPE(s->n), CT_F64);
        return ct__take_chunk(s, ct_multinomial(w, s->num_samples, s->replacement, s->generator), s->num_samples);
    }
    case CT__SAMPLER_DISTRIBUTED: return s->n == 0 ? CT_OK : ct__distributed_pass(s);
    default: return CT_OK;
    }
}

/* The next index (a user batch sampler's next list) into out: how many, 0 at
 * the end, or a negative ct_result. */
static int64_t ct__next_index(ct_sampler *s, int64_t *out)
{
    if (!s->started) {
        ct_scope scope = ct_scope_begin();
        ct_result r = ct__start_pass(s);
        ct_scope_end(scope);
        if (r != CT_OK) {
            s->started = false;
            return r;
        }
    }
    switch (s->kind) {
    case CT__SAMPLER_USER: {
        int64_t r = s->user.next(s->user.user, out);
        if (r > ct_sampler_max_batch(s))
            return ct__fail(CT_ERR_VALUE, "the sampler gave %lld indices, more than its max_batch %lld", (long long)r,
                            (long long)ct_sampler_max_batch(s));
        return r < 0 && ct_last_error_code() != CT_OK ? (int64_t)ct_last_error_code() : r;
    }
    case CT__SAMPLER_SEQUENTIAL:
        if (s->pos >= s->n) return 0;
        *out = s->pos++;
        return 1;
    case CT__SAMPLER_RANDOM:
        while (s->pos == s->chunk_n) {
            if (s->chunks_left == 0) return 0;
            ct_scope scope = ct_scope_begin();
            ct_result r = ct__random_chunk(s);
            ct_scope_end(scope);
            if (r != CT_OK) return r;
        }
        break;
    default:
        if (s->pos == s->chunk_n) return 0;
    }
    *out = s->kind == CT__SAMPLER_SUBSET_RANDOM ? s->values[s->chunk[s->pos++]] : s->chunk[s->pos++];
    return 1;
}

/* BatchSampler: up to batch_size indices; a short last batch unless drop_last. */
static int64_t ct__next_batch(ct_sampler *s, int64_t *out)
{
    int64_t k = 0;
    while (k < s->batch_size) {
        int64_t r = ct__next_index(s->base, out + k);
        if (r < 0) return r;
        if (r == 0) break;
        k++;
    }
    return k < s->batch_size && s->drop_last ? 0 : k;
}

int64_t ct_sampler_next(ct_sampler *s, int64_t *out, int64_t capacity)
{
    if (!s) return ct__null_sampler("sampler_next", "sampler");
    int64_t need = ct_sampler_max_batch(s);
    if (!out || capacity < need)
        return ct__fail(CT_ERR_VALUE, "sampler_next(): out has room for %lld indices, the sampler gives up to %lld",
                        (long long)(out ? capacity : 0), (long long)need);
    return s->kind == CT__SAMPLER_BATCH ? ct__next_batch(s, out) : ct__next_index(s, out);
}

/* ==================== data/loader.c ==================== */
// >>data/loader.c
/* The DataLoader (torch/utils/data/dataloader.py) with worker threads.
 *
 * As in PyTorch's multiprocessing iterator, the calling thread runs the
 * sampler and hands batch k (its list of indices) to worker k mod W, keeping
 * at most W * prefetch_factor batches in flight; a worker builds a whole
 * batch (get_item for each index, then collate_fn) without waiting for the
 * others, and the caller takes results strictly in order 0, 1, 2, ... from a
 * ring of W * prefetch_factor slots (batch k in slot k mod size).
 *
 * Ownership across threads: a worker builds a batch inside a scope of its
 * own and ct_keeps the batch's tensors, so with no scope around them they
 * leave as plain references; ct_loader_next registers them in the caller's
 * open scope (refcounts are atomic, so the tensors may be released on any
 * thread). Errors are per thread: a worker copies its code and message, with
 * the failing index, into the slot, and ct_loader_next raises them on the
 * caller's thread. One mutex guards the queues and slots; a slot's batch is
 * written by its worker before the state change that publishes it. */

#ifndef CTORCH_NO_THREADS
#include <pthread.h>
#endif

#define CT__LOADER_MSG 1024

typedef enum ct__slot_state { CT__SLOT_EMPTY, CT__SLOT_PENDING, CT__SLOT_READY, CT__SLOT_FAILED, CT__SLOT_EXHAUSTED } ct__slot_state;

typedef struct ct__slot {
    ct__slot_state state;
    int worker;
    int64_t n;        /* indices (or samples wanted from an iterable dataset) */
    int64_t *indices; /* room for the sampler's max_batch */
    ct_sample batch;
    ct_result code;
    char msg[CT__LOADER_MSG];
} ct__slot;

/* An iterable dataset's pass on one thread. */
typedef struct ct__iter_pass {
    void *state;
    bool open, ended;
} ct__iter_pass;

typedef struct ct__worker {
    struct ct_loader *l;
    int id;
    int64_t *queue; /* batch numbers, a ring */
    int head, count;
    bool busy, active, reset_pass, started;
    ct__iter_pass pass;
#ifndef CTORCH_NO_THREADS
    pthread_t thread;
#endif
} ct__worker;

struct ct_loader {
    ct_dataset *dataset;
    ct_sampler *index_sampler; /* a batch sampler (map-style), or NULL (iterable) */
    ct_loader_opts o;
    int64_t max_batch;
    /* the epoch */
    bool running, sampler_done;
    int64_t sent, received; /* batches handed to workers, batches taken */
    int64_t base_seed;
    ct__iter_pass pass; /* num_workers == 0 with an iterable dataset */
    /* workers */
    int nslots, cycle;
    ct__slot *slots;
    ct__worker *workers;
    bool workers_up, stop;
#ifndef CTORCH_NO_THREADS
    pthread_mutex_t mu;
    pthread_cond_t work, done;
#endif
};

ct_worker_info ct_get_worker_info(void) { return ct__worker_info; }

/* ---------------------------------------------------------------- collation */

ct_result ct_default_collate(const ct_sample *samples, int64_t n, ct_sample *batch, void *user)
{
    (void)user;
    if (!samples || !batch || n <= 0) return ct__fail(CT_ERR_VALUE, "default_collate(): needs n >= 1 samples");
    if (n > INT_MAX) return ct__fail(CT_ERR_VALUE, "default_collate(): too many samples (%lld)", (long long)n);
    for (int64_t i = 1; i < n; i++)
        if (samples[i].n != samples[0].n)
            return ct__fail(CT_ERR_RUNTIME, "each element in list of batch should be of equal size");
    ct_tensor **col = (ct_tensor **)CT_MALLOC((size_t)n * sizeof *col);
    if (!col) return CT__OOM();
    ct_result r = CT_OK;
    batch->n = 0;
    for (int k = 0; r == CT_OK && k < samples[0].n; k++) {
        for (int64_t i = 0; i < n; i++) col[i] = samples[i].field[k];
        batch->field[k] = ct_stack(col, (int)n, 0);
        if (!batch->field[k]) r = ct_last_error_code();
        else batch->n = k + 1;
    }
    CT_FREE(col);
    return r;
}

/* "worker process 2 " on a worker thread, "" on the caller's. */
static const char *ct__worker_label(char *buf, size_t n)
{
    if (ct__worker_info.id < 0) return "";
    snprintf(buf, n, "worker process %d ", ct__worker_info.id);
    return buf;
}

/* The pending error, wrapped with where it happened, into msg; returns its code. */
static ct_result ct__wrap_error(ct_result r, char *msg, const char *fmt, long long where)
{
    char label[48], place[96];
    ct_result code = ct_last_error_code() != CT_OK ? ct_last_error_code() : r;
    snprintf(place, sizeof place, fmt, where);
    snprintf(msg, CT__LOADER_MSG, "Caught %s in DataLoader %s%s: %.800s", ct_result_str(code),
             ct__worker_label(label, sizeof label), place, ct_last_error());
    ct_clear_error();
    return code;
}

/* Sample i of a batch from an iterable dataset: 1, 0 at its end, or an error. */
static int ct__iterable_next(ct_dataset *d, ct__iter_pass *p, ct_sample *out)
{
    if (p->ended) return 0;
    if (!p->open) {
        p->state = d->it.iter(d->it.user);
        if (!p->state && ct_last_error_code() != CT_OK) return ct_last_error_code();
        p->open = true;
    }
    int r = d->it.next(p->state, out);
    if (r < 0) return ct_last_error_code() != CT_OK ? ct_last_error_code() : r;
    if (r == 0) {
        p->ended = true;
        return 0;
    }
    ct_result c = ct__check_sample(out, CT_OK);
    return c != CT_OK ? (int)c : 1;
}

static void ct__pass_close(ct_dataset *d, ct__iter_pass *p)
{
    if (p->open && d->it.iter_free) d->it.iter_free(p->state);
    memset(p, 0, sizeof *p);
}

/* The samples of one batch: n fetched (fewer when an iterable dataset ends). */
static int ct__fetch(ct_loader *l, ct__iter_pass *p, const int64_t *idx, int64_t n, ct_sample *samples, int64_t *got,
                     char *msg)
{
    *got = 0;
    for (int64_t i = 0; i < n; i++) {
        memset(&samples[i], 0, sizeof samples[i]);
        int r = p ? ct__iterable_next(l->dataset, p, &samples[i]) : (int)ct_dataset_get(l->dataset, idx[i], &samples[i]);
        if (r < 0) return ct__wrap_error((ct_result)r, msg, p ? "at sample %lld of its pass" : "at dataset index %lld",
                                         p ? (long long)i : (long long)idx[i]);
        if (p && r == 0) break;
        (*got)++;
    }
    return CT_OK;
}

/* Build one batch: 1 with it in *batch (plain references), 0 when an
 * iterable dataset has nothing more for it, or a negative code with the
 * wrapped message in msg. */
static int ct__build_batch(ct_loader *l, ct__iter_pass *p, int64_t k, const int64_t *idx, int64_t n, ct_sample *batch,
                           char *msg)
{
    ct_sample *samples = (ct_sample *)CT_MALLOC((size_t)n * sizeof *samples);
    if (!samples) return ct__wrap_error(CT__OOM(), msg, "for batch %lld", (long long)k);
    int64_t got = 0;
    ct_scope s = ct_scope_begin();
    int r = ct__fetch(l, p, idx, n, samples, &got, msg);
    bool short_batch = got == 0 || (got < n && l->o.drop_last);
    if (r == CT_OK && !short_batch) {
        ct_collate_fn collate = l->o.collate_fn ? l->o.collate_fn : ct_default_collate;
        memset(batch, 0, sizeof *batch);
        r = ct__check_sample(batch, collate(samples, got, batch, l->o.collate_user));
        if (r != CT_OK) r = ct__wrap_error((ct_result)r, msg, "in collate_fn for batch %lld", (long long)k);
        else ct__keep_sample(batch);
    }
    ct_scope_end(s);
    CT_FREE(samples);
    return r != CT_OK ? r : short_batch ? 0 : 1;
}

/* ---------------------------------------------------------------- options */

static ct_result ct__check_loader_opts(const ct_dataset *d, const ct_loader_opts *o)
{
    if (o->num_workers < 0)
        return ct__fail(CT_ERR_VALUE,
                        "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
    if (o->timeout < 0) return ct__fail(CT_ERR_VALUE, "timeout option should be non-negative");
    if (o->num_workers == 0 && o->prefetch_factor != 0 && o->prefetch_factor != 2)
        return ct__fail(CT_ERR_VALUE, "prefetch_factor option could only be specified in multiprocessing.let "
                                      "num_workers > 0 to enable multiprocessing.");
    if (o->prefetch_factor < 0) return ct__fail(CT_ERR_VALUE, "prefetch_factor should be positive, but got %d", o->prefetch_factor);
    if (o->persistent_workers && o->num_workers == 0)
        return ct__fail(CT_ERR_VALUE, "persistent_workers option needs num_workers > 0");
    if (d->iterable && o->shuffle)
        return ct__fail(CT_ERR_VALUE, "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True");
    if (d->iterable && o->sampler)
        return ct__fail(CT_ERR_VALUE, "DataLoader with IterableDataset: expected unspecified sampler option, but got sampler=%s",
                        ct__sampler_names[o->sampler->kind]);
    if (d->iterable && o->batch_sampler)
        return ct__fail(CT_ERR_VALUE, "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                        "batch_sampler=%s", ct__sampler_names[o->batch_sampler->kind]);
    if (o->sampler && o->shuffle) return ct__fail(CT_ERR_VALUE, "sampler option is mutually exclusive with shuffle");
    if (o->batch_sampler && ((o->batch_size != 0 && o->batch_size != 1) || o->shuffle || o->sampler || o->drop_last))
        return ct__fail(CT_ERR_VALUE, "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last");
    if (o->sampler && ct_sampler_max_batch(o->sampler) != 1)
        return ct__fail(CT_ERR_VALUE, "sampler option takes a sampler of single indices: pass a batch sampler as batch_sampler");
#ifdef CTORCH_NO_THREADS
    if (o->num_workers > 0)
        return ct__fail(CT_ERR_RUNTIME, "num_workers > 0 needs threads, and ctorch was built with CTORCH_NO_THREADS");
#endif
    return CT_OK;
}

/* The batch sampler the loader iterates: the given one, or a BatchSampler
 * over the given sampler, a RandomSampler (shuffle) or a SequentialSampler. */
static ct_sampler *ct__index_sampler(const ct_dataset *d, const ct_loader_opts *o)
{
    if (o->batch_sampler) return ct_sampler_retain(o->batch_sampler);
    ct_sampler *base = o->sampler ? ct_sampler_retain(o->sampler) : NULL;
    if (!base) {
        int64_t n = ct_dataset_len(d);
        if (n < 0) return NULL;
        ct_random_sampler_opts ro = {false, 0, o->generator};
        base = o->shuffle ? ct_random_sampler(n, ro) : ct_sequential_sampler(n);
    }
    ct_sampler *b = base ? ct_batch_sampler(base, o->batch_size, o->drop_last) : NULL;
    ct_sampler_free(base);
    return b;
}

ct_loader *ct_loader_new(ct_dataset *d, ct_loader_opts opts)
{
    if (!d) {
        ct__null_dataset("loader_new");
        return NULL;
    }
    if (ct__check_loader_opts(d, &opts) != CT_OK) return NULL;
    if (opts.batch_size == 0) opts.batch_size = 1;
    if (opts.prefetch_factor == 0) opts.prefetch_factor = 2;
    if (opts.batch_size < 0) {
        ct__fail(CT_ERR_VALUE, "batch_size should be a positive integer value, but got batch_size=%lld",
                 (long long)opts.batch_size);
        return NULL;
    }
    ct_loader *l = (ct_loader *)CT_MALLOC(sizeof *l);
    if (!l) {
        CT__OOM();
        return NULL;
    }
    memset(l, 0, sizeof *l);
    l->o = opts;
    l->index_sampler = d->iterable ? NULL : ct__index_sampler(d, &opts);
    if (!d->iterable && !l->index_sampler) {
        CT_FREE(l);
        return NULL;
    }
    l->dataset = ct_dataset_retain(d);
    l->max_batch = l->index_sampler ? ct_sampler_max_batch(l->index_sampler) : opts.batch_size;
    return l;
}

int64_t ct_loader_len(const ct_loader *l)
{
    if (!l) return ct__fail(CT_ERR_TYPE, "loader_len(): argument 'loader' must be a loader, not NULL");
    if (!l->index_sampler) return ct__fail(CT_ERR_TYPE, "object of type 'IterableDataset' has no len()");
    return ct_sampler_len(l->index_sampler);
}

/* The next list of indices from the sampler into idx: how many, 0 at the end, or an error. */
static int64_t ct__next_indices(ct_loader *l, int64_t *idx)
{
    if (l->sampler_done) return 0;
    int64_t n = l->index_sampler ? ct_sampler_next(l->index_sampler, idx, l->max_batch) : l->o.batch_size;
    if (n <= 0) l->sampler_done = true;
    return n;
}

/* ---------------------------------------------------------------- without workers */

static int ct__next_here(ct_loader *l, ct_sample *batch)
{
    char msg[CT__LOADER_MSG];
    int64_t *idx = (int64_t *)CT_MALLOC((size_t)l->max_batch * sizeof *idx);
    if (!idx) return CT__OOM();
    int64_t n = ct__next_indices(l, idx);
    int r = n <= 0 ? (int)n : ct__build_batch(l, l->index_sampler ? NULL : &l->pass, l->received, idx, n, batch, msg);
    if (r < 0 && n > 0) ct__fail((ct_result)r, "%s", msg);
    CT_FREE(idx);
    if (r > 0) l->received++;
    if (r == 0) l->running = false;
    return r;
}

/* ---------------------------------------------------------------- workers */

#ifndef CTORCH_NO_THREADS

/* A batch's tensors made on another thread join the caller's open scope. */
static void ct__adopt(ct_sample *batch)
{
    for (int k = 0; k < batch->n; k++) batch->field[k] = ct__own(batch->field[k]);
}

static void ct__worker_build(ct__worker *w, int64_t k, bool new_pass)
{
    ct_loader *l = w->l;
    ct__slot *slot = &l->slots[k % l->nslots];
    if (new_pass && l->dataset->iterable) ct__pass_close(l->dataset, &w->pass);
    ct_sample batch;
    memset(&batch, 0, sizeof batch);
    int r = ct__build_batch(l, l->dataset->iterable ? &w->pass : NULL, k, slot->indices, slot->n, &batch, slot->msg);
    pthread_mutex_lock(&l->mu);
    slot->batch = batch;
    slot->code = r < 0 ? (ct_result)r : CT_OK;
    slot->state = r > 0 ? CT__SLOT_READY : r == 0 ? CT__SLOT_EXHAUSTED : CT__SLOT_FAILED;
    w->busy = false;
    pthread_cond_broadcast(&l->done);
}

static void *ct__worker_main(void *arg)
{
    ct__worker *w = (ct__worker *)arg;
    ct_loader *l = w->l;
    ct_generator *g = ct_generator_new();
    if (g) ct_generator_manual_seed(g, (uint64_t)(l->base_seed + w->id));
    ct_worker_info info = {w->id, l->o.num_workers, l->base_seed + w->id, l->dataset, g};
    ct__worker_info = info;
    if (l->o.worker_init_fn) l->o.worker_init_fn(w->id, l->o.worker_init_user);
    pthread_mutex_lock(&l->mu);
    for (;;) {
        while (!l->stop && w->count == 0) pthread_cond_wait(&l->work, &l->mu);
        if (l->stop) break;
        int64_t k = w->queue[w->head];
        w->head = (w->head + 1) % l->nslots;
        w->count--;
        w->busy = true;
        bool new_pass = w->reset_pass;
        w->reset_pass = false;
        pthread_mutex_unlock(&l->mu);
        ct__worker_build(w, k, new_pass); /* returns with the lock held */
    }
    pthread_mutex_unlock(&l->mu);
    if (l->dataset->iterable) ct__pass_close(l->dataset, &w->pass);
    ct_clear_error();
    ct__worker_info.id = -1;
    ct__worker_info.generator = NULL;
    if (g) ct_generator_free(g);
    return NULL;
}

/* Stop and join the workers (each finishes the batch it is building), and drop every batch not taken. */
static void ct__stop_workers(ct_loader *l)
{
    if (!l->workers_up) return;
    pthread_mutex_lock(&l->mu);
    l->stop = true;
    pthread_cond_broadcast(&l->work);
    pthread_mutex_unlock(&l->mu);
    for (int i = 0; i < l->o.num_workers; i++)
        if (l->workers[i].started) pthread_join(l->workers[i].thread, NULL);
    for (int i = 0; i < l->nslots; i++) {
        ct_sample_release(&l->slots[i].batch);
        CT_FREE(l->slots[i].indices);
    }
    for (int i = 0; i < l->o.num_workers; i++) CT_FREE(l->workers[i].queue);
    CT_FREE(l->slots);
    CT_FREE(l->workers);
    l->slots = NULL;
    l->workers = NULL;
    pthread_cond_destroy(&l->work);
    pthread_cond_destroy(&l->done);
    pthread_mutex_destroy(&l->mu);
    l->workers_up = l->stop = false;
}

static ct_result ct__alloc_workers(ct_loader *l)
{
    int nw = l->o.num_workers;
    l->nslots = nw * l->o.prefetch_factor;
    l->slots = (ct__slot *)CT_MALLOC((size_t)l->nslots * sizeof *l->slots);
    l->workers = (ct__worker *)CT_MALLOC((size_t)nw * sizeof *l->workers);
    bool ok = l->slots && l->workers;
    if (l->slots) memset(l->slots, 0, (size_t)l->nslots * sizeof *l->slots);
    if (l->workers) memset(l->workers, 0, (size_t)nw * sizeof *l->workers);
    for (int i = 0; ok && i < l->nslots; i++)
        ok = (l->slots[i].indices = (int64_t *)CT_MALLOC((size_t)l->max_batch * sizeof(int64_t))) != NULL;
    for (int i = 0; ok && i < nw; i++)
        ok = (l->workers[i].queue = (int64_t *)CT_MALLOC((size_t)l->nslots * sizeof(int64_t))) != NULL;
    return ok ? CT_OK : CT__OOM();
}

static ct_result ct__start_workers(ct_loader *l)
{
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->work, NULL);
    pthread_cond_init(&l->done, NULL);
    l->workers_up = true;
    ct_result r = ct__alloc_workers(l);
    for (int i = 0; r == CT_OK && i < l->o.num_workers; i++) {
        ct__worker *w = &l->workers[i];
        w->l = l;
        w->id = i;
        w->active = true;
        if (pthread_create(&w->thread, NULL, ct__worker_main, w) != 0)
            r = ct__fail(CT_ERR_RUNTIME, "DataLoader: could not start worker thread %d", i);
        else w->started = true;
    }
    if (r != CT_OK) ct__stop_workers(l);
    return r;
}

/* _try_put_index: the sampler's next batch to the next active worker in the cycle. */
static ct_result ct__dispatch(ct_loader *l)
{
    int nw = l->o.num_workers, w = -1;
    if (l->sampler_done || l->sent - l->received >= l->nslots) return CT_OK;
    for (int tries = 0; tries < nw && w < 0; tries++) {
        int c = l->cycle;
        l->cycle = (l->cycle + 1) % nw;
        if (l->workers[c].active) w = c;
    }
    if (w < 0) return CT_OK;
    ct__slot *slot = &l->slots[l->sent % l->nslots];
    int64_t n = ct__next_indices(l, slot->indices);
    if (n <= 0) return (ct_result)n;
    pthread_mutex_lock(&l->mu);
    ct__worker *wk = &l->workers[w];
    slot->n = n;
    slot->worker = w;
    slot->state = CT__SLOT_PENDING;
    wk->queue[(wk->head + wk->count) % l->nslots] = l->sent++;
    wk->count++;
    pthread_cond_broadcast(&l->work);
    pthread_mutex_unlock(&l->mu);
    return CT_OK;
}

/* Wait for slot's batch; false when the timeout expired. Called with the lock held. */
static bool ct__wait_slot(ct_loader *l, ct__slot *slot)
{
    struct timespec deadline;
    if (l->o.timeout > 0) {
        timespec_get(&deadline, TIME_UTC);
        double t = (double)deadline.tv_sec + deadline.tv_nsec * 1e-9 + l->o.timeout;
        deadline.tv_sec = (time_t)t;
        deadline.tv_nsec = (long)((t - (double)deadline.tv_sec) * 1e9);
    }
    while (slot->state == CT__SLOT_PENDING) {
        if (l->o.timeout <= 0) pthread_cond_wait(&l->done, &l->mu);
        else if (pthread_cond_timedwait(&l->done, &l->mu, &deadline) != 0 && slot->state == CT__SLOT_PENDING)
            return false;
    }
    return true;
}

static int ct__next_from_workers(ct_loader *l, ct_sample *batch)
{
    for (;;) {
        if (l->received == l->sent) {
            l->running = false;
            if (!l->o.persistent_workers) ct__stop_workers(l);
            return 0;
        }
        ct__slot *slot = &l->slots[l->received % l->nslots];
        pthread_mutex_lock(&l->mu);
        if (!ct__wait_slot(l, slot)) {
            pthread_mutex_unlock(&l->mu);
            return ct__fail(CT_ERR_RUNTIME, "DataLoader timed out after %g seconds", l->o.timeout);
        }
        ct__slot_state state = slot->state;
        ct_result code = slot->code;
        char msg[CT__LOADER_MSG];
        if (state == CT__SLOT_FAILED) memcpy(msg, slot->msg, sizeof msg);
        *batch = slot->batch;
        memset(&slot->batch, 0, sizeof slot->batch);
        slot->state = CT__SLOT_EMPTY;
        if (state == CT__SLOT_EXHAUSTED) l->workers[slot->worker].active = false;
        pthread_mutex_unlock(&l->mu);
        l->received++;
        ct_result r = ct__dispatch(l);
        if (state == CT__SLOT_FAILED) return ct__fail(code, "%s", msg);
        if (state == CT__SLOT_READY) {
            ct__adopt(batch);
            if (r != CT_OK) ct_sample_release(batch); /* the sampler failed: report that */
            return r != CT_OK ? (int)r : 1;
        }
        if (r != CT_OK) return r;
    }
}

/* An epoch with workers: (re)start them as needed and fill the pipeline. */
static ct_result ct__begin_worker_epoch(ct_loader *l)
{
    ct_result r = l->workers_up ? CT_OK : ct__start_workers(l);
    if (r != CT_OK) return r;
    pthread_mutex_lock(&l->mu);
    for (int i = 0; i < l->o.num_workers; i++) {
        l->workers[i].active = true;
        l->workers[i].reset_pass = true;
    }
    pthread_mutex_unlock(&l->mu);
    l->cycle = 0;
    for (int i = 0; r == CT_OK && i < l->nslots; i++) r = ct__dispatch(l);
    return r;
}

/* Abandon the running epoch: queued batches are dropped, batches being built
 * are waited for and dropped, persistent workers stay. */
static void ct__abandon_worker_epoch(ct_loader *l)
{
    if (!l->workers_up) return;
    if (!l->o.persistent_workers) {
        ct__stop_workers(l);
        return;
    }
    pthread_mutex_lock(&l->mu);
    for (int i = 0; i < l->o.num_workers; i++) l->workers[i].count = 0;
    for (int i = 0; i < l->o.num_workers; i++)
        while (l->workers[i].busy) pthread_cond_wait(&l->done, &l->mu);
    for (int i = 0; i < l->nslots; i++) {
        ct_sample_release(&l->slots[i].batch);
        l->slots[i].state = CT__SLOT_EMPTY;
    }
    pthread_mutex_unlock(&l->mu);
}

#else /* CTORCH_NO_THREADS: ct__check_loader_opts refuses num_workers > 0 */

static void ct__stop_workers(ct_loader *l) { (void)l; }
static void ct__abandon_worker_epoch(ct_loader *l) { (void)l; }
static ct_result ct__begin_worker_epoch(ct_loader *l) { (void)l; return CT_ERR_RUNTIME; }
static int ct__next_from_workers(ct_loader *l, ct_sample *batch) { (void)l, (void)batch; return CT_ERR_RUNTIME; }

#endif

/* ---------------------------------------------------------------- epochs */

ct_result ct_loader_iter(ct_loader *l)
{
    if (!l) return ct__fail(CT_ERR_TYPE, "loader_iter(): argument 'loader' must be a loader, not NULL");
    if (l->running) ct__abandon_worker_epoch(l);
    if (l->dataset->iterable) ct__pass_close(l->dataset, &l->pass);
    l->running = true;
    l->sampler_done = false;
    l->sent = l->received = 0;
    /* each new iterator draws base_seed; persistent workers keep theirs */
    if (!(l->o.persistent_workers && l->workers_up)) l->base_seed = ct__draw_seed(l->o.generator);
    ct_result r = l->index_sampler ? ct_sampler_iter(l->index_sampler) : CT_OK;
    if (r == CT_OK && l->o.num_workers > 0) r = ct__begin_worker_epoch(l);
    if (r != CT_OK) l->running = false;
    return r;
}

int ct_loader_next(ct_loader *l, ct_sample *batch)
{
    if (!l) return ct__fail(CT_ERR_TYPE, "loader_next(): argument 'loader' must be a loader, not NULL");
    if (!batch) return ct__fail(CT_ERR_TYPE, "loader_next(): argument 'batch' must be a sample, not NULL");
    memset(batch, 0, sizeof *batch);
    if (!l->running) {
        ct_result r = ct_loader_iter(l);
        if (r != CT_OK) return r;
    }
    return l->o.num_workers > 0 ? ct__next_from_workers(l, batch) : ct__next_here(l, batch);
}

void ct_loader_free(ct_loader *l)
{
    if (!l) return;
    ct__stop_workers(l);
    if (l->dataset->iterable) ct__pass_close(l->dataset, &l->pass);
    ct_sampler_free(l->index_sampler);
    ct_dataset_free(l->dataset);
    CT_FREE(l);
}

/* ==================== io/file.c ==================== */
// >>io/file.c
/* Reading files for the readers: a file's bytes memory-mapped (copy on write,
 * so a tensor over them may be written without touching the file) where the
 * system allows, read into memory otherwise, and gzip files decompressed
 * through zlib when built with CTORCH_ZLIB. A tensor made over the bytes owns
 * them: its deleter unmaps or frees them. */

#include <errno.h>
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define CT__HAVE_MMAP 1
#endif
#ifdef CTORCH_ZLIB
#include <zlib.h>
#endif

typedef struct ct__bytes {
    unsigned char *data;
    size_t n;
    bool mapped;
} ct__bytes;

static void ct__bytes_free(ct__bytes *b)
{
#ifdef CT__HAVE_MMAP
    if (b->mapped && b->n > 0) munmap(b->data, b->n);
#endif
    if (!b->mapped) CT_FREE(b->data);
    memset(b, 0, sizeof *b);
}

static ct_result ct__file_error(const char *path)
{
    return ct__fail(CT_ERR_IO, "[Errno %d] %s: '%s'", errno, strerror(errno), path);
}

static bool ct__is_gzip(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* The whole of a gzip file, decompressed. */
static ct_result ct__read_gzip(const char *path, ct__bytes *out)
{
#ifdef CTORCH_ZLIB
    errno = 0;
    gzFile f = gzopen(path, "rb");
    if (!f) return errno ? ct__file_error(path) : CT__OOM();
    size_t cap = 1 << 20, n = 0;
    unsigned char *buf = (unsigned char *)CT_MALLOC(cap);
    ct_result r = buf ? CT_OK : CT__OOM();
    for (int got = 1; r == CT_OK && got > 0;) {
        if (n == cap) {
            unsigned char *b = (unsigned char *)CT_REALLOC(buf, cap * 2);
            if (!b) r = CT__OOM();
            else buf = b, cap *= 2;
        }
        unsigned chunk = (unsigned)CT__MIN(cap - n, (size_t)1 << 30);
        got = r == CT_OK ? gzread(f, buf + n, chunk) : 0;
        if (got < 0) r = ct__fail(CT_ERR_IO, "'%s' is not a valid gzip file", path);
        else n += (size_t)got;
    }
    gzclose(f);
    if (r != CT_OK) {
        CT_FREE(buf);
        return r;
    }
    out->data = buf;
    out->n = n;
    out->mapped = false;
    return CT_OK;
#else
    (void)out;
    return ct__fail(CT_ERR_RUNTIME, "reading '%s' needs zlib: build ctorch with -DCTORCH_ZLIB and link with -lz", path);
#endif
}

/* The whole of a plain file: mapped, or read. */
static ct_result ct__read_plain(const char *path, ct__bytes *out)
{
#ifdef CT__HAVE_MMAP
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0) return ct__file_error(path);
    if (fstat(fd, &st) != 0) {
        ct_result r = ct__file_error(path);
        close(fd);
        return r;
    }
    out->n = (size_t)st.st_size;
    out->mapped = true;
    out->data = NULL;
    if (out->n > 0) {
        void *p = mmap(NULL, out->n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            ct_result r = ct__file_error(path);
            close(fd);
            return r;
        }
        out->data = (unsigned char *)p;
    }
    close(fd);
    return CT_OK;
#else
    FILE *f = fopen(path, "rb");
    if (!f) return ct__file_error(path);
    size_t cap = 1 << 20, n = 0;
    unsigned char *buf = (unsigned char *)CT_MALLOC(cap);
    for (size_t got = 1; buf && got > 0; n += got) {
        if (n == cap) {
            unsigned char *b = (unsigned char *)CT_REALLOC(buf, cap * 2);
            if (!b) CT_FREE(buf);
            buf = b, cap *= 2;
            if (!buf) break;
        }
        got = fread(buf + n, 1, cap - n, f);
    }
    fclose(f);
    if (!buf) return CT__OOM();
    out->data = buf;
    out->n = n;
    out->mapped = false;
    return CT_OK;
#endif
}

static ct_result ct__read_bytes(const char *path, ct__bytes *out)
{
    memset(out, 0, sizeof *out);
    if (!path) return ct__fail(CT_ERR_TYPE, "expected a file path, not NULL");
    return ct__is_gzip(path) ? ct__read_gzip(path, out) : ct__read_plain(path, out);
}

static void ct__bytes_deleter(void *data, void *ctx)
{
    (void)data;
    ct__bytes_free((ct__bytes *)ctx);
    CT_FREE(ctx);
}

/* A tensor over b's bytes from offset, which it then owns (b is emptied);
 * strides NULL for contiguous. On failure b is freed. */
static ct_tensor *ct__tensor_over(ct__bytes *b, size_t offset, ct_shape shape, const int64_t *strides, ct_dtype dtype)
{
    ct__bytes *own = (ct__bytes *)CT_MALLOC(sizeof *own);
    if (!own) {
        ct__bytes_free(b);
        CT__OOM();
        return NULL;
    }
    *own = *b;
    memset(b, 0, sizeof *b);
    ct_tensor *t = ct_from_blob(own->data ? own->data + offset : NULL, shape, strides, dtype, ct__bytes_deleter, own);
    if (!t) ct__bytes_deleter(NULL, own);
    return t;
}

/* Reverse the bytes of each of n elements of size es (big-endian data). */
static void ct__swap_bytes(unsigned char *p, int64_t n, size_t es)
{
    for (int64_t i = 0; es > 1 && i < n; i++, p += es)
        for (size_t a = 0, z = es - 1; a < z; a++, z--) {
            unsigned char c = p[a];
            p[a] = p[z];
            p[z] = c;
        }
}

static bool ct__little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* ==================== io/idx.c ==================== */
// >>io/idx.c
/* IDX files (MNIST, Fashion-MNIST; yann.lecun.com/exdb/mnist): a 4-byte magic
 * (0, 0, type, ndim), ndim big-endian uint32 sizes, then big-endian data. */

static ct_dtype ct__idx_dtype(unsigned char code)
{
    switch (code) {
    case 0x08: return CT_U8;
    case 0x09: return CT_I8;
    case 0x0B: return CT_I16;
    case 0x0C: return CT_I32;
    case 0x0D: return CT_F32;
    case 0x0E: return CT_F64;
    default: return CT_DEFAULT;
    }
}

static uint32_t ct__be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

ct_tensor *ct_read_idx(const char *path)
{
    ct__bytes b;
    if (ct__read_bytes(path, &b) != CT_OK) return NULL;
    const unsigned char *p = b.data;
    ct_dtype dt = b.n >= 4 ? ct__idx_dtype(p[2]) : CT_DEFAULT;
    int ndim = b.n >= 4 ? p[3] : 0;
    size_t head = 4 + 4 * (size_t)ndim;
    ct_shape shape;
    shape.ndim = ndim;
    int64_t numel = 1;
    bool ok = b.n >= 4 && p[0] == 0 && p[1] == 0 && dt != CT_DEFAULT && ndim <= CT_MAX_DIMS && b.n >= head;
    for (int d = 0; ok && d < ndim; d++) {
        shape.size[d] = ct__be32(p + 4 + 4 * d);
        ok = ct__mul_ok(numel, shape.size[d], &numel);
    }
    size_t es = ok ? ct_dtype_size(dt) : 0;
    if (!ok || (uint64_t)numel > (b.n - head) / es) {
        ct__bytes_free(&b);
        ct__fail(CT_ERR_VALUE, "'%s' is not an IDX file (bad magic number, or shorter than its header says)", path);
        return NULL;
    }
    if (ct__little_endian()) ct__swap_bytes(b.data + head, numel, es);
    return ct__tensor_over(&b, head, shape, NULL, dt);
}

ct_dataset *ct_idx_dataset(const char *images_path, const char *labels_path)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *t[2] = {ct_read_idx(images_path), NULL};
    t[1] = t[0] ? ct_to(ct_read_idx(labels_path), CT_I64) : NULL;
    ct_dataset *d = t[1] ? ct_tensor_dataset(t, 2) : NULL;
    ct_scope_end(s);
    return d;
}

/* ==================== io/csv.c ==================== */
// >>io/csv.c
/* Numeric CSV (numpy.loadtxt with a delimiter): every field a number. */

/* Parse the rows after skip_rows into a growing array of doubles. */
static ct_result ct__parse_csv(char *text, size_t n, ct_csv_opts o, double **vals, int64_t *rows,
                               int64_t *cols)
{
    char delim = o.delimiter ? o.delimiter : ',';
    const char field_end[3] = {delim, '\r', 0};
    int64_t cap = 1024, count = 0, line_no = 0;
    double *v = (double *)CT_MALLOC((size_t)cap * sizeof *v);
    if (!v) return CT__OOM();
    *rows = 0, *cols = -1;
    for (char *line = text, *end; line < text + n; line = end + 1) {
        end = (char *)memchr(line, '\n', (size_t)(text + n - line));
        if (!end) end = text + n;
        *end = 0;
        if (line_no++ < o.skip_rows || line[strspn(line, " \t\r")] == 0) continue;
        int64_t c = 0;
        for (char *f = line;; f++) {
            char *stop;
            double x = strtod(f, &stop);
            char *after = stop + strspn(stop, " \t\r");
            if (stop == f || (*after != delim && *after != 0)) {
                size_t len = strcspn(f, field_end);
                CT_FREE(v);
                return ct__fail(CT_ERR_VALUE, "could not convert string '%.*s' to float64 at row %lld, column %lld.",
                                (int)len, f, (long long)(line_no - 1), (long long)(c + 1));
            }
            if (count == cap) {
                double *g = (double *)CT_REALLOC(v, (size_t)(cap *= 2) * sizeof *v);
                if (!g) {
                    CT_FREE(v);
                    return CT__OOM();
                }
                v = g;
            }
            v[count++] = x;
            c++;
            if (*after == 0) break;
            f = after;
        }
        if (*cols >= 0 && c != *cols) {
            CT_FREE(v);
            return ct__fail(CT_ERR_VALUE, "the number of columns changed from %lld to %lld at row %lld; use `usecols` to "
                            "select a subset and avoid this error", (long long)*cols, (long long)c, (long long)line_no);
        }
        *cols = c;
        (*rows)++;
    }
    if (*cols < 0) *cols = 0;
    *vals = v;
    return CT_OK;
}

ct_tensor *ct_read_csv(const char *path, ct_csv_opts opts)
{
    if (opts.skip_rows < 0) {
        ct__fail(CT_ERR_VALUE, "skiprows must be >= 0, not %d", opts.skip_rows);
        return NULL;
    }
    ct__bytes b;
    if (ct__read_bytes(path, &b) != CT_OK) return NULL;
    /* a NUL-terminated copy to parse in place */
    char *text = (char *)CT_MALLOC(b.n + 1);
    if (!text) {
        ct__bytes_free(&b);
        CT__OOM();
        return NULL;
    }
    if (b.n) memcpy(text, b.data, b.n);
    text[b.n] = 0;
    size_t n = b.n;
    ct__bytes_free(&b);
    double *vals = NULL;
    int64_t rows = 0, cols = 0;
    ct_result r = ct__parse_csv(text, n, opts, &vals, &rows, &cols);
    CT_FREE(text);
    if (r != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    ct_dtype dt = opts.dtype == CT_DEFAULT ? ct_get_default_dtype() : opts.dtype;
    ct_tensor *t = ct_keep(ct_to(ct_from_array(vals, CT_SHAPE(rows, cols), CT_F64), dt));
    ct_scope_end(s);
    CT_FREE(vals);
    return t;
}

/* ==================== io/npy.c ==================== */
// >>io/npy.c
/* NumPy's .npy format (numpy/lib/format.py): "\x93NUMPY", version, header
 * length, a Python dict literal {'descr': '<f4', 'fortran_order': False,
 * 'shape': (2, 3), } padded with spaces to a multiple of 64 bytes, then data. */

/* numpy's type string (without byte order) for a dtype, NULL where numpy has none. */
static const char *ct__npy_descr(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: return "b1";
    case CT_U8: return "u1";
    case CT_I8: return "i1";
    case CT_I16: return "i2";
    case CT_I32: return "i4";
    case CT_I64: return "i8";
    case CT_F16: return "f2";
    case CT_F32: return "f4";
    case CT_F64: return "f8";
    default: return NULL;
    }
}

static ct_dtype ct__npy_dtype(const char *descr)
{
    for (int d = CT_BOOL; d < CT_NUM_DTYPES; d++) {
        const char *s = ct__npy_descr((ct_dtype)d);
        if (s && strncmp(descr, s, 2) == 0 && descr[2] == '\'') return (ct_dtype)d;
    }
    return CT_DEFAULT;
}

/* The value after 'key': in the header dict, or NULL. */
static const char *ct__npy_field(const char *head, const char *key)
{
    const char *p = strstr(head, key);
    if (!p) return NULL;
    p = strchr(p + strlen(key), ':');
    return p ? p + 1 + strspn(p + 1, " ") : NULL;
}

/* Parse the header dict: dtype, byte order, order and shape. */
static ct_result ct__npy_header(const char *path, const char *head, ct_dtype *dt, bool *swap, bool *fortran,
                                ct_shape *shape)
{
    const char *descr = ct__npy_field(head, "'descr'"), *order = ct__npy_field(head, "'fortran_order'");
    const char *sh = ct__npy_field(head, "'shape'");
    if (!descr || *descr != '\'' || !order || !sh || *sh != '(')
        return ct__fail(CT_ERR_VALUE, "'%s' is not a .npy file (its header cannot be read)", path);
    char endian = descr[1];
    *dt = strchr("<>|=", endian) ? ct__npy_dtype(descr + 2) : CT_DEFAULT;
    if (*dt == CT_DEFAULT) {
        static const char *const names[][2] = {{"u2", "uint16"}, {"u4", "uint32"}, {"u8", "uint64"}, {"c8", "complex64"},
                                               {"c16", "complex128"}, {"O", "object_"}};
        const char *name = NULL;
        size_t len = strcspn(descr + 2, "'");
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i][0]) == len && strncmp(descr + 2, names[i][0], len) == 0) name = names[i][1];
        return ct__fail(CT_ERR_TYPE, "can't convert np.ndarray of type numpy.%.*s. The only supported types are: float64, "
                        "float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.",
                        name ? (int)strlen(name) : (int)len, name ? name : descr + 2);
    }
    *swap = endian == '>' ? ct__little_endian() : endian == '<' ? !ct__little_endian() : false;
    *fortran = strncmp(order, "True", 4) == 0;
    shape->ndim = 0;
    for (const char *p = sh + 1; *p != ')';) {
        char *stop;
        long long v = strtoll(p, &stop, 10);
        if (stop == p || v < 0 || shape->ndim == CT_MAX_DIMS)
            return ct__fail(CT_ERR_VALUE, "'%s' is not a .npy file (bad shape)", path);
        shape->size[shape->ndim++] = v;
        p = stop + strspn(stop, " ,");
    }
    return CT_OK;
}

ct_tensor *ct_load_npy(const char *path)
{
    ct__bytes b;
    if (ct__read_bytes(path, &b) != CT_OK) return NULL;
    const unsigned char *p = b.data;
    bool magic = b.n >= 12 && memcmp(p, "\x93NUMPY", 6) == 0 && p[6] >= 1 && p[6] <= 3;
    size_t start = magic && p[6] == 1 ? 10 : 12, hlen = 0; /* version 1: a 2-byte length, else 4 (little-endian) */
    for (size_t i = start; magic && i-- > 8;) hlen = hlen << 8 | p[i];
    if (!magic || b.n < start + hlen) {
        ct__bytes_free(&b);
        ct__fail(CT_ERR_VALUE, "'%s' is not a .npy file (bad magic string or header length)", path);
        return NULL;
    }
    char *head = (char *)CT_MALLOC(hlen + 1);
    ct_dtype dt = CT_DEFAULT;
    bool swap = false, fortran = false;
    ct_shape shape;
    ct_result r = head ? CT_OK : CT__OOM();
    if (head) {
        memcpy(head, p + start, hlen);
        head[hlen] = 0;
        r = ct__npy_header(path, head, &dt, &swap, &fortran, &shape);
        CT_FREE(head);
    }
    int64_t numel = 1;
    for (int d = 0; r == CT_OK && d < shape.ndim; d++)
        if (!ct__mul_ok(numel, shape.size[d], &numel)) r = ct__fail(CT_ERR_VALUE, "'%s': the shape overflows", path);
    if (r == CT_OK && (uint64_t)numel > (b.n - start - hlen) / ct_dtype_size(dt))
        r = ct__fail(CT_ERR_VALUE, "'%s' is shorter than its shape says", path);
    if (r != CT_OK) {
        ct__bytes_free(&b);
        return NULL;
    }
    if (swap) ct__swap_bytes(b.data + start + hlen, numel, ct_dtype_size(dt));
    int64_t strides[CT_MAX_DIMS], step = 1;
    for (int d = 0; fortran && d < shape.ndim; d++) {
        strides[d] = step;
        step *= CT__MAX(shape.size[d], 1);
    }
    return ct__tensor_over(&b, start + hlen, shape, fortran ? strides : NULL, dt);
}

ct_result ct_save_npy(const char *path, const ct_tensor *t)
{
    CT__ARG_R(t, "tensor", 2);
    const char *descr = ct__npy_descr(t->dtype);
    if (!descr) return ct__fail(CT_ERR_TYPE, "Got unsupported ScalarType %s", t->dtype == CT_BF16 ? "BFloat16" : "?");
    char head[64 + 24 * CT_MAX_DIMS];
    int n = snprintf(head, sizeof head, "{'descr': '%c%s', 'fortran_order': False, 'shape': (",
                     t->dtype == CT_BOOL || t->dtype == CT_U8 || t->dtype == CT_I8 ? '|' : '<', descr);
    for (int d = 0; d < t->ndim; d++) /* Python's tuple: (), (3,), (2, 3) */
        n += snprintf(head + n, sizeof head - (size_t)n, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    n += snprintf(head + n, sizeof head - (size_t)n, "%s), }", t->ndim == 1 ? "," : "");
    int total = (10 + n + 1 + 63) / 64 * 64; /* with the newline, a multiple of 64 */
    while (10 + n + 1 < total) head[n++] = ' ';
    head[n++] = '\n';
    ct_scope s = ct_scope_begin();
    ct_tensor *c = ct_contiguous(t);
    FILE *f = c ? fopen(path, "wb") : NULL;
    ct_result r = !c ? ct_last_error_code() : !f ? ct__file_error(path) : CT_OK;
    if (f) {
        unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 0xff), (unsigned char)(n >> 8)};
        size_t bytes = (size_t)ct_numel(c) * ct_dtype_size(c->dtype);
        bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(head, 1, (size_t)n, f) == (size_t)n &&
                  (bytes == 0 || fwrite(ct__data(c), 1, bytes, f) == bytes);
        if (fclose(f) != 0 || !ok) r = ct__file_error(path);
    }
    ct_scope_end(s);
    return r;
}

#endif /* CTORCH_IMPLEMENTATION */
