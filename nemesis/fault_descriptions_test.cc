#include "nemesis/fault_descriptions.h"

#include <gtest/gtest.h>

#include "nemesis/nemesis_registry.h"

namespace locksmith {
namespace {

Op NemesisOp(int64_t index, OpType type, std::string f, nlohmann::json value,
             const FaultMark& mark, std::string error = "") {
  Op op;
  op.index = index, op.time = index * 1000, op.process = kNemesisProcess, op.type = type;
  op.f = std::move(f), op.value = std::move(value), op.error = std::move(error);
  op.fault = mark.ToJson();
  return op;
}

std::string DescribeTestFault(const FaultOp& op) { return op.f + " of " + op.value.dump(); }

const FaultLook kTestLook = {"test lane", 5, "#123456", DescribeTestFault, ClientMark::kTick,
                             "stumble"};

TEST(DescribeFaultsTest, EveryFamilysLookAndEveryWindowItBegins) {
  const History h = {
      NemesisOp(0, OpType::kInvoke, "trip", {{"asked", 1}}, {0, "test-family", true}),
      NemesisOp(1, OpType::kInfo, "trip", {{"process", 4}}, {0, "test-family", true}),
      NemesisOp(2, OpType::kInfo, "untrip", nullptr, {0, "test-family", false}),
      // A begin recorded without an invoke, which failed.
      NemesisOp(3, OpType::kFail, "trip", nullptr, {1, "test-family", true}, "nobody there"),
      // A family without a look: left to the reports' defaults.
      NemesisOp(4, OpType::kInfo, "other", nullptr, {2, "unknown", true}),
  };
  const nlohmann::json d = DescribeFaults(h, {{"test-family", kTestLook}});
  EXPECT_EQ(d["families"],
            nlohmann::json::parse(R"({"test-family": {"lane": "test lane", "order": 5,
                "color": "#123456", "client_mark": "tick", "client_ops": ["stumble"]}})"));
  ASSERT_EQ(d["windows"].size(), 2u);
  // The completion's value tells it; the invoke's index names it.
  EXPECT_EQ(d["windows"][0], nlohmann::json::parse(R"({"index": 0, "window": 0,
      "family": "test-family", "text": "trip of {\"process\":4}", "effective": true,
      "process": 4})"));
  EXPECT_EQ(d["windows"][1]["index"], 3);
  EXPECT_EQ(d["windows"][1]["text"], "trip of null \xE2\x80\x94 nobody there");
  EXPECT_EQ(d["windows"][1]["effective"], false);  // a client family that hit no client
}

TEST(DescribeFaultsTest, EveryRegisteredFamilyHasALook) {
  const FaultLooks looks = RegisteredFaultLooks();
  ASSERT_EQ(looks.size(), NemesisNames().size());
  for (const auto& name : NemesisNames()) {
    const FaultLook& look = looks.at(name);
    EXPECT_EQ(std::string(look.lane), name);  // the lane is the family's name
    EXPECT_NE(look.describe, nullptr) << name;
    EXPECT_EQ(std::string(look.color).size(), 7u) << name;
  }
  EXPECT_EQ(DescribeFaults({})["families"].size(), looks.size());
}


// A family's confirmation that the window's stall outlived the holder's
// lease reaches the window's text, which the anomaly stories quote.
TEST(DescribeFaultsTest, AStallPastItsLeaseSaysSo) {
  const History h = {
      NemesisOp(0, OpType::kInvoke, "trip", nullptr, {0, "test-family", true}),
      NemesisOp(1, OpType::kInfo, "trip", {{"process", 4}}, {0, "test-family", true}),
      NemesisOp(2, OpType::kInvoke, "trip", nullptr, {1, "test-family", true}),
      NemesisOp(3, OpType::kInfo, "trip", {{"process", 5}}, {1, "test-family", true}),
      NemesisOp(4, OpType::kInvoke, "trip", nullptr, {2, "test-family", true}),
      NemesisOp(5, OpType::kInfo, "trip", {{"process", 6}}, {2, "test-family", true})};
  const FaultConfirmations confirm = {
      {"test-family", [](const History& history, size_t done) -> std::optional<FaultConfirmed> {
         const int64_t process = history[done].value["process"].get<int64_t>();
         if (process == 6) return FaultConfirmed{};  // no stall at all
         return FaultConfirmed{true, process == 4};
       }}};
  const nlohmann::json d = DescribeFaults(h, {{"test-family", kTestLook}}, confirm);
  ASSERT_EQ(d["windows"].size(), 3u);
  EXPECT_EQ(d["windows"][0]["text"], "trip of {\"process\":4}, past its lease");
  EXPECT_EQ(d["windows"][0]["past_lease"], true);
  EXPECT_EQ(d["windows"][1]["text"], "trip of {\"process\":5}");
  EXPECT_EQ(d["windows"][1]["past_lease"], false);
  EXPECT_FALSE(d["windows"][2].contains("past_lease"));
  EXPECT_FALSE(DescribeFaults(h, {{"test-family", kTestLook}})["windows"][0].contains(
      "past_lease"));
}

}  // namespace
}  // namespace locksmith
