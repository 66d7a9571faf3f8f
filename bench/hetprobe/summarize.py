#!/usr/bin/env python3
"""summarize.py RESULTS.tsv [PLOT.png]: the HetProbe benchmark tables.

Rows of RESULTS.tsv: setup kernel config seconds [steady], steady being
the seconds of the calls after the first two (the probe's first calls
excluded; "-" when not measured); a configuration run several times
(run.sh --repeat) counts with its median. Prints one markdown table
per setup (seconds per configuration, the oracle = best CSR of the sweep,
HetProbe's and HetProbe-I's ratio to the best single node of the 2-rank
job (head or worker alone) and to the oracle, and, when run.sh ran the
`one` configuration, the kernel at 1 rank and HetProbe's ratio to it),
the goal checks per cell, a table of the goals over all setups, and, with
PLOT, a grouped bar chart (speedup of each configuration over the best
single node, per kernel and setup) drawn with matplotlib; the file name's
extension (.png, .svg, .pdf) picks the format. Debian's
python3-matplotlib provides it (scripts/setup.sh --bench installs it).

With run.sh --repeat, the n-th row of a configuration is its n-th round,
and the rounds go over every configuration in turn. Each goal check then
also gives the PAIRED estimate: the median over the rounds of the two
configurations' ratio within a round, and its quartiles. A slow spell of
the machine that lasts a round slows both sides of a pair alike, so the
paired ratio is steadier than the ratio of the two medians. With at least
8 rounds the check also gives a 95 % bootstrap confidence interval of the
paired median (2000 resamples of the rounds, fixed seed) and its verdict
against the goal's bound: "met" when the whole interval is within the
bound, "missed" when none of it is, "unresolved" when the interval
straddles the bound (the rounds cannot tell).
"""
import math
import random
import sys
from collections import defaultdict

COMPUTE = ["ep", "bs", "kmeans", "nbody"]
DSM = ["triad", "stencil", "spmv", "lu"]
IRREG = ["irreg"]
CONFIGS = ["head", "worker", "static", "dynamic", "oracle", "hetprobe",
           "hetprobe_i"]


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def load(path):
    runs = defaultdict(list)
    for line in open(path):
        f = line.split()
        if len(f) not in (4, 5):
            continue
        setup, kernel, config, sec = f[:4]
        try:
            sec = float(sec)
        except ValueError:
            continue
        if math.isnan(sec):
            continue
        runs[(setup, kernel, config)].append(sec)
        if not config.startswith("csr="):
            try:
                st = float(f[4]) if len(f) == 5 else float("nan")
            except ValueError:
                st = float("nan")
            if not math.isnan(st):
                runs[(setup, kernel, config + "@steady")].append(st)
    t = defaultdict(dict)
    sweep = defaultdict(dict)
    for (setup, kernel, config), xs in runs.items():
        if config.startswith("csr="):
            sweep[(setup, kernel)][config[4:]] = median(xs)
        else:
            t[(setup, kernel)][config] = median(xs)
    for key, pts in sweep.items():
        w = min(pts, key=pts.get)
        t[key]["oracle"] = pts[w]
        t[key]["oracle_w"] = w
    return t, runs


def quartiles(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[(n - 1) // 4], median(xs), xs[(3 * n) // 4 if n > 1 else 0]


def boot_ci(xs, resamples=2000, seed=5):
    """95 % bootstrap interval of the median of xs (percentile method)."""
    rng = random.Random(seed)
    n = len(xs)
    meds = sorted(median([xs[rng.randrange(n)] for _ in range(n)])
                  for _ in range(resamples))
    return meds[int(0.025 * resamples)], meds[int(0.975 * resamples) - 1]


def paired(runs, setup, kernel, a, b):
    """(q1, median, q3, ci_lo, ci_hi) of a/b within each round, or None;
    the interval is None below 8 rounds."""
    xa = runs.get((setup, kernel, a), [])
    xb = runs.get((setup, kernel, b), [])
    n = min(len(xa), len(xb))
    if n < 3 or len(xa) != len(xb):
        return None
    r = [xa[i] / xb[i] for i in range(n)]
    return quartiles(r) + (boot_ci(r) if n >= 8 else (None, None))


def verdict(q, bound):
    """The interval's verdict against a goal ratio <= bound, or None."""
    if not q or q[3] is None:
        return None
    return "met" if q[4] <= bound else "missed" if q[3] > bound else "unresolved"


def fmt_paired(q, bound=None):
    """The paired estimate; with a bound (the goal: ratio <= bound), the
    interval's verdict."""
    if not q:
        return ""
    s = "; paired per round %.3f [%.3f-%.3f]" % (q[1], q[0], q[2])
    if q[3] is None:
        return s
    s += ", 95%% CI %.3f-%.3f" % (q[3], q[4])
    if bound is not None:
        s += " (%s)" % verdict(q, bound)
    return s


def fmt(x):
    return "—" if x is None else "%.3f" % x


def table(t, setup):
    rows = []
    rows.append("| kernel | class | head | worker | static | dynamic | "
                "oracle (w) | HetProbe | HetProbe-I | HP / best single | "
                "HP / oracle | HP-I / HP | HP / head, calls 3+ | 1 rank | HP / 1 rank |")
    rows.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    checks = []
    for k in COMPUTE + DSM + IRREG:
        r = t.get((setup, k))
        if not r:
            continue
        cls = "compute" if k in COMPUTE else "DSM" if k in DSM else "irregular"
        single = min([r[c] for c in ("head", "worker") if c in r] or [None]) \
            if ("head" in r or "worker" in r) else None
        hp, hpi, orc = r.get("hetprobe"), r.get("hetprobe_i"), r.get("oracle")
        ratio = lambda a, b: (a / b) if a and b else None
        steady = ratio(r.get("hetprobe@steady"), r.get("head@steady"))
        rows.append("| %s | %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            k, cls, fmt(r.get("head")), fmt(r.get("worker")),
            fmt(r.get("static")), fmt(r.get("dynamic")), fmt(orc),
            r.get("oracle_w", "?"), fmt(hp), fmt(hpi),
            fmt(ratio(hp, single)), fmt(ratio(hp, orc)), fmt(ratio(hpi, hp)),
            fmt(steady), fmt(r.get("one")), fmt(ratio(hp, r.get("one")))))
        single_c = min([c for c in ("head", "worker") if c in r],
                       key=lambda c: r[c], default=None)
        orc_c = "csr=" + r["oracle_w"] if "oracle_w" in r else None
        checks.append((k, cls, single, hp, hpi, orc, steady, single_c, orc_c))
    return rows, checks


def goals(setup, checks, runs):
    out = []
    sp = []
    for k, cls, single, hp, hpi, orc, steady, single_c, orc_c in checks:
        if single and hp:
            sp.append(single / hp)
        if cls == "DSM" and single and hp:
            out.append("- %s %s: HetProbe %.1f%% %s best single node (goal: "
                       "within 3%%)%s%s" % (setup, k, abs(hp / single - 1) * 100,
                                            "above" if hp > single else "below",
                                            fmt_paired(paired(runs, setup, k, "hetprobe", single_c), 1.03),
                                            "; after its first two calls "
                                            "%+.1f%% against the head's" %
                                            ((steady - 1) * 100) if steady else ""))
        if cls == "compute" and setup != "homo" and orc and hp:
            out.append("- %s %s: HetProbe %.1f%% from the oracle CSR (goal: "
                       "within 3%%)%s" % (setup, k, (hp / orc - 1) * 100,
                                         fmt_paired(paired(runs, setup, k, "hetprobe", orc_c), 1.03)))
        if cls == "irregular" and hp and hpi:
            gain = (1 - hpi / hp) * 100
            out.append("- %s %s: HetProbe-I %.1f%% %s than HetProbe "
                       "(goal: >= 15%% faster)%s" %
                       (setup, k, abs(gain), "faster" if gain >= 0 else "slower",
                        fmt_paired(paired(runs, setup, k, "hetprobe_i", "hetprobe"), 0.85)))
        if cls != "irregular" and hp and hpi:
            q = paired(runs, setup, k, "hetprobe_i", "hetprobe")
            if hpi > hp * 1.05 or (q and q[1] > 1.05) or verdict(q, 1.05) not in (None, "met"):
                out.append("- %s %s: HetProbe-I %+.1f%% against HetProbe "
                           "(goal: <= 5%% slower)%s" % (setup, k, (hpi / hp - 1) * 100,
                                                        fmt_paired(q, 1.05)))
    if sp:
        g = math.exp(sum(math.log(x) for x in sp) / len(sp))
        out.append("- %s: geometric-mean speedup of HetProbe over the best "
                   "single node: %.2fx (%+.0f%%; paper: +41%%)" % (setup, g, (g - 1) * 100))
    return out


# The goals of issue #5: (name, kernel class, numerator, denominator,
# bound on the ratio). "regular" is every class but the irregular one.
GOALS = [
    ("DSM-bound: HetProbe within 3 % of the best single node",
     "DSM", "hetprobe", "single", 1.03),
    ("compute-bound with a slow node: HetProbe within 3 % of the oracle split",
     "compute", "hetprobe", "oracle", 1.03),
    ("irregular: HetProbe-I at least 15 % faster than HetProbe",
     "irregular", "hetprobe_i", "hetprobe", 0.85),
    ("regular: HetProbe-I at most 5 % slower than HetProbe",
     "regular", "hetprobe_i", "hetprobe", 1.05),
]


def goal_cells(t, setups, runs, goal):
    """(setup, kernel, ratio of medians, paired estimate) of one goal."""
    _, cls, num, den, _ = goal
    cells = []
    for s in setups:
        _, checks = table(t, s)
        for k, kcls, single, hp, hpi, orc, _, single_c, orc_c in checks:
            if cls == "regular" and kcls == "irregular" or \
                    cls != "regular" and kcls != cls:
                continue
            if cls == "compute" and s == "homo":
                continue  # no slow node: the oracle is the even split
            a = {"hetprobe": hp, "hetprobe_i": hpi}[num]
            b = {"single": single, "oracle": orc, "hetprobe": hp}[den]
            if not a or not b:
                continue
            den_c = {"single": single_c, "oracle": orc_c, "hetprobe": "hetprobe"}[den]
            cells.append((s, k, a / b, paired(runs, s, k, num, den_c)))
    return cells


def print_goal_table(t, setups, runs):
    print("\n#### goals over the setups %s\n" % ", ".join(setups))
    print("| goal | cells | met by medians | by 95 % interval: met / "
          "unresolved / missed | not met by medians |")
    print("|---|---:|---:|---|---|")
    for g in GOALS:
        cells = goal_cells(t, setups, runs, g)
        if not cells:
            continue
        bound = g[4]
        v = [verdict(q, bound) for _, _, _, q in cells]
        iv = ("%d / %d / %d" % (v.count("met"), v.count("unresolved"),
                                v.count("missed"))
              if all(v) else "fewer than 8 rounds")
        miss = ", ".join("%s %s %.3f" % (s, k, r)
                         for s, k, r, _ in cells if r > bound)
        print("| %s | %d | %d | %s | %s |" % (
            g[0], len(cells), sum(r <= bound for _, _, r, _ in cells), iv,
            miss or "none"))


def plot(t, setups, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("summarize.py: no matplotlib for the plot %s: run "
                 "scripts/setup.sh --bench (Debian's python3-matplotlib)" % path)
    confs = [("static", "even static"), ("dynamic", "dynamic,16"),
             ("oracle", "oracle static"), ("hetprobe", "HetProbe"),
             ("hetprobe_i", "HetProbe-I")]
    confs = [(c, l) for c, l in confs if any(c in r for r in t.values())]
    kernels = [k for k in COMPUTE + DSM + IRREG if any((s, k) in t for s in setups)]
    fig, axes = plt.subplots(len(setups), 1, squeeze=False,
                             figsize=(1.0 + 0.9 * len(kernels), 2.6 * len(setups)))
    width = 0.8 / len(confs)
    for ax, s in zip(axes[:, 0], setups):
        for ci, (c, label) in enumerate(confs):
            xs, ys = [], []
            for ki, k in enumerate(kernels):
                r = t.get((s, k), {})
                single = min([r[x] for x in ("head", "worker") if x in r] or [0])
                if c in r and single:
                    xs.append(ki + (ci - len(confs) / 2 + 0.5) * width)
                    ys.append(single / r[c])
            if xs:
                ax.bar(xs, ys, width, label=label)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(kernels)), kernels)
        ax.set_ylabel("speedup")
        ax.set_title("setup %s: speedup over the best single node" % s, fontsize=10)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, ncol=len(confs), loc="upper center")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / (2.6 * len(setups))))
    fig.savefig(path)


def main():
    t, runs = load(sys.argv[1])
    setups = []
    for s, _ in t:
        if s not in setups:
            setups.append(s)
    for s in setups:
        rows, checks = table(t, s)
        print("\n#### setup: %s (seconds, lower is better)\n" % s)
        print("\n".join(rows))
        print()
        print("\n".join(goals(s, checks, runs)))
    print_goal_table(t, setups, runs)
    if len(sys.argv) > 2:
        plot(t, setups, sys.argv[2])
        print("\nplot: %s" % sys.argv[2])


if __name__ == "__main__":
    main()
