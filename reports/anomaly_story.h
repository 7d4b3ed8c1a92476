// AnomalyStory: an anomaly of results.json (any checker's; the fields it
// has decide how much of the story there is) turned into a story: its
// holds with their lease ends (a double holder's holders, or the buyers of
// an inventory or counter anomaly with their reads and writes as marks),
// the overlap, when it happened, and the fault that explains it
// (ExplainAt). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
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

// A nonlinearizable anomaly's conflict: the op no legal order can place,
// the ops it conflicts with (what left the model in the state that refutes
// it: the last op of each process the state names, else the op's own
// process's last and the order's last), and the span they cover, from the
// earliest invoke of these ops to the latest completion (the order may put
// first an op that completed after the refuted one): no fault after that
// span can have caused it.
struct StoryConflict {
  nlohmann::json refuted;                               // its op reference
  std::vector<nlohmann::json> with;                     // op references, by time
  int64_t from = -1, to = -1;                           // -1: no conflict told
  std::vector<int64_t> during;                          // faults in effect within [from, to]
  FaultExplanation before;                              // else the nearest ending before `from`
  int64_t next_fault = -1, next_gap_ns = 0;             // the first to begin after `to`
};

// Invoke times of the ops anomalies name, by the index of their invoke and
// of their completion.
using InvokeTimes = std::unordered_map<int64_t, int64_t>;

struct AnomalyStory {
  int64_t at = -1;  // when it happened: the overlap's start, else its earliest op
  int64_t overlap_start = -1, overlap_end = -1;  // -1: no overlap
  std::vector<StoryHold> holds;  // by start
  FaultExplanation cause;
  std::vector<int64_t> active;  // every fault in force at `at`
  StoryConflict conflict;       // a nonlinearizable anomaly's
};

// `holds` fills in what the anomaly leaves out of a hold it names by its
// acquire; `end_time` ends an overlap still going when the run ended;
// `invoke_times` gives a nonlinearizable anomaly's ops their invokes.
AnomalyStory TellStory(const nlohmann::json& anomaly, const LockHolds& holds,
                       const std::vector<FaultView>& faults, int64_t end_time,
                       const InvokeTimes& invoke_times = {});

}  // namespace locksmith
