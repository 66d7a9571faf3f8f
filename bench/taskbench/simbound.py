#!/usr/bin/env python3
"""How much can any placement beat round robin on taskbench's graphs?

Writes the graph taskbench.c runs (`-w 8 -s 16 -u 4`, its patterns, kernel
classes, dependencies and the double buffer's write-after-read edges) in
hcrt-sched-sim's file format (docs/heft.md) for devices of given speeds,
schedules it with HEFT and round robin, and sets both against a lower bound
on ANY schedule's makespan: max(total work / sum of speeds, the critical
path at the fastest speed). RR / bound is the most any placement could gain
over round robin on that graph and those devices.

  bench/taskbench/simbound.py [--sim build/bin/hcrt-sched-sim]
      [--speeds "1,0.6 1,0.65,0.65 1,0.4,0.4"] [--unit 0.29]

Times are in ms: a kernel of class c costs (1 + 2c) x UNIT on a speed-1
device (0.29 ms is taskbench's 200000 iterations on this machine, from the
"work" column of bench/taskbench/run.sh policy: ~0.15 s over 128 tasks of
mean cost 4 units). Links: 4 us latency, 1 GB/s.
"""
import argparse
import subprocess
import sys

PATTERNS = ("stencil_1d", "fft", "tree")


def deps(pattern, width, t, p):
    """The points of step t-1 that point p of step t reads (taskbench.c)."""
    if t == 0:
        return []
    if pattern == "stencil_1d":
        return [q for q in (p - 1, p, p + 1) if 0 <= q < width]
    if pattern == "tree":
        return [p // 2]
    lg = 0
    while (1 << lg) < width:
        lg += 1
    q = p ^ (1 << ((t - 1) % lg)) if lg else p
    return sorted({p, q})


def active(pattern, width, t):
    if pattern != "tree" or t >= 30:
        return width
    return min(1 << t, width)


def graph(pattern, width, steps, uneven):
    """Tasks as {(t, p): class} and edges as a set of (from, to, carries)."""
    tasks = {}
    for t in range(steps):
        for p in range(active(pattern, width, t)):
            tasks[(t, p)] = (p * 5 + t * 3) % uneven if uneven > 1 else 0
    edges = set()
    for (t, p) in tasks:
        for q in deps(pattern, width, t, p):
            edges.add(((t - 1, q), (t, p), True))
        # step t writes buffer t % 2 of point p again: after step t-1's
        # readers of step t-2's output (depend(out) after their depend(in))
        if (t - 2, p) in tasks:
            edges.add(((t - 2, p), (t, p), False))
            for q in range(active(pattern, width, t - 1)):
                if p in deps(pattern, width, t - 1, q):
                    edges.add(((t - 1, q), (t, p), False))
    return tasks, edges


def critical_path(tasks, edges, unit):
    order = sorted(tasks)  # by step, then point: a topological order
    preds = {k: [] for k in tasks}
    for a, b, _ in edges:
        preds[b].append(a)
    finish = {}
    for k in order:
        finish[k] = max((finish[a] for a in preds[k]), default=0.0) + (
            1 + 2 * tasks[k]) * unit
    return max(finish.values())


def write_graph(tasks, edges, speeds, unit, nbytes):
    ids = {k: i for i, k in enumerate(sorted(tasks))}
    out = ["nodes %d" % len(speeds),
           "link latency 0.004 bandwidth 1000000"]
    for k in sorted(tasks):
        cost = (1 + 2 * tasks[k]) * unit
        out.append("task %d %s" % (ids[k], " ".join(
            "%.6f" % (cost / s) for s in speeds)))
    for a, b, carries in sorted(edges):
        if carries:
            out.append("edge %d %d bytes %d" % (ids[a], ids[b], nbytes))
        else:
            out.append("edge %d %d 0" % (ids[a], ids[b]))
    return "\n".join(out) + "\n"


def makespans(sim, text):
    r = subprocess.run([sim, "--policy", "heft,rr", "--csv", "--check", "-"],
                       input=text, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("simbound.py: %s failed: %s" % (sim, r.stderr.strip()))
    spans = {}
    for line in r.stdout.splitlines():
        f = line.split(",")
        if len(f) >= 5 and f[3] in ("heft", "rr"):
            spans[f[3]] = float(f[4])
    return spans


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", default="build/bin/hcrt-sched-sim")
    ap.add_argument("--speeds", default="1,0.6 1,0.65,0.65 1,0.5,0.5 1,0.4,0.4")
    ap.add_argument("--unit", type=float, default=0.29)
    ap.add_argument("--width", type=int, default=8)
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--uneven", type=int, default=4)
    ap.add_argument("--bytes", type=int, default=4096)
    a = ap.parse_args()
    print("| device speeds | pattern | tasks | bound (ms) | heft (ms) | rr (ms) "
          "| rr / heft | rr / bound |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for sp in a.speeds.split():
        speeds = [float(x) for x in sp.split(",")]
        for pat in PATTERNS:
            tasks, edges = graph(pat, a.width, a.steps, a.uneven)
            work = sum((1 + 2 * c) * a.unit for c in tasks.values())
            bound = max(work / sum(speeds),
                        critical_path(tasks, edges, a.unit) / max(speeds))
            s = makespans(a.sim, write_graph(tasks, edges, speeds, a.unit,
                                             a.bytes))
            print("| %s | %s | %d | %.1f | %.1f | %.1f | %.2f× | %.2f× |" % (
                " : ".join(sp.split(",")), pat, len(tasks), bound, s["heft"],
                s["rr"], s["rr"] / s["heft"], s["rr"] / bound))


if __name__ == "__main__":
    main()
