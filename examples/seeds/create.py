import torch

print(torch.tensor([1, 2, 3], dtype=torch.float))
print(torch.arange(1, 10, step=2))
print(torch.linspace(0.0, 2 * 3.14, 10))
print(torch.zeros((3, 3)))
a = torch.ones((3, 3), dtype=torch.int)
b = torch.zeros_like(a, dtype=torch.float)
print(a)
print(b)
torch.fill_(b, 5)
print(b)
torch.manual_seed(0)
minval, maxval = 0, 10
print(minval + (maxval - minval) * torch.rand([5]))
print(torch.normal(mean=torch.zeros(3, 3), std=torch.ones(3, 3)))
mean, std = 2, 5
print(std * torch.randn((3, 3)) + mean)
print(torch.randperm(20))
print(torch.eye(3, 3))
print(torch.diag(torch.tensor([1, 2, 3])))
