#!/bin/sh
# ctorch used as a library by a small project (tests/consumer): through
# CMake's add_subdirectory, through find_package after cmake --install, and
# through pkg-config after make install; each build must print PyTorch's
# number. Where nvcc is installed, both CMake builds also configure
# CTORCH_CUDA and build a program that links ctorch::cuda, for one
# architecture and as PTX only, to keep the stage short. Without cmake,
# pkg-config or nvcc those builds are reported skipped, by name. Prints the
# totals as its last line, as tests/run.sh does.
set -u
cd "$(dirname "$0")/../.."
. tests/totals.sh
want=2.4265 # torch.manual_seed(0); torch.rand(2, 3).sum()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME BINARY: it ran and printed want
check() {
    got=$("$2" 2>&1)
    if [ "$got" = "$want" ]; then pass "$1"; else fail "$1 (printed '$got', want $want)"; fi
}
# check_cuda NAME BINARY: it ran, and the CUDA backend had registered itself:
# ct_cuda_is_available() is True, or cuda:0 is refused for want of a driver
check_cuda() {
    got=$("$2" 2>&1)
    case $got in
        True | "False
Found no NVIDIA driver on your system."*) pass "$1" ;;
        *) fail "$1 (printed '$got')" ;;
    esac
}
# build NAME LOG COMMAND...: the command builds, or the check fails with its log's end
build() {
    name=$1 log=$2; shift 2
    if "$@" > "$log" 2>&1; then return 0; fi
    tail -20 "$log"
    fail "$name (did not build)"
    return 1
}

NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
if command -v "$NVCC" >/dev/null 2>&1; then
    cuda="-DCTORCH_CUDA=ON -DCMAKE_CUDA_COMPILER=$NVCC -DCMAKE_CUDA_ARCHITECTURES=80-virtual"
else
    cuda=
fi
# check_both NAME BUILD_DIR: the plain program, and the CUDA one where it was configured
check_both() {
    check "$1" "$2/consumer"
    if [ -n "$cuda" ]; then
        check_cuda "$1_cuda" "$2/consumer_cuda"
    else
        skip "$1_cuda" "nvcc not installed (the CUDA Toolkit, /usr/local/cuda)"
    fi
}

if command -v cmake >/dev/null 2>&1; then
    build consumer_cmake_subdirectory "$tmp/sub.log" sh -c "cmake -S tests/consumer -B '$tmp/sub' -DCTORCH_SOURCE='$PWD' \
        $cuda && cmake --build '$tmp/sub' -j2" && check_both consumer_cmake_subdirectory "$tmp/sub"
    build consumer_cmake_find_package "$tmp/pkg.log" sh -c "cmake -S . -B '$tmp/lib' $cuda &&
        cmake --build '$tmp/lib' -j2 && cmake --install '$tmp/lib' --prefix '$tmp/cmake-prefix' &&
        cmake -S tests/consumer -B '$tmp/found' -DCMAKE_PREFIX_PATH='$tmp/cmake-prefix' && cmake --build '$tmp/found'" &&
        check_both consumer_cmake_find_package "$tmp/found"
else
    for name in consumer_cmake_subdirectory consumer_cmake_find_package; do
        skip $name "cmake not installed"
        skip ${name}_cuda "cmake not installed"
    done
fi

if command -v pkg-config >/dev/null 2>&1; then
    build consumer_pkg_config "$tmp/pc.log" sh -c "make --no-print-directory install PREFIX='$tmp/prefix' &&
        PKG_CONFIG_PATH='$tmp/prefix/lib/pkgconfig' && export PKG_CONFIG_PATH &&
        cc -std=c11 \$(pkg-config --cflags ctorch) tests/consumer/main.c -o '$tmp/pc' \$(pkg-config --libs ctorch)" &&
        check consumer_pkg_config "$tmp/pc"
else
    skip consumer_pkg_config "pkg-config not installed"
fi

print_totals
