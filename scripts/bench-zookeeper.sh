#!/usr/bin/env bash
# zk-fair against Apache Curator's InterProcessMutex: lock cycles per second
# and acquire p50 at each client count, every client with a ZooKeeper session
# of its own, all on one lock path, no hold time (acquire, release, again).
#
#   zk-fair:  `locksmith run --backend zookeeper --client zk-fair` on its
#             own 3-peer ensemble (loopback or namespaces), read from the
#             run's results.json (ok acquires / workload seconds, p50).
#   Curator:  scripts/bench/CuratorMutexBench.java, compiled here, against a
#             3-peer ensemble this script starts on 127.0.0.1 with the same
#             java command line and zoo.cfg settings as the zookeeper service
#             (an identical ensemble, not the very same processes: locksmith
#             starts and tears down its own). Peers are killed by pid on exit.
#
# usage: scripts/bench-zookeeper.sh [build-dir]
#   env: SECONDS_PER_RUN (default 10), CLIENT_COUNTS (default "10 50")
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-"$root/build"}
secs=${SECONDS_PER_RUN:-10}
counts=${CLIENT_COUNTS:-"10 50"}
locksmith="$build/locksmith"
[[ -x "$locksmith" ]] || { echo "missing $locksmith: cmake --build $build --target locksmith" >&2; exit 254; }
for jar in zookeeper curator-recipes curator-framework curator-client guava slf4j-api; do
  [[ -f /usr/share/java/$jar.jar ]] || { echo "missing /usr/share/java/$jar.jar (scripts/setup.sh --bench installs it)" >&2; exit 254; }
done
command -v javac >/dev/null || { echo "missing javac (scripts/setup.sh --bench installs it)" >&2; exit 254; }

dir=$(mktemp -d /tmp/locksmith-bench-zk.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cp="/usr/share/java/curator-recipes.jar:/usr/share/java/curator-framework.jar"
cp="$cp:/usr/share/java/curator-client.jar:/usr/share/java/zookeeper.jar"
cp="$cp:/usr/share/java/zookeeper-jute.jar:/usr/share/java/guava.jar:/usr/share/java/slf4j-api.jar"
cp="$cp:/usr/share/java/slf4j-nop.jar:/usr/share/java/netty-handler.jar"
javac -d "$dir/classes" -cp "$cp" "$root/scripts/bench/CuratorMutexBench.java"

# A 3-peer ensemble for Curator: ports from a random base.
base=$((20000 + RANDOM % 20000))
servers=""
for i in 1 2 3; do servers+="server.$i=127.0.0.1:$((base + 10 + i)):$((base + 20 + i))"$'\n'; done
connect=""
for i in 1 2 3; do
  mkdir -p "$dir/n$i/data"
  echo "$i" > "$dir/n$i/data/myid"
  cat > "$dir/n$i/zoo.cfg" <<CFG
tickTime=250
initLimit=10
syncLimit=5
dataDir=$dir/n$i/data
clientPort=$((base + i))
clientPortAddress=127.0.0.1
minSessionTimeout=500
maxSessionTimeout=60000
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=srvr
$servers
CFG
  java -Xmx192m -Xms32m -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 \
    -Djava.net.preferIPv4Stack=true -cp /usr/share/java/zookeeper.jar:/usr/share/java/slf4j-nop.jar \
    org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/n$i/zoo.cfg" > "$dir/n$i/log" 2>&1 &
  pids+=($!)
  connect+="${connect:+,}127.0.0.1:$((base + i))"
done
ready=0
for _ in $(seq 1 300); do
  leaders=0; serving=0
  for i in 1 2 3; do
    a=$(timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$((base + i)); echo srvr >&3; cat <&3" 2>/dev/null || true)
    [[ "$a" == *"Mode: "* ]] && serving=$((serving + 1))
    [[ "$a" == *"Mode: leader"* ]] && leaders=$((leaders + 1))
  done
  if [[ $serving == 3 && $leaders == 1 ]]; then ready=1; break; fi
  sleep 0.1
done
[[ $ready == 1 ]] || { echo "the Curator ensemble did not come up" >&2; exit 255; }

printf "%-8s %-16s %12s %15s\n" clients lock cycles/s "acquire p50 ms"
for c in $counts; do
  store="$dir/store-$c"
  "$locksmith" run --backend zookeeper --client zk-fair --concurrency "$c" --keys 1 \
    --hold 0 --backoff 0 --client-timeout 10000 --time-limit "$secs" --seed 1 \
    --store "$store" > "$dir/run-$c.log" 2>&1 || { cat "$dir/run-$c.log" >&2; exit 255; }
  python3 "$root/scripts/bench/run_figures.py" "$store" "$c" zk-fair
  line=$(java -cp "$dir/classes:$cp" CuratorMutexBench "$connect" "$c" "$secs" "/curator/lock-$c")
  python3 "$root/scripts/bench/run_figures.py" --line "$c" "curator" "$line"
done
