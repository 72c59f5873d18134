/* Reading files for the readers: a file's bytes memory-mapped (copy on write,
 * so a tensor over them may be written without touching the file) where the
 * system allows, read into memory otherwise, and gzip files decompressed
 * through zlib when built with CTORCH_ZLIB. A tensor made over the bytes owns
 * them: its deleter unmaps or frees them. Then the atomic writer every saver
 * writes through. */

#include <errno.h>
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <signal.h>
#define CT__HAVE_MMAP 1
#if !defined(__cplusplus) && (!defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200112L)
/* POSIX, but left undeclared by strict C11 (-std=c11), or by an older
 * _POSIX_C_SOURCE than POSIX.1-2001 (glibc sets 199506L for -pthread's and
 * -fopenmp's _REENTRANT). */
extern ssize_t readlink(const char *restrict path, char *restrict buf, size_t n);
extern int fchmod(int fd, mode_t mode);
extern int kill(pid_t pid, int sig);
#endif
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

#ifdef CT__HAVE_MMAP
/* All of fd read into memory: a pipe, or a file whose size stat does not
 * know (/proc's say 0), which cannot be mapped. */
static ct_result ct__read_stream(int fd, const char *path, ct__bytes *out)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = (unsigned char *)CT_MALLOC(cap);
    ct_result r = buf ? CT_OK : CT__OOM();
    for (ssize_t got = 1; r == CT_OK && got > 0;) {
        if (n == cap) {
            unsigned char *b = (unsigned char *)CT_REALLOC(buf, cap * 2);
            if (!b) r = CT__OOM();
            else buf = b, cap *= 2;
        }
        got = r == CT_OK ? read(fd, buf + n, cap - n) : 0;
        if (got < 0 && errno == EINTR) got = 1;
        else if (got < 0) r = ct__file_error(path);
        else n += (size_t)got;
    }
    if (r != CT_OK) {
        CT_FREE(buf);
        return r;
    }
    out->data = buf;
    out->n = n;
    out->mapped = false;
    return CT_OK;
}
#endif

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
    if (!S_ISREG(st.st_mode) || st.st_size == 0) { /* a pipe, or a /proc file: no size to map */
        ct_result r = ct__read_stream(fd, path, out);
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

/* b's bytes from offset moved to memory of their own (malloc's alignment
 * suits every dtype), offset becoming 0; false (b freed) when memory runs out. */
static bool ct__bytes_realign(ct__bytes *b, size_t *offset)
{
    size_t n = b->n - *offset;
    unsigned char *copy = (unsigned char *)CT_MALLOC(n ? n : 1);
    if (copy) memcpy(copy, b->data + *offset, n);
    ct__bytes_free(b);
    if (!copy) return false;
    b->data = copy;
    b->n = n;
    b->mapped = false;
    *offset = 0;
    return true;
}

/* A tensor over b's bytes from offset, which it then owns (b is emptied);
 * strides NULL for contiguous. Bytes not aligned for dtype (a .npy header not
 * padded to 16, float64 IDX data after an odd number of sizes) are copied
 * first, since reading a misaligned float is undefined. On failure b is freed. */
static ct_tensor *ct__tensor_over(ct__bytes *b, size_t offset, ct_shape shape, const int64_t *strides, ct_dtype dtype)
{
    bool aligned = !b->data || (uintptr_t)(b->data + offset) % ct_dtype_size(dtype) == 0;
    ct__bytes *own = aligned || ct__bytes_realign(b, &offset) ? (ct__bytes *)CT_MALLOC(sizeof *own) : NULL;
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

/* The element count of an array of `shape` and dt read from path. As numpy
 * does, refuse a shape whose sizes (zeros left out) times the item size pass
 * int64: its strides would overflow even when it has no element. */
static ct_result ct__file_numel(const char *path, ct_shape shape, ct_dtype dt, int64_t *numel)
{
    int64_t n = 1, span = (int64_t)ct_dtype_size(dt);
    for (int d = 0; d < shape.ndim; d++) {
        if (!ct__mul_ok(span, CT__MAX(shape.size[d], 1), &span))
            return ct__fail(CT_ERR_VALUE, "'%s': array is too big; `arr.size * arr.dtype.itemsize` is larger than the "
                            "maximum possible size.", path);
        n *= shape.size[d]; /* at most span */
    }
    *numel = n;
    return CT_OK;
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

/* ---------------------------------------------------------------- shared file bytes */

/* One file's bytes shared by the tensors made over them (the tensors of a
 * checkpoint): freed with the last of them. */
typedef struct ct__shared_bytes {
    ct__bytes b;
    int refs;
} ct__shared_bytes;

/* Take b over (it is emptied), with one reference for the caller; NULL
 * (b freed) when memory runs out. */
static ct__shared_bytes *ct__share_bytes(ct__bytes *b)
{
    ct__shared_bytes *s = (ct__shared_bytes *)CT_MALLOC(sizeof *s);
    if (!s) {
        ct__bytes_free(b);
        CT__OOM();
        return NULL;
    }
    s->b = *b;
    s->refs = 1;
    memset(b, 0, sizeof *b);
    return s;
}

static void ct__shared_bytes_drop(ct__shared_bytes *s)
{
    if (!s || CT__ATOMIC_DEC(&s->refs) != 0) return;
    ct__bytes_free(&s->b);
    CT_FREE(s);
}

static void ct__shared_bytes_deleter(void *data, void *ctx)
{
    (void)data;
    ct__shared_bytes_drop((ct__shared_bytes *)ctx);
}

/* A contiguous tensor of `shape` and dt whose bytes are at p, inside s: made
 * over them (holding a reference to s) when p is aligned for dt, a copy of
 * them otherwise (a misaligned float would be undefined behaviour to read). */
static ct_tensor *ct__tensor_in(ct__shared_bytes *s, unsigned char *p, ct_shape shape, ct_dtype dt)
{
    size_t es = ct_dtype_size(dt);
    if ((uintptr_t)p % es != 0) {
        ct_tensor *t = ct__alloc(shape.size, shape.ndim, dt, ct__cpu); /* loads land on the CPU */
        if (t && ct_numel(t) > 0) memcpy(ct__data(t), p, (size_t)ct_numel(t) * es);
        return t;
    }
    CT__ATOMIC_INC(&s->refs);
    ct_tensor *t = ct_from_blob(p, shape, NULL, dt, ct__shared_bytes_deleter, s);
    if (!t) ct__shared_bytes_drop(s);
    return t;
}

/* ---------------------------------------------------------------- text */

/* A growing byte buffer; `failed` once memory ran out (what follows is dropped). */
typedef struct ct__buf {
    char *s;
    size_t n, cap;
    bool failed;
} ct__buf;

static void ct__buf_add(ct__buf *b, const void *p, size_t n)
{
    if (b->failed) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *s = (char *)CT_REALLOC(b->s, cap);
        if (!s) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->n, p, n);
    b->n += n;
    b->s[b->n] = 0;
}

static void ct__buf_str(ct__buf *b, const char *s) { ct__buf_add(b, s, strlen(s)); }

static void ct__buf_free(ct__buf *b)
{
    CT_FREE(b->s);
    memset(b, 0, sizeof *b);
}

/* Whether n bytes are well-formed UTF-8 (no overlong forms, surrogates or
 * code points past U+10FFFF), as Rust's str and Python's decoder require. */
static bool ct__utf8_valid(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (len == 0 || len > n - i) return false;
        uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return false;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        i += len;
    }
    return true;
}

/* ---------------------------------------------------------------- atomic writes */

/* A file written atomically: the bytes go to a temporary file
 * <target>.tmp<pid>.<k> beside the target, which replaces it (rename) only
 * once all of it is written and flushed to disk; any failure removes the
 * temporary file and leaves the target as it was. As open(path, "wb") would,
 * a symbolic link's target is written (the link stays) and an existing
 * file keeps its permission bits. */
typedef struct ct__atomic_file {
    const char *path; /* as the caller named it: errors name it */
    char *target;     /* the file replaced: path with its symbolic links followed */
    char *tmp;
#ifdef CT__HAVE_MMAP
    int fd;
#else
    FILE *f;
#endif
    int err; /* the first write's errno, 0 while all went well */
} ct__atomic_file;

/* The first na bytes of a, then b, in memory of their own; NULL when memory runs out. */
static char *ct__str_join(const char *a, size_t na, const char *b)
{
    size_t nb = strlen(b);
    char *s = (char *)CT_MALLOC(na + nb + 1);
    if (!s) return NULL;
    memcpy(s, a, na);
    memcpy(s + na, b, nb + 1);
    return s;
}

#ifdef CT__HAVE_MMAP
/* The length of path's directory part, its last '/' included (0 for a bare name). */
static size_t ct__dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* The directory holding path, in memory of its own: "." for a bare name. */
static char *ct__dir_of(const char *path)
{
    size_t n = ct__dir_len(path);
    return n ? ct__str_join(path, n, "") : ct__str_join(".", 1, "");
}

/* What the symbolic link at path points to, in memory of its own, in *to:
 * NULL there when path is not a link (or cannot be read; writing to it then
 * fails with the reason). False when memory runs out. */
static bool ct__read_link(const char *path, char **to)
{
    *to = NULL;
    for (size_t cap = 256;; cap *= 2) {
        char *buf = (char *)CT_MALLOC(cap);
        if (!buf) return false;
        ssize_t n = readlink(path, buf, cap);
        if (n >= 0 && (size_t)n < cap) {
            buf[n] = 0;
            *to = buf;
            return true;
        }
        CT_FREE(buf);
        if (n < 0) return true;
    }
}

/* The file that writing to path writes: path with its symbolic links followed
 * as open() follows them. A link's relative target is read from the link's
 * directory; the last link may dangle (open() then makes the file it names).
 * A path naming no file ("", "dir/") fails as open() fails. */
static ct_result ct__write_target(const char *path, char **target)
{
    char *cur = ct__str_join("", 0, path), *to;
    for (int links = 0; cur && ct__read_link(cur, &to); links++) {
        if (!to && cur[ct__dir_len(cur)] != 0) {
            *target = cur;
            return CT_OK;
        }
        if (!to || links == 40) { /* (Linux follows 40 links at most) */
            errno = to ? ELOOP : cur[0] ? EISDIR : ENOENT;
            CT_FREE(to);
            CT_FREE(cur);
            return ct__file_error(path);
        }
        char *next = to[0] == '/' ? to : ct__str_join(cur, ct__dir_len(cur), to);
        if (next != to) CT_FREE(to);
        CT_FREE(cur);
        cur = next;
    }
    CT_FREE(cur);
    return CT__OOM();
}

/* Whether name is base.tmp<pid>.<k>, the name ct__atomic_open gives its
 * temporary files for base (digits as printf writes them); *pid is then
 * their writer's. */
static bool ct__is_temp_of(const char *name, const char *base, pid_t *pid)
{
    size_t n = strlen(base);
    if (strncmp(name, base, n) != 0 || strncmp(name + n, ".tmp", 4) != 0) return false;
    const char *p = name + n + 4;
    if (*p < '1' || *p > '9') return false; /* no sign, space or leading zero, which strtol would take */
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    *pid = (pid_t)v;
    if (errno != 0 || *pid != v || *end != '.') return false;
    size_t k = strspn(end + 1, "0123456789");
    return k > 0 && end[1 + k] == 0;
}

/* Remove what killed saves to target left behind: its temporary files whose
 * writer process is gone (a live one may be in the middle of a save). Best
 * effort: what cannot be listed or removed stays. */
static void ct__remove_stale_temps(const char *target)
{
    size_t nd = ct__dir_len(target);
    char *dir = ct__dir_of(target);
    DIR *d = dir ? opendir(dir) : NULL;
    pid_t pid;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!ct__is_temp_of(e->d_name, target + nd, &pid) || kill(pid, 0) == 0 || errno != ESRCH) continue;
        char *stale = ct__str_join(target, nd, e->d_name);
        if (stale) remove(stale);
        CT_FREE(stale);
    }
    if (d) closedir(d);
    CT_FREE(dir);
}

/* The temporary file, made with the mode open() would leave the target with:
 * an existing target's permission bits (set again past the umask, which may
 * have dropped some), 0666 less the umask for a new one. -1 (errno set) on
 * failure. */
static int ct__open_temp(const char *tmp, const char *target)
{
    struct stat st;
    bool exists = stat(target, &st) == 0;
    mode_t mode = exists ? st.st_mode & 0777 : 0666;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, mode);
    if (fd >= 0 && exists && fchmod(fd, mode) != 0) {
        int e = errno;
        close(fd);
        remove(tmp);
        errno = e;
        return -1;
    }
    return fd;
}
#else
static ct_result ct__write_target(const char *path, char **target)
{
    *target = ct__str_join("", 0, path); /* the path itself: links are left to the system */
    return *target ? CT_OK : CT__OOM();
}
#endif

static void ct__atomic_free(ct__atomic_file *a)
{
    CT_FREE(a->tmp);
    CT_FREE(a->target);
    a->tmp = a->target = NULL;
}

static ct_result ct__atomic_open(ct__atomic_file *a, const char *path)
{
    static int counter;
    memset(a, 0, sizeof *a);
    a->path = path;
    ct_result r = ct__write_target(path, &a->target);
    if (r != CT_OK) return r;
#ifdef CT__HAVE_MMAP
    ct__remove_stale_temps(a->target);
#endif
    size_t n = strlen(a->target) + 48;
    a->tmp = (char *)CT_MALLOC(n);
    if (!a->tmp) {
        ct__atomic_free(a);
        return CT__OOM();
    }
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned k = (unsigned)CT__ATOMIC_INC(&counter);
#ifdef CT__HAVE_MMAP
        snprintf(a->tmp, n, "%s.tmp%ld.%u", a->target, (long)getpid(), k);
        a->fd = ct__open_temp(a->tmp, a->target);
        if (a->fd >= 0) return CT_OK;
#else
        snprintf(a->tmp, n, "%s.tmp%ld.%u", a->target, (long)time(NULL), k);
        errno = 0;
        a->f = fopen(a->tmp, "wbx"); /* C11's exclusive mode */
        if (a->f) return CT_OK;
#endif
        if (errno != EEXIST) break;
    }
    r = ct__file_error(path);
    ct__atomic_free(a);
    return r;
}

/* Append n bytes (after a failure, nothing more is written). */
static void ct__atomic_write(ct__atomic_file *a, const void *p, size_t n)
{
    const char *c = (const char *)p;
    while (a->err == 0 && n > 0) {
#ifdef CT__HAVE_MMAP
        ssize_t got = write(a->fd, c, CT__MIN(n, (size_t)1 << 30));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            a->err = got < 0 ? errno : EIO;
            break;
        }
#else
        size_t got = fwrite(c, 1, n, a->f);
        if (got == 0) {
            a->err = errno ? errno : EIO;
            break;
        }
#endif
        c += got;
        n -= (size_t)got;
    }
}

/* Give up: the temporary file goes, the target stays as it was. */
static void ct__atomic_abort(ct__atomic_file *a)
{
    if (!a->tmp) return;
#ifdef CT__HAVE_MMAP
    close(a->fd);
#else
    fclose(a->f);
#endif
    remove(a->tmp);
    ct__atomic_free(a);
}

#ifdef CT__HAVE_MMAP
/* Flush the directory holding path, so that the rename itself is on disk
 * (best effort: not every file system allows it). */
static void ct__sync_dir_of(const char *path)
{
    char *dir = ct__dir_of(path);
    int fd = dir ? open(dir, O_RDONLY) : -1;
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    CT_FREE(dir);
}
#endif

/* Flush, close and move the temporary file over the target. On failure the
 * error names the path as given, and the target is untouched. */
static ct_result ct__atomic_commit(ct__atomic_file *a)
{
#ifdef CT__HAVE_MMAP
    if (a->err == 0 && fsync(a->fd) != 0) a->err = errno;
    if (close(a->fd) != 0 && a->err == 0) a->err = errno;
    if (a->err == 0 && rename(a->tmp, a->target) != 0) a->err = errno;
    if (a->err == 0) ct__sync_dir_of(a->target);
#else
    if (a->err == 0 && fflush(a->f) != 0) a->err = errno ? errno : EIO;
    if (fclose(a->f) != 0 && a->err == 0) a->err = errno ? errno : EIO;
    if (a->err == 0 && rename(a->tmp, a->target) != 0) { /* Windows will not rename over a file */
        remove(a->target);
        if (rename(a->tmp, a->target) != 0) a->err = errno ? errno : EIO;
    }
#endif
    if (a->err != 0) remove(a->tmp);
    ct__atomic_free(a);
    if (a->err == 0) return CT_OK;
    errno = a->err;
    return ct__file_error(a->path);
}
