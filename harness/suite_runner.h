// SuiteRunner: `locksmith suite` and `locksmith run --test-count K`: runs a
// suite's cells one after another, each repeat in its own run directory under
// the suite's directory (store/suites/NAME/TIMESTAMP/CELL/TIMESTAMP), and
// rewrites index.html, summary.json and junit.xml after every run, so a
// suite stopped by a crash still has its tables for what ran. A signal stops
// the suite after the current run's teardown. Main thread only.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "harness/run_modules.h"
#include "harness/shard_plan.h"
#include "harness/suite_file.h"
#include "reports/suite_report.h"

namespace locksmith {

class SignalWatcher;

struct SuiteOutcome {
  std::string dir;  // the suite's directory; empty when none could be made
  SuiteRecord record;
  int exit_code = 0;  // the worst run's (WorstExitCode); 255 when the suite could not start
  std::string error;
  std::string shard;  // "I/N" when it ran one shard of the suite
};

// Runs `suite` with `modules`; one progress line per run on `out`. With
// `shard`, only the shard's share of the runs (harness/shard_plan.h), each
// with the seed it has in the whole suite, and the directory's shard.json
// says which (harness/shard_record.h); a shard needs the suite's seed.
SuiteOutcome ExecuteSuite(const Suite& suite, SignalWatcher& signals, const RunModules& modules,
                          std::ostream& out, const std::optional<ShardSpec>& shard = std::nullopt);

// Each cell's violation rate and median time to the first violation, then
// where the index is (DIR/index.html): the summary's body, which a merge
// prints too.
void PrintSuiteRates(const SuiteRecord& record, const std::string& dir, std::ostream& out);

// The runs done of those planned (and the shard's I/N), then
// PrintSuiteRates: the cells' rates and median times to the first violation
// (as people read a duration), and where the index is.
void PrintSuiteSummary(const SuiteOutcome& outcome, std::ostream& out);

// ExecuteSuite with the real modules; prints where the index is and the
// cells' violation rates; returns the exit code.
int RunSuite(const Suite& suite, SignalWatcher& signals, std::ostream& out,
             const std::optional<ShardSpec>& shard = std::nullopt);

}  // namespace locksmith
