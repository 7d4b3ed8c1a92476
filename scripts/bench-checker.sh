#!/usr/bin/env bash
# Builds the linearizability checker's bench in Release and prints its
# figures: check time, states explored and peak memory per generated history
# (mutex and cas-register at 10k, 100k and 1M events), then batches of small
# Jepsen etcd-like cas-register histories full of timeouts; before them the
# inventory, counter and fencing checkers on generated 100k / 1M histories.
# Usage: scripts/bench-checker.sh [--quick]   (--quick skips the 1M cases)
#        scripts/bench-checker.sh DIR [--model M] [--initial JSON] [--timeout S]
#                                     [--repeat N] [--expect FILE]
#   times the check of every history file in DIR (Jepsen EDN, jepsen.util
#   logs, history.jsonl or a run's history.bin; default model cas-register,
#   initial nil): per file the load and check time, then average and max
#   with the load excluded and included. A file DIR/EXPECTED of "NAME valid|invalid" lines (or
#   --expect FILE) makes it compare each verdict with the expected one.
#        scripts/bench-checker.sh --porcupine [--rounds N] [--startup]
#   `locksmith check` of Porcupine's six kv histories (checker/testdata/
#   porcupine-kv): per file the verdict, states explored and the median
#   wall time of N processes (default 5), their sum, and with valgrind the
#   instructions of one check of c50-ok; then the start-up of `check` of a
#   one-op history: instructions (valgrind) and CPU time (perf stat) or the
#   median wall time (--startup: only the start-up). LOCKSMITH_BIN=PATH
#   uses that binary instead of building one. The first line names the
#   date, the commit the binary was built from and its build type.
#        scripts/bench-checker.sh --porcupine --against DIR [--rounds N]
#   Porcupine's own check (DIR: a checkout of Porcupine, timed by go test;
#   Debian's golang-go) of each of its etcd and kv histories beside
#   checker_bench's (CHECKER_BENCH=PATH or a Release build), the check alone,
#   best of N each: per file both times, their ratio and both verdicts, then
#   the files below 1.0 and each family's sums.
#        scripts/bench-checker.sh --knossos [--rounds N]
#   the same for Knossos's cas-register histories (checker/testdata/
#   knossos-cas-register: good/ valid, bad/ invalid, initial value 0): per
#   file the verdict against the known one, states, the best and median wall
#   time of N processes; their sums and the instructions of the check that
#   explores the most states.
#   Knossos itself is not run: it needs a JVM and four libraries from Clojars
#   and Maven Central that Debian does not ship.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/bench-build.sh"
if [[ "${1:-}" == --porcupine ]]; then
  exec "$here/bench-check-command.sh" "${@:2}"
fi
if [[ "${1:-}" == --knossos ]]; then
  exec "$here/bench-check-command.sh" "$@"
fi
bench_build checker_bench
if [[ $# -gt 0 && -d "$1" ]]; then
  dir="$1"
  shift
  exec "$build/checker/checker_bench" --dir "$dir" "$@"
fi
# The inventory, counter and fencing checkers on generated 1M-event histories.
if [[ "${1:-}" != --* || "${1:-}" == --quick ]]; then
  bench_build resource_checker_bench && "$build/checker/resource_checker_bench" "$@"
fi
exec "$build/checker/checker_bench" "$@"
