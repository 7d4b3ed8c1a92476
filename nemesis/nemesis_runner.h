// NemesisRunner: plays a fault schedule on its own thread, recording every
// fault as a nemesis op pair (invoke, then info with what happened: as in
// Jepsen, a fault's effect is never certain), marked with its fault window.
// Stop() wakes the thread, lets a fault op in progress finish, and joins.
// Heal() stops, then performs the scheduled end of every window begun and
// not yet ended, recorded like any op, so every window in the history ends
// (the run calls Nemesis::Teardown afterwards for anything left).
// Start/Stop/Heal from one thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "checker/op_recorder.h"
#include "nemesis/schedule.h"

namespace locksmith {

class NemesisRunner {
 public:
  // `events` must watch every trigger the schedule's steps wait for; may
  // be null when none does.
  NemesisRunner(Nemesis& nemesis, OpRecorder& recorder, std::vector<ScheduledFault> schedule,
                OpEvents* events = nullptr)
      : nemesis_(nemesis), recorder_(recorder), schedule_(std::move(schedule)), events_(events) {}
  ~NemesisRunner() { Stop(); }
  NemesisRunner(const NemesisRunner&) = delete;
  NemesisRunner& operator=(const NemesisRunner&) = delete;

  // Schedule times count from `zero`.
  void Start(std::chrono::steady_clock::time_point zero);
  void Stop();
  void Heal();
  // Fault ops performed so far, and how many of them failed.
  int performed() const;
  int failed() const;

 private:
  void Loop(std::chrono::steady_clock::time_point zero);
  void Perform(const ScheduledFault& fault);

  Nemesis& nemesis_;
  OpRecorder& recorder_;
  // Waits for the event `fault` names, then its delay: the step with the
  // event filled in, or nothing when the runner stops first.
  std::optional<ScheduledFault> AwaitEvent(const ScheduledFault& fault);
  // Whether the step's value names a "$event." field.
  static bool NamesEvent(const ScheduledFault& fault);
  // The step with the event's fields filled in ($event.key, .process,
  // .granted; see op_events.h) and the event recorded in its value.
  static ScheduledFault WithEvent(const ScheduledFault& fault, const Op& event);

  const std::vector<ScheduledFault> schedule_;
  OpEvents* const events_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  size_t next_ = 0;  // the schedule's first op not performed
  // The latest event a step waited for (the loop's thread only): a timed
  // step after it may name its fields too.
  std::optional<Op> last_event_;
  int performed_ = 0;
  int failed_ = 0;
  std::thread thread_;
};

}  // namespace locksmith
