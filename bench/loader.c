/* DataLoader throughput on a dataset whose get_item decodes: 10000 samples
 * kept as CSV text, one row each (the label, then 784 pixel values 0..255,
 * as in the CSV edition of Fashion-MNIST), and get_item parses its row into a
 * float [784] tensor in [0, 1] and an int64 label. One shuffled epoch with
 * batch 64 and the default collate, on 2 worker threads and on none; the time
 * is per epoch (its samples per second: 10000 / time). A third case reads
 * every sample once through get_item alone, without a loader: the decoding
 * the loader cases share, so that what is left of their time is the loader's.
 * The "_cpu" cases are CPU seconds per epoch, every thread's and worker
 * process's together: on a shared machine they vary less than the wall
 * clock. bench/loader.py is the same in PyTorch. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdlib.h>
#include <sys/resource.h>

#include "bench.h"

enum { SAMPLES = 10000, PIXELS = 784, BATCH = 64 };

/* The rows' text and where each row starts. */
typedef struct csv_rows {
    char *text;
    int64_t start[SAMPLES];
} csv_rows;

/* Pixel j of sample i: the same made-up values as bench/loader.py's. */
static int pixel(int64_t i, int64_t j) { return (int)((i * 131 + j * 7 + (i * j) % 251) % 256); }

/* SAMPLES rows "label,p0,...,p783\n"; NULL when out of memory. */
static csv_rows *make_rows(void)
{
    csv_rows *r = (csv_rows *)malloc(sizeof *r);
    size_t cap = (size_t)SAMPLES * (PIXELS * 4 + 8), len = 0;
    char *text = (char *)malloc(cap);
    if (!r || !text) {
        free(r);
        free(text);
        return NULL;
    }
    for (int64_t i = 0; i < SAMPLES; i++) {
        r->start[i] = (int64_t)len;
        len += (size_t)snprintf(text + len, cap - len, "%d", (int)(i % 10));
        for (int64_t j = 0; j < PIXELS; j++) len += (size_t)snprintf(text + len, cap - len, ",%d", pixel(i, j));
        text[len++] = '\n';
    }
    r->text = text;
    return r;
}

static int64_t rows_len(void *user)
{
    (void)user;
    return SAMPLES;
}

/* __getitem__: parse row i (strtol, strtof), as Python's split and numpy's
 * float conversion do. */
static ct_result parse_row(void *user, int64_t i, ct_sample *out)
{
    const csv_rows *r = (const csv_rows *)user;
    char *end;
    long label = strtol(r->text + r->start[i], &end, 10);
    ct_tensor *x = ct_empty(CT_SHAPE(PIXELS), CT_F32);
    if (!x) return ct_last_error_code();
    float *px = (float *)ct_data_ptr(x);
    for (int j = 0; j < PIXELS; j++) px[j] = strtof(end + 1, &end) / 255.0f;
    out->n = 2;
    out->field[0] = x;
    out->field[1] = ct_scalar_tensor(ct_int(label), CT_I64);
    return out->field[1] ? CT_OK : ct_last_error_code();
}

static void free_rows(void *user)
{
    csv_rows *r = (csv_rows *)user;
    free(r->text);
    free(r);
}

/* One epoch: every batch taken and dropped. */
static void epoch(void *loader)
{
    for (;;) {
        ct_scope s = ct_scope_begin();
        ct_sample batch;
        int got = ct_loader_next((ct_loader *)loader, &batch);
        ct_scope_end(s);
        if (got < 0) {
            fprintf(stderr, "%s\n", ct_last_error());
            exit(1);
        }
        if (got == 0) return;
    }
}

/* dataset[i] for every i, in order: the decoding alone. */
static void read_all(void *dataset)
{
    for (int64_t i = 0; i < SAMPLES; i++) {
        ct_scope s = ct_scope_begin();
        ct_sample sample;
        ct_result r = ct_dataset_get((ct_dataset *)dataset, i, &sample);
        ct_scope_end(s);
        if (r != CT_OK) {
            fprintf(stderr, "%s\n", ct_last_error());
            exit(1);
        }
    }
}

/* CPU seconds used so far by this process's threads and its waited-for children. */
static double cpu_seconds(void)
{
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    const struct timeval *t[4] = {&self.ru_utime, &self.ru_stime, &children.ru_utime, &children.ru_stime};
    double s = 0;
    for (int i = 0; i < 4; i++) s += (double)t[i]->tv_sec + 1e-6 * (double)t[i]->tv_usec;
    return s;
}

/* CPU seconds per call of fn(ctx), the mean of 3 calls. */
static double bench_cpu_time(void (*fn)(void *), void *ctx)
{
    double t0 = cpu_seconds();
    for (int i = 0; i < 3; i++) fn(ctx);
    return (cpu_seconds() - t0) / 3;
}

/* One loader's epoch: wall clock ("<name>_epoch"), then CPU time ("<name>_epoch_cpu"). */
static void time_loader(ct_dataset *d, const char *name, int workers)
{
    ct_loader *l = ct_loader_new(d, (ct_loader_opts){.batch_size = BATCH, .shuffle = true, .num_workers = workers});
    if (!l) {
        fprintf(stderr, "%s\n", ct_last_error());
        exit(1);
    }
    char label[96];
    snprintf(label, sizeof label, "%s_epoch", name);
    bench_report(label, bench_time(epoch, l));
    snprintf(label, sizeof label, "%s_epoch_cpu", name);
    bench_report(label, bench_cpu_time(epoch, l));
    ct_loader_free(l);
}

int main(void)
{
    ct_manual_seed(0);
    csv_rows *rows = make_rows();
    ct_dataset *d = rows ? ct_dataset_new((ct_dataset_desc){rows_len, parse_row, free_rows, rows}) : NULL;
    if (!d) {
        fprintf(stderr, "loader: out of memory\n");
        return 1;
    }
    time_loader(d, "csv_10000_batch64_workers2", 2);
    time_loader(d, "csv_10000_batch64_workers0", 0);
    bench_report("csv_10000_get_item_alone", bench_time(read_all, d));
    ct_dataset_free(d);
    return 0;
}
