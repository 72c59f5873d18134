"""The PyTorch side of bench/nn.c: the same training steps."""
import torch
from torch import nn

from bench import bench_time, report, threads_from_argv

threads_from_argv()


def run(name, model, x, y, loss_fn):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()

    report(name, bench_time(step))


torch.manual_seed(0)
run('toymodel_batch20_step', nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 5)),
    torch.randn(20, 10), torch.randn(20, 5), nn.MSELoss())
for b in (8, 64):
    run(f'mlp_784_256_128_10_batch{b}_step',
        nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)),
        torch.randn(b, 784), torch.randint(0, 10, (b,)), nn.CrossEntropyLoss())
