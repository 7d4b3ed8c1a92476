#!/usr/bin/env python3
"""The soak itself (scripts/soak.sh builds locksmith and calls this): finds
every fault family the backend takes, runs `locksmith run` with all of them
for 30 minutes (or as long as asked), samples the run's memory every
INTERVAL seconds and, once it has ended, checks that nothing of it is left.

Families: those `locksmith run --help` lists for --nemesis, each tried in a
1 s probe run (`--nemesis F`): a run refuses a family its backend cannot
take (exit 254, the reason on its `error:` line). client-crash is left out: each
crash removes a worker for good, so a long run would end with none.

Samples: the locksmith process's VmRSS (/proc/PID/status), and apart from it
its servers' anonymous and shared PSS (smaps_rollup: pages they share
counted once, file pages left out) over the processes the run registry
(/run/locksmith/runs/TAG.json) records for the run, each told apart from a
reused pid by its start time, and those below them; the client ops so far
from the run log's progress lines; the history on disk. Memory is flat when the process's RSS after the warm-up varies by at
most 10% ((max - min) / min over every sample from then to the end, the
judge and reports included, and the process's peak when it came after the
last sample).

Left behind, after the run: any process the registry recorded for it that
still runs (same pid and start time; zombies aside) or whose working
directory or command line is in the run directory, the run's registry
record, and network namespaces, links and iptables rules with its tag.

Exit: 0 flat and nothing left, 1 otherwise, 130 interrupted (SIGINT or
SIGTERM, passed on to the run, which tears down), 254 bad usage. The run's
verdict is printed, not judged: a chaos run may well be invalid.

usage: soak_monitor.py LOCKSMITH [--backend redis] [--minutes 30 | --seconds S]
         [--interval 5] [--warmup 60] [--nemesis LIST] [--store DIR] [-- RUN FLAGS...]
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REGISTRY = "/run/locksmith/runs"
FLAT_LIMIT = 0.10
# The whole process, the judge after the workload included.
PEAK_LIMIT_MIB = 1024
NOT_IN_SOAK = {"client-crash": "each crash removes a worker for good: a long run ends with none"}
PROGRESS = re.compile(r"progress: .*\| ok (\d+) fail (\d+) info (\d+) \|")


def bad_usage(message):
    print(f"soak: {message}", file=sys.stderr)
    sys.exit(254)


def nemesis_choices(locksmith):
    """The families --nemesis accepts, as `run --help` lists them."""
    text = subprocess.run([locksmith, "run", "--help"], capture_output=True, text=True).stdout
    for line in text.splitlines():
        if line.strip().startswith("--nemesis ") and line.rstrip().endswith(")"):
            names = line.rstrip()[line.rindex("(") + 1:-1].split(", ")
            return [n for n in names if n not in ("all", "none")]
    bad_usage("`locksmith run --help` lists no choices for --nemesis")


def families_taken(locksmith, backend, extra, store):
    """The families a 1 s run on `backend` accepts; prints each one refused."""
    taken = []
    for family in nemesis_choices(locksmith):
        if family in NOT_IN_SOAK:
            print(f"  {family}: left out ({NOT_IN_SOAK[family]})")
            continue
        probe = subprocess.run(
            [locksmith, "run", "--backend", backend, "--nemesis", family, "--time-limit", "1",
             "--store", store, "--test-name", "probe-" + family] + extra,
            capture_output=True, text=True, timeout=600)
        if probe.returncode == 254:
            said = (probe.stdout + probe.stderr).splitlines()
            why = next((l for l in said if l.startswith("error:")), said[-1] if said else "")
            print(f"  {family}: not taken ({why.removeprefix('error:').strip()})")
        else:
            taken.append(family)
    return taken


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def proc_stat(pid):
    """(state, start time, parent pid) of a live pid, or None."""
    text = read(f"/proc/{pid}/stat")
    if not text:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[19]), int(fields[1])


def with_descendants(pids):
    """`pids` and every process below them (a PostgreSQL server's backends)."""
    children = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        stat = proc_stat(pid)
        if stat and stat[0] != "Z":
            children.setdefault(stat[2], []).append(int(pid))
    found, todo = set(), list(pids)
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo += children.get(pid, [])
    return found


def vm_kib(pid, field):
    m = re.search(rf"^{field}:\s+(\d+) kB", read(f"/proc/{pid}/status"), re.M)
    return int(m.group(1)) if m else 0


def pss_kib(pid):
    """The process's anonymous and shared memory as proportional set size:
    pages servers share (PostgreSQL's buffers, in every backend) count once
    in a sum. File pages are left out: binaries and libraries that other
    processes on the machine map too, whose share moves as those come and go."""
    rollup = read(f"/proc/{pid}/smaps_rollup")
    return sum(int(m) for m in re.findall(r"^Pss_(?:Anon|Shmem):\s+(\d+) kB", rollup, re.M))


class Run:
    """One `locksmith run` being watched: its run directory, tag, servers."""

    def __init__(self, proc, store):
        self.proc, self.store = proc, store
        self.run_dir = self.tag = None
        self.servers = {}  # pid -> start time, every process the registry recorded
        self.peak = 0.0  # MiB, the process's VmHWM as last read

    def log(self):
        if self.run_dir is None:
            logs = glob.glob(f"{self.store}/soak/*/locksmith.log")
            if not logs:
                return ""
            self.run_dir = os.path.dirname(logs[0])
        return read(self.run_dir + "/locksmith.log")

    def watch_registry(self, log):
        if self.tag is None:
            m = re.search(r"^ *[0-9.]+ INFO  cluster ([0-9a-f]+):", log, re.M)
            if not m:
                return
            self.tag = m.group(1)
        try:
            record = json.loads(read(f"{REGISTRY}/{self.tag}.json"))
        except ValueError:
            return
        for p in record.get("processes", []):
            self.servers[p["pid"]] = p["start_time"]

    def live_servers(self):
        live = []
        for pid, start in self.servers.items():
            stat = proc_stat(pid)
            if stat and stat[1] == start and stat[0] != "Z":
                live.append(pid)
        return live

    def sample(self, elapsed):
        log = self.log()
        self.watch_registry(log)
        servers = self.live_servers()
        server_pss = sum(pss_kib(p) for p in with_descendants(servers)) / 1024
        progress = PROGRESS.findall(log)
        phase = ("judge" if "workload done" in log else
                 "workload" if re.search(r"INFO  workload \S+ for", log) else "start")
        history = glob.glob(f"{self.run_dir}/history.*") if self.run_dir else []
        return {
            "t": elapsed, "phase": phase,
            "rss": vm_kib(self.proc.pid, "VmRSS") / 1024,
            "hwm": vm_kib(self.proc.pid, "VmHWM") / 1024,
            "servers_pss": server_pss,
            "servers": len(servers),
            "ops": sum(map(int, progress[-1])) if progress else None,
            "history_mb": sum(os.path.getsize(h) for h in history) / 1e6,
        }


def ended(proc):
    stat = proc_stat(proc.pid)
    return stat is None or stat[0] == "Z"


def watch(run, interval, samples):
    """Samples into `samples` until the run ends, a row printed per sample, and
    keeps the process's own peak (VmHWM, read every 0.1 s: its exit status's
    peak would count its servers too, a JVM's above its own)."""
    print(f"{'elapsed s':>9} {'phase':<8} {'RSS MiB':>8} {'servers PSS':>11} {'servers':>7} "
          f"{'ops':>10} {'history MB':>10}")
    start = due = time.monotonic()
    while not ended(run.proc):
        run.peak = max(run.peak, vm_kib(run.proc.pid, "VmHWM") / 1024)
        if time.monotonic() >= due:
            due += interval
            s = run.sample(time.monotonic() - start)
            if s["rss"] > 0:
                samples.append(s)
                ops = "" if s["ops"] is None else s["ops"]
                print(f"{s['t']:9.0f} {s['phase']:<8} {s['rss']:8.1f} {s['servers_pss']:11.1f} "
                      f"{s['servers']:7} {ops:>10} {s['history_mb']:10.1f}", flush=True)
        time.sleep(max(0, min(0.1, due - time.monotonic())))


def spread(values):
    return (max(values) - min(values)) / min(values) if values and min(values) > 0 else None


def summarize(samples, warmup, peak):
    """Prints the peak and the spreads; True when the RSS after the warm-up is flat."""
    print(f"peak RSS: {peak:.1f} MiB (VmHWM, within 0.1 s of the exit); servers' peak "
          f"{max((s['servers_pss'] for s in samples), default=0):.1f} MiB")
    after = [s for s in samples if s["t"] >= warmup]
    if len(after) < 2:
        print(f"RSS spread after {warmup:.0f} s: n/a (fewer than two samples after the warm-up)")
        return False
    rss = [s["rss"] for s in after]
    if peak > after[-1]["hwm"] + 0.1:  # the peak came after the last sample: the run's end
        rss.append(peak)
        print(f"  (the peak came after the last sample, {after[-1]['t']:.0f} s: it counts too)")
    whole = spread(rss)
    workload_rss = [s["rss"] for s in after if s["phase"] == "workload"]
    workload = spread(workload_rss)
    servers = spread([s["servers_pss"] for s in after if s["phase"] == "workload"])
    if workload is None:
        print(f"RSS during the workload after {warmup:.0f} s: n/a (fewer than two samples)")
        return False
    flat = workload <= FLAT_LIMIT
    bounded = peak <= PEAK_LIMIT_MIB
    print(f"RSS during the workload after {warmup:.0f} s: {min(workload_rss):.1f} to "
          f"{max(workload_rss):.1f} MiB, spread {100 * workload:.1f}% (limit "
          f"{100 * FLAT_LIMIT:.0f}%): {'PASS' if flat else 'FAIL'}")
    print(f"  with the judge and the reports after it: {min(rss):.1f} to {max(rss):.1f} MiB "
          f"({100 * whole:.1f}%), peak {peak:.1f} MiB (limit {PEAK_LIMIT_MIB} MiB): "
          f"{'PASS' if bounded else 'FAIL'}; servers' spread during the workload: "
          f"{'n/a' if servers is None else f'{100 * servers:.1f}%'}")
    return flat and bounded


def leftovers(run):
    """Everything of the run still present, one line each."""
    left = []
    for pid, start in run.servers.items():
        stat = proc_stat(pid)
        if stat and stat[1] == start and stat[0] != "Z":
            cmdline = read(f"/proc/{pid}/cmdline").replace("\0", " ")
            left.append(f"process {pid} (recorded by the run): {cmdline}")
    for pid in filter(str.isdigit, os.listdir("/proc")):
        stat = proc_stat(pid)
        if stat is None or stat[0] == "Z" or int(pid) in run.servers or int(pid) == os.getpid():
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            cwd = ""
        cmdline = read(f"/proc/{pid}/cmdline").replace("\0", " ")
        if run.run_dir and (cwd.startswith(run.run_dir) or run.run_dir in cmdline):
            left.append(f"process {pid} in the run directory: {cmdline} (cwd {cwd})")
    if run.tag is None:
        return left + ["no cluster tag in the run's log: namespaces and rules not checked"]
    if os.path.exists(f"{REGISTRY}/{run.tag}.json"):
        left.append(f"run record {REGISTRY}/{run.tag}.json")
    for what, command in (("netns", ["ip", "netns", "list"]), ("link", ["ip", "-o", "link"]),
                          ("iptables", ["iptables-save"])):
        out = subprocess.run(command, capture_output=True, text=True).stdout
        left += [f"{what}: {line.strip()}" for line in out.splitlines() if run.tag in line]
    return left


def verdict(out_path, code):
    """The run's exit code, verdict and fault ledger, from its stdout."""
    lines = read(out_path).splitlines()
    verdict_line = next((l for l in lines if l.startswith("verdict:")), "no verdict line")
    print(f"run: exit {code}, {verdict_line}")
    ledger = False
    for line in lines:
        ledger = line.startswith("faults:") or (ledger and line.startswith(" "))
        if ledger:
            print("  " + line)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        bad_usage(message)


def interrupted(signum, frame):
    raise KeyboardInterrupt


def main():
    signal.signal(signal.SIGTERM, interrupted)
    p = Parser(usage=__doc__.split("usage: ")[1])
    p.add_argument("locksmith")
    p.add_argument("--backend", default="redis")
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--seconds", type=float, help="instead of --minutes")
    p.add_argument("--interval", type=float, default=5)
    p.add_argument("--warmup", type=float, default=60)
    p.add_argument("--nemesis", help="these families instead of every one the backend takes")
    p.add_argument("--store", help="keep the run here (default: a temp dir, removed)")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = p.parse_args(argv[:cut])
    a.extra = argv[cut + 1:]  # flags for `locksmith run`
    a.seconds = a.seconds if a.seconds is not None else a.minutes * 60
    if a.seconds <= 0 or a.interval <= 0 or a.warmup < 0:
        bad_usage("--minutes, --seconds and --interval must be above 0, --warmup at least 0")
    store = a.store or tempfile.mkdtemp(prefix="locksmith-soak-")
    os.makedirs(store, exist_ok=True)
    try:
        return soak(a, store)
    finally:
        if not a.store:
            shutil.rmtree(store, ignore_errors=True)


def soak(a, store):
    families = a.nemesis.split(",") if a.nemesis else None
    if families is None:
        print(f"families {a.backend} takes (a 1 s probe run each):")
        families = families_taken(a.locksmith, a.backend, a.extra, store + "/probes")
        if not families:
            bad_usage(f"{a.backend} takes no fault family with these flags")
    args = [a.locksmith, "run", "--backend", a.backend, "--nemesis", ",".join(families),
            "--time-limit", f"{a.seconds:g}", "--store", store, "--test-name", "soak"] + a.extra
    print("soak: " + " ".join(args[1:]), flush=True)
    out_path = store + "/soak.out"
    with open(out_path, "w") as out:
        # A session of its own: a Ctrl-C reaches it once, forwarded below (a
        # second SIGINT would make it stop waiting for in-flight work).
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    run, samples, stopped = Run(proc, store), [], False
    try:
        watch(run, a.interval, samples)
    except KeyboardInterrupt:  # the run tears down on SIGINT: wait for it
        proc.send_signal(signal.SIGINT)
        stopped = True
    code = proc.wait()
    run.watch_registry(run.log())
    flat = summarize(samples, a.warmup, run.peak)
    verdict(out_path, code)
    left = leftovers(run)
    print("left behind: " + ("nothing" if not left else f"{len(left)} thing(s)"))
    for line in left:
        print("  " + line)
    return 130 if stopped else 0 if flat and not left else 1


if __name__ == "__main__":
    sys.exit(main())
