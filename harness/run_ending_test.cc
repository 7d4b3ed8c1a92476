// The outcome of a judged run: the verdict's exit code unless the run
// failed, and a judgement that failed is the run's failure unless a full
// disk (a failed history write) explains it: then unknown.
#include "harness/run_ending.h"

#include <gtest/gtest.h>

#include "base/exit_codes.h"

namespace locksmith {
namespace {

CheckResult Verdict(Validity valid) {
  CheckResult result;
  result.valid = valid;
  return result;
}

class OutcomeOfJudgementTest : public ::testing::Test {
 protected:
  RunOutcome Outcome(Result<CheckResult> result, const nlohmann::json& results = {}) {
    return OutcomeOfJudgement(RunOutcome{}, facts_, interruption_, 10, std::move(result),
                              results.is_null() ? nlohmann::json::object() : results, log_);
  }

  RunFacts facts_;
  Interruption interruption_;
  RunLog log_;
};

TEST_F(OutcomeOfJudgementTest, TheVerdictGivesTheExitCode) {
  EXPECT_EQ(Outcome(Verdict(Validity::kTrue)).exit_code, 0);
  EXPECT_EQ(Outcome(Verdict(Validity::kFalse)).exit_code, 1);
  EXPECT_EQ(Outcome(Verdict(Validity::kUnknown)).exit_code, 2);
}

TEST_F(OutcomeOfJudgementTest, AFailedRunKeepsItsExitCodeWithItsVerdict) {
  facts_.failure_exit = kExitRunFailed;
  RunOutcome outcome = Outcome(Verdict(Validity::kTrue));
  EXPECT_EQ(outcome.exit_code, kExitRunFailed);
  EXPECT_TRUE(outcome.result.has_value());
}

TEST_F(OutcomeOfJudgementTest, AJudgementThatFailedFailsTheRun) {
  RunOutcome outcome = Outcome(Error{"cannot write results.json"});
  EXPECT_EQ(outcome.exit_code, kExitRunFailed);
  EXPECT_EQ(outcome.error, "check: cannot write results.json");
}

TEST_F(OutcomeOfJudgementTest, AFullDiskThatCutTheHistoryShortMakesItUnknown) {
  facts_.history_error = "cannot write history.bin: No space left on device";
  RunOutcome outcome = Outcome(Error{"cannot write report.html"});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_EQ(outcome.error.rfind("history incomplete: " + facts_.history_error, 0), 0u)
      << outcome.error;
}

TEST_F(OutcomeOfJudgementTest, AnInterruptedRunSaysWhatCutItShort) {
  interruption_.SetPhase(Interruption::Phase::kWorkload);
  interruption_.Note(2);
  RunOutcome outcome = Outcome(Verdict(Validity::kUnknown));
  EXPECT_NE(outcome.interrupted.find("SIGINT"), std::string::npos) << outcome.interrupted;
  EXPECT_EQ(outcome.exit_code, 2);
}

TEST_F(OutcomeOfJudgementTest, TheLedgerComesFromResultsJson) {
  RunOutcome outcome =
      Outcome(Verdict(Validity::kTrue), {{"faults", nlohmann::json::array({1})}});
  EXPECT_EQ(outcome.faults, nlohmann::json::array({1}));
}

}  // namespace
}  // namespace locksmith
