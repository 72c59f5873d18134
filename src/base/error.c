/* Errors: a thread-local message worded like PyTorch's, and an optional handler. */

static CT__TLS char ct__err_msg[1024];
static CT__TLS ct_result ct__err_code = CT_OK;
static ct_error_handler ct__err_handler = NULL;
static void *ct__err_handler_user = NULL;

const char *ct_result_str(ct_result r)
{
    switch (r) {
    case CT_OK: return "OK";
    case CT_ERR_RUNTIME: return "RuntimeError";
    case CT_ERR_VALUE: return "ValueError";
    case CT_ERR_TYPE: return "TypeError";
    case CT_ERR_INDEX: return "IndexError";
    case CT_ERR_NOT_IMPLEMENTED: return "NotImplementedError";
    case CT_ERR_MEMORY: return "MemoryError";
    case CT_ERR_IO: return "IOError";
    case CT_ERR_KEY: return "KeyError";
    case CT_ERR_ATTRIBUTE: return "AttributeError";
    }
    return "UnknownError";
}

const char *ct_last_error(void) { return ct__err_code == CT_OK ? "" : ct__err_msg; }
ct_result ct_last_error_code(void) { return ct__err_code; }
void ct_clear_error(void) { ct__err_code = CT_OK; ct__err_msg[0] = 0; }

void ct_set_error_handler(ct_error_handler handler, void *user)
{
    ct__err_handler = handler;
    ct__err_handler_user = user;
}

static ct_result ct__fail(ct_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ct__err_msg, sizeof ct__err_msg, fmt, ap);
    va_end(ap);
    ct__err_code = code;
    if (ct__err_handler) ct__err_handler(code, ct__err_msg, ct__err_handler_user);
    return code;
}

ct_result ct_set_error(ct_result code, const char *message)
{
    return ct__fail(code == CT_OK ? CT_ERR_RUNTIME : code, "%s", message ? message : "");
}

static ct_result ct__null_arg(const char *fn, const char *arg, int position)
{
    if (ct__err_code != CT_OK) return ct__err_code; /* a failure earlier in the chain */
    if (strncmp(fn, "ct_", 3) == 0) fn += 3;
    return ct__fail(CT_ERR_TYPE, "%s(): argument '%s' (position %d) must be Tensor, not NULL", fn, arg,
                    position);
}
