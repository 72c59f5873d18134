/* Backward formulas. Each is written with ctorch's own differentiable ops, so
 * under create_graph the backward pass records a graph of its own and
 * higher-order gradients follow. */

/* g summed down to the shape `sizes` it was broadcast from (at::sum_to):
 * leading dims summed away, dims of size 1 summed with keepdim. */
static ct_tensor *ct__sum_to_shape(const ct_tensor *g, const int64_t *sizes, int ndim)
{
    int lead = g->ndim - ndim;
    if (lead < 0) {
        ct__fail(CT_ERR_RUNTIME, "sum_to: the gradient has fewer dims than its input");
        return NULL;
    }
    for (int d = 0; d < ndim; d++)
        if (sizes[d] != 1 && sizes[d] != g->sizes[lead + d]) {
            ct__fail(CT_ERR_RUNTIME, "sum_to: shapes do not broadcast");
            return NULL;
        }
    ct_scope s = ct_scope_begin();
    ct_tensor *r = (ct_tensor *)g;
    /* dims summed are those added in front and those the input had as 1 */
    for (int d = g->ndim - 1; d >= 0 && r; d--) {
        bool sum = d < lead || (sizes[d - lead] == 1 && g->sizes[d] != 1);
        if (!sum) continue;
        ct_tensor *acc = ct_select(r, d, 0);
        for (int64_t i = 1; i < r->sizes[d] && acc; i++) acc = ct_add(acc, ct_select(r, d, i));
        r = acc && d >= lead ? ct_unsqueeze(acc, d) : acc;
    }
    ct_keep(r);
    ct_scope_end(s);
    return r;
}
