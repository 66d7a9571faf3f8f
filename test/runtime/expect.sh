#!/bin/sh
# expect.sh STATUS [+REGEX | -REGEX | =N:REGEX]... -- COMMAND [ARG]...
# Runs COMMAND, then checks its exit status (a number, or "nonzero", which
# excludes 124: a COMMAND under `timeout` that hung has not failed cleanly) and its
# combined stdout+stderr: +REGEX must match a line, -REGEX must match none,
# =N:REGEX must match exactly N lines. Prints the output on failure.
status=$1
shift
checks=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    checks="$checks
$1"
    shift
done
[ "$1" = "--" ] && shift
out=$("$@" 2>&1)
rc=$?
fail=0
if [ "$status" = nonzero ]; then
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
        echo "expected a non-zero exit status other than 124, got $rc"
        fail=1
    fi
elif [ "$rc" -ne "$status" ]; then
    echo "expected exit status $status, got $rc"
    fail=1
fi
IFS='
'
for c in $checks; do
    [ -n "$c" ] || continue
    re=${c#?}
    case $c in
    +*) printf '%s\n' "$out" | grep -Eq -- "$re" ||
            { echo "missing in output: $re"; fail=1; } ;;
    -*) printf '%s\n' "$out" | grep -Eq -- "$re" &&
            { echo "unexpected in output: $re"; fail=1; } ;;
    =*) n=${re%%:*}
        re=${re#*:}
        got=$(printf '%s\n' "$out" | grep -Ec -- "$re")
        [ "$got" -eq "$n" ] ||
            { echo "expected $n line(s) matching $re, got $got"; fail=1; } ;;
    esac
done
if [ "$fail" -ne 0 ]; then
    echo "---- output of: $* ----"
    printf '%s\n' "$out"
fi
exit $fail
