#!/bin/sh
# Compares the task placement policies' simulated makespans (HEFT,
# round-robin, locality-greedy) over the synthetic graph families at several
# node counts, with hcrt-sched-sim. Prints one markdown table.
#
#   bench/heft/run.sh [BUILD_DIR] [TASKS] [SEED] [CCR]
#
# defaults: BUILD_DIR=build, TASKS=10000, SEED=1, CCR=1. Node counts and
# families can be overridden with HEFT_NODES / HEFT_FAMILIES.
set -eu
build=${1:-build}
tasks=${2:-10000}
seed=${3:-1}
ccr=${4:-1}
sim="$build/bin/hcrt-sched-sim"
nodes=${HEFT_NODES:-"2 4 16 64 1024"}
families=${HEFT_FAMILIES:-"chain fanout fanin diamond stencil tree fft alltoall random"}
if [ ! -x "$sim" ]; then
    echo "run.sh: $sim not found: build it first (ninja -C $build hcrt-sched-sim)" >&2
    exit 2
fi
echo "tasks~$tasks seed=$seed ccr=$ccr het=0.5 (makespans in abstract units; gain = baseline / heft)"
echo
echo "| family | nodes | tasks | heft | rr | locality | gain vs rr | gain vs locality | heft time (ms) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for f in $families; do
    for p in $nodes; do
        "$sim" --gen "$f" --tasks "$tasks" --nodes "$p" --seed "$seed" \
               --ccr "$ccr" --csv |
        awk -F, '
            { span[$4] = $5; ms[$4] = $6; n = $3; fam = $1; p = $2 }
            END {
                printf "| %s | %d | %d | %.1f | %.1f | %.1f | %.2fx | %.2fx | %.1f |\n",
                       fam, p, n, span["heft"], span["rr"], span["locality"],
                       span["rr"] / span["heft"], span["locality"] / span["heft"],
                       ms["heft"]
            }'
    done
done
