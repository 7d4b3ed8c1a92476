// AnomalyStory: an anomaly of results.json (any checker's; the fields it
// has decide how much of the story there is) turned into a story: its
// holds with their lease ends (a double holder's holders, or the buyers of
// an inventory or counter anomaly with their reads and writes as marks),
// the overlap, when it happened, and the fault that explains it
// (ExplainAt). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/fault_view.h"
#include "reports/lock_holds.h"

namespace locksmith {

// Which fault explains something that happened at `t` to `processes`.
struct FaultExplanation {
  int64_t fault = -1;   // index into the faults; -1: none in force or before
  bool active = false;  // in force at t; else the one that ended (or happened) last before t
  int64_t gap_ns = 0;   // t minus the fault's start (active) or its end (before)
};
// Among the windows in force at t: one that hit one of `processes` (a
// client pause of the holder), else the one begun last. None in force: the
// window or event that ended last at or before t.
FaultExplanation ExplainAt(const std::vector<FaultView>& faults, int64_t t,
                           const std::vector<int64_t>& processes);

// One hold in a story: a lock holder, or a buyer of an inventory / counter
// anomaly (its hold, with the read and the write inside it as marks).
struct StoryHold {
  int64_t process = -1;
  int64_t start = 0, end = 0;
  int64_t lease_end = -1;  // -1: unknown
  bool open = false;       // never released
  struct Mark {
    int64_t time;
    std::string label;
  };
  std::vector<Mark> marks;
};
// [max of the starts, min of the ends] when positive, else {-1, -1}.
std::pair<int64_t, int64_t> OverlapOf(const StoryHold& a, const StoryHold& b);

struct AnomalyStory {
  int64_t at = -1;  // when it happened: the overlap's start, else its earliest op
  int64_t overlap_start = -1, overlap_end = -1;  // -1: no overlap
  std::vector<StoryHold> holds;  // by start
  FaultExplanation cause;
  std::vector<int64_t> active;  // every fault in force at `at`
};

// `holds` fills in what the anomaly leaves out of a hold it names by its
// acquire; `end_time` ends an overlap still going when the run ended.
AnomalyStory TellStory(const nlohmann::json& anomaly, const LockHolds& holds,
                       const std::vector<FaultView>& faults, int64_t end_time);

}  // namespace locksmith
