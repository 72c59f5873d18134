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
    ct__saved saved[CT__NODE_MAX_SAVED];
    int n_saved;
    bool saved_freed;  /* released by a backward without retain_graph */
    double args[CT__NODE_MAX_ARGS];   /* op-specific numbers (alpha, dims, ...) */
    int64_t iargs[CT__NODE_MAX_ARGS];
    ct__op_args pw;                   /* a pointwise op's parameters */
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

/* Whether ops record graphs now (grad mode on, inference mode off). */
static bool ct__grad_mode(void);
/* Whether t takes part in autograd as an input: requires grad (leaf) or has a grad_fn. */
static bool ct__requires_grad(const ct_tensor *t);
/* Record op `type` with its inputs (n_in; NULL entries allowed) and outputs:
 * when grad mode is on and an input requires grad, a node is made, the
 * outputs get it as grad_fn and it is returned (for saving); else NULL. */
static ct__node *ct__record(const ct__node_type *type, const ct_tensor *const *inputs, int n_in,
                            ct_tensor *const *outputs, int n_out);
/* Save t for backward (is_output: t is one of the node's outputs). */
static void ct__save(ct__node *n, const ct_tensor *t, bool is_output);
/* Saved tensor i, checked against in-place writes; NULL with PyTorch's error. */
static ct_tensor *ct__saved_get(ct__node *n, int i);
/* Whether backward must compute the gradient of input i (needs_input_grad). */
static bool ct__needs_grad(const ct__node *n, int i);
/* Free t's autograd state (from ct_release). */
static void ct__ag_meta_free(ct_tensor *t);
/* Whether an in-place op may write t: not a leaf that requires grad (grad
 * mode on). The op bumps t's storage version after it writes. */
static ct_result ct__check_inplace_grad(const ct_tensor *t);
/* The pointwise ops' formulas (formulas.c): record op's node, and the copy of
 * self an in-place form must keep before it writes (or NULL). */
static void ct__pointwise_record(ct__op op, ct_tensor *out, const ct_tensor *const *in, int n_in,
                                 const ct__op_args *args, ct_tensor *self_before);
static ct_tensor *ct__pointwise_self_before(ct__op op, const ct_tensor *const *in, int n_in);
/* g summed down to the shape it was broadcast from (at::sum_to; formulas.c). */
static ct_tensor *ct__sum_to_shape(const ct_tensor *g, const int64_t *sizes, int ndim);
