/* DistributedDataParallel on the mpi backend (mpirun) or the gloo backend
 * (ctorchrun), dist_harness.h, with any number
 * of ranks up to 4: N ranks on B/N samples each must end where one process
 * on B samples ends, buckets must be PyTorch's, and a model that differs
 * between ranks must fail on every rank. */
#include "dist_harness.h"

static int R, W;
enum { B = 12, IN = 10, OUT = 5, STEPS = 4 }; /* B divides by 2, 3 and 4 */

/* The seed's ToyModel (net1, relu, net2), hidden units wide. */
static ct_module *toy_model(int64_t hidden)
{
    ct_module *layers[3] = {ct_nn_linear(IN, hidden, true), ct_nn_relu(), ct_nn_linear(hidden, OUT, true)};
    return ct_nn_sequential(layers, 3);
}

/* Step k's global batch, the same on every rank. */
static void batch(int k, ct_tensor **x, ct_tensor **y)
{
    ct_generator *g = ct_generator_new();
    ct_generator_manual_seed(g, 1000 + (uint64_t)k);
    *x = ct_randn(CT_SHAPE(B, IN), CT_F32, g);
    *y = ct_randn(CT_SHAPE(B, OUT), CT_F32, g);
    ct_generator_free(g);
}

static ct_tensor *rows(const ct_tensor *t, int64_t start, int64_t n) { return ct_narrow(t, 0, start, n); }

static ct_optimizer *sgd(ct_module *m, double lr)
{
    ct_tensor_list p = ct_module_parameters(m, true);
    ct_optimizer *opt = ct_sgd(p.tensors, p.n, (ct_sgd_opts){.lr = lr, .momentum = 0.9});
    ct_tensor_list_free(&p);
    return opt;
}

/* One training step: loss (sum of squares scaled by `scale`) on x's rows. */
static void step(ct_module *m, ct_optimizer *opt, const ct_tensor *x, const ct_tensor *y, double scale, bool zero)
{
    ct_scope s = ct_scope_begin();
    if (zero) CHECK_OK(ct_optim_zero_grad(opt, true));
    ct_tensor *loss = ct_mul_scalar(ct_mse_loss(ct_forward(m, x), y, CT_REDUCTION_SUM), ct_float(scale));
    CHECK_OK(ct_backward(loss, NULL, (ct_backward_opts){0}));
    ct_scope_end(s);
}

/* Largest difference between two modules' parameters, in order. */
static double max_param_diff(ct_module *a, ct_module *b)
{
    ct_tensor_list pa = ct_module_parameters(a, true), pb = ct_module_parameters(b, true);
    double worst = pa.n == pb.n ? 0 : INFINITY;
    for (int i = 0; i < pa.n && i < pb.n; i++) {
        double d = ct_item(ct_max(ct_abs(ct_sub(pa.tensors[i], pb.tensors[i]))));
        if (!(d <= worst)) worst = d;
    }
    ct_tensor_list_free(&pa);
    ct_tensor_list_free(&pb);
    return worst;
}

/* The end of a comparison: DDP's parameters are the single process's. */
static void check_same_and_free(ct_module *one, ct_module *ddp, ct_optimizer *o1, ct_optimizer *od)
{
    CHECK_NEAR(max_param_diff(one, ddp), 0, 2e-6);
    ct_optim_free(o1);
    ct_optim_free(od);
    ct_module_release(one);
    ct_module_release(ddp);
}

/* A reference model: rank 0's initial parameters (seed 1), in one process. */
static ct_module *reference(int64_t hidden)
{
    ct_manual_seed(1);
    return toy_model(hidden);
}

/* Each rank starts from its own parameters; DDP's construction gives every
 * rank rank 0's. */
static ct_module *wrapped(int64_t hidden, double bucket_cap_mb)
{
    ct_manual_seed(1 + (uint64_t)R);
    ct_ddp_opts o = ct_ddp_opts_init();
    o.bucket_cap_mb = bucket_cap_mb;
    return ct_ddp(toy_model(hidden), o);
}

/* K steps of SGD with momentum: DDP on B/W rows per rank against one process
 * on B (lr small enough for the model not to diverge, which would magnify
 * the float rounding that the ranks' partial sums change). */
static void check_matches_single_process(int64_t hidden, double bucket_cap_mb, int want_buckets, double lr)
{
    ct_module *one = reference(hidden), *ddp = wrapped(hidden, bucket_cap_mb);
    CHECK_T(ddp);
    if (!ddp) return;
    int64_t sizes[8];
    CHECK_INT(ct_ddp_bucket_sizes(ddp, sizes, 8), want_buckets);
    CHECK(max_param_diff(one, ddp) == 0); /* rank 0's initial parameters everywhere */
    ct_optimizer *o1 = sgd(one, lr), *od = sgd(ddp, lr);
    int64_t local = B / W;
    for (int k = 0; k < STEPS; k++) {
        ct_tensor *x, *y;
        batch(k, &x, &y);
        step(one, o1, x, y, 1.0 / (B * OUT), true); /* mean over the whole batch */
        CHECK_OK(ct_optim_step(o1));
        step(ddp, od, rows(x, R * local, local), rows(y, R * local, local), 1.0 / (local * OUT), true);
        CHECK_OK(ct_optim_step(od));
    }
    check_same_and_free(one, ddp, o1, od);
}

static void test_ddp_one_bucket_matches_one_process(void) { check_matches_single_process(10, 25, 1, 0.05); }

/* net1.weight alone passes the first 1 MiB; with 0.1 MB buckets each
 * parameter has its own, and all-reduces overlap the rest of backward. */
static void test_ddp_four_buckets_match_one_process(void) { check_matches_single_process(30000, 0.1, 4, 0.002); }

static void test_no_sync_accumulates_like_one_big_batch(void)
{
    ct_module *one = reference(16), *ddp = wrapped(16, 25);
    ct_optimizer *o1 = sgd(one, 0.05), *od = sgd(ddp, 0.05);
    int64_t half = B / W / 2 > 0 ? B / W / 2 : 1, local = B / W;
    double scale = 1.0 / (B * OUT) * W; /* DDP's average over W ranks gives back the global mean */
    for (int k = 0; k < 2; k++) {
        ct_tensor *x, *y;
        batch(k, &x, &y);
        step(one, o1, x, y, 1.0 / (B * OUT), true);
        CHECK_OK(ct_optim_step(o1));
        CHECK(!ct_ddp_no_sync(ddp, true));
        step(ddp, od, rows(x, R * local, half), rows(y, R * local, half), scale, true);
        CHECK(ct_ddp_no_sync(ddp, false));
        step(ddp, od, rows(x, R * local + half, local - half), rows(y, R * local + half, local - half), scale, false);
        CHECK_OK(ct_optim_step(od));
    }
    check_same_and_free(one, ddp, o1, od);
}

/* A module of given parameters (no forward): what buckets are made of. */
static ct_tensor *params_forward(ct_module *self, ct_tensor *const *inputs, int n)
{
    (void)self, (void)n;
    return ct_keep(ct_clone(inputs[0]));
}
static const ct_module_class params_class = {"Params", params_forward, NULL};

static ct_module *params_module(const int64_t *numel, const ct_dtype *dtypes, int n)
{
    ct_module *m = ct_module_new(&params_class, sizeof(ct_module));
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        ct_register_parameter(m, name, ct_zeros(CT_SHAPE(numel[i]), dtypes[i]));
    }
    return m;
}

static void check_buckets(const int64_t *numel, const ct_dtype *dtypes, int n, double cap_mb, const int64_t *want,
                          int n_want)
{
    ct_ddp_opts o = ct_ddp_opts_init();
    o.bucket_cap_mb = cap_mb;
    ct_module *ddp = ct_ddp(params_module(numel, dtypes, n), o);
    CHECK_T(ddp);
    int64_t sizes[8] = {0};
    CHECK_INT(ct_ddp_bucket_sizes(ddp, sizes, 8), n_want);
    for (int i = 0; i < n_want; i++) CHECK_INT(sizes[i], want[i]);
    ct_module_release(ddp);
}

/* The bucket sizes PyTorch 1.13's dist._compute_bucket_assignment_by_size
 * gives for these parameters, reversed as DDP hands them to its Reducer. */
static void test_buckets_are_pytorchs(void)
{
    const ct_dtype f32x8[8] = {CT_F32, CT_F32, CT_F32, CT_F32, CT_F32, CT_F32, CT_F32, CT_F32};
    const int64_t eight[8] = {100000, 100000, 100000, 100000, 100000, 100000, 100000, 100000};
    check_buckets(eight, f32x8, 8, 25, (const int64_t[]){2000000, 1200000}, 2); /* [[0,1,2],[3..7]] */
    check_buckets(eight, f32x8, 8, 1, (const int64_t[]){800000, 1200000, 1200000}, 3);
    check_buckets((const int64_t[]){300000, 30000, 150000, 5}, f32x8, 4, 0.1,
                  (const int64_t[]){20, 600000, 120000, 1200000}, 4);
    check_buckets((const int64_t[]){100000, 10, 200000, 300000}, (const ct_dtype[]){CT_F32, CT_F64, CT_F32, CT_F64}, 4,
                  1, (const int64_t[]){2400080, 1200000}, 2); /* a bucket per dtype */
}

static void test_buffers_follow_rank_0(void)
{
    for (int b = 0; b < 2; b++) {
        ct_module *m = params_module((const int64_t[]){3}, (const ct_dtype[]){CT_F32}, 1);
        ct_register_buffer(m, "count", ct_full(CT_SHAPE(2), ct_int(R), CT_F32), true);
        ct_ddp_opts o = ct_ddp_opts_init();
        o.broadcast_buffers = b == 0;
        ct_module *ddp = ct_ddp(m, o);
        ct_tensor *buf = ct_module_get_buffer(ddp, "module.count");
        DCHECK_VALUES(buf, 0, 0); /* at construction, always */
        CHECK_OK(ct_fill_(buf, ct_int(R + 10)));
        ct_forward(ddp, ct_zeros(CT_SHAPE(1), CT_F32));
        DCHECK_VALUES(buf, b == 0 ? 10 : R + 10, b == 0 ? 10 : R + 10); /* before each forward, when asked */
        ct_module_release(ddp);
    }
}

static void test_state_dict_keys_and_module(void)
{
    ct_module *ddp = ct_ddp(toy_model(4), ct_ddp_opts_init());
    ct_tensor_list sd = ct_module_state_dict(ddp);
    CHECK_INT(sd.n, 4);
    if (sd.n == 4) {
        CHECK_STR(sd.names[0], "module.0.weight");
        CHECK_STR(sd.names[3], "module.2.bias");
    }
    ct_tensor_list_free(&sd);
    CHECK_STR(ct_module_name(ddp), "DistributedDataParallel");
    CHECK_STR(ct_module_name(ct_ddp_module(ddp)), "Sequential");
    ct_module_release(ddp);
}

static void test_model_mismatch_fails_everywhere(void)
{
    ct_module *m = toy_model(R == 1 ? 11 : 10);
    CHECK(ct_ddp(m, ct_ddp_opts_init()) == NULL);
    CHECK_ERR(0, CT_ERR_RUNTIME, "DDP expects same model across all ranks, but Rank ");
    ct_module *extra = params_module((const int64_t[]){3, 4}, (const ct_dtype[]){CT_F32, CT_F32}, R == 1 ? 2 : 1);
    CHECK(ct_ddp(extra, ct_ddp_opts_init()) == NULL);
    CHECK_ERR(0, CT_ERR_RUNTIME, R == 1 ? "Rank 1 has 2 params, while rank 0 has inconsistent 1 params."
                                        : "has 1 params, while rank 1 has inconsistent 2 params.");
    CHECK(ct_ddp(ct_nn_relu(), ct_ddp_opts_init()) == NULL);
    CHECK_ERR(0, CT_ERR_RUNTIME,
              "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient.");
    CHECK(ct_ddp(NULL, ct_ddp_opts_init()) == NULL);
    CHECK_ERR(0, CT_ERR_TYPE, "argument 'module' must be Module, not NULL");
    ct_module *relu = ct_nn_relu();
    CHECK(!ct_ddp_no_sync(relu, true));
    CHECK_ERR(0, CT_ERR_TYPE, "expected a DistributedDataParallel module");
    ct_module_release(relu);
}

/* An unused parameter keeps its bucket from being reduced: the next forward says so. */
static ct_tensor *first_only_forward(ct_module *self, ct_tensor *const *inputs, int n)
{
    (void)n;
    return ct_mul(inputs[0], ct_module_get_parameter(self, "p0"));
}
static const ct_module_class first_only_class = {"FirstOnly", first_only_forward, NULL};

static void test_unused_parameter_is_reported(void)
{
    ct_module *m = ct_module_new(&first_only_class, sizeof(ct_module));
    ct_register_parameter(m, "p0", ct_ones(CT_SHAPE(2), CT_F32));
    ct_register_parameter(m, "p1", ct_ones(CT_SHAPE(2), CT_F32));
    ct_module *ddp = ct_ddp(m, ct_ddp_opts_init());
    ct_tensor *x = ct_ones(CT_SHAPE(2), CT_F32);
    CHECK_OK(ct_backward(ct_sum(ct_forward(ddp, x)), NULL, (ct_backward_opts){0}));
    CHECK(ct_forward(ddp, x) == NULL);
    CHECK_ERR(0, CT_ERR_RUNTIME, "Expected to have finished reduction in the prior iteration before starting a new one.");
    ct_module_release(ddp);
}

/* find_unused_parameters: out = x * p0 (+ x * p1 on the ranks in p1_ranks),
 * p2 never used; or x * 2 alone, reaching no parameter, when reach_none. */
static unsigned p1_ranks;
static bool reach_none;
static ct_tensor *branches_forward(ct_module *self, ct_tensor *const *inputs, int n)
{
    (void)n;
    if (reach_none) return ct_mul_scalar(inputs[0], ct_int(2));
    ct_tensor *out = ct_mul(inputs[0], ct_module_get_parameter(self, "p0"));
    if (p1_ranks >> R & 1) out = ct_add(out, ct_mul(inputs[0], ct_module_get_parameter(self, "p1")));
    return out;
}
static const ct_module_class branches_class = {"Branches", branches_forward, NULL};

/* One backward of sum(out) with x = R + 1 everywhere. */
static void backward_branches(ct_module *ddp)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *out = ct_forward(ddp, ct_full(CT_SHAPE(2), ct_int(R + 1), CT_F32));
    CHECK_T(out);
    if (out && !reach_none) CHECK_OK(ct_backward(ct_sum(out), NULL, (ct_backward_opts){0}));
    ct_scope_end(s);
}

static void test_find_unused_parameters(void)
{
    ct_module *m = ct_module_new(&branches_class, sizeof(ct_module));
    const char *names[3] = {"p0", "p1", "p2"};
    for (int i = 0; i < 3; i++) ct_register_parameter(m, names[i], ct_ones(CT_SHAPE(2), CT_F32));
    ct_ddp_opts o = ct_ddp_opts_init();
    o.find_unused_parameters = true;
    o.bucket_cap_mb = 1e-6; /* a bucket per parameter: unused ones fill buckets of their own */
    ct_module *ddp = ct_ddp(m, o);
    CHECK_T(ddp);
    if (!ddp) return;
    ct_tensor *p0 = ct_module_get_parameter(m, "p0"), *p1 = ct_module_get_parameter(m, "p1");
    ct_tensor *p2 = ct_module_get_parameter(m, "p2");
    double mean_x = (W + 1) / 2.0; /* the average of R + 1 over the ranks */
    p1_ranks = 1; /* rank 0 alone uses p1 */
    for (int step = 0; step < 2; step++) { /* the second forward finds the first reduction finished */
        backward_branches(ddp);
        CHECK_VALUES(ct_grad(p0), CT_SHAPE(2), (step + 1) * mean_x, (step + 1) * mean_x);
        float p1_grad = (float)(step + 1) / (float)W; /* rank 0's x over W, as the float all-reduce gives it */
        CHECK_VALUES(ct_grad(p1), CT_SHAPE(2), p1_grad, p1_grad);
        CHECK(ct_grad(p2) == NULL); /* used by no rank: left alone */
    }
    reach_none = true; /* an output that reaches no parameter ends its reduction in forward */
    backward_branches(ddp);
    reach_none = false;
    p1_ranks = 0;
    backward_branches(ddp);
    CHECK_VALUES(ct_grad(p0), CT_SHAPE(2), 3 * mean_x, 3 * mean_x);
    CHECK_VALUES(ct_grad(p1), CT_SHAPE(2), 2.0f / (float)W, 2.0f / (float)W); /* used by no rank: left alone */
    CHECK(ct_grad(p2) == NULL);
    ct_module_release(ddp);
}

/* SyncBatchNorm on W ranks of B/W samples is BatchNorm on the B samples:
 * outputs, input gradients, the parameters' gradients summed over ranks,
 * the running statistics, and eval mode afterwards. */
static void test_sync_batch_norm_is_batch_norm_of_the_whole_batch(void)
{
    ct_generator *gen = ct_generator_new();
    ct_generator_manual_seed(gen, 7);
    ct_tensor *x = ct_mul_scalar(ct_randn(CT_SHAPE(B, 3, 2), CT_F32, gen), ct_int(3));
    ct_tensor *g = ct_randn(CT_SHAPE(B, 3, 2), CT_F32, gen);
    ct_generator_free(gen);
    ct_tensor *wv = ct_from_array((float[]){1.5f, -0.5f, 2}, CT_SHAPE(3), CT_F32);
    ct_tensor *bv = ct_from_array((float[]){0.1f, 0.2f, 0.3f}, CT_SHAPE(3), CT_F32);
    ct_module *ref = ct_nn_batch_norm1d(3, ct_norm_opts_init()), *sync = ct_nn_sync_batch_norm(3, ct_norm_opts_init(), NULL);
    CHECK_T(sync);
    ct_module *both[2] = {ref, sync};
    ct_grad_mode mode = ct_no_grad();
    for (int k = 0; k < 2; k++) {
        CHECK_OK(ct_copy_(ct_module_get_parameter(both[k], "weight"), wv));
        CHECK_OK(ct_copy_(ct_module_get_parameter(both[k], "bias"), bv));
    }
    ct_grad_mode_restore(mode);
    int64_t local = B / W;
    ct_tensor *xr = ct_detach(x), *xs = ct_contiguous(rows(x, R * local, local));
    CHECK_OK(ct_requires_grad_(xr, true));
    CHECK_OK(ct_requires_grad_(xs, true));
    ct_tensor *yr = ct_forward(ref, xr), *ys = ct_forward(sync, xs);
    CHECK_OK(ct_backward(ct_sum(ct_mul(yr, g)), NULL, (ct_backward_opts){0}));
    CHECK_OK(ct_backward(ct_sum(ct_mul(ys, rows(g, R * local, local))), NULL, (ct_backward_opts){0}));
    CHECK_NEAR(ct_item(ct_max(ct_abs(ct_sub(ys, rows(yr, R * local, local))))), 0, 2e-5);
    CHECK_NEAR(ct_item(ct_max(ct_abs(ct_sub(ct_grad(xs), rows(ct_grad(xr), R * local, local))))), 0, 2e-5);
    const char *names[2] = {"weight", "bias"};
    for (int k = 0; k < 2; k++) {
        ct_tensor *mine = ct_clone(ct_grad(ct_module_get_parameter(sync, names[k])));
        CHECK_OK(ct_dist_all_reduce(mine, CT_REDUCE_SUM, (ct_dist_opts){0}));
        CHECK_NEAR(ct_item(ct_max(ct_abs(ct_sub(mine, ct_grad(ct_module_get_parameter(ref, names[k])))))), 0, 5e-5);
    }
    const char *stats[2] = {"running_mean", "running_var"};
    for (int k = 0; k < 2; k++)
        CHECK_NEAR(ct_item(ct_max(ct_abs(ct_sub(ct_module_get_buffer(sync, stats[k]), ct_module_get_buffer(ref, stats[k]))))),
                   0, 2e-5);
    CHECK_INT(ct_item_int(ct_module_get_buffer(sync, "num_batches_tracked")), 1);
    ct_module_eval(ref);
    ct_module_eval(sync);
    CHECK_NEAR(ct_item(ct_max(ct_abs(ct_sub(ct_forward(sync, xs), rows(ct_forward(ref, xr), R * local, local))))), 0, 2e-5);
    CHECK(ct_forward(sync, ct_zeros(CT_SHAPE(3), CT_F32)) == NULL);
    CHECK_ERR(0, CT_ERR_VALUE, "expected at least 2D input (got 1D input)");
    ct_module_release(ref);
    ct_module_release(sync);
}

/* convert_sync_batchnorm swaps each BatchNorm for a SyncBatchNorm with the
 * same tensors, options and mode, at any depth, and leaves the rest. */
static void test_convert_sync_batchnorm(void)
{
    ct_norm_opts o = ct_norm_opts_init();
    o.eps = 1e-3;
    ct_module *inner[2] = {ct_nn_linear(4, 3, true), ct_nn_batch_norm1d(3, o)};
    ct_module *outer[2] = {ct_nn_sequential(inner, 2), ct_nn_batch_norm2d(5, ct_norm_opts_init())};
    ct_module *net = ct_nn_sequential(outer, 2);
    ct_module_eval(ct_module_get_submodule(net, "1"));
    ct_tensor *w = ct_module_get_parameter(net, "0.1.weight"), *rm = ct_module_get_buffer(net, "1.running_mean");
    ct_module *same = ct_convert_sync_batchnorm(net, NULL);
    CHECK(same == net);
    CHECK_STR(ct_module_name(ct_module_get_submodule(net, "0.1")), "SyncBatchNorm");
    CHECK_STR(ct_module_name(ct_module_get_submodule(net, "1")), "SyncBatchNorm");
    CHECK_STR(ct_module_name(ct_module_get_submodule(net, "0.0")), "Linear");
    CHECK(ct_module_get_parameter(net, "0.1.weight") == w);
    CHECK(ct_module_get_buffer(net, "1.running_mean") == rm);
    CHECK(!ct_module_is_training(ct_module_get_submodule(net, "1")));
    ct_tensor_list sd = ct_module_state_dict(net);
    CHECK_INT(sd.n, 2 + 5 + 5);
    ct_tensor_list_free(&sd);
    /* the converted layer normalises with the eps it was given */
    ct_tensor *x = ct_from_array((float[]){0, 1, 0, 1, 0, 1, 0, 1}, CT_SHAPE(2, 4), CT_F32);
    ct_tensor *y = ct_forward(ct_module_get_submodule(net, "0"), x);
    CHECK_T(y);
    ct_module_release(net);
    ct_module *bn = ct_convert_sync_batchnorm(ct_nn_batch_norm1d(2, ct_norm_opts_init()), NULL);
    CHECK_STR(ct_module_name(bn), "SyncBatchNorm");
    ct_module_release(bn);
}

int main(void)
{
    if (ct_dist_init_process_group(DIST_BACKEND, (ct_dist_init_opts){0}) != CT_OK) {
        printf("init_process_group failed: %s\n", ct_last_error());
        return 1;
    }
    R = ct_dist_get_rank(NULL);
    W = ct_dist_get_world_size(NULL);
    if (B % W) {
        printf("these tests take 1, 2, 3, 4, 6 or 12 ranks\n");
        return 1;
    }
    DRUN(test_ddp_one_bucket_matches_one_process);
    DRUN(test_ddp_four_buckets_match_one_process);
    DRUN(test_no_sync_accumulates_like_one_big_batch);
    DRUN(test_buckets_are_pytorchs);
    DRUN(test_buffers_follow_rank_0);
    DRUN(test_state_dict_keys_and_module);
    if (W > 1) DRUN(test_model_mismatch_fails_everywhere);
    DRUN(test_unused_parameter_is_reported);
    DRUN(test_find_unused_parameters);
    DRUN(test_sync_batch_norm_is_batch_norm_of_the_whole_batch);
    DRUN(test_convert_sync_batchnorm);
    int res = dist_report();
    ct_dist_destroy_process_group(NULL);
    return res;
}
