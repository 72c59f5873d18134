/* Allocation failure: a small training program (tensors, an MLP with Adam
 * and SGD steps, a scheduler, clipping, save and load, a DataLoader epoch,
 * a convolution, pooling, layer norm, embedding and inverse with their
 * gradients)
 * runs with the Nth allocation failing, for every N, each N in a child
 * process. Every failure must be an error returned with a message; the same
 * process then runs the program again to the reference result, and in the
 * end holds no memory it did not hold before. A crash, a hang, a leak or a
 * different number with no error is a failure.
 *
 * This file has a ctorch of its own (CTORCH_STATIC), built with allocation
 * hooks: the harness's copy, linked beside it, only reports. */
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *test_malloc(size_t n);
static void *test_realloc(void *p, size_t n);
static void test_free(void *p);
#define CT_MALLOC(n) test_malloc(n)
#define CT_REALLOC(p, n) test_realloc(p, n)
#define CT_FREE(p) test_free(p)
#define CTORCH_STATIC
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
#include "harness.h"

#ifndef CT_BUILD_DIR
#define CT_BUILD_DIR "build"
#endif

/* ---------------------------------------------------------------- the failing allocator */

static atomic_llong calls;     /* allocations so far (malloc, and realloc that may move) */
static atomic_llong fail_at;   /* the call that fails (0: none) */
static atomic_llong live;      /* blocks not yet freed */
static atomic_size_t counted;  /* only allocations of at least this many bytes are calls (0: all) */

static bool fails_now(size_t n)
{
    if (n < atomic_load(&counted)) return false;
    long long k = atomic_fetch_add(&calls, 1) + 1;
    return k == atomic_load(&fail_at);
}

static void *test_malloc(size_t n)
{
    if (fails_now(n)) return NULL;
    void *p = malloc(n ? n : 1);
    if (p) atomic_fetch_add(&live, 1);
    return p;
}

static void *test_realloc(void *p, size_t n)
{
    if (fails_now(n)) return NULL;
    void *q = realloc(p, n ? n : 1);
    if (q && !p) atomic_fetch_add(&live, 1);
    return q;
}

static void test_free(void *p)
{
    if (p) atomic_fetch_sub(&live, 1);
    free(p);
}

/* ---------------------------------------------------------------- the program */

typedef struct outcome {
    bool failed;        /* a call returned an error */
    bool error_missing; /* ... without setting one, or set one while succeeding */
    double result;      /* what the program computed, when it did not fail */
    char where[160];    /* the call that failed */
} outcome;

#define TRY(expr)                                                   \
    do {                                                            \
        if (!(expr)) {                                              \
            snprintf(o->where, sizeof o->where, "%s", #expr);       \
            goto failed;                                            \
        }                                                           \
    } while (0)
#define TRY_OK(expr) TRY((expr) == CT_OK)

/* The parameters' absolute values summed into *sum; false when a call failed. */
static bool checksum(const ct_tensor_list *params, double *sum)
{
    *sum = 0;
    for (int i = 0; i < params->n; i++) {
        ct_tensor *s = ct_sum(ct_abs(params->tensors[i]));
        if (!s) return false;
        *sum += ct_item(s);
    }
    return true;
}

/* One epoch of the data loader over (x, y) with the optimizer: the loss summed. */
static ct_result train_epoch(ct_module *net, ct_optimizer *opt, ct_dataset *data, const ct_tensor_list *params,
                             double *total, outcome *o)
{
    ct_loader *loader = NULL;
    TRY(loader = ct_loader_new(data, (ct_loader_opts){.batch_size = 8, .shuffle = true, .num_workers = 2}));
    ct_sample batch;
    int got;
    while ((got = ct_loader_next(loader, &batch)) > 0) {
        ct_scope s = ct_scope_begin();
        ct_tensor *loss;
        TRY_OK(ct_optim_zero_grad(opt, true));
        TRY(loss = ct_mse_loss(ct_forward(net, batch.field[0]), batch.field[1], CT_REDUCTION_MEAN));
        TRY_OK(ct_backward(loss, NULL, (ct_backward_opts){0}));
        TRY(ct_clip_grad_norm_(params->tensors, params->n, 1.0, 2.0, false));
        TRY_OK(ct_optim_step(opt));
        *total += ct_item(loss);
        ct_scope_end(s);
    }
    TRY(got == 0);
    ct_loader_free(loader);
    return CT_OK;
failed:
    ct_loader_free(loader);
    return CT_ERR_RUNTIME;
}

/* A convolution, a max pooling, a layer norm, an embedding and an inverse,
 * with their gradients: the gradients' absolute values summed into *total. A missing
 * gradient counts as zeros, as an optimizer skips a parameter without one,
 * so that a result returned without its history shows as a wrong number. */
static ct_result layers_step(double *total, outcome *o)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *img, *w, *table, *m, *pooled, *words, *loss;
    TRY(img = ct_randn(CT_SHAPE(2, 1, 6, 6), CT_F32, NULL));
    TRY(w = ct_randn(CT_SHAPE(3, 1, 3, 3), CT_F32, NULL));
    TRY(table = ct_randn(CT_SHAPE(5, 4), CT_F32, NULL));
    TRY_OK(ct_requires_grad_(w, true));
    TRY(m = ct_add(ct_randn(CT_SHAPE(3, 3), CT_F64, NULL), ct_mul_scalar(ct_eye(3, 3, CT_F64), ct_int(3))));
    TRY_OK(ct_requires_grad_(table, true));
    TRY_OK(ct_requires_grad_(m, true));
    TRY(pooled = ct_max_pool2d(ct_conv2d(img, w, NULL, (ct_conv_opts){0}), CT_SHAPE(2), (ct_max_pool_opts){0}));
    TRY(pooled = ct_layer_norm(ct_flatten(pooled, 1, -1), CT_SHAPE(12), NULL, NULL, 1e-5));
    TRY(words = ct_embedding(ct_from_array((int64_t[]){1, 4, 1}, CT_SHAPE(3), CT_I64), table, CT_NO_PADDING));
    TRY(loss = ct_add(ct_add(ct_sum(ct_mul(pooled, pooled)), ct_sum(ct_sin(words))), ct_sum(ct_linalg_inv(m))));
    TRY_OK(ct_backward(loss, NULL, (ct_backward_opts){0}));
    const ct_tensor *grads[3] = {ct_grad(w), ct_grad(table), ct_grad(m)};
    for (int i = 0; i < 3; i++) {
        ct_tensor *g = grads[i] ? ct_sum(ct_abs(grads[i])) : NULL;
        TRY(g || !grads[i]);
        *total += g ? ct_item(g) : 0;
    }
    ct_scope_end(s);
    return CT_OK;
failed:
    ct_scope_end(s);
    return CT_ERR_RUNTIME;
}

/* CT_ALLOC_FAIL_TRACE=1: where each error is raised (to debug one N) */
static void trace_error(ct_result code, const char *msg, void *user)
{
    void *frames[12];
    (void)user;
    fprintf(stderr, "error %s: %s\n", ct_result_str(code), msg);
    backtrace_symbols_fd(frames, backtrace(frames, 12), 2);
}

static void run_program(outcome *o, const char *path)
{
    if (getenv("CT_ALLOC_FAIL_TRACE")) ct_set_error_handler(trace_error, NULL);
    memset(o, 0, sizeof *o);
    ct_scope top = ct_scope_begin();
    ct_module *net = NULL;
    ct_dataset *data = NULL;
    ct_optimizer *adam = NULL, *sgd = NULL;
    ct_lr_scheduler *sched = NULL;
    ct_tensor_list params = {0}, loaded = {0}, sd = {0};
    double total = 0;
    ct_manual_seed(0);
    ct_tensor *x, *w, *xy[2];
    TRY(x = ct_randn(CT_SHAPE(32, 4), CT_F32, NULL));
    TRY(w = ct_from_array((float[]){0.5f, -1, 2, 0.25f}, CT_SHAPE(4, 1), CT_F32));
    xy[0] = x;
    TRY(xy[1] = ct_add(ct_matmul(ct_sin(x), w), ct_index(x, ":, :1")));
    TRY(data = ct_tensor_dataset(xy, 2));
    /* checked once, at the end of the chain: the container takes the layers, made or NULL */
    ct_module *layers[3] = {ct_nn_linear(4, 16, true), ct_nn_relu(), ct_nn_linear(16, 1, true)};
    TRY(net = ct_nn_sequential(layers, 3));
    params = ct_module_parameters(net, true);
    TRY(params.n == 4);
    TRY(adam = ct_adam(params.tensors, params.n, ct_adam_opts_init()));
    TRY(sched = ct_step_lr(adam, 1, 0.5));
    for (int epoch = 0; epoch < 2; epoch++) {
        TRY_OK(train_epoch(net, adam, data, &params, &total, o));
        TRY_OK(ct_lr_scheduler_step(sched));
    }
    /* save, change, load back, then SGD steps */
    sd = ct_module_state_dict(net);
    TRY(sd.n == 4);
    TRY_OK(ct_save(path, &sd));
    TRY_OK(ct_init_zeros_(params.tensors[0]));
    TRY_OK(ct_load(path, &loaded));
    TRY_OK(ct_module_load_state_dict(net, &loaded, true, NULL));
    TRY(sgd = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.05, .momentum = 0.9}));
    TRY_OK(train_epoch(net, sgd, data, &params, &total, o));
    TRY_OK(layers_step(&total, o));
    double sum;
    TRY(checksum(&params, &sum));
    o->result = total + sum;
failed:
    o->failed = o->where[0] != 0;
    /* a failure names its reason; a success leaves no error behind */
    o->error_missing = o->failed ? ct_last_error_code() == CT_OK || !ct_last_error()[0] : ct_last_error_code() != CT_OK;
    if (o->error_missing && !o->failed) snprintf(o->where, sizeof o->where, "%.150s", ct_last_error());
    ct_clear_error();
    ct_lr_scheduler_free(sched);
    ct_optim_free(sgd);
    ct_optim_free(adam);
    ct_tensor_list_free(&params);
    ct_tensor_list_free(&loaded);
    ct_tensor_list_free(&sd);
    ct_module_release(net);
    ct_dataset_free(data);
    ct_scope_end(top);
}

/* The program on a thread of its own, whose per-thread caches go when it ends. */
static void *program_thread(void *arg)
{
    char path[128];
    snprintf(path, sizeof path, CT_BUILD_DIR "/test_alloc_fail.%d.pth", (int)getpid());
    run_program((outcome *)arg, path);
    remove(path);
    return NULL;
}

static void run_on_a_thread(outcome *o)
{
    pthread_t th;
    if (pthread_create(&th, NULL, program_thread, o) != 0) abort();
    pthread_join(th, NULL);
}

/* ---------------------------------------------------------------- one N per child */

enum { CHILD_OK = 0, CHILD_NO_ERROR = 10, CHILD_WRONG = 11, CHILD_LEAK = 12, CHILD_RERUN_FAILED = 13 };

typedef struct report {
    long long calls;
    double result;
    char where[160];
} report;

/* In the child: run once, then again with call n of that run failing (0:
 * none), then again without failing. */
static int child(long long n, double reference, report *r)
{
    outcome o;
    run_on_a_thread(&o); /* what is made once per process (a thread pool, the default generator) is then made */
    atomic_store(&calls, 0);
    long long before = atomic_load(&live);
    atomic_store(&fail_at, n);
    run_on_a_thread(&o);
    r->calls = atomic_load(&calls);
    r->result = o.result;
    snprintf(r->where, sizeof r->where, "%s", o.where);
    atomic_store(&fail_at, 0);
    if (o.error_missing) return CHILD_NO_ERROR;
    if (!o.failed && n > 0 && o.result != reference) return CHILD_WRONG;
    if (n > 0) { /* the same process, memory back: the reference again */
        outcome again;
        run_on_a_thread(&again);
        if (again.failed || again.error_missing) {
            snprintf(r->where, sizeof r->where, "rerun: %.150s", again.where);
            return CHILD_RERUN_FAILED;
        }
        if (again.result != reference) return CHILD_WRONG;
    }
    if (atomic_load(&live) == before) return CHILD_OK;
    snprintf(r->where, sizeof r->where, "%lld blocks after %.100s", atomic_load(&live) - before, o.where);
    return CHILD_LEAK;
}

/* Fork, run child(n) with a time limit; the exit status (or -signal, or -99 for a hang). */
static int in_child(long long n, double reference, report *r)
{
    int fd[2];
    if (pipe(fd) != 0) return -98;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        alarm(20);
        report mine = {0, 0, ""};
        int code = child(n, reference, &mine);
        ssize_t w = write(fd[1], &mine, sizeof mine);
        _exit(w == (ssize_t)sizeof mine ? code : 97);
    }
    close(fd[1]);
    memset(r, 0, sizeof *r);
    ssize_t got = read(fd[0], r, sizeof *r);
    (void)got;
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) return WTERMSIG(status) == SIGALRM ? -99 : -WTERMSIG(status);
    return WEXITSTATUS(status);
}

static const char *describe(int code)
{
    switch (code) {
    case CHILD_NO_ERROR: return "an error missing (a call failed without one, or one was set on success)";
    case CHILD_WRONG: return "a different result without an error";
    case CHILD_LEAK: return "memory leaked";
    case CHILD_RERUN_FAILED: return "the rerun failed";
    case -99: return "hang";
    default: return "crash";
    }
}

static void test_every_allocation_failing(void)
{
    report ref;
    int code = in_child(0, 0, &ref);
    CHECK_INT(code, CHILD_OK);
    if (code != CHILD_OK) {
        fprintf(stderr, "  the program fails without injected failures: %s (%s)\n", describe(code), ref.where);
        return;
    }
    int bad = 0;
    const char *only = getenv("CT_ALLOC_FAIL_ONLY"); /* one N, to debug it */
    long long first = only ? atoll(only) : 1, last = only ? first : ref.calls;
    for (long long n = first; n <= last; n++) {
        report r;
        code = in_child(n, ref.result, &r);
        if (code == CHILD_OK) continue;
        if (bad++ < 40)
            fprintf(stderr, "  allocation %lld of %lld failing: %s (%s; result %.9g, reference %.9g)\n", n, ref.calls,
                    describe(code), r.where, r.result, ref.result);
    }
    fprintf(stderr, "  %lld allocations, each failed in turn: %d misbehaved\n", ref.calls, bad);
    CHECK_INT(bad, 0);
}

/* A scope that cannot be opened ends nothing when it is ended: the enclosing
 * scope's tensors live on. */
static void test_scope_begin_without_memory(void)
{
    enum { DEPTH = 40 };
    ct_scope outer[DEPTH];
    for (int i = 0; i < DEPTH; i++) outer[i] = ct_scope_begin(); /* past the inline frames: the stack grew */
    ct_scope_end(outer[0]);
    for (int i = 0; i < 32; i++) outer[i] = ct_scope_begin(); /* the stack is back to its inline frames */
    ct_tensor *t = ct_zeros(CT_SHAPE(3), CT_F32);
    atomic_store(&calls, 0);
    atomic_store(&fail_at, 1);
    ct_scope s = ct_scope_begin(); /* the 33rd: the frames must grow, and cannot */
    atomic_store(&fail_at, 0);
    CHECK_INT(ct_last_error_code(), CT_ERR_MEMORY);
    ct_clear_error();
    ct_tensor *u = ct_ones(CT_SHAPE(2), CT_F32);
    ct_scope_end(s);
    CHECK(ct_numel(t) == 3 && ct_item(ct_sum(t)) == 0); /* alive: the enclosing scope's */
    CHECK(ct_numel(u) == 2);
    ct_scope_end(outer[0]);
}

/* ---------------------------------------------------------------- LBFGS */

/* Two parameters pulled towards targets, with weights: LBFGS's flat vectors
 * (1000 floats) are the largest tensors of its step, the parameters' and
 * the closure's are smaller. */
enum { LBFGS_A = 300, LBFGS_B = 700, LBFGS_FLAT_BYTES = (LBFGS_A + LBFGS_B) * 4, LBFGS_STEPS = 4 };

typedef struct lbfgs_run {
    ct_tensor *p[2], *target[2], *weight[2];
    ct_optimizer *opt;
} lbfgs_run;

/* sum(w (p - t)^2 + (p - t)^4 / 4) over both parameters, and its gradients */
static ct_result lbfgs_closure(double *loss, void *user)
{
    lbfgs_run *run = (lbfgs_run *)user;
    ct_result r = ct_optim_zero_grad(run->opt, true);
    ct_tensor *total = NULL;
    for (int i = 0; i < 2 && r == CT_OK; i++) {
        ct_tensor *d = ct_sub(run->p[i], run->target[i]), *d2 = ct_mul(d, d);
        ct_tensor *part = ct_sum(ct_add(ct_mul(run->weight[i], d2), ct_mul_scalar(ct_mul(d2, d2), ct_float(0.25))));
        total = i ? ct_add(total, part) : part;
    }
    if (r == CT_OK) r = total ? ct_backward(total, NULL, (ct_backward_opts){0}) : ct_last_error_code();
    if (r == CT_OK) *loss = ct_item(total);
    return r;
}

/* A run from the same start (ct_manual_seed(3)), with history_size 1 (the
 * third step drops the oldest entry) and one iteration per step. */
static void lbfgs_run_begin(lbfgs_run *run)
{
    static const int64_t n[2] = {LBFGS_A, LBFGS_B};
    ct_manual_seed(3);
    for (int i = 0; i < 2; i++) {
        run->p[i] = ct_randn(CT_SHAPE(n[i]), CT_F32, NULL);
        run->target[i] = ct_randn(CT_SHAPE(n[i]), CT_F32, NULL);
        run->weight[i] = ct_rand(CT_SHAPE(n[i]), CT_F32, NULL);
        CHECK_OK(ct_requires_grad_(run->p[i], true));
    }
    ct_lbfgs_opts o = ct_lbfgs_opts_init();
    o.lr = 0.5;
    o.max_iter = 1;
    o.history_size = 1;
    run->opt = ct_lbfgs(run->p, 2, o);
    CHECK_T(run->opt);
}

static ct_result lbfgs_step(lbfgs_run *run)
{
    double loss;
    return ct_optim_step_closure(run->opt, lbfgs_closure, run, &loss);
}

/* What a step leaves: the parameters and the optimizer's state. */
typedef struct lbfgs_state {
    ct_tensor *p[2], *d, *prev_flat_grad;
    double n_iter, func_evals, t, H_diag;
} lbfgs_state;

static double lbfgs_number(const lbfgs_run *run, const char *name)
{
    return ct_item(ct_optim_state_get(run->opt, run->p[0], name));
}

static lbfgs_state lbfgs_state_of(const lbfgs_run *run)
{
    lbfgs_state st = {{ct_clone(run->p[0]), ct_clone(run->p[1])},
                      ct_clone(ct_optim_state_get(run->opt, run->p[0], "d")),
                      ct_clone(ct_optim_state_get(run->opt, run->p[0], "prev_flat_grad")),
                      lbfgs_number(run, "n_iter"), lbfgs_number(run, "func_evals"), lbfgs_number(run, "t"),
                      lbfgs_number(run, "H_diag")};
    return st;
}

static bool lbfgs_same_state(const lbfgs_state *a, const lbfgs_state *b)
{
    return ct_equal(a->p[0], b->p[0]) && ct_equal(a->p[1], b->p[1]) && ct_equal(a->d, b->d) &&
           ct_equal(a->prev_flat_grad, b->prev_flat_grad) && a->n_iter == b->n_iter &&
           a->func_evals == b->func_evals && a->t == b->t && a->H_diag == b->H_diag;
}

/* A run from the start whose step `failing` has its n-th flat allocation
 * fail: the step reports it and leaves the state of step failing - 1
 * (ref), and the steps after it give the reference. False when the step
 * made fewer than n such allocations (it then succeeds). */
static bool lbfgs_run_failing(int failing, long long n, const lbfgs_state *ref)
{
    ct_scope s = ct_scope_begin();
    lbfgs_run run;
    lbfgs_run_begin(&run);
    for (int k = 1; k < failing; k++) CHECK_OK(lbfgs_step(&run));
    atomic_store(&counted, LBFGS_FLAT_BYTES);
    atomic_store(&calls, 0);
    atomic_store(&fail_at, n);
    ct_result r = lbfgs_step(&run);
    bool failed_one = atomic_load(&calls) >= n;
    atomic_store(&fail_at, 0);
    atomic_store(&counted, 0);
    if (!failed_one) {
        CHECK_OK(r);
    } else {
        CHECK_INT(r, CT_ERR_MEMORY);
        ct_clear_error();
        lbfgs_state after = lbfgs_state_of(&run);
        if (!lbfgs_same_state(&after, &ref[failing - 1]))
            ct_test_fail(__FILE__, __LINE__, "step %d with flat allocation %lld failing changed the state", failing, n);
        for (int k = failing; k <= LBFGS_STEPS; k++) CHECK_OK(lbfgs_step(&run));
        lbfgs_state end = lbfgs_state_of(&run);
        if (!lbfgs_same_state(&end, &ref[LBFGS_STEPS]))
            ct_test_fail(__FILE__, __LINE__, "step %d with flat allocation %lld failing: the steps after it differ",
                         failing, n);
    }
    ct_optim_free(run.opt);
    ct_scope_end(s);
    return failed_one;
}

/* Every allocation of a flat vector in an LBFGS step that remembers a pair
 * (y = flat_grad - prev_flat_grad and s = d t, among them), failed in
 * turn. The tensors live in scopes of this file's ctorch (the harness's
 * scope is the other copy's, in libctorch.a). */
static void test_lbfgs_step_without_memory(void)
{
    ct_scope s = ct_scope_begin();
    lbfgs_state ref[LBFGS_STEPS + 1];
    lbfgs_run run;
    lbfgs_run_begin(&run);
    for (int k = 1; k <= LBFGS_STEPS; k++) {
        CHECK_OK(lbfgs_step(&run));
        ref[k] = lbfgs_state_of(&run);
    }
    ct_optim_free(run.opt);
    for (int failing = 2; failing <= 3; failing++) {
        long long n = 1;
        while (lbfgs_run_failing(failing, n, ref)) n++;
        CHECK(n > 3); /* the flat gradient, its abs, y = flat_grad - prev_flat_grad, ... */
    }
    ct_scope_end(s);
}

int main(void)
{
    /* No CPU cache: a tensor's block then comes from the allocator at every
     * run, so its failure is injected too, and a freed block is back in
     * `live` at once. (The cache's own failure path: test_cpu_alloc.c.) */
    ct_set_cpu_cache_limit(0);
    RUN(test_scope_begin_without_memory);
    RUN(test_lbfgs_step_without_memory);
    RUN(test_every_allocation_failing);
    return ct_test_report();
}
