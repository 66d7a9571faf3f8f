#!/usr/bin/env bash
# run_ft_reduce.sh NP KIND
#
# FT mode and the dynamic reduction (docs/reduce.md "Failures"): runs
# ft_reduce (rounds of API reductions: several operators, types, sizes,
# roots, four in flight at once) under `hcrun --ft` on NP ranks while one
# worker rank is killed or stopped (KIND kill|stop; none: no failure) at a
# random time (seeded by FT_SEED, printed). Passes when the job ends 0,
# no result was wrong (each root checks its result against a sequential
# reference), every result whose status is OK is the fault-free run's
# line, and every other status names the lost rank. A hang is a failure
# (outer timeout of 100 s: hang_dump.sh first writes every live process's
# stacks into the log shown). Prints "PASS|FAIL ..." and a summary: results right,
# right with recovered inputs, ended with a status (by reason).
# A loss that comes during the runtime's start-up ends the job (the
# documented FT mode limit): SKIP (77). Environment: HCRUN, FT_REDUCE
# (the program), FT_SEED, FT_INJECT (instead of the random failure: a
# --inject-failure list whose first rank is the one lost), FT_ROUNDS (60),
# FT_MS (pause per round, 60: the program outlives the injection, at 1-2.9 s), FT_LOG=FILE appends the summary line.
set -uo pipefail
. "$(dirname "$0")/hang_dump.sh"
np=$1 kind=$2
hcrun=${HCRUN:-hcrun}
prog=${FT_REDUCE:-ft_reduce}
seed=${FT_SEED:-$(($(date +%s%N) % 100000))}
rounds=${FT_ROUNDS:-60} ms=${FT_MS:-60}
RANDOM=$seed
out=$(mktemp /tmp/run_ft_reduce.XXXXXX)
cleanup() { [ "${KEEP:-0}" = 1 ] || rm -f "$out" "$out".*; }
trap cleanup EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
inject=""
if [ -n "${FT_INJECT:-}" ]; then # the first rank named is the one lost
  inject=$FT_INJECT victim=${FT_INJECT%%@*}
elif [ "$kind" != none ]; then
  victim=$((1 + RANDOM % (np - 1)))
  inject="$victim@$((1 + RANDOM % 2)).$((RANDOM % 10)):$kind"
fi
summary=""
say() {
  local line="$1 np$np $kind seed=$seed${inject:+ ($inject)}: $2 (status $rc, $elapsed s)${summary:+; $summary}"
  echo "$line"
  [ -n "${FT_LOG:-}" ] && echo "$line" >>"$FT_LOG"
  [ "$1" = PASS ] || [ "$1" = SKIP ] || {
    echo "---- stdout (tail) ----"; tail -5 "$out.out"
    echo "---- stderr ----"; grep -av "PMIX ERROR" "$out.err" | sed '/^==== hang dump/,$d' | tail -20
    sed -n '/^==== hang dump/,$p' "$out.err"
  }
  [ "$1" = SKIP ] && exit 77
  [ "$1" = PASS ]
  exit $?
}
rc=0 elapsed=0
# the fault-free lines (the same program, no failure, no FT mode)
timeout -k 5 100 "$hcrun" -n "$np" --oversubscribe "$prog" "$rounds" "$ms" \
  >"$out.ref" 2>"$out.referr" || { rc=$?; say FAIL "the fault-free run failed"; }
t0=$(date +%s.%N)
run_dumped 100 "$out.err" "$hcrun" -n "$np" --oversubscribe --ft \
  ${inject:+--inject-failure "$inject"} "$prog" "$rounds" "$ms" \
  >"$out.out" 2>"$out.err"
rc=$?
elapsed=$(printf %.1f "$(echo "$(date +%s.%N) - $t0" | bc)")
ok=$(grep -ac '^R.* = ' "$out.out")
rec=$(grep -ac 'right with .* recovered' "$out.err")
failed=$(grep -ac '^R.* lost ' "$out.out")
reasons=$(grep -a '^R.* lost ' "$out.out" | sed 's/^[^:]*: //; s/rank [0-9]* //' |
  sort | uniq -c | sed 's/^ *//' | tr '\n' ';')
summary="$ok right ($rec with recovered inputs), $failed with a status: ${reasons:-none}"
[ "$rc" = 124 ] || [ "$rc" = 137 ] && say FAIL "the job hung (outer timeout)"
if [ "$rc" = 70 ] && grep -aq "start-up, whose collectives need every rank" "$out.err"; then
  say SKIP "the loss came during the start-up (a loaded machine): the job ended, as documented"
fi
[ "$rc" = 0 ] || say FAIL "the job did not finish (status $rc)"
grep -aq WRONG "$out.out" && say FAIL "a wrong result: $(grep -a WRONG "$out.out" | head -2 | tr '\n' ' ')"
grep -aq "^ft_reduce: $rounds rounds" "$out.out" || say FAIL "the head did not finish its rounds"
extra=$(grep -a '^R.* = ' "$out.out" | grep -avxFf "$out.ref" | head -2)
[ -z "$extra" ] || say FAIL "an OK result differs from the fault-free run's: $extra"
if [ "$kind" = none ]; then
  [ "$failed" = 0 ] || say FAIL "a status other than OK without a failure"
  [ "$ok" = "$(grep -ac '^R.* = ' "$out.ref")" ] || say FAIL "results missing"
  say PASS "fault-free run with --ft: the fault-free results"
fi
bad=$(grep -a '^R.* lost ' "$out.out" | grep -av " lost $victim: " | head -2)
[ -z "$bad" ] || say FAIL "a status names another rank than $victim: $bad"
[ "$failed" -gt 0 ] || say FAIL "no status names lost rank $victim (later reductions must)"
grep -aq "fault: rank $victim (host [^)]*) .*the job goes on without it (FT mode)" "$out.err" ||
  say FAIL "no report that rank $victim was lost and the job went on"
say PASS "every result right or its status naming rank $victim"
