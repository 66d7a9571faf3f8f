#!/usr/bin/env bash
# run.sh [--env K=V]... [-I DIR]... SRC WORKDIR
#
# The end-to-end check of cluster execution (HCRT_CLUSTER=1): builds SRC
# with the plain LLVM 19 OpenMP compiler (the reference) and with hcc, runs
# the hcc binary under `mpirun -np 2` and `-np 4` with 1 and 2 threads per
# rank, and requires each run to print exactly what the reference prints
# with as many threads as the whole cluster team has (np x threads). The
# run's HCRT_STATS table must show regions that really ran on every node.
# Environment (from the RUN line): HCC CLANG MPIRUN.
set -u
envs=() incs=()
while [ $# -gt 2 ]; do
    case $1 in
    --env) envs+=("$2"); shift ;;
    -I) incs+=(-I "$(realpath "$2")"); shift ;;
    *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
[ $# -eq 2 ] || { echo "usage: run.sh [--env K=V]... [-I DIR]... SRC WORKDIR" >&2; exit 2; }
src=$(realpath "$1") work=$(realpath -m "$2")
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2

fail() {
    echo "run.sh: $*" >&2
    exit 1
}

"$CLANG" -fopenmp -O2 "${incs[@]}" "$src" -o ref -lm || fail "reference compile failed"
"$HCC" -fopenmp -O2 "${incs[@]}" "$src" -o hcc -lm || fail "hcc compile failed"

xs=(-x HCRT_CLUSTER -x OMP_NUM_THREADS -x HCRT_STATS)
for kv in "${envs[@]}"; do xs+=(-x "${kv%%=*}"); done
for np in 2 4; do
    for t in 1 2; do
        total=$((np * t))
        if [ ! -f "ref.$total" ]; then
            env "${envs[@]}" OMP_NUM_THREADS=$total timeout -k 5 120 ./ref \
                >"ref.$total" 2>"ref.$total.err" || fail "reference failed at $total threads"
            [ -s "ref.$total" ] || fail "the reference printed nothing"
        fi
        out=run.$np.$t
        env "${envs[@]}" HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=$t \
            $MPIRUN "${xs[@]}" -np $np ./hcc >"$out" 2>"$out.err"
        rc=$?
        [ $rc = 0 ] || { cat "$out" "$out.err" >&2; fail "mpirun -np $np at $t threads exited with $rc"; }
        diff -u "ref.$total" "$out" >&2 ||
            fail "output at -np $np x $t threads differs from the reference at $total threads"
        grep -Eq "^cluster regions [1-9][0-9]* on $np nodes \\($total threads\\)" "$out.err" ||
            { cat "$out.err" >&2; fail "no region ran on all $np nodes (HCRT_STATS above)"; }
    done
done
echo "run.sh: $(basename "$src"): identical output at -np 2/4 x 1/2 threads"
