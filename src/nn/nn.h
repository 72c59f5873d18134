/* Public neural-network API (torch.nn): the module object, hooks,
 * state_dict, nn.init, the functional forms (torch.nn.functional), the
 * losses and the layers.
 *
 * A module is a C struct that starts with a ct_module header, made by
 * ct_module_new from a class (its name, forward and an optional destroy).
 * Everything a PyTorch module keeps in its dicts lives behind that header:
 * parameters, buffers (persistent or not), children, hooks and the training
 * flag. Modules are refcounted: ct_module_new and every layer constructor
 * return a module the caller owns (ct_module_release); ct_add_module takes
 * that reference over, so `ct_add_module(m, "net1", ct_nn_linear(...))` leaks
 * nothing.
 *
 * The module owns its parameters and buffers: functions that give them out
 * (ct_module_get, the lists) lend them, with no reference to release; they
 * stay valid while the module holds them, across ct_module_to and
 * load_state_dict, which change them in place as PyTorch changes
 * `param.data`.
 *
 * Modules, like tensors, may be used from several threads only for
 * different modules; hooks registered globally (ct_register_module_forward_*)
 * are shared by every thread and should be set up before threads start. */

typedef struct ct_module ct_module;

/* A module class (what a Python subclass of nn.Module defines). forward gets
 * the module and its inputs (what __call__ passed on after the forward
 * pre-hooks) and returns the output, or NULL with an error set. destroy, when
 * given, frees what the embedding struct holds besides what was registered
 * (registered tensors and children are released by the module itself). */
typedef struct ct_module_class {
    const char *name; /* the class name: "Linear", "ToyModel" */
    ct_tensor *(*forward)(ct_module *self, ct_tensor *const *inputs, int n_inputs);
    void (*destroy)(ct_module *self);
} ct_module_class;

/* The header every module struct starts with. Treat it as opaque. */
struct ct_module {
    const ct_module_class *cls;
    struct ct__module_state *state;
};

/* nn.Module.__init__: a new module of `size` bytes (at least
 * sizeof(ct_module); the bytes after the header are zeroed), in training
 * mode. Cast it to the struct that embeds the header. */
CTORCH_API ct_module *ct_module_new(const ct_module_class *cls, size_t size);
/* One more reference (to share a module between two parents); returns m. */
CTORCH_API ct_module *ct_module_retain(ct_module *m);
/* Drop a reference; the last one frees the module, its tensors' references
 * and its children's. NULL is ignored. */
CTORCH_API void ct_module_release(ct_module *m);
/* The class name (type(m).__name__). */
CTORCH_API const char *ct_module_name(const ct_module *m);

/* ---------------------------------------------------------------- calling */

/* m(input) / m(*inputs): the forward pre-hooks (global ones first), forward,
 * the forward hooks, and full backward hooks set up on the result. Returns a
 * new tensor, as any op. */
CTORCH_API ct_tensor *ct_forward(ct_module *m, const ct_tensor *input);
CTORCH_API ct_tensor *ct_forward_n(ct_module *m, ct_tensor *const *inputs, int n_inputs);

/* ---------------------------------------------------------------- registering */

/* nn.Module.register_parameter(name, param): t becomes a parameter (a leaf
 * that requires grad; the module takes its own reference). NULL registers
 * None, which the lists and state_dict skip, as PyTorch's. Registering a name
 * that is already a parameter replaces it. */
CTORCH_API ct_result ct_register_parameter(ct_module *m, const char *name, ct_tensor *t);
/* nn.Module.register_buffer(name, tensor, persistent): persistent buffers
 * are part of state_dict. NULL registers None. */
CTORCH_API ct_result ct_register_buffer(ct_module *m, const char *name, ct_tensor *t, bool persistent);
/* nn.Module.add_module(name, module): takes over the caller's reference to
 * child (released on failure too); child may be NULL (None). Returns child
 * (borrowed), or NULL on failure. */
CTORCH_API ct_module *ct_add_module(ct_module *m, const char *name, ct_module *child);

/* nn.Module.get_parameter / get_buffer(target) with a dotted target
 * ("net1.weight"): borrowed, NULL with PyTorch's AttributeError when there is
 * none (and NULL, without an error, for a registered None). */
CTORCH_API ct_tensor *ct_module_get_parameter(const ct_module *m, const char *target);
CTORCH_API ct_tensor *ct_module_get_buffer(const ct_module *m, const char *target);
/* nn.Module.get_submodule(target) ("" is m itself): borrowed. */
CTORCH_API ct_module *ct_module_get_submodule(const ct_module *m, const char *target);

/* ---------------------------------------------------------------- iterating */

/* What named_parameters(), named_buffers(), state_dict() give: n names
 * (PyTorch's dotted ones) and the tensors, lent by the module. Free the list
 * (not the tensors) with ct_tensor_list_free. */
typedef struct ct_tensor_list {
    int n;
    char **names;
    ct_tensor **tensors;
} ct_tensor_list;
CTORCH_API void ct_tensor_list_free(ct_tensor_list *list);

/* What named_children() and named_modules() give: names and lent modules. */
typedef struct ct_module_list {
    int n;
    char **names;
    ct_module **modules;
} ct_module_list;
CTORCH_API void ct_module_list_free(ct_module_list *list);

/* nn.Module.named_parameters(recurse=recurse): each parameter once (a shared
 * one under its first name), this module's first, then its children's in
 * registration order. parameters() is the same list without the names. */
CTORCH_API ct_tensor_list ct_module_parameters(const ct_module *m, bool recurse);
/* nn.Module.named_buffers(recurse=recurse): persistent or not. */
CTORCH_API ct_tensor_list ct_module_buffers(const ct_module *m, bool recurse);
/* nn.Module.named_children(): the direct children, each once. */
CTORCH_API ct_module_list ct_module_children(const ct_module *m);
/* nn.Module.named_modules(): m itself (named "") and every module below it,
 * depth first, each once. */
CTORCH_API ct_module_list ct_module_modules(const ct_module *m);

/* ---------------------------------------------------------------- state */

/* nn.Module.train(mode) / eval(), for m and every module below it. */
CTORCH_API void ct_module_train(ct_module *m, bool mode);
CTORCH_API void ct_module_eval(ct_module *m);
/* nn.Module.training. */
CTORCH_API bool ct_module_is_training(const ct_module *m);
/* nn.Module.apply(fn): fn on every child (recursively) and then on m. */
CTORCH_API void ct_module_apply(ct_module *m, void (*fn)(ct_module *m, void *user), void *user);
/* nn.Module.to(dtype): floating parameters and buffers (and their .grad)
 * converted in place; the tensors stay the same objects. Only floating
 * dtypes, with PyTorch's message for others. */
CTORCH_API ct_result ct_module_to(ct_module *m, ct_dtype dtype);
/* Module.to(device) / .cuda() / .cpu(): every parameter, gradient and
 * buffer moved to device in place (the tensors the module hands out stay
 * the same objects, as param.data = ... keeps them). */
CTORCH_API ct_result ct_module_to_device(ct_module *m, ct_device device);
/* nn.Module.zero_grad(set_to_none): every parameter's .grad zeroed (and
 * detached from any graph) or dropped. */
CTORCH_API void ct_module_zero_grad(ct_module *m, bool set_to_none);
/* nn.Module.requires_grad_(requires_grad): on every parameter. */
CTORCH_API void ct_module_requires_grad_(ct_module *m, bool requires_grad);

/* nn.Module.state_dict(): parameters and persistent buffers of m and every
 * module below it, by dotted name, in PyTorch's order (a shared tensor under
 * each of its names). The tensors are the module's own, lent (keep_vars). */
CTORCH_API ct_tensor_list ct_module_state_dict(const ct_module *m);

/* Names, as load_state_dict's result lists them. */
typedef struct ct_name_list {
    int n;
    char **names;
} ct_name_list;
/* What load_state_dict returns (its _IncompatibleKeys). */
typedef struct ct_incompatible_keys {
    ct_name_list missing_keys, unexpected_keys;
} ct_incompatible_keys;
CTORCH_API void ct_incompatible_keys_free(ct_incompatible_keys *keys);

/* nn.Module.load_state_dict(state_dict, strict): copies each tensor of
 * `state_dict` (names and tensors, as ct_module_state_dict gives, n of them)
 * into the parameter or buffer of that name, without recording. With strict,
 * missing or unexpected keys are an error ("Error(s) in loading state_dict
 * for ToyModel: ..."), as a shape mismatch always is; a failure changes
 * nothing. keys, when given, receives the missing and unexpected keys. */
CTORCH_API ct_result ct_module_load_state_dict(ct_module *m, const ct_tensor_list *state_dict, bool strict,
                                               ct_incompatible_keys *keys);

/* ---------------------------------------------------------------- hooks */

/* A forward pre-hook (hook(module, input)): may replace inputs[i] with
 * tensors of its own (new references, owned by the scope open around the
 * call). A negative result stops the call with that error. */
typedef ct_result (*ct_forward_pre_hook)(ct_module *m, ct_tensor **inputs, int n_inputs, void *user);
/* A forward hook (hook(module, input, output)): returns a replacement output
 * (a new reference) or NULL to keep it. */
typedef ct_tensor *(*ct_forward_hook)(ct_module *m, ct_tensor *const *inputs, int n_inputs, ct_tensor *output,
                                      void *user);
/* A full backward hook (hook(module, grad_input, grad_output)): grad_inputs
 * holds the gradients for the module's inputs (NULL for one that needs none)
 * and may be changed in place to new tensors (new references); grad_output
 * is the gradient of the output. */
typedef ct_result (*ct_backward_hook)(ct_module *m, ct_tensor **grad_inputs, int n_inputs,
                                      const ct_tensor *grad_output, void *user);

/* A hook's RemovableHandle: give it to ct_hook_handle_remove (before the
 * module is released). */
typedef struct ct_hook_handle {
    ct_module *module; /* NULL: a global hook */
    int kind;
    int id;
} ct_hook_handle;
/* RemovableHandle.remove(): a handle removed twice, or of a failed
 * registration (id 0), is ignored. */
CTORCH_API void ct_hook_handle_remove(ct_hook_handle handle);

/* nn.Module.register_forward_pre_hook / register_forward_hook /
 * register_full_backward_hook. Hooks run in registration order. */
CTORCH_API ct_hook_handle ct_module_register_forward_pre_hook(ct_module *m, ct_forward_pre_hook hook, void *user);
CTORCH_API ct_hook_handle ct_module_register_forward_hook(ct_module *m, ct_forward_hook hook, void *user);
CTORCH_API ct_hook_handle ct_module_register_full_backward_hook(ct_module *m, ct_backward_hook hook, void *user);
/* torch.nn.modules.module.register_module_forward_pre_hook /
 * register_module_forward_hook: for every module, before its own hooks. */
CTORCH_API ct_hook_handle ct_register_module_forward_pre_hook(ct_forward_pre_hook hook, void *user);
CTORCH_API ct_hook_handle ct_register_module_forward_hook(ct_forward_hook hook, void *user);

/* ---------------------------------------------------------------- nn.init */

/* The functions of torch.nn.init: they write t in place without recording
 * (under no_grad), drawing from the default generator exactly as PyTorch
 * 1.13 does, so that after the same ct_manual_seed the values are PyTorch's. */

/* nn.init.calculate_gain(nonlinearity, param): param NULL is None (leaky_relu
 * then uses 0.01). NAN with PyTorch's ValueError for an unknown name. */
CTORCH_API double ct_init_calculate_gain(const char *nonlinearity, const double *param);
CTORCH_API ct_result ct_init_uniform_(ct_tensor *t, double a, double b);       /* nn.init.uniform_ */
CTORCH_API ct_result ct_init_normal_(ct_tensor *t, double mean, double std);   /* nn.init.normal_ */
/* nn.init.trunc_normal_(t, mean, std, a, b): normal values redrawn into [a, b]
 * by the inverse CDF (PyTorch's defaults: 0, 1, -2, 2). */
CTORCH_API ct_result ct_init_trunc_normal_(ct_tensor *t, double mean, double std, double a, double b);
CTORCH_API ct_result ct_init_constant_(ct_tensor *t, double val);              /* nn.init.constant_ */
CTORCH_API ct_result ct_init_zeros_(ct_tensor *t);                             /* nn.init.zeros_ */
CTORCH_API ct_result ct_init_ones_(ct_tensor *t);                              /* nn.init.ones_ */
/* nn.init.eye_: a 2-D t becomes the identity matrix. */
CTORCH_API ct_result ct_init_eye_(ct_tensor *t);
/* nn.init.xavier_uniform_(t, gain) / xavier_normal_ (PyTorch's gain: 1). */
CTORCH_API ct_result ct_init_xavier_uniform_(ct_tensor *t, double gain);
CTORCH_API ct_result ct_init_xavier_normal_(ct_tensor *t, double gain);
/* kaiming_uniform_ / kaiming_normal_'s keyword arguments; zero for each is
 * PyTorch's default (a 0, mode "fan_in", nonlinearity "leaky_relu"). */
typedef struct ct_kaiming_opts {
    double a;
    const char *mode;         /* "fan_in" or "fan_out" */
    const char *nonlinearity; /* a name calculate_gain knows */
} ct_kaiming_opts;
/* nn.init.kaiming_uniform_ / kaiming_normal_ (He initialisation). */
CTORCH_API ct_result ct_init_kaiming_uniform_(ct_tensor *t, ct_kaiming_opts opts);
CTORCH_API ct_result ct_init_kaiming_normal_(ct_tensor *t, ct_kaiming_opts opts);

/* ---------------------------------------------------------------- functional */

/* F.dropout(input, p, training): in training, each element is zeroed with
 * probability p (drawn as PyTorch draws: bernoulli_(1 - p) on a tensor like
 * input) and the others scaled by 1 / (1 - p); otherwise input itself.
 * p outside [0, 1] is PyTorch's ValueError. */
CTORCH_API ct_tensor *ct_dropout(const ct_tensor *input, double p, bool training);
/* F.dropout2d (and dropout1d/3d's rule): whole channels (dims 0 and 1 of an
 * input of at least 2 dims, as PyTorch 1.13's feature_dropout) zeroed. */
CTORCH_API ct_tensor *ct_dropout2d(const ct_tensor *input, double p, bool training);

/* F.linear(input, weight, bias): input @ weight.T + bias (bias may be NULL),
 * over any leading dims of input, with PyTorch's graph: AddmmBackward0 for a
 * 2-D input with a bias, an addmm on a flattened view for a contiguous 3-D
 * one, matmul and add otherwise. */
CTORCH_API ct_tensor *ct_linear(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias);
/* F.bilinear(input1, input2, weight, bias): y[..., o] = sum_ij input1[..., i]
 * weight[o, i, j] input2[..., j] + bias[o] (bias may be NULL). */
CTORCH_API ct_tensor *ct_bilinear(const ct_tensor *input1, const ct_tensor *input2, const ct_tensor *weight,
                                  const ct_tensor *bias);

/* padding_idx "None" for ct_embedding and ct_embedding_opts. */
#define CT_NO_PADDING INT64_MIN
/* F.embedding(input, weight, padding_idx): rows of weight picked by the
 * int64 or int32 indices in input (result: input's shape plus weight's
 * second dim). The row padding_idx (negative counts from the end;
 * CT_NO_PADDING: none) gets no gradient. EmbeddingBackward0. */
CTORCH_API ct_tensor *ct_embedding(const ct_tensor *input, const ct_tensor *weight, int64_t padding_idx);
/* F.embedding_bag(input, weight, offsets, mode): the rows of each bag summed
 * ("sum") or averaged ("mean", NULL: PyTorch's default). A 2-D input is one
 * bag per row (offsets NULL); a 1-D input is cut into bags at offsets. An
 * empty bag gives zeros. EmbeddingBagBackward0. */
CTORCH_API ct_tensor *ct_embedding_bag(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *offsets,
                                       const char *mode);

/* F.layer_norm(input, normalized_shape, weight, bias, eps): normalised over
 * the last dims (biased variance), then weight and bias (NULL: none) of
 * normalized_shape. NativeLayerNormBackward0. PyTorch's eps: 1e-5. */
CTORCH_API ct_tensor *ct_layer_norm(const ct_tensor *input, ct_shape normalized_shape, const ct_tensor *weight,
                                    const ct_tensor *bias, double eps);
/* F.batch_norm(input, running_mean, running_var, weight, bias, training,
 * momentum, eps): per channel (dim 1). In training the batch's statistics
 * are used and the running ones (when given) updated in place with momentum
 * (running = (1 - momentum) * running + momentum * batch, the unbiased
 * variance); otherwise the running ones are used. NativeBatchNormBackward0. */
CTORCH_API ct_tensor *ct_batch_norm(const ct_tensor *input, ct_tensor *running_mean, ct_tensor *running_var,
                                    const ct_tensor *weight, const ct_tensor *bias, bool training, double momentum,
                                    double eps);
/* F.instance_norm(input, running_mean, running_var, weight, bias,
 * use_input_stats, momentum, eps): batch_norm of every (sample, channel)
 * on its own; the running statistics are the average over the batch. */
CTORCH_API ct_tensor *ct_instance_norm(const ct_tensor *input, ct_tensor *running_mean, ct_tensor *running_var,
                                       const ct_tensor *weight, const ct_tensor *bias, bool use_input_stats,
                                       double momentum, double eps);
/* F.group_norm(input, num_groups, weight, bias, eps): the channels of each
 * sample in num_groups groups, each normalised. NativeGroupNormBackward0. */
CTORCH_API ct_tensor *ct_group_norm(const ct_tensor *input, int64_t num_groups, const ct_tensor *weight,
                                    const ct_tensor *bias, double eps);

/* ---------------------------------------------------------------- losses */

/* reduction=: zero is PyTorch's default, "mean". BATCHMEAN is kl_div's. */
typedef enum ct_reduction {
    CT_REDUCTION_MEAN = 0,
    CT_REDUCTION_NONE,
    CT_REDUCTION_SUM,
    CT_REDUCTION_BATCHMEAN
} ct_reduction;

/* The losses of torch.nn.functional, with PyTorch's formulas, graphs and
 * node names (MseLossBackward0, NllLossBackward0, ...). Input and target
 * broadcast where PyTorch's do. */
CTORCH_API ct_tensor *ct_mse_loss(const ct_tensor *input, const ct_tensor *target, ct_reduction reduction);
CTORCH_API ct_tensor *ct_l1_loss(const ct_tensor *input, const ct_tensor *target, ct_reduction reduction);
/* F.smooth_l1_loss(input, target, reduction, beta) (PyTorch's beta: 1; 0 is l1_loss). */
CTORCH_API ct_tensor *ct_smooth_l1_loss(const ct_tensor *input, const ct_tensor *target, ct_reduction reduction,
                                        double beta);
/* F.huber_loss(input, target, reduction, delta) (PyTorch's delta: 1). */
CTORCH_API ct_tensor *ct_huber_loss(const ct_tensor *input, const ct_tensor *target, ct_reduction reduction,
                                    double delta);

/* nll_loss / cross_entropy's keyword arguments; start from
 * ct_nll_loss_opts_init() (no weight, ignore_index -100, mean, no smoothing). */
typedef struct ct_nll_loss_opts {
    const ct_tensor *weight;  /* one per class, or NULL */
    int64_t ignore_index;
    ct_reduction reduction;
    double label_smoothing;   /* cross_entropy only: in [0, 1] */
} ct_nll_loss_opts;
CTORCH_API ct_nll_loss_opts ct_nll_loss_opts_init(void);
/* F.nll_loss(input, target): input (N, C, d1, ...) or (C) of log
 * probabilities, target int64 class indices (N, d1, ...) or (). */
CTORCH_API ct_tensor *ct_nll_loss(const ct_tensor *input, const ct_tensor *target, ct_nll_loss_opts opts);
/* F.cross_entropy(input, target): log_softmax over the class dim, then
 * nll_loss for int64 class indices, or -sum(target * log_softmax) for a
 * floating target of class probabilities (input's shape). */
CTORCH_API ct_tensor *ct_cross_entropy(const ct_tensor *input, const ct_tensor *target, ct_nll_loss_opts opts);
/* F.binary_cross_entropy(input, target, weight, reduction): input in [0, 1];
 * the logs are clamped at -100 as PyTorch clamps them. weight may be NULL. */
CTORCH_API ct_tensor *ct_binary_cross_entropy(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
                                              ct_reduction reduction);
/* F.binary_cross_entropy_with_logits(input, target, weight, reduction,
 * pos_weight): sigmoid and binary cross entropy in one stable formula. */
CTORCH_API ct_tensor *ct_binary_cross_entropy_with_logits(const ct_tensor *input, const ct_tensor *target,
                                                          const ct_tensor *weight, const ct_tensor *pos_weight,
                                                          ct_reduction reduction);
/* F.kl_div(input, target, reduction, log_target): input holds log
 * probabilities; BATCHMEAN divides the sum by the batch size. */
CTORCH_API ct_tensor *ct_kl_div(const ct_tensor *input, const ct_tensor *target, ct_reduction reduction,
                                bool log_target);
/* F.cosine_embedding_loss(input1, input2, target, margin, reduction). */
CTORCH_API ct_tensor *ct_cosine_embedding_loss(const ct_tensor *input1, const ct_tensor *input2,
                                               const ct_tensor *target, double margin, ct_reduction reduction);
/* F.margin_ranking_loss(input1, input2, target, margin, reduction). */
CTORCH_API ct_tensor *ct_margin_ranking_loss(const ct_tensor *input1, const ct_tensor *input2, const ct_tensor *target,
                                             double margin, ct_reduction reduction);
/* triplet_margin_loss's keyword arguments; start from
 * ct_triplet_margin_loss_opts_init() (margin 1, p 2, eps 1e-6, no swap, mean). */
typedef struct ct_triplet_margin_loss_opts {
    double margin, p, eps;
    bool swap;
    ct_reduction reduction;
} ct_triplet_margin_loss_opts;
CTORCH_API ct_triplet_margin_loss_opts ct_triplet_margin_loss_opts_init(void);
/* F.triplet_margin_loss(anchor, positive, negative, ...). */
CTORCH_API ct_tensor *ct_triplet_margin_loss(const ct_tensor *anchor, const ct_tensor *positive,
                                             const ct_tensor *negative, ct_triplet_margin_loss_opts opts);

/* ---------------------------------------------------------------- layers */

/* The layers of torch.nn as modules, made with PyTorch's default
 * initialisation (drawn from the default generator, so that after the same
 * ct_manual_seed the parameters are PyTorch's). Each returns a module the
 * caller owns, or NULL with an error. Called with ct_forward. */

CTORCH_API ct_module *ct_nn_identity(void);                             /* nn.Identity() */
/* nn.Linear(in_features, out_features, bias): weight (out, in) drawn by
 * kaiming_uniform_(a=sqrt(5)), bias uniform in +-1/sqrt(in_features). */
CTORCH_API ct_module *ct_nn_linear(int64_t in_features, int64_t out_features, bool bias);
/* nn.Bilinear(in1_features, in2_features, out_features, bias): weight
 * (out, in1, in2) and bias uniform in +-1/sqrt(in1_features); called with two inputs. */
CTORCH_API ct_module *ct_nn_bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias);
/* nn.Flatten(start_dim, end_dim) (PyTorch's defaults: 1, -1). */
CTORCH_API ct_module *ct_nn_flatten(int start_dim, int end_dim);
/* nn.Unflatten(dim, unflattened_size). */
CTORCH_API ct_module *ct_nn_unflatten(int dim, ct_shape unflattened_size);

/* The activation modules, forwarding to the functions of the same names. */
CTORCH_API ct_module *ct_nn_relu(void);                                 /* nn.ReLU() */
CTORCH_API ct_module *ct_nn_relu6(void);                                /* nn.ReLU6() */
CTORCH_API ct_module *ct_nn_leaky_relu(double negative_slope);          /* nn.LeakyReLU(0.01) */
CTORCH_API ct_module *ct_nn_elu(double alpha);                          /* nn.ELU(1.0) */
CTORCH_API ct_module *ct_nn_selu(void);                                 /* nn.SELU() */
CTORCH_API ct_module *ct_nn_celu(double alpha);                         /* nn.CELU(1.0) */
CTORCH_API ct_module *ct_nn_gelu(ct_gelu_approximate approximate);      /* nn.GELU() */
CTORCH_API ct_module *ct_nn_silu(void);                                 /* nn.SiLU() */
CTORCH_API ct_module *ct_nn_mish(void);                                 /* nn.Mish() */
CTORCH_API ct_module *ct_nn_softplus(double beta, double threshold);    /* nn.Softplus(1, 20) */
CTORCH_API ct_module *ct_nn_hardtanh(double min_val, double max_val);   /* nn.Hardtanh(-1, 1) */
CTORCH_API ct_module *ct_nn_hardsigmoid(void);                          /* nn.Hardsigmoid() */
CTORCH_API ct_module *ct_nn_hardswish(void);                            /* nn.Hardswish() */
CTORCH_API ct_module *ct_nn_sigmoid(void);                              /* nn.Sigmoid() */
CTORCH_API ct_module *ct_nn_tanh(void);                                 /* nn.Tanh() */
CTORCH_API ct_module *ct_nn_softmax(int dim);                           /* nn.Softmax(dim) */
CTORCH_API ct_module *ct_nn_log_softmax(int dim);                       /* nn.LogSoftmax(dim) */

/* nn.Dropout(p) / nn.Dropout2d(p): active in training mode only. */
CTORCH_API ct_module *ct_nn_dropout(double p);
CTORCH_API ct_module *ct_nn_dropout2d(double p);

/* nn.Embedding's keyword arguments; start from ct_embedding_opts_init()
 * (padding_idx CT_NO_PADDING). */
typedef struct ct_embedding_opts {
    int64_t padding_idx;
} ct_embedding_opts;
CTORCH_API ct_embedding_opts ct_embedding_opts_init(void);
/* nn.Embedding(num_embeddings, embedding_dim, padding_idx): weight drawn
 * from N(0, 1), the padding row zeroed. */
CTORCH_API ct_module *ct_nn_embedding(int64_t num_embeddings, int64_t embedding_dim, ct_embedding_opts opts);
/* nn.EmbeddingBag(num_embeddings, embedding_dim, mode): called with the
 * input, or the input and offsets. */
CTORCH_API ct_module *ct_nn_embedding_bag(int64_t num_embeddings, int64_t embedding_dim, const char *mode);

/* The normalisation layers' keyword arguments. Start from
 * ct_norm_opts_init() (eps 1e-5, momentum 0.1, affine and running
 * statistics on: BatchNorm's, LayerNorm's and GroupNorm's defaults) or
 * ct_instance_norm_opts_init() (the same with affine and running
 * statistics off). cumulative: momentum=None (a cumulative average). */
typedef struct ct_norm_opts {
    double eps, momentum;
    bool cumulative, affine, track_running_stats;
} ct_norm_opts;
CTORCH_API ct_norm_opts ct_norm_opts_init(void);
CTORCH_API ct_norm_opts ct_instance_norm_opts_init(void);
/* nn.BatchNorm1d (2-D or 3-D input) / nn.BatchNorm2d (4-D): weight, bias,
 * and the buffers running_mean, running_var, num_batches_tracked. */
CTORCH_API ct_module *ct_nn_batch_norm1d(int64_t num_features, ct_norm_opts opts);
CTORCH_API ct_module *ct_nn_batch_norm2d(int64_t num_features, ct_norm_opts opts);
/* isinstance(m, nn.modules.batchnorm._BatchNorm): for a BatchNorm1d or 2d,
 * true, with its num_features and options written where not NULL (what
 * SyncBatchNorm.convert_sync_batchnorm copies); false for other modules. */
CTORCH_API bool ct_nn_is_batch_norm(const ct_module *m, int64_t *num_features, ct_norm_opts *opts);
/* nn.InstanceNorm2d(num_features, ...) (3-D or 4-D input). */
CTORCH_API ct_module *ct_nn_instance_norm2d(int64_t num_features, ct_norm_opts opts);
/* nn.LayerNorm(normalized_shape, eps, elementwise_affine = opts.affine). */
CTORCH_API ct_module *ct_nn_layer_norm(ct_shape normalized_shape, ct_norm_opts opts);
/* nn.GroupNorm(num_groups, num_channels, eps, affine). */
CTORCH_API ct_module *ct_nn_group_norm(int64_t num_groups, int64_t num_channels, ct_norm_opts opts);

/* nn.Sequential(*modules): takes over the n modules' references; children
 * named "0", "1", ...; forward runs them in order. */
CTORCH_API ct_module *ct_nn_sequential(ct_module *const *modules, int n);
/* nn.ModuleList(modules) and nn.ModuleDict: containers without forward. */
CTORCH_API ct_module *ct_nn_module_list(ct_module *const *modules, int n);
CTORCH_API ct_module *ct_nn_module_dict(const char *const *names, ct_module *const *modules, int n);
/* Sequential.append / ModuleList.append: child named by its position (takes the reference). */
CTORCH_API ct_module *ct_nn_append(ct_module *container, ct_module *child);

/* The loss modules: forward(input, target) (cosine_embedding,
 * margin_ranking: (input1, input2, target); triplet_margin: (anchor,
 * positive, negative)) calls the function of the same name. A weight is
 * registered as the buffer "weight" (and "pos_weight"), as PyTorch's. */
CTORCH_API ct_module *ct_nn_mse_loss(ct_reduction reduction);
CTORCH_API ct_module *ct_nn_l1_loss(ct_reduction reduction);
CTORCH_API ct_module *ct_nn_smooth_l1_loss(ct_reduction reduction, double beta);
CTORCH_API ct_module *ct_nn_huber_loss(ct_reduction reduction, double delta);
CTORCH_API ct_module *ct_nn_nll_loss(ct_nll_loss_opts opts);
CTORCH_API ct_module *ct_nn_cross_entropy_loss(ct_nll_loss_opts opts);
CTORCH_API ct_module *ct_nn_bce_loss(const ct_tensor *weight, ct_reduction reduction);
CTORCH_API ct_module *ct_nn_bce_with_logits_loss(const ct_tensor *weight, const ct_tensor *pos_weight,
                                                 ct_reduction reduction);
CTORCH_API ct_module *ct_nn_kl_div_loss(ct_reduction reduction, bool log_target);
CTORCH_API ct_module *ct_nn_cosine_embedding_loss(double margin, ct_reduction reduction);
CTORCH_API ct_module *ct_nn_margin_ranking_loss(double margin, ct_reduction reduction);
CTORCH_API ct_module *ct_nn_triplet_margin_loss(ct_triplet_margin_loss_opts opts);

/* ---------------------------------------------------------------- convolution, pooling and attention layers */

/* nn.init.orthogonal_(t, gain): t (at least 2-D, seen as rows = size(0) by
 * the rest) filled with a (semi-)orthogonal matrix times gain: normal draws,
 * their QR (of the transpose when rows < cols), Q's columns signed by R's
 * diagonal. PyTorch's gain: 1. */
CTORCH_API ct_result ct_init_orthogonal_(ct_tensor *t, double gain);

/* The keyword arguments of nn.Conv1d/2d/3d and nn.ConvTranspose1d/2d/3d; all
 * zero is PyTorch's defaults (stride 1, padding 0, dilation 1, groups 1, a
 * bias, padding_mode 'zeros'). A list of one value applies to every spatial
 * dim, as an int does in PyTorch. */
typedef struct ct_conv_layer_opts {
    ct_shape stride;         /* empty: 1 */
    ct_shape padding;        /* empty: 0 */
    const char *padding_str; /* "same" or "valid" in place of padding (convolutions only) */
    ct_shape dilation;       /* empty: 1 */
    int64_t groups;          /* 0: 1 */
    ct_shape output_padding; /* transposed convolutions only; empty: 0 */
    bool no_bias;            /* bias=False */
    ct_pad_mode padding_mode; /* CT_PAD_CONSTANT is 'zeros'; reflect, replicate, circular: convolutions only */
} ct_conv_layer_opts;

/* nn.Conv1d / nn.Conv2d / nn.Conv3d(in_channels, out_channels, kernel_size,
 * ...): weight (out_channels, in_channels / groups, *kernel_size) drawn by
 * kaiming_uniform_(a=sqrt(5)), bias (out_channels) uniform in
 * +-1/sqrt(fan_in), in PyTorch's order. Called with one input, batched
 * (N, C, ...) or not (C, ...). */
CTORCH_API ct_module *ct_nn_conv1d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size,
                                   ct_conv_layer_opts opts);
CTORCH_API ct_module *ct_nn_conv2d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size,
                                   ct_conv_layer_opts opts);
CTORCH_API ct_module *ct_nn_conv3d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size,
                                   ct_conv_layer_opts opts);
/* nn.ConvTranspose1d / nn.ConvTranspose2d / nn.ConvTranspose3d(in_channels,
 * out_channels, kernel_size, ...): weight (in_channels, out_channels /
 * groups, *kernel_size), initialised as the convolutions'. */
CTORCH_API ct_module *ct_nn_conv_transpose1d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size,
                                             ct_conv_layer_opts opts);
CTORCH_API ct_module *ct_nn_conv_transpose2d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size,
                                             ct_conv_layer_opts opts);
CTORCH_API ct_module *ct_nn_conv_transpose3d(int64_t in_channels, int64_t out_channels, ct_shape kernel_size,
                                             ct_conv_layer_opts opts);
/* ConvTranspose1d/2d/3d.forward(input, output_size): the output_padding that
 * gives this output size (the spatial sizes, or the whole shape) instead of
 * the module's; through ct_forward's hooks. */
CTORCH_API ct_tensor *ct_conv_transpose_forward(ct_module *m, const ct_tensor *input, ct_shape output_size);

/* nn.MaxPool1d / nn.MaxPool2d(kernel_size, stride, padding, dilation,
 * ceil_mode). (For return_indices, call ct_max_pool2d_with_indices.) */
CTORCH_API ct_module *ct_nn_max_pool1d(ct_shape kernel_size, ct_max_pool_opts opts);
CTORCH_API ct_module *ct_nn_max_pool2d(ct_shape kernel_size, ct_max_pool_opts opts);
/* nn.AvgPool1d / nn.AvgPool2d(kernel_size, stride, padding, ceil_mode,
 * count_include_pad[, divisor_override]): start opts from
 * ct_avg_pool_opts_init(). */
CTORCH_API ct_module *ct_nn_avg_pool1d(ct_shape kernel_size, ct_avg_pool_opts opts);
CTORCH_API ct_module *ct_nn_avg_pool2d(ct_shape kernel_size, ct_avg_pool_opts opts);
/* nn.AdaptiveAvgPool2d(output_size) / nn.AdaptiveMaxPool2d(output_size). */
CTORCH_API ct_module *ct_nn_adaptive_avg_pool2d(ct_shape output_size);
CTORCH_API ct_module *ct_nn_adaptive_max_pool2d(ct_shape output_size);

/* F.scaled_dot_product_attention's keyword arguments; all zero: no mask, no
 * dropout, not causal, scale 1/sqrt(E). */
typedef struct ct_sdpa_opts {
    const ct_tensor *attn_mask; /* broadcast to (..., L, S): bool (true takes part) or floating (added) */
    double dropout_p;           /* applied whenever > 0, as PyTorch's functional does */
    bool is_causal;             /* query i attends to keys 0..i (no attn_mask with it) */
    double scale;               /* 0: 1/sqrt(query.size(-1)) */
} ct_sdpa_opts;
/* F.scaled_dot_product_attention(query, key, value): softmax(query @ key^T
 * * scale + mask) @ value over query (..., L, E), key (..., S, E), value
 * (..., S, Ev), with PyTorch's math: query scaled first, the mask added,
 * softmax over the keys, dropout on the weights. attn_weights, when not NULL,
 * receives the weights (..., L, S). */
CTORCH_API ct_tensor *ct_scaled_dot_product_attention(const ct_tensor *query, const ct_tensor *key,
                                                      const ct_tensor *value, ct_sdpa_opts opts,
                                                      ct_tensor **attn_weights);

/* nn.MultiheadAttention's keyword arguments; all zero is PyTorch's defaults
 * (no dropout, biases, kdim = vdim = embed_dim, sequence-first). */
typedef struct ct_mha_opts {
    double dropout;     /* on the attention weights, in training */
    bool no_bias;       /* bias=False: no in_proj_bias, no out_proj.bias */
    bool add_bias_kv;   /* bias_k, bias_v (1, 1, embed_dim) appended to key and value */
    bool add_zero_attn; /* a zero key and value appended */
    int64_t kdim, vdim; /* 0: embed_dim; otherwise q/k/v_proj_weight replace in_proj_weight */
    bool batch_first;   /* (N, L, E) rather than (L, N, E) */
} ct_mha_opts;
/* nn.MultiheadAttention(embed_dim, num_heads, ...): parameters in_proj_weight
 * (3E, E) (or q_proj_weight, k_proj_weight, v_proj_weight) by
 * xavier_uniform_, in_proj_bias zeros, bias_k and bias_v by xavier_normal_,
 * and the child out_proj (a NonDynamicallyQuantizableLinear: Linear's draws,
 * then its bias zeroed), drawn in PyTorch's order. ct_forward_n(m, {query,
 * key, value}, 3) gives attn_output; passing the same tensor three times is
 * self-attention, as `query is key is value` is in PyTorch. */
CTORCH_API ct_module *ct_nn_multihead_attention(int64_t embed_dim, int64_t num_heads, ct_mha_opts opts);

/* MultiheadAttention.forward's keyword arguments; all zero: no masks, weights
 * averaged over the heads. */
typedef struct ct_mha_forward_opts {
    const ct_tensor *key_padding_mask; /* (N, S) or (S): bool (true: ignored) or floating (added) */
    const ct_tensor *attn_mask;        /* (L, S) or (N * num_heads, L, S): bool (true: masked) or floating (added) */
    bool per_head_weights;             /* average_attn_weights=False */
} ct_mha_forward_opts;
/* MultiheadAttention.forward(query, key, value, key_padding_mask,
 * need_weights, attn_mask, average_attn_weights), through ct_forward's hooks:
 * returns attn_output; attn_weights (need_weights), when not NULL, receives
 * the weights, (N, L, S) or (N, num_heads, L, S) (no batch dim for unbatched
 * input). */
CTORCH_API ct_tensor *ct_multihead_attention_forward(ct_module *m, const ct_tensor *query, const ct_tensor *key,
                                                     const ct_tensor *value, ct_mha_forward_opts opts,
                                                     ct_tensor **attn_weights);

/* nn.TransformerEncoderLayer's keyword arguments; start from
 * ct_transformer_encoder_layer_opts_init() (dim_feedforward 2048, dropout
 * 0.1, relu, layer_norm_eps 1e-5, sequence-first, post-norm). */
typedef struct ct_transformer_encoder_layer_opts {
    int64_t dim_feedforward;
    double dropout;
    const char *activation; /* "relu" or "gelu" */
    double layer_norm_eps;
    bool batch_first, norm_first;
} ct_transformer_encoder_layer_opts;
CTORCH_API ct_transformer_encoder_layer_opts ct_transformer_encoder_layer_opts_init(void);
/* nn.TransformerEncoderLayer(d_model, nhead, ...): children self_attn,
 * linear1, dropout, linear2, norm1, norm2, dropout1, dropout2 (PyTorch's
 * names, order and draws). ct_forward(m, src) runs it without masks. */
CTORCH_API ct_module *ct_nn_transformer_encoder_layer(int64_t d_model, int64_t nhead,
                                                      ct_transformer_encoder_layer_opts opts);
/* TransformerEncoderLayer.forward(src, src_mask, src_key_padding_mask)
 * (either mask may be NULL), through ct_forward's hooks. */
CTORCH_API ct_tensor *ct_transformer_encoder_layer_forward(ct_module *m, const ct_tensor *src, const ct_tensor *src_mask,
                                                           const ct_tensor *src_key_padding_mask);
/* ---------------------------------------------------------------- recurrent layers */

/* nn.RNN / nn.LSTM / nn.GRU's keyword arguments. Start from
 * ct_rnn_opts_init(): PyTorch's defaults (one layer, with biases, input
 * laid out (seq, batch, feature), no dropout, one direction, tanh, no
 * projection). */
typedef struct ct_rnn_opts {
    int64_t num_layers;
    bool bias;
    bool batch_first;          /* input and output (batch, seq, feature); h_n keeps (layers, batch, hidden) */
    double dropout;            /* on the outputs of every layer but the last, in training mode only */
    bool bidirectional;
    const char *nonlinearity;  /* nn.RNN only: "tanh" (NULL) or "relu" */
    int64_t proj_size;         /* nn.LSTM only: h projected to proj_size features (0: no projection) */
} ct_rnn_opts;
CTORCH_API ct_rnn_opts ct_rnn_opts_init(void);

/* nn.RNN(input_size, hidden_size, ...) (an Elman RNN: h' = tanh(x W_ih^T +
 * b_ih + h W_hh^T + b_hh), or relu), nn.LSTM and nn.GRU. Parameters are
 * PyTorch's, under its names (weight_ih_l0, weight_hh_l0, bias_ih_l0,
 * bias_hh_l0, weight_hr_l0 for a projection, "_reverse" for the second
 * direction) and in its order, all drawn uniform in +-1/sqrt(hidden_size),
 * so that after the same ct_manual_seed they equal PyTorch's and a
 * state_dict loads either way.
 *
 * ct_forward(m, input) and ct_forward_n(m, {input, h0}) (LSTM: {input, h0,
 * c0}) return the output; ct_rnn_forward and ct_lstm_forward also give the
 * final states. */
CTORCH_API ct_module *ct_nn_rnn(int64_t input_size, int64_t hidden_size, ct_rnn_opts opts);
CTORCH_API ct_module *ct_nn_lstm(int64_t input_size, int64_t hidden_size, ct_rnn_opts opts);
CTORCH_API ct_module *ct_nn_gru(int64_t input_size, int64_t hidden_size, ct_rnn_opts opts);

/* output, h_n = rnn(input, h_0) for an RNN or a GRU module. input is (seq,
 * batch, input_size) ((batch, seq, input_size) with batch_first) or an
 * unbatched (seq, input_size); h_0 (num_layers * num_directions, batch,
 * hidden_size) (unbatched: without the batch dim) or NULL for zeros. The
 * output (seq, batch, num_directions * hidden_size) is returned; h_n, when
 * not NULL, receives the final states, shaped as h_0 (a new tensor, owned
 * like the output by the open scope). The module's hooks run as in
 * ct_forward_n and see the output only. */
CTORCH_API ct_tensor *ct_rnn_forward(ct_module *rnn, const ct_tensor *input, const ct_tensor *h0, ct_tensor **h_n);
/* output, (h_n, c_n) = lstm(input, (h_0, c_0)): as ct_rnn_forward, with the
 * cell states too. h_0 and c_0 are both given or both NULL (zeros); with a
 * projection h has proj_size features, c hidden_size. */
CTORCH_API ct_tensor *ct_lstm_forward(ct_module *lstm, const ct_tensor *input, const ct_tensor *h0,
                                      const ct_tensor *c0, ct_tensor **h_n, ct_tensor **c_n);

/* nn.RNNCell(input_size, hidden_size, bias, nonlinearity ("tanh" or NULL,
 * "relu")), nn.LSTMCell and nn.GRUCell: one step. Parameters weight_ih,
 * weight_hh, bias_ih, bias_hh (None without bias), uniform in
 * +-1/sqrt(hidden_size). ct_forward_n(cell, {input, h}) gives h' (LSTMCell:
 * {input, h, c}); input (batch, input_size) or unbatched (input_size); h
 * (and c) NULL or absent for zeros. */
CTORCH_API ct_module *ct_nn_rnn_cell(int64_t input_size, int64_t hidden_size, bool bias, const char *nonlinearity);
CTORCH_API ct_module *ct_nn_lstm_cell(int64_t input_size, int64_t hidden_size, bool bias);
CTORCH_API ct_module *ct_nn_gru_cell(int64_t input_size, int64_t hidden_size, bool bias);
/* h_1, c_1 = lstm_cell(input, (h_0, c_0)): returns h_1; c_1, when not NULL,
 * receives the new cell state. h_0 and c_0 both given or both NULL. */
CTORCH_API ct_tensor *ct_lstm_cell_forward(ct_module *cell, const ct_tensor *input, const ct_tensor *h0,
                                           const ct_tensor *c0, ct_tensor **c_1);

/* The cells as functions (torch.rnn_tanh_cell, torch.rnn_relu_cell,
 * torch.gru_cell, torch.lstm_cell): input (batch, input_size), hx (and cx)
 * (batch, hidden_size), weights as the cells' parameters; the biases may be
 * NULL. ct_lstm_cell returns h' and writes c' to *cy (required). */
CTORCH_API ct_tensor *ct_rnn_tanh_cell(const ct_tensor *input, const ct_tensor *hx, const ct_tensor *w_ih,
                                       const ct_tensor *w_hh, const ct_tensor *b_ih, const ct_tensor *b_hh);
CTORCH_API ct_tensor *ct_rnn_relu_cell(const ct_tensor *input, const ct_tensor *hx, const ct_tensor *w_ih,
                                       const ct_tensor *w_hh, const ct_tensor *b_ih, const ct_tensor *b_hh);
CTORCH_API ct_tensor *ct_gru_cell(const ct_tensor *input, const ct_tensor *hx, const ct_tensor *w_ih,
                                  const ct_tensor *w_hh, const ct_tensor *b_ih, const ct_tensor *b_hh);
CTORCH_API ct_tensor *ct_lstm_cell(const ct_tensor *input, const ct_tensor *hx, const ct_tensor *cx,
                                   const ct_tensor *w_ih, const ct_tensor *w_hh, const ct_tensor *b_ih,
                                   const ct_tensor *b_hh, ct_tensor **cy);
