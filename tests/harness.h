/* The test harness: checks that report and go on, golden data from PyTorch,
 * and a summary line that tests/run.sh adds up.
 *
 * A test file holds `static void test_x(void)` functions and a main that runs
 * them with RUN(test_x) and returns test_report(). A check that fails prints
 * where and why and marks the running test failed; the test goes on. */
#ifndef CT_TEST_HARNESS_H
#define CT_TEST_HARNESS_H

#include "ctorch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int ct_test_failed_checks; /* in the running test */
extern const char *ct_test_name;

void ct_test_fail(const char *file, int line, const char *fmt, ...);
void ct_test_run(const char *name, void (*fn)(void));
/* Runs fn as a test, in a scope, without reporting it: its failed checks. */
int ct_test_exec(const char *name, void (*fn)(void));
void ct_test_skip(const char *name, const char *why);
/* Reports n cases of a golden test skipped, as one line "test: n what (why)"; nothing when n is 0. */
void ct_test_skip_cases(const char *test, int n, const char *what, const char *why);
int ct_test_report(void);
/* Whether this run puts the tests' tensors on the test device (CTORCH_TEST_DEVICE). */
bool ct_test_on_device(void);

#define RUN(fn) ct_test_run(#fn, fn)
#define SKIP(fn, why) ct_test_skip(#fn, why)
/* Whether op is one of ops (NULL-terminated) in a Windows build, whose libm
 * (mingw-w64's) does not give glibc's last bits that goldens hold; false
 * elsewhere. */
bool ct_test_libm_bits_differ(const char *op, const char *const *ops);
/* Whether this run puts the tests' tensors on cuda:0 (CTORCH_TEST_DEVICE=cuda). */
bool ct_test_on_cuda(void);
/* A test that cannot run on Windows (it needs symbolic links, file size
 * limits, POSIX or glibc functions, or its goldens hold glibc's last bits of
 * libm functions, which mingw-w64's libm does not give): its code is inside
 * #ifndef _WIN32, and a Windows build reports it skipped, by name, with why. */
#ifdef _WIN32
#define RUN_NOT_ON_WINDOWS(fn, why) SKIP(fn, why)
#else
#define RUN_NOT_ON_WINDOWS(fn, why) RUN(fn)
#endif
/* Whether the tests' random draws are the CPU generator's (mt19937), as the
 * goldens drawn by PyTorch on the CPU are: on the CPU and the test device.
 * CUDA draws from Philox, PyTorch's CUDA stream, so a test whose goldens
 * come from CPU draws runs there as RUN_CPU_DRAWS: reported skipped. */
bool ct_test_cpu_draws(void);
#define RUN_CPU_DRAWS(fn) \
    (ct_test_cpu_draws() ? RUN(fn) : SKIP(fn, "its goldens are CPU draws; CUDA draws from Philox, as PyTorch's does"))

#define CHECK(c) \
    do { if (!(c)) ct_test_fail(__FILE__, __LINE__, "CHECK(%s)", #c); } while (0)
#define CHECK_INT(a, b)                                                                                \
    do {                                                                                              \
        long long ct_a_ = (long long)(a), ct_b_ = (long long)(b);                                     \
        if (ct_a_ != ct_b_) ct_test_fail(__FILE__, __LINE__, "%s == %lld, expected %lld", #a, ct_a_, ct_b_); \
    } while (0)
#define CHECK_NEAR(a, b, tol)                                                                          \
    do {                                                                                              \
        double ct_a_ = (double)(a), ct_b_ = (double)(b);                                              \
        if (!(fabs(ct_a_ - ct_b_) <= (tol)))                                                          \
            ct_test_fail(__FILE__, __LINE__, "%s == %.9g, expected %.9g (tol %g)", #a, ct_a_, ct_b_, (double)(tol)); \
    } while (0)
#define CHECK_STR(a, b)                                                                                \
    do {                                                                                              \
        const char *ct_a_ = (a), *ct_b_ = (b);                                                        \
        if (!ct_a_ || strcmp(ct_a_, ct_b_))                                                           \
            ct_test_fail(__FILE__, __LINE__, "%s ==\n\"%s\"\nexpected\n\"%s\"", #a, ct_a_ ? ct_a_ : "(null)", ct_b_); \
    } while (0)
/* expr must fail (return NULL or a negative ct_result) with this code and a
 * message containing msg; the error is then cleared. */
#define CHECK_ERR(expr, code, msg) ct_test_check_err(__FILE__, __LINE__, #expr, (expr) ? 1 : 0, code, msg)
#define CHECK_FAILS(expr, code, msg) ct_test_check_err(__FILE__, __LINE__, #expr, (expr) == CT_OK, code, msg)
void ct_test_check_err(const char *file, int line, const char *expr, int succeeded, ct_result code, const char *msg);
/* expr must succeed (non-NULL or CT_OK); on failure the message is shown. */
#define CHECK_OK(expr) \
    do { if ((expr) != CT_OK) ct_test_fail(__FILE__, __LINE__, "%s failed: %s", #expr, ct_last_error()); } while (0)
#define CHECK_T(expr) \
    do { if (!(expr)) ct_test_fail(__FILE__, __LINE__, "%s returned NULL: %s", #expr, ct_last_error()); } while (0)

/* repr(t) must equal text exactly. On the test device the repr's first
 * suffix, device='testdev:0', is checked and taken out, so that the CPU's
 * text serves (a later suffix that the device's pushed onto a new line
 * would differ: tests/test_device.c checks device reprs whole). */
#define CHECK_REPR(t, text) ct_test_check_repr(__FILE__, __LINE__, #t, t, text)
void ct_test_drop_device_suffix(char *repr);
static inline void ct_test_check_repr(const char *file, int line, const char *expr, const ct_tensor *t,
                                      const char *text)
{
    static char buf[1 << 16];
    if (!t) {
        ct_test_fail(file, line, "%s is NULL: %s", expr, ct_last_error());
        return;
    }
    ct_to_string(t, buf, sizeof buf);
    if (ct_test_on_device()) ct_test_drop_device_suffix(buf);
    if (strcmp(buf, text)) ct_test_fail(file, line, "repr(%s) ==\n%s\nexpected\n%s", expr, buf, text);
}

/* t must have golden's shape and dtype and its values: bit for bit when
 * max_ulps is 0, else within max_ulps units in the last place (floating). */
#define CHECK_TENSOR(t, golden, max_ulps) ct_test_check_tensor(__FILE__, __LINE__, #t, t, golden, max_ulps)
void ct_test_check_tensor(const char *file, int line, const char *expr, const ct_tensor *t, const ct_tensor *golden,
                          int max_ulps);
/* t must have these values (given as doubles) and this shape. */
#define CHECK_VALUES(t, shape, ...)                                                                    \
    do {                                                                                              \
        const double ct_v_[] = {__VA_ARGS__};                                                         \
        ct_test_check_values(__FILE__, __LINE__, #t, t, shape, ct_v_, (int64_t)(sizeof ct_v_ / sizeof ct_v_[0])); \
    } while (0)
void ct_test_check_values(const char *file, int line, const char *expr, const ct_tensor *t, ct_shape shape,
                          const double *values, int64_t n);

/* A tensor from a golden file (tests/golden/<file>.ctg) written by
 * tests/golden/gen_<file>.py (tests/gen_golden.sh runs them all); NULL (and a
 * failed check) when absent. The running test's scope releases it. */
const ct_tensor *golden(const char *file, const char *name);

/* Each line of a golden case list (tests/golden/<file>.txt) with exactly
 * n_fields '|'-separated fields (at most 8) given to replay, inside a scope
 * of its own; returns how many there were (-1: no file, a failed check). */
int ct_test_each_case(const char *path, int n_fields, void (*replay)(char **fields));

/* The golden generators' view letters (gen_products.py, gen_einsum.py): '-'
 * t itself, T its transpose (last two dims), S every other element of its
 * last dim, B unsqueezed and expanded to a batch of 2 in front. */
ct_tensor *ct_test_view_of(ct_tensor *t, char v);

/* grad_fn's name, then its next functions' graphs in parentheses, None for
 * an input without a gradient (the generators' graph()), appended to buf. */
void ct_test_graph_of(const ct_node *n, char *buf, size_t cap);

/* The end of a product generator's case c<cid> in <file>.ctg: out's graph
 * must read want_graph, and the gradients of the n inputs x for the golden
 * output gradient c<cid>_g must equal c<cid>_gx<i> bit for bit. */
void ct_test_check_graph_and_grads(const char *file, const char *what, const char *cid, ct_tensor *out,
                                   ct_tensor *const *x, int n, const char *want_graph);
/* ---------------------------------------------------------------- golden module cases */

/* What a generator's case() writes for case <name> in <file>.ctg: inputs
 * <name>_in<i>, a random output gradient _g, the output _out, the floating
 * inputs' gradients _gin<i>, the parameters' _gp_<param> and, for a module,
 * its state after the call _st_<name>. */
typedef ct_tensor *(*ct_test_case_fn)(ct_tensor *const *in, int n, void *user);

/* max_ulps for torch.testing.assert_close's float32 tolerances (rtol 1.3e-6,
 * atol 1e-5), for results PyTorch reaches by another order of operations. */
#define CT_TEST_CLOSE (-1)

/* golden(file, "<name>_<suffix>"). */
const ct_tensor *ct_test_gold(const char *file, const char *name, const char *suffix);
/* t against golden bit for bit, within max_ulps, or CT_TEST_CLOSE. */
void ct_test_compare(const char *file, int line, const char *what, const ct_tensor *t, const ct_tensor *golden_t,
                     int max_ulps);
/* m's parameters set (without recording) from case <name>'s recorded state. */
void ct_test_load_params(const char *file, ct_module *m, const char *name);
/* Replay case <name>: the parameters loaded, the recorded inputs (the
 * floating ones requiring grad) given to fn (when not NULL) or to m's
 * forward; output, gradients of the inputs and of m's parameters, and m's
 * state after the call compared with PyTorch's. seed >= 0: ct_manual_seed
 * right before the call, as the generator did. */
void ct_test_golden_case(const char *file, const char *name, ct_module *m, ct_test_case_fn fn, void *user, int n_in,
                         int max_ulps, int seed);

#endif
