# The PyTorch twin of char_transformer.c: the same model (gpt.h's), seed,
# batches and optimizer, so its first losses are the C program's (and
# tests/test_nn.c holds ctorch to them).
#     python3 examples/char_transformer_torch.py [steps]    (from the repository root)
import sys
import torch
from torch import nn
import torch.nn.functional as F

SEQ, BATCH, STEPS, SAMPLE = 64, 16, 600, 400
WIDTH, HEADS, LAYERS = 128, 4, 2


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
    def __init__(self, vocab, seq):
        super().__init__()
        self.register_buffer('positions', torch.arange(seq), persistent=False)
        self.register_buffer('causal', torch.ones(seq, seq, dtype=torch.bool).triu(1), persistent=False)
        self.tok = nn.Embedding(vocab, WIDTH)
        self.pos = nn.Embedding(seq, WIDTH)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[-1]
        x = self.tok(idx) + self.pos(self.positions[:t])
        for b in self.blocks:
            x = b(x, self.causal[:t, :t])
        return self.head(self.ln_f(x))


steps = int(sys.argv[1]) if len(sys.argv) > 1 else STEPS
text = open('data/kjv.txt', 'rb').read()
chars = sorted(set(text))
id_of = {b: i for i, b in enumerate(chars)}
ids = torch.tensor([id_of[b] for b in text])
print(f'{len(ids)} characters, {len(chars)} distinct')
torch.manual_seed(0)
model = GPT(len(chars), SEQ)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(steps):
    start = torch.randint(0, len(ids) - SEQ - 1, (BATCH,)).tolist()
    x = torch.stack([ids[s:s + SEQ] for s in start])
    y = torch.stack([ids[s + 1:s + SEQ + 1] for s in start])
    opt.zero_grad(set_to_none=True)
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), y.view(-1))
    loss.backward()
    opt.step()
    if step < 3 or (step + 1) % 100 == 0:
        print(f'step {step + 1:4d}  loss {loss.item():.4f}')

ctx = [id_of[b] for b in b'And God said']
print('And God said', end='')
model.eval()
with torch.no_grad():
    for _ in range(SAMPLE):
        window = torch.tensor([ctx[-SEQ:]])
        probs = F.softmax(model(window)[0, -1], dim=-1)
        ctx.append(torch.multinomial(probs, 1).item())
        print(chr(chars[ctx[-1]]), end='')
print()
