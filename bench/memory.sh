#!/bin/sh
# Peak memory of the Fashion-MNIST MLP run (784-256-128-10, batch 64, a
# shuffling loader with 2 workers, one epoch, then the test accuracy):
# examples/fashion_mnist.c against its twin examples/fashion_mnist_torch.py,
# each with the MLP alone, in the same run. Memory, not time, so it is apart
# from bench/run.sh.
#   bench/memory.sh
# FASHION_MNIST=dir names the data (default: Debian's dataset-fashion-mnist).
# It prints, in MiB, for each side:
#   main process peak RSS   the peak resident set of the process that trains:
#                           ctorch's loader workers are threads in it,
#                           PyTorch's are separate processes
#   tree peak PSS           the process and its workers together, shared pages
#                           counted once (Pss sampled every 20 ms, so a peak
#                           shorter than that may be missed)
# ratio = PyTorch / ctorch: above 1 means ctorch uses less.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
DIR=${FASHION_MNIST:-/usr/share/datasets/fashion-mnist}
PY=/usr/bin/python3
THREADS=${OMP_NUM_THREADS:-$(nproc)}
export OMP_NUM_THREADS=$THREADS
if [ ! -r "$DIR/train-images-idx3-ubyte.gz" ] && [ ! -r "$DIR/train-images-idx3-ubyte" ]; then
    echo "memory: no Fashion-MNIST in $DIR (apt-get install dataset-fashion-mnist, or FASHION_MNIST=dir): skipped"
    exit 0
fi
mkdir -p "$BUILD/bench"
make -s "$BUILD/bin/fashion_mnist" || exit 1
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $THREADS threads, $(date -u +%Y-%m-%d)"
echo "Fashion-MNIST MLP, one training epoch and the test pass"
$PY bench/memory/peak_pss.py "$BUILD/bin/fashion_mnist" "$DIR" 1 mlp > "$BUILD/bench/memory.ct" || exit 1
if $PY -c 'import torch' 2>/dev/null; then
    $PY bench/memory/peak_pss.py $PY examples/fashion_mnist_torch.py "$DIR" 1 mlp > "$BUILD/bench/memory.pt" || exit 1
else
    echo "PyTorch not installed: ctorch only"
    : > "$BUILD/bench/memory.pt"
fi
echo
printf '%-28s %12s %12s %8s\n' "memory" "ctorch" "PyTorch" "ratio"
awk 'FILENAME == ARGV[1] { pt[$1] = $2; next } { ct[$1] = $2 }
     END {
         row("main process peak RSS", ct["peak_rss_kib"], pt["peak_rss_kib"]);
         row("tree peak PSS", ct["peak_pss_kib"], pt["peak_pss_kib"]);
     }
     function mib(k) { return k == "" ? "-" : sprintf("%.1f MiB", k / 1024) }
     function row(name, c, p) {
         if (c != "" && p != "") printf "%-28s %12s %12s %7.2fx\n", name, mib(c), mib(p), p / c;
         else printf "%-28s %12s %12s %8s\n", name, mib(c), mib(p), "-";
     }' "$BUILD/bench/memory.pt" "$BUILD/bench/memory.ct"
grep -h "test accuracy" "$BUILD/bench/memory.ct" "$BUILD/bench/memory.pt" | sed 's/^/  /'
