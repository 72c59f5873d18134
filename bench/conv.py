"""The PyTorch side of bench/conv.c: the same LeNet training step and convolutions."""
import torch
from torch import nn

from bench import bench_time, report, threads_from_argv

threads_from_argv()
torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))


def train_step():
    opt.zero_grad()
    nn.functional.cross_entropy(net(x), y).backward()
    opt.step()


report('lenet_batch64_train_step', bench_time(train_step))


def bench_conv(name, n, cin, hw, cout, k):
    x = torch.randn(n, cin, hw, hw)
    w = torch.randn(cout, cin, k, k, requires_grad=True)
    b = torch.randn(cout, requires_grad=True)
    report('conv2d_%s_forward' % name, bench_time(lambda: nn.functional.conv2d(x, w, b)))
    report('conv2d_%s_forward_backward' % name, bench_time(lambda: nn.functional.conv2d(x, w, b).sum().backward()))


bench_conv('64x1x28x28_k5_6', 64, 1, 28, 6, 5)
bench_conv('64x6x14x14_k5_16', 64, 6, 14, 16, 5)
bench_conv('64x1x28x28_k5_16', 64, 1, 28, 16, 5)
bench_conv('64x16x14x14_k5_32', 64, 16, 14, 32, 5)
