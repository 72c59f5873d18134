#!/bin/sh
# Builds the shipped single headers from src/ (SQLite-style amalgamation):
# ctorch.h, and ctorch_dist.h (the distributed layer) from src/dist/.
# Usage: tools/amalgamate.sh [outdir]   (default: the repository root)
# Each section opens with a banner naming its source file and a "// >>name" tag.
set -eu
cd "$(dirname "$0")/.."
out=${1:-.}

# The public API, in dependency order.
API="src/base/base.h src/tensor/tensor.h src/autograd/autograd.h src/ops/math.h src/ops/reduce.h src/ops/join.h src/ops/sort.h src/linalg/linalg.h src/linalg/decomp.h src/linalg/conv.h src/nn/nn.h src/optim/optim.h src/data/data.h"
# The backend interface: what the implementation and a backend compiled
# apart (CTORCH_BACKEND) both see.
BACKEND="src/base/scalar.h src/ops/reduce_ops.h src/ops/join_ops.h src/ops/sort_ops.h src/ops/optable.h src/ops/formulas.h src/ops/reduce_formulas.h src/ops/optim_formulas.h src/linalg/conv_ops.h
         src/tensor/backend.h"
# The implementation, in dependency order: private headers first, then code.
IMPL="src/base/internal.h src/base/threads.h src/tensor/internal.h src/autograd/internal.h src/cpu/iter.h src/optim/internal.h src/data/internal.h
      src/base/error.c src/base/dtype.c src/base/scratch.c
      src/tensor/tensor.c src/tensor/copy.c src/tensor/view.c src/tensor/create.c
      src/tensor/index.c src/tensor/random.c src/tensor/print.c
      src/autograd/graph.c src/autograd/engine.c src/autograd/formulas.c src/autograd/formulas_view.c
      src/autograd/formulas_reduce.c src/autograd/formulas_join.c src/autograd/formulas_products.c src/autograd/function.c src/autograd/checkpoint.c src/autograd/autocast.c
      src/autograd/gradcheck.c
      src/ops/pointwise.c src/ops/reduce.c src/ops/join.c src/ops/sort.c
      src/cpu/iter.c src/cpu/range.c src/cpu/pointwise.c src/cpu/reduce.c src/cpu/join.c src/cpu/sort.c
      src/cpu/gemm.c src/cpu/conv.c src/cpu/optim.c src/cpu/norm.c src/cpu/random.c src/cpu/alloc.c src/cpu/copy.c src/tensor/device.c
      src/linalg/products.c src/linalg/lapack.c src/linalg/formulas.c src/linalg/decomp.c
      src/linalg/einsum.c src/linalg/pool.c src/linalg/conv.c
      src/nn/module.c src/nn/init.c src/nn/functional.c src/nn/loss.c src/nn/layers.c src/nn/conv_layers.c src/nn/attention.c
      src/nn/rnn.c
      src/optim/optimizer.c src/optim/lbfgs.c src/optim/lr_scheduler.c src/optim/clip.c
      src/data/dataset.c src/data/transform.c src/data/sampler.c src/data/loader.c
      src/io/file.c src/io/idx.c src/io/csv.c src/io/npy.c src/io/safetensors.c src/io/zip.c src/io/pth.c"

section() { # file
    name=${1#src/}
    printf '\n/* %s */\n// >>%s\n' "==================== $name ====================" "$name"
    # local includes only help editors: the amalgamation is one file
    sed '/^#include "/d' "$1"
}

# rewrite only when changed, so make sees no needless updates
replace() { # tmpfile, target
    if ! cmp -s "$1" "$2" 2>/dev/null; then mv "$1" "$2"; else rm -f "$1"; fi
}

tmp=$(mktemp)
{
    cat src/manual.h
    printf '\n#ifndef CTORCH_H\n#define CTORCH_H\n\n#ifdef __cplusplus\nextern "C" {\n#endif\n'
    for f in $API; do section "$f"; done
    printf '\n#ifdef __cplusplus\n}\n#endif\n'
    section src/base/cplusplus.h
    printf '\n#endif /* CTORCH_H */\n'
    printf '\n#if (defined(CTORCH_IMPLEMENTATION) || defined(CTORCH_BACKEND)) && !defined(CTORCH_BACKEND_DONE)\n#define CTORCH_BACKEND_DONE\n'
    for f in $BACKEND; do section "$f"; done
    printf '\n#endif /* CTORCH_BACKEND */\n'
    printf '\n#if defined(CTORCH_IMPLEMENTATION) && !defined(CTORCH_IMPLEMENTATION_DONE)\n#define CTORCH_IMPLEMENTATION_DONE\n'
    for f in $IMPL; do section "$f"; done
    printf '\n#endif /* CTORCH_IMPLEMENTATION */\n'
} > "$tmp"
replace "$tmp" "$out/ctorch.h"

# ctorch_dist.h: its API after ctorch.h's, its implementation in a file that
# has ctorch.h's declarations (ctorch's implementation may be in another).
DIST_API="src/dist/dist.h src/dist/ddp.h"
DIST_IMPL="src/dist/internal.h src/dist/group.c src/dist/work.c src/dist/collectives.c src/dist/listen.h src/dist/socket.c src/dist/store.c src/dist/tcp.c src/dist/nccl.c src/dist/mpi.c src/dist/ddp.c src/dist/sync_batch_norm.c src/dist/spawn.c"
tmp=$(mktemp)
{
    cat src/dist/manual.h
    printf '\n#ifndef CTORCH_DIST_H\n#define CTORCH_DIST_H\n\n#include "ctorch.h" /* (guarded: a program may have included it already) */\n'
    printf '\n#ifdef __cplusplus\nextern "C" {\n#endif\n'
    for f in $DIST_API; do section "$f"; done
    printf '\n#ifdef __cplusplus\n}\n#endif\n'
    printf '\n#endif /* CTORCH_DIST_H */\n'
    printf '\n#if defined(CTORCH_DIST_IMPLEMENTATION) && !defined(CTORCH_DIST_IMPLEMENTATION_DONE)\n#define CTORCH_DIST_IMPLEMENTATION_DONE\n'
    for f in $DIST_IMPL; do section "$f"; done
    printf '\n#endif /* CTORCH_DIST_IMPLEMENTATION */\n'
} > "$tmp"
replace "$tmp" "$out/ctorch_dist.h"

# ctorch_cuda.cu: the CUDA backend, one translation unit for nvcc that sees
# ctorch.h's backend interface (CTORCH_BACKEND) and registers itself.
CUDA_SRC="src/cuda/runtime.cu src/cuda/stream.cu src/cuda/alloc.cu src/cuda/kernels.cu src/cuda/random.cu src/cuda/backend.cu"
tmp=$(mktemp)
{
    cat src/cuda/manual.h
    printf '\n#define CTORCH_BACKEND\n#include "ctorch.h"\n'
    for f in $CUDA_SRC; do section "$f"; done
} > "$tmp"
replace "$tmp" "$out/ctorch_cuda.cu"
