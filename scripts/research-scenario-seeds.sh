#!/usr/bin/env bash
# Every predicting scenario of the library (scenarios/*.json) on seeds 1, 2 and
# 3: the scenario library test's cases (tests/scenario_library_integration_test.cc),
# of which CTest runs seed 1 only. Each case checks the run's verdict against the
# file's prediction, that every scripted step fired, and that nothing was left
# behind. The cases run in SHARDS processes side by side (default: the number
# of cores); about 15 s each, so the 3 seeds of 39 scenarios take ~15 minutes on
# 2 cores. Prints each shard's gtest summary and exits non-zero if any case
# failed. Needs root and a build with the tests (scripts/setup.sh --tests).
#
# usage: scripts/research-scenario-seeds.sh [build-dir] [gtest filter]
#   (build-dir defaults to build/; the filter to every seed, e.g. '*_seed2:*_seed3')
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
filter=${2:-*}
binary="$build/tests/scenario_library_integration_test"
[[ -x "$binary" ]] || { echo "missing $binary (scripts/setup.sh --tests builds it)" >&2; exit 254; }
binary=$(realpath "$binary")
((EUID == 0)) || { echo "research-scenario-seeds.sh needs root (network namespaces)" >&2; exit 254; }
shards=${SHARDS:-$(nproc)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
for ((i = 0; i < shards; ++i)); do
  # The tests run from the build directory, as CTest runs them.
  (cd "$build" && GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
    "$binary" --gtest_filter="$filter" >"$logs/$i.log" 2>&1) &
  pids+=($!)
done
status=0
for ((i = 0; i < shards; ++i)); do
  wait "${pids[$i]}" || status=1
  echo "shard $i:"
  grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' "$logs/$i.log" | sed 's/^/  /'
done
exit $status
