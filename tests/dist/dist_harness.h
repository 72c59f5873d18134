/* The distributed tests' runner: every rank runs each test; a test passes
 * when it passed on every rank. Rank 0 prints the ok / FAIL lines and the
 * RESULT line that tests/dist/run.sh adds up; a failed check prints on the
 * rank where it failed, and that rank exits non-zero. Built on
 * tests/harness.h's checks.
 *
 * Built with CTORCH_DIST_MPI (mpicc) the programs test the mpi backend,
 * under mpirun; built without, the gloo backend, under ctorchrun. The
 * verdicts are then agreed over MPI itself, or over the backend being
 * tested (a broken all_reduce still fails: each rank's exit status counts). */
#ifndef CT_DIST_HARNESS_H
#define CT_DIST_HARNESS_H

#include "harness.h"
#define CTORCH_DIST_IMPLEMENTATION
#include "ctorch_dist.h"
#ifdef CTORCH_DIST_MPI
#include <mpi.h>
#define DIST_BACKEND "mpi"
#define DIST_WORK "WorkMPI" /* the work class a timeout names */
#else
#define DIST_BACKEND "gloo"
#define DIST_WORK "WorkGloo"
#endif

static int dist_passed, dist_failed;

static void dist_run(const char *name, void (*fn)(void))
{
    int mine = ct_test_exec(name, fn), any = mine;
#ifdef CTORCH_DIST_MPI
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#else
    ct_tensor *verdict = ct_full(CT_SHAPE(1), ct_int(mine != 0), CT_I32);
    if (ct_dist_all_reduce(verdict, CT_REDUCE_MAX, (ct_dist_opts){NULL, NULL}) != CT_OK) {
        printf("FAIL %s: rank %d could not share its verdict: %s\n", name, ct_dist_get_rank(NULL), ct_last_error());
        any = 1;
    } else
        any |= (int)ct_item_int(verdict);
    ct_release(verdict);
#endif
    if (any) dist_failed++;
    else dist_passed++;
    if (ct_dist_get_rank(NULL) == 0) {
        printf("%s %s (%d ranks)\n", any ? "FAIL" : "ok  ", name, ct_dist_get_world_size(NULL));
        fflush(stdout);
    }
}
#define DRUN(fn) dist_run(#fn, fn)

static int dist_report(void)
{
    if (ct_dist_get_rank(NULL) == 0) printf("RESULT %d passed, %d failed, 0 skipped\n", dist_passed, dist_failed);
    return dist_failed ? 1 : 0;
}

/* Every rank's copy of t must hold these values (as float64). */
static void dist_check_values(const char *file, int line, const ct_tensor *t, const double *want, int64_t n)
{
    double got[64];
    if (!t || ct_numel(t) != n || n > 64 || ct_copy_to_array(t, got, 64, CT_F64) != CT_OK) {
        ct_test_fail(file, line, "tensor missing or of %lld elements, expected %lld (rank %d)",
                     t ? (long long)ct_numel(t) : -1LL, (long long)n, ct_dist_get_rank(NULL));
        return;
    }
    for (int64_t i = 0; i < n; i++)
        if (fabs(got[i] - want[i]) > 1e-6 * (1 + fabs(want[i]))) {
            ct_test_fail(file, line, "element %lld is %.9g, expected %.9g (rank %d)", (long long)i, got[i], want[i],
                         ct_dist_get_rank(NULL));
            return;
        }
}
#define DCHECK_VALUES(t, ...) \
    dist_check_values(__FILE__, __LINE__, t, (const double[]){__VA_ARGS__}, sizeof((double[]){__VA_ARGS__}) / sizeof(double))
#define DCHECK_ARRAY(t, want, n) dist_check_values(__FILE__, __LINE__, t, want, n)

#endif
