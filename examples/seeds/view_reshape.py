import torch

x = torch.arange(6.).view(2, 3)
v = x.view(3, 2)
v[0, 0].fill_(100)
print(x)
t = x.transpose(0, 1)
print(x.is_contiguous(), t.is_contiguous())
print(x.contiguous() is x)
tc = t.contiguous()
print(tc.storage().data_ptr() == t.storage().data_ptr(), tc.is_contiguous())
print(x.reshape(6).storage().data_ptr() == x.storage().data_ptr())
print(t.reshape(6).storage().data_ptr() == x.storage().data_ptr())
print(t.flatten().storage().data_ptr() == x.storage().data_ptr())
try:
    t.view(-1)
except RuntimeError as e:
    print(t.reshape(-1))
    print(e)
w = torch.ones(2, requires_grad=True)
c = w.detach().clone()
c.fill_(7)
print(w)
print(c)
