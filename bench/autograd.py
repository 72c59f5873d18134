"""The PyTorch side of bench/autograd.c: the same 1000-op chain."""
import torch

from bench import bench_time, report, threads_from_argv

threads_from_argv()
x = torch.randn(16).requires_grad_()


def chain(backward):
    y = x
    for _ in range(500):
        y = torch.tanh(y * 0.9 + 0.1)
    if backward:
        y.sum().backward()
        x.grad = None


with torch.no_grad():
    report('chain1000_forward_no_grad', bench_time(lambda: chain(False)))
report('chain1000_forward_recorded', bench_time(lambda: chain(False)))
report('chain1000_forward_backward', bench_time(lambda: chain(True)))
