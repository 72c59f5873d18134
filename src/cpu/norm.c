/* Batch normalisation's statistics (ct__bn_stats_job). */

/* Batch norm's statistics, the channels in turn (src/ops/reduce_formulas.h). */
static void ct__cpu_bn_stats(const ct__bn_stats_job *j)
{
    for (int64_t ch = 0; ch < j->c; ch++) {
        if (j->dtype == CT_F32 && j->rows)
            ct__bn_stats_column_float((const float *)j->x, j->count, j->c, ch, (float *)j->mean, (float *)j->var_sum);
        else if (j->dtype == CT_F32)
            ct__bn_stats_plane_float((const float *)j->x, j->n, j->c, j->image, ch, (float *)j->mean,
                                     (float *)j->var_sum);
        else if (j->rows)
            ct__bn_stats_column_double((const double *)j->x, j->count, j->c, ch, (double *)j->mean,
                                       (double *)j->var_sum);
        else
            ct__bn_stats_plane_double((const double *)j->x, j->n, j->c, j->image, ch, (double *)j->mean,
                                      (double *)j->var_sum);
    }
}

/* ---- layer norm's rows (float32), forward and backward each one pass over
 * the rows. The arithmetic is nn/functional.c's composite of ops, operation
 * for operation, so the results keep their bits: var_mean's Welford rows in
 * double, rstd = 1 / sqrtf(var + eps), xhat = x * rstd - mean * rstd, and in
 * the backward mean_dim's cascade sums (divided by n as a float). Plain
 * products and sums stay unfused (ISO C modes contract nothing). */

typedef struct ct__ln_rows_job {
    const float *x, *g, *w, *b; /* x, g (rows, n); w, b (n) or NULL; g NULL in the forward */
    float *y;                   /* y or grad_input (rows, n), or NULL */
    float *gxhat;               /* g * xhat (rows, n) for the weight's gradient, or NULL */
    int64_t n;
    float eps;
    long failed; /* chunks that found no memory for their scratch */
} ct__ln_rows_job;

/* x (rows, n) -> mean (rows), rstd (rows): Welford's rows CT__EACH_ROWS at a
 * time, the last row repeated to fill the last group */
static void ct__ln_stats_f32(const float *x, int64_t rows, int64_t n, float eps, float *mean, float *rstd)
{
    for (int64_t r0 = 0; r0 < rows; r0 += CT__EACH_ROWS) {
        ct__welford acc[CT__EACH_ROWS], *w[CT__EACH_ROWS];
        const char *xr[CT__EACH_ROWS];
        memset(acc, 0, sizeof acc);
        for (int k = 0; k < CT__EACH_ROWS; k++) {
            w[k] = &acc[k];
            xr[k] = (const char *)(x + CT__MIN(r0 + k, rows - 1) * n);
        }
        ct__welford_rows_float(w, xr, sizeof(float), n);
        for (int k = 0; k < CT__EACH_ROWS && r0 + k < rows; k++) {
            float var = (float)(acc[k].m2 / (double)n);
            mean[r0 + k] = (float)acc[k].mean;
            rstd[r0 + k] = 1.0f / sqrtf(var + eps);
        }
    }
}

/* xhat (n) of one row x (n) */
static void ct__ln_xhat_f32(const float *x, int64_t n, float mean, float rstd, float *xhat)
{
    float mr = mean * rstd;
    for (int64_t j = 0; j < n; j++) xhat[j] = x[j] * rstd - mr;
}

/* mean_dim of one row v (n): its cascade sum, then divided by n */
static float ct__ln_row_mean_f32(const float *v, int64_t n)
{
    float sum = 0;
    int64_t strides[4] = {0, sizeof(float), 0, n * (int64_t)sizeof(float)};
    ct__csum_f32((char *)&sum, (const char *)v, strides, n, 1, NULL);
    return sum / (float)n;
}

/* y (n) = xhat * w + b of one row, w and b optional */
static void ct__ln_forward_row_f32(const ct__ln_rows_job *j, const float *x, float mean, float rstd, float *y)
{
    ct__ln_xhat_f32(x, j->n, mean, rstd, y);
    if (j->w)
        for (int64_t i = 0; i < j->n; i++) y[i] = y[i] * j->w[i];
    if (j->b)
        for (int64_t i = 0; i < j->n; i++) y[i] = y[i] + j->b[i];
}

/* One row's gradients from g (n): gx = rstd * ((gh - mean(gh)) - xhat *
 * mean(gh * xhat)) with gh = g * w into gx, and g * xhat into gxhat (each
 * when asked). scratch: 3 n floats. */
static void ct__ln_backward_row_f32(const ct__ln_rows_job *j, const float *x, const float *g, float mean, float rstd,
                                    float *gx, float *gxhat, float *scratch)
{
    int64_t n = j->n;
    float *xhat = scratch, *gh = scratch + n, *ghx = scratch + 2 * n;
    ct__ln_xhat_f32(x, n, mean, rstd, xhat);
    if (gxhat)
        for (int64_t i = 0; i < n; i++) gxhat[i] = g[i] * xhat[i];
    if (!gx) return;
    for (int64_t i = 0; i < n; i++) gh[i] = j->w ? g[i] * j->w[i] : g[i];
    for (int64_t i = 0; i < n; i++) ghx[i] = gh[i] * xhat[i];
    float m1 = ct__ln_row_mean_f32(gh, n), m2 = ct__ln_row_mean_f32(ghx, n);
    for (int64_t i = 0; i < n; i++) gx[i] = rstd * ((gh[i] - m1) - xhat[i] * m2);
}

/* rows [b, e) of a layer norm job: the forward without g, else the backward */
static void ct__ln_rows_run(int64_t b, int64_t e, void *ctx)
{
    ct__ln_rows_job *j = (ct__ln_rows_job *)ctx;
    int64_t n = j->n;
    float *mean = (float *)CT_MALLOC((size_t)(2 * (e - b) + 3 * n) * sizeof(float));
    if (!mean) {
        CT__ATOMIC_INC(&j->failed);
        return;
    }
    float *rstd = mean + (e - b);
    ct__ln_stats_f32(j->x + b * n, e - b, n, j->eps, mean, rstd);
    for (int64_t r = b; r < e; r++) {
        const float *x = j->x + r * n;
        float m = mean[r - b], s = rstd[r - b];
        if (j->g)
            ct__ln_backward_row_f32(j, x, j->g + r * n, m, s, j->y ? j->y + r * n : NULL,
                                    j->gxhat ? j->gxhat + r * n : NULL, rstd + (e - b));
        else
            ct__ln_forward_row_f32(j, x, m, s, j->y + r * n);
    }
    CT_FREE(mean);
}

/* The CPU's layer norm job: its rows in parallel, each one pass. */
static ct_result ct__cpu_layer_norm(const ct__layer_norm_job *job)
{
    ct__ln_rows_job j = {job->x, job->g, job->w, job->b, job->y, job->gxhat, job->n, (float)job->eps, 0};
    ct__parallel_for(job->rows, CT__MAX(1, CT__GRAIN / job->n), ct__ln_rows_run, &j);
    return j.failed ? CT__OOM() : CT_OK;
}
