#!/usr/bin/env bash
# The compose cluster end to end (label integration): docker/cluster.sh up,
# then, for every backend, a no-fault run (and for redis, redis-sentinel,
# redlock and zookeeper a kill run and a partition run) through the ssh provider from the
# control container get the verdicts the local provider gets with the same
# flags and seed (exit code, the verdict line and every checker's
# true/false); a kill without persistence on single Redis is INVALID on
# both. The ssh runs' kills and partitions struck the nodes (history); after
# them no server process, run directory, LSM- chain or control connection of
# a run is left on any node or in the control container; after down nothing
# of the cluster is left (containers, network, bridge, namespace mount,
# firewall rules, our dockerd).
# The local provider's runs go while the cluster comes up and the ssh runs go.
# Usage: docker_cluster_test.sh BUILD_DIR. Exit 77 (skipped) without root,
# docker.io, docker-compose or debootstrap.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?build dir}" && pwd)
[[ $EUID -eq 0 ]] || { echo "SKIP: needs root"; exit 77; }
for t in dockerd docker-compose debootstrap; do
  command -v "$t" >/dev/null || { echo "SKIP: $t is not installed"; exit 77; }
done
export LOCKSMITH_BUILD=$build
export DOCKER_HOST=unix:///run/locksmith-docker/docker.sock
cluster=(bash "$root/docker/cluster.sh")
compose=(docker-compose -f "$root/docker/compose.yml" -p locksmith)
work=$(mktemp -d /tmp/locksmith-docker-test-XXXXXX)
local_pid=
# On an early exit: stop the local runs' loop, then its current run (SIGTERM:
# it tears its cluster down) and wait for it.
stop_local() {
  [[ -n "$local_pid" ]] || return 0
  local run
  run=$(pgrep -P "$local_pid" || true)
  kill "$local_pid" 2>/dev/null || true
  [[ -z "$run" ]] || kill -TERM "$run" 2>/dev/null || true
  [[ -n "$run" ]] || return 0
  for _ in $(seq 1 600); do
    kill -0 "$run" 2>/dev/null || break
    sleep 0.1
  done
}
trap 'stop_local; "${cluster[@]}" down; rm -rf "$work"' EXIT

# Each case: flags; the fault family (kill or partition) the ssh run must show
# struck the nodes, or "-"; the verdict both providers must reach. Each fault
# case has one family: with a kill (4-5 s) and a partition (7-8 s on a loaded
# machine) in one 8 s run, the partition began too near the time limit to be
# applied on the ssh provider (verdict unknown), and a longer run put the
# next kill inside the partition, whose restart would fail its readiness
# check there (clients and checks share the controller's address,
# docs/multi-host.md). Kill cases keep every acknowledged SET (appendfsync
# always) or kill replicas only, so their VALID does not hang on timing.
# Multi-host backends are cut node from node (isolate); single Redis has its
# clients cut off it. Leases of 10 s: a loaded machine stalled a client 1.2 s
# between its SET and reading the reply, it took a lock with -246 ms of its
# 1 s lease left, and the run was INVALID by an expired-lease use. The
# INVALID case holds every lock for the whole run (20 s holds, 60 s leases):
# each kill forgets held locks and a waiting client takes one after the
# restart, on any machine (with the scenario's 200-400 ms holds a loaded
# machine's restart outlasted the holds, and one provider's run was VALID).
kill="--time-limit 8 --nemesis kill --nemesis-interval 3"
part="--time-limit 8 --nemesis partition --nemesis-interval 3 --partition-ms 1500"
lease="--lease 10000"
cases=(
  "--backend redis --time-limit 6 --seed 5 $lease|-|VALID"
  "--backend redis --seed 5 $kill $lease --redis-persistence always|kill|VALID"
  "--backend redis --seed 5 $part $lease|partition|VALID"
  "--backend redis-sentinel --time-limit 6 --seed 7 $lease|-|VALID"
  "--backend redis-sentinel --seed 7 $kill $lease --kill-target replicas
   --redis-persistence always|kill|VALID"
  "--backend redis-sentinel --seed 7 $part $lease --partition-shape isolate
   --partition-target n3|partition|VALID"
  "--backend redlock --time-limit 6 --seed 5 $lease|-|VALID"
  "--backend redlock --seed 5 $kill $lease --redis-persistence always|kill|VALID"
  "--backend redlock --seed 5 $part $lease --partition-shape isolate|partition|VALID"
  "--backend zookeeper --time-limit 6 --seed 7|-|VALID"
  "--backend zookeeper --seed 7 $kill|kill|VALID"
  "--backend zookeeper --seed 7 $part --partition-shape isolate|partition|VALID"
  "--backend etcd --time-limit 4 --seed 7 $lease|-|VALID"
  "--backend mariadb --time-limit 4 --seed 7|-|VALID"
  "--backend postgres --time-limit 4 --seed 7|-|VALID"
  "--scenario redis-kill-no-persistence --time-limit 7 --seed 5 --hold 20000 --lease 60000|-|INVALID"
)
flags_of() { echo "${cases[$1]%%|*}" | tr -s ' \n' '  '; }

# What a run's stdout says of its verdict: the verdict line and each
# checker's true/false (not the counts beside them, which timing moves).
verdict_of() {
  sed -nE 's/^([a-z-]+): (true|false|"?unknown"?).*/\1: \2/p; s/^(verdict: .*)/\1/p' "$1"
}

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
start=$(date +%s%3N)

# The local provider's runs, one after another, while the cluster comes up.
(
  cd "$work"
  for i in "${!cases[@]}"; do
    code=0
    # shellcheck disable=SC2046
    "$build/locksmith" run --store store-local $(flags_of "$i") >"local-$i.out" \
      2>"local-$i.err" || code=$?
    echo "$code" >"$work/local-$i.code"
  done
) &
local_pid=$!

up_start=$(date +%s%3N)
"${cluster[@]}" up
echo "cluster up and ready in $(( $(date +%s%3N) - up_start )) ms"

# Did the ssh run's fault strike? A kill (with the nodes it hit) or a
# partition (with its rules) completed without an error on the nodes, in the
# history the control container keeps.
faults_struck() {
  local mark=nodes
  [[ $1 == partition ]] && mark=rules
  # shellcheck disable=SC2016
  "${compose[@]}" exec -T control sh -c '
    h=/tmp/faults-struck.jsonl
    locksmith export /work/store/latest -o "$h" || exit 1
    grep "\"f\":\"$0\"" "$h" | grep "\"type\":\"info\"" | grep -v "\"error\"" | grep -q "$1"' \
    "$1" "$mark"
}

for i in "${!cases[@]}"; do
  IFS='|' read -r _ faults expected <<<"$(echo "${cases[$i]}" | tr '\n' ' ')"
  flags=$(flags_of "$i")
  t0=$(date +%s%3N)
  ssh_code=0
  # shellcheck disable=SC2086
  "${cluster[@]}" run $flags >"$work/ssh-$i.out" 2>"$work/ssh-$i.err" || ssh_code=$?
  echo "$ssh_code" >"$work/ssh-$i.code"
  echo "ssh run $i took $(( $(date +%s%3N) - t0 )) ms: exit $ssh_code"
  if [[ $faults != - ]] && ! faults_struck "$faults"; then
    fail "$flags: no $faults struck the nodes"
  fi
done

# Nothing of a run is left on any node, nor in the control container.
for n in n1 n2 n3 n4 n5; do
  left=$("${compose[@]}" exec -T "$n" sh -c '
    ps -eo args | grep -E "^[^ ]*(redis-server|redis-sentinel|java)" | grep -v grep
    ls -A /var/lib/locksmith 2>/dev/null
    iptables-save 2>/dev/null | grep -- "LSM-"' || true)
  [[ -z "$left" ]] || fail "left on $n: $left"
done
left=$("${compose[@]}" exec -T control sh -c \
  'ps -eo stat=,comm= | awk '"'"'$1 !~ /^Z/ && $2 == "ssh"'"'"'; ls -d /tmp/lsm-ssh-* 2>/dev/null' || true)
[[ -z "$left" ]] || fail "left in the control container: $left"

wait "$local_pid" || true
local_pid=
# Nor of the local runs on this machine: namespaces, links, chains by tag.
while read -r tag; do
  left=$( (ip netns list | grep "^lsm-$tag-"; ip -o link | grep "lsm-$tag"
           iptables-save | grep "LSM-$tag") 2>/dev/null || true)
  [[ -z "$left" ]] || fail "left of local run $tag: $left"
done < <(sed -nE 's/^ *[0-9.]+ INFO  cluster ([0-9a-f]+):.*/\1/p' "$work"/local-*.err)
for i in "${!cases[@]}"; do
  IFS='|' read -r _ _ expected <<<"$(echo "${cases[$i]}" | tr '\n' ' ')"
  expected=$(echo "$expected" | tr -d ' ')
  flags=$(flags_of "$i")
  local_code=$(cat "$work/local-$i.code")
  ssh_code=$(cat "$work/ssh-$i.code")
  local_verdict=$(verdict_of "$work/local-$i.out")
  ssh_verdict=$(verdict_of "$work/ssh-$i.out")
  if [[ $local_code -ne $ssh_code || "$local_verdict" != "$ssh_verdict" ]]; then
    fail "$flags: local exit $local_code, ssh exit $ssh_code"
    diff <(echo "$local_verdict") <(echo "$ssh_verdict") | sed 's/^/  /' || true
    tail -n 3 "$work/ssh-$i.err" | sed 's/^/  ssh: /'
  elif ! grep -qx "verdict: $expected.*" <<<"$ssh_verdict"; then
    fail "$flags: $expected expected on both providers, got: $(grep verdict <<<"$ssh_verdict")"
  else
    echo "ok: $flags: exit $ssh_code, $(grep verdict <<<"$ssh_verdict") on both providers"
  fi
done

"${cluster[@]}" down
trap 'rm -rf "$work"' EXIT
if ip link show lsm-dk-br >/dev/null 2>&1; then fail "bridge lsm-dk-br is left"; fi
if [[ -f /run/locksmith-docker/started.pid ]]; then fail "our dockerd is left"; fi
if pgrep -f "/run/locksmith-docker" >/dev/null; then
  fail "a process of our engine is left: $(pgrep -af /run/locksmith-docker | head -n 3)"
fi
mounts=$(grep -E " /(run|var/lib)/locksmith-docker/" /proc/mounts || true)
[[ -z "$mounts" ]] || fail "mounts of our engine are left: $(head -n 3 <<<"$mounts")"
rules=$( (iptables-save; ip6tables-save) 2>/dev/null | grep -E "DOCKER|lsm-dk-br|198\.18\.220\." || true)
[[ -z "$rules" ]] || fail "firewall rules of the cluster are left: $rules"
echo "whole test: $(( $(date +%s%3N) - start )) ms"
echo "${#cases[@]} cases on both providers, $failures failures"
[[ $failures -eq 0 ]]
