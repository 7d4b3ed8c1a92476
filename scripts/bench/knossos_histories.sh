# Sourced by bench-check-command.sh (`scripts/bench-checker.sh --knossos`):
# `locksmith check FILE --model cas-register --initial 0` of every history of
# Knossos's data/cas-register (DIR/good: valid, DIR/bad: invalid, as Knossos's
# core_test asserts with (cas-register 0)), each file the best and the median
# wall time of $rounds processes, as the Porcupine histories are timed; then
# the sums, the verdicts against the known ones and the instructions of the
# check of the file whose search explores the most states. Needs $bin, $rounds, median and instructions.
knossos_histories() {
  local dir="$1" agree=0 disagree=0 vacuous=0 files=0 best_sum=0 median_sum=0 search_us=0
  local most="" most_states=-1 vacuous_names="" wrong=""
  printf '%-38s %-8s %-8s %8s %10s %10s %9s\n' history expected verdict states "best us" \
    "median us" "search s"
  for expected in valid invalid; do
    local sub=good
    [[ "$expected" == invalid ]] && sub=bad
    for file in "$dir/$sub"/*.edn; do
      local times=() out=""
      for ((r = 0; r < rounds; r++)); do
        start=$(date +%s%N)
        out="$("$bin" check "$file" --model cas-register --initial 0 || true)"
        times+=($(( ($(date +%s%N) - start) / 1000 )))
      done
      local best med verdict states search name
      best=$(printf '%s\n' "${times[@]}" | sort -n | head -1)
      med=$(printf '%s\n' "${times[@]}" | median)
      verdict=$(head -1 <<<"$out" | sed 's/valid: \([a-z]*\).*/\1/')
      [[ "$verdict" == true ]] && verdict=valid
      [[ "$verdict" == false ]] && verdict=invalid
      states=$(sed -n 's/.* \([0-9]*\) states explored.*/\1/p' <<<"$out")
      # The search's own time, as the verdict says it (ms resolution).
      search=$(sed -n 's/.* states explored in \([0-9.]*\) s.*/\1/p' <<<"$out")
      search_us=$((search_us + $(awk -v s="${search:-0}" 'BEGIN {printf "%d", s * 1e6}')))
      name="$sub/$(basename "$file")"
      printf '%-38s %-8s %-8s %8s %10s %10s %9s\n' "$name" "$expected" "$verdict" "${states:-?}" \
        "$best" "$med" "${search:-?}"
      files=$((files + 1))
      best_sum=$((best_sum + best))
      median_sum=$((median_sum + med))
      if ((${states:-0} > most_states)); then most_states=${states:-0}; most="$file"; fi
      if [[ "$verdict" == "$expected" ]]; then
        agree=$((agree + 1))
      elif [[ "$verdict" == unknown && "$out" == *"no client operation succeeded"* ]]; then
        # Knossos calls a history with no completed op valid; locksmith says
        # that nothing was judged.
        vacuous=$((vacuous + 1))
        vacuous_names+=" $name"
      else
        disagree=$((disagree + 1))
        wrong+=" $name"
      fi
    done
  done
  echo "$files histories: sum of best times $((best_sum / 1000)) ms, of medians" \
    "$((median_sum / 1000)) ms, of the searches (last round) $((search_us / 1000)) ms" \
    "(load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo "verdicts: $agree as known, $disagree not${wrong:+ (${wrong# })}, $vacuous unknown with" \
    "no client op completed (valid for Knossos: nothing to refute)${vacuous_names:+:$vacuous_names}"
  if command -v valgrind >/dev/null && [[ -n "$most" ]]; then
    echo "the most states ($most_states), $(basename "$most"): $(instructions "$bin" check \
      "$most" --model cas-register --initial 0) instructions (callgrind)"
  fi
  ((disagree == 0))
}
