#!/usr/bin/env bash
# The Go adapters beside the built-in clients of their services: lock cycles
# per second (ok acquires per second of the workload, each released) and
# acquire p50, one lock key, no hold, every client on a session of its own:
#
#   zookeeper  zk-fair (built-in)   and go-zookeeper's zk.Lock (exec)
#   etcd       etcd (built-in)      and etcd's concurrency.Mutex (exec)
#
# each a `locksmith run` on its own cluster, read from the run's
# results.json (scripts/bench/run_figures.py), the pairs one after the other.
#
# usage: scripts/bench-go-adapters.sh [build-dir]
#   env: SECONDS_PER_RUN (default 10), CLIENT_COUNTS (default "10")
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-"$root/build"}
secs=${SECONDS_PER_RUN:-10}
counts=${CLIENT_COUNTS:-"10"}
locksmith="$build/locksmith"
[[ -x "$locksmith" ]] || { echo "missing $locksmith: cmake --build $build --target locksmith" >&2; exit 254; }
zk_lock="$build/adapters/go-zookeeper/go-zookeeper-lock"
etcd_lock="$build/adapters/etcd-concurrency/etcd-concurrency-lock"
for program in "$zk_lock" "$etcd_lock"; do
  [[ -x "$program" ]] || { echo "missing $program: scripts/build-go-adapters.sh $build" >&2; exit 254; }
done

dir=$(mktemp -d /tmp/locksmith-bench-go.XXXXXX)
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

# bench BACKEND CLIENT LABEL CLIENTS: one run, one row.
bench() {
  local store="$dir/store-$3-$4"
  "$locksmith" run --backend "$1" --client "$2" --concurrency "$4" --keys 1 --hold 0 \
    --backoff 0 --client-timeout 10000 --time-limit "$secs" --seed 1 \
    --store "$store" > "$dir/run.log" 2>&1 || { cat "$dir/run.log" >&2; exit 255; }
  python3 "$root/scripts/bench/run_figures.py" "$store" "$4" "$3"
}

printf "%-8s %-16s %12s %15s\n" clients lock cycles/s "acquire p50 ms"
for c in $counts; do
  bench zookeeper zk-fair zk-fair "$c"
  bench zookeeper "exec:$zk_lock" go-zookeeper "$c"
  bench etcd etcd etcd "$c"
  bench etcd "exec:$etcd_lock" etcd-concurrency "$c"
done
