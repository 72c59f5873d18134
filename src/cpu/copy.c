/* The CPU backend: copy with dtype conversion, fill, and the backend table
 * (its allocator is src/cpu/alloc.c). */

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
        if (strides[0] == (int64_t)sizeof(T) && strides[1] == 0) { /* an expanded value */ \
            T v, *d = (T *)dst;                                                       \
            memcpy(&v, src, sizeof v);                                                \
            for (int64_t i = 0; i < n; i++) d[i] = v;                                 \
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

/* The context of a converting copy: its two dtypes. */
typedef struct ct__cast_dtypes {
    ct_dtype src, dst;
} ct__cast_dtypes;

/* Converting copies. The pairs training runs on have loops of their own:
 * bool, int64, float32 and float64 among themselves, and float32 and int64
 * to and from every other dtype (autocast's float16 and bfloat16, uint8
 * images and labels). Any other pair converts element by element through
 * the wide type, as CT__CONVERT does (ct__cast_wide). */
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
/* X(dst, DST, src) for each pair with a loop of its own */
#define CT__CAST_OTHERS(X, wide, WIDE)                                                                \
    X(u8, CT_U8, wide) X(i8, CT_I8, wide) X(i16, CT_I16, wide) X(i32, CT_I32, wide) X(f16, CT_F16, wide) \
    X(bf16, CT_BF16, wide) X(wide, WIDE, u8) X(wide, WIDE, i8) X(wide, WIDE, i16) X(wide, WIDE, i32)   \
    X(wide, WIDE, f16) X(wide, WIDE, bf16)
#define CT__CAST_OWN(X)                                                                               \
    X(i64, CT_I64, b8) X(f32, CT_F32, b8) X(f64, CT_F64, b8) X(b8, CT_BOOL, i64) X(f32, CT_F32, i64)  \
    X(f64, CT_F64, i64) X(b8, CT_BOOL, f32) X(i64, CT_I64, f32) X(f64, CT_F64, f32) X(b8, CT_BOOL, f64) \
    X(i64, CT_I64, f64) X(f32, CT_F32, f64) CT__CAST_OTHERS(X, f32, CT_F32) CT__CAST_OTHERS(X, i64, CT_I64)
CT__CAST_OWN(CT__CAST_LOOP)
#undef CT__CAST_LOOP

/* Any pair: each element loaded to int64 or double (exact) and stored from it. */
static void ct__cast_wide(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const ct__cast_dtypes *c = (const ct__cast_dtypes *)ctx;
    if (ct_dtype_is_floating(c->src)) {
        for (int64_t i = 0; i < n; i++)
            ct__write_f64(data[0] + i * strides[0], c->dst, ct__read_f64(data[1] + i * strides[1], c->src));
    } else {
        for (int64_t i = 0; i < n; i++)
            ct__write_i64(data[0] + i * strides[0], c->dst, ct__read_i64(data[1] + i * strides[1], c->src));
    }
}

/* The converting copy from src to dst (ctx: their ct__cast_dtypes). */
static ct__loop_fn ct__cast_loop(ct_dtype src, ct_dtype dst)
{
#define CT__CAST_CASE(dst, DDT, src) \
    case CT__DT_##src * CT_NUM_DTYPES + DDT: return ct__cast_##src##_##dst;
    switch ((int)src * CT_NUM_DTYPES + (int)dst) {
        CT__CAST_OWN(CT__CAST_CASE)
    default: return ct__cast_wide;
    }
#undef CT__CAST_CASE
}

/* float32 and float64 to bfloat16 on contiguous data: PyTorch's vectorised
 * loop writes NaN as 0xffff where its scalar loop (and the one above) writes
 * 0x7fc0; for float64 the vector loop covers whole blocks of 16 elements of
 * each call. */
static void ct__cast_to_bf16_vectorised(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    ct_dtype src = ((const ct__cast_dtypes *)ctx)->src;
    ct__cast_loop(src, CT_BF16)(data, strides, n, ctx);
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

static void ct__cpu_copy(ct_tensor *dst, const ct_tensor *src, bool non_blocking)
{
    (void)non_blocking;
    const ct_tensor *ops[2] = {dst, src};
    ct__iter it;
    ct__iter_init(&it, 2, ops);
    ct__loop_fn fn = dst->dtype == src->dtype ? ct__copy_loop_for_size(ct__esize(dst))
                                              : ct__cast_loop(src->dtype, dst->dtype);
    ct__cast_dtypes dtypes = {src->dtype, dst->dtype};
    if (dst->dtype == CT_BF16 && (src->dtype == CT_F32 || src->dtype == CT_F64)) fn = ct__cast_to_bf16_vectorised;
    ct__iter_parallel(&it, fn, &dtypes);
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

static int ct__cpu_device_count(void) { return 1; }
static void ct__cpu_synchronize(int device_index) { (void)device_index; }

/* (positional: C++17 has no designated initializers) */
static const ct_backend ct__cpu_backend = {"cpu",           ct__cpu_device_count, ct__cpu_alloc,     ct__cpu_free,
                                           ct__cpu_copy,    ct__cpu_fill,         ct__cpu_has_pointwise,
                                           ct__cpu_pointwise, ct__cpu_index,      ct__cpu_sorting,
                                           &ct__cpu_reduce_kernels, ct__cpu_gemm, ct__cpu_range,
                                           ct__cpu_random,  NULL /* the front end's generator */,
                                           ct__cpu_conv,    ct__cpu_linmap,
                                           ct__cpu_optim_step, ct__cpu_bn_stats, ct__cpu_layer_norm,
                                           ct__cpu_synchronize,
                                           ct__cpu_memory_stats, ct__cpu_reset_peak_memory_stats,
                                           ct__cpu_empty_cache,  NULL /* no streams */, NULL, NULL /* no pinned memory */};
