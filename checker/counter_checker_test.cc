#include "checker/counter_checker.h"

#include <gtest/gtest.h>

#include "history/testing/history_builder.h"

namespace locksmith {
namespace {

using testing::HistoryBuilder;

void Increment(HistoryBuilder& h, int64_t p, int64_t read, OpType outcome = OpType::kOk) {
  const std::string key = "counter-0";
  h.Call(p, "acquire", nullptr, {{"token", "t"}, {"validity_ms", 900}}, key);
  h.Invoke(p, "read", nullptr, key).Ok(p, {{"value", read}});
  h.Invoke(p, "write", {{"value", read + 1}, {"read", read}}, key);
  if (outcome == OpType::kOk) h.Ok(p);
  if (outcome == OpType::kFail) h.Fail(p);
  if (outcome == OpType::kInfo) h.Info(p);
  h.Invoke(p, "release", {{"token", "t"}}, key).Ok(p);
}

void Final(HistoryBuilder& h, int64_t value) {
  h.Invoke(1'000'000'000, "final", nullptr, "counter-0").Ok(1'000'000'000, {{"value", value}});
}

TEST(CounterCheckerTest, EveryIncrementCounted) {
  HistoryBuilder h;
  Increment(h, 0, 0);
  Increment(h, 1, 1);
  Increment(h, 2, 2);
  Final(h, 3);
  CheckResult r = CounterChecker().Check(h.Build());
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
}

TEST(CounterCheckerTest, LostIncrementNamesTheOverlappingWriters) {
  HistoryBuilder h;
  Increment(h, 0, 0);
  Increment(h, 1, 0);  // read before 0's write: both wrote 1
  Increment(h, 2, 1);
  Final(h, 2);
  CheckResult r = CounterChecker().Check(h.Build());
  ASSERT_EQ(r.valid, Validity::kFalse);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["type"], "lost-increment");
  EXPECT_EQ(r.anomalies[0]["expected"], nlohmann::json({3, 3}));
  const auto& buyers = r.anomalies[0]["overlapping"][0]["buyers"];
  EXPECT_EQ(buyers[0]["process"], 0);
  EXPECT_EQ(buyers[1]["process"], 1);
  EXPECT_NE(r.summary.find("1 increments lost"), std::string::npos) << r.summary;
}

TEST(CounterCheckerTest, OverlappingWritersArePairedInInvokeOrderWhateverOrderTheyComplete) {
  HistoryBuilder h;
  const std::string key = "counter-0";
  for (int64_t p : {0, 1}) {
    h.Call(p, "acquire", nullptr, {{"token", "t"}}, key);
    h.Invoke(p, "read", nullptr, key).Ok(p, {{"value", 0}});
  }
  // 2 reads 0 and completes first of all; 0's write is the first invoked.
  h.Call(2, "acquire", nullptr, {{"token", "t"}}, key);
  h.Invoke(2, "read", nullptr, key).Ok(2, {{"value", 0}});
  h.Invoke(0, "write", {{"value", 1}, {"read", 0}}, key);
  h.Invoke(1, "write", {{"value", 1}, {"read", 0}}, key);
  h.Invoke(2, "write", {{"value", 1}, {"read", 0}}, key);
  h.Ok(2).Ok(1).Ok(0);
  for (int64_t p : {2, 0, 1}) h.Invoke(p, "release", {{"token", "t"}}, key).Ok(p);
  Final(h, 1);
  CheckResult r = CounterChecker().Check(h.Build());
  ASSERT_EQ(r.valid, Validity::kFalse);
  const auto& pairs = r.anomalies[0]["overlapping"];
  ASSERT_EQ(pairs.size(), 2u) << pairs.dump();
  EXPECT_EQ(pairs[0]["buyers"][0]["process"], 0);
  EXPECT_EQ(pairs[0]["buyers"][1]["process"], 1);
  EXPECT_EQ(pairs[1]["buyers"][0]["process"], 1);
  EXPECT_EQ(pairs[1]["buyers"][1]["process"], 2);
  // Each buyer's release came after every write had completed.
  EXPECT_EQ(pairs[0]["buyers"][0]["release"]["index"], 20);
  EXPECT_EQ(pairs[1]["buyers"][1]["write_done"]["index"], 15);
}

TEST(CounterCheckerTest, InfoIncrementsGiveBounds) {
  HistoryBuilder h;
  Increment(h, 0, 0);
  Increment(h, 1, 1, OpType::kInfo);
  Increment(h, 2, 1, OpType::kFail);
  for (int64_t v : {1, 2}) {
    HistoryBuilder f = h;
    Final(f, v);
    EXPECT_EQ(CounterChecker().Check(f.Build()).valid, Validity::kTrue) << v;
  }
  HistoryBuilder low = h;
  Final(low, 0);
  EXPECT_EQ(CounterChecker().Check(low.Build()).anomalies[0]["type"], "lost-increment");
  HistoryBuilder high = h;
  Final(high, 3);
  EXPECT_EQ(CounterChecker().Check(high.Build()).anomalies[0]["type"], "unexpected-increment");
}

TEST(CounterCheckerTest, NoFinalReadIsUnknown) {
  HistoryBuilder h;
  Increment(h, 0, 0);
  CheckResult r = CounterChecker().Check(h.Build());
  EXPECT_EQ(r.valid, Validity::kUnknown);
  EXPECT_NE(r.reason.find("no final read of counter-0"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace locksmith
