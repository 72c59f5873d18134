/* Checks shared by the bad-input programs (tests/test_errors*.c): a call that
 * must fail with PyTorch's exact words, and proof that a failed call wrote
 * nothing. */
#ifndef CT_TEST_ERRORS_H
#define CT_TEST_ERRORS_H
#include "harness.h"

#define NULL_T ((ct_tensor *)NULL)
/* expr, given a NULL tensor, fails with TypeError naming the argument */
#define CHECK_NULL(expr, text) CHECK_ERR(expr, CT_ERR_TYPE, text)
#define CHECK_NULL_R(expr, text) CHECK_FAILS(expr, CT_ERR_TYPE, text)

/* A call that must fail: `failed` says whether it did. The error must have
 * this code and exactly this message (PyTorch's whole message, not a part of
 * it); it is then cleared. */
static inline void expect_fail(int line, const char *what, bool failed, ct_result code, const char *msg)
{
    if (!failed)
        ct_test_fail(__FILE__, line, "%s succeeded, expected %s: %s", what, ct_result_str(code), msg);
    else if (ct_last_error_code() != code || strcmp(ct_last_error(), msg))
        ct_test_fail(__FILE__, line, "%s failed with %s: \"%s\"\n    expected %s: \"%s\"", what,
                     ct_result_str(ct_last_error_code()), ct_last_error(), ct_result_str(code), msg);
    ct_clear_error();
}

/* The same for a function that returns a ct_result or a count: a failure
 * returns the error's code. */
static inline void expect_code(int line, const char *what, int64_t r, ct_result code, const char *msg)
{
    if (r < 0 && r != code) ct_test_fail(__FILE__, line, "%s returned %lld, not %s", what, (long long)r, ct_result_str(code));
    expect_fail(line, what, r < 0, code, msg);
}

#define FAILS_T(expr, code, msg) expect_fail(__LINE__, #expr, (expr) == NULL, code, msg)
#define FAILS_R(expr, code, msg) expect_code(__LINE__, #expr, (int64_t)(expr), code, msg)
/* A NULL tensor argument, named as PyTorch names it: "add(): argument 'other' (position 2)" */
#define FAILS_NULL(expr, fn_arg) FAILS_T(expr, CT_ERR_TYPE, fn_arg " must be Tensor, not NULL")
#define FAILS_NULL_R(expr, fn_arg) FAILS_R(expr, CT_ERR_TYPE, fn_arg " must be Tensor, not NULL")

/* A tensor's values and version before a call, to show that a failed call wrote nothing. */
typedef struct snap {
    ct_tensor *t, *copy;
    int64_t version;
} snap;

static inline snap snapshot(ct_tensor *t)
{
    snap s;
    s.t = t;
    s.copy = ct_clone(t);
    s.version = ct_version(t);
    return s;
}

static inline void expect_untouched(int line, const char *what, snap s)
{
    if (!s.copy || !ct_equal(s.t, s.copy) || ct_version(s.t) != s.version)
        ct_test_fail(__FILE__, line, "%s wrote to its input before failing", what);
    ct_clear_error();
}

/* An in-place call on t that must fail and leave t as it was. */
#define FAILS_INPLACE(t, expr, code, msg)          \
    do {                                           \
        snap s_ = snapshot(t);                     \
        FAILS_R(expr, code, msg);                  \
        expect_untouched(__LINE__, #expr, s_);     \
    } while (0)

/* t = made; then call (on t) must fail with RuntimeError msg and leave t as it was. */
#define REFUSED(name, t, made, call, msg)                          \
    do {                                                           \
        snap s_ = snapshot(t = (made));                            \
        expect_code(__LINE__, name, call, CT_ERR_RUNTIME, msg);    \
        expect_untouched(__LINE__, name, s_);                      \
    } while (0)

#endif
