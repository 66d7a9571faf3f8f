#!/bin/bash
# Tasks across nodes (docs/tasks.md): recursive and independent task
# programs at 1, 2 and 4 ranks against the one-node run and clang-19, one
# markdown table of times and ratios measured in the same run.
#
#   bench/tasks/run.sh [BUILD_DIR] [REPEATS]
#
# BUILD_DIR holds bin/hcc and bin/hcrun (default: build). Every time is the
# program's own (omp_get_wtime around its task region: no launch cost), the
# median of REPEATS runs (default 5), configurations interleaved run by run
# so that load drifts hit all of them. Every run's result line (the time
# taken out) must equal the clang-19 build's, else the row says WRONG.
set -euo pipefail

BUILD=$(cd "${1:-build}" && pwd)
REPEATS=${2:-5}
SRC=$(cd "$(dirname "$0")" && pwd)
HCC=$BUILD/bin/hcc
HCRUN=$BUILD/bin/hcrun
[ -x "$HCC" ] && [ -x "$HCRUN" ] || {
    echo "run.sh: no bin/hcc or bin/hcrun in '$BUILD'; pass the build directory" >&2
    exit 1
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LD_LIBRARY_PATH=/usr/lib/llvm-19/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname): $(nproc) cores, $REPEATS runs each"
echo "# load before: $(uptime | sed 's/.*load/load/')"
for p in fib nqueens sort mc; do
    "$HCC" -O2 "$SRC/$p.c" -o "$work/h_$p"
    clang-19 -O2 -fopenmp "$SRC/$p.c" -o "$work/c_$p"
done

# name|program|args|what
cases=(
    "fib|fib|40 25|recursive, big subtrees (cutoff 25)"
    "nqueens|nqueens|13 2|one task per placement of 2 rows"
    "sort|sort|4000000 500000|mergesort 4M longs, heap data"
    "mc|mc|2000 100000|2000 independent tasks from one single"
    "tiny|fib|30 3|tiny-task tree: never slower"
)
configs=(c1 h1 h1t2 h2 h4 h2s h4s)
label() {
    case $1 in
    c1) echo "clang-19, 1 thread" ;;
    h1) echo "hcc 1 rank x 1" ;;
    h1t2) echo "hcc 1 rank x 2" ;;
    h2) echo "hcc 2 ranks x 1" ;;
    h4) echo "hcc 4 ranks x 1" ;;
    h2s) echo "2 ranks x 1, spread" ;;
    h4s) echo "4 ranks x 1, spread" ;;
    esac
}
run_one() { # config program args... -> prints the program's output line
    local c=$1 p=$2
    shift 2
    case $c in
    c1) OMP_NUM_THREADS=1 timeout -k 5 300 "$work/c_$p" "$@" ;;
    h1) timeout -k 5 300 "$HCRUN" -n 1 --threads 1 "$work/h_$p" "$@" ;;
    h1t2) timeout -k 5 300 "$HCRUN" -n 1 --threads 2 "$work/h_$p" "$@" ;;
    h2) timeout -k 5 300 "$HCRUN" -n 2 --threads 1 "$work/h_$p" "$@" ;;
    h4) timeout -k 5 300 "$HCRUN" -n 4 --threads 1 "$work/h_$p" "$@" ;;
    h2s) HCRT_SCHED_PLACE_HEAD_FIRST=0 timeout -k 5 300 "$HCRUN" -n 2 --threads 1 "$work/h_$p" "$@" ;;
    h4s) HCRT_SCHED_PLACE_HEAD_FIRST=0 timeout -k 5 300 "$HCRUN" -n 4 --threads 1 "$work/h_$p" "$@" ;;
    esac
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a + 0 > 0) printf "%.2f", a / b; else print "n/a" }'; }

declare -A wrong
for cs in "${cases[@]}"; do
    IFS='|' read -r name prog args what <<<"$cs"
    ref=$(OMP_NUM_THREADS=1 "$work/c_$prog" $args | sed 's/ time_s=.*//')
    for _ in $(seq "$REPEATS"); do
        for c in "${configs[@]}"; do
            out=$(run_one "$c" "$prog" $args 2>/dev/null | head -1) || out=""
            t=$(grep -o 'time_s=[0-9.]*' <<<"$out" | cut -d= -f2 || true)
            [ "$(sed 's/ time_s=.*//' <<<"$out")" = "$ref" ] || wrong[$name.$c]=1
            echo "${t:-nan}" >>"$work/$name.$c"
        done
    done
done

echo
echo "| program | $(for c in "${configs[@]}"; do printf '%s (s) | ' "$(label "$c")"; done)2 ranks / 1 rank | 4 ranks / 1 rank | 2 ranks / 1 rank x 2 | 2 spread / 1 rank | 4 spread / 1 rank | 2 spread / 1 rank x 2 | goal |"
echo "|---|$(for _ in "${configs[@]}"; do printf -- '---:|'; done)---:|---:|---:|---:|---:|---:|---|"
for cs in "${cases[@]}"; do
    IFS='|' read -r name prog args what <<<"$cs"
    declare -A m=()
    line="| $name: $what |"
    for c in "${configs[@]}"; do
        m[$c]=$(median <"$work/$name.$c")
        line+=" ${m[$c]}${wrong[$name.$c]:+ WRONG} |"
    done
    s2=$(ratio "${m[h1]}" "${m[h2]}")
    s4=$(ratio "${m[h1]}" "${m[h4]}")
    s22=$(ratio "${m[h1t2]}" "${m[h2]}")
    t2=$(ratio "${m[h1]}" "${m[h2s]}")
    t4=$(ratio "${m[h1]}" "${m[h4s]}")
    t22=$(ratio "${m[h1t2]}" "${m[h2s]}")
    if [ "$name" = tiny ]; then goal="2 ranks >= 0.95x 1 rank x 2 (never slower)"; else goal="2 ranks >= 0.95x 1 rank x 2; spread gains"; fi
    echo "$line ${s2}x | ${s4}x | ${s22}x | ${t2}x | ${t4}x | ${t22}x | $goal |"
done
echo
echo "# ratios are speed-ups (one-rank time / time); \"spread\": HCRT_SCHED_PLACE_HEAD_FIRST=0, a TASKS region's first call on every node (the default between hosts); load after: $(uptime | sed 's/.*load/load/')"
