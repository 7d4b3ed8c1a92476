#!/usr/bin/env bash
# Compares the redis lock client's throughput (backends/redis_lock_bench) with
# redis-benchmark on the same private redis-server: for each client count,
# our lock ops/s (SET NX PX + EVALSHA per iteration, each one op) next to
# redis-benchmark's SET and EVALSHA (same script, same connection count,
# -P 1, one thread), run one after the other. The Redisson-style clients run
# the same loop (--client): redis-watchdog (SET + EVALSHA, plus a renewal
# every lease/3 = 3.3 s of a 10 s lease: next to the same mix) and
# redis-reentrant (two EVALSHAs, the lock and unlock scripts: next to
# redis-benchmark's EVALSHA).
#
# redis-server is pinned to CPU 0 and every client to CPU 1 (2-core box).
# It listens on 127.0.0.1 on a free port with a password and no persistence,
# in a temp dir; it is killed by pid on exit. Nothing else is touched.
#
# usage: scripts/bench-redis-client.sh [build-dir]
#   (build-dir defaults to build/, which scripts/setup.sh makes)
#   env: SECONDS_PER_RUN (default 5), CLIENT_COUNTS (default "10 50 200"),
#        REQUESTS (redis-benchmark -n, default 400000), ROUNDS (default 3:
#        each cell is the best of ROUNDS runs, the three tools interleaved,
#        because other work on the machine makes single runs noisy)
set -euo pipefail

build=${1:-"$(cd "$(dirname "$0")/.." && pwd)/build"}
bench="$build/backends/redis_lock_bench"
secs=${SECONDS_PER_RUN:-5}
counts=${CLIENT_COUNTS:-"10 50 200"}
requests=${REQUESTS:-400000}
rounds=${ROUNDS:-3}
[[ -x "$bench" ]] || { echo "missing $bench: make -C $build redis_lock_bench" >&2; exit 254; }
for tool in redis-server redis-benchmark redis-cli taskset ss /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/setup.sh --bench installs it)" >&2; exit 254; }
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

server_cpu() { awk -v t="$(getconf CLK_TCK)" '{print ($14 + $15) / t}' "/proc/$pid/stat"; }

# One redis-benchmark run: prints "requests/s client_cpu_us/req server_cpu_us/req".
rb() {
  local n=$1; shift
  local s0 s1 rps
  s0=$(server_cpu)
  rps=$(/usr/bin/time -f '%U %S' -o "$dir/time" taskset -c 1 redis-benchmark -h 127.0.0.1 \
    -p "$port" -a "$pass" -c "$n" -n "$requests" -P 1 --threads 1 -q "$@" 2>/dev/null |
    tr '\r' '\n' | grep 'requests per second' | tail -1 |
    sed -E 's/.*: ([0-9.]+) requests per second.*/\1/')
  s1=$(server_cpu)
  awk -v r="$rps" -v n="$requests" -v s0="$s0" -v s1="$s1" '{
    printf "%s %.2f %.2f\n", r, 1e6 * ($1 + $2) / n, 1e6 * (s1 - s0) / n }' "$dir/time"
}
# One run of ours ($2: the client, default redis): prints "ops/s
# client_cpu_us/op server_cpu_us/op".
ours_run() {
  taskset -c 1 "$bench" --port "$port" --password "$pass" --clients "$1" --seconds "$secs" \
    --server-pid "$pid" --client "${2:-redis}" |
    sed -E 's/.*ops_per_sec=([0-9.]+).*client_cpu_us_per_op=([0-9.]+) server_cpu_us_per_op=([0-9.-]+).*/\1 \2 \3/'
}
# Keeps, of "rate cpu cpu" lines, the highest rate and the lowest CPU costs.
best() { awk 'NR==1 || $1>r {r=$1} NR==1 || $2<c {c=$2} NR==1 || $3<s {s=$3}
              END {printf "%.0f %.2f %.2f\n", r, c, s}'; }

echo "best of $rounds rounds; rates in ops/s; cpu in microseconds per op (client | server)"
printf '%-7s %9s %9s %9s %6s %7s %6s   %-17s %-17s %-17s\n' clients ours rb_set rb_evalsha \
  rb_mix ours/set ours/mix "cpu ours" "cpu rb_set" "cpu rb_evalsha"
for n in $counts; do
  : > "$dir/ours"; : > "$dir/set"; : > "$dir/eval"; : > "$dir/watchdog"; : > "$dir/reentrant"
  for _ in $(seq "$rounds"); do
    "${cli[@]}" flushall >/dev/null
    ours_run "$n" >> "$dir/ours"
    ours_run "$n" redis-watchdog >> "$dir/watchdog"
    ours_run "$n" redis-reentrant >> "$dir/reentrant"
    rb "$n" -t set >> "$dir/set"
    rb "$n" evalsha "$sha" 1 'bench:__rand_int__' tok -r 100000 >> "$dir/eval"
  done
  read -r o oc os < <(best < "$dir/ours")
  read -r s sc ss < <(best < "$dir/set")
  read -r e ec es < <(best < "$dir/eval")
  # Our iteration is one SET + one EVALSHA on one connection: the rate
  # redis-benchmark would get alternating the two is their harmonic mean.
  mix=$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.0f", 2/(1/a+1/b)}')
  printf '%-7s %9s %9s %9s %6s %7.0f%% %7.0f%%  %6s | %-8s %6s | %-8s %6s | %-8s\n' \
    "$n" "$o" "$s" "$e" "$mix" "$(awk -v a="$o" -v b="$s" 'BEGIN{print 100*a/b}')" \
    "$(awk -v a="$o" -v b="$mix" 'BEGIN{print 100*a/b}')" "$oc" "$os" "$sc" "$ss" "$ec" "$es"
  read -r w wc ws < <(best < "$dir/watchdog")
  read -r r rc rs < <(best < "$dir/reentrant")
  printf '%-7s redis-watchdog %7s ops/s (%3.0f%% of rb_mix, cpu %s | %s)   redis-reentrant %7s ops/s (%3.0f%% of rb_evalsha, cpu %s | %s)\n' \
    "" "$w" "$(awk -v a="$w" -v b="$mix" 'BEGIN{print 100*a/b}')" "$wc" "$ws" \
    "$r" "$(awk -v a="$r" -v b="$e" 'BEGIN{print 100*a/b}')" "$rc" "$rs"
done

# The whole harness path: `locksmith run` with its own loopback redis-server,
# the workload, the history recorder (one write per op) and the checkers.
# Not CPU-pinned (the run spawns its own server), so compare it with the
# table above only loosely; acquire and release each count as one op.
locksmith="$build/locksmith"
if [[ -x "$locksmith" ]]; then
  echo
  echo "locksmith run (hold 0, backoff 0, one key per client, history recorded), ${secs} s each:"
  for n in $counts; do
    "$locksmith" run --loopback --store "$dir/store" --test-name bench --concurrency "$n" \
      --keys "$n" --hold 0 --backoff 0 --lease 10000 --time-limit "$secs" >/dev/null 2>&1 || true
    awk -v n="$n" '/"ops_per_s"/ {gsub(/[,]/, "", $2); printf "%-7s %9.0f ops/s\n", n, $2; exit}' \
      "$dir/store/latest/results.json"
  done
fi
