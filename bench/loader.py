"""The PyTorch side of bench/loader.c: the same CSV rows, parsed in
__getitem__ the way a PyTorch user writes it, through DataLoader (and
without it: every dataset[i] once)."""
import resource

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from bench import bench_time, report, threads_from_argv

SAMPLES, PIXELS, BATCH = 10000, 784, 64


def make_rows():
    """SAMPLES rows b"label,p0,...,p783": the same made-up values as loader.c's."""
    i = np.arange(SAMPLES, dtype=np.int64)[:, None]
    j = np.arange(PIXELS, dtype=np.int64)[None, :]
    pixels = (i * 131 + j * 7 + (i * j) % 251) % 256
    return [b','.join([str(n % 10).encode()] + [b'%d' % v for v in row]) for n, row in enumerate(pixels.tolist())]


class CsvRows(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        fields = self.rows[i].split(b',')
        return torch.from_numpy(np.array(fields[1:], dtype=np.float32) / 255), int(fields[0])


def cpu_seconds():
    """CPU seconds used so far by this process and its waited-for children (the workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def bench_cpu_time(fn):
    t0 = cpu_seconds()
    for _ in range(3):
        fn()
    return (cpu_seconds() - t0) / 3


def time_loader(dataset, name, workers):
    loader = DataLoader(dataset, batch_size=BATCH, shuffle=True, num_workers=workers)

    def epoch():
        for _ in loader:
            pass

    report(name + '_epoch', bench_time(epoch))
    report(name + '_epoch_cpu', bench_cpu_time(epoch))


threads_from_argv()
torch.manual_seed(0)
rows = CsvRows(make_rows())
time_loader(rows, 'csv_10000_batch64_workers2', 2)
time_loader(rows, 'csv_10000_batch64_workers0', 0)


def read_all():
    for i in range(len(rows)):
        rows[i]


report('csv_10000_get_item_alone', bench_time(read_all))
