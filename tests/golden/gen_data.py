"""Golden data for tests/test_data.c: torch.utils.data's index sequences for
given seeds, DataLoader batches and worker seeds, random_split, the random
transforms (torchvision's draws written out in torch, as torchvision is not
installed here), and small files for the readers (data/, written by numpy).

Run with /usr/bin/python3 (Debian's PyTorch 1.13). Writes data.ctg and data/.
Every sequence is an int64 tensor; batch samplers also give <name>.len, the
length of each batch.
"""
import gzip
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import (BatchSampler, DataLoader, Dataset, RandomSampler, SequentialSampler,
                              SubsetRandomSampler, TensorDataset, WeightedRandomSampler, random_split)
from torch.utils.data.distributed import DistributedSampler

from ctg import Writer

w = Writer('data.ctg')


def gen(seed):
    g = torch.Generator()
    g.manual_seed(seed)
    return g


def seq(name, it):
    w.add(name, torch.tensor(list(it), dtype=torch.int64))


def batches(name, it):
    bs = [list(b) for b in it]
    w.add(name, torch.tensor([i for b in bs for i in b], dtype=torch.int64))
    w.add(name + '.len', torch.tensor([len(b) for b in bs], dtype=torch.int64))


# RandomSampler: with a generator, two passes in a row
for seed, n in [(0, 10), (42, 7)]:
    s = RandomSampler(range(n), generator=gen(seed))
    seq('random.s%d.n%d' % (seed, n), list(s) + list(s))
seq('random.replacement', RandomSampler(range(10), replacement=True, num_samples=70, generator=gen(1)))
seq('random.num_samples', RandomSampler(range(10), num_samples=25, generator=gen(3)))
# without a generator: each pass seeds its own from the default generator
torch.manual_seed(5)
s = RandomSampler(range(12))
seq('random.default', list(s) + list(s))

seq('subset_random', SubsetRandomSampler([3, 7, 9, 11, 20], generator=gen(4)))
weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
seq('weighted.replacement', WeightedRandomSampler(weights, 10, generator=gen(6)))
seq('weighted.no_replacement', WeightedRandomSampler(weights, 5, replacement=False, generator=gen(6)))

batches('batch.keep', BatchSampler(SequentialSampler(range(10)), 3, False))
batches('batch.drop', BatchSampler(SequentialSampler(range(10)), 3, True))
batches('batch.random', BatchSampler(RandomSampler(range(10), generator=gen(2)), 4, False))

for n, reps, shuffle, drop in [(10, 3, True, False), (10, 3, True, True), (10, 3, False, False), (2, 4, True, False),
                               (11, 4, False, True)]:
    for rank in range(reps):
        s = DistributedSampler(range(n), num_replicas=reps, rank=rank, shuffle=shuffle, seed=3, drop_last=drop)
        name = 'dist.n%d.r%d.%s.%s.rank%d' % (n, reps, 'shuffle' if shuffle else 'seq', 'drop' if drop else 'pad', rank)
        e0 = list(s)
        s.set_epoch(1)
        seq(name, e0 + list(s))

for name, n, lengths in [('split.counts', 10, [3, 7]), ('split.fractions', 30, [0.3, 0.3, 0.4]),
                         ('split.remainder', 11, [0.5, 0.5])]:
    parts = random_split(range(n), lengths, generator=gen(42))
    batches(name, [p.indices for p in parts])

# DataLoader: shuffle with a generator; without one (base_seed and the sampler's seed from the default generator)
data = TensorDataset(torch.arange(10))
batches('loader.generator', (b[0].tolist() for b in DataLoader(data, batch_size=3, shuffle=True, generator=gen(7))))
torch.manual_seed(8)
dl = DataLoader(data, batch_size=4, shuffle=True)
batches('loader.default', [b[0].tolist() for b in dl] + [b[0].tolist() for b in dl])


class WorkerSeeds(Dataset):
    """Each sample: the seed of the worker that loaded it (torch.initial_seed()), then the index."""

    def __len__(self):
        return 12

    def __getitem__(self, i):
        return torch.tensor(torch.initial_seed()), torch.tensor(i)


dl = DataLoader(WorkerSeeds(), batch_size=2, num_workers=3, generator=gen(9))
batches('loader.worker_seeds', [b[0].tolist() for b in dl])
# the base seed of a loader given a generator seeded 9: torch.empty((), dtype=torch.int64).random_(generator=g)
w.add('loader.base_seed', torch.empty((), dtype=torch.int64).random_(generator=gen(9)).reshape(1))

# transforms: ToTensor's scaling, Normalize, RandomCrop(4, padding=1), RandomHorizontalFlip(), as torchvision draws
torch.manual_seed(11)
img = (torch.arange(2 * 6 * 6) * 7 % 256).to(torch.uint8).reshape(2, 6, 6)
w.add('transform.in', img)
outs = []
for _ in range(4):
    x = img.to(torch.float32).div(255)
    x = (x - torch.tensor([0.5, 0.25]).view(-1, 1, 1)) / torch.tensor([0.25, 0.5]).view(-1, 1, 1)
    x = F.pad(x, [1, 1, 1, 1], value=0.0)
    i = torch.randint(0, 8 - 4 + 1, size=(1,)).item()
    j = torch.randint(0, 8 - 4 + 1, size=(1,)).item()
    x = x[..., i:i + 4, j:j + 4]
    if torch.rand(1) < 0.5:
        x = x.flip(-1)
    outs.append(x)
w.add('transform.out', torch.stack(outs))

# reader files, with their expected contents
os.makedirs('data', exist_ok=True)
a = np.arange(12, dtype=np.float32).reshape(3, 4) / 4
np.save('data/c_f4.npy', a)
np.save('data/fortran_f8.npy', np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)))
np.save('data/big_i4.npy', np.arange(-3, 3, dtype='>i4'))
np.save('data/scalar_i8.npy', np.array(7, dtype=np.int64))
np.save('data/u2.npy', np.arange(3, dtype=np.uint16))
w.add('npy.c_f4', torch.from_numpy(a))

images = (np.arange(5 * 4 * 3) * 11 % 256).astype(np.uint8).reshape(5, 4, 3)
labels = np.array([3, 1, 4, 1, 5], dtype=np.uint8)
ints = np.array([[1, -2], [300000, -7]], dtype='>i4')


def idx(array, code):
    return struct.pack('>BBBB', 0, 0, code, array.ndim) + struct.pack('>%dI' % array.ndim, *array.shape) + array.tobytes()


with open('data/images.idx', 'wb') as f:
    f.write(idx(images, 0x08))
with open('data/labels.idx', 'wb') as f:
    f.write(idx(labels, 0x08))
with open('data/ints.idx', 'wb') as f:
    f.write(idx(ints, 0x0C))
with gzip.GzipFile('data/images.idx.gz', 'wb', mtime=0) as f:
    f.write(idx(images, 0x08))
w.add('idx.images', torch.from_numpy(images))
w.add('idx.ints', torch.from_numpy(ints.astype(np.int32)))

with open('data/table.csv', 'w') as f:
    f.write('a,b,c\n1,2.5,-3\n4e2, 5 ,6\n\n7,8,9\n')
w.add('csv.table', torch.from_numpy(np.loadtxt('data/table.csv', delimiter=',', skiprows=1)))
w.save()
