/* Storage and tensor objects, refcounts, scopes, properties. */

/* ---------------------------------------------------------------- storage */

/* A storage of nbytes from the device's allocator. */
static ct__storage *ct__storage_new(size_t nbytes, ct_device device)
{
    ct__storage *s = (ct__storage *)CT_MALLOC(sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->refcount = 1;
    s->nbytes = nbytes;
    s->device = device;
    s->owned = true;
    s->inference = ct_is_inference_mode_enabled();
    if (nbytes) {
        s->data = ct__backend_for(device.type)->alloc(nbytes, device.index);
        if (!s->data) {
            CT_FREE(s);
            return NULL;
        }
    }
    return s;
}

/* The deleter of a storage that lives in its tensor's block (ctx): the block
 * goes when the last of the tensor and the storage's views is gone. */
static void ct__hosted_block_free(void *data, void *ctx)
{
    (void)data;
    ct__block_put(ctx);
}

static void ct__storage_release(ct__storage *s)
{
    if (!ct__last_reference(&s->refcount)) return;
    if (s->deleter == ct__hosted_block_free) { /* the struct itself lies in that block */
        ct__hosted_block_free(s->data, s->deleter_ctx);
        return;
    }
    if (s->owned && s->data) ct__backend_for(s->device.type)->free(s->data, s->nbytes, s->device.index);
    else if (s->deleter) s->deleter(s->data, s->deleter_ctx);
    CT_FREE(s);
}

/* ---------------------------------------------------------------- tensors */

/* A new tensor's fields, its storage reference not yet counted. */
static void ct__tensor_init(ct_tensor *t, ct__storage *storage, ct_dtype dtype, const int64_t *sizes,
                            const int64_t *strides, int ndim, int64_t offset)
{
    ct__zero(t, sizeof *t);
    t->refcount = 1;
    t->ndim = ndim;
    t->dtype = dtype;
    t->offset = offset;
    for (int d = 0; d < ndim; d++) {
        CT__OPAQUE(d); /* a loop, not two calls of memcpy */
        t->sizes[d] = sizes[d];
        t->strides[d] = strides[d];
    }
    t->storage = storage;
}

static ct_tensor *ct__tensor_new(ct__storage *storage, ct_dtype dtype, const int64_t *sizes,
                                 const int64_t *strides, int ndim, int64_t offset)
{
    ct_tensor *t = (ct_tensor *)CT_MALLOC(sizeof *t);
    if (!t) {
        CT__OOM();
        return NULL;
    }
    ct__tensor_init(t, storage, dtype, sizes, strides, ndim, offset);
    CT__ATOMIC_INC(&storage->refcount);
    return ct__own(t);
}

/* (t not const: GCC takes a const pointer to the fresh block for a read of it) */
static ct__storage *ct__hosted_storage(ct_tensor *t) { return (ct__storage *)((char *)t + CT__HOSTED_AT); }

static ct_tensor *ct__tensor_new_hosted(size_t nbytes, ct_dtype dtype, const int64_t *sizes, const int64_t *strides,
                                        int ndim)
{
    ct_tensor *t = (ct_tensor *)ct__block_get();
    if (!t) return NULL;
    ct__storage *s = ct__hosted_storage(t);
    memset(s, 0, sizeof *s);
    s->refcount = 2;
    s->nbytes = nbytes;
    s->device = ct__cpu;
    s->data = nbytes ? (char *)s + CT__INLINE_AT : NULL;
    s->deleter = ct__hosted_block_free;
    s->deleter_ctx = t;
    s->inference = ct_is_inference_mode_enabled();
    ct__tensor_init(t, s, dtype, sizes, strides, ndim, 0);
    t->hosts_storage = true;
    return ct__own(t);
}

static void ct__contiguous_strides(const int64_t *sizes, int ndim, int64_t *strides)
{
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s = ct__mul_wrap(s, sizes[d] > 1 ? sizes[d] : 1); /* overflows only with a zero dim */
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
    if (!strides) {
        ct__contiguous_strides(sizes, ndim, contiguous);
        strides = contiguous;
    }
    bool hosted = device.type == CT_DEVICE_CPU && nbytes <= CT__INLINE_BYTES;
    ct__storage *s = hosted ? NULL : ct__storage_new((size_t)nbytes, device);
    ct_tensor *t = hosted ? ct__tensor_new_hosted((size_t)nbytes, dtype, sizes, strides, ndim) : NULL;
    if (!s && !t && device.type != CT_DEVICE_CPU) return NULL; /* the device's allocator said why */
    if (!s && !t) {
        ct__fail(CT_ERR_MEMORY,
                 "DefaultCPUAllocator: can't allocate memory: you tried to allocate %lld bytes. Error code 12 "
                 "(Cannot allocate memory)",
                 (long long)nbytes);
        return NULL;
    }
    if (hosted) return t;
    t = ct__tensor_new(s, dtype, sizes, strides, ndim, 0);
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
    if (!t || !ct__last_reference(&t->refcount)) return;
    ct__ag_meta_free(t);
    ct_release(t->base);
    if (!t->hosts_storage) {
        ct__storage_release(t->storage);
        CT_FREE(t);
        return;
    }
    ct__storage *hosted = ct__hosted_storage(t);
    if (t->storage == hosted && CT__ATOMIC_LOAD(&hosted->refcount) == 2) { /* both references its own: no view */
        ct__block_put(t);
        return;
    }
    ct__storage_release(t->storage);
    ct__storage_release(hosted); /* frees the block, now or with the last view */
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
        if (!f) { /* cannot track a new scope: tensors go to the enclosing one, and ending
                   * this one must not end that one (depth 0 ends nothing) */
            CT__OOM();
            s.depth = 0;
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

static const char *ct__tuple_str(const int64_t *v, int k, char *buf, size_t n)
{
    int at = snprintf(buf, n, "(");
    for (int i = 0; i < k && at < (int)n; i++) at += snprintf(buf + at, n - (size_t)at, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (at < (int)n) snprintf(buf + at, n - (size_t)at, k == 1 ? ",)" : ")");
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

/* Whether a and b hold the same n sizes (or strides): a loop, which for the
 * one or two dims of most tensors costs less than a call to memcmp. */
static bool ct__dims_equal(const int64_t *a, const int64_t *b, int n)
{
    for (int d = 0; d < n; d++)
        if (a[d] != b[d]) return false;
    return true;
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
bool ct_is_cuda(const ct_tensor *t) { return t && t->storage->device.type == CT_DEVICE_CUDA; }
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
    if (!ct__leaf_field(t)) {
        if (requires_grad) return CT_OK;
        return ct__fail(CT_ERR_RUNTIME, "you can only change requires_grad flags of leaf variables. If you want to use "
                                        "a computed variable in a subgraph that doesn't require differentiation use "
                                        "var_no_grad = var.detach().");
    }
    if (requires_grad && !ct_dtype_is_floating(t->dtype))
        return ct__fail(CT_ERR_RUNTIME, "only Tensors of floating point dtype can require gradients");
    if (requires_grad && t->storage->inference && !ct_is_inference_mode_enabled())
        return ct__fail(CT_ERR_RUNTIME,
                        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
    /* a leaf's autograd state is made now, not by the first op that records
     * it, which may run on several threads at once (shared parameters) */
    if (requires_grad && !ct__meta_get(t)) return ct_last_error_code();
    t->requires_grad = requires_grad;
    return CT_OK;
}
