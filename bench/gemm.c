/* The matrix product: ct_mm (the built-in GEMM) on square float32 matrices
 * and on the shapes a training step of a small MLP multiplies (a batch of
 * 8 to 64 rows times 784x256 and the two products of its backward), bmm on a
 * batch of small matrices, and float64. stdout: one line per case for
 * bench/run.sh to pair with PyTorch's (bench/gemm.py); stderr: GFLOP/s of
 * ctorch and of OpenBLAS's cblas_sgemm/cblas_dgemm on the same operands in
 * the same run (loaded at run time, when libopenblas is installed). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include "bench.h"

#include <dlfcn.h>
#include <stdlib.h>

/* cblas_sgemm / cblas_dgemm with CblasRowMajor = 101, CblasNoTrans = 111, CblasTrans = 112 */
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                         double *, int);
static sgemm_fn blas_sgemm;
static dgemm_fn blas_dgemm;

typedef struct work {
    ct_tensor *a, *b; /* operands as ct_mm / ct_bmm take them (views) */
    ct_tensor *ac, *bc, *c; /* contiguous copies and an output for OpenBLAS */
    bool ta, tb, batched;
} work;

static void run_ct(void *p)
{
    work *w = (work *)p;
    ct_release(w->batched ? ct_bmm(w->a, w->b) : ct_mm(w->a, w->b));
}

static void run_blas(void *p)
{
    work *w = (work *)p;
    int M = (int)ct_size(w->a, 0), K = (int)ct_size(w->a, 1), N = (int)ct_size(w->b, 1);
    int lda = w->ta ? M : K, ldb = w->tb ? K : N;
    if (ct_dtype_of(w->ac) == CT_F32)
        blas_sgemm(101, w->ta ? 112 : 111, w->tb ? 112 : 111, M, N, K, 1.0f, (const float *)ct_data_ptr(w->ac), lda,
                   (const float *)ct_data_ptr(w->bc), ldb, 0.0f, (float *)ct_data_ptr(w->c), N);
    else
        blas_dgemm(101, w->ta ? 112 : 111, w->tb ? 112 : 111, M, N, K, 1.0, (const double *)ct_data_ptr(w->ac), lda,
                   (const double *)ct_data_ptr(w->bc), ldb, 0.0, (double *)ct_data_ptr(w->c), N);
}

/* op(A) M x K times op(B) K x N; A stored transposed when ta (as x @ W.t() reads W). */
static void bench_mm(const char *name, int64_t M, int64_t N, int64_t K, bool ta, bool tb, ct_dtype dt)
{
    work w = {0};
    w.ta = ta, w.tb = tb;
    w.ac = ct_randn(ta ? CT_SHAPE(K, M) : CT_SHAPE(M, K), dt, NULL);
    w.bc = ct_randn(tb ? CT_SHAPE(N, K) : CT_SHAPE(K, N), dt, NULL);
    w.a = ta ? ct_t(w.ac) : w.ac;
    w.b = tb ? ct_t(w.bc) : w.bc;
    w.c = ct_empty(CT_SHAPE(M, N), dt);
    double t = bench_time(run_ct, &w), flops = 2.0 * (double)M * (double)N * (double)K;
    bench_report(name, t);
    if (!blas_sgemm) {
        fprintf(stderr, "%-34s ctorch %7.1f GFLOP/s\n", name, flops / t * 1e-9);
        return;
    }
    double tb_ = bench_time(run_blas, &w);
    fprintf(stderr, "%-34s ctorch %7.1f GFLOP/s   OpenBLAS %7.1f GFLOP/s   ctorch/OpenBLAS %5.2f\n", name,
            flops / t * 1e-9, flops / tb_ * 1e-9, tb_ / t);
}

static void bench_bmm(const char *name, int64_t batch, int64_t n)
{
    work w = {0};
    w.batched = true;
    w.a = ct_randn(CT_SHAPE(batch, n, n), CT_F32, NULL);
    w.b = ct_randn(CT_SHAPE(batch, n, n), CT_F32, NULL);
    double t = bench_time(run_ct, &w);
    bench_report(name, t);
    fprintf(stderr, "%-34s ctorch %7.1f GFLOP/s\n", name, 2.0 * (double)(batch * n * n * n) / t * 1e-9);
}

int main(void)
{
    void *lib = dlopen("libopenblas.so.0", RTLD_NOW);
    if (lib) {
        blas_sgemm = (sgemm_fn)dlsym(lib, "cblas_sgemm");
        blas_dgemm = (dgemm_fn)dlsym(lib, "cblas_dgemm");
        void (*set_threads)(int) = (void (*)(int))dlsym(lib, "openblas_set_num_threads");
        const char *env = getenv("OMP_NUM_THREADS");
        if (set_threads && env) set_threads(atoi(env));
        if (!blas_dgemm) blas_sgemm = NULL;
    }
    char name[64];
    for (int64_t n = 256; n <= 4096; n *= 2) {
        snprintf(name, sizeof name, "mm_f32_%lld", (long long)n);
        bench_mm(name, n, n, n, false, false, CT_F32);
    }
    bench_mm("mm_f64_1024", 1024, 1024, 1024, false, false, CT_F64);
    static const int64_t batches[] = {8, 32, 64};
    for (int i = 0; i < 3; i++) {
        int64_t b = batches[i];
        snprintf(name, sizeof name, "linear_fwd_%lldx784_784x256", (long long)b); /* x @ W.t() */
        bench_mm(name, b, 256, 784, false, true, CT_F32);
        snprintf(name, sizeof name, "linear_dx_%lldx256_256x784", (long long)b); /* g @ W */
        bench_mm(name, b, 784, 256, false, false, CT_F32);
        snprintf(name, sizeof name, "linear_dw_256x%lld_%lldx784", (long long)b, (long long)b); /* g.t() @ x */
        bench_mm(name, 256, 784, b, true, false, CT_F32);
    }
    bench_bmm("bmm_f32_32x64x64", 32, 64);
    bench_bmm("bmm_f32_8x256x256", 8, 256);
    return 0;
}
