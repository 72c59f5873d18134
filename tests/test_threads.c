/* Several threads running forward and backward at once on modules that
 * share parameters, as PyTorch allows (the gradients accumulate in .grad).
 * make test-tsan runs this under ThreadSanitizer beside the DataLoader's
 * tests. */
#include "harness.h"

#include <pthread.h>

#define THREADS 4
#define STEPS 20
#define BATCH 3

typedef struct worker {
    ct_module *model;
    int id;
    ct_result result;
} worker;

/* Thread id's batch at step s: small integers, so that every sum of them
 * is exact in float whatever order the threads add them in. */
static void batch_of(int id, int step, float *x, int features)
{
    for (int i = 0; i < BATCH * features; i++) x[i] = (float)((id * 7 + step * 3 + i) % 5 - 2);
}

static void *train_steps(void *arg)
{
    worker *w = (worker *)arg;
    for (int s = 0; s < STEPS && w->result == CT_OK; s++) {
        float x[BATCH * 4];
        batch_of(w->id, s, x, 4);
        ct_scope scope = ct_scope_begin();
        ct_tensor *out = ct_forward(w->model, ct_from_array(x, CT_SHAPE(BATCH, 4), CT_F32));
        w->result = out ? ct_backward(ct_sum(out), NULL, (ct_backward_opts){0}) : ct_last_error_code();
        ct_scope_end(scope);
    }
    return NULL;
}

/* Runs train_steps on `threads` threads at once (each on its own batches). */
static void train_on_threads(ct_module *model, int threads)
{
    pthread_t tid[THREADS];
    worker w[THREADS];
    for (int t = 0; t < threads; t++) {
        w[t] = (worker){model, t, CT_OK};
        CHECK(pthread_create(&tid[t], NULL, train_steps, &w[t]) == 0);
    }
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        CHECK_OK(w[t].result);
    }
}

/* sum(x W^T + b): W's gradient is each input column's sum over every batch
 * of every thread, the same for each output; b's is the number of rows. */
static void test_shared_linear_accumulates_every_thread(void)
{
    ct_module *lin = ct_nn_linear(4, 3, true);
    train_on_threads(lin, THREADS);
    float want[4] = {0};
    for (int t = 0; t < THREADS; t++)
        for (int s = 0; s < STEPS; s++) {
            float x[BATCH * 4];
            batch_of(t, s, x, 4);
            for (int i = 0; i < BATCH * 4; i++) want[i % 4] += x[i];
        }
    ct_tensor *gw = ct_grad(ct_module_get_parameter(lin, "weight")), *gb = ct_grad(ct_module_get_parameter(lin, "bias"));
    CHECK_VALUES(gw, CT_SHAPE(3, 4), want[0], want[1], want[2], want[3], want[0], want[1], want[2], want[3], want[0],
                 want[1], want[2], want[3]);
    double rows = THREADS * STEPS * BATCH;
    CHECK_VALUES(gb, CT_SHAPE(3), rows, rows, rows);
    ct_module_release(lin);
}

/* An MLP trained from several threads gets the gradient one thread gets
 * running all their batches in turn (up to the order of the float sums). */
static void test_shared_mlp_matches_one_thread(void)
{
    ct_module *layers[3];
    ct_manual_seed(3);
    layers[0] = ct_nn_linear(4, 8, true), layers[1] = ct_nn_tanh(), layers[2] = ct_nn_linear(8, 2, true);
    ct_module *mlp = ct_nn_sequential(layers, 3);
    train_on_threads(mlp, THREADS);
    ct_tensor_list threaded = ct_module_parameters(mlp, true);
    ct_tensor *grads[4];
    for (int i = 0; i < 4; i++) grads[i] = ct_clone(ct_grad(threaded.tensors[i]));

    ct_module_zero_grad(mlp, true);
    worker one = {mlp, 0, CT_OK};
    for (int t = 0; t < THREADS; t++) {
        one.id = t;
        train_steps(&one);
        CHECK_OK(one.result);
    }
    ct_isclose_opts close = {1e-5, 1e-6, false};
    for (int i = 0; i < 4; i++) CHECK(ct_allclose(grads[i], ct_grad(threaded.tensors[i]), close));
    ct_tensor_list_free(&threaded);
    ct_module_release(mlp);
}

int main(void)
{
    RUN(test_shared_linear_accumulates_every_thread);
    RUN(test_shared_mlp_matches_one_thread);
    return ct_test_report();
}
