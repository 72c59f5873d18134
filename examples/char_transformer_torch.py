# The PyTorch twin of char_transformer.c: the same model (gpt.py, gpt.h's
# twin), seed, batches and optimizer, so its first losses are the C
# program's (and tests/test_nn.c holds ctorch to them).
#     python3 examples/char_transformer_torch.py [steps]    (from the repository root)
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt import GPT, SEQ, BATCH, adamw, train_step  # noqa: E402

STEPS, SAMPLE = 600, 400

steps = int(sys.argv[1]) if len(sys.argv) > 1 else STEPS
text = open('data/kjv.txt', 'rb').read()
chars = sorted(set(text))
id_of = {b: i for i, b in enumerate(chars)}
ids = torch.tensor([id_of[b] for b in text])
print(f'{len(ids)} characters, {len(chars)} distinct')
torch.manual_seed(0)
model = GPT(len(chars))
opt = adamw(model)
for step in range(steps):
    start = torch.randint(0, len(ids) - SEQ - 1, (BATCH,)).tolist()
    x = torch.stack([ids[s:s + SEQ] for s in start])
    y = torch.stack([ids[s + 1:s + SEQ + 1] for s in start])
    loss = train_step(model, opt, x, y)
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
