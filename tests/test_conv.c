/* Convolution and pooling against PyTorch: every case of
 * tests/golden/conv.txt (written by gen_conv.py) checks the output, its
 * node name, max pooling's indices and the gradient of every input; then
 * gradcheck and gradgradcheck in float64 for every case on fresh random
 * inputs of the same shapes. */
#include "harness.h"

#include <pthread.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------------------------------------------------------- a case */

typedef struct op_args {
    ct_shape s, p, d, op, k, o, pad, sz;
    const char *ps;
    char ps_buf[8];
    int64_t g, div, r;
    int m;
    bool c, cip, ac;
    double v, sf[3];
} op_args;

static void parse_list(const char **s, ct_shape *out)
{
    while (**s && **s != ';') {
        out->size[out->ndim++] = strtoll(*s, (char **)s, 10);
        if (**s == ',') (*s)++;
    }
}

/* "s=2,1;p=1;ps=same;..." */
static void parse_args(const char *s, op_args *a)
{
    memset(a, 0, sizeof *a);
    a->cip = true;
    while (*s) {
        char key[8] = {0};
        int n = 0;
        while (*s && *s != '=' && n < 7) key[n++] = *s++;
        if (*s == '=') s++;
        ct_shape *lists[] = {&a->s, &a->p, &a->d, &a->op, &a->k, &a->o, &a->pad, &a->sz};
        const char *names[] = {"s", "p", "d", "op", "k", "o", "pad", "sz"};
        bool listed = false;
        for (int i = 0; i < 8; i++)
            if (!strcmp(key, names[i])) {
                parse_list(&s, lists[i]);
                listed = true;
            }
        if (listed) {
        } else if (!strcmp(key, "ps")) {
            int j = 0;
            while (*s && *s != ';' && j < 7) a->ps_buf[j++] = *s++;
            a->ps = a->ps_buf;
        } else if (!strcmp(key, "sf")) {
            for (int j = 0; *s && *s != ';' && j < 3; j++) {
                a->sf[j] = strtod(s, (char **)&s);
                if (*s == ',') s++;
            }
        } else if (!strcmp(key, "v")) {
            a->v = strtod(s, (char **)&s);
        } else {
            long long v = strtoll(s, (char **)&s, 10);
            if (!strcmp(key, "g")) a->g = v;
            if (!strcmp(key, "div")) a->div = v;
            if (!strcmp(key, "r")) a->r = v;
            if (!strcmp(key, "m")) a->m = (int)v;
            if (!strcmp(key, "c")) a->c = v;
            if (!strcmp(key, "cip")) a->cip = v;
            if (!strcmp(key, "ac")) a->ac = v;
        }
        while (*s && *s != ';') s++;
        if (*s == ';') s++;
    }
}

typedef struct test_case {
    char id[512], op[512], node[512];
    op_args a;
    int n_in;
} test_case;

typedef ct_tensor *(*conv_fn)(const ct_tensor *, const ct_tensor *, const ct_tensor *, ct_conv_opts);

/* The case's op on inputs in; *indices gets max pooling's indices. */
static ct_tensor *run_case(const test_case *t, ct_tensor *const *in, ct_tensor **indices)
{
    const op_args *a = &t->a;
    static const struct { const char *name; conv_fn fn; } convs[] = {
        {"conv1d", ct_conv1d}, {"conv2d", ct_conv2d}, {"conv3d", ct_conv3d},
        {"conv_transpose1d", ct_conv_transpose1d}, {"conv_transpose2d", ct_conv_transpose2d},
        {"conv_transpose3d", ct_conv_transpose3d}};
    for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++)
        if (!strcmp(t->op, convs[i].name)) {
            ct_conv_opts o = {a->s, a->p, a->ps, a->d, a->g, a->op};
            return convs[i].fn(in[0], in[1], t->n_in > 2 ? in[2] : NULL, o);
        }
    ct_max_pool_opts mo = {a->s, a->p, a->d, a->c};
    ct_avg_pool_opts ao = {a->s, a->p, a->c, a->cip, a->div};
    ct_fold_opts fo = {a->d, a->p, a->s};
    ct_interp_opts io = {a->sz, {a->sf[0], a->sf[1], a->sf[2]}, (ct_interp_mode)a->m, a->ac};
    if (!strcmp(t->op, "max_pool2d")) return ct_max_pool2d_with_indices(in[0], a->k, mo, indices);
    if (!strcmp(t->op, "max_pool1d")) return ct_max_pool1d_with_indices(in[0], a->k, mo, indices);
    if (!strcmp(t->op, "avg_pool2d")) return ct_avg_pool2d(in[0], a->k, ao);
    if (!strcmp(t->op, "avg_pool1d")) return ct_avg_pool1d(in[0], a->k, ao);
    if (!strcmp(t->op, "adaptive_avg_pool2d")) return ct_adaptive_avg_pool2d(in[0], a->o);
    if (!strcmp(t->op, "adaptive_max_pool2d")) return ct_adaptive_max_pool2d(in[0], a->o, indices);
    if (!strcmp(t->op, "unfold")) return ct_im2col(in[0], a->k, fo);
    if (!strcmp(t->op, "fold")) return ct_col2im(in[0], a->o, a->k, fo);
    if (!strcmp(t->op, "pad")) return ct_pad(in[0], a->pad, (ct_pad_mode)a->m, a->v);
    if (!strcmp(t->op, "interpolate")) return ct_interpolate(in[0], io);
    if (!strcmp(t->op, "pixel_shuffle")) return ct_pixel_shuffle(in[0], a->r);
    if (!strcmp(t->op, "pixel_unshuffle")) return ct_pixel_unshuffle(in[0], a->r);
    ct_test_fail(__FILE__, __LINE__, "unknown op %s", t->op);
    return NULL;
}

static int read_cases(test_case *cases, int cap)
{
    FILE *file = fopen("tests/golden/conv.txt", "r");
    char line[512];
    int n = 0;
    if (!file) {
        ct_test_fail(__FILE__, __LINE__, "tests/golden/conv.txt is missing");
        return 0;
    }
    while (n < cap && fgets(line, sizeof line, file)) {
        char *f[5] = {line}, *p = line;
        for (int i = 1; i < 5 && p; i++) {
            p = strchr(p, '|');
            if (p) *p++ = 0, f[i] = p;
        }
        if (!p) continue;
        test_case *t = &cases[n++];
        snprintf(t->id, sizeof t->id, "%s", f[0]);
        snprintf(t->op, sizeof t->op, "%s", f[1]);
        snprintf(t->node, sizeof t->node, "%s", f[3]);
        parse_args(f[2], &t->a);
        t->n_in = atoi(f[4]);
    }
    fclose(file);
    return n;
}

/* ---------------------------------------------------------------- golden values */

/* g within rtol * |expect| + atol of expect, atol relative to the case's
 * largest value: ctorch sums the same products in another order (GEMM
 * blocking, weights of separable maps multiplied first). */
static void check_close(const char *what, const ct_tensor *g, const ct_tensor *expect)
{
    int64_t n = ct_numel(expect);
    double *a = (double *)calloc((size_t)n + 1, sizeof(double)), *b = (double *)calloc((size_t)n + 1, sizeof(double));
    double tol = ct_dtype_of(expect) == CT_F64 ? 1e-13 : 4e-6, scale = 0;
    if (!g || ct_dtype_of(g) != ct_dtype_of(expect) || ct_dim(g) != ct_dim(expect) || ct_numel(g) != n) {
        ct_test_fail(__FILE__, __LINE__, "%s: %s", what, g ? "dtype or shape differs from PyTorch's" : ct_last_error());
    } else {
        for (int d = 0; d < ct_dim(g); d++)
            if (ct_size(g, d) != ct_size(expect, d)) ct_test_fail(__FILE__, __LINE__, "%s: size %d differs", what, d);
        ct_copy_to_array(g, a, n, CT_F64);
        ct_copy_to_array(expect, b, n, CT_F64);
        for (int64_t i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
        for (int64_t i = 0; i < n; i++)
            if (!(fabs(a[i] - b[i]) <= tol * (fabs(b[i]) + scale))) {
                ct_test_fail(__FILE__, __LINE__, "%s: element %lld is %.9g, PyTorch's %.9g", what, (long long)i, a[i], b[i]);
                break;
            }
    }
    free(a);
    free(b);
}

static const ct_tensor *gold(const char *id, const char *what)
{
    char name[600];
    snprintf(name, sizeof name, "%.40s_%.20s", id, what);
    return golden("conv", name);
}

#define MAX_CASES 128

static void test_golden(void)
{
    static test_case cases[MAX_CASES];
    int n = read_cases(cases, MAX_CASES);
    CHECK(n > 60);
    for (int c = 0; c < n; c++) {
        const test_case *t = &cases[c];
        ct_scope s = ct_scope_begin();
        ct_tensor *in[3] = {NULL, NULL, NULL}, *idx = NULL;
        char what[1200];
        for (int i = 0; i < t->n_in; i++) {
            snprintf(what, sizeof what, "i%d", i);
            in[i] = ct_clone(gold(t->id, what));
            ct_requires_grad_(in[i], true);
        }
        ct_tensor *y = run_case(t, in, &idx);
        snprintf(what, sizeof what, "%.40s %.40s output", t->id, t->op);
        check_close(what, y, gold(t->id, "y"));
        if (y) {
            if (strcmp(ct_node_name(ct_grad_fn(y)), t->node))
                ct_test_fail(__FILE__, __LINE__, "%s %s: node %s, PyTorch's %s", t->id, t->op, ct_node_name(ct_grad_fn(y)), t->node);
            if (strstr(t->op, "max_pool")) CHECK_TENSOR(idx, gold(t->id, "idx"), 0);
            ct_tensor *grads[3] = {NULL, NULL, NULL};
            const ct_tensor *gy = gold(t->id, "gy");
            if (ct_autograd_grad((const ct_tensor *const *)&y, 1, (const ct_tensor *const *)in, t->n_in, &gy, grads,
                                 (ct_grad_opts){0}) != CT_OK)
                ct_test_fail(__FILE__, __LINE__, "%s backward: %s", t->id, ct_last_error());
            for (int i = 0; i < t->n_in; i++) {
                snprintf(what, sizeof what, "%.40s %.40s gradient of input %d", t->id, t->op, i);
                char gname[8];
                snprintf(gname, sizeof gname, "g%d", i);
                check_close(what, grads[i], gold(t->id, gname));
            }
        }
        ct_scope_end(s);
    }
}

/* ---------------------------------------------------------------- gradcheck */

static int case_fn(ct_tensor *const *inputs, int n, ct_tensor **out, void *user)
{
    (void)n;
    out[0] = run_case((const test_case *)user, inputs, NULL);
    return out[0] ? 1 : -1;
}

/* Every case in float64 on fresh random inputs (no ties for max pooling). */
static void test_gradcheck(void)
{
    static test_case cases[MAX_CASES];
    int n = read_cases(cases, MAX_CASES);
    ct_manual_seed(1);
    for (int c = 0; c < n; c++) {
        const test_case *t = &cases[c];
        ct_scope s = ct_scope_begin();
        ct_tensor *in[3];
        char what[16];
        for (int i = 0; i < t->n_in; i++) {
            snprintf(what, sizeof what, "i%d", i);
            const ct_tensor *g = gold(t->id, what);
            int64_t sizes[CT_MAX_DIMS];
            for (int d = 0; d < ct_dim(g); d++) sizes[d] = ct_size(g, d);
            in[i] = ct_randn(ct_shape_make(ct_dim(g), sizes), CT_F64, NULL);
            ct_requires_grad_(in[i], true);
        }
        if (ct_gradcheck(case_fn, in, t->n_in, (void *)t, ct_gradcheck_opts_init()) != CT_OK)
            ct_test_fail(__FILE__, __LINE__, "gradcheck %s %s: %s", t->id, t->op, ct_last_error());
        if (ct_gradgradcheck(case_fn, in, t->n_in, (void *)t, ct_gradcheck_opts_init()) != CT_OK)
            ct_test_fail(__FILE__, __LINE__, "gradgradcheck %s %s: %s", t->id, t->op, ct_last_error());
        ct_clear_error();
        ct_scope_end(s);
    }
}

/* ---------------------------------------------------------------- seed 002's custom Conv2D */

/* Conv2D.forward: F.conv2d(X, weight), X and weight saved */
static ct_result conv2d_forward(ct_function_ctx *ctx, ct_tensor *const *in, int n, ct_tensor **out)
{
    ct_conv_opts o = {0};
    ct_ctx_save_for_backward(ctx, in, n);
    out[0] = ct_conv2d(in[0], in[1], NULL, o);
    return out[0] ? CT_OK : ct_last_error_code();
}

/* convolution_backward: grad of weight = conv2d(X.T(0, 1), grad_out.T(0, 1)).T(0, 1),
 * grad of X = conv_transpose2d(grad_out, weight) */
static ct_result conv2d_backward(ct_function_ctx *ctx, ct_tensor *const *go, ct_tensor **gi)
{
    ct_conv_opts o = {0};
    ct_tensor *x = ct_ctx_saved_tensor(ctx, 0), *w = ct_ctx_saved_tensor(ctx, 1);
    if (!x || !w) return ct_last_error_code();
    gi[1] = ct_transpose(ct_conv2d(ct_transpose(x, 0, 1), ct_transpose(go[0], 0, 1), NULL, o), 0, 1);
    gi[0] = ct_conv_transpose2d(go[0], w, NULL, o);
    return gi[0] && gi[1] ? CT_OK : ct_last_error_code();
}

static int conv2d_apply(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    return ct_function_apply((const ct_function *)user, in, n, out, NULL) == CT_OK ? 1 : -1;
}

static void test_seed_custom_conv2d(void)
{
    /* weight = torch.rand(5, 3, 3, 3, requires_grad=True, dtype=torch.double)
     * X = torch.rand(10, 3, 7, 7, requires_grad=True, dtype=torch.double)
     * torch.autograd.gradcheck(Conv2D.apply, (X, weight)) */
    static const ct_function conv = {"Conv2D", 1, conv2d_forward, conv2d_backward, true};
    ct_manual_seed(0);
    ct_tensor *in[2] = {ct_rand(CT_SHAPE(10, 3, 7, 7), CT_F64, NULL), ct_rand(CT_SHAPE(5, 3, 3, 3), CT_F64, NULL)};
    ct_requires_grad_(in[0], true);
    ct_requires_grad_(in[1], true);
    CHECK_OK(ct_gradcheck(conv2d_apply, in, 2, (void *)&conv, ct_gradcheck_opts_init()));
}

/* ---------------------------------------------------------------- infinities */

/* y = conv2d(x, w) of a 5x5 image and a 3x3 kernel (ones, but for an infinity at x[at] or w[at]),
 * y.sum().backward(): the gradient of the other one is PyTorch's, infinities only where its windows meet
 * the infinity (convolutions of stride 1 read the image through wide columns, whose discarded places
 * meet image values where the window wraps around a line). */
static void check_inf_grad(bool in_x, int at, const float *expect)
{
    ct_scope s = ct_scope_begin();
    float xv[25], wv[9], got[25];
    for (int i = 0; i < 25; i++) xv[i] = in_x && i == at ? INFINITY : 1;
    for (int i = 0; i < 9; i++) wv[i] = !in_x && i == at ? INFINITY : 1;
    ct_tensor *x = ct_from_array(xv, CT_SHAPE(1, 1, 5, 5), CT_F32), *w = ct_from_array(wv, CT_SHAPE(1, 1, 3, 3), CT_F32);
    ct_tensor *wrt = in_x ? w : x;
    ct_requires_grad_(wrt, true);
    CHECK_OK(ct_backward(ct_sum(ct_conv2d(x, w, NULL, (ct_conv_opts){0})), NULL, (ct_backward_opts){0}));
    int n = in_x ? 9 : 25;
    ct_copy_to_array(ct_grad(wrt), got, n, CT_F32);
    for (int i = 0; i < n; i++)
        if (!(got[i] == expect[i])) ct_test_fail(__FILE__, __LINE__, "element %d is %g, PyTorch's %g", i, got[i], expect[i]);
    ct_scope_end(s);
}

static void test_infinities(void)
{
    const float inf = INFINITY;
    const float gw[9] = {inf, 9, 9, inf, 9, 9, 9, 9, 9}; /* x[1][0] infinite */
    const float gx[25] = {1, 2, inf, inf, inf, 2, 4, inf, inf, inf, 3, 6, inf, inf, inf,
                          2, 4, 6, 4, 2, 1, 2, 3, 2, 1}; /* w[0][2] infinite */
    check_inf_grad(true, 5, gw);
    check_inf_grad(false, 2, gx);
}

/* Max pooling's scan, as PyTorch's: the first maximum, the last NaN of a window (PyTorch 1.13:
 * F.max_pool2d(x, 2, return_indices=True) gives these indices). */
static void test_max_pool_nan(void)
{
    ct_scope s = ct_scope_begin();
    const float nan = NAN, xv[16] = {1, nan, 3, 4, nan, 2, 5, 5, 7, nan, -1, -2, 8, 8, -3, nan};
    const int64_t expect[4] = {4, 6, 9, 15};
    int64_t got[4];
    ct_tensor *idx = NULL, *x = ct_from_array(xv, CT_SHAPE(1, 4, 4), CT_F32);
    CHECK(ct_max_pool2d_with_indices(x, CT_SHAPE(2), (ct_max_pool_opts){0}, &idx) != NULL);
    CHECK_OK(ct_copy_to_array(idx, got, 4, CT_I64));
    for (int i = 0; i < 4; i++)
        if (got[i] != expect[i]) ct_test_fail(__FILE__, __LINE__, "window %d: index %lld, PyTorch's %lld", i, (long long)got[i], (long long)expect[i]);
    ct_scope_end(s);
}

/* x (n, c, h, w) of values full of ties and NaNs (of both signs), each row followed by `extra`
 * columns of NaN, as a tensor of dtype. */
static ct_tensor *pool_input(const int64_t *shape, int64_t extra, ct_dtype dtype, uint32_t *seed)
{
    const double picks[8] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1, 2};
    int64_t rows = shape[0] * shape[1] * shape[2], w = shape[3] + extra;
    double *v = (double *)malloc(sizeof(double) * (size_t)(rows * w));
    for (int64_t i = 0; i < rows * w; i++) {
        if (i % w >= shape[3]) {
            v[i] = NAN;
            continue;
        }
        *seed = *seed * 1664525u + 1013904223u;
        /* a NaN one time in 16, else one of six values */
        v[i] = picks[*seed >> 28 ? 2 + (*seed >> 16) % 6 : (*seed >> 16) % 2];
    }
    ct_tensor *t = ct_to(ct_from_array(v, CT_SHAPE(shape[0], shape[1], shape[2], w), CT_F64), dtype);
    free(v);
    return t;
}

/* A max pool's maxima (as float64, bit for bit) and indices, with the indices
 * of a pool over rows `extra` columns longer read as those of the plain rows. */
static void pool_result(ct_tensor *x, const int64_t *k, const int64_t *stride, int64_t w, int64_t extra, double *v,
                        int64_t *idx, int64_t n)
{
    ct_tensor *i = NULL, *r = ct_max_pool2d_with_indices(x, CT_SHAPE(k[0], k[1]), (ct_max_pool_opts){.stride = CT_SHAPE(stride[0], stride[1])}, &i);
    CHECK_T(r);
    CHECK_OK(ct_copy_to_array(r, v, n, CT_F64));
    CHECK_OK(ct_copy_to_array(i, idx, n, CT_I64));
    for (int64_t j = 0; j < n; j++) idx[j] = idx[j] / (w + extra) * w + idx[j] % (w + extra);
}

/* The kernel for windows that tile the rows gives the scan's maxima and indices bit for bit: against
 * the kernel for other windows inside the image (the same windows over rows with NaN columns
 * appended past the last window) and the table of adaptive pooling (the same windows when they
 * tile the plane), for rows of every kind, floats and doubles. */
static void test_max_pool_tiled_rows(void)
{
    static const struct { int64_t shape[4], k[2], stride[2]; } cases[] = {
        {{2, 3, 28, 28}, {2, 2}, {2, 2}}, {{1, 1, 1, 6}, {1, 2}, {1, 2}},   {{3, 5, 7, 9}, {2, 3}, {2, 3}},
        {{1, 2, 9, 10}, {3, 2}, {1, 2}},  {{1, 3, 15, 15}, {2, 2}, {2, 2}}, {{2, 1, 5, 7}, {3, 3}, {2, 2}},
        {{1, 2, 6, 1000}, {2, 2}, {2, 2}}, {{1, 1, 4, 2100}, {2, 2}, {2, 2}}, {{4, 2, 10, 10}, {2, 5}, {2, 5}},
    };
    uint32_t seed = 7;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int d = 0; d < 2; d++) {
            ct_scope s = ct_scope_begin();
            const int64_t *sh = cases[c].shape, *k = cases[c].k, *st = cases[c].stride;
            ct_dtype dtype = d ? CT_F64 : CT_F32;
            int64_t oh = (sh[2] - k[0]) / st[0] + 1, ow = (sh[3] - k[1]) / st[1] + 1, n = sh[0] * sh[1] * oh * ow;
            double *v = (double *)malloc(sizeof(double) * (size_t)n * 3);
            int64_t *idx = (int64_t *)malloc(sizeof(int64_t) * (size_t)n * 3);
            uint32_t again = seed;
            int64_t extra = st[1] - 1 - (sh[3] - k[1]) % st[1]; /* columns that make no more windows */
            ct_tensor *x = pool_input(sh, 0, dtype, &seed), *wide = pool_input(sh, extra, dtype, &again);
            pool_result(x, k, st, sh[3], 0, v, idx, n);
            pool_result(wide, k, st, sh[3], extra, v + n, idx + n, n);
            bool tiles = k[0] == st[0] && k[1] == st[1] && sh[2] == oh * k[0] && sh[3] == ow * k[1];
            ct_tensor *ai = NULL, *a = tiles ? ct_adaptive_max_pool2d(x, CT_SHAPE(oh, ow), &ai) : NULL;
            if (tiles) {
                CHECK_OK(ct_copy_to_array(a, v + 2 * n, n, CT_F64));
                CHECK_OK(ct_copy_to_array(ai, idx + 2 * n, n, CT_I64));
            }
            for (int other = 1; other <= (tiles ? 2 : 1); other++)
                if (memcmp(v, v + other * n, sizeof(double) * (size_t)n) || memcmp(idx, idx + other * n, sizeof(int64_t) * (size_t)n))
                    ct_test_fail(__FILE__, __LINE__, "case %zu, %s: the %s kernel differs", c, d ? "double" : "float",
                                 other == 1 ? "inside" : "adaptive");
            free(v);
            free(idx);
            ct_scope_end(s);
        }
}

/* ---------------------------------------------------------------- threads' scratch memory */

/* A convolution's forward and backward and a product large enough to pack
 * its operands, on a thread of its own that then exits: the thread's scratch
 * buffers (columns, packed blocks) go with it (the sanitizer build's leak
 * check fails otherwise), and the results are those of the calling thread. */
typedef struct thread_work {
    const ct_tensor *x, *w, *a, *b; /* shared, read only */
    ct_tensor *grad, *product;
} thread_work;

static void *conv_and_product(void *p)
{
    thread_work *t = (thread_work *)p;
    ct_scope s = ct_scope_begin();
    ct_tensor *w = ct_clone(t->w);
    ct_requires_grad_(w, true);
    ct_backward(ct_sum(ct_conv2d(t->x, w, NULL, (ct_conv_opts){0})), NULL, (ct_backward_opts){0});
    t->grad = ct_keep(ct_grad(w));
    t->product = ct_keep(ct_mm(t->a, t->b));
    ct_scope_end(s);
    return NULL;
}

static void test_thread_scratch_freed_at_exit(void)
{
    ct_scope s = ct_scope_begin();
    ct_manual_seed(7);
    thread_work mine = {.x = ct_randn(CT_SHAPE(8, 3, 12, 12), CT_F32, NULL),
                        .w = ct_randn(CT_SHAPE(4, 3, 3, 3), CT_F32, NULL),
                        .a = ct_randn(CT_SHAPE(200, 150), CT_F64, NULL),
                        .b = ct_randn(CT_SHAPE(150, 90), CT_F64, NULL)};
    thread_work theirs[4];
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) {
        theirs[i] = mine;
        CHECK(pthread_create(&threads[i], NULL, conv_and_product, &theirs[i]) == 0);
    }
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    conv_and_product(&mine);
    for (int i = 0; i < 4; i++) {
        CHECK(ct_equal(mine.grad, theirs[i].grad) && ct_equal(mine.product, theirs[i].product));
        ct_release(theirs[i].grad), ct_release(theirs[i].product);
    }
    ct_scope_end(s); /* with mine, kept for it (the threads had no scope around theirs) */
}

#ifdef _OPENMP
/* ---------------------------------------------------------------- thread counts */

/* The forward and the three gradients of the LeNet-sized convolutions (the weight's gradient by its dot
 * form with the output's gradient read in place and copied, and by its lanes form) and a padded,
 * strided one: the threads split them into other pieces at each count, which must give the same bits. */
static void test_same_bits_on_any_thread_count(void)
{
    static const int64_t cases[][6] = {/* N, Cin, HW, Cout, k, padding */
                                       {64, 1, 28, 16, 5, 0}, {64, 16, 14, 32, 5, 0}, {64, 6, 14, 16, 5, 0},
                                       {64, 1, 28, 6, 5, 2},  {64, 3, 27, 16, 3, 1}};
    int saved = omp_get_max_threads();
    ct_scope s = ct_scope_begin();
    ct_manual_seed(11);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t *k = cases[c];
        ct_tensor *x = ct_randn(CT_SHAPE(k[0], k[1], k[2], k[2]), CT_F32, NULL);
        ct_tensor *w = ct_randn(CT_SHAPE(k[3], k[1], k[4], k[4]), CT_F32, NULL);
        ct_tensor *b = ct_randn(CT_SHAPE(k[3]), CT_F32, NULL), *r[4][4], *gy = NULL;
        ct_conv_opts o = {.padding = CT_SHAPE(k[5]), .stride = CT_SHAPE(c == 4 ? 2 : 1)};
        for (int i = 0; i < 3; i++) ct_requires_grad_((ct_tensor *[]){x, w, b}[i], true);
        for (int t = 0; t < 4; t++) {
            omp_set_num_threads(t + 1);
            ct_tensor *y = ct_conv2d(x, w, b, o), *g[3] = {0};
            if (t == 0) /* the output's gradient: sum's (expanded, copied) or a dense one */
                gy = c % 2 ? ct_randn(ct_shape_of(y), CT_F32, NULL)
                           : ct_expand(ct_ones(CT_SHAPE0, CT_F32), ct_shape_of(y));
            CHECK_OK(ct_autograd_grad((const ct_tensor *[]){y}, 1, (const ct_tensor *[]){x, w, b}, 3,
                                      (const ct_tensor *[]){gy}, g, (ct_grad_opts){0}));
            r[t][0] = y, r[t][1] = g[0], r[t][2] = g[1], r[t][3] = g[2];
        }
        for (int t = 1; t < 4; t++)
            for (int i = 0; i < 4; i++) CHECK_TENSOR(r[t][i], r[0][i], 0);
    }
    omp_set_num_threads(saved);
    ct_scope_end(s);
}
#endif

int main(void)
{
    RUN(test_golden);
    RUN(test_gradcheck);
    RUN(test_seed_custom_conv2d);
    RUN(test_infinities);
    RUN(test_max_pool_nan);
    RUN(test_max_pool_tiled_rows);
    RUN(test_thread_scratch_freed_at_exit);
#ifdef _OPENMP
    RUN(test_same_bits_on_any_thread_count);
#else
    SKIP(test_same_bits_on_any_thread_count, "built without OpenMP");
#endif
    return ct_test_report();
}
