# Seed 004's gradient accumulation: a batch of 64 as two batches of 32, two
# forward/backward passes (each loss divided by the number of passes), then
# one optimizer step; the accumulated gradient is the whole batch's.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(64, 4), torch.randn(64, 2)

nn.functional.mse_loss(model(x), y).backward()
print(model.weight.grad)
opt.zero_grad()

accumulate = 2
for xs, ys in zip(x.split(32), y.split(32)):
    loss = nn.functional.mse_loss(model(xs), ys) / accumulate
    loss.backward()
    print(loss.detach())
print(model.weight.grad)
opt.step()
opt.zero_grad()
print(model.weight.detach())
