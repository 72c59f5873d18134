/* Autograd: the engine (order, accumulation, retain_graph, create_graph,
 * captures, hooks, errors) on small graphs whose gradients are known. */
#include "errors.h"
#include "../examples/digits.h"

#include <pthread.h>

static ct_tensor *leaf(const float *v, int64_t n)
{
    ct_tensor *t = ct_from_array(v, CT_SHAPE(n), CT_F32);
    ct_requires_grad_(t, true);
    return t;
}

static const ct_backward_opts plain = {false, false, NULL, 0};

static void test_simple_gradients(void)
{
    ct_tensor *x = leaf((float[]){1, 2, 3}, 3), *w = leaf((float[]){4, 5, 6}, 3);
    ct_tensor *y = ct_mul(x, w); /* y = x * w, then sum via a dot with ones */
    CHECK_STR(ct_node_name(ct_grad_fn(y)), "MulBackward0");
    CHECK(!ct_is_leaf(y) && ct_is_leaf(x) && ct_requires_grad(y));
    CHECK_OK(ct_backward(y, ct_ones(CT_SHAPE(3), CT_F32), plain));
    CHECK_VALUES(ct_grad(x), CT_SHAPE(3), 4, 5, 6);
    CHECK_VALUES(ct_grad(w), CT_SHAPE(3), 1, 2, 3);
    CHECK(ct_grad(y) == NULL);
}

static void test_accumulation_and_broadcast(void)
{
    ct_tensor *x = leaf((float[]){1, 2}, 2);
    ct_tensor *b = ct_from_array((float[]){1, 1, 1, 1, 1, 1}, CT_SHAPE(3, 2), CT_F32);
    ct_requires_grad_(b, true);
    ct_tensor *y = ct_add(ct_mul_scalar(x, ct_int(2)), b); /* x broadcast over 3 rows */
    CHECK_OK(ct_backward(y, ct_ones(CT_SHAPE(3, 2), CT_F32), plain));
    CHECK_VALUES(ct_grad(x), CT_SHAPE(2), 6, 6);
    CHECK_VALUES(ct_grad(b), CT_SHAPE(3, 2), 1, 1, 1, 1, 1, 1);
    ct_tensor *z = ct_mul(x, x); /* a second backward accumulates: d(x^2) = 2x */
    CHECK_OK(ct_backward(z, ct_ones(CT_SHAPE(2), CT_F32), plain));
    CHECK_VALUES(ct_grad(x), CT_SHAPE(2), 8, 10);
}

/* .grad's strides as PyTorch's gradient layout contract makes them */
static void check_grad_strides(ct_tensor *x, ct_tensor *y, ct_backward_opts o, ct_shape want)
{
    ct_tensor *l = ct_detach(x);
    ct_requires_grad_(l, true);
    CHECK_OK(ct_backward(ct_sum(y ? ct_mul(l, y) : ct_mul(l, l)), NULL, o));
    ct_shape got = ct_strides_of(ct_grad(l));
    CHECK(got.ndim == want.ndim && !memcmp(got.size, want.size, sizeof(int64_t) * (size_t)want.ndim));
    CHECK_OK(ct_set_grad(l, NULL)); /* under create_graph .grad's graph holds l: a cycle */
}

/* A leaf's .grad takes the leaf's strides when the leaf is dense (a
 * transpose, a permutation), else is contiguous (a slice with steps, an
 * expansion); the copy is recorded under create_graph (CopyBackwards). */
static void test_grad_layout_contract(void)
{
    ct_backward_opts graph = {false, true, NULL, 0};
    ct_tensor *m = ct_t(ct_ones(CT_SHAPE(4, 3), CT_F32));
    check_grad_strides(m, NULL, plain, CT_SHAPE(1, 3));
    check_grad_strides(m, ct_full(CT_SHAPE(3, 4), ct_int(2), CT_F32), plain, CT_SHAPE(1, 3)); /* a contiguous grad */
    check_grad_strides(m, NULL, graph, CT_SHAPE(1, 3));
    check_grad_strides(ct_permute(ct_ones(CT_SHAPE(2, 3, 4), CT_F32), CT_SHAPE(2, 0, 1)), NULL, plain, CT_SHAPE(1, 12, 4));
    check_grad_strides(ct_index(ct_ones(CT_SHAPE(4, 6), CT_F32), ":, ::2"), NULL, plain, CT_SHAPE(3, 1));
    check_grad_strides(ct_expand(ct_ones(CT_SHAPE(3, 1), CT_F32), CT_SHAPE(3, 4)), NULL, plain, CT_SHAPE(4, 1));
    check_grad_strides(ct_ones(CT_SHAPE(3, 4), CT_F32), ct_t(ct_ones(CT_SHAPE(4, 3), CT_F32)), plain, CT_SHAPE(4, 1));
    ct_tensor *l = ct_detach(m);
    ct_requires_grad_(l, true);
    CHECK_OK(ct_backward(ct_sum(ct_mul(l, l)), NULL, graph));
    CHECK_STR(ct_node_name(ct_grad_fn(ct_grad(l))), "torch::autograd::CopyBackwards");
    CHECK_OK(ct_backward(ct_sum(ct_mul_scalar(l, ct_int(3))), NULL, plain)); /* accumulated in place: strides kept */
    CHECK_VALUES(ct_grad(l), CT_SHAPE(3, 4), 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5);
    CHECK(ct_stride(ct_grad(l), 0) == 1 && ct_stride(ct_grad(l), 1) == 3);
    CHECK_OK(ct_set_grad(l, NULL));
}

static void test_diamond_and_shared_leaf(void)
{
    /* y = exp(x) * exp(x) + x: dy/dx = 2 exp(2x) + 1 */
    ct_tensor *x = leaf((float[]){0.5f}, 1);
    ct_tensor *e = ct_exp(x);
    ct_tensor *y = ct_add(ct_mul(e, e), x);
    CHECK_OK(ct_backward(y, NULL, plain));
    CHECK_NEAR(ct_item(ct_grad(x)), 2 * exp(1.0) + 1, 1e-5);
}

static void test_errors_in_backward(void)
{
    ct_tensor *x = leaf((float[]){1, 2, 3}, 3);
    CHECK_FAILS(ct_backward(ct_mul_scalar(x, ct_int(2)), NULL, plain), CT_ERR_RUNTIME,
                "grad can be implicitly created only for scalar outputs");
    CHECK_FAILS(ct_backward(ct_ones(CT_SHAPE(1), CT_F32), NULL, plain), CT_ERR_RUNTIME,
                "element 0 of tensors does not require grad and does not have a grad_fn");
    ct_tensor *y = ct_exp(ct_mul(x, x));
    CHECK_OK(ct_backward(y, ct_ones(CT_SHAPE(3), CT_F32), plain));
    CHECK_FAILS(ct_backward(y, ct_ones(CT_SHAPE(3), CT_F32), plain), CT_ERR_RUNTIME,
                "Trying to backward through the graph a second time");
    CHECK_FAILS(ct_backward(ct_mul_scalar(x, ct_int(2)), ct_ones(CT_SHAPE(2), CT_F32), plain), CT_ERR_RUNTIME,
                "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a shape of torch.Size([3]).");
    CHECK_FAILS(ct_add_scalar_(x, ct_int(1)), CT_ERR_RUNTIME,
                "a leaf Variable that requires grad is being used in an in-place operation.");
    /* an in-place write to a saved tensor is caught */
    ct_tensor *z = ct_exp(x), *w = ct_mul_scalar(z, ct_int(1));
    (void)w;
    ct_tensor *s = ct_exp(z);
    ct_grad_mode m = ct_no_grad();
    CHECK_OK(ct_add_scalar_(z, ct_int(1)));
    ct_grad_mode_restore(m);
    CHECK_FAILS(ct_backward(s, ct_ones(CT_SHAPE(3), CT_F32), plain), CT_ERR_RUNTIME,
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                "[torch.FloatTensor [3]], which is output 0 of ExpBackward0, is at version 1; expected version 0 instead.");
}

static void test_retain_graph(void)
{
    ct_tensor *x = leaf((float[]){2}, 1);
    ct_tensor *y = ct_exp(x);
    ct_backward_opts keep = {true, false, NULL, 0};
    CHECK_OK(ct_backward(y, NULL, keep));
    CHECK_OK(ct_backward(y, NULL, plain));
    CHECK_NEAR(ct_item(ct_grad(x)), 2 * exp(2.0), 1e-4);
}

static void test_autograd_grad_and_unused(void)
{
    ct_tensor *a = leaf((float[]){1, 2}, 2), *b = leaf((float[]){3, 4}, 2);
    ct_tensor *y = ct_mul_scalar(a, ct_int(2));
    const ct_tensor *ins[2] = {a, b};
    ct_tensor *g[2];
    ct_grad_opts o = {false, false, false};
    CHECK_FAILS(ct_autograd_grad((const ct_tensor *[]){y}, 1, ins, 2, (const ct_tensor *[]){ct_ones(CT_SHAPE(2), CT_F32)},
                                 g, o),
                CT_ERR_RUNTIME, "One of the differentiated Tensors appears to not have been used in the graph.");
    o.allow_unused = true;
    y = ct_mul_scalar(a, ct_int(2));
    CHECK_OK(ct_autograd_grad((const ct_tensor *[]){y}, 1, ins, 2, (const ct_tensor *[]){ct_ones(CT_SHAPE(2), CT_F32)},
                              g, o));
    CHECK_VALUES(g[0], CT_SHAPE(2), 2, 2);
    CHECK(g[1] == NULL);
    CHECK(ct_grad(a) == NULL); /* grad() leaves .grad alone */
}

static void test_double_backward(void)
{
    /* y = x^3 written as x*x*x: dy/dx = 3x^2, d2y/dx2 = 6x */
    ct_tensor *x = leaf((float[]){2}, 1);
    ct_tensor *y = ct_mul(ct_mul(x, x), x);
    ct_tensor *g1;
    ct_grad_opts o = {false, true, false};
    CHECK_OK(ct_autograd_grad((const ct_tensor *[]){y}, 1, (const ct_tensor *[]){x}, 1, NULL, &g1, o));
    CHECK_NEAR(ct_item(g1), 12, 1e-5);
    CHECK(ct_requires_grad(g1));
    CHECK_OK(ct_backward(g1, NULL, plain));
    CHECK_NEAR(ct_item(ct_grad(x)), 12, 1e-5);
}

static ct_tensor *double_it(ct_tensor *grad, void *user)
{
    *(int *)user += 1;
    return ct_retain(ct_mul_scalar(grad, ct_int(2)));
}

static ct_tensor *count_grad(ct_tensor *grad, void *user)
{
    (void)grad;
    *(int *)user += 1;
    return NULL;
}

static ct_tensor *randn_leaf(ct_shape shape)
{
    ct_tensor *t = ct_randn(shape, CT_F32, NULL);
    ct_requires_grad_(t, true);
    return t;
}

/* A node computes only the input gradients its run needs (PyTorch's should_compute_output): its
 * hook sees one gradient per input computed, as PyTorch's Node.register_hook sees the others as None
 * (conv: [True, True, False] for grad(y, [b]); mm: [True, False] for grad(z, [c])). */
static void test_node_computes_only_needed_grads(void)
{
    ct_tensor *x = randn_leaf(CT_SHAPE(2, 1, 5, 5)), *w = randn_leaf(CT_SHAPE(3, 1, 3, 3)), *b = randn_leaf(CT_SHAPE(3));
    ct_tensor *y = ct_sum(ct_conv2d(x, w, b, (ct_conv_opts){0})), *g[2];
    int calls = 0, nr;
    CHECK(ct_node_register_hook(ct_node_next(ct_grad_fn(y), 0, &nr), count_grad, &calls) > 0);
    const ct_grad_opts keep = {.retain_graph = true};
    CHECK_OK(ct_autograd_grad((const ct_tensor *[]){y}, 1, (const ct_tensor *[]){b}, 1, NULL, g, keep));
    CHECK_INT(calls, 1);
    CHECK_VALUES(g[0], CT_SHAPE(3), 18, 18, 18); /* each bias entry reaches 3 x 3 outputs of 2 images */
    CHECK_OK(ct_autograd_grad((const ct_tensor *[]){y}, 1, (const ct_tensor *[]){x, w}, 2, NULL, g, keep));
    CHECK_INT(calls, 3);
    CHECK_OK(ct_backward(y, NULL, (ct_backward_opts){.retain_graph = true, .inputs = (const ct_tensor *[]){w}, .n_inputs = 1}));
    CHECK_INT(calls, 4);
    CHECK(ct_grad(x) == NULL && ct_grad(b) == NULL && ct_grad(w) != NULL);
    CHECK_OK(ct_backward(y, NULL, (ct_backward_opts){0}));
    CHECK_INT(calls, 7);
    ct_tensor *a = randn_leaf(CT_SHAPE(3, 4)), *c = randn_leaf(CT_SHAPE(4, 2)), *z = ct_sum(ct_mm(a, c));
    calls = 0;
    CHECK(ct_node_register_hook(ct_node_next(ct_grad_fn(z), 0, &nr), count_grad, &calls) > 0);
    CHECK_OK(ct_autograd_grad((const ct_tensor *[]){z}, 1, (const ct_tensor *[]){c}, 1, NULL, g, (ct_grad_opts){0}));
    CHECK_INT(calls, 1);
}

static void test_hooks_and_retain_grad(void)
{
    int calls = 0;
    ct_tensor *x = leaf((float[]){1, 2}, 2);
    ct_tensor *h = ct_mul_scalar(x, ct_int(3));
    CHECK(ct_register_hook(h, double_it, &calls) > 0);
    CHECK_OK(ct_retain_grad(h));
    ct_tensor *y = ct_mul(h, h);
    CHECK_OK(ct_backward(y, ct_ones(CT_SHAPE(2), CT_F32), plain));
    CHECK_INT(calls, 1);
    CHECK_VALUES(ct_grad(h), CT_SHAPE(2), 12, 24);          /* 2h, doubled by the hook before retain */
    CHECK_VALUES(ct_grad(x), CT_SHAPE(2), 36, 72);          /* 3 * 2 * 2h */
    CHECK(ct_register_hook(ct_zeros(CT_SHAPE(1), CT_F32), double_it, &calls) < 0);
    CHECK_ERR(0, CT_ERR_RUNTIME, "cannot register a hook on a tensor that doesn't require gradient");
}

/* queue_callback: the callbacks run after the last node, in order, once. */
typedef struct callback_log {
    const ct_tensor *a, *b;
    int order[4], n;
    bool both_grads_seen;
} callback_log;

static ct_result second_callback(void *user)
{
    callback_log *log = (callback_log *)user;
    log->order[log->n++] = 2;
    return CT_OK;
}

static ct_result first_callback(void *user)
{
    callback_log *log = (callback_log *)user;
    log->order[log->n++] = 1;
    log->both_grads_seen = ct_grad(log->a) && ct_grad(log->b);
    return ct_autograd_queue_callback(second_callback, log); /* queued from a callback: runs too */
}

static ct_result failing_callback(void *user)
{
    (void)user;
    return ct_set_error(CT_ERR_RUNTIME, "callback failed");
}

static ct_tensor *queue_first(ct_tensor *leaf_, void *user)
{
    (void)leaf_;
    callback_log *log = (callback_log *)user;
    if (log->n == 0 && ct_autograd_queue_callback(first_callback, log) == CT_OK) log->order[log->n++] = 0;
    return NULL;
}

static ct_tensor *queue_failing(ct_tensor *leaf_, void *user)
{
    (void)leaf_, (void)user;
    ct_autograd_queue_callback(failing_callback, NULL);
    return NULL;
}

static void test_queue_callback(void)
{
    ct_tensor *a = leaf((float[]){1, 2}, 2), *b = leaf((float[]){3, 4}, 2);
    callback_log log = {a, b, {0}, 0, false};
    /* a's hook fires first (a is used last), before b's gradient exists */
    CHECK(ct_register_post_accumulate_grad_hook(a, queue_first, &log) > 0);
    ct_tensor *loss = ct_sum(ct_mul(ct_exp(b), a));
    CHECK_OK(ct_backward(loss, NULL, plain));
    CHECK_INT(log.n, 3);
    CHECK_INT(log.order[1], 1);
    CHECK_INT(log.order[2], 2);
    CHECK(log.both_grads_seen);
    CHECK_FAILS(ct_autograd_queue_callback(first_callback, &log), CT_ERR_RUNTIME,
                "Final callbacks can only be installed during backward pass.");
    CHECK_INT(log.n, 3); /* nothing ran or stayed queued */
    ct_tensor *c = leaf((float[]){1}, 1);
    CHECK(ct_register_post_accumulate_grad_hook(c, queue_failing, NULL) > 0);
    CHECK_FAILS(ct_backward(ct_sum(ct_mul(c, c)), NULL, plain), CT_ERR_RUNTIME,
                "callback failed");
}

static void test_no_grad_and_detach(void)
{
    ct_tensor *x = leaf((float[]){1}, 1);
    ct_grad_mode m = ct_no_grad();
    ct_tensor *y = ct_mul_scalar(x, ct_int(2));
    CHECK(!ct_is_grad_enabled());
    ct_grad_mode_restore(m);
    CHECK(ct_is_grad_enabled());
    CHECK(!ct_requires_grad(y) && ct_grad_fn(y) == NULL);
    ct_tensor *d = ct_detach(ct_exp(x));
    CHECK(!ct_requires_grad(d) && ct_storage_data_ptr(d) != NULL);
    CHECK_REPR(ct_exp(x), "tensor([2.7183], grad_fn=<ExpBackward0>)");
    CHECK_REPR(x, "tensor([1.], requires_grad=True)");
}

/* 100000 nodes: no recursion in the engine or in freeing the graph. Built
 * with plain refcounts (each step releases the tensor before it, the graph
 * keeping what backward needs), on a thread of its own: scopes are per
 * thread, and this one has none open. */
static void *deep_chain(void *result)
{
    ct_tensor *x = ct_from_array((float[]){1}, CT_SHAPE(1), CT_F32);
    ct_requires_grad_(x, true);
    ct_tensor *y = ct_retain(x);
    for (int i = 0; i < 100000 && y; i++) {
        ct_tensor *next = ct_add_scalar(y, ct_float(0.5));
        ct_release(y);
        y = next;
    }
    ct_backward_opts o = {false, false, NULL, 0};
    ct_tensor *g = y && ct_backward(y, NULL, o) == CT_OK ? ct_grad(x) : NULL;
    *(double *)result = g ? ct_item(g) : -1;
    ct_release(g);
    ct_release(y); /* the whole graph goes with its last output */
    ct_release(x);
    return NULL;
}

static void test_deep_chain(void)
{
    double grad = 0;
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, deep_chain, &grad) == 0);
    pthread_join(thread, NULL);
    CHECK_NEAR(grad, 1, 0);
}

/* f(x, y) = tanh(x * y) / (sigmoid(x) + exp(y)), and a twin whose gradient a hook doubles */
static int smooth_fn(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    (void)n, (void)user;
    ct_scope s = ct_scope_begin();
    out[0] = ct_keep(ct_div(ct_tanh(ct_mul(in[0], in[1])), ct_add(ct_sigmoid(in[0]), ct_exp(in[1]))));
    ct_scope_end(s);
    return out[0] ? 1 : -1;
}

static ct_tensor *double_grad(ct_tensor *grad, void *user)
{
    (void)user;
    return ct_retain(ct_mul_scalar(grad, ct_int(2)));
}

static int wrong_fn(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    (void)n, (void)user;
    ct_scope s = ct_scope_begin();
    ct_tensor *h = ct_exp(in[0]);
    if (ct_requires_grad(h)) ct_register_hook(h, double_grad, NULL);
    out[0] = ct_keep(ct_mul(h, in[0]));
    ct_scope_end(s);
    return 1;
}

/* f(x) = x * 1, then y[1:3] *= 3, y[3:5] *= x[0:2] (through a view of a
 * view), y[1:3].exp_() */
static int write_through_views(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    (void)n, (void)user;
    ct_scope s = ct_scope_begin();
    ct_tensor *y = ct_mul_scalar(in[0], ct_int(1));
    ct_mul_scalar_(ct_narrow(y, 0, 1, 2), ct_int(3));
    ct_mul_(ct_narrow(ct_narrow(y, 0, 2, 3), 0, 1, 2), ct_narrow(in[0], 0, 0, 2));
    ct_exp_(ct_narrow(y, 0, 1, 2));
    out[0] = ct_keep(y);
    ct_scope_end(s);
    return out[0] ? 1 : -1;
}

static ct_tensor *randn64(ct_shape shape)
{
    ct_tensor *t = ct_randn(shape, CT_F64, NULL);
    ct_requires_grad_(t, true);
    return t;
}

static void test_gradcheck(void)
{
    ct_manual_seed(0);
    ct_tensor *in[2] = {randn64(CT_SHAPE(2, 3)), randn64(CT_SHAPE(3))}; /* y broadcasts */
    CHECK_OK(ct_gradcheck(smooth_fn, in, 2, NULL, ct_gradcheck_opts_init()));
    CHECK_OK(ct_gradgradcheck(smooth_fn, in, 2, NULL, ct_gradcheck_opts_init()));
    ct_tensor *x = randn64(CT_SHAPE(5));
    CHECK_OK(ct_gradcheck(write_through_views, &x, 1, NULL, ct_gradcheck_opts_init()));
    CHECK_OK(ct_gradgradcheck(write_through_views, &x, 1, NULL, ct_gradcheck_opts_init()));
    CHECK_FAILS(ct_gradcheck(wrong_fn, in, 1, NULL, ct_gradcheck_opts_init()), CT_ERR_RUNTIME,
                "Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor([[");
}

/* In-place writes through views rewrite the base's history (CopySlices); the
 * values are PyTorch 1.13's for the same programs. */
static void test_inplace_through_views(void)
{
    static const float weights[4] = {1, 10, 100, 1000};
    ct_tensor *a = leaf((float[]){1, 2, 3, 4}, 4), *w = ct_from_array(weights, CT_SHAPE(4), CT_F32);
    ct_tensor *b = ct_mul_scalar(a, ct_int(1)), *v = ct_narrow(b, 0, 1, 2);
    CHECK_OK(ct_mul_scalar_(v, ct_int(2)));
    CHECK_STR(ct_node_name(ct_grad_fn(b)), "torch::autograd::CopySlices");
    CHECK_STR(ct_node_name(ct_grad_fn(v)), "AsStridedBackward0");
    CHECK_VALUES(b, CT_SHAPE(4), 1, 4, 6, 4);
    CHECK_OK(ct_backward(ct_sum(ct_mul(b, w)), NULL, plain));
    CHECK_VALUES(ct_grad(a), CT_SHAPE(4), 1, 20, 200, 1000);

    /* a view of a view: both views take the base's new history */
    ct_set_grad(a, NULL);
    b = ct_mul_scalar(a, ct_int(1));
    v = ct_narrow(b, 0, 1, 3);
    ct_tensor *x = ct_narrow(v, 0, 0, 2);
    CHECK_OK(ct_exp_(x));
    CHECK_STR(ct_node_name(ct_grad_fn(v)), "AsStridedBackward0");
    CHECK_OK(ct_backward(ct_sum(ct_mul(b, w)), NULL, plain));
    CHECK_VALUES(ct_grad(a), CT_SHAPE(4), 1, 73.89056396484375, 2008.5537109375, 1000); /* PyTorch's float32 values */

    /* a view used after its base was written in place */
    ct_set_grad(a, NULL);
    b = ct_mul_scalar(a, ct_int(1));
    v = ct_narrow(b, 0, 0, 2);
    CHECK_OK(ct_mul_scalar_(b, ct_int(2)));
    CHECK_STR(ct_node_name(ct_grad_fn(v)), "AsStridedBackward0");
    CHECK_OK(ct_backward(ct_sum(ct_mul(v, ct_narrow(w, 0, 0, 2))), NULL, plain));
    CHECK_VALUES(ct_grad(a), CT_SHAPE(4), 2, 20, 0, 0);

    /* a base that needed no gradient gets one from what was written into it */
    ct_tensor *z = ct_zeros(CT_SHAPE(4), CT_F32), *y = leaf((float[]){2, 3}, 2);
    CHECK_OK(ct_add_(ct_narrow(z, 0, 1, 2), y));
    CHECK_STR(ct_node_name(ct_grad_fn(z)), "torch::autograd::CopySlices");
    CHECK_OK(ct_backward(ct_sum(z), NULL, plain));
    CHECK_VALUES(ct_grad(y), CT_SHAPE(2), 1, 1);

    /* through a transposed view */
    ct_tensor *m = ct_arange(ct_int(0), ct_int(6), ct_int(1), CT_F32);
    m = ct_reshape(m, CT_SHAPE(2, 3));
    ct_requires_grad_(m, true);
    ct_tensor *mm = ct_mul_scalar(m, ct_int(1));
    CHECK_OK(ct_mul_scalar_(ct_select(ct_t(mm), 0, 0), ct_int(5)));
    CHECK_OK(ct_backward(ct_sum(mm), NULL, plain));
    CHECK_VALUES(ct_grad(m), CT_SHAPE(2, 3), 5, 1, 1, 5, 1, 1);
}

static void test_inplace_view_refusals(void)
{
    ct_tensor *a = leaf((float[]){1, 2, 3, 4}, 4), *x = leaf((float[]){2, 3}, 2), *parts[2];
    CHECK_FAILS(ct_mul_scalar_(ct_narrow(a, 0, 0, 2), ct_int(2)), CT_ERR_RUNTIME,
                "a view of a leaf Variable that requires grad is being used in an in-place operation.");
    CHECK_INT(ct_split(ct_mul_scalar(a, ct_int(1)), 2, 0, parts, 2), 2);
    CHECK_FAILS(ct_mul_scalar_(parts[0], ct_int(2)), CT_ERR_RUNTIME,
                "Output 0 of SplitBackward0 is a view and is being modified inplace. This view is the output of a "
                "function that returns multiple views. Such functions do not allow the output views to be modified "
                "inplace. You should replace the inplace operation by an out-of-place one.");
    CHECK_INT(ct_split(ct_zeros(CT_SHAPE(4), CT_F32), 2, 0, parts, 2), 2);
    CHECK_FAILS(ct_mul_(parts[0], x), CT_ERR_RUNTIME,
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled. This view "
                "is the output of a function that returns multiple views. Such functions do not allow the output "
                "views to be modified inplace. You should replace the inplace operation by an out-of-place one.");
    ct_tensor *c = ct_zeros(CT_SHAPE(4), CT_F32), *nv;
    ct_grad_mode mode = ct_no_grad();
    nv = ct_narrow(c, 0, 0, 2);
    ct_grad_mode_restore(mode);
    CHECK_FAILS(ct_mul_(nv, x), CT_ERR_RUNTIME,
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
                "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
                "the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
                "tracked) or both outside (if you want the inplace to be tracked).");
    CHECK_VALUES(c, CT_SHAPE(4), 0, 0, 0, 0);
    CHECK_OK(ct_mul_scalar_(nv, ct_int(2))); /* nothing requires grad: not recorded, allowed */
}

/* PyTorch's words for a view whose base (or another view of it) was written
 * in place, when autograd next reads the view's history. */
#define NO_GRAD_STALE                                                                                              \
    "A view was created in no_grad mode and its base or another view of its base has been modified inplace with " \
    "grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "   \
    "your code by moving both the view and the inplace either both inside the no_grad block (if you don't want "   \
    "the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
#define MULTI_VIEWS                                                                                           \
    " This view is the output of a function that returns multiple views. Such functions do not allow the " \
    "output views to be modified inplace. You should replace the inplace operation by an out-of-place one."
#define UNBIND0_STALE \
    "Output 0 of UnbindBackward0 is a view and its base or another view of its base has been modified inplace." MULTI_VIEWS

/* b = a * 1 for a leaf a, and v = b[0:2] made in no_grad mode. */
static ct_tensor *no_grad_view_of(ct_tensor *b)
{
    ct_grad_mode m = ct_no_grad();
    ct_tensor *v = ct_narrow(b, 0, 0, 2);
    ct_grad_mode_restore(m);
    return v;
}

static void test_stale_view_refusals(void)
{
    ct_tensor *a = leaf((float[]){1, 2, 3, 4}, 4), *b = ct_mul_scalar(a, ct_int(1)), *v = no_grad_view_of(b);
    CHECK(ct_requires_grad(v) && ct_is_leaf(v)); /* through its base, with no history of its own */
    CHECK_OK(ct_mul_scalar_(b, ct_int(2)));
    /* every read of v's history fails, every time; asking whether it requires grad does not */
    FAILS_T(ct_mul_scalar(v, ct_int(2)), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_mul_scalar(v, ct_int(2)), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_grad_fn(v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_narrow(v, 0, 0, 1), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_add(ct_ones(CT_SHAPE(2), CT_F32), v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    /* each family of ops refuses it before handing anything back */
    FAILS_T(ct_sum(v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_clone(v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_to(v, CT_F64), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_stack((ct_tensor *[]){v, v}, 2, 0), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_dot(v, v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_reshape(v, CT_SHAPE(2, 1)), CT_ERR_RUNTIME, NO_GRAD_STALE);
    ct_tensor *r1 = NULL, *r2 = NULL, *pieces[2] = {NULL, NULL};
    FAILS_R(ct_max_dim(v, 0, false, &r1, &r2), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_R(ct_var_mean(v, CT_SHAPE(0), 1, false, &r1, &r2), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_R(ct_sort(v, 0, false, false, &r1, &r2), CT_ERR_RUNTIME, NO_GRAD_STALE);
    CHECK(r1 == NULL && r2 == NULL);
    FAILS_R(ct_split(v, 1, 0, pieces, 2), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_R(ct_unbind(v, 0, pieces, 2), CT_ERR_RUNTIME, NO_GRAD_STALE);
    CHECK(pieces[0] == NULL && pieces[1] == NULL);
    FAILS_R(ct_backward(v, ct_ones(CT_SHAPE(2), CT_F32), plain), CT_ERR_RUNTIME, NO_GRAD_STALE);
    ct_tensor *out = ct_sum(b), *g[1];
    FAILS_R(ct_autograd_grad((const ct_tensor *const *)&out, 1, (const ct_tensor *const *)&v, 1, NULL, g, (ct_grad_opts){0}), CT_ERR_RUNTIME, NO_GRAD_STALE);
    CHECK(ct_requires_grad(v));
    CHECK(ct_last_error_code() == CT_OK);
    CHECK_T(ct_detach(v));
    CHECK_T(ct_argmax(v)); /* no gradient: not refused */
    CHECK(ct_item(ct_argmax(v)) == 1);
    ct_grad_mode m = ct_no_grad();
    CHECK_VALUES(ct_mul_scalar(v, ct_int(2)), CT_SHAPE(2), 4, 8);
    ct_grad_mode_restore(m);

    /* ops that compute first and record after hand nothing back either */
    FAILS_T(ct_rsub_scalar(v, ct_int(1)), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_mse_loss(v, ct_zeros(CT_SHAPE(2), CT_F32), CT_REDUCTION_MEAN), CT_ERR_RUNTIME, NO_GRAD_STALE);
    ct_tensor *base = ct_ones(CT_SHAPE(32), CT_F32);
    CHECK_OK(ct_requires_grad_(base, true));
    ct_tensor *b4 = ct_mul_scalar(base, ct_int(1));
    ct_grad_mode gm = ct_no_grad();
    ct_tensor *v4 = ct_view(b4, CT_SHAPE(2, 1, 4, 4));
    ct_grad_mode_restore(gm);
    CHECK_OK(ct_mul_scalar_(b4, ct_int(2)));
    FAILS_T(ct_conv2d(v4, ct_ones(CT_SHAPE(1, 1, 3, 3), CT_F32), NULL, (ct_conv_opts){0}), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_max_pool2d(v4, CT_SHAPE(2), (ct_max_pool_opts){0}), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_layer_norm(v4, CT_SHAPE(4), NULL, NULL, 1e-5), CT_ERR_RUNTIME, NO_GRAD_STALE);
    ct_tensor *running_mean = ct_zeros(CT_SHAPE(1), CT_F32); /* refused before the running statistics move */
    FAILS_T(ct_batch_norm(v4, running_mean, NULL, NULL, NULL, true, 0.1, 1e-5), CT_ERR_RUNTIME, NO_GRAD_STALE);
    CHECK_VALUES(running_mean, CT_SHAPE(1), 0);

    /* an in-place op that reads v fails before it writes */
    ct_tensor *x = ct_mul_scalar(leaf((float[]){5, 6}, 2), ct_int(1));
    int64_t version = ct_version(x);
    FAILS_R(ct_add_(x, v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    CHECK_VALUES(x, CT_SHAPE(2), 5, 6);
    CHECK(ct_version(x) == version);

    /* a leaf base written in no_grad mode (an optimizer step), then a view of it used */
    v = no_grad_view_of(a);
    m = ct_no_grad();
    CHECK_OK(ct_mul_scalar_(a, ct_int(2)));
    ct_grad_mode_restore(m);
    FAILS_T(ct_exp(v), CT_ERR_RUNTIME, NO_GRAD_STALE);

    /* written through another view of the base */
    b = ct_mul_scalar(leaf((float[]){1, 2, 3, 4}, 4), ct_int(1));
    v = no_grad_view_of(b);
    CHECK_OK(ct_mul_scalar_(ct_narrow(b, 0, 2, 2), ct_int(2)));
    FAILS_T(ct_grad_fn(v), CT_ERR_RUNTIME, NO_GRAD_STALE);

    /* a base that requires no grad: nothing to read, until it gets a history */
    ct_tensor *c = ct_zeros(CT_SHAPE(4), CT_F32);
    v = no_grad_view_of(c);
    CHECK_OK(ct_mul_scalar_(c, ct_int(2)));
    CHECK(ct_grad_fn(ct_mul_scalar(v, ct_int(2))) == NULL && ct_last_error_code() == CT_OK);
    CHECK_OK(ct_mul_(c, leaf((float[]){1, 1, 1, 1}, 4)));
    FAILS_T(ct_grad_fn(v), CT_ERR_RUNTIME, NO_GRAD_STALE);

    /* inference mode has words of its own */
    b = ct_mul_scalar(a, ct_int(1));
    m = ct_inference_mode();
    v = ct_narrow(b, 0, 0, 2);
    ct_grad_mode_restore(m);
    CHECK_OK(ct_mul_scalar_(b, ct_int(2)));
    FAILS_T(ct_grad_fn(v), CT_ERR_RUNTIME,
            "A view was created in inference mode and its base or another view of its base has been modified inplace "
            "in normal mode. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
            "your code by moving both the view and the inplace either both inside the inference_mode block (if you "
            "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).");
    FAILS_R(ct_mul_scalar_(v, ct_int(2)), CT_ERR_RUNTIME,
            "A view was created in inference mode and is being modified inplace in normal mode. Given that this use "
            "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and "
            "the inplace either both inside the inference_mode block (if you don't want the inplace to be tracked) or "
            "both outside (if you want the inplace to be tracked).");

    /* a view of a no_grad view has a history of its own (1.13 fails an
     * internal assert here; the words are later PyTorch's) */
    b = ct_mul_scalar(a, ct_int(1));
    v = ct_narrow(no_grad_view_of(b), 0, 0, 1);
    CHECK_OK(ct_mul_scalar_(b, ct_int(2)));
    FAILS_T(ct_grad_fn(v), CT_ERR_RUNTIME,
            "Output 0 of SliceBackward0 is a view of a view which was created in no_grad mode and its base or another "
            "view of its base has been modified inplace with grad mode enabled. Given that this use case is ambiguous "
            "and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either "
            "both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want "
            "the inplace to be tracked).");
}

static void test_stale_multi_output_views(void)
{
    ct_tensor *a = ct_ones(CT_SHAPE(2, 3), CT_F32), *parts[2];
    ct_requires_grad_(a, true);
    ct_tensor *b = ct_mul_scalar(a, ct_int(1));
    CHECK_INT(ct_unbind(b, 0, parts, 2), 2);
    CHECK_OK(ct_mul_scalar_(b, ct_int(2)));
    FAILS_T(ct_grad_fn(parts[0]), CT_ERR_RUNTIME, UNBIND0_STALE);
    FAILS_T(ct_mul_scalar(parts[0], ct_int(2)), CT_ERR_RUNTIME, UNBIND0_STALE);
    FAILS_R(ct_add_scalar_(parts[0], ct_int(1)), CT_ERR_RUNTIME,
            "Output 0 of UnbindBackward0 is a view and is being modified inplace." MULTI_VIEWS);
    ct_grad_mode m = ct_no_grad();
    CHECK_VALUES(ct_mul_scalar(parts[1], ct_int(2)), CT_SHAPE(3), 4, 4, 4);
    CHECK_OK(ct_add_scalar_(parts[0], ct_int(1)));
    ct_grad_mode_restore(m);

    /* chunk of a leaf, the leaf written in no_grad mode; a view of an output fails too */
    ct_tensor *l = ct_ones(CT_SHAPE(6), CT_F32);
    ct_requires_grad_(l, true);
    CHECK_INT(ct_chunk(l, 2, 0, parts, 2), 2);
    m = ct_no_grad();
    CHECK_OK(ct_add_scalar_(l, ct_int(1)));
    ct_grad_mode_restore(m);
    FAILS_T(ct_narrow(parts[1], 0, 0, 1), CT_ERR_RUNTIME,
            "Output 1 of SplitBackward0 is a view and its base or another view of its base has been modified inplace."
            MULTI_VIEWS);

    /* outputs of a base that required no grad, which then gets a history */
    ct_tensor *c = ct_ones(CT_SHAPE(2, 3), CT_F32);
    CHECK_INT(ct_unbind(c, 0, parts, 2), 2);
    CHECK_OK(ct_mul_(c, leaf((float[]){1, 1, 1}, 3)));
    FAILS_T(ct_grad_fn(parts[0]), CT_ERR_RUNTIME,
            "A view was created in no_grad mode and its base or another view of its base has been modified inplace "
            "with grad mode enabled." MULTI_VIEWS);
}

/* What PyTorch allows around the refusals gives PyTorch's gradients. */
static void test_stale_views_allowed(void)
{
    /* an output used before its base was written */
    ct_tensor *a = ct_ones(CT_SHAPE(2, 3), CT_F32), *parts[2];
    ct_requires_grad_(a, true);
    ct_tensor *b = ct_mul_scalar(a, ct_int(1));
    CHECK_INT(ct_unbind(b, 0, parts, 2), 2);
    ct_tensor *z = ct_mul_scalar(parts[0], ct_int(2));
    CHECK_OK(ct_mul_scalar_(b, ct_int(3)));
    CHECK_OK(ct_backward(ct_add(ct_sum(z), ct_sum(b)), NULL, plain));
    CHECK_VALUES(ct_grad(a), CT_SHAPE(2, 3), 5, 5, 5, 3, 3, 3);

    /* view and write both in no_grad mode */
    ct_tensor *l = leaf((float[]){1, 2, 3, 4}, 4);
    b = ct_mul_scalar(l, ct_int(1));
    ct_grad_mode m = ct_no_grad();
    ct_tensor *v = ct_narrow(b, 0, 0, 2);
    CHECK_OK(ct_mul_scalar_(b, ct_int(2)));
    CHECK_VALUES(ct_mul_scalar(v, ct_int(3)), CT_SHAPE(2), 6, 12);
    ct_grad_mode_restore(m);
    CHECK_OK(ct_backward(ct_sum(b), NULL, plain));
    CHECK_VALUES(ct_grad(l), CT_SHAPE(4), 1, 1, 1, 1);

    /* a no_grad view never written: it requires grad, its history is None */
    ct_set_grad(l, NULL);
    b = ct_mul_scalar(l, ct_int(1));
    v = no_grad_view_of(b);
    CHECK_REPR(v, "tensor([1., 2.], requires_grad=True)");
    ct_tensor *y = ct_mul_scalar(v, ct_int(2));
    int input_nr = -1;
    CHECK_STR(ct_node_name(ct_grad_fn(y)), "MulBackward0");
    CHECK(ct_node_next(ct_grad_fn(y), 0, &input_nr) == NULL);
    CHECK_OK(ct_backward(ct_add(ct_sum(y), ct_sum(b)), NULL, plain));
    CHECK_VALUES(ct_grad(l), CT_SHAPE(4), 1, 1, 1, 1);

    /* of a leaf: backward runs and leaves no gradient */
    ct_set_grad(l, NULL);
    v = no_grad_view_of(l);
    CHECK_OK(ct_backward(ct_sum(ct_mul_scalar(v, ct_int(2))), NULL, plain));
    CHECK(ct_grad(l) == NULL);
}

/* A query that answers false, with the error set, when it fails. */
#define FAILS_B(expr, code, msg) expect_fail(__LINE__, #expr, !(expr), code, msg)

/* A 3 x 3 base b (rows of a leaf's copy) and a view of it made in no_grad
 * mode, its first `rows` rows, stale: b was written since. */
static ct_tensor *stale_rows(int64_t rows, ct_tensor **b)
{
    ct_tensor *a = ct_from_array((float[]){4, 1, 0, 1, 3, 1, 0, 1, 2}, CT_SHAPE(3, 3), CT_F32);
    ct_requires_grad_(a, true);
    *b = ct_mul_scalar(a, ct_int(1));
    ct_grad_mode m = ct_no_grad();
    ct_tensor *v = ct_narrow(*b, 0, 0, rows);
    ct_grad_mode_restore(m);
    CHECK_OK(ct_add_scalar_(*b, ct_int(0)));
    return v;
}

/* The decompositions and diag refuse a stale view before they compute (and
 * before their argument checks, as PyTorch: v is 2 x 3). */
static void test_stale_view_linalg(void)
{
    ct_tensor *b, *v = stale_rows(2, &b), *sq = stale_rows(3, &b), *x = NULL, *y = NULL, *z = NULL;
    FAILS_T(ct_linalg_inv(sq), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_linalg_inv(v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_linalg_det(sq), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_R(ct_linalg_slogdet(sq, &x, &y), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_linalg_solve(ct_eye(2, 2, CT_F32), v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_linalg_cholesky(sq, false), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_R(ct_linalg_qr(v, CT_QR_REDUCED, &x, &y), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_R(ct_linalg_svd(v, false, &x, &y, &z), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_linalg_svdvals(v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_R(ct_linalg_eigh(sq, 'X', &x, &y), CT_ERR_RUNTIME, NO_GRAD_STALE); /* before the UPLO check */
    FAILS_T(ct_linalg_eigvals(sq), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_linalg_pinv(v, false), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_linalg_matrix_rank(v, false), CT_ERR_RUNTIME, NO_GRAD_STALE); /* no gradient, but PyTorch's svdvals */
    FAILS_T(ct_linalg_matrix_power(sq, -2), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_trace(v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_linalg_matrix_exp(sq), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_diag(v, 0), CT_ERR_RUNTIME, NO_GRAD_STALE);
    ct_tensor *w = NULL;
    FAILS_R(ct_linalg_lstsq_all(v, ct_ones(CT_SHAPE(5, 1), CT_F32), (ct_lstsq_opts){0}, &x, &y, &z, &w), CT_ERR_RUNTIME,
            NO_GRAD_STALE); /* before the shape check */
    FAILS_T(ct_linalg_lstsq(ct_eye(2, 2, CT_F32), v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    CHECK(x == NULL && y == NULL && z == NULL && w == NULL);
    /* (matrix_power checks its argument first: a composite in PyTorch) */
    FAILS_T(ct_linalg_matrix_power(v, 2), CT_ERR_RUNTIME,
            "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices");
    ct_grad_mode m = ct_no_grad(); /* nothing is recorded: computed */
    CHECK_VALUES(ct_diag(v, 0), CT_SHAPE(2), 4, 3);
    CHECK_VALUES(ct_trace(v), CT_SHAPE0, 7);
    ct_grad_mode_restore(m);
}

/* Advanced indexing refuses it before it gathers: after it counts the
 * indices, before it looks at their dtype, as PyTorch. */
static void test_stale_view_indexing(void)
{
    ct_tensor *b, *v = stale_rows(2, &b);
    ct_tensor *rows = ct_from_array((int64_t[]){1, 0}, CT_SHAPE(2), CT_I64);
    ct_tensor *halves = ct_from_array((float[]){0.5f}, CT_SHAPE(1), CT_F32);
    FAILS_T(ct_index(v, "%t", rows), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_index(v, "%t", ct_gt_scalar(v, ct_int(1))), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_index(v, "[0, 1], ::2"), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_index(v, "%t", halves), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_index(v, "%t, %t, %t", rows, rows, halves), CT_ERR_INDEX, "too many indices for tensor of dimension 2");
    FAILS_T(ct_index(v, "5"), CT_ERR_INDEX, "index 5 is out of bounds for dimension 0 with size 2");
    FAILS_T(ct_index(b, "%t", halves), CT_ERR_INDEX, "tensors used as indices must be long, byte or bool tensors");
    ct_grad_mode m = ct_no_grad();
    CHECK_VALUES(ct_index(v, "%t", ct_from_array((int64_t[]){1}, CT_SHAPE(1), CT_I64)), CT_SHAPE(1, 3), 1, 3, 1);
    ct_grad_mode_restore(m);
}

/* Tensor.is_leaf and repr read the history: false, or a negative result,
 * with PyTorch's error. */
static void test_stale_view_is_leaf_and_print(void)
{
    ct_tensor *b, *v = stale_rows(2, &b), *parts[3];
    FAILS_B(ct_is_leaf(v), CT_ERR_RUNTIME, NO_GRAD_STALE);
    char text[64] = "unchanged";
    FAILS_R(ct_to_string(v, text, sizeof text), CT_ERR_RUNTIME, NO_GRAD_STALE);
    CHECK_STR(text, "");
    CHECK(ct_requires_grad(v) && ct_last_error_code() == CT_OK);
    /* register_hook reads Tensor.grad_fn; requires_grad_ and retain_grad ask
     * the field itself: a no_grad view has no grad_fn */
    int calls = 0;
    FAILS_R(ct_register_hook(v, double_it, &calls), CT_ERR_RUNTIME, NO_GRAD_STALE);
    FAILS_T(ct_sgd(&v, 1, (ct_sgd_opts){.lr = 0.1}), CT_ERR_RUNTIME, NO_GRAD_STALE); /* param.is_leaf */
    CHECK_OK(ct_requires_grad_(v, true));
    CHECK_OK(ct_requires_grad_(v, false));
    CHECK(ct_requires_grad(v) && ct_last_error_code() == CT_OK); /* as its base does */
    CHECK_OK(ct_retain_grad(v));
    CHECK(ct_last_error_code() == CT_OK);
    CHECK_INT(ct_unbind(b, 0, parts, 3), 3);
    CHECK_OK(ct_add_scalar_(b, ct_int(0)));
    FAILS_R(ct_retain_grad(parts[1]), CT_ERR_RUNTIME,
            "Output 1 of UnbindBackward0 is a view and its base or another view of its base has been modified inplace."
            MULTI_VIEWS);
    FAILS_B(ct_is_leaf(parts[2]), CT_ERR_RUNTIME,
            "Output 2 of UnbindBackward0 is a view and its base or another view of its base has been modified inplace."
            MULTI_VIEWS);
    /* a fresh view prints and is a leaf or not as usual */
    CHECK(!ct_is_leaf(b) && ct_last_error_code() == CT_OK);
    CHECK(ct_to_string(ct_narrow(b, 0, 0, 1), text, sizeof text) > 0);
}

/* How a view of a view was made: as the newer one unless that one was made
 * by default (or the older one in inference mode), as PyTorch propagates it. */
static void test_view_of_view_made(void)
{
    ct_tensor *a = leaf((float[]){1, 2, 3, 4}, 4), *b = ct_mul_scalar(a, ct_int(1)), *parts[2];
    CHECK_INT(ct_unbind(ct_reshape(no_grad_view_of(b), CT_SHAPE(2, 1)), 0, parts, 2), 2);
    CHECK_FAILS(ct_mul_scalar_(parts[0], ct_int(2)), CT_ERR_RUNTIME,
                "Output 0 of UnbindBackward0 is a view and is being modified inplace." MULTI_VIEWS);
    CHECK_INT(ct_unbind(ct_reshape(b, CT_SHAPE(2, 2)), 0, parts, 2), 2);
    ct_grad_mode m = ct_no_grad();
    ct_tensor *w = ct_narrow(parts[1], 0, 0, 1);
    ct_grad_mode_restore(m);
    CHECK_FAILS(ct_mul_scalar_(w, ct_int(2)), CT_ERR_RUNTIME,
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
                "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
                "the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
                "tracked) or both outside (if you want the inplace to be tracked).");
}

/* ---------------------------------------------------------------- views out of custom functions */

#define IN_CUSTOM                                                                                                  \
    " This view was created inside a custom Function (or because an input was returned as-is) and the autograd "   \
    "logic to handle view+inplace would override the custom backward associated with the custom Function, leading " \
    "to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom "     \
    "Function."
#define HEAD_INPLACE "Output 0 of HeadBackward is a view and is being modified inplace." IN_CUSTOM
#define HEAD_STALE \
    "Output 0 of HeadBackward is a view and its base or another view of its base has been modified inplace." IN_CUSTOM

/* Head: the first two elements of a 4-vector, as a view made in forward. */
static ct_result head_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    (void)ctx, (void)n;
    out[0] = ct_narrow(ct_view(in[0], CT_SHAPE(-1)), 0, 0, 2);
    return out[0] ? CT_OK : ct_last_error_code();
}
static ct_result head_backward(ct_function_ctx *ctx, ct_tensor *const *go, ct_tensor **gi)
{
    (void)ctx;
    gi[0] = ct_cat((ct_tensor *[]){go[0], ct_zeros(CT_SHAPE(2), CT_F32)}, 2, 0);
    return CT_OK;
}
static const ct_function head = {"Head", 1, head_forward, head_backward, false};

static ct_tensor *apply1(const ct_function *fn, ct_tensor *x)
{
    ct_tensor *y = NULL;
    return ct_function_apply(fn, &x, 1, &y, NULL) == CT_OK ? y : NULL;
}

/* Same: its input as it is. */
static ct_result same_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    (void)ctx, (void)n;
    out[0] = in[0];
    return CT_OK;
}
static ct_result same_backward(ct_function_ctx *ctx, ct_tensor *const *go, ct_tensor **gi)
{
    (void)ctx;
    gi[0] = ct_mul_scalar(go[0], ct_int(1));
    return CT_OK;
}

static void test_custom_function_views(void)
{
    ct_tensor *a = leaf((float[]){1, 2, 3, 4}, 4), *b = ct_mul_scalar(a, ct_int(1)), *v = apply1(&head, b);
    CHECK_STR(ct_node_name(ct_grad_fn(v)), "HeadBackward");
    int64_t version = ct_version(b);
    CHECK_FAILS(ct_mul_scalar_(v, ct_int(2)), CT_ERR_RUNTIME, HEAD_INPLACE);
    CHECK(ct_version(b) == version);
    CHECK_VALUES(b, CT_SHAPE(4), 1, 2, 3, 4);
    CHECK_FAILS(ct_mul_scalar_(apply1(&head, a), ct_int(2)), CT_ERR_RUNTIME, HEAD_INPLACE); /* before the leaf's words */
    /* its history cannot be regenerated once its base was written */
    CHECK_OK(ct_add_scalar_(b, ct_int(1)));
    FAILS_T(ct_grad_fn(v), CT_ERR_RUNTIME, HEAD_STALE);
    FAILS_T(ct_mul_scalar(v, ct_int(2)), CT_ERR_RUNTIME, HEAD_STALE);
    FAILS_B(ct_is_leaf(v), CT_ERR_RUNTIME, HEAD_STALE);
    /* written in no_grad mode: allowed, and its history is refused after */
    v = apply1(&head, b);
    ct_grad_mode m = ct_no_grad();
    CHECK_OK(ct_mul_scalar_(v, ct_int(2)));
    ct_grad_mode_restore(m);
    FAILS_T(ct_grad_fn(v), CT_ERR_RUNTIME, HEAD_STALE);
    /* a view of such a view is made as it was */
    v = apply1(&head, b);
    CHECK_FAILS(ct_mul_scalar_(ct_narrow(v, 0, 0, 1), ct_int(2)), CT_ERR_RUNTIME,
                "Output 0 of SliceBackward0 is a view and is being modified inplace." IN_CUSTOM);
    ct_tensor *w = ct_narrow(v, 0, 1, 1), *nw = no_grad_view_of(v);
    CHECK_OK(ct_add_scalar_(b, ct_int(1)));
    FAILS_T(ct_grad_fn(w), CT_ERR_RUNTIME,
            "Output 0 of SliceBackward0 is a view and its base or another view of its base has been modified inplace."
            IN_CUSTOM);
    FAILS_T(ct_grad_fn(nw), CT_ERR_RUNTIME, NO_GRAD_STALE);
    /* applied in no_grad mode: no history, a view that requires grad all the same */
    m = ct_no_grad();
    v = apply1(&head, b);
    ct_grad_mode_restore(m);
    CHECK(ct_grad_fn(v) == NULL && ct_requires_grad(v));
    CHECK_FAILS(ct_mul_scalar_(v, ct_int(2)), CT_ERR_RUNTIME,
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled." IN_CUSTOM);
    /* nothing requires grad: nothing recorded, the write is allowed */
    ct_tensor *c = ct_zeros(CT_SHAPE(4), CT_F32);
    CHECK_OK(ct_mul_scalar_(apply1(&head, c), ct_int(2)));
}

/* SameNonDiff: its input as it is, marked non-differentiable. */
static ct_result same_non_diff_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    out[0] = in[0];
    return ct_ctx_mark_non_differentiable(ctx, in, n);
}

static void test_custom_function_returns_input(void)
{
    static const ct_function same = {"Same", 1, same_forward, same_backward, false};
    static const ct_function same_nd = {"SameNonDiff", 1, same_non_diff_forward, same_backward, false};
    ct_tensor *a = leaf((float[]){1, 2}, 2), *b = ct_mul_scalar(a, ct_int(1)), *z = apply1(&same, b);
    CHECK(z != b && ct_storage_data_ptr(z) == ct_storage_data_ptr(b));
    CHECK_STR(ct_node_name(ct_grad_fn(z)), "SameBackward");
    CHECK_FAILS(ct_add_scalar_(z, ct_int(1)), CT_ERR_RUNTIME,
                "Output 0 of SameBackward is a view and is being modified inplace." IN_CUSTOM);
    CHECK_OK(ct_backward(ct_sum(ct_mul(z, z)), NULL, plain));
    CHECK_VALUES(ct_grad(a), CT_SHAPE(2), 2, 4);
    /* an input that requires no grad comes back as a view of it too */
    ct_tensor *c = ct_zeros(CT_SHAPE(2), CT_F32), *zc = apply1(&same, c);
    CHECK(zc != c && ct_storage_data_ptr(zc) == ct_storage_data_ptr(c) && !ct_requires_grad(zc));
    /* marked non-differentiable, it requires grad: a detached alias, no view */
    ct_tensor *bn = ct_mul_scalar(a, ct_int(1)), *zn = apply1(&same_nd, bn);
    CHECK(zn != bn && ct_grad_fn(zn) == NULL && !ct_requires_grad(zn));
    CHECK_OK(ct_add_scalar_(zn, ct_int(1)));
    CHECK_VALUES(bn, CT_SHAPE(2), 2, 3);
    /* no output gets an edge, yet apply reads its inputs' history */
    ct_tensor *bs = ct_mul_scalar(a, ct_int(1)), *stale = no_grad_view_of(bs), *zs = NULL;
    CHECK_OK(ct_add_scalar_(bs, ct_int(0)));
    FAILS_R(ct_function_apply(&same_nd, &stale, 1, &zs, NULL), CT_ERR_RUNTIME, NO_GRAD_STALE);
    CHECK(zs == NULL);
    CHECK_OK(ct_mul_(c, a)); /* c gets a history: zc's cannot be regenerated */
    FAILS_T(ct_grad_fn(zc), CT_ERR_RUNTIME,
            "A view was created in no_grad mode and its base or another view of its base has been modified inplace with "
            "grad mode enabled." IN_CUSTOM);
}

/* Halves: two views, the second one marked non-differentiable when user is set. */
static ct_result halves_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    (void)n;
    out[0] = ct_narrow(in[0], 0, 0, 2);
    out[1] = ct_narrow(in[0], 0, 2, 2);
    return ct_ctx_user(ctx) ? ct_ctx_mark_non_differentiable(ctx, &out[1], 1) : CT_OK;
}
static ct_result halves_backward(ct_function_ctx *ctx, ct_tensor *const *go, ct_tensor **gi)
{
    (void)ctx;
    gi[0] = ct_cat((ct_tensor *[]){go[0], go[1] ? go[1] : ct_zeros(CT_SHAPE(2), CT_F32)}, 2, 0);
    return CT_OK;
}
/* Two outputs, the first its input written in place (marked dirty), the
 * second an int64 tensor (no gradient whatever its marks). */
static ct_result dirty_two_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    (void)n;
    ct_result r = ct_mul_scalar_(in[0], ct_int(2));
    out[0] = in[0];
    out[1] = ct_to(ct_gt_scalar(in[0], ct_int(2)), CT_I64);
    return r == CT_OK ? ct_ctx_mark_dirty(ctx, in, 1) : r;
}
static ct_result dirty_two_backward(ct_function_ctx *ctx, ct_tensor *const *go, ct_tensor **gi)
{
    (void)ctx;
    gi[0] = ct_mul_scalar(go[0], ct_int(2));
    return CT_OK;
}

static void test_custom_function_several_outputs(void)
{
    static const ct_function halves = {"Halves", 2, halves_forward, halves_backward, false};
    static const ct_function dirty_two = {"DirtyTwo", 2, dirty_two_forward, dirty_two_backward, false};
    ct_tensor *a = leaf((float[]){1, 2, 3, 4}, 4), *b = ct_mul_scalar(a, ct_int(1)), *out[2];
    CHECK_OK(ct_function_apply(&halves, &b, 1, out, NULL));
    CHECK_FAILS(ct_mul_scalar_(out[0], ct_int(2)), CT_ERR_RUNTIME,
                "Output 0 of HalvesBackward is a view and is being modified inplace." MULTI_VIEWS);
    CHECK_OK(ct_add_scalar_(b, ct_int(1)));
    FAILS_T(ct_grad_fn(out[1]), CT_ERR_RUNTIME,
            "Output 1 of HalvesBackward is a view and its base or another view of its base has been modified inplace."
            MULTI_VIEWS);
    /* one differentiable output: each a view made in a custom function */
    int mark = 1;
    CHECK_OK(ct_function_apply(&halves, &b, 1, out, &mark));
    CHECK(ct_grad_fn(out[1]) == NULL && ct_requires_grad(out[1]));
    CHECK_FAILS(ct_mul_scalar_(out[0], ct_int(2)), CT_ERR_RUNTIME,
                "Output 0 of HalvesBackward is a view and is being modified inplace." IN_CUSTOM);
    CHECK_FAILS(ct_mul_scalar_(out[1], ct_int(2)), CT_ERR_RUNTIME,
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled." IN_CUSTOM);
    /* a view written in place cannot have its history rewritten for two outputs */
    ct_tensor *bv = ct_narrow(ct_mul_scalar(a, ct_int(1)), 0, 0, 2);
    CHECK_FAILS(ct_function_apply(&dirty_two, &bv, 1, out, NULL), CT_ERR_RUNTIME,
                "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot "
                "return more than one Tensor. This is not supported by the current autograd engine. You should either "
                "make sure the input is not a view (using .clone() for example) or make your Function only return one "
                "Tensor (potentially splitting it into two Functions: one doing the inplace that returns a single "
                "Tensor and a second one that does the other operations). You can ask on the forum "
                "https://discuss.pytorch.org/ if you need help to do this change.");
    CHECK(out[0] == NULL && out[1] == NULL);
    ct_tensor *d = ct_mul_scalar(a, ct_int(1));
    CHECK_OK(ct_function_apply(&dirty_two, &d, 1, out, NULL));
    CHECK(out[0] == d);
    CHECK_STR(ct_node_name(ct_grad_fn(d)), "DirtyTwoBackward");
    CHECK(ct_grad_fn(out[1]) == NULL && !ct_requires_grad(out[1])); /* int64: no gradient */
    CHECK_VALUES(out[1], CT_SHAPE(4), 0, 1, 1, 1);
}

/* What PyTorch allows: a custom function's view used before its base was written. */
static void test_custom_function_views_allowed(void)
{
    ct_tensor *a = leaf((float[]){1, 1, 1, 1}, 4), *b = ct_mul_scalar(a, ct_int(1)), *v = apply1(&head, b);
    ct_tensor *y = ct_mul_scalar(v, ct_int(2));
    CHECK_OK(ct_mul_scalar_(b, ct_int(3)));
    CHECK_OK(ct_backward(ct_add(ct_sum(y), ct_sum(b)), NULL, plain));
    CHECK_VALUES(ct_grad(a), CT_SHAPE(4), 5, 5, 3, 3);
}

/* An error handler that aborts, as the README suggests for debug builds. */
static void abort_on_error(ct_result code, const char *msg, void *user)
{
    (void)user;
    fprintf(stderr, "unexpected error %s: %s\n", ct_result_str(code), msg);
    abort();
}

/* Three SGD steps of the demo's model; the last loss. */
static double train_digits_steps(void)
{
    ct_manual_seed(0);
    ct_module *model = new_model(); /* examples/digits.h */
    ct_tensor_list params = ct_module_parameters(model, true);
    ct_optimizer *opt = ct_sgd(params.tensors, params.n, (ct_sgd_opts){.lr = 0.1, .momentum = 0.9});
    ct_tensor *x = ct_randn(CT_SHAPE(8, 1, 8, 8), CT_F32, NULL);
    ct_tensor *y = ct_randint(0, 10, CT_SHAPE(8), CT_I64, NULL);
    double loss = 0;
    for (int step = 0; step < 3; step++) {
        ct_scope s = ct_scope_begin();
        ct_optim_zero_grad(opt, true);
        ct_tensor *l = ct_cross_entropy(ct_forward(model, x), y, ct_nll_loss_opts_init());
        CHECK_OK(ct_backward(l, NULL, (ct_backward_opts){0}));
        CHECK_OK(ct_optim_step(opt));
        loss = ct_item(l);
        ct_scope_end(s);
    }
    ct_optim_free(opt);
    ct_tensor_list_free(&params);
    ct_module_release(model);
    return loss;
}

/* A successful call leaves the error slot as it was: no error raised and
 * swallowed inside (the handler would see it), and a pending one kept. */
static void test_training_leaves_the_error_slot_alone(void)
{
    ct_set_error_handler(abort_on_error, NULL);
    double loss = train_digits_steps();
    ct_set_error_handler(NULL, NULL);
    CHECK(loss == loss && loss > 0);
    CHECK_INT(ct_last_error_code(), CT_OK);
    CHECK_ERR(ct_index(ct_zeros(CT_SHAPE(2), CT_F32), ""), CT_ERR_VALUE, "empty index");
    (void)ct_index(ct_zeros(CT_SHAPE(2), CT_F32), "");
    char pending[256];
    snprintf(pending, sizeof pending, "%s", ct_last_error());
    CHECK(train_digits_steps() == loss);
    CHECK_STR(ct_last_error(), pending);
    ct_clear_error();
}

/* Inference tensors (made in inference mode, and their views) outside it:
 * no in-place write, no saving for backward, no requires_grad, each in
 * PyTorch's words with nothing written; an op that saves nothing of them
 * records as usual, and inside inference mode they are ordinary. */
static void test_inference_tensors(void)
{
    static const char *const WRITE = "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
                                     "make a clone to get a normal tensor before doing inplace update.See "
                                     "https://github.com/pytorch/rfcs/pull/17 for more details.";
    static const char *const SAVE = "Inference tensors cannot be saved for backward. To work around you can make a "
                                    "clone to get a normal tensor and use it in autograd.";
    ct_tensor *normal = ct_ones(CT_SHAPE(3), CT_F32);
    ct_grad_mode m = ct_inference_mode();
    ct_tensor *a = ct_ones(CT_SHAPE(3), CT_F32), *v = ct_index(ct_zeros(CT_SHAPE(3), CT_F32), ":2");
    ct_tensor *normal_view = ct_index(normal, ":2");
    CHECK_OK(ct_add_scalar_(a, ct_int(1))); /* inside: an ordinary tensor */
    ct_grad_mode_restore(m);
    CHECK(ct_is_inference(a) && ct_is_inference(v) && ct_is_inference(ct_detach(a)) && ct_is_inference(ct_data(a)));
    CHECK(!ct_is_inference(ct_clone(a)) && !ct_is_inference(normal) && !ct_is_inference(normal_view));
    CHECK(!ct_is_inference(NULL));
    CHECK_FAILS(ct_add_scalar_(a, ct_int(1)), CT_ERR_RUNTIME, WRITE);
    CHECK_FAILS(ct_ge_scalar_(a, ct_int(1)), CT_ERR_RUNTIME, WRITE); /* not differentiable: refused all the same */
    CHECK_FAILS(ct_zero_(v), CT_ERR_RUNTIME, WRITE);
    CHECK_FAILS(ct_copy_(a, normal), CT_ERR_RUNTIME, WRITE);
    CHECK_FAILS(ct_uniform_(a, 0, 1, NULL), CT_ERR_RUNTIME, WRITE);
    CHECK_FAILS(ct_index_put_(a, ct_zeros(CT_SHAPE0, CT_F32), "0"), CT_ERR_RUNTIME, WRITE);
    m = ct_no_grad();
    CHECK_FAILS(ct_mul_scalar_(a, ct_int(3)), CT_ERR_RUNTIME, WRITE); /* no_grad is not inference mode */
    ct_grad_mode_restore(m);
    CHECK_VALUES(a, CT_SHAPE(3), 2, 2, 2);
    CHECK_FAILS(ct_requires_grad_(a, true), CT_ERR_RUNTIME,
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");

    ct_tensor *w = ct_ones(CT_SHAPE(3), CT_F32);
    CHECK_OK(ct_requires_grad_(w, true));
    CHECK_ERR(ct_mul(w, a), CT_ERR_RUNTIME, SAVE);
    CHECK_ERR(ct_matmul(w, a), CT_ERR_RUNTIME, SAVE);
    ct_tensor *b = ct_mul_scalar(w, ct_int(2));
    CHECK_FAILS(ct_mul_(b, a), CT_ERR_RUNTIME, SAVE); /* before writing b */
    CHECK_VALUES(b, CT_SHAPE(3), 2, 2, 2);
    ct_tensor *sum = ct_add(w, a); /* add saves neither input */
    CHECK(sum && ct_grad_fn(sum) && !ct_is_inference(sum));
    CHECK_OK(ct_backward(ct_sum(sum), NULL, (ct_backward_opts){0}));
    CHECK_VALUES(ct_grad(w), CT_SHAPE(3), 1, 1, 1);
}

int main(void)
{
    RUN(test_grad_layout_contract);
    RUN(test_simple_gradients);
    RUN(test_accumulation_and_broadcast);
    RUN(test_diamond_and_shared_leaf);
    RUN(test_errors_in_backward);
    RUN(test_retain_graph);
    RUN(test_autograd_grad_and_unused);
    RUN(test_double_backward);
    RUN(test_hooks_and_retain_grad);
    RUN(test_queue_callback);
    RUN(test_no_grad_and_detach);
    RUN(test_deep_chain);
    RUN(test_gradcheck);
    RUN(test_inplace_through_views);
    RUN(test_inplace_view_refusals);
    RUN(test_stale_view_refusals);
    RUN(test_stale_multi_output_views);
    RUN(test_stale_views_allowed);
    RUN(test_stale_view_linalg);
    RUN(test_stale_view_indexing);
    RUN(test_stale_view_is_leaf_and_print);
    RUN(test_view_of_view_made);
    RUN(test_custom_function_views);
    RUN(test_custom_function_returns_input);
    RUN(test_custom_function_several_outputs);
    RUN(test_custom_function_views_allowed);
    RUN(test_node_computes_only_needed_grads);
    RUN(test_training_leaves_the_error_slot_alone);
    RUN(test_inference_tensors);
    return ct_test_report();
}
