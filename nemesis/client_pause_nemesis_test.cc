#include "nemesis/client_pause_nemesis.h"

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <thread>
#include "nemesis/fault_look.h"

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

TEST(ClientPauseNemesisTest, AnInFlightPauseIsTakenOnlyAtTheInFlightPointWithItsClockStep) {
  ClientPauses pauses;
  ClientPauseNemesis nemesis(pauses);
  std::atomic<bool> done{false};
  std::atomic<bool> holder_took{false};
  std::optional<ClientPauses::Stall> stall;
  std::thread client([&] {
    while (!done) {
      if (pauses.Take(2, "lock-0")) holder_took = true;  // a holder never takes it
      stall = pauses.TakeAt(PausePoint::kInFlight, 4, "lock-0");
      if (stall) break;
      std::this_thread::yield();
    }
  });
  FaultResult r = nemesis.Invoke(
      {"client-pause",
       {{"ms", 1500}, {"at", "in-flight"}, {"clock_delta_ms", -1500}, {"wait_ms", 60'000}}});
  done = true;
  client.join();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(holder_took);
  EXPECT_EQ(r.value, (nlohmann::json{{"process", 4},
                                     {"key", "lock-0"},
                                     {"ms", 1500},
                                     {"at", "in-flight"},
                                     {"clock_delta_ms", -1500}}));
  ASSERT_TRUE(stall.has_value());
  EXPECT_EQ(stall->duration, std::chrono::milliseconds(1500));
  EXPECT_EQ(stall->clock_step, std::chrono::milliseconds(-1500));
}

TEST(ClientPauseNemesisTest, AnInFlightPauseNobodyReachedSaysWhichPoint) {
  ClientPauses pauses;
  ClientPauseNemesis nemesis(pauses);
  FaultResult r =
      nemesis.Invoke({"client-pause", {{"ms", 100}, {"wait_ms", 0}, {"at", "in-flight"}}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("reached the in-flight point"), std::string::npos) << r.error;
}

TEST(ClientPauseNemesisTest, AReleaseInFlightPauseIsTakenOnlyInsideARelease) {
  ClientPauses pauses;
  ClientPauseNemesis nemesis(pauses);
  FaultResult none = nemesis.Invoke(
      {"client-pause", {{"ms", 100}, {"wait_ms", 0}, {"at", "release-in-flight"}}});
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.error.find("reached the release-in-flight point"), std::string::npos)
      << none.error;
  EXPECT_NE(nemesis
                .Invoke({"client-pause",
                         {{"ms", 5}, {"at", "release-in-flight"}, {"clock_delta_ms", -5}}})
                .error.find("needs \"at\": \"in-flight\""),
            std::string::npos);
  std::atomic<bool> done{false};
  std::atomic<bool> others_took{false};
  std::optional<ClientPauses::Stall> stall;
  std::thread client([&] {
    while (!done) {
      if (pauses.Take(4, "lock-0") || pauses.TakeAt(PausePoint::kInFlight, 4, "lock-0")) {
        others_took = true;
      }
      stall = pauses.TakeAt(PausePoint::kReleaseInFlight, 4, "lock-0");
      if (stall) break;
      std::this_thread::yield();
    }
  });
  FaultResult r = nemesis.Invoke(
      {"client-pause", {{"ms", 600}, {"at", "release-in-flight"}, {"wait_ms", 60'000}}});
  done = true;
  client.join();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(others_took);
  EXPECT_EQ(r.value, (nlohmann::json{
                         {"process", 4}, {"key", "lock-0"}, {"ms", 600}, {"at", "release-in-flight"}}));
  ASSERT_TRUE(stall.has_value());
  EXPECT_EQ(stall->duration, std::chrono::milliseconds(600));
  EXPECT_EQ(DescribeFaultOp(kClientPauseLook, {"client-pause", r.value}, "").text,
            "client-pause p4 holding lock-0, its release's reply in flight, for 600 ms");
}

TEST(ClientPauseNemesisTest, BadPointsAndClockStepsAreErrors) {
  ClientPauses pauses;
  ClientPauseNemesis nemesis(pauses);
  EXPECT_NE(nemesis.Invoke({"client-pause", {{"ms", 5}, {"at", "later"}}}).error.find("\"at\""),
            std::string::npos);
  EXPECT_NE(nemesis.Invoke({"client-pause", {{"ms", 5}, {"clock_delta_ms", -5}}})
                .error.find("needs \"at\": \"in-flight\""),
            std::string::npos);
  EXPECT_NE(nemesis.Invoke({"client-pause", {{"ms", 5}, {"at", "in-flight"},
                                             {"clock_delta_ms", 1.5}}})
                .error.find("clock_delta_ms"),
            std::string::npos);
}

TEST(ClientPauseNemesisTest, TheWindowSaysWhereTheStallHits) {
  ClientPauseOptions holder;
  const auto holder_ops = ClientPauseWindow(holder)(0, 10'000);
  ASSERT_FALSE(holder_ops.empty());
  EXPECT_FALSE(holder_ops.front().op.value.contains("at"));
  ClientPauseOptions in_flight;
  in_flight.at = "in-flight";
  const auto in_flight_ops = ClientPauseWindow(in_flight)(0, 10'000);
  ASSERT_FALSE(in_flight_ops.empty());
  EXPECT_EQ(in_flight_ops.front().op.value["at"], "in-flight");
}

TEST(ClientPauseNemesisTest, TeardownDropsAStallNobodyTook) {
  ClientPauses pauses;
  ClientPauseNemesis nemesis(pauses);
  pauses.Request(std::chrono::milliseconds(100));
  EXPECT_TRUE(nemesis.Teardown().empty());
  EXPECT_FALSE(pauses.Take(1, "lock-0").has_value());
}

TEST(ClientPauseLookTest, WhoStalledHoldingWhatForHowLong) {
  const FaultSummary s = DescribeFaultOp(
      kClientPauseLook, {"client-pause", {{"key", "lock-2"}, {"ms", 2000}, {"process", 1}}}, "");
  EXPECT_EQ(s.text, "client-pause p1 holding lock-2 for 2.000 s");
  EXPECT_EQ(s.process, 1);
  EXPECT_TRUE(s.effective);
  // No holder took the stall: it failed and hit nobody.
  const FaultSummary none =
      DescribeFaultOp(kClientPauseLook, {"client-pause", {{"ms", 2000}}}, "no holder");
  EXPECT_FALSE(none.effective);
  EXPECT_EQ(none.process, -1);
  EXPECT_EQ(kClientPauseLook.client_mark, ClientMark::kSpan);
  EXPECT_STREQ(kClientPauseLook.client_op, "pause");
}

}  // namespace
}  // namespace locksmith
