/* Training on the test device end to end: a state_dict saved from the
 * device comes back through map_location on the CPU and on another device,
 * and the demo's CNN (examples/train_digits.c) trained with its model, data
 * and optimizer on the test device gives the CPU's losses and parameters bit
 * for bit. The test device's memory is sealed from the host (tests/testdev.c):
 * a host read that bypasses the backend table crashes here, and a kernel run
 * on the CPU by mistake gives other bits. */
#include "harness.h"
#include "testdev.h"

#include "../examples/digits.h" /* the demo's model, split and accuracy */

#define IO "tests/golden/io/"

static const ct_device testdev0 = {CT_DEVICE_PRIVATEUSE1, 0}, testdev1 = {CT_DEVICE_PRIVATEUSE1, 1};

/* Whether a and b (on any devices) have the same shape, dtype and bytes. */
static bool same_bits(const ct_tensor *a, const ct_tensor *b)
{
    if (!a || !b || ct_dtype_of(a) != ct_dtype_of(b) || ct_dim(a) != ct_dim(b)) return false;
    for (int d = 0; d < ct_dim(a); d++)
        if (ct_size(a, d) != ct_size(b, d)) return false;
    const ct_tensor *ha = ct_contiguous(ct_cpu(a)), *hb = ct_contiguous(ct_cpu(b));
    size_t n = (size_t)ct_numel(a) * ct_dtype_size(ct_dtype_of(a));
    return ha && hb && (n == 0 || memcmp(ct_data_ptr(ha), ct_data_ptr(hb), n) == 0);
}

static ct_tensor *entry(const ct_tensor_list *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->names[i], name)) return l->tensors[i];
    return NULL;
}

/* Every tensor of want is in got under its name, with its bits, on device. */
static void check_state_dict(const ct_tensor_list *got, const ct_tensor_list *want, ct_device device)
{
    CHECK_INT(got->n, want->n);
    for (int i = 0; i < want->n; i++) {
        const ct_tensor *t = entry(got, want->names[i]);
        if (!t || !same_bits(t, want->tensors[i]) || !ct_device_equal(ct_device_of(t), device))
            ct_test_fail(__FILE__, __LINE__, "'%s' did not come back on its device with its bits", want->names[i]);
    }
}

/* A model's state_dict copied in by load_state_dict, whichever devices the two are on. */
static void check_load_state_dict(const ct_tensor_list *sd, ct_device model_device)
{
    ct_module *m = new_model();
    CHECK_OK(ct_module_to_device(m, model_device));
    CHECK_OK(ct_module_load_state_dict(m, sd, true, NULL));
    ct_tensor_list own = ct_module_state_dict(m);
    check_state_dict(&own, sd, model_device);
    ct_tensor_list_free(&own);
    ct_module_release(m);
}

static void test_state_dict_from_the_device_through_map_location(void)
{
    const char *path = CT_BUILD_DIR "/test_device_train.safetensors";
    ct_manual_seed(3);
    ct_module *model = new_model();
    CHECK_OK(ct_module_to_device(model, testdev0));
    ct_tensor_list sd = ct_module_state_dict(model);
    CHECK_OK(ct_save(path, &sd));
    ct_tensor_list cpu, dev1;
    CHECK_OK(ct_load_map_location(path, &cpu, CT_CPU)); /* torch.load(path, map_location="cpu") */
    check_state_dict(&cpu, &sd, CT_CPU);
    CHECK_OK(ct_load_map_location(path, &dev1, testdev1));
    check_state_dict(&dev1, &sd, testdev1);
    check_load_state_dict(&cpu, testdev0); /* param.copy_(input) across devices, both ways */
    check_load_state_dict(&dev1, CT_CPU);
    ct_tensor_list_free(&cpu);
    ct_tensor_list_free(&dev1);
    ct_metadata meta;
    CHECK_OK(ct_load_safetensors_device(path, &dev1, &meta, testdev1)); /* load_file(path, device="testdev:1") */
    check_state_dict(&dev1, &sd, testdev1);
    CHECK_INT(meta.n, 0);
    ct_metadata_free(&meta);
    ct_tensor_list_free(&dev1);
    const ct_tensor *wt = ct_t(entry(&sd, "7.weight")); /* numpy.save of a strided view on the device */
    CHECK_OK(ct_save_npy(CT_BUILD_DIR "/test_device_train.npy", wt));
    CHECK(same_bits(ct_load_npy(CT_BUILD_DIR "/test_device_train.npy"), wt));
    ct_tensor_list_free(&sd);
    ct_module_release(model);
}

/* Storages move whole: tensors sharing one in a torch.save file share one
 * on the device, with their layouts, and a saved parameter is a leaf. */
static void test_map_location_keeps_storages_shared(void)
{
    ct_tensor_list cpu, dev;
    CHECK_OK(ct_load_pth(IO "tensors.pth", &cpu));
    CHECK_OK(ct_load_map_location(IO "tensors.pth", &dev, testdev1));
    CHECK_INT(dev.n, cpu.n);
    for (int i = 0; i < dev.n && dev.n == cpu.n; i++) {
        const ct_tensor *c = cpu.tensors[i], *d = dev.tensors[i];
        CHECK_STR(dev.names[i], cpu.names[i]);
        CHECK(same_bits(c, d) && ct_device_equal(ct_device_of(d), testdev1));
        CHECK_INT(ct_storage_offset(d), ct_storage_offset(c));
        for (int k = 0; k < ct_dim(c); k++) CHECK_INT(ct_stride(d, k), ct_stride(c, k));
        CHECK(ct_requires_grad(d) == ct_requires_grad(c) && ct_is_leaf(d));
        for (int j = 0; j < i; j++)
            if (ct_numel(c) > 0 && ct_numel(cpu.tensors[j]) > 0)
                CHECK((ct_storage_data_ptr(c) == ct_storage_data_ptr(cpu.tensors[j])) ==
                      (ct_storage_data_ptr(d) == ct_storage_data_ptr(dev.tensors[j])));
    }
    ct_tensor_list_free(&cpu);
    ct_tensor_list_free(&dev);
}

/* A device that is not there: torch.load's errors, and out as it was. */
static void test_bad_map_location_leaves_out_alone(void)
{
    const char *path = IO "tensors.pth";
    char *names[] = {"x"};
    ct_tensor *ts[] = {NULL};
    ct_tensor_list out = {1, names, ts};
    CHECK_FAILS(ct_load_map_location(path, &out, CT_CUDA(0)), CT_ERR_RUNTIME,
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are "
                "running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map "
                "your storages to the CPU.");
    CHECK_FAILS(ct_load_map_location(path, &out, (ct_device){CT_DEVICE_PRIVATEUSE1, 2}), CT_ERR_RUNTIME,
                "Attempting to deserialize object on TESTDEV device 2 but torch.testdev.device_count() is 2. Please "
                "use torch.load with map_location to map your storages to an existing device.");
    CHECK_FAILS(ct_load_map_location(IO "no_such_file.pth", &out, testdev1), CT_ERR_IO, "no_such_file.pth");
    CHECK_FAILS(ct_load_map_location(IO "list.pth", &out, testdev1), CT_ERR_RUNTIME, "expected a state_dict");
    CHECK_FAILS(ct_load_safetensors_device(path, &out, NULL, (ct_device){CT_DEVICE_PRIVATEUSE1, 2}), CT_ERR_RUNTIME,
                "testdev device index 2 is out of range (2 devices)");
    CHECK(out.n == 1 && out.names == names && out.tensors == ts);
    CHECK_FAILS(ct_load_map_location(path, NULL, CT_CPU), CT_ERR_TYPE, "the output list is NULL");
}

/* ---------------------------------------------------------------- the demo's training */

#ifdef CTORCH_ZLIB /* for data/digits.csv.gz */
/* examples/train_digits.c's run, cut to two of its twelve epochs (the whole
 * test takes about a second at -O2): the same data, split, loader (shuffled, two workers), SGD
 * with momentum, StepLR and test accuracy. */
enum { EPOCHS = 2, BATCH = 64, STEPS = EPOCHS * ((TRAIN + BATCH - 1) / BATCH) };
enum { N_PARAMS = 16 * 9 + 16 + 32 * 16 * 9 + 32 + 128 * 10 + 10 };

typedef struct run {
    double loss[STEPS];
    int64_t correct[EPOCHS];
    float params[N_PARAMS];
} run;

/* The digits' (image, label) dataset with its tensors on device. */
static ct_dataset *digits_on(ct_device device)
{
    ct_tensor *raw = ct_to_device(ct_read_csv("data/digits.csv.gz", (ct_csv_opts){.dtype = CT_F32}), device, false);
    CHECK_T(raw);
    if (!raw) return NULL;
    ct_tensor *pixels = ct_div_scalar(ct_index(raw, ":, :64"), ct_float(16.0));
    ct_tensor *xy[2] = {ct_view(pixels, CT_SHAPE(-1, 1, 8, 8)), ct_to(ct_index(raw, ":, 64"), CT_I64)};
    return ct_tensor_dataset(xy, 2);
}

/* One epoch of training, its losses into loss. */
static void train_epoch(ct_module *model, ct_optimizer *opt, ct_loader *loader, double *loss)
{
    ct_module_train(model, true);
    ct_sample batch;
    for (int step = 0; ct_loader_next(loader, &batch) > 0; step++) {
        ct_scope s = ct_scope_begin();
        ct_optim_zero_grad(opt, true);
        ct_tensor *l = ct_cross_entropy(ct_forward(model, batch.field[0]), batch.field[1], ct_nll_loss_opts_init());
        CHECK_OK(ct_backward(l, NULL, (ct_backward_opts){0}));
        CHECK_OK(ct_optim_step(opt));
        loss[step] = ct_item(l);
        ct_scope_end(s);
    }
}

static int64_t test_accuracy(ct_module *model, const ct_sample *test)
{
    ct_module_eval(model);
    ct_grad_mode mode = ct_no_grad();
    int64_t correct = count_correct(ct_forward(model, test->field[0]), test->field[1]);
    ct_grad_mode_restore(mode);
    return correct;
}

static void train_digits(ct_device device, run *out)
{
    ct_manual_seed(0);
    ct_dataset *digits = digits_on(device), *split[2];
    if (!digits) return; /* (its failure is reported) */
    ct_generator *g = ct_generator_new();
    ct_generator_manual_seed(g, 0);
    CHECK_OK(ct_random_split(digits, (double[]){TRAIN, TEST}, 2, g, split));
    ct_loader_opts shuffled = {.batch_size = BATCH, .shuffle = true, .num_workers = 2};
    ct_loader *loader = ct_loader_new(split[0], shuffled);
    ct_loader *whole = ct_loader_new(split[1], (ct_loader_opts){.batch_size = TEST});
    ct_sample test;
    CHECK(ct_loader_next(whole, &test) > 0);

    ct_module *model = new_model();
    CHECK_OK(ct_module_to_device(model, device)); /* model.to(device) before the optimizer, as PyTorch asks */
    ct_tensor_list params = ct_module_parameters(model, true);
    ct_optimizer *opt = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.1, .momentum = 0.9});
    ct_lr_scheduler *sched = ct_step_lr(opt, 4, 0.5);
    for (int epoch = 0; epoch < EPOCHS; epoch++) {
        train_epoch(model, opt, loader, out->loss + epoch * (STEPS / EPOCHS));
        CHECK_OK(ct_lr_scheduler_step(sched));
        out->correct[epoch] = test_accuracy(model, &test);
    }
    float *p = out->params;
    for (int i = 0; i < params.n; i++) {
        CHECK(ct_device_equal(ct_device_of(params.tensors[i]), ct_device_of(test.field[0])));
        CHECK_OK(ct_copy_to_array(params.tensors[i], p, out->params + N_PARAMS - p, CT_F32));
        p += ct_numel(params.tensors[i]);
    }
    CHECK(p == out->params + N_PARAMS);
    ct_lr_scheduler_free(sched);
    ct_optim_free(opt);
    ct_tensor_list_free(&params);
    ct_module_release(model);
    ct_loader_free(whole);
    ct_loader_free(loader);
    for (int i = 0; i < 2; i++) ct_dataset_free(split[i]);
    ct_dataset_free(digits);
    ct_generator_free(g);
}

static void test_demo_trains_on_the_device_to_the_cpu_bits(void)
{
    static run cpu, dev;
    memset(&cpu, 0, sizeof cpu);
    memset(&dev, 0, sizeof dev);
    train_digits(CT_CPU, &cpu);
    train_digits(testdev0, &dev);
    for (int i = 0; i < STEPS; i++)
        if (memcmp(&cpu.loss[i], &dev.loss[i], sizeof(double)))
            ct_test_fail(__FILE__, __LINE__, "step %d: loss %.9g on the device, %.9g on the CPU", i, dev.loss[i],
                         cpu.loss[i]);
    CHECK(cpu.loss[STEPS - 1] > 0 && cpu.loss[STEPS - 1] < cpu.loss[0]); /* it learned */
    for (int e = 0; e < EPOCHS; e++) CHECK_INT(dev.correct[e], cpu.correct[e]);
    CHECK(memcmp(cpu.params, dev.params, sizeof cpu.params) == 0);
}
#endif

int main(void)
{
    if (ct_testdev_register() != CT_OK) {
        printf("FAIL test_device_train_register (%s)\n", ct_last_error());
        return 1;
    }
    RUN(test_state_dict_from_the_device_through_map_location);
    RUN(test_map_location_keeps_storages_shared);
    RUN(test_bad_map_location_leaves_out_alone);
#ifdef CTORCH_ZLIB
    RUN(test_demo_trains_on_the_device_to_the_cpu_bits);
#else
    SKIP(test_demo_trains_on_the_device_to_the_cpu_bits, "the digits are gzipped: ctorch built without zlib");
#endif
    return ct_test_report();
}
