/* Backend interface: the names of the sort ops, for the op table (src/ops/optable.h),
 * and what their front ends (src/ops/sort.c) hand to a backend's kernels. */
#define CT__SORT_OP_NAMES(X) \
    X(sort) X(argsort) X(topk) X(kthvalue) X(unique) X(unique_consecutive) X(nonzero) X(searchsorted)

/* One call of a sorting kernel (ct_backend.sorting). The front end has
 * checked the arguments; which fields an op reads:
 *   sort, argsort  input; values (may be NULL) and indices, allocated with
 *                  input's shape; dim, descending, stable
 *   topk           the same, outputs of size k along dim; k, descending
 *                  (largest), sorted
 *   kthvalue       the same, outputs of size 1 along dim; k (1-based)
 *   unique, unique_consecutive
 *                  input contiguous; dim -1 for the flattened input, else 0
 *                  with input a contiguous matrix whose rows are compared;
 *                  sorted (unique only). The kernel makes values (the
 *                  uniques: 1-D, or rows), indices (the inverse: input's
 *                  shape, or one per row) and counts, the last two only when
 *                  want_inverse / want_counts.
 *   nonzero        input; the kernel makes indices: (n, ndim), column-major
 *   searchsorted   input (the values) and boundaries contiguous, of one
 *                  dtype; sorter NULL or contiguous int64 of boundaries'
 *                  shape, its entries in range; indices allocated (int32 or
 *                  int64, input's shape, contiguous); right */
typedef struct ct__sort_job {
    const ct_tensor *input, *boundaries, *sorter;
    ct_tensor *values, *indices, *counts;
    int dim;
    int64_t k;
    bool descending, stable, sorted, right, want_inverse, want_counts;
} ct__sort_job;
