import torch

from bench import bench_time, report, threads_from_argv

threads_from_argv()
a, b = torch.ones(1), torch.ones(1)
report('overhead_add_1elem', bench_time(lambda: torch.add(a, b)))
report('overhead_mul_number_1elem', bench_time(lambda: torch.mul(a, 1.5)))
report('overhead_exp_1elem', bench_time(lambda: torch.exp(a)))
n = 10 * 1000 * 1000
a, b = torch.rand(n), torch.rand(n)
report('copy__f32_10M', bench_time(lambda: b.copy_(a)))
report('add__f32_10M_inplace', bench_time(lambda: a.add_(b)))
report('add_f32_10M', bench_time(lambda: torch.add(a, b)))
report('mul_f32_10M', bench_time(lambda: torch.mul(a, b)))
report('mul_number_f32_10M', bench_time(lambda: torch.mul(a, 1.5)))
report('exp_f32_10M', bench_time(lambda: torch.exp(a)))
report('log_f32_10M', bench_time(lambda: torch.log(a)))
report('sigmoid_f32_10M', bench_time(lambda: torch.sigmoid(a)))
report('tanh_f32_10M', bench_time(lambda: torch.tanh(a)))
report('relu_f32_10M', bench_time(lambda: torch.relu(a)))
report('sum_f32_10M', bench_time(lambda: torch.sum(a)))
report('mean_f32_10M', bench_time(lambda: torch.mean(a)))
report('amax_f32_10M', bench_time(lambda: torch.amax(a)))
a = torch.rand(1000, 10000)
report('softmax_f32_1000x10000_dim-1', bench_time(lambda: torch.softmax(a, -1)))
a, b = torch.rand(1000, 1000), torch.rand(1000)
report('add_broadcast_f32_1000x1000', bench_time(lambda: torch.add(a, b)))
b = torch.rand(1000, 1000).t()
report('add_transposed_f32_1000x1000', bench_time(lambda: torch.add(a, b)))
a = torch.rand(2000, 1000)[::2]
report('exp_strided_f32_1000x1000', bench_time(lambda: torch.exp(a)))
