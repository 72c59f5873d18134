/* The recurrent layers: a forward (no grad) and a forward plus backward of
 * nn.LSTM and nn.GRU on a mid-sized sequence (seq 50, batch 32, 256
 * features: the products dominate) and of a small LSTM on a long one
 * (seq 200, batch 4, 32 features: the per-step ops and the graph
 * dominate). stdout: one line per case for bench/run.sh to pair with
 * PyTorch's (bench/rnn.py). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include "bench.h"

typedef struct work {
    ct_module *m;
    ct_tensor *x;
    bool backward;
} work;

static void step(void *p)
{
    work *w = (work *)p;
    ct_scope s = ct_scope_begin();
    ct_tensor *y = ct_forward(w->m, w->x);
    if (w->backward) {
        ct_backward_opts plain = {false, false, NULL, 0};
        ct_backward(ct_sum(y), NULL, plain);
        ct_module_zero_grad(w->m, true);
    }
    ct_scope_end(s);
}

static void run(const char *name, ct_module *m, int64_t seq, int64_t batch, int64_t features)
{
    char label[96];
    work w = {m, ct_keep(ct_randn(CT_SHAPE(seq, batch, features), CT_F32, NULL)), false};
    ct_grad_mode mode = ct_no_grad();
    snprintf(label, sizeof label, "%s_forward_no_grad", name);
    bench_report(label, bench_time(step, &w));
    ct_grad_mode_restore(mode);
    w.backward = true;
    snprintf(label, sizeof label, "%s_forward_backward", name);
    bench_report(label, bench_time(step, &w));
    ct_release(w.x);
    ct_module_release(m);
}

int main(void)
{
    ct_manual_seed(0);
    run("lstm_256_seq50_batch32", ct_nn_lstm(256, 256, ct_rnn_opts_init()), 50, 32, 256);
    run("gru_256_seq50_batch32", ct_nn_gru(256, 256, ct_rnn_opts_init()), 50, 32, 256);
    run("lstm_32_seq200_batch4", ct_nn_lstm(32, 32, ct_rnn_opts_init()), 200, 4, 32);
    return 0;
}
