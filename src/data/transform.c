/* Image transforms (torchvision.transforms on tensors): ConvertImageDtype /
 * ToTensor's scaling, Normalize, RandomCrop with padding, RandomHorizontalFlip,
 * composed in order. Random ones draw what torchvision draws, in its order. */

static ct_result ct__check_transforms(const ct_transform *list, int n)
{
    for (int i = 0; i < n; i++) {
        const ct_transform *t = &list[i];
        switch (t->kind) {
        case CT_TO_FLOAT: break;
        case CT_NORMALIZE:
            if (t->channels < 1 || t->channels > CT_TRANSFORM_CHANNELS)
                return ct__fail(CT_ERR_VALUE, "Normalize takes 1 to %d channels, not %d", CT_TRANSFORM_CHANNELS, t->channels);
            for (int c = 0; c < t->channels; c++)
                if ((float)t->std[c] == 0)
                    return ct__fail(CT_ERR_VALUE, "std evaluated to zero after conversion to torch.float32, leading to division by zero.");
            break;
        case CT_RANDOM_CROP:
            if (t->size[0] <= 0 || t->size[1] <= 0 || t->padding < 0)
                return ct__fail(CT_ERR_VALUE, "RandomCrop needs a positive size and padding >= 0, not size (%lld, %lld) "
                                "and padding %lld", (long long)t->size[0], (long long)t->size[1], (long long)t->padding);
            break;
        case CT_RANDOM_HFLIP:
            if (t->p < 0 || t->p > 1) return ct__fail(CT_ERR_VALUE, "probability should be between 0 and 1, but got %g", t->p);
            break;
        default: return ct__fail(CT_ERR_VALUE, "unknown transform kind %d at index %d", (int)t->kind, i);
        }
    }
    return CT_OK;
}

/* The generator a random transform draws from when given none. */
static ct_generator *ct__transform_gen(ct_generator *g) { return g ? g : ct__worker_info.generator; }

static bool ct__check_image(const ct_tensor *x, int min_dim)
{
    if (ct_dim(x) >= min_dim) return true;
    char shape[256];
    ct__shape_str(x->sizes, x->ndim, shape, sizeof shape);
    ct__fail(CT_ERR_TYPE, "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = torch.Size(%s)",
             shape);
    return false;
}

/* ToTensor / ConvertImageDtype: uint8 divided by 255, or times scale. */
static ct_tensor *ct__to_float(const ct_tensor *x, const ct_transform *t)
{
    ct_tensor *f = ct_to(x, ct_get_default_dtype());
    if (t->scale != 0) return ct_mul_scalar(f, ct_float(t->scale));
    return x->dtype == CT_U8 ? ct_div_scalar(f, ct_int(255)) : f;
}

/* F.normalize: (x - mean) / std with mean and std of x's dtype over dim -3. */
static ct_tensor *ct__normalize(const ct_tensor *x, const ct_transform *t)
{
    if (!ct_dtype_is_floating(x->dtype)) {
        ct__fail(CT_ERR_TYPE, "Input tensor should be a float tensor. Got torch.%s.", ct_dtype_name(x->dtype));
        return NULL;
    }
    if (!ct__check_image(x, 3)) return NULL;
    ct_tensor *mean = ct_view(ct_to(ct_from_array(t->mean, CT_SHAPE(t->channels), CT_F64), x->dtype), CT_SHAPE(-1, 1, 1));
    ct_tensor *std = ct_view(ct_to(ct_from_array(t->std, CT_SHAPE(t->channels), CT_F64), x->dtype), CT_SHAPE(-1, 1, 1));
    return ct_div(ct_sub(x, mean), std);
}

/* F.pad(img, padding, fill) with a constant: a filled tensor with img in its middle. */
static ct_tensor *ct__pad(const ct_tensor *x, int64_t pad, double fill)
{
    ct_shape s = ct_shape_of(x);
    s.size[s.ndim - 1] += 2 * pad;
    s.size[s.ndim - 2] += 2 * pad;
    ct_scalar v = ct_dtype_is_floating(x->dtype) ? ct_float(fill) : ct_int((int64_t)fill);
    ct_tensor *out = ct_full(s, v, x->dtype);
    ct_tensor *mid = ct_narrow(ct_narrow(out, -1, pad, ct_size(x, -1)), -2, pad, ct_size(x, -2));
    return mid && ct_copy_(mid, x) == CT_OK ? out : NULL;
}

/* RandomCrop.forward: pad, then get_params (top, then left, each a randint) and crop. */
static ct_tensor *ct__random_crop(const ct_tensor *x, const ct_transform *t, ct_generator *g)
{
    if (!ct__check_image(x, 2)) return NULL;
    const ct_tensor *img = t->padding > 0 ? ct__pad(x, t->padding, t->fill) : x;
    if (!img) return NULL;
    int64_t h = ct_size(img, -2), w = ct_size(img, -1), th = t->size[0], tw = t->size[1];
    if (h < th || w < tw) {
        ct__fail(CT_ERR_VALUE, "Required crop size (%lld, %lld) is larger than input image size (%lld, %lld)",
                 (long long)th, (long long)tw, (long long)h, (long long)w);
        return NULL;
    }
    int64_t top = 0, left = 0;
    if (h != th || w != tw) {
        top = ct_item_int(ct_randint(0, h - th + 1, CT_SHAPE(1), CT_I64, g));
        left = ct_item_int(ct_randint(0, w - tw + 1, CT_SHAPE(1), CT_I64, g));
    }
    return ct_narrow(ct_narrow(img, -2, top, th), -1, left, tw);
}

/* RandomHorizontalFlip.forward: torch.rand(1) < p flips the last dim. */
static ct_tensor *ct__random_hflip(const ct_tensor *x, const ct_transform *t, ct_generator *g)
{
    if (!ct__check_image(x, 2)) return NULL;
    float p = (float)(t->p == 0 ? 0.5 : t->p);
    ct_tensor *u = ct_rand(CT_SHAPE(1), CT_F32, g);
    if (!u) return NULL;
    return (float)ct_item(u) < p ? ct_flip(x, CT_DIMS(-1)) : ct__same(x);
}

ct_tensor *ct_transform_apply(const ct_transform *list, int n, const ct_tensor *x, ct_generator *g)
{
    CT__ARG(x, "img", 3);
    if (n < 0 || (n > 0 && !list)) {
        ct__fail(CT_ERR_VALUE, "transform_apply(): list must hold n >= 0 transforms");
        return NULL;
    }
    if (ct__check_transforms(list, n) != CT_OK) return NULL;
    g = ct__transform_gen(g);
    ct_scope s = ct_scope_begin();
    const ct_tensor *y = x;
    for (int i = 0; y && i < n; i++) {
        switch (list[i].kind) {
        case CT_TO_FLOAT: y = ct__to_float(y, &list[i]); break;
        case CT_NORMALIZE: y = ct__normalize(y, &list[i]); break;
        case CT_RANDOM_CROP: y = ct__random_crop(y, &list[i], g); break;
        default: y = ct__random_hflip(y, &list[i], g); break;
        }
    }
    ct_tensor *r = y ? ct_keep(y == x ? ct__same(x) : (ct_tensor *)y) : NULL;
    ct_scope_end(s);
    return r;
}
