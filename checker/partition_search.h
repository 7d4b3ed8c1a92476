// SearchPartitions: the linearizability search of a history's partitions
// (its keys, P-compositionality), once their ops are compiled for the
// model: what CheckLinearizable runs after PartitionOps. Stateless; `model`
// is used by one call at a time (each thread beside the caller's searches
// with a copy of its own, Model::CloneForSearch).
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
  // Stopped, or never begun, because another partition was refuted first
  // (outcome kUnknown): its check did not run to an answer.
  bool not_searched = false;
  // For kFalse: outcome.state_after_prefix as the model that searched it
  // describes it (a search thread's copy may know states the check's
  // model does not).
  std::string state_description;
};

struct PartitionSearchOptions {
  // Threads searching at once; 0: one per core, at most 4. Models without
  // CloneForSearch, and budgets read on a clock other than the steady
  // clock, are searched on the caller's thread alone.
  size_t threads = 0;
  // Keep searching every partition once one is refuted, for a report of
  // every refuted key; otherwise the others stop (not_searched).
  bool all_anomalies = false;
};

// Searches the partitions in slices of doubling length, one slice of each
// open partition in turn (the first 1 ms), on `options.threads` threads,
// resuming each search where it stopped (the other threads start once a
// slice ends with its partition still open, or after 1 ms: a history
// decided within that is searched on the caller's thread alone): a partition that is quick to refute is found
// even when others would eat their whole budget, as Porcupine's partitions,
// searched at once, are. Once one is refuted the verdict is known: unless
// options.all_anomalies, the others stop (a cancellation flag their
// searches read) and are marked not_searched. Each partition's search is
// deterministic, whatever thread runs its slices, so a partition searched
// to an answer explores the same states on every run; which partitions are
// left unsearched after a refutation depends on timing. Each partition has
// the budget's time for itself (budget.deadline, from now): keys are
// independent checks, and a history's keys are as many as its writer made
// them, so a shared budget would run out with their number however easy
// each is. Halfway through its time, each partition still open is also
// given a look for a short window that refutes it on its own. Searches
// alive together share the memory budget: each counts what the others
// held at their last slice.
std::vector<PartitionVerdict> SearchPartitions(Model& model,
                                               const std::vector<Partition>& partitions,
                                               const SearchBudget& budget,
                                               const PartitionSearchOptions& options = {});

// The threads SearchPartitions uses for `requested` (0: per core).
size_t PartitionSearchThreads(size_t requested);

}  // namespace locksmith
