#include "checker/fencing_checker.h"

#include <gtest/gtest.h>

#include "checker/testing/history_builder.h"

namespace locksmith {
namespace {

using testing::HistoryBuilder;

const std::string kKey = "item-0";

TEST(FencingCheckerTest, GrowingFencesAndRejectionsAreValid) {
  HistoryBuilder h;
  h.Invoke(0, "read", {{"fence", 1}}, kKey).Ok(0, {{"value", 5}});
  h.Invoke(1, "read", {{"fence", 2}}, kKey).Ok(1, {{"value", 5}});
  h.Invoke(1, "write", {{"value", 4}, {"fence", 2}}, kKey).Ok(1);
  // The stale holder's write is rejected: it did nothing.
  h.Invoke(0, "write", {{"value", 4}, {"fence", 1}}, kKey)
      .Fail(0, {{"rejected", true}, {"fence", 1}, {"highest", 2}});
  h.Invoke(2, "write", {{"value", 3}, {"fence", 2}}, kKey).Ok(2);  // equal: accepted
  CheckResult r = FencingChecker().Check(h.Build());
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
  EXPECT_EQ(r.stats["accepted"], 4);
  EXPECT_EQ(r.stats["rejected"], 1);
}

TEST(FencingCheckerTest, AStaleWriteAcceptedIsAViolation) {
  HistoryBuilder h;
  h.Invoke(1, "write", {{"value", 4}, {"fence", 7}}, kKey).Ok(1);
  h.Invoke(0, "write", {{"value", 4}, {"fence", 3}}, kKey).Ok(0);
  CheckResult r = FencingChecker().Check(h.Build());
  ASSERT_EQ(r.valid, Validity::kFalse);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["type"], "stale-write-accepted");
  EXPECT_EQ(r.anomalies[0]["accepted_before"], 7);
  EXPECT_EQ(r.anomalies[0]["ops"][0]["index"], 1);
  EXPECT_EQ(r.anomalies[0]["ops"][1]["index"], 2);
}

TEST(FencingCheckerTest, ConcurrentOpsAreNotOrdered) {
  HistoryBuilder h;
  // The higher fence's write had not completed when the lower one began:
  // the store may have taken the lower one first.
  h.Invoke(1, "write", {{"value", 4}, {"fence", 7}}, kKey);
  h.Invoke(0, "write", {{"value", 4}, {"fence", 3}}, kKey);
  h.Ok(1).Ok(0);
  EXPECT_EQ(FencingChecker().Check(h.Build()).valid, Validity::kTrue);
}

TEST(FencingCheckerTest, KeysAreIndependentAndUnfencedOpsIgnored) {
  HistoryBuilder h;
  h.Invoke(1, "write", {{"value", 4}, {"fence", 7}}, "item-1").Ok(1);
  h.Invoke(0, "write", {{"value", 4}, {"fence", 3}}, kKey).Ok(0);
  h.Invoke(2, "write", {{"value", 4}}, kKey).Ok(2);
  CheckResult r = FencingChecker().Check(h.Build());
  EXPECT_EQ(r.valid, Validity::kTrue);
  EXPECT_EQ(r.stats["fenced_ops"], 2);
}

}  // namespace
}  // namespace locksmith
