"""The PyTorch side of bench/transformer.c: the same GPT-style training step."""
import torch
from torch import nn
import torch.nn.functional as F

from bench import bench_time, report, threads_from_argv

threads_from_argv()
VOCAB, SEQ, BATCH, WIDTH, HEADS, LAYERS = 65, 64, 16, 128, 4, 2


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(WIDTH)
        self.attn = nn.MultiheadAttention(WIDTH, HEADS, batch_first=True)
        self.ln2 = nn.LayerNorm(WIDTH)
        self.fc = nn.Linear(WIDTH, 4 * WIDTH)
        self.proj = nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.proj(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, WIDTH)
        self.pos = nn.Embedding(SEQ, WIDTH)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)
        self.register_buffer('positions', torch.arange(SEQ))
        self.register_buffer('mask', torch.ones(SEQ, SEQ, dtype=torch.bool).triu(1))

    def forward(self, idx):
        x = self.tok(idx) + self.pos(self.positions)
        for b in self.blocks:
            x = b(x, self.mask)
        return self.head(self.ln_f(x))


torch.manual_seed(0)
model = GPT()
x = torch.randint(0, VOCAB, (BATCH, SEQ))
y = torch.randint(0, VOCAB, (BATCH, SEQ))
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)


def step():
    opt.zero_grad(set_to_none=True)
    F.cross_entropy(model(x).view(-1, VOCAB), y.view(-1)).backward()
    opt.step()


report('gpt_2x128_seq64_batch16_adamw_step', bench_time(step))
