#!/usr/bin/env bash
# The etcd client against npm etcd3's Lock: lock cycles per second and
# acquire p50 at each client count, all on one key, no hold time (acquire,
# release, again).
#
#   etcd:   `locksmith run --backend etcd` on its own 3-member cluster, read
#           from the run's results.json (ok acquires / workload seconds,
#           p50). Its acquire waits in etcd's lock queue (/v3/lock/lock over
#           the JSON gateway): a lease grant, the lock, a range for the fence;
#           its release an unlock and a revoke.
#   etcd3:  scripts/bench/etcd3-lock-bench.js (npm etcd3, gRPC, installed by
#           this script into a temp dir) against a 3-member cluster this
#           script starts on 127.0.0.1 with the same flags as the etcd
#           service (an identical cluster, not the very same processes).
#           Its acquire is a try-lock (a lease, then a create-if-absent
#           transaction), retried at once when refused. Members are killed
#           by pid on exit.
#
# usage: scripts/bench-etcd.sh [build-dir]
#   env: SECONDS_PER_RUN (default 10), CLIENT_COUNTS (default "10 50")
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-"$root/build"}
secs=${SECONDS_PER_RUN:-10}
counts=${CLIENT_COUNTS:-"10 50"}
locksmith="$build/locksmith"
[[ -x "$locksmith" ]] || { echo "missing $locksmith: cmake --build $build --target locksmith" >&2; exit 254; }
for tool in etcd etcdctl node npm; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/setup.sh --bench installs it)" >&2; exit 254; }
done

dir=$(mktemp -d /tmp/locksmith-bench-etcd.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "installing npm etcd3 into $dir/node" >&2
mkdir -p "$dir/node"
(cd "$dir/node" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent etcd3 >/dev/null) ||
  { echo "npm install etcd3 failed" >&2; exit 1; }
cp "$root/scripts/bench/etcd3-lock-bench.js" "$dir/node/"

# A 3-member cluster for etcd3: ports from a random base.
base=$((20000 + RANDOM % 20000))
cluster=""
for i in 1 2 3; do cluster+="${cluster:+,}n$i=http://127.0.0.1:$((base + 10 + i))"; done
endpoints=""
for i in 1 2 3; do
  client="http://127.0.0.1:$((base + i))" peer="http://127.0.0.1:$((base + 10 + i))"
  etcd --name="n$i" --data-dir="$dir/n$i" --listen-client-urls="$client" \
    --advertise-client-urls="$client" --listen-peer-urls="$peer" \
    --initial-advertise-peer-urls="$peer" --initial-cluster="$cluster" \
    --initial-cluster-state=new --initial-cluster-token="bench-$base" \
    --heartbeat-interval=100 --election-timeout=1000 --logger=zap \
    --log-outputs=stderr > "$dir/n$i.log" 2>&1 &
  pids+=($!)
  endpoints+="${endpoints:+,}127.0.0.1:$((base + i))"
done
ready=0
for _ in $(seq 1 300); do
  if ETCDCTL_API=3 etcdctl --endpoints="$endpoints" endpoint health >/dev/null 2>&1; then ready=1; break; fi
  sleep 0.1
done
[[ $ready == 1 ]] || { echo "the etcd3 cluster did not come up" >&2; exit 255; }

printf "%-8s %-16s %12s %15s\n" clients lock cycles/s "acquire p50 ms"
for c in $counts; do
  store="$dir/store-$c"
  "$locksmith" run --backend etcd --concurrency "$c" --keys 1 --hold 0 --backoff 0 \
    --client-timeout 10000 --time-limit "$secs" --seed 1 \
    --store "$store" > "$dir/run-$c.log" 2>&1 || { cat "$dir/run-$c.log" >&2; exit 255; }
  python3 "$root/scripts/bench/run_figures.py" "$store" "$c" etcd
  line=$(cd "$dir/node" && node etcd3-lock-bench.js "$endpoints" "$c" "$secs" "/bench/lock-$c")
  python3 "$root/scripts/bench/run_figures.py" --line "$c" "npm etcd3" "$line"
done
