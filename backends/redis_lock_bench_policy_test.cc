#include "backends/redis_lock_bench_policy.h"

#include <set>

#include <gtest/gtest.h>

namespace locksmith {
namespace {

using std::chrono::milliseconds;
using Clock = LockBenchPolicy::Clock;

TEST(LockBenchPolicyTest, WithoutContentionAClientAlwaysLocksItsOwnKey) {
  LockBenchPolicy policy(/*keys=*/50, /*client=*/57, /*contend=*/false, milliseconds(2000), 1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(policy.NextKey(), 7);
}

TEST(LockBenchPolicyTest, ContendingClientsPickEveryKeyAndReplayTheirSeed) {
  LockBenchPolicy a(50, 3, true, milliseconds(2000), 1);
  LockBenchPolicy again(50, 3, true, milliseconds(2000), 1);
  LockBenchPolicy other(50, 4, true, milliseconds(2000), 1);
  std::set<int> seen;
  bool differs = false;
  for (int i = 0; i < 2000; ++i) {
    const int key = a.NextKey();
    ASSERT_GE(key, 0);
    ASSERT_LT(key, 50);
    EXPECT_EQ(again.NextKey(), key);
    differs = differs || other.NextKey() != key;
    seen.insert(key);
  }
  EXPECT_EQ(seen.size(), 50u);
  EXPECT_TRUE(differs);  // each client draws from a stream of its own
}

TEST(LockBenchPolicyTest, ARefusedAcquireIsTriedAgainUntilGrantedCountingEveryAttempt) {
  LockBenchPolicy policy(50, 0, true, milliseconds(2000), 1);
  const Clock::time_point t0 = Clock::now();
  policy.BeginAcquire(t0);
  EXPECT_TRUE(policy.RetryAfter(Outcome::kFail, t0 + milliseconds(1), false));
  EXPECT_TRUE(policy.RetryAfter(Outcome::kFail, t0 + milliseconds(2), false));
  EXPECT_FALSE(policy.RetryAfter(Outcome::kOk, t0 + milliseconds(3), false));
  EXPECT_EQ(policy.attempts(), 3);
  policy.BeginAcquire(t0 + milliseconds(4));  // the next op counts afresh
  EXPECT_FALSE(policy.RetryAfter(Outcome::kOk, t0 + milliseconds(5), false));
  EXPECT_EQ(policy.attempts(), 1);
}

TEST(LockBenchPolicyTest, AnAttemptInDoubtTheSpentBudgetOrTheStopEndTheAcquire) {
  LockBenchPolicy policy(50, 0, true, milliseconds(2000), 1);
  const Clock::time_point t0 = Clock::now();
  policy.BeginAcquire(t0);
  EXPECT_FALSE(policy.RetryAfter(Outcome::kUnknown, t0, false));
  policy.BeginAcquire(t0);
  EXPECT_EQ(policy.WaitLeft(t0 + milliseconds(500)), milliseconds(1500));
  EXPECT_FALSE(policy.RetryAfter(Outcome::kFail, t0 + milliseconds(2000), false));
  EXPECT_EQ(policy.WaitLeft(t0 + milliseconds(2500)), milliseconds(0));
  policy.BeginAcquire(t0);
  EXPECT_FALSE(policy.RetryAfter(Outcome::kFail, t0 + milliseconds(1), true));
  EXPECT_EQ(policy.attempts(), 1);
}

TEST(LockBenchPolicyTest, WithoutContentionAnAcquireIsOneAttempt) {
  LockBenchPolicy policy(50, 0, false, milliseconds(2000), 1);
  const Clock::time_point t0 = Clock::now();
  policy.BeginAcquire(t0);
  EXPECT_EQ(policy.WaitLeft(t0), milliseconds(0));
  EXPECT_FALSE(policy.RetryAfter(Outcome::kFail, t0, false));
  EXPECT_EQ(policy.attempts(), 1);
}

}  // namespace
}  // namespace locksmith
