/* Random numbers: PyTorch's CPU generator and the distributions of its CPU
 * kernels, reproduced draw for draw so that a seed gives PyTorch's numbers.
 *
 * The engine is at::mt19937 (32-bit outputs; a 64-bit draw is two of them,
 * the first as the high half). A uniform of a floating dtype takes the low
 * `digits` bits of one draw (24 for float, 53 for double from a 64-bit draw,
 * 11 for half, 8 for bfloat16) scaled by 2^-digits. The serial kernels fill
 * their output in TensorIterator order, which ct__iter reproduces. Where
 * PyTorch computes in a narrower type (float, half, bfloat16) we compute in
 * double and round to it after each operation, which gives the same result
 * for + - * / and sqrt (double has over twice their precision); PyTorch's AVX2
 * kernels fuse some multiply-adds, and so does fma() here, in the same places. */


#define CT__MT_N 624
#define CT__MT_M 397
#define CT__DEFAULT_SEED 67280421310721ULL
/* sizeof(at::CPUGeneratorImplState): what torch.get_rng_state() returns. */
#define CT__STATE_BYTES 5056

static const double ct__pi = 3.14159265358979323846;

struct ct_generator {
    long lock; /* a spinlock, as PyTorch holds generator->mutex_ around a kernel */
    ct_device device; /* the CPU: the mt19937 fields below; another device: dev_state */
    bool is_default; /* a default generator, never freed */
    bool seeded; /* false only for the CPU's default generator before its first use */
    uint64_t seed;
    int left; /* mt19937_data_pod's fields, kept as PyTorch keeps them for get_state */
    uint32_t next;
    uint32_t state[CT__MT_N];
    bool has_normal; /* Box-Muller's second sample (next_double_normal_sample) */
    double normal;
    bool has_normal_f; /* next_float_normal_sample: only ever set through set_state */
    float normal_f;
    void *dev_state; /* a device generator's state, its backend's ct_generator_kind (in this block) */
};

/* The CPU's default generator, seeded on first use (every field named, for -Wextra). */
static ct_generator ct__default_gen = {0, {CT_DEVICE_CPU, -1}, true, false, 0, 0, 0, {0}, false, 0, false, 0, NULL};

/* The default generators of the devices (torch.cuda.default_generators),
 * made on first use and kept for the program's life, and the seed they
 * start from: ct_manual_seed's last, as torch.manual_seed seeds every
 * CUDA device's, even those not yet in use. */
#define CT__MAX_DEVICE_GENERATORS 64
static ct_generator *ct__device_gens[CT_NUM_DEVICE_TYPES][CT__MAX_DEVICE_GENERATORS];
static uint64_t ct__device_seed = CT__DEFAULT_SEED;
static long ct__device_gens_lock;

/* ---------------------------------------------------------------- the engine */

static void ct__mt_seed(ct_generator *g, uint64_t seed)
{
    g->seed = seed;
    g->seeded = true;
    g->state[0] = (uint32_t)seed;
    for (uint32_t j = 1; j < CT__MT_N; j++)
        g->state[j] = 1812433253u * (g->state[j - 1] ^ (g->state[j - 1] >> 30)) + j;
    g->left = 1;
    g->next = 0;
    g->has_normal = g->has_normal_f = false;
}

static uint32_t ct__mt_twist(uint32_t u, uint32_t v)
{
    return (((u & 0x80000000u) | (v & 0x7fffffffu)) >> 1) ^ (v & 1 ? 0x9908b0dfu : 0);
}

static uint32_t ct__rand32(ct_generator *g)
{
    if (--g->left == 0) { /* regenerate the whole state */
        uint32_t *s = g->state;
        int j;
        for (j = 0; j < CT__MT_N - CT__MT_M; j++) s[j] = s[j + CT__MT_M] ^ ct__mt_twist(s[j], s[j + 1]);
        for (; j < CT__MT_N - 1; j++) s[j] = s[j + CT__MT_M - CT__MT_N] ^ ct__mt_twist(s[j], s[j + 1]);
        s[j] = s[j + CT__MT_M - CT__MT_N] ^ ct__mt_twist(s[j], s[0]);
        g->left = CT__MT_N;
        g->next = 0;
    }
    uint32_t y = g->state[g->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

static uint64_t ct__rand64(ct_generator *g)
{
    uint64_t hi = ct__rand32(g);
    return hi << 32 | ct__rand32(g);
}

/* ---------------------------------------------------------------- generators */

static void ct__spin_lock(long *lock)
{
#if defined(__GNUC__) || defined(__clang__)
    while (__atomic_exchange_n(lock, 1L, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(lock, __ATOMIC_RELAXED)) continue;
#else
    while (_InterlockedExchange((volatile long *)lock, 1)) continue;
#endif
}

static void ct__spin_unlock(long *lock)
{
#if defined(__GNUC__) || defined(__clang__)
    __atomic_store_n(lock, 0L, __ATOMIC_RELEASE);
#else
    _InterlockedExchange((volatile long *)lock, 0);
#endif
}

static void ct__gen_unlock(ct_generator *g) { ct__spin_unlock(&g->lock); }

/* g (NULL: the CPU's default generator) locked, and seeded when on the CPU. */
static ct_generator *ct__gen_lock(ct_generator *g)
{
    if (!g) g = &ct__default_gen;
    ct__spin_lock(&g->lock);
    if (!g->seeded && g->device.type == CT_DEVICE_CPU) ct__mt_seed(g, CT__DEFAULT_SEED);
    return g;
}

/* The generator kind of a device generator's backend. */
static const ct_generator_kind *ct__gen_kind(const ct_generator *g)
{
    return ct__backend_for(g->device.type)->generator;
}

/* g (locked) started again from seed. */
static void ct__gen_seed_locked(ct_generator *g, uint64_t seed)
{
    if (g->device.type == CT_DEVICE_CPU) ct__mt_seed(g, seed);
    else ct__gen_kind(g)->seed(g->dev_state, seed);
}

/* A new generator on device d (resolved), seeded with seed; NULL when out of memory. */
static ct_generator *ct__gen_make(ct_device d, uint64_t seed)
{
    size_t extra = d.type == CT_DEVICE_CPU ? 0 : ct__backend_for(d.type)->generator->state_bytes;
    ct_generator *g = (ct_generator *)CT_MALLOC(sizeof *g + extra);
    if (!g) {
        CT__OOM();
        return NULL;
    }
    memset(g, 0, sizeof *g);
    g->device = d;
    g->dev_state = extra ? g + 1 : NULL;
    ct__gen_seed_locked(g, seed);
    return g;
}

/* d as a generator's device: resolved, with PyTorch's words for a device
 * type that cannot have one (no backend linked in). */
static ct_result ct__gen_device(ct_device *d)
{
    if (d->type == CT_DEVICE_CUDA && !ct__backend_for(CT_DEVICE_CUDA))
        return ct__fail(CT_ERR_RUNTIME, "Device type CUDA is not supported for torch.Generator() api.");
    if (d->type == CT_DEVICE_PRIVATEUSE1 && !ct__backend_for(CT_DEVICE_PRIVATEUSE1))
        return ct__fail(CT_ERR_RUNTIME, "Device type PRIVATEUSEONE is not supported for torch.Generator() api.");
    return ct__device_resolve(d);
}

ct_generator *ct_default_generator(void) { return &ct__default_gen; }

ct_generator *ct_device_default_generator(ct_device d)
{
    if (ct__gen_device(&d) != CT_OK) return NULL;
    if (d.type == CT_DEVICE_CPU) return &ct__default_gen;
    if (d.index >= CT__MAX_DEVICE_GENERATORS) {
        ct__fail(CT_ERR_RUNTIME, "default_generators: device index %d is past the %d ctorch keeps", d.index,
                 CT__MAX_DEVICE_GENERATORS);
        return NULL;
    }
    ct__spin_lock(&ct__device_gens_lock);
    ct_generator **slot = &ct__device_gens[d.type][d.index];
    if (!*slot && (*slot = ct__gen_make(d, ct__device_seed)) != NULL) (*slot)->is_default = true;
    ct_generator *g = *slot;
    ct__spin_unlock(&ct__device_gens_lock);
    return g;
}

ct_generator *ct_generator_new(void) { return ct_generator_new_device(ct__cpu); }

ct_generator *ct_generator_new_device(ct_device d)
{
    return ct__gen_device(&d) == CT_OK ? ct__gen_make(d, CT__DEFAULT_SEED) : NULL;
}

void ct_generator_free(ct_generator *g)
{
    if (g && !g->is_default) CT_FREE(g);
}

ct_device ct_generator_device(const ct_generator *g) { return g ? g->device : ct__cpu; }

void ct_generator_manual_seed(ct_generator *g, uint64_t seed)
{
    g = ct__gen_lock(g);
    ct__gen_seed_locked(g, seed);
    ct__gen_unlock(g);
}

uint64_t ct_generator_initial_seed(const ct_generator *g)
{
    ct_generator *locked = ct__gen_lock((ct_generator *)g);
    uint64_t seed = locked->device.type == CT_DEVICE_CPU ? locked->seed
                                                         : ct__gen_kind(locked)->initial_seed(locked->dev_state);
    ct__gen_unlock(locked);
    return seed;
}

/* torch.manual_seed: the CPU's default generator and every device's. */
void ct_manual_seed(uint64_t seed)
{
    ct_generator_manual_seed(NULL, seed);
    ct__spin_lock(&ct__device_gens_lock);
    ct__device_seed = seed;
    for (int t = 0; t < CT_NUM_DEVICE_TYPES; t++)
        for (int i = 0; i < CT__MAX_DEVICE_GENERATORS; i++)
            if (ct__device_gens[t][i]) ct_generator_manual_seed(ct__device_gens[t][i], seed);
    ct__spin_unlock(&ct__device_gens_lock);
}

uint64_t ct_initial_seed(void) { return ct_generator_initial_seed(NULL); }

/* A nondeterministic seed: /dev/urandom as PyTorch reads it, else the clock. */
static uint64_t ct__fresh_seed(void)
{
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        size_t got = fread(&s, sizeof s, 1, f);
        fclose(f);
        if (got == 1) return s;
    }
    s = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)clock();
    return s ^ (s >> 31);
}

uint64_t ct_seed(void)
{
    uint64_t s = ct__fresh_seed();
    ct_manual_seed(s);
    return s;
}

/* The CPU's state bytes are at::CPUGeneratorImplState's layout, so that
 * states move between ctorch and torch.get_rng_state / set_rng_state. */
enum {
    CT__ST_SEED = 0, CT__ST_LEFT = 8, CT__ST_SEEDED = 12, CT__ST_NEXT = 16, CT__ST_STATE = 24,
    CT__ST_NORMAL_Y = 5024, CT__ST_NORMAL_VALID = 5040, CT__ST_FLOAT = 5048, CT__ST_FLOAT_VALID = 5052
};

size_t ct_generator_state_size(const ct_generator *g)
{
    return g && g->device.type != CT_DEVICE_CPU ? ct__gen_kind(g)->state_bytes : CT__STATE_BYTES;
}

static void ct__cpu_get_state(const ct_generator *src, unsigned char *b)
{
    int seeded = 1, normal_valid = src->has_normal;
    uint64_t next = src->next;
    double normal = src->has_normal ? src->normal : 0.0;
    float normal_f = src->has_normal_f ? src->normal_f : 0.0f;
    memset(b, 0, CT__STATE_BYTES);
    memcpy(b + CT__ST_SEED, &src->seed, 8);
    memcpy(b + CT__ST_LEFT, &src->left, 4);
    memcpy(b + CT__ST_SEEDED, &seeded, 4);
    memcpy(b + CT__ST_NEXT, &next, 8);
    for (int j = 0; j < CT__MT_N; j++) {
        uint64_t w = src->state[j];
        memcpy(b + CT__ST_STATE + 8 * j, &w, 8);
    }
    memcpy(b + CT__ST_NORMAL_Y, &normal, 8);
    memcpy(b + CT__ST_NORMAL_VALID, &normal_valid, 4);
    memcpy(b + CT__ST_FLOAT, &normal_f, 4);
    b[CT__ST_FLOAT_VALID] = src->has_normal_f;
}

void ct_generator_get_state(const ct_generator *g, void *state)
{
    ct_generator *src = ct__gen_lock((ct_generator *)g);
    if (src->device.type == CT_DEVICE_CPU) ct__cpu_get_state(src, (unsigned char *)state);
    else memcpy(state, src->dev_state, ct__gen_kind(src)->state_bytes);
    ct__gen_unlock(src);
}

/* PyTorch's check of the bytes handed to a CPU generator's set_state. */
static ct_result ct__cpu_check_state(const unsigned char *b, size_t size)
{
    int left, seeded;
    uint64_t next;
    if (size != CT__STATE_BYTES)
        return ct__fail(CT_ERR_RUNTIME,
                        "Expected either a CPUGeneratorImplStateLegacy of size 5048 or a CPUGeneratorImplState of size "
                        "%d but found the input RNG state size to be %d",
                        CT__STATE_BYTES, (int)size);
    memcpy(&left, b + CT__ST_LEFT, 4);
    memcpy(&seeded, b + CT__ST_SEEDED, 4);
    memcpy(&next, b + CT__ST_NEXT, 8);
    if (!seeded || left <= 0 || left > CT__MT_N || (uint32_t)next > CT__MT_N)
        return ct__fail(CT_ERR_RUNTIME, "Invalid mt19937 state");
    return CT_OK;
}

static void ct__cpu_set_state(ct_generator *g, const unsigned char *b)
{
    int normal_valid;
    uint64_t next;
    memcpy(&g->seed, b + CT__ST_SEED, 8);
    memcpy(&g->left, b + CT__ST_LEFT, 4);
    memcpy(&next, b + CT__ST_NEXT, 8);
    g->next = (uint32_t)next;
    g->seeded = true;
    for (int j = 0; j < CT__MT_N; j++) {
        uint64_t w;
        memcpy(&w, b + CT__ST_STATE + 8 * j, 8);
        g->state[j] = (uint32_t)w;
    }
    memcpy(&normal_valid, b + CT__ST_NORMAL_VALID, 4);
    g->has_normal = normal_valid != 0;
    memcpy(&g->normal, b + CT__ST_NORMAL_Y, 8);
    g->has_normal_f = b[CT__ST_FLOAT_VALID] != 0;
    memcpy(&g->normal_f, b + CT__ST_FLOAT, 4);
}

ct_result ct_generator_set_state(ct_generator *g, const void *state, size_t size)
{
    const unsigned char *b = (const unsigned char *)state;
    if (!b) return ct__fail(CT_ERR_TYPE, "set_state(): argument 'new_state' (position 1) must be Tensor, not NULL");
    bool cpu = !g || g->device.type == CT_DEVICE_CPU;
    ct_result r = cpu ? ct__cpu_check_state(b, size) : ct__gen_kind(g)->check_state(b, size);
    if (r != CT_OK) return r;
    g = ct__gen_lock(g);
    if (cpu) ct__cpu_set_state(g, b);
    else memcpy(g->dev_state, b, size);
    ct__gen_unlock(g);
    return CT_OK;
}

/* ---------------------------------------------------------------- distributions */

/* Mantissa bits (std::numeric_limits<T>::digits) of a floating dtype. */
static int ct__digits(ct_dtype dt)
{
    return dt == CT_F64 ? 53 : dt == CT_F32 ? 24 : dt == CT_F16 ? 11 : 8;
}

/* The largest finite value of a floating dtype. */
static double ct__dtype_max(ct_dtype dt)
{
    return dt == CT_F64 ? DBL_MAX : dt == CT_F32 ? FLT_MAX : dt == CT_F16 ? 65504.0 : 3.3895313892515355e38;
}

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

/* A sampler's job on out, the rest zero. */
static ct__random_job ct__random_job_for(ct__random_kind kind, ct_tensor *out)
{
    ct__random_job job;
    memset(&job, 0, sizeof job);
    job.kind = kind;
    job.out = out;
    return job;
}

/* Run a sampler on its output's device, g (NULL: that device's default
 * generator) locked for the whole run; a generator of another device type
 * is PyTorch's error. */
static ct_result ct__sample(ct__random_job *job, ct_generator *g)
{
    ct_device d = job->out->storage->device;
    if (!g && !(g = ct_device_default_generator(d))) return ct_last_error_code();
    if (g->device.type != d.type) {
        char want[32], got[32];
        ct_device_str(CT__DEVICE(d.type, -1), want, sizeof want);
        ct_device_str(CT__DEVICE(g->device.type, -1), got, sizeof got);
        return ct__fail(CT_ERR_RUNTIME, "Expected a '%s' device type for generator but found '%s'", want, got);
    }
    job->g = ct__gen_lock(g);
    job->state = g->dev_state;
    ct_result r = ct__backend_for(d.type)->random(job);
    ct__gen_unlock(job->g);
    return r;
}

/* t when its sampler returned r == CT_OK, else NULL (t dropped): torch.rand
 * and friends are empty() followed by an in-place sampler. */
static ct_tensor *ct__sampled(ct_tensor *t, ct_result r)
{
    if (t && r != CT_OK) {
        ct__discard(t);
        return NULL;
    }
    return t;
}

/* An internal-overlap check (TensorIterator's) for the in-place samplers. */
static ct_result ct__check_writable(const ct_tensor *t)
{
    if (ct__check_inference_write(t) != CT_OK) return ct_last_error_code();
    return ct__has_internal_overlap(t) ? ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_internal_overlap) : CT_OK;
}

/* ---------------------------------------------------------------- uniform_ */

ct_result ct_uniform_(ct_tensor *t, double from, double to, ct_generator *g)
{
    CT__ARG_R(t, "self", 1);
    ct_dtype dt = t->dtype;
    if (!ct_dtype_is_floating(dt)) return ct__not_implemented("check_uniform_bounds", dt);
    double max = ct__dtype_max(dt);
    if (!(from >= -max && from <= max))
        return ct__fail(CT_ERR_RUNTIME, "from is out of bounds for %s", ct__type_meta_name(dt));
    if (!(to >= -max && to <= max))
        return ct__fail(CT_ERR_RUNTIME, "to is out of bounds for %s", ct__type_meta_name(dt));
    if (!(from <= to))
        return ct__fail(CT_ERR_RUNTIME, "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                        from, to);
    if (!(to - from <= max))
        return ct__fail(CT_ERR_RUNTIME,
                        "uniform_ expects to-from <= std::numeric_limits<%s>::max(), but found to=%g and from=%g "
                        "which result in to-from to exceed the limit",
                        ct__dtype_title(dt), to, from);
    if (ct__check_writable(t) != CT_OK) return ct_last_error_code();
    ct__random_job job = ct__random_job_for(CT__RANDOM_UNIFORM, t);
    job.a[0] = ct__round_to(from, dt);
    job.a[1] = ct__round_to(to, dt);
    return ct__sample(&job, g);
}

/* ---------------------------------------------------------------- normal_ */

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

/* normal_kernel, after the std check. */
static ct_result ct__normal_kernel(ct_tensor *t, double mean, double std, ct_generator *g)
{
    if (!ct_dtype_is_floating(t->dtype)) return ct__not_implemented("normal_kernel_cpu", t->dtype);
    bool fill = ct_numel(t) >= 16 && ct__is_contiguous(t);
    if (!fill && ct__check_writable(t) != CT_OK) return ct_last_error_code();
    ct__random_job job = ct__random_job_for(CT__RANDOM_NORMAL, t);
    job.a[0] = mean;
    job.a[1] = std;
    return ct__sample(&job, g);
}

ct_result ct_normal_(ct_tensor *t, double mean, double std, ct_generator *g)
{
    CT__ARG_R(t, "self", 1);
    if (!(std >= 0.0)) return ct__fail(CT_ERR_RUNTIME, "normal expects std >= 0.0, but found std %g", std);
    return ct__normal_kernel(t, mean, std, g);
}

/* ---------------------------------------------------------------- random_ */

/* update_from / update_to: move a bound of a floating dtype inwards to the
 * nearest value that does not round outside [from, to). */
static int64_t ct__as_dtype_i64(int64_t v, ct_dtype dt)
{
    uint64_t elem = 0;
    ct__write_i64(&elem, dt, v);
    return ct__trunc_i64(ct__read_f64(&elem, dt));
}

/* floor(log2(|v|)) for v != 0. */
static int ct__floor_log2(int64_t v)
{
    int n = 0;
    uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    while (a >>= 1) n++;
    return n;
}

static int64_t ct__update_from(int64_t from, ct_dtype dt)
{
    int64_t rounded = ct__as_dtype_i64(from + 1, dt);
    if (rounded < from) from = rounded + ((int64_t)1 << (ct__floor_log2(from + 1) - ct__digits(dt) + 1));
    return from;
}

static int64_t ct__update_to(int64_t to, ct_dtype dt)
{
    int64_t rounded = ct__as_dtype_i64(to - 1, dt);
    if (rounded >= to) to = rounded - ((int64_t)1 << (ct__floor_log2(to - 1) - ct__digits(dt) + 1));
    return to;
}

/* The values of an integer dtype (bool: 0 and 1). */
static void ct__int_bounds(ct_dtype dt, int64_t *lo, int64_t *hi)
{
    *lo = 0, *hi = 1;
    switch (dt) {
    case CT_U8: *hi = 255; break;
    case CT_I8: *lo = -128, *hi = 127; break;
    case CT_I16: *lo = -32768, *hi = 32767; break;
    case CT_I32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    case CT_I64: *lo = INT64_MIN, *hi = INT64_MAX; break;
    default: break;
    }
}

/* check_from_to_in_range */
static ct_result ct__check_random_bounds(int64_t from, int64_t to_inc, ct_dtype dt)
{
    const char *which = NULL;
    if (ct_dtype_is_floating(dt)) {
        double max = ct__dtype_max(dt);
        which = !((double)from >= -max && (double)from <= max) ? "from"
              : !((double)to_inc >= -max && (double)to_inc <= max) ? "to - 1" : NULL;
    } else {
        int64_t lo, hi;
        ct__int_bounds(dt, &lo, &hi);
        which = !(from >= lo && from <= hi) ? "from" : !(to_inc >= lo && to_inc <= hi) ? "to - 1" : NULL;
    }
    return which ? ct__fail(CT_ERR_RUNTIME, "%s is out of bounds for %s", which, ct__type_meta_name(dt)) : CT_OK;
}

/* The dtypes whose wide ranges take 64-bit draws (uniform_int_from_to_distribution). */
static bool ct__random_wide(ct_dtype dt) { return dt == CT_I64 || dt == CT_F64 || dt == CT_F32 || dt == CT_BF16; }

/* t filled with from + (draw % range), range 0 standing for 2**64. */
static ct_result ct__random_ints(ct_tensor *t, uint64_t range, int64_t from, ct_generator *g)
{
    ct__random_job job = ct__random_job_for(CT__RANDOM_INT, t);
    job.u[0] = range;
    job.u[1] = (uint64_t)from;
    job.u[2] = (range == 0 || range >= (1ULL << 32)) && ct__random_wide(t->dtype);
    return ct__sample(&job, g);
}

ct_result ct_random_(ct_tensor *t, int64_t from, int64_t to, ct_generator *g)
{
    CT__ARG_R(t, "self", 1);
    ct_dtype dt = t->dtype;
    if (ct__check_writable(t) != CT_OK) return ct_last_error_code();
    if (from >= to)
        return ct__fail(CT_ERR_RUNTIME, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                        (long long)from, (long long)to);
    if (ct_dtype_is_floating(dt)) {
        from = ct__update_from(from, dt);
        to = ct__update_to(to, dt);
        if (from >= to)
            return ct__fail(CT_ERR_RUNTIME,
                            "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got "
                            "from=%lld >= to=%lld",
                            (long long)from, (long long)to);
    }
    if (ct__check_random_bounds(from, to - 1, dt) != CT_OK) return ct_last_error_code();
    return ct__random_ints(t, (uint64_t)to - (uint64_t)from, from, g);
}

ct_result ct_random_from_(ct_tensor *t, int64_t from, ct_generator *g)
{
    CT__ARG_R(t, "self", 1);
    ct_dtype dt = t->dtype;
    if (ct__check_writable(t) != CT_OK) return ct_last_error_code();
    if (from == INT64_MIN) { /* all 2**64 values, read as int64 (random_full_64_bits_range_kernel) */
        if (dt == CT_F16 || dt == CT_BOOL) return ct__not_implemented("random_full_64_bits_range_kernel_cpu", dt);
        if (!ct__random_wide(dt))
            return ct__fail(CT_ERR_RUNTIME,
                            "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16");
        return ct__random_ints(t, 0, 0, g);
    }
    int64_t to_inc, lo;
    if (ct_dtype_is_floating(dt)) { /* up to 2**digits, the last integer the dtype holds exactly */
        to_inc = (int64_t)1 << ct__digits(dt);
        from = ct__update_from(from, dt);
        if (from >= to_inc)
            return ct__fail(CT_ERR_RUNTIME,
                            "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to "
                            "dtype, but got from=%lld > to_inc=%lld",
                            (long long)from, (long long)to_inc);
    } else {
        ct__int_bounds(dt, &lo, &to_inc);
    }
    if (ct__check_random_bounds(from, to_inc, dt) != CT_OK) return ct_last_error_code();
    return ct__random_ints(t, (uint64_t)to_inc - (uint64_t)from + 1, from, g);
}

/* ---------------------------------------------------------------- exponential_, bernoulli_ */

ct_result ct_exponential_(ct_tensor *t, double lambd, ct_generator *g)
{
    CT__ARG_R(t, "self", 1);
    if (!(lambd >= 0.0))
        return ct__fail(CT_ERR_RUNTIME, "exponential_ expects lambda >= 0.0, but found lambda=%g", lambd);
    if (ct__check_writable(t) != CT_OK) return ct_last_error_code();
    if (!ct_dtype_is_floating(t->dtype)) return ct__not_implemented("exponential_cpu", t->dtype);
    ct__random_job job = ct__random_job_for(CT__RANDOM_EXPONENTIAL, t);
    job.a[0] = lambd;
    return ct__sample(&job, g);
}

ct_result ct_bernoulli_(ct_tensor *t, double p, ct_generator *g)
{
    CT__ARG_R(t, "self", 1);
    if (!(p >= 0 && p <= 1))
        return ct__fail(CT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
    if (ct__check_writable(t) != CT_OK) return ct_last_error_code();
    if (t->dtype == CT_F16) return ct__not_implemented("bernoulli_scalar_cpu_", t->dtype);
    ct__random_job job = ct__random_job_for(CT__RANDOM_BERNOULLI, t);
    job.a[0] = p;
    return ct__sample(&job, g);
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

ct_tensor *ct_bernoulli(const ct_tensor *p, ct_generator *g)
{
    CT__ARG(p, "self", 1);
    if (p->dtype == CT_F16) {
        ct__not_implemented("bernoulli_tensor_cpu_self_", p->dtype);
        return NULL;
    }
    if (!ct_dtype_is_floating(p->dtype)) {
        ct__not_implemented("bernoulli_tensor_cpu_p_", p->dtype);
        return NULL;
    }
    ct_tensor *r = ct__alloc(p->sizes, p->ndim, p->dtype, p->storage->device);
    if (!r) return NULL;
    ct__random_job job = ct__random_job_for(CT__RANDOM_BERNOULLI, r);
    job.input = p;
    return ct__sampled(r, ct__sample(&job, g));
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

/* ---------------------------------------------------------------- factories */


ct_tensor *ct_rand(ct_shape shape, ct_dtype dtype, ct_generator *g)
{
    ct_tensor *t = ct_empty(shape, dtype);
    return ct__sampled(t, t ? ct_uniform_(t, 0, 1, g) : CT_OK);
}

ct_tensor *ct_randn(ct_shape shape, ct_dtype dtype, ct_generator *g)
{
    ct_tensor *t = ct_empty(shape, dtype);
    return ct__sampled(t, t ? ct_normal_(t, 0, 1, g) : CT_OK);
}

ct_tensor *ct_normal_scalar(double mean, double std, ct_shape shape, ct_dtype dtype, ct_generator *g)
{
    ct_tensor *t = ct_empty(shape, dtype);
    return ct__sampled(t, t ? ct_normal_(t, mean, std, g) : CT_OK);
}

ct_tensor *ct_randint(int64_t low, int64_t high, ct_shape shape, ct_dtype dtype, ct_generator *g)
{
    ct_tensor *t = ct_empty(shape, dtype == CT_DEFAULT ? CT_I64 : dtype);
    return ct__sampled(t, t ? ct_random_(t, low, high, g) : CT_OK);
}

/* ---------------------------------------------------------------- normal(mean, std) */

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

/* CHECK_NORMAL_TENSOR_STD: every std >= 0 (a NaN fails, as std.min() does). */
static bool ct__all_nonnegative(const ct_tensor *t)
{
    bool ok = true;
    int64_t n = ct_numel(t);
    ct_scope s = ct_scope_begin();
    const ct_tensor *c = ct__host(ct_contiguous(t));
    for (int64_t i = 0; c && i < n && ok; i++) ok = ct__read_f64(ct__data(c) + (size_t)i * ct__esize(c), c->dtype) >= 0;
    ct_scope_end(s);
    return ok;
}

ct_tensor *ct_normal(const ct_tensor *mean, const ct_tensor *std, ct_generator *g)
{
    int64_t shape[CT_MAX_DIMS];
    int nd;
    CT__ARG(mean, "mean", 1);
    CT__ARG(std, "std", 2);
    const ct_tensor *both[2] = {mean, std};
    ct_device dev;
    if (ct__common_device(both, 2, false, &dev) != CT_OK) return NULL;
    if (!ct__all_nonnegative(std)) {
        ct__fail(CT_ERR_RUNTIME, "normal expects all elements of std >= 0.0");
        return NULL;
    }
    if (ct__broadcast_shapes(mean->sizes, mean->ndim, std->sizes, std->ndim, shape, &nd) != CT_OK) return NULL;
    ct_tensor *r = ct__alloc(shape, nd, mean->dtype, dev);
    if (!r) return NULL;
    if (!ct_dtype_is_floating(r->dtype)) return ct__sampled(r, ct__not_implemented("normal_kernel_cpu", r->dtype));
    ct__random_job job = ct__random_job_for(CT__RANDOM_NORMAL_TENSOR, r);
    job.input = mean;
    job.input2 = std;
    return ct__sampled(r, ct__sample(&job, g));
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

/* ---------------------------------------------------------------- randperm */

/* check_supported_max_int_with_precision */
static ct_result ct__check_randperm_n(int64_t n, ct_dtype dt)
{
    uint64_t elem;
    if (ct__scalar_to_elem(ct_int(n > 0 ? n - 1 : n), dt, &elem) != CT_OK) return ct_last_error_code();
    if (dt == CT_F16 && n > (1 << 11) + 1)
        return ct__fail(CT_ERR_RUNTIME, "n cannot be greater than 2049 for Half type.");
    if (dt == CT_F32 && n > (1 << 24) + 1)
        return ct__fail(CT_ERR_RUNTIME, "n cannot be greater than 2^24+1 for Float type.");
    if (dt == CT_F64 && n > ((int64_t)1 << 53) + 1)
        return ct__fail(CT_ERR_RUNTIME, "n cannot be greater than 2^53+1 for Double type.");
    if (dt == CT_BOOL) return ct__not_implemented("randperm", dt);
    return CT_OK;
}

ct_tensor *ct_randperm(int64_t n, ct_dtype dtype, ct_generator *g)
{
    ct_tensor *t = ct_empty(CT_SHAPE(n), dtype == CT_DEFAULT ? CT_I64 : dtype);
    if (!t || ct__check_randperm_n(n, t->dtype) != CT_OK) return ct__sampled(t, ct_last_error_code());
    if (n == 0) return t;
    ct__random_job job = ct__random_job_for(CT__RANDOM_RANDPERM, t);
    return ct__sampled(t, ct__sample(&job, g));
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

/* ---------------------------------------------------------------- multinomial */

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

/* multinomial_out's argument checks, in its order. */
static ct_result ct__check_multinomial(const ct_tensor *p, int64_t k, bool replacement)
{
    if (p->ndim < 1 || p->ndim > 2) return ct__fail(CT_ERR_RUNTIME, "prob_dist must be 1 or 2 dim");
    if (!ct_dtype_is_floating(p->dtype))
        return ct__fail(CT_ERR_RUNTIME, "multinomial only supports floating-point dtypes for input, got: %s",
                        ct__dtype_title(p->dtype));
    if (k <= 0) return ct__fail(CT_ERR_RUNTIME, "cannot sample n_sample <= 0 samples");
    int64_t cats = p->sizes[p->ndim - 1];
    if (!replacement && k > cats)
        return ct__fail(CT_ERR_RUNTIME, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    if (cats > (1 << 24)) return ct__fail(CT_ERR_RUNTIME, "number of categories cannot exceed 2^24");
    return CT_OK;
}

ct_tensor *ct_multinomial(const ct_tensor *probs, int64_t num_samples, bool replacement, ct_generator *g)
{
    int64_t shape[2];
    CT__ARG(probs, "self", 1);
    if (ct__check_multinomial(probs, num_samples, replacement) != CT_OK) return NULL;
    shape[0] = probs->ndim == 2 ? probs->sizes[0] : num_samples;
    shape[1] = num_samples;
    ct_tensor *out = ct__alloc(shape, probs->ndim, CT_I64, probs->storage->device);
    if (!out || ct_numel(out) == 0) return out;
    if (probs->dtype == CT_F16)
        return ct__sampled(out, ct__fail(CT_ERR_RUNTIME, "multinomial is not implemented for half on CPU"));
    ct__random_job job = ct__random_job_for(CT__RANDOM_MULTINOMIAL, out);
    job.input = probs;
    job.k = num_samples;
    job.replacement = replacement;
    return ct__sampled(out, ct__sample(&job, g));
}

/* ---------------------------------------------------------------- the CPU's samplers */

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
