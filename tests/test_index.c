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
    CHECK_ERR(ct_index(x, "[0, [1]]"), CT_ERR_VALUE, "malformed list");
    CHECK_ERR(ct_index(x, "[[0, 1], [2]]"), CT_ERR_VALUE, "malformed list");
    CHECK_ERR(ct_index(x, "abc"), CT_ERR_VALUE, "expected an index");
    CHECK_ERR(ct_index(x, NULL), CT_ERR_VALUE, "spec is NULL");
}

int main(void)
{
    RUN(test_golden_cases);
    RUN(test_basic_index_is_a_view);
    RUN(test_tensor_and_int_arguments);
    RUN(test_assignment_through_views);
    RUN(test_malformed_specs);
    return ct_test_report();
}
