// NemesisRunner: plays a fault schedule, recording every fault as a nemesis
// op pair (invoke, then info with what happened: as in Jepsen, a fault's
// effect is never certain), marked with its fault window.
//
// The schedule plays on lanes, each a thread performing its ops in order:
// the server faults of the seeded schedule share one lane (one op at a
// time touches the servers), each family named in `own_lanes` has one of
// its own, and the scripted steps, an ordered script, have one. A family
// gets its own lane when its begin op waits for the workload (a client
// pause waits for a holder): on the servers' lane that wait would hold back
// the end of a server pause or a cut that the holder is itself waiting on,
// and a 300 ms pause would last the whole wait. Ops of different lanes may
// overlap in the history; their pairs are matched by fault window
// (PairCompletions).
//
// Stop() wakes the lanes, lets the fault ops in progress finish, and joins.
// Heal() stops, then performs the scheduled end of every window begun and
// not yet ended, in schedule order, recorded like any op, so every window
// in the history ends (the run calls Nemesis::Teardown afterwards for
// anything left). Start/Stop/Heal from one thread; `nemesis` must take
// concurrent Invoke calls for ops of different lanes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "history/op_recorder.h"
#include "nemesis/schedule.h"

namespace locksmith {

class NemesisRunner {
 public:
  // `events` must watch every trigger the schedule's steps wait for; may
  // be null when none does.
  NemesisRunner(Nemesis& nemesis, OpRecorder& recorder, std::vector<ScheduledFault> schedule,
                OpEvents* events = nullptr, const std::set<std::string>& own_lanes = {});
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
  // The positions in the schedule of one lane's ops, in order.
  struct Lane {
    std::vector<size_t> ops;
    size_t next = 0;  // its first op not performed (its thread's until it joins)
    // The latest event a step of the lane waited for: a timed step after
    // it may name its fields too.
    std::optional<Op> last_event;
    std::thread thread;
  };

  void Loop(Lane& lane, std::chrono::steady_clock::time_point zero);
  void Perform(const ScheduledFault& fault);

  Nemesis& nemesis_;
  OpRecorder& recorder_;
  // Waits for the event `fault` names, then its delay: the step with the
  // event filled in, or nothing when the runner stops first.
  std::optional<ScheduledFault> AwaitEvent(const ScheduledFault& fault, Lane& lane);
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
  int performed_ = 0;
  int failed_ = 0;
  std::vector<Lane> lanes_;
};

}  // namespace locksmith
