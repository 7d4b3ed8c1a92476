#!/usr/bin/env bash
# Installs what locksmith needs on Debian 12 (only what is missing; apt-get
# update first when something is), then configures and builds it in build/.
# Idempotent: a second run installs nothing and rebuilds only what changed.
# Run as root (apt-get, and the local cluster's namespaces need it).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  # build
  g++ cmake make pkg-config git
  libboost1.81-dev libhiredis-dev libzookeeper-mt-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev
  # servers the harness starts
  redis-server redis-sentinel redis-tools zookeeper
  # the local cluster: namespaces, veths, bridge, firewall rules, process tools
  iproute2 iptables procps
  # benchmarks (scripts/bench-*.sh): Curator next to zk-fair (bench-zookeeper.sh), nodejs and
  # npm for node-redlock (bench-redlock.sh)
  time util-linux libcurator-recipes-java default-jdk-headless nodejs npm
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian starts a system redis-server on install where systemd runs; the
# harness never uses it (its servers run on their own hosts and ports).
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOCKSMITH_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
