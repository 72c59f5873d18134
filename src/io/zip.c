/* Reading zip archives (PKWARE's APPNOTE), as torch.save writes them: the
 * end-of-central-directory record (and its zip64 form, which PyTorch always
 * writes), the central directory, local headers, and entries stored (what
 * PyTorch writes, 64-byte aligned) or deflated (through zlib when built
 * with CTORCH_ZLIB). Every offset and size is checked against the file.
 * CRCs are not checked, as PyTorch's reader does not check them either. */

typedef struct ct__zip_entry {
    const char *name; /* inside the file's bytes, not NUL-terminated */
    size_t name_len;
    uint16_t flags, method;
    uint64_t csize, usize, local;
} ct__zip_entry;

typedef struct ct__zip {
    const char *path;
    const unsigned char *p;
    size_t n;
    ct__zip_entry *entries; /* sorted by name */
    int64_t count;
    const char *first; /* the first entry's name in the directory (PyTorch takes its folder as the archive's) */
    size_t first_len;
} ct__zip;

static uint16_t ct__le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t ct__le32(const unsigned char *p) { return (uint32_t)ct__le16(p) | (uint32_t)ct__le16(p + 2) << 16; }
static uint64_t ct__le64(const unsigned char *p) { return (uint64_t)ct__le32(p) | (uint64_t)ct__le32(p + 4) << 32; }

static ct_result ct__zip_bad(const ct__zip *z, const char *why)
{
    return ct__fail(CT_ERR_RUNTIME, "PytorchStreamReader failed reading zip archive: %s ('%s')", why, z->path);
}

/* The end of central directory record: where the directory lies and how
 * many entries it has (from the zip64 record when there is one). */
static ct_result ct__zip_directory(const ct__zip *z, uint64_t *offset, uint64_t *size, uint64_t *count)
{
    const unsigned char *p = z->p;
    size_t at = 0, stop = z->n >= 22 + 65535 ? z->n - 22 - 65535 : 0;
    bool found = false;
    for (size_t k = z->n >= 22 ? z->n - 22 + 1 : 0; !found && k-- > stop;) /* the last signature whose comment fits */
        if (ct__le32(p + k) == 0x06054b50 && k + 22 + ct__le16(p + k + 20) <= z->n) found = true, at = k;
    if (!found) return ct__fail(CT_ERR_RUNTIME, "PytorchStreamReader failed reading zip archive: failed finding central directory ('%s')", z->path);
    *count = ct__le16(p + at + 10);
    *size = ct__le32(p + at + 12);
    *offset = ct__le32(p + at + 16);
    if (at >= 20 && ct__le32(p + at - 20) == 0x07064b50) { /* the zip64 locator */
        uint64_t rec = ct__le64(p + at - 20 + 8);
        if (z->n < 56 || rec > z->n - 56 || ct__le32(p + rec) != 0x06064b50) return ct__zip_bad(z, "bad zip64 end of central directory");
        *count = ct__le64(p + rec + 32);
        *size = ct__le64(p + rec + 40);
        *offset = ct__le64(p + rec + 48);
    }
    if (*offset > z->n || *size > z->n - *offset) return ct__zip_bad(z, "the central directory lies outside the file");
    if (*count > *size / 46) return ct__zip_bad(z, "the central directory is too short for its entry count");
    return CT_OK;
}

/* The zip64 extra field of an entry: the 64-bit forms of the fields whose
 * 32-bit form is 0xffffffff, in this order. */
static bool ct__zip64_extra(const unsigned char *x, size_t n, ct__zip_entry *e)
{
    for (size_t at = 0; at + 4 <= n;) {
        uint16_t id = ct__le16(x + at), len = ct__le16(x + at + 2);
        if (len > n - at - 4) return false;
        if (id == 0x0001) {
            const unsigned char *f = x + at + 4, *end = f + len;
            uint64_t *fields[3] = {&e->usize, &e->csize, &e->local};
            for (int k = 0; k < 3; k++) {
                if (*fields[k] != 0xffffffffu) continue;
                if (end - f < 8) return false;
                *fields[k] = ct__le64(f);
                f += 8;
            }
            return true;
        }
        at += 4 + (size_t)len;
    }
    return true;
}

static int ct__zip_cmp(const void *a, const void *b)
{
    const ct__zip_entry *x = (const ct__zip_entry *)a, *y = (const ct__zip_entry *)b;
    int c = memcmp(x->name, y->name, CT__MIN(x->name_len, y->name_len));
    return c ? c : x->name_len < y->name_len ? -1 : x->name_len > y->name_len;
}

static void ct__zip_close(ct__zip *z)
{
    CT_FREE(z->entries);
    z->entries = NULL;
    z->count = 0;
}

/* Read the central directory of the archive in p[0, n). */
static ct_result ct__zip_open(ct__zip *z, const char *path, const unsigned char *p, size_t n)
{
    memset(z, 0, sizeof *z);
    z->path = path;
    z->p = p;
    z->n = n;
    uint64_t offset = 0, size = 0, count = 0;
    ct_result r = ct__zip_directory(z, &offset, &size, &count);
    if (r != CT_OK) return r;
    z->entries = (ct__zip_entry *)CT_MALLOC((size_t)(count + 1) * sizeof *z->entries);
    if (!z->entries) return CT__OOM();
    const unsigned char *c = p + offset, *end = c + size;
    for (uint64_t i = 0; i < count; i++) {
        ct__zip_entry *e = &z->entries[i];
        if (end - c < 46 || ct__le32(c) != 0x02014b50) {
            ct__zip_close(z);
            return ct__zip_bad(z, "bad central directory entry");
        }
        size_t nl = ct__le16(c + 28), xl = ct__le16(c + 30), cl = ct__le16(c + 32);
        e->flags = ct__le16(c + 8);
        e->method = ct__le16(c + 10);
        e->csize = ct__le32(c + 20);
        e->usize = ct__le32(c + 24);
        e->local = ct__le32(c + 42);
        e->name = (const char *)c + 46;
        e->name_len = nl;
        if ((size_t)(end - c) - 46 < nl + xl + cl || !ct__zip64_extra(c + 46 + nl, xl, e)) {
            ct__zip_close(z);
            return ct__zip_bad(z, "bad central directory entry");
        }
        c += 46 + nl + xl + cl;
        z->count++;
    }
    if (z->count > 0) {
        z->first = z->entries[0].name;
        z->first_len = z->entries[0].name_len;
    }
    if (z->count > 1) qsort(z->entries, (size_t)z->count, sizeof *z->entries, ct__zip_cmp);
    for (int64_t i = 1; i < z->count; i++)
        if (ct__zip_cmp(&z->entries[i - 1], &z->entries[i]) == 0) {
            ct__zip_close(z);
            return ct__zip_bad(z, "two entries have the same name");
        }
    return CT_OK;
}

/* The entry named prefix + name, or NULL. */
static const ct__zip_entry *ct__zip_find(const ct__zip *z, const char *prefix, size_t prefix_len, const char *name)
{
    char buf[512];
    size_t nl = strlen(name);
    if (prefix_len + nl > sizeof buf) return NULL;
    memcpy(buf, prefix, prefix_len);
    memcpy(buf + prefix_len, name, nl);
    ct__zip_entry key;
    memset(&key, 0, sizeof key);
    key.name = buf;
    key.name_len = prefix_len + nl;
    return (const ct__zip_entry *)bsearch(&key, z->entries, (size_t)z->count, sizeof key, ct__zip_cmp);
}

#ifdef CTORCH_ZLIB
/* Inflate a raw deflate stream of cn bytes into exactly un bytes. */
static bool ct__inflate(const unsigned char *in, uint64_t cn, unsigned char *out, uint64_t un)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, -15) != Z_OK) return false;
    int rc = Z_OK;
    uint64_t in_left = cn, out_left = un;
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.next_out = out;
    while (rc == Z_OK) { /* zlib counts in 32 bits: feed and drain in pieces */
        if (zs.avail_in == 0) {
            zs.avail_in = (uInt)CT__MIN(in_left, (uint64_t)1 << 30);
            in_left -= zs.avail_in;
        }
        if (zs.avail_out == 0) {
            zs.avail_out = (uInt)CT__MIN(out_left, (uint64_t)1 << 30);
            out_left -= zs.avail_out;
        }
        rc = inflate(&zs, Z_NO_FLUSH); /* Z_BUF_ERROR: input ran out, or the output is full */
    }
    bool ok = rc == Z_STREAM_END && (uint64_t)(zs.next_out - out) == un;
    inflateEnd(&zs);
    return ok;
}
#endif

/* The bytes of entry e: inside the archive when stored (*owned NULL), or
 * inflated into *owned (which the caller frees). */
static ct_result ct__zip_read(const ct__zip *z, const ct__zip_entry *e, unsigned char **data, unsigned char **owned)
{
    *owned = NULL;
    *data = NULL;
    if (e->local > z->n || z->n - e->local < 30 || ct__le32(z->p + e->local) != 0x04034b50)
        return ct__zip_bad(z, "bad local file header");
    const unsigned char *h = z->p + e->local;
    uint64_t start = e->local + 30 + ct__le16(h + 26) + ct__le16(h + 28);
    if (start > z->n || e->csize > z->n - start) return ct__zip_bad(z, "an entry runs past the end of the file");
    if (e->flags & 1) return ct__zip_bad(z, "encrypted entries are not supported");
    unsigned char *in = (unsigned char *)(uintptr_t)(z->p + start);
    if (e->method == 0) {
        if (e->csize != e->usize) return ct__zip_bad(z, "a stored entry's sizes differ");
        *data = in;
        return CT_OK;
    }
    if (e->method != 8) return ct__zip_bad(z, "unsupported compression method");
#ifdef CTORCH_ZLIB
    /* deflate shrinks by at most 1032:1: a larger claim is a damaged (or hostile) size */
    if (e->usize / 1032 > e->csize + 1 || e->usize >= SIZE_MAX) return ct__zip_bad(z, "an entry's size is not plausible");
    *owned = (unsigned char *)CT_MALLOC((size_t)e->usize + 1);
    if (!*owned) return CT__OOM();
    if (!ct__inflate(in, e->csize, *owned, e->usize)) {
        CT_FREE(*owned);
        *owned = NULL;
        return ct__zip_bad(z, "a deflated entry is corrupt");
    }
    *data = *owned;
    return CT_OK;
#else
    return ct__fail(CT_ERR_RUNTIME, "'%s' holds deflated entries, which need zlib: build ctorch with -DCTORCH_ZLIB and "
                    "link with -lz", z->path);
#endif
}
