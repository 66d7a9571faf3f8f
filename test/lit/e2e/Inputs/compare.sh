#!/usr/bin/env bash
# compare.sh [options] SRC WORKDIR
#
# The end-to-end check behind every program of test/lit/e2e and
# test/lit/fortran: builds SRC with the plain LLVM 19 OpenMP compiler (the
# reference) and with hcc, runs both at OMP_NUM_THREADS=1, 2 and 3 and
# requires every run to exit 0 and print exactly the reference output of the
# 1-thread run. The hcc binary then runs in cluster mode (the default) under
# `hcrun -n N --threads T` for N = 1, 2, 4 and T = 1, 2: the head runs
# main() and the cluster regions run on every rank's threads, so the job's
# stdout must again be that output (the team has N x T threads; the corpus
# prints nothing that depends on the team size). HCC_E2E_RANKS overrides
# the rank counts (e.g. "2" for a quick run).
#
# Options:
#   --target       SRC has target regions: hcc gets the host-only offload
#                  flags (the reference runs them on the host, plain -fopenmp)
#   --O0           also build and check an hcc -O0 binary (at 2 threads)
#   --ref-threads N  take the reference output from N threads only (for
#                  programs that exercise a bug of the reference runtime at
#                  more threads); hcc must still match at every count
#   --env K=V      set K=V for every run (e.g. OMP_SCHEDULE); repeatable
#   --no-mpi       skip the hcrun runs
#   --flags "..."  extra compile flags for both compilers
#   --ref-flags "..."  extra compile flags for the reference only (to step
#                  around a crash of the reference runtime on a construct
#                  hcc must still run as written)
# Environment (set by the %e2e lit substitution): HCC CLANG CLANGXX FLANG
# MPIRUN.
set -u

target=0 o0=0 mpi=1 ref_threads="1 2 3" flags="" ref_flags="" envs=()
while [ $# -gt 2 ]; do
    case $1 in
    --target) target=1 ;;
    --O0) o0=1 ;;
    --no-mpi) mpi=0 ;;
    --ref-threads) ref_threads=$2; shift ;;
    --env) envs+=("$2"); shift ;;
    --flags) flags=$2; shift ;;
    --ref-flags) ref_flags=$2; shift ;;
    *) echo "compare.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
[ $# -eq 2 ] || { echo "usage: compare.sh [options] SRC WORKDIR" >&2; exit 2; }
src=$(realpath "$1") work=$(realpath -m "$2")
inputs=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" || exit 2
cd "$work" || exit 2 # compilers may drop files (Fortran .mod) in the cwd
# A session directory of our own for mpirun: two jobs starting at once in
# one TMPDIR (lit runs tests in parallel) can race on creating Open MPI's
# top-level session directory ("mkdir ... File exists").
TMPDIR=$(mktemp -d /tmp/hcc-mpi.XXXXXX) || exit 2
export TMPDIR
# lit.cfg.py points every test at one shared session base; a singleton
# finishing there can remove it while another creates its job directory
# ("mkdir ... No such file or directory"): this test's own, sequential runs.
export OMPI_MCA_orte_tmpdir_base="$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT

case $src in
*.f90 | *.F90) ref_cc=$FLANG hcc_cc=$HCC libs="" ;;
*.cpp) ref_cc=$CLANGXX hcc_cc=${HCCXX:-$HCC++} libs="-lm" ;; # hcc++ links C++
*) ref_cc=$CLANG hcc_cc=$HCC libs="-lm" ;;
esac
offload=""
[ $target = 1 ] && offload="-fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only"

fail() {
    echo "compare.sh: $*" >&2
    exit 1
}

build() { # build OUT COMPILER FLAGS...
    local out=$1 cc=$2
    shift 2
    echo "+ $cc $* $src -o $out $libs"
    "$cc" "$@" -I"$inputs" $flags "$src" -o "$out" $libs ||
        fail "compile failed: $cc $* $src"
}

run() { # run OUT-FILE THREADS CMD...: a run must exit 0 within the timeout
    local out=$1 t=$2
    shift 2
    env "${envs[@]}" OMP_NUM_THREADS=$t timeout -k 5 120 "$@" >"$out" 2>"$out.err"
    local rc=$?
    [ $rc = 0 ] || {
        cat "$out" "$out.err" >&2
        fail "'$*' at $t threads exited with status $rc"
    }
}

same() { # same EXPECTED ACTUAL WHAT
    diff -u "$1" "$2" >&2 || fail "$3 differs from the reference (diff above)"
}

build "$work/ref" "$ref_cc" -fopenmp -O2 $ref_flags
build "$work/hcc" "$hcc_cc" -fopenmp -O2 $offload
[ $o0 = 1 ] && build "$work/hcc-O0" "$hcc_cc" -fopenmp -O0 $offload

first=""
for t in $ref_threads; do
    run "$work/ref.$t" $t "$work/ref"
    [ -s "$work/ref.$t" ] || fail "the reference printed nothing"
    if [ -z "$first" ]; then
        first=$work/ref.$t
    else
        same "$first" "$work/ref.$t" "the reference output at $t threads"
    fi
done
for t in 1 2 3; do
    run "$work/hcc.$t" $t "$work/hcc"
    same "$first" "$work/hcc.$t" "hcc output at $t threads"
done
if [ $o0 = 1 ]; then
    run "$work/hcc-O0.2" 2 "$work/hcc-O0"
    same "$first" "$work/hcc-O0.2" "hcc -O0 output at 2 threads"
fi
hcrun=$(dirname "$HCC")/hcrun
if [ $mpi = 1 ]; then
    for np in ${HCC_E2E_RANKS:-1 2 4}; do
        for t in 1 2; do
            run "$work/mpi.$np.$t" $t "$hcrun" -n $np --threads $t "$work/hcc"
            same "$first" "$work/mpi.$np.$t" \
                "hcc output under hcrun -n $np --threads $t"
        done
    done
    # the default placement on one host: every region starts on the head
    # alone, with the whole logical team (docs/placement.md)
    run "$work/mpi.head" 1 env HCRT_SCHED_PLACE_HEAD_FIRST=1 "$hcrun" -n 2 \
        --threads 1 "$work/hcc"
    same "$first" "$work/mpi.head" \
        "hcc output under hcrun -n 2 --threads 1, regions on the head first"
fi
echo "compare.sh: $(basename "$src"): identical output ($(wc -l <"$first") lines)"
