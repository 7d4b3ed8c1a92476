// locksmith's process exit codes, in one place. Verdicts map through
// ExitCodeFor (checker/checker.h): 0 valid, 1 invalid, 2 unknown.
#pragma once

namespace locksmith {

// `locksmith cleanup` found leftovers and left some in place on purpose
// (unregistered objects without --remove-unregistered, unreadable records).
inline constexpr int kExitCleanupLeftSome = 1;
inline constexpr int kExitBadInput = 254;   // a flag, config or history file is wrong
inline constexpr int kExitRunFailed = 255;  // a crash, or a run that could not be carried out

}  // namespace locksmith
