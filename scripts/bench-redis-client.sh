#!/usr/bin/env bash
# Compares the redis lock clients' throughput (backends/redis_lock_bench)
# with redis-benchmark on the same private redis-server, at the same
# connection counts (default 10 and 50).
#
# The fair comparison. One lock cycle of ours is an acquire (SET key token
# NX PX lease) then a release (EVALSHA of the compare-and-delete script) on
# one connection, each waiting for its reply: two round trips, no
# pipelining. redis-benchmark runs one command per run, so it runs each of
# the two with the same -c, -P 1 (no pipelining) and one thread: `-t set`
# (a plain SET: an upper bound for SET NX PX, same reply size) and EVALSHA of
# the very same release script. A client alternating the two commands gets
# their harmonic mean in requests/s (rb_mix); our ops/s counts the acquire
# and the release each as one request, so ours/rb_mix is the ratio of cycle
# rates (cycles/s = ops/s / 2 on both sides). The target is 80%.
# The Redisson-style clients run the same loop (--client): redis-watchdog is
# SET + EVALSHA plus a renewal every lease/3 (3.3 s of a 10 s lease), so
# rb_mix too; redis-reentrant is two EVALSHAs (Redisson's lock and unlock
# scripts), next to rb_mix and to rb_evalsha.
#
# redis-server is pinned to CPU 0 and every client to CPU 1 (2-core box).
# Each cell is the median of ROUNDS runs, the tools interleaved round by
# round (other work on the machine makes single runs noisy; the load average
# is printed with each round). It listens on 127.0.0.1 on a free port with a
# password and no persistence, in a temp dir; it is killed by pid on exit.
# Nothing else is touched.
#
# usage: scripts/bench-redis-client.sh [build-dir]
#   (build-dir defaults to build/, which scripts/setup.sh makes)
#   env: SECONDS_PER_RUN (default 5), CLIENT_COUNTS (default "10 50"),
#        REQUESTS (redis-benchmark -n, default 100000), ROUNDS (default 3)
set -euo pipefail

build=${1:-"$(cd "$(dirname "$0")/.." && pwd)/build"}
bench="$build/backends/redis_lock_bench"
secs=${SECONDS_PER_RUN:-5}
counts=${CLIENT_COUNTS:-"10 50"}
requests=${REQUESTS:-100000}
rounds=${ROUNDS:-3}
[[ -x "$bench" ]] || { echo "missing $bench: make -C $build redis_lock_bench" >&2; exit 254; }
for tool in redis-server redis-benchmark redis-cli taskset ss /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/setup.sh --bench installs it)" >&2; exit 254; }
done

# shellcheck source=scripts/bench/private_redis.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench/private_redis.sh"
start_private_redis redis taskset -c 0
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
# The median of "rate cpu cpu" lines, column by column.
median() { awk '{r[NR]=$1; c[NR]=$2; s[NR]=$3}
  function med(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) {t=a[j]; a[j]=a[j-1]; a[j-1]=t}
    return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
  END {printf "%.0f %.2f %.2f\n", med(r, NR), med(c, NR), med(s, NR)}'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.0f%%", 100*a/b}'; }

echo "median of $rounds rounds; rates in ops/s (requests/s); cpu in microseconds per op"
echo "(client | server); one lock cycle = 2 ops; target: ours >= 80% of rb_mix"
for n in $counts; do
  : > "$dir/ours"; : > "$dir/set"; : > "$dir/eval"; : > "$dir/watchdog"; : > "$dir/reentrant"
  for r in $(seq "$rounds"); do
    echo "  clients $n round $r: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    "${cli[@]}" flushall >/dev/null
    ours_run "$n" >> "$dir/ours"
    rb "$n" -t set >> "$dir/set"
    ours_run "$n" redis-watchdog >> "$dir/watchdog"
    rb "$n" evalsha "$sha" 1 'bench:__rand_int__' tok -r 100000 >> "$dir/eval"
    ours_run "$n" redis-reentrant >> "$dir/reentrant"
  done
  read -r s sc ss < <(median < "$dir/set")
  read -r e ec es < <(median < "$dir/eval")
  mix=$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.0f", 2/(1/a+1/b)}')
  echo
  echo "clients $n: rb_set $s (cpu $sc | $ss), rb_evalsha $e (cpu $ec | $es), rb_mix $mix"
  printf '  %-16s %9s %8s %9s   %s\n' client ops/s cycles/s "of mix" "cpu client | server"
  for c in ours:redis watchdog:redis-watchdog reentrant:redis-reentrant; do
    read -r o oc os < <(median < "$dir/${c%%:*}")
    printf '  %-16s %9s %8.0f %9s   %s | %s\n' "${c#*:}" "$o" "$(awk -v o="$o" 'BEGIN{print o/2}')" \
      "$(pct "$o" "$mix")" "$oc" "$os"
  done
done

# The whole harness path: `locksmith run` with its own loopback redis-server,
# the workload, the history recorder (a log written by a thread of its own)
# and the checkers.
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
