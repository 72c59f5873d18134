/* all_reduce through ctorch_dist.h against MPI_Allreduce called directly on
 * the same buffer, 1 KB to 100 MB of float32, under mpirun:
 *   make bench-dist            (2 ranks; NP=4 for more)
 * Each size runs both ways in turns, ROUNDS times, and keeps each side's
 * best mean; ratio = ctorch time / MPI time (the goal: at most 1.05).
 * ctorch's call adds the fingerprint exchange (a small all-gather) that makes
 * a mismatch an error on every rank. "async" is async_op and a wait, the
 * non-blocking MPI_Iallreduce that DDP's buckets use. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
#define CTORCH_DIST_IMPLEMENTATION
#include "ctorch_dist.h"
#include <mpi.h>
#include <stdio.h>

static double seconds(void) { return MPI_Wtime(); }

static double time_ctorch(ct_tensor *t, int iters, bool async)
{
    ct_dist_barrier((ct_dist_opts){0});
    double t0 = seconds();
    for (int i = 0; i < iters; i++) {
        ct_work *w = NULL;
        ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){NULL, async ? &w : NULL});
        ct_work_wait(w);
        ct_work_free(w);
    }
    return (seconds() - t0) / iters;
}

static double time_mpi(float *data, int n, int iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = seconds();
    for (int i = 0; i < iters; i++) MPI_Allreduce(MPI_IN_PLACE, data, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    return (seconds() - t0) / iters;
}

int main(void)
{
    if (ct_dist_init_process_group("mpi", (ct_dist_init_opts){0}) != CT_OK) {
        printf("%s\n", ct_last_error());
        return 1;
    }
    int rank = ct_dist_get_rank(NULL);
    const char *env = getenv("ROUNDS");
    int rounds = env ? atoi(env) : 3;
    const int64_t sizes[] = {1 << 10, 64 << 10, 1 << 20, 16 << 20, 100 << 20}; /* bytes */
    if (rank == 0)
        printf("%-20s %12s %12s %8s %14s %8s\n", "all_reduce float32", "ctorch", "MPI", "ratio", "ctorch async", "ratio");
    for (int k = 0; k < 5; k++) {
        int n = (int)(sizes[k] / 4);
        int iters = sizes[k] <= (1 << 20) ? 200 : sizes[k] <= (16 << 20) ? 10 : 3;
        ct_tensor *t = ct_zeros(CT_SHAPE(n), CT_F32);
        double best[3] = {1e30, 1e30, 1e30}; /* ctorch, MPI, ctorch async */
        for (int r = 0; r < rounds; r++) {
            double got[3] = {time_ctorch(t, iters, false), time_mpi((float *)ct_data_ptr(t), n, iters),
                             time_ctorch(t, iters, true)};
            MPI_Allreduce(MPI_IN_PLACE, got, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); /* the slowest rank's */
            for (int j = 0; j < 3; j++)
                if (got[j] < best[j]) best[j] = got[j];
        }
        if (rank == 0) {
            char label[32];
            snprintf(label, sizeof label, "%lld KB", (long long)(sizes[k] >> 10));
            printf("%-20s %9.1f us %9.1f us %8.2f %11.1f us %8.2f\n", label, 1e6 * best[0], 1e6 * best[1],
                   best[0] / best[1], 1e6 * best[2], best[2] / best[1]);
        }
        ct_release(t);
    }
    ct_dist_destroy_process_group(NULL);
    return 0;
}
