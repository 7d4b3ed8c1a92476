# Sourced by bench-check-command.sh (`scripts/bench-checker.sh --porcupine
# --against DIR`): Porcupine's own check of its etcd and kv histories beside
# locksmith's, per file. DIR is a checkout of Porcupine
# (github.com/anishathalye/porcupine): it is copied to a temporary directory
# with porcupine_timing_test.go beside its tests and timed with `go test`
# (its etcdModel, kvModel and parsers; Go from Debian's golang-go, no module
# downloaded); locksmith's side is checker_bench --dir on the same files
# (CHECKER_BENCH=PATH, or a Release build). Both sides: the check alone,
# loading excluded, best of $rounds, one side right after the other. Prints
# per file both times, the ratio (Porcupine's time / locksmith's: above 1.0,
# locksmith is faster) and both verdicts; then the files below 1.0, the
# smallest ratio and the sums of each family.
porcupine_side_by_side() {
  local porcupine="$1" work checker
  [[ -f "$porcupine/porcupine_test.go" && -d "$porcupine/test_data" ]] || {
    echo "bench-checker.sh --porcupine --against: $porcupine is no checkout of Porcupine" >&2
    return 254
  }
  command -v go >/dev/null || { echo "--against needs go (Debian's golang-go)" >&2; return 127; }
  checker="${CHECKER_BENCH:-}"
  if [[ -z "$checker" ]]; then
    source "$here/bench-build.sh"
    bench_build checker_bench >/dev/null
    checker="$build/checker/checker_bench"
  fi
  work="$(mktemp -d)"
  cp -r "$porcupine/." "$work/porcupine"
  cp "$here/bench/porcupine_timing_test.go" "$work/porcupine/"
  echo "Porcupine $(git -C "$porcupine" describe --always --dirty 2>/dev/null || echo unknown)," \
    "$(go version | cut -d' ' -f3), checker_bench $checker"
  (cd "$work/porcupine" && GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOCACHE="$work/cache" \
    LOCKSMITH_ROUNDS="$rounds" go test -count=1 -v -run TestLocksmithTiming . |
    awk '/^TIMING / {print $2, $3, $4}') >"$work/porcupine.txt"
  for family in jepsen:cas-register kv:kv; do
    "$checker" --dir "$porcupine/test_data/${family%%:*}" --model "${family#*:}" \
      --repeat "$rounds" || true
  done | awk -F'|' 'NF > 7 && $2 ~ /\./ {
      gsub(/ /, "", $2); gsub(/ /, "", $4); gsub(/ /, "", $7); print $2, $4, $7 / 1000 }' \
    >"$work/locksmith.txt"
  echo "load average after both sides: $(cut -d' ' -f1-3 /proc/loadavg)"
  awk 'NR == FNR { p[$1] = $3; pv[$1] = $2; next }
    {
      name = $1; family = name ~ /^etcd/ ? "etcd" : "kv"
      ratio = $3 > 0 ? p[name] / $3 : 0
      printf "%-14s porcupine %10.3f ms %-8s locksmith %10.3f ms %-8s ratio %7.2f\n",
        name, 1e3 * p[name], pv[name], 1e3 * $3, $2, ratio
      psum[family] += p[name]; lsum[family] += $3
      if (ratio < 1) { below = below " " name; nbelow++ }
      if (min == "" || ratio < min) { min = ratio; minname = name }
      if (pv[name] != $2) mismatch = mismatch " " name "(" pv[name] "/" $2 ")"
    }
    END {
      for (f in psum) printf "%s: porcupine %.3f ms, locksmith %.3f ms in all, ratio %.2f\n",
        f, 1e3 * psum[f], 1e3 * lsum[f], psum[f] / lsum[f]
      printf "below 1.0: %d%s; smallest ratio %.2f (%s)\n", nbelow, below, min, minname
      printf "verdicts that differ (porcupine/locksmith):%s\n", mismatch == "" ? " none" : mismatch
    }' "$work/porcupine.txt" "$work/locksmith.txt"
  rm -rf "$work"
}
