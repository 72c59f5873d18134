/* Bad input to every public function: NULL tensors, out-of-range dims and
 * indices, bad shapes and sizes, invalid dtypes, overflowing sizes. Each must
 * fail with PyTorch's words and leave the program running and its state
 * unchanged. test_every_function_is_exercised reads ctorch.h and fails when a
 * public function appears nowhere in this file. */
#include "harness.h"

#define NULL_T ((ct_tensor *)NULL)
/* expr, given a NULL tensor, fails with TypeError naming the argument */
#define CHECK_NULL(expr, text) CHECK_ERR(expr, CT_ERR_TYPE, text)
#define CHECK_NULL_R(expr, text) CHECK_FAILS(expr, CT_ERR_TYPE, text)

static void test_null_tensors(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(2, 3), CT_F32);
    float buf[8];
    CHECK_NULL(ct_view(NULL_T, CT_SHAPE(6)), "view(): argument 'self' (position 1) must be Tensor, not NULL");
    CHECK_NULL(ct_view_as(x, NULL_T), "view_as(): argument 'other' (position 2)");
    CHECK_NULL(ct_view_as(NULL_T, x), "argument 'self'");
    CHECK_NULL(ct_as_strided(NULL_T, CT_SHAPE(1), CT_SHAPE(1), 0), "as_strided(): argument 'self'");
    CHECK_NULL(ct_transpose(NULL_T, 0, 1), "transpose(): argument 'self'");
    CHECK_NULL(ct_t(NULL_T), "t(): argument 'self'");
    CHECK_NULL(ct_permute(NULL_T, CT_DIMS(0)), "permute(): argument 'self'");
    CHECK_NULL(ct_movedim(NULL_T, CT_DIMS(0), CT_DIMS(1)), "movedim(): argument 'self'");
    CHECK_NULL(ct_squeeze(NULL_T), "squeeze(): argument 'self'");
    CHECK_NULL(ct_squeeze_dim(NULL_T, 0), "squeeze_dim(): argument 'self'");
    CHECK_NULL(ct_unsqueeze(NULL_T, 0), "unsqueeze(): argument 'self'");
    CHECK_NULL(ct_expand(NULL_T, CT_SHAPE(2)), "expand(): argument 'self'");
    CHECK_NULL(ct_expand_as(x, NULL_T), "expand_as(): argument 'other'");
    CHECK_NULL(ct_broadcast_to(NULL_T, CT_SHAPE(2)), "argument 'self'");
    CHECK_NULL(ct_narrow(NULL_T, 0, 0, 1), "narrow(): argument 'self'");
    CHECK_NULL(ct_select(NULL_T, 0, 0), "select(): argument 'self'");
    CHECK_NULL(ct_slice(NULL_T, 0, 0, 1, 1), "slice(): argument 'self'");
    CHECK_NULL(ct_unfold(NULL_T, 0, 1, 1), "unfold(): argument 'self'");
    CHECK_NULL(ct_diagonal(NULL_T, 0, 0, 1), "diagonal(): argument 'self'");
    CHECK_NULL(ct_detach(NULL_T), "detach(): argument 'self'");
    CHECK_NULL(ct_flatten(NULL_T, 0, -1), "flatten(): argument 'self'");
    CHECK_NULL(ct_unflatten(NULL_T, 0, CT_SHAPE(2)), "unflatten(): argument 'self'");
    CHECK_NULL(ct_reshape(NULL_T, CT_SHAPE(6)), "reshape(): argument 'self'");
    CHECK_NULL(ct_reshape_as(x, NULL_T), "reshape_as(): argument 'other'");
    CHECK_NULL(ct_contiguous(NULL_T), "contiguous(): argument 'self'");
    CHECK_NULL(ct_clone(NULL_T), "clone(): argument 'self'");
    CHECK_NULL(ct_to(NULL_T, CT_F64), "to(): argument 'self'");
    CHECK_NULL(ct_index(NULL_T, "0"), "index(): argument 'self'");
    CHECK_NULL_R(ct_index_put_(NULL_T, x, "0"), "index_put_(): argument 'self'");
    CHECK_NULL_R(ct_index_put_(x, NULL_T, "0"), "index_put_(): argument 'value'");
    CHECK_NULL(ct_empty_like(NULL_T, CT_DEFAULT), "empty_like(): argument 'self'");
    CHECK_NULL(ct_zeros_like(NULL_T, CT_DEFAULT), "argument 'self'");
    CHECK_NULL(ct_ones_like(NULL_T, CT_DEFAULT), "argument 'self'");
    CHECK_NULL(ct_full_like(NULL_T, ct_int(1), CT_DEFAULT), "full_like(): argument 'self'");
    CHECK_NULL(ct_diag(NULL_T, 0), "diag(): argument 'self'");
    CHECK_NULL(ct_tril(NULL_T, 0), "tril(): argument 'self'");
    CHECK_NULL(ct_triu(NULL_T, 0), "triu(): argument 'self'");
    CHECK_NULL_R(ct_fill_(NULL_T, ct_int(0)), "fill_(): argument 'self'");
    CHECK_NULL_R(ct_zero_(NULL_T), "argument 'self'");
    CHECK_NULL_R(ct_copy_(NULL_T, x), "copy_(): argument 'self'");
    CHECK_NULL_R(ct_copy_(x, NULL_T), "copy_(): argument 'src'");
    CHECK_NULL_R(ct_requires_grad_(NULL_T, true), "requires_grad_(): argument 'self'");
    CHECK_NULL_R(ct_copy_to_array(NULL_T, buf, 8, CT_F32), "copy_to_array(): argument 'self'");
    CHECK(isnan(ct_item(NULL_T)));
    CHECK_ERR(0, CT_ERR_TYPE, "item(): argument 'self'");
    CHECK(ct_item_int(NULL_T) == 0);
    CHECK_ERR(0, CT_ERR_TYPE, "item_int(): argument 'self'");
    CHECK(ct_size(NULL_T, 0) == -1);
    CHECK_ERR(0, CT_ERR_TYPE, "size(): argument 'self'");
    CHECK(ct_stride(NULL_T, 0) == -1);
    CHECK_ERR(0, CT_ERR_TYPE, "stride(): argument 'self'");
    CHECK_NULL(ct_normal(NULL_T, x, NULL), "argument 'mean'");
    CHECK_NULL(ct_normal(x, NULL_T, NULL), "argument 'std'");
    CHECK_NULL_R(ct_uniform_(NULL_T, 0, 1, NULL), "uniform_(): argument 'self'");
    CHECK_NULL_R(ct_normal_(NULL_T, 0, 1, NULL), "normal_(): argument 'self'");
    CHECK_NULL_R(ct_random_(NULL_T, 0, 5, NULL), "random_(): argument 'self'");
    CHECK_NULL_R(ct_exponential_(NULL_T, 1, NULL), "exponential_(): argument 'self'");
    CHECK_NULL(ct_bernoulli(NULL_T, NULL), "bernoulli(): argument");
    CHECK_NULL_R(ct_bernoulli_(NULL_T, 0.5, NULL), "bernoulli_(): argument 'self'");
    CHECK_NULL(ct_multinomial(NULL_T, 1, false, NULL), "multinomial(): argument");
    CHECK(ct_to_string(NULL_T, (char *)buf, sizeof buf) < 0);
    CHECK_ERR(0, CT_ERR_TYPE, "to_string(): argument 'self'");
    ct_print(NULL_T);
    CHECK_ERR(0, CT_ERR_TYPE, "print(): argument 'self'");
    ct_print_shape(NULL_T);
    CHECK_ERR(0, CT_ERR_TYPE, "print_shape(): argument 'self'");
    CHECK(ct_result_type(NULL_T, x) == CT_DEFAULT);
    CHECK_ERR(0, CT_ERR_TYPE, "result_type(): argument 'tensor'");
    CHECK(ct_result_type_scalar(NULL_T, ct_int(1)) == CT_DEFAULT);
    CHECK_ERR(0, CT_ERR_TYPE, "result_type_scalar(): argument 'tensor'");
    /* getters answer neutrally for NULL (there is nothing to report) */
    CHECK(ct_dim(NULL_T) == 0 && ct_numel(NULL_T) == 0 && ct_dtype_of(NULL_T) == CT_DEFAULT);
    CHECK(ct_data_ptr(NULL_T) == NULL && ct_storage_data_ptr(NULL_T) == NULL && ct_storage_offset(NULL_T) == 0);
    CHECK(!ct_is_contiguous(NULL_T) && !ct_is_floating_point(NULL_T) && !ct_requires_grad(NULL_T));
    CHECK(ct_element_size(NULL_T) == 0 && ct_shape_of(NULL_T).ndim == 0 && ct_strides_of(NULL_T).ndim == 0);
    CHECK(ct_device_of(NULL_T).type == CT_DEVICE_CPU);
    ct_release(NULL_T);
    CHECK(ct_retain(NULL_T) == NULL && ct_keep(NULL_T) == NULL);
}

/* A NULL passed along a chain keeps the first failure's message. */
static void test_first_error_is_kept(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(2, 3), CT_F32);
    ct_tensor *r = ct_view(ct_transpose(ct_t(x), 0, 5), CT_SHAPE(-1));
    CHECK(r == NULL);
    CHECK_ERR(r, CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
    CHECK_ERR(ct_exp(ct_view(x, CT_SHAPE(4))), CT_ERR_RUNTIME, "shape '[4]' is invalid for input of size 6");
}

static int handler_calls;
static void count_errors(ct_result code, const char *message, void *user)
{
    (void)code, (void)message;
    *(int *)user += 1;
}

static void test_error_handler_and_strings(void)
{
    ct_set_error_handler(count_errors, &handler_calls);
    CHECK(ct_view(ct_zeros(CT_SHAPE(2), CT_F32), CT_SHAPE(3)) == NULL);
    CHECK(ct_view(NULL_T, CT_SHAPE(3)) == NULL); /* the pending error is kept: no second call */
    ct_set_error_handler(NULL, NULL);
    CHECK_INT(handler_calls, 1);
    CHECK_INT(ct_last_error_code(), CT_ERR_RUNTIME);
    ct_clear_error();
    CHECK_STR(ct_last_error(), "");
    CHECK_INT(ct_last_error_code(), CT_OK);
    CHECK_STR(ct_result_str(CT_ERR_INDEX), "IndexError");
    CHECK_STR(ct_result_str(CT_ERR_TYPE), "TypeError");
    CHECK_STR(ct_result_str(CT_ERR_VALUE), "ValueError");
    CHECK_STR(ct_result_str(CT_ERR_MEMORY), "MemoryError");
    CHECK_STR(ct_result_str(CT_OK), "OK");
}

static void test_dims_out_of_range(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(2, 3), CT_F32), *s = ct_zeros(CT_SHAPE0, CT_F32);
    const char *msg = "Dimension out of range (expected to be in range of [-2, 1], but got 5)";
    CHECK_ERR(ct_transpose(x, 0, 5), CT_ERR_INDEX, msg);
    CHECK_ERR(ct_squeeze_dim(x, 5), CT_ERR_INDEX, msg);
    CHECK_ERR(ct_narrow(x, 5, 0, 1), CT_ERR_INDEX, msg);
    CHECK_ERR(ct_select(x, 5, 0), CT_ERR_INDEX, msg);
    CHECK_ERR(ct_slice(x, 5, 0, 1, 1), CT_ERR_INDEX, msg);
    CHECK_ERR(ct_unfold(x, 5, 1, 1), CT_ERR_INDEX, msg);
    CHECK_ERR(ct_diagonal(x, 0, 0, 5), CT_ERR_INDEX, msg);
    CHECK_ERR(ct_flatten(x, 0, 5), CT_ERR_INDEX, msg);
    CHECK_ERR(ct_unflatten(x, 5, CT_SHAPE(3)), CT_ERR_INDEX, msg);
    CHECK_ERR(ct_permute(x, CT_DIMS(0, 5)), CT_ERR_INDEX, msg);
    CHECK_ERR(ct_movedim(x, CT_DIMS(5), CT_DIMS(0)), CT_ERR_INDEX, msg);
    CHECK_ERR(ct_unsqueeze(x, 3), CT_ERR_INDEX, "expected to be in range of [-3, 2], but got 3");
    CHECK_INT(ct_size(x, 2), -1);
    CHECK_ERR(0, CT_ERR_INDEX, "but got 2");
    CHECK_INT(ct_stride(s, 0), -1);
    CHECK_ERR(0, CT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    CHECK_ERR(ct_select(x, 0, 2), CT_ERR_INDEX, "select(): index 2 out of range for tensor of size [2, 3] at dimension 0");
    CHECK_ERR(ct_index(x, "0, 3"), CT_ERR_INDEX, "index 3 is out of bounds for dimension 1 with size 3");
    CHECK_ERR(ct_narrow(x, 1, 2, 2), CT_ERR_RUNTIME, "start (2) + length (2) exceeds dimension size (3).");
    CHECK_ERR(ct_tril(ct_zeros(CT_SHAPE(3), CT_F32), 0), CT_ERR_INDEX, "but got -2");
}

static void test_bad_shapes_and_sizes(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(2, 3), CT_F32);
    CHECK_ERR(ct_zeros(CT_SHAPE(2, -1), CT_F32), CT_ERR_RUNTIME,
              "Trying to create tensor with negative dimension -1: [2, -1]");
    CHECK_ERR(ct_empty(CT_SHAPE(-5), CT_F32), CT_ERR_RUNTIME, "negative dimension -5");
    CHECK_ERR(ct_ones(CT_SHAPE(-1), CT_F32), CT_ERR_RUNTIME, "negative dimension -1");
    CHECK_ERR(ct_full(CT_SHAPE(-1), ct_int(1), CT_DEFAULT), CT_ERR_RUNTIME, "negative dimension -1");
    CHECK_ERR(ct_zeros(CT_SHAPE(INT64_C(1) << 62, 4), CT_F32), CT_ERR_RUNTIME,
              "Storage size calculation overflowed with sizes=[4611686018427387904, 4]");
    CHECK_ERR(ct_empty(CT_SHAPE(INT64_C(1) << 40, INT64_C(1) << 20), CT_F32), CT_ERR_MEMORY,
              "DefaultCPUAllocator: can't allocate memory: you tried to allocate 4611686018427387904 bytes.");
    CHECK_ERR(ct_eye(INT64_C(1) << 40, INT64_C(1) << 40, CT_F32), CT_ERR_RUNTIME, "numel: integer multiplication overflow");
    CHECK_ERR(ct_eye(-1, 2, CT_F32), CT_ERR_RUNTIME, "n must be greater or equal to 0, got -1");
    CHECK_ERR(ct_linspace(0, 1, -1, CT_F32), CT_ERR_RUNTIME, "number of steps must be non-negative");
    CHECK_ERR(ct_logspace(0, 1, -1, 10, CT_F32), CT_ERR_RUNTIME, "number of steps must be non-negative");
    CHECK_ERR(ct_arange(ct_int(0), ct_int(10), ct_int(0), CT_DEFAULT), CT_ERR_RUNTIME, "step must be nonzero");
    CHECK_ERR(ct_arange(ct_float(0), ct_float(1e30), ct_float(1e-30), CT_DEFAULT), CT_ERR_RUNTIME,
              "invalid size, possible overflow?");
    CHECK_ERR(ct_view(x, CT_SHAPE(INT64_C(1) << 62, INT64_C(1) << 62)), CT_ERR_RUNTIME,
              "shape '[4611686018427387904, 4611686018427387904]' is invalid for input of size 6");
    CHECK_ERR(ct_reshape(x, CT_SHAPE(5)), CT_ERR_RUNTIME, "shape '[5]' is invalid for input of size 6");
    CHECK_ERR(ct_expand(x, CT_SHAPE(4, 3)), CT_ERR_RUNTIME, "The expanded size of the tensor (4) must match");
    CHECK_ERR(ct_as_strided(x, CT_SHAPE(10), CT_SHAPE(1), 0), CT_ERR_RUNTIME, "are out of bounds for storage of size 24");
    CHECK_ERR(ct_as_strided(x, CT_SHAPE(2), CT_SHAPE(-1), 0), CT_ERR_RUNTIME, "Negative strides are not supported");
    CHECK_ERR(ct_unflatten(x, 1, CT_SHAPE(2, 2)), CT_ERR_RUNTIME, "don't multiply up to the size of dim 1 (3)");
    CHECK_ERR(ct_movedim(x, CT_DIMS(0), CT_DIMS(0, 1)), CT_ERR_RUNTIME, "should contain the same number of dims");
    CHECK_ERR(ct_t(ct_zeros(CT_SHAPE(1, 2, 3), CT_F32)), CT_ERR_RUNTIME, "t() expects a tensor with <= 2 dimensions");
    CHECK_ERR(ct_diag(ct_zeros(CT_SHAPE(1, 2, 3), CT_F32), 0), CT_ERR_RUNTIME, "matrix or a vector expected");
    CHECK_FAILS(ct_copy_(x, ct_zeros(CT_SHAPE(4), CT_F32)), CT_ERR_RUNTIME,
                "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
    CHECK_FAILS(ct_copy_(x, ct_zeros(CT_SHAPE(2, 2, 3), CT_F32)), CT_ERR_RUNTIME,
                "output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3]");
    CHECK_FAILS(ct_index_put_(x, ct_ones(CT_SHAPE(5), CT_F32), "0"), CT_ERR_RUNTIME,
                "The expanded size of the tensor (3) must match the existing size (5)");
    CHECK_ERR(ct_index(x, "1 2"), CT_ERR_VALUE, "expected ','");
    /* more than CT_MAX_DIMS */
    ct_shape big = ct_shape_make(CT_MAX_DIMS, NULL);
    big.ndim = CT_MAX_DIMS + 1;
    CHECK_ERR(ct_zeros(big, CT_F32), CT_ERR_VALUE, "ctorch supports at most 16 dimensions");
    float v[6] = {0};
    CHECK_FAILS(ct_copy_to_array(x, v, 5, CT_F32), CT_ERR_VALUE, "the tensor has 6 elements but out has room for 5");
    CHECK_FAILS(ct_copy_to_array(x, NULL, 5, CT_F32), CT_ERR_VALUE, "out is NULL");
    CHECK_ERR(ct_from_array(NULL, CT_SHAPE(2), CT_F32), CT_ERR_VALUE, "data is NULL");
    CHECK_ERR(ct_from_blob(v, CT_SHAPE(2), (int64_t[]){-1}, CT_F32, NULL, NULL), CT_ERR_RUNTIME, "negative strides");
    CHECK(isnan(ct_item(x)));
    CHECK_ERR(0, CT_ERR_VALUE, "only one element tensors can be converted to Python scalars");
    CHECK(ct_item_int(x) == 0);
    CHECK_ERR(0, CT_ERR_VALUE, "only one element tensors can be converted to Python scalars");
}

static void test_bad_dtypes_and_values(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(2), CT_F32);
    const ct_dtype bad = (ct_dtype)99;
    CHECK_ERR(ct_empty(CT_SHAPE(2), bad), CT_ERR_TYPE, "invalid dtype 99");
    CHECK_ERR(ct_zeros(CT_SHAPE(2), bad), CT_ERR_TYPE, "invalid dtype 99");
    CHECK_ERR(ct_empty_like(x, bad), CT_ERR_TYPE, "invalid dtype 99");
    CHECK_ERR(ct_ones_like(x, bad), CT_ERR_TYPE, "invalid dtype 99");
    CHECK_ERR(ct_zeros_like(x, bad), CT_ERR_TYPE, "invalid dtype 99");
    CHECK_ERR(ct_to(x, bad), CT_ERR_TYPE, "invalid dtype 99");
    CHECK_ERR(ct_from_array((float[]){1}, CT_SHAPE(1), CT_DEFAULT), CT_ERR_TYPE, "the dtype of the C array must be given");
    CHECK_ERR(ct_from_blob(x, CT_SHAPE(1), NULL, bad, NULL, NULL), CT_ERR_TYPE, "the dtype of the memory must be given");
    CHECK_ERR(ct_scalar_tensor(ct_int(1), bad), CT_ERR_TYPE, "invalid dtype 99");
    CHECK_ERR(ct_eye(2, 2, bad), CT_ERR_TYPE, "invalid dtype 99");
    CHECK_ERR(ct_linspace(0, 1, 3, bad), CT_ERR_TYPE, "invalid dtype 99");
    CHECK_ERR(ct_arange(ct_int(0), ct_int(3), ct_int(1), CT_BOOL), CT_ERR_RUNTIME, "not implemented for 'Bool'");
    CHECK_FAILS(ct_copy_to_array(x, NULL, 0, bad), CT_ERR_TYPE, "invalid dtype 99");
    CHECK(ct_promote_types(bad, CT_F32) == CT_DEFAULT);
    CHECK(!ct_can_cast(CT_F32, CT_I64) && ct_can_cast(CT_I64, CT_F32) && !ct_can_cast(CT_I32, CT_BOOL));
    CHECK_STR(ct_dtype_name(bad), "default");
    CHECK_FAILS(ct_set_default_dtype(CT_I32), CT_ERR_TYPE, "only floating-point types are supported as the default type");
    CHECK(ct_get_default_dtype() == CT_F32);
    CHECK_FAILS(ct_fill_(ct_zeros(CT_SHAPE(2), CT_U8), ct_int(300)), CT_ERR_RUNTIME,
                "value cannot be converted to type uint8_t without overflow");
    CHECK_ERR(ct_full(CT_SHAPE(2), ct_float(1e39), CT_F32), CT_ERR_RUNTIME,
              "value cannot be converted to type float without overflow");
    CHECK_ERR(ct_full_like(x, ct_float(1e300), CT_F16), CT_ERR_RUNTIME, "cannot be converted to type at::Half");
    CHECK_FAILS(ct_requires_grad_(ct_zeros(CT_SHAPE(2), CT_I64), true), CT_ERR_RUNTIME,
                "only Tensors of floating point dtype can require gradients");
    CHECK_ERR(ct_randint(5, 3, CT_SHAPE(2), CT_DEFAULT, NULL), CT_ERR_RUNTIME,
              "random_ expects 'from' to be less than 'to', but got from=5 >= to=3");
    CHECK_ERR(ct_randperm(-1, CT_DEFAULT, NULL), CT_ERR_RUNTIME, "negative dimension -1");
    CHECK_ERR(ct_rand(CT_SHAPE(-1), CT_DEFAULT, NULL), CT_ERR_RUNTIME, "negative dimension -1");
    CHECK_ERR(ct_randn(CT_SHAPE(2), CT_I64, NULL), CT_ERR_RUNTIME, "\"normal_kernel_cpu\" not implemented for 'Long'");
    CHECK_ERR(ct_normal_scalar(0, -1, CT_SHAPE(2), CT_DEFAULT, NULL), CT_ERR_RUNTIME,
              "normal expects std >= 0.0, but found std -1");
    CHECK_ERR(ct_bernoulli(ct_full(CT_SHAPE(2), ct_float(2), CT_DEFAULT), NULL), CT_ERR_RUNTIME,
              "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
    CHECK_FAILS(ct_bernoulli_(x, 1.5, NULL), CT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=1.5");
    CHECK_ERR(ct_multinomial(ct_zeros(CT_SHAPE(3), CT_F32), 1, false, NULL), CT_ERR_RUNTIME,
              "invalid multinomial distribution (sum of probabilities <= 0)");
    CHECK_FAILS(ct_generator_set_state(ct_default_generator(), "short", 5), CT_ERR_RUNTIME,
                "Expected either a CPUGeneratorImplStateLegacy of size 5048 or a CPUGeneratorImplState of size 5056 but "
                "found the input RNG state size to be 5");
    ct_print_opts o = ct_print_opts_init();
    o.edgeitems = -1;
    CHECK_FAILS(ct_set_printoptions(o), CT_ERR_VALUE, "must be non-negative");
}

/* Whether a function name appears as a call or reference in this file. */
static int mentioned(const char *source, const char *fn)
{
    size_t n = strlen(fn);
    for (const char *p = strstr(source, fn); p; p = strstr(p + 1, fn)) {
        char after = p[n], before = p > source ? p[-1] : ' ';
        if ((after == '(' || after == ',' || after == ')') && !(before == '_' || (before >= 'a' && before <= 'z')))
            return 1;
    }
    return 0;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = (char *)malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

/* Functions with nothing that can go wrong: no tensor, dtype, size or dim
 * argument to get wrong. Everything else must appear in this file. */
static const char *const no_bad_input[] = {
    "ct_result_str", "ct_last_error", "ct_last_error_code", "ct_clear_error", "ct_set_error_handler",
    "ct_dtype_size", "ct_dtype_is_floating", "ct_int", "ct_float", "ct_bool", "ct_scalar_to_double",
    "ct_shape_make", "ct_scope_begin", "ct_scope_end", "ct_manual_seed", "ct_initial_seed", "ct_seed",
    "ct_default_generator", "ct_generator_new", "ct_generator_free", "ct_generator_manual_seed",
    "ct_generator_initial_seed", "ct_generator_state_size", "ct_generator_get_state", "ct_print_opts_init",
    "ct_get_printoptions", "ct_op_count", "ct_op_name", NULL};

static void test_every_function_is_exercised(void)
{
    char *header = read_all("ctorch.h"), *self = read_all("tests/test_errors.c");
    CHECK(header && self);
    if (!header || !self) return;
    char *api_end = strstr(header, "#endif /* CTORCH_H */");
    int checked = 0;
    for (char *p = strstr(header, "CTORCH_API "); p && (!api_end || p < api_end); p = strstr(p + 1, "CTORCH_API ")) {
        char *paren = strchr(p, '('), *name = paren;
        if (!paren || strncmp(p, "CTORCH_API static", 17) == 0) continue;
        while (name > p && (name[-1] == '_' || (name[-1] >= 'a' && name[-1] <= 'z') || (name[-1] >= '0' && name[-1] <= '9'))) name--;
        char fn[128];
        snprintf(fn, sizeof fn, "%.*s", (int)(paren - name), name);
        if (strncmp(fn, "ct_", 3)) continue;
        int exempt = 0;
        for (int i = 0; no_bad_input[i]; i++) exempt |= !strcmp(no_bad_input[i], fn);
        if (!exempt && !mentioned(self, fn)) ct_test_fail(__FILE__, __LINE__, "%s is never given bad input here", fn);
        checked++;
    }
    CHECK(checked > 100);
    free(header);
    free(self);
}

int main(void)
{
    RUN(test_null_tensors);
    RUN(test_first_error_is_kept);
    RUN(test_error_handler_and_strings);
    RUN(test_dims_out_of_range);
    RUN(test_bad_shapes_and_sizes);
    RUN(test_bad_dtypes_and_values);
    RUN(test_every_function_is_exercised);
    return ct_test_report();
}
