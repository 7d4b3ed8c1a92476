#!/usr/bin/env bash
# Compares the redis lock client's throughput (backends/redis_lock_bench) with
# redis-benchmark on the same private redis-server: for each client count,
# our lock ops/s (SET NX PX + EVALSHA per iteration, each one op) next to
# redis-benchmark's SET and EVALSHA (same script, same connection count,
# -P 1, one thread), run one after the other.
#
# redis-server is pinned to CPU 0 and every client to CPU 1 (2-core box).
# It listens on 127.0.0.1 on a free port with a password and no persistence,
# in a temp dir; it is killed by pid on exit. Nothing else is touched.
#
# usage: scripts/bench-redis-client.sh [build-dir]
#   env: SECONDS_PER_RUN (default 5), CLIENT_COUNTS (default "10 50 200"),
#        REQUESTS (redis-benchmark -n, default 400000), ROUNDS (default 3:
#        each cell is the best of ROUNDS runs, the three tools interleaved,
#        because other work on the machine makes single runs noisy)
set -euo pipefail

build=${1:-"$(cd "$(dirname "$0")/.." && pwd)/build-redis"}
bench="$build/backends/redis_lock_bench"
secs=${SECONDS_PER_RUN:-5}
counts=${CLIENT_COUNTS:-"10 50 200"}
requests=${REQUESTS:-400000}
rounds=${ROUNDS:-3}
[[ -x "$bench" ]] || { echo "missing $bench: make -C $build redis_lock_bench" >&2; exit 254; }
for tool in redis-server redis-benchmark redis-cli taskset ss; do
  command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 254; }
done

dir=$(mktemp -d /tmp/locksmith-bench-redis.XXXXXX)
pass="bench-$RANDOM$RANDOM"
pid=""
cleanup() {
  if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A free port: random in 20000-59999, not listed by ss.
for _ in $(seq 50); do
  port=$((20000 + RANDOM % 40000))
  ss -Htln "sport = :$port" | grep -q . || break
done

taskset -c 0 redis-server --port "$port" --bind 127.0.0.1 --requirepass "$pass" \
  --save "" --appendonly no --dir "$dir" --logfile "$dir/redis.log" --daemonize no &
pid=$!
cli=(redis-cli --no-auth-warning -h 127.0.0.1 -p "$port" -a "$pass")
for _ in $(seq 100); do
  [[ "$("${cli[@]}" ping 2>/dev/null)" == PONG ]] && break
  sleep 0.05
done
[[ "$("${cli[@]}" ping)" == PONG ]] || { echo "redis-server did not start" >&2; exit 1; }
sha=$("${cli[@]}" script load \
  'if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end')

# Prints the requests/s of one redis-benchmark run (its -q summary line).
rb() {
  local n=$1; shift
  taskset -c 1 redis-benchmark -h 127.0.0.1 -p "$port" -a "$pass" -c "$n" -n "$requests" \
    -P 1 --threads 1 -q "$@" 2>/dev/null | tr '\r' '\n' | grep 'requests per second' | tail -1 |
    sed -E 's/.*: ([0-9.]+) requests per second.*/\1/'
}

printf '%-8s %14s %14s %14s %14s %9s %9s\n' clients ours_ops/s rb_set/s rb_evalsha/s \
  rb_mix/s ours/set ours/mix
max() { awk -v a="$1" -v b="$2" 'BEGIN{print (a+0 > b+0) ? a : b}'; }
for n in $counts; do
  ours=0 set_rps=0 eval_rps=0
  for _ in $(seq "$rounds"); do
    "${cli[@]}" flushall >/dev/null
    o=$(taskset -c 1 "$bench" --port "$port" --password "$pass" --clients "$n" \
      --seconds "$secs" | sed -E 's/.*ops_per_sec=([0-9.]+).*/\1/')
    ours=$(max "$ours" "$o")
    set_rps=$(max "$set_rps" "$(rb "$n" -t set)")
    eval_rps=$(max "$eval_rps" "$(rb "$n" evalsha "$sha" 1 'bench:__rand_int__' tok -r 100000)")
  done
  # Our iteration is one SET + one EVALSHA on one connection: the rate
  # redis-benchmark would get alternating the two is their harmonic mean.
  mix=$(awk -v a="$set_rps" -v b="$eval_rps" 'BEGIN{printf "%.0f", 2/(1/a+1/b)}')
  printf '%-8s %14.0f %14.0f %14.0f %14s %8.0f%% %8.0f%%\n' "$n" "$ours" "$set_rps" "$eval_rps" \
    "$mix" "$(awk -v a="$ours" -v b="$set_rps" 'BEGIN{print 100*a/b}')" \
    "$(awk -v a="$ours" -v b="$mix" 'BEGIN{print 100*a/b}')"
done
