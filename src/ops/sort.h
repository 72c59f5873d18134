/* Public sorting and selection API: sort, argsort, topk, kthvalue, unique,
 * unique_consecutive, nonzero, searchsorted.
 *
 * The ops that PyTorch answers with a named tuple of values and indices
 * (torch.return_types.sort, .topk, .kthvalue) write new tensors to *values and
 * *indices and return a ct_result; pass NULL for a result you do not need.
 * On failure both are set to NULL. Indices are int64. NaN counts as larger
 * than every number, as in PyTorch; all NaNs are equal to each other.
 *
 * Which of several equal elements comes first (and so the indices) is what
 * PyTorch 1.13's CPU kernels give: ctorch replays their unstable algorithms
 * (libstdc++'s std::sort, std::partial_sort, std::nth_element, and PyTorch's
 * quickselect) step for step where it matters, and sorts faster where it
 * does not. All functions are safe to call from several threads on
 * different tensors. */

/* torch.sort(input, dim, descending, stable): the values along dim in
 * ascending (or descending) order, and where each came from. A stable sort
 * keeps equal elements in their order; otherwise they come out as PyTorch's
 * default (unstable) sort leaves them. A 0-d tensor gives itself and index 0.
 * The results are laid out like the input (densely, when it has gaps). */
CTORCH_API ct_result ct_sort(const ct_tensor *input, int dim, bool descending, bool stable, ct_tensor **values,
                             ct_tensor **indices);

/* torch.argsort(input, dim, descending, stable): the indices of ct_sort. */
CTORCH_API ct_tensor *ct_argsort(const ct_tensor *input, int dim, bool descending, bool stable);

/* torch.topk(input, k, dim, largest, sorted): the k largest (or smallest)
 * elements along dim, contiguous results of size k along dim. With sorted
 * false the order of the k is PyTorch's (sorted anyway when k is at most
 * 1/64 of the dim). Error: "selected index k out of range". Bool inputs are
 * refused as in PyTorch; float16, which PyTorch 1.13 refuses, works. */
CTORCH_API ct_result ct_topk(const ct_tensor *input, int64_t k, int dim, bool largest, bool sorted,
                             ct_tensor **values, ct_tensor **indices);

/* torch.kthvalue(input, k, dim, keepdim): the k-th smallest element (k from 1)
 * along dim and its index; dim is removed unless keepdim. Float16 works
 * (PyTorch 1.13 refuses it); bool is refused as in PyTorch. */
CTORCH_API ct_result ct_kthvalue(const ct_tensor *input, int64_t k, int dim, bool keepdim, ct_tensor **values,
                                 ct_tensor **indices);

/* torch.unique(input, sorted, return_inverse, return_counts) of the flattened
 * input: the distinct values (1-D) in ascending order, or with sorted false
 * in the order PyTorch 1.13's hash set gives them; and, when the pointers are
 * given, the inverse (for each input element, the position of its value:
 * input's shape, int64) and the counts. -0 and 0 are one value (the first
 * seen is kept). Every NaN is a value of its own, with PyTorch 1.13's
 * quirks: count 0, inverse 0, and a place among the sorted values that
 * depends on the hash set. Float16 works (PyTorch 1.13 refuses it). */
CTORCH_API ct_result ct_unique(const ct_tensor *input, bool sorted, ct_tensor **output, ct_tensor **inverse,
                               ct_tensor **counts);

/* torch.unique(input, sorted, return_inverse, return_counts, dim): the
 * distinct slices along dim, in lexicographic order (PyTorch sorts them
 * whatever `sorted` says); inverse and counts have one entry per slice. */
CTORCH_API ct_result ct_unique_dim(const ct_tensor *input, int dim, bool sorted, ct_tensor **output,
                                   ct_tensor **inverse, ct_tensor **counts);

/* torch.unique_consecutive(input, return_inverse, return_counts): the first
 * value of every run of equal values of the flattened input, with the inverse
 * (input's shape) and the run lengths. */
CTORCH_API ct_result ct_unique_consecutive(const ct_tensor *input, ct_tensor **output, ct_tensor **inverse,
                                           ct_tensor **counts);

/* torch.unique_consecutive(input, return_inverse, return_counts, dim): the
 * same for runs of equal slices along dim. */
CTORCH_API ct_result ct_unique_consecutive_dim(const ct_tensor *input, int dim, ct_tensor **output,
                                               ct_tensor **inverse, ct_tensor **counts);

/* torch.nonzero(input): the int64 (n, input.dim()) indices of the nonzero
 * elements in row-major order (column-major in memory, as PyTorch lays it out).
 * NaN is nonzero, -0 is zero. */
CTORCH_API ct_tensor *ct_nonzero(const ct_tensor *input);

/* torch.nonzero(input, as_tuple=True): one 1-D int64 tensor of indices per
 * dim (one for a 0-d input), written to out, which has room for
 * max(1, ct_dim(input)) tensors; their number goes to *count. */
CTORCH_API ct_result ct_nonzero_as_tuple(const ct_tensor *input, ct_tensor **out, int *count);

/* torch.searchsorted's keyword arguments; zero for each is PyTorch's default.
 * side, when given, is "left" or "right" and must agree with right. sorter
 * holds int64 indices that sort sorted_sequence along its last dim. */
typedef struct ct_searchsorted_opts {
    bool out_int32;
    bool right;
    const char *side;
    const ct_tensor *sorter;
} ct_searchsorted_opts;

/* torch.searchsorted(sorted_sequence, input, ...): for each value, the index
 * where it would be inserted into the last dim of sorted_sequence (1-D, or
 * with the leading dims of input) to keep it sorted: before equal boundaries,
 * or after them with right. int64 results of input's shape (int32 with
 * out_int32). Different dtypes are promoted as for a binary op. */
CTORCH_API ct_tensor *ct_searchsorted(const ct_tensor *sorted_sequence, const ct_tensor *input,
                                      ct_searchsorted_opts opts);

/* torch.searchsorted(sorted_sequence, number, ...): a 0-d result; the number
 * takes part in type promotion as a Python number does. */
CTORCH_API ct_tensor *ct_searchsorted_scalar(const ct_tensor *sorted_sequence, ct_scalar value,
                                             ct_searchsorted_opts opts);
