import torch

from bench import bench_time, report, threads_from_argv

threads_from_argv()
torch.manual_seed(0)


def einsum(name, eq, *shapes):
    xs = [torch.randn(s) for s in shapes]
    report(name, bench_time(lambda: torch.einsum(eq, *xs)))


einsum('einsum_ij_jk_512', 'ij,jk->ik', (512, 512), (512, 512))
einsum('einsum_bij_bjk_32x64x64', 'bij,bjk->bik', (32, 64, 64), (32, 64, 64))
einsum('einsum_bhqd_bhkd_2x8x128x64', 'bhqd,bhkd->bhqk', (2, 8, 128, 64), (2, 8, 128, 64))
einsum('einsum_bn_anm_bm_64x32', 'bn,anm,bm->ba', (64, 32), (16, 32, 32), (64, 32))
einsum('einsum_outer_1000', 'i,j->ij', (1000,), (1000,))
einsum('einsum_trace_1000', 'ii', (1000, 1000))
a, b = torch.randn(64, 32, 32), torch.randn(32, 32, 64)
report('tensordot_64x32x32_32x32x64', bench_time(lambda: torch.tensordot(a, b, 2)))
a, b = torch.randn(64, 64), torch.randn(16, 16)
report('kron_64x64_16x16', bench_time(lambda: torch.kron(a, b)))
a, b = torch.randn(100000, 3), torch.randn(100000, 3)
report('cross_100000x3', bench_time(lambda: torch.linalg.cross(a, b)))
