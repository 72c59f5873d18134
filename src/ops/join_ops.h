/* Backend interface: the names of the join ops, for the op table (src/ops/optable.h),
 * and the job that the backend's index kernels run. */
#define CT__JOIN_OP_NAMES(X)                                                                                     \
    X(cat) X(stack) X(hstack) X(vstack) X(split) X(split_with_sizes) X(chunk) X(unbind) X(broadcast_tensors)     \
    X(repeat) X(tile) X(repeat_interleave) X(flip) X(roll) X(gather) X(scatter) X(scatter_add) X(index_select)   \
    X(index_add) X(index_fill) X(index_copy) X(masked_fill) X(masked_select) X(take) X(one_hot)

/* What an index kernel does. Every op of the family that moves data by
 * indices is one of these (index_select is a gather with its index expanded
 * over the other dims, index_add a scatter-add, and so on). */
typedef enum ct__index_kind {
    CT__INDEX_STATS,         /* scan index (int64, int32, uint8 or bool) in row-major order */
    CT__INDEX_GATHER,        /* dst[p] = src[p with dim = index[p]]; dst has index's extent */
    CT__INDEX_SCATTER,       /* dst[p with dim = index[p]] = src[p] */
    CT__INDEX_SCATTER_ADD,   /* ... += alpha * src[p] */
    CT__INDEX_SCATTER_MUL,   /* ... *= src[p] */
    CT__INDEX_MASKED_FILL,   /* dst[p] = src[0] where index[p] (a mask broadcast to dst) */
    CT__INDEX_MASKED_SELECT, /* dst[k++] = src[p] where index[p], p in row-major order */
    CT__INDEX_REPEATS        /* dst (1-D) = 0 repeated src[0] times, 1 repeated src[1] times, ... */
} ct__index_kind;

/* One kernel call. Index tensors are int64 (masks bool or uint8). For
 * gather and scatter, dst, src and index have the same rank and index's sizes
 * bound the others' apart from dim; an index out of range stops the kernel,
 * having written only what was checked, so callers that must not write on
 * error (in-place ops) check with STATS first. */
typedef struct ct__index_job {
    ct__index_kind kind;
    ct_tensor *dst;
    const ct_tensor *src;
    const ct_tensor *index;
    int dim;
    const void *alpha; /* SCATTER_ADD: one element of dst's dtype */
    bool fused;        /* SCATTER_ADD in float32/64: one rounding (fma), as PyTorch's vectorised add */
    bool serial;       /* dst has elements that share memory: one thread */
    bool negatives;    /* gather, scatter: indices may be negative, counting from the end */
    /* STATS: in lo, hi; out the rest (sum wraps as int64 does) */
    int64_t lo, hi;
    int64_t min, max, sum, nonzero;
    bool out_of_range; /* STATS, gather and scatter: some index was out of range */
    int64_t first_bad; /* STATS: the first value outside [lo, hi) */
} ct__index_job;
