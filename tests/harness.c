/* The test harness (see harness.h); the tests link ctorch's implementation
 * from the build's libctorch.a. */
#include "harness.h"
#include "testdev.h"

#include <stdarg.h>

int ct_test_failed_checks;
const char *ct_test_name = "";
static int passed, failed, skipped;

void ct_test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (ct_test_failed_checks++ >= 20) return; /* enough to see the pattern */
    fprintf(stdout, "  %s:%d: in %s: ", file, line, ct_test_name);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
}

/* With CTORCH_TEST_DEVICE set, every tensor the tests make goes on the test
 * device (tests/testdev.c), whose memory the host cannot read: the suite
 * then proves that the ops reach memory only through the backend table.
 * CTORCH_TEST_DEVICE=cuda puts them on cuda:0 instead (a program linked with
 * ctorch_cuda.cu, on a machine with a GPU). */
static void use_test_device_if_asked(void)
{
    static int done;
    const char *asked = getenv("CTORCH_TEST_DEVICE");
    if (done++ || !asked || !*asked) return;
    bool cuda = !strcmp(asked, "cuda");
    if ((!cuda && ct_testdev_register() != CT_OK) || ct_set_default_device(cuda ? CT_CUDA(0) : CT_TESTDEV(0)) != CT_OK) {
        printf("FAIL test_device_setup (%s)\n", ct_last_error());
        exit(1);
    }
}

bool ct_test_on_device(void)
{
    use_test_device_if_asked();
    return ct_get_default_device().type != CT_DEVICE_CPU;
}

bool ct_test_libm_bits_differ(const char *op, const char *const *ops)
{
#ifdef _WIN32
    for (; *ops; ops++)
        if (!strcmp(op, *ops)) return true;
#else
    (void)op, (void)ops;
#endif
    return false;
}

bool ct_test_on_cuda(void)
{
    use_test_device_if_asked();
    return ct_get_default_device().type == CT_DEVICE_CUDA;
}

bool ct_test_cpu_draws(void) { return !ct_test_on_cuda(); }

/* The suffix that starts at p, after its separator (", " or ",\n" and the
 * indent), or NULL: suffixes are the only items that start with a key. */
static const char *next_suffix(const char *p)
{
    static const char *const keys[] = {"dtype=", "grad_fn=", "requires_grad=", "size="};
    if (*p++ != ',') return NULL;
    p += strspn(p, " \n");
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (!strncmp(p, keys[k], strlen(keys[k]))) return p;
    return NULL;
}

/* Take the device suffix out of a repr and lay the suffixes after it out
 * again as PyTorch's _add_suffixes would have without it (each on the last
 * line while it fits in the line width, else on a new line at the indent). */
void ct_test_drop_device_suffix(char *repr)
{
    char device[64], name[32];
    snprintf(device, sizeof device, "device='%s'", ct_device_str(ct_get_default_device(), name, sizeof name));
    char *at = strstr(repr, device), rest[1 << 16] = "";
    if (!at) {
        ct_test_fail(__FILE__, __LINE__, "repr without %s: %s", device, repr);
        return;
    }
    char *from = at; /* back over ", " or ",\n" and the indent */
    while (from > repr && from[-1] == ' ') from--;
    if (from > repr && from[-1] == '\n') from--;
    if (from > repr && from[-1] == ',') from--;
    const char *nl = from;
    while (nl > repr && nl[-1] != '\n') nl--;
    long last = (long)(from - nl) + 2, indent = 7, width = ct_get_printoptions().linewidth; /* indent: "tensor(" */
    const char *p = at + strlen(device), *s;
    while ((s = next_suffix(p))) {
        const char *end = next_suffix(s + strcspn(s, ",")) ? s + strcspn(s, ",") : s + strlen(s) - 1; /* before ")" */
        for (const char *q = s; (q = strchr(q, ',')) && q < s + strlen(s) - 1; q++) /* the next suffix's comma */
            if (next_suffix(q)) {
                end = q;
                break;
            }
        long len = (long)(end - s);
        bool wrap = last + len + 2 > width;
        snprintf(rest + strlen(rest), sizeof rest - strlen(rest), wrap ? ",\n%*s%.*s" : ", %.*s%.*s",
                 wrap ? (int)indent : 0, "", (int)len, s);
        last = wrap ? indent + len : last + len + 2;
        p = end;
    }
    snprintf(rest + strlen(rest), sizeof rest - strlen(rest), "%s", p);
    memcpy(from, rest, strlen(rest) + 1);
}

int ct_test_exec(const char *name, void (*fn)(void))
{
    use_test_device_if_asked();
    ct_test_name = name;
    ct_test_failed_checks = 0;
    ct_clear_error();
    ct_scope s = ct_scope_begin();
    fn();
    ct_scope_end(s);
    return ct_test_failed_checks;
}

void ct_test_run(const char *name, void (*fn)(void))
{
    if (ct_test_exec(name, fn)) {
        failed++;
        printf("FAIL %s\n", name);
    } else {
        passed++;
        printf("ok   %s\n", name);
    }
    fflush(stdout);
}

void ct_test_skip(const char *name, const char *why)
{
    skipped++;
    printf("skip %s (%s)\n", name, why);
}

void ct_test_skip_cases(const char *test, int n, const char *what, const char *why)
{
    char name[256];
    if (n == 0) return;
    snprintf(name, sizeof name, "%s: %d %s", test, n, what);
    ct_test_skip(name, why);
}

int ct_test_report(void)
{
    /* tests/run.sh adds these lines up */
    printf("RESULT %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}

void ct_test_check_err(const char *file, int line, const char *expr, int succeeded, ct_result code, const char *msg)
{
    if (succeeded) {
        ct_test_fail(file, line, "%s succeeded, expected %s: %s", expr, ct_result_str(code), msg);
    } else if (ct_last_error_code() != code || !strstr(ct_last_error(), msg)) {
        ct_test_fail(file, line, "%s failed with %s: \"%s\"\n    expected %s containing \"%s\"", expr,
                     ct_result_str(ct_last_error_code()), ct_last_error(), ct_result_str(code), msg);
    }
    ct_clear_error();
}

/* Distance in units in the last place between two doubles of a dtype. */
static double ulps(double a, double b, ct_dtype dt)
{
    if (a == b || (a != a && b != b)) return 0;
    if (a != a || b != b || isinf(a) || isinf(b)) return INFINITY;
    int e;
    frexp(fmax(fabs(a), fabs(b)), &e);
    int mant = dt == CT_F64 ? 53 : dt == CT_F32 ? 24 : dt == CT_F16 ? 11 : 8;
    return fabs(a - b) / ldexp(1.0, e - mant);
}

static int same_shape(const ct_tensor *t, ct_shape s)
{
    if (ct_dim(t) != s.ndim) return 0;
    for (int d = 0; d < s.ndim; d++)
        if (ct_size(t, d) != s.size[d]) return 0;
    return 1;
}

void ct_test_check_tensor(const char *file, int line, const char *expr, const ct_tensor *t, const ct_tensor *g,
                          int max_ulps)
{
    if (!t || !g) {
        ct_test_fail(file, line, "%s: %s is NULL: %s", expr, t ? "golden" : "tensor", ct_last_error());
        return;
    }
    if (ct_dtype_of(t) != ct_dtype_of(g)) {
        ct_test_fail(file, line, "%s has dtype %s, expected %s", expr, ct_dtype_name(ct_dtype_of(t)),
                     ct_dtype_name(ct_dtype_of(g)));
        return;
    }
    if (!same_shape(t, ct_shape_of(g))) {
        ct_test_fail(file, line, "%s has %d dims, not golden's shape", expr, ct_dim(t));
        return;
    }
    int64_t n = ct_numel(t);
    double *a = (double *)malloc((size_t)(n ? n : 1) * sizeof(double)), *b = (double *)malloc((size_t)(n ? n : 1) * sizeof(double));
    int64_t *ia = (int64_t *)malloc((size_t)(n ? n : 1) * sizeof(int64_t)), *ib = (int64_t *)malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    ct_copy_to_array(t, a, n, CT_F64);
    ct_copy_to_array(g, b, n, CT_F64);
    ct_copy_to_array(t, ia, n, CT_I64);
    ct_copy_to_array(g, ib, n, CT_I64);
    int reported = 0;
    for (int64_t i = 0; i < n && reported < 5; i++) {
        int bad = ct_is_floating_point(t) ? ulps(a[i], b[i], ct_dtype_of(t)) > max_ulps : ia[i] != ib[i];
        if (bad) {
            ct_test_fail(file, line, "%s[%lld] (flat) == %.17g, expected %.17g", expr, (long long)i, a[i], b[i]);
            reported++;
        }
    }
    free(a), free(b), free(ia), free(ib);
}

void ct_test_check_values(const char *file, int line, const char *expr, const ct_tensor *t, ct_shape shape,
                          const double *values, int64_t n)
{
    if (!t) {
        ct_test_fail(file, line, "%s is NULL: %s", expr, ct_last_error());
        return;
    }
    if (!same_shape(t, shape) || ct_numel(t) != n) {
        ct_test_fail(file, line, "%s has the wrong shape or %lld elements, expected %lld", expr,
                     (long long)ct_numel(t), (long long)n);
        return;
    }
    double *a = (double *)malloc((size_t)(n ? n : 1) * sizeof(double));
    ct_copy_to_array(t, a, n, CT_F64);
    for (int64_t i = 0; i < n; i++)
        if (!(a[i] == values[i] || (a[i] != a[i] && values[i] != values[i]))) {
            ct_test_fail(file, line, "%s[%lld] (flat) == %.17g, expected %.17g", expr, (long long)i, a[i], values[i]);
            break;
        }
    free(a);
}

/* ---------------------------------------------------------------- golden files
 * Format (little-endian), repeated to the end of the file:
 *   u32 name length, name bytes, u8 ct_dtype, u8 ndim, i64 sizes[ndim], data. */

#ifndef CT_GOLDEN_DIR
#define CT_GOLDEN_DIR "tests/golden"
#endif

/* Each golden file is read once: its records go into a hash table by name. */
typedef struct golden_rec {
    char *name;
    uint8_t dtype, ndim;
    int64_t sizes[CT_MAX_DIMS];
    long offset; /* of the data in the file */
} golden_rec;

typedef struct golden_file {
    char path[512];
    FILE *f;
    golden_rec *recs; /* open addressing, cap a power of two */
    size_t cap;
} golden_file;

static golden_file golden_files[32];

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603ull;
    while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static void golden_insert(golden_file *g, const golden_rec *r)
{
    size_t i = name_hash(r->name) & (g->cap - 1);
    while (g->recs[i].name) i = (i + 1) & (g->cap - 1);
    g->recs[i] = *r;
}

/* Read the whole index of a golden file (names, shapes, data offsets). */
static golden_file *golden_open(const char *path)
{
    for (size_t i = 0; i < sizeof golden_files / sizeof golden_files[0]; i++) {
        golden_file *g = &golden_files[i];
        if (g->f && !strcmp(g->path, path)) return g;
        if (g->f) continue;
        if (!(g->f = fopen(path, "rb"))) return NULL;
        snprintf(g->path, sizeof g->path, "%s", path);
        size_t n = 0;
        g->cap = 1024;
        g->recs = (golden_rec *)calloc(g->cap, sizeof *g->recs);
        for (;;) {
            uint32_t len;
            golden_rec r;
            char key[512];
            int64_t numel = 1;
            if (fread(&len, 4, 1, g->f) != 1 || len >= sizeof key || fread(key, 1, len, g->f) != len) break;
            key[len] = 0;
            if (fread(&r.dtype, 1, 1, g->f) != 1 || fread(&r.ndim, 1, 1, g->f) != 1 || r.ndim > CT_MAX_DIMS ||
                fread(r.sizes, 8, r.ndim, g->f) != r.ndim)
                break;
            for (int d = 0; d < r.ndim; d++) numel *= r.sizes[d];
            r.offset = ftell(g->f);
            r.name = (char *)malloc(len + 1);
            memcpy(r.name, key, len + 1);
            if (++n * 2 > g->cap) { /* grow: rehash into twice the room */
                golden_rec *old = g->recs;
                size_t old_cap = g->cap;
                g->cap *= 2;
                g->recs = (golden_rec *)calloc(g->cap, sizeof *g->recs);
                for (size_t k = 0; k < old_cap; k++)
                    if (old[k].name) golden_insert(g, &old[k]);
                free(old);
            }
            golden_insert(g, &r);
            fseek(g->f, (long)((size_t)numel * ct_dtype_size((ct_dtype)r.dtype)), SEEK_CUR);
        }
        return g;
    }
    return NULL;
}

const ct_tensor *golden(const char *file, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.ctg", CT_GOLDEN_DIR, file);
    golden_file *g = golden_open(path);
    if (!g) {
        ct_test_fail(__FILE__, __LINE__, "cannot open %s", path);
        return NULL;
    }
    const golden_rec *r = NULL;
    for (size_t i = name_hash(name) & (g->cap - 1); g->recs[i].name; i = (i + 1) & (g->cap - 1))
        if (!strcmp(g->recs[i].name, name)) {
            r = &g->recs[i];
            break;
        }
    if (!r) {
        ct_test_fail(__FILE__, __LINE__, "no tensor '%s' in %s", name, path);
        return NULL;
    }
    int64_t numel = 1;
    for (int d = 0; d < r->ndim; d++) numel *= r->sizes[d];
    size_t nbytes = (size_t)numel * ct_dtype_size((ct_dtype)r->dtype);
    void *data = malloc(nbytes ? nbytes : 1);
    ct_tensor *found = NULL;
    fseek(g->f, r->offset, SEEK_SET);
    if (fread(data, 1, nbytes, g->f) == nbytes) {
        ct_scope s = ct_scope_begin();
        found = ct_keep(ct_from_array(data, ct_shape_make(r->ndim, r->sizes), (ct_dtype)r->dtype));
        ct_scope_end(s);
    }
    free(data);
    return found; /* kept into the test's scope, which releases it */
}

int ct_test_each_case(const char *path, int n_fields, void (*replay)(char **fields))
{
    FILE *file = fopen(path, "r");
    char line[4096];
    int cases = 0;
    if (!file) {
        ct_test_fail(__FILE__, __LINE__, "cannot open %s", path);
        return -1;
    }
    while (fgets(line, sizeof line, file)) {
        char *f[8];
        int k = 0;
        line[strcspn(line, "\n")] = 0;
        f[k++] = line;
        for (char *p = line; *p && k < n_fields; p++)
            if (*p == '|') *p = 0, f[k++] = p + 1;
        if (k != n_fields) continue;
        ct_scope s = ct_scope_begin();
        replay(f);
        ct_scope_end(s);
        cases++;
    }
    fclose(file);
    return cases;
}

ct_tensor *ct_test_view_of(ct_tensor *t, char v)
{
    if (v == 'T') return ct_transpose(t, -2, -1);
    if (v == 'S') return ct_slice(t, -1, 0, INT64_MAX, 2);
    if (v == 'B') {
        ct_shape s = ct_shape_of(t);
        int64_t sizes[CT_MAX_DIMS] = {2};
        memcpy(sizes + 1, s.size, sizeof(int64_t) * (size_t)s.ndim);
        return ct_expand(ct_unsqueeze(t, 0), ct_shape_make(s.ndim + 1, sizes));
    }
    return t;
}

void ct_test_graph_of(const ct_node *n, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    if (!n) {
        snprintf(buf + len, cap - len, "None");
        return;
    }
    snprintf(buf + len, cap - len, "%s", ct_node_name(n));
    int k = ct_node_num_next(n);
    for (int i = 0; i < k; i++) {
        len = strlen(buf);
        snprintf(buf + len, cap - len, i ? "," : "(");
        ct_test_graph_of(ct_node_next(n, i, NULL), buf, cap);
    }
    len = strlen(buf);
    if (k) snprintf(buf + len, cap - len, ")");
}

void ct_test_check_graph_and_grads(const char *file, const char *what, const char *cid, ct_tensor *out,
                                   ct_tensor *const *x, int n, const char *want_graph)
{
    char name[64], graph[4096] = "";
    ct_test_graph_of(ct_grad_fn(out), graph, sizeof graph);
    if (strcmp(graph, want_graph))
        ct_test_fail(__FILE__, __LINE__, "%s: graph\n%s\nexpected\n%s", what, graph, want_graph);
    snprintf(name, sizeof name, "c%.16s_g", cid);
    const ct_tensor *g = golden(file, name);
    ct_tensor *gx[8] = {NULL};
    ct_grad_opts go = {false, false, false};
    const ct_tensor *const *inputs = (const ct_tensor *const *)x;
    if (n > 8 || ct_autograd_grad((const ct_tensor *const *)&out, 1, inputs, n, &g, gx, go) != CT_OK) {
        ct_test_fail(__FILE__, __LINE__, "%s: backward failed: %s", what, ct_last_error());
        return;
    }
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "c%.16s_gx%d", cid, i);
        ct_test_check_tensor(__FILE__, __LINE__, "gx", gx[i], golden(file, name), 0);
    }
}

/* ---------------------------------------------------------------- golden module cases */

const ct_tensor *ct_test_gold(const char *file, const char *name, const char *suffix)
{
    char key[160];
    snprintf(key, sizeof key, "%s_%s", name, suffix);
    return golden(file, key);
}

/* |t - golden| <= 1e-5 + 1.3e-6 |golden| everywhere (NaN matching NaN). */
static void check_close(const char *file, int line, const char *what, const ct_tensor *t, const ct_tensor *g)
{
    ct_shape a = ct_shape_of(t), b = ct_shape_of(g);
    if (a.ndim != b.ndim || memcmp(a.size, b.size, (size_t)a.ndim * sizeof(int64_t)) || ct_dtype_of(t) != ct_dtype_of(g)) {
        ct_test_fail(file, line, "%s: shape or dtype differs from golden's", what);
        return;
    }
    int64_t n = ct_numel(t);
    double *x = (double *)malloc((size_t)(n + 1) * sizeof *x), *y = (double *)malloc((size_t)(n + 1) * sizeof *y);
    ct_copy_to_array(t, x, n, CT_F64);
    ct_copy_to_array(g, y, n, CT_F64);
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(x[i] - y[i]) <= 1e-5 + 1.3e-6 * fabs(y[i])) && !(isnan(x[i]) && isnan(y[i]))) {
            ct_test_fail(file, line, "%s[%lld] (flat) == %.9g, expected %.9g", what, (long long)i, x[i], y[i]);
            break;
        }
    free(x);
    free(y);
}

void ct_test_compare(const char *file, int line, const char *what, const ct_tensor *t, const ct_tensor *golden_t,
                     int max_ulps)
{
    if (!t || !golden_t) ct_test_fail(file, line, "%s is NULL: %s", what, ct_last_error());
    else if (max_ulps == CT_TEST_CLOSE) check_close(file, line, what, t, golden_t);
    else ct_test_check_tensor(file, line, what, t, golden_t, max_ulps);
}

void ct_test_load_params(const char *file, ct_module *m, const char *name)
{
    ct_tensor_list ps = ct_module_parameters(m, true);
    ct_grad_mode mode = ct_no_grad();
    for (int i = 0; i < ps.n; i++) {
        char suffix[96];
        snprintf(suffix, sizeof suffix, "st_%s", ps.names[i]);
        CHECK_OK(ct_copy_(ps.tensors[i], ct_test_gold(file, name, suffix)));
    }
    ct_grad_mode_restore(mode);
    ct_tensor_list_free(&ps);
}

void ct_test_golden_case(const char *file, const char *name, ct_module *m, ct_test_case_fn fn, void *user, int n_in,
                         int max_ulps, int seed)
{
    int failed_before = ct_test_failed_checks;
    ct_scope s = ct_scope_begin();
    ct_tensor *in[8], *wrt[32];
    int n_wrt = 0, in_of[32];
    for (int i = 0; i < n_in && i < 8; i++) {
        char suffix[16];
        snprintf(suffix, sizeof suffix, "in%d", i);
        in[i] = ct_clone(ct_test_gold(file, name, suffix));
        if (ct_is_floating_point(in[i])) {
            ct_requires_grad_(in[i], true);
            in_of[n_wrt] = i;
            wrt[n_wrt++] = in[i];
        }
    }
    ct_tensor_list ps = {0, NULL, NULL};
    if (m) {
        ct_test_load_params(file, m, name);
        ps = ct_module_parameters(m, true);
        for (int i = 0; i < ps.n && n_wrt < 32; i++) in_of[n_wrt] = -1 - i, wrt[n_wrt++] = ps.tensors[i];
    }
    if (seed >= 0) ct_manual_seed((uint64_t)seed);
    ct_tensor *out = fn ? fn(in, n_in, user) : ct_forward_n(m, in, n_in);
    ct_test_compare(__FILE__, __LINE__, "out", out, ct_test_gold(file, name, "out"), max_ulps);
    ct_tensor *grads[32] = {NULL};
    const ct_tensor *g = ct_test_gold(file, name, "g");
    ct_grad_opts go = {false, false, true};
    if (out && ct_requires_grad(out))
        CHECK_OK(ct_autograd_grad((const ct_tensor *const *)&out, 1, (const ct_tensor *const *)wrt, n_wrt, &g, grads, go));
    for (int k = 0; k < n_wrt; k++) {
        char suffix[96];
        if (in_of[k] >= 0) snprintf(suffix, sizeof suffix, "gin%d", in_of[k]);
        else snprintf(suffix, sizeof suffix, "gp_%s", ps.names[-1 - in_of[k]]);
        ct_tensor *gk = grads[k] ? grads[k] : ct_zeros_like(wrt[k], CT_DEFAULT);
        ct_test_compare(__FILE__, __LINE__, suffix, gk, ct_test_gold(file, name, suffix), max_ulps);
    }
    if (m && !strstr(ct_module_name(m), "Loss")) { /* a loss case records no state */
        ct_tensor_list st = ct_module_state_dict(m);
        for (int i = 0; i < st.n; i++) {
            char suffix[96];
            snprintf(suffix, sizeof suffix, "st_%s", st.names[i]);
            ct_test_compare(__FILE__, __LINE__, suffix, st.tensors[i], ct_test_gold(file, name, suffix), max_ulps);
        }
        ct_tensor_list_free(&st);
    }
    ct_tensor_list_free(&ps);
    ct_scope_end(s);
    if (ct_test_failed_checks != failed_before) printf("    (in case %s)\n", name);
}
