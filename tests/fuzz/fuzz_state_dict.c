/* State dicts from files (torch.save or safetensors) loaded into a model:
 * strict and not. A failed strict load leaves the model as it was. */
#include "fuzz.h"

static ct_module *model(void)
{
    ct_module *layers[] = {ct_nn_linear(2, 3, true), ct_nn_relu(), ct_nn_linear(3, 1, false)};
    return ct_nn_sequential(layers, 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_scope s = ct_scope_begin();
    ct_tensor_list l;
    ct_result r = ct_load(ct_fuzz_file(data, size, ".bin"), &l);
    ct_fuzz_check(r == CT_OK);
    if (r == CT_OK) {
        ct_module *m = model();
        if (!m) abort();
        ct_tensor_list before = ct_module_state_dict(m);
        ct_tensor *copy = ct_clone(before.tensors[0]);
        r = ct_module_load_state_dict(m, &l, true, NULL);
        ct_fuzz_check(r == CT_OK);
        if (r != CT_OK && !ct_equal(before.tensors[0], copy)) abort(); /* half loaded */
        ct_incompatible_keys keys;
        memset(&keys, 0, sizeof keys);
        ct_fuzz_check(ct_module_load_state_dict(m, &l, false, &keys) == CT_OK);
        ct_incompatible_keys_free(&keys);
        ct_tensor_list_free(&before);
        ct_tensor_list_free(&l);
        ct_module_release(m);
    }
    ct_scope_end(s);
    return 0;
}
