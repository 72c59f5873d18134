import numpy as np
import torch

np_array = np.ones((1, 2))
torch_array = torch.tensor(np_array)
torch_array.add_(1.0)
print(repr(np_array))
np_array = np.ones((1, 2))
torch_array = torch.from_numpy(np_array)
torch_array.add_(1.0)
print(repr(np_array))
np_array = np.ones((1, 2))
torch_array = torch.from_numpy(np_array)
torch_array = torch_array + 1.0
print(repr(np_array))
t_a = torch.ones((2, 2))
t_b = t_a.view(4)
print(t_a.storage().data_ptr() == t_b.storage().data_ptr())
