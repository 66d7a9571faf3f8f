#!/usr/bin/env bash
# run_onenode.sh [REPS]: one-node run time of hcc against clang-19 -fopenmp
# on the microbenchmarks of bench/onenode (many short parallel loops, many
# reductions, many small tasks). Each binary runs REPS times (default 5) at
# OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} as a plain ./prog (no launcher),
# interleaved. The table shows, per benchmark, the minimum and median
# process wall time (what a user waits for, start-up included) and the
# minimum kernel time the program measures itself (omp_get_wtime around the
# timed part), with the ratios hcc/clang of the minima; goal: <= 1.05.
# Outputs must agree (the script fails otherwise). HCC_BUILD_DIR selects the
# build tree (default: build).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${HCC_BUILD_DIR:-$src/build}
reps=${1:-5}
hcc=$build/bin/hcc
clang=${CLANG:-clang-19}
[ -x "$hcc" ] || { echo "run_onenode.sh: no $hcc: build hcc first" >&2; exit 1; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# wall SECONDS of one run of "$@", its stdout into $work/out
wall() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >"$work/out"
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'
}

# stats "v1 v2 ...": "min median"
stats() {
    tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g |
        awk '{v[NR]=$1} END {m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2;
                            printf "%.3f %.3f", v[1], m}'
}

echo "machine load before the run: $(cut -d" " -f1-3 /proc/loadavg) on $(getconf _NPROCESSORS_ONLN) cores"
printf "one-node run time, OMP_NUM_THREADS=%s, %s runs each, seconds\n" \
    "$OMP_NUM_THREADS" "$reps"
printf "%-10s %-24s %-24s %-13s %-13s %s\n" "" \
    "clang-19 -fopenmp" hcc "ratio (min)" "" ""
printf "%-10s %-24s %-24s %-6s %-6s %s\n" bench "wall min/med  kernel" \
    "wall min/med  kernel" wall kernel goal
status=0
for b in loops reduction tasks; do
    "$clang" -fopenmp -O2 "$src/bench/onenode/$b.c" -o "$work/$b.clang"
    "$hcc" -fopenmp -O2 "$src/bench/onenode/$b.c" -o "$work/$b.hcc"
    tc="" th="" kc="" kh=""
    for ((r = 0; r < reps; r++)); do # interleaved, so drift hits both
        tc+=" $(wall "$work/$b.clang")"
        kc+=" $(awk '/^kernel_seconds/ { print $2 }' "$work/out")"
        grep -v kernel_seconds "$work/out" >"$work/ref"
        th+=" $(wall "$work/$b.hcc")"
        kh+=" $(awk '/^kernel_seconds/ { print $2 }' "$work/out")"
        grep -v kernel_seconds "$work/out" | diff -q "$work/ref" - >/dev/null ||
            { echo "run_onenode.sh: $b: hcc output differs from clang" >&2; status=1; }
    done
    read -r cmin cmed <<<"$(stats "$tc")"
    read -r hmin hmed <<<"$(stats "$th")"
    read -r ckmin _ <<<"$(stats "$kc")"
    read -r hkmin _ <<<"$(stats "$kh")"
    printf "%-10s %6s/%6s  %8s   %6s/%6s  %8s   %6.3f %6.3f %s\n" "$b" \
        "$cmin" "$cmed" "$ckmin" "$hmin" "$hmed" "$hkmin" \
        "$(awk -v a="$hmin" -v b="$cmin" 'BEGIN { print a / b }')" \
        "$(awk -v a="$hkmin" -v b="$ckmin" 'BEGIN { print a / b }')" "<= 1.05"
done
exit $status
