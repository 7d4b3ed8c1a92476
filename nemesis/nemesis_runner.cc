#include "nemesis/nemesis_runner.h"

#include <map>
#include <set>

namespace locksmith {

NemesisRunner::NemesisRunner(Nemesis& nemesis, OpRecorder& recorder,
                             std::vector<ScheduledFault> schedule, OpEvents* events,
                             const std::set<std::string>& own_lanes)
    : nemesis_(nemesis), recorder_(recorder), schedule_(std::move(schedule)), events_(events) {
  std::map<std::string, size_t> lane_of;
  for (size_t i = 0; i < schedule_.size(); ++i) {
    const ScheduledFault& fault = schedule_[i];
    const std::string name = fault.step > 0                          ? "steps"
                             : own_lanes.contains(fault.mark.family) ? "family " + fault.mark.family
                                                                     : "servers";
    auto [it, added] = lane_of.try_emplace(name, lanes_.size());
    if (added) lanes_.emplace_back();
    lanes_[it->second].ops.push_back(i);
  }
}

void NemesisRunner::Start(std::chrono::steady_clock::time_point zero) {
  for (Lane& lane : lanes_) lane.thread = std::thread([this, &lane, zero] { Loop(lane, zero); });
}

void NemesisRunner::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (Lane& lane : lanes_) {
    if (lane.thread.joinable()) lane.thread.join();
  }
}

int NemesisRunner::performed() const {
  std::lock_guard lock(mu_);
  return performed_;
}

int NemesisRunner::failed() const {
  std::lock_guard lock(mu_);
  return failed_;
}

void NemesisRunner::Heal() {
  Stop();
  // The lanes have ended: their positions are this thread's now.
  std::vector<bool> performed(schedule_.size(), false);
  for (const Lane& lane : lanes_) {
    for (size_t k = 0; k < lane.next; ++k) performed[lane.ops[k]] = true;
  }
  std::set<int64_t> open;
  for (size_t i = 0; i < schedule_.size(); ++i) {
    if (!performed[i]) continue;
    const FaultMark& mark = schedule_[i].mark;
    if (mark.begins) {
      open.insert(mark.window);
    } else {
      open.erase(mark.window);
    }
  }
  for (size_t i = 0; i < schedule_.size() && !open.empty(); ++i) {
    const ScheduledFault& fault = schedule_[i];
    if (!performed[i] && !fault.mark.begins && open.erase(fault.mark.window) > 0) Perform(fault);
  }
}

void NemesisRunner::Loop(Lane& lane, std::chrono::steady_clock::time_point zero) {
  for (; lane.next < lane.ops.size(); ++lane.next) {
    ScheduledFault fault = schedule_[lane.ops[lane.next]];
    auto at = zero + std::chrono::milliseconds(fault.at_ms);
    if (fault.after) {
      auto fired = AwaitEvent(fault, lane);
      if (!fired) return;
      fault = std::move(*fired);
      at = std::chrono::steady_clock::now() + std::chrono::milliseconds(fault.at_ms);
    } else if (lane.last_event && NamesEvent(fault)) {
      fault = WithEvent(fault, *lane.last_event);  // a timed step after an event step
    }
    {
      std::unique_lock lock(mu_);
      if (wake_.wait_until(lock, at, [&] { return stopping_; })) return;
    }
    Perform(fault);
  }
}

namespace {

// Replaces "$event.key", "$event.process" and "$event.granted[.I]"
// anywhere in `value` (fields, list entries, nested) by the event's.
void SubstituteEvent(nlohmann::json& value, const Op& event) {
  if (value == "$event.key") value = event.key;
  if (value == "$event.process") value = event.process;
  if (value.is_string() && IsGrantedPlaceholder(value.get<std::string>())) {
    auto granted = ResolveGranted(value.get<std::string>(), event);
    if (granted) value = *granted;  // else the placeholder stays: the fault says so
  }
  if (value.is_object() || value.is_array()) {
    for (auto& field : value) SubstituteEvent(field, event);
  }
}

}  // namespace

std::optional<ScheduledFault> NemesisRunner::AwaitEvent(const ScheduledFault& fault,
                                                        Lane& lane) {
  if (events_ == nullptr) return std::nullopt;
  const int64_t seen = events_->Count(*fault.after);
  std::optional<Op> event;
  while (!event) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return std::nullopt;
    }
    // Short waits, so a Stop() is seen soon.
    event = events_->Wait(*fault.after, seen,
                          std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
  }
  lane.last_event = *event;
  return WithEvent(fault, *event);
}

bool NemesisRunner::NamesEvent(const ScheduledFault& fault) {
  return fault.op.value.dump().find("\"$event.") != std::string::npos;
}

ScheduledFault NemesisRunner::WithEvent(const ScheduledFault& fault, const Op& event) {
  ScheduledFault fired = fault;
  SubstituteEvent(fired.op.value, event);
  if (!fired.op.value.is_object()) fired.op.value = nlohmann::json::object();
  fired.op.value["event"] = {{"f", event.f}, {"key", event.key},
                             {"process", event.process}, {"index", event.index}};
  return fired;
}

void NemesisRunner::Perform(const ScheduledFault& fault) {
  const Op invoke = fault.Invoke();
  recorder_.Record(invoke);

  FaultResult result = nemesis_.Invoke(fault.op);

  Op done = invoke;
  done.type = OpType::kInfo;
  done.value = result.value;
  // Every nemesis answers with an object or nothing.
  if (result.observed && (done.value.is_object() || done.value.is_null())) {
    done.value["observed"] = *result.observed;
  }
  done.error = result.error;
  recorder_.Record(std::move(done));
  std::lock_guard lock(mu_);
  ++performed_;
  if (!result.ok) ++failed_;
}

}  // namespace locksmith
