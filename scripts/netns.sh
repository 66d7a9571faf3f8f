#!/usr/bin/env bash
# netns.sh - several "hosts" on this machine: N network namespaces on a
# private bridge, each with its own host name, so that MPI runs over real
# TCP between separate network stacks and a node can really be cut off
# (PLATFORM.md "Several hosts on one machine"). Needs root.
#
#   scripts/netns.sh up N              # namespaces <prefix>1..N, node k = <prefix>k
#   scripts/netns.sh run [opts] -- prog args...
#                                      # mpirun with one rank per namespace
#   scripts/netns.sh mpirun-args N     # the mpirun options that target them
#                                      # (add -np N --bind-to none)
#   scripts/netns.sh mpirun [mpirun args...]
#                                      # mpirun over the namespaces that are up
#                                      # (many at once; see below)
#   scripts/netns.sh cut K [SECONDS]   # take node K's link down (after SECONDS)
#   scripts/netns.sh heal K            # bring it up again
#   scripts/netns.sh shape K RATE [DELAY]  # tbf rate limit, netem delay
#   scripts/netns.sh clean             # after a run: leftovers (see below)
#   scripts/netns.sh status | down
#
# run options: -n N (ranks = namespaces, default 2), --cut K@SECONDS (take
# node K's link down SECONDS after the launch; repeatable), --rate RATE and
# --delay DELAY (every node's link, e.g. 1gbit, 5ms), --keep (leave the
# namespaces up afterwards), --timeout S (outer timeout, default 600; a
# hang is a failure: exit status 124). Anything else before `--` goes to
# mpirun. The exit status is mpirun's.
#
# Environment: HCC_NETNS_PREFIX (default hcns: namespaces hcns1.., bridge
# br-hcns, links vhcns1..), HCC_NETNS_NET (default 10.78.0: node k has
# address .k+1, the bridge .1), HCC_MPIRUN (default mpirun). Two users of
# this machine pick different prefixes and nets; one prefix is used by one
# run at a time (a lock file serialises them).
#
# `mpirun` is for many runs at once in namespaces already up (the test tier,
# test/netns): rank k-1 on node k (one slot per node; more ranks than
# nodes oversubscribe the first nodes), each run with its own host file, agent and
# Open MPI session directories (OMPI_MCA_orte_tmpdir_base), no lock, no
# cleanup of other runs' leftovers (`clean` or `down` afterwards).
#
# Cleanup: each node's Open MPI session directory lives in
# /tmp/<prefix>/<node>, removed after a run; shared-memory segments
# (/dev/shm/vader_segment.*) that no live process maps and that are older
# than a minute are removed too (a killed rank leaks them).
set -euo pipefail

prefix=${HCC_NETNS_PREFIX:-hcns}
net=${HCC_NETNS_NET:-10.78.0}
bridge=br-$prefix
lock=/run/$prefix.netns.lock
tmpdir=/tmp/$prefix

die() {
  echo "netns.sh: $*" >&2
  exit 2
}

ns_need_root() {
  [ "$(id -u)" = 0 ] || die "network namespaces need root (run as root, or use sudo); \
nothing was changed"
  command -v ip >/dev/null || die "the 'ip' command (iproute2) is missing"
}

# Number of namespaces of this prefix that exist now.
ns_count() {
  local n=0
  while ip netns list | grep -qw "$prefix$((n + 1))"; do n=$((n + 1)); done
  echo $n
}

ns_up() {
  local n=${1:?usage: netns.sh up N}
  ns_need_root
  [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 250 ] ||
    die "'$n' is not a node count in 1..250"
  if [ "$(ns_count)" = "$n" ]; then
    for k in $(seq "$n"); do ns_heal "$k"; done
    ns_wait_up "$n"
    return 0
  fi
  ns_down >/dev/null
  ip link add "$bridge" type bridge
  ip addr add "$net.1/24" dev "$bridge"
  ip link set "$bridge" up
  for k in $(seq "$n"); do
    local ns=$prefix$k
    ip netns add "$ns"
    ip link add "v$ns" type veth peer name eth0 netns "$ns"
    ip link set "v$ns" master "$bridge" up
    ip -n "$ns" addr add "$net.$((k + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
  done
  ns_wait_up "$n"
}

# A daemon started before its link is up finds no interface on the
# subnet: wait (at most 5 s) until every link reports "up".
ns_wait_up() {
  local n=$1
  for _ in $(seq 50); do
    local ready=1
    for k in $(seq "$n"); do
      [ "$(ip netns exec "$prefix$k" cat /sys/class/net/eth0/operstate)" = up ] || ready=0
    done
    [ $ready = 1 ] && return 0
    sleep 0.1
  done
}

ns_down() {
  ns_need_root
  local k=1
  while ip netns list | grep -qw "$prefix$k"; do
    ip netns del "$prefix$k" 2>/dev/null || true
    ip link del "v$prefix$k" 2>/dev/null || true
    k=$((k + 1))
  done
  ip link del "$bridge" 2>/dev/null || true
  rm -rf "$tmpdir"
  echo "netns.sh: removed namespaces $prefix* and bridge $bridge"
}

ns_status() {
  local n
  n=$(ns_count)
  echo "prefix $prefix: $n namespace(s) on bridge $bridge ($net.0/24)"
  for k in $(seq "$n"); do
    local state
    state=$(cat "/sys/class/net/v$prefix$k/operstate" 2>/dev/null || echo "?")
    echo "  node $k: namespace $prefix$k, host $prefix$k, address $net.$((k + 1)), link $state"
  done
}

ns_node_link() {
  local k=${1:?node number}
  ip link show "v$prefix$k" >/dev/null 2>&1 ||
    die "node $k has no link v$prefix$k (is 'netns.sh up' done with enough nodes?)"
  echo "v$prefix$k"
}

ns_cut() {
  ns_need_root
  local dev
  dev=$(ns_node_link "$1")
  [ -n "${2:-}" ] && sleep "$2"
  ip link set "$dev" down
  echo "netns.sh: cut node $1 ($dev down) at $(date +%T.%N | cut -c1-12)" >&2
}

# Both ends of node k's link up again (a cut from inside the namespace
# takes its eth0 down, a cut from outside the bridge's end).
ns_heal() {
  ns_need_root
  ip link set "$(ns_node_link "$1")" up
  ip -n "$prefix$1" link set eth0 up 2>/dev/null || true
}

# Traffic shaping on the host side of node k's link: a tbf rate limit,
# and a netem delay where the kernel has netem.
ns_shape() {
  ns_need_root
  local dev rate=${2:-} delay=${3:-}
  dev=$(ns_node_link "$1")
  tc qdisc del dev "$dev" root 2>/dev/null || true
  if [ -n "$delay" ]; then
    tc qdisc add dev "$dev" root handle 1: netem delay "$delay" 2>/dev/null ||
      die "this kernel has no netem queueing discipline, so --delay cannot \
be applied (use --rate only, or a kernel with sch_netem)"
    [ -n "$rate" ] && tc qdisc add dev "$dev" parent 1: handle 2: \
      tbf rate "$rate" burst 64kb latency 50ms
  elif [ -n "$rate" ]; then
    tc qdisc add dev "$dev" root tbf rate "$rate" burst 64kb latency 50ms ||
      die "cannot limit node $1 to '$rate' (a tc rate such as 1gbit)"
  fi
}

# The launcher agent: mpirun starts each remote daemon as
# "<agent> [options] <host> <command...>"; host .k+1 is node k. The daemon
# runs in the node's namespace with its own host name (a UTS namespace)
# and session directory.
ns_write_agent() {
  local base=${2:-$tmpdir}
  cat >"$1" <<AGENT
#!/bin/sh
host=\$1; shift
while [ "\${host#-}" != "\$host" ]; do host=\$1; shift; done
k=\$(( \${host##*.} - 1 ))
mkdir -p $base/$prefix\$k
exec ip netns exec $prefix\$k unshare --uts sh -c \
  "hostname $prefix\$k && TMPDIR=$base/$prefix\$k && export TMPDIR && \$*"
AGENT
  chmod +x "$1"
}

# mpirun options that put rank k-1 on node k (one slot each); DIR
# (default /tmp/<prefix>) holds the host file, the agent and the nodes'
# session directories.
ns_mpirun_args() {
  local n=${1:?usage: netns.sh mpirun-args N} dir=${2:-$tmpdir}
  mkdir -p "$dir"
  local hosts=$dir/hosts agent=$dir/agent
  : >"$hosts"
  for k in $(seq "$n"); do echo "$net.$((k + 1)) slots=1" >>"$hosts"; done
  ns_write_agent "$agent" "$dir"
  echo "--hostfile $hosts --mca plm_rsh_agent $agent" \
    "--mca oob_tcp_if_include $net.0/24 --mca btl_tcp_if_include $net.0/24" \
    "--mca btl self,tcp"
}

# Segments of Open MPI's shared-memory transport that no process maps any
# more (their job died) and that are older than a minute.
ns_clean_shm() {
  local f mapped
  mapped=$(cat /proc/[0-9]*/maps 2>/dev/null | grep -o '/dev/shm/vader_segment[^ ]*' | sort -u || true)
  for f in /dev/shm/vader_segment.*; do
    [ -e "$f" ] || continue
    grep -qxF "$f" <<<"$mapped" && continue
    [ -n "$(find "$f" -mmin +1 2>/dev/null)" ] && rm -f "$f"
  done
  return 0
}

# After a run: processes a hung mpirun left in our namespaces (daemons of
# a cut node, stopped ranks), links brought up again, session directories
# and leaked shared-memory segments removed.
ns_clean() {
  ns_need_root
  local n k p
  n=$(ns_count)
  for k in $(seq "$n"); do
    for p in $(ip netns pids "$prefix$k" 2>/dev/null); do
      kill -9 "$p" 2>/dev/null || true
    done
    ns_heal "$k"
  done
  rm -rf "$tmpdir"/"$prefix"[0-9]*
  ns_clean_shm
}

# mpirun over every namespace of the prefix that is up, in a directory of
# its own that is removed afterwards; the exit status is mpirun's.
ns_mpirun() {
  local n dir rc=0
  n=$(ns_count)
  [ "$n" -ge 1 ] || die "no namespace of prefix $prefix is up (netns.sh up N first)"
  dir=$(mktemp -d "/tmp/$prefix.run.XXXXXX") || die "mktemp in /tmp failed"
  # Every "host" is this machine: a binding chosen per host (hcrun's
  # --map-by slot:PE=T --bind-to core when the ranks fit one host's cores)
  # would put the first rank of every host on the same cores. Unbound, the
  # ranks spread over the cores as on hosts of their own.
  local -a args=()
  while [ $# -gt 0 ]; do
    case $1 in
    --bind-to | -bind-to | --map-by | -map-by) shift 2 ;;
    *) args+=("$1"); shift ;;
    esac
  done
  # shellcheck disable=SC2046
  OMPI_MCA_orte_tmpdir_base=$dir "${HCC_MPIRUN:-mpirun}" \
    $(ns_mpirun_args "$n" "$dir") --bind-to none --oversubscribe "${args[@]}" || rc=$?
  rm -rf "$dir"
  return $rc
}

ns_run() {
  local n=2 keep=0 rate="" delay="" tmo=600
  local -a cuts=() extra=()
  while [ $# -gt 0 ]; do
    case $1 in
    -n | -np) n=$2; shift 2 ;;
    --cut) cuts+=("$2"); shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --timeout) tmo=$2; shift 2 ;;
    --) shift; break ;;
    *) extra+=("$1"); shift ;;
    esac
  done
  [ $# -gt 0 ] || die "run: no program (netns.sh run [options] -- prog args)"
  ns_need_root
  exec 9>"$lock"
  flock -w 600 9 || die "another run of prefix $prefix holds $lock"
  ns_up "$n"
  for k in $(seq "$n"); do ns_heal "$k"; done
  for k in $(seq "$n"); do ns_shape "$k" "$rate" "$delay"; done
  local -a bg=()
  for c in "${cuts[@]+"${cuts[@]}"}"; do
    [[ $c =~ ^([0-9]+)@([0-9.]+)$ ]] || die "--cut '$c': write NODE@SECONDS (e.g. 2@3.5)"
    ns_cut "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" &
    bg+=($!)
  done
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  local rc=0
  # shellcheck disable=SC2046
  timeout -k 5 "$tmo" "${HCC_MPIRUN:-mpirun}" $(ns_mpirun_args "$n") \
    -np "$n" --bind-to none \
    "${extra[@]+"${extra[@]}"}" "$@" || rc=$?
  for p in "${bg[@]+"${bg[@]}"}"; do kill "$p" 2>/dev/null || true; done
  ns_clean
  [ "$keep" = 1 ] || ns_down >/dev/null
  return $rc
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
up | down | status | cut | heal | shape | clean | run) "ns_$cmd" "$@" ;;
mpirun-args) ns_mpirun_args "$@" ;;
mpirun) ns_mpirun "$@" ;;
*) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
