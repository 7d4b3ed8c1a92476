// `locksmith shrink RUN_DIR`: an invalid run reduced to the fewest of its
// faults that still show its anomaly. The run's recorded fault windows are
// replayed as scripted steps at their recorded times, with the run's seed,
// workload and options (harness/shrink_subject.h), and searched by delta
// debugging (harness/delta_debugger.h): a candidate reproduces when one of
// its tries (--tries, each a whole run through ExecuteRun, as `run
// --scenario` runs one) shows the anomaly's kind; then the time limit is
// bisected down to the shortest that still reproduces after the last kept
// fault, and the result is run --tries times more for its reproduction
// rate. Writes OUT/minimal.json (a scenario predicting the kind, its rate in
// its description), OUT/shrink.json and OUT/shrink.html (what each try
// showed, which faults were removed), and the tries' runs under OUT/runs/.
// --budget bounds the whole: no try starts that would end past it, and the
// best found so far is written. Main thread only.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "harness/run_config.h"
#include "reports/run_outcome.h"

namespace locksmith {

class SignalWatcher;

struct ShrinkOptions {
  std::string run_dir;
  std::string out_dir;       // empty: RUN_DIR/shrink
  int tries = 3;             // runs per candidate; any that shows the kind reproduces
  double budget_s = 3600;    // the whole search's wall-clock bound
  std::string anomaly;       // the kind to reproduce; empty: the run's first anomaly's
  double resolution_s = 0.5; // how close the time limit's bisection goes
};

// One try: a whole run of `config`, labelled `label` on the progress line.
using ShrinkTryRunner = std::function<RunOutcome(RunConfig config, const std::string& label)>;

// Shrinks; one console line per candidate on `out`, refusals on `err`
// (one line, 254). Exit codes: 0 minimal.json written (also when the budget
// ran out first: a line says so), 2 the replay of every fault did not
// reproduce (nothing to minimise; shrink.json and the page say what the
// tries showed) or a signal stopped it before anything reproduced, 254 a run
// that cannot be shrunk or bad flags, 255 OUT cannot be written.
// `run_try`: empty for real runs (ExecuteRun with DefaultRunModules).
int RunShrink(const ShrinkOptions& options, SignalWatcher& signals, std::ostream& out,
              std::ostream& err, ShrinkTryRunner run_try = nullptr);

}  // namespace locksmith
