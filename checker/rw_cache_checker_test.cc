#include "checker/rw_cache_checker.h"

#include <gtest/gtest.h>

#include "checker/testing/history_builder.h"

namespace locksmith {
namespace {

using testing::HistoryBuilder;

const std::string kKey = "cache-0";

TEST(RwCacheCheckerTest, ReadsOfTheLatestOrAConcurrentWriteAreValid) {
  HistoryBuilder h;
  h.Invoke(9, "init", {{"value", 0}}, kKey).Ok(9);
  h.Invoke(1, "read", nullptr, kKey).Ok(1, {{"value", 0}});   // nothing written yet
  h.Invoke(2, "write", {{"value", 12}}, kKey).Ok(2);
  h.Invoke(1, "read", nullptr, kKey).Ok(1, {{"value", 12}});
  h.Invoke(3, "write", {{"value", 23}}, kKey);                 // concurrent with the read
  h.Invoke(1, "read", nullptr, kKey).Ok(1, {{"value", 12}});  // may precede the write
  h.Ok(3);
  CheckResult r = RwCacheChecker().Check(h.Build());
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
  EXPECT_EQ(r.stats["reads"], 3);
}

TEST(RwCacheCheckerTest, AReadOlderThanTheLastCompletedWriteIsStale) {
  HistoryBuilder h;
  h.Invoke(2, "write", {{"value", 12}}, kKey).Ok(2);
  h.Invoke(3, "write", {{"value", 23}}, kKey).Ok(3);
  h.Invoke(1, "read", nullptr, kKey).Ok(1, {{"value", 12}});
  CheckResult r = RwCacheChecker().Check(h.Build());
  ASSERT_EQ(r.valid, Validity::kFalse);
  ASSERT_EQ(r.anomalies.size(), 1u);
  const auto& a = r.anomalies[0];
  EXPECT_EQ(a["type"], "stale-read");
  EXPECT_EQ(a["value"], 12);
  EXPECT_EQ(a["last_write"][0]["index"], 2);      // 23's invoke
  EXPECT_EQ(a["returned_write"][0]["index"], 0);  // 12's invoke
  EXPECT_EQ(a["ops"][0]["index"], 4);             // the read
}

TEST(RwCacheCheckerTest, TheInitialValueAfterACompletedWriteIsStale) {
  HistoryBuilder h;
  h.Invoke(9, "init", {{"value", 5}}, kKey).Ok(9);
  h.Invoke(2, "write", {{"value", 12}}, kKey).Ok(2);
  h.Invoke(1, "read", nullptr, kKey).Ok(1, {{"value", 5}});
  CheckResult r = RwCacheChecker().Check(h.Build());
  ASSERT_EQ(r.valid, Validity::kFalse);
  EXPECT_EQ(r.anomalies[0]["initial"], true);
}

TEST(RwCacheCheckerTest, InfoWritesMayLandLateAndUnknownValuesAreReported) {
  HistoryBuilder h;
  h.Invoke(2, "write", {{"value", 12}}, kKey).Info(2);  // may land any time later
  h.Invoke(3, "write", {{"value", 23}}, kKey).Ok(3);
  h.Invoke(1, "read", nullptr, kKey).Ok(1, {{"value", 12}});
  h.Invoke(4, "write", {{"value", 34}}, kKey).Fail(4);  // certainly not written
  h.Invoke(1, "read", nullptr, kKey).Ok(1, {{"value", 34}});
  CheckResult r = RwCacheChecker().Check(h.Build());
  ASSERT_EQ(r.anomalies.size(), 1u) << r.ToJson().dump();
  EXPECT_EQ(r.anomalies[0]["type"], "unknown-value");
  EXPECT_EQ(r.anomalies[0]["value"], 34);
}

TEST(RwCacheCheckerTest, KeysAreIndependent) {
  HistoryBuilder h;
  h.Invoke(2, "write", {{"value", 12}}, "cache-1").Ok(2);
  h.Invoke(1, "read", nullptr, kKey).Ok(1, {{"value", 0}});
  EXPECT_EQ(RwCacheChecker().Check(h.Build()).valid, Validity::kTrue);
}

}  // namespace
}  // namespace locksmith
