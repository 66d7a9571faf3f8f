#!/usr/bin/env bash
# run.sh [--env K=V]... [-I DIR]... [--libs "..."] [--ref-cflags "..."]
#        [--stats RE] SRC WORKDIR
#
# The end-to-end check of cluster execution (HCRT_CLUSTER=1): builds SRC
# with the plain LLVM 19 OpenMP compiler (the reference) and with hcc, runs
# the hcc binary under `mpirun -np 1`, `-np 2` and `-np 4` with 1 and 2
# threads per rank, and requires each run to print exactly what the
# reference prints with as many threads as the whole cluster team has
# (np x threads). At 2 and 4 ranks the run's HCRT_STATS table must show
# regions that really ran on every node.
# Environment (from the RUN line): HCC CLANG MPIRUN.
set -u
envs=() incs=() libs="" stats_re="" ref_cflags=""
while [ $# -gt 2 ]; do
    case $1 in
    --env) envs+=("$2"); shift ;;
    -I) incs+=(-I "$(realpath "$2")"); shift ;;
    --libs) libs=$2; shift ;;
    --stats) stats_re=$2; shift ;; # the statistics must also match RE
    --ref-cflags) ref_cflags=$2; shift ;; # for the reference build only

    *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
[ $# -eq 2 ] || { echo "usage: run.sh [--env K=V]... [-I DIR]... SRC WORKDIR" >&2; exit 2; }
src=$(realpath "$1") work=$(realpath -m "$2")
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
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

fail() {
    echo "run.sh: $*" >&2
    exit 1
}

cc=$CLANG hcc=$HCC
case $src in
*.cpp) cc=${CLANG%clang*}clang++${CLANG##*clang} hcc=$HCC++ ;; # C++ drivers
esac
"$cc" -fopenmp -O2 $ref_cflags "${incs[@]}" "$src" -o ref -lm $libs || fail "reference compile failed"
"$hcc" -fopenmp -O2 "${incs[@]}" "$src" -o hcc -lm $libs || fail "hcc compile failed"

xs=(-x HCRT_CLUSTER -x OMP_NUM_THREADS -x HCRT_STATS)
for kv in "${envs[@]}"; do xs+=(-x "${kv%%=*}"); done
for np in 1 2 4; do
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
        [ $np = 1 ] && continue # one node: nothing runs across nodes
        grep -Eq "^cluster regions [1-9][0-9]* on $np nodes \\($total threads\\)" "$out.err" ||
            { cat "$out.err" >&2; fail "no region ran on all $np nodes (HCRT_STATS above)"; }
        [ -z "$stats_re" ] || grep -Eq "$stats_re" "$out.err" ||
            { cat "$out.err" >&2; fail "the statistics do not match '$stats_re'"; }
    done
done
echo "run.sh: $(basename "$src"): identical output at -np 1/2/4 x 1/2 threads"
