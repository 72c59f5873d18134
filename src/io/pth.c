/* PyTorch's torch.save files of state_dicts.
 *
 * The zip format (PyTorch 1.6 and later): an archive whose entries sit in one
 * folder, "<name>/data.pkl" (the pickled object), "<name>/data/<key>" (each
 * storage's raw bytes, little-endian), "<name>/version". In the pickle a
 * tensor is torch._utils._rebuild_tensor_v2(storage, storage_offset, size,
 * stride, requires_grad, backward_hooks), its storage a persistent id
 * ('storage', torch.FloatStorage, key, location, numel). The legacy format
 * is five pickles in a row (magic number, protocol version, system info, the
 * object, the list of storage keys) followed by each storage as an int64
 * element count and its bytes.
 *
 * The unpickler runs the opcodes a state_dict needs (those of PyTorch's
 * weights_only unpickler, plus protocol 4's framing and memo opcodes), on a
 * stack of values that all live until the load ends, and calls nothing but
 * the few globals a state_dict names. Tensors are first recorded as
 * descriptions; once the storages' bytes are found they are made as views
 * of one tensor per storage, so that tensors sharing a storage in the file
 * share one here. Memory grows with the input only: each opcode makes at most
 * one value, and memo indices are bounded by the pickle's length. */

/* ---------------------------------------------------------------- values */

typedef enum ct__pk_kind {
    CT__PK_NONE, CT__PK_BOOL, CT__PK_INT, CT__PK_BIGINT, CT__PK_FLOAT, CT__PK_STR, CT__PK_TUPLE, CT__PK_LIST,
    CT__PK_DICT, CT__PK_GLOBAL, CT__PK_STORAGE, CT__PK_TENSOR
} ct__pk_kind;

/* Python's names for them, for messages. */
static const char *const ct__pk_kind_names[] = {"None", "bool", "int", "int", "float", "str", "tuple", "list", "dict",
                                                 "a class or function", "a storage", "a tensor"};

/* The globals a state_dict's pickle names. */
typedef enum ct__pk_global {
    CT__G_ORDERED_DICT, CT__G_REBUILD_TENSOR_V2, CT__G_REBUILD_TENSOR, CT__G_REBUILD_PARAMETER, CT__G_STORAGE
} ct__pk_global;

typedef struct ct__pk {
    ct__pk_kind kind;
    int64_t i;               /* BOOL, INT; GLOBAL: a ct__pk_global; STORAGE, TENSOR: an index into their table */
    ct_dtype dtype;          /* GLOBAL CT__G_STORAGE: the storage type's dtype */
    double f;                /* FLOAT */
    const unsigned char *s;  /* STR (UTF-8), BIGINT (little-endian two's complement): inside the pickle */
    size_t n;
    struct ct__pk **items;   /* TUPLE, LIST; DICT: keys and values alternating */
    int64_t len, cap;
} ct__pk;

/* A storage the pickle refers to, and where its bytes turned out to be. */
typedef struct ct__pk_storage {
    const unsigned char *key;
    size_t key_len;
    ct_dtype dtype;
    int64_t numel;
    unsigned char *data;      /* NULL until found */
    ct__shared_bytes *holder; /* the bytes' owner (a reference) */
    ct_tensor *t;
} ct__pk_storage;

/* A tensor the pickle rebuilds, made once its storage is found. */
typedef struct ct__pk_tensor {
    int64_t storage, offset;
    int ndim;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    bool requires_grad;
    ct_tensor *t;
} ct__pk_tensor;

typedef struct ct__unpickler {
    const char *path;
    const unsigned char *start, *p, *end; /* the pickle being read */
    ct__pk **stack;
    int64_t sp, stack_cap;
    int64_t *marks; /* stack heights at each MARK */
    int64_t n_marks, marks_cap;
    ct__pk **memo;
    int64_t memo_cap, memo_count;
    ct__pk **all; /* every value made, freed together at the end */
    int64_t n_all, all_cap;
    ct__pk_storage *storages;
    int64_t n_storages, storages_cap;
    ct__pk_tensor *tensors;
    int64_t n_tensors, tensors_cap;
    bool swap; /* the storages' bytes are in the other byte order */
} ct__unpickler;

/* Room for `need` items of `size` bytes in a growing array (new ones zeroed). */
static bool ct__reserve(void **items, int64_t *cap, int64_t need, size_t size)
{
    if (need <= *cap) return true;
    int64_t grown = CT__MAX(need, *cap ? 2 * *cap : 16);
    if ((uint64_t)grown > SIZE_MAX / size) return false;
    char *p = (char *)CT_REALLOC(*items, (size_t)grown * size);
    if (!p) return false;
    memset(p + (size_t)*cap * size, 0, (size_t)(grown - *cap) * size);
    *items = p;
    *cap = grown;
    return true;
}
#define CT__RESERVE(arr, cap, need) ct__reserve((void **)&(arr), &(cap), (need), sizeof *(arr))

static ct_result ct__pk_fail(const ct__unpickler *u, const char *fmt, ...) CT__PRINTF(2, 3);
static ct_result ct__pk_fail(const ct__unpickler *u, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return ct__fail(CT_ERR_RUNTIME, "cannot load '%s': %s", u->path, why);
}

static void ct__unpickler_free(ct__unpickler *u)
{
    for (int64_t i = 0; i < u->n_all; i++) {
        CT_FREE(u->all[i]->items);
        CT_FREE(u->all[i]);
    }
    for (int64_t i = 0; i < u->n_storages; i++) ct__shared_bytes_drop(u->storages[i].holder);
    CT_FREE(u->all);
    CT_FREE(u->stack);
    CT_FREE(u->marks);
    CT_FREE(u->memo);
    CT_FREE(u->storages);
    CT_FREE(u->tensors);
    memset(u, 0, sizeof *u);
}

/* Start reading the pickle in [p, end): a fresh stack and memo (the values
 * and tables of earlier pickles in the file stay). */
static void ct__unpickler_begin(ct__unpickler *u, const unsigned char *p, const unsigned char *end)
{
    u->start = u->p = p;
    u->end = end;
    u->sp = u->n_marks = u->memo_count = 0;
    if (u->memo) memset(u->memo, 0, (size_t)u->memo_cap * sizeof *u->memo);
}

static ct__pk *ct__pk_new(ct__unpickler *u, ct__pk_kind kind)
{
    ct__pk *v = (ct__pk *)CT_MALLOC(sizeof *v);
    if (!v || !CT__RESERVE(u->all, u->all_cap, u->n_all + 1)) {
        CT_FREE(v);
        CT__OOM();
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->kind = kind;
    u->all[u->n_all++] = v;
    return v;
}

/* Append to a tuple, list or dict's items. */
static ct_result ct__pk_append(ct__pk *seq, ct__pk *item)
{
    if (!CT__RESERVE(seq->items, seq->cap, seq->len + 1)) return CT__OOM();
    seq->items[seq->len++] = item;
    return CT_OK;
}

/* ---------------------------------------------------------------- the stack */

/* The stack height where the innermost MARK's items begin. */
static int64_t ct__pk_floor(const ct__unpickler *u) { return u->n_marks ? u->marks[u->n_marks - 1] : 0; }

static ct_result ct__pk_push(ct__unpickler *u, ct__pk *v)
{
    if (!v) return CT_ERR_MEMORY;
    if (!CT__RESERVE(u->stack, u->stack_cap, u->sp + 1)) return CT__OOM();
    u->stack[u->sp++] = v;
    return CT_OK;
}

static ct__pk *ct__pk_pop(ct__unpickler *u)
{
    return u->sp > ct__pk_floor(u) ? u->stack[--u->sp] : NULL;
}

static ct__pk *ct__pk_top(const ct__unpickler *u)
{
    return u->sp > ct__pk_floor(u) ? u->stack[u->sp - 1] : NULL;
}

static ct_result ct__pk_underflow(const ct__unpickler *u) { return ct__pk_fail(u, "unpickling stack underflow"); }

/* The items pushed since the innermost MARK, taken off the stack (they stay
 * readable at *items until the next push). */
static ct_result ct__pk_pop_mark(ct__unpickler *u, ct__pk ***items, int64_t *n)
{
    if (u->n_marks == 0) return ct__pk_fail(u, "could not find MARK");
    int64_t at = u->marks[--u->n_marks];
    *items = u->stack ? u->stack + at : NULL; /* (no stack yet: nothing to read, and NULL + 0 is undefined) */
    *n = u->sp - at;
    u->sp = at;
    return CT_OK;
}

/* A tuple of the n values at items. */
static ct_result ct__pk_push_tuple(ct__unpickler *u, ct__pk *const *items, int64_t n)
{
    ct__pk *t = ct__pk_new(u, CT__PK_TUPLE);
    if (!t) return CT_ERR_MEMORY;
    if (n > 0) {
        t->items = (ct__pk **)CT_MALLOC((size_t)n * sizeof *t->items);
        if (!t->items) return CT__OOM();
        memcpy(t->items, items, (size_t)n * sizeof *t->items);
        t->len = t->cap = n;
    }
    return ct__pk_push(u, t);
}

/* ---------------------------------------------------------------- reading the pickle */

static bool ct__pk_has(const ct__unpickler *u, size_t n) { return (size_t)(u->end - u->p) >= n; }

static ct_result ct__pk_truncated(const ct__unpickler *u) { return ct__pk_fail(u, "pickle data was truncated"); }

/* n bytes of the pickle, little-endian, as an unsigned number. */
static uint64_t ct__pk_uint(ct__unpickler *u, int n)
{
    uint64_t v = 0;
    for (int k = n; k-- > 0;) v = v << 8 | u->p[k];
    u->p += n;
    return v;
}

/* A str of n bytes (BINUNICODE and its kin: UTF-8; the legacy BINSTRINGs: bytes). */
static ct_result ct__pk_push_str(ct__unpickler *u, uint64_t n, bool utf8)
{
    if (!ct__pk_has(u, n)) return ct__pk_truncated(u);
    if (utf8 && !ct__utf8_valid(u->p, (size_t)n)) return ct__pk_fail(u, "'utf-8' codec can't decode a string");
    ct__pk *v = ct__pk_new(u, CT__PK_STR);
    if (v) {
        v->s = u->p;
        v->n = (size_t)n;
    }
    u->p += n;
    return ct__pk_push(u, v);
}

static ct_result ct__pk_push_int(ct__unpickler *u, int64_t i, ct__pk_kind kind)
{
    ct__pk *v = ct__pk_new(u, kind);
    if (v) v->i = i;
    return ct__pk_push(u, v);
}

/* LONG1 / LONG4: n bytes of little-endian two's complement. */
static ct_result ct__pk_push_long(ct__unpickler *u, uint64_t n)
{
    if (!ct__pk_has(u, n)) return ct__pk_truncated(u);
    if (n <= 8) {
        uint64_t v = 0;
        for (uint64_t k = n; k-- > 0;) v = v << 8 | u->p[k];
        if (n > 0 && n < 8 && (u->p[n - 1] & 0x80)) v |= ~(uint64_t)0 << (8 * n); /* sign-extend */
        u->p += n;
        return ct__pk_push_int(u, (int64_t)v, CT__PK_INT);
    }
    ct__pk *v = ct__pk_new(u, CT__PK_BIGINT);
    if (v) {
        v->s = u->p;
        v->n = (size_t)n;
    }
    u->p += n;
    return ct__pk_push(u, v);
}

/* GLOBAL's "module\nname\n" lines. */
static bool ct__pk_line(ct__unpickler *u, const unsigned char **s, size_t *n)
{
    const unsigned char *nl = (const unsigned char *)memchr(u->p, '\n', (size_t)(u->end - u->p));
    if (!nl) return false;
    *s = u->p;
    *n = (size_t)(nl - u->p);
    u->p = nl + 1;
    return true;
}

static bool ct__pk_is(const unsigned char *s, size_t n, const char *word)
{
    return strlen(word) == n && !memcmp(s, word, n);
}

/* torch.<Type>Storage's dtype, CT_DEFAULT for other names. */
static ct_dtype ct__pk_storage_dtype(const unsigned char *s, size_t n)
{
    static const struct { const char *name; ct_dtype dtype; } types[] = {
        {"FloatStorage", CT_F32}, {"DoubleStorage", CT_F64}, {"HalfStorage", CT_F16}, {"BFloat16Storage", CT_BF16},
        {"LongStorage", CT_I64}, {"IntStorage", CT_I32}, {"ShortStorage", CT_I16}, {"CharStorage", CT_I8},
        {"ByteStorage", CT_U8}, {"BoolStorage", CT_BOOL},
    };
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
        if (ct__pk_is(s, n, types[k].name)) return types[k].dtype;
    return CT_DEFAULT;
}

/* GLOBAL / STACK_GLOBAL: one of the few a state_dict names, or an error. */
static ct_result ct__pk_push_global(ct__unpickler *u, const unsigned char *mod, size_t ml, const unsigned char *name,
                                    size_t nl)
{
    ct__pk *v = ct__pk_new(u, CT__PK_GLOBAL);
    if (!v) return CT_ERR_MEMORY;
    if (ct__pk_is(mod, ml, "collections") && ct__pk_is(name, nl, "OrderedDict")) v->i = CT__G_ORDERED_DICT;
    else if (ct__pk_is(mod, ml, "torch._utils") && ct__pk_is(name, nl, "_rebuild_tensor_v2")) v->i = CT__G_REBUILD_TENSOR_V2;
    else if (ct__pk_is(mod, ml, "torch._utils") && ct__pk_is(name, nl, "_rebuild_tensor")) v->i = CT__G_REBUILD_TENSOR;
    else if (ct__pk_is(mod, ml, "torch._utils") && ct__pk_is(name, nl, "_rebuild_parameter")) v->i = CT__G_REBUILD_PARAMETER;
    else if (ct__pk_is(mod, ml, "torch") && (v->dtype = ct__pk_storage_dtype(name, nl)) != CT_DEFAULT) v->i = CT__G_STORAGE;
    else
        return ct__pk_fail(u, "Unsupported class %.*s.%.*s (ctorch loads state_dicts: dicts of tensors)",
                           (int)CT__MIN(ml, 200), (const char *)mod, (int)CT__MIN(nl, 200), (const char *)name);
    return ct__pk_push(u, v);
}

/* ---------------------------------------------------------------- storages and tensors */

static bool ct__pk_is_global(const ct__pk *v, ct__pk_global g) { return v && v->kind == CT__PK_GLOBAL && v->i == g; }

/* BINPERSID: ('storage', torch.FloatStorage, key, location, numel) (the
 * legacy format adds a view description, always None since PyTorch 0.4). */
static ct_result ct__pk_persistent_load(ct__unpickler *u)
{
    ct__pk *pid = ct__pk_pop(u);
    if (!pid) return ct__pk_underflow(u);
    ct__pk *const *it = pid->items;
    if (pid->kind != CT__PK_TUPLE || pid->len < 1 || it[0]->kind != CT__PK_STR || !ct__pk_is(it[0]->s, it[0]->n, "storage"))
        return ct__pk_fail(u, "Only persistent_load of storage is allowed");
    if ((pid->len != 5 && pid->len != 6) || !ct__pk_is_global(it[1], CT__G_STORAGE) || it[2]->kind != CT__PK_STR ||
        it[3]->kind != CT__PK_STR || it[4]->kind != CT__PK_INT || it[4]->i < 0 || (pid->len == 6 && it[5]->kind != CT__PK_NONE))
        return ct__pk_fail(u, "a storage's persistent id is not ('storage', type, key, location, numel)");
    int64_t k = 0;
    while (k < u->n_storages && !(u->storages[k].key_len == it[2]->n && !memcmp(u->storages[k].key, it[2]->s, it[2]->n)))
        k++;
    if (k == u->n_storages) {
        if (!CT__RESERVE(u->storages, u->storages_cap, k + 1)) return CT__OOM();
        ct__pk_storage *s = &u->storages[u->n_storages++];
        s->key = it[2]->s;
        s->key_len = it[2]->n;
        s->dtype = it[1]->dtype;
        s->numel = it[4]->i;
    } else if (u->storages[k].dtype != it[1]->dtype || u->storages[k].numel != it[4]->i) {
        return ct__pk_fail(u, "storage '%.*s' is described twice, differently", (int)CT__MIN(it[2]->n, 200), (const char *)it[2]->s);
    }
    return ct__pk_push_int(u, k, CT__PK_STORAGE);
}

/* A tuple of non-negative ints (a size or a stride) into out. */
static bool ct__pk_dims(const ct__pk *v, int64_t *out, int *ndim)
{
    if (v->kind != CT__PK_TUPLE || v->len > CT_MAX_DIMS) return false;
    for (int64_t d = 0; d < v->len; d++) {
        if (v->items[d]->kind != CT__PK_INT || v->items[d]->i < 0) return false;
        out[d] = v->items[d]->i;
    }
    *ndim = (int)v->len;
    return true;
}

/* _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
 * backward_hooks[, metadata]) or _rebuild_tensor(storage, storage_offset,
 * size, stride): a tensor's description. */
static ct__pk *ct__pk_rebuild(ct__unpickler *u, const ct__pk *args, bool v2)
{
    ct__pk *const *a = args->items;
    int ndim = 0, nstride = -1;
    ct__pk_tensor d;
    memset(&d, 0, sizeof d);
    bool ok = v2 ? args->len == 6 || args->len == 7 : args->len == 4;
    ok = ok && a[0]->kind == CT__PK_STORAGE && a[1]->kind == CT__PK_INT && a[1]->i >= 0 && ct__pk_dims(a[2], d.sizes, &ndim) &&
         ct__pk_dims(a[3], d.strides, &nstride) && ndim == nstride && (!v2 || a[4]->kind == CT__PK_BOOL);
    if (!ok) {
        ct__pk_fail(u, "a tensor's arguments are not (storage, storage_offset, size, stride%s) with sizes and strides "
                    "of at most %d non-negative ints", v2 ? ", requires_grad, backward_hooks" : "", CT_MAX_DIMS);
        return NULL;
    }
    d.storage = a[0]->i;
    d.offset = a[1]->i;
    d.ndim = ndim;
    d.requires_grad = v2 && a[4]->i;
    if (!CT__RESERVE(u->tensors, u->tensors_cap, u->n_tensors + 1)) {
        CT__OOM();
        return NULL;
    }
    u->tensors[u->n_tensors] = d;
    ct__pk *v = ct__pk_new(u, CT__PK_TENSOR);
    if (v) v->i = u->n_tensors++;
    return v;
}

/* REDUCE: func(*args) for the globals a state_dict calls. */
static ct_result ct__pk_reduce(ct__unpickler *u)
{
    ct__pk *args = ct__pk_pop(u), *func = ct__pk_top(u), *v = NULL;
    if (!args || !func) return ct__pk_underflow(u);
    if (func->kind != CT__PK_GLOBAL || func->i == CT__G_STORAGE)
        return ct__pk_fail(u, "Trying to call reduce for unrecognized function (%s)", ct__pk_kind_names[func->kind]);
    if (args->kind != CT__PK_TUPLE) return ct__pk_fail(u, "REDUCE's arguments are %s, not a tuple", ct__pk_kind_names[args->kind]);
    switch ((ct__pk_global)func->i) {
    case CT__G_ORDERED_DICT:
        if (args->len != 0) return ct__pk_fail(u, "OrderedDict is called with arguments");
        if (!(v = ct__pk_new(u, CT__PK_DICT))) return CT_ERR_MEMORY;
        break;
    case CT__G_REBUILD_TENSOR_V2:
    case CT__G_REBUILD_TENSOR:
        if (!(v = ct__pk_rebuild(u, args, func->i == CT__G_REBUILD_TENSOR_V2))) return ct_last_error_code();
        break;
    case CT__G_REBUILD_PARAMETER: /* (data, requires_grad, backward_hooks): the tensor itself */
        if (args->len != 3 || args->items[0]->kind != CT__PK_TENSOR || args->items[1]->kind != CT__PK_BOOL)
            return ct__pk_fail(u, "_rebuild_parameter's arguments are not (tensor, requires_grad, backward_hooks)");
        v = args->items[0];
        u->tensors[v->i].requires_grad = args->items[1]->i != 0;
        break;
    case CT__G_STORAGE:
        break;
    }
    u->stack[u->sp - 1] = v;
    return CT_OK;
}

/* ---------------------------------------------------------------- the opcodes */

/* BINPUT / LONG_BINPUT / MEMOIZE: memo[i] = the top of the stack. */
static ct_result ct__pk_memo_put(ct__unpickler *u, uint64_t i)
{
    ct__pk *top = ct__pk_top(u);
    if (!top) return ct__pk_underflow(u);
    /* a pickler numbers its memo from 0, one entry per opcode at least */
    if (i > (uint64_t)(u->end - u->start)) return ct__pk_fail(u, "memo index %llu is out of range", (unsigned long long)i);
    if (!CT__RESERVE(u->memo, u->memo_cap, (int64_t)i + 1)) return CT__OOM();
    if (!u->memo[i]) u->memo_count++;
    u->memo[i] = top;
    return CT_OK;
}

static ct_result ct__pk_memo_get(ct__unpickler *u, uint64_t i)
{
    if (i >= (uint64_t)u->memo_cap || !u->memo[i]) return ct__pk_fail(u, "Memo value not found at index %llu", (unsigned long long)i);
    return ct__pk_push(u, u->memo[i]);
}

/* SETITEM(S): pairs into the dict below them. */
static ct_result ct__pk_setitems(ct__unpickler *u, ct__pk *const *kv, int64_t n)
{
    ct__pk *d = ct__pk_top(u);
    if (!d) return ct__pk_underflow(u);
    if (d->kind != CT__PK_DICT) return ct__pk_fail(u, "can only set the items of a dict, but got %s", ct__pk_kind_names[d->kind]);
    if (n % 2) return ct__pk_fail(u, "SETITEMS has an odd number of items");
    ct_result r = CT_OK;
    for (int64_t k = 0; k < n && r == CT_OK; k++) r = ct__pk_append(d, kv[k]);
    return r;
}

/* APPEND(S): items onto the list below them. */
static ct_result ct__pk_appends(ct__unpickler *u, ct__pk *const *items, int64_t n)
{
    ct__pk *l = ct__pk_top(u);
    if (!l) return ct__pk_underflow(u);
    if (l->kind != CT__PK_LIST) return ct__pk_fail(u, "Can only append to lists, but got %s", ct__pk_kind_names[l->kind]);
    ct_result r = CT_OK;
    for (int64_t k = 0; k < n && r == CT_OK; k++) r = ct__pk_append(l, items[k]);
    return r;
}

/* The opcodes that take no argument bytes and build or combine values. */
static ct_result ct__pk_structural(ct__unpickler *u, unsigned op)
{
    ct__pk **items = NULL, *a, *b;
    int64_t n = 0;
    ct_result r;
    switch (op) {
    case '(': /* MARK */
        if (!CT__RESERVE(u->marks, u->marks_cap, u->n_marks + 1)) return CT__OOM();
        u->marks[u->n_marks++] = u->sp;
        return CT_OK;
    case ')': return ct__pk_push_tuple(u, NULL, 0);       /* EMPTY_TUPLE */
    case ']': return ct__pk_push(u, ct__pk_new(u, CT__PK_LIST));  /* EMPTY_LIST */
    case '}': return ct__pk_push(u, ct__pk_new(u, CT__PK_DICT));  /* EMPTY_DICT */
    case 'N': return ct__pk_push(u, ct__pk_new(u, CT__PK_NONE));  /* NONE */
    case 0x88: case 0x89: return ct__pk_push_int(u, op == 0x88, CT__PK_BOOL); /* NEWTRUE, NEWFALSE */
    case 't': /* TUPLE */
        if ((r = ct__pk_pop_mark(u, &items, &n)) != CT_OK) return r;
        return ct__pk_push_tuple(u, items, n);
    case 0x85: case 0x86: case 0x87: /* TUPLE1, TUPLE2, TUPLE3 */
        n = op - 0x84;
        if (u->sp - ct__pk_floor(u) < n) return ct__pk_underflow(u);
        u->sp -= n;
        return ct__pk_push_tuple(u, u->stack + u->sp, n);
    case 's': /* SETITEM */
        b = ct__pk_pop(u), a = ct__pk_pop(u);
        if (!a || !b) return ct__pk_underflow(u);
        {
            ct__pk *kv[2] = {a, b};
            return ct__pk_setitems(u, kv, 2);
        }
    case 'u': /* SETITEMS */
        if ((r = ct__pk_pop_mark(u, &items, &n)) != CT_OK) return r;
        return ct__pk_setitems(u, items, n);
    case 'a': /* APPEND */
        if (!(a = ct__pk_pop(u))) return ct__pk_underflow(u);
        return ct__pk_appends(u, &a, 1);
    case 'e': /* APPENDS */
        if ((r = ct__pk_pop_mark(u, &items, &n)) != CT_OK) return r;
        return ct__pk_appends(u, items, n);
    case 'R': return ct__pk_reduce(u); /* REDUCE */
    case 'Q': return ct__pk_persistent_load(u); /* BINPERSID */
    case 'b': /* BUILD: a state for the object below it; a dict's (OrderedDict's _metadata) is dropped */
        a = ct__pk_pop(u), b = ct__pk_top(u);
        if (!a || !b) return ct__pk_underflow(u);
        if (b->kind != CT__PK_DICT) return ct__pk_fail(u, "Can only build dict objects, but got %s", ct__pk_kind_names[b->kind]);
        return CT_OK;
    case 0x93: /* STACK_GLOBAL */
        b = ct__pk_pop(u), a = ct__pk_pop(u);
        if (!a || !b) return ct__pk_underflow(u);
        if (a->kind != CT__PK_STR || b->kind != CT__PK_STR) return ct__pk_fail(u, "STACK_GLOBAL requires str");
        return ct__pk_push_global(u, a->s, a->n, b->s, b->n);
    case '0': /* POP */
        return ct__pk_pop(u) ? CT_OK : ct__pk_underflow(u);
    case '1': /* POP_MARK */
        return ct__pk_pop_mark(u, &items, &n);
    case '2': /* DUP */
        if (!(a = ct__pk_top(u))) return ct__pk_underflow(u);
        return ct__pk_push(u, a);
    default:
        return ct__pk_fail(u, "Unsupported operand %u", op);
    }
}

/* How many argument bytes an opcode has (-1: it takes none, or is GLOBAL's lines). */
static int ct__pk_argument_width(unsigned op)
{
    switch (op) {
    case 'K': case 'U': case 'q': case 'h': case 0x80: case 0x8a: case 0x8c: return 1;
    case 'M': return 2;
    case 'J': case 'X': case 'T': case 'r': case 'j': case 0x8b: return 4;
    case 'G': case 0x8d: case 0x95: return 8;
    default: return -1;
    }
}

/* The opcodes followed by argument bytes: numbers, strings, memo, framing. */
static ct_result ct__pk_with_argument(ct__unpickler *u, unsigned op)
{
    int width = ct__pk_argument_width(op);
    if (!ct__pk_has(u, (size_t)width)) return ct__pk_truncated(u);
    uint64_t v = ct__pk_uint(u, width);
    switch (op) {
    case 'J': return ct__pk_push_int(u, (int32_t)(uint32_t)v, CT__PK_INT); /* BININT */
    case 'K': case 'M': return ct__pk_push_int(u, (int64_t)v, CT__PK_INT); /* BININT1, BININT2 */
    case 'G': { /* BINFLOAT: big-endian */
        uint64_t be = 0;
        for (int k = 0; k < 8; k++) be = be << 8 | (v >> (8 * k) & 0xff);
        ct__pk *f = ct__pk_new(u, CT__PK_FLOAT);
        if (f) memcpy(&f->f, &be, 8);
        return ct__pk_push(u, f);
    }
    case 'X': case 0x8c: case 0x8d: return ct__pk_push_str(u, v, true); /* BINUNICODE, SHORT_, 8 */
    case 'U': return ct__pk_push_str(u, v, false);                      /* SHORT_BINSTRING */
    case 'T': /* BINSTRING */
        if ((int32_t)(uint32_t)v < 0) return ct__pk_fail(u, "BINSTRING pickle has negative byte count");
        return ct__pk_push_str(u, v, false);
    case 0x8a: return ct__pk_push_long(u, v); /* LONG1 */
    case 0x8b: /* LONG4 */
        if ((int32_t)(uint32_t)v < 0) return ct__pk_fail(u, "LONG pickle has negative byte count");
        return ct__pk_push_long(u, v);
    case 'q': case 'r': return ct__pk_memo_put(u, v);   /* BINPUT, LONG_BINPUT */
    case 'h': case 'j': return ct__pk_memo_get(u, v);   /* BINGET, LONG_BINGET */
    case 0x80: /* PROTO */
        return v <= 5 ? CT_OK : ct__pk_fail(u, "unsupported pickle protocol: %d", (int)v);
    case 0x95: /* FRAME: only a hint for buffering */
        return v <= (uint64_t)(u->end - u->p) ? CT_OK : ct__pk_fail(u, "pickle exhausted before end of frame");
    }
    return ct__pk_fail(u, "Unsupported operand %u", op);
}

/* Run the pickle to its STOP: the object it makes into *result, u->p just after. */
static ct_result ct__unpickle(ct__unpickler *u, ct__pk **result)
{
    for (;;) {
        if (u->p == u->end) return ct__pk_truncated(u);
        unsigned op = *u->p++;
        ct_result r;
        if (op == '.') { /* STOP */
            if (!(*result = ct__pk_pop(u))) return ct__pk_underflow(u);
            return CT_OK;
        } else if (op == 'c') { /* GLOBAL */
            const unsigned char *mod, *name;
            size_t ml, nl;
            if (!ct__pk_line(u, &mod, &ml) || !ct__pk_line(u, &name, &nl)) return ct__pk_truncated(u);
            r = ct__pk_push_global(u, mod, ml, name, nl);
        } else if (op == 0x94) { /* MEMOIZE */
            r = ct__pk_memo_put(u, (uint64_t)u->memo_count);
        } else if (ct__pk_argument_width(op) > 0) {
            r = ct__pk_with_argument(u, op);
        } else {
            r = ct__pk_structural(u, op);
        }
        if (r != CT_OK) return r;
    }
}

/* ---------------------------------------------------------------- making the state_dict */

/* The tensor over a storage's bytes, once they were found. */
static ct_result ct__pk_make_storage(ct__unpickler *u, ct__pk_storage *s)
{
    if (!s->data)
        return ct__pk_fail(u, "storage '%.*s' has no data in the file", (int)CT__MIN(s->key_len, 200), (const char *)s->key);
    if (u->swap) ct__swap_bytes(s->data, s->numel, ct_dtype_size(s->dtype));
    ct_shape shape;
    shape.ndim = 1;
    shape.size[0] = s->numel;
    s->t = ct__tensor_in(s->holder, s->data, shape, s->dtype);
    return s->t ? CT_OK : ct_last_error_code();
}

/* A described tensor: a view of its storage's tensor (made once, however
 * often the state_dict names it), with Tensor.set_'s bounds check. */
static ct_result ct__pk_make_tensor(ct__unpickler *u, ct__pk_tensor *d)
{
    if (d->t) return CT_OK;
    ct__pk_storage *s = &u->storages[d->storage];
    ct_result r = s->t ? CT_OK : ct__pk_make_storage(u, s);
    if (r == CT_OK)
        r = ct__check_storage_fits(d->sizes, d->strides, d->ndim, d->offset, ct_dtype_size(s->dtype), s->t->storage->nbytes);
    if (r != CT_OK) return r;
    if (!(d->t = ct__view_of(s->t, d->sizes, d->strides, d->ndim, d->offset))) return ct_last_error_code();
    if (d->requires_grad && ct_is_floating_point(d->t)) return ct_requires_grad_(d->t, true);
    return CT_OK;
}

/* The names of the dict root (str keys, tensor values), copied. */
static ct_result ct__pk_names(ct__unpickler *u, const ct__pk *root, char **names)
{
    for (int64_t i = 0; i < root->len / 2; i++) {
        const ct__pk *k = root->items[2 * i], *v = root->items[2 * i + 1];
        if (k->kind != CT__PK_STR || memchr(k->s, 0, k->n))
            return ct__pk_fail(u, "a state_dict key is %s, not a str", k->kind == CT__PK_STR ? "a str holding NUL" : ct__pk_kind_names[k->kind]);
        if (v->kind != CT__PK_TENSOR)
            return ct__pk_fail(u, "the state_dict's entry '%.*s' is %s, not a tensor", (int)CT__MIN(k->n, 200),
                               (const char *)k->s, ct__pk_kind_names[v->kind]);
        if (!(names[i] = (char *)CT_MALLOC(k->n + 1))) return CT__OOM();
        memcpy(names[i], k->s, k->n);
        names[i][k->n] = 0;
    }
    ct_result r;
    const char *dup = ct__duplicate_name(names, (int)(root->len / 2), &r);
    return dup ? ct__pk_fail(u, "the key '%s' appears twice", dup) : r;
}

/* The loaded object, which must be a dict of tensors, as a list. */
static ct_result ct__pk_state_dict(ct__unpickler *u, const ct__pk *root, ct_tensor_list *out)
{
    if (root->kind != CT__PK_DICT)
        return ct__pk_fail(u, "expected a state_dict (a dict of tensors), but the file holds %s", ct__pk_kind_names[root->kind]);
    int64_t n = root->len / 2;
    if (n >= INT_MAX) return ct__pk_fail(u, "the state_dict has too many entries");
    out->names = (char **)CT_MALLOC((size_t)(n + 1) * sizeof *out->names);
    out->tensors = (ct_tensor **)CT_MALLOC((size_t)(n + 1) * sizeof *out->tensors);
    ct_result r = out->names && out->tensors ? CT_OK : CT__OOM();
    if (r == CT_OK) {
        memset(out->names, 0, (size_t)(n + 1) * sizeof *out->names);
        out->n = (int)n;
        r = ct__pk_names(u, root, out->names);
    }
    ct_scope scope = ct_scope_begin();
    for (int64_t i = 0; i < n && r == CT_OK; i++) {
        ct__pk_tensor *d = &u->tensors[root->items[2 * i + 1]->i];
        r = ct__pk_make_tensor(u, d);
        out->tensors[i] = d->t;
    }
    /* handed on only once all were made: a failure leaves nothing behind */
    for (int64_t i = 0; i < n && r == CT_OK; i++) ct_keep(out->tensors[i]);
    ct_scope_end(scope);
    if (r != CT_OK) ct_tensor_list_free(out);
    return r;
}

/* ---------------------------------------------------------------- the zip format */

/* An entry's bytes: *owned is set when they had to be inflated. */
static ct_result ct__pth_entry(const ct__zip *z, const char *prefix, size_t pl, const char *name, bool required,
                               const ct__zip_entry **e, unsigned char **data, unsigned char **owned)
{
    *owned = *data = NULL;
    *e = ct__zip_find(z, prefix, pl, name);
    if (!*e)
        return required ? ct__fail(CT_ERR_RUNTIME, "PytorchStreamReader failed locating file %s: file not found ('%s')", name,
                                   z->path)
                        : CT_OK;
    return ct__zip_read(z, *e, data, owned);
}

/* The archive's version record (PyTorch reads 1 to 10) and byte order. */
static ct_result ct__pth_zip_header(ct__unpickler *u, const ct__zip *z, const char *prefix, size_t pl)
{
    const ct__zip_entry *e;
    unsigned char *data, *owned;
    ct_result r = ct__pth_entry(z, prefix, pl, ".data/version", false, &e, &data, &owned);
    if (r == CT_OK && !e) r = ct__pth_entry(z, prefix, pl, "version", true, &e, &data, &owned);
    if (r != CT_OK) return r;
    uint64_t version = 0, k = 0;
    for (; k < e->usize && k < 8 && data[k] >= '0' && data[k] <= '9'; k++) version = version * 10 + (data[k] - '0');
    CT_FREE(owned);
    if (k == 0 || version < 1 || version > 10)
        return ct__pk_fail(u, "Attempted to read a PyTorch file with version %llu, but the maximum supported version for "
                           "reading is 10", (unsigned long long)version);
    if ((r = ct__pth_entry(z, prefix, pl, "byteorder", false, &e, &data, &owned)) != CT_OK || !e) return r;
    bool big = e->usize >= 3 && !memcmp(data, "big", 3);
    CT_FREE(owned);
    u->swap = big == ct__little_endian();
    return CT_OK;
}

/* Each storage's bytes: the entry data/<key>, of exactly numel elements. */
static ct_result ct__pth_zip_storages(ct__unpickler *u, const ct__zip *z, const char *prefix, size_t pl,
                                      ct__shared_bytes *file)
{
    for (int64_t i = 0; i < u->n_storages; i++) {
        ct__pk_storage *s = &u->storages[i];
        char name[256];
        if (s->key_len > 200) return ct__pk_fail(u, "a storage key is longer than 200 bytes");
        snprintf(name, sizeof name, "data/%.*s", (int)s->key_len, (const char *)s->key);
        const ct__zip_entry *e;
        unsigned char *owned;
        ct_result r = ct__pth_entry(z, prefix, pl, name, true, &e, &s->data, &owned);
        if (r != CT_OK) return r;
        int64_t nbytes;
        if (!ct__mul_ok(s->numel, (int64_t)ct_dtype_size(s->dtype), &nbytes) || (uint64_t)nbytes != e->usize) {
            CT_FREE(owned);
            return ct__pk_fail(u, "%s holds %llu bytes, but its storage has %lld elements of %s", name,
                               (unsigned long long)e->usize, (long long)s->numel, ct_dtype_name(s->dtype));
        }
        if (owned) { /* inflated: the storage's own bytes */
            ct__bytes b = {owned, (size_t)nbytes, false};
            if (!(s->holder = ct__share_bytes(&b))) return CT_ERR_MEMORY;
        } else {
            CT__ATOMIC_INC(&file->refs);
            s->holder = file;
        }
    }
    return CT_OK;
}

static ct_result ct__pth_zip(const char *path, ct__shared_bytes *file, ct_tensor_list *out)
{
    ct__zip z;
    ct__unpickler u;
    memset(&u, 0, sizeof u);
    u.path = path;
    ct_result r = ct__zip_open(&z, path, file->b.data, file->b.n);
    if (r != CT_OK) return r;
    const char *slash = z.first ? (const char *)memchr(z.first, '/', z.first_len) : NULL;
    size_t pl = slash ? (size_t)(slash - z.first) + 1 : 0;
    if (!slash) r = ct__fail(CT_ERR_RUNTIME, "file in archive is not in a subdirectory: %.*s ('%s')", (int)CT__MIN(z.first_len, 200), z.first ? z.first : "", path);
    const ct__zip_entry *e;
    unsigned char *pkl = NULL, *pkl_owned = NULL;
    if (r == CT_OK) r = ct__pth_zip_header(&u, &z, z.first, pl);
    if (r == CT_OK) r = ct__pth_entry(&z, z.first, pl, "data.pkl", true, &e, &pkl, &pkl_owned);
    ct__pk *root = NULL;
    if (r == CT_OK) {
        ct__unpickler_begin(&u, pkl, pkl + e->usize);
        r = ct__unpickle(&u, &root);
    }
    if (r == CT_OK) r = ct__pth_zip_storages(&u, &z, z.first, pl, file);
    if (r == CT_OK) r = ct__pk_state_dict(&u, root, out);
    CT_FREE(pkl_owned);
    ct__unpickler_free(&u);
    ct__zip_close(&z);
    return r;
}

/* ---------------------------------------------------------------- the legacy format */

/* One of the pickles in a row, from where the last one stopped. */
static ct_result ct__pth_next_pickle(ct__unpickler *u, ct__pk **v)
{
    ct__unpickler_begin(u, u->p, u->end);
    return ct__unpickle(u, v);
}

/* The dict's value for a str key, or NULL. */
static const ct__pk *ct__pk_dict_get(const ct__pk *d, const char *key)
{
    for (int64_t i = 0; d->kind == CT__PK_DICT && i + 1 < d->len; i += 2)
        if (d->items[i]->kind == CT__PK_STR && ct__pk_is(d->items[i]->s, d->items[i]->n, key)) return d->items[i + 1];
    return NULL;
}

/* After the pickles: for each key of the list, an int64 element count and the bytes. */
static ct_result ct__pth_legacy_storages(ct__unpickler *u, const ct__pk *keys, ct__shared_bytes *file)
{
    if (keys->kind != CT__PK_LIST) return ct__pk_fail(u, "the list of storage keys is %s", ct__pk_kind_names[keys->kind]);
    for (int64_t i = 0; i < keys->len; i++) {
        const ct__pk *k = keys->items[i];
        int64_t at = 0;
        while (at < u->n_storages && !(k->kind == CT__PK_STR && u->storages[at].key_len == k->n &&
                                       !memcmp(u->storages[at].key, k->s, k->n)))
            at++;
        if (at == u->n_storages || u->storages[at].data)
            return ct__pk_fail(u, "storage key %lld of the list is unknown or repeated", (long long)i);
        ct__pk_storage *s = &u->storages[at];
        if (!ct__pk_has(u, 8)) return ct__pk_truncated(u);
        uint64_t count = ct__pk_uint(u, 8);
        if (u->swap) ct__swap_bytes((unsigned char *)&count, 1, 8);
        size_t es = ct_dtype_size(s->dtype);
        if (count != (uint64_t)s->numel) /* PyTorch's int64 byte counts, which wrap as they do there */
            return ct__pk_fail(u, "storage has wrong byte size: expected %lld got %lld",
                               (long long)ct__mul_wrap(s->numel, (int64_t)es), (long long)ct__mul_wrap((int64_t)count, (int64_t)es));
        if ((uint64_t)s->numel > (uint64_t)(u->end - u->p) / es) return ct__pk_truncated(u);
        s->data = (unsigned char *)(uintptr_t)u->p;
        u->p += (size_t)s->numel * es;
        CT__ATOMIC_INC(&file->refs);
        s->holder = file;
    }
    return CT_OK;
}

static ct_result ct__pth_legacy(const char *path, ct__shared_bytes *file, ct_tensor_list *out)
{
    /* torch.serialization's MAGIC_NUMBER, 0x1950a86a20f9469cfc6c, as LONG1 writes it */
    static const unsigned char magic[10] = {0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
    ct__unpickler u;
    memset(&u, 0, sizeof u);
    u.path = path;
    u.p = file->b.data;
    u.end = file->b.data + file->b.n;
    ct__pk *v = NULL, *root = NULL;
    ct_result r = ct__pth_next_pickle(&u, &v);
    if (r == CT_OK && !(v->kind == CT__PK_BIGINT && v->n == 10 && !memcmp(v->s, magic, 10)))
        r = ct__fail(CT_ERR_RUNTIME, "Invalid magic number; corrupt file? ('%s')", path);
    if (r == CT_OK) r = ct__pth_next_pickle(&u, &v);
    if (r == CT_OK && v->kind != CT__PK_INT) r = ct__pk_fail(&u, "the protocol version is %s, not an int", ct__pk_kind_names[v->kind]);
    if (r == CT_OK && v->i != 1001) r = ct__pk_fail(&u, "Invalid protocol version: %lld", (long long)v->i);
    if (r == CT_OK) r = ct__pth_next_pickle(&u, &v); /* sys_info: the byte order matters */
    if (r == CT_OK) {
        const ct__pk *little = ct__pk_dict_get(v, "little_endian");
        u.swap = little && little->kind == CT__PK_BOOL && (little->i != 0) != ct__little_endian();
        r = ct__pth_next_pickle(&u, &root);
    }
    if (r == CT_OK) r = ct__pth_next_pickle(&u, &v);
    if (r == CT_OK) r = ct__pth_legacy_storages(&u, v, file);
    if (r == CT_OK) r = ct__pk_state_dict(&u, root, out);
    ct__unpickler_free(&u);
    return r;
}

/* ---------------------------------------------------------------- entry points */

static bool ct__is_zip(const ct__bytes *b) { return b->n >= 4 && !memcmp(b->data, "PK\x03\x04", 4); }

/* A legacy torch.save file opens with PROTO 2 to 5; read as a safetensors
 * header size, those bytes are beyond its 100 MB limit, so the two never mix. */
static bool ct__is_legacy_pth(const ct__bytes *b)
{
    if (b->n < 8 || b->data[0] != 0x80 || b->data[1] < 2 || b->data[1] > 5) return false;
    uint64_t v = 0;
    for (int i = 8; i-- > 0;) v = v << 8 | b->data[i];
    return v > CT__ST_MAX_HEADER;
}

/* Load the torch.save file whose bytes are b (taken over). */
static ct_result ct__pth_load_bytes(const char *path, ct__bytes *b, ct_tensor_list *out)
{
    bool zip = ct__is_zip(b), legacy = !zip && ct__is_legacy_pth(b);
    if (!zip && !legacy) {
        ct__bytes_free(b);
        return ct__fail(CT_ERR_RUNTIME, "'%s' is not a torch.save file: it starts with neither a zip header nor a pickle", path);
    }
    ct__shared_bytes *file = ct__share_bytes(b);
    if (!file) return CT_ERR_MEMORY;
    ct_result r = zip ? ct__pth_zip(path, file, out) : ct__pth_legacy(path, file, out);
    ct__shared_bytes_drop(file);
    return r;
}

ct_result ct_load_pth(const char *path, ct_tensor_list *out)
{
    ct_result r = ct__load_args(path, out);
    ct__bytes b;
    if (r == CT_OK) r = ct__read_bytes(path, &b);
    return r == CT_OK ? ct__pth_load_bytes(path, &b, out) : r;
}

ct_result ct_load(const char *path, ct_tensor_list *out)
{
    ct_result r = ct__load_args(path, out);
    ct__bytes b;
    if (r == CT_OK) r = ct__read_bytes(path, &b);
    if (r != CT_OK) return r;
    if (ct__is_zip(&b) || ct__is_legacy_pth(&b)) return ct__pth_load_bytes(path, &b, out);
    return ct__st_load_bytes(path, &b, out, NULL);
}

/* torch.serialization's check of the device a storage is restored to
 * (_validate_device, validate_cuda_device): its backend has devices, and
 * the index is below their count. */
static ct_result ct__map_location_check(ct_device d)
{
    if (d.type != CT_DEVICE_CUDA && d.type != CT_DEVICE_PRIVATEUSE1) return ct__device_resolve(&d);
    ct_device type = d;
    type.index = -1;
    char name[32], upper[32];
    ct_device_str(type, name, sizeof name);
    for (size_t i = 0; i == 0 || name[i - 1]; i++) /* backend_name.upper() */
        upper[i] = name[i] >= 'a' && name[i] <= 'z' ? (char)(name[i] - 'a' + 'A') : name[i];
    const ct_backend *be = ct_backend_get(d.type);
    int count = be ? be->device_count() : 0, index = ct__index_or_current(d);
    if (count == 0)
        return ct__fail(CT_ERR_RUNTIME, "Attempting to deserialize object on a %s device but torch.%s.is_available() is "
                        "False. If you are running on a CPU-only machine, please use torch.load with "
                        "map_location=torch.device('cpu') to map your storages to the CPU.", upper, name);
    if (index >= count)
        return ct__fail(CT_ERR_RUNTIME, "Attempting to deserialize object on %s device %d but torch.%s.device_count() is "
                        "%d. Please use torch.load with map_location to map your storages to an existing device.",
                        upper, index, name, count);
    return CT_OK;
}

/* ct_load as a ct__loader (a torch.save file has no metadata). */
static ct_result ct__load_any(const char *path, ct_tensor_list *out, ct_metadata *metadata)
{
    (void)metadata;
    return ct_load(path, out);
}

ct_result ct_load_map_location(const char *path, ct_tensor_list *out, ct_device map_location)
{
    ct_result r = ct__map_location_check(map_location);
    if (r == CT_OK) r = ct__device_resolve(&map_location);
    return r == CT_OK ? ct__load_on(ct__load_any, path, out, NULL, map_location) : r;
}
