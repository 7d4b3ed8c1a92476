#include "checker/leased_lock_checker.h"

#include <algorithm>
#include <string>

namespace locksmith {
namespace {

bool HasNumber(const nlohmann::json& value, const char* field) {
  if (!value.is_object()) return false;
  auto it = value.find(field);
  return it != value.end() && it->is_number();
}

}  // namespace

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

bool RecordsLease(const Op& op) {
  if (!op.is_client() || !IsAcquireOp(op.f)) return false;
  return (op.type == OpType::kInvoke && HasNumber(op.value, "lease_ms")) ||
         (op.type == OpType::kOk && HasNumber(op.value, "validity_ms"));
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

bool IsAcquireOp(std::string_view f) { return f.rfind("acquire", 0) == 0; }

bool IsReleaseOp(std::string_view f) {
  return f == "release" || f == "release-shared" || f == "release-exclusive" ||
         f == "release-write" || f == "release-read";
}

int64_t CountFailedReleases(const History& history) {
  return std::count_if(history.begin(), history.end(), IsFailedRelease);
}

bool IsLockEvent(const Op& op) {
  return op.is_client() && op.type != OpType::kInvoke && (op.f == kRenewOp || op.f == kLockLostOp);
}

bool IsReentry(const Op& invoke) {
  if (!invoke.value.is_object()) return false;
  auto it = invoke.value.find("reentry");
  return it != invoke.value.end() && it->is_boolean() && it->get<bool>();
}

std::string TokenOf(const Op& op) {
  if (op.value.is_object()) {
    auto it = op.value.find("token");
    if (it != op.value.end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

namespace {

// Beyond this a duration is taken as unknown rather than overflow the
// nanosecond clock (imported histories may carry anything).
constexpr int64_t kMaxMs = int64_t{1} << 40;

// value.`field` in ms when it is an integer of a sane size.
std::optional<int64_t> MillisIn(const Op& op, const char* field) {
  if (!op.value.is_object()) return std::nullopt;
  auto it = op.value.find(field);
  if (it == op.value.end() || !it->is_number_integer()) return std::nullopt;
  const int64_t ms = it->get<int64_t>();
  if (ms >= kMaxMs || ms <= -kMaxMs) return std::nullopt;
  return ms;
}

}  // namespace

std::optional<int64_t> LeaseEndOf(const Op& ok) {
  if (ok.type != OpType::kOk || HasSessionLease(ok)) return std::nullopt;
  const std::optional<int64_t> validity = MillisIn(ok, "validity_ms");
  if (!validity) return std::nullopt;
  return ok.time + *validity * 1'000'000;
}

bool HasSessionLease(const Op& ok) {
  if (ok.type != OpType::kOk || !ok.value.is_object()) return false;
  auto it = ok.value.find("session_lease");
  return it != ok.value.end() && it->is_boolean() && it->get<bool>();
}

std::optional<int64_t> CutOffOf(const Op& lost) {
  const std::optional<int64_t> ago = MillisIn(lost, "cut_off_ms");
  if (!ago || *ago < 0) return std::nullopt;
  return lost.time - *ago * 1'000'000;
}

int64_t CrashedProcessOf(const Op& op) {
  if (!op.is_nemesis() || op.type != OpType::kInfo || op.f != "client-crash" ||
      !op.error.empty() || !op.value.is_object() || !op.value.contains("process") ||
      !op.value["process"].is_number_integer()) {
    return -1;
  }
  return op.value["process"].get<int64_t>();
}

bool IsLockLoss(const Op& op) { return IsLockEvent(op) && op.f == kLockLostOp; }

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
