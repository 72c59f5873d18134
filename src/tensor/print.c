/* Printing: repr(t) exactly as PyTorch 1.13 writes it. The functions follow
 * torch/_tensor_str.py one for one (_Formatter, _vector_str,
 * _tensor_str_with_formatter, _add_suffixes, _str_intern), so that a change
 * there maps to one place here. Elements are read in place through the
 * strides: printing makes no tensor and allocates nothing (ct_print aside). */

/* ---------------------------------------------------------------- options */

/* torch._tensor_str.PRINT_OPTS: one per process, as in Python. */
static ct_print_opts ct__print_opts = {4, 1000, 3, 80, 0};

ct_print_opts ct_print_opts_init(void)
{
    ct_print_opts o = {4, 1000, 3, 80, 0};
    return o;
}

ct_print_opts ct_get_printoptions(void) { return ct__print_opts; }

ct_result ct_set_printoptions(ct_print_opts opts)
{
    /* Python would fail later, formatting with '{:.-1f}'; refuse now instead.
     * A negative threshold or linewidth is meaningful (summarize everything,
     * one element per line). */
    if (opts.precision < 0 || opts.edgeitems < 0)
        return ct__fail(CT_ERR_VALUE, "set_printoptions(): precision and edgeitems must be non-negative, got %d and %d",
                        opts.precision, opts.edgeitems);
    opts.sci_mode = opts.sci_mode > 0 ? 1 : opts.sci_mode < 0 ? -1 : 0;
    ct__print_opts = opts;
    return CT_OK;
}

/* ---------------------------------------------------------------- output */

/* Text goes to buf with snprintf's contract: len counts every character
 * produced, buf keeps the first n - 1. With n == 0 the sink only counts,
 * which is how element widths are measured. */
typedef struct ct__sink {
    char *buf;
    size_t n;
    size_t len;
    size_t line_start; /* where the last line began, for _add_suffixes */
} ct__sink;

static void ct__sink_write(ct__sink *s, const char *text, size_t k)
{
    if (s->len < s->n) memcpy(s->buf + s->len, text, CT__MIN(k, s->n - s->len));
    s->len += k;
}

/* text holds no newline (ct__sink_newlines writes those). */
static void ct__sink_puts(ct__sink *s, const char *text) { ct__sink_write(s, text, strlen(text)); }

static void ct__sink_spaces(ct__sink *s, int64_t k)
{
    static const char spaces[] = "                                ";
    for (; k > 0; k -= (int64_t)(sizeof spaces - 1))
        ct__sink_write(s, spaces, (size_t)CT__MIN(k, (int64_t)(sizeof spaces - 1)));
}

static void ct__sink_newlines(ct__sink *s, int k)
{
    for (; k > 0; k--) ct__sink_write(s, "\n", 1);
    s->line_start = s->len;
}

/* A formatted number (never a newline), written straight into buf. */
static void ct__sink_printf(ct__sink *s, const char *fmt, ...) CT__PRINTF(2, 3);
static void ct__sink_printf(ct__sink *s, const char *fmt, ...)
{
    size_t room = s->len < s->n ? s->n - s->len : 0;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(room ? s->buf + s->len : NULL, room, fmt, ap);
    va_end(ap);
    if (k > 0) s->len += (size_t)k;
}

/* ---------------------------------------------------------------- _Formatter */

/* How floating values are written: "{:.4f}", "{:.0f}" plus ".", or "{:.4e}". */
typedef enum ct__mode { CT__FIXED, CT__INTEGRAL, CT__SCI } ct__mode;

typedef struct ct__fmt {
    const ct_tensor *t; /* the sizes shown; its elements in memory the host reads */
    const int64_t *skip; /* per dim: middle elements the memory leaves out (NULL: none) */
    ct_print_opts o; /* the options when printing began */
    bool summarize;  /* numel > threshold: only edgeitems per dim are shown */
    ct__mode mode;
    int64_t width;
    /* the nonzero finite values shown: smallest and largest magnitude
     * (hi == 0 when there is none), and whether all are integers */
    double lo, hi;
    bool integral;
} ct__fmt;

/* Whether a dim of size n is cut to its edges, as get_summarized_data does. */
static bool ct__cut(const ct__fmt *f, int64_t n) { return f->summarize && n > 2 * (int64_t)f->o.edgeitems; }

static const char *ct__at(const ct__fmt *f, const char *p, int dim, int64_t i)
{
    if (f->skip && i >= f->o.edgeitems) i -= f->skip[dim];
    return p + (ptrdiff_t)(i * f->t->strides[dim]) * (ptrdiff_t)ct__esize(f->t);
}

/* Call fn on every element that will be shown, in order: what the _Formatter
 * iterates over (get_summarized_data(t) when summarizing). */
static void ct__visit(ct__fmt *f, int dim, const char *p, void (*fn)(ct__fmt *f, const char *p))
{
    if (dim == f->t->ndim) {
        fn(f, p);
        return;
    }
    int64_t n = f->t->sizes[dim];
    for (int64_t i = 0; i < n; i++) {
        if (ct__cut(f, n) && i == f->o.edgeitems) i = n - f->o.edgeitems;
        ct__visit(f, dim + 1, ct__at(f, p, dim, i), fn);
    }
}

/* One element without padding: Python's str() of the value from tolist(),
 * which for floating dtypes is a double (float16 and bfloat16 widen exactly). */
static void ct__put_value(ct__sink *s, const ct__fmt *f, const char *p)
{
    ct_dtype dt = f->t->dtype;
    if (dt == CT_BOOL) {
        ct__sink_puts(s, ct__read_i64(p, dt) ? "True" : "False");
        return;
    }
    if (!ct_dtype_is_floating(dt)) {
        ct__sink_printf(s, "%lld", (long long)ct__read_i64(p, dt));
        return;
    }
    double v = ct__read_f64(p, dt);
    if (isnan(v)) ct__sink_puts(s, "nan"); /* Python drops a NaN's sign, glibc writes "-nan" */
    else if (isinf(v)) ct__sink_puts(s, v < 0 ? "-inf" : "inf");
    else if (f->mode == CT__SCI) ct__sink_printf(s, "%.*e", f->o.precision, v);
    else if (f->mode == CT__INTEGRAL) ct__sink_printf(s, "%.0f.", v);
    else ct__sink_printf(s, "%.*f", f->o.precision, v);
}

static int64_t ct__value_len(const ct__fmt *f, const char *p)
{
    ct__sink count = {NULL, 0, 0, 0};
    ct__put_value(&count, f, p);
    return (int64_t)count.len;
}

/* _Formatter.format: right-aligned to the common width. */
static void ct__put_elem(ct__sink *s, const ct__fmt *f, const char *p)
{
    ct__sink_spaces(s, f->width - ct__value_len(f, p));
    ct__put_value(s, f, p);
}

static void ct__scan(ct__fmt *f, const char *p)
{
    double v = ct__read_f64(p, f->t->dtype);
    if (!isfinite(v) || v == 0) return;
    f->lo = CT__MIN(f->lo, fabs(v));
    f->hi = CT__MAX(f->hi, fabs(v));
    if (v != ceil(v)) f->integral = false;
}

/* Only nonzero finite values count toward a floating width: nan, inf and 0
 * may be wider or narrower than the others, as in PyTorch. */
static void ct__measure(ct__fmt *f, const char *p)
{
    if (ct_dtype_is_floating(f->t->dtype)) {
        double v = ct__read_f64(p, f->t->dtype);
        if (!isfinite(v) || v == 0) return;
    }
    f->width = CT__MAX(f->width, ct__value_len(f, p));
}

/* _Formatter.__init__. */
static void ct__fmt_init(ct__fmt *f, const ct_tensor *t, const int64_t *skip)
{
    bool floating = ct_dtype_is_floating(t->dtype);
    f->t = t;
    f->skip = skip;
    f->o = ct__print_opts;
    f->summarize = ct_numel(t) > f->o.threshold;
    f->mode = CT__INTEGRAL;
    f->width = 1;
    f->lo = INFINITY;
    f->hi = 0;
    f->integral = true;
    if (floating) {
        ct__visit(f, 0, ct__data(t), ct__scan);
        if (f->hi == 0) return; /* PyTorch returns before looking at sci_mode */
        bool sci = f->hi / f->lo > 1000.0 || f->hi > 1.0e8 || (!f->integral && f->lo < 1.0e-4);
        f->mode = sci ? CT__SCI : f->integral ? CT__INTEGRAL : CT__FIXED;
    }
    ct__visit(f, 0, ct__data(t), ct__measure);
    /* sci_mode set by the user overrides the choice only now, after the
     * widths were measured in the format chosen automatically */
    if (floating && f->o.sci_mode) f->mode = f->o.sci_mode > 0 ? CT__SCI : f->integral ? CT__INTEGRAL : CT__FIXED;
}

/* ---------------------------------------------------------------- layout */

/* Before the item-th item of a row: a new line every per_line items. */
static void ct__put_item_sep(ct__sink *s, int64_t item, int64_t per_line, int64_t indent)
{
    if (item == 0) return;
    if (item % per_line) {
        ct__sink_puts(s, ", ");
        return;
    }
    ct__sink_puts(s, ",");
    ct__sink_newlines(s, 1);
    ct__sink_spaces(s, indent + 1);
}

/* _vector_str: a 1-D row wrapped to the linewidth. When summarizing, " ..."
 * stands for the middle and takes an item's place in the line. */
static void ct__put_vector(ct__sink *s, const ct__fmt *f, const char *p, int64_t indent)
{
    int dim = f->t->ndim - 1;
    int64_t n = f->t->sizes[dim], room = (int64_t)f->o.linewidth - indent, item = 0;
    int64_t per_line = room > 0 ? CT__MAX(1, room / (f->width + 2)) : 1;
    ct__sink_puts(s, "[");
    for (int64_t i = 0; i < n; i++) {
        if (ct__cut(f, n) && i == f->o.edgeitems) {
            ct__put_item_sep(s, item++, per_line, indent);
            ct__sink_puts(s, " ...");
            i = n - f->o.edgeitems;
        }
        ct__put_item_sep(s, item++, per_line, indent);
        ct__put_elem(s, f, ct__at(f, p, dim, i));
    }
    ct__sink_puts(s, "]");
}

/* The separator between slices of a dim with `rest` dims below it. */
static void ct__put_slice_sep(ct__sink *s, int rest, int64_t indent)
{
    ct__sink_puts(s, ",");
    ct__sink_newlines(s, rest - 1);
    ct__sink_spaces(s, indent + 1);
}

/* _tensor_str_with_formatter: dims from `dim` on, each one level deeper. */
static void ct__put_tensor(ct__sink *s, const ct__fmt *f, int dim, const char *p, int64_t indent)
{
    int rest = f->t->ndim - dim;
    if (rest == 0) {
        ct__put_elem(s, f, p);
        return;
    }
    if (rest == 1) {
        ct__put_vector(s, f, p, indent);
        return;
    }
    int64_t n = f->t->sizes[dim];
    ct__sink_puts(s, "[");
    for (int64_t i = 0; i < n; i++) {
        if (i > 0) ct__put_slice_sep(s, rest, indent);
        if (ct__cut(f, n) && i == f->o.edgeitems) {
            ct__sink_puts(s, "...");
            ct__put_slice_sep(s, rest, indent);
            i = n - f->o.edgeitems;
        }
        ct__put_tensor(s, f, dim + 1, ct__at(f, p, dim, i), indent + 1);
    }
    ct__sink_puts(s, "]");
}

/* ---------------------------------------------------------------- repr */

#define CT__SUFFIX_MAX 512
#define CT__SUFFIXES 4

/* The suffixes _str_intern adds for a CPU tensor, in its order; their count. */
static int ct__suffixes(const ct_tensor *t, char out[CT__SUFFIXES][CT__SUFFIX_MAX])
{
    int k = 0;
    ct_dtype def = ct_get_default_dtype();
    const char *grad_fn = ct_node_name(ct_grad_fn(t)); /* "AddBackward0", NULL for a leaf */
    if (t->storage->device.type != CT_DEVICE_CPU) {
        char dev[64];
        snprintf(out[k++], CT__SUFFIX_MAX, "device='%s'", ct_device_str(t->storage->device, dev, sizeof dev));
    }
    if (ct_numel(t) == 0) {
        /* the shape is shown unless it is (0,); an empty tensor has no values
         * to tell int64 from float, so only the default dtype goes unnamed */
        if (t->ndim != 1) {
            char shape[CT__SUFFIX_MAX - 8]; /* room for "size=(" and ")" */
            ct__shape_str(t->sizes, t->ndim, shape, sizeof shape);
            shape[strlen(shape) - 1] = 0;
            snprintf(out[k++], CT__SUFFIX_MAX, "size=(%s)", shape + 1);
        }
        if (t->dtype != def) snprintf(out[k++], CT__SUFFIX_MAX, "dtype=torch.%s", ct_dtype_name(t->dtype));
    } else if (t->dtype != def && t->dtype != CT_I64 && t->dtype != CT_BOOL) {
        snprintf(out[k++], CT__SUFFIX_MAX, "dtype=torch.%s", ct_dtype_name(t->dtype));
    }
    if (grad_fn) snprintf(out[k++], CT__SUFFIX_MAX, "grad_fn=<%s>", grad_fn);
    else if (ct_requires_grad(t)) snprintf(out[k++], CT__SUFFIX_MAX, "requires_grad=True");
    return k;
}

/* _add_suffixes: each suffix goes on the last line while it fits in the
 * linewidth, else on a new line at the indent. */
static void ct__put_suffixes(ct__sink *s, char suffixes[CT__SUFFIXES][CT__SUFFIX_MAX], int count, int64_t indent)
{
    /* PyTorch's len(str) - str.rfind("\n") + 1: two more than the last line */
    int64_t last = (int64_t)(s->len - s->line_start) + 2;
    for (int i = 0; i < count; i++) {
        int64_t len = (int64_t)strlen(suffixes[i]);
        if (last + len + 2 > ct__print_opts.linewidth) {
            ct__sink_puts(s, ",");
            ct__sink_newlines(s, 1);
            ct__sink_spaces(s, indent);
            last = indent + len;
        } else {
            ct__sink_puts(s, ", ");
            last += len + 2;
        }
        ct__sink_puts(s, suffixes[i]);
    }
    ct__sink_puts(s, ")");
}

/* What printing shows of a device tensor t, copied to the host: each dim
 * cut to its edges when summarizing (get_summarized_data, on the device),
 * skip[d] elements left out of dim d's middle. Printing synchronises, as
 * in PyTorch. */
static const ct_tensor *ct__shown_on_host(const ct_tensor *t, int64_t *skip)
{
    int64_t edge = ct__print_opts.edgeitems;
    bool summarize = ct_numel(t) > ct__print_opts.threshold;
    ct_tensor *s = (ct_tensor *)t;
    ct_grad_mode mode = ct_set_grad_enabled(false);
    for (int d = 0; d < t->ndim && s; d++) {
        int64_t n = t->sizes[d];
        skip[d] = summarize && n > 2 * edge ? n - 2 * edge : 0;
        if (!skip[d]) continue;
        ct_tensor *edges[2] = {ct_narrow(s, d, 0, edge), ct_narrow(s, d, n - edge, edge)};
        s = edges[0] && edges[1] ? ct_cat(edges, 2, d) : NULL;
    }
    ct_grad_mode_restore(mode);
    return s ? ct__host(s) : NULL;
}

/* _str_intern for a strided tensor. */
static void ct__put_repr(ct__sink *s, const ct_tensor *t)
{
    static const char prefix[] = "tensor(";
    const int64_t indent = (int64_t)sizeof prefix - 1;
    char suffixes[CT__SUFFIXES][CT__SUFFIX_MAX];
    ct__sink_puts(s, prefix);
    if (ct_numel(t) == 0) {
        ct__sink_puts(s, "[]");
    } else {
        ct_scope scope = ct_scope_begin();
        int64_t skip[CT_MAX_DIMS];
        bool device = t->storage->device.type != CT_DEVICE_CPU;
        const ct_tensor *h = device ? ct__shown_on_host(t, skip) : t;
        ct_tensor shown; /* the host's elements with t's sizes */
        ct__fmt f;
        if (h) {
            shown = *h;
            memcpy(shown.sizes, t->sizes, sizeof shown.sizes);
            ct__fmt_init(&f, &shown, device ? skip : NULL);
            ct__put_tensor(s, &f, 0, ct__data(h), indent);
        }
        ct_scope_end(scope);
    }
    ct__put_suffixes(s, suffixes, ct__suffixes(t, suffixes), indent);
}

int ct_to_string(const ct_tensor *t, char *buf, size_t n)
{
    ct__sink s = {buf, buf ? n : 0, 0, 0};
    if (s.n) buf[0] = 0;
    if (!t) return (int)ct__null_arg(__func__, "self", 1);
    if (ct__history_check(&t, 1) != CT_OK) return (int)ct_last_error_code(); /* its grad_fn is part of the repr */
    ct__put_repr(&s, t);
    if (s.n) buf[CT__MIN(s.len, s.n - 1)] = 0;
    if (s.len > INT_MAX) /* what snprintf does (EOVERFLOW) */
        return (int)ct__fail(CT_ERR_VALUE, "repr of %lld characters is longer than INT_MAX", (long long)s.len);
    return (int)s.len;
}

void ct_print(const ct_tensor *t)
{
    char small[1024], *text = small;
    if (!t) {
        ct__null_arg(__func__, "self", 1);
        return;
    }
    int len = ct_to_string(t, small, sizeof small);
    if (len < 0) return;
    if ((size_t)len >= sizeof small) { /* measured first: the second pass fills it */
        text = (char *)CT_MALLOC((size_t)len + 1);
        if (!text) {
            CT__OOM();
            return;
        }
        ct_to_string(t, text, (size_t)len + 1);
    }
    fwrite(text, 1, (size_t)len, stdout);
    fputc('\n', stdout);
    if (text != small) CT_FREE(text);
}

void ct_print_shape(const ct_tensor *t)
{
    char shape[CT__SUFFIX_MAX];
    if (!t) {
        ct__null_arg(__func__, "self", 1);
        return;
    }
    printf("torch.Size(%s)\n", ct__shape_str(t->sizes, t->ndim, shape, sizeof shape));
}
