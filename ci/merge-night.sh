#!/usr/bin/env bash
# The nightly's merge job's work, the same on GitHub Actions and GitLab CI:
# merges every shard directory (one with a shard.json) found under
# SHARDS_ROOT into OUT (`locksmith merge`), then compares OUT's summary with
# the previous night's, when there is one (`locksmith compare OLD NEW`, which
# exits 1 on a regression). Exit: the merge's when it failed (254 shards that
# do not make one suite, e.g. a shard job that uploaded nothing; 255 a
# crash), else compare's; the runs' own verdicts (invalid is what the
# nightly is for) do not fail the job.
#
#   ci/merge-night.sh SHARDS_ROOT OUT [PREVIOUS_SUMMARY_JSON]
set -uo pipefail
cd "$(dirname "$0")/.."
if (($# < 2 || $# > 3)); then
  echo "merge-night: usage: ci/merge-night.sh SHARDS_ROOT OUT [PREVIOUS_SUMMARY_JSON]" >&2
  exit 254
fi
locksmith=${LOCKSMITH:-build/locksmith}
shards_root=$1 out=$2 previous=${3:-}
# `latest` is a store's link to its newest directory; an artifact upload that
# follows links makes it a second copy of a shard, which is not merged twice.
mapfile -d '' shards < <(find "$shards_root" -name latest -prune -o -name shard.json -type f \
  -printf '%h\0' | sort -z)
if ((${#shards[@]} == 0)); then
  echo "merge-night: no shard directory (with a shard.json) under $shards_root" >&2
  exit 254
fi
"$locksmith" merge "$out" "${shards[@]}"
code=$?
if ((code >= 254)); then
  echo "merge-night: the merge failed (exit $code)" >&2
  exit "$code"
fi
echo "merge-night: merged ${#shards[@]} shards into $out (worst verdict: exit $code)"
if [[ -z $previous || ! -f $previous ]]; then
  echo "merge-night: no previous night's summary; nothing to compare"
  exit 0
fi
"$locksmith" compare "$previous" "$out/summary.json"
