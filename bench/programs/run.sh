#!/usr/bin/env bash
# The real-program suite (issue #24): one-node, clang-19 and 1/2/4-rank
# times of whole programs, each run's answer checked, ratios printed as a
# markdown table and speedups plotted (bench/RESULTS.md, "Real programs").
#
#   bench/programs/run.sh [-b BUILD] [-r REPEATS] [-o OUT]
#                         [--npb-hcc DIR --npb-clang DIR] [--classes "S W"]
#                         [--programs "bt cg ..."] [--no-examples]
#                         [--netns [--delay DELAY]]
#
# Programs built OUTSIDE this repository: SNU NPB3.3-OMP-C binaries named
# <bench>.<CLASS>.x, one directory built by hcc (-O2 -fopenmp) and one by
# clang-19 -fopenmp (e.g. with a script of your own around NPB's make).
# The hcc examples (examples/) come from BUILD/examples; their clang-19
# builds are made here. Configurations per program:
#   clang  the clang-19 build, ./prog, OMP_NUM_THREADS=2 (the machine's cores)
#   one    the hcc build, ./prog, OMP_NUM_THREADS=2
#   np1 np2 np4  hcrun -n N --threads 1 (cluster mode, --oversubscribe)
# Every hcrun time is net of hcrun's launch cost at that -n, measured on an
# empty program in the same run. Runs are interleaved (repeat r runs every
# program and configuration before repeat r+1); the table gives medians
# and the spread (max/min - 1). NPB's "Verification = SUCCESSFUL" is
# required; an example's output must equal its clang-19 build's at the same
# total thread count. Raw rows: OUT/times.tsv; table: OUT/table.md; plot:
# OUT/speedup.png (OUT defaults to BUILD/bench/programs).
#
# --netns: the hcrun runs put one rank on each of 4 simulated hosts
# (network namespaces over TCP, scripts/netns.sh; root), as on a cluster:
# a call on the head alone then has one host's cores, and every page a
# rank misses crosses the network. --delay DELAY adds a netem delay (e.g.
# 50us) to every host's link. clang and one still run on this host.
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=$src/build repeats=3 out="" npb_hcc="" npb_clang="" classes="S W"
programs="bt cg ep ft is lu mg sp" examples=1 timeout_s=300 netns=0 delay=
while [ $# -gt 0 ]; do
    case $1 in
    -b) build=$(cd "$2" && pwd); shift ;;
    -r) repeats=$2; shift ;;
    -o) out=$2; shift ;;
    --npb-hcc) npb_hcc=$(cd "$2" && pwd); shift ;;
    --npb-clang) npb_clang=$(cd "$2" && pwd); shift ;;
    --classes) classes=$2; shift ;;
    --programs) programs=$2; shift ;;
    --no-examples) examples=0 ;;
    --timeout) timeout_s=$2; shift ;;
    --netns) netns=1 ;;
    --delay) delay=$2; shift ;;
    *) echo "run.sh: unknown option '$1' (see the header of $0)" >&2; exit 2 ;;
    esac
    shift
done
out=${out:-$build/bench/programs}
mkdir -p "$out/bin" "$out/logs"
out=$(cd "$out" && pwd)
hcrun=$build/bin/hcrun
[ -x "$hcrun" ] || { echo "run.sh: no $hcrun: build hcc first (scripts/build.sh)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ "$netns" = 1 ]; then
    # hosts of our own (prefix and net apart from the test tier's)
    export HCC_NETNS_PREFIX=${HCC_NETNS_PREFIX:-hcbench} HCC_NETNS_NET=${HCC_NETNS_NET:-10.79.0}
    export HCC_MPIRUN=$src/test/netns/mpirun.sh
    bash "$src/scripts/netns.sh" up 4
    trap 'bash "$src/scripts/netns.sh" down >/dev/null 2>&1 || true' EXIT
    if [ -n "$delay" ]; then
        for k in 1 2 3 4; do bash "$src/scripts/netns.sh" shape $k "" "$delay"; done
    fi
fi

# name|hcc binary|clang binary|kind (npb or example)
list=()
if [ -n "$npb_hcc" ] && [ -n "$npb_clang" ]; then
    for c in $classes; do
        for p in $programs; do
            h=$npb_hcc/$p.$c.x k=$npb_clang/$p.$c.x
            if [ -x "$h" ] && [ -x "$k" ]; then
                list+=("$p.$c|$h|$k|npb")
            else
                echo "run.sh: skipping $p.$c (no $h or $k)" >&2
            fi
        done
    done
fi
if [ "$examples" = 1 ]; then
    for e in heat pi pipeline awave; do
        [ -x "$build/examples/$e" ] || continue
        clang-19 -O2 -fopenmp "$src/examples/$e.c" -o "$out/bin/$e.clang" -lm
        list+=("$e|$build/examples/$e|$out/bin/$e.clang|example")
    done
fi
[ ${#list[@]} -gt 0 ] || { echo "run.sh: no program to run" >&2; exit 1; }
"$build/bin/hcc" -O2 "$src/bench/cluster/empty.c" -o "$out/bin/empty"

# now: seconds since the epoch with nanoseconds.
now() { date +%s.%N; }
# run LOG CMD...: wall seconds of CMD (output in LOG), or "fail".
run() {
    local log=$1 t0 t1 rc
    shift
    t0=$(now)
    timeout -k 5 "$timeout_s" "$@" >"$log" 2>&1 && rc=0 || rc=$?
    t1=$(now)
    [ $rc = 0 ] || { echo fail; return; }
    echo "$t1 - $t0" | bc -l
}
# ok KIND LOG REF: the run's answer is right.
ok() {
    case $1 in
    npb) grep -Eq 'Verification +=( +)SUCCESSFUL' "$2" ;;
    example) diff -q <(grep -v '^hcrt' "$2") <(grep -v '^hcrt' "$3") >/dev/null ;;
    esac
}

rows=$out/times.tsv
echo -e "repeat\tprogram\tconfig\tseconds\tok" >"$rows"
hosts="one host"
[ "$netns" = 1 ] && hosts="hcrun ranks on 4 simulated hosts (netns${delay:+, netem delay $delay})"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$src" rev-parse --short HEAD), $(nproc) cores, $hosts; load: $(uptime | sed 's/.*load average: //')" | tee "$out/header.txt"
for r in $(seq "$repeats"); do
    for n in 1 2 4; do
        t=$(run "$out/logs/empty.np$n" "$hcrun" -n $n --threads 1 --oversubscribe "$out/bin/empty")
        echo -e "$r\tempty\tnp$n\t$t\t1" >>"$rows"
    done
    for item in "${list[@]}"; do
        IFS='|' read -r name hbin cbin kind <<<"$item"
        for cfg in clang one np1 np2 np4; do
            log=$out/logs/$name.$cfg.$r
            case $cfg in
            clang) t=$(OMP_NUM_THREADS=2 run "$log" "$cbin") ;;
            one) t=$(OMP_NUM_THREADS=2 run "$log" "$hbin") ;;
            np*) t=$(run "$log" "$hcrun" -n "${cfg#np}" --threads 1 --oversubscribe "$hbin") ;;
            esac
            good=1
            if [ "$kind" = example ]; then
                ref=$out/logs/$name.ref${cfg#np}
                case $cfg in clang | one | np2) ref=$out/logs/$name.ref2 ;; esac
                [ -f "$ref" ] || OMP_NUM_THREADS=$(case $cfg in np1) echo 1 ;; np4) echo 4 ;; *) echo 2 ;; esac) \
                    timeout -k 5 "$timeout_s" "$cbin" >"$ref" 2>&1 || true
                ok example "$log" "$ref" || good=0
            else
                ok npb "$log" "" || good=0
            fi
            [ "$t" = fail ] && good=0
            echo -e "$r\t$name\t$cfg\t$t\t$good" >>"$rows"
            [ $good = 1 ] || echo "run.sh: $name $cfg repeat $r: WRONG or failed (log $log)" >&2
        done
    done
done
echo "# load after: $(uptime | sed 's/.*load average: //')" | tee -a "$out/header.txt"

# shellcheck source=../pyplot.sh
. "$src/bench/pyplot.sh"
py=python3
bench_pyplot "$src" && py=$PYPLOT || echo "run.sh: no matplotlib: table only" >&2
"$py" "$src/bench/programs/summarize.py" "$rows" "$out" | tee "$out/table.md"
