#!/bin/sh
# Runs every benchmark: bench/<name>.c (ctorch) and bench/<name>.py (the same
# work in PyTorch, when python3-torch is installed) in the same run, on the
# same threads, and prints each case with both times and their ratio.
#   bench/run.sh [name...]      (default: all)
# ratio = PyTorch time / ctorch time: above 1 means ctorch is faster.
# The two sides take turns, ROUNDS times (default 3: ctorch, PyTorch,
# ctorch, ...), and each case keeps its best time per side, so a slow
# minute of a shared machine falls on both sides, not on whichever ran then.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-3}
mkdir -p "$BUILD/bench"
THREADS=${OMP_NUM_THREADS:-$(nproc)}
export OMP_NUM_THREADS=$THREADS
PY=/usr/bin/python3
have_torch=0
$PY -c 'import torch' 2>/dev/null && have_torch=1
names=${*:-$(ls bench/*.c | sed 's#bench/##; s#\.c$##')}
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $THREADS threads, $ROUNDS rounds, $(date -u +%Y-%m-%d)"
[ $have_torch = 1 ] && echo "PyTorch $($PY -c 'import torch; print(torch.__version__)')" || echo "PyTorch not installed: ctorch times only"
for name in $names; do
    bin="$BUILD/bench/$name"
    out="$BUILD/bench/$name"
    ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O3 -march=native -fopenmp -I. -Ibench "bench/$name.c" -o "$bin" -lm || continue
    : > "$out.ct"
    : > "$out.pt"
    round=1
    while [ $round -le "$ROUNDS" ]; do
        [ "$ROUNDS" -gt 1 ] && echo "$name: round $round of $ROUNDS" >&2
        "$bin" >> "$out.ct"
        if [ $have_torch = 1 ] && [ -f "bench/$name.py" ]; then
            (cd bench && $PY "$name.py" "$THREADS") >> "$out.pt"
        fi
        round=$((round + 1))
    done
    echo
    printf '%-44s %12s %12s %8s\n' "$name" "ctorch" "PyTorch" "ratio"
    # each case's best time per side, in the order ctorch's first round printed them
    awk 'FILENAME == ARGV[1] { if (!($1 in pt) || $2 < pt[$1]) pt[$1] = $2; next }
         { if (!($1 in ct)) order[n++] = $1; if (!($1 in ct) || $2 < ct[$1]) ct[$1] = $2 }
         END { for (i = 0; i < n; i++) { k = order[i]; t = ct[k];
                   if (k in pt) printf "%-44s %12s %12s %7.2fx\n", k, unit(t), unit(pt[k]), pt[k] / t;
                   else printf "%-44s %12s %12s %8s\n", k, unit(t), "-", "-" } }
         function unit(s) { return s < 1e-6 ? sprintf("%.0f ns", s * 1e9) : s < 1e-3 ? sprintf("%.2f us", s * 1e6) : s < 1 ? sprintf("%.2f ms", s * 1e3) : sprintf("%.2f s", s) }' "$out.pt" "$out.ct"
done
