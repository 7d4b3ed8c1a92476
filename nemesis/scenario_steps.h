// Scripted fault steps: a scenario file's "steps", as a fault schedule.
// Each step is {"at_ms": N} (since the workload started) or {"after":
// {"f": "acquire", "key": "lock-0"}, "delay_ms": N} (once some client's
// op completes ok after the previous step ran), plus the fault op: "f" (a
// family's begin or end op: "kill", "restart", "client-pause", ...) and an
// optional "value" ({"target": "primary"}, {"ms": 2500, "process":
// "$event.process"}). A begin step opens a window of its family, the next
// end step of that family closes it; windows still open at the end are
// closed by the heal. Steps run in order. Parsing is pure and checks
// everything a run would trip on later, so a bad file is one line and exit
// 254 before any server starts. Thread-safe (pure).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/result.h"
#include "nemesis/schedule.h"

namespace locksmith {

// A family's op names, as the registry has them.
struct FamilyOpNames {
  std::string family;
  std::vector<std::string> begins;
  std::string end;
};

// The steps as a schedule, windows numbered from 0 in order. Errors name
// the step (1-based) and the problem: an unknown fault, a bad target, a
// time that is not whole milliseconds, a step in the past (before the
// step ahead of it) or at or after the time limit, an end with no window
// open.
Result<std::vector<ScheduledFault>> ParseScenarioSteps(const nlohmann::json& steps,
                                                       const std::vector<FamilyOpNames>& families,
                                                       double time_limit_s);

// The families the steps use, in order of first use.
std::vector<std::string> FamiliesOfSteps(const std::vector<ScheduledFault>& steps);

// The triggers the steps wait for, each once.
std::vector<StepTrigger> TriggersOfSteps(const std::vector<ScheduledFault>& steps);

}  // namespace locksmith
