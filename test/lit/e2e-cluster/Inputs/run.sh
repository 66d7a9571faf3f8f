#!/usr/bin/env bash
# run.sh [--env K=V]... [-I DIR]... [--libs "..."] [--ref-cflags "..."]
#        [--stats RE] [--with SRC2]... [--build MODE] [--threads "1 2"]
#        [--nthreads-tail ,A,B] [--src FILE]... [--lib FILE]... SRC WORKDIR
#
# The end-to-end check of cluster execution (HCRT_CLUSTER=1): builds SRC
# with the plain LLVM 19 OpenMP compiler (the reference) and with hcc, runs
# the hcc binary under `mpirun -np 1`, `-np 2` and `-np 4` with 1 and 2
# threads per rank, and requires each run to print exactly what the
# reference prints with as many threads as the whole cluster team has
# (np x threads). At 2 and 4 ranks the run's HCRT_STATS table must show
# regions that really ran on every node.
# --with adds source files of the same program (other translation units);
# --build says how hcc builds them: `together` (one hcc command, the
# default), `separate` (hcc -c per file, then a link), `archive` (the --with
# files in a static library linked to SRC's object) or `plugin` (clang-19
# -fpass-plugin=HCCPasses.so per file, linked with -lhcrt: a CMake-style
# build, examples/cmake-plugin). --threads lists the threads per rank.
# --src adds a separately compiled file to the program, --lib one that is
# compiled into a static library linked after it (each by the compiler of
# its language, the reference's or hcc's; C and C++ files may mix).
# --nthreads-tail makes OMP_NUM_THREADS a list: the hcc run's first
# element is the threads per rank, the reference's np x threads, the rest
# (nested levels) as given.
# E2E_CLUSTER_RANKS overrides the rank counts (default "1 2 4"; the tier
# across hosts, test/netns, runs 2 and 4).
# Environment (from the RUN line): HCC CLANG MPIRUN; PLUGIN and HCRT_LIB
# (HCCPasses.so and libhcrt's directory) for --build plugin.
set -u
envs=() incs=() libs="" stats_re="" ref_cflags="" withs=() build=together threads="1 2"
nt_tail="" srcs=() libsrcs=()
while [ $# -gt 2 ]; do
    case $1 in
    --env) envs+=("$2"); shift ;;
    -I) incs+=(-I "$(realpath "$2")"); shift ;;
    --libs) libs=$2; shift ;;
    --stats) stats_re=$2; shift ;; # the statistics must also match RE
    --ref-cflags) ref_cflags=$2; shift ;; # for the reference build only
    --with) withs+=("$(realpath "$2")"); shift ;;
    --build) build=$2; shift ;;
    --threads) threads=$2; shift ;;
    --nthreads-tail) nt_tail=$2; shift ;;
    --src) srcs+=("$(realpath "$2")"); shift ;;
    --lib) libsrcs+=("$(realpath "$2")"); shift ;;

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
# The driver for FILE: the reference's (ref) or hcc's, C or C++.
driver() {
    case $2 in
    *.cpp) [ "$1" = ref ] && echo "${CLANG%clang*}clang++${CLANG##*clang}" || echo "$HCC++" ;;
    *) [ "$1" = ref ] && echo "$CLANG" || echo "$HCC" ;;
    esac
}
# files_build ref|hcc: SRC, the --src files and the --lib static library,
# each file compiled by its language's driver.
files_build() {
    local objs=() lib=() i=0 f
    for f in "${srcs[@]}" "${libsrcs[@]}"; do
        i=$((i + 1))
        "$(driver "$1" "$f")" -fopenmp -O2 "${incs[@]}" -c "$f" -o "$1.$i.o" || return 1
        objs+=("$1.$i.o")
    done
    if [ ${#libsrcs[@]} -gt 0 ]; then
        ar rcs "lib$1.a" "${objs[@]:${#srcs[@]}}" || return 1
        lib=("lib$1.a")
    fi
    "$(driver "$1" "$src")" -fopenmp -O2 "${incs[@]}" "$src" "${objs[@]:0:${#srcs[@]}}" \
        "${lib[@]}" -o "$1" -lm $libs
}
# hcc_build: builds ./hcc from SRC and the --with files as --build says.
hcc_build() {
    local objs=() f i=0
    case $build in
    together) "$hcc" -fopenmp -O2 "${incs[@]}" "$src" "${withs[@]}" -o hcc -lm $libs ;;
    separate | archive)
        for f in "$src" "${withs[@]}"; do
            "$hcc" -fopenmp -O2 "${incs[@]}" -c "$f" -o "obj$i.o" || return 1
            objs+=("obj$i.o") i=$((i + 1))
        done
        if [ "$build" = archive ]; then
            ar rcs libwith.a "${objs[@]:1}" || return 1
            objs=("${objs[0]}" libwith.a)
        fi
        "$hcc" -fopenmp "${objs[@]}" -o hcc -lm $libs ;;
    plugin)
        for f in "$src" "${withs[@]}"; do
            "$cc" -fopenmp -O2 -fpass-plugin="$PLUGIN" "${incs[@]}" -c "$f" -o "obj$i.o" || return 1
            objs+=("obj$i.o") i=$((i + 1))
        done
        "$cc" -fopenmp "${objs[@]}" -o hcc -L"$HCRT_LIB" -Wl,-rpath,"$HCRT_LIB" -lhcrt -lm $libs ;;
    *) fail "unknown --build '$build'" ;;
    esac
}
if [ ${#srcs[@]} -gt 0 ] || [ ${#libsrcs[@]} -gt 0 ]; then
    files_build ref || fail "reference compile failed"
    files_build hcc || fail "hcc compile failed"
else
    "$cc" -fopenmp -O2 $ref_cflags "${incs[@]}" "$src" "${withs[@]}" -o ref -lm $libs || fail "reference compile failed"
    hcc_build || fail "hcc build ($build) failed"
fi

xs=(-x HCRT_CLUSTER -x OMP_NUM_THREADS -x HCRT_STATS)
for kv in "${envs[@]}"; do xs+=(-x "${kv%%=*}"); done
for np in ${E2E_CLUSTER_RANKS:-1 2 4}; do
    for t in $threads; do
        total=$((np * t))
        if [ ! -f "ref.$total" ]; then
            env "${envs[@]}" OMP_NUM_THREADS=$total$nt_tail timeout -k 5 120 ./ref \
                >"ref.$total" 2>"ref.$total.err" || fail "reference failed at $total threads"
            [ -s "ref.$total" ] || fail "the reference printed nothing"
        fi
        out=run.$np.$t
        env "${envs[@]}" HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=$t$nt_tail \
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
ranks=${E2E_CLUSTER_RANKS:-1 2 4}
echo "run.sh: $(basename "$src") ($build): identical output at -np ${ranks// //} x ${threads// //} threads"
