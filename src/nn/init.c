/* torch.nn.init: PyTorch's draws, in PyTorch's order, without recording. */

double ct_init_calculate_gain(const char *nonlinearity, const double *param)
{
    static const char *const linear[] = {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                                         "conv_transpose2d", "conv_transpose3d", "sigmoid"};
    if (!nonlinearity) {
        ct__fail(CT_ERR_VALUE, "Unsupported nonlinearity None");
        return NAN;
    }
    for (size_t i = 0; i < sizeof linear / sizeof linear[0]; i++)
        if (!strcmp(nonlinearity, linear[i])) return 1;
    if (!strcmp(nonlinearity, "tanh")) return 5.0 / 3;
    if (!strcmp(nonlinearity, "relu")) return sqrt(2.0);
    if (!strcmp(nonlinearity, "leaky_relu")) {
        double slope = param ? *param : 0.01;
        return sqrt(2.0 / (1 + slope * slope));
    }
    if (!strcmp(nonlinearity, "selu")) return 3.0 / 4;
    ct__fail(CT_ERR_VALUE, "Unsupported nonlinearity %s", nonlinearity);
    return NAN;
}

/* Run op on t with grad mode off (what `with torch.no_grad()` does). */
#define CT__NO_GRAD(r, expr)                          \
    do {                                              \
        ct_grad_mode ct__m_ = ct_no_grad();           \
        (r) = (expr);                                 \
        ct_grad_mode_restore(ct__m_);                 \
    } while (0)

ct_result ct_init_uniform_(ct_tensor *t, double a, double b)
{
    ct_result r;
    CT__ARG_R(t, "tensor", 1);
    CT__NO_GRAD(r, ct_uniform_(t, a, b, NULL));
    return r;
}

ct_result ct_init_normal_(ct_tensor *t, double mean, double std)
{
    ct_result r;
    CT__ARG_R(t, "tensor", 1);
    CT__NO_GRAD(r, ct_normal_(t, mean, std, NULL));
    return r;
}

static double ct__norm_cdf(double x) { return (1.0 + erf(x / sqrt(2.0))) / 2.0; }

static ct_result ct__trunc_normal(ct_tensor *t, double mean, double std, double a, double b)
{
    double l = ct__norm_cdf((a - mean) / std), u = ct__norm_cdf((b - mean) / std);
    ct_result r = ct_uniform_(t, 2 * l - 1, 2 * u - 1, NULL);
    if (r == CT_OK) r = ct_erfinv_(t);
    if (r == CT_OK) r = ct_mul_scalar_(t, ct_float(std * sqrt(2.0)));
    if (r == CT_OK) r = ct_add_scalar_(t, ct_float(mean));
    if (r == CT_OK) r = ct_clamp_scalar_(t, ct_float(a), ct_float(b));
    return r;
}

ct_result ct_init_trunc_normal_(ct_tensor *t, double mean, double std, double a, double b)
{
    ct_result r;
    CT__ARG_R(t, "tensor", 1);
    CT__NO_GRAD(r, ct__trunc_normal(t, mean, std, a, b));
    return r;
}

ct_result ct_init_constant_(ct_tensor *t, double val)
{
    ct_result r;
    CT__ARG_R(t, "tensor", 1);
    CT__NO_GRAD(r, ct_fill_(t, ct_float(val)));
    return r;
}

ct_result ct_init_zeros_(ct_tensor *t) { return ct_init_constant_(t, 0); }
ct_result ct_init_ones_(ct_tensor *t) { return ct_init_constant_(t, 1); }

ct_result ct_init_eye_(ct_tensor *t)
{
    CT__ARG_R(t, "tensor", 1);
    if (t->ndim != 2) return ct__fail(CT_ERR_VALUE, "Only tensors with 2 dimensions are supported");
    ct_result r;
    ct_scope s = ct_scope_begin();
    CT__NO_GRAD(r, ct_copy_(t, ct_eye(t->sizes[0], t->sizes[1], t->dtype)));
    ct_scope_end(s);
    return r;
}

/* nn.init._calculate_fan_in_and_fan_out. */
static ct_result ct__fans(const ct_tensor *t, double *fan_in, double *fan_out)
{
    if (t->ndim < 2)
        return ct__fail(CT_ERR_VALUE, "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
    double receptive = 1;
    for (int d = 2; d < t->ndim; d++) receptive *= (double)t->sizes[d];
    *fan_in = (double)t->sizes[1] * receptive;
    *fan_out = (double)t->sizes[0] * receptive;
    return CT_OK;
}

ct_result ct_init_xavier_uniform_(ct_tensor *t, double gain)
{
    double fan_in = 0, fan_out = 0;
    CT__ARG_R(t, "tensor", 1);
    ct_result r = ct__fans(t, &fan_in, &fan_out);
    if (r != CT_OK) return r;
    double a = sqrt(3.0) * (gain * sqrt(2.0 / (fan_in + fan_out)));
    return ct_init_uniform_(t, -a, a);
}

ct_result ct_init_xavier_normal_(ct_tensor *t, double gain)
{
    double fan_in = 0, fan_out = 0;
    CT__ARG_R(t, "tensor", 1);
    ct_result r = ct__fans(t, &fan_in, &fan_out);
    if (r != CT_OK) return r;
    return ct_init_normal_(t, 0, gain * sqrt(2.0 / (fan_in + fan_out)));
}

/* The standard deviation kaiming_* draws with (0 for a tensor without
 * elements, which PyTorch leaves alone). */
static ct_result ct__kaiming_std(const ct_tensor *t, ct_kaiming_opts o, double *std)
{
    double fan_in = 0, fan_out = 0;
    const char *mode = o.mode ? o.mode : "fan_in";
    *std = 0;
    if (ct_numel(t) == 0) return CT_OK;
    if (strcmp(mode, "fan_in") && strcmp(mode, "fan_out"))
        return ct__fail(CT_ERR_VALUE, "Mode %s not supported, please use one of ['fan_in', 'fan_out']", mode);
    ct_result r = ct__fans(t, &fan_in, &fan_out);
    if (r != CT_OK) return r;
    double gain = ct_init_calculate_gain(o.nonlinearity ? o.nonlinearity : "leaky_relu", &o.a);
    if (isnan(gain)) return ct_last_error_code();
    *std = gain / sqrt(strcmp(mode, "fan_in") ? fan_out : fan_in);
    return CT_OK;
}

ct_result ct_init_kaiming_uniform_(ct_tensor *t, ct_kaiming_opts opts)
{
    double std;
    CT__ARG_R(t, "tensor", 1);
    ct_result r = ct__kaiming_std(t, opts, &std);
    if (r != CT_OK || ct_numel(t) == 0) return r;
    double bound = sqrt(3.0) * std;
    return ct_init_uniform_(t, -bound, bound);
}

ct_result ct_init_kaiming_normal_(ct_tensor *t, ct_kaiming_opts opts)
{
    double std;
    CT__ARG_R(t, "tensor", 1);
    ct_result r = ct__kaiming_std(t, opts, &std);
    if (r != CT_OK || ct_numel(t) == 0) return r;
    return ct_init_normal_(t, 0, std);
}

/* nn.init.orthogonal_, step for step: normal draws into a (rows, cols)
 * matrix, QR of it (transposed when rows < cols), Q's columns times the
 * signs of R's diagonal, copied into t and scaled by gain. */
static ct_result ct__orthogonal(ct_tensor *t, double gain)
{
    int64_t rows = t->sizes[0], cols = ct_numel(t) / rows;
    bool wide = rows < cols;
    ct_tensor *q = NULL, *r = NULL, *flat = ct_empty(CT_SHAPE(rows, cols), t->dtype);
    if (!flat || ct_normal_(flat, 0, 1, NULL) != CT_OK) return ct_last_error_code();
    if (ct_linalg_qr(wide ? ct_t(flat) : flat, CT_QR_REDUCED, &q, &r) != CT_OK ||
        ct_mul_(q, ct_sign(ct_diag(r, 0))) != CT_OK)
        return ct_last_error_code();
    ct_tensor *dst = ct_view_as(t, wide ? ct_t(q) : q);
    if (!dst || ct_copy_(dst, wide ? ct_t(q) : q) != CT_OK) return ct_last_error_code();
    return ct_mul_scalar_(t, ct_float(gain));
}

ct_result ct_init_orthogonal_(ct_tensor *t, double gain)
{
    CT__ARG_R(t, "tensor", 1);
    if (t->ndim < 2) return ct__fail(CT_ERR_VALUE, "Only tensors with 2 or more dimensions are supported");
    if (ct_numel(t) == 0) return CT_OK;
    ct_result r;
    ct_scope s = ct_scope_begin();
    CT__NO_GRAD(r, ct__orthogonal(t, gain));
    ct_scope_end(s);
    return r;
}
