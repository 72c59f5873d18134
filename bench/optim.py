"""The PyTorch side of bench/optim.c: the same optimizer steps."""
import torch

from bench import bench_time, report, threads_from_argv

threads_from_argv()
torch.manual_seed(0)
p = torch.randn(10_000_000, requires_grad=True)
p.grad = torch.randn(10_000_000)
sgd = torch.optim.SGD([p], lr=1e-3, momentum=0.9)
report('sgd_momentum_10M_step', bench_time(sgd.step))
adamw = torch.optim.AdamW([p], lr=1e-3)
report('adamw_10M_step', bench_time(adamw.step))
