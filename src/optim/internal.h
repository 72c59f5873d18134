/* What the optimizer, the lr schedulers and the grad scaler share: the
 * parameter groups with their named options and the per-parameter state. */

/* The options a parameter group may hold, by their PyTorch keys. */
#define CT__OPTIM_KEYS(X)                                                                                   \
    X(LR, "lr") X(MOMENTUM, "momentum") X(DAMPENING, "dampening") X(WEIGHT_DECAY, "weight_decay")            \
    X(NESTEROV, "nesterov") X(MAXIMIZE, "maximize") X(BETA1, "beta1") X(BETA2, "beta2") X(EPS, "eps")       \
    X(AMSGRAD, "amsgrad") X(ALPHA, "alpha") X(CENTERED, "centered") X(LR_DECAY, "lr_decay")                 \
    X(INITIAL_ACC, "initial_accumulator_value") X(RHO, "rho") X(MOMENTUM_DECAY, "momentum_decay")           \
    X(MAX_ITER, "max_iter") X(MAX_EVAL, "max_eval") X(TOL_GRAD, "tolerance_grad")                          \
    X(TOL_CHANGE, "tolerance_change") X(HISTORY, "history_size") X(STRONG_WOLFE, "strong_wolfe")           \
    X(INITIAL_LR, "initial_lr") X(MAX_LR, "max_lr") X(MIN_LR, "min_lr")

#define CT__KEY_ENUM(e, s) CT__K_##e,
enum ct__optim_key { CT__OPTIM_KEYS(CT__KEY_ENUM) CT__K_COUNT };
#undef CT__KEY_ENUM

/* The state tensors one parameter may have (their names are the class's). */
#define CT__NBUF 4

typedef struct ct__pstate {
    ct_tensor *buf[CT__NBUF];
    double step;      /* state['step'] (a float32 counter where PyTorch keeps a tensor) */
    float mu_product; /* NAdam's state['mu_product'], a float32 tensor in PyTorch */
    bool init;
} ct__pstate;

typedef struct ct__group {
    ct_tensor **params;
    ct__pstate *state; /* parallel to params */
    int64_t n;
    double v[CT__K_COUNT];
    uint32_t has; /* bit k: the group holds option k */
} ct__group;

typedef struct ct__optim_class ct__optim_class;
typedef struct ct__lbfgs ct__lbfgs;

struct ct_optimizer {
    const ct__optim_class *cls;
    ct__group *groups;
    int n_groups;
    double defaults[CT__K_COUNT];
    uint32_t default_has;
    ct__lbfgs *lbfgs; /* LBFGS's state, kept under its first parameter in PyTorch */
};

#define CT__HAS(g, k) (((g)->has >> (k)) & 1u)
/* Python's repr of a float ("0.1", "1e-05", "-1.0") for error messages. */
static const char *ct__pyfloat(char *buf, size_t n, double v);
/* A tensor made inside a step's scope that the optimizer keeps. */
static ct_tensor *ct__keep_state(ct_tensor *t);
/* Every parameter's gradient and state on the parameter's device, checked
 * before a step's first update (optimizer.c). */
static ct_result ct__optim_check_devices(const ct_optimizer *opt);
/* LBFGS's step (src/optim/lbfgs.c) and its state's copy and release. */
static ct_result ct__lbfgs_step(ct_optimizer *opt, ct_closure closure, void *user, double *loss);
static void ct__lbfgs_free(ct__lbfgs *s);
static ct__lbfgs *ct__lbfgs_clone(const ct__lbfgs *s);
static ct_tensor *ct__lbfgs_state_get(const ct__lbfgs *s, const char *name);
