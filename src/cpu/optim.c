/* The fused optimizer steps (ct__optim_job): src/ops/optim_formulas.h's
 * element steps over the range, without a pass over memory per op; split
 * over threads as the pointwise ops are. */

static void ct__sgd_range(int64_t begin, int64_t end, void *ctx)
{
    const ct__optim_job *j = (const ct__optim_job *)ctx;
    float *CT__RESTRICT pd = j->p, *CT__RESTRICT bd = j->buf[0];
    const float *CT__RESTRICT gd = j->grad;
    const float weight_decay = j->a[0], momentum = j->a[1], damp = j->a[2], neg_lr = j->a[3];
    const bool maximize = j->maximize, nesterov = j->nesterov;
    for (int64_t k = begin; k < end; k++)
        ct__sgd_element(&pd[k], &bd[k], gd[k], weight_decay, momentum, damp, neg_lr, maximize, nesterov);
}

static void ct__adam_range(int64_t begin, int64_t end, void *ctx)
{
    const ct__optim_job *j = (const ct__optim_job *)ctx;
    float *CT__RESTRICT pd = j->p, *CT__RESTRICT md = j->buf[0], *CT__RESTRICT vd = j->buf[1], *vmax = j->buf[2];
    const float *CT__RESTRICT gd = j->grad;
    const float beta1 = j->a[0], beta2 = j->a[1], one_beta1 = j->a[2], one_beta2 = j->a[3], bc2 = j->a[4],
                eps = j->a[5], neg_step = j->a[6];
    if (vmax) /* amsgrad: a loop of its own, so the plain one carries no test */
        for (int64_t k = begin; k < end; k++)
            ct__adam_element(&pd[k], &md[k], &vd[k], &vmax[k], gd[k], beta1, beta2, one_beta1, one_beta2, bc2, eps,
                             neg_step);
    else
        for (int64_t k = begin; k < end; k++)
            ct__adam_element(&pd[k], &md[k], &vd[k], NULL, gd[k], beta1, beta2, one_beta1, one_beta2, bc2, eps, neg_step);
}

static void ct__cpu_optim_step(const ct__optim_job *job)
{
    ct__parallel_for(job->n, CT__GRAIN, job->kind == CT__OPTIM_SGD ? ct__sgd_range : ct__adam_range, (void *)job);
}
