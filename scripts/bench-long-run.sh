#!/usr/bin/env bash
# The full-speed no-fault run (a nightly chaos job's worst case for memory),
# at several lengths: `locksmith run --backend redis --concurrency 50 --hold
# 0-0 --backoff 0-0 --keys 50 --time-limit L`, each beside the bare client
# bench (backends/redis_lock_bench, 50 clients, 50 keys) measured three
# times in the same round just before it: against a private loopback
# redis-server ("bare lo"); against a redis-server the bench stands up on the
# run's own kind of network (`--own-network`: a namespace on a bridge behind
# a veth, the redis backend's own service, each client on its own address;
# "bare veth"); and on the run's own kind of network doing the run's work
# (`--own-network --contend`, "bare cont"): each op on a random key of the
# 50, an acquire that finds the lock taken tried again at once, as the run's
# mutex workload does with --backoff 0-0. The own-key benches (lo, veth)
# never contend: client i locks key i, an op is one call. The contending one
# makes the run's lock-client calls without the run's recording, so the
# run's ratio to it, "run/cont", is the like-for-like one the ops/s target
# is judged on; "run/veth" adds what the workload's contention costs,
# "run/lo" the network too.
#
# Prints per round: history events, history bytes on disk, the run's
# workload ops/s, the three bare benches' (acquire and release each count as
# one op on every side) and the run's ratio to each, the time from the end of
# the workload to the end of the process (heal, teardown, judging, reports),
# the peak RSS of the whole process (/usr/bin/time), the 1-minute load
# average when the round began, and the run's verdict (valid for this
# no-fault run; unknown is a judge that gave up, and its row measured less
# than the judge's whole work). And what the load moves less: the run's
# lock-client calls per op ("calls": an acquire that finds the lock taken
# tries again, every attempt a call, the whole one op) and the contending
# bench's ("cont c"), the run's calls/s over each own-key bench's, and the
# CPU per call of the run's process during its workload beside each bare
# bench's (scripts/bench/long_run_round.py). Targets: RSS < 1 GiB,
# post-workload < 10% of the workload, ops/s >= 0.8 of the contending bare
# bench's (run/cont).
#
# With --loopback the run's servers are on loopback (`run --loopback`), and
# so is the contending bench: "run/cont" stays like for like. Nothing is
# CPU-pinned. Needs root (namespaces), redis-server and /usr/bin/time.
# Everything is in a temp dir, removed at exit; the bench's redis-server is
# killed by pid, the own-network benches remove what they made.
#
# --rounds N repeats the three bare benches and the run N times per length,
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
cont_network=(--own-network)  # the contending bench: on the run's kind of network
while [[ $# -gt 0 ]]; do
  case "$1" in
    --lengths) lengths="$2"; shift 2 ;;
    --bare-seconds) bare_seconds="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --loopback) loopback=(--loopback); cont_network=(); shift ;;
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
# of its own behind a veth; further arguments (--contend) go to the bench.
# Prints its key=value line.
bare() {
  local where=(--port "$port" --password "$pass")
  if [[ "${1:-}" == --own-network ]]; then where=(--own-network); shift; else "${cli[@]}" flushall >/dev/null; fi
  "$build/backends/redis_lock_bench" "${where[@]}" --clients 50 --keys 50 --seconds "$bare_seconds" "$@"
}

# One round at length $1: the three bare benches, then the run; prints its row.
round() {
  local len=$1 load bare_lo bare_veth bare_cont store
  load=$(cut -d' ' -f1 /proc/loadavg)
  bare_lo=$(bare)
  bare_veth=$(bare --own-network)
  bare_cont=$(bare "${cont_network[@]}" --contend)
  store="$dir/store-$len"
  python3 scripts/bench/long_run_round.py "$build/locksmith" "$store" "$dir/time-$len" "$len" \
    "$load" "$bare_lo" "$bare_veth" "$bare_cont" -- \
    /usr/bin/time -v -o "$dir/time-$len" "$build/locksmith" run --backend redis --concurrency 50 \
    --hold 0-0 --backoff 0-0 --keys 50 --time-limit "$len" --store "$store" \
    --test-name "long-$len" "${loopback[@]}"
  rm -rf "$store"
}

printf '%-6s %9s %7s %8s %8s %8s %8s %6s %7s %8s %5s %6s %5s %6s %5s %5s %5s %5s %6s %6s %6s %5s %s\n' \
  length events "hist MB" "run op/s" "lo op/s" "veth" "cont" run/lo run/veth run/cont calls \
  "cont c" "c/lo" "c/veth" "us/c" "lo" "veth" "cont" "post s" "post" "RSS MB" load verdict
for len in $lengths; do
  for _ in $(seq "$rounds"); do round "$len"; done
done
echo "targets: RSS < 1024 MiB, post < 10% of the length, run/cont >= 0.8, verdict valid"
if [[ ${#loopback[@]} -gt 0 ]]; then cont_where="loopback, as the run"; else cont_where="--own-network, the run's kind"; fi
echo "like for like: run/cont, the run over the bare bench doing the run's work on the same network"
echo "(--contend: a random key per op, a taken lock retried at once; $cont_where);"
echo "run/veth and run/lo are over the own-key benches (no contention, an op one call)"
echo "calls, cont c: client calls per op of the run and of the contending bench (an acquire's every"
echo "attempt is a call); c/lo, c/veth: the run's calls/s over the own-key bench's; us/c, lo, veth,"
echo "cont: CPU us per call of the run's whole process during its workload, of each bare bench's"
