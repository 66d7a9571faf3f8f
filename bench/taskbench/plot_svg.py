#!/usr/bin/env python3
"""plot_svg.py TSV OUT.svg [TITLE]: efficiency vs task granularity (the
METG curve) as a small stand-alone SVG, log-scaled x axis, with the 50%
line. TSV rows: granularity in microseconds, efficiency in [0, 1] (written
by bench/taskbench/run.sh). Standard library only: the machine has neither
matplotlib nor gnuplot."""
import math
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: plot_svg.py TSV OUT.svg [TITLE]")
    pts = []
    with open(sys.argv[1]) as f:
        for line in f:
            g, e = line.split()[:2]
            if float(g) > 0:
                pts.append((float(g), float(e)))
    if not pts:
        sys.exit("plot_svg.py: %s has no points" % sys.argv[1])
    pts.sort()
    title = sys.argv[3] if len(sys.argv) > 3 else "Task granularity vs efficiency"
    w, h, l, r, t, b = 520, 320, 60, 20, 30, 45
    lo = math.floor(math.log10(min(p[0] for p in pts)))
    hi = math.ceil(math.log10(max(p[0] for p in pts)))
    hi = hi if hi > lo else lo + 1

    def x(g):
        return l + (math.log10(g) - lo) / (hi - lo) * (w - l - r)

    def y(e):
        return h - b - min(max(e, 0), 1.05) / 1.05 * (h - t - b)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="18" font-size="13">%s</text>' % (l, title)]
    for d in range(lo, hi + 1):  # decades
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   % (x(10 ** d), t, x(10 ** d), h - b))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>'
                   % (x(10 ** d), h - b + 15, 10 ** d))
    for e in (0, 0.25, 0.5, 0.75, 1.0):
        out.append('<text x="%d" y="%.1f" text-anchor="end">%d%%</text>'
                   % (l - 5, y(e) + 4, e * 100))
    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="red" '
               'stroke-dasharray="4"/>' % (l, y(0.5), w - r, y(0.5)))
    out.append('<polyline fill="none" stroke="navy" stroke-width="2" '
               'points="%s"/>' % " ".join("%.1f,%.1f" % (x(g), y(e)) for g, e in pts))
    for g, e in pts:
        out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="navy"/>' % (x(g), y(e)))
    out.append('<text x="%d" y="%d" text-anchor="middle">task granularity '
               '(us, log scale)</text>' % ((l + w - r) // 2, h - 8))
    out.append('<text x="14" y="%d" transform="rotate(-90 14 %d)" '
               'text-anchor="middle">efficiency</text>' % ((t + h - b) // 2, (t + h - b) // 2))
    out.append("</svg>")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


main()
