/* Shared by the libFuzzer targets (one per parser, tests/fuzz/fuzz_*.c):
 * each is linked with ctorch built once with the sanitizers (impl.c). An
 * input must load or fail with an error set and no tensor left over; a
 * crash, a sanitizer report or a leak is a finding. */
#ifndef CT_FUZZ_H
#define CT_FUZZ_H

#include "ctorch.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file (the readers take paths): one per process, in
 * /dev/shm where there is one, with the given suffix (".gz" matters). */
static inline const char *ct_fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    static char path[256];
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof path, "%s/ctorch_fuzz_%d%s", dir, (int)getpid(), suffix);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f) != 0) abort();
    return path;
}

/* The input as a C string (NUL bytes end it early, as they would in C). */
static inline char *ct_fuzz_string(const uint8_t *data, size_t size)
{
    char *s = (char *)malloc(size + 1);
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* A failure must say why; a success must leave no error behind. */
static inline void ct_fuzz_check(bool ok)
{
    if (ok == (ct_last_error_code() != CT_OK) || (!ok && !ct_last_error()[0])) {
        fprintf(stderr, "%s without an error: \"%s\"\n", ok ? "success" : "failure", ct_last_error());
        abort();
    }
    ct_clear_error();
}

/* A reader of one tensor from a file: it loads (and every element reads)
 * or fails with an error. */
static inline void ct_fuzz_tensor_reader(const uint8_t *data, size_t size, const char *suffix,
                                         ct_tensor *(*read)(const char *path))
{
    ct_scope s = ct_scope_begin();
    ct_tensor *t = read(ct_fuzz_file(data, size, suffix));
    ct_fuzz_check(t != NULL);
    if (t) ct_sum(t);
    ct_clear_error();
    ct_scope_end(s);
}

#endif
