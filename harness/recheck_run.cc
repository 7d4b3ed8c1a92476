#include "harness/recheck_run.h"

#include <iostream>

#include "base/exit_codes.h"
#include "base/terminal_text.h"
#include "checker/checker.h"
#include "cluster/run_registry.h"
#include "harness/run_config.h"
#include "harness/run_judge.h"
#include "harness/run_store.h"
#include "history/history_log.h"
#include "reports/run_results.h"
#include "reports/summary_printer.h"

namespace locksmith {

int RecheckRun(const std::string& run_dir, std::ostream& out, uint64_t max_history_bytes) {
  auto bad_input = [](const std::string& message) {
    std::cerr << "locksmith: " << TerminalSafe(message) << "\n";
    return kExitBadInput;
  };
  // The stored config names the workload, hence the checkers.
  auto config_json = ReadJsonFile(run_dir + "/config.json");
  RunConfig config;
  Status loaded =
      config_json ? MergeRunConfigJson(*config_json, config) : Error{config_json.error()};
  if (!loaded) return bad_input(run_dir + " is not a run directory: " + loaded.error());
  // A run still going rewrites these files itself when it ends; re-judging
  // it now would hand readers a verdict on part of it, then replace it.
  auto live = LiveRunController(run_dir);
  if (!live) return bad_input(live.error());
  if (live->has_value()) {
    return bad_input(run_dir + " is still running (locksmith pid " + std::to_string(**live) +
                     "): check it once the run ends, or check " +
                     RunHistoryFile(run_dir) + " --model owner-mutex, which rewrites nothing");
  }
  // Facts only the run itself could record survive the re-check (a damaged
  // results.json has none to give: it is replaced).
  nlohmann::json extra{{"rechecked", true}};
  if (auto previous = ReadJsonFile(run_dir + "/results.json"); previous && previous->is_object()) {
    // The ledger's plan is only in results.json: its outcomes are judged again.
    for (const char* key : {"interrupted", "interruption", "nemesis", "faults", "workload_error",
                            "history_error", "service_events"}) {
      if (previous->contains(key)) extra[key] = (*previous)[key];
    }
  }
  nlohmann::json results;
  auto result = JudgeAndReport(run_dir, *config_json, extra, max_history_bytes, &results);
  if (!result) return bad_input(result.error());
  PrintRunSummary(out, run_dir, *result, *config_json, "", "",
                  results.value("faults", nlohmann::json()));
  return ExitCodeFor(result->valid);
}

}  // namespace locksmith
