#include "checker/inventory_checker.h"

#include <gtest/gtest.h>

#include "history/testing/history_builder.h"

namespace locksmith {
namespace {

using testing::HistoryBuilder;

// One buyer's whole purchase, in order: acquire, read `read`, write read - 1
// with order `order`, completed as `write_outcome`, release.
void Buy(HistoryBuilder& h, int64_t p, int64_t read, const std::string& order,
         OpType write_outcome = OpType::kOk) {
  const std::string key = "item-0";
  h.Call(p, "acquire", {{"lease_ms", 1000}}, {{"token", "t"}, {"validity_ms", 900}}, key);
  h.Invoke(p, "read", nullptr, key).Ok(p, {{"value", read}});
  h.Invoke(p, "write", {{"value", read - 1}, {"read", read}, {"order", order}}, key);
  if (write_outcome == OpType::kOk) h.Ok(p);
  if (write_outcome == OpType::kFail) h.Fail(p);
  if (write_outcome == OpType::kInfo) h.Info(p);
  h.Invoke(p, "release", {{"token", "t"}}, key).Ok(p);
}

void Final(HistoryBuilder& h, int64_t stock, std::vector<std::string> orders) {
  h.Invoke(1'000'000'000, "final", nullptr, "item-0")
      .Ok(1'000'000'000, {{"value", stock}, {"orders", orders}});
}

TEST(InventoryCheckerTest, SerialSalesAreValid) {
  HistoryBuilder h;
  Buy(h, 0, 3, "a");
  Buy(h, 1, 2, "b");
  Buy(h, 0, 1, "c");
  Final(h, 0, {"a", "b", "c"});
  CheckResult r = InventoryChecker(3).Check(h.Build());
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
  EXPECT_EQ(r.stats["items"]["item-0"]["acknowledged"], 3);
}

TEST(InventoryCheckerTest, TwoBuyersOfTheSameUnitOversellAndLoseAnUpdate) {
  HistoryBuilder h;
  const std::string key = "item-0";
  // Both hold (the second after the first's lease expired), both read 1.
  h.Call(0, "acquire", {{"lease_ms", 100}}, {{"token", "a"}, {"validity_ms", 90}}, key);
  h.Invoke(0, "read", nullptr, key).Ok(0, {{"value", 1}});
  h.Call(1, "acquire", {{"lease_ms", 100}}, {{"token", "b"}, {"validity_ms", 90}}, key);
  h.Invoke(1, "read", nullptr, key).Ok(1, {{"value", 1}});
  h.Invoke(1, "write", {{"value", 0}, {"read", 1}, {"order", "o-1"}}, key).Ok(1);
  h.Invoke(0, "write", {{"value", 0}, {"read", 1}, {"order", "o-0"}}, key).Ok(0);
  h.Invoke(1, "release", {{"token", "b"}}, key).Ok(1);
  h.Invoke(0, "release", {{"token", "a"}}, key).Fail(0);
  Final(h, 0, {"o-1", "o-0"});
  CheckResult r = InventoryChecker(1).Check(h.Build());
  ASSERT_EQ(r.valid, Validity::kFalse);
  ASSERT_EQ(r.anomalies.size(), 2u) << r.anomalies.dump();
  EXPECT_EQ(r.anomalies[0]["type"], "oversold");
  EXPECT_EQ(r.anomalies[0]["orders"], 2);
  EXPECT_EQ(r.anomalies[1]["type"], "lost-update");
  EXPECT_EQ(r.anomalies[1]["final_stock"], 0);
  EXPECT_EQ(r.anomalies[1]["expected_stock"], nlohmann::json({-1, -1}));
  // The proof: the two buyers with their holds, reads, writes and releases.
  const auto& buyers = r.anomalies[0]["overlapping"][0]["buyers"];
  ASSERT_EQ(buyers.size(), 2u);
  EXPECT_EQ(buyers[0]["process"], 1);
  EXPECT_EQ(buyers[1]["process"], 0);
  EXPECT_EQ(buyers[1]["hold"]["index"], 1);
  EXPECT_EQ(buyers[1]["read"]["index"], 3);
  EXPECT_EQ(buyers[1]["write"]["index"], 10);
  EXPECT_EQ(buyers[1]["release"]["index"], 14);
  EXPECT_EQ(buyers[0]["read_value"], 1);
  EXPECT_NE(r.summary.find("2 orders of 1 units"), std::string::npos) << r.summary;
}

TEST(InventoryCheckerTest, LostUpdateWithoutOversell) {
  HistoryBuilder h;
  Buy(h, 0, 5, "a");
  Buy(h, 1, 5, "b");  // read before a's write landed: both wrote 4
  Final(h, 4, {"a", "b"});
  CheckResult r = InventoryChecker(5).Check(h.Build());
  ASSERT_EQ(r.valid, Validity::kFalse);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["type"], "lost-update");
  EXPECT_EQ(r.anomalies[0]["overlapping"].size(), 1u);
}

TEST(InventoryCheckerTest, InfoPurchasesGiveBounds) {
  HistoryBuilder h;
  Buy(h, 0, 5, "a");
  Buy(h, 1, 4, "b", OpType::kInfo);  // may or may not have landed
  Buy(h, 2, 4, "c", OpType::kFail);  // certainly did not
  // Stock 4 (b did not land) and 3 (it did) are both fine.
  for (int64_t stock : {4, 3}) {
    HistoryBuilder with_final = h;
    Final(with_final, stock, stock == 4 ? std::vector<std::string>{"a"}
                                        : std::vector<std::string>{"a", "b"});
    CheckResult r = InventoryChecker(5).Check(with_final.Build());
    EXPECT_EQ(r.valid, Validity::kTrue) << stock << r.ToJson().dump();
    EXPECT_EQ(r.stats["items"]["item-0"]["expected_stock"], nlohmann::json({3, 4}));
  }
  // 5: the acknowledged sale a is lost.
  HistoryBuilder lost = h;
  Final(lost, 5, {"a"});
  CheckResult r = InventoryChecker(5).Check(lost.Build());
  ASSERT_EQ(r.valid, Validity::kFalse);
  EXPECT_EQ(r.anomalies[0]["type"], "lost-update");
  // 2: more sold than even the maybes allow.
  HistoryBuilder extra = h;
  Final(extra, 2, {"a", "b"});
  EXPECT_EQ(InventoryChecker(5).Check(extra.Build()).valid, Validity::kFalse);
}

TEST(InventoryCheckerTest, NegativeStockIsReported) {
  HistoryBuilder h;
  Buy(h, 0, 0, "a");  // a buyer that sold below zero
  Final(h, -1, {"a"});
  CheckResult r = InventoryChecker(0).Check(h.Build());
  ASSERT_EQ(r.valid, Validity::kFalse);
  bool negative = false;
  for (const auto& a : r.anomalies) negative = negative || a["type"] == "negative-stock";
  EXPECT_TRUE(negative) << r.anomalies.dump();
}

TEST(InventoryCheckerTest, WithoutFinalReadItIsUnknownUnlessOversoldAlready) {
  HistoryBuilder h;
  Buy(h, 0, 1, "a");
  EXPECT_EQ(InventoryChecker(1).Check(h.Build()).valid, Validity::kUnknown);
  Buy(h, 1, 1, "b");
  EXPECT_EQ(InventoryChecker(1).Check(h.Build()).valid, Validity::kFalse);
}

TEST(InventoryCheckerTest, RejectedWritesCountAsNotSold) {
  HistoryBuilder h;
  const std::string key = "item-0";
  Buy(h, 0, 2, "a");
  h.Call(1, "acquire", nullptr, {{"token", "b"}, {"fence", 1}}, key);
  h.Invoke(1, "read", {{"fence", 1}}, key).Ok(1, {{"value", 2}});
  h.Invoke(1, "write", {{"value", 1}, {"read", 2}, {"order", "b"}, {"fence", 1}}, key)
      .Fail(1, {{"rejected", true}, {"fence", 1}, {"highest", 2}});
  Final(h, 1, {"a"});
  CheckResult r = InventoryChecker(2).Check(h.Build());
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
  EXPECT_EQ(r.stats["items"]["item-0"]["rejected_writes"], 1);
}

}  // namespace
}  // namespace locksmith
