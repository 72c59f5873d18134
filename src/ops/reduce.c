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

/* A 0-d result of dtype dt on device holding v converted as PyTorch converts. */
static ct_tensor *ct__scalar_result(double v, ct_dtype dt, ct_device device)
{
    ct_tensor *r = ct__alloc(NULL, 0, dt, device);
    if (r) ct__fill_double(r, v);
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
    if (r == CT_OK && with_values && !(v = ct__alloc(sizes, n, in->dtype, in->storage->device))) r = ct_last_error_code();
    if (r == CT_OK && !(i = ct__alloc(sizes, n, CT_I64, in->storage->device))) r = ct_last_error_code();
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
    if (!ct__record_reduce(kind, &r, 1, t, &rec)) return ct__unrecordable(r);
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
    CT__AUTOCAST(CT__CAST_FP32, ct_prod(input), &input);
    CT__ARG(input, "input", 1);
    return ct__reduce_recorded(ct__prod, CT__RG_PROD, input, CT_SHAPE0, false, CT_DEFAULT, true);
}

ct_tensor *ct_prod_dim(const ct_tensor *input, int dim, bool keepdim, ct_dtype dtype)
{
    CT__AUTOCAST(CT__CAST_FP32, ct_prod_dim(input, dim, keepdim, dtype), &input);
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
    if (!ct__record_reduce(kind, &r, 1, t, &rec)) return ct__unrecordable(r);
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
        if (!ct__record_reduce(kind, &v, 1, t, &rec)) r = ct_last_error_code();
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
    const ct_tensor *in = t;
    if (flat) CT__UNRECORDED(in, ct_reshape(t, CT_SHAPE(-1))); /* no gradient: nothing to record */
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
    ct__fill_double(res, take_sqrt ? sqrt(var) : var);
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
    ct_device dev = t->storage->device;
    ct_tensor *v = ct__alloc(sizes, n, t->dtype, dev), *m = with_mean ? ct__alloc(sizes, n, t->dtype, dev) : NULL;
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
        if (!ct__record_reduce(kinds[take_sqrt][with_mean], res, with_mean ? 2 : 1, t, &rec)) r = ct_last_error_code();
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
    if (ct_numel(input) == 0) v = ct__scalar_result(NAN, input->dtype, input->storage->device);
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
    if (!ct__record_reduce(CT__RG_NORM, &r, 1, input, &rec)) return ct__unrecordable(r);
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
    return m ? ct_masked_fill_scalar(m, ct_isinf(m), ct_int(0)) : NULL;
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
    ct_tensor *v = work ? ct__alloc(in->sizes, in->ndim, work->dtype, in->storage->device) : NULL;
    ct_tensor *i = with_indices ? ct__alloc(in->sizes, in->ndim, CT_I64, in->storage->device) : NULL;
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
    if (!ct__record_reduce(kind, &r, 1, t, &rec)) return ct__unrecordable(r);
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
    if (ct__check_dtype(dtype) != CT_OK || ct__check_inplace_grad(self, NULL, 0) != CT_OK) return ct_last_error_code();
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
