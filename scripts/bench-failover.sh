#!/usr/bin/env bash
# Sentinel failover under load, as rates: K runs (seeds 1..K) of the
# redis-sentinel backend with the failover family isolating the master with
# half of the clients (--failover-mode isolate --failover-clients half): as
# Redis ships (asynchronous replication), with --redis-wait 1 and with 2.
# Prints per configuration: runs with unsafe grants (k of K), unsafe grants
# per run (median, max), and from results.json's availability: acquires ok
# inside / outside fault windows and the median recovery (fault start to the
# first lock granted after the promotion). Root (namespaces).
#
#   scripts/bench-failover.sh [runs=10] [seconds=60] [build-dir=build]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
secs=${2:-60}
build=${3:-build}
[[ -x $build/locksmith ]] || { echo "no $build/locksmith (scripts/setup.sh builds it)" >&2; exit 254; }
command -v python3 >/dev/null || { echo "missing python3" >&2; exit 254; }
store=$(mktemp -d)
trap 'rm -rf "$store"' EXIT

for wait in 0 1 2; do
  for seed in $(seq 1 "$runs"); do
    "$build/locksmith" run --backend redis-sentinel --seed "$seed" --time-limit "$secs" \
      --nemesis failover --failover-mode isolate --failover-clients half \
      --failover-ms 8000 --nemesis-interval 15 --redis-wait "$wait" \
      --test-name "wait$wait-seed$seed" --store "$store" >/dev/null 2>&1 || true
  done
done

python3 - "$store" "$runs" "$secs" <<'PY'
import glob, json, statistics, sys
store, runs, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(f"redis-sentinel, failover isolate with half the clients, {runs} runs of {secs} s each")
print(f"{'config':<12} {'invalid':>9} {'unsafe/run med':>15} {'max':>5} "
      f"{'ok in faults':>13} {'ok outside':>11} {'recovery med ms':>16}")
for wait in (0, 1, 2):
    invalid, unsafe, inside, outside, recovery = 0, [], [], [], []
    for path in glob.glob(f"{store}/wait{wait}-seed*/*/results.json"):
        r = json.load(open(path))
        n = sum(1 for a in r.get("anomalies", []) if a.get("class") == "unsafe-grant")
        unsafe.append(n)
        invalid += n > 0
        a = r["stats"]["availability"]["stats"]
        if a["inside_faults"]["availability"] is not None:
            inside.append(a["inside_faults"]["availability"])
        if a["outside_faults"]["availability"] is not None:
            outside.append(a["outside_faults"]["availability"])
        recovery += [w["recovery_ms"] for w in a["windows"] if w["recovery_ms"] is not None]
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    print(f"{'wait ' + str(wait):<12} {f'{invalid}/{len(unsafe)}':>9} {med(unsafe):>15.0f} "
          f"{max(unsafe, default=0):>5} {100 * med(inside):>12.1f}% {100 * med(outside):>10.1f}% "
          f"{med(recovery):>16.0f}")
PY
