// The recording phase: an unknown workload or nemesis is bad input and
// opens no history; once open, its end heals the nemesis once and closes
// the history saying how the workload ended.
#include "harness/run_recording.h"

#include <gtest/gtest.h>

#include "base/exit_codes.h"
#include "harness/run_judge.h"
#include "harness/testing/phase_run.h"

namespace locksmith {
namespace {

using testing::ClosingOf;
using testing::FakeLockService;
using testing::PhaseRun;

// Counts its heals; performs nothing.
class HealCountingNemesis : public Nemesis {
 public:
  explicit HealCountingNemesis(int* heals) : heals_(heals) {}
  std::vector<std::string> Faults() const override { return {}; }
  FaultResult Invoke(const FaultOp&) override { return {}; }
  std::vector<HealFailure> Teardown() override {
    ++*heals_;
    return {};
  }

 private:
  int* heals_;
};

class RecordingPhaseTest : public ::testing::Test {
 protected:
  RecordingPhaseTest() {
    p_.modules.make_nemesis = [this](const RunConfig&, const NemesisContext&) {
      return Result<std::unique_ptr<Nemesis>>(std::make_unique<HealCountingNemesis>(&heals_));
    };
  }

  PhaseRun p_;
  FakeLockService service_;
  LiveJudge live_{nlohmann::json::object(), WholeHistoryLogBytes(kWholeReportHistoryBytes),
                  ReportSampleReason(), [](const std::string&) {}};
  int heals_ = 0;
};

TEST_F(RecordingPhaseTest, AnUnknownWorkloadIsBadInputAndOpensNoHistory) {
  p_.modules.make_workload = [](const RunConfig&) {
    return Result<std::unique_ptr<Workload>>(Error{"unknown workload \"nope\""});
  };
  { RecordingPhase recording(p_.run, service_, nullptr, live_); EXPECT_FALSE(recording.open()); }
  EXPECT_EQ(p_.run.facts.failure_exit, kExitBadInput);
  EXPECT_FALSE(p_.run.facts.judge);
  EXPECT_EQ(heals_, 0);
}

TEST_F(RecordingPhaseTest, AnUnknownNemesisIsBadInputAndOpensNoHistory) {
  p_.modules.make_nemesis = [](const RunConfig&, const NemesisContext&) {
    return Result<std::unique_ptr<Nemesis>>(Error{"unknown nemesis \"nope\""});
  };
  { RecordingPhase recording(p_.run, service_, nullptr, live_); EXPECT_FALSE(recording.open()); }
  EXPECT_EQ(p_.run.facts.failure_exit, kExitBadInput);
  EXPECT_FALSE(p_.run.facts.judge);
}

TEST_F(RecordingPhaseTest, ItsEndHealsOnceAndClosesTheHistory) {
  {
    RecordingPhase recording(p_.run, service_, nullptr, live_);
    ASSERT_TRUE(recording.open());
    EXPECT_TRUE(p_.run.facts.judge);
    EXPECT_TRUE(p_.run.facts.faults.is_object() || p_.run.facts.faults.is_array());
    recording.recorder().Record(Op{.process = 0, .type = OpType::kInvoke, .f = "acquire"});
    recording.Heal();
    EXPECT_EQ(heals_, 1);
  }
  EXPECT_EQ(heals_, 1);
  EXPECT_EQ(p_.run.facts.nemesis["performed"], 0);
  auto closing = ClosingOf(p_.store.File(kRunHistoryLog));
  ASSERT_TRUE(closing.has_value());
  EXPECT_EQ(closing->ended, kEndedTimeLimit);
  EXPECT_EQ(closing->ops, 1);
}

TEST_F(RecordingPhaseTest, AFailureLeavesTheHealToItsEndAndClosesTheHistorySayingSo) {
  {
    RecordingPhase recording(p_.run, service_, nullptr, live_);
    ASSERT_TRUE(recording.open());
    p_.run.Fail(kExitRunFailed, "workload mutex threw: bug");
  }
  EXPECT_EQ(heals_, 1);
  auto closing = ClosingOf(p_.store.File(kRunHistoryLog));
  ASSERT_TRUE(closing.has_value());
  EXPECT_EQ(closing->ended, kEndedError);
  EXPECT_EQ(closing->detail, "workload mutex threw: bug");
}

}  // namespace
}  // namespace locksmith
