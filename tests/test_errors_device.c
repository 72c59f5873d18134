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

static void no_memory_stats(int device_index, ct_memory_counters *out) { (void)device_index, (void)out; }

static void test_registration(void)
{
    const ct_backend *cpu = ct_backend_get(CT_DEVICE_CPU);
    CHECK(cpu && !strcmp(cpu->name, "cpu"));
    CHECK(ct_backend_get((ct_device_type)99) == NULL && ct_backend_get(CT_DEVICE_DEFAULT) == NULL);
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, cpu, CT_BACKEND_ABI_VERSION + 1), CT_ERR_RUNTIME,
                "the backend was built for backend interface version 3, this ctorch has version 2");
    CHECK_FAILS(ct_register_backend(CT_DEVICE_CPU, cpu, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "only the cuda and privateuseone device types take a backend");
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, NULL, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "the backend table has an empty entry");
    ct_backend partial = *cpu;
    partial.gemm = NULL;
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, &partial, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "the backend table has an empty entry");
    partial = *cpu; /* memory statistics without their reset */
    partial.memory_stats = no_memory_stats;
    CHECK_FAILS(ct_register_backend(CT_DEVICE_PRIVATEUSE1, &partial, CT_BACKEND_ABI_VERSION), CT_ERR_VALUE,
                "the backend table has an empty entry");
    CHECK(ct_backend_get(CT_DEVICE_PRIVATEUSE1) == NULL); /* nothing half registered */
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

int main(void)
{
    RUN(test_device_strings);
    RUN(test_devices_not_there);
    RUN(test_registration);
    RUN(test_mixed_devices);
    return ct_test_report();
}
