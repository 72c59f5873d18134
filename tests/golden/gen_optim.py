"""Golden trajectories for the optimizers: every torch.optim optimizer ctorch
has, over option combinations, 100 steps (LBFGS: 10 steps of its inner
iterations, in float64 and float32) on one problem, with PyTorch 1.13's
single-tensor code path (foreach=False).

PyTorch's float32 dot product (LBFGS's) is the system BLAS's sdot: the
float32 LBFGS cases differ in their last bits between BLAS implementations.
The committed data came from OpenBLAS 0.3.21 (libblas.so.3 alternative).

The problem: two parameters p0 (3x4) and p1 (5) with fixed centres c and
positive scales s; the gradient of each is set directly to
    s * (p - c) + 0.1 * (p * p * p)        (negated for maximize)
so that no autograd takes part; LBFGS's closure computes
    loss = sum(0.5 * s * (p - c)^2 + 0.025 * p^4)
with autograd in float64.

Writes optim.ctg (init_p0, init_p1, c0, c1, s0, s1 in float32 and
float64, and <case>_p0, <case>_p1 after the last step, <case>_mid_p0/p1
after half the steps) and optim.txt, one case a line:
    <case>|<optimizer>|<options>|<group 1 options or ->|<steps>|<dtype>
options: name=value separated by ';' (PyTorch's keys, betas as beta1 and
beta2, booleans as 0/1). With group 1 options p1 is a second parameter
group added with add_param_group; otherwise both are one group.
"""
import torch

from ctg import Writer

torch.manual_seed(0)
INIT = [torch.randn(3, 4), torch.randn(5)]
CENTRE = [torch.randn(3, 4), torch.randn(5)]
SCALE = [torch.rand(3, 4) + 0.5, torch.rand(5) + 0.5]

CASES = [
    ('sgd', 'SGD', 'lr=0.05', None),
    ('sgd_momentum', 'SGD', 'lr=0.05;momentum=0.9', None),
    ('sgd_dampening', 'SGD', 'lr=0.05;momentum=0.9;dampening=0.1', None),
    ('sgd_nesterov', 'SGD', 'lr=0.05;momentum=0.9;nesterov=1', None),
    ('sgd_wd', 'SGD', 'lr=0.05;momentum=0.5;weight_decay=0.01', None),
    ('sgd_maximize', 'SGD', 'lr=0.05;maximize=1', None),
    ('sgd_all', 'SGD', 'lr=0.05;momentum=0.9;nesterov=1;weight_decay=0.01;maximize=1', None),
    ('sgd_groups', 'SGD', 'lr=0.01;momentum=0.9;nesterov=1', 'lr=0.001;weight_decay=0.0005'),
    ('adam', 'Adam', 'lr=0.01', None),
    ('adam_amsgrad', 'Adam', 'lr=0.01;amsgrad=1', None),
    ('adam_wd', 'Adam', 'lr=0.01;weight_decay=0.01;beta1=0.8;beta2=0.99', None),
    ('adam_maximize', 'Adam', 'lr=0.01;maximize=1', None),
    ('adam_all', 'Adam', 'lr=0.01;amsgrad=1;weight_decay=0.01;maximize=1;eps=1e-6', None),
    ('adam_groups', 'Adam', 'lr=0.01', 'lr=0.003;weight_decay=0.1'),
    ('adamw', 'AdamW', 'lr=0.01', None),
    ('adamw_amsgrad', 'AdamW', 'lr=0.01;amsgrad=1;weight_decay=0.1', None),
    ('adamw_maximize', 'AdamW', 'lr=0.01;maximize=1', None),
    ('rmsprop', 'RMSprop', 'lr=0.01', None),
    ('rmsprop_centered', 'RMSprop', 'lr=0.01;centered=1', None),
    ('rmsprop_momentum', 'RMSprop', 'lr=0.01;momentum=0.9', None),
    ('rmsprop_all', 'RMSprop', 'lr=0.01;centered=1;momentum=0.5;weight_decay=0.01;alpha=0.9', None),
    ('rmsprop_maximize', 'RMSprop', 'lr=0.01;maximize=1', None),
    ('adagrad', 'Adagrad', 'lr=0.1', None),
    ('adagrad_all', 'Adagrad', 'lr=0.1;lr_decay=0.01;weight_decay=0.01;initial_accumulator_value=0.1', None),
    ('adagrad_maximize', 'Adagrad', 'lr=0.1;maximize=1', None),
    ('adadelta', 'Adadelta', 'lr=1.0', None),
    ('adadelta_all', 'Adadelta', 'lr=0.5;rho=0.8;weight_decay=0.01', None),
    ('adadelta_maximize', 'Adadelta', 'lr=1.0;maximize=1', None),
    ('adamax', 'Adamax', 'lr=0.01', None),
    ('adamax_wd', 'Adamax', 'lr=0.01;weight_decay=0.01;beta1=0.8', None),
    ('adamax_maximize', 'Adamax', 'lr=0.01;maximize=1', None),
    ('nadam', 'NAdam', 'lr=0.01', None),
    ('nadam_wd', 'NAdam', 'lr=0.01;weight_decay=0.01;momentum_decay=0.01', None),
    ('radam', 'RAdam', 'lr=0.01', None),
    ('radam_wd', 'RAdam', 'lr=0.01;weight_decay=0.01;beta2=0.99', None),
    ('lbfgs', 'LBFGS', 'lr=1', None),
    ('lbfgs_wolfe', 'LBFGS', 'lr=1;strong_wolfe=1', None),
    ('lbfgs_history', 'LBFGS', 'lr=0.5;history_size=3;max_iter=5;strong_wolfe=1', None),
]
FLAGS = {'nesterov', 'maximize', 'amsgrad', 'centered'}
INTS = {'history_size', 'max_iter'}


def kwargs(spec):
    kw = {}
    for item in spec.split(';'):
        k, v = item.split('=')
        if k in FLAGS:
            kw[k] = bool(int(v))
        elif k in INTS:
            kw[k] = int(v)
        elif k == 'strong_wolfe':
            kw['line_search_fn'] = 'strong_wolfe' if int(v) else None
        else:
            kw[k] = float(v)
    if 'beta1' in kw or 'beta2' in kw:
        kw['betas'] = (kw.pop('beta1', 0.9), kw.pop('beta2', 0.999))
    return kw


def set_grads(params, c, s, maximize):
    for p, ci, si in zip(params, c, s):
        g = si * (p - ci) + 0.1 * (p * p * p)
        p.grad = -g if maximize else g


def run(kind, spec, g1spec, steps, dtype, w, name):
    params = [t.clone().to(dtype).requires_grad_() for t in INIT]
    c = [t.to(dtype) for t in CENTRE]
    s = [t.to(dtype) for t in SCALE]
    cls = getattr(torch.optim, kind)
    kw = kwargs(spec)
    extra = {} if kind == 'LBFGS' else {'foreach': False}
    if g1spec:
        opt = cls([params[0]], **kw, **extra)
        group = kwargs(g1spec)
        opt.add_param_group({'params': [params[1]], **group})
    else:
        opt = cls(params, **kw, **extra)
    maximize = kw.get('maximize', False)

    def closure():
        opt.zero_grad()
        loss = sum((0.5 * si * (p - ci) ** 2 + 0.025 * p ** 4).sum() for p, ci, si in zip(params, c, s))
        loss.backward()
        return loss

    for step in range(steps):
        if kind == 'LBFGS':
            opt.step(closure)
        else:
            set_grads(params, c, s, maximize)
            opt.step()
        if step + 1 == steps // 2:
            w.add(name + '_mid_p0', params[0])
            w.add(name + '_mid_p1', params[1])
    w.add(name + '_p0', params[0])
    w.add(name + '_p1', params[1])


def clipping(w):
    """clip_grad_norm_ over norm types 1, 2, inf, 3 and 0.5 (max_norm 1.0, so
    the gradients shrink; and 100.0, so they stay), and clip_grad_value_(0.5)."""
    torch.manual_seed(1)
    grads = [torch.randn(3, 4), torch.randn(5)]
    w.add('clip_g0', grads[0])
    w.add('clip_g1', grads[1])
    for tag, p in (('1', 1.0), ('2', 2.0), ('inf', float('inf')), ('3', 3.0), ('half', 0.5)):
        for max_norm in (1.0, 100.0):
            params = [torch.zeros_like(g, requires_grad=True) for g in grads]
            for q, g in zip(params, grads):
                q.grad = g.clone()
            total = torch.nn.utils.clip_grad_norm_(params, max_norm, p)
            name = 'clip_%s_%d' % (tag, int(max_norm))
            w.add(name + '_total', total)
            w.add(name + '_g0', params[0].grad)
            w.add(name + '_g1', params[1].grad)
    params = [torch.zeros_like(g, requires_grad=True) for g in grads]
    for q, g in zip(params, grads):
        q.grad = g.clone()
    torch.nn.utils.clip_grad_value_(params, 0.5)
    w.add('clip_value_g0', params[0].grad)
    w.add('clip_value_g1', params[1].grad)


def main():
    w = Writer('optim.ctg')
    clipping(w)
    for dtype, tag in ((torch.float32, 'f32'), (torch.float64, 'f64')):
        for i in range(2):
            w.add('init_p%d_%s' % (i, tag), INIT[i].to(dtype))
            w.add('c%d_%s' % (i, tag), CENTRE[i].to(dtype))
            w.add('s%d_%s' % (i, tag), SCALE[i].to(dtype))
    lines = []
    for name, kind, spec, g1spec in CASES:
        runs = [(name, 10, torch.float64, 'f64'), (name + '_f32', 10, torch.float32, 'f32')] if kind == 'LBFGS' \
            else [(name, 100, torch.float32, 'f32')]
        for case, steps, dtype, tag in runs:
            run(kind, spec, g1spec, steps, dtype, w, case)
            lines.append('%s|%s|%s|%s|%d|%s' % (case, kind, spec, g1spec or '-', steps, tag))
    w.save()
    with open('optim.txt', 'w') as f:
        f.write('\n'.join(lines) + '\n')


main()
