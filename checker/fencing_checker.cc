#include "checker/fencing_checker.h"

#include <unordered_map>

#include "checker/resource_updates.h"

namespace locksmith {
namespace {

struct Highest {
  int64_t fence = 0;
  int64_t position = -1;  // of the accepted op's completion
};

}  // namespace

CheckResult FencingChecker::Check(const History& history) const {
  CheckResult result;
  const std::vector<int64_t> completion = PairCompletions(history);
  // Per key, the highest fence of an accepted op that has completed so far.
  std::unordered_map<std::string, Highest> highest;
  // Completion position -> the fence of the accepted op it completes.
  std::unordered_map<int64_t, int64_t> pending;
  int64_t accepted = 0, rejected = 0, fenced = 0;
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    if (!op.is_client() || (op.f != "read" && op.f != "write")) continue;
    if (op.type != OpType::kInvoke) {
      if (IsRejected(op)) ++rejected;
      auto it = pending.find(static_cast<int64_t>(i));
      if (it == pending.end()) continue;
      Highest& h = highest[op.key];
      if (h.position < 0 || it->second > h.fence) h = {it->second, static_cast<int64_t>(i)};
      pending.erase(it);
      continue;
    }
    if (!op.value.is_object() || !op.value.contains("fence") ||
        !op.value["fence"].is_number_integer()) {
      continue;
    }
    ++fenced;
    const int64_t done = completion[i];
    if (done < 0 || history[static_cast<size_t>(done)].type != OpType::kOk) continue;
    ++accepted;
    const int64_t fence = op.value["fence"].get<int64_t>();
    pending[done] = fence;
    if (op.f != "write") continue;
    auto h = highest.find(op.key);
    if (h == highest.end() || h->second.fence <= fence) continue;
    const Op& before = history[static_cast<size_t>(h->second.position)];
    result.anomalies.push_back(
        {{"type", "stale-write-accepted"},
         {"key", op.key},
         {"fence", fence},
         {"accepted_before", h->second.fence},
         {"ops", {OpRef(before), OpRef(op), OpRef(history[static_cast<size_t>(done)])}}});
  }
  result.stats = {{"fenced_ops", fenced}, {"accepted", accepted}, {"rejected", rejected}};
  if (!result.anomalies.empty()) {
    result.valid = Validity::kFalse;
    result.summary = std::to_string(result.anomalies.size()) +
                     " writes accepted with a fence lower than one accepted before";
  } else if (rejected > 0) {
    result.summary = std::to_string(rejected) + " stale reads or writes rejected";
  }
  return result;
}

}  // namespace locksmith
