/* The scalar formula of every pointwise op in the op table, per compute
 * flavour: f (float), d (double), i (int64, which also serves the narrower
 * integers and bool: their results wrap to the low bits when stored, as
 * native arithmetic does) and h (float with float16/bfloat16's intermediate
 * roundings, below). The CPU backend's loops (src/cpu/pointwise.c) and a
 * device's kernels both compile these: under nvcc they are host-and-device
 * functions (CT__HD, src/base/scalar.h), so one op table gives both. Then
 * the dtype groups each op's kernels cover (CT__POINTWISE_KERNELS).
 *
 * float16 and bfloat16 load to float, compute in float and round once when
 * stored, which is what PyTorch's per-element `float(a) op float(b)` gives. A
 * few ops of PyTorch 1.13 round intermediates to the narrow type in their
 * per-element kernels (rsqrt, logit, add with alpha...); those loops use the h
 * flavour instead, float with the same roundings (args->compute names the
 * narrow type). (PyTorch's vectorised bfloat16 loops, on contiguous runs of 32
 * or more, round once instead; ctorch follows the per-element kernels, which
 * small and strided tensors get.) */

/* The CPU loops are compiled with GCC's dynamic vectoriser cost model
 * (src/cpu/pointwise.c); the formulas take the same options, as GCC inlines
 * nothing across differing optimize options. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC push_options
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

/* Per dtype: storage type (KT), flavour (KF), load to the flavour (KL) and
 * store from it (KS). f16 and bf16 have h twins (f16h, bf16h) for the ops
 * with float16/bfloat16 roundings. */
#define CT__KT_b8 uint8_t
#define CT__KT_u8 uint8_t
#define CT__KT_i8 int8_t
#define CT__KT_i16 int16_t
#define CT__KT_i32 int32_t
#define CT__KT_i64 int64_t
#define CT__KT_f32 float
#define CT__KT_f64 double
#define CT__KT_f16 uint16_t
#define CT__KT_bf16 uint16_t
#define CT__KT_f16h uint16_t
#define CT__KT_bf16h uint16_t
#define CT__KF_b8 i
#define CT__KF_u8 i
#define CT__KF_i8 i
#define CT__KF_i16 i
#define CT__KF_i32 i
#define CT__KF_i64 i
#define CT__KF_f32 f
#define CT__KF_f64 d
#define CT__KF_f16 f
#define CT__KF_bf16 f
#define CT__KF_f16h h
#define CT__KF_bf16h h
#define CT__KL_b8(v) ((int64_t)(v))
#define CT__KL_u8(v) ((int64_t)(v))
#define CT__KL_i8(v) ((int64_t)(v))
#define CT__KL_i16(v) ((int64_t)(v))
#define CT__KL_i32(v) ((int64_t)(v))
#define CT__KL_i64(v) (v)
#define CT__KL_f32(v) (v)
#define CT__KL_f64(v) (v)
#define CT__KL_f16(v) ct__f16_to_float(v)
#define CT__KL_bf16(v) ct__bf16_to_float(v)
#define CT__KL_f16h(v) ct__f16_to_float(v)
#define CT__KL_bf16h(v) ct__bf16_to_float(v)
#define CT__KS_b8(v) ((uint8_t)((v) != 0))
#define CT__KS_u8(v) ((uint8_t)(uint64_t)(v))
#define CT__KS_i8(v) ((int8_t)(uint8_t)(uint64_t)(v))
#define CT__KS_i16(v) ((int16_t)(uint16_t)(uint64_t)(v))
#define CT__KS_i32(v) ((int32_t)(uint32_t)(uint64_t)(v))
#define CT__KS_i64(v) ((int64_t)(v))
#define CT__KS_f32(v) (v)
#define CT__KS_f64(v) (v)
#define CT__KS_f16(v) ct__float_to_f16(v)
#define CT__KS_bf16(v) ct__float_to_bf16(v)
#define CT__KS_f16h(v) ct__float_to_f16(v)
#define CT__KS_bf16h(v) ct__float_to_bf16(v)
typedef float ct__flavour_f;
typedef float ct__flavour_h;
typedef double ct__flavour_d;
typedef int64_t ct__flavour_i;

/* The dtype groups an op supports; h is empty, or h for the ops whose float16
 * and bfloat16 loops run the h flavour. */
#define CT__KD_INTS(X, op, h) X(op, u8) X(op, i8) X(op, i16) X(op, i32) X(op, i64)
#define CT__KD_FLOATS(X, op, h) X(op, f32) X(op, f64) X(op, f16##h) X(op, bf16##h)
#define CT__KD_NUMERIC(X, op, h) CT__KD_INTS(X, op, h) CT__KD_FLOATS(X, op, h)
#define CT__KD_ALL(X, op, h) X(op, b8) CT__KD_NUMERIC(X, op, h)
#define CT__KD_INTS_BOOL(X, op, h) X(op, b8) CT__KD_INTS(X, op, h)

/* x rounded to the narrow type PyTorch computes in (float16, bfloat16). */
CT__INLINE float ct__narrow(float x, ct_dtype compute)
{
    if (compute == CT_BF16) return ct__bf16_to_float(ct__float_to_bf16(x));
    if (compute == CT_F16) return ct__f16_to_float(ct__float_to_f16(x));
    return x;
}
/* In h flavours: N rounds as the input type; NB only for bfloat16, in ops
 * that PyTorch 1.13 has no float16 kernel for (float16 computes in float);
 * NH only for float16, in ops whose bfloat16 kernel computes in float. */
#define CT__N(x) ct__narrow((x), a->compute)
#define CT__NB(x) (a->compute == CT_BF16 ? ct__narrow((x), CT_BF16) : (x))
#define CT__NH(x) (a->compute == CT_F16 ? ct__narrow((x), CT_F16) : (x))

/* The libm function fn for a flavour: F(exp) is expf for float, exp for double. */
#define CT__LIBM_f(fn) fn##f
#define CT__LIBM_d(fn) fn

/* Ops whose floating formula is written once: a macro CT__GEN_<name>(fl, T, F)
 * defines the flavour fl with type T and libm suffix F; this instantiates both. */
#define CT__FLOATING(name) CT__GEN_##name(f, float, CT__LIBM_f) CT__GEN_##name(d, double, CT__LIBM_d)

/* ---------------------------------------------------------------- unary ops */

/* out = fn(x): the int64 flavour, one floating flavour, or both with a libm function. */
#define CT__UNARY_I(name, ei) CT__INLINE int64_t ct__##name##_i(int64_t x, const ct__op_args *a) { (void)a; return ei; }
#define CT__UNARY_FL(name, fl, T, e) CT__INLINE T ct__##name##_##fl(T x, const ct__op_args *a) { (void)a; return e; }
#define CT__UNARY_LIBM(name, fn) CT__UNARY_FL(name, f, float, fn##f(x)) CT__UNARY_FL(name, d, double, fn(x))

CT__UNARY_I(neg, (int64_t)(0 - (uint64_t)x))
CT__UNARY_FL(neg, f, float, -x)
CT__UNARY_FL(neg, d, double, -x)
CT__UNARY_I(abs, x < 0 ? (int64_t)(0 - (uint64_t)x) : x)
CT__UNARY_LIBM(abs, fabs)
CT__UNARY_FL(reciprocal, f, float, 1.0f / x)
CT__UNARY_FL(reciprocal, d, double, 1.0 / x)
/* NaN and -0 give +0, as PyTorch's (0 < x) - (x < 0) does */
CT__UNARY_I(sign, (x > 0) - (x < 0))
CT__UNARY_FL(sign, f, float, (float)((0 < x) - (x < 0)))
CT__UNARY_FL(sign, d, double, (double)((0 < x) - (x < 0)))
CT__UNARY_I(floor, x)
CT__UNARY_LIBM(floor, floor)
CT__UNARY_I(ceil, x)
CT__UNARY_LIBM(ceil, ceil)
CT__UNARY_I(trunc, x)
CT__UNARY_LIBM(trunc, trunc)
CT__UNARY_FL(frac, f, float, x - truncf(x))
CT__UNARY_FL(frac, d, double, x - trunc(x))
/* exp, log, tanh and sigmoid run scalar.h's vector math where the target
 * has AVX2, so that their loops vectorise; double tanh keeps the C
 * library's (the form for float cancels at small x). Their _libm twins
 * compute the rest of a loop past its whole blocks (see CT__VM_BLOCK). */
CT__UNARY_FL(exp, f, float, ct__vexpf(x))
CT__UNARY_FL(exp, d, double, ct__vexp(x))
CT__UNARY_LIBM(exp2, exp2)
CT__UNARY_LIBM(expm1, expm1)
CT__UNARY_FL(log, f, float, ct__vlogf(x))
CT__UNARY_FL(log, d, double, ct__vlog(x))
CT__UNARY_LIBM(log2, log2)
CT__UNARY_LIBM(log10, log10)
CT__UNARY_LIBM(log1p, log1p)
CT__UNARY_LIBM(sqrt, sqrt)
CT__UNARY_FL(rsqrt, f, float, 1.0f / sqrtf(x))
CT__UNARY_FL(rsqrt, d, double, 1.0 / sqrt(x))
CT__UNARY_LIBM(sin, sin)
CT__UNARY_LIBM(cos, cos)
CT__UNARY_LIBM(tan, tan)
CT__UNARY_LIBM(asin, asin)
CT__UNARY_LIBM(acos, acos)
CT__UNARY_LIBM(atan, atan)
CT__UNARY_LIBM(sinh, sinh)
CT__UNARY_LIBM(cosh, cosh)
CT__UNARY_FL(tanh, f, float, ct__vtanhf(x))
CT__UNARY_FL(tanh, d, double, tanh(x))
CT__UNARY_LIBM(asinh, asinh)
CT__UNARY_LIBM(acosh, acosh)
CT__UNARY_LIBM(atanh, atanh)
/* float erf is SLEEF's, every element: torch.erf maps whole tensors through
 * Vectorized<float>::erf, the last partial vector included */
CT__UNARY_FL(erf, f, float, ct__verff(x))
CT__UNARY_FL(erf, d, double, erf(x))
CT__UNARY_LIBM(erfc, erfc)
/* (the C library's lgamma also stores the sign in the global signgam, which
 * OpenMP threads then write at once, as PyTorch's do; the values are unaffected) */
CT__UNARY_LIBM(lgamma, lgamma)
CT__UNARY_FL(sigmoid, f, float, ct__vsigmoidf(x))
CT__UNARY_FL(sigmoid, d, double, 1.0 / (1.0 + ct__vexp(-x)))
CT__UNARY_LIBM(exp_libm, exp)
CT__UNARY_LIBM(log_libm, log)
CT__UNARY_LIBM(tanh_libm, tanh)
CT__UNARY_FL(sigmoid_libm, f, float, 1.0f / (1.0f + expf(-x)))
CT__UNARY_FL(sigmoid_libm, d, double, 1.0 / (1.0 + exp(-x)))
/* integers are never NaN or infinite */
CT__UNARY_I(isnan, ((void)x, 0))
CT__UNARY_FL(isnan, f, float, x != x)
CT__UNARY_FL(isnan, d, double, x != x)
CT__UNARY_I(isinf, ((void)x, 0))
CT__UNARY_FL(isinf, f, float, isinf(x))
CT__UNARY_FL(isinf, d, double, isinf(x))
CT__UNARY_I(isfinite, ((void)x, 1))
CT__UNARY_FL(isfinite, f, float, isfinite(x))
CT__UNARY_FL(isfinite, d, double, isfinite(x))
CT__UNARY_I(logical_not, x == 0)
CT__UNARY_FL(logical_not, f, float, x == 0)
CT__UNARY_FL(logical_not, d, double, x == 0)
/* bool's ~ is logical not */
CT__UNARY_I(bitwise_not, a->compute == CT_BOOL ? !x : ~x)
CT__UNARY_I(relu, x > 0 ? x : 0)
CT__UNARY_FL(relu, f, float, x > 0 ? x : (x != x ? x : 0.0f))
CT__UNARY_FL(relu, d, double, x > 0 ? x : (x != x ? x : 0.0))
CT__UNARY_I(nan_to_num, x)

/* round: half to even; with decimals, by 10^|decimals| (p[0]) in the input
 * precision, multiplying first for positive decimals and dividing first for
 * negative ones, as PyTorch does. */
CT__UNARY_I(round, x)
#define CT__GEN_round(fl, T, F)                                                           \
    CT__INLINE T ct__round_##fl(T x, const ct__op_args *a)                                \
    {                                                                                     \
        T p = (T)a->p[0];                                                                 \
        if (a->mode == 1) return F(nearbyint)(x * p) / p;                                 \
        if (a->mode == 2) return F(nearbyint)(x / p) * p;                                 \
        return F(nearbyint)(x);                                                           \
    }
CT__FLOATING(round)

/* nan_to_num: NaN, +inf and -inf replaced by p[0], p[1], p[2] */
#define CT__GEN_nan_to_num(fl, T, F)                                                      \
    CT__INLINE T ct__nan_to_num_##fl(T x, const ct__op_args *a)                           \
    {                                                                                     \
        return x != x ? (T)a->p[0] : x == (T)INFINITY ? (T)a->p[1] : x == -(T)INFINITY ? (T)a->p[2] : x; \
    }
CT__FLOATING(nan_to_num)

/* logit: log(x / (1 - x)), x clamped to [eps, 1 - eps] first unless eps (p[0]) < 0 */
#define CT__GEN_logit(fl, T, F)                                                           \
    CT__INLINE T ct__logit_##fl(T x, const ct__op_args *a)                                \
    {                                                                                     \
        T eps = (T)a->p[0];                                                               \
        if (eps >= 0) x = x < eps ? eps : x > 1 - eps ? 1 - eps : x;                      \
        return x == 1 ? (T)INFINITY : F(log)(x / (1 - x));                                \
    }
CT__FLOATING(logit)

/* erfinv as PyTorch computes it, in the input precision: the rational
 * approximations of Pavlis' MATLAB erfinv (1996) for |y| <= 0.7 and beyond,
 * each refined by two Newton steps on erf(x) = y. */
#define CT__GEN_erfinv(fl, T, F)                                                          \
    CT__INLINE T ct__erfinv_##fl(T y, const ct__op_args *args)                            \
    {                                                                                     \
        static const T a[4] = {(T)0.886226899, (T)-1.645349621, (T)0.914624893, (T)-0.140543331}; \
        static const T b[4] = {(T)-2.118377725, (T)1.442710462, (T)-0.329097515, (T)0.012229801}; \
        static const T c[4] = {(T)-1.970840454, (T)-1.624906493, (T)3.429567803, (T)1.641345311}; \
        static const T d[2] = {(T)3.543889200, (T)1.637067800};                          \
        const T two_over_sqrt_pi = (T)2 / (T)1.77245385090551602730;                      \
        T ay = F(fabs)(y), x, z, num, den;                                                \
        (void)args;                                                                       \
        if (ay > 1) return (T)NAN;                                                        \
        if (ay == 1) return F(copysign)((T)INFINITY, y);                                  \
        if (ay <= (T)0.7) {                                                               \
            z = y * y;                                                                    \
            num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];                              \
            den = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1;                    \
            x = y * num / den;                                                            \
        } else {                                                                          \
            z = F(sqrt)(-F(log)((1 - ay) / 2));                                           \
            num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];                              \
            den = (d[1] * z + d[0]) * z + 1;                                              \
            x = F(copysign)(num, y) / den;                                                \
        }                                                                                 \
        for (int step = 0; step < 2; step++)                                              \
            x = x - (F(erf)(x) - y) / (two_over_sqrt_pi * F(exp)(-x * x));                \
        return x;                                                                         \
    }
CT__FLOATING(erfinv)

/* digamma in the input precision, as PyTorch computes it: poles at 0 (signed
 * infinity) and at negative integers (NaN), the reflection formula (through
 * double) below 0, the recurrence psi(x) = psi(x + 1) - 1/x up to 10, then
 * the asymptotic series log x - 1/2x - sum B2k / (2k x^2k), k = 1..7. */
#define CT__GEN_digamma(fl, T, F)                                                         \
    CT__HD static T ct__digamma_##fl(T x, const ct__op_args *args)                        \
    {                                                                                     \
        static const T bern[7] = {(T)(1.0 / 12), (T)(-691.0 / 32760), (T)(1.0 / 132),     \
                                  (T)(-1.0 / 240), (T)(1.0 / 252), (T)(-1.0 / 120), (T)(1.0 / 12)}; \
        const double pi = 3.14159265358979323846;                                         \
        T result = 0;                                                                     \
        if (x == 0) return F(copysign)((T)INFINITY, -x);                                  \
        if (x < 0) {                                                                      \
            if (x == F(trunc)(x)) return (T)NAN;                                          \
            double whole, r = modf((double)x, &whole);                                    \
            return ct__digamma_##fl(1 - x, args) - (T)(pi / tan(pi * r));                \
        }                                                                                 \
        for (; x < 10; x += 1) result -= 1 / x;                                           \
        if (x == 10) return result + (T)2.25175258906672110764; /* psi(10) = H(9) - gamma */ \
        T y = 0;                                                                          \
        if (x < (T)1e17) {                                                                \
            T z = 1 / (x * x), p = 0;                                                     \
            for (int k = 0; k < 7; k++) p = p * z + bern[k];                              \
            y = z * p;                                                                    \
        }                                                                                 \
        return result + F(log)(x) - (T)0.5 / x - y;                                       \
    }
CT__FLOATING(digamma)

/* trigamma as PyTorch computes it: the reflection formula below 1/2, six
 * steps of the recurrence, then the asymptotic series */
#define CT__GEN_trigamma(fl, T, F)                                                        \
    CT__HD static T ct__trigamma_##fl(T x)                                                \
    {                                                                                     \
        const T pi = (T)3.14159265358979323846;                                           \
        T sign = 1, result = 0;                                                           \
        if (x < (T)0.5) {                                                                 \
            T s = F(sin)(pi * x);                                                         \
            sign = -1;                                                                    \
            result -= (pi * pi) / (s * s);                                                \
            x = 1 - x;                                                                    \
        }                                                                                 \
        for (int i = 0; i < 6; i++, x += 1) result += 1 / (x * x);                        \
        T ixx = 1 / (x * x);                                                              \
        result += (1 + 1 / (2 * x) + ixx * ((T)1 / 6 - ixx * ((T)1 / 30 - ixx * ((T)1 / 42)))) / x; \
        return sign * result;                                                             \
    }
CT__FLOATING(trigamma)

/* Hurwitz zeta(x, q) as PyTorch computes it (Cephes), in double for both
 * flavours (its ::pow and ::floor are C's double functions). */
#define CT__GEN_zeta(fl, T, F)                                                            \
    CT__HD static T ct__zeta_##fl(T x, T q)                                               \
    {                                                                                     \
        static const double A[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0,      \
            -1.8924375803183791606e9, 7.47242496e10, -2.950130727918164224e12,            \
            1.1646782814350067249e14, -4.5979787224074726105e15, 1.8152105401943546773e17, \
            -7.1661652561756670113e18};                                                   \
        const double macheps = 1.11022302462515654042E-16;                                \
        double a = q, b = 0, k = 0, s, t, w;                                              \
        int i = 0;                                                                        \
        if (x == 1) return (T)INFINITY;                                                   \
        if (x < 1) return (T)NAN;                                                         \
        if (q <= 0) {                                                                     \
            if (q == floor(q)) return (T)INFINITY;                                        \
            if (x != floor(x)) return (T)NAN;                                             \
        }                                                                                 \
        s = pow(q, -(double)x);                                                           \
        while (i < 9 || a <= 9.0) {                                                       \
            i++;                                                                          \
            a += 1;                                                                       \
            b = pow(a, -(double)x);                                                       \
            s += b;                                                                       \
            if (-macheps * s < b && b < macheps * s) return (T)s;                         \
        }                                                                                 \
        w = a;                                                                            \
        s += b * w / (x - 1.0);                                                           \
        s -= 0.5 * b;                                                                     \
        a = 1;                                                                            \
        for (int j = 0; j < 12; j++) {                                                    \
            a *= x + k;                                                                   \
            b /= w;                                                                       \
            t = a * b / A[j];                                                             \
            s = s + t;                                                                    \
            if (fabs(t / s) < macheps) return (T)s;                                       \
            k += 1;                                                                       \
            a *= x + k;                                                                   \
            b /= w;                                                                       \
            k += 1;                                                                       \
        }                                                                                 \
        return (T)s;                                                                      \
    }
CT__FLOATING(zeta)

/* polygamma(n, x) (n in mode): digamma and trigamma for n 0 and 1, else
 * (-1)^(n+1) n! zeta(n + 1, x) with n! as exp(lgamma(n + 1)), in double as
 * PyTorch's calls of C's exp and lgamma are */
#define CT__GEN_polygamma(fl, T, F)                                                       \
    CT__INLINE T ct__polygamma_##fl(T x, const ct__op_args *a)                            \
    {                                                                                     \
        int n = a->mode;                                                                  \
        if (n == 0) return ct__digamma_##fl(x, a);                                        \
        if (n == 1) return ct__trigamma_##fl(x);                                          \
        return (T)((n % 2 ? 1.0 : -1.0) * exp(lgamma((double)((T)n + 1))) * ct__zeta_##fl((T)(n + 1), x)); \
    }
CT__FLOATING(polygamma)

/* ---------------------------------------------------------------- activations */

/* leaky_relu: x above 0, else x * slope (p[0], in float as PyTorch has it);
 * a multiply either way, so that the loop vectorises */
CT__UNARY_FL(leaky_relu, f, float, x * (x > 0 ? 1.0f : (float)a->p[0]))
CT__UNARY_FL(leaky_relu, d, double, x * (x > 0 ? 1.0 : a->p[0]))

/* elu: scale * x above 0, else alpha * scale * (exp(x * input_scale) - 1) */
#define CT__GEN_elu(fl, T, F)                                                             \
    CT__INLINE T ct__elu_##fl(T x, const ct__op_args *a)                                  \
    {                                                                                     \
        T neg = (T)a->p[0] * (T)a->p[1], pos = (T)a->p[1], in = (T)a->p[2];               \
        return x <= 0 ? (F(exp)(x * in) - 1) * neg : x * pos;                             \
    }
CT__FLOATING(elu)

/* gelu: x * Phi(x) exactly (mode 0) or with the tanh approximation (mode 1),
 * as GeluKernelImpl computes it (PyTorch takes it where oneDNN does not:
 * non-contiguous tensors, one element, oneDNN disabled). Its vector blocks
 * compute float erf with SLEEF (ERF ct__verff), the rest of a loop with the
 * C library's (the gelu_libm twin: see CT__VM_BLOCK). */
#define CT__GEN_gelu(name, fl, T, F, ERF)                                                 \
    CT__ALWAYS_INLINE T ct__##name##_##fl(T x, const ct__op_args *a)                      \
    {                                                                                     \
        if (a->mode == 1) {                                                               \
            const T beta = (T)(1.41421356237309504880 * 1.12837916709551257390 * 0.5), kappa = (T)0.044715; \
            T inner = beta * (x + kappa * (x * x * x));                                   \
            return (T)0.5 * x * (1 + F(tanh)(inner));                                     \
        }                                                                                 \
        return x * (T)0.5 * (1 + ERF(x * (T)0.70710678118654752440));                    \
    }
CT__GEN_gelu(gelu, f, float, CT__LIBM_f, ct__verff)
CT__GEN_gelu(gelu, d, double, CT__LIBM_d, erf)
CT__GEN_gelu(gelu_libm, f, float, CT__LIBM_f, erff)
CT__GEN_gelu(gelu_libm, d, double, CT__LIBM_d, erf)

CT__UNARY_FL(silu, f, float, x / (1.0f + expf(-x)))
CT__UNARY_FL(silu, d, double, x / (1.0 + exp(-x)))
CT__UNARY_FL(mish, f, float, x * tanhf(log1pf(expf(x))))
CT__UNARY_FL(mish, d, double, x * tanh(log1p(exp(x))))

/* softplus: log1p(exp(x * beta)) / beta, or x where x * beta > threshold */
#define CT__GEN_softplus(fl, T, F)                                                        \
    CT__INLINE T ct__softplus_##fl(T x, const ct__op_args *a)                             \
    {                                                                                     \
        T beta = (T)a->p[0], threshold = (T)a->p[1];                                      \
        return x * beta > threshold ? x : F(log1p)(F(exp)(x * beta)) / beta;              \
    }
CT__FLOATING(softplus)

/* hardsigmoid: min(max(x + 3, 0), 6) / 6, hardswish: x times that, with
 * std::max and std::min, which let NaN through */
#define CT__GEN_hardsigmoid(fl, T, F)                                                     \
    CT__INLINE T ct__relu6_of_##fl(T v) { v = v < 0 ? 0 : v; return 6 < v ? 6 : v; }      \
    CT__INLINE T ct__hardsigmoid_##fl(T x, const ct__op_args *a) { (void)a; return ct__relu6_of_##fl(x + 3) / 6; }    \
    CT__INLINE T ct__hardswish_##fl(T x, const ct__op_args *a) { (void)a; return x * ct__relu6_of_##fl(x + 3) / 6; }
CT__FLOATING(hardsigmoid)

/* ---------------------------------------------------------------- float16/bfloat16 roundings (h flavours) */

CT__UNARY_FL(rsqrt, h, float, 1.0f / CT__NB(sqrtf(x)))
CT__INLINE float ct__round_h(float x, const ct__op_args *a)
{
    float p = CT__NB((float)a->p[0]);
    if (a->mode == 1) return nearbyintf(CT__NB(x * p)) / p;
    if (a->mode == 2) return nearbyintf(CT__NB(x / p)) * p;
    return nearbyintf(x);
}
CT__INLINE float ct__logit_h(float x, const ct__op_args *a)
{
    float eps = CT__NB((float)a->p[0]), hi = CT__NB(1 - eps);
    if (eps >= 0) x = x < eps ? eps : x > hi ? hi : x;
    return x == 1 ? INFINITY : logf(CT__NB(x / CT__NB(1 - x)));
}
/* the tanh form (mode 1), and the exact form of a strided tensor (mode 2),
 * in bfloat16 roundings */
CT__INLINE float ct__gelu_narrow_h(float x, const ct__op_args *a)
{
    if (a->mode == 2) return CT__NB(x * 0.5f) * CT__NB(1 + CT__NB(erff(CT__NB(x * CT__NB(0.70710678118654752440f)))));
    const float beta = CT__NB((float)(1.41421356237309504880 * 1.12837916709551257390 * 0.5));
    const float kappa = CT__NB(0.044715f);
    float inner = CT__NB(beta * CT__NB(x + CT__NB(kappa * CT__NB(CT__NB(x * x) * x))));
    return CT__NB(0.5f * x) * CT__NB(1 + CT__NB(tanhf(inner)));
}
/* the exact form of a contiguous tensor (mode 0) computes in float */
CT__ALWAYS_INLINE float ct__gelu_h(float x, const ct__op_args *a)
{
    return a->mode == 0 ? ct__gelu_f(x, a) : ct__gelu_narrow_h(x, a);
}
CT__ALWAYS_INLINE float ct__gelu_libm_h(float x, const ct__op_args *a)
{
    return a->mode == 0 ? ct__gelu_libm_f(x, a) : ct__gelu_narrow_h(x, a);
}
CT__UNARY_FL(silu, h, float, x / CT__NB(1.0f + CT__NB(expf(-x))))

/* ---------------------------------------------------------------- binary ops */

/* out = fn(x, y): the int64 flavour, one floating flavour, or both from one expression. */
#define CT__BINARY_I(name, ei) \
    CT__INLINE int64_t ct__##name##_i(int64_t x, int64_t y, const ct__op_args *a) { (void)a; return ei; }
#define CT__BINARY_FL(name, fl, T, e) \
    CT__INLINE T ct__##name##_##fl(T x, T y, const ct__op_args *a) { (void)a; return e; }
#define CT__BINARY_FD(name, e) CT__BINARY_FL(name, f, float, e) CT__BINARY_FL(name, d, double, e)
#define CT__BINARY_ALL(name, e) CT__BINARY_I(name, e) CT__BINARY_FD(name, e)

/* add and sub; with an alpha other than 1 (x + alpha * y) they run the
 * add_alpha and sub_alpha loops, so that the plain loops vectorise. PyTorch's
 * kernels fuse the multiply-add. */
CT__BINARY_ALL(add, x + y)
CT__BINARY_I(sub, (int64_t)((uint64_t)x - (uint64_t)y))
CT__BINARY_FD(sub, x - y)
CT__BINARY_I(add_alpha, (int64_t)((uint64_t)x + (uint64_t)a->alpha_i * (uint64_t)y))
CT__BINARY_FL(add_alpha, f, float, ct__fmaf(y, (float)a->alpha, x))
CT__BINARY_FL(add_alpha, d, double, ct__fma(y, a->alpha, x))
CT__BINARY_I(sub_alpha, (int64_t)((uint64_t)x - (uint64_t)a->alpha_i * (uint64_t)y))
CT__BINARY_FL(sub_alpha, f, float, ct__fmaf(y, -(float)a->alpha, x))
CT__BINARY_FL(sub_alpha, d, double, ct__fma(y, -a->alpha, x))
CT__BINARY_I(mul, (int64_t)((uint64_t)x * (uint64_t)y))
CT__BINARY_FD(mul, x * y)

/* Integer division (the front end has refused zero divisors); the most
 * negative int64 over -1 wraps instead of trapping. */
CT__INLINE int64_t ct__idiv(int64_t x, int64_t y) { return y == -1 ? (int64_t)(0 - (uint64_t)x) : x / y; }
CT__INLINE int64_t ct__imod(int64_t x, int64_t y) { return y == -1 ? 0 : x % y; }

/* div: true division, or rounded toward zero or minus infinity (mode) */
CT__INLINE int64_t ct__div_i(int64_t x, int64_t y, const ct__op_args *a)
{
    int64_t q = ct__idiv(x, y);
    if (a->mode == CT_ROUNDING_FLOOR && (x < 0) != (y < 0) && ct__imod(x, y) != 0) q -= 1;
    return q;
}
/* floor division as Python defines it: from fmod, so that the quotient is
 * the one whose remainder has the divisor's sign, then rounded to the
 * nearest integer (PyTorch's div_floor_floating) */
#define CT__GEN_div(fl, T, F)                                                             \
    CT__INLINE T ct__div_floor_##fl(T x, T y)                                             \
    {                                                                                     \
        if (y == 0) return x / y;                                                         \
        T mod = F(fmod)(x, y), div = (x - mod) / y;                                       \
        if (mod != 0 && (y < 0) != (mod < 0)) div -= 1;                                   \
        if (div == 0) return F(copysign)((T)0, x / y);                                       \
        T floordiv = F(floor)(div);                                                       \
        return div - floordiv > (T)0.5 ? floordiv + 1 : floordiv;                         \
    }                                                                                     \
    CT__INLINE T ct__div_##fl(T x, T y, const ct__op_args *a)                             \
    {                                                                                     \
        if (a->mode == CT_ROUNDING_TRUNC) return F(trunc)(x / y);                         \
        return a->mode == CT_ROUNDING_FLOOR ? ct__div_floor_##fl(x, y) : x / y;           \
    }
CT__FLOATING(div)

/* remainder has the divisor's sign (Python's %), fmod the dividend's (C's) */
CT__INLINE int64_t ct__remainder_i(int64_t x, int64_t y, const ct__op_args *a)
{
    int64_t r = ct__imod(x, y);
    (void)a;
    return r != 0 && (r < 0) != (y < 0) ? r + y : r;
}
#define CT__GEN_remainder(fl, T, F)                                                       \
    CT__INLINE T ct__remainder_##fl(T x, T y, const ct__op_args *a)                       \
    {                                                                                     \
        T r = F(fmod)(x, y);                                                              \
        (void)a;                                                                          \
        return r != 0 && (y < 0) != (r < 0) ? r + y : r;                                  \
    }
CT__FLOATING(remainder)
CT__BINARY_I(fmod, ct__imod(x, y))
CT__BINARY_FL(fmod, f, float, fmodf(x, y))
CT__BINARY_FL(fmod, d, double, fmod(x, y))

/* With a number exponent PyTorch takes products for 2, 3 and -2, and (except
 * for float16) sqrt, rsqrt and reciprocal for 0.5, -0.5 and -1, which round
 * (and treat -0 and -inf) differently from pow. */
#define CT__GEN_pow(fl, T, F)                                                             \
    CT__INLINE T ct__pow_##fl(T x, T y, const ct__op_args *a)                             \
    {                                                                                     \
        if (a->number_other) {                                                            \
            if (y == (T)0.5 && a->compute != CT_F16) return F(sqrt)(x);                   \
            if (y == (T)-0.5 && a->compute != CT_F16) return 1 / F(sqrt)(x);              \
            if (y == -1 && a->compute != CT_F16) return 1 / x;                            \
            if (y == 2) return x * x;                                                     \
            if (y == 3) return x * x * x;                                                 \
            if (y == -2) return 1 / (x * x);                                              \
        }                                                                                 \
        return F(pow)(x, y);                                                              \
    }
CT__FLOATING(pow)

/* Integer power by squaring, wrapping as PyTorch's does (negative exponents
 * are refused by the front end for numbers; tensors give 1, -1 or 0). */
CT__INLINE int64_t ct__pow_i(int64_t x, int64_t y, const ct__op_args *a)
{
    (void)a;
    if (y < 0) return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
    uint64_t r = 1, b = (uint64_t)x;
    for (uint64_t e = (uint64_t)y; e; e >>= 1, b *= b)
        if (e & 1) r *= b;
    return (int64_t)r;
}

/* maximum and minimum propagate NaN; otherwise std::max and std::min (the
 * first argument on ties) */
CT__BINARY_I(maximum, x < y ? y : x)
CT__BINARY_FD(maximum, (x != x || y != y) ? NAN : (x < y ? y : x))
CT__BINARY_I(minimum, y < x ? y : x)
CT__BINARY_FD(minimum, (x != x || y != y) ? NAN : (y < x ? y : x))
CT__BINARY_I(fmax, x < y ? y : x)
CT__BINARY_FL(fmax, f, float, fmaxf(x, y))
CT__BINARY_FL(fmax, d, double, fmax(x, y))
CT__BINARY_I(fmin, y < x ? y : x)
CT__BINARY_FL(fmin, f, float, fminf(x, y))
CT__BINARY_FL(fmin, d, double, fmin(x, y))
CT__BINARY_FL(copysign, f, float, copysignf(x, y))
CT__BINARY_FL(copysign, d, double, copysign(x, y))
CT__BINARY_FL(hypot, f, float, hypotf(x, y))
CT__BINARY_FL(hypot, d, double, hypot(x, y))
CT__BINARY_FL(atan2, f, float, atan2f(x, y))
CT__BINARY_FL(atan2, d, double, atan2(x, y))
/* xlogy: NaN where y is NaN, else 0 where x is 0 */
CT__BINARY_FL(xlogy, f, float, y != y ? NAN : x == 0 ? 0.0f : x * logf(y))
CT__BINARY_FL(xlogy, d, double, y != y ? NAN : x == 0 ? 0.0 : x * log(y))

/* Comparisons and logic: one expression for all three flavours. */
CT__BINARY_ALL(eq, x == y)
CT__BINARY_ALL(ne, x != y)
CT__BINARY_ALL(lt, x < y)
CT__BINARY_ALL(le, x <= y)
CT__BINARY_ALL(gt, x > y)
CT__BINARY_ALL(ge, x >= y)
CT__BINARY_ALL(logical_and, x != 0 && y != 0)
CT__BINARY_ALL(logical_or, x != 0 || y != 0)
CT__BINARY_ALL(logical_xor, (x != 0) != (y != 0))
CT__BINARY_I(bitwise_and, x & y)
CT__BINARY_I(bitwise_or, x | y)
CT__BINARY_I(bitwise_xor, x ^ y)

/* Shifts as PyTorch's compile on x86: types narrower than int64 shift as
 * 32-bit ints, and the count is taken modulo the width (32 or 64). */
CT__INLINE int64_t ct__bitwise_left_shift_i(int64_t x, int64_t y, const ct__op_args *a)
{
    if (a->compute == CT_I64) return (int64_t)((uint64_t)x << (y & 63));
    return (int32_t)((uint32_t)x << (y & 31));
}
CT__INLINE int64_t ct__bitwise_right_shift_i(int64_t x, int64_t y, const ct__op_args *a)
{
    if (a->compute == CT_I64) return x >> (y & 63);
    return (int32_t)x >> (y & 31);
}

/* h flavours: alpha * y, a quotient before trunc, and xlogy's log round to the narrow type */
CT__BINARY_FL(add_alpha, h, float, x + CT__N((float)a->alpha * y))
CT__BINARY_FL(sub_alpha, h, float, x - CT__N((float)a->alpha * y))
CT__INLINE float ct__div_h(float x, float y, const ct__op_args *a)
{
    return a->mode == CT_ROUNDING_TRUNC ? truncf(CT__N(x / y)) : ct__div_f(x, y, a);
}
CT__BINARY_FL(xlogy, h, float, y != y ? NAN : x == 0 ? 0.0f : x * CT__NB(logf(y)))

/* ---------------------------------------------------------------- activations' first derivatives */

/* The backward ops of relu, tanh, sigmoid and gelu over grad_output x and
 * the forward's result or input y, as PyTorch's kernels compute them
 * (Activation.cpp's threshold_kernel and GeluBackwardKernelImpl,
 * BinaryOpsKernel.cpp's tanh_backward_kernel and sigmoid_backward_kernel),
 * with the fused multiply-adds GCC contracts in them. float16 and bfloat16
 * compute in float and round once, but for the h flavours below. */

/* threshold_backward: 0 where y <= the threshold (alpha; 0, relu's, when
 * the call has no value), else x; a select, so that a NaN y passes x */
CT__BINARY_I(threshold_backward, y <= (a->has_value ? a->alpha_i : 0) ? 0 : x)
CT__BINARY_FL(threshold_backward, f, float, y <= (a->has_value ? (float)a->alpha : 0.0f) ? 0.0f : x)
CT__BINARY_FL(threshold_backward, d, double, y <= (a->has_value ? a->alpha : 0.0) ? 0.0 : x)
/* tanh_backward: x * (1 - y * y), 1 - y * y one FMA; the vfnmadd it is
 * passes a NaN y as it is, where negating y first, or the emulated FMA, may
 * flip its sign */
#define CT__GEN_tanh_backward(fl, T, F)                                                   \
    CT__INLINE T ct__tanh_backward_##fl(T x, T y, const ct__op_args *a)                   \
    {                                                                                     \
        (void)a;                                                                          \
        return x * (y != y ? y : F(ct__fma)(-y, y, (T)1));                                \
    }
CT__FLOATING(tanh_backward)
CT__BINARY_FD(sigmoid_backward, x * (1 - y) * y)

/* a * b + c as gelu_backward's last sum is: fused in PyTorch's vector loop
 * (F(ct__fma)), not in its scalar loop (ct__unfused): the product a
 * statement of its own, since clang fuses a product and a sum written in one
 * expression where the target has FMA (its -ffp-contract=on) */
CT__INLINE float ct__unfusedf(float a, float b, float c)
{
    float p = a * b;
    return p + c;
}
CT__INLINE double ct__unfused(double a, double b, double c)
{
    double p = a * b;
    return p + c;
}
/* gelu_backward: dy * (cdf + x * pdf) exactly (mode 0), cdf = (1 + erf(x /
 * sqrt 2)) / 2, pdf = e^(-x^2 / 2) / sqrt(2 pi); or the derivative of the
 * tanh form (mode 1), whose inner multiply-adds are fused in both loops.
 * Float's vector blocks compute erf and exp with SLEEF and fuse the last
 * sum (MAD), the rest of a loop runs the C library's functions and an
 * unfused sum (the gelu_backward_libm twin: see CT__VM_BLOCK). (The tanh
 * form's vector blocks take scalar.h's vector tanh, within an ulp of
 * SLEEF's that PyTorch's take, which 1 - tanh^2 may magnify.) */
#define CT__GEN_gelu_backward(name, fl, T, F, ERF, EXP, TANH, MAD)                        \
    CT__ALWAYS_INLINE T ct__##name##_##fl(T dy, T x, const ct__op_args *a)                \
    {                                                                                     \
        if (a->mode == 1) {                                                               \
            const T beta = (T)(1.41421356237309504880 * 1.12837916709551257390 * 0.5), kappa = (T)0.044715; \
            T x_sq = x * x, t = TANH(beta * F(ct__fma)(kappa, x_sq * x, x));              \
            T inner_d = beta * F(ct__fma)((T)3 * kappa, x_sq, (T)1);                      \
            T left = (T)0.5 * x, left_d = (T)0.5 * (1 + t);                               \
            return dy * MAD(left * F(ct__fma)(-t, t, (T)1), inner_d, left_d);             \
        }                                                                                 \
        const T alpha = (T)0.70710678118654752440;                                        \
        const T beta = (T)(1.12837916709551257390 * 0.70710678118654752440 * 0.5);        \
        T cdf = (T)0.5 * (1 + ERF(x * alpha)), pdf = beta * EXP(x * x * (T)-0.5);         \
        return dy * MAD(x, pdf, cdf);                                                     \
    }
CT__GEN_gelu_backward(gelu_backward, f, float, CT__LIBM_f, ct__verff, ct__vexpf_sleef, ct__vtanhf, ct__fmaf)
CT__GEN_gelu_backward(gelu_backward, d, double, CT__LIBM_d, erf, exp, tanh, ct__fma)
CT__GEN_gelu_backward(gelu_backward_libm, f, float, CT__LIBM_f, erff, expf, tanhf, ct__unfusedf)
CT__GEN_gelu_backward(gelu_backward_libm, d, double, CT__LIBM_d, erf, exp, tanh, ct__unfused)

/* h flavours: float16's sigmoid_backward rounds each step; bfloat16's
 * gelu_backward rounds each step where PyTorch's scalar loop computes in
 * bfloat16 (its erf, exp and tanh too), float16's computes in float */
CT__BINARY_FL(sigmoid_backward, h, float, CT__NH(x * CT__NH(1 - y)) * y)
CT__INLINE float ct__gelu_backward_narrow_h(float dy, float x, const ct__op_args *a)
{
    if (a->mode == 1) {
        const float beta = CT__NB((float)(1.41421356237309504880 * 1.12837916709551257390 * 0.5));
        const float kappa = CT__NB(0.044715f);
        float x_sq = CT__NB(x * x), x_cube = CT__NB(x_sq * x);
        float t = CT__NB(tanhf(CT__NB(beta * CT__NB(x + CT__NB(kappa * x_cube)))));
        float inner_d = CT__NB(beta * CT__NB(1 + CT__NB(CT__NB(3 * kappa) * x_sq)));
        float right_d = CT__NB(CT__NB(CT__NB(0.5f * x) * CT__NB(1 - CT__NB(t * t))) * inner_d);
        return dy * CT__NB(CT__NB(0.5f * CT__NB(1 + t)) + right_d);
    }
    const float alpha = CT__NB(0.70710678118654752440f);
    const float beta = CT__NB((float)(1.12837916709551257390 * 0.70710678118654752440 * 0.5));
    float cdf = CT__NB(0.5f * CT__NB(1 + CT__NB(erff(CT__NB(x * alpha)))));
    float pdf = CT__NB(beta * CT__NB(expf(CT__NB(CT__NB(x * x) * -0.5f))));
    return dy * CT__NB(cdf + CT__NB(x * pdf));
}
CT__ALWAYS_INLINE float ct__gelu_backward_h(float dy, float x, const ct__op_args *a)
{
    return a->compute == CT_BF16 ? ct__gelu_backward_narrow_h(dy, x, a) : ct__gelu_backward_f(dy, x, a);
}
CT__ALWAYS_INLINE float ct__gelu_backward_libm_h(float dy, float x, const ct__op_args *a)
{
    return a->compute == CT_BF16 ? ct__gelu_backward_narrow_h(dy, x, a) : ct__gelu_backward_libm_f(dy, x, a);
}

/* ---------------------------------------------------------------- ternary ops */

/* out = fn(x, y, z): the int64 flavour (the floating ones are CT__GEN_ macros) */
#define CT__TERNARY_I(name, ei) \
    CT__INLINE int64_t ct__##name##_i(int64_t x, int64_t y, int64_t z, const ct__op_args *a) { (void)a; return ei; }

/* addcmul: x + value * y * z, its last multiply-add fused as PyTorch's
 * compiled kernels have it; addcdiv: x + value * y / z */
CT__TERNARY_I(addcmul, (int64_t)((uint64_t)x + (uint64_t)a->alpha_i * (uint64_t)y * (uint64_t)z))
#define CT__GEN_addc(fl, T, F)                                                                          \
    CT__INLINE T ct__addcmul_##fl(T x, T y, T z, const ct__op_args *a) { return F(ct__fma)((T)a->alpha * y, z, x); }    \
    CT__INLINE T ct__addcdiv_##fl(T x, T y, T z, const ct__op_args *a) { return x + (T)a->alpha * y / z; }
CT__FLOATING(addc)
/* lerp from x to y by z, from the start below weight 0.5 and from the end
 * above, each a fused multiply-add as PyTorch's compiled kernel has them */
#define CT__GEN_lerp(fl, T, F)                                                                          \
    CT__INLINE T ct__lerp_##fl(T x, T y, T z, const ct__op_args *a)                                     \
    {                                                                                                   \
        T d = y - x, w = a->mode ? (T)a->alpha : z;                                                      \
        return w < (T)0.5 ? F(ct__fma)(w, d, x) : F(ct__fma)(-d, 1 - w, y);                             \
    }
CT__FLOATING(lerp)
/* clamp: std::min(std::max(x, lo), hi), NaN where a bound is NaN (written
 * as selects that pass a NaN bound on, so that the loops vectorise) */
CT__TERNARY_I(clamp, (x < y ? y : x) > z ? z : (x < y ? y : x))
#define CT__GEN_clamp(fl, T, F)                                                                         \
    CT__INLINE T ct__clamp_##fl(T x, T y, T z, const ct__op_args *a)                                    \
    {                                                                                                   \
        T m = x < y || y != y ? y : x;                                                                  \
        (void)a;                                                                                        \
        return z < m || z != z ? z : m;                                                                 \
    }
CT__FLOATING(clamp)

/* The flavour function of op `name` for dtype dt, and the flavour's type. */
#define CT__KFN(name, dt) CT__CAT(ct__##name##_, CT__KF_##dt)
#define CT__KFT(dt) CT__CAT(ct__flavour_, CT__KF_##dt)

/* Which kernels exist: X(name, kind of loop, dtype group), and HX(...) for the
 * ops that also have an h flavour for float16 and bfloat16. */
#define CT__POINTWISE_KERNELS(X, HX)                                                                   \
    X(neg, UNARY, NUMERIC) X(abs, UNARY, NUMERIC) X(reciprocal, UNARY, FLOATS) X(sign, UNARY, ALL) \
    HX(round, UNARY, NUMERIC) X(floor, UNARY, NUMERIC) X(ceil, UNARY, NUMERIC) X(trunc, UNARY, NUMERIC) \
    X(frac, UNARY, FLOATS) X(exp, UNARY_VM, FLOATS) X(exp2, UNARY, FLOATS) X(expm1, UNARY, FLOATS)    \
    X(log, UNARY_VM, FLOATS) X(log2, UNARY, FLOATS) X(log10, UNARY, FLOATS) X(log1p, UNARY, FLOATS)   \
    X(sqrt, UNARY, FLOATS) HX(rsqrt, UNARY, FLOATS) X(sin, UNARY, FLOATS) X(cos, UNARY, FLOATS)    \
    X(tan, UNARY, FLOATS) X(asin, UNARY, FLOATS) X(acos, UNARY, FLOATS) X(atan, UNARY, FLOATS)     \
    X(sinh, UNARY, FLOATS) X(cosh, UNARY, FLOATS) X(tanh, UNARY_VM, FLOATS) X(asinh, UNARY, FLOATS)   \
    X(acosh, UNARY, FLOATS) X(atanh, UNARY, FLOATS) X(erf, UNARY, FLOATS) X(erfc, UNARY, FLOATS)   \
    X(erfinv, UNARY, FLOATS) X(lgamma, UNARY, FLOATS) X(digamma, UNARY, FLOATS) X(polygamma, UNARY, FLOATS) \
    X(sigmoid, UNARY_VM, FLOATS) HX(logit, UNARY, FLOATS) X(relu, UNARY, NUMERIC)                     \
    X(leaky_relu, UNARY, FLOATS) X(elu, UNARY, FLOATS) HX(gelu, UNARY_VM0, FLOATS) HX(silu, UNARY, FLOATS) \
    X(mish, UNARY, FLOATS) X(softplus, UNARY, FLOATS) X(hardsigmoid, UNARY, FLOATS)                \
    X(hardswish, UNARY, FLOATS) X(threshold_backward, BINARY, NUMERIC) X(tanh_backward, BINARY, FLOATS) \
    HX(sigmoid_backward, BINARY, FLOATS) HX(gelu_backward, BINARY_VM0, FLOATS)                      \
    X(isnan, UNARY_BOOL, ALL) X(isinf, UNARY_BOOL, ALL)                                             \
    X(isfinite, UNARY_BOOL, ALL) X(logical_not, UNARY_BOOL, ALL) X(bitwise_not, UNARY, INTS_BOOL)  \
    X(nan_to_num, UNARY, ALL)                                                                      \
    X(add, BINARY, ALL) X(sub, BINARY, NUMERIC) X(mul, BINARY, ALL) HX(div, BINARY, NUMERIC)       \
    X(remainder, BINARY, NUMERIC) X(fmod, BINARY, NUMERIC) X(pow, BINARY, NUMERIC)                 \
    X(maximum, BINARY, ALL) X(minimum, BINARY, ALL) X(fmax, BINARY, ALL) X(fmin, BINARY, ALL)      \
    X(copysign, BINARY, FLOATS) X(hypot, BINARY, FLOATS) X(atan2, BINARY, FLOATS)                  \
    HX(xlogy, BINARY, FLOATS) X(eq, BINARY_BOOL, ALL) X(ne, BINARY_BOOL, ALL)                      \
    X(lt, BINARY_BOOL, ALL) X(le, BINARY_BOOL, ALL) X(gt, BINARY_BOOL, ALL) X(ge, BINARY_BOOL, ALL) \
    X(logical_and, BINARY_BOOL, ALL) X(logical_or, BINARY_BOOL, ALL) X(logical_xor, BINARY_BOOL, ALL) \
    X(bitwise_and, BINARY, INTS_BOOL) X(bitwise_or, BINARY, INTS_BOOL) X(bitwise_xor, BINARY, INTS_BOOL) \
    X(bitwise_left_shift, BINARY, INTS) X(bitwise_right_shift, BINARY, INTS)                       \
    X(addcmul, TERNARY, NUMERIC) X(addcdiv, TERNARY, FLOATS) X(lerp, TERNARY, FLOATS)              \
    X(clamp, TERNARY, NUMERIC) X(where, WHERE, ALL)


/* The dtype of each kernel dtype name. */
#define CT__DT_b8 CT_BOOL
#define CT__DT_u8 CT_U8
#define CT__DT_i8 CT_I8
#define CT__DT_i16 CT_I16
#define CT__DT_i32 CT_I32
#define CT__DT_i64 CT_I64
#define CT__DT_f32 CT_F32
#define CT__DT_f64 CT_F64
#define CT__DT_f16 CT_F16
#define CT__DT_bf16 CT_BF16
#define CT__DT_f16h CT_F16
#define CT__DT_bf16h CT_BF16

#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC pop_options
#endif
