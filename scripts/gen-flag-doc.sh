#!/usr/bin/env bash
# Rewrites the run flag reference of docs/running.md, the lines between
# "<!-- flags:begin -->" and "<!-- flags:end -->", from the binary's own
# declarations (`locksmith run --help-markdown`). tests/run_cli_test.cc fails
# while the two differ; run this after adding or changing an option.
#
#   scripts/gen-flag-doc.sh [BINARY]    (default: build/locksmith)
set -euo pipefail
cd "$(dirname "$0")/.."

binary="${1:-build/locksmith}"
doc=docs/running.md
begin='<!-- flags:begin -->'
end='<!-- flags:end -->'

if [[ ! -x $binary ]]; then
  echo "gen-flag-doc: no locksmith binary at $binary (build it: cmake --build build --target locksmith)" >&2
  exit 254
fi
if [[ $(grep -cxF -- "$begin" "$doc") != 1 || $(grep -cxF -- "$end" "$doc") != 1 ]]; then
  echo "gen-flag-doc: $doc must hold the lines '$begin' and '$end' once each" >&2
  exit 254
fi

table="$(mktemp)"
trap 'rm -f "$table" "$doc.new"' EXIT
"$binary" run --help-markdown >"$table"

# The table goes between the markers with a blank line on each side, so
# Markdown renders it as a table of its own.
awk -v begin="$begin" -v end="$end" -v table="$table" '
  $0 == begin { print; print ""; while ((getline line < table) > 0) print line; print ""; skip = 1; next }
  $0 == end { skip = 0 }
  !skip { print }
' "$doc" >"$doc.new"
mv "$doc.new" "$doc"
echo "gen-flag-doc: $doc: $(($(wc -l <"$table") - 2)) flag rows"
