// ReportCommand: `locksmith report DIR` and the store index's upkeep. A run
// directory gets its report.html written again from its history,
// results.json and config.json (the verdict is not re-judged: `locksmith
// check DIR` does that); a suite directory gets every run's report and its
// own summary.json, junit.xml and index.html; then the store's index.html.
// Functions of the main thread; not reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "base/limits.h"

namespace locksmith {

// The store root holding `dir` when dir sits where a store puts things:
// ROOT/NAME/STAMP for a run (ROOT has a `latest` link and is no suite's
// directory), ROOT/suites/NAME/STAMP for a suite. nullopt otherwise (a run
// inside a suite, or a directory copied elsewhere): no index is written then.
std::optional<std::string> StoreRootOf(const std::string& dir);

// Rewrites store/index.html (reports/store_index.h); a failure is one
// warning line on `err`, never a failed run, and so is each damaged file the
// index had to leave out.
void UpdateStoreIndex(const std::string& root, std::ostream& err);

// `locksmith report DIR`: 0 when every page was written; 254 with one line
// on `err` when DIR is not a run or suite directory, a run is still going,
// a history, results or summary file is missing or damaged (a summary's run
// directory outside the suite's included), or a history is larger than
// `max_history_bytes`.
int RegenerateReports(const std::string& dir, std::ostream& out, std::ostream& err,
                      uint64_t max_history_bytes = kDefaultMaxHistoryBytes);

}  // namespace locksmith
