# The test runners' bookkeeping, sourced by tests/run.sh and tests/dist/run.sh:
# counts, one line per check, and the totals line that .ci/run adds up.
passed=0 failed=0 skipped=0 skipnotes=""

pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }
skip() { skipped=$((skipped + 1)); skipnotes="$skipnotes$1 ($2);"; echo "skip $1 ($2)"; }

# check_compile NAME COMMAND...: the command must succeed (its first lines shown when not).
check_compile() {
    name=$1; shift
    if out=$("$@" 2>&1); then pass "$name"; else fail "$name"; echo "$out" | head -20; fi
}

# add_program NAME STATUS OUTPUT: a test program's output, but for its
# RESULT line, whose counts are added up (and its skip lines' reasons kept).
# No RESULT line, or a non-zero status with no test failed, is one failure.
add_program() {
    echo "$3" | grep -v '^RESULT '
    line=$(echo "$3" | grep '^RESULT ' | tail -1)
    if [ -z "$line" ]; then
        fail "$1 (crashed with status $2 before its summary)"
        return
    fi
    skipnotes="$skipnotes$(echo "$3" | sed -n 's/^skip //p' | tr '\n' ';')"
    set -- "$1" "$2" $line
    passed=$((passed + $4)); failed=$((failed + $6)); skipped=$((skipped + $8))
    if [ "$2" -ne 0 ] && [ "$6" -eq 0 ]; then fail "$1 (exit status $2)"; fi
}

print_totals() {
    if [ "$skipped" -gt 0 ]; then
        echo "$passed passed, $failed failed, $skipped skipped ($(echo "$skipnotes" | sed 's/;$//'))"
    else
        echo "$passed passed, $failed failed"
    fi
    [ "$failed" -eq 0 ]
}
