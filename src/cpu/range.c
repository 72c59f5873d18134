/* arange, linspace and logspace on the CPU, element for element as PyTorch
 * 1.13's x86 build (CPU capability AVX2) computes them.
 *
 * PyTorch fills arange and linspace with cpu_serial_kernel_vec: each chunk of
 * at::parallel_for (grain 32768) writes two 32-byte vectors at a time while
 * two fit, then the rest one element at a time. The scalar loop computes
 * element i from scratch; a vector computes its first element the same way,
 * rounds it to the output dtype, and steps its other lanes from that base, so
 * the two loops can differ in the last bit. Where each operation rounds, and
 * which products the compiler fused with the following addition into one FMA,
 * differs between the kernels and dtypes; ct__range_elem and ct__range_lane
 * record what was measured against PyTorch. logspace is a plain loop. */

/* a*b rounded on its own. PyTorch's kernel rounds these products before
 * adding; the volatile keeps a compiler that contracts a*b+c into an FMA
 * (gcc outside ISO C mode) from fusing them. */
static double ct__mul_rounded(double a, double b)
{
    volatile double p = a * b;
    return p;
}

static float ct__mulf_rounded(float a, float b)
{
    volatile float p = a * b;
    return p;
}

/* x rounded to half or bfloat16 (held in a float): what every operation on
 * c10::Half and c10::BFloat16 does to its float result. */
static float ct__round_half(float x, ct_dtype dt)
{
    return dt == CT_F16 ? ct__f16_to_float(ct__float_to_f16(x)) : ct__bf16_to_float(ct__float_to_bf16(x));
}

/* x rounded to the floating dtype dt. */
static double ct__round_to(double x, ct_dtype dt)
{
    switch (dt) {
    case CT_F32: return (float)x;
    case CT_F16: case CT_BF16: return ct__round_half((float)x, dt);
    default: return x;
    }
}

typedef enum ct__range_op { CT__ARANGE, CT__LINSPACE } ct__range_op;

/* One arange or linspace fill. start, end and step hold the values the kernel
 * computes with: arange's in its accumulate type (double for float32 and
 * float64, float for half and bfloat16), linspace's in the output dtype
 * (double for integers). */
typedef struct ct__range {
    ct__range_op op;
    ct_dtype dtype;
    char *data;
    double start, end, step;
    int64_t steps, halfway; /* linspace computes elements from halfway on back from end */
} ct__range;

/* Element i as the scalar loop computes it (start + step * i, or linspace's
 * end - step * (steps - i - 1)), before the store rounds it to the dtype. */
static double ct__range_elem(const ct__range *r, int64_t i)
{
    bool back = i >= r->halfway;
    double from = back ? r->end : r->start;
    /* end - step * k taken as end + step * -k: the same number, and a NaN
     * step keeps its sign, as x86's subtraction keeps it */
    double k = back ? -(double)(r->steps - i - 1) : (double)i;
    switch (r->dtype) {
    case CT_F16:
    case CT_BF16:
        if (r->op == CT__ARANGE) return fmaf((float)r->step, (float)k, (float)from); /* in float, fused */
        /* in the dtype: k, the product and the sum each rounded to it */
        return ct__round_half((float)from + ct__round_half((float)r->step * ct__round_half((float)k, r->dtype), r->dtype),
                              r->dtype);
    case CT_F32:
        if (r->op == CT__ARANGE) return fma(r->step, k, from); /* in double, fused */
        return fmaf((float)r->step, (float)k, (float)from);
    default: /* float64, and integer linspace: in double, fused */
        return fma(r->step, k, from);
    }
}

/* Lane k of a vector whose first element, as stored, is base. */
static double ct__range_lane(const ct__range *r, double base, int64_t k)
{
    switch (r->dtype) {
    case CT_F16:
    case CT_BF16:
        if (r->op == CT__ARANGE) return (float)base + ct__mulf_rounded((float)k, (float)r->step);
        return ct__round_half((float)base + ct__round_half(ct__round_half((float)k, r->dtype) * (float)r->step, r->dtype),
                              r->dtype);
    case CT_F32:
        if (r->op == CT__ARANGE) return fma((double)k, r->step, base);
        return (float)base + ct__mulf_rounded((float)k, (float)r->step);
    case CT_F64:
        if (r->op == CT__ARANGE) return fma((double)k, r->step, base);
        return base + ct__mul_rounded((double)k, r->step);
    default:
        return base + ct__mul_rounded((double)k, r->step);
    }
}

/* The vector of lanes elements from i: its base computed and stored as
 * element i, the other lanes stepped from the stored base. */
static void ct__range_vector(const ct__range *r, int64_t i, int64_t lanes)
{
    size_t es = ct_dtype_size(r->dtype);
    char *p = r->data + (size_t)i * es;
    ct__write_f64(p, r->dtype, ct__range_elem(r, i));
    double base = ct__read_f64(p, r->dtype);
    for (int64_t k = 1; k < lanes; k++) ct__write_f64(p + (size_t)k * es, r->dtype, ct__range_lane(r, base, k));
}

/* Elements [begin, end) of one parallel_for chunk: pairs of vectors while a
 * pair fits, then the scalar loop. */
static void ct__range_chunk(int64_t begin, int64_t end, void *ctx)
{
    const ct__range *r = (const ct__range *)ctx;
    size_t es = ct_dtype_size(r->dtype);
    int64_t lanes = 32 / (int64_t)es, i = begin; /* AVX2 vectors hold 32 bytes */
    for (; end - i >= 2 * lanes; i += 2 * lanes) {
        ct__range_vector(r, i, lanes);
        ct__range_vector(r, i + lanes, lanes);
    }
    for (; i < end; i++) ct__write_f64(r->data + (size_t)i * es, r->dtype, ct__range_elem(r, i));
}

static void ct__range_run(ct_tensor *t, const ct__range *r)
{
    ct__parallel_for(t->sizes[0], CT__GRAIN, ct__range_chunk, (void *)r);
}

/* start and step come in the kernel's accumulate type (see ct_arange). */
static void ct__cpu_arange(ct_tensor *t, ct_scalar start, ct_scalar step)
{
    int64_t n = t->sizes[0];
    if (!ct_dtype_is_floating(t->dtype)) { /* int64 arithmetic wraps, in vectors or not */
        uint64_t s = (uint64_t)start.v.i, d = (uint64_t)step.v.i;
        for (int64_t i = 0; i < n; i++)
            ct__write_i64((char *)ct__data(t) + (size_t)i * ct__esize(t), t->dtype, (int64_t)(s + d * (uint64_t)i));
        return;
    }
    ct__range r;
    r.op = CT__ARANGE;
    r.dtype = t->dtype;
    r.data = (char *)ct__data(t);
    r.start = ct_scalar_to_double(start);
    r.step = ct_scalar_to_double(step);
    r.end = 0;
    r.steps = r.halfway = n;
    ct__range_run(t, &r);
}

/* linspace's step, computed in the output dtype (double for integers). */
static double ct__linspace_step(double start, double end, int64_t steps, ct_dtype dt)
{
    switch (dt) {
    case CT_F16:
    case CT_BF16:
        return ct__round_half(ct__round_half((float)end - (float)start, dt) / ct__round_half((float)(steps - 1), dt), dt);
    case CT_F32:
        return ((float)end - (float)start) / (float)(steps - 1);
    default:
        return (end - start) / (double)(steps - 1);
    }
}

/* start and end come as the dtype holds them; steps >= 2. */
static void ct__cpu_linspace(ct_tensor *t, double start, double end)
{
    ct__range r;
    r.op = CT__LINSPACE;
    r.dtype = t->dtype;
    r.data = (char *)ct__data(t);
    r.start = start;
    r.end = end;
    r.steps = t->sizes[0];
    r.halfway = r.steps / 2;
    r.step = ct__linspace_step(start, end, r.steps, t->dtype);
    ct__range_run(t, &r);
}

typedef struct ct__logspace {
    char *data;
    ct_dtype dtype;
    double start, end, step, base;
    int64_t steps;
} ct__logspace;

/* Elements [begin, end): base ** exponent, the exponent computed in double
 * without FMA, the power stored as C++ stores a double in the dtype (through
 * a 32-bit integer for uint8, unlike c10::convert). */
static void ct__logspace_chunk(int64_t begin, int64_t end, void *ctx)
{
    const ct__logspace *g = (const ct__logspace *)ctx;
    size_t es = ct_dtype_size(g->dtype);
    for (int64_t i = begin; i < end; i++) {
        double x = i < g->steps / 2 ? g->start + ct__mul_rounded(g->step, (double)i)
                                    : g->end - ct__mul_rounded(g->step, (double)(g->steps - i - 1));
        double v = pow(g->base, x);
        char *p = g->data + (size_t)i * es;
        if (g->dtype == CT_U8) ct__write_i64(p, g->dtype, ct__trunc_i32(v));
        else ct__write_f64(p, g->dtype, v);
    }
}

/* start and end come as the dtype holds them; steps >= 2. */
static void ct__cpu_logspace(ct_tensor *t, double start, double end, double base)
{
    ct__logspace g;
    g.data = (char *)ct__data(t);
    g.dtype = t->dtype;
    g.start = start;
    g.end = end;
    g.base = base;
    g.steps = t->sizes[0];
    /* end - start in the dtype: integers subtract exactly (int64 wraps),
     * floating types round the difference to themselves */
    double diff = ct_dtype_is_floating(t->dtype) ? ct__round_to(end - start, t->dtype)
                                                  : (double)(int64_t)((uint64_t)ct__trunc_i64(end) - (uint64_t)ct__trunc_i64(start));
    g.step = diff / (double)(g.steps - 1);
    ct__parallel_for(g.steps, CT__GRAIN, ct__logspace_chunk, &g);
}

static void ct__cpu_range(const ct__range_job *job)
{
    switch (job->kind) {
    case CT__RANGE_ARANGE: ct__cpu_arange(job->out, job->start, job->step); break;
    case CT__RANGE_LINSPACE: ct__cpu_linspace(job->out, job->begin, job->end); break;
    case CT__RANGE_LOGSPACE: ct__cpu_logspace(job->out, job->begin, job->end, job->base); break;
    }
}
