#!/usr/bin/env bash
# run_fault.sh NP KIND PHASE [RANK] [WHEN]
#
# Runs fault_phases PHASE under hcrun on NP ranks, with rank RANK (default
# NP-1) failing with KIND at WHEN (default 3 s after start-up; the phase
# name for startup and shutdown), and checks what docs/faults.md promises:
#   - the job ends with a non-zero status, at most BOUND seconds (20)
#     after the fault (measured from the launch, minus WHEN: an upper
#     bound, as start-up comes before the detector's clock starts);
#   - one report names rank RANK, its host and the diagnosis of KIND
#     (kill, exit, segv: died; stop: stopped answering; cut: was cut off),
#     on stderr through the runtime's log and in the JSON file;
#   - KIND none (nothing injected), stop=S with S below the timeout, or
#     starve=S (the rank's detector thread sleeps S s while the process
#     computes: a detector starved of CPU): the run succeeds, prints
#     "PHASE done", and no report appears.
# KIND cut runs every rank in its own network namespace (hcrun --netns,
# needs root). Prints one line "PASS|FAIL np kind phase rank: why" and
# exits 0 on PASS (77: skipped, cut without root). Environment: HCRUN,
# FAULT_PHASES (the programs), BOUND, SECS (phase length, default 12),
# HCRUN_ARGS (more hcrun options, e.g. --ft), HOG=N (N busy processes on
# the machine meanwhile), KEEP=1 keeps the output file.
set -uo pipefail
np=$1 kind=$2 phase=$3 rank=${4:-$(($1 - 1))} when=${5:-3}
here=$(cd "$(dirname "$0")" && pwd)
hcrun=${HCRUN:-hcrun}
prog=${FAULT_PHASES:-fault_phases}
bound=${BOUND:-20}
secs=${SECS:-12}
out=$(mktemp /tmp/run_fault.XXXXXX)
json=$out.json
hogs=()
cleanup() {
  for p in "${hogs[@]+"${hogs[@]}"}"; do kill "$p" 2>/dev/null; done
  [ "${KEEP:-0}" = 1 ] || rm -f "$out" "$json"
}
trap cleanup EXIT
if [ "$kind" = cut ] && [ "$(id -u)" != 0 ]; then
  echo "SKIP np$np cut $phase: cutting a link needs root (network namespaces)"
  exit 77
fi
for _ in $(seq "${HOG:-0}"); do
  sh -c 'while :; do :; done' &
  hogs+=($!)
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HCRT_FAULT_REPORT=$json

case $phase in startup | shutdown) when=$phase ;; esac
args=(-n "$np" --oversubscribe)
[ "$kind" = cut ] && args=(--netns "$np")
# shellcheck disable=SC2206
args+=(${HCRUN_ARGS:-})
[ "$kind" != none ] && args+=(--inject-failure "$rank@$when:$kind")

t0=$(date +%s.%N)
timeout -k 5 $((bound + secs + 30)) "$hcrun" "${args[@]}" "$prog" "$phase" "$secs" >"$out" 2>&1
rc=$?
t1=$(date +%s.%N)
elapsed=$(echo "$t1 - $t0" | bc)
whens=$when
case $when in startup | shutdown) whens=0 ;; esac
[[ $phase == shutdown ]] && whens=0
after=$(echo "$elapsed - $whens" | bc)

say() {
  echo "$1 np$np $kind $phase rank$rank: $2 (status $rc, ${elapsed%???????} s)"
  [ "$1" = PASS ] || { echo "---- output ----"; tail -40 "$out"; }
  [ "$1" = PASS ]
  exit $?
}

reports=$(grep -c '^hcrt\[[0-9]*@[^]]*\] fault: \(rank [0-9]* (host\|this rank\)' "$out")
[ "$rc" = 124 ] || [ "$rc" = 137 -a "$(echo "$elapsed > $bound + $secs + 29" | bc)" = 1 ] &&
  say FAIL "the job hung (outer timeout)"
if [ "$kind" = none ] || [[ $kind == stop=* ]] || [[ $kind == starve=* ]]; then
  [ "$rc" = 0 ] || say FAIL "a run without a failure ended with status $rc"
  [ "$reports" = 0 ] || say FAIL "a fault report without a failure"
  grep -q "^$phase done" "$out" || say FAIL "no '$phase done'"
  say PASS "finished normally, no report"
fi
# FT mode: a worker stopped between two cluster regions is caught by the
# next fork (docs/faults.md "The fork gate"), and the job goes on; one
# stopped inside a region still ends the job with the report (below)
if [[ " ${HCRUN_ARGS:-} " == *" --ft "* ]] && [ "$rc" = 0 ]; then
  grep -q "fault: rank $rank (host [^)]*) .*the job goes on without it (FT mode)" "$out" ||
    say FAIL "status 0 without a report that the job went on"
  grep -q "^$phase done .* ok" "$out" || say FAIL "no '$phase done ... ok'"
  say PASS "the loss fell between two regions: FT mode went on, right result"
fi
[ "$rc" != 0 ] || say FAIL "the job ended with status 0 after a failure"
[ "$(echo "$after <= $bound" | bc)" = 1 ] ||
  say FAIL "ended ${after%???????} s after the fault (bound $bound s)"
case $kind in
kill | exit | segv) phrase="died" diag=dead ;;
stop) phrase="stopped answering" diag=stopped ;;
cut) phrase="was cut off" diag=cut ;;
*) say FAIL "unknown kind $kind" ;;
esac
[ "$reports" -ge 1 ] || say FAIL "no fault report"
line=$(grep -m1 "fault: rank $rank (host [^)]*) $phrase at" "$out") ||
  say FAIL "no report line 'rank $rank (host ...) $phrase'"
host=$(sed -n "s/.*fault: rank $rank (host \([^)]*\)).*/\1/p" <<<"$line")
if [ "$kind" = cut ]; then
  want=${HCC_NETNS_NET:-10.78.0}.$((rank + 2))
  [ "$host" = "$want" ] || [ "$host" = "${HCC_NETNS_PREFIX:-hcns}$((rank + 1))" ] ||
    say FAIL "report names host '$host', rank $rank runs on $want"
else
  [ "$host" = "$(hostname)" ] || [ "$host" = "$(hostname -s)" ] ||
    say FAIL "report names host '$host', not $(hostname)"
fi
# A rank that failed well after start-up has said what it was doing (by
# its heartbeats to the rank that watches it, which tells the reporting
# rank when that one asks)
case $phase in
startup | shutdown) ;;
*) ! grep -q "fault: rank $rank .*doing something unknown" "$out" ||
  say FAIL "the report does not say what rank $rank was doing" ;;
esac
# A crash before the DSM installed its SIGSEGV handler (phase startup) has
# Open MPI's message instead of the runtime's crash report: the report
# says the rank died, and that is all there is to say.
if [ "$kind" = segv ] && [ "$phase" != startup ]; then
  grep -q "fault: rank $rank .*it reported a crash" "$out" ||
    say FAIL "the report does not say that rank $rank crashed"
  [ "$(grep -c "segmentation fault" "$out")" = 1 ] ||
    say FAIL "the segfault's message is not printed exactly once"
fi
python3 - "$json" "$rank" "$diag" "$kind" "$phase" <<'PY' || say FAIL "JSON report: $(python3 -c 'import sys' 2>&1)"
import json, sys
path, rank, diag, kind, phase = sys.argv[1], int(sys.argv[2]), *sys.argv[3:6]
r = json.load(open(path))
f = [x for x in r["failures"] if x["rank"] == rank]
assert f and f[0]["diagnosis"] == diag, (r["failures"], rank, diag)
# the crash's own message, which the stderr report does not repeat
assert kind != "segv" or phase == "startup" or \
    "segmentation fault" in f[0]["last_words"], f
PY
say PASS "${line#*fault: }"
