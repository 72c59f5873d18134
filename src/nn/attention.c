/* Attention: F.scaled_dot_product_attention, nn.MultiheadAttention and
 * nn.TransformerEncoderLayer. Written with ctorch's differentiable ops in
 * the order PyTorch 1.13 runs them (F.multi_head_attention_forward and the
 * modules' Python), so that the graph, the dropout draws and the numbers
 * are PyTorch's, and autograd (double backward included) comes for free.
 * PyTorch's AssertionErrors are RuntimeErrors here, with the same words.
 * PyTorch's fused inference paths (_native_multi_head_attention,
 * _transformer_encoder_layer_fwd) compute the same function; ctorch always
 * takes the composite one. */

/* ---------------------------------------------------------------- messages */

/* Python's repr of a torch.Size: "torch.Size([2, 3])". */
static const char *ct__torch_size_str(const ct_tensor *t, char *buf, size_t n)
{
    char inner[256];
    snprintf(buf, n, "torch.Size(%s)", ct__shape_str(t->sizes, t->ndim, inner, sizeof inner));
    return buf;
}

/* t has exactly the sizes v (k of them). */
static bool ct__has_sizes(const ct_tensor *t, const int64_t *v, int k)
{
    if (t->ndim != k) return false;
    for (int i = 0; i < k; i++)
        if (t->sizes[i] != v[i]) return false;
    return true;
}

/* PyTorch's check of a key padding mask's dtype (the modules' and the functional's). */
static ct_result ct__check_kpm_dtype(const ct_tensor *kpm)
{
    if (kpm && kpm->dtype != CT_BOOL && !ct_is_floating_point(kpm))
        return ct__fail(CT_ERR_RUNTIME, "only bool and floating types of key_padding_mask are supported");
    return CT_OK;
}

/* An additive mask from a boolean one: 0 where `masked` is false, -inf where true. */
static ct_tensor *ct__additive_mask(const ct_tensor *masked, ct_dtype dtype)
{
    ct_tensor *m = ct_zeros_like(masked, dtype);
    return m && ct_masked_fill_scalar_(m, masked, ct_float(-INFINITY)) == CT_OK ? m : NULL;
}

/* ---------------------------------------------------------------- F.scaled_dot_product_attention */

/* is_causal's mask (L, S), true where a query attends, on query's device. */
static ct_tensor *ct__causal_mask(const ct_tensor *q, const ct_tensor *k)
{
    ct_device_guard on = ct_device_guard_begin(q->storage->device);
    ct_tensor *m = ct_tril(ct_ones(CT_SHAPE(ct_size(q, -2), ct_size(k, -2)), CT_BOOL), 0);
    ct_device_guard_end(on);
    return m;
}

/* The composite in the order of PyTorch's math kernel: query * scale, the
 * product with key^T, the mask added in place, softmax, dropout, the
 * product with value. Runs inside the caller's scope. */
static ct_tensor *ct__sdpa(const ct_tensor *q, const ct_tensor *k, const ct_tensor *v, const ct_sdpa_opts *o, ct_tensor **w)
{
    double scale = o->scale != 0 ? o->scale : 1 / sqrt((double)ct_size(q, -1));
    const ct_tensor *mask = o->is_causal ? ct__causal_mask(q, k) : o->attn_mask;
    if (mask && mask->dtype == CT_BOOL) mask = ct__additive_mask(ct_logical_not(mask), q->dtype);
    if ((o->is_causal || o->attn_mask) && !mask) return NULL;
    ct_tensor *attn = ct_matmul(ct_mul_scalar(q, ct_float(scale)), ct_transpose(k, -2, -1));
    if (attn && mask && ct_add_(attn, mask) != CT_OK) return NULL;
    attn = ct_softmax(attn, -1, CT_DEFAULT);
    if (attn && o->dropout_p > 0) attn = ct_dropout(attn, o->dropout_p, true);
    *w = attn;
    return attn ? ct_matmul(attn, v) : NULL;
}

ct_tensor *ct_scaled_dot_product_attention(const ct_tensor *query, const ct_tensor *key, const ct_tensor *value,
                                           ct_sdpa_opts opts, ct_tensor **attn_weights)
{
    if (attn_weights) *attn_weights = NULL;
    CT__ARG(query, "query", 1);
    CT__ARG(key, "key", 2);
    CT__ARG(value, "value", 3);
    if (opts.is_causal && opts.attn_mask) {
        ct__fail(CT_ERR_RUNTIME, "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
        return NULL;
    }
    if (query->ndim < 2 || key->ndim < 2) {
        ct__fail(CT_ERR_RUNTIME, "scaled_dot_product_attention: expected query and key of at least 2 dims, but got %d-D and "
                 "%d-D", query->ndim, key->ndim);
        return NULL;
    }
    ct_scope s = ct_scope_begin();
    ct_tensor *w = NULL, *r = ct_keep(ct__sdpa(query, key, value, &opts, &w));
    if (r && attn_weights) *attn_weights = ct_keep(w);
    ct_scope_end(s);
    return r;
}

/* ---------------------------------------------------------------- nn.MultiheadAttention */

typedef struct ct__mha {
    ct_module base;
    int64_t embed_dim, num_heads;
    double dropout;
    bool batch_first, add_zero_attn, same_embed_dim;
    /* forward's keyword arguments for the call in progress
     * (ct_multihead_attention_forward sets them around ct_forward_n) */
    ct_mha_forward_opts call;
    bool need_weights;
    ct_tensor *weights; /* the call's attn_output_weights, a reference of its own until the caller takes it */
} ct__mha;

/* _mha_shape_check: whether the input is batched, or an error. */
static ct_result ct__mha_shape_check(const ct_tensor *q, const ct_tensor *k, const ct_tensor *v, const ct_tensor *kpm,
                                     const ct_tensor *mask, int64_t num_heads, bool *batched)
{
    char buf[256], size[256];
    if (q->ndim != 2 && q->ndim != 3)
        return ct__fail(CT_ERR_RUNTIME, "query should be unbatched 2D or batched 3D tensor but received %d-D query tensor", q->ndim);
    *batched = q->ndim == 3;
    const char *which = *batched ? "batched (3-D)" : "unbatched (2-D)";
    if (k->ndim != q->ndim || v->ndim != q->ndim)
        return ct__fail(CT_ERR_RUNTIME, "For %s `query`, expected `key` and `value` to be %d-D but found %d-D and %d-D tensors "
                        "respectively", which, q->ndim, k->ndim, v->ndim);
    if (kpm && kpm->ndim != q->ndim - 1)
        return ct__fail(CT_ERR_RUNTIME, "For %s `query`, expected `key_padding_mask` to be `None` or %d-D but found %d-D "
                        "tensor instead", which, q->ndim - 1, kpm->ndim);
    if (mask && mask->ndim != 2 && mask->ndim != 3)
        return ct__fail(CT_ERR_RUNTIME, "For %s `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found %d-D tensor "
                        "instead", which, mask->ndim);
    int64_t want[3] = {num_heads, q->sizes[0], k->sizes[0]};
    if (!*batched && mask && mask->ndim == 3 && !ct__has_sizes(mask, want, 3))
        return ct__fail(CT_ERR_RUNTIME, "Expected `attn_mask` shape to be %s but got %s", ct__tuple_str(want, 3, buf, sizeof buf),
                        ct__torch_size_str(mask, size, sizeof size));
    return CT_OK;
}

/* _in_projection's checks: w_q (Eq, Eq), w_k (Eq, Ek), w_v (Eq, Ev), biases (Eq). */
static ct_result ct__in_projection_check(const char *what, const ct_tensor *w, const ct_tensor *b, int64_t eq, int64_t e)
{
    char want[64], got[300];
    int64_t ws[2] = {eq, e};
    if (!ct__has_sizes(w, ws, 2))
        return ct__fail(CT_ERR_RUNTIME, "expecting %s weights shape of %s, but got %s", what, ct__tuple_str(ws, 2, want, sizeof want),
                        ct__torch_size_str(w, got, sizeof got));
    if (b && !ct__has_sizes(b, ws, 1))
        return ct__fail(CT_ERR_RUNTIME, "expecting %s bias shape of %s, but got %s", what, ct__tuple_str(ws, 1, want, sizeof want),
                        ct__torch_size_str(b, got, sizeof got));
    return CT_OK;
}

/* _in_projection_packed: one linear for self-attention, two when key is
 * value, three otherwise (the weight and bias cut in q, k, v order). */
static ct_result ct__in_projection_packed(const ct_tensor *q, const ct_tensor *k, const ct_tensor *v, const ct_tensor *w,
                                          const ct_tensor *b, ct_tensor **out)
{
    int64_t E = ct_size(q, -1);
    ct_tensor *ws[3], *bs[3] = {NULL, NULL, NULL};
    if (k == v && q == k) return ct_chunk(ct_linear(q, w, b), 3, -1, out, 3) == 3 ? CT_OK : ct_last_error_code();
    if (k == v) {
        if (ct_split_with_sizes(w, CT_SHAPE(E, 2 * E), 0, ws, 2) != 2 ||
            (b && ct_split_with_sizes(b, CT_SHAPE(E, 2 * E), 0, bs, 2) != 2))
            return ct_last_error_code();
        out[0] = ct_linear(q, ws[0], bs[0]);
        return out[0] && ct_chunk(ct_linear(k, ws[1], bs[1]), 2, -1, out + 1, 2) == 2 ? CT_OK : ct_last_error_code();
    }
    if (ct_chunk(w, 3, 0, ws, 3) != 3 || (b && ct_chunk(b, 3, 0, bs, 3) != 3)) return ct_last_error_code();
    const ct_tensor *x[3] = {q, k, v};
    for (int i = 0; i < 3; i++)
        if (!(out[i] = ct_linear(x[i], ws[i], bs[i]))) return ct_last_error_code();
    return CT_OK;
}

/* _in_projection: separate q, k, v weights (kdim or vdim differs from embed_dim). */
static ct_result ct__in_projection(const ct__mha *a, const ct_tensor *q, const ct_tensor *k, const ct_tensor *v,
                                   const ct_tensor *b, ct_tensor **out)
{
    static const char *const what[3] = {"query", "key", "value"}, *const names[3] = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
    ct_tensor *bs[3] = {NULL, NULL, NULL};
    if (b && ct_chunk(b, 3, 0, bs, 3) != 3) return ct_last_error_code();
    const ct_tensor *x[3] = {q, k, v};
    for (int i = 0; i < 3; i++)
        if (ct__in_projection_check(what[i], ct__attr(&a->base, names[i]), bs[i], ct_size(q, -1), ct_size(x[i], -1)))
            return ct_last_error_code();
    for (int i = 0; i < 3; i++)
        if (!(out[i] = ct_linear(x[i], ct__attr(&a->base, names[i]), bs[i]))) return ct_last_error_code();
    return CT_OK;
}

/* The attention mask made 3-D (N * num_heads or 1, L, S), bool or floating. */
static ct_result ct__prep_attn_mask(const ct_tensor **mask, int64_t bsz, int64_t heads, int64_t tgt, int64_t src)
{
    char want[128], got[300];
    const ct_tensor *m = *mask;
    if (m->dtype == CT_U8) { /* deprecated in PyTorch (a warning): read as bool */
        m = ct_to(m, CT_BOOL);
        if (!m) return ct_last_error_code();
    } else if (!ct_is_floating_point(m) && m->dtype != CT_BOOL) {
        return ct__fail(CT_ERR_RUNTIME, "Only float, byte, and bool types are supported for attn_mask, not torch.%s",
                        ct_dtype_name(m->dtype));
    }
    int64_t want2[2] = {tgt, src}, want3[3] = {bsz * heads, tgt, src};
    if (m->ndim == 2 && !ct__has_sizes(m, want2, 2))
        return ct__fail(CT_ERR_RUNTIME, "The shape of the 2D attn_mask is %s, but should be %s.", ct__torch_size_str(m, got, sizeof got),
                        ct__tuple_str(want2, 2, want, sizeof want));
    if (m->ndim == 3 && !ct__has_sizes(m, want3, 3))
        return ct__fail(CT_ERR_RUNTIME, "The shape of the 3D attn_mask is %s, but should be %s.", ct__torch_size_str(m, got, sizeof got),
                        ct__tuple_str(want3, 3, want, sizeof want));
    if (m->ndim != 2 && m->ndim != 3) return ct__fail(CT_ERR_RUNTIME, "attn_mask's dimension %d is not supported", m->ndim);
    *mask = m->ndim == 2 ? ct_unsqueeze(m, 0) : m;
    return *mask ? CT_OK : ct_last_error_code();
}

/* F.pad(mask, (0, 1)): one more key, not masked (zero). */
static const ct_tensor *ct__pad_key(const ct_tensor *mask)
{
    return mask ? ct_pad(mask, CT_SHAPE(0, 1), CT_PAD_CONSTANT, 0) : NULL;
}

/* One more key and value for every (batch, head): bias_k / bias_v repeated
 * over the batch (add_bias_kv), or zeros (add_zero_attn); the masks padded. */
static ct_result ct__extra_key(ct_tensor **k, ct_tensor **v, const ct_tensor *bias_k, const ct_tensor *bias_v, int64_t bsz,
                               int dim, const ct_tensor **mask, const ct_tensor **kpm)
{
    ct_tensor *kk[2] = {*k, NULL}, *vv[2] = {*v, NULL};
    if (bias_k) {
        kk[1] = ct_repeat(bias_k, CT_SHAPE(1, bsz, 1));
        vv[1] = ct_repeat(bias_v, CT_SHAPE(1, bsz, 1));
    } else {
        ct_device_guard on = ct_device_guard_begin((*k)->storage->device); /* the zeros join k and v there */
        ct_shape zs = ct_shape_of(*k);
        zs.size[1] = 1;
        kk[1] = ct_zeros(zs, (*k)->dtype);
        zs = ct_shape_of(*v);
        zs.size[1] = 1;
        vv[1] = ct_zeros(zs, (*v)->dtype);
        ct_device_guard_end(on);
    }
    if (!kk[1] || !vv[1] || !(*k = ct_cat(kk, 2, dim)) || !(*v = ct_cat(vv, 2, dim))) return ct_last_error_code();
    if (*mask && !(*mask = ct__pad_key(*mask))) return ct_last_error_code();
    if (*kpm && !(*kpm = ct__pad_key(*kpm))) return ct_last_error_code();
    return CT_OK;
}

/* (L, N, E) to (N * num_heads, L, head_dim): q.contiguous().view(L, N * H, hd).transpose(0, 1). */
static ct_tensor *ct__split_heads(const ct_tensor *x, int64_t bsz, int64_t heads, int64_t head_dim)
{
    return ct_transpose(ct_view(ct_contiguous(x), CT_SHAPE(ct_size(x, 0), bsz * heads, head_dim)), 0, 1);
}

/* The key padding mask (N, S) merged into the attention mask, which then
 * becomes floating (NULL when there is neither). */
static ct_result ct__merge_masks(const ct_tensor **mask, const ct_tensor *kpm, int64_t bsz, int64_t heads, int64_t src,
                                 ct_dtype dtype)
{
    char want[64], got[300];
    int64_t ws[2] = {bsz, src};
    const ct_tensor *m = *mask;
    if (kpm) {
        if (!ct__has_sizes(kpm, ws, 2))
            return ct__fail(CT_ERR_RUNTIME, "expecting key_padding_mask shape of %s, but got %s",
                            ct__tuple_str(ws, 2, want, sizeof want), ct__torch_size_str(kpm, got, sizeof got));
        kpm = ct_reshape(ct_expand(ct_view(kpm, CT_SHAPE(bsz, 1, 1, src)), CT_SHAPE(-1, heads, -1, -1)), CT_SHAPE(bsz * heads, 1, src));
        if (!m) m = kpm;
        else if (m->dtype == CT_BOOL) m = ct_logical_or(m, kpm);
        else m = ct_masked_fill_scalar(m, kpm, ct_float(-INFINITY));
        if (!m) return ct_last_error_code();
    }
    if (m && m->dtype == CT_BOOL && !(m = ct__additive_mask(m, dtype))) return ct_last_error_code();
    *mask = m;
    return CT_OK;
}

/* The weights (N * H, L, S) as forward returns them: (N, H, L, S), or averaged (N, L, S). */
static ct_tensor *ct__returned_weights(ct_tensor *attn, int64_t bsz, int64_t heads, bool per_head)
{
    ct_tensor *w = ct_view(attn, CT_SHAPE(bsz, heads, ct_size(attn, 1), ct_size(attn, 2)));
    return per_head || !w ? w : ct_div_scalar(ct_sum_dim(w, CT_DIMS(1), false, CT_DEFAULT), ct_int(heads));
}

/* multi_head_attention_forward's checks of the (batched) inputs. */
static ct_result ct__mha_check_inputs(const ct__mha *a, const ct_tensor *query, const ct_tensor *key, const ct_tensor *value,
                                      const ct_tensor *kpm)
{
    char buf[300], buf2[300];
    if (ct__check_kpm_dtype(kpm)) return ct_last_error_code();
    if (query->sizes[2] != a->embed_dim)
        return ct__fail(CT_ERR_RUNTIME, "was expecting embedding dimension of %lld, but got %lld", (long long)a->embed_dim,
                        (long long)query->sizes[2]);
    if (!a->same_embed_dim && (key->sizes[0] != value->sizes[0] || key->sizes[1] != value->sizes[1]))
        return ct__fail(CT_ERR_RUNTIME, "key's sequence and batch dims torch.Size([%lld, %lld]) do not match value's "
                        "torch.Size([%lld, %lld])", (long long)key->sizes[0], (long long)key->sizes[1],
                        (long long)value->sizes[0], (long long)value->sizes[1]);
    if (a->same_embed_dim && !ct__has_sizes(key, value->sizes, value->ndim))
        return ct__fail(CT_ERR_RUNTIME, "key shape %s does not match value shape %s", ct__torch_size_str(key, buf, sizeof buf),
                        ct__torch_size_str(value, buf2, sizeof buf2));
    return CT_OK;
}

/* The projected inputs split into heads, q (N * H, L, hd), k and v (N * H, S', hd),
 * with bias_k/bias_v and the zero key appended and the masks merged into one
 * additive mask (NULL: none). */
typedef struct ct__mha_heads {
    ct_tensor *q, *k, *v;
    const ct_tensor *mask;
} ct__mha_heads;

static ct_result ct__mha_heads_of(const ct__mha *a, const ct_tensor *query, const ct_tensor *key, const ct_tensor *value,
                                  const ct_tensor *mask, const ct_tensor *kpm, ct__mha_heads *h)
{
    const ct_module *m = &a->base;
    int64_t tgt = query->sizes[0], bsz = query->sizes[1], heads = a->num_heads, head_dim = query->sizes[2] / heads;
    ct_tensor *p[3], *b = ct__attr(m, "in_proj_bias"), *bias_k = ct__attr(m, "bias_k");
    ct_result r = a->same_embed_dim ? ct__in_projection_packed(query, key, value, ct__attr(m, "in_proj_weight"), b, p)
                                    : ct__in_projection(a, query, key, value, b, p);
    if (r != CT_OK || (mask && ct__prep_attn_mask(&mask, bsz, heads, tgt, key->sizes[0])) ||
        (bias_k && ct__extra_key(&p[1], &p[2], bias_k, ct__attr(m, "bias_v"), bsz, 0, &mask, &kpm)))
        return ct_last_error_code();
    h->q = ct__split_heads(p[0], bsz, heads, head_dim);
    h->k = ct__split_heads(p[1], bsz, heads, head_dim);
    h->v = ct__split_heads(p[2], bsz, heads, head_dim);
    if (!h->q || !h->k || !h->v || (a->add_zero_attn && ct__extra_key(&h->k, &h->v, NULL, NULL, bsz, 1, &mask, &kpm)) ||
        ct__merge_masks(&mask, kpm, bsz, heads, h->k->sizes[1], h->q->dtype))
        return ct_last_error_code();
    h->mask = mask;
    return CT_OK;
}

/* softmax(q / sqrt(hd) @ k^T + mask), dropout in training: (N * H, L, S'). */
static ct_tensor *ct__mha_weights(const ct__mha *a, const ct__mha_heads *h)
{
    double dropout_p = ct_module_is_training(&a->base) ? a->dropout : 0;
    ct_tensor *qs = ct_div_scalar(h->q, ct_float(sqrt((double)ct_size(h->q, 2)))), *kt = ct_transpose(h->k, -2, -1);
    ct_tensor *attn = h->mask ? ct_baddbmm(h->mask, qs, kt, ct_addmm_opts_init()) : ct_bmm(qs, kt);
    attn = ct_softmax(attn, -1, CT_DEFAULT);
    return attn && dropout_p > 0 ? ct_dropout(attn, dropout_p, true) : attn;
}

/* F.multi_head_attention_forward for this module's parameters, sequence
 * first; runs inside the caller's scope. weights: NULL when not needed. */
static ct_tensor *ct__mha_compute(const ct__mha *a, const ct_tensor *query, const ct_tensor *key, const ct_tensor *value,
                                  const ct_mha_forward_opts *o, ct_tensor **weights)
{
    const ct_tensor *kpm = o->key_padding_mask;
    const ct_module *m = &a->base;
    bool batched = false;
    if (ct__mha_shape_check(query, key, value, kpm, o->attn_mask, a->num_heads, &batched)) return NULL;
    if (!batched) { /* a batch dim of 1 (the new tensors are no longer the same object, as in PyTorch) */
        query = ct_unsqueeze(query, 1);
        key = ct_unsqueeze(key, 1);
        value = ct_unsqueeze(value, 1);
        if (kpm) kpm = ct_unsqueeze(kpm, 0);
        if (!query || !key || !value || (o->key_padding_mask && !kpm)) return NULL;
    }
    int64_t tgt = query->sizes[0], bsz = query->sizes[1], E = query->sizes[2];
    ct__mha_heads h;
    if (ct__mha_check_inputs(a, query, key, value, kpm) || ct__mha_heads_of(a, query, key, value, o->attn_mask, kpm, &h))
        return NULL;
    ct_tensor *attn = ct__mha_weights(a, &h);
    ct_tensor *out = ct_view(ct_contiguous(ct_transpose(ct_bmm(attn, h.v), 0, 1)), CT_SHAPE(tgt * bsz, E));
    out = ct_linear(out, ct_module_get_parameter(m, "out_proj.weight"), ct_module_get_parameter(m, "out_proj.bias"));
    out = out ? ct_view(out, CT_SHAPE(tgt, bsz, ct_size(out, 1))) : NULL;
    if (out && weights && !(*weights = ct__returned_weights(attn, bsz, a->num_heads, o->per_head_weights))) return NULL;
    if (out && !batched) {
        out = ct_squeeze_dim(out, 1);
        if (weights && !(*weights = ct_squeeze_dim(*weights, 0))) return NULL;
    }
    return out;
}

/* MultiheadAttention.forward(query, key, value) with the keyword arguments
 * of the call in progress: batch-first inputs are transposed (keeping which
 * of them are the same tensor) around the functional form. */
static ct_tensor *ct__mha_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 3, 3)) return NULL;
    ct__mha *a = (ct__mha *)m;
    if (ct__check_kpm_dtype(a->call.key_padding_mask)) return NULL;
    ct_tensor *q = in[0], *k = in[1], *v = in[2], *w = NULL;
    bool flip = a->batch_first && q->ndim == 3;
    ct_scope s = ct_scope_begin();
    if (flip) { /* as PyTorch transposes them: key is value, and query is key, stay true */
        bool kv = k == v, qk = kv && q == k;
        q = ct_transpose(q, 1, 0);
        k = qk ? q : ct_transpose(k, 1, 0);
        v = kv ? k : ct_transpose(v, 1, 0);
    }
    ct_tensor *out = q && k && v ? ct__mha_compute(a, q, k, v, &a->call, a->need_weights ? &w : NULL) : NULL;
    if (out && flip) out = ct_transpose(out, 1, 0);
    if (out && w) {
        ct_release(a->weights); /* from a call a hook made inside this one */
        a->weights = ct_retain(w);
    }
    out = ct_keep(out);
    ct_scope_end(s);
    return out;
}

static const ct_module_class ct__mha_class = {"MultiheadAttention", ct__mha_forward, NULL};

ct_tensor *ct_multihead_attention_forward(ct_module *m, const ct_tensor *query, const ct_tensor *key, const ct_tensor *value,
                                          ct_mha_forward_opts opts, ct_tensor **attn_weights)
{
    if (attn_weights) *attn_weights = NULL;
    if (!m || m->cls != &ct__mha_class) {
        ct__fail(CT_ERR_TYPE, "ct_multihead_attention_forward: %s is not a MultiheadAttention", m ? ct_module_name(m) : "NULL");
        return NULL;
    }
    ct__mha *a = (ct__mha *)m;
    ct_mha_forward_opts saved = a->call;
    bool saved_need = a->need_weights;
    a->call = opts;
    a->need_weights = attn_weights != NULL;
    ct_tensor *in[3] = {(ct_tensor *)query, (ct_tensor *)key, (ct_tensor *)value};
    ct_tensor *out = ct_forward_n(m, in, 3);
    a->call = saved;
    a->need_weights = saved_need;
    ct_tensor *w = a->weights;
    a->weights = NULL;
    if (out && attn_weights) *attn_weights = ct__own(w);
    else ct_release(w);
    return out;
}

/* _reset_parameters after out_proj drew its own: xavier_uniform_ on the input
 * projections, zero biases, xavier_normal_ on bias_k and bias_v. */
static bool ct__mha_reset(ct__mha *a)
{
    ct_module *m = &a->base;
    static const char *const names[4] = {"in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight"};
    for (int i = a->same_embed_dim ? 0 : 1; i < (a->same_embed_dim ? 1 : 4); i++)
        if (ct_init_xavier_uniform_(ct__attr(m, names[i]), 1) != CT_OK) return false;
    ct_tensor *b = ct__attr(m, "in_proj_bias"), *bk = ct__attr(m, "bias_k");
    if (b && (ct_init_zeros_(b) != CT_OK || ct_init_zeros_(ct_module_get_parameter(m, "out_proj.bias")) != CT_OK)) return false;
    return !bk || (ct_init_xavier_normal_(bk, 1) == CT_OK && ct_init_xavier_normal_(ct__attr(m, "bias_v"), 1) == CT_OK);
}

/* The parameters in PyTorch's registration order (None where PyTorch registers None). */
static bool ct__mha_params(ct__mha *a, int64_t E, int64_t kdim, int64_t vdim, const ct_mha_opts *o)
{
    static const ct_module_class out_proj_cls = {"NonDynamicallyQuantizableLinear", ct__linear_forward, NULL};
    ct_module *m = &a->base;
    bool ok;
    if (a->same_embed_dim) {
        ok = ct__new_tensor(m, "in_proj_weight", CT_SHAPE(3 * E, E), CT_DEFAULT, true, true) &&
             ct_register_parameter(m, "q_proj_weight", NULL) == CT_OK &&
             ct_register_parameter(m, "k_proj_weight", NULL) == CT_OK &&
             ct_register_parameter(m, "v_proj_weight", NULL) == CT_OK;
    } else {
        ok = ct__new_tensor(m, "q_proj_weight", CT_SHAPE(E, E), CT_DEFAULT, true, true) &&
             ct__new_tensor(m, "k_proj_weight", CT_SHAPE(E, kdim), CT_DEFAULT, true, true) &&
             ct__new_tensor(m, "v_proj_weight", CT_SHAPE(E, vdim), CT_DEFAULT, true, true) &&
             ct_register_parameter(m, "in_proj_weight", NULL) == CT_OK;
    }
    if (ok) ok = o->no_bias ? ct_register_parameter(m, "in_proj_bias", NULL) == CT_OK
                            : ct__new_tensor(m, "in_proj_bias", CT_SHAPE(3 * E), CT_DEFAULT, true, true) != NULL;
    ok = ok && ct_add_module(m, "out_proj", ct__linear_layer(&out_proj_cls, E, E, !o->no_bias));
    if (ok && o->add_bias_kv)
        ok = ct__new_tensor(m, "bias_k", CT_SHAPE(1, 1, E), CT_DEFAULT, true, true) &&
             ct__new_tensor(m, "bias_v", CT_SHAPE(1, 1, E), CT_DEFAULT, true, true);
    return ok && ct__mha_reset(a);
}

ct_module *ct_nn_multihead_attention(int64_t embed_dim, int64_t num_heads, ct_mha_opts opts)
{
    if (num_heads == 0) {
        ct__fail(CT_ERR_RUNTIME, "integer division or modulo by zero");
        return NULL;
    }
    if (num_heads < 0 || embed_dim % num_heads) {
        ct__fail(CT_ERR_RUNTIME, "embed_dim must be divisible by num_heads");
        return NULL;
    }
    ct__mha *a = (ct__mha *)ct_module_new(&ct__mha_class, sizeof(ct__mha));
    if (!a) return NULL;
    int64_t kdim = opts.kdim ? opts.kdim : embed_dim, vdim = opts.vdim ? opts.vdim : embed_dim;
    a->embed_dim = embed_dim;
    a->num_heads = num_heads;
    a->dropout = opts.dropout;
    a->batch_first = opts.batch_first;
    a->add_zero_attn = opts.add_zero_attn;
    a->same_embed_dim = kdim == embed_dim && vdim == embed_dim;
    if (ct__mha_params(a, embed_dim, kdim, vdim, &opts)) return &a->base;
    ct_module_release(&a->base);
    return NULL;
}

/* ---------------------------------------------------------------- nn.TransformerEncoderLayer */

typedef struct ct__encoder_layer {
    ct_module base;
    bool norm_first, gelu;
    /* forward's masks for the call in progress (set by ct_transformer_encoder_layer_forward) */
    const ct_tensor *src_mask, *src_key_padding_mask;
} ct__encoder_layer;

static ct_tensor *ct__child(ct_module *m, const char *name, const ct_tensor *x)
{
    return ct_forward(ct_module_get_submodule(m, name), x);
}

/* _sa_block: self_attn(x, x, x, masks, need_weights=False), then dropout1. */
static ct_tensor *ct__sa_block(ct__encoder_layer *l, const ct_tensor *x)
{
    ct_mha_forward_opts o;
    memset(&o, 0, sizeof o);
    o.attn_mask = l->src_mask;
    o.key_padding_mask = l->src_key_padding_mask;
    ct_tensor *a = ct_multihead_attention_forward(ct_module_get_submodule(&l->base, "self_attn"), x, x, x, o, NULL);
    return ct__child(&l->base, "dropout1", a);
}

/* _ff_block: linear2(dropout(activation(linear1(x)))), then dropout2. */
static ct_tensor *ct__ff_block(ct__encoder_layer *l, const ct_tensor *x)
{
    ct_module *m = &l->base;
    ct_tensor *h = ct__child(m, "linear1", x);
    h = l->gelu ? ct_gelu(h, CT_GELU_NONE) : ct_relu(h);
    return ct__child(m, "dropout2", ct__child(m, "linear2", ct__child(m, "dropout", h)));
}

static ct_tensor *ct__encoder_layer_forward(ct_module *m, ct_tensor *const *in, int n)
{
    if (!ct__inputs(m, n, 1, 1)) return NULL;
    ct__encoder_layer *l = (ct__encoder_layer *)m;
    if (ct__check_kpm_dtype(l->src_key_padding_mask)) return NULL;
    ct_scope s = ct_scope_begin();
    ct_tensor *x = in[0];
    if (l->norm_first) {
        x = ct_add(x, ct__sa_block(l, ct__child(m, "norm1", x)));
        x = x ? ct_add(x, ct__ff_block(l, ct__child(m, "norm2", x))) : NULL;
    } else {
        x = ct__child(m, "norm1", ct_add(x, ct__sa_block(l, x)));
        x = x ? ct__child(m, "norm2", ct_add(x, ct__ff_block(l, x))) : NULL;
    }
    x = ct_keep(x);
    ct_scope_end(s);
    return x;
}

static const ct_module_class ct__encoder_layer_class = {"TransformerEncoderLayer", ct__encoder_layer_forward, NULL};

ct_transformer_encoder_layer_opts ct_transformer_encoder_layer_opts_init(void)
{
    ct_transformer_encoder_layer_opts o;
    memset(&o, 0, sizeof o);
    o.dim_feedforward = 2048;
    o.dropout = 0.1;
    o.activation = "relu";
    o.layer_norm_eps = 1e-5;
    return o;
}

ct_module *ct_nn_transformer_encoder_layer(int64_t d_model, int64_t nhead, ct_transformer_encoder_layer_opts opts)
{
    ct__encoder_layer *l = (ct__encoder_layer *)ct_module_new(&ct__encoder_layer_class, sizeof(ct__encoder_layer));
    if (!l) return NULL;
    ct_module *m = &l->base;
    ct_mha_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.dropout = opts.dropout;
    mo.batch_first = opts.batch_first;
    ct_norm_opts no = ct_norm_opts_init();
    no.eps = opts.layer_norm_eps;
    l->norm_first = opts.norm_first;
    bool ok = ct_add_module(m, "self_attn", ct_nn_multihead_attention(d_model, nhead, mo)) &&
              ct_add_module(m, "linear1", ct_nn_linear(d_model, opts.dim_feedforward, true)) &&
              ct_add_module(m, "dropout", ct_nn_dropout(opts.dropout)) &&
              ct_add_module(m, "linear2", ct_nn_linear(opts.dim_feedforward, d_model, true)) &&
              ct_add_module(m, "norm1", ct_nn_layer_norm(CT_SHAPE(d_model), no)) &&
              ct_add_module(m, "norm2", ct_nn_layer_norm(CT_SHAPE(d_model), no)) &&
              ct_add_module(m, "dropout1", ct_nn_dropout(opts.dropout)) &&
              ct_add_module(m, "dropout2", ct_nn_dropout(opts.dropout));
    const char *act = opts.activation ? opts.activation : "relu";
    if (ok && strcmp(act, "relu") && strcmp(act, "gelu")) {
        ct__fail(CT_ERR_RUNTIME, "activation should be relu/gelu, not %s", act);
        ok = false;
    }
    l->gelu = ok && !strcmp(act, "gelu");
    if (ok) return m;
    ct_module_release(m);
    return NULL;
}

ct_tensor *ct_transformer_encoder_layer_forward(ct_module *m, const ct_tensor *src, const ct_tensor *src_mask,
                                                const ct_tensor *src_key_padding_mask)
{
    if (!m || m->cls != &ct__encoder_layer_class) {
        ct__fail(CT_ERR_TYPE, "ct_transformer_encoder_layer_forward: %s is not a TransformerEncoderLayer",
                 m ? ct_module_name(m) : "NULL");
        return NULL;
    }
    ct__encoder_layer *l = (ct__encoder_layer *)m;
    const ct_tensor *saved[2] = {l->src_mask, l->src_key_padding_mask};
    l->src_mask = src_mask;
    l->src_key_padding_mask = src_key_padding_mask;
    ct_tensor *r = ct_forward(m, src);
    l->src_mask = saved[0];
    l->src_key_padding_mask = saved[1];
    return r;
}
