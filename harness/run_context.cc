#include "harness/run_context.h"

#include "base/exit_codes.h"
#include "harness/history_recorder.h"
#include "history/history.h"
#include "history/history_log.h"

namespace locksmith {

void RunContext::Fail(int exit_code, const std::string& error) {
  facts.failure_exit = exit_code;
  facts.error = error;
  log.Error(error);
}

void RunContext::StopBeforeWorkload() {
  facts.zero = std::chrono::steady_clock::now();
  auto empty = HistoryRecorder::Open(store.File(kRunHistoryLog), facts.zero);
  if (!empty) return Fail(kExitRunFailed, empty.error());
  facts.history_error = (*empty)->Close(kEndedInterrupted, "before the workload started");
  facts.judge = true;
}

std::pair<std::string, std::string> HowItEnded(const RunFacts& facts,
                                               const Interruption& interruption,
                                               double time_limit_s) {
  if (!facts.hung.empty()) return {kEndedHung, facts.hung};
  if (interruption.StoppedTheRun()) {
    return {kEndedInterrupted, interruption.Describe(facts.zero, time_limit_s)};
  }
  if (facts.failure_exit != 0) return {kEndedError, facts.error};
  return {kEndedTimeLimit, ""};
}

nlohmann::json RunFactsForResults(const RunFacts& facts, const Interruption& interruption,
                                  double time_limit_s) {
  const bool stopped = interruption.StoppedTheRun();
  nlohmann::json extra{{"interrupted", stopped}};
  if (stopped) extra["interruption"] = interruption.ToJson(facts.zero, time_limit_s);
  if (!facts.nemesis.is_null()) extra["nemesis"] = facts.nemesis;
  if (!facts.faults.is_null()) extra["faults"] = facts.faults;
  if (!facts.service_events.is_null()) extra["service_events"] = facts.service_events;
  if (facts.failure_exit != 0) extra["workload_error"] = facts.error;
  if (!facts.history_error.empty()) extra["history_error"] = facts.history_error;
  return extra;
}

}  // namespace locksmith
