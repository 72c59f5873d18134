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
 * get the same bits with or without CT__VECMATH (without it, the twins of
 * exp, log, tanh and sigmoid are the same functions; float erf, in gelu, is
 * SLEEF's in every build). */
#define CT__VM_BLOCK(T) (64 / (int64_t)sizeof(T))

/* out[k] = fn(x[k]) for k below n less n % BLOCK, tail(x[k]) beyond; the
 * contiguous case is a plain loop the compiler vectorises. OT and STORE are
 * the output's type and store. ct__run_<name>_<dt> runs it with the op's
 * arguments a, ct__k_<name>_<dt> is the kernel. */
#define CT__UNARY_RUN_SPLIT(name, dt, OT, STORE, tail, BLOCK)                                   \
    CT__ALWAYS_INLINE void ct__run_##name##_##dt(char **d, const int64_t *s, int64_t n, const ct__op_args *a) \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
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
#define CT__UNARY_LOOP_SPLIT(name, dt, OT, STORE, tail, BLOCK)                                  \
    CT__UNARY_RUN_SPLIT(name, dt, OT, STORE, tail, BLOCK)                                       \
    static void ct__k_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        const ct__op_args args_ = *(const ct__op_args *)ctx; /* not aliased: hoistable */        \
        ct__run_##name##_##dt(d, s, n, &args_);                                                  \
    }
#define CT__UNARY_LOOP(name, dt) CT__UNARY_LOOP_SPLIT(name, dt, CT__KT_##dt, CT__KS_##dt, name, 1)
#define CT__UNARY_BOOL_LOOP(name, dt) CT__UNARY_LOOP_SPLIT(name, dt, uint8_t, CT__KS_b8, name, 1)
#define CT__UNARY_VM_LOOP(name, dt) \
    CT__UNARY_LOOP_SPLIT(name, dt, CT__KT_##dt, CT__KS_##dt, name##_libm, CT__VM_BLOCK(CT__KT_##dt))
/* A vector-math op with modes (gelu, gelu_backward) runs mode 0 in a loop of
 * its own, where the mode is a constant and the other modes' code folds
 * away, so that the loop vectorises (GCC does not unswitch loops that large):
 * ct__k_<name>_<dt> over ct__run_<name>_<dt>. */
#define CT__MODE0_KERNEL(name, dt)                                                               \
    static void ct__k_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)            \
    {                                                                                            \
        ct__op_args args_ = *(const ct__op_args *)ctx;                                           \
        if (args_.mode != 0) {                                                                   \
            ct__run_##name##_##dt(d, s, n, &args_);                                              \
            return;                                                                              \
        }                                                                                        \
        args_.mode = 0;                                                                          \
        ct__run_##name##_##dt(d, s, n, &args_);                                                  \
    }
#define CT__UNARY_VM0_LOOP(name, dt) \
    CT__UNARY_RUN_SPLIT(name, dt, CT__KT_##dt, CT__KS_##dt, name##_libm, CT__VM_BLOCK(CT__KT_##dt)) CT__MODE0_KERNEL(name, dt)

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

/* A vector-math binary op with modes (gelu_backward): out[k] = fn(X, Y) over
 * whole vector blocks and the _libm twin beyond where every operand is
 * contiguous or a broadcast number (PyTorch's vectorised loop), the twin
 * alone elsewhere (its scalar loop); mode 0 in a loop of its own. */
#define CT__BINARY_SPLIT(name, dt, X, Y)                                                         \
    for (k = 0; k < nv; k++) o[k] = CT__KS_##dt(CT__KFN(name, dt)(CT__KL_##dt(X), CT__KL_##dt(Y), a)); \
    for (; k < n; k++) o[k] = CT__KS_##dt(CT__KFN(name##_libm, dt)(CT__KL_##dt(X), CT__KL_##dt(Y), a));
#define CT__BINARY_RUN_SPLIT(name, dt)                                                            \
    CT__ALWAYS_INLINE void ct__run_##name##_##dt(char **d, const int64_t *s, int64_t n, const ct__op_args *a) \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        const int64_t es = (int64_t)sizeof(T), nv = n - n % CT__VM_BLOCK(T);                     \
        T *CT__RESTRICT o = (T *)d[0];                                                           \
        const T *CT__RESTRICT x = (const T *)d[1], *CT__RESTRICT y = (const T *)d[2];            \
        int64_t k;                                                                               \
        if (s[0] == es && s[1] == es && s[2] == es) {                                            \
            CT__BINARY_SPLIT(name, dt, x[k], y[k])                                               \
        } else if (s[0] == es && s[1] == 0 && s[2] == es) {                                      \
            const T x0 = x[0];                                                                   \
            CT__BINARY_SPLIT(name, dt, x0, y[k])                                                 \
        } else if (s[0] == es && s[1] == es && s[2] == 0) {                                      \
            const T y0 = y[0];                                                                   \
            CT__BINARY_SPLIT(name, dt, x[k], y0)                                                 \
        } else {                                                                                 \
            for (k = 0; k < n; k++)                                                              \
                *(T *)(d[0] + k * s[0]) = CT__KS_##dt(CT__KFN(name##_libm, dt)(                  \
                    CT__KL_##dt(*(const T *)(d[1] + k * s[1])), CT__KL_##dt(*(const T *)(d[2] + k * s[2])), a)); \
        }                                                                                        \
    }
#define CT__BINARY_VM0_LOOP(name, dt) CT__BINARY_RUN_SPLIT(name, dt) CT__MODE0_KERNEL(name, dt)

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

/* Loops of their own exist for the dtypes training runs on: bool, int64,
 * float32 and float64. The rare dtypes run those loops on their operands
 * widened a chunk at a time (ct__k_widened below): the narrow integers
 * int64's loop, float16 and bfloat16 float32's, or f32h, the float loop of
 * the h flavour, for the ops that have one. Each loop calls the formula of the
 * same flavour on the same values as a loop of the dtype would, so every bit
 * is as it would be, and the compiler builds a third of the loops. Two
 * kinds keep float16 and bfloat16 loops of their own: the vector-math ops
 * (CT__VM_BLOCK counts elements of the storage type) and where (it copies
 * bits, which float16 and bfloat16 NaN payloads would not survive through
 * float). */
#define CT__KT_f32h float
#define CT__KF_f32h h
#define CT__KL_f32h(v) (v)
#define CT__KS_f32h(v) (v)
#define CT__DT_f32h CT_NUM_DTYPES /* (a loop key, no dtype) */
#define CT__OWN_INTS(X, op, h) X(op, i64)
#define CT__OWN_FLOATS(X, op, h) X(op, f32) X(op, f64) CT__OWN_F32##h(X, op)
#define CT__OWN_F32(X, op)
#define CT__OWN_F32h(X, op) X(op, f32h)
#define CT__OWN_NUMERIC(X, op, h) CT__OWN_INTS(X, op, h) CT__OWN_FLOATS(X, op, h)
#define CT__OWN_ALL(X, op, h) X(op, b8) CT__OWN_NUMERIC(X, op, h)
#define CT__OWN_INTS_BOOL(X, op, h) X(op, b8) CT__OWN_INTS(X, op, h)
/* X(op, dt) for each loop of its own of an op of this kind and dtype group */
#define CT__OWN_UNARY(X, op, group, h) CT__OWN_##group(X, op, h)
#define CT__OWN_UNARY_BOOL(X, op, group, h) CT__OWN_##group(X, op, h)
/* (vector-math ops with an h flavour have it in their float16 and bfloat16 loops) */
#define CT__OWN_UNARY_VM(X, op, group, h) CT__OWN_##group(X, op, ) X(op, f16##h) X(op, bf16##h)
#define CT__OWN_UNARY_VM0 CT__OWN_UNARY_VM
#define CT__OWN_BINARY(X, op, group, h) CT__OWN_##group(X, op, h)
#define CT__OWN_BINARY_VM0 CT__OWN_BINARY
#define CT__OWN_BINARY_BOOL(X, op, group, h) CT__OWN_##group(X, op, h)
#define CT__OWN_TERNARY(X, op, group, h) CT__OWN_##group(X, op, h)
#define CT__OWN_WHERE(X, op, group, h) CT__OWN_##group(X, op, h) X(op, f16) X(op, bf16)

#define CT__DEFINE_LOOPS(name, kind, group) CT__OWN_##kind(CT__##kind##_LOOP, name, group, )
#define CT__DEFINE_LOOPS_H(name, kind, group) CT__OWN_##kind(CT__##kind##_LOOP, name, group, h)
CT__POINTWISE_KERNELS(CT__DEFINE_LOOPS, CT__DEFINE_LOOPS_H)
CT__DEFINE_LOOPS_H(add_alpha, BINARY, ALL)
CT__DEFINE_LOOPS_H(sub_alpha, BINARY, NUMERIC)
#undef CT__DEFINE_LOOPS_H
#undef CT__DEFINE_LOOPS

#define CT__KCASE(name, dt) case CT__DT_##dt: return ct__k_##name##_##dt;

/* The loop of its own of op (its add_alpha or sub_alpha loop when alpha) for
 * key, a dtype or CT__DT_f32h, or NULL when there is none. */
static ct__loop_fn ct__cpu_own_loop(ct__op op, bool alpha, int key)
{
    if (alpha) {
        if (op == CT__OP_add) switch (key) { CT__OWN_ALL(CT__KCASE, add_alpha, h) default: return NULL; }
        switch (key) { CT__OWN_NUMERIC(CT__KCASE, sub_alpha, h) default: return NULL; }
    }
    switch (op) {
#define CT__KCASES(name, kind, group) \
    case CT__OP_##name: switch (key) { CT__OWN_##kind(CT__KCASE, name, group, ) default: return NULL; }
#define CT__KCASES_H(name, kind, group) \
    case CT__OP_##name: switch (key) { CT__OWN_##kind(CT__KCASE, name, group, h) default: return NULL; }
        CT__POINTWISE_KERNELS(CT__KCASES, CT__KCASES_H)
#undef CT__KCASES_H
#undef CT__KCASES
    default: return NULL;
    }
}

/* The CPU loop that serves op for operands of dtype dt, or NULL when there is
 * none; *widened tells whether it takes dt's operands widened (ct__k_widened). */
static ct__loop_fn ct__cpu_pointwise_loop_of(ct__op op, bool alpha, ct_dtype dt, bool *widened)
{
    ct__loop_fn own = ct__cpu_own_loop(op, alpha, dt);
    *widened = own == NULL;
    if (own) return own;
    if (dt == CT_U8 || dt == CT_I8 || dt == CT_I16 || dt == CT_I32) return ct__cpu_own_loop(op, alpha, CT_I64);
    if (dt != CT_F16 && dt != CT_BF16) return NULL;
    ct__loop_fn h = ct__cpu_own_loop(op, alpha, CT__DT_f32h);
    return h ? h : ct__cpu_own_loop(op, alpha, CT_F32);
}

/* Whether the CPU has op's loop for dtype dt (the backend's has_pointwise). */
static bool ct__cpu_has_pointwise(ct__op op, ct_dtype dt)
{
    bool widened;
    return ct__cpu_pointwise_loop_of(op, false, dt, &widened) != NULL;
}

/* ct__k_widened's context: the loop it runs and which operands it widens */
typedef struct ct__widened_run {
    ct__loop_fn loop;
    const ct__op_args *args;
    ct_dtype dt;
    int nops;
    bool widen[4]; /* operand i is of dtype dt (a condition or a bool result is not) */
} ct__widened_run;

/* Runs w->loop on chunks of the run with the operands of dtype w->dt widened
 * to the loop's type, then narrows the result back: a broadcast number stays
 * one element, with stride 0. */
static void ct__k_widened(char **d, const int64_t *s, int64_t n, void *ctx)
{
    enum { CHUNK = 256 };
    const ct__widened_run *w = (const ct__widened_run *)ctx;
    const int64_t ws = w->dt == CT_F16 || w->dt == CT_BF16 ? (int64_t)sizeof(float) : (int64_t)sizeof(int64_t);
    int64_t buf[4][CHUNK]; /* (room for CHUNK of either type) */
    for (int64_t at = 0; at < n; at += CHUNK) {
        const int64_t m = n - at < CHUNK ? n - at : (int64_t)CHUNK;
        char *wd[4];
        int64_t wstr[4];
        for (int i = 0; i < w->nops; i++) {
            char *p = d[i] + at * s[i];
            if (!w->widen[i]) {
                wd[i] = p;
                wstr[i] = s[i];
                continue;
            }
            wd[i] = (char *)buf[i];
            wstr[i] = i > 0 && s[i] == 0 ? 0 : ws;
            if (i > 0) ct__load_widened(w->dt, p, s[i], wstr[i] ? m : 1, buf[i]);
        }
        w->loop(wd, wstr, m, (void *)w->args);
        if (w->widen[0]) ct__store_narrowed(w->dt, buf[0], d[0] + at * s[0], s[0], m);
    }
}

static void ct__cpu_pointwise(ct__op op, ct_tensor *out, const ct_tensor *const *inputs, const ct__op_args *args)
{
    int n = ct__ops[op].arity;
    const ct_tensor *ops[4] = {out, inputs[0], n > 1 ? inputs[1] : NULL, n > 2 ? inputs[2] : NULL};
    /* the last input has the data dtype (where's first is its condition) */
    ct_dtype dt = inputs[n - 1]->dtype;
    bool alpha = (op == CT__OP_add || op == CT__OP_sub) && (args->alpha != 1 || args->alpha_i != 1);
    ct__widened_run w = {NULL, args, dt, 1 + n, {false, false, false, false}};
    bool widened;
    ct__loop_fn fn = ct__cpu_pointwise_loop_of(op, alpha, dt, &widened);
    void *ctx = (void *)args;
    if (widened) {
        w.loop = fn;
        for (int i = 0; i < 1 + n; i++) w.widen[i] = ops[i]->dtype == dt;
        w.widen[1] &= op != CT__OP_where; /* (where's loops read its condition as bytes) */
        fn = ct__k_widened;
        ctx = &w;
    }
    if (args->alike) {
        ct__iter_run_alike(1 + n, ops, fn, ctx);
        return;
    }
    ct__iter it; /* (the flat form fills only what one loop reads: not zeroed, it is large) */
    if (!ct__iter_init_flat(&it, 1 + n, ops)) ct__iter_init(&it, 1 + n, ops);
    ct__iter_parallel(&it, fn, ctx);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
