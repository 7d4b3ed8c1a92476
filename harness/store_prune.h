// StorePrune: `locksmith store prune --keep N | --keep-days D`: retention
// for a store that outlives its disk. An old run or suite loses its heavy
// files and keeps its summary, so the store index and the trend page
// (`locksmith trend OUT STORE`) still draw every night:
// - a run (ROOT/NAME/STAMP, finished: its results.json written) keeps its
//   config.json and results.json, the rest (history, report, logs, node
//   files) goes;
// - a suite (ROOT/suites/NAME/STAMP) keeps summary.json, junit.xml and an
//   index.html written again without links to the runs removed; the run
//   directories its summary lists go.
// Kept: per NAME, the N newest (--keep) and those younger than D days
// (--keep-days); given both, kept when either keeps it. Only directories
// where the store puts runs are touched (a name that is no stamp, a run
// without config.json, anything else is left alone), every path is opened
// without following a symbolic link (a link is skipped, never followed or
// removed), and a root that is a link is refused. Functions of the main
// thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/result.h"

namespace locksmith {

struct PruneRule {
  std::optional<int> keep;           // the N newest of each name
  std::optional<double> keep_days;   // those younger than D days
};

struct PruneReport {
  std::vector<std::string> pruned;   // relative to the root
  std::vector<std::string> skipped;  // what looked like ours but was not touched, and why
  std::vector<std::string> failed;   // removals that failed
  uint64_t bytes_freed = 0;
};

// The seconds since the epoch a store stamp ("20261124T035720.389Z") names.
std::optional<int64_t> StampSeconds(const std::string& stamp);

// Prunes `root` as of `now`. An error (the root missing, not a directory,
// a link; a rule that keeps nothing) names the problem; nothing is touched.
Result<PruneReport> PruneStore(const std::string& root, const PruneRule& rule,
                               std::chrono::system_clock::time_point now);

// `locksmith store prune`: one line per directory pruned, then the store
// index written again; 0, 254 (bad input, one line), 255 (a removal failed).
int PruneStoreCommand(const std::string& root, const PruneRule& rule, std::ostream& out,
                      std::ostream& err);

}  // namespace locksmith
