#include "harness/delta_debugger.h"

#include <algorithm>

namespace locksmith {
namespace {

// `set` cut into `parts` runs of nearly equal length, in order.
std::vector<std::vector<size_t>> SplitInto(const std::vector<size_t>& set, size_t parts) {
  std::vector<std::vector<size_t>> out;
  size_t start = 0;
  for (size_t i = 0; i < parts; ++i) {
    const size_t end = start + (set.size() - start) / (parts - i);
    out.emplace_back(set.begin() + static_cast<std::ptrdiff_t>(start),
                     set.begin() + static_cast<std::ptrdiff_t>(end));
    start = end;
  }
  return out;
}

std::vector<size_t> Without(const std::vector<size_t>& set, const std::vector<size_t>& part) {
  std::vector<size_t> rest;
  std::set_difference(set.begin(), set.end(), part.begin(), part.end(), std::back_inserter(rest));
  return rest;
}

}  // namespace

Trial DeltaDebugger::Test(const std::vector<size_t>& subset) {
  if (auto it = answers_.find(subset); it != answers_.end()) return it->second;
  const Trial trial = oracle_(subset);
  ++tested_;
  // Out of budget is no answer: asking again later is asking for the first time.
  if (trial != Trial::kOutOfBudget) answers_[subset] = trial;
  return trial;
}

DeltaDebugger::Outcome DeltaDebugger::Minimize(size_t n) {
  Outcome outcome;
  for (size_t i = 0; i < n; ++i) outcome.kept.push_back(i);
  size_t parts = 2;
  while (outcome.kept.size() >= 2) {
    parts = std::min(parts, outcome.kept.size());
    const std::vector<std::vector<size_t>> split = SplitInto(outcome.kept, parts);
    std::vector<std::vector<size_t>> candidates = split;  // the parts, then their complements
    // With two parts each complement is the other part.
    if (parts > 2) {
      for (const auto& part : split) candidates.push_back(Without(outcome.kept, part));
    }
    bool reduced = false;
    for (size_t c = 0; c < candidates.size() && !reduced; ++c) {
      const Trial trial = Test(candidates[c]);
      if (trial == Trial::kOutOfBudget) {
        outcome.complete = false;
        outcome.tested = tested_;
        return outcome;
      }
      if (trial != Trial::kReproduced) continue;
      outcome.kept = candidates[c];
      // A part: start over in halves; a complement: one part fewer.
      parts = c < split.size() ? 2 : std::max<size_t>(parts - 1, 2);
      reduced = true;
    }
    if (reduced) continue;
    if (parts >= outcome.kept.size()) break;  // every single element was tried
    parts = std::min(parts * 2, outcome.kept.size());
  }
  outcome.tested = tested_;
  return outcome;
}

Bisection BisectShortest(int64_t lo, int64_t hi, int64_t resolution,
                         const std::function<Trial(int64_t value)>& oracle) {
  Bisection out{hi, true, 0};
  if (resolution <= 0) return out;
  while (hi - lo > resolution) {
    // The middle, on the grid, strictly between the bounds.
    int64_t mid = (lo + (hi - lo) / 2) / resolution * resolution;
    if (mid <= lo) mid += resolution;
    if (mid >= hi) break;
    const Trial trial = oracle(mid);
    ++out.tested;
    if (trial == Trial::kOutOfBudget) {
      out.complete = false;
      break;
    }
    (trial == Trial::kReproduced ? hi : lo) = mid;
  }
  out.shortest = hi;
  return out;
}

}  // namespace locksmith
