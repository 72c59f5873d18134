import torch

torch.manual_seed(0)
minval, maxval = 0, 10
t = torch.floor(minval + (maxval - minval) * torch.rand([5, 5])).int()
minval = 0
maxval = 100
scores = torch.floor(minval + (maxval - minval) * torch.rand([4, 10, 7])).int()
print(scores)
print(torch.index_select(scores, dim=1, index=torch.tensor([0, 5, 9])))
q = torch.index_select(torch.index_select(scores, dim=1, index=torch.tensor([0, 5, 9])),
                       dim=2, index=torch.tensor([1, 3, 6]))
print(q)
s = torch.take(scores, torch.tensor([0 * 10 * 7 + 0, 2 * 10 * 7 + 4 * 7 + 1, 3 * 10 * 7 + 9 * 7 + 6]))
print(s)
g = torch.masked_select(scores, scores >= 80)
print(g)
ifpass = torch.where(scores > 60, torch.tensor(1), torch.tensor(0))
print(ifpass)
print(torch.index_fill(scores, dim=1, index=torch.tensor([0, 5, 9]), value=100))
b = torch.masked_fill(scores, scores < 60, 60)
print(b)
