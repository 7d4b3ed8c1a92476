// The servers phase: a service started is stopped when the phase ends, and
// so is one that would not start (its failure the run's) or whose start a
// signal stopped (an empty history, judged).
#include "harness/run_servers.h"

#include <gtest/gtest.h>

#include <csignal>

#include "base/exit_codes.h"
#include "harness/testing/phase_run.h"

namespace locksmith {
namespace {

using testing::ClosingOf;
using testing::FakeCluster;
using testing::FakeLockService;
using testing::PhaseRun;

// Counts its starts and stops where the test reads them after the phase.
class StartCountingService : public FakeLockService {
 public:
  StartCountingService(int* starts, int* stops, Status start_status)
      : starts_(starts), stops_(stops), start_status_(std::move(start_status)) {}
  Status Start() override {
    ++*starts_;
    return start_status_;
  }
  void Stop() override { ++*stops_; }

 private:
  int* starts_;
  int* stops_;
  Status start_status_;
};

class ServersPhaseTest : public ::testing::Test {
 protected:
  void UseService(Status start_status) {
    p_.modules.make_service = [this, start_status](const RunConfig&, Cluster&) {
      return Result<std::unique_ptr<LockService>>(
          std::make_unique<StartCountingService>(&starts_, &stops_, start_status));
    };
  }

  PhaseRun p_;
  FakeCluster cluster_{{"n1"}};
  int starts_ = 0;
  int stops_ = 0;
};

TEST_F(ServersPhaseTest, AStartedServiceIsStoppedWhenThePhaseEnds) {
  UseService(OkStatus());
  {
    ServersPhase servers(p_.run, cluster_);
    EXPECT_NE(servers.started(), nullptr);
    EXPECT_EQ(stops_, 0);
  }
  EXPECT_EQ(starts_, 1);
  EXPECT_EQ(stops_, 1);
  EXPECT_EQ(p_.run.facts.failure_exit, 0);
}

TEST_F(ServersPhaseTest, AServiceThatDoesNotStartFailsTheRunAndIsStopped) {
  UseService(Error{"port taken"});
  {
    ServersPhase servers(p_.run, cluster_);
    EXPECT_EQ(servers.started(), nullptr);
  }
  EXPECT_EQ(stops_, 1);
  EXPECT_EQ(p_.run.facts.failure_exit, kExitRunFailed);
  EXPECT_EQ(p_.run.facts.error, "servers: port taken");
  EXPECT_FALSE(p_.run.facts.judge);
}

TEST_F(ServersPhaseTest, AServiceThatCannotBeMadeFailsTheRun) {
  p_.modules.make_service = [](const RunConfig&, Cluster&) {
    return Result<std::unique_ptr<LockService>>(Error{"no such backend option"});
  };
  ServersPhase servers(p_.run, cluster_);
  EXPECT_EQ(servers.started(), nullptr);
  EXPECT_EQ(p_.run.facts.failure_exit, kExitRunFailed);
}

TEST_F(ServersPhaseTest, ASignalBeforeTheStartStartsNothingAndLeavesAnEmptyHistory) {
  UseService(OkStatus());
  p_.interruption.Note(SIGINT);
  {
    ServersPhase servers(p_.run, cluster_);
    EXPECT_EQ(servers.started(), nullptr);
  }
  EXPECT_EQ(starts_, 0);
  EXPECT_EQ(stops_, 1);
  EXPECT_EQ(p_.run.facts.failure_exit, 0);
  EXPECT_TRUE(p_.run.facts.judge);
  auto closing = ClosingOf(p_.store.File(kRunHistoryLog));
  ASSERT_TRUE(closing.has_value());
  EXPECT_EQ(closing->ended, kEndedInterrupted);
}

}  // namespace
}  // namespace locksmith
