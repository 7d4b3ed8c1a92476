#include "harness/interruption.h"

#include <signal.h>

#include <gtest/gtest.h>

#include <thread>

namespace locksmith {
namespace {

using Phase = Interruption::Phase;
using std::chrono::milliseconds;

TEST(InterruptionTest, NothingNotedMeansNotStopped) {
  Interruption i;
  i.SetPhase(Phase::kWorkload);
  EXPECT_FALSE(i.StoppedTheRun());
  EXPECT_FALSE(i.BeforeWorkload());
  EXPECT_EQ(i.Describe(Interruption::Clock::now(), 10), "");
  EXPECT_TRUE(i.ToJson(Interruption::Clock::now(), 10).is_null());
}

TEST(InterruptionTest, ASignalWhileServersStartIsBeforeTheWorkload) {
  Interruption i;
  i.SetPhase(Phase::kServers);
  EXPECT_NE(i.Note(SIGTERM).find("SIGTERM while the servers start"), std::string::npos);
  // Later signals (the force path) and phases change nothing.
  EXPECT_EQ(i.Note(SIGINT), "");
  i.SetPhase(Phase::kWorkload);
  EXPECT_TRUE(i.StoppedTheRun());
  EXPECT_TRUE(i.BeforeWorkload());
  const auto start = Interruption::Clock::now();
  EXPECT_EQ(i.Describe(start, 30),
            "by SIGTERM while the servers were starting, before the workload started; no op "
            "ran, so the verdict is unknown");
  auto j = i.ToJson(start, 30);
  EXPECT_EQ(j["signal"], "SIGTERM");
  EXPECT_EQ(j["phase"], "servers");
  EXPECT_FALSE(j.contains("after_s"));
  EXPECT_EQ(j["message"], i.Describe(start, 30));
}

TEST(InterruptionTest, ASignalMidWorkloadSaysHowFarItGot) {
  Interruption i;
  i.SetPhase(Phase::kWorkload);
  const auto start = Interruption::Clock::now();
  EXPECT_EQ(i.Note(SIGINT, start + milliseconds(4200)),
            "SIGINT: stopping the workload (again to force)");
  i.SetPhase(Phase::kFinishing);
  EXPECT_TRUE(i.StoppedTheRun());
  EXPECT_FALSE(i.BeforeWorkload());
  EXPECT_EQ(i.Describe(start, 120),
            "by SIGINT after 4.2 s of the 120 s workload; the verdict covers only the ops before "
            "it, and is unknown unless they show an anomaly");
  auto j = i.ToJson(start, 120);
  EXPECT_EQ(j["phase"], "workload");
  EXPECT_DOUBLE_EQ(j["after_s"].get<double>(), 4.2);
}

TEST(InterruptionTest, ASignalAfterTheWorkloadInterruptsNothing) {
  Interruption i;
  i.SetPhase(Phase::kFinishing);
  EXPECT_NE(i.Note(SIGHUP).find("SIGHUP after the workload ended"), std::string::npos);
  EXPECT_FALSE(i.StoppedTheRun());
  EXPECT_TRUE(i.ToJson(Interruption::Clock::now(), 1).is_null());
}

TEST(StartUnlessInterruptedTest, ReportsAStartAndAFailure) {
  std::atomic<bool> interrupted{false};
  bool aborted = false;
  std::string error;
  EXPECT_EQ(StartUnlessInterrupted([] { return OkStatus(); }, interrupted,
                                   [&] { aborted = true; }, &error),
            StartOutcome::kStarted);
  EXPECT_EQ(StartUnlessInterrupted([]() -> Status { return Error{"port taken"}; }, interrupted,
                                   [&] { aborted = true; }, &error),
            StartOutcome::kFailed);
  EXPECT_EQ(error, "port taken");
  EXPECT_FALSE(aborted);
}

// A start that would wait (here: up to a minute) for a server is cut short
// by the abort, and its failure is reported as the interruption it is.
TEST(StartUnlessInterruptedTest, ASignalAbortsAHangingStart) {
  std::atomic<bool> interrupted{false};
  std::atomic<bool> started{false}, aborted{false};
  std::thread signal([&] {
    while (!started) std::this_thread::sleep_for(milliseconds(1));
    interrupted = true;
  });
  std::string error;
  auto outcome = StartUnlessInterrupted(
      [&]() -> Status {
        started = true;
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
        while (!aborted && std::chrono::steady_clock::now() < give_up) {
          std::this_thread::sleep_for(milliseconds(1));
        }
        return aborted ? Status(Error{"n1: redis-server exited at start"}) : OkStatus();
      },
      interrupted, [&] { aborted = true; }, &error);
  signal.join();
  EXPECT_EQ(outcome, StartOutcome::kInterrupted);
  EXPECT_TRUE(aborted);
  EXPECT_EQ(error, "n1: redis-server exited at start");
}

TEST(StartUnlessInterruptedTest, ASignalDuringASuccessfulStartStillCounts) {
  std::atomic<bool> interrupted{false};
  std::string error;
  auto outcome = StartUnlessInterrupted(
      [&] {
        interrupted = true;  // arrives just as the servers come up
        return OkStatus();
      },
      interrupted, [] {}, &error);
  EXPECT_EQ(outcome, StartOutcome::kInterrupted);
  EXPECT_EQ(error, "");
}

}  // namespace
}  // namespace locksmith
