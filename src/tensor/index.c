/* Indexing in Python's notation: t[spec] and t[spec] = value.
 *
 * As in PyTorch (torch/csrc/autograd/python_variable_indexing.cpp), basic
 * items (ints, slices, None, ...) are applied first as views; tensor, list
 * and mask items are recorded against the dims of that view and applied last
 * by one advanced-indexing gather (or scatter for assignment). */

typedef enum ct__ix_kind {
    CT__IX_INT,
    CT__IX_SLICE,
    CT__IX_NONE,
    CT__IX_ELLIPSIS,
    CT__IX_BOOL,
    CT__IX_TENSOR
} ct__ix_kind;

typedef struct ct__ix_item {
    ct__ix_kind kind;
    int64_t i;                  /* INT; slice start */
    int64_t stop, step;         /* SLICE (start in i) */
    bool b;                     /* BOOL */
    const ct_tensor *t;         /* TENSOR */
} ct__ix_item;

#define CT__IX_MAX 64

/* ---------------------------------------------------------------- parsing */

typedef struct ct__ix_parser {
    const char *spec, *p;
    va_list *args;
} ct__ix_parser;

static ct_result ct__ix_syntax(const ct__ix_parser *ps, const char *what)
{
    return ct__fail(CT_ERR_VALUE, "index: %s at position %d of \"%s\"", what, (int)(ps->p - ps->spec), ps->spec);
}

static void ct__ix_skip_space(ct__ix_parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n') ps->p++;
}

static bool ct__ix_word(ct__ix_parser *ps, const char *w)
{
    size_t n = strlen(w);
    if (strncmp(ps->p, w, n) || ((ps->p[n] >= 'a' && ps->p[n] <= 'z') || (ps->p[n] >= 'A' && ps->p[n] <= 'Z')))
        return false;
    ps->p += n;
    return true;
}

/* An integer literal or %d; false (nothing consumed) when there is none. */
static bool ct__ix_int(ct__ix_parser *ps, int64_t *out)
{
    ct__ix_skip_space(ps);
    if (ps->p[0] == '%' && ps->p[1] == 'd') {
        ps->p += 2;
        *out = va_arg(*ps->args, int);
        return true;
    }
    const char *q = ps->p;
    if (*q == '-' || *q == '+') q++;
    if (*q < '0' || *q > '9') return false;
    char *end;
    long long v = strtoll(ps->p, &end, 10);
    ps->p = end;
    *out = v;
    return true;
}

/* A (nested) list literal of ints, or of True/False, being read. */
typedef struct ct__ix_list_state {
    int64_t sizes[CT_MAX_DIMS];
    bool sized[CT_MAX_DIMS]; /* the first list at a depth fixes its length */
    int ndim;                /* depth of the values, -1 until the first one */
    bool has_bool, has_int;
    bool too_deep; /* nested past CT_MAX_DIMS */
    int64_t *vals, n, cap;
} ct__ix_list_state;

static bool ct__ix_list_push(ct__ix_list_state *ls, int64_t v)
{
    if (ls->n == ls->cap) {
        int64_t cap = ls->cap ? ls->cap * 2 : 16;
        int64_t *grown = (int64_t *)CT_REALLOC(ls->vals, (size_t)cap * sizeof *grown);
        if (!grown) return false;
        ls->vals = grown;
        ls->cap = cap;
    }
    ls->vals[ls->n++] = v;
    return true;
}

/* One list at `depth` (the '[' not yet consumed); false on malformed input.
 * The first value (or first empty innermost list) fixes the depth of the
 * values, and it comes after its ancestors only: a list any deeper is ragged. */
static bool ct__ix_list_read(ct__ix_parser *ps, ct__ix_list_state *ls, int depth)
{
    int64_t count = 0;
    if (depth >= CT_MAX_DIMS) {
        ls->too_deep = true;
        return false;
    }
    if (ls->ndim >= 0 && depth >= ls->ndim) return false;
    ps->p++; /* '[' */
    for (;;) {
        ct__ix_skip_space(ps);
        if (*ps->p == ']') break;
        int64_t v;
        if (*ps->p == '[') {
            if (!ct__ix_list_read(ps, ls, depth + 1)) return false;
        } else {
            if (ct__ix_word(ps, "True") || ct__ix_word(ps, "False")) {
                v = ps->p[-2] == 'u'; /* Tr-u-e */
                ls->has_bool = true;
            } else if (ct__ix_int(ps, &v)) {
                ls->has_int = true;
            } else {
                return false;
            }
            if (ls->ndim < 0) ls->ndim = depth + 1;
            if (ls->ndim != depth + 1 || !ct__ix_list_push(ls, v)) return false;
        }
        count++;
        ct__ix_skip_space(ps);
        if (*ps->p == ',') ps->p++;
        else if (*ps->p != ']') return false;
    }
    ps->p++; /* ']' */
    if (ls->ndim < 0 && count == 0) ls->ndim = depth + 1; /* [] is a 1-D empty index */
    if (ls->sized[depth] && ls->sizes[depth] != count) return false; /* ragged */
    ls->sized[depth] = true;
    ls->sizes[depth] = count;
    return true;
}

/* The list literal at ps as an int64 (or bool) tensor, as torch.tensor(list) makes it. */
static ct_tensor *ct__ix_list(ct__ix_parser *ps)
{
    ct__ix_list_state ls;
    memset(&ls, 0, sizeof ls);
    ls.ndim = -1;
    ct_tensor *r = NULL;
    bool read = ct__ix_list_read(ps, &ls, 0);
    if (ls.too_deep) ct__fail(CT_ERR_VALUE, "index: ctorch supports at most %d dimensions", CT_MAX_DIMS);
    else if (!read) ct__ix_syntax(ps, "malformed list");
    else if (ls.has_bool && ls.has_int) ct__ix_syntax(ps, "a list index mixes ints and booleans");
    else r = ct__alloc(ls.sizes, ls.ndim, ls.has_bool ? CT_BOOL : CT_I64, ct__cpu); /* read on the host */
    for (int64_t i = 0; r && i < ls.n; i++) ct__write_i64((char *)ct__data(r) + (size_t)i * ct__esize(r), r->dtype, ls.vals[i]);
    CT_FREE(ls.vals);
    return r;
}

/* PyTorch (like old NumPy) reads a lone list of fewer than 32 items, one of
 * them a list, as a tuple (treatSequenceAsTuple): x[[[0, 1], [2, 0]]] is
 * x[[0, 1], [2, 0]], and x[[[0], [[]]]] is x[[0], [[]]], whose items need
 * not nest alike. True when the spec at p is such a list and nothing else. */
static bool ct__ix_lone_list_is_tuple(const char *p)
{
    int depth = 0, items = 0;
    bool holds_list = false, in_item = false;
    for (; *p; p++) {
        bool space = *p == ' ' || *p == '\t' || *p == '\n';
        if (depth == 1 && *p == ',') {
            in_item = false;
            continue;
        }
        if (depth == 1 && !in_item && !space && *p != ']') {
            in_item = true;
            items++;
        }
        if (*p == '[' && ++depth == 2) holds_list = true;
        else if (*p == ']' && --depth == 0) break;
    }
    if (!*p) return false; /* unclosed: the list reader says so */
    for (p++; *p == ' ' || *p == '\t' || *p == '\n'; p++) {}
    return !*p && holds_list && items < 32;
}

/* One item of the spec (or, in_list, of a lone list read as a tuple: an int,
 * a bool or a list). Tensors made for list literals belong to the caller's
 * (internal) scope. */
static ct_result ct__ix_parse_item(ct__ix_parser *ps, bool in_list, int position, ct__ix_item *it)
{
    memset(it, 0, sizeof *it);
    ct__ix_skip_space(ps);
    if (!in_list && strncmp(ps->p, "...", 3) == 0) {
        ps->p += 3;
        it->kind = CT__IX_ELLIPSIS;
    } else if (!in_list && ct__ix_word(ps, "None")) {
        it->kind = CT__IX_NONE;
    } else if (ct__ix_word(ps, "True") || ct__ix_word(ps, "False")) {
        it->kind = CT__IX_BOOL;
        it->b = ps->p[-2] == 'u'; /* Tr-u-e */
    } else if (!in_list && ps->p[0] == '%' && ps->p[1] == 't') {
        ps->p += 2;
        it->kind = CT__IX_TENSOR;
        it->t = va_arg(*ps->args, const ct_tensor *);
        if (!it->t) return ct__null_arg("ct_index", "indices", position);
    } else if (*ps->p == '[') {
        it->kind = CT__IX_TENSOR;
        it->t = ct__ix_list(ps);
        if (!it->t) return ct_last_error_code();
    } else {
        bool has_start = ct__ix_int(ps, &it->i);
        ct__ix_skip_space(ps);
        if (!in_list && *ps->p == ':') { /* a slice: start:stop:step, each part optional */
            ps->p++;
            it->kind = CT__IX_SLICE;
            if (!has_start) it->i = 0;
            if (!ct__ix_int(ps, &it->stop)) it->stop = CT_END;
            ct__ix_skip_space(ps);
            it->step = 1;
            if (*ps->p == ':') {
                ps->p++;
                if (!ct__ix_int(ps, &it->step)) it->step = 1;
            }
        } else if (has_start) {
            it->kind = CT__IX_INT;
        } else {
            return ct__ix_syntax(ps, in_list ? "malformed list" : "expected an index");
        }
    }
    return CT_OK;
}

/* The items of spec, in order. */
static ct_result ct__ix_parse(const char *spec, va_list *args, ct__ix_item *items, int *nitems)
{
    ct__ix_parser ps = {spec, spec, args};
    int n = 0;
    ct__ix_skip_space(&ps);
    if (!*ps.p) return ct__ix_syntax(&ps, "empty index");
    bool in_list = ct__ix_lone_list_is_tuple(ps.p);
    char end = in_list ? ']' : '\0';
    if (in_list) ps.p++;
    for (;;) {
        if (n == CT__IX_MAX) return ct__ix_syntax(&ps, "too many items");
        ct_result r = ct__ix_parse_item(&ps, in_list, n + 2, &items[n]);
        if (r != CT_OK) return r;
        n++;
        ct__ix_skip_space(&ps);
        if (*ps.p == end) break;
        if (*ps.p != ',') return ct__ix_syntax(&ps, in_list ? "malformed list" : "expected ','");
        ps.p++;
        ct__ix_skip_space(&ps);
        if (*ps.p == end) break; /* a trailing comma, as in x[1,] */
    }
    *nitems = n;
    return CT_OK;
}

/* ---------------------------------------------------------------- basic indexing */

static bool ct__is_mask(const ct_tensor *t) { return t->dtype == CT_BOOL || t->dtype == CT_U8; }
static const char ct__ix_dtype_msg[] = "tensors used as indices must be long, byte or bool tensors";

/* How many dims of the indexed tensor an item consumes. */
static int ct__ix_consumes(const ct__ix_item *it)
{
    switch (it->kind) {
    case CT__IX_INT: case CT__IX_SLICE: return 1;
    case CT__IX_TENSOR:
        if (it->t->ndim == 0) return ct__is_mask(it->t) ? 0 : 1;
        return ct__is_mask(it->t) ? it->t->ndim : 1;
    default: return 0;
    }
}

/* cur[..., i] at dim; orig_dim is that dim's number in the indexed tensor, for the message. */
static ct_tensor *ct__ix_select(const ct_tensor *cur, int dim, int orig_dim, int64_t i)
{
    if (cur->ndim == 0) {
        ct__fail(CT_ERR_INDEX, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                               "in C++ to convert a 0-dim tensor to a number");
        return NULL;
    }
    int64_t size = cur->sizes[dim];
    if (i < -size || i >= size) {
        ct__fail(CT_ERR_INDEX, "index %lld is out of bounds for dimension %d with size %lld", (long long)i, orig_dim,
                 (long long)size);
        return NULL;
    }
    return ct_select(cur, dim, i);
}

/* Index tensors recorded per dim of the basic-indexed view (NULL: not indexed). */
typedef struct ct__ix_adv {
    const ct_tensor *index[CT_MAX_DIMS];
    int count;
} ct__ix_adv;

/* x[True] or x[False] at dim: a new dim of size 1 (or 0) indexed by [0] (or
 * []). The dim exists only if cur could grow one (at most CT_MAX_DIMS). */
static ct_tensor *ct__ix_bool_dim(ct_tensor *cur, int dim, bool b, ct__ix_adv *adv)
{
    cur = ct_unsqueeze(cur, dim);
    if (!cur) return NULL;
    adv->index[dim] = ct_zeros(CT_SHAPE(b ? 1 : 0), CT_I64);
    adv->count++;
    return adv->index[dim] ? cur : NULL;
}

/* Apply the basic items to t as views; record the advanced ones in adv.
 * Returns the view (owned by the open scope) or NULL. */
static ct_tensor *ct__ix_apply_basic(const ct_tensor *t, const ct__ix_item *items, int n, ct__ix_adv *adv)
{
    bool recorded = ct__grad_mode(); /* callers that write through the view turn grad mode off */
    int consumed = 0, dim = 0, orig_dim = 0; /* orig_dim: dims of t used so far */
    bool ellipsis_seen = false;
    for (int k = 0; k < n; k++) {
        /* long, byte or bool tensors; a 0-d one of any integral dtype acts as an int */
        const ct_tensor *ix = items[k].kind == CT__IX_TENSOR ? items[k].t : NULL;
        if (ix && ix->ndim == 0 && ct_dtype_is_floating(ix->dtype)) { /* (others: ct__ix_plan_make) */
            ct__fail(CT_ERR_INDEX, "%s", ct__ix_dtype_msg);
            return NULL;
        }
        consumed += ct__ix_consumes(&items[k]);
    }
    /* a lone int or slice goes straight to select() or slice(), as in PyTorch's getitem fast path */
    bool lone = n == 1 && (items[0].kind == CT__IX_SLICE || items[0].kind == CT__IX_INT);
    if (consumed > t->ndim && !lone) {
        ct__fail(CT_ERR_INDEX, "too many indices for tensor of dimension %d", t->ndim);
        return NULL;
    }
    memset(adv, 0, sizeof *adv);
    ct_tensor *cur = recorded ? ct__same(t) : ct_detach(t);
    for (int k = 0; k < n && cur; k++) {
        const ct__ix_item *it = &items[k];
        switch (it->kind) {
        case CT__IX_INT: cur = ct__ix_select(cur, dim, orig_dim, it->i); break;
        case CT__IX_SLICE: cur = ct_slice(cur, dim++, it->i, it->stop, it->step); break;
        case CT__IX_NONE: cur = ct_unsqueeze(cur, dim++); break;
        case CT__IX_ELLIPSIS:
            if (!ellipsis_seen) dim += t->ndim - consumed, orig_dim += t->ndim - consumed;
            ellipsis_seen = true;
            break;
        case CT__IX_BOOL: /* x[True] adds a dim of size 1, x[False] one of size 0 */
            cur = ct__ix_bool_dim(cur, dim++, it->b, adv);
            break;
        case CT__IX_TENSOR: {
            const ct_tensor *ix = it->t;
            if (ix->ndim == 0 && !ct__is_mask(ix)) { /* a 0-d integer tensor acts as an int */
                cur = ct__ix_select(cur, dim, orig_dim, ct_item_int(ix));
            } else if (ix->ndim == 0) { /* a 0-d mask acts as True/False */
                cur = ct__ix_bool_dim(cur, dim++, ct_item_int(ix) != 0, adv);
            } else {
                adv->index[dim] = ix;
                adv->count++;
                dim += ct__is_mask(ix) ? ix->ndim : 1;
            }
            break;
        }
        }
        orig_dim += ct__ix_consumes(it);
    }
    return cur;
}

/* ---------------------------------------------------------------- advanced indexing */

/* The plan of an advanced index: masks replaced by their nonzero positions,
 * all index tensors broadcast to one shape, and where the result puts it. */
typedef struct ct__ix_plan {
    int ndim;                      /* of the indexed view */
    const ct_tensor *index[CT_MAX_DIMS]; /* int64, broadcast to bshape (NULL: dim not indexed) */
    int64_t bshape[CT_MAX_DIMS];
    int bdims;
    int first;                     /* result dims before the broadcast block (adjacent indices) */
    int64_t out_sizes[CT_MAX_DIMS];
    int out_ndim;
} ct__ix_plan;

/* The int64 coordinates of a mask's set elements, one tensor per mask dim. */
static ct_result ct__ix_mask_to_indices(const ct_tensor *self, int dim, const ct_tensor *mask, const ct_tensor **out)
{
    char b1[256], b2[256];
    for (int j = 0; j < mask->ndim; j++)
        if (dim + j >= self->ndim || mask->sizes[j] != self->sizes[dim + j])
            return ct__fail(CT_ERR_INDEX,
                            "The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at "
                            "index %d",
                            ct__shape_str(mask->sizes, mask->ndim, b1, sizeof b1), j,
                            ct__shape_str(self->sizes, self->ndim, b2, sizeof b2), dim + j);
    const ct_tensor *m = ct__host(ct_contiguous(mask));
    if (!m) return ct_last_error_code();
    int64_t numel = ct_numel(m), count = 0;
    const uint8_t *p = (const uint8_t *)ct__data(m);
    for (int64_t i = 0; i < numel; i++) count += p[i] != 0;
    ct_tensor *coords[CT_MAX_DIMS];
    for (int j = 0; j < m->ndim; j++) {
        coords[j] = ct__alloc(&count, 1, CT_I64, ct__cpu);
        if (!coords[j]) return ct_last_error_code();
        out[j] = coords[j];
    }
    for (int64_t i = 0, c = 0; i < numel; i++) {
        if (!p[i]) continue;
        int64_t rem = i;
        for (int j = m->ndim - 1; j >= 0; j--) { /* unravel i, the last dim fastest */
            ((int64_t *)ct__data(coords[j]))[c] = rem % m->sizes[j];
            rem /= m->sizes[j];
        }
        c++;
    }
    return CT_OK;
}

/* The advanced indices' dtype is checked here, after the basic items made
 * their views and the op asked whether it may record, as PyTorch's index
 * kernel checks it after autograd read self's history. */
static ct_result ct__ix_plan_make(const ct_tensor *self, const ct__ix_adv *adv, ct__ix_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->ndim = self->ndim;
    for (int d = 0; d < self->ndim; d++)
        if (adv->index[d] && !ct__is_mask(adv->index[d]) && adv->index[d]->dtype != CT_I64)
            return ct__fail(CT_ERR_INDEX, "%s", ct__ix_dtype_msg);
    for (int d = 0; d < self->ndim; d++) {
        const ct_tensor *ix = adv->index[d];
        if (!ix) continue;
        if (ct__is_mask(ix)) {
            if (ct__ix_mask_to_indices(self, d, ix, &plan->index[d]) != CT_OK) return ct_last_error_code();
            d += ix->ndim - 1;
        } else {
            plan->index[d] = ix;
        }
    }
    /* broadcast the index tensors together */
    bool any = false;
    for (int d = 0; d < plan->ndim; d++) {
        const ct_tensor *ix = plan->index[d];
        if (!ix) continue;
        if (!any) {
            memcpy(plan->bshape, ix->sizes, sizeof plan->bshape);
            plan->bdims = ix->ndim;
            any = true;
        } else if (ct__broadcast_shapes(plan->bshape, plan->bdims, ix->sizes, ix->ndim, plan->bshape,
                                        &plan->bdims) != CT_OK) {
            char b1[256];
            return ct__fail(CT_ERR_INDEX, "shape mismatch: indexing tensors could not be broadcast together with "
                                          "shapes %s", ct__shape_str(ix->sizes, ix->ndim, b1, sizeof b1));
        }
    }
    for (int d = 0; d < plan->ndim; d++) {
        if (!plan->index[d]) continue;
        ct_tensor *e = ct_expand(plan->index[d], ct_shape_make(plan->bdims, plan->bshape));
        /* the walk over the positions reads the indices on the host */
        const ct_tensor *c = e ? ct__host(ct_contiguous(e)) : NULL;
        if (!c) return ct_last_error_code();
        plan->index[d] = c;
        /* every index in range: negatives count from the end */
        int64_t n = ct_numel(c), size = self->sizes[d];
        const int64_t *v = (const int64_t *)ct__data(c);
        for (int64_t i = 0; i < n; i++)
            if (v[i] < -size || v[i] >= size)
                return ct__fail(CT_ERR_INDEX, "index %lld is out of bounds for dimension %d with size %lld",
                                (long long)v[i], d, (long long)size);
    }
    /* adjacent indexed dims keep their place in the result; separated ones go first */
    int lo = -1, hi = -1;
    bool adjacent = true;
    for (int d = 0; d < plan->ndim; d++)
        if (plan->index[d]) {
            if (lo < 0) lo = d;
            else if (hi != d - 1) adjacent = false;
            hi = d;
        }
    plan->first = adjacent ? lo : 0;
    int kept = 0; /* dims not indexed, which the result keeps */
    for (int d = 0; d < plan->ndim; d++) kept += !plan->index[d];
    if (kept + plan->bdims > CT_MAX_DIMS)
        return ct__fail(CT_ERR_VALUE, "index: ctorch supports at most %d dimensions", CT_MAX_DIMS);
    int n = 0;
    for (int d = 0; d < plan->first; d++) plan->out_sizes[n++] = self->sizes[d];
    for (int d = 0; d < plan->bdims; d++) plan->out_sizes[n++] = plan->bshape[d];
    for (int d = plan->first; d < plan->ndim; d++)
        if (!plan->index[d]) plan->out_sizes[n++] = self->sizes[d];
    plan->out_ndim = n;
    return CT_OK;
}

/* A stack view of `base` with the given dims picked out: no allocation, no refcount. */
static void ct__ix_subview(ct_tensor *out, const ct_tensor *base, int64_t offset, const int64_t *sizes,
                           const int64_t *strides, int ndim)
{
    *out = *base;
    out->offset = offset;
    out->ndim = ndim;
    memcpy(out->sizes, sizes, (size_t)ndim * sizeof(int64_t));
    memcpy(out->strides, strides, (size_t)ndim * sizeof(int64_t));
}

/* Walk every (leading, broadcast) position of the plan and copy one block of
 * the not-indexed dims: result <- self (gather) or self <- value (scatter). */
static void ct__ix_walk(const ct_tensor *self, const ct__ix_plan *plan, ct_tensor *other, bool scatter)
{
    int64_t lead = 1, bnumel = 1;
    for (int d = 0; d < plan->first; d++) lead *= self->sizes[d];
    for (int d = 0; d < plan->bdims; d++) bnumel *= plan->bshape[d];
    /* the block: self's not-indexed dims after `first`, and other's trailing dims */
    int64_t bsz[CT_MAX_DIMS], sst[CT_MAX_DIMS], ost[CT_MAX_DIMS];
    int bn = 0;
    for (int d = plan->first; d < plan->ndim; d++)
        if (!plan->index[d]) {
            bsz[bn] = self->sizes[d];
            sst[bn] = self->strides[d];
            ost[bn] = other->strides[plan->first + plan->bdims + bn];
            bn++;
        }
    const ct_backend *be = ct__backend_for(self->storage->device.type);
    for (int64_t l = 0; l < lead; l++) {
        int64_t s_off = self->offset, o_off = other->offset, rem = l;
        for (int d = plan->first - 1; d >= 0; d--) { /* unravel l over the leading dims */
            int64_t i = rem % self->sizes[d];
            rem /= self->sizes[d];
            s_off += i * self->strides[d];
            o_off += i * other->strides[d];
        }
        for (int64_t b = 0; b < bnumel; b++) {
            int64_t so = s_off, oo = o_off;
            rem = b;
            for (int d = plan->bdims - 1; d >= 0; d--) { /* unravel b over the broadcast block */
                oo += (rem % plan->bshape[d]) * other->strides[plan->first + d];
                rem /= plan->bshape[d];
            }
            for (int d = 0; d < plan->ndim; d++) {
                const ct_tensor *ix = plan->index[d];
                if (!ix) continue;
                int64_t ioff = ix->offset, r2 = b;
                for (int q = plan->bdims - 1; q >= 0; q--) {
                    ioff += (r2 % plan->bshape[q]) * ix->strides[q];
                    r2 /= plan->bshape[q];
                }
                int64_t v = ((const int64_t *)ix->storage->data)[ioff];
                so += (v < 0 ? v + self->sizes[d] : v) * self->strides[d];
            }
            ct_tensor sv, ov;
            ct__ix_subview(&sv, self, so, bsz, sst, bn);
            ct__ix_subview(&ov, other, oo, bsz, ost, bn);
            if (scatter) be->copy(&sv, &ov, false);
            else be->copy(&ov, &sv, false);
        }
    }
}

/* ---------------------------------------------------------------- public */

/* Record r = view[advanced indices] as IndexBackward0: it keeps the flat
 * position in view of every element r took, found by the same walk over
 * the positions themselves. */
/* 0, 1, ... numel-1 in t's shape, on t's device (the walk copies between them). */
static ct_tensor *ct__ix_position_grid(const ct_tensor *t)
{
    ct_device_guard on = ct_device_guard_begin(t->storage->device);
    ct_tensor *flat = ct_arange(ct_int(0), ct_int(ct_numel(t)), ct_int(1), CT_I64);
    ct_device_guard_end(on);
    return flat ? ct_reshape(flat, ct_shape_of(t)) : NULL;
}

static ct_tensor *ct__ix_record(ct_tensor *r, const ct_tensor *view, const ct__ix_plan *plan)
{
    if (!r || !ct__requires_grad(view) || !ct__grad_mode()) return r;
    ct_tensor *where = ct__alloc(r->sizes, r->ndim, CT_I64, r->storage->device);
    ct_tensor *pos = ct__ix_position_grid(view);
    if (!where || !pos) return NULL; /* the scope ct_index holds open frees them, and r */
    if (ct_numel(where)) ct__ix_walk(pos, plan, where, false);
    ct__join_args a = ct__join_args_init(0);
    a.index = where;
    ct__record_join(CT__JG_INDEX, &view, 1, &r, 1, &a);
    return r;
}

/* Reading self[indices] takes indices on the CPU or on self's device
 * (check_indices_on_cpu_or_selfdevice, a RuntimeError); writing moves them
 * to self's from any device, as index_put_'s make_info does. */
static ct_result ct__ix_check_devices(const ct_tensor *self, const ct__ix_adv *adv)
{
    char buf[64];
    ct_device dev = self->storage->device;
    for (int d = 0; d < self->ndim; d++) {
        const ct_tensor *ix = adv->index[d];
        if (ix && ix->storage->device.type != CT_DEVICE_CPU && !ct_device_equal(ix->storage->device, dev))
            return ct__fail(CT_ERR_RUNTIME, "indices should be either on cpu or on the same device as the indexed tensor (%s)",
                            ct_device_str(dev, buf, sizeof buf));
    }
    return CT_OK;
}

ct_tensor *ct_index(const ct_tensor *t, const char *spec, ...)
{
    ct__ix_item items[CT__IX_MAX];
    ct__ix_adv adv;
    ct__ix_plan plan;
    int n = 0;
    va_list ap;
    CT__ARG(t, "self", 1);
    if (!spec) {
        ct__fail(CT_ERR_VALUE, "index: spec is NULL");
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *r = NULL;
    va_start(ap, spec);
    ct_result ok = ct__ix_parse(spec, &ap, items, &n);
    va_end(ap);
    ct_tensor *view = ok == CT_OK ? ct__ix_apply_basic(t, items, n, &adv) : NULL;
    if (view && !adv.count) {
        r = view;
    } else if (view && ct__ix_check_devices(view, &adv) == CT_OK &&
               ct__recordable((const ct_tensor *const *)&view, 1) == CT_OK &&
               ct__ix_plan_make(view, &adv, &plan) == CT_OK) { /* refused before it computes */
        r = ct__alloc(plan.out_sizes, plan.out_ndim, view->dtype, view->storage->device);
        if (r && ct_numel(r)) ct__ix_walk(view, &plan, r, false);
        r = ct__ix_record(r, view, &plan);
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}

/* value with its leading size-1 dims dropped, as PyTorch's setitem does. */
static ct_tensor *ct__ix_strip_leading_ones(const ct_tensor *value)
{
    int lead = 0;
    while (lead < value->ndim && value->sizes[lead] == 1) lead++;
    return ct__view_of(value, value->sizes + lead, value->strides + lead, value->ndim - lead, value->offset);
}

/* Whether value may be written to an indexing result of dtype and shape
 * (sizes, ndim): index_put's dtype and broadcast checks, in PyTorch's words. */
static ct_result ct__ix_check_value(ct_dtype dtype, const int64_t *sizes, int ndim, const ct_tensor *value)
{
    char b1[256], b2[256];
    if (value->dtype != dtype)
        return ct__fail(CT_ERR_RUNTIME,
                        "Index put requires the source and destination dtypes match, got %s for the destination and "
                        "%s for the source.",
                        ct__dtype_title(dtype), ct__dtype_title(value->dtype));
    int64_t shape[CT_MAX_DIMS];
    int nd;
    if (ct__broadcast_shapes(sizes, ndim, value->sizes, value->ndim, shape, &nd) != CT_OK || nd != ndim ||
        memcmp(shape, sizes, (size_t)nd * sizeof(int64_t)))
        return ct__fail(CT_ERR_RUNTIME, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result "
                                        "of shape %s",
                        ct__shape_str(value->sizes, value->ndim, b1, sizeof b1), ct__shape_str(sizes, ndim, b2, sizeof b2));
    return CT_OK;
}

static ct_result ct__ix_put_advanced(ct_tensor *view, const ct__ix_adv *adv, const ct_tensor *value)
{
    ct__ix_plan plan;
    const ct_tensor *both[2] = {view, value};
    ct_device dev;
    /* value joins the write as TensorIterator's input: a 0-d CPU value goes anywhere */
    if (ct__common_device(both, 2, true, &dev) != CT_OK || ct__ix_plan_make(view, adv, &plan) != CT_OK ||
        ct__ix_check_value(view->dtype, plan.out_sizes, plan.out_ndim, value) != CT_OK)
        return ct_last_error_code();
    ct_tensor *v = ct_expand(value, ct_shape_make(plan.out_ndim, plan.out_sizes));
    if (!v) return ct_last_error_code();
    if (ct__has_internal_overlap(view)) return ct__fail(CT_ERR_RUNTIME, "%s", ct__msg_internal_overlap);
    ct_tensor *src = view->storage == v->storage ? ct_clone(v) : v; /* read all of value before writing */
    if (src && ct_numel(v)) ct__ix_walk(view, &plan, src, true);
    return src ? CT_OK : ct_last_error_code();
}

/* Whether indexing with items goes through a view of t first (an int, a
 * slice or None), as PyTorch's setitem does before it writes. */
static bool ct__ix_makes_view(const ct__ix_item *items, int n)
{
    for (int k = 0; k < n; k++)
        if (items[k].kind == CT__IX_INT || items[k].kind == CT__IX_SLICE || items[k].kind == CT__IX_NONE) return true;
    return false;
}

/* The flat position in t of every element t[items] names: the same
 * indexing applied to t's positions. */
static ct_tensor *ct__ix_positions(const ct_tensor *t, const ct__ix_item *items, int n)
{
    ct__ix_adv adv;
    ct__ix_plan plan;
    ct_tensor *pos = ct__ix_position_grid(t);
    ct_tensor *view = pos ? ct__ix_apply_basic(pos, items, n, &adv) : NULL;
    if (!view || !adv.count) return view;
    if (ct__ix_plan_make(view, &adv, &plan) != CT_OK) return NULL;
    ct_tensor *where = ct__alloc(plan.out_sizes, plan.out_ndim, CT_I64, t->storage->device);
    if (where && ct_numel(where)) ct__ix_walk(view, &plan, where, false);
    return where;
}

/* Record t[items] = value (or += with accumulate) as one node over t's old
 * self and value: it keeps the positions written (IndexPutBackward0, or
 * CopySlices through a view). */
static void ct__ix_put_record(ct_tensor *t, const ct_tensor *value, const ct__ix_item *items, int n, bool advanced,
                              bool accumulate)
{
    if (!ct__grad_mode() || (!ct__requires_grad(t) && !ct__requires_grad(value))) return;
    ct__join_args a = ct__join_args_init(0);
    a.index = ct__ix_positions(t, items, n);
    if (!a.index) return;
    ct__join_grad kind = accumulate ? CT__JG_INDEX_PUT_ACCUMULATE
                         : advanced ? CT__JG_INDEX_PUT
                         : ct__ix_makes_view(items, n) ? CT__JG_COPY_SLICES : CT__JG_COPY_ALL;
    const ct_tensor *in[2] = {t, value};
    ct__record_join(kind, in, 2, &t, 1, &a);
}

/* t[items] += value with repeated positions each adding (index_put_'s
 * accumulate): an index_add_ into t's elements in order, through a
 * contiguous copy when t is not contiguous. */
static ct_result ct__ix_put_accumulate(ct_tensor *t, const ct__ix_item *items, int n, const ct_tensor *value)
{
    ct_tensor *at = ct__ix_positions(t, items, n);
    if (!at || ct__ix_check_value(t->dtype, at->sizes, at->ndim, value) != CT_OK) return ct_last_error_code();
    ct_tensor *dst = ct_is_contiguous(t) ? t : ct_contiguous(t);
    ct_tensor *v = ct_reshape(ct_expand(value, ct_shape_of(at)), CT_SHAPE(-1));
    ct_result r = dst && v ? ct_index_add_(ct_view(dst, CT_SHAPE(-1)), 0, ct_reshape(at, CT_SHAPE(-1)), v)
                           : ct_last_error_code();
    return r == CT_OK && dst != t ? ct_copy_(t, dst) : r;
}

/* t[spec] = value, or += with accumulate. */
static ct_result ct__index_put(ct_tensor *t, const ct_tensor *value, bool accumulate, const char *spec, va_list *ap)
{
    ct__ix_item items[CT__IX_MAX];
    ct__ix_adv adv;
    int n = 0;
    if (!spec) return ct__fail(CT_ERR_VALUE, "index_put_: spec is NULL");
    ct_scope s = ct_scope_begin();
    ct_result r = ct__ix_parse(spec, ap, items, &n);
    if (r == CT_OK && ct__grad_mode() && t->requires_grad && ct_is_leaf(t))
        r = ct__fail(CT_ERR_RUNTIME, "a %sleaf Variable that requires grad is being used in an in-place operation.",
                     ct__ix_makes_view(items, n) ? "view of a " : "");
    if (r == CT_OK) r = ct__check_inplace_grad(t, &value, 1);
    ct_grad_mode mode = ct_set_grad_enabled(false); /* the write is recorded once, below */
    ct_tensor *view = r == CT_OK ? ct__ix_apply_basic(t, items, n, &adv) : NULL;
    ct_tensor *v = view ? ct__ix_strip_leading_ones(value) : NULL;
    if (!v) {
        r = ct_last_error_code();
    } else if (accumulate) {
        r = ct__ix_put_accumulate(t, items, n, v); /* counts the write */
    } else if (adv.count) {
        r = ct__ix_put_advanced(view, &adv, v);
        if (r == CT_OK) t->storage->version++;
    } else if (!(v = ct_expand(v, ct_shape_of(view)))) {
        r = ct_last_error_code();
    } else {
        r = ct_copy_(view, v); /* counts the write */
    }
    ct_grad_mode_restore(mode);
    if (r == CT_OK) ct__ix_put_record(t, value, items, n, adv.count > 0, accumulate);
    ct_scope_end(s);
    return r;
}

ct_result ct_index_put_(ct_tensor *t, const ct_tensor *value, const char *spec, ...)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(value, "value", 2);
    va_list ap;
    va_start(ap, spec);
    ct_result r = ct__index_put(t, value, false, spec, &ap);
    va_end(ap);
    return r;
}

ct_result ct_index_put_accumulate_(ct_tensor *t, const ct_tensor *value, const char *spec, ...)
{
    CT__ARG_R(t, "self", 1);
    CT__ARG_R(value, "value", 2);
    va_list ap;
    va_start(ap, spec);
    ct_result r = ct__index_put(t, value, true, spec, &ap);
    va_end(ap);
    return r;
}
