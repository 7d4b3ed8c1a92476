// SuiteRunner: `locksmith suite` and `locksmith run --test-count K`: runs a
// suite's cells one after another, each repeat in its own run directory under
// the suite's directory (store/suites/NAME/TIMESTAMP/CELL/TIMESTAMP), and
// rewrites index.html, summary.json and junit.xml after every run, so a
// suite stopped by a crash still has its tables for what ran. A signal stops
// the suite after the current run's teardown. Main thread only.
#pragma once

#include <ostream>
#include <string>

#include "harness/run_modules.h"
#include "harness/suite_file.h"
#include "reports/suite_report.h"

namespace locksmith {

class SignalWatcher;

struct SuiteOutcome {
  std::string dir;  // the suite's directory; empty when none could be made
  SuiteRecord record;
  int exit_code = 0;  // the worst run's (WorstExitCode); 255 when the suite could not start
  std::string error;
};

// Runs `suite` with `modules`; one progress line per run on `out`.
SuiteOutcome ExecuteSuite(const Suite& suite, SignalWatcher& signals, const RunModules& modules,
                          std::ostream& out);

// The cells' violation rates and median times to the first violation (as
// people read a duration), then where the index is.
void PrintSuiteSummary(const SuiteOutcome& outcome, std::ostream& out);

// ExecuteSuite with the real modules; prints where the index is and the
// cells' violation rates; returns the exit code.
int RunSuite(const Suite& suite, SignalWatcher& signals, std::ostream& out);

}  // namespace locksmith
