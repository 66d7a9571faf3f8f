#!/usr/bin/env bash
# FT mode benchmarks (docs/faults.md "FT mode", issue #26): markdown tables.
#
#   bench/faults/ft.sh [BUILD_DIR] [WHAT...]
#
# WHAT (default: both):
#   failures  FT_RUNS (102) failures injected into target task graphs
#             (test/faults/ft_tasks.c) under `hcrun --ft`, through
#             test/faults/run_ft.sh: kind kill / stop / cut in turn (FT_KINDS
#             to choose, e.g. "cut"), 3 or 4
#             ranks, cluster mode on or off, the rank and the time random
#             (seed = the run's number), with the detector at
#             HCRT_FAULT_TIMEOUT=2 and HCRT_FAULT_PROBE_TIME=0.5 (half the
#             defaults: a stop is found sooner, the runs are shorter) and
#             FT_PHASES (10; 14 for cut) graphs: finished with the fault-free
#             output, ended (the platform: a cut node's Open MPI daemon),
#             wrong output, hangs; the recovery's figures (HCRT_STATS)
#   overhead  fault-free task graphs with and without --ft, alternating,
#             OVH_RUNS (7) runs each: the ratio of the medians of the wall
#             times (ft_tasks PHASES MS at 3 ranks, for MS 40 and 2)
#   prog-overhead  the same programs fault-free at 3 ranks with the default
#             placement, with and without --ft, alternating, PROG_RUNS (5)
#             runs each: the ratio of the medians of the wall times
#   programs  whole programs someone else wrote: every <bench>.<class>.x of
#             NPB_DIR (an NPB3.3-OMP-C build made with hcc, outside the
#             repository; NPB_PROGRAMS to choose), PROG_RUNS (5) runs each
#             at 3 ranks with the default placement, a random worker
#             killed (PROG_KINDS, default "kill"; "kill stop" for a row of
#             each) at a random time within the program's fault-free run
#             (its wall time net of hcrun's launch cost on an empty
#             program): went on and finished verified, no loss (the program
#             ended first), ended saying why (and why), wrong (finished
#             unverified, or a wrong verification), hung. A program whose
#             fault-free run does not verify is listed as such
# cut needs root (network namespaces). Timings mean little on a loaded
# machine: the script prints `uptime` before and after.
set -uo pipefail
# failures and overhead measure the cross-node runtime: with every rank on this host,
# regions would start on the head alone (docs/placement.md), so they start
# on all nodes here as between hosts, unless the caller says otherwise.
export HCRT_SCHED_PLACE_HEAD_FIRST=${HCRT_SCHED_PLACE_HEAD_FIRST:-0}
BUILD=$(cd "${1:-build}" && pwd)
shift || true
what=${*:-failures overhead}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export HCRUN=$BUILD/bin/hcrun FT_TASKS=$BUILD/test/faults/ft_tasks
export FAULT_PHASES=$BUILD/test/faults/fault_phases
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x "$HCRUN" ] && [ -x "$FT_TASKS" ] || {
  echo "ft.sh: build hcrun and test/faults/ft_tasks in $BUILD first" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname): $(nproc) cores; commit $(git -C "$SRC" rev-parse --short HEAD)"
echo "# load: $(uptime | sed 's/.*load/load/')"

failures() {
  local n=${FT_RUNS:-102} kinds=(${FT_KINDS:-kill stop cut}) log=$work/ft.log
  : >"$log"
  echo
  echo "| kind | runs | same output as fault-free | ended by mpirun (cut daemon), right prefix | other endings | wrong output | hung | median s |"
  echo "|---|---|---|---|---|---|---|---|"
  for i in $(seq 0 $((n - 1))); do
    k=${kinds[i % ${#kinds[@]}]} np=$((3 + (i / 3) % 2)) cl=$(((i / 6) % 2)) ph=${FT_PHASES:-10}
    [ "$k" = cut ] && ph=$((ph + 4))
    line=$(FT_SEED=$((i + 1)) FT_LOG=$log HCRT_STATS=1 \
      FT_PHASES=$ph HCRT_FAULT_TIMEOUT=2 HCRT_FAULT_PROBE_TIME=0.5 \
      "$SRC/test/faults/run_ft.sh" "$np" "$k" "$cl" 2>&1 | head -1)
    echo "$k $line" >>"$work/lines"
    echo "$line" >&2
  done
  for k in "${kinds[@]}"; do
    local all same ended wrong hung med
    all=$(grep -c "^$k " "$work/lines")
    same=$(grep "^$k PASS" "$work/lines" | grep -c "fault-free output after")
    ended=$(grep "^$k PASS" "$work/lines" | grep -c "mpirun then ended")
    hung=$(grep "^$k FAIL" "$work/lines" | grep -c "hung")
    wrong=$(grep "^$k FAIL" "$work/lines" | grep -c "differs\|a wrong line")
    other=$(($(grep -c "^$k FAIL" "$work/lines") - hung - wrong))
    med=$(grep "^$k " "$work/lines" | sed -n 's/.*, \([0-9.]*\) s)$/\1/p' |
      sort -n | awk '{a[NR]=$1} END {print NR ? a[int((NR+1)/2)] : "-"}')
    echo "| $k | $all | $same | $ended | $other | $wrong | $hung | $med |"
  done
  grep " FAIL" "$work/lines" | sed 's/^/    /'
  echo
  echo "Recovery (HCRT_STATS of the runs that lost a rank): tasks re-run per"
  echo "loss, bytes sent again, time from a task's first failure to its"
  echo "completion:"
  grep "offload: FT mode" "$log" | sed -n \
    's/.*FT mode, \([0-9]*\) rank(s) lost: \([0-9]*\) target task(s) re-run on survivors, \([0-9]*\) bytes sent again, \([0-9.]*\) ms.*/\1 \2 \3 \4/p' |
    awk '{l+=$1; t+=$2; b+=$3; ms+=$4; n++} END {if (n) printf "%d runs, %d losses: %.1f tasks re-run per loss, %.0f bytes per loss, %.1f ms per re-run task\n", n, l, t/l, b/l, t ? ms/t : 0}'
  grep -c "cannot recover" "$log" | sed 's/^/lines "cannot recover" (must be 0 for task graphs): /'
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

programs() {
  local dir=${NPB_DIR:?programs: set NPB_DIR to a directory of hcc-built NPB <bench>.<class>.x}
  local runs=${PROG_RUNS:-5} progs=${NPB_PROGRAMS:-} out=$work/prog
  [ -n "$progs" ] || progs=$(cd "$dir" && ls ./*.x | sed 's|^\./||; s|\.x$||')
  local ok="verification *= *successful\|verification successful"
  RANDOM=${FT_SEED:-1}
  "$BUILD/bin/hcc" -O2 "$SRC/bench/cluster/empty.c" -o "$work/empty" || return 1
  local l0 launch
  l0=$(date +%s.%N)
  "$HCRUN" -n 3 --oversubscribe --ft "$work/empty" >/dev/null 2>&1
  launch=$(echo "$(date +%s.%N) - $l0" | bc)
  echo
  printf "launch cost of hcrun -n 3 --ft (empty program): %.2f s\n\n" "$launch"
  echo "| program | kind | fault-free s (3 ranks) | runs | finished verified, status 0 | no loss (ended first) | ended saying why | why | wrong | hung |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for p in $progs; do
   for kind in ${PROG_KINDS:-kill}; do
    local t0 t1 base same=0 none=0 ended=0 wrong=0 hung=0 why=""
    t0=$(date +%s.%N)
    HCRT_SCHED_PLACE_HEAD_FIRST=1 timeout 600 "$HCRUN" -n 3 --oversubscribe --ft \
      "$dir/$p.x" >"$out" 2>&1
    t1=$(date +%s.%N)
    base=$(printf %.3f "$(echo "$t1 - $t0" | bc)")
    grep -qi "$ok" "$out" || {
      echo "| $p | $kind | fault-free run not verified | | | | | | | |"
      continue
    }
    for _ in $(seq "$runs"); do
      local r=$((1 + RANDOM % 2)) ms t rc w
      ms=$(echo "($base - $launch) * 1000 * $((RANDOM % 90 + 5)) / 100" | bc)
      ms=${ms%.*}
      t=$(printf %d.%03d $((ms / 1000)) $((ms % 1000)))
      HCRT_SCHED_PLACE_HEAD_FIRST=1 timeout -k 5 $((${base%.*} * 4 + 60)) \
        "$HCRUN" -n 3 --oversubscribe --ft --inject-failure "$r@$t:$kind" \
        "$dir/$p.x" >"$out" 2>&1
      rc=$?
      if [ $rc = 124 ] || [ $rc = 137 ]; then
        hung=$((hung + 1))
      elif [ $rc = 0 ] && ! grep -qi "$ok" "$out"; then
        wrong=$((wrong + 1))
      elif grep -qi "verification *= *unsuccessful\|verification failed" "$out"; then
        wrong=$((wrong + 1))
      elif [ $rc = 0 ] && grep -q "the job goes on without it\|the program had finished, its output is complete" "$out"; then
        same=$((same + 1))
      elif [ $rc = 0 ]; then
        none=$((none + 1))
      else
        ended=$((ended + 1))
        w=$(grep -o "in the team of the parallel region at [^ ,]*\|cannot recover from it: its threads' threadprivate\|it was shutting down\|still in the runtime's start-up\|cannot recover from it: [a-z' ]*" "$out" | head -1 |
          sed "s/in the team of the parallel region at \(.*\)/in region \1/; s/cannot recover from it: its threads' threadprivate/threadprivate/; s/cannot recover from it: //; s/it was shutting down/in the shutdown/; s/still in the runtime's start-up/in the start-up/")
        why="$why${why:+, }${w:-status $rc}"
      fi
    done
    printf "| %s | %s | %.2f | %d | %d | %d | %d | %s | %d | %d |\n" "$p" \
      "$kind" "$base" "$runs" "$same" "$none" "$ended" "${why:--}" "$wrong" \
      "$hung"
   done
  done
}

# ab_row LABEL RUNS PROG [ARGS...]: PROG under hcrun -n 3 without and with
# --ft, alternating, RUNS runs each: a table row of the medians and ratio
ab_row() {
  local label=$1 runs=$2 off on
  shift 2
  : >"$work/off" && : >"$work/on"
  for _ in $(seq "$runs"); do
    for mode in off on; do
      local a=(-n 3 --oversubscribe) t0 t1
      [ $mode = on ] && a+=(--ft)
      t0=$(date +%s.%N)
      "$HCRUN" "${a[@]}" "$@" >/dev/null 2>&1
      t1=$(date +%s.%N)
      echo "$t1 - $t0" | bc >>"$work/$mode"
    done
  done
  off=$(median <"$work/off") on=$(median <"$work/on")
  printf "| %s | %.2f | %.2f | %.3f |\n" "$label" "$off" "$on" \
    "$(echo "$on / $off" | bc -l)"
}

prog-overhead() {
  local dir=${NPB_DIR:?prog-overhead: set NPB_DIR to a directory of hcc-built NPB <bench>.<class>.x}
  local progs=${NPB_PROGRAMS:-}
  [ -n "$progs" ] || progs=$(cd "$dir" && ls ./*.x | sed 's|^\./||; s|\.x$||')
  echo
  echo "| program (3 ranks) | without --ft s | with --ft s | ratio |"
  echo "|---|---|---|---|"
  for p in $progs; do
    HCRT_SCHED_PLACE_HEAD_FIRST=1 ab_row "$p" "${PROG_RUNS:-5}" "$dir/$p.x"
  done
}

overhead() {
  echo
  echo "| ft_tasks (3 ranks, 8 phases) | without --ft s | with --ft s | ratio |"
  echo "|---|---|---|---|"
  for ms in 40 2; do
    ab_row "kernels of $ms ms" "${OVH_RUNS:-7}" "$FT_TASKS" 8 "$ms"
  done
}

for w in $what; do "$w"; done
echo
echo "# load: $(uptime | sed 's/.*load/load/')"
