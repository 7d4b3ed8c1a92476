#!/usr/bin/env bash
# Runs every test: unit tests first (no root, no servers), then the
# integration tests that start real servers in network namespaces, then
# every fuzz target for a bounded time under the sanitizers
# (scripts/fuzz.sh: about three minutes, its clang build included). First
# installs what only the tests need and builds every test target
# (scripts/setup.sh --tests; the plain setup.sh builds only the main job).
# Says how long each phase took, so a CI log shows where its time went.
set -euo pipefail
cd "$(dirname "$0")/.."

phase_start=$SECONDS
phase_done() {
  echo "test.sh: $1 took $((SECONDS - phase_start)) s"
  phase_start=$SECONDS
}

scripts/setup.sh --tests
phase_done "set-up and build"
ctest --test-dir build -L unit --output-on-failure -j"$(nproc)"
phase_done "the unit tests"
# Runs are isolated from each other (own namespaces, bridge and address
# slice), so integration tests run in parallel too, two per core: a run
# mostly waits (holds, leases, fault intervals, servers starting), and a
# suite test measured 124 s of CPU in 440 s. scripts/flake-integration.sh
# runs them the same way beside a CPU load.
ctest --test-dir build -L integration --output-on-failure --timeout 600 -j"$((2 * $(nproc)))"
phase_done "the integration tests"
scripts/fuzz.sh
phase_done "the fuzz targets"
echo "test.sh: every test passed in $SECONDS s"
