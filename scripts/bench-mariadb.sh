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
#           pairs per second of the whole run; its acquire figure is the mean
#           time of a pair's statements over two (mariadb-slap reports no
#           per-statement latency). The server runs as an ordinary user of a
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
for tool in mariadbd mariadb-install-db mariadb-slap mariadb-admin unshare; do
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
  out=$(mariadb-slap --no-defaults -h 127.0.0.1 -P "$port" --concurrency="$c" --iterations=1 \
        --number-of-queries=$((2 * cycles * c)) --query="$query" --delimiter=";" \
        --create-schema=bench 2>&1) || { echo "$out" >&2; exit 255; }
  run_s=$(sed -n 's/.*Average number of seconds to run all queries: \([0-9.]*\).*/\1/p' <<<"$out")
  python3 - "$c" "$cycles" "$run_s" "$root" <<'PY'
import subprocess, sys
clients, cycles, run_s, root = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
pairs_per_s = clients * cycles / run_s
statement_ms = 1000 * run_s / cycles / 2  # one client's statements run one after another
subprocess.run([sys.executable, root + "/scripts/bench/run_figures.py", "--line", str(clients),
                "mariadb-slap", "cycles_per_s=%f acquire_p50_ms=%f" % (pairs_per_s, statement_ms)],
               check=True)
PY
done
echo "(mariadb-slap's acquire figure is the mean time of a statement, not a p50)"
