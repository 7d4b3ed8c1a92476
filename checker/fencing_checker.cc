#include "checker/fencing_checker.h"

#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "checker/completion_pairer.h"
#include "checker/leased_lock_checker.h"
#include "checker/op_marks.h"
#include "checker/resource_updates.h"

namespace locksmith {
namespace {

struct Highest {
  int64_t fence = 0;
  OpMark done;  // the accepted op's completion
};

// The fence an op's value carries, if it carries one.
std::optional<int64_t> FenceIn(const Op& op) {
  if (!op.value.is_object()) return std::nullopt;
  auto it = op.value.find("fence");
  if (it == op.value.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

// The fences granted on one key, as disjoint ranges [first, last] merged
// when they touch: a counter that counts up by one is one range per gap.
// Each range keeps the grant of each of its fences (the first one).
class GrantedFences {
 public:
  // Adds `fence`, granted by `grant`; returns the first grant when it had
  // been granted before, else null. Past kMaxRangesPerKey ranges the lowest
  // is forgotten (counted in *forgotten).
  const OpMark* Add(int64_t fence, const OpMark& grant, int64_t* forgotten) {
    auto next = ranges_.upper_bound(fence);  // the first range starting above it
    const bool joins_next = next != ranges_.end() &&
                            fence < std::numeric_limits<int64_t>::max() &&
                            next->first == fence + 1;
    if (next != ranges_.begin()) {
      auto prev = std::prev(next);
      Range& r = prev->second;
      if (fence <= r.last) return &r.grants[static_cast<size_t>(fence - prev->first)];
      if (r.last == fence - 1) {
        r.grants.push_back(grant);
        r.last = fence;
        if (joins_next) {
          r.last = next->second.last;
          r.grants.insert(r.grants.end(), next->second.grants.begin(),
                          next->second.grants.end());
          ranges_.erase(next);
        }
        return nullptr;
      }
    }
    if (joins_next) {
      Range r = std::move(next->second);
      r.grants.insert(r.grants.begin(), grant);
      ranges_.emplace_hint(ranges_.erase(next), fence, std::move(r));
      return nullptr;
    }
    ranges_.emplace_hint(next, fence, Range{fence, {grant}});
    if (ranges_.size() > FencingChecker::kMaxRangesPerKey) {
      ranges_.erase(ranges_.begin());
      ++*forgotten;
    }
    return nullptr;
  }

 private:
  struct Range {
    int64_t last = 0;
    std::vector<OpMark> grants;  // of first..last
  };
  std::map<int64_t, Range> ranges_;  // first -> range
};

// What a process's open invoke was, for its completion.
struct InFlight {
  int64_t invoked = -1;  // position
  bool reentry = false;  // an acquire nested in a hold
  std::optional<int64_t> fence;
  std::optional<Highest> highest;  // a fenced write's key's, at its invoke
};

// One pass: the resource's accepted ops and the service's grants, per key.
class FencingPass : public CheckPass {
 public:
  explicit FencingPass(size_t max_listed) : max_listed_(max_listed) {}

  void Observe(const Op& op) override {
    const int64_t position = position_++;
    const CompletionPairer::Pairing pairing = pairer_.Observe(op);
    if (!op.is_client()) return;
    if (op.type == OpType::kInvoke) {
      OnInvoke(position, op);
    } else if (op.f == "read" || op.f == "write") {
      if (IsRejected(op)) ++rejected_;
      if (pairing.invoke) OnResourceCompletion(*pairing.invoke, op);
    } else if (op.f == "acquire" && pairing.invoke) {
      OnGrant(op);
    }
  }

  CheckResult Finish() override;

 private:
  void OnInvoke(int64_t position, const Op& op) {
    InFlight& f = in_flight_[op.process];
    f = InFlight{position};
    if (op.f == "acquire") {
      f.reentry = IsReentry(op);
      return;
    }
    if (op.f != "read" && op.f != "write") return;
    f.fence = FenceIn(op);
    if (!f.fence) return;
    ++fenced_;
    if (op.f != "write") return;
    if (auto h = highest_.find(op.key); h != highest_.end()) f.highest = h->second;
  }

  // An acquisition's own acquire (not a re-entry) granted with a fence:
  // was that fence granted before?
  void OnGrant(const Op& op) {
    const InFlight& f = in_flight_[op.process];
    if (f.reentry || op.type != OpType::kOk) return;
    const std::optional<int64_t> fence = FenceIn(op);
    if (!fence) return;
    ++grants_;
    const OpMark* first = granted_[op.key].Add(*fence, marks_.Mark(op), &forgotten_);
    if (first == nullptr) return;
    ++reused_;
    if (reuses_.size() < max_listed_) {
      reuses_.push_back({{"type", "fence-reused"},
                         {"key", op.key},
                         {"fence", *fence},
                         {"ops", {marks_.Ref(*first), OpRef(op)}}});
    }
  }

  // An accepted op raises its key's highest fence; an accepted write below
  // the highest at its invoke is a violation.
  void OnResourceCompletion(const Op& invoke, const Op& op) {
    const InFlight& f = in_flight_[op.process];
    if (!f.fence || op.type != OpType::kOk) return;
    ++accepted_;
    if (f.highest && f.highest->fence > *f.fence) {
      ++stale_writes_;
      // Listed in invoke order: the first max_listed_ invoked.
      stale_.emplace(f.invoked, nlohmann::json{{"type", "stale-write-accepted"},
                                               {"key", invoke.key},
                                               {"fence", *f.fence},
                                               {"accepted_before", f.highest->fence},
                                               {"ops",
                                                {marks_.Ref(f.highest->done), OpRef(invoke),
                                                 OpRef(op)}}});
      if (stale_.size() > max_listed_) stale_.erase(std::prev(stale_.end()));
    }
    auto [h, fresh] = highest_.try_emplace(op.key);
    if (fresh || *f.fence > h->second.fence) h->second = {*f.fence, marks_.Mark(op)};
  }

  const size_t max_listed_;
  int64_t position_ = 0;
  CompletionPairer pairer_{false};
  OpMarks marks_;
  std::unordered_map<int64_t, InFlight> in_flight_;  // by process
  // Per key, the highest fence of an accepted op that has completed so far.
  std::unordered_map<std::string, Highest> highest_;
  std::unordered_map<std::string, GrantedFences> granted_;
  std::vector<nlohmann::json> reuses_;
  std::map<int64_t, nlohmann::json> stale_;  // by the write's invoke position
  int64_t accepted_ = 0, rejected_ = 0, fenced_ = 0, grants_ = 0, reused_ = 0;
  int64_t stale_writes_ = 0, forgotten_ = 0;
};

CheckResult FencingPass::Finish() {
  CheckResult result;
  for (auto& r : reuses_) result.anomalies.push_back(std::move(r));
  for (auto& [invoked, s] : stale_) result.anomalies.push_back(std::move(s));
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

}  // namespace

std::unique_ptr<CheckPass> FencingChecker::Start() const {
  return std::make_unique<FencingPass>(max_listed_);
}

}  // namespace locksmith
