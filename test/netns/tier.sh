#!/usr/bin/env bash
# tier.sh up N | hosts N | run CMD [ARGS...] | down
#
# The test tier across hosts (test/netns/CMakeLists.txt): `up` makes N
# network namespaces, the "hosts" (scripts/netns.sh up), `run` runs one
# check of the tier in them (its mpirun is test/netns/mpirun.sh), `down`
# removes them and whatever a failed run left in them; `hosts` checks that
# the tier's mpirun really puts N ranks on N separate hosts (a launcher
# that fell back to this host would make the tier a copy of the one-host
# suite without a word). Namespaces need
# root: without it every step says so and exits 77 (ctest: skipped); as
# root, namespaces that cannot be made fail the tier loudly. Environment:
# HCC_NETNS_PREFIX and HCC_NETNS_NET (the tier's own, set by CMake, so
# that its runs never meet the fault tests' or a bench's namespaces).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
netns=$here/../../scripts/netns.sh
: "${HCC_NETNS_PREFIX:?tier.sh: set HCC_NETNS_PREFIX (the namespaces of the tier)}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: the tier across hosts runs each rank in a network namespace," \
        "which needs root; this runs as uid $(id -u) (run the suite as root" \
        "to include it)"
    exit 77
fi

count() { ip netns list | grep -c "^$HCC_NETNS_PREFIX[0-9]" || true; }

case ${1:-} in
up)
    n=${2:?usage: tier.sh up N}
    bash "$netns" up "$n" ||
        { echo "FAIL: could not make $n network namespaces ($HCC_NETNS_PREFIX*," \
            "net ${HCC_NETNS_NET:-?}.0/24) for the tier across hosts (see above)"; exit 1; }
    bash "$netns" status
    ;;
down)
    bash "$netns" clean && bash "$netns" down
    ;;
hosts)
    n=${2:?usage: tier.sh hosts N}
    want=$(for k in $(seq "$n"); do echo "$HCC_NETNS_PREFIX$k"; done)
    got=$(timeout -k 5 60 "$here/mpirun.sh" -np "$n" hostname | sort)
    [ "$got" = "$want" ] ||
        { echo "FAIL: $n ranks of the tier ran on hosts '$(echo $got)', not on" \
            "'$(echo $want)' (one per namespace)"; exit 1; }
    echo "$n ranks on $n hosts: $(echo $got)"
    ;;
run)
    shift
    [ "$(count)" -ge 2 ] ||
        { echo "FAIL: the tier's namespaces ($HCC_NETNS_PREFIX*) are not up:" \
            "the test netns-up makes them (ctest -R netns runs it first)"; exit 1; }
    "$@"
    ;;
*)
    sed -n '2,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
