#!/bin/sh
# Runs every benchmark: bench/<name>.c (ctorch) and bench/<name>.py (the same
# work in PyTorch, when python3-torch is installed) in the same run, on the
# same threads, and prints each case with both times and their ratio.
#   bench/run.sh [name...]      (default: all)
# ratio = PyTorch time / ctorch time: above 1 means ctorch is faster.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
mkdir -p "$BUILD/bench"
THREADS=${OMP_NUM_THREADS:-$(nproc)}
export OMP_NUM_THREADS=$THREADS
PY=/usr/bin/python3
have_torch=0
$PY -c 'import torch' 2>/dev/null && have_torch=1
names=${*:-$(ls bench/*.c | sed 's#bench/##; s#\.c$##')}
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $THREADS threads, $(date -u +%Y-%m-%d)"
[ $have_torch = 1 ] && echo "PyTorch $($PY -c 'import torch; print(torch.__version__)')" || echo "PyTorch not installed: ctorch times only"
for name in $names; do
    bin="$BUILD/bench/$name"
    ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O3 -march=native -fopenmp -I. -Ibench "bench/$name.c" -o "$bin" -lm || continue
    "$bin" > "$BUILD/bench/$name.ct"
    if [ $have_torch = 1 ] && [ -f "bench/$name.py" ]; then
        (cd bench && $PY "$name.py" "$THREADS") > "$BUILD/bench/$name.pt"
    else
        : > "$BUILD/bench/$name.pt"
    fi
    echo
    printf '%-44s %12s %12s %8s\n' "$name" "ctorch" "PyTorch" "ratio"
    awk 'NR == FNR { pt[$1] = $2; next }
         { t = $2; p = ($1 in pt) ? pt[$1] : "";
           if (p != "") printf "%-44s %12s %12s %7.2fx\n", $1, unit(t), unit(p), p / t;
           else printf "%-44s %12s %12s %8s\n", $1, unit(t), "-", "-" }
         function unit(s) { return s < 1e-6 ? sprintf("%.0f ns", s * 1e9) : s < 1e-3 ? sprintf("%.2f us", s * 1e6) : s < 1 ? sprintf("%.2f ms", s * 1e3) : sprintf("%.2f s", s) }' "$BUILD/bench/$name.pt" "$BUILD/bench/$name.ct"
done
