/* Bad input to the recurrent layers and their cells: PyTorch's words (the
 * checks of RNNBase, its subclasses and aten's cell checks), the program
 * keeps running, nothing is left half made and no state is written. */
#include "errors.h"

static void test_messages(void)
{
    ct_scope s = ct_scope_begin();
    ct_rnn_opts o = ct_rnn_opts_init();
    /* construction */
    o.nonlinearity = "sigmoid";
    FAILS_T(ct_nn_rnn(4, 3, o), CT_ERR_VALUE, "Unknown nonlinearity 'sigmoid'");
    o.proj_size = 2;
    FAILS_T(ct_nn_rnn(4, 3, o), CT_ERR_VALUE, "proj_size argument is only supported for LSTM, not RNN or GRU");
    o = ct_rnn_opts_init();
    o.proj_size = 2;
    FAILS_T(ct_nn_gru(4, 3, o), CT_ERR_VALUE, "proj_size argument is only supported for LSTM, not RNN or GRU");
    o.proj_size = 3;
    FAILS_T(ct_nn_lstm(4, 3, o), CT_ERR_VALUE, "proj_size has to be smaller than hidden_size");
    o.proj_size = -1;
    FAILS_T(ct_nn_lstm(4, 3, o), CT_ERR_VALUE, "proj_size should be a positive integer or zero to disable projections");
    o = ct_rnn_opts_init();
    FAILS_T(ct_nn_lstm(4, 0, o), CT_ERR_VALUE, "proj_size has to be smaller than hidden_size");
    o.dropout = 1.5;
    FAILS_T(ct_nn_gru(4, 3, o), CT_ERR_VALUE,
            "dropout should be a number in range [0, 1] representing the probability of an element being zeroed");
    o.dropout = NAN;
    FAILS_T(ct_nn_gru(4, 3, o), CT_ERR_VALUE,
            "dropout should be a number in range [0, 1] representing the probability of an element being zeroed");
    o = ct_rnn_opts_init();
    o.num_layers = 0;
    FAILS_T(ct_nn_rnn(4, 3, o), CT_ERR_VALUE, "num_layers must be greater than zero");
    FAILS_T(ct_nn_rnn(-1, 3, ct_rnn_opts_init()), CT_ERR_RUNTIME,
            "Trying to create tensor with negative dimension -1: [3, -1]");
    FAILS_T(ct_nn_rnn_cell(4, 3, true, "sigmoid"), CT_ERR_RUNTIME, "Unknown nonlinearity: sigmoid");
    FAILS_T(ct_nn_gru_cell(4, -1, true), CT_ERR_RUNTIME, "Trying to create tensor with negative dimension -3: [-3, 4]");

    /* RNN.forward */
    o = ct_rnn_opts_init();
    o.num_layers = 2;
    ct_module *rnn = ct_nn_rnn(4, 3, o), *lstm = ct_nn_lstm(4, 3, o);
    ct_tensor *x = ct_randn(CT_SHAPE(5, 2, 4), CT_F32, NULL), *hn = NULL, *cn = NULL;
    FAILS_T(ct_rnn_forward(rnn, ct_randn(CT_SHAPE(5, 2, 3), CT_F32, NULL), NULL, &hn), CT_ERR_RUNTIME,
            "input.size(-1) must be equal to input_size. Expected 4, got 3");
    CHECK(hn == NULL);
    FAILS_T(ct_rnn_forward(rnn, x, ct_randn(CT_SHAPE(1, 2, 3), CT_F32, NULL), &hn), CT_ERR_RUNTIME,
            "Expected hidden size (2, 2, 3), got [1, 2, 3]");
    FAILS_T(ct_rnn_forward(rnn, x, ct_randn(CT_SHAPE(2, 3), CT_F32, NULL), &hn), CT_ERR_RUNTIME,
            "For batched 3-D input, hx should also be 3-D but got 2-D tensor");
    FAILS_T(ct_rnn_forward(rnn, ct_randn(CT_SHAPE(5, 4), CT_F32, NULL), ct_randn(CT_SHAPE(2, 1, 3), CT_F32, NULL), &hn),
            CT_ERR_RUNTIME, "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor");
    FAILS_T(ct_rnn_forward(rnn, ct_randn(CT_SHAPE(4), CT_F32, NULL), NULL, &hn), CT_ERR_RUNTIME,
            "input must have 3 dimensions, got 2");
    FAILS_T(ct_rnn_forward(rnn, ct_randn(CT_SHAPE(5, 2, 1, 4), CT_F32, NULL), NULL, &hn), CT_ERR_RUNTIME,
            "input must have 3 dimensions, got 5");
    FAILS_T(ct_rnn_forward(rnn, ct_randn(CT_SHAPE(0, 2, 4), CT_F32, NULL), NULL, &hn), CT_ERR_RUNTIME,
            "Expected sequence length to be larger than 0 in RNN");
    FAILS_T(ct_rnn_forward(rnn, ct_randn(CT_SHAPE(5, 2, 4), CT_F64, NULL), NULL, &hn), CT_ERR_RUNTIME,
            "mat1 and mat2 must have the same dtype");
    FAILS_T(ct_rnn_forward(rnn, ct_randn(CT_SHAPE(0, 2, 4), CT_F64, NULL), NULL, &hn), CT_ERR_RUNTIME,
            "mat1 and mat2 must have the same dtype");
    FAILS_T(ct_rnn_forward(rnn, x, ct_randn(CT_SHAPE(2, 2, 3), CT_F64, NULL), &hn), CT_ERR_RUNTIME,
            "mat1 and mat2 must have the same dtype");
    FAILS_T(ct_rnn_forward(rnn, ct_scalar_tensor(ct_float(1), CT_F32), NULL, &hn), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    FAILS_T(ct_rnn_forward(lstm, x, NULL, &hn), CT_ERR_TYPE, "ct_rnn_forward: expected an RNN or GRU module, got LSTM");
    FAILS_T(ct_rnn_forward(NULL, x, NULL, &hn), CT_ERR_TYPE, "ct_rnn_forward: the module is NULL");
    FAILS_T(ct_rnn_forward(rnn, NULL, NULL, &hn), CT_ERR_TYPE, "rnn_forward(): argument 'input' (position 2) must be Tensor, not NULL");
    FAILS_T(ct_forward_n(rnn, (ct_tensor *[]){x, x, x}, 3), CT_ERR_TYPE,
            "RNN.forward() takes 3 positional arguments but 4 were given");

    /* LSTM.forward */
    ct_tensor *h = ct_randn(CT_SHAPE(2, 2, 3), CT_F32, NULL);
    FAILS_T(ct_lstm_forward(lstm, x, h, ct_randn(CT_SHAPE(2, 2, 4), CT_F32, NULL), &hn, &cn), CT_ERR_RUNTIME,
            "Expected hidden[1] size (2, 2, 3), got [2, 2, 4]");
    FAILS_T(ct_lstm_forward(lstm, x, ct_randn(CT_SHAPE(2, 3, 3), CT_F32, NULL), h, &hn, &cn), CT_ERR_RUNTIME,
            "Expected hidden[0] size (2, 2, 3), got [2, 3, 3]");
    FAILS_T(ct_lstm_forward(lstm, x, ct_randn(CT_SHAPE(2, 3), CT_F32, NULL), h, &hn, &cn), CT_ERR_RUNTIME,
            "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 3-D) tensors");
    FAILS_T(ct_lstm_forward(lstm, ct_randn(CT_SHAPE(5, 4), CT_F32, NULL), h, h, &hn, &cn), CT_ERR_RUNTIME,
            "For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 3-D) tensors");
    FAILS_T(ct_lstm_forward(lstm, x, h, NULL, &hn, &cn), CT_ERR_TYPE,
            "LSTM.forward(): give h_0 and c_0 together (hx is the tuple (h_0, c_0))");
    FAILS_T(ct_forward_n(lstm, (ct_tensor *[]){x, h}, 2), CT_ERR_TYPE,
            "LSTM.forward(): give h_0 and c_0 together (hx is the tuple (h_0, c_0))");
    FAILS_T(ct_lstm_forward(rnn, x, NULL, NULL, &hn, &cn), CT_ERR_TYPE, "ct_lstm_forward: expected an LSTM module, got RNN");
    CHECK(hn == NULL && cn == NULL);

    /* the cells */
    ct_module *rc = ct_nn_rnn_cell(4, 3, true, NULL), *lc = ct_nn_lstm_cell(4, 3, true), *gc = ct_nn_gru_cell(4, 3, true);
    FAILS_T(ct_forward(rc, ct_randn(CT_SHAPE(2, 5), CT_F32, NULL)), CT_ERR_RUNTIME,
            "input has inconsistent input_size: got 5 expected 4");
    FAILS_T(ct_forward_n(rc, (ct_tensor *[]){ct_randn(CT_SHAPE(2, 4), CT_F32, NULL), ct_randn(CT_SHAPE(3, 3), CT_F32, NULL)}, 2),
            CT_ERR_RUNTIME, "Input batch size 2 doesn't match hidden0 batch size 3");
    FAILS_T(ct_forward_n(gc, (ct_tensor *[]){ct_randn(CT_SHAPE(2, 4), CT_F32, NULL), ct_randn(CT_SHAPE(2, 5), CT_F32, NULL)}, 2),
            CT_ERR_RUNTIME, "hidden0 has inconsistent hidden_size: got 5, expected 3");
    FAILS_T(ct_forward_n(rc, (ct_tensor *[]){ct_randn(CT_SHAPE(4), CT_F32, NULL), ct_randn(CT_SHAPE(2, 3), CT_F32, NULL)}, 2),
            CT_ERR_RUNTIME, "hidden0 has inconsistent hidden_size: got 2, expected 3");
    FAILS_T(ct_forward(gc, ct_randn(CT_SHAPE(2, 2, 4), CT_F32, NULL)), CT_ERR_RUNTIME,
            "GRUCell: Expected input to be 1-D or 2-D but received 3-D tensor");
    FAILS_T(ct_forward(rc, ct_randn(CT_SHAPE(2, 4), CT_F64, NULL)), CT_ERR_RUNTIME,
            "mat1 and mat2 must have the same dtype");
    ct_tensor *x2 = ct_randn(CT_SHAPE(2, 4), CT_F32, NULL), *c1 = NULL;
    FAILS_T(ct_lstm_cell_forward(lc, x2, ct_randn(CT_SHAPE(2, 3), CT_F32, NULL), ct_randn(CT_SHAPE(2, 4), CT_F32, NULL), &c1),
            CT_ERR_RUNTIME, "hidden0 has inconsistent hidden_size: got 4, expected 3");
    FAILS_T(ct_lstm_cell_forward(lc, x2, ct_randn(CT_SHAPE(2, 3), CT_F32, NULL), ct_randn(CT_SHAPE(1, 3), CT_F32, NULL), &c1),
            CT_ERR_RUNTIME, "Input batch size 2 doesn't match hidden0 batch size 1");
    FAILS_T(ct_lstm_cell_forward(gc, x2, NULL, NULL, &c1), CT_ERR_TYPE,
            "ct_lstm_cell_forward: expected an LSTMCell module, got GRUCell");
    CHECK(c1 == NULL);
    /* the functions */
    ct_tensor *w_ih = ct_randn(CT_SHAPE(3, 4), CT_F32, NULL), *w_hh = ct_randn(CT_SHAPE(3, 3), CT_F32, NULL);
    FAILS_T(ct_rnn_tanh_cell(ct_randn(CT_SHAPE(4), CT_F32, NULL), ct_randn(CT_SHAPE(2, 3), CT_F32, NULL), w_ih, w_hh, NULL, NULL),
            CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    FAILS_T(ct_rnn_tanh_cell(x2, NULL, w_ih, w_hh, NULL, NULL), CT_ERR_TYPE,
            "rnn_tanh_cell(): argument 'hx' (position 2) must be Tensor, not NULL");
    FAILS_T(ct_lstm_cell(x2, x2, x2, w_ih, w_hh, NULL, NULL, NULL), CT_ERR_VALUE,
            "lstm_cell: give cy, where the new cell state goes");
    ct_module *ms[] = {rnn, lstm, rc, lc, gc};
    for (int i = 0; i < 5; i++) ct_module_release(ms[i]);
    ct_scope_end(s);
}


/* NULL arguments, the first error kept along a chain, and nothing written by a failed call. */
static void test_null_and_untouched(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *x = ct_randn(CT_SHAPE(2, 4), CT_F32, NULL), *h = ct_randn(CT_SHAPE(2, 3), CT_F32, NULL);
    ct_tensor *w_ih = ct_randn(CT_SHAPE(3, 4), CT_F32, NULL), *w_hh = ct_randn(CT_SHAPE(3, 3), CT_F32, NULL);
    ct_tensor *w4_ih = ct_randn(CT_SHAPE(12, 4), CT_F32, NULL), *w4_hh = ct_randn(CT_SHAPE(12, 3), CT_F32, NULL);
    ct_tensor *w3_ih = ct_randn(CT_SHAPE(9, 4), CT_F32, NULL), *w3_hh = ct_randn(CT_SHAPE(9, 3), CT_F32, NULL), *cy;
    FAILS_NULL(ct_rnn_tanh_cell(NULL_T, h, w_ih, w_hh, NULL, NULL), "rnn_tanh_cell(): argument 'input' (position 1)");
    FAILS_NULL(ct_rnn_relu_cell(x, h, NULL_T, w_hh, NULL, NULL), "rnn_relu_cell(): argument 'w_ih' (position 3)");
    FAILS_NULL(ct_gru_cell(x, h, w3_ih, NULL_T, NULL, NULL), "gru_cell(): argument 'w_hh' (position 4)");
    FAILS_NULL(ct_lstm_cell(x, h, NULL_T, w4_ih, w4_hh, NULL, NULL, &cy), "lstm_cell(): argument 'cx' (position 3)");
    CHECK(cy == NULL);
    FAILS_NULL(ct_lstm_cell(x, h, h, w4_ih, NULL_T, NULL, NULL, &cy), "lstm_cell(): argument 'w_hh' (position 5)");
    ct_module *lstm = ct_nn_lstm(4, 3, ct_rnn_opts_init()), *cell = ct_nn_lstm_cell(4, 3, true);
    FAILS_NULL(ct_lstm_forward(lstm, NULL_T, NULL, NULL, NULL, NULL), "lstm_forward(): argument 'input' (position 2)");
    FAILS_NULL(ct_lstm_cell_forward(cell, NULL_T, NULL, NULL, NULL), "lstm_cell_forward(): argument 'input' (position 2)");
    ct_module_release(lstm);
    ct_module_release(cell);
    FAILS_T(ct_lstm_cell_forward(NULL, x, NULL, NULL, NULL), CT_ERR_TYPE, "ct_lstm_cell_forward: the module is NULL");
    /* the first error of a chain is the one kept */
    FAILS_T(ct_gru_cell(ct_view(x, CT_SHAPE(3, 3)), h, w3_ih, w3_hh, NULL, NULL), CT_ERR_RUNTIME,
            "shape '[3, 3]' is invalid for input of size 8");
    /* a bias of the wrong size: addmm's message, nothing written */
    snap sh = snapshot(h), sw = snapshot(w3_hh);
    FAILS_T(ct_gru_cell(x, h, w3_ih, w3_hh, ct_randn(CT_SHAPE(8), CT_F32, NULL), NULL), CT_ERR_RUNTIME,
            "The expanded size of the tensor (9) must match the existing size (8) at non-singleton dimension 1.  "
            "Target sizes: [2, 9].  Tensor sizes: [8]");
    expect_untouched(__LINE__, "gru_cell", sh);
    expect_untouched(__LINE__, "gru_cell", sw);
    /* weights whose gates do not split in four (PyTorch 1.13 crashes) */
    FAILS_T(ct_lstm_cell(x, h, h, ct_randn(CT_SHAPE(6, 4), CT_F32, NULL), ct_randn(CT_SHAPE(6, 3), CT_F32, NULL), NULL,
                         NULL, &cy),
            CT_ERR_RUNTIME, "lstm_cell: the gates have 6 features, which do not split in 4 chunks");
    /* a failed module call changes no parameter and no state it was given */
    ct_rnn_opts o = ct_rnn_opts_init();
    ct_module *gru = ct_nn_gru(4, 3, o);
    ct_tensor *w = ct_module_get_parameter(gru, "weight_hh_l0"), *h0 = ct_randn(CT_SHAPE(1, 2, 3), CT_F32, NULL);
    snap s_w = snapshot(w), s_h0 = snapshot(h0);
    FAILS_T(ct_rnn_forward(gru, ct_randn(CT_SHAPE(5, 3, 4), CT_F32, NULL), h0, NULL), CT_ERR_RUNTIME,
            "Expected hidden size (1, 3, 3), got [1, 2, 3]");
    expect_untouched(__LINE__, "GRU.forward", s_w);
    expect_untouched(__LINE__, "GRU.forward", s_h0);
    ct_module_release(gru);
    ct_scope_end(s);
}

int main(void)
{
    RUN(test_messages);
    RUN(test_null_and_untouched);
    return ct_test_report();
}
