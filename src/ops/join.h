/* Public joining, splitting and index-based API: cat, stack, split, chunk,
 * unbind, broadcast_tensors, repeat, tile, repeat_interleave, flip, roll,
 * gather, scatter, index_select, index_add, index_fill, index_copy,
 * masked_fill, masked_select, take, one_hot.
 *
 * Lists of tensors are a C array and a count; the tensors are only read. Ops
 * that give several tensors (split, chunk, unbind) write new references to an
 * array the caller provides and return how many there are, as Python unpacks
 * `a, b, c = torch.split(x, 2)`:
 *
 *     ct_tensor *parts[3];
 *     if (ct_split(x, 2, 0, parts, 3) < 0) ... ct_last_error() says why
 *
 * With out NULL they only count; an array too small for the pieces is an
 * error (ValueError, as Python's unpacking) and nothing is written. Failures
 * return a negative ct_result. The pieces are views of the input, as in PyTorch.
 *
 * Indices are int64 tensors (index_select, index_add and repeat_interleave
 * also take int32, as PyTorch does); an index out of range is an error with
 * PyTorch's message, found before anything is written. Where several indices
 * write the same element, the last one wins (scatter, index_copy) or they
 * accumulate in index order (scatter_add, index_add), as PyTorch's CPU
 * kernels do. Functions are thread safe for different output tensors. */

/* ---------------------------------------------------------------- joining */

/* torch.cat(tensors, dim): the n tensors joined along dim, promoted to their
 * common dtype (torch.result_type). As in PyTorch, 1-D tensors of size 0 are
 * skipped whatever the other shapes, and 4-D (5-D) inputs that are all
 * channels-last give a channels-last result. */
CTORCH_API ct_tensor *ct_cat(ct_tensor *const *tensors, int n, int dim);
/* torch.stack(tensors, dim): the n equal-shaped tensors joined along a new dim. */
CTORCH_API ct_tensor *ct_stack(ct_tensor *const *tensors, int n, int dim);
/* torch.hstack: cat along dim 1 (dim 0 when the first tensor is 1-D), after
 * making 0-d tensors 1-D. */
CTORCH_API ct_tensor *ct_hstack(ct_tensor *const *tensors, int n);
/* torch.vstack: cat along dim 0 after making every tensor at least 2-D. */
CTORCH_API ct_tensor *ct_vstack(ct_tensor *const *tensors, int n);

/* ---------------------------------------------------------------- splitting (views) */

/* torch.split(t, split_size, dim): pieces of split_size along dim (the last
 * one smaller) into out (room for capacity); returns their number. */
CTORCH_API int64_t ct_split(const ct_tensor *t, int64_t split_size, int dim, ct_tensor **out, int64_t capacity);
/* torch.split(t, [sizes], dim), which is torch.split_with_sizes: one piece per
 * size (at most CT_MAX_DIMS of them in a ct_shape). */
CTORCH_API int64_t ct_split_with_sizes(const ct_tensor *t, ct_shape sizes, int dim, ct_tensor **out,
                                       int64_t capacity);
/* torch.chunk(t, chunks, dim): at most `chunks` pieces of equal size (the last
 * smaller); fewer when the size does not allow, as in PyTorch. */
CTORCH_API int64_t ct_chunk(const ct_tensor *t, int64_t chunks, int dim, ct_tensor **out, int64_t capacity);
/* torch.unbind(t, dim): the slices along dim, each without that dim. */
CTORCH_API int64_t ct_unbind(const ct_tensor *t, int dim, ct_tensor **out, int64_t capacity);
/* torch.broadcast_tensors: the n tensors expanded (as views) to their common
 * broadcast shape, into out, which has room for n. */
CTORCH_API ct_result ct_broadcast_tensors(ct_tensor *const *tensors, int n, ct_tensor **out);

/* ---------------------------------------------------------------- repeating, flipping, rolling */

/* Tensor.repeat(repeats): t tiled repeats[i] times along each dim; repeats
 * may have more dims than t (new leading dims). */
CTORCH_API ct_tensor *ct_repeat(const ct_tensor *t, ct_shape repeats);
/* torch.tile(t, dims): repeat, with dims padded by leading 1s to t's rank. */
CTORCH_API ct_tensor *ct_tile(const ct_tensor *t, ct_shape dims);
/* torch.repeat_interleave(t, repeats): every element of the flattened t
 * repeated `repeats` times; the _dim form repeats the slices along dim. */
CTORCH_API ct_tensor *ct_repeat_interleave(const ct_tensor *t, int64_t repeats);
CTORCH_API ct_tensor *ct_repeat_interleave_dim(const ct_tensor *t, int64_t repeats, int dim);
/* torch.repeat_interleave(t, repeats) with a tensor of repeats (int64 or
 * int32; one per element or slice, or a single one for all). */
CTORCH_API ct_tensor *ct_repeat_interleave_tensor(const ct_tensor *t, const ct_tensor *repeats);
CTORCH_API ct_tensor *ct_repeat_interleave_tensor_dim(const ct_tensor *t, const ct_tensor *repeats, int dim);
/* torch.repeat_interleave(repeats): 0, 1, 2, ... each repeated repeats[i]
 * times, in repeats' dtype. */
CTORCH_API ct_tensor *ct_repeat_interleave_index(const ct_tensor *repeats);
/* torch.flip(t, dims): t reversed along the given dims (laid out like t). */
CTORCH_API ct_tensor *ct_flip(const ct_tensor *t, ct_shape dims);
/* torch.roll(t, shifts, dims): elements shifted along each dim, wrapping
 * around; with no dims, along the flattened t (one shift). */
CTORCH_API ct_tensor *ct_roll(const ct_tensor *t, ct_shape shifts, ct_shape dims);

/* ---------------------------------------------------------------- gather and scatter */

/* torch.gather(t, dim, index): out[i][j] = t[index[i][j]][j] for dim 0, and so
 * on: the result has index's shape. */
CTORCH_API ct_tensor *ct_gather(const ct_tensor *t, int dim, const ct_tensor *index);
/* torch.scatter(t, dim, index, src): a copy of t with t[index[i][j]][j] =
 * src[i][j] (dim 0); src has t's dtype. scatter_ writes t itself. */
CTORCH_API ct_tensor *ct_scatter(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src);
CTORCH_API ct_result ct_scatter_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src);
/* torch.scatter(t, dim, index, value): the same with a number. */
CTORCH_API ct_tensor *ct_scatter_scalar(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value);
CTORCH_API ct_result ct_scatter_scalar_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value);
/* torch.scatter(t, dim, index, src, reduce=reduce): reduce "add" or
 * "multiply" combines instead of replacing. (torch.scatter_reduce, with
 * "sum", "amax"... and include_self, is another function.) */
CTORCH_API ct_tensor *ct_scatter_with_reduce(const ct_tensor *t, int dim, const ct_tensor *index,
                                             const ct_tensor *src, const char *reduce);
CTORCH_API ct_result ct_scatter_with_reduce_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src,
                                             const char *reduce);
CTORCH_API ct_tensor *ct_scatter_scalar_with_reduce(const ct_tensor *t, int dim, const ct_tensor *index,
                                                    ct_scalar value, const char *reduce);
CTORCH_API ct_result ct_scatter_scalar_with_reduce_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value,
                                                    const char *reduce);
/* torch.scatter_add(t, dim, index, src): t[index[i][j]][j] += src[i][j]. */
CTORCH_API ct_tensor *ct_scatter_add(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src);
CTORCH_API ct_result ct_scatter_add_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *src);

/* ---------------------------------------------------------------- index along a dim */

/* torch.index_select(t, dim, index): the slices index[k] along dim (index
 * 1-D or 0-d, int64 or int32). */
CTORCH_API ct_tensor *ct_index_select(const ct_tensor *t, int dim, const ct_tensor *index);
/* torch.index_add(t, dim, index, source): t's slice index[k] along dim plus
 * source's slice k; the _alpha forms add alpha * source (torch's alpha=),
 * the _ forms write t itself. */
CTORCH_API ct_tensor *ct_index_add(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source);
CTORCH_API ct_result ct_index_add_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source);
CTORCH_API ct_tensor *ct_index_add_alpha(const ct_tensor *t, int dim, const ct_tensor *index,
                                         const ct_tensor *source, ct_scalar alpha);
CTORCH_API ct_result ct_index_add_alpha_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source,
                                         ct_scalar alpha);
/* torch.index_fill(t, dim, index, value): the slices index[k] set to value
 * (a 0-d tensor; the _scalar forms take a number). Negative indices count
 * from the end here, as in PyTorch. */
CTORCH_API ct_tensor *ct_index_fill(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *value);
CTORCH_API ct_result ct_index_fill_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *value);
CTORCH_API ct_tensor *ct_index_fill_scalar(const ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value);
CTORCH_API ct_result ct_index_fill_scalar_(ct_tensor *t, int dim, const ct_tensor *index, ct_scalar value);
/* torch.index_copy(t, dim, index, source): the slices index[k] replaced by
 * source's slices k. */
CTORCH_API ct_tensor *ct_index_copy(const ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source);
CTORCH_API ct_result ct_index_copy_(ct_tensor *t, int dim, const ct_tensor *index, const ct_tensor *source);

/* ---------------------------------------------------------------- masks and flat indices */

/* torch.masked_fill(t, mask, value): t where mask is false, value (a 0-d
 * tensor; _scalar: a number) where it is true; mask and t broadcast together
 * (in place, mask broadcasts to t). Masks are bool; other dtypes are read as
 * PyTorch 1.13 reads them (the first byte of each element, which must be 0 or 1). */
CTORCH_API ct_tensor *ct_masked_fill(const ct_tensor *t, const ct_tensor *mask, const ct_tensor *value);
CTORCH_API ct_result ct_masked_fill_(ct_tensor *t, const ct_tensor *mask, const ct_tensor *value);
CTORCH_API ct_tensor *ct_masked_fill_scalar(const ct_tensor *t, const ct_tensor *mask, ct_scalar value);
CTORCH_API ct_result ct_masked_fill_scalar_(ct_tensor *t, const ct_tensor *mask, ct_scalar value);
/* torch.masked_select(t, mask): the elements where the (bool or uint8) mask,
 * broadcast with t, is true, as a 1-D tensor in row-major order. */
CTORCH_API ct_tensor *ct_masked_select(const ct_tensor *t, const ct_tensor *mask);
/* torch.take(t, index): t seen as 1-D, read at index (negatives count from
 * the end); the result has index's shape. */
CTORCH_API ct_tensor *ct_take(const ct_tensor *t, const ct_tensor *index);
/* torch.nn.functional.one_hot(t, num_classes): int64 t of class indices to
 * an int64 tensor with a new last dim of num_classes (-1: max(t) + 1). */
CTORCH_API ct_tensor *ct_one_hot(const ct_tensor *t, int64_t num_classes);
