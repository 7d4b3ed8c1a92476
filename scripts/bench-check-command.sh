#!/usr/bin/env bash
# `scripts/bench-checker.sh --porcupine`: the `locksmith check` command on
# Porcupine's kv histories and its start-up; `--knossos`: on Knossos's
# cas-register histories (see bench-checker.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
rounds=5
startup_only=false
knossos=false
against=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --startup) startup_only=true; shift ;;
    --knossos) knossos=true; shift ;;
    --against) against="$2"; shift 2 ;;
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
# The commit of the tree the binary was built from (LOCKSMITH_BIN may be
# another worktree's), "-dirty" when it has changes not committed.
source_dir="$(sed -n 's/^CMAKE_HOME_DIRECTORY:[A-Z]*=//p' "$cache" 2>/dev/null || true)"
commit="$(git -C "${source_dir:-$root}" describe --always --dirty --abbrev=7 2>/dev/null || echo unknown)"
echo "date $(date -u +%Y-%m-%dT%H:%MZ), commit $commit, build ${type:-unknown} ($bin)," \
  "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

ms_now() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
instructions() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
data="$root/checker/testdata/porcupine-kv"

# `check` of a one-op history: the process's start-up and little else.
startup() {
  local one
  one="$(mktemp)"
  head -2 "$data/c01-ok.txt" >"$one"
  if command -v valgrind >/dev/null; then
    echo "one-op check: $(instructions "$bin" check "$one" --model kv) instructions (callgrind)"
  fi
  if perf stat -x, -e task-clock true >/dev/null 2>&1; then
    cpu=$(perf stat -x, -r 20 -e task-clock "$bin" check "$one" --model kv 2>&1 >/dev/null |
      awk -F, '/task-clock/ {printf "%.2f", $1}')
    echo "one-op check: $cpu ms of CPU (perf stat task-clock, mean of 20)"
  fi
  local times=()
  for ((r = 0; r < 20; r++)); do
    start=$(date +%s%N)
    "$bin" check "$one" --model kv >/dev/null
    times+=($(( ($(date +%s%N) - start) / 1000 )))
  done
  echo "one-op check: $(printf '%s\n' "${times[@]}" | sort -n | head -1) us wall best of 20," \
    "$(printf '%s\n' "${times[@]}" | median) us median (load average" \
    "$(cut -d' ' -f1-3 /proc/loadavg))"
  rm -f "$one"
}
if $startup_only; then
  startup
  exit 0
fi
if [[ -n "$against" ]]; then
  source "$here/bench/porcupine_side_by_side.sh"
  porcupine_side_by_side "$against"
  exit
fi
if $knossos; then
  source "$here/bench/knossos_histories.sh"
  knossos_histories "$root/checker/testdata/knossos-cas-register"
  exit 0
fi
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

if command -v valgrind >/dev/null; then
  echo "c50-ok check: $(instructions "$bin" check "$data/c50-ok.txt" --model kv) instructions"
fi
startup
