#include "checker/fencing_checker.h"

#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "checker/leased_lock_checker.h"
#include "checker/resource_updates.h"

namespace locksmith {
namespace {

struct Highest {
  int64_t fence = 0;
  int64_t position = -1;  // of the accepted op's completion
};

// The fence an op's value carries, if it carries one.
std::optional<int64_t> FenceIn(const Op& op) {
  if (!op.value.is_object()) return std::nullopt;
  auto it = op.value.find("fence");
  if (it == op.value.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

// An acquisition's own acquire (not a re-entry nested in a hold) that
// completed ok with a fence: the fence, or nothing.
std::optional<int64_t> GrantedFence(const Op& invoke, const Op* done) {
  if (invoke.f != "acquire" || IsReentry(invoke)) return std::nullopt;
  if (done == nullptr || done->type != OpType::kOk) return std::nullopt;
  return FenceIn(*done);
}

// The fences granted on one key, as disjoint ranges [first, last] merged
// when they touch: a counter that counts up by one is one range per gap.
class GrantedFences {
 public:
  // Adds `fence`; false when it had been granted before. Past
  // kMaxRangesPerKey ranges the lowest is forgotten (counted in *forgotten).
  bool Add(int64_t fence, int64_t* forgotten) {
    auto next = ranges_.upper_bound(fence);  // the first range starting above it
    const bool joins_next = next != ranges_.end() &&
                            fence < std::numeric_limits<int64_t>::max() &&
                            next->first == fence + 1;
    if (next != ranges_.begin()) {
      auto prev = std::prev(next);
      if (fence <= prev->second) return false;
      if (prev->second == fence - 1) {
        prev->second = joins_next ? next->second : fence;
        if (joins_next) ranges_.erase(next);
        return true;
      }
    }
    if (joins_next) {
      const int64_t last = next->second;
      ranges_.emplace_hint(ranges_.erase(next), fence, last);
      return true;
    }
    ranges_.emplace_hint(next, fence, fence);
    if (ranges_.size() > FencingChecker::kMaxRangesPerKey) {
      ranges_.erase(ranges_.begin());
      ++*forgotten;
    }
    return true;
  }

 private:
  std::map<int64_t, int64_t> ranges_;  // first -> last
};

// One pass over the history: the resource's accepted ops and the service's
// grants, per key.
class FencingScan {
 public:
  FencingScan(const History& history, size_t max_listed)
      : history_(history), completion_(PairCompletions(history)), max_listed_(max_listed) {}

  CheckResult Run() {
    for (size_t i = 0; i < history_.size(); ++i) {
      const Op& op = history_[i];
      if (!op.is_client()) continue;
      if (op.f == "acquire") {
        OnAcquire(i, op);
      } else if (op.f == "read" || op.f == "write") {
        if (op.type == OpType::kInvoke) {
          OnResourceInvoke(i, op);
        } else {
          OnResourceCompletion(i, op);
        }
      }
    }
    NameFirstGrants();
    return Result();
  }

 private:
  const Op* Completion(size_t invoke) const {
    const int64_t done = completion_[invoke];
    return done < 0 ? nullptr : &history_[static_cast<size_t>(done)];
  }

  // At the invoke: remember where its grant completes; at that completion:
  // was its fence granted before?
  void OnAcquire(size_t i, const Op& op) {
    if (op.type == OpType::kInvoke) {
      if (auto fence = GrantedFence(op, Completion(i))) pending_grants_[completion_[i]] = *fence;
      return;
    }
    auto it = pending_grants_.find(static_cast<int64_t>(i));
    if (it == pending_grants_.end()) return;
    const int64_t fence = it->second;
    pending_grants_.erase(it);
    ++grants_;
    if (granted_[op.key].Add(fence, &forgotten_)) return;
    ++reused_;
    if (reuses_.size() < max_listed_) {
      reuses_.push_back({{"type", "fence-reused"},
                         {"key", op.key},
                         {"fence", fence},
                         {"ops", {nullptr, OpRef(op)}}});
    }
  }

  void OnResourceInvoke(size_t i, const Op& op) {
    const std::optional<int64_t> fence = FenceIn(op);
    if (!fence) return;
    ++fenced_;
    const Op* done = Completion(i);
    if (done == nullptr || done->type != OpType::kOk) return;
    ++accepted_;
    pending_[completion_[i]] = *fence;
    if (op.f != "write") return;
    auto h = highest_.find(op.key);
    if (h == highest_.end() || h->second.fence <= *fence) return;
    ++stale_writes_;
    if (stale_.size() >= max_listed_) return;
    const Op& before = history_[static_cast<size_t>(h->second.position)];
    stale_.push_back({{"type", "stale-write-accepted"},
                      {"key", op.key},
                      {"fence", *fence},
                      {"accepted_before", h->second.fence},
                      {"ops", {OpRef(before), OpRef(op), OpRef(*done)}}});
  }

  void OnResourceCompletion(size_t i, const Op& op) {
    if (IsRejected(op)) ++rejected_;
    auto it = pending_.find(static_cast<int64_t>(i));
    if (it == pending_.end()) return;
    Highest& h = highest_[op.key];
    if (h.position < 0 || it->second > h.fence) h = {it->second, static_cast<int64_t>(i)};
    pending_.erase(it);
  }

  // The first grant of each reused fence listed: a second pass over the
  // acquires, only when there is one. First by completion, as the reuse was
  // found (an acquire invoked earlier may have been granted later).
  void NameFirstGrants() {
    if (reuses_.empty()) return;
    using KeyFence = std::pair<std::string, int64_t>;
    auto key_fence = [](const nlohmann::json& r) {
      return KeyFence{r["key"].get<std::string>(), r["fence"].get<int64_t>()};
    };
    std::map<KeyFence, int64_t> first;  // -> the earliest grant's completion
    for (const auto& r : reuses_) first[key_fence(r)] = -1;
    for (size_t i = 0; i < history_.size(); ++i) {
      const Op& op = history_[i];
      if (!op.is_client() || op.type != OpType::kInvoke) continue;
      const std::optional<int64_t> fence = GrantedFence(op, Completion(i));
      if (!fence) continue;
      auto it = first.find({op.key, *fence});
      if (it == first.end()) continue;
      if (it->second < 0 || completion_[i] < it->second) it->second = completion_[i];
    }
    for (auto& r : reuses_) {
      r["ops"][0] = OpRef(history_[static_cast<size_t>(first[key_fence(r)])]);
    }
  }

  CheckResult Result() {
    CheckResult result;
    for (auto& r : reuses_) result.anomalies.push_back(std::move(r));
    for (auto& s : stale_) result.anomalies.push_back(std::move(s));
    result.stats = {{"fenced_ops", fenced_},     {"accepted", accepted_},
                    {"rejected", rejected_},     {"granted_fences", grants_},
                    {"reused_fences", reused_},  {"stale_writes_accepted", stale_writes_}};
    if (forgotten_ > 0) result.stats["fence_ranges_forgotten"] = forgotten_;
    std::string summary;
    if (reused_ > 0) {
      summary = std::to_string(reused_) + " fences granted to a second acquisition";
    }
    if (stale_writes_ > 0) {
      summary += (summary.empty() ? "" : "; ") + std::to_string(stale_writes_) +
                 " writes accepted with a fence lower than one accepted before";
    }
    if (!summary.empty()) {
      result.valid = Validity::kFalse;
    } else if (rejected_ > 0) {
      summary = std::to_string(rejected_) + " stale reads or writes rejected";
    }
    result.summary = summary;
    return result;
  }

  const History& history_;
  const std::vector<int64_t> completion_;
  const size_t max_listed_;
  // Per key, the highest fence of an accepted op that has completed so far.
  std::unordered_map<std::string, Highest> highest_;
  // Completion position -> the fence of the accepted op it completes.
  std::unordered_map<int64_t, int64_t> pending_;
  // Completion position -> the fence an acquire was granted there.
  std::unordered_map<int64_t, int64_t> pending_grants_;
  std::unordered_map<std::string, GrantedFences> granted_;
  std::vector<nlohmann::json> reuses_, stale_;
  int64_t accepted_ = 0, rejected_ = 0, fenced_ = 0, grants_ = 0, reused_ = 0;
  int64_t stale_writes_ = 0, forgotten_ = 0;
};

}  // namespace

CheckResult FencingChecker::CheckWhole(const History& history) const {
  return FencingScan(history, max_listed_).Run();
}

}  // namespace locksmith
