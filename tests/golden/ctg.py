"""Writer for ctorch's golden files (.ctg), read by tests/harness.c.

Format, little-endian, one record per tensor to the end of the file:
    u32 name length, name (utf-8), u8 ct_dtype, u8 ndim, i64 sizes[ndim], raw data (row-major).
"""
import struct

import torch

# ct_dtype enum values (src/base/base.h)
DTYPES = {
    torch.bool: 1, torch.uint8: 2, torch.int8: 3, torch.int16: 4, torch.int32: 5,
    torch.int64: 6, torch.float16: 7, torch.bfloat16: 8, torch.float32: 9, torch.float64: 10,
}


class Writer:
    """Collects named tensors and writes them to one .ctg file."""

    def __init__(self, path):
        self.path = path
        self.records = []
        self.names = set()

    def add(self, name, t):
        assert name not in self.names, name
        self.names.add(name)
        t = t.detach().contiguous()
        raw = t.view(torch.int16).numpy().tobytes() if t.dtype in (torch.float16, torch.bfloat16) else t.numpy().tobytes()
        rec = struct.pack('<I', len(name.encode())) + name.encode()
        rec += struct.pack('<BB', DTYPES[t.dtype], t.dim()) + struct.pack('<%dq' % t.dim(), *t.shape) + raw
        self.records.append(rec)

    def save(self):
        with open(self.path, 'wb') as f:
            for r in self.records:
                f.write(r)

    def case(self, name, fn, inputs, gen, module=None, seed=None):
        """Run fn(*inputs) (a module or a function) and store what
        ct_test_golden_case (tests/harness.c) replays: the inputs <name>_in<i>,
        an output gradient <name>_g drawn from gen, the output <name>_out, the
        floating inputs' gradients <name>_gin<i>, the parameters' gradients
        <name>_gp_<param> and the module's state after the call <name>_st_<key>.
        seed: torch.manual_seed(seed) right before the call."""
        inputs = [x.detach().clone().requires_grad_(x.is_floating_point()) for x in inputs]
        for i, x in enumerate(inputs):
            self.add('%s_in%d' % (name, i), x)
        if seed is not None:
            torch.manual_seed(seed)
        out = fn(*inputs)
        self.add(name + '_out', out)
        g = torch.randn(out.shape, generator=gen, dtype=out.dtype)
        self.add(name + '_g', g)
        grads = [x for x in inputs if x.requires_grad]
        params = [(k, p) for k, p in (module.named_parameters() if module else []) if p.requires_grad]
        res = torch.autograd.grad(out, grads + [p for _, p in params], g, allow_unused=True)
        k = 0
        for i, x in enumerate(inputs):
            if x.requires_grad:
                self.add('%s_gin%d' % (name, i), res[k] if res[k] is not None else torch.zeros_like(x))
                k += 1
        for (pname, p), gp in zip(params, res[k:]):
            self.add('%s_gp_%s' % (name, pname), gp if gp is not None else torch.zeros_like(p))
        if module is not None:
            for sname, t in module.state_dict().items():
                self.add('%s_st_%s' % (name, sname), t)


# The view letters both product generators use (tests/harness.c's
# ct_test_view_of reads them): '-' the tensor, T its transpose (last two
# dims), S every other element of its last dim, B unsqueezed and expanded to
# a batch of 2 in front.
def view_of(t, v):
    if v == 'T':
        return t.transpose(-2, -1)
    if v == 'S':
        return t[..., ::2]
    if v == 'B':
        return t.unsqueeze(0).expand(2, *t.shape)
    return t


def stored_shape(shape, v):
    """The shape to draw so that view_of(t, v) has `shape`."""
    if v == 'T':
        return shape[:-2] + (shape[-1], shape[-2])
    if v == 'S':
        return shape[:-1] + (2 * shape[-1],)
    return shape


def graph(fn):
    """grad_fn's name, then its next functions' graphs in parentheses (None for none)."""
    if fn is None:
        return 'None'
    nexts = [graph(f) for f, _ in fn.next_functions]
    return fn.name() + ('(' + ','.join(nexts) + ')' if nexts else '')
