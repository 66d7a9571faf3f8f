#!/usr/bin/env bash
# Task-Bench-style figures for target offload (issue #6); prints markdown.
#
#   bench/taskbench/run.sh [BUILD_DIR] [metg|policy|all]
#
# metg    METG(50%) at TB_RANKS ranks (default 2): the graph (TB_PATTERN,
#         default stencil_1d, TB_WIDTH x TB_STEPS) is run with growing
#         kernel iterations (TB_ITERS; by factors of 2 around the
#         crossing, as Task Bench sweeps); efficiency = work rate / the best work rate of
#         the sweep (Task Bench's definition: peak measured with the largest
#         tasks), granularity = elapsed x nodes / tasks, with nodes = the
#         devices the program sees (omp_get_num_devices(), at least 1).
#         METG(50%) = the smallest granularity whose efficiency is >= 50%.
# policy  the runtime's cost-based placement vs round-robin at
#         TB_POLICY_RANKS ranks (default 4) on stencil_1d, fft and tree
#         graphs whose points use 4 kernels of costs 1x, 3x, 5x, 7x
#         (taskbench -u 4). The setting and its values: TB_POLICY_VAR
#         (default HCRT_OFFLOAD_POLICY), TB_POLICY_FAST (default heft:
#         whole-graph HEFT over the recorded depend graph; eft: HEFT's
#         earliest-finish-time rule task by task) and TB_POLICY_BASE
#         (default rr). Twice: with the compute kernel (ITER
#         TB_POLICY_ITER, default 200000), and with the waiting kernel
#         (taskbench -S: ITER = TB_POLICY_SLEEP_US microseconds, default
#         250), which models devices with cores of their own (the ranks of
#         this machine share its cores, so with the compute kernel every
#         placement costs the same CPU time). TB_POLICY_RUNS runs of each
#         (default 1) give medians. TB_POLICY_SETUP says where the ranks
#         run:
#           shared  (default) unpinned: the OS spreads them over the cores;
#           pinned  the head and device 1 on core 0, every other device on
#                   the last core (TB_POLICY_RANKS defaults to 3 here);
#           hog     as pinned, plus a CPU-bound process on the last core
#                   (bench/hetprobe's hog setup). Only the compute kernel
#                   runs: a waiting kernel is not slowed by a hog. As the
#                   runtime's helper threads take short time slices
#                   (HCRT_HELPER_SLICE_US), a device that computes less
#                   than half the time is hardly slowed by the hog either:
#                   the scheduler runs the woken device first.
#           quota   as pinned, and every device after the first in a
#                   cgroup of its own limited to TB_QUOTA_PCT (default
#                   33) % of a core over a 2-3 ms period: devices of
#                   different speeds however busy they are (needs root
#                   and the cgroup v1 cpu controller or v2 cpu.max).
#                   Compute kernel only. TB_QUOTA_SCOPE says what the
#                   quota slows: process (default) the whole device
#                   process, its event threads too (a throttled device
#                   then answers messages up to a period late); exec only
#                   its thread that runs kernels (named hcrt-exec; cgroup
#                   v1 only, which moves single threads): a device whose
#                   cores are slower but whose messages are not held up.
#
# Everything runs under `timeout`; the hcc binary is built into
# BUILD_DIR/bench/taskbench, and metg writes its curve there (metg.tsv)
# and draws it (metg.png, plot.py with matplotlib; scripts/setup.sh
# --bench installs it). Re-run on a quiet machine: timings of a loaded
# 2-core box are noisy (the script prints `uptime` first).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:-$src/build}")
what=${2:-all}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 HCRT_CLUSTER=${HCRT_CLUSTER:-1}
out=$build/bench/taskbench
pin=() # a wrapper the ranks run under (the policy setups pinned and hog)
mkdir -p "$out"
[ -x "$build/bin/hcc" ] || { echo "run.sh: $build/bin/hcc not found: build hcc first" >&2; exit 2; }
"$build/bin/hcc" -O2 "$src/bench/taskbench/taskbench.c" -o "$out/taskbench" 2>"$out/build.log" ||
    { cat "$out/build.log" >&2; exit 1; }

tb() { # tb RANKS ARGS...: one run, its key=value line (or "failed") on stdout
    local np=$1
    shift
    echo "== hcrun -n $np taskbench $*" >>"$out/run.err"
    timeout -k 5 600 "$build/bin/hcrun" -n "$np" --threads "${TB_THREADS:-1}" \
        --bind-to none ${pin[@]+"${pin[@]}"} "$out/taskbench" "$@" 2>>"$out/run.err" | grep '^pattern=' ||
        echo "failed"
}
val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; } # val KEY < line

echo "load: $(uptime)"
echo

if [ "$what" = metg ] || [ "$what" = all ]; then
    np=${TB_RANKS:-2} pat=${TB_PATTERN:-stencil_1d}
    w=${TB_WIDTH:-4} s=${TB_STEPS:-100}
    echo "METG(50%): $pat, width $w, $s steps, 64 B per dependency, $np ranks"
    echo "(taskbench -p $pat -w $w -s $s -b 64 -r 6 -n -i ITER; HCRT_CLUSTER=$HCRT_CLUSTER)"
    echo
    echo "| iter | task (us) | tasks | elapsed (ms) | nodes | granularity (us) | efficiency |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
    rows=()
    for it in ${TB_ITERS:-0 1024 2048 4096 8192 16384 32768 65536 262144 1048576}; do
        rows+=("$(tb "$np" -p "$pat" -w "$w" -s "$s" -b 64 -r 6 -n -i "$it")")
    done
    best=0
    for r in "${rows[@]}"; do
        [ "$r" != failed ] || continue
        rate=$(awk -v a="$(val work_s <<<"$r")" -v e="$(val elapsed <<<"$r")" 'BEGIN { print a / e }')
        best=$(awk -v a="$rate" -v b="$best" 'BEGIN { print (a > b ? a : b) }')
    done
    metg=""
    : >"$out/metg.tsv" # granularity (us), efficiency: for plot.py
    for r in "${rows[@]}"; do
        [ "$r" != failed ] || { echo "| failed (see $out/run.err) |"; continue; }
        line=$(awk -v it="$(val iter <<<"$r")" -v t="$(val task_s <<<"$r")" \
            -v n="$(val tasks <<<"$r")" -v e="$(val elapsed <<<"$r")" \
            -v d="$(val devices <<<"$r")" -v a="$(val work_s <<<"$r")" -v best="$best" '
            BEGIN {
                nodes = d > 0 ? d : 1; g = e * nodes / n * 1e6; eff = a / e / best
                printf "| %d | %.2f | %d | %.2f | %d | %.1f | %.0f%% |\t%.3f\t%.6f\n",
                       it, t * 1e6, n, e * 1e3, nodes, g, eff * 100, eff, g
            }')
        echo "${line%%$'\t'*}"
        eff=$(cut -f2 <<<"$line") g=$(cut -f3 <<<"$line")
        printf '%s\t%s\n' "$g" "$eff" >>"$out/metg.tsv"
        if awk -v e="$eff" 'BEGIN { exit !(e >= 0.5) }'; then
            if [ -z "$metg" ] || awk -v g="$g" -v m="$metg" 'BEGIN { exit !(g < m) }'; then metg=$g; fi
        fi
    done
    echo
    if [ -n "$metg" ]; then metg=$(printf %.1f "$metg"); fi
    echo "METG(50%) at $np ranks: ${metg:-none} us (goal <= 50 us)"
    . "$src/bench/pyplot.sh"
    if bench_pyplot "$src" && "$PYPLOT" "$src/bench/taskbench/plot.py" "$out/metg.tsv" "$out/metg.png" \
        "METG, $pat width $w, $np ranks"; then
        echo "(efficiency curve: $out/metg.tsv, plot $out/metg.png)"
    else
        echo "(efficiency curve: $out/metg.tsv; no plot without matplotlib: scripts/setup.sh --bench)"
    fi
    echo
fi

if [ "$what" = policy ] || [ "$what" = all ]; then
    setup=${TB_POLICY_SETUP:-shared} kerns="compute sleep" hog_pid=
    case $setup in
    shared) np=${TB_POLICY_RANKS:-4} ;;
    pinned | hog | quota)
        np=${TB_POLICY_RANKS:-3} last=$(($(getconf _NPROCESSORS_ONLN) - 1))
        cg=
        if [ "$setup" = quota ]; then
            kerns=compute
            # 2 ms period (the kernel's smallest quota is 1 ms: longer
            # periods below 50 %)
            pct=${TB_QUOTA_PCT:-33} period=2000 quota=$((2000 * ${TB_QUOTA_PCT:-33} / 100))
            if [ $quota -lt 1000 ]; then quota=1000 period=$((100000 / pct)); fi
            if [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then
                cg=/sys/fs/cgroup/cpu/hcc-tb-quota.$$
            elif grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
                cg=/sys/fs/cgroup/hcc-tb-quota.$$
            else
                echo "run.sh: the quota setup needs a writable cgroup cpu controller (as root)" >&2
                exit 2
            fi
            scope=${TB_QUOTA_SCOPE:-process}
            case $scope in
            process) ;;
            exec) [ -w /sys/fs/cgroup/cpu/tasks ] || {
                echo "run.sh: TB_QUOTA_SCOPE=exec needs the cgroup v1 cpu controller (as root)" >&2
                exit 2
            } ;;
            *) echo "run.sh: unknown TB_QUOTA_SCOPE '$scope' (process, exec)" >&2; exit 2 ;;
            esac
            for ((r = 2; r < np; r++)); do # one cgroup per slowed device
                mkdir -p "$cg.$r" || exit 2
                if [ -e "$cg.$r/cpu.max" ]; then
                    echo "$quota $period" >"$cg.$r/cpu.max"
                else
                    echo $period >"$cg.$r/cpu.cfs_period_us" && echo $quota >"$cg.$r/cpu.cfs_quota_us"
                fi || exit 2
            done
            trap 'for ((r = 2; r < np; r++)); do rmdir "$cg.$r" 2>/dev/null; done' EXIT
        fi
        # ranks 0 (head) and 1 on core 0, the other devices on the last
        # core; with the quota setup ranks 2.. join their cgroups first
        # (exec scope: a watcher moves the device's hcrt-exec thread alone
        # into the cgroup once the runtime has started it)
        printf '#!/bin/sh\nr=$OMPI_COMM_WORLD_RANK\ncg=%s\nscope=%s\nif [ -n "$cg" ] && [ "$r" -ge 2 ]; then\n  if [ "$scope" = exec ]; then\n    p=$$; (for i in $(seq 1000); do for t in /proc/$p/task/*; do [ "$(cat $t/comm 2>/dev/null)" = hcrt-exec ] && echo ${t##*/} >"$cg.$r/tasks" && exit 0; done; sleep 0.01; done; echo "pin.sh: no hcrt-exec thread in rank $r" >&2) >/dev/null &\n  else echo $$ >"$cg.$r/cgroup.procs"; fi\nfi\n[ "$r" -lt 2 ] && c=0 || c=%d\nexec taskset -c $c "$@"\n' \
            "$cg" "${scope:-process}" "$last" >"$out/pin.sh"
        chmod +x "$out/pin.sh"
        pin=("$out/pin.sh")
        if [ "$setup" = hog ]; then
            kerns=compute
            taskset -c "$last" sh -c 'while :; do :; done' &
            hog_pid=$!
            trap 'kill $hog_pid 2>/dev/null' EXIT
        fi
        ;;
    *) echo "run.sh: unknown TB_POLICY_SETUP '$setup' (shared, pinned, hog, quota)" >&2; exit 2 ;;
    esac
    it=${TB_POLICY_ITER:-200000} us=${TB_POLICY_SLEEP_US:-250}
    var=${TB_POLICY_VAR:-HCRT_OFFLOAD_POLICY} fast=${TB_POLICY_FAST:-heft} base=${TB_POLICY_BASE:-rr}
    runs=${TB_POLICY_RUNS:-1}
    median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    for kern in $kerns; do
        if [ $kern = compute ]; then
            args=(-w 8 -s 16 -i "$it" -b 4096 -u 4 -r 4 -n)
            what_k="compute kernels of costs 1x/3x/5x/7x x $it iterations"
        else
            args=(-w 8 -s 16 -i "$us" -b 4096 -u 4 -r 4 -n -S)
            what_k="waiting kernels (-S) of 1x/3x/5x/7x x $us us"
        fi
        echo "$fast vs $base ($var): $what_k, $np ranks ($setup), median of $runs run(s)"
        echo "(taskbench -p P ${args[*]})"
        echo
        echo "| pattern | tasks | devices | work (ms) | $fast (ms) | $base (ms) | $base / $fast | per run |"
        echo "|---|---:|---:|---:|---:|---:|---:|---|"
        for p in stencil_1d fft tree; do
            hs=() rs=() h=failed
            for ((k = 0; k < runs; k++)); do # alternate: both see the same load
                h=$(export "$var=$fast"; tb "$np" -p $p "${args[@]}") # subshell: local
                r=$(export "$var=$base"; tb "$np" -p $p "${args[@]}")
                [ "$h" != failed ] && [ "$r" != failed ] || break
                hs+=("$(val elapsed <<<"$h")") rs+=("$(val elapsed <<<"$r")")
            done
            if [ ${#hs[@]} -lt "$runs" ]; then
                echo "| $p | failed ($fast: ${h%% *}, $base: ${r%% *}; see $out/run.err) |"
                continue
            fi
            hm=$(printf '%s\n' "${hs[@]}" | median) rm=$(printf '%s\n' "${rs[@]}" | median)
            each=$(for ((k = 0; k < runs; k++)); do
                awk -v h="${hs[k]}" -v r="${rs[k]}" 'BEGIN { printf "%.2f ", r / h }'
            done)
            awk -v p=$p -v n="$(val tasks <<<"$h")" -v a="$(val work_s <<<"$h")" \
                -v h="$hm" -v r="$rm" -v d="$(val devices <<<"$h")" -v e="$each" '
                BEGIN { printf "| %s | %d | %d | %.1f | %.1f | %.1f | %.2fx | %s|\n", p, n, d, a * 1e3, h * 1e3, r * 1e3, r / h, e }'
        done
        echo
    done
    if [ -n "$hog_pid" ]; then kill "$hog_pid" 2>/dev/null; fi
fi
