import torch

from bench import bench_time, report, threads_from_argv

threads_from_argv()
for n in (256, 512, 1024, 2048, 4096):
    a, b = torch.randn(n, n), torch.randn(n, n)
    report('mm_f32_%d' % n, bench_time(lambda: torch.mm(a, b)))
a, b = torch.randn(1024, 1024, dtype=torch.float64), torch.randn(1024, 1024, dtype=torch.float64)
report('mm_f64_1024', bench_time(lambda: torch.mm(a, b)))
for bs in (8, 32, 64):
    x, w, g = torch.randn(bs, 784), torch.randn(256, 784), torch.randn(bs, 256)
    report('linear_fwd_%dx784_784x256' % bs, bench_time(lambda: torch.mm(x, w.t())))
    report('linear_dx_%dx256_256x784' % bs, bench_time(lambda: torch.mm(g, w)))
    report('linear_dw_256x%d_%dx784' % (bs, bs), bench_time(lambda: torch.mm(g.t(), x)))
a, b = torch.randn(32, 64, 64), torch.randn(32, 64, 64)
report('bmm_f32_32x64x64', bench_time(lambda: torch.bmm(a, b)))
a, b = torch.randn(8, 256, 256), torch.randn(8, 256, 256)
report('bmm_f32_8x256x256', bench_time(lambda: torch.bmm(a, b)))
