/* Public optimizer API: torch.optim's optimizers with parameter groups,
 * torch.optim.lr_scheduler's schedulers, torch.nn.utils' gradient clipping
 * and torch.cuda.amp.GradScaler's loss scaling on the CPU.
 *
 * An optimizer holds parameter groups: arrays of leaf tensors with options
 * (lr, momentum, ...) that start as the optimizer's defaults and may be
 * overridden per group, read and written by name at run time (what
 * param_groups[i]['lr'] is in PyTorch). Every update follows PyTorch 1.13's
 * single-tensor code path op by op, so trajectories match its float32
 * rounding. Option structs are taken literally: start from the optimizer's
 * _init() (PyTorch's defaults) and change what you need; SGD's defaults are
 * all zero but lr, so a compound literal with .lr works for it.
 *
 *     ct_optimizer *opt = ct_sgd(params, 2, (ct_sgd_opts){.lr = 0.1, .momentum = 0.9});
 *     ct_lr_scheduler *sched = ct_exponential_lr(opt, 0.9);
 *     for (epoch...) { ct_optim_zero_grad(opt, true); ...backward...; ct_optim_step(opt); }
 *     ct_lr_scheduler_step(sched);
 *
 * Optimizers and schedulers are not thread-safe: use each from one thread. */

typedef struct ct_optimizer ct_optimizer;

/* ---------------------------------------------------------------- parameter groups */

/* One option of a parameter group by name ("lr", "momentum", "weight_decay",
 * "beta1", "beta2", ...: PyTorch's keys, with betas split in two and
 * booleans as 0 or 1). */
typedef struct ct_optim_option {
    const char *name;
    double value;
} ct_optim_option;

#define CT_OPTIM_MAX_OPTIONS 8
/* A parameter group: {'params': params, 'lr': 1e-3, ...}. Options not named
 * take the optimizer's defaults. The optimizer keeps references to the params. */
typedef struct ct_param_group {
    ct_tensor *const *params;
    int64_t n;
    ct_optim_option options[CT_OPTIM_MAX_OPTIONS];
} ct_param_group;

/* Optimizer.add_param_group({'params': ..., 'lr': ...}). */
CTORCH_API ct_result ct_optim_add_param_group(ct_optimizer *opt, ct_param_group group);
/* len(optimizer.param_groups). */
CTORCH_API int ct_optim_num_groups(const ct_optimizer *opt);
/* optimizer.param_groups[group][name]: NAN with PyTorch's KeyError when the
 * group has no such option. */
CTORCH_API double ct_optim_get(const ct_optimizer *opt, int group, const char *name);
/* optimizer.param_groups[group][name] = value (what schedulers do). Only the
 * optimizer's own options and the schedulers' "initial_lr", "max_lr" and
 * "min_lr" are known. */
CTORCH_API ct_result ct_optim_set(ct_optimizer *opt, int group, const char *name, double value);

/* ---------------------------------------------------------------- optimizers */

/* torch.optim.SGD(params, lr, momentum, dampening, weight_decay, nesterov, maximize). */
typedef struct ct_sgd_opts {
    double lr, momentum, dampening, weight_decay;
    bool nesterov, maximize;
} ct_sgd_opts;
CTORCH_API ct_optimizer *ct_sgd(ct_tensor *const *params, int64_t n, ct_sgd_opts opts);

/* torch.optim.Adam and torch.optim.AdamW (betas = (beta1, beta2)). */
typedef struct ct_adam_opts {
    double lr, beta1, beta2, eps, weight_decay;
    bool amsgrad, maximize;
} ct_adam_opts;
/* Adam's defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 0. */
CTORCH_API ct_adam_opts ct_adam_opts_init(void);
/* AdamW's defaults: Adam's with weight_decay 1e-2. */
CTORCH_API ct_adam_opts ct_adamw_opts_init(void);
CTORCH_API ct_optimizer *ct_adam(ct_tensor *const *params, int64_t n, ct_adam_opts opts);
CTORCH_API ct_optimizer *ct_adamw(ct_tensor *const *params, int64_t n, ct_adam_opts opts);

/* torch.optim.RMSprop; defaults lr 1e-2, alpha 0.99, eps 1e-8. */
typedef struct ct_rmsprop_opts {
    double lr, alpha, eps, weight_decay, momentum;
    bool centered, maximize;
} ct_rmsprop_opts;
CTORCH_API ct_rmsprop_opts ct_rmsprop_opts_init(void);
CTORCH_API ct_optimizer *ct_rmsprop(ct_tensor *const *params, int64_t n, ct_rmsprop_opts opts);

/* torch.optim.Adagrad; defaults lr 1e-2, eps 1e-10. */
typedef struct ct_adagrad_opts {
    double lr, lr_decay, weight_decay, initial_accumulator_value, eps;
    bool maximize;
} ct_adagrad_opts;
CTORCH_API ct_adagrad_opts ct_adagrad_opts_init(void);
CTORCH_API ct_optimizer *ct_adagrad(ct_tensor *const *params, int64_t n, ct_adagrad_opts opts);

/* torch.optim.Adadelta; defaults lr 1.0, rho 0.9, eps 1e-6. */
typedef struct ct_adadelta_opts {
    double lr, rho, eps, weight_decay;
    bool maximize;
} ct_adadelta_opts;
CTORCH_API ct_adadelta_opts ct_adadelta_opts_init(void);
CTORCH_API ct_optimizer *ct_adadelta(ct_tensor *const *params, int64_t n, ct_adadelta_opts opts);

/* torch.optim.Adamax; defaults lr 2e-3, betas (0.9, 0.999), eps 1e-8. */
typedef struct ct_adamax_opts {
    double lr, beta1, beta2, eps, weight_decay;
    bool maximize;
} ct_adamax_opts;
CTORCH_API ct_adamax_opts ct_adamax_opts_init(void);
CTORCH_API ct_optimizer *ct_adamax(ct_tensor *const *params, int64_t n, ct_adamax_opts opts);

/* torch.optim.NAdam; defaults lr 2e-3, betas (0.9, 0.999), eps 1e-8, momentum_decay 4e-3. */
typedef struct ct_nadam_opts {
    double lr, beta1, beta2, eps, weight_decay, momentum_decay;
} ct_nadam_opts;
CTORCH_API ct_nadam_opts ct_nadam_opts_init(void);
CTORCH_API ct_optimizer *ct_nadam(ct_tensor *const *params, int64_t n, ct_nadam_opts opts);

/* torch.optim.RAdam; defaults lr 1e-3, betas (0.9, 0.999), eps 1e-8. */
typedef struct ct_radam_opts {
    double lr, beta1, beta2, eps, weight_decay;
} ct_radam_opts;
CTORCH_API ct_radam_opts ct_radam_opts_init(void);
CTORCH_API ct_optimizer *ct_radam(ct_tensor *const *params, int64_t n, ct_radam_opts opts);

/* torch.optim.LBFGS; defaults lr 1, max_iter 20, max_eval 0 (meaning
 * max_iter * 5 / 4), tolerance_grad 1e-7, tolerance_change 1e-9,
 * history_size 100, no line search (strong_wolfe: line_search_fn='strong_wolfe').
 * Like PyTorch's, it optimizes the first parameter group only; step needs a closure. */
typedef struct ct_lbfgs_opts {
    double lr;
    int64_t max_iter, max_eval;
    double tolerance_grad, tolerance_change;
    int64_t history_size;
    bool strong_wolfe;
} ct_lbfgs_opts;
CTORCH_API ct_lbfgs_opts ct_lbfgs_opts_init(void);
CTORCH_API ct_optimizer *ct_lbfgs(ct_tensor *const *params, int64_t n, ct_lbfgs_opts opts);

/* Free an optimizer, its state and its references to the parameters (NULL is ignored). */
CTORCH_API void ct_optim_free(ct_optimizer *opt);

/* ---------------------------------------------------------------- steps */

/* Optimizer.zero_grad(set_to_none): every parameter's .grad set to None, or
 * (set_to_none false) zeroed in place and detached from any graph. */
CTORCH_API ct_result ct_optim_zero_grad(ct_optimizer *opt, bool set_to_none);
/* Optimizer.step(): one update from the parameters' .grad (those without a
 * gradient are skipped). LBFGS needs ct_optim_step_closure. A gradient or
 * state on another device than its parameter fails the step before any
 * update ("Expected all tensors to be on the same device, ..."). */
CTORCH_API ct_result ct_optim_step(ct_optimizer *opt);
/* A closure: clears the gradients, recomputes the loss, runs backward and
 * writes the loss to *loss; returns CT_OK or an error. */
typedef ct_result (*ct_closure)(double *loss, void *user);
/* Optimizer.step(closure): the closure is run with grad mode on (once, or as
 * often as LBFGS needs); the first loss goes to *loss (may be NULL). LBFGS
 * checks devices as ct_optim_step does, after the first closure call. */
CTORCH_API ct_result ct_optim_step_closure(ct_optimizer *opt, ct_closure closure, void *user, double *loss);

/* ---------------------------------------------------------------- state */

/* optimizer.state[param][name] ("momentum_buffer", "exp_avg", "step", ...):
 * a new reference to the live tensor ("step" and NAdam's "mu_product" as 0-d
 * float32 tensors, LBFGS's state under its first parameter), NULL with
 * PyTorch's KeyError when there is none. */
CTORCH_API ct_tensor *ct_optim_state_get(const ct_optimizer *opt, const ct_tensor *param, const char *name);

/* optimizer.state_dict(): a deep copy of the state and the groups' options. */
typedef struct ct_optim_state ct_optim_state;
CTORCH_API ct_optim_state *ct_optim_state_dict(const ct_optimizer *opt);
/* optimizer.load_state_dict(state): the groups must match in number and size
 * (PyTorch's ValueErrors otherwise, and nothing changes); state tensors are
 * copied and cast to their parameter's dtype, so training resumes bit for bit. */
CTORCH_API ct_result ct_optim_load_state_dict(ct_optimizer *opt, const ct_optim_state *state);
CTORCH_API void ct_optim_state_free(ct_optim_state *state);

/* ---------------------------------------------------------------- lr schedulers */

typedef struct ct_lr_scheduler ct_lr_scheduler;

/* A learning-rate factor for LambdaLR / MultiplicativeLR: f(epoch). */
typedef double (*ct_lr_lambda)(int64_t epoch, void *user);

/* torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda): n_fns is 1 (one
 * function for every group) or the number of groups; users[i] (users may be
 * NULL) goes to fns[i]. Every scheduler's constructor takes its first step,
 * as PyTorch's does, and sets each group's "initial_lr" when absent. */
CTORCH_API ct_lr_scheduler *ct_lambda_lr(ct_optimizer *opt, const ct_lr_lambda *fns, void *const *users, int n_fns);
/* torch.optim.lr_scheduler.MultiplicativeLR(optimizer, lr_lambda). */
CTORCH_API ct_lr_scheduler *ct_multiplicative_lr(ct_optimizer *opt, const ct_lr_lambda *fns, void *const *users,
                                                 int n_fns);
/* torch.optim.lr_scheduler.StepLR(optimizer, step_size, gamma) (PyTorch's gamma default: 0.1). */
CTORCH_API ct_lr_scheduler *ct_step_lr(ct_optimizer *opt, int64_t step_size, double gamma);
/* torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones, gamma). */
CTORCH_API ct_lr_scheduler *ct_multi_step_lr(ct_optimizer *opt, const int64_t *milestones, int n_milestones,
                                             double gamma);
/* torch.optim.lr_scheduler.ConstantLR(optimizer, factor, total_iters) (defaults 1/3, 5). */
CTORCH_API ct_lr_scheduler *ct_constant_lr(ct_optimizer *opt, double factor, int64_t total_iters);
/* torch.optim.lr_scheduler.LinearLR(optimizer, start_factor, end_factor, total_iters) (defaults 1/3, 1.0, 5). */
CTORCH_API ct_lr_scheduler *ct_linear_lr(ct_optimizer *opt, double start_factor, double end_factor,
                                         int64_t total_iters);
/* torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma). */
CTORCH_API ct_lr_scheduler *ct_exponential_lr(ct_optimizer *opt, double gamma);
/* torch.optim.lr_scheduler.PolynomialLR(optimizer, total_iters, power) (defaults 5, 1.0). */
CTORCH_API ct_lr_scheduler *ct_polynomial_lr(ct_optimizer *opt, int64_t total_iters, double power);
/* torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max, eta_min), in
 * PyTorch's recursive form (its numbers, not the closed form's). */
CTORCH_API ct_lr_scheduler *ct_cosine_annealing_lr(ct_optimizer *opt, int64_t T_max, double eta_min);
/* torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0, T_mult, eta_min) (T_mult default 1). */
CTORCH_API ct_lr_scheduler *ct_cosine_annealing_warm_restarts(ct_optimizer *opt, int64_t T_0, int64_t T_mult,
                                                              double eta_min);

/* torch.optim.lr_scheduler.CyclicLR's options; ct_cyclic_lr_opts_init gives
 * PyTorch's defaults (step_size_up 2000, step_size_down 0 meaning equal,
 * mode "triangular", gamma 1, cycle_momentum, base_momentum 0.8,
 * max_momentum 0.9); base_lr and max_lr must be set. */
typedef enum ct_cyclic_mode { CT_CYCLIC_TRIANGULAR, CT_CYCLIC_TRIANGULAR2, CT_CYCLIC_EXP_RANGE } ct_cyclic_mode;
typedef struct ct_cyclic_lr_opts {
    double base_lr, max_lr;
    int64_t step_size_up, step_size_down;
    ct_cyclic_mode mode;
    double gamma;
    bool cycle_momentum;
    double base_momentum, max_momentum;
} ct_cyclic_lr_opts;
CTORCH_API ct_cyclic_lr_opts ct_cyclic_lr_opts_init(void);
CTORCH_API ct_lr_scheduler *ct_cyclic_lr(ct_optimizer *opt, ct_cyclic_lr_opts opts);

/* torch.optim.lr_scheduler.OneCycleLR's options; ct_one_cycle_lr_opts_init
 * gives PyTorch's defaults (pct_start 0.3, cosine annealing, cycle_momentum,
 * base_momentum 0.85, max_momentum 0.95, div_factor 25, final_div_factor
 * 1e4); max_lr and total_steps (or epochs and steps_per_epoch) must be set. */
typedef struct ct_one_cycle_lr_opts {
    double max_lr;
    int64_t total_steps, epochs, steps_per_epoch;
    double pct_start;
    bool anneal_linear; /* anneal_strategy='linear' rather than 'cos' */
    bool cycle_momentum;
    double base_momentum, max_momentum, div_factor, final_div_factor;
    bool three_phase;
} ct_one_cycle_lr_opts;
CTORCH_API ct_one_cycle_lr_opts ct_one_cycle_lr_opts_init(void);
CTORCH_API ct_lr_scheduler *ct_one_cycle_lr(ct_optimizer *opt, ct_one_cycle_lr_opts opts);

/* torch.optim.lr_scheduler.SequentialLR(optimizer, schedulers, milestones):
 * n schedulers of opt and n - 1 milestones. It takes ownership of the
 * schedulers (freed with it, or at once if it fails). */
CTORCH_API ct_lr_scheduler *ct_sequential_lr(ct_optimizer *opt, ct_lr_scheduler *const *schedulers, int n,
                                             const int64_t *milestones);
/* torch.optim.lr_scheduler.ChainedScheduler(schedulers): steps them all; owns them. */
CTORCH_API ct_lr_scheduler *ct_chained_scheduler(ct_lr_scheduler *const *schedulers, int n);

/* Linear warmup then cosine annealing, one call: SequentialLR of
 * LinearLR(start_factor, 1.0, warmup_steps) and CosineAnnealingLR(T_max =
 * total_steps - warmup_steps, eta_min) with the milestone at warmup_steps
 * (the large-batch recipe: warmup over the first steps, then a cosine to eta_min). */
CTORCH_API ct_lr_scheduler *ct_warmup_cosine_lr(ct_optimizer *opt, int64_t warmup_steps, int64_t total_steps,
                                                double start_factor, double eta_min);

/* torch.optim.lr_scheduler.ReduceLROnPlateau's options; the _init gives
 * PyTorch's defaults (mode min, factor 0.1, patience 10, threshold 1e-4,
 * relative threshold, cooldown 0, min_lr 0, eps 1e-8). */
typedef struct ct_plateau_opts {
    bool mode_max;
    double factor;
    int64_t patience;
    double threshold;
    bool threshold_abs;
    int64_t cooldown;
    double min_lr, eps;
} ct_plateau_opts;
CTORCH_API ct_plateau_opts ct_plateau_opts_init(void);
CTORCH_API ct_lr_scheduler *ct_reduce_lr_on_plateau(ct_optimizer *opt, ct_plateau_opts opts);

/* scheduler.step(); ReduceLROnPlateau needs ct_lr_scheduler_step_metric. */
CTORCH_API ct_result ct_lr_scheduler_step(ct_lr_scheduler *s);
/* ReduceLROnPlateau.step(metrics). */
CTORCH_API ct_result ct_lr_scheduler_step_metric(ct_lr_scheduler *s, double metric);
/* scheduler.get_last_lr(): one lr per group written to out (room for cap);
 * returns the number of groups, or a negative ct_result. */
CTORCH_API int ct_lr_scheduler_get_last_lr(const ct_lr_scheduler *s, double *out, int cap);
/* scheduler.last_epoch. */
CTORCH_API int64_t ct_lr_scheduler_last_epoch(const ct_lr_scheduler *s);
/* Free a scheduler (and those it owns); the optimizer stays. NULL is ignored. */
CTORCH_API void ct_lr_scheduler_free(ct_lr_scheduler *s);

/* scheduler.state_dict() / load_state_dict(): the scheduler's counters and
 * lrs (not the optimizer, not the lambdas, as in PyTorch). The state loads
 * into a scheduler of the same kind over as many groups. */
typedef struct ct_lr_scheduler_state ct_lr_scheduler_state;
CTORCH_API ct_lr_scheduler_state *ct_lr_scheduler_state_dict(const ct_lr_scheduler *s);
CTORCH_API ct_result ct_lr_scheduler_load_state_dict(ct_lr_scheduler *s, const ct_lr_scheduler_state *state);
CTORCH_API void ct_lr_scheduler_state_free(ct_lr_scheduler_state *state);

/* ---------------------------------------------------------------- gradient clipping */

/* torch.nn.utils.clip_grad_norm_(parameters, max_norm, norm_type,
 * error_if_nonfinite): the norm of all the gradients together (norm_type 2,
 * 1, INFINITY or any p), returned as a 0-d tensor; when max_norm / (norm +
 * 1e-6) is below 1 every gradient is multiplied by it. Parameters without a
 * gradient are skipped (none: a zero norm). */
CTORCH_API ct_tensor *ct_clip_grad_norm_(ct_tensor *const *params, int64_t n, double max_norm, double norm_type,
                                         bool error_if_nonfinite);
/* torch.nn.utils.clip_grad_value_(parameters, clip_value): gradients clamped to [-v, v]. */
CTORCH_API ct_result ct_clip_grad_value_(ct_tensor *const *params, int64_t n, double clip_value);
/* torch.nn.utils.parameters_to_vector: the parameters flattened into one vector. */
CTORCH_API ct_tensor *ct_parameters_to_vector(ct_tensor *const *params, int64_t n);
/* torch.nn.utils.vector_to_parameters(vec, parameters): each parameter's
 * data becomes the next slice of vec viewed as its shape (param.data = ...),
 * so it then shares vec's storage, device and dtype and keeps its identity,
 * requires_grad and .grad. vec may have more elements than the parameters;
 * its dim 0 is sliced. The parameters must be on one device. */
CTORCH_API ct_result ct_vector_to_parameters(const ct_tensor *vec, ct_tensor *const *params, int64_t n);

/* ---------------------------------------------------------------- loss scaling */

/* torch.cuda.amp.GradScaler, on the CPU too. ct_grad_scaler_opts_init gives
 * PyTorch's defaults: init_scale 65536, growth_factor 2, backoff_factor 0.5,
 * growth_interval 2000, enabled. */
typedef struct ct_grad_scaler ct_grad_scaler;
typedef struct ct_grad_scaler_opts {
    double init_scale, growth_factor, backoff_factor;
    int64_t growth_interval;
    bool enabled;
} ct_grad_scaler_opts;
CTORCH_API ct_grad_scaler_opts ct_grad_scaler_opts_init(void);
CTORCH_API ct_grad_scaler *ct_grad_scaler_new(ct_grad_scaler_opts opts);
CTORCH_API void ct_grad_scaler_free(ct_grad_scaler *s);
/* scaler.scale(outputs): outputs times the scale (outputs itself, a new
 * reference, when disabled). */
CTORCH_API ct_tensor *ct_grad_scaler_scale(ct_grad_scaler *s, const ct_tensor *outputs);
/* scaler.unscale_(optimizer): the optimizer's gradients divided by the scale
 * (multiplied by its float32 reciprocal, as PyTorch does), noting inf/NaN.
 * READY -> UNSCALED; called twice, or after step, it fails with PyTorch's error. */
CTORCH_API ct_result ct_grad_scaler_unscale_(ct_grad_scaler *s, ct_optimizer *opt);
/* scaler.step(optimizer): unscale_ first if not done, then optimizer.step()
 * unless an inf/NaN was found (the step is skipped). -> STEPPED; *stepped
 * (may be NULL) says whether the optimizer stepped. */
CTORCH_API ct_result ct_grad_scaler_step(ct_grad_scaler *s, ct_optimizer *opt, bool *stepped);
/* scaler.update(): the scale backed off after an inf/NaN, grown after
 * growth_interval clean steps; every optimizer back to READY. */
CTORCH_API ct_result ct_grad_scaler_update(ct_grad_scaler *s);
/* scaler.get_scale() (1.0 when disabled). */
CTORCH_API double ct_grad_scaler_get_scale(const ct_grad_scaler *s);

/* scaler.state_dict(): PyTorch's keys, as plain numbers. */
typedef struct ct_grad_scaler_state {
    double scale, growth_factor, backoff_factor;
    int64_t growth_interval, growth_tracker;
} ct_grad_scaler_state;
CTORCH_API ct_grad_scaler_state ct_grad_scaler_state_dict(const ct_grad_scaler *s);
CTORCH_API ct_result ct_grad_scaler_load_state_dict(ct_grad_scaler *s, ct_grad_scaler_state state);
