/* safetensors (github.com/huggingface/safetensors): an 8-byte little-endian
 * header size N, N bytes of JSON
 *     {"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},...}
 * padded with spaces to a multiple of 8, then the tensors' bytes (C order,
 * little-endian), whose offsets count from the end of the header and tile
 * the rest of the file exactly. */

/* The format's dtypes in the reference implementation's order (its Dtype
 * enum, which the writer sorts by, widest first); CT_DEFAULT where ctorch
 * has no such dtype. */
static const struct ct__st_dtype {
    const char *name;
    ct_dtype dtype;
} ct__st_dtypes[] = {
    {"BOOL", CT_BOOL}, {"U8", CT_U8}, {"I8", CT_I8}, {"F8_E5M2", CT_DEFAULT}, {"F8_E4M3", CT_DEFAULT},
    {"I16", CT_I16}, {"U16", CT_DEFAULT}, {"F16", CT_F16}, {"BF16", CT_BF16}, {"I32", CT_I32},
    {"U32", CT_DEFAULT}, {"F32", CT_F32}, {"F64", CT_F64}, {"I64", CT_I64}, {"U64", CT_DEFAULT},
};
#define CT__ST_NDTYPES ((int)(sizeof ct__st_dtypes / sizeof ct__st_dtypes[0]))

/* The reference's header size limit. */
#define CT__ST_MAX_HEADER 100000000u

/* A dtype's place in ct__st_dtypes. */
static int ct__st_rank(ct_dtype dt)
{
    for (int i = 0; i < CT__ST_NDTYPES; i++)
        if (ct__st_dtypes[i].dtype == dt) return i;
    return -1;
}

static ct_result ct__st_bad(const char *path, const char *fmt, ...) CT__PRINTF(2, 3);
static ct_result ct__st_bad(const char *path, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return ct__fail(CT_ERR_VALUE, "'%s' is not a valid safetensors file: %s", path, why);
}

void ct_metadata_free(ct_metadata *m)
{
    if (!m) return;
    for (int i = 0; i < m->n; i++) {
        CT_FREE((void *)m->keys[i]);
        CT_FREE((void *)m->values[i]);
    }
    CT_FREE((void *)m->keys);
    CT_FREE((void *)m->values);
    memset(m, 0, sizeof *m);
}

void ct_tensor_list_release(ct_tensor_list *list)
{
    if (!list) return;
    for (int i = 0; i < list->n; i++) ct_release(list->tensors[i]);
    ct_tensor_list_free(list);
}

/* ---------------------------------------------------------------- reading JSON */

/* A JSON text being read (RFC 8259, as serde_json reads it). The readers
 * return false on a syntax error, or with oom set when memory ran out. */
typedef struct ct__json {
    const char *start, *p, *end;
    bool oom;
} ct__json;

static void ct__json_ws(ct__json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

/* The next character, after whitespace, if it is c (then consumed). */
static bool ct__json_eat(ct__json *j, char c)
{
    ct__json_ws(j);
    if (j->p == j->end || *j->p != c) return false;
    j->p++;
    return true;
}

static int ct__hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Four hex digits after "\u". */
static bool ct__json_u16(ct__json *j, uint32_t *v)
{
    if (j->end - j->p < 4) return false;
    *v = 0;
    for (int k = 0; k < 4; k++) {
        int d = ct__hex_digit(*j->p++);
        if (d < 0) return false;
        *v = *v << 4 | (uint32_t)d;
    }
    return true;
}

static void ct__buf_utf8(ct__buf *b, uint32_t cp)
{
    unsigned char u[4];
    size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    static const unsigned char lead[5] = {0, 0, 0xc0, 0xe0, 0xf0};
    for (size_t k = n; k-- > 1; cp >>= 6) u[k] = (unsigned char)(0x80 | (cp & 0x3f));
    u[0] = (unsigned char)(lead[n] | cp);
    ct__buf_add(b, u, n);
}

/* A string, decoded into out (NUL-terminated), or skipped when out is NULL.
 * The text is valid UTF-8 already; a NUL character (which a C name cannot
 * hold) or an unpaired surrogate is refused. */
static bool ct__json_string(ct__json *j, ct__buf *out)
{
    if (out) {
        out->n = 0;
        ct__buf_add(out, "", 0);
    }
    if (!ct__json_eat(j, '"')) return false;
    while (j->p < j->end) {
        const char *run = j->p; /* plain characters up to a quote, backslash or control character */
        while (j->p < j->end && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20) j->p++;
        if (out) ct__buf_add(out, run, (size_t)(j->p - run));
        if (j->p == j->end || (unsigned char)*j->p < 0x20) return false;
        if (*j->p++ == '"') {
            j->oom = out && out->failed;
            return !j->oom;
        }
        if (j->p == j->end) return false;
        char c = *j->p++;
        const char *plain = strchr("\"\\/bfnrt", c);
        if (c == 'u') {
            uint32_t cp, lo;
            if (!ct__json_u16(j, &cp) || (cp >= 0xdc00 && cp <= 0xdfff)) return false;
            if (cp >= 0xd800 && cp <= 0xdbff) { /* a surrogate pair */
                if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u') return false;
                j->p += 2;
                if (!ct__json_u16(j, &lo) || lo < 0xdc00 || lo > 0xdfff) return false;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (cp == 0) return false;
            if (out) ct__buf_utf8(out, cp);
        } else if (plain && c) {
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            if (out) ct__buf_add(out, &decoded[plain - "\"\\/bfnrt"], 1);
        } else {
            return false;
        }
    }
    return false;
}

/* A non-negative integer (no sign, fraction or exponent) that fits uint64. */
static bool ct__json_uint(ct__json *j, uint64_t *v)
{
    ct__json_ws(j);
    if (j->p == j->end || *j->p < '0' || *j->p > '9') return false;
    if (*j->p == '0' && j->end - j->p > 1 && j->p[1] >= '0' && j->p[1] <= '9') return false;
    uint64_t x = 0;
    for (; j->p < j->end && *j->p >= '0' && *j->p <= '9'; j->p++) {
        unsigned d = (unsigned)(*j->p - '0');
        if (x > (UINT64_MAX - d) / 10) return false;
        x = x * 10 + d;
    }
    if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E')) return false;
    *v = x;
    return true;
}

/* A number of any form, as the JSON grammar has it. */
static bool ct__json_number(ct__json *j)
{
    const char *p = j->p, *e = j->end;
    if (p < e && *p == '-') p++;
    if (p == e || *p < '0' || *p > '9') return false;
    if (*p == '0') p++;
    else while (p < e && *p >= '0' && *p <= '9') p++;
    if (p < e && *p == '.') {
        if (++p == e || *p < '0' || *p > '9') return false;
        while (p < e && *p >= '0' && *p <= '9') p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        if (++p < e && (*p == '+' || *p == '-')) p++;
        if (p == e || *p < '0' || *p > '9') return false;
        while (p < e && *p >= '0' && *p <= '9') p++;
    }
    j->p = p;
    return true;
}

/* Skip one value of any kind (fields the format does not define), nested at
 * most 128 deep (serde_json's limit). */
static bool ct__json_skip(ct__json *j, int depth)
{
    ct__json_ws(j);
    if (j->p == j->end || depth > 128) return false;
    char c = *j->p;
    if (c == '"') return ct__json_string(j, NULL);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->p++;
        if (ct__json_eat(j, close)) return true;
        do {
            if (c == '{' && (!ct__json_string(j, NULL) || !ct__json_eat(j, ':'))) return false;
            if (!ct__json_skip(j, depth + 1)) return false;
        } while (ct__json_eat(j, ','));
        return ct__json_eat(j, close);
    }
    static const char *const words[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(words[k]);
        if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, words[k], n)) {
            j->p += n;
            return true;
        }
    }
    return ct__json_number(j);
}

/* ---------------------------------------------------------------- the header */

typedef struct ct__st_entry {
    char *name;
    ct_dtype dtype;
    int ndim;
    int64_t sizes[CT_MAX_DIMS];
    uint64_t start, end;
    int pos; /* place in the header, which breaks ties between empty tensors */
} ct__st_entry;

typedef struct ct__st_header {
    ct__st_entry *entries;
    int n, cap;
    ct_metadata meta;
    int meta_cap;
} ct__st_header;

static void ct__st_header_free(ct__st_header *h)
{
    for (int i = 0; i < h->n; i++) CT_FREE(h->entries[i].name);
    CT_FREE(h->entries);
    ct_metadata_free(&h->meta);
    memset(h, 0, sizeof *h);
}

/* A JSON syntax error (or running out of memory) at the reader's place. */
static ct_result ct__st_json_error(const char *path, const ct__json *j)
{
    if (j->oom) return CT__OOM();
    return ct__st_bad(path, "the JSON header is malformed at byte %lld of %lld", (long long)(j->p - j->start),
                      (long long)(j->end - j->start));
}

/* "shape": [2, 3] */
static ct_result ct__st_shape(const char *path, ct__json *j, ct__st_entry *e)
{
    if (!ct__json_eat(j, '[')) return ct__st_json_error(path, j);
    if (ct__json_eat(j, ']')) return CT_OK;
    do {
        uint64_t v;
        if (!ct__json_uint(j, &v)) return ct__st_json_error(path, j);
        if (e->ndim == CT_MAX_DIMS)
            return ct__st_bad(path, "tensor '%s' has more than %d dims, the most ctorch allows", e->name, CT_MAX_DIMS);
        if (v > INT64_MAX) return ct__st_bad(path, "tensor '%s' has a size too large for int64", e->name);
        e->sizes[e->ndim++] = (int64_t)v;
    } while (ct__json_eat(j, ','));
    return ct__json_eat(j, ']') ? CT_OK : ct__st_json_error(path, j);
}

/* {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, other fields skipped */
static ct_result ct__st_tensor_info(const char *path, ct__json *j, ct__st_entry *e, ct__buf *tmp)
{
    static const char *const fields[3] = {"dtype", "shape", "data_offsets"};
    bool have[3] = {false, false, false};
    if (!ct__json_eat(j, '{')) return ct__st_json_error(path, j);
    if (!ct__json_eat(j, '}')) {
        do {
            if (!ct__json_string(j, tmp) || !ct__json_eat(j, ':')) return ct__st_json_error(path, j);
            int f = 0;
            while (f < 3 && strcmp(tmp->s, fields[f])) f++;
            if (f < 3 && have[f]) return ct__st_bad(path, "tensor '%s' has two \"%s\" fields", e->name, fields[f]);
            if (f < 3) have[f] = true;
            ct_result r = CT_OK;
            if (f == 0) {
                if (!ct__json_string(j, tmp)) return ct__st_json_error(path, j);
                int k = 0;
                while (k < CT__ST_NDTYPES && strcmp(tmp->s, ct__st_dtypes[k].name)) k++;
                if (k == CT__ST_NDTYPES) return ct__st_bad(path, "tensor '%s' has an unknown dtype \"%s\"", e->name, tmp->s);
                if (ct__st_dtypes[k].dtype == CT_DEFAULT)
                    return ct__fail(CT_ERR_TYPE, "'%s': tensor '%s' has dtype %s, which ctorch does not have", path,
                                    e->name, tmp->s);
                e->dtype = ct__st_dtypes[k].dtype;
            } else if (f == 1) {
                r = ct__st_shape(path, j, e);
            } else if (f == 2) {
                if (!ct__json_eat(j, '[') || !ct__json_uint(j, &e->start) || !ct__json_eat(j, ',') ||
                    !ct__json_uint(j, &e->end) || !ct__json_eat(j, ']'))
                    return ct__st_json_error(path, j);
            } else if (!ct__json_skip(j, 1)) {
                return ct__st_json_error(path, j);
            }
            if (r != CT_OK) return r;
        } while (ct__json_eat(j, ','));
        if (!ct__json_eat(j, '}')) return ct__st_json_error(path, j);
    }
    for (int f = 0; f < 3; f++)
        if (!have[f]) return ct__st_bad(path, "tensor '%s' has no \"%s\"", e->name, fields[f]);
    return CT_OK;
}

/* "__metadata__": {"key": "value", ...} (or null) */
static ct_result ct__st_metadata(const char *path, ct__json *j, ct__st_header *h, ct__buf *tmp)
{
    static const char null_word[] = "null";
    ct__json_ws(j);
    if ((size_t)(j->end - j->p) >= 4 && !memcmp(j->p, null_word, 4)) {
        j->p += 4;
        return CT_OK;
    }
    if (!ct__json_eat(j, '{')) return ct__st_bad(path, "\"__metadata__\" is not a map of strings");
    if (ct__json_eat(j, '}')) return CT_OK;
    do {
        if (!ct__json_string(j, tmp) || !ct__json_eat(j, ':')) return ct__st_json_error(path, j);
        if (h->meta.n == h->meta_cap) {
            int cap = h->meta_cap ? 2 * h->meta_cap : 4;
            const char **k = (const char **)CT_REALLOC((void *)h->meta.keys, (size_t)cap * sizeof *k);
            if (k) h->meta.keys = k;
            const char **v = k ? (const char **)CT_REALLOC((void *)h->meta.values, (size_t)cap * sizeof *v) : NULL;
            if (!v) return CT__OOM();
            h->meta.values = v;
            h->meta_cap = cap;
        }
        char *key = ct__strdup(tmp->s);
        if (!key) return CT_ERR_MEMORY;
        ct__json_ws(j);
        if (j->p == j->end || *j->p != '"' || !ct__json_string(j, tmp)) {
            CT_FREE(key);
            return j->oom ? CT__OOM() : ct__st_bad(path, "\"__metadata__\" is not a map of strings");
        }
        char *value = ct__strdup(tmp->s);
        if (!value) {
            CT_FREE(key);
            return CT_ERR_MEMORY;
        }
        h->meta.keys[h->meta.n] = key;
        h->meta.values[h->meta.n++] = value;
    } while (ct__json_eat(j, ','));
    return ct__json_eat(j, '}') ? CT_OK : ct__st_json_error(path, j);
}

/* The whole header object, into h. */
static ct_result ct__st_parse_header(const char *path, const char *text, size_t n, ct__st_header *h)
{
    ct__json j = {text, text, text + n, false};
    ct__buf tmp = {NULL, 0, 0, false};
    bool seen_meta = false;
    ct_result r = ct__json_eat(&j, '{') ? CT_OK : ct__st_bad(path, "the header is not a JSON object");
    if (r == CT_OK && !ct__json_eat(&j, '}')) {
        do {
            if (!ct__json_string(&j, &tmp) || !ct__json_eat(&j, ':')) {
                r = ct__st_json_error(path, &j);
                break;
            }
            if (!strcmp(tmp.s, "__metadata__")) {
                r = seen_meta ? ct__st_bad(path, "\"__metadata__\" appears twice") : ct__st_metadata(path, &j, h, &tmp);
                seen_meta = true;
                continue;
            }
            if (h->n == h->cap) {
                int cap = h->cap ? 2 * h->cap : 16;
                ct__st_entry *e = (ct__st_entry *)CT_REALLOC(h->entries, (size_t)cap * sizeof *e);
                if (!e) {
                    r = CT__OOM();
                    break;
                }
                h->entries = e;
                h->cap = cap;
            }
            ct__st_entry *e = &h->entries[h->n];
            memset(e, 0, sizeof *e);
            e->pos = h->n;
            if (!(e->name = ct__strdup(tmp.s))) {
                r = CT_ERR_MEMORY;
                break;
            }
            h->n++;
            r = ct__st_tensor_info(path, &j, e, &tmp);
        } while (r == CT_OK && ct__json_eat(&j, ','));
        if (r == CT_OK && !ct__json_eat(&j, '}')) r = ct__st_json_error(path, &j);
    }
    ct__json_ws(&j);
    if (r == CT_OK && j.p != j.end) r = ct__st_bad(path, "the header has bytes after its JSON object");
    ct__buf_free(&tmp);
    return r;
}

static int ct__st_by_offset(const void *a, const void *b)
{
    const ct__st_entry *x = (const ct__st_entry *)a, *y = (const ct__st_entry *)b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->pos - y->pos;
}

static int ct__cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The first name that appears twice among n, or NULL; CT_ERR_MEMORY in *r
 * when the check could not be made. */
static const char *ct__duplicate_name(char *const *names, int n, ct_result *r)
{
    *r = CT_OK;
    if (n < 2) return NULL;
    char **sorted = (char **)CT_MALLOC((size_t)n * sizeof *sorted);
    if (!sorted) {
        *r = CT__OOM();
        return NULL;
    }
    memcpy(sorted, names, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, ct__cmp_names);
    const char *dup = NULL;
    for (int i = 1; i < n && !dup; i++)
        if (!strcmp(sorted[i - 1], sorted[i])) dup = sorted[i];
    CT_FREE(sorted);
    return dup;
}

/* Names unique, and the data offsets, taken in order, tile [0, data_len)
 * with exactly each tensor's bytes (the reference's validate). Sorts the
 * entries by offset. */
static ct_result ct__st_check(const char *path, ct__st_header *h, uint64_t data_len)
{
    char **names = (char **)CT_MALLOC((size_t)(h->n + 1) * sizeof *names);
    if (!names) return CT__OOM();
    for (int i = 0; i < h->n; i++) names[i] = h->entries[i].name;
    ct_result r;
    const char *dup = ct__duplicate_name(names, h->n, &r);
    if (dup) r = ct__st_bad(path, "the name '%s' appears twice", dup);
    CT_FREE(names);
    if (r != CT_OK) return r;
    if (h->n > 1) qsort(h->entries, (size_t)h->n, sizeof *h->entries, ct__st_by_offset);
    uint64_t at = 0;
    for (int i = 0; i < h->n; i++) {
        const ct__st_entry *e = &h->entries[i];
        if (e->start != at || e->end < e->start)
            return ct__st_bad(path, "the data offsets of tensor '%s' ([%llu, %llu]) do not start where the previous "
                              "tensor ends (%llu)", e->name, (unsigned long long)e->start, (unsigned long long)e->end,
                              (unsigned long long)at);
        int64_t numel = 1, nbytes;
        for (int d = 0; d < e->ndim; d++)
            if (!ct__mul_ok(numel, e->sizes[d], &numel)) numel = -1;
        if (numel < 0 || !ct__mul_ok(numel, (int64_t)ct_dtype_size(e->dtype), &nbytes))
            return ct__st_bad(path, "the shape of tensor '%s' overflows", e->name);
        if ((uint64_t)nbytes != e->end - e->start)
            return ct__st_bad(path, "tensor '%s' has %llu bytes, but its shape and dtype need %lld", e->name,
                              (unsigned long long)(e->end - e->start), (long long)nbytes);
        at = e->end;
    }
    if (at != data_len)
        return ct__st_bad(path, "the tensors cover %llu bytes of data, but the file holds %llu after its header",
                          (unsigned long long)at, (unsigned long long)data_len);
    return CT_OK;
}

/* ---------------------------------------------------------------- loading */

/* The tensors of the checked header h over the data at `data`, inside s. */
static ct_result ct__st_make_tensors(ct__st_header *h, ct__shared_bytes *s, unsigned char *data, ct_tensor_list *out)
{
    out->names = (char **)CT_MALLOC((size_t)(h->n + 1) * sizeof *out->names);
    out->tensors = (ct_tensor **)CT_MALLOC((size_t)(h->n + 1) * sizeof *out->tensors);
    if (!out->names || !out->tensors) {
        ct_tensor_list_free(out);
        return CT__OOM();
    }
    ct_scope scope = ct_scope_begin();
    ct_result r = CT_OK;
    for (int i = 0; i < h->n && r == CT_OK; i++) {
        ct__st_entry *e = &h->entries[i];
        ct_shape shape;
        shape.ndim = e->ndim;
        memcpy(shape.size, e->sizes, sizeof e->sizes);
        if (!ct__little_endian()) ct__swap_bytes(data + e->start, (int64_t)((e->end - e->start) / ct_dtype_size(e->dtype)),
                                                 ct_dtype_size(e->dtype));
        ct_tensor *t = ct__tensor_in(s, data + e->start, shape, e->dtype);
        if (!t) {
            r = ct_last_error_code();
            break;
        }
        out->tensors[out->n] = t;
        out->names[out->n++] = e->name;
        e->name = NULL;
    }
    /* handed on only once all were made: a failure leaves nothing behind */
    for (int i = 0; i < out->n && r == CT_OK; i++) ct_keep(out->tensors[i]);
    ct_scope_end(scope);
    if (r != CT_OK) ct_tensor_list_free(out);
    return r;
}

/* Load the safetensors file whose bytes are b (taken over). */
static ct_result ct__st_load_bytes(const char *path, ct__bytes *b, ct_tensor_list *out, ct_metadata *metadata)
{
    ct__st_header h;
    memset(&h, 0, sizeof h);
    uint64_t hlen = 0;
    for (int i = 8; b->n >= 8 && i-- > 0;) hlen = hlen << 8 | b->data[i];
    ct_result r = CT_OK;
    if (b->n < 8) r = ct__st_bad(path, "the file is %zu bytes long, too short for the 8-byte header size", b->n);
    else if (hlen > CT__ST_MAX_HEADER)
        r = ct__st_bad(path, "its header size %llu is over the limit of %u bytes", (unsigned long long)hlen, CT__ST_MAX_HEADER);
    else if (hlen > b->n - 8)
        r = ct__st_bad(path, "its header size %llu runs past the end of the file (%zu bytes)", (unsigned long long)hlen, b->n);
    else if (!ct__utf8_valid(b->data + 8, (size_t)hlen))
        r = ct__st_bad(path, "the header is not valid UTF-8");
    if (r == CT_OK) r = ct__st_parse_header(path, (const char *)b->data + 8, (size_t)hlen, &h);
    if (r == CT_OK) r = ct__st_check(path, &h, b->n - 8 - hlen);
    ct__shared_bytes *s = r == CT_OK ? ct__share_bytes(b) : NULL;
    if (r == CT_OK && !s) r = CT_ERR_MEMORY;
    if (r == CT_OK) r = ct__st_make_tensors(&h, s, s->b.data + 8 + hlen, out);
    if (r == CT_OK && metadata) {
        *metadata = h.meta;
        memset(&h.meta, 0, sizeof h.meta);
    }
    ct__shared_bytes_drop(s);
    ct__bytes_free(b);
    ct__st_header_free(&h);
    return r;
}

/* Check the out arguments of a loader and empty them. */
static ct_result ct__load_args(const char *path, ct_tensor_list *out)
{
    if (out) memset(out, 0, sizeof *out);
    if (!out) return ct__fail(CT_ERR_TYPE, "the output list is NULL");
    if (!path) return ct__fail(CT_ERR_TYPE, "expected a file path, not NULL");
    return CT_OK;
}

ct_result ct_load_safetensors(const char *path, ct_tensor_list *out, ct_metadata *metadata)
{
    if (metadata) memset(metadata, 0, sizeof *metadata);
    ct_result r = ct__load_args(path, out);
    ct__bytes b;
    if (r == CT_OK) r = ct__read_bytes(path, &b);
    return r == CT_OK ? ct__st_load_bytes(path, &b, out, metadata) : r;
}

/* A loader of named tensors (metadata may be NULL). */
typedef ct_result (*ct__loader)(const char *path, ct_tensor_list *out, ct_metadata *metadata);

/* The list's tensors moved to device (the new ones in the open scope) a
 * storage at a time, as map_location moves storages: tensors that shared
 * one share one there, with their sizes, strides and offsets, and a tensor
 * that required grad is a leaf there that does. */
static ct_result ct__list_to_device(ct_tensor_list *l, ct_device device)
{
    ct_tensor **moved = (ct_tensor **)CT_MALLOC((size_t)(l->n + 1) * sizeof *moved); /* each one's storage, moved */
    if (!moved) return CT__OOM();
    ct_result r = CT_OK;
    for (int i = 0; i < l->n && r == CT_OK; i++) {
        const ct_tensor *t = l->tensors[i];
        int j = 0;
        while (j < i && l->tensors[j]->storage != t->storage) j++;
        if (j < i) {
            moved[i] = moved[j];
            continue;
        }
        int64_t numel = (int64_t)(t->storage->nbytes / ct__esize(t)), one = 1;
        const ct_tensor *whole = ct__view_of(t, &numel, &one, 1, 0);
        moved[i] = whole ? ct__to_device(whole, device, CT_DEFAULT, false) : NULL;
        if (!moved[i]) r = ct_last_error_code();
    }
    for (int i = 0; i < l->n && r == CT_OK; i++) {
        const ct_tensor *t = l->tensors[i];
        ct_tensor *v = ct__view_of(moved[i], t->sizes, t->strides, t->ndim, t->offset);
        r = !v ? ct_last_error_code() : ct_requires_grad(t) ? ct_requires_grad_(v, true) : CT_OK;
        if (v) l->tensors[i] = v;
    }
    CT_FREE(moved);
    return r;
}

/* load(path), its tensors then moved to device (resolved already): out and
 * metadata are set only once all of it worked, and a failure leaves nothing
 * behind. */
static ct_result ct__load_on(ct__loader load, const char *path, ct_tensor_list *out, ct_metadata *metadata,
                             ct_device device)
{
    if (!out) return ct__fail(CT_ERR_TYPE, "the output list is NULL");
    ct_tensor_list l;
    ct_metadata meta;
    ct_scope s = ct_scope_begin();
    ct_result r = load(path, &l, metadata ? &meta : NULL);
    if (r == CT_OK && device.type != CT_DEVICE_CPU) r = ct__list_to_device(&l, device);
    for (int i = 0; i < l.n && r == CT_OK; i++) ct_keep(l.tensors[i]);
    ct_scope_end(s);
    if (r != CT_OK) {
        ct_tensor_list_free(&l);
        if (metadata) ct_metadata_free(&meta);
        return r;
    }
    *out = l;
    if (metadata) *metadata = meta;
    return CT_OK;
}

ct_result ct_load_safetensors_device(const char *path, ct_tensor_list *out, ct_metadata *metadata, ct_device device)
{
    ct_result r = ct__device_resolve(&device); /* Tensor.to's errors: load_file moves each tensor with it */
    return r == CT_OK ? ct__load_on(ct_load_safetensors, path, out, metadata, device) : r;
}

/* ---------------------------------------------------------------- saving */

/* s as a JSON string, escaped as serde_json (and Python's json) escape. */
static void ct__json_put_string(ct__buf *b, const char *s)
{
    ct__buf_add(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b" : c == '\f' ? "\\f"
                        : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
        char u[8];
        if (!esc && c < 0x20) {
            snprintf(u, sizeof u, "\\u%04x", c);
            esc = u;
        }
        if (esc) ct__buf_str(b, esc);
        else ct__buf_add(b, s, 1);
    }
    ct__buf_add(b, "\"", 1);
}

/* A tensor's place in the file: the reference writer's order. */
typedef struct ct__st_slot {
    int rank;
    const char *name;
    const ct_tensor *t;
} ct__st_slot;

static int ct__st_write_order(const void *a, const void *b)
{
    const ct__st_slot *x = (const ct__st_slot *)a, *y = (const ct__st_slot *)b;
    if (x->rank != y->rank) return y->rank - x->rank; /* widest dtypes first */
    return strcmp(x->name, y->name);                  /* then names, byte by byte */
}

/* A string argument that the file must hold: not NULL, valid UTF-8. */
static ct_result ct__st_check_text(const char *s, const char *what)
{
    if (!s) return ct__fail(CT_ERR_TYPE, "%s is NULL", what);
    if (!ct__utf8_valid((const unsigned char *)s, strlen(s))) return ct__fail(CT_ERR_VALUE, "%s '%s' is not valid UTF-8", what, s);
    return CT_OK;
}

static ct_result ct__st_check_save_args(const ct_tensor_list *tensors, const ct_metadata *meta)
{
    if (!tensors || tensors->n < 0 || (tensors->n > 0 && (!tensors->names || !tensors->tensors)))
        return ct__fail(CT_ERR_TYPE, "expected a list of named tensors");
    for (int i = 0; i < tensors->n; i++) {
        ct_result r = ct__st_check_text(tensors->names[i], "a tensor name");
        if (r != CT_OK) return r;
        const ct_tensor *t = tensors->tensors[i];
        if (!t) return ct__fail(CT_ERR_TYPE, "tensor '%s' is NULL", tensors->names[i]);
        if (!strcmp(tensors->names[i], "__metadata__"))
            return ct__fail(CT_ERR_VALUE, "a tensor may not be named \"__metadata__\"");
    }
    if (meta && (meta->n < 0 || (meta->n > 0 && (!meta->keys || !meta->values))))
        return ct__fail(CT_ERR_TYPE, "expected metadata of n keys and values");
    for (int i = 0; meta && i < meta->n; i++) {
        ct_result r = ct__st_check_text(meta->keys[i], "a metadata key");
        if (r == CT_OK) r = ct__st_check_text(meta->values[i], "a metadata value");
        if (r != CT_OK) return r;
    }
    ct_result r;
    const char *dup = ct__duplicate_name(tensors->names, tensors->n, &r);
    if (!dup && r == CT_OK && meta) dup = ct__duplicate_name((char *const *)meta->keys, meta->n, &r);
    if (dup) return ct__fail(CT_ERR_VALUE, "the name '%s' appears twice", dup);
    return r;
}

/* The JSON header, padded with spaces to a multiple of 8 bytes, for the
 * tensors in `order`. */
static ct_result ct__st_header_text(const ct__st_slot *order, int n, const ct_metadata *meta, ct__buf *b)
{
    ct__buf_add(b, "{", 1);
    if (meta) {
        ct__buf_str(b, "\"__metadata__\":{");
        for (int i = 0; i < meta->n; i++) {
            if (i) ct__buf_add(b, ",", 1);
            ct__json_put_string(b, meta->keys[i]);
            ct__buf_add(b, ":", 1);
            ct__json_put_string(b, meta->values[i]);
        }
        ct__buf_str(b, n ? "}," : "}");
    }
    uint64_t at = 0;
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = order[i].t;
        char num[48];
        if (i) ct__buf_add(b, ",", 1);
        ct__json_put_string(b, order[i].name);
        ct__buf_str(b, ":{\"dtype\":\"");
        ct__buf_str(b, ct__st_dtypes[order[i].rank].name);
        ct__buf_str(b, "\",\"shape\":[");
        for (int d = 0; d < t->ndim; d++) {
            snprintf(num, sizeof num, "%s%lld", d ? "," : "", (long long)t->sizes[d]);
            ct__buf_str(b, num);
        }
        uint64_t bytes = (uint64_t)ct_numel(t) * ct__esize(t);
        snprintf(num, sizeof num, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)at,
                 (unsigned long long)(at + bytes));
        ct__buf_str(b, num);
        at += bytes;
    }
    ct__buf_add(b, "}", 1);
    while (b->n % 8 && !b->failed) ct__buf_add(b, " ", 1); /* (a failed add adds nothing) */
    return b->failed ? CT__OOM() : CT_OK;
}

/* n bytes of elements of size es, little-endian whatever the machine. */
static void ct__write_le(ct__atomic_file *a, const unsigned char *p, size_t n, size_t es)
{
    if (ct__little_endian() || es == 1) {
        ct__atomic_write(a, p, n);
        return;
    }
    unsigned char chunk[4096];
    for (size_t at = 0; at < n; at += sizeof chunk) {
        size_t k = CT__MIN(sizeof chunk, n - at);
        memcpy(chunk, p + at, k);
        ct__swap_bytes(chunk, (int64_t)(k / es), es);
        ct__atomic_write(a, chunk, k);
    }
}

/* The tensors' bytes, one contiguous copy at a time. */
static ct_result ct__st_write_data(ct__atomic_file *a, const ct__st_slot *order, int n)
{
    for (int i = 0; i < n && a->err == 0; i++) {
        ct_scope s = ct_scope_begin();
        const ct_tensor *c = ct__host(ct_contiguous(order[i].t)); /* a device's tensor through a host copy */
        if (!c) {
            ct_scope_end(s);
            return ct_last_error_code();
        }
        if (ct_numel(c) > 0) ct__write_le(a, (const unsigned char *)ct__data(c), (size_t)ct_numel(c) * ct__esize(c), ct__esize(c));
        ct_scope_end(s);
    }
    return CT_OK;
}

ct_result ct_save_safetensors(const char *path, const ct_tensor_list *tensors, const ct_metadata *metadata)
{
    if (!path) return ct__fail(CT_ERR_TYPE, "expected a file path, not NULL");
    ct_result r = ct__st_check_save_args(tensors, metadata);
    if (r != CT_OK) return r;
    ct__st_slot *order = (ct__st_slot *)CT_MALLOC((size_t)(tensors->n + 1) * sizeof *order);
    if (!order) return CT__OOM();
    for (int i = 0; i < tensors->n; i++) {
        order[i].rank = ct__st_rank(tensors->tensors[i]->dtype);
        order[i].name = tensors->names[i];
        order[i].t = tensors->tensors[i];
    }
    if (tensors->n > 1) qsort(order, (size_t)tensors->n, sizeof *order, ct__st_write_order);
    ct__buf head = {NULL, 0, 0, false};
    r = ct__st_header_text(order, tensors->n, metadata, &head);
    ct__atomic_file a;
    if (r == CT_OK) r = ct__atomic_open(&a, path);
    if (r == CT_OK) {
        unsigned char size[8];
        for (int i = 0; i < 8; i++) size[i] = (unsigned char)((uint64_t)head.n >> (8 * i));
        ct__atomic_write(&a, size, 8);
        ct__atomic_write(&a, head.s, head.n);
        r = ct__st_write_data(&a, order, tensors->n);
        if (r == CT_OK) r = ct__atomic_commit(&a);
        else ct__atomic_abort(&a);
    }
    ct__buf_free(&head);
    CT_FREE(order);
    return r;
}

ct_result ct_save(const char *path, const ct_tensor_list *state_dict)
{
    return ct_save_safetensors(path, state_dict, NULL);
}
