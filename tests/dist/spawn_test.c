/* ct_dist_spawn (torch.multiprocessing.spawn): every rank runs once, and a
 * worker that fails, exits or dies stops the others and is named in
 * PyTorch's ProcessRaisedException / ProcessExitedException words. Runs
 * without MPI, once (tests/dist/run.sh). */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#define CTORCH_DIST_IMPLEMENTATION
#include "ctorch_dist.h"
#include <signal.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/ctorch_spawn_XXXXXX";

static void pause_s(int s)
{
    struct timespec t = {s, 0};
    nanosleep(&t, NULL);
}

static ct_result mark(int rank, void *arg)
{
    char path[128];
    snprintf(path, sizeof path, "%s/rank%d_%d", dir, rank, *(int *)arg);
    FILE *f = fopen(path, "w");
    if (!f) return ct_set_error(CT_ERR_IO, "cannot write the marker");
    fclose(f);
    return CT_OK;
}

static void test_every_rank_runs_once(void)
{
    int tag = 7;
    CHECK_OK(ct_dist_spawn(4, mark, &tag));
    for (int r = 0; r < 5; r++) {
        char path[128];
        snprintf(path, sizeof path, "%s/rank%d_7", dir, r);
        CHECK_INT(access(path, F_OK) == 0, r < 4);
        unlink(path);
    }
}

/* rank `who` fails as told; the others would sleep 30 s unless stopped */
typedef struct plan { int who, how; } plan;
static ct_result fail_one(int rank, void *arg)
{
    const plan *p = (const plan *)arg;
    if (rank != p->who) {
        pause_s(30);
        return CT_OK;
    }
    if (p->how == 0) return ct_set_error(CT_ERR_VALUE, "bad rank 2");
    if (p->how == 1) _exit(3); /* exit() would run LeakSanitizer on what the fork inherited */
    abort();
}

static void test_error_names_the_rank(void)
{
    time_t t0 = time(NULL);
    plan p = {2, 0};
    CHECK_FAILS(ct_dist_spawn(3, fail_one, &p), CT_ERR_RUNTIME,
                "\n\n-- Process 2 terminated with the following error:\nValueError: bad rank 2\n");
    CHECK(time(NULL) - t0 < 10); /* the others were stopped, not waited for */
}

static void test_exit_code(void)
{
    time_t t0 = time(NULL);
    plan p = {1, 1};
    CHECK_FAILS(ct_dist_spawn(3, fail_one, &p), CT_ERR_RUNTIME, "process 1 terminated with exit code 3");
    CHECK(time(NULL) - t0 < 10);
}

static void test_signal(void)
{
    plan p = {0, 2};
    CHECK_FAILS(ct_dist_spawn(2, fail_one, &p), CT_ERR_RUNTIME, "process 0 terminated with signal SIGABRT");
}

/* after the parent ran a parallel op, workers run ops too (on one thread) */
static ct_result parallel_op(int rank, void *arg)
{
    (void)rank, (void)arg;
    if (ct_get_num_threads() != 1) return ct_set_error(CT_ERR_RUNTIME, "a worker has more than one thread");
    ct_scope s = ct_scope_begin();
    ct_tensor *x = ct_exp(ct_zeros(CT_SHAPE(1 << 22), CT_F32));
    ct_result r = x && ct_item(ct_sum(x)) == (double)(1 << 22) ? CT_OK : ct_set_error(CT_ERR_RUNTIME, "wrong sum");
    ct_scope_end(s);
    return r;
}

static void test_workers_after_a_parallel_parent(void)
{
    CHECK_T(ct_exp(ct_zeros(CT_SHAPE(1 << 22), CT_F32))); /* the test's scope releases it */
    CHECK_OK(ct_dist_spawn(2, parallel_op, NULL));
}

static void test_bad_arguments(void)
{
    int tag = 0;
    CHECK_OK(ct_dist_spawn(0, mark, &tag));
    CHECK_FAILS(ct_dist_spawn(-1, mark, &tag), CT_ERR_VALUE, "nprocs must be non-negative");
    CHECK_FAILS(ct_dist_spawn(2, NULL, &tag), CT_ERR_TYPE, "'NoneType' object is not callable");
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    RUN(test_every_rank_runs_once);
    RUN(test_error_names_the_rank);
    RUN(test_exit_code);
    RUN(test_signal);
    RUN(test_workers_after_a_parallel_parent);
    RUN(test_bad_arguments);
    rmdir(dir);
    return ct_test_report();
}
