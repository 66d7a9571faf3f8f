#!/bin/sh
# run.sh [BUILD_DIR] [NP] [bench options...]
# hcrt's dynamic reduction against MPI_Reduce, MPI_Allreduce and concurrent
# MPI_Ireduce on NP ranks (4) of this host, quiet and with a CPU hog on
# rank 1, in one run each; prints the markdown tables recorded in
# bench/RESULTS.md ("Dynamic reduction"). HCRT_* settings pass through.
set -e
build=${1:-${HCC_BUILD_DIR:-build}}
np=${2:-4}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
bin=$build/bin/hcrt-reduce-bench
if [ ! -x "$bin" ]; then
    echo "run.sh: $bin not found; build it first: ninja -C $build hcrt-reduce-bench" >&2
    exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for hog in -1 1; do
    echo
    timeout -k 5 1200 mpirun --oversubscribe --bind-to none -np "$np" \
        "$bin" -hog "$hog" "$@"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
