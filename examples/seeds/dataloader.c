/* Seed 002: a custom batch_sampler yielding [i, i+1] and a collate_fn that
 * hands the samples on as they are (dataloader.py is its PyTorch twin). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

/* MyDataset(10): item idx is [-idx*2, -idx*2] (no bounds check, as in the seed) */
static int64_t my_len(void *user) { return *(int64_t *)user; }

static ct_result my_get_item(void *user, int64_t idx, ct_sample *out)
{
    (void)user;
    out->n = 1;
    out->field[0] = ct_full(CT_SHAPE(2), ct_int(-idx * 2), CT_I64);
    return CT_OK;
}

/* MySampler(20): yields [i, i+1]; it has no __len__ */
typedef struct my_sampler {
    int64_t batch_nums, i;
} my_sampler;

static void my_iter(void *user) { ((my_sampler *)user)->i = 0; }

static int64_t my_next(void *user, int64_t *indices)
{
    my_sampler *s = (my_sampler *)user;
    if (s->i == s->batch_nums) return 0;
    indices[0] = s->i, indices[1] = s->i + 1;
    s->i++;
    return 2;
}

/* numpy's repr of a small int64 vector: array([0, 0]) */
static void print_samples(const ct_sample *samples, int64_t n)
{
    printf("[");
    for (int64_t i = 0; i < n; i++) {
        int64_t v[2];
        ct_copy_to_array(samples[i].field[0], v, 2, CT_I64);
        printf("%sarray([%lld, %lld])", i ? ", " : "", (long long)v[0], (long long)v[1]);
    }
    printf("]\n");
}

/* collect(samples): prints them and returns them, one field each */
static ct_result collect(const ct_sample *samples, int64_t n, ct_sample *batch, void *user)
{
    (void)user;
    printf("passed to collect ");
    print_samples(samples, n);
    batch->n = (int)n;
    for (int64_t i = 0; i < n; i++) batch->field[i] = samples[i].field[0];
    return CT_OK;
}

int main(void)
{
    int64_t length = 10;
    my_sampler state = {20, 0};
    ct_dataset_desc dataset = {my_len, my_get_item, NULL, &length};
    ct_sampler_desc sampler = {my_iter, my_next, NULL, 2, NULL, &state};
    ct_dataset *ds = ct_dataset_new(dataset);
    ct_sampler *bs = ct_sampler_new(sampler);
    ct_loader_opts opts = {0};
    opts.batch_sampler = bs;
    opts.collate_fn = collect;
    ct_loader *dl = ct_loader_new(ds, opts);
    ct_sample x;
    ct_scope s = ct_scope_begin();
    while (ct_loader_next(dl, &x) > 0) {  /* for x in dl: print(x) */
        ct_sample each[2] = {{1, {x.field[0]}}, {1, {x.field[1]}}};
        print_samples(each, x.n);
    }
    ct_scope_end(s);
    ct_loader_free(dl);
    ct_sampler_free(bs);
    ct_dataset_free(ds);
    return 0;
}
