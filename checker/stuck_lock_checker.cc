#include "checker/stuck_lock_checker.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

namespace locksmith {
namespace {

constexpr int64_t kNsPerMs = 1'000'000;

struct KeyState {
  std::map<int64_t, int64_t> holders;  // live holders' processes -> their grant's position
  int64_t free_since = 0;     // ns; meaningful while holders is empty
  int64_t last_grant = -1;    // position of the last ok acquire
  int64_t lease_ms = 0;       // the largest asked for
  int64_t first_fail = -1;    // positions of failed acquires invoked in the window
  int64_t last_fail = -1;
  int64_t failures = 0;
  // Crashes whose process had an acquire of this key open, or held it:
  // {its acquire (invoke or grant), crash}.
  std::vector<std::pair<int64_t, int64_t>> crashed;
};

bool IsAcquire(const Op& op) { return op.is_client() && op.f == "acquire" && !op.key.empty(); }

// The process a client-crash nemesis op says crashed, or -1.
int64_t CrashedProcess(const Op& op) {
  if (!op.is_nemesis() || op.type != OpType::kInfo || op.f != "client-crash" ||
      !op.error.empty() || !op.value.is_object() || !op.value.contains("process") ||
      !op.value["process"].is_number_integer()) {
    return -1;
  }
  return op.value["process"].get<int64_t>();
}

}  // namespace

void DeclareStuckLeases(OptionSet& set, int* field) {
  set.Integer("stuck_leases", "--stuck-leases", field, 1, 1'000'000,
              "leases a free lock may refuse every acquire before the stuck-lock checker "
              "reports it");
}

CheckResult StuckLockChecker::Check(const History& history) const {
  CheckResult result;
  std::map<std::string, KeyState> keys;
  // Each process's acquire in flight: position of its invoke.
  std::unordered_map<int64_t, int64_t> open;
  int64_t windows = 0, unjudged = 0, longest_ms = 0;
  int64_t unexplained = 0, longest_unexplained_ms = 0;

  auto close_window = [&](const std::string& key, KeyState& s, int64_t end_position) {
    if (s.failures > 0) {
      ++windows;
      const int64_t span_ns = history[static_cast<size_t>(s.last_fail)].time - s.free_since;
      longest_ms = std::max(longest_ms, span_ns / kNsPerMs);
      if (s.lease_ms <= 0) {
        ++unjudged;
      } else if (span_ns > static_cast<int64_t>(leases_) * s.lease_ms * kNsPerMs &&
                 s.crashed.empty()) {
        // No crash explains it: a service that did not answer (a paused or
        // cut-off server, a lost quorum) refuses everyone as long, and the
        // availability checker reports that. Counted, not judged.
        ++unexplained;
        longest_unexplained_ms = std::max(longest_unexplained_ms, span_ns / kNsPerMs);
      } else if (span_ns > static_cast<int64_t>(leases_) * s.lease_ms * kNsPerMs) {
        nlohmann::json ops = nlohmann::json::array();
        nlohmann::json grant = nullptr;
        if (s.last_grant >= 0) {
          grant = OpRef(history[static_cast<size_t>(s.last_grant)]);
          ops.push_back(grant);
        }
        nlohmann::json crashed = nlohmann::json::array();
        for (const auto& [invoke, crash] : s.crashed) {
          const Op& a = history[static_cast<size_t>(invoke)];
          const Op& c = history[static_cast<size_t>(crash)];
          crashed.push_back({{"process", a.process}, {"acquire", OpRef(a)}, {"crash", OpRef(c)}});
          ops.push_back(OpRef(a));
          ops.push_back(OpRef(c));
        }
        ops.push_back(OpRef(history[static_cast<size_t>(s.first_fail)]));
        if (s.last_fail != s.first_fail) {
          ops.push_back(OpRef(history[static_cast<size_t>(s.last_fail)]));
        }
        const int64_t to_ns = end_position >= 0 ? history[static_cast<size_t>(end_position)].time
                                                : history.back().time;
        result.anomalies.push_back(
            {{"type", "stuck-lock"},
             {"class", "crashed-acquirer"},
             {"key", key},
             {"window",
              {{"from_ms", s.free_since / kNsPerMs},
               {"last_failure_ms", history[static_cast<size_t>(s.last_fail)].time / kNsPerMs},
               {"to_ms", to_ns / kNsPerMs},
               {"granted_again", end_position >= 0}}},
             {"stuck_ms", span_ns / kNsPerMs},
             {"lease_ms", s.lease_ms},
             {"leases", static_cast<double>(span_ns) / static_cast<double>(s.lease_ms * kNsPerMs)},
             {"failed_acquires", s.failures},
             {"last_grant", grant},
             {"crashed", crashed},
             {"ops", ops}});
      }
    }
    s.first_fail = s.last_fail = -1;
    s.failures = 0;
    s.crashed.clear();
  };

  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    const auto position = static_cast<int64_t>(i);
    if (const int64_t p = CrashedProcess(op); p >= 0) {
      auto it = open.find(p);
      if (it != open.end()) {
        const Op& acquire = history[static_cast<size_t>(it->second)];
        keys[acquire.key].crashed.push_back({it->second, position});
        open.erase(it);  // it will never complete
      }
      for (auto& [key, s] : keys) {
        auto held = s.holders.find(p);
        if (held == s.holders.end()) continue;
        s.crashed.push_back({held->second, position});
        s.holders.erase(held);
        if (s.holders.empty()) s.free_since = op.time;
      }
      continue;
    }
    if (!op.is_client() || op.key.empty()) continue;
    // A release invoke ends the hold, and so does a lock-lost notice (the
    // holder stops acting as holder and will not release).
    if ((op.f == "release" && op.type == OpType::kInvoke) || op.f == "lock-lost") {
      auto it = keys.find(op.key);
      if (it != keys.end() && it->second.holders.erase(op.process) > 0 &&
          it->second.holders.empty()) {
        it->second.free_since = op.time;
      }
      continue;
    }
    if (!IsAcquire(op)) continue;
    auto [it, fresh] = keys.try_emplace(op.key);
    KeyState& s = it->second;
    if (fresh) s.free_since = op.time;
    if (op.type == OpType::kInvoke) {
      if (op.value.is_object() && op.value.contains("lease_ms") &&
          op.value["lease_ms"].is_number_integer()) {
        s.lease_ms = std::max(s.lease_ms, op.value["lease_ms"].get<int64_t>());
      }
      open[op.process] = position;
      continue;
    }
    auto invoked = open.find(op.process);
    if (invoked == open.end()) continue;  // a lone completion
    const int64_t invoke_position = invoked->second;
    open.erase(invoked);
    if (op.type == OpType::kOk) {
      if (s.holders.empty()) close_window(op.key, s, position);
      s.holders[op.process] = position;
      s.last_grant = position;
    } else if (op.type == OpType::kFail && s.holders.empty() &&
               history[static_cast<size_t>(invoke_position)].time >= s.free_since) {
      if (s.first_fail < 0) s.first_fail = position;
      s.last_fail = position;
      ++s.failures;
    }
  }
  for (auto& [key, s] : keys) {
    if (s.holders.empty()) close_window(key, s, -1);
  }
  result.stats = {{"keys", keys.size()},
                  {"free_windows_with_failures", windows},
                  {"longest_refused_ms", longest_ms},
                  {"leases", leases_}};
  if (unjudged > 0) result.stats["windows_without_lease"] = unjudged;
  if (unexplained > 0) {
    result.stats["refused_without_a_crash"] = unexplained;
    result.stats["longest_refused_without_a_crash_ms"] = longest_unexplained_ms;
  }
  if (!result.anomalies.empty()) {
    result.valid = Validity::kFalse;
    result.summary = std::to_string(result.anomalies.size()) +
                     " stuck locks: free, yet refused to everyone for more than " +
                     std::to_string(leases_) + " leases";
  }
  return result;
}

}  // namespace locksmith
