#!/usr/bin/env bash
# The integration tests under load: runs `ctest -L integration` K times, each
# round beside a CPU load (busy loops at the tests' own priority, one per core
# by default, so the tests get about half the machine), and prints each
# test's failure rate over the rounds, the tests that failed at least once
# first. A test that fails here fails on a loaded CI machine sooner or later:
# it asserts a timing margin, not a mechanism it can see.
#
# Reads each round's results from ctest's JUnit output (build/flake/round-K.xml,
# kept with each round's log), so nothing depends on the console's wording.
# Needs a build with the test targets (scripts/setup.sh --tests) and root, as
# the integration tests do.
#
# Exit 0 when no test failed in any round, 1 when one did, 130 interrupted
# (the load is stopped and ctest passed the signal), 254 bad usage.
#
# usage: scripts/flake-integration.sh [--rounds K] [--load N] [--jobs J]
#          [--build DIR] [-- CTEST FLAGS...]
#   --rounds K   rounds of the whole selection (default 3)
#   --load N     busy loops beside the tests (default: the number of cores;
#                0 runs unloaded)
#   --jobs J     ctest's -j (default: twice the number of cores, as scripts/test.sh)
#   --build DIR  the build directory (default build/)
#   CTEST FLAGS  narrow the selection, e.g. -- -R 'Redis|Etcd'
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: $0 [--rounds K] [--load N] [--jobs J] [--build DIR] [-- CTEST FLAGS...]"
rounds=3 load=$(nproc) jobs=$((2 * $(nproc))) build=build
ctest_flags=()
positive_int() { [[ $2 =~ ^[0-9]+$ ]] || { echo "flake: $1 takes a whole number, not '$2'" >&2; exit 254; }; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds|--load|--jobs|--build)
      [[ $# -ge 2 ]] || { echo "flake: $1 needs a value" >&2; exit 254; }
      case "$1" in
        --rounds) positive_int "$1" "$2"; rounds=$2 ;;
        --load) positive_int "$1" "$2"; load=$2 ;;
        --jobs) positive_int "$1" "$2"; jobs=$2 ;;
        --build) build=$2 ;;
      esac
      shift 2 ;;
    --) shift; ctest_flags=("$@"); break ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "flake: unknown argument '$1'; $usage" >&2; exit 254 ;;
  esac
done
((rounds >= 1)) || { echo "flake: --rounds must be at least 1" >&2; exit 254; }
((jobs >= 1)) || { echo "flake: --jobs must be at least 1" >&2; exit 254; }
[[ -f $build/CTestTestfile.cmake ]] || { echo "flake: $build is not a configured build directory" >&2; exit 254; }

out=$build/flake
mkdir -p "$out"
rm -f "$out"/round-*.xml "$out"/round-*.log

load_pids=()
stop_load() {
  ((${#load_pids[@]})) && kill "${load_pids[@]}" 2>/dev/null || true
  ((${#load_pids[@]})) && wait "${load_pids[@]}" 2>/dev/null || true
  load_pids=()
}
trap 'stop_load; exit 130' INT TERM
trap stop_load EXIT

for ((round = 1; round <= rounds; round++)); do
  for ((i = 0; i < load; i++)); do
    # A busy loop of the shell's own: no package, no output, killed by pid.
    (while :; do :; done) &
    load_pids+=($!)
  done
  start=$SECONDS
  echo "flake: round $round of $rounds: ctest -L integration -j$jobs beside $load busy loops"
  # A failing test is what this script measures, not a reason to stop.
  ctest --test-dir "$build" -L integration -j"$jobs" --timeout 600 \
    --output-junit "flake/round-$round.xml" "${ctest_flags[@]}" >"$out/round-$round.log" 2>&1 || true
  stop_load
  echo "flake: round $round took $((SECONDS - start)) s ($(grep -c 'Test *#' "$out/round-$round.log" || true) tests)"
done

# Each test's outcome per round, from the JUnit files; rate = failed / ran.
/usr/bin/python3 - "$out" "$rounds" <<'EOF'
import sys, xml.etree.ElementTree as ET
out, rounds = sys.argv[1], int(sys.argv[2])
ran, failed, seconds = {}, {}, {}
for r in range(1, rounds + 1):
    try:
        root = ET.parse(f"{out}/round-{r}.xml").getroot()
    except (OSError, ET.ParseError) as e:
        print(f"flake: round {r} left no readable results ({e})", file=sys.stderr)
        sys.exit(1)
    for case in root.iter("testcase"):
        # ctest names a parameterised case with its parameter's bytes after
        # "  # GetParam() = "; the name before it says which case it is.
        name = case.get("name").split("  # GetParam()")[0]
        seconds[name] = seconds.get(name, 0.0) + float(case.get("time") or 0)
        if case.get("status") == "notrun" or case.find("skipped") is not None:
            continue
        ran[name] = ran.get(name, 0) + 1
        if case.find("failure") is not None or case.find("error") is not None:
            failed[name] = failed.get(name, 0) + 1
flaky = sorted(failed, key=lambda n: (-failed[n] / ran[n], n))
print(f"{'failed':>8}  {'rate':>6}  test")
for name in flaky:
    print(f"{failed[name]:>3} of {ran[name]:<2}  {failed[name] / ran[name]:>6.0%}  {name}")
longest = sorted(seconds, key=lambda n: -seconds[n])[:10]
print("the longest (mean seconds a round):")
for name in longest:
    print(f"{seconds[name] / rounds:>8.1f}  {name}")
print(f"flake: {len(ran)} tests, {len(flaky)} failed at least once in {rounds} rounds")
sys.exit(1 if flaky else 0)
EOF
