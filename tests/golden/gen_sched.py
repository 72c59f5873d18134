"""Golden learning-rate sequences for the lr schedulers of PyTorch 1.13.

Every case wraps an optimizer with two parameter groups (SGD with lr 0.1
and 0.05, momentum 0.9; or Adam with lr 0.01 and 0.005 where the case says
so), builds the scheduler and steps it STEPS times. Recorded per case
(sched.ctg): <case>_lr, shape (STEPS + 1, 2), get_last_lr() after the
constructor and after each step, and <case>_mom, the groups' momentum (or
beta1) at the same times.

sched.txt holds one case a line: <case>|<optimizer>|<scheduler>|<args>,
args the scheduler's numbers separated by ',' in the order the C test
reads them (tests/test_sched.c). The lambdas are fixed:
    l0(e) = 0.95 ** e          l1(e) = 1 / (e + 1)
    m0(e) = 0.95               m1(e) = 0.5 if e % 3 == 0 else 1.0
ReduceLROnPlateau gets the metric 1 / (1 + e) for e < 20, then
0.05 + 0.001 * (e % 3).
"""
import warnings

import torch
from torch.optim import lr_scheduler as S

from ctg import Writer

warnings.simplefilter('ignore')
STEPS = 120


def l0(e): return 0.95 ** e
def l1(e): return 1 / (e + 1)
def m0(e): return 0.95
def m1(e): return 0.5 if e % 3 == 0 else 1.0


def metric(e):
    return 1 / (1 + e) if e < 20 else 0.05 + 0.001 * (e % 3)


def optimizer(kind):
    p = [torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)]
    if kind == 'Adam':
        return torch.optim.Adam([{'params': [p[0]], 'lr': 0.01}, {'params': [p[1]], 'lr': 0.005}])
    return torch.optim.SGD([{'params': [p[0]], 'lr': 0.1}, {'params': [p[1]], 'lr': 0.05}], momentum=0.9)


MODES = ['triangular', 'triangular2', 'exp_range']


def build(kind, opt, a):
    if kind == 'LambdaLR':
        return S.LambdaLR(opt, [l0, l1] if a[0] == 2 else l0)
    if kind == 'MultiplicativeLR':
        return S.MultiplicativeLR(opt, [m0, m1])
    if kind == 'StepLR':
        return S.StepLR(opt, int(a[0]), a[1])
    if kind == 'MultiStepLR':
        return S.MultiStepLR(opt, [int(x) for x in a[1:]], a[0])
    if kind == 'ConstantLR':
        return S.ConstantLR(opt, a[0], int(a[1]))
    if kind == 'LinearLR':
        return S.LinearLR(opt, a[0], a[1], int(a[2]))
    if kind == 'ExponentialLR':
        return S.ExponentialLR(opt, a[0])
    if kind == 'PolynomialLR':
        return S.PolynomialLR(opt, int(a[0]), a[1])
    if kind == 'CosineAnnealingLR':
        return S.CosineAnnealingLR(opt, int(a[0]), a[1])
    if kind == 'CosineAnnealingWarmRestarts':
        return S.CosineAnnealingWarmRestarts(opt, int(a[0]), int(a[1]), a[2])
    if kind == 'CyclicLR':
        return S.CyclicLR(opt, a[0], a[1], int(a[2]), int(a[3]) or None, MODES[int(a[4])], a[5],
                          cycle_momentum=bool(a[6]), base_momentum=a[7], max_momentum=a[8])
    if kind == 'OneCycleLR':
        return S.OneCycleLR(opt, a[0], total_steps=int(a[1]), pct_start=a[2],
                            anneal_strategy='linear' if a[3] else 'cos', three_phase=bool(a[4]))
    if kind == 'ReduceLROnPlateau':
        return S.ReduceLROnPlateau(opt, 'max' if a[0] else 'min', a[1], int(a[2]), a[3], 'abs' if a[4] else 'rel',
                                   int(a[5]), a[6], a[7])
    if kind == 'Sequential2':  # ConstantLR(a0, a1), ExponentialLR(a2), milestone a3
        return S.SequentialLR(opt, [S.ConstantLR(opt, a[0], int(a[1])), S.ExponentialLR(opt, a[2])], [int(a[3])])
    if kind == 'Sequential3':  # LinearLR(0.2, 1, 10), CosineAnnealingLR(30, 0.001), StepLR(10, 0.5), [10, 50]
        return S.SequentialLR(opt, [S.LinearLR(opt, 0.2, 1.0, 10), S.CosineAnnealingLR(opt, 30, 0.001),
                                    S.StepLR(opt, 10, 0.5)], [10, 50])
    if kind == 'WarmupCosine':  # the recipe: LinearLR(a2, 1, a0) then CosineAnnealingLR(a1 - a0, a3)
        w, total = int(a[0]), int(a[1])
        return S.SequentialLR(opt, [S.LinearLR(opt, a[2], 1.0, w), S.CosineAnnealingLR(opt, total - w, a[3])], [w])
    if kind == 'Chained':  # ConstantLR(0.1, 10), ExponentialLR(0.95)
        return S.ChainedScheduler([S.ConstantLR(opt, 0.1, 10), S.ExponentialLR(opt, 0.95)])
    raise ValueError(kind)


CASES = [
    ('lambda', 'SGD', 'LambdaLR', [2]),
    ('lambda_one', 'SGD', 'LambdaLR', [1]),
    ('multiplicative', 'SGD', 'MultiplicativeLR', []),
    ('step', 'SGD', 'StepLR', [7, 0.5]),
    ('multistep', 'SGD', 'MultiStepLR', [0.3, 10, 30, 30, 80]),
    ('constant', 'SGD', 'ConstantLR', [0.25, 12]),
    ('linear', 'SGD', 'LinearLR', [0.1, 0.9, 17]),
    ('exponential', 'SGD', 'ExponentialLR', [0.97]),
    ('polynomial', 'SGD', 'PolynomialLR', [40, 2.0]),
    ('polynomial_default', 'SGD', 'PolynomialLR', [5, 1.0]),
    ('cosine', 'SGD', 'CosineAnnealingLR', [25, 0.001]),
    ('cosine_zero', 'SGD', 'CosineAnnealingLR', [10, 0.0]),
    ('warm_restarts', 'SGD', 'CosineAnnealingWarmRestarts', [10, 1, 0.001]),
    ('warm_restarts_mult', 'SGD', 'CosineAnnealingWarmRestarts', [5, 2, 0.0]),
    ('cyclic', 'SGD', 'CyclicLR', [0.01, 0.1, 7, 5, 0, 1.0, 1, 0.8, 0.9]),
    ('cyclic_triangular2', 'SGD', 'CyclicLR', [0.01, 0.1, 6, 0, 1, 1.0, 1, 0.85, 0.95]),
    ('cyclic_exp_range', 'SGD', 'CyclicLR', [0.001, 0.05, 5, 0, 2, 0.97, 0, 0.8, 0.9]),
    ('one_cycle', 'SGD', 'OneCycleLR', [0.5, 120, 0.3, 0, 0]),
    ('one_cycle_linear3', 'SGD', 'OneCycleLR', [0.5, 120, 0.25, 1, 1]),
    ('one_cycle_adam', 'Adam', 'OneCycleLR', [0.02, 120, 0.3, 0, 0]),
    ('plateau', 'SGD', 'ReduceLROnPlateau', [0, 0.5, 3, 1e-4, 0, 2, 1e-4, 1e-8]),
    ('plateau_max_abs', 'SGD', 'ReduceLROnPlateau', [1, 0.7, 2, 0.001, 1, 0, 0.0, 1e-8]),
    ('sequential', 'SGD', 'Sequential2', [0.5, 5, 0.9, 5]),
    ('sequential3', 'SGD', 'Sequential3', []),
    ('warmup_cosine', 'SGD', 'WarmupCosine', [10, 120, 0.01, 1e-5]),
    ('chained', 'SGD', 'Chained', []),
]


def main():
    w = Writer('sched.ctg')
    lines = []
    for name, optkind, kind, args in CASES:
        opt = optimizer(optkind)
        s = build(kind, opt, [float(x) for x in args])
        key = 'betas' if optkind == 'Adam' else 'momentum'
        lrs, moms = [], []

        def record():
            lrs.append([g['lr'] for g in opt.param_groups] if kind == 'ReduceLROnPlateau' else s.get_last_lr())
            moms.append([g[key][0] if key == 'betas' else g[key] for g in opt.param_groups])

        record()
        for e in range(STEPS):
            opt.step()
            if kind == 'ReduceLROnPlateau':
                s.step(metric(e))
            else:
                s.step()
            record()
        w.add(name + '_lr', torch.tensor(lrs, dtype=torch.float64))
        w.add(name + '_mom', torch.tensor(moms, dtype=torch.float64))
        lines.append('%s|%s|%s|%s' % (name, optkind, kind, ','.join(repr(float(x)) for x in args)))
    w.save()
    with open('sched.txt', 'w') as f:
        f.write('\n'.join(lines) + '\n')


main()
