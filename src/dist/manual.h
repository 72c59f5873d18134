/* ctorch_dist.h - torch.distributed for ctorch: process groups over TCP
 * (the gloo backend) or MPI, the collectives with async work handles, and
 * DistributedDataParallel.
 *
 * Generated from src/dist/ by `make amalgamate`; edit src/dist/, not this file.
 *
 * 1. QUICK START
 *
 *    ctorch_dist.h builds on ctorch.h. In exactly one C or C++ file, after
 *    ctorch.h:
 *
 *        #define CTORCH_DIST_IMPLEMENTATION
 *        #include "ctorch_dist.h"
 *
 *    The gloo backend needs nothing more (POSIX sockets and threads); run
 *    one process per rank with ctorchrun (or torchrun), which sets
 *    MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE for its env:// rendezvous:
 *
 *        cc train.c -o train -lm -lpthread
 *        build/ctorchrun --nproc_per_node 2 ./train
 *
 *    The mpi backend needs mpicc (Debian's libopenmpi-dev), -DCTORCH_DIST_MPI
 *    and mpirun (mpirun -np 2 ./train), with "mpi" below:
 *
 *        ct_dist_init_process_group("gloo", (ct_dist_init_opts){0});
 *        ct_tensor *t = ct_full(CT_SHAPE(2), ct_int(ct_dist_get_rank(NULL) + 1), CT_F32);
 *        ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){0});   // tensor([3., 3.]) on both ranks
 *        ct_dist_destroy_process_group(NULL);
 *
 * 2. MODEL
 *
 *    As in torch.distributed: one process per rank, a default group made by
 *    init_process_group, smaller groups made by new_group. Ranks are global
 *    ranks. Every collective checks that all ranks of its group call the
 *    same operation on tensors of the same shape and dtype (a small
 *    exchange before the data), so a mismatch is an error on every rank,
 *    not a hang. async_op gives a ct_work to wait for; a work that waits
 *    longer than the group's timeout fails with an error naming the rank.
 *
 * 3. THREADS
 *
 *    One thread at a time may call into a process group (MPI is started
 *    with MPI_THREAD_SERIALIZED). DDP's gradient hooks run inside backward on
 *    the thread that called it. The gloo backend runs threads of its own:
 *    one moving the sockets, and one per communicator running its
 *    collectives in order.
 *
 * 4. BUILD OPTIONS
 *
 *    CTORCH_DIST_MPI   the MPI backend (link MPI: build with mpicc)
 *    CTORCH_DIST_NCCL  the NCCL backend, for CUDA tensors: -I/usr/local/cuda/include,
 *                      linked with ctorch_cuda.cu's object, -lnccl -lcudart
 *    CTORCH_STATIC     as for ctorch.h
 */
