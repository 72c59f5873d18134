/* The nccl backend (CTORCH_DIST_NCCL), linked with ctorch_cuda.cu. NCCL
 * refuses two ranks on one GPU, so the tests run one rank on cuda:0: every
 * collective's NCCL call, each reduction dtype, the order after kernels
 * queued before it (on the current stream), the refusal of CPU tensors, async work, and a DDP step
 * against the plain module's. Without a GPU only init_process_group's
 * refusal runs (PyTorch's message, the program going on), and the GPU tests
 * report themselves skipped, by name. Built by `make cuda`, run by
 * tests/run.sh. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#define CTORCH_DIST_IMPLEMENTATION
#include "ctorch_dist.h"
#include "free_port.h"

static const ct_dist_opts world = {NULL, NULL};

/* t's values on the host, equal to the CPU tensor `want` (dtype included). */
static bool same_values(const ct_tensor *t, const ct_tensor *want)
{
    ct_tensor *host = t ? ct_cpu(t) : NULL;
    return host && ct_dtype_of(host) == ct_dtype_of(want) && ct_equal(host, want);
}

static void test_init_without_gpu(void)
{
    int port = free_port();
    char method[64];
    snprintf(method, sizeof method, "tcp://127.0.0.1:%d", port);
    CHECK_FAILS(ct_dist_init_process_group("nccl", (ct_dist_init_opts){method, 1, 0, 5}), CT_ERR_RUNTIME,
                "ProcessGroupNCCL is only supported with GPUs, no GPUs found!");
    CHECK(!ct_dist_is_initialized());
    /* the program goes on: the gloo backend starts on the same port */
    CHECK_OK(ct_dist_init_process_group("gloo", (ct_dist_init_opts){method, 1, 0, 5}));
    CHECK_OK(ct_dist_destroy_process_group(NULL));
}

static void test_all_reduce_every_dtype(void)
{
    static const ct_reduce_op ops[] = {CT_REDUCE_SUM, CT_REDUCE_AVG, CT_REDUCE_PRODUCT, CT_REDUCE_MIN, CT_REDUCE_MAX};
    static const ct_dtype dtypes[] = {CT_F32, CT_F64, CT_F16, CT_BF16, CT_I64, CT_I32, CT_U8};
    ct_tensor *base = ct_from_array((float[]){1, 2, 3}, CT_SHAPE(3), CT_F32);
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
            bool integral = dtypes[i] == CT_I64 || dtypes[i] == CT_I32 || dtypes[i] == CT_U8;
            if (integral && ops[k] == CT_REDUCE_AVG) continue; /* PyTorch's AVG is for floating types */
            ct_tensor *want = ct_to(base, dtypes[i]), *t = ct_cuda(want);
            CHECK_OK(ct_dist_all_reduce(t, ops[k], world));
            CHECK(same_values(t, want));
        }
    ct_tensor *flags = ct_from_array((bool[]){true, false}, CT_SHAPE(2), CT_BOOL), *t = ct_cuda(flags);
    CHECK_OK(ct_dist_all_reduce(t, CT_REDUCE_SUM, world)); /* a max for booleans */
    CHECK(same_values(t, flags));
    CHECK_FAILS(ct_dist_all_reduce(t, CT_REDUCE_AVG, world), CT_ERR_RUNTIME, "Cannot use ReduceOp.AVG with boolean inputs");
}

/* A collective reads what kernels queued before it wrote: a large product
 * still on the device's stream when all_reduce is called. */
static void test_after_queued_kernels(void)
{
    ct_tensor *x = ct_cuda(ct_arange(ct_int(0), ct_int(1 << 22), ct_int(1), CT_F32));
    ct_tensor *y = ct_mul_scalar(ct_add(x, x), ct_float(0.5));
    CHECK_OK(ct_dist_all_reduce(y, CT_REDUCE_SUM, world));
    CHECK(same_values(y, ct_arange(ct_int(0), ct_int(1 << 22), ct_int(1), CT_F32)));
}

/* The collective waits for the current stream's kernels, not the default
 * stream's: t written on a side stream set current. (On the emulation,
 * waiting for the wrong stream reads the ones every time.) */
static void test_after_kernels_on_current_stream(void)
{
    ct_stream side;
    CHECK_OK(ct_stream_new(CT_CUDA(0), 0, &side));
    ct_stream_guard g = ct_stream_guard_begin(side);
    ct_tensor *t = ct_cuda(ct_ones(CT_SHAPE(4), CT_F32)), *flat = ct_cuda(ct_zeros(CT_SHAPE(4), CT_F32));
    CHECK_OK(ct_mul_scalar_(t, ct_float(3)));
    CHECK_OK(ct_dist_all_gather_into_tensor(flat, t, world));
    CHECK(same_values(flat, ct_full(CT_SHAPE(4), ct_float(3), CT_F32)));
    ct_stream_guard_end(g);
}

static void test_broadcast_reduce_and_gathers(void)
{
    ct_tensor *want = ct_from_array((float[]){1, -2, 3, 4}, CT_SHAPE(2, 2), CT_F32);
    ct_tensor *t = ct_cuda(want);
    CHECK_OK(ct_dist_broadcast(t, 0, world));
    CHECK(same_values(t, want));
    CHECK_OK(ct_dist_reduce(t, 0, CT_REDUCE_MAX, world));
    CHECK(same_values(t, want));

    ct_tensor *list[1] = {ct_cuda(ct_zeros(CT_SHAPE(2, 2), CT_F32))};
    CHECK_OK(ct_dist_all_gather(list, 1, t, world));
    CHECK(same_values(list[0], want));
    ct_tensor *flat = ct_cuda(ct_zeros(CT_SHAPE(2, 2), CT_F32));
    CHECK_OK(ct_dist_all_gather_into_tensor(flat, t, world));
    CHECK(same_values(flat, want));

    ct_tensor *gathered[1] = {ct_cuda(ct_zeros(CT_SHAPE(2, 2), CT_F32))};
    CHECK_OK(ct_dist_gather(t, gathered, 1, 0, world));
    CHECK(same_values(gathered[0], want));
    ct_tensor *out = ct_cuda(ct_zeros(CT_SHAPE(2, 2), CT_F32));
    CHECK_OK(ct_dist_scatter(out, (ct_tensor *[]){t}, 1, 0, world));
    CHECK(same_values(out, want));
    ct_tensor *reduced = ct_cuda(ct_zeros(CT_SHAPE(2, 2), CT_F32));
    CHECK_OK(ct_dist_reduce_scatter(reduced, (ct_tensor *[]){t}, 1, CT_REDUCE_SUM, world));
    CHECK(same_values(reduced, want));
    ct_tensor *moved = ct_cuda(ct_zeros(CT_SHAPE(2, 2), CT_F32));
    CHECK_OK(ct_dist_all_to_all((ct_tensor *[]){moved}, (ct_tensor *[]){t}, 1, world));
    CHECK(same_values(moved, want));
}

static void test_cpu_tensors_refused(void)
{
    ct_tensor *host = ct_ones(CT_SHAPE(3), CT_F32);
    CHECK_FAILS(ct_dist_all_reduce(host, CT_REDUCE_SUM, world), CT_ERR_RUNTIME, "Tensors must be CUDA and dense");
    ct_tensor *list[1] = {host};
    CHECK_FAILS(ct_dist_all_gather(list, 1, ct_cuda(host), world), CT_ERR_RUNTIME, "Tensors must be CUDA and dense");
    ct_tensor *t = ct_cuda(host); /* the group still works */
    CHECK_OK(ct_dist_all_reduce(t, CT_REDUCE_SUM, world));
    CHECK(same_values(t, host));
}

static void test_async_work_and_barrier(void)
{
    ct_tensor *want = ct_full(CT_SHAPE(1000), ct_float(2.5), CT_F32), *t = ct_cuda(want);
    ct_work *work = NULL;
    CHECK_OK(ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){NULL, &work}));
    CHECK(work != NULL);
    CHECK_OK(ct_work_wait(work));
    CHECK(ct_work_is_completed(work));
    ct_work_free(work);
    CHECK(same_values(t, want));
    CHECK_OK(ct_dist_barrier(world));
}

/* One rank of DDP: the gradients are the plain module's (the average over
 * one rank), computed on the GPU through the buckets' NCCL all-reduce. */
static void test_ddp_step(void)
{
    ct_manual_seed(0);
    ct_module *plain = ct_nn_linear(4, 3, true), *twin = ct_nn_linear(4, 3, true);
    ct_tensor_list sd = ct_module_state_dict(plain);
    CHECK_OK(ct_module_load_state_dict(twin, &sd, true, NULL));
    ct_tensor_list_free(&sd);
    CHECK_OK(ct_module_to_device(plain, CT_CUDA(0)));
    CHECK_OK(ct_module_to_device(twin, CT_CUDA(0)));
    ct_module *ddp = ct_ddp(twin, ct_ddp_opts_init());
    CHECK(ddp != NULL);
    if (!ddp) return;
    ct_tensor *x = ct_cuda(ct_randn(CT_SHAPE(8, 4), CT_F32, NULL));
    CHECK_OK(ct_backward(ct_sum(ct_forward(plain, x)), NULL, (ct_backward_opts){0}));
    CHECK_OK(ct_backward(ct_sum(ct_forward(ddp, x)), NULL, (ct_backward_opts){0}));
    ct_tensor_list a = ct_module_parameters(plain, true), b = ct_module_parameters(ct_ddp_module(ddp), true);
    CHECK_INT(a.n, b.n);
    for (int i = 0; i < a.n && i < b.n; i++) CHECK(same_values(ct_grad(b.tensors[i]), ct_cpu(ct_grad(a.tensors[i]))));
    ct_tensor_list_free(&a);
    ct_tensor_list_free(&b);
    ct_module_release(ddp);
    ct_module_release(plain);
}

int main(void)
{
    if (!ct_cuda_is_available()) {
        RUN(test_init_without_gpu);
        SKIP(nccl_collectives, "no CUDA GPU on this machine");
        return ct_test_report();
    }
    char method[64];
    snprintf(method, sizeof method, "tcp://127.0.0.1:%d", free_port());
    if (ct_dist_init_process_group("nccl", (ct_dist_init_opts){method, 1, 0, 60}) != CT_OK) {
        printf("FAIL init_process_group(\"nccl\"): %s\n", ct_last_error());
        return 1;
    }
    RUN(test_all_reduce_every_dtype);
    RUN(test_after_queued_kernels);
    RUN(test_after_kernels_on_current_stream);
    RUN(test_broadcast_reduce_and_gathers);
    RUN(test_cpu_tensors_refused);
    RUN(test_async_work_and_barrier);
    RUN(test_ddp_step);
    ct_dist_destroy_process_group(NULL);
    return ct_test_report();
}
