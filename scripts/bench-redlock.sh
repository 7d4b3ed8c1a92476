#!/usr/bin/env bash
# Redlock throughput and latency: lock cycles per second (acquire + release)
# and acquire latency p50 / p99 at 10 and 50 clients, for
#   - locksmith's redlock client on 5 masters (backends/redlock_bench),
#   - locksmith's single-node client on the first of them,
# each with its own connections per client (as the harness runs them: every
# client its own source address) and with one shared pipelined connection
# per server (as node-redlock shares one ioredis per server; the servers,
# all on one core here, then read and answer many commands per syscall),
#   - node-redlock (npm redlock@4.2.0 over ioredis, installed by this script
#     into a temp dir with npm; Debian's nodejs and npm packages),
# side by side against the same five password-protected redis-servers on
# 127.0.0.1 (free ports, no persistence, temp dir, killed by pid on exit).
# Every client runs on one thread (an io_context / node's event loop), each
# of the N clients looping lock then unlock on its own key. The servers are
# pinned to CPU 0 and the clients to CPU 1 (2-core box). Each cell is the
# best of ROUNDS runs (other work on the machine makes single runs noisy).
#
# usage: scripts/bench-redlock.sh [build-dir]
#   env: SECONDS_PER_RUN (default 5), CLIENT_COUNTS (default "10 50"),
#        ROUNDS (default 2)
set -euo pipefail

build=${1:-"$(cd "$(dirname "$0")/.." && pwd)/build"}
bench="$build/backends/redlock_bench"
secs=${SECONDS_PER_RUN:-5}
counts=${CLIENT_COUNTS:-"10 50"}
rounds=${ROUNDS:-2}
[[ -x "$bench" ]] || { echo "missing $bench: make -C $build redlock_bench" >&2; exit 254; }
for tool in redis-server redis-cli taskset ss node npm; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/setup.sh --bench installs it)" >&2; exit 254; }
done

dir=$(mktemp -d /tmp/locksmith-bench-redlock.XXXXXX)
pass="bench-$RANDOM$RANDOM"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ports=()
for m in 1 2 3 4 5; do
  for _ in $(seq 50); do
    port=$((20000 + RANDOM % 40000))
    ss -Htln "sport = :$port" | grep -q . || break
  done
  mkdir -p "$dir/n$m"
  taskset -c 0 redis-server --port "$port" --bind 127.0.0.1 --requirepass "$pass" \
    --save "" --appendonly no --dir "$dir/n$m" --logfile "$dir/n$m/redis.log" \
    --daemonize no &
  pids+=($!)
  ports+=("$port")
done
for port in "${ports[@]}"; do
  cli=(redis-cli --no-auth-warning -h 127.0.0.1 -p "$port" -a "$pass")
  for _ in $(seq 100); do
    [[ "$("${cli[@]}" ping 2>/dev/null)" == PONG ]] && break
    sleep 0.05
  done
  [[ "$("${cli[@]}" ping)" == PONG ]] || { echo "redis-server on $port did not start" >&2; exit 1; }
done
port_list=$(IFS=,; echo "${ports[*]}")

echo "installing node-redlock (npm redlock@4.2.0 ioredis) into $dir/node" >&2
mkdir -p "$dir/node"
(cd "$dir/node" && npm init -y >/dev/null && \
  npm install --no-audit --no-fund --silent redlock@4.2.0 ioredis >/dev/null) ||
  { echo "npm install failed" >&2; exit 1; }
cat > "$dir/node/bench.js" <<'JS'
// N async loops, each lock + unlock on its own key; prints the same line
// as redlock_bench.
const Redis = require('ioredis');
const Redlock = require('redlock');
const [ports, password, clients, seconds, warmup] = process.argv.slice(2);
const servers = ports.split(',').map(p => new Redis({host: '127.0.0.1', port: +p, password}));
const redlock = new Redlock(servers, {driftFactor: 0.01, retryCount: 0});
let measuring = false, stop = false, cycles = 0, failed = 0;
const lat = [];
async function loop(i) {
  const key = 'bench-lock-' + process.pid + '-' + i;  // own keys: see redlock_bench
  while (!stop) {
    const t0 = process.hrtime.bigint();
    let lock;
    try { lock = await redlock.lock(key, 10000); } catch (e) { if (measuring) failed++; continue; }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    try { await lock.unlock(); if (measuring) { cycles++; lat.push(ms); } } catch (e) {}
  }
}
const sleep = s => new Promise(r => setTimeout(r, s * 1000));
(async () => {
  await Promise.all(servers.map(s => s.ping()));
  const loops = [];
  for (let i = 0; i < +clients; i++) loops.push(loop(i));
  await sleep(+warmup);
  measuring = true;
  const t0 = process.hrtime.bigint();
  await sleep(+seconds);
  measuring = false;
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  stop = true;
  await Promise.all(loops);
  lat.sort((a, b) => a - b);
  const q = p => lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] : 0;
  console.log(`client=node-redlock masters=${servers.length} clients=${clients} ` +
              `cycles_per_sec=${(cycles / elapsed).toFixed(0)} acquire_p50_ms=${q(0.5).toFixed(3)} ` +
              `acquire_p99_ms=${q(0.99).toFixed(3)} failed_acquires=${failed}`);
  servers.forEach(s => s.disconnect());
})();
JS

field() { sed -E "s/.*$1=([0-9.]+).*/\1/"; }
# Best of the rounds: the highest rate, with that run's latencies.
best() { sort -t' ' -k1,1nr | head -1; }
tools=(redlock-own redlock-shared redis-own redis-shared redlock1-shared node)
declare -A label=(
  [redlock-own]="redlock, own connections" [redlock-shared]="redlock, shared connections"
  [redis-own]="single node, own connections" [redis-shared]="single node, shared connections"
  [redlock1-shared]="redlock on 1 master, shared"
  [node]="node-redlock 4.2.0 (ioredis)")
# The servers' CPU time so far (utime + stime), in clock ticks.
server_ticks() {
  local p total=0
  for p in "${pids[@]}"; do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  echo "$total"
}
one() {  # tool clients -> "cycles p50 p99 server_us_per_cycle"
  local line t0
  t0=$(server_ticks)
  case "$1" in
    redlock-*|redis-*) line=$(taskset -c 1 "$bench" --ports "$port_list" --password "$pass" \
                            --client "${1%-*}" --connections "${1#*-}" --clients "$2" \
                            --seconds "$secs") ;;
    redlock1-*) line=$(taskset -c 1 "$bench" --ports "${ports[0]}" --password "$pass" \
                       --client redlock --connections "${1#*-}" --clients "$2" \
                       --seconds "$secs") ;;
    node) line=$(cd "$dir/node" && taskset -c 1 node bench.js "$port_list" "$pass" "$2" "$secs" 1) ;;
  esac
  local cycles ticks
  cycles=$(field cycles_per_sec <<<"$line")
  ticks=$(( $(server_ticks) - t0 ))
  # Per cycle over the measured seconds plus the 1 s warm-up (at the same rate).
  echo "$cycles $(field acquire_p50_ms <<<"$line") $(field acquire_p99_ms <<<"$line")" \
    "$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" -v c="$cycles" -v s="$secs" \
         'BEGIN{printf "%.0f", t / hz * 1e6 / (c * (s + 1))}')"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2fx", a/b}'; }

echo "best of $rounds rounds, ${secs} s each; cycles/s = acquire + release; latency of the acquire in ms"
echo "own connections: each client its own connection per server (the harness's way);"
echo "shared: all clients one pipelined connection per server (node-redlock's way over ioredis)"
echo "server us/cycle: the five servers' CPU time per lock cycle (what bounds the rate: they share one core)"
echo "redlock on 1 master: the redlock client's own cost next to the single-node client's; with"
echo "  five masters on one core each acquire waits for five servers in turn (on five hosts: in parallel)"
printf '%-7s | %-32s | %9s | %8s | %8s | %s\n' clients client cycles/s "p50 ms" "p99 ms" \
  "server us/cycle"
for n in $counts; do
  for tool in "${tools[@]}"; do : > "$dir/res-$tool"; done
  for _ in $(seq "$rounds"); do
    for tool in "${tools[@]}"; do one "$tool" "$n" >> "$dir/res-$tool"; done
  done
  declare -A cyc=() p50=()
  for tool in "${tools[@]}"; do
    read -r c p q u < <(best < "$dir/res-$tool")
    cyc[$tool]=$c; p50[$tool]=$p
    printf '%-7s | %-32s | %9s | %8s | %8s | %s\n' "$n" "${label[$tool]}" "$c" "$p" "$q" "$u"
  done
  echo "        cycles/s vs node-redlock: shared $(ratio "${cyc[redlock-shared]}" "${cyc[node]}"), own $(ratio "${cyc[redlock-own]}" "${cyc[node]}");" \
       "acquire p50 redlock / single node: shared $(ratio "${p50[redlock-shared]}" "${p50[redis-shared]}"), own $(ratio "${p50[redlock-own]}" "${p50[redis-own]}")," \
       "on 1 master $(ratio "${p50[redlock1-shared]}" "${p50[redis-shared]}")"
done
