#!/usr/bin/env bash
# The docker compose cluster for multi-host runs: five nodes n1..n5 and a
# control container with locksmith on 198.18.220.0/24 (docker/compose.yml).
#
#   docker/cluster.sh up      start dockerd if none answers (ours: --iptables=false, no
#                             default bridge), build the images when missing, start the cluster
#   docker/cluster.sh run ARGS...   `locksmith run ARGS...` in the control container,
#                             through the ssh provider on the five nodes
#   docker/cluster.sh down    remove the containers, network and volume; stop the dockerd
#                             this script started (by its pid), nothing else
#
# No image registry: the base image is a debootstrap --variant=minbase of
# bookworm from this machine's configured Debian mirror, imported with
# `docker import`. Needs root, debootstrap, docker.io and docker-compose, and
# a build of locksmith in build/ (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

state=/run/locksmith-docker
data=/var/lib/locksmith-docker
export DOCKER_HOST="unix://$state/docker.sock"
compose=(docker-compose -f docker/compose.yml -p locksmith)
docker=/usr/bin/docker
build=${LOCKSMITH_BUILD:-build}  # where locksmith and its clock shim were built

say() { echo "cluster: $*" >&2; }

mirror() {
  local m
  m=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' |
      grep -v security | grep debian | head -n 1 || true)
  [[ -n "$m" ]] || m=$(awk '/^deb / && $2 ~ /debian/ && $2 !~ /security/ {print $2; exit}' \
                       /etc/apt/sources.list 2>/dev/null || true)
  echo "${m:-http://deb.debian.org/debian}"
}

start_dockerd() {
  mkdir -p "$state"
  if "$docker" version >/dev/null 2>&1; then return; fi
  say "starting dockerd --iptables=false (pid file $state/dockerd.pid)"
  dockerd --iptables=false --ip-masq=false --bridge=none --data-root "$data" \
    --exec-root "$state/exec" --pidfile "$state/dockerd.pid" -H "$DOCKER_HOST" \
    >"$state/dockerd.log" 2>&1 &
  echo $! >"$state/started.pid"
  for _ in $(seq 1 300); do
    "$docker" version >/dev/null 2>&1 && return
    sleep 0.1
  done
  say "dockerd did not answer in 30 s: $(tail -n 3 "$state/dockerd.log")"
  exit 255
}

stop_dockerd() {
  [[ -f "$state/started.pid" ]] || return 0
  local pid
  pid=$(cat "$state/started.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$state/started.pid"
  # dockerd leaves its bind mount of the host's network namespace
  # (exec/netns/default) behind; nothing of ours stays mounted.
  awk -v s="$state/" 'index($2, s) == 1 {print $2}' /proc/mounts | sort -r |
    while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
  say "stopped dockerd $pid"
}

build_images() {
  if ! "$docker" image inspect locksmith-debian:bookworm >/dev/null 2>&1; then
    local root
    root=$(mktemp -d /var/tmp/locksmith-rootfs-XXXXXX)
    say "debootstrap --variant=minbase bookworm from $(mirror)"
    debootstrap --variant=minbase bookworm "$root" "$(mirror)" >"$state/debootstrap.log" 2>&1 ||
      { say "debootstrap failed: $(tail -n 2 "$state/debootstrap.log")"; rm -rf "$root"; exit 255; }
    tar -C "$root" -c . | "$docker" import - locksmith-debian:bookworm >/dev/null
    rm -rf "$root"
  fi
  local ctx
  ctx=$(mktemp -d /var/tmp/locksmith-docker-ctx-XXXXXX)
  cp docker/Dockerfile.node docker/Dockerfile.control docker/sshd_config \
     docker/node-entrypoint.sh docker/control-entrypoint.sh "$build/locksmith" \
     "$build/liblocksmith_clock_shim.so" "$ctx/"
  cp -r scenarios "$ctx/scenarios"
  # The node image is rebuilt when its recipe changed (a new backend's
  # servers), not only when it is missing: its label holds the recipe's hash.
  local recipe built
  recipe=$(cat docker/Dockerfile.node docker/sshd_config docker/node-entrypoint.sh \
             "$build/liblocksmith_clock_shim.so" | sha256sum | cut -c1-16)
  built=$("$docker" image inspect -f '{{index .Config.Labels "locksmith.recipe"}}' \
            locksmith-node:bookworm 2>/dev/null || true)
  if [[ "$built" != "$recipe" ]]; then
    say "building locksmith-node (recipe $recipe)"
    "$docker" build -q --network host --label "locksmith.recipe=$recipe" -t locksmith-node:bookworm \
      -f "$ctx/Dockerfile.node" "$ctx" >/dev/null
  fi
  say "building locksmith-control (this build of locksmith)"
  "$docker" build -q --network host -t locksmith-control:bookworm -f "$ctx/Dockerfile.control" \
    "$ctx" >/dev/null
  rm -rf "$ctx"
}

up() {
  [[ -x "$build/locksmith" && -f "$build/liblocksmith_clock_shim.so" ]] ||
    { say "build locksmith first (scripts/setup.sh)"; exit 254; }
  start_dockerd
  build_images
  "${compose[@]}" up -d >/dev/null 2>&1 || { "${compose[@]}" up -d; exit 255; }
  # Ready: the control container reaches every node's sshd with its key.
  for n in n1 n2 n3 n4 n5; do
    for i in $(seq 1 300); do
      if "${compose[@]}" exec -T control ssh -q -o BatchMode=yes -o ConnectTimeout=2 \
           -o StrictHostKeyChecking=accept-new -i /keys/id_ed25519 "root@$n" true \
           >/dev/null 2>&1; then
        break
      fi
      [[ $i -lt 300 ]] || { say "$n does not answer over ssh"; exit 255; }
      sleep 0.1
    done
  done
  say "up: n1..n5 ready"
}

run() {
  "${compose[@]}" exec -T control locksmith run --provider ssh --nodes-file /keys/nodes \
    --ssh-key /keys/id_ed25519 "$@"
}

down() {
  if "$docker" version >/dev/null 2>&1; then
    "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  fi
  stop_dockerd
}

case "${1:-}" in
  up) up ;;
  run) shift; run "$@" ;;
  down) down ;;
  *) echo "usage: docker/cluster.sh up | run ARGS... | down" >&2; exit 254 ;;
esac
