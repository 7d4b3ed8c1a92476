#!/usr/bin/env bash
# `locksmith merge` at nightly scale: SHARDS shard directories holding RUNS
# runs in all (default 10 x 100 = 1,000), each run a copy of one real run's
# directory (a 1 s Redis run, no faults, made here first), each shard's
# summary.json and shard.json as `locksmith suite --shard` writes them.
# Prints the merge's wall time with the output on the shards' file system
# (every run's files hard-linked) and, when /dev/shm is another file system,
# on it (every file copied). Target: 1,000 runs' summaries merged in under
# 5 s. Needs root (the one real run's namespaces).
#
# usage: scripts/bench-merge.sh [--binary PATH]    (default: a Release build in build-bench/)
#   env: RUNS (default 1000), SHARDS (default 10)
set -euo pipefail

binary=""
if [[ "${1:-}" == "--binary" ]]; then binary=$2; shift 2; fi
runs=${RUNS:-1000}
shards=${SHARDS:-10}
if [[ -z "$binary" ]]; then
  source "$(dirname "${BASH_SOURCE[0]}")/bench-build.sh"
  bench_build locksmith
  binary="$build/locksmith"
else
  echo "$binary on $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
fi
[[ -x "$binary" ]] || { echo "missing $binary" >&2; exit 254; }
((EUID == 0)) || { echo "bench-merge.sh needs root (network namespaces)" >&2; exit 254; }

dir=$(mktemp -d /var/tmp/locksmith-bench-merge.XXXXXX)
shm=""
trap 'rm -rf "$dir" ${shm:+"$shm"}' EXIT
trap 'exit 130' INT TERM

# One real shard of one real run: the run directory every fixture run copies.
cat > "$dir/one.json" <<'JSON'
{"description": "bench-merge.sh: one run to copy", "seed": 1,
 "base": {"backend": "redis", "nemesis": "none", "concurrency": 2, "time_limit_s": 1},
 "cells": [{"name": "c"}]}
JSON
"$binary" suite "$dir/one.json" --shard 1/1 --store "$dir/real" >"$dir/real.out" 2>&1 ||
  { cat "$dir/real.out"; exit 255; }
real=$(dirname "$(find "$dir/real/suites" -name shard.json)")

/usr/bin/python3 - "$real" "$dir/shards" "$runs" "$shards" <<'PY'
import copy, json, os, shutil, sys
real, root, runs, shards = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
summary = json.load(open(os.path.join(real, "summary.json")))
plan = json.load(open(os.path.join(real, "shard.json")))
row = summary["runs"][0]
cells = ["cell%03d" % c for c in range(runs // 10)]
for i in range(1, shards + 1):
    d = os.path.join(root, "shard-%d" % i)
    os.makedirs(d)
    mine = [(n, cells[n // 10], n % 10) for n in range(runs) if n % shards == i - 1]
    rows, planned = [], []
    for n, cell, repeat in mine:
        r = copy.deepcopy(row)
        r.update(cell=cell, repeat=repeat, seed=n + 1, dir="%s/run-%d" % (cell, repeat),
                 exit_code=1 if n % 3 == 0 else 0, verdict="invalid" if n % 3 == 0 else "valid")
        shutil.copytree(os.path.join(real, row["dir"]), os.path.join(d, r["dir"]))
        rows.append(r)
        planned.append({"cell": cell, "repeat": repeat, "seed": n + 1, "planned_s": 5.0})
    s = dict(summary, planned_runs=len(rows), completed_runs=len(rows), runs=rows)
    json.dump(s, open(os.path.join(d, "summary.json"), "w"))
    p = dict(plan, shard={"index": i, "total": shards}, suite_runs=runs, cells=cells, runs=planned)
    json.dump(p, open(os.path.join(d, "shard.json"), "w"))
PY
echo "$runs runs in $shards shards, $(du -sh "$dir/shards" | cut -f1) on disk (one run's directory: $(du -sh "$real/c" | cut -f1))"

merge() {  # OUT WHAT: prints the merge's wall time
  local start end code=0
  start=$EPOCHREALTIME
  "$binary" merge "$1" "$dir"/shards/shard-* >"$dir/merge.out" 2>&1 || code=$?
  end=$EPOCHREALTIME
  ((code <= 3)) || { cat "$dir/merge.out" >&2; exit 255; }
  awk -v a="$start" -v b="$end" -v what="$2" 'BEGIN { printf "merge, %s: %.2f s\n", what, b - a }'
}
merge "$dir/linked" "output beside the shards (files hard-linked)"
if [[ -d /dev/shm && $(stat -c %d /dev/shm) != $(stat -c %d "$dir") ]]; then
  shm=$(mktemp -d /dev/shm/locksmith-bench-merge.XXXXXX)
  merge "$shm/out" "output on another file system (files copied)"
fi
head -1 "$dir/merge.out"
