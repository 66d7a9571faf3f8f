#!/bin/sh
# run.sh [BUILD_DIR] [bench options...]
# Event system vs raw MPI on 2 ranks of this host, in one run; prints the
# markdown table recorded in bench/RESULTS.md ("Event system"). MPIRUN
# (default mpirun) launches it: `MPIRUN="scripts/netns.sh mpirun"` puts the
# two ranks on two "hosts" (network namespaces that are up, docs/faults.md
# "Multi-host fixture").
set -e
build=${1:-${HCC_BUILD_DIR:-build}}
[ $# -gt 0 ] && shift
bin=$build/bin/hcrt-event-bench
if [ ! -x "$bin" ]; then
    echo "run.sh: $bin not found; build it first: ninja -C $build hcrt-event-bench" >&2
    exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec timeout -k 5 300 ${MPIRUN:-mpirun} --oversubscribe --bind-to none -np 2 "$bin" "$@"
