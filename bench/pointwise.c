/* Pointwise ops: per-op overhead on tiny tensors, throughput on large
 * contiguous ones (against memcpy's bandwidth), broadcast and non-contiguous. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include "bench.h"

#include <stdlib.h>
#include <string.h>

typedef struct args {
    ct_tensor *a, *b;
    void *src, *dst;
    size_t bytes;
} args;

static void add_tt(void *p)
{
    args *x = (args *)p;
    ct_release(ct_add(x->a, x->b));
}
static void mul_scalar(void *p) { ct_release(ct_mul_scalar(((args *)p)->a, ct_float(1.5))); }
static void exp_t(void *p) { ct_release(ct_exp(((args *)p)->a)); }
static void sigmoid_t(void *p) { ct_release(ct_sigmoid(((args *)p)->a)); }
static void add_inplace(void *p) { ct_add_(((args *)p)->a, ((args *)p)->b); }
static void copy_memcpy(void *p)
{
    args *x = (args *)p;
    memcpy(x->dst, x->src, x->bytes);
}

int main(void)
{
    args x;
    const int64_t n = 10 * 1000 * 1000;
    memset(&x, 0, sizeof x);

    x.a = ct_ones(CT_SHAPE(1), CT_F32);
    x.b = ct_ones(CT_SHAPE(1), CT_F32);
    bench_report("overhead_add_1elem", bench_time(add_tt, &x));
    ct_release(x.a), ct_release(x.b);

    x.a = ct_rand(CT_SHAPE(n), CT_F32, NULL);
    x.b = ct_rand(CT_SHAPE(n), CT_F32, NULL);
    bench_report("add_f32_10M", bench_time(add_tt, &x));
    bench_report("add__f32_10M_inplace", bench_time(add_inplace, &x));
    bench_report("mul_number_f32_10M", bench_time(mul_scalar, &x));
    bench_report("exp_f32_10M", bench_time(exp_t, &x));
    bench_report("sigmoid_f32_10M", bench_time(sigmoid_t, &x));
    /* the machine's copy bandwidth, as a bound for memory-bound ops: an add
     * moves three arrays of n floats, a copy two */
    x.bytes = (size_t)n * 4;
    x.src = ct_data_ptr(x.a);
    x.dst = ct_data_ptr(x.b);
    bench_report("memcpy_f32_10M", bench_time(copy_memcpy, &x));
    ct_release(x.a), ct_release(x.b);

    x.a = ct_rand(CT_SHAPE(1000, 1000), CT_F32, NULL);
    x.b = ct_rand(CT_SHAPE(1000), CT_F32, NULL);
    bench_report("add_broadcast_f32_1000x1000", bench_time(add_tt, &x));
    ct_release(x.b);
    ct_tensor *t = ct_rand(CT_SHAPE(1000, 1000), CT_F32, NULL);
    x.b = ct_t(t);
    ct_release(t);
    bench_report("add_transposed_f32_1000x1000", bench_time(add_tt, &x));
    ct_release(x.a), ct_release(x.b);
    return 0;
}
