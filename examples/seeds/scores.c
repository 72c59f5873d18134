/* Seed 004 (irregular selection and filling): the grade book of 4 classes,
 * 10 students and 7 subjects. index_select, take and masked_select pick
 * elements; where, index_fill and masked_fill make new tensors with some of
 * them replaced. The random scores follow the seed's flow: the 5x5 tensor of
 * the indexing section is drawn first, from the same seed. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

/* torch.floor(minval + (maxval-minval)*torch.rand(shape)).int() */
static ct_tensor *random_ints(ct_shape shape, int minval, int maxval)
{
    ct_tensor *u = ct_rand(shape, CT_DEFAULT, NULL);
    return ct_to(ct_floor(ct_add_scalar(ct_mul_scalar(u, ct_int(maxval - minval)), ct_int(minval))), CT_I32);
}

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_manual_seed(0);
    random_ints(CT_SHAPE(5, 5), 0, 10);                                     /* t of the indexing section */
    ct_tensor *scores = random_ints(CT_SHAPE(4, 10, 7), 0, 100);
    ct_print(scores);

    /* students 0, 5 and 9 of every class */
    ct_tensor *students = ct_from_array((int64_t[]){0, 5, 9}, CT_SHAPE(3), CT_I64);
    ct_print(ct_index_select(scores, 1, students));                        /* torch.index_select(scores,dim = 1,index = torch.tensor([0,5,9])) */
    /* and their subjects 1, 3 and 6 */
    ct_tensor *subjects = ct_from_array((int64_t[]){1, 3, 6}, CT_SHAPE(3), CT_I64);
    ct_print(ct_index_select(ct_index_select(scores, 1, students), 2, subjects)); /* q */

    /* take sees the input as 1-D: class 0 student 0 subject 0, class 2
     * student 4 subject 1, class 3 student 9 subject 6 */
    int64_t flat[] = {0 * 10 * 7 + 0, 2 * 10 * 7 + 4 * 7 + 1, 3 * 10 * 7 + 9 * 7 + 6};
    ct_print(ct_take(scores, ct_from_array(flat, CT_SHAPE(3), CT_I64)));   /* s = torch.take(scores, ...) */
    ct_print(ct_masked_select(scores, ct_ge_scalar(scores, ct_int(80))));  /* g = torch.masked_select(scores,scores>=80) */

    /* ifpass = torch.where(scores>60,torch.tensor(1),torch.tensor(0)) */
    ct_print(ct_where(ct_gt_scalar(scores, ct_int(60)), ct_scalar_tensor(ct_int(1), CT_DEFAULT),
                      ct_scalar_tensor(ct_int(0), CT_DEFAULT)));
    ct_print(ct_index_fill_scalar(scores, 1, students, ct_int(100)));      /* torch.index_fill(scores,dim = 1,index = torch.tensor([0,5,9]),value = 100) */
    ct_print(ct_masked_fill_scalar(scores, ct_lt_scalar(scores, ct_int(60)), ct_int(60))); /* b = torch.masked_fill(scores,scores<60,60) */
    ct_scope_end(s);
    return 0;
}
