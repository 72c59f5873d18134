"""Feeds tools/sleef_check.c PyTorch's float32 results to compare with
ctorch's, bit for bit (NaN matching any NaN). Not part of the test suite
(the exhaustive pass takes minutes); tests/test_pointwise.c checks chosen
inputs.

    python3 tools/sleef_check.py erf  | build/sleef_check erf
        torch.erf of all 2^32 float bit patterns, 2^26 at a time
    python3 tools/sleef_check.py gelu | build/sleef_check gelu
        F.gelu(x) and gelu_backward(dy, x) as GeluKernelImpl computes them
        (oneDNN, which PyTorch takes for contiguous float gelu, disabled) on
        2^24 inputs: normal (sd 3), uniform in [-10, 10], random bit
        patterns, and small (sd 1e-3), each with random dy; 2^22 at a time,
        whole vector blocks (a loop's last n % 16 elements are the C
        library's in PyTorch and in ctorch)

Build: cc -std=c11 -O3 -march=native -I. tools/sleef_check.c -o build/sleef_check -lm
Run with /usr/bin/python3 (Debian's python3-torch 1.13).
"""
import sys

import torch
import torch.nn.functional as F

torch.set_num_threads(1)
out = sys.stdout.buffer
if sys.argv[1] == 'erf':
    n = 1 << 26
    for c in range(1 << 6):
        x = torch.arange(c * n, (c + 1) * n, dtype=torch.int64).to(torch.int32).view(torch.float32)
        out.write(torch.erf(x).numpy().tobytes())
else:
    torch._C._set_mkldnn_enabled(False)
    g = torch.Generator().manual_seed(0)
    n = 1 << 22
    for kind in range(4):
        if kind == 0:
            x = torch.randn(n, generator=g) * 3
        elif kind == 1:
            x = torch.rand(n, generator=g) * 20 - 10
        elif kind == 2:
            x = torch.randint(-2**31, 2**31, (n,), generator=g, dtype=torch.int64).to(torch.int32).view(torch.float32)
        else:
            x = torch.randn(n, generator=g) * 1e-3
        dy = torch.randn(n, generator=g)
        for t in (x, dy, F.gelu(x), torch.ops.aten.gelu_backward(dy, x)):
            out.write(t.numpy().tobytes())
