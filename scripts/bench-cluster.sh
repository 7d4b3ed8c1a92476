#!/usr/bin/env bash
# Builds the local cluster's bench in Release and prints how long creating
# and tearing down a cluster with its own network takes at 1, 5 and 13 nodes
# (median and max of N runs, default 5), and whether teardown left anything.
# Needs root (namespaces, bridge, veths).
# Usage: scripts/bench-cluster.sh [--repeat N]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${LOCKSMITH_BENCH_BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLOCKSMITH_WERROR=ON >/dev/null
cmake --build "$build" --target local_cluster_bench -j "$(nproc)" >/dev/null
echo "local_cluster_bench on $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
exec "$build/harness/local_cluster_bench" "$@"
