// The few lines `locksmith run` and `locksmith check <run dir>` print on
// stdout: the run directory, one line per checker (its verdict and the
// summary the checker wrote itself, so nothing here knows any checker's
// stats), the first anomalies, the verdict, the debate row a scenario
// predicted, and where the report is. Every line is printed with its control
// characters escaped (base/terminal_text.h): keys, values and errors come
// from the history and the servers, and a key holding CR or LF must not add
// a line such as "verdict: VALID". Free functions; thread-safe.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "checker/checker.h"
#include "reports/run_outcome.h"

namespace locksmith {

// Whether an anomaly of `kind` (its "class" or "type") is among `anomalies`:
// what a prediction and `locksmith shrink` count as the kind shown.
bool HasAnomalyOfKind(const nlohmann::json& anomalies, const std::string& kind);

// What a scenario file predicted (Y: two holders at once possible, N: not;
// and, with "predicted_anomaly", the kind of anomaly: a "class" or "type"
// the checkers emit) next to what the run observed: {"scenario",
// "predicted", "predicted_anomaly" (when given), "observed" (Y, N, or ?
// for an unknown verdict, which matches nothing), "matches"}; null when the
// config predicts nothing. results.json and the summary both show it.
nlohmann::json DebateOutcome(const nlohmann::json& config, Validity valid,
                             const nlohmann::json& anomalies = nlohmann::json::array());

// The summary of a judged run. `interrupted` (the text after
// "interrupted: ") and `error` each add a line just above the verdict, where
// a reader of the verdict cannot miss them. `faults` (results.json's fault
// ledger) adds a line per fault family (planned, fired, applied, healed,
// observed) and one per scripted step that did not get through.
void PrintRunSummary(std::ostream& out, const std::string& run_dir, const CheckResult& result,
                     const nlohmann::json& config, const std::string& interrupted = "",
                     const std::string& error = "", const nlohmann::json& faults = nullptr);

// A run's outcome: its summary on `out` when it was judged; otherwise its
// directory and error on `out`, or only the error on `err` when it has no
// directory ("locksmith: ...", one line, like every other bad input).
void PrintRunOutcome(std::ostream& out, std::ostream& err, const RunOutcome& outcome);

}  // namespace locksmith
