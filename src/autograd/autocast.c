/* Autocast (torch.autocast on the CPU): inside a region, the ops on
 * PyTorch 1.13's CPU lists cast their floating arguments before running:
 * matrix products and convolutions to bfloat16, the losses, linear algebra
 * and a few others to float32, cat/stack/index_copy to their widest input.
 * Every cast is an ordinary recorded ct_to, so gradients flow back to the
 * float32 weights. Casts of weights (leaves that require grad) are cached
 * until the outermost region ends, as PyTorch caches them. */

/* The region state of this thread. */
static CT__TLS bool ct__autocast_enabled;
static CT__TLS int ct__autocast_depth;

/* The cached casts: source and cast, each retained. */
typedef struct ct__cast_entry {
    ct_tensor *src, *cast;
} ct__cast_entry;
static CT__TLS ct__cast_entry *ct__cast_cache;
static CT__TLS int ct__cast_cache_n, ct__cast_cache_cap;

static void ct__autocast_clear_cache(void)
{
    for (int i = 0; i < ct__cast_cache_n; i++) {
        ct_release(ct__cast_cache[i].src);
        ct_release(ct__cast_cache[i].cast);
    }
    CT_FREE(ct__cast_cache);
    ct__cast_cache = NULL;
    ct__cast_cache_n = ct__cast_cache_cap = 0;
}

ct_autocast_mode ct_autocast(bool enabled, ct_dtype dtype)
{
    ct_autocast_mode prev = {ct__autocast_enabled};
    ct__autocast_depth++; /* even when refused: the matching restore leaves it */
    if (dtype != CT_BF16 && dtype != CT_DEFAULT) {
        ct__fail(CT_ERR_RUNTIME, "Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype");
        return prev;
    }
    ct__autocast_enabled = ct__autocasting = enabled;
    return prev;
}

void ct_autocast_restore(ct_autocast_mode mode)
{
    ct__autocast_enabled = ct__autocasting = mode.enabled;
    if (ct__autocast_depth > 0 && --ct__autocast_depth == 0) ct__autocast_clear_cache();
}

bool ct_is_autocast_enabled(void) { return ct__autocast_enabled; }
ct_dtype ct_get_autocast_dtype(void) { return CT_BF16; }

/* at::autocast::is_eligible: a floating tensor other than float64. */
static bool ct__cast_eligible(const ct_tensor *t)
{
    return t && ct_is_floating_point(t) && t->dtype != CT_F64;
}

/* at::autocast::prioritize over the arguments into *to: float32 wins over
 * bfloat16; false (with PyTorch's error) for float16. */
static bool ct__promote_type(const ct_tensor **const *args, int n, ct_dtype *to)
{
    *to = CT_BF16;
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = *args[i];
        if (!ct__cast_eligible(t)) continue;
        if (*to == CT_F32 || t->dtype == CT_F32) *to = CT_F32;
        else if (t->dtype != CT_BF16)
            return ct__fail(CT_ERR_RUNTIME, "Unexpected floating ScalarType in at::autocast::prioritize"), false;
    }
    return true;
}

/* A weight's cast from the cache, or made and cached. */
static const ct_tensor *ct__cached_cast(const ct_tensor *t, ct_dtype to)
{
    for (int i = 0; i < ct__cast_cache_n; i++)
        if (ct__cast_cache[i].src == t && ct__cast_cache[i].cast->dtype == to) return ct__cast_cache[i].cast;
    if (ct__cast_cache_n == ct__cast_cache_cap) {
        int cap = ct__cast_cache_cap ? 2 * ct__cast_cache_cap : 8;
        ct__cast_entry *grown = (ct__cast_entry *)CT_REALLOC(ct__cast_cache, (size_t)cap * sizeof *grown);
        if (!grown) {
            CT__OOM();
            return NULL;
        }
        ct__cast_cache = grown, ct__cast_cache_cap = cap;
    }
    ct_tensor *c = ct_to(t, to);
    if (!c) return NULL;
    ct__cast_cache[ct__cast_cache_n].src = ct_retain((ct_tensor *)t);
    ct__cast_cache[ct__cast_cache_n++].cast = ct_retain(c);
    return c;
}

/* at::autocast::cached_cast: t in dtype `to` when it is eligible. */
static const ct_tensor *ct__autocast_cast(const ct_tensor *t, ct_dtype to, ct__cast_policy policy)
{
    if (!ct__cast_eligible(t) || t->dtype == to) return t;
    bool weight = policy == CT__CAST_LOWER && ct_requires_grad(t) && ct_is_leaf(t);
    return weight ? ct__cached_cast(t, to) : ct_to(t, to);
}

/* Opens a scope for the casts, casts the arguments in place and pauses
 * autocast; false (nothing to leave) when a cast failed. */
static bool ct__autocast_enter(ct_scope *casts, ct__cast_policy policy, const ct_tensor **const *args, int n)
{
    ct_dtype to = policy == CT__CAST_LOWER ? CT_BF16 : CT_F32;
    if (policy == CT__CAST_PROMOTE && !ct__promote_type(args, n, &to)) return false;
    *casts = ct_scope_begin();
    for (int i = 0; i < n; i++) {
        const ct_tensor *c = ct__autocast_cast(*args[i], to, policy);
        if (!c && *args[i]) {
            ct_scope_end(*casts);
            return false;
        }
        *args[i] = c;
    }
    ct__autocasting = false;
    return true;
}

/* Resumes autocast and hands the op's n results on out of the casts' scope. */
static void ct__autocast_leave(ct_scope casts, ct_tensor *const *const *results, int n)
{
    ct__autocasting = ct__autocast_enabled;
    for (int i = 0; i < n; i++)
        if (results[i] && *results[i]) ct_keep(*results[i]);
    ct_scope_end(casts);
}

/* cat and stack in a region: the widest floating type of the list. */
static ct_tensor *ct__autocast_list(ct_tensor *(*op)(ct_tensor *const *, int, int), ct_tensor *const *tensors, int n,
                                    int dim)
{
    const ct_tensor *local[64], **list = n <= 64 ? local : (const ct_tensor **)CT_MALLOC((size_t)n * sizeof *list);
    const ct_tensor **addr_local[64], ***addr = n <= 64 ? addr_local : (const ct_tensor ***)CT_MALLOC((size_t)n * sizeof *addr);
    ct_tensor *r = NULL;
    if (list && addr) {
        for (int i = 0; i < n; i++) list[i] = tensors[i], addr[i] = &list[i];
        ct_scope casts;
        if (ct__autocast_enter(&casts, CT__CAST_PROMOTE, (const ct_tensor **const *)addr, n)) {
            r = op((ct_tensor *const *)list, n, dim);
            ct_tensor *const *rs[] = {&r};
            ct__autocast_leave(casts, rs, 1);
        }
    } else {
        CT__OOM();
    }
    if (list != local) CT_FREE(list);
    if (addr != addr_local) CT_FREE(addr);
    return r;
}
