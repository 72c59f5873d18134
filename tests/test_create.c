/* Creation, dtype conversion and copying, against golden data from PyTorch
 * (tests/golden/gen_create.py). */
#include "harness.h"

#include <pthread.h>
#include <stdarg.h>

static const ct_dtype ALL[] = {CT_BOOL, CT_U8, CT_I8, CT_I16, CT_I32, CT_I64, CT_F16, CT_BF16, CT_F32, CT_F64};
#define NALL 10

/* The short names gen_create.py uses in record names. */
static const char *short_name(ct_dtype dt)
{
    static const char *names[] = {"", "b8", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};
    return names[dt];
}

/* The golden record with this printf-formatted name (NULL, and a failed check, when absent). */
static const ct_tensor *gold(const char *fmt, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return golden("create", name);
}

/* A NaN that arithmetic makes (inf - inf) is the machine's default NaN, whose
 * sign bit x86 sets and ARM clears. The golden values come from x86, so
 * elsewhere such a NaN may differ from them in its sign bit alone. */
static bool default_nan_sign_differs(uint64_t got, uint64_t want, size_t element_size, bool want_is_nan)
{
    volatile double inf = INFINITY;
    uint64_t sign = 1ull << (8 * element_size - 1);
    return want_is_nan && !signbit(inf - inf) && (want & sign) && got == (want & ~sign);
}

/* t must equal g bit for bit: dtype, shape and every byte, so that signed
 * zeros and NaN payloads count (but for the default NaN's sign: above). */
#define CHECK_BITS(t, g) check_bits(__FILE__, __LINE__, #t, t, g)
static void check_bits(const char *file, int line, const char *expr, const ct_tensor *t, const ct_tensor *g)
{
    if (!t || !g) {
        ct_test_fail(file, line, "%s: %s is NULL: %s", expr, t ? "golden" : "tensor", ct_last_error());
        return;
    }
    if (ct_dtype_of(t) != ct_dtype_of(g) || ct_dim(t) != ct_dim(g) || ct_numel(t) != ct_numel(g)) {
        ct_test_fail(file, line, "%s is %s with %d dims and %lld elements, expected %s, %d, %lld", expr,
                     ct_dtype_name(ct_dtype_of(t)), ct_dim(t), (long long)ct_numel(t), ct_dtype_name(ct_dtype_of(g)),
                     ct_dim(g), (long long)ct_numel(g));
        return;
    }
    for (int d = 0; d < ct_dim(t); d++)
        if (ct_size(t, d) != ct_size(g, d)) {
            ct_test_fail(file, line, "%s has size %lld at dim %d, expected %lld", expr, (long long)ct_size(t, d), d,
                         (long long)ct_size(g, d));
            return;
        }
    ct_scope s = ct_scope_begin();
    const unsigned char *a = (const unsigned char *)ct_data_ptr(ct_cpu(ct_contiguous(t))); /* (host copies on a device) */
    const unsigned char *b = (const unsigned char *)ct_data_ptr(ct_cpu(ct_contiguous(g)));
    size_t es = ct_element_size(t);
    int reported = 0;
    for (int64_t i = 0; i < ct_numel(t) && reported < 4; i++) {
        if (memcmp(a + (size_t)i * es, b + (size_t)i * es, es) == 0) continue;
        uint64_t x = 0, y = 0;
        memcpy(&x, a + (size_t)i * es, es);
        memcpy(&y, b + (size_t)i * es, es);
        ct_tensor *ti = ct_from_array(a + (size_t)i * es, CT_SHAPE0, ct_dtype_of(t));
        ct_tensor *gi = ct_from_array(b + (size_t)i * es, CT_SHAPE0, ct_dtype_of(t));
        if (default_nan_sign_differs(x, y, es, isnan(ct_item(gi)))) continue;
        ct_test_fail(file, line, "%s[%lld] (flat) == %.17g (bits %llx), expected %.17g (bits %llx)", expr,
                     (long long)i, ct_item(ti), (unsigned long long)x, ct_item(gi), (unsigned long long)y);
        reported++;
    }
    ct_scope_end(s);
}

/* ---------------------------------------------------------------- conversions */

/* x as column 1 of an (n, 2) tensor: a strided view with x's values. */
static ct_tensor *strided_copy(const ct_tensor *x)
{
    ct_tensor *pair = ct_zeros(CT_SHAPE(ct_numel(x), 2), ct_dtype_of(x));
    ct_tensor *col = ct_select(pair, 1, 1);
    ct_copy_(col, x);
    return col;
}

/* PyTorch's conversion of the golden's source values. On CUDA a float32 or
 * float64 NaN becomes bfloat16 0x7fc0 (c10::BFloat16's rounding) where the
 * CPU's vector loop, whose bits the goldens hold, writes 0xffff. */
static const ct_tensor *conv_golden(ct_dtype from, ct_dtype to)
{
    const ct_tensor *g = gold("conv_%s_%s", short_name(from), short_name(to));
    if (!ct_test_on_cuda() || to != CT_BF16 || (from != CT_F32 && from != CT_F64)) return g;
    return ct_where(ct_isnan(g), ct_full_like(g, ct_float(NAN), CT_DEFAULT), g);
}

static void test_to_every_pair(void)
{
    for (int i = 0; i < NALL; i++)
        for (int j = 0; j < NALL; j++) {
            ct_scope s = ct_scope_begin();
            const ct_tensor *src = gold("conv_src_%s", short_name(ALL[i]));
            ct_tensor *r = ct_to(src, ALL[j]);
            CHECK_BITS(r, conv_golden(ALL[i], ALL[j]));
            CHECK(ct_is_contiguous(r));
            CHECK(i == j ? r == src : ct_storage_data_ptr(r) != ct_storage_data_ptr(src));
            ct_scope_end(s);
        }
}

/* 20 copies of the values in a row: long enough for every vector loop. */
static void test_to_every_pair_long(void)
{
    for (int i = 0; i < NALL; i++)
        for (int j = 0; j < NALL; j++) {
            ct_scope s = ct_scope_begin();
            const ct_tensor *src = gold("conv_src_%s", short_name(ALL[i]));
            int64_t n = ct_numel(src);
            ct_tensor *rows = ct_contiguous(ct_expand(src, CT_SHAPE(20, n)));
            ct_tensor *r = ct_view(ct_to(ct_view(rows, CT_SHAPE(20 * n)), ALL[j]), CT_SHAPE(20, n));
            for (int k = 0; k < 20; k++) CHECK_BITS(ct_select(r, 0, k), conv_golden(ALL[i], ALL[j]));
            ct_scope_end(s);
        }
}

static void test_to_every_pair_strided(void)
{
    for (int i = 0; i < NALL; i++)
        for (int j = 0; j < NALL; j++) {
            ct_scope s = ct_scope_begin();
            const ct_tensor *src = gold("conv_src_%s", short_name(ALL[i]));
            const ct_tensor *want = gold("conv_%s_%s_strided", short_name(ALL[i]), short_name(ALL[j]));
            ct_tensor *col = strided_copy(src);
            CHECK(!ct_is_contiguous(col));
            CHECK_BITS(ct_to(col, ALL[j]), want);
            ct_scope_end(s);
        }
}

/* ---------------------------------------------------------------- ranges */

static ct_scalar arg_scalar(double v, int is_float) { return is_float ? ct_float(v) : ct_int((int64_t)v); }

/* One call of a range family (see gen_create.py): args holds its arguments. */
static ct_tensor *range_call(const char *kind, const double *args, int kinds, ct_dtype dt)
{
    if (!strcmp(kind, "arange"))
        return ct_arange(arg_scalar(args[0], kinds & 1), arg_scalar(args[1], kinds & 2),
                         arg_scalar(args[2], kinds & 4), dt);
    if (!strcmp(kind, "linspace")) return ct_linspace(args[0], args[1], (int64_t)args[2], dt);
    return ct_logspace(args[0], args[1], (int64_t)args[2], args[3], dt);
}

/* Every call of every family of one factory, each bit for bit against its
 * part of the family's results. */
static void check_range_families(const char *kind, int which)
{
    const ct_tensor *counts = gold("range_families");
    int64_t nfam = counts ? ct_item_int(ct_select(counts, 0, which)) : 0;
    for (int64_t f = 0; f < nfam; f++) {
        ct_scope s = ct_scope_begin();
        const ct_tensor *meta = gold("%s_%lld_meta", kind, (long long)f);
        const ct_tensor *args = gold("%s_%lld_args", kind, (long long)f), *want = gold("%s_%lld", kind, (long long)f);
        ct_dtype dt = (ct_dtype)ct_item_int(ct_select(meta, 0, 0));
        int kinds = (int)ct_item_int(ct_select(meta, 0, 1));
        int64_t at = 0;
        for (int64_t c = 0; c < ct_size(args, 0); c++) {
            double a[4] = {0, 0, 0, 0};
            ct_copy_to_array(ct_select(args, 0, c), a, 4, CT_F64);
            ct_tensor *r = range_call(kind, a, kinds, dt);
            int before = ct_test_failed_checks;
            CHECK_T(r);
            if (r && at + ct_numel(r) <= ct_numel(want)) CHECK_BITS(r, ct_narrow(want, 0, at, ct_numel(r)));
            at += ct_numel(r);
            if (ct_test_failed_checks > before)
                ct_test_fail(__FILE__, __LINE__, "%s(%.17g, %.17g, %.17g, %.17g) in %s, family %lld", kind, a[0], a[1],
                             a[2], a[3], ct_dtype_name(dt), (long long)f);
        }
        CHECK_INT(at, ct_numel(want));
        ct_scope_end(s);
    }
}

static void test_arange_golden(void) { check_range_families("arange", 0); }
static void test_linspace_golden(void) { check_range_families("linspace", 1); }
#ifndef _WIN32 /* base ** x: the goldens hold glibc's last bits of pow */
static void test_logspace_golden(void) { check_range_families("logspace", 2); }
#endif

/* int64 arguments past what a double holds exactly. */
static void test_arange_int64_extremes(void)
{
    CHECK_BITS(ct_arange(ct_int(INT64_MAX - 10), ct_int(INT64_MAX), ct_int(3), CT_DEFAULT), gold("arange_i64_top"));
    CHECK_BITS(ct_arange(ct_int(INT64_MIN), ct_int(INT64_MAX), ct_int(INT64_C(1) << 62), CT_DEFAULT),
               gold("arange_i64_wrap"));
    CHECK_BITS(ct_arange(ct_int(INT64_MIN + 10), ct_int(INT64_MIN), ct_int(-4), CT_DEFAULT), gold("arange_i64_down"));
}

/* Past the 32768-element grain, where the work splits between threads. */
static void test_ranges_long(void)
{
    const ct_dtype floating[] = {CT_F16, CT_BF16, CT_F32, CT_F64};
    for (int i = 0; i < 4; i++) {
        ct_tensor *a = ct_arange(ct_float(-3.3), ct_float(-3.3 + 0.013 * 39999.5), ct_float(0.013), floating[i]);
        CHECK_BITS(ct_slice(a, 0, 0, CT_END, 29), gold("arange_long_%s", short_name(floating[i])));
        ct_tensor *l = ct_linspace(-7.7, 1234.5, 40000, floating[i]);
        CHECK_BITS(ct_slice(l, 0, 0, CT_END, 29), gold("linspace_long_%s", short_name(floating[i])));
    }
    CHECK_BITS(ct_slice(ct_arange(ct_int(-20000), ct_int(20000), ct_int(1), CT_I16), 0, 0, CT_END, 29),
               gold("arange_long_i16"));
    CHECK_BITS(ct_slice(ct_linspace(-77.0, 12345.0, 40000, CT_I32), 0, 0, CT_END, 29), gold("linspace_long_i32"));
}

/* ---------------------------------------------------------------- fill_, full, scalar_tensor */

/* The C++ type names c10's checked_convert puts in its errors. */
static const char *c_type_name(ct_dtype dt)
{
    static const char *names[] = {"", "bool", "uint8_t", "int8_t", "int16_t", "int", "int64_t", "at::Half",
                                  "at::BFloat16", "float", "double"};
    return names[dt];
}

/* Scalar k of gen_create.py's SCALARS. */
static ct_scalar golden_scalar(int64_t k)
{
    int64_t kind = ct_item_int(ct_select(gold("scalar_kind"), 0, k));
    int64_t i = ct_item_int(ct_select(gold("scalar_int"), 0, k));
    double f = ct_item(ct_select(gold("scalar_float"), 0, k));
    return kind == 0 ? ct_bool(i != 0) : kind == 1 ? ct_int(i) : ct_float(f);
}

static void describe_scalar(ct_scalar v, char *buf, size_t n)
{
    if (v.kind == CT_F64) snprintf(buf, n, "float %.17g", v.v.f);
    else if (v.kind == CT_BOOL) snprintf(buf, n, "bool %d", (int)v.v.b);
    else snprintf(buf, n, "int %lld", (long long)v.v.i);
}

/* full, fill_ (contiguous, strided, one element) and full_like store every
 * scalar as PyTorch does, or refuse it with its message. */
static void test_fill_golden(void)
{
    int64_t n = ct_numel(gold("scalar_kind"));
    for (int i = 0; i < NALL; i++)
        for (int64_t k = 0; k < n; k++) {
            ct_scope s = ct_scope_begin();
            ct_dtype dt = ALL[i];
            ct_scalar v = golden_scalar(k);
            bool ok = ct_item_int(ct_select(gold("fill_ok_%s", short_name(dt)), 0, k)) != 0;
            const ct_tensor *want = ct_expand(ct_select(gold("fill_%s", short_name(dt)), 0, k), CT_SHAPE(3));
            ct_tensor *col = ct_select(ct_zeros(CT_SHAPE(3, 2), dt), 1, 1), *one = ct_zeros(CT_SHAPE(1), dt);
            ct_tensor *like = ct_zeros(CT_SHAPE(3), ct_dtype_is_floating(dt) ? CT_I8 : CT_F32);
            char message[128], what[64];
            snprintf(message, sizeof message, "value cannot be converted to type %s without overflow", c_type_name(dt));
            int before = ct_test_failed_checks;
            if (ok) {
                CHECK_BITS(ct_full(CT_SHAPE(3), v, dt), want);
                CHECK_OK(ct_fill_(col, v));
                CHECK_BITS(col, want);
                CHECK_OK(ct_fill_(one, v));
                CHECK_BITS(one, ct_narrow(want, 0, 0, 1));
                CHECK_BITS(ct_full_like(like, v, dt), want);
            } else {
                CHECK_ERR(ct_full(CT_SHAPE(3), v, dt), CT_ERR_RUNTIME, message);
                CHECK_FAILS(ct_fill_(col, v), CT_ERR_RUNTIME, message);
                CHECK_FAILS(ct_fill_(one, v), CT_ERR_RUNTIME, message);
                CHECK_ERR(ct_full_like(like, v, dt), CT_ERR_RUNTIME, message);
            }
            describe_scalar(v, what, sizeof what);
            if (ct_test_failed_checks > before) ct_test_fail(__FILE__, __LINE__, "%s into %s", what, ct_dtype_name(dt));
            ct_scope_end(s);
        }
}

/* fill_ writes through any view, overlapping ones included (PyTorch allows
 * that, unlike copy_). */
static void test_fill_views(void)
{
    ct_tensor *base = ct_zeros(CT_SHAPE(3, 4), CT_I16);
    CHECK_OK(ct_fill_(ct_expand(ct_slice(base, 1, 1, 2, 1), CT_SHAPE(3, 4)), ct_int(-7)));
    CHECK_VALUES(base, CT_SHAPE(3, 4), 0, -7, 0, 0, 0, -7, 0, 0, 0, -7, 0, 0);
    CHECK_OK(ct_fill_(ct_select(ct_t(base), 0, 3), ct_float(2.9)));
    CHECK_VALUES(base, CT_SHAPE(3, 4), 0, -7, 0, 2, 0, -7, 0, 2, 0, -7, 0, 2);
    CHECK_OK(ct_zero_(ct_diagonal(base, 1, 0, 1)));
    CHECK_VALUES(base, CT_SHAPE(3, 4), 0, 0, 0, 2, 0, -7, 0, 2, 0, -7, 0, 0);
}

/* ct_scalar_tensor converts as torch.tensor(value, dtype=dtype). */
static void test_scalar_tensor_golden(void)
{
    int64_t n = ct_numel(gold("scalar_kind"));
    for (int i = 0; i < NALL; i++)
        for (int64_t k = 0; k < n; k++) {
            ct_scope s = ct_scope_begin();
            ct_dtype dt = ALL[i];
            ct_scalar v = golden_scalar(k);
            bool ok = ct_item_int(ct_select(gold("tensor_ok_%s", short_name(dt)), 0, k)) != 0;
            char message[128], what[64];
            snprintf(message, sizeof message, "value cannot be converted to type %s without overflow", ct_dtype_name(dt));
            int before = ct_test_failed_checks;
            if (ok) CHECK_BITS(ct_scalar_tensor(v, dt), ct_select(gold("tensor_%s", short_name(dt)), 0, k));
            else CHECK_ERR(ct_scalar_tensor(v, dt), CT_ERR_RUNTIME, message);
            describe_scalar(v, what, sizeof what);
            if (ct_test_failed_checks > before) ct_test_fail(__FILE__, __LINE__, "%s into %s", what, ct_dtype_name(dt));
            ct_scope_end(s);
        }
}

/* Python numbers give int64, bool or the default dtype. */
static void test_dtype_inference(void)
{
    CHECK_INT(ct_dtype_of(ct_full(CT_SHAPE(2), ct_int(3), CT_DEFAULT)), CT_I64);
    CHECK_INT(ct_dtype_of(ct_full(CT_SHAPE(2), ct_bool(true), CT_DEFAULT)), CT_BOOL);
    CHECK_INT(ct_dtype_of(ct_full(CT_SHAPE(2), ct_float(3), CT_DEFAULT)), CT_F32);
    CHECK_INT(ct_dtype_of(ct_scalar_tensor(ct_int(3), CT_DEFAULT)), CT_I64);
    CHECK_INT(ct_dtype_of(ct_scalar_tensor(ct_bool(false), CT_DEFAULT)), CT_BOOL);
    CHECK_INT(ct_dim(ct_scalar_tensor(ct_float(2.5), CT_DEFAULT)), 0);
    CHECK_INT(ct_dtype_of(ct_arange(ct_int(0), ct_int(5), ct_int(1), CT_DEFAULT)), CT_I64);
    CHECK_INT(ct_dtype_of(ct_arange(ct_int(0), ct_int(5), ct_float(1), CT_DEFAULT)), CT_F32);
    CHECK_VALUES(ct_arange(ct_bool(true), ct_int(3), ct_bool(true), CT_DEFAULT), CT_SHAPE(2), 1, 2);
    CHECK_INT(ct_dtype_of(ct_arange(ct_bool(true), ct_int(3), ct_bool(true), CT_DEFAULT)), CT_I64);
    CHECK_INT(ct_dtype_of(ct_linspace(0, 1, 3, CT_DEFAULT)), CT_F32);
    CHECK_OK(ct_set_default_dtype(CT_F64));
    CHECK_INT(ct_dtype_of(ct_full(CT_SHAPE(2), ct_float(3), CT_DEFAULT)), CT_F64);
    CHECK_INT(ct_dtype_of(ct_full(CT_SHAPE(2), ct_int(3), CT_DEFAULT)), CT_I64);
    CHECK_INT(ct_dtype_of(ct_scalar_tensor(ct_float(2.5), CT_DEFAULT)), CT_F64);
    CHECK_INT(ct_dtype_of(ct_arange(ct_float(0), ct_int(5), ct_int(1), CT_DEFAULT)), CT_F64);
    CHECK_INT(ct_dtype_of(ct_linspace(0, 1, 3, CT_DEFAULT)), CT_F64);
    CHECK_INT(ct_dtype_of(ct_logspace(0, 1, 3, 10, CT_DEFAULT)), CT_F64);
    CHECK_INT(ct_dtype_of(ct_eye(2, 2, CT_DEFAULT)), CT_F64);
    CHECK_INT(ct_dtype_of(ct_zeros(CT_SHAPE(2), CT_DEFAULT)), CT_F64);
    CHECK_INT(ct_dtype_of(ct_empty(CT_SHAPE(2), CT_DEFAULT)), CT_F64);
    CHECK_OK(ct_set_default_dtype(CT_F32));
    ct_tensor *x = ct_zeros(CT_SHAPE(2), CT_I16);
    CHECK_INT(ct_dtype_of(ct_zeros_like(x, CT_DEFAULT)), CT_I16);
    CHECK_INT(ct_dtype_of(ct_full_like(x, ct_float(2.7), CT_DEFAULT)), CT_I16);
    CHECK_VALUES(ct_full_like(x, ct_float(2.7), CT_DEFAULT), CT_SHAPE(2), 2, 2);
    CHECK_INT(ct_dtype_of(ct_ones_like(x, CT_BF16)), CT_BF16);
    CHECK(ct_to(x, CT_DEFAULT) == x);
}

/* ---------------------------------------------------------------- layouts */

static ct_tensor *range_f32(int64_t n) { return ct_arange(ct_int(0), ct_int(n), ct_int(1), CT_F32); }
static ct_tensor *range_view(int64_t n, ct_shape shape) { return ct_view(range_f32(n), shape); }

/* gen_create.py's LAYOUTS, built with ctorch's views. */
static ct_tensor *layout_input(const char *name)
{
    ct_tensor *base = range_view(120, CT_SHAPE(2, 3, 4, 5)), *r100 = range_f32(100);
    if (!strcmp(name, "transposed")) return ct_t(range_view(12, CT_SHAPE(3, 4)));
    if (!strcmp(name, "permuted")) return ct_permute(base, CT_DIMS(2, 0, 3, 1));
    if (!strcmp(name, "sliced")) return ct_slice(range_view(24, CT_SHAPE(4, 6)), 1, 0, CT_END, 2);
    if (!strcmp(name, "sliced_t")) return ct_t(ct_slice(range_view(24, CT_SHAPE(4, 6)), 1, 0, CT_END, 2));
    if (!strcmp(name, "sliced_permuted")) return ct_permute(ct_slice(base, 2, 0, CT_END, 2), CT_DIMS(3, 1, 0, 2));
    if (!strcmp(name, "expanded")) return ct_expand(range_view(3, CT_SHAPE(3, 1)), CT_SHAPE(3, 4));
    if (!strcmp(name, "expanded_t")) return ct_t(ct_expand(range_view(4, CT_SHAPE(1, 4)), CT_SHAPE(3, 4)));
    if (!strcmp(name, "expanded_permuted"))
        return ct_permute(ct_expand(range_view(4, CT_SHAPE(4, 1, 1)), CT_SHAPE(4, 2, 3)), CT_DIMS(2, 0, 1));
    if (!strcmp(name, "size1")) return ct_permute(range_view(12, CT_SHAPE(3, 1, 4)), CT_DIMS(1, 2, 0));
    if (!strcmp(name, "size1_unsqueezed"))
        return ct_permute(ct_unsqueeze(range_view(12, CT_SHAPE(3, 4)), 1), CT_DIMS(2, 1, 0));
    if (!strcmp(name, "empty_t")) return ct_t(ct_zeros(CT_SHAPE(0, 3), CT_F32));
    if (!strcmp(name, "empty_permuted")) return ct_permute(ct_zeros(CT_SHAPE(2, 0, 3), CT_F32), CT_DIMS(2, 0, 1));
    if (!strcmp(name, "strided_a")) return ct_as_strided(r100, CT_SHAPE(3, 4), CT_SHAPE(1, 5), 0);
    if (!strcmp(name, "strided_b")) return ct_as_strided(r100, CT_SHAPE(2, 3, 4), CT_SHAPE(7, 1, 2), 0);
    if (!strcmp(name, "equal_strides")) return ct_as_strided(r100, CT_SHAPE(3, 2, 2), CT_SHAPE(2, 2, 1), 0);
    if (!strcmp(name, "size1_strides")) return ct_as_strided(r100, CT_SHAPE(1, 4, 1), CT_SHAPE(50, 1, 30), 0);
    if (!strcmp(name, "corner")) return ct_slice(ct_slice(range_view(12, CT_SHAPE(3, 4)), 0, 1, CT_END, 1), 1, 1, CT_END, 1);
    if (!strcmp(name, "offset_dense")) return ct_select(range_view(24, CT_SHAPE(2, 3, 4)), 0, 1);
    if (!strcmp(name, "scalar")) return ct_scalar_tensor(ct_float(3), CT_F32);
    return ct_slice(range_f32(10), 0, 0, CT_END, 3); /* vector_step */
}

#define CHECK_STRIDES(t, strides, row) check_strides(__FILE__, __LINE__, #t, t, strides, row)
static void check_strides(const char *file, int line, const char *expr, const ct_tensor *t, const ct_tensor *strides,
                          int row)
{
    ct_scope s = ct_scope_begin();
    ct_shape want = ct_shape_of(strides), got = ct_strides_of(t);
    int64_t w[CT_MAX_DIMS] = {0};
    ct_copy_to_array(ct_select(strides, 0, row), w, CT_MAX_DIMS, CT_I64);
    bool same = t && got.ndim == want.size[1];
    for (int d = 0; same && d < got.ndim; d++) same = got.size[d] == w[d];
    if (!same) ct_test_fail(file, line, "%s: strides differ from PyTorch's (row %d of the golden)", expr, row);
    ct_scope_end(s);
}

static void test_layouts(void)
{
    static const char *names[] = {"transposed", "permuted", "sliced", "sliced_t", "sliced_permuted", "expanded",
                                  "expanded_t", "expanded_permuted", "size1", "size1_unsqueezed", "empty_t",
                                  "empty_permuted", "strided_a", "strided_b", "equal_strides", "size1_strides",
                                  "corner", "offset_dense", "scalar", "vector_step"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        ct_scope s = ct_scope_begin();
        ct_tensor *x = layout_input(names[i]);
        const ct_tensor *strides = gold("layout_%s_strides", names[i]), *values = gold("layout_%s_values", names[i]);
        int before = ct_test_failed_checks;
        CHECK_STRIDES(x, strides, 0);
        CHECK_STRIDES(ct_empty_like(x, CT_DEFAULT), strides, 1);
        CHECK_STRIDES(ct_ones_like(x, CT_DEFAULT), strides, 1);
        CHECK_STRIDES(ct_full_like(x, ct_float(2), CT_F16), strides, 1);
        ct_tensor *z = ct_zeros_like(x, CT_I8);
        CHECK_STRIDES(z, strides, 2);
        CHECK_BITS(z, ct_zeros(ct_shape_of(x), CT_I8));
        ct_tensor *c = ct_clone(x);
        CHECK_STRIDES(c, strides, 3);
        CHECK_BITS(c, values);
        CHECK(ct_numel(c) == 0 || ct_storage_data_ptr(c) != ct_storage_data_ptr(x));
        ct_tensor *d = ct_to(x, CT_F64);
        CHECK_STRIDES(d, strides, 4);
        CHECK_BITS(d, ct_to(values, CT_F64));
        ct_tensor *k = ct_contiguous(x);
        CHECK_STRIDES(k, strides, 5);
        CHECK_BITS(k, values);
        CHECK(ct_is_contiguous(x) ? k == x : ct_storage_data_ptr(k) != ct_storage_data_ptr(x));
        if (ct_test_failed_checks > before) ct_test_fail(__FILE__, __LINE__, "layout %s", names[i]);
        ct_scope_end(s);
    }
}

/* ---------------------------------------------------------------- eye, diag, tril, triu */

static void test_eye_golden(void)
{
    static const int64_t sizes[][2] = {{0, 0}, {1, 1}, {3, 3}, {2, 5}, {5, 2}, {4, 0}, {0, 3}};
    static const ct_dtype dtypes[] = {CT_F32, CT_BOOL, CT_I8, CT_F16};
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 4; j++) {
            ct_tensor *e = ct_eye(sizes[i][0], sizes[i][1], dtypes[j]);
            CHECK_BITS(e, gold("eye_%lld_%lld_%s", (long long)sizes[i][0], (long long)sizes[i][1], short_name(dtypes[j])));
            CHECK(ct_is_contiguous(e));
        }
}

static void test_diag_golden(void)
{
    const float v[] = {1.5f, -2.f, 3.25f, 4.f};
    ct_tensor *vec = ct_from_array(v, CT_SHAPE(4), CT_F32);
    ct_tensor *mat = ct_view(ct_arange(ct_float(-5), ct_float(7), ct_float(1), CT_F32), CT_SHAPE(3, 4));
    for (int d = -4; d <= 4; d++) CHECK_BITS(ct_diag(vec, d), gold("diag_vec_%d", d));
    for (int d = -3; d <= 4; d++) {
        ct_tensor *r = ct_diag(mat, d);
        CHECK_BITS(r, gold("diag_mat_%d", d));
        CHECK(ct_is_contiguous(r) && ct_stride(r, 0) == 1);
        CHECK(ct_numel(r) == 0 || ct_storage_data_ptr(r) != ct_storage_data_ptr(mat)); /* a copy */
        CHECK_BITS(ct_diag(ct_t(mat), d - 1), gold("diag_mat_t_%d", d - 1));
    }
    CHECK_BITS(ct_diag(ct_zeros(CT_SHAPE(0), CT_F32), 2), gold("diag_empty_2"));
}

/* gen_create.py's TRI inputs. */
static ct_tensor *tri_input(int i)
{
    switch (i) {
    case 0: return ct_view(ct_arange(ct_int(1), ct_int(25), ct_int(1), CT_F32), CT_SHAPE(2, 3, 4));
    case 1: return ct_view(ct_arange(ct_int(1), ct_int(13), ct_int(1), CT_F32), CT_SHAPE(4, 3));
    case 2: return ct_t(ct_view(ct_arange(ct_int(1), ct_int(16), ct_int(1), CT_F32), CT_SHAPE(5, 3)));
    default: return ct_zeros(CT_SHAPE(2, 0, 3), CT_F32);
    }
}

static void test_tril_triu_golden(void)
{
    static const char *names[] = {"batched", "tall", "wide_t", "empty"};
    for (int i = 0; i < 4; i++)
        for (int k = -5; k <= 5; k++) {
            ct_tensor *x = tri_input(i), *lo = ct_tril(x, k), *up = ct_triu(x, k);
            CHECK_BITS(lo, gold("tril_%s_%d", names[i], k));
            CHECK_BITS(up, gold("triu_%s_%d", names[i], k));
            CHECK(ct_is_contiguous(lo) && ct_is_contiguous(up));
        }
    static const ct_dtype dtypes[] = {CT_BOOL, CT_F16, CT_I64};
    for (int i = 0; i < 3; i++) {
        int64_t m[12]; /* arange(12) % 3 */
        for (int j = 0; j < 12; j++) m[j] = j % 3;
        ct_tensor *x = ct_to(ct_from_array(m, CT_SHAPE(3, 4), CT_I64), dtypes[i]);
        CHECK_BITS(ct_tril(x, -1), gold("tril_dtype_%s", short_name(dtypes[i])));
        CHECK_BITS(ct_triu(x, 1), gold("triu_dtype_%s", short_name(dtypes[i])));
    }
    /* diagonals far past the matrix, where i + k would overflow */
    ct_tensor *x = tri_input(1);
    CHECK_BITS(ct_tril(x, INT64_MAX), x);
    CHECK_BITS(ct_triu(x, INT64_MIN), x);
    CHECK_BITS(ct_tril(x, INT64_MIN), ct_zeros(CT_SHAPE(4, 3), CT_F32));
    CHECK_BITS(ct_triu(x, INT64_MAX), ct_zeros(CT_SHAPE(4, 3), CT_F32));
}

/* ---------------------------------------------------------------- copy_ */

static void test_copy_broadcast_golden(void)
{
    struct { const char *name; ct_tensor *dst; } cases[6];
    cases[0].name = "row", cases[0].dst = ct_zeros(CT_SHAPE(2, 3), CT_I32);
    cases[1].name = "column_into_t", cases[1].dst = ct_t(ct_zeros(CT_SHAPE(3, 2), CT_BF16));
    cases[2].name = "scalar_into_step", cases[2].dst = ct_slice(ct_zeros(CT_SHAPE(5), CT_U8), 0, 0, CT_END, 2);
    cases[3].name = "bool_into_permuted", cases[3].dst = ct_permute(ct_zeros(CT_SHAPE(2, 2, 2), CT_F16), CT_DIMS(2, 0, 1));
    cases[4].name = "wrap", cases[4].dst = ct_zeros(CT_SHAPE(5), CT_I8);
    cases[5].name = "half_into_f64", cases[5].dst = ct_zeros(CT_SHAPE(2, 2), CT_F64);
    for (int i = 0; i < 6; i++) {
        CHECK_OK(ct_copy_(cases[i].dst, gold("copy_%s_src", cases[i].name)));
        CHECK_BITS(cases[i].dst, gold("copy_%s", cases[i].name));
    }
}

/* ---------------------------------------------------------------- errors (gen_create.py's ERRORS) */

static const char *msg_overflow_u8 = "value cannot be converted to type uint8_t without overflow";

static void test_range_errors(void)
{
    CHECK_ERR(ct_arange(ct_int(0), ct_int(5), ct_int(0), CT_DEFAULT), CT_ERR_RUNTIME, "step must be nonzero");
    CHECK_ERR(ct_arange(ct_int(0), ct_int(5), ct_float(0.5), CT_I64), CT_ERR_RUNTIME, "step must be nonzero");
    CHECK_ERR(ct_arange(ct_float(0), ct_float(5), ct_float(NAN), CT_DEFAULT), CT_ERR_RUNTIME, "step must be nonzero");
    CHECK_ERR(ct_arange(ct_float(0), ct_float(1e-40), ct_float(1e-50), CT_F16), CT_ERR_RUNTIME, "step must be nonzero");
    CHECK_ERR(ct_arange(ct_int(0), ct_float(INFINITY), ct_int(1), CT_DEFAULT), CT_ERR_RUNTIME,
              "unsupported range: 0 -> inf");
    CHECK_ERR(ct_arange(ct_float(NAN), ct_float(0), ct_int(1), CT_DEFAULT), CT_ERR_RUNTIME,
              "unsupported range: nan -> 0");
    CHECK_ERR(ct_arange(ct_float(1.5), ct_float(-INFINITY), ct_float(-1), CT_F16), CT_ERR_RUNTIME,
              "unsupported range: 1.5 -> -inf");
    CHECK_ERR(ct_arange(ct_float(1e7), ct_float(INFINITY), ct_int(1), CT_DEFAULT), CT_ERR_RUNTIME,
              "unsupported range: 1e+07 -> inf");
    CHECK_ERR(ct_arange(ct_int(5), ct_int(0), ct_int(1), CT_DEFAULT), CT_ERR_RUNTIME,
              "upper bound and larger bound inconsistent with step sign");
    CHECK_ERR(ct_arange(ct_float(0), ct_float(5), ct_float(-1), CT_DEFAULT), CT_ERR_RUNTIME,
              "upper bound and larger bound inconsistent with step sign");
    CHECK_ERR(ct_arange(ct_float(0), ct_float(1e300), ct_float(1e-300), CT_DEFAULT), CT_ERR_RUNTIME,
              "invalid size, possible overflow?");
    CHECK_ERR(ct_arange(ct_int(0), ct_float(9223372036854775808.0), ct_float(1), CT_DEFAULT), CT_ERR_RUNTIME,
              "IntArrayRef contains an int that cannot be represented as a SymInt: -9223372036854775808");
    CHECK_ERR(ct_arange(ct_int(0), ct_int(INT64_C(1) << 62), ct_int(1), CT_I64), CT_ERR_RUNTIME,
              "Storage size calculation overflowed with sizes=[4611686018427387904]");
    CHECK_ERR(ct_arange(ct_int(0), ct_int(5), ct_int(1), CT_BOOL), CT_ERR_RUNTIME,
              "\"arange_cpu\" not implemented for 'Bool'");
    CHECK_ERR(ct_arange(ct_int(0), ct_float(1e30), ct_float(1e25), CT_I64), CT_ERR_RUNTIME,
              "value cannot be converted to type int64_t without overflow");
    CHECK_ERR(ct_arange(ct_int(0), ct_float(INFINITY), ct_int(1), CT_I32), CT_ERR_RUNTIME,
              "value cannot be converted to type int64_t without overflow");
    CHECK_ERR(ct_arange(ct_int(0), ct_float(1e40), ct_float(1e35), CT_F16), CT_ERR_RUNTIME,
              "value cannot be converted to type float without overflow");
    CHECK_ERR(ct_linspace(0, 1, -1, CT_DEFAULT), CT_ERR_RUNTIME, "number of steps must be non-negative");
    CHECK_ERR(ct_logspace(0, 1, -1, 10, CT_DEFAULT), CT_ERR_RUNTIME, "number of steps must be non-negative");
    CHECK_ERR(ct_linspace(0, 1, 3, CT_BOOL), CT_ERR_RUNTIME, "\"linspace_cpu\" not implemented for 'Bool'");
    CHECK_ERR(ct_logspace(0, 1, 3, 10, CT_BOOL), CT_ERR_RUNTIME, "\"logspace_cpu\" not implemented for 'Bool'");
    CHECK_ERR(ct_logspace(0, 1, 3, 10, CT_F16), CT_ERR_RUNTIME, "\"logspace_cpu\" not implemented for 'Half'");
    CHECK_ERR(ct_linspace(300, 5, 3, CT_U8), CT_ERR_RUNTIME, msg_overflow_u8);
    CHECK_ERR(ct_linspace(5, 300, 3, CT_I8), CT_ERR_RUNTIME, "value cannot be converted to type int8_t without overflow");
    CHECK_ERR(ct_linspace(0, 1e5, 3, CT_F16), CT_ERR_RUNTIME,
              "value cannot be converted to type at::Half without overflow");
    CHECK_ERR(ct_linspace(-1, 5, 1, CT_U8), CT_ERR_RUNTIME, msg_overflow_u8);
    CHECK_ERR(ct_linspace(0, NAN, 3, CT_I32), CT_ERR_RUNTIME, "value cannot be converted to type int without overflow");
    CHECK_ERR(ct_logspace(3, 0, 1, 10, CT_U8), CT_ERR_RUNTIME, msg_overflow_u8);
    CHECK_ERR(ct_logspace(0, 1e39, 3, 10, CT_BF16), CT_ERR_RUNTIME,
              "value cannot be converted to type at::BFloat16 without overflow");
    CHECK_ERR(ct_logspace(40, 1, 1, 10, CT_F32), CT_ERR_RUNTIME, "value cannot be converted to type float without overflow");
    /* what steps 0 and 1 allow */
    CHECK_VALUES(ct_linspace(5, 300, 1, CT_I8), CT_SHAPE(1), 5);
    CHECK_VALUES(ct_linspace(0.5, 1, 1, CT_BOOL), CT_SHAPE(1), 1);
    CHECK_VALUES(ct_logspace(0, 3, 1, 10, CT_F16), CT_SHAPE(1), 1);
    CHECK_INT(ct_numel(ct_linspace(0, 1, 0, CT_BOOL)), 0);
    CHECK_INT(ct_numel(ct_logspace(0, 1, 0, 10, CT_F16)), 0);
}

static void test_factory_errors(void)
{
    ct_tensor *mat = ct_zeros(CT_SHAPE(3, 4), CT_F32);
    CHECK_ERR(ct_eye(-1, -1, CT_DEFAULT), CT_ERR_RUNTIME, "n must be greater or equal to 0, got -1");
    CHECK_ERR(ct_eye(2, -1, CT_DEFAULT), CT_ERR_RUNTIME, "m must be greater or equal to 0, got -1");
    CHECK_ERR(ct_eye(-2, -1, CT_DEFAULT), CT_ERR_RUNTIME, "n must be greater or equal to 0, got -2");
    CHECK_ERR(ct_diag(ct_zeros(CT_SHAPE(2, 2, 2), CT_F32), 0), CT_ERR_RUNTIME, "matrix or a vector expected");
    CHECK_ERR(ct_diag(ct_scalar_tensor(ct_float(3), CT_F32), 0), CT_ERR_RUNTIME, "matrix or a vector expected");
    CHECK_ERR(ct_diag(mat, 5), CT_ERR_RUNTIME, "numel: integer multiplication overflow");
    CHECK_ERR(ct_diag(mat, -4), CT_ERR_RUNTIME, "numel: integer multiplication overflow");
    CHECK_ERR(ct_tril(ct_zeros(CT_SHAPE(3), CT_F32), 0), CT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
    CHECK_ERR(ct_triu(ct_scalar_tensor(ct_float(3), CT_F32), 0), CT_ERR_INDEX,
              "Dimension specified as -2 but tensor has no dimensions");
    CHECK_ERR(ct_full(CT_SHAPE(2, -1), ct_float(1), CT_DEFAULT), CT_ERR_RUNTIME,
              "Trying to create tensor with negative dimension -1: [2, -1]");
    CHECK_ERR(ct_zeros(CT_SHAPE(-3), CT_DEFAULT), CT_ERR_RUNTIME, "Trying to create tensor with negative dimension -3: [-3]");
    CHECK_ERR(ct_full(CT_SHAPE(2), ct_int(256), CT_U8), CT_ERR_RUNTIME, msg_overflow_u8);
    CHECK_ERR(ct_full_like(ct_zeros(CT_SHAPE(2), CT_I32), ct_float(1e10), CT_DEFAULT), CT_ERR_RUNTIME,
              "value cannot be converted to type int without overflow");
    CHECK_ERR(ct_scalar_tensor(ct_int(300), CT_U8), CT_ERR_RUNTIME, "value cannot be converted to type uint8 without overflow");
    CHECK_ERR(ct_scalar_tensor(ct_float(-2.5), CT_U8), CT_ERR_RUNTIME,
              "value cannot be converted to type uint8 without overflow");
    CHECK_FAILS(ct_copy_(ct_zeros(CT_SHAPE(2, 3), CT_F32), ct_zeros(CT_SHAPE(4), CT_F32)), CT_ERR_RUNTIME,
                "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
    CHECK_FAILS(ct_copy_(ct_zeros(CT_SHAPE(3), CT_F32), ct_zeros(CT_SHAPE(2, 3), CT_F32)), CT_ERR_RUNTIME,
                "output with shape [3] doesn't match the broadcast shape [2, 3]");
    CHECK_FAILS(ct_copy_(ct_expand(ct_zeros(CT_SHAPE(3, 1), CT_F32), CT_SHAPE(3, 4)), ct_zeros(CT_SHAPE(4), CT_F32)),
                CT_ERR_RUNTIME,
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation.");
    /* a NULL in a chain keeps the first error */
    CHECK_ERR(ct_tril(ct_diag(ct_zeros(CT_SHAPE(2, 2, 2), CT_F32), 0), 0), CT_ERR_RUNTIME, "matrix or a vector expected");
    CHECK_ERR(ct_to(NULL, CT_F32), CT_ERR_TYPE, "to(): argument 'self' (position 1) must be Tensor, not NULL");
}

/* ---------------------------------------------------------------- from_blob, from_array, zero sizes */

static void count_calls(void *data, void *ctx)
{
    (void)data;
    ++*(int *)ctx;
}

static void test_from_blob(void)
{
    float data[6] = {0, 1, 2, 3, 4, 5};
    ct_tensor *t = ct_from_blob(data, CT_SHAPE(2, 3), NULL, CT_F32, NULL, NULL);
    CHECK(ct_data_ptr(t) == data);
    CHECK_INT(ct_stride(t, 0), 3);
    CHECK_OK(ct_fill_(ct_select(t, 0, 1), ct_float(7))); /* writes go to the caller's array */
    CHECK(data[2] == 2 && data[3] == 7 && data[5] == 7);
    data[0] = -1; /* and the caller's writes show */
    CHECK_VALUES(ct_select(t, 0, 0), CT_SHAPE(3), -1, 1, 2);
    const int64_t strides[] = {1, 3}; /* column-major 3x2 */
    ct_tensor *c = ct_from_blob(data, CT_SHAPE(3, 2), strides, CT_F32, NULL, NULL);
    CHECK(!ct_is_contiguous(c));
    CHECK_VALUES(c, CT_SHAPE(3, 2), -1, 7, 1, 7, 2, 7);
    CHECK_VALUES(ct_clone(c), CT_SHAPE(3, 2), -1, 7, 1, 7, 2, 7);
    CHECK_INT(ct_stride(ct_clone(c), 0), 1); /* dense, so clone keeps the column-major strides */
    /* the deleter runs once, when the last view goes */
    int calls = 0;
    ct_scope outer = ct_scope_begin();
    ct_scope inner = ct_scope_begin();
    ct_tensor *b = ct_from_blob(data, CT_SHAPE(6), NULL, CT_F32, count_calls, &calls);
    ct_keep(ct_view(b, CT_SHAPE(2, 3)));
    ct_slice(b, 0, 1, 3, 1);
    ct_scope_end(inner);
    CHECK_INT(calls, 0); /* the kept view still holds the memory */
    ct_scope_end(outer);
    CHECK_INT(calls, 1);
    /* empty blobs need no memory */
    CHECK_INT(ct_numel(ct_from_blob(NULL, CT_SHAPE(0, 3), NULL, CT_F32, NULL, NULL)), 0);
    const int64_t negative[] = {-1};
    CHECK_ERR(ct_from_blob(data, CT_SHAPE(3), negative, CT_F32, NULL, NULL), CT_ERR_RUNTIME,
              "negative strides are not currently supported");
}

static void test_from_array_copies(void)
{
    int16_t src[4] = {1, -2, 300, 4};
    ct_tensor *t = ct_from_array(src, CT_SHAPE(2, 2), CT_I16);
    src[0] = 99;
    CHECK_VALUES(t, CT_SHAPE(2, 2), 1, -2, 300, 4);
    CHECK(ct_data_ptr(t) != (void *)src);
    CHECK_INT(ct_numel(ct_from_array(NULL, CT_SHAPE(0), CT_F32)), 0);
    CHECK_INT(ct_dim(ct_from_array(src, CT_SHAPE0, CT_I16)), 0);
    CHECK_VALUES(ct_from_array(src, CT_SHAPE0, CT_I16), CT_SHAPE0, 99);
}

static void test_zero_sizes(void)
{
    ct_tensor *z = ct_ones(CT_SHAPE(2, 0, 3), CT_F32);
    CHECK_INT(ct_numel(z), 0);
    CHECK_INT(ct_stride(z, 0), 3);
    CHECK_INT(ct_stride(z, 1), 3);
    CHECK(ct_is_contiguous(z));
    CHECK_INT(ct_numel(ct_full(CT_SHAPE(0), ct_int(300), CT_I16)), 0);
    CHECK_ERR(ct_full(CT_SHAPE(0), ct_int(300), CT_I8), CT_ERR_RUNTIME, "int8_t without overflow"); /* checked anyway */
    CHECK_INT(ct_numel(ct_arange(ct_int(3), ct_int(3), ct_int(1), CT_DEFAULT)), 0);
    CHECK_INT(ct_numel(ct_arange(ct_float(0), ct_float(5), ct_float(INFINITY), CT_DEFAULT)), 0);
    CHECK_INT(ct_numel(ct_to(z, CT_I8)), 0);
    CHECK_INT(ct_numel(ct_clone(ct_t(ct_zeros(CT_SHAPE(0, 4), CT_F32)))), 0);
    CHECK_OK(ct_fill_(z, ct_float(2)));
    CHECK_OK(ct_copy_(z, ct_zeros(CT_SHAPE(3), CT_I64)));
    CHECK_INT(ct_size(ct_zeros_like(z, CT_DEFAULT), 1), 0);
}

/* The VmFlags line of /proc/self/smaps for the mapping holding p: "" when
 * no mapping does, NULL when the file cannot be read (not Linux). Windows
 * has none (under wine, /proc is the Linux host's). */
static const char *vm_flags_of(const void *p, char *flags, size_t size)
{
#ifdef _WIN32
    (void)p, (void)flags, (void)size;
    return NULL;
#endif
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    bool inside = false;
    if (!f) return NULL;
    flags[0] = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, hi;
        if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2) inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (inside && !strncmp(line, "VmFlags:", 8)) snprintf(flags, size, "%s", line + 8);
    }
    fclose(f);
    return flags;
}

/* A block of 32 MB or more asks Linux for transparent huge pages (its
 * mapping is flagged hg) and is 64-byte aligned like any other; the values
 * written there are read back, and the block is freed (the sanitizer build
 * checks for leaks). */
static void test_large_blocks(void)
{
    if (ct_test_on_device()) return; /* the CPU allocator's blocks */
    const int64_t n = 9 * 1000 * 1000; /* 36 MB of float32 */
    ct_scope s = ct_scope_begin();
    ct_tensor *a = ct_arange(ct_int(0), ct_int(n), ct_int(1), CT_F32);
    ct_tensor *b = ct_add(a, a);
    char flags[512];
    CHECK_T(b);
    if (b) {
        const float *y = (const float *)ct_data_ptr(b);
        CHECK_INT((uintptr_t)y % 64, 0);
        CHECK(y[12345] == 24690.0f && y[n - 1] == 2.0f * (float)(n - 1));
        if (vm_flags_of(y, flags, sizeof flags)) CHECK(strstr(flags, " hg") != NULL);
    }
    ct_scope_end(s);
}

#ifndef _WIN32
#include <malloc.h> /* mallinfo2 */

/* A thread that makes and frees many small tensors (their blocks kept for
 * its next ones) leaves nothing allocated when it exits: malloc's count of
 * bytes in use is back where it was. (Under the sanitizers no block is kept,
 * and LeakSanitizer checks the same.) */
static void *small_tensors(void *arg)
{
    enum { N = 20 };
    ct_tensor *t[N];
    (void)arg;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) t[i] = ct_full(CT_SHAPE(i % 5), ct_float(i), CT_F32);
        for (int i = 0; i < N; i++) ct_release(t[i]);
    }
    return NULL;
}

static size_t bytes_in_use_after_a_thread(void)
{
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, small_tensors, NULL) == 0);
    pthread_join(thread, NULL);
    CHECK_OK(ct_synchronize(ct_get_default_device())); /* a device's queued work done (the emulation's is host memory) */
    return mallinfo2().uordblks;
}

static void test_small_blocks_freed_at_thread_exit(void)
{
    size_t before = bytes_in_use_after_a_thread(); /* (the first thread's own setup is done) */
    CHECK_INT((long long)bytes_in_use_after_a_thread(), (long long)before);
}
#endif

/* A zero dim before huge ones: no element, and strides that wrap as PyTorch's
 * C++ computes them (torch.empty(0, 2**62, 2**62).stride() == (0, 2**62, 1)). */
static void test_huge_sizes_beside_a_zero_dim(void)
{
    const int64_t big = (int64_t)1 << 62;
    ct_tensor *e = ct_empty(CT_SHAPE(0, big, big), CT_F32);
    CHECK_T(e);
    if (e) CHECK(ct_numel(e) == 0 && ct_stride(e, 0) == 0 && ct_stride(e, 1) == big && ct_stride(e, 2) == 1);
    ct_tensor *r = ct_reshape(ct_zeros(CT_SHAPE(0), CT_F32), CT_SHAPE(0, big, big));
    CHECK_T(r);
    if (r) CHECK(ct_numel(r) == 0 && ct_stride(r, 0) == 0 && ct_stride(r, 1) == big);
    /* one_hot with INT64_MAX classes: PyTorch's words for each way it overflows */
    ct_tensor *labels = ct_zeros(CT_SHAPE(2), CT_I64);
    CHECK_ERR(ct_one_hot(labels, INT64_MAX), CT_ERR_RUNTIME,
              "Storage size calculation overflowed with sizes=[2, 9223372036854775807]");
    ct_tensor *top = ct_from_array((int64_t[]){INT64_MAX}, CT_SHAPE(1), CT_I64);
    CHECK_ERR(ct_one_hot(top, -1), CT_ERR_RUNTIME,
              "IntArrayRef contains an int that cannot be represented as a SymInt: -9223372036854775808");
    CHECK_ERR(ct_one_hot(top, INT64_MAX), CT_ERR_RUNTIME, "Class values must be smaller than num_classes.");
    ct_tensor *none = ct_one_hot(ct_zeros(CT_SHAPE(0), CT_I64), INT64_MAX);
    CHECK_T(none);
    if (none) CHECK(ct_numel(none) == 0 && ct_size(none, 1) == INT64_MAX);
}

int main(void)
{
    RUN(test_to_every_pair);
    RUN(test_to_every_pair_strided);
    RUN(test_to_every_pair_long);
    RUN(test_arange_golden);
    RUN(test_linspace_golden);
    RUN_NOT_ON_WINDOWS(test_logspace_golden, "its goldens hold glibc's last bits of pow");
    RUN(test_arange_int64_extremes);
    RUN(test_ranges_long);
    RUN(test_fill_golden);
    RUN(test_fill_views);
    RUN(test_scalar_tensor_golden);
    RUN(test_dtype_inference);
    RUN(test_layouts);
    RUN(test_eye_golden);
    RUN(test_diag_golden);
    RUN(test_tril_triu_golden);
    RUN(test_copy_broadcast_golden);
    RUN(test_range_errors);
    RUN(test_factory_errors);
    RUN(test_from_blob);
    RUN(test_from_array_copies);
    RUN(test_zero_sizes);
    RUN(test_large_blocks);
    RUN_NOT_ON_WINDOWS(test_small_blocks_freed_at_thread_exit, "counts bytes in use with glibc's mallinfo2");
    RUN(test_huge_sizes_beside_a_zero_dim);
    return ct_test_report();
}
