/* Bad input to every public function: NULL tensors, out-of-range dims and
 * indices, bad shapes and sizes, invalid dtypes, overflowing sizes. Each must
 * fail with PyTorch's words and leave the program running and its state
 * unchanged. test_every_function_is_exercised reads ctorch.h and fails when a
 * public function appears nowhere in this file or its siblings
 * tests/test_errors_*.c (one per library area). */
#include "errors.h"

#include <dirent.h>

static const char *const OVERLAP = "unsupported operation: more than one element of the written-to tensor refers to a "
                                   "single memory location. Please clone() the tensor before performing the operation.";
static const char *const PARTIAL = "unsupported operation: some elements of the input tensor and the written-to tensor "
                                   "refer to a single memory location. Please clone() the tensor before performing the "
                                   "operation.";
static const char *const LEAF = "a leaf Variable that requires grad is being used in an in-place operation.";
static const char *const TO_LONG = "result type Float can't be cast to the desired output type Long";
static const char *const DIM5 = "Dimension out of range (expected to be in range of [-2, 1], but got 5)";
static const char *const DUP0 = "dim 0 appears multiple times in the list of dims";
static const char *const SIZE_3_4 = "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1";
#define NOT_FOR(kernel, type) "\"" kernel "\" not implemented for '" type "'"

/* The inputs the tables below give: 2x3 tensors whose values every op would
 * change (so that a write shows), an empty one and a zero divisor. */
enum input { NO_INPUT, F32, F64, BF16, I64, U8, BOOL, EMPTY, ZEROS_I64 };

static ct_tensor *input(enum input k)
{
    static const double v[6] = {-2.5, 0, 1.5, 3, 0, -1};
    static const ct_dtype dtypes[] = {CT_DEFAULT, CT_F32, CT_F64, CT_BF16, CT_I64, CT_U8, CT_BOOL};
    if (k == EMPTY) return ct_zeros(CT_SHAPE(0, 3), CT_F32);
    if (k == ZEROS_I64) return ct_zeros(CT_SHAPE(2, 3), CT_I64);
    return ct_to(ct_from_array(v, CT_SHAPE(2, 3), CT_F64), dtypes[k]);
}

/* A 2x3 tensor whose rows share memory (written to in place: an overlap). */
static ct_tensor *expanded(enum input k) { return ct_expand(ct_narrow(input(k), 0, 0, 1), CT_SHAPE(2, 3)); }

/* A 2x3 leaf that requires grad. */
static ct_tensor *leaf(void)
{
    ct_tensor *t = input(F32);
    ct_requires_grad_(t, true);
    return t;
}

/* A 1-D tensor of 4 (which a 2x3 one does not broadcast with). */
static ct_tensor *four(enum input k) { return ct_to(ct_ones(CT_SHAPE(4), CT_F32), ct_dtype_of(input(k))); }

/* "fn(): argument 'arg' (position pos) must be Tensor, not NULL" for ct_fn. */
static const char *null_msg(char *buf, size_t n, const char *fn, const char *arg, int pos)
{
    snprintf(buf, n, "%s(): argument '%s' (position %d) must be Tensor, not NULL", fn + 3, arg, pos);
    return buf;
}

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
    CHECK_NULL_R(ct_index_put_accumulate_(NULL_T, x, "0"), "index_put_accumulate_(): argument 'self'");
    CHECK_NULL_R(ct_index_put_accumulate_(x, NULL_T, "0"), "index_put_accumulate_(): argument 'value'");
    FAILS_R(ct_index_put_accumulate_(x, x, NULL), CT_ERR_VALUE, "index_put_: spec is NULL");
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
    CHECK_NULL_R(ct_random_from_(NULL_T, 0, NULL), "random_from_(): argument 'self'");
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
    CHECK(!ct_is_contiguous(NULL_T) && !ct_is_floating_point(NULL_T) && !ct_requires_grad(NULL_T) && ct_version(NULL_T) == 0);
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
    int threads = ct_get_num_threads();
    FAILS_R(ct_set_num_threads(0), CT_ERR_RUNTIME, "set_num_threads expects a positive integer");
    FAILS_R(ct_set_num_threads(-1), CT_ERR_RUNTIME, "set_num_threads expects a positive integer");
    CHECK_INT(ct_get_num_threads(), threads); /* unchanged */
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

/* ---------------------------------------------------------------- pointwise ops, by signature */

/* Functions of one tensor: NULL, and an input PyTorch refuses (none where
 * every dtype and shape is accepted). */
typedef struct one_tensor_case {
    ct_tensor *(*fn)(const ct_tensor *);
    const char *name, *arg;
    enum input bad;
    ct_result code;
    const char *msg;
} one_tensor_case;
#define ONE(fn, bad, msg) {fn, #fn, "input", bad, CT_ERR_RUNTIME, msg}

static const one_tensor_case one_tensor_cases[] = {
    ONE(ct_neg, BOOL, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
                      "mask, use the `~` or `logical_not()` operator instead."),
    ONE(ct_abs, BOOL, NOT_FOR("abs_cpu", "Bool")),
    ONE(ct_reciprocal, NO_INPUT, NULL),
    ONE(ct_sign, NO_INPUT, NULL),
    ONE(ct_round, BOOL, NOT_FOR("round_vml_cpu", "Bool")),
    ONE(ct_floor, BOOL, NOT_FOR("floor_vml_cpu", "Bool")),
    ONE(ct_ceil, BOOL, NOT_FOR("ceil_vml_cpu", "Bool")),
    ONE(ct_trunc, BOOL, NOT_FOR("trunc_vml_cpu", "Bool")),
    ONE(ct_frac, I64, NOT_FOR("frac_cpu", "Long")),
    ONE(ct_exp, NO_INPUT, NULL),
    ONE(ct_exp2, NO_INPUT, NULL),
    ONE(ct_expm1, NO_INPUT, NULL),
    ONE(ct_log, NO_INPUT, NULL),
    ONE(ct_log2, NO_INPUT, NULL),
    ONE(ct_log10, NO_INPUT, NULL),
    ONE(ct_log1p, NO_INPUT, NULL),
    ONE(ct_sqrt, NO_INPUT, NULL),
    ONE(ct_rsqrt, NO_INPUT, NULL),
    ONE(ct_sin, NO_INPUT, NULL),
    ONE(ct_cos, NO_INPUT, NULL),
    ONE(ct_tan, NO_INPUT, NULL),
    ONE(ct_asin, NO_INPUT, NULL),
    ONE(ct_acos, NO_INPUT, NULL),
    ONE(ct_atan, NO_INPUT, NULL),
    ONE(ct_sinh, NO_INPUT, NULL),
    ONE(ct_cosh, NO_INPUT, NULL),
    ONE(ct_tanh, NO_INPUT, NULL),
    ONE(ct_asinh, NO_INPUT, NULL),
    ONE(ct_acosh, NO_INPUT, NULL),
    ONE(ct_atanh, NO_INPUT, NULL),
    ONE(ct_erf, NO_INPUT, NULL),
    ONE(ct_erfc, NO_INPUT, NULL),
    ONE(ct_erfinv, NO_INPUT, NULL),
    ONE(ct_lgamma, NO_INPUT, NULL),
    ONE(ct_digamma, NO_INPUT, NULL),
    ONE(ct_sigmoid, NO_INPUT, NULL),
    ONE(ct_logit, NO_INPUT, NULL),
    ONE(ct_relu, BOOL, "Boolean inputs not supported for relu"),
    ONE(ct_relu6, BOOL, "Bool inputs not supported for hardtanh"),
    ONE(ct_selu, I64, NOT_FOR("elu_cpu", "Long")),
    ONE(ct_silu, I64, NOT_FOR("silu_cpu", "Long")),
    ONE(ct_mish, I64, NOT_FOR("mish_cpu", "Long")),
    ONE(ct_hardsigmoid, I64, NOT_FOR("hardsigmoid_cpu", "Long")),
    ONE(ct_hardswish, I64, NOT_FOR("hardswish_cpu", "Long")),
    ONE(ct_isnan, NO_INPUT, NULL),
    ONE(ct_isinf, NO_INPUT, NULL),
    ONE(ct_isfinite, NO_INPUT, NULL),
    ONE(ct_logical_not, NO_INPUT, NULL),
    ONE(ct_bitwise_not, F32, NOT_FOR("bitwise_not_cpu", "Float")),
    /* reductions, sorting and joining of a whole tensor */
    ONE(ct_sum, NO_INPUT, NULL),
    ONE(ct_nansum, NO_INPUT, NULL),
    ONE(ct_mean, I64, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
                      "dtype. Got: Long"),
    ONE(ct_prod, BF16, NOT_FOR("prod_cpu", "BFloat16")),
    ONE(ct_max, EMPTY, "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                       "dim with the 'dim' argument."),
    ONE(ct_min, EMPTY, "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                       "dim with the 'dim' argument."),
    {ct_argmax, "ct_argmax", "input", EMPTY, CT_ERR_INDEX,
     "argmax(): Expected reduction dim to be specified for input.numel() == 0."},
    {ct_argmin, "ct_argmin", "input", EMPTY, CT_ERR_INDEX,
     "argmin(): Expected reduction dim to be specified for input.numel() == 0."},
    ONE(ct_std, I64, "std and var only support floating point and complex dtypes"),
    ONE(ct_var, I64, "std and var only support floating point and complex dtypes"),
    ONE(ct_median, BOOL, NOT_FOR("median_cpu", "Bool")),
    ONE(ct_all, NO_INPUT, NULL),
    ONE(ct_any, NO_INPUT, NULL),
    ONE(ct_nonzero, NO_INPUT, NULL),
    {ct_repeat_interleave_index, "ct_repeat_interleave_index", "repeats", F32, CT_ERR_RUNTIME,
     NOT_FOR("repeat_interleave_cpu", "Float")},
};

static void test_one_tensor_functions(void)
{
    char m[256];
    for (size_t k = 0; k < sizeof one_tensor_cases / sizeof one_tensor_cases[0]; k++) {
        const one_tensor_case *c = &one_tensor_cases[k];
        expect_fail(__LINE__, c->name, c->fn(NULL_T) == NULL, CT_ERR_TYPE, null_msg(m, sizeof m, c->name, c->arg, 1));
        if (c->bad) expect_fail(__LINE__, c->name, c->fn(input(c->bad)) == NULL, c->code, c->msg);
    }
}

/* In-place functions of one tensor: NULL; a tensor whose elements share
 * memory; a leaf that requires grad (where PyTorch refuses it: not for
 * logical_not_, which is not differentiable); an input PyTorch refuses.
 * Each failure leaves the tensor as it was. `good` is a dtype the op takes. */
typedef struct inplace_case {
    ct_result (*fn)(ct_tensor *);
    const char *name;
    enum input good, bad;
    const char *msg;
} inplace_case;
#define INPLACE(fn, good, bad, msg) {fn, #fn, good, bad, msg}

static const inplace_case inplace_cases[] = {
    INPLACE(ct_neg_, F32, BOOL, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                                "invert a mask, use the `~` or `logical_not()` operator instead."),
    INPLACE(ct_abs_, F32, BOOL, NOT_FOR("abs_cpu", "Bool")),
    INPLACE(ct_reciprocal_, F32, I64, TO_LONG),
    INPLACE(ct_sign_, F32, NO_INPUT, NULL),
    INPLACE(ct_round_, F32, BOOL, NOT_FOR("round_vml_cpu", "Bool")),
    INPLACE(ct_floor_, F32, BOOL, NOT_FOR("floor_vml_cpu", "Bool")),
    INPLACE(ct_ceil_, F32, BOOL, NOT_FOR("ceil_vml_cpu", "Bool")),
    INPLACE(ct_trunc_, F32, BOOL, NOT_FOR("trunc_vml_cpu", "Bool")),
    INPLACE(ct_frac_, F32, I64, NOT_FOR("frac_cpu", "Long")),
    INPLACE(ct_exp_, F32, I64, TO_LONG),
    INPLACE(ct_exp2_, F32, I64, TO_LONG),
    INPLACE(ct_expm1_, F32, I64, TO_LONG),
    INPLACE(ct_log_, F32, I64, TO_LONG),
    INPLACE(ct_log2_, F32, I64, TO_LONG),
    INPLACE(ct_log10_, F32, I64, TO_LONG),
    INPLACE(ct_log1p_, F32, I64, TO_LONG),
    INPLACE(ct_sqrt_, F32, I64, TO_LONG),
    INPLACE(ct_rsqrt_, F32, I64, TO_LONG),
    INPLACE(ct_sin_, F32, I64, TO_LONG),
    INPLACE(ct_cos_, F32, I64, TO_LONG),
    INPLACE(ct_tan_, F32, I64, TO_LONG),
    INPLACE(ct_asin_, F32, I64, TO_LONG),
    INPLACE(ct_acos_, F32, I64, TO_LONG),
    INPLACE(ct_atan_, F32, I64, TO_LONG),
    INPLACE(ct_sinh_, F32, I64, TO_LONG),
    INPLACE(ct_cosh_, F32, I64, TO_LONG),
    INPLACE(ct_tanh_, F32, I64, TO_LONG),
    INPLACE(ct_asinh_, F32, I64, TO_LONG),
    INPLACE(ct_acosh_, F32, I64, TO_LONG),
    INPLACE(ct_atanh_, F32, I64, TO_LONG),
    INPLACE(ct_erf_, F32, I64, TO_LONG),
    INPLACE(ct_erfc_, F32, I64, TO_LONG),
    INPLACE(ct_erfinv_, F32, I64, TO_LONG),
    INPLACE(ct_lgamma_, F32, I64, TO_LONG),
    INPLACE(ct_digamma_, F32, I64, TO_LONG),
    INPLACE(ct_sigmoid_, F32, I64, TO_LONG),
    INPLACE(ct_logit_, F32, I64, TO_LONG),
    INPLACE(ct_relu_, F32, BOOL, "Boolean inputs not supported for relu"),
    INPLACE(ct_relu6_, F32, BOOL, "Bool inputs not supported for hardtanh"),
    INPLACE(ct_selu_, F32, I64, NOT_FOR("elu_cpu", "Long")),
    INPLACE(ct_silu_, F32, I64, NOT_FOR("silu_cpu", "Long")),
    INPLACE(ct_mish_, F32, I64, NOT_FOR("mish_cpu", "Long")),
    INPLACE(ct_hardsigmoid_, F32, I64, NOT_FOR("hardsigmoid_cpu", "Long")),
    INPLACE(ct_hardswish_, F32, I64, NOT_FOR("hardswish_cpu", "Long")),
    INPLACE(ct_logical_not_, F64, NO_INPUT, NULL),
    INPLACE(ct_bitwise_not_, I64, F32, NOT_FOR("bitwise_not_cpu", "Float")),
};

static void test_inplace_functions(void)
{
    char m[256];
    for (size_t k = 0; k < sizeof inplace_cases / sizeof inplace_cases[0]; k++) {
        const inplace_case *c = &inplace_cases[k];
        ct_tensor *t;
        expect_code(__LINE__, c->name, c->fn(NULL_T), CT_ERR_TYPE, null_msg(m, sizeof m, c->name, "input", 1));
        REFUSED(c->name, t, expanded(c->good), c->fn(t), OVERLAP);
        if (c->good == F32) REFUSED(c->name, t, leaf(), c->fn(t), LEAF);
        if (c->bad) REFUSED(c->name, t, input(c->bad), c->fn(t), c->msg);
    }
    /* PyTorch lets logical_not_, which is not differentiable, write to a leaf that requires grad */
    CHECK_OK(ct_logical_not_(leaf()));
}

/* Functions of two tensors that broadcast: NULL for each; shapes that do not
 * broadcast (rsub names them the other way round, as it computes b - a); the
 * inputs PyTorch refuses. `good` is a dtype the op takes. */
typedef struct two_tensor_case {
    ct_tensor *(*fn)(const ct_tensor *, const ct_tensor *);
    const char *name, *arg2;
    enum input good, bad_a, bad_b;
    const char *msg;
} two_tensor_case;
#define TWO(fn, good, bad_a, bad_b, msg) {fn, #fn, "other", good, bad_a, bad_b, msg}

static const char *const TWO_BOOLS = "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                                     "`^` or `logical_xor()` operator instead.";
static const char *const ONE_BOOL = "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                                    "trying to invert a mask, use the `~` or `logical_not()` operator instead.";

static const two_tensor_case two_tensor_cases[] = {
    TWO(ct_add, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_sub, F32, BOOL, BOOL, TWO_BOOLS),
    TWO(ct_rsub, F32, BOOL, BOOL, TWO_BOOLS),
    TWO(ct_mul, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_div, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_floor_divide, F32, I64, ZEROS_I64, "ZeroDivisionError"),
    TWO(ct_remainder, F32, I64, ZEROS_I64, "ZeroDivisionError"),
    TWO(ct_fmod, F32, I64, ZEROS_I64, "ZeroDivisionError"),
    TWO(ct_pow, F32, BOOL, BOOL, NOT_FOR("pow", "Bool")),
    TWO(ct_maximum, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_minimum, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_fmax, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_fmin, F32, NO_INPUT, NO_INPUT, NULL),
    {ct_clamp_min, "ct_clamp_min", "min", F32, NO_INPUT, NO_INPUT, NULL},
    {ct_clamp_max, "ct_clamp_max", "max", F32, NO_INPUT, NO_INPUT, NULL},
    TWO(ct_copysign, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_hypot, F32, I64, I64, NOT_FOR("hypot_cpu", "Long")),
    TWO(ct_atan2, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_xlogy, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_eq, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_ne, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_lt, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_le, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_gt, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_ge, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_logical_and, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_logical_or, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_logical_xor, F32, NO_INPUT, NO_INPUT, NULL),
    TWO(ct_bitwise_and, I64, F32, F32, NOT_FOR("bitwise_and_cpu", "Float")),
    TWO(ct_bitwise_or, I64, F32, F32, NOT_FOR("bitwise_or_cpu", "Float")),
    TWO(ct_bitwise_xor, I64, F32, F32, NOT_FOR("bitwise_xor_cpu", "Float")),
    TWO(ct_bitwise_left_shift, I64, F32, F32, NOT_FOR("lshift_cpu", "Float")),
    TWO(ct_bitwise_right_shift, I64, BOOL, BOOL, NOT_FOR("rshift_cpu", "Bool")),
};

static void test_two_tensor_functions(void)
{
    char m[256];
    for (size_t k = 0; k < sizeof two_tensor_cases / sizeof two_tensor_cases[0]; k++) {
        const two_tensor_case *c = &two_tensor_cases[k];
        ct_tensor *a = input(c->good);
        bool swapped = c->fn == ct_rsub;
        expect_fail(__LINE__, c->name, c->fn(NULL_T, a) == NULL, CT_ERR_TYPE, null_msg(m, sizeof m, c->name, "input", 1));
        expect_fail(__LINE__, c->name, c->fn(a, NULL_T) == NULL, CT_ERR_TYPE, null_msg(m, sizeof m, c->name, c->arg2, 2));
        expect_fail(__LINE__, c->name, c->fn(a, four(c->good)) == NULL, CT_ERR_RUNTIME,
                    swapped ? "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1"
                            : SIZE_3_4);
        if (c->bad_a) expect_fail(__LINE__, c->name, c->fn(input(c->bad_a), input(c->bad_b)) == NULL, CT_ERR_RUNTIME, c->msg);
    }
}

/* Their in-place forms: NULL for each; a result that does not fit self; shapes
 * that do not broadcast; self sharing memory with itself or with the other
 * operand; a leaf that requires grad (not for the logical ops, which PyTorch
 * lets write to one); the inputs PyTorch refuses. Nothing may be written. */
typedef struct inplace2_case {
    ct_result (*fn)(ct_tensor *, const ct_tensor *);
    const char *name, *arg2;
    enum input good, bad_a, bad_b;
    const char *msg;
} inplace2_case;
#define INPLACE2(fn, good, bad_a, bad_b, msg) {fn, #fn, "other", good, bad_a, bad_b, msg}

static const inplace2_case inplace2_cases[] = {
    INPLACE2(ct_add_, F32, I64, F32, TO_LONG),
    INPLACE2(ct_sub_, F32, I64, F32, TO_LONG),
    INPLACE2(ct_mul_, F32, I64, F32, TO_LONG),
    INPLACE2(ct_div_, F32, I64, I64, TO_LONG),
    INPLACE2(ct_floor_divide_, F32, I64, ZEROS_I64, "ZeroDivisionError"),
    INPLACE2(ct_remainder_, F32, I64, ZEROS_I64, "ZeroDivisionError"),
    INPLACE2(ct_fmod_, F32, I64, F32, TO_LONG),
    INPLACE2(ct_pow_, F32, I64, F32, TO_LONG),
    {ct_clamp_min_, "ct_clamp_min_", "min", F32, I64, F32, TO_LONG},
    {ct_clamp_max_, "ct_clamp_max_", "max", F32, I64, F32, TO_LONG},
    INPLACE2(ct_copysign_, F32, I64, F32, TO_LONG),
    INPLACE2(ct_hypot_, F32, I64, I64, NOT_FOR("hypot_cpu", "Long")),
    INPLACE2(ct_atan2_, F32, I64, F32, TO_LONG),
    INPLACE2(ct_xlogy_, F32, I64, I64, TO_LONG),
    INPLACE2(ct_eq_, F32, NO_INPUT, NO_INPUT, NULL),
    INPLACE2(ct_ne_, F32, NO_INPUT, NO_INPUT, NULL),
    INPLACE2(ct_lt_, F32, NO_INPUT, NO_INPUT, NULL),
    INPLACE2(ct_le_, F32, NO_INPUT, NO_INPUT, NULL),
    INPLACE2(ct_gt_, F32, NO_INPUT, NO_INPUT, NULL),
    INPLACE2(ct_ge_, F32, NO_INPUT, NO_INPUT, NULL),
    INPLACE2(ct_logical_and_, F64, NO_INPUT, NO_INPUT, NULL),
    INPLACE2(ct_logical_or_, F64, NO_INPUT, NO_INPUT, NULL),
    INPLACE2(ct_logical_xor_, F64, NO_INPUT, NO_INPUT, NULL),
    INPLACE2(ct_bitwise_and_, I64, F32, F32, NOT_FOR("bitwise_and_cpu", "Float")),
    INPLACE2(ct_bitwise_or_, I64, F32, F32, NOT_FOR("bitwise_or_cpu", "Float")),
    INPLACE2(ct_bitwise_xor_, I64, I64, F32, TO_LONG),
    INPLACE2(ct_bitwise_left_shift_, I64, F32, F32, NOT_FOR("lshift_cpu", "Float")),
    INPLACE2(ct_bitwise_right_shift_, I64, F32, F32, NOT_FOR("rshift_cpu", "Float")),
};


static void test_two_tensor_inplace_functions(void)
{
    char m[256];
    for (size_t k = 0; k < sizeof inplace2_cases / sizeof inplace2_cases[0]; k++) {
        const inplace2_case *c = &inplace2_cases[k];
        ct_tensor *x = input(c->good), *t;
        ct_tensor *base = ct_to(ct_arange(ct_int(1), ct_int(7), ct_int(1), CT_DEFAULT), ct_dtype_of(x));
        expect_code(__LINE__, c->name, c->fn(NULL_T, x), CT_ERR_TYPE, null_msg(m, sizeof m, c->name, "input", 1));
        expect_code(__LINE__, c->name, c->fn(x, NULL_T), CT_ERR_TYPE, null_msg(m, sizeof m, c->name, c->arg2, 2));
        REFUSED(c->name, t, ct_to(ct_ones(CT_SHAPE(3), CT_F32), ct_dtype_of(x)), c->fn(t, x),
                "output with shape [3] doesn't match the broadcast shape [2, 3]");
        REFUSED(c->name, t, input(c->good), c->fn(t, four(c->good)), SIZE_3_4);
        REFUSED(c->name, t, expanded(c->good), c->fn(t, x), OVERLAP);
        REFUSED(c->name, t, ct_narrow(base, 0, 0, 3), c->fn(t, ct_narrow(base, 0, 1, 3)), PARTIAL);
        if (c->good == F32) REFUSED(c->name, t, leaf(), c->fn(t, x), LEAF);
        if (c->bad_a) REFUSED(c->name, t, input(c->bad_a), c->fn(t, input(c->bad_b)), c->msg);
    }
    /* PyTorch lets the logical ops, which are not differentiable, write to a leaf that requires grad */
    CHECK_OK(ct_logical_and_(leaf(), input(F32)));
    /* its autograd layer refuses the leaf before the op looks at the other operand */
    ct_tensor *t;
    REFUSED("ct_add_", t, leaf(), ct_add_(t, four(F32)), LEAF);
}

/* Functions of a tensor and a Python number: NULL, and the inputs PyTorch refuses. */
typedef struct number_case {
    ct_tensor *(*fn)(const ct_tensor *, ct_scalar);
    const char *name;
    enum input bad;
    ct_scalar number;
    const char *msg;
} number_case;
#define NUMBER(fn, bad, number, msg) {fn, #fn, bad, number, msg}

static void test_number_functions(void)
{
    const ct_scalar one = ct_int(1), zero = ct_int(0), big = ct_int(300);
    const char *u8_300 = "value cannot be converted to type uint8_t without overflow";
    const number_case cases[] = {
        NUMBER(ct_add_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_sub_scalar, BOOL, one, ONE_BOOL),
        NUMBER(ct_rsub_scalar, BOOL, one, ONE_BOOL),
        NUMBER(ct_mul_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_div_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_rdiv_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_floor_divide_scalar, I64, zero, "ZeroDivisionError"),
        NUMBER(ct_remainder_scalar, I64, zero, "ZeroDivisionError"),
        NUMBER(ct_fmod_scalar, I64, zero, "ZeroDivisionError"),
        NUMBER(ct_pow_scalar, I64, ct_int(-1), "Integers to negative integer powers are not allowed."),
        NUMBER(ct_rpow_scalar, BOOL, ct_bool(true), NOT_FOR("pow", "Bool")),
        NUMBER(ct_clamp_min_scalar, U8, big, u8_300),
        NUMBER(ct_clamp_max_scalar, U8, big, u8_300),
        NUMBER(ct_copysign_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_xlogy_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_eq_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_ne_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_lt_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_le_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_gt_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_ge_scalar, NO_INPUT, one, NULL),
        NUMBER(ct_bitwise_and_scalar, F32, one, NOT_FOR("bitwise_and_cpu", "Float")),
        NUMBER(ct_bitwise_or_scalar, F32, one, NOT_FOR("bitwise_or_cpu", "Float")),
        NUMBER(ct_bitwise_xor_scalar, F32, one, NOT_FOR("bitwise_xor_cpu", "Float")),
        NUMBER(ct_bitwise_left_shift_scalar, F32, one, NOT_FOR("lshift_cpu", "Float")),
        NUMBER(ct_bitwise_right_shift_scalar, F32, one, NOT_FOR("rshift_cpu", "Float")),
    };
    char m[256];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const number_case *c = &cases[k];
        expect_fail(__LINE__, c->name, c->fn(NULL_T, c->number) == NULL, CT_ERR_TYPE,
                    null_msg(m, sizeof m, c->name, "input", 1));
        if (c->bad) expect_fail(__LINE__, c->name, c->fn(input(c->bad), c->number) == NULL, CT_ERR_RUNTIME, c->msg);
    }
}

/* Their in-place forms: NULL; self sharing memory with itself; a leaf that
 * requires grad; the inputs PyTorch refuses (a float number for an integer
 * self: the result does not fit). Nothing may be written. */
typedef struct inplace_number_case {
    ct_result (*fn)(ct_tensor *, ct_scalar);
    const char *name;
    enum input good, bad;
    ct_scalar number;
    const char *msg;
} inplace_number_case;
#define INPLACE_NUMBER(fn, good, bad, number, msg) {fn, #fn, good, bad, number, msg}

static void test_number_inplace_functions(void)
{
    const ct_scalar half = ct_float(2.5), zero = ct_int(0), one = ct_int(1);
    const char *to_long_int = "result type Float can't be cast to the desired output type long int";
    const inplace_number_case cases[] = {
        INPLACE_NUMBER(ct_add_scalar_, F32, I64, half, TO_LONG),
        INPLACE_NUMBER(ct_sub_scalar_, F32, BOOL, one, ONE_BOOL),
        INPLACE_NUMBER(ct_mul_scalar_, F32, I64, half, TO_LONG),
        INPLACE_NUMBER(ct_div_scalar_, F32, I64, ct_int(2), TO_LONG),
        INPLACE_NUMBER(ct_floor_divide_scalar_, F32, I64, zero, "ZeroDivisionError"),
        INPLACE_NUMBER(ct_remainder_scalar_, F32, I64, zero, "ZeroDivisionError"),
        INPLACE_NUMBER(ct_fmod_scalar_, F32, I64, half, TO_LONG),
        INPLACE_NUMBER(ct_pow_scalar_, F32, I64, half, "Found dtype Long but expected Float"),
        INPLACE_NUMBER(ct_clamp_min_scalar_, F32, I64, half, to_long_int),
        INPLACE_NUMBER(ct_clamp_max_scalar_, F32, I64, half, to_long_int),
        INPLACE_NUMBER(ct_copysign_scalar_, F32, I64, one, TO_LONG),
        INPLACE_NUMBER(ct_xlogy_scalar_, F32, I64, ct_int(2), TO_LONG),
        INPLACE_NUMBER(ct_eq_scalar_, F32, NO_INPUT, one, NULL),
        INPLACE_NUMBER(ct_ne_scalar_, F32, NO_INPUT, one, NULL),
        INPLACE_NUMBER(ct_lt_scalar_, F32, NO_INPUT, one, NULL),
        INPLACE_NUMBER(ct_le_scalar_, F32, NO_INPUT, one, NULL),
        INPLACE_NUMBER(ct_gt_scalar_, F32, NO_INPUT, one, NULL),
        INPLACE_NUMBER(ct_ge_scalar_, F32, NO_INPUT, one, NULL),
        INPLACE_NUMBER(ct_bitwise_and_scalar_, I64, F32, one, NOT_FOR("bitwise_and_cpu", "Float")),
        INPLACE_NUMBER(ct_bitwise_or_scalar_, I64, I64, half, TO_LONG),
        INPLACE_NUMBER(ct_bitwise_xor_scalar_, I64, I64, half, TO_LONG),
        INPLACE_NUMBER(ct_bitwise_left_shift_scalar_, I64, F32, one, NOT_FOR("lshift_cpu", "Float")),
        INPLACE_NUMBER(ct_bitwise_right_shift_scalar_, I64, I64, half, TO_LONG),
    };
    char m[256];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const inplace_number_case *c = &cases[k];
        ct_tensor *t;
        expect_code(__LINE__, c->name, c->fn(NULL_T, c->number), CT_ERR_TYPE, null_msg(m, sizeof m, c->name, "input", 1));
        REFUSED(c->name, t, expanded(c->good), c->fn(t, one), OVERLAP);
        if (c->good == F32) REFUSED(c->name, t, leaf(), c->fn(t, one), LEAF);
        if (c->bad) REFUSED(c->name, t, input(c->bad), c->fn(t, c->number), c->msg);
    }
}

/* ---------------------------------------------------------------- pointwise ops with options */

/* A bool-returning call that must fail (false, with the error set). */
#define FAILS_B(expr, code, msg) expect_fail(__LINE__, #expr, !(expr) && ct_last_error_code() != CT_OK, code, msg)

static const char *const ALPHA_FLOAT = "For integral input tensors, argument alpha must not be a floating point number.";
static const char *const ADDCDIV_INT =
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.";

static void test_add_sub_div_with_options(void)
{
    ct_tensor *x = input(F32), *i = input(I64), *z = input(ZEROS_I64);
    const ct_scalar one = ct_int(1);
    const ct_rounding_mode bad_mode = (ct_rounding_mode)7;
    FAILS_NULL(ct_add_alpha(NULL_T, x, one), "add_alpha(): argument 'input' (position 1)");
    FAILS_NULL(ct_add_alpha(x, NULL_T, one), "add_alpha(): argument 'other' (position 2)");
    FAILS_T(ct_add_alpha(i, i, ct_float(2.5)), CT_ERR_RUNTIME, ALPHA_FLOAT);
    FAILS_T(ct_add_alpha(i, i, ct_bool(true)), CT_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
    FAILS_T(ct_add_alpha(x, four(F32), one), CT_ERR_RUNTIME, SIZE_3_4);
    FAILS_NULL_R(ct_add_alpha_(NULL_T, x, one), "add_alpha_(): argument 'input' (position 1)");
    FAILS_NULL_R(ct_add_alpha_(x, NULL_T, one), "add_alpha_(): argument 'other' (position 2)");
    FAILS_INPLACE(i, ct_add_alpha_(i, i, ct_float(2.5)), CT_ERR_RUNTIME, ALPHA_FLOAT);
    FAILS_INPLACE(i, ct_add_alpha_(i, x, one), CT_ERR_RUNTIME, TO_LONG);
    FAILS_NULL(ct_sub_alpha(NULL_T, x, one), "sub_alpha(): argument 'input' (position 1)");
    FAILS_NULL(ct_sub_alpha(x, NULL_T, one), "sub_alpha(): argument 'other' (position 2)");
    FAILS_T(ct_sub_alpha(i, i, ct_float(2.5)), CT_ERR_RUNTIME, ALPHA_FLOAT);
    FAILS_T(ct_sub_alpha(input(BOOL), x, one), CT_ERR_RUNTIME, ONE_BOOL);
    FAILS_NULL_R(ct_sub_alpha_(NULL_T, x, one), "sub_alpha_(): argument 'input' (position 1)");
    FAILS_NULL_R(ct_sub_alpha_(x, NULL_T, one), "sub_alpha_(): argument 'other' (position 2)");
    FAILS_INPLACE(i, ct_sub_alpha_(i, i, ct_float(2.5)), CT_ERR_RUNTIME, ALPHA_FLOAT);
    FAILS_INPLACE(x, ct_sub_alpha_(x, four(F32), one), CT_ERR_RUNTIME, SIZE_3_4);
    /* a rounding mode that is none of the three fails as PyTorch fails for a bad string */
    const char *bad_mode_msg = "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 7";
    FAILS_NULL(ct_div_mode(NULL_T, x, CT_ROUNDING_FLOOR), "div_mode(): argument 'input' (position 1)");
    FAILS_NULL(ct_div_mode(x, NULL_T, CT_ROUNDING_FLOOR), "div_mode(): argument 'other' (position 2)");
    FAILS_T(ct_div_mode(x, x, bad_mode), CT_ERR_RUNTIME, bad_mode_msg);
    FAILS_T(ct_div_mode(i, z, CT_ROUNDING_TRUNC), CT_ERR_RUNTIME, "ZeroDivisionError");
    FAILS_T(ct_div_mode(input(BOOL), input(BOOL), CT_ROUNDING_TRUNC), CT_ERR_RUNTIME, NOT_FOR("div_trunc_cpu", "Bool"));
    FAILS_T(ct_div_mode(x, four(F32), CT_ROUNDING_TRUNC), CT_ERR_RUNTIME, SIZE_3_4);
    FAILS_NULL(ct_div_mode_scalar(NULL_T, one, CT_ROUNDING_FLOOR), "div_mode_scalar(): argument 'input' (position 1)");
    FAILS_T(ct_div_mode_scalar(x, one, bad_mode), CT_ERR_RUNTIME, bad_mode_msg);
    FAILS_T(ct_div_mode_scalar(i, ct_int(0), CT_ROUNDING_FLOOR), CT_ERR_RUNTIME, "ZeroDivisionError");
    FAILS_NULL_R(ct_div_mode_(NULL_T, x, CT_ROUNDING_FLOOR), "div_mode_(): argument 'input' (position 1)");
    FAILS_NULL_R(ct_div_mode_(x, NULL_T, CT_ROUNDING_FLOOR), "div_mode_(): argument 'other' (position 2)");
    FAILS_INPLACE(x, ct_div_mode_(x, x, bad_mode), CT_ERR_RUNTIME, bad_mode_msg);
    FAILS_INPLACE(i, ct_div_mode_(i, z, CT_ROUNDING_TRUNC), CT_ERR_RUNTIME, "ZeroDivisionError");
    FAILS_INPLACE(i, ct_div_mode_(i, x, CT_ROUNDING_FLOOR), CT_ERR_RUNTIME, TO_LONG);
    FAILS_NULL_R(ct_div_mode_scalar_(NULL_T, one, CT_ROUNDING_FLOOR), "div_mode_scalar_(): argument 'input' (position 1)");
    FAILS_INPLACE(x, ct_div_mode_scalar_(x, one, bad_mode), CT_ERR_RUNTIME, bad_mode_msg);
    FAILS_INPLACE(i, ct_div_mode_scalar_(i, ct_int(0), CT_ROUNDING_TRUNC), CT_ERR_RUNTIME, "ZeroDivisionError");
    FAILS_INPLACE(i, ct_div_mode_scalar_(i, ct_float(2.5), CT_ROUNDING_FLOOR), CT_ERR_RUNTIME, TO_LONG);
}

static void test_ternary_functions(void)
{
    ct_tensor *x = input(F32), *i = input(I64), *b = input(BOOL), *d = input(F64), *w = four(F32);
    const ct_scalar one = ct_int(1);
    FAILS_NULL(ct_addcmul(NULL_T, x, x, one), "addcmul(): argument 'input' (position 1)");
    FAILS_NULL(ct_addcmul(x, NULL_T, x, one), "addcmul(): argument 'tensor1' (position 2)");
    FAILS_NULL(ct_addcmul(x, x, NULL_T, one), "addcmul(): argument 'tensor2' (position 3)");
    FAILS_T(ct_addcmul(b, b, b, one), CT_ERR_RUNTIME, NOT_FOR("addcmul_cpu_out", "Bool"));
    FAILS_T(ct_addcmul(x, x, w, one), CT_ERR_RUNTIME, SIZE_3_4);
    FAILS_T(ct_addcmul(x, x, x, ct_float(1e300)), CT_ERR_RUNTIME, "value cannot be converted to type float without overflow");
    FAILS_NULL_R(ct_addcmul_(NULL_T, x, x, one), "addcmul_(): argument 'input' (position 1)");
    FAILS_NULL_R(ct_addcmul_(x, NULL_T, x, one), "addcmul_(): argument 'tensor1' (position 2)");
    FAILS_NULL_R(ct_addcmul_(x, x, NULL_T, one), "addcmul_(): argument 'tensor2' (position 3)");
    FAILS_INPLACE(i, ct_addcmul_(i, x, x, one), CT_ERR_RUNTIME, TO_LONG);
    FAILS_NULL(ct_addcdiv(NULL_T, x, x, one), "addcdiv(): argument 'input' (position 1)");
    FAILS_NULL(ct_addcdiv(x, NULL_T, x, one), "addcdiv(): argument 'tensor1' (position 2)");
    FAILS_NULL(ct_addcdiv(x, x, NULL_T, one), "addcdiv(): argument 'tensor2' (position 3)");
    FAILS_T(ct_addcdiv(i, i, i, one), CT_ERR_RUNTIME, ADDCDIV_INT);
    FAILS_T(ct_addcdiv(w, x, x, one), CT_ERR_RUNTIME,
            "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1");
    FAILS_NULL_R(ct_addcdiv_(NULL_T, x, x, one), "addcdiv_(): argument 'input' (position 1)");
    FAILS_NULL_R(ct_addcdiv_(x, NULL_T, x, one), "addcdiv_(): argument 'tensor1' (position 2)");
    FAILS_NULL_R(ct_addcdiv_(x, x, NULL_T, one), "addcdiv_(): argument 'tensor2' (position 3)");
    FAILS_INPLACE(i, ct_addcdiv_(i, i, i, one), CT_ERR_RUNTIME, ADDCDIV_INT);
    w = ct_ones(CT_SHAPE(3), CT_F32);
    FAILS_INPLACE(w, ct_addcdiv_(w, x, x, one), CT_ERR_RUNTIME,
                  "output with shape [3] doesn't match the broadcast shape [2, 3]");
    /* lerp does not promote: every tensor must have start's dtype */
    FAILS_NULL(ct_lerp(NULL_T, x, x), "lerp(): argument 'input' (position 1)");
    FAILS_NULL(ct_lerp(x, NULL_T, x), "lerp(): argument 'end' (position 2)");
    FAILS_NULL(ct_lerp(x, x, NULL_T), "lerp(): argument 'weight' (position 3)");
    FAILS_T(ct_lerp(x, d, x), CT_ERR_RUNTIME, "expected dtype float for `end` but got dtype double");
    FAILS_T(ct_lerp(x, x, d), CT_ERR_RUNTIME, "expected dtype float for `weight` but got dtype double");
    FAILS_T(ct_lerp(i, i, i), CT_ERR_RUNTIME, NOT_FOR("lerp_kernel_tensor", "Long"));
    FAILS_T(ct_lerp(x, x, four(F32)), CT_ERR_RUNTIME, SIZE_3_4);
    FAILS_NULL_R(ct_lerp_(NULL_T, x, x), "lerp_(): argument 'input' (position 1)");
    FAILS_NULL_R(ct_lerp_(x, NULL_T, x), "lerp_(): argument 'end' (position 2)");
    FAILS_NULL_R(ct_lerp_(x, x, NULL_T), "lerp_(): argument 'weight' (position 3)");
    FAILS_INPLACE(i, ct_lerp_(i, i, i), CT_ERR_RUNTIME, NOT_FOR("lerp_kernel_tensor", "Long"));
    FAILS_INPLACE(x, ct_lerp_(x, d, x), CT_ERR_RUNTIME, "expected dtype float for `end` but got dtype double");
    FAILS_NULL(ct_lerp_scalar(NULL_T, x, ct_float(0.5)), "lerp_scalar(): argument 'input' (position 1)");
    FAILS_NULL(ct_lerp_scalar(x, NULL_T, ct_float(0.5)), "lerp_scalar(): argument 'end' (position 2)");
    FAILS_T(ct_lerp_scalar(i, i, ct_float(0.5)), CT_ERR_RUNTIME, NOT_FOR("lerp_kernel_scalar", "Long"));
    FAILS_T(ct_lerp_scalar(x, d, ct_float(0.5)), CT_ERR_RUNTIME, "expected dtype float for `end` but got dtype double");
    FAILS_NULL_R(ct_lerp_scalar_(NULL_T, x, ct_float(0.5)), "lerp_scalar_(): argument 'input' (position 1)");
    FAILS_NULL_R(ct_lerp_scalar_(x, NULL_T, ct_float(0.5)), "lerp_scalar_(): argument 'end' (position 2)");
    FAILS_INPLACE(i, ct_lerp_scalar_(i, i, ct_float(0.5)), CT_ERR_RUNTIME, NOT_FOR("lerp_kernel_scalar", "Long"));
    w = ct_ones(CT_SHAPE(3), CT_F32);
    FAILS_INPLACE(w, ct_lerp_scalar_(w, x, ct_float(0.5)), CT_ERR_RUNTIME,
                  "output with shape [3] doesn't match the broadcast shape [2, 3]");
    /* where: a bool (or uint8) condition */
    const char *cond = "where expected condition to be a boolean tensor, but got a tensor with dtype Float";
    FAILS_NULL(ct_where(NULL_T, x, x), "where(): argument 'condition' (position 1)");
    FAILS_NULL(ct_where(b, NULL_T, x), "where(): argument 'input' (position 2)");
    FAILS_NULL(ct_where(b, x, NULL_T), "where(): argument 'other' (position 3)");
    FAILS_T(ct_where(x, x, x), CT_ERR_RUNTIME, cond);
    FAILS_T(ct_where(b, x, four(F32)), CT_ERR_RUNTIME, SIZE_3_4);
    FAILS_NULL(ct_where_scalar_other(NULL_T, x, one), "where_scalar_other(): argument 'condition' (position 1)");
    FAILS_NULL(ct_where_scalar_other(b, NULL_T, one), "where_scalar_other(): argument 'input' (position 2)");
    FAILS_T(ct_where_scalar_other(x, x, one), CT_ERR_RUNTIME, cond);
    FAILS_NULL(ct_where_scalar_self(NULL_T, one, x), "where_scalar_self(): argument 'condition' (position 1)");
    FAILS_NULL(ct_where_scalar_self(b, one, NULL_T), "where_scalar_self(): argument 'other' (position 3)");
    FAILS_T(ct_where_scalar_self(x, one, x), CT_ERR_RUNTIME, cond);
    FAILS_NULL(ct_where_scalar(NULL_T, one, one), "where_scalar(): argument 'condition' (position 1)");
    FAILS_T(ct_where_scalar(x, one, one), CT_ERR_RUNTIME, cond);
    FAILS_T(ct_where_scalar_other(b, input(U8), ct_int(300)), CT_ERR_RUNTIME,
            "value cannot be converted to type uint8_t without overflow");
}

static void test_clamps(void)
{
    ct_tensor *x = input(F32), *i = input(I64), *b = input(BOOL), *u = input(U8);
    const char *u8_300 = "value cannot be converted to type uint8_t without overflow";
    FAILS_NULL(ct_clamp(NULL_T, x, x), "clamp(): argument 'input' (position 1)");
    FAILS_NULL(ct_clamp(x, NULL_T, x), "clamp(): argument 'min' (position 2)");
    FAILS_NULL(ct_clamp(x, x, NULL_T), "clamp(): argument 'max' (position 3)");
    FAILS_T(ct_clamp(b, b, b), CT_ERR_RUNTIME, NOT_FOR("clamp_cpu", "Bool"));
    FAILS_T(ct_clamp(x, x, four(F32)), CT_ERR_RUNTIME, SIZE_3_4);
    FAILS_NULL_R(ct_clamp_(NULL_T, x, x), "clamp_(): argument 'input' (position 1)");
    FAILS_NULL_R(ct_clamp_(x, NULL_T, x), "clamp_(): argument 'min' (position 2)");
    FAILS_NULL_R(ct_clamp_(x, x, NULL_T), "clamp_(): argument 'max' (position 3)");
    FAILS_INPLACE(i, ct_clamp_(i, x, x), CT_ERR_RUNTIME, TO_LONG);
    FAILS_NULL(ct_clamp_scalar(NULL_T, ct_int(0), ct_int(1)), "clamp_scalar(): argument 'input' (position 1)");
    FAILS_T(ct_clamp_scalar(u, ct_int(0), ct_int(300)), CT_ERR_RUNTIME, u8_300);
    FAILS_T(ct_clamp_scalar(b, ct_bool(false), ct_bool(true)), CT_ERR_RUNTIME, NOT_FOR("clamp_scalar_cpu", "Bool"));
    FAILS_NULL_R(ct_clamp_scalar_(NULL_T, ct_int(0), ct_int(1)), "clamp_scalar_(): argument 'input' (position 1)");
    FAILS_INPLACE(u, ct_clamp_scalar_(u, ct_int(0), ct_int(300)), CT_ERR_RUNTIME, u8_300);
    FAILS_INPLACE(i, ct_clamp_scalar_(i, ct_float(0.5), ct_float(1.5)), CT_ERR_RUNTIME,
                  "result type Float can't be cast to the desired output type long int");
    FAILS_INPLACE(b, ct_clamp_scalar_(b, ct_bool(false), ct_bool(true)), CT_ERR_RUNTIME,
                  NOT_FOR("clamp_scalar_cpu", "Bool"));
    /* hardtanh and relu6 are clamps with number bounds */
    FAILS_NULL(ct_hardtanh(NULL_T, -1, 1), "hardtanh(): argument 'input' (position 1)");
    FAILS_T(ct_hardtanh(b, -1, 1), CT_ERR_RUNTIME, "Bool inputs not supported for hardtanh");
    FAILS_T(ct_hardtanh(u, -1, 1), CT_ERR_RUNTIME, "cannot do hardtanh on an unsigned type with negative limits");
    FAILS_T(ct_hardtanh(i, -1e300, 1), CT_ERR_RUNTIME, "value cannot be converted to type int64_t without overflow");
    FAILS_NULL_R(ct_hardtanh_(NULL_T, -1, 1), "hardtanh_(): argument 'input' (position 1)");
    FAILS_INPLACE(u, ct_hardtanh_(u, -1, 1), CT_ERR_RUNTIME, "cannot do hardtanh on an unsigned type with negative limits");
    FAILS_INPLACE(i, ct_hardtanh_(i, -1e300, 1), CT_ERR_RUNTIME, "value cannot be converted to type int64_t without overflow");
}

static void test_unary_with_options(void)
{
    ct_tensor *x = input(F32), *i = input(I64);
    ct_elu_opts elu = ct_elu_opts_init();
    ct_nan_to_num_opts nan_opts;
    memset(&nan_opts, 0, sizeof nan_opts);
    FAILS_NULL(ct_normalize(NULL_T, 2, 1, 1e-12), "normalize(): argument 'input' (position 1)");
    FAILS_T(ct_normalize(x, 2, 5, 1e-12), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
    FAILS_T(ct_normalize(i, 2, 1, 1e-12), CT_ERR_RUNTIME,
            "norm(): input dtype should be either floating point or complex. Got Long instead.");
    FAILS_NULL(ct_polygamma(1, NULL_T), "polygamma(): argument 'input' (position 2)");
    FAILS_T(ct_polygamma(-1, x), CT_ERR_RUNTIME, "polygamma(n, x) does not support negative n.");
    FAILS_NULL_R(ct_polygamma_(NULL_T, 1), "polygamma_(): argument 'input' (position 1)");
    FAILS_INPLACE(x, ct_polygamma_(x, -1), CT_ERR_RUNTIME, "polygamma(n, x) does not support negative n.");
    FAILS_NULL(ct_round_decimals(NULL_T, 2), "round_decimals(): argument 'input' (position 1)");
    FAILS_T(ct_round_decimals(i, 2), CT_ERR_RUNTIME, NOT_FOR("round_cpu", "Long"));
    FAILS_NULL_R(ct_round_decimals_(NULL_T, 2), "round_decimals_(): argument 'input' (position 1)");
    FAILS_INPLACE(i, ct_round_decimals_(i, 2), CT_ERR_RUNTIME, NOT_FOR("round_cpu", "Long"));
    x = leaf();
    FAILS_INPLACE(x, ct_round_decimals_(x, 1), CT_ERR_RUNTIME, LEAF);
    FAILS_NULL(ct_logit_eps(NULL_T, 0.1), "logit_eps(): argument 'input' (position 1)");
    FAILS_NULL_R(ct_logit_eps_(NULL_T, 0.1), "logit_eps_(): argument 'input' (position 1)");
    FAILS_INPLACE(i, ct_logit_eps_(i, 0.1), CT_ERR_RUNTIME, TO_LONG);
    FAILS_NULL(ct_leaky_relu(NULL_T, 0.1), "leaky_relu(): argument 'input' (position 1)");
    FAILS_T(ct_leaky_relu(i, 0.1), CT_ERR_RUNTIME, NOT_FOR("leaky_relu_cpu", "Long"));
    FAILS_NULL_R(ct_leaky_relu_(NULL_T, 0.1), "leaky_relu_(): argument 'input' (position 1)");
    FAILS_INPLACE(i, ct_leaky_relu_(i, 0.1), CT_ERR_RUNTIME, NOT_FOR("leaky_relu_cpu", "Long"));
    FAILS_NULL(ct_elu(NULL_T, elu), "elu(): argument 'input' (position 1)");
    FAILS_T(ct_elu(i, elu), CT_ERR_RUNTIME, NOT_FOR("elu_cpu", "Long"));
    FAILS_NULL_R(ct_elu_(NULL_T, elu), "elu_(): argument 'input' (position 1)");
    FAILS_INPLACE(i, ct_elu_(i, elu), CT_ERR_RUNTIME, NOT_FOR("elu_cpu", "Long"));
    FAILS_NULL(ct_celu(NULL_T, 1), "celu(): argument 'input' (position 1)");
    FAILS_T(ct_celu(x, 0), CT_ERR_RUNTIME, "ZeroDivisionError: alpha cannot be 0 for CELU");
    FAILS_T(ct_celu(i, 1), CT_ERR_RUNTIME, NOT_FOR("elu_cpu", "Long"));
    FAILS_NULL_R(ct_celu_(NULL_T, 1), "celu_(): argument 'input' (position 1)");
    FAILS_INPLACE(x, ct_celu_(x, 0), CT_ERR_RUNTIME, "ZeroDivisionError: alpha cannot be 0 for CELU");
    FAILS_NULL(ct_gelu(NULL_T, CT_GELU_NONE), "gelu(): argument 'input' (position 1)");
    FAILS_T(ct_gelu(x, (ct_gelu_approximate)7), CT_ERR_RUNTIME, "approximate argument must be either none or tanh.");
    FAILS_T(ct_gelu(i, CT_GELU_TANH), CT_ERR_RUNTIME, NOT_FOR("GeluKernelImpl", "Long"));
    FAILS_NULL(ct_threshold_backward(NULL_T, x, ct_int(0)), "threshold_backward(): argument 'grad_output' (position 1)");
    FAILS_NULL(ct_threshold_backward(x, NULL_T, ct_int(0)), "threshold_backward(): argument 'self' (position 2)");
    FAILS_T(ct_threshold_backward(input(U8), input(U8), ct_int(300)), CT_ERR_RUNTIME,
            "value cannot be converted to type uint8_t without overflow");
    FAILS_T(ct_threshold_backward(input(BOOL), input(BOOL), ct_int(0)), CT_ERR_RUNTIME, NOT_FOR("threshold_cpu", "Bool"));
    FAILS_NULL(ct_tanh_backward(NULL_T, x), "tanh_backward(): argument 'grad_output' (position 1)");
    FAILS_NULL(ct_tanh_backward(x, NULL_T), "tanh_backward(): argument 'output' (position 2)");
    FAILS_T(ct_tanh_backward(i, i), CT_ERR_RUNTIME, NOT_FOR("tanh_backward_cpu", "Long"));
    FAILS_NULL(ct_sigmoid_backward(NULL_T, x), "sigmoid_backward(): argument 'grad_output' (position 1)");
    FAILS_NULL(ct_sigmoid_backward(x, NULL_T), "sigmoid_backward(): argument 'output' (position 2)");
    FAILS_T(ct_sigmoid_backward(i, i), CT_ERR_RUNTIME, NOT_FOR("sigmoid_backward_cpu", "Long"));
    FAILS_NULL(ct_gelu_backward(NULL_T, x, CT_GELU_NONE), "gelu_backward(): argument 'grad_output' (position 1)");
    FAILS_NULL(ct_gelu_backward(x, NULL_T, CT_GELU_NONE), "gelu_backward(): argument 'self' (position 2)");
    FAILS_T(ct_gelu_backward(x, x, (ct_gelu_approximate)7), CT_ERR_RUNTIME,
            "approximate argument must be either none or tanh.");
    FAILS_T(ct_gelu_backward(i, i, CT_GELU_NONE), CT_ERR_RUNTIME, NOT_FOR("GeluBackwardKernelImpl", "Long"));
    FAILS_NULL(ct_softplus(NULL_T, ct_softplus_opts_init()), "softplus(): argument 'input' (position 1)");
    FAILS_T(ct_softplus(i, ct_softplus_opts_init()), CT_ERR_RUNTIME, NOT_FOR("softplus_cpu", "Long"));
    FAILS_NULL(ct_nan_to_num(NULL_T, nan_opts), "nan_to_num(): argument 'input' (position 1)");
    FAILS_NULL_R(ct_nan_to_num_(NULL_T, nan_opts), "nan_to_num_(): argument 'input' (position 1)");
    x = expanded(F32);
    FAILS_INPLACE(x, ct_nan_to_num_(x, nan_opts), CT_ERR_RUNTIME, OVERLAP);
    x = leaf();
    FAILS_INPLACE(x, ct_nan_to_num_(x, nan_opts), CT_ERR_RUNTIME, LEAF);
}

static void test_closeness(void)
{
    ct_tensor *x = input(F32), *i = input(I64);
    ct_isclose_opts o = ct_isclose_opts_init(), neg_rtol = o, neg_atol = o;
    neg_rtol.rtol = -1;
    neg_atol.atol = -1;
    FAILS_NULL(ct_isclose(NULL_T, x, o), "isclose(): argument 'input' (position 1)");
    FAILS_NULL(ct_isclose(x, NULL_T, o), "isclose(): argument 'other' (position 2)");
    FAILS_T(ct_isclose(x, i, o), CT_ERR_RUNTIME, "Float did not match Long");
    FAILS_T(ct_isclose(x, x, neg_rtol), CT_ERR_RUNTIME, "rtol must be greater than or equal to zero, but got -1");
    FAILS_T(ct_isclose(x, x, neg_atol), CT_ERR_RUNTIME, "atol must be greater than or equal to zero, but got -1");
    FAILS_T(ct_isclose(x, four(F32), o), CT_ERR_RUNTIME, SIZE_3_4);
    FAILS_B(ct_allclose(NULL_T, x, o), CT_ERR_TYPE, "allclose(): argument 'input' (position 1) must be Tensor, not NULL");
    FAILS_B(ct_allclose(x, NULL_T, o), CT_ERR_TYPE, "allclose(): argument 'other' (position 2) must be Tensor, not NULL");
    FAILS_B(ct_allclose(x, i, o), CT_ERR_RUNTIME, "Float did not match Long");
    FAILS_B(ct_allclose(x, four(F32), o), CT_ERR_RUNTIME, SIZE_3_4);
    FAILS_B(ct_equal(NULL_T, x), CT_ERR_TYPE, "equal(): argument 'input' (position 1) must be Tensor, not NULL");
    FAILS_B(ct_equal(x, NULL_T), CT_ERR_TYPE, "equal(): argument 'other' (position 2) must be Tensor, not NULL");
    /* tensors of other shapes or dtypes are not an error: they differ */
    CHECK(!ct_equal(x, four(F32)) && ct_last_error_code() == CT_OK);
}

/* ---------------------------------------------------------------- reductions, scans, softmax */

/* The pair outputs of a failed call are NULL, whatever they held before. */
#define CHECK_CLEARED(a, b) CHECK((a) == NULL && (b) == NULL)

/* Functions over a list of dims: NULL, a dim out of range, a dim given twice,
 * a list of a negative number of dims, and each one's own refusals. */
static void test_reductions_over_dims(void)
{
    ct_tensor *x = input(F32), *i = input(I64), *e = input(EMPTY);
    const ct_dtype bad = (ct_dtype)99;
    ct_shape negative = CT_DIMS(0);
    negative.ndim = -1;
    const char *negative_msg = "dim: ctorch supports at most 16 dimensions, got -1";
    FAILS_NULL(ct_sum_dim(NULL_T, CT_DIMS(0), false, CT_DEFAULT), "sum_dim(): argument 'input' (position 1)");
    FAILS_T(ct_sum_dim(x, CT_DIMS(5), false, CT_DEFAULT), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_sum_dim(x, CT_DIMS(0, -2), false, CT_DEFAULT), CT_ERR_RUNTIME, DUP0);
    FAILS_T(ct_sum_dim(x, negative, false, CT_DEFAULT), CT_ERR_VALUE, negative_msg);
    FAILS_T(ct_sum_dim(x, CT_DIMS(0), false, bad), CT_ERR_TYPE, "invalid dtype 99");
    FAILS_NULL(ct_nansum_dim(NULL_T, CT_DIMS(0), false, CT_DEFAULT), "nansum_dim(): argument 'input' (position 1)");
    FAILS_T(ct_nansum_dim(x, CT_DIMS(5), false, CT_DEFAULT), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_nansum_dim(x, CT_DIMS(0, -2), false, CT_DEFAULT), CT_ERR_RUNTIME, DUP0);
    FAILS_T(ct_nansum_dim(x, CT_DIMS(0), false, bad), CT_ERR_TYPE, "invalid dtype 99");
    FAILS_T(ct_nansum_dim(x, CT_DIMS(0), false, CT_I64), CT_ERR_RUNTIME, NOT_FOR("nansum_cpu", "Long"));
    FAILS_NULL(ct_mean_dim(NULL_T, CT_DIMS(0), false, CT_DEFAULT), "mean_dim(): argument 'input' (position 1)");
    FAILS_T(ct_mean_dim(x, CT_DIMS(5), false, CT_DEFAULT), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_mean_dim(x, CT_DIMS(0, -2), false, CT_DEFAULT), CT_ERR_RUNTIME, DUP0);
    FAILS_T(ct_mean_dim(x, CT_DIMS(0), false, bad), CT_ERR_TYPE, "invalid dtype 99");
    FAILS_T(ct_mean_dim(x, CT_DIMS(0), false, CT_I64), CT_ERR_RUNTIME,
            "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. "
            "Got: Long");
    FAILS_NULL(ct_amax(NULL_T, CT_DIMS(0), false), "amax(): argument 'input' (position 1)");
    FAILS_T(ct_amax(x, CT_DIMS(5), false), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_amax(x, CT_DIMS(0, -2), false), CT_ERR_RUNTIME, DUP0);
    FAILS_T(ct_amax(x, negative, false), CT_ERR_VALUE, negative_msg);
    FAILS_T(ct_amax(e, CT_SHAPE0, false), CT_ERR_RUNTIME,
            "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
            "'dim' argument.");
    FAILS_T(ct_amax(e, CT_DIMS(-2), false), CT_ERR_INDEX, "amax(): Expected reduction dim -2 to have non-zero size.");
    FAILS_NULL(ct_amin(NULL_T, CT_DIMS(0), false), "amin(): argument 'input' (position 1)");
    FAILS_T(ct_amin(x, CT_DIMS(5), false), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_amin(x, CT_DIMS(0, -2), false), CT_ERR_RUNTIME, DUP0);
    FAILS_T(ct_amin(e, CT_DIMS(0), true), CT_ERR_INDEX, "amin(): Expected reduction dim 0 to have non-zero size.");
    FAILS_NULL(ct_std_dim(NULL_T, CT_DIMS(0), 1, false), "std_dim(): argument 'input' (position 1)");
    FAILS_T(ct_std_dim(x, CT_DIMS(5), 1, false), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_std_dim(x, CT_DIMS(0, -2), 1, false), CT_ERR_RUNTIME, DUP0);
    FAILS_T(ct_std_dim(i, CT_DIMS(0), 1, false), CT_ERR_RUNTIME, "std and var only support floating point and complex dtypes");
    FAILS_NULL(ct_var_dim(NULL_T, CT_DIMS(0), 1, false), "var_dim(): argument 'input' (position 1)");
    FAILS_T(ct_var_dim(x, CT_DIMS(5), 1, false), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_var_dim(x, negative, 1, false), CT_ERR_VALUE, negative_msg);
    FAILS_T(ct_var_dim(i, CT_DIMS(0), 1, false), CT_ERR_RUNTIME, "std and var only support floating point and complex dtypes");
    FAILS_NULL(ct_logsumexp(NULL_T, CT_DIMS(0), false), "logsumexp(): argument 'input' (position 1)");
    FAILS_T(ct_logsumexp(x, CT_DIMS(5), false), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_logsumexp(x, CT_DIMS(0, -2), false), CT_ERR_RUNTIME, DUP0);
    FAILS_NULL(ct_count_nonzero(NULL_T, CT_DIMS(0)), "count_nonzero(): argument 'input' (position 1)");
    FAILS_T(ct_count_nonzero(x, CT_DIMS(5)), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_count_nonzero(x, CT_DIMS(0, 0)), CT_ERR_RUNTIME, DUP0);
    FAILS_T(ct_count_nonzero(x, negative), CT_ERR_VALUE, negative_msg);
}

static void test_norms(void)
{
    ct_tensor *x = input(F32), *i = input(I64);
    FAILS_NULL(ct_norm(NULL_T, 2), "norm(): argument 'input' (position 1)");
    FAILS_T(ct_norm(i, 2), CT_ERR_RUNTIME, "norm(): input dtype should be either floating point or complex. Got Long instead.");
    FAILS_NULL(ct_norm_dim(NULL_T, 2, CT_DIMS(0), false, CT_DEFAULT), "norm_dim(): argument 'input' (position 1)");
    FAILS_T(ct_norm_dim(x, 2, CT_DIMS(5), false, CT_DEFAULT), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_norm_dim(x, 2, CT_DIMS(0, -2), false, CT_DEFAULT), CT_ERR_RUNTIME, DUP0);
    FAILS_T(ct_norm_dim(x, 2, CT_DIMS(0), false, (ct_dtype)99), CT_ERR_TYPE, "invalid dtype 99");
    FAILS_T(ct_norm_dim(x, 2, CT_DIMS(0), false, CT_I64), CT_ERR_RUNTIME,
            "norm(): the desired output dtype should be either floating point or complex. Got Long instead.");
    FAILS_T(ct_norm_dim(i, 2, CT_DIMS(0), false, CT_DEFAULT), CT_ERR_RUNTIME,
            "norm(): input dtype should be either floating point or complex. Got Long instead.");
    FAILS_NULL(ct_norm_fro(NULL_T, CT_DIMS(0, 1), false), "norm_fro(): argument 'input' (position 1)");
    FAILS_T(ct_norm_fro(x, CT_DIMS(0, 1, 2), false), CT_ERR_RUNTIME, "Expected at most 2 dimensions, but got 3 dimensions instead.");
    FAILS_T(ct_norm_fro(x, CT_DIMS(0, -2), false), CT_ERR_RUNTIME, "Expected dims to be different, got [0, -2] instead");
    FAILS_T(ct_norm_fro(x, CT_DIMS(0, 5), false), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_norm_fro(x, CT_DIMS(5), false), CT_ERR_INDEX, DIM5);
}

/* Functions along one dim: NULL, the dim out of range, an empty dim, refused dtypes. */
static void test_reductions_along_a_dim(void)
{
    ct_tensor *x = input(F32), *b = input(BOOL), *e = input(EMPTY), *bf = input(BF16);
    ct_tensor *v = x, *ix = x;
    FAILS_NULL(ct_prod_dim(NULL_T, 0, false, CT_DEFAULT), "prod_dim(): argument 'input' (position 1)");
    FAILS_T(ct_prod_dim(x, 5, false, CT_DEFAULT), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_prod_dim(x, 0, false, (ct_dtype)99), CT_ERR_TYPE, "invalid dtype 99");
    FAILS_T(ct_prod_dim(bf, 0, false, CT_DEFAULT), CT_ERR_RUNTIME, NOT_FOR("prod_cpu", "BFloat16"));
    FAILS_NULL(ct_argmax_dim(NULL_T, 0, false), "argmax_dim(): argument 'input' (position 1)");
    FAILS_T(ct_argmax_dim(x, 5, false), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_argmax_dim(b, 0, false), CT_ERR_RUNTIME, NOT_FOR("argmax_cpu", "Bool"));
    FAILS_T(ct_argmax_dim(e, 0, false), CT_ERR_INDEX, "argmax(): Expected reduction dim 0 to have non-zero size.");
    FAILS_NULL(ct_argmin_dim(NULL_T, 0, false), "argmin_dim(): argument 'input' (position 1)");
    FAILS_T(ct_argmin_dim(x, 5, true), CT_ERR_INDEX, DIM5);
    FAILS_T(ct_argmin_dim(b, 0, false), CT_ERR_RUNTIME, NOT_FOR("argmin_cpu", "Bool"));
    FAILS_T(ct_argmin_dim(e, -2, false), CT_ERR_INDEX, "argmin(): Expected reduction dim 0 to have non-zero size.");
    FAILS_NULL(ct_all_dim(NULL_T, 0, false), "all_dim(): argument 'input' (position 1)");
    FAILS_T(ct_all_dim(x, 5, false), CT_ERR_INDEX, DIM5);
    FAILS_NULL(ct_any_dim(NULL_T, 0, false), "any_dim(): argument 'input' (position 1)");
    FAILS_T(ct_any_dim(x, 5, false), CT_ERR_INDEX, DIM5);
    /* values and indices */
    FAILS_NULL_R(ct_max_dim(NULL_T, 0, false, &v, &ix), "max_dim(): argument 'input' (position 1)");
    CHECK_CLEARED(v, ix);
    v = ix = x;
    FAILS_R(ct_max_dim(x, 5, false, &v, &ix), CT_ERR_INDEX, DIM5);
    CHECK_CLEARED(v, ix);
    FAILS_R(ct_max_dim(e, 0, false, &v, NULL), CT_ERR_INDEX, "max(): Expected reduction dim 0 to have non-zero size.");
    FAILS_NULL_R(ct_min_dim(NULL_T, 0, false, &v, &ix), "min_dim(): argument 'input' (position 1)");
    FAILS_R(ct_min_dim(x, 5, false, NULL, &ix), CT_ERR_INDEX, DIM5);
    FAILS_R(ct_min_dim(e, 0, true, &v, &ix), CT_ERR_INDEX, "min(): Expected reduction dim 0 to have non-zero size.");
    FAILS_NULL_R(ct_median_dim(NULL_T, 0, false, &v, &ix), "median_dim(): argument 'input' (position 1)");
    FAILS_R(ct_median_dim(x, 5, false, &v, &ix), CT_ERR_INDEX, DIM5);
    FAILS_R(ct_median_dim(b, 0, false, &v, &ix), CT_ERR_RUNTIME, NOT_FOR("median_out", "Bool"));
    FAILS_R(ct_median_dim(e, 0, false, &v, &ix), CT_ERR_INDEX, "median(): Expected reduction dim 0 to have non-zero size.");
    v = ix = x;
    FAILS_NULL_R(ct_mode(NULL_T, 0, false, &v, &ix), "mode(): argument 'input' (position 1)");
    CHECK_CLEARED(v, ix);
    FAILS_R(ct_mode(x, 5, false, &v, &ix), CT_ERR_INDEX, DIM5);
    FAILS_R(ct_mode(e, 0, false, &v, &ix), CT_ERR_INDEX, "mode(): Expected reduction dim 0 to have non-zero size.");
    /* std and var with their mean */
    v = ix = x;
    FAILS_NULL_R(ct_std_mean(NULL_T, CT_DIMS(0), 1, false, &v, &ix), "std_mean(): argument 'input' (position 1)");
    CHECK_CLEARED(v, ix);
    FAILS_R(ct_std_mean(x, CT_DIMS(5), 1, false, &v, &ix), CT_ERR_INDEX, DIM5);
    FAILS_R(ct_std_mean(x, CT_DIMS(0, -2), 1, false, &v, &ix), CT_ERR_RUNTIME, DUP0);
    FAILS_R(ct_std_mean(input(I64), CT_DIMS(0), 1, false, &v, &ix), CT_ERR_RUNTIME,
            "std_mean only support floating point and complex dtypes");
    FAILS_NULL_R(ct_var_mean(NULL_T, CT_DIMS(0), 1, false, &v, &ix), "var_mean(): argument 'input' (position 1)");
    FAILS_R(ct_var_mean(x, CT_DIMS(5), 1, false, &v, &ix), CT_ERR_INDEX, DIM5);
    FAILS_R(ct_var_mean(input(I64), CT_DIMS(0), 1, false, NULL, &ix), CT_ERR_RUNTIME,
            "var_mean only support floating point and complex dtypes");
    CHECK_CLEARED(v, ix);
}

static void test_scans_and_softmax(void)
{
    ct_tensor *x = input(F32), *i = input(I64), *v = x, *ix = x, *t;
    const char *dim2 = "Dimension out of range (expected to be in range of [-2, 1], but got 2)";
    FAILS_NULL(ct_cumsum(NULL_T, 0, CT_DEFAULT), "cumsum(): argument 'input' (position 1)");
    FAILS_T(ct_cumsum(x, 2, CT_DEFAULT), CT_ERR_INDEX, dim2);
    FAILS_T(ct_cumsum(x, 0, (ct_dtype)99), CT_ERR_TYPE, "invalid dtype 99");
    FAILS_T(ct_cumsum(x, 0, CT_BOOL), CT_ERR_RUNTIME, NOT_FOR("cumsum_out_cpu", "Bool"));
    FAILS_NULL(ct_cumprod(NULL_T, 0, CT_DEFAULT), "cumprod(): argument 'input' (position 1)");
    FAILS_T(ct_cumprod(x, 2, CT_DEFAULT), CT_ERR_INDEX, dim2);
    FAILS_T(ct_cumprod(x, 0, (ct_dtype)99), CT_ERR_TYPE, "invalid dtype 99");
    FAILS_T(ct_cumprod(input(BOOL), 0, CT_BOOL), CT_ERR_RUNTIME, NOT_FOR("cumprod_out_cpu", "Bool"));
    FAILS_NULL_R(ct_cumsum_(NULL_T, 0, CT_DEFAULT), "cumsum_(): argument 'self' (position 1)");
    FAILS_INPLACE(x, ct_cumsum_(x, 2, CT_DEFAULT), CT_ERR_INDEX, dim2);
    FAILS_INPLACE(x, ct_cumsum_(x, 0, CT_I64), CT_ERR_RUNTIME,
                  "Bad in-place call: input tensor dtype float and output tensor dtype long int should match");
    FAILS_INPLACE(x, ct_cumsum_(x, 0, (ct_dtype)99), CT_ERR_TYPE, "invalid dtype 99");
    t = input(BOOL);
    FAILS_INPLACE(t, ct_cumsum_(t, 0, CT_DEFAULT), CT_ERR_RUNTIME, NOT_FOR("cumsum_out_cpu", "Bool"));
    t = expanded(F32);
    FAILS_INPLACE(t, ct_cumsum_(t, 1, CT_DEFAULT), CT_ERR_RUNTIME, OVERLAP);
    t = leaf();
    FAILS_INPLACE(t, ct_cumsum_(t, 0, CT_DEFAULT), CT_ERR_RUNTIME, LEAF);
    FAILS_NULL_R(ct_cumprod_(NULL_T, 0, CT_DEFAULT), "cumprod_(): argument 'self' (position 1)");
    FAILS_INPLACE(x, ct_cumprod_(x, -3, CT_DEFAULT), CT_ERR_INDEX,
                  "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
    FAILS_INPLACE(x, ct_cumprod_(x, 0, CT_F64), CT_ERR_RUNTIME,
                  "Bad in-place call: input tensor dtype float and output tensor dtype double should match");
    t = expanded(F32);
    FAILS_INPLACE(t, ct_cumprod_(t, 0, CT_DEFAULT), CT_ERR_RUNTIME, OVERLAP);
    t = leaf();
    FAILS_INPLACE(t, ct_cumprod_(t, 0, CT_DEFAULT), CT_ERR_RUNTIME, LEAF);
    FAILS_NULL_R(ct_cummax(NULL_T, 0, &v, &ix), "cummax(): argument 'input' (position 1)");
    CHECK_CLEARED(v, ix);
    v = ix = x;
    FAILS_R(ct_cummax(x, 2, &v, &ix), CT_ERR_INDEX, dim2);
    CHECK_CLEARED(v, ix);
    FAILS_NULL_R(ct_cummin(NULL_T, 0, &v, &ix), "cummin(): argument 'input' (position 1)");
    FAILS_R(ct_cummin(x, -3, &v, NULL), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
    FAILS_NULL(ct_logcumsumexp(NULL_T, 0), "logcumsumexp(): argument 'input' (position 1)");
    FAILS_T(ct_logcumsumexp(x, 2), CT_ERR_INDEX, dim2);
    FAILS_T(ct_logcumsumexp(i, 0), CT_ERR_RUNTIME, NOT_FOR("logcumsumexp_out_cpu", "Long"));
    FAILS_NULL(ct_softmax(NULL_T, 0, CT_DEFAULT), "softmax(): argument 'input' (position 1)");
    FAILS_T(ct_softmax(x, 2, CT_DEFAULT), CT_ERR_INDEX, dim2);
    FAILS_T(ct_softmax(x, 1, (ct_dtype)99), CT_ERR_TYPE, "invalid dtype 99");
    FAILS_T(ct_softmax(i, 1, CT_DEFAULT), CT_ERR_RUNTIME, NOT_FOR("softmax_lastdim_kernel_impl", "Long"));
    FAILS_T(ct_softmax(x, 0, CT_I64), CT_ERR_RUNTIME, NOT_FOR("softmax_kernel_impl", "Long"));
    FAILS_NULL(ct_log_softmax(NULL_T, 0, CT_DEFAULT), "log_softmax(): argument 'input' (position 1)");
    FAILS_T(ct_log_softmax(x, 2, CT_DEFAULT), CT_ERR_INDEX, dim2);
    FAILS_T(ct_log_softmax(i, 1, CT_DEFAULT), CT_ERR_RUNTIME, NOT_FOR("log_softmax_lastdim_kernel_impl", "Long"));
    /* printing a named tuple needs both tensors; nothing is printed without them */
    ct_print_return_types("max", NULL_T, x);
    CHECK_ERR(0, CT_ERR_TYPE, "print_return_types(): argument 'values' (position 2) must be Tensor, not NULL");
    ct_print_return_types("max", x, NULL_T);
    CHECK_ERR(0, CT_ERR_TYPE, "print_return_types(): argument 'indices' (position 3) must be Tensor, not NULL");
}

/* ---------------------------------------------------------------- joining and splitting */

static const char *const DIM2 = "Dimension out of range (expected to be in range of [-2, 1], but got 2)";

/* Lists of tensors: NULL for the list and for an element, no tensors (a
 * negative count is no tensors), then each function's own refusals. */
static void test_joining(void)
{
    ct_tensor *x = input(F32), *s = ct_scalar_tensor(ct_int(1), CT_F32);
    ct_tensor *xs[2] = {x, x}, *with_null[2] = {x, NULL_T}, *scalars[2] = {s, s}, *out[2] = {x, x};
    ct_tensor *ranks[2] = {x, ct_zeros(CT_SHAPE(2, 3, 1), CT_F32)}, *widths[2] = {x, ct_zeros(CT_SHAPE(2, 4), CT_F32)};
    ct_tensor *rows[2] = {x, ct_zeros(CT_SHAPE(3, 4), CT_F32)}, *heights[2] = {x, ct_zeros(CT_SHAPE(3, 3), CT_F32)};
    ct_tensor *big = ct_expand(ct_zeros(CT_SHAPE(1), CT_F32), CT_SHAPE(INT64_C(1) << 62)), *bigs[3] = {big, big, big};
    const char *element = "expected Tensor as element 1 in argument 0, but got NULL";
    FAILS_T(ct_cat(NULL, 2, 0), CT_ERR_TYPE, "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not NULL");
    FAILS_T(ct_cat(with_null, 2, 0), CT_ERR_TYPE, element);
    FAILS_T(ct_cat(xs, 0, 0), CT_ERR_RUNTIME, "torch.cat(): expected a non-empty list of Tensors");
    FAILS_T(ct_cat(xs, -1, 0), CT_ERR_RUNTIME, "torch.cat(): expected a non-empty list of Tensors");
    FAILS_T(ct_cat(xs, 2, 2), CT_ERR_INDEX, DIM2);
    FAILS_T(ct_cat(scalars, 2, 0), CT_ERR_RUNTIME, "zero-dimensional tensor (at position 0) cannot be concatenated");
    FAILS_T(ct_cat(ranks, 2, 0), CT_ERR_RUNTIME, "Tensors must have same number of dimensions: got 2 and 3");
    FAILS_T(ct_cat(rows, 2, 0), CT_ERR_RUNTIME,
            "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in "
            "the list.");
    /* PyTorch's sum wraps to a negative size; ctorch says what happened */
    FAILS_T(ct_cat(bigs, 3, 0), CT_ERR_RUNTIME, "Storage size calculation overflowed with sizes=[4611686018427387904]");
    FAILS_T(ct_stack(NULL, 2, 0), CT_ERR_TYPE, "stack(): argument 'tensors' (position 1) must be tuple of Tensors, not NULL");
    FAILS_T(ct_stack(with_null, 2, 0), CT_ERR_TYPE, element);
    FAILS_T(ct_stack(xs, 0, 0), CT_ERR_RUNTIME, "stack expects a non-empty TensorList");
    FAILS_T(ct_stack(xs, -1, 0), CT_ERR_RUNTIME, "stack expects a non-empty TensorList");
    FAILS_T(ct_stack(xs, 2, 3), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    FAILS_T(ct_stack(widths, 2, 0), CT_ERR_RUNTIME,
            "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [2, 4] at entry 1");
    FAILS_T(ct_hstack(NULL, 2), CT_ERR_TYPE, "hstack(): argument 'tensors' (position 1) must be tuple of Tensors, not NULL");
    FAILS_T(ct_hstack(with_null, 2), CT_ERR_TYPE, element);
    FAILS_T(ct_hstack(xs, 0), CT_ERR_RUNTIME, "hstack expects a non-empty TensorList");
    FAILS_T(ct_hstack(heights, 2), CT_ERR_RUNTIME,
            "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in "
            "the list.");
    FAILS_T(ct_vstack(NULL, 2), CT_ERR_TYPE, "vstack(): argument 'tensors' (position 1) must be tuple of Tensors, not NULL");
    FAILS_T(ct_vstack(with_null, 2), CT_ERR_TYPE, element);
    FAILS_T(ct_vstack(xs, -1), CT_ERR_RUNTIME, "vstack expects a non-empty TensorList");
    FAILS_T(ct_vstack(widths, 2), CT_ERR_RUNTIME,
            "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in "
            "the list.");
    FAILS_R(ct_broadcast_tensors(NULL, 2, out), CT_ERR_TYPE,
            "broadcast_tensors(): argument 'tensors' (position 1) must be tuple of Tensors, not NULL");
    FAILS_R(ct_broadcast_tensors(with_null, 2, out), CT_ERR_TYPE, element);
    FAILS_R(ct_broadcast_tensors(xs, 2, NULL), CT_ERR_VALUE, "broadcast_tensors(): out is NULL");
    widths[1] = four(F32);
    FAILS_R(ct_broadcast_tensors(widths, 2, out), CT_ERR_RUNTIME, SIZE_3_4);
    CHECK(out[0] == x && out[1] == x); /* nothing written */
}

/* Splitting into views: the pieces go to an array whose room is checked
 * first, as Python's unpacking checks it; nothing is written on failure. */
static void test_splitting(void)
{
    ct_tensor *x = input(F32), *s = ct_scalar_tensor(ct_int(1), CT_F32), *out[3] = {x, x, x};
    ct_shape too_long = CT_SHAPE(1, 1);
    too_long.ndim = CT_MAX_DIMS + 1;
    FAILS_NULL_R(ct_split(NULL_T, 1, 0, out, 3), "split(): argument 'tensor' (position 1)");
    FAILS_R(ct_split(s, 1, 0, out, 3), CT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
    FAILS_R(ct_split(x, -1, 0, out, 3), CT_ERR_RUNTIME, "split expects split_size be non-negative, but got split_size=-1");
    FAILS_R(ct_split(x, 1, 2, out, 3), CT_ERR_INDEX, DIM2);
    FAILS_R(ct_split(x, 0, 0, out, 3), CT_ERR_RUNTIME,
            "split_size can only be 0 if dimension size is 0, but got dimension size of 2");
    FAILS_R(ct_split(x, 1, 0, out, 1), CT_ERR_VALUE, "too many values to unpack (expected 1)");
    FAILS_R(ct_split(x, 1, 0, out, -1), CT_ERR_VALUE, "too many values to unpack (expected -1)");
    FAILS_NULL_R(ct_split_with_sizes(NULL_T, CT_SHAPE(1, 1), 0, out, 3), "split_with_sizes(): argument 'input' (position 1)");
    FAILS_R(ct_split_with_sizes(s, CT_SHAPE(1), 0, out, 3), CT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
    FAILS_R(ct_split_with_sizes(x, CT_SHAPE(3, -1), 1, out, 3), CT_ERR_RUNTIME,
            "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[3, -1]");
    FAILS_R(ct_split_with_sizes(x, CT_SHAPE(1, 1), -1, out, 3), CT_ERR_RUNTIME,
            "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension -1), but got "
            "split_sizes=[1, 1]");
    FAILS_R(ct_split_with_sizes(x, CT_SHAPE(1, 1), 2, out, 3), CT_ERR_INDEX, DIM2);
    FAILS_R(ct_split_with_sizes(x, too_long, 0, out, 3), CT_ERR_VALUE, "split_with_sizes: ctorch takes at most 16 sizes");
    FAILS_R(ct_split_with_sizes(x, CT_SHAPE(1, 1, 1), 1, out, 2), CT_ERR_VALUE, "too many values to unpack (expected 2)");
    FAILS_NULL_R(ct_chunk(NULL_T, 2, 0, out, 3), "chunk(): argument 'input' (position 1)");
    FAILS_R(ct_chunk(s, 1, 0, out, 3), CT_ERR_RUNTIME, "chunk expects at least a 1-dimensional tensor");
    FAILS_R(ct_chunk(x, 0, 0, out, 3), CT_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: 0");
    FAILS_R(ct_chunk(x, -1, 0, out, 3), CT_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: -1");
    FAILS_R(ct_chunk(x, 1, 2, out, 3), CT_ERR_INDEX, DIM2);
    FAILS_R(ct_chunk(x, 3, 1, out, 2), CT_ERR_VALUE, "too many values to unpack (expected 2)");
    FAILS_NULL_R(ct_unbind(NULL_T, 0, out, 3), "unbind(): argument 'input' (position 1)");
    FAILS_R(ct_unbind(s, 0, out, 3), CT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    FAILS_R(ct_unbind(x, 2, out, 3), CT_ERR_INDEX, DIM2);
    FAILS_R(ct_unbind(x, 1, out, 2), CT_ERR_VALUE, "too many values to unpack (expected 2)");
    CHECK(out[0] == x && out[1] == x && out[2] == x); /* nothing written */
}

static void test_repeating_flipping_rolling(void)
{
    ct_tensor *x = input(F32), *i = input(I64);
    ct_shape too_long = CT_SHAPE(1, 1);
    too_long.ndim = CT_MAX_DIMS + 1;
    const int64_t big = INT64_C(1) << 62;
    const char *rep_size = "repeats must have the same size as input along dim";
    FAILS_NULL(ct_repeat(NULL_T, CT_SHAPE(2, 2)), "repeat(): argument 'self' (position 1)");
    FAILS_T(ct_repeat(x, CT_SHAPE(2)), CT_ERR_RUNTIME,
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    FAILS_T(ct_repeat(x, CT_SHAPE(2, -1)), CT_ERR_RUNTIME, "Trying to create tensor with negative dimension -3: [4, -3]");
    FAILS_T(ct_repeat(x, too_long), CT_ERR_VALUE, "repeat: ctorch supports at most 16 dimensions");
    /* PyTorch's product wraps (and it reports a SymInt); ctorch says what happened */
    FAILS_T(ct_repeat(x, CT_SHAPE(big, big)), CT_ERR_RUNTIME,
            "Storage size calculation overflowed with sizes=[4611686018427387904, 4611686018427387904]");
    FAILS_NULL(ct_tile(NULL_T, CT_SHAPE(2)), "tile(): argument 'input' (position 1)");
    FAILS_T(ct_tile(x, CT_SHAPE(-1)), CT_ERR_RUNTIME, "Trying to create tensor with negative dimension -3: [2, -3]");
    FAILS_T(ct_tile(x, too_long), CT_ERR_VALUE, "repeat: ctorch supports at most 16 dimensions");
    FAILS_NULL(ct_repeat_interleave(NULL_T, 2), "repeat_interleave(): argument 'input' (position 1)");
    FAILS_T(ct_repeat_interleave(x, -1), CT_ERR_RUNTIME, "repeats can not be negative");
    FAILS_NULL(ct_repeat_interleave_dim(NULL_T, 2, 0), "repeat_interleave_dim(): argument 'input' (position 1)");
    FAILS_T(ct_repeat_interleave_dim(x, 2, 2), CT_ERR_INDEX, DIM2);
    FAILS_T(ct_repeat_interleave_dim(x, -1, 0), CT_ERR_RUNTIME, "repeats can not be negative");
    FAILS_NULL(ct_repeat_interleave_tensor(NULL_T, i), "repeat_interleave_tensor(): argument 'input' (position 1)");
    FAILS_NULL(ct_repeat_interleave_tensor(x, NULL_T), "repeat_interleave_tensor(): argument 'repeats' (position 2)");
    FAILS_T(ct_repeat_interleave_tensor(x, ct_ones(CT_SHAPE(6), CT_F32)), CT_ERR_RUNTIME,
            NOT_FOR("repeat_interleave_cpu", "Float"));
    FAILS_T(ct_repeat_interleave_tensor(x, ct_ones(CT_SHAPE(2), CT_I64)), CT_ERR_RUNTIME, rep_size);
    FAILS_T(ct_repeat_interleave_tensor(x, ct_ones(CT_SHAPE(2, 3), CT_I64)), CT_ERR_RUNTIME,
            "repeats must be 0-dim or 1-dim tensor");
    FAILS_T(ct_repeat_interleave_tensor(x, ct_full(CT_SHAPE(6), ct_int(-1), CT_I64)), CT_ERR_RUNTIME,
            "repeats can not be negative");
    FAILS_NULL(ct_repeat_interleave_tensor_dim(NULL_T, i, 0), "repeat_interleave_tensor_dim(): argument 'input' (position 1)");
    FAILS_NULL(ct_repeat_interleave_tensor_dim(x, NULL_T, 0),
               "repeat_interleave_tensor_dim(): argument 'repeats' (position 2)");
    FAILS_T(ct_repeat_interleave_tensor_dim(x, ct_ones(CT_SHAPE(3), CT_I64), 0), CT_ERR_RUNTIME, rep_size);
    FAILS_T(ct_repeat_interleave_tensor_dim(x, ct_ones(CT_SHAPE(2), CT_I64), 2), CT_ERR_INDEX, DIM2);
    FAILS_T(ct_repeat_interleave_index(ct_ones(CT_SHAPE(2, 2), CT_I64)), CT_ERR_RUNTIME,
            "repeat_interleave only accept 1D vector as repeat");
    FAILS_T(ct_repeat_interleave_index(ct_full(CT_SHAPE(2), ct_int(-1), CT_I64)), CT_ERR_RUNTIME,
            "repeats can not be negative");
    FAILS_NULL(ct_flip(NULL_T, CT_DIMS(0)), "flip(): argument 'input' (position 1)");
    FAILS_T(ct_flip(x, CT_DIMS(0, -2)), CT_ERR_RUNTIME, DUP0);
    FAILS_T(ct_flip(x, CT_DIMS(2)), CT_ERR_INDEX, DIM2);
    FAILS_T(ct_flip(x, too_long), CT_ERR_VALUE, "flip: ctorch takes at most 16 dims");
    FAILS_NULL(ct_roll(NULL_T, CT_SHAPE(1), CT_DIMS(0)), "roll(): argument 'input' (position 1)");
    FAILS_T(ct_roll(x, CT_SHAPE0, CT_SHAPE0), CT_ERR_RUNTIME, "`shifts` required");
    FAILS_T(ct_roll(x, CT_SHAPE(1, 2), CT_DIMS(0)), CT_ERR_RUNTIME, "shifts and dimensions must align. shifts: 2, dims:1");
    FAILS_T(ct_roll(x, CT_SHAPE(1), CT_DIMS(2)), CT_ERR_INDEX, DIM2);
    FAILS_T(ct_roll(x, too_long, too_long), CT_ERR_VALUE, "roll: ctorch takes at most 16 dims");
}

/* ---------------------------------------------------------------- gather, scatter and index ops */

static const char *const BOUNDS5 = "index 5 is out of bounds for dimension 0 with size 2";

static void test_gather(void)
{
    ct_tensor *x = input(F32), *ix = ct_full(CT_SHAPE(1, 1), ct_int(0), CT_I64);
    FAILS_NULL(ct_gather(NULL_T, 0, ix), "gather(): argument 'input' (position 1)");
    FAILS_NULL(ct_gather(x, 0, NULL_T), "gather(): argument 'index' (position 3)");
    FAILS_T(ct_gather(x, 0, ct_to(ix, CT_I32)), CT_ERR_RUNTIME, "gather(): Expected dtype int64 for index");
    FAILS_T(ct_gather(x, 0, ct_zeros(CT_SHAPE(1), CT_I64)), CT_ERR_RUNTIME,
            "Index tensor must have the same number of dimensions as input tensor");
    FAILS_T(ct_gather(x, 0, ct_full(CT_SHAPE(1, 1), ct_int(5), CT_I64)), CT_ERR_RUNTIME, BOUNDS5);
    FAILS_T(ct_gather(x, 0, ct_full(CT_SHAPE(1, 1), ct_int(-1), CT_I64)), CT_ERR_RUNTIME,
            "index -1 is out of bounds for dimension 0 with size 2");
    FAILS_T(ct_gather(x, 2, ix), CT_ERR_INDEX, DIM2);
    FAILS_T(ct_gather(x, 0, ct_zeros(CT_SHAPE(1, 4), CT_I64)), CT_ERR_RUNTIME,
            "Size does not match at dimension 1 expected index [1, 4] to be smaller than self [2, 3] apart from "
            "dimension 0");
}

/* The scatter forms, by what they scatter (a tensor or a number) and how
 * (replacing, with a reduce string, adding). In place, nothing may be
 * written before every index is known good. */
static void test_scatter(void)
{
    ct_tensor *x = input(F32), *ix = ct_zeros(CT_SHAPE(1, 1), CT_I64), *oob = ct_full(CT_SHAPE(1, 1), ct_int(5), CT_I64);
    ct_tensor *i32 = ct_to(ix, CT_I32), *d = input(F64), *src = input(F32), *t;
    const ct_scalar one = ct_float(1);
    const char *i64 = "scatter(): Expected dtype int64 for index", *same = "scatter(): Expected self.dtype to be equal to src.dtype";
    const char *reduce = "reduce argument must be either add or multiply.";
    FAILS_NULL(ct_scatter(NULL_T, 0, ix, x), "scatter(): argument 'input' (position 1)");
    FAILS_NULL(ct_scatter(x, 0, NULL_T, x), "scatter(): argument 'index' (position 3)");
    FAILS_NULL(ct_scatter(x, 0, ix, NULL_T), "scatter(): argument 'src' (position 4)");
    FAILS_T(ct_scatter(x, 0, i32, x), CT_ERR_RUNTIME, i64);
    FAILS_T(ct_scatter(x, 0, ix, d), CT_ERR_RUNTIME, same);
    FAILS_T(ct_scatter(x, 0, oob, x), CT_ERR_RUNTIME, BOUNDS5);
    FAILS_T(ct_scatter(x, 2, ix, x), CT_ERR_INDEX, DIM2);
    FAILS_T(ct_scatter(x, 0, ct_zeros(CT_SHAPE(1), CT_I64), x), CT_ERR_RUNTIME,
            "Index tensor must have the same number of dimensions as self tensor");
    FAILS_T(ct_scatter(x, 0, ct_zeros(CT_SHAPE(3, 3), CT_I64), x), CT_ERR_RUNTIME,
            "Expected index [3, 3] to be smaller than self [2, 3] apart from dimension 0 and to be smaller size than "
            "src [2, 3]");
    FAILS_NULL_R(ct_scatter_(NULL_T, 0, ix, x), "scatter_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_scatter_(x, 0, NULL_T, x), "scatter_(): argument 'index' (position 3)");
    FAILS_NULL_R(ct_scatter_(x, 0, ix, NULL_T), "scatter_(): argument 'src' (position 4)");
    FAILS_INPLACE(x, ct_scatter_(x, 0, oob, src), CT_ERR_RUNTIME, BOUNDS5);
    FAILS_INPLACE(x, ct_scatter_(x, 0, ix, x), CT_ERR_RUNTIME, PARTIAL);
    FAILS_INPLACE(x, ct_scatter_(x, 0, ix, d), CT_ERR_RUNTIME, same);
    t = expanded(F32);
    FAILS_INPLACE(t, ct_scatter_(t, 0, ix, x), CT_ERR_RUNTIME, OVERLAP);
    t = leaf();
    FAILS_INPLACE(t, ct_scatter_(t, 0, ix, x), CT_ERR_RUNTIME, LEAF);
    FAILS_NULL(ct_scatter_scalar(NULL_T, 0, ix, one), "scatter_scalar(): argument 'input' (position 1)");
    FAILS_NULL(ct_scatter_scalar(x, 0, NULL_T, one), "scatter_scalar(): argument 'index' (position 3)");
    FAILS_T(ct_scatter_scalar(x, 0, i32, one), CT_ERR_RUNTIME, i64);
    FAILS_T(ct_scatter_scalar(x, 0, oob, one), CT_ERR_RUNTIME, BOUNDS5);
    FAILS_NULL_R(ct_scatter_scalar_(NULL_T, 0, ix, one), "scatter_scalar_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_scatter_scalar_(x, 0, NULL_T, one), "scatter_scalar_(): argument 'index' (position 3)");
    FAILS_INPLACE(x, ct_scatter_scalar_(x, 0, oob, one), CT_ERR_RUNTIME, BOUNDS5);
    FAILS_INPLACE(x, ct_scatter_scalar_(x, 5, ix, one), CT_ERR_INDEX, DIM5);
    FAILS_NULL(ct_scatter_with_reduce(NULL_T, 0, ix, x, "add"), "scatter_with_reduce(): argument 'input' (position 1)");
    FAILS_NULL(ct_scatter_with_reduce(x, 0, NULL_T, x, "add"), "scatter_with_reduce(): argument 'index' (position 3)");
    FAILS_NULL(ct_scatter_with_reduce(x, 0, ix, NULL_T, "add"), "scatter_with_reduce(): argument 'src' (position 4)");
    FAILS_T(ct_scatter_with_reduce(x, 0, ix, x, "xyz"), CT_ERR_RUNTIME, reduce);
    /* PyTorch names the function it was called as: scatter() here, scatter_() in place */
    FAILS_T(ct_scatter_with_reduce(x, 0, ix, x, NULL), CT_ERR_TYPE, "scatter(): argument 'reduce' must be str, not NULL");
    FAILS_T(ct_scatter_with_reduce(x, 0, oob, x, "add"), CT_ERR_RUNTIME, BOUNDS5);
    FAILS_NULL_R(ct_scatter_with_reduce_(NULL_T, 0, ix, x, "add"), "scatter_with_reduce_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_scatter_with_reduce_(x, 0, NULL_T, x, "add"), "scatter_with_reduce_(): argument 'index' (position 3)");
    FAILS_NULL_R(ct_scatter_with_reduce_(x, 0, ix, NULL_T, "add"), "scatter_with_reduce_(): argument 'src' (position 4)");
    FAILS_INPLACE(x, ct_scatter_with_reduce_(x, 0, ix, src, "xyz"), CT_ERR_RUNTIME, reduce);
    FAILS_INPLACE(x, ct_scatter_with_reduce_(x, 0, ix, src, NULL), CT_ERR_TYPE,
                  "scatter_(): argument 'reduce' must be str, not NULL");
    FAILS_INPLACE(x, ct_scatter_with_reduce_(x, 0, oob, src, "multiply"), CT_ERR_RUNTIME, BOUNDS5);
    FAILS_NULL(ct_scatter_scalar_with_reduce(NULL_T, 0, ix, one, "add"),
               "scatter_scalar_with_reduce(): argument 'input' (position 1)");
    FAILS_NULL(ct_scatter_scalar_with_reduce(x, 0, NULL_T, one, "add"),
               "scatter_scalar_with_reduce(): argument 'index' (position 3)");
    FAILS_T(ct_scatter_scalar_with_reduce(x, 0, ix, one, "xyz"), CT_ERR_RUNTIME, reduce);
    FAILS_T(ct_scatter_scalar_with_reduce(x, 0, ix, one, NULL), CT_ERR_TYPE,
            "scatter(): argument 'reduce' must be str, not NULL");
    FAILS_NULL_R(ct_scatter_scalar_with_reduce_(NULL_T, 0, ix, one, "add"),
                 "scatter_scalar_with_reduce_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_scatter_scalar_with_reduce_(x, 0, NULL_T, one, "add"),
                 "scatter_scalar_with_reduce_(): argument 'index' (position 3)");
    FAILS_INPLACE(x, ct_scatter_scalar_with_reduce_(x, 0, ix, one, "xyz"), CT_ERR_RUNTIME, reduce);
    FAILS_INPLACE(x, ct_scatter_scalar_with_reduce_(x, 0, ix, one, NULL), CT_ERR_TYPE,
                  "scatter_(): argument 'reduce' must be str, not NULL");
    FAILS_INPLACE(x, ct_scatter_scalar_with_reduce_(x, 0, oob, one, "add"), CT_ERR_RUNTIME, BOUNDS5);
    FAILS_NULL(ct_scatter_add(NULL_T, 0, ix, x), "scatter_add(): argument 'input' (position 1)");
    FAILS_NULL(ct_scatter_add(x, 0, NULL_T, x), "scatter_add(): argument 'index' (position 3)");
    FAILS_NULL(ct_scatter_add(x, 0, ix, NULL_T), "scatter_add(): argument 'src' (position 4)");
    FAILS_T(ct_scatter_add(x, 0, ix, d), CT_ERR_RUNTIME, same);
    FAILS_T(ct_scatter_add(x, 0, oob, x), CT_ERR_RUNTIME, BOUNDS5);
    FAILS_NULL_R(ct_scatter_add_(NULL_T, 0, ix, x), "scatter_add_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_scatter_add_(x, 0, NULL_T, x), "scatter_add_(): argument 'index' (position 3)");
    FAILS_NULL_R(ct_scatter_add_(x, 0, ix, NULL_T), "scatter_add_(): argument 'src' (position 4)");
    FAILS_INPLACE(x, ct_scatter_add_(x, 0, oob, src), CT_ERR_RUNTIME, BOUNDS5);
    t = expanded(F32);
    FAILS_INPLACE(t, ct_scatter_add_(t, 0, ix, x), CT_ERR_RUNTIME, OVERLAP);
    t = leaf();
    FAILS_INPLACE(t, ct_scatter_add_(t, 0, ix, x), CT_ERR_RUNTIME, LEAF);
}

static void test_index_select_add_copy(void)
{
    ct_tensor *x = input(F32), *ix = ct_zeros(CT_SHAPE(1), CT_I64), *oob = ct_full(CT_SHAPE(1), ct_int(5), CT_I64);
    ct_tensor *row = ct_clone(ct_narrow(x, 0, 0, 1)), *wide = ct_zeros(CT_SHAPE(1, 4), CT_F32), *d = ct_to(row, CT_F64), *t;
    const ct_scalar two = ct_int(2);
    const char *oob_self = "index out of range in self";
    const char *add_dtype = "index_add_(): self (Float) and source (Double) must have the same scalar type";
    const char *add_shape = "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0";
    FAILS_NULL(ct_index_select(NULL_T, 0, ix), "index_select(): argument 'input' (position 1)");
    FAILS_NULL(ct_index_select(x, 0, NULL_T), "index_select(): argument 'index' (position 3)");
    FAILS_T(ct_index_select(x, 0, ct_zeros(CT_SHAPE(1, 1), CT_I64)), CT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
    FAILS_T(ct_index_select(x, 0, ct_zeros(CT_SHAPE(1), CT_F32)), CT_ERR_RUNTIME,
            "index_select(): Expected dtype int32 or int64 for index");
    FAILS_T(ct_index_select(x, 0, oob), CT_ERR_INDEX, oob_self);
    FAILS_T(ct_index_select(x, 0, ct_full(CT_SHAPE(1), ct_int(-1), CT_I64)), CT_ERR_INDEX, oob_self);
    FAILS_T(ct_index_select(x, 2, ix), CT_ERR_INDEX, DIM2);
    FAILS_NULL(ct_index_add(NULL_T, 0, ix, row), "index_add(): argument 'input' (position 1)");
    FAILS_NULL(ct_index_add(x, 0, NULL_T, row), "index_add(): argument 'index' (position 3)");
    FAILS_NULL(ct_index_add(x, 0, ix, NULL_T), "index_add(): argument 'source' (position 4)");
    FAILS_T(ct_index_add(x, 0, ix, d), CT_ERR_RUNTIME, add_dtype);
    FAILS_T(ct_index_add(x, 0, ct_zeros(CT_SHAPE(1), CT_F32), row), CT_ERR_RUNTIME,
            "index_add_(): Expected dtype int32/int64 for index but got: Float");
    FAILS_T(ct_index_add(x, 0, oob, row), CT_ERR_INDEX, oob_self);
    FAILS_T(ct_index_add(x, 0, ix, wide), CT_ERR_RUNTIME, add_shape);
    FAILS_T(ct_index_add(x, 2, ix, row), CT_ERR_INDEX, DIM2);
    FAILS_T(ct_index_add(x, 0, ct_zeros(CT_SHAPE(1, 1), CT_I64), row), CT_ERR_INDEX,
            "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Long and size: [1, 1]");
    FAILS_NULL(ct_index_add_alpha(NULL_T, 0, ix, row, two), "index_add_alpha(): argument 'input' (position 1)");
    FAILS_NULL(ct_index_add_alpha(x, 0, NULL_T, row, two), "index_add_alpha(): argument 'index' (position 3)");
    FAILS_NULL(ct_index_add_alpha(x, 0, ix, NULL_T, two), "index_add_alpha(): argument 'source' (position 4)");
    FAILS_T(ct_index_add_alpha(x, 0, oob, row, two), CT_ERR_INDEX, oob_self);
    FAILS_NULL_R(ct_index_add_(NULL_T, 0, ix, row), "index_add_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_index_add_(x, 0, NULL_T, row), "index_add_(): argument 'index' (position 3)");
    FAILS_NULL_R(ct_index_add_(x, 0, ix, NULL_T), "index_add_(): argument 'source' (position 4)");
    FAILS_INPLACE(x, ct_index_add_(x, 0, oob, row), CT_ERR_INDEX, oob_self);
    FAILS_INPLACE(x, ct_index_add_(x, 0, ix, wide), CT_ERR_RUNTIME, add_shape);
    FAILS_INPLACE(x, ct_index_add_(x, 0, ix, ct_narrow(x, 0, 0, 1)), CT_ERR_RUNTIME, PARTIAL);
    t = expanded(F32);
    FAILS_INPLACE(t, ct_index_add_(t, 0, ix, row), CT_ERR_RUNTIME, OVERLAP);
    t = leaf();
    FAILS_INPLACE(t, ct_index_add_(t, 0, ix, row), CT_ERR_RUNTIME, LEAF);
    FAILS_NULL_R(ct_index_add_alpha_(NULL_T, 0, ix, row, two), "index_add_alpha_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_index_add_alpha_(x, 0, NULL_T, row, two), "index_add_alpha_(): argument 'index' (position 3)");
    FAILS_NULL_R(ct_index_add_alpha_(x, 0, ix, NULL_T, two), "index_add_alpha_(): argument 'source' (position 4)");
    FAILS_INPLACE(x, ct_index_add_alpha_(x, 0, ix, d, two), CT_ERR_RUNTIME, add_dtype);
    FAILS_NULL(ct_index_copy(NULL_T, 0, ix, row), "index_copy(): argument 'input' (position 1)");
    FAILS_NULL(ct_index_copy(x, 0, NULL_T, row), "index_copy(): argument 'index' (position 3)");
    FAILS_NULL(ct_index_copy(x, 0, ix, NULL_T), "index_copy(): argument 'source' (position 4)");
    FAILS_T(ct_index_copy(x, 0, ct_to(ix, CT_I32), row), CT_ERR_RUNTIME,
            "index_copy_(): Expected a long tensor for index, but got Int");
    FAILS_T(ct_index_copy(x, 0, oob, row), CT_ERR_INDEX, "index_copy_(): index 5 is out of bounds for dimension 0 with size 2");
    FAILS_T(ct_index_copy(x, 0, ix, d), CT_ERR_RUNTIME,
            "index_copy_(): self and source expected to have the same dtype, but got (self) Float and (source) Double");
    FAILS_T(ct_index_copy(x, 0, ix, wide), CT_ERR_RUNTIME,
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: 3 at "
            "dimension 0 and source slice shape: 4 at dimension 0.");
    FAILS_T(ct_index_copy(x, 2, ix, row), CT_ERR_INDEX, DIM2);
    FAILS_NULL_R(ct_index_copy_(NULL_T, 0, ix, row), "index_copy_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_index_copy_(x, 0, NULL_T, row), "index_copy_(): argument 'index' (position 3)");
    FAILS_NULL_R(ct_index_copy_(x, 0, ix, NULL_T), "index_copy_(): argument 'source' (position 4)");
    FAILS_INPLACE(x, ct_index_copy_(x, 0, oob, row), CT_ERR_INDEX,
                  "index_copy_(): index 5 is out of bounds for dimension 0 with size 2");
    FAILS_INPLACE(x, ct_index_copy_(x, 0, ix, ct_narrow(x, 0, 0, 1)), CT_ERR_RUNTIME, PARTIAL);
    t = expanded(F32);
    FAILS_INPLACE(t, ct_index_copy_(t, 0, ix, row), CT_ERR_RUNTIME, OVERLAP);
    t = leaf();
    FAILS_INPLACE(t, ct_index_copy_(t, 0, ix, row), CT_ERR_RUNTIME, LEAF);
}

static void test_index_fill_and_masks(void)
{
    ct_tensor *x = input(F32), *ix = ct_zeros(CT_SHAPE(1), CT_I64), *oob = ct_full(CT_SHAPE(1), ct_int(5), CT_I64);
    ct_tensor *v = ct_scalar_tensor(ct_float(1), CT_F32), *v1 = ct_ones(CT_SHAPE(2), CT_F32), *t;
    ct_tensor *m = ct_ones(CT_SHAPE(2, 3), CT_BOOL), *m4 = ct_ones(CT_SHAPE(4), CT_BOOL);
    const ct_scalar one = ct_float(1);
    const char *i64 = "index_fill_(): Expected dtype int64 for index.";
    const char *fill_1d = "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).";
    const char *mask_1d = "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).";
    const char *m4_msg = "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1";
    FAILS_NULL(ct_index_fill(NULL_T, 0, ix, v), "index_fill(): argument 'input' (position 1)");
    FAILS_NULL(ct_index_fill(x, 0, NULL_T, v), "index_fill(): argument 'index' (position 3)");
    FAILS_NULL(ct_index_fill(x, 0, ix, NULL_T), "index_fill(): argument 'value' (position 4)");
    FAILS_T(ct_index_fill(x, 0, ct_to(ix, CT_I32), v), CT_ERR_INDEX, i64);
    FAILS_T(ct_index_fill(x, 0, oob, v), CT_ERR_INDEX, BOUNDS5);
    FAILS_T(ct_index_fill(x, 2, ix, v), CT_ERR_INDEX, DIM2);
    FAILS_T(ct_index_fill(x, 0, ix, v1), CT_ERR_RUNTIME, fill_1d);
    FAILS_T(ct_index_fill(x, 0, ct_zeros(CT_SHAPE(1, 1), CT_I64), v), CT_ERR_RUNTIME, "Index has to be a vector/scalar");
    FAILS_NULL_R(ct_index_fill_(NULL_T, 0, ix, v), "index_fill_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_index_fill_(x, 0, NULL_T, v), "index_fill_(): argument 'index' (position 3)");
    FAILS_NULL_R(ct_index_fill_(x, 0, ix, NULL_T), "index_fill_(): argument 'value' (position 4)");
    FAILS_INPLACE(x, ct_index_fill_(x, 0, oob, v), CT_ERR_INDEX, BOUNDS5);
    FAILS_INPLACE(x, ct_index_fill_(x, 0, ix, v1), CT_ERR_RUNTIME, fill_1d);
    t = leaf();
    FAILS_INPLACE(t, ct_index_fill_(t, 0, ix, v), CT_ERR_RUNTIME, LEAF);
    FAILS_NULL(ct_index_fill_scalar(NULL_T, 0, ix, one), "index_fill_scalar(): argument 'input' (position 1)");
    FAILS_NULL(ct_index_fill_scalar(x, 0, NULL_T, one), "index_fill_scalar(): argument 'index' (position 3)");
    FAILS_T(ct_index_fill_scalar(x, 0, ct_full(CT_SHAPE(1), ct_int(-3), CT_I64), one), CT_ERR_INDEX,
            "index -3 is out of bounds for dimension 0 with size 2");
    FAILS_NULL_R(ct_index_fill_scalar_(NULL_T, 0, ix, one), "index_fill_scalar_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_index_fill_scalar_(x, 0, NULL_T, one), "index_fill_scalar_(): argument 'index' (position 3)");
    FAILS_INPLACE(x, ct_index_fill_scalar_(x, 0, oob, one), CT_ERR_INDEX, BOUNDS5);
    FAILS_INPLACE(x, ct_index_fill_scalar_(x, 0, ct_to(ix, CT_I32), one), CT_ERR_INDEX, i64);
    FAILS_NULL(ct_masked_fill(NULL_T, m, v), "masked_fill(): argument 'input' (position 1)");
    FAILS_NULL(ct_masked_fill(x, NULL_T, v), "masked_fill(): argument 'mask' (position 2)");
    FAILS_NULL(ct_masked_fill(x, m, NULL_T), "masked_fill(): argument 'value' (position 3)");
    FAILS_T(ct_masked_fill(x, m, v1), CT_ERR_RUNTIME, mask_1d);
    FAILS_T(ct_masked_fill(x, m4, v), CT_ERR_RUNTIME, m4_msg);
    FAILS_NULL_R(ct_masked_fill_(NULL_T, m, v), "masked_fill_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_masked_fill_(x, NULL_T, v), "masked_fill_(): argument 'mask' (position 2)");
    FAILS_NULL_R(ct_masked_fill_(x, m, NULL_T), "masked_fill_(): argument 'value' (position 3)");
    FAILS_INPLACE(x, ct_masked_fill_(x, m, v1), CT_ERR_RUNTIME, mask_1d);
    FAILS_INPLACE(x, ct_masked_fill_(x, m4, v), CT_ERR_RUNTIME, SIZE_3_4);
    FAILS_INPLACE(x, ct_masked_fill_(x, ct_full(CT_SHAPE(2, 3), ct_int(2), CT_U8), v), CT_ERR_RUNTIME,
                  "Mask tensor can take 0 and 1 values only");
    t = ct_ones(CT_SHAPE(3), CT_F32);
    FAILS_INPLACE(t, ct_masked_fill_(t, m, v), CT_ERR_RUNTIME, "output with shape [3] doesn't match the broadcast shape [2, 3]");
    t = leaf();
    FAILS_INPLACE(t, ct_masked_fill_(t, m, v), CT_ERR_RUNTIME, LEAF);
    FAILS_NULL(ct_masked_fill_scalar(NULL_T, m, one), "masked_fill_scalar(): argument 'input' (position 1)");
    FAILS_NULL(ct_masked_fill_scalar(x, NULL_T, one), "masked_fill_scalar(): argument 'mask' (position 2)");
    FAILS_T(ct_masked_fill_scalar(x, m4, one), CT_ERR_RUNTIME, m4_msg);
    FAILS_NULL_R(ct_masked_fill_scalar_(NULL_T, m, one), "masked_fill_scalar_(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_masked_fill_scalar_(x, NULL_T, one), "masked_fill_scalar_(): argument 'mask' (position 2)");
    FAILS_INPLACE(x, ct_masked_fill_scalar_(x, m4, one), CT_ERR_RUNTIME, SIZE_3_4);
    FAILS_INPLACE(x, ct_masked_fill_scalar_(x, m, ct_float(1e300)), CT_ERR_RUNTIME,
                  "value cannot be converted to type float without overflow");
    FAILS_NULL(ct_masked_select(NULL_T, m), "masked_select(): argument 'input' (position 1)");
    FAILS_NULL(ct_masked_select(x, NULL_T), "masked_select(): argument 'mask' (position 2)");
    FAILS_T(ct_masked_select(x, x), CT_ERR_RUNTIME, "masked_select: expected BoolTensor or ByteTensor for mask");
    FAILS_T(ct_masked_select(x, m4), CT_ERR_RUNTIME, m4_msg);
}

static void test_take_and_one_hot(void)
{
    ct_tensor *x = input(F32), *ix = ct_zeros(CT_SHAPE(1), CT_I64);
    FAILS_NULL(ct_take(NULL_T, ix), "take(): argument 'input' (position 1)");
    FAILS_NULL(ct_take(x, NULL_T), "take(): argument 'index' (position 2)");
    FAILS_T(ct_take(x, ct_to(ix, CT_I32)), CT_ERR_RUNTIME, "take(): Expected a long tensor for index, but got Int");
    FAILS_T(ct_take(x, ct_full(CT_SHAPE(1), ct_int(6), CT_I64)), CT_ERR_INDEX,
            "out of range: tried to access index 6 on a tensor of 6 elements.");
    FAILS_T(ct_take(x, ct_full(CT_SHAPE(1), ct_int(-7), CT_I64)), CT_ERR_INDEX,
            "out of range: tried to access index -7 on a tensor of 6 elements.");
    FAILS_T(ct_take(input(EMPTY), ix), CT_ERR_INDEX, "take(): tried to take from an empty tensor");
    FAILS_NULL(ct_one_hot(NULL_T, 3), "one_hot(): argument 'input' (position 1)");
    FAILS_T(ct_one_hot(x, 3), CT_ERR_RUNTIME, "one_hot is only applicable to index tensor.");
    FAILS_T(ct_one_hot(ct_full(CT_SHAPE(2), ct_int(-1), CT_I64), 3), CT_ERR_RUNTIME, "Class values must be non-negative.");
    FAILS_T(ct_one_hot(ct_full(CT_SHAPE(2), ct_int(3), CT_I64), 2), CT_ERR_RUNTIME, "Class values must be smaller than num_classes.");
    FAILS_T(ct_one_hot(ct_full(CT_SHAPE(2), ct_int(1), CT_I64), -2), CT_ERR_RUNTIME, "Class values must be smaller than num_classes.");
    FAILS_T(ct_one_hot(ct_zeros(CT_SHAPE(0), CT_I64), -1), CT_ERR_RUNTIME, "Can not infer total number of classes from empty tensor.");
}

/* ---------------------------------------------------------------- sorting and selection */

/* Both result pointers of a failed call are NULL. */
static void test_sort_and_select(void)
{
    ct_tensor *x = input(F32), *b = input(BOOL), *v = x, *ix = x;
    FAILS_NULL_R(ct_sort(NULL_T, 0, false, false, &v, &ix), "sort(): argument 'input' (position 1)");
    CHECK_CLEARED(v, ix);
    v = ix = x;
    FAILS_R(ct_sort(x, 5, false, false, &v, &ix), CT_ERR_INDEX, DIM5);
    CHECK_CLEARED(v, ix);
    FAILS_NULL(ct_argsort(NULL_T, 0, false, false), "argsort(): argument 'input' (position 1)");
    FAILS_T(ct_argsort(x, -3, true, true), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
    v = ix = x;
    FAILS_NULL_R(ct_topk(NULL_T, 1, 0, true, true, &v, &ix), "topk(): argument 'input' (position 1)");
    CHECK_CLEARED(v, ix);
    FAILS_R(ct_topk(x, 4, 1, true, true, &v, &ix), CT_ERR_RUNTIME, "selected index k out of range");
    FAILS_R(ct_topk(x, -1, 1, false, true, &v, NULL), CT_ERR_RUNTIME, "selected index k out of range");
    FAILS_R(ct_topk(x, 1, 5, true, true, NULL, &ix), CT_ERR_INDEX, DIM5);
    FAILS_R(ct_topk(b, 1, 1, true, true, &v, &ix), CT_ERR_RUNTIME, NOT_FOR("topk_cpu", "Bool"));
    v = ix = x;
    FAILS_NULL_R(ct_kthvalue(NULL_T, 1, 0, false, &v, &ix), "kthvalue(): argument 'input' (position 1)");
    CHECK_CLEARED(v, ix);
    FAILS_R(ct_kthvalue(x, 0, 1, false, &v, &ix), CT_ERR_RUNTIME,
            "kthvalue(): selected number k out of range for dimension 1");
    FAILS_R(ct_kthvalue(x, 4, -1, true, &v, &ix), CT_ERR_RUNTIME,
            "kthvalue(): selected number k out of range for dimension 1");
    FAILS_R(ct_kthvalue(x, 1, 5, false, &v, &ix), CT_ERR_INDEX, DIM5);
    FAILS_R(ct_kthvalue(b, 1, 1, false, &v, &ix), CT_ERR_RUNTIME, NOT_FOR("kthvalue_cpu", "Bool"));
    FAILS_R(ct_kthvalue(input(EMPTY), 1, 0, false, &v, &ix), CT_ERR_INDEX,
            "kthvalue(): Expected reduction dim 0 to have non-zero size.");
}

static void test_unique_nonzero_searchsorted(void)
{
    ct_tensor *x = input(F32), *out = x, *inv = x, *counts = x, *parts[2] = {x, x};
    ct_tensor *row = ct_arange(ct_int(1), ct_int(3), ct_int(1), CT_F32), *one = ct_ones(CT_SHAPE(1), CT_F32);
    ct_searchsorted_opts o;
    int n = 7;
    memset(&o, 0, sizeof o);
    FAILS_NULL_R(ct_unique(NULL_T, true, &out, &inv, &counts), "unique(): argument 'input' (position 1)");
    CHECK(out == NULL && inv == NULL && counts == NULL);
    FAILS_NULL_R(ct_unique_dim(NULL_T, 0, true, &out, &inv, &counts), "unique_dim(): argument 'input' (position 1)");
    FAILS_R(ct_unique_dim(x, 5, true, &out, NULL, NULL), CT_ERR_INDEX, DIM5);
    FAILS_R(ct_unique_dim(ct_zeros(CT_SHAPE(2, 0), CT_F32), 0, true, &out, NULL, NULL), CT_ERR_RUNTIME,
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
    FAILS_NULL_R(ct_unique_consecutive(NULL_T, &out, &inv, &counts), "unique_consecutive(): argument 'input' (position 1)");
    FAILS_NULL_R(ct_unique_consecutive_dim(NULL_T, 0, &out, &inv, &counts),
                 "unique_consecutive_dim(): argument 'input' (position 1)");
    FAILS_R(ct_unique_consecutive_dim(x, -3, &out, &inv, &counts), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
    FAILS_NULL_R(ct_nonzero_as_tuple(NULL_T, parts, &n), "nonzero_as_tuple(): argument 'input' (position 1)");
    CHECK(parts[0] == x && parts[1] == x);
    /* searchsorted: the boundaries' leading dims must be the values' */
    FAILS_NULL(ct_searchsorted(NULL_T, one, o), "searchsorted(): argument 'sorted_sequence' (position 1)");
    FAILS_NULL(ct_searchsorted(row, NULL_T, o), "searchsorted(): argument 'input' (position 2)");
    FAILS_T(ct_searchsorted(x, ct_ones(CT_SHAPE(3), CT_F32), o), CT_ERR_RUNTIME,
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
            "tensor and input value tensor must match, but we got boundaries tensor [2, 3] and input value tensor [3]");
    FAILS_T(ct_searchsorted(ct_scalar_tensor(ct_int(1), CT_F32), one, o), CT_ERR_RUNTIME,
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
    FAILS_T(ct_searchsorted(input(BOOL), input(BOOL), o), CT_ERR_RUNTIME, NOT_FOR("searchsorted_out_cpu", "Bool"));
    o.side = "middle";
    FAILS_T(ct_searchsorted(row, one, o), CT_ERR_RUNTIME,
            "torch.searchsorted(): side can only be 'left' or 'right' but got middle");
    o.side = "left";
    o.right = true;
    FAILS_T(ct_searchsorted(row, one, o), CT_ERR_RUNTIME,
            "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True");
    memset(&o, 0, sizeof o);
    o.sorter = ct_zeros(CT_SHAPE(2), CT_I32);
    FAILS_T(ct_searchsorted(row, one, o), CT_ERR_RUNTIME,
            "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype Int");
    o.sorter = ct_zeros(CT_SHAPE(3), CT_I64);
    FAILS_T(ct_searchsorted(row, one, o), CT_ERR_RUNTIME,
            "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor [2]and got "
            "sorter tensor [3]");
    /* PyTorch reads outside the boundaries for a sorter index out of range; ctorch must not */
    o.sorter = ct_full(CT_SHAPE(2), ct_int(5), CT_I64);
    ct_searchsorted(row, one, o);
    ct_clear_error();
    memset(&o, 0, sizeof o);
    FAILS_NULL(ct_searchsorted_scalar(NULL_T, ct_int(1), o), "searchsorted_scalar(): argument 'sorted_sequence' (position 1)");
    FAILS_T(ct_searchsorted_scalar(ct_scalar_tensor(ct_int(1), CT_F32), ct_float(1), o), CT_ERR_RUNTIME,
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we got "
            "boundaries tensor dim(0) and input value's dim(0) numel(1)");
}

/* ---------------------------------------------------------------- autograd */

/* A fresh graph: l (a 2x3 leaf that requires grad), y = l * l; k (a 0-d
 * leaf), s = k * k (pointwise ops: every one records its node). */
static void graph(ct_tensor **l, ct_tensor **y, ct_tensor **k, ct_tensor **s)
{
    *l = leaf();
    *y = ct_mul(*l, *l);
    *k = ct_scalar_tensor(ct_float(3), CT_F32);
    ct_requires_grad_(*k, true);
    *s = ct_mul(*k, *k);
}

static ct_tensor *keep_grad(ct_tensor *grad, void *user)
{
    (void)grad, (void)user;
    return NULL;
}

static const char *const NOT_REQUIRED = "element 0 of tensors does not require grad and does not have a grad_fn";
static const char *const IMPLICIT = "grad can be implicitly created only for scalar outputs";
static const char *const MISMATCH = "Mismatch in shape: grad_output[0] has a shape of torch.Size([4]) and output[0] has "
                                    "a shape of torch.Size([2, 3]).";

/* The getters answer neutrally for NULL, as ct_dim does; setting a gradient
 * checks it against the tensor, and a refused one leaves .grad as it was. */
static void test_gradients_and_nodes(void)
{
    ct_tensor *l, *y, *k, *s, *x = input(F32);
    int nr = 7;
    graph(&l, &y, &k, &s);
    CHECK(ct_grad(NULL_T) == NULL && !ct_is_leaf(NULL_T) && ct_grad_fn(NULL_T) == NULL && !ct_retains_grad(NULL_T));
    CHECK(ct_node_name(NULL) == NULL && ct_node_num_next(NULL) == 0 && ct_node_next(NULL, 0, &nr) == NULL);
    CHECK(ct_node_variable(NULL) == NULL && ct_node_variable(ct_grad_fn(y)) == NULL); /* no AccumulateGrad */
    CHECK(!ct_is_inference(NULL_T));
    CHECK_INT(ct_last_error_code(), CT_OK);
    /* grad_fn.next_functions[5] of a node with two */
    FAILS_T(ct_node_next(ct_grad_fn(y), 5, &nr), CT_ERR_INDEX, "tuple index out of range");
    FAILS_NULL_R(ct_set_grad(NULL_T, x), "set_grad(): argument 'self' (position 1)");
    FAILS_R(ct_set_grad(l, four(F32)), CT_ERR_RUNTIME, "assigned grad has data of a different size");
    FAILS_R(ct_set_grad(l, input(F64)), CT_ERR_RUNTIME, "assigned grad has data of a different type");
    FAILS_R(ct_set_grad(x, input(I64)), CT_ERR_RUNTIME, "assigned grad has data of a different type");
    FAILS_R(ct_set_grad(l, l), CT_ERR_RUNTIME, "can't assign Variable as its own grad");
    CHECK(ct_grad(l) == NULL);
    FAILS_NULL_R(ct_retain_grad(NULL_T), "retain_grad(): argument 'self' (position 1)");
    FAILS_R(ct_retain_grad(x), CT_ERR_RUNTIME, "can't retain_grad on Tensor that has requires_grad=False");
    CHECK(!ct_retains_grad(x));
    FAILS_NULL(ct_data(NULL_T), "data(): argument 'self' (position 1)");
    FAILS_NULL_R(ct_detach_(NULL_T), "detach_(): argument 'self' (position 1)");
    ct_tensor *row = ct_narrow(y, 0, 0, 1);
    FAILS_R(ct_detach_(row), CT_ERR_RUNTIME,
            "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
            "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence "
            "detach_() cannot be called on these gradients. To fix this error, please refer to the "
            "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
    CHECK(ct_grad_fn(row) != NULL);
}

/* A refused backward accumulates nothing and leaves the graph usable. */
static void test_backward(void)
{
    ct_tensor *l, *y, *k, *s, *x = input(F32);
    const ct_tensor *none[1] = {NULL_T}, *xs[1] = {x}, *roots[2] = {NULL_T, NULL_T}, *grads[1] = {four(F32)};
    ct_backward_opts o, with_none, empty, with_x;
    memset(&o, 0, sizeof o);
    with_none = empty = with_x = o;
    with_none.inputs = none;
    with_none.n_inputs = 1;
    empty.inputs = xs;
    with_x.inputs = xs;
    with_x.n_inputs = 1;
    graph(&l, &y, &k, &s);
    FAILS_NULL_R(ct_backward(NULL_T, NULL_T, o), "backward(): argument 'self' (position 1)");
    FAILS_R(ct_backward(x, NULL_T, o), CT_ERR_RUNTIME, NOT_REQUIRED);
    FAILS_R(ct_backward(y, NULL_T, o), CT_ERR_RUNTIME, IMPLICIT);
    FAILS_R(ct_backward(y, four(F32), o), CT_ERR_RUNTIME, MISMATCH);
    FAILS_R(ct_backward(s, NULL_T, with_none), CT_ERR_RUNTIME, "all inputs have to be Tensors, but got NULL");
    FAILS_R(ct_backward(s, NULL_T, with_x), CT_ERR_RUNTIME, "can't retain_grad on Tensor that has requires_grad=False");
    CHECK(ct_grad(k) == NULL);
    CHECK_OK(ct_backward(s, NULL_T, o));
    FAILS_R(ct_backward(s, NULL_T, o), CT_ERR_RUNTIME,
            "Trying to backward through the graph a second time (or directly access saved tensors after they have "
            "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
            "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
            "you need to access saved tensors after calling backward.");
    /* an inputs list of no tensors (a negative count is none) */
    graph(&l, &y, &k, &s);
    FAILS_R(ct_backward(s, NULL_T, empty), CT_ERR_RUNTIME, "'inputs' argument to backward() cannot be empty.");
    empty.n_inputs = -1;
    FAILS_R(ct_backward(s, NULL_T, empty), CT_ERR_RUNTIME, "'inputs' argument to backward() cannot be empty.");
    CHECK(ct_grad(k) == NULL);
    graph(&l, &y, &k, &s);
    roots[0] = y;
    FAILS_R(ct_autograd_backward(NULL, NULL, 1, o), CT_ERR_TYPE,
            "autograd_backward(): argument 'tensors' (position 1) must be tuple of Tensors, not NULL");
    FAILS_R(ct_autograd_backward(roots, NULL, 2, o), CT_ERR_TYPE, "expected Tensor as element 1 in argument 0, but got NULL");
    FAILS_R(ct_autograd_backward(roots, NULL, 1, o), CT_ERR_RUNTIME, IMPLICIT);
    FAILS_R(ct_autograd_backward(roots, grads, 1, o), CT_ERR_RUNTIME, MISMATCH);
    FAILS_R(ct_autograd_backward(xs, NULL, 1, o), CT_ERR_RUNTIME, NOT_REQUIRED);
    /* torch.autograd.backward([]) does nothing */
    CHECK_OK(ct_autograd_backward(roots, NULL, 0, o));
    CHECK(ct_grad(l) == NULL);
}

static void test_autograd_grad(void)
{
    ct_tensor *l, *y, *k, *s, *x = input(F32), *out[1] = {NULL_T};
    ct_tensor *unused = leaf();
    const ct_tensor *outs[1], *ins[1], *none[1] = {NULL_T}, *xs[1] = {x}, *others[1] = {unused}, *grads[1] = {four(F32)};
    ct_grad_opts o;
    memset(&o, 0, sizeof o);
    graph(&l, &y, &k, &s);
    outs[0] = s;
    ins[0] = k;
    FAILS_R(ct_autograd_grad(NULL, 1, ins, 1, NULL, out, o), CT_ERR_TYPE,
            "autograd_grad(): argument 'outputs' (position 1) must be tuple of Tensors, not NULL");
    FAILS_R(ct_autograd_grad(outs, 1, NULL, 1, NULL, out, o), CT_ERR_TYPE,
            "autograd_grad(): argument 'inputs' (position 2) must be tuple of Tensors, not NULL");
    FAILS_R(ct_autograd_grad(outs, 1, ins, 1, NULL, NULL, o), CT_ERR_RUNTIME,
            "grad(): outputs, inputs and grads must be given");
    FAILS_R(ct_autograd_grad(none, 1, ins, 1, NULL, out, o), CT_ERR_TYPE,
            "expected Tensor as element 0 in argument 0, but got NULL");
    FAILS_R(ct_autograd_grad(outs, 1, none, 1, NULL, out, o), CT_ERR_RUNTIME, "all inputs have to be Tensors, but got NULL");
    FAILS_R(ct_autograd_grad(outs, 1, ins, 0, NULL, out, o), CT_ERR_VALUE, "grad requires non-empty inputs.");
    FAILS_R(ct_autograd_grad(outs, 1, xs, 1, NULL, out, o), CT_ERR_RUNTIME,
            "One of the differentiated Tensors does not require grad");
    FAILS_R(ct_autograd_grad(outs, 1, others, 1, NULL, out, o), CT_ERR_RUNTIME,
            "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if "
            "this is the desired behavior.");
    outs[0] = y;
    ins[0] = l;
    FAILS_R(ct_autograd_grad(outs, 1, ins, 1, NULL, out, o), CT_ERR_RUNTIME, IMPLICIT);
    FAILS_R(ct_autograd_grad(outs, 1, ins, 1, grads, out, o), CT_ERR_RUNTIME, MISMATCH);
    CHECK(out[0] == NULL && ct_grad(l) == NULL && ct_grad(k) == NULL);
}

static int twice(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    (void)n, (void)user;
    out[0] = ct_mul_scalar(in[0], ct_int(2));
    return out[0] ? 1 : -1;
}

static ct_result copy_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    (void)ctx, (void)n;
    out[0] = ct_clone(in[0]);
    return CT_OK;
}

static ct_result copy_backward(ct_function_ctx *ctx, ct_tensor *const *go, ct_tensor **gi)
{
    (void)ctx;
    gi[0] = go[0];
    return CT_OK;
}

static ct_result no_output_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    (void)ctx, (void)in, (void)n, (void)out;
    return CT_OK;
}

/* gradcheck and custom functions: a function and its inputs must be given;
 * the ctx functions answer neutrally for a NULL ctx, and refuse bad lists. */
static void test_gradcheck_and_functions(void)
{
    ct_tensor *l, *y, *k, *s, *none[1] = {NULL_T}, *out[1];
    graph(&l, &y, &k, &s);
    ct_gradcheck_opts o = ct_gradcheck_opts_init();
    FAILS_R(ct_gradcheck(NULL, &l, 1, NULL, o), CT_ERR_VALUE, "gradcheck: give a function and 1 to 32 inputs");
    FAILS_R(ct_gradcheck(twice, NULL, 1, NULL, o), CT_ERR_VALUE, "gradcheck: give a function and 1 to 32 inputs");
    FAILS_R(ct_gradcheck(twice, &l, 0, NULL, o), CT_ERR_VALUE, "gradcheck: give a function and 1 to 32 inputs");
    FAILS_R(ct_gradcheck(twice, none, 1, NULL, o), CT_ERR_TYPE, "gradcheck: input 0 is NULL");
    FAILS_R(ct_gradgradcheck(NULL, &l, 1, NULL, o), CT_ERR_VALUE, "gradgradcheck: give a function and 1 to 24 inputs");
    FAILS_R(ct_gradgradcheck(twice, none, 1, NULL, o), CT_ERR_TYPE, "gradcheck: input 0 is NULL");
    static const ct_function copy = {"Copy", 1, copy_forward, copy_backward, false};
    static const ct_function empty = {"Empty", 1, no_output_forward, copy_backward, false};
    static const ct_function broken = {"Broken", 0, copy_forward, NULL, false};
    FAILS_R(ct_function_apply(NULL, &l, 1, out, NULL), CT_ERR_VALUE,
            "Function.apply: give a function with forward, backward and at least one output");
    FAILS_R(ct_function_apply(&broken, &l, 1, out, NULL), CT_ERR_VALUE,
            "Function.apply: give a function with forward, backward and at least one output");
    FAILS_R(ct_function_apply(&copy, NULL, 1, out, NULL), CT_ERR_VALUE, "Function.apply: give 1 inputs and room for 1 outputs");
    FAILS_R(ct_function_apply(&copy, &l, 1, NULL, NULL), CT_ERR_VALUE, "Function.apply: give 1 inputs and room for 1 outputs");
    FAILS_R(ct_function_apply(&copy, none, 1, out, NULL), CT_ERR_TYPE, "expected Tensor as element 0 in argument 0, but got NULL");
    FAILS_R(ct_function_apply(&empty, &l, 1, out, NULL), CT_ERR_RUNTIME, "Empty.forward returned no tensor for output 0");
    CHECK(out[0] == NULL);
    CHECK(ct_ctx_user(NULL) == NULL && ct_ctx_data(NULL) == NULL && !ct_ctx_needs_input_grad(NULL, 0));
    ct_ctx_set_data(NULL, NULL, NULL); /* nothing to set: no effect */
    FAILS_R(ct_ctx_save_for_backward(NULL, &l, 1), CT_ERR_VALUE, "save_for_backward: ctx is NULL");
    FAILS_R(ct_ctx_mark_dirty(NULL, &l, 1), CT_ERR_VALUE, "mark_dirty: ctx is NULL");
    FAILS_R(ct_ctx_mark_non_differentiable(NULL, &l, 1), CT_ERR_VALUE, "mark_non_differentiable: ctx is NULL");
    FAILS_T(ct_ctx_saved_tensor(NULL, 0), CT_ERR_RUNTIME, "saved_tensors can only be read in backward");
    FAILS_R(ct_checkpoint(NULL, &l, 1, out, 1, NULL), CT_ERR_VALUE,
            "checkpoint: give a function and room for its 1 to 8 outputs");
    FAILS_R(ct_checkpoint(twice, &l, 1, out, 9, NULL), CT_ERR_VALUE,
            "checkpoint: give a function and room for its 1 to 8 outputs");
    FAILS_R(ct_checkpoint(twice, none, 1, out, 1, NULL), CT_ERR_TYPE,
            "expected Tensor as element 0 in argument 0, but got NULL");
    ct_checkpoint_fn fns[1] = {twice};
    FAILS_NULL(ct_checkpoint_sequential(fns, NULL, 1, 1, NULL_T), "checkpoint_sequential(): argument 'input' (position 3)");
    FAILS_T(ct_checkpoint_sequential(NULL, NULL, 1, 1, l), CT_ERR_VALUE,
            "checkpoint_sequential: give 1 or more functions and segments");
    FAILS_T(ct_checkpoint_sequential(fns, NULL, 1, 0, l), CT_ERR_VALUE,
            "checkpoint_sequential: give 1 or more functions and segments");
}

/* Hooks: on a tensor that requires grad (a leaf, for post-accumulate ones), a
 * hook that is a function, an id that was given out. */
static void test_hooks(void)
{
    ct_tensor *l, *y, *k, *s, *x = input(F32);
    const char *no_grad = "cannot register a hook on a tensor that doesn't require gradient";
    graph(&l, &y, &k, &s);
    FAILS_NULL_R(ct_register_hook(NULL_T, keep_grad, NULL), "register_hook(): argument 'self' (position 1)");
    FAILS_R(ct_register_hook(x, keep_grad, NULL), CT_ERR_RUNTIME, no_grad);
    FAILS_R(ct_register_hook(l, NULL, NULL), CT_ERR_VALUE, "register_hook(): hook is NULL");
    FAILS_NULL_R(ct_remove_hook(NULL_T, 0), "remove_hook(): argument 'self' (position 1)");
    FAILS_R(ct_remove_hook(l, 12345), CT_ERR_VALUE, "remove_hook(): no hook with id 12345 on this tensor");
    FAILS_NULL_R(ct_register_post_accumulate_grad_hook(NULL_T, keep_grad, NULL),
                 "register_post_accumulate_grad_hook(): argument 'self' (position 1)");
    FAILS_R(ct_register_post_accumulate_grad_hook(x, keep_grad, NULL), CT_ERR_RUNTIME, no_grad);
    FAILS_R(ct_register_post_accumulate_grad_hook(y, keep_grad, NULL), CT_ERR_RUNTIME,
            "post accumulate grad hooks cannot be registered on non-leaf tensors");
    FAILS_R(ct_register_post_accumulate_grad_hook(l, NULL, NULL), CT_ERR_VALUE,
            "register_post_accumulate_grad_hook(): hook is NULL");
    FAILS_R(ct_node_register_prehook(NULL, keep_grad, NULL), CT_ERR_VALUE, "register_prehook(): node or hook is NULL");
    FAILS_R(ct_node_register_prehook(ct_grad_fn(y), NULL, NULL), CT_ERR_VALUE, "register_prehook(): node or hook is NULL");
    FAILS_R(ct_node_register_hook(NULL, keep_grad, NULL), CT_ERR_VALUE, "register_hook(): node or hook is NULL");
    FAILS_R(ct_node_register_hook(ct_grad_fn(y), NULL, NULL), CT_ERR_VALUE, "register_hook(): node or hook is NULL");
    ct_backward_opts o;
    memset(&o, 0, sizeof o);
    CHECK_OK(ct_backward(s, NULL_T, o));
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

/* The bad-input programs' sources, tests/test_errors*.c, joined into one string. */
static char *read_error_tests(void)
{
    DIR *dir = opendir("tests");
    if (!dir) return NULL;
    char *all = (char *)calloc(1, 1);
    size_t len = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "test_errors", 11) || n < 2 || strcmp(e->d_name + n - 2, ".c")) continue;
        char path[512];
        snprintf(path, sizeof path, "tests/%s", e->d_name);
        char *text = read_all(path);
        if (!text) continue;
        size_t add = strlen(text);
        all = (char *)realloc(all, len + add + 1);
        memcpy(all + len, text, add + 1);
        len += add;
        free(text);
    }
    closedir(dir);
    return all;
}

/* Functions with nothing that can go wrong: no tensor, dtype, size or dim
 * argument to get wrong. Everything else must appear in this file. */
static const char *const no_bad_input[] = {
    "ct_result_str", "ct_last_error", "ct_last_error_code", "ct_clear_error", "ct_set_error_handler",
    "ct_dtype_size", "ct_dtype_is_floating", "ct_int", "ct_float", "ct_bool", "ct_scalar_to_double",
    "ct_shape_make", "ct_scope_begin", "ct_scope_end", "ct_manual_seed", "ct_initial_seed", "ct_seed",
    "ct_default_generator", "ct_generator_new", "ct_generator_free", "ct_generator_manual_seed",
    "ct_generator_initial_seed", "ct_generator_state_size", "ct_generator_get_state", "ct_generator_device",
    "ct_print_opts_init",
    "ct_get_printoptions", "ct_op_count", "ct_op_name", "ct_gradcheck_opts_init",
    /* grad and anomaly modes: they take nothing, or a bool or a mode struct whose every value is a valid mode */
    "ct_no_grad", "ct_enable_grad", "ct_inference_mode", "ct_set_grad_enabled", "ct_grad_mode_restore",
    "ct_is_grad_enabled", "ct_is_inference_mode_enabled", "ct_set_detect_anomaly", "ct_is_anomaly_enabled",
    /* autocast's state: restore takes a mode struct, the queries take nothing (ct_autocast has a bad dtype) */
    "ct_autocast_restore", "ct_is_autocast_enabled", "ct_get_autocast_dtype",
    /* devices: queries, comparisons and a guard's end take nothing that can be wrong */
    "ct_device_equal", "ct_cuda_is_available", "ct_cuda_device_count", "ct_get_default_device",
    "ct_device_guard_end", "ct_is_cuda",
    /* the CPU cache's limit: any size is one (0 turns the cache off); TF32 for products: a bool */
    "ct_set_cpu_cache_limit", "ct_set_allow_tf32_matmul", "ct_allow_tf32_matmul",
    /* events: made from two bools; freeing takes NULL; a stream guard's end restores what its begin checked */
    "ct_event_new", "ct_event_free", "ct_stream_guard_end", NULL};

/* What code built on ctorch uses: raising an error, final callbacks, asking
 * whether a module is a BatchNorm. */
static ct_result never_called(void *user)
{
    (void)user;
    return CT_OK;
}

static void test_extension_points(void)
{
    CHECK_FAILS(ct_set_error(CT_ERR_INDEX, "index 3 is out of bounds"), CT_ERR_INDEX, "index 3 is out of bounds");
    CHECK_INT(ct_set_error(CT_ERR_VALUE, NULL), CT_ERR_VALUE); /* no message: an empty one */
    CHECK_STR(ct_last_error(), "");
    ct_clear_error();
    CHECK_FAILS(ct_autograd_queue_callback(never_called, NULL), CT_ERR_RUNTIME,
                "Final callbacks can only be installed during backward pass.");
    CHECK(!ct_nn_is_batch_norm(NULL, NULL, NULL));
    ct_module *lin = ct_nn_linear(2, 2, true);
    int64_t c = -7;
    CHECK(!ct_nn_is_batch_norm(lin, &c, NULL));
    CHECK_INT(c, -7); /* untouched */
    ct_module_release(lin);
    CHECK_INT(ct_last_error_code(), CT_OK);
}

static void test_every_function_is_exercised(void)
{
    char *header = read_all("ctorch.h"), *self = read_error_tests();
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
    RUN(test_extension_points);
    RUN(test_first_error_is_kept);
    RUN(test_error_handler_and_strings);
    RUN(test_dims_out_of_range);
    RUN(test_bad_shapes_and_sizes);
    RUN(test_bad_dtypes_and_values);
    RUN(test_one_tensor_functions);
    RUN(test_inplace_functions);
    RUN(test_two_tensor_functions);
    RUN(test_two_tensor_inplace_functions);
    RUN(test_number_functions);
    RUN(test_number_inplace_functions);
    RUN(test_add_sub_div_with_options);
    RUN(test_ternary_functions);
    RUN(test_clamps);
    RUN(test_unary_with_options);
    RUN(test_closeness);
    RUN(test_reductions_over_dims);
    RUN(test_norms);
    RUN(test_reductions_along_a_dim);
    RUN(test_scans_and_softmax);
    RUN(test_joining);
    RUN(test_splitting);
    RUN(test_repeating_flipping_rolling);
    RUN(test_gather);
    RUN(test_scatter);
    RUN(test_index_select_add_copy);
    RUN(test_index_fill_and_masks);
    RUN(test_take_and_one_hot);
    RUN(test_sort_and_select);
    RUN(test_unique_nonzero_searchsorted);
    RUN(test_gradients_and_nodes);
    RUN(test_backward);
    RUN(test_autograd_grad);
    RUN(test_hooks);
    RUN(test_gradcheck_and_functions);
    RUN(test_every_function_is_exercised);
    return ct_test_report();
}
