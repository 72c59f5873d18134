/* The MLP run of examples/fashion_mnist.c (784-256-128-10, SGD with
 * momentum, batch 64, a shuffling loader on 2 worker threads), then the
 * test accuracy, and this process's peak resident memory:
 *
 *     fashion_mlp DIR [STEPS]
 *
 * STEPS (default: the whole epoch) cuts the training epoch short. It prints
 * "peak_rss_kib <VmHWM in KiB>" last; bench/memory.sh compares it with
 * fashion_mlp.py's. DIR holds Fashion-MNIST's four IDX files (.gz ones need
 * a build with CTORCH_ZLIB and -lz). */
#define _POSIX_C_SOURCE 200809L
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BATCH = 64, TEST_BATCH = 1000, WORKERS = 2 };

/* The peak resident set size of this process (VmHWM), in KiB; -1 when unknown. */
static long peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) kib = strtol(line + 6, NULL, 10);
    if (f) fclose(f);
    return kib;
}

/* dir/name.gz or dir/name, whichever is there (the .gz one only with zlib). */
static bool find_file(const char *dir, const char *name, char *path, size_t size)
{
#ifdef CTORCH_ZLIB
    snprintf(path, size, "%s/%s.gz", dir, name);
    if (access(path, R_OK) == 0) return true;
#endif
    snprintf(path, size, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* (image as float [1, 28, 28] in [0, 1], label as int64), as in the example. */
static ct_dataset *fashion_split(const char *dir, const char *images_name, const char *labels_name)
{
    char images_path[1024], labels_path[1024];
    if (!find_file(dir, images_name, images_path, sizeof images_path) ||
        !find_file(dir, labels_name, labels_path, sizeof labels_path)) {
        fprintf(stderr, "fashion_mlp: no %s in %s\n", images_name, dir);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *images = ct_read_idx(images_path), *labels = ct_read_idx(labels_path);
    ct_dataset *d = NULL;
    if (images && labels) {
        ct_tensor *xy[2] = {ct_view(images, CT_SHAPE(-1, 1, 28, 28)), ct_to(labels, CT_I64)};
        ct_dataset *raw = ct_tensor_dataset(xy, 2);
        const ct_transform to_float = {.kind = CT_TO_FLOAT};
        d = raw ? ct_transformed_dataset(raw, 0, &to_float, 1) : NULL;
        ct_dataset_free(raw);
    }
    ct_scope_end(s);
    if (!d) fprintf(stderr, "%s\n", ct_last_error());
    return d;
}

static ct_module *new_mlp(void)
{
    ct_module *layers[] = {ct_nn_flatten(1, -1),          ct_nn_linear(784, 256, true), ct_nn_relu(),
                           ct_nn_linear(256, 128, true), ct_nn_relu(),                 ct_nn_linear(128, 10, true)};
    return ct_nn_sequential(layers, 6);
}

/* At most `steps` training steps (a whole epoch when steps <= 0); false after an error. */
static bool train(ct_module *model, ct_optimizer *opt, ct_loader *loader, long steps)
{
    ct_module_train(model, true);
    for (long step = 0; steps <= 0 || step < steps; step++) {
        ct_scope s = ct_scope_begin();
        ct_sample batch;
        int got = ct_loader_next(loader, &batch);
        if (got > 0) {
            ct_optim_zero_grad(opt, true);
            ct_tensor *loss = ct_cross_entropy(ct_forward(model, batch.field[0]), batch.field[1], ct_nll_loss_opts_init());
            ct_backward(loss, NULL, (ct_backward_opts){0});
            ct_optim_step(opt);
        }
        ct_scope_end(s);
        if (got < 0) return false;
        if (got == 0) break;
    }
    return true;
}

static int64_t count_correct(ct_module *model, ct_loader *test)
{
    ct_module_eval(model);
    ct_grad_mode mode = ct_no_grad();
    int64_t correct = 0;
    for (;;) {
        ct_scope s = ct_scope_begin();
        ct_sample batch;
        int got = ct_loader_next(test, &batch);
        if (got > 0)
            correct += ct_item_int(ct_sum(ct_eq(ct_argmax_dim(ct_forward(model, batch.field[0]), 1, false), batch.field[1])));
        ct_scope_end(s);
        if (got <= 0) {
            ct_grad_mode_restore(mode);
            return got == 0 ? correct : -1;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [STEPS]\n", argv[0]);
        return 2;
    }
    long steps = argc > 2 ? atol(argv[2]) : 0;
    ct_dataset *train_set = fashion_split(argv[1], "train-images-idx3-ubyte", "train-labels-idx1-ubyte");
    ct_dataset *test_set = train_set ? fashion_split(argv[1], "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte") : NULL;
    if (!test_set) return 1;
    ct_manual_seed(0);
    ct_module *model = new_mlp();
    ct_tensor_list params = ct_module_parameters(model, true);
    ct_optimizer *opt = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.01, .momentum = 0.9});
    ct_loader *loader = ct_loader_new(train_set, (ct_loader_opts){.batch_size = BATCH, .shuffle = true, .num_workers = WORKERS});
    ct_loader *test_loader = ct_loader_new(test_set, (ct_loader_opts){.batch_size = TEST_BATCH});
    bool trained = loader && train(model, opt, loader, steps);
    ct_loader_free(loader); /* its workers stop, as PyTorch's iterator's do when the loop ends */
    int64_t correct = trained && test_loader ? count_correct(model, test_loader) : -1;
    int status = 0;
    if (correct < 0) {
        fprintf(stderr, "%s\n", ct_last_error());
        status = 1;
    } else {
        printf("test accuracy %.2f%%\n", 100.0 * (double)correct / (double)ct_dataset_len(test_set));
    }
    ct_loader_free(test_loader);
    ct_optim_free(opt);
    ct_tensor_list_free(&params);
    ct_module_release(model);
    ct_dataset_free(test_set);
    ct_dataset_free(train_set);
    printf("peak_rss_kib %ld\n", peak_rss_kib());
    return status;
}
