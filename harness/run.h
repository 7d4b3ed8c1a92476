// The run lifecycle: config -> store -> cluster -> servers -> clients and
// nemesis until the time limit -> heal -> final reads -> teardown -> check ->
// report. Teardown happens on every path (normal end, error, a throw,
// SIGINT/SIGTERM via the SignalWatcher). harness/recheck_run.h re-judges a stored run.) Functions of the main thread; not reentrant.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "base/limits.h"
#include "checker/checker.h"
#include "harness/run_config.h"
#include "harness/run_judge.h"
#include "harness/run_modules.h"
#include "reports/run_outcome.h"

namespace locksmith {

class SignalWatcher;

// Runs one test with `modules` and returns what it ended with (nothing
// printed). The lifecycle: store, cluster, servers, clients and the fault
// schedule until the time limit, heal, the workload's final reads, teardown,
// check, report; each part that needs undoing is a scope, so teardown runs
// on every path (an error, a throw, a signal). A workload or worker that
// throws ends the run with exit 255 and its error, after teardown, with its
// history judged and kept.
// `progress_label` leads the live progress line ("run 3/12 redis.kill").
RunOutcome ExecuteRun(RunConfig config, SignalWatcher& signals, const RunModules& modules,
                      const std::string& progress_label = "");

// ExecuteRun with the real modules; prints the outcome (reports/
// summary_printer.h) and returns the exit code: 0 valid, 1 invalid, 2 unknown,
// 255 when the run itself failed (servers did not start, ...). The summary
// goes to `out`, progress to stderr and locksmith.log. A signal the watcher
// reports stops the run early but is never a failure: it tears down, judges
// the ops before it and says "interrupted: ..." on `out`, in results.json
// and in junit.xml; unless those ops show an anomaly (1), its verdict is
// unknown (2): a run cut short proves nothing by finding nothing. So is a
// run in which a fault it asked for never took effect (the fault ledger,
// results.json's "faults").
int RunTest(RunConfig config, SignalWatcher& signals, std::ostream& out);

}  // namespace locksmith
