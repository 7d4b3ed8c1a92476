#!/usr/bin/env bash
# The PostgreSQL clients against pgbench: lock cycles per second and acquire
# latency at each client count, each client on locks of its own (what the
# client and the server cost, not how they queue), no hold time (acquire,
# release, again).
#
#   pg-advisory, pg-lock-table: `locksmith run --backend postgres --client C`
#           on its own server, read from the run's results.json (ok acquires
#           / workload seconds, p50), over 100000 keys chosen at random, so
#           two clients rarely want one lock. pg-advisory takes the advisory
#           lock (pg_try_advisory_lock) and releases it (pg_advisory_unlock):
#           a round trip each; pg-lock-table inserts or claims the lock row
#           in one statement and deletes it in another.
#   pgbench: a script of `SELECT pg_advisory_lock(:client_id)` then
#           `SELECT pg_advisory_unlock(:client_id)`, one
#           connection per client and one pgbench thread, against a server
#           this script starts on 127.0.0.1 with the service's settings
#           (fsync off, 16 MB shared buffers; an identical server, not the
#           very same process). Its cycles/s is pgbench's transactions per
#           second; its acquire figure is pgbench's mean latency of the lock
#           statement (pgbench reports no per-statement percentile). The
#           server runs as an ordinary user of a user namespace of its own,
#           as the service's does, and is killed by pid on exit.
#
# usage: scripts/bench-postgres.sh [build-dir]
#   env: SECONDS_PER_RUN (default 10), CLIENT_COUNTS (default "10 50")
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-"$root/build"}
secs=${SECONDS_PER_RUN:-10}
counts=${CLIENT_COUNTS:-"10 50"}
locksmith="$build/locksmith"
bin=/usr/lib/postgresql/15/bin
[[ -x "$locksmith" ]] || { echo "missing $locksmith: cmake --build $build --target locksmith" >&2; exit 254; }
for tool in "$bin/initdb" "$bin/postgres" "$bin/pgbench" "$bin/pg_isready" unshare; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/setup.sh installs postgresql-15)" >&2; exit 254; }
done

dir=$(mktemp -d /tmp/locksmith-bench-pg.XXXXXX)
pid=""
cleanup() {
  if [[ -n "$pid" ]]; then kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

as_user=()
[[ $(id -u) == 0 ]] && as_user=(unshare --user --map-user=1 --map-group=1 --ipc --)
"${as_user[@]}" "$bin/initdb" --pgdata="$dir/pgdata" --username=bench --auth=trust \
  --encoding=UTF8 --locale=C --no-sync > "$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; exit 255; }
port=$((20000 + RANDOM % 20000))
"${as_user[@]}" "$bin/postgres" -D "$dir/pgdata" -c listen_addresses=127.0.0.1 -c port="$port" \
  -c unix_socket_directories= -c fsync=off -c full_page_writes=off -c shared_buffers=16MB \
  -c max_connections=200 -c dynamic_shared_memory_type=mmap > "$dir/postgres.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" && break
  sleep 0.1
done
"$bin/pg_isready" -q -h 127.0.0.1 -p "$port" || { cat "$dir/postgres.log" >&2; exit 255; }
printf 'SELECT pg_advisory_lock(:client_id);\nSELECT pg_advisory_unlock(:client_id);\n' \
  > "$dir/cycle.sql"

printf "%-8s %-16s %12s %15s\n" clients lock cycles/s "acquire p50 ms"
for c in $counts; do
  for client in pg-advisory pg-lock-table; do
    store="$dir/store-$client-$c"
    "$locksmith" run --backend postgres --client "$client" --concurrency "$c" --keys 100000 \
      --hold 0 --backoff 0 --time-limit "$secs" --seed 1 \
      --store "$store" > "$dir/run-$client-$c.log" 2>&1 ||
      { cat "$dir/run-$client-$c.log" >&2; exit 255; }
    python3 "$root/scripts/bench/run_figures.py" "$store" "$c" "$client"
  done
  out=$("$bin/pgbench" -h 127.0.0.1 -p "$port" -U bench -n -c "$c" -j 1 -T "$secs" -r \
        -f "$dir/cycle.sql" postgres 2>&1) || { echo "$out" >&2; exit 255; }
  tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out")
  lock_ms=$(awk '/pg_advisory_lock\(/ {print $1}' <<<"$out")
  python3 "$root/scripts/bench/run_figures.py" --line "$c" "pgbench" \
    "cycles_per_s=$tps acquire_p50_ms=$lock_ms"
done
echo "(pgbench's acquire figure is the mean latency of its lock statement, not a p50)"
