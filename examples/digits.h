/* The digits examples' shared parts: the bundled UCI handwritten digits
 * (data/digits.csv.gz, 1797 8x8 images) split into 1497 training and 300
 * test images, the CNN they train, and its test accuracy. Included after
 * ctorch.h by train_digits.c, dist/ddp_digits.c and the tests that train
 * the demo's model (inline: each takes what it needs). */

enum { TRAIN = 1497, TEST = 300 };

/* The digits as a dataset of (1x8x8 image in 0..1, label), split by a
 * generator seeded 0 into split[0] (train) and split[1] (test); NULL on error. */
static inline ct_dataset *load_digits(ct_dataset *split[2])
{
    ct_tensor *raw = ct_read_csv("data/digits.csv.gz", (ct_csv_opts){.dtype = CT_F32});
    if (!raw) return NULL;
    ct_tensor *pixels = ct_div_scalar(ct_index(raw, ":, :64"), ct_float(16.0)); /* 0..16 */
    ct_tensor *xy[2] = {ct_view(pixels, CT_SHAPE(-1, 1, 8, 8)), ct_to(ct_index(raw, ":, 64"), CT_I64)};
    ct_dataset *digits = ct_tensor_dataset(xy, 2);
    ct_generator *g = ct_generator_new();
    ct_generator_manual_seed(g, 0);
    ct_random_split(digits, (double[]){TRAIN, TEST}, 2, g, split); /* train, test */
    ct_generator_free(g);
    return digits;
}

/* The first batch of a loader over the whole of d: the stacked test set. */
static inline ct_result whole_dataset(ct_dataset *d, ct_sample *all)
{
    ct_loader *loader = ct_loader_new(d, (ct_loader_opts){.batch_size = ct_dataset_len(d)});
    int got = loader ? ct_loader_next(loader, all) : -1;
    ct_loader_free(loader);
    return got > 0 ? CT_OK : ct_last_error_code();
}

/* The number of rows of logits whose argmax is the label. */
static inline int64_t count_correct(const ct_tensor *logits, const ct_tensor *labels)
{
    return (int64_t)ct_item(ct_sum(ct_eq(ct_argmax_dim(logits, 1, false), labels)));
}

/* model = nn.Sequential(
 *     nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 16x4x4
 *     nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32x2x2
 *     nn.Flatten(), nn.Linear(128, 10)) */
static inline ct_module *new_model(void)
{
    const ct_conv_layer_opts same = {.padding = CT_SHAPE(1)};
    const ct_max_pool_opts pool = {0};
    ct_module *layers[] = {ct_nn_conv2d(1, 16, CT_SHAPE(3), same),  ct_nn_relu(), ct_nn_max_pool2d(CT_SHAPE(2), pool),
                           ct_nn_conv2d(16, 32, CT_SHAPE(3), same), ct_nn_relu(), ct_nn_max_pool2d(CT_SHAPE(2), pool),
                           ct_nn_flatten(1, -1), ct_nn_linear(128, 10, true)};
    return ct_nn_sequential(layers, 8);
}
