/* A DDP training step of the MNIST MLP (784-256-128-10, batch 64 per rank,
 * SGD with momentum) under mpirun, against the same step without DDP (the
 * compute) and an all-reduce of all its gradients alone (the communication):
 * DDP overlaps them when its step takes less than their sum.
 *   make bench-dist     (bench/dist/ddp_mlp.py times PyTorch's DDP with gloo) */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
#define CTORCH_DIST_IMPLEMENTATION
#include "ctorch_dist.h"
#include <mpi.h>
#include <stdio.h>

enum { BATCH = 64, STEPS = 200, WARMUP = 20 };

static ct_module *mlp(void)
{
    ct_module *layers[5] = {ct_nn_linear(784, 256, true), ct_nn_relu(), ct_nn_linear(256, 128, true), ct_nn_relu(),
                            ct_nn_linear(128, 10, true)};
    return ct_nn_sequential(layers, 5);
}

/* Seconds per step of `steps` steps of m (the slowest rank's). */
static double time_steps(ct_module *m, const ct_tensor *x, const ct_tensor *y)
{
    ct_tensor_list p = ct_module_parameters(m, true);
    ct_optimizer *opt = ct_sgd(p.tensors, p.n, (ct_sgd_opts){.lr = 0.01, .momentum = 0.9});
    double t0 = 0;
    for (int i = 0; i < WARMUP + STEPS; i++) {
        if (i == WARMUP) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        ct_scope s = ct_scope_begin();
        ct_optim_zero_grad(opt, true);
        ct_backward(ct_cross_entropy(ct_forward(m, x), y, ct_nll_loss_opts_init()), NULL, (ct_backward_opts){0});
        ct_optim_step(opt);
        ct_scope_end(s);
    }
    double t = (MPI_Wtime() - t0) / STEPS;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ct_optim_free(opt);
    ct_tensor_list_free(&p);
    return t;
}

/* The communication alone: one all-reduce of as many floats as the model has. */
static double time_all_reduce(int64_t n)
{
    ct_tensor *flat = ct_zeros(CT_SHAPE(n), CT_F32);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < STEPS; i++) ct_dist_all_reduce(flat, CT_REDUCE_SUM, (ct_dist_opts){0});
    double t = (MPI_Wtime() - t0) / STEPS;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ct_release(flat);
    return t;
}

int main(void)
{
    if (ct_dist_init_process_group("mpi", (ct_dist_init_opts){0}) != CT_OK) {
        printf("%s\n", ct_last_error());
        return 1;
    }
    int rank = ct_dist_get_rank(NULL);
    ct_manual_seed(0);
    ct_tensor *x = ct_rand(CT_SHAPE(BATCH, 784), CT_F32, NULL);
    ct_tensor *y = ct_randint(0, 10, CT_SHAPE(BATCH), CT_I64, NULL);
    ct_module *local = mlp();
    double compute = time_steps(local, x, y);
    ct_module *ddp = ct_ddp(mlp(), ct_ddp_opts_init());
    double step = time_steps(ddp, x, y);
    int64_t n = 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10;
    double comm = time_all_reduce(n);
    if (rank == 0)
        printf("ddp_mlp_784_256_128_10_b64 %d ranks: DDP step %.3f ms, compute alone %.3f ms, all-reduce of the "
               "gradients alone %.3f ms (sum %.3f ms)\n",
               ct_dist_get_world_size(NULL), 1e3 * step, 1e3 * compute, 1e3 * comm, 1e3 * (compute + comm));
    ct_module_release(local);
    ct_module_release(ddp);
    ct_release(x), ct_release(y);
    ct_dist_destroy_process_group(NULL);
    return 0;
}
