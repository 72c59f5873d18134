"""Golden data for indexing: each spec string is evaluated by PyTorch as x[spec]
(and x[spec] = value), the same string ct_index parses.

Writes index.ctg (inputs, values and results) and index.txt, one case a line:
    get|<input>|<spec>|<result name>            or  get|<input>|<spec>|ERR <Type>|<message>
    set|<input>|<spec>|<value>|<result name>    or  set|<input>|<spec>|<value>|ERR <Type>|<message>
"""
import torch

from ctg import Writer

w = Writer('index.ctg')
lines = []
inputs = {
    'a34': torch.arange(12.).view(3, 4),
    'a234': torch.arange(24, dtype=torch.int32).view(2, 3, 4),
    'a2345': torch.arange(120.).view(2, 3, 4, 5),
    'a0d': torch.tensor(5.),
    'a5': torch.arange(5, dtype=torch.int64),
    'at': torch.arange(12.).view(3, 4).t(),
    'a333': torch.arange(27).view(3, 3, 3),
}
for k, v in inputs.items():
    w.add(k, v)

get_cases = {
    'a34': ['0', '-1', '1, 3', '1:3', '1:4, :', '1:4, :4:2', ':, 1', '..., 1', '-1', 'None, :, 0', ':, None',
            '::2', '1:', ':-1', '-2:, 1:-1', '1:100, -100:2', '5', '-4', '0, 4', '0, 0, 0', '..., 0, 0, 0',
            '...', '..., ...', 'None', 'None, None', '0, None', 'True', 'False', ':, True', '[0, 2]', '[0, 2], None',
            'None, [0, 2]', '[-1, 0]', '[0, 5]', '[[0], [1]], [0, 1, 2]', '[], :', '[True, False, True]',
            '[True, False]', ':, [True, False, True, True]', '[0, 2], 1:3', '1, [0, 3]', '::0', '::-1', '1,',
            ' 1 : 3 , : ', '[[True, False, True, True], [False, False, True, False], [True, True, True, True]]',
            '[0, 0, 1], [1, 1, 1]', '[[0, 1], [2, 0]]'],
    'a234': ['0, :, [0, 1]', '[0, 1], 0', '[[0, 1]], :, [[1], [2]]', ':, [0, 1], [0, 1]', '[0, 1], :, [0, 1]',
             '..., [0, 3]', '1, ..., 2', '[True, False], 1', ':, :, ::3', '-1, -1, -1'],
    'a2345': ['[0, 1], :, [0, 1]', ':, [0, 1], [0, 1]', '[0, 1], :, :, [1, 2]', '0, [0, 2], :, [1, 4]',
              '..., [0, 1], :', 'None, ..., None', '1, None, 2, None, 3'],
    'a0d': ['...', 'None', 'True', '0', ':', 'None, None'],
    'a5': ['[4, 0, 2]', '1:4', '[True, False, True, False, True]', '-5', '[-5, 4]'],
    'at': ['0', ':, 1', '1:3, ::2', '[0, 3], 1'],
    'a333': ['..., 1', '1, ..., 1', '[0, 2], [1, 2], [2, 0]'],
}
values = {
    'v4': torch.tensor([1., 2, 3, 4]),
    'v1': torch.tensor(7.),
    'v111': torch.tensor([[[9.]]]),
    'v114': torch.ones(1, 1, 4),
    'v3': torch.ones(3),
    'vi4': torch.tensor([1, 2, 3, 4]),
    'v24': torch.arange(8.).view(2, 4),
    'v2': torch.tensor([5., 6.]),
    'vi2': torch.tensor([5, 6], dtype=torch.int32),
}
for k, v in values.items():
    w.add(k, v)
set_cases = [
    ('a34', '1, :', 'v4'), ('a34', ':, 1', 'v111'), ('a34', '1', 'v114'), ('a34', '1', 'v3'), ('a34', '[0, 1]', 'vi4'),
    ('a34', '[0, 2]', 'v4'), ('a34', '[0, 2]', 'v3'), ('a34', '[0, 2]', 'v24'), ('a34', '[0, 0], [1, 1]', 'v2'),
    ('a34', '0', 'vi4'), ('a34', '...', 'v1'), ('a34', '[[True, False, True, True], [False, False, True, False], [True, True, True, True]]', 'v1'),
    ('a34', '::2, 1:3', 'v1'), ('a34', '[0, 2], None', 'v114'), ('at', '1:3, 0', 'v2'), ('at', '[0, 1], 1', 'v2'),
    ('a234', ':, 0, [1, 2]', 'vi2'), ('a234', '0', 'v1'), ('a5', '[4, 0]', 'v2'),
]


def err(e):
    return 'ERR %s|%s' % (type(e).__name__, str(e).replace('\n', '\\n'))


n = 0
for name, specs in get_cases.items():
    x = inputs[name]
    for spec in specs:
        try:
            r = eval('x[%s]' % spec)
            n += 1
            w.add('get%d' % n, r)
            lines.append('get|%s|%s|get%d' % (name, spec, n))
        except Exception as e:
            lines.append('get|%s|%s|%s' % (name, spec, err(e)))
for name, spec, vname in set_cases:
    x = inputs[name].clone()
    v = values[vname]
    try:
        exec('x[%s] = v' % spec)
        n += 1
        w.add('set%d' % n, x)
        lines.append('set|%s|%s|%s|set%d' % (name, spec, vname, n))
    except Exception as e:
        lines.append('set|%s|%s|%s|%s' % (name, spec, vname, err(e)))
w.save()
with open('index.txt', 'w') as f:
    f.write('\n'.join(lines) + '\n')
