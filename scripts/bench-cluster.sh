#!/usr/bin/env bash
# Builds the local cluster's bench in Release and prints how long creating
# and tearing down a cluster with its own network takes at 1, 5 and 13 nodes
# (median and max of N runs, default 5), and whether teardown left anything.
# Needs root (namespaces, bridge, veths).
# Usage: scripts/bench-cluster.sh [--repeat N]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-build.sh"
bench_build local_cluster_bench
exec "$build/cluster/local_cluster_bench" "$@"
