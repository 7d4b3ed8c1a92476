// Limits every module agrees on: bounds of the run's shape that option
// declarations, fault targets and parsers check against, and the most that
// locksmith reads of a file someone else wrote. Header-only constants.
#pragma once

#include <cstdint>

namespace locksmith {

// The most clients a run can have (--concurrency's bound); fault targets
// that name clients are checked against it.
inline constexpr int kMaxRunClients = 5000;

// The largest JSON document read from a run's or a suite's directory
// (results.json, config.json, summary.json). Parsed, a document takes about
// ten times its size in memory.
inline constexpr uint64_t kMaxStoredJsonBytes = uint64_t{256} << 20;

// The largest history `check` and `report` read unless --max-history-mb
// raises it. Both hold the whole history in memory: the file's text while it
// is parsed, then its ops (see docs/running.md for what that costs).
inline constexpr uint64_t kDefaultMaxHistoryBytes = uint64_t{1} << 30;

}  // namespace locksmith
