// LinearizabilitySearch: decides whether one partition of a history (one
// key) has a legal sequential order under a Model — Wing & Gong's search as
// Lowe and Porcupine refine it, with our own additions for pending ops.
//
// Completed ops live in a doubly linked list of call/return entries in
// history order; the candidates at a node are the call entries before the
// first return entry, which is taken out ("lifted") when linearized and put
// back on backtrack. A node is identified by (state, first unlinearized
// return R, unlinearized calls before R) — enough to know every linearized
// completed op — plus how many pending ops of each class were linearized.
//
// Pending ops (info, or never completed) may take effect at any point after
// their invoke, or never, so the search never needs them to finish. They are
// kept apart from the list, grouped in classes of identical ops (same f,
// inputs, and process when the model cares): identical ops that are both
// already invoked are interchangeable, so within a class only the earliest
// unused one is ever tried, and "how many were used" describes the class.
// Each of these prunings keeps a node that does at least as well:
//   - a pending op is only linearized when it changes the state;
//   - a pending op is skipped when one it can stand in for (Model::Covers)
//     gives the same state here, keeping the more useful op for later;
//   - a pending op straight after another that it overwrites is skipped;
//   - a completed op right after a chain of pending ops is skipped when the
//     chain could as well come after it (same resulting state), so pending
//     ops are only used just before a completed op that needs them;
//   - a node is skipped when a node with the same key and no more pending
//     ops of any class was already seen (see MemoTable);
//   - pending reads, and pending acquires that only their own (finished)
//     process could observe, are dropped up front.
//
// The search is iterative (histories of a million ops nest deep),
// deterministic, and stops with kUnknown at the time or memory budget; it
// can then be resumed with a later deadline. When it cannot finish,
// WindowRefuter may still prove a violation. Not thread-safe; one instance
// per partition.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checker/checker.h"
#include "checker/memo_table.h"
#include "checker/model.h"

namespace locksmith {

struct SearchOp {
  // op.known with ret == -1: an optional op with a known output (it may
  // have taken effect before a window of the history; see WindowRefuter).
  ModelOp op;
  int64_t call = 0;  // history position of the invoke
  int64_t ret = -1;  // history position of the ok completion; -1 when optional
  bool read_only = false;
  bool only_own_process_observes = false;
};

// Where a search reads the time: the steady clock, or a test's own, so that
// what a budget allows does not depend on how loaded the machine is.
using SearchClock = std::chrono::steady_clock::time_point (*)();

struct SearchBudget {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  SearchClock now = &std::chrono::steady_clock::now;
  size_t memory_limit_bytes = SIZE_MAX;
  // Bytes held outside the search that it makes grow (interned values).
  std::function<size_t()> shared_bytes;
  // Set by another thread when this search's answer is no longer needed
  // (another partition was refuted): the search stops with kUnknown and
  // reason kCancelled, as it stops at its deadline.
  const std::atomic<bool>* cancel = nullptr;
};

inline constexpr char kCancelled[] = "cancelled";

struct SearchOutcome {
  Validity valid = Validity::kTrue;
  std::string reason;  // for kUnknown
  uint64_t states_explored = 0;
  // Distinct (state, linearized completed ops) keys in the memo; states
  // beyond these differ only in which pending ops were used.
  uint64_t distinct_keys = 0;
  size_t peak_memory_bytes = 0;
  // For kFalse: the completed op that could not be linearized after the
  // longest linearizable prefix found (indices into the input ops), and the
  // model state after that prefix.
  int64_t failed_op = -1;
  std::vector<int64_t> prefix;
  ModelState state_after_prefix;
  // For kTrue: the model state after the linearization found, where a
  // search of the ops that follow (all invoked after these completed) goes
  // on from.
  ModelState final_state;
};

class LinearizabilitySearch {
 public:
  // `ops` in any order; calls and returns are compared by history position.
  // The search starts from `start`, or the model's initial state.
  LinearizabilitySearch(Model& model, const std::vector<SearchOp>& ops, SearchBudget budget,
                        std::optional<ModelState> start = std::nullopt);
  // Searches until an answer or the budget. After kUnknown from the
  // deadline, ExtendDeadline and Run again resume where it stopped.
  SearchOutcome Run();
  void ExtendDeadline(std::chrono::steady_clock::time_point deadline);
  // What this search holds itself (memo, stacks), without shared bytes.
  size_t OwnBytes() const;

 private:
  enum class Entered { kNew, kCovered, kDone };
  struct Frame {
    int32_t op;  // index into ops_
    int32_t cls;  // pending class, or -1 for a completed op
    int32_t parent_return;  // list node of the parent's first return
    ModelState previous;
  };

  // Construction.
  std::vector<int32_t> LinkCompletedOps();
  void GroupPendingOps(std::vector<int32_t> pending);
  void CoverClasses();
  // Run's steps.
  bool DescendCompleted();
  bool DescendPending();
  bool CoveredClassDoesTheSame(int32_t cls, int32_t active, int64_t horizon,
                               const ModelState& next) const;
  bool OverwritesPendingBefore(int32_t op, const ModelState& next) const;
  void Backtrack();
  SearchOutcome Finish(SearchOutcome outcome, Validity valid);
  bool ChainCanWait(const ModelOp& op, const ModelState& after);
  void Lift(int32_t op);
  void Unlift(int32_t op);
  Entered Enter();
  void RecordBestPath();
  bool OverBudget(SearchOutcome* outcome);
  size_t MemoryBytes() const;

  Model& model_;
  const std::vector<SearchOp>& ops_;
  SearchBudget budget_;
  ModelState start_;

  // Completed ops, list nodes: node 0 is the head; each completed op has a
  // call node and a return node.
  int32_t completed_ = 0;
  std::vector<int32_t> next_, prev_;
  std::vector<int32_t> node_op_;  // op of a node
  std::vector<bool> node_is_call_;
  std::vector<int64_t> node_position_;
  std::vector<int32_t> call_node_, return_node_;  // per op (-1 for pending)

  // Pending classes, ordered by their first invoke.
  std::vector<std::vector<int32_t>> class_ops_;
  std::vector<int64_t> class_first_call_;
  std::vector<uint32_t> consumed_;
  std::vector<uint32_t> nonzero_;
  // Per class, the classes it can stand in for (Model::Covers).
  std::vector<std::vector<int32_t>> covered_classes_;

  // Search state. Where to continue among the current node's candidates: a
  // list node in the completed phase (cursor_), then pending classes from
  // next_class_; kept here so that a search stopped by its deadline can be
  // resumed.
  bool started_ = false;
  int32_t cursor_ = 0;
  int32_t next_class_ = -1;
  uint64_t steps_ = 0;
  ModelState state_;
  int32_t lifted_ = 0;
  int32_t first_return_ = 0;  // list node of the current node's first return
  std::vector<Frame> stack_;
  std::vector<uint32_t> key_;
  MemoTable memo_;
  uint64_t explored_ = 0;
  size_t peak_bytes_ = 0;

  // Longest prefix, recorded lazily (see RecordBestPath).
  int32_t best_lifted_ = -1;
  size_t best_depth_ = 0;
  int32_t best_failed_op_ = -1;
  ModelState best_state_;
  bool best_dirty_ = false;
  std::vector<Frame> best_path_;
  size_t synced_ = 0;  // leading frames of stack_ equal to best_path_
};

}  // namespace locksmith
