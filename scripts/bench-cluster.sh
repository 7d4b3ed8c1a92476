#!/usr/bin/env bash
# Builds the local cluster's bench and locksmith in Release and prints how
# long creating and tearing down a cluster with its own network takes at 1, 5
# and 13 nodes (median and max of N runs, default 5), and whether teardown
# left anything; then how long each backend's servers take from their start
# to ready in a run (scripts/bench/server_ready.py, N runs per backend).
# Needs root (namespaces, bridge, veths).
# Usage: scripts/bench-cluster.sh [--repeat N]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-build.sh"
repeat=5
[[ "${1:-}" == "--repeat" && -n "${2:-}" ]] && repeat=$2
bench_build local_cluster_bench
"$build/cluster/local_cluster_bench" "$@"
bench_build locksmith
python3 "$(dirname "${BASH_SOURCE[0]}")/bench/server_ready.py" "$build/locksmith" "$repeat"
