/* A small GPT-style model, shared by examples/char_transformer.c,
 * bench/transformer.c and the test that checks its first losses against
 * PyTorch's (their PyTorch twins spell the same model): token and
 * position embeddings, GPT_LAYERS pre-norm blocks of LayerNorm, causal
 * self-attention (nn.MultiheadAttention, batch first) and an MLP with GELU,
 * a final LayerNorm and an unbiased head onto the vocabulary. Built in
 * PyTorch's module order, so a seed gives PyTorch's initial weights. Then
 * a text as character ids and its random training windows.
 * Included after ctorch.h (and <stdio.h>, <stdlib.h>). */

enum { GPT_WIDTH = 128, GPT_HEADS = 4, GPT_LAYERS = 2, GPT_SEQ = 64, GPT_BATCH = 16 };

typedef struct gpt_block {
    ct_module base;
    ct_module *ln1, *attn, *ln2, *fc, *proj;
} gpt_block;

/* block(x, mask): x + attn(ln1(x)) with the attention mask, then
 * x + proj(gelu(fc(ln2(x)))) */
static ct_tensor *gpt_block_forward(ct_module *self, ct_tensor *const *in, int n)
{
    gpt_block *b = (gpt_block *)self;
    (void)n;
    ct_mha_forward_opts causal = {NULL, in[1], false};
    ct_tensor *h = ct_forward(b->ln1, in[0]);
    ct_tensor *x = ct_add(in[0], ct_multihead_attention_forward(b->attn, h, h, h, causal, NULL));
    ct_tensor *m = ct_forward(b->proj, ct_gelu(ct_forward(b->fc, ct_forward(b->ln2, x)), CT_GELU_NONE));
    return ct_add(x, m);
}

static inline ct_module *gpt_block_new(void)
{
    static const ct_module_class cls = {"Block", gpt_block_forward, NULL};
    gpt_block *b = (gpt_block *)ct_module_new(&cls, sizeof *b);
    ct_mha_opts mha = {0};
    mha.batch_first = true;
    b->ln1 = ct_add_module(&b->base, "ln1", ct_nn_layer_norm(CT_SHAPE(GPT_WIDTH), ct_norm_opts_init()));
    b->attn = ct_add_module(&b->base, "attn", ct_nn_multihead_attention(GPT_WIDTH, GPT_HEADS, mha));
    b->ln2 = ct_add_module(&b->base, "ln2", ct_nn_layer_norm(CT_SHAPE(GPT_WIDTH), ct_norm_opts_init()));
    b->fc = ct_add_module(&b->base, "fc", ct_nn_linear(GPT_WIDTH, 4 * GPT_WIDTH, true));
    b->proj = ct_add_module(&b->base, "proj", ct_nn_linear(4 * GPT_WIDTH, GPT_WIDTH, true));
    return &b->base;
}

typedef struct gpt {
    ct_module base;
    ct_module *tok, *pos, *blocks[GPT_LAYERS], *ln_f, *head;
    ct_tensor *positions, *causal; /* buffers: 0 .. GPT_SEQ-1; (GPT_SEQ, GPT_SEQ) bool, true above the diagonal */
} gpt;

/* logits (batch, t, vocab) of token ids (batch, t), t <= the model's seq */
static ct_tensor *gpt_forward(ct_module *self, ct_tensor *const *in, int n)
{
    gpt *g = (gpt *)self;
    (void)n;
    int64_t t = ct_size(in[0], -1);
    ct_tensor *x = ct_add(ct_forward(g->tok, in[0]), ct_forward(g->pos, ct_narrow(g->positions, 0, 0, t)));
    ct_tensor *mask = ct_narrow(ct_narrow(g->causal, 0, 0, t), 1, 0, t);
    for (int i = 0; i < GPT_LAYERS; i++) x = ct_forward_n(g->blocks[i], (ct_tensor *[]){x, mask}, 2);
    return ct_forward(g->head, ct_forward(g->ln_f, x));
}

/* GPT(vocab): windows of up to GPT_SEQ characters */
static inline ct_module *gpt_new(int64_t vocab)
{
    static const ct_module_class cls = {"GPT", gpt_forward, NULL};
    gpt *g = (gpt *)ct_module_new(&cls, sizeof *g);
    ct_scope s = ct_scope_begin(); /* the module keeps its own references to its buffers */
    ct_register_buffer(&g->base, "positions", ct_arange(ct_int(0), ct_int(GPT_SEQ), ct_int(1), CT_I64), false);
    ct_register_buffer(&g->base, "causal", ct_triu(ct_ones(CT_SHAPE(GPT_SEQ, GPT_SEQ), CT_BOOL), 1), false);
    ct_scope_end(s);
    g->positions = ct_module_get_buffer(&g->base, "positions");
    g->causal = ct_module_get_buffer(&g->base, "causal");
    g->tok = ct_add_module(&g->base, "tok", ct_nn_embedding(vocab, GPT_WIDTH, ct_embedding_opts_init()));
    g->pos = ct_add_module(&g->base, "pos", ct_nn_embedding(GPT_SEQ, GPT_WIDTH, ct_embedding_opts_init()));
    for (int i = 0; i < GPT_LAYERS; i++) {
        char name[16];
        snprintf(name, sizeof name, "block%d", i);
        g->blocks[i] = ct_add_module(&g->base, name, gpt_block_new());
    }
    g->ln_f = ct_add_module(&g->base, "ln_f", ct_nn_layer_norm(CT_SHAPE(GPT_WIDTH), ct_norm_opts_init()));
    g->head = ct_add_module(&g->base, "head", ct_nn_linear(GPT_WIDTH, vocab, false));
    return &g->base;
}

/* AdamW(model.parameters(), lr=1e-3), as the twins make it, over the list
 * *params (free it after the optimizer). */
static inline ct_optimizer *gpt_adamw(ct_module *model, ct_tensor_list *params)
{
    *params = ct_module_parameters(model, true);
    ct_adam_opts adamw = ct_adamw_opts_init();
    adamw.lr = 1e-3;
    return ct_adamw(params->tensors, params->n, adamw);
}

/* One training step on windows x and their next characters y (batch, t):
 * zero_grad, the mean cross-entropy of the logits, backward, step. The
 * loss, or NULL with the error set. */
static inline ct_tensor *gpt_train_step(ct_module *model, ct_optimizer *opt, const ct_tensor *x, const ct_tensor *y)
{
    ct_optim_zero_grad(opt, true);
    ct_tensor *logits = ct_forward(model, x);
    ct_tensor *loss = logits ? ct_cross_entropy(ct_view(logits, CT_SHAPE(-1, ct_size(logits, -1))),
                                                ct_view(y, CT_SHAPE(-1)), ct_nll_loss_opts_init())
                             : NULL;
    bool ok = loss && ct_backward(loss, NULL, (ct_backward_opts){0}) == CT_OK && ct_optim_step(opt) == CT_OK;
    return ok ? loss : NULL;
}

/* ---------------------------------------------------------------- a text to learn */

typedef struct corpus {
    ct_tensor *ids; /* the text as character ids, int64 */
    int vocab;
    unsigned char chars[256]; /* id -> character */
    int id_of[256];           /* character -> id, -1 when absent */
} corpus;

/* The text of path as ids of its distinct bytes in byte order (the twin's
 * sorted(set(text))); false when it cannot be read. */
static inline bool corpus_load(const char *path, corpus *c)
{
    c->ids = NULL;
    c->vocab = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *text = n > GPT_SEQ ? malloc((size_t)n) : NULL;
    bool ok = text && fread(text, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    int64_t *ids = ok ? malloc((size_t)n * sizeof *ids) : NULL;
    if (ids) {
        bool seen[256] = {false};
        for (long i = 0; i < n; i++) seen[text[i]] = true;
        c->vocab = 0;
        for (int b = 0; b < 256; b++) {
            c->id_of[b] = seen[b] ? c->vocab : -1;
            if (seen[b]) c->chars[c->vocab++] = (unsigned char)b;
        }
        for (long i = 0; i < n; i++) ids[i] = c->id_of[text[i]];
        c->ids = ct_from_array(ids, CT_SHAPE(n), CT_I64);
    }
    free(text);
    free(ids);
    return ids && c->ids;
}

/* GPT_BATCH random windows of the text (x), GPT_SEQ long, and the
 * characters that follow each (y), drawn as the twins draw them. */
static inline void corpus_batch(const corpus *c, ct_tensor **x, ct_tensor **y)
{
    int64_t start[GPT_BATCH];
    ct_copy_to_array(ct_randint(0, ct_numel(c->ids) - GPT_SEQ - 1, CT_SHAPE(GPT_BATCH), CT_I64, NULL), start, GPT_BATCH,
                     CT_I64);
    ct_tensor *xs[GPT_BATCH], *ys[GPT_BATCH];
    for (int b = 0; b < GPT_BATCH; b++) {
        xs[b] = ct_narrow(c->ids, 0, start[b], GPT_SEQ);
        ys[b] = ct_narrow(c->ids, 0, start[b] + 1, GPT_SEQ);
    }
    *x = ct_stack(xs, GPT_BATCH, 0);
    *y = ct_stack(ys, GPT_BATCH, 0);
}
