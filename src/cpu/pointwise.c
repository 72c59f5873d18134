/* Pointwise kernels on the CPU.
 *
 * Each op is defined once per compute flavour: f (float), d (double) and i
 * (int64, which also serves the narrower integers and bool: their results wrap
 * to the low bits when stored, as native arithmetic does). Loops over every
 * dtype are generated from those definitions. float16 and bfloat16 never reach
 * a kernel: the front end computes them in float32 and rounds once, which is
 * what PyTorch's per-element `float(a) op float(b)` gives. */

/* Per dtype: storage type, flavour, load to the flavour and store from it. */
#define CT__KT_b8 uint8_t
#define CT__KT_u8 uint8_t
#define CT__KT_i8 int8_t
#define CT__KT_i16 int16_t
#define CT__KT_i32 int32_t
#define CT__KT_i64 int64_t
#define CT__KT_f32 float
#define CT__KT_f64 double
#define CT__KF_b8 i
#define CT__KF_u8 i
#define CT__KF_i8 i
#define CT__KF_i16 i
#define CT__KF_i32 i
#define CT__KF_i64 i
#define CT__KF_f32 f
#define CT__KF_f64 d
#define CT__KS_b8(v) ((uint8_t)((v) != 0))
#define CT__KS_u8(v) ((uint8_t)(uint64_t)(v))
#define CT__KS_i8(v) ((int8_t)(uint8_t)(uint64_t)(v))
#define CT__KS_i16(v) ((int16_t)(uint16_t)(uint64_t)(v))
#define CT__KS_i32(v) ((int32_t)(uint32_t)(uint64_t)(v))
#define CT__KS_i64(v) ((int64_t)(v))
#define CT__KS_f32(v) (v)
#define CT__KS_f64(v) (v)
typedef float ct__flavour_f;
typedef double ct__flavour_d;
typedef int64_t ct__flavour_i;

/* The dtype groups an op supports. */
#define CT__KD_INTS(X, op) X(op, u8) X(op, i8) X(op, i16) X(op, i32) X(op, i64)
#define CT__KD_FLOATS(X, op) X(op, f32) X(op, f64)
#define CT__KD_NUMERIC(X, op) CT__KD_INTS(X, op) CT__KD_FLOATS(X, op)
#define CT__KD_ALL(X, op) X(op, b8) CT__KD_NUMERIC(X, op)

/* ---------------------------------------------------------------- op definitions */

/* Unary: out = fn(x). CT__UNARY(name, float expr, double expr, int64 expr) */
#define CT__UNARY_F(name, ef) static inline float ct__##name##_f(float x, const ct__op_args *a) { (void)a; return ef; }
#define CT__UNARY_D(name, ed) static inline double ct__##name##_d(double x, const ct__op_args *a) { (void)a; return ed; }
#define CT__UNARY_I(name, ei) static inline int64_t ct__##name##_i(int64_t x, const ct__op_args *a) { (void)a; return ei; }

CT__UNARY_I(neg, (int64_t)(0 - (uint64_t)x))
CT__UNARY_F(neg, -x)
CT__UNARY_D(neg, -x)
CT__UNARY_I(abs, x < 0 ? (int64_t)(0 - (uint64_t)x) : x)
CT__UNARY_F(abs, fabsf(x))
CT__UNARY_D(abs, fabs(x))
CT__UNARY_I(floor, x)
CT__UNARY_F(floor, floorf(x))
CT__UNARY_D(floor, floor(x))
CT__UNARY_F(exp, expf(x))
CT__UNARY_D(exp, exp(x))
CT__UNARY_F(log, logf(x))
CT__UNARY_D(log, log(x))
CT__UNARY_F(sqrt, sqrtf(x))
CT__UNARY_D(sqrt, sqrt(x))
CT__UNARY_F(tanh, tanhf(x))
CT__UNARY_D(tanh, tanh(x))
CT__UNARY_F(sigmoid, 1.0f / (1.0f + expf(-x)))
CT__UNARY_D(sigmoid, 1.0 / (1.0 + exp(-x)))
CT__UNARY_I(relu, x > 0 ? x : 0)
CT__UNARY_F(relu, x > 0 ? x : (x != x ? x : 0.0f))
CT__UNARY_D(relu, x > 0 ? x : (x != x ? x : 0.0))
CT__UNARY_I(isnan, x != x)
CT__UNARY_F(isnan, x != x)
CT__UNARY_D(isnan, x != x)
CT__UNARY_I(logical_not, x == 0)
CT__UNARY_F(logical_not, x == 0)
CT__UNARY_D(logical_not, x == 0)

/* Binary: out = fn(x, y). */
#define CT__BINARY_F(name, ef) \
    static inline float ct__##name##_f(float x, float y, const ct__op_args *a) { (void)a; return ef; }
#define CT__BINARY_D(name, ed) \
    static inline double ct__##name##_d(double x, double y, const ct__op_args *a) { (void)a; return ed; }
#define CT__BINARY_I(name, ei) \
    static inline int64_t ct__##name##_i(int64_t x, int64_t y, const ct__op_args *a) { (void)a; return ei; }

/* alpha scales y (PyTorch: add(x, y, alpha) = x + alpha * y) */
CT__BINARY_I(add, (int64_t)((uint64_t)x + (uint64_t)a->alpha_i * (uint64_t)y))
CT__BINARY_F(add, x + (float)a->alpha * y)
CT__BINARY_D(add, x + a->alpha * y)
CT__BINARY_I(sub, (int64_t)((uint64_t)x - (uint64_t)a->alpha_i * (uint64_t)y))
CT__BINARY_F(sub, x - (float)a->alpha * y)
CT__BINARY_D(sub, x - a->alpha * y)
CT__BINARY_I(mul, (int64_t)((uint64_t)x * (uint64_t)y))
CT__BINARY_F(mul, x * y)
CT__BINARY_D(mul, x * y)
CT__BINARY_F(div, x / y)
CT__BINARY_D(div, x / y)
/* NaN propagates, as in PyTorch (fmax is the NaN-ignoring one) */
CT__BINARY_I(maximum, x > y ? x : y)
CT__BINARY_F(maximum, (x != x || y != y) ? x + y : (x > y ? x : y))
CT__BINARY_D(maximum, (x != x || y != y) ? x + y : (x > y ? x : y))
/* With a number exponent PyTorch takes products for 2, 3 and -2, and (except
 * for float16) sqrt, rsqrt and reciprocal for 0.5, -0.5 and -1, which round
 * (and treat -0 and -inf) differently from pow. */
#define CT__POW_BY_NUMBER(x, y, one, sqrtfn)                    \
    if (a->number_other) {                                      \
        if (y == 0.5 && a->compute != CT_F16) return sqrtfn(x); \
        if (y == -0.5 && a->compute != CT_F16) return one / sqrtfn(x); \
        if (y == -1 && a->compute != CT_F16) return one / x;    \
        if (y == 2) return x * x;                               \
        if (y == 3) return x * x * x;                           \
        if (y == -2) return one / (x * x);                      \
    }
static inline float ct__pow_f(float x, float y, const ct__op_args *a)
{
    CT__POW_BY_NUMBER(x, y, 1.0f, sqrtf)
    return powf(x, y);
}
static inline double ct__pow_d(double x, double y, const ct__op_args *a)
{
    CT__POW_BY_NUMBER(x, y, 1.0, sqrt)
    return pow(x, y);
}
CT__BINARY_I(eq, x == y)
CT__BINARY_F(eq, x == y)
CT__BINARY_D(eq, x == y)
CT__BINARY_I(lt, x < y)
CT__BINARY_F(lt, x < y)
CT__BINARY_D(lt, x < y)
CT__BINARY_I(logical_and, x != 0 && y != 0)
CT__BINARY_F(logical_and, x != 0 && y != 0)
CT__BINARY_D(logical_and, x != 0 && y != 0)

/* Integer power by squaring, wrapping as PyTorch's does (negative exponents
 * are refused by the front end, except for bases 1 and -1). */
static inline int64_t ct__pow_i(int64_t x, int64_t y, const ct__op_args *a)
{
    (void)a;
    if (y < 0) return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
    uint64_t r = 1, b = (uint64_t)x;
    for (uint64_t e = (uint64_t)y; e; e >>= 1, b *= b)
        if (e & 1) r *= b;
    return (int64_t)r;
}

/* ---------------------------------------------------------------- loops */

/* out[k] = fn(x[k]); the contiguous case is a plain loop the compiler vectorises. */
#define CT__UNARY_LOOP(name, dt)                                                                 \
    static void ct__uk_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)           \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        const ct__op_args *a = (const ct__op_args *)ctx;                                         \
        if (s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) {                          \
            T *CT__RESTRICT o = (T *)d[0];                                                       \
            const T *CT__RESTRICT x = (const T *)d[1];                                           \
            for (int64_t k = 0; k < n; k++)                                                      \
                o[k] = CT__KS_##dt(CT__CAT(ct__##name##_, CT__KF_##dt)((CT__CAT(ct__flavour_, CT__KF_##dt))x[k], a)); \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                *(T *)(d[0] + k * s[0]) = CT__KS_##dt(CT__CAT(ct__##name##_, CT__KF_##dt)(       \
                    (CT__CAT(ct__flavour_, CT__KF_##dt))*(const T *)(d[1] + k * s[1]), a));      \
        }                                                                                        \
    }

/* The same with a bool output (tests such as isnan). */
#define CT__UNARY_BOOL_LOOP(name, dt)                                                            \
    static void ct__uk_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)           \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        const ct__op_args *a = (const ct__op_args *)ctx;                                         \
        for (int64_t k = 0; k < n; k++)                                                          \
            *(uint8_t *)(d[0] + k * s[0]) = (uint8_t)(CT__CAT(ct__##name##_, CT__KF_##dt)(       \
                (CT__CAT(ct__flavour_, CT__KF_##dt))*(const T *)(d[1] + k * s[1]), a) != 0);     \
    }

/* out[k] = fn(x[k], y[k]), with fast paths for contiguous operands and for a
 * broadcast scalar y. OUT is the output's dtype name, STORE its store. */
#define CT__BINARY_LOOP_AS(name, dt, OT, STORE)                                                  \
    static void ct__bk_##name##_##dt(char **d, const int64_t *s, int64_t n, void *ctx)           \
    {                                                                                            \
        typedef CT__KT_##dt T;                                                                   \
        typedef CT__CAT(ct__flavour_, CT__KF_##dt) F;                                            \
        const ct__op_args *a = (const ct__op_args *)ctx;                                         \
        if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T) && s[2] == (int64_t)sizeof(T)) { \
            OT *CT__RESTRICT o = (OT *)d[0];                                                     \
            const T *CT__RESTRICT x = (const T *)d[1], *CT__RESTRICT y = (const T *)d[2];        \
            for (int64_t k = 0; k < n; k++)                                                      \
                o[k] = STORE(CT__CAT(ct__##name##_, CT__KF_##dt)((F)x[k], (F)y[k], a));         \
        } else if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T) && s[2] == 0) {     \
            OT *CT__RESTRICT o = (OT *)d[0];                                                     \
            const T *CT__RESTRICT x = (const T *)d[1];                                           \
            const F y = (F) * (const T *)d[2];                                                   \
            for (int64_t k = 0; k < n; k++) o[k] = STORE(CT__CAT(ct__##name##_, CT__KF_##dt)((F)x[k], y, a)); \
        } else {                                                                                 \
            for (int64_t k = 0; k < n; k++)                                                      \
                *(OT *)(d[0] + k * s[0]) = STORE(CT__CAT(ct__##name##_, CT__KF_##dt)(            \
                    (F) * (const T *)(d[1] + k * s[1]), (F) * (const T *)(d[2] + k * s[2]), a));  \
        }                                                                                        \
    }
#define CT__BINARY_LOOP(name, dt) CT__BINARY_LOOP_AS(name, dt, CT__KT_##dt, CT__KS_##dt)
#define CT__BINARY_BOOL_LOOP(name, dt) CT__BINARY_LOOP_AS(name, dt, uint8_t, CT__KS_b8)

/* Which loops exist: X(name, kind of loop, dtype group). */
#define CT__CPU_KERNELS(X)                  \
    X(neg, UNARY, NUMERIC)                  \
    X(abs, UNARY, NUMERIC)                  \
    X(floor, UNARY, NUMERIC)                \
    X(exp, UNARY, FLOATS)                   \
    X(log, UNARY, FLOATS)                   \
    X(sqrt, UNARY, FLOATS)                  \
    X(tanh, UNARY, FLOATS)                  \
    X(sigmoid, UNARY, FLOATS)               \
    X(relu, UNARY, NUMERIC)                 \
    X(isnan, UNARY_BOOL, ALL)               \
    X(logical_not, UNARY_BOOL, ALL)         \
    X(add, BINARY, ALL)                     \
    X(sub, BINARY, NUMERIC)                 \
    X(mul, BINARY, ALL)                     \
    X(div, BINARY, FLOATS)                  \
    X(maximum, BINARY, ALL)                 \
    X(pow, BINARY, NUMERIC)                 \
    X(eq, BINARY_BOOL, ALL)                 \
    X(lt, BINARY_BOOL, ALL)                 \
    X(logical_and, BINARY_BOOL, ALL)

#define CT__DEFINE_LOOPS(name, kind, group) CT__KD_##group(CT__##kind##_LOOP, name)
CT__CPU_KERNELS(CT__DEFINE_LOOPS)
#undef CT__DEFINE_LOOPS

#define CT__KCASE_UNARY(name, dt) case CT__DT_##dt: return ct__uk_##name##_##dt;
#define CT__KCASE_UNARY_BOOL CT__KCASE_UNARY
#define CT__KCASE_BINARY(name, dt) case CT__DT_##dt: return ct__bk_##name##_##dt;
#define CT__KCASE_BINARY_BOOL CT__KCASE_BINARY
#define CT__DT_b8 CT_BOOL
#define CT__DT_u8 CT_U8
#define CT__DT_i8 CT_I8
#define CT__DT_i16 CT_I16
#define CT__DT_i32 CT_I32
#define CT__DT_i64 CT_I64
#define CT__DT_f32 CT_F32
#define CT__DT_f64 CT_F64

/* The CPU loop of op for inputs of dtype dt, or NULL when PyTorch has none. */
static ct__loop_fn ct__cpu_pointwise_loop(ct__op op, ct_dtype dt)
{
    switch (op) {
#define CT__KCASES(name, kind, group) \
    case CT__OP_##name: switch (dt) { CT__KD_##group(CT__KCASE_##kind, name) default: return NULL; }
        CT__CPU_KERNELS(CT__KCASES)
#undef CT__KCASES
    default: return NULL;
    }
}

static void ct__cpu_pointwise(ct__op op, ct_tensor *out, const ct_tensor *const *inputs, const ct__op_args *args)
{
    const ct_tensor *ops[3] = {out, inputs[0], ct__ops[op].arity > 1 ? inputs[1] : NULL};
    ct__iter it;
    ct__iter_init(&it, 1 + ct__ops[op].arity, ops);
    ct__iter_parallel(&it, ct__cpu_pointwise_loop(op, inputs[0]->dtype), (void *)args);
}
