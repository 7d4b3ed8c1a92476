#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time under AddressSanitizer and
# UndefinedBehaviorSanitizer: the history parsers (Jepsen EDN and log lines,
# history.jsonl, a run's history.bin) and the readers of the JSON files locksmith takes from
# others (config, suite and scenario files, a run's results.json, a suite's
# summary.json), the files it reads back and acts on (a run-registry record, a
# run's controller.json), and the lines a user's lock-client program writes back
# (the exec protocol). Each target starts from its seed corpus in the repository
# (<layer>/fuzz/corpus/<name>/) and the project's own fixtures; what it finds
# new stays under build-fuzz/corpus/. A crash, a sanitizer report, a leak or
# a timeout fails the script; the input that caused it is kept under
# build-fuzz/artifacts/ and the fuzzer's log under build-fuzz/logs/.
#
# Only the targets and the sources they fuzz are compiled with clang and the
# sanitizers (build-fuzz/); the rest of locksmith links from the regular
# build (build/, brought up to date here), so the whole run fits CI's budget.
#   scripts/fuzz.sh                         every target, 16 s each
#   FUZZ_SECONDS=600 scripts/fuzz.sh summary_json_fuzz
# Needs clang and its sanitizer runtimes (Debian 12: clang, libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-16}"
jobs="${FUZZ_JOBS:-$(nproc)}"

# Each target and the seed directories it starts from (the first is its own).
targets=(
  "history_jsonl_fuzz history/fuzz/corpus/history_jsonl"
  "history_log_fuzz history/fuzz/corpus/history_log"
  "edn_history_fuzz history/fuzz/corpus/edn"
  "jepsen_log_fuzz history/fuzz/corpus/jepsen_log"
  "exec_protocol_fuzz backends/fuzz/corpus/exec"
  "run_record_fuzz cluster/fuzz/corpus/run_record"
  "controller_json_fuzz cluster/fuzz/corpus/controller"
  "results_json_fuzz reports/fuzz/corpus/results"
  "summary_json_fuzz reports/fuzz/corpus/summary"
  "config_json_fuzz harness/fuzz/corpus/config scenarios"
  "suite_json_fuzz harness/fuzz/corpus/suite suites"
  "scenario_json_fuzz harness/fuzz/corpus/scenario scenarios"
)
if [ "$#" -gt 0 ]; then
  wanted=()
  for name in "$@"; do
    found=""
    for t in "${targets[@]}"; do [ "${t%% *}" = "$name" ] && found="$t"; done
    [ -n "$found" ] || { echo "fuzz.sh: no target $name" >&2; exit 2; }
    wanted+=("$found")
  done
  targets=("${wanted[@]}")
fi

if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ is missing (Debian 12: apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

# The regular build the targets link against, configured as setup.sh does.
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOCKSMITH_WERROR=ON "${launcher[@]}"
fi
nice cmake --build build -j"$jobs" --target locksmith_harness
# -O1 and line tables: what a sanitizer needs for its reports, quick to build.
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DLOCKSMITH_FUZZ=ON \
  -DLOCKSMITH_FUZZ_LIBRARIES_FROM="$PWD/build" "${launcher[@]}" >/dev/null
built=()
for t in "${targets[@]}"; do built+=("${t%% *}"); done
nice cmake --build build-fuzz -j"$jobs" --target "${built[@]}"

# One target: its own corpus grows in build-fuzz/corpus/NAME; the seeds are
# read, never written.
fuzz_one() {
  local name="$1"; shift
  local corpus="build-fuzz/corpus/$name" artifacts="build-fuzz/artifacts/$name/"
  mkdir -p "$corpus" "$artifacts" build-fuzz/logs
  if build-fuzz/fuzz/"$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" "$@" \
      >"build-fuzz/logs/$name.log" 2>&1; then
    echo "fuzz: $name: $(grep -o 'stat::number_of_executed_units: *[0-9]*' \
      "build-fuzz/logs/$name.log" | grep -o '[0-9]*$') inputs in $seconds s, no failure"
  else
    echo "fuzz: $name FAILED; its log, build-fuzz/logs/$name.log, ends:"
    tail -n 30 "build-fuzz/logs/$name.log"
    return 1
  fi
}

passed=0 failed=0 running=0
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for t in "${targets[@]}"; do
  # shellcheck disable=SC2086  # the seed directories are words
  (fuzz_one $t && echo pass >>"$results" || echo fail >>"$results") &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
passed=$(grep -c pass "$results" || true)
failed=$(grep -c fail "$results" || true)
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
