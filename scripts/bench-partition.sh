#!/usr/bin/env bash
# Builds the partition bench in Release and prints how long putting a
# majorities-ring partition in place on a 5-node local cluster takes, and
# healing it (median, p90, max of N rounds, default 20), plus one round of
# the other shapes. Needs root (namespaces, bridge, veths, iptables). Then
# the net-slow relay with no toxics against a direct connection (relay_bench:
# round-trip p50 added, throughput kept).
# Usage: scripts/bench-partition.sh [--repeat N]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-build.sh"
bench_build partition_bench
"$build/nemesis/partition_bench" "$@"
cmake --build "$build" --target relay_bench -j "$(nproc)" >/dev/null
"$build/nemesis/relay_bench"
