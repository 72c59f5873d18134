"""Golden data for tests/test_random.c: PyTorch's random numbers, step by step.

Run with /usr/bin/python3 (Debian's PyTorch 1.13, CPU). Writes random.ctg.

A *stream* is a list of steps run one after the other on one generator (the
default one, or a torch.Generator), so that the generator's state carries from
step to step as in a user's program. For stream k, step j is described by
    s<k>.<j>.i   int64[14]: op, dtype, ndim, sizes[6], a, b, layout, flags, generator
    s<k>.<j>.f   float64[2]: real parameters
    s<k>.<j>.in0, .in1   input tensors (when the op takes tensors)
    s<k>.<j>     the result (for in-place ops, the tensor written)
and tests/test_random.c replays the steps with ctorch and compares.
"""
import os
import warnings

import torch

from ctg import DTYPES, Writer

OPS = ['seed', 'rand', 'randn', 'randint', 'randperm', 'normal_scalar', 'uniform_', 'normal_', 'random_',
       'exponential_', 'bernoulli_', 'bernoulli', 'normal', 'multinomial', 'get_state']
OP = {name: i for i, name in enumerate(OPS)}

# layouts of the tensor an in-place op writes (or of an input), shared with the C side
CONTIGUOUS, TRANSPOSED, STEP2, REVERSED = 0, 1, 2, 3

F32, F64, F16, BF16 = torch.float32, torch.float64, torch.float16, torch.bfloat16
I64, I32, I16, I8, U8, BOOL = torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool


def make(shape, dtype, layout):
    """An uninitialised tensor of `shape` laid out as `layout` says."""
    shape = list(shape)
    if layout == TRANSPOSED:
        return torch.empty(shape[:-2] + [shape[-1], shape[-2]], dtype=dtype).transpose(-1, -2)
    if layout == STEP2:
        return torch.empty(shape[:-1] + [2 * shape[-1]], dtype=dtype)[..., ::2]
    if layout == REVERSED:
        return torch.empty(shape[::-1], dtype=dtype).permute(*reversed(range(len(shape))))
    return torch.empty(shape, dtype=dtype)


def as_layout(t, layout):
    """A copy of t's values in a tensor laid out as `layout` says."""
    r = make(t.shape, t.dtype, layout)
    r.copy_(t)
    return r


class Stream:
    def __init__(self, w, k, private_generator=False):
        self.w, self.k, self.j = w, k, 0
        self.gen = torch.Generator() if private_generator else None

    def step(self, op, result, dtype=None, shape=(), a=0, b=0, layout=CONTIGUOUS, flags=0, f=(0.0, 0.0),
             inputs=()):
        assert len(shape) <= 6
        ints = [OP[op], DTYPES[dtype] if dtype is not None else 0, len(shape)] + list(shape) + [0] * (6 - len(shape))
        ints += [a, b, layout, flags, 1 if self.gen is not None else 0]
        name = 's%d.%d' % (self.k, self.j)
        self.w.add(name + '.i', torch.tensor(ints, dtype=torch.int64))
        self.w.add(name + '.f', torch.tensor(list(f), dtype=torch.float64))
        for n, t in enumerate(inputs):  # stored contiguous; the C side lays them out again
            self.w.add('%s.in%d' % (name, n), t)
        if result is not None:
            self.w.add(name, result)
        self.j += 1
        return result

    def g(self):
        return {'generator': self.gen} if self.gen is not None else {}

    # ------------------------------------------------------------ the steps
    def seed(self, s):
        if self.gen is not None:
            self.gen.manual_seed(s)
        else:
            torch.manual_seed(s)
        return self.step('seed', None, a=s)

    def rand(self, shape, dtype=F32):
        return self.step('rand', torch.rand(shape, dtype=dtype, **self.g()), dtype, shape)

    def randn(self, shape, dtype=F32):
        return self.step('randn', torch.randn(shape, dtype=dtype, **self.g()), dtype, shape)

    def randint(self, low, high, shape, dtype=I64):
        return self.step('randint', torch.randint(low, high, shape, dtype=dtype, **self.g()), dtype, shape, low, high)

    def randperm(self, n, dtype=I64):
        return self.step('randperm', torch.randperm(n, dtype=dtype, **self.g()), dtype, (), n)

    def normal_scalar(self, mean, std, shape, dtype=F32):
        r = torch.normal(mean, std, shape, dtype=dtype, **self.g())
        return self.step('normal_scalar', r, dtype, shape, f=(mean, std))

    def inplace(self, op, shape, dtype, layout, fn, a=0, b=0, f=(0.0, 0.0)):
        t = make(shape, dtype, layout)
        fn(t)
        return self.step(op, t, dtype, shape, a, b, layout, f=f)

    def uniform_(self, shape, lo, hi, dtype=F32, layout=CONTIGUOUS):
        return self.inplace('uniform_', shape, dtype, layout, lambda t: t.uniform_(lo, hi, **self.g()), f=(lo, hi))

    def normal_(self, shape, mean, std, dtype=F32, layout=CONTIGUOUS):
        return self.inplace('normal_', shape, dtype, layout, lambda t: t.normal_(mean, std, **self.g()),
                            f=(mean, std))

    def random_(self, shape, lo, hi, dtype=I64, layout=CONTIGUOUS):
        return self.inplace('random_', shape, dtype, layout, lambda t: t.random_(lo, hi, **self.g()), lo, hi)

    def exponential_(self, shape, lambd, dtype=F32, layout=CONTIGUOUS):
        return self.inplace('exponential_', shape, dtype, layout, lambda t: t.exponential_(lambd, **self.g()),
                            f=(lambd, 0.0))

    def bernoulli_(self, shape, p, dtype=F32, layout=CONTIGUOUS):
        return self.inplace('bernoulli_', shape, dtype, layout, lambda t: t.bernoulli_(p, **self.g()), f=(p, 0.0))

    def bernoulli(self, p, layout=CONTIGUOUS):
        return self.step('bernoulli', torch.bernoulli(as_layout(p, layout), **self.g()), layout=layout, inputs=(p,))

    def normal(self, mean, std, layout=CONTIGUOUS):
        """torch.normal(mean, std) with mean laid out as `layout`."""
        r = torch.normal(as_layout(mean, layout), std, **self.g())
        return self.step('normal', r, layout=layout, inputs=(mean, std))

    def multinomial(self, probs, n, replacement, layout=CONTIGUOUS):
        r = torch.multinomial(as_layout(probs, layout), n, replacement, **self.g())
        return self.step('multinomial', r, a=n, b=int(replacement), layout=layout, inputs=(probs,))

    def get_state(self):
        state = self.gen.get_state() if self.gen is not None else torch.get_rng_state()
        return self.step('get_state', state)


def probabilities(rows, cats, zeros, seed):
    """Probability rows with some exact zeros (they tie in multinomial's topk)."""
    g = torch.Generator().manual_seed(seed)
    p = torch.rand(rows, cats, generator=g, dtype=torch.float64) + 0.05
    if zeros:
        p[torch.rand(rows, cats, generator=g) < zeros] = 0
        p[:, 0] = 0.5
    return p


def main():
    warnings.simplefilter('ignore')  # random_'s precision warnings
    here = os.path.dirname(os.path.abspath(__file__))
    w = Writer(os.path.join(here, 'random.ctg'))
    streams = []

    def stream(private=False):
        s = Stream(w, len(streams), private)
        streams.append(s)
        return s

    sizes = [1, 2, 15, 16, 17, 31, 33, 100, 1000, 1003]

    # uniforms: every dtype, every size, seeds, generators
    for seed, dtype in [(0, F32), (1, F64), (2, F16), (3, BF16), (12345, F32)]:
        s = stream()
        s.seed(seed)
        for n in sizes:
            s.rand((n,), dtype)
        s.rand((3, 4, 5), dtype)
        s.uniform_((7, 9), -3.7, 11.3, dtype)
        s.uniform_((7, 9), -3.7, 11.3, dtype, TRANSPOSED)
        s.uniform_((4, 5, 6), 0.25, 0.5, dtype, REVERSED)
        s.uniform_((6, 5), -1e3, 1e3, dtype, STEP2)

    # normals: the Box-Muller path (small or non-contiguous) and the block path
    for seed, dtype in [(0, F32), (7, F64), (8, F16), (9, BF16)]:
        s = stream()
        s.seed(seed)
        for n in sizes:
            s.randn((n,), dtype)
        s.randn((5,), dtype)  # uses the sample cached by an odd-sized Box-Muller step
        s.randn((5,), dtype)
        s.normal_((40, 3), 0.5, 2.5, dtype, TRANSPOSED)
        s.normal_((4, 7), -2.0, 0.3, dtype, STEP2)
        s.normal_((3, 4, 5), 1.5, 3.0, dtype, REVERSED)
        s.normal_((10, 10), 0.3, 2.5, dtype)
        s.normal_((1000,), -0.7, 3.3, dtype)
        s.normal_((33,), -1.0, 0.5, dtype)
        s.normal_scalar(3.0, 0.25, (7, 5), dtype)
        s.normal_scalar(3.0, 0.25, (2, 3), dtype)
    s = stream()
    s.seed(89)  # a seed where half's normals show the fused multiply-add
    s.normal_((32,), -0.7, 3.3, F16)
    s.seed(4)
    s.randn((2000,), F32)
    s.randn((1025,), F64)

    # integers: ranges below and above 2^32, every dtype, negative bounds
    for seed in [0, 5]:
        s = stream()
        s.seed(seed)
        for n in sizes:
            s.randint(0, 10, (n,))
        s.randint(-50, 50, (8, 9), I32)
        s.randint(0, 256, (40,), U8)
        s.randint(-128, 128, (40,), I8)
        s.randint(-300, 300, (40,), I16)
        s.randint(0, 2, (40,), BOOL)
        s.randint(-2**40, 2**40, (50,))
        s.randint(0, 2**60, (50,))
        s.randint(-2**62, 2**62, (20,))
        s.randint(0, 1000, (30,), F32)
        s.randint(0, 2**40, (30,), F32)
        s.randint(0, 2**40, (30,), F64)
        s.randint(0, 2**40, (30,), BF16)
        s.randint(0, 60000, (30,), F16)  # past 2^11: half rounds the integers
        s.randint(-100, 100, (30,), F16)
        s.random_((6, 7), 3, 17, I64, TRANSPOSED)
        s.random_((6, 7), -5, 5, I32, STEP2)
        s.random_((3, 4, 5), 0, 2**33, F64, REVERSED)
        s.random_((9,), 65000, 65504, F16)

    # permutations: every dtype, sizes around the vector widths
    s = stream()
    s.seed(0)
    for n in [0, 1, 2, 3, 10, 16, 17, 100, 1000, 2000]:
        s.randperm(n)
    for dtype in [I32, I16, U8, I8, F32, F64, F16, BF16]:
        s.randperm(100, dtype)
    s.randperm(2049, F16)
    s.randperm(3000, BF16)

    # exponential, bernoulli
    s = stream()
    s.seed(11)
    for dtype in [F32, F64, F16, BF16]:
        s.exponential_((33,), 1.0, dtype)
        s.exponential_((5, 6), 2.5, dtype, TRANSPOSED)
    for dtype in [F32, F64, BF16, I64, U8, BOOL]:
        s.bernoulli_((40,), 0.3, dtype)
        s.bernoulli_((5, 6), 0.7, dtype, TRANSPOSED)
    p = torch.rand(6, 7, generator=torch.Generator().manual_seed(1))
    for pt in [p, p.double(), p.bfloat16()]:
        s.bernoulli(pt)
        s.bernoulli(pt, TRANSPOSED)

    # normal(mean, std) with tensors: broadcasting, dtypes, 0-d std (a lower category)
    s = stream()
    s.seed(13)
    g = torch.Generator().manual_seed(2)
    mean = torch.randn(4, 5, generator=g)
    std = torch.rand(4, 5, generator=g) * 3
    s.normal(mean, std)
    s.normal(mean, std[0])  # std broadcast over rows
    s.normal(mean, std, TRANSPOSED)
    s.normal(mean.double(), std)
    s.normal(mean, std.double())  # mul_ in double, rounded to float
    s.normal(mean, torch.tensor(0.1, dtype=torch.float64))  # 0-d std: multiplied in float
    s.normal(mean[0, :1], std)  # a one-element mean broadcast up
    s.normal(mean.half(), std.half())
    s.normal(mean.bfloat16(), std.bfloat16())
    s.normal(torch.randn(40, generator=g), torch.ones(40, dtype=torch.int64) * 3)

    # multinomial: with and without replacement, zeros that tie, both topk algorithms
    s = stream()
    s.seed(17)
    probs = probabilities(3, 8, 0, 0)
    for dtype in [torch.float64, F32, BF16]:
        s.multinomial(probs.to(dtype), 5, True)
        s.multinomial(probs.to(dtype), 5, False)
        s.multinomial(probs.to(dtype), 1, False)
    s.multinomial(probs[0].float(), 20, True)
    s.multinomial(probs[0].float(), 8, False)
    s.multinomial(probs.float(), 8, False, TRANSPOSED)
    s.multinomial(probs.float(), 3, True, TRANSPOSED)
    zeros = probabilities(4, 300, 0.6, 1)  # many zeros: the tie order is libstdc++'s
    s.multinomial(zeros.float(), 200, False)  # nth_element + sort
    s.multinomial(zeros.float(), 4, False)  # partial_sort (k * 64 <= n)
    s.multinomial(zeros.float(), 300, False)
    s.multinomial(zeros.float(), 1, False)
    s.multinomial(probabilities(1, 3000, 0.3, 2).float(), 1000, False)
    s.multinomial(probabilities(1, 3000, 0.99, 3).float(), 40, False)
    s.multinomial(zeros.float(), 50, True)
    few = probabilities(2, 321, 0.995, 6)  # fewer nonzeros than samples: zeros tie inside the top k
    s.multinomial(few[:, :320].float(), 5, False)  # k * 64 == n: partial_sort
    s.multinomial(few[:, :320].float(), 6, False)  # nth_element
    s.multinomial(few.float(), 2, False)  # a heap of two
    many = probabilities(2, 500, 0, 4)  # long sums: rounding in the input's dtype shows
    for dtype in [BF16, F32]:
        s.multinomial(many.to(dtype), 500, True)

    # a mixed stream, and the same on a torch.Generator with its state saved
    for private in [False, True]:
        s = stream(private)
        s.seed(0)
        s.rand((5,))
        s.randn((3,))
        s.randint(0, 10, (4,))
        s.rand((20,))
        s.randn((17,), F64)
        s.get_state()
        s.randperm(12)
        s.normal_((3, 3), 0.0, 1.0, F64)  # leaves a cached normal in the state
        s.get_state()
        s.bernoulli_((10,), 0.5)
        s.multinomial(probs[0].float(), 3, False)
        s.rand((1003,), F64)
        s.get_state()

    w.add('streams', torch.tensor([s.j for s in streams], dtype=torch.int64))

    # seed 004's examples
    torch.manual_seed(0)
    w.add('seed004.rand55', torch.rand(5, 5))
    w.add('seed004.rand4107', torch.rand(4, 10, 7))
    torch.manual_seed(0)
    w.add('seed004.rand1332', torch.rand(1, 3, 3, 2))

    # a state taken from PyTorch mid-stream, to be loaded into ctorch
    torch.manual_seed(99)
    torch.randn(7, dtype=torch.float64)  # an odd count leaves a cached sample
    w.add('state99', torch.get_rng_state())
    w.add('state99.after', torch.randn(9, dtype=torch.float64))

    w.save()
    print('%s: %d bytes' % (w.path, os.path.getsize(w.path)))


if __name__ == '__main__':
    main()
