/* One element of the fused optimizer steps (ct__optim_job), the float
 * operations of each op-by-op rule in src/optim/optimizer.c (PyTorch's:
 * mul_, add_ with alpha, addcmul_ each an fmaf as the pointwise kernels do
 * them) in the same order, so the bits agree; the CPU's loops
 * (src/cpu/optim.c) and the CUDA kernels run them. */

/* SGD with momentum on p, buf (the momentum buffer) and gradient g. */
CT__ALWAYS_INLINE void ct__sgd_element(float *p, float *buf, float g, float weight_decay, float momentum, float damp,
                                       float neg_lr, bool maximize, bool nesterov)
{
    float d = maximize ? -g : g;
    if (weight_decay != 0) d = ct__fmaf(*p, weight_decay, d); /* grad.add(param, alpha=weight_decay) */
    float b = ct__fmaf(d, damp, *buf * momentum);             /* buf.mul_(momentum).add_(d, alpha=1 - dampening) */
    *buf = b;
    float step = nesterov ? ct__fmaf(b, momentum, d) : b;
    *p = ct__fmaf(step, neg_lr, *p); /* param.add_(d, alpha=-lr) */
}

/* Adam's moments m and v (vmax: amsgrad's maximum, or NULL) and step on p,
 * from gradient g; bc2 is sqrt(bias_correction2). */
CT__ALWAYS_INLINE void ct__adam_element(float *p, float *m, float *v, float *vmax, float g, float beta1, float beta2,
                                        float one_beta1, float one_beta2, float bc2, float eps, float neg_step)
{
    /* exp_avg.mul_(beta1).add_(g, alpha=1 - beta1); exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2) */
    float mk = ct__fmaf(g, one_beta1, *m * beta1);
    float vk = ct__fmaf(one_beta2 * g, g, *v * beta2);
    *m = mk;
    *v = vk;
    if (vmax) { /* torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq): NaN wins */
        float mx = *vmax;
        vk = mx > vk || mx != mx ? mx : vk;
        *vmax = vk;
    }
    float denom = sqrtf(vk) / bc2 + eps; /* (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps) */
    *p = *p + neg_step * mk / denom;     /* param.addcdiv_(exp_avg, denom, value=-step_size) */
}
