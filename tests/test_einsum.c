/* einsum, tensordot, kron and cross against PyTorch: every case of
 * tests/golden/einsum.txt (gen_einsum.py) replays the call on the same inputs
 * and views and checks the output bit for bit, the recorded graph (node names
 * down to the leaves: einsum's pairwise bmm and tensordot's mm are checked
 * this way) and the inputs' gradients. Then gradcheck and gradgradcheck in
 * float64 for each op. Bad input: tests/test_errors_einsum.c. */
#include "harness.h"

/* ---------------------------------------------------------------- replaying golden cases */

/* "1,0;0,1" as two dim lists. */
static void parse_dims(const char *arg, ct_shape *a, ct_shape *b)
{
    ct_shape *cur = a;
    *a = *b = CT_SHAPE0;
    for (const char *p = arg; *p;) {
        if (*p == ';') cur = b, p++;
        else if (*p == ',') p++;
        else {
            char *end;
            cur->size[cur->ndim++] = strtoll(p, &end, 10);
            p = end;
        }
    }
}

static ct_tensor *run_op(const char *op, const char *arg, ct_tensor *const *x, int n)
{
    if (!strcmp(op, "einsum")) return ct_einsum(arg, x, n);
    if (!strcmp(op, "tensordot")) return ct_tensordot(x[0], x[1], strtoll(arg, NULL, 10));
    if (!strcmp(op, "tensordot_dims")) {
        ct_shape a, b;
        parse_dims(arg, &a, &b);
        return ct_tensordot_dims(x[0], x[1], a, b);
    }
    if (!strcmp(op, "kron")) return ct_kron(x[0], x[1]);
    if (!strcmp(op, "cross")) return ct_cross(x[0], x[1]);
    if (!strcmp(op, "cross_dim")) return ct_cross_dim(x[0], x[1], atoi(arg));
    if (!strcmp(op, "linalg_cross")) return ct_linalg_cross(x[0], x[1], atoi(arg));
    return NULL;
}

static void replay(char **f)
{
    char name[64], what[160];
    const char *cid = f[0], *op = f[1], *arg = f[2], *views = f[3];
    int n = (int)strlen(views);
    ct_tensor *x[8];
    bool floating = strcmp(f[5], "-") != 0;
    snprintf(what, sizeof what, "case %.16s: %.16s '%.40s' %.8s", cid, op, arg, views);
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "c%.16s_x%d", cid, i);
        x[i] = ct_test_view_of(ct_clone(golden("einsum", name)), views[i]);
        if (floating && x[i]) {
            x[i] = ct_detach(x[i]);
            ct_requires_grad_(x[i], true);
        }
    }
    ct_tensor *out = run_op(op, arg, x, n);
    if (!out) {
        ct_test_fail(__FILE__, __LINE__, "%s failed: %s", what, ct_last_error());
        return;
    }
    snprintf(name, sizeof name, "c%.16s_out", cid);
    CHECK_TENSOR(out, golden("einsum", name), 0);
    if (!floating) return;
    ct_test_check_graph_and_grads("einsum", what, cid, out, x, n, f[5]);
}

static void test_golden(void) { CHECK(ct_test_each_case("tests/golden/einsum.txt", 6, replay) == 292); }

/* ---------------------------------------------------------------- gradcheck */

typedef struct grad_case {
    const char *op, *arg;
    int n;
    ct_shape shapes[4];
} grad_case;

static int run_case(ct_tensor *const *in, int n, ct_tensor **out, void *user)
{
    const grad_case *c = (const grad_case *)user;
    out[0] = run_op(c->op, c->arg, in, n);
    return out[0] ? 1 : -1;
}

static void test_gradcheck(void)
{
    const grad_case cases[] = {
        {"einsum", "ij,jk->ik", 2, {CT_SHAPE(3, 4), CT_SHAPE(4, 2)}},
        {"einsum", "bij,bjk->bik", 2, {CT_SHAPE(2, 3, 4), CT_SHAPE(2, 4, 2)}},
        {"einsum", "i,j->ij", 2, {CT_SHAPE(3), CT_SHAPE(4)}},
        {"einsum", "i,i", 2, {CT_SHAPE(5), CT_SHAPE(5)}},
        {"einsum", "ii", 1, {CT_SHAPE(4, 4)}},
        {"einsum", "ii->i", 1, {CT_SHAPE(4, 4)}},
        {"einsum", "iij->j", 1, {CT_SHAPE(3, 3, 2)}},
        {"einsum", "ij->ji", 1, {CT_SHAPE(2, 3)}},
        {"einsum", "ijk->j", 1, {CT_SHAPE(2, 3, 4)}},
        {"einsum", "ij,kj->ik", 2, {CT_SHAPE(1, 3), CT_SHAPE(4, 3)}},
        {"einsum", "ij,jk->i", 2, {CT_SHAPE(3, 4), CT_SHAPE(4, 2)}},
        {"einsum", "...ij,...jk->...ik", 2, {CT_SHAPE(2, 1, 3, 4), CT_SHAPE(3, 4, 2)}},
        {"einsum", "ii...->i...", 1, {CT_SHAPE(3, 3, 2)}},
        {"einsum", "ij,jk,kl->il", 3, {CT_SHAPE(2, 3), CT_SHAPE(3, 4), CT_SHAPE(4, 2)}},
        {"einsum", "bn,anm,bm->ba", 3, {CT_SHAPE(2, 3), CT_SHAPE(4, 3, 2), CT_SHAPE(2, 2)}},
        {"einsum", "ab,bc,cd,de->ae", 4, {CT_SHAPE(2, 3), CT_SHAPE(3, 2), CT_SHAPE(2, 2), CT_SHAPE(2, 3)}},
        {"tensordot", "2", 2, {CT_SHAPE(2, 3, 4), CT_SHAPE(3, 4, 2)}},
        {"tensordot", "0", 2, {CT_SHAPE(2, 3), CT_SHAPE(2)}},
        {"tensordot_dims", "1,0;0,1", 2, {CT_SHAPE(3, 4, 2), CT_SHAPE(4, 3, 2)}},
        {"tensordot_dims", "1;1", 2, {CT_SHAPE(2, 1, 4), CT_SHAPE(4, 2, 3)}},
        {"kron", "-", 2, {CT_SHAPE(2, 3), CT_SHAPE(2, 2)}},
        {"kron", "-", 2, {CT_SHAPE(3), CT_SHAPE(2, 2)}},
        {"cross", "-", 2, {CT_SHAPE(4, 3), CT_SHAPE(4, 3)}},
        {"cross_dim", "0", 2, {CT_SHAPE(3, 2), CT_SHAPE(3, 2)}},
        {"linalg_cross", "-1", 2, {CT_SHAPE(1, 3), CT_SHAPE(4, 3)}},
    };
    ct_manual_seed(1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ct_scope s = ct_scope_begin();
        const grad_case *c = &cases[i];
        ct_tensor *in[4];
        for (int k = 0; k < c->n; k++) {
            in[k] = ct_randn(c->shapes[k], CT_F64, NULL);
            ct_requires_grad_(in[k], true);
        }
        if (ct_gradcheck(run_case, in, c->n, (void *)c, ct_gradcheck_opts_init()) != CT_OK ||
            ct_gradgradcheck(run_case, in, c->n, (void *)c, ct_gradcheck_opts_init()) != CT_OK)
            ct_test_fail(__FILE__, __LINE__, "%s '%s': %s", c->op, c->arg, ct_last_error());
        ct_scope_end(s);
    }
}

int main(void)
{
    RUN(test_golden);
    RUN(test_gradcheck);
    return ct_test_report();
}
