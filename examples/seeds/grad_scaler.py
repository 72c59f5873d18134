# Seed 002's GradScaler walkthrough. PyTorch 1.13's torch.cuda.amp.GradScaler
# runs on CUDA only (on the CPU it disables itself), so this twin spells out,
# on the CPU, the ops it runs there: scale(y) is y times the scale (a float32
# tensor of shape (1,)); unscale_ multiplies every gradient by the float32
# reciprocal of the scale and notes inf/NaN; step skips the optimizer after
# an inf/NaN. ctorch's GradScaler runs those on the CPU.
import torch

scale = torch.full((1,), 65536.0)  # GradScaler(): init_scale 2**16
x = torch.tensor([1., 2.], requires_grad=True)
z = torch.tensor([2., 3.], requires_grad=True)
y = torch.sum(x) + torch.sum(z)
opt = torch.optim.SGD([x, z], lr=0.001)

(y * scale).backward()  # scaler.scale(y).backward()
print(x.grad, y)
inv_scale = scale.double().reciprocal().float()  # scaler.unscale_(opt)
found_inf = False
with torch.no_grad():
    for p in (x, z):
        found_inf |= not bool(torch.isfinite(p.grad).all())
        p.grad.mul_(inv_scale)
print(x.grad, scale.item())  # scaler.get_scale()
torch.nn.utils.clip_grad_norm_(x, 1.)
torch.nn.utils.clip_grad_norm_(z, 1.)
print(x.grad, scale.item())
if not found_inf:  # scaler.step(opt)
    opt.step()
print(x)
