#!/usr/bin/env bash
# bench/hetprobe/report.sh [BUILD_DIR]: the HetProbe tables and plots of
# bench/RESULTS.md, regenerated from the raw rows kept in
# bench/hetprobe/results/ (the current measurement; run.sh makes new ones).
# Writes BUILD_DIR/bench/hetprobe/report/NAME.md (summarize.py's tables
# and goal checks) and NAME.png (speedups over the best single node) for
# every results/NAME.tsv. CMake target: bench-hetprobe-report.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:-${HCC_BUILD_DIR:-$src/build}}
out=$build/bench/hetprobe/report
. "$src/bench/pyplot.sh"
bench_pyplot "$src" || { echo "report.sh: no matplotlib (scripts/setup.sh --bench)" >&2; exit 1; }
mkdir -p "$out"
for tsv in "$here"/results/*.tsv; do
    name=$(basename "$tsv" .tsv)
    {
        echo "# HetProbe suite: $name"
        echo
        echo "Raw rows: bench/hetprobe/results/$name.tsv (bench/RESULTS.md says how they were measured)."
        "$PYPLOT" "$here/summarize.py" "$tsv" "$out/$name.png"
    } >"$out/$name.md"
    echo "$out/$name.md, $name.png"
done
