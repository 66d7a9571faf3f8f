#!/usr/bin/env bash
# FT mode and the dynamic reduction (docs/reduce.md "Failures"): injected
# failures during API reductions, a markdown table.
#
#   bench/faults/ft_reduce.sh [BUILD_DIR] [RUNS]
#
# RUNS (default 100) runs (numbers FT_FIRST, default 1, on) of test/faults/ft_reduce (FT_ROUNDS rounds, 30,
# of 5 reductions: four in flight at once, then a blocking one; several
# operators, types, sizes and roots) under `hcrun --ft`, each losing one
# worker: kill or stop in turn, 3 or 4 ranks in turn, the rank and the
# time (0.5-3 s) random (seed = the run's number), with the detector at
# HCRT_FAULT_TIMEOUT=2 and HCRT_FAULT_PROBE_TIME=0.5 (a stop is found
# sooner). Every root checks its result against a sequential reference.
# Counts: results right (and of those, right with inputs recovered from
# a replica), results that ended with a status naming the lost rank (by
# reason), wrong results, statuses naming another rank, hung runs (an
# outer timeout of 90 s), runs that did not end 0. A hung run's processes
# are dumped (every thread's stack, test/faults/hang_dump.sh) before they
# are killed; HANG_DIR=DIR keeps each hung run's output and dump there,
# KEEP_DIR=DIR the output of each run with a result "lost before its
# replica was complete".
# A loss during the runtime's start-up ends the job (docs/faults.md):
# counted apart.
set -uo pipefail
. "$(dirname "$0")/../../test/faults/hang_dump.sh"
BUILD=$(cd "${1:-build}" && pwd)
runs=${2:-100}
rounds=${FT_ROUNDS:-30}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
HCRUN=$BUILD/bin/hcrun PROG=$BUILD/test/faults/ft_reduce
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HCRT_FAULT_TIMEOUT=2 HCRT_FAULT_PROBE_TIME=0.5
[ -x "$HCRUN" ] && [ -x "$PROG" ] || {
  echo "ft_reduce.sh: build hcrun and test/faults/ft_reduce in $BUILD first" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname): $(nproc) cores; commit $(git -C "$SRC" rev-parse --short HEAD)"
echo "# load: $(uptime | sed 's/.*load/load/')"
right=0 rec=0 stat=0 wrong=0 other=0 hung=0 nonzero=0 total=0 startup=0
: >"$work/reasons"
for i in $(seq "${FT_FIRST:-1}" $((${FT_FIRST:-1} + runs - 1))); do
  RANDOM=$i
  np=$((3 + i % 2)) kind=$([ $((i % 4)) -lt 2 ] && echo kill || echo stop)
  victim=$((1 + RANDOM % (np - 1)))
  when=$((RANDOM % 3)).$((5 + RANDOM % 5))
  run_dumped 90 "$work/err" "$HCRUN" -n "$np" --oversubscribe --ft \
    --inject-failure "$victim@$when:$kind" "$PROG" "$rounds" 0 \
    >"$work/out" 2>"$work/err"
  rc=$?
  [ "$rc" = 124 ] || [ "$rc" = 137 ] && hung=$((hung + 1))
  [ "$rc" = 0 ] || nonzero=$((nonzero + 1))
  grep -aq "start-up, whose collectives need every rank" "$work/err" &&
    startup=$((startup + 1))
  r=$(grep -ac '^R.* = ' "$work/out")
  s=$(grep -ac "^R.* lost $victim: " "$work/out")
  right=$((right + r)) stat=$((stat + s))
  rec=$((rec + $(grep -ac 'right with .* recovered' "$work/err")))
  wrong=$((wrong + $(grep -ac WRONG "$work/out")))
  other=$((other + $(grep -a '^R.* lost ' "$work/out" | grep -avc " lost $victim: ")))
  total=$((total + r + s))
  grep -a "^R.* lost $victim: " "$work/out" | sed 's/^[^:]*: //; s/rank [0-9]* //' >>"$work/reasons"
  nrep=$(grep -ac "^R.* lost $victim: .*before its replica was complete" "$work/out")
  echo "# run $i: np$np $victim@$when:$kind status $rc: $r right, $s with a status ($nrep before its replica was complete)" >&2
  if [ "$nrep" != 0 ] && [ -n "${KEEP_DIR:-}" ]; then
    mkdir -p "$KEEP_DIR"
    cp "$work/out" "$KEEP_DIR/run$i.out"; cp "$work/err" "$KEEP_DIR/run$i.err"
  fi
  if [ "$rc" = 124 ] && [ -n "${HANG_DIR:-}" ]; then
    mkdir -p "$HANG_DIR"
    cp "$work/out" "$HANG_DIR/run$i.out"; cp "$work/err" "$HANG_DIR/run$i.err"
    echo "# run $i hung: stacks in $HANG_DIR/run$i.err" >&2
  fi
done
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f %%", b ? 100 * a / b : 0 }'; }
echo
echo "| runs (failures injected) | results checked | right | of those with recovered inputs | ended with a status naming the lost rank | wrong | status naming another rank | hung runs | runs not ending 0 |"
echo "|---|---|---|---|---|---|---|---|---|"
echo "| $runs | $total | $right ($(pct "$right" "$total")) | $rec | $stat ($(pct "$stat" "$total")) | $wrong | $other | $hung | $nonzero |"
echo
echo "Runs ended because the loss came during the runtime's start-up (status 70, as documented): $startup"
echo
echo "| status reason | results |"
echo "|---|---|"
sort "$work/reasons" | uniq -c | sort -rn | while read -r n why; do echo "| $why | $n |"; done
echo "# load: $(uptime | sed 's/.*load/load/')"
