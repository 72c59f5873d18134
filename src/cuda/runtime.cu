/* The CUDA runtime as the backend uses it: errors in PyTorch's words, the
 * devices this process sees, and the thread's current device. (The
 * amalgamation puts ctorch.h, with CTORCH_BACKEND, before this file.) */

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <map>
#include <mutex>

#define CU_MAX_DEVICES 64
#define CU_THREADS 256 /* threads per block of the element-wise kernels */

/* Whether e is success; otherwise the error set ("CUDA error: ..."), the
 * runtime's sticky last error cleared. */
static bool cu_ok(cudaError_t e)
{
    if (e == cudaSuccess) return true;
    cudaGetLastError();
    char msg[256];
    snprintf(msg, sizeof msg, "CUDA error: %s", cudaGetErrorString(e));
    ct_set_error(CT_ERR_RUNTIME, msg);
    return false;
}

/* The devices CUDA shows this process (CUDA_VISIBLE_DEVICES applied), 0
 * without a driver or a GPU; asked once. */
static int cu_device_count(void)
{
    static int count = -1;
    static std::once_flag once;
    std::call_once(once, [] {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            cudaGetLastError();
            n = 0;
        }
        count = n < CU_MAX_DEVICES ? n : CU_MAX_DEVICES;
    });
    return count;
}

/* The calling thread's current device, as CUDA's runtime has it (0 until set). */
static thread_local int cu_current_device = 0;

/* Make device index the calling thread's current one (kernels and
 * allocations go to the current device). */
static void cu_use(int index)
{
    if (cu_current_device != index && cu_ok(cudaSetDevice(index))) cu_current_device = index;
}

/* The calling thread's current stream on its current device (stream.cu). */
static cudaStream_t cu_stream(void);

/* A kernel launch, nvcc's kernel<<<blocks, threads, 0, stream>>>(...) on
 * the current stream. A build may define it first: the tests' host
 * emulation (tests/cuda_emu) runs the kernels on the CPU. */
#ifndef CU_LAUNCH
#define CU_LAUNCH(kernel, blocks, threads, ...) kernel<<<blocks, threads, 0, cu_stream()>>>(__VA_ARGS__)
#endif

/* Blocks for n elements, CU_THREADS each, capped: the kernels stride over the rest. */
static unsigned cu_blocks(int64_t n)
{
    int64_t b = (n + CU_THREADS - 1) / CU_THREADS;
    return (unsigned)(b < 1 ? 1 : b > 65535 * 8 ? 65535 * 8 : b);
}

/* Wait for everything queued on device index: the host may then touch its
 * managed memory (the CPU kernels that serve the op families without a
 * kernel here). */
static void cu_synchronize(int index)
{
    cu_use(index);
    cu_ok(cudaDeviceSynchronize());
}

/* Wait for every device: the CPU's kernels, which serve the op families
 * without a kernel here, may then read and write managed memory. */
static void cu_finish_all(void)
{
    for (int i = 0; i < cu_device_count(); i++) cu_synchronize(i);
}

/* The CPU's backend, whose kernels run on managed memory after a synchronize. */
static const ct_backend *cu_cpu(void) { return ct_backend_get(CT_DEVICE_CPU); }

/* The device of a job's output tensor. */
static int cu_index_of(const ct_tensor *t) { return t->storage->device.index < 0 ? 0 : t->storage->device.index; }
