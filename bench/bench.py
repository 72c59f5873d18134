"""Timing helpers for the PyTorch side of the benchmarks: the same protocol as
bench/bench.h (repeat until 0.1 s, best of 5 rounds), one line per case."""
import sys
import time

import torch


def bench_time(fn):
    fn()
    reps = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        dt = time.perf_counter() - t0
        if dt >= 0.1:
            best = dt / reps
            break
        reps = int(reps * 0.12 / dt) + 1 if dt > 0.01 else reps * 10
    for _ in range(4):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def report(name, seconds):
    print('%s %.9g' % (name, seconds))
    sys.stdout.flush()


def threads_from_argv():
    """PyTorch runs with the thread count ctorch's OpenMP build uses (argv[1])."""
    if len(sys.argv) > 1:
        torch.set_num_threads(int(sys.argv[1]))
