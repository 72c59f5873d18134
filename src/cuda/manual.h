/* ctorch_cuda.cu: ctorch's CUDA backend, generated from src/cuda/ by
 * `make amalgamate`. It registers the "cuda" device with ctorch.h's backend
 * table at start-up, so a program that includes ctorch.h as always gets
 * tensors on NVIDIA GPUs by linking it in:
 *
 *     nvcc -O2 -std=c++17 -arch=sm_90 -I. -c ctorch_cuda.cu -o ctorch_cuda.o
 *     cc -O2 app.c ctorch_cuda.o -o app -lcudart -lcublas -lm
 *
 * (app.c defines CTORCH_IMPLEMENTATION before including ctorch.h, in one
 * file of the program, as ever.) Without a GPU at run time
 * ct_cuda_is_available() is false and CPU programs run unchanged;
 * CUDA_VISIBLE_DEVICES is honoured, as the CUDA runtime reads it.
 *
 * What runs where, for now: memory comes from PyTorch's caching allocator
 * (its pools, segments, splitting and statistics; empty_cache) over CUDA's
 * managed memory. Pointwise ops (dense, strided or broadcast operands),
 * fill, copies (any layout and dtype conversion on one GPU; dense between
 * host and device), gather (gather, index_select, embedding), matrix
 * products (cuBLAS, float32 and float64), the fused SGD and Adam steps, and
 * the uniform and normal samplers (Philox, PyTorch's seed and offset state,
 * launch shape and element order: a seed gives PyTorch's CUDA numbers) run
 * as CUDA kernels. Every other op family (reductions, sorting, the other
 * indexing, convolution and pooling, strided or converting copies between
 * the host and a GPU) runs the CPU's kernel on the same managed memory
 * after the device has finished its queued work: correct, and as slow as a
 * round trip; each is to move to
 * a kernel of its own. Work queues on the calling thread's current stream
 * (PyTorch's stream pools, events and record_stream: ct_stream, ct_event). */
