#!/usr/bin/env bash
# Suite overhead: runs a small suite (RUNS runs of TIME_LIMIT s, no faults, 5 clients) and prints
# the suite's wall time minus the sum of its runs' time limits, per run, for
#   - redis: one Redis master (target < 3 s per run),
#   - redlock: five independent Redis masters (target < 10 s per run),
#   - zookeeper: a five-peer ZooKeeper ensemble (target < 10 s per run),
# with where each run's overhead goes, from its locksmith.log: setup (store, cluster, servers
# and clients until the workload starts) and the rest (the time past the limit, teardown,
# the check, the reports and the suite's tables). Each run's store goes in a temp dir, removed
# at the end. Needs root (the local provider's namespaces).
#
# usage: scripts/bench-suite.sh [--binary PATH]    (default: a Release build in build-bench/)
#   env: RUNS (default 3), TIME_LIMIT (default 5), SETUPS (default "redis redlock zookeeper")
set -euo pipefail

binary=""
if [[ "${1:-}" == "--binary" ]]; then binary=$2; shift 2; fi
runs=${RUNS:-3}
limit=${TIME_LIMIT:-5}
setups=${SETUPS:-"redis redlock zookeeper"}
if [[ -z "$binary" ]]; then
  source "$(dirname "${BASH_SOURCE[0]}")/bench-build.sh"
  bench_build locksmith
  binary="$build/locksmith"
else
  echo "$binary on $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
fi
[[ -x "$binary" ]] || { echo "missing $binary" >&2; exit 254; }
((EUID == 0)) || { echo "bench-suite.sh needs root (network namespaces)" >&2; exit 254; }

dir=$(mktemp -d /tmp/locksmith-bench-suite.XXXXXX)
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

lock_of() {
  case "$1" in
    redis) echo '{"name": "redis", "backend": "redis"}' ;;
    redlock) echo '{"name": "redlock5", "backend": "redlock", "masters": 5}' ;;
    zookeeper) echo '{"name": "zk5", "backend": "zookeeper", "client": "zk-fair", "zk_nodes": 5}' ;;
    *) echo "unknown setup $1 (redis, redlock, zookeeper)" >&2; exit 254 ;;
  esac
}
target_of() { [[ "$1" == redis ]] && echo 3 || echo 10; }

echo "$runs runs of $limit s each, no faults, 5 clients; overhead = (wall - sum of limits) / runs"
printf '%-10s | %8s | %13s | %-8s | %9s | %s\n' setup "wall s" "overhead/run" target "setup/run" \
  "rest/run (past the limit, teardown, check, reports)"
for setup in $setups; do
  suite="$dir/$setup.json"
  cat > "$suite" <<JSON
{"description": "bench-suite.sh: suite overhead", "seed": 1, "test_count": $runs,
 "base": {"workload": "mutex", "concurrency": 5, "time_limit_s": $limit},
 "matrix": {"lock": [$(lock_of "$setup")]}}
JSON
  start=$(date +%s.%N)
  code=0
  "$binary" suite "$suite" --store "$dir/store-$setup" >"$dir/$setup.out" 2>"$dir/$setup.err" ||
    code=$?
  end=$(date +%s.%N)
  if ((code != 0)); then
    echo "$setup: locksmith suite exited $code (see below)" >&2
    tail -5 "$dir/$setup.out" "$dir/$setup.err" >&2
  fi
  # Setup: the log's time when the workload starts (seconds since the run's start).
  setup_s=$(cat "$dir"/store-"$setup"/suites/*/*/*/*/locksmith.log |
            awk '/INFO  workload .* for / {s += $1; n++}
                 END {if (n) printf "%.2f", s / n; else print "?"}')
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')
  awk -v wall="$wall" -v n="$runs" -v l="$limit" -v name="$setup" \
      -v target="$(target_of "$setup")" -v setup_s="$setup_s" 'BEGIN {
    per = (wall - n * l) / n
    rest = setup_s == "?" ? "?" : sprintf("%.2f", per - setup_s)
    printf "%-10s | %8.1f | %11.2f s | < %2d s %s | %7s s | %s s\n", name, wall, per, target,
           (per < target ? "ok" : "OVER"), setup_s, rest
  }'
done
