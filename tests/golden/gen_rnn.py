"""Golden data for the recurrent layers: nn.RNN, nn.LSTM, nn.GRU and their cells.

Writes rnn.ctg and the case list rnn.txt, one line per case:
    name|module|input_size|hidden_size|options|seed|states
options is a comma-separated list (layers=N, relu, nobias, bf (batch_first),
bi (bidirectional), proj=N, dropout=P, eval, f64), seed the manual_seed before
the module is made (and seed + 1000 before the call, for dropout's draws),
states 1 when initial states are given.

A case <c> stores the freshly made parameters c_p_<name> (compared bit for
bit: the initialisation draws), the inputs c_x, c_h0, c_c0, the outputs
c_out, c_hn, c_cn (a cell: c_out is h', c_cn is LSTMCell's c'), random
gradients of the outputs c_g_out, c_g_hn, c_g_cn, and the gradients of the
loss sum(out * g_out) + sum(hn * g_hn) + sum(cn * g_cn) with respect to the
inputs (c_gx, c_gh0, c_gc0) and the parameters (c_gp_<name>).
"""
import torch
import torch.nn as nn

from ctg import Writer

torch.set_num_threads(1)
W = Writer('rnn.ctg')
GEN = torch.Generator().manual_seed(4321)
LINES = []


def rnd(shape, dtype):
    return torch.randn(*shape, generator=GEN, dtype=dtype)


def make(module, input_size, hidden_size, opts):
    o = dict(x.split('=') if '=' in x else (x, True) for x in opts.split(',') if x)
    bias = 'nobias' not in o
    if module.endswith('Cell'):
        if module == 'RNNCell':
            return nn.RNNCell(input_size, hidden_size, bias, 'relu' if 'relu' in o else 'tanh'), o
        return getattr(nn, module)(input_size, hidden_size, bias), o
    kw = dict(num_layers=int(o.get('layers', 1)), bias=bias, batch_first='bf' in o,
              dropout=float(o.get('dropout', 0)), bidirectional='bi' in o)
    if 'relu' in o:
        kw['nonlinearity'] = 'relu'
    if 'proj' in o:
        kw['proj_size'] = int(o['proj'])
    return getattr(nn, module)(input_size, hidden_size, **kw), o


def case(name, module, input_size, hidden_size, opts, seed, x_shape, states):
    """x_shape: the input's shape; states: the initial states' shape or None."""
    torch.manual_seed(seed)
    m, o = make(module, input_size, hidden_size, opts)
    for k, p in m.named_parameters():
        W.add('%s_p_%s' % (name, k), p)
    dtype = torch.float32
    if 'f64' in o:
        m = m.double()
        dtype = torch.float64
    if 'eval' in o:
        m.eval()
    lstm = module.startswith('LSTM')
    cell = module.endswith('Cell')
    x = rnd(x_shape, dtype).requires_grad_()
    W.add(name + '_x', x)
    inputs = [x]
    hx = None
    if states is not None:
        h0 = rnd(states[0], dtype).requires_grad_()
        W.add(name + '_h0', h0)
        inputs.append(h0)
        hx = h0
        if lstm:
            c0 = rnd(states[1], dtype).requires_grad_()
            W.add(name + '_c0', c0)
            inputs.append(c0)
            hx = (h0, c0)
    torch.manual_seed(seed + 1000)
    res = m(x, hx)
    if cell:
        outs = [('out', res[0]), ('cn', res[1])] if lstm else [('out', res)]
    else:
        outs = [('out', res[0])] + ([('hn', res[1][0]), ('cn', res[1][1])] if lstm else [('hn', res[1])])
    loss = 0
    for k, t in outs:
        W.add('%s_%s' % (name, k), t)
        g = rnd(t.shape, dtype)
        W.add('%s_g_%s' % (name, k), g)
        loss = loss + (t * g).sum()
    params = list(m.named_parameters())
    grads = torch.autograd.grad(loss, inputs + [p for _, p in params])
    for k, g in zip(['gx', 'gh0', 'gc0'], grads[:len(inputs)]):
        W.add('%s_%s' % (name, k), g)
    for (k, _), g in zip(params, grads[len(inputs):]):
        W.add('%s_gp_%s' % (name, k), g)
    LINES.append('%s|%s|%d|%d|%s|%d|%d' % (name, module, input_size, hidden_size, opts, seed,
                                           0 if states is None else 1))


# ---------------------------------------------------------------- nn.RNN
case('rnn_tanh', 'RNN', 4, 3, '', 1, (5, 2, 4), None)
case('rnn_relu_2l', 'RNN', 4, 3, 'layers=2,relu', 2, (6, 3, 4), ((2, 3, 3),))
case('rnn_bi_bf', 'RNN', 4, 3, 'bi,bf', 3, (2, 5, 4), ((2, 2, 3),))
case('rnn_unbatched_bi', 'RNN', 4, 3, 'bi,layers=2', 4, (5, 4), ((4, 3),))
case('rnn_nobias', 'RNN', 3, 5, 'nobias', 5, (4, 2, 3), None)
case('rnn_f64', 'RNN', 4, 3, 'layers=2,bi,f64', 6, (5, 2, 4), ((4, 2, 3),))
# ---------------------------------------------------------------- nn.LSTM
case('lstm', 'LSTM', 4, 3, '', 11, (5, 2, 4), None)
case('lstm_2l_bi', 'LSTM', 4, 3, 'layers=2,bi', 12, (5, 2, 4), ((4, 2, 3), (4, 2, 3)))
case('lstm_bf_nobias', 'LSTM', 4, 3, 'bf,nobias', 13, (3, 6, 4), None)
case('lstm_proj', 'LSTM', 4, 5, 'layers=2,bi,proj=2', 14, (4, 3, 4), ((4, 3, 2), (4, 3, 5)))
case('lstm_unbatched', 'LSTM', 4, 3, 'layers=2', 15, (5, 4), ((2, 3), (2, 3)))
case('lstm_unbatched_bf', 'LSTM', 4, 3, 'bf', 16, (5, 4), None)
case('lstm_dropout', 'LSTM', 4, 3, 'layers=3,dropout=0.5', 17, (5, 2, 4), None)
case('lstm_dropout_eval', 'LSTM', 4, 3, 'layers=3,dropout=0.5,eval', 17, (5, 2, 4), None)
case('lstm_long', 'LSTM', 8, 16, '', 18, (40, 4, 8), None)
case('lstm_f64', 'LSTM', 4, 3, 'layers=2,bi,proj=2,f64', 19, (5, 2, 4), ((4, 2, 2), (4, 2, 3)))
# ---------------------------------------------------------------- nn.GRU
case('gru', 'GRU', 4, 3, '', 21, (5, 2, 4), None)
case('gru_2l_bi_bf', 'GRU', 4, 3, 'layers=2,bi,bf', 22, (2, 5, 4), ((4, 2, 3),))
case('gru_unbatched_bf', 'GRU', 4, 3, 'bf', 23, (5, 4), None)
case('gru_nobias', 'GRU', 4, 3, 'nobias,layers=2', 24, (5, 2, 4), ((2, 2, 3),))
case('gru_dropout', 'GRU', 4, 3, 'layers=2,dropout=0.3,bi', 25, (5, 2, 4), None)
case('gru_empty_batch', 'GRU', 4, 3, 'layers=2', 26, (5, 0, 4), None)
case('gru_f64', 'GRU', 4, 3, 'layers=2,bi,f64', 27, (5, 2, 4), ((4, 2, 3),))
# ---------------------------------------------------------------- the cells
case('rnn_cell', 'RNNCell', 4, 3, '', 31, (2, 4), ((2, 3),))
case('rnn_cell_relu_unbatched', 'RNNCell', 4, 3, 'relu,nobias', 32, (4,), None)
case('lstm_cell', 'LSTMCell', 4, 3, '', 33, (2, 4), ((2, 3), (2, 3)))
case('lstm_cell_unbatched', 'LSTMCell', 4, 3, '', 34, (4,), ((3,), (3,)))
case('lstm_cell_nobias', 'LSTMCell', 4, 3, 'nobias', 35, (3, 4), None)
case('gru_cell', 'GRUCell', 4, 3, '', 36, (2, 4), ((2, 3),))
case('gru_cell_unbatched', 'GRUCell', 4, 3, 'nobias', 37, (4,), None)
case('gru_cell_f64', 'GRUCell', 4, 3, 'f64', 38, (2, 4), ((2, 3),))

# ---------------------------------------------------------------- initialisation of a big one
torch.manual_seed(0)
big = nn.LSTM(16, 32, num_layers=3, bidirectional=True, proj_size=8)
for k, p in big.named_parameters():
    W.add('init_lstm_big_%s' % k, p)

W.save()
with open('rnn.txt', 'w') as f:
    f.write('\n'.join(LINES) + '\n')
