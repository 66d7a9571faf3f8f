#!/bin/sh
# HEFT's own cost: the scheduler's wall time per task when it places the
# synthetic graph families on 64 to 1024 nodes (hcrt-sched-sim, HEFT only,
# best of REPS runs), plus HEFT's makespan against round-robin's on the
# same graphs. Prints one markdown table.
#
#   bench/heft/pertask.sh [BUILD_DIR] [TASKS] [REPS]
#
# defaults: BUILD_DIR=build, TASKS=10000, REPS=3; HEFT_NODES and
# HEFT_FAMILIES override "64 256 1024" and "stencil fft tree".
set -eu
build=${1:-build}
tasks=${2:-10000}
reps=${3:-3}
sim="$build/bin/hcrt-sched-sim"
[ -x "$sim" ] || { echo "pertask.sh: $sim not found: build it first (ninja -C $build hcrt-sched-sim)" >&2; exit 2; }
echo "| family | nodes | tasks | heft | rr | rr / heft | heft time (ms) | per task (us) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for f in ${HEFT_FAMILIES:-stencil fft tree}; do
    for p in ${HEFT_NODES:-64 256 1024}; do
        best=""
        i=0
        while [ $i -lt "$reps" ]; do
            ms=$("$sim" --gen "$f" --tasks "$tasks" --nodes "$p" --policy heft --csv | cut -d, -f6)
            best=$(awk -v a="$ms" -v b="${best:-$ms}" 'BEGIN { print (a < b ? a : b) }')
            i=$((i + 1))
        done
        "$sim" --gen "$f" --tasks "$tasks" --nodes "$p" --policy heft,rr --csv |
        awk -F, -v best="$best" '
            { span[$4] = $5; n = $3; fam = $1; p = $2 }
            END {
                printf "| %s | %d | %d | %.1f | %.1f | %.2fx | %.1f | %.2f |\n",
                       fam, p, n, span["heft"], span["rr"], span["rr"] / span["heft"],
                       best, best * 1000 / n
            }'
    done
done
