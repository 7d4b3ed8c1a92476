// RunContext: what the phases of one run (harness/run.cc) share: its
// config, directory, log, interruption, modules and signals, the servers'
// secrets, and RunFacts, what the phases learned for the judge. Each phase
// fills in its part as it goes, and its teardown does too (the heal's
// failures), so whatever a phase knew still reaches results.json when a
// later one fails. One run's, on the run's thread.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/interruption.h"
#include "harness/run_config.h"
#include "harness/run_log.h"
#include "harness/run_modules.h"
#include "harness/run_store.h"

namespace locksmith {

class SignalWatcher;

struct RunFacts {
  std::chrono::steady_clock::time_point zero =
      std::chrono::steady_clock::now();  // the workload's start: history time 0
  bool judge = false;                    // history.bin exists (maybe empty)
  int failure_exit = 0;                  // kExitRunFailed / kExitBadInput
  std::string error;                     // why the run failed
  nlohmann::json nemesis = nullptr;      // performed, failed, heal_failures
  std::string history_error;             // the first failed history write, if one did
  std::string hung;                      // the watchdog's line, when it ended the workload
  nlohmann::json faults = nullptr;       // the fault ledger's plan (FaultLedger::Plan)
  nlohmann::json service_events = nullptr;  // the kinds the service declares (HasEvents)
};

struct RunContext {
  // Records the run's failure (the first phase that fails ends the run).
  void Fail(int exit_code, const std::string& error);
  // Stopped before the first op: an empty history, judged as unknown.
  void StopBeforeWorkload();

  RunConfig& config;  // the run's own copy: `--nemesis all` may drop families
  const RunStore& store;
  RunLog& log;
  Interruption& interruption;
  SignalWatcher& signals;
  const RunModules& modules;
  RunFacts facts;
  std::vector<std::string> secrets;  // the servers' passwords, redacted from nodes/ at teardown
};

// How the workload ended: the history's closing record's words (kEnded*
// and its detail): hung, interrupted, an error, or its time limit.
std::pair<std::string, std::string> HowItEnded(const RunFacts& facts,
                                               const Interruption& interruption,
                                               double time_limit_s);

// What only the run itself knows, for results.json: whether it was cut
// short, what its nemesis did and planned, what failed.
nlohmann::json RunFactsForResults(const RunFacts& facts, const Interruption& interruption,
                                  double time_limit_s);

}  // namespace locksmith
