/* Seed 004's DistributedDataParallel examples, the DDP tutorial's
 * demo_basic and demo_checkpoint with its ToyModel, on the CPU. Rank 0
 * prints what every rank saw; with 2 ranks that is what the PyTorch twin
 * (ddp_toy.py, torch.distributed on gloo) prints, ddp_toy.out, which make
 * test-dist compares. The twin's two changes to the seed are made here too:
 * each rank draws its own batches (seeded 42 + rank once the model is made),
 * and demo_basic takes STEPS steps.
 *
 * The first argument is the backend ("gloo" by default, under ctorchrun or
 * torchrun; "mpi" under mpirun), the second the checkpoint's path (the seed's
 * tempfile.gettempdir() + "/model.checkpoint" by default):
 *
 *     mpicc -DCTORCH_DIST_MPI -O2 -I. examples/dist/ddp_toy.c -o ddp_toy -lm
 *     mpirun -np 2 ./ddp_toy mpi
 *     build/ctorchrun --standalone --nproc_per_node 2 ./ddp_toy gloo
 */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
#define CTORCH_DIST_IMPLEMENTATION
#include "ctorch_dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STEPS = 5 };

/* class ToyModel(nn.Module): net1, relu, net2 (state_dict keys "net1.weight", ...) */
typedef struct toy_model {
    ct_module base;
    ct_module *net1, *relu, *net2;
} toy_model;

static ct_tensor *toy_forward(ct_module *self, ct_tensor *const *inputs, int n_inputs)
{
    (void)n_inputs;
    toy_model *m = (toy_model *)self;
    return ct_forward(m->net2, ct_forward(m->relu, ct_forward(m->net1, inputs[0])));
}

static const ct_module_class toy_class = {"ToyModel", toy_forward, NULL};

static ct_module *toy_model_new(void)
{
    toy_model *m = (toy_model *)ct_module_new(&toy_class, sizeof(toy_model));
    m->net1 = ct_add_module(&m->base, "net1", ct_nn_linear(10, 10, true));
    m->relu = ct_add_module(&m->base, "relu", ct_nn_relu());
    m->net2 = ct_add_module(&m->base, "net2", ct_nn_linear(10, 5, true));
    return &m->base;
}

/* setup(): the process group, and the same initial parameters on every rank */
static ct_result setup(const char *backend)
{
    ct_result r = ct_dist_init_process_group(backend, (ct_dist_init_opts){0});
    ct_manual_seed(42);
    return r;
}

/* One SGD step on a batch of this rank's own; the loss. */
static double train_step(ct_module *ddp, ct_optimizer *opt)
{
    ct_scope s = ct_scope_begin();
    ct_optim_zero_grad(opt, true);
    ct_tensor *outputs = ct_forward(ddp, ct_randn(CT_SHAPE(20, 10), CT_F32, NULL));
    ct_tensor *labels = ct_randn(CT_SHAPE(20, 5), CT_F32, NULL);
    ct_tensor *loss = ct_mse_loss(outputs, labels, CT_REDUCTION_MEAN);
    ct_backward(loss, NULL, (ct_backward_opts){0});
    ct_optim_step(opt);
    double value = ct_item(loss);
    ct_scope_end(s);
    return value;
}

/* Rank 0 prints every rank's loss, "%.4f" each. */
static void report_losses(const char *what, double loss)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *losses = ct_zeros(CT_SHAPE(ct_dist_get_world_size(NULL)), CT_F32);
    ct_dist_all_gather_into_tensor(losses, ct_full(CT_SHAPE(1), ct_float(loss), CT_F32), (ct_dist_opts){0});
    if (ct_dist_get_rank(NULL) == 0) {
        const float *all = (const float *)ct_data_ptr(losses);
        printf("%s: losses", what);
        for (int64_t i = 0; i < ct_numel(losses); i++) printf(" %.4f", all[i]);
        printf("\n");
    }
    ct_scope_end(s);
}

/* Rank 0 prints whether `holds` holds on every rank. */
static void report_on_every_rank(const char *what, bool holds)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *flag = ct_full(CT_SHAPE(1), ct_int(holds), CT_I64);
    ct_dist_all_reduce(flag, CT_REDUCE_MIN, (ct_dist_opts){0});
    if (ct_dist_get_rank(NULL) == 0) printf("%s: %s\n", what, ct_item(flag) ? "True" : "False");
    ct_scope_end(s);
}

/* Rank 0 prints whether every rank holds the same parameters: their
 * elementwise maximum over the ranks equals their minimum. */
static void report_same_parameters(const char *what, ct_module *ddp)
{
    ct_scope s = ct_scope_begin();
    ct_tensor_list params = ct_module_parameters(ddp, true);
    ct_tensor **flat = (ct_tensor **)malloc((size_t)params.n * sizeof *flat);
    for (int i = 0; i < params.n; i++) flat[i] = ct_flatten(ct_detach(params.tensors[i]), 0, -1);
    ct_tensor *high = ct_cat(flat, params.n, 0), *low = ct_clone(high);
    ct_dist_all_reduce(high, CT_REDUCE_MAX, (ct_dist_opts){0});
    ct_dist_all_reduce(low, CT_REDUCE_MIN, (ct_dist_opts){0});
    if (ct_dist_get_rank(NULL) == 0)
        printf("%s: the same parameters on every rank: %s\n", what, ct_equal(high, low) ? "True" : "False");
    free(flat);
    ct_tensor_list_free(&params);
    ct_scope_end(s);
}

static ct_result demo_basic(const char *backend)
{
    ct_result r = setup(backend);
    if (r != CT_OK) return r;
    ct_scope s = ct_scope_begin(); /* the tensors made along the way: the checkpoint's, what is printed */
    int rank = ct_dist_get_rank(NULL);
    ct_module *ddp = ct_ddp(toy_model_new(), ct_ddp_opts_init());
    ct_tensor_list params = ct_module_parameters(ddp, true);
    ct_optimizer *opt = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.001});

    ct_manual_seed(42 + (uint64_t)rank);
    for (int step = 1; step <= STEPS; step++) {
        char what[32];
        snprintf(what, sizeof what, "basic step %d", step);
        report_losses(what, train_step(ddp, opt));
    }
    report_same_parameters("basic", ddp);
    if (rank == 0) ct_print(ct_detach(ct_module_get_parameter(ddp, "module.net2.bias")));

    ct_optim_free(opt);
    ct_tensor_list_free(&params);
    ct_module_release(ddp);
    ct_scope_end(s);
    return ct_dist_destroy_process_group(NULL);
}

/* Whether every tensor of the module's state_dict equals the one of its name
 * in `loaded`. */
static bool state_dict_equals(const ct_module *m, const ct_tensor_list *loaded)
{
    ct_tensor_list own = ct_module_state_dict(m);
    bool same = own.n == loaded->n;
    for (int i = 0; same && i < own.n; i++) {
        int j = 0;
        while (j < loaded->n && strcmp(loaded->names[j], own.names[i]) != 0) j++;
        same = j < loaded->n && ct_equal(own.tensors[i], loaded->tensors[j]);
    }
    ct_tensor_list_free(&own);
    return same;
}

/* Rank 0 saves the model, every rank loads it after a barrier. */
static ct_result save_and_load(ct_module *ddp, const char *path)
{
    ct_result r = CT_OK;
    if (ct_dist_get_rank(NULL) == 0) {
        /* Every rank starts from the same parameters and gradients are
         * averaged in backward: saving on one rank is enough. */
        ct_tensor_list sd = ct_module_state_dict(ddp);
        r = ct_save(path, &sd);
        ct_tensor_list_free(&sd);
    }
    ct_dist_barrier((ct_dist_opts){0}); /* no rank reads it before rank 0 has written it */
    /* the tutorial maps rank 0's GPUs to this rank's; on the CPU, to the CPU */
    ct_tensor_list loaded = {0};
    if (r == CT_OK) r = ct_load_map_location(path, &loaded, CT_CPU);
    if (r == CT_OK) r = ct_module_load_state_dict(ddp, &loaded, true, NULL);
    char what[64];
    snprintf(what, sizeof what, "checkpoint: %d tensors, loaded by every rank", loaded.n);
    report_on_every_rank(what, r == CT_OK && state_dict_equals(ddp, &loaded));
    ct_tensor_list_free(&loaded);
    return r;
}

static ct_result demo_checkpoint(const char *backend, const char *path)
{
    ct_result r = setup(backend);
    if (r != CT_OK) return r;
    ct_scope s = ct_scope_begin(); /* the tensors made along the way: the checkpoint's, what is printed */
    int rank = ct_dist_get_rank(NULL);
    ct_module *ddp = ct_ddp(toy_model_new(), ct_ddp_opts_init());
    ct_tensor_list params = ct_module_parameters(ddp, true);
    ct_optimizer *opt = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.001});

    r = save_and_load(ddp, path);
    if (r == CT_OK) {
        ct_manual_seed(42 + (uint64_t)rank);
        report_losses("checkpoint step", train_step(ddp, opt));
        report_same_parameters("checkpoint", ddp);
    }
    ct_dist_barrier((ct_dist_opts){0}); /* no rank is still reading the checkpoint when rank 0 removes it */
    if (rank == 0) remove(path);

    ct_optim_free(opt);
    ct_tensor_list_free(&params);
    ct_module_release(ddp);
    ct_scope_end(s);
    ct_result destroyed = ct_dist_destroy_process_group(NULL);
    return r != CT_OK ? r : destroyed;
}

/* tempfile.gettempdir(): TMPDIR, TEMP or TMP, else /tmp */
static const char *temp_dir(void)
{
    const char *names[3] = {"TMPDIR", "TEMP", "TMP"};
    for (int i = 0; i < 3; i++) {
        const char *dir = getenv(names[i]);
        if (dir && *dir) return dir;
    }
    return "/tmp";
}

int main(int argc, char **argv)
{
    const char *backend = argc > 1 ? argv[1] : "gloo";
    char path[4096];
    if (argc > 2) snprintf(path, sizeof path, "%s", argv[2]);
    else snprintf(path, sizeof path, "%s/model.checkpoint", temp_dir());

    ct_result r = demo_basic(backend);
    if (r == CT_OK) r = demo_checkpoint(backend, path);
    if (r != CT_OK) fprintf(stderr, "%s\n", ct_last_error());
    return r == CT_OK ? 0 : 1;
}
