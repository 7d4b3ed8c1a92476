#include "history/lock_ops.h"
#include "history/fault_names.h"

namespace locksmith {
namespace {

bool HasLockOpNumber(const nlohmann::json& value, const char* field) {
  if (!value.is_object()) return false;
  auto it = value.find(field);
  return it != value.end() && it->is_number();
}

// Beyond this a duration is taken as unknown rather than overflow the
// nanosecond clock (imported histories may carry anything).
constexpr int64_t kMaxLockOpMs = int64_t{1} << 40;

// value.`field` in ms when it is an integer of a sane size.
std::optional<int64_t> LockOpMillisIn(const Op& op, const char* field) {
  if (!op.value.is_object()) return std::nullopt;
  auto it = op.value.find(field);
  if (it == op.value.end() || !it->is_number_integer()) return std::nullopt;
  const int64_t ms = it->get<int64_t>();
  if (ms >= kMaxLockOpMs || ms <= -kMaxLockOpMs) return std::nullopt;
  return ms;
}

}  // namespace

bool IsAcquireOp(std::string_view f) { return f.rfind("acquire", 0) == 0; }

bool IsReleaseOp(std::string_view f) {
  return f == "release" || f == "release-shared" || f == "release-exclusive" ||
         f == "release-write" || f == "release-read";
}

bool RecordsLease(const Op& op) {
  if (!op.is_client() || !IsAcquireOp(op.f)) return false;
  return (op.type == OpType::kInvoke && HasLockOpNumber(op.value, "lease_ms")) ||
         (op.type == OpType::kOk && HasLockOpNumber(op.value, "validity_ms"));
}

bool IsLockEvent(const Op& op) {
  return op.is_client() && op.type != OpType::kInvoke && (op.f == kRenewOp || op.f == kLockLostOp);
}

bool IsLockLoss(const Op& op) { return IsLockEvent(op) && op.f == kLockLostOp; }

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

std::optional<int64_t> LeaseEndOf(const Op& ok) {
  if (ok.type != OpType::kOk || HasSessionLease(ok)) return std::nullopt;
  const std::optional<int64_t> validity = LockOpMillisIn(ok, "validity_ms");
  if (!validity) return std::nullopt;
  return ok.time + *validity * 1'000'000;
}

bool HasSessionLease(const Op& ok) {
  if (ok.type != OpType::kOk || !ok.value.is_object()) return false;
  auto it = ok.value.find("session_lease");
  return it != ok.value.end() && it->is_boolean() && it->get<bool>();
}

std::optional<int64_t> CutOffOf(const Op& lost) {
  const std::optional<int64_t> ago = LockOpMillisIn(lost, "cut_off_ms");
  if (!ago || *ago < 0) return std::nullopt;
  return lost.time - *ago * 1'000'000;
}

int64_t CrashedProcessOf(const Op& op) {
  if (!op.is_nemesis() || op.type != OpType::kInfo || op.f != kClientCrash ||
      !op.error.empty() || !op.value.is_object() || !op.value.contains("process") ||
      !op.value["process"].is_number_integer()) {
    return -1;
  }
  return op.value["process"].get<int64_t>();
}

}  // namespace locksmith
