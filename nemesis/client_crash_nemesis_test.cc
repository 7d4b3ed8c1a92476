#include "nemesis/client_crash_nemesis.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace locksmith {
namespace {

// Runs `op` while a worker of process `process` acquiring `key` checks its
// crash point until it crashes or the op returns.
FaultResult WithAcquirer(ClientCrashNemesis& nemesis, ClientCrashes& crashes, FaultOp op,
                         int64_t process = 3, const std::string& key = "lock-1") {
  std::atomic<bool> done{false};
  std::thread acquirer([&] {
    while (!done && !crashes.Take(process, key)) std::this_thread::yield();
  });
  FaultResult r = nemesis.Invoke(op);
  done = true;
  acquirer.join();
  return r;
}

TEST(ClientCrashNemesisTest, ACrashNamesTheProcessThatVanished) {
  ClientCrashes crashes;
  ClientCrashNemesis nemesis(crashes, 5, 2);
  FaultResult r = WithAcquirer(nemesis, crashes, {"client-crash", {{"wait_ms", 60'000}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.value, (nlohmann::json{{"process", 3}, {"key", "lock-1"}, {"crashed", 1}}));
  EXPECT_TRUE(nemesis.Invoke({"client-crash-end", nullptr}).ok);
}

TEST(ClientCrashNemesisTest, NoAcquirerInTimeFailsAndNothingCrashesLater) {
  ClientCrashes crashes;
  ClientCrashNemesis nemesis(crashes, 5, 1);
  FaultResult r = nemesis.Invoke({"client-crash", {{"wait_ms", 0}, {"key", "k"}}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "no worker acquired k within 0 ms");
  EXPECT_FALSE(crashes.Take(1, "k"));
}

TEST(ClientCrashNemesisTest, AtMostMaxAndNeverTheLastWorker) {
  ClientCrashes crashes;
  ClientCrashNemesis at_most_one(crashes, 5, 1);
  ASSERT_TRUE(WithAcquirer(at_most_one, crashes, {"client-crash", {{"wait_ms", 60'000}}}).ok);
  FaultResult again = at_most_one.Invoke({"client-crash", {{"wait_ms", 0}}});
  EXPECT_FALSE(again.ok);
  EXPECT_NE(again.error.find("--client-crash-max"), std::string::npos) << again.error;

  ClientCrashNemesis two_workers(crashes, 2, 5);
  ASSERT_TRUE(WithAcquirer(two_workers, crashes, {"client-crash", {{"wait_ms", 60'000}}}).ok);
  FaultResult last = two_workers.Invoke({"client-crash", {{"wait_ms", 0}}});
  EXPECT_FALSE(last.ok);
  EXPECT_EQ(last.error, "the last live worker is never crashed");
  EXPECT_FALSE(crashes.Take(1, "lock-0"));  // nothing was asked
}

TEST(ClientCrashNemesisTest, BadValuesAreErrorsNamingTheField) {
  ClientCrashes crashes;
  ClientCrashNemesis nemesis(crashes, 5, 1);
  EXPECT_NE(nemesis.Invoke({"client-crash", {{"wait_ms", "x"}}}).error.find("wait_ms"),
            std::string::npos);
  EXPECT_NE(nemesis.Invoke({"client-crash", {{"key", 1}}}).error.find("\"key\""),
            std::string::npos);
  EXPECT_NE(nemesis.Invoke({"client-crash", {{"process", "p"}}}).error.find("\"process\""),
            std::string::npos);
  EXPECT_FALSE(nemesis.Invoke({"kill", nullptr}).ok);
}

TEST(ClientCrashNemesisTest, TeardownDropsACrashNobodyTook) {
  ClientCrashes crashes;
  ClientCrashNemesis nemesis(crashes, 5, 1);
  crashes.Request();
  EXPECT_TRUE(nemesis.Teardown().empty());
  EXPECT_FALSE(crashes.Take(1, "lock-0"));
}

TEST(ClientCrashNemesisTest, TheWindowAsksForACrashOfTheKeyGivenThenEnds) {
  ClientCrashOptions options;
  options.key = "item-0";
  const std::vector<ScheduledFault> ops = ClientCrashWindow(options)(2000, 10'000);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].op.f, "client-crash");
  EXPECT_EQ(ops[0].op.value, (nlohmann::json{{"key", "item-0"}}));
  EXPECT_EQ(ops[1].op.f, "client-crash-end");
}

TEST(ClientCrashLookTest, WhichWorkerVanishedInWhichAcquire) {
  const FaultSummary s = DescribeFaultOp(
      kClientCrashLook, {"client-crash", {{"key", "lock-1"}, {"ms", 5}, {"process", 3}}}, "");
  EXPECT_EQ(s.text, "client-crash p3 holding lock-1");  // a crash has no length
  EXPECT_EQ(s.process, 3);
  EXPECT_EQ(kClientCrashLook.client_mark, ClientMark::kTick);
}

}  // namespace
}  // namespace locksmith
