/* Benchmark helpers: time a piece of work the way timeit does (repeat until
 * it has run long enough, keep the best of several rounds) and print one
 * line per case, "<case> <seconds per call>", which bench/run.sh pairs with
 * PyTorch's line for the same case. */
#ifndef CT_BENCH_H
#define CT_BENCH_H

#include <stdio.h>
#include <time.h>

static double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds per call of fn(ctx): best of 5 rounds of at least 0.1 s each. */
static double bench_time(void (*fn)(void *), void *ctx)
{
    long reps = 1;
    double best = 1e30;
    fn(ctx); /* warm up */
    for (;;) { /* find a repeat count that takes 0.1 s */
        double t0 = bench_now();
        for (long i = 0; i < reps; i++) fn(ctx);
        double dt = bench_now() - t0;
        if (dt >= 0.1) {
            best = dt / (double)reps;
            break;
        }
        reps = dt > 0.01 ? (long)((double)reps * 0.12 / dt) + 1 : reps * 10;
    }
    for (int round = 0; round < 4; round++) {
        double t0 = bench_now();
        for (long i = 0; i < reps; i++) fn(ctx);
        double per = (bench_now() - t0) / (double)reps;
        if (per < best) best = per;
    }
    return best;
}

static void bench_report(const char *name, double seconds) { printf("%s %.9g\n", name, seconds); fflush(stdout); }

#endif
