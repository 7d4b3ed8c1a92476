#include "backends/client_crashes.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

using std::chrono::milliseconds;

TEST(ClientCrashesTest, NoRequestNoCrash) {
  ClientCrashes crashes;
  EXPECT_FALSE(crashes.Take(3, "lock-0"));
}

TEST(ClientCrashesTest, TheFirstAcquirerToCheckCrashesOnce) {
  ClientCrashes crashes;
  crashes.Request();
  EXPECT_TRUE(crashes.Take(4, "lock-1"));
  EXPECT_FALSE(crashes.Take(5, "lock-1"));
  auto taken = crashes.AwaitTaken(milliseconds(0));
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->process, 4);
  EXPECT_EQ(taken->key, "lock-1");
}

TEST(ClientCrashesTest, KeyAndProcessNarrowWhoCrashes) {
  ClientCrashes crashes;
  crashes.Request("lock-2", 7);
  EXPECT_FALSE(crashes.Take(1, "lock-2"));
  EXPECT_FALSE(crashes.Take(7, "lock-0"));
  EXPECT_TRUE(crashes.Take(7, "lock-2"));
}

TEST(ClientCrashesTest, NobodyInTimeOrCancelDropsTheRequest) {
  ClientCrashes crashes;
  crashes.Request();
  EXPECT_FALSE(crashes.AwaitTaken(milliseconds(0)).has_value());
  EXPECT_FALSE(crashes.Take(1, "lock-0"));
  crashes.Request();
  crashes.Cancel();
  EXPECT_FALSE(crashes.Take(1, "lock-0"));
}

}  // namespace
}  // namespace locksmith
