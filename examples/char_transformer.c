/* A character-level language model: the small GPT of gpt.h learns the
 * bundled text (data/kjv.txt, Genesis and Exodus in the King James Version)
 * from random 64-character windows with AdamW, then writes text of its own.
 * Its PyTorch twin, char_transformer_torch.py, builds the same model from the
 * same seed and prints the same first losses (a twin named *_torch.py: the
 * suite checks its first losses in tests/test_nn.c rather than running the
 * whole training, as it runs the demo's).
 *     make char_transformer          (or: build/bin/char_transformer [steps]) */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpt.h"

enum { STEPS = 600, SAMPLE = 400 };

/* Print prompt and then SAMPLE characters drawn one at a time from the
 * model's next-character distribution, given the last GPT_SEQ characters. */
static void write_text(ct_module *model, const corpus *c, const char *prompt)
{
    int64_t ctx[GPT_SEQ + SAMPLE];
    int len = 0;
    for (const char *p = prompt; *p && len < GPT_SEQ; p++) ctx[len++] = c->id_of[(unsigned char)*p];
    printf("%s", prompt);
    ct_grad_mode mode = ct_no_grad();
    ct_module_eval(model);
    for (int i = 0; i < SAMPLE; i++) {
        ct_scope s = ct_scope_begin();
        int t = len < GPT_SEQ ? len : GPT_SEQ;
        ct_tensor *window = ct_from_array(ctx + len - t, CT_SHAPE(1, t), CT_I64);
        ct_tensor *last = ct_select(ct_select(ct_forward(model, window), 0, 0), 0, t - 1);
        ct_tensor *next = ct_multinomial(ct_softmax(last, -1, CT_DEFAULT), 1, false, NULL);
        ctx[len] = (int64_t)ct_item(next);
        putchar(c->chars[ctx[len++]]);
        ct_scope_end(s);
    }
    putchar('\n');
    ct_module_train(model, true);
    ct_grad_mode_restore(mode);
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : STEPS;
    corpus c;
    if (!corpus_load("data/kjv.txt", &c)) {
        fprintf(stderr, "cannot read data/kjv.txt (run from the repository root)\n");
        return 1;
    }
    printf("%lld characters, %d distinct\n", (long long)ct_numel(c.ids), c.vocab);
    ct_manual_seed(0);
    ct_module *model = gpt_new(c.vocab);
    ct_tensor_list params;
    ct_optimizer *opt = gpt_adamw(model, &params);
    for (int step = 0; step < steps; step++) {
        ct_scope s = ct_scope_begin();
        ct_tensor *x, *y;
        corpus_batch(&c, &x, &y);
        ct_tensor *loss = gpt_train_step(model, opt, x, y);
        if (!loss) {
            fprintf(stderr, "step %d: %s\n", step, ct_last_error());
            return 1;
        }
        if (step < 3 || (step + 1) % 100 == 0) printf("step %4d  loss %.4f\n", step + 1, ct_item(loss));
        ct_scope_end(s);
    }
    write_text(model, &c, "And God said");
    ct_optim_free(opt);
    ct_tensor_list_free(&params);
    ct_module_release(model);
    ct_release(c.ids);
    return 0;
}
