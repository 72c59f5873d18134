"""The PyTorch side of bench/loader.c: the same CSV rows, parsed in
__getitem__ the way a PyTorch user writes it, through DataLoader."""
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


def time_loader(dataset, name, workers):
    loader = DataLoader(dataset, batch_size=BATCH, shuffle=True, num_workers=workers)

    def epoch():
        for _ in loader:
            pass

    report(name, bench_time(epoch))


threads_from_argv()
torch.manual_seed(0)
rows = CsvRows(make_rows())
time_loader(rows, 'csv_10000_batch64_workers2_epoch', 2)
time_loader(rows, 'csv_10000_batch64_workers0_epoch', 0)
