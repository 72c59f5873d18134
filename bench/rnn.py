"""The PyTorch side of bench/rnn.c: the same LSTM and GRU calls."""
import torch
import torch.nn as nn

from bench import bench_time, report, threads_from_argv

threads_from_argv()
torch.manual_seed(0)


def run(name, m, seq, batch, features):
    x = torch.randn(seq, batch, features)

    def step(backward):
        y = m(x)[0]
        if backward:
            y.sum().backward()
            m.zero_grad(set_to_none=True)

    with torch.no_grad():
        report(name + '_forward_no_grad', bench_time(lambda: step(False)))
    report(name + '_forward_backward', bench_time(lambda: step(True)))


run('lstm_256_seq50_batch32', nn.LSTM(256, 256), 50, 32, 256)
run('gru_256_seq50_batch32', nn.GRU(256, 256), 50, 32, 256)
run('lstm_32_seq200_batch4', nn.LSTM(32, 32), 200, 4, 32)
