#!/usr/bin/env bash
# The power shim's cost: redis-benchmark -t set against two private
# redis-servers with an AOF (appendfsync everysec: the shim records each
# second's synced size and each fsync), one plain and one under the shim
# (LD_PRELOAD, its directory covered), side by side. Rounds alternate which
# server goes first; the summary takes the best and the median of ROUNDS
# runs per server and says how much slower the shimmed server is, and the
# journal's size shows the shim was in force. Throughput on a busy machine
# is noisy, so it also reports each server's own CPU time per request
# (utime + stime from /proc, median over rounds), which other load hardly
# moves: the shim's cost is CPU inside the server.
#
# Both servers are pinned to CPU 0 and redis-benchmark to CPU 1 (2-core box).
# They listen on 127.0.0.1 on free ports with a password, in a temp dir,
# and are killed by pid on exit. Nothing else is touched.
#
# usage: scripts/bench-power-shim.sh [build-dir]
#   (build-dir defaults to build/; needs target locksmith_power_shim)
#   env: REQUESTS (redis-benchmark -n, default 200000), CLIENTS (-c, default
#        50), ROUNDS (default 5), FSYNC (appendfsync, default everysec)
set -euo pipefail

build=${1:-"$(cd "$(dirname "$0")/.." && pwd)/build"}
shim="$build/liblocksmith_power_shim.so"
requests=${REQUESTS:-200000}
clients=${CLIENTS:-50}
rounds=${ROUNDS:-5}
fsync=${FSYNC:-everysec}
[[ -f "$shim" ]] || {
  echo "missing $shim: cmake --build $build --target locksmith_power_shim" >&2
  exit 254
}
for tool in redis-server redis-benchmark redis-cli taskset ss; do
  command -v "$tool" >/dev/null ||
    { echo "missing $tool (scripts/setup.sh --bench installs it)" >&2; exit 254; }
done

dir=$(mktemp -d /tmp/locksmith-bench-power.XXXXXX)
pass="bench-$RANDOM$RANDOM"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  local port
  for _ in $(seq 50); do
    port=$((20000 + RANDOM % 40000))
    ss -Htln "sport = :$port" | grep -q . || { echo "$port"; return; }
  done
  echo "no free port" >&2; exit 1
}

# start NAME PORT [ENV...]: a redis-server with an AOF on CPU 0.
start() {
  local name=$1 port=$2; shift 2
  mkdir -p "$dir/$name/power-loss"
  env "$@" taskset -c 0 redis-server --port "$port" --bind 127.0.0.1 --requirepass "$pass" \
    --save "" --appendonly yes --appendfsync "$fsync" --dir "$dir/$name" \
    --logfile "$dir/$name/redis.log" --daemonize no &
  pids+=($!)
  for _ in $(seq 200); do
    [[ "$(redis-cli --no-auth-warning -p "$port" -a "$pass" ping 2>/dev/null)" == PONG ]] && return
    sleep 0.05
  done
  echo "redis-server $name did not start:" >&2; tail -3 "$dir/$name/redis.log" >&2; exit 1
}

plain_port=$(free_port)
start plain "$plain_port"
plain_pid=${pids[-1]}
shim_port=$(free_port)
start shim "$shim_port" LD_PRELOAD="$shim" LOCKSMITH_POWER_SCOPE="$dir/shim" \
  LOCKSMITH_POWER_JOURNAL_DIR="$dir/shim/power-loss"
shim_pid=${pids[-1]}

# cpu_ticks PID: the process's utime + stime, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# bench PORT PID: "SET-rps server-us-per-request"
bench() {
  local before after
  before=$(cpu_ticks "$2")
  taskset -c 1 redis-benchmark -h 127.0.0.1 -p "$1" -a "$pass" -t set -n "$requests" \
    -c "$clients" -r 100000 --csv 2>/dev/null | awk -F'"' '$2=="SET"{printf "%s ", $4}'
  after=$(cpu_ticks "$2")
  awk -v t="$(getconf CLK_TCK)" -v d=$((after - before)) -v n="$requests" \
    'BEGIN{printf "%.3f\n", d / t / n * 1e6}'
}

median() { sort -g | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
best() { sort -g | tail -1; }

echo "power shim cost: redis-benchmark -t set -n $requests -c $clients, appendfsync $fsync," \
     "$rounds rounds, $(redis-server --version | awk '{print $3}')"
printf "%-6s %22s %22s\n" round "plain SET/s us/req" "shim SET/s us/req"
: > "$dir/rps-plain"; : > "$dir/rps-shim"
for r in $(seq "$rounds"); do
  if (( r % 2 )); then p=$(bench "$plain_port" "$plain_pid"); s=$(bench "$shim_port" "$shim_pid")
  else s=$(bench "$shim_port" "$shim_pid"); p=$(bench "$plain_port" "$plain_pid"); fi
  echo "$p" >> "$dir/rps-plain"; echo "$s" >> "$dir/rps-shim"
  printf "%-6s %22s %22s\n" "$r" "${p// //}" "${s// //}"
done
for stat in best median; do
  p=$(awk '{print $1}' "$dir/rps-plain" | $stat); s=$(awk '{print $1}' "$dir/rps-shim" | $stat)
  awk -v k="$stat" -v p="$p" -v s="$s" 'BEGIN{
    printf "SET %-6s plain %6.0f req/s, shim %6.0f req/s: shim %5.1f%% slower\n", k, p, s, (p-s)/p*100}'
done
p=$(awk '{print $2}' "$dir/rps-plain" | median)
s=$(awk '{print $2}' "$dir/rps-shim" | median)
awk -v p="$p" -v s="$s" 'BEGIN{
  printf "server CPU per request (median): plain %.2f us, shim %.2f us: shim %+.1f%%\n",
         p, s, (s-p)/p*100}'
journal="$dir/shim/power-loss/journal"
[[ -s "$journal" ]] || { echo "the shim was not in force (no journal)" >&2; exit 1; }
echo "journal: $(stat -c %s "$journal") bytes for $((rounds * requests)) SETs"
