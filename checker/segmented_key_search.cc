#include "checker/segmented_key_search.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace locksmith {
namespace {

// Puts a partition's ops (and their positions) in invoke order, as
// PartitionOps files them, in place: a long key's compiled ops are not
// copied.
void SortByInvoke(Partition& p) {
  const size_t n = p.ops.size();
  std::vector<size_t> order(n);  // order[k]: the op that goes to place k
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return p.ops[a].call < p.ops[b].call; });
  for (size_t start = 0; start < n; ++start) {  // each cycle of the permutation once
    if (order[start] == start) continue;
    const SearchOp first = p.ops[start];
    const std::pair<int64_t, int64_t> first_at = p.positions[start];
    size_t k = start;
    while (order[k] != start) {
      const size_t from = order[k];
      p.ops[k] = p.ops[from];
      p.positions[k] = p.positions[from];
      order[k] = k;
      k = from;
    }
    p.ops[k] = first;
    p.positions[k] = first_at;
    order[k] = k;
  }
}

}  // namespace

SegmentedKeySearch::SegmentedKeySearch(Model& model, MakeBudget budget, size_t segment_ops)
    : model_(model), budget_(std::move(budget)), segment_ops_(segment_ops) {
  verdict_.outcome.valid = Validity::kTrue;
}

void SegmentedKeySearch::Cut(Partition& segment, bool last) {
  if (segment.ops.empty() || (!last && segment.ops.size() < segment_ops_)) return;
  ++segments_;
  if (verdict_.outcome.valid == Validity::kTrue) {
    SortByInvoke(segment);
    Search(segment);
  }
  segment.ops.clear();
  segment.positions.clear();
}

void SegmentedKeySearch::Search(Partition& segment) {
  segment.start = next_start_;
  // The time the segments before this one took counts against the key's.
  const SearchBudget budget = budget_(used_, segment.ops.size());
  const auto began = budget.now();
  std::vector<Partition> one;
  one.push_back(std::move(segment));
  PartitionVerdict found = std::move(SearchPartitions(model_, one, budget).front());
  segment = std::move(one.front());
  used_ += budget.now() - began;
  next_start_ = found.outcome.final_state;
  states_ += found.outcome.states_explored + found.window_states;
  keys_ += found.outcome.distinct_keys;
  peak_ = std::max(peak_, found.outcome.peak_memory_bytes);
  verdict_ = std::move(found);
  verdict_.outcome.states_explored = states_;
  verdict_.outcome.distinct_keys = keys_;
  verdict_.outcome.peak_memory_bytes = peak_;
  verdict_.window_states = 0;
  if (verdict_.outcome.valid == Validity::kUnknown && segments_ > 1) {
    verdict_.outcome.reason += " in the key's segment " + std::to_string(segments_) +
                               ", searched from where the ones before it ended";
  }
}

}  // namespace locksmith
