/* Public data API (torch.utils.data): datasets, samplers, the DataLoader,
 * readers for IDX, CSV and .npy files, and image transforms.
 *
 * A sample is a tuple of tensors (an image and its label, say; a label is a
 * 0-d int64 tensor, as default_collate makes a Python int). A dataset's
 * get_item fills one; a loader's next fills one with a batch, each field the
 * samples' fields stacked along a new dim 0. Tensors in a sample follow the
 * memory rules: get_item runs inside a scope that hands the sample's tensors
 * on to ct_dataset_get's caller, and the tensors of a batch belong to the
 * scope open on the thread that called ct_loader_next (or to that caller,
 * who releases them, when none is open), whichever thread made them.
 *
 * Datasets and samplers are objects freed with ct_dataset_free /
 * ct_sampler_free. A dataset made from others (Subset, ConcatDataset, a
 * transformed dataset) holds a reference to them, so the caller may free its
 * own at once. A loader holds references to its dataset and samplers. */

/* ---------------------------------------------------------------- samples */

/* The most tensors a sample (or a batch) may hold. */
#define CT_SAMPLE_MAX 8

/* A tuple of tensors: one sample of a dataset, or one batch of a loader. */
typedef struct ct_sample {
    int n;
    ct_tensor *field[CT_SAMPLE_MAX];
} ct_sample;

/* ct_release each of a sample's tensors and set n to 0: for a sample filled
 * while no scope was open (a scope releases its own; never both). */
CTORCH_API void ct_sample_release(ct_sample *s);

/* ---------------------------------------------------------------- datasets */

/* A dataset: map-style (torch.utils.data.Dataset: len and get_item by index)
 * or iterable-style (torch.utils.data.IterableDataset: a stream of samples). */
typedef struct ct_dataset ct_dataset;

/* A map-style dataset of your own: __len__ and __getitem__ as callbacks.
 * get_item fills `out` and returns CT_OK, or fails with a ct_result after
 * raising an error (through any ctorch call that failed, or
 * ct_dataset_raise). A loader with workers calls get_item from several threads
 * at once: it must be safe for that (reading shared tensors is). */
typedef struct ct_dataset_desc {
    int64_t (*len)(void *user);
    ct_result (*get_item)(void *user, int64_t index, ct_sample *out);
    void (*free)(void *user); /* called by the last ct_dataset_free; may be NULL */
    void *user;
} ct_dataset_desc;
/* class MyDataset(torch.utils.data.Dataset). NULL (ValueError) without len or get_item. */
CTORCH_API ct_dataset *ct_dataset_new(ct_dataset_desc desc);

/* An iterable-style dataset of your own (torch.utils.data.IterableDataset).
 * iter starts a pass and returns its state (NULL after an error); next fills
 * `out` and returns 1, or 0 at the end, or a negative ct_result; iter_free
 * ends the pass. With loader workers each worker runs its own pass on its own
 * thread, where ct_get_worker_info() tells it which share to yield (as
 * torch.utils.data.get_worker_info() does). */
typedef struct ct_iterable_desc {
    void *(*iter)(void *user);
    int (*next)(void *state, ct_sample *out);
    void (*iter_free)(void *state);
    void (*free)(void *user); /* may be NULL */
    void *user;
} ct_iterable_desc;
CTORCH_API ct_dataset *ct_iterable_dataset_new(ct_iterable_desc desc);

/* Take one more reference (returns d); ct_dataset_free drops one. NULL is ignored. */
CTORCH_API ct_dataset *ct_dataset_retain(ct_dataset *d);
CTORCH_API void ct_dataset_free(ct_dataset *d);
/* len(dataset): a negative ct_result (TypeError) for an iterable dataset. */
CTORCH_API int64_t ct_dataset_len(const ct_dataset *d);
/* dataset[index] into out (a negative index counts from the end where the
 * dataset allows it, as in Python). */
CTORCH_API ct_result ct_dataset_get(ct_dataset *d, int64_t index, ct_sample *out);
/* Raise an error from inside a get_item callback, in PyTorch's wording; returns code. */
CTORCH_API ct_result ct_dataset_raise(ct_result code, const char *message);

/* torch.utils.data.TensorDataset(*tensors): sample i is (t[0][i], t[1][i], ...),
 * views of the tensors, which must agree in their first size. */
CTORCH_API ct_dataset *ct_tensor_dataset(ct_tensor *const *tensors, int n);
/* torch.utils.data.Subset(dataset, indices): the indices are copied. */
CTORCH_API ct_dataset *ct_subset(ct_dataset *d, const int64_t *indices, int64_t n);
/* torch.utils.data.ConcatDataset(datasets): the n map-style datasets one after another. */
CTORCH_API ct_dataset *ct_concat_dataset(ct_dataset *const *datasets, int n);
/* torch.utils.data.random_split(dataset, lengths, generator): n Subsets into
 * out, made from torch.randperm(len, generator) (NULL: the default
 * generator), so that a seed splits as in PyTorch. Lengths are counts, or
 * fractions when they sum to 1 (each floor(len * f), the remainder handed out
 * one by one from the first split). */
CTORCH_API ct_result ct_random_split(ct_dataset *d, const double *lengths, int n, ct_generator *g,
                                     ct_dataset **out);

/* ---------------------------------------------------------------- worker info */

/* torch.utils.data.get_worker_info(): on a loader's worker thread, the
 * worker's id (0..num_workers-1), the loader's worker count, the worker's
 * seed (base_seed + id, as PyTorch seeds workers), the dataset, and a
 * generator seeded with that seed (the worker's torch.manual_seed(seed):
 * random transforms given a NULL generator draw from it). On any other thread
 * id is -1 and the rest is zero (PyTorch's None). */
typedef struct ct_worker_info {
    int id;
    int num_workers;
    int64_t seed;
    ct_dataset *dataset;
    ct_generator *generator;
} ct_worker_info;
CTORCH_API ct_worker_info ct_get_worker_info(void);

/* ---------------------------------------------------------------- samplers */

/* A sampler (torch.utils.data.Sampler): a pass yields indices, or lists of
 * indices for a batch sampler. */
typedef struct ct_sampler ct_sampler;

/* A sampler of your own, as a subclass of torch.utils.data.Sampler. begin
 * starts a pass (__iter__; may be NULL); next writes the next index (or, for
 * a batch sampler, the next list of at most max_batch indices) and returns
 * how many it wrote, 0 at the end, or a negative ct_result; len is __len__
 * (NULL: the sampler has none, and len() of it is a TypeError). A loader calls
 * these on the thread that calls ct_loader_next. */
typedef struct ct_sampler_desc {
    void (*begin)(void *user);
    int64_t (*next)(void *user, int64_t *indices);
    int64_t (*len)(void *user);
    int64_t max_batch; /* 0: a sampler of single indices; > 0: a batch sampler */
    void (*free)(void *user); /* may be NULL */
    void *user;
} ct_sampler_desc;
CTORCH_API ct_sampler *ct_sampler_new(ct_sampler_desc desc);

/* torch.utils.data.SequentialSampler over a dataset of n samples: 0, 1, ..., n-1. */
CTORCH_API ct_sampler *ct_sequential_sampler(int64_t n);

/* torch.utils.data.RandomSampler(data_source, replacement, num_samples,
 * generator) over n samples. Without a generator each pass seeds a fresh one
 * from the default generator, as PyTorch does. num_samples 0 means n. */
typedef struct ct_random_sampler_opts {
    bool replacement;
    int64_t num_samples;
    ct_generator *generator;
} ct_random_sampler_opts;
CTORCH_API ct_sampler *ct_random_sampler(int64_t n, ct_random_sampler_opts opts);

/* torch.utils.data.SubsetRandomSampler(indices, generator): the n indices
 * (copied) in a random order; generator NULL is the default generator. */
CTORCH_API ct_sampler *ct_subset_random_sampler(const int64_t *indices, int64_t n, ct_generator *g);

/* torch.utils.data.WeightedRandomSampler(weights, num_samples, replacement,
 * generator): indices 0..n-1 drawn by torch.multinomial with these weights.
 * Start from ct_weighted_random_sampler_opts_init() (replacement true, as in
 * PyTorch). */
typedef struct ct_weighted_random_sampler_opts {
    int64_t num_samples;
    bool replacement;
    ct_generator *generator;
} ct_weighted_random_sampler_opts;
CTORCH_API ct_weighted_random_sampler_opts ct_weighted_random_sampler_opts_init(void);
CTORCH_API ct_sampler *ct_weighted_random_sampler(const double *weights, int64_t n,
                                                  ct_weighted_random_sampler_opts opts);

/* torch.utils.data.BatchSampler(sampler, batch_size, drop_last): lists of
 * batch_size indices from `sampler` (which it keeps a reference to). */
CTORCH_API ct_sampler *ct_batch_sampler(ct_sampler *sampler, int64_t batch_size, bool drop_last);

/* torch.utils.data.distributed.DistributedSampler(dataset, num_replicas,
 * rank, shuffle, seed, drop_last) over n samples: rank's share of a pass,
 * padded by repeating indices (or cut, with drop_last) to divide evenly; the
 * shuffle is randperm with seed + epoch. Start from
 * ct_distributed_sampler_opts_init() (shuffle true, one replica, rank 0):
 * without a process group to ask, num_replicas and rank are given here. */
typedef struct ct_distributed_sampler_opts {
    int64_t num_replicas;
    int64_t rank;
    bool shuffle;
    int64_t seed;
    bool drop_last;
} ct_distributed_sampler_opts;
CTORCH_API ct_distributed_sampler_opts ct_distributed_sampler_opts_init(void);
CTORCH_API ct_sampler *ct_distributed_sampler(int64_t n, ct_distributed_sampler_opts opts);
/* DistributedSampler.set_epoch(epoch): other samplers have no such method (AttributeError, as TypeError). */
CTORCH_API ct_result ct_sampler_set_epoch(ct_sampler *s, int64_t epoch);

/* Take one more reference (returns s); ct_sampler_free drops one. NULL is ignored. */
CTORCH_API ct_sampler *ct_sampler_retain(ct_sampler *s);
CTORCH_API void ct_sampler_free(ct_sampler *s);
/* len(sampler): a negative ct_result (TypeError) when it has none. */
CTORCH_API int64_t ct_sampler_len(const ct_sampler *s);
/* iter(sampler): start a pass. */
CTORCH_API ct_result ct_sampler_iter(ct_sampler *s);
/* next(): writes the next index (or a batch sampler's next list) to out,
 * which has room for `capacity` indices, and returns how many; 0 at the end
 * of the pass; a negative ct_result on failure (ValueError when out is too
 * small: nothing is consumed then). Starts a pass when none is running. */
CTORCH_API int64_t ct_sampler_next(ct_sampler *s, int64_t *out, int64_t capacity);
/* The most indices one next() can give: 1, or a batch sampler's batch size. */
CTORCH_API int64_t ct_sampler_max_batch(const ct_sampler *s);

/* ---------------------------------------------------------------- DataLoader */

typedef struct ct_loader ct_loader;

/* collate_fn: makes a batch from the n samples of one batch (in index order).
 * Return CT_OK, or a failure after raising an error. The default stacks each
 * field (torch.utils.data.default_collate). */
typedef ct_result (*ct_collate_fn)(const ct_sample *samples, int64_t n, ct_sample *batch, void *user);

/* DataLoader's arguments; zero means PyTorch's default. */
typedef struct ct_loader_opts {
    int64_t batch_size;           /* 0: 1 */
    bool shuffle;                 /* a RandomSampler over the dataset */
    ct_sampler *sampler;          /* a sampler of indices (excludes shuffle) */
    ct_sampler *batch_sampler;    /* a sampler of index lists (excludes batch_size, shuffle, sampler, drop_last) */
    int num_workers;              /* 0: load on the calling thread; n: n worker threads */
    ct_collate_fn collate_fn;     /* NULL: stack each field */
    void *collate_user;
    bool pin_memory;              /* batches in pinned memory (ct_pin_memory) when a GPU is there; else ignored */
    bool drop_last;               /* drop the last batch when it is short */
    double timeout;               /* seconds to wait for a worker's batch; 0: forever */
    void (*worker_init_fn)(int worker_id, void *user); /* called on each worker thread after seeding */
    void *worker_init_user;
    ct_generator *generator;      /* for base_seed and the RandomSampler; NULL: the default generator */
    int prefetch_factor;          /* batches loaded ahead per worker; 0: 2 (needs num_workers > 0 otherwise) */
    bool persistent_workers;      /* keep the workers (and their seeds) from one epoch to the next */
} ct_loader_opts;

/* torch.utils.data.DataLoader(dataset, ...), with PyTorch's argument checks
 * and messages. The loader keeps references to the dataset and samplers. */
CTORCH_API ct_loader *ct_loader_new(ct_dataset *d, ct_loader_opts opts);
/* Stop the workers (waiting for the batches they are building), drop every
 * batch not yet taken, free the loader. Safe at any point of an epoch. */
CTORCH_API void ct_loader_free(ct_loader *l);
/* len(loader): the number of batches in an epoch (TypeError when the sampler has no len). */
CTORCH_API int64_t ct_loader_len(const ct_loader *l);
/* iter(loader): start a new epoch, abandoning the one running. */
CTORCH_API ct_result ct_loader_iter(ct_loader *l);
/* next(iterator): the next batch into `batch`, strictly in sampler order
 * whichever worker finishes first. Returns 1 with a batch, 0 at the end of
 * the epoch (the next call starts a new one), or a negative ct_result: a
 * failed get_item or collate_fn ("Caught IndexError in DataLoader worker 1 at
 * dataset index 7: ..."; the epoch goes on with the next batch), or a timeout
 * ("DataLoader timed out after 2 seconds"; the batch is still awaited). At most
 * num_workers * prefetch_factor batches are being built at any time; each is
 * built by one worker, which does not wait for the others. */
CTORCH_API int ct_loader_next(ct_loader *l, ct_sample *batch);

/* torch.utils.data.default_collate for samples of tensors: field k of the
 * batch is torch.stack of the samples' field k. */
CTORCH_API ct_result ct_default_collate(const ct_sample *samples, int64_t n, ct_sample *batch, void *user);

/* ---------------------------------------------------------------- readers */

/* An IDX file (MNIST, Fashion-MNIST): a tensor of the file's type and shape
 * (uint8 images [N, 28, 28], uint8 labels [N], ...). A name ending in ".gz"
 * is read through zlib when ctorch is built with CTORCH_ZLIB (link -lz);
 * an uncompressed uint8/int8 file is memory-mapped (copy on write), so a file
 * larger than memory works. */
CTORCH_API ct_tensor *ct_read_idx(const char *path);
/* A dataset of (image, label) from two IDX files, the label as int64 (as
 * torchvision.datasets.MNIST gives it). */
CTORCH_API ct_dataset *ct_idx_dataset(const char *images_path, const char *labels_path);

/* numpy.loadtxt(path, delimiter, skiprows) for numeric CSV: a 2-D tensor
 * [rows, columns] of dtype (CT_DEFAULT: the default dtype). Every row must
 * have the same number of columns. ".gz" as for ct_read_idx. */
typedef struct ct_csv_opts {
    char delimiter; /* 0: ',' */
    int skip_rows;
    ct_dtype dtype;
} ct_csv_opts;
CTORCH_API ct_tensor *ct_read_csv(const char *path, ct_csv_opts opts);

/* numpy.load of a .npy file (torch.from_numpy(np.load(path, mmap_mode='c'))):
 * memory-mapped, copy on write, when the data is little-endian; a Fortran-
 * order array gives a tensor with transposed strides, as from_numpy does. */
CTORCH_API ct_tensor *ct_load_npy(const char *path);
/* numpy.save of a tensor (contiguous copy, C order, little-endian), written
 * atomically as ct_save_safetensors writes. */
CTORCH_API ct_result ct_save_npy(const char *path, const ct_tensor *t);

/* ---------------------------------------------------------------- transforms */

/* An image transform (torchvision.transforms), applied to a [..., C, H, W]
 * tensor (or [H, W]). Transforms compose: ct_transform_apply runs a list in
 * order, as transforms.Compose. */
typedef enum ct_transform_kind {
    CT_TO_FLOAT = 1, /* to the default dtype, times scale (0: 1/255 for uint8, 1 otherwise): ConvertImageDtype */
    CT_NORMALIZE,    /* (x - mean[c]) / std[c] per channel: Normalize(mean, std) */
    CT_RANDOM_CROP,  /* RandomCrop(size, padding, fill): pad each side, then a random size[0] x size[1] window */
    CT_RANDOM_HFLIP  /* RandomHorizontalFlip(p): flip the last dim with probability p (0: 0.5) */
} ct_transform_kind;

#define CT_TRANSFORM_CHANNELS 4

typedef struct ct_transform {
    ct_transform_kind kind;
    double scale;                                                 /* CT_TO_FLOAT */
    int channels;                                                 /* CT_NORMALIZE: how many mean/std */
    double mean[CT_TRANSFORM_CHANNELS], std[CT_TRANSFORM_CHANNELS];
    int64_t size[2];                                              /* CT_RANDOM_CROP: output height, width */
    int64_t padding;
    double fill;
    double p;                                                     /* CT_RANDOM_HFLIP */
} ct_transform;

/* transforms.Compose(list)(x): a new tensor. Random transforms draw as
 * torchvision does (randint for the crop's top then left, rand(1) < p for the
 * flip) from g, or, given NULL, from the worker's generator on a loader
 * worker thread and the default generator elsewhere. */
CTORCH_API ct_tensor *ct_transform_apply(const ct_transform *list, int n, const ct_tensor *x, ct_generator *g);
/* A dataset whose samples are d's with the list (copied) applied to field `field`. */
CTORCH_API ct_dataset *ct_transformed_dataset(ct_dataset *d, int field, const ct_transform *list, int n);

/* ---------------------------------------------------------------- saving and loading state_dicts */

/* Files of named tensors: safetensors (read and written) and PyTorch's own
 * torch.save files (read). A loaded state_dict is a ct_tensor_list whose
 * tensors are new references: they belong to the scope open on the calling
 * thread, or to the caller when none is open (ct_tensor_list_release then
 * gives them back). Pass it to ct_module_load_state_dict:
 *
 *     ct_tensor_list sd;
 *     if (ct_load("model.pth", &sd) == CT_OK) {      // torch.load("model.pth")
 *         ct_module_load_state_dict(model, &sd, true, NULL);
 *         ct_tensor_list_free(&sd);                  // the names; the scope has the tensors
 *     }
 *
 * Loaders map the file (copy on write) and make tensors over its bytes where
 * they are aligned for their dtype (copies otherwise), so loading is fast and
 * memory is shared with the page cache. Every size, offset and count in a file
 * is checked against the file before use: a damaged or hostile file gives an
 * error (CT_ERR_VALUE for safetensors, CT_ERR_RUNTIME for torch.save files,
 * CT_ERR_IO when it cannot be read), never a crash. */

/* safetensors' "__metadata__": n string keys and values. A loaded one is
 * freed with ct_metadata_free. */
typedef struct ct_metadata {
    int n;
    const char **keys;
    const char **values;
} ct_metadata;
CTORCH_API void ct_metadata_free(ct_metadata *metadata);

/* ct_release each tensor of a list that was loaded while no scope was open,
 * then free the list (a scope releases its own; never both). */
CTORCH_API void ct_tensor_list_release(ct_tensor_list *list);

/* safetensors.torch.load_file(path) (and safe_open(path).metadata() into
 * metadata, when given): the tensors in the file's order. The whole file is
 * validated first: header size within the file, the JSON header, dtypes,
 * shapes, names unique, and data offsets that tile the data exactly. */
CTORCH_API ct_result ct_load_safetensors(const char *path, ct_tensor_list *out, ct_metadata *metadata);
/* safetensors.torch.save_file(tensors, path, metadata): byte for byte what
 * the reference writer makes (tensors sorted by dtype, widest first, then by
 * name; the JSON header padded with spaces to 8 bytes). Non-contiguous
 * tensors are written as their contiguous copies. The file is replaced
 * atomically: written to a temporary file beside it, flushed to disk, then
 * renamed over it, so a failure leaves the old file as it was. As open(path,
 * "wb") would, a symbolic link's target is written (the link stays) and an
 * existing file keeps its permission bits; the temporary files a killed save
 * left (their writer process gone) are removed. metadata may be NULL. */
CTORCH_API ct_result ct_save_safetensors(const char *path, const ct_tensor_list *tensors, const ct_metadata *metadata);
/* safetensors.torch.load_file(path, device=device): ct_load_safetensors with
 * the tensors made on `device` (CT_CPU: over the file's bytes, as
 * ct_load_safetensors makes them; type CT_DEVICE_DEFAULT: the default
 * device). A device that is not there fails as Tensor.to fails, before the
 * file is read. On any error out and metadata are left as they were. */
CTORCH_API ct_result ct_load_safetensors_device(const char *path, ct_tensor_list *out, ct_metadata *metadata,
                                                ct_device device);

/* torch.load(path, weights_only=True) of a file torch.save wrote from a
 * state_dict (a dict of tensors): the zip format (PyTorch 1.6 and later;
 * stored entries, deflated ones when built with CTORCH_ZLIB) and the legacy
 * format (_use_new_zipfile_serialization=False). Tensors sharing a storage in
 * the file share one here, with their sizes, strides and storage offsets;
 * they are loaded to the CPU whatever device they were saved from
 * (ct_load_map_location puts them elsewhere). Only the
 * pickle opcodes and globals a state_dict needs are accepted (collections.
 * OrderedDict, torch._utils._rebuild_tensor_v2, _rebuild_tensor,
 * _rebuild_parameter and the torch.*Storage types), as weights_only does. */
CTORCH_API ct_result ct_load_pth(const char *path, ct_tensor_list *out);

/* Save a state_dict (as ct_module_state_dict gives it) to path as
 * safetensors, atomically (ct_save_safetensors without metadata). */
CTORCH_API ct_result ct_save(const char *path, const ct_tensor_list *state_dict);
/* Load a state_dict from a torch.save file or a safetensors file, told apart
 * by their first bytes (ct_load_pth or ct_load_safetensors). */
CTORCH_API ct_result ct_load(const char *path, ct_tensor_list *out);
/* torch.load(path, map_location=device, weights_only=True): ct_load with the
 * tensors made on `map_location` (CT_CPU: over the file's bytes, as ct_load
 * makes them; type CT_DEVICE_DEFAULT: the default device). Storages move
 * whole, as map_location moves them: tensors that shared one in the file
 * share one on the device, and one saved with requires_grad is a leaf that
 * requires grad. A device that is not there fails with torch.load's
 * RuntimeError ("Attempting to deserialize object on a CUDA device but
 * torch.cuda.is_available() is False. ...", "... on CUDA device 2 but
 * torch.cuda.device_count() is 1. ..."), before the file is read. On any
 * error out is left as it was.
 *
 *     ct_tensor_list sd;
 *     ct_load_map_location("model.pth", &sd, CT_CPU); // torch.load("model.pth", map_location="cpu")
 */
CTORCH_API ct_result ct_load_map_location(const char *path, ct_tensor_list *out, ct_device map_location);
