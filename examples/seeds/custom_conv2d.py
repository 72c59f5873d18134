# Seed 002: a custom 2-D convolution as an autograd Function whose backward is
# made of convolutions (custom_conv2d.c is the same program in ctorch).
import torch
import torch.nn.functional as F
from torch.autograd.function import once_differentiable


def convolution_backward(grad_out, X, weight):
    grad_input = F.conv2d(X.transpose(0, 1), grad_out.transpose(0, 1)).transpose(0, 1)
    grad_X = F.conv_transpose2d(grad_out, weight)
    return grad_X, grad_input


class Conv2D(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, weight):
        ctx.save_for_backward(X, weight)
        return F.conv2d(X, weight)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        X, weight = ctx.saved_tensors
        return convolution_backward(grad_out, X, weight)


torch.manual_seed(0)
weight = torch.rand(5, 3, 3, 3, requires_grad=True, dtype=torch.double)
X = torch.rand(10, 3, 7, 7, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Conv2D.apply, (X, weight)))
y = Conv2D.apply(X, weight)
print(type(y.grad_fn).__name__, tuple(y.shape))
y.sum().backward()
print(weight.grad[0, 0])
print(X.grad[0, 0, :2])
