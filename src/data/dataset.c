/* Datasets (torch/utils/data/dataset.py): the map-style and iterable-style
 * interfaces, TensorDataset, Subset, ConcatDataset, random_split, and a
 * dataset that transforms one field of another's samples. Every built-in
 * dataset is a ct_dataset_desc with its own user data, so the loader sees
 * one kind of object. */

struct ct_dataset {
    int refcount;
    bool iterable;
    ct_dataset_desc map;
    ct_iterable_desc it;
};

void ct_sample_release(ct_sample *s)
{
    if (!s) return;
    for (int k = 0; k < s->n; k++) ct_release(s->field[k]);
    s->n = 0;
}

ct_result ct_dataset_raise(ct_result code, const char *message) { return ct_set_error(code, message); }

static ct_dataset *ct__dataset_alloc(bool iterable)
{
    ct_dataset *d = (ct_dataset *)CT_MALLOC(sizeof *d);
    if (!d) {
        CT__OOM();
        return NULL;
    }
    memset(d, 0, sizeof *d);
    d->refcount = 1;
    d->iterable = iterable;
    return d;
}

ct_dataset *ct_dataset_new(ct_dataset_desc desc)
{
    if (!desc.len || !desc.get_item) {
        ct__fail(CT_ERR_VALUE, "ct_dataset_new(): a map-style dataset needs len and get_item");
        return NULL;
    }
    ct_dataset *d = ct__dataset_alloc(false);
    if (d) d->map = desc;
    else if (desc.free) desc.free(desc.user);
    return d;
}

/* A built-in map-style dataset over its own user data. */
static ct_dataset *ct__map_dataset(int64_t (*len)(void *), ct_result (*get_item)(void *, int64_t, ct_sample *),
                                   void (*free_user)(void *), void *user)
{
    ct_dataset_desc desc;
    desc.len = len;
    desc.get_item = get_item;
    desc.free = free_user;
    desc.user = user;
    return ct_dataset_new(desc);
}

ct_dataset *ct_iterable_dataset_new(ct_iterable_desc desc)
{
    if (!desc.iter || !desc.next) {
        ct__fail(CT_ERR_VALUE, "ct_iterable_dataset_new(): an iterable dataset needs iter and next");
        return NULL;
    }
    ct_dataset *d = ct__dataset_alloc(true);
    if (d) d->it = desc;
    else if (desc.free) desc.free(desc.user);
    return d;
}

ct_dataset *ct_dataset_retain(ct_dataset *d)
{
    if (d) CT__ATOMIC_INC(&d->refcount);
    return d;
}

void ct_dataset_free(ct_dataset *d)
{
    if (!d || CT__ATOMIC_DEC(&d->refcount) != 0) return;
    void (*free_user)(void *) = d->iterable ? d->it.free : d->map.free;
    if (free_user) free_user(d->iterable ? d->it.user : d->map.user);
    CT_FREE(d);
}

static ct_result ct__null_dataset(const char *fn)
{
    if (ct_last_error_code() != CT_OK) return ct_last_error_code();
    return ct__fail(CT_ERR_TYPE, "%s(): argument 'dataset' must be a dataset, not NULL", fn);
}

int64_t ct_dataset_len(const ct_dataset *d)
{
    if (!d) return ct__null_dataset("dataset_len");
    if (d->iterable) return ct__fail(CT_ERR_TYPE, "object of type 'IterableDataset' has no len()");
    return d->map.len(d->map.user);
}

/* The sample's tensors are handed out of the scope get_item ran in. */
static void ct__keep_sample(ct_sample *s)
{
    for (int k = 0; k < s->n; k++) ct_keep(s->field[k]);
}

static ct_result ct__check_sample(const ct_sample *s, ct_result r)
{
    if (r != CT_OK) return ct_last_error_code() != CT_OK ? ct_last_error_code() : r;
    if (s->n < 0 || s->n > CT_SAMPLE_MAX)
        return ct__fail(CT_ERR_VALUE, "a sample holds at most %d tensors, not %d", CT_SAMPLE_MAX, s->n);
    for (int k = 0; k < s->n; k++)
        if (!s->field[k]) return ct__fail(CT_ERR_TYPE, "sample field %d is NULL", k);
    return CT_OK;
}

ct_result ct_dataset_get(ct_dataset *d, int64_t index, ct_sample *out)
{
    if (!d) return ct__null_dataset("dataset_get");
    if (!out) return ct__fail(CT_ERR_TYPE, "dataset_get(): argument 'out' must be a sample, not NULL");
    if (d->iterable)
        return ct__fail(CT_ERR_NOT_IMPLEMENTED, "an IterableDataset has no __getitem__: iterate it with a loader");
    ct_sample s;
    memset(&s, 0, sizeof s);
    ct_scope scope = ct_scope_begin();
    ct_result r = ct__check_sample(&s, d->map.get_item(d->map.user, index, &s));
    if (r == CT_OK) ct__keep_sample(&s);
    ct_scope_end(scope);
    out->n = 0;
    if (r == CT_OK) *out = s;
    return r;
}

/* ---------------------------------------------------------------- TensorDataset */

typedef struct ct__tensor_ds {
    int n;
    ct_tensor *t[CT_SAMPLE_MAX];
} ct__tensor_ds;

static int64_t ct__tensor_ds_len(void *user) { return ct_size(((ct__tensor_ds *)user)->t[0], 0); }

static ct_result ct__tensor_ds_get(void *user, int64_t index, ct_sample *out)
{
    ct__tensor_ds *td = (ct__tensor_ds *)user;
    int64_t n = ct_size(td->t[0], 0);
    if (index < -n || index >= n) /* tensor[index]'s words, not select()'s */
        return ct__fail(CT_ERR_INDEX, "index %lld is out of bounds for dimension 0 with size %lld", (long long)index,
                        (long long)n);
    for (int k = 0; k < td->n; k++)
        if (!(out->field[k] = ct_select(td->t[k], 0, index))) return ct_last_error_code();
    out->n = td->n;
    return CT_OK;
}

static void ct__tensor_ds_free(void *user)
{
    ct__tensor_ds *td = (ct__tensor_ds *)user;
    for (int k = 0; k < td->n; k++) ct_release(td->t[k]);
    CT_FREE(td);
}

ct_dataset *ct_tensor_dataset(ct_tensor *const *tensors, int n)
{
    if (n < 1 || n > CT_SAMPLE_MAX || !tensors) {
        ct__fail(CT_ERR_VALUE, "TensorDataset takes 1 to %d tensors, not %d", CT_SAMPLE_MAX, n);
        return NULL;
    }
    for (int k = 0; k < n; k++) {
        if (!tensors[k]) {
            ct__null_arg(__func__, "tensors", k + 1);
            return NULL;
        }
        if (ct_dim(tensors[k]) == 0 || ct_size(tensors[k], 0) != ct_size(tensors[0], 0)) {
            ct__fail(CT_ERR_RUNTIME, "Size mismatch between tensors");
            return NULL;
        }
    }
    ct__tensor_ds *td = (ct__tensor_ds *)CT_MALLOC(sizeof *td);
    if (!td) {
        CT__OOM();
        return NULL;
    }
    td->n = n;
    for (int k = 0; k < n; k++) td->t[k] = ct_retain(tensors[k]);
    return ct__map_dataset(ct__tensor_ds_len, ct__tensor_ds_get, ct__tensor_ds_free, td);
}

/* ---------------------------------------------------------------- Subset */

typedef struct ct__subset {
    ct_dataset *d;
    int64_t n;
    int64_t *indices;
} ct__subset;

static int64_t ct__subset_len(void *user) { return ((ct__subset *)user)->n; }

/* A Python list index: negative counts from the end. */
static bool ct__list_index(int64_t *i, int64_t n)
{
    if (*i < 0) *i += n;
    if (*i >= 0 && *i < n) return true;
    ct__fail(CT_ERR_INDEX, "list index out of range");
    return false;
}

static ct_result ct__subset_get(void *user, int64_t index, ct_sample *out)
{
    ct__subset *s = (ct__subset *)user;
    if (!ct__list_index(&index, s->n)) return CT_ERR_INDEX;
    return ct_dataset_get(s->d, s->indices[index], out);
}

static void ct__subset_free(void *user)
{
    ct__subset *s = (ct__subset *)user;
    ct_dataset_free(s->d);
    CT_FREE(s->indices);
    CT_FREE(s);
}

/* A copy of n int64s (a non-NULL pointer even for n == 0), or NULL after an error. */
static int64_t *ct__copy_indices(const int64_t *indices, int64_t n)
{
    int64_t *c = (int64_t *)CT_MALLOC(((size_t)n + 1) * sizeof *c);
    if (!c) CT__OOM();
    else if (n > 0) memcpy(c, indices, (size_t)n * sizeof *c);
    return c;
}

ct_dataset *ct_subset(ct_dataset *d, const int64_t *indices, int64_t n)
{
    if (!d) {
        ct__null_dataset("subset");
        return NULL;
    }
    if (n < 0 || (n > 0 && !indices)) {
        ct__fail(CT_ERR_VALUE, "Subset(): indices must be a list of n >= 0 indices");
        return NULL;
    }
    ct__subset *s = (ct__subset *)CT_MALLOC(sizeof *s);
    int64_t *copy = s ? ct__copy_indices(indices, n) : NULL;
    if (!copy) {
        if (s) CT_FREE(s);
        else CT__OOM();
        return NULL;
    }
    s->d = ct_dataset_retain(d);
    s->n = n;
    s->indices = copy;
    return ct__map_dataset(ct__subset_len, ct__subset_get, ct__subset_free, s);
}

/* ---------------------------------------------------------------- ConcatDataset */

typedef struct ct__concat {
    int n;
    ct_dataset **d;
    int64_t *cumulative; /* cumulative_sizes */
} ct__concat;

static int64_t ct__concat_len(void *user)
{
    ct__concat *c = (ct__concat *)user;
    return c->cumulative[c->n - 1];
}

static ct_result ct__concat_get(void *user, int64_t index, ct_sample *out)
{
    ct__concat *c = (ct__concat *)user;
    int64_t total = c->cumulative[c->n - 1];
    if (index < 0) {
        if (-index > total) return ct__fail(CT_ERR_VALUE, "absolute value of index should not exceed dataset length");
        index += total;
    }
    int k = 0; /* bisect_right(cumulative_sizes, index) */
    while (k < c->n && c->cumulative[k] <= index) k++;
    if (k == c->n) return ct__fail(CT_ERR_INDEX, "list index out of range");
    return ct_dataset_get(c->d[k], k == 0 ? index : index - c->cumulative[k - 1], out);
}

static void ct__concat_free(void *user)
{
    ct__concat *c = (ct__concat *)user;
    for (int k = 0; k < c->n; k++) ct_dataset_free(c->d[k]);
    CT_FREE(c->d);
    CT_FREE(c->cumulative);
    CT_FREE(c);
}

ct_dataset *ct_concat_dataset(ct_dataset *const *datasets, int n)
{
    if (n <= 0 || !datasets) {
        ct__fail(CT_ERR_VALUE, "datasets should not be an empty iterable");
        return NULL;
    }
    for (int k = 0; k < n; k++) {
        if (!datasets[k]) {
            ct__null_dataset("concat_dataset");
            return NULL;
        }
        if (datasets[k]->iterable) {
            ct__fail(CT_ERR_VALUE, "ConcatDataset does not support IterableDataset");
            return NULL;
        }
    }
    ct__concat *c = (ct__concat *)CT_MALLOC(sizeof *c);
    ct_dataset **d = (ct_dataset **)CT_MALLOC((size_t)n * sizeof *d);
    int64_t *cum = (int64_t *)CT_MALLOC((size_t)n * sizeof *cum);
    if (!c || !d || !cum) {
        CT_FREE(c), CT_FREE(d), CT_FREE(cum);
        CT__OOM();
        return NULL;
    }
    for (int k = 0; k < n; k++) {
        d[k] = ct_dataset_retain(datasets[k]);
        cum[k] = (k ? cum[k - 1] : 0) + ct_dataset_len(datasets[k]);
    }
    c->n = n;
    c->d = d;
    c->cumulative = cum;
    return ct__map_dataset(ct__concat_len, ct__concat_get, ct__concat_free, c);
}

/* ---------------------------------------------------------------- random_split */

/* Fractions that sum to 1 become counts as random_split computes them. */
static ct_result ct__split_lengths(const double *lengths, int n, int64_t len, int64_t *counts)
{
    double sum = 0;
    for (int i = 0; i < n; i++) sum += lengths[i];
    bool fractions = fabs(sum - 1) <= 1e-9 * CT__MAX(1.0, fabs(sum)) && sum <= 1; /* math.isclose */
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        if (fractions && (lengths[i] < 0 || lengths[i] > 1))
            return ct__fail(CT_ERR_VALUE, "Fraction at index %d is not between 0 and 1", i);
        counts[i] = fractions ? (int64_t)floor((double)len * lengths[i]) : (int64_t)lengths[i];
        total += counts[i];
    }
    for (int64_t i = 0; fractions && i < len - total; i++) counts[i % n]++;
    if (fractions) total = len;
    if (total != len) return ct__fail(CT_ERR_VALUE, "Sum of input lengths does not equal the length of the input dataset!");
    return CT_OK;
}

ct_result ct_random_split(ct_dataset *d, const double *lengths, int n, ct_generator *g, ct_dataset **out)
{
    if (!d) return ct__null_dataset("random_split");
    if (n <= 0 || !lengths || !out) return ct__fail(CT_ERR_VALUE, "random_split(): lengths must be a list of n >= 1 lengths");
    int64_t len = ct_dataset_len(d);
    if (len < 0) return (ct_result)len;
    int64_t *counts = (int64_t *)CT_MALLOC((size_t)n * sizeof *counts);
    if (!counts) return CT__OOM();
    ct_result r = ct__split_lengths(lengths, n, len, counts);
    ct_scope s = ct_scope_begin();
    ct_device_guard host = ct_device_guard_begin(CT_CPU); /* a host permutation, whatever the default device */
    ct_tensor *perm = r == CT_OK ? ct_randperm(len, CT_I64, g) : NULL;
    ct_device_guard_end(host);
    if (r == CT_OK && !perm) r = ct_last_error_code();
    const int64_t *p = perm ? (const int64_t *)ct_data_ptr(perm) : NULL;
    int made = 0;
    for (int64_t offset = 0; r == CT_OK && made < n; offset += counts[made++])
        if (!(out[made] = ct_subset(d, p + offset, counts[made]))) r = ct_last_error_code();
    ct_scope_end(s);
    if (r != CT_OK)
        while (made > 0) ct_dataset_free(out[--made]);
    CT_FREE(counts);
    return r;
}

/* ---------------------------------------------------------------- transformed */

typedef struct ct__transformed {
    ct_dataset *d;
    int field, n;
    ct_transform list[1]; /* n of them */
} ct__transformed;

static int64_t ct__transformed_len(void *user) { return ct_dataset_len(((ct__transformed *)user)->d); }

static ct_result ct__transformed_get(void *user, int64_t index, ct_sample *out)
{
    ct__transformed *t = (ct__transformed *)user;
    ct_result r = ct_dataset_get(t->d, index, out);
    if (r != CT_OK) return r;
    if (t->field >= out->n)
        return ct__fail(CT_ERR_INDEX, "tuple index out of range: the sample has %d fields, the transform is for field %d",
                        out->n, t->field);
    ct_tensor *x = ct_transform_apply(t->list, t->n, out->field[t->field], NULL);
    if (!x) return ct_last_error_code();
    out->field[t->field] = x;
    return CT_OK;
}

static void ct__transformed_free(void *user)
{
    ct_dataset_free(((ct__transformed *)user)->d);
    CT_FREE(user);
}

ct_dataset *ct_transformed_dataset(ct_dataset *d, int field, const ct_transform *list, int n)
{
    if (!d) {
        ct__null_dataset("transformed_dataset");
        return NULL;
    }
    if (d->iterable) {
        ct__fail(CT_ERR_VALUE, "transformed_dataset(): takes a map-style dataset");
        return NULL;
    }
    if (field < 0 || field >= CT_SAMPLE_MAX || n < 0 || (n > 0 && !list)) {
        ct__fail(CT_ERR_VALUE, "transformed_dataset(): field must be in [0, %d) and list hold n >= 0 transforms",
                 CT_SAMPLE_MAX);
        return NULL;
    }
    if (ct__check_transforms(list, n) != CT_OK) return NULL;
    ct__transformed *t = (ct__transformed *)CT_MALLOC(sizeof *t + (size_t)n * sizeof t->list[0]);
    if (!t) {
        CT__OOM();
        return NULL;
    }
    t->d = ct_dataset_retain(d);
    t->field = field;
    t->n = n;
    if (n > 0) memcpy(t->list, list, (size_t)n * sizeof *list);
    return ct__map_dataset(ct__transformed_len, ct__transformed_get, ct__transformed_free, t);
}
