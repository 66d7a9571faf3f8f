#!/usr/bin/env bash
# The kernel's cost of DSM memory: a first write to every page and the
# free at exit of MIB MiB of memfd (shared tmpfs) pages, which hold every
# heap and global byte of a cluster program, against the anonymous pages
# of a one-node program. Prints a markdown table of medians over RUNS runs
# (the kinds alternate within each run) and the ratio to anonymous memory.
#
#   bench/dsm/shmem.sh              # 400 MiB (NPB FT class A's arrays), 5 runs
#   MIB=1024 RUNS=9 bench/dsm/shmem.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${HCC_BUILD_DIR:-$src/build}
bin=$build/bench/shmem_touch
mib=${MIB:-400}
runs=${RUNS:-5}
[ -x "$bin" ] || { echo "run: ninja -C $build shmem_touch" >&2; exit 1; }
"$bin" "$mib" "$runs" | python3 -c '
import sys, statistics as st
mib = sys.argv[1]
rows = {}
for line in sys.stdin:
    kind, run, touch, free = line.split()
    rows.setdefault(kind, []).append((float(touch), float(free)))
med = {k: (st.median(t for t, _ in v), st.median(f for _, f in v)) for k, v in rows.items()}
at, af = med["anon"]
n = len(rows["anon"])
print(f"{mib} MiB, median of {n} runs\n")
print("| memory | first write ms | free ms | write / anon | free / anon | extra ms per 100 MiB |")
print("|---|---|---|---|---|---|")
for k in ("anon", "memfd", "memfd_populate"):
    t, f = med[k]
    extra = (t + f - at - af) * 100 / float(mib)
    print(f"| {k} | {t:.1f} | {f:.1f} | {t / at:.2f} | {f / af:.2f} | {extra:.1f} |")
' "$mib"
