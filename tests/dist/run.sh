#!/bin/sh
# ctorch_dist.h's checks: the header compiles warning-free as C11 (gcc,
# clang) and C++17 (g++), with and without the MPI backend; then each test
# program in tests/dist runs on the gloo backend under ctorchrun with 2 and
# 3 processes, and under mpirun with 2, 3 and 4 ranks. Prints the
# totals as its last line, as tests/run.sh does; without MPI the checks that
# need it are reported skipped, by name. ctorchrun's checks (launcher.sh)
# run first, with or without MPI.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
MPICC=${MPICC:-mpicc}
MAKE=${MAKE:-make}
. tests/totals.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/both.c" <<'C'
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
#define CTORCH_DIST_IMPLEMENTATION
#include "ctorch_dist.h"
int main(void) { return ct_dist_is_initialized(); }
C
cp "$tmp/both.c" "$tmp/both.cpp"
# ctorch_dist.h on its own: it takes ctorch.h in itself
cat > "$tmp/alone.c" <<'C'
#include "ctorch_dist.h"
int main(void) { return ct_dist_is_initialized(); }
C
# check_output NAME EXPECTED COMMAND...: the command succeeds and prints
# exactly the file EXPECTED (else the difference and its stderr are shown).
check_output() {
    name=$1 expected=$2
    shift 2
    out=$("$@" 2>"$tmp/stderr")
    status=$?
    if [ "$status" -eq 0 ] && [ "$out" = "$(cat "$expected")" ]; then
        pass "$name"
    else
        fail "$name (exit status $status)"
        echo "$out" | diff "$expected" - | head -20
        head -20 "$tmp/stderr"
    fi
}

W="-Wall -Wextra -pedantic -Werror"
check_compile dist_header_c11_gcc gcc -std=c11 $W -I. -fsyntax-only "$tmp/both.c"
if command -v clang >/dev/null 2>&1; then
    check_compile dist_header_c11_clang clang -std=c11 $W -I. -fsyntax-only "$tmp/both.c"
else
    skip dist_header_c11_clang "clang not installed"
fi
if command -v g++ >/dev/null 2>&1; then
    check_compile dist_header_cxx17_gxx g++ -std=c++17 $W -I. -fsyntax-only "$tmp/both.cpp"
else
    skip dist_header_cxx17_gxx "g++ not installed"
fi
# The nccl backend, where the CUDA Toolkit with NCCL is installed (its
# collectives run in make test's nccl_test, on a GPU)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ -f "$CUDA_HOME/include/nccl.h" ]; then
    N="-DCTORCH_DIST_NCCL -I$CUDA_HOME/include"
    check_compile dist_header_nccl_c11_gcc gcc -std=c11 $W $N -I. -fsyntax-only "$tmp/both.c"
    if command -v clang >/dev/null 2>&1; then
        check_compile dist_header_nccl_c11_clang clang -std=c11 $W $N -I. -fsyntax-only "$tmp/both.c"
    fi
    check_compile dist_header_nccl_cxx17_gxx g++ -std=c++17 $W $N -I. -fsyntax-only "$tmp/both.cpp"
else
    skip dist_header_nccl "NCCL not installed (nccl.h of the CUDA Toolkit, $CUDA_HOME)"
fi
# Without the MPI backend, init_process_group("mpi") says so instead of failing to link.
check_compile dist_without_mpi sh -c "gcc -std=c11 -O0 $W -I. '$tmp/both.c' -o '$tmp/nompi' -lm && '$tmp/nompi'"

# ctorchrun (tools/ctorchrun.c) against a worker that prints, fails or waits,
# and gloo_test's gloo ranks over IPv6
$MAKE --no-print-directory "$BUILD/ctorchrun" "$BUILD/dist/launch_worker" "$BUILD/dist/gloo_test" >/dev/null || true
. tests/dist/launcher.sh
# ct_dist_spawn: forks its own workers, no MPI
$MAKE --no-print-directory "$BUILD/dist/spawn_test" >/dev/null || true
if [ -x "$BUILD/dist/spawn_test" ]; then
    out=$(timeout 120 "$BUILD/dist/spawn_test" 2>&1)
    add_program spawn_test $? "$out"
else
    fail "spawn_test (did not build)"
fi

# The gloo backend, no MPI: its rendezvous and failures in one process
# (gloo_test forks its ranks), then the test programs built without MPI
# under ctorchrun with 2 and 3 processes (--standalone: a free port each run)
$MAKE --no-print-directory "$BUILD/dist/gloo_test" ${GLOO_TESTS:-} >/dev/null || true
if [ -x "$BUILD/dist/gloo_test" ]; then
    out=$(timeout 120 "$BUILD/dist/gloo_test" 2>&1)
    add_program gloo_test $? "$out"
else
    fail "gloo_test (did not build)"
fi
# ctorch's TCP store speaks PyTorch's TCPStore protocol: checked against it
if [ -x "$BUILD/dist/gloo_test" ] && /usr/bin/python3 -c 'import torch.distributed' >/dev/null 2>&1; then
    out=$(timeout 120 /usr/bin/python3 tests/dist/store_interop.py "$BUILD/dist/gloo_test" 2>&1)
    add_program tcp_store_interop $? "$out"
else
    skip tcp_store_interop "PyTorch not installed: apt-get install python3-torch"
fi
for bin in ${GLOO_TESTS:-}; do
    name="$(basename "$bin") (gloo)"
    for np in 2 3; do
        if [ ! -x "$bin" ] || [ ! -x "$BUILD/ctorchrun" ]; then fail "$name (did not build)"; break; fi
        out=$(timeout 300 "$BUILD/ctorchrun" --standalone --nproc_per_node $np "$bin" 2>&1)
        add_program "$name with $np processes" $? "$out"
    done
done

if ! command -v "$MPICC" >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    skip dist_header_mpi "mpicc or mpirun not installed: apt-get install libopenmpi-dev openmpi-bin"
    for t in $DIST_TESTS; do skip "$(basename "$t")" "mpicc or mpirun not installed"; done
else
    # built and linked (the wrappers add -lmpi, which a compile-only run would leave unused)
    check_compile dist_header_mpi_c11 "$MPICC" -std=c11 $W -O0 -DCTORCH_DIST_MPI -I. "$tmp/both.c" -o "$tmp/mpi_c" -lm
    check_compile dist_header_alone_mpi "$MPICC" -std=c11 $W -DCTORCH_DIST_MPI -I. -c "$tmp/alone.c" -o "$tmp/alone.o"
    if command -v mpicxx >/dev/null 2>&1; then
        check_compile dist_header_mpi_cxx17 mpicxx -std=c++17 $W -O0 -DCTORCH_DIST_MPI -I. "$tmp/both.cpp" -o "$tmp/mpi_cxx" -lm
    fi
    $MAKE --no-print-directory $DIST_TESTS >/dev/null || true
    for bin in $DIST_TESTS; do
        name=$(basename "$bin")
        for np in 2 3 4; do
            if [ ! -x "$bin" ]; then fail "$name (did not build)"; break; fi
            # a hang is a failure, not a stuck CI: each run is bounded
            out=$(timeout 300 mpirun --allow-run-as-root --oversubscribe -np $np "$bin" 2>&1)
            add_program "$name with $np ranks" $? "$out"
        done
    done
    # Seed 004's DDP examples (the ToyModel's training steps, and its
    # checkpoint saved by rank 0 and loaded by every rank) print what their
    # PyTorch twin on gloo printed, examples/dist/ddp_toy.out: on the mpi
    # backend under mpirun, and on gloo under ctorchrun, 2 ranks each.
    $MAKE --no-print-directory "$BUILD/examples/dist/ddp_toy" >/dev/null || true
    toy="$BUILD/examples/dist/ddp_toy"
    check_output ddp_toy_mpirun examples/dist/ddp_toy.out \
        timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "$toy" mpi "$tmp/toy_mpi.checkpoint"
    check_output ddp_toy_ctorchrun examples/dist/ddp_toy.out \
        timeout 300 "$BUILD/ctorchrun" --standalone --nproc_per_node 2 "$toy" gloo "$tmp/toy_gloo.checkpoint"
    # The demo's CNN with DDP on 2 ranks reaches the single-process demo's
    # test accuracy (293/300 after 12 epochs, examples/train_digits.out) within
    # 1%, and its checkpoint (rank 0 saves, every rank loads) round-trips.
    $MAKE --no-print-directory "$BUILD/examples/dist/ddp_digits" >/dev/null || true
    out=$(timeout 600 mpirun --allow-run-as-root --oversubscribe -np 2 "$BUILD/examples/dist/ddp_digits" "$tmp/ddp.pth" 2>&1)
    status=$?
    correct=$(echo "$out" | sed -n 's|^epoch 12 .*test accuracy \([0-9]*\)/300$|\1|p')
    if [ "$status" -eq 0 ] && [ "${correct:-0}" -ge 290 ]; then
        pass "ddp_digits (2 ranks, $correct/300)"
    else
        echo "$out" | tail -20
        fail "ddp_digits (2 ranks: status $status, accuracy ${correct:-none}/300, at least 290 wanted)"
    fi
fi

print_totals
