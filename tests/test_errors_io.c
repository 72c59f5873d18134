#define _POSIX_C_SOURCE 200809L /* symlink */
/* Bad input to saving and loading (safetensors, torch.save files): the
 * whole message, and nothing made. Damaged and hostile files are in
 * tests/test_io.c. */
#include "errors.h"

#include <unistd.h>

#ifndef CT_BUILD_DIR
#define CT_BUILD_DIR "build"
#endif

#define IO "tests/golden/io/"

/* A failed load leaves the list (and the metadata) empty. */
#define CHECK_EMPTY(l) CHECK((l).n == 0 && (l).names == NULL && (l).tensors == NULL)

static void test_load_errors(void)
{
    ct_tensor_list l;
    ct_metadata meta;
    FAILS_R(ct_load_safetensors(NULL, &l, &meta), CT_ERR_TYPE, "expected a file path, not NULL");
    CHECK_EMPTY(l);
    CHECK(meta.n == 0 && meta.keys == NULL);
    FAILS_R(ct_load_safetensors(IO "reference.safetensors", NULL, NULL), CT_ERR_TYPE, "the output list is NULL");
    FAILS_R(ct_load_safetensors(IO "net.pth", &l, &meta), CT_ERR_VALUE,
            "'" IO "net.pth' is not a valid safetensors file: its header size 578712552184433488 is over the limit of "
            "100000000 bytes");
    CHECK_EMPTY(l);
    FAILS_R(ct_load_pth(NULL, &l), CT_ERR_TYPE, "expected a file path, not NULL");
    FAILS_R(ct_load_pth(IO "net.pth", NULL), CT_ERR_TYPE, "the output list is NULL");
    FAILS_R(ct_load_pth(IO "reference.safetensors", &l), CT_ERR_RUNTIME,
            "'" IO "reference.safetensors' is not a torch.save file: it starts with neither a zip header nor a pickle");
    CHECK_EMPTY(l);
    FAILS_R(ct_load_pth(IO "os_system.pth", &l), CT_ERR_RUNTIME,
            "cannot load '" IO "os_system.pth': Unsupported class os.system (ctorch loads state_dicts: dicts of tensors)");
    FAILS_R(ct_load(NULL, &l), CT_ERR_TYPE, "expected a file path, not NULL");
    FAILS_R(ct_load(IO "net.pth", NULL), CT_ERR_TYPE, "the output list is NULL");
    FAILS_R(ct_load(IO "missing", &l), CT_ERR_IO, "[Errno 2] No such file or directory: '" IO "missing'");
    CHECK_EMPTY(l);
    /* the same with a device to load onto (test_device_train.c: devices that are not there) */
    FAILS_R(ct_load_map_location(NULL, &l, CT_CPU), CT_ERR_TYPE, "expected a file path, not NULL");
    FAILS_R(ct_load_map_location(IO "net.pth", NULL, CT_CPU), CT_ERR_TYPE, "the output list is NULL");
    FAILS_R(ct_load_map_location(IO "missing", &l, CT_CPU), CT_ERR_IO,
            "[Errno 2] No such file or directory: '" IO "missing'");
    FAILS_R(ct_load_safetensors_device(NULL, &l, NULL, CT_CPU), CT_ERR_TYPE, "expected a file path, not NULL");
    FAILS_R(ct_load_safetensors_device(IO "reference.safetensors", NULL, NULL, CT_CPU), CT_ERR_TYPE,
            "the output list is NULL");
    CHECK_EMPTY(l);
    /* NULL is ignored by the freeing functions */
    ct_metadata_free(NULL);
    ct_tensor_list_release(NULL);
    CHECK(ct_last_error_code() == CT_OK);
}

static void test_save_errors(void)
{
    ct_tensor *t = ct_zeros(CT_SHAPE(2), CT_F32);
    char *names[] = {"a", "b"};
    ct_tensor *ts[] = {t, t};
    ct_tensor_list l = {2, names, ts}, bad_n = {-1, names, ts};
    FAILS_R(ct_save(NULL, &l), CT_ERR_TYPE, "expected a file path, not NULL");
    FAILS_R(ct_save(CT_BUILD_DIR "/test_errors_io.safetensors", NULL), CT_ERR_TYPE, "expected a list of named tensors");
    FAILS_R(ct_save(CT_BUILD_DIR "/test_errors_io.safetensors", &bad_n), CT_ERR_TYPE, "expected a list of named tensors");
    const char *keys[] = {"format", NULL}, *values[] = {"pt", "x"};
    ct_metadata meta = {2, keys, values}, bad_meta = {1, NULL, values};
    FAILS_R(ct_save_safetensors(CT_BUILD_DIR "/test_errors_io.safetensors", &l, &meta), CT_ERR_TYPE,
            "a metadata key is NULL");
    FAILS_R(ct_save_safetensors(CT_BUILD_DIR "/test_errors_io.safetensors", &l, &bad_meta), CT_ERR_TYPE,
            "expected metadata of n keys and values");
    FAILS_R(ct_save_safetensors(CT_BUILD_DIR "/no/such/dir/x.safetensors", &l, NULL), CT_ERR_IO,
            "[Errno 2] No such file or directory: '" CT_BUILD_DIR "/no/such/dir/x.safetensors'");
    FAILS_R(ct_save_npy(NULL, t), CT_ERR_TYPE, "expected a file path, not NULL");
    FAILS_R(ct_save_npy(CT_BUILD_DIR "/test_errors_io.npy", NULL), CT_ERR_TYPE,
            "save_npy(): argument 'tensor' (position 2) must be Tensor, not NULL");
    /* a path naming no file fails as open() fails */
    FAILS_R(ct_save_npy("", t), CT_ERR_IO, "[Errno 2] No such file or directory: ''");
}

#ifndef _WIN32
/* A directory, and a link to a missing directory, fail as open() fails,
 * naming the path given. */
static void test_save_path_errors(void)
{
    ct_tensor *t = ct_zeros(CT_SHAPE(2), CT_F32);
    FAILS_R(ct_save_npy(CT_BUILD_DIR "/", t), CT_ERR_IO, "[Errno 21] Is a directory: '" CT_BUILD_DIR "/'");
    remove(CT_BUILD_DIR "/test_errors_io_link");
    CHECK(symlink("no/such/dir/x.npy", CT_BUILD_DIR "/test_errors_io_link") == 0);
    FAILS_R(ct_save_npy(CT_BUILD_DIR "/test_errors_io_link", t), CT_ERR_IO,
            "[Errno 2] No such file or directory: '" CT_BUILD_DIR "/test_errors_io_link'");
}
#endif

int main(void)
{
    RUN(test_load_errors);
    RUN(test_save_errors);
    RUN_NOT_ON_WINDOWS(test_save_path_errors, "symbolic links, and Linux's errno texts for paths");
    return ct_test_report();
}
