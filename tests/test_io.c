#define _POSIX_C_SOURCE 200809L /* setrlimit, opendir, symlink, kill */
/* Saving and loading state_dicts: safetensors files against an independent
 * writer's bytes (tests/golden/gen_io.py), torch.save files written by
 * PyTorch 1.13 (zip and legacy formats, pickle protocols 2 and 4, deflated),
 * damaged and hostile files, atomic saves, and a fuzz pass that truncates
 * and flips the bytes of real files. */
#include "harness.h"

#include <sys/stat.h>
#ifndef _WIN32
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

#define IO "tests/golden/io/"
#define TMP CT_BUILD_DIR "/test_io_"

static int find(const ct_tensor_list *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->names[i], name)) return i;
    return -1;
}

/* The list's tensor of that name (a failed check when there is none). */
static ct_tensor *entry(const ct_tensor_list *l, const char *name)
{
    int i = find(l, name);
    if (i < 0) ct_test_fail(__FILE__, __LINE__, "no entry '%s'", name);
    return i < 0 ? NULL : l->tensors[i];
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = (unsigned char *)malloc((size_t)len + 1);
    *n = fread(p, 1, (size_t)len, f);
    fclose(f);
    return p;
}

static void spit(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (n) fwrite(p, 1, n, f);
    fclose(f);
}

/* The two files hold the same bytes. */
#define CHECK_SAME_FILE(a, b) check_same_file(__LINE__, a, b)
static void check_same_file(int line, const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    unsigned char *pa = slurp(a, &na), *pb = slurp(b, &nb);
    if (!pa || !pb) ct_test_fail(__FILE__, line, "cannot read %s or %s", a, b);
    else if (na != nb || memcmp(pa, pb, na)) {
        size_t at = 0;
        while (at < na && at < nb && pa[at] == pb[at]) at++;
        ct_test_fail(__FILE__, line, "%s (%zu bytes) and %s (%zu bytes) differ from byte %zu", a, na, b, nb, at);
    }
    free(pa);
    free(pb);
}

/* ---------------------------------------------------------------- safetensors */

static const char *const read_names[] = {"w", "idx", "h", "flags", "d", "na\xc3\xafve", "none"};

static void check_read_tensors(const ct_tensor_list *l)
{
    CHECK_INT(l->n, 7);
    for (int i = 0; i < 7; i++) {
        char g[64];
        snprintf(g, sizeof g, "read.%s", read_names[i]);
        CHECK_TENSOR(entry(l, read_names[i]), golden("io", g), 0);
    }
}

static void test_safetensors_reads_the_reference_layout(void)
{
    ct_tensor_list l;
    ct_metadata meta;
    CHECK_OK(ct_load_safetensors(IO "reference.safetensors", &l, &meta));
    check_read_tensors(&l);
    /* the file's order: dtypes widest first (I64, F64, F32, I32, F16, I16, BOOL) */
    static const char *const order[] = {"idx", "d", "w", "na\xc3\xafve", "h", "none", "flags"};
    for (int i = 0; i < 7 && i < l.n; i++) CHECK_STR(l.names[i], order[i]);
    CHECK_INT(meta.n, 2);
    if (meta.n == 2) {
        CHECK_STR(meta.keys[0], "format");
        CHECK_STR(meta.values[0], "pt");
        CHECK_STR(meta.keys[1], "source");
        CHECK_STR(meta.values[1], "gen_io.py");
    }
    /* zero copy: the tensors lie in the file's mapping, aligned */
    CHECK(((uintptr_t)ct_data_ptr(entry(&l, "idx")) % 8) == 0);
    ct_metadata_free(&meta);
    ct_tensor_list_free(&l);
}

static void test_safetensors_reads_any_valid_json(void)
{
    /* header order unlike data order, whitespace, escapes, an unknown field,
     * metadata last, no padding (so the data is misaligned and copied) */
    ct_tensor_list l;
    ct_metadata meta;
    CHECK_OK(ct_load_safetensors(IO "variant.safetensors", &l, &meta));
    check_read_tensors(&l);
    CHECK_INT(meta.n, 1);
    if (meta.n == 1) {
        CHECK_STR(meta.keys[0], "k\"ey");
        CHECK_STR(meta.values[0], "v\xc3\xa0lue\n");
    }
    ct_metadata_free(&meta);
    ct_tensor_list_free(&l);
    CHECK_OK(ct_load_safetensors(IO "empty.safetensors", &l, NULL));
    CHECK_INT(l.n, 0);
    ct_tensor_list_free(&l);
}

static const char *const save_names[] = {"layer.weight", "layer.bias", "a\"quote", "back\\slash", "new\nline\ttab\x01",
                                         "\xc3\xa9t\xc3\xa9", "bf", "short", "i8", "u8", "mask", "scalar", "empty", "Z"};
#define N_SAVE 14

/* gen_io.py's SAVE list, in its order. */
static ct_tensor_list save_list(ct_tensor **storage)
{
    ct_tensor_list l = {N_SAVE, (char **)save_names, storage};
    for (int i = 0; i < N_SAVE; i++) {
        char g[32];
        snprintf(g, sizeof g, "save.%d", i);
        storage[i] = (ct_tensor *)golden("io", g);
    }
    return l;
}

static void test_safetensors_writes_the_reference_bytes(void)
{
    ct_tensor *ts[N_SAVE];
    ct_tensor_list l = save_list(ts);
    const char *k[] = {"format"}, *v[] = {"pt"};
    ct_metadata meta = {1, k, v};
    CHECK_OK(ct_save_safetensors(TMP "meta.safetensors", &l, &meta));
    CHECK_SAME_FILE(TMP "meta.safetensors", IO "expected.safetensors");
    CHECK_OK(ct_save_safetensors(TMP "nometa.safetensors", &l, NULL));
    CHECK_SAME_FILE(TMP "nometa.safetensors", IO "expected_nometa.safetensors");
    CHECK_OK(ct_save(TMP "save.safetensors", &l));
    CHECK_SAME_FILE(TMP "save.safetensors", IO "expected_nometa.safetensors");
    ct_tensor_list none = {0, NULL, NULL};
    CHECK_OK(ct_save(TMP "empty.safetensors", &none));
    CHECK_SAME_FILE(TMP "empty.safetensors", IO "empty.safetensors");

    /* and back: every dtype, the names as they were */
    ct_tensor_list back;
    CHECK_OK(ct_load(TMP "meta.safetensors", &back));
    CHECK_INT(back.n, N_SAVE);
    for (int i = 0; i < N_SAVE; i++) CHECK_TENSOR(entry(&back, save_names[i]), ts[i], 0);
    ct_tensor_list_free(&back);
}

static void test_safetensors_writes_views_as_their_values(void)
{
    ct_tensor *m = ct_view(ct_arange(ct_int(0), ct_int(12), ct_int(1), CT_F32), CT_SHAPE(3, 4));
    char *names[] = {"t", "col"};
    ct_tensor *ts[] = {ct_t(m), ct_select(m, 1, 2)};
    ct_tensor_list l = {2, names, ts};
    CHECK_OK(ct_save(TMP "views.safetensors", &l));
    ct_tensor_list back;
    CHECK_OK(ct_load_safetensors(TMP "views.safetensors", &back, NULL));
    CHECK(ct_equal(entry(&back, "t"), ct_cpu(ts[0]))); /* (loads land on the CPU) */
    CHECK(ct_equal(entry(&back, "col"), ct_cpu(ts[1])));
    CHECK(ct_is_contiguous(entry(&back, "t")));
    ct_tensor_list_free(&back);
}

/* A safetensors file with this header text (its size written before it)
 * and data_len zero bytes after it. */
static const char *st_file(const char *header, size_t data_len)
{
    static const char *path = TMP "bad.safetensors";
    size_t n = strlen(header);
    unsigned char *buf = (unsigned char *)calloc(8 + n + data_len + 1, 1);
    for (int i = 0; i < 8; i++) buf[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(buf + 8, header, n);
    spit(path, buf, 8 + n + data_len);
    free(buf);
    return path;
}

#define ST_FAILS(header, data_len, code, msg) do { \
        ct_tensor_list l_; \
        CHECK_FAILS(ct_load_safetensors(st_file(header, data_len), &l_, NULL), code, msg); \
        CHECK(l_.n == 0 && l_.names == NULL); \
    } while (0)

static void test_safetensors_refuses_damaged_files(void)
{
    ct_tensor_list l;
    spit(TMP "short.safetensors", "\x10\0\0", 3);
    CHECK_FAILS(ct_load_safetensors(TMP "short.safetensors", &l, NULL), CT_ERR_VALUE, "too short for the 8-byte header size");
    spit(TMP "huge.safetensors", "\xff\xff\xff\xff\xff\xff\xff\xff{}", 10);
    CHECK_FAILS(ct_load_safetensors(TMP "huge.safetensors", &l, NULL), CT_ERR_VALUE, "is over the limit of 100000000 bytes");
    spit(TMP "past.safetensors", "\x40\0\0\0\0\0\0\0{}", 10);
    CHECK_FAILS(ct_load_safetensors(TMP "past.safetensors", &l, NULL), CT_ERR_VALUE, "runs past the end of the file (10 bytes)");
    CHECK_FAILS(ct_load_safetensors(TMP "missing.safetensors", &l, NULL), CT_ERR_IO, "No such file or directory");

    const char *ok = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}", 8, CT_ERR_VALUE, "the JSON header is malformed");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],}}", 8, CT_ERR_VALUE, "malformed");
    ST_FAILS("{\"a\xff\":{}}", 0, CT_ERR_VALUE, "the header is not valid UTF-8");
    ST_FAILS("[1, 2]", 0, CT_ERR_VALUE, "the header is not a JSON object");
    ST_FAILS("{} x", 0, CT_ERR_VALUE, "the header has bytes after its JSON object");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 12, CT_ERR_VALUE,
             "the tensors cover 8 bytes of data, but the file holds 12 after its header");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4, CT_ERR_VALUE, "cover 8 bytes of data, but the file holds 4");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, CT_ERR_VALUE,
             "the data offsets of tensor 'a' ([4, 12]) do not start where the previous tensor ends (0)");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
             8, CT_ERR_VALUE, "tensor 'b' ([4, 8]) do not start where the previous tensor ends (8)");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 8, CT_ERR_VALUE, "do not start where");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, CT_ERR_VALUE,
             "tensor 'a' has 8 bytes, but its shape and dtype need 12");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904,4],\"data_offsets\":[0,8]}}", 8, CT_ERR_VALUE,
             "the shape of tensor 'a' overflows");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[18446744073709551616],\"data_offsets\":[0,8]}}", 8, CT_ERR_VALUE, "malformed");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8, CT_ERR_VALUE, "malformed");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[2.0],\"data_offsets\":[0,8]}}", 8, CT_ERR_VALUE, "malformed");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,8]}}",
             8, CT_ERR_VALUE, "the name 'a' appears twice");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, CT_ERR_VALUE,
             "tensor 'a' has two \"dtype\" fields");
    ST_FAILS("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}", 8, CT_ERR_VALUE, "tensor 'a' has no \"shape\"");
    ST_FAILS("{\"a\":{\"dtype\":\"F31\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, CT_ERR_VALUE, "unknown dtype \"F31\"");
    ST_FAILS("{\"a\":{\"dtype\":\"U16\",\"shape\":[4],\"data_offsets\":[0,8]}}", 8, CT_ERR_TYPE,
             "tensor 'a' has dtype U16, which ctorch does not have");
    ST_FAILS("{\"a\":{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,1]}}", 1, CT_ERR_VALUE,
             "more than 16 dims");
    ST_FAILS("{\"__metadata__\":{\"a\":1}}", 0, CT_ERR_VALUE, "\"__metadata__\" is not a map of strings");
    ST_FAILS("{\"__metadata__\":{},\"__metadata__\":{}}", 0, CT_ERR_VALUE, "\"__metadata__\" appears twice");
    ST_FAILS("{\"\\ud800\":{}}", 0, CT_ERR_VALUE, "malformed");
    ST_FAILS("{\"a\\u0000\":{}}", 0, CT_ERR_VALUE, "malformed");
    ST_FAILS("{\"a\":{\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
             0, CT_ERR_VALUE, "malformed");
    /* valid after all: null metadata, a surrogate pair, an unknown field of every kind */
    ct_tensor_list good;
    CHECK_OK(ct_load_safetensors(st_file(ok, 8), &good, NULL));
    ct_tensor_list_free(&good);
    CHECK_OK(ct_load_safetensors(st_file("{\"__metadata__\":null,\"\\ud83d\\ude00\":{\"x\":[true,false,null,-1.5e-3,{\"y\":\"z\"}],"
                                         "\"dtype\":\"BOOL\",\"shape\":[0],\"data_offsets\":[0,0]}}", 0), &good, NULL));
    CHECK_INT(good.n, 1);
    if (good.n == 1) CHECK_STR(good.names[0], "\xf0\x9f\x98\x80");
    ct_tensor_list_free(&good);
}

static void test_safetensors_save_arguments(void)
{
    ct_tensor *a = ct_zeros(CT_SHAPE(2), CT_F32);
    char *two[] = {"a", "a"}, *meta_name[] = {"__metadata__"}, *bad_utf8[] = {"\xc3("}, *null_name[] = {NULL};
    ct_tensor *ts[] = {a, a}, *null_t[] = {NULL};
    ct_tensor_list dup = {2, two, ts}, meta = {1, meta_name, ts}, utf = {1, bad_utf8, ts}, nn = {1, null_name, ts},
                   nt = {1, two, null_t};
    CHECK_FAILS(ct_save(TMP "x.safetensors", &dup), CT_ERR_VALUE, "the name 'a' appears twice");
    CHECK_FAILS(ct_save(TMP "x.safetensors", &meta), CT_ERR_VALUE, "a tensor may not be named \"__metadata__\"");
    CHECK_FAILS(ct_save(TMP "x.safetensors", &utf), CT_ERR_VALUE, "is not valid UTF-8");
    CHECK_FAILS(ct_save(TMP "x.safetensors", &nn), CT_ERR_TYPE, "a tensor name is NULL");
    CHECK_FAILS(ct_save(TMP "x.safetensors", &nt), CT_ERR_TYPE, "tensor 'a' is NULL");
    CHECK_FAILS(ct_save(TMP "x.safetensors", NULL), CT_ERR_TYPE, "expected a list of named tensors");
    CHECK_FAILS(ct_save(NULL, &nt), CT_ERR_TYPE, "expected a file path");
    CHECK_FAILS(ct_save(CT_BUILD_DIR "/no/such/dir/x.safetensors", &utf), CT_ERR_VALUE, "UTF-8");
    ct_tensor_list one = {1, two, ts};
    CHECK_FAILS(ct_save(CT_BUILD_DIR "/no/such/dir/x.safetensors", &one), CT_ERR_IO,
                "[Errno 2] No such file or directory: '" CT_BUILD_DIR "/no/such/dir/x.safetensors'");
    const char *k[] = {"k", "k"}, *v[] = {"1", "2"};
    ct_metadata twice = {2, k, v};
    CHECK_FAILS(ct_save_safetensors(TMP "x.safetensors", &one, &twice), CT_ERR_VALUE, "the name 'k' appears twice");
    ct_tensor_list out;
    CHECK_FAILS(ct_load(NULL, &out), CT_ERR_TYPE, "expected a file path, not NULL");
    CHECK_FAILS(ct_load(IO "net.pth", NULL), CT_ERR_TYPE, "the output list is NULL");
}

#ifndef _WIN32 /* file size limits, permission bits, symbolic links and other processes' pids */
/* No file in the build folder whose name starts with prefix. */
static bool no_file_starting(const char *prefix)
{
    DIR *d = opendir(CT_BUILD_DIR);
    bool none = true;
    for (struct dirent *e; d && (e = readdir(d));)
        if (!strncmp(e->d_name, prefix, strlen(prefix))) none = false;
    if (d) closedir(d);
    return none;
}

/* While on, a file may not grow past 4 KiB: a save of more fails midway, its
 * write() failing with EFBIG. */
static void limit_file_size(bool on)
{
    static struct rlimit was;
    static void (*handler)(int);
    if (on) {
        getrlimit(RLIMIT_FSIZE, &was);
        struct rlimit small = was;
        small.rlim_cur = 4096;
        handler = signal(SIGXFSZ, SIG_IGN);
        CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    } else {
        setrlimit(RLIMIT_FSIZE, &was);
        signal(SIGXFSZ, handler);
    }
}

static void test_save_replaces_the_file_atomically(void)
{
    ct_tensor *ts[N_SAVE];
    ct_tensor_list l = save_list(ts);
    CHECK_OK(ct_save(TMP "atomic.safetensors", &l));
    size_t n_old;
    unsigned char *old = slurp(TMP "atomic.safetensors", &n_old);

    /* a save that fails midway: the file system refuses bytes past 4 KiB, so
     * the header is written and the 8 MiB tensor is not */
    char *names[] = {"big"};
    ct_tensor *big[] = {ct_ones(CT_SHAPE(1 << 21), CT_F32)};
    ct_tensor_list large = {1, names, big};
    limit_file_size(true);
    CHECK_FAILS(ct_save(TMP "atomic.safetensors", &large), CT_ERR_IO,
                "[Errno 27] File too large: '" CT_BUILD_DIR "/test_io_atomic.safetensors'");
    limit_file_size(false);

    size_t n_now;
    unsigned char *now = slurp(TMP "atomic.safetensors", &n_now);
    CHECK(old && now && n_old == n_now && !memcmp(old, now, n_old)); /* the old file is whole */
    CHECK(no_file_starting("test_io_atomic.safetensors.tmp"));      /* and the temporary one is gone */
    ct_tensor_list back;
    CHECK_OK(ct_load(TMP "atomic.safetensors", &back));
    CHECK_INT(back.n, N_SAVE);
    ct_tensor_list_free(&back);
    /* a save that works replaces it */
    CHECK_OK(ct_save(TMP "atomic.safetensors", &large));
    CHECK_OK(ct_load(TMP "atomic.safetensors", &back));
    CHECK_INT(back.n, 1);
    if (back.n == 1) CHECK(ct_equal(back.tensors[0], ct_cpu(big[0])));
    ct_tensor_list_free(&back);
    CHECK(no_file_starting("test_io_atomic.safetensors.tmp"));
    free(old);
    free(now);
}

static void test_save_npy_replaces_the_file_atomically(void)
{
    ct_tensor *small = ct_from_array((float[]){0, 1, 2, 3}, CT_SHAPE(4), CT_F32);
    ct_tensor *big = ct_ones(CT_SHAPE(1 << 20), CT_F32);
    CHECK_OK(ct_save_npy(TMP "atomic.npy", small));
    limit_file_size(true);
    CHECK_FAILS(ct_save_npy(TMP "atomic.npy", big), CT_ERR_IO,
                "[Errno 27] File too large: '" CT_BUILD_DIR "/test_io_atomic.npy'");
    limit_file_size(false);
    CHECK(ct_equal(ct_load_npy(TMP "atomic.npy"), ct_cpu(small))); /* the old file is whole */
    CHECK(no_file_starting("test_io_atomic.npy.tmp"));
    CHECK_OK(ct_save_npy(TMP "atomic.npy", big));
    CHECK(ct_equal(ct_load_npy(TMP "atomic.npy"), ct_cpu(big)));
}

/* The savers, each writing t alone to path. */
typedef ct_result (*saver)(const char *path, ct_tensor *t);
static ct_result save_one(const char *path, ct_tensor *t)
{
    char *names[] = {"t"};
    ct_tensor_list l = {1, names, &t};
    return ct_save(path, &l);
}
static ct_result save_one_with_metadata(const char *path, ct_tensor *t)
{
    char *names[] = {"t"};
    ct_tensor_list l = {1, names, &t};
    const char *keys[] = {"format"}, *values[] = {"pt"};
    ct_metadata meta = {1, keys, values};
    return ct_save_safetensors(path, &l, &meta);
}
static ct_result save_npy(const char *path, ct_tensor *t) { return ct_save_npy(path, t); }
static const saver savers[] = {save_one, save_one_with_metadata, save_npy};

/* The permission bits of path's file, -1 when there is none. */
static int mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int)(st.st_mode & 0777) : -1;
}

/* path is a symbolic link to `to`. */
static bool is_link_to(const char *path, const char *to)
{
    char buf[256];
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    if (n >= 0) buf[n] = 0;
    return n >= 0 && !strcmp(buf, to);
}

/* A saver writes what open(path, "wb") would write to: an existing file
 * keeps its permission bits (even those the umask would drop), a new one
 * gets 0666 less the umask; a symbolic link's target is written, the link
 * kept, a dangling link's target made. */
static void check_saver_writes_as_open_would(saver save)
{
    ct_tensor *t = ct_from_array((float[]){0, 1, 2, 3, 4, 5}, CT_SHAPE(2, 3), CT_F32);
    remove(TMP "mode_new");
    remove(TMP "mode_made");
    CHECK_OK(save(TMP "mode_ref", t));
    mode_t mask = umask(027);
    for (int i = 0; i < 2; i++) {
        int was = i == 0 ? 0600 : 0604; /* (0604 has a bit the umask drops) */
        spit(TMP "mode_old", "old", 3);
        chmod(TMP "mode_old", (mode_t)was);
        CHECK_OK(save(TMP "mode_old", t));
        CHECK_INT(mode_of(TMP "mode_old"), was);
        CHECK_SAME_FILE(TMP "mode_old", TMP "mode_ref");
    }
    CHECK_OK(save(TMP "mode_new", t));
    CHECK_INT(mode_of(TMP "mode_new"), 0666 & ~027);
    umask(mask);

    /* relative link targets are read from the link's directory, not the working one */
    remove(TMP "link");
    remove(TMP "link2");
    remove(TMP "dangling");
    CHECK(symlink("test_io_mode_old", TMP "link") == 0);
    CHECK(symlink("test_io_link", TMP "link2") == 0); /* a link to a link */
    CHECK(symlink("test_io_mode_made", TMP "dangling") == 0);
    spit(TMP "mode_old", "old", 3);
    chmod(TMP "mode_old", 0600);
    CHECK_OK(save(TMP "link2", t));
    CHECK(is_link_to(TMP "link2", "test_io_link") && is_link_to(TMP "link", "test_io_mode_old"));
    CHECK_SAME_FILE(TMP "mode_old", TMP "mode_ref");
    CHECK_INT(mode_of(TMP "mode_old"), 0600);
    CHECK_OK(save(TMP "dangling", t));
    CHECK(is_link_to(TMP "dangling", "test_io_mode_made"));
    CHECK_SAME_FILE(TMP "mode_made", TMP "mode_ref");
    const char *temps[] = {"test_io_link.tmp", "test_io_link2.tmp", "test_io_dangling.tmp", "test_io_mode_old.tmp",
                           "test_io_mode_made.tmp"};
    for (int i = 0; i < 5; i++) CHECK(no_file_starting(temps[i]));
}

static void test_save_writes_as_open_would(void)
{
    for (size_t i = 0; i < sizeof savers / sizeof *savers; i++) check_saver_writes_as_open_would(savers[i]);
    /* a loop of links fails as open() fails, nothing written */
    remove(TMP "loop_a");
    remove(TMP "loop_b");
    CHECK(symlink("test_io_loop_b", TMP "loop_a") == 0 && symlink("test_io_loop_a", TMP "loop_b") == 0);
    CHECK_FAILS(ct_save_npy(TMP "loop_a", ct_zeros(CT_SHAPE(2), CT_F32)), CT_ERR_IO,
                "[Errno 40] Too many levels of symbolic links: '" CT_BUILD_DIR "/test_io_loop_a'");
    CHECK(no_file_starting("test_io_loop_a.") && no_file_starting("test_io_loop_b."));
}

/* A pid no process has. */
static long unused_pid(void)
{
    for (long pid = (1 << 22) - 1; pid > 1; pid--) /* pid_max is 2^22 at most */
        if (kill((pid_t)pid, 0) == -1 && errno == ESRCH) return pid;
    return 0;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Names like a temporary file's for `file` and a writer `pid`: removed when
 * that writer is gone (stale), or never (they are not of that pattern). */
static const char *const stale_fmt[] = {"%s.tmp%ld.1", "%s.tmp%ld.123"};
static const char *const kept_fmt[] = {"%s.tmp%ld.",   "%s.tmp%ld",    "%s.tmp%ld.1.bak", "%s.tmp%ld.1x",
                                       "%s.tmp0%ld.1", "%s.tmp+%ld.1", "%s2.tmp%ld.1",    "%s.tmp.%ld.1"};
#define N_STALE (int)(sizeof stale_fmt / sizeof *stale_fmt)
#define N_KEPT (int)(sizeof kept_fmt / sizeof *kept_fmt)

/* The name fmt makes of file and pid, made or (make false) checked. */
static void fake_temp(const char *fmt, const char *file, long pid, bool make, bool should_exist)
{
    char name[256];
    snprintf(name, sizeof name, fmt, file, pid);
    if (make) {
        spit(name, "x", 1);
        return;
    }
    if (exists(name) != should_exist) ct_test_fail(__FILE__, __LINE__, "%s %s", name, should_exist ? "is gone" : "stays");
    remove(name);
}

/* The temporary files a killed save left (its writer gone) are removed by
 * the next save to that file; a live writer's, and other files, stay. */
static void check_stale_temporaries_removed(saver save, const char *file)
{
    long dead = unused_pid(), live = (long)getpid();
    CHECK(dead > 0);
    for (int pass = 0; pass < 2; pass++) { /* make them, save, check them */
        bool make = pass == 0;
        for (int i = 0; i < N_STALE; i++) {
            fake_temp(stale_fmt[i], file, dead, make, false);
            fake_temp(stale_fmt[i], file, live, make, true);
        }
        for (int i = 0; i < N_KEPT; i++) fake_temp(kept_fmt[i], file, dead, make, true);
        if (make) CHECK_OK(save(file, ct_ones(CT_SHAPE(2), CT_F32)));
    }
}

static void test_save_removes_stale_temporaries(void)
{
    check_stale_temporaries_removed(save_one, TMP "stale.safetensors");
    check_stale_temporaries_removed(save_npy, TMP "stale.npy");
    /* a path naming no file has no temporary files: ".tmp<pid>.<k>" is not its */
    long dead = unused_pid();
    fake_temp(stale_fmt[0], CT_BUILD_DIR "/", dead, true, true);
    CHECK_FAILS(save_npy(CT_BUILD_DIR "/", ct_ones(CT_SHAPE(2), CT_F32)), CT_ERR_IO, "Is a directory");
    fake_temp(stale_fmt[0], CT_BUILD_DIR "/", dead, false, true);
}
#endif

/* ---------------------------------------------------------------- torch.save files */

static const char *const net_keys[] = {"0.weight", "1.weight", "1.bias", "2.weight", "2.bias", "2.running_mean",
                                       "2.running_var", "2.num_batches_tracked"};

/* nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 3), nn.BatchNorm1d(3)), as gen_io.py builds it. */
static ct_module *make_net(void)
{
    ct_module *mods[3] = {ct_nn_embedding(10, 4, ct_embedding_opts_init()), ct_nn_linear(4, 3, true),
                          ct_nn_batch_norm1d(3, ct_norm_opts_init())};
    return ct_nn_sequential(mods, 3);
}

static void check_net(const char *path)
{
    ct_tensor_list sd;
    CHECK_OK(ct_load(path, &sd));
    CHECK_INT(sd.n, 8);
    for (int i = 0; i < 8 && i < sd.n; i++) {
        char g[64];
        CHECK_STR(sd.names[i], net_keys[i]);
        snprintf(g, sizeof g, "net.%s", net_keys[i]);
        CHECK_TENSOR(sd.tensors[i], golden("io", g), 0);
    }
    CHECK(sd.n == 8 && ct_dtype_of(sd.tensors[7]) == CT_I64 && ct_item_int(sd.tensors[7]) == 3);
    /* into a model built in C: it computes what PyTorch computed. Within an
     * ulp: PyTorch's BatchNorm eval kernel computes fma(x, w * invstd, b -
     * mean * w * invstd), ctorch's normalises as x * rstd - mean * rstd
     * (src/nn/functional.c); the loaded tensors agree bit for bit above. */
    ct_module *net = make_net();
    CHECK_OK(ct_module_load_state_dict(net, &sd, true, NULL));
    ct_module_eval(net);
    CHECK_TENSOR(ct_forward(net, golden("io", "net.in")), golden("io", "net.out"), 1);
    ct_module_release(net);
    ct_tensor_list_free(&sd);
}

static void test_pth_loads_a_model(void)
{
    check_net(IO "net.pth");
    ct_tensor_list sd;
    CHECK_OK(ct_load_pth(IO "net.pth", &sd));
    CHECK_INT(sd.n, 8);
    ct_tensor_list_free(&sd);
}

static void test_pth_deflated_entries(void)
{
#ifdef CTORCH_ZLIB
    check_net(IO "net_deflate.pth");
#else
    ct_tensor_list sd;
    CHECK_FAILS(ct_load(IO "net_deflate.pth", &sd), CT_ERR_RUNTIME, "holds deflated entries, which need zlib");
#endif
}

static const char *const layout_keys[] = {"base", "base_t", "slice", "col", "expanded", "f16", "bf16", "i64", "i32", "i16",
                                          "i8", "u8", "bool", "scalar", "empty", "param", "tied_a", "tied_b", "many_dims", "m"};
#define N_LAYOUT 20

static void check_layouts(const char *path)
{
    ct_tensor_list l;
    CHECK_OK(ct_load_pth(path, &l));
    CHECK_INT(l.n, N_LAYOUT);
    if (l.n != N_LAYOUT) return;
    int64_t storage_id[N_LAYOUT];
    for (int i = 0; i < N_LAYOUT; i++) {
        char g[64];
        const ct_tensor *t = l.tensors[i];
        CHECK_STR(l.names[i], layout_keys[i]);
        snprintf(g, sizeof g, "pth.%s", layout_keys[i]);
        CHECK_TENSOR(t, golden("io", g), 0);
        snprintf(g, sizeof g, "pth.%s.stride", layout_keys[i]);
        const ct_tensor *stride = golden("io", g);
        for (int d = 0; stride && d < ct_dim(t); d++) CHECK_INT(ct_stride(t, d), ct_item_int(ct_select(stride, 0, d)));
        snprintf(g, sizeof g, "pth.%s.offset", layout_keys[i]);
        CHECK_INT(ct_storage_offset(t), ct_item_int(golden("io", g)));
        snprintf(g, sizeof g, "pth.%s.storage", layout_keys[i]);
        storage_id[i] = ct_item_int(golden("io", g));
        CHECK(ct_requires_grad(t) == !strcmp(layout_keys[i], "param"));
    }
    /* tensors share a storage here exactly when they did in PyTorch */
    for (int i = 0; i < N_LAYOUT; i++)
        for (int j = 0; j < i; j++) {
            bool here = ct_storage_data_ptr(l.tensors[i]) == ct_storage_data_ptr(l.tensors[j]);
            bool there = storage_id[i] == storage_id[j];
            if (ct_numel(l.tensors[i]) > 0 && ct_numel(l.tensors[j]) > 0 && here != there)
                ct_test_fail(__FILE__, __LINE__, "%s: '%s' and '%s' share a storage: %d here, %d in PyTorch", path,
                             l.names[i], l.names[j], here, there);
        }
    CHECK(entry(&l, "tied_a") == entry(&l, "tied_b")); /* one object under two names, as torch.load gives */
    CHECK(!ct_is_contiguous(entry(&l, "base_t")));
    ct_tensor_list_free(&l);
}

static void test_pth_layouts_dtypes_and_sharing(void)
{
    check_layouts(IO "tensors.pth");        /* zip, pickle protocol 2 */
    check_layouts(IO "tensors_p4.pth");     /* zip, protocol 4: FRAME, STACK_GLOBAL, MEMOIZE */
    check_layouts(IO "tensors_legacy.pth"); /* _use_new_zipfile_serialization=False */
    ct_tensor_list l;
    CHECK_OK(ct_load_pth(IO "ok_by_hand.pth", &l));
    CHECK_INT(l.n, 1);
    if (l.n == 1) CHECK_VALUES(l.tensors[0], CT_SHAPE(2, 2), 1, 2, 3, 4);
    ct_tensor_list_free(&l);
}

static void test_pth_without_a_scope(void)
{
    /* outside any scope the tensors are the caller's */
    ct_scope_end((ct_scope){1});
    ct_tensor_list l;
    CHECK_OK(ct_load_pth(IO "tensors.pth", &l));
    CHECK_INT(l.n, N_LAYOUT);
    ct_tensor_list_release(&l);
    CHECK(l.n == 0 && l.names == NULL);
    ct_scope_begin(); /* for the harness to end */
}

static void test_pth_refuses_what_is_not_a_state_dict(void)
{
    static const struct { const char *file; ct_result code; const char *msg; } cases[] = {
        {"list.pth", CT_ERR_RUNTIME, "expected a state_dict (a dict of tensors), but the file holds list"},
        {"checkpoint.pth", CT_ERR_RUNTIME, "the state_dict's entry 'model' is dict, not a tensor"},
        {"complex.pth", CT_ERR_RUNTIME, "Unsupported class torch.ComplexFloatStorage"},
        {"os_system.pth", CT_ERR_RUNTIME, "Unsupported class os.system"},
        {"bad_opcode.pth", CT_ERR_RUNTIME, "Unsupported operand 73"},
        {"out_of_bounds.pth", CT_ERR_RUNTIME, "setStorage: sizes [3, 2], strides [2, 1], storage offset 0, and itemsize 4 "
                                              "requiring a storage size of 24 are out of bounds for storage of size 16"},
        {"offset_out_of_bounds.pth", CT_ERR_RUNTIME, "setStorage: sizes [2], strides [1], storage offset 3, and itemsize 4 "
                                                     "requiring a storage size of 20 are out of bounds for storage of size 16"},
        {"negative_stride.pth", CT_ERR_RUNTIME, "a tensor's arguments are not (storage, storage_offset, size, stride"},
        {"wrong_storage_size.pth", CT_ERR_RUNTIME, "data/0 holds 16 bytes, but its storage has 1073741824 elements of float32"},
        {"missing_storage.pth", CT_ERR_RUNTIME, "PytorchStreamReader failed locating file data/0: file not found"},
        {"truncated_pickle.pth", CT_ERR_RUNTIME, "pickle data was truncated"},
        {"memo_huge.pth", CT_ERR_RUNTIME, "memo index 4294967295 is out of range"},
        {"memo_missing.pth", CT_ERR_RUNTIME, "Memo value not found at index 7"},
        {"underflow.pth", CT_ERR_RUNTIME, "unpickling stack underflow"},
        {"duplicate_key.pth", CT_ERR_RUNTIME, "the state_dict's entry 'w' is None, not a tensor"},
        {"no_version.pth", CT_ERR_RUNTIME, "PytorchStreamReader failed locating file version: file not found"},
        {"version_11.pth", CT_ERR_RUNTIME, "Attempted to read a PyTorch file with version 11, but the maximum supported "
                                           "version for reading is 10"},
        {"flat.pth", CT_ERR_RUNTIME, "file in archive is not in a subdirectory: data.pkl"},
        {"reference.safetensors", CT_ERR_RUNTIME, "is not a torch.save file"},
        {"missing.pth", CT_ERR_IO, "[Errno 2] No such file or directory: 'tests/golden/io/missing.pth'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256];
        ct_tensor_list l;
        snprintf(path, sizeof path, IO "%s", cases[i].file);
        CHECK_FAILS(ct_load_pth(path, &l), cases[i].code, cases[i].msg);
        CHECK(l.n == 0 && l.names == NULL && l.tensors == NULL);
    }
    spit(TMP "nozip.pth", "PK\x03\x04 and then nothing", 22);
    ct_tensor_list l;
    CHECK_FAILS(ct_load_pth(TMP "nozip.pth", &l), CT_ERR_RUNTIME,
                "PytorchStreamReader failed reading zip archive: failed finding central directory");
}

/* A legacy torch.save file around a main pickle made here (no storages). */
static const char *legacy_file(const char *body, size_t n)
{
    static const char head[] = "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19." /* MAGIC_NUMBER */
                               "\x80\x02M\xe9\x03."                                            /* 1001 */
                               "\x80\x02}.";                                                  /* sys_info */
    size_t nh = sizeof head - 1;
    char *buf = (char *)malloc(nh + n + 4);
    memcpy(buf, head, nh);
    memcpy(buf + nh, body, n);
    memcpy(buf + nh + n, "\x80\x02].", 4); /* no storage keys */
    spit(TMP "legacy.pth", buf, nh + n + 4);
    free(buf);
    return TMP "legacy.pth";
}

static void test_pth_deep_pickles(void)
{
    /* nesting is a stack of marks and values, not recursion: a million levels are only memory */
    enum { DEPTH = 1000000 };
    char *p = (char *)malloc(2 * DEPTH + 4);
    ct_tensor_list l;
    memcpy(p, "\x80\x02", 2);
    memset(p + 2, ']', DEPTH);
    memset(p + 2 + DEPTH, 'a', DEPTH - 1); /* each list appended to the one below it */
    p[2 * DEPTH + 1] = '.';
    CHECK_FAILS(ct_load_pth(legacy_file(p, 2 * DEPTH + 2), &l), CT_ERR_RUNTIME, "but the file holds list");
    memset(p + 2, '(', DEPTH);
    p[2 + DEPTH] = '.';
    CHECK_FAILS(ct_load_pth(legacy_file(p, DEPTH + 3), &l), CT_ERR_RUNTIME, "unpickling stack underflow");
    CHECK_OK(ct_load_pth(legacy_file("\x80\x02}.", 4), &l)); /* an empty state_dict */
    CHECK_INT(l.n, 0);
    ct_tensor_list_free(&l);
    free(p);
}

/* A legacy file whose one storage says it has 2**62 floats and holds 1. */
static void test_pth_legacy_huge_numel(void)
{
    static const char head[] = "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19." /* MAGIC_NUMBER */
                               "\x80\x02M\xe9\x03."                                            /* 1001 */
                               "\x80\x02}."                                                   /* sys_info */
                               "\x80\x02}(X\x01\0\0\0w" /* {'w': _rebuild_tensor_v2(storage, 0, (1,), (1,), False, OrderedDict())} */
                               "ctorch._utils\n_rebuild_tensor_v2\n((X\x07\0\0\0storage" "ctorch\nFloatStorage\n"
                               "X\x01\0\0\x00" "0X\x03\0\0\0cpu\x8a\x08\0\0\0\0\0\0\0\x40tQ" /* numel 2**62 */
                               "J\0\0\0\0(J\x01\0\0\0t(J\x01\0\0\0t\x89" "ccollections\nOrderedDict\n)RtRu."
                               "\x80\x02]X\x01\0\0\x00" "0a." /* the storage keys: ['0'] */
                               "\x01\0\0\0\0\0\0\0\0\0\x80\x3f"; /* count 1, then 1.0 */
    spit(TMP "legacy_huge.pth", head, sizeof head - 1);
    ct_tensor_list l;
    /* PyTorch's int64 byte counts: 2**62 * 4 wraps to 0 */
    CHECK_FAILS(ct_load_pth(TMP "legacy_huge.pth", &l), CT_ERR_RUNTIME, "storage has wrong byte size: expected 0 got 4");
    CHECK(l.n == 0);
}

static void test_pth_pop_mark_on_an_empty_stack(void)
{
    ct_tensor_list l;
    CHECK_FAILS(ct_load_pth(legacy_file("\x80\x02(1.", 5), &l), CT_ERR_RUNTIME, "unpickling stack underflow");
    CHECK(l.n == 0);
}

/* A .npy file (version 1) with this header, taken as it is (no padding), and data. */
static const char *npy_file(const char *header, const void *data, size_t n)
{
    size_t h = strlen(header);
    unsigned char *buf = (unsigned char *)malloc(10 + h + n);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(h & 0xff), buf[9] = (unsigned char)(h >> 8);
    memcpy(buf + 10, header, h);
    if (n) memcpy(buf + 10 + h, data, n);
    spit(TMP "hostile.npy", buf, 10 + h + n);
    free(buf);
    return TMP "hostile.npy";
}

static void test_npy_hostile_headers(void)
{
    const double v[2] = {1.5, -2.25};
    /* numpy loads a header not padded to 16 bytes: the data, misaligned in the file, is copied */
    ct_tensor *t = ct_load_npy(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n", v, sizeof v));
    CHECK_VALUES(t, CT_SHAPE(2), 1.5, -2.25);
    if (t) CHECK((uintptr_t)ct_data_ptr(t) % 8 == 0);
    /* the descr's quote is the header's last byte */
    CHECK_ERR(ct_load_npy(npy_file("{'fortran_order': False, 'shape': (2,), 'descr': '", v, sizeof v)), CT_ERR_VALUE,
              "is not a .npy file (its header cannot be read)");
    /* Fortran order with a zero dim: no element, but strides past int64 (numpy: "array is too big") */
    CHECK_ERR(ct_load_npy(npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (0, 4611686018427387904, "
                                   "4611686018427387904), }\n", NULL, 0)), CT_ERR_VALUE, "array is too big");
    t = ct_load_npy(npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (0, 3, 2), }\n", NULL, 0));
    CHECK_T(t);
    if (t) CHECK(ct_numel(t) == 0 && ct_stride(t, 0) == 1 && ct_stride(t, 1) == 1 && ct_stride(t, 2) == 3);
}

/* An IDX file: type code, sizes, then data as it is. */
static const char *idx_file(unsigned char code, int ndim, const uint32_t *sizes, const void *data, size_t n)
{
    unsigned char buf[256];
    size_t at = 4;
    memcpy(buf, (unsigned char[]){0, 0, code, (unsigned char)ndim}, 4);
    for (int d = 0; d < ndim; d++, at += 4)
        for (int b = 0; b < 4; b++) buf[at + (size_t)b] = (unsigned char)(sizes[d] >> (24 - 8 * b));
    if (n) memcpy(buf + at, data, n);
    spit(TMP "hostile.idx", buf, at + n);
    return TMP "hostile.idx";
}

static void test_idx_alignment_and_huge_dims(void)
{
    /* float64 after two sizes starts at byte 12: copied to aligned memory */
    const unsigned char be[16] = {0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xc0, 0x02, 0, 0, 0, 0, 0, 0}; /* 1.5, -2.25 */
    ct_tensor *t = ct_read_idx(idx_file(0x0E, 2, (const uint32_t[]){1, 2}, be, sizeof be));
    CHECK_VALUES(t, CT_SHAPE(1, 2), 1.5, -2.25);
    if (t) CHECK((uintptr_t)ct_data_ptr(t) % 8 == 0);
    /* a zero dim before two huge ones: no element, but strides past int64 */
    CHECK_ERR(ct_read_idx(idx_file(0x08, 3, (const uint32_t[]){0, 4000000000u, 4000000000u}, NULL, 0)),
              CT_ERR_VALUE, "array is too big");
    t = ct_read_idx(idx_file(0x08, 3, (const uint32_t[]){0, 4000000000u, 2}, NULL, 0));
    CHECK_T(t);
    if (t) CHECK(ct_numel(t) == 0 && ct_stride(t, 0) == 8000000000 && ct_stride(t, 1) == 2);
}

/* ---------------------------------------------------------------- fuzzing */

/* Load a damaged copy of a file: it must load or fail cleanly (an error
 * set); returns whether it loaded. The tensors go before the next copy is
 * written over the file they map. */
static bool load_damaged(const unsigned char *p, size_t n)
{
    spit(TMP "fuzz.bin", p, n);
    ct_scope s = ct_scope_begin();
    ct_tensor_list l;
    ct_result r = ct_load(TMP "fuzz.bin", &l);
    if (r == CT_OK) {
        for (int i = 0; i < l.n; i++) ct_sum(l.tensors[i]); /* every byte the tensors claim is readable */
        ct_tensor_list_free(&l);
    } else if (ct_last_error_code() == CT_OK || l.n != 0 || l.names) {
        ct_test_fail(__FILE__, __LINE__, "a failed load left no error or a list behind");
    }
    ct_clear_error();
    ct_scope_end(s);
    return r == CT_OK;
}

static void fuzz_file(const char *path)
{
    size_t n;
    unsigned char *orig = slurp(path, &n), *p = (unsigned char *)malloc(n + 1);
    if (!orig || !p) {
        ct_test_fail(__FILE__, __LINE__, "cannot read %s", path);
        free(orig);
        free(p);
        return;
    }
    CHECK(load_damaged(orig, n));
    int loaded = 0, runs = 0;
    for (size_t len = 0; len < n; len++, runs++) loaded += load_damaged(orig, len); /* every truncation */
    static const unsigned char masks[] = {0x01, 0x80, 0xff};
    for (size_t at = 0; at < n; at++)
        for (int m = 0; m < 3; m++, runs++) { /* every byte flipped three ways */
            memcpy(p, orig, n);
            p[at] ^= masks[m];
            loaded += load_damaged(p, n);
        }
    uint64_t x = 88172645463325252u; /* xorshift: a few bytes at random, many times */
    for (int k = 0; k < 2000; k++, runs++) {
        memcpy(p, orig, n);
        for (int j = 0; j < 4; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            p[x % n] = (unsigned char)(x >> 32);
        }
        loaded += load_damaged(p, n);
    }
    printf("  %s: %d damaged copies, %d loaded (damage in tensor bytes or in fields the reader does not use), the rest refused\n", path, runs, loaded);
    free(orig);
    free(p);
}

static void test_fuzz_truncated_and_flipped_files(void)
{
    fuzz_file(IO "net.pth");
    fuzz_file(IO "tensors_legacy.pth");
    fuzz_file(IO "reference.safetensors");
}

int main(void)
{
    RUN(test_safetensors_reads_the_reference_layout);
    RUN(test_safetensors_reads_any_valid_json);
    RUN(test_safetensors_writes_the_reference_bytes);
    RUN(test_safetensors_writes_views_as_their_values);
    RUN(test_safetensors_refuses_damaged_files);
    RUN(test_safetensors_save_arguments);
    RUN_NOT_ON_WINDOWS(test_save_replaces_the_file_atomically, "a file size limit (setrlimit) fails the save midway");
    RUN_NOT_ON_WINDOWS(test_save_npy_replaces_the_file_atomically, "a file size limit (setrlimit) fails the save midway");
    RUN_NOT_ON_WINDOWS(test_save_writes_as_open_would, "permission bits, the umask and symbolic links");
    RUN_NOT_ON_WINDOWS(test_save_removes_stale_temporaries, "a dead writer's pid, found with kill()");
    RUN(test_pth_loads_a_model);
    RUN(test_pth_deflated_entries);
    RUN(test_pth_layouts_dtypes_and_sharing);
    RUN(test_pth_without_a_scope);
    RUN(test_pth_refuses_what_is_not_a_state_dict);
    RUN(test_pth_deep_pickles);
    RUN(test_pth_legacy_huge_numel);
    RUN(test_pth_pop_mark_on_an_empty_stack);
    RUN(test_npy_hostile_headers);
    RUN(test_idx_alignment_and_huge_dims);
    RUN(test_fuzz_truncated_and_flipped_files);
    return ct_test_report();
}
