// ClockWindow: the clock family's ops for one fault window of a schedule
// (pure; its own file so any schedule shape can use it). The begin op is
// the configured mode's (clock-bump, clock-strobe for the whole hold, or
// clock-drift) on every node; the end op is clock-reset, after hold_ms or
// just before the window's end, whichever comes first. Thread-safe (pure).
#pragma once

#include <cstdint>
#include <vector>

#include "nemesis/clock_nemesis.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/schedule.h"

namespace locksmith {

// The begin and end op of a clock fault starting at `start_ms` that must
// have ended before `end_by_ms`; mark.begins is set on the begin op only.
std::vector<ScheduledFault> ClockWindow(const ClockOptions& options, int64_t start_ms,
                                        int64_t end_by_ms);

// The registry's hooks (nemesis_registry.cc), from OptionsOf<ClockOptions>:
// the nemesis (an error when the backend cannot show its clocks), the
// window, and the shim on every host before the servers start.
Result<std::unique_ptr<Nemesis>> MakeClockNemesisOf(const ModuleOptions& options,
                                                    const NemesisContext& context);
std::string ClockUnfit(const ModuleOptions& options, const NemesisContext& context);
WindowOps ClockWindowOf(const ModuleOptions& options);
Status InstallClockShims(const ModuleOptions& options, Cluster& cluster);
// How the reports show a clock fault (nemesis/fault_look.h): the offsets
// each node's clock was seen at, and the strobe's swing or the drift's rate.
extern const FaultLook kClockLook;

}  // namespace locksmith
