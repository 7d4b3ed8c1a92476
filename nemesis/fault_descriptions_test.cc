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

}  // namespace
}  // namespace locksmith
