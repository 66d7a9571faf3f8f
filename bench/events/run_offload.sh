#!/bin/sh
# run_offload.sh [BUILD_DIR] [REPS]
# Empty target regions on a worker node as the user sees them (2 ranks):
# builds bench/events/offload_rtt.c with hcc and prints the rows recorded in
# bench/RESULTS.md ("Target offload"). Compare with run.sh's raw MPI
# round trip.
set -e
build=${1:-${HCC_BUILD_DIR:-build}}
reps=${2:-2000}
src=$(dirname "$0")/offload_rtt.c
exe=$build/bench/events/offload_rtt
mkdir -p "$build/bench/events"
"$build/bin/hcc" -fopenmp -O2 "$src" -o "$exe"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
uptime
exec timeout -k 5 300 mpirun --oversubscribe --bind-to none -np 2 "$exe" "$reps"
