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

static void ct__cpu_copy(ct_tensor *dst, const ct_tensor *src, bool non_blocking)
{
    (void)non_blocking;
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

static int ct__cpu_device_count(void) { return 1; }
static void ct__cpu_synchronize(int device_index) { (void)device_index; }

/* (positional: C++17 has no designated initializers) */
static const ct_backend ct__cpu_backend = {"cpu",           ct__cpu_device_count, ct__cpu_alloc,     ct__cpu_free,
                                           ct__cpu_copy,    ct__cpu_fill,         ct__cpu_has_pointwise,
                                           ct__cpu_pointwise, ct__cpu_index,      ct__cpu_sorting,
                                           &ct__cpu_reduce_kernels, ct__cpu_gemm, ct__cpu_range,
                                           ct__cpu_random,  NULL /* the front end's generator */,
                                           ct__cpu_conv,    ct__cpu_linmap,
                                           ct__cpu_optim_step, ct__cpu_bn_stats, ct__cpu_synchronize,
                                           ct__cpu_memory_stats, ct__cpu_reset_peak_memory_stats,
                                           ct__cpu_empty_cache};
