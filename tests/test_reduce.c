/* Reductions, scans and softmax against PyTorch: every case of
 * tests/golden/reduce.txt (written by gen_reduce.py), the seed programs'
 * printed outputs, torch.nn.functional.normalize (written out below), and
 * the API's contracts: NULL arguments and outputs, errors that leave nothing
 * behind, results independent of thread count. */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno: capturing stdout */
#include "harness.h"

#include <ctype.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* How far a result may be from PyTorch's: everything is bit-exact but what
 * goes through exp and log. PyTorch vectorises those with Sleef (within 1
 * ulp of the true value), ctorch calls the C library (within half an ulp);
 * softmax divides such values by their sum, and log_softmax and logsumexp
 * take the log of a sum of them, whose rounding (an ulp of a number >= 1)
 * carries over as an absolute error: for them the ulp is that of
 * max(|value|, 1). */
typedef struct tolerance {
    int ulps;
    double floor;
} tolerance;

static tolerance tolerance_for(const char *op)
{
    tolerance t = {0, 0};
    if (!strcmp(op, "softmax")) t.ulps = 3;
    if (!strcmp(op, "log_softmax") || !strcmp(op, "logsumexp")) t.ulps = 3, t.floor = 1;
    return t;
}

/* t within tol of expect (same dtype and shape). */
static void check_close(const char *what, const ct_tensor *t, const ct_tensor *expect, tolerance tol)
{
    int64_t n = ct_numel(expect);
    double *a = (double *)malloc((size_t)(n ? n : 1) * sizeof(double)), *b = (double *)malloc((size_t)(n ? n : 1) * sizeof(double));
    int mant = ct_dtype_of(expect) == CT_F64 ? 53 : ct_dtype_of(expect) == CT_F32 ? 24 : ct_dtype_of(expect) == CT_F16 ? 11 : 8;
    if (ct_dtype_of(t) != ct_dtype_of(expect) || ct_numel(t) != n) {
        ct_test_fail(__FILE__, __LINE__, "%s: dtype or size differs from PyTorch's", what);
        n = 0;
    }
    ct_copy_to_array(t, a, n, CT_F64);
    ct_copy_to_array(expect, b, n, CT_F64);
    for (int64_t i = 0; i < n; i++) {
        int e;
        if (a[i] == b[i] || (a[i] != a[i] && b[i] != b[i])) continue;
        frexp(fmax(fabs(b[i]), tol.floor), &e);
        if (!(fabs(a[i] - b[i]) <= tol.ulps * ldexp(1.0, e - mant))) {
            ct_test_fail(__FILE__, __LINE__, "%s[%lld] (flat) == %.17g, expected %.17g", what, (long long)i, a[i], b[i]);
            break;
        }
    }
    free(a);
    free(b);
}

/* ---------------------------------------------------------------- parsing a case */

typedef struct case_args {
    ct_shape d;
    bool has_d, k;
    ct_dtype t;
    double p;
    int64_t c;
} case_args;

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

static ct_dtype dtype_named(const char *s)
{
    static const char *names[] = {"", "b8", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};
    for (int i = 1; i < CT_NUM_DTYPES; i++)
        if (!strncmp(s, names[i], strlen(names[i])) && !isalnum((unsigned char)s[strlen(names[i])]))
            return (ct_dtype)i;
    return CT_DEFAULT;
}

/* "1,0" or "3x5" (an empty list for ""), up to the first other character. */
static ct_shape int_list(const char *s)
{
    ct_shape r;
    char *end;
    memset(&r, 0, sizeof r);
    while (r.ndim < CT_MAX_DIMS) {
        int64_t v = strtoll(s, &end, 10);
        if (end == s) break;
        r.size[r.ndim++] = v;
        s = *end == ',' || *end == 'x' ? end + 1 : end;
    }
    return r;
}

static case_args parse_args(const char *s)
{
    case_args a;
    memset(&a, 0, sizeof a);
    a.c = 1;
    for (; *s; s += strcspn(s, ";"), s += *s == ';') {
        if (!strncmp(s, "d=", 2)) a.d = int_list(s + 2), a.has_d = true;
        else if (!strncmp(s, "k=", 2)) a.k = s[2] == '1';
        else if (!strncmp(s, "t=", 2)) a.t = dtype_named(s + 2);
        else if (!strncmp(s, "p=", 2)) a.p = strtod(s + 2, NULL);
        else if (!strncmp(s, "c=", 2)) a.c = strtoll(s + 2, NULL, 10);
    }
    return a;
}

/* The large inputs gen_reduce.py describes, built the same way. */
static ct_tensor *generated(const char *spec)
{
    ct_dtype dt = dtype_named(spec);
    const char *kind = strchr(spec, ':') + 1;
    int64_t sizes[3], n = 1;
    int nd = 0;
    for (const char *p = kind + 2; nd < 3; p++) {
        char *end;
        sizes[nd++] = strtoll(p, &end, 10);
        n *= sizes[nd - 1];
        if (*end != 'x') break;
        p = end;
    }
    float *v = (float *)malloc((size_t)n * sizeof(float)), scale[11];
    for (int k = 0; k < 11; k++) scale[k] = ldexpf(1.0f, -k);
    for (int64_t i = 0; i < n; i++) {
        float base = (float)((i * 7919) % 2003 - 1001);
        v[i] = *kind == 'v' ? base * scale[i % 11] : 1.0f + base * ldexpf(1.0f, -20);
    }
    ct_tensor *f = ct_from_array(v, ct_shape_make(nd, sizes), CT_F32);
    free(v);
    return ct_to(f, dt);
}

/* The last generated input, kept: consecutive cases share it. */
static char generated_spec[256];
static ct_tensor *generated_last;

static const ct_tensor *generated_cached(const char *spec)
{
    if (strcmp(spec, generated_spec)) {
        ct_release(generated_last);
        generated_last = ct_retain(generated(spec)); /* a reference of its own, beyond the case's scope */
        snprintf(generated_spec, sizeof generated_spec, "%s", spec);
    }
    return generated_last;
}

/* The golden banks, one flat tensor of each dtype, read once. */
static const ct_tensor *banks[CT_NUM_DTYPES];

static void load_banks(void)
{
    static const char *names[] = {"", "bank_b8", "bank_u8", "bank_i8", "bank_i16", "bank_i32", "bank_i64",
                                  "bank_f16", "bank_bf16", "bank_f32", "bank_f64"};
    for (int i = 1; i < CT_NUM_DTYPES; i++) banks[i] = golden("reduce", names[i]);
}

/* dtype.offset.shape: a tensor of the golden banks. */
static const ct_tensor *banked(const char *ref)
{
    char *end;
    const ct_tensor *bank = banks[dtype_named(ref)];
    int64_t offset = strtoll(strchr(ref, '.') + 1, &end, 10), n = 1;
    ct_shape shape = int_list(end + 1);
    for (int i = 0; i < shape.ndim; i++) n *= shape.size[i];
    return bank ? ct_view(ct_narrow(bank, 0, offset, n), shape) : NULL;
}

/* tensor[@view] or G...: a golden or generated tensor, viewed. */
static const ct_tensor *make_input(const char *spec)
{
    char name[256];
    const char *at = strchr(spec, '@');
    size_t len = at ? (size_t)(at - spec) : strlen(spec);
    snprintf(name, sizeof name, "%.*s", (int)len, spec);
    const ct_tensor *x = name[0] == 'G' ? generated_cached(name + 1) : banked(name);
    if (!x || !at) return x;
    if (at[1] == 'T') return ct_t(x);
    if (at[1] == 'P') return ct_permute(x, int_list(at + 2));
    if (at[1] == 'E') return ct_expand(x, int_list(at + 2));
    return ct_index(x, at + 2);
}

/* ---------------------------------------------------------------- running a case */

/* The op's function for the case's form; the number of results, or -1. */
static int run(const char *op, const char *form, const ct_tensor *x, const case_args *a, ct_tensor **out)
{
    bool all = !strcmp(form, "all");
    int d = a->has_d && a->d.ndim ? (int)a->d.size[0] : 0;
    ct_shape dims = a->has_d ? a->d : CT_SHAPE0;
#define ONE(expr) return (out[0] = (expr)) ? 1 : -1
#define PAIR(expr) return (expr) == CT_OK ? 2 : -1
    if (!strcmp(op, "sum")) ONE(all ? ct_sum(x) : ct_sum_dim(x, dims, a->k, a->t));
    if (!strcmp(op, "nansum")) ONE(all ? ct_nansum(x) : ct_nansum_dim(x, dims, a->k, a->t));
    if (!strcmp(op, "mean")) ONE(all ? ct_mean(x) : ct_mean_dim(x, dims, a->k, a->t));
    if (!strcmp(op, "prod")) ONE(all ? ct_prod(x) : ct_prod_dim(x, d, a->k, a->t));
    if (!strcmp(op, "amax")) ONE(ct_amax(x, dims, a->k));
    if (!strcmp(op, "amin")) ONE(ct_amin(x, dims, a->k));
    if (!strcmp(op, "count_nonzero")) ONE(ct_count_nonzero(x, dims));
    if (!strcmp(op, "std")) ONE(all ? ct_std(x) : ct_std_dim(x, dims, a->c, a->k));
    if (!strcmp(op, "var")) ONE(all ? ct_var(x) : ct_var_dim(x, dims, a->c, a->k));
    if (!strcmp(op, "std_mean")) PAIR(ct_std_mean(x, dims, a->c, a->k, &out[0], &out[1]));
    if (!strcmp(op, "var_mean")) PAIR(ct_var_mean(x, dims, a->c, a->k, &out[0], &out[1]));
    if (!strcmp(op, "logsumexp") && all) { /* dim=(0, ..., n-1), which PyTorch requires */
        for (int i = dims.ndim = ct_dim(x); i-- > 0;) dims.size[i] = i;
    }
    if (!strcmp(op, "logsumexp")) ONE(ct_logsumexp(x, dims, a->k));
    if (!strcmp(op, "norm") && !strcmp(form, "fro")) ONE(ct_norm_fro(x, dims, a->k));
    if (!strcmp(op, "norm")) ONE(all ? ct_norm(x, a->p) : ct_norm_dim(x, a->p, dims, a->k, a->t));
    if (!strcmp(op, "max")) {
        if (all) ONE(ct_max(x));
        PAIR(ct_max_dim(x, d, a->k, &out[0], &out[1]));
    }
    if (!strcmp(op, "min")) {
        if (all) ONE(ct_min(x));
        PAIR(ct_min_dim(x, d, a->k, &out[0], &out[1]));
    }
    if (!strcmp(op, "argmax")) ONE(all ? ct_argmax(x) : ct_argmax_dim(x, d, a->k));
    if (!strcmp(op, "argmin")) ONE(all ? ct_argmin(x) : ct_argmin_dim(x, d, a->k));
    if (!strcmp(op, "median")) {
        if (all) ONE(ct_median(x));
        PAIR(ct_median_dim(x, d, a->k, &out[0], &out[1]));
    }
    if (!strcmp(op, "mode")) PAIR(ct_mode(x, d, a->k, &out[0], &out[1]));
    if (!strcmp(op, "all")) ONE(all ? ct_all(x) : ct_all_dim(x, d, a->k));
    if (!strcmp(op, "any")) ONE(all ? ct_any(x) : ct_any_dim(x, d, a->k));
    if (!strcmp(form, "ip")) { /* the in-place scans on a copy of the input, laid out as it is */
        out[0] = ct_clone(x);
        ct_result r = !strcmp(op, "cumsum") ? ct_cumsum_(out[0], d, a->t) : ct_cumprod_(out[0], d, a->t);
        return r == CT_OK ? 1 : -1;
    }
    if (!strcmp(op, "cumsum")) ONE(ct_cumsum(x, d, a->t));
    if (!strcmp(op, "cumprod")) ONE(ct_cumprod(x, d, a->t));
    if (!strcmp(op, "cummax")) PAIR(ct_cummax(x, d, &out[0], &out[1]));
    if (!strcmp(op, "cummin")) PAIR(ct_cummin(x, d, &out[0], &out[1]));
    if (!strcmp(op, "logcumsumexp")) ONE(ct_logcumsumexp(x, d));
    if (!strcmp(op, "softmax")) ONE(ct_softmax(x, d, a->t));
    if (!strcmp(op, "log_softmax")) ONE(ct_log_softmax(x, d, a->t));
#undef ONE
#undef PAIR
    return 0;
}

static ct_result error_code(const char *type)
{
    if (!strcmp(type, "IndexError")) return CT_ERR_INDEX;
    if (!strcmp(type, "TypeError")) return CT_ERR_TYPE;
    if (!strcmp(type, "ValueError")) return CT_ERR_VALUE;
    return CT_ERR_RUNTIME;
}

/* A result against its golden: tensor, or tensor~step~shape for every
 * step-th element of a large one. New results are contiguous, as PyTorch's. */
static void check_result(const char *what, ct_tensor *r, const char *ref, tolerance tol, bool in_place)
{
    const char *tilde = strchr(ref, '~');
    const ct_tensor *expect = banked(ref);
    if (!in_place && !ct_is_contiguous(r)) ct_test_fail(__FILE__, __LINE__, "%s: the result is not contiguous", what);
    if (tilde) {
        int64_t step = strtoll(tilde + 1, NULL, 10), n = 1;
        ct_shape shape = int_list(strchr(tilde + 1, '~') + 1);
        for (int i = 0; i < shape.ndim; i++) n *= shape.size[i];
        if (ct_numel(r) != n || ct_dim(r) != shape.ndim)
            ct_test_fail(__FILE__, __LINE__, "%s: %lld elements, expected %lld", what, (long long)ct_numel(r), (long long)n);
        r = ct_slice(ct_reshape(r, CT_SHAPE(-1)), 0, 0, CT_END, step);
    }
    if (tol.ulps) check_close(what, r, expect, tol);
    else ct_test_check_tensor(__FILE__, __LINE__, what, r, expect, 0);
}

/* Whether a case's goldens hold glibc's last bits, which Windows builds do
 * not get from mingw-w64's libm: the norms whose p takes them through pow
 * (any but 0, 1, 2 and +-inf). */
static bool holds_glibc_bits(const char *op, const case_args *a)
{
#ifdef _WIN32
    return !strcmp(op, "norm") && a->p != 0 && a->p != 1 && a->p != 2 && !isinf(a->p);
#else
    (void)op, (void)a;
    return false;
#endif
}
static int glibc_bits_cases;

static int run_line(char *line)
{
    char *f[8], what[512];
    int n = split(line, f, 8);
    const char *op = f[0], *form = f[1], *result = f[4];
    case_args a = parse_args(f[3]);
    if (holds_glibc_bits(op, &a)) {
        glibc_bits_cases++;
        return 0;
    }
    ct_tensor *out[2] = {NULL, NULL};
    const ct_tensor *x = make_input(f[2]);
    snprintf(what, sizeof what, "%.40s|%.8s|%.200s|%.200s", op, form, f[2], f[3]);
    if (!x) return 0;
    int got = run(op, form, x, &a, out);
    if (!strncmp(result, "ERR ", 4)) {
        const char *msg = n > 5 ? f[5] : "";
        if (got > 0) ct_test_fail(__FILE__, __LINE__, "%s succeeded, expected %s", what, msg);
        else if (ct_last_error_code() != error_code(result + 4) || strcmp(ct_last_error(), msg))
            ct_test_fail(__FILE__, __LINE__, "%s: got %s \"%s\", expected %s \"%s\"", what,
                         ct_result_str(ct_last_error_code()), ct_last_error(), result + 4, msg);
        ct_clear_error();
        return 1;
    }
    if (got <= 0) {
        ct_test_fail(__FILE__, __LINE__, "%s failed: %s", what, got ? ct_last_error() : "unknown op");
        ct_clear_error();
        return 1;
    }
    char *second = strchr(result, ',');
    if (second) *second++ = 0;
    if ((got == 2) != (second != NULL)) ct_test_fail(__FILE__, __LINE__, "%s: %d results", what, got);
    tolerance exact = {0, 0};
    check_result(what, out[0], result, tolerance_for(op), !strcmp(form, "ip"));
    if (second && got == 2) check_result(what, out[1], second, exact, false);
    return 1;
}

static void test_golden_cases(void)
{
    FILE *f = fopen("tests/golden/reduce.txt", "r");
    char line[8192];
    int cases = 0;
    CHECK(f != NULL);
    load_banks();
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        ct_scope s = ct_scope_begin();
        cases += run_line(line);
        ct_scope_end(s);
    }
    if (f) fclose(f);
    ct_release(generated_last);
    generated_last = NULL;
    CHECK(cases > 9000);
    ct_test_skip_cases("test_golden_cases", glibc_bits_cases, "norms with p other than 0, 1, 2, +-inf",
                       "their goldens hold glibc's last bits of pow");
}

/* ---------------------------------------------------------------- the seed programs */

static void seed_statistics(void)
{
    ct_tensor *a = ct_arange(ct_int(1), ct_int(10), ct_int(1), CT_F32), *v, *i;
    ct_print(ct_sum(a));
    ct_print(ct_mean(a));
    ct_print(ct_max(a));
    ct_print(ct_min(a));
    ct_print(ct_prod(a));
    ct_print(ct_std(a));
    ct_print(ct_var(a));
    ct_print(ct_median(a));
    ct_tensor *b = ct_view(a, CT_SHAPE(3, 3));
    ct_print(b);
    ct_max_dim(b, 0, false, &v, &i);
    ct_print_return_types("max", v, i);
    ct_max_dim(b, 1, false, &v, &i);
    ct_print_return_types("max", v, i);
}

static void seed_scans(void)
{
    ct_tensor *a = ct_arange(ct_int(1), ct_int(10), ct_int(1), CT_DEFAULT), *v, *i;
    ct_print(ct_cumsum(a, 0, CT_DEFAULT));
    ct_print(ct_cumprod(a, 0, CT_DEFAULT));
    ct_cummax(a, 0, &v, &i);
    ct_print(v);
    ct_print(i);
    ct_cummin(a, 0, &v, &i);
    ct_print_return_types("cummin", v, i);
}

static void seed_mean(void)
{
    static const float m[16] = {-0.3841f, 0.6320f, 0.4254f, -0.7384f, -0.9644f, 1.0131f, -0.6549f, -1.4279f,
                                -0.2951f, -1.3350f, -0.7694f, 0.5600f, 1.0842f, -0.9580f, 0.3623f, 0.2343f};
    ct_tensor *a = ct_from_array(m, CT_SHAPE(4, 4), CT_F32);
    ct_print(ct_mean_dim(a, CT_DIMS(1), false, CT_DEFAULT));
    ct_print(ct_mean_dim(a, CT_DIMS(1), true, CT_DEFAULT));
}

/* What fn prints on stdout, through a temporary file. */
static char *capture_stdout(void (*fn)(void))
{
    static char buf[8192];
    FILE *tmp = tmpfile();
    int saved = dup(fileno(stdout));
    fflush(stdout);
    dup2(fileno(tmp), fileno(stdout));
    fn();
    fflush(stdout);
    dup2(saved, fileno(stdout));
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, sizeof buf - 1, tmp);
    buf[n] = 0;
    fclose(tmp);
    while (ct_test_on_device() && strstr(buf, "device='")) ct_test_drop_device_suffix(buf); /* the CPU's text */
    return buf;
}

static void test_seed_outputs(void)
{
    CHECK_STR(capture_stdout(seed_statistics),
              "tensor(45.)\ntensor(5.)\ntensor(9.)\ntensor(1.)\ntensor(362880.)\ntensor(2.7386)\ntensor(7.5000)\n"
              "tensor(5.)\ntensor([[1., 2., 3.],\n        [4., 5., 6.],\n        [7., 8., 9.]])\n"
              "torch.return_types.max(\nvalues=tensor([7., 8., 9.]),\nindices=tensor([2, 2, 2]))\n"
              "torch.return_types.max(\nvalues=tensor([3., 6., 9.]),\nindices=tensor([2, 2, 2]))\n");
    CHECK_STR(capture_stdout(seed_scans),
              "tensor([ 1,  3,  6, 10, 15, 21, 28, 36, 45])\n"
              "tensor([     1,      2,      6,     24,    120,    720,   5040,  40320, 362880])\n"
              "tensor([1, 2, 3, 4, 5, 6, 7, 8, 9])\ntensor([0, 1, 2, 3, 4, 5, 6, 7, 8])\n"
              "torch.return_types.cummin(\nvalues=tensor([1, 1, 1, 1, 1, 1, 1, 1, 1]),\n"
              "indices=tensor([0, 0, 0, 0, 0, 0, 0, 0, 0]))\n");
    CHECK_STR(capture_stdout(seed_mean),
              "tensor([-0.0163, -0.5085, -0.4599,  0.1807])\n"
              "tensor([[-0.0163],\n        [-0.5085],\n        [-0.4599],\n        [ 0.1807]])\n");
}

/* ---------------------------------------------------------------- contracts */

static void test_null_arguments_and_outputs(void)
{
    ct_tensor *x = ct_arange(ct_int(0), ct_int(6), ct_int(1), CT_F32), *v = x, *i = x;
    CHECK_ERR(ct_sum(NULL), CT_ERR_TYPE, "sum(): argument 'input' (position 1) must be Tensor, not NULL");
    CHECK_FAILS(ct_max_dim(NULL, 0, false, &v, &i), CT_ERR_TYPE, "max_dim(): argument 'input'");
    CHECK(v == NULL && i == NULL); /* outputs are cleared on failure */
    CHECK_FAILS(ct_cumsum_(NULL, 0, CT_DEFAULT), CT_ERR_TYPE, "cumsum_(): argument 'self'");
    /* a chain is checked once at its end: the first error is kept */
    CHECK_ERR(ct_softmax(ct_sum_dim(x, CT_DIMS(3), false, CT_DEFAULT), 0, CT_DEFAULT), CT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-1, 0], but got 3)");
    /* either output may be left out */
    CHECK_OK(ct_max_dim(x, 0, false, NULL, &i));
    CHECK_VALUES(i, CT_SHAPE0, 5);
    CHECK_OK(ct_mode(x, 0, true, &v, NULL));
    CHECK_VALUES(v, CT_SHAPE(1), 0);
    CHECK_OK(ct_var_mean(x, CT_SHAPE0, 1, false, NULL, &v));
    CHECK_VALUES(v, CT_SHAPE0, 2.5);
    CHECK_OK(ct_cummax(x, 0, NULL, &i));
    CHECK_VALUES(i, CT_SHAPE(6), 0, 1, 2, 3, 4, 5);
    ct_print_return_types("max", x, NULL);
    CHECK_STR(ct_last_error(), "print_return_types(): argument 'indices' (position 3) must be Tensor, not NULL");
    ct_clear_error();
}

static void test_inplace_scans(void)
{
    ct_tensor *x = ct_arange(ct_int(1), ct_int(7), ct_int(1), CT_I8);
    CHECK_OK(ct_cumprod_(x, 0, CT_DEFAULT)); /* int8 wraps: 720 is -48 */
    CHECK_VALUES(x, CT_SHAPE(6), 1, 2, 6, 24, 120, -48);
    ct_tensor *y = ct_view(ct_arange(ct_int(0), ct_int(6), ct_int(1), CT_F32), CT_SHAPE(2, 3));
    ct_tensor *view = ct_select(y, 0, 1);
    CHECK_OK(ct_cumsum_(view, 0, CT_DEFAULT)); /* through a view: the base sees it */
    CHECK_VALUES(y, CT_SHAPE(2, 3), 0, 1, 2, 3, 7, 12);
    CHECK_FAILS(ct_cumsum_(ct_expand(ct_ones(CT_SHAPE(1), CT_F32), CT_SHAPE(3)), 0, CT_DEFAULT), CT_ERR_RUNTIME,
                "more than one element of the written-to tensor refers to a single memory location");
    CHECK_FAILS(ct_cumsum_(y, 1, CT_F64), CT_ERR_RUNTIME,
                "Bad in-place call: input tensor dtype float and output tensor dtype double should match");
    CHECK_VALUES(y, CT_SHAPE(2, 3), 0, 1, 2, 3, 7, 12); /* unchanged by the failures */
}

/* ---------------------------------------------------------------- normalize */

/* torch.nn.functional.normalize against PyTorch 1.13's values (printed with
 * repr(float(v)), which gives back the float32 values exactly). */
static void test_normalize(void)
{
    ct_tensor *x = ct_from_array((float[]){1.5f, -2, 0.25f, 3, 0, 0, 0, 0, -7, 1, 2.5f, -0.5f}, CT_SHAPE(3, 4), CT_F32);
    CHECK_VALUES(ct_normalize(ct_from_array((float[]){6, 8}, CT_SHAPE(1, 2), CT_F32), 2, 1, 1e-12), CT_SHAPE(1, 2),
                 0.6000000238418579, 0.800000011920929); /* seed 002: normalize(torch.tensor([[6., 8.]])) */
    CHECK_VALUES(ct_normalize(x, 2, 1, 1e-12), CT_SHAPE(3, 4), 0.3833259344100952, -0.511101245880127,
                 0.06388765573501587, 0.7666518688201904, 0, 0, 0, 0, -0.9312661290168762, 0.1330380141735077,
                 0.3325950503349304, -0.06651900708675385);
    CHECK_VALUES(ct_normalize(x, 1, 0, 1e-12), CT_SHAPE(3, 4), 0.1764705926179886, -0.6666666865348816,
                 0.09090909361839294, 0.8571428656578064, 0, 0, 0, 0, -0.8235294222831726, 0.3333333432674408,
                 0.9090909361839294, -0.1428571492433548);
    CHECK_VALUES(ct_normalize(x, INFINITY, -1, 1e-12), CT_SHAPE(3, 4), 0.5, -0.6666666865348816, 0.0833333358168602,
                 1, 0, 0, 0, 0, -1, 0.1428571492433548, 0.3571428656578064, -0.0714285746216774);
    CHECK_VALUES(ct_normalize(x, 3, 1, 1e-12), CT_SHAPE(3, 4), 0.44464781880378723, -0.5928637981414795,
                 0.07410797476768494, 0.8892956376075745, 0, 0, 0, 0, -0.9842326641082764, 0.1406046599149704,
                 0.3515116572380066, -0.0703023299574852);
    /* eps larger than some norms: those columns are divided by eps */
    CHECK_VALUES(ct_normalize(x, 2, 0, 5), CT_SHAPE(3, 4), 0.2095290869474411, -0.4000000059604645,
                 0.05000000074505806, 0.6000000238418579, 0, 0, 0, 0, -0.9778023958206177, 0.20000000298023224, 0.5,
                 -0.10000000149011612);
    /* a transposed input gives a transposed result, as PyTorch's */
    ct_tensor *t = ct_normalize(ct_t(x), 2, 1, 1e-12);
    CHECK_VALUES(t, CT_SHAPE(4, 3), 0.2095290869474411, 0, -0.9778023958206177, -0.8944271802902222, 0,
                 0.4472135901451111, 0.09950372576713562, 0, 0.9950371980667114, 0.9863938689231873, 0,
                 -0.16439898312091827);
    CHECK(t && ct_stride(t, 0) == 1 && ct_stride(t, 1) == 4);
    CHECK_VALUES(ct_normalize(ct_to(x, CT_F64), 2, 1, 1e-12), CT_SHAPE(3, 4), 0.3833259389999639,
                 -0.5111012519999519, 0.06388765649999399, 0.7666518779999278, 0, 0, 0, 0, -0.9312661473328351,
                 0.13303802104754786, 0.3325950526188697, -0.06651901052377393);
    CHECK_VALUES(ct_normalize(ct_to(x, CT_BF16), 2, 1, 1e-12), CT_SHAPE(3, 4), 0.384765625, -0.51171875,
                 0.06396484375, 0.76953125, 0, 0, 0, 0, -0.9296875, 0.1328125, 0.33203125, -0.06640625);
    /* float16: PyTorch 1.13 has no CPU kernel; these are its float16 norm,
     * the clamp in float32 rounded to float16 (1e-12 becomes 0, so the row
     * of zeros gives 0/0) and its float16 division, composed in Python. */
    CHECK_VALUES(ct_normalize(ct_to(x, CT_F16), 2, 1, 1e-12), CT_SHAPE(3, 4), 0.38330078125, -0.5107421875,
                 0.0638427734375, 0.7666015625, NAN, NAN, NAN, NAN, -0.93115234375, 0.133056640625, 0.33251953125,
                 -0.0665283203125);
    CHECK_VALUES(ct_normalize(ct_scalar_tensor(ct_float(-3), CT_DEFAULT), 2, 0, 1e-12), CT_SHAPE0, -1);
    ct_tensor *empty = ct_normalize(ct_zeros(CT_SHAPE(0, 3), CT_DEFAULT), 2, 1, 1e-12);
    CHECK(empty && ct_size(empty, 0) == 0 && ct_size(empty, 1) == 3 && ct_dtype_of(empty) == CT_F32);
    CHECK_ERR(ct_normalize(ct_from_array((int64_t[]){6, 8}, CT_SHAPE(1, 2), CT_I64), 2, 1, 1e-12), CT_ERR_RUNTIME,
              "norm(): input dtype should be either floating point or complex. Got Long instead.");
    CHECK_ERR(ct_normalize(x, 2, 2, 1e-12), CT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    CHECK_ERR(ct_normalize(ct_scalar_tensor(ct_float(3), CT_DEFAULT), 2, 1, 1e-12), CT_ERR_INDEX,
              "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    CHECK_ERR(ct_normalize(NULL, 2, 1, 1e-12), CT_ERR_TYPE,
              "normalize(): argument 'input' (position 1) must be Tensor, not NULL");
}

/* amax and amin of a contiguous floating row run through integer keys
 * (cpu/reduce.c), which fall back to the lane loop for NaN and zero
 * extremes. On rows of infinities, subnormals, signed zeros and NaN they
 * agree with a plain loop: NaN when there is one, zero for a zero extreme,
 * otherwise the very bits; softmax's maximum takes the same path. */
static void test_extremes_of_special_rows(void)
{
    static const double pool[] = {0.0, -0.0, 1.5, -1.5, 3e-39, -3e-39, 1e-7, INFINITY, -INFINITY, 65504.0, -2.0, NAN};
    static const ct_dtype dts[] = {CT_F32, CT_F64, CT_F16, CT_BF16};
    static const int64_t lens[] = {1, 7, 31, 32, 33, 47, 100};
    uint32_t state = 12345;
    for (int d = 0; d < 4; d++)
        for (int l = 0; l < 7; l++)
            for (int trial = 0; trial < 24; trial++) {
                int64_t n = lens[l];
                int kinds = trial % 3 == 0 ? 12 : trial % 3 == 1 ? 11 : 2; /* with NaN, without, zeros only */
                double v[100], ref_max = -INFINITY, ref_min = INFINITY;
                bool nan = false;
                for (int64_t i = 0; i < n; i++) {
                    state = state * 1664525u + 1013904223u;
                    v[i] = pool[(state >> 8) % (uint32_t)kinds];
                }
                ct_tensor *x = ct_to(ct_from_array(v, CT_SHAPE(n), CT_F64), dts[d]);
                const double *xs = (const double *)ct_data_ptr(ct_cpu(ct_to(x, CT_F64))); /* as the dtype holds them */
                for (int64_t i = 0; i < n; i++) {
                    nan |= xs[i] != xs[i];
                    ref_max = xs[i] > ref_max ? xs[i] : ref_max;
                    ref_min = xs[i] < ref_min ? xs[i] : ref_min;
                }
                double got[3] = {ct_item(ct_amax(x, CT_SHAPE0, false)), ct_item(ct_amin(x, CT_SHAPE0, false)), 0};
                if (dts[d] != CT_F16) got[2] = ct_item(ct_amax(ct_softmax(x, 0, CT_DEFAULT), CT_SHAPE0, false));
                double want[2] = {ref_max, ref_min};
                for (int k = 0; k < 2; k++) {
                    if (nan) CHECK(got[k] != got[k]);
                    else if (want[k] == 0) CHECK(got[k] == 0);
                    else CHECK(memcmp(&got[k], &want[k], sizeof(double)) == 0);
                }
                /* the largest element's exp(x - max) is exp(0) = 1 of a finite row */
                if (!nan && isfinite(ref_max) && isfinite(ref_min) && dts[d] != CT_F16) CHECK(got[2] > 0 && got[2] <= 1);
            }
}

#ifdef _OPENMP
/* Threads split work only where PyTorch's serial order is kept: the bits
 * are the same on one thread and on many. */
static void test_same_bits_on_any_thread_count(void)
{
    int saved = omp_get_max_threads();
    ct_tensor *x = ct_view(generated("f32:v:420000"), CT_SHAPE(600, 700)), *r1[6], *r4[6];
    for (int round = 0; round < 2; round++) {
        ct_tensor **r = round ? r4 : r1;
        omp_set_num_threads(round ? 4 : 1);
        r[0] = ct_sum(x);
        r[1] = ct_sum_dim(x, CT_DIMS(0), false, CT_DEFAULT);
        r[2] = ct_sum_dim(ct_t(x), CT_DIMS(1), false, CT_DEFAULT);
        r[3] = ct_amax(x, CT_SHAPE0, false);
        r[4] = ct_var_dim(x, CT_DIMS(1), 1, false);
        r[5] = ct_softmax(x, 0, CT_DEFAULT);
    }
    omp_set_num_threads(saved);
    for (int k = 0; k < 6; k++) CHECK_TENSOR(r4[k], r1[k], 0);
}
#endif

int main(void)
{
    RUN(test_golden_cases);
    RUN(test_seed_outputs);
    RUN(test_null_arguments_and_outputs);
    RUN(test_inplace_scans);
    RUN(test_normalize);
    RUN(test_extremes_of_special_rows);
#ifdef _OPENMP
    RUN(test_same_bits_on_any_thread_count);
#else
    SKIP(test_same_bits_on_any_thread_count, "built without OpenMP");
#endif
    return ct_test_report();
}
