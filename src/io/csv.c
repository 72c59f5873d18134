/* Numeric CSV (numpy.loadtxt with a delimiter): every field a number. */

/* Parse the rows after skip_rows into a growing array of doubles. */
static ct_result ct__parse_csv(char *text, size_t n, ct_csv_opts o, double **vals, int64_t *rows,
                               int64_t *cols)
{
    char delim = o.delimiter ? o.delimiter : ',';
    const char field_end[3] = {delim, '\r', 0};
    int64_t cap = 1024, count = 0, line_no = 0;
    double *v = (double *)CT_MALLOC((size_t)cap * sizeof *v);
    if (!v) return CT__OOM();
    *rows = 0, *cols = -1;
    for (char *line = text, *end; line < text + n; line = end + 1) {
        end = (char *)memchr(line, '\n', (size_t)(text + n - line));
        if (!end) end = text + n;
        *end = 0;
        if (line_no++ < o.skip_rows || line[strspn(line, " \t\r")] == 0) continue;
        int64_t c = 0;
        for (char *f = line;; f++) {
            char *stop;
            double x = strtod(f, &stop);
            char *after = stop + strspn(stop, " \t\r");
            if (stop == f || (*after != delim && *after != 0)) {
                size_t len = strcspn(f, field_end);
                CT_FREE(v);
                return ct__fail(CT_ERR_VALUE, "could not convert string '%.*s' to float64 at row %lld, column %lld.",
                                (int)len, f, (long long)(line_no - 1), (long long)(c + 1));
            }
            if (count == cap) {
                double *g = (double *)CT_REALLOC(v, (size_t)(cap *= 2) * sizeof *v);
                if (!g) {
                    CT_FREE(v);
                    return CT__OOM();
                }
                v = g;
            }
            v[count++] = x;
            c++;
            if (*after == 0) break;
            f = after;
        }
        if (*cols >= 0 && c != *cols) {
            CT_FREE(v);
            return ct__fail(CT_ERR_VALUE, "the number of columns changed from %lld to %lld at row %lld; use `usecols` to "
                            "select a subset and avoid this error", (long long)*cols, (long long)c, (long long)line_no);
        }
        *cols = c;
        (*rows)++;
    }
    if (*cols < 0) *cols = 0;
    *vals = v;
    return CT_OK;
}

ct_tensor *ct_read_csv(const char *path, ct_csv_opts opts)
{
    if (opts.skip_rows < 0) {
        ct__fail(CT_ERR_VALUE, "skiprows must be >= 0, not %d", opts.skip_rows);
        return NULL;
    }
    ct__bytes b;
    if (ct__read_bytes(path, &b) != CT_OK) return NULL;
    /* a NUL-terminated copy to parse in place */
    char *text = (char *)CT_MALLOC(b.n + 1);
    if (!text) {
        ct__bytes_free(&b);
        CT__OOM();
        return NULL;
    }
    if (b.n) memcpy(text, b.data, b.n);
    text[b.n] = 0;
    size_t n = b.n;
    ct__bytes_free(&b);
    double *vals = NULL;
    int64_t rows = 0, cols = 0;
    ct_result r = ct__parse_csv(text, n, opts, &vals, &rows, &cols);
    CT_FREE(text);
    if (r != CT_OK) return NULL;
    ct_scope s = ct_scope_begin();
    ct_dtype dt = opts.dtype == CT_DEFAULT ? ct_get_default_dtype() : opts.dtype;
    ct_device_guard host = ct_device_guard_begin(CT_CPU); /* loads land on the CPU */
    ct_tensor *t = ct_keep(ct_to(ct_from_array(vals, CT_SHAPE(rows, cols), CT_F64), dt));
    ct_device_guard_end(host);
    ct_scope_end(s);
    CT_FREE(vals);
    return t;
}
