#!/usr/bin/env bash
# The trend page (`locksmith trend`) of NIGHTS x CELLS (default 100 nights x
# 50 cells, 10 runs a cell a night): builds trend_bench in Release, which
# prints how long building the page took and its size, then loads a copy of
# the page with a measuring script appended in headless Chromium (Debian's
# chromium) and prints, median of RUNS loads (default 3):
#   frame_ms  performance.now() at the page's first animation frame (ms since
#             navigation start: the page has no script of its own)
#   fcp_ms    the browser's first-contentful-paint, when it reports one
#   wall_s    the whole chromium process, start-up and teardown included
# Targets: first frame under 1 s, page under 5 MB at 100 x 50.
# Usage: scripts/bench-trend.sh [NIGHTS] [CELLS]
#   TREND_BENCH=path/to/trend_bench uses a trend_bench already built.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-build.sh"
command -v chromium >/dev/null ||
  { echo "missing chromium (scripts/setup.sh --tests installs it)" >&2; exit 254; }
nights=${1:-100} cells=${2:-50} runs=${RUNS:-3}
if [[ -n ${TREND_BENCH:-} ]]; then
  bench=$TREND_BENCH
else
  bench_build trend_bench
  bench=$build/reports/trend_bench
fi
work=$(mktemp -d /tmp/locksmith-bench-trend.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$bench" "$work/trend.html" "$nights" "$cells"
measure='<script>requestAnimationFrame(() => {
  document.documentElement.dataset.firstFrameMs = Math.round(performance.now());
  setTimeout(() => {
    const fcp = performance.getEntriesByName("first-contentful-paint")[0];
    if (fcp) document.documentElement.dataset.fcpMs = Math.round(fcp.startTime);
  }, 0);
});</script>'
sed "s|</body>|${measure//$'\n'/ }</body>|" "$work/trend.html" >"$work/measured.html"
results=()
for ((i = 0; i < runs; i++)); do
  start=$(date +%s%N)
  dom=$(timeout 300 chromium --headless=new --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/profile" --window-size=1400,1000 \
    --dump-dom "file://$work/measured.html" 2>/dev/null | head -c 4096)
  end=$(date +%s%N)
  frame=$(grep -o 'data-first-frame-ms="[0-9]*"' <<<"$dom" | grep -o '[0-9]*' || echo "-")
  fcp=$(grep -o 'data-fcp-ms="[0-9]*"' <<<"$dom" | grep -o '[0-9]*' || echo "-")
  results+=("$frame $fcp $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", (b - a) / 1e9}')")
done
median() { sort -n | awk '{v[NR] = $1} END {if (NR == 0 || v[1] == "-") print "-"; else print v[int((NR + 1) / 2)]}'; }
echo "first frame in headless chromium ($(chromium --version 2>/dev/null | head -1)), median of $runs loads"
printf '%-12s %10s %10s %10s\n' page frame_ms fcp_ms wall_s
printf '%-12s %10s %10s %10s\n' "${nights}x${cells}" \
  "$(printf '%s\n' "${results[@]}" | awk '{print $1}' | median)" \
  "$(printf '%s\n' "${results[@]}" | awk '{print $2}' | median)" \
  "$(printf '%s\n' "${results[@]}" | awk '{print $3}' | median)"
