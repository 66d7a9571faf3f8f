#!/usr/bin/env bash
# ft_needs_recovery.sh: HCRT_FT=1 under plain mpirun, without Open MPI's
# --enable-recovery, must say that FT mode needs it (and stay off: the run
# itself is a normal one). Environment: FT_TASKS (the program).
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
err=$(mktemp /tmp/ft_needs.XXXXXX)
trap 'rm -f "$err"' EXIT
out=$(timeout -k 5 60 mpirun -np 2 --oversubscribe --bind-to none -x HCRT_FT=1 \
  "${FT_TASKS:-ft_tasks}" 1 0 2>"$err")
rc=$?
[ "$rc" = 0 ] || { cat "$err"; echo "FAIL: status $rc"; exit 1; }
grep -q "all phases ok" <<<"$out" || { echo "FAIL: wrong output: $out"; exit 1; }
grep -q "HCRT_FT=1 needs Open MPI's --enable-recovery" "$err" ||
  { cat "$err"; echo "FAIL: no message that FT mode needs --enable-recovery"; exit 1; }
echo "PASS: $(grep -o "HCRT_FT=1 needs.*" "$err" | head -1)"
