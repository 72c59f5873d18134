import torch

from bench import bench_time, report, threads_from_argv

threads_from_argv()
a, b = torch.ones(1), torch.ones(1)
report('overhead_add_1elem', bench_time(lambda: torch.add(a, b)))
n = 10 * 1000 * 1000
a, b = torch.rand(n), torch.rand(n)
report('add_f32_10M', bench_time(lambda: torch.add(a, b)))
report('add__f32_10M_inplace', bench_time(lambda: a.add_(b)))
report('mul_number_f32_10M', bench_time(lambda: torch.mul(a, 1.5)))
report('exp_f32_10M', bench_time(lambda: torch.exp(a)))
report('sigmoid_f32_10M', bench_time(lambda: torch.sigmoid(a)))
a, b = torch.rand(1000, 1000), torch.rand(1000)
report('add_broadcast_f32_1000x1000', bench_time(lambda: torch.add(a, b)))
b = torch.rand(1000, 1000).t()
report('add_transposed_f32_1000x1000', bench_time(lambda: torch.add(a, b)))
