#!/usr/bin/env bash
# run.sh [--with SRC2]... [--build MODE] [--cflags "..."] SRC WORKDIR
#
# The end-to-end check of an MPI+OpenMP program (one that calls MPI_Init
# itself) built with hcc: builds SRC and the --with files with the plain
# LLVM 19 compiler through Open MPI's wrapper (the reference: OMPI_CC /
# OMPI_FC) and with hcc, runs both alone (./prog) and under mpirun -np 1, 2
# and 4 at 2 threads per rank, and requires identical output. Every hcc
# run's stderr must hold the runtime's note exactly once (rank 0) and no
# other hcrt message.
# --build says how hcc builds: `flags` (hcc with mpicc --showme's flags,
# one command), `wrapper` (OMPI_CC=hcc mpicc / OMPI_FC=hcc mpifort),
# `static` (flags and -static-hcrt) or `separate` (hcc -c per file, then a
# link). Fortran files come first on the command line (the --with files
# may define modules SRC uses).
# Environment (from the RUN line): HCC CLANG FLANG MPIRUN.
set -u
withs=() build=flags cflags=""
while [ $# -gt 2 ]; do
    case $1 in
    --with) withs+=("$(realpath "$2")"); shift ;;
    --build) build=$2; shift ;;
    --cflags) cflags=$2; shift ;;
    *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
[ $# -eq 2 ] || { echo "usage: run.sh [options] SRC WORKDIR" >&2; exit 2; }
src=$(realpath "$1") work=$(realpath -m "$2")
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
TMPDIR=$(mktemp -d /tmp/hcc-mpi.XXXXXX) || exit 2 # see e2e-cluster/Inputs/run.sh
export TMPDIR OMPI_MCA_orte_tmpdir_base="$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT
fail() {
    echo "run.sh: $*" >&2
    exit 1
}

files=("${withs[@]}" "$src")
case $src in
*.f90 | *.F90) lang=fortran ref=$FLANG wrap=mpifort var=OMPI_FC
    libdir=$(mpicc --showme:libdirs | cut -d' ' -f1)
    mpiflags=(-I"$(mpicc --showme:incdirs | cut -d' ' -f1)" -L"$libdir" -lmpi_mpifh -lmpi) ;;
*) lang=c ref=$CLANG wrap=mpicc var=OMPI_CC
    files=("$src" "${withs[@]}")
    read -ra mpiflags <<<"$(mpicc --showme:compile) $(mpicc --showme:link)" ;;
esac
env "$var=$ref" "$wrap" -fopenmp -O2 $cflags "${files[@]}" -o ref ||
    fail "reference build failed"
case $build in
flags) "$HCC" -fopenmp -O2 $cflags "${files[@]}" "${mpiflags[@]}" -o hcc ;;
static) "$HCC" -fopenmp -O2 -static-hcrt $cflags "${files[@]}" "${mpiflags[@]}" -o hcc ;;
wrapper) env "$var=$HCC" "$wrap" -fopenmp -O2 $cflags "${files[@]}" -o hcc ;;
separate)
    objs=() i=0
    for f in "${files[@]}"; do
        env "$var=$HCC" "$wrap" -fopenmp -O2 $cflags -c "$f" -o "obj$i.o" || exit 1
        objs+=("obj$i.o") i=$((i + 1))
    done
    env "$var=$HCC" "$wrap" -fopenmp "${objs[@]}" -o hcc ;;
*) fail "unknown --build '$build'" ;;
esac || fail "hcc build ($build) failed"

# check_err FILE: the note once, no other message of the runtime.
check_err() {
    local notes
    notes=$(grep -c "this program starts MPI itself" "$1")
    [ "$notes" = 1 ] || { cat "$1" >&2; fail "$2: the note came $notes times, not once"; }
    ! grep -v "this program starts MPI itself" "$1" | grep -q "hcrt\[" ||
        { cat "$1" >&2; fail "$2: the runtime said more than its note"; }
}
export OMP_NUM_THREADS=2
timeout -k 5 60 ./ref >ref.alone 2>ref.alone.err || fail "the reference failed alone"
timeout -k 5 60 ./hcc >run.alone 2>run.alone.err || { cat run.alone.err >&2; fail "hcc's build failed alone"; }
diff -u ref.alone run.alone >&2 || fail "output alone differs from the reference's"
check_err run.alone.err alone
for np in 1 2 4; do
    $MPIRUN -x OMP_NUM_THREADS -np $np ./ref >ref.$np 2>ref.$np.err ||
        { cat ref.$np.err >&2; fail "the reference failed at -np $np"; }
    [ -s ref.$np ] || fail "the reference printed nothing at -np $np"
    $MPIRUN -x OMP_NUM_THREADS -np $np ./hcc >run.$np 2>run.$np.err ||
        { cat run.$np.err >&2; fail "hcc's build failed at -np $np"; }
    diff -u ref.$np run.$np >&2 || fail "output at -np $np differs from the reference's"
    check_err run.$np.err "-np $np"
done
echo "run.sh: $(basename "$src") ($build): identical output alone and at -np 1/2/4"
