/* safetensors files: every tensor read whole. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_scope s = ct_scope_begin();
    ct_tensor_list l;
    ct_metadata meta;
    ct_result r = ct_load_safetensors(ct_fuzz_file(data, size, ".safetensors"), &l, &meta);
    ct_fuzz_check(r == CT_OK);
    for (int i = 0; r == CT_OK && i < l.n; i++) ct_sum(ct_to(l.tensors[i], CT_F64));
    ct_clear_error();
    if (r == CT_OK) {
        ct_tensor_list_free(&l);
        ct_metadata_free(&meta);
    }
    ct_scope_end(s);
    return 0;
}
