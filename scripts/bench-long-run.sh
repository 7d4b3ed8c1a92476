#!/usr/bin/env bash
# The full-speed no-fault run (a nightly chaos job's worst case for memory), at several
# lengths: `locksmith run --backend redis --concurrency 50 --hold 0-0
# --backoff 0-0 --keys 50 --time-limit L`, each beside the bare client bench
# (backends/redis_lock_bench, 50 clients, 50 keys) measured in the same
# round just before it, twice: against a private loopback redis-server
# ("bare lo"), and against a redis-server the bench stands up on the run's
# own kind of network (`--own-network`: a namespace on a bridge behind a
# veth, the redis backend's own service, each client on its own address;
# "bare veth"). Prints per round: history events, history bytes on disk,
# the run's workload ops/s, both bare benches' (acquire and release each
# count as one op on both sides) and the run's ratio to each, the time from
# the end of the workload to the end of the process (heal, teardown,
# judging, reports), the peak RSS of the whole process (/usr/bin/time), and
# the 1-minute load average when the round began. Targets: RSS < 1 GiB,
# post-workload < 10% of the workload, ops/s >= 0.8 of bare.
#
# The run's redis-server is in a network namespace behind a veth (the run's
# default): "run/veth" compares like with like, "run/lo" adds what the
# network costs. With --loopback the run's servers are on loopback too
# (`run --loopback`): "run/lo" is then the like-with-like one. Nothing is
# CPU-pinned. Needs root (namespaces), redis-server and /usr/bin/time.
# Everything is in a temp dir, removed at exit; the bench's redis-server is
# killed by pid, the own-network bench removes what it made.
#
# --rounds N repeats bare lo, bare veth and the run N times per length,
# alternately (the machine's load moves between minutes: compare within a
# round).
#
# usage: scripts/bench-long-run.sh [--lengths "15 60 300"] [--bare-seconds S] [--rounds N]
#                                  [--loopback]
#   env: LOCKSMITH_BENCH_BUILD_DIR (default build-bench/, a Release build)
set -euo pipefail
cd "$(dirname "$0")/.."
lengths="15 60 300"
bare_seconds=15
rounds=1
loopback=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --lengths) lengths="$2"; shift 2 ;;
    --bare-seconds) bare_seconds="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --loopback) loopback=(--loopback); shift ;;
    *) echo "usage: $0 [--lengths \"15 60 300\"] [--bare-seconds S] [--rounds N] [--loopback]" >&2
       exit 254 ;;
  esac
done
for tool in redis-server redis-cli ss /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/setup.sh --bench installs it)" >&2; exit 254; }
done
# shellcheck source=scripts/bench-build.sh
source scripts/bench-build.sh
bench_build locksmith
bench_build redis_lock_bench >/dev/null

# shellcheck source=scripts/bench/private_redis.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench/private_redis.sh"
start_private_redis long

[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "--rounds takes a positive count" >&2; exit 254; }

# The bare bench against the loopback server, or with --own-network against one
# of its own behind a veth; prints its ops/s.
bare() {
  local where=(--port "$port" --password "$pass")
  if [[ "${1:-}" == --own-network ]]; then where=(--own-network); else "${cli[@]}" flushall >/dev/null; fi
  "$build/backends/redis_lock_bench" "${where[@]}" --clients 50 --keys 50 \
    --seconds "$bare_seconds" | sed -E 's/.*ops_per_sec=([0-9.]+).*/\1/'
}

# One round at length $1: both bare benches, then the run; prints its row.
round() {
  local len=$1 load bare_rate bare_net_rate store run history
  load=$(cut -d' ' -f1 /proc/loadavg)
  bare_rate=$(bare)
  bare_net_rate=$(bare --own-network)
  store="$dir/store-$len"
  /usr/bin/time -v -o "$dir/time-$len" "$build/locksmith" run --backend redis --concurrency 50 \
    --hold 0-0 --backoff 0-0 --keys 50 --time-limit "$len" --store "$store" \
    --test-name "long-$len" "${loopback[@]}" >"$dir/out-$len" 2>&1 || true
  run=$(readlink -f "$store/latest")
  history="$run/history.bin"
  [[ -f "$history" ]] || history="$run/history.jsonl"
  python3 - "$run" "$history" "$dir/time-$len" "$len" "$bare_rate" "$bare_net_rate" "$load" <<'PY'
import json, os, re, sys
run, history, timef, length, bare, bare_net, load = sys.argv[1:8]
log = open(run + "/locksmith.log").read()
done = re.search(r"^\s*([0-9.]+) INFO\s+workload done: (\d+) history events", log, re.M)
t = open(timef).read()
h, m, s = (["0"] + re.search(r"Elapsed \(wall clock\) time.*: ([0-9:.]+)", t).group(1).split(":"))[-3:]
elapsed = int(h) * 3600 + int(m) * 60 + float(s)
rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
ops = json.load(open(run + "/results.json"))["stats"]["perf"]["stats"]["ops_per_s"]
post = elapsed - float(done.group(1))
print("%-7s %10s %8.1f %9.0f %9.0f %9.0f %7.2f %8.2f %7.1f %6.1f%% %8.0f %5s" % (
    length + " s", done.group(2), os.path.getsize(history) / 1e6, ops, float(bare),
    float(bare_net), ops / float(bare), ops / float(bare_net), post, 100 * post / float(length),
    rss_kb / 1024, load))
PY
  rm -rf "$store"
}

printf '%-7s %10s %8s %9s %9s %9s %7s %8s %7s %7s %8s %5s\n' length events "hist MB" \
  "run ops/s" "bare lo" "bare veth" run/lo run/veth "post s" "post %" "RSS MiB" load
for len in $lengths; do
  for _ in $(seq "$rounds"); do round "$len"; done
done
if [[ ${#loopback[@]} -gt 0 ]]; then like="run/lo (the run on loopback)"; else like="run/veth"; fi
echo "targets: RSS < 1024 MiB, post < 10% of the length, ratio >= 0.8; like with like: $like"
