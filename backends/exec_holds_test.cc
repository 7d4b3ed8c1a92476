#include "backends/exec_holds.h"

#include <gtest/gtest.h>

#include <string>

namespace locksmith {
namespace {

// Lock-lost events judged against the holds: one for the lock held is
// recorded once; one for a hold whose release is in flight, or that just
// ended, is stale (dropped); one that names a held token with another key,
// or a token never granted, is refused.
TEST(ExecHoldsTest, AnEventEndsAHoldTheWorkerHasAndNothingElse) {
  ExecHolds holds;
  holds.Acquired("lock-1", "t1");
  EXPECT_EQ(holds.Lost("lock-1", "t9").verdict, ExecHolds::Verdict::kRefuse);
  ExecHolds::Judgement wrong_key = holds.Lost("lock-2", "t1");
  EXPECT_EQ(wrong_key.verdict, ExecHolds::Verdict::kRefuse);
  EXPECT_NE(wrong_key.why.find("that token holds \"lock-1\""), std::string::npos) << wrong_key.why;
  ExecHolds::Judgement lost = holds.Lost("lock-1", "");  // no token: the key's hold
  EXPECT_EQ(lost.verdict, ExecHolds::Verdict::kRecord);
  EXPECT_EQ(lost.token, "t1");
  EXPECT_EQ(holds.held(), 0u);
  EXPECT_EQ(holds.Lost("lock-1", "t1").verdict, ExecHolds::Verdict::kStale);  // again
  holds.Acquired("lock-2", "t2");
  holds.Releasing("t2");
  EXPECT_EQ(holds.Lost("lock-2", "t2").verdict, ExecHolds::Verdict::kStale);
  holds.Released("t2");
  EXPECT_EQ(holds.held(), 0u);
  EXPECT_EQ(holds.Lost("lock-2", "t2").verdict, ExecHolds::Verdict::kStale);
  // Only the last few ended holds are remembered.
  for (int i = 0; i < static_cast<int>(ExecHolds::kRemembered); ++i) {
    holds.Acquired("k", "u" + std::to_string(i));
    holds.Releasing("u" + std::to_string(i));
    holds.Released("u" + std::to_string(i));
  }
  EXPECT_EQ(holds.Lost("lock-2", "t2").verdict, ExecHolds::Verdict::kRefuse);
}

}  // namespace
}  // namespace locksmith
