#!/usr/bin/env bash
# sched_corpus.sh WORKDIR SCHED... -- SRC...
#
# The end-to-end corpus under the cluster loop schedulers: each SRC is
# built with plain clang-19 -fopenmp (the reference, 4 threads) and with hcc,
# and the hcc binary runs with HCRT_CLUSTER=1 under `mpirun -np 2` at 2
# threads per rank once per OMP_SCHEDULE value given (e.g. hetprobe,
# hetprobe_i); every run must print exactly what the reference prints.
# Environment: HCC CLANG MPIRUN.
set -u
work=$(realpath -m "$1")
shift
scheds=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do scheds+=("$1"); shift; done
shift
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
fails=0
for src in "$@"; do
    name=$(basename "$src" .c)
    inc=(-I "$(dirname "$(realpath "$src")")" -I "$(dirname "$(realpath "$src")")/Inputs")
    "$CLANG" -fopenmp -O2 "${inc[@]}" "$src" -o "$name.ref" -lm || { echo "FAIL $name: reference compile"; fails=1; continue; }
    "$HCC" -fopenmp -O2 "${inc[@]}" "$src" -o "$name.hcc" -lm || { echo "FAIL $name: hcc compile"; fails=1; continue; }
    # The reference runs at 4 threads, or at the largest count the program's
    # own e2e RUN line allows (--ref-threads): tasks.c stops libomp at 2,
    # since at 3 and more its untied tasks deadlock in ~8 % of runs.
    rt=$(sed -n 's/.*--ref-threads "\{0,1\}\([0-9]\{1,\}\( [0-9]\{1,\}\)*\).*/\1/p' "$src" | head -1)
    rt=${rt##* }
    OMP_NUM_THREADS=${rt:-4} timeout -k 5 120 "./$name.ref" >"$name.ref.out" 2>/dev/null ||
        { echo "FAIL $name: the reference (clang-19 -fopenmp, ${rt:-4} threads) failed or hung"; fails=1; continue; }
    for s in "${scheds[@]}"; do
        out="$name.$s.out"
        env HCRT_CLUSTER=1 OMP_NUM_THREADS=2 OMP_SCHEDULE="$s" $MPIRUN \
            -x HCRT_CLUSTER -x OMP_NUM_THREADS -x OMP_SCHEDULE -np 2 \
            "./$name.hcc" >"$out" 2>"$out.err"
        rc=$?
        if [ $rc != 0 ] || ! diff -q "$name.ref.out" "$out" >/dev/null; then
            echo "FAIL $name under OMP_SCHEDULE=$s (exit $rc)"
            diff -u "$name.ref.out" "$out" | head -20
            head -5 "$out.err"
            fails=1
        else
            echo "ok $name $s"
        fi
    done
done
exit $fails
