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

ProgressCounter::Seen ProgressCounter::SeenOf(const Op& op) {
  Seen seen;
  seen.process = op.process;
  seen.time = op.time;
  seen.type = op.type;
  if (op.is_nemesis()) {
    seen.fault = op.fault;
    return seen;
  }
  seen.acquire = op.f == "acquire";
  seen.release = op.f == "release";
  seen.key = op.key;
  if (seen.acquire && op.type == OpType::kInvoke) {
    seen.shared = IsShared(op.value);
    seen.lease_ms = IntIn(op.value, "lease_ms");
  } else if (seen.acquire && op.type == OpType::kOk) {
    seen.validity_ms = IntIn(op.value, "validity_ms");
  }
  return seen;
}

OpStamp ProgressCounter::Record(Op op) {
  Seen seen = SeenOf(op);
  const OpStamp stamp = inner_->Record(std::move(op));
  seen.time = stamp.time;
  ObserveSeen(seen);
  return stamp;
}

void ProgressCounter::Observe(const Op& op) { ObserveSeen(SeenOf(op)); }

void ProgressCounter::ObserveSeen(const Seen& op) {
  std::lock_guard lock(mu_);
  if (op.process == kNemesisProcess) return ObserveNemesis(op);
  if (op.process < 0) return;
  switch (op.type) {
    case OpType::kInvoke:
      if (op.acquire) {
        pending_[op.process] = {true, op.shared, op.lease_ms};
      } else if (op.release) {
        // The hold ends when its release is sent, as the checker counts it.
        if (auto it = holds_.find(op.key); it != holds_.end()) {
          Holders& holders = it->second;
          for (size_t i = 0; i < holders.size(); ++i) {
            if (holders[i].first != op.process) continue;
            holders[i] = holders.back();
            holders.pop_back();
            break;
          }
        }
      }
      return;
    case OpType::kOk:
      ++counts_.ok;
      if (op.acquire) ObserveAcquireOk(op);
      break;
    case OpType::kFail:
      ++counts_.fail;
      break;
    case OpType::kInfo:
      ++counts_.info;
      // The client may be gone: its holds last until their leases end.
      for (auto& [key, holders] : holds_) {
        for (auto& [process, hold] : holders) {
          if (process == op.process) hold.retired = true;
        }
      }
      break;
  }
  const auto pending = pending_.find(op.process);
  if (pending == pending_.end()) return;
  if (op.acquire) pending->second.valid = false;
  // After an info its process may be done for good: keep no entry of it
  // unless an acquire of its own is still in flight.
  if (op.type == OpType::kInfo && !pending->second.valid) pending_.erase(pending);
}

void ProgressCounter::ObserveAcquireOk(const Seen& op) {
  const auto pending = pending_.find(op.process);
  const Pending invoked =
      pending != pending_.end() && pending->second.valid ? pending->second : Pending{};
  Hold hold;
  hold.shared = invoked.shared;
  int64_t lease_ms = op.validity_ms;
  if (lease_ms <= 0) lease_ms = invoked.lease_ms;
  hold.lease_end = lease_ms > 0 ? op.time + lease_ms * 1'000'000 : 0;
  Holders& holders = holds_[op.key];
  Hold* own = nullptr;  // a reentrant acquire's earlier hold
  for (auto& [process, other] : holders) {
    if (process == op.process) {
      own = &other;
      continue;
    }
    if (hold.shared && other.shared) continue;
    if (other.retired && (other.lease_end == 0 || other.lease_end <= op.time)) continue;
    ++counts_.double_holders;
  }
  if (own != nullptr) {
    *own = hold;
  } else {
    holders.emplace_back(op.process, hold);
  }
}

void ProgressCounter::ObserveNemesis(const Seen& op) {
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
