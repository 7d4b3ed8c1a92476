#include "checker/foreign_release_checker.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

#include "checker/leased_lock_checker.h"

namespace locksmith {
namespace {

constexpr int64_t kNoEnd = std::numeric_limits<int64_t>::max();

// A hold open now: granted at `granted` (its acquire's ok), its lease
// ending at `lease_end` as its holder knew it (kNoEnd: by no time).
struct OpenHold {
  int64_t granted = -1;  // history position of the acquire's ok
  int64_t lease_end = kNoEnd;
  bool lease_known = false;
};

// A release invoked by a holder, waiting for its completion.
struct PendingRelease {
  std::string key;
  int64_t process = 0;
  int64_t invoked = -1;  // position of the release invoke
  OpenHold hold;
};

class ForeignReleaseScan {
 public:
  ForeignReleaseScan(const History& history, size_t max_listed)
      : history_(history), completion_(PairCompletions(history)), max_listed_(max_listed) {}

  CheckResult Run() {
    for (size_t i = 0; i < history_.size(); ++i) {
      const Op& op = history_[i];
      if (IsLockEvent(op)) {
        OnLockEvent(op);
      } else if (op.is_client() && op.type == OpType::kInvoke && !IsReentry(op)) {
        if (op.f == "acquire") OnAcquire(i, op);
        if (IsReleaseOp(op.f)) OnReleaseInvoke(i, op);
      } else if (op.is_client() && op.type == OpType::kInvoke && op.f == "acquire") {
        OnReentry(i, op);
      } else if (op.is_client() && op.type == OpType::kOk) {
        OnCompletion(i, op);
      }
    }
    return Result();
  }

 private:
  // Holds become open at their acquire's ok (OnCompletion); here the ok is
  // remembered by its position.
  void OnAcquire(size_t i, const Op& op) {
    const int64_t done = completion_[i];
    if (done < 0 || history_[static_cast<size_t>(done)].type != OpType::kOk) return;
    acquires_[done] = op.process;
  }

  void OnReentry(size_t i, const Op& op) {
    const int64_t done = completion_[i];
    if (done < 0) return;
    Extend(op.key, op.process, history_[static_cast<size_t>(done)]);
  }

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

  void OnReleaseInvoke(size_t i, const Op& op) {
    auto k = open_.find(op.key);
    if (k == open_.end()) return;
    auto h = k->second.find(op.process);
    if (h == k->second.end()) return;
    const OpenHold hold = h->second;
    k->second.erase(h);
    const int64_t done = completion_[i];
    if (done < 0 || history_[static_cast<size_t>(done)].type != OpType::kOk) return;
    pending_[done] = {op.key, op.process, static_cast<int64_t>(i), hold};
  }

  void OnCompletion(size_t i, const Op& op) {
    const auto position = static_cast<int64_t>(i);
    if (auto a = acquires_.find(position); a != acquires_.end()) {
      OpenHold hold{position};
      if (auto end = LeaseEndOf(op)) {
        hold.lease_end = *end;
        hold.lease_known = true;
      } else {
        hold.lease_known = HasSessionLease(op);
      }
      open_[op.key][a->second] = hold;
      acquires_.erase(a);
      return;
    }
    auto p = pending_.find(position);
    if (p == pending_.end()) return;
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
      const int64_t granted_at = history_[static_cast<size_t>(hold.granted)].time;
      const bool lease_over = !release.hold.lease_known || release.hold.lease_end <= granted_at;
      if (!lease_over) continue;
      ++foreign_;
      if (anomalies_.size() >= max_listed_) return;
      const Op& own = history_[static_cast<size_t>(release.hold.granted)];
      anomalies_.push_back(
          {{"type", "foreign-release"},
           {"key", release.key},
           {"releaser", release.process},
           {"holder", holder},
           {"ops",
            {OpRef(own), OpRef(history_[static_cast<size_t>(hold.granted)]),
             OpRef(history_[static_cast<size_t>(release.invoked)]), OpRef(done)}}});
      return;  // one foreign lock per release is proof enough
    }
  }

  CheckResult Result() {
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

  const History& history_;
  const std::vector<int64_t> completion_;
  const size_t max_listed_;
  // Position of an acquire's ok completion -> its process.
  std::unordered_map<int64_t, int64_t> acquires_;
  // Per key, the holds open now by process.
  std::unordered_map<std::string, std::map<int64_t, OpenHold>> open_;
  // Position of an ok release completion -> the release.
  std::unordered_map<int64_t, PendingRelease> pending_;
  std::vector<nlohmann::json> anomalies_;
  int64_t ok_releases_ = 0, foreign_ = 0;
};

}  // namespace

CheckResult ForeignReleaseChecker::Check(const History& history) const {
  return ForeignReleaseScan(history, max_listed_).Run();
}

}  // namespace locksmith
