#!/usr/bin/env bash
# Two builds of hcc's runtime on the same program binaries, interleaved:
# NPB's own time ("Time in seconds") and the wall time of each hcrun, per
# run, with the answer checked. The binaries load libhcrt from
# LD_LIBRARY_PATH (it takes precedence over their RUNPATH), so one set of
# NPB binaries built by hcc serves both builds.
#
#   bench/programs/ab.sh -d NPB_DIR -c CLASS -p "ft mg" -n RANKS -r REPEATS \
#                        -a BUILD_A -b BUILD_B
#
# e.g. -a build -b /tmp/old/build (a worktree of an older commit, built
# with scripts/build.sh). Prints one line per run:
#   program build np npb-seconds wall-ms answer(ok|WRONG)
set -euo pipefail

dir="" cls=W progs="cg ft is mg" np=2 reps=3 a="" b=""
while [ $# -gt 0 ]; do
    case $1 in
    -d) dir=$2; shift ;;
    -c) cls=$2; shift ;;
    -p) progs=$2; shift ;;
    -n) np=$2; shift ;;
    -r) reps=$2; shift ;;
    -a) a=$(cd "$2" && pwd); shift ;;
    -b) b=$(cd "$2" && pwd); shift ;;
    *) echo "ab.sh: unknown option '$1' (see the header of bench/programs/ab.sh)" >&2; exit 2 ;;
    esac
    shift
done
if [ -z "$dir" ] || [ -z "$a" ] || [ -z "$b" ]; then
    echo "ab.sh: need -d NPB_DIR, -a BUILD_A and -b BUILD_B" >&2
    exit 2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$dir"
for ((r = 0; r < reps; r++)); do
    for p in $progs; do
        for build in "$a" "$b"; do
            s=$(date +%s%N)
            out=$(LD_LIBRARY_PATH=$build/lib timeout 300 "$build/bin/hcrun" -n "$np" \
                --threads 1 "./$p.$cls.x" 2>/dev/null) || true
            e=$(date +%s%N)
            t=$(echo "$out" | awk '/Time in seconds/ { print $NF }')
            ok=WRONG
            echo "$out" | grep -q "Verification *= *SUCCESSFUL" && ok=ok
            echo "$p $build np$np ${t:-NaN} $(((e - s) / 1000000)) $ok"
        done
    done
done
