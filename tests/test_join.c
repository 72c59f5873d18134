/* Joining, splitting and index-based ops against PyTorch: every case of
 * tests/golden/join.txt (values bit for bit, strides and storage offsets, or
 * the exact error), the seed examples, and what the listing cannot express:
 * NULL arguments, output arrays, memory overlap, views sharing storage, and
 * large tensors that take the parallel paths. */
#include "harness.h"

/* ---------------------------------------------------------------- parsing the listing */

#define MAX_FIELDS 12
#define MAX_LIST 16
#define MAX_OUT 64

typedef struct arg {
    ct_tensor *t;
    ct_tensor *list[MAX_LIST];
    int n;
    int64_t i;
    ct_shape s;
    ct_scalar num;
    const char *str;
} arg;

static int split(char *line, char **fields, int n, char sep)
{
    int k = 0;
    fields[k++] = line;
    for (char *p = line; *p && k < n; p++)
        if (*p == sep) {
            *p = 0;
            fields[k++] = p + 1;
        }
    return k;
}

static ct_shape parse_ints(const char *s)
{
    int64_t v[CT_MAX_DIMS];
    int n = 0;
    while (*s && n < CT_MAX_DIMS) {
        char *end;
        v[n++] = strtoll(s, &end, 10);
        s = *end == ',' ? end + 1 : end;
    }
    return ct_shape_make(n, v);
}

/* "name~T~S~P~E3,4": a stored tensor (a fresh copy to be written when
 * `fresh`) seen through the views, as the generator applied them. */
static ct_tensor *parse_tensor(char *spec, int fresh)
{
    char *part[8];
    int n = split(spec, part, 8, '~');
    const ct_tensor *g = golden("join", part[0]);
    ct_tensor *t = fresh ? ct_clone(g) : (ct_tensor *)g;
    for (int k = 1; k < n && t; k++) {
        switch (part[k][0]) {
        case 'T': t = ct_transpose(t, -2, -1); break;
        case 'S': t = ct_slice(t, 0, 0, CT_END, 2); break;
        case 'P': t = ct_movedim(t, CT_DIMS(-1), CT_DIMS(1)); break;
        case 'E': t = ct_expand(t, parse_ints(part[k] + 1)); break;
        default: ct_test_fail(__FILE__, __LINE__, "unknown view %s", part[k]);
        }
    }
    return t;
}

static void parse_arg(char *field, arg *a, int fresh)
{
    memset(a, 0, sizeof *a);
    char *v = strchr(field, ':') + 1;
    if (!strncmp(field, "t:", 2)) {
        a->t = parse_tensor(v, fresh);
    } else if (!strncmp(field, "l:", 2)) {
        char *items[MAX_LIST];
        a->n = *v ? split(v, items, MAX_LIST, ';') : 0;
        for (int k = 0; k < a->n; k++) a->list[k] = parse_tensor(items[k], 0);
    } else if (!strncmp(field, "i:", 2)) {
        a->i = strtoll(v, NULL, 10);
    } else if (!strncmp(field, "s:", 2)) {
        a->s = parse_ints(v);
    } else if (!strncmp(field, "r:", 2)) {
        a->str = v;
    } else if (!strncmp(field, "ni:", 3)) {
        a->num = ct_int(strtoll(v, NULL, 10));
    } else if (!strncmp(field, "nf:", 3)) {
        a->num = ct_float(strtod(v, NULL));
    } else if (!strncmp(field, "nb:", 3)) {
        a->num = ct_bool(*v == '1');
    }
}

/* ---------------------------------------------------------------- running a case */

/* The in-place forms give back their first argument. */
static int64_t done(ct_result r, arg *a, ct_tensor **out)
{
    out[0] = a[0].t;
    return r == CT_OK ? 1 : r;
}

static int64_t one(ct_tensor *t, ct_tensor **out)
{
    out[0] = t;
    return t ? 1 : -1;
}

/* Run op in the given form on the arguments; the outputs go to out, their
 * number is returned (negative on failure). */
static int64_t run(const char *op, const char *f, arg *a, ct_tensor **out)
{
    int dim = (int)a[1].i;
    if (!strcmp(op, "cat")) return one(ct_cat(a[0].list, a[0].n, (int)a[1].i), out);
    if (!strcmp(op, "stack")) return one(ct_stack(a[0].list, a[0].n, (int)a[1].i), out);
    if (!strcmp(op, "hstack")) return one(ct_hstack(a[0].list, a[0].n), out);
    if (!strcmp(op, "vstack")) return one(ct_vstack(a[0].list, a[0].n), out);
    if (!strcmp(op, "split")) return ct_split(a[0].t, a[1].i, (int)a[2].i, out, MAX_OUT);
    if (!strcmp(op, "split_with_sizes")) return ct_split_with_sizes(a[0].t, a[1].s, (int)a[2].i, out, MAX_OUT);
    if (!strcmp(op, "chunk")) return ct_chunk(a[0].t, a[1].i, (int)a[2].i, out, MAX_OUT);
    if (!strcmp(op, "unbind")) return ct_unbind(a[0].t, (int)a[1].i, out, MAX_OUT);
    if (!strcmp(op, "broadcast_tensors")) {
        ct_result r = ct_broadcast_tensors(a[0].list, a[0].n, out);
        return r == CT_OK ? a[0].n : r;
    }
    if (!strcmp(op, "repeat")) return one(ct_repeat(a[0].t, a[1].s), out);
    if (!strcmp(op, "tile")) return one(ct_tile(a[0].t, a[1].s), out);
    if (!strcmp(op, "repeat_interleave")) {
        if (!strcmp(f, "f")) return one(ct_repeat_interleave(a[0].t, a[1].i), out);
        if (!strcmp(f, "fd")) return one(ct_repeat_interleave_dim(a[0].t, a[1].i, (int)a[2].i), out);
        if (!strcmp(f, "ft")) return one(ct_repeat_interleave_tensor(a[0].t, a[1].t), out);
        if (!strcmp(f, "ftd")) return one(ct_repeat_interleave_tensor_dim(a[0].t, a[1].t, (int)a[2].i), out);
        return one(ct_repeat_interleave_index(a[0].t), out);
    }
    if (!strcmp(op, "flip")) return one(ct_flip(a[0].t, a[1].s), out);
    if (!strcmp(op, "roll")) return one(ct_roll(a[0].t, a[1].s, a[2].s), out);
    if (!strcmp(op, "gather")) return one(ct_gather(a[0].t, dim, a[2].t), out);
    if (!strcmp(op, "scatter")) {
        if (!strcmp(f, "f")) return one(ct_scatter(a[0].t, dim, a[2].t, a[3].t), out);
        if (!strcmp(f, "i")) return done(ct_scatter_(a[0].t, dim, a[2].t, a[3].t), a, out);
        if (!strcmp(f, "fs")) return one(ct_scatter_scalar(a[0].t, dim, a[2].t, a[3].num), out);
        if (!strcmp(f, "is")) return done(ct_scatter_scalar_(a[0].t, dim, a[2].t, a[3].num), a, out);
        if (!strcmp(f, "fr")) return one(ct_scatter_with_reduce(a[0].t, dim, a[2].t, a[3].t, a[4].str), out);
        if (!strcmp(f, "ir")) return done(ct_scatter_with_reduce_(a[0].t, dim, a[2].t, a[3].t, a[4].str), a, out);
        if (!strcmp(f, "fsr")) return one(ct_scatter_scalar_with_reduce(a[0].t, dim, a[2].t, a[3].num, a[4].str), out);
        return done(ct_scatter_scalar_with_reduce_(a[0].t, dim, a[2].t, a[3].num, a[4].str), a, out);
    }
    if (!strcmp(op, "scatter_add")) {
        if (f[0] == 'f') return one(ct_scatter_add(a[0].t, dim, a[2].t, a[3].t), out);
        return done(ct_scatter_add_(a[0].t, dim, a[2].t, a[3].t), a, out);
    }
    if (!strcmp(op, "index_select")) return one(ct_index_select(a[0].t, dim, a[2].t), out);
    if (!strcmp(op, "index_add")) {
        if (!strcmp(f, "f")) return one(ct_index_add(a[0].t, dim, a[2].t, a[3].t), out);
        if (!strcmp(f, "i")) return done(ct_index_add_(a[0].t, dim, a[2].t, a[3].t), a, out);
        if (!strcmp(f, "fa")) return one(ct_index_add_alpha(a[0].t, dim, a[2].t, a[3].t, a[4].num), out);
        return done(ct_index_add_alpha_(a[0].t, dim, a[2].t, a[3].t, a[4].num), a, out);
    }
    if (!strcmp(op, "index_copy")) {
        if (f[0] == 'f') return one(ct_index_copy(a[0].t, dim, a[2].t, a[3].t), out);
        return done(ct_index_copy_(a[0].t, dim, a[2].t, a[3].t), a, out);
    }
    if (!strcmp(op, "index_fill")) {
        if (!strcmp(f, "f")) return one(ct_index_fill(a[0].t, dim, a[2].t, a[3].t), out);
        if (!strcmp(f, "i")) return done(ct_index_fill_(a[0].t, dim, a[2].t, a[3].t), a, out);
        if (!strcmp(f, "fs")) return one(ct_index_fill_scalar(a[0].t, dim, a[2].t, a[3].num), out);
        return done(ct_index_fill_scalar_(a[0].t, dim, a[2].t, a[3].num), a, out);
    }
    if (!strcmp(op, "masked_fill")) {
        if (!strcmp(f, "f")) return one(ct_masked_fill(a[0].t, a[1].t, a[2].t), out);
        if (!strcmp(f, "i")) return done(ct_masked_fill_(a[0].t, a[1].t, a[2].t), a, out);
        if (!strcmp(f, "fs")) return one(ct_masked_fill_scalar(a[0].t, a[1].t, a[2].num), out);
        return done(ct_masked_fill_scalar_(a[0].t, a[1].t, a[2].num), a, out);
    }
    if (!strcmp(op, "masked_select")) return one(ct_masked_select(a[0].t, a[1].t), out);
    if (!strcmp(op, "take")) return one(ct_take(a[0].t, a[1].t), out);
    if (!strcmp(op, "one_hot")) return one(ct_one_hot(a[0].t, a[1].i), out);
    ct_test_fail(__FILE__, __LINE__, "unknown op %s", op);
    return -1;
}

/* ---------------------------------------------------------------- checking a case */

/* "r12@3,1@0": golden values, then strides and storage offset. */
static void check_result(const char *what, const ct_tensor *t, char *spec)
{
    char *part[3];
    if (split(spec, part, 3, '@') != 3) {
        ct_test_fail(__FILE__, __LINE__, "%s: bad result %s", what, spec);
        return;
    }
    ct_test_check_tensor(__FILE__, __LINE__, what, t, golden("join", part[0]), 0);
    ct_shape st = parse_ints(part[1]);
    if (!t) return;
    for (int d = 0; d < st.ndim && d < ct_dim(t); d++)
        if (ct_stride(t, d) != st.size[d])
            ct_test_fail(__FILE__, __LINE__, "%s: stride(%d) == %lld, expected %lld", what, d,
                         (long long)ct_stride(t, d), (long long)st.size[d]);
    if (ct_storage_offset(t) != strtoll(part[2], NULL, 10))
        ct_test_fail(__FILE__, __LINE__, "%s: storage offset %lld, expected %s", what, (long long)ct_storage_offset(t),
                     part[2]);
}

/* "ERR <Type>" and the message (with \n escaped) against ctorch's error. */
static void check_error(const char *what, const char *type, const char *message)
{
    char expect[2048];
    size_t j = 0;
    for (const char *p = message; *p && j + 1 < sizeof expect; p++) {
        if (p[0] == '\\' && p[1] == 'n') {
            expect[j++] = '\n';
            p++;
        } else {
            expect[j++] = *p;
        }
    }
    expect[j] = 0;
    if (strcmp(ct_result_str(ct_last_error_code()), type + 4) || strcmp(ct_last_error(), expect))
        ct_test_fail(__FILE__, __LINE__, "%s: got %s \"%s\", expected %s \"%s\"", what,
                     ct_result_str(ct_last_error_code()), ct_last_error(), type + 4, expect);
}

static int run_line(char *line)
{
    char *fld[MAX_FIELDS], what[8192];
    arg args[MAX_FIELDS];
    ct_tensor *out[MAX_OUT];
    snprintf(what, sizeof what, "%s", line);
    int n = split(line, fld, MAX_FIELDS, '|'), nargs = 0;
    while (2 + nargs < n && fld[2 + nargs][0] != '=' && strncmp(fld[2 + nargs], "ERR ", 4)) nargs++;
    if (2 + nargs >= n) {
        ct_test_fail(__FILE__, __LINE__, "bad case %s", what);
        return 0;
    }
    for (int k = 0; k < nargs; k++) parse_arg(fld[2 + k], &args[k], k == 0 && fld[1][0] == 'i');
    ct_clear_error(); /* a stored input that failed to load would show here */
    int64_t count = run(fld[0], fld[1], args, out);
    const char *res = fld[2 + nargs];
    if (!strncmp(res, "ERR ", 4)) {
        if (count >= 0) ct_test_fail(__FILE__, __LINE__, "%s: succeeded, expected an error", what);
        else check_error(what, res, 3 + nargs < n ? fld[3 + nargs] : "");
        ct_clear_error();
        return 1;
    }
    if (count < 0) {
        ct_test_fail(__FILE__, __LINE__, "%s: failed: %s", what, ct_last_error());
        ct_clear_error();
        return 1;
    }
    char *results[MAX_OUT];
    int nres = res[1] ? split((char *)res + 1, results, MAX_OUT, ';') : 0;
    if (nres != count) {
        ct_test_fail(__FILE__, __LINE__, "%s: %lld results, expected %d", what, (long long)count, nres);
        return 1;
    }
    for (int k = 0; k < nres; k++) check_result(what, out[k], results[k]);
    return 1;
}

static void test_golden_cases(void)
{
    FILE *f = fopen("tests/golden/join.txt", "r");
    char line[8192];
    int cases = 0;
    CHECK(f != NULL);
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        ct_scope s = ct_scope_begin();
        cases += run_line(line);
        ct_scope_end(s);
    }
    if (f) fclose(f);
    CHECK(cases > 2000);
}

/* ---------------------------------------------------------------- the seed examples */

static void test_seed_cat_stack_split(void)
{
    float va[] = {1, 2, 3, 4}, vb[] = {5, 6, 7, 8}, vc[] = {9, 10, 11, 12};
    ct_tensor *abc[3] = {ct_from_array(va, CT_SHAPE(2, 2), CT_F32), ct_from_array(vb, CT_SHAPE(2, 2), CT_F32),
                         ct_from_array(vc, CT_SHAPE(2, 2), CT_F32)};
    ct_tensor *cat = ct_cat(abc, 3, 0), *parts[3];
    CHECK_REPR(cat, "tensor([[ 1.,  2.],\n"
                    "        [ 3.,  4.],\n"
                    "        [ 5.,  6.],\n"
                    "        [ 7.,  8.],\n"
                    "        [ 9., 10.],\n"
                    "        [11., 12.]])");
    CHECK_REPR(ct_cat(abc, 3, 1), "tensor([[ 1.,  2.,  5.,  6.,  9., 10.],\n"
                                  "        [ 3.,  4.,  7.,  8., 11., 12.]])");
    CHECK_REPR(ct_stack(abc, 3, 0), "tensor([[[ 1.,  2.],\n"
                                    "         [ 3.,  4.]],\n"
                                    "\n"
                                    "        [[ 5.,  6.],\n"
                                    "         [ 7.,  8.]],\n"
                                    "\n"
                                    "        [[ 9., 10.],\n"
                                    "         [11., 12.]]])");
    CHECK_REPR(ct_stack(abc, 3, 1), "tensor([[[ 1.,  2.],\n"
                                    "         [ 5.,  6.],\n"
                                    "         [ 9., 10.]],\n"
                                    "\n"
                                    "        [[ 3.,  4.],\n"
                                    "         [ 7.,  8.],\n"
                                    "         [11., 12.]]])");
    CHECK_INT(ct_split(cat, 2, 0, parts, 3), 3);
    CHECK_REPR(parts[0], "tensor([[1., 2.],\n        [3., 4.]])");
    CHECK_REPR(parts[1], "tensor([[5., 6.],\n        [7., 8.]])");
    CHECK_REPR(parts[2], "tensor([[ 9., 10.],\n        [11., 12.]])");
    CHECK_INT(ct_split_with_sizes(cat, CT_SHAPE(4, 1, 1), 0, parts, 3), 3);
    CHECK_REPR(parts[0], "tensor([[1., 2.],\n        [3., 4.],\n        [5., 6.],\n        [7., 8.]])");
    CHECK_REPR(parts[1], "tensor([[ 9., 10.]])");
    CHECK_REPR(parts[2], "tensor([[11., 12.]])");
}

static void test_seed_broadcast_tensors(void)
{
    int64_t va[] = {1, 2, 3}, vb[] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    ct_tensor *in[2] = {ct_from_array(va, CT_SHAPE(3), CT_I64), ct_from_array(vb, CT_SHAPE(3, 3), CT_I64)}, *out[2];
    CHECK_OK(ct_broadcast_tensors(in, 2, out));
    CHECK_REPR(out[0], "tensor([[1, 2, 3],\n        [1, 2, 3],\n        [1, 2, 3]])");
    CHECK_REPR(out[1], "tensor([[0, 0, 0],\n        [1, 1, 1],\n        [2, 2, 2]])");
    CHECK_REPR(ct_add(out[0], out[1]), "tensor([[1, 2, 3],\n        [2, 3, 4],\n        [3, 4, 5]])");
}

/* The class register of seed 004: 4 classes, 10 students, 7 subjects. */
static const int32_t scores_data[4 * 10 * 7] = {
    55, 95, 3,  18, 37, 30, 93, 17, 26, 15, 3,  20, 92, 72, 74, 52, 24, 58, 3,  13, 24, 81, 79, 27, 48, 81, 99, 69,
    56, 83, 20, 59, 11, 15, 24, 72, 70, 20, 65, 77, 43, 51, 61, 81, 98, 11, 31, 69, 91, 93, 94, 59, 6,  54, 18, 3,
    94, 88, 0,  59, 41, 41, 27, 69, 20, 68, 75, 85, 68, 0,  17, 74, 60, 10, 21, 97, 83, 28, 37, 2,  49, 12, 11, 47,
    57, 29, 79, 19, 95, 84, 7,  37, 52, 57, 61, 69, 52, 25, 73, 2,  20, 37, 25, 32, 9,  39, 60, 17, 47, 85, 44, 51,
    45, 60, 81, 97, 81, 97, 46, 5,  26, 84, 49, 25, 11, 3,  7,  39, 77, 77, 1,  81, 10, 39, 29, 40, 40, 5,  6,  42,
    50, 27, 68, 4,  46, 93, 29, 95, 68, 4,  81, 44, 27, 89, 9,  55, 39, 85, 63, 74, 67, 37, 39, 8,  77, 89, 84, 14,
    52, 14, 22, 20, 67, 20, 48, 52, 82, 12, 15, 20, 84, 32, 92, 68, 56, 49, 40, 56, 38, 49, 56, 10, 23, 90, 9,  46,
    99, 68, 51, 6,  74, 14, 35, 33, 42, 50, 91, 56, 94, 80, 18, 72, 14, 28, 64, 66, 87, 33, 50, 75, 1,  86, 8,  50,
    41, 23, 56, 91, 35, 20, 31, 0,  72, 25, 16, 21, 78, 76, 88, 68, 33, 36, 64, 91, 63, 26, 26, 2,  60, 21, 5,  93,
    17, 44, 64, 51, 16, 9,  89, 58, 91, 33, 64, 38, 47, 19, 66, 65, 48, 38, 19, 84, 12, 70, 33, 25, 58, 24, 61, 59};

static void test_seed_scores(void)
{
    int64_t students[] = {0, 5, 9}, subjects[] = {1, 3, 6};
    int64_t flat[] = {0 * 10 * 7 + 0, 2 * 10 * 7 + 4 * 7 + 1, 3 * 10 * 7 + 9 * 7 + 6};
    ct_tensor *scores = ct_from_array(scores_data, CT_SHAPE(4, 10, 7), CT_I32);
    ct_tensor *s_idx = ct_from_array(students, CT_SHAPE(3), CT_I64);
    ct_tensor *j_idx = ct_from_array(subjects, CT_SHAPE(3), CT_I64);
    ct_tensor *picked = ct_index_select(scores, 1, s_idx);
    CHECK_REPR(picked, "tensor([[[55, 95,  3, 18, 37, 30, 93],\n"
                       "         [72, 70, 20, 65, 77, 43, 51],\n"
                       "         [69, 20, 68, 75, 85, 68,  0]],\n"
                       "\n"
                       "        [[17, 74, 60, 10, 21, 97, 83],\n"
                       "         [39, 60, 17, 47, 85, 44, 51],\n"
                       "         [39, 29, 40, 40,  5,  6, 42]],\n"
                       "\n"
                       "        [[50, 27, 68,  4, 46, 93, 29],\n"
                       "         [52, 82, 12, 15, 20, 84, 32],\n"
                       "         [33, 42, 50, 91, 56, 94, 80]],\n"
                       "\n"
                       "        [[18, 72, 14, 28, 64, 66, 87],\n"
                       "         [26, 26,  2, 60, 21,  5, 93],\n"
                       "         [70, 33, 25, 58, 24, 61, 59]]], dtype=torch.int32)");
    CHECK_REPR(ct_index_select(picked, 2, j_idx), "tensor([[[95, 18, 93],\n"
                                                  "         [70, 65, 51],\n"
                                                  "         [20, 75,  0]],\n"
                                                  "\n"
                                                  "        [[74, 10, 83],\n"
                                                  "         [60, 47, 51],\n"
                                                  "         [29, 40, 42]],\n"
                                                  "\n"
                                                  "        [[27,  4, 29],\n"
                                                  "         [82, 15, 32],\n"
                                                  "         [42, 91, 80]],\n"
                                                  "\n"
                                                  "        [[72, 28, 87],\n"
                                                  "         [26, 60, 93],\n"
                                                  "         [33, 58, 59]]], dtype=torch.int32)");
    CHECK_REPR(ct_take(scores, ct_from_array(flat, CT_SHAPE(3), CT_I64)), "tensor([55, 14, 59], dtype=torch.int32)");
    /* scores >= 80 as not (scores < 80) */
    ct_tensor *at_least_80 = ct_logical_not(ct_lt_scalar(scores, ct_int(80)));
    CHECK_REPR(ct_masked_select(scores, at_least_80),
               "tensor([95, 93, 92, 81, 81, 99, 83, 81, 98, 91, 93, 94, 94, 88, 85, 97, 83, 95,\n"
               "        84, 85, 81, 97, 81, 97, 84, 81, 93, 95, 81, 89, 85, 89, 84, 82, 84, 92,\n"
               "        90, 99, 91, 94, 80, 87, 86, 91, 88, 91, 93, 89, 91, 84],\n"
               "       dtype=torch.int32)");
    ct_tensor *full = ct_index_fill_scalar(scores, 1, s_idx, ct_int(100));
    CHECK_REPR(ct_select(full, 0, 0), "tensor([[100, 100, 100, 100, 100, 100, 100],\n"
                                      "        [ 17,  26,  15,   3,  20,  92,  72],\n"
                                      "        [ 74,  52,  24,  58,   3,  13,  24],\n"
                                      "        [ 81,  79,  27,  48,  81,  99,  69],\n"
                                      "        [ 56,  83,  20,  59,  11,  15,  24],\n"
                                      "        [100, 100, 100, 100, 100, 100, 100],\n"
                                      "        [ 61,  81,  98,  11,  31,  69,  91],\n"
                                      "        [ 93,  94,  59,   6,  54,  18,   3],\n"
                                      "        [ 94,  88,   0,  59,  41,  41,  27],\n"
                                      "        [100, 100, 100, 100, 100, 100, 100]], dtype=torch.int32)");
    ct_tensor *raised = ct_masked_fill_scalar(scores, ct_lt_scalar(scores, ct_int(60)), ct_int(60));
    CHECK_REPR(ct_index(raised, "0, 3"), "tensor([81, 79, 60, 60, 81, 99, 69], dtype=torch.int32)");
    CHECK_REPR(ct_index(raised, "3, 9"), "tensor([70, 60, 60, 60, 60, 61, 60], dtype=torch.int32)");
}

/* ---------------------------------------------------------------- what the listing cannot say */

static void test_null_arguments(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(2, 3), CT_F32), *list[2] = {x, NULL}, *out[4];
    CHECK_ERR(ct_cat(list, 2, 0), CT_ERR_TYPE, "expected Tensor as element 1 in argument 0, but got NULL");
    CHECK_ERR(ct_cat(NULL, 2, 0), CT_ERR_TYPE,
              "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not NULL");
    CHECK_ERR(ct_gather(x, 0, NULL), CT_ERR_TYPE, "gather(): argument 'index' (position 3) must be Tensor, not NULL");
    CHECK(ct_split(NULL, 1, 0, out, 4) == CT_ERR_TYPE);
    ct_clear_error();
    CHECK_FAILS(ct_scatter_(x, 0, NULL, x), CT_ERR_TYPE,
                "scatter_(): argument 'index' (position 3) must be Tensor, not NULL");
    CHECK_ERR(ct_scatter_with_reduce(x, 0, ct_zeros(CT_SHAPE(1, 3), CT_I64), x, NULL), CT_ERR_TYPE,
              "scatter(): argument 'reduce' must be str, not NULL");
    /* a failure earlier in a chain keeps its own message */
    ct_tensor *bad = ct_view(ct_t(x), CT_SHAPE(-1));
    CHECK(bad == NULL);
    list[1] = bad;
    CHECK_ERR(ct_cat(list, 2, 0), CT_ERR_RUNTIME, "view size is not compatible");
}

static void test_output_arrays(void)
{
    ct_tensor *x = ct_arange(ct_int(0), ct_int(10), ct_int(1), CT_DEFAULT), *parts[4];
    CHECK_INT(ct_split(x, 3, 0, NULL, 0), 4); /* counting only */
    CHECK_INT(ct_chunk(x, 3, 0, NULL, 0), 3);
    CHECK_INT(ct_unbind(x, 0, NULL, 0), 10);
    parts[0] = NULL;
    CHECK(ct_split(x, 3, 0, parts, 2) == CT_ERR_VALUE);
    CHECK_STR(ct_last_error(), "too many values to unpack (expected 2)");
    CHECK(parts[0] == NULL); /* nothing written */
    ct_clear_error();
    CHECK_INT(ct_split(x, 3, 0, parts, 4), 4);
    CHECK_VALUES(parts[3], CT_SHAPE(1), 9);
}

/* Hundreds of pieces: unbound rows stacked back, split rows joined back. */
static void test_split_then_join(void)
{
    enum { N = 300 };
    ct_tensor *x = ct_reshape(ct_arange(ct_int(0), ct_int(2 * N), ct_int(1), CT_I16), CT_SHAPE(N, 2)), *parts[N];
    int16_t got[2 * N];
    int bad = 0;
    CHECK_INT(ct_unbind(x, 0, parts, N), N);
    CHECK_OK(ct_copy_to_array(ct_stack(parts, N, 0), got, 2 * N, CT_I16));
    for (int i = 0; i < 2 * N; i++) bad += got[i] != i;
    CHECK_INT(ct_split(x, 1, 0, parts, N), N);
    CHECK_OK(ct_copy_to_array(ct_cat(parts, N, 0), got, 2 * N, CT_I16));
    for (int i = 0; i < 2 * N; i++) bad += got[i] != i;
    CHECK_OK(ct_copy_to_array(ct_hstack(parts, N), got, 2 * N, CT_I16)); /* rows side by side: one row */
    for (int i = 0; i < 2 * N; i++) bad += got[i] != i;
    CHECK_INT(bad, 0);
}

static void test_pieces_are_views(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(4, 3), CT_F32), *parts[4], *rows[4], *b[2];
    CHECK_INT(ct_chunk(x, 2, 1, parts, 4), 2);
    CHECK_OK(ct_fill_(parts[1], ct_float(7)));
    CHECK_INT(ct_unbind(x, 0, rows, 4), 4);
    CHECK_OK(ct_fill_(rows[0], ct_float(1)));
    CHECK_VALUES(x, CT_SHAPE(4, 3), 1, 1, 1, 0, 0, 7, 0, 0, 7, 0, 0, 7);
    CHECK(ct_storage_data_ptr(parts[0]) == ct_storage_data_ptr(x));
    ct_tensor *in[2] = {x, ct_zeros(CT_SHAPE(1), CT_F32)};
    CHECK_OK(ct_broadcast_tensors(in, 2, b));
    CHECK(ct_storage_data_ptr(b[0]) == ct_storage_data_ptr(x));
    CHECK_INT(ct_stride(b[1], 0), 0);
}

static void test_overlap_is_refused(void)
{
    ct_tensor *x = ct_zeros(CT_SHAPE(3, 4), CT_F32), *idx = ct_zeros(CT_SHAPE(2, 4), CT_I64);
    const char *msg = "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                      "single memory location. Please clone() the tensor before performing the operation.";
    CHECK_FAILS(ct_scatter_(x, 0, idx, ct_narrow(x, 0, 0, 2)), CT_ERR_RUNTIME, msg);
    CHECK_FAILS(ct_scatter_add_(x, 0, idx, x), CT_ERR_RUNTIME, msg);
    ct_tensor *i1 = ct_zeros(CT_SHAPE(2), CT_I64);
    CHECK_FAILS(ct_index_add_(x, 0, i1, ct_narrow(x, 0, 1, 2)), CT_ERR_RUNTIME, msg);
    CHECK_FAILS(ct_index_copy_(x, 0, i1, ct_narrow(x, 0, 1, 2)), CT_ERR_RUNTIME, msg);
    ct_tensor *y = ct_zeros(CT_SHAPE(4), CT_I64);
    CHECK_FAILS(ct_index_fill_scalar_(y, 0, ct_narrow(y, 0, 0, 2), ct_int(1)), CT_ERR_RUNTIME, msg);
    ct_tensor *m = ct_zeros(CT_SHAPE(6), CT_BOOL);
    CHECK_FAILS(ct_masked_fill_scalar_(ct_narrow(m, 0, 0, 4), ct_narrow(m, 0, 2, 4), ct_bool(true)), CT_ERR_RUNTIME,
                msg);
    CHECK_VALUES(x, CT_SHAPE(3, 4), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); /* untouched */
}

static void test_bad_index_changes_nothing(void)
{
    int64_t vi[] = {0, 1, 7, 0};
    ct_tensor *x = ct_zeros(CT_SHAPE(3, 4), CT_F32), *idx = ct_from_array(vi, CT_SHAPE(1, 4), CT_I64);
    CHECK_FAILS(ct_scatter_scalar_(x, 0, idx, ct_float(1)), CT_ERR_RUNTIME,
                "index 7 is out of bounds for dimension 0 with size 3");
    CHECK_FAILS(ct_index_add_(x, 1, ct_reshape(idx, CT_SHAPE(4)), ct_ones(CT_SHAPE(3, 4), CT_F32)), CT_ERR_INDEX,
                "index out of range in self");
    CHECK_VALUES(x, CT_SHAPE(3, 4), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}

/* ---------------------------------------------------------------- large tensors: the parallel paths */

/* Large enough (R * C elements) to split across threads when built with OpenMP;
 * every result is checked against plain C loops. */
enum { R = 400, C = 300 };

static float *to_floats(const ct_tensor *t)
{
    float *v = (float *)malloc(sizeof(float) * (size_t)(ct_numel(t) ? ct_numel(t) : 1));
    if (ct_copy_to_array(t, v, ct_numel(t), CT_F32) != CT_OK) ct_test_fail(__FILE__, __LINE__, "%s", ct_last_error());
    return v;
}

static void test_large_gather_scatter(void)
{
    int64_t *ri = (int64_t *)malloc(sizeof(int64_t) * R), *fi = (int64_t *)malloc(sizeof(int64_t) * R);
    int64_t *ci = (int64_t *)malloc(sizeof(int64_t) * R * C);
    float *count = (float *)calloc((size_t)R * C, sizeof(float));
    float *folded = (float *)calloc((size_t)R * C / 4, sizeof(float));
    for (int i = 0; i < R; i++) ri[i] = (i * 7919) % R, fi[i] = i % (R / 4);
    for (int i = 0; i < R * C; i++) ci[i] = ((i % C) * 31 + i / C) % C;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            count[i * C + ci[i * C + j]] += 1;
            folded[fi[i] * C + j] += (float)(i * C + j); /* rows add up in index order */
        }
    ct_tensor *x = ct_reshape(ct_arange(ct_int(0), ct_int(R * C), ct_int(1), CT_F32), CT_SHAPE(R, C));
    ct_tensor *rows = ct_from_array(ri, CT_SHAPE(R), CT_I64), *cols = ct_from_array(ci, CT_SHAPE(R, C), CT_I64);
    float *sel = to_floats(ct_index_select(x, 0, rows)), *gat = to_floats(ct_gather(x, 1, cols));
    float *cnt = to_floats(ct_scatter_add(ct_zeros(CT_SHAPE(R, C), CT_F32), 1, cols, ct_ones(CT_SHAPE(R, C), CT_F32)));
    ct_tensor *folds = ct_from_array(fi, CT_SHAPE(R), CT_I64);
    float *acc = to_floats(ct_index_add(ct_zeros(CT_SHAPE(R / 4, C), CT_F32), 0, folds, x));
    int bad = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            bad += sel[i * C + j] != (float)(ri[i] * C + j);
            bad += gat[i * C + j] != (float)(i * C + ci[i * C + j]);
            bad += cnt[i * C + j] != count[i * C + j];
            bad += i < R / 4 && acc[i * C + j] != folded[i * C + j];
        }
    CHECK_INT(bad, 0);
    /* one bad index among many, met by whichever thread walks there: an error, and in place nothing written */
    ci[(R / 2) * C + C / 2] = C;
    cols = ct_from_array(ci, CT_SHAPE(R, C), CT_I64);
    CHECK_ERR(ct_gather(x, 1, cols), CT_ERR_RUNTIME, "index 300 is out of bounds for dimension 1 with size 300");
    CHECK_ERR(ct_scatter(x, 1, cols, x), CT_ERR_RUNTIME, "index 300 is out of bounds for dimension 1 with size 300");
    ct_tensor *y = ct_clone(x);
    CHECK_FAILS(ct_scatter_(y, 1, cols, ct_zeros(CT_SHAPE(R, C), CT_F32)), CT_ERR_RUNTIME,
                "index 300 is out of bounds for dimension 1 with size 300");
    float *after = to_floats(y);
    for (int i = 0; i < R * C; i++) bad += after[i] != (float)i;
    CHECK_INT(bad, 0);
    free(ri), free(fi), free(ci), free(count), free(folded), free(sel), free(gat), free(cnt), free(acc), free(after);
}

static void test_large_copies(void)
{
    uint8_t *m = (uint8_t *)malloc((size_t)R * C);
    for (int i = 0; i < R * C; i++) m[i] = (i / C) * (i % C) % 3 == 0;
    ct_tensor *x = ct_reshape(ct_arange(ct_int(0), ct_int(R * C), ct_int(1), CT_F32), CT_SHAPE(R, C));
    ct_tensor *mask = ct_from_array(m, CT_SHAPE(R, C), CT_BOOL), *xx[2] = {x, x};
    float *filled = to_floats(ct_masked_fill_scalar(x, mask, ct_float(-1)));
    float *sel = to_floats(ct_masked_select(x, mask));
    float *cat = to_floats(ct_cat(xx, 2, 1)), *flip = to_floats(ct_flip(x, CT_DIMS(0, 1)));
    float *rep = to_floats(ct_repeat(x, CT_SHAPE(2, 1))), *roll = to_floats(ct_roll(x, CT_SHAPE(3), CT_DIMS(1)));
    int bad = 0, k = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            float v = (float)(i * C + j);
            bad += filled[i * C + j] != (m[i * C + j] ? -1 : v);
            if (m[i * C + j]) bad += sel[k++] != v;
            bad += cat[i * 2 * C + j] != v || cat[i * 2 * C + C + j] != v;
            bad += flip[(R - 1 - i) * C + (C - 1 - j)] != v;
            bad += rep[i * C + j] != v || rep[(R + i) * C + j] != v;
            bad += roll[i * C + (j + 3) % C] != v;
        }
    CHECK_INT(bad, 0);
    free(m), free(filled), free(sel), free(cat), free(flip), free(rep), free(roll);
}

int main(void)
{
    RUN(test_golden_cases);
    RUN(test_seed_cat_stack_split);
    RUN(test_seed_broadcast_tensors);
    RUN(test_seed_scores);
    RUN(test_null_arguments);
    RUN(test_output_arrays);
    RUN(test_split_then_join);
    RUN(test_pieces_are_views);
    RUN(test_overlap_is_refused);
    RUN(test_bad_index_changes_nothing);
    RUN(test_large_gather_scatter);
    RUN(test_large_copies);
    return ct_test_report();
}
