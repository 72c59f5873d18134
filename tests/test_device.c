/* Devices: names, the default device, moves between devices and their
 * gradients, printing, and the test device's sealed memory (tests/testdev.c,
 * registered here as a backend compiled apart is). The op suites run on the
 * test device whole: tests/run.sh runs them again with CTORCH_TEST_DEVICE. */
#include "harness.h"
#include "testdev.h"

static const ct_device testdev0 = {CT_DEVICE_PRIVATEUSE1, 0}, testdev1 = {CT_DEVICE_PRIVATEUSE1, 1};

static void test_device_strings(void)
{
    char buf[32];
    ct_device d;
    CHECK_OK(ct_device_parse("cuda:1", &d));
    CHECK(d.type == CT_DEVICE_CUDA && d.index == 1);
    CHECK_STR(ct_device_str(d, buf, sizeof buf), "cuda:1");
    CHECK_OK(ct_device_parse("cuda", &d));
    CHECK(d.type == CT_DEVICE_CUDA && d.index == -1);
    CHECK_STR(ct_device_str(d, buf, sizeof buf), "cuda");
    CHECK_OK(ct_device_parse("cpu:0", &d)); /* str(torch.device('cpu:0')) */
    CHECK_STR(ct_device_str(d, buf, sizeof buf), "cpu:0");
    CHECK_STR(ct_device_str(CT_CPU, buf, sizeof buf), "cpu");
    CHECK_OK(ct_device_parse("testdev:1", &d)); /* a registered backend's name */
    CHECK(ct_device_equal(d, testdev1) && !ct_device_equal(d, testdev0));
    CHECK(ct_device_equal(CT_CUDA(-1), CT_CUDA(0))); /* the current device is 0 */
    CHECK(!ct_device_equal(CT_CPU, CT_CUDA(0)));
    CHECK(!ct_cuda_is_available() && ct_cuda_device_count() == 0); /* no CUDA backend in the tests */
}

static void test_moves_keep_values_and_seal_memory(void)
{
    ct_tensor *x = ct_from_array((float[]){1, -2, 3.5f, 4, 5, 6}, CT_SHAPE(2, 3), CT_F32);
    ct_tensor *d = ct_to_device(x, testdev0, false);
    CHECK_T(d);
    CHECK(ct_device_equal(ct_device_of(d), testdev0) && ct_dtype_of(d) == CT_F32);
    CHECK(!ct_testdev_readable(ct_data_ptr(d))); /* the host cannot read it */
    CHECK(ct_to_device(d, testdev0, false) == d);      /* already there: itself, as Tensor.to */
    CHECK_VALUES(d, CT_SHAPE(2, 3), 1, -2, 3.5, 4, 5, 6); /* read through the backend's copy */
    ct_tensor *t = ct_t(d), *back = ct_cpu(t);           /* a strided view comes back with its values */
    CHECK(ct_device_equal(ct_device_of(back), CT_CPU));
    CHECK_VALUES(back, CT_SHAPE(3, 2), 1, 4, -2, 5, 3.5, 6);
    CHECK_VALUES(ct_to_device(x, testdev1, true), CT_SHAPE(2, 3), 1, -2, 3.5, 4, 5, 6); /* non_blocking */
    CHECK_NEAR(ct_item(ct_sum(d)), 17.5, 0);
    CHECK_OK(ct_synchronize(testdev0));
}

static void test_creation_on_the_default_device(void)
{
    ct_device_guard g = ct_device_guard_begin(testdev0);
    ct_tensor *z = ct_zeros(CT_SHAPE(2), CT_F32), *r = ct_arange(ct_int(0), ct_int(4), ct_int(1), CT_I64);
    ct_tensor *a = ct_from_array((int32_t[]){7, 8}, CT_SHAPE(2), CT_I32);
    ct_device_guard inner = ct_device_guard_begin(CT_CPU); /* guards nest */
    ct_tensor *c = ct_ones(CT_SHAPE(1), CT_F32);
    ct_device_guard_end(inner);
    CHECK(ct_device_equal(ct_get_default_device(), testdev0));
    ct_device_guard_end(g);
    CHECK(ct_device_equal(ct_get_default_device(), CT_CPU));
    CHECK(ct_device_equal(ct_device_of(z), testdev0) && ct_device_equal(ct_device_of(r), testdev0));
    CHECK(ct_device_equal(ct_device_of(a), testdev0) && ct_device_equal(ct_device_of(c), CT_CPU));
    CHECK_VALUES(r, CT_SHAPE(4), 0, 1, 2, 3);
    CHECK_VALUES(a, CT_SHAPE(2), 7, 8);
    /* _like functions keep their input's device */
    CHECK(ct_device_equal(ct_device_of(ct_ones_like(z, CT_F64)), testdev0));
    CHECK(ct_device_equal(ct_device_of(ct_full_like(z, ct_int(3), CT_DEFAULT)), testdev0));
    /* the process-wide default */
    CHECK_OK(ct_set_default_device(testdev1));
    ct_tensor *e = ct_empty(CT_SHAPE(3), CT_F32);
    CHECK_OK(ct_set_default_device(CT_CPU));
    CHECK(ct_device_equal(ct_device_of(e), testdev1));
}

static void test_gradients_go_back_across_devices(void)
{
    ct_tensor *x = ct_from_array((double[]){1, 2, 3}, CT_SHAPE(3), CT_F64);
    CHECK_OK(ct_requires_grad_(x, true));
    ct_tensor *d = ct_to_device(x, testdev0, false);
    CHECK_STR(ct_node_name(ct_grad_fn(d)), "ToCopyBackward0");
    ct_tensor *loss = ct_sum(ct_mul(d, d));
    CHECK_OK(ct_backward(loss, NULL, (ct_backward_opts){0}));
    ct_tensor *g = ct_grad(x);
    CHECK(g && ct_device_equal(ct_device_of(g), CT_CPU));
    CHECK_VALUES(g, CT_SHAPE(3), 2, 4, 6);
}

static void test_printing(void)
{
    ct_tensor *f = ct_to_device(ct_from_array((float[]){1, 2}, CT_SHAPE(2), CT_F32), testdev0, false);
    ct_tensor *i = ct_to_device(ct_from_array((int32_t[]){1, 2}, CT_SHAPE(2), CT_I32), testdev0, false);
    char buf[256];
    ct_to_string(f, buf, sizeof buf);
    CHECK_STR(buf, "tensor([1., 2.], device='testdev:0')");
    ct_to_string(i, buf, sizeof buf);
    CHECK_STR(buf, "tensor([1, 2], device='testdev:0', dtype=torch.int32)");
    ct_tensor *r = ct_detach(f);
    CHECK_OK(ct_requires_grad_(r, true));
    ct_to_string(r, buf, sizeof buf);
    CHECK_STR(buf, "tensor([1., 2.], device='testdev:0', requires_grad=True)");
    /* summarized on the device: only the edges come to the host */
    ct_tensor *big = ct_arange(ct_int(0), ct_int(2000), ct_int(1), CT_I64);
    ct_to_string(ct_to_device(big, testdev0, false), buf, sizeof buf);
    CHECK_STR(buf, "tensor([   0,    1,    2,  ..., 1997, 1998, 1999], device='testdev:0')");
}

static void test_cpu_scalars_join_device_tensors(void)
{
    ct_tensor *d = ct_to_device(ct_from_array((float[]){1, 2}, CT_SHAPE(2), CT_F32), testdev0, false);
    ct_tensor *s = ct_scalar_tensor(ct_float(10), CT_F32); /* a 0-d CPU tensor goes with any device */
    ct_tensor *r = ct_add(d, s);
    CHECK(r && ct_device_equal(ct_device_of(r), testdev0));
    CHECK_VALUES(r, CT_SHAPE(2), 11, 12);
    CHECK_VALUES(ct_mul_scalar(d, ct_int(3)), CT_SHAPE(2), 3, 6);
}

static void test_state_dict_saved_on_a_device_loads_on_the_cpu(void)
{
    ct_tensor *w = ct_to_device(ct_from_array((float[]){0.5f, -1, 2}, CT_SHAPE(3), CT_F32), testdev0, false);
    char *names[] = {"w"};
    ct_tensor *ts[] = {w};
    ct_tensor_list l = {1, names, ts}, back;
    CHECK_OK(ct_save(CT_BUILD_DIR "/test_device_w.safetensors", &l));
    CHECK_OK(ct_load(CT_BUILD_DIR "/test_device_w.safetensors", &back));
    CHECK_INT(back.n, 1);
    if (back.n == 1) {
        CHECK(ct_device_equal(ct_device_of(back.tensors[0]), CT_CPU));
        CHECK_VALUES(back.tensors[0], CT_SHAPE(3), 0.5, -1, 2);
    }
    ct_tensor_list_free(&back);
}

/* An MLP trained three steps on the test device, with SGD (momentum) and
 * Adam, ends with the parameters the same training gives on the CPU, bit
 * for bit; the optimizers' state is made beside the parameters. */
static void train(ct_device device, bool adam, float *out, int64_t n_out)
{
    ct_manual_seed(7);
    ct_module *layers[3] = {ct_nn_linear(4, 8, true), ct_nn_relu(), ct_nn_linear(8, 3, true)};
    ct_module *net = ct_nn_sequential(layers, 3);
    CHECK_OK(ct_module_to_device(net, device));
    ct_tensor_list ps = ct_module_parameters(net, true);
    ct_optimizer *opt = adam ? ct_adam(ps.tensors, ps.n, ct_adam_opts_init())
                             : ct_sgd(ps.tensors, ps.n, (ct_sgd_opts){.lr = 0.1, .momentum = 0.9});
    ct_tensor *x = ct_to_device(ct_randn(CT_SHAPE(5, 4), CT_F32, NULL), device, false);
    ct_tensor *y = ct_to_device(ct_from_array((int64_t[]){0, 2, 1, 1, 0}, CT_SHAPE(5), CT_I64), device, false);
    for (int step = 0; step < 3; step++) {
        ct_scope s = ct_scope_begin();
        ct_optim_zero_grad(opt, true);
        ct_tensor *loss = ct_cross_entropy(ct_forward(net, x), y, ct_nll_loss_opts_init());
        CHECK_OK(ct_backward(loss, NULL, (ct_backward_opts){0}));
        CHECK_OK(ct_optim_step(opt));
        ct_scope_end(s);
    }
    CHECK(ct_device_equal(ct_device_of(ps.tensors[0]), device));
    CHECK_OK(ct_copy_to_array(ps.tensors[0], out, n_out, CT_F32));
    ct_optim_free(opt);
    ct_tensor_list_free(&ps);
    ct_module_release(net);
}

static void test_training_on_the_device_gives_the_cpu_bits(void)
{
    for (int adam = 0; adam < 2; adam++) {
        float cpu[32], dev[32];
        train(CT_CPU, adam, cpu, 32);
        train(testdev0, adam, dev, 32);
        CHECK(memcmp(cpu, dev, sizeof cpu) == 0);
    }
}

/* torch.cuda.memory_stats and its kin, on testdev:1 (what the other tests
 * leave on testdev:0 does not count there): a block of 4000 bytes is one
 * 4 KiB page in the test device's size classes. (Their errors:
 * test_errors_device.c.) */
static void test_memory_statistics(void)
{
    ct_memory_counters before, s;
    CHECK_OK(ct_empty_cache(testdev1));
    CHECK_OK(ct_memory_stats(testdev1, &before));
    ct_scope scope = ct_scope_begin(); /* its end frees the tensor */
    ct_device_guard g = ct_device_guard_begin(testdev1);
    ct_tensor *t = ct_empty(CT_SHAPE(1000), CT_F32);
    ct_device_guard_end(g);
    CHECK_OK(ct_memory_stats(testdev1, &s));
    CHECK(s.allocated_bytes == before.allocated_bytes + 4096 && s.num_allocs == before.num_allocs + 1);
    CHECK(s.reserved_bytes == before.reserved_bytes + 4096 && s.peak_allocated_bytes >= s.allocated_bytes);
    CHECK(t != NULL);
    ct_scope_end(scope);
    CHECK_OK(ct_memory_stats(testdev1, &s));
    CHECK(s.allocated_bytes == before.allocated_bytes && s.num_frees == before.num_frees + 1);
    CHECK(s.reserved_bytes == before.reserved_bytes + 4096); /* cached for the next allocation */
    CHECK(s.peak_allocated_bytes >= before.allocated_bytes + 4096);
    CHECK_OK(ct_reset_peak_memory_stats(testdev1));
    CHECK_OK(ct_memory_stats(testdev1, &s));
    CHECK(s.peak_allocated_bytes == s.allocated_bytes && s.peak_reserved_bytes == s.reserved_bytes);
    CHECK_OK(ct_empty_cache(testdev1));
    CHECK_OK(ct_memory_stats(testdev1, &s));
    CHECK(s.reserved_bytes == before.reserved_bytes && s.peak_reserved_bytes == before.reserved_bytes + 4096);
}

/* Each device has generators of its own: a device's default generator is
 * apart from the CPU's (and the other devices'), ct_manual_seed seeds them
 * all. The test device's generators run the CPU's mt19937, so a seed gives
 * the CPU's numbers there. */
static void test_generators_per_device(void)
{
    char buf[32];
    ct_generator *d0 = ct_device_default_generator(testdev0), *d1 = ct_device_default_generator(testdev1);
    CHECK(d0 && d1 && d0 != d1 && d0 != ct_default_generator());
    CHECK(ct_device_default_generator(CT_CPU) == ct_default_generator());
    CHECK(ct_device_default_generator(CT__DEVICE(CT_DEVICE_PRIVATEUSE1, -1)) == d0); /* the current device */
    CHECK_STR(ct_device_str(ct_generator_device(d1), buf, sizeof buf), "testdev:1");
    CHECK_STR(ct_device_str(ct_generator_device(NULL), buf, sizeof buf), "cpu");
    ct_manual_seed(5);
    CHECK(ct_generator_initial_seed(d0) == 5 && ct_generator_initial_seed(d1) == 5);
    ct_tensor *cpu = ct_rand(CT_SHAPE(4), CT_F32, NULL);
    ct_device_guard g = ct_device_guard_begin(testdev0);
    ct_tensor *on0 = ct_rand(CT_SHAPE(4), CT_F32, NULL); /* not the CPU's next four */
    ct_tensor *on0_next = ct_rand(CT_SHAPE(4), CT_F32, NULL);
    ct_device_guard_end(g);
    g = ct_device_guard_begin(testdev1);
    ct_tensor *on1 = ct_rand(CT_SHAPE(4), CT_F32, NULL);
    ct_device_guard_end(g);
    CHECK(ct_device_equal(ct_device_of(on0), testdev0) && ct_device_equal(ct_device_of(on1), testdev1));
    CHECK_TENSOR(ct_cpu(on0), cpu, 0);
    CHECK_TENSOR(ct_cpu(on1), cpu, 0);
    CHECK_TENSOR(ct_cpu(on0_next), ct_rand(CT_SHAPE(4), CT_F32, NULL), 0); /* both streams moved on alike */
    /* a generator made for a device, its state saved and loaded */
    ct_generator *own = ct_generator_new_device(testdev1);
    CHECK(own && ct_generator_initial_seed(own) == 67280421310721ULL);
    CHECK(ct_device_equal(ct_generator_device(own), testdev1));
    CHECK_INT(ct_generator_state_size(own), 5056);
    ct_generator_manual_seed(own, 11);
    unsigned char state[5056];
    ct_generator_get_state(own, state);
    ct_tensor *x = ct_zeros(CT_SHAPE(3), CT_F64), *dx = ct_to_device(x, testdev1, false);
    ct_tensor *again = ct_to_device(x, testdev1, false);
    CHECK_OK(ct_normal_(dx, 0, 1, own));
    CHECK_OK(ct_generator_set_state(own, state, sizeof state));
    CHECK_OK(ct_normal_(again, 0, 1, own));
    CHECK_TENSOR(ct_cpu(again), ct_cpu(dx), 0);
    ct_generator_manual_seed(ct_default_generator(), 11);
    CHECK_TENSOR(ct_cpu(dx), ct_randn(CT_SHAPE(3), CT_F64, NULL), 0);
    ct_generator_free(own);
    ct_generator_free(d0); /* not freed: a default generator */
    CHECK(ct_device_default_generator(testdev0) == d0);
}

int main(void)
{
    if (ct_testdev_register() != CT_OK) {
        printf("FAIL test_device_register (%s)\n", ct_last_error());
        return 1;
    }
    RUN(test_device_strings);
    RUN(test_moves_keep_values_and_seal_memory);
    RUN(test_creation_on_the_default_device);
    RUN(test_gradients_go_back_across_devices);
    RUN(test_printing);
    RUN(test_cpu_scalars_join_device_tensors);
    RUN(test_state_dict_saved_on_a_device_loads_on_the_cpu);
    RUN(test_training_on_the_device_gives_the_cpu_bits);
    RUN(test_memory_statistics);
    RUN(test_generators_per_device);
    return ct_test_report();
}
