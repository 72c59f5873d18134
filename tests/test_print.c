/* Printing: repr(t) byte for byte as PyTorch 1.13 writes it. Most cases come
 * from tests/golden/gen_print.py (print.ctg holds the tensors, print.txt the
 * options and texts); the rest check the C contract around them. */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno: capturing stdout */
#include "harness.h"

#include <unistd.h>

#ifndef CT_GOLDEN_DIR
#define CT_GOLDEN_DIR "tests/golden"
#endif

static const ct_print_opts defaults = {4, 1000, 3, 80, 0};

/* ---------------------------------------------------------------- golden cases */

typedef struct gcase {
    char name[128], default_dtype[16], view[16];
    ct_print_opts opts;
    int grad;
    size_t nbytes;
} gcase;

/* x as gen_print.py makes it from the stored tensor t (see its docstring). */
static ct_tensor *apply_view(const ct_tensor *t, const char *view)
{
    ct_shape s = ct_shape_of(t);
    if (!strcmp(view, "t")) return ct_transpose(t, 0, 1);
    if (!strcmp(view, "step2")) return ct_slice(t, ct_dim(t) - 1, 0, CT_END, 2);
    if (!strcmp(view, "offset")) return ct_slice(t, 0, 1, CT_END, 1);
    if (!strcmp(view, "expand")) {
        s.size[0] = 3;
        return ct_expand(t, s);
    }
    if (!strcmp(view, "huge")) {
        s.size[0] = s.size[1] = 100000;
        return ct_expand(t, s);
    }
    return ct_detach(t);
}

/* repr of the case's tensor under its options, into a new buffer. */
static char *repr_of(const gcase *c, int *len)
{
    const ct_tensor *t = golden("print", c->name);
    if (!t) return NULL;
    ct_tensor *x = apply_view(t, c->view);
    if (c->grad) {
        x = ct_detach(x);
        CHECK_OK(ct_requires_grad_(x, true));
    }
    ct_set_printoptions(c->opts);
    CHECK_OK(ct_set_default_dtype(strcmp(c->default_dtype, "float64") ? CT_F32 : CT_F64));
    size_t room = c->nbytes + 1 + (ct_test_on_device() ? 128 : 0); /* (the device suffix and its wraps) */
    char *text = (char *)malloc(room);
    *len = ct_to_string(x, text, room);
    if (ct_test_on_device()) { /* the CPU's text, as CHECK_REPR compares it */
        ct_test_drop_device_suffix(text);
        *len = (int)strlen(text);
    }
    ct_set_printoptions(defaults);
    CHECK_OK(ct_set_default_dtype(CT_F32));
    return text;
}

static int read_case(FILE *f, gcase *c, char **expected)
{
    long long threshold;
    memset(c, 0, sizeof *c);
    if (fscanf(f, "%127s %d %lld %d %d %d %15s %d %15s %zu", c->name, &c->opts.precision, &threshold,
               &c->opts.edgeitems, &c->opts.linewidth, &c->opts.sci_mode, c->default_dtype, &c->grad, c->view,
               &c->nbytes) != 10 ||
        fgetc(f) != '\n')
        return 0;
    c->opts.threshold = threshold;
    *expected = (char *)malloc(c->nbytes + 1);
    if (fread(*expected, 1, c->nbytes, f) != c->nbytes || fgetc(f) != '\n') {
        free(*expected);
        return 0;
    }
    (*expected)[c->nbytes] = 0;
    return 1;
}

/* Every case in print.txt whose name starts with "<group>/". */
static void check_group(const char *group)
{
    FILE *f = fopen(CT_GOLDEN_DIR "/print.txt", "rb");
    gcase c;
    char *expected;
    int count = 0;
    if (!f) {
        ct_test_fail(__FILE__, __LINE__, "cannot open %s/print.txt", CT_GOLDEN_DIR);
        return;
    }
    while (read_case(f, &c, &expected)) {
        size_t glen = strlen(group);
        if (!strncmp(c.name, group, glen) && c.name[glen] == '/') {
            ct_scope s = ct_scope_begin();
            int len = 0;
            char *got = repr_of(&c, &len);
            if (got && (strcmp(got, expected) || len != (int)c.nbytes))
                ct_test_fail(__FILE__, __LINE__, "%s: repr ==\n%s\n(length %d) expected\n%s\n(length %d)", c.name,
                             got, len, expected, (int)c.nbytes);
            free(got);
            ct_scope_end(s);
            count++;
        }
        free(expected);
    }
    fclose(f);
    CHECK(count > 0);
}

static void test_seed_outputs(void) { check_group("seed"); }
static void test_float_formats(void) { check_group("float"); }
static void test_sci_mode(void) { check_group("sci"); }
static void test_half_and_bfloat16(void) { check_group("half"); }
static void test_integral_and_bool(void) { check_group("int"); }
static void test_empty(void) { check_group("empty"); }
static void test_linewidth(void) { check_group("wrap"); }
static void test_summarize(void) { check_group("summary"); }
static void test_suffixes(void) { check_group("suffix"); }
static void test_strided(void) { check_group("view"); }

/* ---------------------------------------------------------------- seeds written out */

static void test_seed_texts(void)
{
    CHECK_REPR(ct_from_array((float[]){1, 2, 3}, CT_SHAPE(3), CT_F32), "tensor([1., 2., 3.])");
    CHECK_REPR(ct_arange(ct_int(1), ct_int(10), ct_int(2), CT_DEFAULT), "tensor([1, 3, 5, 7, 9])");
    CHECK_REPR(ct_linspace(0.0, 2 * 3.14, 10, CT_F32),
               "tensor([0.0000, 0.6978, 1.3956, 2.0933, 2.7911, 3.4889, 4.1867, 4.8844, 5.5822,\n"
               "        6.2800])");
    CHECK_REPR(ct_from_array((int32_t[]){4, 7, 0, 1, 3, 6, 4, 8, 4, 6}, CT_SHAPE(2, 5), CT_I32),
               "tensor([[4, 7, 0, 1, 3],\n"
               "        [6, 4, 8, 4, 6]], dtype=torch.int32)");
    CHECK_REPR(ct_scalar_tensor(ct_int(4), CT_I32), "tensor(4, dtype=torch.int32)");
    CHECK_REPR(ct_from_array((int32_t[]){95, 18, 93, 70, 65, 51, 74, 10, 83, 60, 47, 51}, CT_SHAPE(2, 2, 3), CT_I32),
               "tensor([[[95, 18, 93],\n"
               "         [70, 65, 51]],\n"
               "\n"
               "        [[74, 10, 83],\n"
               "         [60, 47, 51]]], dtype=torch.int32)");
    CHECK_REPR(ct_from_array((float[]){0.9f, -0.8f, 1, -20, 0.7f}, CT_SHAPE(5), CT_F32),
               "tensor([  0.9000,  -0.8000,   1.0000, -20.0000,   0.7000])");
    CHECK_REPR(ct_scalar_tensor(ct_float(362880), CT_DEFAULT), "tensor(362880.)");
    CHECK_REPR(ct_from_array((int64_t[]){1, 2, 6, 24, 120, 720, 5040, 40320, 362880}, CT_SHAPE(9), CT_I64),
               "tensor([     1,      2,      6,     24,    120,    720,   5040,  40320, 362880])");
    ct_tensor *x = ct_from_array((float[]){1, 2, 0, 0}, CT_SHAPE(2, 2), CT_F32);
    CHECK_OK(ct_requires_grad_(x, true));
    CHECK_REPR(x, "tensor([[1., 2.],\n        [0., 0.]], requires_grad=True)");
}

/* ---------------------------------------------------------------- options */

static void test_printoptions(void)
{
    ct_tensor *x = ct_from_array((double[]){1.0 / 3, 2.5, 1e-5}, CT_SHAPE(3), CT_F64);
    ct_print_opts o = ct_print_opts_init();
    CHECK(o.precision == 4 && o.threshold == 1000 && o.edgeitems == 3 && o.linewidth == 80 && o.sci_mode == 0);
    o.precision = 2;
    o.sci_mode = -1;
    CHECK_OK(ct_set_printoptions(o));
    CHECK(ct_get_printoptions().precision == 2);
    CHECK_REPR(x, "tensor([    0.33,     2.50,     0.00], dtype=torch.float64)");
    o = ct_print_opts_init();
    o.threshold = 2;
    o.edgeitems = 1;
    CHECK_OK(ct_set_printoptions(o));
    CHECK_REPR(x, "tensor([3.3333e-01,  ..., 1.0000e-05], dtype=torch.float64)");
    o = ct_print_opts_init();
    o.precision = 0; /* a real value, as in PyTorch */
    o.sci_mode = -1;
    CHECK_OK(ct_set_printoptions(o));
    CHECK_REPR(x, "tensor([    0,     2,     0], dtype=torch.float64)");
    o.precision = -3;
    CHECK_FAILS(ct_set_printoptions(o), CT_ERR_VALUE, "precision and edgeitems must be non-negative");
    CHECK(ct_get_printoptions().precision == 0); /* unchanged */
    CHECK_OK(ct_set_printoptions(defaults));
}

/* ---------------------------------------------------------------- the C contract */

static void test_snprintf_contract(void)
{
    ct_tensor *x = ct_from_array((int32_t[]){1, 2}, CT_SHAPE(2), CT_I32);
    const char *full = "tensor([1, 2], dtype=torch.int32)";
    int n = (int)strlen(full);
    char buf[64];
    CHECK_INT(ct_to_string(x, NULL, 0), n);
    memset(buf, 'x', sizeof buf);
    CHECK_INT(ct_to_string(x, buf, 0), n);
    CHECK(buf[0] == 'x');
    CHECK_INT(ct_to_string(x, buf, 1), n);
    CHECK_STR(buf, "");
    CHECK_INT(ct_to_string(x, buf, 8), n);
    CHECK_STR(buf, "tensor(");
    CHECK_INT(ct_to_string(x, buf, (size_t)n), n);
    CHECK(!strncmp(buf, full, (size_t)n - 1) && buf[n - 1] == 0);
    memset(buf, 'x', sizeof buf);
    CHECK_INT(ct_to_string(x, buf, (size_t)n + 1), n);
    CHECK_STR(buf, full);
    CHECK(buf[n + 1] == 'x');
    /* truncated inside a formatted number and inside padding */
    ct_tensor *y = ct_from_array((float[]){0.5f, -123.25f}, CT_SHAPE(2), CT_F32);
    CHECK_INT(ct_to_string(y, buf, 11), 30); /* tensor([   0.5000, -123.2500]) */
    CHECK_STR(buf, "tensor([  ");
    CHECK_INT(ct_to_string(y, buf, 14), 30);
    CHECK_STR(buf, "tensor([   0.");
}

static void test_null_tensor(void)
{
    char buf[16] = "unchanged";
    CHECK(ct_to_string(NULL, buf, sizeof buf) < 0);
    CHECK_STR(buf, "");
    CHECK_STR(ct_last_error(), "to_string(): argument 'self' (position 1) must be Tensor, not NULL");
    ct_clear_error();
    /* a failed call earlier in a chain keeps its own error */
    CHECK_ERR(ct_view(ct_zeros(CT_SHAPE(6), CT_F32), CT_SHAPE(4)), CT_ERR_RUNTIME, "invalid for input of size 6");
    ct_view(ct_zeros(CT_SHAPE(6), CT_F32), CT_SHAPE(4));
    ct_print(NULL);
    CHECK_STR(ct_last_error(), "shape '[4]' is invalid for input of size 6");
    ct_clear_error();
    ct_print_shape(NULL);
    CHECK_STR(ct_last_error(), "print_shape(): argument 'self' (position 1) must be Tensor, not NULL");
    ct_clear_error();
}

/* What fn writes on stdout, through a temporary file. */
static char *capture_stdout(void (*fn)(const ct_tensor *), const ct_tensor *t)
{
    static char out[1 << 16];
    FILE *tmp = tmpfile();
    int saved = dup(fileno(stdout));
    fflush(stdout);
    dup2(fileno(tmp), fileno(stdout));
    fn(t);
    fflush(stdout);
    dup2(saved, fileno(stdout));
    close(saved);
    rewind(tmp);
    size_t n = fread(out, 1, sizeof out - 1, tmp);
    out[n] = 0;
    fclose(tmp);
    return out;
}

static void test_print_and_shape(void)
{
    CHECK_STR(capture_stdout(ct_print, ct_from_array((float[]){1, 2}, CT_SHAPE(1, 2), CT_F32)),
              "tensor([[1., 2.]])\n");
    CHECK_STR(capture_stdout(ct_print_shape, ct_zeros(CT_SHAPE(2, 3), CT_F32)), "torch.Size([2, 3])\n");
    CHECK_STR(capture_stdout(ct_print_shape, ct_scalar_tensor(ct_int(1), CT_DEFAULT)), "torch.Size([])\n");
    CHECK_STR(capture_stdout(ct_print_shape, ct_zeros(CT_SHAPE(0), CT_F32)), "torch.Size([0])\n");
    /* longer than ct_print's first buffer */
    ct_tensor *big = ct_arange(ct_int(0), ct_int(1000), ct_int(1), CT_DEFAULT);
    char expected[8192];
    int n = ct_to_string(big, expected, sizeof expected - 1);
    CHECK(n > 1024 && n < (int)sizeof expected - 1);
    strcat(expected, "\n");
    CHECK_STR(capture_stdout(ct_print, big), expected);
}

int main(void)
{
    RUN(test_seed_outputs);
    RUN(test_float_formats);
    RUN(test_sci_mode);
    RUN(test_half_and_bfloat16);
    RUN(test_integral_and_bool);
    RUN(test_empty);
    RUN(test_linewidth);
    RUN(test_summarize);
    RUN(test_suffixes);
    RUN(test_strided);
    RUN(test_seed_texts);
    RUN(test_printoptions);
    /* the CPU's texts byte for byte; test_device.c prints device tensors */
    if (ct_test_on_device()) SKIP(test_snprintf_contract, "a CPU repr's length");
    else RUN(test_snprintf_contract);
    RUN(test_null_tensor);
    if (ct_test_on_device()) SKIP(test_print_and_shape, "a CPU repr on stdout");
    else RUN(test_print_and_shape);
    return ct_test_report();
}
