#include "harness/run_ending.h"

#include <cstdint>
#include <iostream>
#include <sstream>

#include "base/exit_codes.h"
#include "base/run_secrets.h"
#include "harness/report_command.h"
#include "harness/run_judge.h"
#include "reports/summary_printer.h"

namespace locksmith {

RunOutcome JudgeRun(const RunContext& run, OpenedRun& opened, LiveJudge& live,
                    RunOutcome outcome) {
  const RunFacts& facts = run.facts;
  outcome.error = facts.error;
  if (!facts.judge) {
    outcome.exit_code = facts.failure_exit;
    return outcome;
  }
  // The run's own history: however long it ran, it is judged whole.
  opened.GiveBackRoom();
  run.log.Info(live.began() ? "servers gone; finishing the judgement begun as the history grew"
                            : "servers gone; judging the history");
  nlohmann::json results;
  auto result = JudgeAndReport(opened.store().dir, outcome.config,
                               RunFactsForResults(facts, run.interruption,
                                                  run.config.time_limit_s),
                               UINT64_MAX, &results, kWholeReportHistoryBytes, &live);
  return OutcomeOfJudgement(std::move(outcome), facts, run.interruption,
                            run.config.time_limit_s, std::move(result), results, run.log);
}

RunOutcome OutcomeOfJudgement(RunOutcome outcome, const RunFacts& facts,
                              const Interruption& interruption, double time_limit_s,
                              Result<CheckResult> result, const nlohmann::json& results,
                              RunLog& log) {
  if (!result) {
    log.Error("check: " + result.error());
    outcome.exit_code = kExitRunFailed;
    outcome.error = "check: " + result.error();
    // The full disk that cut the history short may refuse the results too:
    // the verdict is unknown all the same, for the history's reason.
    if (!facts.history_error.empty() && facts.failure_exit == 0) {
      outcome.exit_code = ExitCodeFor(Validity::kUnknown);
      outcome.error = "history incomplete: " + facts.history_error +
                      (results.is_object() ? "; its verdict (unknown) is in results.json, but "
                                           : "; not judged: ") +
                      result.error();
    }
    return outcome;
  }
  log.Info("judged; results.json and the reports written");
  if (interruption.StoppedTheRun()) {
    outcome.interrupted = interruption.Describe(facts.zero, time_limit_s);
  }
  outcome.faults = results.value("faults", nlohmann::json());
  if (!results.value("unfulfilled", std::string()).empty()) {
    log.Warn("verdict unknown: " + results["unfulfilled"].get<std::string>());
  }
  outcome.exit_code = facts.failure_exit != 0 ? facts.failure_exit : ExitCodeFor(result->valid);
  outcome.result = std::move(*result);
  return outcome;
}

int ReportRun(const RunOutcome& outcome, const std::string& store, std::ostream& out) {
  if (!outcome.run_dir.empty()) UpdateStoreIndex(store, std::cerr);
  // Whatever an adapter or a server said, nothing printed holds a secret.
  std::ostringstream summary, notes;
  PrintRunOutcome(summary, notes, outcome);
  out << RedactRunSecrets(summary.str()) << std::flush;
  std::cerr << RedactRunSecrets(notes.str()) << std::flush;
  return outcome.exit_code;
}

}  // namespace locksmith
