/* Scalar code that the CPU backend and a device's kernels both compile:
 * element types and their conversions (float16 and bfloat16 as bits), and
 * the vector math of exp, log, tanh and sigmoid. Under nvcc (__CUDACC__)
 * every function here is a host-and-device function; in device code
 * (__CUDA_ARCH__) the ct__v* functions are the device's libm instead of the
 * CPU's vector math. */
#include <float.h>
#include <math.h>
#include <string.h>

#ifdef __CUDACC__
#define CT__HD __host__ __device__
#define CT__ALWAYS_INLINE static __forceinline__ __host__ __device__
#elif defined(__GNUC__) || defined(__clang__)
#define CT__HD
#define CT__ALWAYS_INLINE static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define CT__HD
#define CT__ALWAYS_INLINE static __forceinline
#else
#define CT__HD
#define CT__ALWAYS_INLINE static inline
#endif
#if defined(__GNUC__) || defined(__clang__)
#define CT__LIKELY(x) __builtin_expect(!!(x), 1)
#define CT__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define CT__LIKELY(x) (x)
#define CT__UNLIKELY(x) (x)
#endif
#define CT__INLINE static inline CT__HD

#define CT__CAT_(a, b) a##b
#define CT__CAT(a, b) CT__CAT_(a, b)

/* ---------------------------------------------------------------- element types */

/* Storage types: bool is one byte holding 0 or 1; half and bfloat16 are bits. */
typedef uint8_t ct__b8_t;
typedef uint8_t ct__u8_t;
typedef int8_t ct__i8_t;
typedef int16_t ct__i16_t;
typedef int32_t ct__i32_t;
typedef int64_t ct__i64_t;
typedef uint16_t ct__f16_t;
typedef uint16_t ct__bf16_t;
typedef float ct__f32_t;
typedef double ct__f64_t;

/* X(name, ct_dtype): every dtype, twice so that two lists can nest (the cast
 * table is one list expanded inside the other). */
#define CT__DTYPES_A(X, a) \
    X(b8, CT_BOOL, a) X(u8, CT_U8, a) X(i8, CT_I8, a) X(i16, CT_I16, a) X(i32, CT_I32, a) \
    X(i64, CT_I64, a) X(f16, CT_F16, a) X(bf16, CT_BF16, a) X(f32, CT_F32, a) X(f64, CT_F64, a)
#define CT__DTYPES_B(X, a) \
    X(b8, CT_BOOL, a) X(u8, CT_U8, a) X(i8, CT_I8, a) X(i16, CT_I16, a) X(i32, CT_I32, a) \
    X(i64, CT_I64, a) X(f16, CT_F16, a) X(bf16, CT_BF16, a) X(f32, CT_F32, a) X(f64, CT_F64, a)

/* IEEE half <-> float, rounding to nearest even as c10::Half does. */
CT__INLINE float ct__f16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: renormalise */
            int e = -1;
            do { man <<= 1; e++; } while (!(man & 0x400));
            bits = sign | (uint32_t)(112 - e) << 23 | (man & 0x3ff) << 13;
        }
    } else {
        bits = sign | (exp + 112) << 23 | man << 13;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

CT__INLINE uint16_t ct__float_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* rounds past 65504: inf */
    if (ax < 0x38800000u) {                                 /* below the smallest normal */
        if (ax < 0x33000000u) return sign;                  /* under half the smallest subnormal */
        uint32_t man = (ax & 0x7fffff) | 0x800000;
        int shift = 126 - (int)(ax >> 23);
        uint32_t r = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = ((ax - 0x38000000u) >> 13), rem = ax & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++;
    return (uint16_t)(sign | r);
}

CT__INLINE float ct__bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

CT__INLINE uint16_t ct__float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if (f != f) return 0x7fc0;
    x += 0x7fffu + ((x >> 16) & 1); /* round to nearest even */
    return (uint16_t)(x >> 16);
}

/* A number as a variable of a float32 tensor's element type holds it
 * (rounded to float); any other dtype keeps the double. */
CT__INLINE double ct__as_dtype(double v, ct_dtype dt) { return dt == CT_F32 ? (double)(float)v : v; }

/* ---------------------------------------------------------------- vector math */

CT__INLINE float ct__f32_of_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
CT__INLINE uint32_t ct__bits_of_f32(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}
/* c ? a : b for floats, computed as bits. */
CT__INLINE float ct__pickf(bool c, float a, float b)
{
    uint32_t m = 0 - (uint32_t)c;
    return ct__f32_of_bits((ct__bits_of_f32(a) & m) | (ct__bits_of_f32(b) & ~m));
}

/* fma(a, b, c), rounded once as PyTorch's compiled kernels have it. Without
 * FMA instructions, float's a * b is exact in double and the sum rounds once
 * there; rounding that to float is right unless the double lies exactly
 * halfway between two floats or below float's normal range, which the C
 * library's fmaf settles. Double has no wider type: the C library's fma.
 * Always inlined: they sit inside GCC optimize pragmas (the pointwise
 * formulas), and GCC inlines nothing across differing optimize options
 * into code outside them (the fused optimizer loops), which then do not
 * vectorise. */
CT__ALWAYS_INLINE float ct__fmaf(float a, float b, float c)
{
#if defined(__FMA__) || defined(__CUDA_ARCH__)
    return fmaf(a, b, c);
#else
    double s = (double)a * b + c;
    uint64_t bits;
    memcpy(&bits, &s, sizeof bits);
    if (CT__UNLIKELY((bits & 0x1fffffffu) == 0x10000000u || fabs(s) < FLT_MIN)) return fmaf(a, b, c);
    return (float)s;
#endif
}
CT__ALWAYS_INLINE double ct__fma(double a, double b, double c) { return fma(a, b, c); }

/* exp, log, tanh and sigmoid written so that loops over them vectorise: range
 * reduction and a polynomial, bits moved through memcpy, no calls into the C
 * library, and no branches: special cases are picked by bit masks (GCC turns
 * a ?: between floating values into a branch when one side is needed only
 * there, and with trapping math will not compute both sides to vectorise).
 * Float exp computes in float, within 0.78 ulp, as PyTorch's SLEEF is within
 * 1 (float sigmoid is PyTorch's float formula around it); the rest compute
 * in double: within an ulp for double, and for float (which converts to
 * double and back) within 0.51 ulp. On random inputs those give glibc's
 * bits but for 1 in 400 (double exp, float log), 1 in 100 (double log) or
 * 1 in 20 (float tanh, whose glibc version is an ulp off more often). They
 * are used where the compiler targets AVX2 (CT__VECMATH): without it GCC
 * leaves these loops scalar, slower than the C library, which the ct__v*
 * wrappers then call. */
#if !defined(CT__VECMATH) && (defined(__AVX2__) || defined(__AVX512F__))
#define CT__VECMATH 1
#endif
#ifdef CT__VECMATH /* (what follows serves only it) */
CT__INLINE double ct__f64_of_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}
CT__INLINE uint64_t ct__bits_of_f64(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}
/* c ? a : b, computed as bits. */
CT__INLINE double ct__pick(bool c, double a, double b)
{
    uint64_t m = 0 - (uint64_t)c;
    return ct__f64_of_bits((ct__bits_of_f64(a) & m) | (ct__bits_of_f64(b) & ~m));
}

/* 1.5 * 2^52: adding it rounds a double below 2^51 to an integer, which its
 * low bits then hold. */
#define CT__SHIFTER 6755399441055744.0

/* 2^k for an integer k in [-1022, 1023] (a double), from its bits. */
CT__INLINE double ct__pow2(double k)
{
    return ct__f64_of_bits((ct__bits_of_f64(k + CT__SHIFTER) - ct__bits_of_f64(CT__SHIFTER) + 1023) << 52);
}

/* a * b + c, rounded once where the target has FMA instructions (one
 * vector operation instead of two), twice elsewhere. Used where the
 * difference cannot show: products that are exact, and the float results'
 * polynomials, whose float exp, sigmoid, tanh and log were compared with
 * the unfused forms on all 2^32 inputs: the same bits for every one. */
#ifdef __FMA__
#define CT__FMA_OR_NOT(a, b, c) fma(a, b, c)
#else
#define CT__FMA_OR_NOT(a, b, c) ((a) * (b) + (c))
#endif

/* e^r - 1 - r for |r| <= ln2/2 by Taylor to degree 8 (remainder 2e-10 of
 * e^r, enough for float results), in Estrin's scheme: short chains of
 * dependent operations, which is what bounds a vector loop's speed. */
CT__INLINE double ct__expm1_tail(double r)
{
    double r2 = r * r, r4 = r2 * r2;
    double a = CT__FMA_OR_NOT(r, 1.0 / 6, 0.5), b = CT__FMA_OR_NOT(r, 1.0 / 120, 1.0 / 24);
    double c = CT__FMA_OR_NOT(r, 1.0 / 5040, 1.0 / 720);
    return r2 * CT__FMA_OR_NOT(r4, CT__FMA_OR_NOT(r2, 1.0 / 40320, c), CT__FMA_OR_NOT(r2, b, a));
}

/* Cody and Waite's ln2 in two parts: the high part has 32 bits, so k * hi is
 * exact for the |k| < 2^21 of any exp argument. */
#define CT__LN2_HI 6.93147180369123816490e-01
#define CT__LN2_LO 1.90821492927058770002e-10

/* e^x to 2e-10, for a float result (float tanh's): |x| is first clamped to
 * 150 (NaN passes), where e^x over- or underflows float anyway, and in
 * between p 2^k is a normal double. x = k ln2 + r with |r| <= ln2/2, 2^k
 * from kk's low bits, which hold k. */
CT__ALWAYS_INLINE double ct__exp_for_float(double x)
{
    x = ct__pick(fabs(x) > 150.0, copysign(150.0, x), x);
    double kk = x * 1.4426950408889634 + CT__SHIFTER, k = kk - CT__SHIFTER;
    double r = CT__FMA_OR_NOT(-k, CT__LN2_HI, x) - k * CT__LN2_LO; /* (k ln2_hi is exact: fused or not, one rounding) */
    double p = 1.0 + (r + ct__expm1_tail(r));
    return p * ct__f64_of_bits((ct__bits_of_f64(kk) + 1023) << 52);
}

/* a * b - p exactly, for p the rounded product a * b (Dekker's product where
 * there is no fused multiply-add; a and b well inside the range). */
CT__ALWAYS_INLINE double ct__mul_err(double a, double b, double p)
{
#ifdef __FMA__
    return fma(a, b, -p);
#else
    const double split = 134217729.0; /* 2^27 + 1 */
    double ca = split * a, cb = split * b;
    double ah = ca - (ca - a), al = a - ah, bh = cb - (cb - b), bl = b - bh;
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
}

/* e^x for double results within an ulp, the C library's bits but for about
 * 1 in 400 inputs (1 in 100 of the subnormal results): |x| is first clamped to 746, where e^x over- or underflows anyway (NaN
 * passes). x = k ln2 + r + c with |r| <= ln2/2 and c the rounding error of
 * r; e^r e^c = 1 + r + r^2/2 + r^3 q(r) + c (1 + r), the first three terms
 * summed with their rounding errors kept (1 + r and the sum with r^2/2 by
 * Fast2Sum, r^2/2 with its product's error), q by Taylor to degree 12
 * (remainder 2e-21) in Estrin's scheme; 2^k is applied as two factors, so
 * that subnormal results round once. */
CT__ALWAYS_INLINE double ct__exp_wide(double x)
{
    x = ct__pick(fabs(x) > 746.0, copysign(746.0, x), x);
    double k = (x * 1.4426950408889634 + CT__SHIFTER) - CT__SHIFTER;
    double r_hi = CT__FMA_OR_NOT(-k, CT__LN2_HI, x), r_lo = -k * CT__LN2_LO; /* (r_hi is exact) */
    double r = r_hi + r_lo, c = (r_hi - r) + r_lo;
    double half_r = 0.5 * r, h = half_r * r, h_err = ct__mul_err(half_r, r, h);
    double s = 1.0 + r, s_err = (1.0 - s) + r;
    double t = s + h, t_err = (s - t) + h;
    double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    double q0 = CT__FMA_OR_NOT(r, 1.0 / 24, 1.0 / 6), q1 = CT__FMA_OR_NOT(r, 1.0 / 720, 1.0 / 120);
    double q2 = CT__FMA_OR_NOT(r, 1.0 / 40320, 1.0 / 5040), q3 = CT__FMA_OR_NOT(r, 1.0 / 3628800, 1.0 / 362880);
    double q4 = CT__FMA_OR_NOT(r, 1.0 / 479001600, 1.0 / 39916800), q5 = CT__FMA_OR_NOT(r, 1.0 / 87178291200, 1.0 / 6227020800);
    double q = CT__FMA_OR_NOT(r4, CT__FMA_OR_NOT(r2, q3, q2), CT__FMA_OR_NOT(r2, q1, q0)) +
               r8 * CT__FMA_OR_NOT(r4, 1.0 / 1307674368000, CT__FMA_OR_NOT(r2, q5, q4));
    double lo = CT__FMA_OR_NOT(r2 * r, q, CT__FMA_OR_NOT(c, r, c)) + (s_err + t_err + h_err);
    double p = t + lo;
    double k1 = (k * 0.5 + CT__SHIFTER) - CT__SHIFTER; /* k in halves: each within range */
    return p * ct__pow2(k1) * ct__pow2(k - k1);
}
/* e^x for float x and result in float arithmetic (16 lanes to an AVX-512
 * vector, twice double's), within 0.78 ulp (checked against double exp on
 * every float), as PyTorch's SLEEF is within 1. |x| is first clamped to 150
 * (NaN passes). x = k ln2 + r_hi + lo with |r_hi + lo| <= ln2/2: ln2 in two
 * parts, k ln2_hi exact (16 bits by at most 8) and so r_hi; e^r = 1 + r +
 * r^2 q(r) with q by Taylor to degree 7 (remainder below 0.06 ulp), 1 + r_hi
 * summed with its rounding error kept (Fast2Sum); 2^k applied as two
 * factors, so that subnormal results round once. */
CT__ALWAYS_INLINE float ct__expf_narrow(float x)
{
    x = ct__pickf(fabsf(x) > 150.0f, copysignf(150.0f, x), x);
    float k = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f; /* (1.5 * 2^23 rounds to an integer) */
    float r_hi = x - k * 0.693145751953125f, lo = -k * 1.428606765330187045e-06f, r = r_hi + lo;
    float q = 0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720 + r * (1.0f / 5040)))));
    float s = 1.0f + r_hi, s_err = (1.0f - s) + r_hi;
    float p = s + (s_err + (lo + r * r * q));
    int32_t ki = (int32_t)k, k1 = ki >> 1; /* (an arithmetic shift: k1 = floor(k / 2)) */
    return p * ct__f32_of_bits((uint32_t)(k1 + 127) << 23) * ct__f32_of_bits((uint32_t)(ki - k1 + 127) << 23);
}

/* log x within an ulp, fdlibm's way: x = 2^k m with m in [sqrt(1/2), sqrt 2),
 * f = m - 1, s = f / (2 + f), log m = f - f^2/2 + s (f^2/2 + R(s^2)) with
 * fdlibm's minimax R; k ln2 added in two parts. Subnormals are scaled by
 * 2^54 first; 0, negatives, infinity and NaN are picked at the end. */
CT__INLINE double ct__log_wide(double x)
{
    const double ln2_hi = CT__LN2_HI, ln2_lo = CT__LN2_LO;
    const double lg1 = 6.666666666666735130e-01, lg2 = 3.999999999940941908e-01, lg3 = 2.857142874366239149e-01,
                 lg4 = 2.222219843214978396e-01, lg5 = 1.818357216161805012e-01, lg6 = 1.531383769920937332e-01,
                 lg7 = 1.479819860511658591e-01;
    bool sub = x < 2.2250738585072014e-308;
    uint64_t b = ct__bits_of_f64(ct__pick(sub, x * 18014398509481984.0, x));
    /* mantissas from sqrt 2 (0x6a09e...) up carry into bit 20: m halves, k grows */
    uint64_t up = ((b >> 32 & 0xfffff) + 0x95f62) >> 20;
    double m = ct__f64_of_bits((b & 0x000fffffffffffffu) | (0x3ff - up) << 52);
    /* k from the exponent's bits as the low bits of 2^52's mantissa */
    double e = ct__f64_of_bits((b >> 52 & 0x7ff) + up + 0x4330000000000000u) - 4503599627370496.0;
    double dk = e - 1023.0 - ct__pick(sub, 54.0, 0.0);
    double f = m - 1.0, s = f / (2.0 + f), z = s * s, w = z * z;
    double r = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7))) + w * (lg2 + w * (lg4 + w * lg6));
    double hfsq = 0.5 * f * f;
    double y = dk * ln2_hi - ((hfsq - (s * (hfsq + r) + dk * ln2_lo)) - f);
    y = ct__pick(x < (double)INFINITY, y, x); /* infinity, NaN */
    y = ct__pick(x == 0, -(double)INFINITY, y);
    return ct__pick(x < 0, (double)NAN, y);
}

/* log x for float x and result: ct__log_wide's method and polynomial in
 * double, with the cheaper parts done on the float: x = 2^k m split from
 * its 32 bits (float subnormals scaled by 2^23 first), f = m - 1 exact in
 * double, and 0, negatives, infinity and NaN picked on the float at the end
 * (a NaN quieted, as its conversion to double would). Within 0.51 ulp: the
 * double result is within 1e-16 of log x before its rounding to float. */
CT__ALWAYS_INLINE float ct__logf_narrow(float x)
{
    const double ln2_hi = CT__LN2_HI, ln2_lo = CT__LN2_LO;
    const double lg1 = 6.666666666666735130e-01, lg2 = 3.999999999940941908e-01, lg3 = 2.857142874366239149e-01,
                 lg4 = 2.222219843214978396e-01, lg5 = 1.818357216161805012e-01, lg6 = 1.531383769920937332e-01,
                 lg7 = 1.479819860511658591e-01;
    const uint32_t sqrt_half = 0x3f3504f3u; /* sqrt(1/2)'s bits: m in [sqrt(1/2), sqrt 2) */
    bool sub = x < FLT_MIN;
    uint32_t u = ct__bits_of_f32(ct__pickf(sub, x * 8388608.0f, x)) - sqrt_half;
    int32_t k = ((int32_t)u >> 23) - (int32_t)sub * 23;
    double f = (double)ct__f32_of_bits((u & 0x007fffffu) + sqrt_half) - 1.0, dk = (double)k;
    double s = f / (2.0 + f), z = s * s, w = z * z;
    double r = CT__FMA_OR_NOT(z, CT__FMA_OR_NOT(w, CT__FMA_OR_NOT(w, CT__FMA_OR_NOT(w, lg7, lg5), lg3), lg1),
                              w * CT__FMA_OR_NOT(w, CT__FMA_OR_NOT(w, lg6, lg4), lg2));
    double hfsq = 0.5 * f * f;
    float y = (float)CT__FMA_OR_NOT(dk, ln2_hi, -((hfsq - CT__FMA_OR_NOT(s, hfsq + r, dk * ln2_lo)) - f));
    y = ct__pickf(x < INFINITY, y, x + x);
    y = ct__pickf(x == 0, -INFINITY, y);
    return ct__pickf(x < 0, NAN, y);
}

/* tanh for float results: x (1 - x^2/3 + 2x^4/15 - 17x^6/315) below 2^-5
 * (remainder 2e-14 of the result), else 1 - 2 / (e^2|x| + 1) with x's sign. */
CT__INLINE double ct__tanhf_wide(double x)
{
    double z = x * x, ax = fabs(x);
    double small = x * (1.0 + z * (-1.0 / 3 + z * (2.0 / 15 + z * (-17.0 / 315))));
    double big = 1.0 - 2.0 / (ct__exp_for_float(2.0 * ax) + 1.0);
    return ct__pick(ax < 0.03125, small, copysign(big, x));
}

#endif /* CT__VECMATH */

/* ---------------------------------------------------------------- SLEEF's float erf and exp */

/* PyTorch 1.13's Vectorized<float> erf and exp (torch.erf, torch.exp, and
 * the vector blocks of the GELU kernels) are SLEEF's Sleef_erff8_u10 and
 * Sleef_expf8_u10 (SLEEF 3.5, AVX2 with FMA). These compute the same
 * operations in the same order, so they give SLEEF's bits: checked on all
 * 2^32 floats against torch.erf and torch.exp (bench/RESULTS.md). They need
 * the C library for nothing, so the bits are also SLEEF's where the C
 * library differs (MinGW), and they are branch-free (picks by bit masks)
 * so that loops over them vectorise. SLEEF fuses its multiply-adds where
 * ct__fmaf is written; its plain products and sums must stay unfused (ISO C
 * modes contract nothing, -ffp-contract=fast could). */

/* A double-float: hi + lo, lo below half an ulp of hi (SLEEF's vfloat2). */
typedef struct ct__df {
    float hi, lo;
} ct__df;
CT__ALWAYS_INLINE ct__df ct__df_make(float hi, float lo)
{
    ct__df r;
    r.hi = hi;
    r.lo = lo;
    return r;
}
/* a double as a double-float (vcast_vf2_d) */
CT__ALWAYS_INLINE ct__df ct__df_of(double d) { return ct__df_make((float)d, (float)(d - (float)d)); }
/* c ? a : b */
CT__ALWAYS_INLINE ct__df ct__df_pick(bool c, ct__df a, ct__df b)
{
    return ct__df_make(ct__pickf(c, a.hi, b.hi), ct__pickf(c, a.lo, b.lo));
}
/* x y exactly (dfmul_vf2_vf_vf) */
CT__ALWAYS_INLINE ct__df ct__df_mul_ff(float x, float y)
{
    float s = x * y;
    return ct__df_make(s, ct__fmaf(x, y, -s));
}
/* x y (dfmul_vf2_vf2_vf) */
CT__ALWAYS_INLINE ct__df ct__df_mul_f(ct__df x, float y)
{
    float s = x.hi * y;
    return ct__df_make(s, ct__fmaf(x.lo, y, ct__fmaf(x.hi, y, -s)));
}
/* x y (dfmul_vf2_vf2_vf2) */
CT__ALWAYS_INLINE ct__df ct__df_mul(ct__df x, ct__df y)
{
    float s = x.hi * y.hi;
    return ct__df_make(s, ct__fmaf(x.hi, y.lo, ct__fmaf(x.lo, y.hi, ct__fmaf(x.hi, y.hi, -s))));
}
/* x^2 (dfsqu_vf2_vf2) */
CT__ALWAYS_INLINE ct__df ct__df_square(ct__df x)
{
    float s = x.hi * x.hi;
    return ct__df_make(s, ct__fmaf(x.hi + x.hi, x.lo, ct__fmaf(x.hi, x.hi, -s)));
}
/* x + y, of any magnitudes (dfadd2_vf2_vf2_vf2: Knuth's TwoSum on the high parts) */
CT__ALWAYS_INLINE ct__df ct__df_add(ct__df x, ct__df y)
{
    float s = x.hi + y.hi, v = s - x.hi;
    float t = (x.hi - (s - v)) + (y.hi - v);
    return ct__df_make(s, t + (x.lo + y.lo));
}
/* x + y (dfadd2_vf2_vf2_vf) */
CT__ALWAYS_INLINE ct__df ct__df_add_f(ct__df x, float y)
{
    float s = x.hi + y, v = s - x.hi;
    float t = (x.hi - (s - v)) + (y - v);
    return ct__df_make(s, t + x.lo);
}
/* x + y for |x| >= |y| (dfadd_vf2_vf_vf2: Fast2Sum) */
CT__ALWAYS_INLINE ct__df ct__df_f_add(float x, ct__df y)
{
    float s = x + y.hi;
    return ct__df_make(s, ((x - s) + y.hi) + y.lo);
}

/* u rounded to the nearest integer, ties to even, as a float (*k) and an
 * int32 (returned), for |u| < 2^22 (vrint_vi2_vf): adding 1.5 * 2^23 leaves
 * the integer in the low bits. Larger u give garbage, never undefined
 * behaviour; their callers pick another result for them. */
CT__ALWAYS_INLINE int32_t ct__rint_k(float u, float *k)
{
    float kk = u + 12582912.0f;
    *k = kk - 12582912.0f;
    return (int32_t)(ct__bits_of_f32(kk) - 0x4b400000u);
}
/* 2^q for q in [-126, 127] (vpow2i_vf_vi2); any other q gives garbage
 * (unsigned arithmetic: never undefined behaviour) */
CT__ALWAYS_INLINE float ct__pow2f(int32_t q) { return ct__f32_of_bits(((uint32_t)q + 0x7fu) << 23); }
/* x 2^q as two factors, so that a subnormal result rounds once (vldexp2_vf_vf_vi2) */
CT__ALWAYS_INLINE float ct__ldexp2f(float x, int32_t q)
{
    int32_t h = q >> 1; /* (an arithmetic shift: floor(q / 2)) */
    return x * ct__pow2f(h) * ct__pow2f(q - h);
}

#define CT__R_LN2F 1.442695040888963407359924681001892137426645954152985934135449406931f
#define CT__L2UF 0.693145751953125f
#define CT__L2LF 1.428606765330187045e-06f

/* e^d in double-float for the d of erf's range (SLEEF's expk2f): d = q ln2 +
 * s, e^s = 1 + s + s^2 p(s) in double-float with a float polynomial for
 * the highest terms. (SLEEF also flushes d < -104 to 0, which erf's d,
 * above -17, never reach.) */
CT__ALWAYS_INLINE ct__df ct__expk2f(ct__df d)
{
    float qf;
    int32_t q = ct__rint_k((d.hi + d.lo) * CT__R_LN2F, &qf);
    ct__df s = ct__df_add_f(ct__df_add_f(d, qf * -CT__L2UF), qf * -CT__L2LF);
    float u = ct__fmaf(ct__fmaf(ct__fmaf(0.1980960224e-3f, s.hi, 0.1394256484e-2f), s.hi, 0.8333456703e-2f), s.hi,
                       0.4166637361e-1f);
    ct__df t = ct__df_add_f(ct__df_mul_f(s, u), 0.166666659414234244790680580464e+0f);
    t = ct__df_add_f(ct__df_mul(s, t), 0.5f);
    t = ct__df_f_add(1.0f, ct__df_add(s, ct__df_mul(ct__df_square(s), t)));
    return ct__df_make(ct__ldexp2f(t.hi, q), ct__ldexp2f(t.lo, q));
}

/* c0, c1 or c2 by |x| below 1.1, below 2.4, or beyond */
CT__ALWAYS_INLINE float ct__pick3f(bool o0, bool o1, float c0, float c1, float c2)
{
    return ct__pickf(o0, c0, ct__pickf(o1, c1, c2));
}
CT__ALWAYS_INLINE ct__df ct__pick3_df(bool o0, bool o1, double c0, double c1, double c2)
{
    return ct__df_pick(o0, ct__df_of(c0), ct__df_pick(o1, ct__df_of(c1), ct__df_of(c2)));
}

/* erf x as SLEEF's xerff_u1 computes it: for |x| < 1.1, |x| p(x^2) with
 * p's two lowest terms in double-float; below 4, 1 - e^(|x| q(|x|)); from
 * 4 on, 1; with x's sign (NaN stays NaN). */
CT__ALWAYS_INLINE float ct__erff_sleef(float x)
{
    float a = fabsf(x);
    bool o0 = a < 1.1f, o1 = a < 2.4f;
    float u = ct__pickf(o0, a * a, a);
    float t = ct__pick3f(o0, o1, +0.7089292194e-4f, -0.1792667899e-4f, -0.9495757695e-5f);
    t = ct__fmaf(t, u, ct__pick3f(o0, o1, -0.7768311189e-3f, +0.3937633010e-3f, +0.2481465926e-3f));
    t = ct__fmaf(t, u, ct__pick3f(o0, o1, +0.5159463733e-2f, -0.3949181177e-2f, -0.2918176819e-2f));
    t = ct__fmaf(t, u, ct__pick3f(o0, o1, -0.2683781274e-1f, +0.2445474640e-1f, +0.2059706673e-1f));
    t = ct__fmaf(t, u, ct__pick3f(o0, o1, +0.1128318012e+0f, -0.1070996150e+0f, -0.9901899844e-1f));
    ct__df d = ct__df_add(ct__df_mul_ff(t, u),
                          ct__pick3_df(o0, o1, -0.376125876000657465175213237214e+0, -0.634588905908410389971210809210e+0,
                                       -0.643598050547891613081201721633e+0));
    d = ct__df_add(ct__df_mul_f(d, u),
                   ct__pick3_df(o0, o1, +0.112837916021059138255978217023e+1, -0.112879855826694507209862753992e+1,
                                -0.112461487742845562801052956293e+1));
    d = ct__df_mul_f(d, a);
    ct__df e = ct__expk2f(d);
    d = ct__df_pick(o0, d, ct__df_f_add(1.0f, ct__df_make(-e.hi, -e.lo)));
    float r = ct__pickf(a < 4.0f, d.hi + d.lo, 1.0f);
    r = ct__f32_of_bits(ct__bits_of_f32(r) ^ (ct__bits_of_f32(x) & 0x80000000u));
    return ct__pickf(a != a, x, r);
}

/* e^d as SLEEF's xexpf computes it: d = q ln2 + s (ln2 in two parts), e^s =
 * 1 + s + s^2 p(s), times 2^q as two factors; 0 below -104, infinity above
 * 100 (NaN stays NaN). */
CT__ALWAYS_INLINE float ct__expf_sleef(float d)
{
    float qf;
    int32_t q = ct__rint_k(d * CT__R_LN2F, &qf);
    float s = ct__fmaf(qf, -CT__L2LF, ct__fmaf(qf, -CT__L2UF, d));
    float u = ct__fmaf(0.000198527617612853646278381f, s, 0.00139304355252534151077271f);
    u = ct__fmaf(u, s, 0.00833336077630519866943359f);
    u = ct__fmaf(u, s, 0.0416664853692054748535156f);
    u = ct__fmaf(u, s, 0.166666671633720397949219f);
    u = ct__fmaf(u, s, 0.5f);
    u = ct__ldexp2f(1.0f + ct__fmaf(s * s, u, s), q);
    u = ct__pickf(d < -104.0f, 0.0f, u);
    return ct__pickf(100.0f < d, INFINITY, u);
}
/* The functions the kernels call: the above (inlined even into big kernels,
 * so that their loops vectorise), or the C library's, which is also what
 * device code gets (CUDA's libm, as PyTorch's CUDA kernels call it). */
#if defined(CT__VECMATH) && !defined(__CUDA_ARCH__)
CT__ALWAYS_INLINE double ct__vexp(double x) { return ct__exp_wide(x); }
CT__ALWAYS_INLINE float ct__vexpf(float x) { return ct__expf_narrow(x); }
CT__ALWAYS_INLINE double ct__vlog(double x) { return ct__log_wide(x); }
CT__ALWAYS_INLINE float ct__vlogf(float x) { return ct__logf_narrow(x); }
CT__ALWAYS_INLINE float ct__vtanhf(float x) { return (float)ct__tanhf_wide(x); }
/* sigmoid in float's arithmetic, as PyTorch computes it (the division and
 * the sum rounded to float), with a float exp */
CT__ALWAYS_INLINE float ct__vsigmoidf(float x) { return 1.0f / (1.0f + ct__expf_narrow(-x)); }
#else
CT__INLINE double ct__vexp(double x) { return exp(x); }
CT__INLINE float ct__vexpf(float x) { return expf(x); }
CT__INLINE double ct__vlog(double x) { return log(x); }
CT__INLINE float ct__vlogf(float x) { return logf(x); }
CT__INLINE float ct__vtanhf(float x) { return tanhf(x); }
CT__INLINE float ct__vsigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
#endif

/* float erf, and the exp of gelu_backward: SLEEF's on the CPU, in every
 * build (so that torch.erf's bits hold without AVX2 too); the device's libm
 * in device code */
#ifdef __CUDA_ARCH__
CT__INLINE float ct__verff(float x) { return erff(x); }
CT__INLINE float ct__vexpf_sleef(float x) { return expf(x); }
#else
CT__ALWAYS_INLINE float ct__verff(float x) { return ct__erff_sleef(x); }
CT__ALWAYS_INLINE float ct__vexpf_sleef(float x) { return ct__expf_sleef(x); }
#endif

/* Loading an element widens it to int64 (integral and bool) or double
 * (floating), both exact. ct__wide_<name> names which. */
#define ct__wide_b8 i64
#define ct__wide_u8 i64
#define ct__wide_i8 i64
#define ct__wide_i16 i64
#define ct__wide_i32 i64
#define ct__wide_i64 i64
#define ct__wide_f16 f64
#define ct__wide_bf16 f64
#define ct__wide_f32 f64
#define ct__wide_f64 f64
CT__INLINE int64_t ct__load_b8(ct__b8_t v) { return v != 0; }
CT__INLINE int64_t ct__load_u8(ct__u8_t v) { return v; }
CT__INLINE int64_t ct__load_i8(ct__i8_t v) { return v; }
CT__INLINE int64_t ct__load_i16(ct__i16_t v) { return v; }
CT__INLINE int64_t ct__load_i32(ct__i32_t v) { return v; }
CT__INLINE int64_t ct__load_i64(ct__i64_t v) { return v; }
CT__INLINE double ct__load_f16(ct__f16_t v) { return ct__f16_to_float(v); }
CT__INLINE double ct__load_bf16(ct__bf16_t v) { return ct__bf16_to_float(v); }
CT__INLINE double ct__load_f32(ct__f32_t v) { return v; }
CT__INLINE double ct__load_f64(ct__f64_t v) { return v; }

/* Truncation of a double the way x86's cvttsd2si does it, which is what
 * PyTorch's static_cast compiles to: NaN and out-of-range give the minimum. */
CT__INLINE int64_t ct__trunc_i64(double d)
{
    return (d >= -9223372036854775808.0 && d < 9223372036854775808.0) ? (int64_t)d : INT64_MIN;
}
CT__INLINE int32_t ct__trunc_i32(double d)
{
    return (d > -2147483649.0 && d < 2147483648.0) ? (int32_t)d : INT32_MIN;
}

/* Storing converts with c10::convert's rules: integers wrap to the low bits,
 * floats truncate through a 32-bit conversion (int8, int16, int32) or a 64-bit
 * one (uint8, int64), float16 and bfloat16 go through float. */
CT__INLINE ct__b8_t ct__to_b8_from_i64(int64_t v) { return v != 0; }
CT__INLINE ct__b8_t ct__to_b8_from_f64(double v) { return v != 0; }
CT__INLINE ct__u8_t ct__to_u8_from_i64(int64_t v) { return (ct__u8_t)(uint64_t)v; }
CT__INLINE ct__u8_t ct__to_u8_from_f64(double v) { return (ct__u8_t)(uint64_t)ct__trunc_i64(v); }
CT__INLINE ct__i8_t ct__to_i8_from_i64(int64_t v) { return (ct__i8_t)(uint8_t)(uint64_t)v; }
CT__INLINE ct__i8_t ct__to_i8_from_f64(double v) { return (ct__i8_t)(uint8_t)(uint32_t)ct__trunc_i32(v); }
CT__INLINE ct__i16_t ct__to_i16_from_i64(int64_t v) { return (ct__i16_t)(uint16_t)(uint64_t)v; }
CT__INLINE ct__i16_t ct__to_i16_from_f64(double v) { return (ct__i16_t)(uint16_t)(uint32_t)ct__trunc_i32(v); }
CT__INLINE ct__i32_t ct__to_i32_from_i64(int64_t v) { return (ct__i32_t)(uint32_t)(uint64_t)v; }
CT__INLINE ct__i32_t ct__to_i32_from_f64(double v) { return ct__trunc_i32(v); }
CT__INLINE ct__i64_t ct__to_i64_from_i64(int64_t v) { return v; }
CT__INLINE ct__i64_t ct__to_i64_from_f64(double v) { return ct__trunc_i64(v); }
CT__INLINE ct__f16_t ct__to_f16_from_i64(int64_t v) { return ct__float_to_f16((float)v); }
CT__INLINE ct__f16_t ct__to_f16_from_f64(double v) { return ct__float_to_f16((float)v); }
CT__INLINE ct__bf16_t ct__to_bf16_from_i64(int64_t v) { return ct__float_to_bf16((float)v); }
CT__INLINE ct__bf16_t ct__to_bf16_from_f64(double v) { return ct__float_to_bf16((float)v); }
CT__INLINE ct__f32_t ct__to_f32_from_i64(int64_t v) { return (float)v; }
CT__INLINE ct__f32_t ct__to_f32_from_f64(double v) { return (float)v; }
CT__INLINE ct__f64_t ct__to_f64_from_i64(int64_t v) { return (double)v; }
CT__INLINE ct__f64_t ct__to_f64_from_f64(double v) { return v; }

/* CT__CONVERT(src, dst, x): one element of dtype `src` as dtype `dst`. */
#define CT__CONVERT(src, dst, x) CT__CAT(ct__to_##dst##_from_, ct__wide_##src)(ct__load_##src(x))
