/* einsum, tensordot, kron and cross: einsum's two-operand contraction (one
 * bmm) on matrix, batched and attention-shaped products, a three-operand
 * bilinear form, an outer product and a trace; tensordot, kron and cross on
 * moderate sizes. stdout: one line per case for bench/run.sh to pair with
 * PyTorch's (bench/einsum.py); stderr: for the batched product, ct_bmm itself
 * and the broadcast multiply-then-sum that the bmm path avoids, in the same run. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include "bench.h"

typedef struct work {
    const char *eq;
    ct_tensor *x[3];
    int n;
} work;

static void run_einsum(void *p)
{
    work *w = (work *)p;
    ct_scope s = ct_scope_begin();
    ct_einsum(w->eq, w->x, w->n);
    ct_scope_end(s);
}

static void run_bmm(void *p)
{
    work *w = (work *)p;
    ct_scope s = ct_scope_begin();
    ct_bmm(w->x[0], w->x[1]);
    ct_scope_end(s);
}

/* (a[:, :, :, None] * b[:, None, :, :]).sum(2): the product without a GEMM */
static void run_mul_sum(void *p)
{
    work *w = (work *)p;
    ct_scope s = ct_scope_begin();
    ct_sum_dim(ct_mul(ct_unsqueeze(w->x[0], 3), ct_unsqueeze(w->x[1], 1)), CT_DIMS(2), false, CT_DEFAULT);
    ct_scope_end(s);
}

static void run_tensordot(void *p)
{
    work *w = (work *)p;
    ct_scope s = ct_scope_begin();
    ct_tensordot(w->x[0], w->x[1], 2);
    ct_scope_end(s);
}

static void run_kron(void *p)
{
    work *w = (work *)p;
    ct_scope s = ct_scope_begin();
    ct_kron(w->x[0], w->x[1]);
    ct_scope_end(s);
}

static void run_cross(void *p)
{
    work *w = (work *)p;
    ct_scope s = ct_scope_begin();
    ct_linalg_cross(w->x[0], w->x[1], -1);
    ct_scope_end(s);
}

static ct_tensor *randn(ct_shape s) { return ct_keep(ct_randn(s, CT_F32, NULL)); }

static void bench_einsum(const char *name, const char *eq, int n, ct_shape s0, ct_shape s1, ct_shape s2)
{
    work w = {eq, {randn(s0), n > 1 ? randn(s1) : NULL, n > 2 ? randn(s2) : NULL}, n};
    bench_report(name, bench_time(run_einsum, &w));
    for (int i = 0; i < n; i++) ct_release(w.x[i]);
}

static void bench_pair(const char *name, void (*fn)(void *), ct_shape s0, ct_shape s1)
{
    work w = {NULL, {randn(s0), randn(s1), NULL}, 2};
    bench_report(name, bench_time(fn, &w));
    ct_release(w.x[0]);
    ct_release(w.x[1]);
}

int main(void)
{
    ct_manual_seed(0);
    bench_einsum("einsum_ij_jk_512", "ij,jk->ik", 2, CT_SHAPE(512, 512), CT_SHAPE(512, 512), CT_SHAPE0);
    bench_einsum("einsum_bij_bjk_32x64x64", "bij,bjk->bik", 2, CT_SHAPE(32, 64, 64), CT_SHAPE(32, 64, 64), CT_SHAPE0);
    bench_einsum("einsum_bhqd_bhkd_2x8x128x64", "bhqd,bhkd->bhqk", 2, CT_SHAPE(2, 8, 128, 64), CT_SHAPE(2, 8, 128, 64),
                 CT_SHAPE0);
    bench_einsum("einsum_bn_anm_bm_64x32", "bn,anm,bm->ba", 3, CT_SHAPE(64, 32), CT_SHAPE(16, 32, 32),
                 CT_SHAPE(64, 32));
    bench_einsum("einsum_outer_1000", "i,j->ij", 2, CT_SHAPE(1000), CT_SHAPE(1000), CT_SHAPE0);
    bench_einsum("einsum_trace_1000", "ii", 1, CT_SHAPE(1000, 1000), CT_SHAPE0, CT_SHAPE0);
    bench_pair("tensordot_64x32x32_32x32x64", run_tensordot, CT_SHAPE(64, 32, 32), CT_SHAPE(32, 32, 64));
    bench_pair("kron_64x64_16x16", run_kron, CT_SHAPE(64, 64), CT_SHAPE(16, 16));
    bench_pair("cross_100000x3", run_cross, CT_SHAPE(100000, 3), CT_SHAPE(100000, 3));

    work w = {NULL, {randn(CT_SHAPE(32, 64, 64)), randn(CT_SHAPE(32, 64, 64)), NULL}, 2};
    fprintf(stderr, "32x64x64 batched product: ct_bmm %.2f us, broadcast mul + sum %.2f us\n",
            1e6 * bench_time(run_bmm, &w), 1e6 * bench_time(run_mul_sum, &w));
    ct_release(w.x[0]);
    ct_release(w.x[1]);
    return 0;
}
