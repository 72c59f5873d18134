/* The demo's CNN trained with DistributedDataParallel: each rank reads its
 * share of the training images (DistributedSampler) in batches of 64 / world
 * size, DDP averages the gradients, so every rank takes the single
 * process's optimizer steps on the same global batch size. Rank 0 prints the
 * epochs' lines; at the end it saves a checkpoint that every rank loads back
 * after a barrier (seed 004's pattern), to the path given (ddp_digits.pth
 * by default). Build and run:
 *
 *     mpicc -DCTORCH_DIST_MPI -DCTORCH_ZLIB -O2 -I. -Iexamples examples/dist/ddp_digits.c -o ddp_digits -lm -lz
 *     mpirun -np 2 ./ddp_digits
 */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
#define CTORCH_DIST_IMPLEMENTATION
#include "ctorch_dist.h"

#include <stdio.h>

#include "digits.h"

enum { EPOCHS = 12, GLOBAL_BATCH = 64 };

/* One epoch of DDP training on this rank's share; the mean loss over every
 * rank's samples. */
static double train_epoch(ct_module *ddp, ct_optimizer *opt, ct_loader *loader)
{
    double local[2] = {0, 0}; /* summed loss, samples */
    ct_sample batch;
    while (ct_loader_next(loader, &batch) > 0) {
        ct_scope step = ct_scope_begin();
        ct_optim_zero_grad(opt, true);
        ct_tensor *loss = ct_cross_entropy(ct_forward(ddp, batch.field[0]), batch.field[1], ct_nll_loss_opts_init());
        ct_backward(loss, NULL, (ct_backward_opts){0});
        ct_optim_step(opt);
        int64_t n = ct_size(batch.field[1], 0);
        local[0] += ct_item(loss) * (double)n;
        local[1] += (double)n;
        ct_scope_end(step);
    }
    ct_tensor *sums = ct_from_array(local, CT_SHAPE(2), CT_F64);
    ct_dist_all_reduce(sums, CT_REDUCE_SUM, (ct_dist_opts){0});
    const double *all = (const double *)ct_data_ptr(sums);
    return all[0] / all[1];
}

/* Rank 0 saves the model's state_dict, every rank loads it back onto the CPU
 * once the file is there: the same parameters everywhere. */
static ct_result checkpoint(ct_module *ddp, const char *path)
{
    ct_result r = CT_OK;
    if (ct_dist_get_rank(NULL) == 0) {
        ct_tensor_list sd = ct_module_state_dict(ddp);
        r = ct_save(path, &sd);
        ct_tensor_list_free(&sd);
    }
    ct_dist_barrier((ct_dist_opts){0}); /* no rank reads before rank 0 has written */
    ct_tensor_list loaded;
    if (r == CT_OK) r = ct_load_map_location(path, &loaded, CT_CPU);
    if (r == CT_OK) {
        r = ct_module_load_state_dict(ddp, &loaded, true, NULL);
        ct_tensor_list_free(&loaded);
    }
    return r;
}

int main(int argc, char **argv)
{
    if (ct_dist_init_process_group("mpi", (ct_dist_init_opts){0}) != CT_OK) {
        fprintf(stderr, "%s\n", ct_last_error());
        return 1;
    }
    int rank = ct_dist_get_rank(NULL), world = ct_dist_get_world_size(NULL);
    ct_scope s = ct_scope_begin();
    ct_manual_seed(0);
    ct_dataset *split[2], *digits = load_digits(split);
    if (!digits) {
        fprintf(stderr, "%s\n", ct_last_error());
        return 1;
    }
    ct_sampler *sampler = ct_distributed_sampler(ct_dataset_len(split[0]), ct_dist_sampler_opts_init());
    ct_loader *loader =
        ct_loader_new(split[0], (ct_loader_opts){.batch_size = GLOBAL_BATCH / world, .sampler = sampler});
    ct_module *ddp = ct_ddp(new_model(), ct_ddp_opts_init()); /* rank 0's initial parameters everywhere */
    ct_tensor_list params = ct_module_parameters(ddp, true);
    ct_optimizer *opt = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.1, .momentum = 0.9});
    ct_lr_scheduler *sched = ct_step_lr(opt, 4, 0.5);
    ct_sample test;
    whole_dataset(split[1], &test);

    for (int epoch = 0; epoch < EPOCHS; epoch++) {
        ct_sampler_set_epoch(sampler, epoch); /* a new shuffle each epoch, the same on every rank */
        ct_module_train(ddp, true);
        double loss = train_epoch(ddp, opt, loader);
        ct_lr_scheduler_step(sched);
        ct_module_eval(ddp);
        ct_grad_mode mode = ct_no_grad();
        ct_scope eval = ct_scope_begin();
        int64_t correct = count_correct(ct_forward(ct_ddp_module(ddp), test.field[0]), test.field[1]);
        ct_scope_end(eval);
        ct_grad_mode_restore(mode);
        if (rank == 0) printf("epoch %2d  loss %.4f  test accuracy %lld/%d\n", epoch + 1, loss, (long long)correct, TEST);
        fflush(stdout);
    }
    ct_result saved = checkpoint(ddp, argc > 1 ? argv[1] : "ddp_digits.pth");
    if (saved != CT_OK) fprintf(stderr, "rank %d: %s\n", rank, ct_last_error());

    ct_lr_scheduler_free(sched);
    ct_optim_free(opt);
    ct_tensor_list_free(&params);
    ct_module_release(ddp);
    ct_loader_free(loader);
    ct_sampler_free(sampler);
    for (int i = 0; i < 2; i++) ct_dataset_free(split[i]);
    ct_dataset_free(digits);
    ct_scope_end(s);
    ct_dist_destroy_process_group(NULL);
    return saved == CT_OK ? 0 : 1;
}
