#define _POSIX_C_SOURCE 200809L /* popen */
/* The seed examples (examples/seeds/<name>.c) print exactly what their PyTorch
 * twins (<name>.py, run by the oracle into <name>.out) print. */
#include "harness.h"

#include <dirent.h>
#include <unistd.h>

#ifndef CT_BUILD_DIR
#define CT_BUILD_DIR "build"
#endif

static char *read_stream(FILE *f)
{
    size_t cap = 1 << 16, n = 0;
    char *s = (char *)malloc(cap);
    for (size_t got; (got = fread(s + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) s = (char *)realloc(s, cap *= 2);
    }
    s[n] = 0;
    return s;
}

/* The first line where two texts differ, for the failure message. */
static void report_difference(const char *name, const char *got, const char *want)
{
    int line = 1;
    const char *g = got, *w = want;
    while (*g && *g == *w) {
        if (*g == '\n') line++;
        g++, w++;
    }
    const char *gl = g, *wl = w;
    while (gl > got && gl[-1] != '\n') gl--;
    while (wl > want && wl[-1] != '\n') wl--;
    ct_test_fail(__FILE__, __LINE__, "%s differs at line %d:\n    got:      %.*s\n    expected: %.*s", name, line,
                 (int)strcspn(gl, "\n"), gl, (int)strcspn(wl, "\n"), wl);
}

/* Runs $BUILD/<dir>/<name> and compares what it prints with <dir>/<name>.out. */
static void check_program(const char *dir, const char *name)
{
    char cmd[512], out[512];
    snprintf(cmd, sizeof cmd, "%s/%s/%s", CT_BUILD_DIR, dir, name);
    snprintf(out, sizeof out, "%s/%s.out", dir, name);
    FILE *want_f = fopen(out, "r"), *got_f = popen(cmd, "r");
    if (!want_f || !got_f) {
        ct_test_fail(__FILE__, __LINE__, "cannot run %s or read %s", cmd, out);
    } else {
        char *got = read_stream(got_f), *want = read_stream(want_f);
        int status = pclose(got_f);
        got_f = NULL;
        if (status != 0) ct_test_fail(__FILE__, __LINE__, "%s exited with status %d", cmd, status);
        if (strcmp(got, want)) report_difference(name, got, want);
        free(got);
        free(want);
    }
    if (want_f) fclose(want_f);
    if (got_f) pclose(got_f);
}

/* Checks every <name>.c in dir that has a PyTorch twin <name>.py; returns how many. */
static int check_programs_in(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int programs = 0;
    CHECK(d != NULL);
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".c")) continue;
        char name[256], twin[512];
        snprintf(name, sizeof name, "%.*s", (int)(len - 2), e->d_name);
        snprintf(twin, sizeof twin, "%s/%s.py", dir, name);
        if (access(twin, R_OK) != 0) continue;
        check_program(dir, name);
        programs++;
    }
    if (d) closedir(d);
    return programs;
}

static void test_seed_programs_match_pytorch(void) { CHECK(check_programs_in("examples/seeds") >= 5); }

#ifdef CTORCH_ZLIB
/* The main demo trains on the bundled digits (gzip) as its PyTorch twin does. */
static void test_demo_matches_pytorch(void) { CHECK(check_programs_in("examples") == 1); }
#endif

int main(void)
{
    RUN(test_seed_programs_match_pytorch);
#ifdef CTORCH_ZLIB
    RUN(test_demo_matches_pytorch);
#else
    SKIP(test_demo_matches_pytorch, "built without zlib");
#endif
    return ct_test_report();
}
