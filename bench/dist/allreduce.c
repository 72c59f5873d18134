/* all_reduce through ctorch_dist.h against MPI_Allreduce called directly on
 * the same buffer, 1 KB to 100 MB of float32, under mpirun:
 *   make bench-dist            (2 ranks; NP=4 for more)
 * Built without CTORCH_DIST_MPI it times the gloo backend alone, under
 * ctorchrun (make bench-dist runs both; bench/dist/gloo_allreduce.py times
 * PyTorch's gloo on the same sizes).
 * Each size runs both ways in turns, ROUNDS times, and keeps each side's
 * best mean; ratio = ctorch time / MPI time (the goal: at most 1.05).
 * ctorch's call exchanges fingerprints, which make a mismatch an error on
 * every rank; up to 64 KiB of data travels in the same messages, larger data
 * follows as MPI_Allreduce. "async" is async_op and a wait: the same
 * messages up to 64 KiB, the non-blocking MPI_Iallreduce that DDP's buckets
 * use above. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
#define CTORCH_DIST_IMPLEMENTATION
#include "ctorch_dist.h"
#include <stdio.h>
#ifdef CTORCH_DIST_MPI
#include <mpi.h>
#define BACKEND "mpi"
#define MPI_NAME "MPI"
#else
#define BACKEND "gloo"
#define MPI_NAME ""
#endif

static double seconds(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double time_ctorch(ct_tensor *t, int iters, bool async)
{
    ct_dist_barrier((ct_dist_opts){0});
    double t0 = seconds();
    for (int i = 0; i < iters; i++) {
        ct_work *w = NULL;
        ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){NULL, async ? &w : NULL});
        if (!async) continue; /* ct_work_wait(NULL) would time the formatting of its error */
        ct_work_wait(w);
        ct_work_free(w);
    }
    return (seconds() - t0) / iters;
}

/* MPI_Allreduce's time; 0 without MPI. */
static double time_mpi(float *data, int n, int iters)
{
#ifdef CTORCH_DIST_MPI
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = seconds();
    for (int i = 0; i < iters; i++) MPI_Allreduce(MPI_IN_PLACE, data, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    return (seconds() - t0) / iters;
#else
    (void)data, (void)n, (void)iters;
    return 0;
#endif
}

/* Each time becomes the slowest rank's. */
static void slowest(double *t, int n)
{
    ct_tensor *all = ct_from_array(t, CT_SHAPE(n), CT_F64);
    ct_dist_all_reduce(all, CT_REDUCE_MAX, (ct_dist_opts){0});
    ct_copy_to_array(all, t, n, CT_F64);
    ct_release(all);
}

int main(void)
{
    if (ct_dist_init_process_group(BACKEND, (ct_dist_init_opts){0}) != CT_OK) {
        printf("%s\n", ct_last_error());
        return 1;
    }
    int rank = ct_dist_get_rank(NULL);
    const char *env = getenv("ROUNDS");
    int rounds = env ? atoi(env) : 3;
    const int64_t sizes[] = {1 << 10, 64 << 10, 1 << 20, 16 << 20, 100 << 20}; /* bytes */
    if (rank == 0)
        printf("%-20s %12s %12s %8s %14s %8s\n", "all_reduce float32", "ctorch " BACKEND, MPI_NAME, MPI_NAME[0] ? "ratio" : "",
               "ctorch async", MPI_NAME[0] ? "ratio" : "");
    for (int k = 0; k < 5; k++) {
        int n = (int)(sizes[k] / 4);
        int iters = sizes[k] <= (1 << 20) ? 200 : sizes[k] <= (16 << 20) ? 10 : 3;
        ct_tensor *t = ct_zeros(CT_SHAPE(n), CT_F32);
        double best[3] = {1e30, 1e30, 1e30}; /* ctorch, MPI, ctorch async */
        for (int r = 0; r < rounds; r++) {
            double got[3] = {time_ctorch(t, iters, false), time_mpi((float *)ct_data_ptr(t), n, iters),
                             time_ctorch(t, iters, true)};
            slowest(got, 3);
            for (int j = 0; j < 3; j++)
                if (got[j] < best[j]) best[j] = got[j];
        }
        if (rank == 0) {
            char label[32];
            snprintf(label, sizeof label, "%lld KB", (long long)(sizes[k] >> 10));
#ifdef CTORCH_DIST_MPI
            printf("%-20s %9.1f us %9.1f us %8.2f %11.1f us %8.2f\n", label, 1e6 * best[0], 1e6 * best[1],
                   best[0] / best[1], 1e6 * best[2], best[2] / best[1]);
#else
            printf("%-20s %9.1f us %12s %8s %11.1f us\n", label, 1e6 * best[0], "", "", 1e6 * best[2]);
#endif
        }
        ct_release(t);
    }
    ct_dist_destroy_process_group(NULL);
    return 0;
}
