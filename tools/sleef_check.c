/* Compares ctorch's float32 erf, gelu and gelu backward with PyTorch's
 * results read from stdin (tools/sleef_check.py writes them and says how to
 * run both), bit for bit, NaN matching any NaN; prints the number of
 * mismatches and the first few. Not part of the test suite. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>
#include <string.h>

/* Reads n floats from stdin into p; false at the end of the input. */
static bool read_floats(float *p, int64_t n) { return fread(p, sizeof *p, (size_t)n, stdin) == (size_t)n; }

/* Counts the elements of got that differ from want, printing the first few. */
static int64_t mismatches(const char *what, const float *x, const float *got, const float *want, int64_t n,
                          int64_t *shown)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        bool nan_got = got[i] != got[i], nan_want = want[i] != want[i];
        if (nan_got == nan_want && (nan_got || !memcmp(&got[i], &want[i], sizeof got[i]))) continue;
        if ((*shown)++ < 10) printf("%s(%a): %a, PyTorch %a\n", what, (double)x[i], (double)got[i], (double)want[i]);
        bad++;
    }
    return bad;
}

/* erf of every float bit pattern, in chunks of 2^26. */
static int check_erf(void)
{
    const int64_t n = (int64_t)1 << 26;
    float *x = (float *)malloc((size_t)n * sizeof *x), *want = (float *)malloc((size_t)n * sizeof *want);
    int64_t bad = 0, done = 0, shown = 0;
    while (read_floats(want, n)) {
        for (int64_t i = 0; i < n; i++) {
            uint32_t b = (uint32_t)(done + i);
            memcpy(&x[i], &b, sizeof b);
        }
        ct_scope s = ct_scope_begin();
        ct_tensor *got = ct_erf(ct_from_array(x, ct_shape_make(1, &n), CT_F32));
        bad += mismatches("erf", x, (const float *)ct_data_ptr(got), want, n, &shown);
        ct_scope_end(s);
        done += n;
    }
    printf("erf: %lld floats, %lld mismatches\n", (long long)done, (long long)bad);
    free(x);
    free(want);
    return done == (int64_t)1 << 32 && bad == 0 ? 0 : 1;
}

/* gelu and its gradient (through autograd) on chunks of x, dy, gelu(x),
 * gelu_backward(dy, x). */
static int check_gelu(void)
{
    const int64_t n = (int64_t)1 << 22;
    float *buf = (float *)malloc((size_t)(4 * n) * sizeof *buf);
    int64_t bad_fwd = 0, bad_bwd = 0, done = 0, shown = 0;
    ct_backward_opts o = {false, false, NULL, 0};
    while (read_floats(buf, 4 * n)) {
        ct_scope s = ct_scope_begin();
        ct_shape shape = ct_shape_make(1, &n);
        ct_tensor *x = ct_from_array(buf, shape, CT_F32), *dy = ct_from_array(buf + n, shape, CT_F32);
        ct_requires_grad_(x, true);
        ct_tensor *y = ct_gelu(x, CT_GELU_NONE);
        if (ct_backward(y, dy, o) != CT_OK) return 1;
        bad_fwd += mismatches("gelu", buf, (const float *)ct_data_ptr(y), buf + 2 * n, n, &shown);
        bad_bwd += mismatches("gelu_backward", buf, (const float *)ct_data_ptr(ct_grad(x)), buf + 3 * n, n, &shown);
        ct_scope_end(s);
        done += n;
    }
    printf("gelu: %lld inputs, %lld mismatches; gelu_backward: %lld mismatches\n", (long long)done,
           (long long)bad_fwd, (long long)bad_bwd);
    free(buf);
    return done > 0 && bad_fwd == 0 && bad_bwd == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "erf")) return check_erf();
    if (argc == 2 && !strcmp(argv[1], "gelu")) return check_gelu();
    fprintf(stderr, "usage: python3 tools/sleef_check.py erf|gelu | sleef_check erf|gelu\n");
    return 2;
}
