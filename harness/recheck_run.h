// `locksmith check RUN_DIR`: a stored run judged again with its own workload's
// checkers, from its config.json and history, as the run itself judged it.
// A function of the calling thread; it reads and rewrites only the run's files.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "base/limits.h"

namespace locksmith {

// Checks a stored run again with its workload's checkers; rewrites
// results.json, report.html and junit.xml. Returns the verdict's exit code,
// or 254 with one line on stderr when the directory is not a readable run,
// its history is larger than `max_history_bytes` or the run is still going
// (its controller.json names a live process: see LiveRunController).
int RecheckRun(const std::string& run_dir, std::ostream& out,
               uint64_t max_history_bytes = kDefaultMaxHistoryBytes);

}  // namespace locksmith
