/* Autograd of joining, splitting, indexing and copying: every op's node name
 * as PyTorch 1.13 prints it, its gradients against finite differences
 * (gradcheck) and its gradients' gradients (gradgradcheck), in-place forms,
 * and the errors PyTorch gives. */
#include "harness.h"

typedef struct grad_case {
    const char *name; /* grad_fn.name() of the first output */
    /* out[0..k) from in[0..n_in); returns k */
    int (*fn)(ct_tensor *const *in, ct_tensor **out);
    int n_in;
    ct_shape shapes[3];
} grad_case;

static ct_tensor *i64s(ct_shape shape, const int64_t *v) { return ct_from_array(v, shape, CT_I64); }

static int cat0(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_cat(in, 2, 0);
    return 1;
}
static int cat_last(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_cat(in, 2, -1);
    return 1;
}
static int cat_legacy_empty(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_mul(ct_cat(in, 2, 1), ct_cat(in, 2, 1)); /* in[1] is the skipped shape [0] */
    return 1;
}
static int stack1(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_stack(in, 2, 1);
    return 1;
}
static int stack_last(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_stack(in, 2, -1);
    return 1;
}
static int hstack(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_hstack(in, 2);
    return 1;
}
static int vstack(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_vstack(in, 2);
    return 1;
}
static int split2(ct_tensor *const *in, ct_tensor **out)
{
    ct_tensor *p[3];
    CHECK(ct_split(in[0], 2, 0, p, 3) == 3);
    out[0] = ct_mul(p[0], p[0]);
    out[1] = p[2]; /* p[1] gets no gradient: zeros take its place */
    return 2;
}
static int split_sizes(ct_tensor *const *in, ct_tensor **out)
{
    ct_tensor *p[2];
    CHECK(ct_split_with_sizes(in[0], CT_SHAPE(1, 2), -1, p, 2) == 2);
    out[0] = p[1];
    out[1] = ct_exp(p[0]);
    return 2;
}
static int chunk(ct_tensor *const *in, ct_tensor **out)
{
    ct_tensor *p[2];
    CHECK(ct_chunk(in[0], 2, 1, p, 2) == 2);
    out[0] = p[0];
    out[1] = ct_mul(p[1], p[1]);
    return 2;
}
static int unbind(ct_tensor *const *in, ct_tensor **out)
{
    ct_tensor *p[3];
    CHECK(ct_unbind(in[0], 1, p, 3) == 3);
    out[0] = p[2];
    out[1] = ct_mul(p[0], p[1]);
    return 2;
}
static int repeat(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_mul(ct_repeat(in[0], CT_SHAPE(2, 1, 3)), ct_repeat(in[0], CT_SHAPE(2, 1, 3)));
    return 1;
}
static int tile(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_tile(in[0], CT_SHAPE(2, 2));
    return 1;
}
static int repeat_interleave(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_repeat_interleave_dim(in[0], 2, 0);
    return 1;
}
static int flip(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_mul(ct_flip(in[0], CT_SHAPE(0, -1)), in[0]);
    return 1;
}
static int roll(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_mul(ct_roll(in[0], CT_SHAPE(1, -2), CT_SHAPE(0, 1)), in[0]);
    return 1;
}
static int roll_flat(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_mul(ct_roll(in[0], CT_SHAPE(5), CT_SHAPE0), in[0]);
    return 1;
}
static int gather(ct_tensor *const *in, ct_tensor **out)
{
    const int64_t ix[] = {0, 3, 3, 1, 2, 2, 0, 0};
    out[0] = ct_mul(ct_gather(in[0], 1, i64s(CT_SHAPE(2, 4), ix)), ct_gather(in[0], 1, i64s(CT_SHAPE(2, 4), ix)));
    return 1;
}
static const int64_t scatter_ix[] = {2, 0, 1, 0, 1, 2}; /* distinct in each column: no write order to depend on */
static int scatter(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_mul(ct_scatter(in[0], 0, i64s(CT_SHAPE(2, 3), scatter_ix), in[1]), in[0]);
    return 1;
}
static int scatter_value(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_mul(ct_scatter_scalar(in[0], 0, i64s(CT_SHAPE(2, 3), scatter_ix), ct_float(2.5)), in[0]);
    return 1;
}
static int scatter_add(ct_tensor *const *in, ct_tensor **out)
{
    const int64_t ix[] = {1, 1, 0, 1, 1, 2};
    ct_tensor *r = ct_scatter_add(in[0], 0, i64s(CT_SHAPE(2, 3), ix), in[1]);
    out[0] = ct_mul(r, r);
    return 1;
}
static int index_select(ct_tensor *const *in, ct_tensor **out)
{
    const int64_t ix[] = {0, 2, 2};
    ct_tensor *r = ct_index_select(in[0], -1, i64s(CT_SHAPE(3), ix));
    out[0] = ct_mul(r, r);
    return 1;
}
static int index_add(ct_tensor *const *in, ct_tensor **out)
{
    const int64_t ix[] = {3, 1, 3};
    ct_tensor *r = ct_index_add_alpha(in[0], 0, i64s(CT_SHAPE(3), ix), in[1], ct_float(-1.5));
    out[0] = ct_mul(r, r);
    return 1;
}
static int index_add_inplace(ct_tensor *const *in, ct_tensor **out)
{
    const int64_t ix[] = {3, 1, 3};
    ct_tensor *r = ct_mul(in[0], in[0]);
    CHECK_OK(ct_index_add_alpha_(r, 0, i64s(CT_SHAPE(3), ix), in[1], ct_int(2)));
    out[0] = r;
    return 1;
}
static int index_fill(ct_tensor *const *in, ct_tensor **out)
{
    const int64_t ix[] = {1, -1};
    out[0] = ct_mul(ct_index_fill_scalar(in[0], 1, i64s(CT_SHAPE(2), ix), ct_float(0.5)), in[0]);
    return 1;
}
static int index_fill_tensor(ct_tensor *const *in, ct_tensor **out)
{
    const int64_t ix[] = {0, 2};
    ct_tensor *r = ct_index_fill(in[0], 0, i64s(CT_SHAPE(2), ix), in[1]);
    out[0] = ct_mul(r, r);
    return 1;
}
static int index_copy(ct_tensor *const *in, ct_tensor **out)
{
    const int64_t ix[] = {3, 0};
    ct_tensor *r = ct_index_copy(in[0], 0, i64s(CT_SHAPE(2), ix), in[1]);
    out[0] = ct_mul(r, r);
    return 1;
}
static ct_tensor *a_mask(void)
{
    const bool m[] = {true, false, true};
    return ct_from_array(m, CT_SHAPE(3), CT_BOOL);
}
static int masked_fill(ct_tensor *const *in, ct_tensor **out)
{
    ct_tensor *r = ct_masked_fill_scalar(in[0], a_mask(), ct_int(3));
    out[0] = ct_mul(r, r);
    return 1;
}
static int masked_fill_tensor(ct_tensor *const *in, ct_tensor **out)
{
    ct_tensor *r = ct_mul(in[0], in[0]);
    CHECK_OK(ct_masked_fill_(r, a_mask(), in[1]));
    out[0] = ct_mul(r, in[1]);
    return 1;
}
static int masked_select(ct_tensor *const *in, ct_tensor **out)
{
    ct_tensor *r = ct_masked_select(in[0], a_mask()); /* the mask broadcasts over rows */
    out[0] = ct_mul(r, r);
    return 1;
}
static int masked_select_broadcast_self(ct_tensor *const *in, ct_tensor **out)
{
    const bool m[] = {true, false, false, true, true, true};
    ct_tensor *r = ct_masked_select(in[0], ct_from_array(m, CT_SHAPE(2, 3), CT_BOOL)); /* self (3) broadcasts */
    out[0] = ct_mul(r, r);
    return 1;
}
static int take(ct_tensor *const *in, ct_tensor **out)
{
    const int64_t ix[] = {0, -1, 5, 5};
    ct_tensor *r = ct_take(in[0], i64s(CT_SHAPE(2, 2), ix));
    out[0] = ct_mul(r, r);
    return 1;
}


static int copy_broadcast(ct_tensor *const *in, ct_tensor **out)
{
    ct_tensor *z = ct_zeros(CT_SHAPE(2, 3), CT_F64);
    CHECK_OK(ct_copy_(z, in[0])); /* in[0] (3) broadcasts into z */
    out[0] = ct_mul(z, z);
    return 1;
}
static int copy_over(ct_tensor *const *in, ct_tensor **out)
{
    ct_tensor *y = ct_mul(in[0], in[0]);
    CHECK_OK(ct_copy_(y, in[1])); /* y's old values (and in[0]) no longer matter */
    out[0] = ct_mul(y, in[0]);
    return 1;
}
static int fill(ct_tensor *const *in, ct_tensor **out)
{
    ct_tensor *y = ct_mul(in[0], in[0]), *z = ct_mul_scalar(in[0], ct_int(2));
    CHECK_OK(ct_fill_(y, ct_float(2)));
    CHECK_OK(ct_zero_(z));
    out[0] = ct_add(ct_mul(y, in[0]), z);
    return 1;
}
static int clone_contiguous(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_mul(ct_clone(in[0]), ct_contiguous(ct_t(in[0])));
    return 1;
}
static int diag(ct_tensor *const *in, ct_tensor **out)
{
    ct_tensor *d = ct_diag(in[0], 1);
    out[0] = ct_mul(d, d);
    return 1;
}
static int diag_of_matrix(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_mul(ct_diag(in[0], 1), ct_diag(in[0], 1));
    out[1] = ct_exp(ct_diag(in[0], -1));
    return 2;
}
static int triangles(ct_tensor *const *in, ct_tensor **out)
{
    out[0] = ct_mul(ct_tril(in[0], 1), ct_triu(in[0], -1));
    return 1;
}

static int advanced_index(ct_tensor *const *in, ct_tensor **out)
{
    const int64_t rows[] = {2, 0, 2};
    ct_tensor *r = ct_index(in[0], "1:, %t, None", i64s(CT_SHAPE(3), rows)); /* basic, then advanced, indexing */
    out[0] = ct_mul(r, r);
    out[1] = ct_index(in[0], "[0, -1], ::2"); /* a list, repeated in the gradient */
    return 2;
}

static int index_put(ct_tensor *const *in, ct_tensor **out)
{
    const int64_t rows[] = {2, 0};
    ct_tensor *y = ct_mul(in[0], in[0]), *z = ct_mul_scalar(in[0], ct_int(2));
    CHECK_OK(ct_index_put_(y, in[1], "%t", i64s(CT_SHAPE(2), rows))); /* value (1, 2) broadcasts over 2 rows */
    CHECK_OK(ct_index_put_(z, ct_mul_scalar(in[1], ct_int(3)), "1:, 0")); /* through a view: value (1, 2) as (2) */
    out[0] = ct_mul(y, in[0]);
    out[1] = ct_mul(z, z);
    return 2;
}

static int run_case(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    (void)n;
    ct_scope s = ct_scope_begin();
    int k = ((const grad_case *)user)->fn(in, out);
    for (int i = 0; i < k; i++) ct_keep(out[i]);
    ct_scope_end(s);
    return k;
}

static void test_gradients_against_finite_differences(void)
{
    const grad_case cases[] = {
        {"CatBackward0", cat0, 2, {CT_SHAPE(2, 3), CT_SHAPE(4, 3)}},
        {"CatBackward0", cat_last, 2, {CT_SHAPE(2, 3), CT_SHAPE(2, 1)}},
        {"MulBackward0", cat_legacy_empty, 2, {CT_SHAPE(2, 3), CT_SHAPE(0)}},
        {"StackBackward0", stack1, 2, {CT_SHAPE(2, 3), CT_SHAPE(2, 3)}},
        {"StackBackward0", stack_last, 2, {CT_SHAPE(2, 3), CT_SHAPE(2, 3)}},
        {"CatBackward0", hstack, 2, {CT_SHAPE0, CT_SHAPE(2)}},
        {"CatBackward0", vstack, 2, {CT_SHAPE(3), CT_SHAPE(2, 3)}},
        {"MulBackward0", split2, 1, {CT_SHAPE(5, 2)}},
        {"SplitWithSizesBackward0", split_sizes, 1, {CT_SHAPE(2, 3)}},
        {"SplitBackward0", chunk, 1, {CT_SHAPE(2, 3)}},
        {"UnbindBackward0", unbind, 1, {CT_SHAPE(2, 3)}},
        {"MulBackward0", repeat, 1, {CT_SHAPE(2, 3)}},
        {"RepeatBackward0", tile, 1, {CT_SHAPE(3)}},
        {"IndexSelectBackward0", repeat_interleave, 1, {CT_SHAPE(2, 3)}},
        {"MulBackward0", flip, 1, {CT_SHAPE(2, 3)}},
        {"MulBackward0", roll, 1, {CT_SHAPE(3, 4)}},
        {"MulBackward0", roll_flat, 1, {CT_SHAPE(3, 4)}},
        {"MulBackward0", gather, 1, {CT_SHAPE(3, 4)}},
        {"MulBackward0", scatter, 2, {CT_SHAPE(3, 3), CT_SHAPE(2, 3)}},
        {"MulBackward0", scatter_value, 1, {CT_SHAPE(3, 3)}},
        {"MulBackward0", scatter_add, 2, {CT_SHAPE(3, 3), CT_SHAPE(2, 3)}},
        {"MulBackward0", index_select, 1, {CT_SHAPE(2, 3)}},
        {"MulBackward0", index_add, 2, {CT_SHAPE(4, 2), CT_SHAPE(3, 2)}},
        {"IndexAddBackward0", index_add_inplace, 2, {CT_SHAPE(4, 2), CT_SHAPE(3, 2)}},
        {"MulBackward0", index_fill, 1, {CT_SHAPE(2, 3)}},
        {"MulBackward0", index_fill_tensor, 2, {CT_SHAPE(3, 2), CT_SHAPE0}},
        {"MulBackward0", index_copy, 2, {CT_SHAPE(4, 2), CT_SHAPE(2, 2)}},
        {"MulBackward0", masked_fill, 1, {CT_SHAPE(2, 3)}},
        {"MulBackward0", masked_fill_tensor, 2, {CT_SHAPE(2, 3), CT_SHAPE0}},
        {"MulBackward0", masked_select, 1, {CT_SHAPE(2, 3)}},
        {"MulBackward0", masked_select_broadcast_self, 1, {CT_SHAPE(3)}},
        {"MulBackward0", take, 1, {CT_SHAPE(2, 3)}},
        {"MulBackward0", copy_broadcast, 1, {CT_SHAPE(3)}},
        {"MulBackward0", copy_over, 2, {CT_SHAPE(2, 2), CT_SHAPE(2)}},
        {"AddBackward0", fill, 1, {CT_SHAPE(3)}},
        {"MulBackward0", clone_contiguous, 1, {CT_SHAPE(3, 3)}},
        {"MulBackward0", diag, 1, {CT_SHAPE(3)}},
        {"MulBackward0", diag_of_matrix, 1, {CT_SHAPE(3, 4)}},
        {"MulBackward0", triangles, 1, {CT_SHAPE(3, 4)}},
        {"MulBackward0", advanced_index, 1, {CT_SHAPE(3, 3, 2)}},
        {"MulBackward0", index_put, 2, {CT_SHAPE(3, 2), CT_SHAPE(1, 2)}},
    };
    ct_manual_seed(0);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const grad_case *gc = &cases[c];
        ct_scope s = ct_scope_begin();
        ct_tensor *in[3], *out[8];
        for (int i = 0; i < gc->n_in; i++) {
            in[i] = ct_randn(gc->shapes[i], CT_F64, NULL);
            ct_requires_grad_(in[i], true);
        }
        int k = run_case(in, gc->n_in, out, (void *)gc);
        CHECK(k > 0 && out[0]);
        if (k > 0 && out[0]) CHECK_STR(ct_node_name(ct_grad_fn(out[0])), gc->name);
        CHECK_OK(ct_gradcheck(run_case, in, gc->n_in, (void *)gc, ct_gradcheck_opts_init()));
        CHECK_OK(ct_gradgradcheck(run_case, in, gc->n_in, (void *)gc, ct_gradcheck_opts_init()));
        ct_scope_end(s);
    }
}

/* The node each op records, for the forms the gradcheck cases wrap in a product. */
static void test_node_names(void)
{
    ct_tensor *x = ct_randn(CT_SHAPE(3, 3), CT_F32, NULL), *y = ct_randn(CT_SHAPE(2, 3), CT_F32, NULL);
    ct_requires_grad_(x, true);
    ct_requires_grad_(y, true);
    const int64_t ix[] = {0, 1, 2, 2, 0, 1};
    ct_tensor *i2 = i64s(CT_SHAPE(2, 3), ix), *i1 = i64s(CT_SHAPE(2), ix + 1), *v = ct_scalar_tensor(ct_float(1), CT_F32);
    ct_tensor *pieces[3];
    struct {
        ct_tensor *t;
        const char *name;
    } named[] = {
        {ct_flip(x, CT_SHAPE(0)), "FlipBackward0"},
        {ct_roll(x, CT_SHAPE(1), CT_SHAPE0), "RollBackward0"},
        {ct_repeat(x, CT_SHAPE(2, 1)), "RepeatBackward0"},
        {ct_gather(x, 0, i2), "GatherBackward0"},
        {ct_scatter(x, 0, i2, y), "ScatterBackward0"},
        {ct_scatter_scalar(x, 0, i2, ct_int(1)), "ScatterBackward1"},
        {ct_scatter_with_reduce(x, 0, i2, y, "add"), "torch::autograd::NotImplemented"},
        {ct_scatter_add(x, 0, i2, y), "ScatterAddBackward0"},
        {ct_index_select(x, 0, i1), "IndexSelectBackward0"},
        {ct_index_add(x, 0, i1, y), "IndexAddBackward0"},
        {ct_index_fill_scalar(x, 0, i1, ct_int(1)), "IndexFillBackward0"},
        {ct_index_fill(x, 0, i1, v), "IndexFillBackward1"},
        {ct_index_copy(x, 0, i1, y), "IndexCopyBackward0"},
        {ct_masked_fill_scalar(x, ct_gt_scalar(x, ct_int(0)), ct_int(1)), "MaskedFillBackward0"},
        {ct_masked_fill(x, ct_gt_scalar(x, ct_int(0)), v), "MaskedFillBackward1"},
        {ct_masked_select(x, ct_gt_scalar(x, ct_int(0))), "MaskedSelectBackward0"},
        {ct_take(x, i1), "TakeBackward0"},
        {ct_index(x, "%t", i1), "IndexBackward0"},
        {ct_index(x, "%t", ct_gt_scalar(x, ct_int(0))), "IndexBackward0"},
        {ct_index(x, "1:, 0"), "SelectBackward0"},
        {(ct_split(x, 2, 0, pieces, 3), pieces[1]), "SplitBackward0"},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) CHECK_STR(ct_node_name(ct_grad_fn(named[i].t)), named[i].name);
    ct_tensor *z = ct_mul_scalar(x, ct_int(1)); /* in-place forms record their out-of-place node */
    CHECK_OK(ct_scatter_(z, 0, i2, y));
    CHECK_STR(ct_node_name(ct_grad_fn(z)), "ScatterBackward0");
    CHECK(ct_version(z) == 1);
    CHECK_OK(ct_masked_fill_scalar_(z, ct_gt_scalar(x, ct_int(0)), ct_int(0)));
    CHECK_STR(ct_node_name(ct_grad_fn(z)), "MaskedFillBackward0");
    CHECK(ct_version(z) == 2);
}

static void test_copies(void)
{
    ct_tensor *x = ct_from_array((float[]){1, 2, 3}, CT_SHAPE(3), CT_F32);
    ct_requires_grad_(x, true);
    ct_tensor *y = ct_mul(x, x), *z = ct_zeros(CT_SHAPE(3), CT_F64);
    CHECK_STR(ct_node_name(ct_grad_fn(ct_clone(x))), "CloneBackward0");
    CHECK_STR(ct_node_name(ct_grad_fn(ct_contiguous(ct_expand(x, CT_SHAPE(2, 3))))), "CloneBackward0");
    CHECK(ct_contiguous(x) == x || ct_grad_fn(ct_contiguous(x)) == NULL); /* already contiguous: x itself */
    ct_tensor *d = ct_to(x, CT_F64);
    CHECK_STR(ct_node_name(ct_grad_fn(d)), "ToCopyBackward0");
    CHECK(ct_grad_fn(ct_to(x, CT_F32)) == NULL);
    CHECK_STR(ct_node_name(ct_grad_fn(ct_diag(x, 0))), "DiagBackward0");
    CHECK_OK(ct_copy_(z, y));
    CHECK_STR(ct_node_name(ct_grad_fn(z)), "torch::autograd::CopyBackwards");
    CHECK_OK(ct_backward(ct_sum(ct_add(ct_mul_scalar(d, ct_int(3)), z)), NULL, (ct_backward_opts){false, false, NULL, 0}));
    ct_tensor *g = ct_grad(x); /* 3 + 2x, cast back to float32 */
    CHECK(g && ct_dtype_of(g) == CT_F32);
    CHECK_VALUES(g, CT_SHAPE(3), 5, 7, 9);
    CHECK_OK(ct_fill_(y, ct_int(1)));
    CHECK_STR(ct_node_name(ct_grad_fn(y)), "FillBackward2");
    CHECK_OK(ct_zero_(y));
    CHECK_STR(ct_node_name(ct_grad_fn(y)), "ZeroBackward0");
    CHECK(ct_version(y) == 2);
    ct_tensor *before = ct_clone(ct_detach(x));
    CHECK_FAILS(ct_fill_(x, ct_int(0)), CT_ERR_RUNTIME,
                "a leaf Variable that requires grad is being used in an in-place operation.");
    CHECK_FAILS(ct_copy_(x, before), CT_ERR_RUNTIME,
                "a leaf Variable that requires grad is being used in an in-place operation.");
    CHECK(ct_equal(x, before) && ct_version(x) == 0);
    ct_tensor *one = ct_ones(CT_SHAPE0, CT_F32), *w = ct_mul(x, x);
    CHECK_FAILS(ct_index_put_(x, one, "0"), CT_ERR_RUNTIME,
                "a view of a leaf Variable that requires grad is being used in an in-place operation.");
    CHECK_FAILS(ct_index_put_(x, one, "%t", ct_gt_scalar(x, ct_int(0))), CT_ERR_RUNTIME,
                "a leaf Variable that requires grad is being used in an in-place operation.");
    CHECK(ct_equal(x, before) && ct_version(x) == 0);
    CHECK_OK(ct_index_put_(w, one, "1:"));
    CHECK_STR(ct_node_name(ct_grad_fn(w)), "torch::autograd::CopySlices");
    CHECK_OK(ct_index_put_(w, one, "%t", ct_gt_scalar(x, ct_int(0))));
    CHECK_STR(ct_node_name(ct_grad_fn(w)), "IndexPutBackward0");
    CHECK(ct_version(w) == 2);
}

static void test_errors(void)
{
    ct_tensor *x = ct_randn(CT_SHAPE(3, 3), CT_F32, NULL), *y = ct_randn(CT_SHAPE(2, 3), CT_F32, NULL);
    ct_requires_grad_(x, true);
    const int64_t ix[] = {0, 1, 2, 2, 0, 1};
    ct_tensor *i2 = i64s(CT_SHAPE(2, 3), ix);
    ct_tensor *before = ct_clone(ct_detach(x));
    CHECK_FAILS(ct_scatter_(x, 0, i2, y), CT_ERR_RUNTIME,
                "a leaf Variable that requires grad is being used in an in-place operation.");
    CHECK_FAILS(ct_index_fill_scalar_(x, 0, i2, ct_int(1)), CT_ERR_RUNTIME,
                "a leaf Variable that requires grad is being used in an in-place operation.");
    CHECK(ct_equal(x, before) && ct_version(x) == 0);
    ct_tensor *r = ct_sum(ct_scatter_with_reduce(x, 0, i2, y, "multiply"));
    CHECK_FAILS(ct_backward(r, NULL, (ct_backward_opts){false, false, NULL, 0}), CT_ERR_RUNTIME,
                "derivative for aten::scatter is not implemented");
    /* a saved index written in place is caught, as any saved tensor */
    const int64_t j[] = {0, 2};
    ct_tensor *i1 = i64s(CT_SHAPE(2), j), *g = ct_sum(ct_index_select(x, 0, i1));
    CHECK_OK(ct_fill_(i1, ct_int(1)));
    CHECK_FAILS(ct_backward(g, NULL, (ct_backward_opts){false, false, NULL, 0}), CT_ERR_RUNTIME,
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                "[torch.LongTensor [2]] is at version 1; expected version 0 instead. Hint: enable anomaly detection "
                "to find the operation that failed to compute its gradient, with "
                "torch.autograd.set_detect_anomaly(True).");
}

int main(void)
{
    RUN(test_gradients_against_finite_differences);
    RUN(test_node_names);
    RUN(test_copies);
    RUN(test_errors);
    return ct_test_report();
}
