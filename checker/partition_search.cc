#include "checker/partition_search.h"

#include <algorithm>
#include <chrono>
#include <memory>

namespace locksmith {

std::vector<PartitionVerdict> SearchPartitions(Model& model,
                                               const std::vector<Partition>& partitions,
                                               const SearchBudget& budget) {
  using Clock = std::chrono::steady_clock;
  const size_t n = partitions.size();
  std::vector<PartitionVerdict> verdicts(n);
  std::vector<size_t> held(n, 0);
  size_t total_held = 0;
  std::vector<std::unique_ptr<LinearizabilitySearch>> searches(n);
  for (size_t i = 0; i < n; ++i) {
    SearchBudget own = budget;
    own.shared_bytes = [&budget, &held, &total_held, i] {
      return (budget.shared_bytes ? budget.shared_bytes() : 0) + total_held - held[i];
    };
    searches[i] = std::make_unique<LinearizabilitySearch>(model, partitions[i].ops, own,
                                                          partitions[i].start);
    verdicts[i].outcome.valid = Validity::kUnknown;
  }
  const Clock::duration allowance =
      std::max(Clock::duration::zero(), budget.deadline - budget.now());
  std::vector<Clock::duration> used(n, Clock::duration::zero());  // each partition's time so far
  auto left = [&](size_t i) { return allowance - used[i]; };
  std::vector<bool> open(n, true), window_tried(n, false);
  // A short window that refutes partition i on its own; true if one does.
  auto try_window = [&](size_t i) {
    window_tried[i] = true;
    if (left(i) <= Clock::duration::zero()) return false;
    const Clock::time_point began = budget.now();
    SearchBudget own = budget;
    own.deadline = began + left(i);
    WindowRefuter refuter(model, partitions[i].ops, own);
    verdicts[i].window = refuter.Find();
    used[i] += budget.now() - began;
    verdicts[i].window_states = refuter.states_explored();
    if (verdicts[i].window) verdicts[i].outcome = verdicts[i].window->outcome;
    return verdicts[i].window.has_value();
  };
  auto close = [&](size_t i) {
    open[i] = false;
    total_held -= held[i];
    held[i] = 0;
    searches[i].reset();
  };
  bool refuted = false;
  for (auto slice = std::chrono::milliseconds(20); !refuted; slice *= 2) {
    bool any_open = false;
    for (size_t i = 0; i < n; ++i) {
      if (!open[i]) continue;
      const Clock::time_point began = budget.now();
      searches[i]->ExtendDeadline(began + std::min<Clock::duration>(slice, left(i)));
      verdicts[i].outcome = searches[i]->Run();
      used[i] += budget.now() - began;
      total_held += searches[i]->OwnBytes() - held[i];
      held[i] = searches[i]->OwnBytes();
      const bool decided = verdicts[i].outcome.valid != Validity::kUnknown;
      const bool out_of_time = !decided &&
                               verdicts[i].outcome.reason.rfind("time budget", 0) == 0 &&
                               left(i) > Clock::duration::zero();
      if (out_of_time) {
        any_open = true;
        continue;
      }
      close(i);  // decided, or out of memory, or out of its whole time
      if (!decided && !window_tried[i]) try_window(i);
      refuted |= verdicts[i].outcome.valid == Validity::kFalse;
    }
    if (!any_open) break;
    for (size_t i = 0; i < n && !refuted; ++i) {
      if (!open[i] || window_tried[i] || used[i] < allowance / 2) continue;
      if (try_window(i)) {
        close(i);
        refuted = true;
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (verdicts[i].outcome.valid == Validity::kUnknown && window_tried[i]) {
      verdicts[i].outcome.reason += "; no short window of the history refutes it either";
    }
  }
  return verdicts;
}

}  // namespace locksmith
