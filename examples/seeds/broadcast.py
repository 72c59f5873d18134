import torch

a = torch.tensor([1, 2, 3])
b = torch.tensor([[0, 0, 0], [1, 1, 1], [2, 2, 2]])
print(b + a)
a_broad, b_broad = torch.broadcast_tensors(a, b)
print(a_broad, "\n")
print(b_broad, "\n")
print(a_broad + b_broad)
