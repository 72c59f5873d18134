import torch

w = torch.tensor([[0.5, -0.2, 0.1], [0.3, 0.8, -0.5]], requires_grad=True)
b = torch.tensor([0.1, -0.1], requires_grad=True)
params = [w, b]
data = [(torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]), torch.tensor([[1.0, 0.0], [0.0, 1.0]])),
        (torch.tensor([[-1.0, 0.5, 1.5], [2.0, 1.0, -0.5]]), torch.tensor([[0.5, 0.5], [1.0, -1.0]]))]
for epoch in range(3):
    for input, target in data:
        for p in params:  # optimizer.zero_grad()
            p.grad = None
        output = torch.matmul(input, w.t()) + b
        loss = ((output - target) ** 2).mean()
        grad_params = torch.autograd.grad(outputs=loss, inputs=params, create_graph=True)
        print(w.grad, b.grad)  # autograd.grad leaves .grad alone
        grad_norm = 0
        for grad in grad_params:
            grad_norm += grad.pow(2).sum()
        grad_norm = grad_norm.sqrt()
        loss = loss + grad_norm
        loss.backward()
        print(loss)
        print(w.grad)
        print(b.grad)
        with torch.no_grad():  # optimizer.step(), plain SGD with lr 0.1
            for p in params:
                p -= 0.1 * p.grad
print(w)
print(b)
