/* CSV files (numpy.loadtxt), with the first byte choosing the options. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    static const ct_dtype dtypes[] = {CT_F32, CT_F64, CT_I64, CT_U8};
    ct_csv_opts o = {data[0] & 0x10 ? ';' : 0, (data[0] >> 5) & 3, dtypes[data[0] & 3]};
    ct_scope s = ct_scope_begin();
    ct_tensor *t = ct_read_csv(ct_fuzz_file(data + 1, size - 1, ".csv"), o);
    ct_fuzz_check(t != NULL);
    ct_scope_end(s);
    return 0;
}
