#!/bin/sh
# run_engine.sh BUILD_DIR SRC RANKS [GREP_STDERR]
# Builds SRC (a test of target offload across nodes) with hcc, runs it with
# HCRT_STATS=1 on RANKS ranks; passes when it exits 0 and, with devices,
# stderr matches GREP_STDERR (an extended regex) if given. inflight.c also
# needs the head's "most tasks in flight at once" to reach 1000.
set -u
build=$1 src=$2 ranks=$3 want=${4:-}
name=$(basename "$src" .c)
work=$build/test/offload/engine
mkdir -p "$work"
exe=$work/$name
if [ ! -x "$exe" ] || [ "$src" -nt "$exe" ] || [ "$build/lib/HCCPasses.so" -nt "$exe" ]; then
    "$build/bin/hcc" -fopenmp -O2 "$src" -o "$exe.tmp.$$" && mv "$exe.tmp.$$" "$exe" || exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HCRT_STATS=1
err=$work/$name.np$ranks${HCRT_OFFLOAD_DATA_ENV:+.$HCRT_OFFLOAD_DATA_ENV}.err
# inflight: ranks bound to cores in turn, so the head (rank 0) and device
# 0 (rank 1, busy with every region of the first loop) never share a
# core. Unbound, the scheduler sometimes put them together: the head
# then issued a region whenever the device finished one (5-272 in flight,
# in 2.1 s instead of 3.6), which says nothing about the head's threads.
bind="--bind-to none"
[ "$name" = inflight ] && bind="--bind-to core:overload-allowed --map-by core"
timeout -k 5 240 mpirun --oversubscribe $bind -x HCRT_STATS \
    -np "$ranks" "$exe" 2>"$err"
rc=$?
cat "$err" >&2
[ $rc -eq 0 ] || { echo "FAIL: $name at $ranks rank(s) exited $rc"; exit 1; }
[ "$ranks" -gt 1 ] || exit 0
if [ -n "$want" ] && ! grep -Eq "$want" "$err"; then
    echo "FAIL: $name at $ranks ranks: no '$want' on stderr"
    exit 1
fi
if [ "$name" = inflight ]; then
    n=$(sed -n 's/.*most tasks in flight at once \([0-9]*\).*/\1/p' "$err")
    if [ -z "$n" ] || [ "$n" -lt 1000 ]; then
        echo "FAIL: inflight: at most ${n:-?} tasks in flight at once, want >= 1000"
        exit 1
    fi
    echo "inflight: $n tasks in flight at once"
fi
exit 0
