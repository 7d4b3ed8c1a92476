// WindowRefuter: proves a partition not linearizable from a short stretch
// of it, for when the full search runs out of budget. The full search must
// rule out every way the ops before a violation could have gone, and with
// many pending ops those multiply; but a stale read is usually impossible
// whatever came before. So a window of the history is checked on its own,
// from every state the model could be in, with every earlier pending op
// still available:
//   - ops that returned before the window are left out (taken as done);
//   - ops invoked before the window and returning inside it are optional
//     (they may already have taken effect) but keep their outputs;
//   - ops returning after the window end are pending (prefix closure).
// Each of these only adds possibilities, so a linearization of the whole
// history would give one of the window; no linearization of the window
// from any start state therefore proves the history non-linearizable.
// Windows of 8, 32, 128 and 512 returns slide by half their size.
// Deterministic. Not thread-safe; one instance per partition.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "checker/linearizability_search.h"
#include "checker/model.h"

namespace locksmith {

struct WindowRefutation {
  // History positions bounding the window's returns.
  int64_t from_position = 0;
  int64_t to_position = 0;
  size_t start_states = 0;
  // The deepest failing search among the start states, with its failed op
  // and prefix already mapped to indices of the partition's ops.
  SearchOutcome outcome;
};

class WindowRefuter {
 public:
  WindowRefuter(Model& model, const std::vector<SearchOp>& ops, SearchBudget budget)
      : model_(model), ops_(ops), budget_(std::move(budget)) {}

  // nullopt: no window refutes the partition (or the model cannot list its
  // states, or the budget ran out first).
  std::optional<WindowRefutation> Find();
  uint64_t states_explored() const { return explored_; }

 private:
  std::optional<WindowRefutation> TryWindow(int64_t from, int64_t to,
                                            const std::vector<ModelState>& starts);

  Model& model_;
  const std::vector<SearchOp>& ops_;
  SearchBudget budget_;
  uint64_t explored_ = 0;
};

}  // namespace locksmith
