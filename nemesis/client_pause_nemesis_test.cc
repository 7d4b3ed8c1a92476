#include "nemesis/client_pause_nemesis.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace locksmith {
namespace {

TEST(ClientPauseNemesisTest, APauseReturnsTheHolderThatTookIt) {
  ClientPauses pauses;
  ClientPauseNemesis nemesis(pauses);
  std::atomic<bool> done{false};
  std::thread holder([&] {
    while (!done && !pauses.Take(3, "lock-1")) std::this_thread::yield();
  });
  FaultResult r = nemesis.Invoke({"client-pause", {{"ms", 1500}, {"wait_ms", 60'000}}});
  done = true;
  holder.join();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.value, (nlohmann::json{{"process", 3}, {"key", "lock-1"}, {"ms", 1500}}));
  EXPECT_TRUE(nemesis.Invoke({"client-resume", nullptr}).ok);
}

TEST(ClientPauseNemesisTest, NoHolderInTimeFailsAndNothingStallsLater) {
  ClientPauses pauses;
  ClientPauseNemesis nemesis(pauses);
  FaultResult r = nemesis.Invoke({"client-pause", {{"ms", 100}, {"wait_ms", 0}, {"key", "k"}}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "no client held k within 0 ms");
  EXPECT_FALSE(pauses.Take(1, "k").has_value());
}

TEST(ClientPauseNemesisTest, BadValuesAreErrorsNamingTheField) {
  ClientPauses pauses;
  ClientPauseNemesis nemesis(pauses);
  EXPECT_NE(nemesis.Invoke({"client-pause", nullptr}).error.find("\"ms\""), std::string::npos);
  EXPECT_NE(nemesis.Invoke({"client-pause", {{"ms", -5}}}).error.find("\"ms\""),
            std::string::npos);
  EXPECT_NE(nemesis.Invoke({"client-pause", {{"ms", 5}, {"wait_ms", "x"}}}).error.find("wait_ms"),
            std::string::npos);
  EXPECT_FALSE(nemesis.Invoke({"kill", nullptr}).ok);
}

TEST(ClientPauseNemesisTest, TeardownDropsAStallNobodyTook) {
  ClientPauses pauses;
  ClientPauseNemesis nemesis(pauses);
  pauses.Request(std::chrono::milliseconds(100));
  EXPECT_TRUE(nemesis.Teardown().empty());
  EXPECT_FALSE(pauses.Take(1, "lock-0").has_value());
}

}  // namespace
}  // namespace locksmith
