#!/usr/bin/env bash
# The ssh provider on the docker/ compose cluster next to the local provider
# (root; docker.io, docker-compose, debootstrap):
#  1. cluster up and ready for 5 Redis nodes: `locksmith run --backend redlock` (five masters,
#     one per node) until the log says "servers up", through --provider ssh on n1..n5 and on
#     the local provider (namespaces), median of 3 runs each;
#  2. per-op overhead of a fault op (ssh_fault_bench): a remote command, a signal, a
#     majorities-ring partition applied and healed, local vs ssh, p50 / p90.
# Brings the cluster up with docker/cluster.sh and takes it down at the end.
# Usage: scripts/bench-ssh.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
source scripts/bench-build.sh
bench_build ssh_fault_bench
cmake --build "$build" --target locksmith locksmith_clock_shim -j "$(nproc)" >/dev/null
export LOCKSMITH_BUILD=$build
work=$(mktemp -d /tmp/locksmith-bench-ssh-XXXXXX)
trap 'bash docker/cluster.sh down; rm -rf "$work"' EXIT
bash docker/cluster.sh up
export DOCKER_HOST=unix:///run/locksmith-docker/docker.sock
compose=(docker-compose -f docker/compose.yml -p locksmith)
"${compose[@]}" exec -T control cat /keys/id_ed25519 >"$work/key"
chmod 600 "$work/key"
nodes=198.18.220.11,198.18.220.12,198.18.220.13,198.18.220.14,198.18.220.15
ssh_flags=(--provider ssh --nodes "$nodes" --ssh-key "$work/key" --ssh-known-hosts "$work/kh")

# Seconds from the run's start to "servers up" in its log.
up_seconds() {
  local dir=$1; shift
  (cd "$dir" && "$LOCKSMITH_BUILD/locksmith" run --store store --backend redlock \
     --time-limit 1 "$@" >/dev/null 2>&1) || true
  awk '/servers up/ {print $1; exit}' "$dir"/store/latest/locksmith.log
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "cluster up and ready, 5 Redis nodes (redlock backend), seconds, median of 3:"
for provider in local ssh; do
  for i in 1 2 3; do
    d="$work/$provider-$i"; mkdir -p "$d"
    if [[ $provider == ssh ]]; then up_seconds "$d" "${ssh_flags[@]}"; else up_seconds "$d"; fi
  done | median | xargs printf "  %-6s %s\n" "$provider"
done
echo
echo "per fault op, $rounds rounds:"
"$build/nemesis/ssh_fault_bench" --nodes "$nodes" --ssh-key "$work/key" \
  --ssh-known-hosts "$work/kh" --repeat "$rounds"
