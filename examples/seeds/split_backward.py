import torch


def step1(x):
    return torch.matmul(w, x)


def step2(x):
    return torch.sum(x)


def end2end(x):
    return step2(step1(x))


w = torch.tensor([1., 2.], requires_grad=True)
x = torch.tensor([3., 4.])
z = end2end(x)
z.backward()
print(w.grad)

w = torch.tensor([1., 2.], requires_grad=True)
x = torch.tensor([3., 4.])
y = step1(x)
y1 = y.clone().detach().requires_grad_(True)
z = step2(y1)
z.backward()
print(y1.grad)
y.backward(y1.grad)
print(w.grad)
