#!/usr/bin/env bash
# Set up, build and run the demo: each example across 2 local ranks, with
# the result and the statistics table. Cluster execution (parallel regions
# on every rank over the DSM) is the default of a multi-rank run; set
# HCRT_CLUSTER=0 to see the head-only run.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/scripts/setup.sh"
"$src/scripts/build.sh"
build=${HCC_BUILD_DIR:-$src/build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for ex in "$build"/examples/*; do
  [ -x "$ex" ] && [ -f "$ex" ] || continue
  echo "=== $(basename "$ex"): hcrun -n 2 ==="
  HCRT_CLUSTER=${HCRT_CLUSTER:-1} HCRT_STATS=1 \
    timeout 300 "$build/bin/hcrun" -n 2 "$ex"
done
