/* The module object (torch.nn.Module): named parameters, buffers and
 * children in registration order, the training flag, hooks, and calling. */

/* The most inputs a module call takes (a pre-hook sees them as an array). */
#define CT__MODULE_MAX_INPUTS 8

typedef struct ct__slot {
    char *name;
    ct_tensor *tensor;  /* a parameter or buffer (NULL: None) */
    ct_module *module;  /* a child (NULL: None) */
    bool persistent;    /* buffers */
} ct__slot;

typedef struct ct__slots {
    ct__slot *items;
    int n, cap;
} ct__slots;

typedef struct ct__module_hook {
    int id;
    void (*fn)(void);
    void *user;
} ct__module_hook;

typedef struct ct__module_hooks {
    ct__module_hook *items;
    int n, cap;
} ct__module_hooks;

/* The kinds of hooks, which index a module's (and the global) hook lists. */
enum { CT__HOOK_PRE = 1, CT__HOOK_FWD, CT__HOOK_BWD, CT__HOOK_KINDS };

struct ct__module_state {
    int refcount;
    bool training;
    ct__slots params, buffers, children;
    ct__module_hooks hooks[CT__HOOK_KINDS];
};

static ct__module_hooks ct__global_hooks[CT__HOOK_KINDS];
static int ct__next_hook_id;

/* ---------------------------------------------------------------- lifetime */

ct_module *ct_module_new(const ct_module_class *cls, size_t size)
{
    if (!cls) {
        ct__fail(CT_ERR_VALUE, "ct_module_new: give a module class");
        return NULL;
    }
    if (size < sizeof(ct_module)) {
        ct__fail(CT_ERR_VALUE, "ct_module_new: size %zu is smaller than the ct_module header", size);
        return NULL;
    }
    ct_module *m = (ct_module *)CT_MALLOC(size);
    struct ct__module_state *s = (struct ct__module_state *)CT_MALLOC(sizeof *s);
    if (!m || !s) {
        CT_FREE(m);
        CT_FREE(s);
        CT__OOM();
        return NULL;
    }
    memset(m, 0, size);
    memset(s, 0, sizeof *s);
    s->refcount = 1;
    s->training = true;
    m->cls = cls;
    m->state = s;
    return m;
}

ct_module *ct_module_retain(ct_module *m)
{
    if (m) CT__ATOMIC_INC(&m->state->refcount);
    return m;
}

static void ct__slots_free(ct__slots *v)
{
    for (int i = 0; i < v->n; i++) {
        CT_FREE(v->items[i].name);
        ct_release(v->items[i].tensor);
        ct_module_release(v->items[i].module);
    }
    CT_FREE(v->items);
}

void ct_module_release(ct_module *m)
{
    if (!m || CT__ATOMIC_DEC(&m->state->refcount) > 0) return;
    if (m->cls->destroy) m->cls->destroy(m);
    struct ct__module_state *s = m->state;
    ct__slots_free(&s->params);
    ct__slots_free(&s->buffers);
    ct__slots_free(&s->children);
    for (int k = 0; k < CT__HOOK_KINDS; k++) CT_FREE(s->hooks[k].items);
    CT_FREE(s);
    CT_FREE(m);
}

const char *ct_module_name(const ct_module *m) { return m && m->cls->name ? m->cls->name : ""; }

/* ---------------------------------------------------------------- slots */

static ct__slot *ct__slot_find(const ct__slots *v, const char *name)
{
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->items[i].name, name)) return &v->items[i];
    return NULL;
}

static char *ct__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = (char *)CT_MALLOC(n);
    if (d) memcpy(d, s, n);
    else CT__OOM();
    return d;
}

/* Room for one more item of `size` bytes in a growing array (items, n, cap). */
static bool ct__room(void **items, int n, int *cap, size_t size)
{
    if (n < *cap) return true;
    int grown = *cap ? 2 * *cap : 4;
    void *p = CT_REALLOC(*items, (size_t)grown * size);
    if (!p) {
        CT__OOM();
        return false;
    }
    *items = p;
    *cap = grown;
    return true;
}

/* A new slot named `name` at the end of v (its other fields zero), or NULL. */
static ct__slot *ct__slot_add(ct__slots *v, const char *name)
{
    void *items = v->items;
    bool ok = ct__room(&items, v->n, &v->cap, sizeof *v->items);
    v->items = (ct__slot *)items;
    if (!ok) return NULL;
    char *copy = ct__strdup(name);
    if (!copy) return NULL;
    ct__slot *s = &v->items[v->n++];
    memset(s, 0, sizeof *s);
    s->name = copy;
    return s;
}

/* PyTorch's checks on a new attribute name: not empty, no dot, not already
 * an attribute of another kind. `what` is "parameter", "buffer" or "module";
 * `own` the list it goes into. */
static ct_result ct__check_attr_name(const ct_module *m, const char *name, const char *what, const ct__slots *own)
{
    const struct ct__module_state *s = m->state;
    if (!name) return ct__fail(CT_ERR_TYPE, "%s name should be a string. Got NULL", what);
    if (!*name) return ct__fail(CT_ERR_KEY, "%s name can't be empty string \"\"", what);
    if (strchr(name, '.')) {
        if (own == &s->children) return ct__fail(CT_ERR_KEY, "module name can't contain \".\", got: %s", name);
        return ct__fail(CT_ERR_KEY, "%s name can't contain \".\"", what);
    }
    const ct__slots *lists[3] = {&s->params, &s->buffers, &s->children};
    for (int k = 0; k < 3; k++)
        if (lists[k] != own && ct__slot_find(lists[k], name))
            return ct__fail(CT_ERR_KEY, "attribute '%s' already exists", name);
    return CT_OK;
}

#define CT__MODULE_ARG(m, fn)                                                                   \
    do {                                                                                       \
        if (!(m)) return ct__fail(CT_ERR_TYPE, "%s: the module is NULL", fn);                  \
    } while (0)

/* Put tensor t (a new reference is taken) in slot `name` of list v, replacing
 * what was there. */
static ct_result ct__slot_set_tensor(ct__slots *v, const char *name, ct_tensor *t, bool persistent)
{
    ct__slot *slot = ct__slot_find(v, name);
    if (!slot && !(slot = ct__slot_add(v, name))) return ct_last_error_code();
    ct_retain(t);
    ct_release(slot->tensor);
    slot->tensor = t;
    slot->persistent = persistent;
    return CT_OK;
}

ct_result ct_register_parameter(ct_module *m, const char *name, ct_tensor *t)
{
    CT__MODULE_ARG(m, "register_parameter");
    ct_result r = ct__check_attr_name(m, name, "parameter", &m->state->params);
    if (r != CT_OK) return r;
    if (t && !ct_is_leaf(t))
        return ct__fail(CT_ERR_TYPE, "cannot assign '%s' object to parameter '%s' (torch.nn.Parameter or None required)",
                        ct__legacy_type_name(t->dtype), name);
    if (t && !t->requires_grad && (r = ct_requires_grad_(t, true)) != CT_OK) return r;
    return ct__slot_set_tensor(&m->state->params, name, t, true);
}

ct_result ct_register_buffer(ct_module *m, const char *name, ct_tensor *t, bool persistent)
{
    CT__MODULE_ARG(m, "register_buffer");
    ct_result r = ct__check_attr_name(m, name, "buffer", &m->state->buffers);
    if (r != CT_OK) return r;
    return ct__slot_set_tensor(&m->state->buffers, name, t, persistent);
}

ct_module *ct_add_module(ct_module *m, const char *name, ct_module *child)
{
    if (!m) {
        ct__fail(CT_ERR_TYPE, "add_module: the module is NULL");
        ct_module_release(child);
        return NULL;
    }
    ct__slots *v = &m->state->children;
    ct__slot *slot = NULL;
    if (ct__check_attr_name(m, name, "module", v) != CT_OK ||
        (!(slot = ct__slot_find(v, name)) && !(slot = ct__slot_add(v, name)))) {
        ct_module_release(child);
        return NULL;
    }
    ct_module_release(slot->module);
    slot->module = child;
    return child;
}

/* ---------------------------------------------------------------- lookup */

ct_module *ct_module_get_submodule(const ct_module *m, const char *target)
{
    if (!m || !target) {
        ct__fail(CT_ERR_TYPE, "get_submodule: give a module and a target");
        return NULL;
    }
    const ct_module *cur = m;
    const char *p = target;
    char part[256];
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len >= sizeof part) len = sizeof part - 1;
        memcpy(part, p, len);
        part[len] = 0;
        const ct__slot *slot = ct__slot_find(&cur->state->children, part);
        if (!slot) {
            if (ct__slot_find(&cur->state->params, part) || ct__slot_find(&cur->state->buffers, part))
                ct__fail(CT_ERR_ATTRIBUTE, "`%s` is not an nn.Module", part);
            else
                ct__fail(CT_ERR_ATTRIBUTE, "%s has no attribute `%s`", ct_module_name(cur), part);
            return NULL;
        }
        if (!slot->module) {
            ct__fail(CT_ERR_ATTRIBUTE, "`%s` is not an nn.Module", part);
            return NULL;
        }
        cur = slot->module;
        p = dot ? dot + 1 : p + len;
    }
    return (ct_module *)cur;
}

/* get_parameter / get_buffer: the module path, then the attribute. */
static ct_tensor *ct__get_tensor(const ct_module *m, const char *target, bool param)
{
    if (!m || !target) {
        ct__fail(CT_ERR_TYPE, "%s: give a module and a target", param ? "get_parameter" : "get_buffer");
        return NULL;
    }
    const char *dot = strrchr(target, '.');
    const ct_module *owner = m;
    const char *name = target;
    if (dot) {
        char path[512];
        size_t len = (size_t)(dot - target);
        if (len >= sizeof path) len = sizeof path - 1;
        memcpy(path, target, len);
        path[len] = 0;
        if (!(owner = ct_module_get_submodule(m, path))) return NULL;
        name = dot + 1;
    }
    const ct__slots *own = param ? &owner->state->params : &owner->state->buffers;
    const ct__slot *slot = ct__slot_find(own, name);
    if (slot) return slot->tensor;
    if (ct__slot_find(&owner->state->params, name) || ct__slot_find(&owner->state->buffers, name) ||
        ct__slot_find(&owner->state->children, name))
        ct__fail(CT_ERR_ATTRIBUTE, "`%s` is not %s", name, param ? "an nn.Parameter" : "a buffer");
    else
        ct__fail(CT_ERR_ATTRIBUTE, "%s has no attribute `%s`", ct_module_name(owner), name);
    return NULL;
}

ct_tensor *ct_module_get_parameter(const ct_module *m, const char *target) { return ct__get_tensor(m, target, true); }
ct_tensor *ct_module_get_buffer(const ct_module *m, const char *target) { return ct__get_tensor(m, target, false); }

/* ---------------------------------------------------------------- lists */

/* A list being built: names and items (tensors or modules), growing. */
typedef struct ct__list_builder {
    int n, cap;
    char **names;
    void **items;
    bool failed;
} ct__list_builder;

static bool ct__list_has(const ct__list_builder *b, const void *item)
{
    for (int i = 0; i < b->n; i++)
        if (b->items[i] == item) return true;
    return false;
}

/* Append prefix + name (joined by a dot when both are given). */
static void ct__list_push(ct__list_builder *b, const char *prefix, const char *name, void *item)
{
    if (b->failed) return;
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 8;
        char **names = (char **)CT_REALLOC(b->names, (size_t)cap * sizeof *names);
        if (names) b->names = names;
        void **items = names ? (void **)CT_REALLOC(b->items, (size_t)cap * sizeof *items) : NULL;
        if (!items) {
            b->failed = true;
            CT__OOM();
            return;
        }
        b->items = items;
        b->cap = cap;
    }
    size_t lp = strlen(prefix), ln = strlen(name);
    char *full = (char *)CT_MALLOC(lp + ln + 2);
    if (!full) {
        b->failed = true;
        CT__OOM();
        return;
    }
    memcpy(full, prefix, lp);
    size_t at = lp;
    if (lp && ln) full[at++] = '.';
    memcpy(full + at, name, ln + 1);
    b->names[b->n] = full;
    b->items[b->n++] = item;
}

static void ct__list_builder_free(ct__list_builder *b)
{
    for (int i = 0; i < b->n; i++) CT_FREE(b->names[i]);
    CT_FREE(b->names);
    CT_FREE(b->items);
    memset(b, 0, sizeof *b);
}

/* named_modules(): m under prefix, then every module below it, each once
 * (or, for state_dict, under each of its names: `every`). */
static void ct__walk_modules(const ct_module *m, const char *prefix, ct__list_builder *b, bool every)
{
    if (!every && ct__list_has(b, m)) return;
    ct__list_push(b, prefix, "", (void *)m);
    const ct__slots *ch = &m->state->children;
    for (int i = 0; i < ch->n && !b->failed; i++) {
        if (!ch->items[i].module) continue;
        char *sub = (char *)CT_MALLOC(strlen(prefix) + strlen(ch->items[i].name) + 2);
        if (!sub) {
            b->failed = true;
            CT__OOM();
            return;
        }
        sprintf(sub, "%s%s%s", prefix, *prefix ? "." : "", ch->items[i].name);
        ct__walk_modules(ch->items[i].module, sub, b, every);
        CT_FREE(sub);
    }
}

/* What a tensor list collects from each module. */
typedef enum ct__collect { CT__PARAMS, CT__BUFFERS, CT__STATE } ct__collect;

/* Parameters or buffers (each once), or the state_dict (parameters then
 * persistent buffers, module by module, without removing duplicates). */
static ct_tensor_list ct__tensor_list(const ct_module *m, ct__collect what, bool recurse)
{
    ct_tensor_list out = {0, NULL, NULL};
    if (!m) {
        ct__fail(CT_ERR_TYPE, "the module is NULL");
        return out;
    }
    ct__list_builder mods = {0, 0, NULL, NULL, false}, b = {0, 0, NULL, NULL, false};
    if (recurse) ct__walk_modules(m, "", &mods, what == CT__STATE);
    else ct__list_push(&mods, "", "", (void *)m);
    for (int i = 0; i < mods.n && !b.failed; i++) {
        const struct ct__module_state *s = ((const ct_module *)mods.items[i])->state;
        for (int pass = 0; pass < 2; pass++) {
            const ct__slots *v = pass == 0 ? &s->params : &s->buffers;
            if ((what == CT__PARAMS && pass == 1) || (what == CT__BUFFERS && pass == 0)) continue;
            for (int k = 0; k < v->n; k++) {
                const ct__slot *slot = &v->items[k];
                if (!slot->tensor || (what == CT__STATE && pass == 1 && !slot->persistent)) continue;
                if (what != CT__STATE && ct__list_has(&b, slot->tensor)) continue;
                ct__list_push(&b, mods.names[i], slot->name, slot->tensor);
            }
        }
    }
    if (mods.failed || b.failed) {
        ct__list_builder_free(&b);
    } else {
        out.n = b.n;
        out.names = b.names;
        out.tensors = (ct_tensor **)b.items;
    }
    ct__list_builder_free(&mods);
    return out;
}

ct_tensor_list ct_module_parameters(const ct_module *m, bool recurse) { return ct__tensor_list(m, CT__PARAMS, recurse); }
ct_tensor_list ct_module_buffers(const ct_module *m, bool recurse) { return ct__tensor_list(m, CT__BUFFERS, recurse); }
ct_tensor_list ct_module_state_dict(const ct_module *m) { return ct__tensor_list(m, CT__STATE, true); }

void ct_tensor_list_free(ct_tensor_list *list)
{
    if (!list) return;
    for (int i = 0; i < list->n; i++) CT_FREE(list->names[i]);
    CT_FREE(list->names);
    CT_FREE(list->tensors);
    memset(list, 0, sizeof *list);
}

static ct_module_list ct__module_list_of(ct__list_builder *b)
{
    ct_module_list out = {0, NULL, NULL};
    if (b->failed) {
        ct__list_builder_free(b);
        return out;
    }
    out.n = b->n;
    out.names = b->names;
    out.modules = (ct_module **)b->items;
    return out;
}

ct_module_list ct_module_children(const ct_module *m)
{
    ct__list_builder b = {0, 0, NULL, NULL, false};
    if (!m) {
        ct__fail(CT_ERR_TYPE, "named_children: the module is NULL");
        return ct__module_list_of(&b);
    }
    const ct__slots *ch = &m->state->children;
    for (int i = 0; i < ch->n; i++)
        if (ch->items[i].module && !ct__list_has(&b, ch->items[i].module))
            ct__list_push(&b, "", ch->items[i].name, ch->items[i].module);
    return ct__module_list_of(&b);
}

ct_module_list ct_module_modules(const ct_module *m)
{
    ct__list_builder b = {0, 0, NULL, NULL, false};
    if (!m) ct__fail(CT_ERR_TYPE, "named_modules: the module is NULL");
    else ct__walk_modules(m, "", &b, false);
    return ct__module_list_of(&b);
}

void ct_module_list_free(ct_module_list *list)
{
    if (!list) return;
    for (int i = 0; i < list->n; i++) CT_FREE(list->names[i]);
    CT_FREE(list->names);
    CT_FREE(list->modules);
    memset(list, 0, sizeof *list);
}

/* ---------------------------------------------------------------- state */

void ct_module_apply(ct_module *m, void (*fn)(ct_module *m, void *user), void *user)
{
    if (!m || !fn) return;
    const ct__slots *ch = &m->state->children;
    for (int i = 0; i < ch->n; i++) ct_module_apply(ch->items[i].module, fn, user);
    fn(m, user);
}

static void ct__set_training(ct_module *m, void *mode) { m->state->training = *(bool *)mode; }

void ct_module_train(ct_module *m, bool mode) { ct_module_apply(m, ct__set_training, &mode); }
void ct_module_eval(ct_module *m) { ct_module_train(m, false); }
bool ct_module_is_training(const ct_module *m) { return m && m->state->training; }

/* t's data replaced by a copy on device (NULL: where it is), floating
 * tensors in dtype (CT_DEFAULT: as they are), as Module._apply does
 * param.data = fn(param.data). */
static ct_result ct__convert_in_place(ct_tensor *t, const ct_device *device, ct_dtype dtype)
{
    if (!t) return CT_OK;
    ct_dtype dt = ct_is_floating_point(t) && dtype != CT_DEFAULT ? dtype : t->dtype;
    ct_device dev = device ? *device : t->storage->device;
    if (dt == t->dtype && ct_device_equal(dev, t->storage->device)) return CT_OK;
    ct_tensor *c;
    CT__UNRECORDED(c, ct__to_device(t, dev, dt, false));
    if (!c) return ct_last_error_code();
    ct__set_data(t, c);
    ct__discard(c);
    return CT_OK;
}

/* Module._apply of that conversion to every parameter, its gradient and every buffer. */
static ct_result ct__module_convert(ct_module *m, const ct_device *device, ct_dtype dtype)
{
    ct_tensor_list ps = ct_module_parameters(m, true), bs = ct_module_buffers(m, true);
    ct_result r = CT_OK;
    ct_scope sc = ct_scope_begin();
    for (int i = 0; i < ps.n && r == CT_OK; i++) {
        r = ct__convert_in_place(ps.tensors[i], device, dtype);
        ct_tensor *g = ps.tensors[i]->ag ? ct__meta(ps.tensors[i])->grad : NULL;
        if (r == CT_OK) r = ct__convert_in_place(g, device, dtype);
    }
    for (int i = 0; i < bs.n && r == CT_OK; i++) r = ct__convert_in_place(bs.tensors[i], device, dtype);
    ct_scope_end(sc);
    ct_tensor_list_free(&ps);
    ct_tensor_list_free(&bs);
    return r;
}

ct_result ct_module_to(ct_module *m, ct_dtype dtype)
{
    CT__MODULE_ARG(m, "to");
    if (!ct_dtype_is_floating(dtype))
        return ct__fail(CT_ERR_TYPE, "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.%s",
                        ct_dtype_name(dtype));
    return ct__module_convert(m, NULL, dtype);
}

ct_result ct_module_to_device(ct_module *m, ct_device device)
{
    CT__MODULE_ARG(m, "to");
    ct_result r = ct__device_resolve(&device);
    return r == CT_OK ? ct__module_convert(m, &device, CT_DEFAULT) : r;
}

void ct_module_zero_grad(ct_module *m, bool set_to_none)
{
    ct_tensor_list ps = ct_module_parameters(m, true);
    for (int i = 0; i < ps.n; i++) {
        ct_tensor *p = ps.tensors[i];
        ct_tensor *g = p->ag ? ct__meta(p)->grad : NULL;
        if (!g) continue;
        if (set_to_none) {
            ct_set_grad(p, NULL);
        } else {
            if (ct_grad_fn(g)) ct_detach_(g);
            else ct_requires_grad_(g, false);
            ct_zero_(g);
        }
    }
    ct_tensor_list_free(&ps);
}

void ct_module_requires_grad_(ct_module *m, bool requires_grad)
{
    ct_tensor_list ps = ct_module_parameters(m, true);
    for (int i = 0; i < ps.n; i++) ct_requires_grad_(ps.tensors[i], requires_grad);
    ct_tensor_list_free(&ps);
}

/* ---------------------------------------------------------------- load_state_dict */

static void ct__name_list_free(ct_name_list *l)
{
    for (int i = 0; i < l->n; i++) CT_FREE(l->names[i]);
    CT_FREE(l->names);
    l->n = 0;
    l->names = NULL;
}

void ct_incompatible_keys_free(ct_incompatible_keys *keys)
{
    if (!keys) return;
    ct__name_list_free(&keys->missing_keys);
    ct__name_list_free(&keys->unexpected_keys);
}

static int ct__find_name(char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (names[i] && !strcmp(names[i], name)) return i;
    return -1;
}

/* A growing message (PyTorch's error text, which may be long). */
typedef struct ct__text {
    char *s;
    size_t n, cap;
} ct__text;

static void ct__text_add(ct__text *t, const char *fmt, ...) CT__PRINTF(2, 3);
static void ct__text_add(ct__text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0) return;
    if (t->n + (size_t)need + 1 > t->cap) {
        size_t cap = (t->n + (size_t)need + 1) * 2;
        char *s = (char *)CT_REALLOC(t->s, cap);
        if (!s) return;
        t->s = s;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    t->n += (size_t)need;
}

/* The keys of `from` (n names) whose index is in idx (count k), copied. */
static ct_name_list ct__name_list_of(char *const *from, const int *idx, int k)
{
    ct_name_list l = {0, NULL};
    if (k == 0) return l;
    l.names = (char **)CT_MALLOC((size_t)k * sizeof *l.names);
    if (!l.names) {
        CT__OOM();
        return l;
    }
    for (int i = 0; i < k; i++)
        if ((l.names[l.n] = ct__strdup(from[idx[i]]))) l.n++;
    return l;
}

/* "torch.Size([3, 3])" */
static const char *ct__size_str(const ct_tensor *t, char *buf, size_t n)
{
    char dims[200];
    snprintf(buf, n, "torch.Size(%s)", ct__shape_str(t->sizes, t->ndim, dims, sizeof dims));
    return buf;
}

ct_result ct_module_load_state_dict(ct_module *m, const ct_tensor_list *state_dict, bool strict,
                                    ct_incompatible_keys *keys)
{
    if (keys) memset(keys, 0, sizeof *keys);
    CT__MODULE_ARG(m, "load_state_dict");
    if (!state_dict || state_dict->n < 0 || (state_dict->n > 0 && (!state_dict->names || !state_dict->tensors)))
        return ct__fail(CT_ERR_TYPE, "Expected state_dict to be dict-like, got NULL.");
    ct_tensor_list own = ct_module_state_dict(m);
    int n = state_dict->n;
    int *missing = (int *)CT_MALLOC((size_t)(own.n + 1) * sizeof(int));
    int *unexpected = (int *)CT_MALLOC((size_t)(n + 1) * sizeof(int));
    int *source = (int *)CT_MALLOC((size_t)(own.n + 1) * sizeof(int));
    ct_result r = CT_OK;
    if (!missing || !unexpected || !source) r = CT__OOM();
    int n_missing = 0, n_unexpected = 0;
    ct__text msg = {NULL, 0, 0};
    ct__text_add(&msg, "Error(s) in loading state_dict for %s:", ct_module_name(m));
    bool mismatch = false;
    for (int i = 0; r == CT_OK && i < own.n; i++) {
        source[i] = ct__find_name(state_dict->names, n, own.names[i]);
        if (source[i] < 0) {
            missing[n_missing++] = i;
            continue;
        }
        const ct_tensor *src = state_dict->tensors[source[i]];
        if (!src) {
            r = ct__fail(CT_ERR_TYPE, "the state_dict's tensor '%s' is NULL", own.names[i]);
            break;
        }
        if (src->ndim != own.tensors[i]->ndim ||
            memcmp(src->sizes, own.tensors[i]->sizes, (size_t)src->ndim * sizeof(int64_t))) {
            char a[240], b[240];
            ct__text_add(&msg, "\n\tsize mismatch for %s: copying a param with shape %s from checkpoint, the shape in current model is %s.",
                         own.names[i], ct__size_str(src, a, sizeof a), ct__size_str(own.tensors[i], b, sizeof b));
            mismatch = true;
        }
    }
    for (int j = 0; r == CT_OK && j < n; j++)
        if (!state_dict->names[j] || ct__find_name(own.names, own.n, state_dict->names[j]) < 0)
            unexpected[n_unexpected++] = j;
    if (r == CT_OK && (mismatch || (strict && (n_missing || n_unexpected)))) {
        /* PyTorch lists unexpected and missing keys before the size mismatches */
        ct__text head = {NULL, 0, 0};
        ct__text_add(&head, "Error(s) in loading state_dict for %s:", ct_module_name(m));
        if (strict && n_missing) {
            ct__text_add(&head, "\n\tMissing key(s) in state_dict: ");
            for (int i = 0; i < n_missing; i++)
                ct__text_add(&head, "%s\"%s\"", i ? ", " : "", own.names[missing[i]]);
            ct__text_add(&head, ". ");
        }
        if (strict && n_unexpected) {
            ct__text_add(&head, "\n\tUnexpected key(s) in state_dict: ");
            for (int i = 0; i < n_unexpected; i++)
                ct__text_add(&head, "%s\"%s\"", i ? ", " : "", state_dict->names[unexpected[i]]);
            ct__text_add(&head, ". ");
        }
        const char *tail = msg.s ? strchr(msg.s, ':') + 1 : "";
        r = ct__fail(CT_ERR_RUNTIME, "%s%s", head.s ? head.s : "", tail);
        CT_FREE(head.s);
    }
    if (r == CT_OK) {
        ct_grad_mode mode = ct_no_grad();
        for (int i = 0; i < own.n && r == CT_OK; i++)
            if (source[i] >= 0) r = ct_copy_(own.tensors[i], state_dict->tensors[source[i]]);
        ct_grad_mode_restore(mode);
    }
    if (r == CT_OK && keys) {
        keys->missing_keys = ct__name_list_of(own.names, missing, n_missing);
        keys->unexpected_keys = ct__name_list_of(state_dict->names, unexpected, n_unexpected);
    }
    CT_FREE(msg.s);
    CT_FREE(missing);
    CT_FREE(unexpected);
    CT_FREE(source);
    ct_tensor_list_free(&own);
    return r;
}

/* ---------------------------------------------------------------- hooks */

static ct__module_hooks *ct__hooks_of(ct_module *m, int kind)
{
    return m ? &m->state->hooks[kind] : &ct__global_hooks[kind];
}

static ct_hook_handle ct__module_hook_add(ct_module *m, int kind, void (*fn)(void), void *user)
{
    ct_hook_handle h = {m, kind, 0};
    if (!fn) {
        ct__fail(CT_ERR_TYPE, "the hook is NULL");
        return h;
    }
    ct__module_hooks *v = ct__hooks_of(m, kind);
    void *items = v->items;
    bool ok = ct__room(&items, v->n, &v->cap, sizeof *v->items);
    v->items = (ct__module_hook *)items;
    if (!ok) return h;
    h.id = ++ct__next_hook_id;
    ct__module_hook hook = {h.id, fn, user};
    v->items[v->n++] = hook;
    return h;
}

void ct_hook_handle_remove(ct_hook_handle handle)
{
    if (handle.id <= 0 || handle.kind <= 0 || handle.kind >= CT__HOOK_KINDS) return;
    ct__module_hooks *v = ct__hooks_of(handle.module, handle.kind);
    for (int i = 0; i < v->n; i++)
        if (v->items[i].id == handle.id) {
            memmove(&v->items[i], &v->items[i + 1], (size_t)(v->n - i - 1) * sizeof *v->items);
            v->n--;
            return;
        }
}

#define CT__HOOK_MODULE(m, fn)                                      \
    do {                                                            \
        if (!(m)) {                                                 \
            ct_hook_handle h_ = {NULL, 0, 0};                        \
            ct__fail(CT_ERR_TYPE, "%s: the module is NULL", fn);     \
            return h_;                                              \
        }                                                           \
    } while (0)

ct_hook_handle ct_module_register_forward_pre_hook(ct_module *m, ct_forward_pre_hook hook, void *user)
{
    CT__HOOK_MODULE(m, "register_forward_pre_hook");
    return ct__module_hook_add(m, CT__HOOK_PRE, (void (*)(void))hook, user);
}

ct_hook_handle ct_module_register_forward_hook(ct_module *m, ct_forward_hook hook, void *user)
{
    CT__HOOK_MODULE(m, "register_forward_hook");
    return ct__module_hook_add(m, CT__HOOK_FWD, (void (*)(void))hook, user);
}

ct_hook_handle ct_module_register_full_backward_hook(ct_module *m, ct_backward_hook hook, void *user)
{
    CT__HOOK_MODULE(m, "register_full_backward_hook");
    return ct__module_hook_add(m, CT__HOOK_BWD, (void (*)(void))hook, user);
}

ct_hook_handle ct_register_module_forward_pre_hook(ct_forward_pre_hook hook, void *user)
{
    return ct__module_hook_add(NULL, CT__HOOK_PRE, (void (*)(void))hook, user);
}

ct_hook_handle ct_register_module_forward_hook(ct_forward_hook hook, void *user)
{
    return ct__module_hook_add(NULL, CT__HOOK_FWD, (void (*)(void))hook, user);
}

/* ---------------------------------------------------------------- full backward hooks */

/* PyTorch's BackwardHook: the module's inputs and output pass through
 * identity nodes (BackwardHookFunctionBackward). The output's node keeps the
 * gradient of the output; the inputs' node, which runs once the module's own
 * graph is done, hands the inputs' gradients with it to the hooks. When no
 * input needs a gradient, the output's node calls the hooks itself. */
typedef struct ct__bw_hook_state {
    int refcount;
    ct_module *module; /* retained until the graph goes */
    ct__module_hook *hooks; /* a copy of the hooks as they were at the call */
    int n_hooks, n_inputs;
    bool inputs_wrapped;
    ct_tensor *grad_output;
} ct__bw_hook_state;

static void ct__bw_hook_state_release(ct__bw_hook_state *st)
{
    if (!st || --st->refcount > 0) return;
    ct_release(st->grad_output);
    ct_module_release(st->module);
    CT_FREE(st->hooks);
    CT_FREE(st);
}

static void ct__bw_hook_node_release(ct__node *n)
{
    ct__bw_hook_state_release((ct__bw_hook_state *)n->extra);
    n->extra = NULL;
}

static ct_result ct__run_backward_hooks(ct__bw_hook_state *st, ct_tensor **grads, int n)
{
    for (int i = 0; i < st->n_hooks; i++) {
        ct_result r = ((ct_backward_hook)st->hooks[i].fn)(st->module, grads, n, st->grad_output, st->hooks[i].user);
        if (r != CT_OK) return r;
    }
    return CT_OK;
}

CT__BACKWARD(hook_outputs)
{
    ct__bw_hook_state *st = (ct__bw_hook_state *)n->extra;
    ct_release(st->grad_output);
    st->grad_output = ct_retain(go[0]);
    if (!st->inputs_wrapped) {
        ct_tensor *none[CT__MODULE_MAX_INPUTS] = {NULL};
        ct_result r = ct__run_backward_hooks(st, none, st->n_inputs);
        if (r != CT_OK) return r;
    }
    CT__GRAD(0, ct__same(go[0]));
    return CT_OK;
}

CT__BACKWARD(hook_inputs)
{
    ct__bw_hook_state *st = (ct__bw_hook_state *)n->extra;
    ct_tensor *grads[CT__MODULE_MAX_INPUTS];
    for (int i = 0; i < n->n_next; i++) grads[i] = ct__edge_requires_grad(n, i) ? ct__same(go[i]) : NULL;
    ct_result r = ct__run_backward_hooks(st, grads, n->n_next);
    if (r != CT_OK) return r;
    for (int i = 0; i < n->n_next; i++) gi[i] = grads[i];
    return CT_OK;
}

static const ct__node_type ct__hook_inputs_type = {"BackwardHookFunctionBackward", ct__bw_hook_inputs};
static const ct__node_type ct__hook_outputs_type = {"BackwardHookFunctionBackward", ct__bw_hook_outputs};

/* Aliases of ts (n of them) recorded through one identity node of `type`
 * sharing st; ts are replaced by the aliases. Whether a node was made. */
static bool ct__wrap_for_hooks(const ct__node_type *type, ct_tensor **ts, int n, ct__bw_hook_state *st)
{
    ct_tensor *alias[CT__MODULE_MAX_INPUTS] = {NULL};
    for (int i = 0; i < n; i++) alias[i] = ct_detach(ts[i]);
    ct__node *node = ct__record(type, (const ct_tensor *const *)ts, n, alias, n);
    if (!node) return false;
    st->refcount++;
    node->extra = st;
    node->release_extra = ct__bw_hook_node_release;
    for (int i = 0; i < n; i++) ts[i] = alias[i];
    return true;
}

static ct__bw_hook_state *ct__bw_hook_state_new(ct_module *m, int n_inputs)
{
    const ct__module_hooks *v = &m->state->hooks[CT__HOOK_BWD];
    ct__bw_hook_state *st = (ct__bw_hook_state *)CT_MALLOC(sizeof *st);
    ct__module_hook *copy = (ct__module_hook *)CT_MALLOC((size_t)v->n * sizeof *copy);
    if (!st || !copy) {
        CT_FREE(st);
        CT_FREE(copy);
        CT__OOM();
        return NULL;
    }
    memset(st, 0, sizeof *st);
    memcpy(copy, v->items, (size_t)v->n * sizeof *copy);
    st->refcount = 1;
    st->module = ct_module_retain(m);
    st->hooks = copy;
    st->n_hooks = v->n;
    st->n_inputs = n_inputs;
    return st;
}

/* ---------------------------------------------------------------- calling */

/* Run the pre-hooks of one list: each may replace inputs. */
static ct_result ct__run_pre_hooks(const ct__module_hooks *v, ct_module *m, ct_tensor **in, int n)
{
    for (int i = 0; i < v->n; i++) {
        ct_result r = ((ct_forward_pre_hook)v->items[i].fn)(m, in, n, v->items[i].user);
        if (r != CT_OK) return r;
    }
    return CT_OK;
}

static ct_tensor *ct__run_forward_hooks(const ct__module_hooks *v, ct_module *m, ct_tensor **in, int n, ct_tensor *out)
{
    for (int i = 0; i < v->n && out; i++) {
        ct_tensor *r = ((ct_forward_hook)v->items[i].fn)(m, in, n, out, v->items[i].user);
        if (r) out = r;
    }
    return out;
}

/* The call itself, inside the scope ct_forward_n opened. */
static ct_tensor *ct__call(ct_module *m, ct_tensor **in, int n)
{
    if (ct__run_pre_hooks(&ct__global_hooks[CT__HOOK_PRE], m, in, n) != CT_OK ||
        ct__run_pre_hooks(&m->state->hooks[CT__HOOK_PRE], m, in, n) != CT_OK)
        return NULL;
    ct__bw_hook_state *st = NULL;
    if (m->state->hooks[CT__HOOK_BWD].n && ct__grad_mode()) {
        if (!(st = ct__bw_hook_state_new(m, n))) return NULL;
        st->inputs_wrapped = ct__wrap_for_hooks(&ct__hook_inputs_type, in, n, st);
    }
    if (!m->cls->forward) {
        ct__fail(CT_ERR_NOT_IMPLEMENTED, "Module [%s] is missing the required \"forward\" function", ct_module_name(m));
        ct__bw_hook_state_release(st);
        return NULL;
    }
    ct_tensor *out = m->cls->forward(m, in, n);
    out = ct__run_forward_hooks(&ct__global_hooks[CT__HOOK_FWD], m, in, n, out);
    out = ct__run_forward_hooks(&m->state->hooks[CT__HOOK_FWD], m, in, n, out);
    if (st && out) ct__wrap_for_hooks(&ct__hook_outputs_type, &out, 1, st);
    ct__bw_hook_state_release(st);
    return out;
}

ct_tensor *ct_forward_n(ct_module *m, ct_tensor *const *inputs, int n_inputs)
{
    if (!m) {
        ct__fail(CT_ERR_TYPE, "forward: the module is NULL");
        return NULL;
    }
    if (n_inputs < 0 || n_inputs > CT__MODULE_MAX_INPUTS || (n_inputs > 0 && !inputs)) {
        ct__fail(CT_ERR_VALUE, "forward: a module takes from 0 to %d inputs, got %d", CT__MODULE_MAX_INPUTS, n_inputs);
        return NULL;
    }
    ct_tensor *in[CT__MODULE_MAX_INPUTS];
    for (int i = 0; i < n_inputs; i++) {
        if (!inputs[i]) {
            ct__null_arg(__func__, "input", i + 1);
            return NULL;
        }
        in[i] = inputs[i];
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *out = ct_keep(ct__call(m, in, n_inputs));
    ct_scope_end(s);
    return out;
}

ct_tensor *ct_forward(ct_module *m, const ct_tensor *input)
{
    ct_tensor *in = (ct_tensor *)input;
    if (!input) {
        ct__null_arg(__func__, "input", 1);
        return NULL;
    }
    return ct_forward_n(m, &in, 1);
}
