/* Pointwise ops and reductions: per-op overhead on tiny tensors, throughput
 * on large contiguous ones (against the machine's copy bandwidth, measured in
 * the same run), broadcast and non-contiguous cases. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include "bench.h"

#include <stdlib.h>
#include <string.h>

typedef struct args {
    ct_tensor *a, *b;
    ct_tensor *(*unary)(const ct_tensor *);
    void *src, *dst;
    size_t bytes;
} args;

static void add_tt(void *p)
{
    args *x = (args *)p;
    ct_release(ct_add(x->a, x->b));
}
static void mul_tt(void *p) { ct_release(ct_mul(((args *)p)->a, ((args *)p)->b)); }
static void mul_scalar(void *p) { ct_release(ct_mul_scalar(((args *)p)->a, ct_float(1.5))); }
static void unary(void *p) { ct_release(((args *)p)->unary(((args *)p)->a)); }
static void add_inplace(void *p) { ct_add_(((args *)p)->a, ((args *)p)->b); }
static void copy_inplace(void *p) { ct_copy_(((args *)p)->b, ((args *)p)->a); }
static void sum_all(void *p) { ct_release(ct_sum(((args *)p)->a)); }
static void mean_all(void *p) { ct_release(ct_mean(((args *)p)->a)); }
static void amax_all(void *p) { ct_release(ct_amax(((args *)p)->a, CT_SHAPE0, false)); }
static void softmax_last(void *p) { ct_release(ct_softmax(((args *)p)->a, -1, CT_DEFAULT)); }
static void gt_tt(void *p) { ct_release(ct_gt(((args *)p)->a, ((args *)p)->b)); }
static void maximum_tt(void *p) { ct_release(ct_maximum(((args *)p)->a, ((args *)p)->b)); }
static void logical_and_tt(void *p) { ct_release(ct_logical_and(((args *)p)->a, ((args *)p)->b)); }
static void any_all(void *p) { ct_release(ct_any(((args *)p)->a)); }
static void copy_memcpy(void *p)
{
    args *x = (args *)p;
    memcpy(x->dst, x->src, x->bytes);
}

static void bench_unary(args *x, const char *name, ct_tensor *(*fn)(const ct_tensor *))
{
    x->unary = fn;
    bench_report(name, bench_time(unary, x));
}

/* The other dtypes training runs on, on 1M elements: "<op>_<dtype>_1M". */
static void bench_dtype(args *x, const char *dtype_name, void (*fn)(void *), const char *op)
{
    char name[64];
    snprintf(name, sizeof name, "%s_%s_1M", op, dtype_name);
    bench_report(name, bench_time(fn, x));
}

static void bench_dtypes(args *x)
{
    const int64_t n = 1000 * 1000;
    const ct_dtype numeric[2] = {CT_F64, CT_I64};
    for (int i = 0; i < 2; i++) {
        ct_tensor *a = ct_rand(CT_SHAPE(n), CT_F64, NULL), *b = ct_rand(CT_SHAPE(n), CT_F64, NULL);
        ct_mul_scalar_(a, ct_float(100)), ct_mul_scalar_(b, ct_float(100));
        x->a = ct_to(a, numeric[i]);
        x->b = ct_to(b, numeric[i]);
        const char *dn = ct_dtype_name(numeric[i]);
        bench_dtype(x, dn, add_tt, "add");
        bench_dtype(x, dn, mul_tt, "mul");
        bench_dtype(x, dn, gt_tt, "gt");
        bench_dtype(x, dn, maximum_tt, "maximum");
        bench_dtype(x, dn, sum_all, "sum");
        bench_dtype(x, dn, amax_all, "amax");
        ct_release(x->a), ct_release(x->b), ct_release(a), ct_release(b);
    }
    ct_tensor *a = ct_rand(CT_SHAPE(n), CT_F32, NULL), *b = ct_rand(CT_SHAPE(n), CT_F32, NULL);
    x->a = ct_gt_scalar(a, ct_float(0.5));
    x->b = ct_gt_scalar(b, ct_float(0.5));
    bench_dtype(x, "bool", logical_and_tt, "logical_and");
    bench_dtype(x, "bool", add_tt, "add");
    bench_dtype(x, "bool", any_all, "any");
    bench_dtype(x, "bool", sum_all, "sum");
    ct_release(x->a), ct_release(x->b), ct_release(a), ct_release(b);
}

int main(void)
{
    args x;
    const int64_t n = 10 * 1000 * 1000;
    memset(&x, 0, sizeof x);

    x.a = ct_ones(CT_SHAPE(1), CT_F32);
    x.b = ct_ones(CT_SHAPE(1), CT_F32);
    bench_report("overhead_add_1elem", bench_time(add_tt, &x));
    bench_report("overhead_mul_number_1elem", bench_time(mul_scalar, &x));
    bench_unary(&x, "overhead_exp_1elem", ct_exp);
    ct_release(x.a), ct_release(x.b);

    x.a = ct_rand(CT_SHAPE(n), CT_F32, NULL);
    x.b = ct_rand(CT_SHAPE(n), CT_F32, NULL);
    /* the machine's copy bandwidth, as a bound for memory-bound ops: memcpy
     * on one thread, and ctorch's copy_ on all */
    x.bytes = (size_t)n * 4;
    x.src = ct_data_ptr(x.a);
    x.dst = ct_data_ptr(x.b);
    bench_report("memcpy_f32_10M_1thread", bench_time(copy_memcpy, &x));
    bench_report("copy__f32_10M", bench_time(copy_inplace, &x));
    bench_report("add__f32_10M_inplace", bench_time(add_inplace, &x));
    bench_report("add_f32_10M", bench_time(add_tt, &x));
    bench_report("mul_f32_10M", bench_time(mul_tt, &x));
    bench_report("mul_number_f32_10M", bench_time(mul_scalar, &x));
    bench_unary(&x, "exp_f32_10M", ct_exp);
    bench_unary(&x, "log_f32_10M", ct_log);
    bench_unary(&x, "sigmoid_f32_10M", ct_sigmoid);
    bench_unary(&x, "tanh_f32_10M", ct_tanh);
    bench_unary(&x, "relu_f32_10M", ct_relu);
    bench_report("sum_f32_10M", bench_time(sum_all, &x));
    bench_report("mean_f32_10M", bench_time(mean_all, &x));
    bench_report("amax_f32_10M", bench_time(amax_all, &x));
    ct_release(x.a), ct_release(x.b);

    x.a = ct_rand(CT_SHAPE(1000, 10000), CT_F32, NULL);
    bench_report("softmax_f32_1000x10000_dim-1", bench_time(softmax_last, &x));
    ct_release(x.a);

    x.a = ct_rand(CT_SHAPE(1000, 1000), CT_F32, NULL);
    x.b = ct_rand(CT_SHAPE(1000), CT_F32, NULL);
    bench_report("add_broadcast_f32_1000x1000", bench_time(add_tt, &x));
    ct_release(x.b);
    ct_tensor *t = ct_rand(CT_SHAPE(1000, 1000), CT_F32, NULL);
    x.b = ct_t(t);
    ct_release(t);
    bench_report("add_transposed_f32_1000x1000", bench_time(add_tt, &x));
    ct_release(x.a), ct_release(x.b);
    t = ct_rand(CT_SHAPE(2000, 1000), CT_F32, NULL);
    x.a = ct_slice(t, 0, 0, 2000, 2);
    ct_release(t);
    bench_unary(&x, "exp_strided_f32_1000x1000", ct_exp);
    ct_release(x.a);
    bench_dtypes(&x);
    return 0;
}
