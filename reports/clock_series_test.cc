#include "reports/clock_series.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

Op ClockOp(int64_t index, int64_t time, OpType type, nlohmann::json value, bool marked) {
  Op op;
  op.index = index, op.time = time, op.process = kNemesisProcess, op.type = type;
  op.f = "skew";
  op.value = std::move(value);
  if (marked) op.fault = FaultMark{0, "skewer", true}.ToJson();
  return op;
}

TEST(ClockSeriesTest, EachNodesObservedOffsetsFromZeroInNaturalOrder) {
  const History h = {
      ClockOp(0, 100, OpType::kInvoke, {{"clocks", {{"n1", {{"observed_offset_ms", 9}}}}}}, true),
      ClockOp(1, 200, OpType::kInfo,
              {{"clocks", {{"n10", {{"observed_offset_ms", 5.5}}},
                           {"n2", {{"observed_offset_ms", -3}}},
                           {"n3", {{"offset_ms", 7}}}}}},  // set, not seen: left out
              true),
      ClockOp(2, 300, OpType::kOk, {{"clocks", {{"n2", {{"observed_offset_ms", 0.5}}}}}}, false),
  };
  const ClockObservations seen = ObserveClocks(h);
  ASSERT_EQ(seen.series.size(), 2u);  // the invoke's value is what was asked, not seen
  EXPECT_EQ(seen.series[0].node, "n2");
  EXPECT_EQ(seen.series[0].time, std::vector<int64_t>({0, 200, 300}));
  EXPECT_EQ(seen.series[0].offset_ms, std::vector<double>({0, -3, 0.5}));
  EXPECT_EQ(seen.series[1].node, "n10");
  // The family is its fault mark's: the report's lane for the series.
  EXPECT_EQ(seen.family, "skewer");
  EXPECT_EQ(ObserveClocks({h[2]}).family, "");
}

}  // namespace
}  // namespace locksmith
