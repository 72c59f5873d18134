/* Bad input to the data API (datasets, samplers, the DataLoader, readers,
 * transforms): PyTorch's (or numpy's) words, and nothing made or changed. */
#include "errors.h"

#ifndef CT_BUILD_DIR
#define CT_BUILD_DIR "build"
#endif

static int64_t len3(void *user) { return (void)user, 3; }

static ct_result get_zero(void *user, int64_t i, ct_sample *out)
{
    (void)user, (void)i;
    out->n = 1;
    out->field[0] = ct_zeros(CT_SHAPE(2), CT_F32);
    return CT_OK;
}

static ct_result get_none(void *user, int64_t i, ct_sample *out)
{
    (void)user, (void)i;
    out->n = 1;
    out->field[0] = NULL;
    return CT_OK;
}

static void *no_iter(void *user) { return user; }
static int no_next(void *state, ct_sample *out) { return (void)state, (void)out, 0; }
static int64_t one_next(void *user, int64_t *out) { return (void)user, out[0] = 0, 1; }

static void test_dataset_errors(void)
{
    ct_dataset_desc none = {NULL, get_zero, NULL, NULL};
    FAILS_T(ct_dataset_new(none), CT_ERR_VALUE, "ct_dataset_new(): a map-style dataset needs len and get_item");
    ct_iterable_desc inone = {no_iter, NULL, NULL, NULL, NULL};
    FAILS_T(ct_iterable_dataset_new(inone), CT_ERR_VALUE, "ct_iterable_dataset_new(): an iterable dataset needs iter and next");
    FAILS_R(ct_dataset_len(NULL), CT_ERR_TYPE, "dataset_len(): argument 'dataset' must be a dataset, not NULL");
    ct_sample s;
    FAILS_R(ct_dataset_get(NULL, 0, &s), CT_ERR_TYPE, "dataset_get(): argument 'dataset' must be a dataset, not NULL");
    ct_dataset_desc bad = {len3, get_none, NULL, NULL};
    ct_dataset *d = ct_dataset_new(bad);
    FAILS_R(ct_dataset_get(d, 0, &s), CT_ERR_TYPE, "sample field 0 is NULL");
    FAILS_R(ct_dataset_get(d, 0, NULL), CT_ERR_TYPE, "dataset_get(): argument 'out' must be a sample, not NULL");
    CHECK(ct_dataset_retain(d) == d);
    ct_dataset_free(d);
    ct_dataset_free(d);
    ct_iterable_desc it = {no_iter, no_next, NULL, NULL, NULL};
    ct_dataset *idata = ct_iterable_dataset_new(it);
    FAILS_R(ct_dataset_get(idata, 0, &s), CT_ERR_NOT_IMPLEMENTED, "an IterableDataset has no __getitem__: iterate it with a loader");
    FAILS_T(ct_concat_dataset(&idata, 1), CT_ERR_VALUE, "ConcatDataset does not support IterableDataset");
    FAILS_T(ct_transformed_dataset(idata, 0, NULL, 0), CT_ERR_VALUE, "transformed_dataset(): takes a map-style dataset");
    ct_dataset_free(idata);
    FAILS_R(ct_dataset_raise(CT_ERR_INDEX, "my index error"), CT_ERR_INDEX, "my index error");

    ct_tensor *t[2] = {ct_zeros(CT_SHAPE(3), CT_F32), ct_zeros(CT_SHAPE(4), CT_F32)};
    FAILS_T(ct_tensor_dataset(t, 2), CT_ERR_RUNTIME, "Size mismatch between tensors");
    FAILS_T(ct_tensor_dataset(t, 0), CT_ERR_VALUE, "TensorDataset takes 1 to 8 tensors, not 0");
    ct_tensor *tn[1] = {NULL};
    FAILS_NULL(ct_tensor_dataset(tn, 1), "tensor_dataset(): argument 'tensors' (position 1)");
    FAILS_T(ct_concat_dataset(NULL, 0), CT_ERR_VALUE, "datasets should not be an empty iterable");
    FAILS_T(ct_subset(NULL, NULL, 0), CT_ERR_TYPE, "subset(): argument 'dataset' must be a dataset, not NULL");

    d = ct_tensor_dataset(t, 1);
    FAILS_T(ct_subset(d, NULL, 2), CT_ERR_VALUE, "Subset(): indices must be a list of n >= 0 indices");
    const int64_t far[] = {5};
    ct_dataset *sub = ct_subset(d, far, 1);
    FAILS_R(ct_dataset_get(sub, 0, &s), CT_ERR_INDEX, "index 5 is out of bounds for dimension 0 with size 3");
    FAILS_R(ct_dataset_get(sub, 1, &s), CT_ERR_INDEX, "list index out of range");
    ct_dataset_free(sub);
    ct_dataset *out[2] = {NULL, NULL};
    const double two[] = {1, 1}, fractions[] = {1.5, -0.5};
    FAILS_R(ct_random_split(d, two, 2, NULL, out), CT_ERR_VALUE, "Sum of input lengths does not equal the length of the input dataset!");
    FAILS_R(ct_random_split(d, fractions, 2, NULL, out), CT_ERR_VALUE, "Fraction at index 0 is not between 0 and 1");
    CHECK(out[0] == NULL && out[1] == NULL);
    FAILS_R(ct_random_split(NULL, two, 2, NULL, out), CT_ERR_TYPE, "random_split(): argument 'dataset' must be a dataset, not NULL");
    ct_transform flip[1];
    memset(flip, 0, sizeof flip);
    flip[0].kind = CT_RANDOM_HFLIP;
    flip[0].p = 2;
    FAILS_T(ct_transformed_dataset(d, 0, flip, 1), CT_ERR_VALUE, "probability should be between 0 and 1, but got 2");
    FAILS_T(ct_transformed_dataset(d, -1, flip, 1), CT_ERR_VALUE,
            "transformed_dataset(): field must be in [0, 8) and list hold n >= 0 transforms");
    flip[0].p = 0;
    ct_dataset *tr = ct_transformed_dataset(d, 1, flip, 1);
    FAILS_R(ct_dataset_get(tr, 0, &s), CT_ERR_INDEX,
            "tuple index out of range: the sample has 1 fields, the transform is for field 1");
    ct_dataset_free(tr);
    ct_dataset_free(d);
    CHECK_INT(ct_get_worker_info().id, -1); /* not a worker thread */
    ct_sample empty = {0, {NULL}};
    ct_sample_release(&empty);
    ct_sample_release(NULL);
}

static void test_sampler_errors(void)
{
    FAILS_T(ct_random_sampler(0, (ct_random_sampler_opts){0}), CT_ERR_VALUE,
            "num_samples should be a positive integer value, but got num_samples=0");
    FAILS_T(ct_random_sampler(5, (ct_random_sampler_opts){true, -2, NULL}), CT_ERR_VALUE,
            "num_samples should be a positive integer value, but got num_samples=-2");
    FAILS_T(ct_sequential_sampler(-1), CT_ERR_VALUE, "a dataset's length must be >= 0, not -1");
    FAILS_T(ct_subset_random_sampler(NULL, 3, NULL), CT_ERR_VALUE, "SubsetRandomSampler(): indices must be a list of n >= 0 indices");
    const double w[] = {1, 2};
    ct_weighted_random_sampler_opts wo = ct_weighted_random_sampler_opts_init();
    FAILS_T(ct_weighted_random_sampler(w, 2, wo), CT_ERR_VALUE,
            "num_samples should be a positive integer value, but got num_samples=0");
    wo.num_samples = 3;
    wo.replacement = false;
    ct_sampler *ws = ct_weighted_random_sampler(w, 2, wo); /* PyTorch finds this when iterating */
    int64_t buf[4];
    FAILS_R(ct_sampler_next(ws, buf, 4), CT_ERR_RUNTIME, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    ct_sampler_free(ws);
    ct_sampler *seq = ct_sequential_sampler(4);
    FAILS_T(ct_batch_sampler(seq, 0, false), CT_ERR_VALUE, "batch_size should be a positive integer value, but got batch_size=0");
    FAILS_T(ct_batch_sampler(NULL, 2, false), CT_ERR_TYPE, "batch_sampler(): argument 'sampler' must be a sampler, not NULL");
    ct_sampler *bs = ct_batch_sampler(seq, 2, false);
    FAILS_T(ct_batch_sampler(bs, 2, false), CT_ERR_VALUE, "BatchSampler needs a sampler of single indices, not a batch sampler");
    FAILS_R(ct_sampler_next(bs, buf, 1), CT_ERR_VALUE, "sampler_next(): out has room for 1 indices, the sampler gives up to 2");
    FAILS_R(ct_sampler_set_epoch(bs, 1), CT_ERR_TYPE, "'BatchSampler' object has no attribute 'set_epoch'");
    FAILS_R(ct_sampler_set_epoch(NULL, 1), CT_ERR_TYPE, "sampler_set_epoch(): argument 'sampler' must be a sampler, not NULL");
    FAILS_R(ct_sampler_len(NULL), CT_ERR_TYPE, "sampler_len(): argument 'sampler' must be a sampler, not NULL");
    FAILS_R(ct_sampler_iter(NULL), CT_ERR_TYPE, "sampler_iter(): argument 'sampler' must be a sampler, not NULL");
    FAILS_R(ct_sampler_max_batch(NULL), CT_ERR_TYPE, "sampler_max_batch(): argument 'sampler' must be a sampler, not NULL");
    CHECK(ct_sampler_retain(bs) == bs);
    ct_sampler_free(bs);
    ct_sampler_free(bs);
    ct_sampler_free(seq);
    ct_distributed_sampler_opts o = ct_distributed_sampler_opts_init();
    o.num_replicas = 3;
    o.rank = 3;
    FAILS_T(ct_distributed_sampler(10, o), CT_ERR_VALUE, "Invalid rank 3, rank should be in the interval [0, 2]");
    o.rank = -1;
    FAILS_T(ct_distributed_sampler(10, o), CT_ERR_VALUE, "Invalid rank -1, rank should be in the interval [0, 2]");
    o.num_replicas = 0;
    FAILS_T(ct_distributed_sampler(10, o), CT_ERR_VALUE, "num_replicas should be a positive integer value, but got num_replicas=0");
    ct_sampler_desc none = {NULL, NULL, NULL, 0, NULL, NULL};
    FAILS_T(ct_sampler_new(none), CT_ERR_VALUE, "ct_sampler_new(): a sampler needs next, and max_batch >= 0");
    ct_sampler_desc one = {NULL, one_next, NULL, 0, NULL, NULL};
    ct_sampler *us = ct_sampler_new(one);
    CHECK_INT(ct_sampler_next(us, buf, 1), 1);
    ct_sampler_free(us);
}

static void test_loader_argument_rules(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(6, 2), CT_F32);
    ct_dataset *d = ct_tensor_dataset(&x, 1);
    ct_sampler *seq = ct_sequential_sampler(6);
    ct_sampler *bs = ct_batch_sampler(seq, 2, false);
    const char *excl = "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last";
    ct_loader_opts o = {0};
    o.batch_sampler = bs;
    o.batch_size = 2;
    FAILS_T(ct_loader_new(d, o), CT_ERR_VALUE, excl);
    o.batch_size = 1; /* PyTorch's default is allowed */
    o.drop_last = true;
    FAILS_T(ct_loader_new(d, o), CT_ERR_VALUE, excl);
    o.drop_last = false;
    o.shuffle = true;
    FAILS_T(ct_loader_new(d, o), CT_ERR_VALUE, excl);
    o.shuffle = false;
    o.sampler = seq;
    FAILS_T(ct_loader_new(d, o), CT_ERR_VALUE, excl);
    o.batch_sampler = NULL;
    o.shuffle = true;
    FAILS_T(ct_loader_new(d, o), CT_ERR_VALUE, "sampler option is mutually exclusive with shuffle");
    o.shuffle = false;
    o.sampler = bs;
    FAILS_T(ct_loader_new(d, o), CT_ERR_VALUE, "sampler option takes a sampler of single indices: pass a batch sampler as batch_sampler");
    memset(&o, 0, sizeof o);
    o.num_workers = -1;
    FAILS_T(ct_loader_new(d, o), CT_ERR_VALUE, "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
    o.num_workers = 0;
    o.timeout = -1;
    FAILS_T(ct_loader_new(d, o), CT_ERR_VALUE, "timeout option should be non-negative");
    o.timeout = 0;
    o.prefetch_factor = 3;
    FAILS_T(ct_loader_new(d, o), CT_ERR_VALUE,
            "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable multiprocessing.");
    o.prefetch_factor = 0;
    o.persistent_workers = true;
    FAILS_T(ct_loader_new(d, o), CT_ERR_VALUE, "persistent_workers option needs num_workers > 0");
    o.persistent_workers = false;
    o.batch_size = -1;
    FAILS_T(ct_loader_new(d, o), CT_ERR_VALUE, "batch_size should be a positive integer value, but got batch_size=-1");
    FAILS_T(ct_loader_new(NULL, o), CT_ERR_TYPE, "loader_new(): argument 'dataset' must be a dataset, not NULL");
    ct_iterable_desc it = {no_iter, no_next, NULL, NULL, NULL};
    ct_dataset *idata = ct_iterable_dataset_new(it);
    memset(&o, 0, sizeof o);
    o.shuffle = true;
    FAILS_T(ct_loader_new(idata, o), CT_ERR_VALUE, "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True");
    o.shuffle = false;
    o.sampler = seq;
    FAILS_T(ct_loader_new(idata, o), CT_ERR_VALUE,
            "DataLoader with IterableDataset: expected unspecified sampler option, but got sampler=SequentialSampler");
    o.sampler = NULL;
    o.batch_sampler = bs;
    FAILS_T(ct_loader_new(idata, o), CT_ERR_VALUE,
            "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got batch_sampler=BatchSampler");
    memset(&o, 0, sizeof o);
    ct_loader *l = ct_loader_new(idata, o);
    FAILS_R(ct_loader_len(l), CT_ERR_TYPE, "object of type 'IterableDataset' has no len()");
    ct_loader_free(l);
    ct_dataset_free(idata);
    FAILS_R(ct_loader_len(NULL), CT_ERR_TYPE, "loader_len(): argument 'loader' must be a loader, not NULL");
    FAILS_R(ct_loader_iter(NULL), CT_ERR_TYPE, "loader_iter(): argument 'loader' must be a loader, not NULL");
    ct_sample b;
    FAILS_R(ct_loader_next(NULL, &b), CT_ERR_TYPE, "loader_next(): argument 'loader' must be a loader, not NULL");
    l = ct_loader_new(d, o);
    FAILS_R(ct_loader_next(l, NULL), CT_ERR_TYPE, "loader_next(): argument 'batch' must be a sample, not NULL");
    ct_loader_free(l);
    ct_loader_free(NULL);
    /* default_collate: samples that do not match */
    ct_sample two[2] = {{1, {ct_zeros(CT_SHAPE(2), CT_F32)}}, {1, {ct_zeros(CT_SHAPE(3), CT_F32)}}};
    ct_sample batch;
    FAILS_R(ct_default_collate(two, 2, &batch, NULL), CT_ERR_RUNTIME,
            "stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1");
    two[1].n = 0;
    FAILS_R(ct_default_collate(two, 2, &batch, NULL), CT_ERR_RUNTIME, "each element in list of batch should be of equal size");
    FAILS_R(ct_default_collate(two, 0, &batch, NULL), CT_ERR_VALUE, "default_collate(): needs n >= 1 samples");
    ct_sampler_free(bs);
    ct_sampler_free(seq);
    ct_dataset_free(d);
}

static void test_reader_errors(void)
{
    FAILS_T(ct_read_idx("no/such.idx"), CT_ERR_IO, "[Errno 2] No such file or directory: 'no/such.idx'");
    FAILS_T(ct_read_idx("tests/golden/data/c_f4.npy"), CT_ERR_VALUE,
            "'tests/golden/data/c_f4.npy' is not an IDX file (bad magic number, or shorter than its header says)");
    FAILS_T(ct_idx_dataset("tests/golden/data/images.idx", "no/labels.idx"), CT_ERR_IO,
            "[Errno 2] No such file or directory: 'no/labels.idx'");
    FAILS_T(ct_load_npy("tests/golden/data/u2.npy"), CT_ERR_TYPE,
            "can't convert np.ndarray of type numpy.uint16. The only supported types are: float64, float32, float16, "
            "complex64, complex128, int64, int32, int16, int8, uint8, and bool.");
    FAILS_T(ct_load_npy("tests/golden/data/images.idx"), CT_ERR_VALUE,
            "'tests/golden/data/images.idx' is not a .npy file (bad magic string or header length)");
    FAILS_R(ct_save_npy("x.npy", ct_zeros(CT_SHAPE(2), CT_BF16)), CT_ERR_TYPE, "Got unsupported ScalarType BFloat16");
    FAILS_NULL_R(ct_save_npy("x.npy", NULL_T), "save_npy(): argument 'tensor' (position 2)");
    FAILS_R(ct_save_npy("no/such/dir.npy", ct_zeros(CT_SHAPE(2), CT_F32)), CT_ERR_IO,
            "[Errno 2] No such file or directory: 'no/such/dir.npy'");
    FAILS_T(ct_read_csv("tests/golden/data/table.csv", (ct_csv_opts){0, 0, CT_F64}), CT_ERR_VALUE,
            "could not convert string 'a' to float64 at row 0, column 1.");
    FAILS_T(ct_read_csv("tests/golden/data/table.csv", (ct_csv_opts){0, -1, CT_F64}), CT_ERR_VALUE, "skiprows must be >= 0, not -1");
    FILE *f = fopen(CT_BUILD_DIR "/ragged.csv", "w");
    fputs("1,2\n3\n", f);
    fclose(f);
    FAILS_T(ct_read_csv(CT_BUILD_DIR "/ragged.csv", (ct_csv_opts){0}), CT_ERR_VALUE,
            "the number of columns changed from 2 to 1 at row 2; use `usecols` to select a subset and avoid this error");
}

static void test_transform_errors(void)
{
    ct_transform t[1];
    memset(t, 0, sizeof t);
    t[0].kind = CT_NORMALIZE;
    t[0].channels = 1;
    t[0].std[0] = 1;
    ct_tensor *img = ct_zeros(CT_SHAPE(1, 4, 4), CT_U8);
    FAILS_T(ct_transform_apply(t, 1, img, NULL), CT_ERR_TYPE, "Input tensor should be a float tensor. Got torch.uint8.");
    FAILS_T(ct_transform_apply(t, 1, ct_zeros(CT_SHAPE(4, 4), CT_F32), NULL), CT_ERR_TYPE,
            "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = torch.Size([4, 4])");
    t[0].std[0] = 0;
    FAILS_T(ct_transform_apply(t, 1, img, NULL), CT_ERR_VALUE,
            "std evaluated to zero after conversion to torch.float32, leading to division by zero.");
    t[0].channels = 5;
    FAILS_T(ct_transform_apply(t, 1, img, NULL), CT_ERR_VALUE, "Normalize takes 1 to 4 channels, not 5");
    t[0].kind = CT_RANDOM_CROP;
    t[0].size[0] = t[0].size[1] = 10;
    FAILS_T(ct_transform_apply(t, 1, img, NULL), CT_ERR_VALUE, "Required crop size (10, 10) is larger than input image size (4, 4)");
    t[0].padding = -1;
    FAILS_T(ct_transform_apply(t, 1, img, NULL), CT_ERR_VALUE,
            "RandomCrop needs a positive size and padding >= 0, not size (10, 10) and padding -1");
    t[0].kind = (ct_transform_kind)9;
    FAILS_T(ct_transform_apply(t, 1, img, NULL), CT_ERR_VALUE, "unknown transform kind 9 at index 0");
    FAILS_T(ct_transform_apply(t, -1, img, NULL), CT_ERR_VALUE, "transform_apply(): list must hold n >= 0 transforms");
    FAILS_NULL(ct_transform_apply(t, 0, NULL_T, NULL), "transform_apply(): argument 'img' (position 3)");
}

int main(void)
{
    RUN(test_dataset_errors);
    RUN(test_sampler_errors);
    RUN(test_loader_argument_rules);
    RUN(test_reader_errors);
    RUN(test_transform_errors);
    return ct_test_report();
}
