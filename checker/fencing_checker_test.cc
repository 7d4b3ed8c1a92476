#include "checker/fencing_checker.h"

#include <gtest/gtest.h>

#include "history/testing/history_builder.h"

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


// An ok acquire of `key` by `process` granted `fence`.
void Grant(HistoryBuilder& h, int64_t process, int64_t fence, const std::string& key = kKey) {
  h.Invoke(process, "acquire", {{"lease_ms", 1000}}, key)
      .Ok(process, {{"token", "t" + std::to_string(process)}, {"fence", fence}});
}

TEST(FencingCheckerTest, AFenceGrantedToTwoAcquisitionsIsReused) {
  // After a failover the promoted replica's counter hands out 7 and 8 again.
  HistoryBuilder h;
  Grant(h, 0, 7);
  Grant(h, 1, 8);
  Grant(h, 2, 7);
  Grant(h, 3, 8);
  Grant(h, 4, 9);
  CheckResult r = FencingChecker().Check(h.Build());
  ASSERT_EQ(r.valid, Validity::kFalse) << r.ToJson().dump();
  ASSERT_EQ(r.anomalies.size(), 2u);
  EXPECT_EQ(r.anomalies[0]["type"], "fence-reused");
  EXPECT_EQ(r.anomalies[0]["key"], kKey);
  EXPECT_EQ(r.anomalies[0]["fence"], 7);
  // Both acquisitions: the first grant, then the second.
  EXPECT_EQ(r.anomalies[0]["ops"][0]["index"], 1);
  EXPECT_EQ(r.anomalies[0]["ops"][1]["index"], 5);
  EXPECT_EQ(r.anomalies[1]["fence"], 8);
  EXPECT_EQ(r.anomalies[1]["ops"][0]["index"], 3);
  EXPECT_EQ(r.anomalies[1]["ops"][1]["process"], 3);
  EXPECT_EQ(r.stats["granted_fences"], 5);
  EXPECT_EQ(r.stats["reused_fences"], 2);
}

TEST(FencingCheckerTest, AReusedFenceIsFoundWhetherOrNotTheResourceTookIt) {
  // The resource refused the second holder: the service still broke the
  // promise that a fence names one acquisition.
  HistoryBuilder h;
  Grant(h, 0, 3);
  h.Invoke(0, "write", {{"value", 1}, {"fence", 3}}, kKey).Ok(0);
  Grant(h, 1, 3);
  h.Invoke(1, "write", {{"value", 2}, {"fence", 3}}, kKey)
      .Fail(1, {{"rejected", true}, {"fence", 3}, {"highest", 3}});
  CheckResult r = FencingChecker().Check(h.Build());
  ASSERT_EQ(r.valid, Validity::kFalse);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["type"], "fence-reused");
  EXPECT_EQ(r.stats["rejected"], 1);
}

TEST(FencingCheckerTest, GrowingFencesWithGapsAreNotReused) {
  // Gaps (acquires that ended info), keys of their own, and fences that
  // jump (czxids) are all new fences.
  HistoryBuilder h;
  Grant(h, 0, 1);
  Grant(h, 1, 2);
  h.Invoke(2, "acquire", {{"lease_ms", 1000}}, kKey).Info(2);  // took 3, unseen
  Grant(h, 3, 4);
  Grant(h, 4, 1, "item-1");
  Grant(h, 5, 1000);
  Grant(h, 6, 999);  // lower, but never granted: not a reuse
  Grant(h, 7, 3);    // the info acquire's fence, granted for the first time here
  CheckResult r = FencingChecker().Check(h.Build());
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
  EXPECT_EQ(r.stats["granted_fences"], 7);
  EXPECT_EQ(r.stats["reused_fences"], 0);
}

TEST(FencingCheckerTest, FailedAndReentrantAcquiresGrantNothing) {
  HistoryBuilder h;
  Grant(h, 0, 5);
  // A failed acquire's value, and a re-entry nested in the hold, carry the
  // hold's fence: neither is a second acquisition.
  h.Invoke(1, "acquire", {{"lease_ms", 1000}}, kKey).Fail(1, {{"fence", 5}});
  h.Invoke(0, "acquire", {{"lease_ms", 1000}, {"reentry", true}}, kKey)
      .Ok(0, {{"token", "t0"}, {"fence", 5}});
  EXPECT_EQ(FencingChecker().Check(h.Build()).valid, Validity::kTrue);
}


TEST(FencingCheckerTest, RangesMergeInAnyOrderAndStillFindAReuse) {
  HistoryBuilder h;
  int64_t process = 0;
  for (int64_t fence : {3, 1, 2, 6, 5, 4, 9, 8}) Grant(h, process++, fence);
  Grant(h, process++, 2);
  Grant(h, process++, 7);
  Grant(h, process++, 9);
  CheckResult r = FencingChecker().Check(h.Build());
  ASSERT_EQ(r.anomalies.size(), 2u) << r.ToJson().dump();
  EXPECT_EQ(r.anomalies[0]["fence"], 2);
  EXPECT_EQ(r.anomalies[1]["fence"], 9);
  EXPECT_EQ(r.anomalies[1]["ops"][0]["process"], 6);
}


TEST(FencingCheckerTest, TheFirstGrantIsTheFirstToComplete) {
  // p0 invoked first but was granted second: the reuse is p0's grant.
  HistoryBuilder h;
  h.Invoke(0, "acquire", {{"lease_ms", 1000}}, kKey);
  h.Invoke(1, "acquire", {{"lease_ms", 1000}}, kKey);
  h.Ok(1, {{"token", "t1"}, {"fence", 4}});
  h.Ok(0, {{"token", "t0"}, {"fence", 4}});
  CheckResult r = FencingChecker().Check(h.Build());
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["ops"][0]["index"], 2);
  EXPECT_EQ(r.anomalies[0]["ops"][1]["index"], 3);
}

}  // namespace
}  // namespace locksmith
