#!/usr/bin/env python3
"""check_layers.py - the runtime's layers, checked from its sources.

    check_layers.py SRCROOT               fail on an include that points up
    check_layers.py SRCROOT --graph BUILD also count call arrows (nm over the
                                          runtime's objects) and report the
                                          cycles that span folders

Layers, bottom up (DESIGN.md section 1, docs/runtime.md "Source layout"):
runtime/base <- runtime/dsm, runtime/sched <- runtime/libhcrt <- runtime/tools.
A file may include headers of its own layer's folder and of layers below;
dsm and sched are peers, and sched may include only dsm/dsm.h of the DSM.
Public headers (include/hcrt) are below every layer.
"""
import collections
import os
import re
import subprocess
import sys

LAYER = {"base": 0, "dsm": 1, "sched": 1, "libhcrt": 2, "tools": 3}
# peer folders of one layer: what one may include of the other
PEER_OK = {("sched", "dsm"): {"dsm/dsm.h"}}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder(path):
    """Top folder under runtime/ ("libhcrt" for libhcrt/event/x.c)."""
    return path.split("/", 1)[0]


def sources(root):
    rt = os.path.join(root, "runtime")
    for d, _, files in os.walk(rt):
        for f in sorted(files):
            if f.endswith((".c", ".h", ".def")):
                yield os.path.relpath(os.path.join(d, f), rt)


def include_arrows(root):
    """(file, header) pairs between files of runtime/, paths under it."""
    rt = os.path.join(root, "runtime")
    known = set(sources(root))
    arrows = []
    for src in sorted(known):
        with open(os.path.join(rt, src), encoding="utf-8") as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            if inc in known:
                arrows.append((src, inc))
            elif os.path.normpath(os.path.join(os.path.dirname(src), inc)) in known:
                arrows.append((src, os.path.normpath(
                    os.path.join(os.path.dirname(src), inc))))
    return arrows


def points_up(src, dst, units=False):
    """Whether src -> dst goes against the layers. For units (a header and
    its .c as one node, calls included), a peer allowed any header of the
    other may reach it: the include check says which header."""
    a, b = folder(src), folder(dst)
    if a == b:
        return False
    if a not in LAYER or b not in LAYER:
        return True  # a new folder must be given its layer here
    if LAYER[b] > LAYER[a]:
        return True
    if LAYER[b] == LAYER[a]:
        if units:
            return (a, b) not in PEER_OK
        return dst not in PEER_OK.get((a, b), set())
    return False


LIBC = "/lib/x86_64-linux-gnu/libc.so.6"


def object_arrows(root, build):
    """(source, source) call arrows from the runtime's object files (of
    sources that still exist: a build tree keeps objects of moved files)."""
    defs, undefs = {}, collections.defaultdict(set)
    for d, _, files in os.walk(os.path.join(build, "runtime")):
        if "CMakeFiles" not in d:
            continue
        for f in files:
            if not f.endswith(".c.o"):
                continue
            obj = os.path.join(d, f)
            # <build>/runtime/<dir>/CMakeFiles/<target>.dir/<rel>.c.o
            pre, post = obj.split("/CMakeFiles/", 1)
            rel = post.split("/", 1)[1][:-2].replace("__", "..")
            src = os.path.normpath(os.path.join(
                os.path.relpath(pre, os.path.join(build, "runtime")), rel))
            if not os.path.exists(os.path.join(root, "runtime", src)):
                continue
            out = subprocess.run(["nm", obj], capture_output=True,
                                 text=True).stdout
            for line in out.splitlines():
                p = line.split()
                if len(p) == 3 and p[1] in "TDBRCVWG":
                    defs.setdefault(p[2], src)
                elif len(p) == 2 and p[0] == "U":
                    undefs[src].add(p[1])
    # A C library function the runtime defines to interpose it (libhcrt's
    # pthread_create, fork, malloc, ...) is called by lower layers as the C
    # library's: not an arrow.
    libc = subprocess.run(["nm", "-D", "--defined-only", LIBC],
                          capture_output=True, text=True).stdout
    libc = {line.split()[-1].split("@")[0] for line in libc.splitlines()
            if line.strip()}
    arrows = set()
    for src, us in undefs.items():
        for u in us:
            if u in defs and defs[u] != src and u not in libc:
                arrows.add((src, defs[u]))
    return arrows


def unit(path):
    """A header and its .c are one node of the graph."""
    return path[:-2] if path.endswith((".c", ".h")) else path


def cycles(edges):
    """Strongly connected components of more than one node (Tarjan)."""
    graph = collections.defaultdict(set)
    for a, b in edges:
        if a != b:
            graph[a].add(b)
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = argv[1]
    incs = include_arrows(root)
    up = [(a, b) for a, b in incs if points_up(a, b)]
    for a, b in up:
        print(f"runtime/{a} includes {b}: it points up "
              f"({folder(a)} may not depend on {folder(b)})")
    print(f"{len(incs)} include arrows between runtime files, {len(up)} up")
    if len(argv) > 3 and argv[2] == "--graph":
        calls = object_arrows(root, argv[3])
        edges = {(unit(a), unit(b)) for a, b in incs + sorted(calls)}
        edges = {(a, b) for a, b in edges if a != b}
        up_all = [(a, b) for a, b in edges if points_up(a, b, units=True)]
        print(f"{len(edges)} file arrows (includes and calls), "
              f"{len(up_all)} up")
        for comp in cycles(edges):
            folders = sorted({os.path.dirname(c) for c in comp})
            where = "across " + ", ".join(folders) if len(folders) > 1 \
                else "in " + folders[0]
            print(f"cycle of {len(comp)} files {where}: {' '.join(comp)}")
    return 1 if up else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
