# Sourced by the bench scripts: start_private_redis NAME [PREFIX...] starts a
# redis-server of the script's own on 127.0.0.1 (a free port in 20000-59999,
# a random password, no persistence, in a temp dir /tmp/locksmith-bench-NAME.*)
# and waits for its PONG. It is killed by pid, and its directory removed, when
# the script exits (Ctrl-C included). Sets $dir, $port, $pass, $pid and the
# array cli (redis-cli with its address and password). PREFIX runs
# redis-server (e.g. `taskset -c 0`).
start_private_redis() {
  local name=$1
  shift
  dir=$(mktemp -d "/tmp/locksmith-bench-$name.XXXXXX")
  pass="bench-$RANDOM$RANDOM"
  pid=""
  trap stop_private_redis EXIT
  trap 'exit 130' INT TERM
  for _ in $(seq 50); do
    port=$((20000 + RANDOM % 40000))
    ss -Htln "sport = :$port" | grep -q . || break
  done
  "$@" redis-server --port "$port" --bind 127.0.0.1 --requirepass "$pass" --save "" \
    --appendonly no --dir "$dir" --logfile "$dir/redis.log" --daemonize no &
  pid=$!
  cli=(redis-cli --no-auth-warning -h 127.0.0.1 -p "$port" -a "$pass")
  for _ in $(seq 100); do
    [[ "$("${cli[@]}" ping 2>/dev/null)" == PONG ]] && break
    sleep 0.05
  done
  [[ "$("${cli[@]}" ping)" == PONG ]] || { echo "redis-server did not start" >&2; exit 1; }
}

stop_private_redis() {
  if [[ -n "${pid:-}" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [[ -n "${dir:-}" ]]; then rm -rf "$dir"; fi
}
