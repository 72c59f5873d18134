/* Backward formulas of the reductions (reduce.c records them). */

/* The gradient of a reduction's result spread back over the input's shape:
 * the reduced dims put back (when not kept), then expanded. */
static ct_tensor *ct__unreduce(const ct_tensor *g, const ct__out_meta *in, uint32_t mask, bool keepdim)
{
    ct_tensor *r = (ct_tensor *)g;
    if (!keepdim)
        for (int d = 0; d < in->ndim && r; d++)
            if ((mask >> d) & 1) r = ct_unsqueeze(r, d);
    return r ? ct_expand(r, ct_shape_make(in->ndim, in->sizes)) : NULL;
}

/* How many input elements went into each result element. */
static int64_t ct__reduced_count(const ct__out_meta *in, uint32_t mask)
{
    int64_t count = 1;
    for (int d = 0; d < in->ndim; d++)
        if ((mask >> d) & 1) count *= in->sizes[d];
    return count;
}

#define CT__MASK ((uint32_t)n->iargs[0])
#define CT__KEEPDIM (n->iargs[1] != 0)

CT__BACKWARD(sum)
{
    CT__GRAD(0, ct__unreduce(go[0], ct__input_meta(n, 0), CT__MASK, CT__KEEPDIM));
    return CT_OK;
}

CT__BACKWARD(nansum) /* NaNs took no part */
{
    CT__GRAD(0, ct_where_scalar_self(ct_isnan(CT__S(0)), ct_int(0),
                                      ct__unreduce(go[0], ct__input_meta(n, 0), CT__MASK, CT__KEEPDIM)));
    return CT_OK;
}

CT__BACKWARD(mean)
{
    const ct__out_meta *in = ct__input_meta(n, 0);
    CT__GRAD(0, ct_div_scalar(ct__unreduce(go[0], in, CT__MASK, CT__KEEPDIM), ct_int(ct__reduced_count(in, CT__MASK))));
    return CT_OK;
}

#undef CT__MASK
#undef CT__KEEPDIM

typedef struct ct__reduce_formula {
    ct__node_type type;
    const char *dims_name; /* the name of the form with dims (NULL: the same) */
    bool save_input;
} ct__reduce_formula;

/* indexed by ct__reduce_grad */
static const ct__reduce_formula ct__reduce_formulas[] = {
    {{"SumBackward0", ct__bw_sum}, "SumBackward1", false},
    {{"NansumBackward0", ct__bw_nansum}, NULL, true},
    {{"MeanBackward0", ct__bw_mean}, "MeanBackward1", false},
};

static void ct__record_reduce(ct__reduce_grad kind, ct_tensor *r, const ct_tensor *input, uint32_t mask, bool keepdim,
                              bool all)
{
    const ct__reduce_formula *f = &ct__reduce_formulas[kind];
    if (!r) return;
    ct__node *n = ct__record(&f->type, &input, 1, &r, 1);
    if (!n) return;
    if (!all && f->dims_name) n->name = f->dims_name;
    n->iargs[0] = mask;
    n->iargs[1] = keepdim;
    if (f->save_input) ct__save(n, input, false);
}
