/* Private: the autograd graph. A differentiable op that sees an input which
 * requires grad records a node: its backward function, edges to the nodes
 * that made its inputs (a leaf's edge goes to its AccumulateGrad node), what
 * backward needs saved, and the shape of each output (to make zeros for an
 * output that got no gradient and to check the gradients backward returns). */

typedef struct ct_node ct__node;

typedef struct ct__edge {
    ct__node *fn; /* NULL: that input needs no gradient */
    int input_nr; /* which of fn's outputs (its gradient slot) */
} ct__edge;

/* A tensor saved for backward: a detached view of the same storage and the
 * storage's version at save time, so a later in-place write is caught. An
 * output of the node itself is saved without its grad_fn (a node holding its
 * own output would be a reference cycle) and reattached when unpacked. */
typedef struct ct__saved {
    ct_tensor *data;
    uint32_t version;
    bool is_output;
    int output_nr;
} ct__saved;

/* A hook: called with a gradient; may return a replacement (a new reference)
 * or NULL to keep it. Removable by id. On a node's prehook list, `slot` picks
 * the output it applies to (-1: each) and `owner` is the non-leaf tensor whose
 * register_hook or retain_grad put it there (weak: removed when it dies);
 * `retain` marks retain_grad's, which stores the gradient in owner's .grad. */
typedef struct ct__hook {
    int id;
    ct_tensor *(*fn)(ct_tensor *grad, void *user);
    void *user;
    int slot;
    ct_tensor *owner;
    bool retain;
} ct__hook;

typedef struct ct__hook_list {
    ct__hook *items;
    int n, cap;
} ct__hook_list;

/* Per-output shape and dtype, as the node's outputs were made. */
typedef struct ct__out_meta {
    int ndim;
    int64_t sizes[CT_MAX_DIMS];
    ct_dtype dtype;
    ct_device device;
} ct__out_meta;

typedef struct ct__node_type {
    const char *name; /* PyTorch's node name: "AddBackward0" */
    /* grads_in[i] = gradient for next edge i (left NULL when needs_input_grad(i)
     * is false or the gradient is zero). grads_out[k] is the gradient of output k,
     * never NULL (zeros are made when none arrived). */
    ct_result (*backward)(ct__node *n, ct_tensor *const *grads_out, ct_tensor **grads_in);
} ct__node_type;

#define CT__NODE_MAX_SAVED 6
#define CT__NODE_MAX_ARGS 6

struct ct_node {
    int refcount;
    const ct__node_type *type;
    const char *name;  /* when the form differs from the type's ("RsubBackward1"); NULL: the type's */
    uint64_t seq;      /* creation order: later nodes run first, as in PyTorch */
    int n_next;
    ct__edge *next;    /* n_next edges (next_inline when few) */
    ct__edge next_inline[4];
    int n_out;
    ct__out_meta *out; /* n_out entries (out_inline when few) */
    ct__out_meta out_inline[2];
    ct__saved *saved;  /* n_saved of cap_saved (saved_inline until a custom function saves more) */
    ct__saved saved_inline[CT__NODE_MAX_SAVED];
    int n_saved, cap_saved;
    bool saved_freed;  /* released by a backward without retain_graph */
    bool save_failed;  /* memory ran out saving a tensor: its backward cannot run */
    double args[CT__NODE_MAX_ARGS];   /* op-specific numbers (alpha, dims, ...) */
    int64_t iargs[CT__NODE_MAX_ARGS];
    ct__op_args pw;                   /* a pointwise op's parameters */
    void *extra;                      /* larger op data (a view's geometry), freed with the node */
    void (*release_extra)(ct__node *n); /* frees what extra holds, when it is more than one block */
    ct_tensor *leaf;   /* AccumulateGrad: the leaf it accumulates into */
    ct__hook_list pre_hooks, post_hooks; /* node hooks (Node.register_prehook / register_hook) */
    const char *anomaly_op; /* the forward op that recorded it, kept in anomaly mode */
    /* the running engine's scratch */
    uint64_t run;
    int deps, pending;
    ct_tensor **buffer; /* n_out gradients arriving */
    bool needed, capture_any;
};

/* A tensor's autograd state, allocated the first time it takes part. */
typedef struct ct__ag_meta {
    ct_tensor *grad;
    ct__node *grad_fn;     /* strong */
    int output_nr;
    ct__node *accumulator; /* weak: a leaf's AccumulateGrad node while it lives */
    bool retains_grad;
    ct__hook_list hooks, post_acc_hooks;
} ct__ag_meta;

static inline ct__ag_meta *ct__meta(const ct_tensor *t) { return t->ag; }

/* param.data = src: t takes src's storage, dtype and geometry (graph.c). */
static void ct__set_data(ct_tensor *t, const ct_tensor *src);

/* Whether ops record graphs now (grad mode on, inference mode off). */
static bool ct__grad_mode(void);
/* Whether t takes part in autograd as an input: requires grad (leaf) or has a grad_fn. */
static bool ct__requires_grad(const ct_tensor *t);
/* Whether any of ts (n, NULL entries allowed) requires grad. */
static bool ct__any_requires_grad(const ct_tensor *const *ts, int n);
/* Whether t's own grad_fn field is unset: Tensor.is_leaf as PyTorch's C++
 * asks it (requires_grad_, retain_grad), reading no view's history. */
static bool ct__leaf_field(const ct_tensor *t);
/* Record op `type` with its inputs (n_in; NULL entries allowed) and outputs:
 * when grad mode is on and an input requires grad, a node is made, the
 * outputs get it as grad_fn and it is returned (for saving); else NULL. */
static bool ct__recorded_ok(const ct__node *n, const ct_tensor *const *inputs, int n_in);
/* out when the op's recording held (ct__recorded_ok); else NULL, out
 * discarded and the error set. */
static ct_tensor *ct__recorded_or_discard(ct_tensor *out, const ct__node *n, const ct_tensor *const *inputs, int n_in);
static ct__node *ct__record(const ct__node_type *type, const ct_tensor *const *inputs, int n_in,
                            ct_tensor *const *outputs, int n_out);
/* Whether output k of n went to a tensor when n was recorded: a node may
 * have outputs that none holds (a custom function's non-differentiable
 * ones, a backward op's outputs not asked for), whose meta stays unset. */
static bool ct__has_output(const ct__node *n, int k);
/* Save t for backward (is_output: t is one of the node's outputs). */
static void ct__save(ct__node *n, const ct_tensor *t, bool is_output);
/* Saved tensor i, checked against in-place writes; NULL with PyTorch's error. */
static ct_tensor *ct__saved_get(ct__node *n, int i);
/* Whether input i of n requires grad: its edge leads to a node (ctx.needs_input_grad, fixed when
 * the node was recorded). */
static bool ct__edge_requires_grad(const ct__node *n, int i);
/* Whether n's backward, run by the engine now, must compute the gradient of input i: its edge
 * requires grad and the run needs what lies behind it (PyTorch's should_compute_output:
 * autograd.grad and backward(inputs=) compute only what leads to their inputs). */
static bool ct__needs_grad(const ct__node *n, int i);
/* Free t's autograd state (from ct_release). */
static void ct__ag_meta_free(ct_tensor *t);
/* t's autograd state, made on first use; NULL (the error set) when memory runs out. */
static ct__ag_meta *ct__meta_get(ct_tensor *t);
/* Whether an in-place op may write t, its other inputs being in (n_in; t may
 * be among them): PyTorch's check_inplace. When the write would be recorded
 * it refuses a leaf that requires grad, a view of one, and a view whose
 * history may not be rewritten. The op bumps t's storage version after it writes. */
static ct_result ct__check_inplace_grad(const ct_tensor *t, const ct_tensor *const *in, int n_in);
/* PyTorch's refusals of inference tensors outside inference mode: written in
 * place (every in-place op asks, through ct__check_inplace_grad or itself),
 * and saved for backward (ct__save asks). */
static ct_result ct__check_inference_write(const ct_tensor *t);
static ct_result ct__check_inference_save(const ct_tensor *t);
/* Whether autograd may read the history of inputs in (n, NULL entries
 * allowed): a view made in no_grad or inference mode or by a multi-output op
 * whose storage was written since (through its base or another view) is
 * refused with PyTorch's error. Ops call it before computing; ct__record,
 * ct_grad_fn and backward's roots call it too. */
static ct_result ct__history_check(const ct_tensor *const *in, int n);
/* The same, for an op about to record with these inputs (grad mode on):
 * what a differentiable op checks before it computes. */
static ct_result ct__recordable(const ct_tensor *const *in, int n);
/* A result an op made but cannot hand back (its record was refused): NULL. */
static inline ct_tensor *ct__unrecordable(ct_tensor *r)
{
    ct__discard(r);
    return NULL;
}
/* A view used after its storage was written elsewhere takes its base's new history. */
static void ct__view_refresh(ct_tensor *v);
/* Output v of node fn was written in place (it is fn's input `self`) and is
 * a view: its base's history becomes CopySlices around fn, and v's a view of
 * that (formulas_view.c). */
static bool ct__rebase_history(ct_tensor *v, ct__node *fn, int self);
/* Whether an op on inputs in (n, NULL entries allowed) is recorded: grad
 * mode is on and one of them requires grad. */
static inline bool ct__records(const ct_tensor *const *in, int n) { return ct__grad_mode() && ct__any_requires_grad(in, n); }
/* The pointwise ops' formulas (formulas.c): record op's node (when
 * ct__records(in, n_in)), and the copy of self an in-place form must keep
 * before it writes (or NULL). */
static ct_result ct__pointwise_record(ct__op op, ct_tensor *out, const ct_tensor *const *in, int n_in,
                                 const ct__op_args *args, ct_tensor *self_before);
static ct_tensor *ct__pointwise_self_before(ct__op op, const ct_tensor *const *in, int n_in);
static ct_result ct__pointwise_saves_inference(ct__op op, const ct_tensor *const *in, int n_in, const ct__op_args *args);
/* Record out = other - self (torch.rsub): RsubBackward0 over (self, other),
 * or RsubBackward1 over self when other is a number (NULL). */
static bool ct__record_rsub(ct_tensor *out, const ct_tensor *self, const ct_tensor *other);
/* Record out = self / number (ct__div_number): DivBackward1 over self. */
static bool ct__record_div_number(ct_tensor *out, const ct_tensor *self, ct_scalar number);
/* Record out = op(in[0], in[1]) with args (NULL: none), a backward op of
 * the table (ct_tanh_backward...), as the node of its activation's first
 * derivative under create_graph: out, or NULL (out discarded) when the
 * record failed. */
static ct_tensor *ct__record_backward_op(ct__op op, ct_tensor *out, const ct_tensor *const *in, const ct__op_args *args);
/* Whether op has a derivative (an in-place form on a leaf that requires grad is refused). */
static bool ct__pointwise_differentiable(ct__op op, const ct_tensor *const *in, const ct__op_args *args);
/* A tensor's place in its storage: what a strided view's backward needs. */
typedef struct ct__geom {
    int ndim;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], offset;
} ct__geom;

/* How a view relates to its input, for its node. */
typedef enum ct__view_kind {
    CT__VIEW_RESHAPE,   /* view, reshape, flatten, unflatten, squeeze: grad reshaped back */
    CT__VIEW_TRANSPOSE, /* iargs: the two dims */
    CT__VIEW_PERMUTE,   /* iargs: the permutation (in extra) */
    CT__VIEW_UNSQUEEZE, /* iargs[0]: the dim */
    CT__VIEW_EXPAND,    /* grad summed to the input's shape */
    CT__VIEW_STRIDED    /* select, slice, narrow, diagonal, unfold, as_strided: scatter by storage position */
} ct__view_kind;

/* Record view v of t (the view functions call it): a node of `name` whose
 * backward follows `kind`, with p the permutation (PERMUTE), the two dims
 * (TRANSPOSE) or the dim (UNSQUEEZE). */
static bool ct__record_view(const char *name, ct__view_kind kind, ct_tensor *v, const ct_tensor *t, const int64_t *p);
/* g summed down to the shape it was broadcast from (at::sum_to; formulas.c). */
static ct_tensor *ct__sum_to_shape(const ct_tensor *g, const int64_t *sizes, int ndim);

/* ---------------------------------------------------------------- backward ops */

/* A first derivative that PyTorch computes as an op of its own, with a node
 * of its own under create_graph (elu_backward: EluBackwardBackward0):
 * in[0] is the gradient arriving, in[1..n_saved) what the formula reads, n
 * the forward's node (its numbers: pw, args, iargs, extra). It sets out[k]
 * for each of its outputs asked for (want[k]: native_layer_norm_backward
 * has three) and leaves the others NULL. */
typedef ct_result (*ct__grad_formula)(const ct__node *n, const ct_tensor *const *in, const bool *want,
                                      ct_tensor **out);
/* The formula of a first derivative of one output. */
typedef ct_tensor *(*ct__grad_formula1)(const ct__node *n, const ct_tensor *const *in);

#define CT__GRAD_OP_MAX_OUT 3

typedef struct ct__grad_op {
    ct__node_type type;       /* its node's name, and ct__bw_grad_op */
    ct__grad_formula formula;
    int n_in;                 /* in[0..n_in) are its tensor inputs; the rest stand for numbers */
    int n_saved;
    int n_out;                /* at most CT__GRAD_OP_MAX_OUT */
    size_t extra_size;        /* bytes of the forward node's extra the formula reads (its node keeps a copy) */
} ct__grad_op;

/* The backward of every backward op (formulas.c). */
static ct_result ct__bw_grad_op(ct__node *n, ct_tensor *const *grads_out, ct_tensor **grads_in);
/* A backward op of one output, whose formula (a ct__grad_formula1) returns it. */
#define CT__GRAD_OP(var, name, formula, n_in, n_saved)                                                       \
    static ct_result var##_formula(const ct__node *n, const ct_tensor *const *in, const bool *want,          \
                                   ct_tensor **out)                                                          \
    {                                                                                                        \
        (void)want;                                                                                          \
        return (out[0] = formula(n, in)) ? CT_OK : ct_last_error_code();                                     \
    }                                                                                                        \
    static const ct__grad_op var = {{name, ct__bw_grad_op}, var##_formula, n_in, n_saved, 1, 0}
/* A backward op of n_out outputs, whose formula reads extra_size bytes of the forward node's extra. */
#define CT__GRAD_OPS(var, name, formula, n_in, n_saved, n_out, extra_size) \
    static const ct__grad_op var = {{name, ct__bw_grad_op}, formula, n_in, n_saved, n_out, extra_size}
/* op's formula over in, the outputs asked for (want) into out; recorded as
 * one node when a graph is being recorded. On failure out is all NULL. */
static ct_result ct__grad_op_run(const ct__grad_op *op, const ct__node *n, const ct_tensor *const *in, const bool *want,
                                 ct_tensor **out);
/* The output of a backward op of one output (NULL on failure). */
static ct_tensor *ct__grad_op_apply(const ct__grad_op *op, const ct__node *n, const ct_tensor *const *in);

/* ---------------------------------------------------------------- writing formulas */

/* A backward function: gi[i] = gradient for input i from go[k], the gradients
 * of the outputs. S(i) is saved tensor i. */
#define CT__BACKWARD(name) static ct_result ct__bw_##name(ct__node *n, ct_tensor *const *go, ct_tensor **gi)
#define CT__S(i) ct__saved_get(n, i)
/* Set gi[i] to expr when input i needs a gradient; fail on a NULL result. */
#define CT__GRAD(i, expr)                                              \
    do {                                                               \
        if (ct__needs_grad(n, i)) {                                    \
            gi[i] = (expr);                                            \
            if (!gi[i]) return ct_last_error_code();                   \
        }                                                              \
    } while (0)

/* Set gi[0] to op over (go[0], the tensors listed) when input 0 needs a gradient. */
#define CT__GRAD_OP_OF(op, ...)                                        \
    do {                                                               \
        if (ct__needs_grad(n, 0)) {                                    \
            const ct_tensor *op_in_[] = {go[0], __VA_ARGS__};          \
            gi[0] = ct__grad_op_apply(op, n, op_in_);                  \
            if (!gi[0]) return ct_last_error_code();                   \
        }                                                              \
    } while (0)

/* A backward function that is op over (g, the saved tensors listed). */
#define CT__BACKWARD_OP(name, op, ...)   \
    CT__BACKWARD(name)                   \
    {                                    \
        CT__GRAD_OP_OF(op, __VA_ARGS__); \
        return CT_OK;                    \
    }

/* The shape and dtype input i had when node n was recorded (only for an
 * input that needs a gradient: its edge leads somewhere). */
static inline const ct__out_meta *ct__input_meta(const ct__node *n, int i)
{
    return &n->next[i].fn->out[n->next[i].input_nr];
}

/* A differentiable op built from other ops records one node of its own, so
 * the ops inside it record nothing: result = expr with grad mode off. */
#define CT__UNRECORDED(result, expr)                          \
    do {                                                      \
        ct_grad_mode ct__mode_ = ct_set_grad_enabled(false);  \
        (result) = (expr);                                    \
        ct_grad_mode_restore(ct__mode_);                      \
    } while (0)

/* ---------------------------------------------------------------- reductions */

/* The reductions, scans and selections with a derivative (formulas_reduce.c). */
typedef enum ct__reduce_grad {
    CT__RG_SUM,    /* SumBackward0 (all) / SumBackward1 (dims) */
    CT__RG_NANSUM, /* NansumBackward0 */
    CT__RG_MEAN,   /* MeanBackward0 / MeanBackward1 */
    CT__RG_PROD,   /* ProdBackward0 / ProdBackward1 */
    CT__RG_AMAX,   /* the gradient split evenly among the extremes of each slice */
    CT__RG_AMIN,
    CT__RG_MAX,    /* to one value (MaxBackward1, ...): split evenly among its ties */
    CT__RG_MIN,
    CT__RG_MEDIAN,
    CT__RG_MAX_DIM, /* a value and its index per slice: the gradient goes to the index */
    CT__RG_MIN_DIM,
    CT__RG_MEDIAN_DIM,
    CT__RG_MODE,
    CT__RG_KTHVALUE,
    CT__RG_SORT,   /* SortBackward0 / SortBackward1 (stable) */
    CT__RG_TOPK,
    CT__RG_STD,
    CT__RG_VAR,
    CT__RG_STD_MEAN, /* two outputs */
    CT__RG_VAR_MEAN,
    CT__RG_NORM,   /* NormBackward1 / NormBackward3 (with a dtype) */
    CT__RG_LOGSUMEXP,
    CT__RG_CUMSUM,
    CT__RG_CUMPROD,
    CT__RG_CUMMAX,
    CT__RG_CUMMIN,
    CT__RG_LOGCUMSUMEXP,
    CT__RG_SOFTMAX,
    CT__RG_LOG_SOFTMAX
} ct__reduce_grad;

/* What a reduction's backward needs besides its input and result. */
typedef struct ct__reduce_rec {
    uint32_t mask;            /* the reduced dims; a one-dim op's dim as its bit (none for a 0-d input) */
    int dim;                  /* a one-dim op's dim, wrapped (0 for a 0-d input) */
    bool keepdim;             /* the reduced dims were kept (sort and topk: always) */
    bool alt;                 /* PyTorch's other name: with dims (sum, mean, prod), a dtype (norm), stable (sort) */
    int64_t correction;       /* std, var */
    double p;                 /* norm */
    const ct_tensor *indices; /* the index output the gradient follows */
    const ct_tensor *self_before; /* an in-place scan: self before it was written (saved in its place) */
} ct__reduce_rec;

/* A record with the reduced dims mask and keepdim; the rest zero. */
static ct__reduce_rec ct__reduce_rec_of(uint32_t mask, bool keepdim);
/* Record reduction `kind` of input giving out[0] (and out[1]: the mean of
 * std_mean and var_mean); nothing when no input requires grad. False, with
 * PyTorch's error, when input's history cannot be read (ct__recordable):
 * the op then hands back NULL (ct__unrecordable). */
static bool ct__record_reduce(ct__reduce_grad kind, ct_tensor *const *out, int n_out, const ct_tensor *input,
                              const ct__reduce_rec *rec);

/* ---------------------------------------------------------------- joining and indexing */

/* The join ops with a derivative (formulas_join.c). */
typedef enum ct__join_grad {
    CT__JG_CAT, CT__JG_STACK, CT__JG_SPLIT, CT__JG_SPLIT_WITH_SIZES, CT__JG_UNBIND, CT__JG_REPEAT, CT__JG_FLIP,
    CT__JG_ROLL, CT__JG_GATHER, CT__JG_SCATTER, CT__JG_SCATTER_VALUE, CT__JG_SCATTER_ADD, CT__JG_INDEX_SELECT,
    CT__JG_INDEX_ADD, CT__JG_INDEX_FILL, CT__JG_INDEX_FILL_TENSOR, CT__JG_INDEX_COPY, CT__JG_MASKED_FILL,
    CT__JG_MASKED_FILL_TENSOR, CT__JG_MASKED_SELECT, CT__JG_TAKE, CT__JG_INDEX, CT__JG_INDEX_PUT, CT__JG_COPY_SLICES,
    CT__JG_COPY_ALL, CT__JG_INDEX_PUT_ACCUMULATE,
    CT__JG_NOT_IMPLEMENTED /* scatter with reduce: PyTorch has no derivative */
} ct__join_grad;

/* What a join op's backward needs; start from ct__join_args_init(dim). */
typedef struct ct__join_args {
    int dim;                /* the (wrapped) dim the op works along */
    const ct_tensor *index; /* the index or mask, saved (NULL: none) */
    bool has_alpha;         /* index_add's alpha */
    ct_scalar alpha;
    ct_shape shape, dims;   /* repeat: repeats; flip: dims; roll: shifts and dims; masked_select: broadcast shape */
    const int64_t *lengths; /* cat: each input's length along dim (-1: a skipped legacy empty input) */
    int n_lengths;
} ct__join_args;

static inline ct__join_args ct__join_args_init(int dim)
{
    ct__join_args a;
    memset(&a, 0, sizeof a);
    a.dim = dim;
    return a;
}

/* Record join op `kind` over inputs in (NULL entries: no gradient) giving
 * outputs out (several for split and unbind); false when refused, as
 * ct__record_reduce. */
static bool ct__record_join(ct__join_grad kind, const ct_tensor *const *in, int n_in, ct_tensor *const *out, int n_out,
                            const ct__join_args *a);

/* ---------------------------------------------------------------- copies */

/* The copying ops with a derivative (formulas_join.c). */
typedef enum ct__copy_grad {
    CT__CG_CLONE,   /* clone, contiguous */
    CT__CG_TO_COPY, /* to(dtype) */
    CT__CG_FILL,    /* fill_ with a number */
    CT__CG_ZERO,    /* zero_ */
    CT__CG_COPY,    /* copy_(src): the second input is src */
    CT__CG_DIAG,    /* diag(k) */
    CT__CG_TRIL,    /* tril(k) */
    CT__CG_TRIU,    /* triu(k) */
    CT__CG_PIN      /* pin_memory */
} ct__copy_grad;

/* Record copy op `kind` of input (and src, for copy_) giving out; k: the
 * diagonal. False when refused, as ct__record_reduce. */
static bool ct__record_copy(ct__copy_grad kind, ct_tensor *out, const ct_tensor *input, const ct_tensor *src, int64_t k);

/* ---------------------------------------------------------------- autocast */

/* How an op on autocast's lists casts its floating arguments (PyTorch's
 * CastPolicy): to the region's low-precision type, to float32, or to the
 * widest floating type among them. float64 arguments are never cast. */
typedef enum ct__cast_policy { CT__CAST_LOWER, CT__CAST_FP32, CT__CAST_PROMOTE } ct__cast_policy;

static CT__TLS bool ct__autocasting; /* on, and not paused inside an autocast op */
static bool ct__autocast_enter(ct_scope *casts, ct__cast_policy policy, const ct_tensor **const *args, int n);
static void ct__autocast_leave(ct_scope casts, ct_tensor *const *const *results, int n);

/* The first lines of an op on autocast's lists: in an autocast region it
 * casts the tensor arguments (addresses of the parameters: &input, &weight)
 * by policy, runs `call` (the op itself, with autocast paused, so the ops it
 * is made of cast nothing) and returns its result. */
#define CT__AUTOCAST(policy, call, ...)                                                                   \
    do {                                                                                                  \
        if (CT__UNLIKELY(ct__autocasting)) {                                                              \
            const ct_tensor **const ct__args_[] = {__VA_ARGS__};                                          \
            ct_scope ct__f_;                                                                              \
            if (!ct__autocast_enter(&ct__f_, policy, ct__args_, (int)(sizeof ct__args_ / sizeof *ct__args_))) \
                return NULL;                                                                              \
            ct_tensor *ct__r_ = (call);                                                                   \
            ct_tensor *const *ct__rs_[] = {&ct__r_};                                                      \
            ct__autocast_leave(ct__f_, ct__rs_, 1);                                                       \
            return ct__r_;                                                                                \
        }                                                                                                 \
    } while (0)

/* The same for an op that returns a ct_result and writes its results
 * through the out-parameters in `outs` (a braced list of their addresses). */
#define CT__AUTOCAST_OUTS(policy, call, outs, ...)                                                        \
    do {                                                                                                  \
        if (CT__UNLIKELY(ct__autocasting)) {                                                              \
            const ct_tensor **const ct__args_[] = {__VA_ARGS__};                                          \
            ct_tensor *const *ct__rs_[] = CT__UNPAREN outs;                                               \
            ct_scope ct__f_;                                                                              \
            if (!ct__autocast_enter(&ct__f_, policy, ct__args_, (int)(sizeof ct__args_ / sizeof *ct__args_))) \
                return ct_last_error_code();                                                              \
            ct_result ct__r_ = (call);                                                                    \
            ct__autocast_leave(ct__f_, ct__rs_, ct__r_ == CT_OK ? (int)(sizeof ct__rs_ / sizeof *ct__rs_) : 0); \
            return ct__r_;                                                                                \
        }                                                                                                 \
    } while (0)
#define CT__UNPAREN(...) {__VA_ARGS__}
