# The PyTorch twin of fashion_mnist.c: the same models, initialised from the
# same seed, trained on the batches in the same order; it prints the same
# lines (the numbers differ in the last digits, and the times are its own).
#
#     python3 examples/fashion_mnist_torch.py [DIR [EPOCHS [mlp|cnn|both]]]
#
# (Named with _torch so that the test suite, which runs every example that has
# a <name>.py twin and compares their outputs, leaves this one out: it needs a
# data set that CI does not have, and it prints times.)
import gzip
import os
import sys
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

DIR = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/datasets/fashion-mnist"
EPOCHS = int(sys.argv[2]) if len(sys.argv) > 2 else 1
MODEL = sys.argv[3] if len(sys.argv) > 3 else "both"
BATCH, TEST_BATCH, WORKERS = 64, 1000, 2
# ctorch's OpenMP runs on every core; this PyTorch build may start on one thread
torch.set_num_threads(len(os.sched_getaffinity(0)))


def find_file(name):
    for path in (f"{DIR}/{name}.gz", f"{DIR}/{name}"):
        if os.access(path, os.R_OK):
            return path
    return None


def read_idx(path):
    """An IDX file of unsigned bytes as a uint8 tensor of its shape."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        data = f.read()
    assert data[2] == 0x08, "unsigned byte IDX files only"
    ndim = data[3]
    shape = tuple(int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    return torch.from_numpy(np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(shape).copy())


class FashionSplit(Dataset):
    """(image, label): the image as float [1, 28, 28] in [0, 1], made from the
    uint8 pixels in the loader's workers (as transforms.ToTensor would)."""

    def __init__(self, images_path, labels_path):
        self.images = read_idx(images_path).view(-1, 1, 28, 28)
        self.labels = read_idx(labels_path).long()

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i].float().div(255), self.labels[i]


def new_mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(),
                         nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


def new_cnn():  # LeNet-5 with ReLU and max pooling
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),  # 6x14x14
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),  # 16x5x5
        nn.Flatten(), nn.Linear(400, 120), nn.ReLU(),
        nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def train_epoch(model, optimizer, loader):
    model.train()
    total, seen = 0.0, 0
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
        seen += len(y)
    return total / seen


def count_correct(model, test_loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in test_loader:
            correct += (model(x).argmax(1) == y).sum().item()
    return correct


def run(name, new_model, train, test):
    torch.manual_seed(0)
    model = new_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = DataLoader(train, batch_size=BATCH, shuffle=True, num_workers=WORKERS)
    test_loader = DataLoader(test, batch_size=TEST_BATCH)
    for epoch in range(1, EPOCHS + 1):
        start = time.perf_counter()
        loss = train_epoch(model, optimizer, loader)
        seconds = time.perf_counter() - start
        accuracy = 100.0 * count_correct(model, test_loader) / len(test)
        print(f"{name}  epoch {epoch}  loss {loss:.4f}  test accuracy {accuracy:.2f}%  time {seconds:.1f} s", flush=True)


names = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]
paths = [find_file(n) for n in names]
if None in paths:
    print(f"fashion_mnist: no Fashion-MNIST in {DIR} (apt-get install dataset-fashion-mnist, or give its directory): "
          "skipped")
    sys.exit(0)
train, test = FashionSplit(paths[0], paths[1]), FashionSplit(paths[2], paths[3])
print(f"Fashion-MNIST: {len(train)} training and {len(test)} test images, batch {BATCH}, {WORKERS} loader workers")
if MODEL in ("mlp", "both"):
    run("mlp", new_mlp, train, test)
if MODEL in ("cnn", "both"):
    run("cnn", new_cnn, train, test)
