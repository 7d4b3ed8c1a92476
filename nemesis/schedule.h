// Fault schedules as plain data: which fault op runs at which time, computed
// by pure seeded functions so a schedule can be unit-tested without a
// cluster and replayed from a run's seed. Thread-safe (pure).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "history/history.h"
#include "nemesis/nemesis.h"
#include "nemesis/op_events.h"

namespace locksmith {

struct ScheduledFault {
  int64_t at_ms = 0;  // since the workload started; with `after`, since that event
  FaultOp op;
  FaultMark mark;     // the window this op begins or ends
  // A scripted step may wait for a workload event (recorded after the
  // previous step ran) instead of a time; its value may then name the
  // event's "$event.key" and "$event.process".
  std::optional<StepTrigger> after;
  // The scripted step it is (1-based, nemesis/scenario_steps.h); 0 for a
  // window of the seeded schedule.
  int step = 0;

  // Two schedules built from one seed compare equal (replay).
  bool operator==(const ScheduledFault&) const = default;

  // The nemesis's invoke op for this fault, as the history records it.
  Op Invoke() const;
};

// How a fault family fills one of its windows: the ops of one fault that
// starts at `start_ms` and has ended (its end op included) before
// `end_by_ms`, when the family's next window may start, so a family's faults
// never pile up. Targets travel in the ops' values and are resolved when the
// fault starts. The begin op has mark.begins, the end op not; BuildSchedule
// numbers the window and names the family. Each family defines its own next
// to its nemesis (KillWindow, ...).
using WindowOps = std::function<std::vector<ScheduledFault>(int64_t start_ms, int64_t end_by_ms)>;

// The usual window: `begin` at `start_ms`, `end` `duration_ms` later, but
// before `end_by_ms` (and never before the begin).
WindowOps TimedWindow(FaultOp begin, FaultOp end, int64_t duration_ms);

struct FaultFamily {
  std::string name;  // e.g. "kill"
  WindowOps ops;
};

struct ScheduleOptions {
  std::vector<FaultFamily> families;  // composed: each on its own schedule
  double interval_s = 10;             // one window per family per interval
  double time_limit_s = 60;
  uint64_t seed = 0;
};

// Each family runs on its own seeded schedule: one window per interval,
// the first after a quiet warm-up of one interval, family i of n staggered
// by i*interval/n so composed faults start apart, each start jittered by up
// to a quarter interval (seeded per family), each window ended before the
// family's next one. Different families' windows may overlap: that is what
// composing them asks for. Nothing starts at or after the time limit; a
// window that started before it still ends. Ops are sorted by time; windows
// are numbered from 0 in order of their start.
std::vector<ScheduledFault> BuildSchedule(const ScheduleOptions& options);

}  // namespace locksmith
