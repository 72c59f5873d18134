/* One training step (zero_grad, forward, cross-entropy, backward, AdamW) of
 * a small GPT-style model: token and position embeddings, 2 pre-norm blocks
 * of LayerNorm, causal self-attention with 4 heads and an MLP with GELU,
 * width 128, a final LayerNorm and an unbiased head onto a 65-character
 * vocabulary; sequence 64, batch 16 (issue target: at least 1.5x PyTorch). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include "bench.h"

enum { VOCAB = 65, SEQ = 64, BATCH = 16, WIDTH = 128, HEADS = 4, LAYERS = 2 };

static ct_tensor *causal_mask; /* (SEQ, SEQ) bool, true above the diagonal: a position sees only the past */

typedef struct block {
    ct_module base;
    ct_module *ln1, *attn, *ln2, *fc, *proj;
} block;

/* x + attn(ln1(x)), then x + proj(gelu(fc(ln2(x)))) */
static ct_tensor *block_forward(ct_module *self, ct_tensor *const *in, int n)
{
    block *b = (block *)self;
    (void)n;
    ct_mha_forward_opts causal = {NULL, causal_mask, false};
    ct_tensor *h = ct_forward(b->ln1, in[0]);
    ct_tensor *x = ct_add(in[0], ct_multihead_attention_forward(b->attn, h, h, h, causal, NULL));
    ct_tensor *m = ct_forward(b->proj, ct_gelu(ct_forward(b->fc, ct_forward(b->ln2, x)), CT_GELU_NONE));
    return ct_add(x, m);
}

static ct_module *block_new(void)
{
    static const ct_module_class cls = {"Block", block_forward, NULL};
    block *b = (block *)ct_module_new(&cls, sizeof *b);
    ct_mha_opts mha = {0};
    mha.batch_first = true;
    b->ln1 = ct_add_module(&b->base, "ln1", ct_nn_layer_norm(CT_SHAPE(WIDTH), ct_norm_opts_init()));
    b->attn = ct_add_module(&b->base, "attn", ct_nn_multihead_attention(WIDTH, HEADS, mha));
    b->ln2 = ct_add_module(&b->base, "ln2", ct_nn_layer_norm(CT_SHAPE(WIDTH), ct_norm_opts_init()));
    b->fc = ct_add_module(&b->base, "fc", ct_nn_linear(WIDTH, 4 * WIDTH, true));
    b->proj = ct_add_module(&b->base, "proj", ct_nn_linear(4 * WIDTH, WIDTH, true));
    return &b->base;
}

typedef struct gpt {
    ct_module base;
    ct_module *tok, *pos, *blocks[LAYERS], *ln_f, *head;
    ct_tensor *positions; /* 0 .. SEQ-1 */
} gpt;

/* logits (BATCH, SEQ, VOCAB) of token ids (BATCH, SEQ) */
static ct_tensor *gpt_forward(ct_module *self, ct_tensor *const *in, int n)
{
    gpt *g = (gpt *)self;
    (void)n;
    ct_tensor *x = ct_add(ct_forward(g->tok, in[0]), ct_forward(g->pos, g->positions));
    for (int i = 0; i < LAYERS; i++) x = ct_forward(g->blocks[i], x);
    return ct_forward(g->head, ct_forward(g->ln_f, x));
}

static void gpt_destroy(ct_module *self) { ct_release(((gpt *)self)->positions); }

static ct_module *gpt_new(void)
{
    static const ct_module_class cls = {"GPT", gpt_forward, gpt_destroy};
    gpt *g = (gpt *)ct_module_new(&cls, sizeof *g);
    g->tok = ct_add_module(&g->base, "tok", ct_nn_embedding(VOCAB, WIDTH, ct_embedding_opts_init()));
    g->pos = ct_add_module(&g->base, "pos", ct_nn_embedding(SEQ, WIDTH, ct_embedding_opts_init()));
    for (int i = 0; i < LAYERS; i++) {
        char name[16];
        snprintf(name, sizeof name, "block%d", i);
        g->blocks[i] = ct_add_module(&g->base, name, block_new());
    }
    g->ln_f = ct_add_module(&g->base, "ln_f", ct_nn_layer_norm(CT_SHAPE(WIDTH), ct_norm_opts_init()));
    g->head = ct_add_module(&g->base, "head", ct_nn_linear(WIDTH, VOCAB, false));
    g->positions = ct_arange(ct_int(0), ct_int(SEQ), ct_int(1), CT_I64);
    return &g->base;
}

typedef struct step_case {
    ct_module *model;
    ct_optimizer *opt;
    ct_tensor *x, *y;
} step_case;

static void train_step(void *p)
{
    step_case *c = (step_case *)p;
    ct_scope s = ct_scope_begin();
    ct_optim_zero_grad(c->opt, true);
    ct_tensor *logits = ct_forward(c->model, c->x);
    ct_tensor *loss = ct_cross_entropy(ct_view(logits, CT_SHAPE(-1, VOCAB)), ct_view(c->y, CT_SHAPE(-1)),
                                       ct_nll_loss_opts_init());
    ct_backward(loss, NULL, (ct_backward_opts){0});
    ct_optim_step(c->opt);
    ct_scope_end(s);
}

int main(void)
{
    ct_manual_seed(0);
    causal_mask = ct_triu(ct_ones(CT_SHAPE(SEQ, SEQ), CT_BOOL), 1);
    step_case c = {gpt_new(), NULL, ct_randint(0, VOCAB, CT_SHAPE(BATCH, SEQ), CT_I64, NULL),
                   ct_randint(0, VOCAB, CT_SHAPE(BATCH, SEQ), CT_I64, NULL)};
    ct_tensor_list params = ct_module_parameters(c.model, true);
    ct_adam_opts adamw = ct_adamw_opts_init();
    adamw.lr = 3e-4;
    c.opt = ct_adamw(params.tensors, params.n, adamw);
    bench_report("gpt_2x128_seq64_batch16_adamw_step", bench_time(train_step, &c));
    ct_optim_free(c.opt);
    ct_tensor_list_free(&params);
    ct_module_release(c.model);
    ct_release(c.x);
    ct_release(c.y);
    ct_release(causal_mask);
    return 0;
}
