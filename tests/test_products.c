/* Matrix products against PyTorch: every case of tests/golden/products.txt
 * (gen_products.py) replays the call on the same inputs and views, and checks
 * the output bit for bit (the inputs are small integers, so every sum is exact
 * in any order), the recorded graph (node names down to the leaves, which is
 * how matmul's decomposition is checked) and the inputs' gradients. Then
 * gradcheck and gradgradcheck in float64 for every product. */
/* (RTLD_NEXT, to count the threads started: test_products_start_no_threads) */
#define _GNU_SOURCE
#include "harness.h"

#if defined(_OPENMP) && defined(__GLIBC__)
#define COUNTS_THREADS 1
#include <dlfcn.h>
#include <pthread.h>
#endif

/* ---------------------------------------------------------------- replaying golden cases */

static int arity(const char *op) { return !strncmp(op, "add", 3) || !strcmp(op, "baddbmm") ? 3 : 2; }

static ct_tensor *run_product(const char *op, ct_tensor *const *x, ct_addmm_opts o)
{
    if (!strcmp(op, "mm")) return ct_mm(x[0], x[1]);
    if (!strcmp(op, "bmm")) return ct_bmm(x[0], x[1]);
    if (!strcmp(op, "mv")) return ct_mv(x[0], x[1]);
    if (!strcmp(op, "dot")) return ct_dot(x[0], x[1]);
    if (!strcmp(op, "vdot")) return ct_vdot(x[0], x[1]);
    if (!strcmp(op, "outer")) return ct_outer(x[0], x[1]);
    if (!strcmp(op, "matmul")) return ct_matmul(x[0], x[1]);
    if (!strcmp(op, "addmm")) return ct_addmm(x[0], x[1], x[2], o);
    if (!strcmp(op, "addmv")) return ct_addmv(x[0], x[1], x[2], o);
    if (!strcmp(op, "baddbmm")) return ct_baddbmm(x[0], x[1], x[2], o);
    return NULL;
}

static void replay(char **f)
{
    char name[64], what[128];
    const char *cid = f[0], *op = f[1], *views = f[2];
    int n = arity(op);
    ct_addmm_opts o = {strtod(f[3], NULL), strtod(f[4], NULL)};
    ct_tensor *x[3];
    snprintf(what, sizeof what, "case %.16s: %.16s %.8s", cid, op, views);
    bool floating = strcmp(f[5], "-") != 0;
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "c%.16s_x%d", cid, i);
        x[i] = ct_test_view_of(ct_clone(golden("products", name)), views[i]);
        if (floating && x[i]) {
            x[i] = ct_detach(x[i]);
            ct_requires_grad_(x[i], true);
        }
    }
    ct_tensor *out = run_product(op, x, o);
    if (!out) {
        ct_test_fail(__FILE__, __LINE__, "%s failed: %s", what, ct_last_error());
        return;
    }
    snprintf(name, sizeof name, "c%.16s_out", cid);
    CHECK_TENSOR(out, golden("products", name), 0);
    if (!floating) return;
    ct_test_check_graph_and_grads("products", what, cid, out, x, n, f[5]);
}

static void test_golden(void) { CHECK(ct_test_each_case("tests/golden/products.txt", 6, replay) == 136); }

/* ---------------------------------------------------------------- gradcheck */

typedef struct grad_case {
    const char *op;
    ct_shape shapes[3];
    ct_addmm_opts o;
} grad_case;

static int run_case(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    const grad_case *c = (const grad_case *)user;
    (void)n;
    out[0] = run_product(c->op, in, c->o);
    return out[0] ? 1 : -1;
}

static void test_gradcheck(void)
{
    const grad_case cases[] = {
        {"mm", {CT_SHAPE(3, 4), CT_SHAPE(4, 2)}, {1, 1}},
        {"bmm", {CT_SHAPE(2, 3, 4), CT_SHAPE(2, 4, 2)}, {1, 1}},
        {"mv", {CT_SHAPE(3, 4), CT_SHAPE(4)}, {1, 1}},
        {"dot", {CT_SHAPE(5), CT_SHAPE(5)}, {1, 1}},
        {"vdot", {CT_SHAPE(5), CT_SHAPE(5)}, {1, 1}},
        {"outer", {CT_SHAPE(3), CT_SHAPE(4)}, {1, 1}},
        {"addmm", {CT_SHAPE(3, 2), CT_SHAPE(3, 4), CT_SHAPE(4, 2)}, {1, 1}},
        {"addmm", {CT_SHAPE(2), CT_SHAPE(3, 4), CT_SHAPE(4, 2)}, {0.5, -2}},
        {"addmm", {CT_SHAPE(3, 2), CT_SHAPE(3, 4), CT_SHAPE(4, 2)}, {0, 3}},
        {"addmv", {CT_SHAPE(3), CT_SHAPE(3, 4), CT_SHAPE(4)}, {2, 0.5}},
        {"addmv", {CT_SHAPE0, CT_SHAPE(3, 4), CT_SHAPE(4)}, {1, 1}},
        {"baddbmm", {CT_SHAPE(2, 3, 2), CT_SHAPE(2, 3, 4), CT_SHAPE(2, 4, 2)}, {1, 1}},
        {"baddbmm", {CT_SHAPE(3, 1), CT_SHAPE(2, 3, 4), CT_SHAPE(2, 4, 2)}, {-1, 0.5}},
        {"matmul", {CT_SHAPE(4), CT_SHAPE(4)}, {1, 1}},
        {"matmul", {CT_SHAPE(4), CT_SHAPE(4, 3)}, {1, 1}},
        {"matmul", {CT_SHAPE(3, 4), CT_SHAPE(4)}, {1, 1}},
        {"matmul", {CT_SHAPE(2, 3, 4), CT_SHAPE(4, 2)}, {1, 1}},
        {"matmul", {CT_SHAPE(2, 3, 4), CT_SHAPE(4)}, {1, 1}},
        {"matmul", {CT_SHAPE(4), CT_SHAPE(2, 4, 3)}, {1, 1}},
        {"matmul", {CT_SHAPE(3, 4), CT_SHAPE(2, 4, 2)}, {1, 1}},
        {"matmul", {CT_SHAPE(2, 1, 3, 4), CT_SHAPE(3, 4, 2)}, {1, 1}},
    };
    ct_manual_seed(1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ct_scope s = ct_scope_begin();
        const grad_case *c = &cases[i];
        int n = arity(c->op);
        ct_tensor *in[3];
        for (int k = 0; k < n; k++) {
            in[k] = ct_randn(c->shapes[k], CT_F64, NULL);
            ct_requires_grad_(in[k], true);
        }
        CHECK_OK(ct_gradcheck(run_case, in, n, (void *)c, ct_gradcheck_opts_init()));
        CHECK_OK(ct_gradgradcheck(run_case, in, n, (void *)c, ct_gradcheck_opts_init()));
        ct_scope_end(s);
    }
}

/* A transposed (column-major) operand and a broadcast one read in place give
 * the same numbers as their contiguous copies (small integers: exact sums,
 * whatever order a BLAS adds them in). */
static void test_layouts(void)
{
    ct_manual_seed(2);
    ct_tensor *a = ct_to(ct_randint(-3, 4, CT_SHAPE(40, 30), CT_I64, NULL), CT_F64);
    ct_tensor *b = ct_to(ct_randint(-3, 4, CT_SHAPE(20, 30), CT_I64, NULL), CT_F64);
    ct_tensor *r = ct_mm(a, ct_t(b)), *ref = ct_mm(a, ct_contiguous(ct_t(b)));
    CHECK(ct_equal(r, ref));
    ct_tensor *row = ct_expand(ct_to(ct_randint(-3, 4, CT_SHAPE(1, 30), CT_I64, NULL), CT_F64), CT_SHAPE(40, 30));
    CHECK(ct_equal(ct_mm(row, ct_t(b)), ct_mm(ct_contiguous(row), ct_t(b))));
}

/* As PyTorch's mm backward: a column-major input (a Linear's weight seen as
 * W.t()) gets a column-major gradient, so the weight's own gradient is
 * contiguous (what the fused optimizer steps need); the values are the same
 * as from the row-major product (small integers: exact). */
static void test_gradient_layouts(void)
{
    ct_manual_seed(3);
    ct_tensor *x = ct_to(ct_randint(-3, 4, CT_SHAPE(8, 30), CT_I64, NULL), CT_F32);
    ct_tensor *w = ct_to(ct_randint(-3, 4, CT_SHAPE(20, 30), CT_I64, NULL), CT_F32);
    ct_tensor *g = ct_to(ct_randint(-3, 4, CT_SHAPE(8, 20), CT_I64, NULL), CT_F32);
    CHECK_OK(ct_requires_grad_(x, true));
    CHECK_OK(ct_requires_grad_(w, true));
    CHECK_OK(ct_backward(ct_mm(x, ct_t(w)), g, (ct_backward_opts){0}));
    CHECK(ct_is_contiguous(ct_grad(w)) && ct_is_contiguous(ct_grad(x)));
    CHECK(ct_equal(ct_grad(w), ct_mm(ct_t(g), x)));
    CHECK(ct_equal(ct_grad(x), ct_mm(g, w)));
    ct_tensor *xt = ct_contiguous(ct_t(ct_detach(x))); /* mm(xt.t(), ...): the first input column-major */
    CHECK_OK(ct_requires_grad_(xt, true));
    CHECK_OK(ct_backward(ct_mm(ct_t(xt), ct_t(w)), g, (ct_backward_opts){0}));
    CHECK(ct_is_contiguous(ct_grad(xt)));
    CHECK(ct_equal(ct_grad(xt), ct_t(ct_mm(g, w))));
}

/* The GEMM against a plain loop, on shapes that cross every block edge of
 * the blocked form (MR, NR, KC, MC and NC) and of the unpacked forms for few
 * rows (tiles, vector tails, the row form's column panels: 3 x 700 x 520),
 * with each operand transposed or not. The values are small integers, so
 * both give exactly the same sums. */
static void test_gemm_blocks(void)
{
    const int64_t shapes[][3] = {{1, 1, 1},    {7, 13, 5},   {33, 65, 300}, {130, 70, 513},
                                 {5, 2100, 20}, {300, 3, 9}, {3, 700, 520}};
    ct_manual_seed(3);
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int f64 = 0; f64 < 2; f64++) {
                    ct_scope s = ct_scope_begin();
                    int64_t M = shapes[c][0], N = shapes[c][1], K = shapes[c][2];
                    ct_dtype dt = f64 ? CT_F64 : CT_F32;
                    ct_tensor *a = ct_to(ct_randint(-3, 4, ta ? CT_SHAPE(K, M) : CT_SHAPE(M, K), CT_I64, NULL), dt);
                    ct_tensor *b = ct_to(ct_randint(-3, 4, tb ? CT_SHAPE(N, K) : CT_SHAPE(K, N), CT_I64, NULL), dt);
                    ct_tensor *A = ta ? ct_t(a) : a, *B = tb ? ct_t(b) : b;
                    ct_tensor *r = ct_mm(A, B), *ad = ct_cpu(ct_contiguous(ct_to(A, CT_F64))),
                              *bd = ct_cpu(ct_contiguous(ct_to(B, CT_F64)));
                    ct_tensor *ref = ct_cpu(ct_zeros(CT_SHAPE(M, N), CT_F64)); /* (host copies on a device) */
                    const double *pa = (const double *)ct_data_ptr(ad), *pb = (const double *)ct_data_ptr(bd);
                    double *pr = (double *)ct_data_ptr(ref);
                    for (int64_t i = 0; i < M; i++)
                        for (int64_t k = 0; k < K; k++)
                            for (int64_t j = 0; j < N; j++) pr[i * N + j] += pa[i * K + k] * pb[k * N + j];
                    if (!ct_equal(ct_cpu(ct_to(r, CT_F64)), ref))
                        ct_test_fail(__FILE__, __LINE__, "mm %lldx%lldx%lld ta %d tb %d f64 %d differs", (long long)M,
                                     (long long)N, (long long)K, ta, tb, f64);
                    ct_scope_end(s);
                }
}

/* beta 0 never reads the added input: its NaNs do not reach the result. */
static void test_beta_zero(void)
{
    ct_tensor *nan = ct_full(CT_SHAPE(2, 2), ct_float(NAN), CT_F32), *m = ct_ones(CT_SHAPE(2, 3), CT_F32);
    ct_addmm_opts o = ct_addmm_opts_init();
    o.beta = 0;
    CHECK_VALUES(ct_addmm(nan, m, ct_t(m), o), CT_SHAPE(2, 2), 3, 3, 3, 3);
    CHECK_VALUES(ct_addmv(ct_full(CT_SHAPE(2), ct_float(NAN), CT_F32), m, ct_ones(CT_SHAPE(3), CT_F32), o),
                 CT_SHAPE(2), 3, 3);
}

#ifdef COUNTS_THREADS
static int threads_started;

/* Every thread this program starts, OpenMP's included, comes through here (the program's own definition
 * comes before the C library's), is counted, and is then started by the C library's pthread_create. */
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    void *found = dlsym(RTLD_NEXT, "pthread_create");
    memcpy(&real, &found, sizeof real); /* (an object pointer to a function pointer, as POSIX allows) */
    __atomic_add_fetch(&threads_started, 1, __ATOMIC_RELAXED);
    return real(thread, attr, start, arg);
}

/* A product split over threads runs on OpenMP's pool, whose threads start once. Nested in another parallel
 * region, even an inactive one (if (false)), a product's region got a team whose threads started anew
 * every time: tens of microseconds per product. The products are above the work that a contended machine
 * keeps on one thread. */
static void test_products_start_no_threads(void)
{
    int threads = ct_get_num_threads();
    ct_set_num_threads(2);
    ct_tensor *a = ct_ones(CT_SHAPE(128, 512), CT_F32), *b = ct_ones(CT_SHAPE(512, 512), CT_F32);
    ct_tensor *batch = ct_ones(CT_SHAPE(1, 128, 512), CT_F32);
    ct_release(ct_mm(a, b)); /* the pool's threads start here, if not before */
    int before = __atomic_load_n(&threads_started, __ATOMIC_RELAXED);
    for (int i = 0; i < 5; i++) {
        ct_release(ct_mm(a, b));
        ct_release(ct_matmul(batch, b));
    }
    CHECK_INT(__atomic_load_n(&threads_started, __ATOMIC_RELAXED) - before, 0);
    ct_release(a), ct_release(b), ct_release(batch);
    ct_set_num_threads(threads);
}
#endif

int main(void)
{
    RUN(test_golden);
    RUN(test_gradcheck);
    RUN(test_layouts);
    RUN(test_gradient_layouts);
    RUN(test_beta_zero);
    RUN(test_gemm_blocks);
#ifdef COUNTS_THREADS
    RUN(test_products_start_no_threads);
#else
    SKIP(test_products_start_no_threads, "built without OpenMP or glibc");
#endif
    return ct_test_report();
}
