import torch
from torch.nn.functional import normalize

x = torch.tensor([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
d = x.shape[0]
print(torch.std(x))
print(torch.sqrt(((x - x.mean()) ** 2).sum() / (d - 1)))
print(torch.var(x))
print(((x - x.mean()) ** 2).sum() / (d - 1))
print(torch.std(x, unbiased=False))
print(torch.var(x, unbiased=False))
print(torch.var(x) * (d - 1) / d)
try:
    print(normalize(torch.tensor([[6, 8]])))
except RuntimeError as e:
    print("RuntimeError:", e)
print(normalize(torch.tensor([[6.0, 8.0]])))
print(normalize(torch.tensor([[6.0, 8.0], [0.0, 0.0]])))
print(normalize(torch.tensor([[6.0, 8.0], [0.0, 0.0]]), p=1, dim=0))
