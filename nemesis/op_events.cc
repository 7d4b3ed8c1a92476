#include "nemesis/op_events.h"

#include <algorithm>

namespace locksmith {

bool StepTrigger::Matches(const Op& op) const {
  return op.is_client() && op.type == OpType::kOk && op.f == f && (key.empty() || op.key == key);
}

nlohmann::json StepTrigger::ToJson() const {
  nlohmann::json j{{"f", f}};
  if (!key.empty()) j["key"] = key;
  return j;
}

OpEvents::OpEvents(std::vector<StepTrigger> watched)
    : watched_(std::move(watched)), counts_(watched_.size(), 0), latest_(watched_.size()) {}

size_t OpEvents::IndexOf(const StepTrigger& trigger) const {
  return static_cast<size_t>(std::find(watched_.begin(), watched_.end(), trigger) -
                             watched_.begin());
}

void OpEvents::Notify(const Op& op) {
  if (op.type != OpType::kOk || watched_.empty()) return;
  bool matched = false;
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < watched_.size(); ++i) {
    if (!watched_[i].Matches(op)) continue;
    ++counts_[i];
    latest_[i] = op;
    matched = true;
  }
  if (matched) changed_.notify_all();
}

int64_t OpEvents::Count(const StepTrigger& trigger) {
  std::lock_guard lock(mu_);
  const size_t i = IndexOf(trigger);
  return i < counts_.size() ? counts_[i] : 0;
}

std::optional<Op> OpEvents::Wait(const StepTrigger& trigger, int64_t seen,
                                 std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mu_);
  const size_t i = IndexOf(trigger);
  if (i >= counts_.size()) return std::nullopt;
  changed_.wait_until(lock, deadline, [&] { return stopped_ || counts_[i] > seen; });
  if (counts_[i] > seen) return latest_[i];
  return std::nullopt;
}

void OpEvents::Stop() {
  std::lock_guard lock(mu_);
  stopped_ = true;
  changed_.notify_all();
}

}  // namespace locksmith
