/* Private: the strided iterator that every CPU elementwise kernel runs through.
 *
 * Operands share one iteration shape; an input with fewer dims or size-1 dims
 * is broadcast by zero strides. Dims are reordered so that the innermost one
 * has the smallest output stride, then adjacent dims that are one block of
 * memory for every operand are merged, so a contiguous tensor of any shape is
 * one loop of numel elements. A kernel is a loop over n elements of the
 * innermost dim with per-operand byte strides; it takes the fast path when
 * they equal the element sizes. */

#define CT__ITER_MAX_OPS 6

typedef struct ct__iter {
    int nops, ndim;
    int64_t numel;
    int64_t shape[CT_MAX_DIMS];                   /* [0] is the innermost dim */
    int64_t strides[CT_MAX_DIMS][CT__ITER_MAX_OPS]; /* bytes, per dim, per operand */
    char *data[CT__ITER_MAX_OPS];
} ct__iter;

/* data[i] points at operand i's element; strides[i] its byte stride; n elements. */
typedef void (*ct__loop_fn)(char **data, const int64_t *strides, int64_t n, void *ctx);

/* Operand 0 is the output (it defines the shape); the others are broadcast to it. */
static void ct__iter_init(ct__iter *it, int nops, const ct_tensor *const *ops);
/* The dims in the order PyTorch's TensorIterator iterates them, innermost
 * first, for operands broadcast to shape (NULL operands are skipped). */
static void ct__iter_perm(const ct_tensor *const *ops, int nops, const int64_t *shape, int ndim, int *perm);
/* Strides of a new dense output laid out like the inputs (in that order of
 * precedence), as TensorIterator allocates outputs. */
static void ct__dense_strides_for(const ct_tensor *const *inputs, int ninputs, const int64_t *shape, int ndim,
                                  int64_t *strides);
/* The iterator of operands that need no general setup, or false: a
 * contiguous output, and inputs contiguous with its shape or of one element
 * (broadcast by a zero stride). Their iteration order is plain memory order,
 * one dim of numel elements, the same that ct__iter_init would find. */
static bool ct__iter_init_flat(ct__iter *it, int nops, const ct_tensor *const *ops);
/* The same iterator for operands known to be contiguous with ops[0]'s sizes
 * or 0-d (ct__op_args.alike): nothing is checked. */
static void ct__iter_init_alike(ct__iter *it, int nops, const ct_tensor *const *ops);
/* Run fn over operands alike, as ct__iter_parallel over ct__iter_init_alike's
 * iterator does; a small one is one call of fn, with no iterator built. */
static void ct__iter_run_alike(int nops, const ct_tensor *const *ops, ct__loop_fn fn, void *ctx);
/* Run fn over elements [begin, end) of the iteration order. */
static void ct__iter_range(const ct__iter *it, int64_t begin, int64_t end, ct__loop_fn fn, void *ctx);
/* Run fn over everything, on one thread. */
static void ct__iter_serial(const ct__iter *it, ct__loop_fn fn, void *ctx);
/* Run fn over everything, split across OpenMP threads when large enough. */
static void ct__iter_parallel(const ct__iter *it, ct__loop_fn fn, void *ctx);

/* Split [0, n) into chunks of at least `grain` and run fn on each, in parallel
 * with OpenMP when built with it (at::parallel_for). */
typedef void (*ct__range_fn)(int64_t begin, int64_t end, void *ctx);
static void ct__parallel_for(int64_t n, int64_t grain, ct__range_fn fn, void *ctx);

/* x rounded to the floating dtype dt, as arithmetic in dt rounds (range.c). */
static double ct__round_to(double x, ct_dtype dt);
/* The range factories' kernel (range.c): the backend's range entry. */
static void ct__cpu_range(const ct__range_job *job);

/* Sorting as PyTorch 1.13's CPU kernels sort (sort.c). Elements are (key,
 * index) pairs whose unsigned key orders as PyTorch compares the values, so
 * the algorithms compare integers whatever the dtype. Which of equal keys
 * comes first, and with it every index PyTorch reports, is decided by the
 * steps of libstdc++ 12's unstable algorithms: sort, topk, unique, mode and
 * multinomial all run the one replay of them in sort.c. */
typedef struct ct__sort_kv {
    uint64_t key;
    int64_t idx;
} ct__sort_kv;

/* A double's key: NaN above everything and all NaNs equal, -0 equal to 0. */
static inline uint64_t ct__key_f64(ct__f64_t v);
/* The key every NaN of dt gets, or 0 for dtypes without NaN. */
static uint64_t ct__sort_nan_key(ct_dtype dt);
/* kv[j] = (key of element j of a slice of dt with byte stride `stride`, xor flip; j). */
static void ct__sort_load_keys(ct_dtype dt, const char *src, int64_t stride, int64_t n, uint64_t flip,
                               ct__sort_kv *kv);
/* std::sort with operator< on the values: by key, except that a NaN (key
 * nan; 0 for none) is neither below nor above anything. */
static void ct__std_sort_values(ct__sort_kv *first, ct__sort_kv *last, uint64_t nan);
/* TopKImpl.h: the k smallest keys of kv[0, n) to the front, in order unless
 * k is large and sorted is false (std::partial_sort, or std::nth_element and
 * std::sort). */
static void ct__std_topk(ct__sort_kv *kv, int64_t n, int64_t k, bool sorted);

/* The rare dtypes (uint8, int8, int16, int32, float16, bfloat16) have few
 * loops of their own: most kernels run the loop of the type they widen to,
 * exactly (int64 for the integers, float for float16 and bfloat16), on
 * operands widened a chunk at a time. w[k] = element k of n at p (dtype dt,
 * byte stride s) widened; the store is its inverse, element k of n at p =
 * w[k] stored as dtype dt stores it (integers wrap, floats round). */
static void ct__load_widened(ct_dtype dt, const char *p, int64_t s, int64_t n, void *w);
static void ct__store_narrowed(ct_dtype dt, const void *w, char *p, int64_t s, int64_t n);
