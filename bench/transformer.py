"""The PyTorch side of bench/transformer.c: the same GPT-style training step
(examples/gpt.py, the twin of examples/gpt.h)."""
import os
import sys

import torch

from bench import bench_time, report, threads_from_argv

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'examples'))
from gpt import GPT, SEQ, BATCH, adamw, train_step  # noqa: E402

threads_from_argv()
VOCAB = 65

torch.manual_seed(0)
model = GPT(VOCAB)
x = torch.randint(0, VOCAB, (BATCH, SEQ))
y = torch.randint(0, VOCAB, (BATCH, SEQ))
opt = adamw(model)
report('gpt_2x128_seq64_batch16_adamw_step', bench_time(lambda: train_step(model, opt, x, y)))
