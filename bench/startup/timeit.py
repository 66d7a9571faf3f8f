"""timeit.py REPS NAME=CMD... : runs every command REPS times, interleaved
(so drift and other load hit all alike), each as a plain process with its
output discarded, and prints per command the minimum and median wall time
and CPU time (user + system of the process and its threads, from wait4),
in milliseconds, and the ratio of each command's minima to the first
command's. CMD may start with VAR=value words, set for that command alone
(no `env` process in between). A command that exits non-zero stops the
run."""
import os
import shlex
import statistics
import subprocess
import sys
import time


def split(cmd):
    words, env = shlex.split(cmd), dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("/"):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    return words, env


def run(cmd, env):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("timeit.py: %s exited with %d" % (" ".join(cmd), p.returncode))
    return wall * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3


def main():
    reps = int(sys.argv[1])
    cmds = [a.split("=", 1) for a in sys.argv[2:]]
    walls = {n: [] for n, _ in cmds}
    cpus = {n: [] for n, _ in cmds}
    for _ in range(reps):
        for name, cmd in cmds:
            w, c = run(*split(cmd))
            walls[name].append(w)
            cpus[name].append(c)
    base = cmds[0][0]
    print("%-22s %10s %10s %10s %10s %8s %8s" % (
        "", "wall min", "wall med", "cpu min", "cpu med", "wall/1st", "cpu/1st"))
    for name, _ in cmds:
        w, c = walls[name], cpus[name]
        print("%-22s %10.1f %10.1f %10.1f %10.1f %8.2f %8.2f" % (
            name, min(w), statistics.median(w), min(c), statistics.median(c),
            min(w) / min(walls[base]), min(c) / max(min(cpus[base]), 1e-9)))


main()
