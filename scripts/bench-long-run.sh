#!/usr/bin/env bash
# The full-speed no-fault run (a nightly chaos job's worst case for memory), at several
# lengths: `locksmith run --backend redis --concurrency 50 --hold 0-0
# --backoff 0-0 --keys 50 --time-limit L`, each beside the bare client bench
# (backends/redis_lock_bench, 50 clients, 50 keys, against a private
# loopback redis-server, measured in the same script run just before).
# Prints per length: history events, history bytes on disk, the run's
# workload ops/s and the bare bench's (acquire and release each count as one
# op on both sides), the time from the end of the workload to the end of the
# process (heal, teardown, judging, reports), and the peak RSS of the whole
# process (/usr/bin/time). Targets: RSS < 1 GiB, post-workload < 10% of the
# workload, ops/s >= 0.8 of bare.
#
# The run's redis-server is in a network namespace behind a veth (the run's
# default), the bare bench's on loopback; neither is CPU-pinned. Needs root
# (namespaces), redis-server and /usr/bin/time. Everything is in a temp dir,
# removed at exit; the bench's redis-server is killed by pid.
#
# --loopback runs the servers on loopback (`run --loopback`), as the bare
# bench's: the same network path on both sides, without the veth and bridge.
#
# usage: scripts/bench-long-run.sh [--lengths "15 60 300"] [--bare-seconds S] [--loopback]
#   env: LOCKSMITH_BENCH_BUILD_DIR (default build-bench/, a Release build)
set -euo pipefail
cd "$(dirname "$0")/.."
lengths="15 60 300"
bare_seconds=15
loopback=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --lengths) lengths="$2"; shift 2 ;;
    --bare-seconds) bare_seconds="$2"; shift 2 ;;
    --loopback) loopback=(--loopback); shift ;;
    *) echo "usage: $0 [--lengths \"15 60 300\"] [--bare-seconds S] [--loopback]" >&2; exit 254 ;;
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

bare() {
  "${cli[@]}" flushall >/dev/null
  "$build/backends/redis_lock_bench" --port "$port" --password "$pass" --clients 50 --keys 50 \
    --seconds "$bare_seconds" | sed -E 's/.*ops_per_sec=([0-9.]+).*/\1/'
}

printf '%-7s %10s %10s %10s %10s %6s %9s %7s %9s\n' length events "hist MB" "run ops/s" \
  "bare ops/s" ratio "post s" "post %" "RSS MiB"
for len in $lengths; do
  bare_rate=$(bare)
  store="$dir/store-$len"
  /usr/bin/time -v -o "$dir/time-$len" "$build/locksmith" run --backend redis --concurrency 50 \
    --hold 0-0 --backoff 0-0 --keys 50 --time-limit "$len" --store "$store" \
    --test-name "long-$len" "${loopback[@]}" >"$dir/out-$len" 2>&1 || true
  run=$(readlink -f "$store/latest")
  history="$run/history.bin"
  [[ -f "$history" ]] || history="$run/history.jsonl"
  python3 - "$run" "$history" "$dir/time-$len" "$len" "$bare_rate" <<'PY'
import json, os, re, sys
run, history, timef, length, bare = sys.argv[1:6]
log = open(run + "/locksmith.log").read()
done = re.search(r"^\s*([0-9.]+) INFO\s+workload done: (\d+) history events", log, re.M)
t = open(timef).read()
h, m, s = (["0"] + re.search(r"Elapsed \(wall clock\) time.*: ([0-9:.]+)", t).group(1).split(":"))[-3:]
elapsed = int(h) * 3600 + int(m) * 60 + float(s)
rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
ops = json.load(open(run + "/results.json"))["stats"]["perf"]["stats"]["ops_per_s"]
post = elapsed - float(done.group(1))
print("%-7s %10s %10.1f %10.0f %10.0f %6.2f %9.1f %6.1f%% %9.0f" % (
    length + " s", done.group(2), os.path.getsize(history) / 1e6, ops, float(bare),
    ops / float(bare), post, 100 * post / float(length), rss_kb / 1024))
PY
  rm -rf "$store"
done
echo "targets: RSS < 1024 MiB, post < 10% of the length, ratio >= 0.8"
