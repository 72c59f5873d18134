/* Backend interface: the names of the reduce ops, for the op table (src/ops/optable.h),
 * and the interface between their front ends (src/ops/reduce.c) and a
 * device's kernels (src/cpu/reduce.c). */
#define CT__REDUCE_OP_NAMES(X)                                                                        \
    X(sum) X(nansum) X(mean) X(prod) X(max) X(min) X(amax) X(amin) X(argmax) X(argmin) X(std) X(var)  \
    X(std_mean) X(var_mean) X(median) X(mode) X(norm) X(logsumexp) X(all) X(any) X(count_nonzero)     \
    X(cumsum) X(cumprod) X(cummax) X(cummin) X(logcumsumexp) X(softmax) X(log_softmax)

/* What a reduction over a set of dims combines. The front end has already
 * converted the input to the dtype the kernel works in. */
typedef enum ct__rop {
    CT__ROP_SUM,    /* floating: PyTorch's cascade sum; integral and bool: into int64 */
    CT__ROP_NANSUM, /* floating, NaN counted as zero */
    CT__ROP_PROD,   /* floating; integral and bool into int64 */
    CT__ROP_MAX,    /* same dtype in and out; NaN wins */
    CT__ROP_MIN,
    CT__ROP_ALL,    /* into bool, or uint8 for a uint8 input */
    CT__ROP_ANY,
    CT__ROP_COUNT,  /* nonzero elements, into int64 */
    CT__ROP_NORM,   /* the p-norm, args->p; same floating dtype in and out */
    CT__ROP_VAR,    /* Welford: args->correction, take_sqrt, and mean (may be NULL) */
    CT__ROP_SQDEV   /* sum of (x - args->center)^2 in double into *args->result (out is NULL) */
} ct__rop;

typedef struct ct__rargs {
    double p;
    int64_t correction;
    bool take_sqrt;
    ct_tensor *mean; /* laid out as out */
    double center;
    double *result;
} ct__rargs;

/* What runs along one dim: reductions to a value and an index, scans, softmax. */
typedef enum ct__aop {
    CT__AOP_MAX,    /* values and indices */
    CT__AOP_MIN,
    CT__AOP_ARGMAX, /* indices only */
    CT__AOP_ARGMIN,
    CT__AOP_MEDIAN, /* values and indices */
    CT__AOP_MODE,
    CT__AOP_CUMSUM, /* values of in's shape */
    CT__AOP_CUMPROD,
    CT__AOP_CUMMAX, /* values and indices of in's shape */
    CT__AOP_CUMMIN,
    CT__AOP_LOGCUMSUMEXP,
    CT__AOP_SOFTMAX,
    CT__AOP_LOG_SOFTMAX
} ct__aop;

typedef struct ct__reduce_kernels {
    /* op over the dims of in whose bit is set in mask, into out, which has
     * in's dims (size 1 where reduced) and holds the op's identity. */
    void (*reduce)(ct__rop op, ct_tensor *out, const ct_tensor *in, uint32_t mask, const ct__rargs *args);
    /* op along dim of in into values and/or indices (int64), which have in's
     * dims, of size 1 along dim for the reductions. Fails only for memory. */
    ct_result (*along)(ct__aop op, ct_tensor *values, ct_tensor *indices, const ct_tensor *in, int dim);
} ct__reduce_kernels;
