#!/usr/bin/env bash
# compile_time.sh [REPS]: compile time of hcc against clang-19 -fopenmp on
# the example corpus (the C/C++ programs of test/lit/e2e and examples/).
# Every source is compiled to an object at -O2, REPS times (default 3) with
# each compiler, interleaved. Per file the table gives the minimum wall time
# and the minimum CPU time (user+sys of the compiler and its children: the
# steadier figure on a shared machine), then the totals and the ratios
# hcc/clang (goal <= 1.15). Sources with target regions get the host-only
# offload flags for both compilers. HCC_BUILD_DIR selects the build tree
# (default: build).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${HCC_BUILD_DIR:-$src/build}
reps=${1:-3}
hcc=$build/bin/hcc
clang=${CLANG:-clang-19}
clangxx=${CLANGXX:-clang++-19}
[ -x "$hcc" ] || { echo "compile_time.sh: no $hcc: build hcc first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# clang needs llvm-19's own tools (clang-offload-packager) for offload flags
export PATH=/usr/lib/llvm-19/bin:$PATH

secs() { # secs CMD...: "wall cpu" seconds of CMD, its output discarded
    local TIMEFORMAT='%R %U %S' t
    t=$({ time "$@" >/dev/null 2>&1; } 2>&1) ||
        { echo "compile_time.sh: failed: $*" >&2; return 1; }
    awk '{ printf "%.4f %.4f", $1, $2 + $3 }' <<<"$t"
}

min_of() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g | head -1; }

col() { awk -v c="$1" '{ print $c }' <<<"$2" | tr '\n' ' '; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { print a + b }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

echo "machine load before the run: $(cut -d" " -f1-3 /proc/loadavg) on $(nproc) cores"
printf "compile time (-c -O2), min of %s runs per file, seconds\n" "$reps"
printf "%-24s %17s %17s %13s\n" "" "clang-19 -fopenmp" hcc "ratio"
printf "%-24s %8s %8s %8s %8s %6s %6s\n" file wall cpu wall cpu wall cpu
cw_all=0 cc_all=0 hw_all=0 hc_all=0 status=0
for f in "$src"/test/lit/e2e/*.c "$src"/test/lit/e2e/*.cpp "$src"/examples/*.c; do
    flags="-fopenmp -O2 -I$src/test/lit/e2e/Inputs -c"
    grep -q 'pragma omp target' "$f" &&
        flags+=" -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only"
    rc=$clang hc=$hcc
    case $f in *.cpp) rc=$clangxx hc=$hcc++ ;; esac
    tc="" th=""
    for ((r = 0; r < reps; r++)); do
        tc+="$(secs "$rc" $flags "$f" -o "$work/c.o")"$'\n' || status=1
        th+="$(secs "$hc" $flags "$f" -o "$work/h.o")"$'\n' || status=1
    done
    cw=$(min_of "$(col 1 "$tc")") cc=$(min_of "$(col 2 "$tc")")
    hw=$(min_of "$(col 1 "$th")") hc=$(min_of "$(col 2 "$th")")
    [ -n "$cw" ] && [ -n "$hw" ] || continue
    printf "%-24s %8.3f %8.3f %8.3f %8.3f %6s %6s\n" "$(basename "$f")" \
        "$cw" "$cc" "$hw" "$hc" "$(div "$hw" "$cw")" "$(div "$hc" "$cc")"
    cw_all=$(add "$cw_all" "$cw") cc_all=$(add "$cc_all" "$cc")
    hw_all=$(add "$hw_all" "$hw") hc_all=$(add "$hc_all" "$hc")
done
printf "%-24s %8.3f %8.3f %8.3f %8.3f %6s %6s  goal <= 1.15\n" TOTAL \
    "$cw_all" "$cc_all" "$hw_all" "$hc_all" "$(div "$hw_all" "$cw_all")" \
    "$(div "$hc_all" "$cc_all")"
exit $status
