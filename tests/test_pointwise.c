/* Pointwise ops against PyTorch: every case of tests/golden/pointwise.txt, the
 * in-place forms on the same cases, and a check that every op of the op table
 * is covered here. */
#include "harness.h"

typedef struct op_entry {
    const char *name;
    ct_tensor *(*unary)(const ct_tensor *);
    ct_result (*unary_)(ct_tensor *);
    ct_tensor *(*binary)(const ct_tensor *, const ct_tensor *);
    ct_result (*binary_)(ct_tensor *, const ct_tensor *);
    ct_tensor *(*scalar)(const ct_tensor *, ct_scalar);
    int ulps; /* 0: bit-exact; else the most units in the last place PyTorch's vectorised math may differ by */
} op_entry;

static const op_entry ops[] = {
    {"neg", ct_neg, ct_neg_, NULL, NULL, NULL, 0},
    {"abs", ct_abs, ct_abs_, NULL, NULL, NULL, 0},
    {"floor", ct_floor, ct_floor_, NULL, NULL, NULL, 0},
    {"exp", ct_exp, ct_exp_, NULL, NULL, NULL, 2},
    {"log", ct_log, ct_log_, NULL, NULL, NULL, 2},
    {"sqrt", ct_sqrt, ct_sqrt_, NULL, NULL, NULL, 0},
    {"tanh", ct_tanh, ct_tanh_, NULL, NULL, NULL, 2},
    {"sigmoid", ct_sigmoid, ct_sigmoid_, NULL, NULL, NULL, 2},
    {"relu", ct_relu, ct_relu_, NULL, NULL, NULL, 0},
    {"isnan", ct_isnan, NULL, NULL, NULL, NULL, 0},
    {"logical_not", ct_logical_not, ct_logical_not_, NULL, NULL, NULL, 0},
    {"add", NULL, NULL, ct_add, ct_add_, ct_add_scalar, 0},
    {"sub", NULL, NULL, ct_sub, ct_sub_, ct_sub_scalar, 0},
    {"mul", NULL, NULL, ct_mul, ct_mul_, ct_mul_scalar, 0},
    {"div", NULL, NULL, ct_div, ct_div_, ct_div_scalar, 0},
    {"maximum", NULL, NULL, ct_maximum, NULL, NULL, 0},
    {"pow", NULL, NULL, ct_pow, ct_pow_, ct_pow_scalar, 2},
    {"eq", NULL, NULL, ct_eq, ct_eq_, ct_eq_scalar, 0},
    {"lt", NULL, NULL, ct_lt, ct_lt_, ct_lt_scalar, 0},
    {"logical_and", NULL, NULL, ct_logical_and, ct_logical_and_, NULL, 0},
};

static const op_entry *find_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(ops[i].name, name)) return &ops[i];
    return NULL;
}

static ct_scalar number(const char *code)
{
    if (code[0] == 'f') return ct_float(strtod(code + 2, NULL));
    if (code[0] == 'b') return ct_bool(code[2] == '1');
    return ct_int(strtoll(code + 2, NULL, 10));
}

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

/* The in-place form on a copy of the first operand gives the same values (in
 * its own dtype), or PyTorch's cast error when the result cannot go there. */
static void check_inplace(const op_entry *op, const char *kind, const ct_tensor *a, const ct_tensor *b,
                          const ct_tensor *expect, const char *what)
{
    if ((kind[0] == 't' && kind[1] != 't' && kind[1] != 's') ? !op->unary_ : !op->binary_) return;
    if (!strcmp(kind, "tTt") || ct_dim(a) < ct_dim(expect)) return; /* self must hold the broadcast shape */
    ct_tensor *self = ct_clone(a);
    ct_result r = op->unary_ ? op->unary_(self) : op->binary_(self, b);
    if (!ct_can_cast(ct_dtype_of(expect), ct_dtype_of(a))) {
        if (r == CT_OK || !strstr(ct_last_error(), "can't be cast to the desired output type"))
            ct_test_fail(__FILE__, __LINE__, "%s in place: expected the cast error, got %s", what, ct_last_error());
        ct_clear_error();
        return;
    }
    if (r != CT_OK) {
        ct_test_fail(__FILE__, __LINE__, "%s in place failed: %s", what, ct_last_error());
        return;
    }
    CHECK_TENSOR(self, ct_to(expect, ct_dtype_of(a)), op->ulps);
}

static void test_golden_cases(void)
{
    FILE *f = fopen("tests/golden/pointwise.txt", "r");
    char line[4096];
    int cases = 0;
    CHECK(f != NULL);
    while (f && fgets(line, sizeof line, f)) {
        char *fld[8], what[1024];
        line[strcspn(line, "\n")] = 0;
        int n = split(line, fld, 8);
        const op_entry *op = find_op(fld[0]);
        if (!op) {
            ct_test_fail(__FILE__, __LINE__, "unknown op %s", fld[0]);
            continue;
        }
        ct_scope s = ct_scope_begin();
        const char *kind = fld[1];
        int nin = strlen(kind) == 1 || !strcmp(kind, "tT") ? 1 : 2;
        const ct_tensor *a = golden("pointwise", fld[2]), *b = NULL;
        if (kind[1] == 'T' || !strcmp(kind, "tTt")) a = ct_t(a);
        ct_tensor *r;
        snprintf(what, sizeof what, "%.40s(%.200s%s%.200s) [%.8s]", fld[0], fld[2], nin > 1 ? ", " : "", nin > 1 ? fld[3] : "", kind);
        if (nin == 1) {
            r = op->unary(a);
        } else if (!strcmp(kind, "ts")) {
            r = op->scalar ? op->scalar(a, number(fld[3])) : NULL;
            if (!op->scalar) { /* PyTorch has no number form: nothing to call */
                ct_scope_end(s);
                continue;
            }
        } else {
            b = golden("pointwise", fld[3]);
            r = op->binary(a, b);
        }
        const char *res = fld[1 + nin + 1];
        if (!strncmp(res, "ERR ", 4)) {
            const char *msg = n > 2 + nin + 1 ? fld[2 + nin + 1] : "";
            if (r) ct_test_fail(__FILE__, __LINE__, "%s succeeded, expected %s", what, msg);
            else if (strcmp(ct_last_error(), msg))
                ct_test_fail(__FILE__, __LINE__, "%s: got \"%s\", expected \"%s\"", what, ct_last_error(), msg);
            ct_clear_error();
        } else if (!r) {
            ct_test_fail(__FILE__, __LINE__, "%s failed: %s", what, ct_last_error());
            ct_clear_error();
        } else {
            const ct_tensor *expect = golden("pointwise", res);
            ct_test_check_tensor(__FILE__, __LINE__, what, r, expect, op->ulps);
            if (strcmp(kind, "ts")) check_inplace(op, kind, a, b, expect, what);
        }
        ct_scope_end(s);
        cases++;
    }
    if (f) fclose(f);
    CHECK(cases > 1500);
}

static void test_output_layout_follows_inputs(void)
{
    /* TensorIterator lays a new output out like its first input */
    ct_tensor *a = ct_t(ct_zeros(CT_SHAPE(3, 4), CT_F32));
    ct_tensor *r = ct_add_scalar(a, ct_int(1));
    CHECK_INT(ct_stride(r, 0), 1);
    CHECK_INT(ct_stride(r, 1), 4);
    ct_tensor *r2 = ct_add(ct_zeros(CT_SHAPE(4, 3), CT_F32), a);
    CHECK(ct_is_contiguous(r2));
}

static void test_inplace_errors(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(3), CT_F32);
    CHECK_FAILS(ct_add_(x, ct_zeros(CT_SHAPE(2, 3), CT_F32)), CT_ERR_RUNTIME,
                "output with shape [3] doesn't match the broadcast shape [2, 3]");
    CHECK_FAILS(ct_add_scalar_(ct_zeros(CT_SHAPE(2), CT_I64), ct_float(1.5)), CT_ERR_RUNTIME,
                "result type Float can't be cast to the desired output type Long");
    CHECK_FAILS(ct_add_(ct_expand(x, CT_SHAPE(2, 3)), ct_ones(CT_SHAPE(2, 3), CT_F32)), CT_ERR_RUNTIME,
                "more than one element of the written-to tensor refers to a single memory location");
    CHECK_ERR(ct_add(x, NULL), CT_ERR_TYPE, "add(): argument 'other' (position 2) must be Tensor, not NULL");
}

int main(void)
{
    RUN(test_golden_cases);
    RUN(test_output_layout_follows_inputs);
    RUN(test_inplace_errors);
    return ct_test_report();
}
