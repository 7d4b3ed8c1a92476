#include "checker/leased_lock_checker.h"

#include <algorithm>
#include <string>

namespace locksmith {

bool IsFailedRelease(const Op& op) {
  return op.is_client() && op.type == OpType::kFail && IsReleaseOp(op.f);
}

Result<LeaseRule> ParseLeaseRule(std::string_view name) {
  if (name == "auto") return LeaseRule::kAuto;
  if (name == "on") return LeaseRule::kOn;
  if (name == "off") return LeaseRule::kOff;
  return Error{"--leases must be auto, on or off, not \"" + std::string(name) + "\""};
}

std::string_view LeaseRuleName(LeaseRule rule) {
  switch (rule) {
    case LeaseRule::kAuto: return "auto";
    case LeaseRule::kOn: return "on";
    case LeaseRule::kOff: return "off";
  }
  return "?";
}

bool HistoryRecordsLeases(const History& history) {
  return std::any_of(history.begin(), history.end(), RecordsLease);
}

bool LeaseRuleApplies(LeaseRule rule, const History& history) {
  switch (rule) {
    case LeaseRule::kOn: return true;
    case LeaseRule::kOff: return false;
    case LeaseRule::kAuto: return HistoryRecordsLeases(history);
  }
  return false;
}

int64_t CountFailedReleases(const History& history) {
  return std::count_if(history.begin(), history.end(), IsFailedRelease);
}

int64_t CountLockLosses(const History& history) {
  return std::count_if(history.begin(), history.end(), IsLockLoss);
}

void AppendUnderLeaseRule(const Op& op, History* out) {
  if (!IsLockLoss(op)) {
    Op& kept = out->emplace_back(op);
    if (IsFailedRelease(kept)) {
      kept.type = OpType::kInfo;
      kept.error = "release failed (" + kept.error + "); the lease expires at an unknown time";
    }
    return;
  }
  Op invoke = op;
  invoke.type = OpType::kInvoke;
  invoke.f = "release";
  invoke.value = {{"lock_lost", true}, {"token", TokenOf(op)}};
  invoke.error.clear();
  Op done = invoke;
  done.type = OpType::kOk;
  out->push_back(std::move(invoke));
  out->push_back(std::move(done));
}

History ApplyLeaseRule(const History& history) {
  History rewritten;
  rewritten.reserve(history.size() + 8);
  for (const Op& op : history) AppendUnderLeaseRule(op, &rewritten);
  return rewritten;
}

}  // namespace locksmith
