/* Indexing: every case of tests/golden/index.txt (specs evaluated by PyTorch as
 * x[spec] and x[spec] = value) plus tensor arguments. */
#include "harness.h"

/* Split line at '|' into at most n fields (in place). */
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

/* The expected error "ERR <Type>|<message>" against what ctorch reported. */
static void check_error(const char *what, const char *type, const char *message)
{
    char expect[2048];
    size_t j = 0;
    for (const char *p = message; *p && j + 1 < sizeof expect; p++) { /* un-escape \n */
        if (p[0] == '\\' && p[1] == 'n') {
            expect[j++] = '\n';
            p++;
        } else {
            expect[j++] = *p;
        }
    }
    expect[j] = 0;
    if (strcmp(ct_result_str(ct_last_error_code()), type + 4) || strcmp(ct_last_error(), expect))
        ct_test_fail(__FILE__, __LINE__, "%s: got %s \"%s\", expected %s \"%s\"", what,
                     ct_result_str(ct_last_error_code()), ct_last_error(), type + 4, expect);
    ct_clear_error();
}

static void test_golden_cases(void)
{
    FILE *f = fopen("tests/golden/index.txt", "r");
    char line[4096];
    int cases = 0;
    CHECK(f != NULL);
    while (f && fgets(line, sizeof line, f)) {
        char *fld[6];
        line[strcspn(line, "\n")] = 0;
        int n = split(line, fld, 6);
        ct_scope s = ct_scope_begin();
        char what[512];
        if (!strcmp(fld[0], "get") && n >= 4) {
            snprintf(what, sizeof what, "%s[%s]", fld[1], fld[2]);
            ct_tensor *r = ct_index(golden("index", fld[1]), fld[2]);
            if (!strncmp(fld[3], "ERR ", 4)) {
                if (r) ct_test_fail(__FILE__, __LINE__, "%s succeeded, expected an error", what);
                else check_error(what, fld[3], n > 4 ? fld[4] : "");
            } else {
                if (!r) ct_test_fail(__FILE__, __LINE__, "%s failed: %s", what, ct_last_error());
                CHECK_TENSOR(r, golden("index", fld[3]), 0);
            }
        } else if (!strcmp(fld[0], "set") && n >= 5) {
            snprintf(what, sizeof what, "%s[%s] = %s", fld[1], fld[2], fld[3]);
            ct_tensor *x = ct_clone(golden("index", fld[1]));
            ct_result r = ct_index_put_(x, golden("index", fld[3]), fld[2]);
            if (!strncmp(fld[4], "ERR ", 4)) {
                if (r == CT_OK) ct_test_fail(__FILE__, __LINE__, "%s succeeded, expected an error", what);
                else check_error(what, fld[4], n > 5 ? fld[5] : "");
            } else {
                if (r != CT_OK) ct_test_fail(__FILE__, __LINE__, "%s failed: %s", what, ct_last_error());
                CHECK_TENSOR(x, golden("index", fld[4]), 0);
            }
        }
        ct_scope_end(s);
        cases++;
    }
    if (f) fclose(f);
    CHECK(cases > 90);
}

static void test_basic_index_is_a_view(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(3, 4), CT_F32);
    ct_tensor *v = ct_index(x, "1:3, ::2");
    CHECK(ct_storage_data_ptr(v) == ct_storage_data_ptr(x));
    CHECK_INT(ct_storage_offset(v), 4);
    CHECK_INT(ct_stride(v, 1), 2);
    /* advanced indexing copies */
    CHECK(ct_storage_data_ptr(ct_index(x, "[0, 1]")) != ct_storage_data_ptr(x));
}

static void test_tensor_and_int_arguments(void)
{
    ct_tensor *x = ct_arange(ct_int(0), ct_int(12), ct_int(1), CT_F32);
    ct_tensor *m = ct_view(x, CT_SHAPE(3, 4));
    ct_tensor *rows = ct_from_array((int64_t[]){2, 0}, CT_SHAPE(2), CT_I64);
    CHECK_VALUES(ct_index(m, "%t, %d", rows, 1), CT_SHAPE(2), 9, 1);
    CHECK_VALUES(ct_index(m, "%d:%d, -1", 1, 3), CT_SHAPE(2), 7, 11);
    ct_tensor *mask = ct_from_array((uint8_t[]){1, 0, 1}, CT_SHAPE(3), CT_BOOL);
    CHECK_VALUES(ct_index(m, "%t, 0", mask), CT_SHAPE(2), 0, 8);
    ct_tensor *zero_d = ct_scalar_tensor(ct_int(2), CT_I32); /* acts as an int: a view */
    CHECK(ct_storage_data_ptr(ct_index(m, "%t", zero_d)) == ct_storage_data_ptr(m));
    CHECK_ERR(ct_index(m, "%t", ct_zeros(CT_SHAPE(1), CT_F32)), CT_ERR_INDEX,
              "tensors used as indices must be long, byte or bool tensors");
    CHECK_ERR(ct_index(m, "%t", (ct_tensor *)NULL), CT_ERR_TYPE, "must be Tensor, not NULL");
}

static void test_assignment_through_views(void)
{
    /* seed 004: x.data[1,:] = torch.tensor([0.0,0.0]) */
    ct_tensor *x = ct_from_array((float[]){1, 2, 3, 4}, CT_SHAPE(2, 2), CT_F32);
    CHECK_OK(ct_requires_grad_(x, true));
    CHECK_OK(ct_index_put_(ct_detach(x), ct_zeros(CT_SHAPE(2), CT_F32), "1, :"));
    CHECK_VALUES(x, CT_SHAPE(2, 2), 1, 2, 0, 0);
}

static void test_malformed_specs(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(3, 4), CT_F32);
    CHECK_ERR(ct_index(x, ""), CT_ERR_VALUE, "empty index");
    CHECK_ERR(ct_index(x, "1 2"), CT_ERR_VALUE, "expected ','");
    CHECK_ERR(ct_index(x, "[0, [1]], 0"), CT_ERR_VALUE, "malformed list");
    CHECK_ERR(ct_index(x, "[[0], 1:2]"), CT_ERR_VALUE, "malformed list");
    CHECK_ERR(ct_index(x, "[[0, 1], [2]], 0"), CT_ERR_VALUE, "malformed list");
    CHECK_VALUES(ct_index(x, "[[0, 1], [2]]"), CT_SHAPE(2), 0, 0); /* x[[0, 1], [2]] */
    CHECK_ERR(ct_index(x, "abc"), CT_ERR_VALUE, "expected an index");
    CHECK_ERR(ct_index(x, NULL), CT_ERR_VALUE, "spec is NULL");
}

/* A list nested n deep around one 0, e.g. [[[0]]] for n = 3. */
static const char *nested_list(int n)
{
    static char spec[64];
    memset(spec, '[', (size_t)n);
    spec[n] = '0';
    memset(spec + n + 1, ']', (size_t)n);
    spec[2 * n + 1] = 0;
    return spec;
}

/* Lists read as PyTorch 1.13 reads them (treatSequenceAsTuple), and lists
 * that nest too deep for ctorch or deeper than their values. */
static void test_lists_as_pytorch_reads_them(void)
{
    ct_tensor *x = ct_view(ct_arange(ct_int(0), ct_int(12), ct_int(1), CT_F32), CT_SHAPE(3, 4));
    /* a lone list of fewer than 32 items, one a list, is a tuple whose items need not nest alike */
    ct_tensor *r = ct_index(x, "[[0], [[]]]");
    CHECK_T(r);
    if (r) CHECK(ct_dim(r) == 2 && ct_size(r, 0) == 1 && ct_size(r, 1) == 0);
    CHECK_VALUES(ct_index(x, "[0, [1]]"), CT_SHAPE(1), 1);
    CHECK_VALUES(ct_index(x, "[True, [2]]"), CT_SHAPE(1, 4), 8, 9, 10, 11);
    /* 32 items or more make one index tensor; a trailing comma makes a tuple of the list */
    char spec[512] = "[";
    for (int i = 0; i < 40; i++) strcat(spec, i ? ", [0, 2]" : "[0, 2]");
    strcat(spec, "]");
    r = ct_index(x, spec);
    CHECK_T(r);
    if (r) CHECK(ct_dim(r) == 3 && ct_size(r, 0) == 40 && ct_size(r, 1) == 2 && ct_size(r, 2) == 4);
    CHECK_VALUES(ct_index(x, "[[2], [0]],"), CT_SHAPE(2, 1, 4), 8, 9, 10, 11, 0, 1, 2, 3);
    /* ragged: a list deeper than the values before it */
    CHECK_ERR(ct_index(x, "[[[0], [[]]]]"), CT_ERR_VALUE, "malformed list");
    CHECK_ERR(ct_index(x, "[[[[]], [0]]]"), CT_ERR_VALUE, "malformed list");
    /* PyTorch gives 30 or 31 dims here; ctorch has 16 at most */
    int64_t ones[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    ct_tensor *x16 = ct_zeros(ct_shape_make(16, ones), CT_F32);
    for (int n = 16; n <= 18; n++)
        CHECK_ERR(ct_index(x16, nested_list(n)), CT_ERR_VALUE, "index: ctorch supports at most 16 dimensions");
    CHECK_ERR(ct_index(x16, "..., True"), CT_ERR_VALUE, "ctorch supports at most 16 dimensions");
    CHECK_ERR(ct_index(x16, "..., %t", ct_scalar_tensor(ct_int(1), CT_BOOL)), CT_ERR_VALUE,
              "ctorch supports at most 16 dimensions");
}

static void test_steps_past_the_end(void)
{
    ct_tensor *x = ct_view(ct_arange(ct_int(0), ct_int(12), ct_int(1), CT_F32), CT_SHAPE(3, 4));
    /* one element, and stride * step would overflow: the stride stays (PyTorch 1.13
     * wraps it and then refuses the negative stride) */
    ct_tensor *r = ct_index(x, "1::9223372036854775807");
    CHECK_VALUES(r, CT_SHAPE(1, 4), 4, 5, 6, 7);
    if (r) CHECK_INT(ct_stride(r, 0), 4);
    CHECK_VALUES(ct_index(x, "::9223372036854775807, -2::9223372036854775807"), CT_SHAPE(1, 1), 2);
    r = ct_index(x, "::5"); /* PyTorch's stride: 20 */
    if (r) CHECK_INT(ct_stride(r, 0), 20);
    CHECK_VALUES(ct_index(x, "0, 1::2"), CT_SHAPE(2), 1, 3);
}

/* index_put_(indices, value, accumulate=True): repeated positions add up
 * (the numbers, errors and gradients of PyTorch 1.13). */
static void test_index_put_accumulate(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(3, 4), CT_F32);
    ct_tensor *i = ct_from_array((int64_t[]){0, 2, 0}, CT_SHAPE(3), CT_I64);
    ct_tensor *j = ct_from_array((int64_t[]){1, 1, 1}, CT_SHAPE(3), CT_I64);
    CHECK_OK(ct_index_put_accumulate_(x, ct_from_array((float[]){1, 2, 3}, CT_SHAPE(3), CT_F32), "%t, %t", i, j));
    CHECK_VALUES(x, CT_SHAPE(3, 4), 0, 4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0);
    ct_tensor *y = ct_transpose(ct_zeros(CT_SHAPE(2, 3), CT_F32), 0, 1); /* not contiguous */
    ct_tensor *rows = ct_from_array((int64_t[]){0, 0, 2}, CT_SHAPE(3), CT_I64);
    CHECK_OK(ct_index_put_accumulate_(y, ct_from_array((float[]){1, 2}, CT_SHAPE(2), CT_F32), "%t", rows));
    CHECK_VALUES(y, CT_SHAPE(3, 2), 2, 4, 0, 0, 1, 2);
    ct_tensor *m = ct_zeros(CT_SHAPE(2, 2), CT_F32);
    ct_tensor *mask = ct_from_array((bool[]){true, false, true, true}, CT_SHAPE(2, 2), CT_BOOL);
    CHECK_OK(ct_index_put_accumulate_(m, ct_full(CT_SHAPE0, ct_int(5), CT_F32), "%t", mask));
    CHECK_VALUES(m, CT_SHAPE(2, 2), 5, 0, 5, 5);

    ct_tensor *z = ct_zeros(CT_SHAPE(3), CT_F32);
    CHECK_FAILS(ct_index_put_accumulate_(z, ct_ones(CT_SHAPE0, CT_F32), "%t", ct_full(CT_SHAPE(1), ct_int(3), CT_I64)),
                CT_ERR_INDEX, "index 3 is out of bounds for dimension 0 with size 3");
    CHECK_FAILS(ct_index_put_accumulate_(z, ct_ones(CT_SHAPE0, CT_F32), "%t", ct_full(CT_SHAPE(1), ct_int(-4), CT_I64)),
                CT_ERR_INDEX, "index -4 is out of bounds for dimension 0 with size 3");
    CHECK_FAILS(ct_index_put_accumulate_(ct_zeros(CT_SHAPE(3, 3), CT_F32), ct_ones(CT_SHAPE(2, 2), CT_F32), "%t",
                                         ct_from_array((int64_t[]){0, 1}, CT_SHAPE(2), CT_I64)),
                CT_ERR_RUNTIME, "shape mismatch: value tensor of shape [2, 2] cannot be broadcast to indexing result of "
                                "shape [2, 3]");
    CHECK_FAILS(ct_index_put_accumulate_(z, ct_ones(CT_SHAPE0, CT_F64), "%t", rows), CT_ERR_RUNTIME,
                "Index put requires the source and destination dtypes match, got Float for the destination and Double "
                "for the source.");
    CHECK_VALUES(z, CT_SHAPE(3), 0, 0, 0); /* untouched by the refusals */

    /* gradients: self's passes whole, value's is taken at the positions */
    ct_tensor *w = ct_zeros(CT_SHAPE(3), CT_F32), *v = ct_from_array((float[]){1, 2}, CT_SHAPE(2), CT_F32);
    CHECK_OK(ct_requires_grad_(w, true));
    CHECK_OK(ct_requires_grad_(v, true));
    ct_tensor *c = ct_clone(w);
    CHECK_OK(ct_index_put_accumulate_(c, v, "%t", ct_from_array((int64_t[]){1, 1}, CT_SHAPE(2), CT_I64)));
    CHECK_VALUES(c, CT_SHAPE(3), 0, 3, 0);
    CHECK_STR(ct_node_name(ct_grad_fn(c)), "IndexPutBackward0");
    CHECK_OK(ct_backward(ct_sum(c), NULL, (ct_backward_opts){0}));
    CHECK_VALUES(ct_grad(w), CT_SHAPE(3), 1, 1, 1);
    CHECK_VALUES(ct_grad(v), CT_SHAPE(2), 1, 1);
}

int main(void)
{
    RUN(test_golden_cases);
    RUN(test_index_put_accumulate);
    RUN(test_basic_index_is_a_view);
    RUN(test_tensor_and_int_arguments);
    RUN(test_assignment_through_views);
    RUN(test_malformed_specs);
    RUN(test_lists_as_pytorch_reads_them);
    RUN(test_steps_past_the_end);
    return ct_test_report();
}
