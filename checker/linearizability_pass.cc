// LinearizabilityChecker's pass: each key's ops spooled, then checked one
// key at a time (see linearizability_checker.h).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "base/parallel.h"
#include "checker/key_spool.h"
#include "checker/leased_lock_checker.h"
#include "checker/linearizability_checker.h"

namespace locksmith {
namespace {

using Clock = std::chrono::steady_clock;

// The keys' results merged as one check over all of them would give them.
class KeyMerge {
 public:
  explicit KeyMerge(const LinearizabilityOptions& options) : options_(options) {}

  void Add(const std::string& key, CheckResult r, bool nothing_to_judge) {
    something_to_judge_ |= !nothing_to_judge;
    const nlohmann::json& s = r.stats;
    for (const char* sum : {"ops", "pending_ops", "failed_ops", "partitions", "partitions_invalid",
                            "partitions_unknown", "partitions_not_searched", "segments", "states_explored",
                            "distinct_keys"}) {
      sums_[sum] += s.value(sum, int64_t{0});
    }
    independent_ |= s.value("independent_keys", false);
    peak_ = std::max(peak_, s.value("peak_memory_bytes", int64_t{0}));
    if (s.contains("ignored_ops")) {
      for (const auto& [f, n] : s["ignored_ops"].items()) ignored_[f] += n.get<int64_t>();
    }
    if (const auto l = s.find("leases"); l != s.end()) {
      leases_applied_ |= l->value("applied", false);
      failed_releases_ += l->value("failed_releases", int64_t{0});
      lock_losses_ += l->value("lock_losses", int64_t{0});
    }
    for (const auto& k : s.value("keys_not_searched", nlohmann::json::array())) {
      if (keys_not_searched_.size() < kMaxKeysNamed) keys_not_searched_.push_back(k);
    }
    for (auto& anomaly : r.anomalies) result_.anomalies.push_back(std::move(anomaly));
    if (r.valid == Validity::kUnknown && first_undecided_.empty()) {
      // "1 of 1 partitions undecided (REASON)": the reason inside.
      const size_t open = r.reason.find("undecided (");
      first_undecided_ = open == std::string::npos || r.reason.back() != ')'
                             ? (key.empty() ? "" : "key " + key + ": ") + r.reason
                             : r.reason.substr(open + 11, r.reason.size() - open - 12);
    }
  }

  CheckResult Finish(Clock::time_point start) && {
    const int64_t invalid = sums_["partitions_invalid"], unknown = sums_["partitions_unknown"];
    result_.valid = invalid > 0   ? Validity::kFalse
                    : unknown > 0 ? Validity::kUnknown
                                  : Validity::kTrue;
    if (unknown > 0) {
      result_.reason = std::to_string(unknown) + " of " + std::to_string(sums_["partitions"]) +
                       " partitions undecided (" + first_undecided_ + ")";
    }
    result_.stats = {{"model", options_.model}, {"independent_keys", independent_},
                     {"time_s", std::chrono::duration<double>(options_.now() - start).count()},
                     {"peak_memory_bytes", peak_}};
    for (const auto& [name, n] : sums_) result_.stats[name] = n;
    result_.stats["keys_not_searched"] = keys_not_searched_;
    if (!ignored_.empty()) result_.stats["ignored_ops"] = ignored_;
    result_.stats["leases"] = {{"rule", LeaseRuleName(options_.leases)},
                               {"applied", leases_applied_},
                               {"failed_releases", failed_releases_},
                               {"lock_losses", lock_losses_}};
    if (sums_["ops"] == 0 && !ignored_.empty()) return NoModelledOp();
    if (!something_to_judge_) ApplyNothingToJudge(History(), result_);
    return std::move(result_);
  }

 private:
  // What CheckLinearizable says of a history none of whose ops the model
  // checks, as the checker reports it.
  CheckResult NoModelledOp() const {
    std::string seen;
    for (const auto& [f, n] : ignored_) seen += (seen.empty() ? "" : ", ") + f;
    CheckResult unknown;
    unknown.valid = Validity::kUnknown;
    unknown.reason = "no op in the history is one that model " + options_.model +
                     " checks (f seen: " + seen + ")";
    return unknown;
  }

  const LinearizabilityOptions& options_;
  CheckResult result_;
  std::map<std::string, int64_t> sums_;
  std::map<std::string, int64_t> ignored_;
  bool independent_ = false, leases_applied_ = false, something_to_judge_ = false;
  int64_t peak_ = 0, failed_releases_ = 0, lock_losses_ = 0;
  std::string first_undecided_;
  static constexpr size_t kMaxKeysNamed = 100;  // as CheckLinearizable names them
  nlohmann::json keys_not_searched_ = nlohmann::json::array();
};

class LinearizabilityPass : public CheckPass {
 public:
  explicit LinearizabilityPass(const LinearizabilityOptions& options) : options_(options) {}

  void Observe(const Op& op) override {
    if (!op.is_client() || !error_.empty()) return;
    std::string key = op.key;
    if (op.type == OpType::kInvoke) {
      invoked_key_[op.process] = op.key;
    } else if (key.empty()) {
      auto it = invoked_key_.find(op.process);
      if (it != invoked_key_.end()) key = it->second;
    }
    if (Status s = spool_.Add(key, op); !s) error_ = s.error();
  }

  CheckResult Finish() override;

 private:
  const LinearizabilityOptions options_;
  KeySpool spool_;
  std::unordered_map<int64_t, std::string> invoked_key_;  // process -> its last invoke's key
  std::string error_;
};

// Keys are searched on up to this many threads at once (each key with the
// whole memory budget): the judge of a long run has the machine to itself.
size_t KeySearchThreads() {
  return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
}

// Several keys are searched at once only while what their checks hold
// together is at most this much: a long run's keys, each as long as the
// run, are searched one at a time, so that memory follows one key, not the
// threads. What a key's check holds, from what its ops take encoded (some
// 50 bytes an op): the compiled ops of a streamed check (some 90 bytes an
// op), or the ops themselves where the check reads them whole (some 400).
constexpr size_t kConcurrentKeyBytes = size_t{256} << 20;
constexpr size_t kStreamedPerEncoded = 2;
constexpr size_t kWholePerEncoded = 10;

// Admits keys to the search by their size (above). Thread-safe.
class KeyAdmission {
 public:
  void Enter(size_t bytes) {
    std::unique_lock<std::mutex> lock(mu_);
    left_.wait(lock, [&] { return in_flight_ == 0 || in_flight_ + bytes <= kConcurrentKeyBytes; });
    in_flight_ += bytes;
  }
  void Leave(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      in_flight_ -= bytes;
    }
    left_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable left_;
  size_t in_flight_ = 0;
};

CheckResult LinearizabilityPass::Finish() {
  const Clock::time_point start = options_.now();
  const std::vector<std::string>& keys = spool_.keys();
  struct KeyOutcome {
    Result<CheckResult> checked = Error{"not searched"};
    bool nothing = true;
  };
  std::vector<KeyOutcome> outcomes(keys.size());
  std::atomic<size_t> next{0};
  KeyAdmission admission;
  auto search = [&](size_t) -> Status {
    for (size_t i = next++; i < keys.size(); i = next++) {
      const size_t encoded = spool_.EncodedBytes(keys[i]);
      size_t held = encoded * kStreamedPerEncoded;
      admission.Enter(held);
      auto ops = error_.empty() ? spool_.TakeStream(keys[i])
                                : Result<std::unique_ptr<HistoryLogStream>>(Error{error_});
      if (ops) {
        // Each key's search has the whole budget, as each partition's has
        // in a check of the whole history (SearchPartitions): a 300 s
        // full-speed run's 50 keys of some 970,000 events each take about
        // 0.4 s to search, 20 s together.
        auto read_whole = [&] {
          admission.Leave(held);
          held = encoded * kWholePerEncoded;
          admission.Enter(held);
        };
        outcomes[i].checked = CheckLinearizableKeyStream(**ops, keys[i], options_,
                                                         outcomes[i].nothing, read_whole);
        ops->reset();  // its file closed before another key is admitted
      } else {
        outcomes[i].checked = Error{ops.error()};
      }
      admission.Leave(held);
    }
    return OkStatus();
  };
  (void)ForEachInParallel(std::min(KeySearchThreads(), std::max<size_t>(keys.size(), 1)), search);
  KeyMerge merge(options_);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!outcomes[i].checked) {
      CheckResult unknown;
      unknown.valid = Validity::kUnknown;
      unknown.reason = outcomes[i].checked.error();
      return unknown;
    }
    merge.Add(keys[i], std::move(*outcomes[i].checked), outcomes[i].nothing);
  }
  return std::move(merge).Finish(start);
}

}  // namespace

std::unique_ptr<CheckPass> LinearizabilityChecker::Start() const {
  return std::make_unique<LinearizabilityPass>(options_);
}

}  // namespace locksmith
