/* Private: helpers that every op uses (dims, shapes, making tensors and
 * views, devices); the storage and tensor structs are in backend.h. */

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

/* The backend of a device type (NULL when it is not linked in). */
static const ct_backend *ct__backend_for(ct_device_type type);

static const ct_device ct__cpu = {CT_DEVICE_CPU, -1};

/* Devices (src/tensor/device.c). */
/* The device creation functions without one use (ct_set_default_device, a guard). */
static ct_device ct__default_device(void);
/* A device a user named, made concrete (the default resolved, index -1 the
 * current one), or PyTorch's error for one that is not there. */
static ct_result ct__device_resolve(ct_device *d);
/* d's index, or, for -1, the calling thread's current index of its type
 * (ct_cuda_set_device). */
static int ct__index_or_current(ct_device d);
/* The device the n tensors (NULL skipped) share, or PyTorch's "Expected all
 * tensors to be on the same device" error; with cpu_scalars a 0-d CPU
 * tensor goes with any device (TensorIterator's rule). */
static ct_result ct__common_device(const ct_tensor *const *ts, int n, bool cpu_scalars, ct_device *out);
/* The same check for up to three tensors (NULL skipped), no CPU scalars:
 * what ops other than TensorIterator's ask of their arguments. */
static ct_result ct__same_device(const ct_tensor *a, const ct_tensor *b, const ct_tensor *c);
/* t's elements readable by the host: t on the CPU, else a contiguous CPU
 * copy in the open scope (a synchronisation point). */
static const ct_tensor *ct__host(const ct_tensor *t);
/* The backend that copies between dst and src: the device side's (the
 * destination's when both are on devices). */
static const ct_backend *ct__copy_backend(const ct_tensor *dst, const ct_tensor *src);
/* Tensor.to(device, dtype, non_blocking) (dtype CT_DEFAULT: t's), recorded as ToCopyBackward0. */
static ct_tensor *ct__to_device(const ct_tensor *t, ct_device device, ct_dtype dtype, bool non_blocking);

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
/* t / number as PyTorch's C++ divides (at::div(Tensor, Scalar), which its
 * composite backward formulas call): DivBackward1, with an edge to t alone,
 * where ct_div_scalar is Python's t / number (DivBackward0, whose number
 * keeps an empty edge). The numbers are ct_div_scalar's (src/ops/pointwise.c). */
static ct_tensor *ct__div_number(const ct_tensor *t, ct_scalar number);

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
