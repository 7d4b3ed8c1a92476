#include "harness/progress_counter.h"

#include <set>

namespace locksmith {
namespace {

int64_t IntIn(const nlohmann::json& value, const char* key) {
  if (!value.is_object()) return 0;
  auto it = value.find(key);
  return it != value.end() && it->is_number() ? it->get<int64_t>() : 0;
}

bool IsShared(const nlohmann::json& value) {
  if (!value.is_object()) return false;
  auto it = value.find("mode");
  return it != value.end() && it->is_string() && it->get<std::string>() == "read";
}

}  // namespace

Op ProgressCounter::Record(Op op) {
  Op recorded = inner_->Record(std::move(op));
  Observe(recorded);
  return recorded;
}

void ProgressCounter::Observe(const Op& op) {
  std::lock_guard lock(mu_);
  if (op.is_nemesis()) return ObserveNemesis(op);
  if (!op.is_client()) return;
  switch (op.type) {
    case OpType::kInvoke:
      if (op.f == "acquire") {
        pending_[op.process] = {IsShared(op.value), IntIn(op.value, "lease_ms")};
      } else if (op.f == "release") {
        // The hold ends when its release is sent, as the checker counts it.
        if (auto it = holds_.find(op.key); it != holds_.end()) it->second.erase(op.process);
      }
      return;
    case OpType::kOk:
      ++counts_.ok;
      if (op.f == "acquire") ObserveAcquireOk(op);
      break;
    case OpType::kFail:
      ++counts_.fail;
      break;
    case OpType::kInfo:
      ++counts_.info;
      // The client may be gone: its holds last until their leases end.
      for (auto& [key, by_process] : holds_) {
        if (auto it = by_process.find(op.process); it != by_process.end()) {
          it->second.retired = true;
        }
      }
      break;
  }
  if (op.f == "acquire") pending_.erase(op.process);
}

void ProgressCounter::ObserveAcquireOk(const Op& op) {
  const Pending invoked = pending_.count(op.process) > 0 ? pending_[op.process] : Pending{};
  Hold hold;
  hold.shared = invoked.shared;
  int64_t lease_ms = IntIn(op.value, "validity_ms");
  if (lease_ms <= 0) lease_ms = invoked.lease_ms;
  hold.lease_end = lease_ms > 0 ? op.time + lease_ms * 1'000'000 : 0;
  std::map<int64_t, Hold>& holders = holds_[op.key];
  for (const auto& [process, other] : holders) {
    if (process == op.process) continue;  // a reentrant acquire
    if (hold.shared && other.shared) continue;
    if (other.retired && (other.lease_end == 0 || other.lease_end <= op.time)) continue;
    ++counts_.double_holders;
  }
  holders[op.process] = hold;
}

void ProgressCounter::ObserveNemesis(const Op& op) {
  if (op.fault.is_null()) return;
  auto mark = FaultMarkFromJson(op.fault);
  if (!mark) return;
  if (mark->begins && op.type == OpType::kInvoke) {
    open_windows_[mark->window] = mark->family;
  } else if (!mark->begins && op.type != OpType::kInvoke) {
    open_windows_.erase(mark->window);
  }
}

ProgressCounter::Snapshot ProgressCounter::Take() const {
  std::lock_guard lock(mu_);
  Snapshot s = counts_;
  std::set<std::string> families;
  for (const auto& [window, family] : open_windows_) families.insert(family);
  s.faults.assign(families.begin(), families.end());
  return s;
}

}  // namespace locksmith
