/* The collectives and point-to-point operations, on the mpi backend under
 * mpirun or on the gloo backend under ctorchrun (dist_harness.h), with any
 * number of ranks: every result is checked against the values worked out
 * here, and every mismatch must fail on every rank. */
#include "dist_harness.h"

static int R, W; /* this rank, the world size */
static const ct_dist_opts sync_ = {NULL, NULL};

static ct_tensor *filled(ct_shape shape, double v, ct_dtype dtype) { return ct_full(shape, ct_float(v), dtype); }

static void test_ranks_and_backend(void)
{
    CHECK(R >= 0 && R < W);
    CHECK(ct_dist_is_initialized());
    CHECK(ct_dist_is_gloo_available());
#ifdef CTORCH_DIST_MPI
    CHECK(ct_dist_is_mpi_available());
#else
    CHECK(!ct_dist_is_mpi_available());
#endif
    CHECK_STR(ct_dist_get_backend(NULL), DIST_BACKEND);
    CHECK_FAILS(ct_dist_init_process_group(DIST_BACKEND, (ct_dist_init_opts){0}), CT_ERR_RUNTIME,
                "trying to initialize the default process group twice!");
}

static void test_broadcast(void)
{
    ct_tensor *t = filled(CT_SHAPE(2, 2), R, CT_F32);
    CHECK_OK(ct_dist_broadcast(t, W - 1, sync_));
    DCHECK_VALUES(t, W - 1, W - 1, W - 1, W - 1);
    ct_tensor *big = ct_arange(ct_int(0), ct_int(100000), ct_int(1), CT_I64); /* more than one MPI message */
    if (R != 0) CHECK_OK(ct_fill_(big, ct_int(-1)));
    CHECK_OK(ct_dist_broadcast(big, 0, sync_));
    CHECK_INT(ct_item_int(ct_sum(big)), 99999LL * 100000 / 2);
    ct_tensor *h = filled(CT_SHAPE(3), R + 0.5, CT_F16); /* moved as bytes: any dtype */
    CHECK_OK(ct_dist_broadcast(h, 0, sync_));
    DCHECK_VALUES(h, 0.5, 0.5, 0.5);
    /* several segments, the last a short one, down the chain from the last rank */
    int64_t n = (1 << 18) + 5;
    ct_tensor *want = ct_arange(ct_int(0), ct_int(n), ct_int(1), CT_I64);
    ct_tensor *long_one = R == W - 1 ? ct_clone(want) : ct_full(CT_SHAPE(n), ct_int(-1), CT_I64);
    CHECK_OK(ct_dist_broadcast(long_one, W - 1, sync_));
    CHECK(ct_equal(long_one, want));
}

static void test_all_reduce_ops(void)
{
    double s = W * (W + 1) / 2.0, prod = 1;
    for (int i = 1; i <= W; i++) prod *= i;
    ct_dtype dtypes[] = {CT_F32, CT_F64, CT_I64, CT_I32};
    for (int k = 0; k < 4; k++) {
        ct_tensor *x = ct_mul_scalar(ct_arange(ct_int(1), ct_int(3), ct_int(1), dtypes[k]), ct_int(R + 1)); /* [r+1, 2(r+1)] */
        ct_tensor *sum = ct_clone(x), *mn = ct_clone(x), *mx = ct_clone(x), *pr = ct_clone(x);
        CHECK_OK(ct_dist_all_reduce(sum, CT_REDUCE_SUM, sync_));
        CHECK_OK(ct_dist_all_reduce(mn, CT_REDUCE_MIN, sync_));
        CHECK_OK(ct_dist_all_reduce(mx, CT_REDUCE_MAX, sync_));
        CHECK_OK(ct_dist_all_reduce(pr, CT_REDUCE_PRODUCT, sync_));
        DCHECK_VALUES(sum, s, 2 * s);
        DCHECK_VALUES(mn, 1, 2);
        DCHECK_VALUES(mx, W, 2 * W);
        DCHECK_VALUES(pr, prod, prod * (1 << W));
    }
    /* large and of no multiple of the ranks: chunked unevenly, both ways at once */
    ct_tensor *big = ct_full(CT_SHAPE((1 << 21) + 3), ct_int(R + 1), CT_F64);
    CHECK_OK(ct_dist_all_reduce(big, CT_REDUCE_SUM, sync_));
    CHECK_NEAR(ct_item(ct_sum(big)), s * ((1 << 21) + 3), 0);
    CHECK_NEAR(ct_item(ct_select(big, 0, (1 << 21) + 2)), s, 0);
    ct_tensor *avg = filled(CT_SHAPE(3), R + 1, CT_F32);
    CHECK_OK(ct_dist_all_reduce(avg, CT_REDUCE_AVG, sync_));
    DCHECK_VALUES(avg, s / W, s / W, s / W);
    ct_tensor *flag = ct_full(CT_SHAPE(2), ct_bool(R == 0), CT_BOOL); /* logical for bool, as PyTorch's backends */
    ct_tensor *all = ct_clone(flag);
    CHECK_OK(ct_dist_all_reduce(flag, CT_REDUCE_SUM, sync_));
    CHECK_OK(ct_dist_all_reduce(all, CT_REDUCE_MIN, sync_));
    DCHECK_VALUES(flag, 1, 1);
    DCHECK_VALUES(all, 0, 0);
}

static void test_reduce(void)
{
    int dst = 1 % W;
    ct_tensor *t = filled(CT_SHAPE(2), R + 1, CT_F32);
    CHECK_OK(ct_dist_reduce(t, dst, CT_REDUCE_SUM, sync_));
    double s = W * (W + 1) / 2.0;
    if (R == dst) DCHECK_VALUES(t, s, s);
    else DCHECK_VALUES(t, R + 1, R + 1); /* left as it was */
    ct_tensor *a = filled(CT_SHAPE(1), R + 1, CT_F64);
    CHECK_OK(ct_dist_reduce(a, 0, CT_REDUCE_AVG, sync_));
    DCHECK_VALUES(a, R == 0 ? s / W : R + 1);
}

static void test_all_gather(void)
{
    ct_tensor *mine = ct_mul_scalar(ct_ones(CT_SHAPE(2), CT_F32), ct_int(R));
    CHECK_OK(ct_mul_(ct_select(mine, 0, 1), ct_scalar_tensor(ct_int(10), CT_F32)));
    ct_tensor *list[8];
    for (int i = 0; i < W; i++) list[i] = ct_zeros(CT_SHAPE(2), CT_F32);
    CHECK_OK(ct_dist_all_gather(list, W, mine, sync_));
    for (int i = 0; i < W; i++) DCHECK_VALUES(list[i], i, 10 * i);
    ct_tensor *flat = ct_zeros(CT_SHAPE(2 * W), CT_F32), *stacked = ct_zeros(CT_SHAPE(W, 2), CT_F32);
    CHECK_OK(ct_dist_all_gather_into_tensor(flat, mine, sync_));
    CHECK_OK(ct_dist_all_gather_into_tensor(stacked, mine, sync_));
    double want[16];
    for (int i = 0; i < W; i++) want[2 * i] = i, want[2 * i + 1] = 10 * i;
    DCHECK_ARRAY(flat, want, 2 * W);
    DCHECK_ARRAY(stacked, want, 2 * W);
    /* parts of several segments each, the last a short one, round the ring */
    int64_t n = (1 << 17) + 3;
    ct_tensor *all = ct_arange(ct_int(0), ct_int(W * n), ct_int(1), CT_I64), *gathered = ct_zeros(CT_SHAPE(W * n), CT_I64);
    CHECK_OK(ct_dist_all_gather_into_tensor(gathered, ct_narrow(all, 0, R * n, n), sync_));
    CHECK(ct_equal(gathered, all));
}

static void test_gather_and_scatter(void)
{
    ct_tensor *list[8];
    for (int i = 0; i < W; i++) list[i] = R == 0 ? filled(CT_SHAPE(2), i + 0.5, CT_F32) : NULL;
    ct_tensor *got = ct_zeros(CT_SHAPE(2), CT_F32);
    CHECK_OK(ct_dist_scatter(got, R == 0 ? list : NULL, R == 0 ? W : 0, 0, sync_));
    DCHECK_VALUES(got, R + 0.5, R + 0.5);
    ct_tensor *back[8];
    for (int i = 0; i < W; i++) back[i] = ct_zeros(CT_SHAPE(2), CT_F32);
    int dst = W - 1;
    CHECK_OK(ct_dist_gather(got, R == dst ? back : NULL, R == dst ? W : 0, dst, sync_));
    for (int i = 0; i < W; i++) DCHECK_VALUES(back[i], R == dst ? i + 0.5 : 0, R == dst ? i + 0.5 : 0);
}

static void test_reduce_scatter(void)
{
    ct_tensor *inputs[8];
    for (int i = 0; i < W; i++) inputs[i] = filled(CT_SHAPE(3), 10 * R + i, CT_I64);
    ct_tensor *out = ct_zeros(CT_SHAPE(3), CT_I64);
    CHECK_OK(ct_dist_reduce_scatter(out, inputs, W, CT_REDUCE_SUM, sync_));
    double v = 10.0 * W * (W - 1) / 2 + (double)W * R; /* sum over ranks r of 10r + R */
    DCHECK_VALUES(out, v, v, v);
    CHECK_OK(ct_dist_reduce_scatter(out, inputs, W, CT_REDUCE_MAX, sync_));
    DCHECK_VALUES(out, 10 * (W - 1) + R, 10 * (W - 1) + R, 10 * (W - 1) + R);
}

static void test_all_to_all(void)
{
    /* rank r sends rank j j+1 elements of 100r + j; so receives r+1 of 100j + r from j */
    ct_tensor *ins[8], *outs[8];
    for (int j = 0; j < W; j++) {
        ins[j] = filled(CT_SHAPE(j + 1), 100 * R + j, CT_F64);
        outs[j] = ct_zeros(CT_SHAPE(R + 1), CT_F64);
    }
    CHECK_OK(ct_dist_all_to_all(outs, ins, W, sync_));
    for (int j = 0; j < W; j++) {
        double want[8];
        for (int k = 0; k <= R; k++) want[k] = 100 * j + R;
        DCHECK_ARRAY(outs[j], want, R + 1);
    }
}

static void test_send_recv(void)
{
    /* a ring, started asynchronously on both sides (blocking sends first would deadlock) */
    int next = (R + 1) % W, prev = (R + W - 1) % W;
    ct_tensor *out = filled(CT_SHAPE(4), R, CT_F32), *in = ct_zeros(CT_SHAPE(4), CT_F32);
    ct_work *sw = NULL, *rw = NULL;
    CHECK_OK(ct_dist_send(out, next, 3, (ct_dist_opts){NULL, &sw}));
    CHECK_INT(ct_dist_recv(in, prev, 3, (ct_dist_opts){NULL, &rw}), 0);
    CHECK_OK(ct_work_wait(rw));
    CHECK_OK(ct_work_wait(sw));
    CHECK_INT(ct_work_source_rank(rw), prev);
    ct_work_free(sw);
    ct_work_free(rw);
    DCHECK_VALUES(in, prev, prev, prev, prev);
    /* any source: rank 0 takes every other rank's message, in whatever order */
    if (R == 0) {
        int seen = 0;
        for (int k = 1; k < W; k++) {
            ct_tensor *t = ct_zeros(CT_SHAPE(1), CT_I64);
            int src = ct_dist_recv(t, -1, 0, sync_);
            CHECK(src >= 1 && src < W);
            CHECK_INT(ct_item_int(t), 7 * src);
            seen |= 1 << src;
        }
        CHECK_INT(seen, (1 << W) - 2);
    } else
        CHECK_OK(ct_dist_send(filled(CT_SHAPE(1), 7 * R, CT_I64), 0, 0, sync_));
}

static void test_async_work(void)
{
    ct_tensor *t[3];
    ct_work *w[3];
    for (int k = 0; k < 3; k++) {
        t[k] = filled(CT_SHAPE(1000), k + R, CT_F32);
        CHECK_OK(ct_dist_all_reduce(t[k], CT_REDUCE_SUM, (ct_dist_opts){NULL, &w[k]}));
        CHECK(w[k] != NULL);
    }
    for (int k = 2; k >= 0; k--) CHECK_OK(ct_work_wait(w[k])); /* waited out of order */
    for (int k = 0; k < 3; k++) {
        CHECK(ct_work_is_completed(w[k]));
        CHECK_NEAR(ct_item(ct_select(t[k], 0, 999)), k * W + W * (W - 1) / 2.0, 0);
        ct_work_free(w[k]);
    }
    /* a work keeps its tensor: the caller may drop its own reference at once */
    ct_tensor *mine = filled(CT_SHAPE(8), 1, CT_F32);
    ct_tensor *view = ct_view(mine, CT_SHAPE(8)); /* to read it afterwards */
    ct_work *b = NULL;
    CHECK_OK(ct_dist_barrier((ct_dist_opts){NULL, &b}));
    int polls = 0;
    while (!ct_work_is_completed(b) && polls < 100000000) polls++;
    CHECK(ct_work_is_completed(b));
    ct_work_free(b);
    ct_work_free(NULL);
    CHECK_OK(ct_dist_all_reduce(view, CT_REDUCE_SUM, sync_));
    DCHECK_VALUES(ct_select(mine, 0, 7), W);
}

static const char mismatch[] = "Detected mismatch between collectives on ranks. Rank ";

static void test_mismatch_fails_everywhere(void)
{
    /* shape, dtype, operation and root: every rank gets the error, nobody hangs */
    ct_tensor *t = ct_zeros(CT_SHAPE(2 + (R == 1)), CT_F32);
    CHECK_FAILS(ct_dist_all_reduce(t, CT_REDUCE_SUM, sync_), CT_ERR_RUNTIME, mismatch);
    ct_tensor *u = ct_zeros(CT_SHAPE(2), R == 0 ? CT_F64 : CT_F32);
    CHECK_FAILS(ct_dist_broadcast(u, 0, sync_), CT_ERR_RUNTIME, mismatch);
    ct_tensor *v = ct_zeros(CT_SHAPE(2), CT_F32);
    CHECK_FAILS(R == 0 ? ct_dist_broadcast(v, 0, sync_) : ct_dist_all_reduce(v, CT_REDUCE_SUM, sync_), CT_ERR_RUNTIME,
                mismatch);
    CHECK_FAILS(ct_dist_broadcast(v, R == 0 ? 0 : 1, sync_), CT_ERR_RUNTIME, mismatch);
    /* the words, as rank 1 sees a shape mismatch with rank 0 */
    ct_tensor *w = ct_zeros(R == 0 ? CT_SHAPE(20, 10) : CT_SHAPE(10, 10), CT_F32);
    CHECK(ct_dist_all_reduce(w, CT_REDUCE_SUM, sync_) != CT_OK);
    if (R == 1)
        CHECK_STR(ct_last_error(),
                  "Detected mismatch between collectives on ranks. Rank 1 is running collective: "
                  "CollectiveFingerPrint(OpType=ALLREDUCE, TensorShape=[10, 10], TensorDtypes=Float, "
                  "TensorDeviceTypes=cpu), but Rank 0 is running collective: CollectiveFingerPrint(OpType=ALLREDUCE, "
                  "TensorShape=[20, 10], TensorDtypes=Float, TensorDeviceTypes=cpu).");
    ct_clear_error();
    /* all_to_all: what one rank sends must be what the other expects */
    ct_tensor *ins[8], *outs[8];
    for (int j = 0; j < W; j++) {
        ins[j] = ct_zeros(CT_SHAPE(1), CT_F32);
        outs[j] = ct_zeros(CT_SHAPE(R == 0 && j == 1 ? 2 : 1), CT_F32);
    }
    CHECK_FAILS(ct_dist_all_to_all(outs, ins, W, sync_), CT_ERR_RUNTIME, "Detected mismatch between collectives");
    /* and the group still works */
    CHECK_OK(ct_dist_all_reduce(v, CT_REDUCE_SUM, sync_));
}

/* Below CT__DIST_INLINE_BYTES a collective's data travels with the
 * fingerprints and each rank reduces what it received itself; above it the
 * backend's collective does. Both paths must give what a fold in rank order
 * gives, for every op and dtype. */

/* Rank r's element i: small, so that no product of 4 ranks overflows an int8 */
static double op_input(int r, int i, ct_dtype dtype)
{
    if (dtype == CT_BOOL) return (r + i) % 3 != 0;
    if (dtype == CT_U8) return (r * 3 + i) % 4;
    return (r * 3 + i) % 5 - 2;
}

/* The fold of every rank's element i in rank order, in double (exact for
 * these values), as the dtype's reduction gives it. */
static double op_expected(int i, ct_dtype dtype, ct_reduce_op op)
{
    double acc = op_input(0, i, dtype);
    for (int r = 1; r < W; r++) {
        double x = op_input(r, i, dtype);
        if (op == CT_REDUCE_PRODUCT) acc *= x;
        else if (op == CT_REDUCE_MIN) acc = x < acc ? x : acc;
        else if (op == CT_REDUCE_MAX) acc = x > acc ? x : acc;
        else acc += x;
    }
    if (dtype == CT_BOOL) return acc != 0;
    if (op != CT_REDUCE_AVG) return acc;
    return dtype == CT_F32 || dtype == CT_F64 ? acc / W : (double)((long long)acc / W); /* integers truncate */
}

/* A tensor of n elements repeating rank R's 6 inputs. */
static ct_tensor *op_tensor(int64_t n, ct_dtype dtype)
{
    double six[6];
    for (int i = 0; i < 6; i++) six[i] = op_input(R, i, dtype);
    return ct_to(ct_repeat(ct_from_array(six, CT_SHAPE(6), CT_F64), CT_SHAPE(n / 6)), dtype);
}

static void test_reduce_ops_and_dtypes_both_paths(void)
{
    const ct_dtype dtypes[] = {CT_BOOL, CT_U8, CT_I8, CT_I16, CT_I32, CT_I64, CT_F32, CT_F64};
    const ct_reduce_op ops[] = {CT_REDUCE_SUM, CT_REDUCE_AVG, CT_REDUCE_PRODUCT, CT_REDUCE_MIN, CT_REDUCE_MAX};
    const int64_t sizes[] = {6, 6 * (CT__DIST_INLINE_BYTES / 6 + 1)}; /* inline, and above the limit in any dtype */
    for (int d = 0; d < 8; d++)
        for (int o = 0; o < 5; o++) {
            if (dtypes[d] == CT_BOOL && ops[o] == CT_REDUCE_AVG) continue; /* refused, as in PyTorch */
            double want[6], at_dst[6]; /* reduce leaves the other ranks' tensors as they were */
            for (int i = 0; i < 6; i++) {
                want[i] = op_expected(i, dtypes[d], ops[o]);
                at_dst[i] = R == W - 1 ? want[i] : op_input(R, i, dtypes[d]);
            }
            for (int k = 0; k < 2; k++) {
                ct_tensor *all = op_tensor(sizes[k], dtypes[d]), *reduced = op_tensor(sizes[k], dtypes[d]);
                CHECK_OK(ct_dist_all_reduce(all, ops[o], sync_));
                DCHECK_ARRAY(ct_narrow(all, 0, 0, 6), want, 6);
                DCHECK_ARRAY(ct_narrow(all, 0, sizes[k] - 6, 6), want, 6);
                CHECK_OK(ct_dist_reduce(reduced, W - 1, ops[o], sync_));
                DCHECK_ARRAY(ct_narrow(reduced, 0, sizes[k] - 6, 6), at_dst, 6);
            }
        }
}

/* float32 sums whose rounding depends on the order: every rank gets the same
 * bits on both paths, and inline exactly the fold in rank order. */
static void test_reductions_give_the_same_bits_everywhere(void)
{
    const float mine = R == 0 ? 1e8f : 5; /* 1e8 + 5 + 5 rounds to 1e8 + 16, 1e8 + 10 to 1e8 + 8 */
    float fold = 1e8f;
    for (int r = 1; r < W; r++) fold += 5;
    /* inline; 4 KiB, which goes in two rounds (CT__DIST_EAGER_BYTES); inline; two rounds */
    const int64_t limit = CT__DIST_INLINE_BYTES / 4, sizes[] = {7, CT__DIST_EAGER_BYTES / 4, limit, limit + 1};
    for (int k = 0; k < 4; k++) {
        ct_tensor *t = ct_full(CT_SHAPE(sizes[k]), ct_float(mine), CT_F32);
        CHECK_OK(ct_dist_all_reduce(t, CT_REDUCE_SUM, sync_));
        if (k % 2 == 0) {
            float got;
            CHECK_OK(ct_copy_to_array(ct_narrow(t, 0, sizes[k] - 1, 1), &got, 1, CT_F32));
            CHECK(memcmp(&got, &fold, sizeof got) == 0);
        }
        ct_tensor *everyone = ct_zeros(CT_SHAPE(W, sizes[k]), CT_F32);
        CHECK_OK(ct_dist_all_gather_into_tensor(everyone, t, sync_));
        for (int r = 0; r < W; r++) CHECK(ct_equal(ct_select(everyone, 0, r), t));
    }
}

/* Empty tensors, 0-dim ones and views that are contiguous but start inside
 * their storage go inline like any other. */
static void test_inline_shapes(void)
{
    ct_tensor *empty = ct_zeros(CT_SHAPE(0, 3), CT_F32), *none = ct_zeros(CT_SHAPE(0), CT_F32);
    CHECK_OK(ct_dist_all_reduce(empty, CT_REDUCE_SUM, sync_));
    CHECK_OK(ct_dist_broadcast(empty, 0, sync_));
    CHECK_OK(ct_dist_reduce(empty, 0, CT_REDUCE_MAX, sync_));
    CHECK_OK(ct_dist_all_gather_into_tensor(none, none, sync_));
    CHECK_INT(ct_numel(empty), 0);
    ct_tensor *scalar = ct_scalar_tensor(ct_int(R + 1), CT_I64);
    CHECK_OK(ct_dist_all_reduce(scalar, CT_REDUCE_SUM, sync_));
    CHECK_INT(ct_item_int(scalar), W * (W + 1) / 2);
    ct_tensor *m = filled(CT_SHAPE(3, 4), R, CT_F64), *row = ct_select(m, 0, 1);
    CHECK_OK(ct_dist_all_reduce(row, CT_REDUCE_MAX, sync_));
    CHECK_OK(ct_dist_broadcast(ct_select(m, 0, 2), 0, sync_));
    DCHECK_VALUES(ct_select(m, 1, 0), R, W - 1, 0);
    ct_tensor *list[8];
    for (int i = 0; i < W; i++) list[i] = ct_zeros(CT_SHAPE(4), CT_F64);
    CHECK_OK(ct_dist_all_gather(list, W, row, sync_));
    for (int i = 0; i < W; i++) DCHECK_VALUES(list[i], W - 1, W - 1, W - 1, W - 1);
}

/* A mismatch is found on every rank whichever side of the limit each rank's
 * tensor is, and a rank that waits may meet one that does not. */
static void test_mismatch_around_the_inline_limit(void)
{
    const int64_t limit = CT__DIST_INLINE_BYTES / 4; /* float32 elements that go inline */
    ct_tensor *t = ct_zeros(CT_SHAPE(R == 1 ? limit + 1 : limit), CT_F32);
    CHECK_FAILS(ct_dist_all_reduce(t, CT_REDUCE_SUM, sync_), CT_ERR_RUNTIME, mismatch);
    ct_tensor *big = ct_zeros(CT_SHAPE(limit + (R == 1)), R == 0 ? CT_F64 : CT_F32);
    CHECK_FAILS(ct_dist_all_reduce(big, CT_REDUCE_SUM, sync_), CT_ERR_RUNTIME, mismatch);
    ct_tensor *small = ct_zeros(CT_SHAPE(3), CT_F32), *large = ct_zeros(CT_SHAPE(limit * 4), CT_F32);
    CHECK_FAILS(R == 0 ? ct_dist_all_reduce(small, CT_REDUCE_SUM, sync_) : ct_dist_broadcast(large, 0, sync_),
                CT_ERR_RUNTIME, mismatch);
    ct_tensor *empty = ct_zeros(CT_SHAPE(R == 0 ? 0 : 1), CT_I32);
    CHECK_FAILS(ct_dist_all_gather_into_tensor(ct_zeros(CT_SHAPE(W * ct_numel(empty)), CT_I32), empty, sync_),
                CT_ERR_RUNTIME, mismatch);
    for (int k = 0; k < 2; k++) { /* rank 0 async, the others not */
        ct_tensor *x = filled(CT_SHAPE(k ? limit * 4 : 5), R + 1, CT_F32);
        ct_work *w = NULL;
        CHECK_OK(ct_dist_all_reduce(x, CT_REDUCE_SUM, (ct_dist_opts){NULL, R == 0 ? &w : NULL}));
        if (R == 0) CHECK_OK(ct_work_wait(w));
        ct_work_free(w);
        CHECK_NEAR(ct_item(ct_select(x, 0, 4)), W * (W + 1) / 2.0, 0);
    }
}

/* Both paths in a group of the ranks but 0, which stays outside. */
static void test_inline_and_not_in_a_group(void)
{
    int members[8], n = 0;
    for (int i = 1; i < W; i++) members[n++] = i;
    ct_process_group *g = ct_dist_new_group(members, n, 0);
    const int64_t sizes[] = {3, CT__DIST_INLINE_BYTES / 4 + 1};
    for (int k = 0; k < 2; k++) {
        ct_tensor *t = filled(CT_SHAPE(sizes[k]), R, CT_F32);
        CHECK_OK(ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){g, NULL}));
        CHECK_NEAR(ct_item(ct_select(t, 0, 2)), R == 0 ? 0 : W * (W - 1) / 2.0, 0);
        ct_tensor *odd = ct_zeros(CT_SHAPE(sizes[k] + (R == 1)), CT_F32);
        if (n > 1 && R > 0) CHECK_FAILS(ct_dist_all_reduce(odd, CT_REDUCE_SUM, (ct_dist_opts){g, NULL}), CT_ERR_RUNTIME,
                                        mismatch);
    }
    CHECK_OK(ct_dist_destroy_process_group(g));
}

static void test_argument_errors_fail_everywhere(void)
{
    ct_tensor *t = ct_zeros(CT_SHAPE(3, 2), CT_F32);
    ct_tensor *arg = R == 0 ? ct_transpose(t, 0, 1) : ct_zeros(CT_SHAPE(2, 3), CT_F32);
    CHECK_FAILS(ct_dist_all_reduce(arg, CT_REDUCE_SUM, sync_), CT_ERR_RUNTIME,
                R == 0 ? "input tensor has to be contiguous" : "Rank 0 failed the argument checks of ALLREDUCE");
    CHECK_FAILS(ct_dist_all_reduce(R == 1 ? NULL : t, CT_REDUCE_SUM, sync_), CT_ERR_RUNTIME,
                R == 1 ? "Invalid function argument. Expected parameter `tensor` to be of type torch.Tensor."
                       : "Rank 1 failed the argument checks");
    ct_tensor *list[8];
    for (int i = 0; i < W; i++) list[i] = ct_zeros(CT_SHAPE(3, 2), CT_F32);
    CHECK_FAILS(ct_dist_all_gather(list, W - 1, t, sync_), CT_ERR_RUNTIME,
                "All gather: number of output tensors should equal to the world size");
    list[0] = ct_zeros(CT_SHAPE(5), CT_F32);
    CHECK_FAILS(ct_dist_all_gather(list, W, t, sync_), CT_ERR_RUNTIME, "Tensors are not equal in size or data type");
    CHECK_FAILS(ct_dist_gather(t, list, W, 0, sync_), R == 0 ? CT_ERR_RUNTIME : CT_ERR_VALUE,
                R == 0 ? "Tensors are not equal in size or data type"
                       : "Argument ``gather_list`` must NOT be specified on non-destination ranks.");
    CHECK_FAILS(ct_dist_scatter(t, NULL, 0, 0, sync_), R == 0 ? CT_ERR_VALUE : CT_ERR_RUNTIME,
                R == 0 ? "Argument ``scatter_list`` must be specified on source rank." : "Rank 0 failed");
    CHECK_FAILS(ct_dist_broadcast(t, W, sync_), CT_ERR_RUNTIME, "The global rank");
    CHECK_FAILS(ct_dist_all_reduce(t, (ct_reduce_op)99, sync_), CT_ERR_VALUE, "Unknown ReduceOp: 99");
    CHECK_FAILS(ct_dist_all_reduce(ct_zeros(CT_SHAPE(2), CT_F16), CT_REDUCE_SUM, sync_), CT_ERR_RUNTIME,
                "The " DIST_BACKEND " backend does not reduce float16 tensors");
    CHECK_FAILS(ct_dist_send(t, 0, -1, sync_), CT_ERR_VALUE,
                "tag must be in [0, 16383] with the " DIST_BACKEND " backend, but got -1");
    CHECK_OK(ct_dist_barrier(sync_)); /* nothing was left half done */
}

static void test_recv_mismatch(void)
{
    /* rank 0 sends 3 floats; rank 1 expects 2: rank 1 fails, and the next message still arrives */
    if (R == 0) {
        CHECK_OK(ct_dist_send(filled(CT_SHAPE(3), 1, CT_F32), 1, 5, sync_));
        CHECK_OK(ct_dist_send(filled(CT_SHAPE(2), 2, CT_F32), 1, 5, sync_));
    } else if (R == 1) {
        ct_tensor *t = ct_zeros(CT_SHAPE(2), CT_F32);
        CHECK_INT(ct_dist_recv(t, 0, 5, sync_), -1);
        CHECK_ERR(0, CT_ERR_RUNTIME,
                  "Detected mismatch between send and recv. Rank 1 is running: CollectiveFingerPrint(OpType=RECV, "
                  "TensorShape=[2], TensorDtypes=Float, TensorDeviceTypes=cpu), but Rank 0 sent: "
                  "CollectiveFingerPrint(OpType=SEND, TensorShape=[3], TensorDtypes=Float, TensorDeviceTypes=cpu).");
        CHECK_INT(ct_dist_recv(t, 0, 5, sync_), 0);
        DCHECK_VALUES(t, 2, 2);
    }
}

static void test_new_group(void)
{
    int evens[8], n = 0;
    for (int i = 0; i < W; i += 2) evens[n++] = i;
    ct_process_group *g = ct_dist_new_group(evens, n, 0);
    CHECK(g != NULL);
    bool member = R % 2 == 0;
    CHECK_INT(ct_dist_get_rank(g), member ? R / 2 : -1);
    CHECK_INT(ct_dist_get_world_size(g), member ? n : -1);
    ct_tensor *t = filled(CT_SHAPE(1), R, CT_F32);
    ct_work *w = (ct_work *)&w; /* outside the group: set to NULL */
    CHECK_OK(ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){g, &w}));
    if (w) CHECK_OK(ct_work_wait(w));
    CHECK(member ? w != NULL : w == NULL);
    ct_work_free(w);
    double evens_sum = 0;
    for (int i = 0; i < n; i++) evens_sum += evens[i];
    DCHECK_VALUES(t, member ? evens_sum : R);
    /* ranks are global in a group too: broadcast from the group's last member */
    ct_tensor *b = filled(CT_SHAPE(1), R, CT_F32);
    CHECK_OK(ct_dist_broadcast(b, evens[n - 1], (ct_dist_opts){g, NULL}));
    DCHECK_VALUES(b, member ? evens[n - 1] : R);
    if (member && W > 1) CHECK_FAILS(ct_dist_broadcast(b, 1, (ct_dist_opts){g, NULL}), CT_ERR_RUNTIME,
                                     "The global rank 1 is not part of the group");
    CHECK_OK(ct_dist_destroy_process_group(g));
    CHECK(ct_dist_new_group((const int[]){0, W}, 2, 0) == NULL);
    CHECK_ERR(0, CT_ERR_RUNTIME, "The new group's rank should be within the the world_size set by init_process_group");
}

static void test_timeout_then_recovery(void)
{
    /* rank 0 waits alone past the group's timeout; the others join later and its work completes */
    ct_process_group *g = ct_dist_new_group(NULL, 0, 0.3);
    ct_tensor *t = filled(CT_SHAPE(2), 1, CT_F32);
    if (R == 0) {
        ct_work *w = NULL;
        CHECK_OK(ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){g, &w}));
        CHECK_FAILS(ct_work_wait(w), CT_ERR_RUNTIME, "[Rank 0] Watchdog caught collective operation timeout: "
                                                     DIST_WORK "(SeqNum=1, OpType=ALLREDUCE, Timeout(ms)=300) ran for ");
        CHECK_OK(ct_dist_barrier(sync_));
        for (long polls = 0; !ct_work_is_completed(w) && polls < 2000000000L; polls++) {}
        CHECK(ct_work_is_completed(w));
        CHECK_OK(ct_work_wait(w)); /* completed: no timeout any more */
        ct_work_free(w);
    } else {
        CHECK_OK(ct_dist_barrier(sync_));
        CHECK_OK(ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){g, NULL}));
    }
    DCHECK_VALUES(t, W, W);
    CHECK_OK(ct_dist_destroy_process_group(g));
}

/* DistributedSampler with the group's replicas: the ranks' shares, padded to
 * the same length, together cover the dataset. */
static void test_distributed_sampler_from_the_group(void)
{
    ct_distributed_sampler_opts o = ct_dist_sampler_opts_init();
    CHECK_INT(o.num_replicas, W);
    CHECK_INT(o.rank, R);
    CHECK(o.shuffle);
    ct_sampler *s = ct_distributed_sampler(10, o);
    int64_t share = (10 + W - 1) / W, got[16] = {0}, n = 0, idx;
    CHECK_INT(ct_sampler_len(s), share);
    while (n < 16 && ct_sampler_next(s, &idx, 1) == 1) got[n++] = idx;
    CHECK_INT(n, share);
    ct_tensor *mine = ct_from_array(got, CT_SHAPE(share), CT_I64), *all = ct_zeros(CT_SHAPE(W * share), CT_I64);
    CHECK_OK(ct_dist_all_gather_into_tensor(all, mine, sync_));
    int seen = 0;
    for (int64_t i = 0; i < W * share; i++) seen |= 1 << ct_item_int(ct_select(all, 0, i));
    CHECK_INT(seen, (1 << 10) - 1);
    ct_sampler_free(s);
}

/* Before init_process_group: PyTorch's errors, and no crash. */
static void check_uninitialized(void)
{
    ct_tensor *t = ct_zeros(CT_SHAPE(1), CT_F32);
    CHECK_INT(ct_dist_get_rank(NULL), -1);
    CHECK_ERR(0, CT_ERR_RUNTIME, "Default process group has not been initialized, please make sure to call init_process_group.");
    CHECK_FAILS(ct_dist_all_reduce(t, CT_REDUCE_SUM, sync_), CT_ERR_RUNTIME, "Default process group has not been initialized");
    CHECK_FAILS(ct_dist_init_process_group("nccl", (ct_dist_init_opts){0}), CT_ERR_RUNTIME,
                "Distributed package doesn't have nccl built in");
    CHECK_FAILS(ct_dist_init_process_group("smoke", (ct_dist_init_opts){0}), CT_ERR_VALUE, "Invalid backend: 'smoke'");
    CHECK_FAILS(ct_dist_init_process_group(DIST_BACKEND, (ct_dist_init_opts){.init_method = "nfs://x"}), CT_ERR_RUNTIME,
                "No rendezvous handler for nfs://");
#ifdef CTORCH_DIST_MPI
    /* MPI's ranks are the ranks: a world size it does not have is refused, and nothing stays half made */
    CHECK_FAILS(ct_dist_init_process_group("mpi", (ct_dist_init_opts){.world_size = 99, .rank = 0}), CT_ERR_RUNTIME,
                "of 99 was asked for (the rank and world_size arguments, or RANK and WORLD_SIZE)");
#else
    /* tcp:// names the store's address; the rank and world size must be given */
    CHECK_FAILS(ct_dist_init_process_group("gloo", (ct_dist_init_opts){.init_method = "tcp://127.0.0.1:29500"}),
                CT_ERR_VALUE, "Error initializing torch.distributed using tcp:// rendezvous: world size parameter missing");
    CHECK_FAILS(ct_dist_init_process_group("gloo", (ct_dist_init_opts){.init_method = "tcp://127.0.0.1", .world_size = 2}),
                CT_ERR_VALUE, "Error initializing torch.distributed using tcp:// rendezvous: port number missing");
#endif
    CHECK_FAILS(ct_dist_init_process_group(DIST_BACKEND, (ct_dist_init_opts){.world_size = 2, .rank = 2}), CT_ERR_VALUE,
                "rank must be in the range [0, world_size)");
    CHECK(!ct_dist_is_initialized());
    CHECK_INT(ct_dist_sampler_opts_init().num_replicas, 1);
    CHECK_ERR(0, CT_ERR_RUNTIME, "Default process group has not been initialized");
    ct_release(t);
}

int main(void)
{
    ct_test_name = "check_uninitialized";
    check_uninitialized();
    int failed_before_init = ct_test_failed_checks;
    if (ct_dist_init_process_group(DIST_BACKEND, (ct_dist_init_opts){0}) != CT_OK) {
        printf("init_process_group failed: %s\n", ct_last_error());
        return 1;
    }
    R = ct_dist_get_rank(NULL);
    W = ct_dist_get_world_size(NULL);
    if (W > 8) {
        printf("these tests take at most 8 ranks\n");
        return 1;
    }
    DRUN(test_ranks_and_backend);
    DRUN(test_broadcast);
    DRUN(test_all_reduce_ops);
    DRUN(test_reduce);
    DRUN(test_all_gather);
    DRUN(test_gather_and_scatter);
    DRUN(test_reduce_scatter);
    DRUN(test_all_to_all);
    DRUN(test_send_recv);
    DRUN(test_async_work);
    DRUN(test_reduce_ops_and_dtypes_both_paths);
    DRUN(test_reductions_give_the_same_bits_everywhere);
    DRUN(test_inline_shapes);
    if (W > 1) {
        DRUN(test_mismatch_fails_everywhere);
        DRUN(test_argument_errors_fail_everywhere);
        DRUN(test_recv_mismatch);
        DRUN(test_mismatch_around_the_inline_limit);
        DRUN(test_inline_and_not_in_a_group);
        DRUN(test_timeout_then_recovery);
    }
    DRUN(test_new_group);
    DRUN(test_distributed_sampler_from_the_group);
    if (failed_before_init) dist_failed++;
    CHECK_OK(ct_dist_destroy_process_group(NULL));
    CHECK(!ct_dist_is_initialized());
    /* a second init works (MPI stays up; gloo makes a new rendezvous) */
    CHECK_OK(ct_dist_init_process_group(DIST_BACKEND, (ct_dist_init_opts){0}));
    if (ct_test_failed_checks) dist_failed++;
    int res = dist_report();
    ct_dist_destroy_process_group(NULL);
    return res;
}
