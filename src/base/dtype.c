/* Dtypes, type promotion, scalars, shapes. */

static ct_dtype ct__default_dtype = CT_F32;

const char *ct_dtype_name(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: return "bool";
    case CT_U8: return "uint8";
    case CT_I8: return "int8";
    case CT_I16: return "int16";
    case CT_I32: return "int32";
    case CT_I64: return "int64";
    case CT_F16: return "float16";
    case CT_BF16: return "bfloat16";
    case CT_F32: return "float32";
    case CT_F64: return "float64";
    case CT_DEFAULT: break;
    }
    return "default";
}

size_t ct_dtype_size(ct_dtype dt)
{
    bool real = dt > CT_DEFAULT && dt < CT_NUM_DTYPES;
    return ct__dtype_sizes[real ? dt : ct__default_dtype];
}

bool ct_dtype_is_floating(ct_dtype dt)
{
    return dt == CT_F16 || dt == CT_BF16 || dt == CT_F32 || dt == CT_F64;
}

static bool ct__dtype_valid(ct_dtype dt) { return dt >= CT_BOOL && dt <= CT_F64; }
/* A dtype argument: CT_DEFAULT or a real dtype. */
static ct_result ct__check_dtype(ct_dtype dtype)
{
    if (dtype == CT_DEFAULT || ct__dtype_valid(dtype)) return CT_OK;
    return ct__fail(CT_ERR_TYPE, "invalid dtype %d", (int)dtype);
}

static bool ct__is_integral(ct_dtype dt) { return dt >= CT_U8 && dt <= CT_I64; }

/* The C++ type name c10 prints in conversion errors. */
static const char *ct__dtype_cname(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: return "bool";
    case CT_U8: return "uint8_t";
    case CT_I8: return "int8_t";
    case CT_I16: return "int16_t";
    case CT_I32: return "int";
    case CT_I64: return "int64_t";
    case CT_F16: return "at::Half";
    case CT_BF16: return "at::BFloat16";
    case CT_F32: return "float";
    case CT_F64: case CT_DEFAULT: break;
    }
    return "double";
}

ct_result ct_set_default_dtype(ct_dtype dt)
{
    if (!ct_dtype_is_floating(dt))
        return ct__fail(CT_ERR_TYPE, "only floating-point types are supported as the default type");
    ct__default_dtype = dt;
    return CT_OK;
}

ct_dtype ct_get_default_dtype(void) { return ct__default_dtype; }

/* CT_DEFAULT resolved to the default dtype. */
static ct_dtype ct__resolve(ct_dtype dt) { return dt == CT_DEFAULT ? ct__default_dtype : dt; }

/* c10's ScalarType name, as dispatch errors print it ("not implemented for 'Long'",
 * "result type Float can't be cast ..."). */
static const char *ct__dtype_title(ct_dtype dt)
{
    static const char *const names[CT_NUM_DTYPES] = {"Float", "Bool", "Byte",     "Char",  "Short", "Int",
                                                     "Long",  "Half", "BFloat16", "Float", "Double"};
    return ct__dtype_valid(dt) || dt == CT_DEFAULT ? names[ct__resolve(dt)] : "Undefined";
}

/* caffe2::TypeMeta's name, as bounds checks print it. */
static const char *ct__type_meta_name(ct_dtype dt)
{
    static const char *const names[CT_NUM_DTYPES] = {"float",     "bool",          "unsigned char", "signed char",
                                                     "short int", "int",           "long int",      "c10::Half",
                                                     "c10::BFloat16", "float",     "double"};
    return ct__dtype_valid(dt) || dt == CT_DEFAULT ? names[ct__resolve(dt)] : "Undefined";
}

/* The legacy tensor type name ("torch.FloatTensor") some messages use. */
static const char *ct__legacy_type_name(ct_dtype dt)
{
    switch (dt) {
    case CT_BOOL: return "torch.BoolTensor";
    case CT_U8: return "torch.ByteTensor";
    case CT_I8: return "torch.CharTensor";
    case CT_I16: return "torch.ShortTensor";
    case CT_I32: return "torch.IntTensor";
    case CT_I64: return "torch.LongTensor";
    case CT_F16: return "torch.HalfTensor";
    case CT_BF16: return "torch.BFloat16Tensor";
    case CT_F64: return "torch.DoubleTensor";
    default: return "torch.FloatTensor";
    }
}

/* A kernel PyTorch lacks for a dtype: "\"arange_cpu\" not implemented for 'Bool'". */
static ct_result ct__not_implemented(const char *kernel, ct_dtype dt)
{
    return ct__fail(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel, ct__dtype_title(dt));
}


ct_dtype ct_promote_types(ct_dtype a, ct_dtype b)
{
    a = ct__resolve(a);
    b = ct__resolve(b);
    if (!ct__dtype_valid(a) || !ct__dtype_valid(b)) return CT_DEFAULT;
    if (a == b) return a;
    if (a == CT_BOOL) return b;
    if (b == CT_BOOL) return a;
    if (ct__is_integral(a) && ct__is_integral(b)) {
        if (a == CT_U8 || b == CT_U8) { /* uint8 with a signed type needs the next signed width */
            ct_dtype other = a == CT_U8 ? b : a;
            return other == CT_I8 ? CT_I16 : other;
        }
        return a > b ? a : b;
    }
    if (ct__is_integral(a)) return b;
    if (ct__is_integral(b)) return a;
    if ((a == CT_F16 && b == CT_BF16) || (a == CT_BF16 && b == CT_F16)) return CT_F32;
    return a > b ? a : b;
}

bool ct_can_cast(ct_dtype from, ct_dtype to)
{
    from = ct__resolve(from);
    to = ct__resolve(to);
    if (ct_dtype_is_floating(from) && !ct_dtype_is_floating(to) && to != CT_BOOL) return false;
    if (from != CT_BOOL && to == CT_BOOL) return false;
    return true;
}

ct_scalar ct_int(int64_t v)
{
    ct_scalar s;
    s.kind = CT_I64;
    s.v.i = v;
    return s;
}

ct_scalar ct_float(double v)
{
    ct_scalar s;
    s.kind = CT_F64;
    s.v.f = v;
    return s;
}

ct_scalar ct_bool(bool v)
{
    ct_scalar s;
    s.kind = CT_BOOL;
    s.v.b = v;
    return s;
}

double ct_scalar_to_double(ct_scalar s)
{
    return s.kind == CT_F64 ? s.v.f : s.kind == CT_BOOL ? (double)s.v.b : (double)s.v.i;
}

ct_shape ct_shape_make(int ndim, const int64_t *size)
{
    ct_shape s;
    memset(&s, 0, sizeof s);
    s.ndim = ndim;
    if (ndim >= 0 && ndim <= CT_MAX_DIMS && size) memcpy(s.size, size, (size_t)ndim * sizeof(int64_t));
    return s;
}

static double ct__read_f64(const void *p, ct_dtype dt)
{
#define CT__READ(name, DT, _) \
    case DT: return (double)ct__load_##name(*(const ct__##name##_t *)p);
    switch (dt) { CT__DTYPES_A(CT__READ, _) default: break; }
#undef CT__READ
    return 0;
}

static int64_t ct__read_i64(const void *p, ct_dtype dt)
{
#define CT__READ(name, DT, _) \
    case DT: return CT__CONVERT(name, i64, *(const ct__##name##_t *)p);
    switch (dt) { CT__DTYPES_A(CT__READ, _) default: break; }
#undef CT__READ
    return 0;
}

static void ct__write_f64(void *p, ct_dtype dt, double v)
{
#define CT__WRITE(name, DT, _) \
    case DT: *(ct__##name##_t *)p = ct__to_##name##_from_f64(v); return;
    switch (dt) { CT__DTYPES_A(CT__WRITE, _) default: break; }
#undef CT__WRITE
}

static void ct__write_i64(void *p, ct_dtype dt, int64_t v)
{
#define CT__WRITE(name, DT, _) \
    case DT: *(ct__##name##_t *)p = ct__to_##name##_from_i64(v); return;
    switch (dt) { CT__DTYPES_A(CT__WRITE, _) default: break; }
#undef CT__WRITE
}

/* Whether c10's checked_convert refuses the scalar for dtype dt: a value
 * outside the dtype's range, or NaN for an integer dtype. Negative ints may
 * wrap into uint8 (-255 and up); infinities and NaN fit every floating dtype;
 * bool takes anything. */
static bool ct__scalar_overflows(ct_scalar s, ct_dtype dt)
{
    if (s.kind == CT_F64) {
        double f = s.v.f, lo, hi;
        switch (dt) {
        case CT_U8: lo = 0, hi = 255; break; /* floats do not wrap, unlike ints below */
        case CT_I8: lo = -128, hi = 127; break;
        case CT_I16: lo = -32768, hi = 32767; break;
        case CT_I32: lo = -2147483648.0, hi = 2147483647.0; break;
        case CT_I64: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break; /* hi rounds to 2^63 */
        case CT_F16: lo = -65504, hi = 65504; break;
        case CT_BF16: lo = -3.3895313892515355e38, hi = 3.3895313892515355e38; break;
        case CT_F32: lo = -FLT_MAX, hi = FLT_MAX; break;
        default: return false;
        }
        if (ct__is_integral(dt)) return f != f || f < lo || f > hi;
        return !isinf(f) && (f < lo || f > hi);
    }
    int64_t i = s.kind == CT_BOOL ? (int64_t)s.v.b : s.v.i;
    switch (dt) {
    case CT_U8: return i > 255 || i < -255; /* negatives wrap (two's complement) */
    case CT_I8: return i < -128 || i > 127;
    case CT_I16: return i < -32768 || i > 32767;
    case CT_I32: return i < INT32_MIN || i > INT32_MAX;
    case CT_F16: return i < -65504 || i > 65504;
    default: return false;
    }
}

/* A scalar as one element of dtype dt, refusing values that overflow it, as
 * c10's checked_convert does (fill_, full, masked_fill). */
static ct_result ct__scalar_to_elem(ct_scalar s, ct_dtype dt, void *out)
{
    dt = ct__resolve(dt);
    if (ct__scalar_overflows(s, dt))
        return ct__fail(CT_ERR_RUNTIME, "value cannot be converted to type %s without overflow", ct__dtype_cname(dt));
    if (s.kind == CT_F64) ct__write_f64(out, dt, s.v.f);
    else ct__write_i64(out, dt, s.kind == CT_BOOL ? (int64_t)s.v.b : s.v.i);
    return CT_OK;
}
