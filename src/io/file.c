/* Reading files for the readers: a file's bytes memory-mapped (copy on write,
 * so a tensor over them may be written without touching the file) where the
 * system allows, read into memory otherwise, and gzip files decompressed
 * through zlib when built with CTORCH_ZLIB. A tensor made over the bytes owns
 * them: its deleter unmaps or frees them. */

#include <errno.h>
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define CT__HAVE_MMAP 1
#endif
#ifdef CTORCH_ZLIB
#include <zlib.h>
#endif

typedef struct ct__bytes {
    unsigned char *data;
    size_t n;
    bool mapped;
} ct__bytes;

static void ct__bytes_free(ct__bytes *b)
{
#ifdef CT__HAVE_MMAP
    if (b->mapped && b->n > 0) munmap(b->data, b->n);
#endif
    if (!b->mapped) CT_FREE(b->data);
    memset(b, 0, sizeof *b);
}

static ct_result ct__file_error(const char *path)
{
    return ct__fail(CT_ERR_IO, "[Errno %d] %s: '%s'", errno, strerror(errno), path);
}

static bool ct__is_gzip(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* The whole of a gzip file, decompressed. */
static ct_result ct__read_gzip(const char *path, ct__bytes *out)
{
#ifdef CTORCH_ZLIB
    errno = 0;
    gzFile f = gzopen(path, "rb");
    if (!f) return errno ? ct__file_error(path) : CT__OOM();
    size_t cap = 1 << 20, n = 0;
    unsigned char *buf = (unsigned char *)CT_MALLOC(cap);
    ct_result r = buf ? CT_OK : CT__OOM();
    for (int got = 1; r == CT_OK && got > 0;) {
        if (n == cap) {
            unsigned char *b = (unsigned char *)CT_REALLOC(buf, cap * 2);
            if (!b) r = CT__OOM();
            else buf = b, cap *= 2;
        }
        unsigned chunk = (unsigned)CT__MIN(cap - n, (size_t)1 << 30);
        got = r == CT_OK ? gzread(f, buf + n, chunk) : 0;
        if (got < 0) r = ct__fail(CT_ERR_IO, "'%s' is not a valid gzip file", path);
        else n += (size_t)got;
    }
    gzclose(f);
    if (r != CT_OK) {
        CT_FREE(buf);
        return r;
    }
    out->data = buf;
    out->n = n;
    out->mapped = false;
    return CT_OK;
#else
    (void)out;
    return ct__fail(CT_ERR_RUNTIME, "reading '%s' needs zlib: build ctorch with -DCTORCH_ZLIB and link with -lz", path);
#endif
}

/* The whole of a plain file: mapped, or read. */
static ct_result ct__read_plain(const char *path, ct__bytes *out)
{
#ifdef CT__HAVE_MMAP
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0) return ct__file_error(path);
    if (fstat(fd, &st) != 0) {
        ct_result r = ct__file_error(path);
        close(fd);
        return r;
    }
    out->n = (size_t)st.st_size;
    out->mapped = true;
    out->data = NULL;
    if (out->n > 0) {
        void *p = mmap(NULL, out->n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            ct_result r = ct__file_error(path);
            close(fd);
            return r;
        }
        out->data = (unsigned char *)p;
    }
    close(fd);
    return CT_OK;
#else
    FILE *f = fopen(path, "rb");
    if (!f) return ct__file_error(path);
    size_t cap = 1 << 20, n = 0;
    unsigned char *buf = (unsigned char *)CT_MALLOC(cap);
    for (size_t got = 1; buf && got > 0; n += got) {
        if (n == cap) {
            unsigned char *b = (unsigned char *)CT_REALLOC(buf, cap * 2);
            if (!b) CT_FREE(buf);
            buf = b, cap *= 2;
            if (!buf) break;
        }
        got = fread(buf + n, 1, cap - n, f);
    }
    fclose(f);
    if (!buf) return CT__OOM();
    out->data = buf;
    out->n = n;
    out->mapped = false;
    return CT_OK;
#endif
}

static ct_result ct__read_bytes(const char *path, ct__bytes *out)
{
    memset(out, 0, sizeof *out);
    if (!path) return ct__fail(CT_ERR_TYPE, "expected a file path, not NULL");
    return ct__is_gzip(path) ? ct__read_gzip(path, out) : ct__read_plain(path, out);
}

static void ct__bytes_deleter(void *data, void *ctx)
{
    (void)data;
    ct__bytes_free((ct__bytes *)ctx);
    CT_FREE(ctx);
}

/* A tensor over b's bytes from offset, which it then owns (b is emptied);
 * strides NULL for contiguous. On failure b is freed. */
static ct_tensor *ct__tensor_over(ct__bytes *b, size_t offset, ct_shape shape, const int64_t *strides, ct_dtype dtype)
{
    ct__bytes *own = (ct__bytes *)CT_MALLOC(sizeof *own);
    if (!own) {
        ct__bytes_free(b);
        CT__OOM();
        return NULL;
    }
    *own = *b;
    memset(b, 0, sizeof *b);
    ct_tensor *t = ct_from_blob(own->data ? own->data + offset : NULL, shape, strides, dtype, ct__bytes_deleter, own);
    if (!t) ct__bytes_deleter(NULL, own);
    return t;
}

/* Reverse the bytes of each of n elements of size es (big-endian data). */
static void ct__swap_bytes(unsigned char *p, int64_t n, size_t es)
{
    for (int64_t i = 0; es > 1 && i < n; i++, p += es)
        for (size_t a = 0, z = es - 1; a < z; a++, z--) {
            unsigned char c = p[a];
            p[a] = p[z];
            p[z] = c;
        }
}

static bool ct__little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}
