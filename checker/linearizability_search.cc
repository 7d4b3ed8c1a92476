#include "checker/linearizability_search.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace locksmith {
namespace {

// Budget checks read the clock; every this many steps is cheap and still
// stops within milliseconds of the deadline.
constexpr uint64_t kBudgetCheckInterval = 512;

void PushState(const ModelState& s, std::vector<uint32_t>* words) {
  words->push_back(static_cast<uint32_t>(s.a));
  words->push_back(static_cast<uint32_t>(s.a >> 32));
  words->push_back(static_cast<uint32_t>(s.b));
  words->push_back(static_cast<uint32_t>(s.b >> 32));
}

}  // namespace

LinearizabilitySearch::LinearizabilitySearch(Model& model, const std::vector<SearchOp>& ops,
                                             SearchBudget budget, std::optional<ModelState> start)
    : model_(model),
      ops_(ops),
      budget_(std::move(budget)),
      start_(start.value_or(model.Initial())) {
  GroupPendingOps(LinkCompletedOps());
  CoverClasses();
}

// Builds the list of the completed ops' call and return nodes in history
// order; returns the pending ops worth searching.
std::vector<int32_t> LinearizabilitySearch::LinkCompletedOps() {
  const auto n = static_cast<int32_t>(ops_.size());
  call_node_.assign(n, -1);
  return_node_.assign(n, -1);

  std::unordered_map<int64_t, int64_t> last_call;  // process -> its last invoke here
  for (const SearchOp& op : ops_) {
    auto [it, inserted] = last_call.emplace(op.op.process, op.call);
    if (!inserted) it->second = std::max(it->second, op.call);
  }

  struct Event {
    int64_t position;
    int32_t op;
    bool is_call;
  };
  std::vector<Event> events;
  std::vector<int32_t> pending;
  for (int32_t i = 0; i < n; ++i) {
    const SearchOp& op = ops_[i];
    if (op.ret >= 0) {
      events.push_back({op.call, i, true});
      events.push_back({op.ret, i, false});
      ++completed_;
      continue;
    }
    if (op.read_only) continue;  // an unobserved read has no effect
    if (op.only_own_process_observes && last_call[op.op.process] == op.call) continue;
    pending.push_back(i);
  }
  std::sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
    return std::tie(x.position, x.is_call) < std::tie(y.position, y.is_call);
  });

  const size_t nodes = events.size() + 1;
  next_.resize(nodes);
  prev_.resize(nodes);
  node_op_.assign(nodes, -1);
  node_is_call_.assign(nodes, false);
  node_position_.assign(nodes, -1);
  for (size_t k = 0; k < nodes; ++k) {
    next_[k] = k + 1 < nodes ? static_cast<int32_t>(k + 1) : -1;
    prev_[k] = static_cast<int32_t>(k) - 1;
  }
  for (size_t k = 0; k < events.size(); ++k) {
    const auto node = static_cast<int32_t>(k + 1);
    node_op_[node] = events[k].op;
    node_is_call_[node] = events[k].is_call;
    node_position_[node] = events[k].position;
    (events[k].is_call ? call_node_ : return_node_)[events[k].op] = node;
  }
  return pending;
}

// Groups the pending ops in classes of identical ops, by first invoke.
void LinearizabilitySearch::GroupPendingOps(std::vector<int32_t> pending) {
  std::sort(pending.begin(), pending.end(),
            [&](int32_t x, int32_t y) { return ops_[x].call < ops_[y].call; });
  using ClassKey = std::tuple<uint32_t, int64_t, int64_t, int64_t, bool, int64_t>;
  std::map<ClassKey, int32_t> classes;
  for (int32_t i : pending) {
    const ModelOp& m = ops_[i].op;
    ClassKey key{m.code, m.arg0, m.arg1, model_.UsesProcess() ? m.process : 0, m.known,
                 m.known ? m.out : 0};
    auto [it, inserted] = classes.emplace(key, static_cast<int32_t>(class_ops_.size()));
    if (inserted) {
      class_ops_.emplace_back();
      class_first_call_.push_back(ops_[i].call);
    }
    class_ops_[it->second].push_back(i);
  }
  consumed_.assign(class_ops_.size(), 0);
}

// Which classes each class can stand in for, and the memo's coverers.
void LinearizabilitySearch::CoverClasses() {
  covered_classes_.resize(class_ops_.size());
  for (size_t x = 0; x < class_ops_.size(); ++x) {
    const ModelOp& ox = ops_[class_ops_[x][0]].op;
    for (size_t y = 0; y < class_ops_.size(); ++y) {
      const ModelOp& oy = ops_[class_ops_[y][0]].op;
      if (x != y && model_.Covers(ox, oy) && !model_.Covers(oy, ox)) {
        covered_classes_[x].push_back(static_cast<int32_t>(y));
      }
    }
  }
  // The memo lets a class pay for the classes it covers; only a unique
  // coverer that is not itself covered, so debts never chain.
  std::vector<int32_t> coverer(class_ops_.size(), -1);
  std::vector<int32_t> coverers(class_ops_.size(), 0);
  for (size_t x = 0; x < class_ops_.size(); ++x) {
    for (int32_t y : covered_classes_[x]) {
      coverer[y] = static_cast<int32_t>(x);
      ++coverers[y];
    }
  }
  for (size_t y = 0; y < class_ops_.size(); ++y) {
    if (coverers[y] != 1 || coverers[coverer[y]] != 0) coverer[y] = -1;
  }
  memo_.SetCoverers(std::move(coverer));
}

void LinearizabilitySearch::Lift(int32_t op) {
  for (int32_t node : {call_node_[op], return_node_[op]}) {
    next_[prev_[node]] = next_[node];
    if (next_[node] >= 0) prev_[next_[node]] = prev_[node];
  }
}

void LinearizabilitySearch::Unlift(int32_t op) {
  for (int32_t node : {return_node_[op], call_node_[op]}) {
    next_[prev_[node]] = node;
    if (next_[node] >= 0) prev_[next_[node]] = node;
  }
}

// Pending ops are only worth linearizing just before a completed op that
// needs them. The chain of pending ops on top of the stack (since the last
// completed op) can wait when `op` gives the same state without it, or when
// replaying the chain after `op` ends in the same state: either way,
// linearizing `op` before the chain reaches this node or one that dominates
// it (same ops, fewer pending ops used), and that is tried from the chain's
// first node.
bool LinearizabilitySearch::ChainCanWait(const ModelOp& op, const ModelState& after) {
  size_t first = stack_.size();
  while (first > 0 && stack_[first - 1].cls >= 0) --first;
  if (first == stack_.size()) return false;
  ModelState state;
  if (!model_.Step(stack_[first].previous, op, &state)) return false;
  if (state == after) return true;
  for (size_t i = first; i < stack_.size(); ++i) {
    ModelState next;
    if (!model_.Step(state, ops_[stack_[i].op].op, &next)) return false;
    state = next;
  }
  return state == after;
}

size_t LinearizabilitySearch::OwnBytes() const {
  return memo_.MemoryBytes() + stack_.capacity() * sizeof(Frame) +
         best_path_.capacity() * sizeof(Frame);
}

size_t LinearizabilitySearch::MemoryBytes() const {
  size_t bytes = OwnBytes() + model_.MemoryBytes();
  if (budget_.shared_bytes) bytes += budget_.shared_bytes();
  return bytes;
}

LinearizabilitySearch::Entered LinearizabilitySearch::Enter() {
  ++explored_;
  if (lifted_ == completed_) return Entered::kDone;
  key_.clear();
  PushState(state_, &key_);
  key_.push_back(0);  // placeholder for the first return's op
  int32_t node = next_[0];
  while (node_is_call_[node]) {
    key_.push_back(static_cast<uint32_t>(node_op_[node]));
    node = next_[node];
  }
  key_[4] = static_cast<uint32_t>(node_op_[node]);
  if (memo_.CoveredOrInsert(key_, nonzero_, consumed_)) return Entered::kCovered;
  first_return_ = node;
  if (lifted_ > best_lifted_) {
    best_lifted_ = lifted_;
    best_depth_ = stack_.size();
    best_failed_op_ = node_op_[node];
    best_state_ = state_;
    best_dirty_ = true;
  }
  return Entered::kNew;
}

// The stack's bottom frames are copied only when they changed since the
// last copy, so recording stays linear in the number of pushes.
void LinearizabilitySearch::RecordBestPath() {
  if (!best_dirty_) return;
  const size_t keep = std::min(synced_, best_depth_);
  best_path_.resize(keep);
  best_path_.insert(best_path_.end(), stack_.begin() + static_cast<std::ptrdiff_t>(keep),
                    stack_.begin() + static_cast<std::ptrdiff_t>(best_depth_));
  synced_ = best_depth_;
  best_dirty_ = false;
}

bool LinearizabilitySearch::OverBudget(SearchOutcome* outcome) {
  const size_t bytes = MemoryBytes();
  peak_bytes_ = std::max(peak_bytes_, bytes);
  if (bytes > budget_.memory_limit_bytes) {
    outcome->reason = "memory budget of " + std::to_string(budget_.memory_limit_bytes >> 20) +
                      " MiB exhausted after " + std::to_string(explored_) + " states";
    return true;
  }
  if (budget_.cancel != nullptr && budget_.cancel->load(std::memory_order_relaxed)) {
    outcome->reason = kCancelled;
    return true;
  }
  if (budget_.now() > budget_.deadline) {
    outcome->reason = "time budget exhausted after " + std::to_string(explored_) + " states";
    return true;
  }
  return false;
}

void LinearizabilitySearch::ExtendDeadline(std::chrono::steady_clock::time_point deadline) {
  budget_.deadline = deadline;
}

SearchOutcome LinearizabilitySearch::Finish(SearchOutcome outcome, Validity valid) {
  outcome.valid = valid;
  if (valid == Validity::kTrue) outcome.final_state = state_;
  outcome.states_explored = explored_;
  outcome.distinct_keys = memo_.size();
  peak_bytes_ = std::max(peak_bytes_, MemoryBytes());
  outcome.peak_memory_bytes = peak_bytes_;
  return outcome;
}

// Linearizes the next completed op from cursor_ that the state allows and
// that the pending chain on top of the stack does not make needless.
// Once none is left, the pending classes are next (next_class_ = 0).
bool LinearizabilitySearch::DescendCompleted() {
  if (next_class_ >= 0) return false;
  ModelState next;
  for (int32_t node = cursor_; node_is_call_[node]; node = next_[node]) {
    const int32_t op = node_op_[node];
    if (!model_.Step(state_, ops_[op].op, &next) || ChainCanWait(ops_[op].op, next)) {
      continue;
    }
    stack_.push_back({op, -1, first_return_, state_});
    Lift(op);
    ++lifted_;
    state_ = next;
    return true;
  }
  next_class_ = 0;
  return false;
}

// Linearizes the earliest unused op of the next pending class from
// next_class_ (invoked before the first return) that changes the state and
// that no other pending op does better in its place.
bool LinearizabilitySearch::DescendPending() {
  const int64_t horizon = node_position_[first_return_];
  const auto active = static_cast<int32_t>(
      std::lower_bound(class_first_call_.begin(), class_first_call_.end(), horizon) -
      class_first_call_.begin());
  ModelState next;
  for (int32_t cls = next_class_; cls < active; ++cls) {
    const uint32_t used = consumed_[cls];
    if (used == class_ops_[cls].size()) continue;
    const int32_t op = class_ops_[cls][used];
    if (ops_[op].call >= horizon) continue;
    if (!model_.Step(state_, ops_[op].op, &next) || next == state_) continue;
    if (CoveredClassDoesTheSame(cls, active, horizon, next) || OverwritesPendingBefore(op, next)) {
      continue;
    }
    stack_.push_back({op, cls, first_return_, state_});
    if (consumed_[cls]++ == 0) nonzero_.push_back(static_cast<uint32_t>(cls));
    state_ = next;
    return true;
  }
  return false;
}

// A less useful pending op doing the same here is tried instead.
bool LinearizabilitySearch::CoveredClassDoesTheSame(int32_t cls, int32_t active, int64_t horizon,
                                                    const ModelState& next) const {
  for (int32_t other : covered_classes_[cls]) {
    if (other >= active || consumed_[other] == class_ops_[other].size()) continue;
    const int32_t alternative = class_ops_[other][consumed_[other]];
    ModelState instead;
    if (ops_[alternative].call < horizon && model_.Step(state_, ops_[alternative].op, &instead) &&
        instead == next) {
      return true;
    }
  }
  return false;
}

// Straight after another pending op P: if this op Q leaves the same state
// whether or not P ran first (a write after a write), the parent's own try
// of Q covers this with P still unused.
bool LinearizabilitySearch::OverwritesPendingBefore(int32_t op, const ModelState& next) const {
  if (stack_.empty() || stack_.back().cls < 0) return false;
  ModelState without;
  return model_.Step(stack_.back().previous, ops_[op].op, &without) && without == next;
}

// Undoes the top frame; the parent goes on with its next candidate.
void LinearizabilitySearch::Backtrack() {
  const Frame frame = stack_.back();
  stack_.pop_back();
  synced_ = std::min(synced_, stack_.size());
  state_ = frame.previous;
  first_return_ = frame.parent_return;
  if (frame.cls < 0) {
    Unlift(frame.op);
    --lifted_;
    cursor_ = next_[call_node_[frame.op]];
    next_class_ = -1;
  } else {
    if (--consumed_[frame.cls] == 0) nonzero_.pop_back();
    next_class_ = frame.cls + 1;
  }
}

SearchOutcome LinearizabilitySearch::Run() {
  SearchOutcome outcome;
  if (!started_) {
    started_ = true;
    state_ = start_;
    if (Enter() == Entered::kDone) return Finish(std::move(outcome), Validity::kTrue);
    cursor_ = next_[0];
    next_class_ = -1;
  }
  while (true) {
    if (++steps_ % kBudgetCheckInterval == 0 && OverBudget(&outcome)) {
      return Finish(std::move(outcome), Validity::kUnknown);
    }
    if (DescendCompleted() || DescendPending()) {
      const Entered entered = Enter();
      if (entered == Entered::kDone) return Finish(std::move(outcome), Validity::kTrue);
      if (entered == Entered::kNew) {
        cursor_ = next_[0];
        next_class_ = -1;
        continue;
      }
    }
    // Backtrack: every candidate of this node failed (or the node we just
    // stepped into was covered).
    RecordBestPath();
    if (stack_.empty()) break;
    Backtrack();
  }
  outcome.failed_op = best_failed_op_;
  outcome.state_after_prefix = best_state_;
  for (const Frame& f : best_path_) outcome.prefix.push_back(f.op);
  return Finish(std::move(outcome), Validity::kFalse);
}

}  // namespace locksmith
