# The PyTorch twin of train_digits.c: the same program, line for line; its
# output (train_digits.out) is what the C demo must print.
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)
raw = torch.from_numpy(np.loadtxt("data/digits.csv.gz", delimiter=",", dtype=np.float32))
images = (raw[:, :64] / 16.0).reshape(-1, 1, 8, 8)  # 8x8 pixels, 0..16
labels = raw[:, 64].long()
train, test = random_split(TensorDataset(images, labels), [1497, 300], generator=torch.Generator().manual_seed(0))
loader = DataLoader(train, batch_size=64, shuffle=True, num_workers=2)

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 16x4x4
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32x2x2
    nn.Flatten(), nn.Linear(128, 10))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=4, gamma=0.5)

test_x, test_y = next(iter(DataLoader(test, batch_size=len(test))))
for epoch in range(12):
    model.train()
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
    scheduler.step()
    model.eval()
    with torch.no_grad():
        correct = (model(test_x).argmax(1) == test_y).sum().item()
    print(f"epoch {epoch + 1:2d}  loss {total / len(train):.4f}  test accuracy {correct}/{len(test)}")
