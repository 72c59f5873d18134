/* One training step (zero_grad, forward, cross-entropy, backward, AdamW) of
 * the small GPT-style model of examples/gpt.h (2 pre-norm blocks, width
 * 128, 4 heads) on a 65-character vocabulary, sequence 64, batch 16
 * (issue target: at least 1.5x PyTorch). */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include "bench.h"

#include "../examples/gpt.h"

enum { VOCAB = 65 };

typedef struct step_case {
    ct_module *model;
    ct_optimizer *opt;
    ct_tensor *x, *y;
} step_case;

static void train_step(void *p)
{
    step_case *c = (step_case *)p;
    ct_scope s = ct_scope_begin();
    gpt_train_step(c->model, c->opt, c->x, c->y);
    ct_scope_end(s);
}

int main(void)
{
    ct_manual_seed(0);
    step_case c = {gpt_new(VOCAB), NULL, ct_randint(0, VOCAB, CT_SHAPE(GPT_BATCH, GPT_SEQ), CT_I64, NULL),
                   ct_randint(0, VOCAB, CT_SHAPE(GPT_BATCH, GPT_SEQ), CT_I64, NULL)};
    ct_tensor_list params;
    c.opt = gpt_adamw(c.model, &params);
    bench_report("gpt_2x128_seq64_batch16_adamw_step", bench_time(train_step, &c));
    ct_optim_free(c.opt);
    ct_tensor_list_free(&params);
    ct_module_release(c.model);
    ct_release(c.x);
    ct_release(c.y);
    return 0;
}
