#!/usr/bin/env bash
# Builds the linearizability checker's bench in Release and prints its
# figures: check time, states explored and peak memory per generated history
# (mutex and cas-register at 10k, 100k and 1M events), then batches of small
# Jepsen etcd-like cas-register histories full of timeouts.
# Usage: scripts/bench-checker.sh [--quick]   (--quick skips the 1M cases)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${LOCKSMITH_BENCH_BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target checker_bench -j "$(nproc)" >/dev/null
echo "checker_bench on $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
"$build/checker/checker_bench" "$@"
