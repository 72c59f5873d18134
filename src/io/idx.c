/* IDX files (MNIST, Fashion-MNIST; yann.lecun.com/exdb/mnist): a 4-byte magic
 * (0, 0, type, ndim), ndim big-endian uint32 sizes, then big-endian data. */

static ct_dtype ct__idx_dtype(unsigned char code)
{
    switch (code) {
    case 0x08: return CT_U8;
    case 0x09: return CT_I8;
    case 0x0B: return CT_I16;
    case 0x0C: return CT_I32;
    case 0x0D: return CT_F32;
    case 0x0E: return CT_F64;
    default: return CT_DEFAULT;
    }
}

static uint32_t ct__be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

ct_tensor *ct_read_idx(const char *path)
{
    ct__bytes b;
    if (ct__read_bytes(path, &b) != CT_OK) return NULL;
    const unsigned char *p = b.data;
    ct_dtype dt = b.n >= 4 ? ct__idx_dtype(p[2]) : CT_DEFAULT;
    int ndim = b.n >= 4 ? p[3] : 0;
    size_t head = 4 + 4 * (size_t)ndim;
    ct_shape shape;
    shape.ndim = ndim;
    int64_t numel = 0;
    bool ok = b.n >= 4 && p[0] == 0 && p[1] == 0 && dt != CT_DEFAULT && ndim <= CT_MAX_DIMS && b.n >= head;
    for (int d = 0; ok && d < ndim; d++) shape.size[d] = ct__be32(p + 4 + 4 * d);
    size_t es = ok ? ct_dtype_size(dt) : 0;
    if (ok && ct__file_numel(path, shape, dt, &numel) != CT_OK) {
        ct__bytes_free(&b);
        return NULL;
    }
    if (!ok || (uint64_t)numel > (b.n - head) / es) {
        ct__bytes_free(&b);
        ct__fail(CT_ERR_VALUE, "'%s' is not an IDX file (bad magic number, or shorter than its header says)", path);
        return NULL;
    }
    if (ct__little_endian()) ct__swap_bytes(b.data + head, numel, es);
    return ct__tensor_over(&b, head, shape, NULL, dt);
}

ct_dataset *ct_idx_dataset(const char *images_path, const char *labels_path)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *t[2] = {ct_read_idx(images_path), NULL};
    t[1] = t[0] ? ct_to(ct_read_idx(labels_path), CT_I64) : NULL;
    ct_dataset *d = t[1] ? ct_tensor_dataset(t, 2) : NULL;
    ct_scope_end(s);
    return d;
}
