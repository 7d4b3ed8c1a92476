// PhaseRun (test-only): the RunContext of one run on fakes, in a temporary
// store (FakeRunModules: one host "n1", a FakeLockService, the mutex
// workload), so a phase of harness/run.cc is tested alone, without root or
// servers; and ClosingOf, what a history file says of its own end. Not
// thread-safe.
#pragma once

#include <optional>
#include <string>

#include "base/testing/temp_dir.h"
#include "harness/interruption.h"
#include "harness/run_context.h"
#include "harness/run_log.h"
#include "harness/run_store.h"
#include "harness/signal_watcher.h"
#include "harness/testing/fake_run_modules.h"
#include "history/history.h"
#include "history/history_log.h"

namespace locksmith::testing {

class PhaseRun {
 public:
  PhaseRun() : modules(FakeRunModules()) {
    config.seed = 7;
    config.time_limit_s = 0.2;
    config.concurrency = 2;
    store.dir = dir.path();
    log.Open(store.File("locksmith.log"), /*echo_to_stderr=*/false);
  }

  TempDir dir;
  RunConfig config;
  RunStore store;
  RunLog log;
  Interruption interruption;
  SignalWatcher signals;
  RunModules modules;
  RunContext run{config, store, log, interruption, signals, modules};
};

// The closing record of the history log at `path`; nullopt when it has none
// (or cannot be read).
inline std::optional<HistoryClosing> ClosingOf(const std::string& path) {
  auto stream = OpenHistoryStream(path);
  if (!stream) return std::nullopt;
  Op op;
  while (true) {
    auto more = (*stream)->Next(&op);
    if (!more || !*more) break;
  }
  const HistoryEnd* end = (*stream)->end();
  return end == nullptr ? std::nullopt : end->closing;
}

}  // namespace locksmith::testing
