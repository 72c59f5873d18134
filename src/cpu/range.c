/* arange, linspace and logspace on the CPU.
 *
 * PyTorch fills these with vectorised kernels whose lanes compute
 * `base + k * step` from a base rounded to the output dtype, so elements can
 * differ in the last bit from `start + i * step`. To give the same numbers we
 * follow the same structure: on AVX2 (PyTorch's CPU capability on x86) a
 * vector holds 32 bytes, the kernel fills two vectors at a time while at
 * least two remain, and the tail elements one by one. Arithmetic "in dtype T"
 * is done in double and rounded to T after each operation, which gives T's
 * own result for float, half and bfloat16 (double has over twice their
 * precision, so the double rounding is harmless). */

static int64_t ct__vec_lanes(ct_dtype dt) { return 32 / (int64_t)ct_dtype_size(dt); }

/* x rounded to the floating dtype dt (float64: unchanged). */
static double ct__round_to(double x, ct_dtype dt)
{
    switch (dt) {
    case CT_F32: return (float)x;
    case CT_F16: return ct__f16_to_float(ct__float_to_f16((float)x));
    case CT_BF16: return ct__bf16_to_float(ct__float_to_bf16((float)x));
    default: return x;
    }
}

/* The range kernels' element i: forward from `start`, or backward from `end`
 * for linspace's second half. `acc` is the dtype the arithmetic rounds to. */
typedef struct ct__range {
    double start, step, end;
    int64_t steps, halfway; /* linspace only: halfway = steps / 2, else n */
    ct_dtype acc;
} ct__range;

static double ct__range_at(const ct__range *r, int64_t i)
{
    if (i < r->halfway) return ct__round_to(r->start + ct__round_to(r->step * (double)i, r->acc), r->acc);
    return ct__round_to(r->end - ct__round_to(r->step * (double)(r->steps - i - 1), r->acc), r->acc);
}

/* Fill t (1-D, contiguous, floating) the way cpu_serial_kernel_vec does. */
static void ct__range_fill(ct_tensor *t, const ct__range *r)
{
    int64_t n = t->sizes[0], V = ct__vec_lanes(t->dtype), i = 0;
    char *p = (char *)ct__data(t);
    size_t es = ct__esize(t);
    for (; n >= 2 * V && i <= n - 2 * V; i += V) {
        /* a vector: base = element i in the dtype, lane k = base + k * step */
        double base = ct__round_to(ct__range_at(r, i), t->dtype);
        for (int64_t k = 0; k < V; k++)
            ct__write_f64(p + (size_t)(i + k) * es, t->dtype,
                          ct__round_to(base + ct__round_to((double)k * r->step, r->acc), r->acc));
    }
    for (; i < n; i++) ct__write_f64(p + (size_t)i * es, t->dtype, ct__range_at(r, i));
}

static int64_t ct__scalar_trunc_i64(ct_scalar s)
{
    return s.kind == CT_F64 ? ct__trunc_i64(s.v.f) : s.kind == CT_BOOL ? (int64_t)s.v.b : s.v.i;
}

static void ct__cpu_arange(ct_tensor *t, ct_scalar start, ct_scalar step)
{
    int64_t n = t->sizes[0];
    if (!ct_dtype_is_floating(t->dtype)) { /* int64 arithmetic, wrapping as two's complement */
        uint64_t s = (uint64_t)ct__scalar_trunc_i64(start), d = (uint64_t)ct__scalar_trunc_i64(step);
        char *p = (char *)ct__data(t);
        for (int64_t i = 0; i < n; i++) ct__write_i64(p + (size_t)i * ct__esize(t), t->dtype, (int64_t)(s + d * (uint64_t)i));
        return;
    }
    ct__range r;
    r.acc = t->dtype == CT_F32 || t->dtype == CT_F64 ? CT_F64 : CT_F32; /* acc_type on the CPU */
    r.start = ct__round_to(ct_scalar_to_double(start), r.acc);
    r.step = ct__round_to(ct_scalar_to_double(step), r.acc);
    r.end = 0;
    r.steps = r.halfway = n;
    ct__range_fill(t, &r);
}

static void ct__cpu_linspace(ct_tensor *t, double start, double end)
{
    int64_t n = t->sizes[0];
    if (n == 0) return;
    if (!ct_dtype_is_floating(t->dtype)) { /* step in double, values truncated */
        double s = (double)ct__trunc_i64(start), e = (double)ct__trunc_i64(end);
        double step = n > 1 ? (e - s) / (double)(n - 1) : 0;
        char *p = (char *)ct__data(t);
        for (int64_t i = 0; i < n; i++) {
            double v = i < n / 2 ? s + step * (double)i : e - step * (double)(n - i - 1);
            ct__write_f64(p + (size_t)i * ct__esize(t), t->dtype, v);
        }
        return;
    }
    ct__range r;
    r.acc = t->dtype; /* linspace steps in the output dtype itself */
    r.start = ct__round_to(start, r.acc);
    r.end = ct__round_to(end, r.acc);
    r.step = n > 1 ? ct__round_to((r.end - r.start) / (double)(n - 1), r.acc) : 0;
    r.steps = n;
    r.halfway = n / 2;
    ct__range_fill(t, &r);
}

static void ct__cpu_logspace(ct_tensor *t, double start, double end, double base)
{
    int64_t n = t->sizes[0];
    char *p = (char *)ct__data(t);
    size_t es = ct__esize(t);
    bool integral = !ct_dtype_is_floating(t->dtype);
    if (n == 1) {
        ct__write_f64(p, t->dtype, pow(base, start));
        return;
    }
    /* start and end as the dtype holds them; the exponent steps in double */
    double s = integral ? (double)ct__trunc_i64(start) : ct__round_to(start, t->dtype);
    double e = integral ? (double)ct__trunc_i64(end) : ct__round_to(end, t->dtype);
    double b = integral ? (double)(float)base : base, step = (e - s) / (double)(n - 1);
    for (int64_t i = 0; i < n; i++) {
        double x = i < n / 2 ? s + step * (double)i : e - step * (double)(n - i - 1);
        ct__write_f64(p + (size_t)i * es, t->dtype, pow(b, x));
    }
}
