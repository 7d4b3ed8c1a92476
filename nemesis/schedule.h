// Fault schedules as plain data: which fault op runs at which time, computed
// by pure seeded functions so a schedule can be unit-tested without a
// cluster and replayed from a run's seed. Thread-safe (pure).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "checker/history.h"
#include "nemesis/nemesis.h"

namespace locksmith {

struct ScheduledFault {
  int64_t at_ms = 0;  // since the workload started
  FaultOp op;
  FaultMark mark;     // the window this op begins or ends
};

// How a fault family fills its turn of a cycle: the ops of one fault on
// `node` that starts at `start_ms` and has ended (its stop op included)
// before `next_cycle_ms`, so faults never pile up. It sets mark.begins on
// each op; BuildSchedule numbers the window and names the family. Each
// family defines its own next to its nemesis (KillCycle, ...).
using CycleOps = std::function<std::vector<ScheduledFault>(
    const std::string& node, int64_t start_ms, int64_t next_cycle_ms)>;

struct FaultFamily {
  std::string name;  // e.g. "kill"
  CycleOps ops;
};

struct ScheduleOptions {
  std::vector<FaultFamily> families;  // in turn, one per cycle
  std::vector<std::string> nodes;     // candidate targets
  double interval_s = 10;             // one fault cycle per interval
  double time_limit_s = 60;
  uint64_t seed = 0;
};

// One cycle per interval, starting after the first (a quiet warm-up): in
// cycle k a fault family (round robin) starts at k*interval plus a seeded
// jitter of up to a quarter interval, on a seeded node, and ends before the
// next cycle (the family's CycleOps decides how). Every start op has its
// stop op; nothing is scheduled at or after the time limit except the stop
// of a fault that started before it.
// Ops are sorted by time. Each fault is a window: its start op begins it and
// its stop op ends it, both marked with the window's number (from 0, in
// start order) and the family.
std::vector<ScheduledFault> BuildSchedule(const ScheduleOptions& options);

}  // namespace locksmith
