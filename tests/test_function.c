/* Custom functions (torch.autograd.Function): seed 002's Square with
 * gradcheck and gradgradcheck, saved tensors, needs_input_grad, dirty and
 * non-differentiable outputs, once_differentiable, non-tensor state. */
#include "harness.h"

static const ct_backward_opts plain = {false, false, NULL, 0};

/* Square: x**2 with backward grad_out * 2 * x, made of ops, so it has a double backward */
static ct_result square_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    (void)n;
    ct_ctx_save_for_backward(ctx, in, 1);
    out[0] = ct_pow_scalar(in[0], ct_int(2));
    return out[0] ? CT_OK : ct_last_error_code();
}

static ct_result square_backward(ct_function_ctx *ctx, ct_tensor *const *go, ct_tensor **gi)
{
    ct_tensor *x = ct_ctx_saved_tensor(ctx, 0);
    if (!x) return ct_last_error_code();
    gi[0] = ct_mul(ct_mul_scalar(go[0], ct_int(2)), x);
    return CT_OK;
}

static const ct_function square = {"Square", 1, square_forward, square_backward, false};
static const ct_function square_once = {"Square", 1, square_forward, square_backward, true};

static int apply_fn(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    return ct_function_apply((const ct_function *)user, in, n, out, NULL) == CT_OK ? 1 : -1;
}

static void test_square_seed(void)
{
    /* x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
     * torch.autograd.gradcheck(Square.apply, x); torch.autograd.gradgradcheck(Square.apply, x) */
    ct_manual_seed(0);
    ct_tensor *x = ct_rand(CT_SHAPE(3, 3), CT_F64, NULL);
    ct_requires_grad_(x, true);
    CHECK_OK(ct_gradcheck(apply_fn, &x, 1, (void *)&square, ct_gradcheck_opts_init()));
    CHECK_OK(ct_gradgradcheck(apply_fn, &x, 1, (void *)&square, ct_gradcheck_opts_init()));
    ct_tensor *y;
    CHECK_OK(ct_function_apply(&square, &x, 1, &y, NULL));
    CHECK_STR(ct_node_name(ct_grad_fn(y)), "SquareBackward");
    CHECK(ct_node_num_next(ct_grad_fn(y)) == 1);
    ct_grad_mode m = ct_no_grad(); /* no grad: nothing recorded */
    CHECK_OK(ct_function_apply(&square, &x, 1, &y, NULL));
    ct_grad_mode_restore(m);
    CHECK(!ct_requires_grad(y) && ct_grad_fn(y) == NULL);
}

static void test_saved_tensors_and_errors(void)
{
    ct_tensor *x = ct_from_array((float[]){1, 2, 3}, CT_SHAPE(3), CT_F32), *y, *z;
    ct_tensor *w = ct_mul_scalar(x, ct_int(1)); /* not a leaf: may be written in place */
    ct_requires_grad_(x, true);
    w = ct_mul_scalar(x, ct_int(1));
    CHECK_OK(ct_function_apply(&square, &w, 1, &y, NULL));
    CHECK_OK(ct_add_scalar_(w, ct_int(1))); /* the saved input changes */
    CHECK_FAILS(ct_backward(ct_sum(y), NULL, plain), CT_ERR_RUNTIME,
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                "[torch.FloatTensor [3]], which is output 0 of AddBackward0, is at version 1; expected version 0 instead.");
    CHECK_OK(ct_function_apply(&square, &x, 1, &z, NULL));
    CHECK_OK(ct_backward(ct_sum(z), NULL, plain));
    CHECK_VALUES(ct_grad(x), CT_SHAPE(3), 2, 4, 6);
    CHECK_FAILS(ct_backward(ct_sum(z), NULL, plain), CT_ERR_RUNTIME,
                "Trying to backward through the graph a second time");
    ct_tensor *none = NULL;
    CHECK_FAILS(ct_function_apply(&square, &none, 1, &y, NULL), CT_ERR_TYPE,
                "expected Tensor as element 0 in argument 0, but got NULL");
    CHECK_FAILS(ct_function_apply(NULL, &x, 1, &y, NULL), CT_ERR_VALUE, "Function.apply");
    CHECK_FAILS(ct_ctx_save_for_backward(NULL, &x, 1), CT_ERR_VALUE, "save_for_backward: ctx is NULL");
    CHECK(ct_ctx_saved_tensor(NULL, 0) == NULL);
    CHECK(ct_ctx_needs_input_grad(NULL, 0) == false);
}

/* Scale by a number the caller passes (a non-tensor argument) and keep it for backward in ctx data. */
static int freed;
static void free_factor(void *p)
{
    freed++;
    free(p);
}
static ct_result scale_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    double *k = (double *)malloc(sizeof *k);
    (void)n;
    *k = *(const double *)ct_ctx_user(ctx);
    ct_ctx_set_data(ctx, k, free_factor);
    CHECK(ct_ctx_needs_input_grad(ctx, 0) && !ct_ctx_needs_input_grad(ctx, 1) && !ct_ctx_needs_input_grad(ctx, 2));
    CHECK(!ct_is_grad_enabled()); /* forward runs unrecorded */
    out[0] = ct_mul(ct_mul_scalar(in[0], ct_float(*k)), in[1]);
    out[1] = ct_argmax(in[0]);
    return ct_ctx_mark_non_differentiable(ctx, out + 1, 1);
}
static ct_result scale_backward(ct_function_ctx *ctx, ct_tensor *const *go, ct_tensor **gi)
{
    double k = *(const double *)ct_ctx_data(ctx);
    CHECK(ct_ctx_needs_input_grad(ctx, 0) && !ct_ctx_needs_input_grad(ctx, 1));
    gi[0] = ct_mul_scalar(go[0], ct_float(k));
    gi[1] = ct_ones_like(go[0], CT_DEFAULT); /* not asked for: dropped, as PyTorch does */
    return CT_OK;
}

static void test_context(void)
{
    static const ct_function scale = {"Scale", 2, scale_forward, scale_backward, false};
    ct_tensor *x = ct_from_array((float[]){1, 5, 3}, CT_SHAPE(3), CT_F32), *out[2];
    ct_tensor *in[2] = {x, ct_ones(CT_SHAPE(3), CT_F32)};
    ct_requires_grad_(x, true);
    double k = 2.5;
    freed = 0;
    ct_scope s = ct_scope_begin();
    CHECK_OK(ct_function_apply(&scale, in, 2, out, &k));
    CHECK(ct_requires_grad(out[0]) && !ct_requires_grad(out[1]));
    CHECK(ct_item(out[1]) == 1);
    CHECK_STR(ct_node_name(ct_grad_fn(out[0])), "ScaleBackward");
    CHECK_OK(ct_backward(ct_sum(out[0]), NULL, plain));
    CHECK_VALUES(ct_grad(x), CT_SHAPE(3), 2.5, 2.5, 2.5);
    CHECK(ct_grad(in[1]) == NULL);
    ct_scope_end(s);
    CHECK(freed == 1); /* the ctx data goes with the graph */
}

/* Double in place: forward writes its input and marks it dirty. */
static ct_result double_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    (void)n;
    ct_result r = ct_mul_scalar_(in[0], ct_int(2));
    out[0] = in[0];
    return r == CT_OK ? ct_ctx_mark_dirty(ctx, in, 1) : r;
}
static ct_result double_backward(ct_function_ctx *ctx, ct_tensor *const *go, ct_tensor **gi)
{
    (void)ctx;
    gi[0] = ct_mul_scalar(go[0], ct_int(2));
    return CT_OK;
}
/* Identity that returns its input: the output is a new alias of it. */
static ct_result same_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    (void)ctx, (void)n;
    out[0] = in[0];
    return CT_OK;
}

static void test_dirty_and_alias(void)
{
    static const ct_function dbl = {"D", 1, double_forward, double_backward, false};
    static const ct_function same = {"I", 1, same_forward, double_backward, false};
    ct_tensor *x = ct_from_array((float[]){1, 2}, CT_SHAPE(2), CT_F32), *y, *z;
    ct_requires_grad_(x, true);
    CHECK_FAILS(ct_function_apply(&dbl, &x, 1, &y, NULL), CT_ERR_RUNTIME,
                "a leaf Variable that requires grad has been used in an in-place operation.");
    ct_tensor *w = ct_mul_scalar(x, ct_int(1));
    CHECK_OK(ct_function_apply(&dbl, &w, 1, &y, NULL));
    CHECK(y == w && ct_version(w) == 2); /* the write and mark_dirty each count */
    CHECK_STR(ct_node_name(ct_grad_fn(w)), "DBackward");
    CHECK_OK(ct_function_apply(&same, &x, 1, &z, NULL));
    CHECK(z != x && ct_storage_data_ptr(z) == ct_storage_data_ptr(x));
    CHECK_STR(ct_node_name(ct_grad_fn(z)), "IBackward");
    CHECK_OK(ct_backward(ct_sum(ct_add(y, z)), NULL, plain));
    CHECK_VALUES(ct_grad(x), CT_SHAPE(2), 4, 4); /* 2*2 from y, 2 from z's backward */
}

static void test_once_differentiable(void)
{
    ct_tensor *x = ct_from_array((double[]){1, 2}, CT_SHAPE(2), CT_F64), *y, *g;
    ct_requires_grad_(x, true);
    CHECK_OK(ct_function_apply(&square_once, &x, 1, &y, NULL));
    ct_grad_opts create = {true, true, false};
    ct_tensor *s = ct_sum(y);
    CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&s, 1, (const ct_tensor *const *)&x, 1, NULL, &g, create));
    CHECK(!ct_requires_grad(g)); /* backward ran unrecorded */
    CHECK_VALUES(g, CT_SHAPE(2), 2, 4);
    /* a grad_output that requires grad: differentiating the result again fails */
    ct_tensor *go = ct_ones(CT_SHAPE(2), CT_F64);
    ct_requires_grad_(go, true);
    CHECK_OK(ct_function_apply(&square_once, &x, 1, &y, NULL));
    CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&y, 1, (const ct_tensor *const *)&x, 1,
                              (const ct_tensor *const *)&go, &g, create));
    CHECK_STR(ct_node_name(ct_grad_fn(g)), "DelayedError");
    CHECK_FAILS(ct_backward(ct_sum(g), NULL, plain), CT_ERR_RUNTIME,
                "trying to differentiate twice a function that was marked with @once_differentiable");
}

/* checkpoint: y = tanh(x * w) * w + noise * x, with w a parameter it is not given and noise drawn inside */
static int block(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    ct_tensor *w = (ct_tensor *)user, *noise = ct_rand(ct_shape_of(in[0]), CT_F64, NULL);
    (void)n;
    out[0] = ct_add(ct_mul(ct_tanh(ct_mul(in[0], w)), w), ct_mul(noise, in[0]));
    return out[0] ? 1 : -1;
}

static void run_block_twice(bool checkpointed, ct_tensor **gx, ct_tensor **gw)
{
    ct_tensor *x = ct_from_array((double[]){0.5, -1, 2}, CT_SHAPE(3), CT_F64);
    ct_tensor *w = ct_from_array((double[]){1.5, 0.25, -0.5}, CT_SHAPE(3), CT_F64), *y, *z;
    ct_requires_grad_(x, true);
    ct_requires_grad_(w, true);
    ct_manual_seed(7);
    if (checkpointed) {
        CHECK_OK(ct_checkpoint(block, &x, 1, &y, 1, w));
        CHECK_STR(ct_node_name(ct_grad_fn(y)), "CheckpointFunctionBackward");
        ct_rand(CT_SHAPE(5), CT_F64, NULL); /* the generator moves on before backward */
        CHECK_OK(ct_checkpoint(block, &y, 1, &z, 1, w));
    } else {
        CHECK(block(&x, 1, &y, w) == 1);
        ct_rand(CT_SHAPE(5), CT_F64, NULL);
        CHECK(block(&y, 1, &z, w) == 1);
    }
    CHECK_OK(ct_backward(ct_sum(z), NULL, plain));
    *gx = ct_grad(x);
    *gw = ct_grad(w);
}

static void test_checkpoint(void)
{
    ct_tensor *gx, *gw, *cx, *cw;
    run_block_twice(false, &gx, &gw);
    run_block_twice(true, &cx, &cw);
    CHECK(gx && gw && cx && cw);
    /* the same numbers, but w's four gradients add up in another order (two inner backwards) */
    ct_isclose_opts near = {1e-14, 0, false};
    CHECK(ct_equal(gx, cx) && ct_allclose(gw, cw, near));
    /* autograd.grad and backward(inputs=) cannot rerun it (PyTorch's error), with or without create_graph */
    static const char refused[] = "Checkpointing is not compatible with .grad() or when an `inputs` parameter is "
                                  "passed to .backward(). Please use .backward() and do not pass its `inputs` argument.";
    ct_tensor *x = ct_from_array((double[]){1, 2}, CT_SHAPE(2), CT_F64), *w = ct_ones(CT_SHAPE(2), CT_F64), *y, *g;
    ct_requires_grad_(x, true);
    CHECK_OK(ct_checkpoint(block, &x, 1, &y, 1, w));
    ct_tensor *s = ct_sum(y);
    ct_grad_opts keep = {true, false, false}, create = {true, true, false};
    CHECK_FAILS(ct_autograd_grad((const ct_tensor *const *)&s, 1, (const ct_tensor *const *)&x, 1, NULL, &g, keep),
                CT_ERR_RUNTIME, refused);
    CHECK_FAILS(ct_autograd_grad((const ct_tensor *const *)&s, 1, (const ct_tensor *const *)&x, 1, NULL, &g, create),
                CT_ERR_RUNTIME, refused);
    ct_backward_opts only_x = {true, false, (const ct_tensor *const *)&x, 1};
    CHECK_FAILS(ct_backward(s, NULL, only_x), CT_ERR_RUNTIME, refused);
    CHECK(ct_grad(x) == NULL);
    /* a plain backward with create_graph runs it; the gradient has no history (as in PyTorch) */
    ct_backward_opts create_graph = {true, true, NULL, 0};
    CHECK_OK(ct_backward(s, NULL, create_graph));
    CHECK(ct_grad(x) && ct_grad_fn(ct_grad(x)) == NULL);
    CHECK_FAILS(ct_checkpoint(NULL, &x, 1, &y, 1, w), CT_ERR_VALUE,
                "checkpoint: give a function and room for its 1 to 8 outputs");
}

static int times_w(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    (void)n;
    out[0] = ct_sigmoid(ct_mul(in[0], (ct_tensor *)user));
    return out[0] ? 1 : -1;
}

static void test_checkpoint_sequential(void)
{
    ct_tensor *x = ct_from_array((double[]){0.5, -1}, CT_SHAPE(2), CT_F64), *w[5];
    ct_checkpoint_fn fns[5];
    void *users[5];
    ct_requires_grad_(x, true);
    for (int i = 0; i < 5; i++) {
        w[i] = ct_full(CT_SHAPE(2), ct_float(0.5 + i), CT_F64);
        ct_requires_grad_(w[i], true);
        fns[i] = times_w;
        users[i] = w[i];
    }
    ct_tensor *plain_out = x;
    for (int i = 0; i < 5; i++) CHECK(times_w(&plain_out, 1, &plain_out, w[i]) == 1);
    CHECK_OK(ct_backward(ct_sum(plain_out), NULL, plain));
    ct_tensor *gx = ct_grad(x), *gw0 = ct_grad(w[0]), *gw4 = ct_grad(w[4]);
    for (int i = 0; i < 5; i++) ct_set_grad(w[i], NULL);
    ct_set_grad(x, NULL);
    ct_tensor *y = ct_checkpoint_sequential(fns, users, 5, 2, x); /* chunks [0, 2) checkpointed, [2, 5) plain */
    CHECK(y && ct_equal(y, plain_out));
    CHECK_OK(ct_backward(ct_sum(y), NULL, plain));
    CHECK(ct_equal(ct_grad(x), gx) && ct_equal(ct_grad(w[0]), gw0) && ct_equal(ct_grad(w[4]), gw4));
    CHECK(ct_checkpoint_sequential(fns, users, 5, 0, x) == NULL);
}

int main(void)
{
    RUN(test_square_seed);
    RUN(test_saved_tensors_and_errors);
    RUN(test_context);
    RUN(test_dirty_and_alias);
    RUN(test_once_differentiable);
    RUN(test_checkpoint);
    RUN(test_checkpoint_sequential);
    return ct_test_report();
}
