/* Fashion-MNIST (70000 28x28 grey images of clothes, 10 classes) learned by
 * an MLP (784-256-128-10) and a LeNet-style CNN, with a DataLoader on two
 * worker threads and SGD with momentum, batch 64. For each model and epoch it
 * prints the mean training loss, the test accuracy and the epoch's time.
 *
 *     fashion_mnist [DIR [EPOCHS [MODEL]]]
 *
 * MODEL is mlp, cnn or both (the default); bench/memory.sh runs the MLP alone.
 * DIR holds the four IDX files (train-images-idx3-ubyte.gz, ..., gzip or
 * not); by default Debian's dataset-fashion-mnist package's directory.
 * Without the data it says so in one line and exits 0. fashion_mnist_torch.py
 * is the same program in PyTorch: the same models, initialised from the same
 * seed, seeing the batches in the same order. Run with `make fashion`. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_DIR "/usr/share/datasets/fashion-mnist"

enum { BATCH = 64, TEST_BATCH = 1000, WORKERS = 2 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Reading gzip files needs a ctorch built with zlib. */
#ifdef CTORCH_ZLIB
#define GZIP_NOTE ""
#else
#define GZIP_NOTE "; this build reads no .gz files"
#endif

/* dir/name.gz (when built with zlib), or dir/name; false when neither is there. */
static bool find_file(const char *dir, const char *name, char *path, size_t size)
{
#ifdef CTORCH_ZLIB
    snprintf(path, size, "%s/%s.gz", dir, name);
    if (access(path, R_OK) == 0) return true;
#endif
    snprintf(path, size, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* The (image, label) pairs of one split: images as float [1, 28, 28] in
 * [0, 1] (made from the uint8 pixels by the loader's workers, as
 * transforms.ToTensor would), labels as int64. NULL with an error. */
static ct_dataset *fashion_split(const char *images_path, const char *labels_path)
{
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
    return d;
}

/* nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(),
 *               nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)) */
static ct_module *new_mlp(void)
{
    ct_module *layers[] = {ct_nn_flatten(1, -1),          ct_nn_linear(784, 256, true), ct_nn_relu(),
                           ct_nn_linear(256, 128, true), ct_nn_relu(),                 ct_nn_linear(128, 10, true)};
    return ct_nn_sequential(layers, 6);
}

/* LeNet-5 with ReLU and max pooling:
 * nn.Sequential(
 *     nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),   # 6x14x14
 *     nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),             # 16x5x5
 *     nn.Flatten(), nn.Linear(400, 120), nn.ReLU(),
 *     nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10)) */
static ct_module *new_cnn(void)
{
    const ct_conv_layer_opts pad2 = {.padding = CT_SHAPE(2)}, valid = {0};
    const ct_max_pool_opts pool = {0};
    ct_module *layers[] = {ct_nn_conv2d(1, 6, CT_SHAPE(5), pad2),   ct_nn_relu(), ct_nn_max_pool2d(CT_SHAPE(2), pool),
                           ct_nn_conv2d(6, 16, CT_SHAPE(5), valid), ct_nn_relu(), ct_nn_max_pool2d(CT_SHAPE(2), pool),
                           ct_nn_flatten(1, -1),                    ct_nn_linear(400, 120, true), ct_nn_relu(),
                           ct_nn_linear(120, 84, true),             ct_nn_relu(), ct_nn_linear(84, 10, true)};
    return ct_nn_sequential(layers, 12);
}

/* One pass over the training set; the mean loss per sample, or a negative
 * value after an error (reported). Each step's tensors, the batch's
 * included, live in the step's scope. */
static double train_epoch(ct_module *model, ct_optimizer *opt, ct_loader *loader)
{
    ct_module_train(model, true);
    double total = 0;
    int64_t seen = 0;
    for (;;) {
        ct_scope step = ct_scope_begin();
        ct_sample batch;
        int got = ct_loader_next(loader, &batch);
        if (got <= 0) {
            ct_scope_end(step);
            if (got == 0) break;
            fprintf(stderr, "%s\n", ct_last_error());
            return -1;
        }
        ct_optim_zero_grad(opt, true);
        ct_tensor *loss = ct_cross_entropy(ct_forward(model, batch.field[0]), batch.field[1], ct_nll_loss_opts_init());
        ct_backward(loss, NULL, (ct_backward_opts){0});
        ct_optim_step(opt);
        int64_t n = ct_size(batch.field[1], 0);
        total += ct_item(loss) * (double)n;
        seen += n;
        ct_scope_end(step);
    }
    return total / (double)seen;
}

/* How many test images the model labels right, or -1 after an error (reported). */
static int64_t count_correct(ct_module *model, ct_loader *test)
{
    ct_module_eval(model);
    ct_grad_mode mode = ct_no_grad();
    int64_t correct = 0;
    for (;;) {
        ct_scope s = ct_scope_begin();
        ct_sample batch;
        int got = ct_loader_next(test, &batch);
        if (got > 0) {
            ct_tensor *predicted = ct_argmax_dim(ct_forward(model, batch.field[0]), 1, false);
            correct += (int64_t)ct_item(ct_sum(ct_eq(predicted, batch.field[1])));
        }
        ct_scope_end(s);
        if (got == 0) break;
        if (got < 0) {
            fprintf(stderr, "%s\n", ct_last_error());
            correct = -1;
            break;
        }
    }
    ct_grad_mode_restore(mode);
    return correct;
}

/* torch.manual_seed(0), then the model, its optimizer and a shuffling loader,
 * trained and tested epoch by epoch. Returns 0, or 1 after an error. */
static int run(const char *name, ct_module *(*new_model)(void), ct_dataset *train, ct_dataset *test, int epochs)
{
    ct_manual_seed(0);
    ct_module *model = new_model();
    ct_tensor_list params = ct_module_parameters(model, true);
    ct_optimizer *opt = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.01, .momentum = 0.9});
    ct_loader *loader = ct_loader_new(train, (ct_loader_opts){.batch_size = BATCH, .shuffle = true, .num_workers = WORKERS});
    ct_loader *test_loader = ct_loader_new(test, (ct_loader_opts){.batch_size = TEST_BATCH});
    int status = 0;
    for (int epoch = 1; epoch <= epochs && status == 0; epoch++) {
        double start = now(), loss = train_epoch(model, opt, loader), seconds = now() - start;
        int64_t correct = loss >= 0 ? count_correct(model, test_loader) : -1;
        if (correct < 0) {
            status = 1;
            break;
        }
        printf("%s  epoch %d  loss %.4f  test accuracy %.2f%%  time %.1f s\n", name, epoch, loss,
               100.0 * (double)correct / (double)ct_dataset_len(test), seconds);
        fflush(stdout);
    }
    ct_loader_free(test_loader);
    ct_loader_free(loader);
    ct_optim_free(opt);
    ct_tensor_list_free(&params);
    ct_module_release(model);
    return status;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : DEFAULT_DIR;
    int epochs = argc > 2 ? atoi(argv[2]) : 1;
    const char *model = argc > 3 ? argv[3] : "both";
    bool mlp = !strcmp(model, "mlp") || !strcmp(model, "both"), cnn = !strcmp(model, "cnn") || !strcmp(model, "both");
    if (epochs < 1 || !(mlp || cnn)) {
        fprintf(stderr, "usage: %s [DIR [EPOCHS [mlp|cnn|both]]]\n", argv[0]);
        return 2;
    }
    char path[4][1024];
    const char *names[4] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                            "t10k-labels-idx1-ubyte"};
    for (int i = 0; i < 4; i++) {
        if (!find_file(dir, names[i], path[i], sizeof path[i])) {
            printf("fashion_mnist: no Fashion-MNIST in %s (apt-get install dataset-fashion-mnist, or give its directory"
                   GZIP_NOTE "): skipped\n", dir);
            return 0;
        }
    }
    ct_dataset *train = fashion_split(path[0], path[1]), *test = train ? fashion_split(path[2], path[3]) : NULL;
    int status = 1;
    if (!test) {
        fprintf(stderr, "%s\n", ct_last_error());
    } else {
        printf("Fashion-MNIST: %lld training and %lld test images, batch %d, %d loader workers\n",
               (long long)ct_dataset_len(train), (long long)ct_dataset_len(test), BATCH, WORKERS);
        status = mlp ? run("mlp", new_mlp, train, test, epochs) : 0;
        if (status == 0 && cnn) status = run("cnn", new_cnn, train, test, epochs);
    }
    ct_dataset_free(test);
    ct_dataset_free(train);
    return status;
}
