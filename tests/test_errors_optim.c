/* Bad input to the optimizers, lr schedulers, clipping and GradScaler:
 * PyTorch's words, no crash, and nothing changed by a failed call. */
#include "errors.h"

static ct_tensor *param(void)
{
    ct_tensor *p = ct_ones(CT_SHAPE(2), CT_F32);
    ct_requires_grad_(p, true);
    return p;
}

static ct_tensor *params[2];

static ct_optimizer *sgd(void)
{
    params[0] = param();
    params[1] = param();
    return ct_sgd(params, 2, (ct_sgd_opts){.lr = 0.1, .momentum = 0.9});
}

static double one(int64_t e, void *u) { (void)e, (void)u; return 1; }

static void test_optimizer_options(void)
{
    ct_tensor *p = param();
    FAILS_T(ct_sgd(&p, 1, (ct_sgd_opts){.lr = -0.1}), CT_ERR_VALUE, "Invalid learning rate: -0.1");
    FAILS_T(ct_sgd(&p, 1, (ct_sgd_opts){.lr = 0.1, .nesterov = true}), CT_ERR_VALUE,
            "Nesterov momentum requires a momentum and zero dampening");
    FAILS_T(ct_sgd(&p, 1, (ct_sgd_opts){.lr = 0.1, .momentum = -1}), CT_ERR_VALUE, "Invalid momentum value: -1.0");
    ct_adam_opts a = ct_adam_opts_init();
    a.beta1 = 1.0;
    FAILS_T(ct_adam(&p, 1, a), CT_ERR_VALUE, "Invalid beta parameter at index 0: 1.0");
    a = ct_adamw_opts_init();
    a.beta2 = -0.5;
    FAILS_T(ct_adamw(&p, 1, a), CT_ERR_VALUE, "Invalid beta parameter at index 1: -0.5");
    a = ct_adam_opts_init();
    a.eps = -1e-8;
    FAILS_T(ct_adam(&p, 1, a), CT_ERR_VALUE, "Invalid epsilon value: -1e-08");
    ct_rmsprop_opts r = ct_rmsprop_opts_init();
    r.alpha = -1;
    FAILS_T(ct_rmsprop(&p, 1, r), CT_ERR_VALUE, "Invalid alpha value: -1.0");
    ct_adagrad_opts g = ct_adagrad_opts_init();
    g.initial_accumulator_value = -1;
    FAILS_T(ct_adagrad(&p, 1, g), CT_ERR_VALUE, "Invalid initial_accumulator_value value: -1.0");
    ct_adadelta_opts d = ct_adadelta_opts_init();
    d.rho = 1.5;
    FAILS_T(ct_adadelta(&p, 1, d), CT_ERR_VALUE, "Invalid rho value: 1.5");
    ct_adamax_opts m = ct_adamax_opts_init();
    m.weight_decay = -0.01;
    FAILS_T(ct_adamax(&p, 1, m), CT_ERR_VALUE, "Invalid weight_decay value: -0.01");
    ct_nadam_opts n = ct_nadam_opts_init();
    n.momentum_decay = -1;
    FAILS_T(ct_nadam(&p, 1, n), CT_ERR_VALUE, "Invalid momentum_decay value: -1.0");
    ct_radam_opts ra = ct_radam_opts_init();
    ra.lr = -1;
    FAILS_T(ct_radam(&p, 1, ra), CT_ERR_VALUE, "Invalid learning rate: -1.0");
    FAILS_T(ct_lbfgs(NULL, 0, ct_lbfgs_opts_init()), CT_ERR_VALUE, "optimizer got an empty parameter list");
}

static void test_parameters(void)
{
    ct_tensor *p = param(), *q = ct_mul_scalar(param(), ct_float(2));
    ct_tensor *none[1] = {NULL}, *twice[2] = {p, p};
    FAILS_T(ct_sgd(NULL, 0, (ct_sgd_opts){.lr = 0.1}), CT_ERR_VALUE, "optimizer got an empty parameter list");
    FAILS_T(ct_sgd(&q, 1, (ct_sgd_opts){.lr = 0.1}), CT_ERR_VALUE, "can't optimize a non-leaf Tensor");
    FAILS_T(ct_sgd(none, 1, (ct_sgd_opts){.lr = 0.1}), CT_ERR_TYPE,
            "optimizer can only optimize Tensors, but one of the params is NoneType");
    FAILS_T(ct_sgd(twice, 2, (ct_sgd_opts){.lr = 0.1}), CT_ERR_VALUE,
            "some parameters appear in more than one parameter group");
    ct_optimizer *opt = sgd();
    FAILS_R(ct_optim_add_param_group(opt, (ct_param_group){&params[0], 1, {{0}}}), CT_ERR_VALUE,
            "some parameters appear in more than one parameter group");
    FAILS_R(ct_optim_add_param_group(opt, (ct_param_group){&p, 1, {{"betas", 0.9}}}), CT_ERR_VALUE,
            "SGD has no option 'betas'");
    FAILS_R(ct_optim_add_param_group(NULL, (ct_param_group){&p, 1, {{0}}}), CT_ERR_TYPE,
            "add_param_group(): optimizer must not be NULL");
    CHECK_INT(ct_optim_num_groups(opt), 1); /* nothing was added */
    CHECK_INT(ct_optim_num_groups(NULL), 0);
    ct_optim_free(opt);
    ct_optim_free(NULL);
}

static void test_options_by_name(void)
{
    ct_optimizer *opt = sgd();
    CHECK(isnan(ct_optim_get(opt, 0, "bogus")));
    expect_fail(__LINE__, "get bogus", true, CT_ERR_INDEX, "'bogus'");
    CHECK(isnan(ct_optim_get(opt, 0, "initial_lr")));
    expect_fail(__LINE__, "get initial_lr", true, CT_ERR_INDEX, "'initial_lr'");
    CHECK(isnan(ct_optim_get(opt, 1, "lr")));
    expect_fail(__LINE__, "get group 1", true, CT_ERR_INDEX, "list index out of range");
    CHECK(isnan(ct_optim_get(NULL, 0, "lr")));
    expect_fail(__LINE__, "get NULL", true, CT_ERR_TYPE, "optimizer must not be NULL");
    FAILS_R(ct_optim_set(opt, 0, "beta1", 0.9), CT_ERR_VALUE, "SGD has no option 'beta1'");
    FAILS_R(ct_optim_set(opt, -1, "lr", 0.9), CT_ERR_INDEX, "list index out of range");
    CHECK(ct_optim_get(opt, 0, "lr") == 0.1);
    ct_optim_free(opt);
}

static void test_steps_and_state(void)
{
    ct_tensor *p = param();
    ct_optimizer *opt = sgd(), *lbfgs = ct_lbfgs(&p, 1, ct_lbfgs_opts_init());
    FAILS_R(ct_optim_step(NULL), CT_ERR_TYPE, "step(): optimizer must not be NULL");
    FAILS_R(ct_optim_step(lbfgs), CT_ERR_TYPE, "step() missing 1 required positional argument: 'closure'");
    FAILS_R(ct_optim_step_closure(opt, NULL, NULL, NULL), CT_ERR_TYPE, "'NoneType' object is not callable");
    FAILS_R(ct_optim_step_closure(NULL, NULL, NULL, NULL), CT_ERR_TYPE, "step(): optimizer must not be NULL");
    FAILS_R(ct_optim_zero_grad(NULL, true), CT_ERR_TYPE, "zero_grad(): optimizer must not be NULL");
    FAILS_T(ct_optim_state_get(opt, NULL_T, "momentum_buffer"), CT_ERR_TYPE,
            "optim_state_get(): argument 'param' (position 2) must be Tensor, not NULL");
    FAILS_T(ct_optim_state_get(opt, p, "momentum_buffer"), CT_ERR_INDEX, "'param'");
    FAILS_T(ct_optim_state_get(NULL, p, "step"), CT_ERR_TYPE, "state_get(): optimizer must not be NULL");
    FAILS_T(ct_optim_state_dict(NULL), CT_ERR_TYPE, "state_dict(): optimizer must not be NULL");
    /* a state dict of another shape is refused and changes nothing */
    ct_optim_state *other = ct_optim_state_dict(lbfgs);
    FAILS_R(ct_optim_load_state_dict(opt, other), CT_ERR_VALUE,
            "loaded state dict has a different number of parameter groups");
    ct_optimizer *one_param = ct_sgd(&p, 1, (ct_sgd_opts){.lr = 0.1});
    ct_optim_state *small = ct_optim_state_dict(one_param);
    FAILS_R(ct_optim_load_state_dict(opt, small), CT_ERR_VALUE,
            "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
    FAILS_R(ct_optim_load_state_dict(opt, NULL), CT_ERR_TYPE, "load_state_dict(): state_dict must not be NULL");
    FAILS_R(ct_optim_load_state_dict(NULL, small), CT_ERR_TYPE, "load_state_dict(): optimizer must not be NULL");
    CHECK(ct_optim_get(opt, 0, "momentum") == 0.9);
    ct_optim_state_free(other);
    ct_optim_state_free(small);
    ct_optim_state_free(NULL);
    ct_optim_free(one_param);
    ct_optim_free(lbfgs);
    ct_optim_free(opt);
}

static void test_schedulers(void)
{
    ct_optimizer *opt = sgd();
    ct_lr_lambda fns[3] = {one, one, one};
    FAILS_T(ct_lambda_lr(opt, fns, NULL, 3), CT_ERR_VALUE, "Expected 1 lr_lambdas, but got 3");
    FAILS_T(ct_multiplicative_lr(opt, NULL, NULL, 1), CT_ERR_VALUE, "Expected 1 lr_lambdas, but got 0");
    FAILS_T(ct_step_lr(NULL, 3, 0.1), CT_ERR_TYPE, "NoneType is not an Optimizer");
    FAILS_T(ct_multi_step_lr(opt, NULL, 2, 0.1), CT_ERR_TYPE, "'NoneType' object is not iterable");
    FAILS_T(ct_constant_lr(opt, 2.0, 5), CT_ERR_VALUE, "Constant multiplicative factor expected to be between 0 and 1.");
    FAILS_T(ct_linear_lr(opt, -1, 1, 5), CT_ERR_VALUE, "Starting multiplicative factor expected to be between 0 and 1.");
    FAILS_T(ct_linear_lr(opt, 0.5, 2, 5), CT_ERR_VALUE, "Ending multiplicative factor expected to be between 0 and 1.");
    FAILS_T(ct_exponential_lr(NULL, 0.9), CT_ERR_TYPE, "NoneType is not an Optimizer");
    FAILS_T(ct_polynomial_lr(NULL, 5, 1), CT_ERR_TYPE, "NoneType is not an Optimizer");
    FAILS_T(ct_cosine_annealing_lr(NULL, 5, 0), CT_ERR_TYPE, "NoneType is not an Optimizer");
    FAILS_T(ct_cosine_annealing_warm_restarts(opt, 0, 1, 0), CT_ERR_VALUE, "Expected positive integer T_0, but got 0");
    FAILS_T(ct_cosine_annealing_warm_restarts(opt, 5, 0, 0), CT_ERR_VALUE, "Expected integer T_mult >= 1, but got 0");
    ct_one_cycle_lr_opts oc = ct_one_cycle_lr_opts_init();
    oc.max_lr = 0.1;
    FAILS_T(ct_one_cycle_lr(opt, oc), CT_ERR_VALUE, "You must define either total_steps OR (epochs AND steps_per_epoch)");
    oc.total_steps = -2;
    FAILS_T(ct_one_cycle_lr(opt, oc), CT_ERR_VALUE, "Expected positive integer total_steps, but got -2");
    FAILS_T(ct_reduce_lr_on_plateau(opt, (ct_plateau_opts){.factor = 1.0}), CT_ERR_VALUE, "Factor should be < 1.0.");
    ct_optimizer *adam = ct_adam(&params[0], 1, ct_adam_opts_init());
    ct_cyclic_lr_opts cy = ct_cyclic_lr_opts_init();
    cy.base_lr = 0.1, cy.max_lr = 1;
    FAILS_T(ct_cyclic_lr(adam, cy), CT_ERR_VALUE, "optimizer must support momentum with `cycle_momentum` option enabled");
    FAILS_T(ct_warmup_cosine_lr(opt, 10, 5, 0.1, 0), CT_ERR_VALUE,
            "warmup_cosine_lr: expected 0 < warmup_steps < total_steps, but got 10 and 5");
    /* SequentialLR and ChainedScheduler own their schedulers, and free them when they fail */
    ct_lr_scheduler *two[2] = {ct_constant_lr(opt, 0.5, 5), ct_exponential_lr(opt, 0.9)};
    FAILS_T(ct_sequential_lr(opt, two, 2, NULL), CT_ERR_VALUE,
            "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone "
            "points, but got number of schedulers 2 and the number of milestones to be equal to 0");
    ct_lr_scheduler *mixed[2] = {ct_exponential_lr(adam, 0.9), ct_exponential_lr(opt, 0.9)};
    int64_t m = 3;
    FAILS_T(ct_sequential_lr(opt, mixed, 2, &m), CT_ERR_VALUE,
            "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers at "
            "index 0 to be different than the optimizer passed in.");
    ct_lr_scheduler *chain[2] = {ct_exponential_lr(opt, 0.9), ct_exponential_lr(adam, 0.9)};
    FAILS_T(ct_chained_scheduler(chain, 2), CT_ERR_VALUE,
            "ChainedScheduler expects all schedulers to belong to the same optimizer, but got schedulers at index 0 "
            "and 1 to be different");
    FAILS_T(ct_chained_scheduler(NULL, 0), CT_ERR_INDEX, "list index out of range");
    ct_optim_free(adam);
    ct_optim_free(opt);
}

static void test_scheduler_steps(void)
{
    ct_optimizer *opt = sgd();
    ct_lr_scheduler *plateau = ct_reduce_lr_on_plateau(opt, ct_plateau_opts_init());
    ct_lr_scheduler *step = ct_step_lr(opt, 0, 0.1);
    double lrs[2];
    FAILS_R(ct_lr_scheduler_get_last_lr(plateau, lrs, 2), CT_ERR_TYPE,
            "'ReduceLROnPlateau' object has no attribute '_last_lr'");
    FAILS_R(ct_lr_scheduler_get_last_lr(NULL, lrs, 2), CT_ERR_TYPE, "get_last_lr(): scheduler must not be NULL");
    FAILS_R(ct_lr_scheduler_step(plateau), CT_ERR_TYPE, "step() missing 1 required positional argument: 'metrics'");
    FAILS_R(ct_lr_scheduler_step_metric(step, 1.0), CT_ERR_TYPE, "step() takes 1 positional argument but 2 were given");
    FAILS_R(ct_lr_scheduler_step_metric(NULL, 1.0), CT_ERR_TYPE, "step(): scheduler must not be NULL");
    FAILS_R(ct_lr_scheduler_step(NULL), CT_ERR_TYPE, "step(): scheduler must not be NULL");
    FAILS_R(ct_lr_scheduler_step(step), CT_ERR_VALUE, "integer division or modulo by zero");
    CHECK_INT(ct_lr_scheduler_last_epoch(NULL), -1);
    ct_one_cycle_lr_opts oc = ct_one_cycle_lr_opts_init();
    oc.max_lr = 0.1, oc.total_steps = 2;
    ct_lr_scheduler *cycle = ct_one_cycle_lr(opt, oc);
    CHECK_OK(ct_lr_scheduler_step(cycle));
    CHECK_OK(ct_lr_scheduler_step(cycle));
    FAILS_R(ct_lr_scheduler_step(cycle), CT_ERR_VALUE, "Tried to step 4 times. The specified number of total steps is 2");
    /* a state dict loads only into a scheduler of its kind */
    ct_lr_scheduler_state *st = ct_lr_scheduler_state_dict(plateau);
    FAILS_R(ct_lr_scheduler_load_state_dict(step, st), CT_ERR_VALUE, "loaded state dict does not match this scheduler");
    FAILS_R(ct_lr_scheduler_load_state_dict(step, NULL), CT_ERR_TYPE, "load_state_dict(): state_dict must not be NULL");
    FAILS_R(ct_lr_scheduler_load_state_dict(NULL, st), CT_ERR_TYPE, "load_state_dict(): scheduler must not be NULL");
    FAILS_T(ct_lr_scheduler_state_dict(NULL), CT_ERR_TYPE, "state_dict(): scheduler must not be NULL");
    ct_lr_scheduler_state_free(st);
    ct_lr_scheduler_state_free(NULL);
    ct_lr_scheduler_free(cycle);
    ct_lr_scheduler_free(step);
    ct_lr_scheduler_free(plateau);
    ct_lr_scheduler_free(NULL);
    ct_optim_free(opt);
}

static const char *const NONFINITE = "The total norm of order 2.0 for gradients from `parameters` is non-finite, so it "
                                     "cannot be clipped. To disable this error and scale the gradients by the "
                                     "non-finite norm anyway, set `error_if_nonfinite=False`";

static void test_clipping(void)
{
    ct_tensor *p = param(), *none[1] = {NULL};
    ct_set_grad(p, ct_from_array((float[]){INFINITY, 1}, CT_SHAPE(2), CT_F32));
    ct_tensor *grad = ct_grad(p);
    snap s = snapshot(grad);
    FAILS_T(ct_clip_grad_norm_(&p, 1, 1.0, 2, true), CT_ERR_RUNTIME, NONFINITE);
    expect_untouched(__LINE__, "clip_grad_norm_", s);
    FAILS_T(ct_clip_grad_norm_(none, 1, 1.0, 2, false), CT_ERR_TYPE,
            "expected Tensor as element 0 in argument 0, but got NoneType");
    FAILS_T(ct_clip_grad_norm_(NULL, 2, 1.0, 2, false), CT_ERR_TYPE, "'NoneType' object is not iterable");
    FAILS_R(ct_clip_grad_value_(none, 1, 1.0), CT_ERR_TYPE, "expected Tensor as element 0 in argument 0, but got NoneType");
    FAILS_T(ct_parameters_to_vector(NULL, 0), CT_ERR_RUNTIME, "torch.cat(): expected a non-empty list of Tensors");
    ct_tensor *short_vec = ct_zeros(CT_SHAPE(1), CT_F32);
    snap ps = snapshot(p);
    FAILS_R(ct_vector_to_parameters(short_vec, &p, 1), CT_ERR_RUNTIME, "shape '[2]' is invalid for input of size 1");
    expect_untouched(__LINE__, "vector_to_parameters", ps);
    FAILS_R(ct_vector_to_parameters(NULL, &p, 1), CT_ERR_TYPE, "expected torch.Tensor, but got: NoneType");
    FAILS_R(ct_vector_to_parameters(ct_scalar_tensor(ct_float(1), CT_F32), &p, 1), CT_ERR_INDEX,
            "slice() cannot be applied to a 0-dim tensor.");
    FAILS_R(ct_vector_to_parameters(ct_zeros(CT_SHAPE(2, 2), CT_F32), &p, 1), CT_ERR_RUNTIME,
            "shape '[2]' is invalid for input of size 4");
    /* a parameter that requires grad takes floating data only; the one before it is not rebound */
    ct_tensor *pair[2] = {ct_zeros(CT_SHAPE(1), CT_F32), p};
    FAILS_R(ct_vector_to_parameters(ct_zeros(CT_SHAPE(3), CT_I64), pair, 2), CT_ERR_RUNTIME,
            "data set to a tensor that requires gradients must be floating point or complex dtype");
    CHECK(ct_dtype_of(pair[0]) == CT_F32);
    expect_untouched(__LINE__, "vector_to_parameters", ps);
}

static void test_grad_scaler(void)
{
    ct_grad_scaler_opts o = ct_grad_scaler_opts_init();
    o.growth_factor = 1.0;
    FAILS_T(ct_grad_scaler_new(o), CT_ERR_VALUE, "The growth factor must be > 1.0.");
    o = ct_grad_scaler_opts_init();
    o.backoff_factor = 1.0;
    FAILS_T(ct_grad_scaler_new(o), CT_ERR_VALUE, "The backoff factor must be < 1.0.");
    ct_grad_scaler *s = ct_grad_scaler_new(ct_grad_scaler_opts_init());
    ct_optimizer *opt = sgd();
    FAILS_R(ct_grad_scaler_unscale_(s, opt), CT_ERR_RUNTIME,
            "Attempted unscale_ but _scale is None.  This may indicate your script did not use scaler.scale(loss or "
            "outputs) earlier in the iteration.");
    FAILS_R(ct_grad_scaler_update(s), CT_ERR_RUNTIME,
            "Attempted update but _scale is None.  This may indicate your script did not use scaler.scale(loss or "
            "outputs) earlier in the iteration.");
    FAILS_T(ct_grad_scaler_scale(s, NULL_T), CT_ERR_TYPE,
            "grad_scaler_scale(): argument 'outputs' (position 2) must be Tensor, not NULL");
    FAILS_T(ct_grad_scaler_scale(NULL, params[0]), CT_ERR_TYPE, "GradScaler must not be NULL");
    ct_backward(ct_grad_scaler_scale(s, ct_sum(ct_add(params[0], params[1]))), NULL, (ct_backward_opts){0});
    FAILS_R(ct_grad_scaler_update(s), CT_ERR_RUNTIME, "No inf checks were recorded prior to update.");
    CHECK_OK(ct_grad_scaler_unscale_(s, opt));
    FAILS_R(ct_grad_scaler_unscale_(s, opt), CT_ERR_RUNTIME,
            "unscale_() has already been called on this optimizer since the last update().");
    bool stepped = false;
    CHECK_OK(ct_grad_scaler_step(s, opt, &stepped));
    CHECK(stepped);
    FAILS_R(ct_grad_scaler_unscale_(s, opt), CT_ERR_RUNTIME, "unscale_() is being called after step().");
    FAILS_R(ct_grad_scaler_step(s, opt, &stepped), CT_ERR_RUNTIME, "step() has already been called since the last update().");
    CHECK(!stepped);
    FAILS_R(ct_grad_scaler_step(NULL, opt, NULL), CT_ERR_TYPE, "GradScaler must not be NULL");
    FAILS_R(ct_grad_scaler_step(s, NULL, NULL), CT_ERR_TYPE, "step(): optimizer must not be NULL");
    FAILS_R(ct_grad_scaler_unscale_(NULL, opt), CT_ERR_TYPE, "GradScaler must not be NULL");
    CHECK_OK(ct_grad_scaler_update(s));
    FAILS_R(ct_grad_scaler_update(NULL), CT_ERR_TYPE, "GradScaler must not be NULL");
    CHECK(isnan(ct_grad_scaler_get_scale(NULL)));
    expect_fail(__LINE__, "get_scale(NULL)", true, CT_ERR_TYPE, "GradScaler must not be NULL");
    CHECK(isnan(ct_grad_scaler_state_dict(NULL).scale));
    expect_fail(__LINE__, "state_dict(NULL)", true, CT_ERR_TYPE, "GradScaler must not be NULL");
    FAILS_R(ct_grad_scaler_load_state_dict(NULL, ct_grad_scaler_state_dict(s)), CT_ERR_TYPE, "GradScaler must not be NULL");
    ct_grad_scaler_free(s);
    ct_grad_scaler_free(NULL);
    ct_optim_free(opt);
}

int main(void)
{
    RUN(test_optimizer_options);
    RUN(test_parameters);
    RUN(test_options_by_name);
    RUN(test_steps_and_state);
    RUN(test_schedulers);
    RUN(test_scheduler_steps);
    RUN(test_clipping);
    RUN(test_grad_scaler);
    return ct_test_report();
}
