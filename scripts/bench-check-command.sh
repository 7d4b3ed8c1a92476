#!/usr/bin/env bash
# `scripts/bench-checker.sh --porcupine`: the `locksmith check` command on
# Porcupine's kv histories and its start-up (see bench-checker.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
rounds=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    *) echo "bench-checker.sh --porcupine: unknown argument $1" >&2; exit 254 ;;
  esac
done
if [[ -n "${LOCKSMITH_BIN:-}" ]]; then
  bin="$LOCKSMITH_BIN"
else
  source "$here/bench-build.sh"
  bench_build locksmith
  bin="$build/locksmith"
fi
cache="$(dirname "$bin")/CMakeCache.txt"
type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$cache" 2>/dev/null || true)"
echo "date $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$root" rev-parse --short HEAD)," \
  "build ${type:-unknown} ($bin), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

ms_now() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
data="$root/checker/testdata/porcupine-kv"
total=0
printf '%-12s %-8s %10s %12s\n' history verdict states "median ms"
for name in c01-ok c01-bad c10-ok c10-bad c50-ok c50-bad; do
  times=()
  for ((r = 0; r < rounds; r++)); do
    start=$(ms_now)
    out="$("$bin" check "$data/$name.txt" --model kv || true)"
    times+=($(( $(ms_now) - start )))
  done
  med=$(printf '%s\n' "${times[@]}" | median)
  total=$((total + med))
  verdict=$(head -1 <<<"$out" | sed 's/valid: \([a-z]*\).*/\1/')
  states=$(sed -n 's/.* \([0-9]*\) states explored.*/\1/p' <<<"$out")
  printf '%-12s %-8s %10s %12s\n' "$name" "$verdict" "$states" "$med"
done
echo "six histories, sum of medians: $total ms"

one="$(mktemp)"
trap 'rm -f "$one"' EXIT
head -2 "$data/c01-ok.txt" >"$one"
if command -v valgrind >/dev/null; then
  instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  echo "c50-ok check: $(instructions "$bin" check "$data/c50-ok.txt" --model kv) instructions"
  echo "one-op check: $(instructions "$bin" check "$one" --model kv) instructions"
fi
if perf stat -x, -e task-clock true >/dev/null 2>&1; then
  cpu=$(perf stat -x, -r 20 -e task-clock "$bin" check "$one" --model kv 2>&1 >/dev/null |
    awk -F, '/task-clock/ {printf "%.2f", $1}')
  echo "one-op check: $cpu ms of CPU (perf stat task-clock, mean of 20)"
fi
times=()
for ((r = 0; r < 20; r++)); do
  start=$(date +%s%N)
  "$bin" check "$one" --model kv >/dev/null
  times+=($(( ($(date +%s%N) - start) / 1000 )))
done
echo "one-op check: $(printf '%s\n' "${times[@]}" | median) us wall (median of 20)"
