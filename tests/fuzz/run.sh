#!/bin/sh
# Runs each libFuzzer target (make fuzz builds them) for FUZZ_TIME seconds
# from its seed corpus (tests/fuzz/corpus/<target>; what it finds new goes
# to $BUILD/corpus/<target>), prints ok or FAIL with the executions made,
# and the totals as its last line, as tests/run.sh does.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-fuzz}
FUZZ_TIME=${FUZZ_TIME:-60}
passed=0 failed=0
for t in ${FUZZ_TARGETS:-index safetensors pth npy idx csv einsum state_dict}; do
    mkdir -p "$BUILD/corpus/$t" "$BUILD/artifacts"
    log="$BUILD/fuzz_$t.log"
    ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
        "$BUILD/fuzz_$t" "$BUILD/corpus/$t" "tests/fuzz/corpus/$t" -max_total_time="$FUZZ_TIME" \
        -rss_limit_mb=4096 -malloc_limit_mb=4096 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$BUILD/artifacts/${t}_" > "$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1)); echo "ok   fuzz_$t (${runs:-0} executions in ${FUZZ_TIME} s, $cov)"
    else
        failed=$((failed + 1)); echo "FAIL fuzz_$t (log: $log)"; grep -A 30 'ERROR\|==ERROR\|runtime error\|without an error' "$log" | head -n 40
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
