#!/usr/bin/env bash
# The nightly's shard job's work, the same on GitHub Actions and GitLab CI:
# runs this job's share of the suite (`locksmith suite --shard auto`: I/N
# from GitLab's CI_NODE_INDEX/CI_NODE_TOTAL or LOCKSMITH_SHARD) into
# store/shard-I/, which the job uploads. Every shard of a night must be given
# the same seed (the pipeline's id), so that each run keeps the seed it has
# in the whole suite. A run that finds a violation is what the nightly is
# for, not a failed job: only bad input (254) or a crash (255) fails it;
# the merge job judges the night.
#
#   ci/run-shard.sh SUITE_FILE SEED
set -uo pipefail
cd "$(dirname "$0")/.."
if (($# != 2)); then
  echo "run-shard: usage: ci/run-shard.sh SUITE_FILE SEED" >&2
  exit 254
fi
locksmith=${LOCKSMITH:-build/locksmith}
index=${CI_NODE_INDEX:-${LOCKSMITH_SHARD%%/*}}
"$locksmith" suite "$1" --shard auto --seed "$2" --store "store/shard-$index" \
  ${LOCKSMITH_SUITE_FLAGS:-}
code=$?
echo "run-shard: shard $index: exit $code (0 valid, 1 invalid, 2 unknown: the merge judges the night)"
((code < 254))
