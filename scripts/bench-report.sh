#!/usr/bin/env bash
# The per-run report at 10k, 100k and 1M history entries: builds report_bench
# in Release, which writes synthetic mutex runs (50 workers, 8 keys, a fault
# every 10 s taking turns: kill, partition, clock bump, client pause; three
# double-holder anomalies) and prints each report's render time and size;
# then loads every report.html in headless Chromium (Debian's chromium) and
# prints the time to first paint, median of RUNS loads (default 3):
#   page_ms   the page's own mark: performance.now() at its first animation
#             frame, after the data blob is parsed and the timeline, the fault
#             lanes and the plots are drawn (the report sets it on <html> as
#             data-first-paint-ms)
#   fcp_ms    the browser's first-contentful-paint (data-fcp-ms), when it
#             reports one
#   wall_s    the whole chromium process, start-up and teardown included
# Target: first paint under 2 s at 1M entries.
# Usage: scripts/bench-report.sh [--quick] [OUT_DIR]   (--quick: 10k and 100k)
#        scripts/bench-report.sh --run-dir RUN_DIR    (re-render a real run's
#                                                      report and load it)
#        scripts/bench-report.sh --load REPORT_HTML   (load a report as its
#                                                      run wrote it)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-build.sh"
command -v chromium >/dev/null ||
  { echo "missing chromium (scripts/setup.sh --tests installs it)" >&2; exit 254; }
runs=${RUNS:-3}
bench_build report_bench

work=$(mktemp -d /tmp/locksmith-bench-report.XXXXXX)
trap 'rm -rf "$work"' EXIT

# load REPORT: prints "page_ms fcp_ms wall_s" of one headless load.
load() {
  local start end dom page fcp
  start=$(date +%s%N)
  dom=$(timeout 300 chromium --headless=new --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/profile" --window-size=1280,1000 --virtual-time-budget=30000 \
    --dump-dom "file://$1" 2>/dev/null | head -c 4096)
  end=$(date +%s%N)
  page=$(grep -o 'data-first-paint-ms="[0-9]*"' <<<"$dom" | grep -o '[0-9]*' || echo "-")
  fcp=$(grep -o 'data-fcp-ms="[0-9]*"' <<<"$dom" | grep -o '[0-9]*' || echo "-")
  echo "$page $fcp $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", (b - a) / 1e9}')"
}

# median of the numbers on stdin ("-" when there are none)
median() {
  sort -n | awk '{v[NR] = $1}
    END {if (NR == 0 || v[1] == "-") print "-"; else print v[int((NR + 1) / 2)]}'
}

measure() {  # REPORT LABEL
  local report=$1 label=$2 results=()
  for ((i = 0; i < runs; i++)); do results+=("$(load "$report")"); done
  local page fcp wall size
  page=$(printf '%s\n' "${results[@]}" | awk '{print $1}' | median)
  fcp=$(printf '%s\n' "${results[@]}" | awk '{print $2}' | median)
  wall=$(printf '%s\n' "${results[@]}" | awk '{print $3}' | median)
  size=$(stat -c %s "$report")
  printf '%-10s %12s %10s %10s %10.1f\n' "$label" "$page" "$fcp" "$wall" \
    "$(awk -v s="$size" 'BEGIN {print s / 1e6}')"
}

if [[ "${1:-}" == --load ]]; then
  # A report as its run wrote it (a long run's, from its sample), not re-rendered.
  report=$(readlink -f "${2:?usage: scripts/bench-report.sh --load REPORT_HTML}")
  printf '%-10s %12s %10s %10s %10s\n' run page_ms fcp_ms wall_s html_MB
  measure "$report" "$(basename "$(dirname "$report")")"
  exit 0
fi
if [[ "${1:-}" == --run-dir ]]; then
  dir=$(cd "${2:?usage: scripts/bench-report.sh --run-dir RUN_DIR}" && pwd)
  "$build/reports/report_bench" --run-dir "$dir"
  printf '%-10s %12s %10s %10s %10s\n' run page_ms fcp_ms wall_s html_MB
  measure "$dir/report.html" "$(basename "$dir")"
  exit 0
fi

quick=()
out=/tmp/locksmith-report-bench
for arg in "$@"; do
  if [[ "$arg" == --quick ]]; then quick=(--quick); else out=$arg; fi
done
"$build/reports/report_bench" "${quick[@]}" "$out"
echo "first paint in headless chromium ($(chromium --version 2>/dev/null | head -1))," \
  "median of $runs loads"
printf '%-10s %12s %10s %10s %10s\n' ops page_ms fcp_ms wall_s html_MB
for dir in "$out"/ops-*; do
  [[ -f "$dir/report.html" ]] || continue
  measure "$dir/report.html" "${dir##*/ops-}"
done
