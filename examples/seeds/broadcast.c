/* Seed 004 (broadcasting): a 1-D tensor added to a 2-D one is repeated along
 * the missing leading dim; torch.broadcast_tensors makes that expansion
 * explicit, as views of the inputs. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <stdio.h>

/* print(t, "\n"): repr, print's separating space, the "\n" argument, and
 * print's own newline. */
static void print_and_blank_line(const ct_tensor *t)
{
    char buf[1024];
    ct_to_string(t, buf, sizeof buf);
    printf("%s \n\n", buf);
}

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *a = ct_from_array((int64_t[]){1, 2, 3}, CT_SHAPE(3), CT_I64);                      /* torch.tensor([1,2,3]) */
    ct_tensor *b = ct_from_array((int64_t[]){0, 0, 0, 1, 1, 1, 2, 2, 2}, CT_SHAPE(3, 3), CT_I64); /* torch.tensor([[0,0,0],[1,1,1],[2,2,2]]) */
    ct_print(ct_add(b, a));                                    /* print(b + a) */

    ct_tensor *inputs[2] = {a, b}, *broad[2];
    ct_broadcast_tensors(inputs, 2, broad);                    /* a_broad,b_broad = torch.broadcast_tensors(a,b) */
    print_and_blank_line(broad[0]);                            /* print(a_broad,"\n") */
    print_and_blank_line(broad[1]);                            /* print(b_broad,"\n") */
    ct_print(ct_add(broad[0], broad[1]));                      /* print(a_broad + b_broad) */
    ct_scope_end(s);
    return 0;
}
