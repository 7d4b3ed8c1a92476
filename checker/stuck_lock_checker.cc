#include "checker/stuck_lock_checker.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "base/ceil_millis.h"
#include "checker/leased_lock_checker.h"

namespace locksmith {
namespace {

// Ops are kept as RefOnly: what the anomaly names of them.
struct KeyState {
  std::map<int64_t, Op> holders;  // live holders' processes -> their grant
  int64_t free_since = 0;     // ns; meaningful while holders is empty
  std::optional<Op> last_grant;  // the last ok acquire
  int64_t lease_ms = 0;       // the largest asked for
  std::optional<Op> first_fail;  // failed acquires invoked in the window
  std::optional<Op> last_fail;
  int64_t failures = 0;
  // Crashes whose process had an acquire of this key open, or held it:
  // {its acquire (invoke or grant), crash}.
  std::vector<std::pair<Op, Op>> crashed;
};

bool IsAcquire(const Op& op) { return op.is_client() && op.f == "acquire" && !op.key.empty(); }

// One pass over a history: the keys' holders and free windows, each window
// closed (judged) when the key is granted again or the history ends.
class StuckLockPass : public CheckPass {
 public:
  explicit StuckLockPass(int leases) : leases_(leases) {}

  void Observe(const Op& op) override {
    last_time_ = op.time;
    if (const int64_t p = CrashedProcessOf(op); p >= 0) {
      OnCrash(p, op);
    } else if (!op.is_client() || op.key.empty()) {
      return;
    } else if ((op.f == "release" && op.type == OpType::kInvoke) || op.f == "lock-lost") {
      // A release invoke ends the hold, and so does a lock-lost notice (the
      // holder stops acting as holder and will not release).
      OnHoldEnd(op);
    } else if (IsAcquire(op)) {
      OnAcquire(op);
    }
  }

  CheckResult Finish() override {
    for (auto& [key, s] : keys_) {
      if (s.holders.empty()) CloseWindow(key, s, nullptr);
    }
    Summarize();
    return std::move(result_);
  }

 private:
  void Summarize() {
    result_.stats = {{"keys", keys_.size()},
                     {"free_windows_with_failures", windows_},
                     {"longest_refused_ms", longest_ms_},
                     {"leases", leases_}};
    if (unjudged_ > 0) result_.stats["windows_without_lease"] = unjudged_;
    if (unexplained_ > 0) {
      result_.stats["refused_without_a_crash"] = unexplained_;
      result_.stats["longest_refused_without_a_crash_ms"] = longest_unexplained_ms_;
    }
    if (!result_.anomalies.empty()) {
      result_.valid = Validity::kFalse;
      result_.summary = std::to_string(result_.anomalies.size()) +
                        " stuck locks: free, yet refused to everyone for more than " +
                        std::to_string(leases_) + " leases";
    }
  }

 private:
  void OnCrash(int64_t process, const Op& op) {
    auto it = open_.find(process);
    if (it != open_.end()) {
      const Op& acquire = it->second;
      keys_[acquire.key].crashed.push_back({acquire, RefOnly(op)});
      open_.erase(it);  // it will never complete
    }
    for (auto& [key, s] : keys_) {
      auto held = s.holders.find(process);
      if (held == s.holders.end()) continue;
      s.crashed.push_back({held->second, RefOnly(op)});
      s.holders.erase(held);
      if (s.holders.empty()) s.free_since = op.time;
    }
  }

  void OnHoldEnd(const Op& op) {
    auto it = keys_.find(op.key);
    if (it != keys_.end() && it->second.holders.erase(op.process) > 0 &&
        it->second.holders.empty()) {
      it->second.free_since = op.time;
    }
  }

  void OnAcquire(const Op& op) {
    auto [it, fresh] = keys_.try_emplace(op.key);
    KeyState& s = it->second;
    if (fresh) s.free_since = op.time;
    if (op.type == OpType::kInvoke) {
      if (op.value.is_object() && op.value.contains("lease_ms") &&
          op.value["lease_ms"].is_number_integer()) {
        s.lease_ms = std::max(s.lease_ms, op.value["lease_ms"].get<int64_t>());
      }
      open_[op.process] = RefOnly(op);
      return;
    }
    auto invoked = open_.find(op.process);
    if (invoked == open_.end()) return;  // a lone completion
    const int64_t invoked_at = invoked->second.time;
    open_.erase(invoked);
    if (op.type == OpType::kOk) {
      if (s.holders.empty()) CloseWindow(op.key, s, &op);
      s.holders[op.process] = RefOnly(op);
      s.last_grant = RefOnly(op);
    } else if (op.type == OpType::kFail && s.holders.empty() && invoked_at >= s.free_since) {
      if (!s.first_fail) s.first_fail = RefOnly(op);
      s.last_fail = RefOnly(op);
      ++s.failures;
    }
  }

  // Judges the key's free window, which the grant `end` (or, when null, the
  // end of the history) closes, and opens the next one.
  void CloseWindow(const std::string& key, KeyState& s, const Op* end) {
    if (s.failures > 0) {
      ++windows_;
      const int64_t span_ns = s.last_fail->time - s.free_since;
      longest_ms_ = std::max(longest_ms_, span_ns / kNsPerMs);
      if (s.lease_ms <= 0) {
        ++unjudged_;
      } else if (span_ns > static_cast<int64_t>(leases_) * s.lease_ms * kNsPerMs &&
                 s.crashed.empty()) {
        // No crash explains it: a service that did not answer (a paused or
        // cut-off server, a lost quorum) refuses everyone as long, and the
        // availability checker reports that. Counted, not judged.
        ++unexplained_;
        longest_unexplained_ms_ = std::max(longest_unexplained_ms_, span_ns / kNsPerMs);
      } else if (span_ns > static_cast<int64_t>(leases_) * s.lease_ms * kNsPerMs) {
        result_.anomalies.push_back(StuckLock(key, s, span_ns, end));
      }
    }
    s.first_fail.reset();
    s.last_fail.reset();
    s.failures = 0;
    s.crashed.clear();
  }

  nlohmann::json StuckLock(const std::string& key, const KeyState& s, int64_t span_ns,
                           const Op* end) const {
    nlohmann::json ops = nlohmann::json::array();
    nlohmann::json grant = nullptr;
    if (s.last_grant) {
      grant = OpRef(*s.last_grant);
      ops.push_back(grant);
    }
    nlohmann::json crashed = nlohmann::json::array();
    for (const auto& [a, c] : s.crashed) {
      crashed.push_back({{"process", a.process}, {"acquire", OpRef(a)}, {"crash", OpRef(c)}});
      ops.push_back(OpRef(a));
      ops.push_back(OpRef(c));
    }
    const Op& last_fail = *s.last_fail;
    ops.push_back(OpRef(*s.first_fail));
    if (last_fail.index != s.first_fail->index) ops.push_back(OpRef(last_fail));
    const int64_t to_ns = end != nullptr ? end->time : last_time_;
    return {{"type", "stuck-lock"},
            {"class", "crashed-acquirer"},
            {"key", key},
            {"window",
             {{"from_ms", s.free_since / kNsPerMs},
              {"last_failure_ms", last_fail.time / kNsPerMs},
              {"to_ms", to_ns / kNsPerMs},
              {"granted_again", end != nullptr}}},
            {"stuck_ms", span_ns / kNsPerMs},
            {"lease_ms", s.lease_ms},
            {"leases", static_cast<double>(span_ns) / static_cast<double>(s.lease_ms * kNsPerMs)},
            {"failed_acquires", s.failures},
            {"last_grant", grant},
            {"crashed", crashed},
            {"ops", ops}};
  }

  const int leases_;
  CheckResult result_;
  int64_t last_time_ = 0;  // the latest op's
  std::map<std::string, KeyState> keys_;
  // Each process's acquire in flight: its invoke.
  std::unordered_map<int64_t, Op> open_;
  int64_t windows_ = 0, unjudged_ = 0, longest_ms_ = 0;
  int64_t unexplained_ = 0, longest_unexplained_ms_ = 0;
};

}  // namespace

void DeclareStuckLeases(OptionSet& set, int* field) {
  set.Integer("stuck_leases", "--stuck-leases", field, 1, 1'000'000,
              "leases a free lock may refuse every acquire before the stuck-lock checker "
              "reports it");
}

std::unique_ptr<CheckPass> StuckLockChecker::Start() const {
  return std::make_unique<StuckLockPass>(leases_);
}

}  // namespace locksmith
