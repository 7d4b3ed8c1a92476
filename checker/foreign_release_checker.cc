#include "checker/foreign_release_checker.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "checker/completion_pairer.h"
#include "checker/leased_lock_checker.h"

namespace locksmith {
namespace {

constexpr int64_t kNoEnd = std::numeric_limits<int64_t>::max();

// A hold open now: granted at `granted` (its acquire's ok), its lease
// ending at `lease_end` as its holder knew it (kNoEnd: by no time).
struct OpenHold {
  int64_t granted = -1;  // history position of the acquire's ok
  int64_t granted_at = 0;  // its time
  Op grant;  // RefOnly
  int64_t lease_end = kNoEnd;
  bool lease_known = false;
};

// A release invoked by a holder, waiting for its completion.
struct PendingRelease {
  std::string key;
  int64_t process = 0;
  int64_t invoke_index = 0;  // the release invoke's Op::index
  int64_t invoked = -1;      // its position
  Op invoke;                 // RefOnly
  OpenHold hold;
};

// One pass: holds open per key, releases in flight per process.
class ForeignReleasePass : public CheckPass {
 public:
  explicit ForeignReleasePass(size_t max_listed) : max_listed_(max_listed) {}

  void Observe(const Op& op) override {
    const int64_t position = position_++;
    const CompletionPairer::Pairing pairing = pairer_.Observe(op);
    const bool client_invoke = op.is_client() && op.type == OpType::kInvoke;
    const bool reentry = client_invoke && IsReentry(op);
    if (client_invoke) {
      if (reentry) {
        reentry_invokes_.insert(op.process);
      } else {
        reentry_invokes_.erase(op.process);
      }
    }
    if (IsLockEvent(op)) {
      OnLockEvent(op);
    } else if (client_invoke && IsReleaseOp(op.f) && !reentry) {
      OnReleaseInvoke(position, op);
    } else if (op.is_client() && pairing.invoke) {
      OnCompletion(position, *pairing.invoke, reentry_invokes_.contains(op.process), op);
    }
  }

  CheckResult Finish() override;

 private:
  // A renewal extends the lease; a lock-lost notice ends the hold.
  void OnLockEvent(const Op& op) {
    if (op.f == kLockLostOp) {
      auto key = open_.find(op.key);
      if (key != open_.end()) key->second.erase(op.process);
      return;
    }
    if (op.type == OpType::kOk) Extend(op.key, op.process, op);
  }

  void Extend(const std::string& key, int64_t process, const Op& ok) {
    auto k = open_.find(key);
    if (k == open_.end()) return;
    auto h = k->second.find(process);
    if (h == k->second.end()) return;
    if (auto end = LeaseEndOf(ok); end && h->second.lease_end != kNoEnd) {
      h->second.lease_end = std::max(h->second.lease_end, *end);
    }
  }

  void OnReleaseInvoke(int64_t position, const Op& op) {
    auto k = open_.find(op.key);
    if (k == open_.end()) return;
    auto h = k->second.find(op.process);
    if (h == k->second.end()) return;
    pending_[op.process] = {op.key, op.process, op.index, position, RefOnly(op),
                            std::move(h->second)};
    k->second.erase(h);
  }

  // Holds open at their acquire's ok; a re-entry extends the lease (at its
  // completion: its holder does nothing else meanwhile); an ok release is
  // judged.
  // `invoke`: RefOnly; `reentry`: whether its value said so.
  void OnCompletion(int64_t position, const Op& invoke, bool reentry, const Op& op) {
    if (invoke.f == "acquire" && reentry) {
      Extend(invoke.key, invoke.process, op);
      return;
    }
    if (op.type != OpType::kOk) return;
    if (invoke.f == "acquire") {
      OpenHold hold{position, op.time, RefOnly(op)};
      if (auto end = LeaseEndOf(op)) {
        hold.lease_end = *end;
        hold.lease_known = true;
      } else {
        hold.lease_known = HasSessionLease(op);
      }
      open_[op.key][invoke.process] = std::move(hold);
      return;
    }
    auto p = pending_.find(invoke.process);
    if (p == pending_.end() || p->second.invoke_index != invoke.index) return;
    const PendingRelease release = std::move(p->second);
    pending_.erase(p);
    ++ok_releases_;
    JudgeRelease(release, op);
  }

  // The release completed ok: was another holder's lock, granted after the
  // releaser's lease had ended, there at the time?
  void JudgeRelease(const PendingRelease& release, const Op& done) {
    auto k = open_.find(release.key);
    if (k == open_.end()) return;
    for (const auto& [holder, hold] : k->second) {
      if (holder == release.process || hold.granted > release.invoked) continue;
      if (hold.granted < release.hold.granted) continue;  // not a later grant
      const bool lease_over =
          !release.hold.lease_known || release.hold.lease_end <= hold.granted_at;
      if (!lease_over) continue;
      ++foreign_;
      if (anomalies_.size() >= max_listed_) return;
      anomalies_.push_back({{"type", "foreign-release"},
                            {"key", release.key},
                            {"releaser", release.process},
                            {"holder", holder},
                            {"ops",
                             {OpRef(release.hold.grant), OpRef(hold.grant),
                              OpRef(release.invoke), OpRef(done)}}});
      return;  // one foreign lock per release is proof enough
    }
  }

  const size_t max_listed_;
  int64_t position_ = 0;
  // Without values: what a completion needs of its invoke's value is
  // whether it was a re-entry, noted here at the invoke.
  CompletionPairer pairer_{false};
  std::unordered_set<int64_t> reentry_invokes_;  // processes whose open invoke re-enters
  // Per key, the holds open now by process.
  std::unordered_map<std::string, std::map<int64_t, OpenHold>> open_;
  // Per process, its release in flight (invoked while it held the key).
  std::unordered_map<int64_t, PendingRelease> pending_;
  std::vector<nlohmann::json> anomalies_;
  int64_t ok_releases_ = 0, foreign_ = 0;
};

CheckResult ForeignReleasePass::Finish() {
  CheckResult result;
  for (auto& a : anomalies_) result.anomalies.push_back(std::move(a));
  result.stats = {{"ok_releases", ok_releases_}, {"foreign_releases", foreign_}};
  if (foreign_ > 0) {
    result.valid = Validity::kFalse;
    result.summary = std::to_string(foreign_) +
                     " releases removed a lock another client held under a later grant";
  }
  return result;
}

}  // namespace

std::unique_ptr<CheckPass> ForeignReleaseChecker::Start() const {
  return std::make_unique<ForeignReleasePass>(max_listed_);
}

}  // namespace locksmith
