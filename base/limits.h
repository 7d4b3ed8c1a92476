// Limits every module agrees on: bounds of the run's shape that option
// declarations, fault targets and parsers check against. Header-only
// constants.
#pragma once

namespace locksmith {

// The most clients a run can have (--concurrency's bound); fault targets
// that name clients are checked against it.
inline constexpr int kMaxRunClients = 5000;

}  // namespace locksmith
