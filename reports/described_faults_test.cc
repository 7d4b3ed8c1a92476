#include "reports/described_faults.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(DescribedFaultsTest, FamiliesAndWindowsAsTheHarnessWritesThem) {
  const auto d = DescribedFaults::FromResults(nlohmann::json::parse(R"({"fault_descriptions": {
      "families": {"test-family": {"lane": "test lane", "order": 5, "color": "#123456",
                                   "client_mark": "tick", "client_ops": ["stumble"]}},
      "windows": [{"index": 7, "window": 0, "family": "test-family", "text": "tripped p3",
                   "effective": false, "process": 3}]}})"));
  const LaneLook* look = d.Family("test-family");
  ASSERT_NE(look, nullptr);
  EXPECT_EQ(look->label, "test lane");
  EXPECT_EQ(look->order, 5);
  EXPECT_EQ(look->color, "#123456");
  EXPECT_EQ(look->client_mark, "tick");
  EXPECT_EQ(d.client_ops(), std::set<std::string>({"stumble"}));
  const WindowSummary* w = d.Window(7);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->text, "tripped p3");
  EXPECT_FALSE(w->effective);
  EXPECT_EQ(w->process, 3);
  EXPECT_EQ(d.Window(0), nullptr);
  EXPECT_EQ(d.Family("other"), nullptr);
}

TEST(DescribedFaultsTest, WhatIsMissingOrMalformedIsLeftOut) {
  EXPECT_TRUE(DescribedFaults::FromResults({{"valid", true}}).families().empty());
  EXPECT_TRUE(DescribedFaults::FromResults(nullptr).families().empty());
  const auto d = DescribedFaults::FromResults(nlohmann::json::parse(R"({"fault_descriptions": {
      "families": {"a": {"color": "red;}</style>", "client_mark": "blink", "order": "first"},
                   "b": 7},
      "windows": [{"text": "no index"}, {"index": 2}, 3]}})"));
  const LaneLook* a = d.Family("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->label, "a");         // no lane: the family's name
  EXPECT_EQ(a->color, "#555");      // not a hex colour: neutral
  EXPECT_EQ(a->client_mark, "");    // unknown mark: none
  EXPECT_EQ(a->order, 0);
  EXPECT_EQ(d.Family("b"), nullptr);
  ASSERT_NE(d.Window(2), nullptr);
  EXPECT_EQ(d.Window(2)->text, "");  // the report tells it by its op's name then
}

TEST(DescribedFaultsTest, HexColorsOnly) {
  EXPECT_TRUE(IsHexColor("#c62828"));
  EXPECT_TRUE(IsHexColor("#abc"));
  EXPECT_FALSE(IsHexColor("c62828"));
  EXPECT_FALSE(IsHexColor("#c6282"));
  EXPECT_FALSE(IsHexColor("#gggggg"));
  EXPECT_FALSE(IsHexColor("#fff}a{"));
}

}  // namespace
}  // namespace locksmith
