// SearchPartitions: the linearizability search of a history's partitions
// (its keys, P-compositionality), once their ops are compiled for the
// model: what CheckLinearizable runs after PartitionOps. Stateless; `model`
// is used by one call at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/linearizability_search.h"
#include "checker/model.h"
#include "checker/window_refuter.h"

namespace locksmith {

// One partition's ops, compiled for the search.
struct Partition {
  std::string key;
  std::vector<SearchOp> ops;
  // History positions of each op's invoke and completion (-1: none).
  std::vector<std::pair<int64_t, int64_t>> positions;
  // Where the search begins: the model's initial state, or where the ops
  // before these left it (a key searched segment by segment).
  std::optional<ModelState> start;
};

// What the search found for one partition.
struct PartitionVerdict {
  SearchOutcome outcome;
  std::optional<WindowRefutation> window;  // when a short window refuted it
  uint64_t window_states = 0;
};

// Searches the partitions in rounds of doubling time slices, one after
// another in each round, resuming each search where it stopped: a
// partition that is quick to refute is found even when another one would
// eat its whole budget (Porcupine searches partitions in parallel and stops
// at the first violation; this is the same on one thread). Once a round
// refutes a partition the verdict is known: the others stop there. Each
// partition has the budget's time for itself (budget.deadline, from now):
// keys are independent checks, and a history's keys are as many as its
// writer made them, so a shared budget would run out with their number
// however easy each is. Halfway through its time, each partition still
// open is also given a look for a short window that refutes it on its own.
// Searches alive together share the memory budget: each counts what the
// others hold.
std::vector<PartitionVerdict> SearchPartitions(Model& model,
                                               const std::vector<Partition>& partitions,
                                               const SearchBudget& budget);

}  // namespace locksmith
