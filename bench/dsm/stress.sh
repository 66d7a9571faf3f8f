#!/usr/bin/env bash
# stress.sh - the DSM's coherence tests and the cluster corpus, over and
# over, under adversarial timing: the same-host fast path and the message
# path, with and without a CPU hog on one core, with randomised delays in
# the protocol (HCRT_DSM_DEBUG_DELAY). Prints one line per failure as it
# happens and a table of runs and failures per test and condition.
#
#   bench/dsm/stress.sh                    # 3 iterations, delays of up to 200 us
#   ITER=20 DELAY=500 bench/dsm/stress.sh  # longer, slower delays
#   MODES="1" HOGS="1" bench/dsm/stress.sh # fast path under a hog only
#   E2E=0 bench/dsm/stress.sh              # the C-API tests only
#   TESTS="dsm_pipeline:2" E2E=0 bench/dsm/stress.sh
#
# ITER       iterations (default 3); each runs every test in every condition
# DELAY      HCRT_DSM_DEBUG_DELAY (default 200: up to 200 us; "" for none)
# MODES      HCRT_DSM_SHM values (default "1 0": fast path, messages)
# HOGS       "0 1" (default): without and with `yes` pinned to core HOG_CPU (1)
# TESTS      C-API tests as name:ranks[:args] (default: the coherence set)
#            (binaries of build/test/runtime; a *_msg one runs with messages only)
# E2E        1 = also the e2e-cluster programs at 2 and 3 ranks (default 1)
# TIMEOUT    seconds per run (default 300)
# KEEP       directory for the output of failed runs (default: a temp dir)
# HCC_BUILD_DIR  build tree (default build/)
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${HCC_BUILD_DIR:-$src/build}")
iter=${ITER:-3}
delay=${DELAY-200}
modes=${MODES:-1 0}
hogs=${HOGS:-0 1}
hog_cpu=${HOG_CPU:-1}
tmo=${TIMEOUT:-300}
e2e=${E2E:-1}
tests=${TESTS:-"dsm_pipeline:2 dsm_pipeline:3 dsm_shm_flag:3 dsm_torture:2 dsm_torture:3:2
dsm_mt_contend:2 dsm_shm_race_msg:3 dsm_shm_exempt:3 dsm_reread:2 dsm_lock:2
dsm_atomic:2 dsm_stride:2 dsm_basic:2"}
keep=${KEEP:-$(mktemp -d /tmp/dsm-stress.XXXXXX)}
mkdir -p "$keep"
rt=$build/test/runtime
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 KMP_BLOCKTIME=0
mpirun=${HCC_MPIRUN:-mpirun}
xs=(-x HCRT_DSM_SHM -x HCRT_DSM_DEBUG_DELAY -x OMP_NUM_THREADS -x HCRT_CLUSTER
    -x KMP_BLOCKTIME)

for t in $tests; do
    [ -x "$rt/${t%%:*}" ] || { echo "missing $rt/${t%%:*}: ninja -C $build" >&2; exit 2; }
done

# The e2e-cluster programs that Inputs/run.sh checks, built once with hcc
# and with the reference compiler from the options of their first run.sh
# RUN line (--with, --env, --libs, -I; --build variants other than the
# default are left to lit). Their --env settings apply to every run.
e2e_dir=$keep/e2e
progs=()
declare -A penv
if [ "$e2e" = 1 ]; then
    clang=${CLANG:-clang-19}
    mkdir -p "$e2e_dir"
    for f in "$src"/test/lit/e2e-cluster/*.c; do
        line=$(grep -m1 'RUN:.*Inputs/run.sh' "$f") || continue
        n=$(basename "$f" .c)
        d=$(dirname "$f")
        read -ra a <<<"$(sed -e 's/.*Inputs\/run.sh//' -e 's/ %s %t.*//' \
            -e "s|%S|$d|g" -e "s/'//g" <<<"$line")"
        withs=() incs=() envs=() libs=""
        for ((j = 0; j < ${#a[@]}; j += 2)); do
            case ${a[j]} in
            --with) withs+=("${a[j + 1]}") ;;
            -I) incs+=(-I "${a[j + 1]}") ;;
            --env) envs+=("${a[j + 1]}") ;;
            --libs) libs=${a[j + 1]} ;;
            --stats) break ;; # a regex of several words, last
            esac
        done
        penv[$n]="${envs[*]}"
        if ! "$clang" -fopenmp -O2 "${incs[@]}" "$f" "${withs[@]}" -o "$e2e_dir/$n.ref" -lm $libs 2>/dev/null ||
            ! "$build/bin/hcc" -fopenmp -O2 "${incs[@]}" "$f" "${withs[@]}" -o "$e2e_dir/$n" -lm $libs 2>/dev/null; then
            echo "skipped $n (does not build)"
            continue
        fi
        for total in 2 3 4 6; do
            env "${envs[@]}" OMP_NUM_THREADS=$total timeout 120 "$e2e_dir/$n.ref" \
                >"$e2e_dir/$n.ref.$total" 2>/dev/null ||
                { echo "skipped $n (the reference fails at $total threads)"; continue 2; }
        done
        progs+=("$n")
    done
fi

hogpid=
stop_hog() { [ -n "$hogpid" ] && kill "$hogpid" 2>/dev/null; hogpid=; }
trap stop_hog EXIT
declare -A runs fails
record() { # key ok detail
    runs[$1]=$((${runs[$1]:-0} + 1))
    if [ "$2" != 1 ]; then
        fails[$1]=$((${fails[$1]:-0} + 1))
        echo "FAIL $1 (iteration $i): $3"
    fi
}

for i in $(seq "$iter"); do
    for hog in $hogs; do
        stop_hog
        if [ "$hog" = 1 ]; then
            taskset -c "$hog_cpu" yes >/dev/null &
            hogpid=$!
        fi
        for mode in $modes; do
            export HCRT_DSM_SHM=$mode HCRT_DSM_DEBUG_DELAY=$delay
            cond="shm=$mode hog=$hog"
            for t in $tests; do
                IFS=: read -r name np args <<<"$t"
                # dsm_shm_flag checks a property of the fast path only
                # (messages need the acquire after the loop: it fails
                # there); *_msg tests check that no page was mapped
                case $name in
                dsm_shm_flag) [ "$mode" = 0 ] && continue ;;
                *_msg) [ "$mode" = 1 ] && continue ;;
                esac
                out=$keep/$name.np$np.$mode.$hog.$i
                timeout -k 5 "$tmo" "$mpirun" --bind-to none -np "$np" "${xs[@]}" \
                    "$rt/$name" $args >"$out" 2>&1
                rc=$?
                [ $rc = 0 ] && rm -f "$out"
                record "$name np$np $cond" $((rc == 0)) "exit $rc, see $out"
            done
            for n in "${progs[@]}"; do
                for np in 2 3; do
                    for th in 1 2; do
                        total=$((np * th))
                        out=$keep/$n.np$np.t$th.$mode.$hog.$i
                        read -ra pe <<<"${penv[$n]}"
                        px=()
                        for kv in "${pe[@]}"; do px+=(-x "${kv%%=*}"); done
                        env "${pe[@]}" HCRT_CLUSTER=1 OMP_NUM_THREADS=$th \
                            timeout -k 5 "$tmo" "$mpirun" --bind-to none \
                            -np "$np" "${xs[@]}" "${px[@]}" "$e2e_dir/$n" \
                            >"$out" 2>"$out.err"
                        rc=$?
                        ok=0
                        [ $rc = 0 ] && cmp -s "$out" "$e2e_dir/$n.ref.$total" && ok=1
                        [ $ok = 1 ] && rm -f "$out" "$out.err"
                        record "e2e/$n np$np t$th $cond" $ok "exit $rc, see $out"
                    done
                done
            done
        done
    done
done
stop_hog

echo
echo "## DSM stress: $iter iteration(s), HCRT_DSM_DEBUG_DELAY='$delay', $(date -u '+%F %H:%M') UTC, $(git -C "$src" rev-parse --short HEAD)"
echo
echo "| test | condition | runs | failures |"
echo "|---|---|---:|---:|"
total=0 failed=0
while IFS= read -r k; do # keys hold spaces
    [ -n "$k" ] || continue
    total=$((total + runs[$k]))
    failed=$((failed + ${fails[$k]:-0}))
    [[ $k == e2e/* ]] && [ -z "${fails[$k]:-}" ] && continue # passing e2e rows: summed below
    name=${k% shm=*}
    echo "| $name | shm=${k#* shm=} | ${runs[$k]} | ${fails[$k]:-0} |"
done < <(printf '%s\n' "${!runs[@]}" | sort)
e2e_runs=0 e2e_fails=0
for k in "${!runs[@]}"; do
    [[ $k == e2e/* ]] || continue
    e2e_runs=$((e2e_runs + runs[$k]))
    e2e_fails=$((e2e_fails + ${fails[$k]:-0}))
done
[ "$e2e" = 1 ] && echo "| e2e-cluster (${#progs[@]} programs, 2-3 ranks, 1-2 threads) | all | $e2e_runs | $e2e_fails |"
echo
echo "total: $total runs, $failed failures (output of failed runs in $keep)"
[ "$failed" = 0 ]
