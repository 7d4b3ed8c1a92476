#!/usr/bin/env bash
# How often library scenarios show their predicted verdict: each named
# scenario (scenarios/NAME.json) run on seeds 1..SEEDS, one after another, by
# `locksmith run --config`; prints per seed the exit code (0 valid, 1 invalid,
# 2 unknown), how many anomalies of the predicted kind the run found and its
# fault ledger's line, then
# per scenario "k of SEEDS invalid" beside its prediction. The figures of
# docs/debate.md's rows 5, 9 and 10 come from it. Needs root (network
# namespaces); about 10-20 s a run.
#
# usage: scripts/research-scenario-rates.sh [-b build-dir] [-n SEEDS] NAME...
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
seeds=10
while getopts "b:n:" flag; do
  case $flag in
    b) build=$OPTARG ;;
    n) seeds=$OPTARG ;;
    *) echo "usage: $0 [-b build-dir] [-n SEEDS] NAME..." >&2; exit 254 ;;
  esac
done
shift $((OPTIND - 1))
(($# > 0)) || { echo "usage: $0 [-b build-dir] [-n SEEDS] NAME..." >&2; exit 254; }
locksmith=$(realpath "$build/locksmith")
((EUID == 0)) || { echo "research-scenario-rates.sh needs root (network namespaces)" >&2; exit 254; }
store=$(mktemp -d)
trap 'rm -rf "$store"' EXIT
for name in "$@"; do
  file=$(realpath "scenarios/$name.json")
  [[ -f "$file" ]] || { echo "no scenario $name (scenarios/$name.json)" >&2; exit 254; }
  kind=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("predicted_anomaly", "anomalies"))' "$file")
  verdict=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["predicted_verdict"])' "$file")
  invalid=0
  for ((seed = 1; seed <= seeds; ++seed)); do
    code=0
    "$locksmith" run --config "$file" --seed "$seed" --store "$store/$name-$seed" \
      >"$store/$name-$seed.out" 2>&1 || code=$?
    results=$(ls -d "$store/$name-$seed"/*/*/results.json 2>/dev/null | head -1)
    shown=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); k = sys.argv[2]
print(sum(1 for a in r["anomalies"] if k == "anomalies" or k in (a.get("class"), a.get("type"))))' \
      "$results" "$kind" 2>/dev/null || echo "?")
    faults=$(grep -m1 '^faults:' "$store/$name-$seed.out" | sed 's/^faults: *//')
    echo "$name seed $seed: exit $code, $shown $kind; $faults"
    ((code == 1)) && invalid=$((invalid + 1))
  done
  echo "$name: $invalid of $seeds invalid (predicted $verdict)"
done
