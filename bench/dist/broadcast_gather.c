/* broadcast and all_gather_into_tensor of 64 MiB of float32 on the gloo
 * backend, under ctorchrun (make bench-dist runs it with NP processes):
 * rank 0 prints the mean seconds of ITERS calls of each (broadcast's root
 * going round the ranks) and the results' sums, which must not change with
 * the algorithm. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
#define CTORCH_DIST_IMPLEMENTATION
#include "ctorch_dist.h"
#include <stdio.h>

enum { ITERS = 20 };

static double seconds(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void)
{
    if (ct_dist_init_process_group("gloo", (ct_dist_init_opts){0}) != CT_OK) {
        fprintf(stderr, "%s\n", ct_last_error());
        return 1;
    }
    int rank = ct_dist_get_rank(NULL), world = ct_dist_get_world_size(NULL);
    int64_t numel = ((int64_t)64 << 20) / 4, part = numel / world;
    ct_tensor *t = ct_full(CT_SHAPE(numel), ct_int(rank + 1), CT_F32);
    ct_tensor *mine = ct_full(CT_SHAPE(part), ct_int(rank + 1), CT_F32), *all = ct_zeros(CT_SHAPE(part * world), CT_F32);

    ct_dist_barrier((ct_dist_opts){0});
    double t0 = seconds();
    for (int i = 0; i < ITERS; i++) ct_dist_broadcast(t, i % world, (ct_dist_opts){0});
    double broadcast = (seconds() - t0) / ITERS;
    ct_dist_barrier((ct_dist_opts){0});
    t0 = seconds();
    for (int i = 0; i < ITERS; i++) ct_dist_all_gather_into_tensor(all, mine, (ct_dist_opts){0});
    double all_gather = (seconds() - t0) / ITERS;
    if (rank == 0)
        printf("%d ranks, 64 MiB: broadcast %.4f s, all_gather %.4f s (sums %.0f, %.0f)\n", world, broadcast, all_gather,
               ct_item(ct_sum(t)), ct_item(ct_sum(all)));
    ct_dist_destroy_process_group(NULL);
    return 0;
}
