#!/usr/bin/env bash
# The MariaDB clients against mariadb-slap: lock cycles per second and
# acquire latency at each client count, each client on locks of its own
# (what the client and the server cost, not how they queue), no hold time.
#
#   mysql-get-lock, mysql-for-update: `locksmith run --backend mariadb
#           --client C` on its own server, read from the run's results.json
#           (ok acquires / workload seconds, p50), over 100000 keys chosen at
#           random. mysql-get-lock is GET_LOCK(key, 0) then RELEASE_LOCK;
#           mysql-for-update START TRANSACTION, SELECT ... FOR UPDATE, then
#           COMMIT.
#   mariadb-slap: the same GET_LOCK / RELEASE_LOCK pair on a lock named by
#           the connection's id, one connection per client, against a server
#           this script starts on 127.0.0.1 with the service's InnoDB sizes
#           (an identical server, not the very same process; without grant
#           tables, as nothing but this script reaches it). Its cycles/s is
#           the pairs the server ran (its Questions count, less the two of this count itself) per second of
#           mariadb-slap's wall time; its acquire figure is the mean time of
#           one client's statement (mariadb-slap reports no per-statement
#           latency). The server runs as an ordinary user of a
#           user namespace of its own, as the service's does, and is killed
#           by pid on exit.
#
# usage: scripts/bench-mariadb.sh [build-dir]
#   env: SECONDS_PER_RUN (default 10), CLIENT_COUNTS (default "10 50"),
#        SLAP_CYCLES (lock pairs per mariadb-slap client, default 20000)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-"$root/build"}
secs=${SECONDS_PER_RUN:-10}
counts=${CLIENT_COUNTS:-"10 50"}
cycles=${SLAP_CYCLES:-20000}
locksmith="$build/locksmith"
[[ -x "$locksmith" ]] || { echo "missing $locksmith: cmake --build $build --target locksmith" >&2; exit 254; }
for tool in mariadbd mariadb-install-db mariadb-slap mariadb-admin mariadb unshare; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/setup.sh installs mariadb-server)" >&2; exit 254; }
done

dir=$(mktemp -d /tmp/locksmith-bench-mariadb.XXXXXX)
pid=""
cleanup() {
  if [[ -n "$pid" ]]; then kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

as_user=()
[[ $(id -u) == 0 ]] && as_user=(unshare --user --map-user=1 --map-group=1 --)
sizes=(--innodb-buffer-pool-size=16M --innodb-log-file-size=4M)
"${as_user[@]}" mariadb-install-db --no-defaults --datadir="$dir/data" --skip-test-db \
  "${sizes[@]}" > "$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; exit 255; }
port=$((20000 + RANDOM % 20000))
"${as_user[@]}" mariadbd --no-defaults --datadir="$dir/data" --bind-address=127.0.0.1 \
  --port="$port" --socket="$dir/mariadbd.sock" --pid-file="$dir/mariadbd.pid" \
  --skip-grant-tables --skip-name-resolve --innodb-flush-log-at-trx-commit=2 --max-connections=200 \
  "${sizes[@]}" > "$dir/mariadbd.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  mariadb-admin --no-defaults -h 127.0.0.1 -P "$port" ping >/dev/null 2>&1 && break
  sleep 0.1
done
mariadb-admin --no-defaults -h 127.0.0.1 -P "$port" ping >/dev/null 2>&1 ||
  { cat "$dir/mariadbd.log" >&2; exit 255; }

mariadb --no-defaults -h 127.0.0.1 -P "$port" -e "CREATE DATABASE bench" ||
  { echo "cannot create the database bench" >&2; exit 255; }
selects() {
  mariadb --no-defaults -h 127.0.0.1 -P "$port" -N -B \
    -e "SHOW GLOBAL STATUS LIKE 'Questions'" | awk '{print $2}'
}

printf "%-8s %-16s %12s %15s\n" clients lock cycles/s "acquire p50 ms"
for c in $counts; do
  for client in mysql-get-lock mysql-for-update; do
    store="$dir/store-$client-$c"
    "$locksmith" run --backend mariadb --client "$client" --concurrency "$c" --keys 100000 \
      --hold 0 --backoff 0 --time-limit "$secs" --seed 1 \
      --store "$store" > "$dir/run-$client-$c.log" 2>&1 ||
      { cat "$dir/run-$client-$c.log" >&2; exit 255; }
    python3 "$root/scripts/bench/run_figures.py" "$store" "$c" "$client"
  done
  query="SELECT GET_LOCK(CONCAT('k', CONNECTION_ID()), 0);"
  query+="SELECT RELEASE_LOCK(CONCAT('k', CONNECTION_ID()))"
  # What the server ran (its Questions count, less the two of this count itself) over mariadb-slap's wall
  # time: mariadb-slap's own query counting is approximate.
  before=$(selects) t0=$(date +%s%N)
  out=$(mariadb-slap --no-defaults -h 127.0.0.1 -P "$port" --concurrency="$c" --iterations=1 \
        --number-of-queries=$((2 * cycles * c)) --query="$query" --delimiter=";" \
        --create-schema=bench --no-drop 2>&1) || { echo "$out" >&2; exit 255; }
  # mariadb-slap exits 0 when its clients could not even connect.
  if grep -q "Error" <<<"$out"; then echo "$out" >&2; exit 255; fi
  t1=$(date +%s%N) after=$(selects)
  python3 "$root/scripts/bench/run_figures.py" --line "$c" "mariadb-slap" "$(python3 -c "
import sys
pairs, ns, clients = ($after - $before - 1) / 2, $t1 - $t0, $c
# one client's statements run one after another: its share of the time per statement
print('cycles_per_s=%f acquire_p50_ms=%f' % (pairs / (ns / 1e9), ns / 1e6 / (2 * pairs / clients)))")"
done
echo "(mariadb-slap's acquire figure is the mean time of a statement, not a p50)"
