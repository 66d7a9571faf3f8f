"""Checks an HCRT_TRACE file: argv = file, nodes, then categories that every
node must have events of. Prints per-node counts, then "ok" or exits 1."""
import collections
import json
import sys

path, nodes, cats = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
events = json.load(open(path))["traceEvents"]
per = collections.defaultdict(collections.Counter)
names = {}
for e in events:
    if e["ph"] == "M" and e["name"] == "thread_name":
        names[(e["pid"], e["tid"])] = e["args"]["name"]
    elif e["ph"] in "XC":
        per[e["pid"]][e["cat"]] += 1
        assert e["ts"] >= -1000.0, e  # on the head's clock, after start-up
        assert e["ph"] == "C" or e["dur"] >= 0, e
threads = {k for k in names if per[k[0]]}
print("nodes %d, threads %d" % (len(per), len(threads)))
bad = sorted(per) != list(range(nodes))
for pid in sorted(per):
    c = per[pid]
    print("node %d: %s" % (pid, " ".join("%s %d" % (k, c[k]) for k in
                                         ["region", "loop", "sync", "dsm"])))
    bad |= any(c[k] == 0 for k in cats)
print("FAILED" if bad else "ok")
sys.exit(1 if bad else 0)
