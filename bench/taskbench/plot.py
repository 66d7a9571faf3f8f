#!/usr/bin/env python3
"""plot.py TSV OUT.png [TITLE]: efficiency against task granularity (the
METG curve of Task Bench), log-scaled x axis, with the 50 % line, drawn
with matplotlib (the extension of OUT picks the format: .png, .svg, .pdf).
TSV rows: granularity in microseconds, efficiency in [0, 1], as
bench/taskbench/run.sh writes them. Debian's python3-matplotlib provides
matplotlib (scripts/setup.sh --bench installs it)."""
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: plot.py TSV OUT.png [TITLE]")
    pts = []
    with open(sys.argv[1]) as f:
        for line in f:
            g, e = line.split()[:2]
            if float(g) > 0:
                pts.append((float(g), float(e)))
    if not pts:
        sys.exit("plot.py: %s has no points" % sys.argv[1])
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot.py: no matplotlib: run scripts/setup.sh --bench "
                 "(Debian's python3-matplotlib)")
    pts.sort()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot([g for g, _ in pts], [e * 100 for _, e in pts], "o-")
    ax.axhline(50, color="red", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_ylim(0, 105)
    ax.set_xlabel("task granularity (us, log scale)")
    ax.set_ylabel("efficiency (%)")
    ax.set_title(sys.argv[3] if len(sys.argv) > 3 else
                 "Task granularity vs efficiency")
    fig.tight_layout()
    fig.savefig(sys.argv[2])


main()
