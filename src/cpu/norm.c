/* Batch normalisation's statistics (ct__bn_stats_job). */

/* PyTorch's batch_norm_cpu_collect_stats kernels, run on one thread
 * (CT__BN_STATS(T, fma) makes them for float and double): per channel, the
 * mean and the sum of squared deviations (var_sum).
 * planes: x (n, c, image), image > 1 (contiguous): sums in double, the
 * squares rounded as T. rows: x (rows, c) (channels-last or 2-D): sums in T
 * (PyTorch's per-thread buffer), the squares added by fused multiply-adds,
 * the mean divided in double. */
#define CT__BN_STATS(T, FMA)                                                                                  \
    static void ct__bn_stats_planes_##T(const T *x, int64_t n, int64_t c, int64_t image, T *mean, T *var_sum)   \
    {                                                                                                         \
        for (int64_t ch = 0; ch < c; ch++) {                                                                  \
            double sum = 0, acc = 0;                                                                          \
            for (int64_t b = 0; b < n; b++)                                                                   \
                for (int64_t i = 0; i < image; i++) sum += x[(b * c + ch) * image + i];                       \
            T m = (T)(sum / (double)(n * image));                                                             \
            for (int64_t b = 0; b < n; b++)                                                                   \
                for (int64_t i = 0; i < image; i++) {                                                         \
                    T d = x[(b * c + ch) * image + i] - m, sq = d * d;                                        \
                    acc += sq;                                                                                \
                }                                                                                             \
            mean[ch] = m;                                                                                     \
            var_sum[ch] = (T)acc;                                                                             \
        }                                                                                                     \
    }                                                                                                         \
    static void ct__bn_stats_rows_##T(const T *x, int64_t rows, int64_t c, T *mean, T *var_sum)                \
    {                                                                                                         \
        for (int64_t ch = 0; ch < c; ch++) {                                                                  \
            T sum = 0, acc = 0;                                                                               \
            for (int64_t r = 0; r < rows; r++) sum += x[r * c + ch];                                          \
            T m = (T)((double)sum / (double)rows);                                                            \
            for (int64_t r = 0; r < rows; r++) {                                                              \
                T d = x[r * c + ch] - m;                                                                      \
                acc = FMA(d, d, acc);                                                                         \
            }                                                                                                 \
            mean[ch] = m;                                                                                     \
            var_sum[ch] = acc;                                                                                \
        }                                                                                                     \
    }
CT__BN_STATS(float, ct__fmaf)
CT__BN_STATS(double, ct__fma)

static void ct__cpu_bn_stats(const ct__bn_stats_job *j)
{
    if (j->dtype == CT_F32 && j->rows)
        ct__bn_stats_rows_float((const float *)j->x, j->count, j->c, (float *)j->mean, (float *)j->var_sum);
    else if (j->dtype == CT_F32)
        ct__bn_stats_planes_float((const float *)j->x, j->n, j->c, j->image, (float *)j->mean, (float *)j->var_sum);
    else if (j->rows)
        ct__bn_stats_rows_double((const double *)j->x, j->count, j->c, (double *)j->mean, (double *)j->var_sum);
    else
        ct__bn_stats_planes_double((const double *)j->x, j->n, j->c, j->image, (double *)j->mean, (double *)j->var_sum);
}
