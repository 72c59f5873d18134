"""examples/gpt.h in PyTorch: the small GPT-style model, its optimizer and
training step, shared by examples/char_transformer_torch.py and
bench/transformer.py."""
import torch
from torch import nn
import torch.nn.functional as F

WIDTH, HEADS, LAYERS, SEQ, BATCH = 128, 4, 2, 64, 16


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
    def __init__(self, vocab):
        super().__init__()
        self.register_buffer('positions', torch.arange(SEQ), persistent=False)
        self.register_buffer('causal', torch.ones(SEQ, SEQ, dtype=torch.bool).triu(1), persistent=False)
        self.tok = nn.Embedding(vocab, WIDTH)
        self.pos = nn.Embedding(SEQ, WIDTH)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[-1]
        x = self.tok(idx) + self.pos(self.positions[:t])
        for b in self.blocks:
            x = b(x, self.causal[:t, :t])
        return self.head(self.ln_f(x))


def adamw(model):
    return torch.optim.AdamW(model.parameters(), lr=1e-3)


def train_step(model, opt, x, y):
    opt.zero_grad(set_to_none=True)
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), y.view(-1))
    loss.backward()
    opt.step()
    return loss
