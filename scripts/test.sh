#!/usr/bin/env bash
# Runs every test: unit tests first (no root, no servers), then the
# integration tests that start real servers in network namespaces.
# Expects a build in build/ (scripts/setup.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build -L unit --output-on-failure -j"$(nproc)"
# Runs are isolated from each other (own namespaces, bridge and address
# slice), so integration tests run in parallel too.
ctest --test-dir build -L integration --output-on-failure --timeout 600 -j"$(nproc)"
