/* Sorting and selection against PyTorch: every case of tests/golden/sort.txt
 * (values, indices and their strides bit for bit, errors by type and exact
 * message), the seed outputs, and what the C API adds (results not wanted,
 * results cleared on failure, as_tuple views). */
#include "harness.h"

#include <stdint.h>

static int split(char *line, char **fields, int n)
{
    int k = 0;
    fields[k++] = line;
    for (char *p = line; *p && k < n; p++)
        if (*p == '|') {
            *p = 0;
            fields[k++] = p + 1;
        }
    return k;
}

static const struct {
    const char *name;
    ct_dtype dtype;
} dtype_names[] = {{"b8", CT_BOOL}, {"u8", CT_U8},   {"i8", CT_I8},     {"i16", CT_I16}, {"i32", CT_I32},
                   {"i64", CT_I64}, {"f16", CT_F16}, {"bf16", CT_BF16}, {"f32", CT_F32}, {"f64", CT_F64}};

static ct_dtype dtype_named(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
        if (strlen(dtype_names[i].name) == len && !strncmp(dtype_names[i].name, s, len)) return dtype_names[i].dtype;
    return CT_DEFAULT;
}

static const char *dtype_short(ct_dtype dt)
{
    for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
        if (dtype_names[i].dtype == dt) return dtype_names[i].name;
    return "?";
}

/* "3x4" or "3,4" (or "" for 0-d) as a list of sizes; returns the end of what it read. */
static const char *parse_sizes(const char *s, ct_shape *shape)
{
    shape->ndim = 0;
    while (*s >= '0' && *s <= '9') {
        char *end;
        shape->size[shape->ndim++] = strtoll(s, &end, 10);
        s = *end == 'x' || *end == ',' ? end + 1 : end;
    }
    return s;
}

static uint64_t splitmix(uint64_t x)
{
    uint64_t z = x + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* gen:<dtype>:<sizes>:<seed>:<spread>, computed as gen_sort.py's generated() does. */
static const ct_tensor *generated(const char *spec)
{
    const char *dt_end = strchr(spec, ':');
    ct_dtype dt = dtype_named(spec, (size_t)(dt_end - spec));
    ct_shape shape;
    const char *p = parse_sizes(dt_end + 1, &shape);
    char *end;
    uint64_t seed = strtoull(p + 1, &end, 10);
    int64_t spread = strtoll(end + 1, NULL, 10), n = 1;
    for (int d = 0; d < shape.ndim; d++) n *= shape.size[d];
    double *v = (double *)malloc((size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = splitmix(seed + (uint64_t)i) >> 33;
        if (dt == CT_BOOL) v[i] = (double)(r & 1);
        else if (!ct_dtype_is_floating(dt)) v[i] = (double)(r % (uint64_t)spread) - (dt == CT_U8 ? 0 : spread / 2);
        else v[i] = r % 97 == 0 ? NAN : ((double)((r >> 7) % (uint64_t)spread) - spread / 2) / 2;
    }
    ct_tensor *t = ct_to(ct_from_array(v, shape, CT_F64), dt);
    free(v);
    return t;
}

/* golden("sort", name), kept for the whole run: the listing names the same
 * tensors many times, and each golden() call reads through the file. */
static struct {
    char name[16];
    ct_tensor *t;
} cache[8192];
static int ncached;

static const ct_tensor *stored(const char *name)
{
    for (int i = 0; i < ncached; i++)
        if (!strcmp(cache[i].name, name)) return cache[i].t;
    const ct_tensor *t = golden("sort", name);
    if (t && ncached < (int)(sizeof cache / sizeof cache[0]) && strlen(name) < sizeof cache[0].name) {
        snprintf(cache[ncached].name, sizeof cache[0].name, "%s", name);
        cache[ncached++].t = ct_retain((ct_tensor *)t);
    }
    return t;
}

static void release_cache(void)
{
    while (ncached > 0) ct_release(cache[--ncached].t);
}

/* An input of the listing: a stored tensor, a view of one, or generated values. */
static const ct_tensor *input(const char *spec)
{
    if (!strncmp(spec, "gen:", 4)) return generated(spec + 4);
    char name[64];
    const char *at = strchr(spec, '@');
    size_t len = at ? (size_t)(at - spec) : strlen(spec);
    snprintf(name, sizeof name, "%.*s", (int)len, spec);
    const ct_tensor *t = stored(name);
    if (!at || !t) return t;
    if (at[1] == 'T') return ct_transpose(t, 0, 1);
    if (at[1] == 'S') return ct_slice(t, -1, 0, CT_END, 2);
    ct_shape sizes = ct_shape_of(t);
    sizes.size[0] = strtoll(at + 2, NULL, 10);
    return ct_expand(t, sizes);
}

static ct_scalar number(const char *code)
{
    if (code[0] == 'f') return ct_float(strtod(code + 2, NULL));
    if (code[0] == 'b') return ct_bool(code[2] == '1');
    return ct_int(strtoll(code + 2, NULL, 10));
}

/* gen_sort.py's checksum: sum of float64 bits * (2i+1), NaN made canonical. */
static uint64_t checksum(const ct_tensor *t)
{
    int64_t n = ct_numel(t);
    double *v = (double *)malloc((size_t)(n ? n : 1) * sizeof(double));
    uint64_t sum = 0;
    ct_copy_to_array(t, v, n, CT_F64);
    for (int64_t i = 0; i < n; i++) {
        uint64_t bits;
        double x = v[i] != v[i] ? NAN : v[i];
        memcpy(&bits, &x, 8);
        if (x != x) bits = 0x7ff8000000000000u;
        sum += bits * (uint64_t)(2 * i + 1);
    }
    free(v);
    return sum;
}

static int ncases, nchecks;

/* A result against its field: <name>[<strides>] (a golden tensor), or
 * #<checksum>/<dtype>/<sizes>[<strides>] for a large one. */
static void check_result(const char *what, const ct_tensor *r, const char *field)
{
    const char *br = strchr(field, '[');
    ct_shape strides;
    if (!r) {
        ct_test_fail(__FILE__, __LINE__, "%s: result missing", what);
        return;
    }
    parse_sizes(br + 1, &strides);
    if (!strcmp(br, "[]")) strides.ndim = 0;
    ct_shape got = ct_strides_of(r);
    if (got.ndim != strides.ndim || memcmp(got.size, strides.size, (size_t)got.ndim * sizeof(int64_t)))
        ct_test_fail(__FILE__, __LINE__, "%s: strides differ from PyTorch's %s", what, br);
    nchecks++;
    if (field[0] != '#') {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(br - field), field);
        ct_test_check_tensor(__FILE__, __LINE__, what, r, stored(name), 0);
        return;
    }
    /* #<hex>/<dtype>/<sizes>[...] */
    char *end;
    uint64_t want = strtoull(field + 1, &end, 16);
    const char *dt_end = strchr(end + 1, '/');
    ct_shape shape, have = ct_shape_of(r);
    parse_sizes(dt_end + 1, &shape);
    if (ct_dtype_of(r) != dtype_named(end + 1, (size_t)(dt_end - end - 1)))
        ct_test_fail(__FILE__, __LINE__, "%s: dtype %s, expected %.*s", what, dtype_short(ct_dtype_of(r)),
                     (int)(dt_end - end - 1), end + 1);
    else if (have.ndim != shape.ndim || memcmp(have.size, shape.size, (size_t)have.ndim * sizeof(int64_t)))
        ct_test_fail(__FILE__, __LINE__, "%s: shape differs from PyTorch's", what);
    else if (checksum(r) != want)
        ct_test_fail(__FILE__, __LINE__, "%s: checksum %llx, expected %llx", what, (unsigned long long)checksum(r),
                     (unsigned long long)want);
}

/* The call's outcome against the expected results (fields) or error. */
static void check_case(const char *what, ct_result rc, ct_tensor *const *res, int nres, char **fields, int nfields)
{
    ncases++;
    if (!strncmp(fields[0], "ERR ", 4)) {
        const char *msg = nfields > 1 ? fields[1] : "";
        if (rc == CT_OK)
            ct_test_fail(__FILE__, __LINE__, "%s succeeded, expected %s", what, msg);
        else if (strcmp(ct_result_str(ct_last_error_code()), fields[0] + 4) || strcmp(ct_last_error(), msg))
            ct_test_fail(__FILE__, __LINE__, "%s: got %s \"%s\", expected %s \"%s\"", what,
                         ct_result_str(ct_last_error_code()), ct_last_error(), fields[0] + 4, msg);
        for (int i = 0; i < nres; i++)
            if (res[i]) ct_test_fail(__FILE__, __LINE__, "%s failed but left result %d set", what, i);
        ct_clear_error();
        return;
    }
    if (rc != CT_OK) {
        ct_test_fail(__FILE__, __LINE__, "%s failed: %s", what, ct_last_error());
        ct_clear_error();
        return;
    }
    for (int i = 0; i < nres && i < nfields; i++) check_result(what, res[i], fields[i]);
}

static ct_result ok_if(const ct_tensor *t) { return t ? CT_OK : ct_last_error_code(); }

/* One line of the listing: run the op as the fields say. */
static void run_case(char **f, int n, const char *what)
{
    const char *op = f[0];
    const ct_tensor *x = input(f[1]);
    ct_tensor *r[3] = {NULL, NULL, NULL};
    ct_result rc;
    if (!strcmp(op, "sort")) {
        rc = ct_sort(x, atoi(f[2]), f[3][0] == '1', f[4][0] == '1', &r[0], &r[1]);
        check_case(what, rc, r, 2, f + 5, n - 5);
    } else if (!strcmp(op, "argsort")) {
        r[0] = ct_argsort(x, atoi(f[2]), f[3][0] == '1', f[4][0] == '1');
        check_case(what, ok_if(r[0]), r, 1, f + 5, n - 5);
    } else if (!strcmp(op, "topk")) {
        rc = ct_topk(x, atoll(f[2]), atoi(f[3]), f[4][0] == '1', f[5][0] == '1', &r[0], &r[1]);
        check_case(what, rc, r, 2, f + 6, n - 6);
    } else if (!strcmp(op, "kthvalue")) {
        rc = ct_kthvalue(x, atoll(f[2]), atoi(f[3]), f[4][0] == '1', &r[0], &r[1]);
        check_case(what, rc, r, 2, f + 5, n - 5);
    } else if (!strcmp(op, "unique")) {
        rc = f[3][0] == 'N' ? ct_unique(x, f[2][0] == '1', &r[0], &r[1], &r[2])
                            : ct_unique_dim(x, atoi(f[3]), f[2][0] == '1', &r[0], &r[1], &r[2]);
        check_case(what, rc, r, 3, f + 4, n - 4);
    } else if (!strcmp(op, "unique_consecutive")) {
        rc = f[2][0] == 'N' ? ct_unique_consecutive(x, &r[0], &r[1], &r[2])
                            : ct_unique_consecutive_dim(x, atoi(f[2]), &r[0], &r[1], &r[2]);
        check_case(what, rc, r, 3, f + 3, n - 3);
    } else if (!strcmp(op, "nonzero")) {
        ct_tensor *tuple[CT_MAX_DIMS] = {NULL};
        int count = 0;
        if (f[2][0] == '0') {
            tuple[0] = ct_nonzero(x);
            rc = ok_if(tuple[0]);
            count = 1;
        } else {
            rc = ct_nonzero_as_tuple(x, tuple, &count);
        }
        if (rc == CT_OK && count != n - 3)
            ct_test_fail(__FILE__, __LINE__, "%s: %d tensors, expected %d", what, count, n - 3);
        check_case(what, rc, tuple, count, f + 3, n - 3);
    } else if (!strcmp(op, "searchsorted")) {
        ct_searchsorted_opts o = {f[3][0] == '1', f[4][0] == '1', f[5][0] == 'N' ? NULL : f[5],
                                  f[6][0] == 'N' ? NULL : input(f[6])};
        bool num = f[2][1] == ':';
        r[0] = num ? ct_searchsorted_scalar(x, number(f[2]), o) : ct_searchsorted(x, input(f[2]), o);
        check_case(what, ok_if(r[0]), r, 1, f + 7, n - 7);
    } else {
        ct_test_fail(__FILE__, __LINE__, "unknown op %s", op);
    }
}

static void test_golden_cases(void)
{
    FILE *f = fopen("tests/golden/sort.txt", "r");
    char line[8192], what[8192];
    CHECK(f != NULL);
    while (f && fgets(line, sizeof line, f)) {
        char *fld[16];
        line[strcspn(line, "\n")] = 0;
        snprintf(what, sizeof what, "%s", line);
        int n = split(line, fld, 16);
        ct_scope s = ct_scope_begin();
        run_case(fld, n, what);
        ct_scope_end(s);
    }
    if (f) fclose(f);
    release_cache();
    CHECK(ncases > 5000);
    CHECK(nchecks > 7500);
}

/* The seed outputs, printed as PyTorch prints them. */
static void test_seed_outputs(void)
{
    const float d[] = {9, 7, 8, 1, 3, 2, 5, 6, 4};
    ct_tensor *a = ct_from_array(d, CT_SHAPE(3, 3), CT_F32), *v, *i;
    CHECK_OK(ct_topk(a, 2, 0, true, true, &v, &i));
    CHECK_REPR(v, "tensor([[9., 7., 8.],\n        [5., 6., 4.]])");
    CHECK_REPR(i, "tensor([[0, 0, 0],\n        [2, 2, 2]])");
    CHECK_OK(ct_topk(a, 2, 1, true, true, &v, &i));
    CHECK_REPR(v, "tensor([[9., 8.],\n        [3., 2.],\n        [6., 5.]])");
    CHECK_REPR(i, "tensor([[0, 2],\n        [1, 2],\n        [1, 0]])");
    CHECK_OK(ct_sort(a, 1, false, false, &v, &i));
    CHECK_REPR(v, "tensor([[7., 8., 9.],\n        [1., 2., 3.],\n        [4., 5., 6.]])");
    CHECK_REPR(i, "tensor([[1, 2, 0],\n        [0, 2, 1],\n        [2, 0, 1]])");
}

/* Results not asked for are not made; on failure the given pointers are cleared. */
static void test_result_pointers(void)
{
    const float d[] = {3, 1, 2};
    ct_tensor *x = ct_from_array(d, CT_SHAPE(3), CT_F32), *v = x, *i = x, *c = x;
    CHECK_OK(ct_sort(x, 0, false, false, NULL, &i));
    CHECK_VALUES(i, CT_SHAPE(3), 1, 2, 0);
    CHECK_OK(ct_topk(x, 1, 0, true, true, &v, NULL));
    CHECK_VALUES(v, CT_SHAPE(1), 3);
    CHECK_OK(ct_unique(x, true, NULL, NULL, &c));
    CHECK_VALUES(c, CT_SHAPE(3), 1, 1, 1);
    v = i = c = x;
    CHECK_FAILS(ct_kthvalue(x, 4, 0, false, &v, &i), CT_ERR_RUNTIME, "selected number k out of range");
    CHECK(v == NULL && i == NULL);
    CHECK_FAILS(ct_sort(NULL, 0, false, false, &v, &i), CT_ERR_TYPE,
                "sort(): argument 'input' (position 1) must be Tensor, not NULL");
    CHECK_ERR(ct_argsort(NULL, 0, false, false), CT_ERR_TYPE, "argsort(): argument 'input'");
    CHECK_ERR(ct_searchsorted(x, NULL, (ct_searchsorted_opts){0}), CT_ERR_TYPE,
              "searchsorted(): argument 'input' (position 2) must be Tensor, not NULL");
    CHECK_FAILS(ct_unique_consecutive(NULL, &v, NULL, NULL), CT_ERR_TYPE, "unique_consecutive(): argument 'input'");
    CHECK(v == NULL);
}

/* as_tuple gives views of one (n, ndim) index tensor, as unbind does. */
static void test_nonzero_as_tuple_views(void)
{
    const float d[] = {0, 1, 2, 0, 0, 3};
    ct_tensor *x = ct_from_array(d, CT_SHAPE(2, 3), CT_F32), *out[CT_MAX_DIMS];
    int count = -1;
    CHECK_OK(ct_nonzero_as_tuple(x, out, &count));
    CHECK_INT(count, 2);
    CHECK(ct_storage_data_ptr(out[0]) == ct_storage_data_ptr(out[1]));
    CHECK_VALUES(out[0], CT_SHAPE(3), 0, 0, 1);
    CHECK_VALUES(out[1], CT_SHAPE(3), 1, 2, 2);
    CHECK_FAILS(ct_nonzero_as_tuple(x, NULL, &count), CT_ERR_VALUE, "must not be NULL");
}

/* Sorting does not touch its input, whatever path it takes. */
static void test_input_unchanged(void)
{
    float d[1000];
    for (int k = 0; k < 1000; k++) d[k] = (float)((k * 7919) % 101);
    ct_tensor *x = ct_from_array(d, CT_SHAPE(1000), CT_F32), *c = ct_clone(x), *v, *i;
    CHECK_OK(ct_sort(x, 0, true, false, &v, &i));
    CHECK_OK(ct_topk(x, 10, 0, true, false, &v, &i));
    CHECK_OK(ct_kthvalue(x, 500, 0, false, &v, &i));
    CHECK_TENSOR(x, c, 0);
}

int main(void)
{
    RUN(test_golden_cases);
    RUN(test_seed_outputs);
    RUN(test_result_pointers);
    RUN(test_nonzero_as_tuple_views);
    RUN(test_input_unchanged);
    return ct_test_report();
}
