"""PyTorch's gloo all_reduce on the sizes of bench/dist/allreduce.c (1 KB to
100 MB of float32), NP processes (torch.multiprocessing.spawn), best of
ROUNDS rounds of the slowest rank's mean: the figures to set against
ctorch's gloo column. Usage: gloo_allreduce.py [NP]"""
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

SIZES = [1 << 10, 64 << 10, 1 << 20, 16 << 20, 100 << 20]


def timed(t, iters):
    dist.barrier()
    t0 = time.perf_counter()
    for _ in range(iters):
        dist.all_reduce(t)
    return (time.perf_counter() - t0) / iters


def worker(rank, world, port, rounds):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    if rank == 0:
        print("%-20s %12s" % ("all_reduce float32", "PyTorch gloo"))
    for size in SIZES:
        iters = 200 if size <= 1 << 20 else 10 if size <= 16 << 20 else 3
        t = torch.zeros(size // 4)
        best = min(timed(t, iters) for _ in range(rounds))
        slowest = torch.tensor([best], dtype=torch.float64)
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        if rank == 0:
            print("%-20s %9.1f us" % ("%d KB" % (size >> 10), 1e6 * slowest.item()))
    dist.destroy_process_group()


if __name__ == "__main__":
    world = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(world, port, int(os.environ.get("ROUNDS", "3"))), nprocs=world)
