# Seed 004's DistributedDataParallel examples (the DDP tutorial's demo_basic
# and demo_checkpoint with its ToyModel) on the CPU: two processes on gloo,
# started by torch.multiprocessing as the seed's run_demo does. Rank 0
# prints what every rank saw. Writes examples/dist/ddp_toy.out, the output
# examples/dist/ddp_toy.c must print (make test-dist):
#
#     /usr/bin/python3 examples/dist/ddp_toy.py > examples/dist/ddp_toy.out
#
# Two changes to the seed, both made in ddp_toy.c too: each rank draws its
# own batches (seeded 42 + rank once the model is made; the seed's ranks draw
# the same ones, so DDP's averaging could not be seen), and demo_basic takes
# STEPS steps instead of one.
#
# With PyTorch 1.13 here a worker now and then does not exit after its demo
# (in gloo's teardown, once everything is printed), and the script waits for
# it: stop it and run again.
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP

STEPS = 5


def setup(rank, world_size):
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '12355'
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    # the same initial parameters on every rank
    torch.manual_seed(42)


def cleanup():
    dist.destroy_process_group()


class ToyModel(nn.Module):
    def __init__(self):
        super(ToyModel, self).__init__()
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(10, 5)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


def train_step(ddp_model, optimizer):
    optimizer.zero_grad()
    outputs = ddp_model(torch.randn(20, 10))
    labels = torch.randn(20, 5)
    loss = nn.MSELoss()(outputs, labels)
    loss.backward()
    optimizer.step()
    return loss


def report_losses(what, loss):
    """Rank 0 prints every rank's loss."""
    losses = [torch.zeros(1) for _ in range(dist.get_world_size())]
    dist.all_gather(losses, loss.detach().reshape(1))
    if dist.get_rank() == 0:
        print("%s: losses%s" % (what, "".join(" %.4f" % l.item() for l in losses)))


def report_on_every_rank(what, holds):
    """Rank 0 prints whether `holds` holds on every rank."""
    flag = torch.tensor([int(holds)])
    dist.all_reduce(flag, dist.ReduceOp.MIN)
    if dist.get_rank() == 0:
        print("%s: %s" % (what, bool(flag.item())))


def report_same_parameters(what, model):
    """Rank 0 prints whether every rank holds the same parameters."""
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    high, low = flat.clone(), flat.clone()
    dist.all_reduce(high, dist.ReduceOp.MAX)
    dist.all_reduce(low, dist.ReduceOp.MIN)
    if dist.get_rank() == 0:
        print("%s: the same parameters on every rank: %s" % (what, torch.equal(high, low)))


def demo_basic(rank, world_size, checkpoint_path):
    setup(rank, world_size)
    model = ToyModel()
    ddp_model = DDP(model)
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)

    torch.manual_seed(42 + rank)
    for step in range(STEPS):
        report_losses("basic step %d" % (step + 1), train_step(ddp_model, optimizer))
    report_same_parameters("basic", ddp_model)
    if rank == 0:
        print(ddp_model.module.net2.bias.data)
    cleanup()


def demo_checkpoint(rank, world_size, checkpoint_path):
    setup(rank, world_size)
    model = ToyModel()
    ddp_model = DDP(model)
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)

    if rank == 0:
        # Every rank starts from the same parameters and gradients are
        # averaged in backward: saving on one rank is enough.
        torch.save(ddp_model.state_dict(), checkpoint_path)
    # no rank reads the checkpoint before rank 0 has written it
    dist.barrier()
    # the tutorial maps rank 0's GPUs to this rank's; on the CPU, to the CPU
    loaded = torch.load(checkpoint_path, map_location="cpu")
    ddp_model.load_state_dict(loaded)
    same = all(torch.equal(t, loaded[k]) for k, t in ddp_model.state_dict().items())
    report_on_every_rank("checkpoint: %d tensors, loaded by every rank" % len(loaded), same)

    torch.manual_seed(42 + rank)
    report_losses("checkpoint step", train_step(ddp_model, optimizer))
    report_same_parameters("checkpoint", ddp_model)
    # no rank may still be reading the checkpoint when rank 0 removes it
    dist.barrier()
    if rank == 0:
        os.remove(checkpoint_path)
    cleanup()


def run_demo(demo_fn, world_size, checkpoint_path):
    mp.spawn(demo_fn, args=(world_size, checkpoint_path), nprocs=world_size, join=True)


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else tempfile.gettempdir() + "/model.checkpoint"
    run_demo(demo_basic, 2, path)
    run_demo(demo_checkpoint, 2, path)
