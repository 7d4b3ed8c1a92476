#!/usr/bin/env bash
# A soak: one long `locksmith run` on a backend with every fault family it
# takes (each family --nemesis lists, kept when a 1 s probe run accepts it;
# client-crash aside, whose crashes remove workers for good), 30 minutes by
# default. Prints the run's memory over time: elapsed, phase (workload, then
# judge and reports), the locksmith process's RSS, its servers' anonymous and
# shared memory as PSS (the processes the run registry records for the run,
# and those below them; pages they share counted once, file pages left out)
# and their count, client ops so far (the run log's progress lines), the
# history on disk. Then the spread of the process's RSS during the workload
# after the first minute ((max - min) / min): PASS within 10%, and its peak
# RSS, the judge and the reports after the workload included (they hold what
# a verdict needs, which grows with the keys and, for a history judged whole,
# with its length): PASS under 1 GiB; the run's exit code, verdict (printed, not
# judged: a chaos run may be invalid) and fault ledger; and what the run left
# behind: processes it started (by the pids and start times the registry
# recorded, or with their working directory in the run directory; zombies
# aside), its registry record, namespaces, links and iptables rules with its
# tag.
#
# Release build in build-bench/ (scripts/bench-build.sh). Needs root (the
# run's namespaces) and python3. The run's store is a temp dir, removed at
# exit, unless --store keeps it. Flags after `--` go to `locksmith run`
# (e.g. `-- --concurrency 50 --hold 0-0 --backoff 0-0` for full speed).
# On a shared machine: `nice -n 19 scripts/soak.sh ...`.
#
# Exit 0 when flat and nothing is left, 1 otherwise, 130 interrupted (the
# run is passed the signal and tears down), 254 bad usage.
#
# usage: scripts/soak.sh [--backend redis] [--minutes 30 | --seconds S] [--interval 5]
#          [--warmup 60] [--nemesis LIST] [--store DIR] [-- RUN FLAGS...]
#   env: LOCKSMITH_BENCH_BUILD_DIR (default build-bench/, a Release build)
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: $0 [--backend B] [--minutes N | --seconds S] [--interval S] [--warmup S] \
[--nemesis LIST] [--store DIR] [-- RUN FLAGS...]"
opts=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --backend|--minutes|--seconds|--interval|--warmup|--nemesis|--store)
      [[ $# -ge 2 ]] || { echo "$usage" >&2; exit 254; }
      opts+=("$1" "$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "$usage" >&2; exit 254 ;;
  esac
done
[[ $EUID -eq 0 ]] || { echo "soak: needs root (the run's network namespaces)" >&2; exit 254; }
command -v python3 >/dev/null || { echo "soak: missing python3" >&2; exit 254; }
# shellcheck source=scripts/bench-build.sh
source scripts/bench-build.sh
bench_build locksmith
exec python3 scripts/bench/soak_monitor.py "$build/locksmith" "${opts[@]}" -- "$@"
