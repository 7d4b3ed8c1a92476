#include "reports/story_svg.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(StorySvgTest, HoldsLeaseOverlapAndTheFaultByItsLane) {
  Op begin;
  begin.index = 0, begin.time = 0, begin.process = kNemesisProcess, begin.type = OpType::kInfo;
  begin.f = "trip";
  begin.fault = FaultMark{0, "test-family", true}.ToJson();
  const ReportModel model = ReportModel::Build(
      {begin}, nlohmann::json::parse(R"({"fault_descriptions": {
          "families": {"test-family": {"lane": "test lane"}}, "windows": []}})"));
  AnomalyStory st;
  st.holds.resize(2);
  st.holds[0] = {3, 10, 50, 30, false, {{40, "read 7"}}};
  st.holds[1] = {4, 20, 60, -1, false, {}};
  st.overlap_start = 20, st.overlap_end = 50;
  st.cause = {0, true, 10};
  const std::string svg = StorySvg(model, st);
  EXPECT_EQ(svg.rfind("<svg class=\"story-svg\"", 0), 0u);
  const size_t label = svg.find("<text class=\"sv-flabel\"");
  ASSERT_NE(label, std::string::npos) << svg;
  EXPECT_EQ(svg.find(">test lane</text>", label), svg.find("</text>", label) - 10);
  EXPECT_NE(svg.find(">p3</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"sv-expired\""), std::string::npos);  // p3 held past its lease
  EXPECT_NE(svg.find(">lease end</text>"), std::string::npos);
  EXPECT_NE(svg.find(">read 7</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"sv-overlap\""), std::string::npos);
  EXPECT_EQ(StorySvg(model, AnomalyStory{}), "");
}

}  // namespace
}  // namespace locksmith
