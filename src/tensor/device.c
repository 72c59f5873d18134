/* Devices: the backend registry, device names, the default device, the
 * same-device rule of ops with several tensors, host reads of device memory
 * and moves between devices. */

/* ---------------------------------------------------------------- registry */

/* Indexed by ct_device_type; the CPU's is built in (src/cpu/copy.c). */
static const ct_backend *ct__backends[CT_NUM_DEVICE_TYPES] = {NULL, &ct__cpu_backend, NULL, NULL};

static const ct_backend *ct__backend_for(ct_device_type type) { return ct__backends[type]; }

static bool ct__stream_table_whole(const ct_stream_kernels *k)
{
    return k->create && k->current && k->set_current && k->handle && k->synchronize && k->query && k->event_create &&
           k->event_destroy && k->event_record && k->event_wait && k->event_synchronize && k->event_query &&
           k->event_elapsed_time && k->record_stream;
}

ct_result ct_register_backend(ct_device_type type, const ct_backend *backend, int abi_version)
{
    if (abi_version != CT_BACKEND_ABI_VERSION)
        return ct__fail(CT_ERR_RUNTIME,
                        "register_backend(): the backend was built for backend interface version %d, this ctorch "
                        "has version %d",
                        abi_version, CT_BACKEND_ABI_VERSION);
    if (type != CT_DEVICE_CUDA && type != CT_DEVICE_PRIVATEUSE1)
        return ct__fail(CT_ERR_VALUE, "register_backend(): only the cuda and privateuseone device types take a backend");
    if (!backend || !backend->name || !backend->device_count || !backend->alloc || !backend->free || !backend->copy ||
        !backend->fill || !backend->has_pointwise || !backend->pointwise || !backend->index || !backend->sorting ||
        !backend->reduce || !backend->gemm || !backend->range || !backend->random || !backend->generator ||
        !backend->generator->seed || !backend->generator->initial_seed || !backend->generator->check_state ||
        !backend->generator->state_bytes || !backend->conv || !backend->linmap ||
        !backend->optim_step || !backend->bn_stats || !backend->synchronize ||
        (backend->memory_stats && (!backend->reset_peak_memory_stats || !backend->empty_cache)) ||
        (backend->streams && !ct__stream_table_whole(backend->streams)) || !backend->host_alloc != !backend->host_free)
        return ct__fail(CT_ERR_VALUE, "register_backend(): the backend table has an empty entry");
    ct__backends[type] = backend;
    return CT_OK;
}

const ct_backend *ct_backend_get(ct_device_type type)
{
    return type > CT_DEVICE_DEFAULT && type < CT_NUM_DEVICE_TYPES ? ct__backends[type] : NULL;
}

/* ---------------------------------------------------------------- names */

/* The type's name in device strings: PrivateUse1 takes its backend's. */
static const char *ct__device_type_name(ct_device_type type)
{
    switch (type) {
    case CT_DEVICE_CPU: return "cpu";
    case CT_DEVICE_CUDA: return "cuda";
    case CT_DEVICE_PRIVATEUSE1:
        return ct__backends[type] ? ct__backends[type]->name : "privateuseone";
    default: return "default";
    }
}

const char *ct_device_str(ct_device d, char *buf, size_t n)
{
    if (!buf || !n) return buf;
    if (d.index < 0) snprintf(buf, n, "%s", ct__device_type_name(d.type));
    else snprintf(buf, n, "%s:%d", ct__device_type_name(d.type), d.index);
    return buf;
}

/* c10::Device's parser: a type name, then optionally ':' and an index
 * without leading zeros. */
ct_result ct_device_parse(const char *s, ct_device *out)
{
    if (!s || !out) return ct__fail(CT_ERR_VALUE, "device(): the string and out must not be NULL");
    if (!*s) return ct__fail(CT_ERR_RUNTIME, "Device string must not be empty");
    size_t len = strcspn(s, ":");
    ct_device d = {CT_DEVICE_DEFAULT, -1};
    for (int t = CT_DEVICE_CPU; t < CT_NUM_DEVICE_TYPES; t++) {
        const char *name = ct__device_type_name((ct_device_type)t);
        if (strlen(name) == len && strncmp(s, name, len) == 0) d.type = (ct_device_type)t;
    }
    const char *ix = s[len] == ':' ? s + len + 1 : NULL;
    bool index_ok = !ix || (ix[0] >= '0' && ix[0] <= '9' && (ix[0] != '0' || ix[1] == 0) &&
                            strspn(ix, "0123456789") == strlen(ix) && strlen(ix) <= 9);
    if (len == 0 || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_") != len || !index_ok)
        return ct__fail(CT_ERR_RUNTIME, "Invalid device string: '%s'", s);
    if (d.type == CT_DEVICE_DEFAULT)
        return ct__fail(CT_ERR_RUNTIME,
                        "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, ort, "
                        "xla, lazy, vulkan, mps, meta, hpu, %s device type at start of device string: %s",
                        ct__device_type_name(CT_DEVICE_PRIVATEUSE1), s);
    if (ix) d.index = atoi(ix);
    *out = d;
    return CT_OK;
}

/* The calling thread's current device index of each type (torch.cuda's
 * current device, per thread as CUDA's is). */
static CT__TLS int ct__current_index[CT_NUM_DEVICE_TYPES];

static int ct__index_or_current(ct_device d) { return d.index < 0 ? ct__current_index[d.type] : d.index; }

bool ct_device_equal(ct_device a, ct_device b)
{
    if (a.type != b.type) return false;
    if (a.type == CT_DEVICE_CPU) return true;
    return ct__index_or_current(a) == ct__index_or_current(b);
}

/* ---------------------------------------------------------------- checks */

static int ct__device_count(ct_device_type type)
{
    const ct_backend *be = ct_backend_get(type);
    return be ? be->device_count() : 0;
}

static bool ct__allow_tf32_matmul; /* read by the CUDA backend at each product */
void ct_set_allow_tf32_matmul(bool allow) { ct__allow_tf32_matmul = allow; }
bool ct_allow_tf32_matmul(void) { return ct__allow_tf32_matmul; }


static ct_device ct__default_device(void);

/* A device a user asked for, made concrete: the default resolved, an
 * index of -1 made the calling thread's current one (ct_cuda_set_device),
 * the CPU's index -1 whatever was asked (PyTorch ignores it); errors in
 * PyTorch's words for a device type with no backend or no such device. */
static ct_result ct__device_resolve(ct_device *d)
{
    if (d->type == CT_DEVICE_DEFAULT) {
        *d = ct__default_device();
        return CT_OK;
    }
    if (d->type == CT_DEVICE_CPU) {
        d->index = -1;
        return CT_OK;
    }
    if (d->type < 0 || d->type >= CT_NUM_DEVICE_TYPES) return ct__fail(CT_ERR_VALUE, "invalid device type %d", (int)d->type);
    const ct_backend *be = ct__backends[d->type];
    if (!be && d->type == CT_DEVICE_CUDA) return ct__fail(CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    if (!be) return ct__fail(CT_ERR_RUNTIME, "PrivateUse1 backend is not registered (register_backend)");
    int count = be->device_count();
    if (count == 0 && d->type == CT_DEVICE_CUDA)
        return ct__fail(CT_ERR_RUNTIME, "Found no NVIDIA driver on your system. Please check that you have an NVIDIA "
                                        "GPU and installed a driver from http://www.nvidia.com/Download/index.aspx");
    d->index = ct__index_or_current(*d);
    if (d->index >= count) {
        if (d->type == CT_DEVICE_CUDA) return ct__fail(CT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
        return ct__fail(CT_ERR_RUNTIME, "%s device index %d is out of range (%d devices)", be->name, d->index, count);
    }
    return CT_OK;
}

bool ct_cuda_is_available(void) { return ct__device_count(CT_DEVICE_CUDA) > 0; }
int ct_cuda_device_count(void) { return ct__device_count(CT_DEVICE_CUDA); }

ct_result ct_cuda_set_device(int index)
{
    if (index < 0) return CT_OK;
    ct_device d = CT_CUDA(index);
    ct_result r = ct__device_resolve(&d);
    if (r == CT_OK) ct__current_index[CT_DEVICE_CUDA] = index;
    return r;
}

int ct_cuda_current_device(void)
{
    ct_device d = CT_CUDA(-1);
    return ct__device_resolve(&d) == CT_OK ? d.index : -1;
}

ct_result ct_synchronize(ct_device d)
{
    ct_result r = ct__device_resolve(&d);
    if (r == CT_OK && d.type != CT_DEVICE_CPU) ct__backends[d.type]->synchronize(d.index);
    return r;
}

/* ---------------------------------------------------------------- memory statistics */

/* The backend of device *d (resolved), which must keep memory statistics. */
static ct_result ct__stats_backend(ct_device *d, const ct_backend **be)
{
    ct_result r = ct__device_resolve(d);
    if (r != CT_OK) return r;
    *be = ct__backends[d->type];
    if ((*be)->memory_stats) return CT_OK;
    char name[32];
    return ct__fail(CT_ERR_VALUE, "Expected a cuda device, but got: %s", ct_device_str(*d, name, sizeof name));
}

ct_result ct_memory_stats(ct_device d, ct_memory_counters *out)
{
    CT__ARG_R(out, "out", 2);
    const ct_backend *be;
    ct_result r = ct__stats_backend(&d, &be);
    if (r == CT_OK) be->memory_stats(d.index, out);
    return r;
}

ct_result ct_reset_peak_memory_stats(ct_device d)
{
    const ct_backend *be;
    ct_result r = ct__stats_backend(&d, &be);
    if (r == CT_OK) be->reset_peak_memory_stats(d.index);
    return r;
}

ct_result ct_empty_cache(ct_device d)
{
    const ct_backend *be;
    ct_result r = ct__stats_backend(&d, &be);
    if (r == CT_OK) be->empty_cache(d.index);
    return r;
}

/* ---------------------------------------------------------------- streams and events */

/* The stream functions of device *d (resolved), which must have streams:
 * PyTorch's words for one that has none. */
static ct_result ct__stream_backend(ct_device *d, const ct_stream_kernels **k)
{
    ct_result r = ct__device_resolve(d);
    if (r != CT_OK) return r;
    if ((*k = ct__backends[d->type]->streams)) return CT_OK;
    char name[32];
    return ct__fail(CT_ERR_VALUE, "Expected a cuda device, but got: %s", ct_device_str(*d, name, sizeof name));
}

ct_result ct_stream_new(ct_device device, int priority, ct_stream *out)
{
    CT__ARG_R(out, "out", 3);
    const ct_stream_kernels *k;
    ct_result r = ct__stream_backend(&device, &k);
    int64_t id = 0;
    if (r == CT_OK) r = k->create(device.index, priority, &id);
    if (r == CT_OK) out->device = device, out->id = id;
    return r;
}

/* The current (or default) stream of device into *out. */
static ct_result ct__stream_of(ct_device device, bool current, ct_stream *out)
{
    CT__ARG_R(out, "out", 2);
    const ct_stream_kernels *k;
    ct_result r = ct__stream_backend(&device, &k);
    if (r == CT_OK) out->device = device, out->id = current ? k->current(device.index) : 0;
    return r;
}

ct_result ct_current_stream(ct_device device, ct_stream *out) { return ct__stream_of(device, true, out); }
ct_result ct_default_stream(ct_device device, ct_stream *out) { return ct__stream_of(device, false, out); }

ct_result ct_set_stream(ct_stream s)
{
    const ct_stream_kernels *k;
    ct_result r = ct__stream_backend(&s.device, &k);
    return r == CT_OK ? k->set_current(s.device.index, s.id) : r;
}

ct_stream_guard ct_stream_guard_begin(ct_stream s)
{
    ct_stream_guard g = {{s.device, 0}, false};
    g.active = ct_current_stream(s.device, &g.previous) == CT_OK && ct_set_stream(s) == CT_OK;
    return g;
}

void ct_stream_guard_end(ct_stream_guard g)
{
    if (g.active) ct_set_stream(g.previous);
}

ct_result ct_stream_handle(ct_stream s, void **out)
{
    CT__ARG_R(out, "out", 2);
    const ct_stream_kernels *k;
    ct_result r = ct__stream_backend(&s.device, &k);
    return r == CT_OK ? k->handle(s.device.index, s.id, out) : r;
}

ct_result ct_stream_synchronize(ct_stream s)
{
    const ct_stream_kernels *k;
    ct_result r = ct__stream_backend(&s.device, &k);
    return r == CT_OK ? k->synchronize(s.device.index, s.id) : r;
}

ct_result ct_stream_query(ct_stream s, bool *done)
{
    CT__ARG_R(done, "done", 2);
    const ct_stream_kernels *k;
    ct_result r = ct__stream_backend(&s.device, &k);
    return r == CT_OK ? k->query(s.device.index, s.id, done) : r;
}

struct ct_event {
    ct_event_opts opts;
    ct_device device;              /* CPU until the first record */
    const ct_stream_kernels *kind; /* NULL until the first record */
    void *handle;
};

ct_event *ct_event_new(ct_event_opts opts)
{
    ct_event *e = (ct_event *)CT_MALLOC(sizeof *e);
    if (!e) {
        CT__OOM();
        return NULL;
    }
    e->opts = opts, e->device = CT_CPU, e->kind = NULL, e->handle = NULL;
    return e;
}

void ct_event_free(ct_event *e)
{
    if (e && e->handle) e->kind->event_destroy(e->device.index, e->handle);
    CT_FREE(e);
}

/* Made on the first stream it is recorded on; on that device only after. */
ct_result ct_event_record(ct_event *e, ct_stream s)
{
    CT__ARG_R(e, "event", 1);
    const ct_stream_kernels *k;
    ct_result r = ct__stream_backend(&s.device, &k);
    if (r != CT_OK) return r;
    if (!e->handle) {
        r = k->event_create(s.device.index, e->opts.enable_timing, e->opts.blocking, &e->handle);
        if (r != CT_OK) return r;
        e->device = s.device, e->kind = k;
    }
    if (!ct_device_equal(e->device, s.device))
        return ct__fail(CT_ERR_RUNTIME, "Event device %d does not match recording stream's device %d.", e->device.index,
                        s.device.index);
    return k->event_record(e->handle, s.device.index, s.id);
}

ct_result ct_event_wait(ct_event *e, ct_stream s)
{
    CT__ARG_R(e, "event", 1);
    const ct_stream_kernels *k;
    ct_result r = ct__stream_backend(&s.device, &k);
    if (r != CT_OK || !e->handle) return r;
    return k->event_wait(e->handle, s.device.index, s.id);
}

ct_result ct_event_synchronize(ct_event *e)
{
    CT__ARG_R(e, "event", 1);
    return e->handle ? e->kind->event_synchronize(e->handle) : CT_OK;
}

ct_result ct_event_query(ct_event *e, bool *done)
{
    CT__ARG_R(e, "event", 1);
    CT__ARG_R(done, "done", 2);
    if (e->handle) return e->kind->event_query(e->handle, done);
    *done = true;
    return CT_OK;
}

ct_result ct_event_elapsed_time(const ct_event *start, const ct_event *end, float *ms)
{
    CT__ARG_R(start, "start", 1);
    CT__ARG_R(end, "end", 2);
    CT__ARG_R(ms, "ms", 3);
    if (!start->handle || !end->handle)
        return ct__fail(CT_ERR_RUNTIME, "Both events must be recorded before calculating elapsed time.");
    return start->kind->event_elapsed_time(start->handle, end->handle, ms);
}

/* Stream.wait_stream(other) is PyTorch's self.wait_event(other.record_event()). */
ct_result ct_stream_wait_stream(ct_stream s, ct_stream other)
{
    ct_event_opts untimed = {false, false};
    ct_event *e = ct_event_new(untimed);
    if (!e) return ct_last_error_code();
    ct_result r = ct_event_record(e, other);
    if (r == CT_OK) r = ct_event_wait(e, s);
    ct_event_free(e);
    return r;
}

ct_result ct_record_stream(const ct_tensor *t, ct_stream s)
{
    CT__ARG_R(t, "self", 1);
    const ct_stream_kernels *k;
    ct_result r = ct__stream_backend(&s.device, &k);
    if (r != CT_OK) return r;
    const ct_backend *be = ct__backends[t->storage->device.type];
    if (be->streams != k) {
        char name[32];
        return ct__fail(CT_ERR_NOT_IMPLEMENTED, "Could not run 'aten::record_stream' with arguments from the '%s' backend.",
                        t->storage->device.type == CT_DEVICE_CPU ? "CPU" : ct_device_str(ct_device_of(t), name, sizeof name));
    }
    return t->storage->data ? k->record_stream(t->storage->data, t->storage->device.index, s.device.index, s.id) : CT_OK;
}

/* ---------------------------------------------------------------- the default device */

static ct_device ct__default_dev = {CT_DEVICE_CPU, -1};
static CT__TLS ct_device ct__guard_dev;
static CT__TLS bool ct__guarded;

static ct_device ct__default_device(void) { return ct__guarded ? ct__guard_dev : ct__default_dev; }

ct_result ct_set_default_device(ct_device d)
{
    ct_result r = ct__device_resolve(&d);
    if (r == CT_OK) ct__default_dev = d;
    return r;
}

ct_device ct_get_default_device(void) { return ct__default_device(); }

ct_device_guard ct_device_guard_begin(ct_device d)
{
    ct_device_guard g = {ct__guard_dev, ct__guarded};
    if (ct__device_resolve(&d) == CT_OK) { /* a bad device keeps the one in force (the error is set) */
        ct__guard_dev = d;
        ct__guarded = true;
    }
    return g;
}

void ct_device_guard_end(ct_device_guard g)
{
    ct__guard_dev = g.previous;
    ct__guarded = g.had_previous;
}

/* ---------------------------------------------------------------- several tensors */

static bool ct__is_cpu_scalar(const ct_tensor *t) { return t->ndim == 0 && t->storage->device.type == CT_DEVICE_CPU; }

/* The device that ts (n of them, NULL entries skipped) share, into *out:
 * the first that is not the CPU, as TensorIterator picks it, and an error
 * in PyTorch's words naming it and the first that differs. With
 * cpu_scalars, a 0-d CPU tensor goes with any device, as TensorIterator
 * lets a CPU scalar join CUDA tensors. */
static ct_result ct__common_device(const ct_tensor *const *ts, int n, bool cpu_scalars, ct_device *out)
{
    *out = ct__cpu;
    for (int i = 0; i < n; i++)
        if (ts[i] && ts[i]->storage->device.type != CT_DEVICE_CPU) {
            *out = ts[i]->storage->device;
            break;
        }
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        if (!t || ct_device_equal(*out, t->storage->device) || (cpu_scalars && ct__is_cpu_scalar(t))) continue;
        char sa[64], sb[64];
        return ct__fail(CT_ERR_RUNTIME,
                        "Expected all tensors to be on the same device, but found at least two devices, %s and %s!",
                        ct_device_str(*out, sa, sizeof sa), ct_device_str(t->storage->device, sb, sizeof sb));
    }
    return CT_OK;
}

static ct_result ct__same_device(const ct_tensor *a, const ct_tensor *b, const ct_tensor *c)
{
    const ct_tensor *ts[3] = {a, b, c};
    ct_device dev;
    return ct__common_device(ts, 3, false, &dev);
}

/* ---------------------------------------------------------------- moves */

/* t's elements where the host can read them: t itself on the CPU, else a
 * contiguous CPU copy (registered in the open scope) that the device has
 * finished writing. Every host read of tensor memory goes through here,
 * so each one on a device is a visible synchronisation point. */
static const ct_tensor *ct__host(const ct_tensor *t)
{
    if (!t || t->storage->device.type == CT_DEVICE_CPU) return t;
    ct_tensor *h = ct__alloc(t->sizes, t->ndim, t->dtype, ct__cpu);
    if (h && ct_numel(h)) ct__backend_for(t->storage->device.type)->copy(h, t, false);
    return h;
}

static const ct_backend *ct__copy_backend(const ct_tensor *dst, const ct_tensor *src)
{
    ct_device_type type = dst->storage->device.type != CT_DEVICE_CPU ? dst->storage->device.type
                                                                     : src->storage->device.type;
    return ct__backend_for(type);
}

/* t's strides when it is dense, else dense ones in its dims' order. */
static void ct__dense_strides_of(const ct_tensor *t, int64_t *strides)
{
    if (ct__is_dense(t)) memcpy(strides, t->strides, (size_t)t->ndim * sizeof(int64_t));
    else ct__dense_strides_like(t, strides);
}

/* A pinned storage's deleter: ctx is the backend that gave the memory. */
static void ct__pinned_free(void *data, void *ctx) { ((const ct_backend *)ctx)->host_free(data); }

bool ct_is_pinned(const ct_tensor *t) { return t && t->storage->deleter == ct__pinned_free; }

/* A CPU tensor of t's sizes with these strides in dtype, over page-locked
 * memory from backend be. */
static ct_tensor *ct__alloc_pinned(const ct_tensor *t, const int64_t *strides, ct_dtype dtype, const ct_backend *be)
{
    int64_t last = 0;
    for (int d = 0; d < t->ndim; d++) last += (t->sizes[d] - 1) * strides[d];
    size_t nbytes = ct_numel(t) ? (size_t)(last + 1) * ct_dtype_size(dtype) : 0;
    void *p = nbytes ? be->host_alloc(nbytes) : NULL;
    if (nbytes && !p) return NULL;
    ct_tensor *r = ct_from_blob(p, ct_shape_of(t), strides, dtype, ct__pinned_free, (void *)be);
    if (!r && p) be->host_free(p);
    return r;
}

/* Tensor.to(device, dtype, non_blocking): t itself when it is already
 * there in that dtype, else a copy, recorded as ToCopyBackward0. A
 * non-blocking copy from CUDA to the CPU lands in pinned memory, so the
 * host need not wait for it (as PyTorch's _to_copy). */
static ct_tensor *ct__to_device(const ct_tensor *t, ct_device device, ct_dtype dtype, bool non_blocking)
{
    dtype = dtype == CT_DEFAULT ? t->dtype : dtype;
    if (ct__device_resolve(&device) != CT_OK) return NULL;
    if (ct_device_equal(device, t->storage->device) && dtype == t->dtype) return ct__same(t);
    int64_t strides[CT_MAX_DIMS];
    ct__dense_strides_of(t, strides);
    const ct_backend *cuda = ct__backends[CT_DEVICE_CUDA];
    bool pin_out = non_blocking && t->storage->device.type == CT_DEVICE_CUDA && device.type == CT_DEVICE_CPU &&
                   cuda->host_alloc;
    ct_tensor *r = pin_out ? ct__alloc_pinned(t, strides, dtype, cuda)
                           : ct__alloc_strided(t->sizes, strides, t->ndim, dtype, device);
    if (r && ct_numel(r)) ct__copy_backend(r, t)->copy(r, t, non_blocking);
    if (!ct__record_copy(CT__CG_TO_COPY, r, t, NULL, 0)) return ct__unrecordable(r);
    return r;
}

ct_tensor *ct_to_device(const ct_tensor *t, ct_device device, bool non_blocking)
{
    CT__ARG(t, "self", 1);
    return ct__to_device(t, device, CT_DEFAULT, non_blocking);
}

/* As PyTorch's _pin_memory: t's sizes and strides (dense ones where t has
 * gaps) over page-locked memory from the CUDA backend, recorded as
 * PinMemoryBackward0. */
ct_tensor *ct_pin_memory(const ct_tensor *t)
{
    CT__ARG(t, "self", 1);
    if (ct_is_pinned(t)) return ct__same(t);
    if (t->storage->device.type != CT_DEVICE_CPU) { /* "torch.cuda.FloatTensor" */
        ct__fail(CT_ERR_RUNTIME, "cannot pin 'torch.%s.%s' only dense CPU tensors can be pinned",
                 ct__backends[t->storage->device.type]->name, ct__legacy_type_name(t->dtype) + strlen("torch."));
        return NULL;
    }
    const ct_backend *cuda = ct__backends[CT_DEVICE_CUDA];
    if (!cuda || !cuda->host_alloc) {
        ct__fail(CT_ERR_NOT_IMPLEMENTED, "Could not run 'aten::_pin_memory' with arguments from the 'CUDA' backend.");
        return NULL;
    }
    int64_t strides[CT_MAX_DIMS];
    ct__dense_strides_of(t, strides);
    ct_tensor *r = ct__alloc_pinned(t, strides, t->dtype, cuda);
    if (r && ct_numel(r)) ct__cpu_backend.copy(r, t, false);
    if (!ct__record_copy(CT__CG_PIN, r, t, NULL, 0)) return ct__unrecordable(r);
    return r;
}

ct_tensor *ct_cuda(const ct_tensor *t) { return ct_to_device(t, CT_CUDA(-1), false); }
ct_tensor *ct_cpu(const ct_tensor *t) { return ct_to_device(t, CT_CPU, false); }
