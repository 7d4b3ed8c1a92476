// SuiteMerge: `locksmith merge OUT SHARD_DIR...`: the suite directories of
// the N shards of one suite (`locksmith suite FILE --shard I/N`, one per CI
// job) made into one suite directory, as if the suite had run on one
// machine: index.html, summary.json and junit.xml over every run, the rates
// and Wilson intervals computed over the merged runs, and each run's
// directory under OUT/shard-I/ (hard links where OUT shares the shards'
// file system, copies elsewhere), so every report is a relative link away
// and OUT can be uploaded alone. OUT/shards.json names the shards merged.
// Shards of different suite files, seeds, plans or N, a shard missing or
// given twice, and a run present twice are refused before anything is
// written. Main thread only.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "reports/suite_report.h"

namespace locksmith {

struct MergeOutcome {
  SuiteRecord record;
  int exit_code = 0;  // the worst run's; kExitBadInput or kExitRunFailed with `error`
  std::string error;  // one line
};

// Merges `shard_dirs` into `out_dir` (absent or empty; made).
MergeOutcome MergeShards(const std::string& out_dir, const std::vector<std::string>& shard_dirs);

// MergeShards, then what it did on `out` (or the error on `err`); returns
// the exit code: the worst run's, as the unsharded suite's would be.
int RunMerge(const std::string& out_dir, const std::vector<std::string>& shard_dirs,
             std::ostream& out, std::ostream& err);

}  // namespace locksmith
