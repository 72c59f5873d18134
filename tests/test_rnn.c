/* The recurrent layers (nn.RNN, nn.LSTM, nn.GRU) and their cells: the
 * initialisation draw for draw, outputs, final states and every gradient
 * against PyTorch's (tests/golden/gen_rnn.py), names and state_dict,
 * gradcheck and gradgradcheck in float64. Bad input: test_errors_rnn.c. */
#include "harness.h"

/* ---------------------------------------------------------------- golden cases */

/* torch.testing.assert_close's float32 tolerances (rtol 1.3e-6, atol 1e-5):
 * the products run through ctorch's GEMM, which sums in another order than
 * PyTorch's BLAS. float64 cases must agree to 1e-12. */
static void check_close(const char *what, const ct_tensor *t, const ct_tensor *golden_t)
{
    if (!t || !golden_t) {
        ct_test_fail(__FILE__, __LINE__, "%s is NULL: %s", what, ct_last_error());
        return;
    }
    ct_shape a = ct_shape_of(t), b = ct_shape_of(golden_t);
    if (a.ndim != b.ndim || memcmp(a.size, b.size, (size_t)a.ndim * sizeof(int64_t)) ||
        ct_dtype_of(t) != ct_dtype_of(golden_t)) {
        ct_test_fail(__FILE__, __LINE__, "%s: shape or dtype differs from golden's", what);
        return;
    }
    bool f64 = ct_dtype_of(t) == CT_F64;
    double atol = f64 ? 1e-12 : 1e-5, rtol = f64 ? 1e-12 : 1.3e-6;
    int64_t n = ct_numel(t);
    double *x = (double *)malloc((size_t)(n + 1) * sizeof *x), *y = (double *)malloc((size_t)(n + 1) * sizeof *y);
    ct_copy_to_array(t, x, n, CT_F64);
    ct_copy_to_array(golden_t, y, n, CT_F64);
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(x[i] - y[i]) <= atol + rtol * fabs(y[i]))) {
            ct_test_fail(__FILE__, __LINE__, "%s[%lld] (flat) == %.17g, expected %.17g", what, (long long)i, x[i], y[i]);
            break;
        }
    free(x);
    free(y);
}

static const ct_tensor *gold(const char *name, const char *suffix)
{
    char key[160];
    snprintf(key, sizeof key, "%s_%s", name, suffix);
    return golden("rnn", key);
}

/* A case line's options (see gen_rnn.py). */
typedef struct rnn_case {
    const char *name, *module;
    int64_t input_size, hidden_size;
    ct_rnn_opts o;
    bool relu, eval, f64, states;
    uint64_t seed;
} rnn_case;

static rnn_case parse_case(char **f)
{
    rnn_case c;
    memset(&c, 0, sizeof c);
    c.name = f[0];
    c.module = f[1];
    c.input_size = atoll(f[2]);
    c.hidden_size = atoll(f[3]);
    c.o = ct_rnn_opts_init();
    for (char *opt = strtok(f[4], ","); opt; opt = strtok(NULL, ",")) {
        if (!strncmp(opt, "layers=", 7)) c.o.num_layers = atoll(opt + 7);
        else if (!strncmp(opt, "proj=", 5)) c.o.proj_size = atoll(opt + 5);
        else if (!strncmp(opt, "dropout=", 8)) c.o.dropout = atof(opt + 8);
        else if (!strcmp(opt, "relu")) c.relu = true, c.o.nonlinearity = "relu";
        else if (!strcmp(opt, "nobias")) c.o.bias = false;
        else if (!strcmp(opt, "bf")) c.o.batch_first = true;
        else if (!strcmp(opt, "bi")) c.o.bidirectional = true;
        else if (!strcmp(opt, "eval")) c.eval = true;
        else if (!strcmp(opt, "f64")) c.f64 = true;
        else ct_test_fail(__FILE__, __LINE__, "case %s: unknown option %s", c.name, opt);
    }
    c.seed = (uint64_t)atoll(f[5]);
    c.states = atoi(f[6]) != 0;
    return c;
}

static ct_module *make_module(const rnn_case *c)
{
    const char *m = c->module;
    if (!strcmp(m, "RNN")) return ct_nn_rnn(c->input_size, c->hidden_size, c->o);
    if (!strcmp(m, "LSTM")) return ct_nn_lstm(c->input_size, c->hidden_size, c->o);
    if (!strcmp(m, "GRU")) return ct_nn_gru(c->input_size, c->hidden_size, c->o);
    if (!strcmp(m, "RNNCell")) return ct_nn_rnn_cell(c->input_size, c->hidden_size, c->o.bias, c->o.nonlinearity);
    if (!strcmp(m, "LSTMCell")) return ct_nn_lstm_cell(c->input_size, c->hidden_size, c->o.bias);
    return ct_nn_gru_cell(c->input_size, c->hidden_size, c->o.bias);
}

/* A golden input, cloned into a leaf that requires grad. */
static ct_tensor *leaf(const char *name, const char *suffix)
{
    ct_tensor *t = ct_clone(gold(name, suffix));
    if (t) ct_requires_grad_(t, true);
    return t;
}

/* The module's call: outputs into out[0] (output or h'), out[1] (h_n), out[2]
 * (c_n or LSTMCell's c'); returns how many are set. */
static int call_module(ct_module *m, const rnn_case *c, ct_tensor *x, ct_tensor *h0, ct_tensor *c0, ct_tensor **out)
{
    bool lstm = !strncmp(c->module, "LSTM", 4), cell = strstr(c->module, "Cell") != NULL;
    out[1] = out[2] = NULL;
    if (cell && lstm) out[0] = ct_lstm_cell_forward(m, x, h0, c0, &out[2]);
    else if (cell) out[0] = h0 ? ct_forward_n(m, (ct_tensor *[]){x, h0}, 2) : ct_forward(m, x);
    else if (lstm) out[0] = ct_lstm_forward(m, x, h0, c0, &out[1], &out[2]);
    else out[0] = ct_rnn_forward(m, x, h0, &out[1]);
    return 3;
}

static void replay_case(char **fields)
{
    int failed_before = ct_test_failed_checks;
    rnn_case c = parse_case(fields);
    bool lstm = !strncmp(c.module, "LSTM", 4);
    /* the initialisation, bit for bit */
    ct_manual_seed(c.seed);
    ct_module *m = make_module(&c);
    CHECK_T(m);
    if (!m) return;
    ct_tensor_list ps = ct_module_parameters(m, true);
    for (int i = 0; i < ps.n; i++) {
        char suffix[96];
        snprintf(suffix, sizeof suffix, "p_%s", ps.names[i]);
        CHECK_TENSOR(ps.tensors[i], gold(c.name, suffix), 0);
    }
    if (c.f64) CHECK_OK(ct_module_to(m, CT_F64));
    if (c.eval) ct_module_eval(m);
    /* forward */
    ct_tensor *x = leaf(c.name, "x"), *h0 = c.states ? leaf(c.name, "h0") : NULL;
    ct_tensor *c0 = c.states && lstm ? leaf(c.name, "c0") : NULL;
    ct_tensor *out[3];
    ct_manual_seed(c.seed + 1000);
    call_module(m, &c, x, h0, c0, out);
    static const char *const out_names[3] = {"out", "hn", "cn"};
    ct_tensor *loss = NULL;
    for (int k = 0; k < 3; k++) {
        if (!out[k]) continue;
        check_close(out_names[k], out[k], gold(c.name, out_names[k]));
        char g[16];
        snprintf(g, sizeof g, "g_%s", out_names[k]);
        ct_tensor *term = ct_sum(ct_mul(out[k], gold(c.name, g)));
        loss = loss ? ct_add(loss, term) : term;
    }
    CHECK(out[0] && (strstr(c.module, "Cell") || out[1]) && (!lstm || out[2]));
    /* backward: the gradients of the inputs and of every parameter */
    ct_tensor *wrt[64], *grads[64] = {NULL};
    const char *wrt_name[64];
    int n = 0;
    wrt[n] = x, wrt_name[n++] = "gx";
    if (h0) wrt[n] = h0, wrt_name[n++] = "gh0";
    if (c0) wrt[n] = c0, wrt_name[n++] = "gc0";
    char names[64][96];
    for (int i = 0; i < ps.n && n < 64; i++) {
        snprintf(names[n], sizeof names[n], "gp_%s", ps.names[i]);
        wrt[n] = ps.tensors[i], wrt_name[n] = names[n], n++;
    }
    ct_grad_opts go = {false, false, false};
    CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&loss, 1, (const ct_tensor *const *)wrt, n, NULL, grads, go));
    for (int i = 0; i < n; i++) check_close(wrt_name[i], grads[i], gold(c.name, wrt_name[i]));
    ct_tensor_list_free(&ps);
    ct_module_release(m);
    if (ct_test_failed_checks != failed_before) printf("    (in case %s)\n", c.name);
}

static void test_golden_cases(void)
{
    int n = ct_test_each_case("tests/golden/rnn.txt", 7, replay_case);
    CHECK(n >= 30);
}

/* nn.LSTM(16, 32, num_layers=3, bidirectional=True, proj_size=8) after
 * manual_seed(0): every parameter, in PyTorch's order, bit for bit. */
static void test_init(void)
{
    ct_scope s = ct_scope_begin();
    ct_rnn_opts o = ct_rnn_opts_init();
    o.num_layers = 3;
    o.bidirectional = true;
    o.proj_size = 8;
    ct_manual_seed(0);
    ct_module *m = ct_nn_lstm(16, 32, o);
    ct_tensor_list sd = ct_module_state_dict(m);
    CHECK_INT(sd.n, 30);
    for (int i = 0; i < sd.n; i++) {
        char key[96];
        snprintf(key, sizeof key, "init_lstm_big_%s", sd.names[i]);
        CHECK_TENSOR(sd.tensors[i], golden("rnn", key), 0);
    }
    ct_tensor_list_free(&sd);
    ct_module_release(m);
    ct_scope_end(s);
}

/* ---------------------------------------------------------------- names, state_dict, calling */

static void check_names(ct_module *m, const char *const *want, int n)
{
    ct_tensor_list sd = ct_module_state_dict(m);
    CHECK_INT(sd.n, n);
    for (int i = 0; i < sd.n && i < n; i++) CHECK_STR(sd.names[i], want[i]);
    ct_tensor_list_free(&sd);
}

static void test_names(void)
{
    ct_rnn_opts o = ct_rnn_opts_init();
    o.num_layers = 2;
    o.bidirectional = true;
    o.bias = false;
    ct_module *gru = ct_nn_gru(5, 4, o);
    CHECK_STR(ct_module_name(gru), "GRU");
    static const char *const gru_names[] = {"weight_ih_l0", "weight_hh_l0", "weight_ih_l0_reverse", "weight_hh_l0_reverse",
                                            "weight_ih_l1", "weight_hh_l1", "weight_ih_l1_reverse", "weight_hh_l1_reverse"};
    check_names(gru, gru_names, 8);
    /* shapes: the second layer reads both directions of the first */
    ct_shape ws = ct_shape_of(ct_module_get_parameter(gru, "weight_ih_l1_reverse"));
    CHECK(ws.ndim == 2 && ws.size[0] == 12 && ws.size[1] == 8);
    ct_module_release(gru);

    ct_module *cell = ct_nn_lstm_cell(3, 2, false);
    CHECK_STR(ct_module_name(cell), "LSTMCell");
    static const char *const cell_names[] = {"weight_ih", "weight_hh"}; /* the biases are None */
    check_names(cell, cell_names, 2);
    ct_tensor_list ps = ct_module_parameters(cell, true);
    CHECK_INT(ps.n, 2);
    ct_tensor_list_free(&ps);
    CHECK(ct_module_get_parameter(cell, "bias_ih") == NULL && ct_last_error_code() == CT_OK);
    ct_module_release(cell);

    ct_module *rnn = ct_nn_rnn(3, 2, ct_rnn_opts_init()), *rc = ct_nn_rnn_cell(3, 2, true, "relu");
    CHECK_STR(ct_module_name(rnn), "RNN");
    CHECK_STR(ct_module_name(rc), "RNNCell");
    static const char *const rnn_names[] = {"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"};
    check_names(rnn, rnn_names, 4);
    ct_module_release(rnn);
    ct_module_release(rc);
}

/* A state_dict of one LSTM loads into another (made from another seed), after which both compute the same. */
static void test_load_state_dict(void)
{
    ct_scope s = ct_scope_begin();
    ct_rnn_opts o = ct_rnn_opts_init();
    o.num_layers = 2;
    o.bidirectional = true;
    ct_manual_seed(1);
    ct_module *a = ct_nn_lstm(3, 4, o);
    ct_manual_seed(2);
    ct_module *b = ct_nn_lstm(3, 4, o);
    ct_tensor_list sd = ct_module_state_dict(a);
    CHECK_OK(ct_module_load_state_dict(b, &sd, true, NULL));
    ct_tensor_list_free(&sd);
    ct_tensor *x = ct_randn(CT_SHAPE(4, 2, 3), CT_F32, NULL);
    ct_tensor *ha, *ca, *hb, *cb;
    ct_tensor *ya = ct_lstm_forward(a, x, NULL, NULL, &ha, &ca), *yb = ct_lstm_forward(b, x, NULL, NULL, &hb, &cb);
    CHECK(ct_equal(ya, yb) && ct_equal(ha, hb) && ct_equal(ca, cb));
    ct_module_release(a);
    ct_module_release(b);
    ct_scope_end(s);
}

/* ct_forward and ct_forward_n give the output of ct_rnn_forward; hooks see it; unbatched and no_grad calls. */
static ct_tensor *double_output(ct_module *m, ct_tensor *const *in, int n, ct_tensor *out, void *user)
{
    (void)m, (void)in, (void)n;
    ++*(int *)user;
    return ct_mul_scalar(out, ct_int(2));
}

static void test_calling(void)
{
    ct_scope s = ct_scope_begin();
    ct_manual_seed(3);
    ct_rnn_opts o = ct_rnn_opts_init();
    o.num_layers = 2;
    ct_module *gru = ct_nn_gru(3, 4, o), *lstm = ct_nn_lstm(3, 4, o), *cell = ct_nn_lstm_cell(3, 4, true);
    ct_tensor *x = ct_randn(CT_SHAPE(5, 2, 3), CT_F32, NULL), *h0 = ct_randn(CT_SHAPE(2, 2, 4), CT_F32, NULL);
    ct_tensor *c0 = ct_randn(CT_SHAPE(2, 2, 4), CT_F32, NULL), *hn, *cn;
    ct_tensor *y = ct_rnn_forward(gru, x, h0, &hn);
    CHECK(ct_equal(ct_forward_n(gru, (ct_tensor *[]){x, h0}, 2), y));
    CHECK(ct_equal(ct_rnn_forward(gru, x, h0, NULL), y)); /* h_n not wanted */
    /* the last layer's final state is the output's last step */
    CHECK(ct_equal(ct_select(hn, 0, 1), ct_select(y, 0, 4)));
    y = ct_lstm_forward(lstm, x, h0, c0, &hn, &cn);
    CHECK(ct_equal(ct_forward_n(lstm, (ct_tensor *[]){x, h0, c0}, 3), y));
    CHECK(ct_equal(ct_select(hn, 0, 1), ct_select(y, 0, 4)));
    /* an unbatched call is the batched one with a batch of one */
    ct_tensor *x1 = ct_select(x, 1, 0), *h1 = ct_select(h0, 1, 0), *c1 = ct_select(c0, 1, 0), *hn1, *cn1;
    ct_tensor *y1 = ct_lstm_forward(lstm, x1, h1, c1, &hn1, &cn1);
    ct_tensor *yb = ct_lstm_forward(lstm, ct_unsqueeze(x1, 1), ct_unsqueeze(h1, 1), ct_unsqueeze(c1, 1), &hn, &cn);
    CHECK(ct_equal(y1, ct_squeeze_dim(yb, 1)) && ct_equal(hn1, ct_squeeze_dim(hn, 1)) && ct_equal(cn1, ct_squeeze_dim(cn, 1)));
    CHECK_INT(ct_dim(y1), 2);
    /* the cell: h' from ct_forward_n, c' from ct_lstm_cell_forward */
    ct_tensor *c_1, *h_1 = ct_lstm_cell_forward(cell, ct_select(x, 0, 0), NULL, NULL, &c_1);
    CHECK(ct_equal(ct_forward(cell, ct_select(x, 0, 0)), h_1));
    CHECK(c_1 && ct_dim(c_1) == 2 && ct_size(c_1, 1) == 4);
    /* a cell step by step is the one-layer module */
    ct_module *one = ct_nn_lstm(3, 4, ct_rnn_opts_init());
    ct_tensor_list cp = ct_module_parameters(cell, true), op = ct_module_parameters(one, true);
    ct_grad_mode mode = ct_no_grad();
    for (int i = 0; i < 4; i++) CHECK_OK(ct_copy_(op.tensors[i], cp.tensors[i]));
    ct_grad_mode_restore(mode);
    ct_tensor *h = NULL, *c = NULL;
    for (int t = 0; t < 5; t++) h = ct_lstm_cell_forward(cell, ct_select(x, 0, t), h, c, &c);
    ct_tensor *ho;
    ct_tensor *yo = ct_lstm_forward(one, x, NULL, NULL, &ho, NULL);
    CHECK(ct_equal(h, ct_select(yo, 0, 4)) && ct_equal(h, ct_select(ho, 0, 0)));
    ct_tensor_list_free(&cp);
    ct_tensor_list_free(&op);
    /* forward hooks see (and may replace) the output; h_n is still given */
    ct_tensor *hn_plain, *y_plain = ct_rnn_forward(gru, x, h0, &hn_plain);
    int calls = 0;
    ct_hook_handle hk = ct_module_register_forward_hook(gru, double_output, &calls);
    ct_tensor *y2 = ct_rnn_forward(gru, x, h0, &hn);
    CHECK(calls == 1 && ct_equal(y2, ct_mul_scalar(y_plain, ct_int(2))) && ct_equal(hn, hn_plain));
    ct_hook_handle_remove(hk);
    CHECK(ct_equal(ct_rnn_forward(gru, x, h0, NULL), y_plain));
    /* no_grad: nothing recorded */
    ct_requires_grad_(x, true);
    mode = ct_no_grad();
    y = ct_rnn_forward(gru, x, NULL, &hn);
    CHECK(!ct_requires_grad(y) && !ct_requires_grad(hn));
    ct_grad_mode_restore(mode);
    ct_module_release(gru);
    ct_module_release(lstm);
    ct_module_release(cell);
    ct_module_release(one);
    ct_scope_end(s);
}

/* The graph's last nodes carry PyTorch's names. */
static void test_node_names(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *x = ct_randn(CT_SHAPE(5, 2, 3), CT_F32, NULL), *hn;
    ct_requires_grad_(x, true);
    ct_rnn_opts o = ct_rnn_opts_init();
    ct_module *rnn = ct_nn_rnn(3, 4, o);
    o.bidirectional = true;
    ct_module *bi = ct_nn_gru(3, 4, o);
    ct_module *rc = ct_nn_rnn_cell(3, 4, true, NULL), *rr = ct_nn_rnn_cell(3, 4, true, "relu");
    ct_module *lc = ct_nn_lstm_cell(3, 4, true), *gc = ct_nn_gru_cell(3, 4, true);
    ct_tensor *y = ct_rnn_forward(rnn, x, NULL, &hn);
    CHECK_STR(ct_node_name(ct_grad_fn(y)), "StackBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(hn)), "StackBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(ct_rnn_forward(bi, x, NULL, NULL))), "CatBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(ct_rnn_forward(bi, ct_select(x, 1, 0), NULL, &hn))), "SqueezeBackward1");
    CHECK_STR(ct_node_name(ct_grad_fn(hn)), "SqueezeBackward1");
    ct_tensor *x0 = ct_select(x, 0, 0);
    CHECK_STR(ct_node_name(ct_grad_fn(ct_forward(rc, x0))), "TanhBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(ct_forward(rr, x0))), "ReluBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(ct_forward(lc, x0))), "MulBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(ct_forward(gc, x0))), "AddBackward0");
    ct_module *ms[] = {rnn, bi, rc, rr, lc, gc};
    for (int i = 0; i < 6; i++) ct_module_release(ms[i]);
    ct_scope_end(s);
}

/* Dropout between layers draws only in training, and differently each call. */
static void test_dropout(void)
{
    ct_scope s = ct_scope_begin();
    ct_rnn_opts o = ct_rnn_opts_init();
    o.num_layers = 2;
    o.dropout = 0.5;
    ct_module *m = ct_nn_gru(3, 4, o);
    ct_tensor *x = ct_randn(CT_SHAPE(5, 2, 3), CT_F32, NULL);
    ct_tensor *a = ct_forward(m, x), *b = ct_forward(m, x);
    CHECK(!ct_equal(a, b));
    ct_module_eval(m);
    ct_tensor *c = ct_forward(m, x), *d = ct_forward(m, x);
    CHECK(ct_equal(c, d));
    ct_module_release(m);
    ct_scope_end(s);
}

/* ---------------------------------------------------------------- gradcheck */

typedef struct gc_case {
    const char *name;
    ct_module *m;
    int mode; /* 0 module with states, 1 rnn_tanh_cell, 2 rnn_relu_cell, 3 gru_cell, 4 lstm_cell */
    int n_states;
    bool bias; /* the cells: whether the biases are among the inputs */
} gc_case;

/* Inputs: x, the states, then the module's parameters (perturbed in place by gradcheck). */
static int gc_fn(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    const gc_case *c = (const gc_case *)user;
    (void)n; /* gradgradcheck passes more inputs (the outputs' gradients) after ours */
    ct_tensor *b_ih = c->bias ? in[c->mode == 4 ? 5 : 4] : NULL, *b_hh = c->bias ? in[c->mode == 4 ? 6 : 5] : NULL;
    switch (c->mode) {
    case 1: out[0] = ct_rnn_tanh_cell(in[0], in[1], in[2], in[3], b_ih, b_hh); return out[0] ? 1 : -1;
    case 2: out[0] = ct_rnn_relu_cell(in[0], in[1], in[2], in[3], b_ih, b_hh); return out[0] ? 1 : -1;
    case 3: out[0] = ct_gru_cell(in[0], in[1], in[2], in[3], b_ih, b_hh); return out[0] ? 1 : -1;
    case 4: out[0] = ct_lstm_cell(in[0], in[1], in[2], in[3], in[4], b_ih, b_hh, &out[1]); return out[0] ? 2 : -1;
    default: break;
    }
    if (c->n_states == 2) {
        out[0] = ct_lstm_forward(c->m, in[0], in[1], in[2], &out[1], &out[2]);
        return out[0] ? 3 : -1;
    }
    out[0] = ct_rnn_forward(c->m, in[0], in[1], &out[1]);
    return out[0] ? 2 : -1;
}

static void run_gradcheck(gc_case *c, ct_tensor **in, int n, bool gradgrad)
{
    ct_gradcheck_opts o = ct_gradcheck_opts_init();
    ct_result r1 = ct_gradcheck(gc_fn, in, n, c, o);
    if (r1 != CT_OK) printf("    %s: %s\n", c->name, ct_last_error());
    ct_clear_error();
    ct_result r2 = gradgrad ? ct_gradgradcheck(gc_fn, in, n, c, o) : CT_OK;
    if (r2 != CT_OK) printf("    %s (gradgrad): %s\n", c->name, ct_last_error());
    ct_clear_error();
    CHECK(r1 == CT_OK && r2 == CT_OK);
}

static ct_tensor *rand64(ct_shape shape)
{
    ct_tensor *t = ct_randn(shape, CT_F64, NULL);
    ct_requires_grad_(t, true);
    return t;
}

/* A float64 module under gradcheck with respect to x, its initial states and all its parameters. */
static void gradcheck_module(const char *name, ct_module *m, ct_shape x, ct_shape h, ct_shape c, bool gradgrad)
{
    ct_scope s = ct_scope_begin();
    CHECK_OK(ct_module_to(m, CT_F64));
    gc_case gc = {name, m, 0, c.ndim ? 2 : 1, true};
    ct_tensor *in[64];
    int n = 0;
    in[n++] = rand64(x);
    in[n++] = rand64(h);
    if (c.ndim) in[n++] = rand64(c);
    ct_tensor_list ps = ct_module_parameters(m, true);
    for (int i = 0; i < ps.n && n < 64; i++) in[n++] = ps.tensors[i];
    run_gradcheck(&gc, in, n, gradgrad);
    ct_tensor_list_free(&ps);
    ct_module_release(m);
    ct_scope_end(s);
}

static void test_gradcheck(void)
{
    ct_manual_seed(5);
    ct_rnn_opts o = ct_rnn_opts_init();
    o.num_layers = 2;
    o.bidirectional = true;
    o.batch_first = true;
    gradcheck_module("rnn_tanh_2l_bi_bf", ct_nn_rnn(2, 3, o), CT_SHAPE(2, 3, 2), CT_SHAPE(4, 2, 3), CT_SHAPE0, false);
    o.batch_first = false;
    o.proj_size = 2;
    gradcheck_module("lstm_2l_bi_proj", ct_nn_lstm(2, 3, o), CT_SHAPE(3, 2, 2), CT_SHAPE(4, 2, 2), CT_SHAPE(4, 2, 3),
                     false);
    o.proj_size = 0;
    gradcheck_module("gru_2l_bi_unbatched", ct_nn_gru(2, 3, o), CT_SHAPE(3, 2), CT_SHAPE(4, 3), CT_SHAPE0, false);
    ct_rnn_opts one = ct_rnn_opts_init();
    one.nonlinearity = "relu";
    gradcheck_module("rnn_relu", ct_nn_rnn(2, 3, one), CT_SHAPE(3, 2, 2), CT_SHAPE(1, 2, 3), CT_SHAPE0, true);
    gradcheck_module("lstm", ct_nn_lstm(2, 2, ct_rnn_opts_init()), CT_SHAPE(3, 2, 2), CT_SHAPE(1, 2, 2),
                     CT_SHAPE(1, 2, 2), true);
    gradcheck_module("gru", ct_nn_gru(2, 2, ct_rnn_opts_init()), CT_SHAPE(3, 1, 2), CT_SHAPE(1, 1, 2), CT_SHAPE0, true);

    /* the cells as functions, with and without biases, and their double backward */
    static const char *const names[] = {"", "rnn_tanh_cell", "rnn_relu_cell", "gru_cell", "lstm_cell",
                                        "rnn_tanh_cell without biases", "rnn_relu_cell without biases",
                                        "gru_cell without biases", "lstm_cell without biases"};
    for (int mode = 1; mode <= 4; mode++)
        for (int bias = 0; bias < 2; bias++) {
            ct_scope s = ct_scope_begin();
            int64_t g = mode == 3 ? 3 : mode == 4 ? 4 : 1, hs = 3;
            gc_case gc = {bias ? names[mode] : names[mode + 4], NULL, mode, 0, bias != 0};
            ct_tensor *in[7];
            int n = 0;
            in[n++] = rand64(CT_SHAPE(2, 4));
            in[n++] = rand64(CT_SHAPE(2, hs));
            if (mode == 4) in[n++] = rand64(CT_SHAPE(2, hs));
            in[n++] = rand64(CT_SHAPE(g * hs, 4));
            in[n++] = rand64(CT_SHAPE(g * hs, hs));
            if (bias) {
                in[n++] = rand64(CT_SHAPE(g * hs));
                in[n++] = rand64(CT_SHAPE(g * hs));
            }
            run_gradcheck(&gc, in, n, true);
            ct_scope_end(s);
        }
}

int main(void)
{
    RUN_CPU_DRAWS(test_golden_cases);
    RUN_CPU_DRAWS(test_init);
    RUN(test_names);
    RUN(test_load_state_dict);
    RUN(test_calling);
    RUN(test_node_names);
    RUN(test_dropout);
    RUN(test_gradcheck);
    return ct_test_report();
}
