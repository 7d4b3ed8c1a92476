#!/usr/bin/env python3
"""Prints one row of a lock bench table: clients, the lock's label, lock
cycles per second and the p50 of acquires in ms.

usage: run_figures.py STORE CLIENTS LABEL
         from a locksmith run's STORE/latest/results.json (ok acquires per
         second of the workload, the p50 of ok acquires)
       run_figures.py --line CLIENTS LABEL "cycles_per_s=X acquire_p50_ms=Y"
         from a peer's key=value line
"""
import json
import sys


def row(clients, label, cycles_per_s, p50_ms):
    print("%-8s %-16s %12.1f %15.2f" % (clients, label, cycles_per_s, p50_ms))


if sys.argv[1] == "--line":
    clients, label, line = sys.argv[2:5]
    kv = dict(p.split("=", 1) for p in line.split())
    row(clients, label, float(kv["cycles_per_s"]), float(kv["acquire_p50_ms"]))
else:
    store, clients, label = sys.argv[1:4]
    perf = json.load(open(store + "/latest/results.json"))["stats"]["perf"]["stats"]
    ok = perf["by_f"]["acquire"]["ok"]
    row(clients, label, ok / perf["duration_s"], perf["latency"]["acquire"]["ok"]["p50_ms"])
