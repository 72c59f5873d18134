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
