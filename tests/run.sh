#!/bin/sh
# Runs the whole suite: the header build checks, then every test program in
# $BUILD (built by `make test-build`), and prints the totals as its last line.
# A cross build (make test-mingw, test-aarch64) names its emulator in RUN, its
# programs' suffix in EXE and the suites it built in SUITES; the checks of the
# host's compilers and the CUDA runs are then left to make test. GPU_ONLY=1
# runs the CUDA programs alone (tests/gpu.sh, on a machine with a GPU).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
CC=${CC:-cc}
RUN=${RUN:-}
EXE=${EXE:-}
GPU_ONLY=${GPU_ONLY:-0}
PROGRAM_TIMEOUT=${PROGRAM_TIMEOUT:-900} # seconds one test program may run
SUITES=${SUITES:-$(for src in tests/test_*.c; do basename "$src" .c | sed 's/^test_//'; done)}
: "${DEVICE_SUITES?the Makefile names the device suites: run make test}"
. tests/totals.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ctorch.h must compile warning-free as C11 (gcc, clang) and C++17 (g++), link
# from two translation units, and build with CTORCH_STATIC.
host_checks() {
    cat > "$tmp/impl.c" <<'C'
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
ct_tensor *make_ones(void);
ct_tensor *make_ones(void) { return ct_ones(CT_SHAPE(2), CT_F32); }
C
    cat > "$tmp/main.c" <<'C'
#include "ctorch.h"
#include <stdio.h>
ct_tensor *make_ones(void);
int main(void) {
    ct_tensor *t = make_ones();
    int ok = t && ct_numel(t) == 2 && ct_item(ct_select(t, 0, 1)) == 1.0;
    ct_release(t);
    return ok ? 0 : 1;
}
C
    cat > "$tmp/static.c" <<'C'
#define CTORCH_STATIC
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
int main(void) { ct_tensor *t = ct_zeros(CT_SHAPE(3), CT_F32); int ok = ct_numel(t) == 3; ct_release(t); return !ok; }
C
    cp "$tmp/impl.c" "$tmp/impl.cpp"
    W="-Wall -Wextra -pedantic -Werror"
    check_compile header_c11_gcc gcc -std=c11 $W -I. -c "$tmp/impl.c" -o "$tmp/a.o"
    # (clang also refuses GNU C that -pedantic lets by, and variable-length
    # arrays: MSVC has neither)
    if command -v clang >/dev/null 2>&1; then
        check_compile header_c11_clang clang -std=c11 $W -Wgnu -Wvla -I. -c "$tmp/impl.c" -o "$tmp/b.o"
    else
        skip header_c11_clang "clang not installed"
    fi
    if command -v g++ >/dev/null 2>&1; then
        check_compile header_cxx17_gxx g++ -std=c++17 $W -I. -c "$tmp/impl.cpp" -o "$tmp/c.o"
    else
        skip header_cxx17_gxx "g++ not installed"
    fi
    # The pointwise formulas compile as CUDA device code (nvcc, -Werror)
    NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
    if command -v "$NVCC" >/dev/null 2>&1; then
        check_compile formulas_nvcc "$NVCC" -std=c++17 -arch=sm_90 -Werror all-warnings \
            -Xcompiler -Wall,-Wextra,-Werror -I. -c tests/formulas.cu -o "$tmp/formulas.o"
    else
        skip formulas_nvcc "nvcc not installed (the CUDA Toolkit, /usr/local/cuda)"
    fi
    check_compile header_msvc_view tests/msvc_view.sh
    check_compile header_two_units sh -c "gcc -std=c11 $W -I. -c '$tmp/main.c' -o '$tmp/m.o' && gcc '$tmp/a.o' '$tmp/m.o' -o '$tmp/two' -lm && '$tmp/two'"
    check_compile header_static sh -c "gcc -std=c11 $W -I. '$tmp/static.c' -o '$tmp/static' -lm && '$tmp/static'"
    # <complex.h> defines I as a macro: a program that includes it first must still compile ctorch.h
    printf '#include <complex.h>\n' | cat - "$tmp/impl.c" > "$tmp/complex.c"
    check_compile header_after_complex_h gcc -std=c11 $W -I. -fsyntax-only "$tmp/complex.c"
    # Auto-vectorised loops at -O3 for the machine at hand (how users build
    # ctorch.h for speed; where it has AVX2 the pointwise kernels then run
    # base/scalar.h's vector math, CT__VECMATH, elsewhere this is the portable
    # build again) must give the bits the default build gives: the suites of the
    # reductions, the pointwise ops and their gradients again, built that way
    # (the implementation compiled once), with OpenMP where the compiler has it,
    # for their tests of the bits on any number of threads.
    printf '#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n' > "$tmp/omp.c"
    omp=$($CC -fopenmp "$tmp/omp.c" -o "$tmp/omp" 2>/dev/null && echo -fopenmp)
    native="$CC -std=c11 -O3 -march=native $omp -I."
    if out=$($native -DCTORCH_IMPLEMENTATION -x c -c ctorch.h -o "$tmp/ctorch_native.o" 2>&1 &&
             $native -c tests/harness.c -o "$tmp/harness_native.o" 2>&1 &&
             $native -c tests/testdev.c -o "$tmp/testdev_native.o" 2>&1); then
        for t in reduce pointwise grad_pointwise; do
            check_compile ${t}_o3_native sh -c "$native -Itests tests/test_$t.c '$tmp/harness_native.o' \
                '$tmp/testdev_native.o' '$tmp/ctorch_native.o' -o '$tmp/$t' -lm -lpthread &&
                '$tmp/$t' > '$tmp/$t.out' 2>&1 || { grep -v '^ok' '$tmp/$t.out'; exit 1; }"
        done
    else
        fail "implementation_o3_native (ctorch.h did not build with -O3 -march=native)"; echo "$out" | head -20
    fi
}

# One test program, its results added to the totals (a program that did not
# build counts as one failure). $2, when given, tags its lines: "@testdev";
# $3 is the directory it was built in, when not $BUILD.
run_program() { # name [tag [dir]]
    bin="${3:-$BUILD}/$1$EXE"
    if [ ! -x "$bin" ]; then
        fail "$1${2:-} (did not build)"
        return
    fi
    start=$(date +%s)
    # (one hung program is one failure, not a run that never ends)
    out=$(timeout -k 10 "$PROGRAM_TIMEOUT" $RUN "$bin" 2>&1)
    status=$?
    took=$(($(date +%s) - start))
    case $status in
        124 | 137) fail "$1${2:-} (timed out after $PROGRAM_TIMEOUT s)"; echo "$out" | tail -n 5; return ;;
    esac
    # (where the time of a run goes: the programs that take long)
    [ "$took" -ge 30 ] && echo "time $1${2:-}: $took s"
    [ -n "${2:-}" ] && out=$(echo "$out" | sed "s/^\(ok  \|FAIL\|skip\) \([^ ]*\)/\1 \2$2/")
    add_program "$1${2:-}" $status "$out"
}

# The host's checks and every suite, on the CPU and on the test device.
host_runs() {
    if [ -z "$RUN" ]; then
        host_checks
    else # the cross compiler's warnings
        printf '#define CTORCH_IMPLEMENTATION\n#include "ctorch.h"\n' > "$tmp/impl.c"
        check_compile "header_c11_$(basename "$CC")" $CC -std=c11 -Wall -Wextra -pedantic -Werror -I. -c "$tmp/impl.c" -o "$tmp/a.o"
        # Windows: ctorch's threads are Windows' own (src/base/threads.h), not winpthreads'
        if [ "$EXE" = .exe ]; then
            check_compile library_without_pthreads sh -c "$($CC -print-prog-name=nm) -u '$tmp/a.o' > '$tmp/a.syms' &&
                ! grep pthread '$tmp/a.syms'"
        fi
    fi

    # The test programs.
    for t in $SUITES; do
        run_program "test_$t"
    done

    # The op suites again with every tensor on the test device (tests/testdev.c),
    # whose memory the host cannot read: the same results through the backend
    # table alone. (The error suites stay on the CPU: an allocator's words differ.)
    # The Makefile names the suites (DEVICE_SUITES).
    export CTORCH_TEST_DEVICE=1
    for t in $DEVICE_SUITES; do run_program "test_$t" "@testdev"; done
    unset CTORCH_TEST_DEVICE
}

[ "$GPU_ONLY" = 1 ] || host_runs
if [ -n "$RUN" ]; then print_totals; exit; fi

# And on cuda:0, linked with ctorch_cuda.cu ($BUILD/cuda, `make cuda`), where
# a GPU is there; skipped by name, with the reason, where not.
export CTORCH_TEST_DEVICE=cuda
gpus=$("$BUILD/cuda/gpu_count" 2>/dev/null)
case "$gpus" in '' | *[!0-9]*) gpus=0 ;; esac
if [ "${CUDA:-0}" != 1 ]; then why="the CUDA backend is not built here (nvcc, or CUDA=0)"
elif [ ! -x "$BUILD/cuda/gpu_count" ]; then why="ctorch_cuda.cu did not build"
elif [ "$gpus" -lt 1 ]; then why="no CUDA GPU on this machine"
else why=""; fi
# (cuda_backend: what only CUDA has: the caching allocator against PyTorch's
# memory statistics, TF32 products)
for t in $DEVICE_SUITES; do
    if [ -z "$why" ]; then
        run_program "test_$t" "@cuda" "$BUILD/cuda"
    else
        skip "test_$t@cuda" "$why"
    fi
done
if [ -z "$why" ]; then run_program cuda_backend "@cuda" "$BUILD/cuda"; else skip cuda_backend@cuda "$why"; fi
if [ "$GPU_ONLY" = 1 ]; then
    unset CTORCH_TEST_DEVICE
    run_program nccl_test "" "$BUILD/cuda"
    print_totals
    exit
fi
# And on the host emulation of ctorch_cuda.cu (tests/cuda_emu), here, with
# or without a GPU: the backend's logic, kernels run one thread at a time
if [ "${CUDA_EMU:-0}" = 1 ]; then
    for t in $DEVICE_SUITES; do run_program "test_$t" "@cuda-emu" "$BUILD/cuda-emu"; done
    # (on two emulated devices, for the current-device switch)
    export CTORCH_CUDA_EMU_DEVICES=2
    run_program cuda_backend "@cuda-emu" "$BUILD/cuda-emu"
    unset CTORCH_CUDA_EMU_DEVICES
else
    for t in $DEVICE_SUITES; do skip "test_$t@cuda-emu" "the CUDA Toolkit's headers are not installed (or CUDA=0)"; done
    skip cuda_backend@cuda-emu "the CUDA Toolkit's headers are not installed (or CUDA=0)"
fi
unset CTORCH_TEST_DEVICE
# ctorch_dist.h's nccl backend (its tensors are placed by hand, on the CPU
# and cuda:0): without a GPU it checks init's refusal and reports the rest
# skipped itself; on the emulation, with NCCL's one-rank stand-in
if [ "${CUDA:-0}" = 1 ]; then
    run_program nccl_test "" "$BUILD/cuda"
else
    skip nccl_test "the CUDA backend is not built here (nvcc, or CUDA=0)"
fi
if [ "${CUDA_EMU:-0}" = 1 ]; then
    run_program nccl_test "@cuda-emu" "$BUILD/cuda-emu"
else
    skip nccl_test@cuda-emu "the CUDA Toolkit's headers are not installed (or CUDA=0)"
fi

print_totals
