/* The host emulation of ctorch_cuda.cu's kernels, for the tests only: g++
 * compiles ctorch_cuda.cu with this header included first (-include), and
 * the program links emu.cpp in place of libcudart and libcublas. A kernel
 * launch queues on its stream, as on a GPU, and runs when the host waits
 * for that work (emu.cpp), the kernel's blocks and threads one after the
 * other, with blockIdx, threadIdx, blockDim and gridDim set as CUDA sets
 * them; curand's Philox is CUDA's own header code, compiled for
 * the host. It checks the backend's logic (indexing, launch shapes, the
 * allocator, the argument mapping to cuBLAS, offsets of the generator) on
 * machines without a GPU. It stands in for nothing a GPU does in parallel:
 * the kernels so far need no __syncthreads or shared memory. */
#ifndef CT_CUDA_EMU_H
#define CT_CUDA_EMU_H
#include <cuda_runtime.h>
#include <curand_kernel.h> /* first: its host part declares a blockDim and threadIdx of its own */
#include <functional>

/* The launch's coordinates, per host thread (the kernels read them by their CUDA names). */
extern thread_local uint3 cu_emu_thread, cu_emu_block;
extern thread_local dim3 cu_emu_block_dim, cu_emu_grid_dim;
#define threadIdx cu_emu_thread
#define blockIdx cu_emu_block
#define blockDim cu_emu_block_dim
#define gridDim cu_emu_grid_dim

/* Queue work on a stream (emu.cpp): it runs when the host waits for it. */
void cu_emu_enqueue(cudaStream_t stream, std::function<void()> work);

/* A launch of kernel(args...) over blocks x threads, the arguments taken by
 * value now, as a launch takes them. */
template <typename Kernel, typename... Args>
static std::function<void()> cu_emu_kernel(dim3 blocks, dim3 threads, Kernel kernel, Args... args)
{
    return [=] {
        gridDim = blocks, blockDim = threads;
        for (unsigned b = 0; b < blocks.x; b++)
            for (unsigned t = 0; t < threads.x; t++) {
                blockIdx = make_uint3(b, 0, 0);
                threadIdx = make_uint3(t, 0, 0);
                kernel(args...);
            }
    };
}

/* cu_stream(): the backend's current stream, where its kernels queue. */
#define CU_LAUNCH(kernel, blocks, threads, ...) \
    cu_emu_enqueue(cu_stream(), cu_emu_kernel(dim3(blocks), dim3(threads), kernel, __VA_ARGS__))
#endif
