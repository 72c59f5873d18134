#define _POSIX_C_SOURCE 200809L /* popen, mkdtemp */
/* The README's examples: every ```c block that is a whole program (it defines
 * CTORCH_IMPLEMENTATION) is compiled and run, and must print exactly the
 * ```text block that follows it. A program that includes ctorch_dist.h is
 * built with mpicc and run by mpirun on 2 ranks (skipped, by name, without
 * MPI). */
#include "harness.h"

#include <unistd.h>

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = (char *)malloc((size_t)n + 1);
    s[fread(s, 1, (size_t)n, f)] = 0;
    fclose(f);
    return s;
}

/* The body of the fenced block that opens with `fence` at or after p (NULL if none); *end moves past it. */
static char *next_block(const char *p, const char *fence, const char **end)
{
    const char *start = strstr(p, fence);
    if (!start) return NULL;
    start += strlen(fence);
    const char *stop = strstr(start, "\n```");
    if (!stop) return NULL;
    *end = stop + 4;
    size_t n = (size_t)(stop - start) + 1;
    char *body = (char *)malloc(n + 1);
    memcpy(body, start, n);
    body[n] = 0;
    return body;
}

static char *run(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    size_t cap = 1 << 16, n = 0;
    char *out = (char *)calloc(cap, 1);
    if (!p) return out;
    n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    pclose(p);
    return out;
}

static void test_readme_programs_print_their_output(void)
{
    char *readme = read_file("README.md");
    char dir[] = "/tmp/ctorch-readme-XXXXXX";
    int programs = 0;
    CHECK(readme != NULL);
    CHECK(mkdtemp(dir) != NULL);
    const char *cc = getenv("CC") ? getenv("CC") : "cc";
    for (const char *p = readme, *end; readme;) {
        char *code = next_block(p, "```c\n", &end);
        if (!code) break;
        p = end;
        if (!strstr(code, "#define CTORCH_IMPLEMENTATION")) { /* a fragment, not a program */
            free(code);
            continue;
        }
        char *want = next_block(p, "```text\n", &end);
        char src[512], cmd[2048];
        snprintf(src, sizeof src, "%s/example%d.c", dir, programs);
        FILE *f = fopen(src, "w");
        fputs(code, f);
        fclose(f);
        if (!strstr(code, "ctorch_dist.h")) {
            snprintf(cmd, sizeof cmd, "%s -std=c11 -w -I. %s -o %s/example%d -lm 2>&1 && %s/example%d", cc, src, dir,
                     programs, dir, programs);
        } else { /* two ranks on gloo, started as the README starts them (OMP_NUM_THREADS set: no notice) */
            snprintf(cmd, sizeof cmd,
                     "%s -std=c11 -w -I. %s -o %s/example%d -lm -lpthread 2>&1 && "
                     "OMP_NUM_THREADS=1 %s/ctorchrun --standalone --nproc_per_node 2 %s/example%d 2>&1",
                     cc, src, dir, programs, CT_BUILD_DIR, dir, programs);
        }
        char *got = run(cmd);
        if (!want || strcmp(got, want))
            ct_test_fail(__FILE__, __LINE__, "README program %d printed\n%s\nexpected\n%s", programs + 1, got,
                         want ? want : "(no ```text block after it)");
        free(got);
        free(want);
        free(code);
        programs++;
    }
    CHECK(programs >= 3);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    free(readme);
}

int main(void)
{
    RUN(test_readme_programs_print_their_output);
    return ct_test_report();
}
