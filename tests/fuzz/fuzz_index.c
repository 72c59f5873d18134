/* Index strings: x[spec] and x[spec] = value on a few shapes. '%' is left
 * out: %d and %t read C arguments the fuzzer cannot give. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = ct_fuzz_string(data, size);
    for (char *p = spec; *p; p++)
        if (*p == '%') *p = ' ';
    ct_scope s = ct_scope_begin();
    static const int64_t shapes[][4] = {{3, 4, 0, 0}, {2, 3, 4, 0}, {1, 0, 2, 0}, {5, 0, 0, 0}};
    static const int ndims[] = {2, 3, 3, 1};
    for (int k = 0; k < 4; k++) {
        ct_tensor *x = ct_arange(ct_int(0), ct_int(24), ct_int(1), CT_F32);
        x = ct_reshape(ct_narrow(x, 0, 0, ct_numel(ct_zeros(ct_shape_make(ndims[k], shapes[k]), CT_F32))),
                       ct_shape_make(ndims[k], shapes[k]));
        if (!x) abort();
        ct_tensor *r = ct_index(x, spec);
        ct_fuzz_check(r != NULL);
        if (r) {
            char buf[4096];
            ct_to_string(r, buf, sizeof buf);
            ct_fuzz_check(ct_index_put_(ct_clone(x), ct_ones(CT_SHAPE(1), CT_F32), spec) == CT_OK);
        }
    }
    ct_scope_end(s);
    free(spec);
    return 0;
}
