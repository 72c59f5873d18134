/* einsum, tensordot, kron and cross. The first three are composed of
 * ctorch's differentiable ops exactly as ATen composes them (einsum and
 * tensordot: permute, reshape, sum, mul, and one bmm or mm per contraction;
 * kron: views and mul), so the recorded graph has PyTorch's nodes and every
 * order of derivative comes from those ops. cross computes with recording
 * off and records LinalgCrossBackward0, whose formula is cross again
 * (src/linalg/formulas.c). */

/* ---------------------------------------------------------------- einsum: the equation */

/* Labels A-Z are subscripts 0-25 and a-z 26-51, so the implicit output lists
 * upper-case labels first, as PyTorch's does; the ellipsis is 52. */
#define CT__EIN_LETTERS 26
#define CT__EIN_LABELS 52
#define CT__EIN_ELLIPSIS 52

/* The subscript of an equation character, or -1 when it is no label
 * ([a-zA-Z] only, whatever the locale). */
static int ct__ein_subscript(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return CT__EIN_LETTERS + (c - 'a');
    return -1;
}

static char ct__ein_label(int s) { return (char)(s < CT__EIN_LETTERS ? 'A' + s : 'a' + (s - CT__EIN_LETTERS)); }

/* The equation with its operands' labels parsed: operand i's subscripts are
 * codes[first[i]] .. codes[first[i + 1] - 1] (an ellipsis is one code). */
typedef struct ct__ein_lhs {
    uint8_t *codes;
    int *first;
} ct__ein_lhs;

/* Whether lhs[*i] starts a well-formed "..." (i moves past it; PyTorch
 * reads a '.' as the first of three). */
static bool ct__ein_ellipsis(const char *s, size_t len, size_t *i)
{
    bool ok = *i + 2 < len && s[*i + 1] == '.' && s[*i + 2] == '.';
    *i += 2;
    return ok;
}

/* Parse the left side (lhs, len characters) for n operands, with PyTorch's
 * errors in its order. */
static ct_result ct__ein_parse_lhs(const char *lhs, size_t len, int n, ct__ein_lhs *p)
{
    int op = 0, k = 0;
    bool ell = false;
    p->first[0] = 0;
    for (size_t i = 0; i < len; i++) {
        char c = lhs[i];
        if (c == ' ') continue;
        if (c == '.') {
            if (ell)
                return ct__fail(CT_ERR_RUNTIME,
                                "einsum(): found '.' for operand %d for which an ellipsis was already found", op);
            if (!ct__ein_ellipsis(lhs, len, &i))
                return ct__fail(CT_ERR_RUNTIME, "einsum(): found '.' for operand %d that is not part of any ellipsis",
                                op);
            p->codes[k++] = CT__EIN_ELLIPSIS;
            ell = true;
        } else if (c == ',') {
            if (++op >= n)
                return ct__fail(CT_ERR_RUNTIME,
                                "einsum(): fewer operands were provided than specified in the equation");
            p->first[op] = k;
            ell = false;
        } else {
            int s = ct__ein_subscript(c);
            if (s < 0)
                return ct__fail(CT_ERR_RUNTIME,
                                "einsum(): invalid subscript given at index %zu in the equation string, "
                                "subscripts must be in [a-zA-Z]",
                                i);
            p->codes[k++] = (uint8_t)s;
        }
    }
    if (op != n - 1)
        return ct__fail(CT_ERR_RUNTIME, "einsum(): more operands were provided than specified in the equation");
    p->first[n] = k;
    return CT_OK;
}

/* How the operands are aligned: every operand is permuted (with size-1 dims
 * added) to `dims` dims, the output's first (out_dims of them), then the
 * ellipsis's when it is summed, then the summed labels in subscript order. */
typedef struct ct__ein_plan {
    int64_t count[CT__EIN_LABELS]; /* how often each label appears on the left */
    int perm[CT__EIN_LABELS];      /* a label's dim in the aligned operands, -1: unused */
    int ell_dims;                  /* dims covered by the widest ellipsis */
    int ell_index;                 /* the aligned dim of the ellipsis's first */
    int out_dims, dims;
} ct__ein_plan;

/* Count labels and ellipsis dims, checking each operand's number of labels
 * against its dims. */
static ct_result ct__ein_count(const ct__ein_lhs *p, ct_tensor *const *ops, int n, ct__ein_plan *plan)
{
    for (int i = 0; i < n; i++) {
        int nlabels = p->first[i + 1] - p->first[i], ndim = ops[i]->ndim;
        bool ell = false;
        for (int k = p->first[i]; k < p->first[i + 1]; k++) {
            if (p->codes[k] != CT__EIN_ELLIPSIS) {
                plan->count[p->codes[k]]++;
                continue;
            }
            nlabels--;
            ell = true;
            plan->ell_dims = CT__MAX(plan->ell_dims, ndim - nlabels);
        }
        if (ell ? nlabels > ndim : nlabels != ndim)
            return ct__fail(CT_ERR_RUNTIME,
                            "einsum(): the number of subscripts in the equation (%d) %s (%d) for operand %d%s", nlabels,
                            ell ? "is more than the number of dimensions" : "does not match the number of dimensions",
                            ndim, i, ell ? "" : " and no ellipsis was given");
    }
    return CT_OK;
}

/* The output's dims: given after "->" (rhs, len characters; lhs_len for
 * error positions), or else the ellipsis then the labels used once. */
static ct_result ct__ein_output(const char *rhs, size_t len, size_t lhs_len, ct__ein_plan *plan, bool *ell_out)
{
    int next = 0;
    if (!rhs) {
        next = plan->ell_dims;
        *ell_out = true;
        for (int s = 0; s < CT__EIN_LABELS; s++)
            if (plan->count[s] == 1) plan->perm[s] = next++;
        plan->out_dims = next;
        return CT_OK;
    }
    for (size_t i = 0; i < len; i++) {
        char c = rhs[i];
        if (c == ' ') continue;
        if (c == '.') {
            if (*ell_out)
                return ct__fail(CT_ERR_RUNTIME,
                                "einsum(): found '.' for output but an ellipsis (...) was already found");
            if (!ct__ein_ellipsis(rhs, len, &i))
                return ct__fail(CT_ERR_RUNTIME,
                                "einsum(): found '.' for output that is not part of any ellipsis (...)");
            plan->ell_index = next;
            next += plan->ell_dims;
            *ell_out = true;
            continue;
        }
        int s = ct__ein_subscript(c);
        if (s < 0)
            return ct__fail(CT_ERR_RUNTIME,
                            "einsum(): invalid subscript given at index %zu in the equation string, "
                            "subscripts must be in [a-zA-Z]",
                            lhs_len + 2 + i);
        if (plan->count[s] == 0 || plan->perm[s] >= 0)
            return ct__fail(CT_ERR_RUNTIME, "einsum(): output subscript %c %s", c,
                            plan->perm[s] >= 0 ? "appears more than once in the output"
                                               : "does not appear in the equation for any input operand");
        plan->perm[s] = next++;
    }
    plan->out_dims = next;
    return CT_OK;
}

/* The whole plan: output dims, then the summed ones. */
static ct_result ct__ein_plan_dims(const char *rhs, size_t rhs_len, size_t lhs_len, ct__ein_plan *plan)
{
    bool ell_out = false;
    ct_result r = ct__ein_output(rhs, rhs_len, lhs_len, plan, &ell_out);
    if (r != CT_OK) return r;
    int next = plan->out_dims;
    if (!ell_out) {
        plan->ell_index = next;
        next += plan->ell_dims;
    }
    for (int s = 0; s < CT__EIN_LABELS; s++)
        if (plan->count[s] > 0 && plan->perm[s] < 0) plan->perm[s] = next++;
    plan->dims = next;
    if (next > CT_MAX_DIMS)
        return ct__fail(CT_ERR_RUNTIME,
                        "einsum(): the aligned operands would have %d dimensions, more than CT_MAX_DIMS (%d)", next,
                        CT_MAX_DIMS);
    return CT_OK;
}

/* ---------------------------------------------------------------- einsum: aligning the operands */

/* What aligning learns across operands: the size each label and ellipsis dim
 * broadcasts to, and how many operands have each aligned dim larger than 1
 * (a dim can be summed once a single operand still has it). */
typedef struct ct__ein_sizes {
    int64_t label[CT__EIN_LABELS];
    int64_t ell[CT_MAX_DIMS];
    int64_t counts[CT_MAX_DIMS];
} ct__ein_sizes;

/* A dim of size `size` joins what size[0] has seen (a size-1 dim joins
 * anything); false when it does not broadcast. */
static bool ct__ein_meet(int64_t *seen, int64_t size, int64_t *count)
{
    if (size == 1) return true;
    if (*seen != 1 && *seen != size) return false;
    *seen = size;
    ++*count;
    return true;
}

/* Operand i (labels codes[0..nl)) aligned to plan's dims: repeated labels
 * become diagonals, missing dims size-1 dims, then one permute. */
static ct_tensor *ct__ein_align(const ct_tensor *op, int i, const uint8_t *codes, int nl, const ct__ein_plan *plan,
                                ct__ein_sizes *sz)
{
    int64_t permutation[CT_MAX_DIMS];
    int dim = 0, covered = op->ndim - (nl - 1); /* by the ellipsis, if there is one */
    for (int d = 0; d < plan->dims; d++) permutation[d] = -1;
    for (int k = 0; k < nl && op; k++) {
        int s = codes[k];
        if (s == CT__EIN_ELLIPSIS) {
            for (int j = plan->ell_dims - covered; j < plan->ell_dims; j++, dim++) {
                int64_t size = op->sizes[dim], seen = sz->ell[j];
                if (!ct__ein_meet(&sz->ell[j], size, &sz->counts[plan->ell_index + j])) {
                    ct__fail(CT_ERR_RUNTIME,
                             "einsum(): dimension %d covered by ellipsis in operand %dhas size %lld which does not "
                             "broadcast with previously seen ellipsis with size %lld for the respective dimension",
                             dim, i, (long long)size, (long long)seen);
                    return NULL;
                }
                permutation[plan->ell_index + j] = dim;
            }
        } else if (permutation[plan->perm[s]] < 0) {
            int64_t size = op->sizes[dim], seen = sz->label[s];
            if (!ct__ein_meet(&sz->label[s], size, &sz->counts[plan->perm[s]])) {
                ct__fail(CT_ERR_RUNTIME,
                         "einsum(): subscript %c has size %lld for operand %d which does not broadcast with previously "
                         "seen size %lld",
                         ct__ein_label(s), (long long)size, i, (long long)seen);
                return NULL;
            }
            permutation[plan->perm[s]] = dim++;
        } else { /* a repeated label: its diagonal, moved to where the label first was */
            int prev = (int)permutation[plan->perm[s]];
            if (op->sizes[dim] != op->sizes[prev]) {
                ct__fail(CT_ERR_RUNTIME,
                         "einsum(): subscript %c is repeated for operand %d but the sizes don't match, %lld != %lld",
                         ct__ein_label(s), i, (long long)op->sizes[dim], (long long)op->sizes[prev]);
                return NULL;
            }
            op = ct_movedim(ct_diagonal(op, 0, prev, dim), CT_DIMS(-1), CT_DIMS(prev));
        }
    }
    for (int d = 0; d < plan->dims && op; d++)
        if (permutation[d] < 0) {
            op = ct_unsqueeze(op, dim);
            permutation[d] = dim++;
        }
    return op ? ct_permute(op, ct_shape_make(plan->dims, permutation)) : NULL;
}

/* ---------------------------------------------------------------- einsum: contracting */

/* (left * right).sum(sum_dims, keepdim=True) through one bmm (ATen's
 * sumproduct_pair): left and right have the same number of dims, and each
 * summed dim is larger than 1 in both (einsum sums a dim only one of them
 * has before it gets here). The other dims are those both have (the bmm's
 * batch), left's only (its rows) and right's only (its columns). */
static ct_tensor *ct__sumproduct_pair(const ct_tensor *left, const ct_tensor *right, const int64_t *sum_dims, int n_sum)
{
    if (n_sum == 0) return ct_mul(left, right);
    int nd = left->ndim, n_lro = 0, n_lo = 0, n_ro = 0;
    int64_t lro[CT_MAX_DIMS], lo[CT_MAX_DIMS], ro[CT_MAX_DIMS];
    int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
    bool summed[CT_MAX_DIMS] = {false};
    for (int k = 0; k < n_sum; k++) summed[sum_dims[k]] = true;
    for (int d = 0; d < nd; d++) {
        bool sl = left->sizes[d] != 1, sr = right->sizes[d] != 1;
        if (summed[d]) sum_size *= left->sizes[d];
        else if (sl && sr) lro_size *= left->sizes[lro[n_lro++] = d];
        else if (sl) lo_size *= left->sizes[lo[n_lo++] = d];
        else ro_size *= right->sizes[ro[n_ro++] = d];
    }
    /* left as (lro, lo, summed), right as (lro, summed, ro); the product,
     * sized (lro, lo, 1 per summed dim, ro), permuted back to the dims' order */
    int64_t lperm[CT_MAX_DIMS], rperm[CT_MAX_DIMS], operm[CT_MAX_DIMS], out[CT_MAX_DIMS];
    int k = 0;
    for (int j = 0; j < n_lro; j++, k++) lperm[k] = rperm[k] = lro[j], out[k] = left->sizes[lro[j]];
    for (int j = 0; j < n_lo; j++) lperm[k + j] = lo[j], out[k + j] = left->sizes[lo[j]];
    for (int j = 0; j < n_sum; j++) lperm[k + n_lo + j] = rperm[k + j] = sum_dims[j], out[k + n_lo + j] = 1;
    for (int j = 0; j < n_ro; j++) {
        lperm[k + n_lo + n_sum + j] = rperm[k + n_sum + j] = ro[j];
        out[k + n_lo + n_sum + j] = right->sizes[ro[j]];
    }
    for (int j = 0; j < n_lo; j++) rperm[k + n_sum + n_ro + j] = lo[j];
    for (int j = 0; j < nd; j++) operm[lperm[j]] = j;
    ct_tensor *a = ct_reshape(ct_permute(left, ct_shape_make(nd, lperm)), CT_SHAPE(lro_size, lo_size, sum_size));
    ct_tensor *b = ct_reshape(ct_permute(right, ct_shape_make(nd, rperm)), CT_SHAPE(lro_size, sum_size, ro_size));
    return ct_permute(ct_view(ct_bmm(a, b), ct_shape_make(nd, out)), ct_shape_make(nd, operm));
}

/* Contract a (the product so far) with b: dims that only one of them still
 * has are summed in it first, dims that no later operand has are summed by
 * the product; a dim stays (as size 1) in the result. */
static ct_tensor *ct__ein_pair(const ct_tensor *a, const ct_tensor *b, const ct__ein_plan *plan, int64_t *counts)
{
    int64_t sum_dims[CT_MAX_DIMS], a_sum[CT_MAX_DIMS], b_sum[CT_MAX_DIMS];
    int n_sum = 0, n_a = 0, n_b = 0;
    for (int d = plan->out_dims; d < plan->dims; d++) {
        bool in_a = a->sizes[d] != 1, in_b = b->sizes[d] != 1;
        if (in_a && in_b) {
            if (--counts[d] == 1) {
                sum_dims[n_sum++] = d;
                counts[d] = 0;
            }
        } else if (counts[d] == 1 && (in_a || in_b)) {
            if (in_a) a_sum[n_a++] = d;
            else b_sum[n_b++] = d;
            counts[d] = 0;
        }
    }
    if (n_a) a = ct_sum_dim(a, ct_shape_make(n_a, a_sum), true, CT_DEFAULT);
    if (n_b) b = ct_sum_dim(b, ct_shape_make(n_b, b_sum), true, CT_DEFAULT);
    return a && b ? ct__sumproduct_pair(a, b, sum_dims, n_sum) : NULL;
}

/* The aligned operands contracted from the left, then the summed dims
 * dropped: viewed away (size 1 by then) or, for a single operand, summed. */
static ct_tensor *ct__ein_contract(ct_tensor *const *aligned, int n, const ct__ein_plan *plan, int64_t *counts)
{
    ct_tensor *r = aligned[0];
    for (int i = 1; i < n && r; i++) r = ct__ein_pair(r, aligned[i], plan, counts);
    if (!r || plan->dims == plan->out_dims) return r;
    if (n > 1) return ct_view(r, ct_shape_make(plan->out_dims, r->sizes));
    int64_t summed[CT_MAX_DIMS];
    for (int d = plan->out_dims; d < plan->dims; d++) summed[d - plan->out_dims] = d;
    return ct_sum_dim(r, ct_shape_make(plan->dims - plan->out_dims, summed), false, CT_DEFAULT);
}

/* einsum once the lhs is parsed (aligned: room for n tensors). */
static ct_tensor *ct__einsum(const char *rhs, size_t rhs_len, size_t lhs_len, const ct__ein_lhs *p,
                             ct_tensor *const *ops, int n, ct_tensor **aligned)
{
    ct__ein_plan plan;
    memset(&plan, 0, sizeof plan);
    for (int s = 0; s < CT__EIN_LABELS; s++) plan.perm[s] = -1;
    if (ct__ein_count(p, ops, n, &plan) != CT_OK || ct__ein_plan_dims(rhs, rhs_len, lhs_len, &plan) != CT_OK)
        return NULL;
    ct__ein_sizes sz;
    memset(&sz, 0, sizeof sz);
    for (int s = 0; s < CT__EIN_LABELS; s++) sz.label[s] = 1;
    for (int d = 0; d < CT_MAX_DIMS; d++) sz.ell[d] = 1;
    for (int i = 0; i < n; i++) {
        aligned[i] = ct__ein_align(ops[i], i, p->codes + p->first[i], p->first[i + 1] - p->first[i], &plan, &sz);
        if (!aligned[i]) return NULL;
    }
    return ct__ein_contract(aligned, n, &plan, sz.counts);
}

ct_tensor *ct_einsum(const char *equation, ct_tensor *const *operands, int n)
{
    if (!equation) {
        if (ct_last_error_code() == CT_OK)
            ct__fail(CT_ERR_TYPE, "einsum(): argument 'equation' (position 1) must be str, not NULL");
        return NULL;
    }
    if (ct__check_list_arg(operands, n, "einsum", 1) != CT_OK) return NULL;
    if (n <= 0) {
        ct__fail(CT_ERR_RUNTIME, "einsum(): must provide at least one operand");
        return NULL;
    }
    const char *arrow = strstr(equation, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - equation) : strlen(equation);
    size_t rhs_len = arrow ? strlen(arrow + 2) : 0;
    /* operand starts, labels (at most one per character), aligned operands */
    size_t bytes = ((size_t)n + 1) * sizeof(int) + (size_t)n * sizeof(ct_tensor *) + lhs_len + 1;
    char *block = (char *)CT_MALLOC(bytes);
    if (!block) {
        CT__OOM();
        return NULL;
    }
    ct__ein_lhs p;
    ct_tensor **aligned = (ct_tensor **)block;
    p.first = (int *)(block + (size_t)n * sizeof(ct_tensor *));
    p.codes = (uint8_t *)(block + (size_t)n * sizeof(ct_tensor *) + ((size_t)n + 1) * sizeof(int));
    ct_tensor *r = NULL;
    ct_scope s = ct_scope_begin();
    if (ct__ein_parse_lhs(equation, lhs_len, n, &p) == CT_OK)
        r = ct_keep(ct__einsum(arrow ? arrow + 2 : NULL, rhs_len, lhs_len, &p, operands, n, aligned));
    ct_scope_end(s);
    CT_FREE(block);
    return r;
}

/* ---------------------------------------------------------------- tensordot */

/* The contracted dims' sizes: a size-1 dim is summed in its own tensor
 * right away (keeping the dim), other pairs must match. */
static ct_result ct__tensordot_sizes(const ct_tensor **t1, const ct_tensor **t2, ct_shape da, ct_shape db,
                                     int64_t *csize)
{
    const ct_tensor *a = *t1, *b = *t2;
    *csize = 1;
    for (int i = 0; i < da.ndim; i++) {
        int d1 = ct__wrap_dim_strict(da.size[i], a->ndim), d2 = d1 < 0 ? -1 : ct__wrap_dim_strict(db.size[i], b->ndim);
        if (d2 < 0) return ct_last_error_code();
        int64_t s1 = a->sizes[d1], s2 = b->sizes[d2];
        if (s2 == 1) *t1 = ct_sum_dim(*t1, CT_DIMS(d1), true, CT_DEFAULT);
        else if (s1 == 1) *t2 = ct_sum_dim(*t2, CT_DIMS(d2), true, CT_DEFAULT);
        else if (s1 != s2)
            return ct__fail(CT_ERR_RUNTIME,
                            "contracted dimensions need to match, but first has size %lld in dim %lld and second has "
                            "size %lld in dim %lld",
                            (long long)s1, (long long)da.size[i], (long long)s2, (long long)db.size[i]);
        else *csize *= s1;
        if (!*t1 || !*t2) return ct_last_error_code();
    }
    return CT_OK;
}

/* Which of t's dims a list names, refusing repeats (at::dim_list_to_bitset). */
static ct_result ct__dim_mask(ct_shape dims, int ndim, bool *mask)
{
    for (int d = 0; d < ndim; d++) mask[d] = false;
    for (int i = 0; i < dims.ndim; i++) {
        int d = ct__wrap_dim(dims.size[i], ndim);
        if (d < 0) return ct_last_error_code();
        if (mask[d]) return ct__fail(CT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims", d);
        mask[d] = true;
    }
    return CT_OK;
}

/* a's free dims then its contracted ones, times b's contracted ones then
 * its free ones: one mm, reshaped to (a's free sizes, b's free sizes). */
static ct_tensor *ct__tensordot(const ct_tensor *a, const ct_tensor *b, ct_shape da, ct_shape db)
{
    bool ca[CT_MAX_DIMS], cb[CT_MAX_DIMS];
    int64_t p1[CT_MAX_DIMS], p2[CT_MAX_DIMS], rsizes[2 * CT_MAX_DIMS], csize, size1 = 1, size2 = 1;
    int n1 = 0, n2 = 0, nr = 0;
    const ct_tensor *t1 = a, *t2 = b;
    if (da.ndim != db.ndim) {
        ct__fail(CT_ERR_RUNTIME, "both dimension lists should have same length");
        return NULL;
    }
    if (ct__tensordot_sizes(&t1, &t2, da, db, &csize) != CT_OK || ct__dim_mask(da, a->ndim, ca) != CT_OK ||
        ct__dim_mask(db, b->ndim, cb) != CT_OK)
        return NULL;
    for (int d = 0; d < a->ndim; d++)
        if (!ca[d]) size1 *= rsizes[nr++] = t1->sizes[p1[n1++] = d];
    for (int i = 0; i < da.ndim; i++) p1[n1++] = da.size[i];
    for (int i = 0; i < db.ndim; i++) p2[n2++] = db.size[i];
    for (int d = 0; d < b->ndim; d++)
        if (!cb[d]) size2 *= rsizes[nr++] = t2->sizes[p2[n2++] = d];
    if (nr > CT_MAX_DIMS) {
        ct__fail(CT_ERR_RUNTIME, "tensordot: the result would have %d dimensions, more than CT_MAX_DIMS (%d)", nr,
                 CT_MAX_DIMS);
        return NULL;
    }
    ct_tensor *m1 = ct_reshape(ct_permute(t1, ct_shape_make(n1, p1)), CT_SHAPE(size1, csize));
    ct_tensor *m2 = ct_reshape(ct_permute(t2, ct_shape_make(n2, p2)), CT_SHAPE(csize, size2));
    return ct_reshape(ct_mm(m1, m2), ct_shape_make(nr, rsizes));
}

ct_tensor *ct_tensordot_dims(const ct_tensor *a, const ct_tensor *b, ct_shape dims_a, ct_shape dims_b)
{
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct_keep(ct__tensordot(a, b, dims_a, dims_b));
    ct_scope_end(s);
    return r;
}

ct_tensor *ct_tensordot(const ct_tensor *a, const ct_tensor *b, int64_t dims)
{
    CT__ARG(a, "input", 1);
    CT__ARG(b, "other", 2);
    if (dims < 0) {
        ct__fail(CT_ERR_RUNTIME, "tensordot expects dims >= 0, but got dims=%lld", (long long)dims);
        return NULL;
    }
    /* the last dims of a with the first of b; more than a has fails on a's first */
    if (dims > a->ndim) {
        ct__wrap_dim_strict(-dims, a->ndim);
        return NULL;
    }
    ct_shape da = {(int)dims, {0}}, db = {(int)dims, {0}};
    for (int i = 0; i < (int)dims; i++) {
        da.size[i] = i - dims;
        db.size[i] = i;
    }
    return ct_tensordot_dims(a, b, da, db);
}

/* ---------------------------------------------------------------- kron */

/* PyTorch's KronImpl: input viewed as (s0, 1, s1, 1, ...), other as
 * (1, t0, 1, t1, ...) (the smaller rank padded with leading 1s), their
 * product viewed as (s0 * t0, s1 * t1, ...). The views are at::_unsafe_view
 * (UnsafeViewBackward0). */
static ct_tensor *ct__kron(const ct_tensor *a, const ct_tensor *b)
{
    int maxdim = CT__MAX(a->ndim, b->ndim), pad_a = maxdim - a->ndim, pad_b = maxdim - b->ndim;
    int64_t a_sizes[CT_MAX_DIMS], b_sizes[CT_MAX_DIMS], r_sizes[CT_MAX_DIMS];
    if (2 * maxdim > CT_MAX_DIMS) {
        ct__fail(CT_ERR_RUNTIME, "kron: inputs of %d dimensions would need %d, more than CT_MAX_DIMS (%d)", maxdim,
                 2 * maxdim, CT_MAX_DIMS);
        return NULL;
    }
    for (int i = 0; i < maxdim; i++) {
        a_sizes[2 * i] = i >= pad_a ? a->sizes[i - pad_a] : 1;
        a_sizes[2 * i + 1] = 1;
        b_sizes[2 * i] = 1;
        b_sizes[2 * i + 1] = i >= pad_b ? b->sizes[i - pad_b] : 1;
        r_sizes[i] = a_sizes[2 * i] * b_sizes[2 * i + 1];
    }
    ct_tensor *av = ct__product_reshaped(a, a_sizes, 2 * maxdim, "UnsafeViewBackward0");
    ct_tensor *bv = ct__product_reshaped(b, b_sizes, 2 * maxdim, "UnsafeViewBackward0");
    return av && bv ? ct__product_reshaped(ct_mul(av, bv), r_sizes, maxdim, "UnsafeViewBackward0") : NULL;
}

ct_tensor *ct_kron(const ct_tensor *input, const ct_tensor *other)
{
    CT__ARG(input, "input", 1);
    CT__ARG(other, "other", 2);
    ct_scope s = ct_scope_begin();
    ct_tensor *r = ct_keep(ct__kron(input, other));
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- cross */

/* The cross product kernel: one pass through the strided iterator over the
 * vectors (the output with dim d taken away, the inputs broadcast to it);
 * each step reads a vector's three components at the byte steps below. */
typedef struct ct__cross_steps {
    int64_t r, a, b;
} ct__cross_steps;

/* c_i = a_j b_k - a_k b_j for (i, j, k) = (0, 1, 2), (1, 2, 0), (2, 0, 1).
 * PyTorch's kernel is compiled with FMA, which fuses the first product for
 * float and double: fma(a_j, b_k, -(a_k b_j)). bfloat16 rounds each product
 * and the difference; integers wrap (computed unsigned: no overflow). */
#define CT__CROSS_F32(T, aj, bk, ak, bj) ct__fmaf(aj, bk, -((ak) * (bj)))
#define CT__CROSS_F64(T, aj, bk, ak, bj) ct__fma(aj, bk, -((ak) * (bj)))
#define CT__CROSS_BF16(T, aj, bk, ak, bj)                                                                   \
    ct__float_to_bf16(ct__bf16_to_float(ct__float_to_bf16(ct__bf16_to_float(aj) * ct__bf16_to_float(bk))) - \
                      ct__bf16_to_float(ct__float_to_bf16(ct__bf16_to_float(ak) * ct__bf16_to_float(bj))))
#define CT__CROSS_WRAP(T, aj, bk, ak, bj) (T)((uint64_t)(aj) * (uint64_t)(bk) - (uint64_t)(ak) * (uint64_t)(bj))

#define CT__CROSS_LOOP(name, T, F)                                                               \
    static void ct__cross_loop_##name(char **data, const int64_t *strides, int64_t n, void *ctx) \
    {                                                                                            \
        const ct__cross_steps *st = (const ct__cross_steps *)ctx;                                \
        for (int64_t e = 0; e < n; e++) {                                                        \
            char *r = data[0] + e * strides[0];                                                  \
            const char *a = data[1] + e * strides[1], *b = data[2] + e * strides[2];             \
            T x[3], y[3];                                                                        \
            for (int c = 0; c < 3; c++) {                                                        \
                memcpy(&x[c], a + c * st->a, sizeof(T));                                         \
                memcpy(&y[c], b + c * st->b, sizeof(T));                                         \
            }                                                                                    \
            for (int i = 0; i < 3; i++) {                                                        \
                int j = (i + 1) % 3, k = (i + 2) % 3;                                            \
                T v = F(T, x[j], y[k], x[k], y[j]);                                              \
                memcpy(r + i * st->r, &v, sizeof(T));                                            \
            }                                                                                    \
        }                                                                                        \
    }
CT__CROSS_LOOP(f32, float, CT__CROSS_F32)
CT__CROSS_LOOP(f64, double, CT__CROSS_F64)
CT__CROSS_LOOP(bf16, uint16_t, CT__CROSS_BF16)
CT__CROSS_LOOP(u8, uint8_t, CT__CROSS_WRAP)
CT__CROSS_LOOP(i8, int8_t, CT__CROSS_WRAP)
CT__CROSS_LOOP(i16, int16_t, CT__CROSS_WRAP)
CT__CROSS_LOOP(i32, int32_t, CT__CROSS_WRAP)
CT__CROSS_LOOP(i64, int64_t, CT__CROSS_WRAP)

static ct__loop_fn ct__cross_loop(ct_dtype dt)
{
    switch (dt) {
    case CT_F32:
        return ct__cross_loop_f32;
    case CT_F64:
        return ct__cross_loop_f64;
    case CT_BF16:
        return ct__cross_loop_bf16;
    case CT_U8:
        return ct__cross_loop_u8;
    case CT_I8:
        return ct__cross_loop_i8;
    case CT_I16:
        return ct__cross_loop_i16;
    case CT_I32:
        return ct__cross_loop_i32;
    default:
        return ct__cross_loop_i64;
    }
}

/* The cross product of a and b (checked: one dtype, size 3 along d,
 * broadcastable to out) into a new contiguous tensor. */
static ct_tensor *ct__cross_values(const ct_tensor *a, const ct_tensor *b, int d, const int64_t *out, int ndim)
{
    if (a->storage->device.type != CT_DEVICE_CPU) { /* on the host, through explicit copies (as the decompositions) */
        ct_tensor *r = ct__cross_values(ct__host(a), ct__host(b), d, out, ndim);
        return r ? ct__to_device(r, a->storage->device, CT_DEFAULT, false) : NULL;
    }
    ct_tensor *r = ct__alloc(out, ndim, a->dtype, ct__cpu);
    const ct_tensor *ops[3] = {r ? ct_select(r, d, 0) : NULL, ct_select(a, d, 0), ct_select(b, d, 0)};
    if (!ops[0] || !ops[1] || !ops[2]) return NULL;
    size_t es = ct_dtype_size(a->dtype);
    ct__cross_steps steps = {r->strides[d] * (int64_t)es, a->strides[d] * (int64_t)es, b->strides[d] * (int64_t)es};
    ct__iter it;
    ct__iter_init(&it, 3, ops);
    ct__iter_parallel(&it, ct__cross_loop(a->dtype), &steps);
    return r;
}

/* linalg.cross's checks in PyTorch's order: ranks, the dim's sizes,
 * broadcasting, then the kernel's dtypes. */
static ct_result ct__check_cross(const ct_tensor *a, const ct_tensor *b, int dim, int *d, int64_t *out)
{
    int nout;
    const ct_tensor *both[2] = {a, b};
    ct_device dev;
    if (ct__common_device(both, 2, false, &dev) != CT_OK) return ct_last_error_code();
    if (a->ndim != b->ndim)
        return ct__fail(CT_ERR_RUNTIME, "linalg.cross: inputs must have the same number of dimensions.");
    if ((*d = ct__wrap_dim_strict(dim, a->ndim)) < 0) return ct_last_error_code();
    if (a->sizes[*d] != 3 || b->sizes[*d] != 3)
        return ct__fail(CT_ERR_RUNTIME, "linalg.cross: inputs dimension %d must have length 3. Got %lld and %lld", dim,
                        (long long)a->sizes[*d], (long long)b->sizes[*d]);
    ct_result r = ct__broadcast_shapes(a->sizes, a->ndim, b->sizes, b->ndim, out, &nout);
    if (r != CT_OK) return r;
    if (a->dtype == CT_F16 || a->dtype == CT_BOOL) return ct__not_implemented("cross", a->dtype);
    return ct__check_scalar_type(a->dtype, b->dtype);
}

static ct_tensor *ct__linalg_cross(const ct_tensor *input, const ct_tensor *other, int dim)
{
    int d = 0;
    int64_t out[CT_MAX_DIMS];
    if (ct__check_cross(input, other, dim, &d, out) != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *r;
    CT__UNRECORDED(r, ct__cross_values(input, other, d, out, input->ndim));
    ct_keep(r);
    ct_scope_end(s);
    return ct__la_record_cross(r, input, other, d) ? r : NULL;
}

ct_tensor *ct_linalg_cross(const ct_tensor *input, const ct_tensor *other, int dim)
{
    CT__ARG(input, "input", 1);
    CT__ARG(other, "other", 2);
    return ct__linalg_cross(input, other, dim);
}

ct_tensor *ct_cross_dim(const ct_tensor *input, const ct_tensor *other, int dim)
{
    CT__ARG(input, "input", 1);
    CT__ARG(other, "other", 2);
    return ct__linalg_cross(input, other, dim);
}

ct_tensor *ct_cross(const ct_tensor *input, const ct_tensor *other)
{
    CT__ARG(input, "input", 1);
    CT__ARG(other, "other", 2);
    for (int d = 0; d < input->ndim; d++)
        if (input->sizes[d] == 3) return ct__linalg_cross(input, other, d);
    ct__fail(CT_ERR_RUNTIME, "no dimension of size 3 in input");
    return NULL;
}
