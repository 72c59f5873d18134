/* The fused optimizer steps (ct__optim_job): each the float operations of
 * its op-by-op rule in src/optim/optimizer.c (PyTorch's: mul_, add_ with
 * alpha, addcmul_ each an fmaf as the pointwise kernels do them), in the
 * same order, so the bits agree, without a pass over memory per op; split
 * over threads as the pointwise ops are. */

/* SGD with momentum: a = {weight_decay, momentum, 1 - dampening, -lr}. */
static void ct__sgd_range(int64_t begin, int64_t end, void *ctx)
{
    const ct__optim_job *j = (const ct__optim_job *)ctx;
    float *CT__RESTRICT pd = j->p, *CT__RESTRICT bd = j->buf[0];
    const float *CT__RESTRICT gd = j->grad;
    const float weight_decay = j->a[0], momentum = j->a[1], damp = j->a[2], neg_lr = j->a[3];
    for (int64_t k = begin; k < end; k++) {
        float d = j->maximize ? -gd[k] : gd[k];
        if (weight_decay != 0) d = ct__fmaf(pd[k], weight_decay, d); /* grad.add(param, alpha=weight_decay) */
        float b = ct__fmaf(d, damp, bd[k] * momentum); /* buf.mul_(momentum).add_(d, alpha=1 - dampening) */
        bd[k] = b;
        float step = j->nesterov ? ct__fmaf(b, momentum, d) : b;
        pd[k] = ct__fmaf(step, neg_lr, pd[k]); /* param.add_(d, alpha=-lr) */
    }
}

/* Adam's moments and step (mul_, add_ with alpha and addcmul_ as fmaf,
 * maximum for amsgrad, sqrt, div, add, addcdiv_): a = {beta1, beta2,
 * 1 - beta1, 1 - beta2, sqrt(bias_correction2), eps, -step_size}. */
static void ct__adam_range(int64_t begin, int64_t end, void *ctx)
{
    const ct__optim_job *j = (const ct__optim_job *)ctx;
    float *CT__RESTRICT pd = j->p, *CT__RESTRICT md = j->buf[0], *CT__RESTRICT vd = j->buf[1], *vmax = j->buf[2];
    const float *CT__RESTRICT gd = j->grad;
    const float beta1 = j->a[0], beta2 = j->a[1], one_beta1 = j->a[2], one_beta2 = j->a[3], bc2 = j->a[4],
                eps = j->a[5], neg_step = j->a[6];
    for (int64_t k = begin; k < end; k++) {
        float g = gd[k];
        /* exp_avg.mul_(beta1).add_(g, alpha=1 - beta1); exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2) */
        float mk = ct__fmaf(g, one_beta1, md[k] * beta1);
        float vk = ct__fmaf(one_beta2 * g, g, vd[k] * beta2);
        md[k] = mk;
        vd[k] = vk;
        if (vmax) { /* torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq): NaN wins */
            float mx = vmax[k];
            vk = mx > vk || mx != mx ? mx : vk;
            vmax[k] = vk;
        }
        float denom = sqrtf(vk) / bc2 + eps; /* (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps) */
        pd[k] = pd[k] + neg_step * mk / denom; /* param.addcdiv_(exp_avg, denom, value=-step_size) */
    }
}

static void ct__cpu_optim_step(const ct__optim_job *job)
{
    ct__parallel_for(job->n, CT__GRAIN, job->kind == CT__OPTIM_SGD ? ct__sgd_range : ct__adam_range, (void *)job);
}
