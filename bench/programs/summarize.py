#!/usr/bin/env python3
"""summarize.py TIMES.tsv OUTDIR: the real-program suite's table and plot.

Rows of TIMES.tsv (bench/programs/run.sh): repeat program config seconds ok.
The `empty` rows are hcrun's launch cost per -n; every npN time is taken net
of the median launch cost at that -n (a run less than MIN_NET over it is
left out: "-"). A ratio is the PAIRED median: the
median over the repeats of the two configurations' ratio within a repeat
(a slow spell of the machine slows both sides of a pair alike); the spread
is max/min - 1 of one configuration's times. Goals (issue #24):
  one/clang <= 1.05 (one node against clang-19, both 2 threads)
  np2/one   <= 1.05 (2 ranks x 1 thread against one node x 2 threads)
  np1/np2   >= 1.8 for programs whose work splits (ep)
  np4/np2   <= 1.3 (4 ranks on the 2 cores against 2 ranks)
Writes OUTDIR/speedup.png (speedup over np1 at 1/2/4 ranks) when
matplotlib imports.
"""
import statistics
import sys
from collections import defaultdict

CONFIGS = ["clang", "one", "np1", "np2", "np4"]
MIN_NET = 0.02  # seconds of a run net of launch that still count
SPLITS = {"ep"}


def load(path):
    t = defaultdict(dict)  # (program, config) -> {repeat: seconds}
    bad = set()
    with open(path) as f:
        next(f)
        for line in f:
            r, prog, cfg, sec, ok = line.rstrip("\n").split("\t")
            if sec == "fail" or ok != "1":
                bad.add((prog, cfg))
                continue
            t[(prog, cfg)][int(r)] = float(sec)
    return t, bad


def net(t):
    launch = {}
    for n in (1, 2, 4):
        v = list(t.get(("empty", "np%d" % n), {}).values())
        launch["np%d" % n] = statistics.median(v) if v else 0.0
    out = defaultdict(dict)
    for (prog, cfg), reps in t.items():
        if prog == "empty":
            continue
        for r, s in reps.items():
            v = s - launch.get(cfg, 0.0)
            if v >= MIN_NET:  # shorter: lost in the launch cost's noise
                out[(prog, cfg)][r] = v
    return out, launch


def paired(t, prog, a, b):
    x, y = t.get((prog, a), {}), t.get((prog, b), {})
    rs = [x[r] / y[r] for r in x if r in y]
    return statistics.median(rs) if rs else None


def fmt(v, goal=None, le=True):
    if v is None:
        return "-"
    s = "%.2f" % v
    if goal is not None and not (v <= goal if le else v >= goal):
        s += " ✗"
    return s


def main():
    rows, outdir = sys.argv[1], sys.argv[2]
    raw, bad = load(rows)
    t, launch = net(raw)
    progs = sorted({p for p, _ in t})
    print("launch cost of hcrun (median, s): " + ", ".join(
        "%s %.3f" % (k, v) for k, v in sorted(launch.items())))
    print()
    print("| program | clang s | one s | np1 s | np2 s | np4 s | spread % "
          "| one/clang | np2/one | np1/np2 | np4/np2 | answers |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    misses = defaultdict(list)
    for p in progs:
        med, spread = [], 0.0
        for c in CONFIGS:
            v = list(t.get((p, c), {}).values())
            med.append("%.3f" % statistics.median(v) if v else "-")
            if len(v) > 1:
                spread = max(spread, max(v) / min(v) - 1)
        oc = paired(t, p, "one", "clang")
        n2 = paired(t, p, "np2", "one")
        sp = paired(t, p, "np1", "np2")
        n4 = paired(t, p, "np4", "np2")
        wrong = [c for c in CONFIGS if (p, c) in bad]
        goals = [("one/clang", oc, 1.05, True), ("np2/one", n2, 1.05, True),
                 ("np4/np2", n4, 1.3, True)]
        if p.split(".")[0] in SPLITS:
            goals.append(("np1/np2", sp, 1.8, False))
        for name, v, g, le in goals:
            if v is not None and not (v <= g if le else v >= g):
                misses[name].append(p)
        print("| %s | %s | %.0f | %s | %s | %s | %s | %s |" % (
            p, " | ".join(med), spread * 100, fmt(oc, 1.05), fmt(n2, 1.05),
            fmt(sp, 1.8 if p.split(".")[0] in SPLITS else None, le=False),
            fmt(n4, 1.3), "WRONG/failed: " + " ".join(wrong) if wrong
            else "ok"))
    print()
    for name in ("one/clang", "np2/one", "np1/np2", "np4/np2"):
        print("goal %s: %s" % (name, "met by every program" if not
                               misses[name] else "missed by " +
                               " ".join(misses[name])))
    plot(t, progs, outdir)


def plot(t, progs, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(max(6, len(progs) * 0.7), 4))
    w = 0.27
    for i, c in enumerate(["np1", "np2", "np4"]):
        ys = []
        for p in progs:
            base = t.get((p, "np1"), {})
            v = t.get((p, c), {})
            rs = [base[r] / v[r] for r in v if r in base]
            ys.append(statistics.median(rs) if rs else 0)
        ax.bar([k + (i - 1) * w for k in range(len(progs))], ys, w,
               label=c.replace("np", "") + " rank(s) x 1 thread")
        ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_ylim(0, 4)
    ax.set_xticks(range(len(progs)))
    ax.set_xticklabels(progs, rotation=45, ha="right")
    ax.set_ylabel("speedup over 1 rank (net of launch)")
    ax.set_title("hcrun -n 1/2/4 --threads 1, 2-core machine")
    ax.legend()
    fig.tight_layout()
    fig.savefig(outdir + "/speedup.png", dpi=110)
    print("\nplot: %s/speedup.png" % outdir)


if __name__ == "__main__":
    main()
