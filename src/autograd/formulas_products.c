/* Backward formulas of the matrix products (src/linalg/products.c records
 * them), as derivatives.yaml writes them for real tensors. Each is made of
 * the products themselves, so it has a double backward. A node saves both
 * operands and unpacks only the one a needed gradient reads, so an in-place
 * write to the other is no error, as in PyTorch. */

typedef enum ct__product_grad {
    CT__PG_MM, CT__PG_BMM, CT__PG_MV, CT__PG_DOT, CT__PG_VDOT, CT__PG_ADDMM, CT__PG_ADDMV, CT__PG_BADDBMM
} ct__product_grad;

#define CT__BETA (n->args[0])
#define CT__ALPHA (n->args[1])

/* maybe_multiply(t, s): t * s, or t itself when s is 1. */
static ct_tensor *ct__times_scalar(ct_tensor *t, double s)
{
    return s == 1 || !t ? t : ct_mul_scalar(t, ct_float(s));
}

static ct_tensor *ct__mT(const ct_tensor *t) { return ct_transpose(t, -2, -1); }

/* A matrix stored column by column (a transposed contiguous one, as a
 * Linear's weight is in x @ W.t()). */
static bool ct__column_major(const ct_tensor *t)
{
    return t && t->ndim == 2 && t->strides[0] == 1 && t->strides[1] == t->sizes[0];
}

/* mm's gradient for one side, `side` the other input: grad @ side^T for a
 * (first), a^T @ grad for b, scaled by alpha. As PyTorch's
 * mm_mat1_backward / mm_mat2_backward, a column-major input gets its
 * gradient column-major (the transpose of the transposed product), so the
 * weight of a Linear gets a contiguous gradient. */
static ct_tensor *ct__mm_grad(const ct_tensor *g, const ct_tensor *input, const ct_tensor *side, bool first, double alpha)
{
    if (ct__column_major(input))
        return ct__times_scalar(ct_t(first ? ct_mm(side, ct_t(g)) : ct_mm(ct_t(g), side)), alpha);
    return ct__times_scalar(first ? ct_mm(g, ct_t(side)) : ct_mm(ct_t(side), g), alpha);
}

/* (b)mm of inputs a (saved 0) and b (saved 1), at edges first and first + 1:
 * grad @ b^T and a^T @ grad, scaled by alpha. */
static ct_result ct__matrix_product_backward(ct__node *n, const ct_tensor *g, ct_tensor **gi, int first, bool batched)
{
    if (batched) {
        CT__GRAD(first, ct__times_scalar(ct_bmm(g, ct__mT(CT__S(1))), CT__ALPHA));
        CT__GRAD(first + 1, ct__times_scalar(ct_bmm(ct__mT(CT__S(0)), g), CT__ALPHA));
    } else {
        CT__GRAD(first, ct__mm_grad(g, CT__S(0), CT__S(1), true, CT__ALPHA));
        CT__GRAD(first + 1, ct__mm_grad(g, CT__S(1), CT__S(0), false, CT__ALPHA));
    }
    return CT_OK;
}

/* mv of mat (saved 0) and vec (saved 1): grad outer vec and mat^T @ grad. */
static ct_result ct__matrix_vector_backward(ct__node *n, const ct_tensor *g, ct_tensor **gi, int first)
{
    CT__GRAD(first, ct__times_scalar(ct_outer(g, CT__S(1)), CT__ALPHA));
    CT__GRAD(first + 1, ct__times_scalar(ct_mv(ct_t(CT__S(0)), g), CT__ALPHA));
    return CT_OK;
}

CT__BACKWARD(mm) { return ct__matrix_product_backward(n, go[0], gi, 0, false); }
CT__BACKWARD(bmm) { return ct__matrix_product_backward(n, go[0], gi, 0, true); }
CT__BACKWARD(mv) { return ct__matrix_vector_backward(n, go[0], gi, 0); }

CT__BACKWARD(dot) /* the 0-d grad times the other vector */
{
    CT__GRAD(0, ct_mul(go[0], CT__S(1)));
    CT__GRAD(1, ct_mul(go[0], CT__S(0)));
    return CT_OK;
}

/* The added input's gradient is grad * beta (the engine sums it to a broadcast input's shape). */
CT__BACKWARD(addmm)
{
    CT__GRAD(0, ct__times_scalar(go[0], CT__BETA));
    return ct__matrix_product_backward(n, go[0], gi, 1, false);
}

CT__BACKWARD(addmv)
{
    CT__GRAD(0, ct__times_scalar(go[0], CT__BETA));
    return ct__matrix_vector_backward(n, go[0], gi, 1);
}

CT__BACKWARD(baddbmm)
{
    CT__GRAD(0, ct__times_scalar(go[0], CT__BETA));
    return ct__matrix_product_backward(n, go[0], gi, 1, true);
}

#undef CT__BETA
#undef CT__ALPHA

/* indexed by ct__product_grad */
static const ct__node_type ct__product_types[] = {
    {"MmBackward0", ct__bw_mm},       {"BmmBackward0", ct__bw_bmm},         {"MvBackward0", ct__bw_mv},
    {"DotBackward0", ct__bw_dot},     {"VdotBackward0", ct__bw_dot},        {"AddmmBackward0", ct__bw_addmm},
    {"AddmvBackward0", ct__bw_addmv}, {"BaddbmmBackward0", ct__bw_baddbmm},
};

/* Record product `kind` of a and b (plus the added input, for the add forms:
 * NULL otherwise) giving out; false when refused, as ct__record_reduce. */
static bool ct__record_product(ct__product_grad kind, ct_tensor *out, const ct_tensor *added, const ct_tensor *a,
                               const ct_tensor *b, ct_addmm_opts opts)
{
    const ct_tensor *in[3] = {added, a, b};
    if (!out) return true;
    if (ct__recordable(in, 3) != CT_OK) return false;
    ct__node *n = added ? ct__record(&ct__product_types[kind], in, 3, &out, 1)
                        : ct__record(&ct__product_types[kind], in + 1, 2, &out, 1);
    if (n) {
        n->args[0] = opts.beta;
        n->args[1] = opts.alpha;
        ct__save(n, a, false);
        ct__save(n, b, false);
    }
    return added ? ct__recorded_ok(n, in, 3) : ct__recorded_ok(n, in + 1, 2);
}
