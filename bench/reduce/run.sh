#!/bin/sh
# run.sh [BUILD_DIR] [NP] [bench options...]
# hcrt's dynamic reduction against MPI_Reduce, MPI_Allreduce and concurrent
# MPI_Ireduce on NP ranks (4) of this host, quiet and with a CPU hog on
# rank 1, in one run each; prints the markdown tables recorded in
# bench/RESULTS.md ("Dynamic reduction"). HCRT_* settings pass through.
# NETNS=1: the ranks in NP network namespaces instead (several simulated
# hosts, Open MPI over TCP between them; scripts/netns.sh, root only).
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
layout="--oversubscribe"
if [ "${NETNS:-0}" = 1 ]; then
    ns=$(cd "$(dirname "$0")/../.." && pwd)/scripts/netns.sh
    export HCC_NETNS_PREFIX=hcred HCC_NETNS_NET=10.74.0
    "$ns" up "$np" >/dev/null
    trap '"$ns" clean >/dev/null 2>&1; "$ns" down >/dev/null 2>&1' EXIT
    layout="$("$ns" mpirun-args "$np") -x LD_LIBRARY_PATH"
    for v in $(env | sed -n 's/^\(HCRT_[A-Z0-9_]*\)=.*/\1/p'); do
        layout="$layout -x $v"
    done
    echo "layout: $np ranks in $np network namespaces (TCP over a bridge)"
else
    echo "layout: $np ranks on this host"
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for hog in -1 1; do
    echo
    # shellcheck disable=SC2086
    timeout -k 5 1200 mpirun $layout --bind-to none -np "$np" \
        "$bin" -hog "$hog" "$@"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
