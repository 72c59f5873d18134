import torch

torch.manual_seed(0)
minval, maxval = 0, 10
t = torch.floor(minval + (maxval - minval) * torch.rand([5, 5])).int()
print(t)
print(t[0])
print(t[-1])
print(t[1, 3])
print(t[1][3])
print(t[1:4, :])
print(t[1:4, :4:2])
x = torch.tensor([[1, 2], [3, 4]], dtype=torch.float32, requires_grad=True)
x.data[1, :] = torch.tensor([0.0, 0.0])
print(x)
a = torch.arange(27).view(3, 3, 3)
print(a[..., 1])
