#!/usr/bin/env bash
# netns.sh up|down|run: the DSM benchmark between two "hosts" on this
# machine - network namespaces hcdsm1/hcdsm2 on bridge br-hcdsm
# (10.77.0.0/24, used by nothing else), made by scripts/netns.sh - so it
# runs over real TCP between separate network stacks (PLATFORM.md "Several
# hosts on one machine"). Needs root.
#
#   bench/dsm/netns.sh up
#   bench/dsm/netns.sh run      # bench/dsm/run.sh across the namespaces
#   bench/dsm/netns.sh down
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ns=$here/../../scripts/netns.sh
export HCC_NETNS_PREFIX=hcdsm HCC_NETNS_NET=10.77.0
case ${1:-run} in
up) "$ns" up 2 ;;
down) "$ns" down ;;
run)
  "$ns" up 2
  LAYOUT="2 ranks in separate network namespaces (TCP over a bridge)" \
  MODES=${MODES:-auto} MPIRUN_ARGS="$("$ns" mpirun-args 2)" "$here/run.sh"
  "$ns" clean
  ;;
*) echo "usage: bench/dsm/netns.sh up|run|down" >&2; exit 2 ;;
esac
