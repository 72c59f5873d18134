/* The CPU's samplers: PyTorch's CPU kernels reproduced draw for draw from
 * the mt19937 generator (src/tensor/random.c), so that a seed gives
 * PyTorch's numbers. A uniform of a floating dtype takes the low `digits`
 * bits of one draw (24 for float, 53 for double from a 64-bit draw, 11 for
 * half, 8 for bfloat16) scaled by 2^-digits. The serial kernels fill their
 * output in TensorIterator order, which ct__iter reproduces. Where PyTorch
 * computes in a narrower type (float, half, bfloat16) we compute in double
 * and round to it after each operation, which gives the same result for
 * + - * / and sqrt (double has over twice their precision); PyTorch's AVX2
 * kernels fuse some multiply-adds, and so does fma() here, in the same places. */

static const double ct__pi = 3.14159265358979323846;

/* uniform_real_distribution<T>(from, to), from and to already of dtype dt:
 * a float result for float, half and bfloat16 (PyTorch's dist_acctype). */
static double ct__uniform(ct_generator *g, ct_dtype dt, double from, double to)
{
    if (dt == CT_F64) {
        double x = (double)(ct__rand64(g) & ((1ULL << 53) - 1)) * 0x1p-53;
        return from == 0 && to == 1 ? x : fma(x, to - from, from); /* x * 1 + 0 is x: skip the fma */
    }
    uint32_t bits = ct__rand32(g);
    float x = dt == CT_F32 ? (float)(bits & 0xffffff) * 0x1p-24f
            : dt == CT_F16 ? (float)(bits & 0x7ff) * 0x1p-11f : (float)(bits & 0xff) * 0x1p-8f;
    return from == 0 && to == 1 ? x : fmaf(x, (float)ct__round_to(to - from, dt), (float)from);
}

/* normal_distribution<double>: Box-Muller on two 53-bit uniforms, the second
 * sample kept for the next call. */
static double ct__normal(ct_generator *g, double mean, double std)
{
    double z;
    if (g->has_normal) {
        g->has_normal = false;
        z = g->normal;
    } else {
        double u1 = ct__uniform(g, CT_F64, 0, 1), u2 = ct__uniform(g, CT_F64, 0, 1);
        double r = sqrt(-2.0 * log(1.0 - u2)), theta = 2.0 * ct__pi * u1;
        g->normal = r * sin(theta);
        g->has_normal = true;
        z = r * cos(theta);
    }
    return fma(z, std, mean);
}

/* One element drawn into `elem` (of dtype dt); arg holds the distribution's parameters. */
typedef void (*ct__draw_fn)(ct_generator *g, const void *arg, char *elem, ct_dtype dt);

typedef struct ct__fill {
    ct_generator *g;
    ct_dtype dtype;
    ct__draw_fn draw;
    const void *arg;
} ct__fill;

static void ct__fill_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const ct__fill *f = (const ct__fill *)ctx;
    for (int64_t i = 0; i < n; i++) f->draw(f->g, f->arg, data[0] + i * strides[0], f->dtype);
}

/* Fill t one draw per element in TensorIterator order (cpu_serial_kernel). */
static void ct__fill_serial(ct_tensor *t, ct_generator *g, ct__draw_fn draw, const void *arg)
{
    ct__iter it;
    const ct_tensor *ops[1];
    ct__fill f;
    ops[0] = t;
    f.g = g;
    f.dtype = t->dtype;
    f.draw = draw;
    f.arg = arg;
    ct__iter_init(&it, 1, ops);
    ct__iter_serial(&it, ct__fill_loop, &f);
}

/* arg: {from, to} of dtype dt */
static void ct__draw_uniform(ct_generator *g, const void *arg, char *elem, ct_dtype dt)
{
    const double *a = (const double *)arg;
    ct__write_f64(elem, dt, ct__uniform(g, dt, a[0], a[1]));
}

/* arg: {mean, std} */
static void ct__draw_normal(ct_generator *g, const void *arg, char *elem, ct_dtype dt)
{
    const double *a = (const double *)arg;
    ct__write_f64(elem, dt, ct__normal(g, a[0], a[1]));
}

/* arg: lambda */
static void ct__draw_exponential(ct_generator *g, const void *arg, char *elem, ct_dtype dt)
{
    double u = ct__uniform(g, CT_F64, 0, 1);
    ct__write_f64(elem, dt, -1.0 / *(const double *)arg * log(1.0 - u));
}

/* arg: p */
static void ct__draw_bernoulli(ct_generator *g, const void *arg, char *elem, ct_dtype dt)
{
    ct__write_f64(elem, dt, ct__uniform(g, CT_F64, 0, 1) < *(const double *)arg);
}

/* arg: {range, base, whether to draw 64 bits}; (draw % range + base) wraps
 * in uint64 and is then read as an int64, as uniform_int_from_to does. A
 * range of 0 stands for 2**64: the draw as it is (uniform_int_full_range). */
static void ct__draw_int(ct_generator *g, const void *arg, char *elem, ct_dtype dt)
{
    const uint64_t *a = (const uint64_t *)arg;
    uint64_t v = a[2] ? ct__rand64(g) : ct__rand32(g);
    ct__write_i64(elem, dt, (int64_t)((a[0] ? v % a[0] : v) + a[1]));
}

/* log256_ps of avx_mathfun.h (cephes' logf) on one lane, with the
 * multiply-adds that GCC fuses there. x is 1 - u for a uniform u: in
 * [2^-24, 1], clear of the zeros and denormals that log256_ps also handles. */
static float ct__avx_logf(float x)
{
    static const float p[9] = {7.0376836292E-2f, -1.1514610310E-1f, 1.1676998740E-1f,
                               -1.2420140846E-1f, 1.4249322787E-1f, -1.6668057665E-1f,
                               2.0000714765E-1f, -2.4999993993E-1f, 3.3333331174E-1f};
    uint32_t bits;
    memcpy(&bits, &x, 4);
    float e = (float)((int32_t)(bits >> 23) - 0x7f) + 1.0f;
    bits = (bits & ~0x7f800000u) | 0x3f000000u; /* the mantissa as a number in [0.5, 1) */
    memcpy(&x, &bits, 4);
    float tmp = 0.0f;
    if (x < 0.707106781186547524f) {
        tmp = x;
        e -= 1.0f;
    }
    x = x - 1.0f;
    x = x + tmp;
    float z = x * x, y = p[0];
    for (int i = 1; i < 9; i++) y = fmaf(y, x, p[i]);
    y = y * x;
    y = fmaf(y, z, e * -2.12194440e-4f);
    y = fmaf(-z, 0.5f, y);
    return fmaf(e, 0.693359375f, x + y);
}

/* sincos256_ps of avx_mathfun.h (cephes' sinf and cosf) on one lane, for
 * x = 2 pi u >= 0 (the sign handling of negative x is left out). */
static void ct__avx_sincosf(float x, float *s, float *c)
{
    int32_t j = (int32_t)(x * 1.27323954473516f); /* 4/pi */
    j = (j + 1) & ~1;
    float y = (float)j;
    uint32_t sign_sin = (j & 4) ? 0x80000000u : 0;
    uint32_t sign_cos = (~(uint32_t)(j - 2) & 4) ? 0x80000000u : 0;
    bool sin_poly = (j & 2) == 0; /* the sine polynomial serves the sine */
    x = fmaf(y, -0.78515625f, x);
    x = fmaf(y, -2.4187564849853515625e-4f, x);
    x = fmaf(y, -3.77489497744594108e-8f, x);
    float z = x * x;
    float yc = fmaf(2.443315711809948E-005f, z, -1.388731625493765E-003f);
    yc = fmaf(yc, z, 4.166664568298827E-002f);
    yc = yc * z;
    yc = fmaf(yc, z, -(z * 0.5f));
    yc = yc + 1.0f;
    float ys = fmaf(-1.9515295891E-4f, z, 8.3321608736E-3f);
    ys = fmaf(ys, z, -1.6666654611E-1f);
    ys = ys * z;
    ys = fmaf(ys, x, x);
    /* the lanes add the unused polynomial's zero: -0 becomes +0 */
    float vs = (sin_poly ? ys : yc) + 0.0f, vc = (sin_poly ? yc : ys) + 0.0f;
    uint32_t b;
    memcpy(&b, &vs, 4);
    b ^= sign_sin;
    memcpy(s, &b, 4);
    memcpy(&b, &vc, 4);
    b ^= sign_cos;
    memcpy(c, &b, 4);
}

/* Box-Muller on 16 uniforms in place: v[j] and v[j + 8] become the cosine and
 * sine samples of the pair (1 - v[j], v[j + 8]) (normal_fill_16 and, for
 * float, normal_fill_16_AVX2). v holds values of dtype dt. */
static void ct__normal16(double *v, ct_dtype dt, double mean, double std)
{
    for (int j = 0; j < 8; j++) {
        double u1 = ct__round_to(1.0 - v[j], dt), u2 = v[j + 8];
        if (dt == CT_F64) {
            double radius = sqrt(-2.0 * log(u1)), theta = 2.0 * ct__pi * u2;
            v[j] = fma(radius * cos(theta), std, mean);
            v[j + 8] = fma(radius * sin(theta), std, mean);
        } else if (dt == CT_F32) {
            float radius = sqrtf(-2.0f * ct__avx_logf((float)u1)), s, c;
            ct__avx_sincosf((float)(2.0 * ct__pi) * (float)u2, &s, &c);
            v[j] = fmaf(radius * c, (float)std, (float)mean);
            v[j + 8] = fmaf(radius * s, (float)std, (float)mean);
        } else if (dt == CT_F16) { /* half has no math functions: float's, and float arithmetic */
            double radius = ct__round_to(sqrtf(-2.0f * logf((float)u1)), dt);
            float theta = (float)ct__round_to(2.0 * ct__pi * u2, dt);
            v[j] = fmaf((float)radius * cosf(theta), (float)std, (float)mean);
            v[j + 8] = fmaf((float)radius * sinf(theta), (float)std, (float)mean);
        } else { /* bfloat16 has its own functions (BFloat16-math.h): every step rounds */
            double radius = ct__round_to(sqrtf((float)ct__round_to(-2.0 * ct__round_to(logf((float)u1), dt), dt)), dt);
            float theta = (float)ct__round_to(2.0 * ct__pi * u2, dt);
            double c = ct__round_to(cosf(theta), dt), s = ct__round_to(sinf(theta), dt);
            v[j] = ct__round_to(ct__round_to(ct__round_to(radius * c, dt) * std, dt) + mean, dt);
            v[j + 8] = ct__round_to(ct__round_to(ct__round_to(radius * s, dt) * std, dt) + mean, dt);
        }
    }
}

/* Transform the 16 elements at p (uniforms of dtype dt) in place. */
static void ct__normal16_at(char *p, ct_dtype dt, size_t es, double mean, double std)
{
    double v[16];
    for (int j = 0; j < 16; j++) v[j] = ct__read_f64(p + j * es, dt);
    ct__normal16(v, dt, mean, std);
    for (int j = 0; j < 16; j++) ct__write_f64(p + j * es, dt, v[j]);
}

/* normal_fill: uniforms for every element first, then Box-Muller on blocks of
 * 16; a last partial block is redone on the last 16 elements with fresh draws. */
static void ct__normal_fill(ct_tensor *t, ct_generator *g, double mean, double std)
{
    ct_dtype dt = t->dtype;
    int64_t n = ct_numel(t), i;
    size_t es = ct__esize(t);
    char *p = ct__data(t);
    mean = ct__round_to(mean, dt);
    std = ct__round_to(std, dt);
    for (i = 0; i < n; i++) ct__write_f64(p + (size_t)i * es, dt, ct__uniform(g, dt, 0, 1));
    for (i = 0; i + 16 <= n; i += 16) ct__normal16_at(p + (size_t)i * es, dt, es, mean, std);
    if (n % 16) {
        p += (size_t)(n - 16) * es;
        for (i = 0; i < 16; i++) ct__write_f64(p + (size_t)i * es, dt, ct__uniform(g, dt, 0, 1));
        ct__normal16_at(p, dt, es, mean, std);
    }
}

/* normal_kernel's draws: normal_fill for 16 contiguous elements or more,
 * else one draw per element. */
static void ct__normal_draws(ct_tensor *t, ct_generator *g, double mean, double std)
{
    if (ct_numel(t) >= 16 && ct__is_contiguous(t)) {
        ct__normal_fill(t, g, mean, std);
    } else {
        double arg[2] = {mean, std};
        ct__fill_serial(t, g, ct__draw_normal, arg);
    }
}

/* bernoulli with a tensor of probabilities: one draw per output element, a
 * 53-bit uniform against a double p, a 24-bit one against any other. */
typedef struct ct__bern {
    ct_generator *g;
    ct_dtype out, p;
    bool bad; /* a p outside [0, 1] stops the kernel, as its TORCH_CHECK does */
} ct__bern;

static void ct__bern_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    ct__bern *b = (ct__bern *)ctx;
    for (int64_t i = 0; i < n && !b->bad; i++) {
        double p = ct__read_f64(data[1] + i * strides[1], b->p);
        if (!(p >= 0 && p <= 1)) {
            b->bad = true;
            break;
        }
        ct_dtype u = b->p == CT_F64 ? CT_F64 : CT_F32;
        ct__write_f64(data[0] + i * strides[0], b->out, ct__uniform(b->g, u, 0, 1) < p);
    }
}

/* The draws of bernoulli(p) into out (p's shape), or PyTorch's error for a
 * probability outside [0, 1]. */
static ct_result ct__bernoulli_draws(ct_tensor *out, const ct_tensor *p, ct_generator *g)
{
    ct__iter it;
    const ct_tensor *ops[2] = {out, p};
    ct__bern b = {g, out->dtype, p->dtype, false};
    ct__iter_init(&it, 2, ops);
    ct__iter_serial(&it, ct__bern_loop, &b);
    if (b.bad)
        return ct__fail(CT_ERR_RUNTIME, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this "
                                        "error message be improved?  If so, please report an enhancement request "
                                        "to PyTorch.)");
    return CT_OK;
}

/* An element of any dtype converted to dtype `to` (c10::convert), as a double. */
static double ct__read_as(const char *p, ct_dtype from, ct_dtype to)
{
    uint64_t elem = 0;
    if (ct_dtype_is_floating(from)) ct__write_f64(&elem, to, ct__read_f64(p, from));
    else ct__write_i64(&elem, to, ct__read_i64(p, from));
    return ct__read_f64(&elem, to);
}

/* out = out * std + mean, as out.mul_(std).add_(mean): two ops, each rounded to out's dtype. */
typedef struct ct__scale {
    ct_dtype out, std, mean, mul; /* mul: the dtype mul_ computes in */
} ct__scale;

static void ct__scale_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const ct__scale *s = (const ct__scale *)ctx;
    for (int64_t i = 0; i < n; i++) {
        char *o = data[0] + i * strides[0];
        double x = ct__read_as(o, s->out, s->mul) * ct__read_as(data[1] + i * strides[1], s->std, s->mul);
        x = ct__round_to(ct__round_to(x, s->mul), s->out);
        ct__write_f64(o, s->out, x + ct__read_f64(data[2] + i * strides[2], s->mean));
    }
}

/* normal(mean, std)'s draws: standard normals into out, then out * std + mean. */
static void ct__normal_tensor_draws(ct_tensor *out, const ct_tensor *mean, const ct_tensor *std, ct_generator *g)
{
    ct__normal_draws(out, g, 0, 1);
    ct__iter it;
    const ct_tensor *ops[3] = {out, std, mean};
    const ct_tensor *pair[2] = {out, std};
    ct__scale s = {out->dtype, std->dtype, mean->dtype, ct__result_type(pair, 2)};
    ct__iter_init(&it, 3, ops);
    ct__iter_serial(&it, ct__scale_loop, &s);
}

/* randperm's draws: Fisher-Yates from the front, a 32-bit draw modulo what is left. */
static void ct__randperm_draws(ct_tensor *t, ct_generator *g)
{
    int64_t n = t->sizes[0];
    char *p = ct__data(t), tmp[8];
    size_t es = ct__esize(t);
    for (int64_t i = 0; i < n; i++) ct__write_i64(p + (size_t)i * es, t->dtype, i);
    for (int64_t i = 0; i < n - 1; i++) {
        int64_t z = (int64_t)ct__rand32(g) % (n - i);
        memcpy(tmp, p + (size_t)i * es, es);
        memcpy(p + (size_t)i * es, p + (size_t)(z + i) * es, es);
        memcpy(p + (size_t)(z + i) * es, tmp, es);
    }
}

/* Without replacement PyTorch takes topk (or argmax) of p / q with q ~ Exp(1).
 * Equal values (zero probabilities) keep the order topk's libstdc++
 * algorithms leave them in, so the keys go through sort.c's replay of them:
 * flipped, so that the largest comes first, NaN before everything, as in
 * topk's comparator. */

/* argmax of a row: the first largest, a NaN before all. */
static int64_t ct__argmax_row(const ct__sort_kv *a, int64_t n)
{
    int64_t best = 0;
    for (int64_t j = 1; j < n; j++)
        if (a[j].key < a[best].key) best = j;
    return best;
}

/* topk(k) of a row, largest first, sorted, into out (indices). */
static void ct__topk_row(ct__sort_kv *a, int64_t n, int64_t k, int64_t *out)
{
    ct__std_topk(a, n, k, true);
    for (int64_t j = 0; j < k; j++) out[j] = a[j].idx;
}

/* Row i of a 1-D or 2-D tensor t, element j. */
static const char *ct__row_elem(const ct_tensor *t, int64_t i, int64_t j)
{
    int64_t off = t->ndim == 2 ? i * t->strides[0] + j * t->strides[1] : j * t->strides[0];
    return ct__data(t) + off * (int64_t)ct__esize(t);
}

static ct_result ct__multinomial_no_replacement(const ct_tensor *p, int64_t k, ct_tensor *out, ct_generator *g)
{
    int64_t rows = out->ndim == 2 ? out->sizes[0] : 1, cats = p->sizes[p->ndim - 1];
    bool valid = true, zero_row = false;
    for (int64_t i = 0; i < rows; i++) {
        bool any = false;
        for (int64_t j = 0; j < cats; j++) {
            double v = ct__read_f64(ct__row_elem(p, i, j), p->dtype);
            valid = valid && v >= 0 && v < INFINITY;
            any = any || v > 0;
        }
        zero_row = zero_row || !any;
    }
    if (!valid) return ct__fail(CT_ERR_RUNTIME, "probability tensor contains either `inf`, `nan` or element < 0");
    if (zero_row) return ct__fail(CT_ERR_RUNTIME, "invalid multinomial distribution (sum of probabilities <= 0)");
    ct_scope s = ct_scope_begin();
    ct_tensor *q = ct__empty_like(p, CT_DEFAULT);
    ct__sort_kv *a = (ct__sort_kv *)CT_MALLOC((size_t)cats * sizeof *a);
    const double one = 1;
    ct_result r = !q || !a ? CT__OOM() : CT_OK;
    if (r == CT_OK) ct__fill_serial(q, g, ct__draw_exponential, &one); /* exponential_(1) */
    for (int64_t i = 0; r == CT_OK && i < rows; i++) {
        for (int64_t j = 0; j < cats; j++) {
            double pv = ct__read_f64(ct__row_elem(p, i, j), p->dtype), qv = ct__read_f64(ct__row_elem(q, i, j), q->dtype);
            a[j].key = ~ct__key_f64(ct__round_to(pv / qv, p->dtype));
            a[j].idx = j;
        }
        int64_t *o = (int64_t *)(void *)ct__data(out) + i * k;
        if (k == 1) *o = ct__argmax_row(a, cats);
        else ct__topk_row(a, cats, k, o);
    }
    CT_FREE(a);
    ct_scope_end(s);
    return r;
}

/* With replacement: per row, the cumulative distribution (in float for
 * bfloat16, else in the input's dtype), normalised, then a binary search for
 * each 53-bit uniform. */
static ct_result ct__multinomial_replacement(const ct_tensor *p, int64_t k, ct_tensor *out, ct_generator *g)
{
    int64_t rows = out->ndim == 2 ? out->sizes[0] : 1, cats = p->sizes[p->ndim - 1];
    ct_dtype dt = p->dtype == CT_BF16 ? CT_F32 : p->dtype;
    double *cum = (double *)CT_MALLOC((size_t)(cats ? cats : 1) * sizeof *cum);
    if (!cum) return CT__OOM();
    ct_result r = CT_OK;
    for (int64_t i = 0; i < rows && r == CT_OK; i++) {
        double sum = 0;
        for (int64_t j = 0; j < cats && r == CT_OK; j++) {
            double v = ct__read_f64(ct__row_elem(p, i, j), p->dtype);
            if (!(v >= 0)) r = ct__fail(CT_ERR_RUNTIME, "invalid multinomial distribution (encountering probability entry < 0)");
            else if (isinf(v))
                r = ct__fail(CT_ERR_RUNTIME,
                             "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
            sum = ct__round_to(sum + v, dt);
            cum[j] = sum;
        }
        if (r == CT_OK && !(sum > 0))
            r = ct__fail(CT_ERR_RUNTIME, "invalid multinomial distribution (sum of probabilities <= 0)");
        if (r != CT_OK) break;
        for (int64_t j = 0; j < cats; j++) cum[j] = ct__round_to(cum[j] / sum, dt);
        cum[cats - 1] = 1;
        int64_t *o = (int64_t *)(void *)ct__data(out) + i * k;
        for (int64_t j = 0; j < k; j++) {
            double u = ct__uniform(g, CT_F64, 0, 1);
            int64_t lo = 0, hi = cats;
            while (hi > lo) {
                int64_t mid = lo + (hi - lo) / 2;
                if (cum[mid] < u) lo = mid + 1;
                else hi = mid;
            }
            o[j] = lo;
        }
    }
    CT_FREE(cum);
    return r;
}

static ct_result ct__cpu_random(const ct__random_job *j)
{
    switch (j->kind) {
    case CT__RANDOM_UNIFORM: ct__fill_serial(j->out, j->g, ct__draw_uniform, j->a); break;
    case CT__RANDOM_NORMAL: ct__normal_draws(j->out, j->g, j->a[0], j->a[1]); break;
    case CT__RANDOM_INT: ct__fill_serial(j->out, j->g, ct__draw_int, j->u); break;
    case CT__RANDOM_EXPONENTIAL: ct__fill_serial(j->out, j->g, ct__draw_exponential, &j->a[0]); break;
    case CT__RANDOM_BERNOULLI:
        if (j->input) return ct__bernoulli_draws(j->out, j->input, j->g);
        ct__fill_serial(j->out, j->g, ct__draw_bernoulli, &j->a[0]);
        break;
    case CT__RANDOM_NORMAL_TENSOR: ct__normal_tensor_draws(j->out, j->input, j->input2, j->g); break;
    case CT__RANDOM_RANDPERM: ct__randperm_draws(j->out, j->g); break;
    case CT__RANDOM_MULTINOMIAL:
        return j->replacement ? ct__multinomial_replacement(j->input, j->k, j->out, j->g)
                              : ct__multinomial_no_replacement(j->input, j->k, j->out, j->g);
    }
    return CT_OK;
}
