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
    uint8_t view_made;   /* a view's ct__view_made: whether its history may be rewritten */
    bool hosts_storage;  /* its block holds a storage too (a small CPU tensor, ct__alloc_strided) */
    uint32_t view_version; /* a view: its storage's version when its grad_fn was last set */
    struct ct_tensor *base; /* a view's base (Tensor._base), never itself a view; strong. NULL: not a view */
    struct ct__ag_meta *ag; /* autograd state (src/autograd/internal.h), NULL until it takes part */
};

/* A small CPU tensor is one block (ct__tensor_new_hosted): the tensor, then
 * its storage, then up to CT__INLINE_BYTES of data, aligned as malloc aligns,
 * enough for any element (one allocation instead of three for the many tiny
 * tensors of per-op overhead). All such blocks have one size, so that a
 * thread keeps freed ones for its next (ct__block_get). The storage may
 * outlive the tensor (views hold it), so the tensor holds two references to
 * it: one as its storage (dropped early if it takes another, as param.data =
 * x does) and one for the block, dropped when it dies. The last reference
 * frees the block. */
#define CT__INLINE_BYTES 256
#define CT__HOSTED_AT ((sizeof(ct_tensor) + 15) & ~(size_t)15)
#define CT__INLINE_AT ((sizeof(ct__storage) + 15) & ~(size_t)15)
#define CT__HOSTED_BLOCK (CT__HOSTED_AT + CT__INLINE_AT + CT__INLINE_BYTES)

/* How a view was made (PyTorch's CreationMeta): an in-place op on a view
 * rewrites its base's history, which PyTorch refuses for a view made in
 * no_grad or inference mode, one of several views one op returned, or one a
 * custom Function returned (made in its forward, or an input returned as
 * it is); such a view is also refused to autograd once its base was written
 * (its history cannot be regenerated). */
typedef enum ct__view_made {
    CT__VIEW_MADE_DEFAULT,
    CT__VIEW_MADE_NO_GRAD,
    CT__VIEW_MADE_MULTI_OUTPUT,
    CT__VIEW_MADE_INFERENCE,
    CT__VIEW_MADE_IN_CUSTOM_FUNCTION
} ct__view_made;

/* Whether t is a view whose storage was written since its grad_fn was set
 * (or since it was made): autograd's fast path is this one test. */
static inline bool ct__view_is_stale(const ct_tensor *t) { return t->base && t->view_version != t->storage->version; }
/* Whether any of in (n, NULL entries allowed) is such a view. */
static inline bool ct__any_stale_view(const ct_tensor *const *in, int n)
{
    for (int i = 0; i < n; i++)
        if (in[i] && CT__UNLIKELY(ct__view_is_stale(in[i]))) return true;
    return false;
}

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
static inline size_t ct__esize(const ct_tensor *t) { return ct__dtype_sizes[t->dtype]; } /* (always a real dtype) */
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
/* Python's repr of a tuple of k ints into buf: "(2, 3)", "(4,)". */
static const char *ct__tuple_str(const int64_t *v, int k, char *buf, size_t n);

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
