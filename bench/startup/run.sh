#!/usr/bin/env bash
# run.sh [REPS]: what `./prog` alone costs with hcc against clang-19
# -fopenmp. Builds bench/startup/empty.c (one parallel region that does next
# to nothing) with both, then runs each REPS times (default 20), interleaved,
# at OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}, and prints min and median wall
# and CPU time per binary (timeit.py). With NPB_HCC and NPB_CLANG set to
# directories of NPB binaries (e.g. /work/ext/b-hcc-m4 and
# /work/ext/b-clang), it also runs ${NPB:-cg mg is ft ep}.${CLASS:-W}.x
# from both, the hcc ones against this build's libhcrt
# (LD_LIBRARY_PATH=$build/lib overrides their RUNPATH). HCC_BUILD_DIR
# selects the build tree (default: build). The machine's load average is
# printed before and after: timings under load are noisy, the CPU columns
# less so.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${HCC_BUILD_DIR:-$here/../../build}
reps=${1:-20}
clang=${CLANG:-clang-19}
[ -x "$build/bin/hcc" ] || { echo "run.sh: no $build/bin/hcc: build hcc first" >&2; exit 1; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$clang" -fopenmp -O2 "$here/empty.c" -o "$work/empty.clang"
"$build/bin/hcc" -fopenmp -O2 "$here/empty.c" -o "$work/empty.hcc"
lib=$(cd "$build/lib" && pwd)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(getconf _NPROCESSORS_ONLN) cores;" \
    "OMP_NUM_THREADS=$OMP_NUM_THREADS, $reps runs each, milliseconds"
echo "== empty.c"
python3 "$here/timeit.py" "$reps" "clang=$work/empty.clang" "hcc=$work/empty.hcc"
if [ -n "${NPB_HCC:-}" ] && [ -n "${NPB_CLANG:-}" ]; then
    for p in ${NPB:-cg mg is ft ep}; do
        x=$p.${CLASS:-W}.x
        echo "== $x"
        python3 "$here/timeit.py" "$reps" "clang=$NPB_CLANG/$x" \
            "hcc=LD_LIBRARY_PATH=$lib $NPB_HCC/$x"
    done
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
