/* Random numbers: generators and the samplers' front ends. The CPU's
 * generator is PyTorch's, at::mt19937 (32-bit outputs; a 64-bit draw is two
 * of them, the first as the high half), with its state laid out as
 * torch.get_rng_state() shows it; a device's generators are its backend's
 * (ct_generator_kind). The front ends check arguments, allocate results and
 * hand a sampler job to the output's device; the CPU's samplers, which
 * reproduce PyTorch's CPU kernels draw for draw, are in src/cpu/random.c. */

#define CT__MT_N 624
#define CT__MT_M 397
#define CT__DEFAULT_SEED 67280421310721ULL
/* sizeof(at::CPUGeneratorImplState): what torch.get_rng_state() returns. */
#define CT__STATE_BYTES 5056

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

/* ---------------------------------------------------------------- sampler jobs */

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

/* ---------------------------------------------------------------- multinomial */

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
