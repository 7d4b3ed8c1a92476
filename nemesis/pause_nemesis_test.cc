#include "nemesis/pause_nemesis.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(PauseLookTest, APauseThatFrozeNothingSaysWhyAndHadNoEffect) {
  const FaultSummary s =
      DescribeFaultOp(kPauseLook, {"pause", {{"nodes", nlohmann::json::array()}}}, "n1 is down");
  EXPECT_EQ(s.text, "pause (no node) \xE2\x80\x94 n1 is down");
  EXPECT_FALSE(s.effective);
  EXPECT_EQ(s.process, -1);
  // A failure that still froze a node had an effect.
  EXPECT_TRUE(DescribeFaultOp(kPauseLook, {"pause", {{"nodes", {"n2"}}}}, "n1 is down").effective);
}

}  // namespace
}  // namespace locksmith
