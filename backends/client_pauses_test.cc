#include "backends/client_pauses.h"

#include <gtest/gtest.h>

#include <thread>

namespace locksmith {
namespace {

using std::chrono::milliseconds;

TEST(ClientPausesTest, NoRequestNoStall) {
  ClientPauses pauses;
  EXPECT_FALSE(pauses.Take(3, "lock-0").has_value());
}

TEST(ClientPausesTest, TheFirstHolderToCheckTakesTheStallOnce) {
  ClientPauses pauses;
  pauses.Request(milliseconds(1500));
  EXPECT_EQ(pauses.Take(4, "lock-1"), milliseconds(1500));
  EXPECT_FALSE(pauses.Take(5, "lock-1").has_value());
  auto taken = pauses.AwaitTaken(milliseconds(0));
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->process, 4);
  EXPECT_EQ(taken->key, "lock-1");
  EXPECT_EQ(taken->duration, milliseconds(1500));
}

TEST(ClientPausesTest, AKeyedRequestWaitsForAHolderOfThatKey) {
  ClientPauses pauses;
  pauses.Request(milliseconds(10), "lock-2");
  EXPECT_FALSE(pauses.Take(1, "lock-0").has_value());
  EXPECT_EQ(pauses.Take(2, "lock-2"), milliseconds(10));
}

TEST(ClientPausesTest, ARequestForOneProcessWaitsForThatHolder) {
  ClientPauses pauses;
  pauses.Request(milliseconds(10), "lock-2", 7);
  EXPECT_FALSE(pauses.Take(2, "lock-2").has_value());
  EXPECT_EQ(pauses.Take(7, "lock-2"), milliseconds(10));
}

TEST(ClientPausesTest, AStallAtOnePointIsNotTakenAtTheOther) {
  ClientPauses pauses;
  pauses.RequestAt(PausePoint::kInFlight, {milliseconds(30), milliseconds(-30)}, "lock-0");
  EXPECT_FALSE(pauses.Take(1, "lock-0").has_value()) << "a holder does not take it";
  auto stall = pauses.TakeAt(PausePoint::kInFlight, 1, "lock-0");
  ASSERT_TRUE(stall.has_value());
  EXPECT_EQ(stall->duration, milliseconds(30));
  EXPECT_EQ(stall->clock_step, milliseconds(-30));
  auto taken = pauses.AwaitTaken(milliseconds(0));
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->point, PausePoint::kInFlight);
  EXPECT_EQ(taken->clock_step, milliseconds(-30));

  pauses.Request(milliseconds(10));
  EXPECT_FALSE(pauses.TakeAt(PausePoint::kInFlight, 1, "lock-0").has_value());
  EXPECT_EQ(pauses.Take(1, "lock-0"), milliseconds(10));
}

TEST(ClientPausesTest, AwaitTakenSeesAStallTakenOnAnotherThread) {
  ClientPauses pauses;
  pauses.Request(milliseconds(20));
  std::thread worker([&] {
    // Keeps checking, as holders do, until it gets the stall.
    while (!pauses.Take(7, "lock-0")) std::this_thread::yield();
  });
  auto taken = pauses.AwaitTaken(milliseconds(60'000));
  worker.join();
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->process, 7);
}

TEST(ClientPausesTest, ARequestNobodyTookIsDroppedAndCancelDropsToo) {
  ClientPauses pauses;
  pauses.Request(milliseconds(20));
  EXPECT_FALSE(pauses.AwaitTaken(milliseconds(0)).has_value());
  EXPECT_FALSE(pauses.Take(1, "lock-0").has_value());
  pauses.Request(milliseconds(20));
  pauses.Cancel();
  EXPECT_FALSE(pauses.Take(1, "lock-0").has_value());
}

TEST(ClientPausesTest, ANewRequestForgetsWhoTookTheLastOne) {
  ClientPauses pauses;
  pauses.Request(milliseconds(20));
  ASSERT_TRUE(pauses.Take(1, "lock-0"));
  pauses.Request(milliseconds(30));
  EXPECT_FALSE(pauses.AwaitTaken(milliseconds(0)).has_value());
}

TEST(ClientPausesTest, AStallOnAReleasesReplyPathIsTakenThereOnly) {
  ClientPauses pauses;
  EXPECT_STREQ(PausePointName(PausePoint::kReleaseInFlight), "release-in-flight");
  pauses.RequestAt(PausePoint::kReleaseInFlight, {milliseconds(600), milliseconds(0)}, "lock-0", 4);
  EXPECT_FALSE(pauses.Take(4, "lock-0").has_value()) << "a holder does not take it";
  EXPECT_FALSE(pauses.TakeAt(PausePoint::kInFlight, 4, "lock-0").has_value());
  EXPECT_FALSE(pauses.TakeAt(PausePoint::kReleaseInFlight, 5, "lock-0").has_value());
  auto stall = pauses.TakeAt(PausePoint::kReleaseInFlight, 4, "lock-0");
  ASSERT_TRUE(stall.has_value());
  EXPECT_EQ(stall->duration, milliseconds(600));
  auto taken = pauses.AwaitTaken(milliseconds(0));
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->point, PausePoint::kReleaseInFlight);
  EXPECT_EQ(taken->process, 4);
}

}  // namespace
}  // namespace locksmith
