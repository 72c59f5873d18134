# ctorchrun's checks, sourced by tests/dist/run.sh (its pass and fail count
# them): the launcher drives tests/dist/launch_worker.c, which prints its
# environment, fails with a chosen code or signal, or waits to be stopped.
# No MPI is needed. Each run is bounded by timeout, so a launcher that does
# not stop its workers fails instead of hanging.
run=$BUILD/ctorchrun worker=$BUILD/dist/launch_worker
lt=$(mktemp -d)
# launch NAME ARGS...: runs ctorchrun with OMP_NUM_THREADS unset; stdout in
# $lt/NAME.out, stderr in $lt/NAME.err, the status in $st
launch() {
    n=$1; shift
    timeout 20 env -u OMP_NUM_THREADS CTORCHRUN_TERM_TIMEOUT=${TERM_TIMEOUT:-30} "$run" "$@" >"$lt/$n.out" 2>"$lt/$n.err"
    st=$?
}
# expect NAME FILE TEXT...: each text is a line of the file (fixed string)
expect() {
    n=$1 f=$2; shift 2
    for want in "$@"; do
        if ! grep -qxF -- "$want" "$f"; then
            fail "$n (no line '$want' in its output)"; sed 's/^/    /' "$lt/$n.out" "$lt/$n.err" | head -30; return 1
        fi
    done
}
check() { # NAME WANTED_STATUS TEXT...: the status, then lines of stdout or stderr
    n=$1 want=$2; shift 2
    if [ "$st" -ne "$want" ]; then
        fail "$n (status $st, wanted $want)"; sed 's/^/    /' "$lt/$n.out" "$lt/$n.err" | head -30; return
    fi
    cat "$lt/$n.out" "$lt/$n.err" > "$lt/$n.all"
    expect "$n" "$lt/$n.all" "$@" && pass "$n"
}

if [ ! -x "$run" ] || [ ! -x "$worker" ]; then
    fail "ctorchrun (did not build)"
else
    launch ctorchrun_env --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr 10.1.2.3 --master_port 1234 "$worker" env
    check ctorchrun_env 0 "2 RANK=2" "2 LOCAL_RANK=0" "3 RANK=3" "3 LOCAL_RANK=1" "3 WORLD_SIZE=4" \
        "3 LOCAL_WORLD_SIZE=2" "3 GROUP_RANK=1" "3 GROUP_WORLD_SIZE=2" "3 ROLE_RANK=3" "3 ROLE_NAME=default" \
        "3 ROLE_WORLD_SIZE=4" "3 MASTER_ADDR=10.1.2.3" "3 MASTER_PORT=1234" "3 OMP_NUM_THREADS=1" \
        "3 TORCHELASTIC_RESTART_COUNT=0" "3 TORCHELASTIC_MAX_RESTARTS=0" "3 TORCHELASTIC_RUN_ID=none"

    launch ctorchrun_defaults "$worker" env
    check ctorchrun_defaults 0 "0 RANK=0" "0 WORLD_SIZE=1" "0 MASTER_ADDR=127.0.0.1" "0 MASTER_PORT=29500" \
        "0 OMP_NUM_THREADS=(unset)"
    if grep -q OMP_NUM_THREADS "$lt/ctorchrun_defaults.err"; then fail "ctorchrun_no_omp_notice_for_one_process"
    else pass "ctorchrun_no_omp_notice_for_one_process"; fi

    # torchrun's notice, and OMP_NUM_THREADS=1, only when unset and more than one process
    launch ctorchrun_omp_notice --nproc_per_node=2 "$worker" env
    check ctorchrun_omp_notice 0 "1 OMP_NUM_THREADS=1" "*****************************************" \
        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. "
    st=0; OMP_NUM_THREADS=3 timeout 20 "$run" --nproc_per_node 2 "$worker" env >"$lt/ctorchrun_omp_kept.out" 2>"$lt/ctorchrun_omp_kept.err" || st=$?
    check ctorchrun_omp_kept 0 "0 OMP_NUM_THREADS=3" "1 OMP_NUM_THREADS=3"
    if grep -q "Setting OMP_NUM_THREADS" "$lt/ctorchrun_omp_kept.err"; then fail "ctorchrun_no_omp_notice_when_set"
    else pass "ctorchrun_no_omp_notice_when_set"; fi

    # flags' defaults from PET_ variables, as torchrun's env action
    st=0; PET_NPROC_PER_NODE=3 PET_MASTER_PORT=4321 timeout 20 "$run" "$worker" env >"$lt/ctorchrun_pet.out" 2>"$lt/ctorchrun_pet.err" || st=$?
    check ctorchrun_pet 0 "2 WORLD_SIZE=3" "2 MASTER_PORT=4321"

    # an IPv6 master address, bare or in brackets: the workers get it bare, as
    # torchrun's static rendezvous gives it (parse_rendezvous_endpoint)
    launch ctorchrun_ipv6_addr --master_addr ::1 --master_port 1234 "$worker" env
    check ctorchrun_ipv6_addr 0 "0 MASTER_ADDR=::1" "0 MASTER_PORT=1234"
    launch ctorchrun_ipv6_brackets '--master_addr=[::1]' "$worker" env
    check ctorchrun_ipv6_brackets 0 "0 MASTER_ADDR=::1"
    launch ctorchrun_bad_addr --master_addr "[::1" "$worker" env
    check ctorchrun_bad_addr 2 "ctorchrun: ValueError: The hostname of the rendezvous endpoint '[::1:29500' must be a dot-separated list of labels, an IPv4 address, or an IPv6 address."

    # a gloo group's rendezvous through ctorchrun over IPv6: gloo_test's agent
    # mode is a rank that all-reduces its rank and prints the sum (rank 0
    # serves the store, on [::]; the ranks reach it at ::1)
    gloo=$BUILD/dist/gloo_test
    for n in ctorchrun_gloo_over_ipv6:::1 'ctorchrun_gloo_over_ipv6_brackets:[::1]'; do
        if ! "$worker" has_ipv6; then skip "${n%%:*}" "no IPv6 loopback (::1) on this machine"; continue; fi
        if [ ! -x "$gloo" ]; then fail "${n%%:*} (gloo_test did not build)"; continue; fi
        launch "${n%%:*}" --nproc_per_node 2 --master_addr "${n#*:}" --master_port "$("$worker" free_port)" "$gloo" agent
        check "${n%%:*}" 0 "sum=1"
    done

    launch ctorchrun_standalone --standalone --nproc_per_node 2 "$worker" env
    check ctorchrun_standalone 0 "1 WORLD_SIZE=2" "1 MASTER_ADDR=127.0.0.1"
    if grep -qx "0 MASTER_PORT=[0-9][0-9]*" "$lt/ctorchrun_standalone.out"; then pass ctorchrun_standalone_port
    else fail ctorchrun_standalone_port; fi

    # rank 1 exits 3: the others are stopped with SIGTERM, the report names rank 1
    launch ctorchrun_failure --nproc_per_node 3 "$worker" exit 1 3
    check ctorchrun_failure 1 "rank 0 got SIGTERM" "rank 2 got SIGTERM" "$worker FAILED" "Failures:" \
        "  <NO_OTHER_FAILURES>" "Root Cause (first observed failure):" "[0]:" "  rank      : 1 (local_rank: 1)" \
        "  error_file: <N/A>" "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
    if grep -q "^  exitcode  : 3 (pid: [0-9]*)$" "$lt/ctorchrun_failure.err"; then pass ctorchrun_failure_exitcode
    else fail ctorchrun_failure_exitcode; fi

    # a worker killed by a signal: Python's negative exit code and the signal's name
    launch ctorchrun_signal --nproc_per_node 2 --nnodes 2 --node_rank 1 "$worker" signal 3 9
    check ctorchrun_signal 1 "rank 2 got SIGTERM" "  rank      : 3 (local_rank: 1)"
    if grep -q "^  exitcode  : -9 (pid: [0-9]*)$" "$lt/ctorchrun_signal.err" &&
        grep -q "^  traceback : Signal 9 (SIGKILL) received by PID [0-9]*$" "$lt/ctorchrun_signal.err"; then
        pass ctorchrun_signal_report
    else fail ctorchrun_signal_report; fi

    # workers that ignore SIGTERM are killed after the grace period
    TERM_TIMEOUT=0.5 launch ctorchrun_sigkill --nproc_per_node 3 "$worker" stubborn 0 5
    check ctorchrun_sigkill 1 "  rank      : 0 (local_rank: 0)"

    # the group restarts as a whole, up to --max_restarts times
    launch ctorchrun_restart --nproc_per_node 2 --max_restarts 2 "$worker" restart 2
    check ctorchrun_restart 0 "rank 0 attempt 0" "rank 0 attempt 1" "rank 0 attempt 2" "rank 1 attempt 2" \
        "WARNING:ctorchrun:[default] Worker group FAILED. 2/2 attempts left; will restart worker group" \
        "WARNING:ctorchrun:[default] Worker group FAILED. 1/2 attempts left; will restart worker group"
    launch ctorchrun_restarts_spent --nproc_per_node 2 --max_restarts 1 "$worker" restart 5
    check ctorchrun_restarts_spent 1 "rank 0 attempt 1" "  rank      : 0 (local_rank: 0)"
    if grep -q "attempt 2" "$lt/ctorchrun_restarts_spent.out"; then fail "ctorchrun_restarts_spent (a third attempt ran)"
    else pass ctorchrun_restarts_bounded; fi

    # SIGTERM to ctorchrun stops the workers, then ctorchrun dies of it (the
    # workers would end on their own after 30 s: the run is bounded)
    "$run" --nproc_per_node 2 "$worker" exit 9 0 >"$lt/ctorchrun_sigterm.out" 2>"$lt/ctorchrun_sigterm.err" &
    lp=$!
    sleep 2
    kill -TERM "$lp"
    st=0; { wait "$lp"; } 2>/dev/null || st=$?
    check ctorchrun_sigterm 143 "rank 0 got SIGTERM" "rank 1 got SIGTERM" \
        "WARNING:ctorchrun:Received 15 death signal, shutting down workers"

    # a program that cannot be run fails like a worker that exits 127
    launch ctorchrun_no_program --nproc_per_node 1 "$lt/no-such-program"
    check ctorchrun_no_program 1 "  rank      : 0 (local_rank: 0)"
    if grep -q "^  exitcode  : 127 (pid: [0-9]*)$" "$lt/ctorchrun_no_program.err"; then pass ctorchrun_no_program_127
    else fail ctorchrun_no_program_127; fi

    # argparse's usage errors: status 2
    launch ctorchrun_usage_no_script --nproc_per_node 2
    check ctorchrun_usage_no_script 2 "ctorchrun: error: the following arguments are required: training_script, training_script_args"
    launch ctorchrun_usage_unknown --rdzv_backend c10d "$worker" env
    check ctorchrun_usage_unknown 2 "ctorchrun: error: unrecognized arguments: --rdzv_backend"
fi
rm -rf "$lt"
