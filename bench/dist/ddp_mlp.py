# PyTorch's DDP (gloo, one thread per rank) on the step bench/dist/ddp_mlp.c
# times: the MNIST MLP 784-256-128-10, batch 64 per rank, SGD with momentum.
#   python3 bench/dist/ddp_mlp.py [ranks]
import os, sys, time
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

BATCH, STEPS, WARMUP = 64, 200, 20


def run(rank, world):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29533"
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    x, y = torch.rand(BATCH, 784), torch.randint(0, 10, (BATCH,))
    m = DDP(torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 128),
                                torch.nn.ReLU(), torch.nn.Linear(128, 10)))
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    for i in range(WARMUP + STEPS):
        if i == WARMUP:
            dist.barrier()
            t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(m(x), y).backward()
        opt.step()
    t = torch.tensor([(time.perf_counter() - t0) / STEPS])
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    if rank == 0:
        print(f"ddp_mlp_784_256_128_10_b64 {world} ranks: PyTorch DDP (gloo) step {1e3 * t.item():.3f} ms")
    dist.destroy_process_group()


if __name__ == "__main__":
    world = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    mp.spawn(run, args=(world,), nprocs=world)
