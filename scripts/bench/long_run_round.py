#!/usr/bin/env python3
"""One run of scripts/bench-long-run.sh's table, beside the bare benches of
its round: runs ARGV (a `locksmith run` under `/usr/bin/time -v -o TIMEF`)
and prints its row.

While the run goes it samples the locksmith process's CPU time (user +
system, every thread: the clients' io thread, the history's writer, the
rest) at the log's "workload ... clients" line and at its "workload done"
line, so the workload's own CPU is known apart from the judge's after it.
From the history (`locksmith export`) it counts the lock client's calls: an
acquire that found the lock taken tries again (a workload's acquire waits
for the lock: every attempt is a call, one op in the history), so a run
makes more calls than ops, while the bare bench's op is one call. Hence
"calls/op", the run's calls per second, and the CPU per call of each side,
which the machine's load moves far less than the rates. Last, the run's
verdict: a no-fault run's is valid, and a row whose judge gave up (unknown)
measured less than the judge's whole work.

The third bare bench (`--own-network --contend`) makes the run's calls: a
random key per op, a refused acquire retried at once. The run's ops/s over
its ops/s ("run/cont") is the like-for-like ratio, what recording costs; its
own calls/op ("cont c") shows it did the same work as the run ("calls").

usage: long_run_round.py LOCKSMITH STORE TIMEF LENGTH LOAD BARE_LO_LINE BARE_VETH_LINE
                         BARE_CONTEND_LINE -- ARGV...
  BARE_*_LINE: the bare bench's key=value line (ops_per_sec=, calls_per_op=,
  client_cpu_us_per_call=)
"""
import glob
import json
import os
import re
import subprocess
import sys
import time

STARTED = re.compile(r"^\s*[0-9.]+ INFO\s+workload \S+ for .* clients$", re.M)
DONE = re.compile(r"^\s*([0-9.]+) INFO\s+workload done: (\d+) history events", re.M)


def cpu_seconds(pid):
    try:
        fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_pid(pid):
    for _ in range(200):
        try:
            children = open("/proc/%d/task/%d/children" % (pid, pid)).read().split()
        except OSError:
            return None
        if children:
            return int(children[0])
        time.sleep(0.01)
    return None


def workload_cpu(proc, store):
    """CPU seconds of the workload, sampled while `proc` runs."""
    pid = child_pid(proc.pid)
    marks = {}
    while proc.poll() is None and pid is not None and len(marks) < 2:
        logs = glob.glob(store + "/*/locksmith.log")
        text = open(logs[0]).read() if logs else ""
        cpu = cpu_seconds(pid)
        if cpu is not None:
            if "start" not in marks and STARTED.search(text):
                marks["start"] = cpu
            if "start" in marks and DONE.search(text):
                marks["done"] = cpu
        time.sleep(0.05)
    proc.wait()
    return marks["done"] - marks["start"] if len(marks) == 2 else float("nan")


def count_calls(locksmith, run):
    """(client calls, client completions) of the run's history."""
    export = subprocess.Popen([locksmith, "export", run], stdout=subprocess.PIPE, text=True)
    calls = completions = 0
    for line in export.stdout:
        if '"process":-' in line:
            continue  # the nemesis's and the service's own ops
        at = line.find('"attempts":')
        if at >= 0:
            calls += int(line[at + 11:line.find(",", at)].rstrip("}"))
        elif '"f":"release"' in line and '"type":"invoke"' in line:
            calls += 1
        if '"type":"invoke"' not in line:
            completions += 1
    export.wait()
    return calls, completions


def main():
    split = sys.argv.index("--")
    locksmith, store, timef, length, load, bare_lo, bare_veth, bare_contend = sys.argv[1:split]
    argv = sys.argv[split + 1:]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu = workload_cpu(proc, store)
    run = os.path.realpath(store + "/latest")
    history = run + "/history.bin"
    if not os.path.exists(history):
        history = run + "/history.jsonl"
    done = DONE.search(open(run + "/locksmith.log").read())
    t = open(timef).read()
    hms = re.search(r"Elapsed \(wall clock\) time.*: ([0-9:.]+)", t).group(1).split(":")
    h, m, s = (["0"] + hms)[-3:]
    elapsed = int(h) * 3600 + int(m) * 60 + float(s)
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
    results = json.load(open(run + "/results.json"))
    ops = results["stats"]["perf"]["stats"]["ops_per_s"]
    # A no-fault run's verdict is valid; anything else is a judge that gave
    # up or a bug, and the row's figures are not the judge's whole work.
    verdict = {True: "valid", False: "INVALID"}.get(results["valid"], str(results["valid"]).upper())
    post = elapsed - float(done.group(1))
    calls, completions = count_calls(locksmith, run)
    per_op = calls / completions if completions else float("nan")
    lo, veth, cont = (dict(p.split("=", 1) for p in line.split())
                      for line in (bare_lo, bare_veth, bare_contend))
    lo_rate, veth_rate, cont_rate = (float(b["ops_per_sec"]) for b in (lo, veth, cont))
    print("%-6s %9s %7.1f %8.0f %8.0f %8.0f %8.0f %6.2f %7.2f %8.2f %5.2f %6.2f %5.2f %6.2f "
          "%5.1f %5.1f %5.1f %5.1f %6.1f %5.0f%% %6.0f %5s %s" % (
              length + " s", done.group(2), os.path.getsize(history) / 1e6, ops, lo_rate,
              veth_rate, cont_rate, ops / lo_rate, ops / veth_rate, ops / cont_rate, per_op,
              float(cont["calls_per_op"]), ops * per_op / lo_rate, ops * per_op / veth_rate,
              1e6 * cpu / calls if calls else float("nan"),
              float(lo["client_cpu_us_per_call"]), float(veth["client_cpu_us_per_call"]),
              float(cont["client_cpu_us_per_call"]), post, 100 * post / float(length),
              rss_kb / 1024, load, verdict))


if __name__ == "__main__":
    main()
