#!/usr/bin/env bash
# run.sh [-I DIR]... [--args "..."] SRC WORKDIR
#
# The check behind test/lit/offload: builds SRC (a program of `target`
# tasks) with plain `clang-19 -fopenmp` (the reference: target regions run
# on the host) and with hcc, runs the reference at 2 threads and the hcc
# binary with `hcrun -n 1`, `-n 2` and `-n 4` (HCRT_CLUSTER=1, 2 threads per
# rank, each run under a timeout), and requires every run to exit 0 and
# print exactly the reference's output. With the offload engine, every
# worker rank is a device, so the runs at 2 and 4 ranks move the mapped data
# between nodes; the programs also compare their results with a sequential
# host computation and print the verdict, so a wrong answer fails even if
# both compilers agree. Environment (from the %offload substitution): HCC
# CLANG HCRUN. OFFLOAD_RANKS overrides the rank counts (default "1 2 4").
set -u
incs=() args=""
while [ $# -gt 2 ]; do
    case $1 in
    -I) incs+=(-I "$(realpath "$2")"); shift ;;
    --args) args=$2; shift ;;
    *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
[ $# -eq 2 ] || { echo "usage: run.sh [-I DIR]... [--args ARGS] SRC WORKDIR" >&2; exit 2; }
src=$(realpath "$1") work=$(realpath -m "$2")
inputs=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2

fail() {
    echo "run.sh: $*" >&2
    exit 1
}

"$CLANG" -fopenmp -O2 -I"$inputs" "${incs[@]}" "$src" -o ref -lm ||
    fail "reference compile failed: $CLANG -fopenmp -O2 $src"
"$HCC" -fopenmp -O2 -I"$inputs" "${incs[@]}" "$src" -o hcc -lm ||
    fail "hcc compile failed: $HCC -fopenmp -O2 $src"
OMP_NUM_THREADS=2 timeout -k 5 120 ./ref $args >ref.out 2>ref.err ||
    { cat ref.out ref.err >&2; fail "the reference failed"; }
[ -s ref.out ] || fail "the reference printed nothing"
for np in ${OFFLOAD_RANKS:-1 2 4}; do
    out=run.$np
    HCRT_CLUSTER=${HCRT_CLUSTER:-1} OMPI_MCA_rmaps_base_oversubscribe=1 \
        timeout -k 5 180 "$HCRUN" -n $np --threads 2 --bind-to none ./hcc $args \
        >"$out" 2>"$out.err"
    rc=$?
    [ $rc = 0 ] || { cat "$out" "$out.err" >&2; fail "hcrun -n $np exited with status $rc"; }
    diff -u ref.out "$out" >&2 || fail "output at $np ranks differs from the reference"
done
echo "run.sh: $(basename "$src"): identical output at ${OFFLOAD_RANKS:-1 2 4} ranks"
