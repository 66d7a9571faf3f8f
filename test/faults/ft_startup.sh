#!/usr/bin/env bash
# ft_startup.sh: in FT mode, a rank lost during the runtime's start-up
# (whose collectives need every rank) ends the job with the report and
# a line that says so, in bounded time: the survivors must not wait in a
# start-up collective for the lost rank for ever (docs/faults.md "FT
# mode"). Environment: HCRUN, FT_REDUCE (the program).
set -uo pipefail
. "$(dirname "$0")/hang_dump.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp /tmp/ft_startup.XXXXXX)
trap 'rm -f "$out" "$out".*' EXIT
run_dumped 60 "$out.err" "${HCRUN:-hcrun}" -n 3 --oversubscribe --ft \
  --inject-failure 2@startup:kill "${FT_REDUCE:-ft_reduce}" 10 100 \
  >"$out" 2>"$out.err"
rc=$?
fail() { grep -av "PMIX ERROR" "$out.err" | tail -40; echo "FAIL: $1 (status $rc)"; exit 1; }
[ "$rc" = 124 ] && fail "the job hung (a survivor waits for the lost rank)"
[ "$rc" = 70 ] || fail "the job did not end with HCRT_FAULT_STATUS 70"
grep -aq "fault: rank 2 (host [^)]*) died.*start-up, whose collectives need every rank" "$out.err" ||
  fail "no report that rank 2 was lost during the start-up"
echo "PASS: $(grep -ao 'rank 2 (host [^)]*) died.*' "$out.err" | head -1)"
