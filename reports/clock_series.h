// ClockSeries: each node's clock offset over the run, as fault ops observed
// it: a nemesis op's completion value {"clocks": {node:
// {"observed_offset_ms": ...}}} (Redis TIME minus the controller's clock)
// adds a point to that node's series; every series starts at 0 at time 0.
// Also which fault family's ops did the observing, so the report plots the
// series in that family's lane without knowing it by name. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/history.h"

namespace locksmith {

struct ClockSeries {
  std::string node;
  std::vector<int64_t> time;
  std::vector<double> offset_ms;
};

struct ClockObservations {
  std::vector<ClockSeries> series;  // by node, in natural order (n2 before n10)
  std::string family;  // the fault family of the ops that observed them; empty: unmarked ops
};

ClockObservations ObserveClocks(const History& history);

}  // namespace locksmith
