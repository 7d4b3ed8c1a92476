#include "checker/window_refuter.h"

#include <algorithm>
#include <chrono>

namespace locksmith {
namespace {

constexpr size_t kWindowSizes[] = {8, 32, 128, 512};
// One window's search should be quick; a window that needs more than this
// is not the short proof this is looking for.
constexpr auto kWindowTimeCap = std::chrono::milliseconds(200);

}  // namespace

std::optional<WindowRefutation> WindowRefuter::TryWindow(int64_t from, int64_t to,
                                                          const std::vector<ModelState>& starts) {
  std::vector<SearchOp> window;
  std::vector<int64_t> source;  // window op -> partition op
  for (size_t i = 0; i < ops_.size(); ++i) {
    SearchOp op = ops_[i];
    if (op.call > to) continue;  // invoked after the window
    if (op.ret >= 0 && op.ret < from) continue;  // done before the window
    if (op.ret > to) {
      op.ret = -1;  // still running at the window's end: pending
      op.op.known = false;
    } else if (op.ret >= 0 && op.call < from) {
      op.ret = -1;  // may have taken effect before the window: optional
    }
    window.push_back(op);
    source.push_back(static_cast<int64_t>(i));
  }
  std::optional<WindowRefutation> refutation;
  for (const ModelState& start : starts) {
    SearchBudget budget = budget_;
    budget.deadline = std::min(budget_.deadline, budget_.now() + kWindowTimeCap);
    LinearizabilitySearch search(model_, window, budget, start);
    SearchOutcome outcome = search.Run();
    explored_ += outcome.states_explored;
    if (outcome.valid != Validity::kFalse) return std::nullopt;
    if (!refutation || outcome.prefix.size() > refutation->outcome.prefix.size()) {
      outcome.failed_op = source[static_cast<size_t>(outcome.failed_op)];
      for (int64_t& op : outcome.prefix) op = source[static_cast<size_t>(op)];
      refutation = WindowRefutation{from, to, starts.size(), std::move(outcome)};
    }
  }
  return refutation;
}

std::optional<WindowRefutation> WindowRefuter::Find() {
  std::vector<ModelOp> model_ops;
  std::vector<int64_t> returns;
  for (const SearchOp& op : ops_) {
    model_ops.push_back(op.op);
    if (op.ret >= 0) returns.push_back(op.ret);
  }
  const std::vector<ModelState> starts = model_.CandidateStates(model_ops);
  if (starts.empty() || returns.empty()) return std::nullopt;
  std::sort(returns.begin(), returns.end());
  for (size_t size : kWindowSizes) {
    const size_t step = size / 2;
    for (size_t first = 0; first < returns.size(); first += step) {
      if (budget_.now() > budget_.deadline) return std::nullopt;
      const size_t last = std::min(first + size, returns.size()) - 1;
      // The window takes every op returning after the previous return.
      const int64_t from = first == 0 ? 0 : returns[first - 1] + 1;
      if (auto found = TryWindow(from, returns[last], starts)) return found;
      if (last + 1 == returns.size()) break;
    }
    if (size >= returns.size()) break;
  }
  return std::nullopt;
}

}  // namespace locksmith
