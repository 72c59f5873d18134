/* Bad input to torch.nn's functions: PyTorch's words, the program keeps
 * running, and nothing is half changed (a failed load_state_dict or init
 * leaves every tensor as it was). */
#include "errors.h"

static ct_tensor *t34(void) { return ct_randn(CT_SHAPE(3, 4), CT_F32, NULL); }

static void test_module_object(void)
{
    ct_scope s = ct_scope_begin();
    static const ct_module_class cls = {"Net", NULL, NULL};
    FAILS_T(ct_module_new(NULL, sizeof(ct_module)), CT_ERR_VALUE, "ct_module_new: give a module class");
    FAILS_T(ct_module_new(&cls, 1), CT_ERR_VALUE, "ct_module_new: size 1 is smaller than the ct_module header");
    ct_module *m = ct_module_new(&cls, sizeof(ct_module));
    CHECK_STR(ct_module_name(m), "Net");
    CHECK_STR(ct_module_name(NULL), "");
    CHECK(ct_module_retain(NULL) == NULL);
    ct_module_release(NULL);
    ct_tensor *w = t34();
    FAILS_R(ct_register_parameter(m, "a.b", w), CT_ERR_KEY, "parameter name can't contain \".\"");
    FAILS_R(ct_register_parameter(m, "", w), CT_ERR_KEY, "parameter name can't be empty string \"\"");
    FAILS_R(ct_register_parameter(m, NULL, w), CT_ERR_TYPE, "parameter name should be a string. Got NULL");
    FAILS_R(ct_register_parameter(NULL, "w", w), CT_ERR_TYPE, "register_parameter: the module is NULL");
    FAILS_R(ct_register_parameter(m, "w", ct_mul_scalar(ct_requires_grad_(w, true) == CT_OK ? w : NULL, ct_int(2))),
            CT_ERR_TYPE, "cannot assign 'torch.FloatTensor' object to parameter 'w' (torch.nn.Parameter or None required)");
    FAILS_R(ct_register_parameter(m, "i", ct_zeros(CT_SHAPE(2), CT_I64)), CT_ERR_RUNTIME,
            "only Tensors of floating point dtype can require gradients");
    CHECK_OK(ct_register_parameter(m, "w", w));
    FAILS_R(ct_register_buffer(m, "w", w, true), CT_ERR_KEY, "attribute 'w' already exists");
    FAILS_R(ct_register_buffer(m, "a.b", w, true), CT_ERR_KEY, "buffer name can't contain \".\"");
    FAILS_R(ct_register_buffer(m, "", w, true), CT_ERR_KEY, "buffer name can't be empty string \"\"");
    FAILS_R(ct_register_buffer(NULL, "b", w, true), CT_ERR_TYPE, "register_buffer: the module is NULL");
    FAILS_T(ct_add_module(m, "w", ct_nn_relu()), CT_ERR_KEY, "attribute 'w' already exists");
    FAILS_T(ct_add_module(m, "a.b", ct_nn_relu()), CT_ERR_KEY, "module name can't contain \".\", got: a.b");
    FAILS_T(ct_add_module(m, "", ct_nn_relu()), CT_ERR_KEY, "module name can't be empty string \"\"");
    FAILS_T(ct_add_module(NULL, "r", ct_nn_relu()), CT_ERR_TYPE, "add_module: the module is NULL");
    ct_add_module(m, "sub", ct_nn_relu());
    FAILS_R(ct_register_parameter(m, "sub", NULL), CT_ERR_KEY, "attribute 'sub' already exists");
    FAILS_T(ct_module_get_parameter(m, "nope"), CT_ERR_ATTRIBUTE, "Net has no attribute `nope`");
    FAILS_T(ct_module_get_parameter(m, "sub.nope"), CT_ERR_ATTRIBUTE, "ReLU has no attribute `nope`");
    FAILS_T(ct_module_get_parameter(m, "w.x"), CT_ERR_ATTRIBUTE, "`w` is not an nn.Module");
    FAILS_T(ct_module_get_parameter(m, "sub"), CT_ERR_ATTRIBUTE, "`sub` is not an nn.Parameter");
    FAILS_T(ct_module_get_buffer(m, "w"), CT_ERR_ATTRIBUTE, "`w` is not a buffer");
    FAILS_T(ct_module_get_buffer(NULL, "w"), CT_ERR_TYPE, "get_buffer: give a module and a target");
    FAILS_T(ct_module_get_submodule(m, "w"), CT_ERR_ATTRIBUTE, "`w` is not an nn.Module");
    FAILS_T(ct_module_get_submodule(m, NULL), CT_ERR_TYPE, "get_submodule: give a module and a target");
    /* lists of NULL: empty, with the error */
    ct_tensor_list l = ct_module_parameters(NULL, true);
    CHECK(l.n == 0 && !strcmp(ct_last_error(), "the module is NULL"));
    ct_clear_error();
    ct_tensor_list b = ct_module_buffers(NULL, false), sd = ct_module_state_dict(NULL);
    CHECK(b.n == 0 && sd.n == 0);
    ct_clear_error();
    ct_module_list c = ct_module_children(NULL), all = ct_module_modules(NULL);
    CHECK(c.n == 0 && all.n == 0);
    ct_clear_error();
    ct_tensor_list_free(NULL);
    ct_module_list_free(NULL);
    ct_incompatible_keys_free(NULL);
    /* state changes on NULL do nothing */
    ct_module_train(NULL, true);
    ct_module_eval(NULL);
    CHECK(!ct_module_is_training(NULL));
    ct_module_apply(NULL, NULL, NULL);
    ct_module_zero_grad(NULL, true);
    ct_module_requires_grad_(NULL, true);
    FAILS_R(ct_module_to(m, CT_I32), CT_ERR_TYPE,
            "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int32");
    FAILS_R(ct_module_to(NULL, CT_F64), CT_ERR_TYPE, "to: the module is NULL");
    CHECK_INT(ct_dtype_of(w), CT_F32);
    /* calling */
    FAILS_T(ct_forward(m, w), CT_ERR_NOT_IMPLEMENTED, "Module [Net] is missing the required \"forward\" function");
    FAILS_T(ct_forward(NULL, w), CT_ERR_TYPE, "forward: the module is NULL");
    FAILS_NULL(ct_forward(m, NULL), "forward(): argument 'input' (position 1)");
    FAILS_T(ct_forward_n(m, &w, 9), CT_ERR_VALUE, "forward: a module takes from 0 to 8 inputs, got 9");
    ct_module *relu = ct_module_get_submodule(m, "sub");
    ct_tensor *two[2] = {w, w};
    FAILS_T(ct_forward_n(relu, two, 2), CT_ERR_TYPE, "ReLU.forward() takes 2 positional arguments but 3 were given");
    ct_module *list = ct_nn_module_list(NULL, 0);
    FAILS_T(ct_forward(list, w), CT_ERR_NOT_IMPLEMENTED, "Module [ModuleList] is missing the required \"forward\" function");
    ct_module_release(list);
    ct_module_release(m);
    ct_scope_end(s);
}

static void test_load_and_hooks(void)
{
    ct_scope s = ct_scope_begin();
    ct_module *lin = ct_nn_linear(3, 2, true);
    ct_tensor *before = ct_clone(ct_module_get_parameter(lin, "weight"));
    char *names[2] = {(char *)"weight", (char *)"bias"};
    ct_tensor *ts[2] = {ct_zeros(CT_SHAPE(2, 3), CT_F32), ct_zeros(CT_SHAPE(3), CT_F32)};
    ct_tensor_list sd = {2, names, ts};
    FAILS_R(ct_module_load_state_dict(lin, &sd, true, NULL), CT_ERR_RUNTIME,
            "Error(s) in loading state_dict for Linear:\n\tsize mismatch for bias: copying a param with shape "
            "torch.Size([3]) from checkpoint, the shape in current model is torch.Size([2]).");
    CHECK(ct_equal(ct_module_get_parameter(lin, "weight"), before));
    FAILS_R(ct_module_load_state_dict(lin, NULL, true, NULL), CT_ERR_TYPE, "Expected state_dict to be dict-like, got NULL.");
    FAILS_R(ct_module_load_state_dict(NULL, &sd, true, NULL), CT_ERR_TYPE, "load_state_dict: the module is NULL");
    ts[1] = NULL;
    FAILS_R(ct_module_load_state_dict(lin, &sd, true, NULL), CT_ERR_TYPE, "the state_dict's tensor 'bias' is NULL");
    ct_hook_handle h = ct_module_register_forward_hook(NULL, NULL, NULL);
    CHECK(h.id == 0 && !strcmp(ct_last_error(), "register_forward_hook: the module is NULL"));
    ct_clear_error();
    h = ct_module_register_forward_pre_hook(lin, NULL, NULL);
    CHECK(h.id == 0 && !strcmp(ct_last_error(), "the hook is NULL"));
    ct_clear_error();
    h = ct_module_register_full_backward_hook(NULL, NULL, NULL);
    CHECK(h.id == 0);
    ct_clear_error();
    CHECK(ct_register_module_forward_pre_hook(NULL, NULL).id == 0 && ct_register_module_forward_hook(NULL, NULL).id == 0);
    ct_clear_error();
    ct_hook_handle_remove(h); /* a failed registration's handle: ignored */
    ct_module_release(lin);
    ct_scope_end(s);
}

static void test_init(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *v = ct_zeros(CT_SHAPE(3), CT_F32), *m = t34();
    CHECK(isnan(ct_init_calculate_gain("foo", NULL)));
    CHECK_STR(ct_last_error(), "Unsupported nonlinearity foo");
    ct_clear_error();
    CHECK(isnan(ct_init_calculate_gain(NULL, NULL)));
    ct_clear_error();
    const char *FAN = "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions";
    FAILS_INPLACE(v, ct_init_xavier_uniform_(v, 1), CT_ERR_VALUE, FAN);
    FAILS_INPLACE(v, ct_init_xavier_normal_(v, 1), CT_ERR_VALUE, FAN);
    ct_kaiming_opts bad_mode = {0, "foo", NULL}, bad_gain = {0, NULL, "foo"}, plain = {0, NULL, NULL};
    FAILS_INPLACE(m, ct_init_kaiming_uniform_(m, bad_mode), CT_ERR_VALUE, "Mode foo not supported, please use one of ['fan_in', 'fan_out']");
    FAILS_INPLACE(m, ct_init_kaiming_normal_(m, bad_gain), CT_ERR_VALUE, "Unsupported nonlinearity foo");
    FAILS_INPLACE(v, ct_init_kaiming_normal_(v, plain), CT_ERR_VALUE, FAN);
    FAILS_INPLACE(v, ct_init_eye_(v), CT_ERR_VALUE, "Only tensors with 2 dimensions are supported");
    FAILS_INPLACE(v, ct_init_uniform_(v, 2, 1), CT_ERR_RUNTIME, "uniform_ expects to return a [from, to) range, but found from=2 > to=1");
    FAILS_INPLACE(v, ct_init_normal_(v, 0, -1), CT_ERR_RUNTIME, "normal expects std >= 0.0, but found std -1");
    ct_tensor *u8 = ct_zeros(CT_SHAPE(2), CT_U8);
    FAILS_INPLACE(u8, ct_init_constant_(u8, 300), CT_ERR_RUNTIME, "value cannot be converted to type uint8_t without overflow");
    FAILS_NULL_R(ct_init_zeros_(NULL), "init_constant_(): argument 'tensor' (position 1)");
    FAILS_NULL_R(ct_init_ones_(NULL), "init_constant_(): argument 'tensor' (position 1)");
    FAILS_NULL_R(ct_init_trunc_normal_(NULL, 0, 1, -2, 2), "init_trunc_normal_(): argument 'tensor' (position 1)");
    ct_scope_end(s);
}

static void test_functional(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *x = t34(), *x3 = ct_randn(CT_SHAPE(2, 4, 3), CT_F32, NULL);
    FAILS_T(ct_dropout(x, 1.5, true), CT_ERR_VALUE, "dropout probability has to be between 0 and 1, but got 1.5");
    FAILS_T(ct_dropout2d(ct_zeros(CT_SHAPE(3), CT_F32), 0.5, true), CT_ERR_RUNTIME,
            "Feature dropout requires at least 2 dimensions in the input");
    FAILS_NULL(ct_dropout(NULL, 0.5, true), "dropout(): argument 'input' (position 1)");
    FAILS_T(ct_linear(ct_randn(CT_SHAPE(2, 5), CT_F32, NULL), ct_randn(CT_SHAPE(3, 4), CT_F32, NULL), NULL), CT_ERR_RUNTIME,
            "mat1 and mat2 shapes cannot be multiplied (2x5 and 4x3)");
    FAILS_NULL(ct_linear(x, NULL, NULL), "linear(): argument 'weight' (position 2)");
    FAILS_T(ct_bilinear(ct_randn(CT_SHAPE(2, 3), CT_F32, NULL), ct_randn(CT_SHAPE(2, 4), CT_F32, NULL),
                        ct_randn(CT_SHAPE(5, 3, 3), CT_F32, NULL), NULL),
            CT_ERR_RUNTIME, "bilinear(): input2 size does not match weight size: got 4 but expected 3");
    FAILS_T(ct_bilinear(ct_randn(CT_SHAPE(2, 3), CT_F32, NULL), ct_randn(CT_SHAPE(3, 4), CT_F32, NULL),
                        ct_randn(CT_SHAPE(5, 3, 4), CT_F32, NULL), NULL),
            CT_ERR_RUNTIME, "bilinear(): input batch dimensions do not match at dim 0: got 2 and 3");
    ct_tensor *w = ct_randn(CT_SHAPE(3, 2), CT_F32, NULL);
    FAILS_T(ct_embedding(ct_from_array((float[]){1}, CT_SHAPE(1), CT_F32), w, CT_NO_PADDING), CT_ERR_RUNTIME,
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
            "torch.FloatTensor instead (while checking arguments for embedding)");
    FAILS_T(ct_embedding(ct_from_array((int64_t[]){3}, CT_SHAPE(1), CT_I64), w, CT_NO_PADDING), CT_ERR_INDEX, "index out of range in self");
    FAILS_T(ct_embedding(ct_from_array((int64_t[]){1}, CT_SHAPE(1), CT_I64), w, 5), CT_ERR_RUNTIME, "Padding_idx must be within num_embeddings");
    FAILS_T(ct_embedding(ct_from_array((int64_t[]){1}, CT_SHAPE(1), CT_I64), ct_zeros(CT_SHAPE(3), CT_F32), CT_NO_PADDING),
            CT_ERR_RUNTIME, "'weight' must be 2-D");
    ct_tensor *idx = ct_from_array((int64_t[]){1, 2}, CT_SHAPE(2), CT_I64);
    FAILS_T(ct_embedding_bag(idx, w, NULL, "sum"), CT_ERR_VALUE, "offsets has to be a 1D Tensor but got None");
    FAILS_T(ct_embedding_bag(idx, w, ct_from_array((int64_t[]){1}, CT_SHAPE(1), CT_I64), "sum"), CT_ERR_RUNTIME,
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got 1\n[ torch.LongTensor{} ]");
    FAILS_T(ct_embedding_bag(idx, w, idx, "foo"), CT_ERR_VALUE, "mode has to be one of sum, mean or max");
    FAILS_T(ct_embedding_bag(ct_view(idx, CT_SHAPE(1, 2)), w, idx, NULL), CT_ERR_VALUE,
            "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type <class 'torch.Tensor'>");
    FAILS_T(ct_layer_norm(x3, CT_SHAPE(4), NULL, NULL, 1e-5), CT_ERR_RUNTIME,
            "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 4, 3]");
    FAILS_T(ct_layer_norm(x3, CT_SHAPE(4, 3), ct_ones(CT_SHAPE(3), CT_F32), NULL, 1e-5), CT_ERR_RUNTIME,
            "Expected weight to be of same shape as normalized_shape, but got weight of shape [3] and normalized_shape = [4, 3]");
    FAILS_T(ct_layer_norm(x3, CT_SHAPE0, NULL, NULL, 1e-5), CT_ERR_RUNTIME,
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []");
    ct_tensor *rm = ct_zeros(CT_SHAPE(4), CT_F32), *rv = ct_ones(CT_SHAPE(3), CT_F32);
    snap srm = snapshot(rm);
    FAILS_T(ct_batch_norm(x3, rm, rv, NULL, NULL, true, 0.1, 1e-5), CT_ERR_RUNTIME, "running_var should contain 4 elements not 3");
    expect_untouched(__LINE__, "batch_norm", srm);
    FAILS_T(ct_batch_norm(x3, NULL, NULL, ct_ones(CT_SHAPE(3), CT_F32), NULL, true, 0.1, 1e-5), CT_ERR_RUNTIME,
            "weight should contain 4 elements not 3");
    FAILS_T(ct_batch_norm(x3, NULL, NULL, NULL, NULL, false, 0.1, 1e-5), CT_ERR_RUNTIME, "running_mean must be defined in evaluation mode");
    FAILS_T(ct_batch_norm(ct_zeros(CT_SHAPE(1, 4), CT_F32), NULL, NULL, NULL, NULL, true, 0.1, 1e-5), CT_ERR_VALUE,
            "Expected more than 1 value per channel when training, got input size torch.Size([1, 4])");
    FAILS_T(ct_batch_norm(ct_zeros(CT_SHAPE(4), CT_F32), NULL, NULL, NULL, NULL, true, 0.1, 1e-5), CT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    FAILS_T(ct_instance_norm(ct_zeros(CT_SHAPE(2, 3, 1), CT_F32), NULL, NULL, NULL, NULL, true, 0.1, 1e-5), CT_ERR_VALUE,
            "Expected more than 1 spatial element when training, got input size torch.Size([2, 3, 1])");
    FAILS_T(ct_group_norm(x3, 3, NULL, NULL, 1e-5), CT_ERR_RUNTIME,
            "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 4, 3] and num_groups=3");
    FAILS_T(ct_group_norm(x3, 2, ct_ones(CT_SHAPE(3), CT_F32), NULL, 1e-5), CT_ERR_RUNTIME,
            "Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [3] and input of shape [2, 4, 3]");
    FAILS_T(ct_group_norm(ct_zeros(CT_SHAPE(1, 4), CT_F32), 4, NULL, NULL, 1e-5), CT_ERR_VALUE,
            "Expected more than 1 value per channel when training, got input size [1, 4]");
    ct_scope_end(s);
}

static void test_losses(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *x = ct_randn(CT_SHAPE(2, 3), CT_F32, NULL), *t = ct_randn(CT_SHAPE(4, 3), CT_F32, NULL);
    ct_tensor *c = ct_from_array((int64_t[]){0, 3}, CT_SHAPE(2), CT_I64);
    FAILS_T(ct_mse_loss(x, t, CT_REDUCTION_MEAN), CT_ERR_RUNTIME,
            "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0");
    FAILS_T(ct_mse_loss(x, x, (ct_reduction)7), CT_ERR_VALUE, "7 is not a valid value for reduction");
    FAILS_T(ct_l1_loss(x, x, CT_REDUCTION_BATCHMEAN), CT_ERR_VALUE, "batchmean is not a valid value for reduction");
    FAILS_T(ct_smooth_l1_loss(x, x, CT_REDUCTION_MEAN, -1), CT_ERR_RUNTIME, "smooth_l1_loss does not support negative values for beta.");
    FAILS_T(ct_huber_loss(x, x, CT_REDUCTION_MEAN, 0), CT_ERR_RUNTIME, "huber_loss does not support non-positive values for delta.");
    ct_nll_loss_opts o = ct_nll_loss_opts_init();
    FAILS_T(ct_nll_loss(x, c, o), CT_ERR_INDEX, "Target 3 is out of bounds.");
    FAILS_T(ct_nll_loss(x, ct_from_array((int64_t[]){0, 1, 1}, CT_SHAPE(3), CT_I64), o), CT_ERR_VALUE,
            "Expected input batch_size (2) to match target batch_size (3).");
    FAILS_T(ct_nll_loss(x, ct_from_array((float[]){0, 1}, CT_SHAPE(2), CT_F32), o), CT_ERR_RUNTIME, "expected scalar type Long but found Float");
    FAILS_T(ct_nll_loss(ct_zeros(CT_SHAPE(2, 3, 4), CT_F32), ct_from_array((int64_t[]){0, 1}, CT_SHAPE(2), CT_I64), o), CT_ERR_RUNTIME,
            "Expected target size [2, 4], got [2]");
    o.weight = ct_ones(CT_SHAPE(2), CT_F32);
    FAILS_T(ct_nll_loss(x, ct_from_array((int64_t[]){0, 1}, CT_SHAPE(2), CT_I64), o), CT_ERR_RUNTIME,
            "weight tensor should be defined either for all 3 classes or no classes but got weight tensor of shape: [2]");
    o = ct_nll_loss_opts_init();
    FAILS_T(ct_cross_entropy(x, ct_rand(CT_SHAPE(2, 4), CT_F32, NULL), o), CT_ERR_RUNTIME,
            "0D or 1D target tensor expected, multi-target not supported");
    o.label_smoothing = 1.5;
    FAILS_T(ct_cross_entropy(x, c, o), CT_ERR_RUNTIME, "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
    FAILS_T(ct_binary_cross_entropy(ct_full(CT_SHAPE(1), ct_float(1.5), CT_F32), ct_ones(CT_SHAPE(1), CT_F32), NULL, CT_REDUCTION_MEAN),
            CT_ERR_RUNTIME, "all elements of input should be between 0 and 1");
    FAILS_T(ct_binary_cross_entropy(ct_full(CT_SHAPE(1), ct_float(0.5), CT_F32), ct_ones(CT_SHAPE(2), CT_F32), NULL, CT_REDUCTION_MEAN),
            CT_ERR_VALUE, "Using a target size (torch.Size([2])) that is different to the input size (torch.Size([1])) is deprecated. Please ensure they have the same size.");
    FAILS_T(ct_binary_cross_entropy_with_logits(ct_zeros(CT_SHAPE(1), CT_F32), ct_ones(CT_SHAPE(2), CT_F32), NULL, NULL, CT_REDUCTION_MEAN),
            CT_ERR_VALUE, "Target size (torch.Size([2])) must be the same as input size (torch.Size([1]))");
    FAILS_T(ct_kl_div(x, t, CT_REDUCTION_MEAN, false), CT_ERR_RUNTIME,
            "The size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 0");
    FAILS_T(ct_cosine_embedding_loss(x, x, ct_ones(CT_SHAPE(2, 1), CT_F32), 0, CT_REDUCTION_MEAN), CT_ERR_RUNTIME,
            "0D or 1D target tensor expected, multi-target not supported");
    FAILS_T(ct_margin_ranking_loss(ct_zeros(CT_SHAPE(2), CT_F32), ct_zeros(CT_SHAPE(3), CT_F32), ct_ones(CT_SHAPE(2), CT_F32), 0, CT_REDUCTION_MEAN),
            CT_ERR_RUNTIME, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
    ct_triplet_margin_loss_opts to = ct_triplet_margin_loss_opts_init();
    FAILS_T(ct_triplet_margin_loss(x, x, ct_zeros(CT_SHAPE(2), CT_F32), to), CT_ERR_RUNTIME,
            "All inputs should have same dimension but got 2D, 2D and 1D inputs.");
    FAILS_NULL(ct_triplet_margin_loss(x, NULL, x, to), "triplet_margin_loss(): argument 'positive' (position 2)");
    ct_scope_end(s);
}

static void test_layers(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *x = ct_randn(CT_SHAPE(2, 3), CT_F32, NULL);
    ct_norm_opts no = ct_norm_opts_init();
    ct_module *bn1 = ct_nn_batch_norm1d(3, no), *bn2 = ct_nn_batch_norm2d(3, no);
    ct_module *in2 = ct_nn_instance_norm2d(3, ct_instance_norm_opts_init());
    FAILS_T(ct_forward(bn1, ct_zeros(CT_SHAPE(2, 3, 4, 5), CT_F32)), CT_ERR_VALUE, "expected 2D or 3D input (got 4D input)");
    FAILS_T(ct_forward(bn2, x), CT_ERR_VALUE, "expected 4D input (got 2D input)");
    FAILS_T(ct_forward(in2, x), CT_ERR_VALUE, "expected 3D or 4D input (got 2D input)");
    ct_module *fl = ct_nn_flatten(0, 5), *un = ct_nn_unflatten(1, CT_SHAPE(2, 2)), *sm = ct_nn_softmax(3);
    FAILS_T(ct_forward(fl, x), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
    FAILS_T(ct_forward(un, x), CT_ERR_RUNTIME, "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor");
    FAILS_T(ct_forward(sm, x), CT_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got 3)");
    FAILS_T(ct_nn_group_norm(3, 4, no), CT_ERR_VALUE, "num_channels must be divisible by num_groups");
    FAILS_T(ct_nn_dropout(-1), CT_ERR_VALUE, "dropout probability has to be between 0 and 1, but got -1");
    FAILS_T(ct_nn_dropout2d(2), CT_ERR_VALUE, "dropout probability has to be between 0 and 1, but got 2");
    FAILS_T(ct_nn_embedding_bag(3, 2, "foo"), CT_ERR_VALUE, "mode has to be one of sum, mean or max");
    ct_embedding_opts eo = ct_embedding_opts_init();
    eo.padding_idx = 3;
    FAILS_T(ct_nn_embedding(3, 2, eo), CT_ERR_RUNTIME, "Padding_idx must be within num_embeddings");
    FAILS_T(ct_nn_layer_norm(CT_SHAPE(-1), no), CT_ERR_RUNTIME, "Trying to create tensor with negative dimension -1: [-1]");
    FAILS_T(ct_nn_linear(-1, 2, true), CT_ERR_RUNTIME, "Trying to create tensor with negative dimension -1: [2, -1]");
    FAILS_T(ct_nn_bilinear(2, -3, 2, true), CT_ERR_RUNTIME, "Trying to create tensor with negative dimension -3: [2, 2, -3]");
    FAILS_T(ct_nn_mse_loss((ct_reduction)9), CT_ERR_VALUE, "9 is not a valid value for reduction");
    FAILS_T(ct_nn_kl_div_loss((ct_reduction)9, false), CT_ERR_VALUE, "9 is not a valid value for reduction");
    FAILS_T(ct_nn_sequential(NULL, 2), CT_ERR_VALUE, "Sequential: give an array of 2 modules");
    FAILS_T(ct_nn_module_dict(NULL, NULL, 1), CT_ERR_VALUE, "ModuleDict: give 1 names");
    FAILS_T(ct_nn_append(NULL, ct_nn_relu()), CT_ERR_TYPE, "add_module: the module is NULL");
    /* modules given a wrong number of inputs, by kind */
    ct_nll_loss_opts nll = ct_nll_loss_opts_init();
    ct_triplet_margin_loss_opts tro = ct_triplet_margin_loss_opts_init();
    ct_module *mods[] = {ct_nn_identity(), ct_nn_relu6(), ct_nn_leaky_relu(0.1), ct_nn_elu(1), ct_nn_selu(), ct_nn_celu(1),
                         ct_nn_gelu(CT_GELU_NONE), ct_nn_silu(), ct_nn_mish(), ct_nn_softplus(1, 20), ct_nn_hardtanh(-1, 1),
                         ct_nn_hardsigmoid(), ct_nn_hardswish(), ct_nn_sigmoid(), ct_nn_tanh(), ct_nn_log_softmax(1),
                         ct_nn_layer_norm(CT_SHAPE(3), no), ct_nn_group_norm(1, 3, no), ct_nn_embedding(3, 2, ct_embedding_opts_init()),
                         ct_nn_l1_loss(CT_REDUCTION_SUM), ct_nn_smooth_l1_loss(CT_REDUCTION_SUM, 1), ct_nn_huber_loss(CT_REDUCTION_SUM, 1),
                         ct_nn_nll_loss(nll), ct_nn_cross_entropy_loss(nll), ct_nn_bce_loss(NULL, CT_REDUCTION_SUM),
                         ct_nn_bce_with_logits_loss(NULL, NULL, CT_REDUCTION_SUM), ct_nn_cosine_embedding_loss(0, CT_REDUCTION_SUM),
                         ct_nn_margin_ranking_loss(0, CT_REDUCTION_SUM), ct_nn_triplet_margin_loss(tro)};
    ct_tensor *four[4] = {x, x, x, x};
    for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
        CHECK(ct_forward_n(mods[i], four, 4) == NULL && ct_last_error_code() == CT_ERR_TYPE);
        ct_clear_error();
        ct_module_release(mods[i]);
    }
    ct_module *unused[] = {bn1, bn2, in2, fl, un, sm};
    for (size_t i = 0; i < sizeof unused / sizeof unused[0]; i++) ct_module_release(unused[i]);
    ct_scope_end(s);
}

int main(void)
{
    RUN(test_module_object);
    RUN(test_load_and_hooks);
    RUN(test_init);
    RUN(test_functional);
    RUN(test_losses);
    RUN(test_layers);
    return ct_test_report();
}
