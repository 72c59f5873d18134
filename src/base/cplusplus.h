/* C++ only: CT_SHAPE(...) without C's compound literals. */
#ifdef __cplusplus
#include <initializer_list>
inline ct_shape ct_shape_of(std::initializer_list<int64_t> sizes)
{
    ct_shape s{};
    for (int64_t v : sizes) {
        if (s.ndim == CT_MAX_DIMS) { s.ndim = CT_MAX_DIMS + 1; break; } /* rejected by the callee */
        s.size[s.ndim++] = v;
    }
    return s;
}
#endif
