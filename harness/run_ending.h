// The last phases of a run, once every server is gone: the judgement of its
// history (JudgeAndReport with what only the run knows: results.json, the
// reports) and the outcome's exit code (0 valid, 1 invalid, 2 unknown; a
// run that failed keeps its 254 or 255 with its history judged); then the
// report: the store's index and the summary, with no secret in what is
// printed. On the run's thread.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "checker/checker.h"
#include "harness/live_judge.h"
#include "harness/run_context.h"
#include "harness/run_opening.h"
#include "reports/run_outcome.h"

namespace locksmith {

// Judges the run's history when it has one (RunFacts::judge; else the run's
// failure is its outcome), giving back the room kept for results.json.
RunOutcome JudgeRun(const RunContext& run, OpenedRun& opened, LiveJudge& live,
                    RunOutcome outcome);

// The outcome of a judgement: `result` is what JudgeAndReport returned,
// `results` results.json as written (null when it was not). A judgement
// that failed is a failed run (255), unless a failed history write (a full
// disk) explains it: then the verdict is unknown, for the history's reason.
RunOutcome OutcomeOfJudgement(RunOutcome outcome, const RunFacts& facts,
                              const Interruption& interruption, double time_limit_s,
                              Result<CheckResult> result, const nlohmann::json& results,
                              RunLog& log);

// Updates the store's index (when the run made a directory), prints the
// outcome's summary to `out` and its notes to stderr, every secret of the
// run redacted; returns the exit code.
int ReportRun(const RunOutcome& outcome, const std::string& store, std::ostream& out);

}  // namespace locksmith
