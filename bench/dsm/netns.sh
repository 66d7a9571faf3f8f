#!/usr/bin/env bash
# netns.sh up|down|run: two "hosts" on this machine as network namespaces
# hcdsm1/hcdsm2 on bridge br-hcdsm (10.77.0.0/24, used by nothing else), so
# the DSM benchmark runs over real TCP between separate network stacks
# (PLATFORM.md "Several hosts on one machine"). Needs root.
#
#   bench/dsm/netns.sh up
#   bench/dsm/netns.sh run      # bench/dsm/run.sh across the namespaces
#   bench/dsm/netns.sh down
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
net=10.77.0
up() {
  ip link add br-hcdsm type bridge
  ip addr add $net.1/24 dev br-hcdsm
  ip link set br-hcdsm up
  for i in 1 2; do
    ip netns add hcdsm$i
    ip link add vhcdsm$i type veth peer name eth0 netns hcdsm$i
    ip link set vhcdsm$i master br-hcdsm up
    ip -n hcdsm$i addr add $net.$((i + 1))/24 dev eth0
    ip -n hcdsm$i link set eth0 up
    ip -n hcdsm$i link set lo up
  done
}
down() {
  for i in 1 2; do
    ip netns del hcdsm$i 2>/dev/null || true
    ip link del vhcdsm$i 2>/dev/null || true
  done
  ip link del br-hcdsm 2>/dev/null || true
  rm -rf /tmp/hcdsm1 /tmp/hcdsm2
}
run() {
  agent=$(mktemp /tmp/hcdsm-agent.XXXXXX)
  hosts=$(mktemp /tmp/hcdsm-hosts.XXXXXX)
  # mpirun starts each daemon as "<agent> <host> <command...>"; host .N
  # lives in namespace hcdsm(N-1).
  cat > "$agent" <<'AG'
#!/bin/sh
host=$1; shift
while [ "${host#-}" != "$host" ]; do host=$1; shift; done
ns=hcdsm$(( ${host##*.} - 1 ))
# Both daemons see the same hostname and /tmp: separate session dirs.
mkdir -p /tmp/$ns
exec ip netns exec $ns env TMPDIR=/tmp/$ns sh -c "$*"
AG
  chmod +x "$agent"
  printf '%s.2 slots=1\n%s.3 slots=1\n' $net $net > "$hosts"
  LAYOUT="2 ranks in separate network namespaces (TCP over a bridge)" \
  MODES=${MODES:-auto} \
  MPIRUN_ARGS="--hostfile $hosts --mca plm_rsh_agent $agent \
    --mca oob_tcp_if_include $net.0/24 --mca btl_tcp_if_include $net.0/24 \
    --mca btl self,tcp" "$here/run.sh"
  rm -f "$agent" "$hosts"
}
"${1:-run}"
