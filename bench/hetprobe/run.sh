#!/usr/bin/env bash
# bench/hetprobe/run.sh - the HetProbe benchmark suite (issue #5).
#
#   HCC_BUILD_DIR=build bench/hetprobe/run.sh [--quick] [--kernels "ep triad"]
#                                              [--setups "homo hog"] [--out DIR]
#                                              [--configs "hetprobe hetprobe_i"]
#                                              [--scale S] [--reps N]
#                                              [--sweep "0.5 1 2"] [--repeat N]
#                                              [--np N]
#
# Builds kernels.c with hcc, then runs every kernel at 2 ranks (one thread
# each, rank r pinned to core r % ncores) under these configurations, all
# in the same run:
#   one         the kernel at 1 rank on node 0's core: one node, no DSM
#               (not in the default list; not counted as a single node
#               of the 2-rank job in the goal checks)
#   head        static, HCRT_SCHED_CSR=1000000,1 (node 0 does everything)
#   worker      static, HCRT_SCHED_CSR=1,1000000 (node 1 does everything)
#   static      static, even split
#   dynamic     dynamic,16 (node pools refilled from the global counter)
#   oracle      static with HCRT_SCHED_CSR=w,1 for every w of the sweep; best
#   hetprobe    OMP_SCHEDULE=hetprobe
#   hetprobe_i  OMP_SCHEDULE=hetprobe_i
# Setups: homo (both ranks alone on their core), hog (a CPU-bound process
# shares rank 1's core: real contention, node 1's threads compete with it
# for every time slice), quota (rank 1 in a cgroup with a CPU quota of BENCH_QUOTA_PCT,
# default 50 %, of its core over a 2 ms period: a node at about half
# speed; needs root and the cgroup v1 cpu controller or cgroup v2's
# cpu.max), threads (HCRT_NODE_THREADS=2,1, unpinned). The DSM runs over messages
# (HCRT_DSM_SHM=0) so the ranks behave like separate hosts; set
# BENCH_SHM=1 to keep the same-host shared-memory path.
# The fault-period threshold is calibrated first, as issue #5 asks, by
# build/bin/hcrt-calibrate at 2 ranks under the same DSM settings (about
# 10 s; DIR/calibration), unless HCRT_SCHED_CALIBRATION or
# HCRT_SCHED_FAULT_PERIOD_US is set (then that is used).
# --repeat N runs every configuration N times, in N rounds over all of them (median reported).
# Writes DIR/results.tsv (setup kernel config seconds, and the seconds of
# the calls after the first two: without the probe's first calls), then
# summarize.py prints the markdown tables and the goal checks and draws
# DIR/hetprobe.png (matplotlib; scripts/setup.sh --bench installs it).
# DIR defaults to BUILD/bench/hetprobe/run. To make a run the current one
# of bench/RESULTS.md, copy its results.tsv to bench/hetprobe/results/
# (report.sh regenerates the tables and plots from there).
# --np N runs N ranks instead of 2 (rank r still pinned to core r % ncores,
# so at 4 ranks on 2 cores two nodes share each core, and the hog or the
# quota slows the nodes of core 1). The CSR lists then cover every node:
# head = node 0 alone, worker = node 1 alone, oracle = w for the nodes of
# core 0 and 1 for the others ("w,1,w,1").
# A full run (scale 4, 4 calls, 9-point sweep, 4 setups: 540 runs) takes
# about 80-120 minutes on a quiet 2-core machine; --quick (scale 1, 2 calls,
# 3-point sweep, homo + hog: 162 runs) about 10-15.
set -u
# These measure the cross-node runtime: with every rank on this host,
# regions would start on the head alone (docs/placement.md), so they start
# on all nodes here as between hosts, unless the caller says otherwise.
export HCRT_SCHED_PLACE_HEAD_FIRST=${HCRT_SCHED_PLACE_HEAD_FIRST:-0}
here=$(cd "$(dirname "$0")" && pwd)
build=${HCC_BUILD_DIR:-$here/../../build}
out=${OUT:-$build/bench/hetprobe/run}
np=2 scale=4 reps=4 repeat=1 sweep="0.25 0.5 0.67 0.8 1 1.25 1.5 2 4"
kernels="ep bs kmeans nbody triad stencil spmv lu irreg"
setups="homo hog quota threads"
configs="head worker static dynamic oracle hetprobe hetprobe_i"
while [ $# -gt 0 ]; do
    case $1 in
    --quick) scale=1 reps=2 sweep="0.5 1 2" setups="homo hog" ;;
    --kernels) kernels=$2; shift ;;
    --setups) setups=$2; shift ;;
    --configs) configs=$2; shift ;;
    --out) out=$2; shift ;;
    --scale) scale=$2; shift ;;
    --reps) reps=$2; shift ;;
    --sweep) sweep=$2; shift ;;
    --repeat) repeat=$2; shift ;;
    --np) np=$2; shift ;;
    *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
mkdir -p "$out" || exit 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$build/bin/hcc" -fopenmp -O2 "$here/kernels.c" -o "$out/kernels" -lm || exit 1
# A private copy of the runtime: a rebuild of the tree during the run does
# not change (or break) what is measured.
mkdir -p "$out/lib" && cp -L "$build/lib/libhcrt.so.0" "$out/lib/" || exit 1
export LD_LIBRARY_PATH=$out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Not nproc: it honours OMP_NUM_THREADS (1 in every run below), and
# rank % 1 would pin every rank to core 0.
ncores=$(getconf _NPROCESSORS_ONLN)
if [ -z "${HCRT_SCHED_CALIBRATION:-}" ] && [ -z "${HCRT_SCHED_FAULT_PERIOD_US:-}" ]; then
    HCRT_DSM_SHM=${BENCH_SHM:-0} timeout -k 5 600 mpirun --oversubscribe \
        --bind-to none -x HCRT_DSM_SHM -np 2 "$build/bin/hcrt-calibrate" \
        --out "$out/calibration" >"$out/calibration.log" 2>&1 || {
        echo "run.sh: hcrt-calibrate failed, see $out/calibration.log" >&2
        exit 1
    }
    export HCRT_SCHED_CALIBRATION=$out/calibration
fi
echo "# threshold: ${HCRT_SCHED_FAULT_PERIOD_US:+$HCRT_SCHED_FAULT_PERIOD_US us (HCRT_SCHED_FAULT_PERIOD_US)}${HCRT_SCHED_CALIBRATION:+$(grep -h '^fault_period_us' "$HCRT_SCHED_CALIBRATION") from $HCRT_SCHED_CALIBRATION}"
# Pins each rank to one core (rank % ncores) unless the setup says not to.
cat >"$out/pin.sh" <<'EOF'
#!/usr/bin/env bash
# quota setup: rank 1 (this shell, then the program it execs) joins the
# cgroup whose CPU quota slows it
if [ -n "${BENCH_CGROUP:-}" ] && [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then
    echo $$ >"$BENCH_CGROUP/cgroup.procs" || exit 1
fi
if [ "${BENCH_PIN:-1}" = 1 ]; then
    exec taskset -c $((OMPI_COMM_WORLD_RANK % $(getconf _NPROCESSORS_ONLN))) "$@"
fi
exec "$@"
EOF
chmod +x "$out/pin.sh"

hog_pid= cgroup=
stop_hog() {
    [ -n "$hog_pid" ] && kill "$hog_pid" 2>/dev/null
    hog_pid=
    [ -n "$cgroup" ] && rmdir "$cgroup" 2>/dev/null
    cgroup=
}
# make_quota_cgroup PCT: a cgroup limited to PCT % of one core over a 2 ms
# period (short, so a probe of a few ms sees the quota rather than a burst)
make_quota_cgroup() {
    local pct=$1 period=2000
    local quota=$((period * pct / 100))
    if [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then
        cgroup=/sys/fs/cgroup/cpu/hcc-bench-quota.$$
        mkdir -p "$cgroup" && echo $period >"$cgroup/cpu.cfs_period_us" &&
            echo $quota >"$cgroup/cpu.cfs_quota_us" && return 0
    elif grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
        cgroup=/sys/fs/cgroup/hcc-bench-quota.$$
        mkdir -p "$cgroup" && echo "$quota $period" >"$cgroup/cpu.max" && return 0
    fi
    echo "run.sh: the quota setup needs a writable cgroup cpu controller" \
        "(cgroup v1 /sys/fs/cgroup/cpu or v2 cpu.max, as root); use" \
        "--setups \"homo hog\" instead" >&2
    cgroup=
    return 1
}
trap stop_hog EXIT
trap 'stop_hog; exit 130' INT TERM

# run SETUP KERNEL CONFIG [VAR=VALUE...]: one mpirun, a result row
# (summarize.py takes the median of the `repeat` rows of a cell).
run() {
    local setup=$1 kernel=$2 config=$3
    shift 3
    local line
    line=$(env BENCH_CALLS=1 HCRT_CLUSTER=1 OMP_NUM_THREADS=1 HCRT_DSM_SHM=${BENCH_SHM:-0} \
        HCRT_SCHED_CSR= HCRT_NODE_THREADS= BENCH_PIN=1 BENCH_CGROUP=$cgroup "$@" \
        timeout -k 5 600 mpirun --oversubscribe --bind-to none \
        -x HCRT_CLUSTER -x OMP_NUM_THREADS -x HCRT_DSM_SHM -x OMP_SCHEDULE \
        -x HCRT_SCHED_CSR -x HCRT_NODE_THREADS -x BENCH_PIN -x BENCH_CGROUP \
        -x BENCH_CALLS -x HCRT_SCHED_PLACE_HEAD_FIRST \
        -x LD_LIBRARY_PATH \
        ${HCRT_SCHED_CALIBRATION:+-x HCRT_SCHED_CALIBRATION} \
        ${HCRT_SCHED_FAULT_PERIOD_US:+-x HCRT_SCHED_FAULT_PERIOD_US} -np "${BENCH_NP:-$np}" \
        "$out/pin.sh" "$out/kernels" "$kernel" "$scale" "$reps" 2>"$out/last.err")
    # per-call times (BENCH_CALLS): the calls after the first two, i.e.
    # without the probe's first calls; "-" with fewer than 3 calls
    local t steady
    t=$(echo "$line" | awk -v k="$kernel" '$1 == k { print $2 }')
    steady=$(awk '$1 == "call" { n++; if (n > 2) s += $2 } END { print (n > 2 ? s : "-") }' "$out/last.err")
    grep -v '^call ' "$out/last.err" >>"$out/errors.log"
    printf '%s\t%s\t%s\t%s\t%s\n' "$setup" "$kernel" "$config" "${t:-NaN}" "$steady" >>"$out/results.tsv"
    printf '%-8s %-8s %-12s %s\n' "$setup" "$kernel" "$config" "${t:-FAILED}"
}

# csr_list WHO A B: an HCRT_SCHED_CSR list for the np nodes, A for node WHO
# (or, WHO = core0, for every node pinned to core 0) and B for the others
csr_list() {
    local r l=
    for ((r = 0; r < np; r++)); do
        if [ "$1" = core0 ] && ((r % ncores == 0)) || [ "$1" = "$r" ]; then
            l+=${l:+,}$2
        else
            l+=${l:+,}$3
        fi
    done
    echo "$l"
}

: >"$out/results.tsv"
: >"$out/errors.log"
start=$(date +%s)
echo "# load before: $(uptime)"
for setup in $setups; do
    extra=()
    case $setup in
    homo) ;;
    hog)
        taskset -c $((1 % ncores)) bash -c 'while :; do :; done' &
        hog_pid=$!
        ;;
    quota) make_quota_cgroup "${BENCH_QUOTA_PCT:-50}" || exit 2 ;;
    threads) extra=(HCRT_NODE_THREADS=2,1 BENCH_PIN=0) ;;
    *) echo "run.sh: unknown setup '$setup' (homo, hog, quota, threads)" >&2; exit 2 ;;
    esac
    # The repeats go round every kernel and configuration in turn, so a
    # slow spell of the machine (a shared VM has them, 30-40 % for
    # minutes) falls on all of them rather than on the runs of one cell
    # (back-to-back runs of a cell once made triad look 18-23 % slower
    # under HetProbe where interleaved runs showed no difference).
    for ((rep = 0; rep < repeat; rep++)); do
    for k in $kernels; do
        for c in $configs; do
            case $c in
            one) BENCH_NP=1 run "$setup" "$k" one "${extra[@]}" OMP_SCHEDULE=static ;;
            head) run "$setup" "$k" head "${extra[@]}" OMP_SCHEDULE=static HCRT_SCHED_CSR=$(csr_list 0 1000000 1) ;;
            worker) run "$setup" "$k" worker "${extra[@]}" OMP_SCHEDULE=static HCRT_SCHED_CSR=$(csr_list 1 1000000 1) ;;
            static) run "$setup" "$k" static "${extra[@]}" OMP_SCHEDULE=static ;;
            dynamic) run "$setup" "$k" dynamic "${extra[@]}" OMP_SCHEDULE=dynamic,16 ;;
            oracle)
                for w in $sweep; do
                    run "$setup" "$k" "csr=$w" "${extra[@]}" OMP_SCHEDULE=static HCRT_SCHED_CSR=$(csr_list core0 "$w" 1)
                done
                ;;
            hetprobe | hetprobe_i) run "$setup" "$k" "$c" "${extra[@]}" OMP_SCHEDULE=$c ;;
            *) echo "run.sh: unknown configuration '$c'" >&2; exit 2 ;;
            esac
        done
    done
    done
    stop_hog
done
echo "# load after: $(uptime)"
echo "# $(($(date +%s) - start)) s; $np ranks, scale $scale, $reps calls, $repeat run(s) each, sweep $sweep"
. "$here/../pyplot.sh"
if bench_pyplot "$here/../.."; then
    "$PYPLOT" "$here/summarize.py" "$out/results.tsv" "$out/hetprobe.png"
else
    echo "run.sh: no matplotlib: tables only (scripts/setup.sh --bench)" >&2
    python3 "$here/summarize.py" "$out/results.tsv"
fi
