#include "checker/rw_cache_checker.h"

#include <set>

#include <gtest/gtest.h>

#include "history/testing/history_builder.h"

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

// The cache-aside race of a broken lock: reader 1 misses, reads the
// database (12) and stalls past its lease; writer 3 acquires, writes 23 and
// invalidates the cache; reader 1 wakes and fills the cache with 12; reader
// 4 hits the stale copy. The anomaly names the reader, the writer and the
// filler with their holds, and the final read finds the stale copy left.
TEST(RwCacheCheckerTest, ACacheFillOfAnOldValueAfterAnInvalidationIsNamed) {
  HistoryBuilder h;
  h.Invoke(9, "init", {{"value", 0}}, kKey).Ok(9);
  h.Invoke(2, "acquire", {{"mode", "write"}}, kKey).Ok(2, {{"token", "a"}});   // 2, 3
  h.Invoke(2, "write", {{"value", 12}}, kKey).Ok(2);                           // 4, 5
  h.Invoke(2, "release", nullptr, kKey).Ok(2);
  h.Invoke(1, "acquire", {{"mode", "read"}}, kKey).Ok(1, {{"token", "b"}});    // 8, 9
  h.Invoke(1, "read", nullptr, kKey).Ok(1, {{"value", nullptr}, {"hit", false}});
  h.Invoke(1, "read-db", nullptr, kKey).Ok(1, {{"value", 12}});                // 12, 13
  h.Invoke(3, "acquire", {{"mode", "write"}}, kKey).Ok(3, {{"token", "c"}});   // 14, 15
  h.Invoke(3, "write", {{"value", 23}}, kKey).Ok(3);                           // 16, 17
  h.Invoke(3, "release", nullptr, kKey).Ok(3);
  h.Invoke(1, "fill", {{"value", 12}}, kKey).Ok(1);                            // 20, 21
  h.Invoke(1, "release", nullptr, kKey).Ok(1);
  h.Invoke(4, "acquire", {{"mode", "read"}}, kKey).Ok(4, {{"token", "d"}});    // 24, 25
  h.Invoke(4, "read", nullptr, kKey).Ok(4, {{"value", 12}, {"hit", true}});    // 26, 27
  h.Invoke(4, "release", nullptr, kKey).Ok(4);
  h.Invoke(9, "final", nullptr, kKey).Ok(9, {{"value", 23}, {"cache", 12}});   // 30, 31
  CheckResult r = RwCacheChecker().Check(h.Build());
  ASSERT_EQ(r.valid, Validity::kFalse);
  ASSERT_EQ(r.anomalies.size(), 2u) << r.ToJson().dump();
  const auto& a = r.anomalies[0];
  EXPECT_EQ(a["type"], "stale-read");
  EXPECT_EQ(a["value"], 12);
  EXPECT_EQ(a["reader"]["process"], 4);
  EXPECT_EQ(a["reader"]["hold"]["index"], 25);
  EXPECT_EQ(a["reader"]["read"][0]["index"], 26);
  EXPECT_EQ(a["writer"]["process"], 3);
  EXPECT_EQ(a["writer"]["hold"]["index"], 15);
  EXPECT_EQ(a["writer"]["write"][1]["index"], 17);
  EXPECT_EQ(a["returned_write"][0]["index"], 4);
  EXPECT_EQ(a["filler"]["process"], 1);
  EXPECT_EQ(a["filler"]["hold"]["index"], 9);
  EXPECT_EQ(a["filler"]["read_db"]["index"], 13);
  EXPECT_EQ(a["filler"]["fill"][0]["index"], 20);
  std::set<int64_t> named;
  for (const auto& op : a["ops"]) named.insert(op["index"].get<int64_t>());
  for (int64_t i : {4, 5, 9, 13, 15, 16, 17, 20, 21, 25, 26, 27}) {
    EXPECT_TRUE(named.count(i)) << i;
  }
  const auto& left = r.anomalies[1];
  EXPECT_EQ(left["type"], "stale-cache");
  EXPECT_EQ(left["value"], 23);
  EXPECT_EQ(left["cache"], 12);
  EXPECT_EQ(left["final"]["index"], 31);
  EXPECT_EQ(left["filler"]["fill"][0]["index"], 20);
  EXPECT_EQ(r.stats["stale_reads"], 1);
  EXPECT_EQ(r.stats["stale_caches"], 1);
  EXPECT_EQ(r.stats["reads"], 2);  // a miss reads nothing; the database read and the hit do
}

// The same ops under a lock that held: the fill comes before the writer's
// invalidation, so the next reader misses and reads the new value.
TEST(RwCacheCheckerTest, AFillBeforeTheInvalidationLeavesNothingStale) {
  HistoryBuilder h;
  h.Invoke(2, "write", {{"value", 12}}, kKey).Ok(2);
  h.Invoke(1, "read", nullptr, kKey).Ok(1, {{"value", nullptr}, {"hit", false}});
  h.Invoke(1, "read-db", nullptr, kKey).Ok(1, {{"value", 12}});
  h.Invoke(1, "fill", {{"value", 12}}, kKey).Ok(1);
  h.Invoke(3, "write", {{"value", 23}}, kKey).Ok(3);
  h.Invoke(4, "read", nullptr, kKey).Ok(4, {{"value", nullptr}, {"hit", false}});
  h.Invoke(4, "read-db", nullptr, kKey).Ok(4, {{"value", 23}});
  h.Invoke(4, "fill", {{"value", 23}}, kKey).Ok(4);
  h.Invoke(5, "read", nullptr, kKey).Ok(5, {{"value", 23}, {"hit", true}});
  h.Invoke(9, "final", nullptr, kKey).Ok(9, {{"value", 23}, {"cache", 23}});
  CheckResult r = RwCacheChecker().Check(h.Build());
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
  EXPECT_EQ(r.stats["reads"], 3);
}

}  // namespace
}  // namespace locksmith
