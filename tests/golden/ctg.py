"""Writer for ctorch's golden files (.ctg), read by tests/harness.c.

Format, little-endian, one record per tensor to the end of the file:
    u32 name length, name (utf-8), u8 ct_dtype, u8 ndim, i64 sizes[ndim], raw data (row-major).
"""
import struct

import torch

# ct_dtype enum values (src/base/base.h)
DTYPES = {
    torch.bool: 1, torch.uint8: 2, torch.int8: 3, torch.int16: 4, torch.int32: 5,
    torch.int64: 6, torch.float16: 7, torch.bfloat16: 8, torch.float32: 9, torch.float64: 10,
}


class Writer:
    """Collects named tensors and writes them to one .ctg file."""

    def __init__(self, path):
        self.path = path
        self.records = []
        self.names = set()

    def add(self, name, t):
        assert name not in self.names, name
        self.names.add(name)
        t = t.detach().contiguous()
        raw = t.view(torch.int16).numpy().tobytes() if t.dtype in (torch.float16, torch.bfloat16) else t.numpy().tobytes()
        rec = struct.pack('<I', len(name.encode())) + name.encode()
        rec += struct.pack('<BB', DTYPES[t.dtype], t.dim()) + struct.pack('<%dq' % t.dim(), *t.shape) + raw
        self.records.append(rec)

    def save(self):
        with open(self.path, 'wb') as f:
            for r in self.records:
                f.write(r)
