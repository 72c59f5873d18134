/* Pointwise loops on the CPU: for each op of CT__POINTWISE_KERNELS and each
 * dtype of its group, a loop over a run of elements that loads each operand
 * to the op's flavour, calls the formula (src/ops/formulas.h) and stores the
 * result, with fast paths for contiguous operands and broadcast numbers. */

/* At -O2, GCC's cost model vectorises only loops whose trip count is a
 * multiple of the vector width; these kernels need the dynamic model (the one
 * of -O3). (GCC also keeps a branch whose other side could raise a floating
 * point exception flag, so the ops compute both sides, as leaky_relu does.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

/* The ops with scalar.h's vector math run it as PyTorch's vectorised CPU
 * loops (cpu_kernel_vec: sigmoid, and the activations' backward kernels
 * that evaluate exp and tanh) run SLEEF: on whole blocks of two AVX2
 * vectors (64 bytes) of a loop, with the rest of the loop, all of a short
 * one, in the C library's functions (their _libm twins). Small tensors so
 * get the same bits with or without CT__VECMATH. */
#ifdef CT__VECMATH
#define CT__VM_BLOCK(T) (64 / (int64_t)sizeof(T))
#else
#define CT__VM_BLOCK(T) 1 /* (the twins are the same functions: no second loop) */
#endif

/* out[k] = fn(x[k]) for k below n less n % BLOCK, tail(x[k]) beyond; the
 * contiguous case is a plain loop the compiler vectorises. OT and STORE are
 * the output's type and store. */
#define CT__UNARY_LOOP_SPLIT(name, dt, OT, STORE, tail, BLOCK)                                  \
    static void ct__k_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        const ct__op_args args_ = *(const ct__op_args *)ctx, *a = &args_; /* not aliased: hoistable */ \
        const int64_t nv = n - n % (BLOCK);                                                      \
        if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T)) {                         \
            OT *CT__RESTRICT o = (OT *)d[0];                                                     \
            const T *CT__RESTRICT x = (const T *)d[1];                                           \
            for (int64_t k = 0; k < nv; k++) o[k] = STORE(CT__KFN(name, dt)(CT__KL_##dt(x[k]), a)); \
            for (int64_t k = nv; k < n; k++) o[k] = STORE(CT__KFN(tail, dt)(CT__KL_##dt(x[k]), a)); \
        } else {                                                                                 \
            for (int64_t k = 0; k < nv; k++)                                                     \
                *(OT *)(d[0] + k * s[0]) = STORE(CT__KFN(name, dt)(CT__KL_##dt(*(const T *)(d[1] + k * s[1])), a)); \
            for (int64_t k = nv; k < n; k++)                                                     \
                *(OT *)(d[0] + k * s[0]) = STORE(CT__KFN(tail, dt)(CT__KL_##dt(*(const T *)(d[1] + k * s[1])), a)); \
        }                                                                                        \
    }
#define CT__UNARY_LOOP(name, dt) CT__UNARY_LOOP_SPLIT(name, dt, CT__KT_##dt, CT__KS_##dt, name, 1)
#define CT__UNARY_BOOL_LOOP(name, dt) CT__UNARY_LOOP_SPLIT(name, dt, uint8_t, CT__KS_b8, name, 1)
#define CT__UNARY_VM_LOOP(name, dt) \
    CT__UNARY_LOOP_SPLIT(name, dt, CT__KT_##dt, CT__KS_##dt, name##_libm, CT__VM_BLOCK(CT__KT_##dt))

/* out[k] = fn(x[k], y[k]), with fast paths for contiguous operands and for a
 * broadcast number y. */
#define CT__BINARY_LOOP_AS(name, dt, OT, STORE)                                                  \
    static void ct__k_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        typedef CT__KFT(dt) F;                                                                   \
        const ct__op_args args_ = *(const ct__op_args *)ctx, *a = &args_; /* not aliased: hoistable */ \
        OT *CT__RESTRICT o = (OT *)d[0];                                                         \
        const T *CT__RESTRICT x = (const T *)d[1], *CT__RESTRICT y = (const T *)d[2];            \
        bool dense = s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T);                  \
        if (dense && s[2] == (int64_t)sizeof(T)) {                                               \
            for (int64_t k = 0; k < n; k++) o[k] = STORE(CT__KFN(name, dt)(CT__KL_##dt(x[k]), CT__KL_##dt(y[k]), a)); \
        } else if (dense && s[2] == 0) {                                                         \
            const F y0 = CT__KL_##dt(y[0]);                                                      \
            for (int64_t k = 0; k < n; k++) o[k] = STORE(CT__KFN(name, dt)(CT__KL_##dt(x[k]), y0, a)); \
        } else if (dense) { /* y strided (transposed): its loads gathered into vectors */        \
            const char *yb = d[2];                                                               \
            const int64_t sy = s[2];                                                             \
            for (int64_t k = 0; k < n; k++)                                                      \
                o[k] = STORE(CT__KFN(name, dt)(CT__KL_##dt(x[k]), CT__KL_##dt(*(const T *)(yb + k * sy)), a)); \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                *(OT *)(d[0] + k * s[0]) = STORE(CT__KFN(name, dt)(                              \
                    CT__KL_##dt(*(const T *)(d[1] + k * s[1])), CT__KL_##dt(*(const T *)(d[2] + k * s[2])), a)); \
        }                                                                                        \
    }
#define CT__BINARY_LOOP(name, dt) CT__BINARY_LOOP_AS(name, dt, CT__KT_##dt, CT__KS_##dt)
#define CT__BINARY_BOOL_LOOP(name, dt) CT__BINARY_LOOP_AS(name, dt, uint8_t, CT__KS_b8)

/* out[k] = fn(x[k], y[k], z[k]), with fast paths for contiguous operands and
 * for broadcast numbers z (lerp's weight) or y and z (clamp's bounds). */
#define CT__TERNARY_LOOP(name, dt)                                                               \
    static void ct__k_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        typedef CT__KFT(dt) F;                                                                   \
        const ct__op_args args_ = *(const ct__op_args *)ctx, *a = &args_; /* not aliased: hoistable */ \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        T *CT__RESTRICT o = (T *)d[0];                                                           \
        const T *CT__RESTRICT x = (const T *)d[1], *CT__RESTRICT y = (const T *)d[2];            \
        const T *CT__RESTRICT z = (const T *)d[3];                                               \
        bool dense = s[0] == es && s[1] == es;                                                   \
        if (dense && s[2] == es && s[3] == es) {                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                o[k] = CT__KS_##dt(CT__KFN(name, dt)(CT__KL_##dt(x[k]), CT__KL_##dt(y[k]), CT__KL_##dt(z[k]), a)); \
        } else if (dense && s[2] == es && s[3] == 0) {                                           \
            const F z0 = CT__KL_##dt(z[0]);                                                      \
            for (int64_t k = 0; k < n; k++)                                                      \
                o[k] = CT__KS_##dt(CT__KFN(name, dt)(CT__KL_##dt(x[k]), CT__KL_##dt(y[k]), z0, a)); \
        } else if (dense && s[2] == 0 && s[3] == 0) {                                            \
            const F y0 = CT__KL_##dt(y[0]), z0 = CT__KL_##dt(z[0]);                              \
            for (int64_t k = 0; k < n; k++) o[k] = CT__KS_##dt(CT__KFN(name, dt)(CT__KL_##dt(x[k]), y0, z0, a)); \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                *(T *)(d[0] + k * s[0]) = CT__KS_##dt(CT__KFN(name, dt)(CT__KL_##dt(*(const T *)(d[1] + k * s[1])), \
                    CT__KL_##dt(*(const T *)(d[2] + k * s[2])), CT__KL_##dt(*(const T *)(d[3] + k * s[3])), a)); \
        }                                                                                        \
    }

/* o[k] = c[k] ? X : Y, with both sides loaded so that the select vectorises */
#define CT__SELECT_LOOP(X, Y)                                                                    \
    for (int64_t k = 0; k < n; k++) {                                                            \
        T xk = X, yk = Y;                                                                        \
        o[k] = c[k] ? xk : yk;                                                                   \
    }
/* where: out[k] = c[k] ? x[k] : y[k], c bool (or uint8), copied bit for bit */
#define CT__WHERE_LOOP(name, dt)                                                                 \
    static void ct__k_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        (void)ctx;                                                                               \
        T *CT__RESTRICT o = (T *)d[0];                                                           \
        const uint8_t *CT__RESTRICT c = (const uint8_t *)d[1];                                   \
        const T *CT__RESTRICT x = (const T *)d[2], *CT__RESTRICT y = (const T *)d[3];            \
        bool dense = s[0] == es && s[1] == 1; /* o and c; x or y may be a number (stride 0) */   \
        if (dense && s[2] == es && s[3] == es) {                                                 \
            CT__SELECT_LOOP(x[k], y[k])                                                          \
        } else if (dense && s[2] == es && s[3] == 0) {                                           \
            const T y0 = *y;                                                                     \
            CT__SELECT_LOOP(x[k], y0)                                                            \
        } else if (dense && s[2] == 0 && s[3] == es) {                                           \
            const T x0 = *x;                                                                     \
            CT__SELECT_LOOP(x0, y[k])                                                            \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                *(T *)(d[0] + k * s[0]) = *(const uint8_t *)(d[1] + k * s[1]) ? *(const T *)(d[2] + k * s[2]) \
                                                                               : *(const T *)(d[3] + k * s[3]); \
        }                                                                                        \
    }

#define CT__DEFINE_LOOPS(name, kind, group) CT__KD_##group(CT__##kind##_LOOP, name, )
#define CT__DEFINE_LOOPS_H(name, kind, group) CT__KD_##group(CT__##kind##_LOOP, name, h)
CT__POINTWISE_KERNELS(CT__DEFINE_LOOPS, CT__DEFINE_LOOPS_H)
CT__DEFINE_LOOPS_H(add_alpha, BINARY, ALL)
CT__DEFINE_LOOPS_H(sub_alpha, BINARY, NUMERIC)
#undef CT__DEFINE_LOOPS_H
#undef CT__DEFINE_LOOPS

#define CT__KCASE(name, dt) case CT__DT_##dt: return ct__k_##name##_##dt;

/* The CPU loop of op for operands of dtype dt, or NULL when there is none. */
static ct__loop_fn ct__cpu_pointwise_loop(ct__op op, ct_dtype dt)
{
    switch (op) {
#define CT__KCASES(name, kind, group) \
    case CT__OP_##name: switch (dt) { CT__KD_##group(CT__KCASE, name, ) default: return NULL; }
#define CT__KCASES_H(name, kind, group) \
    case CT__OP_##name: switch (dt) { CT__KD_##group(CT__KCASE, name, h) default: return NULL; }
        CT__POINTWISE_KERNELS(CT__KCASES, CT__KCASES_H)
#undef CT__KCASES_H
#undef CT__KCASES
    default: return NULL;
    }
}

/* The add_alpha or sub_alpha loop for dtype dt. */
static ct__loop_fn ct__cpu_alpha_loop(ct__op op, ct_dtype dt)
{
    if (op == CT__OP_add) switch (dt) { CT__KD_ALL(CT__KCASE, add_alpha, h) default: break; }
    else switch (dt) { CT__KD_NUMERIC(CT__KCASE, sub_alpha, h) default: break; }
    return NULL;
}

static void ct__cpu_pointwise(ct__op op, ct_tensor *out, const ct_tensor *const *inputs, const ct__op_args *args)
{
    int n = ct__ops[op].arity;
    const ct_tensor *ops[4] = {out, inputs[0], n > 1 ? inputs[1] : NULL, n > 2 ? inputs[2] : NULL};
    /* the last input has the data dtype (where's first is its condition) */
    ct_dtype dt = inputs[n - 1]->dtype;
    bool alpha = args->alpha != 1 || args->alpha_i != 1;
    ct__loop_fn fn = (op == CT__OP_add || op == CT__OP_sub) && alpha ? ct__cpu_alpha_loop(op, dt)
                                                                      : ct__cpu_pointwise_loop(op, dt);
    if (args->alike) {
        ct__iter_run_alike(1 + n, ops, fn, (void *)args);
        return;
    }
    ct__iter it; /* (the flat form fills only what one loop reads: not zeroed, it is large) */
    if (!ct__iter_init_flat(&it, 1 + n, ops)) ct__iter_init(&it, 1 + n, ops);
    ct__iter_parallel(&it, fn, (void *)args);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
