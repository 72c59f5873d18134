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
/* Where memory runs out to open one (past 32 nested), the error is set and
 * the scope returned ends nothing: its tensors go to the enclosing scope. */
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
CTORCH_API bool ct_is_cuda(const ct_tensor *t);                  /* Tensor.is_cuda */
CTORCH_API size_t ct_element_size(const ct_tensor *t);           /* Tensor.element_size() */
CTORCH_API bool ct_is_contiguous(const ct_tensor *t);            /* Tensor.is_contiguous() */
CTORCH_API bool ct_is_floating_point(const ct_tensor *t);        /* Tensor.is_floating_point() */
CTORCH_API int64_t ct_storage_offset(const ct_tensor *t);        /* Tensor.storage_offset() */
/* Tensor.data_ptr(): the address of the first element (NULL for an empty tensor). */
CTORCH_API void *ct_data_ptr(const ct_tensor *t);
/* Tensor.storage().data_ptr(): equal for every view of one storage. */
CTORCH_API void *ct_storage_data_ptr(const ct_tensor *t);
/* Tensor.record_stream(s): t's memory is in use on stream s too, so the
 * caching allocator does not hand it out again, once t is freed, before
 * the work queued on s by then has finished. */
CTORCH_API ct_result ct_record_stream(const ct_tensor *t, ct_stream s);
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
/* Tensor.to(device, non_blocking=): t itself when it is on device already,
 * else a copy there (recorded: its gradient goes back to t's device). With
 * non_blocking the copy may still be running when this returns; it is done
 * before any later use on the device, and a host read of the copy waits. */
CTORCH_API ct_tensor *ct_to_device(const ct_tensor *t, ct_device device, bool non_blocking);
/* Tensor.pin_memory(): t copied into page-locked host memory (t itself if
 * it is there already), which a device copies from and to without the
 * host waiting (ct_to_device with non_blocking). Needs the CUDA backend. */
CTORCH_API ct_tensor *ct_pin_memory(const ct_tensor *t);
/* Tensor.is_pinned() (false for NULL). */
CTORCH_API bool ct_is_pinned(const ct_tensor *t);
/* Tensor.cuda() (the current CUDA device) and Tensor.cpu(). */
CTORCH_API ct_tensor *ct_cuda(const ct_tensor *t);
CTORCH_API ct_tensor *ct_cpu(const ct_tensor *t);

/* ---------------------------------------------------------------- indexing */

/* t[spec] in Python's notation: ints, slices (start:stop:step, any part
 * omitted), "...", "None", "True"/"False", and lists of ints ("[0, 2]"), with
 * "%t" taking a ct_tensor* (int64 indices or a bool mask) and "%d" an int from
 * the arguments. Basic indexing returns a view, as in PyTorch; list, tensor and
 * mask indices gather a copy. Example: ct_index(t, "1:4, :4:2"). Tensor
 * indices must be on the CPU or on t's device. */
CTORCH_API ct_tensor *ct_index(const ct_tensor *t, const char *spec, ...);
/* t[spec] = value (value broadcast to the indexed shape and converted).
 * Tensor indices may be on any device: they are moved to t's, as PyTorch's
 * index_put_ moves them. */
CTORCH_API ct_result ct_index_put_(ct_tensor *t, const ct_tensor *value, const char *spec, ...);
/* Tensor.index_put_(indices, value, accumulate=True): t[spec] += value where
 * a position named twice adds twice; value must have t's dtype. */
CTORCH_API ct_result ct_index_put_accumulate_(ct_tensor *t, const ct_tensor *value, const char *spec, ...);

/* ---------------------------------------------------------------- random numbers */

/* torch.manual_seed: seeds the CPU's default generator and every device's
 * (those not yet in use start from it). */
CTORCH_API void ct_manual_seed(uint64_t seed);
/* torch.initial_seed / torch.seed (a fresh seed from the clock, returned). */
CTORCH_API uint64_t ct_initial_seed(void);
CTORCH_API uint64_t ct_seed(void);
/* The CPU's default generator (torch.default_generator); do not free it. */
CTORCH_API ct_generator *ct_default_generator(void);
/* A device's default generator (torch.cuda.default_generators[i]), the one
 * its random ops use when given none; do not free it. Like the CPU's, it
 * starts from the seed 67280421310721 until ct_manual_seed. NULL with the
 * error set for a device that is not there. */
CTORCH_API ct_generator *ct_device_default_generator(ct_device device);
/* torch.Generator(): a new CPU generator, seeded with 67280421310721 as PyTorch's. */
CTORCH_API ct_generator *ct_generator_new(void);
/* torch.Generator(device=): a new generator for the random ops of that
 * device's tensors, seeded likewise; a device type with no backend linked
 * in: "Device type CUDA is not supported for torch.Generator() api.". */
CTORCH_API ct_generator *ct_generator_new_device(ct_device device);
CTORCH_API void ct_generator_free(ct_generator *g);
/* Generator.device. */
CTORCH_API ct_device ct_generator_device(const ct_generator *g);
CTORCH_API void ct_generator_manual_seed(ct_generator *g, uint64_t seed);
CTORCH_API uint64_t ct_generator_initial_seed(const ct_generator *g);
/* Generator.get_state / set_state: the whole state as ct_generator_state_size(g)
 * bytes, laid out as PyTorch's (a CPU generator's: torch.get_rng_state() bytes
 * load here; a device's: its backend's, CUDA's seed and Philox offset). */
CTORCH_API size_t ct_generator_state_size(const ct_generator *g);
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
/* Tensor.random_(from, None): integers from `from` up to the dtype's largest
 * (2**digits for a floating one: 2**53 for float64); from 0 that is
 * Tensor.random_(), and from INT64_MIN every int64 (int64, float64, float32
 * and bfloat16 only). */
CTORCH_API ct_result ct_random_from_(ct_tensor *t, int64_t from, ct_generator *g);
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
 * set to "", when t is NULL or a view whose history autograd refuses to read
 * (its repr shows its grad_fn: PyTorch raises there too). */
CTORCH_API int ct_to_string(const ct_tensor *t, char *buf, size_t n);
/* print(t): repr(t) and a newline on stdout (nothing for NULL, whose error is
 * kept, nor for a tensor ct_to_string refuses, with its error set). */
CTORCH_API void ct_print(const ct_tensor *t);
/* print(t.shape): "torch.Size([2, 3])" and a newline. */
CTORCH_API void ct_print_shape(const ct_tensor *t);
