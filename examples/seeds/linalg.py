import torch

# seed 004, matrix operations: inverse, trace, norm, determinant, eigen, QR, SVD
a = torch.tensor([[1, 2], [3, 4]])
b = torch.tensor([[2, 0], [0, 2]])
print(a @ b)
a = torch.tensor([[1.0, 2], [3, 4]])
print(a.t())
print(torch.inverse(a))
print(torch.trace(a))
print(torch.norm(a))
print(torch.det(a))

# torch.eig is gone from PyTorch 1.13: torch.linalg.eig, with the complex
# results as (real, imaginary) pairs; each eigenvector scaled so that its
# largest component is real and positive (ctorch's convention, and the one
# the seed's old LAPACK gave)
a = torch.tensor([[1.0, 2], [-5, 4]], dtype=torch.float)
L, V = torch.linalg.eig(a)
k = V.abs().argmax(0)
V = V / (V[k, torch.arange(2)] / V[k, torch.arange(2)].abs())
print(torch.view_as_real(L))
print(torch.view_as_real(V))

a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
q, r = torch.qr(a)
print(q)
print(r)
print(q @ r)

# singular vectors are unique up to sign: the singular values, and U and V up to sign
a = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
u, s, v = torch.svd(a)
print(s)
print(u.abs())
print(v.abs())
print(u @ torch.diag(s) @ v.t())
print(torch.linalg.matrix_rank(a))
print(torch.linalg.svdvals(a))
