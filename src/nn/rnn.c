/* The recurrent layers of torch.nn (RNN, LSTM, GRU) and their cells.
 *
 * Everything is made of ctorch's differentiable ops (linear, chunk, sigmoid,
 * tanh, mul, add, unbind, stack, cat), in the order of PyTorch's CPU kernels
 * (aten/src/ATen/native/RNN.cpp), so autograd gives the backward and its
 * higher orders. A layer projects the inputs of every time step in one
 * product before walking the sequence, as PyTorch's CPU path does; each step
 * then costs one product with W_hh and a few pointwise ops. */

enum { CT__RNN_TANH, CT__RNN_RELU, CT__RNN_LSTM, CT__RNN_GRU };

typedef struct ct__rnn {
    ct_module base;
    int mode;
    bool cell;               /* RNNCell, LSTMCell, GRUCell */
    int64_t input_size, hidden_size;
    ct_rnn_opts o;           /* cells use bias only */
    /* Set by ct_rnn_forward and its kin around one ct_forward_n: where the
     * forward leaves the final h and c (plain references), since a module
     * call returns one tensor. */
    ct_tensor **states_out;
} ct__rnn;

#define CT__RNN(m) ((ct__rnn *)(m))

/* One direction of one layer: its parameters (NULL biases: none; w_hr
 * only with a projection). */
typedef struct ct__rnn_weights {
    const ct_tensor *w_ih, *w_hh, *b_ih, *b_hh, *w_hr;
} ct__rnn_weights;

static int64_t ct__rnn_dirs(const ct__rnn *r) { return r->o.bidirectional ? 2 : 1; }
/* The size of h: proj_size with a projection, else hidden_size. */
static int64_t ct__rnn_h_size(const ct__rnn *r) { return r->o.proj_size > 0 ? r->o.proj_size : r->hidden_size; }
static int64_t ct__rnn_gates(int mode) { return mode == CT__RNN_LSTM ? 4 : mode == CT__RNN_GRU ? 3 : 1; }

/* ---------------------------------------------------------------- one time step */

/* LSTMCell's formula from the summed gates (batch, 4 * hidden): the new c
 * into *c, the new h returned (projected by w_hr when given). */
static ct_tensor *ct__lstm_step(const ct_tensor *gates, ct_tensor **c, const ct_tensor *w_hr)
{
    ct_tensor *g[4];
    int64_t k = ct_chunk(gates, 4, 1, g, 4);
    if (k < 0) return NULL;
    if (k != 4) {
        ct__fail(CT_ERR_RUNTIME, "lstm_cell: the gates have %lld features, which do not split in 4 chunks",
                 (long long)ct_size(gates, 1));
        return NULL;
    }
    ct_tensor *in_gate = ct_sigmoid(g[0]), *forget_gate = ct_sigmoid(g[1]);
    ct_tensor *cell_gate = ct_tanh(g[2]), *out_gate = ct_sigmoid(g[3]);
    *c = ct_add(ct_mul(forget_gate, *c), ct_mul(in_gate, cell_gate));
    ct_tensor *h = ct_mul(out_gate, ct_tanh(*c));
    return w_hr ? ct_matmul(h, ct_t(w_hr)) : h;
}

/* GRUCell's formula from the two projections xw = x W_ih^T + b_ih and
 * hw = h W_hh^T + b_hh (batch, 3 * hidden): r and z from their sums, the
 * candidate n = tanh(xw_n + r * hw_n), h' = (h - n) * z + n. */
static ct_tensor *ct__gru_step(const ct_tensor *xw, const ct_tensor *hw, const ct_tensor *h)
{
    ct_tensor *xg[3], *hg[3];
    int64_t kx = ct_chunk(xw, 3, 1, xg, 3), kh = kx < 0 ? kx : ct_chunk(hw, 3, 1, hg, 3);
    if (kh < 0) return NULL;
    if (kx != 3 || kh != 3) {
        ct__fail(CT_ERR_RUNTIME, "gru_cell: the gates have %lld features, which do not split in 3 chunks",
                 (long long)ct_size(kx != 3 ? xw : hw, 1));
        return NULL;
    }
    ct_tensor *reset_gate = ct_sigmoid(ct_add(hg[0], xg[0]));
    ct_tensor *input_gate = ct_sigmoid(ct_add(hg[1], xg[1]));
    ct_tensor *new_gate = ct_tanh(ct_add(xg[2], ct_mul(hg[2], reset_gate)));
    return ct_add(ct_mul(ct_sub(h, new_gate), input_gate), new_gate);
}

/* One step from the input's projection xw (batch, gates * hidden) and the
 * state h (and *c for the LSTM, replaced by the new one): the new h. */
static ct_tensor *ct__rnn_step(int mode, const ct_tensor *xw, const ct_tensor *h, ct_tensor **c,
                               const ct__rnn_weights *w)
{
    ct_tensor *hw = ct_linear(h, w->w_hh, w->b_hh);
    switch (mode) {
    case CT__RNN_TANH: return ct_tanh(ct_add(hw, xw));
    case CT__RNN_RELU: return ct_relu(ct_add(hw, xw));
    case CT__RNN_GRU: return hw ? ct__gru_step(xw, hw, h) : NULL;
    default: return ct__lstm_step(ct_add(hw, xw), c, w->w_hr);
    }
}

/* ---------------------------------------------------------------- the cells as functions */

static const char *const ct__cell_fn_names[] = {"rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"};

/* check_rnn_cell_forward_input / _hidden: input (batch, input_size), each
 * state (batch, hidden_size), sizes read from the weights as PyTorch does. */
static ct_result ct__check_cell_args(const ct_tensor *input, const ct_tensor *const *states, int n_states,
                                     const ct_tensor *w_ih, const ct_tensor *w_hh)
{
    int64_t input_size = ct_size(w_ih, 1), hidden_size = ct_size(w_hh, 1), got = ct_size(input, 1);
    if (input_size < 0 || hidden_size < 0 || got < 0) return ct_last_error_code();
    if (got != input_size)
        return ct__fail(CT_ERR_RUNTIME, "input has inconsistent input_size: got %lld expected %lld", (long long)got,
                        (long long)input_size);
    for (int i = 0; i < n_states; i++) {
        int64_t batch = ct_size(states[i], 0);
        if (batch < 0) return ct_last_error_code();
        if (ct_size(input, 0) != batch)
            return ct__fail(CT_ERR_RUNTIME, "Input batch size %lld doesn't match hidden0 batch size %lld",
                            (long long)ct_size(input, 0), (long long)batch);
        int64_t h = ct_size(states[i], 1);
        if (h < 0) return ct_last_error_code();
        if (h != hidden_size)
            return ct__fail(CT_ERR_RUNTIME, "hidden0 has inconsistent hidden_size: got %lld, expected %lld",
                            (long long)h, (long long)hidden_size);
    }
    return CT_OK;
}

/* torch.<mode>_cell(input, hx, w_ih, w_hh, b_ih, b_hh): h' (and *cy). */
static ct_tensor *ct__cell(int mode, const ct_tensor *input, const ct_tensor *hx, const ct_tensor *cx,
                           const ct__rnn_weights *w, ct_tensor **cy)
{
    const char *fn = ct__cell_fn_names[mode];
    bool lstm = mode == CT__RNN_LSTM;
    const ct_tensor *args[5] = {input, hx, lstm ? cx : hx, w->w_ih, w->w_hh};
    static const char *const arg_names[5] = {"input", "hx", "cx", "w_ih", "w_hh"};
    for (int i = 0; i < 5; i++)
        if (!args[i]) {
            ct__null_arg(fn, arg_names[i], lstm || i < 2 ? i + 1 : i);
            return NULL;
        }
    const ct_tensor *states[2] = {hx, cx};
    if (ct__check_cell_args(input, states, lstm ? 2 : 1, w->w_ih, w->w_hh) != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *c = (ct_tensor *)cx;
    ct_tensor *h = ct_keep(ct__rnn_step(mode, ct_linear(input, w->w_ih, w->b_ih), hx, &c, w));
    if (h && cy) *cy = ct_keep(c);
    ct_scope_end(s);
    return h;
}

ct_tensor *ct_rnn_tanh_cell(const ct_tensor *input, const ct_tensor *hx, const ct_tensor *w_ih, const ct_tensor *w_hh,
                            const ct_tensor *b_ih, const ct_tensor *b_hh)
{
    ct__rnn_weights w = {w_ih, w_hh, b_ih, b_hh, NULL};
    return ct__cell(CT__RNN_TANH, input, hx, NULL, &w, NULL);
}

ct_tensor *ct_rnn_relu_cell(const ct_tensor *input, const ct_tensor *hx, const ct_tensor *w_ih, const ct_tensor *w_hh,
                            const ct_tensor *b_ih, const ct_tensor *b_hh)
{
    ct__rnn_weights w = {w_ih, w_hh, b_ih, b_hh, NULL};
    return ct__cell(CT__RNN_RELU, input, hx, NULL, &w, NULL);
}

ct_tensor *ct_gru_cell(const ct_tensor *input, const ct_tensor *hx, const ct_tensor *w_ih, const ct_tensor *w_hh,
                       const ct_tensor *b_ih, const ct_tensor *b_hh)
{
    ct__rnn_weights w = {w_ih, w_hh, b_ih, b_hh, NULL};
    return ct__cell(CT__RNN_GRU, input, hx, NULL, &w, NULL);
}

ct_tensor *ct_lstm_cell(const ct_tensor *input, const ct_tensor *hx, const ct_tensor *cx, const ct_tensor *w_ih,
                        const ct_tensor *w_hh, const ct_tensor *b_ih, const ct_tensor *b_hh, ct_tensor **cy)
{
    if (!cy) {
        ct__fail(CT_ERR_VALUE, "lstm_cell: give cy, where the new cell state goes");
        return NULL;
    }
    ct__rnn_weights w = {w_ih, w_hh, b_ih, b_hh, NULL};
    *cy = NULL;
    return ct__cell(CT__RNN_LSTM, input, hx, cx, &w, cy);
}

/* ---------------------------------------------------------------- a whole sequence */

/* One direction of one layer over x (seq, batch, features): the outputs
 * stacked (seq, batch, h_size); *h (and *c) go from the initial to the
 * final state. The reverse direction walks the sequence backwards and puts
 * each output at its own time step. */
static ct_tensor *ct__rnn_direction(int mode, const ct__rnn_weights *w, const ct_tensor *x, bool reverse,
                                    ct_tensor **h, ct_tensor **c)
{
    ct_tensor *xw = ct_linear(x, w->w_ih, w->b_ih); /* every step's input projection in one product */
    if (!xw) return NULL;
    int64_t T = xw->sizes[0];
    if (T == 0) {
        ct__fail(CT_ERR_RUNTIME, "Expected sequence length to be larger than 0 in RNN");
        return NULL;
    }
    if (T > INT_MAX / 2) {
        ct__fail(CT_ERR_VALUE, "RNN: a sequence of %lld steps is longer than ctorch takes", (long long)T);
        return NULL;
    }
    ct_tensor **steps = (ct_tensor **)CT_MALLOC((size_t)(2 * T) * sizeof *steps); /* inputs, then outputs */
    if (!steps) {
        CT__OOM();
        return NULL;
    }
    ct_tensor **outs = steps + T, *out = NULL;
    bool ok = ct_unbind(xw, 0, steps, T) == T;
    for (int64_t k = 0; k < T && ok; k++) {
        int64_t t = reverse ? T - 1 - k : k;
        ct_scope s = ct_scope_begin(); /* a step's temporaries go, unless the graph keeps them */
        *h = outs[t] = ct_keep(ct__rnn_step(mode, steps[t], *h, c, w));
        if (c) ct_keep(*c);
        ct_scope_end(s);
        ok = *h != NULL;
    }
    if (ok) out = ct_stack(outs, (int)T, 0);
    CT_FREE(steps);
    return out;
}

/* The parameters of (layer, direction), looked up by PyTorch's names. */
static ct__rnn_weights ct__rnn_weights_of(const ct_module *m, int64_t layer, int64_t dir)
{
    static const char *const kinds[5] = {"weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"};
    const ct_tensor *t[5];
    for (int i = 0; i < 5; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s_l%lld%s", kinds[i], (long long)layer, dir ? "_reverse" : "");
        t[i] = ct__attr(m, name);
    }
    ct__rnn_weights w = {t[0], t[1], t[2], t[3], t[4]};
    return w;
}

/* _rnn_impl: the layers one after the other, both directions of a layer on
 * the same input, dropout between layers in training. x (seq, batch,
 * features); hx (and cx) (layers * dirs, batch, h). Returns the last
 * layer's output; *h_n (and *c_n) the final states stacked as hx. */
static ct_tensor *ct__rnn_layers(const ct__rnn *r, const ct_tensor *x, const ct_tensor *hx, const ct_tensor *cx,
                                 bool train, ct_tensor **h_n, ct_tensor **c_n)
{
    int64_t dirs = ct__rnn_dirs(r), n = r->o.num_layers * dirs;
    ct_tensor **st = (ct_tensor **)CT_MALLOC((size_t)(2 * n) * sizeof *st); /* h states, then c states */
    if (!st) {
        CT__OOM();
        return NULL;
    }
    ct_tensor **hs = st, **cs = cx ? st + n : NULL, *in = (ct_tensor *)x;
    bool ok = ct_unbind(hx, 0, hs, n) == n && (!cx || ct_unbind(cx, 0, cs, n) == n);
    for (int64_t l = 0; l < r->o.num_layers && ok; l++) {
        ct_tensor *outs[2] = {NULL, NULL};
        for (int64_t d = 0; d < dirs && ok; d++) {
            ct__rnn_weights w = ct__rnn_weights_of(&r->base, l, d);
            int64_t k = l * dirs + d;
            ok = (outs[d] = ct__rnn_direction(r->mode, &w, in, d == 1, &hs[k], cs ? &cs[k] : NULL)) != NULL;
        }
        if (!ok) break;
        in = dirs == 2 ? ct_cat(outs, 2, 2) : outs[0];
        if (train && r->o.dropout > 0 && l < r->o.num_layers - 1) in = ct_dropout(in, r->o.dropout, true);
        ok = in != NULL;
    }
    if (ok) {
        *h_n = ct_stack(hs, (int)n, 0);
        if (cs) *c_n = ct_stack(cs, (int)n, 0);
        ok = *h_n && (!cs || *c_n);
    }
    CT_FREE(st);
    return ok ? in : NULL;
}

/* "(2, 3, 5)", as Python prints a tuple of sizes. */
/* RNNBase.check_hidden_size: state must be (expected). */
static ct_result ct__check_state_size(const ct_tensor *state, int64_t a, int64_t b, int64_t c, const char *what)
{
    if (state->ndim == 3 && state->sizes[0] == a && state->sizes[1] == b && state->sizes[2] == c) return CT_OK;
    char want[96], got[256];
    const int64_t sizes[3] = {a, b, c};
    return ct__fail(CT_ERR_RUNTIME, "Expected %s size %s, got %s", what, ct__tuple_str(sizes, 3, want, sizeof want),
                    ct__shape_str(state->sizes, state->ndim, got, sizeof got));
}

/* RNNBase.check_forward_args (LSTM's with the cell state). */
static ct_result ct__rnn_check_args(const ct__rnn *r, const ct_tensor *x, const ct_tensor *hx, const ct_tensor *cx)
{
    if (x->ndim != 3) return ct__fail(CT_ERR_RUNTIME, "input must have 3 dimensions, got %d", x->ndim);
    if (x->sizes[2] != r->input_size)
        return ct__fail(CT_ERR_RUNTIME, "input.size(-1) must be equal to input_size. Expected %lld, got %lld",
                        (long long)r->input_size, (long long)x->sizes[2]);
    int64_t n = r->o.num_layers * ct__rnn_dirs(r), batch = x->sizes[r->o.batch_first ? 0 : 1];
    bool lstm = r->mode == CT__RNN_LSTM;
    ct_result res = ct__check_state_size(hx, n, batch, ct__rnn_h_size(r), lstm ? "hidden[0]" : "hidden");
    return res != CT_OK || !lstm ? res : ct__check_state_size(cx, n, batch, r->hidden_size, "hidden[1]");
}

/* check_attributes (RNN.cpp): the states, then every parameter, on the input's device. */
static ct_result ct__rnn_check_device(const ct_tensor *x, const ct_tensor *t, const char *name)
{
    char a[64], b[64];
    if (!t || ct_device_equal(x->storage->device, t->storage->device)) return CT_OK;
    return ct__fail(CT_ERR_RUNTIME,
                    "Input and %s tensors are not at the same device, found input tensor at %s and %s tensor at %s", name,
                    ct_device_str(x->storage->device, a, sizeof a), name, ct_device_str(t->storage->device, b, sizeof b));
}

static ct_result ct__rnn_check_devices(const ct__rnn *r, const ct_tensor *x, const ct_tensor *hx, const ct_tensor *cx)
{
    ct_result res = ct__rnn_check_device(x, hx, "hidden");
    if (res == CT_OK) res = ct__rnn_check_device(x, cx, "hidden");
    for (int64_t l = 0; res == CT_OK && l < r->o.num_layers; l++)
        for (int64_t d = 0; res == CT_OK && d < ct__rnn_dirs(r); d++) {
            ct__rnn_weights w = ct__rnn_weights_of(&r->base, l, d);
            const ct_tensor *ps[5] = {w.w_ih, w.w_hh, w.b_ih, w.b_hh, w.w_hr};
            for (int i = 0; res == CT_OK && i < 5; i++) res = ct__rnn_check_device(x, ps[i], "parameter");
        }
    return res;
}

/* The dims of the given states must follow the input's (3-D when batched, else 2-D). */
static ct_result ct__rnn_check_state_dims(bool lstm, bool batched, const ct_tensor *hx, const ct_tensor *cx)
{
    int want = batched ? 3 : 2;
    const char *kind = batched ? "batched 3-D" : "unbatched 2-D";
    if (!lstm && hx->ndim != want)
        return ct__fail(CT_ERR_RUNTIME, "For %s input, hx should also be %d-D but got %d-D tensor", kind, want,
                        hx->ndim);
    if (lstm && (hx->ndim != want || cx->ndim != want))
        return ct__fail(CT_ERR_RUNTIME, "For %s input, hx and cx should also be %d-D but got (%d-D, %d-D) tensors",
                        kind, want, hx->ndim, cx->ndim);
    return CT_OK;
}

/* A missing state: zeros in input's dtype on input's device, as PyTorch makes them. */
static ct_tensor *ct__rnn_zeros(const ct_tensor *input, ct_shape shape)
{
    ct_device_guard on = ct_device_guard_begin(input->storage->device);
    ct_tensor *z = ct_zeros(shape, input->dtype);
    ct_device_guard_end(on);
    return z;
}

/* RNN/LSTM/GRU.forward(input, hx): unbatched inputs get a batch dim (and
 * lose it again), missing states are zeros, batch_first is a transpose. */
static ct_tensor *ct__rnn_call(const ct__rnn *r, const ct_tensor *input, const ct_tensor *hx, const ct_tensor *cx,
                               bool train, ct_tensor **h_n, ct_tensor **c_n)
{
    bool lstm = r->mode == CT__RNN_LSTM, batched = input->ndim == 3;
    int batch_dim = r->o.batch_first ? 0 : 1;
    ct_tensor *x = batched ? (ct_tensor *)input : ct_unsqueeze(input, batch_dim);
    if (!x) return NULL;
    if (hx) {
        if (ct__rnn_check_state_dims(lstm, batched, hx, cx) != CT_OK) return NULL;
        if (!batched) {
            hx = ct_unsqueeze(hx, 1);
            cx = cx ? ct_unsqueeze(cx, 1) : NULL;
        }
    } else {
        int64_t n = r->o.num_layers * ct__rnn_dirs(r), batch = ct_size(x, batch_dim);
        hx = ct__rnn_zeros(x, CT_SHAPE(n, batch, ct__rnn_h_size(r)));
        cx = lstm ? ct__rnn_zeros(x, CT_SHAPE(n, batch, r->hidden_size)) : NULL;
    }
    if (!hx || (lstm && !cx) || ct__rnn_check_args(r, x, hx, cx) != CT_OK ||
        ct__rnn_check_devices(r, x, hx, cx) != CT_OK)
        return NULL;
    if (r->o.batch_first) x = ct_transpose(x, 0, 1);
    ct_tensor *out = ct__rnn_layers(r, x, hx, cx, train, h_n, c_n);
    if (out && r->o.batch_first) out = ct_transpose(out, 0, 1);
    if (out && !batched) {
        out = ct_squeeze_dim(out, batch_dim);
        *h_n = ct_squeeze_dim(*h_n, 1);
        if (lstm) *c_n = ct_squeeze_dim(*c_n, 1);
    }
    return out;
}

/* RNNCell/LSTMCell/GRUCell.forward(input, hx): an unbatched input (and its
 * states) get a batch dim, missing states are zeros. */
static ct_tensor *ct__cell_call(const ct__rnn *r, const ct_tensor *input, const ct_tensor *hx, const ct_tensor *cx,
                                ct_tensor **c_1)
{
    if (input->ndim != 1 && input->ndim != 2) { /* an AssertionError in PyTorch */
        ct__fail(CT_ERR_RUNTIME, "%s: Expected input to be 1-D or 2-D but received %d-D tensor",
                 ct_module_name(&r->base), input->ndim);
        return NULL;
    }
    bool batched = input->ndim == 2, lstm = r->mode == CT__RNN_LSTM;
    ct_tensor *x = batched ? (ct_tensor *)input : ct_unsqueeze(input, 0);
    if (!hx) {
        hx = cx = ct__rnn_zeros(input, CT_SHAPE(ct_size(x, 0), r->hidden_size));
    } else if (!batched) {
        hx = ct_unsqueeze(hx, 0);
        cx = cx ? ct_unsqueeze(cx, 0) : NULL;
    }
    const ct_module *m = &r->base;
    ct__rnn_weights w = {ct__attr(m, "weight_ih"), ct__attr(m, "weight_hh"), ct__attr(m, "bias_ih"),
                         ct__attr(m, "bias_hh"), NULL};
    ct_tensor *h = ct__cell(r->mode, x, hx, lstm ? cx : NULL, &w, c_1);
    if (h && !batched) {
        h = ct_squeeze_dim(h, 0);
        if (lstm) *c_1 = ct_squeeze_dim(*c_1, 0);
    }
    return h;
}

/* The class forward of every recurrent module: the output (h' for a cell);
 * the final states go where states_out points, when it does. */
static ct_tensor *ct__rnn_forward(ct_module *m, ct_tensor *const *in, int n)
{
    ct__rnn *r = CT__RNN(m);
    ct_tensor **states = r->states_out;
    r->states_out = NULL; /* for this call only (a hook may call the module again) */
    bool lstm = r->mode == CT__RNN_LSTM;
    if (!ct__inputs(m, n, 1, lstm ? 3 : 2)) return NULL;
    if (lstm && n == 2) {
        ct__fail(CT_ERR_TYPE, "%s.forward(): give h_0 and c_0 together (hx is the tuple (h_0, c_0))",
                 ct_module_name(m));
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *hx = n > 1 ? in[1] : NULL, *cx = n > 2 ? in[2] : NULL, *h_n = NULL, *c_n = NULL;
    ct_tensor *out = r->cell ? ct__cell_call(r, in[0], hx, cx, &c_n)
                             : ct__rnn_call(r, in[0], hx, cx, ct_module_is_training(m), &h_n, &c_n);
    ct_keep(out);
    if (out && states) {
        states[0] = ct_retain(r->cell ? out : h_n);
        states[1] = lstm ? ct_retain(c_n) : NULL;
    }
    ct_scope_end(s);
    return out;
}

/* ---------------------------------------------------------------- calling with states */

static bool ct__is_recurrent(const ct_module *m) { return m && m->cls->forward == ct__rnn_forward; }

/* m(input, h0 [, c0]) through ct_forward_n, the final states routed to
 * h_out and c_out (either may be NULL). */
static ct_tensor *ct__forward_with_states(const char *fn, ct_module *m, const ct_tensor *input, const ct_tensor *h0,
                                          const ct_tensor *c0, ct_tensor **h_out, ct_tensor **c_out)
{
    if (!input) {
        ct__null_arg(fn, "input", 2);
        return NULL;
    }
    if (!h0 != !c0 && CT__RNN(m)->mode == CT__RNN_LSTM) {
        ct__fail(CT_ERR_TYPE, "%s.forward(): give h_0 and c_0 together (hx is the tuple (h_0, c_0))",
                 ct_module_name(m));
        return NULL;
    }
    ct_tensor *in[3] = {(ct_tensor *)input, (ct_tensor *)h0, (ct_tensor *)c0}, *states[2] = {NULL, NULL};
    CT__RNN(m)->states_out = states;
    ct_tensor *out = ct_forward_n(m, in, h0 ? (c0 ? 3 : 2) : 1);
    CT__RNN(m)->states_out = NULL;
    ct_tensor **dst[2] = {h_out, c_out};
    for (int i = 0; i < 2; i++) {
        if (out && dst[i] && states[i]) *dst[i] = ct__own(states[i]); /* the caller's scope owns it, as out */
        else ct_release(states[i]);
    }
    return out;
}

/* The module must be a recurrent one of `modes` (a mask of 1 << mode), a
 * cell or not. */
static bool ct__check_recurrent(const ct_module *m, const char *fn, unsigned modes, bool cell, const char *want)
{
    if (ct__is_recurrent(m) && CT__RNN(m)->cell == cell && ((modes >> CT__RNN(m)->mode) & 1u)) return true;
    if (!m) ct__fail(CT_ERR_TYPE, "%s: the module is NULL", fn);
    else ct__fail(CT_ERR_TYPE, "%s: expected %s module, got %s", fn, want, ct_module_name(m));
    return false;
}

ct_tensor *ct_rnn_forward(ct_module *rnn, const ct_tensor *input, const ct_tensor *h0, ct_tensor **h_n)
{
    if (h_n) *h_n = NULL;
    unsigned modes = (1u << CT__RNN_TANH) | (1u << CT__RNN_RELU) | (1u << CT__RNN_GRU);
    if (!ct__check_recurrent(rnn, "ct_rnn_forward", modes, false, "an RNN or GRU")) return NULL;
    return ct__forward_with_states("ct_rnn_forward", rnn, input, h0, NULL, h_n, NULL);
}

ct_tensor *ct_lstm_forward(ct_module *lstm, const ct_tensor *input, const ct_tensor *h0, const ct_tensor *c0,
                           ct_tensor **h_n, ct_tensor **c_n)
{
    if (h_n) *h_n = NULL;
    if (c_n) *c_n = NULL;
    if (!ct__check_recurrent(lstm, "ct_lstm_forward", 1u << CT__RNN_LSTM, false, "an LSTM")) return NULL;
    return ct__forward_with_states("ct_lstm_forward", lstm, input, h0, c0, h_n, c_n);
}

ct_tensor *ct_lstm_cell_forward(ct_module *cell, const ct_tensor *input, const ct_tensor *h0, const ct_tensor *c0,
                                ct_tensor **c_1)
{
    if (c_1) *c_1 = NULL;
    if (!ct__check_recurrent(cell, "ct_lstm_cell_forward", 1u << CT__RNN_LSTM, true, "an LSTMCell"))
        return NULL;
    return ct__forward_with_states("ct_lstm_cell_forward", cell, input, h0, c0, NULL, c_1);
}

/* ---------------------------------------------------------------- making them */

ct_rnn_opts ct_rnn_opts_init(void)
{
    ct_rnn_opts o;
    memset(&o, 0, sizeof o);
    o.num_layers = 1;
    o.bias = true;
    return o;
}

static const ct_module_class ct__rnn_classes[2][4] = {
    {{"RNN", ct__rnn_forward, NULL}, {"RNN", ct__rnn_forward, NULL}, {"LSTM", ct__rnn_forward, NULL},
     {"GRU", ct__rnn_forward, NULL}},
    {{"RNNCell", ct__rnn_forward, NULL}, {"RNNCell", ct__rnn_forward, NULL}, {"LSTMCell", ct__rnn_forward, NULL},
     {"GRUCell", ct__rnn_forward, NULL}},
};

/* A parameter of `shape` registered under name + suffix. */
static bool ct__rnn_param(ct_module *m, const char *name, const char *suffix, ct_shape shape)
{
    char full[64];
    snprintf(full, sizeof full, "%s%s", name, suffix);
    return ct__new_tensor(m, full, shape, CT_DEFAULT, true, true) != NULL;
}

/* RNNBase.__init__'s parameters for every layer and direction, in its order. */
static bool ct__rnn_register(ct__rnn *r)
{
    int64_t gates = ct__rnn_gates(r->mode) * r->hidden_size, h = ct__rnn_h_size(r), dirs = ct__rnn_dirs(r);
    bool ok = true;
    for (int64_t l = 0; l < r->o.num_layers && ok; l++)
        for (int64_t d = 0; d < dirs && ok; d++) {
            char sfx[40];
            snprintf(sfx, sizeof sfx, "_l%lld%s", (long long)l, d ? "_reverse" : "");
            int64_t in = l == 0 ? r->input_size : h * dirs;
            ok = ct__rnn_param(&r->base, "weight_ih", sfx, CT_SHAPE(gates, in)) &&
                 ct__rnn_param(&r->base, "weight_hh", sfx, CT_SHAPE(gates, h)) &&
                 (!r->o.bias || (ct__rnn_param(&r->base, "bias_ih", sfx, CT_SHAPE(gates)) &&
                                 ct__rnn_param(&r->base, "bias_hh", sfx, CT_SHAPE(gates)))) &&
                 (r->o.proj_size == 0 ||
                  ct__rnn_param(&r->base, "weight_hr", sfx, CT_SHAPE(r->o.proj_size, r->hidden_size)));
        }
    return ok;
}

/* RNNCellBase.__init__'s parameters; the biases None without bias. */
static bool ct__cell_register(ct__rnn *r)
{
    int64_t gates = ct__rnn_gates(r->mode) * r->hidden_size;
    ct_module *m = &r->base;
    if (!ct__rnn_param(m, "weight_ih", "", CT_SHAPE(gates, r->input_size)) ||
        !ct__rnn_param(m, "weight_hh", "", CT_SHAPE(gates, r->hidden_size)))
        return false;
    if (!r->o.bias)
        return ct_register_parameter(m, "bias_ih", NULL) == CT_OK && ct_register_parameter(m, "bias_hh", NULL) == CT_OK;
    return ct__rnn_param(m, "bias_ih", "", CT_SHAPE(gates)) && ct__rnn_param(m, "bias_hh", "", CT_SHAPE(gates));
}

/* reset_parameters: every parameter uniform in +-1/sqrt(hidden_size), in
 * registration order, as PyTorch draws them. */
static bool ct__rnn_reset_parameters(ct__rnn *r)
{
    double stdv = r->hidden_size > 0 ? 1.0 / sqrt((double)r->hidden_size) : 0;
    ct_tensor_list ps = ct_module_parameters(&r->base, false);
    bool ok = true;
    for (int i = 0; i < ps.n && ok; i++) ok = ct_init_uniform_(ps.tensors[i], -stdv, stdv) == CT_OK;
    ct_tensor_list_free(&ps);
    return ok;
}

static ct_module *ct__rnn_new(int mode, bool cell, int64_t input_size, int64_t hidden_size, ct_rnn_opts o)
{
    ct__rnn *r = (ct__rnn *)ct_module_new(&ct__rnn_classes[cell][mode], sizeof(ct__rnn));
    if (!r) return NULL;
    r->mode = mode;
    r->cell = cell;
    r->input_size = input_size;
    r->hidden_size = hidden_size;
    r->o = o;
    bool ok = (cell ? ct__cell_register(r) : ct__rnn_register(r)) && ct__rnn_reset_parameters(r);
    if (ok) return &r->base;
    ct_module_release(&r->base);
    return NULL;
}

/* RNNBase.__init__'s checks (and the subclasses' before them). */
static ct_module *ct__rnn_module(int mode, int64_t input_size, int64_t hidden_size, ct_rnn_opts o)
{
    if (mode != CT__RNN_LSTM && o.proj_size != 0) {
        ct__fail(CT_ERR_VALUE, "proj_size argument is only supported for LSTM, not RNN or GRU");
        return NULL;
    }
    if (!(o.dropout >= 0 && o.dropout <= 1)) {
        ct__fail(CT_ERR_VALUE, "dropout should be a number in range [0, 1] representing the probability of an "
                               "element being zeroed");
        return NULL;
    }
    if (o.proj_size < 0) {
        ct__fail(CT_ERR_VALUE, "proj_size should be a positive integer or zero to disable projections");
        return NULL;
    }
    if (o.proj_size >= hidden_size) { /* also what PyTorch 1.13 says to a hidden_size of 0 */
        ct__fail(CT_ERR_VALUE, "proj_size has to be smaller than hidden_size");
        return NULL;
    }
    if (o.num_layers <= 0) { /* PyTorch 1.13 fails later, at the first call; these are PyTorch 2's words */
        ct__fail(CT_ERR_VALUE, "num_layers must be greater than zero");
        return NULL;
    }
    return ct__rnn_new(mode, false, input_size, hidden_size, o);
}

ct_module *ct_nn_rnn(int64_t input_size, int64_t hidden_size, ct_rnn_opts opts)
{
    const char *nl = opts.nonlinearity ? opts.nonlinearity : "tanh";
    if (opts.proj_size == 0 && strcmp(nl, "tanh") && strcmp(nl, "relu")) { /* proj_size is refused first */
        ct__fail(CT_ERR_VALUE, "Unknown nonlinearity '%s'", nl);
        return NULL;
    }
    return ct__rnn_module(strcmp(nl, "relu") ? CT__RNN_TANH : CT__RNN_RELU, input_size, hidden_size, opts);
}

ct_module *ct_nn_lstm(int64_t input_size, int64_t hidden_size, ct_rnn_opts opts)
{
    return ct__rnn_module(CT__RNN_LSTM, input_size, hidden_size, opts);
}

ct_module *ct_nn_gru(int64_t input_size, int64_t hidden_size, ct_rnn_opts opts)
{
    return ct__rnn_module(CT__RNN_GRU, input_size, hidden_size, opts);
}

static ct_module *ct__cell_module(int mode, int64_t input_size, int64_t hidden_size, bool bias)
{
    ct_rnn_opts o = ct_rnn_opts_init();
    o.bias = bias;
    return ct__rnn_new(mode, true, input_size, hidden_size, o);
}

ct_module *ct_nn_rnn_cell(int64_t input_size, int64_t hidden_size, bool bias, const char *nonlinearity)
{
    const char *nl = nonlinearity ? nonlinearity : "tanh";
    if (strcmp(nl, "tanh") && strcmp(nl, "relu")) { /* PyTorch says it at the first call */
        ct__fail(CT_ERR_RUNTIME, "Unknown nonlinearity: %s", nl);
        return NULL;
    }
    return ct__cell_module(strcmp(nl, "relu") ? CT__RNN_TANH : CT__RNN_RELU, input_size, hidden_size, bias);
}

ct_module *ct_nn_lstm_cell(int64_t input_size, int64_t hidden_size, bool bias)
{
    return ct__cell_module(CT__RNN_LSTM, input_size, hidden_size, bias);
}

ct_module *ct_nn_gru_cell(int64_t input_size, int64_t hidden_size, bool bias)
{
    return ct__cell_module(CT__RNN_GRU, input_size, hidden_size, bias);
}
