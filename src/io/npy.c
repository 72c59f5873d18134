/* NumPy's .npy format (numpy/lib/format.py): "\x93NUMPY", version, header
 * length, a Python dict literal {'descr': '<f4', 'fortran_order': False,
 * 'shape': (2, 3), } padded with spaces to a multiple of 64 bytes, then data. */

/* numpy's type string (without byte order) for a dtype, NULL where numpy has none. */
static const char *ct__npy_descr(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: return "b1";
    case CT_U8: return "u1";
    case CT_I8: return "i1";
    case CT_I16: return "i2";
    case CT_I32: return "i4";
    case CT_I64: return "i8";
    case CT_F16: return "f2";
    case CT_F32: return "f4";
    case CT_F64: return "f8";
    default: return NULL;
    }
}

static ct_dtype ct__npy_dtype(const char *descr)
{
    for (int d = CT_BOOL; d < CT_NUM_DTYPES; d++) {
        const char *s = ct__npy_descr((ct_dtype)d);
        if (s && strncmp(descr, s, 2) == 0 && descr[2] == '\'') return (ct_dtype)d;
    }
    return CT_DEFAULT;
}

/* The value after 'key': in the header dict, or NULL. */
static const char *ct__npy_field(const char *head, const char *key)
{
    const char *p = strstr(head, key);
    if (!p) return NULL;
    p = strchr(p + strlen(key), ':');
    return p ? p + 1 + strspn(p + 1, " ") : NULL;
}

/* Parse the header dict: dtype, byte order, order and shape. */
static ct_result ct__npy_header(const char *path, const char *head, ct_dtype *dt, bool *swap, bool *fortran,
                                ct_shape *shape)
{
    const char *descr = ct__npy_field(head, "'descr'"), *order = ct__npy_field(head, "'fortran_order'");
    const char *sh = ct__npy_field(head, "'shape'");
    if (!descr || *descr != '\'' || !descr[1] || !order || !sh || *sh != '(')
        return ct__fail(CT_ERR_VALUE, "'%s' is not a .npy file (its header cannot be read)", path);
    char endian = descr[1];
    *dt = strchr("<>|=", endian) ? ct__npy_dtype(descr + 2) : CT_DEFAULT; /* (endian is not the '\0') */
    if (*dt == CT_DEFAULT) {
        static const char *const names[][2] = {{"u2", "uint16"}, {"u4", "uint32"}, {"u8", "uint64"}, {"c8", "complex64"},
                                               {"c16", "complex128"}, {"O", "object_"}};
        const char *name = NULL;
        size_t len = strcspn(descr + 2, "'");
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i][0]) == len && strncmp(descr + 2, names[i][0], len) == 0) name = names[i][1];
        return ct__fail(CT_ERR_TYPE, "can't convert np.ndarray of type numpy.%.*s. The only supported types are: float64, "
                        "float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.",
                        name ? (int)strlen(name) : (int)len, name ? name : descr + 2);
    }
    *swap = endian == '>' ? ct__little_endian() : endian == '<' ? !ct__little_endian() : false;
    *fortran = strncmp(order, "True", 4) == 0;
    shape->ndim = 0;
    for (const char *p = sh + 1; *p != ')';) {
        char *stop;
        long long v = strtoll(p, &stop, 10);
        if (stop == p || v < 0 || shape->ndim == CT_MAX_DIMS)
            return ct__fail(CT_ERR_VALUE, "'%s' is not a .npy file (bad shape)", path);
        shape->size[shape->ndim++] = v;
        p = stop + strspn(stop, " ,");
    }
    return CT_OK;
}

ct_tensor *ct_load_npy(const char *path)
{
    ct__bytes b;
    if (ct__read_bytes(path, &b) != CT_OK) return NULL;
    const unsigned char *p = b.data;
    bool magic = b.n >= 12 && memcmp(p, "\x93NUMPY", 6) == 0 && p[6] >= 1 && p[6] <= 3;
    size_t start = magic && p[6] == 1 ? 10 : 12, hlen = 0; /* version 1: a 2-byte length, else 4 (little-endian) */
    for (size_t i = start; magic && i-- > 8;) hlen = hlen << 8 | p[i];
    if (!magic || b.n < start + hlen) {
        ct__bytes_free(&b);
        ct__fail(CT_ERR_VALUE, "'%s' is not a .npy file (bad magic string or header length)", path);
        return NULL;
    }
    char *head = (char *)CT_MALLOC(hlen + 1);
    ct_dtype dt = CT_DEFAULT;
    bool swap = false, fortran = false;
    ct_shape shape;
    ct_result r = head ? CT_OK : CT__OOM();
    if (head) {
        memcpy(head, p + start, hlen);
        head[hlen] = 0;
        r = ct__npy_header(path, head, &dt, &swap, &fortran, &shape);
        CT_FREE(head);
    }
    int64_t numel = 0;
    if (r == CT_OK) r = ct__file_numel(path, shape, dt, &numel);
    if (r == CT_OK && (uint64_t)numel > (b.n - start - hlen) / ct_dtype_size(dt))
        r = ct__fail(CT_ERR_VALUE, "'%s' is shorter than its shape says", path);
    if (r != CT_OK) {
        ct__bytes_free(&b);
        return NULL;
    }
    if (swap) ct__swap_bytes(b.data + start + hlen, numel, ct_dtype_size(dt));
    int64_t strides[CT_MAX_DIMS], step = 1;
    for (int d = 0; fortran && d < shape.ndim; d++) {
        strides[d] = step;
        step *= CT__MAX(shape.size[d], 1); /* (ct__file_numel bounds it) */
    }
    return ct__tensor_over(&b, start + hlen, shape, fortran ? strides : NULL, dt);
}

ct_result ct_save_npy(const char *path, const ct_tensor *t)
{
    if (!path) return ct__fail(CT_ERR_TYPE, "expected a file path, not NULL");
    CT__ARG_R(t, "tensor", 2);
    const char *descr = ct__npy_descr(t->dtype);
    if (!descr) return ct__fail(CT_ERR_TYPE, "Got unsupported ScalarType %s", t->dtype == CT_BF16 ? "BFloat16" : "?");
    char head[64 + 24 * CT_MAX_DIMS];
    int n = snprintf(head, sizeof head, "{'descr': '%c%s', 'fortran_order': False, 'shape': (",
                     t->dtype == CT_BOOL || t->dtype == CT_U8 || t->dtype == CT_I8 ? '|' : '<', descr);
    for (int d = 0; d < t->ndim; d++) /* Python's tuple: (), (3,), (2, 3) */
        n += snprintf(head + n, sizeof head - (size_t)n, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    n += snprintf(head + n, sizeof head - (size_t)n, "%s), }", t->ndim == 1 ? "," : "");
    int total = (10 + n + 1 + 63) / 64 * 64; /* with the newline, a multiple of 64 */
    while (10 + n + 1 < total) head[n++] = ' ';
    head[n++] = '\n';
    ct_scope s = ct_scope_begin();
    const ct_tensor *c = ct__host(ct_contiguous(t)); /* a device's tensor through a host copy */
    ct__atomic_file a;
    ct_result r = !c ? ct_last_error_code() : ct__atomic_open(&a, path);
    if (r == CT_OK) {
        unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 0xff), (unsigned char)(n >> 8)};
        ct__atomic_write(&a, pre, 10);
        ct__atomic_write(&a, head, (size_t)n);
        ct__atomic_write(&a, ct__data(c), (size_t)ct_numel(c) * ct_dtype_size(c->dtype));
        r = ct__atomic_commit(&a);
    }
    ct_scope_end(s);
    return r;
}
