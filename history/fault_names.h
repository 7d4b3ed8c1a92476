// The names of the client-side fault families and of their ops ("f" of a
// nemesis op in the history), each defined once: the family that records an
// op, the registry that lists it and the readers that look for it (a crashed
// worker's process, lock_ops.h) spell it from here, so a rename cannot leave
// one reader behind. Header only; constants.
#pragma once

namespace locksmith {

// client-pause: a lock holder stalls (its begin op is the family's name).
inline constexpr char kClientPause[] = "client-pause";
inline constexpr char kClientResume[] = "client-resume";
// client-crash: a worker vanishes mid-operation.
inline constexpr char kClientCrash[] = "client-crash";
inline constexpr char kClientCrashEnd[] = "client-crash-end";
// client-clock: an external client program's clock moves.
inline constexpr char kClientClock[] = "client-clock";
inline constexpr char kClientClockBump[] = "client-clock-bump";
inline constexpr char kClientClockStrobe[] = "client-clock-strobe";
inline constexpr char kClientClockDrift[] = "client-clock-drift";
inline constexpr char kClientClockReset[] = "client-clock-reset";

}  // namespace locksmith
