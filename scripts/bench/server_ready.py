#!/usr/bin/env python3
"""How long each backend's servers take from their start to ready, as a run
sees it: `locksmith run --backend B --time-limit 1` REPEAT times per backend,
each timed from the run's "starting servers" line to its "servers up" line
(every backend's readiness: its servers answer, a leader exists, the
database's install or initdb done). Prints the median and the max per
backend beside its target where the project sets one.

usage: server_ready.py LOCKSMITH REPEAT
"""
import re
import statistics
import subprocess
import sys
import tempfile

BACKENDS = ["redis", "redis-sentinel", "redlock", "zookeeper", "etcd", "mariadb", "postgres"]
TARGET_MS = {"etcd": 3000, "postgres": 3000, "mariadb": 5000}
LINE = re.compile(r"^\s*([0-9.]+) INFO  (starting servers|servers up)")


def ready_ms(locksmith, backend, store):
    out = subprocess.run([locksmith, "run", "--backend", backend, "--time-limit", "1",
                          "--store", store], capture_output=True, text=True, timeout=180)
    times = {}
    for line in out.stdout.splitlines() + out.stderr.splitlines():
        m = LINE.match(line)
        if m:
            times[m.group(2)] = float(m.group(1))
    if len(times) != 2:
        sys.exit(f"{backend}: no servers-up line (exit {out.returncode}):\n{out.stdout[-2000:]}")
    return 1000 * (times["servers up"] - times["starting servers"])


def main():
    locksmith, repeat = sys.argv[1], int(sys.argv[2])
    print("%-16s %10s %10s %10s" % ("servers ready", "median ms", "max ms", "target ms"))
    with tempfile.TemporaryDirectory(prefix="locksmith-bench-ready.") as store:
        for backend in BACKENDS:
            ms = [ready_ms(locksmith, backend, store) for _ in range(repeat)]
            target = TARGET_MS.get(backend)
            print("%-16s %10.0f %10.0f %10s" % (backend, statistics.median(ms), max(ms),
                                                 target if target else "-"))


main()
