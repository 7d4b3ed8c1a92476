#!/usr/bin/env bash
# Runs every test: unit tests first (no root, no servers), then the
# integration tests that start real servers in network namespaces, then
# every fuzz target for a bounded time under the sanitizers
# (scripts/fuzz.sh: about three minutes, its clang build included). First
# installs what only the tests need and builds every test target
# (scripts/setup.sh --tests; the plain setup.sh builds only the main job).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
ctest --test-dir build -L unit --output-on-failure -j"$(nproc)"
# Runs are isolated from each other (own namespaces, bridge and address
# slice), so integration tests run in parallel too.
ctest --test-dir build -L integration --output-on-failure --timeout 600 -j"$(nproc)"
scripts/fuzz.sh
