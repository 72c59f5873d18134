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
