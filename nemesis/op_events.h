// OpEvents: lets scripted fault steps wait for workload events ("once some
// process acquires lock-0"). The run records every op through an
// EventRecorder, which forwards it here after recording it; the nemesis
// thread waits for the triggers its steps name. Only the watched triggers
// are tracked (a count and the latest matching op each), so a long run
// costs nothing more. Thread-safe (one mutex): Notify from any recording
// thread, Wait and Stop from the nemesis and run threads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "history/history.h"
#include "history/op_recorder.h"

namespace locksmith {

// An ok completion of `f` (on `key`, or any key when empty) by a client.
struct StepTrigger {
  std::string f;
  std::string key;

  bool Matches(const Op& op) const;
  nlohmann::json ToJson() const;
  bool operator==(const StepTrigger&) const = default;
};

// "$event.granted" in a step's value: the nodes that granted the event's
// acquire (its value's "granted": the Redlock masters), comma-joined as the
// kill and pause families take a node list ("n1,n3,n4");
// "$event.granted.I": the I-th of them (0-based), one node, as every
// family takes it. Whether `text` is one of these forms.
bool IsGrantedPlaceholder(const std::string& text);
// The placeholder's value for `event`; an error when the event's value
// names no such node.
Result<std::string> ResolveGranted(const std::string& placeholder, const Op& event);

class OpEvents {
 public:
  explicit OpEvents(std::vector<StepTrigger> watched);

  // Whether Notify would count `op` (a stamped op's index and time do not
  // matter): a recorder copies only such ops to tell.
  bool Watches(const Op& op) const;
  void Notify(const Op& op);
  // How many ops have matched `trigger` so far (it must be watched).
  int64_t Count(const StepTrigger& trigger);
  // Waits until more than `seen` ops matched `trigger`, until `deadline` or
  // Stop(); the latest match, or nothing.
  std::optional<Op> Wait(const StepTrigger& trigger, int64_t seen,
                         std::chrono::steady_clock::time_point deadline);
  // Wakes every waiter for good.
  void Stop();

 private:
  size_t IndexOf(const StepTrigger& trigger) const;

  const std::vector<StepTrigger> watched_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<int64_t> counts_;
  std::vector<Op> latest_;
  bool stopped_ = false;
};

// Records through `inner`, then tells `events` what was recorded (a copy of
// the ops it watches, stamped; the others go to `inner` uncopied).
class EventRecorder : public OpRecorder {
 public:
  EventRecorder(OpRecorder& inner, OpEvents& events) : inner_(inner), events_(events) {}
  OpStamp Record(Op op) override {
    if (!events_.Watches(op)) return inner_.Record(std::move(op));
    Op recorded = op;
    const OpStamp stamp = inner_.Record(std::move(op));
    recorded.index = stamp.index;
    recorded.time = stamp.time;
    events_.Notify(recorded);
    return stamp;
  }

 private:
  OpRecorder& inner_;
  OpEvents& events_;
};

}  // namespace locksmith
