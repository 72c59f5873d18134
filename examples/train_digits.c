/* ctorch's main demo: an MLP learns the bundled UCI handwritten digits
 * (data/digits.csv.gz, 1797 8x8 images) with a multi-worker DataLoader, SGD
 * with momentum and a StepLR schedule. train_digits.py is the same program in
 * PyTorch; both print the same lines (train_digits.out). Run with `make demo`. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

/* The first batch of a loader over the whole of d: the stacked test set. */
static ct_result whole_dataset(ct_dataset *d, ct_sample *all)
{
    ct_loader *loader = ct_loader_new(d, (ct_loader_opts){.batch_size = ct_dataset_len(d)});
    int got = loader ? ct_loader_next(loader, all) : -1;
    ct_loader_free(loader);
    return got > 0 ? CT_OK : ct_last_error_code();
}

/* The number of rows of logits whose argmax is the label. */
static int64_t count_correct(const ct_tensor *logits, const ct_tensor *labels)
{
    return (int64_t)ct_item(ct_sum(ct_eq(ct_argmax_dim(logits, 1, false), labels)));
}

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_manual_seed(0);
    ct_tensor *raw = ct_read_csv("data/digits.csv.gz", (ct_csv_opts){.dtype = CT_F32});
    if (!raw) {
        fprintf(stderr, "%s\n", ct_last_error());
        return 1;
    }
    ct_tensor *xy[2] = {ct_div_scalar(ct_index(raw, ":, :64"), ct_float(16.0)),   /* pixels are 0..16 */
                        ct_to(ct_index(raw, ":, 64"), CT_I64)};
    ct_dataset *digits = ct_tensor_dataset(xy, 2), *split[2];
    ct_generator *g = ct_generator_new();
    ct_generator_manual_seed(g, 0);
    ct_random_split(digits, (double[]){1497, 300}, 2, g, split);   /* train, test */
    ct_loader *loader = ct_loader_new(split[0], (ct_loader_opts){.batch_size = 64, .shuffle = true, .num_workers = 2});

    ct_module *layers[3] = {ct_nn_linear(64, 128, true), ct_nn_relu(), ct_nn_linear(128, 10, true)};
    ct_module *model = ct_nn_sequential(layers, 3);
    ct_tensor_list params = ct_module_parameters(model, true);
    ct_optimizer *opt = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.1, .momentum = 0.9});
    ct_lr_scheduler *sched = ct_step_lr(opt, 4, 0.5);

    ct_sample test;
    whole_dataset(split[1], &test);
    for (int epoch = 0; epoch < 12; epoch++) {
        ct_module_train(model, true);
        double total = 0;
        ct_sample batch;
        while (ct_loader_next(loader, &batch) > 0) {
            ct_scope step = ct_scope_begin();
            ct_optim_zero_grad(opt, true);
            ct_tensor *loss = ct_cross_entropy(ct_forward(model, batch.field[0]), batch.field[1], ct_nll_loss_opts_init());
            ct_backward(loss, NULL, (ct_backward_opts){0});
            ct_optim_step(opt);
            total += ct_item(loss) * (double)ct_size(batch.field[1], 0);
            ct_scope_end(step);
        }
        ct_lr_scheduler_step(sched);
        ct_module_eval(model);
        ct_grad_mode mode = ct_no_grad();
        ct_scope eval = ct_scope_begin();
        int64_t correct = count_correct(ct_forward(model, test.field[0]), test.field[1]);
        ct_scope_end(eval);
        ct_grad_mode_restore(mode);
        printf("epoch %2d  loss %.4f  test accuracy %lld/300\n", epoch + 1, total / 1497, (long long)correct);
    }

    ct_lr_scheduler_free(sched);
    ct_optim_free(opt);
    ct_tensor_list_free(&params);
    ct_module_release(model);
    ct_loader_free(loader);
    for (int i = 0; i < 2; i++) ct_dataset_free(split[i]);
    ct_dataset_free(digits);
    ct_generator_free(g);
    ct_scope_end(s);
    return 0;
}
