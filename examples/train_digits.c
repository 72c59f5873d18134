/* ctorch's main demo: a small CNN learns the bundled UCI handwritten digits
 * (data/digits.csv.gz, 1797 8x8 images; digits.h) with a multi-worker DataLoader, SGD
 * with momentum and a StepLR schedule. train_digits.py is the same program in
 * PyTorch; both print the same lines on stdout (train_digits.out). On stderr
 * a terminal shows a progress bar with the loss and throughput; `train_digits loss.svg` also
 * plots the loss curve. Run with `make demo`. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "digits.h"

enum { EPOCHS = 12, BATCH = 64, STEPS = (TRAIN + BATCH - 1) / BATCH };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* epoch 3/12 [##########----------]  640/1497  loss 0.2131  41234 samples/s,
 * on a terminal only */
static void progress(int epoch, int64_t seen, double loss, double seconds)
{
    if (!isatty(STDERR_FILENO)) return;
    char bar[21];
    int filled = (int)(20 * seen / TRAIN);
    for (int i = 0; i < 20; i++) bar[i] = i < filled ? '#' : '-';
    bar[20] = 0;
    fprintf(stderr, "\repoch %d/%d [%s] %4lld/%d  loss %.4f  %6.0f samples/s", epoch, EPOCHS, bar, (long long)seen,
            TRAIN, loss, (double)seen / seconds);
    if (seen == TRAIN) fprintf(stderr, "\r%78s\r", ""); /* the epoch's line replaces the bar */
}

/* The training loss of every step as an SVG line chart. */
static void plot_losses(const char *path, const double *loss, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    double top = 0;
    for (int i = 0; i < n; i++) top = loss[i] > top ? loss[i] : top;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"360\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"640\" height=\"360\" fill=\"white\"/>\n"
               "<path d=\"M60 20 V320 H620\" stroke=\"black\" fill=\"none\"/>\n"
               "<text x=\"340\" y=\"350\" text-anchor=\"middle\">step (%d per epoch)</text>\n"
               "<text x=\"55\" y=\"24\" text-anchor=\"end\">%.2f</text>\n"
               "<text x=\"55\" y=\"320\" text-anchor=\"end\">0</text>\n"
               "<text x=\"340\" y=\"14\" text-anchor=\"middle\">training loss</text>\n<polyline fill=\"none\" "
               "stroke=\"#d33\" points=\"",
            STEPS, top);
    for (int i = 0; i < n; i++) fprintf(f, "%.1f,%.1f ", 60 + 560.0 * i / (n - 1), 320 - 300 * loss[i] / top);
    fprintf(f, "\"/>\n</svg>\n");
    fclose(f);
}

int main(int argc, char **argv)
{
    ct_scope s = ct_scope_begin();
    ct_manual_seed(0);
    ct_dataset *split[2], *digits = load_digits(split);
    if (!digits) {
        fprintf(stderr, "%s\n", ct_last_error());
        return 1;
    }
    ct_loader_opts shuffled = {.batch_size = BATCH, .shuffle = true, .num_workers = 2};
    ct_loader *loader = ct_loader_new(split[0], shuffled);

    ct_module *model = new_model();
    ct_tensor_list params = ct_module_parameters(model, true);
    ct_optimizer *opt = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.1, .momentum = 0.9});
    ct_lr_scheduler *sched = ct_step_lr(opt, 4, 0.5);

    ct_sample test;
    whole_dataset(split[1], &test);
    static double losses[EPOCHS * STEPS];
    int steps = 0;
    for (int epoch = 0; epoch < EPOCHS; epoch++) {
        ct_module_train(model, true);
        double total = 0, start = now();
        int64_t seen = 0;
        ct_sample batch;
        while (ct_loader_next(loader, &batch) > 0) {
            ct_scope step = ct_scope_begin();
            ct_optim_zero_grad(opt, true);
            ct_tensor *logits = ct_forward(model, batch.field[0]);
            ct_tensor *loss = ct_cross_entropy(logits, batch.field[1], ct_nll_loss_opts_init());
            ct_backward(loss, NULL, (ct_backward_opts){0});
            ct_optim_step(opt);
            int64_t n = ct_size(batch.field[1], 0);
            losses[steps++] = ct_item(loss);
            total += ct_item(loss) * (double)n;
            seen += n;
            progress(epoch + 1, seen, total / (double)seen, now() - start);
            ct_scope_end(step);
        }
        ct_lr_scheduler_step(sched);
        ct_module_eval(model);
        ct_grad_mode mode = ct_no_grad();
        ct_scope eval = ct_scope_begin();
        int64_t correct = count_correct(ct_forward(model, test.field[0]), test.field[1]);
        ct_scope_end(eval);
        ct_grad_mode_restore(mode);
        printf("epoch %2d  loss %.4f  test accuracy %lld/%d\n", epoch + 1, total / TRAIN, (long long)correct, TEST);
        fflush(stdout);
    }
    if (argc > 1) plot_losses(argv[1], losses, steps);

    ct_lr_scheduler_free(sched);
    ct_optim_free(opt);
    ct_tensor_list_free(&params);
    ct_module_release(model);
    ct_loader_free(loader);
    for (int i = 0; i < 2; i++) ct_dataset_free(split[i]);
    ct_dataset_free(digits);
    ct_scope_end(s);
    return 0;
}
