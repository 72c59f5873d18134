/* Random numbers: the same numbers as PyTorch 1.13 on the CPU for the same seed
 * (golden data from tests/golden/gen_random.py), generators and their state,
 * and PyTorch's error messages. */
#include "harness.h"

#include <pthread.h>

/* ---------------------------------------------------------------- replaying gen_random.py's streams */

enum { OP_SEED, OP_RAND, OP_RANDN, OP_RANDINT, OP_RANDPERM, OP_NORMAL_SCALAR, OP_UNIFORM_, OP_NORMAL_, OP_RANDOM_,
       OP_EXPONENTIAL_, OP_BERNOULLI_, OP_BERNOULLI, OP_NORMAL, OP_MULTINOMIAL, OP_GET_STATE };
enum { CONTIGUOUS, TRANSPOSED, STEP2, REVERSED };

/* An uninitialised tensor of `shape` laid out as gen_random.py's make() does. */
static ct_tensor *make(ct_shape shape, ct_dtype dtype, int layout)
{
    ct_shape base = shape, dims = shape;
    int n = shape.ndim;
    switch (layout) {
    case TRANSPOSED:
        base.size[n - 2] = shape.size[n - 1], base.size[n - 1] = shape.size[n - 2];
        return ct_transpose(ct_empty(base, dtype), -1, -2);
    case STEP2:
        base.size[n - 1] *= 2;
        return ct_slice(ct_empty(base, dtype), -1, 0, CT_END, 2);
    case REVERSED:
        for (int d = 0; d < n; d++) base.size[d] = shape.size[n - 1 - d], dims.size[d] = n - 1 - d;
        return ct_permute(ct_empty(base, dtype), dims);
    default: return ct_empty(shape, dtype);
    }
}

static ct_tensor *as_layout(const ct_tensor *t, int layout)
{
    ct_tensor *r = make(ct_shape_of(t), ct_dtype_of(t), layout);
    return r && ct_copy_(r, t) == CT_OK ? r : NULL;
}

/* The result of one step, or NULL (with the failure reported) for a step that made none. */
/* The generator the samplers use when given none: the default device's
 * (the CPU's, or the test device's in the suite's second run); and a new
 * one there. */
static ct_generator *default_generator(void) { return ct_device_default_generator(ct_get_default_device()); }
static ct_generator *new_generator(void) { return ct_generator_new_device(ct_get_default_device()); }

static ct_tensor *run_step(const char *name, const int64_t *p, const double *f, ct_generator *g)
{
    char key[64];
    ct_dtype dt = (ct_dtype)p[1];
    ct_shape shape = ct_shape_make((int)p[2], p + 3);
    int64_t a = p[9], b = p[10];
    int layout = (int)p[11];
    ct_tensor *t = NULL;
    snprintf(key, sizeof key, "%s.in0", name);
    const ct_tensor *in0 = p[0] >= OP_BERNOULLI && p[0] <= OP_MULTINOMIAL ? golden("random", key) : NULL;
    snprintf(key, sizeof key, "%s.in1", name);
    const ct_tensor *in1 = p[0] == OP_NORMAL ? golden("random", key) : NULL;
    switch (p[0]) {
    case OP_SEED: ct_generator_manual_seed(g ? g : default_generator(), (uint64_t)a); return NULL;
    case OP_RAND: return ct_rand(shape, dt, g);
    case OP_RANDN: return ct_randn(shape, dt, g);
    case OP_RANDINT: return ct_randint(a, b, shape, dt, g);
    case OP_RANDPERM: return ct_randperm(a, dt, g);
    case OP_NORMAL_SCALAR: return ct_normal_scalar(f[0], f[1], shape, dt, g);
    case OP_BERNOULLI: return ct_bernoulli(as_layout(in0, layout), g);
    case OP_NORMAL: return ct_normal(as_layout(in0, layout), in1, g);
    case OP_MULTINOMIAL: return ct_multinomial(as_layout(in0, layout), a, b != 0, g);
    case OP_GET_STATE: {
        unsigned char state[8192];
        if (!g) g = default_generator();
        ct_generator_get_state(g, state);
        return ct_from_array(state, CT_SHAPE((int64_t)ct_generator_state_size(g)), CT_U8);
    }
    default: break;
    }
    t = make(shape, dt, layout);
    ct_result r = CT_ERR_RUNTIME;
    switch (p[0]) {
    case OP_UNIFORM_: r = ct_uniform_(t, f[0], f[1], g); break;
    case OP_NORMAL_: r = ct_normal_(t, f[0], f[1], g); break;
    case OP_RANDOM_: r = ct_random_(t, a, b, g); break;
    case OP_EXPONENTIAL_: r = ct_exponential_(t, f[0], g); break;
    case OP_BERNOULLI_: r = ct_bernoulli_(t, f[0], g); break;
    default: break;
    }
    return r == CT_OK ? t : NULL;
}

/* Whether step p's golden holds glibc's last bits, which Windows builds do
 * not get from mingw-w64's libm: float64 normal and exponential draws,
 * made through log, sin and cos in double. */
static bool holds_glibc_bits(const int64_t *p)
{
#ifdef _WIN32
    bool libm = p[0] == OP_RANDN || p[0] == OP_NORMAL_SCALAR || p[0] == OP_NORMAL_ || p[0] == OP_NORMAL ||
                p[0] == OP_EXPONENTIAL_;
    return libm && p[1] == CT_F64;
#else
    (void)p;
    return false;
#endif
}
static int glibc_bits_steps;

/* Steps [0, n) of stream k, each result compared with PyTorch's. */
static void run_stream(int k, int64_t n)
{
    ct_generator *own = NULL;
    for (int64_t j = 0; j < n; j++) {
        char name[32], key[48];
        int64_t p[14];
        double f[2];
        snprintf(name, sizeof name, "s%d.%lld", k, (long long)j);
        snprintf(key, sizeof key, "%s.i", name);
        ct_copy_to_array(golden("random", key), p, 14, CT_I64);
        snprintf(key, sizeof key, "%s.f", name);
        ct_copy_to_array(golden("random", key), f, 2, CT_F64);
        if (p[13] && !own) own = new_generator();
        ct_tensor *t = run_step(name, p, f, p[13] ? own : NULL);
        if (p[0] == OP_SEED) continue;
        if (holds_glibc_bits(p)) { /* drawn, not compared */
            glibc_bits_steps++;
            continue;
        }
        int before = ct_test_failed_checks;
        CHECK_TENSOR(t, golden("random", name), 0);
        if (ct_test_failed_checks != before) {
            printf("    at step %s (op %lld, dtype %s, layout %lld)\n", name, (long long)p[0],
                   ct_dtype_name((ct_dtype)p[1]), (long long)p[11]);
            break; /* the generator's state is off from here on */
        }
    }
    ct_generator_free(own);
}

static void test_streams_match_pytorch(void)
{
    const ct_tensor *streams = golden("random", "streams");
    int64_t counts[64];
    int64_t n = ct_numel(streams);
    ct_copy_to_array(streams, counts, 64, CT_I64);
    for (int k = 0; k < n; k++) {
        ct_scope s = ct_scope_begin();
        run_stream(k, counts[k]);
        ct_scope_end(s);
    }
    ct_test_skip_cases("test_streams_match_pytorch", glibc_bits_steps, "float64 normal and exponential draws",
                       "their goldens hold glibc's last bits of log, sin and cos");
}

/* ---------------------------------------------------------------- seed 004 and the first numbers */

static void test_manual_seed_0(void)
{
    ct_manual_seed(0);
    ct_tensor *x = ct_rand(CT_SHAPE(5), CT_F32, NULL);
    float v[5];
    ct_copy_to_array(x, v, 5, CT_F32);
    const double expected[5] = {0.4963, 0.7682, 0.0885, 0.1320, 0.3074};
    for (int i = 0; i < 5; i++) CHECK_NEAR(v[i], expected[i], 5e-5);
}

/* torch.manual_seed(0); torch.rand(3, device='cuda') prints
 * tensor([0.3990, 0.5167, 0.0249], device='cuda:0') on any GPU (Philox
 * subsequence i gives element i); the generator's offset then moves on by
 * one draw of four numbers, so the next call differs and a new seed
 * repeats the first. */
static void test_cuda_draws_match_pytorch(void)
{
    ct_manual_seed(0);
    ct_tensor *x = ct_rand(CT_SHAPE(3), CT_F32, NULL);
    float v[3];
    ct_copy_to_array(x, v, 3, CT_F32);
    const double expected[3] = {0.3990, 0.5167, 0.0249};
    for (int i = 0; i < 3; i++) CHECK_NEAR(v[i], expected[i], 5e-5);
    ct_generator *g = ct_device_default_generator(ct_get_default_device());
    uint64_t state[2] = {0, 0};
    CHECK_INT(ct_generator_state_size(g), sizeof state);
    ct_generator_get_state(g, state);
    CHECK_INT(state[0], 0); /* the seed */
    CHECK_INT(state[1], 4); /* the Philox offset */
    CHECK(!ct_equal(ct_rand(CT_SHAPE(3), CT_F32, NULL), x));
    ct_manual_seed(0);
    CHECK(ct_equal(ct_rand(CT_SHAPE(3), CT_F32, NULL), x));
}

/* floor(scale * x) of every element, in row-major order. */
static void floor_scaled(const ct_tensor *t, double scale, int *out)
{
    int64_t n = ct_numel(t);
    float *v = (float *)malloc((size_t)n * sizeof *v);
    ct_copy_to_array(t, v, n, CT_F32);
    for (int64_t i = 0; i < n; i++) out[i] = (int)floorf((float)scale * v[i]);
    free(v);
}

static void test_seed004_examples(void)
{
    static const int r55[25] = {4, 7, 0, 1, 3, 6, 4, 8, 4, 6, 3, 4, 0, 1, 2, 5, 6, 8, 1, 2, 6, 9, 3, 8, 4};
    static const int r4107[14] = {55, 95, 3, 18, 37, 30, 93, 17, 26, 15, 3, 20, 92, 72};
    static const int r1332[18] = {126, 195, 22, 33, 78, 161, 124, 228, 116, 161, 88, 102, 5, 43, 74, 132, 177, 204};
    int got[280];
    ct_manual_seed(0);
    ct_tensor *a = ct_rand(CT_SHAPE(5, 5), CT_F32, NULL);
    ct_tensor *b = ct_rand(CT_SHAPE(4, 10, 7), CT_F32, NULL);
    CHECK_TENSOR(a, golden("random", "seed004.rand55"), 0);
    CHECK_TENSOR(b, golden("random", "seed004.rand4107"), 0);
    floor_scaled(a, 10, got);
    for (int i = 0; i < 25; i++) CHECK_INT(got[i], r55[i]);
    floor_scaled(b, 100, got);
    for (int i = 0; i < 14; i++) CHECK_INT(got[i], r4107[i]);
    ct_manual_seed(0);
    ct_tensor *c = ct_rand(CT_SHAPE(1, 3, 3, 2), CT_F32, NULL);
    CHECK_TENSOR(c, golden("random", "seed004.rand1332"), 0);
    floor_scaled(c, 255, got); /* (255 * x).int() truncates: the same for x >= 0 */
    for (int i = 0; i < 18; i++) CHECK_INT(got[i], r1332[i]);
}

/* ---------------------------------------------------------------- generators and state */

static void test_generator_seeds(void)
{
    ct_generator *g = new_generator(), *h = new_generator();
    CHECK(ct_generator_initial_seed(g) == 67280421310721ULL);
    ct_generator_manual_seed(g, 42);
    CHECK(ct_generator_initial_seed(g) == 42);
    ct_manual_seed(42);
    CHECK(ct_initial_seed() == 42);
    CHECK(default_generator() != g);
    CHECK(ct_generator_initial_seed(default_generator()) == 42);
    /* same seed, same numbers, whichever generator */
    ct_generator_manual_seed(h, 42);
    ct_tensor *a = ct_randn(CT_SHAPE(7), CT_F64, g);
    CHECK_TENSOR(ct_randn(CT_SHAPE(7), CT_F64, h), a, 0);
    CHECK_TENSOR(ct_randn(CT_SHAPE(7), CT_F64, NULL), a, 0);
    CHECK_TENSOR(ct_rand(CT_SHAPE(3), CT_F32, h), ct_rand(CT_SHAPE(3), CT_F32, g), 0);
    uint64_t s = ct_seed();
    CHECK(ct_initial_seed() == s && ct_generator_initial_seed(default_generator()) == s);
    ct_generator_free(g);
    ct_generator_free(h);
    ct_generator_free(NULL);
    ct_generator_free(default_generator()); /* not freed: a default generator lives on */
}

static void test_state_round_trip(void)
{
    unsigned char state[8192], again[8192];
    CHECK_INT(ct_generator_state_size(default_generator()), 5056);
    ct_manual_seed(3);
    ct_randn(CT_SHAPE(3), CT_F64, NULL); /* odd: a cached normal is part of the state */
    ct_generator_get_state(default_generator(), state);
    ct_tensor *a = ct_randn(CT_SHAPE(11), CT_F64, NULL);
    ct_generator *g = new_generator();
    CHECK_OK(ct_generator_set_state(g, state, ct_generator_state_size(g)));
    CHECK_TENSOR(ct_randn(CT_SHAPE(11), CT_F64, g), a, 0);
    CHECK(ct_generator_initial_seed(g) == 3);
    CHECK_OK(ct_generator_set_state(default_generator(), state, 5056));
    ct_generator_get_state(default_generator(), again);
    CHECK(!memcmp(state, again, 5056));
    ct_generator_free(g);
}

static void test_state_from_pytorch(void)
{
    unsigned char state[8192];
    ct_copy_to_array(golden("random", "state99"), state, 5056, CT_U8);
    CHECK_OK(ct_generator_set_state(default_generator(), state, 5056));
    CHECK(ct_generator_initial_seed(default_generator()) == 99);
    CHECK_TENSOR(ct_randn(CT_SHAPE(9), CT_F64, NULL), golden("random", "state99.after"), 0);
    memset(state, 0, sizeof state);
    CHECK_FAILS(ct_generator_set_state(default_generator(), state, 5056), CT_ERR_RUNTIME, "Invalid mt19937 state");
}

/* Two threads drawing from the default generator: each call holds the
 * generator for all its draws, so 2 x 2000 calls leave it where 4000 calls
 * on one thread do. */
static void *draw_many(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2000; i++) { /* no scope: a thread's scope stack outlives it */
        ct_release(ct_randn(CT_SHAPE(7), CT_F64, NULL)); /* odd: the threads share a cached normal */
        ct_release(ct_rand(CT_SHAPE(1000), CT_F32, NULL));
    }
    return NULL;
}

static void test_threads_share_the_default_generator(void)
{
    pthread_t a, b;
    ct_manual_seed(5);
    CHECK(pthread_create(&a, NULL, draw_many, NULL) == 0); /* one after the other */
    pthread_join(a, NULL);
    CHECK(pthread_create(&b, NULL, draw_many, NULL) == 0);
    pthread_join(b, NULL);
    ct_tensor *expected = ct_rand(CT_SHAPE(4), CT_F32, NULL);
    ct_manual_seed(5);
    CHECK(pthread_create(&a, NULL, draw_many, NULL) == 0); /* at the same time */
    CHECK(pthread_create(&b, NULL, draw_many, NULL) == 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK_TENSOR(ct_rand(CT_SHAPE(4), CT_F32, NULL), expected, 0);
}

/* ---------------------------------------------------------------- random_ to the dtype's end */

/* Four draws after manual_seed(0): ct_random_from_(from) when to_excl is 0,
 * else ct_random_(from, to_excl); they must be PyTorch's, read as int64. */
static void check_random4(ct_dtype dt, int64_t from, int64_t to_excl, const int64_t *want)
{
    int64_t got[4];
    ct_tensor *t = ct_empty(CT_SHAPE(4), dt);
    ct_manual_seed(0);
    CHECK_OK(to_excl ? ct_random_(t, from, to_excl, NULL) : ct_random_from_(t, from, NULL));
    ct_copy_to_array(t, got, 4, CT_I64);
    for (int i = 0; i < 4; i++)
        if (got[i] != want[i])
            ct_test_fail(__FILE__, __LINE__, "%s random_(%lld, %lld)[%d] == %lld, expected %lld", ct_dtype_name(dt),
                         (long long)from, (long long)to_excl, i, (long long)got[i], (long long)want[i]);
}

/* Tensor.random_() and random_(from, None), over the whole int64 range too,
 * and random_(from, to) at int64's ends, against PyTorch's numbers. */
static void test_random_to_the_end(void)
{
    const int64_t min = INT64_MIN, max = INT64_MAX;
    check_random4(CT_I64, 0, 0, (int64_t[]){900450186894289455, 3969543146641149120, 1895649597198586619, 827948490035658087});
    check_random4(CT_I64, min, 0,
                  (int64_t[]){-8322921849960486353, -5253828890213626688, -7327722439656189189, -8395423546819117721});
    check_random4(CT_I64, -5, 0, (int64_t[]){900450186894289445, 3969543146641149110, 1895649597198586609, 827948490035658077});
    check_random4(CT_I64, max, 0, (int64_t[]){max, max, max, max});
    check_random4(CT_F64, 0, 0, (int64_t[]){8737460674930124, 6375474555111176, 4137753702977065, 8293357854226700});
    check_random4(CT_F64, 9007199254740989, 0, (int64_t[]){9007199254740989, 9007199254740992, 9007199254740990, 9007199254740989});
    check_random4(CT_F64, min, 0,
                  (int64_t[]){-8322921849960485888, -5253828890213626880, -7327722439656188928, -8395423546819118080});
    check_random4(CT_F32, -3, 0, (int64_t[]){8325241, 12888016, 1483670, 2214237});
    check_random4(CT_F16, -3, 0, (int64_t[]){1589, 1464, 206, 453});
    check_random4(CT_I32, 0, 0, (int64_t[]){209652396, 398764591, 924231285, 1478610112});
    check_random4(CT_I8, 100, 0, (int64_t[]){104, 103, 121, 116});
    check_random4(CT_U8, 0, 0, (int64_t[]){172, 47, 117, 192});
    check_random4(CT_BOOL, 0, 0, (int64_t[]){0, 1, 1, 0});
    check_random4(CT_I64, 0, max, (int64_t[]){900450186894289456, 3969543146641149121, 1895649597198586620, 827948490035658088});
    check_random4(CT_I64, min, max, (int64_t[]){900450186894289455, 3969543146641149120, 1895649597198586619, 827948490035658087});
    check_random4(CT_I64, max - 1, max, (int64_t[]){max - 1, max - 1, max - 1, max - 1});
    check_random4(CT_I64, min, min + 1, (int64_t[]){min, min, min, min});
    check_random4(CT_I64, min, 0, (int64_t[]){-8322921849960486353, -5253828890213626688, -7327722439656189189, -8395423546819117721});
    ct_tensor *t = ct_zeros(CT_SHAPE(2), CT_I32);
    const char *full = "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16";
    CHECK_FAILS(ct_random_from_(t, min, NULL), CT_ERR_RUNTIME, full);
    CHECK_FAILS(ct_random_from_(ct_zeros(CT_SHAPE(2), CT_U8), min, NULL), CT_ERR_RUNTIME, full);
    CHECK_FAILS(ct_random_from_(ct_zeros(CT_SHAPE(2), CT_F16), min, NULL), CT_ERR_RUNTIME,
                "\"random_full_64_bits_range_kernel_cpu\" not implemented for 'Half'");
    CHECK_FAILS(ct_random_from_(ct_zeros(CT_SHAPE(2), CT_BOOL), min, NULL), CT_ERR_RUNTIME,
                "\"random_full_64_bits_range_kernel_cpu\" not implemented for 'Bool'");
    CHECK_FAILS(ct_random_from_(t, 1LL << 40, NULL), CT_ERR_RUNTIME, "from is out of bounds for int");
    CHECK_FAILS(ct_random_from_(ct_zeros(CT_SHAPE(2), CT_U8), -1, NULL), CT_ERR_RUNTIME,
                "from is out of bounds for unsigned char");
    CHECK_FAILS(ct_random_from_(ct_zeros(CT_SHAPE(2), CT_F32), 1LL << 30, NULL), CT_ERR_RUNTIME,
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got "
                "from=1073741824 > to_inc=16777216");
    CHECK_VALUES(t, CT_SHAPE(2), 0, 0);
}

/* ---------------------------------------------------------------- errors, in PyTorch's words */

static void test_errors(void)
{
    ct_tensor *f = ct_empty(CT_SHAPE(3), CT_F32), *e = ct_expand(f, CT_SHAPE(2, 3));
    CHECK_ERR(ct_rand(CT_SHAPE(3), CT_I64, NULL), CT_ERR_RUNTIME, "\"check_uniform_bounds\" not implemented for 'Long'");
    CHECK_ERR(ct_rand(CT_SHAPE(-1), CT_F32, NULL), CT_ERR_RUNTIME, "Trying to create tensor with negative dimension -1: [-1]");
    CHECK_ERR(ct_randn(CT_SHAPE(3), CT_I32, NULL), CT_ERR_RUNTIME, "\"normal_kernel_cpu\" not implemented for 'Int'");
    CHECK_ERR(ct_randint(5, 3, CT_SHAPE(2), CT_DEFAULT, NULL), CT_ERR_RUNTIME,
              "random_ expects 'from' to be less than 'to', but got from=5 >= to=3");
    CHECK_ERR(ct_randint(0, 300, CT_SHAPE(2), CT_U8, NULL), CT_ERR_RUNTIME, "to - 1 is out of bounds for unsigned char");
    CHECK_ERR(ct_randint(-1, 3, CT_SHAPE(2), CT_U8, NULL), CT_ERR_RUNTIME, "from is out of bounds for unsigned char");
    CHECK_ERR(ct_randint(0, 300, CT_SHAPE(2), CT_I8, NULL), CT_ERR_RUNTIME, "to - 1 is out of bounds for signed char");
    CHECK_ERR(ct_randint(0, 1LL << 40, CT_SHAPE(2), CT_I32, NULL), CT_ERR_RUNTIME, "to - 1 is out of bounds for int");
    CHECK_ERR(ct_randint(0, 3, CT_SHAPE(2), CT_BOOL, NULL), CT_ERR_RUNTIME, "to - 1 is out of bounds for bool");
    CHECK_ERR(ct_randint(0, 70000, CT_SHAPE(2), CT_F16, NULL), CT_ERR_RUNTIME, "to - 1 is out of bounds for c10::Half");
    CHECK_ERR(ct_randperm(-1, CT_DEFAULT, NULL), CT_ERR_RUNTIME, "Trying to create tensor with negative dimension -1: [-1]");
    CHECK_ERR(ct_randperm(257, CT_U8, NULL), CT_ERR_RUNTIME, "value cannot be converted to type uint8_t without overflow");
    CHECK_ERR(ct_randperm(3, CT_BOOL, NULL), CT_ERR_RUNTIME, "\"randperm\" not implemented for 'Bool'");
    CHECK_ERR(ct_randperm(2050, CT_F16, NULL), CT_ERR_RUNTIME, "n cannot be greater than 2049 for Half type.");
    CHECK_ERR(ct_randperm((1 << 24) + 2, CT_F32, NULL), CT_ERR_RUNTIME, "n cannot be greater than 2^24+1 for Float type.");
    CHECK_ERR(ct_normal_scalar(0, -1, CT_SHAPE(3), CT_F32, NULL), CT_ERR_RUNTIME,
              "normal expects std >= 0.0, but found std -1");
    CHECK_FAILS(ct_normal_(f, 0, NAN, NULL), CT_ERR_RUNTIME, "normal expects std >= 0.0, but found std nan");
    CHECK_FAILS(ct_uniform_(f, 5, 3, NULL), CT_ERR_RUNTIME,
                "uniform_ expects to return a [from, to) range, but found from=5 > to=3");
    CHECK_FAILS(ct_uniform_(f, 0, 1e39, NULL), CT_ERR_RUNTIME, "to is out of bounds for float");
    CHECK_FAILS(ct_uniform_(f, -3e38, 3e38, NULL), CT_ERR_RUNTIME,
                "uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=3e+38 and from=-3e+38 "
                "which result in to-from to exceed the limit");
    CHECK_FAILS(ct_exponential_(f, -1, NULL), CT_ERR_RUNTIME, "exponential_ expects lambda >= 0.0, but found lambda=-1");
    CHECK_FAILS(ct_exponential_(ct_empty(CT_SHAPE(3), CT_I64), 1, NULL), CT_ERR_RUNTIME,
                "\"exponential_cpu\" not implemented for 'Long'");
    CHECK_FAILS(ct_bernoulli_(f, 1.5, NULL), CT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=1.5");
    CHECK_FAILS(ct_bernoulli_(ct_empty(CT_SHAPE(3), CT_F16), 0.5, NULL), CT_ERR_RUNTIME,
                "\"bernoulli_scalar_cpu_\" not implemented for 'Half'");
    const char *overlap = "unsupported operation: more than one element of the written-to tensor refers to a single "
                          "memory location. Please clone() the tensor before performing the operation.";
    CHECK_FAILS(ct_uniform_(e, 0, 1, NULL), CT_ERR_RUNTIME, overlap);
    CHECK_FAILS(ct_normal_(e, 0, 1, NULL), CT_ERR_RUNTIME, overlap);
    CHECK_FAILS(ct_random_(e, 0, 3, NULL), CT_ERR_RUNTIME, overlap);
    CHECK_FAILS(ct_bernoulli_(e, 0.5, NULL), CT_ERR_RUNTIME, overlap);
    CHECK_FAILS(ct_exponential_(e, 1, NULL), CT_ERR_RUNTIME, overlap);
}

static void test_tensor_argument_errors(void)
{
    float p[2] = {0.5f, 1.5f}, z[2] = {0, 0}, neg[2] = {0.5f, -0.5f}, inf[2] = {0.5f, INFINITY}, nan[2] = {0.5f, NAN};
    ct_tensor *ones = ct_ones(CT_SHAPE(3), CT_F32);
    CHECK_ERR(ct_bernoulli(ct_from_array(p, CT_SHAPE(2), CT_F32), NULL), CT_ERR_RUNTIME,
              "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
              "If so, please report an enhancement request to PyTorch.)");
    CHECK_ERR(ct_bernoulli(ct_ones(CT_SHAPE(2), CT_F16), NULL), CT_ERR_RUNTIME,
              "\"bernoulli_tensor_cpu_self_\" not implemented for 'Half'");
    CHECK_ERR(ct_bernoulli(ct_ones(CT_SHAPE(2), CT_I64), NULL), CT_ERR_RUNTIME,
              "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'");
    CHECK_ERR(ct_normal(ones, ct_from_array(neg, CT_SHAPE(2), CT_F32), NULL), CT_ERR_RUNTIME,
              "normal expects all elements of std >= 0.0");
    CHECK_ERR(ct_normal(ones, ct_from_array(nan, CT_SHAPE(2), CT_F32), NULL), CT_ERR_RUNTIME,
              "normal expects all elements of std >= 0.0");
    CHECK_ERR(ct_normal(ones, ct_ones(CT_SHAPE(4), CT_F32), NULL), CT_ERR_RUNTIME,
              "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0");
    CHECK_ERR(ct_normal(ct_ones(CT_SHAPE(3), CT_I64), ones, NULL), CT_ERR_RUNTIME,
              "\"normal_kernel_cpu\" not implemented for 'Long'");
    CHECK_ERR(ct_normal(NULL, ones, NULL), CT_ERR_TYPE, "normal(): argument 'mean' (position 1) must be Tensor, not NULL");
    const char *bad = "probability tensor contains either `inf`, `nan` or element < 0";
    CHECK_ERR(ct_multinomial(ct_from_array(neg, CT_SHAPE(2), CT_F32), 1, false, NULL), CT_ERR_RUNTIME, bad);
    CHECK_ERR(ct_multinomial(ct_from_array(nan, CT_SHAPE(2), CT_F32), 1, false, NULL), CT_ERR_RUNTIME, bad);
    CHECK_ERR(ct_multinomial(ct_from_array(neg, CT_SHAPE(2), CT_F32), 1, true, NULL), CT_ERR_RUNTIME,
              "invalid multinomial distribution (encountering probability entry < 0)");
    CHECK_ERR(ct_multinomial(ct_from_array(nan, CT_SHAPE(2), CT_F32), 1, true, NULL), CT_ERR_RUNTIME,
              "invalid multinomial distribution (encountering probability entry < 0)");
    CHECK_ERR(ct_multinomial(ct_from_array(inf, CT_SHAPE(2), CT_F32), 1, true, NULL), CT_ERR_RUNTIME,
              "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
    const char *zero = "invalid multinomial distribution (sum of probabilities <= 0)";
    CHECK_ERR(ct_multinomial(ct_from_array(z, CT_SHAPE(2), CT_F32), 1, false, NULL), CT_ERR_RUNTIME, zero);
    CHECK_ERR(ct_multinomial(ct_from_array(z, CT_SHAPE(2), CT_F32), 1, true, NULL), CT_ERR_RUNTIME, zero);
    CHECK_ERR(ct_multinomial(ct_ones(CT_SHAPE(2, 0), CT_F32), 2, true, NULL), CT_ERR_RUNTIME, zero);
    CHECK_ERR(ct_multinomial(ones, 4, false, NULL), CT_ERR_RUNTIME,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    CHECK_ERR(ct_multinomial(ones, 0, true, NULL), CT_ERR_RUNTIME, "cannot sample n_sample <= 0 samples");
    CHECK_ERR(ct_multinomial(ct_ones(CT_SHAPE0, CT_F32), 1, true, NULL), CT_ERR_RUNTIME, "prob_dist must be 1 or 2 dim");
    CHECK_ERR(ct_multinomial(ct_ones(CT_SHAPE(2), CT_I64), 1, true, NULL), CT_ERR_RUNTIME,
              "multinomial only supports floating-point dtypes for input, got: Long");
    CHECK_ERR(ct_multinomial(ct_ones(CT_SHAPE(2), CT_F16), 1, true, NULL), CT_ERR_RUNTIME,
              "multinomial is not implemented for half on CPU");
    ct_tensor *none = ct_multinomial(ct_ones(CT_SHAPE(0, 3), CT_F32), 2, false, NULL);
    CHECK(none && ct_dim(none) == 2 && ct_size(none, 0) == 0 && ct_size(none, 1) == 2);
}

int main(void)
{
    RUN_CPU_DRAWS(test_manual_seed_0);
    RUN_CPU_DRAWS(test_seed004_examples);
    RUN_CPU_DRAWS(test_streams_match_pytorch);
    RUN(test_generator_seeds);
    RUN_CPU_DRAWS(test_state_round_trip);
    RUN_CPU_DRAWS(test_state_from_pytorch);
    if (ct_test_cpu_draws()) SKIP(test_cuda_draws_match_pytorch, "CUDA's Philox stream");
    else RUN(test_cuda_draws_match_pytorch);
    RUN(test_threads_share_the_default_generator);
    RUN(test_random_to_the_end);
    RUN(test_errors);
    RUN(test_tensor_argument_errors);
    return ct_test_report();
}
