#!/usr/bin/env bash
# Fault detection benchmarks (docs/faults.md, issue #25): markdown tables.
#
#   bench/faults/run.sh [BUILD_DIR] [WHAT...]
#
# WHAT (default: all four):
#   matrix    every failure kind (kill stop exit segv cut) x phase (startup
#             loop barrier reduction target dsm shutdown) at 2 and 4 ranks,
#             through test/faults/run_fault.sh: ends within the bound,
#             non-zero, the report names the right rank, host, diagnosis
#   latency   time from the fault to the analysis (suspected) and to the
#             report, for kill and stop, against the heartbeat period
#             (HCRT_FAULT_PERIOD P, timeout 8 P), LAT_RUNS runs each
#   accuracy  ACC_RUNS (100) failures of random kind, rank, ranks (2-4),
#             phase and time; right rank and diagnosis, hangs
#   overhead  bench/cluster's programs without a failure, detector on and
#             off (HCRT_FAULT=1/0) alternating, OVH_RUNS runs each: the
#             ratio of the medians of their own timings
# cut needs root (network namespaces, hcrun --netns). Timings mean little
# on a loaded machine: the script prints `uptime` before and after.
set -uo pipefail
# These measure the cross-node runtime: with every rank on this host,
# regions would start on the head alone (docs/placement.md), so they start
# on all nodes here as between hosts, unless the caller says otherwise.
export HCRT_SCHED_PLACE_HEAD_FIRST=${HCRT_SCHED_PLACE_HEAD_FIRST:-0}
BUILD=$(cd "${1:-build}" && pwd)
shift || true
what=${*:-matrix latency accuracy overhead}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export HCRUN=$BUILD/bin/hcrun FAULT_PHASES=$BUILD/test/faults/fault_phases
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RF=$SRC/test/faults/run_fault.sh
[ -x "$HCRUN" ] && [ -x "$FAULT_PHASES" ] || {
  echo "run.sh: build hcrun and test/faults/fault_phases in $BUILD first" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname): $(nproc) cores; commit $(git -C "$SRC" rev-parse --short HEAD)"
echo "# load: $(uptime | sed 's/.*load/load/')"

# "ok 6.2" or "FAIL" from one run_fault.sh line
cell() {
  local line
  line=$("$RF" "$@" 2>/dev/null | head -1)
  case $line in
  PASS*) echo "ok $(sed -n 's/.*, \([0-9.]*\) s)$/\1/p' <<<"$line")" ;;
  SKIP*) echo "skip" ;;
  *) echo "FAIL"; echo "$*: $line" >>"$work/fails" ;;
  esac
}

matrix() {
  local phases="startup loop barrier reduction target dsm shutdown"
  echo
  echo "### Failure kind x phase (whole run in s, or FAIL; bound: $((${BOUND:-20})) s after the fault)"
  echo
  echo "| ranks | kind | $(tr ' ' '|' <<<"$phases" | sed 's/|/ | /g') |"
  echo "|---|---|$(sed 's/[a-z]*/---|/g; s/ //g' <<<"$phases")"
  for np in 2 4; do
    for kind in kill stop exit segv cut; do
      row="| $np | $kind |"
      for ph in $phases; do
        row="$row $(cell "$np" "$kind" "$ph" $((np - 1))) |"
      done
      echo "$row"
    done
  done
  [ -f "$work/fails" ] && { echo; sed 's/^/    /' "$work/fails"; rm -f "$work/fails"; }
}

# job time of the injection, of the analysis and of the report in one run
# (KIND stop/netns: a stop on another host, without /proc to look at)
lat_run() {
  local period=$1 kind=${2%/*} out=$work/lat.out json=$work/lat.json
  local -a where=(-n 2 --oversubscribe)
  [[ $2 == */netns || $2 == cut ]] && where=(--netns 2)
  rm -f "$json"
  HCRT_FAULT_PERIOD=$period HCRT_FAULT_TIMEOUT=$(echo "8 * $period" | bc) \
    HCRT_FAULT_REPORT=$json timeout -k 5 120 "$HCRUN" "${where[@]}" \
    --inject-failure "1@3:$kind" "$FAULT_PHASES" loop 20 >"$out" 2>&1
  local inj
  inj=$(sed -n "s/.*injecting '[a-z]*' at \([0-9.]*\) s.*/\1/p" "$out" | head -1)
  # a cut rank's own line may never leave its node: it fired at 3 s
  [ -n "$inj" ] || inj=3
  [ -f "$json" ] || { echo "nan nan"; return; }
  python3 - "$json" "$inj" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = float(sys.argv[2])
f = r["failures"][0]
print(f"{f['suspected_s'] - t:.2f} {r['time_s'] - t:.2f}")
PY
}

latency() {
  local runs=${LAT_RUNS:-3}
  echo
  echo "### Detection latency vs heartbeat period (2 ranks, timeout 8 periods, medians of $runs)"
  echo
  echo "| period P (s) | kind | fault -> analysis (s) | fault -> report (s) | report - timeout (s) | goal: 2 P + 1 s |"
  echo "|---|---|---|---|---|---|"
  local kinds="kill stop"
  [ "$(id -u)" = 0 ] && kinds="kill stop stop/netns cut"
  for p in 0.25 0.5 1 2; do
    for kind in $kinds; do
      : >"$work/lat"
      for _ in $(seq "$runs"); do lat_run "$p" "$kind" >>"$work/lat"; done
      python3 - "$work/lat" "$p" "$kind" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1]) if "nan" not in l]
p, kind = float(sys.argv[2]), sys.argv[3]
if not rows:
    print(f"| {p} | {kind} | failed | failed | | |"); sys.exit()
a = st.median(float(r[0]) for r in rows); r_ = st.median(float(r[1]) for r in rows)
extra = r_ - (8 * p if kind != "kill" else 0)
goal = 2 * p + 1
print(f"| {p} | {kind} | {a:.2f} | {r_:.2f} | {extra:.2f} | {goal:.2f} {'met' if extra <= goal else 'MISSED'} |")
PY
    done
  done
}

accuracy() {
  local runs=${ACC_RUNS:-100} ok=0 hang=0 wrong=0 n=0
  local kinds=(kill stop exit segv cut) phases=(loop barrier reduction dsm seq target)
  [ "$(id -u)" = 0 ] || kinds=(kill stop exit segv)
  : >"$work/acc"
  for i in $(seq "$runs"); do
    local np=$((2 + RANDOM % 3)) kind=${kinds[RANDOM % ${#kinds[@]}]}
    local rank=$((RANDOM % np)) ph=${phases[RANDOM % ${#phases[@]}]}
    local when
    when=$(awk -v r=$RANDOM 'BEGIN { printf "%.1f", 1.5 + 4.5 * r / 32768 }')
    [ "$ph" = target ] && [ "$rank" = 0 ] && rank=1
    line=$("$RF" "$np" "$kind" "$ph" "$rank" "$when" 2>/dev/null | head -1)
    n=$((n + 1))
    case $line in
    PASS*) ok=$((ok + 1)) ;;
    *hung*) hang=$((hang + 1)); echo "$np $kind $ph $rank@$when: $line" >>"$work/acc" ;;
    *) wrong=$((wrong + 1)); echo "$np $kind $ph $rank@$when: $line" >>"$work/acc" ;;
    esac
  done
  echo
  echo "### Localization accuracy over $n random failures"
  echo
  echo "| runs | right rank, host, diagnosis, ended in bound | wrong or late | hangs | goal |"
  echo "|---|---|---|---|---|"
  echo "| $n | $ok ($((100 * ok / n)) %) | $wrong | $hang | 100 %, 0 hangs |"
  [ -s "$work/acc" ] && { echo; sed 's/^/    /' "$work/acc"; }
}

overhead() {
  local runs=${OVH_RUNS:-5} np=2
  local -A args=([ep]=25 [stencil]="1024 20" [cg]="20000 12 30" [fork]=2000)
  echo
  echo "### Detector overhead without failures ($np ranks, medians of $runs alternating runs)"
  echo
  echo "| program | detector off | detector on | on / off | detector thread's CPU (% of a core, max over ranks) | goal |"
  echo "|---|---|---|---|---|---|"
  for p in ep stencil cg fork; do
    "$BUILD/bin/hcc" -O2 "$SRC/bench/cluster/$p.c" -o "$work/$p" -lm
    local key=time_s
    [ "$p" = fork ] && key=empty_us
    : >"$work/off"; : >"$work/on"; : >"$work/cpu"
    for _ in $(seq "$runs"); do
      for f in 0 1; do
        HCRT_FAULT=$f HCRT_LOG=fault:2 timeout -k 5 300 "$HCRUN" -n $np \
          "$work/$p" ${args[$p]} >"$work/o" 2>"$work/e"
        sed -n "s/^$key=//p" "$work/o" >>"$work/$([ $f = 1 ] && echo on || echo off)"
        sed -n 's/.*fault detector: cpu .*(\([0-9.]*\) % of a core).*/\1/p' "$work/e" >>"$work/cpu"
      done
    done
    python3 - "$work/off" "$work/on" "$p" "$key" "$work/cpu" <<'PY'
import statistics as st, sys
off = [float(x) for x in open(sys.argv[1]) if x.strip()]
on = [float(x) for x in open(sys.argv[2]) if x.strip()]
cpu = [float(x) for x in open(sys.argv[5]) if x.strip()]
if not off or not on:
    print(f"| {sys.argv[3]} | failed | | | | |"); sys.exit()
a, b = st.median(off), st.median(on)
unit = "us per region" if sys.argv[4] == "empty_us" else "s"
c = f"{max(cpu):.3f}" if cpu else "?"
print(f"| {sys.argv[3]} ({unit}) | {a:.4g} | {b:.4g} | {b / a:.3f} | {c} | <= 1.02 |")
PY
  done
}

for w in $what; do "$w"; done
echo
echo "# load: $(uptime | sed 's/.*load/load/')"
