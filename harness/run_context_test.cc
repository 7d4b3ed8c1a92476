// The facts the phases share: how a workload ended (the closing record's
// words, hung first), what results.json gets of them, a failure recorded,
// and a run stopped before its first op leaving an empty, judged history.
#include "harness/run_context.h"

#include <gtest/gtest.h>

#include <csignal>

#include "base/exit_codes.h"
#include "harness/testing/phase_run.h"

namespace locksmith {
namespace {

using testing::ClosingOf;
using testing::PhaseRun;

TEST(HowItEndedTest, TheTimeLimitWhenNothingElseHappened) {
  Interruption interruption;
  EXPECT_EQ(HowItEnded(RunFacts{}, interruption, 10).first, kEndedTimeLimit);
}

TEST(HowItEndedTest, AnErrorNamesItself) {
  Interruption interruption;
  RunFacts facts;
  facts.failure_exit = kExitRunFailed;
  facts.error = "workload threw";
  EXPECT_EQ(HowItEnded(facts, interruption, 10),
            std::make_pair(std::string(kEndedError), std::string("workload threw")));
}

TEST(HowItEndedTest, AnInterruptionComesBeforeTheErrorItCaused) {
  Interruption interruption;
  interruption.SetPhase(Interruption::Phase::kWorkload);
  interruption.Note(SIGINT);
  RunFacts facts;
  facts.failure_exit = kExitRunFailed;
  EXPECT_EQ(HowItEnded(facts, interruption, 10).first, kEndedInterrupted);
}

TEST(HowItEndedTest, AHangComesFirst) {
  Interruption interruption;
  interruption.SetPhase(Interruption::Phase::kWorkload);
  interruption.Note(SIGINT);
  RunFacts facts;
  facts.hung = "workload hung: worker 1's acquire";
  EXPECT_EQ(HowItEnded(facts, interruption, 10),
            std::make_pair(std::string(kEndedHung), facts.hung));
}

TEST(RunFactsForResultsTest, CarriesOnlyWhatTheRunKnows) {
  Interruption interruption;
  RunFacts facts;
  nlohmann::json clean = RunFactsForResults(facts, interruption, 10);
  EXPECT_EQ(clean, nlohmann::json({{"interrupted", false}}));
  facts.failure_exit = kExitRunFailed;
  facts.error = "servers: no";
  facts.history_error = "cannot write history.bin: full";
  facts.nemesis = {{"performed", 2}};
  facts.faults = nlohmann::json::array();
  nlohmann::json failed = RunFactsForResults(facts, interruption, 10);
  EXPECT_EQ(failed["workload_error"], "servers: no");
  EXPECT_EQ(failed["history_error"], facts.history_error);
  EXPECT_EQ(failed["nemesis"]["performed"], 2);
  EXPECT_TRUE(failed.contains("faults"));
}

TEST(RunContextTest, FailRecordsTheExitCodeAndTheError) {
  PhaseRun p;
  p.run.Fail(kExitBadInput, "no such workload");
  EXPECT_EQ(p.run.facts.failure_exit, kExitBadInput);
  EXPECT_EQ(p.run.facts.error, "no such workload");
}

TEST(RunContextTest, StoppedBeforeTheWorkloadLeavesAnEmptyHistoryToJudge) {
  PhaseRun p;
  p.run.StopBeforeWorkload();
  EXPECT_TRUE(p.run.facts.judge);
  auto closing = ClosingOf(p.store.File(kRunHistoryLog));
  ASSERT_TRUE(closing.has_value());
  EXPECT_EQ(closing->ended, kEndedInterrupted);
  EXPECT_EQ(closing->ops, 0);
}

}  // namespace
}  // namespace locksmith
