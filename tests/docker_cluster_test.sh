#!/usr/bin/env bash
# The compose cluster end to end (label integration): docker/cluster.sh up,
# then single-Redis runs through the ssh provider from the control container
# get the exit codes (verdicts) the local provider gets, then down; nothing
# of the cluster is left (containers, network, bridge, our dockerd).
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
cluster=(bash "$root/docker/cluster.sh")
work=$(mktemp -d /tmp/locksmith-docker-test-XXXXXX)
trap '"${cluster[@]}" down; rm -rf "$work"' EXIT

failures=0
start=$(date +%s%3N)
"${cluster[@]}" up
echo "cluster up and ready in $(( $(date +%s%3N) - start )) ms"

cases=(
  "--backend redis --time-limit 6 --seed 5"
  "--backend redis --time-limit 12 --seed 5 --nemesis kill,partition --nemesis-interval 3"
)
for flags in "${cases[@]}"; do
  # shellcheck disable=SC2086
  local_code=0; (cd "$work" && "$build/locksmith" run --store store $flags >/dev/null 2>&1) ||
    local_code=$?
  # shellcheck disable=SC2086
  ssh_code=0; "${cluster[@]}" run $flags >"$work/ssh.out" 2>&1 || ssh_code=$?
  if [[ $local_code -ne $ssh_code ]]; then
    echo "FAIL: $flags: local exit $local_code, ssh exit $ssh_code"; tail -n 5 "$work/ssh.out"
    failures=$((failures + 1))
  else
    echo "ok: $flags: exit $ssh_code on both providers"
  fi
done

"${cluster[@]}" down
trap 'rm -rf "$work"' EXIT
if ip link show lsm-dk-br >/dev/null 2>&1; then
  echo "FAIL: bridge lsm-dk-br is left"; failures=$((failures + 1))
fi
if [[ -f /run/locksmith-docker/started.pid ]]; then
  echo "FAIL: our dockerd is left"; failures=$((failures + 1))
fi
echo "$((2 - failures)) passed, $failures failed"
[[ $failures -eq 0 ]]
