/* Random numbers: a CUDA generator's state is PyTorch's, the seed and the
 * Philox offset (16 bytes, torch.cuda.get_rng_state()'s layout since
 * PyTorch 2). A sampler run gives thread t of the launch Philox subsequence
 * t from the offset, four Philox numbers a draw, and moves the offset past
 * what the busiest thread used, a multiple of 4, as PyTorch's
 * distribution_nullary_kernel does, with its launch shape and element
 * order. Uniform and normal samples of a dense
 * float32 or float64 output are drawn here; the other samplers run the
 * CPU's on the managed memory from a CPU generator seeded by the state, so
 * they too are repeatable from a seed and move the offset on. */

#include <curand_kernel.h>

typedef struct cu_philox {
    uint64_t seed, offset;
} cu_philox;

static void cu_rng_seed(void *state, uint64_t seed)
{
    cu_philox s = {seed, 0};
    memcpy(state, &s, sizeof s);
}

static uint64_t cu_rng_initial_seed(const void *state)
{
    cu_philox s;
    memcpy(&s, state, sizeof s);
    return s.seed;
}

static ct_result cu_rng_check_state(const void *bytes, size_t nbytes)
{
    if (nbytes != sizeof(cu_philox)) return ct_set_error(CT_ERR_RUNTIME, "RNG state is wrong size");
    cu_philox s;
    memcpy(&s, bytes, sizeof s);
    return s.offset % 4 ? ct_set_error(CT_ERR_RUNTIME, "offset must be a multiple of 4") : CT_OK;
}

static const ct_generator_kind cu_generator = {sizeof(cu_philox), cu_rng_seed, cu_rng_initial_seed,
                                               cu_rng_check_state};

/* Uniforms in (0, 1] or standard normals, four floats or two doubles a
 * draw of four Philox numbers (curand's uniform4 / uniform2_double). */
template <typename T> struct cu_draws;
template <> struct cu_draws<float> {
    enum { n = 4 };
    static __device__ void draw(curandStatePhilox4_32_10_t *st, bool normal, float *r)
    {
        float4 v = normal ? curand_normal4(st) : curand_uniform4(st);
        r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
    }
};
template <> struct cu_draws<double> {
    enum { n = 2 };
    static __device__ void draw(curandStatePhilox4_32_10_t *st, bool normal, double *r)
    {
        double2 v = normal ? curand_normal2_double(st) : curand_uniform2_double(st);
        r[0] = v.x, r[1] = v.y;
    }
};

/* PyTorch's distribution_elementwise_grid_stride_kernel, so that a seed
 * gives PyTorch's CUDA numbers: thread t of the launch draws from Philox
 * subsequence t; the j-th value of each draw goes to element
 * i + j * (threads in the launch), i the element the thread is at. In T
 * (float for float32, as PyTorch's accscalar_t): uniform: u * (to - from) +
 * from with u = 1 taken as 0, so [from, to); normal: z * std + mean; each
 * one fused multiply-add, as nvcc contracts PyTorch's expression. */
template <typename T>
__global__ void cu_sample_kernel(T *out, int64_t n, cu_philox s, bool normal, T a0, T a1)
{
    const int per = cu_draws<T>::n;
    int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, stride = (int64_t)gridDim.x * blockDim.x;
    int64_t rounded = ((n - 1) / (stride * per) + 1) * stride * per;
    curandStatePhilox4_32_10_t st;
    curand_init(s.seed, (unsigned long long)t, s.offset, &st);
    for (int64_t i = t; i < rounded; i += stride * per) {
        T r[4];
        cu_draws<T>::draw(&st, normal, r);
        for (int j = 0; j < per; j++)
            if (i + j * stride < n) out[i + j * stride] = normal ? fma(r[j], a1, a0) : fma(r[j] == 1 ? 0 : r[j], a1 - a0, a0);
    }
}

/* PyTorch's calc_execution_policy: 256 threads a block, as many blocks as
 * fill the device (its multiprocessors times the blocks each holds), fewer
 * for a small n; the offset moves by 4 Philox numbers per draw the busiest
 * thread makes with four values a draw. */
static unsigned cu_sample_blocks(int64_t n, int index, uint64_t *offset_used)
{
    int sms = 1, threads_per_sm = CU_THREADS;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, index) != cudaSuccess ||
        cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, index) != cudaSuccess)
        cudaGetLastError();
    int64_t wanted = (n + CU_THREADS - 1) / CU_THREADS, most = (int64_t)sms * (threads_per_sm / CU_THREADS);
    unsigned blocks = (unsigned)(wanted < most ? wanted : most);
    *offset_used = (uint64_t)((n - 1) / ((int64_t)CU_THREADS * blocks * 4) + 1) * 4;
    return blocks;
}

/* A uniform or normal sample of a dense float32/float64 output here; false
 * for the samplers left to the CPU. */
static bool cu_sample_here(const ct__random_job *job, cu_philox *s)
{
    ct_tensor *out = job->out;
    bool normal = job->kind == CT__RANDOM_NORMAL;
    if ((job->kind != CT__RANDOM_UNIFORM && !normal) || !ct_is_contiguous(out) ||
        (out->dtype != CT_F32 && out->dtype != CT_F64))
        return false;
    int64_t n = ct_numel(out);
    int index = cu_index_of(out);
    uint64_t used = 0;
    unsigned blocks = cu_sample_blocks(n, index, &used);
    cu_use(index);
    if (out->dtype == CT_F32)
        CU_LAUNCH(cu_sample_kernel<float>, blocks, CU_THREADS, (float *)ct_data_ptr(out), n, *s, normal,
                  (float)job->a[0], (float)job->a[1]);
    else
        CU_LAUNCH(cu_sample_kernel<double>, blocks, CU_THREADS, (double *)ct_data_ptr(out), n, *s, normal, job->a[0],
                  job->a[1]);
    cu_ok(cudaGetLastError());
    s->offset += used;
    return true;
}

/* The other samplers: the CPU's, from a CPU generator seeded by (seed,
 * offset), the offset then moved past one draw per element. */
static ct_result cu_sample_on_host(const ct__random_job *job, cu_philox *s)
{
    ct_generator *g = ct_generator_new();
    if (!g) return ct_last_error_code();
    ct_generator_manual_seed(g, s->seed ^ (s->offset * 0x9e3779b97f4a7c15ULL));
    ct__random_job on_host = *job;
    on_host.g = g;
    on_host.state = NULL;
    cu_finish_all();
    ct_result r = cu_cpu()->random(&on_host);
    ct_generator_free(g);
    s->offset += (uint64_t)(ct_numel(job->out) + 3) / 4 * 4;
    return r;
}

static ct_result cu_random(const ct__random_job *job)
{
    cu_philox s;
    memcpy(&s, job->state, sizeof s);
    ct_result r = ct_numel(job->out) == 0 || cu_sample_here(job, &s) ? CT_OK : cu_sample_on_host(job, &s);
    memcpy(job->state, &s, sizeof s);
    return r;
}
