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

namespace {
constexpr char kGranted[] = "$event.granted";
constexpr size_t kGrantedLength = sizeof(kGranted) - 1;
}  // namespace

bool IsGrantedPlaceholder(const std::string& text) {
  if (text.rfind(kGranted, 0) != 0) return false;
  if (text.size() == kGrantedLength) return true;
  if (text[kGrantedLength] != '.' || text.size() == kGrantedLength + 1 ||
      text.size() > kGrantedLength + 4) {
    return false;
  }
  return std::all_of(text.begin() + kGrantedLength + 1, text.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

Result<std::string> ResolveGranted(const std::string& placeholder, const Op& event) {
  if (!IsGrantedPlaceholder(placeholder)) return Error{"not a $event.granted form"};
  std::vector<std::string> nodes;
  if (event.value.is_object() && event.value.contains("granted") &&
      event.value["granted"].is_array()) {
    for (const auto& n : event.value["granted"]) {
      if (n.is_string()) nodes.push_back(n.get<std::string>());
    }
  }
  if (nodes.empty()) return Error{"the event's " + event.f + " names no granting nodes"};
  if (placeholder.size() == kGrantedLength) {
    std::string joined;
    for (const auto& n : nodes) joined += (joined.empty() ? "" : ",") + n;
    return joined;
  }
  const size_t i = std::stoul(placeholder.substr(kGrantedLength + 1));
  if (i >= nodes.size()) {
    return Error{placeholder + ": the event's " + event.f + " was granted by only " +
                 std::to_string(nodes.size()) + " nodes"};
  }
  return nodes[i];
}

OpEvents::OpEvents(std::vector<StepTrigger> watched)
    : watched_(std::move(watched)), counts_(watched_.size(), 0), latest_(watched_.size()) {}

size_t OpEvents::IndexOf(const StepTrigger& trigger) const {
  return static_cast<size_t>(std::find(watched_.begin(), watched_.end(), trigger) -
                             watched_.begin());
}

bool OpEvents::Watches(const Op& op) const {
  if (op.type != OpType::kOk) return false;
  for (const StepTrigger& trigger : watched_) {
    if (trigger.Matches(op)) return true;
  }
  return false;
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
