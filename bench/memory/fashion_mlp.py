"""The PyTorch side of fashion_mlp.c: the MLP run of
examples/fashion_mnist_torch.py (the same dataset class, model, optimizer and
DataLoader), then this process's peak resident memory, and its loader
workers' (separate processes here, threads in ctorch).

    python3 fashion_mlp.py DIR [STEPS]
"""
import gzip
import os
import resource
import sys

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

BATCH, TEST_BATCH, WORKERS = 64, 1000, 2
torch.set_num_threads(len(os.sched_getaffinity(0)))


def read_idx(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    shape = tuple(int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    return torch.from_numpy(np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(shape).copy())


def find_file(directory, name):
    for path in (f"{directory}/{name}.gz", f"{directory}/{name}"):
        if os.access(path, os.R_OK):
            return path
    sys.exit(f"fashion_mlp.py: no {name} in {directory}")


class FashionSplit(Dataset):
    def __init__(self, directory, images_name, labels_name):
        self.images = read_idx(find_file(directory, images_name)).view(-1, 1, 28, 28)
        self.labels = read_idx(find_file(directory, labels_name)).long()

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i].float().div(255), self.labels[i]


def train(model, optimizer, loader, steps):
    model.train()
    for step, (x, y) in enumerate(loader):
        if steps > 0 and step == steps:
            break
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def count_correct(model, test_loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in test_loader:
            correct += (model(x).argmax(1) == y).sum().item()
    return correct


directory = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 0
train_set = FashionSplit(directory, "train-images-idx3-ubyte", "train-labels-idx1-ubyte")
test_set = FashionSplit(directory, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
torch.manual_seed(0)
model = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(),
                      nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loader = DataLoader(train_set, batch_size=BATCH, shuffle=True, num_workers=WORKERS)
train(model, optimizer, loader, steps)  # the loop's iterator, and with it the workers, ends here
accuracy = 100.0 * count_correct(model, DataLoader(test_set, batch_size=TEST_BATCH)) / len(test_set)
print(f"test accuracy {accuracy:.2f}%")
# ru_maxrss is in KiB on Linux; for the children it is the largest one's peak
print("peak_rss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
print("worker_peak_rss_kib", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
