/* Bad input to the device functions and mixed devices, answered in
 * PyTorch's words; the program goes on. */
#define CTORCH_BACKEND /* the registration's declarations */
#include "harness.h"
#include "testdev.h"

static const ct_device testdev0 = {CT_DEVICE_PRIVATEUSE1, 0};

static void test_device_strings(void)
{
    ct_device d = {CT_DEVICE_CPU, -1};
    const char *expected_types = "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
                                 "ort, xla, lazy, vulkan, mps, meta, hpu, privateuseone device type at start of device "
                                 "string: CUDA";
    CHECK_FAILS(ct_device_parse("cuda:x", &d), CT_ERR_RUNTIME, "Invalid device string: 'cuda:x'");
    CHECK_FAILS(ct_device_parse("cuda:01", &d), CT_ERR_RUNTIME, "Invalid device string: 'cuda:01'");
    CHECK_FAILS(ct_device_parse("cuda:-1", &d), CT_ERR_RUNTIME, "Invalid device string: 'cuda:-1'");
    CHECK_FAILS(ct_device_parse("cuda:1:2", &d), CT_ERR_RUNTIME, "Invalid device string: 'cuda:1:2'");
    CHECK_FAILS(ct_device_parse("cuda: 1", &d), CT_ERR_RUNTIME, "Invalid device string: 'cuda: 1'");
    CHECK_FAILS(ct_device_parse("", &d), CT_ERR_RUNTIME, "Device string must not be empty");
    CHECK_FAILS(ct_device_parse("CUDA", &d), CT_ERR_RUNTIME, expected_types);
    CHECK_FAILS(ct_device_parse(NULL, &d), CT_ERR_VALUE, "must not be NULL");
    CHECK(d.type == CT_DEVICE_CPU); /* untouched by the failures */
    CHECK(ct_device_str(d, NULL, 8) == NULL);
    CHECK_FAILS(ct_set_error(CT_OK, "from a backend"), CT_ERR_RUNTIME, "from a backend");
}

static void test_devices_not_there(void)
{
    ct_tensor *x = ct_ones(CT_SHAPE(2), CT_F32);
    CHECK_ERR(ct_to_device(x, CT_CUDA(0), false), CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    CHECK_ERR(ct_cuda(x), CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    CHECK_FAILS(ct_set_default_device(CT_CUDA(0)), CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    CHECK_FAILS(ct_synchronize(CT_CUDA(0)), CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    CHECK_FAILS(ct_cuda_set_device(0), CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    CHECK_OK(ct_cuda_set_device(-1)); /* a negative index does nothing, as torch.cuda.set_device(-1) */
    ct_clear_error();
    CHECK_ERR(ct_cuda_current_device() >= 0, CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    ct_device_guard g = ct_device_guard_begin(CT_CUDA(1)); /* refused: the device in force stays */
    CHECK_ERR(NULL, CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    CHECK(ct_device_equal(ct_device_of(ct_zeros(CT_SHAPE(1), CT_F32)), CT_CPU));
    ct_device_guard_end(g);
    CHECK_ERR(ct_to_device(x, (ct_device){(ct_device_type)99, 0}, false), CT_ERR_VALUE, "invalid device type 99");
    CHECK_ERR(ct_to_device(x, testdev0, false), CT_ERR_RUNTIME, "PrivateUse1 backend is not registered");
    CHECK_ERR(ct_to_device(NULL, CT_CPU, false), CT_ERR_TYPE, "argument 'self' (position 1) must be Tensor, not NULL");
    CHECK_ERR(ct_cpu(NULL), CT_ERR_TYPE, "must be Tensor, not NULL");
    ct_module *lin = ct_nn_linear(2, 2, true);
    CHECK_FAILS(ct_module_to_device(lin, CT_CUDA(0)), CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    CHECK(ct_device_equal(ct_device_of(ct_module_get_parameter(lin, "weight")), CT_CPU));
    CHECK_FAILS(ct_module_to_device(NULL, CT_CPU), CT_ERR_TYPE, "to");
    ct_module_release(lin);
    CHECK(ct_device_equal(ct_get_default_device(), CT_CPU));
}

static void seed_nothing(void *state, uint64_t seed) { (void)state, (void)seed; }
static uint64_t no_seed(const void *state) { return (void)state, 0; }
static ct_result any_state(const void *bytes, size_t nbytes) { return (void)bytes, (void)nbytes, CT_OK; }
static const ct_generator_kind some_generator = {8, seed_nothing, no_seed, any_state};

static void test_registration(void)
{
    const ct_backend *cpu = ct_backend_get(CT_DEVICE_CPU);
    CHECK(cpu && !strcmp(cpu->name, "cpu"));
    CHECK(ct_backend_get((ct_device_type)99) == NULL && ct_backend_get(CT_DEVICE_DEFAULT) == NULL);
    char newer[96];
    snprintf(newer, sizeof newer, "the backend was built for backend interface version %d, this ctorch has version %d",
             CT_BACKEND_ABI_VERSION + 1, CT_BACKEND_ABI_VERSION);
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, cpu, CT_BACKEND_ABI_VERSION + 1), CT_ERR_RUNTIME, newer);
    CHECK_FAILS(ct_register_backend(CT_DEVICE_CPU, cpu, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "only the cuda and privateuseone device types take a backend");
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, NULL, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "the backend table has an empty entry");
    ct_backend whole = *cpu; /* a device's table: the CPU's with a generator of its own */
    whole.generator = &some_generator;
    CHECK_OK(ct_register_backend(CT_DEVICE_PRIVATEUSE1, &whole, CT_BACKEND_ABI_VERSION));
    CHECK(ct_backend_get(CT_DEVICE_PRIVATEUSE1) == &whole);
    CHECK_OK(ct_testdev_register()); /* the test device back in its place */
    ct_backend partial = whole;
    partial.gemm = NULL;
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, &partial, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "the backend table has an empty entry");
    partial = whole; /* memory statistics without their reset */
    partial.reset_peak_memory_stats = NULL;
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, &partial, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "the backend table has an empty entry");
    partial = *cpu; /* the CPU's table has no generator kind: its generator is the front end's */
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, &partial, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "the backend table has an empty entry");
    ct_generator_kind no_seed = some_generator;
    no_seed.seed = NULL;
    partial.generator = &no_seed;
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, &partial, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "the backend table has an empty entry");
    CHECK(ct_backend_get(CT_DEVICE_PRIVATEUSE1) != &partial); /* nothing half registered */
}

static void test_mixed_devices(void)
{
    CHECK_OK(ct_testdev_register());
    const char *mixed = "Expected all tensors to be on the same device, but found at least two devices, testdev:0 and cpu!";
    ct_tensor *c = ct_ones(CT_SHAPE(2, 2), CT_F32), *d = ct_to_device(c, testdev0, false);
    CHECK_ERR(ct_add(c, d), CT_ERR_RUNTIME, mixed);
    CHECK_ERR(ct_add(d, c), CT_ERR_RUNTIME, mixed);
    CHECK_FAILS(ct_add_(d, c), CT_ERR_RUNTIME, mixed);
    CHECK_ERR(ct_mm(c, d), CT_ERR_RUNTIME, mixed);
    ct_tensor *both[2] = {d, c};
    CHECK_ERR(ct_cat(both, 2, 0), CT_ERR_RUNTIME, mixed);
    CHECK_ERR(ct_linalg_cross(ct_ones(CT_SHAPE(3), CT_F32), ct_to_device(ct_ones(CT_SHAPE(3), CT_F32), testdev0, false), 0),
              CT_ERR_RUNTIME, mixed);
    CHECK_ERR(ct_conv1d(ct_ones(CT_SHAPE(1, 1, 4), CT_F32), ct_to_device(ct_ones(CT_SHAPE(1, 1, 2), CT_F32), testdev0, false),
                        NULL, (ct_conv_opts){0}),
              CT_ERR_RUNTIME, mixed);
    CHECK_ERR(ct_normal(d, c, NULL), CT_ERR_RUNTIME, mixed);
    CHECK_ERR(ct_to_device(c, (ct_device){CT_DEVICE_PRIVATEUSE1, 5}, false), CT_ERR_RUNTIME,
              "testdev device index 5 is out of range (2 devices)");
    CHECK_VALUES(d, CT_SHAPE(2, 2), 1, 1, 1, 1); /* nothing was written */
}

/* The message of a mix of testdev:0 with the CPU, first the device's. */
static const char mixed_msg[] =
    "Expected all tensors to be on the same device, but found at least two devices, testdev:0 and cpu!";

static ct_tensor *on_dev(ct_tensor *t) { return ct_to_device(t, testdev0, false); }

/* Pointwise ops with several tensors go through TensorIterator's rule,
 * which lets a 0-d CPU tensor join. */
static void test_mixed_pointwise(void)
{
    CHECK_OK(ct_testdev_register());
    ct_tensor *c = ct_ones(CT_SHAPE(2), CT_F32), *d = on_dev(ct_ones(CT_SHAPE(2), CT_F32));
    ct_tensor *s = ct_scalar_tensor(ct_float(2), CT_F32), *mask = on_dev(ct_ones(CT_SHAPE(2), CT_BOOL));
    CHECK_ERR(ct_where(mask, d, c), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_where(ct_ones(CT_SHAPE(2), CT_BOOL), d, d), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_lerp(d, c, d), CT_ERR_RUNTIME, mixed_msg);
    CHECK_FAILS(ct_lerp_(d, d, c), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_addcmul(d, c, d, ct_float(1)), CT_ERR_RUNTIME, mixed_msg);
    CHECK_FAILS(ct_addcdiv_(d, d, c, ct_float(1)), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_clamp(d, c, d), CT_ERR_RUNTIME, mixed_msg);
    CHECK_FAILS(ct_clamp_min_(d, c), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_maximum(c, d), CT_ERR_RUNTIME, mixed_msg);
    CHECK(!ct_allclose(d, c, (ct_isclose_opts){0}));
    CHECK_ERR(NULL, CT_ERR_RUNTIME, mixed_msg);
    CHECK_VALUES(d, CT_SHAPE(2), 1, 1); /* the in-place ones wrote nothing */
    /* 0-d CPU tensors join a device's */
    CHECK_VALUES(ct_where(mask, d, s), CT_SHAPE(2), 1, 1);
    CHECK_VALUES(ct_lerp(d, d, s), CT_SHAPE(2), 1, 1);
    CHECK_VALUES(ct_addcmul(d, s, s, ct_float(1)), CT_SHAPE(2), 5, 5);
    CHECK_VALUES(ct_clamp(d, s, s), CT_SHAPE(2), 2, 2);
    CHECK(ct_device_equal(ct_device_of(ct_add(d, s)), testdev0));
}

/* gather, scatter, index_* and take: every tensor on one device; nothing
 * written or made on the device first. */
static void test_mixed_index_ops(void)
{
    CHECK_OK(ct_testdev_register());
    ct_tensor *c = ct_ones(CT_SHAPE(2, 2), CT_F32), *d = on_dev(ct_ones(CT_SHAPE(2, 2), CT_F32));
    ct_tensor *ci = ct_zeros(CT_SHAPE(2, 2), CT_I64), *di = on_dev(ct_zeros(CT_SHAPE(2, 2), CT_I64));
    ct_tensor *cv = ct_zeros(CT_SHAPE(1), CT_I64), *dv = on_dev(ct_zeros(CT_SHAPE(1), CT_I64));
    ct_tensor *s = ct_scalar_tensor(ct_float(5), CT_F32);
    CHECK_ERR(ct_gather(d, 0, ci), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_gather(c, 0, di), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_scatter(d, 0, ci, d), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_scatter(d, 0, di, c), CT_ERR_RUNTIME, mixed_msg);
    CHECK_FAILS(ct_scatter_(d, 0, di, c), CT_ERR_RUNTIME, mixed_msg);
    CHECK_FAILS(ct_scatter_scalar_(d, 0, ci, ct_float(3)), CT_ERR_RUNTIME, mixed_msg);
    CHECK_FAILS(ct_scatter_add_(d, 0, di, c), CT_ERR_RUNTIME, mixed_msg);
    CHECK_FAILS(ct_scatter_with_reduce_(d, 0, ci, d, "add"), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_index_select(d, 0, cv), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_index_select(c, 0, dv), CT_ERR_RUNTIME, mixed_msg);
    CHECK_FAILS(ct_index_add_(d, 0, cv, on_dev(ct_ones(CT_SHAPE(1, 2), CT_F32))), CT_ERR_RUNTIME, mixed_msg);
    CHECK_FAILS(ct_index_add_(d, 0, dv, ct_ones(CT_SHAPE(1, 2), CT_F32)), CT_ERR_RUNTIME, mixed_msg);
    CHECK_FAILS(ct_index_copy_(d, 0, dv, ct_zeros(CT_SHAPE(1, 2), CT_F32)), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_index_copy(d, 0, cv, on_dev(ct_zeros(CT_SHAPE(1, 2), CT_F32))), CT_ERR_RUNTIME, mixed_msg);
    CHECK_FAILS(ct_index_fill_scalar_(d, 0, cv, ct_float(3)), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_index_fill(d, 0, cv, s), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_take(d, ci), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_masked_select(d, ct_ones(CT_SHAPE(2, 2), CT_BOOL)), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_repeat_interleave_tensor(d, ct_ones(CT_SHAPE(4), CT_I64)), CT_ERR_RUNTIME, mixed_msg);
    CHECK_VALUES(d, CT_SHAPE(2, 2), 1, 1, 1, 1);
    /* index_fill's and masked_fill's value is a number: a tensor of it may be anywhere */
    CHECK_VALUES(ct_index_fill(d, 0, dv, s), CT_SHAPE(2, 2), 5, 5, 1, 1);
    CHECK_VALUES(ct_index_fill(c, 0, cv, on_dev(ct_scalar_tensor(ct_float(4), CT_F32))), CT_SHAPE(2, 2), 4, 4, 1, 1);
    CHECK_VALUES(ct_gather(d, 0, di), CT_SHAPE(2, 2), 1, 1, 1, 1);
}

/* masked_fill words its own check; its value may be a 0-d tensor anywhere. */
static void test_mixed_masked_fill(void)
{
    CHECK_OK(ct_testdev_register());
    const char *msg = "expected self and mask to be on the same device, but got mask on cpu and self on testdev:0";
    ct_tensor *d = on_dev(ct_ones(CT_SHAPE(2), CT_F32)), *cm = ct_ones(CT_SHAPE(2), CT_BOOL);
    ct_tensor *dm = on_dev(cm), *s = ct_scalar_tensor(ct_float(7), CT_F32);
    CHECK_ERR(ct_masked_fill(d, cm, s), CT_ERR_RUNTIME, msg);
    CHECK_FAILS(ct_masked_fill_(d, cm, s), CT_ERR_RUNTIME, msg);
    CHECK_FAILS(ct_masked_fill_scalar_(d, cm, ct_float(7)), CT_ERR_RUNTIME, msg);
    CHECK_ERR(ct_masked_fill_scalar(ct_ones(CT_SHAPE(2), CT_F32), dm, ct_float(7)), CT_ERR_RUNTIME,
              "expected self and mask to be on the same device, but got mask on testdev:0 and self on cpu");
    CHECK_VALUES(d, CT_SHAPE(2), 1, 1);
    CHECK_VALUES(ct_masked_fill(d, dm, s), CT_SHAPE(2), 7, 7);
    CHECK_OK(ct_masked_fill_(d, dm, s));
    CHECK_VALUES(d, CT_SHAPE(2), 7, 7);
}

/* x[indices]: indices on the CPU or on x's device (a RuntimeError, as
 * TORCH_CHECK raises it); x[indices] = value: indices on any device, moved
 * to x's as make_info moves them, value on x's device or a 0-d CPU tensor,
 * copied across devices for basic indexing. */
static void test_mixed_indexing(void)
{
    CHECK_OK(ct_testdev_register());
    ct_tensor *c = ct_ones(CT_SHAPE(2, 2), CT_F32), *d = on_dev(ct_ones(CT_SHAPE(2, 2), CT_F32));
    ct_tensor *ci = ct_zeros(CT_SHAPE(1), CT_I64), *di = on_dev(ci);
    CHECK_ERR(ct_index(c, "%t", di), CT_ERR_RUNTIME,
              "indices should be either on cpu or on the same device as the indexed tensor (cpu)");
    CHECK_ERR(ct_index(c, ":, %t", on_dev(ct_ones(CT_SHAPE(2), CT_BOOL))), CT_ERR_RUNTIME,
              "indices should be either on cpu or on the same device as the indexed tensor (cpu)");
    CHECK_ERR(ct_index(d, "%t", ct_to_device(ci, (ct_device){CT_DEVICE_PRIVATEUSE1, 1}, false)), CT_ERR_RUNTIME,
              "indices should be either on cpu or on the same device as the indexed tensor (testdev:0)");
    CHECK_VALUES(ct_index(d, "%t", ci), CT_SHAPE(1, 2), 1, 1);
    CHECK_VALUES(ct_index(d, "%t", di), CT_SHAPE(1, 2), 1, 1);
    CHECK_FAILS(ct_index_put_(d, ct_full(CT_SHAPE(2), ct_float(3), CT_F32), "%t", ci), CT_ERR_RUNTIME, mixed_msg);
    CHECK_VALUES(d, CT_SHAPE(2, 2), 1, 1, 1, 1);
    CHECK_OK(ct_index_put_(d, ct_scalar_tensor(ct_float(4), CT_F32), "%t", ci));
    CHECK_OK(ct_index_put_(d, ct_full(CT_SHAPE(2), ct_float(5), CT_F32), "1")); /* a copy_: any device */
    CHECK_VALUES(d, CT_SHAPE(2, 2), 4, 4, 5, 5);
    CHECK_OK(ct_copy_(c, d));
    CHECK_VALUES(c, CT_SHAPE(2, 2), 4, 4, 5, 5);
    ct_tensor *dpair = on_dev(ct_from_array((int64_t[]){1, 1}, CT_SHAPE(2), CT_I64));
    CHECK_OK(ct_index_put_(c, ct_full(CT_SHAPE(2), ct_float(6), CT_F32), "%t", on_dev(ct_ones(CT_SHAPE(1), CT_I64))));
    CHECK_OK(ct_index_put_accumulate_(c, ct_ones(CT_SHAPE(2, 2), CT_F32), "%t", dpair));
    CHECK_VALUES(c, CT_SHAPE(2, 2), 4, 4, 8, 8);
    CHECK_OK(ct_index_put_(c, ct_full(CT_SHAPE(2), ct_float(9), CT_F32), ":, %t", on_dev(ct_ones(CT_SHAPE(2), CT_BOOL))));
    CHECK_VALUES(c, CT_SHAPE(2, 2), 9, 9, 9, 9);
    CHECK_OK(ct_index_put_accumulate_(c, ct_full(CT_SHAPE(2), ct_float(2), CT_F32), "%t, 0", dpair));
    CHECK_VALUES(c, CT_SHAPE(2, 2), 9, 9, 13, 9);
}

/* nn's functions reach the checks through the ops they are made of. */
static void test_mixed_nn(void)
{
    CHECK_OK(ct_testdev_register());
    ct_tensor *x = on_dev(ct_ones(CT_SHAPE(2, 3), CT_F32)), *w = ct_ones(CT_SHAPE(3), CT_F32);
    ct_tensor *target = ct_zeros(CT_SHAPE(2), CT_I64), *dtarget = on_dev(target);
    CHECK_ERR(ct_embedding(target, on_dev(ct_ones(CT_SHAPE(4, 3), CT_F32)), -1), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_embedding(dtarget, ct_ones(CT_SHAPE(4, 3), CT_F32), -1), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_cross_entropy(x, target, ct_nll_loss_opts_init()), CT_ERR_RUNTIME, mixed_msg);
    ct_nll_loss_opts o = ct_nll_loss_opts_init();
    o.weight = w;
    CHECK_ERR(ct_nll_loss(x, dtarget, o), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_cross_entropy(x, dtarget, o), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_mse_loss(x, ct_ones(CT_SHAPE(2, 3), CT_F32), CT_REDUCTION_MEAN), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_binary_cross_entropy(x, x, w, CT_REDUCTION_MEAN), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_linear(x, ct_ones(CT_SHAPE(2, 3), CT_F32), NULL), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_layer_norm(x, CT_SHAPE(3), w, NULL, 1e-5), CT_ERR_RUNTIME, mixed_msg);
    ct_tensor *rm = ct_zeros(CT_SHAPE(3), CT_F32);
    CHECK_ERR(ct_batch_norm(x, rm, on_dev(ct_ones(CT_SHAPE(3), CT_F32)), NULL, NULL, true, 0.1, 1e-5), CT_ERR_RUNTIME,
              mixed_msg);
    CHECK_VALUES(rm, CT_SHAPE(3), 0, 0, 0); /* the running stats are untouched */
    ct_tensor *q = on_dev(ct_ones(CT_SHAPE(1, 2, 3), CT_F32));
    CHECK_ERR(ct_scaled_dot_product_attention(q, ct_ones(CT_SHAPE(1, 2, 3), CT_F32), q, (ct_sdpa_opts){0}, NULL),
              CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_gru_cell(x, on_dev(ct_ones(CT_SHAPE(2, 2), CT_F32)), on_dev(ct_ones(CT_SHAPE(6, 3), CT_F32)),
                          ct_ones(CT_SHAPE(6, 2), CT_F32), NULL, NULL),
              CT_ERR_RUNTIME, mixed_msg);
    CHECK_NEAR(ct_item(ct_cross_entropy(x, dtarget, ct_nll_loss_opts_init())), log(3.0), 1e-6);
    /* the recurrent layers check their states, then their parameters, with their own words */
    ct_module *lstm = ct_nn_lstm(3, 2, ct_rnn_opts_init());
    ct_tensor *seq = on_dev(ct_ones(CT_SHAPE(4, 1, 3), CT_F32)), *h = NULL, *c = NULL;
    CHECK_ERR(ct_lstm_forward(lstm, seq, NULL, NULL, &h, &c), CT_ERR_RUNTIME,
              "Input and parameter tensors are not at the same device, found input tensor at testdev:0 and parameter "
              "tensor at cpu");
    CHECK_OK(ct_module_to_device(lstm, testdev0));
    CHECK_ERR(ct_lstm_forward(lstm, seq, ct_zeros(CT_SHAPE(1, 1, 2), CT_F32), on_dev(ct_zeros(CT_SHAPE(1, 1, 2), CT_F32)),
                              &h, &c),
              CT_ERR_RUNTIME,
              "Input and hidden tensors are not at the same device, found input tensor at testdev:0 and hidden tensor "
              "at cpu");
    ct_module_release(lstm);
}

/* Products and solvers take their operands on one device. */
static void test_mixed_linalg(void)
{
    CHECK_OK(ct_testdev_register());
    ct_tensor *c = ct_eye(2, 2, CT_F32), *d = on_dev(ct_eye(2, 2, CT_F32));
    CHECK_ERR(ct_bmm(on_dev(ct_ones(CT_SHAPE(1, 2, 2), CT_F32)), ct_ones(CT_SHAPE(1, 2, 2), CT_F32)), CT_ERR_RUNTIME,
              mixed_msg);
    CHECK_ERR(ct_matmul(c, on_dev(ct_ones(CT_SHAPE(2), CT_F32))), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_addmm(ct_scalar_tensor(ct_float(1), CT_F32), d, d, ct_addmm_opts_init()), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_einsum("ij,jk", (ct_tensor *[]){c, d}, 2), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_linalg_solve(d, c), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_linalg_solve(c, d), CT_ERR_RUNTIME, mixed_msg);
    CHECK_ERR(ct_linalg_lstsq(d, c), CT_ERR_RUNTIME, mixed_msg);
    CHECK_VALUES(ct_linalg_solve(d, d), CT_SHAPE(2, 2), 1, 0, 0, 1);
}

/* Gradients: set_grad's type and device checks, backward's grad_outputs
 * (a 0-d one is moved to its output's device), the optimizers and clipping. */
static void test_mixed_autograd_optim(void)
{
    CHECK_OK(ct_testdev_register());
    const ct_device dev1 = {CT_DEVICE_PRIVATEUSE1, 1};
    ct_tensor *x = on_dev(ct_ones(CT_SHAPE(2), CT_F32));
    ct_requires_grad_(x, true);
    CHECK_FAILS(ct_set_grad(x, ct_ones(CT_SHAPE(2), CT_F32)), CT_ERR_RUNTIME, "assigned grad has data of a different type");
    CHECK_FAILS(ct_set_grad(x, ct_to_device(ct_ones(CT_SHAPE(2), CT_F32), dev1, false)), CT_ERR_RUNTIME,
                "assigned grad has data located on a different device");
    CHECK(ct_grad(x) == NULL);
    ct_tensor *y = ct_mul_scalar(x, ct_float(3));
    CHECK_FAILS(ct_backward(y, ct_ones(CT_SHAPE(2), CT_F32), (ct_backward_opts){.retain_graph = true}), CT_ERR_RUNTIME,
                "invalid gradient at index 0 - expected device testdev:0 but got cpu");
    ct_tensor *g = NULL;
    const ct_tensor *outs[1] = {y}, *ins[1] = {x}, *gos[1] = {ct_ones(CT_SHAPE(2), CT_F32)};
    CHECK_FAILS(ct_autograd_grad(outs, 1, ins, 1, gos, &g, (ct_grad_opts){.retain_graph = true}), CT_ERR_RUNTIME,
                "invalid gradient at index 0 - expected device testdev:0 but got cpu");
    CHECK(ct_grad(x) == NULL);
    ct_tensor *total = ct_sum(y);
    CHECK_OK(ct_backward(total, ct_scalar_tensor(ct_float(2), CT_F32), (ct_backward_opts){0}));
    CHECK_VALUES(ct_grad(x), CT_SHAPE(2), 6, 6);
    /* parameters on two devices: the optimizers and clipping take them, the vector helpers do not */
    ct_tensor *w = ct_ones(CT_SHAPE(2), CT_F32);
    ct_requires_grad_(w, true);
    CHECK_OK(ct_set_grad(w, ct_full(CT_SHAPE(2), ct_float(8), CT_F32)));
    ct_tensor *params[2] = {x, w};
    CHECK_ERR(ct_parameters_to_vector(params, 2), CT_ERR_TYPE,
              "Found two parameters on different devices, this is currently not supported.");
    CHECK_FAILS(ct_vector_to_parameters(ct_zeros(CT_SHAPE(4), CT_F32), params, 2), CT_ERR_TYPE,
                "Found two parameters on different devices, this is currently not supported.");
    CHECK_VALUES(w, CT_SHAPE(2), 1, 1);
    CHECK_NEAR(ct_item(ct_clip_grad_norm_(params, 2, 100.0, 2.0, false)), sqrt(200.0), 1e-5);
    ct_optimizer *opt = ct_sgd(params, 2, (ct_sgd_opts){.lr = 0.5});
    CHECK_OK(ct_optim_step(opt));
    CHECK_VALUES(x, CT_SHAPE(2), -2, -2);
    CHECK_VALUES(w, CT_SHAPE(2), -3, -3);
    ct_optim_free(opt);
}

/* vector_to_parameters moves CPU parameters onto the vector's device as
 * views of it (param.data = vec[a:b].view_as(param).data); their .grad
 * stays where it was, and a graph still holding a parameter's old
 * AccumulateGrad node does not stand in the way of new ones. */
static void test_vector_to_parameters_across_devices(void)
{
    CHECK_OK(ct_testdev_register());
    ct_tensor *p[2] = {ct_ones(CT_SHAPE(2), CT_F32), ct_ones(CT_SHAPE(1, 2), CT_F32)};
    ct_requires_grad_(p[0], true);
    CHECK_OK(ct_set_grad(p[0], ct_full(CT_SHAPE(2), ct_float(5), CT_F32)));
    ct_tensor *old = ct_mul_scalar(p[0], ct_int(2));
    ct_tensor *vec = on_dev(ct_arange(ct_int(0), ct_int(4), ct_int(1), CT_F32));
    CHECK_OK(ct_vector_to_parameters(vec, p, 2));
    CHECK(ct_device_equal(ct_device_of(p[0]), testdev0) && ct_device_equal(ct_device_of(p[1]), testdev0));
    CHECK_VALUES(p[1], CT_SHAPE(1, 2), 2, 3);
    CHECK_OK(ct_mul_scalar_(vec, ct_int(10)));
    CHECK_VALUES(p[1], CT_SHAPE(1, 2), 20, 30);
    CHECK(ct_device_equal(ct_device_of(ct_grad(p[0])), CT_CPU));
    CHECK_OK(ct_set_grad(p[0], NULL));
    CHECK_OK(ct_backward(ct_sum(ct_mul(p[0], p[0])), NULL, (ct_backward_opts){0}));
    CHECK(ct_device_equal(ct_device_of(ct_grad(p[0])), testdev0));
    CHECK_VALUES(ct_grad(p[0]), CT_SHAPE(2), 0, 20);
    CHECK_VALUES(old, CT_SHAPE(2), 2, 2);
    /* parameters on two devices are refused before any moves */
    ct_tensor *mixed[2] = {ct_ones(CT_SHAPE(2), CT_F32), p[1]};
    CHECK_FAILS(ct_vector_to_parameters(ct_zeros(CT_SHAPE(4), CT_F32), mixed, 2), CT_ERR_TYPE,
                "Found two parameters on different devices, this is currently not supported.");
    CHECK(ct_device_equal(ct_device_of(mixed[0]), CT_CPU));
    CHECK_VALUES(p[1], CT_SHAPE(1, 2), 20, 30);
}

/* LBFGS closures: sum(x * x), with (x's gradient made afresh) or without a backward. */
static ct_result square_loss(double *loss, void *user)
{
    ct_tensor *x = (ct_tensor *)user;
    ct_tensor *y = ct_sum(ct_mul(x, x));
    *loss = ct_item(y);
    return ct_set_grad(x, NULL) == CT_OK ? ct_backward(y, NULL, (ct_backward_opts){0}) : ct_last_error_code();
}

static ct_result square_loss_no_backward(double *loss, void *user)
{
    *loss = ct_item(ct_sum(ct_mul((ct_tensor *)user, (ct_tensor *)user)));
    return CT_OK;
}

static double lbfgs_state(const ct_optimizer *opt, const ct_tensor *p, const char *name)
{
    return ct_item(ct_optim_state_get(opt, p, name));
}

/* LBFGS's step checks devices as the other optimizers' steps do, after the
 * closure has made the gradients and before it changes anything: a
 * gradient, or its flat state from an earlier step, left on another device
 * than the parameters (moved by vector_to_parameters) is refused. */
static void test_lbfgs_step_checks_devices(void)
{
    CHECK_OK(ct_testdev_register());
    ct_tensor *w = ct_ones(CT_SHAPE(2), CT_F32);
    ct_requires_grad_(w, true);
    CHECK_OK(ct_set_grad(w, ct_full(CT_SHAPE(2), ct_float(8), CT_F32)));
    CHECK_OK(ct_vector_to_parameters(on_dev(ct_ones(CT_SHAPE(2), CT_F32)), &w, 1));
    ct_optimizer *opt = ct_lbfgs(&w, 1, ct_lbfgs_opts_init());
    CHECK_FAILS(ct_optim_step_closure(opt, square_loss_no_backward, w, NULL), CT_ERR_RUNTIME, mixed_msg);
    CHECK_VALUES(w, CT_SHAPE(2), 1, 1);
    CHECK(lbfgs_state(opt, w, "func_evals") == 0 && lbfgs_state(opt, w, "n_iter") == 0);
    ct_optim_free(opt);

    ct_tensor *x = ct_ones(CT_SHAPE(2), CT_F32);
    ct_requires_grad_(x, true);
    ct_lbfgs_opts o = ct_lbfgs_opts_init();
    o.max_iter = 1;
    opt = ct_lbfgs(&x, 1, o);
    CHECK_OK(ct_optim_step_closure(opt, square_loss, x, NULL)); /* on the CPU: d, prev_flat_grad */
    CHECK_OK(ct_vector_to_parameters(on_dev(ct_optim_state_get(opt, x, "prev_flat_grad")), &x, 1));
    CHECK_FAILS(ct_optim_step_closure(opt, square_loss, x, NULL), CT_ERR_RUNTIME, mixed_msg);
    CHECK_VALUES(x, CT_SHAPE(2), 2, 2);
    CHECK(lbfgs_state(opt, x, "func_evals") == 1 && lbfgs_state(opt, x, "n_iter") == 1);
    ct_optim_free(opt);
}

/* With the CPU as the default device, ops on device tensors make their
 * helpers (indices, masks, zero states, padding) on their inputs' device,
 * so the checks above do not refuse them. */
static void test_helpers_on_input_device(void)
{
    CHECK_OK(ct_testdev_register());
    ct_manual_seed(0);
    ct_tensor *x = on_dev(ct_ones(CT_SHAPE(2, 2), CT_F32)), *q = on_dev(ct_randn(CT_SHAPE(3, 2, 4), CT_F32, NULL));
    CHECK_VALUES(ct_repeat_interleave(on_dev(ct_arange(ct_int(0), ct_int(2), ct_int(1), CT_I64)), 2), CT_SHAPE(4),
                 0, 0, 1, 1);
    CHECK_VALUES(ct_one_hot(on_dev(ct_ones(CT_SHAPE(1), CT_I64)), 2), CT_SHAPE(1, 2), 0, 1);
    CHECK_VALUES(ct_repeat(x, CT_SHAPE(1, 2)), CT_SHAPE(2, 4), 1, 1, 1, 1, 1, 1, 1, 1);
    CHECK_VALUES(ct_pad(on_dev(ct_ones(CT_SHAPE(1), CT_F32)), CT_SHAPE(1, 0), CT_PAD_CONSTANT, 0), CT_SHAPE(2), 0, 1);
    CHECK_VALUES(ct_embedding_bag(on_dev(ct_zeros(CT_SHAPE(1, 2), CT_I64)), x, NULL, "sum"), CT_SHAPE(1, 2), 2, 2);
    CHECK_T(ct_scaled_dot_product_attention(q, q, q, (ct_sdpa_opts){.is_causal = true}, NULL));
    ct_module *mha = ct_nn_multihead_attention(4, 2, (ct_mha_opts){.add_bias_kv = true, .add_zero_attn = true});
    CHECK_OK(ct_module_to_device(mha, testdev0));
    ct_mha_forward_opts mo = {.key_padding_mask = on_dev(ct_zeros(CT_SHAPE(2, 3), CT_BOOL))};
    CHECK_T(ct_multihead_attention_forward(mha, q, q, q, mo, NULL));
    ct_module *lstm = ct_nn_lstm(4, 3, ct_rnn_opts_init());
    CHECK_OK(ct_module_to_device(lstm, testdev0));
    ct_tensor *h = NULL, *c = NULL;
    CHECK_T(ct_lstm_forward(lstm, q, NULL, NULL, &h, &c));
    CHECK(h && ct_device_equal(ct_device_of(h), testdev0));
    ct_tensor *g = on_dev(ct_ones(CT_SHAPE(3, 2), CT_F32)); /* indexing records its positions there too */
    ct_requires_grad_(g, true);
    CHECK_OK(ct_backward(ct_sum(ct_index(g, "[0, 2], ::2")), NULL, (ct_backward_opts){0}));
    ct_tensor *z = ct_mul_scalar(g, ct_float(2));
    CHECK_OK(ct_index_put_(z, on_dev(ct_zeros(CT_SHAPE(2), CT_F32)), "[0, 2], 0"));
    CHECK_OK(ct_backward(ct_sum(z), NULL, (ct_backward_opts){0}));
    CHECK_VALUES(ct_grad(g), CT_SHAPE(3, 2), 1, 2, 2, 2, 1, 2);
    ct_module *cell = ct_nn_gru_cell(4, 3, true);
    CHECK_OK(ct_module_to_device(cell, testdev0));
    CHECK_T(ct_forward(cell, on_dev(ct_ones(CT_SHAPE(2, 4), CT_F32))));
    ct_module_release(cell);
    ct_module_release(lstm);
    ct_module_release(mha);
}

/* Copies are not ops over a common device: copy_ (above) and
 * load_state_dict, which copies into the module's parameters where they are. */
static void test_load_state_dict_across_devices(void)
{
    CHECK_OK(ct_testdev_register());
    ct_module *a = ct_nn_linear(2, 2, true), *b = ct_nn_linear(2, 2, true);
    CHECK_OK(ct_module_to_device(b, testdev0));
    ct_tensor_list sd = ct_module_state_dict(a);
    CHECK_OK(ct_module_load_state_dict(b, &sd, true, NULL));
    ct_tensor *w = ct_module_get_parameter(b, "weight");
    CHECK(ct_device_equal(ct_device_of(w), testdev0));
    CHECK(ct_equal(ct_cpu(w), ct_module_get_parameter(a, "weight")));
    ct_tensor_list_free(&sd);
    ct_module_release(b);
    ct_module_release(a);
}

/* Memory statistics of a device that keeps none (a backend without them:
 * the CPU's table less its statistics), is not there or is out of range:
 * PyTorch's errors, the counters untouched. */
static void test_memory_stats_errors(void)
{
    static ct_backend no_stats;
    no_stats = *ct_backend_get(CT_DEVICE_CPU);
    no_stats.name = "nostats";
    no_stats.memory_stats = NULL, no_stats.reset_peak_memory_stats = NULL, no_stats.empty_cache = NULL;
    no_stats.generator = &some_generator;
    ct_device nostats0 = {CT_DEVICE_PRIVATEUSE1, 0};
    ct_memory_counters s, untouched = {-1, -1, -1, -1, -1, -1};
    CHECK_OK(ct_register_backend(CT_DEVICE_PRIVATEUSE1, &no_stats, CT_BACKEND_ABI_VERSION));
    s = untouched;
    CHECK_FAILS(ct_memory_stats(nostats0, &s), CT_ERR_VALUE, "Expected a cuda device, but got: nostats:0");
    CHECK_FAILS(ct_reset_peak_memory_stats(nostats0), CT_ERR_VALUE, "Expected a cuda device, but got: nostats:0");
    CHECK_FAILS(ct_empty_cache(nostats0), CT_ERR_VALUE, "Expected a cuda device, but got: nostats:0");
    CHECK_OK(ct_testdev_register());
    CHECK_FAILS(ct_memory_stats(CT_CUDA(0), &s), CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    CHECK_FAILS(ct_memory_stats((ct_device){CT_DEVICE_PRIVATEUSE1, 2}, &s), CT_ERR_RUNTIME,
                "testdev device index 2 is out of range (2 devices)");
    CHECK(memcmp(&s, &untouched, sizeof s) == 0);
    CHECK_FAILS(ct_memory_stats(testdev0, NULL), CT_ERR_TYPE, "argument 'out' (position 2)");
    CHECK_FAILS(ct_reset_peak_memory_stats(CT_CUDA(0)), CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    CHECK_FAILS(ct_empty_cache((ct_device){CT_DEVICE_PRIVATEUSE1, 2}), CT_ERR_RUNTIME,
                "testdev device index 2 is out of range (2 devices)");
    CHECK_OK(ct_memory_stats(CT_CPU, &s)); /* the CPU keeps them (tests/test_cpu_alloc.c) */
}

/* Streams and events: the CPU and a device without streams have none, in
 * PyTorch's words; CUDA without its backend is not compiled in; a stream
 * table with a hole is refused at registration. Outputs stay untouched. */
static void test_stream_errors(void)
{
    const char *cpu_msg = "Expected a cuda device, but got: cpu";
    ct_stream s = {CT_CPU, 77}, cpu_stream = {CT_CPU, 0};
    CHECK_FAILS(ct_stream_new(CT_CPU, 0, &s), CT_ERR_VALUE, cpu_msg);
    CHECK_FAILS(ct_stream_new(CT_CUDA(0), 0, &s), CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    CHECK_FAILS(ct_stream_new(testdev0, -1, &s), CT_ERR_VALUE, "Expected a cuda device, but got: testdev:0");
    CHECK_FAILS(ct_stream_new(CT_CPU, 0, NULL), CT_ERR_TYPE, "argument 'out' (position 3)");
    CHECK_FAILS(ct_current_stream(CT_CPU, &s), CT_ERR_VALUE, cpu_msg);
    CHECK_FAILS(ct_default_stream(CT_CUDA(0), &s), CT_ERR_RUNTIME, "Torch not compiled with CUDA enabled");
    CHECK_FAILS(ct_current_stream(CT_CPU, NULL), CT_ERR_TYPE, "argument 'out' (position 2)");
    CHECK_INT(s.id, 77);
    CHECK_FAILS(ct_set_stream(cpu_stream), CT_ERR_VALUE, cpu_msg);
    ct_stream_guard g = ct_stream_guard_begin(cpu_stream);
    CHECK(!g.active);
    CHECK_INT(ct_last_error_code(), CT_ERR_VALUE);
    ct_stream_guard_end(g);
    void *handle = &s;
    CHECK_FAILS(ct_stream_handle(cpu_stream, &handle), CT_ERR_VALUE, cpu_msg);
    CHECK(handle == &s);
    CHECK_FAILS(ct_stream_synchronize(cpu_stream), CT_ERR_VALUE, cpu_msg);
    bool done = false;
    CHECK_FAILS(ct_stream_query(cpu_stream, &done), CT_ERR_VALUE, cpu_msg);
    CHECK_FAILS(ct_stream_query(cpu_stream, NULL), CT_ERR_TYPE, "argument 'done' (position 2)");
    CHECK_FAILS(ct_stream_wait_stream(cpu_stream, cpu_stream), CT_ERR_VALUE, cpu_msg);
    ct_event *e = ct_event_new((ct_event_opts){.enable_timing = true});
    CHECK_FAILS(ct_event_record(e, cpu_stream), CT_ERR_VALUE, cpu_msg);
    CHECK_FAILS(ct_event_record(NULL, cpu_stream), CT_ERR_TYPE, "argument 'event' (position 1)");
    CHECK_FAILS(ct_event_wait(e, cpu_stream), CT_ERR_VALUE, cpu_msg);
    CHECK_FAILS(ct_event_wait(NULL, cpu_stream), CT_ERR_TYPE, "argument 'event' (position 1)");
    CHECK_FAILS(ct_event_synchronize(NULL), CT_ERR_TYPE, "argument 'event' (position 1)");
    CHECK_FAILS(ct_event_query(e, NULL), CT_ERR_TYPE, "argument 'done' (position 2)");
    CHECK_OK(ct_event_query(e, &done)); /* never recorded: done */
    CHECK(done);
    float ms = -1;
    CHECK_FAILS(ct_event_elapsed_time(e, e, &ms), CT_ERR_RUNTIME,
                "Both events must be recorded before calculating elapsed time.");
    CHECK_FAILS(ct_event_elapsed_time(e, NULL, &ms), CT_ERR_TYPE, "argument 'end' (position 2)");
    CHECK(ms == -1);
    ct_event_free(e);
    ct_tensor *x = ct_ones(CT_SHAPE(2), CT_F32);
    CHECK_FAILS(ct_record_stream(x, cpu_stream), CT_ERR_VALUE, cpu_msg);
    CHECK_FAILS(ct_record_stream(NULL, cpu_stream), CT_ERR_TYPE, "argument 'self' (position 1)");

    static ct_stream_kernels holed;
    static ct_backend with_holed_streams;
    with_holed_streams = *ct_backend_get(CT_DEVICE_CPU);
    with_holed_streams.name = "holed";
    with_holed_streams.generator = &some_generator;
    with_holed_streams.streams = &holed;
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, &with_holed_streams, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "register_backend(): the backend table has an empty entry");
}

/* Pinned memory needs the CUDA backend (PyTorch 1.13's words where it has
 * no CUDA); a backend with half of the pinned-memory pair is refused. */
static void test_pin_memory_errors(void)
{
    ct_tensor *x = ct_ones(CT_SHAPE(2), CT_F32);
    CHECK_ERR(ct_pin_memory(x), CT_ERR_NOT_IMPLEMENTED,
              "Could not run 'aten::_pin_memory' with arguments from the 'CUDA' backend.");
    CHECK_ERR(ct_pin_memory(NULL), CT_ERR_TYPE, "argument 'self' (position 1)");
    CHECK(!ct_is_pinned(x) && !ct_is_pinned(NULL));
    static ct_backend half_pinned;
    half_pinned = *ct_backend_get(CT_DEVICE_CPU);
    half_pinned.generator = &some_generator;
    half_pinned.host_alloc = malloc;
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, &half_pinned, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "register_backend(): the backend table has an empty entry");
}

/* Generators: of a device that is not there, or of another device type than the tensor they fill. */
static void test_generator_errors(void)
{
    static const char no_cuda[] = "Device type CUDA is not supported for torch.Generator() api.";
    CHECK_OK(ct_testdev_register());
    CHECK_ERR(ct_generator_new_device(CT_CUDA(0)), CT_ERR_RUNTIME, no_cuda);
    CHECK_ERR(ct_device_default_generator(CT_CUDA(0)), CT_ERR_RUNTIME, no_cuda);
    CHECK_ERR(ct_generator_new_device(CT__DEVICE(CT_DEVICE_PRIVATEUSE1, 2)), CT_ERR_RUNTIME,
              "testdev device index 2 is out of range (2 devices)");
    CHECK_ERR(ct_device_default_generator(CT__DEVICE(CT_DEVICE_PRIVATEUSE1, 2)), CT_ERR_RUNTIME,
              "testdev device index 2 is out of range (2 devices)");
    ct_generator *cpu = ct_generator_new(), *dev = ct_generator_new_device(testdev0);
    ct_tensor *x = ct_zeros(CT_SHAPE(3), CT_F32), *d = ct_to_device(x, testdev0, false);
    CHECK_FAILS(ct_uniform_(d, 0, 1, cpu), CT_ERR_RUNTIME, "Expected a 'testdev' device type for generator but found 'cpu'");
    CHECK_FAILS(ct_normal_(x, 0, 1, dev), CT_ERR_RUNTIME, "Expected a 'cpu' device type for generator but found 'testdev'");
    CHECK_ERR(ct_randn(CT_SHAPE(2), CT_F32, dev), CT_ERR_RUNTIME,
              "Expected a 'cpu' device type for generator but found 'testdev'");
    CHECK_ERR(ct_bernoulli(d, cpu), CT_ERR_RUNTIME, "Expected a 'testdev' device type for generator but found 'cpu'");
    CHECK_VALUES(x, CT_SHAPE(3), 0, 0, 0); /* untouched */
    unsigned char state[5056] = {0};
    CHECK_FAILS(ct_generator_set_state(dev, state, 16), CT_ERR_RUNTIME,
                "Expected either a CPUGeneratorImplStateLegacy of size 5048");
    CHECK_FAILS(ct_generator_set_state(dev, state, sizeof state), CT_ERR_RUNTIME, "Invalid mt19937 state");
    CHECK(ct_generator_initial_seed(dev) == 67280421310721ULL);
    ct_generator_free(cpu);
    ct_generator_free(dev);
}

int main(void)
{
    RUN(test_device_strings);
    RUN(test_devices_not_there);
    RUN(test_registration);
    RUN(test_mixed_devices);
    RUN(test_mixed_pointwise);
    RUN(test_mixed_index_ops);
    RUN(test_mixed_masked_fill);
    RUN(test_mixed_indexing);
    RUN(test_mixed_nn);
    RUN(test_mixed_linalg);
    RUN(test_mixed_autograd_optim);
    RUN(test_vector_to_parameters_across_devices);
    RUN(test_lbfgs_step_checks_devices);
    RUN(test_helpers_on_input_device);
    RUN(test_load_state_dict_across_devices);
    RUN(test_memory_stats_errors);
    RUN(test_generator_errors);
    RUN(test_stream_errors);
    RUN(test_pin_memory_errors);
    return ct_test_report();
}
