/* Backend interface: the reductions' formulas that a device's kernels share
 * with the CPU's, so that both give the same bits: what an order-free
 * reduction (extremes, logic, counts, integer sums and products) does with
 * one more element, and the row kernels of the ops along one dim (ct__aop)
 * but median and mode: extremes and their index, cummax and cummin, cumsum
 * and cumprod, logcumsumexp, softmax and log_softmax. A row is one output's
 * work, done in PyTorch 1.13's CPU order; the CPU runs rows on its threads
 * (src/cpu/reduce.c), the CUDA backend one row a thread (src/cuda/kernels.cu),
 * and the results agree wherever their exp and log do. Last, batch norm's
 * statistics, a channel at a time. */

/* ---------------------------------------------------------------- elements */

CT__INLINE float ct__h2f(const char *p) { return ct__f16_to_float(*(const uint16_t *)p); }
CT__INLINE float ct__b2f(const char *p) { return ct__bf16_to_float(*(const uint16_t *)p); }
CT__INLINE void ct__f2h(char *p, float v) { *(uint16_t *)p = ct__float_to_f16(v); }
CT__INLINE void ct__f2b(char *p, float v) { *(uint16_t *)p = ct__float_to_bf16(v); }
/* float rounded to float16 / bfloat16 and back: one operation of c10::Half arithmetic */
CT__INLINE float ct__rh(float v) { return ct__f16_to_float(ct__float_to_f16(v)); }
CT__INLINE float ct__rb(float v) { return ct__bf16_to_float(ct__float_to_bf16(v)); }

/* ---------------------------------------------------------------- order-free reductions */

/* Whether an element is nonzero (NaN is, -0 is not). */
#define CT__NZ_INT(x) ((x) != 0)
#define CT__NZ_HALF(x) (((x) & 0x7fff) != 0)
#define CT__NZ_b8 CT__NZ_INT
#define CT__NZ_i64 CT__NZ_INT
#define CT__NZ_f16 CT__NZ_HALF
#define CT__NZ_bf16 CT__NZ_HALF
#define CT__NZ_f32 CT__NZ_INT
#define CT__NZ_f64 CT__NZ_INT
/* Order an element by: its value as float for float16 and bfloat16. */
#define CT__KEY_b8(x) (x)
#define CT__KEY_i64(x) (x)
#define CT__KEY_f16(x) ct__f16_to_float(x)
#define CT__KEY_bf16(x) ct__bf16_to_float(x)
#define CT__KEY_f32(x) (x)
#define CT__KEY_f64(x) (x)
/* Whether an element is NaN: never, for bool and the integers (no value
 * compared with itself where it cannot be NaN, which compilers flag) */
#define CT__KEY_NAN_b8(x) ((void)(x), false)
#define CT__KEY_NAN_i64(x) ((void)(x), false)
#define CT__KEY_NAN_f16(x) (CT__KEY_f16(x) != CT__KEY_f16(x))
#define CT__KEY_NAN_bf16(x) (CT__KEY_bf16(x) != CT__KEY_bf16(x))
#define CT__KEY_NAN_f32(x) ((x) != (x))
#define CT__KEY_NAN_f64(x) ((x) != (x))

#define CT__OP_ADD(a, x) ((int64_t)((uint64_t)(a) + (uint64_t)(int64_t)(x)))
#define CT__OP_MUL(a, x) ((int64_t)((uint64_t)(a) * (uint64_t)(int64_t)(x)))
/* Each order-free op folding element x into a partial result a; max and
 * min keep a NaN once seen. */
#define CT__OPS_FOR(name)                                                                                 \
    CT__INLINE uint8_t CT__OPALL_##name(uint8_t a, ct__##name##_t x) { return a && CT__NZ_##name(x); }    \
    CT__INLINE uint8_t CT__OPANY_##name(uint8_t a, ct__##name##_t x) { return a || CT__NZ_##name(x); }    \
    CT__INLINE int64_t CT__OPCOUNT_##name(int64_t a, ct__##name##_t x) { return a + CT__NZ_##name(x); }   \
    CT__INLINE ct__##name##_t CT__OPMAX_##name(ct__##name##_t a, ct__##name##_t x)                        \
    {                                                                                                     \
        return (CT__KEY_##name(x) > CT__KEY_##name(a) || CT__KEY_NAN_##name(x)) ? x : a;                  \
    }                                                                                                     \
    CT__INLINE ct__##name##_t CT__OPMIN_##name(ct__##name##_t a, ct__##name##_t x)                        \
    {                                                                                                     \
        return (CT__KEY_##name(x) < CT__KEY_##name(a) || CT__KEY_NAN_##name(x)) ? x : a;                  \
    }
/* The dtypes with order-free ops of their own: bool, int64 and the floating
 * ones. The narrow integers run int64's on their values widened. */
#define CT__FREE_DTYPES(X) X(b8, CT_BOOL, _) X(i64, CT_I64, _) X(f16, CT_F16, _) X(bf16, CT_BF16, _)      \
    X(f32, CT_F32, _) X(f64, CT_F64, _)
#define CT__OPS_FOR_DT(name, DT, _) CT__OPS_FOR(name)
CT__FREE_DTYPES(CT__OPS_FOR_DT)
#undef CT__OPS_FOR_DT

/* The largest (max) or smallest element of a contiguous row of a floating
 * dtype, found through keys: a float's bits with the sign bit flipped when
 * it is clear and all bits flipped when it is set order as unsigned
 * integers the way the values do (-0 below +0), and an integer maximum
 * vectorises where GCC leaves a NaN-keeping float maximum scalar. False for
 * an empty row, a row with a NaN and a row whose extreme is zero: there the
 * order of the comparisons decides which NaN or which zero wins, so callers
 * run their own loop. INF is the dtype's infinity as bits. */
#define CT__KEY_EXTREME(name, T, U, INF)                                                                  \
    CT__INLINE U ct__fkey_##name(U b)                                                                     \
    {                                                                                                     \
        const U sign = (U)((U)1 << (sizeof(U) * 8 - 1));                                                  \
        return (U)(b ^ ((U)(0u - (U)(b >> (sizeof(U) * 8 - 1))) | sign));                                 \
    }                                                                                                     \
    CT__INLINE bool ct__extreme_##name(const T *x, int64_t n, bool max, T *res)                           \
    {                                                                                                     \
        const U sign = (U)((U)1 << (sizeof(U) * 8 - 1)), mag = (U)~sign, inf = (U)(INF);                  \
        U best = max ? 0 : (U)~(U)0, nan = 0, b;                                                          \
        if (max) {                                                                                        \
            for (int64_t i = 0; i < n; i++) {                                                             \
                memcpy(&b, x + i, sizeof b);                                                              \
                U k = ct__fkey_##name(b);                                                                 \
                best = k > best ? k : best;                                                               \
                nan |= (U)((U)(b & mag) > inf);                                                           \
            }                                                                                             \
        } else {                                                                                          \
            for (int64_t i = 0; i < n; i++) {                                                             \
                memcpy(&b, x + i, sizeof b);                                                              \
                U k = ct__fkey_##name(b);                                                                 \
                best = k < best ? k : best;                                                               \
                nan |= (U)((U)(b & mag) > inf);                                                           \
            }                                                                                             \
        }                                                                                                 \
        b = (best & sign) ? (U)(best ^ sign) : (U)~best; /* the key undone */                             \
        if (nan || n == 0 || (U)(b & mag) == 0) return false;                                             \
        memcpy(res, &b, sizeof b);                                                                        \
        return true;                                                                                      \
    }
CT__KEY_EXTREME(f32, float, uint32_t, 0x7f800000u)
CT__KEY_EXTREME(f64, double, uint64_t, 0x7ff0000000000000u)
CT__KEY_EXTREME(f16, uint16_t, uint16_t, 0x7c00u)
CT__KEY_EXTREME(bf16, uint16_t, uint16_t, 0x7f80u)

/* ---------------------------------------------------------------- along one dim */

/* One row: n elements of in along the dim, and where its values and indices
 * go; scratch has room for the op's work arrays. */
typedef struct ct__row {
    const char *in;
    char *val, *idx;
    int64_t is, vs, xs, n;
    void *scratch;
} ct__row;

#define CT__LOADI(T) (int64_t) * (const T *)
#define CT__LOAD_b8(p) (CT__LOADI(uint8_t)(p))
#define CT__LOAD_u8(p) (CT__LOADI(uint8_t)(p))
#define CT__LOAD_i8(p) (CT__LOADI(int8_t)(p))
#define CT__LOAD_i16(p) (CT__LOADI(int16_t)(p))
#define CT__LOAD_i32(p) (CT__LOADI(int32_t)(p))
#define CT__LOAD_i64(p) (CT__LOADI(int64_t)(p))
#define CT__LOAD_f16(p) ct__h2f(p)
#define CT__LOAD_bf16(p) ct__b2f(p)
#define CT__LOAD_f32(p) (*(const float *)(p))
#define CT__LOAD_f64(p) (*(const double *)(p))
/* integers wrap to the low bits; floats round */
#define CT__STOREI(T, p, v) (*(T *)(p) = (T)(v))
#define CT__STORE_b8(p, v) (*(uint8_t *)(p) = (v) != 0)
#define CT__STORE_u8(p, v) CT__STOREI(uint8_t, p, v)
#define CT__STORE_i8(p, v) CT__STOREI(int8_t, p, (uint8_t)(v))
#define CT__STORE_i16(p, v) CT__STOREI(int16_t, p, (uint16_t)(v))
#define CT__STORE_i32(p, v) CT__STOREI(int32_t, p, (uint32_t)(v))
#define CT__STORE_i64(p, v) CT__STOREI(int64_t, p, v)
#define CT__STORE_f16(p, v) ct__f2h(p, (float)(v))
#define CT__STORE_bf16(p, v) ct__f2b(p, (float)(v))
#define CT__STORE_f32(p, v) (*(float *)(p) = (float)(v))
#define CT__STORE_f64(p, v) (*(double *)(p) = (v))

/* Extremes (max.dim, argmax): the first largest, or the first NaN. */
#define CT__ROW_EXTREME(name, T, V, LOAD, ISNAN)                                                          \
    CT__INLINE void ct__ext_##name(const ct__row *r, bool max)                                            \
    {                                                                                                     \
        V best = LOAD(r->in);                                                                             \
        int64_t at = 0;                                                                                   \
        for (int64_t i = 1; i < r->n && !ISNAN(best); i++) {                                              \
            V v = LOAD(r->in + i * r->is);                                                                \
            if (max ? !(v <= best) : !(v >= best)) best = v, at = i;                                      \
        }                                                                                                 \
        if (r->val) memcpy(r->val, r->in + at * r->is, sizeof(T));                                        \
        if (r->idx) *(int64_t *)r->idx = at;                                                              \
    }

/* cummax / cummin: a NaN takes over, ties move the index on. */
#define CT__ROW_CUMEXT(name, T, V, LOAD, ISNAN)                                                           \
    CT__INLINE void ct__cumext_##name(const ct__row *r, bool max)                                         \
    {                                                                                                     \
        V best = LOAD(r->in);                                                                             \
        int64_t at = 0;                                                                                   \
        for (int64_t i = 0; i < r->n; i++) {                                                              \
            V v = LOAD(r->in + i * r->is);                                                                \
            if (ISNAN(v) || (!ISNAN(best) && (max ? v >= best : v <= best))) best = v, at = i;            \
            memcpy(r->val + i * r->vs, r->in + at * r->is, sizeof(T));                                    \
            *(int64_t *)(r->idx + i * r->xs) = at;                                                        \
        }                                                                                                 \
    }

/* cumsum / cumprod in PyTorch's CPU accumulate type A. */
#define CT__ROW_CUM(name, T, A, LOAD, STORE)                                                              \
    CT__INLINE void ct__cum_##name(const ct__row *r, bool prod)                                           \
    {                                                                                                     \
        A acc = prod ? 1 : 0;                                                                             \
        for (int64_t i = 0; i < r->n; i++) {                                                              \
            A v = (A)LOAD(r->in + i * r->is);                                                             \
            acc = prod ? acc * v : acc + v;                                                               \
            STORE(r->val + i * r->vs, acc);                                                               \
        }                                                                                                 \
    }


/* logcumsumexp in A: std::min and std::max keep their first argument when
 * the other is NaN, so a NaN sum sticks. */
#define CT__ROW_LOGCUMSUMEXP(name, A, LOG1P, EXP, LOAD, STORE)                                            \
    CT__INLINE void ct__lcse_##name(const ct__row *r)                                                     \
    {                                                                                                     \
        A cum = -(A)INFINITY;                                                                             \
        for (int64_t i = 0; i < r->n; i++) {                                                              \
            A x = (A)LOAD(r->in + i * r->is);                                                             \
            A lo = cum != cum ? cum : cum < x ? cum : x, hi = cum != cum ? cum : x < cum ? cum : x;       \
            cum = (lo != hi || isfinite(lo)) ? LOG1P(EXP(lo - hi)) + hi : x;                              \
            STORE(r->val + i * r->vs, cum);                                                               \
        }                                                                                                 \
    }

/* softmax and log_softmax in A: the maximum (NaN wins), exp(x - max), their
 * sum, then either exp * (1 / sum) (the last dim, summed in PyTorch's
 * 32-byte vector lanes, folded as its vec_reduce_all folds them) or
 * exp / sum (other dims, summed in order); log_softmax is x - max - log(sum).
 * RND is what PyTorch's bfloat16 kernel rounds the last dim's sum and log to.
 * The maximum and exp(x - max) are a function of their own, so that the
 * vector exp inlines there, and a row of A one element apart vectorises:
 * its maximum through KEYMAX (ct__extreme_*), its stores as plain stores. */
#define CT__ROW_SOFTMAX(name, T, A, EXP, LOG, LOAD, STORE, RND, KEYMAX)                                   \
    CT__INLINE A ct__softmax_exp_##name(const ct__row *r, A *e)                                           \
    {                                                                                                     \
        A m = (A)LOAD(r->in);                                                                             \
        if (sizeof(T) == sizeof(A) && r->is == sizeof(A)) {                                               \
            const A *x = (const A *)(const void *)r->in;                                                  \
            bool nan = false;                                                                             \
            if (!KEYMAX(x, r->n, true, &m)) { /* NaN or zero: the first largest, or NaN */                \
                for (int64_t i = 0; i < r->n; i++) {                                                      \
                    m = x[i] > m ? x[i] : m;                                                              \
                    nan |= x[i] != x[i];                                                                  \
                }                                                                                         \
            }                                                                                             \
            if (nan) m = (A)NAN;                                                                          \
            for (int64_t i = 0; i < r->n; i++) e[i] = EXP(x[i] - m);                                      \
            return m;                                                                                     \
        }                                                                                                 \
        for (int64_t i = 1; i < r->n; i++) {                                                              \
            A v = (A)LOAD(r->in + i * r->is);                                                             \
            if (v != v || v > m) m = v;                                                                   \
        }                                                                                                 \
        for (int64_t i = 0; i < r->n; i++) e[i] = EXP((A)LOAD(r->in + i * r->is) - m);                    \
        return m;                                                                                         \
    }                                                                                                     \
    CT__INLINE void ct__softmax_##name(const ct__row *r, bool logsm, bool last)                           \
    {                                                                                                     \
        enum { VW = 32 / sizeof(A) };                                                                     \
        A *e = (A *)r->scratch, m = ct__softmax_exp_##name(r, e), sum = 0, lanes[VW];                     \
        int64_t n = r->n, d = VW;                                                                         \
        if (last && n >= VW) {                                                                            \
            memcpy(lanes, e, sizeof lanes);                                                               \
            for (; d + VW <= n; d += VW)                                                                  \
                for (int l = 0; l < VW; l++) lanes[l] += e[d + l];                                        \
            for (int l = 0; d + l < n; l++) lanes[l] += e[d + l];                                         \
            sum = ct__fold_##name(lanes);                                                                 \
        } else {                                                                                          \
            for (int64_t i = 0; i < n; i++) sum += e[i];                                                  \
        }                                                                                                 \
        if (logsm && last) sum = RND(sum);                                                                \
        A inv = 1 / sum, lsum = logsm && last ? RND(LOG(sum)) : LOG(sum);                                 \
        if (sizeof(T) == sizeof(A) && r->is == sizeof(A) && r->vs == sizeof(A)) { /* stores vectorise */  \
            const A *x = (const A *)(const void *)r->in;                                                  \
            A *o = (A *)(void *)r->val;                                                                   \
            if (logsm) for (int64_t i = 0; i < n; i++) o[i] = x[i] - m - lsum;                            \
            else if (last) for (int64_t i = 0; i < n; i++) o[i] = e[i] * inv;                             \
            else for (int64_t i = 0; i < n; i++) o[i] = e[i] / sum;                                       \
            return;                                                                                       \
        }                                                                                                 \
        for (int64_t i = 0; i < n; i++) {                                                                 \
            A v = logsm ? (A)LOAD(r->in + i * r->is) - m - lsum : last ? e[i] * inv : e[i] / sum;         \
            STORE(r->val + i * r->vs, v);                                                                 \
        }                                                                                                 \
    }

/* vec_reduce_all's fold of the lanes: AVX2's shuffle tree for float, in
 * order for double. */
CT__INLINE float ct__fold_tree(const float *l)
{
    return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}
CT__INLINE float ct__fold_f32(const float *l) { return ct__fold_tree(l); }
CT__INLINE float ct__fold_bf16(const float *l) { return ct__fold_tree(l); }
CT__INLINE double ct__fold_f64(const double *l) { return ((l[0] + l[1]) + l[2]) + l[3]; }
#define CT__KEEP(v) (v)

/* softmax, log_softmax and logcumsumexp of a floating row. name;
 * logcumsumexp's accumulate type (PyTorch's: double for float) and its
 * functions; softmax's type, its functions, its rounding and its maximum
 * through keys (softmax's exp is scalar.h's, whose loops vectorise). */
#define CT__ROW_FLOATING(name, T, A, LOG1P, EXP, SA, SEXP, SLOG, RND, KEYMAX)                             \
    CT__ROW_LOGCUMSUMEXP(name, A, LOG1P, EXP, CT__LOAD_##name, CT__STORE_##name)                          \
    CT__ROW_SOFTMAX(name, T, SA, SEXP, SLOG, CT__LOAD_##name, CT__STORE_##name, RND, KEYMAX)              \
    CT__INLINE void ct__row_float_##name(const ct__row *r, ct__aop op, bool last)                         \
    {                                                                                                     \
        if (op == CT__AOP_LOGCUMSUMEXP) ct__lcse_##name(r);                                               \
        else ct__softmax_##name(r, op == CT__AOP_LOG_SOFTMAX, last);                                      \
    }
/* Integer rows never get a floating op: the front end refuses it. */
#define CT__ROW_NOFLOAT(name)                                                                             \
    CT__INLINE void ct__row_float_##name(const ct__row *r, ct__aop op, bool last) { (void)r, (void)op, (void)last; }

CT__ROW_FLOATING(f32, float, double, log1p, exp, float, ct__vexpf, logf, CT__KEEP, ct__extreme_f32)
CT__ROW_FLOATING(f64, double, double, log1p, exp, double, ct__vexp, log, CT__KEEP, ct__extreme_f64)
CT__ROW_FLOATING(bf16, uint16_t, float, log1pf, expf, float, ct__vexpf, logf, ct__rb, ct__extreme_f32)
CT__ROW_NOFLOAT(b8)
CT__ROW_NOFLOAT(u8)
CT__ROW_NOFLOAT(i8)
CT__ROW_NOFLOAT(i16)
CT__ROW_NOFLOAT(i32)
CT__ROW_NOFLOAT(i64)
CT__ROW_NOFLOAT(f16)

/* One row of op, for every op but median and mode. name, storage type, key
 * type and its NaN test (CT__KEY_NAN_*), accumulate type of cumsum
 * (integers in uint64_t, which wraps). */
#define CT__ROW_ALONG(name, T, V, ISNAN, A)                                                               \
    CT__ROW_EXTREME(name, T, V, CT__LOAD_##name, ISNAN)                                                   \
    CT__ROW_CUMEXT(name, T, V, CT__LOAD_##name, ISNAN)                                                    \
    CT__ROW_CUM(name, T, A, CT__LOAD_##name, CT__STORE_##name)                                            \
    CT__INLINE void ct__along_row_##name(const ct__row *r, ct__aop op, bool last)                         \
    {                                                                                                     \
        switch (op) {                                                                                     \
        case CT__AOP_MAX: case CT__AOP_ARGMAX: ct__ext_##name(r, true); break;                            \
        case CT__AOP_MIN: case CT__AOP_ARGMIN: ct__ext_##name(r, false); break;                           \
        case CT__AOP_CUMMAX: case CT__AOP_CUMMIN: ct__cumext_##name(r, op == CT__AOP_CUMMAX); break;      \
        case CT__AOP_CUMSUM: case CT__AOP_CUMPROD: ct__cum_##name(r, op == CT__AOP_CUMPROD); break;       \
        default: ct__row_float_##name(r, op, last); break;                                                \
        }                                                                                                 \
    }
CT__ROW_ALONG(b8, uint8_t, int64_t, CT__KEY_NAN_i64, uint64_t)
CT__ROW_ALONG(u8, uint8_t, int64_t, CT__KEY_NAN_i64, uint64_t)
CT__ROW_ALONG(i8, int8_t, int64_t, CT__KEY_NAN_i64, uint64_t)
CT__ROW_ALONG(i16, int16_t, int64_t, CT__KEY_NAN_i64, uint64_t)
CT__ROW_ALONG(i32, int32_t, int64_t, CT__KEY_NAN_i64, uint64_t)
CT__ROW_ALONG(i64, int64_t, int64_t, CT__KEY_NAN_i64, uint64_t)
CT__ROW_ALONG(f16, uint16_t, float, CT__KEY_NAN_f32, float)
CT__ROW_ALONG(bf16, uint16_t, float, CT__KEY_NAN_f32, float)
CT__ROW_ALONG(f32, float, float, CT__KEY_NAN_f32, double)
CT__ROW_ALONG(f64, double, double, CT__KEY_NAN_f64, double)

/* ---------------------------------------------------------------- batch norm's statistics */

/* PyTorch's batch_norm_cpu_collect_stats kernels as they run on one thread,
 * one channel ch at a time (CT__BN_STATS(T, FMA) makes them for float and
 * double): its mean and its sum of squared deviations (var_sum). The CPU
 * runs the channels in turn (src/cpu/norm.c), CUDA one thread a channel.
 * planes: x (n, c, image), image > 1 (contiguous): sums in double, the
 * squares rounded as T. rows: x (rows, c) (channels-last or 2-D): sums in T
 * (PyTorch's per-thread buffer), the squares added by fused multiply-adds,
 * the mean divided in double. */
#define CT__BN_STATS(T, FMA)                                                                              \
    CT__INLINE void ct__bn_stats_plane_##T(const T *x, int64_t n, int64_t c, int64_t image, int64_t ch,  \
                                           T *mean, T *var_sum)                                           \
    {                                                                                                     \
        double sum = 0, acc = 0;                                                                          \
        for (int64_t b = 0; b < n; b++)                                                                   \
            for (int64_t i = 0; i < image; i++) sum += x[(b * c + ch) * image + i];                       \
        T m = (T)(sum / (double)(n * image));                                                             \
        for (int64_t b = 0; b < n; b++)                                                                   \
            for (int64_t i = 0; i < image; i++) {                                                         \
                T d = x[(b * c + ch) * image + i] - m, sq = d * d;                                        \
                acc += sq;                                                                                \
            }                                                                                             \
        mean[ch] = m;                                                                                     \
        var_sum[ch] = (T)acc;                                                                             \
    }                                                                                                     \
    CT__INLINE void ct__bn_stats_column_##T(const T *x, int64_t rows, int64_t c, int64_t ch, T *mean,    \
                                            T *var_sum)                                                   \
    {                                                                                                     \
        T sum = 0, acc = 0;                                                                               \
        for (int64_t r = 0; r < rows; r++) sum += x[r * c + ch];                                          \
        T m = (T)((double)sum / (double)rows);                                                            \
        for (int64_t r = 0; r < rows; r++) {                                                              \
            T d = x[r * c + ch] - m;                                                                      \
            acc = FMA(d, d, acc);                                                                         \
        }                                                                                                 \
        mean[ch] = m;                                                                                     \
        var_sum[ch] = acc;                                                                                \
    }
CT__BN_STATS(float, ct__fmaf)
CT__BN_STATS(double, ct__fma)
