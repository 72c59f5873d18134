# Seed 002's AMP training loop on the CPU: autocast (bfloat16 on the CPU)
# around the forward pass, then scaler.scale(loss).backward(), unscale_, clip,
# step and update (amp_loop.c is the same loop in ctorch). PyTorch 1.13's
# GradScaler runs on CUDA only, so the twin spells out its CPU ops as
# grad_scaler.py does: scale is a float32 tensor of shape (1,), unscale_
# multiplies each gradient by its float32 reciprocal, step is skipped after
# an inf/NaN, update keeps the scale (no inf, growth_interval 2000).
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
data, targets = torch.randn(5, 16, 4), torch.randn(5, 16, 1)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
scale = torch.full((1,), 65536.0)  # scaler = GradScaler()

for step, (input, target) in enumerate(zip(data, targets)):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        output = net(input)
        loss = loss_fn(output, target)
    (loss * scale).backward()  # scaler.scale(loss).backward()
    inv_scale = scale.double().reciprocal().float()  # scaler.unscale_(optimizer)
    found_inf = False
    with torch.no_grad():
        for p in net.parameters():
            found_inf |= not bool(torch.isfinite(p.grad).all())
            p.grad.mul_(inv_scale)
    norm = torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
    if not found_inf:  # scaler.step(optimizer)
        optimizer.step()
    optimizer.zero_grad()  # scaler.update() keeps the scale
    print(f"step {step}: {output.dtype} output, {loss.dtype} loss {loss.item():.4f}, grad norm {norm.item():.4f}")
print(net[2].weight.dtype, net[2].weight.grad)
print(net[2].bias)
